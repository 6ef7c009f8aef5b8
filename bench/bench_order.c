/* bench_order.c: time every elimination ordering against the size of the c-graph (Lorenz-63 RK4 tapes of growing length).
 *
 * Usage: bench_order [MAXSTEPS [LIMIT [SAVE.adt]]]
 *   steps 100, 200, 500, 1000, 2000, ... up to MAXSTEPS (default 10000);
 *   CPU seconds (fma) of each ordering, which gets LIMIT seconds (default
 *   60, ade_elim_order_limited; "L" marks a run that hit it); SAVE.adt:
 *   also save the 100-step tape there. bench/order_plot.sh plots the
 *   table (both axes logarithmic).
 *        bench_order --cpu LIMIT [TAPE.adt...]
 *   every ordering on the Jacobian benchmark problems (bench_jacobian's
 *   sizes and points) and on each TAPE: CPU seconds of the process (the
 *   figure to compare on a loaded machine) and fma.
 *        bench_order --worse LIMIT [TAPE.adt...]
 *   every edge and face ordering (ade_elim_order_native) and the
 *   hierarchies of every kind (ade_optimize) against vertex-markowitz in
 *   fma on the Jacobian benchmark problems and each TAPE, each ordering
 *   within LIMIT seconds (0: none; "L" marks a run that reached it or the
 *   memory limit): a row per graph,
 *   "worse" where an ordering costs more than vertex-markowitz.
 *        bench_order --save STEPS FILE.adt
 *   only write the Lorenz tape of STEPS steps to FILE.adt (bench_limits.sh).
 *        bench_order --save-problem NAME FILE.adt
 *   only write the tape of Jacobian benchmark problem NAME (die, ...,
 *   lorenz96) to FILE.adt, to try the CLI's methods on it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <adelim.h>

#include "bench_jacobian.h"

#define BJ_REAL ade_double
#define BJ_FN(name) rec_##name
#define BJ_CONST(v) ade_passive(v)
#include "jacobian_problems.h"

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
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

/* One row: every ordering on g, CPU seconds and fma. */
static void cpu_row(const char *name, const ade_cgraph *g, double limit) {
  size_t ne = 0;
  ade_cgraph_size(g, NULL, &ne, NULL, NULL);
  printf("%-14s %-9zu", name, ne);
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ade_elim_seq *s = NULL;
    int limited = 0;
    double t0 = cpu();
    int st = ade_elim_order_limited(g, o, limit, &s, &limited);
    char cell[64];
    if (st) snprintf(cell, sizeof cell, "%s", ade_strerror(st));
    else snprintf(cell, sizeof cell, "%.3f%s (%llu)", cpu() - t0, limited ? "L" : "", (unsigned long long)ade_seq_cost(s));
    printf(" %22s", cell);
    fflush(stdout);
    ade_seq_free(s);
  }
  printf("\n");
}

/* Problem id's tape, recorded at its benchmark point, or NULL. */
static ade_tape *problem_tape(int id) {
  struct bj_problem p;
  ade_tape *t = NULL;
  bj_problem_init(&p, id);
  ade_double *x = calloc(p.n, sizeof *x), *f = calloc(p.m, sizeof *f), *w = calloc(p.nwork + 1, sizeof *w);
  int ok = x && f && w && !ade_tape_create(&t, NULL) && !ade_trace_on(t);
  if (ok) {
    for (size_t k = 0; k < p.n; k++) x[k] = ade_indep(p.x[k]);
    rec_eval(&p, x, w, f);
    for (size_t i = 0; i < p.m; i++) ade_dep(f[i]);
    ok = !ade_trace_off();
  }
  if (!ok) ade_tape_free(t), t = NULL;
  free(x);
  free(f);
  free(w);
  free(p.x);
  return t;
}

static ade_cgraph *problem_graph(int id) {
  ade_tape *t = problem_tape(id);
  ade_cgraph *g = NULL;
  if (t && ade_cgraph_from_tape(&g, t, NULL)) g = NULL;
  ade_tape_free(t);
  return g;
}

static int cpu_table(int argc, char **argv) {
  double limit = argc > 2 ? atof(argv[2]) : 60;
  printf("# bench_order --cpu: CPU seconds (fma) per ordering, limit %g s\n%-14s %-9s", limit, "graph", "edges");
  for (int o = 0; o < ADE_ORDER_COUNT; o++) printf(" %22s", ade_order_name(o));
  printf("\n");
  for (int id = 0; id < BJ_NPROBLEMS + argc - 3; id++) {
    ade_tape *t = NULL;
    ade_cgraph *g = NULL;
    const char *name = id < BJ_NPROBLEMS ? bj_problem_names[id] : argv[3 + id - BJ_NPROBLEMS];
    if (id < BJ_NPROBLEMS) g = problem_graph(id);
    else if (ade_tape_open(&t, name) || ade_cgraph_from_tape(&g, t, NULL)) g = NULL;
    if (!g) {
      fprintf(stderr, "bench_order: %s: %s\n", name, ade_errmsg());
      return 1;
    }
    cpu_row(id < BJ_NPROBLEMS ? name : strrchr(name, '/') ? strrchr(name, '/') + 1 : name, g, limit);
    ade_cgraph_free(g);
    ade_tape_free(t);
  }
  return 0;
}

/* The hierarchies of --worse: every kind (ade_optimize). */
static const int hier_kinds[] = {ADE_SEQ_VERTEX, ADE_SEQ_EDGE, ADE_SEQ_FACE};
static const char *const hier_names[] = {"hier-vertex", "hier-edge", "hier-face"};

/* One row of --worse: vertex-markowitz, then every edge and face ordering
 * (ade_elim_order_native: the fma of ade_elim_order_limited, and a face
 * run over the memory limit dropped, limited, rather than a failure) and
 * the hierarchies with their fma; the flag names those above
 * vertex-markowitz. Returns the number of them (-1: an ordering failed). */
static int worse_row(const char *name, const ade_cgraph *g, double limit) {
  size_t ne = 0;
  uint64_t vm = 0;
  char flag[256] = "";
  int bad = 0;
  ade_cgraph_size(g, NULL, &ne, NULL, NULL);
  printf("%-16s %9zu", name, ne);
  for (int o = ADE_ORDER_VERTEX_MARKOWITZ; o < ADE_ORDER_COUNT + 3; o++) {
    ade_elim_seq *s = NULL;
    if (o == ADE_ORDER_VERTEX_RELATIVE) continue;
    int limited = 0, st;
    if (o < ADE_ORDER_COUNT) {
      st = ade_elim_order_native(g, o, limit, &s, &limited);
    } else { /* the hierarchies */
      ade_opt_limits lim;
      ade_opt_report r;
      ade_opt_limits_init(&lim);
      lim.time_limit = limit;
      st = ade_optimize(g, hier_kinds[o - ADE_ORDER_COUNT], ADE_OPT_HIERARCHY, &lim, &s, &r);
      limited = !st && r.limited;
    }
    if (st) { /* the cell says why (a face ordering's dual over the memory limit) */
      printf(" %14s", ade_strerror(st));
      continue;
    }
    uint64_t c = ade_seq_cost(s);
    char cell[32];
    ade_seq_free(s);
    if (o == ADE_ORDER_VERTEX_MARKOWITZ) vm = c;
    else if (c > vm) {
      bad++;
      snprintf(flag + strlen(flag), sizeof flag - strlen(flag), "%s%s", bad > 1 ? "," : "",
               o < ADE_ORDER_COUNT ? ade_order_name(o) : hier_names[o - ADE_ORDER_COUNT]);
    }
    snprintf(cell, sizeof cell, "%llu%s", (unsigned long long)c, limited ? "L" : "");
    printf(" %14s", cell);
    fflush(stdout);
  }
  printf("  %s%s\n", bad ? "worse: " : "ok", flag);
  return bad;
}

/* --worse [TAPE...]: the table of worse_row over the bench problems and the tapes. */
static int worse_table(int argc, char **argv) {
  int total = 0;
  double limit = argc > 2 ? atof(argv[2]) : 0;
  printf("# bench_order --worse: fma of vertex-markowitz, every edge and face ordering and the hierarchies, "
         "limit %g s\n"
         "%-16s %9s", limit, "graph", "edges");
  for (int o = ADE_ORDER_VERTEX_MARKOWITZ; o < ADE_ORDER_COUNT; o++)
    if (o != ADE_ORDER_VERTEX_RELATIVE) printf(" %14s", ade_order_name(o));
  for (int k = 0; k < 3; k++) printf(" %14s", hier_names[k]);
  printf("  flag\n");
  for (int id = 0; id < BJ_NPROBLEMS + argc - 3; id++) {
    ade_tape *t = NULL;
    ade_cgraph *g = NULL;
    const char *name = id < BJ_NPROBLEMS ? bj_problem_names[id] : argv[3 + id - BJ_NPROBLEMS];
    if (id < BJ_NPROBLEMS) g = problem_graph(id);
    else if (ade_tape_open(&t, name) || ade_cgraph_from_tape(&g, t, NULL)) g = NULL;
    if (!g) {
      fprintf(stderr, "bench_order: %s: %s\n", name, ade_errmsg());
      return 1;
    }
    int w = worse_row(id < BJ_NPROBLEMS ? name : strrchr(name, '/') ? strrchr(name, '/') + 1 : name, g, limit);
    total += w < 0 ? 0 : w;
    ade_cgraph_free(g);
    ade_tape_free(t);
  }
  printf("# %d ordering%s worse than vertex-markowitz\n", total, total == 1 ? "" : "s");
  return 0;
}

/* --save STEPS FILE: the Lorenz tape of STEPS steps, saved. */
static int save_tape(int argc, char **argv) {
  int problem = !strcmp(argv[1], "--save-problem"), id = 0;
  while (problem && argc == 4 && id < BJ_NPROBLEMS && strcmp(argv[2], bj_problem_names[id])) id++;
  if (id == BJ_NPROBLEMS) fprintf(stderr, "bench_order: no problem %s\n", argv[2]);
  ade_tape *t = argc != 4 || id == BJ_NPROBLEMS ? NULL : problem ? problem_tape(id) : lorenz_tape(atoi(argv[2]));
  int st = t ? ade_tape_save(t, argv[3]) : -1;
  if (st) fprintf(stderr, "bench_order: %s: %s\n", argv[1], t ? ade_errmsg() : "cannot record");
  ade_tape_free(t);
  return st ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--cpu")) return cpu_table(argc, argv);
  if (argc > 1 && (!strcmp(argv[1], "--save") || !strcmp(argv[1], "--save-problem"))) return save_tape(argc, argv);
  if (argc > 1 && !strcmp(argv[1], "--worse")) return worse_table(argc, argv);
  long maxsteps = argc > 1 ? atol(argv[1]) : 10000;
  double limit = argc > 2 ? atof(argv[2]) : 60;
  printf("# bench_order: Lorenz-63 RK4, CPU seconds (fma) per ordering, limit %g s\n", limit);
  printf("%-8s %-9s", "steps", "edges");
  for (int o = 0; o < ADE_ORDER_COUNT; o++) printf(" %18s", ade_order_name(o));
  printf("\n");
  /* 1, 2, 5 per decade, so that a log-log plot has points between them */
  for (long steps = 100, k = 0; steps <= maxsteps; steps = k % 3 == 1 ? steps / 2 * 5 : steps * 2, k++) {
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
      double t0 = cpu();
      int st = ade_elim_order_limited(g, o, limit, &s, &limited);
      char cell[64];
      if (st) { /* one word, so that order_plot.sh's columns stay in place */
        snprintf(cell, sizeof cell, "%s", ade_strerror(st));
        for (char *c = cell; *c; c++)
          if (*c == ' ') *c = '_';
      } else snprintf(cell, sizeof cell, "%.3f%s (%llu)", cpu() - t0, limited ? "L" : "", (unsigned long long)ade_seq_cost(s));
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
