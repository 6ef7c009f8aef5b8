/* bench_parts.c: two-level (hierarchical) elimination over a tape's parts against flat elimination, the vector modes and ADOL-C's jacobian(), on the Jacobian benchmark problems and on tape files. See doc/benchmarks.md. */
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

/* Usage: bench_parts [-p KIND] [-k SAMPLES] [NAME|TAPE.adt ...]: the
 * partition (default auto), the timed samples (median, default 3), and the
 * problems of bench_jacobian or tape files (default: every problem).
 * Times are the thread's CPU time. */

static const char *kind_name = "auto";
static int samples = 3;

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench_parts: %s: %s\n", what, ade_errmsg());
  exit(1);
}

static void *xcalloc(size_t n, size_t s) {
  void *p = calloc(n ? n : 1, s);
  if (!p) die("memory");
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return t[n / 2];
}

/* A problem of jacobian_problems.h recorded at its point. */
static ade_tape *record(const struct bj_problem *p) {
  ade_tape *t = NULL;
  ade_double *x = xcalloc(p->n, sizeof *x), *f = xcalloc(p->m, sizeof *f), *w = xcalloc(p->nwork + 1, sizeof *w);
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) die("tape");
  for (size_t k = 0; k < p->n; k++) x[k] = ade_indep(p->x[k]);
  rec_eval(p, x, w, f);
  for (size_t i = 0; i < p->m; i++) ade_dep(f[i]);
  if (ade_trace_off()) die("recording");
  free(x);
  free(f);
  free(w);
  return t;
}

typedef struct row {
  const char *name;
  size_t n, m, edges, parts, classes;
  uint64_t fwd, rev, flat, best, local, outer, hier;
  const char *best_name;
  uint64_t mission;     /* the parts as vector elementals, planned by the mission planner ("best", 2 s) */
  int mission_st;
  double err_md;
  int inner_kind, outer_kind;
  double t_hier_opt, t_hier_jac, t_flat, t_adolc, err_hf, err_hd;
  int two_level, have_adolc;
} row;

/* max |A - B| / max |B| over the dense m x n matrices. */
static double relerr(const double *A, const double *B, size_t len) {
  double d = 0, s = 0;
  for (size_t k = 0; k < len; k++) {
    if (fabs(A[k] - B[k]) > d) d = fabs(A[k] - B[k]);
    if (fabs(B[k]) > s) s = fabs(B[k]);
  }
  return s > 0 ? d / s : d;
}

static void dense_of(const ade_sparse *J, double *D) {
  if (ade_sparse_to_dense(J, D)) die("dense");
}

/* The least fma of every ordering, each limited to 10 s (its vector sweep
 * when out of time); one that fails (a face ordering's dual graph over
 * the memory limit) is left out. */
static void best_ordering(row *r, const ade_cgraph *g) {
  r->best = UINT64_MAX;
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ade_elim_seq *s = NULL;
    if (ade_elim_order_limited(g, o, 10.0, &s, NULL)) continue; /* over the memory limit (a dual graph) */
    if (ade_seq_cost(s) < r->best) r->best = ade_seq_cost(s), r->best_name = ade_order_name(o);
    ade_seq_free(s);
  }
}

/* The mission of the same parts (ade_mission_from_tape: each run of a
 * part an elemental with its |E| per direction), planned by "best" within
 * 2 s and executed on the tape against dense forward mode; skipped
 * (ADE_ETOOBIG) above 500 parts. */
static void mission(row *r, ade_tape *t, const double *D) {
  ade_mission *d = NULL;
  ade_mplan *p = NULL;
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.time_limit = 2;
  double *J = xcalloc(r->n * r->m, sizeof *J);
  int st = r->parts > 500 ? ADE_ETOOBIG : ADE_OK; /* its greedy start takes minutes on bratu2d's 4096 parts */
  if (!st) st = ade_mission_from_tape(&d, t, ade_parts_parse(kind_name));
  if (!st) st = ade_mission_plan(d, ADE_MISSION_BEST, &l, &p);
  if (!st) st = ade_mission_tape_jacobian(p, d, t, NULL, J, NULL);
  r->mission_st = st;
  if (!st) r->mission = ade_mplan_cost(p), r->err_md = relerr(J, D, r->n * r->m);
  ade_mplan_free(p);
  ade_mission_free(d);
  free(J);
}

/* Parts, two levels and flat elimination; times are CPU, the median of samples. */
static void measure(row *r, ade_tape *t) {
  ade_stats s;
  ade_cgraph *g = NULL;
  ade_jacobian_baselines b;
  if (ade_tape_stats(t, &s)) die("stats");
  size_t nid = (size_t)s.records + 1, *part = xcalloc(nid, sizeof *part);
  if (ade_cgraph_from_tape(&g, t, NULL) || ade_cgraph_baselines(g, &b)) die("c-graph");
  best_ordering(r, g);
  r->n = b.n, r->m = b.m, r->edges = b.edges, r->fwd = b.dense_forward, r->rev = b.dense_reverse;
  double *th = xcalloc((size_t)samples, sizeof *th), *tj = xcalloc((size_t)samples, sizeof *tj);
  double *tf = xcalloc((size_t)samples, sizeof *tf);
  ade_elim_seq *seq = NULL;
  ade_parts_report pr;
  ade_sparse *Jh = NULL, *Jf = NULL;
  ade_jacobian_report jr;
  for (int k = 0; k < samples; k++) {
    double t0 = cpu();
    if (ade_tape_parts(t, ade_parts_parse(kind_name), part, nid, NULL)) die("parts");
    ade_seq_free(seq), seq = NULL;
    if (ade_optimize_parts(g, part, nid, -1, NULL, &seq, &pr)) die("optimize_parts");
    th[k] = cpu() - t0;
    ade_jacobian_options o = {seq, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
    ade_sparse_free(Jh), Jh = NULL;
    t0 = cpu();
    if (ade_jacobian(t, 0, &o, &Jh, &jr)) die("jacobian (parts)");
    tj[k] = cpu() - t0;
    ade_sparse_free(Jf), Jf = NULL;
    t0 = cpu();
    if (ade_jacobian(t, ADE_ELIM_AUTO, NULL, &Jf, &jr)) die("jacobian (auto)");
    tf[k] = cpu() - t0;
  }
  r->parts = pr.parts, r->classes = pr.classes, r->local = pr.local_cost, r->outer = pr.outer_cost;
  r->flat = pr.flat_cost, r->hier = pr.cost, r->two_level = pr.two_level, r->inner_kind = pr.inner_kind, r->outer_kind = pr.outer_kind;
  if (jr.fma < r->flat) r->flat = jr.fma; /* auto may choose CPR */
  r->t_hier_opt = median(th, samples), r->t_hier_jac = median(tj, samples), r->t_flat = median(tf, samples);
  size_t len = r->n * r->m;
  double *H = xcalloc(len, sizeof *H), *F = xcalloc(len, sizeof *F), *D = xcalloc(len, sizeof *D);
  dense_of(Jh, H);
  dense_of(Jf, F);
  if (ade_jacobian_dense(t, ADE_FORWARD, NULL, D)) die("dense forward");
  r->err_hf = relerr(H, F, len), r->err_hd = relerr(H, D, len);
  mission(r, t, D);
  free(H), free(F), free(D), free(th), free(tj), free(tf), free(part);
  ade_sparse_free(Jh), ade_sparse_free(Jf), ade_seq_free(seq), ade_cgraph_free(g);
}

#ifdef BENCH_HAVE_ADOLC
static void adolc(row *r, const struct bj_problem *p) {
  double rec, *J = xcalloc(p->n * p->m, sizeof *J), *t = xcalloc((size_t)samples, sizeof *t);
  struct bj_adolc *a = bj_adolc_create(p, 0, &rec);
  if (!a) die("ADOL-C");
  for (int k = 0; k < samples; k++) {
    double t0 = cpu();
    if (bj_adolc_dense(a, J)) die("ADOL-C jacobian()");
    t[k] = cpu() - t0;
  }
  r->t_adolc = median(t, samples), r->have_adolc = 1;
  bj_adolc_free(a);
  free(J), free(t);
}
#endif

static void print(const row *R, size_t nr) {
  printf("| problem | n | m | \\|E\\| | parts (classes) | n\\|E\\| | m\\|E\\| | best ordering | flat (best heuristic) | two levels: first + second | returned | mission (parts as elementals) "
         "| hier. optimize + J (ms) | flat auto J (ms) | ADOL-C jacobian() (ms) | hier. vs flat | hier. vs dense fwd |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t k = 0; k < nr; k++) {
    const row *r = &R[k];
    char ad[32] = "-", mi[64];
    if (r->mission_st) snprintf(mi, sizeof mi, "- (%s)", ade_errname(r->mission_st));
    else snprintf(mi, sizeof mi, "%" PRIu64 " (%.0e)", r->mission, r->err_md);
    if (r->have_adolc) snprintf(ad, sizeof ad, "%.2f", 1e3 * r->t_adolc);
    printf("| %s | %zu | %zu | %zu | %zu (%zu) | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " (%s) | %" PRIu64 " | %" PRIu64 "%s + %" PRIu64 "%s | %" PRIu64
           "%s | %s | %.2f + %.2f | %.2f | %s | %.1e | %.1e |\n",
           r->name, r->n, r->m, r->edges, r->parts, r->classes, r->fwd, r->rev, r->best, r->best_name, r->flat, r->local,
           r->inner_kind == ADE_SEQ_EDGE ? " (edges)" : "", r->outer,
           r->outer_kind == ADE_SEQ_EDGE ? " (edges)" : "", r->hier,
           r->two_level ? " (two)" : " (flat)", mi, 1e3 * r->t_hier_opt, 1e3 * r->t_hier_jac, 1e3 * r->t_flat, ad,
           r->err_hf, r->err_hd);
  }
}

int main(int argc, char **argv) {
  int a = 1;
  for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
    if (!strcmp(argv[a], "-p")) kind_name = argv[a + 1];
    else if (!strcmp(argv[a], "-k")) samples = atoi(argv[a + 1]) > 0 ? atoi(argv[a + 1]) : 1;
    else break;
  }
  if ((a < argc && argv[a][0] == '-') || ade_parts_parse(kind_name) < 0) {
    fprintf(stderr, "usage: bench_parts [-p regions|callsites|repeats|auto] [-k samples] [PROBLEM|TAPE.adt]...\n");
    return 2;
  }
  size_t nr = argc > a ? (size_t)(argc - a) : BJ_NPROBLEMS;
  row *R = xcalloc(nr, sizeof *R);
  for (size_t k = 0; k < nr; k++) {
    const char *name = argc > a ? argv[a + (int)k] : bj_problem_names[k];
    int id = 0;
    while (id < BJ_NPROBLEMS && strcmp(name, bj_problem_names[id])) id++;
    ade_tape *t = NULL;
    struct bj_problem p;
    R[k].name = name;
    if (id < BJ_NPROBLEMS) {
      bj_problem_init(&p, id);
      t = record(&p);
    } else if (ade_tape_load(&t, name)) {
      die(name);
    }
    fprintf(stderr, "bench_parts: %s\n", name);
    measure(&R[k], t);
#ifdef BENCH_HAVE_ADOLC
    if (id < BJ_NPROBLEMS) adolc(&R[k], &p);
#endif
    if (id < BJ_NPROBLEMS) free(p.x);
    ade_tape_free(t);
  }
  print(R, nr);
  free(R);
  return 0;
}
