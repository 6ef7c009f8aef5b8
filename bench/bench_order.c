/* bench_order.c: time every elimination ordering against the size of the c-graph (Lorenz-63 RK4 tapes of growing length).
 *
 * Usage: bench_order [MAXSTEPS [LIMIT [SAVE.adt]]]
 *   steps 100, 1000, ... up to MAXSTEPS (default 10000); each ordering gets
 *   LIMIT seconds (default 60, ade_elim_order_limited; "limited" marks a
 *   run that hit it); SAVE.adt: also save the 100-step tape there. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <adelim.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* dx/dt = sigma (y - x), dy/dt = x (rho - z) - y, dz/dt = x y - beta z. */
static void lorenz(const ade_double *u, ade_double *f) {
  ade_double sigma = ade_passive(10.0), rho = ade_passive(28.0), beta = ade_passive(8.0 / 3.0);
  f[0] = ade_mul(sigma, ade_sub(u[1], u[0]));
  f[1] = ade_sub(ade_mul(u[0], ade_sub(rho, u[2])), u[1]);
  f[2] = ade_sub(ade_mul(u[0], u[1]), ade_mul(beta, u[2]));
}

/* u + h k, componentwise. */
static void axpy(const ade_double *u, double h, const ade_double *k, ade_double *r) {
  for (int i = 0; i < 3; i++) r[i] = ade_add(u[i], ade_mul(ade_passive(h), k[i]));
}

/* The tape of `steps` classical Runge-Kutta steps of dt = 0.01 from
 * (1.2, 0.8, 20.5): 3 independents, 3 dependents. */
static ade_tape *lorenz_tape(int steps) {
  ade_tape *t = NULL;
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) return NULL;
  const double dt = 0.01, x0[3] = {1.2, 0.8, 20.5};
  ade_double u[3], k1[3], k2[3], k3[3], k4[3], w[3];
  for (int i = 0; i < 3; i++) u[i] = ade_indep(x0[i]);
  for (int s = 0; s < steps; s++) {
    lorenz(u, k1);
    axpy(u, dt / 2, k1, w);
    lorenz(w, k2);
    axpy(u, dt / 2, k2, w);
    lorenz(w, k3);
    axpy(u, dt, k3, w);
    lorenz(w, k4);
    for (int i = 0; i < 3; i++) {
      ade_double sum = ade_add(ade_add(k1[i], ade_mul(ade_passive(2.0), k2[i])),
                               ade_add(ade_mul(ade_passive(2.0), k3[i]), k4[i]));
      u[i] = ade_add(u[i], ade_mul(ade_passive(dt / 6), sum));
    }
  }
  for (int i = 0; i < 3; i++) ade_dep(u[i]);
  if (ade_trace_off()) {
    ade_tape_free(t);
    return NULL;
  }
  return t;
}

int main(int argc, char **argv) {
  long maxsteps = argc > 1 ? atol(argv[1]) : 10000;
  double limit = argc > 2 ? atof(argv[2]) : 60;
  printf("# bench_order: Lorenz-63 RK4, seconds (fma) per ordering, limit %g s\n", limit);
  printf("%-8s %-9s", "steps", "edges");
  for (int o = 0; o < ADE_ORDER_COUNT; o++) printf(" %18s", ade_order_name(o));
  printf("\n");
  for (long steps = 100; steps <= maxsteps; steps *= 10) {
    ade_tape *t = lorenz_tape((int)steps);
    ade_cgraph *g = NULL;
    size_t ne = 0;
    if (!t || ade_cgraph_from_tape(&g, t, NULL)) {
      fprintf(stderr, "bench_order: %s\n", ade_errmsg());
      return 1;
    }
    if (steps == 100 && argc > 3 && ade_tape_save(t, argv[3])) fprintf(stderr, "bench_order: %s\n", ade_errmsg());
    ade_cgraph_size(g, NULL, &ne, NULL, NULL);
    printf("%-8ld %-9zu", steps, ne);
    for (int o = 0; o < ADE_ORDER_COUNT; o++) {
      ade_elim_seq *s = NULL;
      int limited = 0;
      double t0 = now();
      int st = ade_elim_order_limited(g, o, limit, &s, &limited);
      char cell[64];
      if (st) snprintf(cell, sizeof cell, "%s", ade_strerror(st));
      else snprintf(cell, sizeof cell, "%.3f%s (%llu)", now() - t0, limited ? "L" : "", (unsigned long long)ade_seq_cost(s));
      printf(" %18s", cell);
      fflush(stdout);
      ade_seq_free(s);
    }
    printf("\n");
    ade_cgraph_free(g);
    ade_tape_free(t);
  }
  return 0;
}
