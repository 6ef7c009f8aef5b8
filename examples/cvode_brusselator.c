/* cvode_brusselator.c: a stiff reaction-diffusion system integrated by CVODE's BDF with Jacobians from adelim. */

/* The right-hand side (brusselator.h) is written once with the ADE_ macros
 * and included twice: as plain double code, the f CVODE calls, and as
 * recording code. The program integrates the same problem three ways:
 *
 *   adelim+KLU   CVODE's BDF, the Jacobian from adelim copied into a
 *                SUNSparseMatrix (CSR) and factored by SUNDIALS' KLU;
 *   adelim+band  the same Jacobian copied into a SUNBandMatrix (band LU);
 *   DQ+band      CVODE's own difference-quotient Jacobian on the band
 *                matrix with the half-bandwidths 3 (KLU has no DQ
 *                Jacobian; banded DQ is the fair choice for a 1-D problem:
 *                7 right-hand sides per Jacobian), band LU.
 *
 * The adelim Jacobian: the right-hand side is recorded once at y(0); a
 * Jacobian loop (ade_jacobian_loop_*) gives the pattern, and at each of
 * CVODE's Jacobian calls evaluates J = df/dy at CVODE's y by the tape's
 * plan; the callback copies the loop's CSR pattern and values into CVODE's
 * matrix. When a recorded comparison comes out differently at y (the cap
 * v_r = min(v, vmax) of brusselator.h flips), the loop's recorder records
 * f again at y and the loop continues on the new tape (ADE_WBRANCH never
 * reaches the callback). The loop's pattern is the union over the tapes
 * seen, so it only grows: when it does (ADE_WPATTERN), the callback
 * reallocates the sparse matrix and discards KLU's symbolic factorization
 * (SUNLinSol_KLUReInit, SUNKLU_REINIT_PARTIAL) so the next setup analyzes
 * the new pattern; entries absent on the current path are explicit zeros.
 *
 * Usage: cvode_brusselator [--check] [--every-step] [--2d] [--method NAME] [N]
 *   N points, 3N unknowns (default 334); --2d: the problem on the unit
 *   square, N x N points (default 20: 1200 unknowns; half-bandwidths 3N,
 *   so CVODE's band DQ needs 6N + 1 right-hand sides per Jacobian); NAME: the loop's elimination
 *   method (ade_elim_method_parse; default vertex-markowitz: CVODE asks
 *   for few Jacobians here, and auto, which runs several orderings to pick
 *   the cheapest plan, costs more to plan than it saves at 10^4 unknowns,
 *   doc/benchmarks.md); --every-step: CVODE evaluates a new Jacobian at
 *   every step (CVodeSetLSetupFrequency and CVodeSetJacEvalFrequency 1)
 *   instead of reusing one for up to 50 steps.
 * --check verifies and exits 1 on failure: every Jacobian the callback
 * hands CVODE (at least 3) against central differences of the plain f;
 * the final states of the adelim and DQ runs agree to the integrator's
 * tolerance; the adelim runs use fewer right-hand-side evaluations; a run
 * with the cap inside v's range re-records, grows the pattern, checks
 * Jacobians from the new tapes and still agrees with the DQ run. */
#define _POSIX_C_SOURCE 200809L
#include <adelim.h>
#include <cvode/cvode.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <time.h>

#define real double
#define REAL_C(c) (c)
#define BR(name) name##_d
#include "brusselator.h"

#define real ade_double
#define REAL_C(c) ade_passive(c)
#define BR(name) name##_a
#include "brusselator.h"

enum method { ADELIM_KLU, ADELIM_BAND, DQ_BAND };
static const char *const method_name[] = {"adelim+KLU", "adelim+band", "DQ+band"};
static int jac_method; /* the Jacobian loop's method (main sets it) */
static int every_step; /* nonzero: a new Jacobian at every step (--every-step) */

/* What one integration did. */
struct stats {
  long steps, newton, nfe, nfe_dq, njac;
  double wall, jac_time, setup_time; /* seconds */
  unsigned long long tapes, plans, growths;
  size_t nnz;
  int fd_checks, fd_failed, fd_retaped; /* checks; failed; made on a tape recorded again */
  double fd_maxerr; /* max |J - FD| / (row scale) over the checks */
};

/* CVODE's user data. */
struct ctx {
  const struct bruss *p;
  enum method m;
  ade_jacobian_loop *L;
  SUNLinearSolver LS;
  struct stats *s;
  int fd_left; /* Jacobians still to check against central differences */
  unsigned long long tapes;
};

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *xcalloc(size_t n, size_t size)
{
  void *q = calloc(n ? n : 1, size);
  if (!q) {
    fprintf(stderr, "cvode_brusselator: out of memory\n");
    exit(1);
  }
  return q;
}

/* The problem of ark_brusselator1D.c on nx points (dim 1) or nx x nx
 * points (dim 2) with the cap vmax. */
static struct bruss problem(int nx, int dim, double vmax)
{
  int ny = dim == 2 ? nx : 1;
  struct bruss p = {nx * ny, nx, ny, 0.6, 2.0, 0.01, 0.01, 0.01, 1e-5, 1.0 / (nx + 1), vmax, {0}};
  p.bc[0] = p.a, p.bc[1] = p.b / p.a, p.bc[2] = p.b;
  return p;
}

/* The half-bandwidths of the interleaved stencil. */
static int band(const struct bruss *p)
{
  return p->ny > 1 ? 3 * p->nx : 3;
}

/* y(0) = steady state + 0.1 sin(pi x) (sin(pi y) in 2-D). */
static void initial(const struct bruss *p, double *y)
{
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < p->N; i++) {
    double bump = 0.1 * sin(pi * (i % p->nx + 1) * p->dx);
    if (p->ny > 1) bump *= sin(pi * (i / p->nx + 1) * p->dx);
    for (int k = 0; k < 3; k++) y[3 * i + k] = p->bc[k] + bump;
  }
}

/* CVODE's f: the plain double instance of brusselator.h. */
static int f_cvode(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
  const struct ctx *c = ud;
  (void)t;
  rhs_d(c->p, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  return 0;
}

/* The recorder: f recorded at x onto a new finished tape. */
static int record(void *ud, const double *x, ade_tape **t)
{
  struct ctx *c = ud;
  size_t n = 3 * (size_t)c->p->N;
  ade_double *y = xcalloc(n, sizeof *y), *f = xcalloc(n, sizeof *f);
  int st = ade_tape_create(t, NULL);
  if (st >= 0) st = ade_trace_on(*t);
  if (st >= 0) {
    for (size_t i = 0; i < n; i++) y[i] = ade_indep(x[i]);
    rhs_a(c->p, y, f);
    for (size_t i = 0; i < n; i++) ade_dep(f[i]);
    st = ade_trace_off();
  }
  if (st < 0) ade_tape_free(*t), *t = NULL;
  c->tapes++;
  free(y);
  free(f);
  return st < 0 ? st : ADE_OK;
}

/* CVODE's matrix J (n x n, CSR or banded with half-bandwidths bw) by
 * columns: colptr (n + 1), row and val (one per stored entry). */
struct columns {
  size_t *colptr, *row;
  double *val;
};

static struct columns by_columns(SUNMatrix J, size_t n, size_t bw)
{
  int sparse = SUNMatGetID(J) == SUNMATRIX_SPARSE;
  const sunindextype *rp = sparse ? SUNSparseMatrix_IndexPointers(J) : NULL;
  const sunindextype *ci = sparse ? SUNSparseMatrix_IndexValues(J) : NULL;
  size_t nnz = sparse ? (size_t)rp[n] : n * (2 * bw + 1), *next = xcalloc(n + 1, sizeof *next);
  struct columns C = {xcalloc(n + 1, sizeof(size_t)), xcalloc(nnz, sizeof(size_t)), xcalloc(nnz, sizeof(double))};
  if (sparse) {
    for (size_t k = 0; k < nnz; k++) C.colptr[ci[k] + 1]++;
    for (size_t j = 0; j < n; j++) C.colptr[j + 1] += C.colptr[j], next[j] = C.colptr[j];
    for (size_t i = 0; i < n; i++)
      for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
        size_t q = next[ci[k]]++;
        C.row[q] = i, C.val[q] = SUNSparseMatrix_Data(J)[k];
      }
  } else
    for (size_t j = 0, q = 0; j < n; j++, C.colptr[j] = q)
      for (size_t i = j > bw ? j - bw : 0; i < n && i <= j + bw; i++, q++)
        C.row[q] = i, C.val[q] = SM_ELEMENT_B(J, (sunindextype)i, (sunindextype)j);
  free(next);
  return C;
}

/* Check J (what CVODE got) at y against central differences of the plain
 * f, column by column. f is at most quadratic in each unknown, so the
 * differences are exact but for rounding: |J_ij - FD_ij| must be within
 * 1e-8 of row i's largest entry, for every i and j (entries outside J's
 * pattern are 0). Columns whose stencil y_j -+ h straddles the cap vmax (a
 * kink) are skipped. Memory O(n + nnz), time n right-hand-side pairs and
 * n^2 comparisons. Updates c->s. */
static void fd_check(struct ctx *c, const double *y, SUNMatrix J)
{
  const struct bruss *p = c->p;
  size_t n = 3 * (size_t)p->N;
  struct columns C = by_columns(J, n, (size_t)band(p));
  double *col = xcalloc(n, sizeof *col), *yp = xcalloc(n, sizeof *yp);
  double *fp = xcalloc(n, sizeof *fp), *fm = xcalloc(n, sizeof *fm);
  double *rowmax = xcalloc(n, sizeof *rowmax), worst = 0;
  for (size_t q = 0; q < C.colptr[n]; q++) rowmax[C.row[q]] = fmax(rowmax[C.row[q]], fabs(C.val[q]));
  memcpy(yp, y, n * sizeof *yp);
  for (size_t j = 0; j < n; j++) {
    double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(y[j]));
    double hi = y[j] + h, lo = y[j] - h;
    if (j % 3 == 1 && lo <= p->vmax && hi >= p->vmax) continue;
    yp[j] = hi, rhs_d(p, yp, fp);
    yp[j] = lo, rhs_d(p, yp, fm);
    yp[j] = y[j];
    for (size_t q = C.colptr[j]; q < C.colptr[j + 1]; q++) col[C.row[q]] = C.val[q];
    for (size_t i = 0; i < n; i++) {
      double fd = (fp[i] - fm[i]) / (hi - lo);
      double err = fabs(col[i] - fd) / fmax(rowmax[i], 1.0);
      if (!(err <= worst)) worst = err; /* catches NaN */
    }
    for (size_t q = C.colptr[j]; q < C.colptr[j + 1]; q++) col[C.row[q]] = 0;
  }
  c->s->fd_checks++;
  c->s->fd_retaped += c->tapes > 1;
  if (!(worst <= 1e-8)) c->s->fd_failed++;
  if (!(worst <= c->s->fd_maxerr)) c->s->fd_maxerr = worst;
  free(C.colptr), free(C.row), free(C.val);
  free(col), free(yp), free(fp), free(fm), free(rowmax);
}

/* Copy the loop's CSR matrix A into CVODE's J; a grown pattern reallocates
 * J and makes KLU analyze the pattern again. @return 0, -1 (failed). */
static int copy_sparse(struct ctx *c, const ade_sparse *A, SUNMatrix J, int grown)
{
  sunindextype *rp, *ci;
  double *v;
  if ((size_t)SUNSparseMatrix_NNZ(J) < A->nnz && SUNSparseMatrix_Reallocate(J, (sunindextype)A->nnz) != 0)
    return -1;
  if (grown && SUNLinSol_KLUReInit(c->LS, J, (sunindextype)A->nnz, SUNKLU_REINIT_PARTIAL) != 0) return -1;
  rp = SUNSparseMatrix_IndexPointers(J), ci = SUNSparseMatrix_IndexValues(J), v = SUNSparseMatrix_Data(J);
  for (size_t i = 0; i <= A->m; i++) rp[i] = (sunindextype)A->rowptr[i];
  for (size_t k = 0; k < A->nnz; k++) ci[k] = (sunindextype)A->col[k], v[k] = A->val[k];
  return 0;
}

/* Copy A into CVODE's band matrix J (zeroed by CVODE, half-bandwidths
 * bw). @return 0, -1 (an entry outside the band). */
static int copy_band(const ade_sparse *A, SUNMatrix J, size_t bw)
{
  for (size_t i = 0; i < A->m; i++)
    for (size_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      size_t j = A->col[k];
      if (j + bw < i || i + bw < j) return -1;
      SM_ELEMENT_B(J, (sunindextype)i, (sunindextype)j) = A->val[k];
    }
  return 0;
}

/* CVODE's Jacobian callback: J = df/dy at y from the Jacobian loop. */
static int jac_adelim(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2,
                      N_Vector t3)
{
  struct ctx *c = ud;
  const double *yv = N_VGetArrayPointer(y);
  const ade_sparse *A;
  double t0 = now();
  int st = ade_jacobian_loop_eval(c->L, yv, &A), bad;
  (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
  if (st < 0) {
    fprintf(stderr, "cvode_brusselator: ade_jacobian_loop_eval: %s: %s\n", ade_strerror(st), ade_errmsg());
    return -1;
  }
  bad = c->m == ADELIM_KLU ? copy_sparse(c, A, J, st == ADE_WPATTERN) : copy_band(A, J, (size_t)band(c->p));
  c->s->jac_time += now() - t0;
  if (bad) {
    fprintf(stderr, "cvode_brusselator: the Jacobian does not fit CVODE's matrix\n");
    return -1;
  }
  if (c->fd_left > 0) fd_check(c, yv, J), c->fd_left--;
  return 0;
}

/* Set up the Jacobian for method c->m: the tape, the loop, the matrix and
 * the linear solver. @return 0, -1. */
static int setup_linear(struct ctx *c, N_Vector y, SUNContext sun, SUNMatrix *J, ade_tape **t0)
{
  size_t n = 3 * (size_t)c->p->N;
  if (c->m != ADELIM_KLU) {
    *J = SUNBandMatrix((sunindextype)n, band(c->p), band(c->p), sun);
    c->LS = *J ? SUNLinSol_Band(y, *J, sun) : NULL;
  }
  if (c->m == DQ_BAND) return c->LS ? 0 : -1;
  if (record(c, N_VGetArrayPointer(y), t0) < 0 || ade_jacobian_loop_create(&c->L, *t0, jac_method, NULL) < 0) {
    fprintf(stderr, "cvode_brusselator: recording: %s\n", ade_errmsg());
    return -1;
  }
  ade_jacobian_loop_set_recorder(c->L, record, c);
  if (c->m == ADELIM_KLU) {
    *J = SUNSparseMatrix((sunindextype)n, (sunindextype)n, (sunindextype)ade_jacobian_loop_matrix(c->L)->nnz,
                         CSR_MAT, sun);
    c->LS = *J ? SUNLinSol_KLU(y, *J, sun) : NULL;
  }
  return c->LS ? 0 : -1;
}

/* Read CVODE's counters into s. */
static void counters(void *mem, struct stats *s)
{
  CVodeGetNumSteps(mem, &s->steps);
  CVodeGetNumNonlinSolvIters(mem, &s->newton);
  CVodeGetNumRhsEvals(mem, &s->nfe);
  CVodeGetNumLinRhsEvals(mem, &s->nfe_dq);
  CVodeGetNumJacEvals(mem, &s->njac);
}

/* Integrate p from y(0) to tf by method m at rtol, atol; y(tf) into yout
 * (3N values); the first fd_checks Jacobians are checked against central
 * differences.
 * @return 0, -1 (failed; a message is printed). */
static int integrate(const struct bruss *p, enum method m, double tf, double rtol, double atol, int fd_checks,
                     struct stats *s, double *yout)
{
  size_t n = 3 * (size_t)p->N;
  struct ctx c = {p, m, NULL, NULL, s, fd_checks, 0};
  SUNContext sun = NULL;
  SUNMatrix J = NULL;
  N_Vector y = NULL;
  ade_tape *t0 = NULL;
  void *mem = NULL;
  double t = 0, start = now();
  int ok = 0;
  memset(s, 0, sizeof *s);
  if (SUNContext_Create(NULL, &sun) != 0) return -1;
  y = N_VNew_Serial((sunindextype)n, sun);
  if (!y) goto done;
  initial(p, N_VGetArrayPointer(y));
  mem = CVodeCreate(CV_BDF, sun);
  if (!mem || CVodeInit(mem, f_cvode, 0.0, y) || CVodeSStolerances(mem, rtol, atol) ||
      CVodeSetUserData(mem, &c) || CVodeSetMaxNumSteps(mem, 1000000) || setup_linear(&c, y, sun, &J, &t0) ||
      CVodeSetLinearSolver(mem, c.LS, J) || (m != DQ_BAND && CVodeSetJacFn(mem, jac_adelim)) ||
      (every_step && (CVodeSetLSetupFrequency(mem, 1) || CVodeSetJacEvalFrequency(mem, 1))))
    goto done;
  s->setup_time = now() - start;
  ok = CVode(mem, tf, y, &t, CV_NORMAL) >= 0;
  s->wall = now() - start;
  counters(mem, s);
  memcpy(yout, N_VGetArrayPointer(y), n * sizeof *yout);
  if (c.L) {
    ade_jacobian_loop_stats ls;
    ade_jacobian_loop_report(c.L, &ls);
    s->plans = ls.plans_built, s->growths = ls.pattern_growths;
    s->nnz = ade_jacobian_loop_matrix(c.L)->nnz;
  }
  s->tapes = c.tapes;
done:
  if (!ok) fprintf(stderr, "cvode_brusselator: %s failed\n", method_name[m]);
  CVodeFree(&mem);
  SUNLinSolFree(c.LS);
  SUNMatDestroy(J);
  N_VDestroy(y);
  ade_jacobian_loop_free(c.L);
  ade_tape_free(t0);
  SUNContext_Free(&sun);
  return ok ? 0 : -1;
}

/* max_i |a_i - b_i| / (atol + rtol |b_i|): the difference in units of the
 * integrator's local error tolerance. */
static double wdiff(size_t n, const double *a, const double *b, double rtol, double atol)
{
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]) / (atol + rtol * fabs(b[i])));
  return d;
}

/* Right-hand-side evaluations in all: CVODE's, its DQ Jacobians' and the
 * recordings (a tape is one evaluation of f). */
static long total_rhs(const struct stats *s)
{
  return s->nfe + s->nfe_dq + (long)s->tapes;
}

/* bench/bench_cvode.c includes this file for the above, without the rest. */
#ifndef CVODE_BRUSSELATOR_NO_MAIN
static void print_header(void)
{
  printf("%-12s %6s %7s %7s %7s %6s %5s %6s %8s %8s %8s %10s\n", "run", "steps", "Newton", "f", "f(DQ)", "tapes",
         "Jacs", "nnz", "setup ms", "Jac ms", "wall ms", "|y - y_DQ|");
}

static void print_row(enum method m, const struct stats *s, double diff)
{
  printf("%-12s %6ld %7ld %7ld %7ld %6llu %5ld %6zu %8.1f %8.2f %8.1f %10.3g\n", method_name[m], s->steps,
         s->newton, s->nfe, s->nfe_dq, s->tapes, s->njac, s->nnz, 1e3 * s->setup_time, 1e3 * s->jac_time,
         1e3 * s->wall, diff);
}

/* Acceptance: FD checks passed, agreement with DQ within `agree` local
 * tolerances, fewer right-hand sides. @return failures. */
static int accept(enum method m, const struct stats *s, const struct stats *dq, double diff, double agree)
{
  int bad = 0;
  if (s->fd_checks < 3 || s->fd_failed) {
    printf("FAIL: %s: %d of %d Jacobians disagree with central differences (worst %.3g)\n", method_name[m],
           s->fd_failed, s->fd_checks, s->fd_maxerr);
    bad++;
  } else
    printf("ok: %s: %d Jacobians agree with central differences (worst %.2g of the row scale)\n", method_name[m],
           s->fd_checks, s->fd_maxerr);
  if (!(diff <= agree)) {
    printf("FAIL: %s: y(tf) differs from the DQ run by %.3g local tolerances (> %g)\n", method_name[m], diff, agree);
    bad++;
  } else
    printf("ok: %s: y(tf) agrees with the DQ run to %.2g local tolerances (<= %g)\n", method_name[m], diff, agree);
  if (total_rhs(s) >= total_rhs(dq)) {
    printf("FAIL: %s: %ld right-hand sides, DQ %ld\n", method_name[m], total_rhs(s), total_rhs(dq));
    bad++;
  } else
    printf("ok: %s: %ld right-hand sides against %ld with DQ Jacobians\n", method_name[m], total_rhs(s),
           total_rhs(dq));
  return bad;
}

/* Integrate p by the three methods; with check, verify. @return failures. */
static int compare(const struct bruss *p, double tf, double rtol, double atol, int check, int only_klu)
{
  size_t n = 3 * (size_t)p->N;
  double *y[3], diff[3];
  struct stats s[3];
  int bad = 0;
  const double agree = 1; /* local tolerances: CVODE's own test of a step */
  for (int m = 0; m < 3; m++) y[m] = xcalloc(n, sizeof *y[m]);
  for (int m = DQ_BAND; m >= 0; m--) {
    if (only_klu && m == ADELIM_BAND) continue;
    if (integrate(p, (enum method)m, tf, rtol, atol, check ? 1000 : 0, &s[m], y[m]) != 0) {
      bad++;
      goto done;
    }
  }
  print_header();
  for (int m = 0; m < 3; m++) {
    if (only_klu && m == ADELIM_BAND) continue;
    diff[m] = wdiff(n, y[m], y[DQ_BAND], rtol, atol);
    print_row((enum method)m, &s[m], diff[m]);
  }
  for (int m = 0; check && m < DQ_BAND; m++)
    if (!(only_klu && m == ADELIM_BAND)) bad += accept((enum method)m, &s[m], &s[DQ_BAND], diff[m], agree);
  if (check && only_klu && (s[ADELIM_KLU].tapes < 2 || s[ADELIM_KLU].growths < 1 || !s[ADELIM_KLU].fd_retaped)) {
    printf("FAIL: the cap flipped no branch that grew the pattern and was checked (%llu tapes, %llu growths,"
           " %d checks on new tapes)\n", s[ADELIM_KLU].tapes, s[ADELIM_KLU].growths, s[ADELIM_KLU].fd_retaped);
    bad++;
  } else if (check && only_klu)
    printf("ok: branches flipped: %llu tapes, %llu plans, the pattern grew %llu times to %zu nonzeros;"
           " %d of the checked Jacobians came from new tapes\n", s[ADELIM_KLU].tapes, s[ADELIM_KLU].plans,
           s[ADELIM_KLU].growths, s[ADELIM_KLU].nnz, s[ADELIM_KLU].fd_retaped);
done:
  for (int m = 0; m < 3; m++) free(y[m]);
  return bad;
}

/* The problem's description and the columns' meaning. */
static void describe(const struct bruss *p, double tf, double rtol, double atol)
{
  printf("%s Brusselator, a = %g, b = %g, d = %g, ep = %g: %d points, %d unknowns, half-bandwidths %d\n",
         p->ny > 1 ? "2-D" : "1-D", p->a, p->b, p->du, p->ep, p->N, 3 * p->N, band(p));
  printf("CVODE BDF to t = %g, rtol = %g, atol = %g; adelim's Jacobians by %s%s\n", tf, rtol, atol,
         ade_elim_method_name(jac_method), every_step ? "; a new Jacobian at every step" : "");
}

int main(int argc, char **argv)
{
  int check = 0, dim = 1, bad, k = 1;
  long N = -1;
  const double tf = 10.0, rtol = 1e-6, atol = 1e-10;
  struct bruss p;
  char *end = NULL;
  jac_method = ade_order_parse("vertex-markowitz");
  for (; k < argc && argv[k][0] == '-'; k++)
    if (strcmp(argv[k], "--check") == 0)
      check = 1;
    else if (strcmp(argv[k], "--every-step") == 0)
      every_step = 1;
    else if (strcmp(argv[k], "--2d") == 0)
      dim = 2;
    else if (strcmp(argv[k], "--method") == 0 && k + 1 < argc && ade_elim_method_parse(argv[k + 1]) >= 0)
      jac_method = ade_elim_method_parse(argv[++k]);
    else
      break;
  if (k < argc) N = strtol(argv[k++], &end, 10);
  else N = dim == 2 ? 20 : 334;
  if (k < argc || (end && *end) || N < 3 || N > (dim == 2 ? 1000 : 1000000)) {
    fprintf(stderr, "usage: cvode_brusselator [--check] [--every-step] [--2d] [--method NAME] [N]\n"
                    "  (1-D: 3 <= N <= 1000000 points; 2-D: N x N points, 3 <= N <= 1000)\n");
    return 2;
  }
  p = problem((int)N, dim, HUGE_VAL);
  describe(&p, tf, rtol, atol);
  printf("f = CVODE's right-hand sides, f(DQ) = those of its band DQ Jacobians, tapes = recordings of f;\n"
         "setup = recording + plan before CVODE starts, Jac = in adelim's Jacobian callback, wall = all;\n"
         "|y - y_DQ| = max |difference| at t = %g in units of atol + rtol |y_DQ|\n", tf);
  bad = compare(&p, tf, rtol, atol, check, 0);
  if (check) {
    /* The cap inside v's range at t = 0: branches flip as v moves. */
    p.vmax = 3.4;
    printf("with the cap v_r = min(v, %g) in the reaction terms:\n", p.vmax);
    bad += compare(&p, tf, rtol, atol, check, 1);
    if (dim == 1) { /* and the 2-D problem on a small grid */
      p = problem(10, 2, HUGE_VAL);
      describe(&p, tf, rtol, atol);
      bad += compare(&p, tf, rtol, atol, check, 0);
    }
    printf("%s\n", bad ? "FAILED" : "all checks passed");
  }
  return bad ? 1 : 0;
}
#endif
