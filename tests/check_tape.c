/* check_tape.c: the tape format: round trips, determinism, and rejection of bad input. */
#include <string.h>
#include <unistd.h>

#include "randprog.h"
#include "record_internal.h"

#define BIG 600 /* steps of the test program */

static ade_tape *record(int level, uint32_t chunk, const char *path, int capture) {
  randprog p = rp_make(42, 4, 3, BIG);
  double x[4] = {0.25, -1.5, 0.75, 2.0};
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.level = level;
  o.chunk_ops = chunk;
  o.path = path;
  o.capture = capture;
  ade_tape *t = rp_record(&p, x, &o);
  rp_free(&p);
  return t;
}

static void jacobian(ade_tape *t, double *J) {
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, NULL, J), ADE_OK);
}

/* Memory and file tapes, raw and compressed, one chunk or many: the same
 * Jacobian, bit for bit; save/load round trips are byte-identical. */
START_TEST(round_trips) {
  double J0[12], J[12];
  ade_tape *t0 = record(0, 65536, NULL, 0);
  jacobian(t0, J0);
  const int levels[3] = {0, 1, 19};
  const uint32_t chunks[3] = {1, 37, 100000};
  char path[] = "/tmp/ade-rt-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  for (int li = 0; li < 3; li++)
    for (int ci = 0; ci < 3; ci++)
      for (int file = 0; file < 2; file++) {
        ade_tape *t = record(levels[li], chunks[ci], file ? path : NULL, _i);
        jacobian(t, J);
        ck_assert_mem_eq(J, J0, sizeof J);
        ade_stats s;
        ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
        ck_assert_uint_eq(s.chunks, (s.records + chunks[ci] - 1) / chunks[ci]);
        ck_assert_int_eq(ade_tape_verify(t), ADE_OK);
        if (!file) {
          const void *b1, *b2;
          size_t n1, n2;
          ade_tape *u;
          ck_assert_int_eq(ade_tape_bytes(t, &b1, &n1), ADE_OK);
          ck_assert_int_eq(ade_tape_save(t, path), ADE_OK);
          ck_assert_int_eq(ade_tape_load(&u, path), ADE_OK);
          ck_assert_int_eq(ade_tape_bytes(u, &b2, &n2), ADE_OK);
          ck_assert_uint_eq(n1, n2);
          ck_assert_mem_eq(b1, b2, n1);
          jacobian(u, J);
          ck_assert_mem_eq(J, J0, sizeof J);
          ade_tape_free(u);
        } else {
          ade_tape *u;
          ck_assert_int_eq(ade_tape_open(&u, path), ADE_OK);
          jacobian(u, J);
          ck_assert_mem_eq(J, J0, sizeof J);
          ade_tape_free(u);
        }
        ade_tape_free(t);
      }
  unlink(path);
  ade_tape_free(t0);
}
END_TEST

/* Recording the same function twice gives byte-identical tapes. */
START_TEST(deterministic_bytes) {
  const void *b1, *b2;
  size_t n1, n2;
  ade_tape *t1 = record(3, 50, NULL, 0), *t2 = record(3, 50, NULL, 0);
  ck_assert_int_eq(ade_tape_bytes(t1, &b1, &n1), ADE_OK);
  ck_assert_int_eq(ade_tape_bytes(t2, &b2, &n2), ADE_OK);
  ck_assert_uint_eq(n1, n2);
  ck_assert_mem_eq(b1, b2, n1);
  ade_tape_free(t1);
  ade_tape_free(t2);
}
END_TEST

/* Values that can be recomputed exactly are not stored. */
START_TEST(recomputed_values) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(1.25), b = ade_indep(2.385);
  ade_dep(ADE_SIN(ADE_DIV(ADE_MUL(a, b), ADE_ADD(a, 3.0))));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ade_stats s;
  ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
  ck_assert_uint_eq(s.records, 7);
  ck_assert_uint_eq(s.stored_values, 3); /* two independents and sin */
  ck_assert_str_eq(ade_op_name(0), "indep");
  ck_assert_uint_eq(s.op_count[0], 2);
  ade_tape_free(t);
}
END_TEST

static unsigned char *tape_copy(size_t *n) {
  const void *b;
  ade_tape *t = record(1, 64, NULL, 1);
  ck_assert_int_eq(ade_tape_bytes(t, &b, n), ADE_OK);
  unsigned char *c = malloc(*n);
  memcpy(c, b, *n);
  ade_tape_free(t);
  return c;
}

/* Opening and fully reading must fail with an error status, never crash. */
static int open_and_read(const unsigned char *b, size_t n) {
  ade_tape *t;
  int st = ade_tape_from_bytes(&t, b, n);
  if (st) return st;
  st = ade_tape_verify(t);
  double J[12];
  if (!st) st = ade_jacobian_dense(t, ADE_FORWARD, NULL, J);
  ade_tape_free(t);
  return st;
}

/* Reading chunks backward (as reverse sweeps do) gives exactly what
 * reading them forward gives. */
START_TEST(forward_and_reverse_iteration_agree) {
  ade_tape *t = record(1, 13, NULL, 0);
  size_t nc = t->meta.nchunks, total = (size_t)t->meta.records;
  ck_assert_uint_gt(nc, 10);
  double *val = malloc(total * sizeof *val);
  uint8_t *op = malloc(total);
  for (size_t c = 0; c < nc; c++) {
    ck_assert_int_eq(ade__view_load(t, c), ADE_OK);
    memcpy(val + t->view.first, t->view.val, t->view.n * sizeof *val);
    memcpy(op + t->view.first, t->view.op, t->view.n);
  }
  for (size_t c = nc; c-- > 0;) {
    ck_assert_int_eq(ade__view_load(t, c), ADE_OK);
    ck_assert_uint_eq(t->view.first, t->meta.chunks[c].first);
    ck_assert_mem_eq(val + t->view.first, t->view.val, t->view.n * sizeof *val);
    ck_assert_mem_eq(op + t->view.first, t->view.op, t->view.n);
  }
  free(val);
  free(op);
  ade_tape_free(t);
}
END_TEST

/* Every single flipped bit anywhere is detected (everything is checksummed). */
START_TEST(every_byte_corrupted) {
  size_t n;
  unsigned char *b = tape_copy(&n);
  uint64_t s = 9;
  ck_assert_int_eq(open_and_read(b, n), ADE_OK);
  for (size_t i = 0; i < n; i++) {
    unsigned char bit = (unsigned char)(1u << (ade_test_rand(&s) % 8));
    b[i] ^= bit;
    int st = open_and_read(b, n);
    ck_assert_msg(st < 0, "flip at byte %zu of %zu not detected", i, n);
    ck_assert_msg(st == ADE_ECHECKSUM || st == ADE_EFORMAT || st == ADE_EVERSION || st == ADE_ETRUNC,
                  "byte %zu: unexpected %s (%s)", i, ade_errname(st), ade_errmsg());
    b[i] ^= bit;
  }
  free(b);
}
END_TEST

/* Every truncation is rejected with a message. */
START_TEST(every_truncation) {
  size_t n;
  unsigned char *b = tape_copy(&n);
  for (size_t len = 0; len < n; len++) {
    int st = open_and_read(b, len);
    ck_assert_msg(st < 0, "truncation to %zu of %zu bytes accepted", len, n);
  }
  ck_assert_int_eq(ade_tape_open(&(ade_tape *){NULL}, "/nonexistent/x.adt"), ADE_EIO);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "/nonexistent/x.adt"));
  free(b);
}
END_TEST

/* A tape cut anywhere recovers exactly the chunks that precede the cut. */
START_TEST(recover_prefix) {
  size_t n;
  unsigned char *b = tape_copy(&n);
  char path[] = "/tmp/ade-cut-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  uint64_t prev = 0, total;
  ade_tape *t;
  ade_stats s;
  ck_assert_int_eq(ade_tape_from_bytes(&t, b, n), ADE_OK);
  ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
  total = s.records;
  ade_tape_free(t);
  for (size_t len = 0; len <= n; len = len + 7 < n || len == n ? len + 7 : n) {
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, len, f);
    fclose(f);
    int st = ade_tape_recover(&t, path);
    if (len < 64) {
      ck_assert_int_lt(st, 0);
      continue;
    }
    ck_assert_msg(st == ADE_OK, "len %zu: %s", len, ade_errmsg());
    ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
    ck_assert_int_eq(s.complete, 0);
    ck_assert(s.records % 64 == 0 || s.records == total); /* whole chunks of 64 */
    ck_assert_uint_ge(s.records, prev);   /* a longer prefix never loses chunks */
    ck_assert_int_eq(ade_tape_verify(t), ADE_OK);
    prev = s.records;
    ade_tape_free(t);
  }
  ck_assert_uint_eq(prev, total); /* the whole file: every record */
  unlink(path);
  free(b);
}
END_TEST

/* The golden files in tests/data: a good tape from format 1.0, and ones that
 * must be rejected with a specific error. */
START_TEST(golden_files) {
  static const struct {
    const char *name;
    int status;
  } cases[] = {
      {"good-v1.adt", ADE_OK},          {"bad-version.adt", ADE_EVERSION},
      {"bad-magic.adt", ADE_EFORMAT},   {"bad-checksum.adt", ADE_ECHECKSUM},
      {"truncated.adt", ADE_ETRUNC},    {"empty.adt", ADE_ETRUNC},
  };
  char path[1024];
  const char *dir = getenv("srcdir") ? getenv("srcdir") : ".";
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(path, sizeof path, "%s/tests/data/%s", dir, cases[i].name);
    ade_tape *t = NULL;
    int st = ade_tape_open(&t, path);
    if (!st) st = ade_tape_verify(t);
    ck_assert_msg(st == cases[i].status, "%s: %s (%s)", cases[i].name, ade_errname(st), ade_errmsg());
    if (!st) {
      double g[2], f;
      ck_assert_int_eq(ade_gradient(t, NULL, &f, g), ADE_OK);
      ade_assert_rel(f, 2.385 * sin(1.25), 4 * DBL_EPSILON);
      ade_assert_rel(g[0], sin(1.25), 4 * DBL_EPSILON);
      ade_assert_rel(g[1], 2.385 * cos(1.25), 4 * DBL_EPSILON);
    }
    ade_tape_free(t);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tape");
  TCase *tc = tcase_create("format");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, round_trips, 0, 2);
  tcase_add_test(tc, deterministic_bytes);
  tcase_add_test(tc, recomputed_values);
  tcase_add_test(tc, forward_and_reverse_iteration_agree);
  tcase_add_test(tc, every_byte_corrupted);
  tcase_add_test(tc, every_truncation);
  tcase_add_test(tc, golden_files);
  tcase_add_test(tc, recover_prefix);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
