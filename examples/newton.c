/* newton.c: Newton's method with Jacobians from a Jacobian loop: record once, plan once, record again when a branch flips. */

/* The problem: the 1-D Bratu equation with a clipped source,
 *   u'' + lam g(u) = 0 on (0, 1), u(0) = u(1) = 0,
 *   g(u) = exp(u) for u < c, exp(c) (1 + u - c) above (C^1 at c),
 * by central differences at n interior points. The residual is written
 * once with the ADE_ macros: plain double code for double operands,
 * recording code for ade_double ones. Newton starts from u = 0, where every
 * comparison u_i < c holds; as the iterates grow past c in the middle of
 * the interval, the recorded comparisons no longer match and the loop's
 * recorder records the residual again at the new iterate. The Jacobian's
 * pattern (tridiagonal) is the same on every path, so the solver's
 * matrix never changes shape; the plan of each structure is built once.
 *
 * Usage: newton [n]   (interior points, default 20) */
#include <adelim.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CLIP 0.5

/* F(u), for real = double or ade_double. */
#define RESIDUAL(real, name)                                                         \
  static void name(int n, double lam, const real *u, real *F) {                                 \
    double h2 = 1.0 / ((n + 1.0) * (n + 1.0)), ec = exp(CLIP);                       \
    for (int i = 0; i < n; i++) {                                                   \
      real lap = ADE_MUL(-2.0, u[i]);                                               \
      if (i > 0) lap = ADE_ADD(lap, u[i - 1]);                                      \
      if (i < n - 1) lap = ADE_ADD(lap, u[i + 1]);                                  \
      real g = ADE_LT(u[i], CLIP) ? ADE_EXP(u[i]) : ADE_MUL(ec, ADE_ADD(1.0 - CLIP, u[i])); \
      F[i] = ADE_ADD(ADE_DIV(lap, h2), ADE_MUL(lam, g));                            \
    }                                                                               \
  }
RESIDUAL(double, residual_d)
RESIDUAL(ade_double, residual_a)

static void check(int st, const char *what) {
  if (st >= 0) return;
  fprintf(stderr, "newton: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  exit(1);
}

/* The recorder: F recorded at x onto a new tape. */
typedef struct problem {
  int n;
  double lam; /* a constant on the tape: a new lam needs a new tape, not a new plan */
  int tapes;  /* recorded so far */
} problem;

static int record(void *ud, const double *x, ade_tape **t) {
  problem *p = ud;
  ade_double *u = malloc(sizeof *u * (size_t)p->n), *F = malloc(sizeof *F * (size_t)p->n);
  int st = ade_tape_create(t, NULL);
  if (st >= 0) st = ade_trace_on(*t);
  if (st >= 0) {
    for (int i = 0; i < p->n; i++) u[i] = ade_indep(x[i]);
    residual_a(p->n, p->lam, u, F);
    for (int i = 0; i < p->n; i++) ade_dep(F[i]);
    st = ade_trace_off();
  }
  if (st < 0) ade_tape_free(*t), *t = NULL;
  p->tapes++;
  free(u);
  free(F);
  return st;
}

/* Solve A d = b (A dense n x n, row-major; overwritten) by Gaussian
 * elimination with partial pivoting; d overwrites b. */
static void solve(int n, double *A, double *b) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
    for (int j = 0; j < n; j++) {
      double t = A[k * n + j];
      A[k * n + j] = A[p * n + j], A[p * n + j] = t;
    }
    double t = b[k];
    b[k] = b[p], b[p] = t;
    for (int i = k + 1; i < n; i++) {
      double f = A[i * n + k] / A[k * n + k];
      for (int j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++) b[k] -= A[k * n + j] * b[j];
    b[k] /= A[k * n + k];
  }
}

static double norm(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(v[i]));
  return s;
}

/* Newton from u until |F| < 1e-9: the number of iterations (50: failed). */
static int newton(problem *p, ade_jacobian_loop *L, double *u, double *F, double *A) {
  int n = p->n, it;
  const ade_sparse *J;
  for (it = 0; it < 50; it++) {
    residual_d(n, p->lam, u, F);
    double r = norm(n, F);
    int above = 0;
    for (int i = 0; i < n; i++) above += u[i] >= CLIP;
    printf("iteration %d: %d of %d points above the clip, |F| = %.3e (varies with libm)\n", it, above, n, r);
    if (r < 1e-9) break;
    int st = ade_jacobian_loop_eval(L, u, &J); /* records again if a branch flipped */
    check(st, "ade_jacobian_loop_eval");
    if (st == ADE_WPATTERN) printf("  the pattern grew to %zu nonzeros\n", J->nnz);
    check(ade_sparse_to_dense(J, A), "ade_sparse_to_dense");
    for (int i = 0; i < n; i++) F[i] = -F[i];
    solve(n, A, F);
    for (int i = 0; i < n; i++) u[i] += F[i];
  }
  printf("converged: %s after %d iterations; max u = %.6f\n", it < 50 ? "yes" : "no", it, norm(n, u));
  return it;
}

static void report(const problem *p, ade_jacobian_loop *L, ade_plan_cache *cache) {
  ade_jacobian_loop_stats ls;
  ade_plan_cache_stats cs;
  ade_jacobian_loop_report(L, &ls);
  ade_plan_cache_report(cache, &cs);
  printf("Jacobians: %llu, by %s (%llu fma each); pattern still %zu nonzeros\n", (unsigned long long)ls.evals,
         ade_elim_method_name(ls.method), (unsigned long long)ls.fma, ade_jacobian_loop_matrix(L)->nnz);
  printf("tapes recorded: %d; plans built: %llu (one per structure), cache hits %llu\n", p->tapes,
         (unsigned long long)ls.plans_built, (unsigned long long)cs.hits);
}

int main(int argc, char **argv) {
  problem p = {argc > 1 ? atoi(argv[1]) : 20, 3.0, 0};
  if (p.n < 3 || p.n > 2000 || argc > 2) {
    fprintf(stderr, "usage: newton [n]  (3 <= n <= 2000)\n");
    return 2;
  }
  int n = p.n, ok;
  double *u = calloc((size_t)n, sizeof *u), *F = malloc(sizeof *F * (size_t)n);
  double *A = malloc(sizeof *A * (size_t)n * (size_t)n);
  ade_tape *t0 = NULL, *t1 = NULL;
  ade_plan_cache *cache = NULL;
  ade_jacobian_loop *L = NULL;
  printf("u'' + lam g(u) = 0, g(u) = exp(u) below u = %g, linear above; n = %d\n", CLIP, n);
  check(record(&p, u, &t0), "recording");
  check(ade_plan_cache_create(&cache, 4), "ade_plan_cache_create");
  check(ade_jacobian_loop_create(&L, t0, ADE_ELIM_AUTO, cache), "ade_jacobian_loop_create");
  ade_jacobian_loop_set_recorder(L, record, &p);
  printf("pattern: %zu x %zu, %zu nonzeros\n", ade_jacobian_loop_matrix(L)->m, ade_jacobian_loop_matrix(L)->n,
         ade_jacobian_loop_matrix(L)->nnz);
  printf("lam = %g from u = 0\n", p.lam);
  ok = newton(&p, L, u, F, A) < 50;
  report(&p, L, cache);
  /* Continuation: lam is a constant on the tape, so record again; the path
   * (which points are above the clip) is the last one, and so is its plan. */
  p.lam = 2.5;
  printf("lam = %g from the last solution\n", p.lam);
  check(record(&p, u, &t1), "recording");
  check(ade_jacobian_loop_retape(L, t1), "ade_jacobian_loop_retape");
  ok = ok && newton(&p, L, u, F, A) < 50;
  report(&p, L, cache);
  ade_jacobian_loop_free(L);
  ade_plan_cache_free(cache);
  ade_tape_free(t0);
  ade_tape_free(t1);
  free(u);
  free(F);
  free(A);
  return ok ? 0 : 1;
}
