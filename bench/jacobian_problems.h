/* jacobian_problems.h: the Jacobian benchmark functions, written once over a
 * scalar type (MINPACK / MINPACK-2 definitions, and a Roe flux).
 *
 * Include this file after defining
 *   BJ_REAL          the scalar type (double, ade_double, adouble),
 *   BJ_FN(name)      the name of each function in this instantiation,
 *   BJ_CONST(v)      a passive constant of type BJ_REAL,
 * and the ADE_ operation macros (from <adelim.h> in C, where they are plain
 * double code for double and recording calls for ade_double; from a small
 * operator layer in the ADOL-C translation unit). It may be included several
 * times; it undefines nothing. The code must stay valid C11 and C++. */

#include "bench_jacobian.h"

/* Discrete integral equation function (MINPACK-1 test set, vecfcn problem
 * "discrete integral equation"; More, Garbow, Hillstrom 1981, problem 29),
 * as MINPACK's Fortran computes it, with the cubes recomputed per row:
 * f_k = x_k + h [(1 - t_k) sum_{j<=k} t_j (x_j + t_j + 1)^3
 *              + t_k sum_{j>k} (1 - t_j)(x_j + t_j + 1)^3] / 2, t_j = j h,
 * h = 1/(n+1). Dense Jacobian. */
static void BJ_FN(die)(size_t n, const BJ_REAL *x, BJ_REAL *f)
{
  const double h = 1.0 / (double)(n + 1);
  for (size_t k = 1; k <= n; k++) {
    const double tk = (double)k * h;
    BJ_REAL sum1 = BJ_CONST(0.0), sum2 = BJ_CONST(0.0);
    for (size_t j = 1; j <= n; j++) {
      const double tj = (double)j * h;
      BJ_REAL a = ADE_ADD(x[j - 1], tj + 1.0);
      BJ_REAL cube = ADE_MUL(ADE_MUL(a, a), a);
      if (j == 1)
        sum1 = ADE_MUL(tj, cube);
      else if (j <= k)
        sum1 = ADE_ADD(sum1, ADE_MUL(tj, cube));
      else if (j == k + 1)
        sum2 = ADE_MUL(1.0 - tj, cube);
      else
        sum2 = ADE_ADD(sum2, ADE_MUL(1.0 - tj, cube));
    }
    BJ_REAL s = ADE_MUL(1.0 - tk, sum1);
    if (k < n)
      s = ADE_ADD(s, ADE_MUL(tk, sum2));
    f[k - 1] = ADE_ADD(x[k - 1], ADE_MUL(0.5 * h, s));
  }
}

/* Chebyquad (MINPACK-1 vecfcn problem "Chebyquad", MGH problem 35), m = n:
 * f_i = (1/n) sum_j T_i(2 x_j - 1) + (i even ? 1/(i^2 - 1) : 0), i = 1..n,
 * T_i the shifted Chebyshev polynomials by their three-term recurrence.
 * Dense Jacobian. */
static void BJ_FN(chebyquad)(size_t n, const BJ_REAL *x, BJ_REAL *f)
{
  for (size_t j = 0; j < n; j++) {
    BJ_REAL t2 = ADE_SUB(ADE_MUL(2.0, x[j]), 1.0);
    BJ_REAL tmp = ADE_MUL(2.0, t2);
    BJ_REAL t1 = t2, ti = t2;
    for (size_t i = 0; i < n; i++) {
      if (j == 0)
        f[i] = t2;
      else
        f[i] = ADE_ADD(f[i], t2);
      if (i + 1 == n)
        break; /* (MINPACK also computes T_{n+1}, which nothing uses) */
      if (i == 0)
        ti = ADE_SUB(ADE_MUL(tmp, t2), 1.0); /* T_0 = 1 */
      else
        ti = ADE_SUB(ADE_MUL(tmp, t2), t1);
      t1 = t2;
      t2 = ti;
    }
  }
  for (size_t k = 1; k <= n; k++) {
    f[k - 1] = ADE_MUL(1.0 / (double)n, f[k - 1]);
    if (k % 2 == 0)
      f[k - 1] = ADE_ADD(f[k - 1], 1.0 / ((double)(k * k) - 1.0));
  }
}

/* 2-D Bratu / solid fuel ignition residual (MINPACK-2 dsfifj) on the g x g
 * interior grid of the unit square, zero boundary values:
 * f = (hy/hx)(2u - u_W - u_E) + (hx/hy)(2u - u_S - u_N) - hx hy lambda e^u. */
static void BJ_FN(bratu)(size_t g, double lambda, const BJ_REAL *u, BJ_REAL *f)
{
  const double hx = 1.0 / (double)(g + 1), hy = hx, scale = hx * hy * lambda;
  for (size_t j = 0; j < g; j++)
    for (size_t i = 0; i < g; i++) {
      const size_t k = j * g + i;
      BJ_REAL uxx = ADE_MUL(2.0, u[k]), uyy = ADE_MUL(2.0, u[k]);
      if (i > 0)
        uxx = ADE_SUB(uxx, u[k - 1]);
      if (i + 1 < g)
        uxx = ADE_SUB(uxx, u[k + 1]);
      if (j > 0)
        uyy = ADE_SUB(uyy, u[k - g]);
      if (j + 1 < g)
        uyy = ADE_SUB(uyy, u[k + g]);
      BJ_REAL lap = ADE_ADD(ADE_MUL(hy / hx, uxx), ADE_MUL(hx / hy, uyy));
      f[k] = ADE_SUB(lap, ADE_MUL(scale, ADE_EXP(u[k])));
    }
}

/* Flow in a driven cavity (MINPACK-2 dfdcfj): the stream function
 * formulation of the steady Navier-Stokes equations on the g x g interior
 * grid of the unit square, Reynolds number R, 13-point stencil:
 * f = Lap(Lap psi) - R [psi_y (Lap psi)_x - psi_x (Lap psi)_y] by central
 * differences, times h^4. psi is 0 on the walls; the ghost values beyond
 * them come from d psi/dn = 0, except d psi/dy = 1 on the moving lid y = 1:
 * psi(i, g + 1) = psi(i, g - 1) + 2h. The workspace w holds psi on the grid
 * extended by two rows and columns each side, (g + 4)^2 entries, then the
 * h^2-scaled Laplacians on the grid with its walls, (g + 2)^2 entries. */
static void BJ_FN(cavity)(size_t g, double R, const BJ_REAL *x, BJ_REAL *w, BJ_REAL *f)
{
  const long G = (long)g, P = G + 4, L = G + 2;
  const double h = 1.0 / (double)(g + 1);
  BJ_REAL *psi = w + 2 * P + 2, *lap = w + P * P + L + 1; /* psi[j P + i], lap[j L + i], i, j >= -2 or -1 */
  for (long j = -2; j <= G + 1; j++)
    for (long i = -2; i <= G + 1; i++) {
      long a = i == -2 ? 0 : i == G + 1 ? G - 1 : i, b = j == -2 ? 0 : j;
      if (i == -1 || i == G || j == -1 || j == G)
        psi[j * P + i] = BJ_CONST(0.0);
      else if (j == G + 1)
        psi[j * P + i] = ADE_ADD(x[(G - 1) * G + a], 2.0 * h);
      else
        psi[j * P + i] = x[b * G + a];
    }
  for (long j = -1; j <= G; j++)
    for (long i = -1; i <= G; i++) {
      if ((i < 0 || i >= G) && (j < 0 || j >= G))
        continue; /* corners: no stencil uses them */
      const BJ_REAL *c = psi + j * P + i;
      lap[j * L + i] = ADE_SUB(ADE_ADD(ADE_ADD(c[-1], c[1]), ADE_ADD(c[-P], c[P])), ADE_MUL(4.0, c[0]));
    }
  for (long j = 0; j < G; j++)
    for (long i = 0; i < G; i++) {
      const BJ_REAL *c = psi + j * P + i, *l = lap + j * L + i;
      BJ_REAL bih = ADE_SUB(ADE_ADD(ADE_ADD(l[-1], l[1]), ADE_ADD(l[-L], l[L])), ADE_MUL(4.0, l[0]));
      BJ_REAL conv = ADE_SUB(ADE_MUL(ADE_SUB(c[P], c[-P]), ADE_SUB(l[1], l[-1])),
                             ADE_MUL(ADE_SUB(c[1], c[-1]), ADE_SUB(l[L], l[-L])));
      f[j * G + i] = ADE_SUB(bih, ADE_MUL(0.25 * R * h, conv));
    }
}

/* Roe's approximate Riemann solver for the 3-D Euler equations (Roe 1981;
 * Toro, Riemann Solvers, Section 11.2), the flux through a face with normal
 * x between the conserved states qL and qR (rho, rho u, rho v, rho w, E),
 * gamma = 1.4, without entropy fix:
 * F = (F(qL) + F(qR))/2 - (1/2) sum_k |lambda_k| alpha_k K_k. */
static void BJ_FN(roe1)(const BJ_REAL *qL, const BJ_REAL *qR, BJ_REAL *F)
{
  const double gm = 0.4;
  BJ_REAL uL = ADE_DIV(qL[1], qL[0]), vL = ADE_DIV(qL[2], qL[0]), wL = ADE_DIV(qL[3], qL[0]);
  BJ_REAL uR = ADE_DIV(qR[1], qR[0]), vR = ADE_DIV(qR[2], qR[0]), wR = ADE_DIV(qR[3], qR[0]);
  BJ_REAL kL = ADE_MUL(0.5, ADE_ADD(ADE_ADD(ADE_MUL(qL[1], uL), ADE_MUL(qL[2], vL)), ADE_MUL(qL[3], wL)));
  BJ_REAL kR = ADE_MUL(0.5, ADE_ADD(ADE_ADD(ADE_MUL(qR[1], uR), ADE_MUL(qR[2], vR)), ADE_MUL(qR[3], wR)));
  BJ_REAL pL = ADE_MUL(gm, ADE_SUB(qL[4], kL)), pR = ADE_MUL(gm, ADE_SUB(qR[4], kR));
  BJ_REAL HL = ADE_DIV(ADE_ADD(qL[4], pL), qL[0]), HR = ADE_DIV(ADE_ADD(qR[4], pR), qR[0]);
  /* Roe averages. */
  BJ_REAL sL = ADE_SQRT(qL[0]), sR = ADE_SQRT(qR[0]), den = ADE_ADD(sL, sR);
  BJ_REAL u = ADE_DIV(ADE_ADD(ADE_MUL(sL, uL), ADE_MUL(sR, uR)), den);
  BJ_REAL v = ADE_DIV(ADE_ADD(ADE_MUL(sL, vL), ADE_MUL(sR, vR)), den);
  BJ_REAL w = ADE_DIV(ADE_ADD(ADE_MUL(sL, wL), ADE_MUL(sR, wR)), den);
  BJ_REAL H = ADE_DIV(ADE_ADD(ADE_MUL(sL, HL), ADE_MUL(sR, HR)), den);
  BJ_REAL q2 = ADE_ADD(ADE_ADD(ADE_MUL(u, u), ADE_MUL(v, v)), ADE_MUL(w, w));
  BJ_REAL c2 = ADE_MUL(gm, ADE_SUB(H, ADE_MUL(0.5, q2))), c = ADE_SQRT(c2), rho = ADE_MUL(sL, sR);
  /* Wave strengths. */
  BJ_REAL dr = ADE_SUB(qR[0], qL[0]), du = ADE_SUB(uR, uL), dv = ADE_SUB(vR, vL);
  BJ_REAL dw = ADE_SUB(wR, wL), dp = ADE_SUB(pR, pL), rcdu = ADE_MUL(ADE_MUL(rho, c), du);
  BJ_REAL a1 = ADE_DIV(ADE_SUB(dp, rcdu), ADE_MUL(2.0, c2)), a5 = ADE_DIV(ADE_ADD(dp, rcdu), ADE_MUL(2.0, c2));
  BJ_REAL a2 = ADE_SUB(dr, ADE_DIV(dp, c2)), a3 = ADE_MUL(rho, dv), a4 = ADE_MUL(rho, dw);
  /* |lambda| alpha for the waves u - c, u (entropy and shear), u + c. */
  BJ_REAL l1 = ADE_MUL(ADE_FABS(ADE_SUB(u, c)), a1), l5 = ADE_MUL(ADE_FABS(ADE_ADD(u, c)), a5);
  BJ_REAL au = ADE_FABS(u), l2 = ADE_MUL(au, a2), l3 = ADE_MUL(au, a3), l4 = ADE_MUL(au, a4);
  BJ_REAL uc = ADE_MUL(u, c), l15 = ADE_ADD(l1, l5), l125 = ADE_ADD(l15, l2);
  BJ_REAL d1 = ADE_ADD(ADE_ADD(ADE_MUL(l1, ADE_SUB(u, c)), ADE_MUL(l5, ADE_ADD(u, c))), ADE_MUL(l2, u));
  BJ_REAL d4 = ADE_ADD(ADE_ADD(ADE_MUL(l1, ADE_SUB(H, uc)), ADE_MUL(l5, ADE_ADD(H, uc))),
                       ADE_ADD(ADE_MUL(l2, ADE_MUL(0.5, q2)), ADE_ADD(ADE_MUL(l3, v), ADE_MUL(l4, w))));
  /* F = (F(qL) + F(qR) - dissipation) / 2 with the physical fluxes
   * (rho u, rho u^2 + p, rho u v, rho u w, u (E + p)). */
  F[0] = ADE_MUL(0.5, ADE_SUB(ADE_ADD(qL[1], qR[1]), l125));
  F[1] = ADE_MUL(0.5, ADE_SUB(ADE_ADD(ADE_ADD(ADE_MUL(qL[1], uL), pL), ADE_ADD(ADE_MUL(qR[1], uR), pR)), d1));
  F[2] = ADE_MUL(0.5, ADE_SUB(ADE_ADD(ADE_MUL(qL[1], vL), ADE_MUL(qR[1], vR)), ADE_ADD(ADE_MUL(l125, v), l3)));
  F[3] = ADE_MUL(0.5, ADE_SUB(ADE_ADD(ADE_MUL(qL[1], wL), ADE_MUL(qR[1], wR)), ADE_ADD(ADE_MUL(l125, w), l4)));
  F[4] = ADE_MUL(0.5, ADE_SUB(ADE_ADD(ADE_MUL(uL, ADE_ADD(qL[4], pL)), ADE_MUL(uR, ADE_ADD(qR[4], pR))), d4));
}

/* Roe fluxes through nf faces, each with its own (reconstructed) left and
 * right states: q = (qL, qR) per face (10 nf inputs), F 5 nf outputs; a
 * block-diagonal Jacobian of 5 x 10 blocks. */
static void BJ_FN(roe)(size_t nf, const BJ_REAL *q, BJ_REAL *F)
{
  for (size_t k = 0; k < nf; k++)
    BJ_FN(roe1)(q + 10 * k, q + 10 * k + 5, F + 5 * k);
}

/* The HLL flux (Harten, Lax, van Leer 1983; Toro, Riemann Solvers,
 * Section 10.3) of the 1-D Euler equations, gamma = 1.4, between the
 * conserved states qL and qR (rho, rho u, E), with Davis's wave speed
 * estimates S_L = min(u_L - c_L, u_R - c_R), S_R = max(u_L + c_L, u_R + c_R):
 * F = (S_R F(qL) - S_L F(qR) + S_L S_R (qR - qL)) / (S_R - S_L). That is
 * the subsonic branch S_L < 0 < S_R, the only one the benchmark's states
 * (|u| < c everywhere) reach, so it is written without the branch. */
static void BJ_FN(hll1)(const BJ_REAL *qL, const BJ_REAL *qR, BJ_REAL *F)
{
  const double gm = 0.4;
  BJ_REAL uL = ADE_DIV(qL[1], qL[0]), uR = ADE_DIV(qR[1], qR[0]);
  BJ_REAL pL = ADE_MUL(gm, ADE_SUB(qL[2], ADE_MUL(0.5, ADE_MUL(qL[1], uL))));
  BJ_REAL pR = ADE_MUL(gm, ADE_SUB(qR[2], ADE_MUL(0.5, ADE_MUL(qR[1], uR))));
  BJ_REAL cL = ADE_SQRT(ADE_DIV(ADE_MUL(1.4, pL), qL[0])), cR = ADE_SQRT(ADE_DIV(ADE_MUL(1.4, pR), qR[0]));
  BJ_REAL SL = ADE_FMIN(ADE_SUB(uL, cL), ADE_SUB(uR, cR)), SR = ADE_FMAX(ADE_ADD(uL, cL), ADE_ADD(uR, cR));
  BJ_REAL FL[3], FR[3];
  FL[0] = qL[1], FL[1] = ADE_ADD(ADE_MUL(qL[1], uL), pL), FL[2] = ADE_MUL(uL, ADE_ADD(qL[2], pL));
  FR[0] = qR[1], FR[1] = ADE_ADD(ADE_MUL(qR[1], uR), pR), FR[2] = ADE_MUL(uR, ADE_ADD(qR[2], pR));
  BJ_REAL inv = ADE_DIV(1.0, ADE_SUB(SR, SL)), SLR = ADE_MUL(SL, SR);
  for (int k = 0; k < 3; k++) {
    BJ_REAL a = ADE_SUB(ADE_MUL(SR, FL[k]), ADE_MUL(SL, FR[k]));
    F[k] = ADE_MUL(ADE_ADD(a, ADE_MUL(SLR, ADE_SUB(qR[k], qL[k]))), inv);
  }
}

/* The first-order finite-volume residual of the 1-D Euler equations on nc
 * cells of width 1/nc, with HLL fluxes through the nc + 1 faces and
 * transmissive boundaries (the ghost cell copies its neighbour):
 * R_i = nc (F_{i+1/2} - F_{i-1/2}). q: 3 nc conserved states; w: the
 * 3 (nc + 1) face fluxes. A block-tridiagonal J of 3 x 3 blocks. */
static void BJ_FN(euler1d)(size_t nc, const BJ_REAL *q, BJ_REAL *w, BJ_REAL *R)
{
  for (size_t f = 0; f <= nc; f++) {
    const BJ_REAL *qL = q + 3 * (f > 0 ? f - 1 : 0), *qR = q + 3 * (f < nc ? f : nc - 1);
    BJ_FN(hll1)(qL, qR, w + 3 * f);
  }
  for (size_t i = 0; i < nc; i++)
    for (int k = 0; k < 3; k++)
      R[3 * i + (size_t)k] = ADE_MUL((double)nc, ADE_SUB(w[3 * (i + 1) + (size_t)k], w[3 * i + (size_t)k]));
}

/* The Lorenz-96 system dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F
 * (cyclic indices, F = 8) integrated by `steps` classical Runge-Kutta
 * steps of size dt: f = the state at t = steps dt as a function of the
 * initial state, a dense n x n Jacobian from a long loop. w: 6 n entries
 * (the state, the stage argument, four stage derivatives). */
static void BJ_FN(l96rhs)(size_t n, const BJ_REAL *x, BJ_REAL *d)
{
  for (size_t i = 0; i < n; i++) {
    const size_t ip = (i + 1) % n, im = (i + n - 1) % n, imm = (i + n - 2) % n;
    d[i] = ADE_ADD(ADE_SUB(ADE_MUL(ADE_SUB(x[ip], x[imm]), x[im]), x[i]), 8.0);
  }
}

static void BJ_FN(lorenz96)(size_t n, size_t steps, double dt, const BJ_REAL *x0, BJ_REAL *w, BJ_REAL *f)
{
  BJ_REAL *x = w, *y = w + n, *k1 = w + 2 * n, *k2 = w + 3 * n, *k3 = w + 4 * n, *k4 = w + 5 * n;
  for (size_t i = 0; i < n; i++)
    x[i] = x0[i];
  for (size_t s = 0; s < steps; s++) {
    BJ_FN(l96rhs)(n, x, k1);
    for (size_t i = 0; i < n; i++)
      y[i] = ADE_ADD(x[i], ADE_MUL(0.5 * dt, k1[i]));
    BJ_FN(l96rhs)(n, y, k2);
    for (size_t i = 0; i < n; i++)
      y[i] = ADE_ADD(x[i], ADE_MUL(0.5 * dt, k2[i]));
    BJ_FN(l96rhs)(n, y, k3);
    for (size_t i = 0; i < n; i++)
      y[i] = ADE_ADD(x[i], ADE_MUL(dt, k3[i]));
    BJ_FN(l96rhs)(n, y, k4);
    for (size_t i = 0; i < n; i++) {
      BJ_REAL sum = ADE_ADD(ADE_ADD(k1[i], ADE_MUL(2.0, k2[i])), ADE_ADD(ADE_MUL(2.0, k3[i]), k4[i]));
      x[i] = ADE_ADD(x[i], ADE_MUL(dt / 6.0, sum));
    }
  }
  for (size_t i = 0; i < n; i++)
    f[i] = x[i];
}

/* Evaluate problem p at x (n) into f (m); w has p->nwork entries. */
static void BJ_FN(eval)(const struct bj_problem *p, const BJ_REAL *x, BJ_REAL *w, BJ_REAL *f)
{
  switch (p->id) {
  case BJ_DIE: BJ_FN(die)(p->n, x, f); break;
  case BJ_CHEBYQUAD: BJ_FN(chebyquad)(p->n, x, f); break;
  case BJ_BRATU: BJ_FN(bratu)(p->grid, p->param, x, f); break;
  case BJ_CAVITY: BJ_FN(cavity)(p->grid, p->param, x, w, f); break;
  case BJ_ROE: BJ_FN(roe)(p->grid, x, f); break;
  case BJ_EULER1D: BJ_FN(euler1d)(p->grid, x, w, f); break;
  default: BJ_FN(lorenz96)(p->n, p->grid, p->param, x, w, f); break;
  }
}
