/* testutil.h: shared test helpers (relative comparison, random inputs, failing allocator). */
#ifndef ADE_TESTUTIL_H
#define ADE_TESTUTIL_H

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "adelim.h"

/* |got - want| <= tol * max(1, |want|), with NaN == NaN and equal infinities
 * (GSL's gsl_test_rel shape); prints both at %.17g on failure. */
#define ade_assert_rel(got, want, tol)                                         \
  do {                                                                         \
    double ade_g_ = (got), ade_w_ = (want), ade_t_ = (tol);                    \
    int ade_ok_;                                                               \
    if (isnan(ade_w_)) ade_ok_ = isnan(ade_g_);                                \
    else if (isinf(ade_w_)) ade_ok_ = ade_g_ == ade_w_;                        \
    else ade_ok_ = isfinite(ade_g_) &&                                         \
        fabs(ade_g_ - ade_w_) <= ade_t_ * fmax(1.0, fabs(ade_w_));             \
    ck_assert_msg(ade_ok_, "%s = %.17g, expected %s = %.17g (tol %.3g)", #got, \
                  ade_g_, #want, ade_w_, ade_t_);                              \
  } while (0)

/* A small deterministic generator (splitmix64) so failures reproduce. */
/* CPU seconds of the process, all threads. Tests of time limits bound
 * this (a loaded machine stretches wall time, not CPU time) beside a
 * generous bound on wall time. */
static inline double ade_test_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline uint64_t ade_test_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform in [lo, hi). */
static inline double ade_test_uniform(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * (double)(ade_test_rand(s) >> 11) * 0x1.0p-53;
}

/* Sequences a and b the same, step by step, in cost and length (what
 * and seed name the case; b is the reference). */
static inline void ade_test_same_seq(const ade_elim_seq *a, const ade_elim_seq *b, const char *what, uint64_t seed) {
  ck_assert_msg(ade_seq_cost(a) == ade_seq_cost(b), "%s seed %llu: cost %llu, reference %llu", what,
                (unsigned long long)seed, (unsigned long long)ade_seq_cost(a), (unsigned long long)ade_seq_cost(b));
  ck_assert_msg(ade_seq_length(a) == ade_seq_length(b), "%s seed %llu: %zu steps, reference %zu", what,
                (unsigned long long)seed, ade_seq_length(a), ade_seq_length(b));
  for (size_t k = 0; k < ade_seq_length(a); k++) {
    const ade_elim_step *x = ade_seq_step(a, k), *y = ade_seq_step(b, k);
    ck_assert_msg(x->a == y->a && x->b == y->b && x->dir == y->dir,
                  "%s seed %llu step %zu: (%ld, %ld, %d), reference (%ld, %ld, %d)", what, (unsigned long long)seed,
                  k + 1, x->a, x->b, x->dir, y->a, y->b, y->dir);
  }
}

/* ade_optimize_parts with the best heuristics (method -1) in the given
 * number of threads, asserted to succeed. */
static inline void ade_test_parts(const ade_cgraph *g, const size_t *part, size_t nid, int threads,
                                  ade_elim_seq **s, ade_parts_report *r) {
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  l.threads = threads;
  ck_assert_msg(ade_optimize_parts(g, part, nid, -1, &l, s, r) == ADE_OK, "%s", ade_errmsg());
}

/* An allocator that fails the k-th allocation (k counts from 0) and counts
 * live blocks, for out-of-memory tests (CSparse Tcov, Lua debug_realloc). */
typedef struct ade_test_alloc {
  long fail_at;   /* -1: never fail */
  long count;     /* allocations so far */
  long live;      /* blocks not yet freed */
} ade_test_alloc;

static inline void *ade_test_alloc_fn(void *ud, void *p, size_t n) {
  ade_test_alloc *a = ud;
  if (n == 0) {
    if (p) a->live--;
    free(p);
    return NULL;
  }
  if (a->fail_at >= 0 && a->count++ == a->fail_at) return NULL;
  if (a->fail_at < 0) a->count++;
  void *q = realloc(p, n);
  if (q && !p) a->live++;
  return q;
}

/* Run a suite and return main's exit status. */
static inline int ade_test_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
