/* bench_opt.c: every optimizer's fma and time on small instances of the Jacobian benchmark problems and on the papers' graphs. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
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

/* Build (doc/benchmarks.md, "Optimizers"):
 *   cc -O2 -std=c11 -Iinclude -Ibench bench/bench_opt.c .libs/libadelim.so -lm -o bench/bench_opt
 * Usage: bench_opt [SECONDS [THREADS]]: the time limit of each search
 * (default 10) and the threads of branch and bound (default 2). */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench_opt: %s: %s\n", what, ade_errmsg());
  exit(1);
}

/* A small instance of a problem of jacobian_problems.h, recorded at a point
 * inside its domain. */
static ade_cgraph *problem(int id, size_t size, const char **name) {
  struct bj_problem p;
  memset(&p, 0, sizeof p);
  p.id = id;
  switch (id) {
  case BJ_DIE: p.name = "die", p.n = p.m = size; break;
  case BJ_CHEBYQUAD: p.name = "chebyquad", p.n = p.m = size; break;
  case BJ_BRATU: p.name = "bratu", p.grid = size, p.param = 6.0, p.n = p.m = size * size; break;
  case BJ_CAVITY:
    p.name = "cavity", p.grid = size, p.param = 100.0, p.n = p.m = size * size;
    p.nwork = (size + 4) * (size + 4) + (size + 2) * (size + 2);
    break;
  default: p.name = "roe", p.grid = size, p.n = 10 * size, p.m = 5 * size;
  }
  ade_tape *t = NULL;
  ade_double *x = calloc(p.n, sizeof *x), *f = calloc(p.m, sizeof *f), *w = calloc(p.nwork + 1, sizeof *w);
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) die("tape");
  for (size_t k = 0; k < p.n; k++) {
    double v = 0.3 + 0.4 * (double)(k % 7) / 7.0;
    if (id == BJ_ROE) v = k % 5 == 0 ? 1.0 + 0.1 * (double)(k % 3) : k % 5 == 4 ? 2.5 + 0.1 * (double)(k % 2) : 0.1 * (double)(k % 4);
    x[k] = ade_indep(v);
  }
  rec_eval(&p, x, w, f);
  for (size_t i = 0; i < p.m; i++) ade_dep(f[i]);
  if (ade_trace_off()) die("recording");
  ade_cgraph *g = NULL;
  if (ade_cgraph_from_tape(&g, t, NULL)) die("c-graph");
  ade_tape_free(t);
  free(x);
  free(f);
  free(w);
  *name = p.name;
  return g;
}

static ade_cgraph *edges(size_t n, const long *x, size_t m, const long *y, size_t ne, const long (*e)[2]) {
  long src[32], dst[32];
  for (size_t k = 0; k < ne; k++) src[k] = e[k][0], dst[k] = e[k][1];
  ade_cgraph *g = NULL;
  if (ade_cgraph_from_edges(&g, n, x, m, y, ne, src, dst, NULL)) die("graph");
  return g;
}

/* The lion, the bat, Figure 6 of the DP paper, the motivating example. */
static ade_cgraph *paper(int which, const char **name) {
  static const long lx[] = {-1, 0}, ly[] = {3, 4, 5, 6};
  static const long le[][2] = {{-1, 1}, {0, 1}, {1, 2}, {1, 6}, {2, 3}, {2, 4}, {2, 5}, {2, 6}};
  static const long bx[] = {-3, -2, -1, 0}, by[] = {4, 5, 6, 7};
  static const long be[][2] = {{-3, 1}, {-2, 1}, {-1, 2}, {0, 2}, {1, 3}, {2, 3},
                               {3, 4},  {3, 5},  {3, 6},  {3, 7}, {1, 4}, {2, 7}};
  static const long fx[] = {-2, -1, 0}, fy[] = {4, 5, 6};
  static const long fe[][2] = {{-2, 2}, {-2, 3}, {-1, 1}, {0, 1}, {1, 2}, {1, 3},
                               {2, 4},  {2, 5},  {2, 6},  {3, 4}, {3, 5}, {3, 6}};
  static const long mx[] = {-1, 0}, my[] = {4, 5};
  static const long me[][2] = {{-1, 1}, {0, 1}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {3, 5}};
  switch (which) {
  case 0: *name = "lion"; return edges(2, lx, 4, ly, 8, le);
  case 1: *name = "bat"; return edges(4, bx, 4, by, 12, be);
  case 2: *name = "dp-figure-6"; return edges(3, fx, 3, fy, 12, fe);
  default: *name = "motivating"; return edges(2, mx, 2, my, 7, me);
  }
}

static void run(const char *name, const ade_cgraph *g, double limit, int threads) {
  size_t nv, ne;
  ade_elim_seq *s = NULL;
  ade_cgraph_size(g, &nv, &ne, NULL, NULL);
  if (ade_elim_order(g, ADE_ORDER_VERTEX_MARKOWITZ, &s)) die("V_LM");
  uint64_t lm = ade_seq_cost(s), best = UINT64_MAX;
  const char *bestname = "";
  ade_seq_free(s);
  printf("\n%s: %zu vertices, %zu edges; vertex-markowitz (V_LM) %" PRIu64 " fma\n\n", name, nv, ne, lm);
  printf("| optimizer | fma | V_LM / fma | proven | lower bound | time (s) |\n|---|--:|--:|:-:|--:|--:|\n");
  for (size_t i = 0; i < ade_opt_num_variants(); i++) {
    int method, kind;
    const char *label;
    ade_opt_limits l;
    ade_opt_report r;
    ade_opt_variant(i, &method, &kind, &label);
    ade_opt_limits_init(&l);
    l.time_limit = limit;
    l.threads = threads;
    double t0 = now();
    int st = ade_optimize(g, kind, method, &l, &s, &r);
    double t = now() - t0;
    if (st) {
      printf("| %s | - | - | - | - | %.3f (%s) |\n", label, t, ade_errname(st));
      continue;
    }
    printf("| %s | %" PRIu64 " | %.2f | %s | %" PRIu64 " | %.3f |\n", label, r.cost, (double)lm / (double)r.cost,
           r.optimal ? "yes" : "no", r.bound, t);
    if (r.cost < best) best = r.cost, bestname = label;
    ade_seq_free(s);
  }
  printf("\nbest: %s, %" PRIu64 " fma, %.2fx cheaper than V_LM\n", bestname, best, (double)lm / (double)best);
}

int main(int argc, char **argv) {
  double limit = argc > 1 ? atof(argv[1]) : 10.0;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  const char *name;
  for (int k = 0; k < 4; k++) {
    ade_cgraph *g = paper(k, &name);
    run(name, g, limit, threads);
    ade_cgraph_free(g);
  }
  static const struct {
    int id;
    size_t size;
  } probs[] = {{BJ_DIE, 6}, {BJ_CHEBYQUAD, 5}, {BJ_CHEBYQUAD, 8}, {BJ_BRATU, 4}, {BJ_CAVITY, 3}, {BJ_ROE, 1}};
  for (size_t k = 0; k < sizeof probs / sizeof *probs; k++) {
    ade_cgraph *g = problem(probs[k].id, probs[k].size, &name);
    char label[64];
    snprintf(label, sizeof label, "%s (size %zu)", name, probs[k].size);
    run(label, g, limit, threads);
    ade_cgraph_free(g);
  }
  return 0;
}
