/* bench_codegen.c: the C code ade_plan_codegen emits for the Jacobian
 * benchmark problems, compiled by the system compiler, against the
 * interpreted plan and forward mode at a new point; and the compile time.
 * See doc/benchmarks.md ("Generated code"). */
#define _POSIX_C_SOURCE 200809L /* getopt, clock_gettime, mkdtemp */
#include <adelim.h>

#include "bench_jacobian.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BJ_REAL ade_double
#define BJ_CONST(v) ade_passive(v)
#define BJ_FN(name) rec_##name
#include "jacobian_problems.h"
#undef BJ_REAL
#undef BJ_CONST
#undef BJ_FN

#ifndef BENCH_CC
#define BENCH_CC "cc"
#endif

static const char *cflags = "-O2 -ffp-contract=off";
static double min_sample = 0.2; /* seconds per timed sample */
static int samples = 5;
static size_t dense_max = (size_t)1 << 24; /* entries of a dense forward Jacobian */

typedef int (*jacfn)(const double *x, double *nz);

/* elim/codegen.c: tables beyond table_at statements (-T; default: the
 * library's threshold, as ade_plan_codegen). */
int ade__plan_codegen(const ade_elim_plan *p, ade_tape *t, const char *fname, void *file, size_t table_at);
static long table_at = -1;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, int st)
{
  fprintf(stderr, "bench_codegen: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  exit(1);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Seconds per call of each of the k calls f[i](ctx): the median of
 * `samples` samples of repeated calls, the calls taking turns within each
 * sample so that a load on the machine weighs on all alike. */
typedef int (*call)(void *ctx);
static void timeit(int k, const call *f, void *ctx, double *sec)
{
  long reps[8];
  double s[8][64];
  int ns = samples < 64 ? samples : 64;
  for (int i = 0; i < k; i++) {
    double t0 = now();
    if (f[i](ctx) < 0) {
      fprintf(stderr, "bench_codegen: a timed call failed: %s\n", ade_errmsg());
      exit(1);
    }
    double one = now() - t0;
    reps[i] = one >= min_sample ? 1 : (long)(min_sample / fmax(one, 1e-8)) + 1;
  }
  for (int q = 0; q < ns; q++)
    for (int i = 0; i < k; i++) {
      double t0 = now();
      for (long r = 0; r < reps[i]; r++)
        f[i](ctx);
      s[i][q] = (now() - t0) / (double)reps[i];
    }
  for (int i = 0; i < k; i++) {
    qsort(s[i], (size_t)ns, sizeof s[i][0], cmp_double);
    sec[i] = s[i][ns / 2];
  }
}

struct ctx {
  ade_tape *t;
  ade_elim_plan *plan;
  ade_sparse *J, *P;
  jacfn fn;
  const double *x;
  double *nz, *D;
  size_t *color, ncolors;
  struct bj_adolc *adolc;
};

static int call_compiled(void *v)
{
  struct ctx *c = v;
  return c->fn(c->x, c->nz) < 0 ? -1 : 0;
}
static int call_plan(void *v)
{
  struct ctx *c = v;
  return ade_elim_plan_jacobian(c->plan, c->t, c->x, c->J);
}
static int call_dense(void *v)
{
  struct ctx *c = v;
  return ade_jacobian_dense(c->t, ADE_FORWARD, c->x, c->D);
}
static int call_cpr(void *v)
{
  struct ctx *c = v;
  return ade_jacobian_cpr_values(c->t, ADE_FORWARD, c->x, c->color, c->ncolors, c->P);
}

#ifdef BENCH_HAVE_ADOLC
static int call_adolc_dense(void *v)
{
  return bj_adolc_dense(((struct ctx *)v)->adolc, NULL);
}
static int call_adolc_compressed(void *v)
{
  return bj_adolc_compressed(((struct ctx *)v)->adolc, NULL);
}
#endif

static ade_tape *record(const struct bj_problem *p)
{
  ade_tape *t = NULL;
  ade_double *x = calloc(p->n, sizeof *x), *f = calloc(p->m, sizeof *f), *w = calloc(p->nwork + 1, sizeof *w);
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
  if (st)
    die("recording", st);
  free(x);
  free(f);
  free(w);
  return t;
}

/* The fewest-fma plan of the orderings that stay fast on large graphs. */
static ade_elim_plan *best_plan(ade_tape *t, int *method, double *plan_s)
{
  static const int cand[] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ};
  ade_elim_plan *best = NULL;
  for (size_t k = 0; k < sizeof cand / sizeof cand[0]; k++) {
    ade_elim_plan *p = NULL;
    ade_jacobian_report rep;
    int st = ade_elim_plan_create(&p, t, cand[k], NULL, &rep);
    if (st < 0)
      die("plan", st);
    if (!best || ade_elim_plan_fma(p) < ade_elim_plan_fma(best)) {
      ade_elim_plan_free(best);
      best = p, *method = cand[k], *plan_s = rep.seconds;
    } else {
      ade_elim_plan_free(p);
    }
  }
  return best;
}

struct result {
  const char *name, *method;
  size_t n, m, nnz;
  uint64_t records, fma;
  double plan_s, gen_s, lines, bytes, cc_s, so_bytes, compiled_s, plan_x_s, fwd_s, adolc_s;
  int fwd_dense, bitwise, tables;
};

static void run(int id, const char *dir, struct result *r)
{
  struct bj_problem p;
  bj_problem_init(&p, id);
  memset(r, 0, sizeof *r);
  r->name = p.name, r->n = p.n, r->m = p.m;
  fprintf(stderr, "%s: recording ...\n", p.name);
  ade_tape *t = record(&p);
  ade_stats s;
  ade_tape_stats(t, &s);
  r->records = s.records;
  int method;
  fprintf(stderr, "  plans ...\n");
  ade_elim_plan *plan = best_plan(t, &method, &r->plan_s);
  r->method = ade_order_name(method), r->fma = ade_elim_plan_fma(plan);
  char src[512], so[512], cmd[2048];
  snprintf(src, sizeof src, "%s/%s.c", dir, p.name);
  snprintf(so, sizeof so, "%s/%s.so", dir, p.name);
  FILE *f = fopen(src, "w");
  if (!f) {
    perror(src);
    exit(1);
  }
  double t0 = now();
  int st = table_at < 0 ? ade_plan_codegen(plan, t, "jac", f) : ade__plan_codegen(plan, t, "jac", f, (size_t)table_at);
  if (st < 0)
    die("codegen", st);
  fclose(f);
  r->gen_s = now() - t0;

  struct stat sb;
  stat(src, &sb);
  r->bytes = (double)sb.st_size;
  snprintf(cmd, sizeof cmd, "wc -l < %s", src);
  FILE *wc = popen(cmd, "r");
  if (wc && fscanf(wc, "%lf", &r->lines) != 1)
    r->lines = -1;
  if (wc)
    pclose(wc);
  snprintf(cmd, sizeof cmd, "grep -q 'static const struct jac_rec' %s", src);
  r->tables = system(cmd) == 0;
  snprintf(cmd, sizeof cmd, "%s %s -fPIC -shared -o %s %s -lm", BENCH_CC, cflags, so, src);
  fprintf(stderr, "  %s\n", cmd);
  t0 = now();
  if (system(cmd) != 0) {
    fprintf(stderr, "bench_codegen: the compiler failed on %s\n", src);
    exit(1);
  }
  r->cc_s = now() - t0;
  stat(so, &sb);
  r->so_bytes = (double)sb.st_size;
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "bench_codegen: %s\n", dlerror());
    exit(1);
  }
  struct ctx c = {t, plan, NULL, NULL, (jacfn)(uintptr_t)dlsym(h, "jac"), NULL, NULL, NULL, NULL, 0, NULL};
  double *x = malloc(p.n * sizeof *x);
  for (size_t i = 0; i < p.n; i++) /* a new point near the recorded one */
    x[i] = p.x[i] * (1 + 1e-3 * sin((double)i + 1)) + 1e-4;
  c.x = x;
  if ((st = ade_elim_plan_pattern(plan, &c.J)) < 0)
    die("pattern", st);
  r->nnz = c.J->nnz;
  c.nz = malloc((c.J->nnz + 1) * sizeof *c.nz);
  int flips = c.fn(x, c.nz);
  st = ade_elim_plan_jacobian(plan, t, x, c.J);
  r->bitwise = flips == 0 && st == ADE_OK && !memcmp(c.nz, c.J->val, c.J->nnz * sizeof *c.nz);
  r->fwd_dense = !p.sparse && p.n * p.m <= dense_max;
  if (r->fwd_dense) {
    c.D = malloc(p.n * p.m * sizeof *c.D);
  } else { /* sparse: CPR forward, pattern and coloring excluded */
    ade_cgraph *g = NULL;
    if ((st = ade_cgraph_from_tape(&g, t, NULL)) < 0 || (st = ade_cgraph_pattern(g, &c.P)) < 0)
      die("pattern", st);
    ade_cgraph_free(g);
    c.color = malloc(p.n * sizeof *c.color);
    if ((st = ade_sparse_color(c.P, ADE_FORWARD, ADE_COLOR_BEST, c.color, &c.ncolors)) < 0)
      die("coloring", st);
  }
  call fs[4] = {call_compiled, call_plan, r->fwd_dense ? call_dense : call_cpr, NULL};
  int nf = 3;
  r->adolc_s = -1;
#ifdef BENCH_HAVE_ADOLC /* jacobian(), or fov_forward with the same seed */
  double rec_s;
  if (!(c.adolc = bj_adolc_create(&p, r->fwd_dense ? 0 : c.ncolors, &rec_s)))
    exit(1);
  if (!r->fwd_dense)
    bj_adolc_seed(c.adolc, c.color);
  fs[nf++] = r->fwd_dense ? call_adolc_dense : call_adolc_compressed;
#endif
  fprintf(stderr, "  timing ...\n");
  double sec[4];
  timeit(nf, fs, &c, sec);
  r->compiled_s = sec[0], r->plan_x_s = sec[1], r->fwd_s = sec[2];
  if (nf > 3)
    r->adolc_s = sec[3];
#ifdef BENCH_HAVE_ADOLC
  bj_adolc_free(c.adolc);
#endif
  dlclose(h);
  free(c.D);
  free(c.color);
  free(c.nz);
  free(x);
  ade_sparse_free(c.P);
  ade_sparse_free(c.J);
  ade_elim_plan_free(plan);
  ade_tape_free(t);
  free(p.x);
}

static void print(const struct result *R, int np)
{
  printf("| problem | n x m | records | plan | fma | nnz(J) | form | C lines | C MiB | cc %s (s) | .so MiB "
         "| **compiled** | plan at x | forward at x | ADOL-C | plan / compiled | forward / compiled "
         "| ADOL-C / compiled | bitwise |\n",
         cflags);
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < np; i++) {
    const struct result *r = &R[i];
    char adolc[32] = "-", ratio[32] = "-";
    if (r->adolc_s > 0) {
      snprintf(adolc, sizeof adolc, "%.3g ms", 1e3 * r->adolc_s);
      snprintf(ratio, sizeof ratio, "%.1f", r->adolc_s / r->compiled_s);
    }
    printf("| %s | %zu x %zu | %llu | %s | %llu | %zu | %s | %.0f | %.1f | %.2f | %.1f | **%.3g ms** | %.3g ms "
           "| %.3g ms (%s) | %s | %.1f | %.1f | %s | %s |\n",
           r->name, r->n, r->m, (unsigned long long)r->records, r->method, (unsigned long long)r->fma, r->nnz,
           r->tables ? "tables" : "straight", r->lines, r->bytes / 1048576, r->cc_s, r->so_bytes / 1048576,
           1e3 * r->compiled_s, 1e3 * r->plan_x_s, 1e3 * r->fwd_s, r->fwd_dense ? "dense" : "CPR", adolc,
           r->plan_x_s / r->compiled_s, r->fwd_s / r->compiled_s, ratio, r->bitwise ? "yes" : "NO");
  }
}

int main(int argc, char **argv)
{
  int opt, only = -1, keep = 0;
  while ((opt = getopt(argc, argv, "p:k:s:f:KT:")) != -1) {
    if (opt == 'K') {
      keep = 1;
      continue;
    }
    if (opt == 'p') {
      for (int i = 0; i < BJ_NPROBLEMS; i++) {
        struct bj_problem q;
        bj_problem_init(&q, i);
        if (!strcmp(q.name, optarg))
          only = i;
        free(q.x);
      }
      if (only < 0) {
        fprintf(stderr, "bench_codegen: unknown problem '%s'\n", optarg);
        return 2;
      }
    } else if (opt == 'k')
      samples = atoi(optarg);
    else if (opt == 's')
      min_sample = atof(optarg);
    else if (opt == 'f')
      cflags = optarg;
    else if (opt == 'T')
      table_at = atol(optarg);
    else {
      fprintf(stderr, "usage: bench_codegen [-p PROBLEM] [-k SAMPLES] [-s SECONDS] [-f CFLAGS] [-K] [-T N]\n"
                      "  -K keeps the generated files; -T N: tables beyond N statements\n");
      return 2;
    }
  }
  char dir[] = "/tmp/bench-codegen-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  struct result R[BJ_NPROBLEMS];
  int np = 0;
  for (int id = 0; id < BJ_NPROBLEMS; id++)
    if (only < 0 || only == id)
      run(id, dir, &R[np++]);
  print(R, np);
  char cmd[600];
  snprintf(cmd, sizeof cmd, keep ? "echo kept %s >&2" : "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : 1;
}
