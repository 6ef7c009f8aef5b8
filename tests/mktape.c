/* mktape.c: record a small tape for tests/cli.test: mktape PATH [VARIANT].
 * Variant 1 (default): capture on, zstd level 3, small chunks, two nested
 * regions and a kink (fabs at 0). Variant 2: no capture, raw chunks, a longer
 * loop. Variant 3: variant 2 with the first dependent only (m = 1).
 * Variant 4: 100 RK4 steps of Lorenz-63, a region each (about 7,100
 * vertices: too large for a search to finish in a small time limit).
 * Variant 5: variant 2 with a loop of 40,000 steps (a c-graph of about 4 MiB).
 * Exit 0, or 1 with a message on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include <adelim.h>

/* The recorded function: f(x) = (sum_k sin(x0 + k x1) exp(x1)/(k+1), |x2| x0),
 * or its first component alone (m = 1). */
static void model(int n, int m) {
  ade_double x0 = ade_indep(2.385), x1 = ade_indep(-0.731), x2 = ade_indep(0.0);
  ade_double s = ade_passive(0.0);
  ade_region_begin("model");
  ade_region_begin("smooth");
  for (int k = 0; k < n; k++) {
    ade_double t = ADE_ADD(x0, ADE_MUL((double)k, x1));
    s = ADE_ADD(s, ADE_DIV(ADE_MUL(ADE_SIN(t), ADE_EXP(x1)), (double)(k + 1)));
  }
  ade_region_end();
  ade_region_begin("kink");
  ade_double a = ADE_FABS(x2); /* non-differentiable point: flagged */
  ade_region_end();
  ade_region_end();
  ade_dep(s);
  if (m > 1) ade_dep(ADE_MUL(a, x0));
}

/* dx/dt = sigma (y - x), dy/dt = x (rho - z) - y, dz/dt = x y - beta z. */
static void lorenz(const ade_double *u, ade_double *f) {
  f[0] = ADE_MUL(10.0, ADE_SUB(u[1], u[0]));
  f[1] = ADE_SUB(ADE_MUL(u[0], ADE_SUB(28.0, u[2])), u[1]);
  f[2] = ADE_SUB(ADE_MUL(u[0], u[1]), ADE_MUL(8.0 / 3.0, u[2]));
}

/* `steps` classical Runge-Kutta steps of dt = 0.01 from (1.2, 0.8, 20.5). */
static void lorenz_rk4(int steps) {
  const double dt = 0.01;
  ade_double u[3] = {ade_indep(1.2), ade_indep(0.8), ade_indep(20.5)}, k[4][3], w[3];
  for (int s = 0; s < steps; s++) {
    ade_region_begin("step");
    for (int j = 0; j < 4; j++) {
      for (int i = 0; i < 3; i++)
        w[i] = j == 0 ? u[i] : ADE_ADD(u[i], ADE_MUL(j == 3 ? dt : dt / 2, k[j - 1][i]));
      lorenz(w, k[j]);
    }
    for (int i = 0; i < 3; i++)
      u[i] = ADE_ADD(u[i], ADE_MUL(dt / 6, ADE_ADD(ADE_ADD(k[0][i], ADE_MUL(2.0, k[1][i])),
                                                   ADE_ADD(ADE_MUL(2.0, k[2][i]), k[3][i]))));
    ade_region_end();
  }
  for (int i = 0; i < 3; i++) ade_dep(u[i]);
}

static int fail(const char *what, int status) {
  fprintf(stderr, "mktape: %s: %s: %s\n", what, ade_strerror(status), ade_errmsg());
  return 1;
}

int main(int argc, char **argv) {
  ade_tape_options o;
  ade_tape *tape = NULL;
  int variant = argc > 2 ? atoi(argv[2]) : 1, rc;
  if (argc < 2 || argc > 3 || variant < 1 || variant > 5) {
    fputs("usage: mktape PATH [1|2|3|4|5]\n", stderr);
    return 2;
  }
  ade_tape_options_init(&o);
  o.path = argv[1];
  o.capture = variant == 1;
  o.level = variant == 1 ? 3 : 0;
  o.chunk_ops = variant == 5 ? 4096 : 16;
  if ((rc = ade_tape_create(&tape, &o)) != ADE_OK) return fail("create", rc);
  if ((rc = ade_trace_on(tape)) != ADE_OK) return fail("trace on", rc);
  if (variant == 4) lorenz_rk4(100);
  else model(variant == 1 ? 12 : variant == 5 ? 40000 : 40, variant == 3 ? 1 : 2);
  rc = ade_trace_off();
  ade_tape_free(tape);
  return rc < 0 ? fail("trace off", rc) : 0;
}
