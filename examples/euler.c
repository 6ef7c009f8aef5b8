/* euler.c: an AD mission from a recorded program: one implicit Euler step with a Newton solve, its regions as vector elementals, planned and executed. */

/* The problem: the Fisher-KPP equation u_t = D u_xx + u (1 - u) on (0, 1),
 * u = 0 at both ends, by central differences at N interior points. One
 * implicit Euler step from u0 solves r(u) = u - u0 - h f(u) = 0 by NEWTON
 * Newton iterations from u = u0, each in three regions:
 *   residual  r = u - u0 - h f(u)
 *   jacobian  the diagonal of r'(u) = I - h f'(u) (tridiagonal; its
 *             off-diagonal -h D / dx^2 is constant)
 *   solve     d = r'(u)^-1 r by the Thomas algorithm, u := u - d
 * What is observed: two sensors, u1 at point 1 and the average of u1 at
 * points 3 and 4 (outside the regions). The map u0 -> (u1[N/2], mean u1) is recorded once. adelim
 * builds the mission DAG of the tape's regions (ade_mission_from_tape),
 * plans its 2 x N Jacobian
 * (method best: the cheapest heuristic, then branch and bound under a node
 * limit), prints the plan against dense tangent and adjoint mode, executes
 * it on the tape (ade_mission_tape_jacobian) and checks the Jacobian
 * against finite differences; then executes the same plan at another u0.
 *
 * Usage: euler */
#include <adelim.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 6
#define NEWTON 2
#define DIFF 0.1
#define H 0.05
#define M 2 /* observations */

/* One step u0 -> u1, for real = double or ade_double; rec: open regions. */
#define STEP(real, name)                                                                      \
  static void name(const real *u0, real *u, int rec) {                                        \
    double dx2 = 1.0 / ((N + 1.0) * (N + 1.0)), off = -H * DIFF / dx2;                        \
    real r[N], dg[N], c[N];                                                                   \
    for (int i = 0; i < N; i++) u[i] = u0[i];                                                 \
    for (int it = 0; it < NEWTON; it++) {                                                     \
      if (rec) ade_region_begin("residual");                                                  \
      for (int i = 0; i < N; i++) {                                                           \
        real lap = ADE_MUL(-2.0, u[i]);                                                       \
        if (i > 0) lap = ADE_ADD(lap, u[i - 1]);                                              \
        if (i < N - 1) lap = ADE_ADD(lap, u[i + 1]);                                          \
        real f = ADE_ADD(ADE_MUL(DIFF / dx2, lap), ADE_MUL(u[i], ADE_SUB(1.0, u[i])));        \
        r[i] = ADE_SUB(ADE_SUB(u[i], u0[i]), ADE_MUL(H, f));                                  \
      }                                                                                       \
      if (rec) ade_region_end(), ade_region_begin("jacobian");                                \
      for (int i = 0; i < N; i++) /* 1 - h (-2 D / dx2 + 1 - 2 u) */                         \
        dg[i] = ADE_ADD(1.0 - H * (1.0 - 2.0 * DIFF / dx2), ADE_MUL(2.0 * H, u[i]));          \
      if (rec) ade_region_end(), ade_region_begin("solve");                                   \
      c[0] = ADE_DIV(off, dg[0]); /* Thomas: forward elimination, back substitution */       \
      r[0] = ADE_DIV(r[0], dg[0]);                                                            \
      for (int i = 1; i < N; i++) {                                                           \
        real piv = ADE_SUB(dg[i], ADE_MUL(off, c[i - 1]));                                    \
        c[i] = ADE_DIV(off, piv);                                                             \
        r[i] = ADE_DIV(ADE_SUB(r[i], ADE_MUL(off, r[i - 1])), piv);                           \
      }                                                                                       \
      for (int i = N - 2; i >= 0; i--) r[i] = ADE_SUB(r[i], ADE_MUL(c[i], r[i + 1]));         \
      for (int i = 0; i < N; i++) u[i] = ADE_SUB(u[i], r[i]);                                 \
      if (rec) ade_region_end();                                                              \
    }                                                                                         \
  }
STEP(double, step_d)
STEP(ade_double, step_a)

/* Two sensors: u1 at point 1 and the average of u1 at points 3 and 4. */
#define OBSERVE(real, name)                                                                   \
  static void name(const real *u, real *y) {                                                  \
    y[0] = u[1];                                                                              \
    y[1] = ADE_MUL(0.5, ADE_ADD(u[3], u[4]));                                                 \
  }
OBSERVE(double, observe_d)
OBSERVE(ade_double, observe_a)

static void check(int st, const char *what) {
  if (st >= 0) return;
  fprintf(stderr, "euler: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  exit(1);
}

static ade_tape *record(const double *x) {
  ade_tape *t = NULL;
  ade_double u0[N], u[N], y[M];
  check(ade_tape_create(&t, NULL), "ade_tape_create");
  check(ade_trace_on(t), "ade_trace_on");
  for (int i = 0; i < N; i++) u0[i] = ade_indep(x[i]);
  step_a(u0, u, 1);
  observe_a(u, y);
  for (int i = 0; i < M; i++) ade_dep(y[i]);
  check(ade_trace_off(), "ade_trace_off");
  return t;
}

/* The largest difference of J to central differences of the plain step,
 * relative to J's largest entry. */
static double fd_error(const double *x, const double *J) {
  double xp[N], xm[N], up[N], um[N], yp[M], ym[M], err = 0, big = 0;
  for (int j = 0; j < N; j++) {
    double h = 1e-6;
    for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];
    xp[j] += h, xm[j] -= h;
    step_d(xp, up, 0);
    step_d(xm, um, 0);
    observe_d(up, yp);
    observe_d(um, ym);
    for (int i = 0; i < M; i++) {
      err = fmax(err, fabs(J[i * N + j] - (yp[i] - ym[i]) / (2 * h)));
      big = fmax(big, fabs(J[i * N + j]));
    }
  }
  return err / big;
}

/* Execute p at x (NULL: the recorded point, u0 = x0), check it. */
static void execute(const ade_mplan *p, ade_mission *d, ade_tape *t, const double *x, const double *at) {
  double J[M * N], F[M * N], worst = 0;
  uint64_t fma = 0;
  check(ade_mission_tape_jacobian(p, d, t, x, J, &fma), "ade_mission_tape_jacobian");
  check(ade_jacobian_dense(t, ADE_FORWARD, x, F), "ade_jacobian_dense");
  for (int k = 0; k < M * N; k++) worst = fmax(worst, fabs(J[k] - F[k]) / fmax(fabs(F[k]), 1e-300));
  printf("executed: %llu multiply-adds (the plan's cost: %s)\n", (unsigned long long)fma,
         fma == ade_mplan_cost(p) ? "equal" : "DIFFERENT");
  printf("the Jacobian against forward mode: %s; J[0][1] = %.6f, J[1][3] = %.6f\n",
         worst <= 1e-12 ? "equal to 1e-12" : "DIFFERENT", J[1], J[N + 3]);
  double e = fd_error(at, J);
  printf("against central differences: %s to 1e-7\n", e < 1e-7 ? "agrees" : "DISAGREES");
  printf("  largest difference, relative to the largest entry: %.1e (varies with libm)\n", e);
}

int main(void) {
  double x[N], x2[N];
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.4 * sin(3.0 * (i + 1) / (N + 1)), x2[i] = 0.8 * x[i] + 0.05;
  printf("implicit Euler step of u_t = %.2g u_xx + u (1 - u), N = %d, h = %.2g, %d Newton iterations;\n", DIFF, N,
         H, NEWTON);
  printf("observed: u1 at point 1 and the average of u1 at points 3 and 4\n");
  ade_tape *t = record(x);
  ade_mission *d = NULL;
  check(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS), "ade_mission_from_tape");
  int nv, ne;
  ade_mission_size(d, &nv, &ne);
  printf("mission DAG of the tape's regions: %d variables, %d elementals\n", nv, ne);
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.node_limit = 20000; /* the same plan on every machine (a time limit would not be) */
  ade_mplan *p = NULL, *dt = NULL, *da = NULL;
  check(ade_mission_plan(d, ADE_MISSION_BEST, &l, &p), "ade_mission_plan");
  check(ade_mission_plan(d, ADE_MISSION_DENSE_TANGENT, NULL, &dt), "ade_mission_plan");
  check(ade_mission_plan(d, ADE_MISSION_DENSE_ADJOINT, NULL, &da), "ade_mission_plan");
  printf("the plan (method best):\n");
  check(ade_mplan_write_text(p, d, stdout), "ade_mplan_write_text");
  printf("cost %llu against dense tangent %llu and dense adjoint %llu\n", (unsigned long long)ade_mplan_cost(p),
         (unsigned long long)ade_mplan_cost(dt), (unsigned long long)ade_mplan_cost(da));
  printf("at the recorded u0:\n");
  execute(p, d, t, NULL, x);
  printf("the same plan at another u0:\n");
  execute(p, d, t, x2, x2);
  ade_mplan_free(p);
  ade_mplan_free(dt);
  ade_mplan_free(da);
  ade_mission_free(d);
  ade_tape_free(t);
  return 0;
}
