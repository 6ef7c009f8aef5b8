/* mkcorpus.c: seed tapes for the tape-reader fuzzers, and checksum repair for fuzz findings.
 * mkcorpus DIR: write small valid tapes into DIR (levels 0/1/3, chunk sizes
 * 1/7/64, capture on and off, regions, diagnostics, comparisons, every
 * operation, constants, imports across chunks, an incomplete tape, a long
 * region name); each must read back and verify, or mkcorpus fails.
 * mkcorpus --fix-sums FILE...: recompute every checksum of each file in place
 * (header, frame headers, payloads, trailer), so that an input found by the
 * checksum-blind fuzzer reaches the same code in a normal build.
 * Exit 0, or 1 with a message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutate.h"
#include "tape_internal.h"

/* Every operation once (operands chosen inside each domain), with constant
 * operands mixed in; nonzero kink adds a non-differentiable point. */
static void model_all(int kink) {
  ade_double x0 = ade_indep(0.3815), x1 = ade_indep(1.7125), x2 = ade_indep(-0.6127);
  ade_region_begin("unary");
  ade_double u[] = {ade_neg(x0),   ade_sqrt(x1),  ade_cbrt(x2),  ade_exp(x0),   ade_expm1(x0),
                    ade_log(x1),   ade_log1p(x0), ade_log10(x1), ade_sin(x2),   ade_cos(x2),
                    ade_tan(x0),   ade_asin(x0),  ade_acos(x0),  ade_atan(x2),  ade_sinh(x0),
                    ade_cosh(x2),  ade_tanh(x1),  ade_asinh(x2), ade_acosh(x1), ade_atanh(x0),
                    ade_erf(x2),   ade_erfc(x0),  ade_fabs(x2),  ade_square(x1), ade_floor(x1),
                    ade_ceil(x2),  ade_trunc(x2), ade_round(x1)};
  ade_region_end();
  ade_region_begin("binary");
  ade_region_begin("constants");
  ade_double b[] = {ADE_ADD(x0, x1),    ADE_SUB(x1, 2.5),    ADE_MUL(2.25, x2),   ADE_DIV(x0, x1),
                    ADE_POW(x1, x0),    ADE_POW(x1, 2.5),    ADE_ATAN2(x2, x0),   ADE_HYPOT(x0, x2),
                    ADE_FMIN(x0, x2),   ADE_FMAX(x0, 0.125), ADE_COPYSIGN(x1, x2),
                    ADE_FMA(x0, x1, 0.5), ADE_FMA(x2, 3.0, x0)};
  ade_region_end();
  ade_region_end();
  int c = ADE_LT(x0, x1) + ADE_LE(x1, 2.0) + ADE_GT(x2, x0) + ADE_GE(x0, x0) + ADE_EQ(x1, x1) +
          ADE_NE(x0, x2);
  ade_double s = ade_passive((double)c);
  for (size_t i = 0; i < sizeof u / sizeof *u; i++) s = ADE_ADD(s, u[i]);
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) s = ADE_ADD(s, b[i]);
  ade_dep(s);
  if (kink) ade_dep(ADE_FABS(ADE_SUB(x2, x2))); /* fabs at 0: a kink diagnostic */
  ade_dep(ADE_MUL(u[3], x1));                   /* operand from far back: an import */
}

/* A few records, so chunks of one record stay small; every operand of the
 * later records is imported from earlier chunks. */
static void model_small(void) {
  ade_double x = ade_indep(0.7321), y = ade_indep(-1.1875);
  ade_region_begin("small");
  ade_double t = ADE_MUL(x, y);
  ade_double u = ADE_SIN(ADE_ADD(t, 0.5));
  if (ADE_GT(u, x)) u = ADE_NEG(u);
  ade_region_end();
  ade_dep(ADE_DIV(u, y));
  ade_dep(ADE_SQRT(ADE_SUB(x, x))); /* sqrt at 0: a singular diagnostic */
}

/* A loop of comparisons and branches (a recorded control flow). */
static void model_branches(void) {
  ade_double x = ade_indep(1.3125), y = ade_indep(0.4375);
  for (int k = 0; k < 6; k++) {
    if (ADE_LT(x, y)) x = ADE_ADD(x, ADE_MUL(0.5, y));
    else y = ADE_ADD(y, ADE_FMIN(x, 1.0));
    if (ADE_NE(ADE_FLOOR(x), ADE_CEIL(y))) x = ADE_LOG1P(ADE_FABS(x));
  }
  ade_dep(x);
  ade_dep(y);
  ade_dep(ADE_LOG(ADE_SUB(x, 100.0))); /* log of a negative: a non-finite diagnostic */
}

static void model_empty(void) {}

/* A region name longer than the format's strings (< 4096 bytes): it is cut,
 * and the tape must still read back. */
static void model_long_name(void) {
  static char name[5000];
  memset(name, 'r', sizeof name - 1);
  ade_region_begin(name);
  ade_double x = ade_indep(0.8125);
  ade_dep(ADE_EXPM1(x));
  ade_region_end();
}

typedef struct seed {
  const char *name;
  void (*model)(void);
  int level, capture;
  uint32_t chunk;
} seed;

static void all_plain(void) { model_all(0); }
static void all_kink(void) { model_all(1); }

static const seed seeds[] = {
    {"all-l0-c64", all_plain, 0, 0, 64},       {"all-l3-c7-cap", all_kink, 3, 1, 7},
    {"all-l1-c64-cap", all_kink, 1, 1, 64},    {"small-l0-c1", model_small, 0, 0, 1},
    {"small-l1-c1-cap", model_small, 1, 1, 1}, {"small-l3-c7", model_small, 3, 0, 7},
    {"branch-l0-c7-cap", model_branches, 0, 1, 7}, {"branch-l3-c64", model_branches, 3, 0, 64},
    {"empty-l0", model_empty, 0, 0, 64},       {"empty-l3-cap", model_empty, 3, 1, 1},
    {"longname-l3", model_long_name, 3, 0, 64},
};

static int fail(const char *what, int st) {
  fprintf(stderr, "mkcorpus: %s: %s: %s\n", what, ade_strerror(st), ade_errmsg());
  return 1;
}

/* Every seed must read back and verify: what the library writes, it reads. */
static int write_file(const char *dir, const char *name, const void *p, size_t n) {
  char path[4096];
  ade_tape *t;
  int st = ade_tape_from_bytes(&t, p, n);
  if (!st) st = ade_tape_verify(t);
  ade_tape_free(t);
  if (st) return fail(name, st);
  snprintf(path, sizeof path, "%s/seed-%s", dir, name);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(p, 1, n, f) == n;
  if (f && fclose(f)) ok = 0;
  if (!ok) perror(path);
  return !ok;
}

static int record(const char *dir, const seed *s) {
  ade_tape *t;
  ade_tape_options o;
  const void *p;
  size_t n;
  ade_tape_options_init(&o);
  o.level = s->level;
  o.chunk_ops = s->chunk;
  o.capture = s->capture;
  int st = ade_tape_create(&t, &o);
  if (st) return fail(s->name, st);
  if (!(st = ade_trace_on(t))) {
    s->model();
    st = ade_trace_off();
  }
  if (!st) st = ade_tape_bytes(t, &p, &n);
  int rc = st ? fail(s->name, st) : write_file(dir, s->name, p, n);
  ade_tape_free(t);
  return rc;
}

/* A recording that fails (an operand from another tape): an incomplete tape. */
static int record_incomplete(const char *dir) {
  ade_tape *a, *b;
  ade_tape_options o;
  const void *p;
  size_t n;
  ade_tape_options_init(&o);
  o.chunk_ops = 3;
  if (ade_tape_create(&a, &o) || ade_tape_create(&b, &o)) return fail("incomplete", ADE_ENOMEM);
  ade_trace_on(a);
  ade_double foreign = ade_indep(0.5);
  ade_trace_off();
  ade_trace_on(b);
  ade_double x = ade_indep(2.0);
  ade_double y = ADE_EXP(ADE_MUL(x, 3.0));
  ade_double z = ADE_HYPOT(y, x);
  ade_dep(ADE_ADD(z, foreign)); /* the sticky error */
  int st = ade_trace_off() == ADE_OK ? ADE_EINVAL : ade_tape_bytes(b, &p, &n);
  int rc = st ? fail("incomplete", st) : write_file(dir, "incomplete-l3-c3", p, n);
  ade_tape_free(a);
  ade_tape_free(b);
  return rc;
}

/* ------------------------------------------------------- checksum repair */

static int fix_file(const char *path) {
  FILE *f = fopen(path, "r+b");
  unsigned char *p = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) == (size_t)n) {
    mt_fix_sums(p, (size_t)n);
    if (fseek(f, 0, SEEK_SET) || fwrite(p, 1, (size_t)n, f) != (size_t)n) n = -1;
  } else {
    n = -1;
  }
  if (f && fclose(f)) n = -1;
  free(p);
  if (n < 0) perror(path);
  return n < 0;
}

int main(int argc, char **argv) {
  int rc = 0;
  if (argc >= 2 && strcmp(argv[1], "--fix-sums") == 0) {
    for (int i = 2; i < argc; i++) rc |= fix_file(argv[i]);
    return rc;
  }
  if (argc != 2) {
    fputs("usage: mkcorpus DIR | mkcorpus --fix-sums FILE...\n", stderr);
    return 1;
  }
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) rc |= record(argv[1], &seeds[i]);
  rc |= record_incomplete(argv[1]);
  return rc;
}
