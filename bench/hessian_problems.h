/* hessian_problems.h: the Hessian benchmark functions, written once over a
 * scalar type (More, Garbow, Hillstrom test functions, a dense pairwise sum,
 * the chain tree of Wang, Pothen and Hovland's Figure 6, MINPACK-2's
 * minimal surface and the Broyden banded function).
 *
 * Include this file after defining
 *   BH_REAL          the scalar type (double, ade_double, adouble),
 *   BH_FN(name)      the name of each function in this instantiation,
 *   BH_CONST(v)      a passive constant of type BH_REAL (minsurf's boundary),
 * and the ADE_ operation macros ADD, SUB, MUL, SQUARE, SIN, EXP, LOG (from
 * <adelim.h> in C, where they are plain double code for double and recording
 * calls for ade_double; from a small operator layer in the ADOL-C
 * translation unit). It may be included several times; it undefines
 * nothing. The code must stay valid C11 and C++. Every function has one
 * dependent; sums start from their first term, so no passive constant is
 * ever recorded as a variable (minsurf's boundary values are constants
 * that only enter differences with the unknowns). */

#include "bench_hessian.h"

/* Extended Rosenbrock (MGH problem 21), n even:
 * f = sum_{i<n/2} 100 (x_{2i+1} - x_{2i}^2)^2 + (1 - x_{2i})^2.
 * Block diagonal Hessian (2 x 2 blocks). */
static BH_REAL BH_FN(rosenbrock_term)(const BH_REAL *x, size_t i)
{
  BH_REAL a = ADE_SUB(x[i + 1], ADE_SQUARE(x[i]));
  return ADE_ADD(ADE_MUL(100.0, ADE_SQUARE(a)), ADE_SQUARE(ADE_SUB(1.0, x[i])));
}

static BH_REAL BH_FN(rosenbrock)(size_t n, const BH_REAL *x)
{
  BH_REAL f = BH_FN(rosenbrock_term)(x, 0);
  for (size_t i = 2; i + 1 < n; i += 2)
    f = ADE_ADD(f, BH_FN(rosenbrock_term)(x, i));
  return f;
}

/* Broyden tridiagonal (MGH problem 30) as a sum of squares:
 * f = sum_i g_i^2, g_i = (3 - 2 x_i) x_i - x_{i-1} - 2 x_{i+1} + 1,
 * x_{-1} = x_n = 0. Pentadiagonal Hessian. */
static BH_REAL BH_FN(broyden_term)(size_t n, const BH_REAL *x, size_t i)
{
  BH_REAL g = ADE_MUL(ADE_SUB(3.0, ADE_MUL(2.0, x[i])), x[i]);
  if (i > 0)
    g = ADE_SUB(g, x[i - 1]);
  if (i + 1 < n)
    g = ADE_SUB(g, ADE_MUL(2.0, x[i + 1]));
  return ADE_SQUARE(ADE_ADD(g, 1.0));
}

static BH_REAL BH_FN(broyden)(size_t n, const BH_REAL *x)
{
  BH_REAL f = BH_FN(broyden_term)(n, x, 0);
  for (size_t i = 1; i < n; i++)
    f = ADE_ADD(f, BH_FN(broyden_term)(n, x, i));
  return f;
}

/* Penalty function I (MGH problem 23), a = 1e-5:
 * f = a sum_i (x_i - 1)^2 + (sum_i x_i^2 - 1/4)^2. Dense Hessian
 * (diagonal plus 8 x x^T) from a tape of O(n) operations. */
static BH_REAL BH_FN(penalty1)(size_t n, const BH_REAL *x)
{
  BH_REAL s = ADE_SQUARE(ADE_SUB(x[0], 1.0)), q = ADE_SQUARE(x[0]);
  for (size_t i = 1; i < n; i++) {
    s = ADE_ADD(s, ADE_SQUARE(ADE_SUB(x[i], 1.0)));
    q = ADE_ADD(q, ADE_SQUARE(x[i]));
  }
  return ADE_ADD(ADE_MUL(1e-5, s), ADE_SQUARE(ADE_SUB(q, 0.25)));
}

/* A pairwise (Lorentzian) potential, f = sum_{i<j} log(1 + (x_i - x_j)^2):
 * a dense Hessian from a tape of O(n^2) operations. */
static BH_REAL BH_FN(pairs_term)(const BH_REAL *x, size_t i, size_t j)
{
  return ADE_LOG(ADE_ADD(1.0, ADE_SQUARE(ADE_SUB(x[i], x[j]))));
}

static BH_REAL BH_FN(pairs)(size_t n, const BH_REAL *x)
{
  BH_REAL f = BH_FN(pairs_term)(x, 0, 1);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (i > 0 || j > 1)
        f = ADE_ADD(f, BH_FN(pairs_term)(x, i, j));
  return f;
}

/* The chain tree (Figure 6 of the edge pushing / vertex elimination paper,
 * with a longer chain): each x_i through sin, exp, log(1 + z^2), then a
 * balanced binary tree of products. w: n entries of workspace. */
static BH_REAL BH_FN(chaintree)(size_t n, const BH_REAL *x, BH_REAL *w)
{
  for (size_t i = 0; i < n; i++) {
    BH_REAL z = ADE_EXP(ADE_SIN(x[i]));
    w[i] = ADE_LOG(ADE_ADD(1.0, ADE_SQUARE(z)));
  }
  for (size_t width = n; width > 1; width = (width + 1) / 2) {
    for (size_t i = 0; i < width / 2; i++) /* w[i] after reading w[2i], w[2i+1] */
      w[i] = ADE_MUL(w[2 * i], w[2 * i + 1]);
    if (width % 2)
      w[width / 2] = w[width - 1];
  }
  return w[0];
}

/* The minimal surface area problem (MINPACK-2 dmsafg, Averick et al.
 * 1992): the area of the piecewise linear surface over the unit square on
 * a g x g interior grid, h = 1/(g + 1), each cell cut into a lower and an
 * upper triangle:
 * f = (h^2 / 2) sum_cells sqrt(1 + dx_L^2 + dy_L^2) + sqrt(1 + dx_U^2 + dy_U^2),
 * with the one-sided differences of each triangle. The boundary values
 * come from the saddle b(s, t) = (s - 1/2)^2 - (t - 1/2)^2 (MINPACK-2 uses
 * Enneper's surface), held as passive constants in w ((g + 2)^2 entries);
 * triangles with only boundary vertices are left out (constants). A
 * sparse Hessian with the 7-point pattern of the triangulation. */
static BH_REAL BH_FN(minsurf_tri)(const BH_REAL *c, const BH_REAL *a, const BH_REAL *b, double rh)
{
  BH_REAL dx = ADE_MUL(rh, ADE_SUB(*a, *c)), dy = ADE_MUL(rh, ADE_SUB(*b, *c));
  return ADE_SQRT(ADE_ADD(ADE_ADD(ADE_SQUARE(dx), ADE_SQUARE(dy)), 1.0));
}

static BH_REAL BH_FN(minsurf)(size_t g, const BH_REAL *x, BH_REAL *w)
{
  const size_t G = g + 2;
  const double h = 1.0 / (double)(g + 1);
  for (size_t j = 0; j < G; j++)
    for (size_t i = 0; i < G; i++) {
      const double s = (double)i * h - 0.5, t = (double)j * h - 0.5;
      if (i == 0 || j == 0 || i == G - 1 || j == G - 1)
        w[j * G + i] = BH_CONST(s * s - t * t);
      else
        w[j * G + i] = x[(j - 1) * g + (i - 1)];
    }
  BH_REAL f = BH_CONST(0.0);
  int first = 1;
  for (size_t j = 0; j + 1 < G; j++)
    for (size_t i = 0; i + 1 < G; i++) {
      const BH_REAL *v = w + j * G + i; /* v[0] (i, j), v[1] (i+1, j), v[G] (i, j+1), v[G+1] */
      const int in00 = i > 0 && j > 0, in10 = i + 1 < G - 1 && j > 0;
      const int in01 = i > 0 && j + 1 < G - 1, in11 = i + 1 < G - 1 && j + 1 < G - 1;
      for (int up = 0; up < 2; up++) {
        if (up ? !(in11 || in01 || in10) : !(in00 || in10 || in01))
          continue;
        BH_REAL a = up ? BH_FN(minsurf_tri)(v + G + 1, v + G, v + 1, -1.0 / h)
                       : BH_FN(minsurf_tri)(v, v + 1, v + G, 1.0 / h);
        f = first ? a : ADE_ADD(f, a);
        first = 0;
      }
    }
  return ADE_MUL(0.5 * h * h, f);
}

/* Broyden banded function (More, Garbow, Hillstrom problem 31; in Luksan
 * and Vlcek's sparse test set) as a sum of squares:
 * f = sum_i g_i^2, g_i = x_i (2 + 5 x_i^2) + 1 - sum_{j in J_i} x_j (1 + x_j),
 * J_i = {j != i : i - 5 <= j <= i + 1}. A banded Hessian, half bandwidth 6. */
static BH_REAL BH_FN(bbanded_term)(size_t n, const BH_REAL *x, size_t i)
{
  BH_REAL g = ADE_ADD(ADE_MUL(x[i], ADE_ADD(ADE_MUL(5.0, ADE_SQUARE(x[i])), 2.0)), 1.0);
  const size_t lo = i >= 5 ? i - 5 : 0, hi = i + 1 < n ? i + 1 : n - 1;
  for (size_t j = lo; j <= hi; j++)
    if (j != i)
      g = ADE_SUB(g, ADE_MUL(x[j], ADE_ADD(x[j], 1.0)));
  return ADE_SQUARE(g);
}

static BH_REAL BH_FN(bbanded)(size_t n, const BH_REAL *x)
{
  BH_REAL f = BH_FN(bbanded_term)(n, x, 0);
  for (size_t i = 1; i < n; i++)
    f = ADE_ADD(f, BH_FN(bbanded_term)(n, x, i));
  return f;
}

/* f(x) for problem p; w: p->nwork entries of workspace. */
static BH_REAL BH_FN(eval)(const struct bh_problem *p, const BH_REAL *x, BH_REAL *w)
{
  switch (p->id) {
  case BH_ROSENBROCK: return BH_FN(rosenbrock)(p->n, x);
  case BH_BROYDEN: return BH_FN(broyden)(p->n, x);
  case BH_PENALTY1: return BH_FN(penalty1)(p->n, x);
  case BH_PAIRS: return BH_FN(pairs)(p->n, x);
  case BH_CHAINTREE: return BH_FN(chaintree)(p->n, x, w);
  case BH_MINSURF: return BH_FN(minsurf)(p->grid, x, w);
  default: return BH_FN(bbanded)(p->n, x);
  }
}
