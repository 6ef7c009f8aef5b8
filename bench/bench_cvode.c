/* bench_cvode.c: CVODE's BDF on the stiff Brusselator with adelim's Jacobians against its band difference quotients, at full size. */

/* The integrations are those of examples/cvode_brusselator.c (included
 * here without its main): adelim's Jacobian into a CSR SUNSparseMatrix
 * with KLU and into a band matrix with band LU, against CVODE's band DQ
 * Jacobian with band LU, each in two regimes: CVODE's default (one
 * Jacobian reused for up to 50 steps) and a new Jacobian at every step.
 *
 * Per run: steps, Jacobians, right-hand sides in all (CVODE's, its DQ
 * Jacobians', the recordings), setup (recording + plan, adelim only),
 * time per Jacobian, the share of the solve spent making Jacobians, total
 * time, and max |y - y_DQ| in local tolerances. adelim's Jacobian time is
 * measured inside its callback (ade_jacobian_loop_eval + the copy into
 * CVODE's matrix); CVODE calls its DQ Jacobian internally, so its time is
 * estimated as f(DQ) times the mean time of one right-hand side (measured
 * before; the band DQ adds only column bookkeeping to those calls).
 *
 * Usage: bench_cvode [--method NAME] [N...]  (default: N = 334 and 3334,
 * 1002 and 10002 unknowns; NAME as cvode_brusselator's, vertex-markowitz) */
#define CVODE_BRUSSELATOR_NO_MAIN
#include "../examples/cvode_brusselator.c"

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

static void bench(int N)
{
  struct bruss p = problem(N, HUGE_VAL);
  size_t n = 3 * (size_t)N;
  const double tf = 10.0, rtol = 1e-6, atol = 1e-10;
  double tf_rhs = time_rhs(&p), *y[3];
  struct stats s[3];
  for (int m = 0; m < 3; m++) y[m] = xcalloc(n, sizeof *y[m]);
  printf("\nN = %d points, %zu unknowns; one right-hand side %.1f us\n", N, n, 1e6 * tf_rhs);
  for (every_step = 0; every_step < 2; every_step++) {
    printf("%s\n", every_step ? "a new Jacobian at every step:" : "CVODE's default Jacobian reuse:");
    printf("  %-12s %6s %5s %8s %9s %9s %7s %9s %10s\n", "run", "steps", "Jacs", "f total", "setup s",
           "ms/Jac", "Jac %", "total s", "|y - y_DQ|");
    for (int m = DQ_BAND; m >= 0; m--)
      if (integrate(&p, (enum method)m, tf, rtol, atol, 0, &s[m], y[m]) != 0) exit(1);
    for (int m = 0; m < 3; m++) {
      double jt = m == DQ_BAND ? (double)s[m].nfe_dq * tf_rhs : s[m].jac_time;
      printf("  %-12s %6ld %5ld %8ld %9.3f %9.3f %6.1f%% %9.3f %10.2g\n", method_name[m], s[m].steps, s[m].njac,
             total_rhs(&s[m]), s[m].setup_time, 1e3 * jt / (double)(s[m].njac ? s[m].njac : 1),
             100 * jt / s[m].wall, s[m].wall, wdiff(n, y[m], y[DQ_BAND], rtol, atol));
    }
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
  printf("bench_cvode: 1-D Brusselator (examples/cvode_brusselator.c), CVODE BDF to t = 10,"
         " rtol 1e-6, atol 1e-10;\nadelim's Jacobians by %s; DQ Jacobian time = f(DQ) x one right-hand side\n",
         ade_elim_method_name(jac_method));
  for (; k < argc; k++, ran++) {
    long N = strtol(argv[k], NULL, 10);
    if (N < 3 || N > 1000000) {
      fprintf(stderr, "usage: bench_cvode [--method NAME] [N...]\n");
      return 2;
    }
    bench((int)N);
  }
  if (!ran) bench(334), bench(3334);
  return 0;
}
