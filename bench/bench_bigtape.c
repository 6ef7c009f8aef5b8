/* bench_bigtape.c: record a long PDE run (problems.h) onto a file-backed tape
 * and measure peak resident memory while recording and while sweeping the
 * tape back, against the tape's size on disk. Each phase runs in its own
 * child process, so each peak (wait4's ru_maxrss) is that phase's alone. */
#define _POSIX_C_SOURCE 200809L
#include <adelim.h>

#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define BENCH_REAL double
#define BENCH_FN(name) plain_##name
#include "problems.h"
#undef BENCH_REAL
#undef BENCH_FN

#define BENCH_REAL ade_double
#define BENCH_FN(name) rec_##name
#include "problems.h"
#undef BENCH_REAL
#undef BENCH_FN

/* What a phase sends back to the parent through a pipe. */
struct phase_result {
  int status;            /* ADE_OK or the failing status */
  double seconds;        /* the phase's timed part */
  double records, raw, stored, chunks;
  double y;              /* function value */
  double dot;            /* forward: yb . yd; reverse: xb . xd */
  double peak_live;      /* reverse: ade_tape_peak_live */
  double rss_mib;        /* filled by the parent from wait4 */
  char err[200];
};

struct config {
  const char *path;
  int level;
  size_t limit;          /* memory limit of the last adjoint sweep, bytes */
  struct bench_problem p;
};

static void fail(struct phase_result *r, int st, const char *what)
{
  if (st >= 0 || r->status < 0)
    return;
  r->status = st;
  snprintf(r->err, sizeof r->err, "%s: %s (%s)", what, ade_errname(st), ade_errmsg());
}

/* Phase 0: the plain double evaluation (baseline memory and the value). */
static void phase_plain(const struct config *cf, struct phase_result *r)
{
  const struct bench_problem *p = &cf->p;
  double *x = bench_xmalloc(p->n, sizeof *x), *w = bench_xmalloc(p->nwork, sizeof *w);
  memcpy(x, p->x, p->n * sizeof *x);
  const double t0 = bench_now();
  plain_eval(p, x, w, &r->y);
  r->seconds = bench_now() - t0;
  free(x);
  free(w);
}

/* Phase 1: record onto the file tape. */
static void phase_record(const struct config *cf, struct phase_result *r)
{
  const struct bench_problem *p = &cf->p;
  ade_double *x = bench_xmalloc(p->n, sizeof *x), *w = bench_xmalloc(p->nwork, sizeof *w), y;
  ade_tape_options o;
  ade_tape *t = NULL;
  ade_stats s;
  ade_tape_options_init(&o);
  o.path = cf->path;
  if (cf->level >= 0)
    o.level = cf->level;
  const double t0 = bench_now();
  int st = ade_tape_create(&t, &o);
  if (st == ADE_OK)
    st = ade_trace_on(t);
  if (st == ADE_OK) {
    for (size_t i = 0; i < p->n; i++)
      x[i] = ade_indep(p->x[i]);
    rec_eval(p, x, w, &y);
    r->y = ade_dep(y);
    st = ade_trace_off();
  }
  r->seconds = bench_now() - t0;
  fail(r, st, "recording");
  if (st == ADE_OK) {
    fail(r, st = ade_tape_stats(t, &s), "ade_tape_stats");
    if (st == ADE_OK) {
      r->records = (double)s.records, r->raw = (double)s.raw_bytes;
      r->stored = (double)s.stored_bytes, r->chunks = (double)s.chunks;
    }
  }
  ade_tape_free(t);
  free(x);
  free(w);
}

/* Phases 2 to 4: open the file (streaming) and sweep it; limit != 0 sets
 * the tape's memory limit. */
static void phase_sweep(const struct config *cf, struct phase_result *r, int reverse,
                        size_t limit)
{
  const struct bench_problem *p = &cf->p;
  double *xb = bench_xmalloc(p->n, sizeof *xb), yd = 0.0;
  ade_tape *t = NULL;
  const double t0 = bench_now();
  int st = ade_tape_open(&t, cf->path);
  fail(r, st, "ade_tape_open");
  if (st == ADE_OK && limit)
    ade_tape_set_memory_limit(t, limit);
  if (st == ADE_OK && reverse)
    fail(r, ade_adjoint(t, NULL, p->yb, xb), "ade_adjoint");
  else if (st == ADE_OK)
    fail(r, ade_tangent(t, NULL, p->xd, &r->y, &yd), "ade_tangent");
  r->seconds = bench_now() - t0;
  r->dot = reverse ? bench_dot(xb, p->xd, p->n) : p->yb[0] * yd;
  r->peak_live = reverse && t ? (double)ade_tape_peak_live(t) : 0.0;
  ade_tape_free(t);
  free(xb);
}

/* Phase 5: the gradient at a new point x1 = 1.001 x0 within the memory
 * limit (values recomputed per chunk, no value array); r->y is f(x1), r->dot
 * the plain evaluation's f(x1). */
static void phase_newpoint(const struct config *cf, struct phase_result *r)
{
  const struct bench_problem *p = &cf->p;
  double *x = bench_xmalloc(p->n, sizeof *x), *g = bench_xmalloc(p->n, sizeof *g);
  double *w = bench_xmalloc(p->nwork, sizeof *w);
  for (size_t i = 0; i < p->n; i++)
    x[i] = 1.001 * p->x[i];
  ade_tape *t = NULL;
  const double t0 = bench_now();
  int st = ade_tape_open(&t, cf->path);
  fail(r, st, "ade_tape_open");
  if (st == ADE_OK) {
    ade_tape_set_memory_limit(t, cf->limit);
    fail(r, ade_gradient(t, x, &r->y, g), "ade_gradient");
  }
  r->seconds = bench_now() - t0;
  r->peak_live = t ? (double)ade_tape_peak_live(t) : 0.0;
  ade_tape_free(t);
  plain_eval(p, x, w, &r->dot);
  free(x);
  free(g);
  free(w);
}

static void run_phase(const struct config *cf, int phase, struct phase_result *r)
{
  if (phase == 0)
    phase_plain(cf, r);
  else if (phase == 1)
    phase_record(cf, r);
  else if (phase < 5)
    /* The tangent keeps one value per variable, beyond the default memory
     * limit on a long run: lift the limit for it. */
    phase_sweep(cf, r, phase >= 3, phase == 4 ? cf->limit : phase == 2 ? SIZE_MAX : 0);
  else
    phase_newpoint(cf, r);
}

struct phase_job {
  const struct config *cf;
  int phase;
};

static void phase_job_run(void *ctx, void *out)
{
  const struct phase_job *j = ctx;
  run_phase(j->cf, j->phase, out);
}

/* Run the phase in a child process: its result and its own peak RSS. */
static int in_child(const struct config *cf, int phase, struct phase_result *r)
{
  struct phase_job j = {cf, phase};
  memset(r, 0, sizeof *r);
  if (bench_in_child(phase_job_run, &j, r, sizeof *r, &r->rss_mib) != 0 && !r->err[0]) {
    snprintf(r->err, sizeof r->err, "phase %d failed in its child process", phase);
    r->status = ADE_EIO;
  }
  return 0;
}

static void usage(const char *argv0)
{
  fprintf(stderr,
          "usage: %s [-s steps] [-l level] [-m MiB] [-o tape.adt] [-k]\n"
          "  -s steps  PDE time steps (default 8334: about 10^8 operations)\n"
          "  -l level  zstd level of the tape (default: adelim's default)\n"
          "  -m MiB    memory limit of the last adjoint sweep (default 16)\n"
          "  -o path   tape file (default $TMPDIR or /tmp, bench_bigtape.adt)\n"
          "  -k        keep the tape file\n",
          argv0);
}

static void print_row(const char *phase, const struct phase_result *r, const char *note)
{
  printf("| %s | %.2f | %.1f | %s |\n", phase, r->seconds, r->rss_mib,
         r->status < 0 ? r->err : note);
}

int main(int argc, char **argv)
{
  struct config cf = {NULL, -1, (size_t)16 << 20, {0}};
  size_t steps = 8334;
  int opt, keep = 0;
  char def[4096];
  const char *tmp = getenv("TMPDIR");
  snprintf(def, sizeof def, "%s/bench_bigtape.adt", tmp && *tmp ? tmp : "/tmp");
  cf.path = def;
  while ((opt = getopt(argc, argv, "s:l:m:o:kh")) != -1) {
    if (opt == 's')
      steps = (size_t)strtoull(optarg, NULL, 10);
    else if (opt == 'l')
      cf.level = atoi(optarg);
    else if (opt == 'm')
      cf.limit = (size_t)(atof(optarg) * 1048576.0);
    else if (opt == 'o')
      cf.path = optarg;
    else if (opt == 'k')
      keep = 1;
    else {
      usage(argv[0]);
      return opt == 'h' ? 0 : 2;
    }
  }
  if (bench_problem_init(&cf.p, BENCH_PDE, steps) != 0)
    return 2;

  enum { NPHASES = 6 };
  struct phase_result r[NPHASES];
  char limit_name[96], point_name[96];
  snprintf(limit_name, sizeof limit_name, "adjoint sweep (file, x = NULL, memory limit %.0f MiB)",
           (double)cf.limit / 1048576.0);
  snprintf(point_name, sizeof point_name, "gradient (file, x = 1.001 x0, memory limit %.0f MiB)",
           (double)cf.limit / 1048576.0);
  const char *names[NPHASES] = {"plain double evaluation", "record to file",
                                "tangent sweep (file, x = NULL)",
                                "adjoint sweep (file, x = NULL, default memory limit)", limit_name,
                                point_name};
  for (int ph = 0; ph < NPHASES; ph++)
    if (in_child(&cf, ph, &r[ph]) != 0 || (ph == 1 && r[1].status < 0)) {
      fprintf(stderr, "bench_bigtape: %s failed: %s\n", names[ph],
              r[ph].err[0] ? r[ph].err : strerror(errno));
      if (!keep)
        remove(cf.path);
      return 1;
    }

  struct stat sb;
  const double disk = stat(cf.path, &sb) == 0 ? (double)sb.st_size : -1.0;
  const double ops = r[1].records, mib = 1024.0 * 1024.0;
  printf("PDE: %zu points, %zu steps, %.0f records, %.0f chunks, tape %s\n",
         cf.p.grid, cf.p.steps, ops, r[1].chunks, cf.path);
  printf("tape on disk %.1f MiB (%.2f B/op); raw columns %.1f MiB (%.2f B/op);"
         " one double per record would be %.1f MiB\n\n",
         disk / mib, disk / ops, r[1].raw / mib, r[1].raw / ops, 8.0 * ops / mib);
  printf("| phase | seconds | peak RSS MiB | note |\n|---|--:|--:|---|\n");
  char note[200];
  print_row(names[0], &r[0], "baseline");
  snprintf(note, sizeof note, "y = %.17g (plain %.17g)", r[1].y, r[0].y);
  print_row(names[1], &r[1], note);
  print_row(names[2], &r[2], "one value per variable");
  for (int ph = 3; ph < 5; ph++) {
    snprintf(note, sizeof note, "peak live adjoints %.0f; |yb.yd - xb.xd| / |xb.xd| = %.1e",
             r[ph].peak_live, fabs(r[2].dot - r[ph].dot) / fabs(r[ph].dot));
    print_row(names[ph], &r[ph], note);
  }
  snprintf(note, sizeof note, "peak live adjoints %.0f; f = %.17g (plain %.17g)", r[5].peak_live,
           r[5].y, r[5].dot);
  print_row(names[5], &r[5], note);
  if (!keep)
    remove(cf.path);
  bench_problem_free(&cf.p);
  return r[2].status < 0 || r[3].status < 0 || r[4].status < 0 || r[5].status < 0;
}
