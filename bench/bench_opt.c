/* bench_opt.c: every optimizer's fma and time on the Jacobian benchmark problems (bench_jacobian's sizes) and on the papers' graphs. */
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

/* Usage: bench_opt [SECONDS [THREADS]] [NAME...]: the time limit of each
 * search (default 10), the threads of branch and bound (default 2), and
 * the graphs (lion, bat, dp-figure-6, motivating, die, chebyquad, bratu2d,
 * cavity, roe) or optimizer variants (bnb-vertex, ...) to run (default: all).
 * The problems run at the sizes and points of bench_jacobian. */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench_opt: %s: %s\n", what, ade_errmsg());
  exit(1);
}

/* The c-graph of a problem of jacobian_problems.h, recorded as bench_jacobian does. */
static ade_cgraph *problem(const struct bj_problem *p) {
  ade_tape *t = NULL;
  ade_double *x = calloc(p->n, sizeof *x), *f = calloc(p->m, sizeof *f), *w = calloc(p->nwork + 1, sizeof *w);
  if (!x || !f || !w) die("memory");
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) die("tape");
  for (size_t k = 0; k < p->n; k++) x[k] = ade_indep(p->x[k]);
  rec_eval(p, x, w, f);
  for (size_t i = 0; i < p->m; i++) ade_dep(f[i]);
  if (ade_trace_off()) die("recording");
  ade_cgraph *g = NULL;
  if (ade_cgraph_from_tape(&g, t, NULL)) die("c-graph");
  ade_tape_free(t);
  free(x);
  free(f);
  free(w);
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

static int wanted(int argc, char **argv, const char *name, int variants) {
  int any = 0;
  for (int i = 1; i < argc; i++) {
    int kind, isvar = ade_opt_parse(argv[i], &kind) >= 0;
    if (strtod(argv[i], NULL) > 0 || isvar != variants) continue;
    any = 1;
    if (!strcmp(argv[i], name)) return 1;
  }
  return !any;
}

static void run(const char *name, const ade_cgraph *g, double limit, int threads, int argc, char **argv) {
  size_t nv, ne;
  ade_elim_seq *s = NULL;
  ade_cgraph_size(g, &nv, &ne, NULL, NULL);
  if (ade_elim_order(g, ADE_ORDER_VERTEX_MARKOWITZ, &s)) die("V_LM");
  uint64_t lm = ade_seq_cost(s), best = UINT64_MAX;
  double besttime = 0;
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
    if (!wanted(argc, argv, label, 1)) continue;
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
    if (r.cost < best || (r.cost == best && t < besttime)) best = r.cost, besttime = t, bestname = label;
    ade_seq_free(s);
  }
  printf("\nbest: %s, %" PRIu64 " fma in %.3f s, %.2fx cheaper than V_LM\n", bestname, best, besttime,
         (double)lm / (double)best);
}

int main(int argc, char **argv) {
  double limit = 10.0;
  int threads = 2, nnum = 0;
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress of long runs */
  for (int i = 1; i < argc; i++)
    if (strtod(argv[i], NULL) > 0) {
      if (nnum++) threads = atoi(argv[i]);
      else limit = atof(argv[i]);
    }
  const char *name;
  for (int k = 0; k < 4; k++) {
    ade_cgraph *g = paper(k, &name);
    if (wanted(argc, argv, name, 0)) run(name, g, limit, threads, argc, argv);
    ade_cgraph_free(g);
  }
  for (int id = 0; id <= BJ_ROE; id++) { /* the five of doc/benchmarks.md's optimizer tables */
    struct bj_problem p;
    bj_problem_init(&p, id); /* every one, so that Roe's states are bench_jacobian's */
    if (wanted(argc, argv, p.name, 0)) {
      ade_cgraph *g = problem(&p);
      run(p.name, g, limit, threads, argc, argv);
      ade_cgraph_free(g);
    }
    free(p.x);
  }
  return 0;
}
