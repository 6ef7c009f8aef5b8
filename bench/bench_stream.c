/* bench_stream.c: the Jacobian of a long time-stepping run (a nonlinear
 * diffusion PDE on N points, u(T) against u(0): n = m = N) from a
 * file-backed tape by streaming elimination (ade_jacobian_stream), against
 * flat elimination (ade_jacobian, vertex Markowitz on the whole c-graph)
 * and vector reverse mode (ade_jacobian_dense). Each phase runs in its own
 * child process: its peak resident set (wait4's ru_maxrss) and CPU time are
 * its own.
 *
 *   bench_stream [-N points] [-r records] [-p phases] [-m MiB] [-o path]
 *
 * -r: records wanted (default 10^7; the steps are chosen to give them);
 * -p: a string of phases to run, s (stream), f (flat), d (dense reverse),
 * default "sfd"; -m: the tape's memory limit in MiB (default 256). */
#define _POSIX_C_SOURCE 200809L
#include <adelim.h>

#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAXN 32

struct cfg {
  size_t N, steps, limit;
  const char *path;
};

struct res {
  int status;
  double cpu, records, fma, period, parts, classes, live, peak_bytes, reverse_fma;
  double J[MAXN * MAXN];
  char err[200];
};

static double cpu_now(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
         1e-6 * (double)u.ru_stime.tv_usec;
}

static void fail(struct res *r, int st, const char *what) {
  if (st >= 0 || r->status < 0) return;
  r->status = st;
  snprintf(r->err, sizeof r->err, "%s: %s (%s)", what, ade_errname(st), ade_errmsg());
}

/* One explicit Euler step of u_t = (D(u) u_x)_x - c sin(u) on a periodic
 * grid, D(u) = 1 + u^2/8 at the face mean (12 operations per point). */
static void step(size_t N, const ade_double *u, ade_double *w, ade_double *flux) {
  const double r = 0.2, c = 1e-6; /* weak damping: J stays far from underflow over 10^6 steps */
  for (size_t i = 0; i < N; i++) {
    size_t e = i + 1 < N ? i + 1 : 0;
    ade_double d = ADE_SUB(u[e], u[i]), a = ADE_ADD(u[e], u[i]);
    ade_double D = ADE_ADD(1.0, ADE_MUL(0.125, ADE_SQUARE(a)));
    flux[i] = ADE_MUL(D, d);
  }
  for (size_t i = 0; i < N; i++) {
    size_t l = i > 0 ? i - 1 : N - 1;
    ade_double div = ADE_MUL(r, ADE_SUB(flux[i], flux[l]));
    ade_double src = ADE_MUL(c, ADE_SIN(u[i]));
    w[i] = ADE_SUB(ADE_ADD(u[i], div), src);
  }
}

static void phase_record(void *ctx, void *out) {
  const struct cfg *cf = ctx;
  struct res *r = out;
  ade_double u[MAXN], w[MAXN], f[MAXN], *cur = u, *nxt = w;
  ade_tape_options o;
  ade_tape *t = NULL;
  ade_stats s;
  ade_tape_options_init(&o);
  o.path = cf->path;
  double t0 = cpu_now();
  int st = ade_tape_create(&t, &o);
  if (!st) st = ade_trace_on(t);
  if (!st) {
    for (size_t i = 0; i < cf->N; i++) u[i] = ade_indep(0.5 + 0.4 * sin(6.283185307179586 * (double)i / (double)cf->N));
    for (size_t k = 0; k < cf->steps; k++) {
      step(cf->N, cur, nxt, f);
      ade_double *x = cur;
      cur = nxt, nxt = x;
    }
    for (size_t i = 0; i < cf->N; i++) ade_dep(cur[i]);
    st = ade_trace_off();
  }
  fail(r, st, "recording");
  r->cpu = cpu_now() - t0;
  if (!st && !ade_tape_stats(t, &s)) r->records = (double)s.records;
  ade_tape_free(t);
}

static int open_tape(const struct cfg *cf, struct res *r, ade_tape **t) {
  int st = ade_tape_open(t, cf->path);
  fail(r, st, "ade_tape_open");
  if (!st && cf->limit) ade_tape_set_memory_limit(*t, cf->limit);
  return st;
}

static void keep(struct res *r, const ade_sparse *J) {
  memset(r->J, 0, sizeof r->J);
  for (size_t i = 0; i < J->m; i++)
    for (size_t k = J->rowptr[i]; k < J->rowptr[i + 1]; k++) r->J[i * J->n + J->col[k]] = J->val[k];
}

static void phase_stream(void *ctx, void *out) {
  const struct cfg *cf = ctx;
  struct res *r = out;
  ade_tape *t = NULL;
  ade_sparse *J = NULL;
  ade_stream_report rep;
  double t0 = cpu_now();
  int st = open_tape(cf, r, &t);
  if (!st) fail(r, st = ade_jacobian_stream(t, NULL, &J, &rep), "ade_jacobian_stream");
  r->cpu = cpu_now() - t0;
  if (!st) {
    keep(r, J);
    r->records = (double)rep.records, r->fma = (double)rep.fma, r->period = (double)rep.period;
    r->parts = (double)rep.parts, r->classes = (double)rep.classes, r->live = (double)rep.max_live;
    r->peak_bytes = (double)rep.peak_bytes, r->reverse_fma = (double)rep.reverse_fma;
  }
  ade_sparse_free(J);
  ade_tape_free(t);
}

static void phase_flat(void *ctx, void *out) {
  const struct cfg *cf = ctx;
  struct res *r = out;
  ade_tape *t = NULL;
  ade_sparse *J = NULL;
  ade_jacobian_report rep;
  double t0 = cpu_now();
  int st = open_tape(cf, r, &t);
  if (!st) fail(r, st = ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &J, &rep), "ade_jacobian");
  r->cpu = cpu_now() - t0;
  if (!st) keep(r, J), r->fma = (double)rep.fma, r->reverse_fma = (double)rep.reverse_cost;
  ade_sparse_free(J);
  ade_tape_free(t);
}

static void phase_dense(void *ctx, void *out) {
  const struct cfg *cf = ctx;
  struct res *r = out;
  ade_tape *t = NULL;
  double t0 = cpu_now();
  int st = open_tape(cf, r, &t);
  if (!st) fail(r, ade_jacobian_dense(t, ADE_REVERSE, NULL, r->J), "ade_jacobian_dense");
  r->cpu = cpu_now() - t0;
  ade_tape_free(t);
}

int main(int argc, char **argv) {
  struct cfg cf = {16, 0, 0, NULL};
  double want = 1e7;
  const char *phases = "sfd";
  char path[] = "/tmp/ade-bench-stream-XXXXXX";
  int opt;
  while ((opt = getopt(argc, argv, "N:r:p:m:o:")) != -1) {
    if (opt == 'N') cf.N = (size_t)atol(optarg);
    else if (opt == 'r') want = atof(optarg);
    else if (opt == 'p') phases = optarg;
    else if (opt == 'm') cf.limit = (size_t)(atof(optarg) * 1048576.0);
    else if (opt == 'o') cf.path = optarg;
    else {
      fprintf(stderr, "usage: bench_stream [-N points] [-r records] [-p sfd] [-m MiB] [-o path]\n");
      return 2;
    }
  }
  if (cf.N < 2 || cf.N > MAXN || want < 100) {
    fprintf(stderr, "bench_stream: -N 2..%d, -r at least 100\n", MAXN);
    return 2;
  }
  if (!cf.path) {
    int fd = mkstemp(path);
    if (fd < 0) return perror("mkstemp"), 1;
    close(fd);
    cf.path = path;
  }
  cf.steps = (size_t)(want / (12.0 * (double)cf.N)) + 1;
  char model[128];
  bench_cpu_model(model, sizeof model);
  printf("# bench_stream: N = %zu points, %zu steps, memory limit %.0f MiB; %s\n", cf.N, cf.steps,
         cf.limit ? (double)cf.limit / 1048576.0 : 256.0, model);
  struct res rec = {0}, ref = {0};
  double rss;
  if (bench_in_child(phase_record, &cf, &rec, sizeof rec, &rss) || rec.status) {
    fprintf(stderr, "bench_stream: %s\n", rec.err);
    return 1;
  }
  printf("%-8s %12s %10s %10s %16s %16s %s\n", "phase", "records", "cpu_s", "rss_MiB", "fma", "reverse_fma",
         "rel_diff / notes");
  printf("%-8s %12.0f %10.2f %10.1f\n", "record", rec.records, rec.cpu, rss);
  int have_ref = 0;
  for (const char *p = phases; *p; p++) {
    struct res r = {0};
    bench_job job = *p == 's' ? phase_stream : *p == 'f' ? phase_flat : *p == 'd' ? phase_dense : NULL;
    const char *name = *p == 's' ? "stream" : *p == 'f' ? "flat" : "reverse";
    if (!job) continue;
    if (bench_in_child(job, &cf, &r, sizeof r, &rss) || r.status) {
      printf("%-8s %12.0f %10.2f %10.1f  failed: %s\n", name, rec.records, r.cpu, rss, r.err);
      continue;
    }
    double diff = have_ref ? bench_rel_diff(r.J, ref.J, cf.N * cf.N) : 0.0;
    if (!have_ref) ref = r, have_ref = 1;
    printf("%-8s %12.0f %10.2f %10.1f %16.0f %16.0f %.2e", name, rec.records, r.cpu, rss, r.fma, r.reverse_fma,
           diff);
    if (*p == 's')
      printf(" period %.0f, %.0f parts, %.0f classes, %.0f live, %.1f MiB counted", r.period, r.parts, r.classes,
             r.live, r.peak_bytes / 1048576.0);
    printf("\n");
    fflush(stdout);
  }
  if (cf.path == path) unlink(path);
  return 0;
}
