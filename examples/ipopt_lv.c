/* ipopt_lv.c: Ipopt on a Luksan-Vlcek problem with adelim's gradient, Jacobian and Lagrangian Hessian, against Ipopt's L-BFGS. */

/* The problem, the tape and the callbacks are in ipopt_lv.h. This program
 * solves the problem twice from the same start: with the exact Hessian of
 * the Lagrangian from adelim (Newton steps), and with Ipopt's limited-memory
 * quasi-Newton approximation (hessian_approximation limited-memory), which
 * needs first derivatives only, and prints iterations, time, the final
 * objective and the constraint violation of both.
 *
 * With --check it verifies instead of only reporting, and exits 1 on a
 * failure: both runs succeed, reach the same objective to 1e-8 relative
 * with the constraints satisfied, the exact Hessian takes fewer
 * iterations, and each derivative callback (gradient, Jacobian, Hessian)
 * agrees with central finite differences of the plain double functions at
 * three iterates of the exact run (its first, third and last Hessian
 * evaluation), pattern entries and entries outside the pattern alike.
 *
 * Usage: ipopt_lv [--check] [n]   (variables, 3 <= n <= 10^6; default 1000) */
#include "ipopt_lv.h"

#include <float.h>

static int failures;

static void verdict(int ok, const char *fmt, double a, double b) {
  printf("%s: ", ok ? "ok" : "FAIL");
  printf(fmt, a, b);
  printf("\n");
  failures += !ok;
}

/* The iterates to check the callbacks at: x, sigma, lambda of Hessian
 * evaluations 1 and 3 and of the last one. */
#define NKEEP 3
typedef struct keep {
  int n, m, calls, kept[NKEEP];
  double *x[NKEEP], sigma[NKEEP], *lambda[NKEEP];
} keep;

static void keep_point(void *ud, const double *x, double sigma, const double *lambda) {
  keep *k = ud;
  int slot = ++k->calls == 1 ? 0 : k->calls == 3 ? 1 : 2;
  memcpy(k->x[slot], x, sizeof *x * (size_t)k->n);
  memcpy(k->lambda[slot], lambda, sizeof *lambda * (size_t)k->m);
  k->sigma[slot] = sigma;
  k->kept[slot] = k->calls;
}

/* L(x) = sigma f(x) + sum_i lambda_i c_i(x) in plain double code. */
static double lagrangian(int n, const double *x, double sigma, const double *lambda, double *c) {
  double L = sigma * lv_f(n, x);
  lv_c(n, x, c);
  for (int i = 0; i < n - 2; i++) L += lambda[i] * c[i];
  return L;
}

/* The gradient callback against (f(x + h e_j) - f(x - h e_j)) / 2h: the
 * truncation error is O(h^2 f'''), the rounding error about eps |f| / h. */
static double check_gradient(lv_ad *a, double *x) {
  int n = a->n;
  double *g = malloc(sizeof *g * (size_t)n), worst = 0, f = fabs(lv_f(n, x));
  if (!lv_eval_grad_f(n, x, TRUE, g, a)) return HUGE_VAL;
  for (int j = 0; j < n; j++) {
    double xj = x[j], h = 1e-6 * fmax(1, fabs(xj));
    x[j] = xj + h;
    double fp = lv_f(n, x);
    x[j] = xj - h;
    double fm = lv_f(n, x);
    x[j] = xj;
    double fd = (fp - fm) / (2 * h), tol = 1e-6 * fabs(g[j]) + 10 * DBL_EPSILON * (1 + f) / h;
    worst = fmax(worst, fabs(fd - g[j]) / tol);
  }
  free(g);
  return worst; /* <= 1: within tolerance */
}

/* The Jacobian callback (structure and values) against central differences
 * of c, column by column, over every entry of the dense m x n matrix. */
static double check_jacobian(lv_ad *a, double *x) {
  int n = a->n, m = a->m;
  Index nele = lv_nele_jac(a), *row = malloc(sizeof *row * (size_t)nele), *col = malloc(sizeof *col * (size_t)nele);
  double *val = malloc(sizeof *val * (size_t)nele), *J = calloc((size_t)m * (size_t)n, sizeof *J);
  double *cp = malloc(sizeof *cp * (size_t)m), *cm = malloc(sizeof *cm * (size_t)m), worst = 0;
  char *seen = calloc((size_t)m * (size_t)n, 1);
  if (!lv_eval_jac_g(n, x, TRUE, m, nele, row, col, NULL, a) || !lv_eval_jac_g(n, x, TRUE, m, nele, row, col, val, a))
    worst = HUGE_VAL;
  for (Index k = 0; k < nele && worst < HUGE_VAL; k++) {
    size_t at = (size_t)row[k] * (size_t)n + (size_t)col[k];
    if (row[k] < 0 || row[k] >= m || col[k] < 0 || col[k] >= n || seen[at]) worst = HUGE_VAL; /* bad triplet */
    else seen[at] = 1, J[at] = val[k];
  }
  for (int j = 0; j < n && worst < HUGE_VAL; j++) {
    double xj = x[j], h = 1e-6 * fmax(1, fabs(xj));
    x[j] = xj + h, lv_c(n, x, cp);
    x[j] = xj - h, lv_c(n, x, cm);
    x[j] = xj;
    for (int i = 0; i < m; i++) {
      double fd = (cp[i] - cm[i]) / (2 * h), ad = J[(size_t)i * (size_t)n + (size_t)j];
      double tol = 1e-6 * fabs(ad) + 10 * DBL_EPSILON * (1 + fabs(cp[i])) / h;
      worst = fmax(worst, fabs(fd - ad) / tol);
    }
  }
  free(row), free(col), free(val), free(J), free(cp), free(cm), free(seen);
  return worst;
}

/* The Hessian callback against second differences of the Lagrangian:
 * every lower-triangle entry within 4 of the diagonal (the pattern's band
 * and beyond it) by (L(x+h ei+h ej) - L(x+h ei-h ej) - L(x-h ei+h ej)
 * + L(x-h ei-h ej)) / 4h^2, and the whole matrix through u^T H v for
 * random u, v by the same formula along u and v. Truncation O(h^2 L''''),
 * rounding about eps |L|_1 / h^2, |L|_1 = |sigma f| + sum |lambda_i c_i|
 * with c_i's terms' magnitudes. */
static double lag_along(lv_ad *a, double *x, const double *u, double hu, const double *v, double hv,
                        double sigma, const double *lambda, double *c) {
  int n = a->n;
  double *y = malloc(sizeof *y * (size_t)n), L;
  for (int i = 0; i < n; i++) y[i] = x[i] + hu * u[i] + hv * v[i];
  L = lagrangian(n, y, sigma, lambda, c);
  free(y);
  return L;
}

static double second_difference(lv_ad *a, double *x, const double *u, const double *v, double h, double sigma,
                                const double *lambda, double *c) {
  return (lag_along(a, x, u, h, v, h, sigma, lambda, c) - lag_along(a, x, u, h, v, -h, sigma, lambda, c) -
          lag_along(a, x, u, -h, v, h, sigma, lambda, c) + lag_along(a, x, u, -h, v, -h, sigma, lambda, c)) /
         (4 * h * h);
}

static double check_hessian(lv_ad *a, double *x, double sigma, const double *lambda) {
  int n = a->n, m = a->m;
  Index nele = (Index)a->H->nnz, *row = malloc(sizeof *row * (size_t)nele), *col = malloc(sizeof *col * (size_t)nele);
  double *val = malloc(sizeof *val * (size_t)nele), *H = calloc((size_t)n * (size_t)n, sizeof *H);
  double *c = malloc(sizeof *c * (size_t)m), *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  double worst = 0, h = 1e-4, scale = fabs(sigma * lv_f(n, x));
  if (!lv_eval_h(n, x, TRUE, sigma, m, (double *)lambda, TRUE, nele, row, col, NULL, a) ||
      !lv_eval_h(n, x, TRUE, sigma, m, (double *)lambda, TRUE, nele, row, col, val, a))
    worst = HUGE_VAL;
  for (Index k = 0; k < nele && worst < HUGE_VAL; k++) {
    size_t at = (size_t)row[k] * (size_t)n + (size_t)col[k];
    if (row[k] < col[k] || col[k] < 0 || row[k] >= n || H[at] != 0) worst = HUGE_VAL; /* not lower, or twice */
    else H[at] = val[k] != 0 ? val[k] : DBL_MIN;  /* DBL_MIN marks a stored zero */
  }
  for (int i = 0; i < m; i++) {
    double xb = fabs(x[i + 1]), xd = fabs(x[i + 2]);
    scale += fabs(lambda[i]) * (3 * xb * xb * xb + 2 * xd + 5 + 1 + 4 * xb + fabs(x[i]) * exp(x[i] - x[i + 1]) + 3);
  }
  double tol0 = 10 * DBL_EPSILON * (1 + scale) / (h * h);
  for (int i = 0; i < n && worst < HUGE_VAL; i++)
    for (int j = i < 4 ? 0 : i - 4; j <= i; j++) {
      u[i] = 1, v[j] = 1;
      double fd = second_difference(a, x, u, v, h, sigma, lambda, c), ad = H[(size_t)i * (size_t)n + (size_t)j];
      u[i] = 0, v[j] = 0;
      worst = fmax(worst, fabs(fd - ad) / (tol0 + 1e-6 * fabs(ad)));
    }
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (int trial = 0; trial < 3 && worst < HUGE_VAL; trial++) {
    for (int i = 0; i < n; i++) {
      s = s * 6364136223846793005u + 1442695040888963407u, u[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
      s = s * 6364136223846793005u + 1442695040888963407u, v[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    double uHv = 0, mag = 0; /* H is symmetric: the upper entries are the lower ones mirrored */
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++) {
        double e = H[(size_t)i * (size_t)n + (size_t)j];
        if (e == 0) continue;
        double t = i == j ? u[i] * e * v[i] : (u[i] * v[j] + u[j] * v[i]) * e;
        uHv += t, mag += fabs(t);
      }
    double fd = second_difference(a, x, u, v, h, sigma, lambda, c);
    worst = fmax(worst, fabs(fd - uHv) / (n * tol0 + 1e-6 * mag));
  }
  free(row), free(col), free(val), free(H), free(c), free(u), free(v);
  return worst;
}

static void print_result(const char *name, const lv_result *r) {
  printf("%-36s %-8s %6d iterations  %8.3f s CPU  f = %.12e  max|c| = %.1e (varies with the machine)\n", name,
         r->status == Solve_Succeeded ? "solved" : "FAILED", r->iters, r->seconds, r->obj, r->viol);
}

static void print_callbacks(const lv_ad *a) {
  static const char *const name[LV_NCB] = {"gradient", "Jacobian", "Hessian"};
  for (int k = 0; k < LV_NCB; k++)
    if (a->calls[k])
      printf("  %-8s %5ld calls, %8.1f us CPU each (varies with the machine)\n", name[k], a->calls[k],
             1e6 * a->seconds[k] / (double)a->calls[k]);
}

int main(int argc, char **argv) {
  int check = argc > 1 && strcmp(argv[1], "--check") == 0, n = 1000;
  if (argc > 1 + check) n = atoi(argv[1 + check]);
  if (argc > 2 + check || n < 3 || n > 1000000 || (check && n > 5000)) {
    fprintf(stderr, "usage: ipopt_lv [--check] [n]  (3 <= n <= 10^6; with --check n <= 5000)\n");
    return 2;
  }
  double *x = malloc(sizeof *x * (size_t)n), tol = 1e-10;
  lv_ad a;
  keep k = {n, n - 2, 0, {0}, {0}, {0}, {0}};
  lv_result exact, lbfgs;
  lv_start(n, x);
  int st = lv_ad_init(&a, n, x);
  if (st < 0) {
    fprintf(stderr, "ipopt_lv: setup: %s: %s\n", ade_strerror(st), ade_errmsg());
    lv_ad_free(&a), free(x);
    return 1;
  }
  printf("Luksan-Vlcek problem 5.1: n = %d variables, m = %d equality constraints\n", n, n - 2);
  printf("constraint Jacobian %zu x %zu, %d nonzeros (tape B: c); Lagrangian Hessian %zu nonzeros in the lower "
         "triangle (tape A: f and c, %zu dependents)\n",
         ade_jacobian_loop_matrix(a.jac)->m, ade_jacobian_loop_matrix(a.jac)->n, (int)lv_nele_jac(&a), a.H->nnz,
         ade_tape_num_dep(a.tape));
  for (int i = 0; check && i < NKEEP; i++) {
    k.x[i] = malloc(sizeof *x * (size_t)n), k.lambda[i] = malloc(sizeof *x * (size_t)n);
    a.on_hess = keep_point, a.on_hess_ud = &k;
  }
  lv_solve(&a, LV_EXACT, tol, 0, x, &exact);
  print_result(lv_mode_name[LV_EXACT], &exact);
  print_callbacks(&a);
  a.on_hess = NULL;
  lv_solve(&a, LV_LBFGS, tol, 0, x, &lbfgs);
  print_result(lv_mode_name[LV_LBFGS], &lbfgs);
  if (check) {
    verdict(exact.status == Solve_Succeeded && lbfgs.status == Solve_Succeeded,
            "both runs solved (status %g, %g)", exact.status, lbfgs.status);
    verdict(fabs(exact.obj - lbfgs.obj) <= 1e-8 * fabs(exact.obj), "the same optimum: f %.12e and %.12e",
            exact.obj, lbfgs.obj);
    verdict(exact.viol <= 1e-8 && lbfgs.viol <= 1e-8, "constraints hold: max|c| %.1e and %.1e", exact.viol,
            lbfgs.viol);
    verdict(exact.iters < lbfgs.iters, "fewer iterations with the exact Hessian: %g < %g", exact.iters,
            lbfgs.iters);
    verdict(a.status == 0, "no adelim error or warning in the callbacks: first status %g (allowed: %g)", a.status, 0);
    for (int i = 0; i < NKEEP; i++) {
      if (!k.kept[i]) {
        verdict(0, "iterate %g of %g to check at was not reached", i + 1, NKEEP);
        continue;
      }
      double eg = check_gradient(&a, k.x[i]), ej = check_jacobian(&a, k.x[i]);
      double eh = check_hessian(&a, k.x[i], k.sigma[i], k.lambda[i]);
      verdict(eg <= 1, "gradient at Hessian evaluation %g agrees with finite differences (worst %.2g of the tolerance)", k.kept[i], eg);
      verdict(ej <= 1, "Jacobian at Hessian evaluation %g agrees with finite differences (worst %.2g of the tolerance)", k.kept[i], ej);
      verdict(eh <= 1, "Hessian at Hessian evaluation %g agrees with finite differences (worst %.2g of the tolerance)", k.kept[i], eh);
      /* Ipopt's sigma is 1 here: other weights, so that a mix-up of sigma
       * and lambda, or of lambda's order, cannot hide. */
      for (int j = 0; j < n - 2; j++) k.lambda[i][j] = -0.7 * k.lambda[i][j] + 0.1 * (j % 7 - 3);
      eh = check_hessian(&a, k.x[i], 2.385, k.lambda[i]);
      verdict(eh <= 1, "Hessian at Hessian evaluation %g, other weights, agrees with finite differences (worst %.2g of the tolerance)", k.kept[i], eh);
    }
    for (int i = 0; i < NKEEP; i++) free(k.x[i]), free(k.lambda[i]);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
  }
  lv_ad_free(&a);
  free(x);
  return failures ? 1 : 0;
}
