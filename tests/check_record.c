/* check_record.c: the recording API and the first-order sweeps against independent oracles. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "randprog.h"
#include "record_internal.h"

static void opts(ade_tape_options *o, int level, uint32_t chunk) {
  ade_tape_options_init(o);
  o->level = level;
  o->chunk_ops = chunk;
}

static double maxabs(const double *v, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(v[i]));
  return r;
}

/* Every sweep against finite differences, forward against reverse, the
 * dot-product identity, and replay against plain evaluation, on many random
 * programs, points, chunk sizes and levels. */
START_TEST(random_programs_all_sweeps) {
  uint64_t s = 1000 + (uint64_t)_i;
  int n = 1 + (int)(ade_test_rand(&s) % 6), m = 1 + (int)(ade_test_rand(&s) % 4);
  int nsteps = m + (int)(ade_test_rand(&s) % 60);
  randprog p = rp_make(ade_test_rand(&s), n, m, nsteps);
  double x[6], x2[6], y[4], y2[4], J[24], Jerr[24], Jf[24], Jr[24], Jfd[24], xd[6], yd[4], yb[4], xb[6];
  for (int i = 0; i < n; i++) {
    x[i] = ade_test_uniform(&s, -2.0, 2.0);
    x2[i] = ade_test_uniform(&s, -2.0, 2.0);
    xd[i] = ade_test_uniform(&s, -1.0, 1.0);
  }
  for (int i = 0; i < m; i++) yb[i] = ade_test_uniform(&s, -1.0, 1.0);
  ade_tape_options o;
  opts(&o, _i % 3 == 0 ? 0 : 1, 1 + (uint32_t)(ade_test_rand(&s) % 40));
  ade_tape *t = rp_record(&p, x, &o);
  ck_assert_uint_eq(ade_tape_num_indep(t), (size_t)n);
  ck_assert_uint_eq(ade_tape_num_dep(t), (size_t)m);
  /* Jacobians at the recorded point and at a second point. */
  for (int pt = 0; pt < 2; pt++) {
    const double *xp = pt ? x2 : x;
    double tol = 1e-5 * fmax(1.0, 0.0);
    rp_fd_jacobian(&p, xp, Jfd, Jerr);
    ck_assert_int_ge(ade_jacobian_dense(t, ADE_FORWARD, pt ? x2 : NULL, Jf), 0);
    ck_assert_int_ge(ade_jacobian_dense(t, ADE_REVERSE, pt ? x2 : NULL, Jr), 0);
    tol = 1e-7 * fmax(1.0, maxabs(Jfd, n * m));
    for (int k = 0; k < n * m; k++) {
      ck_assert_msg(fabs(Jf[k] - Jfd[k]) <= tol + 10 * Jerr[k], "seed %d pt %d J[%d]: fwd %.17g fd %.17g +- %.3g", _i, pt, k, Jf[k], Jfd[k], Jerr[k]);
      ade_assert_rel(Jr[k], Jf[k], 64 * DBL_EPSILON * (nsteps + 1));
    }
    /* Replay equals plain evaluation bit for bit. */
    rp_eval(&p, xp, y2, 0);
    ck_assert_int_ge(ade_replay(t, xp, y), 0);
    for (int i = 0; i < m; i++) ck_assert_msg(y[i] == y2[i], "replay y[%d] %.17g vs %.17g", i, y[i], y2[i]);
    if (!pt) { /* x = NULL: the recorded point */
      ck_assert_int_eq(ade_replay(t, NULL, y), ADE_OK);
      for (int i = 0; i < m; i++) ck_assert_msg(y[i] == y2[i], "replay(NULL) y[%d] %.17g vs %.17g", i, y[i], y2[i]);
    }
    /* Tangent and adjoint: J xd and J^T yb, and <yb, J xd> = <J^T yb, xd>. */
    ck_assert_int_ge(ade_tangent(t, pt ? x2 : NULL, xd, y, yd), 0);
    ck_assert_int_ge(ade_adjoint(t, pt ? x2 : NULL, yb, xb), 0);
    double l = 0, r = 0, scale = 0;
    for (int i = 0; i < m; i++) {
      double Jxd = 0;
      for (int j = 0; j < n; j++) Jxd += Jf[i * n + j] * xd[j];
      ade_assert_rel(yd[i], Jxd, 1e-13 * (nsteps + 1));
      l += yb[i] * yd[i];
      scale += fabs(yb[i] * yd[i]);
    }
    for (int j = 0; j < n; j++) {
      r += xb[j] * xd[j];
      scale += fabs(xb[j] * xd[j]);
    }
    ck_assert_msg(fabs(l - r) <= 1e-13 * (nsteps + 1) * fmax(1.0, scale), "dot identity %.17g vs %.17g", l, r);
  }
  /* Live adjoints only (memory limit 0) give the dense results bit for bit. */
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, NULL, Jr), ADE_OK);
  ade_tape_set_memory_limit(t, 0);
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, NULL, J), ADE_OK);
  ck_assert_mem_eq(J, Jr, sizeof(double) * (size_t)(n * m));
  ck_assert_uint_gt(ade_tape_peak_live(t), 0);
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(t, &st), ADE_OK);
  ck_assert_uint_le(ade_tape_peak_live(t), st.records);
  /* At a new point beyond the limit: values recomputed per chunk from the
   * imported ones (no value array), the same results bit for bit. */
  ade_tape_set_memory_limit(t, (size_t)256 << 20);
  int st0 = ade_jacobian_dense(t, ADE_REVERSE, x2, Jr);
  ck_assert_int_ge(st0, 0);
  double f0 = 0, f1 = 1, g0[6], g1[6];
  if (m == 1) ck_assert_int_ge(ade_gradient(t, x2, &f0, g0), 0);
  ade_tape_set_memory_limit(t, 0);
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, x2, J), st0);
  ck_assert_mem_eq(J, Jr, sizeof(double) * (size_t)(n * m));
  ck_assert_uint_gt(ade_tape_peak_live(t), 0);
  if (m == 1) {
    ck_assert_int_eq(ade_gradient(t, x2, &f1, g1), st0);
    ck_assert_msg(f1 == f0, "f at x2: %.17g vs %.17g", f1, f0);
    ck_assert_mem_eq(g1, g0, sizeof(double) * (size_t)n);
  }
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* Gradient of one output against finite differences; f is the value. */
START_TEST(gradient_speelpenning) {
  enum { N = 25 };
  double x[N], g[N], f, f2;
  uint64_t s = 77;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double y = ade_passive(1.0);
  for (int i = 0; i < N; i++) {
    x[i] = ade_test_uniform(&s, 0.5, 1.5);
    y = ADE_MUL(y, ade_indep(x[i]));
  }
  ade_dep(y);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_gradient(t, NULL, &f, g), ADE_OK);
  for (int i = 0; i < N; i++) {
    double prod = 1;
    for (int j = 0; j < N; j++) prod *= j == i ? 1.0 : x[j];
    ade_assert_rel(g[i], prod, 8 * N * DBL_EPSILON);
  }
  for (int i = 0; i < N; i++) x[i] *= 1.01;
  ck_assert_int_eq(ade_gradient(t, x, &f2, g), ADE_OK);
  ade_assert_rel(f2, f * pow(1.01, N), 8 * N * DBL_EPSILON);
  ade_tape_free(t);
}
END_TEST

/* _Generic macros accept every mix and pick plain doubles without actives. */
START_TEST(generic_mixes) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(2.385);
  double d = 1.25;
  double plain = ADE_ADD(d, 3.0);
  ade_assert_rel(plain, 4.25, 0);
  ade_double r1 = ADE_MUL(a, d), r2 = ADE_MUL(d, a), r3 = ADE_POW(a, 2), r4 = ADE_POW(2.0, a);
  ade_double r5 = ADE_FMA(a, 2.0, d), r6 = ADE_FMA(d, d, a), r7 = ADE_SIN(a);
  double r8 = ADE_SIN(d), r9 = ADE_FMA(d, d, d);
  ck_assert(ADE_LT(a, 3.0) && ADE_GT(3, a) && !ADE_LT(d, 1.0));
  ade_assert_rel(ade_val(r1), 2.385 * 1.25, 0);
  ade_assert_rel(ade_val(r2), 2.385 * 1.25, 0);
  ade_assert_rel(ade_val(r3), pow(2.385, 2), 0);
  ade_assert_rel(ade_val(r4), pow(2.0, 2.385), 0);
  ade_assert_rel(ade_val(r5), fma(2.385, 2.0, 1.25), 0);
  ade_assert_rel(ade_val(r6), fma(1.25, 1.25, 2.385), 0);
  ade_assert_rel(ade_val(r7), sin(2.385), 0);
  ade_assert_rel(r8, sin(1.25), 0);
  ade_assert_rel(r9, fma(1.25, 1.25, 1.25), 0);
  ade_double sum = ADE_ADD(ADE_ADD(ADE_ADD(r1, r2), ADE_ADD(r3, r4)), ADE_ADD(ADE_ADD(r5, r6), r7));
  ade_dep(sum);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  double g, f;
  ck_assert_int_eq(ade_gradient(t, NULL, &f, &g), ADE_OK);
  double x = 2.385, want = 1.25 + 1.25 + 2 * x + pow(2.0, x) * log(2.0) + 2.0 + 1.0 + cos(x);
  ade_assert_rel(g, want, 16 * DBL_EPSILON);
  ade_tape_free(t);
}
END_TEST

/* Passive results: floor and friends carry no derivative, replay recomputes. */
START_TEST(rounding_is_passive) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(2.385);
  ade_dep(ADE_ADD(ADE_MUL(ADE_FLOOR(a), a), ADE_ADD(ADE_CEIL(a), ADE_ADD(ADE_ROUND(a), ADE_TRUNC(a)))));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  double g, f, x = 3.7;
  ck_assert_int_eq(ade_gradient(t, NULL, &f, &g), ADE_OK);
  ade_assert_rel(g, 2.0, 0);
  ck_assert_int_eq(ade_gradient(t, &x, &f, &g), ADE_OK);
  ade_assert_rel(f, 3.0 * 3.7 + 4 + 4 + 3, 4 * DBL_EPSILON);
  ade_assert_rel(g, 3.0, 0);
  ade_tape_free(t);
}
END_TEST

/* A recorded comparison that flips at a new point is reported. */
START_TEST(branch_flip_reported) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(0.75);
  ade_double y = ADE_LT(a, 1.0) ? ADE_MUL(a, a) : ADE_SIN(a);
  ade_dep(y);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  double x = 0.5, yv;
  ck_assert_int_eq(ade_replay(t, &x, &yv), ADE_OK);
  x = 1.5;
  ck_assert_int_eq(ade_replay(t, &x, &yv), ADE_WBRANCH);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "op 1"));
  ade_tape_free(t);
}
END_TEST

/* Non-differentiable points are flagged with op index and call site. */
START_TEST(diagnostics_with_call_sites) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.capture = 1;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(0.0), b = ade_indep(2.0);
  ade_double y = ADE_ADD(ADE_FABS(a), ADE_FMIN(b, b)); /* ops 2, 3 flagged */
  y = ADE_ADD(y, ADE_SQRT(a));                         /* op 5 flagged */
  ade_dep(ADE_ADD(y, ADE_LOG(a)));                     /* op 7: -inf */
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_uint_eq(ade_tape_num_diagnostics(t), 4);
  ade_diagnostic d;
  const uint64_t ops[4] = {2, 3, 5, 7};
  const int kinds[4] = {ADE_DIAG_KINK, ADE_DIAG_KINK, ADE_DIAG_SINGULAR, ADE_DIAG_NONFINITE};
  for (size_t i = 0; i < 4; i++) {
    ck_assert_int_eq(ade_tape_diagnostic(t, i, &d), ADE_OK);
    ck_assert_uint_eq(d.op, ops[i]);
    ck_assert_int_eq(d.kind, kinds[i]);
    ck_assert_msg(strstr(d.site, "diagnostics_with_call_sites") != NULL, "site '%s'", d.site);
  }
  ck_assert_int_eq(ade_tape_diagnostic(t, 4, &d), ADE_EINVAL);
  ade_tape_free(t);
}
END_TEST

static __attribute__((noinline)) void inner_work(ade_double *a) {
  ade_region_begin("inner");
  *a = ADE_SIN(*a);
  ade_region_end();
}

/* Nested regions with their op ranges and call stacks. */
START_TEST(regions_nested) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.capture = 1;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(1.0);
  ade_region_begin("outer");
  a = ADE_MUL(a, a);
  inner_work(&a);
  ade_region_end();
  ade_region_begin("open at the end");
  ade_dep(a);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_uint_eq(ade_tape_num_regions(t), 3);
  ade_region r;
  ck_assert_int_eq(ade_tape_region(t, 0, &r), ADE_OK);
  ck_assert_str_eq(r.name, "outer");
  ck_assert_int_eq(r.parent, -1);
  ck_assert_uint_eq(r.first_op, 1);
  ck_assert_uint_eq(r.end_op, 3);
  ck_assert_int_eq(ade_tape_region(t, 1, &r), ADE_OK);
  ck_assert_str_eq(r.name, "inner");
  ck_assert_int_eq(r.parent, 0);
  ck_assert_int_eq(r.depth, 1);
  ck_assert_uint_eq(r.first_op, 2);
  ck_assert_uint_eq(r.end_op, 3);
  ck_assert_uint_ge(r.nframes, 2);
  ck_assert_msg(strstr(ade_tape_region_frame(t, 1, 0), "inner_work") != NULL, "frame 0: %s",
                ade_tape_region_frame(t, 1, 0));
  ck_assert_ptr_nonnull(strstr(ade_tape_region_frame(t, 1, 1), "regions_nested"));
  ck_assert_ptr_null(ade_tape_region_frame(t, 1, r.nframes));
  ck_assert_int_eq(ade_tape_region(t, 2, &r), ADE_OK);
  ck_assert_uint_eq(r.end_op, 4);
  ade_tape_free(t);
}
END_TEST

/* Errors while recording make the tape sticky-failed; nothing crashes. */
START_TEST(sticky_errors) {
  ade_tape *t1, *t2;
  ck_assert_int_eq(ade_tape_create(&t1, NULL), ADE_OK);
  ck_assert_int_eq(ade_tape_create(&t2, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t1), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t2), ADE_ESTATE); /* one tape per thread */
  ade_double a = ade_indep(1.0);
  ade_dep(ADE_SIN(a));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_trace_off(), ADE_ESTATE);
  ck_assert_int_eq(ade_trace_on(t1), ADE_ESTATE); /* records once */
  /* A variable of a finished tape used on another tape. */
  ck_assert_int_eq(ade_trace_on(t2), ADE_OK);
  ade_double b = ade_indep(2.0);
  ade_double c = ADE_MUL(a, b);
  ck_assert_int_eq(c.id, 0);
  ade_assert_rel(ade_val(c), 2.0 * sin(1.0) / sin(1.0) * 1.0, 0);
  ck_assert_int_eq(ade_trace_off(), ADE_ESTATE);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "another tape"));
  /* The failed tape keeps what it had and says it is incomplete. */
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(t2, &st), ADE_OK);
  ck_assert_int_eq(st.complete, 0);
  double g;
  ck_assert_int_eq(ade_gradient(t2, NULL, NULL, &g), ADE_ESTATE); /* incomplete before anything else */
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "another tape"));
  /* Without any tape an active operand is an error too, values still right. */
  ade_double d = ADE_ADD(a, 1.0);
  ade_assert_rel(ade_val(d), 2.0, 0);
  ade_tape_free(t1);
  ade_tape_free(t2);
}
END_TEST

/* A live tape's serial is never handed out again, however far the counter
 * wraps (every 2^20 - 1 tapes), so its variables are rejected by any other
 * tape; with every serial held, ade_tape_create says so. */
START_TEST(serials_of_live_tapes) {
  ade_tape *t1, *t2, *t3;
  ck_assert_int_eq(ade_tape_create(&t1, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t1), ADE_OK);
  ade_double a = ade_indep(2.385);
  ade_dep(ADE_SIN(a));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  /* What 2^20 - 2 tapes created and freed do: the counter comes back to t1's serial. */
  for (uint64_t k = 0; k + 1 < ADE__SERIAL_MASK; k++) ade__serial_release(ade__serial_claim());
  ck_assert_int_eq(ade_tape_create(&t2, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t2), ADE_OK);
  ade_double b = ade_indep(1.75), c = ADE_MUL(b, b); /* t2 has a record numbered like a */
  ck_assert_uint_ne(c.id >> ADE__ID_BITS, a.id >> ADE__ID_BITS);
  ck_assert_uint_eq(ADE_MUL(a, c).id, 0);
  ck_assert_int_eq(ade_trace_off(), ADE_ESTATE);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "another tape"));
  ade_tape_free(t2);
  /* Every serial held: no tape to record, tapes to read need none. */
  uint32_t *got = malloc(ADE__SERIAL_MASK * sizeof *got);
  size_t n = 0;
  for (uint64_t s; (s = ade__serial_claim());) got[n++] = (uint32_t)s;
  ck_assert_uint_eq(n, ADE__SERIAL_MASK - 1); /* all but t1's */
  t2 = (ade_tape *)1;
  ck_assert_int_eq(ade_tape_create(&t2, NULL), ADE_ETOOBIG);
  ck_assert_ptr_null(t2);
  const void *bytes;
  size_t size;
  ck_assert_int_eq(ade_tape_bytes(t1, &bytes, &size), ADE_OK);
  ck_assert_int_eq(ade_tape_from_bytes(&t3, bytes, size), ADE_OK);
  ade_tape_free(t3);
  while (n) ade__serial_release(got[--n]);
  free(got);
  ck_assert_int_eq(ade_tape_create(&t2, NULL), ADE_OK);
  ade_tape_free(t2);
  ade_tape_free(t1);
}
END_TEST

/* A full disk (here: the file size limit) fails the recording with ADE_EIO,
 * reported by trace_off; the path asked for keeps its old contents, and the
 * error names the temporary file holding the prefix, which is rejected by
 * ade_tape_open with a clear error and read by ade_tape_recover. */
START_TEST(disk_full) {
  char path[] = "/tmp/ade-full-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  ade_tape_options o;
  opts(&o, 0, 16);
  o.path = path;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(1.0);
  for (int i = 0; i < 2000; i++) a = ADE_SIN(a);
  ade_dep(a);
  ck_assert_int_eq(ade_trace_off(), ADE_EIO);
  char tmp[sizeof path + 16];
  const char *q = strstr(ade_errmsg(), "is in '");
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(sscanf(q, "is in '%[^']'", tmp), 1);
  ck_assert_int_eq(strncmp(tmp, path, strlen(path)), 0);
  ck_assert_uint_eq(strlen(tmp), strlen(path) + 7);
  ade_tape_free(t);
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(sb.st_size, 0); /* the old (empty) file */
  ck_assert_int_eq(ade_tape_open(&t, tmp), ADE_ETRUNC);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "trailer"));
  /* What was written before the disk filled up stays readable. */
  ck_assert_int_eq(ade_tape_recover(&t, tmp), ADE_OK);
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(t, &st), ADE_OK);
  ck_assert_int_eq(st.complete, 0);
  ck_assert_uint_ge(st.records, 16);
  ck_assert_uint_eq(st.records % 16, 0);
  ck_assert_uint_eq(st.independents, 1);
  ck_assert_uint_eq(st.op_count[0] + st.op_count[17], st.records); /* indep, sin */
  ck_assert_int_eq(ade_tape_verify(t), ADE_OK);
  double g;
  ck_assert_int_eq(ade_gradient(t, NULL, NULL, &g), ADE_ESTATE); /* incomplete */
  ade_tape_free(t);
  unlink(tmp);
  unlink(path);
}
END_TEST

typedef struct job {
  uint64_t seed;
  int ok;
} job;

static void *record_in_thread(void *arg) {
  job *j = arg;
  randprog p = rp_make(j->seed, 4, 2, 300);
  double x[4] = {0.3, -0.7, 1.1, 0.2}, J1[8], J2[8], E[8];
  ade_tape_options o;
  opts(&o, 1, 32);
  ade_tape *t = NULL;
  j->ok = ade_tape_create(&t, &o) == ADE_OK && ade_trace_on(t) == ADE_OK;
  double y[2];
  for (int rep = 0; rep < 20 && j->ok; rep++) {
    if (rep) j->ok = ade_tape_create(&t, &o) == ADE_OK && ade_trace_on(t) == ADE_OK;
    rp_eval(&p, x, y, 1);
    j->ok = j->ok && ade_trace_off() == ADE_OK && ade_jacobian_dense(t, ADE_FORWARD, NULL, J1) == ADE_OK;
    rp_fd_jacobian(&p, x, J2, E);
    for (int k = 0; k < 8 && j->ok; k++) j->ok = fabs(J1[k] - J2[k]) < 1e-7 * fmax(1, fabs(J2[k])) + 10 * E[k];
    ade_tape_free(t);
  }
  rp_free(&p);
  return NULL;
}

/* Two threads record two tapes at once. */
START_TEST(two_threads) {
  pthread_t th[2];
  job jobs[2] = {{11, 0}, {12, 0}};
  for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, record_in_thread, &jobs[i]), 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  ck_assert(jobs[0].ok && jobs[1].ok);
}
END_TEST

/* Every allocation failure returns ADE_ENOMEM (or fails the recording) and leaks nothing. */
START_TEST(out_of_memory) {
  randprog p = rp_make(5, 3, 2, 80);
  double x[3] = {0.4, 1.3, -0.6}, J[6], y[2];
  int succeeded = 0;
  for (long k = 0; !succeeded && k < 10000; k++) {
    ade_test_alloc a = {k, 0, 0};
    ade_set_allocator(ade_test_alloc_fn, &a);
    ade_tape_options o;
    opts(&o, 3, 16);
    ade_tape *t = NULL;
    int st = ade_tape_create(&t, &o);
    if (st == ADE_OK) {
      st = ade_trace_on(t);
      rp_eval(&p, x, y, 1);
      int off = ade_trace_off();
      st = st ? st : off;
      if (!st) st = ade_jacobian_dense(t, ADE_REVERSE, x, J);
      ade_tape_set_memory_limit(t, 0); /* at x without a value array (point.c) */
      if (!st) st = ade_jacobian_dense(t, ADE_REVERSE, x, J);
      ade_tape_set_memory_limit(t, (size_t)256 << 20);
      if (!st) st = ade_jacobian_dense(t, ADE_FORWARD, NULL, J); /* keeps linearized chunks */
      ade_tape_free(t);
    }
    ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "k=%ld: status %d %s", k, st, ade_errmsg());
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    succeeded = st == ADE_OK;
  }
  ck_assert(succeeded);
  rp_free(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("record");
  TCase *tc = tcase_create("sweeps");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, random_programs_all_sweeps, 0, 400);
  tcase_add_test(tc, gradient_speelpenning);
  tcase_add_test(tc, generic_mixes);
  tcase_add_test(tc, rounding_is_passive);
  tcase_add_test(tc, branch_flip_reported);
  suite_add_tcase(s, tc);
  tc = tcase_create("recording");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, diagnostics_with_call_sites);
  tcase_add_test(tc, regions_nested);
  tcase_add_test(tc, sticky_errors);
  tcase_add_test(tc, serials_of_live_tapes);
  tcase_add_test(tc, disk_full);
  tcase_add_test(tc, two_threads);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
