/* bench_ipopt.c: Ipopt at full size on the Luksan-Vlcek problem of examples/ipopt_lv.h: adelim's derivatives against hand-written ones, L-BFGS and Ipopt's finite-difference Jacobian.
 *
 * Usage: bench_ipopt [-n N] [-t TOL] [-f MAXN]   (variables, default 100000;
 * Ipopt's tol, default 1e-10; the FD-Jacobian row only when N <= MAXN,
 * default 20000: Ipopt 3.11 differences one variable at a time, n
 * evaluations of c per Jacobian)
 *
 * Rows (doc/benchmarks.md, "Ipopt"), each one IpoptSolve from the same start:
 *   adelim exact        gradient, constraint Jacobian and Lagrangian Hessian
 *                       from adelim (a Jacobian loop and a Hessian loop on
 *                       one tape of (f, c))
 *   hand-written exact  the same three written out by hand (below): what a
 *                       derivative call costs at best
 *   adelim L-BFGS       hessian_approximation limited-memory, first
 *                       derivatives from adelim
 *   FD-Jacobian L-BFGS  limited-memory and jacobian_approximation
 *                       finite-difference-values: Ipopt's own derivative
 *                       option (the gradient stays adelim's: Ipopt 3.11 has
 *                       no finite-difference gradient)
 * Columns: iterations, total solve time, time in the derivative callbacks
 * and its share of the solve, time per gradient (which evaluates the
 * Jacobian loop of (f, c) at a new point; the constraint Jacobian at the
 * same point then costs a copy), per Jacobian and per Hessian call, final
 * objective and constraint violation. All times are CPU seconds of the
 * process (all its threads). The setup (recording, Jacobian plan,
 * Hessian plan) is timed once. Before the solves, the hand-written
 * derivatives are compared with adelim's at the start point. */
#include "ipopt_lv.h"

/* The Hessian method the loop's plan runs (ADE_HESS_AUTO's choice). */
static int hess_method(const lv_ad *a) {
  ade_hess_loop_stats s;
  ade_hess_loop_report(a->hess, &s);
  return s.method;
}

/* Hand-written derivatives. With E = exp(a - b), for c_i(a = x_i,
 * b = x_{i+1}, d = x_{i+2}): dc/da = -(1 + a) E, dc/db = 9 b^2 + sin 2b + 4
 * + a E, dc/dd = 2 - sin 2d; d2c/da2 = -(2 + a) E, d2c/dadb = (1 + a) E,
 * d2c/db2 = 18 b + 2 cos 2b - a E, d2c/dd2 = -2 cos 2d, d2c/dbdd = 0 (kept
 * as an entry, since adelim's structural pattern has it). For f's term
 * t(a = x_i, b = x_{i+1}) = 100 (a^2 - b)^2 + (a - 1)^2: dt/da = 400 a (a^2
 * - b) + 2 (a - 1), dt/db = -200 (a^2 - b), d2t/da2 = 1200 a^2 - 400 b + 2,
 * d2t/dadb = -400 a, d2t/db2 = 200. Patterns: row i of the Jacobian holds
 * columns i, i+1, i+2; the Hessian's lower triangle the diagonal and the
 * first subdiagonal, entry 2i - 1 of the triplets being (i, i-1), entry 2i
 * being (i, i). */
static Bool hw_grad(Index n, Number *x, Bool new_x, Number *g, UserDataPtr ud) {
  lv_ad *a = ud;
  double t0 = lv_now();
  (void)new_x;
  memset(g, 0, sizeof *g * (size_t)n);
  for (int i = 0; i < n - 1; i++) {
    double p = x[i] * x[i] - x[i + 1];
    g[i] += 400 * x[i] * p + 2 * (x[i] - 1);
    g[i + 1] += -200 * p;
  }
  a->calls[LV_GRAD]++, a->seconds[LV_GRAD] += lv_now() - t0;
  return TRUE;
}

static Bool hw_jac(Index n, Number *x, Bool new_x, Index m, Index nele, Index *row, Index *col, Number *val,
                   UserDataPtr ud) {
  lv_ad *a = ud;
  (void)n, (void)new_x, (void)nele;
  if (!val) {
    for (int i = 0; i < m; i++)
      for (int k = 0; k < 3; k++) row[3 * i + k] = i, col[3 * i + k] = i + k;
    return TRUE;
  }
  double t0 = lv_now();
  for (int i = 0; i < m; i++) {
    double A = x[i], b = x[i + 1], d = x[i + 2], E = exp(A - b);
    val[3 * i] = -(1 + A) * E;
    val[3 * i + 1] = 9 * b * b + sin(2 * b) + 4 + A * E;
    val[3 * i + 2] = 2 - sin(2 * d);
  }
  a->calls[LV_JAC]++, a->seconds[LV_JAC] += lv_now() - t0;
  return TRUE;
}

static Bool hw_hess(Index n, Number *x, Bool new_x, Number sigma, Index m, Number *lambda, Bool new_lambda,
                    Index nele, Index *row, Index *col, Number *val, UserDataPtr ud) {
  lv_ad *a = ud;
  (void)new_x, (void)new_lambda, (void)nele;
  if (!val) {
    for (int i = 0; i < n; i++) {
      if (i > 0) row[2 * i - 1] = i, col[2 * i - 1] = i - 1;
      row[2 * i] = i, col[2 * i] = i;
    }
    return TRUE;
  }
  double t0 = lv_now();
  memset(val, 0, sizeof *val * (size_t)(2 * n - 1));
  for (int i = 0; i < n - 1; i++) {
    val[2 * i] += sigma * (1200 * x[i] * x[i] - 400 * x[i + 1] + 2);
    val[2 * i + 1] += sigma * (-400 * x[i]);
    val[2 * i + 2] += sigma * 200;
  }
  for (int i = 0; i < m; i++) {
    double A = x[i], b = x[i + 1], d = x[i + 2], E = exp(A - b), l = lambda[i];
    val[2 * i] += l * (-(2 + A) * E);
    val[2 * i + 1] += l * ((1 + A) * E);
    val[2 * i + 2] += l * (18 * b + 2 * cos(2 * b) - A * E);
    val[2 * i + 4] += l * (-2 * cos(2 * d));
  }
  a->calls[LV_HESS]++, a->seconds[LV_HESS] += lv_now() - t0;
  return TRUE;
}

#ifdef BENCH_HAVE_COLPACK
/* ADOL-C's callbacks (bench_ipopt_adolc.cpp): gradient() on a tape of f,
 * sparse_jac on a tape of c, sparse_hess on a tape of sigma f + lambda^T c
 * with (sigma, lambda) as parameters; patterns and colorings made once in
 * bia_setup (not timed here), then repeat = 1. */
int bia_setup(int n, const double *x);
void bia_nnz(int *jnnz, int *hnnz);
void bia_jac_pattern(int *row, int *col);
void bia_hess_pattern(int *row, int *col);
int bia_grad(const double *x, double *g);
int bia_jac(const double *x, double *val);
int bia_hess(const double *x, double sigma, const double *lambda, double *val);
void bia_free(void);

static Bool adolc_grad(Index n, Number *x, Bool new_x, Number *g, UserDataPtr ud) {
  lv_ad *a = ud;
  double t0 = lv_now();
  (void)n, (void)new_x;
  if (bia_grad(x, g) < 0) return FALSE;
  a->calls[LV_GRAD]++, a->seconds[LV_GRAD] += lv_now() - t0;
  return TRUE;
}

static Bool adolc_jac(Index n, Number *x, Bool new_x, Index m, Index nele, Index *row, Index *col, Number *val,
                      UserDataPtr ud) {
  lv_ad *a = ud;
  (void)n, (void)new_x, (void)m, (void)nele;
  if (!val) return bia_jac_pattern(row, col), TRUE;
  double t0 = lv_now();
  if (bia_jac(x, val) < 0) return FALSE;
  a->calls[LV_JAC]++, a->seconds[LV_JAC] += lv_now() - t0;
  return TRUE;
}

static Bool adolc_hess(Index n, Number *x, Bool new_x, Number sigma, Index m, Number *lambda, Bool new_lambda,
                       Index nele, Index *row, Index *col, Number *val, UserDataPtr ud) {
  lv_ad *a = ud;
  (void)n, (void)new_x, (void)m, (void)new_lambda, (void)nele;
  if (!val) return bia_hess_pattern(row, col), TRUE;
  double t0 = lv_now();
  if (bia_hess(x, sigma, lambda, val) < 0) return FALSE;
  a->calls[LV_HESS]++, a->seconds[LV_HESS] += lv_now() - t0;
  return TRUE;
}

/* Largest difference between ADOL-C's and the hand-written callbacks at x,
 * relative to the largest entry; HUGE_VAL if ADOL-C's patterns are not the
 * hand-written ones. Entry (r, c) of the Jacobian is hand-written entry
 * 3r + c - r; ADOL-C's Hessian entry (r, c), r <= c, is (c, r) of the lower
 * triangle: hand-written entry 2c - (c - r). */
static double compare_adolc(lv_ad *a, double *x) {
  int n = a->n, m = a->m, nj, nh;
  bia_nnz(&nj, &nh);
  if (nj != 3 * m || nh != 2 * n - 1) return HUGE_VAL;
  Index *r = malloc(sizeof *r * (size_t)(2 * n + nj)), *c = malloc(sizeof *c * (size_t)(2 * n + nj));
  double *v1 = malloc(sizeof *v1 * (size_t)(2 * n + nj)), *v2 = malloc(sizeof *v2 * (size_t)(2 * n + nj));
  double *l = malloc(sizeof *l * (size_t)m), worst = 0, big = 0;
  for (int i = 0; i < m; i++) l[i] = 0.3 + 0.01 * (i % 13);
  adolc_grad(n, x, TRUE, v1, a), hw_grad(n, x, TRUE, v2, a);
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(v1[i] - v2[i])), big = fmax(big, fabs(v2[i]));
  adolc_jac(n, x, TRUE, m, nj, r, c, NULL, a), adolc_jac(n, x, TRUE, m, nj, r, c, v1, a);
  hw_jac(n, x, TRUE, m, nj, r + nj, c + nj, v2, a);
  for (int k = 0; k < nj; k++) {
    if (c[k] < r[k] || c[k] > r[k] + 2) return HUGE_VAL;
    double h = v2[3 * r[k] + c[k] - r[k]];
    worst = fmax(worst, fabs(v1[k] - h)), big = fmax(big, fabs(h));
  }
  adolc_hess(n, x, TRUE, 1.7, m, l, TRUE, nh, r, c, NULL, a), adolc_hess(n, x, TRUE, 1.7, m, l, TRUE, nh, r, c, v1, a);
  hw_hess(n, x, TRUE, 1.7, m, l, TRUE, nh, r + nh, c + nh, v2, a);
  for (int k = 0; k < nh; k++) {
    if (c[k] < r[k] || c[k] > r[k] + 1) return HUGE_VAL;
    double h = v2[2 * c[k] - (c[k] - r[k])];
    worst = fmax(worst, fabs(v1[k] - h)), big = fmax(big, fabs(h));
  }
  free(r), free(c), free(v1), free(v2), free(l);
  return worst / big;
}
#endif

/* Largest difference between the hand-written and adelim's callbacks at x
 * (relative to the largest entry), after sorting both into dense rows by
 * the triplets: both patterns are the same here, so entry by entry. */
static double compare(lv_ad *a, double *x) {
  int n = a->n, m = a->m;
  Index nj = lv_nele_jac(a), nh = (Index)a->H->nnz;
  size_t most = (size_t)(nj > nh ? nj : nh) > (size_t)n ? (size_t)(nj > nh ? nj : nh) : (size_t)n;
  Index *r1 = malloc(sizeof *r1 * most), *c1 = malloc(sizeof *c1 * most);
  Index *r2 = malloc(sizeof *r2 * most), *c2 = malloc(sizeof *c2 * most);
  double *v1 = malloc(sizeof *v1 * most), *v2 = malloc(sizeof *v2 * most), *l = malloc(sizeof *l * (size_t)m);
  double worst = 0, big = 0;
  for (int i = 0; i < m; i++) l[i] = 0.3 + 0.01 * (i % 13);
  lv_eval_grad_f(n, x, TRUE, v1, a), hw_grad(n, x, TRUE, v2, a);
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(v1[i] - v2[i])), big = fmax(big, fabs(v2[i]));
  /* Jacobian: adelim's triplets are CSR (row, col ascending), as are the hand-written ones */
  lv_eval_jac_g(n, x, TRUE, m, nj, r1, c1, NULL, a), lv_eval_jac_g(n, x, TRUE, m, nj, r1, c1, v1, a);
  hw_jac(n, x, TRUE, m, nj, r2, c2, NULL, a), hw_jac(n, x, TRUE, m, nj, r2, c2, v2, a);
  for (Index k = 0; k < nj; k++) {
    if (r1[k] != r2[k] || c1[k] != c2[k]) return HUGE_VAL;
    worst = fmax(worst, fabs(v1[k] - v2[k])), big = fmax(big, fabs(v2[k]));
  }
  lv_eval_h(n, x, TRUE, 1.7, m, l, TRUE, nh, r1, c1, NULL, a), lv_eval_h(n, x, TRUE, 1.7, m, l, TRUE, nh, r1, c1, v1, a);
  hw_hess(n, x, TRUE, 1.7, m, l, TRUE, nh, r2, c2, NULL, a), hw_hess(n, x, TRUE, 1.7, m, l, TRUE, nh, r2, c2, v2, a);
  for (Index k = 0; k < nh; k++) {
    if (r1[k] != r2[k] || c1[k] != c2[k]) return HUGE_VAL;
    worst = fmax(worst, fabs(v1[k] - v2[k])), big = fmax(big, fabs(v2[k]));
  }
  free(r1), free(c1), free(r2), free(c2), free(v1), free(v2), free(l);
  return worst / big;
}

static void row(const char *name, const lv_ad *a, const lv_result *r) {
  double cb = a->seconds[LV_GRAD] + a->seconds[LV_JAC] + a->seconds[LV_HESS];
  printf("%-20s %6s %5d %9.3f %9.3f %5.1f%%", name, r->status == Solve_Succeeded ? "solved" : "FAILED", r->iters,
         r->seconds, cb, 100 * cb / r->seconds);
  for (int k = 0; k < LV_NCB; k++)
    if (a->calls[k]) printf(" %9.3f", 1e3 * a->seconds[k] / (double)a->calls[k]);
    else printf(" %9s", "-");
  printf("  %.12e %.1e\n", r->obj, r->viol);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int n = 100000, fdmax = 20000;
  double tol = 1e-10;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) n = atoi(argv[++i]);
    else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) tol = atof(argv[++i]);
    else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) fdmax = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_ipopt [-n N] [-t TOL] [-f MAXN]\n");
      return 2;
    }
  }
  if (n < 3) return fprintf(stderr, "bench_ipopt: n >= 3\n"), 2;
  double *x = malloc(sizeof *x * (size_t)n);
  lv_ad a;
  lv_result r;
  lv_start(n, x);
  int st = lv_ad_init(&a, n, x);
  if (st < 0) {
    fprintf(stderr, "bench_ipopt: setup: %s: %s\n", ade_strerror(st), ade_errmsg());
    lv_ad_free(&a), free(x);
    return 1;
  }
  if (lv_nele_jac(&a) != 3 * (n - 2) || a.H->nnz != (size_t)(2 * n - 1))
    return fprintf(stderr, "bench_ipopt: adelim's patterns are not the hand-written ones\n"), 1;
  ade_stats s;
  ade_jacobian_loop_stats ls;
  ade_tape_stats(a.tape, &s);
  ade_jacobian_loop_report(a.jac, &ls);
  printf("Luksan-Vlcek 5.1, n = %d, m = %d, tol = %g; tape A %llu records; setup (record, Jacobian plan by %s, "
         "Hessian plan by %s) %.3f s\n",
         n, n - 2, tol, (unsigned long long)s.records, ade_elim_method_name(ls.method),
         ade_hess_method_name(hess_method(&a)), a.setup);
  printf("hand-written vs adelim derivatives at the start: largest difference %.1e of the largest entry\n",
         compare(&a, x));
  printf("%-20s %6s %5s %9s %9s %6s %9s %9s %9s  %-18s %s\n", "run", "status", "iter", "solve s", "deriv s",
         "share", "grad ms", "jac ms", "hess ms", "f", "max|c|");
  lv_solve(&a, LV_EXACT, tol, 0, x, &r);
  row("adelim exact", &a, &r);
  a.grad_cb = hw_grad, a.jac_cb = hw_jac, a.hess_cb = hw_hess;
  lv_solve(&a, LV_EXACT, tol, 0, x, &r);
  row("hand-written exact", &a, &r);
#ifdef BENCH_HAVE_COLPACK
  double t0 = lv_now();
  lv_start(n, x);
  if (bia_setup(n, x) < 0) return fprintf(stderr, "bench_ipopt: ADOL-C's sparse drivers failed\n"), 1;
  t0 = lv_now() - t0;
  double d = compare_adolc(&a, x);
  printf("%-20s (setup: 3 tapes, sparse_jac and sparse_hess patterns and colorings %.3f s; "
         "vs hand-written at the start: %.1e of the largest entry)\n", "ADOL-C exact", t0, d);
  if (d > 1e-12) return fprintf(stderr, "bench_ipopt: ADOL-C's derivatives or patterns differ\n"), 1;
  a.grad_cb = adolc_grad, a.jac_cb = adolc_jac, a.hess_cb = adolc_hess;
  lv_solve(&a, LV_EXACT, tol, 0, x, &r);
  row("ADOL-C exact", &a, &r);
  bia_free();
#endif
  a.grad_cb = lv_eval_grad_f, a.jac_cb = lv_eval_jac_g, a.hess_cb = lv_eval_h;
  lv_solve(&a, LV_LBFGS, tol, 0, x, &r);
  row("adelim L-BFGS", &a, &r);
  if (n <= fdmax) {
    lv_solve(&a, LV_LBFGS_FDJAC, tol, 0, x, &r);
    row("FD-Jacobian L-BFGS", &a, &r);
  }
  lv_ad_free(&a);
  free(x);
  return 0;
}
