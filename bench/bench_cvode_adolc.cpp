/* bench_cvode_adolc.cpp: the ADOL-C side of bench_cvode: the same right-hand side (examples/brusselator.h) recorded with adouble, Jacobians by sparse_jac. */

/* Built only when configure found ADOL-C with ColPack (WITH_COLPACK):
 * sparse_jac (index-domain pattern, ColPack's column coloring, one
 * compressed forward sweep) is ADOL-C's way to a sparse Jacobian at a new
 * point; with repeat = 1 it reuses the pattern and the coloring, as
 * adelim's loop reuses its plan. The comparisons of brusselator.h are
 * plain C++ comparisons of values here: ADOL-C's tape would not notice a
 * branch that flips (bench_cvode runs it only with the cap off). */
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>

#include <cmath>
#include <ctime>

static adouble square(const adouble &a)
{
  return a * a;
}

/* The operation layer of brusselator.h for adouble: plain C++ operators. */
#define ADE_ADD(a, b) ((a) + (b))
#define ADE_SUB(a, b) ((a) - (b))
#define ADE_MUL(a, b) ((a) * (b))
#define ADE_DIV(a, b) ((a) / (b))
#define ADE_SQUARE(a) square(a)
#define ADE_LT(a, b) ((a) < (b))
#define real adouble
#define REAL_C(c) adouble(c)
#define BR(name) name##_adolc
#include "../examples/brusselator.h"

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Record p's right-hand side at y (3N values) on tag; the seconds taken. */
extern "C" double cvb_adolc_record(const struct bruss *p, const double *y, short tag)
{
  int n = 3 * p->N;
  adouble *ya = new adouble[n], *fa = new adouble[n];
  double *f = new double[n], t0 = seconds();
  trace_on(tag);
  for (int i = 0; i < n; i++) ya[i] <<= y[i];
  rhs_adolc(p, ya, fa);
  for (int i = 0; i < n; i++) fa[i] >>= f[i];
  trace_off();
  t0 = seconds() - t0;
  delete[] f;
  delete[] fa;
  delete[] ya;
  return t0;
}

/* The n x n Jacobian at y as triplets: the first call (repeat 0) makes
 * the pattern and the coloring and allocates *ri, *ci, *v (free() them);
 * later calls (repeat 1) refill *v in the same order. @return sparse_jac's
 * status (< 0: failed). */
extern "C" int cvb_adolc_jacobian(short tag, int n, const double *y, int repeat, int *nnz, unsigned **ri,
                                  unsigned **ci, double **v)
{
  int options[4] = {0, 0, 0, 0}; /* index domains, safe, automatic, column compression */
  return sparse_jac(tag, n, n, repeat, y, nnz, ri, ci, v, options);
}
