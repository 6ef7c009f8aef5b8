/* brusselator.h: the right-hand side of cvode_brusselator.c, written once for any scalar type `real`. */

/* cvode_brusselator.c includes this file once per scalar type, with three
 * macros defined:
 *   real       the scalar type: double, or ade_double to record;
 *   REAL_C(c)  the constant c as a real;
 *   BR(name)   the name this instance gives each function, e.g. name##_d.
 * All arithmetic goes through the ADE_ macros of <adelim.h>: with double
 * operands they are plain double expressions (the right-hand side CVODE
 * calls), with ade_double operands they record. No include guard: the file
 * is meant to be included twice. It undefines the three macros at its end.
 *
 * The problem (struct bruss below) is the 1-D
 * Brusselator with a stiff third species (the ARKode example
 * ark_brusselator1D.c of SUNDIALS):
 *   u_t = du u_xx + a - (w + 1) u + u^2 v
 *   v_t = dv v_xx + w u - u^2 v
 *   w_t = dw w_xx + (b - w) / ep - w u      on (0, 1),
 * u, v, w fixed at the steady state (a, b/a, b) at x = 0 and 1, by central
 * differences at nx interior points x_i = (i + 1) dx, dx = 1 / (nx + 1);
 * or the same on the unit square (u_xx + u_yy, ...) at nx x nx interior
 * points, numbered row by row (point i at x = (i % nx + 1) dx, y = (i / nx
 * + 1) dx). The unknowns are interleaved, y[3i] = u_i, y[3i+1] = v_i,
 * y[3i+2] = w_i, so the Jacobian is banded with half-bandwidths 3 (1-D) or
 * 3 nx (2-D). ep = 1e-5 makes w relax 10^5 times faster than the rest: the
 * system is stiff.
 *
 * The reaction terms see v through a cap, v_r = vmax < v ? vmax : v (a
 * saturation; vmax = HUGE_VAL, never active, by default; with vmax inside
 * v's range the branch flips during the run: where v_r = vmax, u_t does
 * not depend on v_i and the Jacobian entry (3i, 3i+1) is absent from that
 * path's pattern). */

#ifndef BRUSSELATOR_PROBLEM
#define BRUSSELATOR_PROBLEM
/* The problem's constants; bc = the boundary values of u, v, w. Defined
 * once, at the first inclusion. */
struct bruss {
  int N, nx, ny; /* N = nx ny points; 1-D: ny = 1 */
  double a, b, du, dv, dw, ep, dx, vmax, bc[3];
};
#endif

/* The Laplacian of species k (0, 1, 2) at point i with the boundary
 * values: c_xx, plus c_yy on a 2-D grid. */
static real BR(lap)(const struct bruss *p, const real *y, int i, int k)
{
  int ix = i % p->nx, iy = i / p->nx;
  real c2 = ADE_MUL(2.0, y[3 * i + k]);
  real left = ix > 0 ? y[3 * (i - 1) + k] : REAL_C(p->bc[k]);
  real right = ix < p->nx - 1 ? y[3 * (i + 1) + k] : REAL_C(p->bc[k]);
  real sum = ADE_ADD(ADE_SUB(left, c2), right);
  if (p->ny > 1) {
    real down = iy > 0 ? y[3 * (i - p->nx) + k] : REAL_C(p->bc[k]);
    real up = iy < p->ny - 1 ? y[3 * (i + p->nx) + k] : REAL_C(p->bc[k]);
    sum = ADE_ADD(sum, ADE_ADD(ADE_SUB(down, c2), up));
  }
  return ADE_DIV(sum, p->dx * p->dx);
}

/* f = y' at y (3N values each). */
static void BR(rhs)(const struct bruss *p, const real *y, real *f)
{
  for (int i = 0; i < p->N; i++) {
    real u = y[3 * i], v = y[3 * i + 1], w = y[3 * i + 2];
    real vr = ADE_LT(p->vmax, v) ? REAL_C(p->vmax) : v;
    real uuv = ADE_MUL(ADE_SQUARE(u), vr);
    real wu = ADE_MUL(w, u);
    real fu = ADE_SUB(ADE_ADD(p->a, uuv), ADE_MUL(ADE_ADD(w, 1.0), u));
    real fv = ADE_SUB(wu, uuv);
    real fw = ADE_SUB(ADE_DIV(ADE_SUB(p->b, w), p->ep), wu);
    f[3 * i] = ADE_ADD(ADE_MUL(p->du, BR(lap)(p, y, i, 0)), fu);
    f[3 * i + 1] = ADE_ADD(ADE_MUL(p->dv, BR(lap)(p, y, i, 1)), fv);
    f[3 * i + 2] = ADE_ADD(ADE_MUL(p->dw, BR(lap)(p, y, i, 2)), fw);
  }
}

#undef real
#undef REAL_C
#undef BR
