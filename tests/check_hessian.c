/* check_hessian.c: Hessians by edge pushing and vertex elimination against forward-over-reverse and finite differences. */
#include <string.h>
#include <unistd.h>

#include "hessian_internal.h"
#include "randprog.h"

static double maxabs(const double *v, size_t n) {
  double r = 0;
  for (size_t i = 0; i < n; i++) r = fmax(r, fabs(v[i]));
  return r;
}

/* H as a dense n x n array; also asserts the lower-triangle CSR shape. */
static double *dense(const ade_sparse *H, size_t n) {
  double *D = malloc(sizeof(double) * (n * n + 1));
  ck_assert_ptr_nonnull(H);
  ck_assert(H->symmetric && H->m == n && H->n == n);
  for (size_t i = 0; i < n; i++)
    for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
      ck_assert_uint_le(H->col[k], i);
      if (k > H->rowptr[i]) ck_assert_uint_lt(H->col[k - 1], H->col[k]);
    }
  ck_assert_int_eq(ade_sparse_to_dense(H, D), ADE_OK);
  return D;
}

/* Hessian and gradient by a method; the status must be OK (or WBRANCH). */
static double *hess(ade_tape *t, int method, const double *x, const double *w, double *g,
                    ade_hess_report *r, ade_sparse **Hp) {
  ade_hess_options o = {x, w, g};
  ade_sparse *H = NULL;
  int st = ade_hessian(t, method, &o, &H, r);
  ck_assert_msg(st == ADE_OK || st == ADE_WBRANCH, "%s: %s: %s", ade_hess_method_name(method),
                ade_strerror(st), ade_errmsg());
  double *D = dense(H, ade_tape_num_indep(t));
  if (Hp) *Hp = H;
  else ade_sparse_free(H);
  return D;
}

/* Compare method m against the oracle D0: values, and entries absent from
 * m's structure are exactly zero in the oracle. */
static void compare(const double *D, const double *D0, const ade_sparse *H, size_t n, double tol,
                    const char *what) {
  double scale = fmax(1.0, maxabs(D0, n * n));
  for (size_t k = 0; k < n * n; k++)
    ck_assert_msg(fabs(D[k] - D0[k]) <= tol * scale, "%s: H[%zu][%zu] = %.17g, oracle %.17g", what,
                  k / n, k % n, D[k], D0[k]);
  char *in = calloc(n * n + 1, 1);
  for (size_t i = 0; i < n; i++)
    for (size_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) in[i * n + H->col[k]] = 1;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j <= i; j++)
      ck_assert_msg(in[i * n + j] || D0[i * n + j] == 0, "%s: structural zero H[%zu][%zu] is %.17g in the oracle",
                    what, i, j, D0[i * n + j]);
  free(in);
}

/* Theorem 5.1: symmetric vertex elimination in reverse topological order
 * performs exactly the updates of edge pushing, step by step. */
static void theorem_5_1(ade_tape *t, const double *x, const double *w) {
  ade__hlog la = {0}, lb = {0};
  ade_hess_report ra = {0}, rb = {0};
  ade_sparse *Ha = NULL, *Hb = NULL;
  double *V = NULL;
  if (x) {
    V = malloc(sizeof(double) * (size_t)(t->meta.records + 1));
    ck_assert_int_ge(ade__replay_values(t, x, V), 0);
  }
  ck_assert_int_eq(ade__edge_push(t, V, w, &Ha, NULL, &ra, &la), ADE_OK);
  ck_assert_int_eq(ade__vertex_elim(t, V, w, ADE_HESS_VE_REVERSE, &Hb, NULL, &rb, &lb), ADE_OK);
  ck_assert_uint_eq(ra.updates, rb.updates);
  ck_assert_uint_eq(la.n, lb.n);
  ade__hlog_sort(&la);
  ade__hlog_sort(&lb);
  ck_assert_msg(la.n == 0 || memcmp(la.e, lb.e, 3 * la.n * sizeof *la.e) == 0, "update sequences differ");
  /* The same updates in the same order per entry: bit-identical results. */
  ck_assert_uint_eq(Ha->nnz, Hb->nnz);
  for (size_t k = 0; k < Ha->nnz; k++) ck_assert_uint_eq(Ha->col[k], Hb->col[k]);
  ade__hlog_free(&la);
  ade__hlog_free(&lb);
  ade_sparse_free(Ha);
  ade_sparse_free(Hb);
  free(V);
}

/* Hessian of sum w_i y_i by central differences of the weighted gradient
 * (ade_adjoint at x +- h e_j), one Richardson step. */
static void fd_hessian(ade_tape *t, const double *x, const double *w, double *D) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  double *xp = malloc(sizeof(double) * n), *g[4], one = 1.0;
  for (int k = 0; k < 4; k++) g[k] = malloc(sizeof(double) * n);
  for (size_t j = 0; j < n; j++) {
    double h = 1e-3 * fmax(1.0, fabs(x[j]));
    for (int k = 0; k < 4; k++) {
      static const double f[4] = {1, -1, 0.5, -0.5};
      memcpy(xp, x, n * sizeof *xp);
      xp[j] += f[k] * h;
      ck_assert_int_ge(ade_adjoint(t, xp, w ? w : &one, g[k]), 0);
    }
    for (size_t i = 0; i < n; i++) {
      double d1 = (g[0][i] - g[1][i]) / (2 * h), d2 = (g[2][i] - g[3][i]) / h;
      D[i * n + j] = (4 * d2 - d1) / 3;
    }
  }
  (void)m;
  for (int k = 0; k < 4; k++) free(g[k]);
  free(xp);
}

static const int methods[] = {ADE_HESS_EDGE_PUSH, ADE_HESS_VE_REVERSE, ADE_HESS_VE_MARKOWITZ,
                              ADE_HESS_EDGE_PUSH_PREACC, ADE_HESS_STAR, ADE_HESS_AUTO};

/* Preaccumulation against plain edge pushing: the same H to 1e-10
 * relative, every entry of preacc's structure in edge pushing's (a
 * statement's local Hessian only has entries the records reach), and no
 * more updates. */
static void preacc_vs_edge_push(ade_tape *t, const double *x, const double *w) {
  size_t n = ade_tape_num_indep(t);
  ade_sparse *Ha, *Hb;
  ade_hess_report ra, rb;
  double *Da = hess(t, ADE_HESS_EDGE_PUSH, x, w, NULL, &ra, &Ha);
  double *Db = hess(t, ADE_HESS_EDGE_PUSH_PREACC, x, w, NULL, &rb, &Hb);
  compare(Db, Da, Hb, n, 1e-10, "edge-push-preacc vs edge-push");
  ck_assert_uint_le(Hb->nnz, Ha->nnz);
  ck_assert_uint_le(rb.updates, ra.updates); /* observed on these tapes, not a theorem */
  ade_sparse_free(Ha);
  ade_sparse_free(Hb);
  free(Da);
  free(Db);
}

/* Many random tapes (chunked, compressed or not, in memory or in a file),
 * at the recorded point and at a new one, with weights when m > 1: every
 * method equals forward-over-reverse, the gradient equals the adjoint. */
START_TEST(random_tapes) {
  uint64_t s = 77 + (uint64_t)_i;
  int n = 1 + (int)(ade_test_rand(&s) % 6), m = 1 + (int)(ade_test_rand(&s) % 3);
  int nsteps = m + (int)(ade_test_rand(&s) % 50);
  randprog p = rp_make(ade_test_rand(&s), n, m, nsteps);
  double x[6], x2[6], w[3], g[6], g0[6];
  for (int i = 0; i < n; i++) {
    x[i] = ade_test_uniform(&s, -1.5, 1.5);
    x2[i] = ade_test_uniform(&s, -1.5, 1.5);
  }
  for (int i = 0; i < m; i++) w[i] = ade_test_uniform(&s, -1.0, 1.0);
  char path[] = "/tmp/ade-hess-XXXXXX";
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.level = _i % 3 == 0 ? 0 : 1;
  o.chunk_ops = 1 + (uint32_t)(ade_test_rand(&s) % 40);
  if (_i % 10 == 0) {
    int fd = mkstemp(path);
    close(fd);
    o.path = path;
  }
  ade_tape *t = rp_record(&p, x, &o);
  const double *wp = m > 1 ? w : NULL;
  for (int pt = 0; pt < 2; pt++) {
    const double *xp = pt ? x2 : NULL;
    ade_hess_report r0;
    double *D0 = hess(t, ADE_HESS_FOR_OVER_REV, xp, wp, g0, &r0, NULL);
    preacc_vs_edge_push(t, xp, wp);
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
      ade_sparse *H;
      ade_hess_report r;
      double *D = hess(t, methods[k], xp, wp, g, &r, &H);
      compare(D, D0, H, (size_t)n, 1e-10, ade_hess_method_name(methods[k]));
      for (int i = 0; i < n; i++) ade_assert_rel(g[i], g0[i], 1e-12 * fmax(1, maxabs(g0, (size_t)n)));
      ade_assert_rel(r.value, r0.value, 1e-15);
      ck_assert_uint_eq(r.nnz, H->nnz);
      ade_sparse_free(H);
      free(D);
    }
    if (_i % 4 == 0) theorem_5_1(t, xp, wp);
    if (pt) { /* beyond the memory limit: no value array (point.c), the same bits */
      ade_hess_report r1;
      int k = _i % ADE_HESS_NMETHODS; /* the method: each in turn */
      double *D1 = hess(t, k, xp, wp, g0, &r0, NULL);
      ade_tape_set_memory_limit(t, 0);
      double *D2 = hess(t, k, xp, wp, g, &r1, NULL);
      ade_tape_set_memory_limit(t, (size_t)256 << 20);
      ck_assert_mem_eq(D2, D1, sizeof(double) * (size_t)(n * n));
      ck_assert_mem_eq(g, g0, sizeof(double) * (size_t)n);
      ck_assert_msg(r1.value == r0.value, "value %.17g vs %.17g", r1.value, r0.value);
      free(D1);
      free(D2);
    }
    free(D0);
  }
  ade_tape_free(t);
  if (o.path) unlink(path);
  rp_free(&p);
}
END_TEST

/* ve-markowitz by its heap against the linear scan it replaced (the
 * reference, ADE__HESS_VE_MARKOWITZ_SCAN): the same pairs in the same
 * order, the same updates in the same order, bit-identical Hessians. */
static void markowitz_heap_vs_scan(ade_tape *t, const double *V, const double *w, int seed) {
  ade__hlog lg[2] = {{0}, {0}};
  ade_hess_report r[2];
  memset(r, 0, sizeof r);
  ade_sparse *H[2] = {NULL, NULL};
  static const int meth[2] = {ADE_HESS_VE_MARKOWITZ, ADE__HESS_VE_MARKOWITZ_SCAN};
  for (int q = 0; q < 2; q++) {
    lg[q].order = malloc(sizeof *lg[q].order * (size_t)(t->meta.records + 1));
    ck_assert_int_eq(ade__vertex_elim(t, V, w, meth[q], &H[q], NULL, &r[q], &lg[q]), ADE_OK);
  }
  ck_assert_uint_eq(r[0].vertices, lg[0].norder);
  ck_assert_uint_eq(lg[0].norder, lg[1].norder);
  for (size_t k = 0; k < lg[0].norder; k++)
    ck_assert_msg(lg[0].order[k] == lg[1].order[k], "seed %d: pair %zu: the heap eliminates %llu, the scan %llu",
                  seed, k, (unsigned long long)lg[0].order[k], (unsigned long long)lg[1].order[k]);
  ck_assert_uint_eq(r[0].updates, r[1].updates);
  ck_assert_uint_eq(r[0].fma, r[1].fma);
  ck_assert_uint_eq(lg[0].n, lg[1].n);
  ck_assert(lg[0].n == 0 || memcmp(lg[0].e, lg[1].e, 3 * lg[0].n * sizeof *lg[0].e) == 0);
  ck_assert_uint_eq(H[0]->nnz, H[1]->nnz);
  ck_assert(memcmp(H[0]->rowptr, H[1]->rowptr, (H[0]->m + 1) * sizeof *H[0]->rowptr) == 0);
  ck_assert(H[0]->nnz == 0 || memcmp(H[0]->col, H[1]->col, H[0]->nnz * sizeof *H[0]->col) == 0);
  ck_assert(H[0]->nnz == 0 || memcmp(H[0]->val, H[1]->val, H[0]->nnz * sizeof *H[0]->val) == 0);
  for (int q = 0; q < 2; q++) {
    free(lg[q].order);
    ade__hlog_free(&lg[q]);
    ade_sparse_free(H[q]);
  }
}

/* Larger random tapes than random_tapes (up to 400 steps: many pairs
 * whose degrees change and tie), at the recorded point and a new one. */
START_TEST(markowitz_heap) {
  uint64_t s = 4242 + (uint64_t)_i;
  int n = 1 + (int)(ade_test_rand(&s) % 12), m = 1 + (int)(ade_test_rand(&s) % 3);
  randprog p = rp_make(ade_test_rand(&s), n, m, m + (int)(ade_test_rand(&s) % 400));
  double x[12], w[3];
  for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.5, 1.5);
  for (int i = 0; i < m; i++) w[i] = ade_test_uniform(&s, -1.0, 1.0);
  ade_tape *t = rp_record(&p, x, NULL);
  markowitz_heap_vs_scan(t, NULL, m > 1 || _i % 2 ? w : NULL, _i);
  for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.5, 1.5);
  double *V = malloc(sizeof(double) * (size_t)(t->meta.records + 1));
  ck_assert_int_ge(ade__replay_values(t, x, V), 0);
  markowitz_heap_vs_scan(t, V, w, _i);
  free(V);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* Edge pushing against finite differences of the gradient. */
START_TEST(random_tapes_fd) {
  uint64_t s = 9000 + (uint64_t)_i;
  int n = 1 + (int)(ade_test_rand(&s) % 5), m = 1 + (int)(ade_test_rand(&s) % 2);
  randprog p = rp_make(ade_test_rand(&s), n, m, m + (int)(ade_test_rand(&s) % 30));
  double x[5], w[2] = {0.7, -1.3};
  for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1.2, 1.2);
  ade_tape *t = rp_record(&p, x, NULL);
  double *D = hess(t, ADE_HESS_EDGE_PUSH, x, m > 1 ? w : NULL, NULL, NULL, NULL);
  double *F = malloc(sizeof(double) * (size_t)(n * n));
  fd_hessian(t, x, m > 1 ? w : NULL, F);
  double scale = fmax(1.0, maxabs(D, (size_t)(n * n)));
  for (int k = 0; k < n * n; k++)
    ck_assert_msg(fabs(D[k] - F[k]) <= 1e-6 * scale, "seed %d H[%d]: %.17g fd %.17g", _i, k, D[k], F[k]);
  free(D);
  free(F);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* Every row of the operation table, operands themselves nonlinear in x
 * (so first and second partials both matter), repeated operands too. */
START_TEST(every_operation) {
  int op = _i;
  if (op == ADE_OP_INDEP || op == ADE_OP_DEP) return;
  int k = ade__optab[op].arity;
  for (int dup = 0; dup < (k > 1 ? 2 : 1); dup++) {
    double x[3] = {0.37, 0.61, -0.23};
    ade_tape *t;
    ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double a[3], v[3];
    for (int i = 0; i < 3; i++) a[i] = ade_indep(x[i]);
    v[0] = ade_add(ade_mul(a[0], a[1]), ade_passive(op == ADE_OP_ACOSH ? 1.3 : 0.2));
    v[1] = ade_add(ade_square(a[1]), ade_mul(ade_passive(0.5), a[2]));
    v[2] = ade_sin(ade_mul(a[2], a[0]));
    if (dup) v[1] = v[0];
    ade_double xs[3] = {v[0], v[1], v[2]};
    /* Record op directly through the recorder (every opcode, one row each). */
    double args[3] = {ade_val(v[0]), ade_val(v[1]), ade_val(v[2])};
    double r = ade__op_value((unsigned)op, args);
    ade_double y = ade__append(t, (unsigned)op, k, xs, r, ade__op_check((unsigned)op, args, r), NULL);
    if (op >= ADE_OP_LT) y = v[0]; /* a comparison is never an operand (doc/tape-format.md) */
    ade_dep(ade_mul(y, ade_add(a[0], ade_passive(1.1))));
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    double *D0 = hess(t, ADE_HESS_FOR_OVER_REV, NULL, NULL, NULL, NULL, NULL);
    for (size_t q = 0; q < sizeof methods / sizeof methods[0]; q++) {
      ade_sparse *H;
      double *D = hess(t, methods[q], NULL, NULL, NULL, NULL, &H);
      compare(D, D0, H, 3, 1e-10, ade_op_name(op));
      ade_sparse_free(H);
      free(D);
    }
    theorem_5_1(t, NULL, NULL);
    /* And against finite differences (smooth rows only). */
    if (!(ade__optab[op].flags & ADE__PASSIVE) && op != ADE_OP_FABS && op != ADE_OP_FMIN &&
        op != ADE_OP_FMAX && op != ADE_OP_COPYSIGN) {
      double F[9];
      fd_hessian(t, x, NULL, F);
      for (int e = 0; e < 9; e++)
        ck_assert_msg(fabs(D0[e] - F[e]) <= 1e-6 * fmax(1, maxabs(D0, 9)), "%s dup %d H[%d]: %.17g fd %.17g",
                      ade_op_name(op), dup, e, D0[e], F[e]);
    }
    free(D0);
    ade_tape_free(t);
  }
}
END_TEST

/* Figure 6: n independents, each through h unary functions, combined by a
 * balanced binary tree of products. */
static ade_tape *chain_tree(int n, int h) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof *v * (size_t)n);
  for (int i = 0; i < n; i++) v[i] = ade_indep(0.3 + 0.1 * i);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < h; j++) v[i] = ade_sin(v[i]);
  for (int w = n; w > 1; w = (w + 1) / 2)
    for (int i = 0; i < w / 2; i++) {
      v[i] = ade_mul(v[2 * i], v[2 * i + 1]);
      if (w % 2 && i == w / 2 - 1) v[i + 1] = v[w - 1];
    }
  ade_dep(v[0]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  return t;
}

/* Updates per eliminated pair (all of them: fill, transients, merges) and
 * live-set sizes, by step key. */
static uint64_t chain_counts(ade_tape *t, int method, uint64_t *upd, uint64_t *live, size_t nkeys) {
  ade__hlog lg = {0};
  ade_hess_report r = {0};
  ade_sparse *H = NULL;
  lg.upd = upd;
  lg.live = live;
  lg.nkeys = nkeys;
  memset(upd, 0, nkeys * sizeof *upd);
  memset(live, 0, nkeys * sizeof *live);
  int st = method == ADE_HESS_EDGE_PUSH ? ade__edge_push(t, NULL, NULL, &H, NULL, &r, &lg)
                                        : ade__vertex_elim(t, NULL, NULL, method, &H, NULL, &r, &lg);
  ck_assert_int_eq(st, ADE_OK);
  ade__hlog_free(&lg);
  ade_sparse_free(H);
  return r.updates;
}

/* Section 5.3: with the Markowitz symmetric order each pair (v_ij, vbar_ij)
 * of a unary chain costs 3 updates (2 for the chain's last vertex, whose
 * successor, a product, has no diagonal second derivative); reverse
 * topological order (= edge pushing) meets every chain pair with n live
 * variables, so Algorithm 4's loop over unordered pairs of S_k does
 * n(n+1)/2 updates per pair; the sparse form does n - 1 pushes + 1
 * transient + 1 diagonal + 1 creating = n + 2 (n for the chain's last
 * vertex: no diagonal yet). Counts are measured, the formulas asserted. */
START_TEST(figure6_counterexample) {
  static const int ns[2] = {4, 16};
  for (int q = 0; q < 2; q++) {
    int n = ns[q], h = 3;
    ade_tape *t = chain_tree(n, h);
    size_t nkeys = (size_t)(n + t->meta.records + 1);
    uint64_t *upd = malloc(nkeys * sizeof *upd), *live = malloc(nkeys * sizeof *live);
    uint64_t rtot = chain_counts(t, ADE_HESS_VE_REVERSE, upd, live, nkeys);
    uint64_t etot = chain_counts(t, ADE_HESS_EDGE_PUSH, upd, live, nkeys);
    uint64_t dense = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < h; j++) {
        size_t key = (size_t)(n + n + 1 + i * h + j); /* chain i, level j */
        ck_assert_uint_eq(live[key], (uint64_t)n);
        ck_assert_uint_eq(live[key] * (live[key] + 1) / 2, (uint64_t)(n * (n + 1) / 2));
        ck_assert_uint_eq(upd[key], (uint64_t)(j == h - 1 ? n : n + 2));
        dense += live[key] * (live[key] + 1) / 2;
      }
    uint64_t mtot = chain_counts(t, ADE_HESS_VE_MARKOWITZ, upd, live, nkeys);
    markowitz_heap_vs_scan(t, NULL, NULL, n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < h; j++) {
        size_t key = (size_t)(n + n + 1 + i * h + j);
        ck_assert_msg(upd[key] == (j < h - 1 ? 3u : 2u), "n=%d chain %d level %d: %llu updates", n, i, j,
                      (unsigned long long)upd[key]);
      }
    fprintf(stderr, "figure 6, n=%d h=%d: updates: reverse topological %llu (= edge pushing %llu; "
            "Algorithm 4 dense pair loop on the chains alone %llu), Markowitz %llu\n", n, h,
            (unsigned long long)rtot, (unsigned long long)etot, (unsigned long long)dense,
            (unsigned long long)mtot);
    ck_assert_uint_eq(etot, rtot);
    ck_assert_uint_lt(mtot, rtot);
    free(upd);
    free(live);
    ade_tape_free(t);
  }
}
END_TEST

/* One statement, f = (a b + sin a)^2: the tree DEP <- square <- add <- (mul,
 * sin) over the leaves a, b (a used twice, merged), with the analytic
 * gradient and Hessian; a record live at the chunk's start is a leaf. */
START_TEST(statement_tree) {
  const double a0 = 0.7, b0 = -1.3;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(a0), b = ade_indep(b0), p = ade_mul(a, b), s = ade_sin(a);
  ade_dep(ade_square(ade_add(p, s))); /* ids: a 1, b 2, p 3, s 4, add 5, square 6, dep 7 */
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade__view_load(t, 0), ADE_OK);
  const ade__view *v = &t->view;
  ck_assert_uint_eq(v->n, 7);
  uint8_t uses[7];
  ade__stmt_uses(v, uses);
  static const uint8_t want[7] = {2, 1, 1, 1, 1, 1, 0}; /* a: mul and sin */
  for (int i = 0; i < 7; i++) ck_assert_uint_eq(uses[i], want[i]);
  ade__stmt *S = malloc(sizeof *S);
  ck_assert_int_eq(ade__stmt_build(v, 6, NULL, uses, S), 5);
  for (int i = 2; i < 6; i++) ck_assert_uint_eq(uses[i], ADE__USE_INNER);
  ck_assert_int_eq(S->np, 2);
  ck_assert_uint_eq(S->id[0], 1);
  ck_assert_uint_eq(S->id[1], 2);
  const double q = a0 * b0 + sin(a0), qa = b0 + cos(a0), tol = 64 * DBL_EPSILON;
  ade_assert_rel(S->d[0], 2 * q * qa, tol);
  ade_assert_rel(S->d[1], 2 * q * a0, tol);
  ade_assert_rel(S->h[0], 2 * qa * qa - 2 * q * sin(a0), tol);
  ade_assert_rel(S->h[1], 2 * a0 * qa + 2 * q, tol);
  ade_assert_rel(S->h[2], 2 * a0 * a0, tol);
  ck_assert_uint_gt(S->fma, 0);
  /* The add (id 5) live at the chunk's start: a leaf, the tree is DEP <- square. */
  ade__stmt_uses(v, uses);
  uses[4] = ADE__USE_MANY;
  ck_assert_int_eq(ade__stmt_build(v, 6, NULL, uses, S), 2);
  ck_assert_int_eq(S->np, 1);
  ck_assert_uint_eq(S->id[0], 5);
  ade_assert_rel(S->d[0], 2 * q, tol);
  ade_assert_rel(S->h[0], 2, tol);
  /* The sin (id 4), used once by a live record: no tree, its own partials. */
  ck_assert_int_eq(ade__stmt_build(v, 3, NULL, uses, S), 1);
  ck_assert_int_eq(S->rec[0].np, 1);
  free(S);
  ade_tape_free(t);
}
END_TEST

/* The caps: a chain of 40 sines stops at ADE__STMT_MAXREC records; a sum
 * of 40 products p_i q_i by fma, at ADE__STMT_MAXLEAF leaves (7 fma give
 * 15 leaves, an 8th would make 17); H still exact. */
START_TEST(statement_caps) {
  for (int sum = 0; sum < 2; sum++) {
    ade_tape *t;
    ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double p[40], q[40], y = ade_indep(0.3);
    for (int i = 1; sum && i < 40; i++) p[i] = ade_indep(0.1 * i), q[i] = ade_indep(0.7 - 0.01 * i);
    for (int i = 1; i < 40; i++) y = sum ? ade_fma(p[i], q[i], y) : ade_sin(y);
    ade_dep(ade_square(y));
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    ck_assert_int_eq(ade__view_load(t, 0), ADE_OK);
    const ade__view *v = &t->view;
    uint8_t *uses = malloc(v->n);
    ade__stmt_uses(v, uses);
    ade__stmt *S = malloc(sizeof *S);
    int nrec = ade__stmt_build(v, v->n - 1, NULL, uses, S);
    if (sum) {
      ck_assert_int_eq(S->np, 15);
      ck_assert_int_eq(nrec, 9); /* dep, square, 7 fma */
    } else {
      ck_assert_int_eq(nrec, ADE__STMT_MAXREC);
      ck_assert_int_eq(S->np, 1);
    }
    double *D0 = hess(t, ADE_HESS_FOR_OVER_REV, NULL, NULL, NULL, NULL, NULL);
    ade_sparse *H;
    double *D = hess(t, ADE_HESS_EDGE_PUSH_PREACC, NULL, NULL, NULL, NULL, &H);
    size_t n = ade_tape_num_indep(t);
    compare(D, D0, H, n, 1e-10, sum ? "sum" : "chain");
    free(D);
    free(D0);
    ade_sparse_free(H);
    free(S);
    free(uses);
    ade_tape_free(t);
  }
}
END_TEST

/* Statements across small chunks, dependents used again as operands, m = 3
 * with weights, recorded and new point: preacc equals forward-over-reverse
 * and edge pushing, keeps the band structure (entries |i - j| > 1 absent),
 * and with chunks large enough to hold them does fewer updates. */
START_TEST(statement_chunks) {
  const int n = 12;
  double x[12], x2[12], w[3] = {0.8, -1.1, 0.45};
  for (int i = 0; i < n; i++) x[i] = 0.3 + 0.07 * i, x2[i] = -0.2 + 0.05 * i;
  for (uint32_t chunk = 1; chunk <= 64; chunk = chunk < 8 ? chunk + 1 : 2 * chunk) {
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.chunk_ops = chunk;
    ade_tape *t;
    ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double a[12], f = ade_passive(0);
    for (int i = 0; i < n; i++) a[i] = ade_indep(x[i]);
    for (int i = 0; i + 1 < n; i++) f = ade_add(f, ade_square(ade_sub(ade_mul(a[i], a[i + 1]), ade_cos(a[i]))));
    ade_dep(f); /* y1 = f, used again below */
    ade_double g = ade_mul(f, ade_exp(ade_mul(ade_passive(0.1), a[0])));
    ade_dep(g);
    ade_dep(ade_add(ade_mul(g, f), ade_square(a[n - 1])));
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    for (int pt = 0; pt < 2; pt++) {
      const double *xp = pt ? x2 : NULL;
      double *D0 = hess(t, ADE_HESS_FOR_OVER_REV, xp, w, NULL, NULL, NULL);
      ade_sparse *H;
      ade_hess_report rp, re;
      double *D = hess(t, ADE_HESS_EDGE_PUSH_PREACC, xp, w, NULL, &rp, &H);
      compare(D, D0, H, (size_t)n, 1e-10, "preacc, small chunks");
      preacc_vs_edge_push(t, xp, w);
      free(hess(t, ADE_HESS_EDGE_PUSH, xp, w, NULL, &re, NULL));
      if (chunk >= 8) ck_assert_uint_lt(rp.updates, re.updates);
      ck_assert_uint_gt(rp.fma, 0);
      free(D);
      free(D0);
      ade_sparse_free(H);
    }
    ade_tape_free(t);
  }
}
END_TEST

/* m > 1: the Hessian of sum w_i y_i is sum w_i H_i; no weights: an error. */
START_TEST(weights) {
  randprog p = rp_make(31, 4, 3, 40);
  double x[4] = {0.3, -0.8, 1.1, 0.45}, w[3] = {0.6, -1.7, 2.2}, e[3];
  ade_tape *t = rp_record(&p, x, NULL);
  ade_sparse *H = (ade_sparse *)1;
  ck_assert_int_eq(ade_hessian(t, ADE_HESS_EDGE_PUSH, NULL, &H, NULL), ADE_EINVAL);
  ck_assert_ptr_null(H);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "weights"));
  for (size_t q = 0; q < sizeof methods / sizeof methods[0]; q++) {
    double *D = hess(t, methods[q], NULL, w, NULL, NULL, NULL), S[16] = {0};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) e[j] = i == j;
      double *Di = hess(t, methods[q], NULL, e, NULL, NULL, NULL);
      for (int k = 0; k < 16; k++) S[k] += w[i] * Di[k];
      free(Di);
    }
    for (int k = 0; k < 16; k++) ade_assert_rel(D[k], S[k], 1e-12 * fmax(1, maxabs(S, 16)));
    free(D);
  }
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

START_TEST(errors) {
  ade_sparse *H = NULL;
  ck_assert_int_eq(ade_hessian(NULL, 0, NULL, &H, NULL), ADE_EINVAL);
  randprog p = rp_make(3, 2, 1, 10);
  double x[2] = {0.5, 0.25};
  ade_tape *t = rp_record(&p, x, NULL);
  ck_assert_int_eq(ade_hessian(t, 0, NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hessian(t, 17, NULL, &H, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hessian(t, -1, NULL, &H, NULL), ADE_EINVAL);
  for (int m = 0; m < ADE_HESS_NMETHODS; m++)
    ck_assert_int_eq(ade_hess_method_parse(ade_hess_method_name(m)), m);
  ck_assert_int_eq(ade_hess_method_parse("edge"), -1);
  ck_assert_ptr_null(ade_hess_method_name(ADE_HESS_NMETHODS));
  ade_tape_free(t);
  /* A tape still recording, then an incomplete one. */
  ade_tape *t1, *t2;
  ck_assert_int_eq(ade_tape_create(&t1, NULL), ADE_OK);
  ck_assert_int_eq(ade_tape_create(&t2, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t1), ADE_OK);
  ade_double a = ade_indep(1.0);
  ade_dep(ADE_SIN(a));
  ck_assert_int_eq(ade_hessian(t1, 0, NULL, &H, NULL), ADE_ESTATE);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t2), ADE_OK);
  ade_double b = ade_indep(2.0);
  ade_dep(ADE_MUL(b, b));
  (void)ADE_MUL(a, b); /* a belongs to another tape: the recording fails */
  ck_assert_int_ne(ade_trace_off(), ADE_OK);
  for (int m = 0; m < ADE_HESS_NMETHODS; m++) {
    ck_assert_int_eq(ade_hessian(t2, m, NULL, &H, NULL), ADE_ESTATE);
    ck_assert_ptr_nonnull(strstr(ade_errmsg(), "incomplete"));
  }
  ade_tape_free(t1);
  ade_tape_free(t2);
  rp_free(&p);
}
END_TEST

/* A recorded branch that flips at the new point: a warning, H computed. */
START_TEST(branch_warning) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(1.0), b = ade_indep(2.0);
  if (ADE_LT(a, b)) ade_dep(ade_mul(ade_square(a), b));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  double x[2] = {3.0, 2.0}, D[4];
  ade_hess_options o = {x, NULL, NULL};
  ade_sparse *H = NULL;
  ck_assert_int_eq(ade_hessian(t, ADE_HESS_EDGE_PUSH, &o, &H, NULL), ADE_WBRANCH);
  ade_sparse_to_dense(H, D);
  ade_assert_rel(D[0], 2 * 2.0, 1e-15);
  ade_assert_rel(D[1], 2 * 3.0, 1e-15);
  ade_assert_rel(D[3], 0.0, 0);
  ck_assert_uint_eq(H->nnz, 2); /* d2/db2 is structurally zero */
  ade_sparse_free(H);
  ade_tape_free(t);
}
END_TEST

/* Out of memory at every allocation, for every method: ENOMEM, no leaks. */
START_TEST(out_of_memory) {
  randprog p = rp_make(5, 3, 2, 40);
  double x[3] = {0.4, 1.3, -0.6}, w[2] = {1.5, -0.5}, x2[3] = {0.2, 0.1, 0.9}, g[3];
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 16;
  ade_tape *t = rp_record(&p, x, &o);
  for (int m = 0; m < 2 * ADE_HESS_NMETHODS; m++) { /* then again at memory limit 0 (point.c) */
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_tape *tt = NULL;
      const void *bytes;
      size_t size;
      ck_assert_int_eq(ade_tape_bytes(t, &bytes, &size), ADE_OK);
      ade_test_alloc a = {k, 0, 0};
      ade_set_allocator(ade_test_alloc_fn, &a);
      int st = ade_tape_from_bytes(&tt, bytes, size);
      if (!st) {
        ade_hess_options ho = {k % 2 ? x2 : NULL, w, g};
        ade_sparse *H = NULL;
        if (m >= ADE_HESS_NMETHODS) ade_tape_set_memory_limit(tt, 0);
        st = ade_hessian(tt, m % ADE_HESS_NMETHODS, &ho, &H, NULL);
        ck_assert(st != ADE_OK || H != NULL);
        ck_assert(st == ADE_OK || H == NULL);
        ade_sparse_free(H);
      }
      ade_tape_free(tt);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "method %d k=%ld: %d %s", m, k, st, ade_errmsg());
      ck_assert_msg(a.live == 0, "method %d k=%ld: %ld blocks leaked", m, k, a.live);
      ok = st == ADE_OK && k % 2 == 1;
    }
    ck_assert(ok);
  }
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hessian");
  TCase *tc = tcase_create("oracles");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, random_tapes, 0, 2000);
  tcase_add_loop_test(tc, random_tapes_fd, 0, 200);
  tcase_add_loop_test(tc, every_operation, 0, ADE_OP_COUNT);
  tcase_add_test(tc, weights);
  tcase_add_test(tc, branch_warning);
  suite_add_tcase(s, tc);
  tc = tcase_create("elimination");
  tcase_add_test(tc, figure6_counterexample);
  tcase_add_loop_test(tc, markowitz_heap, 0, 300);
  tcase_add_test(tc, statement_tree);
  tcase_add_test(tc, statement_caps);
  tcase_add_test(tc, statement_chunks);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
