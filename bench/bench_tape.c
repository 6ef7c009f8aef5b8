/* bench_tape.c: record the same functions with adelim and (optionally) ADOL-C
 * and print recording time, tape bytes per operation and sweep times side by
 * side, with the agreement of the derivatives. See doc/benchmarks.md. */
#define _POSIX_C_SOURCE 200809L /* getopt, sysconf */
#include <adelim.h>

#include "bench_util.h"
#ifdef BENCH_HAVE_ADOLC
#include "bench_adolc.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Plain double instantiation: the ADE_ macros are double expressions here. */
#define BENCH_REAL double
#define BENCH_FN(name) plain_##name
#include "problems.h"
#undef BENCH_REAL
#undef BENCH_FN

/* Recording instantiation. */
#define BENCH_REAL ade_double
#define BENCH_FN(name) rec_##name
#include "problems.h"
#undef BENCH_REAL
#undef BENCH_FN

/* ------------------------------------------------------------ plain run */

struct plain_ctx {
  const struct bench_problem *p;
  double *x, *w, *y;
};

static void plain_reset(void *v)
{
  struct plain_ctx *c = v;
  memcpy(c->x, c->p->x, c->p->n * sizeof(double));
}

static void plain_run(void *v)
{
  struct plain_ctx *c = v;
  plain_eval(c->p, c->x, c->w, c->y);
}

/* y = F(x0 + h xd) in c->y. */
static void plain_at(struct plain_ctx *c, double h)
{
  for (size_t i = 0; i < c->p->n; i++)
    c->x[i] = c->p->x[i] + h * c->p->xd[i];
  plain_eval(c->p, c->x, c->w, c->y);
}

/* ----------------------------------------------------------- adelim run */

struct ade_result {
  int ok;
  char err[256];
  double records, raw, stored, stored0; /* stored0: level 0 tape bytes */
  double rec_s, rec0_s, recd_s; /* default level, level 0, deferred compression */
  /* Sweeps: [0] the first sweep over a freshly recorded tape, [1] a sweep
   * repeated over the same tape (whatever the tape kept from before). */
  double fwd_s[2], rev_s[2], fwdrev_s[2];
  /* With o.keep = 1: recording, and the first sweeps after it (fwd, rev, fwd+rev). */
  double reck_s, firstk_s[3];
  double resident[2]; /* bytes of the tape's resident form after the sweeps, and with partials */
  double *y, *yd, *xb;
};

struct ade_ctx {
  const struct bench_problem *p;
  ade_double *x, *w, *y;
  ade_tape_options opts;
  ade_tape *tape;
  struct ade_result *r;
  int status;        /* first failure */
};

static void ade_fail(struct ade_ctx *c, int st, const char *what)
{
  if (st >= 0 || c->status < 0)
    return;
  c->status = st;
  snprintf(c->r->err, sizeof c->r->err, "%s: %s (%s)", what, ade_errname(st), ade_errmsg());
}

static void ade_record(void *v)
{
  struct ade_ctx *c = v;
  const struct bench_problem *p = c->p;
  int st = ade_tape_create(&c->tape, &c->opts);
  if (st == ADE_OK)
    st = ade_trace_on(c->tape);
  if (st != ADE_OK) {
    ade_fail(c, st, "ade_tape_create/ade_trace_on");
    return;
  }
  for (size_t i = 0; i < p->n; i++)
    c->x[i] = ade_indep(p->x[i]);
  rec_eval(p, c->x, c->w, c->y);
  for (size_t j = 0; j < p->m; j++)
    ade_dep(c->y[j]);
  ade_fail(c, ade_trace_off(), "ade_trace_off");
}

static void ade_drop(void *v)
{
  struct ade_ctx *c = v;
  ade_tape_free(c->tape);
  c->tape = NULL;
}

/* Untimed: replace the tape by a freshly recorded one (a cold sweep next). */
static void ade_fresh(void *v)
{
  ade_drop(v);
  ade_record(v);
}

static void ade_fwd(void *v)
{
  struct ade_ctx *c = v;
  ade_fail(c, ade_tangent(c->tape, c->p->x, c->p->xd, c->r->y, c->r->yd), "ade_tangent");
}

static void ade_rev(void *v)
{
  struct ade_ctx *c = v;
  ade_fail(c, ade_adjoint(c->tape, NULL, c->p->yb, c->r->xb), "ade_adjoint(x = NULL)");
}

static void ade_fwdrev(void *v)
{
  struct ade_ctx *c = v;
  ade_fail(c, ade_adjoint(c->tape, c->p->x, c->p->yb, c->r->xb), "ade_adjoint(x)");
}

/* Record once more with c->opts and keep the tape for statistics. */
static int ade_keep(struct ade_ctx *c, ade_stats *s)
{
  ade_record(c);
  if (c->status < 0)
    return -1;
  const int st = ade_tape_stats(c->tape, s);
  ade_fail(c, st, "ade_tape_stats");
  return st < 0 ? -1 : 0;
}

static void ade_bench(const struct bench_problem *p, struct ade_result *r)
{
  struct ade_ctx c = {p, NULL, NULL, NULL, {0}, NULL, r, 0};
  ade_stats s;
  memset(r, 0, sizeof *r);
  r->y = bench_xmalloc(p->m, sizeof(double));
  r->yd = bench_xmalloc(p->m, sizeof(double));
  r->xb = bench_xmalloc(p->n, sizeof(double));
  c.x = bench_xmalloc(p->n, sizeof(ade_double));
  c.w = bench_xmalloc(p->nwork, sizeof(ade_double));
  c.y = bench_xmalloc(p->m, sizeof(ade_double));

  ade_tape_options_init(&c.opts);
  c.opts.level = 0;
  r->rec0_s = bench_time(NULL, ade_record, ade_drop, &c);
  if (ade_keep(&c, &s) == 0)
    r->stored0 = (double)s.stored_bytes;
  ade_drop(&c);
  ade_tape_options_init(&c.opts);
  c.opts.defer = 1;
  r->recd_s = bench_time(NULL, ade_record, ade_drop, &c);
  ade_drop(&c);
  ade_tape_options_init(&c.opts); /* the default level */
  r->rec_s = bench_time(NULL, ade_record, ade_drop, &c);
  if (ade_keep(&c, &s) == 0) {
    r->records = (double)s.records;
    r->raw = (double)s.raw_bytes;
    r->stored = (double)s.stored_bytes;
    r->fwd_s[0] = bench_time(ade_fresh, ade_fwd, NULL, &c);
    r->fwd_s[1] = bench_time(NULL, ade_fwd, NULL, &c);
    r->rev_s[0] = bench_time(ade_fresh, ade_rev, NULL, &c);
    r->rev_s[1] = bench_time(NULL, ade_rev, NULL, &c);
    r->fwdrev_s[0] = bench_time(ade_fresh, ade_fwdrev, NULL, &c);
    r->fwdrev_s[1] = bench_time(NULL, ade_fwdrev, NULL, &c);
    ade_fwd(&c); /* leave y and yd from the tangent sweep */
    r->resident[0] = (double)ade_tape_resident_bytes(c.tape);
    ade_rev(&c); /* untimed: the second sweep at the recorded point adds its partials */
    ade_rev(&c);
    r->resident[1] = (double)ade_tape_resident_bytes(c.tape);
  }
  ade_drop(&c);
  c.opts.keep = 1; /* the default level, the tape left decoded */
  r->reck_s = bench_time(NULL, ade_record, ade_drop, &c);
  ade_record(&c);
  r->firstk_s[0] = bench_time(ade_fresh, ade_fwd, NULL, &c);
  r->firstk_s[1] = bench_time(ade_fresh, ade_rev, NULL, &c);
  r->firstk_s[2] = bench_time(ade_fresh, ade_fwdrev, NULL, &c);
  ade_drop(&c);
  r->ok = c.status >= 0;
  free(c.x);
  free(c.w);
  free(c.y);
}

/* ------------------------------------------------------------- reporting */

struct row {
  const struct bench_problem *p;
  double plain_s;
  double *y;            /* plain values */
  double fd_rel;        /* central difference vs a tangent */
  struct ade_result a;
#ifdef BENCH_HAVE_ADOLC
  int have_c;
  struct bench_adolc_result c;
#endif
};

static void fmt(char *buf, size_t size, const char *f, double v, int ok)
{
  if (ok && isfinite(v))
    snprintf(buf, size, f, v);
  else
    snprintf(buf, size, "n/a");
}

/* Print one "| ... |" cell; ok == 0 prints n/a. */
static void cell(const char *f, double v, int ok)
{
  char b[64];
  fmt(b, sizeof b, f, v, ok);
  printf(" %s |", b);
}

static void print_machine(void)
{
  char model[256];
  bench_cpu_model(model, sizeof model);
  printf("machine: %s, %ld online CPUs; adelim %d.%d.%d; timings: min of >= %d runs"
         " (more while %.2f s last, at most %d)\n\n",
         model, sysconf(_SC_NPROCESSORS_ONLN), ADE_VERSION_MAJOR, ADE_VERSION_MINOR,
         ADE_VERSION_PATCH, bench_timing.kmin, bench_timing.budget, bench_timing.kmax);
}

#ifdef BENCH_HAVE_ADOLC
#define HAVE_C(r) ((r)->have_c)
#define C_(r, field) ((r)->c.field)
#else
#define HAVE_C(r) 0
#define C_(r, field) 0.0
#endif

static void print_sizes(const struct row *rows, int k)
{
  printf("Tape size (bytes per operation; each tool divides by its own operation count)\n\n");
  printf("| problem | n | m | adelim ops | ADOL-C ops | ADOL-C B/op | adelim raw B/op |"
         " adelim zstd B/op | adelim level-0 B/op | zstd/ADOL-C per op |"
         " zstd/ADOL-C total bytes |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    const int a = r->a.ok && r->a.records > 0, c = HAVE_C(r);
    const double ab = a ? r->a.stored / r->a.records : 0, cb = c ? C_(r, bytes) / C_(r, ops) : 0;
    printf("| %s | %zu | %zu |", r->p->name, r->p->n, r->p->m);
    cell("%.0f", r->a.records, a);
    cell("%.0f", C_(r, ops), c);
    cell("%.2f", cb, c);
    cell("%.2f", a ? r->a.raw / r->a.records : 0, a);
    cell("%.2f", ab, a);
    cell("%.2f", a ? r->a.stored0 / r->a.records : 0, a);
    cell("%.3f", ab / cb, a && c);
    cell("%.3f", r->a.stored / C_(r, bytes), a && c);
    printf("\n");
  }
  printf("\nADOL-C bytes = operations x 1 + locations x 4 + values x 8 + Taylors x 8"
         " (TAY_STACK_SIZE, keep = 1): what one fos_reverse needs.\n");
  for (int i = 0; i < k; i++)
    if (HAVE_C(&rows[i]))
      printf("ADOL-C %s: %.0f operations, %.0f locations, %.0f values, %.0f Taylors,"
             " %.0f bytes; adelim: %.0f records, %.0f raw, %.0f stored bytes\n",
             rows[i].p->name, C_(&rows[i], ops), C_(&rows[i], locs), C_(&rows[i], vals),
             C_(&rows[i], tays), C_(&rows[i], bytes), rows[i].a.records, rows[i].a.raw,
             rows[i].a.stored);
  printf("adelim B/op = ade_tape_stats raw_bytes / records (raw), stored_bytes / records"
         " (zstd at the default level; level 0 stores chunks raw).\n\n");
}

static void print_times(const struct row *rows, int k)
{
  printf("Recording time relative to the plain double evaluation\n\n");
  printf("| problem | plain ms | adelim | adelim level 0 | adelim deferred | ADOL-C keep=0 |"
         " ADOL-C keep=1 |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    const int a = r->a.ok && r->a.records > 0, c = HAVE_C(r);
    printf("| %s | %.4f |", r->p->name, 1e3 * r->plain_s);
    cell("%.1f", r->a.rec_s / r->plain_s, a);
    cell("%.1f", r->a.rec0_s / r->plain_s, a);
    cell("%.1f", r->a.recd_s / r->plain_s, a);
    cell("%.1f", C_(r, rec_s) / r->plain_s, c);
    cell("%.1f", C_(r, rec_keep_s) / r->plain_s, c);
    printf("\n");
  }
  printf("\nadelim: ade_tape_create + ade_trace_on + ade_indep .. ade_dep + ade_trace_off"
         " (memory tape; ade_tape_free untimed);\n"
         "deferred: o.defer = 1, chunks kept raw until ade_tape_save compresses them.\n"
         "ADOL-C: trace_on(tag, keep) + <<= .. >>= + trace_off (tape in memory buffers).\n\n");
  printf("Sweep time, ms (adelim: first sweep after recording / repeated on the same tape)\n\n");
  printf("| problem | adelim fwd first | again | ADOL-C fwd | adelim rev first | again |"
         " ADOL-C rev | adelim fwd+rev first | again | ADOL-C fwd+rev |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    const int a = r->a.ok && r->a.records > 0, c = HAVE_C(r);
    printf("| %s |", r->p->name);
    cell("%.4f", 1e3 * r->a.fwd_s[0], a);
    cell("%.4f", 1e3 * r->a.fwd_s[1], a);
    cell("%.4f", 1e3 * C_(r, fwd_s), c);
    cell("%.4f", 1e3 * r->a.rev_s[0], a);
    cell("%.4f", 1e3 * r->a.rev_s[1], a);
    cell("%.4f", 1e3 * C_(r, rev_s), c);
    cell("%.4f", 1e3 * r->a.fwdrev_s[0], a);
    cell("%.4f", 1e3 * r->a.fwdrev_s[1], a);
    cell("%.4f", 1e3 * C_(r, fwdrev_s), c);
    printf("\n");
  }
  printf("\nfwd: adelim ade_tangent(x, xd) vs ADOL-C fos_forward(keep = 0); both compute y and y'.\n"
         "rev: adelim ade_adjoint(x = NULL: the recorded values) vs ADOL-C fos_reverse alone"
         " (after an untimed zos_forward(keep = 1)).\n"
         "fwd+rev: adelim ade_adjoint(x) vs ADOL-C zos_forward(keep = 1) + fos_reverse.\n"
         "first: each timed sweep runs on a tape recorded (untimed) just before it.\n\n");
  printf("With o.keep = 1 (the recorder leaves the resident form behind; ADOL-C: trace_on(tag, 1)):\n"
         "recording relative to the plain evaluation, first sweeps after it in ms, and ratios\n\n");
  printf("| problem | adelim keep | ADOL-C keep=1 | adelim keep / ADOL-C keep=1 | adelim keep / adelim |"
         " fwd first | / ADOL-C fwd | rev first | / ADOL-C rev | fwd+rev first | / ADOL-C fwd+rev |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    const int a = r->a.ok && r->a.records > 0, c = HAVE_C(r);
    printf("| %s |", r->p->name);
    cell("%.1f", r->a.reck_s / r->plain_s, a);
    cell("%.1f", C_(r, rec_keep_s) / r->plain_s, c);
    cell("%.2f", r->a.reck_s / C_(r, rec_keep_s), a && c);
    cell("%.2f", r->a.reck_s / r->a.rec_s, a);
    cell("%.4f", 1e3 * r->a.firstk_s[0], a);
    cell("%.2f", r->a.firstk_s[0] / C_(r, fwd_s), a && c);
    cell("%.4f", 1e3 * r->a.firstk_s[1], a);
    cell("%.2f", r->a.firstk_s[1] / C_(r, rev_s), a && c);
    cell("%.4f", 1e3 * r->a.firstk_s[2], a);
    cell("%.2f", r->a.firstk_s[2] / C_(r, fwdrev_s), a && c);
    printf("\n");
  }
  printf("\n");
  printf("Resident form (ade_tape_resident_bytes; built by a tape's second sweep), after sweeps at x\n"
         "and after two more at the recorded point (the second adds the partials there):\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    if (r->a.ok && r->a.records > 0)
      printf("  %s: %.0f bytes = %.2f B/record; %.0f bytes = %.2f B/record\n", r->p->name, r->a.resident[0],
             r->a.resident[0] / r->a.records, r->a.resident[1], r->a.resident[1] / r->a.records);
  }
  printf("\n");
}

static void print_checks(const struct row *rows, int k)
{
  printf("Agreement (normwise relative: max|a - b| / max|b|)\n\n");
  printf("| problem | adelim y vs plain | ADOL-C y vs plain | adelim vs ADOL-C tangent |"
         " adelim vs ADOL-C adjoint | central difference vs tangent |"
         " adelim <yb,yd> - <xb,xd> (rel) |\n");
  printf("|---|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    const struct bench_problem *p = r->p;
    const int a = r->a.ok && r->a.records > 0, c = HAVE_C(r);
    double dy = 0, dc = 0, dt = 0, dx = 0, dot = 0;
    if (a) {
      const double l = bench_dot(p->yb, r->a.yd, p->m), rr = bench_dot(r->a.xb, p->xd, p->n);
      dy = bench_rel_diff(r->a.y, r->y, p->m);
      dot = fabs(l - rr) / fmax(fabs(l), fabs(rr));
    }
#ifdef BENCH_HAVE_ADOLC
    if (c)
      dc = bench_rel_diff(r->c.y, r->y, p->m);
    if (a && c) {
      dt = bench_rel_diff(r->a.yd, r->c.yd, p->m);
      dx = bench_rel_diff(r->a.xb, r->c.xb, p->n);
    }
#endif
    printf("| %s |", p->name);
    cell("%.1e", dy, a);
    cell("%.1e", dc, c);
    cell("%.1e", dt, a && c);
    cell("%.1e", dx, a && c);
    cell("%.1e", r->fd_rel, a || c);
    cell("%.1e", dot, a);
    printf("\n");
  }
  printf("\n");
}

#ifdef BENCH_HAVE_ADOLC
static const char *met(double ratio, double target, int ok)
{
  return !ok || !isfinite(ratio) ? "n/a" : ratio <= target ? "met" : "NOT met";
}

static void print_targets(const struct row *rows, int k)
{
  printf("Targets (adelim / ADOL-C)\n\n");
  printf("| problem | tape per op (<= 1/3) | | tape total (<= 1/3) | |"
         " recording (<= 1) | | deferred (<= 1) | | reverse first (<= 1) | | reverse again (<= 1) | |"
         " forward first | fwd+rev first |\n");
  printf("|---|--:|---|--:|---|--:|---|--:|---|--:|---|--:|---|--:|--:|\n");
  for (int i = 0; i < k; i++) {
    const struct row *r = &rows[i];
    const int ok = r->a.ok && r->a.records > 0 && HAVE_C(r);
    const double v[6] = {
        ok ? (r->a.stored / r->a.records) / (C_(r, bytes) / C_(r, ops)) : (double)NAN,
        ok ? r->a.stored / C_(r, bytes) : (double)NAN,
        ok ? r->a.rec_s / C_(r, rec_s) : (double)NAN,
        ok ? r->a.recd_s / C_(r, rec_s) : (double)NAN,
        ok ? r->a.rev_s[0] / C_(r, rev_s) : (double)NAN,
        ok ? r->a.rev_s[1] / C_(r, rev_s) : (double)NAN};
    const double target[6] = {1.0 / 3.0, 1.0 / 3.0, 1.0, 1.0, 1.0, 1.0};
    printf("| %s |", r->p->name);
    for (int j = 0; j < 6; j++) {
      cell(j < 2 ? "%.3f" : "%.2f", v[j], ok);
      printf(" %s |", met(v[j], target[j], ok));
    }
    cell("%.2f", ok ? r->a.fwd_s[0] / C_(r, fwd_s) : (double)NAN, ok);
    cell("%.2f", ok ? r->a.fwdrev_s[0] / C_(r, fwdrev_s) : (double)NAN, ok);
    printf("\n");
  }
  printf("\ntape: adelim stored bytes (default zstd level) vs ADOL-C operations + locations +"
         " values + Taylors (keep = 1);\nrecording: adelim at the default level vs ADOL-C"
         " trace_on(tag, 0); reverse: ade_adjoint(x = NULL) vs fos_reverse.\n");
}
#endif

/* ------------------------------------------------------------------ main */

static void run_problem(struct row *r)
{
  const struct bench_problem *p = r->p;
  struct plain_ctx pc = {p, bench_xmalloc(p->n, sizeof(double)),
                         bench_xmalloc(p->nwork, sizeof(double)),
                         bench_xmalloc(p->m, sizeof(double))};
  const double *yd = NULL;
  r->plain_s = bench_time(plain_reset, plain_run, NULL, &pc);
  r->y = bench_xmalloc(p->m, sizeof(double));
  plain_reset(&pc);
  plain_run(&pc);
  memcpy(r->y, pc.y, p->m * sizeof(double));

  ade_bench(p, &r->a);
  if (!r->a.ok)
    fprintf(stderr, "bench_tape: %s: adelim failed: %s\n", p->name, r->a.err);
  else
    yd = r->a.yd;
#ifdef BENCH_HAVE_ADOLC
  r->have_c = bench_adolc_run(p, &r->c) == 0;
  if (!r->have_c)
    fprintf(stderr, "bench_tape: %s: an ADOL-C driver reported an error\n", p->name);
  if (r->c.spilled)
    fprintf(stderr, "bench_tape: %s: ADOL-C tape spilled to disk\n", p->name);
  if (!yd && r->have_c)
    yd = r->c.yd;
#endif
  /* Central difference of the plain code along xd, h ~ eps^(1/3). */
  r->fd_rel = (double)NAN;
  if (yd) {
    double *fd = bench_xmalloc(p->m, sizeof(double));
    const double h = 1e-5;
    plain_at(&pc, h);
    memcpy(fd, pc.y, p->m * sizeof(double));
    plain_at(&pc, -h);
    for (size_t j = 0; j < p->m; j++)
      fd[j] = (fd[j] - pc.y[j]) / (2.0 * h);
    r->fd_rel = bench_rel_diff(fd, yd, p->m);
    free(fd);
  }
  free(pc.x);
  free(pc.w);
  free(pc.y);
}

static void usage(const char *argv0)
{
  fprintf(stderr,
          "usage: %s [-C] [-s pde_steps] [-k min_runs] [-b budget_seconds] [problem...]\n"
          "-C: thread CPU time instead of wall time\n"
          "problems: speelpenning bratu2d pde1d (default: all)\n",
          argv0);
}

int main(int argc, char **argv)
{
  size_t steps = 0;
  int opt, want[BENCH_NPROBLEMS] = {0}, any = 0;
  while ((opt = getopt(argc, argv, "s:k:b:Ch")) != -1) {
    if (opt == 'C')
      bench_timing.cpu = 1;
    else if (opt == 's')
      steps = (size_t)strtoull(optarg, NULL, 10);
    else if (opt == 'k')
      bench_timing.kmin = atoi(optarg);
    else if (opt == 'b')
      bench_timing.budget = atof(optarg);
    else {
      usage(argv[0]);
      return opt == 'h' ? 0 : 2;
    }
  }
  for (int i = optind; i < argc; i++) {
    struct bench_problem q;
    int found = 0;
    for (int id = 0; id < BENCH_NPROBLEMS; id++) {
      if (bench_problem_init(&q, id, 1) != 0)
        return 2;
      if (strcmp(argv[i], q.name) == 0)
        want[id] = found = any = 1;
      bench_problem_free(&q);
    }
    if (!found) {
      usage(argv[0]);
      return 2;
    }
  }

  struct bench_problem probs[BENCH_NPROBLEMS];
  struct row rows[BENCH_NPROBLEMS];
  int k = 0;
#ifdef BENCH_HAVE_ADOLC
  bench_adolc_setup((size_t)1 << 24);
#endif
  print_machine();
  for (int id = 0; id < BENCH_NPROBLEMS; id++) {
    if (any && !want[id])
      continue;
    if (bench_problem_init(&probs[k], id, steps) != 0)
      return 2;
    memset(&rows[k], 0, sizeof rows[k]);
    rows[k].p = &probs[k];
    run_problem(&rows[k]);
    k++;
  }
  print_sizes(rows, k);
  print_times(rows, k);
  print_checks(rows, k);
#ifdef BENCH_HAVE_ADOLC
  print_targets(rows, k);
#else
  printf("Built without ADOL-C (configure --with-adolc): no comparison.\n");
#endif
  int status = 0;
  for (int i = 0; i < k; i++) {
    status |= !rows[i].a.ok;
    free(rows[i].y);
    free(rows[i].a.y);
    free(rows[i].a.yd);
    free(rows[i].a.xb);
#ifdef BENCH_HAVE_ADOLC
    free(rows[i].c.y);
    free(rows[i].c.yd);
    free(rows[i].c.xb);
#endif
    bench_problem_free(&probs[i]);
  }
  return status;
}
