/* problems.h: the benchmark functions, written once over a scalar type.
 *
 * Include this file after defining
 *   BENCH_REAL      the scalar type (double, ade_double, adouble),
 *   BENCH_FN(name)  the name of each function in this instantiation,
 * and the ADE_ operation macros (from <adelim.h> in C, where they become
 * plain double code for double and recording calls for ade_double; from a
 * small operator layer in the ADOL-C translation unit). It may be included
 * several times with different definitions; it undefines nothing.
 * The code must stay valid C11 and C++. */

#include "bench_util.h"

/* Speelpenning's product y = x_0 x_1 ... x_{n-1} (n - 1 multiplications). */
static void BENCH_FN(speelpenning)(size_t n, BENCH_REAL *x, BENCH_REAL *y)
{
  BENCH_REAL p = x[0];
  for (size_t i = 1; i < n; i++)
    p = ADE_MUL(p, x[i]);
  y[0] = p;
}

/* Bratu (solid fuel ignition) residual on the g x g interior grid of the unit
 * square, zero Dirichlet boundary, five-point Laplacian:
 * F_k = (4 u_k - sum of neighbours) / h^2 - lambda exp(u_k), h = 1/(g+1). */
static void BENCH_FN(bratu)(size_t g, double lambda, BENCH_REAL *u, BENCH_REAL *f)
{
  const double hm2 = (double)((g + 1) * (g + 1));
  for (size_t j = 0; j < g; j++)
    for (size_t i = 0; i < g; i++) {
      const size_t k = j * g + i;
      BENCH_REAL s = ADE_MUL(4.0, u[k]);
      if (i > 0)
        s = ADE_SUB(s, u[k - 1]);
      if (i + 1 < g)
        s = ADE_SUB(s, u[k + 1]);
      if (j > 0)
        s = ADE_SUB(s, u[k - g]);
      if (j + 1 < g)
        s = ADE_SUB(s, u[k + g]);
      f[k] = ADE_SUB(ADE_MUL(s, hm2), ADE_MUL(lambda, ADE_EXP(u[k])));
    }
}

/* Explicit Euler for nonlinear diffusion with a transcendental source on a
 * periodic grid of N points, u_t = (D(u) u_x)_x - c sin(u), D(u) = 1 + u^2/2
 * evaluated at the face mean. With 0 <= u <= 1 initially, u stays in [0, 1]
 * (maximum principle; the source only pulls u towards 0), so D <= 1.5 and
 * r = dt/dx^2 = 0.2 keeps the scheme stable for any number of steps.
 * 12 operations per point and step; objective y = sum u_i^2.
 * u (N, the initial state, overwritten) and w (2N) are workspace. */
static void BENCH_FN(pde)(size_t N, size_t steps, BENCH_REAL *u, BENCH_REAL *w,
                          BENCH_REAL *y)
{
  const double r = 0.2, c = 1e-4;
  BENCH_REAL *cur = u, *nxt = w, *flux = w + N;
  for (size_t s = 0; s < steps; s++) {
    for (size_t i = 0; i < N; i++) { /* flux through face i + 1/2 */
      const size_t e = i + 1 < N ? i + 1 : 0;
      BENCH_REAL d = ADE_SUB(cur[e], cur[i]);
      BENCH_REAL a = ADE_ADD(cur[e], cur[i]);
      BENCH_REAL D = ADE_ADD(1.0, ADE_MUL(0.125, ADE_SQUARE(a)));
      flux[i] = ADE_MUL(D, d);
    }
    for (size_t i = 0; i < N; i++) {
      const size_t l = i > 0 ? i - 1 : N - 1;
      BENCH_REAL div = ADE_MUL(r, ADE_SUB(flux[i], flux[l]));
      BENCH_REAL src = ADE_MUL(c, ADE_SIN(cur[i]));
      nxt[i] = ADE_SUB(ADE_ADD(cur[i], div), src);
    }
    BENCH_REAL *t = cur;
    cur = nxt;
    nxt = t;
  }
  BENCH_REAL sum = ADE_SQUARE(cur[0]);
  for (size_t i = 1; i < N; i++)
    sum = ADE_ADD(sum, ADE_SQUARE(cur[i]));
  y[0] = sum;
}

/* Evaluate problem p: x (n, overwritten by the PDE), w (p->nwork), y (m). */
static void BENCH_FN(eval)(const struct bench_problem *p, BENCH_REAL *x,
                           BENCH_REAL *w, BENCH_REAL *y)
{
  if (p->id == BENCH_SPEELPENNING)
    BENCH_FN(speelpenning)(p->n, x, y);
  else if (p->id == BENCH_BRATU)
    BENCH_FN(bratu)(p->grid, p->lambda, x, y);
  else
    BENCH_FN(pde)(p->grid, p->steps, x, w, y);
}
