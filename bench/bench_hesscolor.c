/* bench_hesscolor.c: sparse Hessians at new points: edge pushing against a star-colored plan (pattern and coloring once, compressed forward-over-reverse products per point), and what ADE_HESS_AUTO picks. See doc/benchmarks.md. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <adelim.h>

#include "bench_hessian.h"
#include "bench_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BH_REAL ade_double
#define BH_CONST(v) ade_passive(v)
#define BH_FN(name) rec_##name
#include "hessian_problems.h"
#undef BH_REAL
#undef BH_CONST
#undef BH_FN

/* A banded time-stepping loop: x <- sin(x_{i-1} x_i + x_{i+1}) for r
 * rounds, f = sum x_i (a Hessian of bandwidth about 2r + 1). */
static ade_double band_steps(size_t n, int rounds, const ade_double *x0, ade_double *v, ade_double *u) {
  memcpy(v, x0, n * sizeof *v);
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < n; i++) {
      ade_double a = i ? ADE_MUL(v[i - 1], v[i]) : v[i];
      u[i] = ADE_SIN(i + 1 < n ? ADE_ADD(a, v[i + 1]) : a);
    }
    memcpy(v, u, n * sizeof *v);
  }
  ade_double f = v[0];
  for (size_t i = 1; i < n; i++) f = ADE_ADD(f, v[i]);
  return f;
}

enum { P_BAND = 5 };
static const struct {
  int id;
  size_t n;
  int rounds;
  const char *name;
} cases[] = {{BH_ROSENBROCK, 10000, 0, "rosenbrock"}, {BH_BROYDEN, 10000, 0, "broyden"},
             {BH_PENALTY1, 200, 0, "penalty1"},      {BH_PAIRS, 200, 0, "pairs"},
             {BH_CHAINTREE, 1024, 0, "chaintree"},   {P_BAND, 2000, 2, "band r=2"},
             {P_BAND, 2000, 8, "band r=8"},          {P_BAND, 200, 50, "band r=50"}};

static double point(size_t i, double shift) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x2385u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return 0.2741 + shift + 0.02 * ((double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 - 0.5);
}

static ade_tape *record(int k, const double *x) {
  ade_tape *t = NULL;
  size_t n = cases[k].n;
  ade_double *v = bench_xmalloc(3 * n, sizeof *v);
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) exit(1);
  for (size_t i = 0; i < n; i++) v[i] = ade_indep(x[i]);
  if (cases[k].id == P_BAND) ade_dep(band_steps(n, cases[k].rounds, v, v + n, v + 2 * n));
  else {
    struct bh_problem p = {cases[k].id, cases[k].name, n, 0, n, 0, NULL};
    ade_dep(rec_eval(&p, v, v + n));
  }
  if (ade_trace_off()) exit(1);
  free(v);
  return t;
}

struct ctx {
  ade_tape *t;
  ade_hess_plan *p;
  ade_sparse *H;
  ade_hess_options o;
};

static int call_ep(void *v) {
  struct ctx *c = v;
  ade_sparse *H = NULL;
  int st = ade_hessian(c->t, ADE_HESS_EDGE_PUSH, &c->o, &H, NULL);
  ade_sparse_free(H);
  return st < 0 ? -1 : 0;
}

static int call_plan(void *v) {
  struct ctx *c = v;
  return ade_hess_plan_hessian(c->p, c->t, &c->o, c->H, NULL) < 0 ? -1 : 0;
}

/* The median of 3 samples, each repeating f for at least 0.05 s. */
static double timeit(int (*f)(void *), void *ctx) {
  double s[3];
  for (int k = 0; k < 3; k++) {
    double t0 = bench_now(), t;
    long reps = 0;
    do {
      if (f(ctx)) return -1;
      reps++;
    } while ((t = bench_now() - t0) < 0.05);
    s[k] = t / (double)reps;
  }
  double a = fmin(s[0], s[1]), b = fmax(s[0], s[1]);
  return s[2] < a ? a : s[2] > b ? b : s[2];
}

static double bench_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The calls of loop mode, alone in a function for a profiler:
 * valgrind --tool=callgrind --toggle-collect=bench_loop_calls. */
__attribute__((noinline)) int bench_loop_calls(int (*f)(void *), void *ctx, long calls);
__attribute__((noinline)) int bench_loop_calls(int (*f)(void *), void *ctx, long calls) {
  for (long k = 0; k < calls; k++)
    if (f(ctx)) return -1;
  return 0;
}

/* Loop mode (-L NAME CALLS [ep]): case NAME's star plan (or edge pushing)
 * at the new point, twice to warm up (resident form, work area), then
 * CALLS times in bench_loop_calls; prints their thread CPU time per call. */
static int loop_mode(const char *name, long calls, int ep) {
  size_t k = 0;
  while (k < sizeof cases / sizeof cases[0] && strcmp(cases[k].name, name)) k++;
  if (k == sizeof cases / sizeof cases[0] || calls < 1) return 2;
  size_t n = cases[k].n;
  double *x = bench_xmalloc(n, sizeof *x), *x2 = bench_xmalloc(n, sizeof *x2);
  for (size_t i = 0; i < n; i++) x[i] = point(i, 0), x2[i] = point(i + n, 0.1);
  struct ctx c = {record((int)k, x), NULL, NULL, {x2, NULL, NULL}};
  int (*f)(void *) = ep ? call_ep : call_plan;
  if (ade_hess_plan_create(&c.p, c.t, ADE_HESS_STAR, NULL) || ade_hess_plan_pattern(c.p, &c.H) || f(&c) || f(&c))
    return 1;
  double t0 = bench_cpu_now();
  if (bench_loop_calls(f, &c, calls)) return 1;
  printf("%s %s: %.4f ms CPU per call\n", name, ep ? "edge-push" : "star plan", 1e3 * (bench_cpu_now() - t0) / (double)calls);
  ade_sparse_free(c.H);
  ade_hess_plan_free(c.p);
  ade_tape_free(c.t);
  free(x);
  free(x2);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 3 && !strcmp(argv[1], "-L")) return loop_mode(argv[2], atol(argv[3]), argc > 4 && !strcmp(argv[4], "ep"));
  const char *dir = argc > 1 ? argv[1] : NULL; /* write each pattern there as NAME.mtx */
  printf("| problem | n | nnz(H) | colors | plan create ms | edge-push ms | star ms | edge-push fma | star fma |"
         " ep/star time | auto picks |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    size_t n = cases[k].n;
    double *x = bench_xmalloc(n, sizeof *x), *x2 = bench_xmalloc(n, sizeof *x2);
    for (size_t i = 0; i < n; i++) x[i] = point(i, 0), x2[i] = point(i + n, 0.1);
    struct ctx c = {record((int)k, x), NULL, NULL, {x2, NULL, NULL}};
    ade_hess_report pr, re, rs;
    double t0 = bench_now();
    if (ade_hess_plan_create(&c.p, c.t, ADE_HESS_STAR, &pr) || ade_hess_plan_pattern(c.p, &c.H)) return 1;
    double create = bench_now() - t0;
    if (dir) {
      char path[512], name[64];
      snprintf(name, sizeof name, "%s", cases[k].name);
      for (char *q = name; *q; q++) *q = *q == ' ' || *q == '=' ? '_' : *q;
      snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
      if (ade_sparse_write_mtx(c.H, path)) return 1;
    }
    ade_hess_plan *a = NULL;
    if (ade_hess_plan_create(&a, c.t, ADE_HESS_AUTO, NULL)) return 1;
    ade_sparse *E = NULL;
    if (ade_hessian(c.t, ADE_HESS_EDGE_PUSH, &c.o, &E, &re) < 0 || ade_hess_plan_hessian(c.p, c.t, &c.o, c.H, &rs) < 0)
      return 1;
    double te = timeit(call_ep, &c), ts = timeit(call_plan, &c);
    printf("| %s | %zu | %zu | %zu | %.2f | %.3f | %.3f | %llu | %llu | %.2f | %s |\n", cases[k].name, n, c.H->nnz,
           pr.colors, 1e3 * create, 1e3 * te, 1e3 * ts, (unsigned long long)re.fma, (unsigned long long)rs.fma,
           te / ts, ade_hess_method_name(ade_hess_plan_method(a)));
    fflush(stdout);
    ade_sparse_free(E);
    ade_sparse_free(c.H);
    ade_hess_plan_free(c.p);
    ade_hess_plan_free(a);
    ade_tape_free(c.t);
    free(x);
    free(x2);
  }
  return 0;
}
