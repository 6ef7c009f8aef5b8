/* check_memlimit.c: the tape's memory limit bounds every consumer: ENOMEM naming it, nothing leaked, then the same result. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "adelim.h"
#include "testutil.h"

#define N 300      /* independents */
#define K 14000    /* loop iterations: about 3 records each */
#define TINY 4096  /* the tiny limit */

static const void *bytes;
static size_t nbytes;
static ade_tape *rec;

/* F: R^N -> R^2, sums of products of pairs: a large c-graph, a live set
 * of all N independents and many Hessian entries. */
static void record_tape(void) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 4096;
  ck_assert_int_eq(ade_tape_create(&rec, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(rec), ADE_OK);
  ade_double x[N], s, p = ade_passive(1.0);
  for (int i = 0; i < N; i++) x[i] = ade_indep(0.3 + 0.0137 * i);
  s = x[0];
  for (int k = 1; k < K; k++) {
    s = ade_add(s, ade_mul(ade_sin(x[k % N]), x[(7 * k + k / N) % N]));
    if (k % 64 == 0) p = ade_mul(p, ade_add_ad(ade_mul_ad(x[k % N], 1e-3), 1.0));
  }
  ade_dep(s);
  ade_dep(p);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_tape_bytes(rec, &bytes, &nbytes), ADE_OK);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t hash_sparse(ade_sparse *A) {
  uint64_t h = fnv(0xcbf29ce484222325ull, &A->nnz, sizeof A->nnz);
  h = fnv(h, A->rowptr, (A->m + 1) * sizeof *A->rowptr);
  h = fnv(h, A->col, A->nnz * sizeof *A->col);
  h = fnv(h, A->val, A->nnz * sizeof *A->val);
  ade_sparse_free(A);
  return h;
}

static const double W[2] = {1.375, -0.625};

/* The consumers: each runs one call on t and hashes its result into *h. */
enum { C_CGRAPH, C_JACOBIAN, C_PLAN, C_CPR, C_DENSE, C_HESS, NCONS = C_HESS + ADE_HESS_NMETHODS };
static const char *const cname[NCONS] = {"c-graph", "ade_jacobian", "plan", "cpr", "dense", "edge-push",
                                         "ve-reverse", "ve-markowitz", "for-over-rev", "edge-push-preacc",
                                         "star", "auto"};

static int consume(ade_tape *t, int c, uint64_t *h) {
  ade_sparse *A = NULL;
  int st;
  *h = 0;
  if (c == C_CGRAPH) {
    ade_cgraph *g = NULL;
    size_t nv = 0, ne = 0;
    st = ade_cgraph_from_tape(&g, t, NULL);
    ade_cgraph_size(g, &nv, &ne, NULL, NULL);
    *h = fnv(fnv(0, &nv, sizeof nv), &ne, sizeof ne);
    ade_cgraph_free(g);
    return st;
  }
  if (c == C_JACOBIAN) st = ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &A, NULL);
  else if (c == C_CPR) st = ade_jacobian_cpr(t, ADE_FORWARD, NULL, &A, NULL);
  else if (c == C_PLAN) {
    ade_elim_plan *p = NULL;
    st = ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL);
    if (!st) st = ade_elim_plan_pattern(p, &A);
    if (!st) st = ade_elim_plan_jacobian(p, t, NULL, A);
    ade_elim_plan_free(p);
  } else if (c == C_DENSE) {
    double *J = calloc(2 * N, sizeof *J);
    st = ade_jacobian_dense(t, ADE_FORWARD, NULL, J);
    *h = fnv(0, J, 2 * N * sizeof *J);
    free(J);
    return st;
  } else {
    ade_hess_options o;
    ade_hess_options_init(&o);
    o.w = W;
    st = ade_hessian(t, c - C_HESS, &o, &A, NULL);
  }
  if (!st) *h = hash_sparse(A);
  else ade_sparse_free(A);
  return st;
}

/* Consumer _i: with the tiny limit ADE_ENOMEM naming the limit and no
 * block left; with the default limit on the same tape the result of a
 * fresh tape. */
START_TEST(tiny_limit) {
  if (!rec) record_tape();
  ade_tape *t = NULL, *f = NULL;
  uint64_t h = 0, want = 0;
  ck_assert_int_eq(ade_tape_from_bytes(&f, bytes, nbytes), ADE_OK);
  ck_assert_msg(consume(f, _i, &want) == ADE_OK, "%s: %s", cname[_i], ade_errmsg());
  ade_tape_free(f);
  ade_test_alloc a = {-1, 0, 0};
  ade_set_allocator(ade_test_alloc_fn, &a);
  ck_assert_int_eq(ade_tape_from_bytes(&t, bytes, nbytes), ADE_OK);
  long live = a.live;
  ade_tape_set_memory_limit(t, TINY);
  int st = consume(t, _i, &h);
  ck_assert_msg(st == ADE_ENOMEM, "%s: %s under a 4 KiB limit", cname[_i], ade_errname(st));
  ck_assert_msg(strstr(ade_errmsg(), "memory limit of 4.0 KiB (ade_tape_set_memory_limit)"), "%s: %s",
                cname[_i], ade_errmsg());
  ade_tape_free(t); /* its idle workspaces too */
  ck_assert_msg(a.live == 0, "%s: %ld blocks left (tape held %ld)", cname[_i], a.live, live);
  ck_assert_int_eq(ade_tape_from_bytes(&t, bytes, nbytes), ADE_OK);
  ade_tape_set_memory_limit(t, TINY);
  ck_assert_int_eq(consume(t, _i, &h), ADE_ENOMEM);
  ade_tape_set_memory_limit(t, (size_t)256 << 20);
  ck_assert_msg(consume(t, _i, &h) == ADE_OK, "%s: %s", cname[_i], ade_errmsg());
  ck_assert_msg(h == want, "%s: another result after raising the limit", cname[_i]);
  ade_tape_free(t);
  ade_set_allocator(NULL, NULL);
  ck_assert_int_eq(a.live, 0);
}
END_TEST

/* A plan compiled within the limit evaluates at a new point beyond it
 * without a value array (point.c), to the same bits. */
START_TEST(plan_at_point) {
  if (!rec) record_tape();
  ade_tape *t = NULL;
  ade_elim_plan *p = NULL;
  ade_sparse *A = NULL, *B = NULL;
  double x[N];
  for (int i = 0; i < N; i++) x[i] = 0.31 + 0.0121 * i;
  ck_assert_int_eq(ade_tape_from_bytes(&t, bytes, nbytes), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_pattern(p, &A), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_pattern(p, &B), ADE_OK);
  ck_assert_int_ge(ade_elim_plan_jacobian(p, t, x, A), 0);
  ade_tape_set_memory_limit(t, TINY);
  ck_assert_int_ge(ade_elim_plan_jacobian(p, t, x, B), 0);
  ck_assert_mem_eq(A->val, B->val, A->nnz * sizeof *A->val);
  ade_sparse_free(A);
  ade_sparse_free(B);
  ade_elim_plan_free(p);
  ade_tape_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("memlimit");
  TCase *tc = tcase_create("limit");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, tiny_limit, 0, NCONS);
  tcase_add_test(tc, plan_at_point);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
