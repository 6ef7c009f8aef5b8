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
static double profile_s = 0;        /* -P: profile mode, seconds per loop */
static int profile_order = ADE_ORDER_VERTEX_MARKOWITZ; /* -o: the plan's ordering in profile mode */
static long profile_n = 0; /* -n: profile loops of exactly that many calls (for callgrind), not -P seconds */

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

static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* -C: the timed calls measure the thread's CPU time instead of wall time
 * (every call timed is single-threaded; on a machine shared with other
 * jobs, lost time slices then do not count, cache sharing still does). */
static int cpu_clock = 0;
static double tnow(void) { return cpu_clock ? cpu_now() : now(); }

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
  double t0 = tnow();
  if (f(ctx) < 0)
    return -1;
  double one = tnow() - t0, s[64];
  long reps = one >= min_sample ? 1 : (long)(min_sample / fmax(one, 1e-7)) + 1;
  int k = samples < 64 ? samples : 64;
  for (int i = 0; i < k; i++) {
    t0 = tnow();
    for (long r = 0; r < reps; r++)
      if (f(ctx) < 0)
        return -1;
    s[i] = (tnow() - t0) / (double)reps;
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
  ade_jacobian_options o = {c->seq, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
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

/* Derivatives at new points, as a user in a loop runs them: pattern,
 * coloring and plan once, then each timed call at a new point (two new
 * points x1, x2 alternate, so nothing about the last point can be reused).
 * Errors: max |J - J_plan(x1)| / max |J_plan(x1)|. */
struct newpt {
  double fd_err;                 /* adelim's plan vs central differences of the plain function */
  size_t fd_colors;              /* compressed differences: 2 evaluations per color */
  double plan_s, cpr_s;          /* ade_elim_plan_jacobian, ade_jacobian_cpr_values (forward) */
  double cpr_err;
  size_t cpr_colors;
  double adolc_dense_s, adolc_dense_err;     /* jacobian() */
  double sj_init_s, sj_s, sj_err;            /* sparse_jac repeat = 0 (once), repeat = 1 */
  double cp_seed_s, cp_fov_s, cp_fov_err;    /* jac_pat + generate_seed_jac (once), fov_forward */
  size_t cp_colors;
};

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
  struct newpt np; /* derivatives at new points */
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

/* ------------------------------------------------------ at new points */

/* Two new points; each timed call takes the next. */
struct newx {
  const double *x[2];
  unsigned k;
};
static const double *next_x(struct newx *nx) { return nx->x[nx->k++ & 1]; }

struct nplan_ctx {
  struct newx nx;
  ade_elim_plan *plan;
  ade_tape *t;
  ade_sparse *J;
};
static int call_nplan(void *v)
{
  struct nplan_ctx *c = v;
  return ade_elim_plan_jacobian(c->plan, c->t, next_x(&c->nx), c->J) < 0 ? -1 : 0;
}

struct ncpr_ctx {
  struct newx nx;
  ade_tape *t;
  const size_t *color;
  size_t nc;
  ade_sparse *P;
};
static int call_ncpr(void *v)
{
  struct ncpr_ctx *c = v;
  return ade_jacobian_cpr_values(c->t, ADE_FORWARD, next_x(&c->nx), c->color, c->nc, c->P) < 0 ? -1 : 0;
}

#ifdef BENCH_HAVE_COLPACK
/* J(i, j) = B(i, color[j]) on P's pattern (CPR direct recovery). */
static void recover(ade_sparse *P, const double *B, size_t nc, const size_t *color)
{
  for (size_t i = 0; i < P->m; i++)
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
      P->val[k] = color[P->col[k]] < nc ? B[i * nc + color[P->col[k]]] : 0.0;
}
#endif

/* The oracle: central differences of the plain double function at x,
 * compressed by the CPR coloring of R's pattern (2 evaluations per color),
 * step h_j = 1e-6 max(1, |x_j|); R's values are compared with them. */
static double fd_check(const struct bj_problem *p, const double *x, const ade_sparse *R, const size_t *color, size_t nc)
{
  double *xp = xmalloc(p->n, sizeof *xp), *xm = xmalloc(p->n, sizeof *xm), *h = xmalloc(p->n, sizeof *h);
  double *fp = xmalloc(p->m, sizeof *fp), *fm = xmalloc(p->m, sizeof *fm), *w = xmalloc(p->nwork, sizeof *w);
  double e = 0.0, big = 0.0;
  for (size_t j = 0; j < p->n; j++)
    h[j] = 1e-6 * fmax(1.0, fabs(x[j]));
  for (size_t c = 0; c < nc; c++) {
    for (size_t j = 0; j < p->n; j++) {
      double d = color[j] == c ? h[j] : 0.0;
      xp[j] = x[j] + d, xm[j] = x[j] - d;
    }
    plain_eval(p, xp, w, fp);
    plain_eval(p, xm, w, fm);
    for (size_t i = 0; i < p->m; i++)
      for (size_t k = R->rowptr[i]; k < R->rowptr[i + 1]; k++) {
        size_t j = R->col[k];
        if (color[j] != c)
          continue;
        e = fmax(e, fabs((fp[i] - fm[i]) / (2.0 * h[j]) - R->val[k]));
        big = fmax(big, fabs(R->val[k]));
      }
  }
  free(xp), free(xm), free(h), free(fp), free(fm), free(w);
  return e / fmax(big, 1e-300);
}

#ifdef BENCH_HAVE_ADOLC
struct nadolc_ctx {
  struct newx nx;
  struct bj_adolc *a;
};
static int call_nadolc_dense(void *v)
{
  struct nadolc_ctx *c = v;
  return bj_adolc_dense_at(c->a, next_x(&c->nx));
}
#ifdef BENCH_HAVE_COLPACK
static int call_nadolc_sparse_jac(void *v)
{
  struct nadolc_ctx *c = v;
  return bj_adolc_sparse_jac(c->a, 1, next_x(&c->nx)) < 0 ? -1 : 0;
}
static int call_nadolc_fov(void *v)
{
  struct nadolc_ctx *c = v;
  return bj_adolc_colpack_fov(c->a, next_x(&c->nx), NULL);
}

/* sparse_jac's coordinates (0-based) into R's pattern: the error, or 1 if
 * it has an entry outside R's pattern (nonzero) or misses a nonzero of R. */
static double sparse_jac_err(struct bj_adolc *a, const ade_sparse *R)
{
  const unsigned *ri, *ci;
  const double *v;
  int nnz = bj_adolc_sparse_jac_get(a, &ri, &ci, &v);
  ade_sparse *A = NULL;
  if (ade_sparse_create(&A, R->m, R->n, R->nnz, 0))
    die_ade("sparse_jac result", ADE_ENOMEM);
  memcpy(A->rowptr, R->rowptr, (R->m + 1) * sizeof *A->rowptr);
  memcpy(A->col, R->col, R->nnz * sizeof *A->col);
  memset(A->val, 0, R->nnz * sizeof *A->val);
  double outside = 0.0;
  for (int k = 0; k < nnz; k++) {
    size_t i = ri[k], j = ci[k], lo = A->rowptr[i], hi = A->rowptr[i + 1];
    while (lo < hi) { /* binary search of column j in row i */
      size_t mid = (lo + hi) / 2;
      if (A->col[mid] < j)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < A->rowptr[i + 1] && A->col[lo] == j)
      A->val[lo] = v[k];
    else
      outside = fmax(outside, fabs(v[k]));
  }
  double e = rel_err(R, NULL, A);
  ade_sparse_free(A);
  return outside > 0 ? fmax(e, 1.0) : e;
}
#endif

static void newpt_adolc(const struct bj_problem *p, struct newx nx, const ade_sparse *R, struct newpt *np)
{
  double rec_s;
  struct bj_adolc *a = bj_adolc_create(p, 0, &rec_s);
  if (!a)
    exit(1);
  struct nadolc_ctx c = {nx, a};
  if (p->n * p->m <= DENSE_MAX) {
    fprintf(stderr, "  at x: ADOL-C jacobian ...\n");
    np->adolc_dense_s = timeit(call_nadolc_dense, &c);
    double *J = xmalloc(p->n * p->m, sizeof *J);
    if (bj_adolc_dense_at(a, nx.x[0]) == 0) {
      bj_adolc_dense_get(a, J);
      np->adolc_dense_err = rel_err(R, J, NULL);
    }
    free(J);
  }
#ifdef BENCH_HAVE_COLPACK
  fprintf(stderr, "  at x: ADOL-C sparse_jac ...\n");
  double t0 = now();
  if (bj_adolc_sparse_jac(a, 0, p->x) < 0) {
    fprintf(stderr, "bench_jacobian: %s: sparse_jac (repeat 0) failed\n", p->name);
    exit(1);
  }
  np->sj_init_s = now() - t0;
  np->sj_s = timeit(call_nadolc_sparse_jac, &c);
  if (bj_adolc_sparse_jac(a, 1, nx.x[0]) >= 0)
    np->sj_err = sparse_jac_err(a, R);
  fprintf(stderr, "  at x: ADOL-C ColPack-seeded fov_forward ...\n");
  size_t *color = xmalloc(p->n, sizeof *color);
  t0 = now();
  int nc = bj_adolc_colpack_seed(a, color);
  np->cp_seed_s = now() - t0;
  if (nc < 0) {
    fprintf(stderr, "bench_jacobian: %s: jac_pat + generate_seed_jac failed\n", p->name);
    exit(1);
  }
  np->cp_colors = (size_t)nc;
  np->cp_fov_s = timeit(call_nadolc_fov, &c);
  double *B = xmalloc(p->m * (size_t)nc, sizeof *B);
  ade_sparse *P = NULL;
  if (bj_adolc_colpack_fov(a, nx.x[0], B) == 0 && ade_sparse_create(&P, R->m, R->n, R->nnz, 0) == 0) {
    memcpy(P->rowptr, R->rowptr, (R->m + 1) * sizeof *P->rowptr);
    memcpy(P->col, R->col, R->nnz * sizeof *P->col);
    recover(P, B, (size_t)nc, color);
    np->cp_fov_err = rel_err(R, NULL, P);
  }
  ade_sparse_free(P);
  free(B);
  free(color);
#endif
  bj_adolc_free(a);
}
#endif

/* Everything at the new points x1, x2 (the plan and CPR's pattern and
 * coloring as the recorded point gave them). */
static void time_newpt(ade_tape *t, struct result *r)
{
  const struct bj_problem *p = r->p;
  struct newpt *np = &r->np;
  double *x1 = xmalloc(p->n, sizeof *x1), *x2 = xmalloc(p->n, sizeof *x2);
  bj_new_point(p, 1, x1);
  bj_new_point(p, 2, x2);
  struct newx nx = {{x1, x2}, 0};
  np->adolc_dense_s = np->sj_init_s = np->sj_s = np->cp_seed_s = np->cp_fov_s = -1;
  np->adolc_dense_err = np->sj_err = np->cp_fov_err = -1;
  /* The plan of the best ordering, compiled once. */
  ade_elim_plan *plan = NULL;
  ade_sparse *R = NULL, *P = NULL;
  ade_cgraph *g = NULL;
  int st;
  if ((st = ade_elim_plan_create(&plan, t, r->best, NULL, NULL)) || (st = ade_elim_plan_pattern(plan, &R)))
    die_ade("plan", st);
  struct nplan_ctx pc = {nx, plan, t, R};
  fprintf(stderr, "  at x: plan ...\n");
  np->plan_s = timeit(call_nplan, &pc);
  if ((st = ade_elim_plan_jacobian(plan, t, x1, R)) < 0)
    die_ade("plan at x1", st);
  /* CPR forward, pattern and coloring once. */
  size_t *color = xmalloc(p->n, sizeof *color), nc = 0;
  if ((st = ade_cgraph_from_tape(&g, t, NULL)) || (st = ade_cgraph_pattern(g, &P)) ||
      (st = ade_sparse_color(P, ADE_FORWARD, ADE_COLOR_BEST, color, &nc)))
    die_ade("pattern", st);
  ade_cgraph_free(g);
  struct ncpr_ctx cc = {nx, t, color, nc, P};
  fprintf(stderr, "  at x: cpr forward (%zu colors) ...\n", nc);
  np->cpr_s = timeit(call_ncpr, &cc);
  np->cpr_colors = nc;
  if ((st = ade_jacobian_cpr_values(t, ADE_FORWARD, x1, color, nc, P)) < 0)
    die_ade("cpr at x1", st);
  np->cpr_err = rel_err(R, NULL, P);
  fprintf(stderr, "  at x: finite differences ...\n");
  np->fd_err = fd_check(p, x1, R, color, nc);
  np->fd_colors = nc;
#ifdef BENCH_HAVE_ADOLC
  newpt_adolc(p, nx, R, np);
#endif
  ade_sparse_free(P);
  ade_sparse_free(R);
  ade_elim_plan_free(plan);
  free(color);
  free(x1);
  free(x2);
}

/* Profile mode (-P seconds, for perf record): only the loop a user runs
 * at new points, each adelim call repeated for profile_s seconds. */
/* Wall seconds per call; *cpu: the thread's CPU seconds per call, which
 * time slices lost to other jobs on a loaded machine do not inflate. */
static double loop_for(bj_call f, void *ctx, double *cpu)
{
  double t0 = now(), c0 = cpu_now(), t;
  long calls = 0;
  do {
    if (f(ctx) < 0)
      return -1;
    calls++;
  } while (profile_n ? calls < profile_n : (t = now() - t0) < profile_s);
  t = now() - t0;
  *cpu = (cpu_now() - c0) / (double)calls;
  return t / (double)calls;
}

static void profile(const struct bj_problem *p, ade_tape *t)
{
  double *x1 = xmalloc(p->n, sizeof *x1), *x2 = xmalloc(p->n, sizeof *x2);
  bj_new_point(p, 1, x1);
  bj_new_point(p, 2, x2);
  struct newx nx = {{x1, x2}, 0};
  ade_elim_plan *plan = NULL;
  ade_sparse *R = NULL, *P = NULL;
  ade_cgraph *g = NULL;
  size_t *color = xmalloc(p->n, sizeof *color), nc = 0;
  int st;
  if ((st = ade_elim_plan_create(&plan, t, profile_order, NULL, NULL)) || (st = ade_elim_plan_pattern(plan, &R)) ||
      (st = ade_cgraph_from_tape(&g, t, NULL)) || (st = ade_cgraph_pattern(g, &P)) ||
      (st = ade_sparse_color(P, ADE_FORWARD, ADE_COLOR_BEST, color, &nc)))
    die_ade("profile setup", st);
  ade_cgraph_free(g);
  struct nplan_ctx pc = {nx, plan, t, R};
  struct ncpr_ctx cc = {nx, t, color, nc, P};
  /* The markers let a profiler attach to one loop (doc/benchmarks.md). */
  fprintf(stderr, "%s: plan loop\n", p->name);
  double plan_c, cpr_c, plan_s = loop_for(call_nplan, &pc, &plan_c);
  fprintf(stderr, "%s: cpr loop\n", p->name);
  double cpr_s = loop_for(call_ncpr, &cc, &cpr_c);
  fprintf(stderr, "%s: done\n", p->name);
  printf("%s: plan (%s) at new points %.3f ms per call (CPU %.3f), CPR forward (%zu colors) %.3f ms per call "
         "(CPU %.3f)\n", p->name, ade_order_name(profile_order), 1e3 * plan_s, 1e3 * plan_c, nc, 1e3 * cpr_s,
         1e3 * cpr_c);
  ade_sparse_free(P);
  ade_sparse_free(R);
  ade_elim_plan_free(plan);
  free(color);
  free(x1);
  free(x2);
}

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
  if (profile_s > 0) {
    profile(p, t);
    ade_tape_free(t);
    return;
  }
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
  time_newpt(t, r);
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

static void print_newpt(const struct result *R, int np)
{
  printf("\n| problem | n | m | nnz(J) | adelim plan (ordering) | adelim CPR fwd (colors) | ADOL-C jacobian() "
         "| ADOL-C sparse_jac | ADOL-C ColPack fov_forward (colors) | adelim best / jacobian() "
         "| adelim best / sparse_jac | adelim best / ColPack fov_forward | max rel. error vs FD |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int k = 0; k < np; k++) {
    const struct result *r = &R[k];
    const struct newpt *x = &r->np;
    const double best = x->cpr_s > 0 && x->cpr_s < x->plan_s ? x->cpr_s : x->plan_s;
    printf("| %s | %zu | %zu | %zu | %.3f (%s) | %.3f (%zu) |", r->p->name, r->p->n, r->p->m, r->nnz, 1e3 * x->plan_s,
           ade_order_name(r->best), 1e3 * x->cpr_s, x->cpr_colors);
    ms(x->adolc_dense_s), ms(x->sj_s);
    if (x->cp_fov_s < 0)
      printf(" - |");
    else
      printf(" %.3f (%zu) |", 1e3 * x->cp_fov_s, x->cp_colors);
    ratio(best, x->adolc_dense_s), ratio(best, x->sj_s), ratio(best, x->cp_fov_s);
    err(x->fd_err);
    printf("\n");
  }
  printf("\nOnce per tape (not in the calls above), ms: ADOL-C sparse_jac repeat = 0 (pattern + coloring), "
         "jac_pat + generate_seed_jac; and the agreement of every result at x1 with adelim's plan:\n\n"
         "| problem | sparse_jac repeat = 0 | jac_pat + generate_seed_jac | adelim CPR | ADOL-C jacobian() "
         "| sparse_jac | ColPack fov_forward |\n|---|--:|--:|--:|--:|--:|--:|\n");
  for (int k = 0; k < np; k++) {
    const struct newpt *x = &R[k].np;
    printf("| %s |", R[k].p->name);
    ms(x->sj_init_s), ms(x->cp_seed_s);
    err(x->cpr_err), err(x->adolc_dense_err), err(x->sj_err), err(x->cp_fov_err);
    printf("\n");
  }
}

int main(int argc, char **argv)
{
  int opt, which[BJ_NPROBLEMS], np = 0;
  while ((opt = getopt(argc, argv, "k:e:d:P:o:n:C")) != -1) {
    if (opt == 'C')
      cpu_clock = 1;
    else if (opt == 'P')
      profile_s = atof(optarg);
    else if (opt == 'n')
      profile_n = atol(optarg);
    else if (opt == 'o' && ade_order_parse(optarg) >= 0)
      profile_order = ade_order_parse(optarg);
    else if (opt == 'k')
      samples = atoi(optarg);
    else if (opt == 'd')
      DENSE_MAX = (size_t)atol(optarg) << 17; /* MiB of doubles */
    else if (opt == 'e')
      max_edges = (size_t)atol(optarg);
    else {
      fprintf(stderr, "usage: bench_jacobian [-C] [-k samples] [-e max_edges] [-d dense_MiB] [-P seconds [-o ordering] [-n calls]]\n"
              "                      [die|chebyquad|bratu2d|cavity|roe|euler1d|lorenz96]...\n"
              "  -P s: profile mode (for perf record): only the plan and CPR at new points, each in a loop for s seconds;\n"
              "        -o the plan's ordering (default vertex-markowitz); -n calls: each loop exactly that many calls\n"
              "        (for callgrind: the difference of two counts is the steady state)\n"
              "  -C: time the calls by the thread's CPU time, not wall time (for a machine shared with other jobs)\n");
      return 2;
    }
  }
  if (samples < 1)
    samples = 1;
  const char *const *names = bj_problem_names;
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
  if (profile_s > 0) {
    for (int k = 0; k < np; k++) {
      free(R[k].p->x);
      free((void *)R[k].p);
    }
    free(R);
    return 0;
  }
  printf("Sizes (p: intermediate vertices; parts: connected components with intermediates;\n"
         "n^, m^: most nonzeros in a row, a column):\n\n");
  print_sizes(R, np);
  printf("\nMultiply-adds (best elimination in bold; skipped: O(|E|)-per-step orderings on parts above %zu edges):\n",
         max_edges);
  print_fma(R, np);
  printf("\n%s in ms, median of %d samples:\n", cpu_clock ? "Thread CPU time (-C)" : "Wall time", samples);
  print_times(R, np);
  printf("\nAgreement, max |J - J_ref| / max |J_ref| (J_ref: adelim CPR forward; dense fwd: adelim's dense\n"
         "forward against it):\n");
  print_errors(R, np);
  printf("\nRatios:\n");
  print_targets(R, np);
  printf("\nAt new points (the loop a user runs: pattern, coloring, plan once; each call at a new x, two new\n"
         "points alternating), ms, median of %d samples; ratios < 1: adelim faster. adelim best = the faster of\n"
         "plan and CPR. FD: the plan's J at x1 against central differences of the plain function:\n", samples);
  print_newpt(R, np);
  for (int k = 0; k < np; k++) {
    free(R[k].p->x);
    free((void *)R[k].p);
  }
  free(R);
  return 0;
}
