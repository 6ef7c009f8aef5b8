/* bench_jacobian.c: Jacobians of five test problems by every adelim method
 * (elimination orderings, CPR compression, dense vector modes): their
 * multiply-adds, and wall times against ADOL-C's jacobian() and, for sparse
 * Jacobians, jac_pat + a coloring + fov_forward. See doc/benchmarks.md. */
#define _POSIX_C_SOURCE 200809L /* getopt, clock_gettime */
#include <adelim.h>

#include "bench_jacobian.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Plain double instantiation: the ADE_ macros are double expressions here. */
#define BJ_REAL double
#define BJ_CONST(v) (v)
#define BJ_FN(name) plain_##name
#include "jacobian_problems.h"
#undef BJ_REAL
#undef BJ_CONST
#undef BJ_FN

/* Recording instantiation. */
#define BJ_REAL ade_double
#define BJ_CONST(v) ade_passive(v)
#define BJ_FN(name) rec_##name
#include "jacobian_problems.h"
#undef BJ_REAL
#undef BJ_CONST
#undef BJ_FN

/* Dense Jacobians above this many entries are not formed (-d: 256 MiB). */
static size_t DENSE_MAX = (size_t)1 << 25;

static int samples = 5;             /* -k: timed samples per method (median) */
static size_t max_edges = 20000;    /* -e: largest part for the O(|E|)-per-step orderings */
static double min_sample = 0.02;    /* each sample repeats a call at least this long */

static void *xmalloc(size_t count, size_t size)
{
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) {
    fprintf(stderr, "bench_jacobian: out of memory (%zu x %zu bytes)\n", count, size);
    exit(1);
  }
  return p;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Seconds per call of f(ctx): the median of `samples` samples, each
 * repeating the call until it lasted min_sample seconds. -1 on failure. */
typedef int (*bj_call)(void *ctx);
static double timeit(bj_call f, void *ctx)
{
  double t0 = now();
  if (f(ctx) < 0)
    return -1;
  double one = now() - t0, s[64];
  long reps = one >= min_sample ? 1 : (long)(min_sample / fmax(one, 1e-7)) + 1;
  int k = samples < 64 ? samples : 64;
  for (int i = 0; i < k; i++) {
    t0 = now();
    for (long r = 0; r < reps; r++)
      if (f(ctx) < 0)
        return -1;
    s[i] = (now() - t0) / (double)reps;
  }
  qsort(s, (size_t)k, sizeof *s, cmp_double);
  return s[k / 2];
}

/* ---------------------------------------------------------- comparisons */

/* max |A - R| / max |R| with A dense (m x n) or sparse, R sparse. */
static double rel_err(const ade_sparse *R, const double *Ad, const ade_sparse *As)
{
  double e = 0.0, big = 0.0;
  for (size_t i = 0; i < R->m; i++) {
    size_t r = R->rowptr[i], a = As ? As->rowptr[i] : 0, aend = As ? As->rowptr[i + 1] : 0;
    if (Ad) {
      for (size_t j = 0; j < R->n; j++) {
        double rv = r < R->rowptr[i + 1] && R->col[r] == j ? R->val[r++] : 0.0;
        e = fmax(e, fabs(Ad[i * R->n + j] - rv));
        big = fmax(big, fabs(rv));
      }
      continue;
    }
    while (r < R->rowptr[i + 1] || a < aend) { /* merge the two sorted rows */
      size_t jr = r < R->rowptr[i + 1] ? R->col[r] : SIZE_MAX, ja = a < aend ? As->col[a] : SIZE_MAX;
      double rv = jr <= ja ? R->val[r++] : 0.0, av = ja <= jr ? As->val[a++] : 0.0;
      e = fmax(e, fabs(av - rv));
      big = fmax(big, fabs(rv));
    }
  }
  return e / fmax(big, 1e-300);
}

/* ------------------------------------------------------- timed adelim calls */

struct jac_ctx {
  ade_tape *t;
  int order;
  const ade_elim_seq *seq;
};
static int call_jacobian(void *v)
{
  struct jac_ctx *c = v;
  ade_jacobian_options o = {c->seq, 0, NULL};
  ade_sparse *J = NULL;
  int st = ade_jacobian(c->t, c->order, &o, &J, NULL);
  ade_sparse_free(J);
  return st;
}

struct plan_ctx {
  ade_elim_plan *plan;
  ade_tape *t;
  const double *x; /* NULL: the recorded point */
  ade_sparse *J;
};
static int call_plan(void *v)
{
  struct plan_ctx *c = v;
  return ade_elim_plan_jacobian(c->plan, c->t, c->x, c->J);
}

struct dense_ctx {
  ade_tape *t;
  int mode;
  double *J;
};
static int call_dense(void *v)
{
  struct dense_ctx *c = v;
  return ade_jacobian_dense(c->t, c->mode, NULL, c->J);
}

struct cpr_ctx {
  ade_tape *t;
  int mode;
  const size_t *color;
  size_t nc;
  ade_sparse *P;
};
static int call_cpr(void *v)
{
  struct cpr_ctx *c = v;
  return ade_jacobian_cpr_values(c->t, c->mode, NULL, c->color, c->nc, c->P);
}

#ifdef BENCH_HAVE_ADOLC
static int call_adolc_dense(void *v) { return bj_adolc_dense(v, NULL); }
static int call_adolc_compressed(void *v) { return bj_adolc_compressed(v, NULL); }
#endif

/* ---------------------------------------------------------------- results */

struct result {
  const struct bj_problem *p;
  size_t records, edges, inter, nnz, parts, largest, colc, colr, rowmax, colmax;
  uint64_t dense_fwd, dense_rev, cpr_fwd, cpr_rev, nr, dm;
  uint64_t fma[ADE_ORDER_COUNT];   /* UINT64_MAX: skipped */
  double order_s[ADE_ORDER_COUNT]; /* one full ade_jacobian call */
  double err[ADE_ORDER_COUNT + 4]; /* orderings, cpr fwd, cpr rev, dense rev, ADOL-C */
  int best;
  double rec_s, best_s, seq_s, plan_s, plan_x_s, compile_s, plan_err, cpr_fwd_s, cpr_rev_s, dense_fwd_s, dense_rev_s;
  double adolc_rec_s, adolc_dense_s, adolc_pat_s, adolc_fov_s, adolc_err, adolc_fov_err;
  size_t adolc_colors;
  int adolc_same_pattern;
};

static int quadratic(int order)
{
  return order == ADE_ORDER_EDGE_MARKOWITZ || order == ADE_ORDER_EDGE_FILLIN || order >= ADE_ORDER_FACE_FORWARD;
}

static void die_ade(const char *what, int st)
{
  fprintf(stderr, "bench_jacobian: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  exit(1);
}

static ade_tape *record(const struct bj_problem *p, double *rec_s)
{
  ade_tape *t = NULL;
  ade_double *x = xmalloc(p->n, sizeof *x), *f = xmalloc(p->m, sizeof *f);
  ade_double *w = xmalloc(p->nwork, sizeof *w);
  double t0 = now();
  int st = ade_tape_create(&t, NULL);
  if (!st)
    st = ade_trace_on(t);
  for (size_t i = 0; !st && i < p->n; i++)
    x[i] = ade_indep(p->x[i]);
  if (!st) {
    rec_eval(p, x, w, f);
    for (size_t i = 0; i < p->m; i++)
      ade_dep(f[i]);
    st = ade_trace_off();
  }
  *rec_s = now() - t0;
  if (st)
    die_ade("recording", st);
  free(x);
  free(f);
  free(w);
  return t;
}

/* Plain values against the tape's (a replay at the recorded point). */
static void check_values(const struct bj_problem *p, ade_tape *t)
{
  double *f = xmalloc(p->m, sizeof *f), *y = xmalloc(p->m, sizeof *y), *w = xmalloc(p->nwork, sizeof *w);
  plain_eval(p, p->x, w, f);
  int st = ade_replay(t, p->x, y);
  if (st < 0)
    die_ade("replay", st);
  for (size_t i = 0; i < p->m; i++)
    if (y[i] != f[i]) {
      fprintf(stderr, "bench_jacobian: %s: recorded value %zu differs: %.17g vs %.17g\n", p->name, i, y[i], f[i]);
      exit(1);
    }
  free(f);
  free(y);
  free(w);
}

static void baselines(ade_tape *t, struct result *r)
{
  ade_cgraph *g = NULL;
  ade_jacobian_baselines b;
  int st = ade_cgraph_from_tape(&g, t, NULL);
  if (!st)
    st = ade_cgraph_baselines(g, &b);
  if (!st)
    st = ade_cgraph_parts(g, &r->parts, &r->largest);
  if (st)
    die_ade("c-graph", st);
  r->edges = b.edges, r->inter = b.p, r->nnz = b.nnz, r->colc = b.col_colors, r->colr = b.row_colors;
  r->rowmax = b.max_row_nnz, r->colmax = b.max_col_nnz, r->dense_fwd = b.dense_forward;
  r->dense_rev = b.dense_reverse, r->cpr_fwd = b.cpr_forward, r->cpr_rev = b.cpr_reverse;
  r->nr = b.nr, r->dm = b.dm;
  ade_cgraph_free(g);
}

/* Every ordering once: fma, time, error against the reference. */
static void orderings(ade_tape *t, const ade_sparse *ref, struct result *r)
{
  r->best = -1;
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ade_sparse *J = NULL;
    ade_jacobian_report rep;
    r->fma[o] = UINT64_MAX;
    r->err[o] = -1;
    if (quadratic(o) && r->largest > max_edges)
      continue;
    fprintf(stderr, "  %s ...\n", ade_order_name(o));
    int st = ade_jacobian(t, o, NULL, &J, &rep);
    if (st < 0)
      die_ade(ade_order_name(o), st);
    r->fma[o] = rep.fma;
    r->order_s[o] = rep.seconds;
    r->err[o] = rel_err(ref, NULL, J);
    if (r->best < 0 || rep.fma < r->fma[r->best])
      r->best = o;
    ade_sparse_free(J);
  }
}

/* The reference: CPR forward (checked against dense forward when that fits). */
static ade_sparse *reference(ade_tape *t, struct result *r, double **dense)
{
  const struct bj_problem *p = r->p;
  ade_sparse *R = NULL;
  int st = ade_jacobian_cpr(t, ADE_FORWARD, NULL, &R, NULL);
  if (st < 0)
    die_ade("cpr forward", st);
  *dense = NULL;
  if (p->n * p->m <= DENSE_MAX) {
    *dense = xmalloc(p->n * p->m, sizeof(double));
    if ((st = ade_jacobian_dense(t, ADE_FORWARD, NULL, *dense)) < 0)
      die_ade("dense forward", st);
  }
  return R;
}

static void time_adelim(ade_tape *t, const ade_sparse *ref, const double *D, struct result *r)
{
  const struct bj_problem *p = r->p;
  ade_elim_seq *seq = NULL;
  ade_cgraph *g = NULL;
  /* Best ordering: from the tape each time, and with its sequence saved. */
  struct jac_ctx jc = {t, r->best, NULL};
  fprintf(stderr, "  timing %s ...\n", ade_order_name(r->best));
  r->best_s = timeit(call_jacobian, &jc);
  int st = ade_cgraph_from_tape(&g, t, NULL);
  if (!st)
    st = ade_elim_order(g, r->best, &seq);
  if (st)
    die_ade("sequence", st);
  jc.seq = seq;
  r->seq_s = timeit(call_jacobian, &jc);
  ade_seq_free(seq);
  ade_cgraph_free(g);
  /* The best ordering compiled into a plan, run again on the tape's partials. */
  ade_elim_plan *plan = NULL;
  ade_sparse *PJ = NULL;
  double t0 = now();
  if ((st = ade_elim_plan_create(&plan, t, r->best, NULL, NULL)) || (st = ade_elim_plan_pattern(plan, &PJ)))
    die_ade("plan", st);
  r->compile_s = now() - t0;
  struct plan_ctx pc = {plan, t, NULL, PJ};
  fprintf(stderr, "  timing the plan ...\n");
  r->plan_s = timeit(call_plan, &pc);
  pc.x = p->x; /* the same point passed explicitly: values and partials recomputed */
  r->plan_x_s = timeit(call_plan, &pc);
  r->plan_err = rel_err(ref, NULL, PJ);
  ade_sparse_free(PJ);
  ade_elim_plan_free(plan);
  /* CPR with the pattern and coloring computed once. */
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
    ade_sparse *P = NULL;
    size_t *color = xmalloc(p->n + p->m, sizeof *color), nc = 0;
    if ((st = ade_cgraph_from_tape(&g, t, NULL)) || (st = ade_cgraph_pattern(g, &P)) ||
        (st = ade_sparse_color(P, mode, ADE_COLOR_BEST, color, &nc)))
      die_ade("pattern", st);
    struct cpr_ctx cc = {t, mode, color, nc, P};
    fprintf(stderr, "  timing cpr %s ...\n", mode ? "reverse" : "forward");
    double s = timeit(call_cpr, &cc);
    *(mode ? &r->cpr_rev_s : &r->cpr_fwd_s) = s;
    r->err[ADE_ORDER_COUNT + mode] = rel_err(ref, NULL, P);
    ade_sparse_free(P);
    ade_cgraph_free(g);
    free(color);
  }
  /* Dense vector modes. */
  r->dense_fwd_s = r->dense_rev_s = -1;
  r->err[ADE_ORDER_COUNT + 2] = r->err[ADE_ORDER_COUNT + 3] = -1;
  if (!D)
    return;
  double *J = xmalloc(p->n * p->m, sizeof *J);
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
    struct dense_ctx dc = {t, mode, J};
    fprintf(stderr, "  timing dense %s ...\n", mode ? "reverse" : "forward");
    *(mode ? &r->dense_rev_s : &r->dense_fwd_s) = timeit(call_dense, &dc);
  }
  r->err[ADE_ORDER_COUNT + 2] = rel_err(ref, J, NULL); /* J holds dense reverse's */
  r->err[ADE_ORDER_COUNT + 3] = rel_err(ref, D, NULL); /* dense forward vs CPR */
  free(J);
}

#ifdef BENCH_HAVE_ADOLC
/* ADOL-C: jacobian() when the dense matrix fits; for sparse Jacobians (and
 * Roe's block-diagonal one) jac_pat, our coloring of its pattern, and
 * fov_forward with that seed. */
static void time_adolc(const ade_sparse *ref, struct result *r)
{
  const struct bj_problem *p = r->p;
  int compressed = p->sparse || p->id == BJ_ROE;
  size_t *rowptr = xmalloc(p->m + 1, sizeof *rowptr), *col = NULL, *color = xmalloc(p->n, sizeof *color), nc = 0;
  double t0;
  struct bj_adolc *a = NULL;
  ade_sparse *P = NULL;
  r->adolc_dense_s = r->adolc_pat_s = r->adolc_fov_s = r->adolc_err = r->adolc_fov_err = -1;
  if (compressed) { /* the pattern from a first context, then the colored one */
    struct bj_adolc *a0 = bj_adolc_create(p, 0, &r->adolc_rec_s);
    t0 = now();
    if (!a0 || bj_adolc_pattern(a0, rowptr, &col)) {
      fprintf(stderr, "bench_jacobian: %s: ADOL-C jac_pat failed\n", p->name);
      exit(1);
    }
    r->adolc_pat_s = now() - t0;
    bj_adolc_free(a0);
    if (ade_sparse_create(&P, p->m, p->n, rowptr[p->m], 0))
      die_ade("pattern", ADE_ENOMEM);
    memcpy(P->rowptr, rowptr, (p->m + 1) * sizeof *rowptr);
    memcpy(P->col, col, rowptr[p->m] * sizeof *col);
    r->adolc_same_pattern = P->nnz == ref->nnz && !memcmp(P->col, ref->col, P->nnz * sizeof *P->col) &&
                            !memcmp(P->rowptr, ref->rowptr, (p->m + 1) * sizeof *P->rowptr);
    int st = ade_sparse_color(P, ADE_FORWARD, ADE_COLOR_BEST, color, &nc);
    if (st)
      die_ade("coloring ADOL-C's pattern", st);
    r->adolc_colors = nc;
  }
  a = bj_adolc_create(p, nc, &r->adolc_rec_s);
  if (!a)
    exit(1);
  if (p->n * p->m <= DENSE_MAX) {
    double *J = xmalloc(p->n * p->m, sizeof *J);
    fprintf(stderr, "  timing ADOL-C jacobian ...\n");
    r->adolc_dense_s = timeit(call_adolc_dense, a);
    if (bj_adolc_dense(a, J) == 0)
      r->adolc_err = rel_err(ref, J, NULL);
    free(J);
  }
  if (compressed) {
    double *B = xmalloc(p->m * nc, sizeof *B);
    bj_adolc_seed(a, color);
    fprintf(stderr, "  timing ADOL-C fov_forward (%zu colors) ...\n", nc);
    r->adolc_fov_s = timeit(call_adolc_compressed, a);
    if (bj_adolc_compressed(a, B) == 0) { /* CPR recovery: J(i, j) = B(i, color j) */
      for (size_t i = 0; i < p->m; i++)
        for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
          P->val[k] = B[i * nc + color[P->col[k]]];
      r->adolc_fov_err = rel_err(ref, NULL, P);
    }
    free(B);
  }
  bj_adolc_free(a);
  ade_sparse_free(P);
  free(rowptr);
  free(col);
  free(color);
}
#endif

static void run(int id, struct result *r)
{
  struct bj_problem *p = xmalloc(1, sizeof *p);
  double *D = NULL;
  bj_problem_init(p, id);
  memset(r, 0, sizeof *r);
  r->p = p;
  r->adolc_dense_s = r->adolc_fov_s = r->adolc_pat_s = r->adolc_err = r->adolc_fov_err = -1;
  fprintf(stderr, "%s: n = %zu, m = %zu\n", p->name, p->n, p->m);
  ade_tape *t = record(p, &r->rec_s);
  ade_stats s;
  ade_tape_stats(t, &s);
  r->records = s.records;
  check_values(p, t);
  baselines(t, r);
  ade_sparse *ref = reference(t, r, &D);
  orderings(t, ref, r);
  time_adelim(t, ref, D, r);
#ifdef BENCH_HAVE_ADOLC
  time_adolc(ref, r);
#endif
  ade_sparse_free(ref);
  free(D);
  ade_tape_free(t);
}

/* ---------------------------------------------------------------- tables */

static void print_sizes(const struct result *R, int np)
{
  printf("| problem | n | m | records | c-graph \\|E\\| | p | parts | largest part \\|E\\| | nnz(J) | n^ | m^ "
         "| column colors | row colors |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int k = 0; k < np; k++) {
    const struct result *r = &R[k];
    printf("| %s | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n", r->p->name, r->p->n,
           r->p->m, r->records, r->edges, r->inter, r->parts, r->largest, r->nnz, r->rowmax, r->colmax, r->colc, r->colr);
  }
}

static void cell_u64(uint64_t v, int bold)
{
  if (v == UINT64_MAX)
    printf(" skipped |");
  else
    printf(bold ? " **%llu** |" : " %llu |", (unsigned long long)v);
}

static void print_fma(const struct result *R, int np)
{
  printf("\n| method |");
  for (int k = 0; k < np; k++)
    printf(" %s |", R[k].p->name);
  printf("\n|---|");
  for (int k = 0; k < np; k++)
    printf("--:|");
  printf("\n");
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    printf("| %s |", ade_order_name(o));
    for (int k = 0; k < np; k++)
      cell_u64(R[k].fma[o], R[k].best == o);
    printf("\n");
  }
  const char *names[] = {"cpr-forward (colors \\|E\\|)", "cpr-reverse", "dense forward n\\|E\\|",
                         "dense reverse m\\|E\\|", "Newsam-Ramsdell min{n^(m+p), m^(n+p)}", "DM min{n(m+p), m(n+p)}"};
  for (int i = 0; i < 6; i++) {
    printf("%s| %s |", i ? "\n" : "", names[i]);
    for (int k = 0; k < np; k++) {
      const struct result *r = &R[k];
      uint64_t v[] = {r->cpr_fwd, r->cpr_rev, r->dense_fwd, r->dense_rev, r->nr, r->dm};
      cell_u64(v[i], 0);
    }
  }
  printf("\n");
}

static void ms(double s)
{
  if (s < 0)
    printf(" - |");
  else
    printf(" %.3f |", 1e3 * s);
}

static void print_times(const struct result *R, int np)
{
  printf("\n| problem | best elimination | adelim best, from the tape | with saved sequence | compile plan (once) "
         "| **plan** | plan at x | adelim CPR fwd | adelim CPR rev | adelim dense fwd | adelim dense rev "
         "| ADOL-C jacobian() | ADOL-C fov_forward compressed | ADOL-C jac_pat (once) |\n"
         "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int k = 0; k < np; k++) {
    const struct result *r = &R[k];
    printf("| %s | %s |", r->p->name, ade_order_name(r->best));
    ms(r->best_s), ms(r->seq_s), ms(r->compile_s), ms(r->plan_s), ms(r->plan_x_s);
    ms(r->cpr_fwd_s), ms(r->cpr_rev_s), ms(r->dense_fwd_s), ms(r->dense_rev_s);
    ms(r->adolc_dense_s), ms(r->adolc_fov_s), ms(r->adolc_pat_s);
    printf("\n");
  }
}

static void err(double e)
{
  if (e < 0)
    printf(" - |");
  else
    printf(" %.1e |", e);
}

static void print_errors(const struct result *R, int np)
{
  printf("\n| problem | worst ordering | plan | cpr fwd | cpr rev | dense rev | dense fwd | ADOL-C jacobian() "
         "| ADOL-C compressed | ADOL-C pattern = adelim's |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (int k = 0; k < np; k++) {
    const struct result *r = &R[k];
    double worst = 0;
    for (int o = 0; o < ADE_ORDER_COUNT; o++)
      worst = fmax(worst, r->err[o]);
    printf("| %s |", r->p->name);
    err(worst);
    err(r->plan_err);
    for (int i = 0; i < 4; i++)
      err(r->err[ADE_ORDER_COUNT + i]);
    err(r->adolc_err), err(r->adolc_fov_err);
    printf(" %s |\n", r->adolc_fov_s < 0 ? "-" : r->adolc_same_pattern ? "yes" : "no");
  }
}

static void ratio(double a, double b)
{
  if (a > 0 && b > 0)
    printf(" %.2f |", a / b);
  else
    printf(" - |");
}

static void print_targets(const struct result *R, int np)
{
  printf("\n| problem | dense-best fma / adelim-best fma | ADOL-C jacobian() / adelim plan | same, plan at x "
         "| ADOL-C jacobian() / adelim best from the tape | adelim plan / adelim CPR fwd | adelim plan / ADOL-C "
         "compressed fov_forward | plan at x / ADOL-C compressed | adelim from the tape / ADOL-C compressed |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int k = 0; k < np; k++) {
    const struct result *r = &R[k];
    double dense = (double)(r->dense_fwd < r->dense_rev ? r->dense_fwd : r->dense_rev);
    printf("| %s | %.1f |", r->p->name, dense / (double)r->fma[r->best]);
    ratio(r->adolc_dense_s, r->plan_s), ratio(r->adolc_dense_s, r->plan_x_s), ratio(r->adolc_dense_s, r->best_s);
    ratio(r->plan_s, r->cpr_fwd_s), ratio(r->plan_s, r->adolc_fov_s), ratio(r->plan_x_s, r->adolc_fov_s);
    ratio(r->best_s, r->adolc_fov_s);
    printf("\n");
  }
}

int main(int argc, char **argv)
{
  int opt, which[BJ_NPROBLEMS], np = 0;
  while ((opt = getopt(argc, argv, "k:e:d:")) != -1) {
    if (opt == 'k')
      samples = atoi(optarg);
    else if (opt == 'd')
      DENSE_MAX = (size_t)atol(optarg) << 17; /* MiB of doubles */
    else if (opt == 'e')
      max_edges = (size_t)atol(optarg);
    else {
      fprintf(stderr, "usage: bench_jacobian [-k samples] [-e max_edges] [-d dense_MiB] [die|chebyquad|bratu2d|cavity|roe]...\n");
      return 2;
    }
  }
  if (samples < 1)
    samples = 1;
  static const char *const names[] = {"die", "chebyquad", "bratu2d", "cavity", "roe"};
  for (int i = optind; i < argc; i++) {
    int k = 0;
    while (k < BJ_NPROBLEMS && strcmp(argv[i], names[k]))
      k++;
    if (k == BJ_NPROBLEMS) {
      fprintf(stderr, "bench_jacobian: unknown problem '%s'\n", argv[i]);
      return 2;
    }
    which[np++] = k;
  }
  if (!np)
    for (np = 0; np < BJ_NPROBLEMS; np++)
      which[np] = np;
  struct result *R = xmalloc((size_t)np, sizeof *R);
  for (int k = 0; k < np; k++)
    run(which[k], &R[k]);
  printf("Sizes (p: intermediate vertices; parts: connected components with intermediates;\n"
         "n^, m^: most nonzeros in a row, a column):\n\n");
  print_sizes(R, np);
  printf("\nMultiply-adds (best elimination in bold; skipped: O(|E|)-per-step orderings on parts above %zu edges):\n",
         max_edges);
  print_fma(R, np);
  printf("\nWall time in ms, median of %d samples:\n", samples);
  print_times(R, np);
  printf("\nAgreement, max |J - J_ref| / max |J_ref| (J_ref: adelim CPR forward; dense fwd: adelim's dense\n"
         "forward against it):\n");
  print_errors(R, np);
  printf("\nRatios:\n");
  print_targets(R, np);
  for (int k = 0; k < np; k++) {
    free(R[k].p->x);
    free((void *)R[k].p);
  }
  free(R);
  return 0;
}
