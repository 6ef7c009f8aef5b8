/* check_hessloop.c: Hessian loops: the weighted Lagrangian Hessian at many points through plans, re-recording when a branch flips, the union pattern, triplets, bad arguments and out of memory. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "randprog.h"

/* A random program with two recorded comparisons: x0 < 0.1 picks program
 * a or b, x1 < 0.2 adds x1 * x_{n-1} to output 0 (an entry of H that only
 * exists on that path). Up to four tape structures. */
typedef struct bprog {
  randprog a, b;
  int calls; /* recorder calls */
} bprog;

static int paths(const double *x) { return (x[0] < 0.1) + 2 * (x[1] < 0.2); }

/* Record bp at x onto *tp: ADE_OK or an error (nothing left behind). */
static int record(void *ud, const double *x, ade_tape **tp) {
  bprog *bp = ud;
  const randprog *p = &bp->a;
  ade_tape *t = NULL;
  bp->calls++;
  int st = ade_tape_create(&t, NULL), n = p->n;
  ade_double *v = malloc(sizeof *v * (size_t)(n + p->nsteps));
  if (!st && !(st = ade_trace_on(t))) {
    for (int i = 0; i < n; i++) v[i] = ade_indep(x[i]);
    if (!ADE_LT(v[0], 0.1)) p = &bp->b;
    for (int i = 0; i < p->nsteps; i++) v[n + i] = rp_step_eval(&p->steps[i], v);
    ade_double y0 = v[p->out[0]];
    if (ADE_LT(v[1], 0.2)) y0 = ade_add(y0, ade_mul(v[1], v[n - 1]));
    ade_dep(y0);
    for (int j = 1; j < p->m; j++) ade_dep(v[p->out[j]]);
    st = ade_trace_off();
  }
  free(v);
  if (st < 0) ade_tape_free(t), t = NULL;
  *tp = t;
  return st < 0 ? st : ADE_OK;
}

static bprog bp_make(uint64_t seed, int n, int m, int nsteps) {
  bprog bp = {rp_make(seed, n, m, nsteps), rp_make(seed + 1000, n, m, nsteps), 0};
  return bp;
}

static void bp_free(bprog *bp) { rp_free(&bp->a), rp_free(&bp->b); }

static ade_tape *record_ok(bprog *bp, const double *x) {
  ade_tape *t = NULL;
  int st = record(bp, x, &t);
  ck_assert_msg(st == ADE_OK, "record: %s", ade_errmsg());
  return t;
}

/* The loop's H at x equals the Hessian by forward-over-reverse (an
 * independent method) of a tape recorded afresh at x (or, for a loop
 * without recorder, of the loop's tape at x), zero off its pattern. */
static void check_values(ade_hess_loop *L, ade_tape *t, const double *x, const double *w, double tol) {
  const ade_sparse *H = ade_hess_loop_matrix(L);
  size_t n = H->n;
  ade_sparse *E = NULL;
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = x, o.w = w;
  int st = ade_hessian(t, ADE_HESS_FOR_OVER_REV, &o, &E, NULL);
  ck_assert_msg(st >= 0, "oracle: %s", ade_errmsg());
  double *D1 = calloc(n * n, sizeof *D1), *D2 = calloc(n * n, sizeof *D2);
  ck_assert_int_eq(ade_sparse_to_dense(H, D1), ADE_OK);
  ck_assert_int_eq(ade_sparse_to_dense(E, D2), ADE_OK);
  for (size_t q = 0; q < n * n; q++) ade_assert_rel(D1[q], D2[q], tol);
  free(D1), free(D2);
  ade_sparse_free(E);
}

/* Mark t's structural pattern (a fresh plan's) in mask (n x n, lower);
 * @return how many entries were new. */
static int mark_pattern(ade_tape *t, int method, char *mask, size_t n) {
  ade_hess_plan *p = NULL;
  ade_sparse *P = NULL;
  ck_assert_int_eq(ade_hess_plan_create(&p, t, method, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_pattern(p, &P), ADE_OK);
  int add = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) add += !mask[i * n + P->col[k]], mask[i * n + P->col[k]] = 1;
  ade_sparse_free(P);
  ade_hess_plan_free(p);
  return add;
}

/* H's pattern is exactly mask, lower triangle, columns ascending; the
 * triplets list it in the order of the values. */
static void check_pattern(ade_hess_loop *L, const char *mask) {
  const ade_sparse *H = ade_hess_loop_matrix(L);
  size_t n = H->n, cnt = 0;
  ck_assert_int_eq(H->symmetric, 1);
  ck_assert_uint_eq(H->m, n);
  for (size_t q = 0; q < n * n; q++) cnt += (size_t)mask[q];
  ck_assert_uint_eq(H->nnz, cnt);
  size_t *row = malloc((H->nnz + 1) * sizeof *row), *col = malloc((H->nnz + 1) * sizeof *col);
  ck_assert_int_eq(ade_hess_loop_triplets(L, row, col), ADE_OK);
  for (size_t i = 0; i < n; i++)
    for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
      ck_assert(mask[i * n + H->col[k]]);
      ck_assert_uint_le(H->col[k], i);
      if (k > H->rowptr[i]) ck_assert_uint_lt(H->col[k - 1], H->col[k]);
      ck_assert_uint_eq(row[k], i);
      ck_assert_uint_eq(col[k], H->col[k]);
    }
  free(row), free(col);
}

/* Random programs at random points: H right at every point, a retape
 * exactly when the path changes, ADE_WPATTERN exactly when the union of
 * the structural patterns seen grows, and the counters to match. */
START_TEST(random_flips) {
  static const int meth[4] = {ADE_HESS_AUTO, ADE_HESS_STAR, ADE_HESS_EDGE_PUSH, ADE_HESS_VE_MARKOWITZ};
  int method = meth[_i % 4], n = 2 + _i % 6, m = 1 + _i % 3;
  uint64_t s = 4242 + (uint64_t)_i;
  bprog bp = bp_make(300 + (uint64_t)_i, n, m, 12 + 2 * _i);
  double x[8], w[3];
  for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.2, 1.3);
  ade_tape *t0 = record_ok(&bp, x);
  ade_hess_plan_cache *c = NULL;
  ck_assert_int_eq(ade_hess_plan_cache_create(&c, _i % 2 ? 2 : 8), ADE_OK);
  ade_hess_loop *L = NULL;
  ck_assert_int_eq(ade_hess_loop_create(&L, t0, method, _i % 3 ? c : NULL), ADE_OK);
  ade_hess_loop_set_recorder(L, record, &bp);
  char *mask = calloc((size_t)(n * n), 1);
  char seen[4] = {0};
  int path = paths(x), retapes = 0, growths = 0;
  seen[path] = 1;
  mark_pattern(t0, method, mask, (size_t)n);
  check_pattern(L, mask);
  for (int it = 0; it < 10; it++) {
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.2, 1.3);
    for (int j = 0; j < m; j++) w[j] = ade_test_uniform(&s, -2.0, 2.0);
    const ade_sparse *H = NULL;
    int calls = bp.calls;
    int st = ade_hess_loop_eval(L, x, m == 1 && it % 2 ? NULL : w, &H);
    ck_assert_msg(st >= 0, "%s: %s", ade_errname(st), ade_errmsg());
    ck_assert_ptr_eq(H, ade_hess_loop_matrix(L));
    int np = paths(x), grew = 0;
    ck_assert_int_eq(bp.calls - calls, np != path); /* re-recorded exactly on a flip */
    if (np != path) {
      ade_tape *t = ade_hess_loop_tape(L);
      grew = mark_pattern(t, method, mask, (size_t)n) > 0;
      retapes++, growths += grew;
      seen[np] = 1, path = np;
    }
    ck_assert_int_eq(st, grew ? ADE_WPATTERN : ADE_OK);
    check_pattern(L, mask);
    ade_tape *fresh = record_ok(&bp, x); /* the oracle's own tape */
    check_values(L, fresh, x, m == 1 && it % 2 ? NULL : w, 1e-10);
    ade_tape_free(fresh);
  }
  ade_hess_loop_stats ls;
  ade_hess_loop_report(L, &ls);
  ck_assert_uint_eq(ls.evals, 10);
  ck_assert_uint_eq(ls.retapes, (uint64_t)retapes);
  ck_assert_uint_eq(ls.pattern_growths, (uint64_t)growths);
  uint64_t paths_seen = (uint64_t)(seen[0] + seen[1] + seen[2] + seen[3]);
  if (!(_i % 2 && _i % 3)) ck_assert_uint_eq(ls.plans_built, paths_seen); /* capacity 8: no evictions */
  else ck_assert_uint_ge(ls.plans_built, paths_seen);
  if (method == ADE_HESS_AUTO) ck_assert(ls.method == ADE_HESS_STAR || ls.method == ADE_HESS_EDGE_PUSH);
  else ck_assert_int_eq(ls.method, method);
  ck_assert_uint_gt(ls.fma, 0);
  ade_hess_loop_free(L);
  ade_hess_plan_cache_free(c);
  ade_tape_free(t0);
  free(mask);
  bp_free(&bp);
}
END_TEST

/* Without a recorder a flip is reported (ADE_WBRANCH) and H is that of
 * the recorded path at x; retape by hand then grows the pattern, and
 * returning to the first path keeps the grown pattern with zeros. */
START_TEST(no_recorder) {
  int n = 4, m = 2;
  bprog bp = bp_make(77, n, m, 20);
  double x0[4] = {-0.5, -0.4, 0.3, 0.7}, x1[4] = {-0.5, 0.9, 0.3, 0.7}, w[2] = {1.5, -0.75};
  ade_tape *t0 = record_ok(&bp, x0), *t1 = record_ok(&bp, x1);
  ade_hess_loop *L = NULL;
  ck_assert_int_eq(ade_hess_loop_create(&L, t0, ADE_HESS_AUTO, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_loop_eval(L, NULL, w, NULL), ADE_OK);
  check_values(L, t0, NULL, w, 1e-10);
  ck_assert_int_eq(ade_hess_loop_eval(L, x1, w, NULL), ADE_WBRANCH);
  check_values(L, t0, x1, w, 1e-10); /* the recorded path's H at x1 */
  const ade_sparse *H0 = ade_hess_loop_matrix(L);
  size_t nnz0 = H0->nnz, r1 = 3, c1 = 1; /* x1 * x3 exists only on t0's path */
  int has = 0;
  for (size_t k = H0->rowptr[r1]; k < H0->rowptr[r1 + 1]; k++) has |= H0->col[k] == c1;
  ck_assert(has);
  ck_assert_int_eq(ade_hess_loop_retape(L, t1), ADE_OK); /* t1's pattern is inside t0's */
  ck_assert_ptr_eq(ade_hess_loop_tape(L), t1);
  ck_assert_uint_eq(ade_hess_loop_matrix(L)->nnz, nnz0);
  ck_assert_int_eq(ade_hess_loop_eval(L, x1, w, NULL), ADE_OK);
  check_values(L, t1, x1, w, 1e-10); /* (3,1) held at 0 */
  ck_assert_int_eq(ade_hess_loop_retape(L, t0), ADE_OK);
  ade_hess_loop_stats ls;
  ade_hess_loop_report(L, &ls);
  ck_assert_uint_eq(ls.retapes, 2);
  ck_assert_uint_eq(ls.plans_built, 2);
  ck_assert_uint_eq(ls.evals, 3);
  ade_hess_loop_free(L);
  /* the other way round: t1 first, t0 adds (3,1) unless t1 had it */
  ck_assert_int_eq(ade_hess_loop_create(&L, t1, ADE_HESS_AUTO, NULL), ADE_OK);
  H0 = ade_hess_loop_matrix(L), has = 0;
  for (size_t k = H0->rowptr[r1]; k < H0->rowptr[r1 + 1]; k++) has |= H0->col[k] == c1;
  ck_assert_int_eq(ade_hess_loop_retape(L, t0), has ? ADE_OK : ADE_WPATTERN);
  ck_assert_uint_eq(ade_hess_loop_matrix(L)->nnz, nnz0);
  ck_assert_int_eq(ade_hess_loop_eval(L, x0, w, NULL), ADE_OK);
  check_values(L, t0, x0, w, 1e-10);
  ade_hess_loop_free(L);
  ade_tape_free(t0), ade_tape_free(t1);
  bp_free(&bp);
}
END_TEST

static int failing_recorder(void *ud, const double *x, ade_tape **t) {
  (void)ud, (void)x;
  *t = NULL;
  return ADE_EIO;
}

START_TEST(bad_arguments) {
  bprog bp = bp_make(5, 3, 2, 10), other = bp_make(6, 4, 2, 10), one = bp_make(7, 3, 1, 10);
  double x[4] = {0.5, 0.5, 0.5, 0.5}, w[2] = {1, 1};
  ade_tape *t = record_ok(&bp, x), *t4 = record_ok(&other, x), *t1 = record_ok(&one, x);
  ade_hess_loop *L = NULL;
  ck_assert_int_eq(ade_hess_loop_create(NULL, t, ADE_HESS_AUTO, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_loop_create(&L, NULL, ADE_HESS_AUTO, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_loop_create(&L, t, 99, NULL), ADE_EINVAL);
  ck_assert_ptr_null(L);
  ck_assert_int_eq(ade_hess_loop_eval(NULL, x, w, NULL), ADE_EINVAL);
  ck_assert_ptr_null(ade_hess_loop_matrix(NULL));
  ck_assert_ptr_null(ade_hess_loop_tape(NULL));
  ade_hess_loop_report(NULL, NULL);
  ade_hess_loop_set_recorder(NULL, record, NULL);
  ck_assert_int_eq(ade_hess_loop_create(&L, t, ADE_HESS_AUTO, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_loop_eval(L, x, NULL, NULL), ADE_EINVAL); /* m = 2 needs weights */
  ck_assert_int_eq(ade_hess_loop_retape(L, t4), ADE_EINVAL);           /* another n */
  ck_assert_int_eq(ade_hess_loop_retape(L, t1), ADE_EINVAL);           /* another m */
  ck_assert_int_eq(ade_hess_loop_retape(L, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_loop_retape(NULL, t), ADE_EINVAL);
  ck_assert_ptr_eq(ade_hess_loop_tape(L), t);
  ck_assert_int_eq(ade_hess_loop_triplets(L, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_loop_triplets(NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_loop_eval(L, x, w, NULL), ADE_OK);
  /* a recorder that fails: its error, the loop keeps its tape */
  double xf[4] = {0.5, -0.5, 0.5, 0.5};
  ade_hess_loop_set_recorder(L, failing_recorder, NULL);
  ck_assert_int_eq(ade_hess_loop_eval(L, xf, w, NULL), ADE_EIO);
  ck_assert_ptr_eq(ade_hess_loop_tape(L), t);
  ck_assert_int_eq(ade_hess_loop_eval(L, x, w, NULL), ADE_OK);
  ade_hess_loop_free(L);
  ade_hess_loop_free(NULL);
  ade_tape_free(t), ade_tape_free(t4), ade_tape_free(t1);
  bp_free(&bp), bp_free(&other), bp_free(&one);
}
END_TEST

/* Every allocation of creating a loop, a flip with a re-record and a
 * pattern growth, and an evaluation fails in turn: ADE_ENOMEM, nothing
 * leaked; then the run succeeds. */
START_TEST(out_of_memory) {
  bprog bp = bp_make(11, 4, 2, 14);
  double x[4] = {0.5, 0.5, 0.3, 0.2}, x2[4] = {-0.5, -0.5, 0.35, 0.15}, w[2] = {1.0, 0.5};
  ade_test_alloc a = {-1, 0, 0};
  for (long k = 0;; k++) { /* _i: the loop's own cache or a shared one */
    a.fail_at = k, a.count = 0, a.live = 0;
    ade_set_allocator(ade_test_alloc_fn, &a);
    ade_tape *t = NULL;
    ade_hess_plan_cache *c = NULL;
    ade_hess_loop *L = NULL;
    int st = record(&bp, x, &t);
    if (!st) st = ade_hess_plan_cache_create(&c, 2);
    if (!st) st = ade_hess_loop_create(&L, t, ADE_HESS_AUTO, _i ? c : NULL);
    if (!st) ade_hess_loop_set_recorder(L, record, &bp);
    if (!st) st = ade_hess_loop_eval(L, x2, w, NULL);
    if (st >= 0) st = ade_hess_loop_eval(L, x, w, NULL);
    ade_hess_loop_free(L);
    ade_hess_plan_cache_free(c);
    ade_tape_free(t);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    if (st >= 0) break;
    ck_assert_msg(st == ADE_ENOMEM, "k=%ld: %s: %s", k, ade_errname(st), ade_errmsg());
  }
  bp_free(&bp);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hessloop");
  TCase *c = tcase_create("loop");
  tcase_set_timeout(c, 60);
  tcase_add_loop_test(c, random_flips, 0, 48);
  tcase_add_test(c, no_recorder);
  tcase_add_test(c, bad_arguments);
  tcase_add_loop_test(c, out_of_memory, 0, 2);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return ade_test_run(suite()); }
