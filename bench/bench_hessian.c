/* bench_hessian.c: Hessians of sparse, dense and chain-tree test functions by
 * every adelim method (edge pushing, with and without preaccumulation,
 * symmetric vertex elimination in two orders, forward-over-reverse), against
 * ADOL-C's hessian(), hess_pat + coloring + hess_mat and sparse_hess; peak
 * memory of edge pushing over a file-backed tape at n = 10^5. See
 * doc/benchmarks.md. */
#define _POSIX_C_SOURCE 200809L /* getopt, clock_gettime */
#include <adelim.h>

#include "bench_hessian.h"
#include "bench_util.h"
#ifdef BENCH_HAVE_ADOLC
#include "bench_adolc.h" /* bench_adolc_setup */
#endif

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Plain double instantiation: the ADE_ macros are double expressions here. */
#define BH_REAL double
#define BH_CONST(v) (v)
#define BH_FN(name) plain_##name
#include "hessian_problems.h"
#undef BH_REAL
#undef BH_CONST
#undef BH_FN

/* Recording instantiation. */
#define BH_REAL ade_double
#define BH_CONST(v) ade_passive(v)
#define BH_FN(name) rec_##name
#include "hessian_problems.h"
#undef BH_REAL
#undef BH_CONST
#undef BH_FN

#define NM (ADE_HESS_EDGE_PUSH_PREACC + 1) /* the one-shot methods; star plans: bench_hesscolor */
#define SKIPPED (-1.0) /* a time not measured on purpose */
#define FAILED (-2.0)  /* a call that returned an error */

static int samples = 3;               /* -k: timed samples (median) */
static double min_sample = 0.05;      /* each sample repeats a call this long */
static double one_call = 1.0;         /* calls longer than this run once */
static size_t max_ndir = 2048;        /* -f: largest n for for-over-rev, hessian2() */
static size_t max_markowitz = SIZE_MAX; /* -m: largest tape (records) for ve-markowitz */
static double dense_mib = 2048;       /* -d: largest dense triangle for ADOL-C hessian() */
static double profile_s = 0;          /* -P: profile mode, seconds per loop */

/* ------------------------------------------------------------- problems */

static const char *const problem_names[] = {"rosenbrock", "broyden", "penalty1", "pairs",
                                            "chaintree", "minsurf", "bbanded"};

/* The runs, in order: the sizes. */
static const struct {
  int id;
  size_t n;
} cases[] = {{BH_ROSENBROCK, 1000},  {BH_ROSENBROCK, 10000}, {BH_ROSENBROCK, 100000},
             {BH_BROYDEN, 1000},     {BH_BROYDEN, 10000},    {BH_BROYDEN, 100000},
             {BH_PENALTY1, 200},     {BH_PAIRS, 200},        {BH_CHAINTREE, 1024},
             {BH_MINSURF, 2500},     {BH_MINSURF, 10000},    {BH_BBANDED, 1000},
             {BH_BBANDED, 10000}};
#define NCASES (sizeof cases / sizeof cases[0])

/* A deterministic high-entropy value in [0, 1) (splitmix64 of i). */
static double hash01(size_t i)
{
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x2385u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* minsurf's grid side: n = g^2. */
static size_t minsurf_grid(size_t n)
{
  size_t g = (size_t)sqrt((double)n);
  while (g * g > n)
    g--;
  while ((g + 1) * (g + 1) <= n)
    g++;
  return g;
}

/* The point: the MGH starting points with noise; for the chain tree x_i
 * near 0.2741, where log(1 + exp(sin x)^2) is near 1, so the product of
 * 1024 factors neither overflows nor underflows. */
static double point(int id, size_t i, size_t n)
{
  const double r = hash01(i) - 0.5;
  switch (id) {
  case BH_ROSENBROCK: return (i % 2 ? 1.0 : -1.2) + 0.1 * r;
  case BH_BROYDEN: return -1.0 + 0.1 * r;
  case BH_PENALTY1: return (double)(i + 1) / (double)n + 0.1 * r;
  case BH_PAIRS: return 2.0 * r;
  case BH_MINSURF: { /* half the boundary's saddle, plus noise */
    const size_t g = minsurf_grid(n);
    const double h = 1.0 / (double)(g + 1), s = (double)(i % g + 1) * h - 0.5, t = (double)(i / g + 1) * h - 0.5;
    return 0.5 * (s * s - t * t) + 0.05 * r;
  }
  case BH_BBANDED: return -1.0 + 0.1 * r;
  default: return 0.2741 + 0.02 * r;
  }
}

static void problem_init(struct bh_problem *p, int id, size_t n)
{
  memset(p, 0, sizeof *p);
  p->id = id;
  p->name = problem_names[id];
  p->n = n;
  p->nwork = id == BH_CHAINTREE ? n : 0;
  p->sparse = id == BH_ROSENBROCK || id == BH_BROYDEN || id == BH_MINSURF || id == BH_BBANDED;
  if (id == BH_MINSURF) {
    p->grid = minsurf_grid(n);
    if (p->grid * p->grid != n) {
      fprintf(stderr, "bench_hessian: minsurf needs n = g^2 (got %zu)\n", n);
      exit(2);
    }
    p->nwork = (p->grid + 2) * (p->grid + 2);
  }
  p->x = bench_xmalloc(n, sizeof *p->x);
  for (size_t i = 0; i < n; i++)
    p->x[i] = point(id, i, n);
}

static double plain_value(const struct bh_problem *p)
{
  double *w = bench_xmalloc(p->nwork, sizeof *w);
  const double f = plain_eval(p, p->x, w);
  free(w);
  return f;
}

/* Record p onto a new tape (memory if path is NULL). NULL on failure. */
static ade_tape *record(const struct bh_problem *p, const char *path, double *f)
{
  ade_tape_options o;
  ade_tape *t = NULL;
  ade_double *x = bench_xmalloc(p->n, sizeof *x), *w = bench_xmalloc(p->nwork, sizeof *w);
  ade_tape_options_init(&o);
  o.path = path;
  int st = ade_tape_create(&t, &o);
  if (st == ADE_OK)
    st = ade_trace_on(t);
  if (st == ADE_OK) {
    for (size_t i = 0; i < p->n; i++)
      x[i] = ade_indep(p->x[i]);
    *f = ade_dep(rec_eval(p, x, w));
    st = ade_trace_off();
  }
  free(x);
  free(w);
  if (st != ADE_OK) {
    fprintf(stderr, "bench_hessian: recording %s: %s (%s)\n", p->name, ade_errname(st),
            ade_errmsg());
    ade_tape_free(t);
    return NULL;
  }
  return t;
}

/* --------------------------------------------------------------- timing */

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Seconds per call of f(ctx): the median of `samples` samples, each
 * repeating the call for min_sample seconds; a call longer than one_call
 * is timed once. FAILED if a call fails. */
typedef int (*bh_call)(void *ctx);
static int cpu_clock = 0; /* -C: timeit measures the thread's CPU time */
static double tnow(void)
{
  struct timespec ts;
  if (!cpu_clock)
    return bench_now();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double timeit(bh_call f, void *ctx)
{
  double t0 = tnow(), s[64];
  if (f(ctx) < 0)
    return FAILED;
  const double one = tnow() - t0;
  if (one >= one_call)
    return one;
  const long reps = one >= min_sample ? 1 : (long)(min_sample / fmax(one, 1e-7)) + 1;
  const int k = samples < 64 ? samples : 64;
  for (int i = 0; i < k; i++) {
    t0 = tnow();
    for (long r = 0; r < reps; r++)
      if (f(ctx) < 0)
        return FAILED;
    s[i] = (tnow() - t0) / (double)reps;
  }
  qsort(s, (size_t)k, sizeof *s, cmp_double);
  return s[k / 2];
}

struct hess_ctx {
  ade_tape *t;
  int method;
  const double *x; /* NULL: the recorded point */
};

static int call_hessian(void *v)
{
  const struct hess_ctx *c = v;
  ade_hess_options o;
  ade_sparse *H = NULL;
  ade_hess_options_init(&o);
  o.x = c->x;
  const int st = ade_hessian(c->t, c->method, &o, &H, NULL);
  ade_sparse_free(H);
  return st < 0 ? -1 : 0;
}

#ifdef BENCH_HAVE_ADOLC
static int call_adolc_hessian(void *v) { return bh_adolc_hessian(v, 0); }
static int call_adolc_hessian2(void *v) { return bh_adolc_hessian(v, 1); }
static int call_adolc_pattern(void *v) { return bh_adolc_pattern(v) < 0 ? -1 : 0; }
static int call_adolc_hess_mat(void *v) { return bh_adolc_hess_mat(v); }
#endif

/* ---------------------------------------------------------- comparisons */

/* max |A - B| / max |B| over two lower-triangle CSR matrices. */
static double sparse_rel_diff(const ade_sparse *A, const ade_sparse *B)
{
  double *row = bench_xmalloc(B->n, sizeof *row), e = 0.0, big = 0.0;
  for (size_t i = 0; i < B->m; i++) {
    for (size_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      row[A->col[k]] = A->val[k];
    for (size_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++) {
      e = fmax(e, fabs(row[B->col[k]] - B->val[k]));
      big = fmax(big, fabs(B->val[k]));
      row[B->col[k]] = 0.0;
    }
    for (size_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) { /* entries only in A */
      e = fmax(e, fabs(row[A->col[k]]));
      row[A->col[k]] = 0.0;
    }
  }
  free(row);
  return big > 0.0 ? e / big : e;
}

/* ------------------------------------------------------------- one case */

/* What the ADOL-C child sends back; without ADOL-C it stays empty. */
struct adolc_part {
  int have;                    /* 1: ADOL-C recorded the problem */
  double ops, rec_s, f;        /* tape operations, recording, value */
  double hess_s, hess2_s;      /* hessian(), hessian2() */
  double pat_s, mat_s;         /* hess_pat + coloring, hess_mat */
  int colors;
  size_t pattern_nnz;
  double diff[NM];             /* each adelim method vs hessian() */
  double diff2;                /* edge-push vs hessian2() */
  double diff_mat;             /* edge-push vs hess_mat */
  int probed, probe_ok;        /* sparse_hess tried, and it worked */
  char probe_msg[512];
  /* at new points (sparse problems, ADOL-C with ColPack) */
  double sh_init_s, sh_s, sh_err; /* sparse_hess repeat = 0 (once), repeat = 1; vs adelim at x1 */
  double cp_seed_s, cp_s, cp_err; /* hess_pat + generate_seed_hess (star, once), hess_mat */
  int sh_colors, cp_colors;       /* acyclic (sparse_hess's), star (hess_mat's) */
};

/* adelim at new points (sparse problems): edge pushing with and without
 * preaccumulation, each call at the next of two new points. */
struct newpt {
  double ep_s, pre_s;          /* ade_hessian(EDGE_PUSH / _PREACC) with o.x = x1, x2, ... */
  double star_s, auto_s;       /* ade_hess_plan_hessian of a STAR / AUTO plan (made once) */
  size_t star_colors;
  int auto_method;             /* what AUTO chose */
  double star_err, auto_err;   /* the plans' H at x1 vs edge-push's */
  double fd_err;               /* H(x1) vs central differences of ade_gradient */
  size_t fd_colors, nnz;
};

struct result {
  struct bh_problem p;
  double f_plain, f_ade, rec_s;
  size_t records;
  double t[NM], t_at_x;        /* seconds; SKIPPED, FAILED */
  ade_hess_report rep[NM];
  double diff[NM];             /* each method vs edge-push */
  struct newpt np;
  struct adolc_part c;
};

static int method_feasible(const struct result *r, int m)
{
  if (m == ADE_HESS_FOR_OVER_REV)
    return r->p.n <= max_ndir;
  if (m == ADE_HESS_VE_MARKOWITZ)
    return r->records <= max_markowitz;
  return 1;
}

/* Every feasible adelim method: time, report, and H (kept in H[m]). */
static void run_adelim(ade_tape *t, struct result *r, ade_sparse **H)
{
  for (int m = 0; m < NM; m++) {
    struct hess_ctx c = {t, m, NULL};
    H[m] = NULL;
    r->t[m] = SKIPPED;
    r->diff[m] = NAN;
    if (!method_feasible(r, m))
      continue;
    ade_hess_options o;
    ade_hess_options_init(&o);
    const int st = ade_hessian(t, m, &o, &H[m], &r->rep[m]);
    if (st < 0) {
      fprintf(stderr, "bench_hessian: %s n=%zu %s: %s (%s)\n", r->p.name, r->p.n,
              ade_hess_method_name(m), ade_errname(st), ade_errmsg());
      r->t[m] = FAILED;
      continue;
    }
    /* A slow method is timed by that one call (ade_hess_report.seconds). */
    r->t[m] = r->rep[m].seconds >= one_call ? r->rep[m].seconds : timeit(call_hessian, &c);
  }
  struct hess_ctx c = {t, ADE_HESS_EDGE_PUSH, r->p.x};
  r->t_at_x = timeit(call_hessian, &c);
  for (int m = 0; m < NM; m++)
    if (H[m] && H[0])
      r->diff[m] = sparse_rel_diff(H[m], H[0]);
}

/* ------------------------------------------------------ at new points */

/* Two new points near p->x (each entry scaled by 1 + 0.01 r, r a hash in
 * [-1, 1)); each timed call takes the next, so nothing about the last
 * point can be reused. */
struct newx {
  const double *x[2];
  unsigned k;
};
static const double *next_x(struct newx *nx) { return nx->x[nx->k++ & 1]; }

static void new_point(const struct bh_problem *p, unsigned salt, double *x1)
{
  for (size_t i = 0; i < p->n; i++)
    x1[i] = p->x[i] * (1.0 + 0.01 * (2.0 * hash01(i + ((size_t)salt << 32)) - 1.0));
}

struct nhess_ctx {
  struct newx nx;
  ade_tape *t;
  int method;
};
static int call_nhessian(void *v)
{
  struct nhess_ctx *c = v;
  ade_hess_options o;
  ade_sparse *H = NULL;
  ade_hess_options_init(&o);
  o.x = next_x(&c->nx);
  const int st = ade_hessian(c->t, c->method, &o, &H, NULL);
  ade_sparse_free(H);
  return st < 0 ? -1 : 0;
}

/* The oracle: central differences of the gradient (ade_gradient) at x,
 * compressed by a distance-2 coloring of H's symmetric pattern (2 gradients
 * per color), step h_j = 1e-5 max(1, |x_j|): max |H - FD| / max |H| over
 * H's lower triangle. */
static double fd_hessian(ade_tape *t, const double *x, const ade_sparse *H, size_t *ncolors)
{
  const size_t n = H->n;
  ade_sparse *P = NULL;
  size_t *cnt = bench_xmalloc(n + 1, sizeof *cnt), *color = bench_xmalloc(n, sizeof *color), nc = 0;
  for (size_t i = 0; i < n; i++) /* the full pattern: row i gets (i, j) and (j, i) */
    for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++)
      cnt[i + 1]++, cnt[H->col[k] + 1] += H->col[k] != i;
  for (size_t i = 0; i < n; i++)
    cnt[i + 1] += cnt[i];
  if (ade_sparse_create(&P, n, n, cnt[n], 0) != ADE_OK) {
    fprintf(stderr, "bench_hessian: out of memory\n");
    exit(1);
  }
  memcpy(P->rowptr, cnt, (n + 1) * sizeof *cnt);
  for (size_t i = 0; i < n; i++)
    for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
      const size_t j = H->col[k];
      P->col[cnt[i]++] = j;
      if (j != i)
        P->col[cnt[j]++] = i;
    }
  int st = ade_sparse_color(P, ADE_FORWARD, ADE_COLOR_BEST, color, &nc);
  if (st != ADE_OK) {
    fprintf(stderr, "bench_hessian: coloring: %s\n", ade_errmsg());
    exit(1);
  }
  double *xp = bench_xmalloc(n, sizeof *xp), *xm = bench_xmalloc(n, sizeof *xm), *h = bench_xmalloc(n, sizeof *h);
  double *gp = bench_xmalloc(n, sizeof *gp), *gm = bench_xmalloc(n, sizeof *gm), e = 0.0, big = 0.0, f;
  for (size_t j = 0; j < n; j++)
    h[j] = 1e-5 * fmax(1.0, fabs(x[j]));
  for (size_t c = 0; c < nc; c++) {
    for (size_t j = 0; j < n; j++) {
      const double d = color[j] == c ? h[j] : 0.0;
      xp[j] = x[j] + d, xm[j] = x[j] - d;
    }
    if (ade_gradient(t, xp, &f, gp) < 0 || ade_gradient(t, xm, &f, gm) < 0) {
      fprintf(stderr, "bench_hessian: gradient: %s\n", ade_errmsg());
      exit(1);
    }
    for (size_t i = 0; i < n; i++) /* H(i, j), j <= i, from row i of H S */
      for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
        const size_t j = H->col[k];
        if (color[j] != c)
          continue;
        e = fmax(e, fabs((gp[i] - gm[i]) / (2.0 * h[j]) - H->val[k]));
        big = fmax(big, fabs(H->val[k]));
      }
  }
  free(xp), free(xm), free(h), free(gp), free(gm), free(cnt), free(color);
  ade_sparse_free(P);
  *ncolors = nc;
  return big > 0.0 ? e / big : e;
}

struct nplan_ctx {
  struct newx nx;
  ade_tape *t;
  ade_hess_plan *p;
  ade_sparse *H;
};
static int call_nplan(void *v)
{
  struct nplan_ctx *c = v;
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = next_x(&c->nx);
  return ade_hess_plan_hessian(c->p, c->t, &o, c->H, NULL) < 0 ? -1 : 0;
}

/* max |A - R| / max |R| over the union of the two lower-triangle patterns. */
static double sparse_rel(const ade_sparse *A, const ade_sparse *R)
{
  double *w = bench_xmalloc(R->n, sizeof *w), e = 0.0, big = 0.0;
  for (size_t i = 0; i < R->m; i++) {
    for (size_t k = R->rowptr[i]; k < R->rowptr[i + 1]; k++)
      w[R->col[k]] = R->val[k], big = fmax(big, fabs(R->val[k]));
    for (size_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      e = fmax(e, fabs(A->val[k] - w[A->col[k]])), w[A->col[k]] = 0.0;
    for (size_t k = R->rowptr[i]; k < R->rowptr[i + 1]; k++) /* R's entries A lacks */
      e = fmax(e, fabs(w[R->col[k]])), w[R->col[k]] = 0.0;
  }
  free(w);
  return big > 0.0 ? e / big : e;
}

/* A plan by method (made once, untimed) at the new points: seconds per
 * call, its H at x1 against H1, its colors and method. */
static double time_plan(ade_tape *t, int method, struct newx nx, const ade_sparse *H1, double *err, size_t *colors,
                        int *chosen)
{
  struct nplan_ctx c = {nx, t, NULL, NULL};
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = nx.x[0];
  *err = NAN;
  if (ade_hess_plan_create(&c.p, t, method, NULL) < 0 || ade_hess_plan_pattern(c.p, &c.H) < 0) {
    fprintf(stderr, "bench_hessian: %s plan: %s\n", ade_hess_method_name(method), ade_errmsg());
    ade_hess_plan_free(c.p);
    return FAILED;
  }
  *colors = ade_hess_plan_colors(c.p, NULL);
  *chosen = ade_hess_plan_method(c.p);
  const double s = timeit(call_nplan, &c);
  if (H1 && ade_hess_plan_hessian(c.p, t, &o, c.H, NULL) >= 0)
    *err = sparse_rel(c.H, H1);
  ade_sparse_free(c.H);
  ade_hess_plan_free(c.p);
  return s;
}

/* adelim at the new points; *H1 gets edge pushing's H at x1. */
static void run_newpt(ade_tape *t, struct result *r, struct newx nx, ade_sparse **H1)
{
  struct nhess_ctx c = {nx, t, ADE_HESS_EDGE_PUSH};
  ade_hess_options o;
  ade_hess_options_init(&o);
  r->np.ep_s = timeit(call_nhessian, &c);
  c.method = ADE_HESS_EDGE_PUSH_PREACC;
  r->np.pre_s = timeit(call_nhessian, &c);
  o.x = nx.x[0];
  if (ade_hessian(t, ADE_HESS_EDGE_PUSH, &o, H1, NULL) < 0) {
    fprintf(stderr, "bench_hessian: %s at x1: %s\n", r->p.name, ade_errmsg());
    *H1 = NULL;
    r->np.fd_err = NAN;
    return;
  }
  r->np.nnz = (*H1)->nnz;
  r->np.fd_err = fd_hessian(t, nx.x[0], *H1, &r->np.fd_colors);
  size_t nc;
  int chosen;
  r->np.star_s = time_plan(t, ADE_HESS_STAR, nx, *H1, &r->np.star_err, &r->np.star_colors, &chosen);
  r->np.auto_s = time_plan(t, ADE_HESS_AUTO, nx, *H1, &r->np.auto_err, &nc, &r->np.auto_method);
}

/* Profile mode (-P seconds, for perf record): only adelim's calls at new
 * points, edge-push and edge-push-preacc each in a loop for profile_s s. */
static void profile_case(int id, size_t n)
{
  struct bh_problem p;
  double f;
  problem_init(&p, id, n);
  ade_tape *t = record(&p, NULL, &f);
  double *x1 = bench_xmalloc(n, sizeof *x1), *x2 = bench_xmalloc(n, sizeof *x2);
  new_point(&p, 1, x1);
  new_point(&p, 2, x2);
  printf("%s n = %zu:", p.name, n);
  for (int m = ADE_HESS_EDGE_PUSH; t && m <= ADE_HESS_EDGE_PUSH_PREACC; m += ADE_HESS_EDGE_PUSH_PREACC) {
    struct nhess_ctx c = {{{x1, x2}, 0}, t, m};
    long calls = 0;
    fprintf(stderr, "%s: %s loop\n", p.name, ade_hess_method_name(m)); /* for a profiler to attach */
    double t0 = bench_now(), s = 0;
    while (s < profile_s && call_nhessian(&c) == 0)
      calls++, s = bench_now() - t0;
    printf(" %s %.3f ms per call;", ade_hess_method_name(m), calls ? 1e3 * s / (double)calls : -1.0);
  }
  struct nplan_ctx pc = {{{x1, x2}, 0}, t, NULL, NULL};
  if (t && ade_hess_plan_create(&pc.p, t, ADE_HESS_STAR, NULL) == 0 && ade_hess_plan_pattern(pc.p, &pc.H) == 0) {
    long calls = 0;
    fprintf(stderr, "%s: star loop\n", p.name);
    double t0 = bench_now(), s = 0;
    while (s < profile_s && call_nplan(&pc) == 0)
      calls++, s = bench_now() - t0;
    printf(" star plan %.3f ms per call;", calls ? 1e3 * s / (double)calls : -1.0);
  }
  ade_sparse_free(pc.H);
  ade_hess_plan_free(pc.p);
  printf("\n");
  fprintf(stderr, "%s: done\n", p.name);
  ade_tape_free(t);
  free(x1);
  free(x2);
  free(p.x);
}

/* Each ADOL-C run and each memory phase gets a fresh process
 * (bench_in_child): peak RSS is then that phase's alone, and ADOL-C's
 * global store, which never shrinks, does not carry one tape's size into
 * the sweeps of the next (their cost grows with it). */
#ifdef BENCH_HAVE_ADOLC
static double rel(double e, double big) { return big > 0.0 ? e / big : e; }

struct adolc_job {
  const struct bh_problem *p;
  ade_sparse *const *H; /* adelim's results, to compare with */
  int probe;            /* 1: try sparse_hess too */
  struct newx nx;       /* the new points (sparse problems) */
  const ade_sparse *H1; /* adelim's H at nx.x[0]; NULL: no new-point runs */
};

#ifdef BENCH_HAVE_COLPACK
struct nadolc_ctx {
  struct newx nx;
  struct bh_adolc *a;
};
static int call_nsparse_hess(void *v)
{
  struct nadolc_ctx *c = v;
  return bh_adolc_sparse_hess(c->a, 1, next_x(&c->nx)) < 0 ? -1 : 0;
}
static int call_nhess_mat(void *v)
{
  struct nadolc_ctx *c = v;
  return bh_adolc_colpack_hess_mat(c->a, next_x(&c->nx));
}

/* In the child: sparse_hess and ColPack-seeded hess_mat at the new points. */
static void run_adolc_newpt(struct bh_adolc *a, const struct adolc_job *j, struct adolc_part *c)
{
  struct nadolc_ctx n = {j->nx, a};
  const ade_sparse *H1 = j->H1;
  double e, big, t0 = bench_now();
  if (bh_adolc_sparse_hess(a, 0, j->p->x) < 0)
    return;
  c->sh_init_s = bench_now() - t0;
  c->sh_s = timeit(call_nsparse_hess, &n);
  if (bh_adolc_sparse_hess(a, 1, j->nx.x[0]) >= 0 &&
      bh_adolc_new_compare(a, 0, H1->rowptr, H1->col, H1->val, &e, &big) == 0)
    c->sh_err = rel(e, big);
  c->sh_colors = bh_adolc_colpack_seed(a, 0); /* the count of sparse_hess's coloring */
  t0 = bench_now();
  c->cp_colors = bh_adolc_colpack_seed(a, 1);
  c->cp_seed_s = bench_now() - t0;
  if (c->cp_colors < 0)
    return;
  c->cp_s = timeit(call_nhess_mat, &n);
  if (bh_adolc_colpack_hess_mat(a, j->nx.x[0]) == 0 &&
      bh_adolc_new_compare(a, 1, H1->rowptr, H1->col, H1->val, &e, &big) == 0)
    c->cp_err = rel(e, big);
}
#endif

static void adolc_compare(struct bh_adolc *a, int compressed, const ade_sparse *H, double *out)
{
  double e, big;
  if (H && bh_adolc_compare(a, compressed, H->rowptr, H->col, H->val, &e, &big) == 0)
    *out = rel(e, big);
}

/* In the child: record p with ADOL-C and time its drivers. */
static void run_adolc(void *ctx, void *out)
{
  const struct adolc_job *j = ctx;
  const struct bh_problem *p = j->p;
  struct adolc_part *c = out;
  struct bh_adolc *a = bh_adolc_create(p, &c->rec_s, &c->f, &c->ops);
  if (!a)
    return;
  c->have = 1;
  const double tri_mib = (double)p->n * (double)(p->n + 1) / 2.0 * 8.0 / 1048576.0;
  /* hessian() on minsurf and bbanded above n = 2500: n Hessian-vector
   * products on a tape of O(n) operations take minutes and say nothing
   * the smaller size does not. */
  const int dense_ok = tri_mib <= dense_mib && !(p->id >= BH_MINSURF && p->n > 2500);
  if (dense_ok) {
    bh_adolc_hessian_alloc(a); /* untimed, as adelim's tape is */
    c->hess_s = timeit(call_adolc_hessian, a);
    for (int m = 0; m < NM; m++)
      adolc_compare(a, 0, j->H[m], &c->diff[m]);
  }
  if (dense_ok && p->n <= max_ndir) {
    c->hess2_s = timeit(call_adolc_hessian2, a);
    adolc_compare(a, 0, j->H[0], &c->diff2);
  }
  if (p->sparse) {
    c->pat_s = timeit(call_adolc_pattern, a);
    c->colors = bh_adolc_pattern(a);
    c->pattern_nnz = bh_adolc_pattern_nnz(a);
    c->mat_s = timeit(call_adolc_hess_mat, a);
    adolc_compare(a, 1, j->H[0], &c->diff_mat);
  }
#ifdef BENCH_HAVE_COLPACK
  if (j->H1)
    run_adolc_newpt(a, j, c);
#endif
  if (j->probe) {
    c->probed = 1;
    c->probe_ok = bh_adolc_sparse_hess_probe(a, c->probe_msg, sizeof c->probe_msg) == 0;
  }
  bh_adolc_free(a);
}
#endif

static void run_case(struct result *r, int id, size_t n)
{
  ade_sparse *H[NM] = {NULL};
  memset(r, 0, sizeof *r);
  problem_init(&r->p, id, n);
  r->f_plain = plain_value(&r->p);
  double t0 = bench_now();
  ade_tape *t = record(&r->p, NULL, &r->f_ade);
  r->rec_s = bench_now() - t0;
  ade_stats s;
  if (t && ade_tape_stats(t, &s) == ADE_OK)
    r->records = (size_t)s.records;
  for (int m = 0; m < NM; m++)
    r->t[m] = FAILED;
  r->t_at_x = FAILED;
  double *x1 = bench_xmalloc(n, sizeof *x1), *x2 = bench_xmalloc(n, sizeof *x2);
  new_point(&r->p, 1, x1);
  new_point(&r->p, 2, x2);
  struct newx nx = {{x1, x2}, 0};
  ade_sparse *H1 = NULL;
  r->np.ep_s = r->np.pre_s = r->np.star_s = r->np.auto_s = SKIPPED;
  r->np.star_err = r->np.auto_err = NAN;
  r->np.fd_err = NAN;
  if (t)
    run_adelim(t, r, H);
  if (t && r->p.sparse)
    run_newpt(t, r, nx, &H1);
  ade_tape_free(t);
  r->c.hess_s = r->c.hess2_s = r->c.pat_s = r->c.mat_s = SKIPPED;
  r->c.sh_init_s = r->c.sh_s = r->c.cp_seed_s = r->c.cp_s = SKIPPED;
  r->c.sh_err = r->c.cp_err = NAN;
  r->c.diff_mat = r->c.diff2 = NAN;
  for (int m = 0; m < NM; m++)
    r->c.diff[m] = NAN;
#ifdef BENCH_HAVE_ADOLC
  static int probed;
  struct adolc_job j = {&r->p, H, r->p.sparse && !probed, nx, H1};
  probed |= j.probe;
  if (bench_in_child(run_adolc, &j, &r->c, sizeof r->c, NULL) != 0) {
    fprintf(stderr, "bench_hessian: %s n=%zu: the ADOL-C child failed\n", r->p.name, n);
    r->c.have = 0;
  }
#endif
  for (int m = 0; m < NM; m++)
    ade_sparse_free(H[m]);
  ade_sparse_free(H1);
  free(x1);
  free(x2);
  fprintf(stderr, "bench_hessian: %s n=%zu done\n", r->p.name, n);
}

/* ------------------------------------------- memory at n = 10^5 (children) */

struct mem_result {
  int status;
  double seconds, records, raw, stored, rss_mib;
  double updates, max_live, nnz, value;
  char err[200];
};

enum { MEM_PLAIN, MEM_RECORD, MEM_EP_FILE, MEM_EP_FILE_AT_X, MEM_PREACC_FILE, MEM_EP_MEMORY,
       MEM_ADOLC };
#ifdef BENCH_HAVE_ADOLC
#define MEM_NPHASES 7
#else
#define MEM_NPHASES 6
#endif
static const char *const mem_names[7] = {
    "plain double evaluation", "record to file (ade_tape_options.path)",
    "edge-push, file tape (ade_tape_open), recorded point",
    "edge-push, file tape, x given (values replayed)",
    "edge-push-preacc, file tape, recorded point",
    "record to memory + edge-push (one process)",
    "ADOL-C: record + hess_pat + coloring + hess_mat (one process)"};

static void mem_fail(struct mem_result *r, int st, const char *what)
{
  if (st >= 0 || r->status < 0)
    return;
  r->status = st;
  snprintf(r->err, sizeof r->err, "%s: %s (%s)", what, ade_errname(st), ade_errmsg());
}

/* Edge pushing over the tape file at path, or (path NULL) over a memory
 * tape recorded here. */
static void mem_hessian(const struct bh_problem *p, const char *path, int at_x, int method,
                        struct mem_result *r)
{
  ade_tape *t = NULL;
  ade_sparse *H = NULL;
  ade_hess_report rep;
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = at_x ? p->x : NULL;
  const double t0 = bench_now();
  int st = ADE_OK;
  if (path)
    mem_fail(r, st = ade_tape_open(&t, path), "ade_tape_open");
  else if (!(t = record(p, NULL, &r->value)))
    mem_fail(r, st = ADE_EIO, "recording");
  if (st == ADE_OK)
    mem_fail(r, st = ade_hessian(t, method, &o, &H, &rep), "ade_hessian");
  r->seconds = bench_now() - t0;
  if (st >= 0) {
    r->updates = (double)rep.updates, r->max_live = (double)rep.max_live;
    r->nnz = (double)rep.nnz, r->value = rep.value;
  }
  ade_sparse_free(H);
  ade_tape_free(t);
}

static void mem_phase(const struct bh_problem *p, const char *path, int phase,
                      struct mem_result *r)
{
  ade_stats s;
  if (phase == MEM_PLAIN) {
    const double t0 = bench_now();
    r->value = plain_value(p);
    r->seconds = bench_now() - t0;
  } else if (phase == MEM_RECORD) {
    const double t0 = bench_now();
    ade_tape *t = record(p, path, &r->value);
    r->seconds = bench_now() - t0;
    if (!t)
      r->status = ADE_EIO;
    else if (ade_tape_stats(t, &s) == ADE_OK)
      r->records = (double)s.records, r->raw = (double)s.raw_bytes,
      r->stored = (double)s.stored_bytes;
    ade_tape_free(t);
  } else if (phase == MEM_ADOLC) {
#ifdef BENCH_HAVE_ADOLC
    const double t0 = bench_now();
    double rec_s;
    struct bh_adolc *a = bh_adolc_create(p, &rec_s, &r->value, &r->records);
    r->nnz = a && bh_adolc_pattern(a) > 0 && bh_adolc_hess_mat(a) == 0
                 ? (double)bh_adolc_pattern_nnz(a) : -1.0;
    r->seconds = bench_now() - t0;
    r->status = r->nnz < 0 ? ADE_EIO : ADE_OK;
    snprintf(r->err, sizeof r->err, "%s", r->nnz < 0 ? "an ADOL-C driver failed" : "");
    bh_adolc_free(a);
#endif
  } else
    mem_hessian(p, phase == MEM_EP_MEMORY ? NULL : path, phase == MEM_EP_FILE_AT_X,
                phase == MEM_PREACC_FILE ? ADE_HESS_EDGE_PUSH_PREACC : ADE_HESS_EDGE_PUSH, r);
}

struct mem_job {
  const struct bh_problem *p;
  const char *path;
  int phase;
};

static void mem_job_run(void *ctx, void *out)
{
  const struct mem_job *j = ctx;
  mem_phase(j->p, j->path, j->phase, out);
}

/* The memory runs' figures for the targets table. */
static struct {
  const char *name;
  size_t n;
  double above_mib, live, at_x_mib, records;
} mem_sum[2];
static int nmem;

static void memory_case(int id, size_t n, const char *dir)
{
  struct bh_problem p;
  struct mem_result r[MEM_NPHASES];
  char path[4096];
  struct stat sb;
  problem_init(&p, id, n);
  snprintf(path, sizeof path, "%s/bench_hessian.%ld.adt", dir, (long)getpid());
  for (int ph = 0; ph < MEM_NPHASES; ph++) {
    struct mem_job j = {&p, path, ph};
    memset(&r[ph], 0, sizeof r[ph]);
    if (bench_in_child(mem_job_run, &j, &r[ph], sizeof r[ph], &r[ph].rss_mib) != 0) {
      snprintf(r[ph].err, sizeof r[ph].err, "the child process failed");
      r[ph].status = ADE_EIO;
    }
  }
  const double disk = stat(path, &sb) == 0 ? (double)sb.st_size : 0.0, mib = 1048576.0;
  remove(path);
  const double rec = r[MEM_RECORD].records, live = r[MEM_EP_FILE].max_live;
  printf("%s, n = %zu: %.0f records; tape file %.2f MiB (%.2f B/record); raw columns %.1f MiB;\n"
         "O(n), one double per independent: %.2f MiB; O(records), one double per record: %.2f MiB;\n"
         "largest live set (edge-push): %.0f variables (%.2f per independent, %.4f per record)\n\n",
         p.name, n, rec, disk / mib, disk / rec, r[MEM_RECORD].raw / mib, 8.0 * (double)n / mib,
         8.0 * rec / mib, live, live / (double)n, live / rec);
  printf("| phase | seconds | peak RSS MiB | above plain, MiB | bytes per live variable |"
         " note |\n|---|--:|--:|--:|--:|---|\n");
  for (int ph = 0; ph < MEM_NPHASES; ph++) {
    const double above = r[ph].rss_mib - r[MEM_PLAIN].rss_mib;
    char note[256];
    if (r[ph].status < 0)
      snprintf(note, sizeof note, "%s", r[ph].err);
    else if (ph == MEM_ADOLC)
      snprintf(note, sizeof note, "%.0f operations, pattern nnz %.0f, f %.17g", r[ph].records,
               r[ph].nnz, r[ph].value);
    else if (ph >= MEM_EP_FILE)
      snprintf(note, sizeof note, "max_live %.0f, updates %.0f, nnz %.0f, f %.17g", r[ph].max_live,
               r[ph].updates, r[ph].nnz, r[ph].value);
    else
      snprintf(note, sizeof note, "f = %.17g", r[ph].value);
    printf("| %s | %.3f | %.1f | %.1f |", mem_names[ph], r[ph].seconds, r[ph].rss_mib, above);
    if (ph >= MEM_EP_FILE && ph <= MEM_EP_MEMORY && live > 0)
      printf(" %.0f |", above * mib / live);
    else
      printf(" |");
    printf(" %s |\n", note);
  }
  printf("\n");
  if (nmem < 2) {
    mem_sum[nmem].name = problem_names[id];
    mem_sum[nmem].n = n;
    mem_sum[nmem].live = live;
    mem_sum[nmem].above_mib = r[MEM_EP_FILE].rss_mib - r[MEM_PLAIN].rss_mib;
    mem_sum[nmem].at_x_mib = r[MEM_EP_FILE_AT_X].rss_mib - r[MEM_PLAIN].rss_mib;
    mem_sum[nmem++].records = rec;
  }
  free(p.x);
}

/* -------------------------------------------------------------- tables */

static void cell_ms(double s)
{
  if (s == SKIPPED)
    printf(" skipped |");
  else if (s < 0 || isnan(s))
    printf(" failed |");
  else
    printf(" %.3f |", 1e3 * s);
}

static void cell_e(double v)
{
  if (isnan(v))
    printf(" - |");
  else
    printf(" %.1e |", v);
}

/* At new points: sparse problems only. */
static void print_newpt(const struct result *R, size_t k)
{
  printf("At new points (the loop a user runs: pattern, coloring, plan once; each call at a new x, two new\n"
         "points alternating), ms, median of %d samples; ratios < 1: adelim faster; adelim best = the fastest of\n"
         "edge-push, edge-push-preacc and the star and auto Hessian plans (ade_hess_plan_hessian); ADOL-C\n"
         "hessian() as timed above (at the recorded point: ADOL-C recomputes everything either way); FD:\n"
         "edge-push's H at x1 against central differences of the gradient; plans vs edge-push: their H at x1:\n\n",
         samples);
  printf("| problem | n | nnz(H) | adelim edge-push | adelim edge-push-preacc | adelim star plan (colors) |"
         " adelim auto plan (picks) | ADOL-C hessian() |"
         " ADOL-C sparse_hess (colors) | ADOL-C ColPack hess_mat (colors) | best / hessian() |"
         " best / sparse_hess | best / hess_mat | max rel. error vs FD (colors) | plans vs edge-push |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    if (!r->p.sparse)
      continue;
    const double mine[4] = {r->np.ep_s, r->np.pre_s, r->np.star_s, r->np.auto_s};
    double best = -1;
    for (int m = 0; m < 4; m++)
      if (mine[m] > 0 && (best <= 0 || mine[m] < best))
        best = mine[m];
    printf("| %s | %zu | %zu |", r->p.name, r->p.n, r->np.nnz);
    cell_ms(mine[0]);
    cell_ms(mine[1]);
    if (mine[2] > 0)
      printf(" %.3f (%zu) |", 1e3 * mine[2], r->np.star_colors);
    else
      printf(" - |");
    if (mine[3] > 0)
      printf(" %.3f (%s) |", 1e3 * mine[3], ade_hess_method_name(r->np.auto_method));
    else
      printf(" - |");
    cell_ms(r->c.have ? r->c.hess_s : SKIPPED);
    if (r->c.sh_s > 0)
      printf(" %.3f (%d) |", 1e3 * r->c.sh_s, r->c.sh_colors);
    else
      printf(" - |");
    if (r->c.cp_s > 0)
      printf(" %.3f (%d) |", 1e3 * r->c.cp_s, r->c.cp_colors);
    else
      printf(" - |");
    const double den[3] = {r->c.hess_s, r->c.sh_s, r->c.cp_s};
    for (int d = 0; d < 3; d++)
      if (best > 0 && den[d] > 0)
        printf(" %.2f |", best / den[d]);
      else
        printf(" - |");
    printf(" %.1e (%zu) | %.1e, %.1e |\n", r->np.fd_err, r->np.fd_colors, r->np.star_err, r->np.auto_err);
  }
  printf("\nOnce per tape (not in the calls above), ms; and the agreement of ADOL-C's results at x1 with"
         " edge-push's:\n\n| problem | n | sparse_hess repeat = 0 | hess_pat + generate_seed_hess (star) |"
         " sparse_hess vs edge-push | ColPack hess_mat vs edge-push |\n|---|--:|--:|--:|--:|--:|\n");
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    if (!r->p.sparse)
      continue;
    printf("| %s | %zu |", r->p.name, r->p.n);
    cell_ms(r->c.sh_init_s);
    cell_ms(r->c.cp_seed_s);
    cell_e(r->c.sh_err);
    cell_e(r->c.cp_err);
    printf("\n");
  }
  printf("\n");
}

static void print_times(const struct result *R, size_t k)
{
  printf("%s in ms (median of %d samples; a call over %.0f s is timed once):\n\n",
         cpu_clock ? "Thread CPU time (-C)" : "Wall time", samples, one_call);
  printf("| problem | n | adelim records | edge-push | edge-push, x given | ve-reverse |"
         " ve-markowitz | for-over-rev | ADOL-C ops | ADOL-C hessian() | ADOL-C hessian2() |"
         " ADOL-C hess_mat (colors) | ADOL-C hess_pat + coloring | adelim recording |"
         " ADOL-C recording |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    printf("| %s | %zu | %zu |", r->p.name, r->p.n, r->records);
    cell_ms(r->t[ADE_HESS_EDGE_PUSH]);
    cell_ms(r->t_at_x);
    cell_ms(r->t[ADE_HESS_VE_REVERSE]);
    cell_ms(r->t[ADE_HESS_VE_MARKOWITZ]);
    cell_ms(r->t[ADE_HESS_FOR_OVER_REV]);
    if (!r->c.have) {
      printf(" - | - | - | - | - | %.3f | - |\n", 1e3 * r->rec_s);
      continue;
    }
    printf(" %.0f |", r->c.ops);
    cell_ms(r->c.hess_s);
    cell_ms(r->c.hess2_s);
    if (r->c.mat_s == SKIPPED)
      printf(" skipped |");
    else
      printf(" %.3f (%d) |", 1e3 * r->c.mat_s, r->c.colors);
    cell_ms(r->c.pat_s);
    printf(" %.3f | %.3f |\n", 1e3 * r->rec_s, 1e3 * r->c.rec_s);
  }
  printf("\nskipped: for-over-rev and hessian2() when n > %zu (n directions);", max_ndir);
  if (max_markowitz != SIZE_MAX) printf(" ve-markowitz when the tape has more than %zu records (-m);", max_markowitz);
  printf("\nADOL-C hessian() when its lower triangle (n(n+1)/2 doubles) would exceed %.0f MiB, and on"
         " minsurf and bbanded above n = 2500;"
         " hess_mat on dense Hessians (it would need n colors).\n", dense_mib);
  printf("adelim: ade_hessian(tape, method) on a memory tape at the recorded point (x = NULL),"
         " including ade_sparse_free of H;\n'x given': o.x = the same point, values replayed."
         " ADOL-C: hessian(tag, n, x, H) (n hess_vec) and hessian2 (one\nhov_wk_forward +"
         " hos_ov_reverse over n directions) into a preallocated lower triangle; hess_mat(tag, n,"
         " colors, x, S, W) with the seed of a greedy distance-2 coloring of hess_pat's pattern"
         " (direct recovery).\n\n");
}

static void cell_u(uint64_t v, int ok)
{
  if (ok)
    printf(" %llu |", (unsigned long long)v);
  else
    printf(" - |");
}

static void print_counts(const struct result *R, size_t k)
{
  printf("Counts (ade_hess_report): Hessian edge updates, all multiply-adds, largest live set,"
         " vertex pairs eliminated, nonzeros of the lower triangle:\n\n");
  printf("| problem | n | updates edge-push | updates ve-reverse | updates ve-markowitz |"
         " fma edge-push | fma ve-markowitz | fma for-over-rev | max_live | vertices | nnz |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    int ok[NM];
    for (int m = 0; m < NM; m++)
      ok[m] = r->t[m] >= 0;
    printf("| %s | %zu |", r->p.name, r->p.n);
    cell_u(r->rep[0].updates, ok[0]);
    cell_u(r->rep[1].updates, ok[1]);
    cell_u(r->rep[2].updates, ok[2]);
    cell_u(r->rep[0].fma, ok[0]);
    cell_u(r->rep[2].fma, ok[2]);
    cell_u(r->rep[3].fma, ok[3]);
    cell_u(r->rep[0].max_live, ok[0]);
    cell_u(r->rep[1].vertices, ok[1]);
    cell_u(r->rep[0].nnz, ok[0]);
    printf("\n");
  }
  printf("\n");
}

static void print_agreement(const struct result *R, size_t k)
{
  printf("Agreement, max |H - H_ref| / max |H_ref| over the lower triangle (structural zeros"
         " count as 0):\n\n");
  printf("| problem | n | f adelim vs plain | f ADOL-C vs plain | ve-reverse vs edge-push |"
         " ve-markowitz vs edge-push | for-over-rev vs edge-push | edge-push-preacc vs edge-push | edge-push vs ADOL-C hessian()"
         " | worst adelim method vs ADOL-C hessian() | edge-push vs ADOL-C hessian2() |"
         " edge-push vs ADOL-C hess_mat |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    double worst = NAN;
    for (int m = 0; m < NM; m++)
      if (!isnan(r->c.diff[m]))
        worst = isnan(worst) ? r->c.diff[m] : fmax(worst, r->c.diff[m]);
    printf("| %s | %zu |", r->p.name, r->p.n);
    cell_e(fabs(r->f_ade - r->f_plain) / fabs(r->f_plain));
    cell_e(r->c.have ? fabs(r->c.f - r->f_plain) / fabs(r->f_plain) : (double)NAN);
    for (int m = 1; m < NM; m++)
      cell_e(r->diff[m]);
    cell_e(r->c.diff[0]);
    cell_e(worst);
    cell_e(r->c.diff2);
    cell_e(r->c.diff_mat);
    printf("\n");
  }
  printf("\n");
}

static double best_adelim(const struct result *r, int *which)
{
  double best = INFINITY;
  for (int m = 0; m < NM; m++)
    if (r->t[m] > 0 && r->t[m] < best)
      best = r->t[m], *which = m;
  return best;
}

/* num / den and, unless target is 0 (context only), met or NOT met. */
static void ratio_cell(double num, double den, double target, int ge)
{
  if (!(num > 0) || !(den > 0) || !isfinite(num) || !isfinite(den)) {
    printf(" - | n/a |");
    return;
  }
  const double q = num / den;
  printf(" %.2f | %s |", q,
         target == 0.0 ? "-" : (ge ? q >= target : q <= target) ? "met" : "NOT met");
}

/* Statement-level preaccumulation against plain edge pushing. */
static void print_preacc(const struct result *R, size_t k)
{
  const int a = ADE_HESS_EDGE_PUSH, b = ADE_HESS_EDGE_PUSH_PREACC;
  printf("Preaccumulation: edge-push vs edge-push-preacc (updates: global Hessian edge updates;"
         " fma: all multiply-adds, preacc's local ones included; ms as above):\n\n");
  printf("| problem | n | updates edge-push | updates preacc | fma edge-push | fma preacc |"
         " max_live edge-push | max_live preacc | ms edge-push | ms preacc | time preacc /"
         " edge-push |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    const int ok = r->t[a] >= 0 && r->t[b] >= 0;
    printf("| %s | %zu |", r->p.name, r->p.n);
    cell_u(r->rep[a].updates, ok);
    cell_u(r->rep[b].updates, ok);
    cell_u(r->rep[a].fma, ok);
    cell_u(r->rep[b].fma, ok);
    cell_u(r->rep[a].max_live, ok);
    cell_u(r->rep[b].max_live, ok);
    cell_ms(r->t[a]);
    cell_ms(r->t[b]);
    printf(ok ? " %.2f |\n" : " - |\n", r->t[b] / r->t[a]);
  }
  printf("\n");
}

static void print_targets(const struct result *R, size_t k)
{
  printf("Targets:\n\n| problem | n | target | measure | value | |\n|---|--:|---|---|--:|---|\n");
  for (int i = 0; i < nmem; i++)
    printf("| %s | %zu | memory bounded by the live set | edge-push over the file tape: peak RSS"
           " above the plain run (per live variable); x given, values replayed; one double per"
           " record | %.1f MiB (%.0f B); %.1f MiB; %.1f MiB | - |\n",
           mem_sum[i].name, mem_sum[i].n, mem_sum[i].above_mib,
           mem_sum[i].above_mib * 1048576.0 / mem_sum[i].live, mem_sum[i].at_x_mib,
           8.0 * mem_sum[i].records / 1048576.0);
  for (size_t i = 0; i < k; i++) {
    const struct result *r = &R[i];
    int bm = 0;
    const double best = best_adelim(r, &bm);
    if ((r->p.id == BH_ROSENBROCK || r->p.id == BH_BROYDEN) && r->p.n == 10000) { /* the original targets */
      printf("| %s | %zu | >= 10x faster than ADOL-C hessian() | hessian() / edge-push |",
             r->p.name, r->p.n);
      ratio_cell(r->c.hess_s, r->t[0], 10.0, 1);
      printf("\n| %s | %zu | (context) | hess_mat / edge-push |", r->p.name, r->p.n);
      ratio_cell(r->c.mat_s, r->t[0], 0.0, 1);
      printf("\n");
    } else if (r->p.id == BH_PENALTY1 || r->p.id == BH_PAIRS) {
      printf("| %s | %zu | no slower than ADOL-C hessian() | best adelim (%s) / hessian() |",
             r->p.name, r->p.n, ade_hess_method_name(bm));
      ratio_cell(best, r->c.hess_s, 1.0, 0);
      printf("\n| %s | %zu | (context) | best adelim / hessian2() |", r->p.name, r->p.n);
      ratio_cell(best, r->c.hess2_s, 0.0, 0);
      printf("\n");
    } else if (r->p.id == BH_CHAINTREE) {
      const int sym = r->t[2] > 0 && (r->t[1] <= 0 || r->t[2] < r->t[1]) ? 2 : 1;
      printf("| %s | %zu | best symmetric order >= 100x faster than edge-push |"
             " edge-push / %s time |", r->p.name, r->p.n, ade_hess_method_name(sym));
      ratio_cell(r->t[0], r->t[sym], 100.0, 1);
      printf("\n| %s | %zu | (same, in updates) | edge-push / %s updates |", r->p.name, r->p.n,
             ade_hess_method_name(sym));
      ratio_cell((double)r->rep[0].updates, (double)r->rep[sym].updates, 100.0, 1);
      printf("\n");
    }
  }
  printf("\n");
}

static void print_machine(int argc, char **argv)
{
  char model[256];
  bench_cpu_model(model, sizeof model);
  printf("command:");
  for (int i = 0; i < argc; i++)
    printf(" %s", argv[i]);
  printf("\nmachine: %s, %ld online CPUs; adelim %d.%d.%d; ADOL-C %s\n\n", model,
         sysconf(_SC_NPROCESSORS_ONLN), ADE_VERSION_MAJOR, ADE_VERSION_MINOR, ADE_VERSION_PATCH,
#ifdef BENCH_HAVE_ADOLC
         "linked"
#else
         "not built (configure --with-adolc)"
#endif
  );
}

/* ----------------------------------------------------------------- main */

static void usage(void)
{
  fprintf(stderr,
          "usage: bench_hessian [-C] [-k samples] [-f max_n] [-m max_records] [-d MiB] [-M] [-P seconds]"
          " [problem[:n]...]\n"
          "  -C              time the repeated calls by the thread's CPU time, not wall time\n"
          "  -k samples      timed samples per call, median (default 3)\n"
          "  -f max_n        largest n for for-over-rev and hessian2() (default 2048)\n"
          "  -m max_records  largest tape for ve-markowitz (default: no limit)\n"
          "  -d MiB          largest ADOL-C hessian() triangle (default 2048)\n"
          "  -M              skip the memory runs at n = 10^5\n"
          "  -P seconds      profile mode (for perf record): only edge-push, edge-push-preacc and a star\n"
          "                  plan at new points, each in a loop for that long\n"
          "problems: rosenbrock broyden penalty1 pairs chaintree minsurf bbanded (default: all sizes)\n");
}

/* Does argument list arg select case c? */
static int selected(char **arg, int narg, size_t c)
{
  if (narg == 0)
    return 1;
  for (int i = 0; i < narg; i++) {
    const size_t len = strcspn(arg[i], ":");
    if (strncmp(arg[i], problem_names[cases[c].id], len) == 0 &&
        problem_names[cases[c].id][len] == 0 &&
        (arg[i][len] == 0 || strtoull(arg[i] + len + 1, NULL, 10) == cases[c].n))
      return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  int opt, memory = 1;
  while ((opt = getopt(argc, argv, "k:f:m:d:MP:hC")) != -1) {
    if (opt == 'C')
      cpu_clock = 1;
    else if (opt == 'P')
      profile_s = atof(optarg);
    else if (opt == 'k')
      samples = atoi(optarg) > 0 ? atoi(optarg) : 1;
    else if (opt == 'f')
      max_ndir = (size_t)strtoull(optarg, NULL, 10);
    else if (opt == 'm')
      max_markowitz = (size_t)strtoull(optarg, NULL, 10);
    else if (opt == 'd')
      dense_mib = atof(optarg);
    else if (opt == 'M')
      memory = 0;
    else {
      usage();
      return opt == 'h' ? 0 : 2;
    }
  }
  if (profile_s > 0) {
    for (size_t c = 0; c < NCASES; c++)
      if (selected(argv + optind, argc - optind, c))
        profile_case(cases[c].id, cases[c].n);
    return 0;
  }
  const double start = bench_now();
  print_machine(argc, argv);
  /* The memory runs first, while this process is small (children inherit
   * its resident pages). */
#ifdef BENCH_HAVE_ADOLC
  bench_adolc_setup((size_t)1 << 24); /* before the memory runs' ADOL-C phase */
#endif
  const char *tmp = getenv("TMPDIR");
  int titled = 0;
  for (size_t c = 0; memory && c < NCASES; c++)
    if (cases[c].n == 100000 && selected(argv + optind, argc - optind, c)) {
      if (!titled++)
        printf("Memory at n = 10^5: each phase in its own child process (peak RSS from"
               " wait4's ru_maxrss)\n\n");
      memory_case(cases[c].id, cases[c].n, tmp && *tmp ? tmp : "/tmp");
    }
  struct result *R = bench_xmalloc(NCASES, sizeof *R);
  size_t k = 0;
  for (size_t c = 0; c < NCASES; c++)
    if (selected(argv + optind, argc - optind, c))
      run_case(&R[k++], cases[c].id, cases[c].n);
  print_times(R, k);
  print_counts(R, k);
  print_agreement(R, k);
  print_preacc(R, k);
  print_newpt(R, k);
#ifdef BENCH_HAVE_ADOLC
  for (size_t i = 0; i < k; i++)
    if (R[i].c.probed)
      printf("ADOL-C sparse_hess (tried once, %s n = %zu, in a child process): %s: %s\n\n",
             R[i].p.name, R[i].p.n, R[i].c.probe_ok ? "works" : "does not work",
             R[i].c.probe_msg);
#endif
  print_targets(R, k);
  printf("total wall time %.1f s\n", bench_now() - start);
  for (size_t i = 0; i < k; i++)
    free(R[i].p.x);
  free(R);
  return 0;
}
