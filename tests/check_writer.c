/* check_writer.c: the recorder's fast path and the state a thread keeps between tapes write, byte for byte, the tapes of the complete path and of a fresh thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_internal.h"
#include "randprog.h"

/* The public operations by name (one row per function of <adelim.h>). */
typedef struct fn1 {
  const char *name;
  ade_double (*f)(ade_double);
} fn1;
typedef struct fn2 {
  const char *name;
  ade_double (*f)(ade_double, ade_double);
} fn2;
typedef struct fnc {
  const char *name;
  int (*f)(ade_double, ade_double);
} fnc;
#define ROW(f) {#f, ade_##f},
static const fn1 unary[] = {ADE__UNARY_MAP(ROW)};
static const fn2 binary[] = {ADE__BINARY_MAP(ROW)};
static const fnc compare[] = {ADE__COMPARE_MAP(ROW)};
#undef ROW
#define NU (sizeof unary / sizeof unary[0])
#define NB (sizeof binary / sizeof binary[0])
#define NC (sizeof compare / sizeof compare[0])

static unsigned opcode(const char *name) {
  for (unsigned op = 0; op < ADE_OP_COUNT; op++)
    if (!strcmp(ade__optab[op].name, name)) return op;
  ck_abort_msg("no opcode named %s", name);
  return 0;
}

/* What rec() in writer.c does, through the complete path alone. */
static ade_double slow(unsigned op, int k, const ade_double *x) {
  double a[3] = {0, 0, 0};
  uint64_t any = 0;
  for (int i = 0; i < k; i++) a[i] = x[i].v, any |= x[i].id;
  double r = ade__op_value(op, a);
  if (!any) return ade_passive(r);
  int kind = ade__op_check(op, a, r);
  for (int i = 0; i < k && kind == ADE_DIAG_NONFINITE; i++)
    if (!isfinite(a[i])) kind = 0;
  return ade__append(ade__current(), op, k, x, r, kind, NULL);
}

static ade_double slow_indep(double v) {
  ade_tape *t = ade__current();
  ade_double r = ade__append(t, ADE_OP_INDEP, 0, NULL, v, isfinite(v) ? 0 : ADE_DIAG_NONFINITE, NULL);
  ck_assert_int_eq(ade__meta_add_id(&t->meta.indep, &t->meta.nindep, &t->meta.indepcap, r.id & ADE__ID_MASK), 0);
  return r;
}

/* A random program over every public operation: operands are recent or
 * old values (old ones lie in earlier chunks: imports), constants, and
 * now and then a non-finite value (a diagnosis); recorded through the
 * public functions (fast), or through ade__append alone (fast = 0). */
#define NIN 40
#define NSTEP 3000
static ade_tape *record(uint64_t seed, const ade_tape_options *o, int fast) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc((NIN + NSTEP) * sizeof *v); /* one per thread */
  uint64_t s = seed;
  for (int i = 0; i < NIN; i++) {
    double x = ade_test_uniform(&s, -2.0, 2.0);
    v[i] = fast ? ade_indep(x) : slow_indep(x);
  }
  for (int i = NIN; i < NIN + NSTEP; i++) {
    ade_double a[3];
    for (int j = 0; j < 3; j++) {
      uint64_t r = ade_test_rand(&s) % 16;
      int at = r < 10 ? i - 1 - (int)(ade_test_rand(&s) % 8) : (int)(ade_test_rand(&s) % (uint64_t)i);
      a[j] = r == 15 ? ade_passive(ade_test_uniform(&s, 0.5, 1.5)) : v[at];
      if (r == 14 && ade_test_rand(&s) % 8 == 0) a[j] = ade_passive(INFINITY);
    }
    uint64_t pick = ade_test_rand(&s) % (NU + NB + NC + 1);
    ade_double y;
    if (pick < NU) {
      y = fast ? unary[pick].f(a[0]) : slow(opcode(unary[pick].name), 1, a);
    } else if (pick < NU + NB) {
      const fn2 *f = &binary[pick - NU];
      y = fast ? f->f(a[0], a[1]) : slow(opcode(f->name), 2, a);
    } else if (pick < NU + NB + NC) {
      const fnc *f = &compare[pick - NU - NB];
      int c = fast ? f->f(a[0], a[1]) : slow(opcode(f->name), 2, a).v != 0.0;
      y = c ? a[0] : a[1];
    } else {
      y = fast ? ade_fma(a[0], a[1], a[2]) : slow(ADE_OP_FMA, 3, a);
    }
    /* keep values in a moderate range so that most records are ordinary */
    v[i] = isfinite(y.v) && fabs(y.v) < 1e3 ? y : v[i - 1];
  }
  for (int j = 0; j < 5; j++) ade_dep(v[NIN + NSTEP - 1 - 7 * j]);
  free(v);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  return t;
}

static void same_bytes(ade_tape *a, ade_tape *b) {
  const void *pa, *pb;
  size_t na, nb;
  ck_assert_int_eq(ade_tape_bytes(a, &pa, &na), ADE_OK);
  ck_assert_int_eq(ade_tape_bytes(b, &pb, &nb), ADE_OK);
  ck_assert_uint_eq(na, nb);
  ck_assert(memcmp(pa, pb, na) == 0);
}

/* The fast path writes what the complete path writes: every operation,
 * chunks of several sizes (operands from earlier chunks go the complete
 * way), levels 0 and 3, deferred. */
START_TEST(fast_path_bytes) {
  const uint32_t chunks[] = {1, 2, 37, 500, 65536};
  for (int k = 0; k < 10; k++) {
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.chunk_ops = chunks[k % 5];
    o.level = k % 2 ? 3 : 0;
    o.defer = k == 6;
    ade_tape *f = record(100 + (uint64_t)k, &o, 1), *c = record(100 + (uint64_t)k, &o, 0);
    same_bytes(f, c);
    ade_stats st;
    ck_assert_int_eq(ade_tape_stats(f, &st), ADE_OK);
    ck_assert_uint_gt(st.diagnostics, 0); /* the non-finite constants were diagnosed */
    ck_assert_uint_gt(st.records, NSTEP / 2);
    ade_tape_free(f);
    ade_tape_free(c);
  }
}
END_TEST

/* Tapes recorded one after another on several threads, each thread
 * alternating levels, deferred and direct, chunk sizes (so each reuses a
 * writer and a context another configuration left) give the bytes of the
 * same tapes recorded on a thread that keeps nothing. */
#define NTH 3
#define NREC 8
static ade_tape_options config(int j) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  const int levels[] = {3, 0, 1, 9, 3, 19};
  o.level = levels[j % 6];
  o.defer = j % 4 == 1;
  o.chunk_ops = j % 3 ? 65536 : 300;
  return o;
}

typedef struct job {
  int id;
  ade_tape *t[NREC];
} job;

static void *recorder(void *p) {
  job *jb = p;
  for (int j = 0; j < NREC; j++) {
    ade_tape_options o = config(jb->id + j);
    jb->t[j] = record(1000 + (uint64_t)(jb->id * NREC + j), &o, 1);
  }
  return NULL; /* the thread's exit frees what it kept */
}

START_TEST(threads_alternate) {
  job jobs[NTH];
  pthread_t th[NTH];
  for (int i = 0; i < NTH; i++) {
    jobs[i].id = i;
    ck_assert_int_eq(pthread_create(&th[i], NULL, recorder, &jobs[i]), 0);
  }
  for (int i = 0; i < NTH; i++) ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < NTH; i++)
    for (int j = 0; j < NREC; j++) {
      ade_thread_release(); /* a fresh writer and context */
      ade_tape_options o = config(i + j);
      ade_tape *fresh = record(1000 + (uint64_t)(i * NREC + j), &o, 1);
      same_bytes(jobs[i].t[j], fresh);
      ade_tape_free(fresh);
      ade_tape_free(jobs[i].t[j]);
    }
  ade_thread_release();
}
END_TEST

/* A deferred tape saved with the thread's kept context, after tapes at
 * other levels, holds the bytes of the direct recording. */
START_TEST(deferred_save_after_others) {
  char path[] = "/tmp/ade_writer_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  for (int k = 0; k < 4; k++) {
    ade_tape_options o = config(k);
    o.defer = 0;
    ade_tape *direct = record(7 + (uint64_t)k, &o, 1);
    o.defer = 1;
    ade_tape *late = record(7 + (uint64_t)k, &o, 1);
    ck_assert_int_eq(ade_tape_save(late, path), ADE_OK);
    const void *b;
    size_t n;
    ck_assert_int_eq(ade_tape_bytes(direct, &b, &n), ADE_OK);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *got = malloc(n + 1);
    ck_assert_uint_eq(fread(got, 1, n + 1, f), n);
    fclose(f);
    ck_assert(memcmp(got, b, n) == 0);
    free(got);
    ade_tape_free(direct);
    ade_tape_free(late);
  }
  unlink(path);
  ade_thread_release();
}
END_TEST

/* A counting allocator: what it handed out and has not had back. */
typedef struct counter {
  long live, calls;
} counter;
static void *counting(void *ud, void *p, size_t n) {
  counter *c = ud;
  c->calls++;
  if (!p && n) c->live++;
  if (p && !n) c->live--;
  if (!n) {
    free(p);
    return NULL;
  }
  return realloc(p, n);
}

/* What a thread keeps never meets another allocator: a tape recorded under
 * a hook after plain ones takes nothing kept (every block it got from the
 * hook goes back to it with the tape), keeps nothing, and releasing under
 * a hook frees the kept memory without calling the hook. Releasing while
 * a tape records leaves that tape intact. */
START_TEST(allocator_hooks) {
  ade_tape_options o = config(0);
  ade_tape *a = record(5, &o, 1); /* fills the thread's cache */
  counter c = {0, 0};
  ade_set_allocator(counting, &c);
  ade_tape *b = record(5, &o, 1);
  same_bytes(a, b);
  ade_tape_free(b);
  ck_assert_int_eq(c.live, 0);
  long calls = c.calls;
  ade_thread_release(); /* the plain tape's writer and context: free(), not the hook */
  ck_assert_int_eq(c.calls, calls);
  ck_assert_int_eq(c.live, 0);
  ade_set_allocator(NULL, NULL);
  ade_tape_free(a);

  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double x = ade_indep(1.25), y = ade_sin(ade_mul(x, x));
  ade_thread_release();
  ade_dep(ade_exp(y));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  double xv = 1.25, f, g;
  ck_assert_int_eq(ade_gradient(t, &xv, &f, &g), ADE_OK);
  ade_assert_rel(g, exp(sin(1.5625)) * cos(1.5625) * 2.5, 1e-14);
  ade_tape_free(t);
  ade_thread_release();
  ade_thread_release(); /* nothing kept: a no-op */
}
END_TEST

/* The byte-plane shuffle of the values columns (tape/store.c, eight values
 * at a time by a byte transpose) against its definition, plane k holding
 * byte k of each value, for every length to 41; unshuffle inverts it. */
START_TEST(shuffle_planes) {
  uint64_t s = 77;
  for (size_t n = 0; n <= 41; n++) {
    unsigned char src[8 * 41 + 1], got[8 * 41 + 1], back[8 * 41 + 1];
    for (size_t i = 0; i < 8 * n; i++) src[i] = (unsigned char)ade_test_rand(&s);
    ade__shuffle8(got, src, n);
    for (size_t k = 0; k < 8; k++)
      for (size_t i = 0; i < n; i++) ck_assert_uint_eq(got[k * n + i], src[8 * i + k]);
    ade__unshuffle8(back, got, n);
    ck_assert(n == 0 || memcmp(back, src, 8 * n) == 0);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("writer");
  TCase *tc = tcase_create("writer");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fast_path_bytes);
  tcase_add_test(tc, threads_alternate);
  tcase_add_test(tc, deferred_save_after_others);
  tcase_add_test(tc, allocator_hooks);
  tcase_add_test(tc, shuffle_planes);
  suite_add_tcase(s, tc);
  return ade_test_run(s);
}
