/* speelpenning.c: the gradient of y = x_1 x_2 ... x_n, three ways. */

/* Speelpenning's product is the classic example of automatic
 * differentiation: its gradient dy/dx_i = prod_{j != i} x_j costs one
 * reverse sweep but n forward sweeps. The program records y onto a tape in
 * memory, computes the gradient with ade_gradient and the 1 x n Jacobian
 * with ade_jacobian_dense in forward and in reverse mode, and compares all
 * three with the analytic gradient y / x_i.
 *
 * Usage: speelpenning [n]  (n inputs, default 10, at most 1000) */
#include <adelim.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Report a failed call and exit; warnings (positive statuses) are reported. */
static void check(int status, const char *what)
{
  if (status == ADE_OK) return;
  fprintf(stderr, "speelpenning: %s: %s: %s\n", what, ade_strerror(status),
          ade_errmsg());
  if (status < 0) exit(1);
}

/* Record y = prod x_i at x (n values) onto a new tape in memory. */
static ade_tape *record(size_t n, const double *x)
{
  ade_tape_options o;
  ade_tape *tape = NULL;
  ade_double *xa = calloc(n, sizeof *xa), y;
  if (!xa) {
    fprintf(stderr, "speelpenning: out of memory\n");
    exit(1);
  }
  ade_tape_options_init(&o);
  check(ade_tape_create(&tape, &o), "ade_tape_create");
  check(ade_trace_on(tape), "ade_trace_on");
  for (size_t i = 0; i < n; i++) xa[i] = ade_indep(x[i]);
  y = xa[0];
  for (size_t i = 1; i < n; i++) y = ade_mul(y, xa[i]);
  ade_dep(y);
  check(ade_trace_off(), "ade_trace_off");
  free(xa);
  return tape;
}

/* The largest |a_i - b_i| / |b_i|. */
static double maxrel(size_t n, const double *a, const double *b)
{
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]) / fabs(b[i]));
  return m;
}

int main(int argc, char **argv)
{
  char *end = NULL;
  long arg = argc > 1 ? strtol(argv[1], &end, 10) : 10;
  size_t n = (size_t)arg;
  double *x, *exact, *g, *Jf, *Jr, y, tol, err;
  ade_tape *tape;
  ade_stats s;
  /* n is kept small: the forward mode Jacobian propagates n directions. */
  if (argc > 2 || (end && (*end || end == argv[1])) || arg < 1 || arg > 1000) {
    fprintf(stderr, "usage: speelpenning [n]  (1 <= n <= 1000)\n");
    return 2;
  }
  x = calloc(n, sizeof *x);
  exact = calloc(n, sizeof *exact);
  g = calloc(n, sizeof *g);
  Jf = calloc(n, sizeof *Jf);
  Jr = calloc(n, sizeof *Jr);
  if (!x || !exact || !g || !Jf || !Jr) {
    fprintf(stderr, "speelpenning: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; i++) x[i] = 1 + 0.1 * sin(2.385 * (double)(i + 1));

  tape = record(n, x);
  check(ade_gradient(tape, NULL, &y, g), "ade_gradient");
  check(ade_jacobian_dense(tape, ADE_FORWARD, NULL, Jf), "ade_jacobian_dense");
  check(ade_jacobian_dense(tape, ADE_REVERSE, NULL, Jr), "ade_jacobian_dense");
  check(ade_tape_stats(tape, &s), "ade_tape_stats");
  for (size_t i = 0; i < n; i++) exact[i] = y / x[i];

  printf("Speelpenning's product y = x_1 x_2 ... x_n, n = %zu\n", n);
  printf("y = %.6e\n", y);
  printf("tape: %" PRIu64 " records (%" PRIu64 " independents, %" PRIu64
         " dependent)\n", s.records, s.independents, s.dependents);
  printf("     i          x_i      y / x_i     gradient    forward J"
         "    reverse J\n");
  for (size_t i = 0; i < n && i < 12; i++)
    printf("%6zu %12.6e %12.6e %12.6e %12.6e %12.6e\n", i + 1, x[i], exact[i],
           g[i], Jf[i], Jr[i]);
  if (n > 12) printf("   ... (%zu more)\n", n - 12);
  /* Each value carries at most n roundings, so they agree to 4 n eps. */
  tol = 4 * (double)n * DBL_EPSILON;
  err = fmax(maxrel(n, g, exact), maxrel(n, Jf, exact));
  err = fmax(err, maxrel(n, Jr, exact));
  printf("all agree with y / x_i to within 4 n eps: %s\n",
         err <= tol ? "yes" : "NO");

  ade_tape_free(tape);
  free(x);
  free(exact);
  free(g);
  free(Jf);
  free(Jr);
  return err <= tol ? 0 : 1;
}
