/* check_plancache.c: structure hashes, plan caches (Jacobian and Hessian plans), Jacobian loops (branch flips included) and the automatic method. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "randprog.h"
#include "record_internal.h"

/* The PDE example's stepper (examples/pde_sim.h), recorded. */
struct pde {
  int n, steps;
  double dx, dt, lam, eps;
};
#define real ade_double
#define REAL_C(c) ade_passive(c)
#define PDE(name) name##_a
#define PART(name, code) code /* newer pde_sim.h: regions, not needed here */
#include "../examples/pde_sim.h"

static ade_tape *record_pde(const struct pde *p, const double *u0) {
  ade_tape *t = NULL;
  ade_double *u = malloc(sizeof *u * (size_t)(p->n + 2)), *w = malloc(sizeof *w * (size_t)(p->n + 2));
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  for (int i = 0; i < p->n; i++) u[i + 1] = ade_indep(u0[i]);
  ade_dep(run_a(p, u, w));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(u);
  free(w);
  return t;
}

/* A program with branches: output 1 uses x1 or x2 depending on x0 < 1,
 * output 0 squares or takes the sine of each x_i depending on x_i < c. */
#define BN 4
static double branchy(const double *x, ade_tape **tp) {
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double v[BN], s = ade_passive(0.0);
  for (int i = 0; i < BN; i++) v[i] = ade_indep(x[i]);
  for (int i = 1; i < BN; i++) s = ADE_ADD(s, ADE_LT(v[i], 0.8) ? ADE_SQUARE(v[i]) : ADE_SIN(ADE_MUL(v[i], v[0])));
  ade_dep(s);
  double y1 = ade_dep(ADE_MUL(v[0], ADE_LT(v[0], 1.0) ? v[1] : v[2]));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  *tp = t;
  return y1;
}

/* The same without assertions, for out-of-memory runs: its status. */
static int oom_recorder(void *ud, const double *x, ade_tape **tp) {
  ade_tape *t = NULL;
  (void)ud;
  int st = ade_tape_create(&t, NULL);
  if (!st && !(st = ade_trace_on(t))) {
    ade_double v[BN], s = ade_passive(0.0);
    for (int i = 0; i < BN; i++) v[i] = ade_indep(x[i]);
    for (int i = 1; i < BN; i++) s = ADE_ADD(s, ADE_LT(v[i], 0.8) ? ADE_SQUARE(v[i]) : ADE_SIN(ADE_MUL(v[i], v[0])));
    ade_dep(s);
    ade_dep(ADE_MUL(v[0], ADE_LT(v[0], 1.0) ? v[1] : v[2]));
    st = ade_trace_off();
  }
  if (st < 0) ade_tape_free(t), t = NULL;
  *tp = t;
  return st;
}

static int branchy_recorder(void *ud, const double *x, ade_tape **t) {
  int *calls = ud;
  ++*calls;
  branchy(x, t);
  return ADE_OK;
}

static uint64_t hash_of(ade_tape *t) {
  uint64_t h = 0;
  ck_assert_msg(ade_tape_structure_hash(t, &h) == ADE_OK, "%s", ade_errmsg());
  return h;
}

/* A copy of t through its bytes: its hash is computed from the chunks. */
static ade_tape *through_bytes(const ade_tape *t) {
  const void *b;
  size_t n;
  ade_tape *c = NULL;
  ck_assert_int_eq(ade_tape_bytes(t, &b, &n), ADE_OK);
  ck_assert_int_eq(ade_tape_from_bytes(&c, b, n), ADE_OK);
  return c;
}

/* A (sparse, m x n) = D (dense, m x n) within tol, and zero off the pattern. */
static void same_as_dense(const ade_sparse *A, const double *D, double tol) {
  double *E = calloc(A->m * A->n + 1, sizeof *E);
  ck_assert_int_eq(ade_sparse_to_dense(A, E), ADE_OK);
  for (size_t k = 0; k < A->m * A->n; k++) ade_assert_rel(E[k], D[k], tol);
  free(E);
}

static void same_bits(const ade_sparse *A, const ade_sparse *B) {
  ck_assert_uint_eq(A->nnz, B->nnz);
  ck_assert_int_eq(memcmp(A->rowptr, B->rowptr, (A->m + 1) * sizeof *A->rowptr), 0);
  ck_assert_int_eq(memcmp(A->col, B->col, A->nnz * sizeof *A->col), 0);
  ck_assert_int_eq(memcmp(A->val, B->val, A->nnz * sizeof *A->val), 0);
}

static void random_point(uint64_t *s, double *x, int n) {
  for (int i = 0; i < n; i++) x[i] = ade_test_uniform(s, -1.2, 1.3);
}

/* ----------------------------------------------------------- the hash */

/* The same path at different points hashes alike, the recorder's hash is
 * the chunks' (chunk sizes varied so programs span several chunks), and
 * another program or size hashes differently. */
START_TEST(hash_same_path) {
  uint64_t s = 0x5eed + (uint64_t)_i;
  int n = 2 + _i % 5, m = 1 + _i % 3;
  randprog p = rp_make(1000 + (uint64_t)_i, n, m, 20 + 7 * _i), q = rp_make(2000 + (uint64_t)_i, n, m, 20 + 7 * _i);
  randprog r = rp_make(1000 + (uint64_t)_i, n + 1, m, 20 + 7 * _i);
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 8 + (uint32_t)_i;
  double x1[8], x2[8];
  random_point(&s, x1, n + 1);
  random_point(&s, x2, n + 1);
  ade_tape *a = rp_record(&p, x1, &o), *b = rp_record(&p, x2, &o), *c = through_bytes(a);
  ade_tape *d = rp_record(&q, x1, &o), *e = rp_record(&r, x1, &o);
  uint64_t ha = hash_of(a);
  ck_assert_uint_eq(ha, hash_of(b));
  ck_assert_uint_eq(hash_of(c), ha);
  ck_assert_uint_eq(hash_of(c), ha); /* kept */
  ck_assert_uint_ne(hash_of(d), ha);
  ck_assert_uint_ne(hash_of(e), ha);
  o.chunk_ops += 3; /* other chunk boundaries: another structure for a plan */
  ade_tape *f = rp_record(&p, x1, &o);
  ck_assert_uint_ne(hash_of(f), ha);
  ade_tape_free(a), ade_tape_free(b), ade_tape_free(c), ade_tape_free(d), ade_tape_free(e), ade_tape_free(f);
  rp_free(&p), rp_free(&q), rp_free(&r);
}
END_TEST

/* Branches: the same outcomes hash alike, any flipped one differently. */
START_TEST(hash_branches) {
  double x1[BN] = {0.5, 0.3, 0.2, 0.1}, x2[BN] = {0.7, 0.4, 0.6, 0.2}, x3[BN] = {0.5, 0.3, 0.9, 0.1},
         x4[BN] = {1.5, 0.3, 0.2, 0.1};
  ade_tape *a, *b, *c, *d;
  branchy(x1, &a), branchy(x2, &b), branchy(x3, &c), branchy(x4, &d);
  ck_assert_uint_eq(hash_of(a), hash_of(b));
  ck_assert_uint_ne(hash_of(a), hash_of(c));
  ck_assert_uint_ne(hash_of(a), hash_of(d));
  ck_assert_uint_ne(hash_of(c), hash_of(d));
  ade_tape_free(a), ade_tape_free(b), ade_tape_free(c), ade_tape_free(d);
}
END_TEST

START_TEST(hash_errors) {
  ade_tape *t;
  uint64_t h;
  ck_assert_int_eq(ade_tape_structure_hash(NULL, &h), ADE_EINVAL);
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_tape_structure_hash(t, &h), ADE_ESTATE);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_dep(ade_sin(ade_indep(0.3)));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_tape_structure_hash(t, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_tape_structure_hash(t, &h), ADE_OK);
  ade_tape_free(t);
}
END_TEST

/* ------------------------------------------------------ the auto method */

/* fma of a method by ade_jacobian (UINT64_MAX on failure), and J. */
static uint64_t fma_of(ade_tape *t, int method, ade_sparse **J, ade_jacobian_report *r) {
  ade_jacobian_report rr;
  int st = ade_jacobian(t, method, NULL, J, &rr);
  ck_assert_msg(st == ADE_OK, "%s: %s", ade_elim_method_name(method), ade_errmsg());
  if (r) *r = rr;
  return rr.fma;
}

/* Auto's fma is the least of its candidates', no more than the vector
 * modes', and its Jacobian is dense forward mode's, at the recorded point
 * and (as a plan) at a new one. Returns auto's choice. */
static int check_auto(ade_tape *t, const double *x2, int n, int m) {
  ade_sparse *J = NULL, *K = NULL;
  ade_jacobian_report ra;
  uint64_t fa = fma_of(t, ADE_ELIM_AUTO, &J, &ra);
  ck_assert_uint_le(fa, ra.forward_cost);
  ck_assert_uint_le(fa, ra.reverse_cost);
  ck_assert_int_ne(ra.method, ADE_ELIM_AUTO);
  static const int cand[] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_REVERSE,  ADE_ORDER_VERTEX_MARKOWITZ,
                             ADE_ORDER_VERTEX_RELATIVE, ADE_ORDER_VERTEX_CHAINS, ADE_ELIM_CPR_FORWARD,
                             ADE_ELIM_CPR_REVERSE};
  uint64_t least = UINT64_MAX;
  for (size_t k = 0; k < sizeof cand / sizeof *cand; k++) {
    uint64_t f = fma_of(t, cand[k], &K, NULL);
    ck_assert_msg(fa <= f, "auto (%s) %llu > %s %llu", ade_elim_method_name(ra.method), (unsigned long long)fa,
                  ade_elim_method_name(cand[k]), (unsigned long long)f);
    if (cand[k] == ra.method) ck_assert_uint_eq(fa, f); /* the predicted sweeps are exact */
    least = f < least ? f : least;
    ade_sparse_free(K);
  }
  ck_assert_uint_eq(fa, least);
  double *D = malloc(sizeof *D * (size_t)(n * m));
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, NULL, D), ADE_OK);
  same_as_dense(J, D, 1e-10);
  ade_sparse_free(J);
  ade_elim_plan *p = NULL;
  ck_assert_int_eq(ade_elim_plan_create(&p, t, ADE_ELIM_AUTO, NULL, NULL), ADE_OK);
  ck_assert_uint_eq(ade_elim_plan_fma(p), fa);
  ck_assert_int_eq(ade_elim_plan_method(p), ra.method);
  ck_assert_int_eq(ade_elim_plan_pattern(p, &J), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(p, t, x2, J), ADE_OK);
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, x2, D), ADE_OK);
  same_as_dense(J, D, 1e-10);
  ade_sparse_free(J);
  ade_elim_plan_free(p);
  free(D);
  return ra.method;
}

START_TEST(auto_random) {
  uint64_t s = 77 + (uint64_t)_i;
  int n = 1 + (int)(ade_test_rand(&s) % 9), m = 1 + (int)(ade_test_rand(&s) % 9);
  randprog p = rp_make(500 + (uint64_t)_i, n, m, 5 + (int)(ade_test_rand(&s) % 60));
  double x[10], x2[10];
  random_point(&s, x, n);
  for (int i = 0; i < n; i++) x2[i] = x[i] + 0.01 * (i + 1); /* the program has no branches */
  ade_tape *t = rp_record(&p, x, NULL);
  check_auto(t, x2, n, m);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* A sparse Jacobian (a stencil): auto may pick CPR; still no worse. */
START_TEST(auto_stencil) {
  int n = 12 + _i;
  double x[20], x2[20];
  for (int i = 0; i < n; i++) x[i] = 0.3 + 0.05 * i, x2[i] = x[i] + 0.02;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double v[20];
  for (int i = 0; i < n; i++) v[i] = ade_indep(x[i]);
  for (int i = 0; i < n; i++) {
    ade_double l = v[i > 0 ? i - 1 : 0], r = v[i + 1 < n ? i + 1 : n - 1];
    ade_dep(ADE_ADD(ADE_MUL(l, ADE_SIN(v[i])), ADE_EXP(ADE_MUL(r, v[i]))));
  }
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  check_auto(t, x2, n, n);
  ade_tape_free(t);
}
END_TEST

/* The PDE example (smaller): the CLI's old default, vertex Markowitz,
 * spends more than reverse vector mode on this gradient; auto does not. */
START_TEST(auto_pde) {
  struct pde p = {24, 20, 1.0 / 25, 0, 2.0, 0.1};
  double u0[24], u1[24], g[24], f;
  for (int i = 0; i < p.n; i++) u0[i] = 0.9 * sin(3.14159265358979 * (i + 1) * p.dx), u1[i] = 1.01 * u0[i];
  p.dt = 0.25 * p.dx * p.dx / 2;
  ade_tape *t = record_pde(&p, u0);
  ade_sparse *J = NULL;
  ade_jacobian_report ra, rm;
  uint64_t fa = fma_of(t, ADE_ELIM_AUTO, &J, &ra);
  ade_sparse_free(J);
  uint64_t fm = fma_of(t, ADE_ORDER_VERTEX_MARKOWITZ, &J, &rm);
  ade_sparse_free(J);
  ck_assert_uint_gt(fm, rm.reverse_cost); /* the problem the default had */
  ck_assert_uint_le(fa, ra.reverse_cost);
  /* the quotients of the source term are chains: cheaper than the sweep */
  ck_assert_int_eq(check_auto(t, u1, p.n, 1), ADE_ORDER_VERTEX_CHAINS);
  ck_assert_uint_lt(fa, fma_of(t, ADE_ORDER_VERTEX_REVERSE, &J, NULL));
  ade_sparse_free(J);
  ade_elim_plan *pl = NULL;
  ck_assert_int_eq(ade_elim_plan_create(&pl, t, ADE_ELIM_AUTO, NULL, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_pattern(pl, &J), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(pl, t, u1, J), ADE_OK);
  ck_assert_int_eq(ade_gradient(t, u1, &f, g), ADE_OK);
  ck_assert_uint_eq(J->nnz, (size_t)p.n);
  for (int i = 0; i < p.n; i++) ade_assert_rel(J->val[i], g[i], 1e-12);
  ade_sparse_free(J);
  ade_elim_plan_free(pl);
  ade_tape_free(t);
}
END_TEST

/* Under a memory limit the reachability bitsets do not fit (4096
 * independents: 512 bytes a vertex) while the graph does: auto falls back
 * to the bounds n|E|, m|E| for the sweeps and is still right and no worse. */
START_TEST(auto_memlimit) {
  enum { NB = 4096 };
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof *v * NB);
  for (int i = 0; i < NB; i++) v[i] = ade_indep(0.1 + 0.001 * i);
  for (int i = 0; i < NB; i++) ade_dep(ADE_MUL(ADE_SIN(v[i]), ADE_ADD(v[(i + 1) % NB], v[(i + 7) % NB])));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  ade_tape_set_memory_limit(t, (size_t)6 << 20); /* graph 4.1 MiB, bitsets 8.4 MiB */
  ade_sparse *J = NULL, *K = NULL;
  ade_jacobian_report r, rm;
  ck_assert_msg(ade_jacobian(t, ADE_ELIM_AUTO, NULL, &J, &r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_int_eq(ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &K, &rm), ADE_OK);
  ck_assert_uint_le(r.fma, rm.fma);
  ck_assert_uint_le(r.fma, r.forward_cost);
  ck_assert_uint_le(r.fma, r.reverse_cost);
  ck_assert_uint_eq(J->nnz, K->nnz);
  ck_assert_uint_eq(J->nnz, 3 * NB);
  for (size_t k = 0; k < J->nnz; k++) ade_assert_rel(J->val[k], K->val[k], 1e-15);
  ade_sparse_free(J), ade_sparse_free(K);
  ade_tape_free(t);
}
END_TEST

START_TEST(method_names) {
  ck_assert_int_eq(ade_elim_method_parse("auto"), ADE_ELIM_AUTO);
  ck_assert_int_eq(ade_elim_method_parse("cpr-forward"), ADE_ELIM_CPR_FORWARD);
  ck_assert_int_eq(ade_elim_method_parse("cpr-reverse"), ADE_ELIM_CPR_REVERSE);
  ck_assert_int_eq(ade_elim_method_parse("vertex-reverse"), ADE_ORDER_VERTEX_REVERSE);
  ck_assert_int_eq(ade_elim_method_parse("nonsense"), -1);
  ck_assert_int_eq(ade_elim_method_parse(NULL), -1);
  ck_assert_str_eq(ade_elim_method_name(ADE_ELIM_AUTO), "auto");
  ck_assert_ptr_null(ade_elim_method_name(99));
  ade_tape *t;
  double x = 0.4;
  ade_sparse *J = NULL;
  ade_elim_plan *p = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_dep(ade_sin(ade_indep(x)));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_jacobian(t, 99, NULL, &J, NULL), ADE_EINVAL);
  ck_assert_ptr_null(J);
  ck_assert_int_eq(ade_elim_plan_create(&p, t, -5, NULL, NULL), ADE_EINVAL);
  ade_tape_free(t);
}
END_TEST

/* ---------------------------------------------------------- the cache */

/* The same path recorded again finds its plan: the Jacobian is bit for bit
 * a fresh plan's, and ade_jacobian through the cache gives it too. */
START_TEST(cache_hit) {
  uint64_t s = 4242 + (uint64_t)_i;
  int n = 2 + _i % 6, m = 1 + _i % 4;
  randprog p = rp_make(300 + (uint64_t)_i, n, m, 30 + 5 * _i);
  ade_plan_cache *c = NULL;
  ck_assert_int_eq(ade_plan_cache_create(&c, 4), ADE_OK);
  double x1[8], x2[8];
  random_point(&s, x1, n);
  random_point(&s, x2, n);
  ade_tape *a = rp_record(&p, x1, NULL), *b = rp_record(&p, x2, NULL);
  int method = _i % 3 == 0 ? ADE_ELIM_AUTO : _i % 3 == 1 ? ADE_ORDER_VERTEX_MARKOWITZ : ADE_ELIM_CPR_FORWARD;
  ade_elim_plan *pa = NULL, *pb = NULL, *fresh = NULL;
  int hit = -1;
  ade_jacobian_report r;
  ck_assert_int_eq(ade_plan_cache_get(c, a, method, &pa, &hit, &r), ADE_OK);
  ck_assert_int_eq(hit, 0);
  ck_assert_int_eq(r.cached, 0);
  ck_assert_int_eq(ade_plan_cache_get(c, b, method, &pb, &hit, &r), ADE_OK);
  ck_assert_int_eq(hit, 1);
  ck_assert_int_eq(r.cached, 1);
  ck_assert_ptr_eq(pa, pb);
  ck_assert_int_eq(ade_elim_plan_create(&fresh, b, method, NULL, NULL), ADE_OK);
  ade_sparse *J1 = NULL, *J2 = NULL, *J3 = NULL;
  ck_assert_int_eq(ade_elim_plan_pattern(pb, &J1), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_pattern(fresh, &J2), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(pb, b, NULL, J1), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(fresh, b, NULL, J2), ADE_OK);
  same_bits(J1, J2);
  ade_jacobian_options o = {NULL, 0, c, 0, NULL, NULL, NULL, NULL, 0, 0};
  ck_assert_int_eq(ade_jacobian(b, method, &o, &J3, &r), ADE_OK);
  ck_assert_int_eq(r.cached, 1);
  ck_assert_uint_eq(r.fma, ade_elim_plan_fma(fresh));
  same_bits(J1, J3);
  ade_plan_cache_stats cs;
  ade_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.misses, 1);
  ck_assert_uint_eq(cs.hits, 2);
  ck_assert_uint_eq(cs.entries, 1);
  ck_assert_uint_eq(cs.collisions, 0);
  /* another method is another entry */
  ade_sparse_free(J3);
  ck_assert_int_eq(ade_jacobian(b, ADE_ORDER_VERTEX_REVERSE, &o, &J3, &r), ADE_OK);
  ck_assert_int_eq(r.cached, 0);
  ade_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.entries, 2);
  ade_plan_cache_free(c); /* the plans held outside it live on */
  ck_assert_int_eq(ade_elim_plan_jacobian(pa, a, x2, J1), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(fresh, b, x2, J2), ADE_OK);
  same_bits(J1, J2);
  ade_elim_plan_free(pa), ade_elim_plan_free(pb), ade_elim_plan_free(fresh);
  ade_sparse_free(J1), ade_sparse_free(J2), ade_sparse_free(J3);
  ade_tape_free(a), ade_tape_free(b);
  rp_free(&p);
}
END_TEST

/* More structures than room: the least recently used goes, results stay right. */
START_TEST(cache_evicts) {
  ade_plan_cache *c = NULL;
  ck_assert_int_eq(ade_plan_cache_create(&c, 2), ADE_OK);
  double xs[3][BN] = {{0.5, 0.3, 0.2, 0.1}, {0.5, 0.3, 0.9, 0.1}, {1.5, 0.3, 0.2, 0.9}};
  ade_tape *t[3];
  for (int k = 0; k < 3; k++) branchy(xs[k], &t[k]);
  for (int round = 0; round < 2; round++)
    for (int k = 0; k < 3; k++) {
      ade_jacobian_options o = {NULL, 0, c, 0, NULL, NULL, NULL, NULL, 0, 0};
      ade_sparse *J = NULL;
      double D[2 * BN];
      ck_assert_int_eq(ade_jacobian(t[k], ADE_ELIM_AUTO, &o, &J, NULL), ADE_OK);
      ck_assert_int_eq(ade_jacobian_dense(t[k], ADE_FORWARD, NULL, D), ADE_OK);
      same_as_dense(J, D, 1e-14);
      ade_sparse_free(J);
    }
  ade_plan_cache_stats cs;
  ade_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.entries, 2);
  ck_assert_uint_eq(cs.misses, 6);
  ck_assert_uint_eq(cs.evictions, 4);
  for (int k = 0; k < 3; k++) ade_tape_free(t[k]);
  ade_plan_cache_free(c);
}
END_TEST

/* Forged collisions: a tape whose first hash is set to another
 * structure's is told apart by the second hash; with both forged, by the
 * opcode counts. Either way: a miss, a collision counted, the right J. */
START_TEST(cache_collision) {
  double x1[BN] = {0.5, 0.3, 0.2, 0.1}, x3[BN] = {0.5, 0.3, 0.9, 0.1};
  ade_tape *a, *b;
  branchy(x1, &a), branchy(x3, &b);
  uint64_t ha = hash_of(a), hb = hash_of(b);
  ck_assert_uint_ne(ha, hb);
  atomic_store(&b->shash[0], ha);
  if (_i) atomic_store(&b->shash[1], atomic_load(&a->shash[1]));
  ck_assert_uint_eq(hash_of(b), ha);
  ade_plan_cache *c = NULL;
  ade_elim_plan *pa = NULL, *pb = NULL;
  int hit = -1;
  ck_assert_int_eq(ade_plan_cache_create(&c, 4), ADE_OK);
  ck_assert_int_eq(ade_plan_cache_get(c, a, ADE_ELIM_AUTO, &pa, &hit, NULL), ADE_OK);
  ck_assert_int_eq(ade_plan_cache_get(c, b, ADE_ELIM_AUTO, &pb, &hit, NULL), ADE_OK);
  ck_assert_int_eq(hit, 0);
  ck_assert_ptr_ne(pa, pb);
  ade_plan_cache_stats cs;
  ade_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.collisions, 1);
  ck_assert_uint_eq(cs.misses, 2);
  ade_sparse *J = NULL;
  double D[2 * BN];
  ck_assert_int_eq(ade_elim_plan_pattern(pb, &J), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(pb, b, NULL, J), ADE_OK);
  ck_assert_int_eq(ade_jacobian_dense(b, ADE_FORWARD, NULL, D), ADE_OK);
  same_as_dense(J, D, 1e-14);
  ade_sparse_free(J);
  ade_elim_plan_free(pa), ade_elim_plan_free(pb);
  ade_plan_cache_free(c);
  ade_tape_free(a), ade_tape_free(b);
}
END_TEST

START_TEST(cache_errors) {
  ade_plan_cache *c = NULL;
  ade_elim_plan *p = NULL;
  ck_assert_int_eq(ade_plan_cache_create(NULL, 1), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_cache_create(&c, (size_t)1 << 30), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_cache_create(&c, 0), ADE_OK);
  ade_plan_cache_stats cs;
  ade_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.capacity, 16);
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_plan_cache_get(c, t, ADE_ELIM_AUTO, &p, NULL, NULL), ADE_ESTATE);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_dep(ade_sin(ade_indep(0.3)));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_plan_cache_get(NULL, t, ADE_ELIM_AUTO, &p, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_cache_get(c, t, ADE_ELIM_AUTO, NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_cache_get(c, t, 1234, &p, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_cache_get(c, NULL, ADE_ELIM_AUTO, &p, NULL, NULL), ADE_EINVAL);
  ade_jacobian_loop *L = NULL;
  ck_assert_int_eq(ade_jacobian_loop_create(NULL, t, ADE_ELIM_AUTO, c), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_loop_create(&L, NULL, ADE_ELIM_AUTO, c), ADE_EINVAL);
  ck_assert_ptr_null(L);
  ck_assert_int_eq(ade_jacobian_loop_eval(NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_loop_create(&L, t, ADE_ELIM_AUTO, c), ADE_OK);
  double x2[BN] = {0.5, 0.3, 0.2, 0.1};
  ade_tape *b;
  branchy(x2, &b);
  ck_assert_int_eq(ade_jacobian_loop_retape(L, b), ADE_EINVAL); /* another n, m */
  ck_assert_ptr_eq(ade_jacobian_loop_tape(L), t);
  ck_assert_int_eq(ade_jacobian_loop_retape(L, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_loop_triplets(L, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_loop_eval(L, NULL, NULL), ADE_OK);
  ade_jacobian_loop_free(L);
  ade_jacobian_loop_free(NULL);
  ade_plan_cache_free(NULL);
  ade_tape_free(b);
  ade_tape_free(t);
  ade_plan_cache_free(c);
}
END_TEST

/* ----------------------------------------------------------- the loop */

/* Dense forward mode on the tape the loop now holds, at x. */
static void check_loop_values(ade_jacobian_loop *L, const double *x) {
  const ade_sparse *J = ade_jacobian_loop_matrix(L);
  double D[2 * BN], E[2 * BN];
  ck_assert_int_eq(ade_jacobian_dense(ade_jacobian_loop_tape(L), ADE_FORWARD, x, D), ADE_OK);
  ck_assert_int_eq(ade_sparse_to_dense(J, E), ADE_OK);
  for (int k = 0; k < 2 * BN; k++) ade_assert_rel(E[k], D[k], 1e-14);
}

/* Newton-like iterates cross the branches: the recorder records again, the
 * structure (hash) changes, the plans are built once per structure, the
 * pattern only grows (ADE_WPATTERN when it does) and J is right. */
START_TEST(loop_branch_flip) {
  double x[BN] = {0.5, 0.3, 0.2, 0.1};
  ade_tape *t0;
  branchy(x, &t0);
  uint64_t h0 = hash_of(t0);
  ade_jacobian_loop *L = NULL;
  ck_assert_int_eq(ade_jacobian_loop_create(&L, t0, _i ? ADE_ORDER_VERTEX_MARKOWITZ : ADE_ELIM_AUTO, NULL), ADE_OK);
  const ade_sparse *J = NULL;
  ck_assert_int_eq(ade_jacobian_loop_eval(L, NULL, &J), ADE_OK);
  ck_assert_ptr_eq(J, ade_jacobian_loop_matrix(L));
  ck_assert_uint_eq(J->nnz, 3 + 2); /* row 0: x1..x3 (x0 not used below 0.8); row 1: x0, x1 */
  check_loop_values(L, NULL);
  /* the same path at a new point: no record, same plan */
  double x1[BN] = {0.6, 0.25, 0.35, 0.15};
  ck_assert_int_eq(ade_jacobian_loop_eval(L, x1, &J), ADE_OK);
  check_loop_values(L, x1);
  /* without a recorder a flip is reported, J that of the recorded path */
  double x2[BN] = {1.5, 0.25, 0.35, 0.15};
  ck_assert_int_eq(ade_jacobian_loop_eval(L, x2, &J), ADE_WBRANCH);
  int calls = 0;
  ade_jacobian_loop_set_recorder(L, branchy_recorder, &calls);
  ck_assert_int_eq(ade_jacobian_loop_eval(L, x2, &J), ADE_WPATTERN); /* row 1 now has x2 */
  ck_assert_int_eq(calls, 1);
  ck_assert_uint_ne(hash_of(ade_jacobian_loop_tape(L)), h0);
  ck_assert_uint_eq(J->nnz, 3 + 3);
  check_loop_values(L, x2);
  size_t row[8], col[8];
  ck_assert_int_eq(ade_jacobian_loop_triplets(L, row, col), ADE_OK);
  for (size_t k = 0; k < J->nnz; k++) {
    ck_assert_uint_eq(col[k], J->col[k]);
    ck_assert(k >= J->rowptr[row[k]] && k < J->rowptr[row[k] + 1]);
  }
  /* back to the first path: its plan is found, the pattern holds it */
  ck_assert_int_eq(ade_jacobian_loop_eval(L, x1, &J), ADE_OK);
  ck_assert_int_eq(calls, 2);
  ck_assert_uint_eq(hash_of(ade_jacobian_loop_tape(L)), h0);
  check_loop_values(L, x1);
  ade_jacobian_loop_stats ls;
  ade_jacobian_loop_report(L, &ls);
  ck_assert_uint_eq(ls.retapes, 2);
  ck_assert_uint_eq(ls.plans_built, 2);
  ck_assert_uint_eq(ls.pattern_growths, 1);
  ck_assert_uint_eq(ls.evals, 5);
  /* x_2 above 0.8: output 0 now depends on x0 too; the caller retapes */
  double x3[BN] = {0.6, 0.25, 0.95, 0.15};
  ade_tape *t3;
  branchy(x3, &t3);
  ck_assert_int_eq(ade_jacobian_loop_retape(L, t3), ADE_WPATTERN);
  ck_assert_int_eq(ade_jacobian_loop_eval(L, x3, &J), ADE_OK);
  check_loop_values(L, x3);
  ck_assert_uint_eq(J->nnz, 4 + 3);
  ade_jacobian_loop_free(L);
  ade_tape_free(t3);
  ade_tape_free(t0);
}
END_TEST

/* ------------------------------------------------------------- threads */

#define NTH 4
#define NREP 6
typedef struct job {
  ade_plan_cache *c;
  const randprog *p;
  int n, m, id, bad;
  double J[64];
} job;

/* Each thread records the program at its own points and evaluates the
 * Jacobian through the shared cache. */
static void *worker(void *arg) {
  job *j = arg;
  uint64_t s = 99 + (uint64_t)j->id;
  for (int r = 0; r < NREP && !j->bad; r++) {
    double x[8], y[8];
    random_point(&s, x, j->n);
    ade_tape *t = NULL;
    if (ade_tape_create(&t, NULL) || ade_trace_on(t)) j->bad = __LINE__;
    rp_eval(j->p, x, y, 1);
    if (ade_trace_off()) j->bad = __LINE__;
    ade_jacobian_options o = {NULL, 0, j->c, 0, NULL, NULL, NULL, NULL, 0, 0};
    ade_sparse *J = NULL;
    double D[64];
    if (!j->bad && ade_jacobian(t, ADE_ELIM_AUTO, &o, &J, NULL)) j->bad = __LINE__;
    if (!j->bad && (ade_jacobian_dense(t, ADE_FORWARD, NULL, D) || ade_sparse_to_dense(J, j->J))) j->bad = __LINE__;
    for (int k = 0; !j->bad && k < j->n * j->m; k++)
      if (fabs(D[k] - j->J[k]) > 1e-13 * fmax(1, fabs(D[k]))) j->bad = __LINE__;
    ade_sparse_free(J);
    ade_tape_free(t);
  }
  return NULL;
}

START_TEST(cache_threads) {
  randprog p = rp_make(77, 5, 3, 60);
  ade_plan_cache *c = NULL;
  ck_assert_int_eq(ade_plan_cache_create(&c, 4), ADE_OK);
  pthread_t th[NTH];
  job jobs[NTH];
  for (int k = 0; k < NTH; k++) {
    jobs[k] = (job){c, &p, 5, 3, k, 0, {0}};
    ck_assert_int_eq(pthread_create(&th[k], NULL, worker, &jobs[k]), 0);
  }
  for (int k = 0; k < NTH; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < NTH; k++) ck_assert_msg(!jobs[k].bad, "thread %d failed at line %d: %s", k, jobs[k].bad, ade_errmsg());
  ade_plan_cache_stats cs;
  ade_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.hits + cs.misses, NTH * NREP);
  ck_assert_uint_ge(cs.misses, 1);
  ck_assert_uint_le(cs.misses, NTH); /* at most one build per thread racing the first */
  ck_assert_uint_eq(cs.entries, 1);
  ade_plan_cache_free(c);
  rp_free(&p);
}
END_TEST

/* One plan, one tape, several threads at their own points at once: each
 * gets bit for bit what one thread gets (the plan is read only). */
typedef struct prun {
  ade_elim_plan *p;
  ade_tape *t;
  double x[NREP][8];
  ade_sparse *J[NREP];
  int bad;
} prun;

static void *plan_worker(void *arg) {
  prun *r = arg;
  for (int k = 0; k < NREP && !r->bad; k++) {
    if (ade_elim_plan_pattern(r->p, &r->J[k])) r->bad = __LINE__;
    else if (ade_elim_plan_jacobian(r->p, r->t, r->x[k], r->J[k]) < 0) r->bad = __LINE__;
  }
  return NULL;
}

START_TEST(plan_threads) {
  randprog p = rp_make(91 + (uint64_t)_i, 6, 4, 80);
  uint64_t s = 5;
  double x0[8];
  random_point(&s, x0, 6);
  ade_tape *t = rp_record(&p, x0, NULL);
  ade_elim_plan *pl = NULL;
  ck_assert_int_eq(ade_elim_plan_create(&pl, t, _i ? ADE_ELIM_CPR_REVERSE : ADE_ELIM_AUTO, NULL, NULL), ADE_OK);
  static prun runs[NTH];
  pthread_t th[NTH];
  for (int k = 0; k < NTH; k++) {
    runs[k].p = pl, runs[k].t = t, runs[k].bad = 0;
    for (int r = 0; r < NREP; r++) random_point(&s, runs[k].x[r], 6);
    ck_assert_int_eq(pthread_create(&th[k], NULL, plan_worker, &runs[k]), 0);
  }
  for (int k = 0; k < NTH; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < NTH; k++) {
    ck_assert_msg(!runs[k].bad, "thread %d failed at line %d", k, runs[k].bad);
    for (int r = 0; r < NREP; r++) {
      ade_sparse *J = NULL;
      ck_assert_int_eq(ade_elim_plan_pattern(pl, &J), ADE_OK);
      ck_assert_int_eq(ade_elim_plan_jacobian(pl, t, runs[k].x[r], J), ADE_OK);
      same_bits(J, runs[k].J[r]);
      ade_sparse_free(J);
      ade_sparse_free(runs[k].J[r]);
    }
  }
  ade_elim_plan_free(pl);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* --------------------------------------------------------------- memory */

/* Every allocation of a cache and loop run fails in turn: ADE_ENOMEM and
 * nothing leaked, then the run succeeds. */
START_TEST(out_of_memory) {
  double x[BN] = {0.5, 0.3, 0.2, 0.1}, x2[BN] = {1.5, 0.25, 0.35, 0.15};
  ade_test_alloc a = {-1, 0, 0};
  for (long k = 0;; k++) {
    a.fail_at = k, a.count = 0, a.live = 0;
    ade_set_allocator(ade_test_alloc_fn, &a);
    ade_tape *t = NULL;
    ade_plan_cache *c = NULL;
    ade_jacobian_loop *L = NULL;
    int st = oom_recorder(NULL, x, &t);
    if (!st) st = ade_plan_cache_create(&c, 2);
    if (!st) st = ade_jacobian_loop_create(&L, t, ADE_ELIM_AUTO, c);
    if (!st) ade_jacobian_loop_set_recorder(L, oom_recorder, NULL);
    if (!st) st = ade_jacobian_loop_eval(L, x2, NULL);
    ade_jacobian_loop_free(L);
    ade_plan_cache_free(c);
    ade_tape_free(t);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    if (st >= 0) break;
    ck_assert_msg(st == ADE_ENOMEM, "k=%ld: %s: %s", k, ade_errname(st), ade_errmsg());
  }
}
END_TEST

/* ------------------------------------------------- Hessian plan caches */

/* H of plan P at x (NULL: recorded point) with weights w, into a new matrix. */
static ade_sparse *hess_at(ade_hess_plan *P, ade_tape *t, const double *x, const double *w) {
  ade_sparse *H = NULL;
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = x, o.w = w;
  ck_assert_int_eq(ade_hess_plan_pattern(P, &H), ADE_OK);
  int st = ade_hess_plan_hessian(P, t, &o, H, NULL);
  ck_assert_msg(st == ADE_OK, "%s: %s", ade_errname(st), ade_errmsg());
  return H;
}

/* The same path recorded at two points: the second finds the first's plan,
 * whose H is bit for bit a fresh plan's at both points and agrees with
 * edge pushing; the plan outlives the cache. */
START_TEST(hess_cache_hit) {
  uint64_t s = 777 + (uint64_t)_i;
  int n = 2 + _i % 6, m = 1 + _i % 3;
  randprog p = rp_make(900 + (uint64_t)_i, n, m, 20 + 4 * _i);
  static const int meth[3] = {ADE_HESS_STAR, ADE_HESS_AUTO, ADE_HESS_EDGE_PUSH};
  int method = meth[_i % 3];
  double x1[8], x2[8], w[3] = {0.75, -1.25, 2.5};
  random_point(&s, x1, n);
  random_point(&s, x2, n);
  ade_tape *a = rp_record(&p, x1, NULL), *b = rp_record(&p, x2, NULL);
  ade_hess_plan_cache *c = NULL;
  ade_hess_plan *pa = NULL, *pb = NULL, *fresh = NULL;
  int hit = -1;
  ade_hess_report r1, r2;
  ck_assert_int_eq(ade_hess_plan_cache_create(&c, 4), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_cache_get(c, a, method, &pa, &hit, &r1), ADE_OK);
  ck_assert_int_eq(hit, 0);
  ck_assert_int_eq(ade_hess_plan_cache_get(c, b, method, &pb, &hit, &r2), ADE_OK);
  ck_assert_int_eq(hit, 1);
  ck_assert_ptr_eq(pa, pb);
  ck_assert_uint_eq(r1.nnz, r2.nnz);
  ck_assert_uint_eq(r1.colors, r2.colors);
  ck_assert_int_eq(ade_hess_plan_create(&fresh, b, method, NULL), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_method(pb), ade_hess_plan_method(fresh));
  ade_plan_cache_stats cs;
  ade_hess_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.misses, 1);
  ck_assert_uint_eq(cs.hits, 1);
  ck_assert_uint_eq(cs.entries, 1);
  /* another method is another entry */
  ade_hess_plan *pv = NULL;
  int other = method == ADE_HESS_EDGE_PUSH ? ADE_HESS_STAR : ADE_HESS_EDGE_PUSH;
  ck_assert_int_eq(ade_hess_plan_cache_get(c, b, other, &pv, &hit, NULL), ADE_OK);
  ck_assert_int_eq(hit, 0);
  ck_assert_ptr_ne(pv, pb);
  ade_hess_plan_free(pv);
  ade_hess_plan_cache_free(c); /* the plans held outside it live on */
  for (int k = 0; k < 2; k++) {
    const double *x = k ? x1 : NULL;
    ade_sparse *H1 = hess_at(pb, b, x, w), *H2 = hess_at(fresh, b, x, w), *E = NULL;
    same_bits(H1, H2);
    ade_hess_options o;
    ade_hess_options_init(&o);
    o.x = x, o.w = w;
    ck_assert_int_eq(ade_hessian(b, ADE_HESS_EDGE_PUSH, &o, &E, NULL), ADE_OK);
    double *D1 = calloc((size_t)(n * n), sizeof *D1), *D2 = calloc((size_t)(n * n), sizeof *D2);
    ck_assert_int_eq(ade_sparse_to_dense(H1, D1), ADE_OK);
    ck_assert_int_eq(ade_sparse_to_dense(E, D2), ADE_OK);
    for (int q = 0; q < n * n; q++) ade_assert_rel(D1[q], D2[q], 1e-12);
    free(D1), free(D2);
    ade_sparse_free(H1), ade_sparse_free(H2), ade_sparse_free(E);
  }
  ade_hess_plan_free(pa), ade_hess_plan_free(pb), ade_hess_plan_free(fresh);
  ade_tape_free(a), ade_tape_free(b);
  rp_free(&p);
}
END_TEST

/* A branch that flips: each path gets a plan of its own (a miss, then hits
 * on the same path), each H right for its tape; beyond the capacity the
 * least recently used goes. */
START_TEST(hess_cache_branch_flip) {
  double xs[3][BN] = {{0.5, 0.3, 0.2, 0.1}, {0.5, 0.3, 0.9, 0.1}, {1.5, 0.3, 0.2, 0.9}};
  double again[BN] = {0.55, 0.35, 0.25, 0.15}, w[2] = {1.5, -0.5};
  ade_tape *t[3], *t0b;
  for (int k = 0; k < 3; k++) branchy(xs[k], &t[k]);
  branchy(again, &t0b); /* the path of xs[0] */
  ade_hess_plan_cache *c = NULL;
  ck_assert_int_eq(ade_hess_plan_cache_create(&c, 2), ADE_OK);
  ade_hess_plan *P[3];
  int hit = -1;
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(ade_hess_plan_cache_get(c, t[k], ADE_HESS_AUTO, &P[k], &hit, NULL), ADE_OK);
    ck_assert_int_eq(hit, 0);
  }
  ck_assert_ptr_ne(P[0], P[1]);
  ck_assert_ptr_ne(P[1], P[2]);
  ade_hess_plan *Q = NULL;
  ck_assert_int_eq(ade_hess_plan_cache_get(c, t[2], ADE_HESS_AUTO, &Q, &hit, NULL), ADE_OK);
  ck_assert_int_eq(hit, 1);
  ck_assert_ptr_eq(Q, P[2]);
  ade_hess_plan_free(Q);
  /* xs[0]'s path was evicted (capacity 2): found again only after a rebuild */
  ck_assert_int_eq(ade_hess_plan_cache_get(c, t0b, ADE_HESS_AUTO, &Q, &hit, NULL), ADE_OK);
  ck_assert_int_eq(hit, 0);
  ade_plan_cache_stats cs;
  ade_hess_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.misses, 4);
  ck_assert_uint_eq(cs.hits, 1);
  ck_assert_uint_eq(cs.evictions, 2);
  ck_assert_uint_eq(cs.entries, 2);
  for (int k = 0; k < 3; k++) {
    ade_sparse *H = hess_at(P[k], t[k], NULL, w), *E = NULL;
    ade_hess_options o;
    ade_hess_options_init(&o);
    o.w = w;
    ck_assert_int_eq(ade_hessian(t[k], ADE_HESS_EDGE_PUSH, &o, &E, NULL), ADE_OK);
    double D1[BN * BN], D2[BN * BN];
    ck_assert_int_eq(ade_sparse_to_dense(H, D1), ADE_OK);
    ck_assert_int_eq(ade_sparse_to_dense(E, D2), ADE_OK);
    for (int q = 0; q < BN * BN; q++) ade_assert_rel(D1[q], D2[q], 1e-13);
    ade_sparse_free(H), ade_sparse_free(E);
    ade_hess_plan_free(P[k]);
  }
  /* the rebuilt plan of xs[0]'s path evaluates its other recording */
  ade_sparse *H = NULL;
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.w = w;
  ck_assert_int_eq(ade_hess_plan_pattern(Q, &H), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_hessian(Q, t0b, &o, H, NULL), ADE_OK);
  ade_sparse_free(H);
  ade_hess_plan_free(Q);
  ade_hess_plan_cache_free(c);
  for (int k = 0; k < 3; k++) ade_tape_free(t[k]);
  ade_tape_free(t0b);
}
END_TEST

START_TEST(hess_cache_errors) {
  ade_hess_plan_cache *c = NULL;
  ade_hess_plan *P = NULL;
  ade_tape *t;
  double x[BN] = {0.5, 0.3, 0.2, 0.1};
  branchy(x, &t);
  ck_assert_int_eq(ade_hess_plan_cache_create(NULL, 4), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_cache_create(&c, ((size_t)1 << 20) + 1), ADE_EINVAL);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(ade_hess_plan_cache_create(&c, 0), ADE_OK);
  ck_assert_int_eq(ade_hess_plan_cache_get(NULL, t, ADE_HESS_STAR, &P, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_cache_get(c, t, ADE_HESS_STAR, NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_hess_plan_cache_get(c, t, 99, &P, NULL, NULL), ADE_EINVAL);
  ck_assert_ptr_null(P);
  ade_plan_cache_stats cs;
  ade_hess_plan_cache_report(c, &cs);
  ck_assert_uint_eq(cs.capacity, 16);
  ck_assert_uint_eq(cs.entries, 0);
  ade_hess_plan_cache_report(NULL, &cs); /* nothing happens */
  ade_hess_plan_cache_free(c);
  ade_hess_plan_cache_free(NULL);
  ade_tape_free(t);
}
END_TEST

/* Out of memory at every allocation of creating a cache, a miss, a hit and
 * an evaluation: ENOMEM, nothing leaked. */
START_TEST(hess_cache_out_of_memory) {
  double x[BN] = {0.5, 0.3, 0.2, 0.1}, x2[BN] = {0.45, 0.25, 0.3, 0.2}, w[2] = {1.0, 0.5};
  ade_test_alloc a = {-1, 0, 0};
  for (long k = 0;; k++) {
    a.fail_at = k, a.count = 0, a.live = 0;
    ade_set_allocator(ade_test_alloc_fn, &a);
    ade_tape *t = NULL, *t2 = NULL;
    ade_hess_plan_cache *c = NULL;
    ade_hess_plan *P = NULL, *Q = NULL;
    ade_sparse *H = NULL;
    ade_hess_options o;
    ade_hess_options_init(&o);
    o.x = x2, o.w = w;
    int st = oom_recorder(NULL, x, &t);
    if (!st) st = oom_recorder(NULL, x2, &t2);
    if (!st) st = ade_hess_plan_cache_create(&c, 2);
    if (!st) st = ade_hess_plan_cache_get(c, t, ADE_HESS_AUTO, &P, NULL, NULL);
    if (!st) st = ade_hess_plan_cache_get(c, t2, ADE_HESS_AUTO, &Q, NULL, NULL);
    if (!st) st = ade_hess_plan_pattern(Q, &H);
    if (!st) st = ade_hess_plan_hessian(Q, t2, &o, H, NULL);
    ade_sparse_free(H);
    ade_hess_plan_free(P), ade_hess_plan_free(Q);
    ade_hess_plan_cache_free(c);
    ade_tape_free(t), ade_tape_free(t2);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    if (st >= 0) break;
    ck_assert_msg(st == ADE_ENOMEM, "k=%ld: %s: %s", k, ade_errname(st), ade_errmsg());
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plancache");
  TCase *h = tcase_create("hash");
  tcase_add_loop_test(h, hash_same_path, 0, 12);
  tcase_add_test(h, hash_branches);
  tcase_add_test(h, hash_errors);
  suite_add_tcase(s, h);
  TCase *a = tcase_create("auto");
  tcase_set_timeout(a, 60);
  tcase_add_loop_test(a, auto_random, 0, 60);
  tcase_add_loop_test(a, auto_stencil, 0, 4);
  tcase_add_test(a, auto_pde);
  tcase_add_test(a, auto_memlimit);
  tcase_add_test(a, method_names);
  suite_add_tcase(s, a);
  TCase *c = tcase_create("cache");
  tcase_set_timeout(c, 60);
  tcase_add_loop_test(c, cache_hit, 0, 12);
  tcase_add_test(c, cache_evicts);
  tcase_add_loop_test(c, cache_collision, 0, 2);
  tcase_add_test(c, cache_errors);
  tcase_add_loop_test(c, loop_branch_flip, 0, 2);
  tcase_add_test(c, cache_threads);
  tcase_add_loop_test(c, plan_threads, 0, 2);
  tcase_add_test(c, out_of_memory);
  suite_add_tcase(s, c);
  TCase *hc = tcase_create("hess_cache");
  tcase_set_timeout(hc, 60);
  tcase_add_loop_test(hc, hess_cache_hit, 0, 12);
  tcase_add_test(hc, hess_cache_branch_flip);
  tcase_add_test(hc, hess_cache_errors);
  tcase_add_test(hc, hess_cache_out_of_memory);
  suite_add_tcase(s, hc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
