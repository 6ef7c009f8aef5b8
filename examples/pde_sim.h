/* pde_sim.h: the stepper of pde.c, written once for any scalar type `real`. */

/* pde.c includes this file once per scalar type, with four macros defined:
 *   real       the scalar type: double, or ade_double to record;
 *   REAL_C(c)  the constant c as a real;
 *   PDE(name)  the name this instance gives each function, e.g. name##_d;
 *   PART(name, code)  code; when recording, inside a region called name
 *              (ade_region_begin/end), a part for two-level elimination
 *              (`adelim jacobian --parts regions`).
 * All arithmetic goes through the ADE_ macros of <adelim.h>: with double
 * operands they are plain double expressions, with an ade_double operand
 * they record. No include guard: the file is meant to be included twice.
 * It undefines the four macros at its end.
 *
 * The problem (struct pde, defined in pde.c) is the nonlinear heat equation
 *   u_t = (k(u) u_x)_x + q(u)  on (0, 1),  u(0) = u(1) = 0,
 *   k(u) = 1 + u^2                  (conductivity rising with temperature)
 *   q(u) = lam exp(u / (1 + eps u))  (Arrhenius heat release)
 * at n interior grid points x_i = i dx, dx = 1 / (n + 1) (points 0 and
 * n + 1 are the boundary), by explicit Euler steps of length dt. */

/* The heat flux between neighbouring points a and b,
 * k((a + b) / 2) (b - a) / dx. */
static real PDE(flux)(real a, real b, double dx)
{
  real mid = ADE_MUL(0.5, ADE_ADD(a, b));
  real k = ADE_ADD(1.0, ADE_SQUARE(mid));
  return ADE_MUL(k, ADE_DIV(ADE_SUB(b, a), dx));
}

/* The heat release q(u) = lam exp(u / (1 + eps u)). */
static real PDE(source)(const struct pde *p, real u)
{
  return ADE_MUL(p->lam, ADE_EXP(ADE_DIV(u, ADE_ADD(1.0, ADE_MUL(p->eps, u)))));
}

/* One Euler step: w_i = u_i + dt ((F_{i+1/2} - F_{i-1/2}) / dx + q(u_i)). */
static void PDE(step)(const struct pde *p, const real *u, real *w)
{
  real left = PDE(flux)(u[0], u[1], p->dx);
  for (int i = 1; i <= p->n; i++) {
    real right = PDE(flux)(u[i], u[i + 1], p->dx);
    real div = ADE_DIV(ADE_SUB(right, left), p->dx);
    real rate = ADE_ADD(div, PDE(source)(p, u[i]));
    w[i] = ADE_ADD(u[i], ADE_MUL(p->dt, rate));
    left = right;
  }
}

/* Run p->steps steps and return J = sum_i u_i(T)^2 dx. u[1..n] holds u(0)
 * on entry and u(T) on return; u and w hold n + 2 values (w is workspace). */
static real PDE(run)(const struct pde *p, real *u, real *w)
{
  real *cur = u, *next = w, J = REAL_C(0.0);
  u[0] = w[0] = u[p->n + 1] = w[p->n + 1] = REAL_C(0.0);
  for (int s = 0; s < p->steps; s++) {
    real *t = cur;
    PART("step", PDE(step)(p, cur, next));
    cur = next;
    next = t;
  }
  for (int i = 1; i <= p->n; i++) {
    u[i] = cur[i];
    J = ADE_ADD(J, ADE_MUL(ADE_SQUARE(u[i]), p->dx));
  }
  return J;
}

#undef real
#undef REAL_C
#undef PDE
#undef PART
