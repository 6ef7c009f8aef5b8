/* check_hesscolor.c: star coloring, compressed Hessians and Hessian plans against forward-over-reverse, edge pushing and an independent star checker. */
#include <pthread.h>
#include <string.h>

#include "hessian_internal.h"
#include "randprog.h"

/* A symmetric pattern (lower triangle, diagonal included) from a dense
 * 0/1 adjacency A (n x n, symmetric). */
static ade_sparse *pattern(size_t n, const char *A) {
  size_t nnz = 0, k = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j <= i; j++) nnz += i == j || A[i * n + j];
  ade_sparse *P;
  ck_assert_int_eq(ade_sparse_create(&P, n, n, nnz, 1), ADE_OK);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j <= i; j++)
      if (i == j || A[i * n + j]) P->col[k] = j, P->val[k++] = 1;
    P->rowptr[i + 1] = k;
  }
  return P;
}

/* The definition, checked independently of the algorithm: adjacent
 * vertices differ, and for every two colors each connected component of
 * the subgraph they induce is a star (a tree with a vertex adjacent to all
 * others), i.e. with k vertices it has k - 1 edges and a vertex of degree
 * k - 1. Components by a plain stack search. */
static void assert_star(size_t n, const char *A, const size_t *color, size_t nc) {
  size_t *comp = malloc(sizeof(size_t) * (n + 1)), *stack = malloc(sizeof(size_t) * (n + 1));
  for (size_t i = 0; i < n; i++) {
    ck_assert_uint_lt(color[i], nc);
    for (size_t j = 0; j < n; j++)
      ck_assert_msg(!A[i * n + j] || i == j || color[i] != color[j], "%zu and %zu adjacent, color %zu", i, j, color[i]);
  }
  for (size_t a = 0; a < nc; a++)
    for (size_t b = a + 1; b < nc; b++) {
      for (size_t i = 0; i < n; i++) comp[i] = SIZE_MAX;
      for (size_t r = 0; r < n; r++) {
        if (comp[r] != SIZE_MAX || (color[r] != a && color[r] != b)) continue;
        size_t top = 0, k = 0, edges2 = 0, maxdeg = 0;
        stack[top++] = r;
        comp[r] = r;
        while (top) {
          size_t v = stack[--top], deg = 0;
          k++;
          for (size_t u = 0; u < n; u++) {
            if (u == v || !A[v * n + u] || (color[u] != a && color[u] != b)) continue;
            deg++;
            if (comp[u] == SIZE_MAX) comp[u] = r, stack[top++] = u;
          }
          edges2 += deg;
          maxdeg = deg > maxdeg ? deg : maxdeg;
        }
        ck_assert_msg(edges2 == 2 * (k - 1) && (k == 1 || maxdeg == k - 1),
                      "colors %zu, %zu: a component of %zu vertices with %zu edges, largest degree %zu is no star", a,
                      b, k, edges2 / 2, maxdeg);
      }
    }
  free(comp);
  free(stack);
}

/* Color A by each order; each result is a star coloring. @return the
 * colors of ADE_COLOR_BEST (no more than either order's). */
static size_t color_all(size_t n, const char *A) {
  ade_sparse *P = pattern(n, A);
  size_t *color = malloc(sizeof(size_t) * (n + 1)), nc[3];
  for (int o = ADE_COLOR_NATURAL; o <= ADE_COLOR_BEST; o++) {
    ck_assert_int_eq(ade_sparse_star_color(P, o, color, &nc[o]), ADE_OK);
    assert_star(n, A, color, nc[o]);
    size_t *src = malloc(sizeof(size_t) * (P->nnz + 1));
    ck_assert_int_eq(ade__star_recovery(P, color, nc[o], src), ADE_OK);
    free(src);
  }
  ck_assert_uint_eq(nc[ADE_COLOR_BEST], nc[0] < nc[1] ? nc[0] : nc[1]);
  ade_sparse_free(P);
  free(color);
  return nc[ADE_COLOR_BEST];
}

/* Random graphs of every density: always a star coloring, and direct
 * recovery finds every entry. */
START_TEST(random_graphs) {
  uint64_t s = 31 + (uint64_t)_i;
  size_t n = 1 + ade_test_rand(&s) % 40;
  double dens = ade_test_uniform(&s, 0.0, _i % 4 ? 0.25 : 1.0);
  char *A = calloc(n * n + 1, 1);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++) A[i * n + j] = A[j * n + i] = ade_test_uniform(&s, 0, 1) < dens;
  size_t nc = color_all(n, A);
  ck_assert_uint_ge(nc, 1);
  ck_assert_uint_le(nc, n);
  free(A);
}
END_TEST

/* Known star chromatic numbers the greedy attains: a diagonal pattern 1; a
 * path (tridiagonal) on n >= 4 vertices 3 (2 colors would make the path
 * itself two-colored; 0 1 0 2 0 1 0 2 ... is a star coloring); an arrowhead
 * (a star K_{1,n-1}) 2 even with its hub last, where natural order gives
 * the n - 1 leaves distinct colors (each pair is at distance two through
 * the uncolored hub) and the hub one more, and largest-first finds the hub; a complete graph n; 2 x 2
 * blocks (extended Rosenbrock) 2. */
START_TEST(known_counts) {
  size_t n = 12;
  char *A = calloc(n * n, 1);
  ck_assert_uint_eq(color_all(n, A), 1);
  for (size_t i = 0; i + 1 < n; i++) A[i * n + i + 1] = A[(i + 1) * n + i] = 1;
  ck_assert_uint_eq(color_all(n, A), 3);
  memset(A, 0, n * n);
  for (size_t i = 0; i + 1 < n; i++) A[i * n + n - 1] = A[(n - 1) * n + i] = 1;
  ck_assert_uint_eq(color_all(n, A), 2);
  ade_sparse *P = pattern(n, A);
  size_t color[12], nc;
  ck_assert_int_eq(ade_sparse_star_color(P, ADE_COLOR_NATURAL, color, &nc), ADE_OK);
  ck_assert_uint_eq(nc, n);
  ade_sparse_free(P);
  memset(A, 1, n * n);
  ck_assert_uint_eq(color_all(n, A), n);
  memset(A, 0, n * n);
  for (size_t i = 0; i + 1 < n; i += 2) A[i * n + i + 1] = A[(i + 1) * n + i] = 1;
  ck_assert_uint_eq(color_all(n, A), 2);
  free(A);
}
END_TEST

/* The structural masks of the operation table: a second partial outside
 * the mask is exactly zero wherever operands and result are finite. */
START_TEST(struct_masks) {
  unsigned op = (unsigned)_i;
  uint64_t s = 5 + (uint64_t)_i;
  int k = ade__optab[op].arity;
  for (int q = 0; q < 2000 && k > 0; q++) {
    double a[3], d[3], h[6];
    for (int j = 0; j < 3; j++) a[j] = ade_test_uniform(&s, q % 2 ? -4.0 : 0.05, q % 2 ? 4.0 : 2.5);
    double r = ade__op_value(op, a);
    ade__op_partials(op, a, r, d, h);
    if (!isfinite(r)) continue;
    unsigned mask = ade__hess_struct_mask(op);
    for (int e = 0; e < k * (k + 1) / 2; e++)
      ck_assert_msg((mask >> e & 1u) || h[e] == 0, "%s: h[%d] = %g outside the mask %#x", ade_op_name((int)op), e,
                    h[e], mask);
    if (ade__optab[op].flags & ADE__PASSIVE) ck_assert_uint_eq(mask, 0);
  }
}
END_TEST

static double *dense(const ade_sparse *H) {
  double *D = malloc(sizeof(double) * (H->n * H->n + 1));
  ck_assert_int_eq(ade_sparse_to_dense(H, D), ADE_OK);
  return D;
}

/* D against the oracle D0 to tol relative to D0's largest entry. */
static void compare(const double *D, const double *D0, size_t n, double tol, const char *what) {
  double scale = 1;
  for (size_t k = 0; k < n * n; k++) scale = fmax(scale, fabs(D0[k]));
  for (size_t k = 0; k < n * n; k++)
    ck_assert_msg(fabs(D[k] - D0[k]) <= tol * scale, "%s: H[%zu][%zu] = %.17g, oracle %.17g", what, k / n, k % n,
                  D[k], D0[k]);
}

/* Many random tapes: one plan per tape (star, auto, and two methods run
 * whole and scattered into the plan's pattern), evaluated at the
 * recorded point and at three new points, equals forward-over-reverse to
 * 64 n eps relative, and edge pushing; the pattern holds every entry edge
 * pushing finds there; the gradient and the value equal the oracle's; the
 * plan's coloring is a star coloring of its pattern (the checker above);
 * counted fma never exceed the predicted ones. */
START_TEST(random_plans) {
  uint64_t s = 1234 + (uint64_t)_i;
  int n = 1 + (int)(ade_test_rand(&s) % 8), m = 1 + (int)(ade_test_rand(&s) % 3);
  randprog p = rp_make(ade_test_rand(&s), n, m, m + (int)(ade_test_rand(&s) % 60));
  double x[8], w[3], g[8], g0[8];
  for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.5, 1.5);
  for (int i = 0; i < m; i++) w[i] = ade_test_uniform(&s, -1.0, 1.0);
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 1 + (uint32_t)(ade_test_rand(&s) % 30);
  ade_tape *t = rp_record(&p, x, &o);
  static const int meth[4] = {ADE_HESS_STAR, ADE_HESS_AUTO, ADE_HESS_EDGE_PUSH, ADE_HESS_VE_MARKOWITZ};
  int method = meth[_i % 4];
  ade_hess_plan *P;
  ade_hess_report pr;
  ck_assert_int_eq(ade_hess_plan_create(&P, t, method, &pr), ADE_OK);
  ade_sparse *H, *E, *O;
  ck_assert_int_eq(ade_hess_plan_pattern(P, &H), ADE_OK);
  ck_assert_uint_eq(pr.nnz, H->nnz);
  size_t *color = malloc(sizeof(size_t) * (size_t)n), nc = ade_hess_plan_colors(P, color);
  ck_assert_uint_eq(nc, pr.colors);
  char *A = calloc((size_t)(n * n), 1);
  for (size_t i = 0; i < (size_t)n; i++)
    for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) A[i * (size_t)n + H->col[k]] = A[H->col[k] * (size_t)n + i] = 1;
  if (H->nnz && nc) assert_star((size_t)n, A, color, nc);
  ck_assert_uint_eq(nc > 0, H->nnz > 0 && (method == ADE_HESS_STAR || method == ADE_HESS_AUTO));
  uint64_t pe, ps;
  ade_hess_plan_cost(P, &pe, &ps);
  ck_assert_uint_eq(pe, pr.fma);
  for (int pt = 0; pt < 4; pt++) {
    const double *xp = pt ? x : NULL, *wp = m > 1 ? w : NULL;
    if (pt)
      for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.5, 1.5);
    ade_hess_options ho = {xp, wp, g};
    ade_hess_report r, r0, re;
    int st = ade_hess_plan_hessian(P, t, &ho, H, &r);
    ck_assert_msg(st == ADE_OK || st == ADE_WBRANCH, "%s", ade_errmsg());
    ho.grad = g0;
    ck_assert_int_ge(ade_hessian(t, ADE_HESS_FOR_OVER_REV, &ho, &O, &r0), 0);
    ho.grad = NULL;
    ck_assert_int_ge(ade_hessian(t, ADE_HESS_EDGE_PUSH, &ho, &E, &re), 0);
    double *D = dense(H), *D0 = dense(O), *DE = dense(E);
    compare(D, D0, (size_t)n, 64.0 * n * DBL_EPSILON * 16, "plan vs for-over-rev");
    compare(D, DE, (size_t)n, 64.0 * n * DBL_EPSILON * 16, "plan vs edge-push");
    for (size_t i = 0; i < (size_t)n; i++)
      for (size_t k = E->rowptr[i]; k < E->rowptr[i + 1]; k++)
        ck_assert_msg(A[i * (size_t)n + E->col[k]] || i == E->col[k], "edge pushing's (%zu, %zu) not in the pattern",
                      i, E->col[k]);
    for (int i = 0; i < n; i++) ade_assert_rel(g[i], g0[i], 1e-13);
    ade_assert_rel(r.value, r0.value, 1e-15);
    ck_assert_uint_le(re.fma, pe);
    if (ade_hess_plan_method(P) == ADE_HESS_STAR) ck_assert_uint_le(r.fma, ps);
    free(D), free(D0), free(DE);
    ade_sparse_free(O);
    ade_sparse_free(E);
  }
  free(A);
  free(color);
  ade_sparse_free(H);
  ade_hess_plan_free(P);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* Tapes for the automatic choice. A long chain on a band: x <- sin(x_{i-1}
 * x_i + x_{i+1}) for T rounds, f = sum x_i: edge pushing carries a live
 * Hessian whose band widens every round, star coloring needs a few colors
 * of the final band. And the pairwise potential sum_{i<j} log(1 + (x_i -
 * x_j)^2): a dense Hessian (n colors) from n^2 / 2 terms, each of which
 * edge pushing handles locally. */
static ade_tape *chain_tape(size_t n, int rounds) {
  ade_tape *t;
  ade_double *v = malloc(sizeof(ade_double) * n), *u = malloc(sizeof(ade_double) * n);
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  for (size_t i = 0; i < n; i++) v[i] = ade_indep(0.3 + 0.01 * (double)i);
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < n; i++) {
      ade_double a = i ? ADE_MUL(v[i - 1], v[i]) : v[i];
      u[i] = ADE_SIN(i + 1 < n ? ADE_ADD(a, v[i + 1]) : a);
    }
    memcpy(v, u, n * sizeof *v);
  }
  ade_double f = v[0];
  for (size_t i = 1; i < n; i++) f = ADE_ADD(f, v[i]);
  ade_dep(f);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  free(u);
  return t;
}

static ade_tape *pairs_tape(size_t n) {
  ade_tape *t;
  ade_double *v = malloc(sizeof(ade_double) * n), f = {0};
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  for (size_t i = 0; i < n; i++) v[i] = ade_indep(0.1 * (double)i - 0.3);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      ade_double e = ADE_LOG(ADE_ADD(1.0, ADE_SQUARE(ADE_SUB(v[i], v[j]))));
      f = i == 0 && j == 1 ? e : ADE_ADD(f, e);
    }
  ade_dep(f);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  return t;
}

/* AUTO picks the method whose counted fma (edge pushing's weighted by the
 * rule's ADE__HESS_EP_WEIGHT) are fewer, on one tape where each wins by a
 * factor 4 beyond the rule; the choice and the counts are asserted, wall
 * time is bench_hesscolor's (doc/benchmarks.md). */
static void auto_case(ade_tape *t, int want) {
  ade_hess_plan *A, *S;
  ck_assert_int_eq(ade_hess_plan_create(&A, t, ADE_HESS_AUTO, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_create(&S, t, ADE_HESS_STAR, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_method(A), want);
  ade_sparse *H;
  ade_hess_report rs, re;
  ck_assert_int_eq(ade_hess_plan_pattern(S, &H), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_hessian(S, t, NULL, H, &rs), ADE_OK);
  ade_sparse_free(H);
  ck_assert_int_eq(ade_hessian(t, ADE_HESS_EDGE_PUSH, NULL, &H, &re), ADE_OK);
  ade_sparse_free(H);
  uint64_t pe, ps;
  ade_hess_plan_cost(S, &pe, &ps);
  ck_assert_uint_eq(re.fma, pe); /* nothing vanishes on these tapes: counted = predicted */
  ck_assert_uint_le(rs.fma, ps);
  if (want == ADE_HESS_STAR) ck_assert_uint_lt(4 * rs.fma, ADE__HESS_EP_WEIGHT * re.fma);
  else ck_assert_uint_gt(rs.fma, 4 * ADE__HESS_EP_WEIGHT * re.fma);
  ade_hess_plan_free(A);
  ade_hess_plan_free(S);
}

START_TEST(auto_choice) {
  ade_tape *t = chain_tape(60, 30);
  auto_case(t, ADE_HESS_STAR);
  ade_tape_free(t);
  t = pairs_tape(128);
  auto_case(t, ADE_HESS_EDGE_PUSH);
  ade_tape_free(t);
}
END_TEST

START_TEST(errors) {
  size_t color[4], nc;
  char A[16] = {0};
  A[1] = A[4] = 1;
  ade_sparse *P = pattern(4, A), *Q;
  ck_assert_int_eq(ade_sparse_star_color(NULL, 0, color, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_star_color(P, 0, NULL, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_star_color(P, 7, color, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_create(&Q, 4, 4, 1, 0), ADE_OK); /* not symmetric */
  ck_assert_int_eq(ade_sparse_star_color(Q, 0, color, &nc), ADE_EINVAL);
  Q->symmetric = 1;
  Q->rowptr[1] = Q->rowptr[2] = Q->rowptr[3] = Q->rowptr[4] = 1;
  Q->col[0] = 2; /* above the diagonal */
  ck_assert_int_eq(ade_sparse_star_color(Q, 0, color, &nc), ADE_EINVAL);
  ade_sparse_free(Q);
  size_t same[4] = {0, 0, 1, 2}, src[8];
  ck_assert_int_eq(ade__star_recovery(P, same, 3, src), ADE_EINVAL); /* 0 and 1 adjacent, one color */
  size_t big[4] = {0, 1, 5, 0};
  ck_assert_int_eq(ade__star_recovery(P, big, 3, src), ADE_EINVAL);
  ade_sparse_free(P);
  /* Plans. */
  randprog p = rp_make(3, 2, 1, 10), p2 = rp_make(4, 3, 1, 12);
  double x[3] = {0.5, 0.25, 0.7};
  ade_tape *t = rp_record(&p, x, NULL), *t2 = rp_record(&p2, x, NULL);
  ade_hess_plan *H = NULL;
  ck_assert_int_eq(ade_hess_plan_create(NULL, t, ADE_HESS_STAR, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_create(&H, NULL, ADE_HESS_STAR, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_create(&H, t, ADE_HESS_NMETHODS, NULL), ADE_EINVAL);
  ck_assert_ptr_null(H);
  ck_assert_int_eq(ade_hess_plan_create(&H, t, ADE_HESS_STAR, NULL), ADE_OK);
  ade_sparse *M;
  ck_assert_int_eq(ade_hess_plan_pattern(H, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_pattern(NULL, &M), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_pattern(H, &M), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_hessian(NULL, t, NULL, M, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_hessian(H, t, NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_hessian(H, t2, NULL, M, NULL), ADE_EINVAL); /* another tape */
  M->nnz++;
  ck_assert_int_eq(ade_hess_plan_hessian(H, t, NULL, M, NULL), ADE_EINVAL); /* H's shape */
  M->nnz--;
  ck_assert_int_eq(ade_hess_plan_hessian(H, t, NULL, M, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_method(NULL), -1);
  ck_assert_uint_eq(ade_hess_plan_colors(NULL, NULL), 0);
  ade_hess_plan_free(NULL);
  ade_hess_plan_free(H);
  ade_sparse_free(M);
  ade_tape_free(t);
  ade_tape_free(t2);
  rp_free(&p);
  rp_free(&p2);
}
END_TEST

/* Out of memory at every allocation of plan creation and evaluation:
 * ADE_ENOMEM, nothing leaked, and success once allocations suffice. */
START_TEST(out_of_memory) {
  randprog p = rp_make(11, 4, 2, 30);
  double x[4] = {0.3, -0.7, 1.1, 0.5}, w[2] = {0.6, -1.2};
  ade_tape *t = rp_record(&p, x, NULL);
  const void *bytes;
  size_t size;
  ck_assert_int_eq(ade_tape_bytes(t, &bytes, &size), ADE_OK);
  int ok = 0;
  for (long k = 0; k < 100000 && !ok; k++) {
    ade_test_alloc a = {k, 0, 0};
    ade_set_allocator(ade_test_alloc_fn, &a);
    ade_hess_plan *P = NULL;
    ade_sparse *H = NULL;
    ade_tape *tt = NULL;
    ade_hess_options o = {x, w, NULL};
    int st = ade_tape_from_bytes(&tt, bytes, size); /* its clones and caches are freed with it */
    if (!st) st = ade_hess_plan_create(&P, tt, ADE_HESS_STAR, NULL);
    if (!st) st = ade_hess_plan_pattern(P, &H);
    if (!st) st = ade_hess_plan_hessian(P, tt, &o, H, NULL);
    ade_sparse_free(H);
    ade_hess_plan_free(P);
    ade_tape_free(tt);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "k=%ld: %s", k, ade_errmsg());
    ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    ok = st == ADE_OK;
  }
  ck_assert(ok);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* One plan and one tape shared by four threads, each at its own points
 * with its own H: the values bitwise those of one thread alone. */
typedef struct job {
  ade_hess_plan *P;
  ade_tape *t;
  double x[5], *val;
  int st;
} job;

static void *job_run(void *v) {
  job *j = v;
  ade_sparse *H = NULL;
  ade_hess_options o = {j->x, NULL, NULL};
  j->st = ade_hess_plan_pattern(j->P, &H);
  for (int r = 0; r < 20 && !j->st; r++) j->st = ade_hess_plan_hessian(j->P, j->t, &o, H, NULL);
  if (!j->st) memcpy(j->val, H->val, H->nnz * sizeof *H->val);
  ade_sparse_free(H);
  return NULL;
}

START_TEST(shared_plan) {
  randprog p = rp_make(77, 5, 1, 80);
  double x[5] = {0.3, -0.7, 1.1, 0.5, -0.2};
  ade_tape *t = rp_record(&p, x, NULL);
  ade_hess_plan *P;
  ck_assert_int_eq(ade_hess_plan_create(&P, t, ADE_HESS_STAR, NULL), ADE_OK);
  ade_sparse *H;
  ck_assert_int_eq(ade_hess_plan_pattern(P, &H), ADE_OK);
  job J[4];
  pthread_t th[4];
  for (int k = 0; k < 4; k++) {
    J[k] = (job){P, t, {0}, malloc(sizeof(double) * (H->nnz + 1)), -1};
    for (int i = 0; i < 5; i++) J[k].x[i] = x[i] + 0.1 * (k + 1) * (i % 2 ? 1 : -1);
  }
  for (int k = 0; k < 4; k++) ck_assert_int_eq(pthread_create(&th[k], NULL, job_run, &J[k]), 0);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(pthread_join(th[k], NULL), 0);
  for (int k = 0; k < 4; k++) {
    ck_assert_int_ge(J[k].st, 0);
    ade_hess_options o = {J[k].x, NULL, NULL};
    ck_assert_int_ge(ade_hess_plan_hessian(P, t, &o, H, NULL), 0);
    ck_assert(H->nnz == 0 || memcmp(H->val, J[k].val, H->nnz * sizeof *H->val) == 0);
    free(J[k].val);
  }
  ade_sparse_free(H);
  ade_hess_plan_free(P);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hesscolor");
  TCase *tc = tcase_create("coloring");
  tcase_add_loop_test(tc, random_graphs, 0, 300);
  tcase_add_test(tc, known_counts);
  tcase_add_loop_test(tc, struct_masks, 0, ADE_OP_COUNT);
  suite_add_tcase(s, tc);
  tc = tcase_create("plans");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, random_plans, 0, 400);
  tcase_add_test(tc, auto_choice);
  tcase_add_test(tc, shared_plan);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
