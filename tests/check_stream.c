/* check_stream.c: Jacobians by streaming elimination in parts (ade_jacobian_stream). */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "randprog.h"

/* ade_jacobian_stream on t against dense forward mode; the report adds up
 * and never costs more than vector reverse mode through the same edges. */
static int check_stream(ade_tape *t, int n, int m, ade_stream_report *r) {
  ade_sparse *J = NULL;
  ck_assert_msg(ade_jacobian_stream(t, NULL, &J, r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_uint_eq(J->m, (size_t)m);
  ck_assert_uint_eq(J->n, (size_t)n);
  double *D = calloc((size_t)(n * m) + 1, sizeof *D), *F = calloc((size_t)(n * m) + 1, sizeof *F);
  ck_assert_int_eq(ade_sparse_to_dense(J, D), ADE_OK);
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, NULL, F), ADE_OK);
  int finite = 1;
  for (int k = 0; k < n * m; k++)
    if (isfinite(F[k])) ade_assert_rel(D[k], F[k], 1e-12);
    else finite = 0;
  ck_assert_uint_eq(r->fma, r->elim_fma + r->fold_fma);
  ck_assert_uint_le(r->fma, r->reverse_fma);
  ck_assert_uint_le(r->classes, r->parts);
  ck_assert_uint_le(r->edge_classes, r->classes);
  ck_assert_uint_le(r->eliminated, r->parts);
  ade_stats s;
  ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
  ck_assert_uint_eq(r->records, s.records);
  free(D);
  free(F);
  ade_sparse_free(J);
  return finite;
}

/* A random program's steps as the body of a function called again and
 * again: u[0..n) in, the last n values out. */
static void rp_body(const randprog *b, ade_double *u, ade_double *v) {
  for (int i = 0; i < b->n; i++) v[i] = u[i];
  for (int i = 0; i < b->nsteps; i++) v[b->n + i] = rp_step_eval(&b->steps[i], v);
  for (int i = 0; i < b->n; i++) u[i] = v[b->n + b->nsteps - 1 - i];
}

/* A prologue, then calls of two random bodies (one mostly) inside random
 * nested regions, some values of the prologue read again at the end. */
static ade_tape *record_bodies(uint64_t s, int n, int m, int calls, uint32_t chunk) {
  randprog pro = rp_make(s, n, m, 3 + (int)(ade_test_rand(&s) % 10));
  randprog body[2] = {rp_make(s + 1, n, n, n + (int)(ade_test_rand(&s) % 8)),
                      rp_make(s + 2, n, n, n + (int)(ade_test_rand(&s) % 8))};
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = chunk;
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof(ade_double) * (size_t)(n + pro.nsteps + 2 * n + 16));
  ade_double u[4], keep;
  int depth = 0;
  for (int i = 0; i < n; i++) v[i] = ade_indep(ade_test_uniform(&s, -1, 1));
  for (int i = 0; i < pro.nsteps; i++) v[n + i] = rp_step_eval(&pro.steps[i], v);
  for (int i = 0; i < n; i++) u[i] = v[n + pro.nsteps - 1 - i];
  keep = v[n + pro.nsteps / 2];
  for (int c = 0; c < calls; c++) {
    unsigned r = (unsigned)(ade_test_rand(&s) % 6);
    if (r == 0 && depth < 3) ade_region_begin("call"), depth++;
    else if (r == 1 && depth > 0) ade_region_end(), depth--;
    rp_body(&body[ade_test_rand(&s) % 8 == 0], u, v);
  }
  for (int j = 0; j < m; j++) ade_dep(j == m - 1 ? ADE_MUL(u[j % n], keep) : u[j % n]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  rp_free(&pro);
  rp_free(&body[0]);
  rp_free(&body[1]);
  return t;
}

/* Random programs with repeated bodies and nested regions, over chunks of
 * several sizes and at small memory limits: dense forward mode's Jacobian. */
START_TEST(random_bodies) {
  int finite = 0;
  for (int k = 0; k < 40; k++) {
    uint64_t s = 9100 + (uint64_t)k;
    int n = 2 + (int)(ade_test_rand(&s) % 3), m = 1 + (int)(ade_test_rand(&s) % 3);
    int calls = 2 + (int)(ade_test_rand(&s) % (k < 30 ? 30 : 400));
    ade_tape *t = record_bodies(s, n, m, calls, (uint32_t)(20 + k * 7));
    ade_stream_report r;
    finite += check_stream(t, n, m, &r);
    ade_tape_set_memory_limit(t, (size_t)4 << 20);
    check_stream(t, n, m, &r);
    ade_tape_free(t);
  }
  ck_assert_int_ge(finite, 30); /* most programs stay finite: their Jacobians were compared whole */
}
END_TEST

/* A time loop of one random body: the blocks of the period get the edge
 * heuristics too (the pieces cut from the rest the vertex ones), and an
 * edge plan where it is cheaper: on some programs, each Jacobian dense
 * forward mode's (programs whose values overflow left out: where an
 * infinity meets a zero partial the order of the products decides
 * between 0 and NaN). */
START_TEST(edge_blocks) {
  int edges = 0, done = 0;
  for (int k = 0; k < 40; k++) {
    uint64_t s = 7700 + (uint64_t)k;
    int n = 2 + (int)(ade_test_rand(&s) % 3);
    randprog body = rp_make(s, n, n, n + 2 + (int)(ade_test_rand(&s) % 10));
    ade_tape *t = NULL;
    ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double u[4], *v = malloc(sizeof(ade_double) * (size_t)(n + body.nsteps));
    for (int i = 0; i < n; i++) u[i] = ade_indep(ade_test_uniform(&s, -1, 1));
    for (int c = 0; c < 24; c++) rp_body(&body, u, v);
    for (int i = 0; i < n; i++) ade_dep(u[i]);
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    double F[16];
    int finite = ade_jacobian_dense(t, ADE_FORWARD, NULL, F) == ADE_OK;
    for (int i = 0; finite && i < n * n; i++) finite = isfinite(F[i]);
    ade_stream_report r;
    if (finite) check_stream(t, n, n, &r), done++, edges += r.edge_classes > 0;
    if (finite) ck_assert_uint_gt(r.period, 0);
    free(v);
    rp_free(&body);
    ade_tape_free(t);
  }
  printf("edge_blocks: edge plans in %d of %d programs\n", edges, done);
  ck_assert_int_ge(done, 20);
  ck_assert_int_gt(edges, 0);
}
END_TEST

static ade_tape *record_steps(int steps, uint32_t chunk) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = chunk;
  return rp_record_sim(steps, &o);
}

/* A time loop: the period is one step, found from the prefix; the steps
 * form few classes (the first reads independents, the last feeds
 * dependents), each eliminated, cheaper than reverse mode. */
START_TEST(time_steps) {
  ade_tape *t = record_steps(3000, 1000);
  ade_tape *one = record_steps(1, 1000), *two = record_steps(2, 1000);
  ade_stats s1, s2;
  ck_assert_int_eq(ade_tape_stats(one, &s1), ADE_OK);
  ck_assert_int_eq(ade_tape_stats(two, &s2), ADE_OK);
  ade_stream_report r;
  check_stream(t, 3, 3, &r);
  ck_assert_uint_eq(r.period, s2.records - s1.records);
  ck_assert_uint_le(r.classes, 4);
  ck_assert_uint_ge(r.parts, 3000);
  ck_assert_uint_ge(r.eliminated, 3000); /* every step */
  ck_assert_uint_lt(r.fma, r.reverse_fma);
  ck_assert_uint_le(r.largest, 1024);
  ck_assert_uint_le(r.max_live, 12);
  ade_tape_free(one);
  ade_tape_free(two);
  ade_tape_free(t);
}
END_TEST

/* No repeats: parts of at most 1024 records; a long random program. */
START_TEST(no_repeats) {
  uint64_t s = 77;
  randprog p = rp_make(s, 4, 3, 3000);
  double x[4];
  for (int i = 0; i < 4; i++) x[i] = ade_test_uniform(&s, -1, 1);
  ade_tape *t = rp_record(&p, x, NULL);
  ade_stream_report r;
  check_stream(t, 4, 3, &r);
  ck_assert_uint_le(r.largest, 1024);
  ck_assert_uint_ge(r.parts, 3);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* Bad arguments, a tape without dependents, the Jacobian beyond the
 * memory limit, a tape recovered from a cut file (incomplete). */
START_TEST(errors) {
  ade_sparse *J = NULL;
  ade_stream_report r;
  ade_tape *t = record_steps(5, 16);
  ck_assert_int_eq(ade_jacobian_stream(NULL, NULL, &J, &r), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_stream(t, NULL, NULL, &r), ADE_EINVAL);
  ade_tape_set_memory_limit(t, 40);
  ck_assert_int_eq(ade_jacobian_stream(t, NULL, &J, &r), ADE_ENOMEM);
  ck_assert_ptr_null(J);
  ck_assert_msg(strstr(ade_errmsg(), "memory limit"), "%s", ade_errmsg());
  const void *b;
  size_t nb;
  ck_assert_int_eq(ade_tape_bytes(t, &b, &nb), ADE_OK);
  char path[] = "/tmp/ade-stream-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, b, nb / 2), (ssize_t)(nb / 2));
  close(fd);
  ade_tape *c = NULL;
  ck_assert_int_eq(ade_tape_open(&c, path), ADE_ETRUNC);
  if (ade_tape_recover(&c, path) == ADE_OK) {
    ck_assert_int_lt(ade_jacobian_stream(c, NULL, &J, &r), 0);
    ck_assert_ptr_null(J);
    ade_tape_free(c);
  }
  unlink(path);
  ade_tape_free(t);
  ade_tape *z = NULL;
  ck_assert_int_eq(ade_tape_create(&z, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(z), ADE_OK);
  ade_double x = ade_indep(1.0);
  (void)ADE_SIN(x);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_jacobian_stream(z, NULL, &J, &r), ADE_OK);
  ck_assert_uint_eq(J->m, 0);
  ck_assert_uint_eq(J->n, 1);
  ade_sparse_free(J);
  ade_tape_free(z);
}
END_TEST

/* Out of memory at every allocation of the streaming elimination:
 * ADE_ENOMEM, nothing leaked, and then the right Jacobian. */
START_TEST(out_of_memory) {
  int ok = 0;
  for (long k = 0; !ok && k < 100000; k++) {
    ade_test_alloc a = {k, 0, 0};
    ade_sparse *J = NULL;
    ade_stream_report r;
    ade_tape *t = NULL;
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.chunk_ops = 30;
    ade_set_allocator(ade_test_alloc_fn, &a);
    int st = ade_tape_create(&t, &o);
    if (!st) st = ade_trace_on(t);
    if (!st) {
      ade_double u[3];
      for (int i = 0; i < 3; i++) u[i] = ade_indep(0.3 + 0.1 * i);
      for (int i = 0; i < 40; i++) rp_sim_step(u);
      for (int i = 0; i < 3; i++) ade_dep(u[i]);
      st = ade_trace_off();
    }
    int rec = st;
    if (!st) st = ade_jacobian_stream(t, NULL, &J, &r);
    ck_assert_msg(st == ADE_OK || rec || J == NULL, "k=%ld: a Jacobian and an error", k);
    ade_sparse_free(J);
    ade_tape_free(t);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "k=%ld: %d %s", k, st, ade_errmsg());
    ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    ok = st == ADE_OK;
  }
  ck_assert(ok);
  ade_tape *t = record_steps(40, 30);
  ade_stream_report r;
  check_stream(t, 3, 3, &r);
  ade_tape_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("stream");
  TCase *tc = tcase_create("stream");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, random_bodies);
  tcase_add_test(tc, edge_blocks);
  tcase_add_test(tc, time_steps);
  tcase_add_test(tc, no_repeats);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
