/* check_threads.c: one finished tape evaluated by several threads at once gives, bit for bit, what one thread gets. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "randprog.h"
#include "record_internal.h"

#define NTHREADS 4
#define NPOINTS 3
#define N 5
#define M 3
#define MAXOUT 4096 /* doubles one evaluation writes */

/* The tapes: in memory, in a file, and one whose memory limit is 0 so
 * sweeps keep live adjoints and recompute values at x chunk by chunk. */
enum { T_MEM, T_FILE, T_LIMIT, T_GRAD, NTAPES };

typedef struct shared {
  ade_tape *tape[NTAPES];
  double x[NPOINTS][N];
  double want[NTAPES][NPOINTS][MAXOUT]; /* one thread's results */
  size_t len[NTAPES][NPOINTS];
} shared;

typedef struct out {
  double *v;
  size_t n;
  int bad; /* the line of a call that failed, 0: none */
} out;

#define FAILS(o, call) ((o)->bad = (call) < 0 && !(o)->bad ? __LINE__ : (o)->bad)

static void put(out *o, const double *v, size_t n) {
  for (size_t i = 0; i < n && o->n < MAXOUT; i++) o->v[o->n++] = v[i];
}

static void put_sparse(out *o, int st, ade_sparse *A) {
  if (FAILS(o, A ? st : -1)) return;
  for (size_t i = 0; i < A->nnz; i++) {
    double e[2] = {(double)A->col[i], A->val[i]};
    put(o, e, 2);
  }
  ade_sparse_free(A);
}

/* The Jacobian or Hessian that call made (arguments are evaluated in no
 * fixed order, so the result is read through its pointer). */
static void put_result(out *o, int st, ade_sparse **A) {
  put_sparse(o, st, *A);
  *A = NULL;
}

/* Every evaluation of tape t at x, appended to o. */
static void evaluate(ade_tape *t, int grad, const double *x, out *o) {
  double y[M], Xd[N * 2], Yd[M * 2], Yb[M * 2], Xb[N * 2], J[M * N], f;
  for (int i = 0; i < N * 2; i++) Xd[i] = 0.25 * i - 1.0;
  for (int i = 0; i < M * 2; i++) Yb[i] = 1.5 - 0.5 * i;
  int m = grad ? 1 : M;
  FAILS(o, ade_tape_verify(t));
  FAILS(o, ade_replay(t, x, y));
  put(o, y, (size_t)m);
  FAILS(o, ade_tangent_vec(t, 2, x, Xd, y, Yd));
  put(o, Yd, (size_t)m * 2);
  FAILS(o, ade_adjoint_vec(t, 2, x, Yb, Xb));
  put(o, Xb, N * 2);
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
    FAILS(o, ade_jacobian_dense(t, mode, x, J));
    put(o, J, (size_t)m * N);
  }
  if (grad) {
    FAILS(o, ade_gradient(t, x, &f, Xb));
    put(o, &f, 1);
    put(o, Xb, N);
  }
  ade_sparse *A = NULL;
  for (int k = 0; k < ADE_ORDER_COUNT; k++) /* at the recorded point */
    put_result(o, ade_jacobian(t, k, NULL, &A, NULL), &A);
  put_result(o, ade_jacobian_cpr(t, ADE_FORWARD, x, &A, NULL), &A);
  put_result(o, ade_jacobian(t, ADE_ELIM_AUTO, NULL, &A, NULL), &A);
  uint64_t h = 0;
  FAILS(o, ade_tape_structure_hash(t, &h));
  put(o, (const double[]){(double)(h >> 32), (double)(h & 0xffffffffu)}, 2);
  ade_elim_plan *p = NULL;
  if (ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL) < 0 ||
      ade_elim_plan_pattern(p, &A) < 0)
    o->bad = __LINE__;
  else
    put_sparse(o, ade_elim_plan_jacobian(p, t, x, A), A);
  ade_elim_plan_free(p);
  ade_hess_options ho;
  ade_hess_options_init(&ho);
  const double w[M] = {0.75, -1.25, 2.0};
  ho.x = x;
  ho.w = grad ? NULL : w;
  for (int k = 0; k < ADE_HESS_NMETHODS; k++) put_result(o, ade_hessian(t, k, &ho, &A, NULL), &A);
  ade_cgraph *g = NULL;
  FAILS(o, ade_cgraph_from_tape(&g, t, NULL));
  ade_cgraph_free(g);
}

typedef struct job {
  shared *s;
  int id, rounds, mismatches, failures;
} job;

static void *worker(void *arg) {
  job *j = arg;
  double *buf = malloc(MAXOUT * sizeof *buf);
  for (int r = 0; r < j->rounds; r++)
    for (int k = 0; k < NTAPES; k++) {
      int p = (j->id + r + k) % NPOINTS; /* threads at different points at once */
      out o = {buf, 0, 0};
      evaluate(j->s->tape[k], k == T_GRAD, j->s->x[p], &o);
      j->failures += o.bad != 0;
      j->mismatches += o.n != j->s->len[k][p] || memcmp(buf, j->s->want[k][p], o.n * sizeof *buf);
    }
  free(buf);
  return NULL;
}

static ade_tape *record(const randprog *p, const double *x, int chunk_ops) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = chunk_ops;
  return rp_record(p, x, &o);
}

START_TEST(test_threads_share_a_tape) {
  static shared s;
  uint64_t seed = 77;
  randprog p = rp_make(11, N, M, 60), q = rp_make(12, N, 1, 60);
  double x0[N];
  for (int i = 0; i < N; i++) x0[i] = ade_test_uniform(&seed, -1.2, 1.3);
  for (int k = 0; k < NPOINTS; k++)
    for (int i = 0; i < N; i++) s.x[k][i] = x0[i] + (k ? ade_test_uniform(&seed, -0.1, 0.1) : 0.0);
  char path[] = "/tmp/check_threads_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  ade_tape *rec = record(&p, x0, 16);
  ck_assert_int_eq(ade_tape_save(rec, path), ADE_OK);
  s.tape[T_MEM] = rec;
  ck_assert_int_eq(ade_tape_open(&s.tape[T_FILE], path), ADE_OK);
  s.tape[T_LIMIT] = record(&p, x0, 9);
  ade_tape_set_memory_limit(s.tape[T_LIMIT], 0);
  s.tape[T_GRAD] = record(&q, x0, 13);
  for (int k = 0; k < NTAPES; k++) {
    ck_assert_ptr_nonnull(s.tape[k]);
    for (int i = 0; i < NPOINTS; i++) {
      out o = {s.want[k][i], 0, 0};
      evaluate(s.tape[k], k == T_GRAD, s.x[i], &o);
      ck_assert_int_eq(o.bad, 0);
      ck_assert_int_lt(o.n, MAXOUT);
      s.len[k][i] = o.n;
    }
  }
  pthread_t th[NTHREADS];
  job jobs[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    jobs[i] = (job){&s, i, 3, 0, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(jobs[i].failures, 0);
    ck_assert_int_eq(jobs[i].mismatches, 0);
  }
  for (int k = 0; k < NTAPES; k++) ade_tape_free(s.tape[k]);
  unlink(path);
  rp_free(&p);
  rp_free(&q);
}
END_TEST

/* Tapes recorded with o->keep, left decoded by the recorder: the threads'
 * first sweeps race to take the form (in memory, in a file, dropped by a
 * limit of 0), and every result is the bits of the same tapes recorded
 * without it. */
START_TEST(test_threads_kept_tapes) {
  static shared s;
  uint64_t seed = 78;
  randprog p = rp_make(13, N, M, 60), q = rp_make(14, N, 1, 60);
  double x0[N];
  for (int i = 0; i < N; i++) x0[i] = ade_test_uniform(&seed, -1.2, 1.3);
  for (int k = 0; k < NPOINTS; k++)
    for (int i = 0; i < N; i++) s.x[k][i] = x0[i] + (k ? ade_test_uniform(&seed, -0.1, 0.1) : 0.0);
  char path[] = "/tmp/check_threads_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  for (int keep = 0; keep < 2; keep++) {
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.keep = keep;
    o.chunk_ops = 16;
    s.tape[T_MEM] = rp_record(&p, x0, &o);
    o.path = path;
    s.tape[T_FILE] = rp_record(&p, x0, &o);
    o.path = NULL;
    o.chunk_ops = 9;
    s.tape[T_LIMIT] = rp_record(&p, x0, &o);
    ade_tape_set_memory_limit(s.tape[T_LIMIT], 0);
    o.chunk_ops = 13;
    s.tape[T_GRAD] = rp_record(&q, x0, &o);
    for (int k = 0; k < NTAPES; k++) /* left by the recorder, not yet taken */
      ck_assert_int_eq(atomic_load(&s.tape[k]->kept) != NULL, keep && k != T_LIMIT);
    if (!keep) {
      for (int k = 0; k < NTAPES; k++)
        for (int i = 0; i < NPOINTS; i++) {
          out w = {s.want[k][i], 0, 0};
          evaluate(s.tape[k], k == T_GRAD, s.x[i], &w);
          ck_assert_int_eq(w.bad, 0);
          s.len[k][i] = w.n;
        }
    } else {
      pthread_t th[NTHREADS];
      job jobs[NTHREADS];
      for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (job){&s, i, 2, 0, 0};
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
      }
      for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(jobs[i].failures, 0);
        ck_assert_int_eq(jobs[i].mismatches, 0);
      }
      for (int k = 0; k < NTAPES; k++) ck_assert_ptr_null(atomic_load(&s.tape[k]->kept));
      ck_assert_uint_gt(ade_tape_resident_bytes(s.tape[T_MEM]), 0);
      ck_assert_uint_eq(ade_tape_resident_bytes(s.tape[T_LIMIT]), 0);
    }
    for (int k = 0; k < NTAPES; k++) ade_tape_free(s.tape[k]);
  }
  unlink(path);
  rp_free(&p);
  rp_free(&q);
}
END_TEST

/* A greedy ordering's runs in threads (ade_order_options.threads, under
 * ThreadSanitizer in CI): the sequence of one thread, step by step, for
 * the edge and face orderings in both forms, on a few tapes, without a
 * time limit and with one never reached. */
START_TEST(test_threads_order) {
  static const int os[] = {ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_GREEDY};
  for (uint64_t seed = 31; seed < 34; seed++) {
    randprog p = rp_make(seed, N, M, 150);
    double x[N] = {0.3, -0.7, 1.1, 0.2, -0.4};
    ade_tape *t = rp_record(&p, x, NULL);
    ade_cgraph *g = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    for (size_t k = 0; k < sizeof os / sizeof *os; k++)
      for (int native = 0; native < 2; native++) {
        ade_order_options o = {0, native, NULL, NULL, 0, 1};
        ade_elim_seq *a = NULL, *b = NULL;
        int limited = -1;
        ck_assert_int_eq(ade_elim_order_with(g, os[k], &o, &a, NULL), ADE_OK);
        for (int lim = 0; lim < 2; lim++) { /* then under a time limit never reached (anytime) */
          o.threads = NTHREADS, o.time_limit = lim ? 100 : 0;
          ck_assert_int_eq(ade_elim_order_with(g, os[k], &o, &b, lim ? &limited : NULL), ADE_OK);
          ck_assert(!lim || limited == 0);
          ade_test_same_seq(b, a, ade_order_name(os[k]), seed);
          ade_seq_free(b);
        }
        ade_seq_free(a);
      }
    ade_cgraph_free(g);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* Two-level elimination in threads (ade_opt_limits.threads, under
 * ThreadSanitizer in CI): the classes of parts at once and the one level
 * beside, the levels and sequence of one thread. */
START_TEST(test_threads_parts) {
  for (uint64_t seed = 41; seed < 44; seed++) {
    randprog p = rp_make(seed, N, M, 300);
    double x[N] = {0.3, -0.7, 1.1, 0.2, -0.4};
    ade_tape *t = rp_record(&p, x, NULL);
    ade_stats st;
    ck_assert_int_eq(ade_tape_stats(t, &st), ADE_OK);
    size_t nid = (size_t)st.records + 1, *part = malloc(nid * sizeof *part);
    for (size_t i = 0; i < nid; i++) part[i] = i / 30; /* ten parts of 30 records */
    ade_cgraph *g = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    ade_elim_seq *s[2] = {NULL, NULL};
    ade_parts_report r[2];
    for (int k = 0; k < 2; k++) ade_test_parts(g, part, nid, k ? NTHREADS : 1, &s[k], &r[k]);
    ck_assert_uint_gt(r[0].classes, 1);
    ck_assert_uint_eq(r[0].cost, r[1].cost);
    ck_assert_uint_eq(r[0].flat_cost, r[1].flat_cost);
    ck_assert_uint_eq(r[0].local_cost, r[1].local_cost);
    ade_test_same_seq(s[1], s[0], "parts in threads", seed);
    ade_seq_free(s[0]);
    ade_seq_free(s[1]);
    ade_cgraph_free(g);
    free(part);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("share");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_threads_share_a_tape);
  tcase_add_test(tc, test_threads_kept_tapes);
  tcase_add_test(tc, test_threads_order);
  tcase_add_test(tc, test_threads_parts);
  suite_add_tcase(s, tc);
  return ade_test_run(s);
}
