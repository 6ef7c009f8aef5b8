/* pde.c: record a nonlinear heat equation solver and check its gradient. */

/* The shape of an existing C simulation made differentiable with adelim:
 * the stepper (pde_sim.h) is written once, with a scalar type `real` and
 * the ADE_ macros, and included here once per type.
 *
 * Built with -DPDE_PLAIN (examples/pde-plain) the program is plain double
 * code that needs nothing but libm: it runs the simulation and prints the
 * objective J = sum_i u_i(T)^2 dx. Otherwise (examples/pde) it records the
 * run onto the tape file pde.adt (try `adelim stats pde.adt` afterwards),
 * computes the gradient of J with respect to the initial state u(0) by one
 * reverse sweep over the tape, and checks it against central differences
 * of the plain double instance of the same stepper.
 *
 * Usage: pde [N [steps]]  (N interior grid points, default 64; 200 steps) */
#include <adelim.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The problem: grid, time step and the constants of q(u) (pde_sim.h). */
struct pde {
  int n, steps;
  double dx, dt, lam, eps;
};

#define real double
#define REAL_C(c) (c)
#define PDE(name) name##_d
#define PART(name, code) code
#include "pde_sim.h"

#ifndef PDE_PLAIN
#define real ade_double
#define REAL_C(c) ade_passive(c)
#define PDE(name) name##_a
#define PART(name, code) (ade_region_begin(name), code, ade_region_end())
#include "pde_sim.h"
#endif

static const double pi = 3.14159265358979323846;

static void *xmalloc(size_t n, size_t size)
{
  void *p = calloc(n, size);
  if (!p) {
    fprintf(stderr, "pde: out of memory\n");
    exit(1);
  }
  return p;
}

/* argv[k] as an integer in [lo, hi], or dflt if absent; -1 if malformed. */
static long arg(int argc, char **argv, int k, long dflt, long lo, long hi)
{
  char *end;
  long v;
  if (k >= argc) return dflt;
  v = strtol(argv[k], &end, 10);
  return *argv[k] && !*end && v >= lo && v <= hi ? v : -1;
}

/* The initial state u(0, x) = 0.9 sin(pi x) + 0.3 sin(2 pi x)
 * + 0.35 sin(3 pi x). */
static void initial(const struct pde *p, double *u0)
{
  for (int i = 0; i < p->n; i++) {
    double x = (i + 1) * p->dx;
    u0[i] = 0.9 * sin(pi * x) + 0.3 * sin(2 * pi * x) + 0.35 * sin(3 * pi * x);
  }
}

/* Set up the problem from argv; dt is half the explicit stability limit
 * dx^2 / (2 max k) at the initial state, so the run stays stable while
 * max |u| grows by less than a factor sqrt(2). */
static int setup(int argc, char **argv, struct pde *p, double **u0)
{
  long n = arg(argc, argv, 1, 64, 3, 1000000);
  long steps = arg(argc, argv, 2, 200, 1, 100000000);
  double umax = 0;
  if (argc > 3 || n < 0 || steps < 0) {
    fprintf(stderr, "usage: pde [N [steps]]"
                    "  (3 <= N <= 1000000, 1 <= steps <= 100000000)\n");
    return -1;
  }
  p->n = (int)n;
  p->steps = (int)steps;
  p->dx = 1.0 / (double)(n + 1);
  p->lam = 2.0;
  p->eps = 0.1;
  *u0 = xmalloc((size_t)n, sizeof **u0);
  initial(p, *u0);
  for (int i = 0; i < p->n; i++) umax = fmax(umax, fabs((*u0)[i]));
  p->dt = 0.25 * p->dx * p->dx / (1 + umax * umax);
  printf("u_t = ((1 + u^2) u_x)_x + %g exp(u / (1 + %g u)) on (0, 1),"
         " u = 0 at x = 0, 1\n", p->lam, p->eps);
  printf("N = %d points, %d Euler steps of dt = %.6e, T = %.6e\n",
         p->n, p->steps, p->dt, p->steps * p->dt);
  return 0;
}

/* J(u0) by the plain double stepper; u and w hold n + 2 values. */
static double plain_J(const struct pde *p, const double *u0, double *u,
                      double *w)
{
  memcpy(u + 1, u0, (size_t)p->n * sizeof *u);
  return run_d(p, u, w);
}

#ifdef PDE_PLAIN

int main(int argc, char **argv)
{
  struct pde p;
  double *u0, *u, *w, J;
  int imax = 1;
  if (setup(argc, argv, &p, &u0) != 0) return 2;
  u = xmalloc((size_t)p.n + 2, sizeof *u);
  w = xmalloc((size_t)p.n + 2, sizeof *w);
  J = plain_J(&p, u0, u, w);
  for (int i = 1; i <= p.n; i++)
    if (u[i] > u[imax]) imax = i;
  printf("J = sum u(T)^2 dx = %.6e\n", J);
  printf("max u(T) = %.6e at x = %.6f\n", u[imax], imax * p.dx);
  free(u0);
  free(u);
  free(w);
  return 0;
}

#else

/* Report a failed call and exit; warnings (positive statuses) are reported. */
static void check(int status, const char *what)
{
  if (status == ADE_OK) return;
  fprintf(stderr, "pde: %s: %s: %s\n", what, ade_strerror(status),
          ade_errmsg());
  if (status < 0) exit(1);
}

/* Record J(u0) onto a new tape in the file pde.adt; return J. */
static double record(const struct pde *p, const double *u0, ade_tape **tape)
{
  ade_tape_options o;
  ade_double *u = xmalloc((size_t)p->n + 2, sizeof *u);
  ade_double *w = xmalloc((size_t)p->n + 2, sizeof *w);
  double J;
  ade_tape_options_init(&o);
  o.path = "pde.adt";
  check(ade_tape_create(tape, &o), "ade_tape_create");
  check(ade_trace_on(*tape), "ade_trace_on");
  for (int i = 0; i < p->n; i++) u[i + 1] = ade_indep(u0[i]);
  J = ade_dep(run_a(p, u, w));
  check(ade_trace_off(), "ade_trace_off");
  free(u);
  free(w);
  return J;
}

/* Print the tape's size, its operations by kind, and its compression. */
static void print_stats(const ade_tape *tape)
{
  ade_stats s;
  int col;
  check(ade_tape_stats(tape, &s), "ade_tape_stats");
  printf("tape pde.adt: %" PRIu64 " records (%" PRIu64 " independents, %" PRIu64
         " dependent) in %" PRIu64 " chunks\n",
         s.records, s.independents, s.dependents, s.chunks);
  col = printf("operations:");
  for (int op = 0; op < 256; op++) {
    const char *name = ade_op_name(op);
    char item[64];
    int len;
    if (!s.op_count[op] || !name) continue;
    len = snprintf(item, sizeof item, " %s %" PRIu64, name, s.op_count[op]);
    if (col > 11) col += printf(",");
    if (col + len > 78) col = printf("\n           ") - 1;
    col += printf("%s", item);
  }
  printf("\n");
  printf("stored: %" PRIu64 " bytes, %.2f bytes/op, compression ratio %.2f"
         " (varies with zstd)\n",
         s.stored_bytes, s.bytes_per_op, s.compression_ratio);
}

/* dJ/du0_i by central differences of the plain double stepper. */
static double central(const struct pde *p, double *u0, int i, double h,
                      double *u, double *w)
{
  double x = u0[i], xp = x + h, xm = x - h, jp, jm;
  u0[i] = xp;
  jp = plain_J(p, u0, u, w);
  u0[i] = xm;
  jm = plain_J(p, u0, u, w);
  u0[i] = x;
  return (jp - jm) / (xp - xm);
}

/* Compare five components of g with central differences; return the
 * largest relative difference. */
static double check_gradient(const struct pde *p, double *u0, const double *g,
                             double *u, double *w)
{
  const double h = 1e-5;
  double maxrel = 0;
  int last = -1;
  printf("gradient dJ/du0 by one reverse sweep vs central differences"
         " (h = %g):\n", h);
  printf("     i         x_i      dJ/du0_i            FD\n");
  for (int k = 0; k <= 4; k++) {
    int i = k * (p->n - 1) / 4;
    double fd;
    if (i == last) continue;
    last = i;
    fd = central(p, u0, i, h, u, w);
    maxrel = fmax(maxrel, fabs(g[i] - fd) / fmax(fabs(fd), 1e-300));
    printf("%6d  %10.6f  %12.6e  %12.6e\n", i + 1, (i + 1) * p->dx, g[i], fd);
  }
  return maxrel;
}

int main(int argc, char **argv)
{
  struct pde p;
  ade_tape *tape = NULL;
  double *u0, *g, *u, *w, J, f, Jplain, maxrel;
  const double tol = 1e-6;
  if (setup(argc, argv, &p, &u0) != 0) return 2;
  g = xmalloc((size_t)p.n, sizeof *g);
  u = xmalloc((size_t)p.n + 2, sizeof *u);
  w = xmalloc((size_t)p.n + 2, sizeof *w);
  J = record(&p, u0, &tape);
  check(ade_gradient(tape, NULL, &f, g), "ade_gradient");
  Jplain = plain_J(&p, u0, u, w);
  printf("J = sum u(T)^2 dx = %.6e\n", J);
  printf("recording, tape and plain double run agree on J bit for bit: %s\n",
         J == Jplain && f == J ? "yes" : "no");
  print_stats(tape);
  maxrel = check_gradient(&p, u0, g, u, w);
  /* Rounding noise of the differences: its digits depend on libm. */
  printf("max relative difference %.1e (varies with the machine)\n", maxrel);
  printf("gradient check (tolerance %g): %s\n", tol,
         maxrel <= tol ? "passed" : "FAILED");
  ade_tape_free(tape);
  free(u0);
  free(g);
  free(u);
  free(w);
  return maxrel <= tol ? 0 : 1;
}

#endif /* PDE_PLAIN */
