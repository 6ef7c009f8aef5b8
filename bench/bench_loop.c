/* bench_loop.c: derivatives in a loop: the cost of a plan cache hit and of a Jacobian loop against the plan's own run, and the automatic method's fma.
 *
 * Usage: bench_loop [-b SECONDS] [NAME...]   (timing budget per figure,
 * default 0.5; problems whose name starts with a NAME, default all)
 *
 * For each problem: the fma of the automatic method and of its candidates;
 * then, each the minimum over repetitions, the two calls of a line
 * alternated (doc/benchmarks.md):
 *   own      ade_elim_plan_jacobian(p, t, NULL, J): the plan run by hand
 *   hit      ade_jacobian(t, ADE_ELIM_AUTO, {.cache}) finding the plan
 *   fresh    the same two on a tape just recorded (the Newton-loop case:
 *            record, then the Jacobian; recording not timed)
 *   at x     ade_elim_plan_jacobian at a new x vs ade_jacobian_loop_eval
 *   nocache  ade_jacobian(t, ADE_ELIM_AUTO, NULL): graph and choice each call */
#include <adelim.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(int st, const char *what) {
  if (st >= 0) return;
  fprintf(stderr, "bench_loop: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  exit(1);
}

/* ------------------------------------------------------------ problems */

/* The PDE example's stepper (examples/pde_sim.h). */
struct pde {
  int n, steps;
  double dx, dt, lam, eps;
};
#define real ade_double
#define REAL_C(c) ade_passive(c)
#define PDE(name) name##_a
#define PART(name, code) code /* newer pde_sim.h: regions, not needed here */
#include "../examples/pde_sim.h"

typedef struct problem {
  const char *name;
  int n, m;
  void (*f)(const struct problem *p, const ade_double *x, ade_double *y);
  int grid, steps;
} problem;

static void pde_f(const problem *p, const ade_double *x, ade_double *y) {
  struct pde q = {p->n, p->steps, 1.0 / (p->n + 1), 0, 2.0, 0.1};
  q.dt = 0.25 * q.dx * q.dx / 2;
  ade_double *u = malloc(sizeof *u * (size_t)(p->n + 2)), *w = malloc(sizeof *w * (size_t)(p->n + 2));
  for (int i = 0; i < p->n; i++) u[i + 1] = x[i];
  y[0] = run_a(&q, u, w);
  free(u);
  free(w);
}

/* Bratu on a grid x grid square: 5-point Laplacian + lambda exp(u). */
static void bratu_f(const problem *p, const ade_double *x, ade_double *y) {
  int g = p->grid;
  double h2 = 1.0 / ((g + 1.0) * (g + 1.0));
  for (int i = 0; i < g; i++)
    for (int j = 0; j < g; j++) {
      ade_double c = x[i * g + j], s = ADE_MUL(-4.0, c);
      if (i > 0) s = ADE_ADD(s, x[(i - 1) * g + j]);
      if (i < g - 1) s = ADE_ADD(s, x[(i + 1) * g + j]);
      if (j > 0) s = ADE_ADD(s, x[i * g + j - 1]);
      if (j < g - 1) s = ADE_ADD(s, x[i * g + j + 1]);
      y[i * g + j] = ADE_ADD(ADE_DIV(s, h2), ADE_MUL(6.8, ADE_EXP(c)));
    }
}

/* A dense map: y_i = sum_j sin(x_j + i) x_i (every output on every input). */
static void dense_f(const problem *p, const ade_double *x, ade_double *y) {
  ade_double *c = malloc(sizeof *c * (size_t)p->n);
  for (int j = 0; j < p->n; j++) c[j] = ADE_MUL(x[j], x[j]);
  for (int i = 0; i < p->m; i++) {
    ade_double s = ADE_SIN(ADE_ADD(x[0], (double)i));
    for (int j = 1; j < p->n; j++) s = ADE_ADD(s, ADE_MUL(c[j], ADE_COS(ADE_ADD(x[j], 0.1 * i))));
    y[i] = ADE_MUL(s, x[i % p->n]);
  }
  free(c);
}

static ade_tape *record(const problem *p, const double *x) {
  ade_tape *t = NULL;
  ade_double *v = malloc(sizeof *v * (size_t)p->n), *y = malloc(sizeof *y * (size_t)p->m);
  die(ade_tape_create(&t, NULL), "ade_tape_create");
  die(ade_trace_on(t), "ade_trace_on");
  for (int i = 0; i < p->n; i++) v[i] = ade_indep(x[i]);
  p->f(p, v, y);
  for (int i = 0; i < p->m; i++) ade_dep(y[i]);
  die(ade_trace_off(), "ade_trace_off");
  free(v);
  free(y);
  return t;
}

/* ------------------------------------------------------------- timing */

static double budget = 0.5;

/* Minimum seconds of one call of what(ctx), over repetitions while the
 * budget lasts (at least 5); setup(ctx) runs untimed before each. */
typedef struct ctx {
  const problem *p;
  ade_tape *t;
  ade_elim_plan *plan;
  ade_plan_cache *cache;
  ade_jacobian_loop *loop;
  ade_sparse *J;
  double *x, *x2;
} ctx;

static double timed(ctx *c, void (*setup)(ctx *), void (*what)(ctx *)) {
  double best = INFINITY, start = now();
  for (int k = 0; k < 5 || (now() - start < budget && k < 100000); k++) {
    if (setup) setup(c);
    double t0 = now();
    what(c);
    double dt = now() - t0;
    if (dt < best) best = dt;
  }
  return best;
}

/* The same for two calls, alternated repetition by repetition (each after
 * its own setup), so that both see the same machine: best[0], best[1]. */
static void timed_pair(ctx *c, void (*setup)(ctx *), void (*a)(ctx *), void (*b)(ctx *), double best[2]) {
  double start = now();
  best[0] = best[1] = INFINITY;
  for (int k = 0; k < 5 || (now() - start < 2 * budget && k < 100000); k++)
    for (int i = 0; i < 2; i++) {
      if (setup) setup(c);
      double t0 = now();
      (i ? b : a)(c);
      double dt = now() - t0;
      if (dt < best[i]) best[i] = dt;
    }
}

static void fresh_tape(ctx *c) {
  ade_tape_free(c->t);
  c->t = record(c->p, c->x);
}
static void run_own(ctx *c) { die(ade_elim_plan_jacobian(c->plan, c->t, NULL, c->J), "plan"); }
static void run_hit(ctx *c) {
  ade_jacobian_options o = {NULL, 0, c->cache, 0, NULL, NULL, NULL, NULL, 0, 0};
  ade_sparse *J = NULL;
  die(ade_jacobian(c->t, ADE_ELIM_AUTO, &o, &J, NULL), "ade_jacobian (cache)");
  ade_sparse_free(J);
}
static void run_own_x(ctx *c) { die(ade_elim_plan_jacobian(c->plan, c->t, c->x2, c->J), "plan at x"); }
static void run_loop_x(ctx *c) { die(ade_jacobian_loop_eval(c->loop, c->x2, NULL), "loop"); }
static void run_nocache(ctx *c) {
  ade_sparse *J = NULL;
  die(ade_jacobian(c->t, ADE_ELIM_AUTO, NULL, &J, NULL), "ade_jacobian");
  ade_sparse_free(J);
}

/* ------------------------------------------------------------- figures */

static void methods(ade_tape *t) {
  static const int m[] = {ADE_ELIM_AUTO, ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_VERTEX_RELATIVE,
                          ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_REVERSE, ADE_ELIM_CPR_FORWARD,
                          ADE_ELIM_CPR_REVERSE};
  ade_jacobian_report r;
  for (size_t k = 0; k < sizeof m / sizeof *m; k++) {
    ade_sparse *J = NULL;
    die(ade_jacobian(t, m[k], NULL, &J, &r), ade_elim_method_name(m[k]));
    if (k == 0)
      printf("  fma: forward vector mode n|E| %llu, reverse m|E| %llu\n  fma: auto %llu (chose %s, %.3f s)",
             (unsigned long long)r.forward_cost, (unsigned long long)r.reverse_cost, (unsigned long long)r.fma,
             ade_elim_method_name(r.method), r.seconds);
    else printf("%s %s %llu", k % 3 == 1 ? "\n      " : ",", ade_elim_method_name(m[k]), (unsigned long long)r.fma);
    ade_sparse_free(J);
  }
  printf("\n");
}

static void bench(const problem *p) {
  ctx c = {p, NULL, NULL, NULL, NULL, NULL, malloc(sizeof(double) * (size_t)p->n), malloc(sizeof(double) * (size_t)p->n)};
  for (int i = 0; i < p->n; i++) c.x[i] = 0.3 + 0.4 * sin(1.0 + i), c.x2[i] = c.x[i] * 1.01;
  c.t = record(p, c.x);
  ade_stats s;
  die(ade_tape_stats(c.t, &s), "stats");
  printf("%s: n %d, m %d, %llu records\n", p->name, p->n, p->m, (unsigned long long)s.records);
  methods(c.t);
  die(ade_plan_cache_create(&c.cache, 4), "cache");
  die(ade_plan_cache_get(c.cache, c.t, ADE_ELIM_AUTO, &c.plan, NULL, NULL), "cache get");
  die(ade_elim_plan_pattern(c.plan, &c.J), "pattern");
  die(ade_jacobian_loop_create(&c.loop, c.t, ADE_ELIM_AUTO, c.cache), "loop");
  double b[2], hit;
  timed_pair(&c, NULL, run_own, run_hit, b);
  hit = b[1];
  printf("  same tape:  own %.3e s, cache hit %.3e s, ratio %.3f\n", b[0], b[1], b[1] / b[0]);
  ade_jacobian_loop_free(c.loop); /* it holds the tape that fresh_tape replaces */
  timed_pair(&c, fresh_tape, run_own, run_hit, b);
  printf("  fresh tape: own %.3e s, cache hit %.3e s, ratio %.3f\n", b[0], b[1], b[1] / b[0]);
  die(ade_jacobian_loop_create(&c.loop, c.t, ADE_ELIM_AUTO, c.cache), "loop");
  timed_pair(&c, NULL, run_own_x, run_loop_x, b);
  printf("  at a new x: own %.3e s, loop eval %.3e s, ratio %.3f\n", b[0], b[1], b[1] / b[0]);
  double saved = budget;
  budget = 0;
  double nc = timed(&c, NULL, run_nocache);
  budget = saved;
  printf("  without a cache: ade_jacobian %.3e s (%.0f x the hit)\n", nc, nc / hit);
  ade_jacobian_loop_free(c.loop);
  ade_elim_plan_free(c.plan);
  ade_plan_cache_free(c.cache);
  ade_sparse_free(c.J);
  ade_tape_free(c.t);
  free(c.x);
  free(c.x2);
}

int main(int argc, char **argv) {
  int a = 1;
  if (argc > 2 && !strcmp(argv[1], "-b")) budget = atof(argv[2]), a = 3;
  if (!(budget >= 0) || (a < argc && argv[a][0] == '-')) {
    fprintf(stderr, "usage: bench_loop [-b SECONDS] [NAME...]\n");
    return 2;
  }
  const problem probs[] = {
      {"pde (64 points, 200 steps)", 64, 1, pde_f, 0, 200},
      {"pde (64 points, 20 steps)", 64, 1, pde_f, 0, 20},
      {"bratu (32 x 32)", 1024, 1024, bratu_f, 32, 0},
      {"dense (40 x 40)", 40, 40, dense_f, 0, 0},
  };
  for (size_t k = 0; k < sizeof probs / sizeof *probs; k++) {
    int want = a == argc;
    for (int i = a; i < argc; i++) want |= !strncmp(probs[k].name, argv[i], strlen(argv[i]));
    if (want) bench(&probs[k]);
  }
  return 0;
}
