/* ipopt_lv.h: a Luksan-Vlcek problem for Ipopt, written once with the ADE_ macros, and Ipopt's callbacks fed by adelim. */

/* The problem (Luksan and Vlcek 1999, problem 5.1, "chained Rosenbrock
 * function with trigonometric-exponential constraints"), n >= 3 variables,
 * m = n - 2 equality constraints, no bounds:
 *   min f(x) = sum_{i=0}^{n-2} 100 (x_i^2 - x_{i+1})^2 + (x_i - 1)^2
 *   c_i(x) = 3 x_{i+1}^3 + 2 x_{i+2} - 5 + sin(x_{i+1} - x_{i+2}) sin(x_{i+1} + x_{i+2})
 *            + 4 x_{i+1} - x_i exp(x_i - x_{i+1}) - 3 = 0,  i = 0 .. n-3,
 * from x_i = -0.5. The problem has (at least) two local minima: x = 1
 * with f = 0, and one with f = 6.2324586..., the same for every n tried
 * (100 to 100,000). From -0.5 both the exact-Hessian and the quasi-Newton
 * runs reach the second at those sizes (at tiny n, e.g. 5, L-BFGS finds
 * the first);
 * from the usual start of Ipopt's own test version (-1.2, 1, -1.2, ...)
 * the two methods end in different minima, which would say nothing about
 * the derivatives.
 *
 * adelim's part, per point x:
 *   gradient of f   ade_gradient (one value and one reverse sweep) on
 *                   tape F, which holds f alone (a reverse sweep on tape
 *                   A below with weights (1, 0, .., 0) would also sweep
 *                   c's records: three times the work);
 *   Jacobian of c   a Jacobian loop on tape B, which holds c alone (plan
 *                   once, evaluate at each x); its CSR rows are Ipopt's
 *                   triplets (row, col) as they are. The method is CPR
 *                   forward, whose plan costs time linear in the tape,
 *                   where ADE_ELIM_AUTO's choice costs O(|E| n / 64) time
 *                   and O(V n / 8) bytes (the reachability counts of
 *                   ade__reach_counts: 8 s at n = 4000). Tape B exists
 *                   because a Jacobian loop on tape A would carry the dense
 *                   row of f, and the sum over i in f makes the Jacobian
 *                   pattern's index sets grow along that chain: O(n^2).
 *   Hessian of the Lagrangian sigma f + sum_i lambda_i c_i = the weighted
 *                   Hessian sum_k w_k d2 y_k of tape A with w = (sigma,
 *                   lambda): a Hessian loop (plan and pattern once), whose pattern is
 *                   the lower triangle (col <= row) in CSR, one of the two
 *                   triangles Ipopt accepts as triplets (row, col).
 * Ipopt is told the patterns once (nele_jac, nele_hess) and never again, so
 * they must hold at every point: the problem has no comparisons, so no
 * recorded branch can flip (ADE_WBRANCH is treated as a failed evaluation).
 * doc/user-guide.md, "Using adelim with CVODE, Ipopt and PETSc", says what
 * to do for a problem with branches. */
#ifndef IPOPT_LV_H
#define IPOPT_LV_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <IpStdCInterface.h>
#include <adelim.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lv_problem.h"

LV_PROBLEM(double, lv_f, lv_c)
LV_PROBLEM(ade_double, lv_f_rec, lv_c_rec)

static void lv_start(int n, double *x) {
  for (int i = 0; i < n; i++) x[i] = -0.5;
}

/* CPU seconds of the process (all its threads): on a shared machine CPU
 * time is steadier than wall time. Ipopt here (sequential MUMPS, reference
 * BLAS) runs on the calling thread. */
static double lv_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { LV_GRAD, LV_JAC, LV_HESS, LV_NCB };

/* adelim's state for the callbacks: three tapes, a Jacobian loop, a Hessian loop. On
 * failure lv_ad_init leaves what it made for lv_ad_free. */
typedef struct lv_ad {
  int n, m;
  ade_tape *tape;           /* A: dependents f, c_0 .. c_{m-1} */
  ade_tape *ctape;          /* B: dependents c_0 .. c_{m-1} */
  ade_tape *ftape;          /* F: dependent f */
  ade_jacobian_loop *jac;   /* on B: the m x n constraint Jacobian */
  ade_hess_loop *hess;      /* on A: sum_k w_k d2 y_k */
  const ade_sparse *H;      /* its matrix: pattern (lower triangle, CSR), values */
  double *w;                /* the m+1 weights (sigma, lambda) */
  int iters;                /* Ipopt's last iteration number */
  long calls[LV_NCB];       /* derivative callbacks with values */
  double seconds[LV_NCB];   /* time in them */
  double setup;             /* recording, Jacobian plan, Hessian plan (s) */
  int status;               /* the first adelim error or warning, else 0 */
  /* Called after each Hessian evaluation (may be NULL): the example's
   * --check mode keeps a few iterates to check the callbacks at. */
  void (*on_hess)(void *ud, const double *x, double sigma, const double *lambda);
  void *on_hess_ud;
  /* The derivative callbacks lv_solve hands Ipopt (lv_ad_init: adelim's;
   * bench/bench_ipopt.c puts hand-written ones here for comparison, with
   * the same nele_jac and nele_hess). */
  Eval_Grad_F_CB grad_cb;
  Eval_Jac_G_CB jac_cb;
  Eval_H_CB hess_cb;
} lv_ad;

static int lv_fail(lv_ad *a, int st, const char *what) {
  if (a->status == 0) a->status = st;
  fprintf(stderr, "ipopt_lv: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  return 0; /* Ipopt's FALSE: the evaluation failed */
}

/* What a tape holds: f, c or both (y = (f, c)). */
enum { LV_F = 1, LV_C = 2 };

/* Record what (LV_F and/or LV_C) at x onto a new tape. Its memory limit is
 * raised from the default 256 MiB for large n: the Jacobian plan's c-graph
 * takes about 250 bytes per variable here (a limit of 16 KiB per variable
 * is generous; the plans check their estimates against it). */
static int lv_record(int n, int what, const double *x, ade_tape **t) {
  int m = n - 2, st;
  if (n < 3) return ADE_EINVAL;
  ade_double *xa = malloc(sizeof *xa * (size_t)n), *c = malloc(sizeof *c * (size_t)m);
  if (!xa || !c) {
    free(xa), free(c);
    return ADE_ENOMEM;
  }
  st = ade_tape_create(t, NULL);
  if (st >= 0) st = ade_trace_on(*t);
  if (st >= 0) {
    for (int i = 0; i < n; i++) xa[i] = ade_indep(x[i]);
    if (what & LV_F) ade_dep(lv_f_rec(n, xa));
    if (what & LV_C) lv_c_rec(n, xa, c);
    for (int i = 0; (what & LV_C) && i < m; i++) ade_dep(c[i]);
    st = ade_trace_off();
  }
  if (st < 0) ade_tape_free(*t), *t = NULL;
  else if ((size_t)n * 16384 > (size_t)256 << 20) ade_tape_set_memory_limit(*t, (size_t)n * 16384);
  free(xa);
  free(c);
  return st;
}

static void lv_ad_free(lv_ad *a) {
  ade_jacobian_loop_free(a->jac);
  ade_hess_loop_free(a->hess);
  ade_tape_free(a->tape);
  ade_tape_free(a->ctape);
  ade_tape_free(a->ftape);
  free(a->w);
  memset(a, 0, sizeof *a);
}

static Bool lv_eval_grad_f(Index n, Number *x, Bool new_x, Number *grad, UserDataPtr ud);
static Bool lv_eval_jac_g(Index n, Number *x, Bool new_x, Index m, Index nele, Index *row, Index *col,
                          Number *val, UserDataPtr ud);
static Bool lv_eval_h(Index n, Number *x, Bool new_x, Number sigma, Index m, Number *lambda, Bool new_lambda,
                      Index nele, Index *row, Index *col, Number *val, UserDataPtr ud);

/* Record at x0, plan the Jacobian and the Hessian: once per problem. */
static int lv_ad_init(lv_ad *a, int n, const double *x0) {
  double t0 = lv_now();
  int st;
  memset(a, 0, sizeof *a);
  a->n = n, a->m = n - 2;
  a->w = malloc(sizeof *a->w * (size_t)(a->m + 1));
  if (!a->w) return ADE_ENOMEM;
  a->grad_cb = lv_eval_grad_f, a->jac_cb = lv_eval_jac_g, a->hess_cb = lv_eval_h;
  if ((st = lv_record(n, LV_F | LV_C, x0, &a->tape)) < 0) return st;
  if ((st = lv_record(n, LV_C, x0, &a->ctape)) < 0) return st;
  if ((st = lv_record(n, LV_F, x0, &a->ftape)) < 0) return st;
  if ((st = ade_jacobian_loop_create(&a->jac, a->ctape, ADE_ELIM_CPR_FORWARD, NULL)) < 0) return st;
  if ((st = ade_hess_loop_create(&a->hess, a->tape, ADE_HESS_AUTO, NULL)) < 0) return st;
  a->H = ade_hess_loop_matrix(a->hess);
  a->setup = lv_now() - t0;
  return ADE_OK;
}

/* Ipopt's callbacks (IpStdCInterface.h); user_data is the lv_ad. */
static Bool lv_eval_f(Index n, Number *x, Bool new_x, Number *f, UserDataPtr ud) {
  (void)new_x, (void)ud;
  *f = lv_f(n, x);
  return TRUE;
}

static Bool lv_eval_g(Index n, Number *x, Bool new_x, Index m, Number *g, UserDataPtr ud) {
  (void)new_x, (void)m, (void)ud;
  lv_c(n, x, g);
  return TRUE;
}

static Bool lv_eval_grad_f(Index n, Number *x, Bool new_x, Number *grad, UserDataPtr ud) {
  lv_ad *a = ud;
  double t0 = lv_now();
  (void)n, (void)new_x;
  double f;
  int st = ade_gradient(a->ftape, x, &f, grad);
  if (st != ADE_OK) return lv_fail(a, st, "gradient"); /* ADE_WBRANCH too: see above */
  a->calls[LV_GRAD]++, a->seconds[LV_GRAD] += lv_now() - t0;
  return TRUE;
}

/* The number of constraint Jacobian entries. */
static Index lv_nele_jac(const lv_ad *a) { return (Index)ade_jacobian_loop_matrix(a->jac)->nnz; }

static Bool lv_eval_jac_g(Index n, Number *x, Bool new_x, Index m, Index nele, Index *row, Index *col,
                          Number *val, UserDataPtr ud) {
  lv_ad *a = ud;
  const ade_sparse *J = ade_jacobian_loop_matrix(a->jac);
  (void)n, (void)new_x, (void)m;
  if (nele != lv_nele_jac(a)) return FALSE;
  if (!val) { /* the structure: the CSR's entries as 0-based triplets */
    for (size_t r = 0; r < J->m; r++)
      for (size_t k = J->rowptr[r]; k < J->rowptr[r + 1]; k++) row[k] = (Index)r, col[k] = (Index)J->col[k];
    return TRUE;
  }
  double t0 = lv_now();
  int st = ade_jacobian_loop_eval(a->jac, x, &J);
  if (st != ADE_OK) return lv_fail(a, st, "Jacobian"); /* ADE_WBRANCH too: see above */
  memcpy(val, J->val, sizeof *val * (size_t)nele);
  a->calls[LV_JAC]++, a->seconds[LV_JAC] += lv_now() - t0;
  return TRUE;
}

static Bool lv_eval_h(Index n, Number *x, Bool new_x, Number sigma, Index m, Number *lambda, Bool new_lambda,
                      Index nele, Index *row, Index *col, Number *val, UserDataPtr ud) {
  lv_ad *a = ud;
  const ade_sparse *H = a->H;
  (void)n, (void)new_x, (void)new_lambda;
  if (nele != (Index)H->nnz) return FALSE;
  if (!val) { /* the structure: the lower triangle, row >= col, as triplets */
    for (size_t r = 0; r < H->m; r++)
      for (size_t k = H->rowptr[r]; k < H->rowptr[r + 1]; k++) row[k] = (Index)r, col[k] = (Index)H->col[k];
    return TRUE;
  }
  double t0 = lv_now();
  a->w[0] = sigma;
  memcpy(a->w + 1, lambda, sizeof *lambda * (size_t)m);
  int st = ade_hess_loop_eval(a->hess, x, a->w, &H);
  if (st != ADE_OK) return lv_fail(a, st, "Hessian"); /* ADE_WBRANCH too: see above */
  memcpy(val, H->val, sizeof *val * H->nnz);
  a->calls[LV_HESS]++, a->seconds[LV_HESS] += lv_now() - t0;
  if (a->on_hess) a->on_hess(a->on_hess_ud, x, sigma, lambda);
  return TRUE;
}

static Bool lv_intermediate(Index alg_mod, Index iter, Number obj, Number inf_pr, Number inf_du, Number mu,
                            Number d_norm, Number reg, Number alpha_du, Number alpha_pr, Index ls,
                            UserDataPtr ud) {
  (void)alg_mod, (void)obj, (void)inf_pr, (void)inf_du, (void)mu, (void)d_norm, (void)reg;
  (void)alpha_du, (void)alpha_pr, (void)ls;
  ((lv_ad *)ud)->iters = iter;
  return TRUE;
}

/* How to solve: exact Hessian from adelim, or Ipopt's limited-memory
 * quasi-Newton (L-BFGS) with adelim's gradient and Jacobian, or with
 * Ipopt's finite-difference Jacobian in place of adelim's. */
enum { LV_EXACT, LV_LBFGS, LV_LBFGS_FDJAC };
static const char *const lv_mode_name[] = {"adelim exact Hessian", "L-BFGS, adelim Jacobian",
                                           "L-BFGS, finite-difference Jacobian"};

typedef struct lv_result {
  int status;       /* Ipopt's ApplicationReturnStatus */
  int iters;
  double obj, viol; /* f and max |c_i| at the solution */
  double seconds;   /* IpoptSolve's CPU time */
} lv_result;

/* Solve from the start point into x (n values) by mode, to tolerance tol. */
static int lv_solve(lv_ad *a, int mode, double tol, int print_level, double *x, lv_result *r) {
  int n = a->n, m = a->m;
  double *gl = calloc((size_t)m, sizeof *gl), *gu = calloc((size_t)m, sizeof *gu), *c = NULL;
  double *xl = malloc(sizeof *xl * (size_t)n), *xu = malloc(sizeof *xu * (size_t)n);
  IpoptProblem p = NULL;
  memset(r, 0, sizeof *r);
  r->status = Internal_Error;
  if (!gl || !gu || !xl || !xu) goto done;
  for (int i = 0; i < n; i++) xl[i] = -1e20, xu[i] = 1e20; /* no bounds */
  /* Ipopt 3.11 wants eval_h also in limited-memory mode, where it never calls it. */
  p = CreateIpoptProblem(n, xl, xu, m, gl, gu, lv_nele_jac(a), (Index)a->H->nnz, 0, lv_eval_f, lv_eval_g,
                         a->grad_cb, a->jac_cb, a->hess_cb);
  if (!p) goto done;
  AddIpoptStrOption(p, "sb", "yes");
  AddIpoptIntOption(p, "print_level", print_level);
  AddIpoptNumOption(p, "tol", tol);
  AddIpoptIntOption(p, "max_iter", 5000);
  if (mode != LV_EXACT) AddIpoptStrOption(p, "hessian_approximation", "limited-memory");
  if (mode == LV_LBFGS_FDJAC && !AddIpoptStrOption(p, "jacobian_approximation", "finite-difference-values"))
    goto done;
  SetIntermediateCallback(p, lv_intermediate);
  lv_start(n, x);
  a->iters = 0;
  for (int k = 0; k < LV_NCB; k++) a->calls[k] = 0, a->seconds[k] = 0;
  double t0 = lv_now();
  r->status = IpoptSolve(p, x, NULL, &r->obj, NULL, NULL, NULL, a);
  r->seconds = lv_now() - t0;
  r->iters = a->iters;
  if (!(c = malloc(sizeof *c * (size_t)m))) goto done;
  lv_c(n, x, c);
  for (int i = 0; i < m; i++) r->viol = fmax(r->viol, fabs(c[i]));
done:
  if (p) FreeIpoptProblem(p);
  free(gl), free(gu), free(xl), free(xu), free(c);
  return r->status;
}

#endif /* IPOPT_LV_H */
