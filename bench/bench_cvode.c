/* bench_cvode.c: CVODE's BDF on the stiff Brusselator with adelim's Jacobians against its band difference quotients, at full size. */

/* The integrations are those of examples/cvode_brusselator.c (included
 * here without its main): adelim's Jacobian into a CSR SUNSparseMatrix
 * with KLU and into a band matrix with band LU, against CVODE's band DQ
 * Jacobian with band LU, each in two regimes: CVODE's default (one
 * Jacobian reused for up to 50 steps) and a new Jacobian at every step.
 *
 * Per run: steps, Newton iterations, Jacobians, right-hand sides in all (CVODE's, its DQ
 * Jacobians', the recordings), setup (recording + plan, adelim only),
 * time per Jacobian, the share of the solve spent making Jacobians, total
 * time, and max |y - y_DQ| in local tolerances. adelim's Jacobian time is
 * measured inside its callback (ade_jacobian_loop_eval + the copy into
 * CVODE's matrix); CVODE calls its DQ Jacobian internally, so its time is
 * estimated as f(DQ) times the mean time of one right-hand side (measured
 * before; the band DQ adds only column bookkeeping to those calls).
 *
 * With ADOL-C built with ColPack (configure --with-adolc=PREFIX) a fourth
 * run, ADOL-C+KLU, takes its Jacobians from ADOL-C's sparse_jac (repeat =
 * 1 after the first: pattern and coloring reused) into the same CSR
 * matrix and KLU (bench_cvode_adolc.cpp).
 *
 * Usage: bench_cvode [--method NAME] [N | NxN ...]  (N: 1-D on N points,
 * NxN: 2-D on N x N points; default 334 3334 20x20 58x58: 1002, 10002,
 * 1200 and 10092 unknowns; NAME as cvode_brusselator's, vertex-markowitz).
 * In 2-D the band DQ needs 6N + 1 right-hand sides per Jacobian and band
 * LU n (3N)^2 operations: the every-step regime is skipped where that LU
 * would take minutes. */
#define CVODE_BRUSSELATOR_NO_MAIN
#include "../examples/cvode_brusselator.c"

#ifdef BENCH_HAVE_COLPACK
/* ADOL-C's sparse_jac as a CVODE Jacobian into the same CSR matrix and KLU
 * (bench_cvode_adolc.cpp). */
double cvb_adolc_record(const struct bruss *p, const double *y, short tag);
int cvb_adolc_jacobian(short tag, int n, const double *y, int repeat, int *nnz, unsigned **ri, unsigned **ci,
                       double **v);

struct adolc_ctx {
  struct ctx c; /* first: f_cvode reads it */
  int nnz, calls;
  unsigned *ri, *ci;
  double *v;
  size_t *perm; /* CSR position of triplet k */
  sunindextype *rowptr, *col;
};

/* The CSR order of the triplets (rows, then columns ascending): perm,
 * rowptr and col. */
static void csr_order(struct adolc_ctx *a, size_t n)
{
  size_t nnz = (size_t)a->nnz, *next = xcalloc(n + 1, sizeof *next);
  a->perm = xcalloc(nnz, sizeof *a->perm);
  a->rowptr = xcalloc(n + 1, sizeof *a->rowptr), a->col = xcalloc(nnz, sizeof *a->col);
  for (size_t k = 0; k < nnz; k++) a->rowptr[a->ri[k] + 1]++;
  for (size_t i = 0; i < n; i++) a->rowptr[i + 1] += a->rowptr[i], next[i] = (size_t)a->rowptr[i];
  for (size_t k = 0; k < nnz; k++) a->perm[k] = next[a->ri[k]]++, a->col[a->perm[k]] = a->ci[k];
  for (size_t i = 0; i < n; i++) /* insertion sort of each row's columns */
    for (sunindextype q = a->rowptr[i] + 1; q < a->rowptr[i + 1]; q++)
      for (sunindextype r = q; r > a->rowptr[i] && a->col[r - 1] > a->col[r]; r--) {
        sunindextype tc = a->col[r];
        a->col[r] = a->col[r - 1], a->col[r - 1] = tc;
        for (size_t k = 0; k < nnz; k++) /* the triplets now at r and r - 1 swap places */
          if (a->perm[k] == (size_t)r) a->perm[k] = (size_t)r - 1;
          else if (a->perm[k] == (size_t)r - 1) a->perm[k] = (size_t)r;
      }
  free(next);
}

static int jac_adolc(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2,
                     N_Vector t3)
{
  struct adolc_ctx *a = ud;
  size_t n = 3 * (size_t)a->c.p->N;
  double t0 = now(), *v;
  (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
  if (cvb_adolc_jacobian(1, (int)n, N_VGetArrayPointer(y), a->calls++ > 0, &a->nnz, &a->ri, &a->ci, &a->v) < 0)
    return -1;
  if (!a->perm) csr_order(a, n);
  if (SUNSparseMatrix_NNZ(J) < a->nnz) return -1;
  memcpy(SUNSparseMatrix_IndexPointers(J), a->rowptr, (n + 1) * sizeof *a->rowptr);
  memcpy(SUNSparseMatrix_IndexValues(J), a->col, (size_t)a->nnz * sizeof *a->col);
  v = SUNSparseMatrix_Data(J);
  for (size_t k = 0; k < (size_t)a->nnz; k++) v[a->perm[k]] = a->v[k];
  a->c.s->jac_time += now() - t0;
  return 0;
}

/* integrate() with ADOL-C's Jacobians and KLU. */
static int integrate_adolc(const struct bruss *p, double tf, double rtol, double atol, struct stats *s,
                           double *yout)
{
  size_t n = 3 * (size_t)p->N;
  struct adolc_ctx a = {{p, ADELIM_KLU, NULL, NULL, s, 0, 0}, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
  SUNContext sun = NULL;
  SUNMatrix J = NULL;
  SUNLinearSolver LS = NULL;
  N_Vector y = NULL;
  void *mem = NULL;
  double t = 0, start = now();
  int ok = 0;
  memset(s, 0, sizeof *s);
  if (SUNContext_Create(NULL, &sun) != 0) return -1;
  y = N_VNew_Serial((sunindextype)n, sun);
  if (!y) goto done;
  initial(p, N_VGetArrayPointer(y));
  cvb_adolc_record(p, N_VGetArrayPointer(y), 1);
  /* the pattern and the coloring, as adelim's setup makes its plan */
  if (cvb_adolc_jacobian(1, (int)n, N_VGetArrayPointer(y), 0, &a.nnz, &a.ri, &a.ci, &a.v) < 0) goto done;
  a.calls = 1;
  csr_order(&a, n);
  J = SUNSparseMatrix((sunindextype)n, (sunindextype)n, a.nnz, CSR_MAT, sun);
  LS = J ? SUNLinSol_KLU(y, J, sun) : NULL;
  mem = CVodeCreate(CV_BDF, sun);
  if (!LS || !mem || CVodeInit(mem, f_cvode, 0.0, y) || CVodeSStolerances(mem, rtol, atol) ||
      CVodeSetUserData(mem, &a) || CVodeSetMaxNumSteps(mem, 1000000) || CVodeSetLinearSolver(mem, LS, J) ||
      CVodeSetJacFn(mem, jac_adolc) ||
      (every_step && (CVodeSetLSetupFrequency(mem, 1) || CVodeSetJacEvalFrequency(mem, 1))))
    goto done;
  s->setup_time = now() - start;
  ok = CVode(mem, tf, y, &t, CV_NORMAL) >= 0;
  s->wall = now() - start;
  counters(mem, s);
  memcpy(yout, N_VGetArrayPointer(y), n * sizeof *yout);
  s->tapes = 1, s->nnz = (size_t)a.nnz;
done:
  if (!ok) fprintf(stderr, "bench_cvode: ADOL-C+KLU failed\n");
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(J);
  N_VDestroy(y);
  SUNContext_Free(&sun);
  free(a.ri), free(a.ci), free(a.v), free(a.perm), free(a.rowptr), free(a.col);
  return ok ? 0 : -1;
}
#endif

/* Mean seconds per right-hand side of p at y(0). */
static double time_rhs(const struct bruss *p)
{
  size_t n = 3 * (size_t)p->N;
  double *y = xcalloc(n, sizeof *y), *f = xcalloc(n, sizeof *f), t0, dt;
  long reps = 0;
  initial(p, y);
  t0 = now();
  do {
    for (int r = 0; r < 100; r++) rhs_d(p, y, f);
    reps += 100;
    dt = now() - t0;
  } while (dt < 0.2);
  free(y);
  free(f);
  return dt / (double)reps;
}

static void row(const char *name, const struct stats *s, double jt, double diff)
{
  printf("  %-12s %6ld %7ld %5ld %8ld %9.3f %9.3f %6.1f%% %9.3f %10.2g\n", name, s->steps, s->newton, s->njac,
         total_rhs(s), s->setup_time, 1e3 * jt / (double)(s->njac ? s->njac : 1), 100 * jt / s->wall, s->wall, diff);
}

static void bench(int N, int dim)
{
  struct bruss p = problem(N, dim, HUGE_VAL);
  double bw = band(&p);
  size_t n = 3 * (size_t)p.N;
  const double tf = 10.0, rtol = 1e-6, atol = 1e-10;
  double tf_rhs = time_rhs(&p), *y[3];
  struct stats s[3];
  for (int m = 0; m < 3; m++) y[m] = xcalloc(n, sizeof *y[m]);
  printf("\n%d-D, %d points, %zu unknowns, half-bandwidths %d; one right-hand side %.1f us\n", dim, p.N, n,
         band(&p), 1e6 * tf_rhs);
  for (every_step = 0; every_step < 2; every_step++) {
    if (every_step && (double)n * bw * bw > 1e8) {
      printf("(a new Jacobian at every step: skipped, band LU at every step would take minutes)\n");
      break;
    }
    printf("%s\n", every_step ? "a new Jacobian at every step:" : "CVODE's default Jacobian reuse:");
    printf("  %-12s %6s %7s %5s %8s %9s %9s %7s %9s %10s\n", "run", "steps", "Newton", "Jacs", "f total", "setup s",
           "ms/Jac", "Jac %", "total s", "|y - y_DQ|");
    for (int m = DQ_BAND; m >= 0; m--)
      if (integrate(&p, (enum method)m, tf, rtol, atol, 0, &s[m], y[m]) != 0) exit(1);
    for (int m = 0; m < 3; m++)
      row(method_name[m], &s[m], m == DQ_BAND ? (double)s[m].nfe_dq * tf_rhs : s[m].jac_time,
          wdiff(n, y[m], y[DQ_BAND], rtol, atol));
#ifdef BENCH_HAVE_COLPACK
    {
      struct stats sa;
      double *ya = xcalloc(n, sizeof *ya);
      if (integrate_adolc(&p, tf, rtol, atol, &sa, ya) != 0) exit(1);
      row("ADOL-C+KLU", &sa, sa.jac_time, wdiff(n, ya, y[DQ_BAND], rtol, atol));
      free(ya);
    }
#endif
  }
  for (int m = 0; m < 3; m++) free(y[m]);
}

int main(int argc, char **argv)
{
  int k = 1, ran = 0;
  jac_method = ade_order_parse("vertex-markowitz");
  if (k + 1 < argc && strcmp(argv[k], "--method") == 0) {
    jac_method = ade_elim_method_parse(argv[k + 1]);
    k += 2;
    if (jac_method < 0) {
      fprintf(stderr, "bench_cvode: unknown method %s\n", argv[k - 1]);
      return 2;
    }
  }
  printf("bench_cvode: 1-D and 2-D Brusselator (examples/cvode_brusselator.c), CVODE BDF to t = 10,"
         " rtol 1e-6, atol 1e-10;\nadelim's Jacobians by %s; DQ Jacobian time = f(DQ) x one right-hand side\n",
         ade_elim_method_name(jac_method));
  for (; k < argc; k++, ran++) {
    char *end;
    long N = strtol(argv[k], &end, 10);
    int dim = *end == 'x' && strtol(end + 1, &end, 10) == N ? 2 : 1;
    if (*end || N < 3 || N > (dim == 2 ? 1000 : 1000000)) {
      fprintf(stderr, "usage: bench_cvode [--method NAME] [N | NxN ...]\n");
      return 2;
    }
    bench((int)N, dim);
  }
  if (!ran) bench(334, 1), bench(3334, 1), bench(20, 2), bench(58, 2);
  return 0;
}
