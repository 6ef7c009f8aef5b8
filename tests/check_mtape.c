/* check_mtape.c: missions built from recorded tapes (regions as vector elementals) and plans executed on them. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "randprog.h"

/* Record p at x with regions opened and closed at random between steps
 * (nested up to depth 3; some left open for ade_trace_off to close), as
 * check_parts.c does. */
static ade_tape *record_regions(const randprog *p, const double *x, uint64_t seed) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 97;
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof(ade_double) * (size_t)(p->n + p->nsteps));
  uint64_t s = seed;
  int depth = 0;
  static const char *const names[4] = {"res", "jac", "solve", "step"};
  for (int i = 0; i < p->n; i++) v[i] = ade_indep(x[i]);
  for (int i = 0; i < p->nsteps; i++) {
    unsigned r = (unsigned)(ade_test_rand(&s) % 8);
    if (r == 0 && depth < 3) ade_region_begin(names[ade_test_rand(&s) % 4]), depth++;
    else if (r == 1 && depth > 0) ade_region_end(), depth--;
    v[p->n + i] = rp_step_eval(&p->steps[i], v);
  }
  for (int j = 0; j < p->m; j++) ade_dep(v[p->out[j]]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  return t;
}

/* Plan d by method (bnb and best under a node limit, so that the test does
 * not depend on the machine's speed); NULL if the method does not apply
 * (dp off chains). */
static ade_mplan *plan(ade_mission *d, int method) {
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.node_limit = 3000;
  ade_mplan *p = NULL;
  int rc = ade_mission_plan(d, method, &l, &p);
  if (method == ADE_MISSION_DP && rc == ADE_EINVAL) return NULL;
  ck_assert_msg(rc == ADE_OK, "%s: %s", ade_mission_method_name(method), ade_errmsg());
  return p;
}

/* J of plan p at x against dense forward mode there, and the executed
 * multiply-adds against the plan's cost. */
static void check_exec(ade_mplan *p, ade_mission *d, ade_tape *t, const double *x, int n, int m) {
  double *J = calloc((size_t)(n * m), sizeof *J), *F = calloc((size_t)(n * m), sizeof *F);
  uint64_t fma = 0;
  ck_assert_msg(ade_mission_tape_jacobian(p, d, t, x, J, &fma) == ADE_OK, "%s", ade_errmsg());
  ck_assert_uint_eq(fma, ade_mplan_cost(p));
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, x, F), ADE_OK);
  for (int k = 0; k < n * m; k++) ade_assert_rel(J[k], F[k], 1e-12);
  free(J);
  free(F);
}

/* Random programs with random nested regions: every method's plan,
 * executed at the recorded point and again at a new point, gives dense
 * forward mode's Jacobian, at exactly the planned cost. */
START_TEST(random_regions) {
  int total = 0;
  for (uint64_t s = 1; s <= 24; s++) {
    uint64_t r = s * 7919;
    int n = 1 + (int)(ade_test_rand(&r) % 5), m = 1 + (int)(ade_test_rand(&r) % 4);
    int nsteps = 8 + (int)(ade_test_rand(&r) % 40);
    randprog pr = rp_make(s, n, m, nsteps);
    double x[5], x2[5];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&r, -1.3, 1.7), x2[i] = x[i] + ade_test_uniform(&r, -0.2, 0.2);
    ade_tape *t = record_regions(&pr, x, s);
    ade_mission *d = NULL;
    ck_assert_msg(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS) == ADE_OK, "seed %llu: %s",
                  (unsigned long long)s, ade_errmsg());
    int nvar, nel;
    ade_mission_size(d, &nvar, &nel);
    total += nel;
    for (int method = ADE_MISSION_SPARSE_TANGENT; method < ADE_MISSION_NMETHODS; method++) {
      ade_mplan *p = plan(d, method);
      if (!p) continue;
      check_exec(p, d, t, NULL, n, m);
      check_exec(p, d, t, x2, n, m); /* the same plan at a new point */
      ade_mplan_free(p);
    }
    ade_mission_free(d);
    ade_tape_free(t);
    rp_free(&pr);
  }
  ck_assert_int_ge(total, 120); /* DAGs of many elementals, not one per program */
}
END_TEST

/* Every elemental's local Jacobian three ways at a new point: tangents of
 * the identity, adjoints of the identity (transposed), and vertex
 * elimination of its edges; the sweeps cost |E| per direction. */
START_TEST(local_jacobians) {
  int total = 0;
  for (uint64_t s = 30; s < 36; s++) {
    randprog pr = rp_make(s, 4, 3, 40);
    double x[4] = {0.3, -0.7, 1.1, 0.45}, x2[4] = {0.35, -0.6, 1.0, 0.5};
    ade_tape *t = record_regions(&pr, x, s);
    ade_mission *d = NULL;
    ade_mission_fns f;
    ck_assert_int_eq(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS), ADE_OK);
    ck_assert_int_eq(ade_mission_tape_fns(d, t, x2, &f), ADE_OK);
    int ne;
    ade_mission_size(d, NULL, &ne);
    total += ne;
    for (int k = 0; k < ne; k++) {
      int src, dst;
      uint64_t ni, nj, tan, adj;
      ck_assert_int_eq(ade_mission_elemental(d, k, NULL, &src, &dst, &tan, &adj), ADE_OK);
      ck_assert_uint_eq(tan, adj);
      ck_assert_int_eq(ade_mission_var(d, src, NULL, &ni), ADE_OK);
      ck_assert_int_eq(ade_mission_var(d, dst, NULL, &nj), ADE_OK);
      size_t a = (size_t)ni, b = (size_t)nj;
      double *I = calloc(a * a + b * b, sizeof *I), *T = calloc(a * b, sizeof *T), *A = calloc(a * b, sizeof *A),
             *E = calloc(a * b, sizeof *E);
      for (size_t i = 0; i < a; i++) I[i + i * a] = 1;
      uint64_t before = ade_mission_tape_fma(d);
      ck_assert_int_eq(f.tangent(f.ud, k, a, I, T), ADE_OK); /* T = F' I: b x a */
      ck_assert_uint_eq(ade_mission_tape_fma(d) - before, a * tan);
      double *Ib = I + a * a;
      for (size_t i = 0; i < b; i++) Ib[i + i * b] = 1;
      ck_assert_int_eq(f.adjoint(f.ud, k, b, Ib, A), ADE_OK); /* A = F'^T I: a x b */
      ck_assert_int_eq(f.jacobian(f.ud, k, E), ADE_OK);
      for (size_t i = 0; i < b; i++)
        for (size_t j = 0; j < a; j++) {
          ade_assert_rel(A[j + i * a], T[i + j * b], 1e-12);
          ade_assert_rel(E[i + j * b], T[i + j * b], 1e-12);
        }
      free(I), free(T), free(A), free(E);
    }
    ck_assert_int_eq(ade_mission_var(d, -1, NULL, NULL), ADE_EINVAL);
    ck_assert_int_eq(ade_mission_elemental(d, ne, NULL, NULL, NULL, NULL, NULL), ADE_EINVAL);
    ade_mission_free(d);
    ade_tape_free(t);
    rp_free(&pr);
  }
  ck_assert_int_ge(total, 20);
}
END_TEST

/* A program by hand: x (2) -> region a (u = x0 x1, v = sin(x0)) -> region
 * b (w = u v) -> y = (w, v + 1), v + 1 outside regions. Variables, sizes
 * and edge counts by hand. */
START_TEST(by_hand) {
  ade_tape *t = NULL;
  double xv[2] = {0.7, -1.3};
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double x0 = ade_indep(xv[0]), x1 = ade_indep(xv[1]);
  ade_region_begin("a");
  ade_double u = ade_mul(x0, x1), v = ade_sin(x0);
  ade_region_end();
  ade_region_begin("b");
  ade_double w = ade_mul(u, v);
  ade_region_end();
  ade_dep(w);
  ade_dep(ade_add(v, ade_passive(1.0)));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ade_mission *d = NULL;
  ck_assert_msg(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS) == ADE_OK, "%s", ade_errmsg());
  int nv, ne;
  ade_mission_size(d, &nv, &ne);
  /* x; a.1 = (u, v); b.2:y = (w), a dependent; top.3:y = (v + 1) */
  ck_assert_int_eq(nv, 4);
  ck_assert_int_eq(ne, 3); /* x -> a.1 (3 edges), a.1 -> b.2:y (2), a.1 -> top.3:y (1) */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(ade_mission_write_graphml(d, f), ADE_OK);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "\"a.1\""));
  ck_assert_ptr_nonnull(strstr(buf, "\"b.2:y\""));
  ck_assert_ptr_nonnull(strstr(buf, "\"top.3:y\""));
  ade_mission *r = NULL; /* it reads back as the same DAG */
  ck_assert_msg(ade_mission_read_graphml_mem(&r, buf, len) == ADE_OK, "%s", ade_errmsg());
  free(buf);
  ade_mplan *pt = plan(d, ADE_MISSION_DENSE_TANGENT), *pa = plan(d, ADE_MISSION_DENSE_ADJOINT);
  ade_mplan *rt = plan(r, ADE_MISSION_DENSE_TANGENT);
  /* dense tangent: 2 directions over all 6 edges; adjoint: 2 weights */
  ck_assert_uint_eq(ade_mplan_cost(pt), 12);
  ck_assert_uint_eq(ade_mplan_cost(pa), 12);
  ck_assert_uint_eq(ade_mplan_cost(rt), 12);
  ade_mplan *p = plan(d, ADE_MISSION_BNB);
  check_exec(p, d, t, NULL, 2, 2);
  ade_mplan_free(p);
  ade_mplan_free(pt);
  ade_mplan_free(pa);
  ade_mplan_free(rt);
  ade_mission_free(r);
  ade_mission_free(d);
  ade_tape_free(t);
}
END_TEST

/* No regions: one run, one elemental x -> top.1:y of all the edges. */
START_TEST(no_regions) {
  randprog pr = rp_make(11, 3, 2, 25);
  double x[3] = {0.3, -0.8, 1.1};
  ade_tape *t = rp_record(&pr, x, NULL);
  ade_mission *d = NULL;
  ck_assert_int_eq(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS), ADE_OK);
  int nv, ne;
  ade_mission_size(d, &nv, &ne);
  ck_assert_int_eq(nv, 2);
  ck_assert_int_eq(ne, 1);
  ade_cgraph *g = NULL;
  size_t edges;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  ade_cgraph_size(g, NULL, &edges, NULL, NULL);
  ade_mplan *p = plan(d, ADE_MISSION_DENSE_TANGENT);
  ck_assert_uint_eq(ade_mplan_cost(p), 3 * edges);
  ade_mplan_free(p);
  p = plan(d, ADE_MISSION_BEST);
  check_exec(p, d, t, NULL, 3, 2);
  ade_mplan_free(p);
  ade_cgraph_free(g);
  ade_mission_free(d);
  ade_tape_free(t);
  rp_free(&pr);
}
END_TEST

START_TEST(errors) {
  randprog pr = rp_make(5, 2, 2, 20), other = rp_make(6, 2, 2, 21);
  double x[2] = {0.4, 0.9}, J[4];
  ade_tape *t = record_regions(&pr, x, 3), *u = rp_record(&other, x, NULL);
  ade_mission *d = NULL, *h = NULL;
  ck_assert_int_eq(ade_mission_from_tape(NULL, t, ADE_PARTS_REGIONS), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_from_tape(&d, NULL, ADE_PARTS_REGIONS), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_from_tape(&d, t, 42), ADE_EINVAL);
  ck_assert_ptr_null(d);
  ck_assert_int_eq(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS), ADE_OK);
  ade_mplan *p = plan(d, ADE_MISSION_GREEDY_COST), *dense = plan(d, ADE_MISSION_DENSE_TANGENT);
  ck_assert_int_eq(ade_mission_tape_jacobian(NULL, d, t, NULL, J, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_tape_jacobian(p, d, NULL, NULL, J, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_tape_jacobian(p, d, t, NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_tape_jacobian(dense, d, t, NULL, J, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_tape_jacobian(p, d, u, NULL, J, NULL), ADE_EINVAL); /* another tape */
  ck_assert_int_eq(ade_mission_create(&h), ADE_OK); /* not a tape's mission */
  ck_assert_int_eq(ade_mission_tape_jacobian(p, h, t, NULL, J, NULL), ADE_EINVAL);
  ade_mplan_free(p);
  ade_mplan_free(dense);
  ade_mission_free(h);
  ade_mission_free(d);
  ade_tape_free(t);
  ade_tape_free(u);
  rp_free(&pr);
  rp_free(&other);
}
END_TEST

/* Every allocation failure while building or executing is ADE_ENOMEM and
 * leaks nothing; then it succeeds. */
START_TEST(out_of_memory) {
  randprog pr = rp_make(9, 3, 2, 30);
  double x[3] = {0.5, -0.4, 1.2}, x2[3] = {0.6, -0.3, 1.0}, J[6];
  ade_tape *t = record_regions(&pr, x, 8);
  ade_mission *d0 = NULL;
  ck_assert_int_eq(ade_mission_from_tape(&d0, t, ADE_PARTS_REGIONS), ADE_OK);
  ade_mplan *p = plan(d0, ADE_MISSION_GREEDY_MIN_FILL);
  ck_assert_int_eq(ade_mission_tape_jacobian(p, d0, t, x2, J, NULL), ADE_OK); /* the tape's caches */
  for (long k = 0;; k++) {
    ade_test_alloc a = {k, 0, 0};
    ade_mission *d = NULL;
    ade_set_allocator(ade_test_alloc_fn, &a);
    int rc = ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS);
    if (!rc) rc = ade_mission_tape_jacobian(p, d, t, x2, J, NULL);
    ade_mission_free(d);
    ade_set_allocator(NULL, NULL);
    ck_assert_int_eq(a.live, 0);
    if (rc == ADE_OK) break;
    ck_assert_int_eq(rc, ADE_ENOMEM);
  }
  ade_mplan_free(p);
  ade_mission_free(d0);
  ade_tape_free(t);
  rp_free(&pr);
}
END_TEST

/* ------------------------------------------------- elemental calls */

/* Vector elementals for tapes with calls: M_SMOOTH (3 -> 3, tangents and
 * adjoints only), M_LIN (3 -> 2, y = A x with an explicit Jacobian),
 * M_WIDE (4 -> 1), M_TALL (1 -> 4). Costs per direction given (distinct,
 * so a mix-up shows in the counts). */
enum { M_SMOOTH, M_LIN, M_WIDE, M_TALL, MNE };
static const int MN[MNE] = {3, 3, 4, 1}, MM[MNE] = {3, 2, 1, 4};
static const double MA[6] = {0.7, -1.3, 0.45, 2.1, 0.35, -0.8};
static ade_elemental *ME[MNE];

static void m_jac(int k, const double *x, double *J) { /* MM[k] x MN[k], row-major */
  switch (k) {
  case M_SMOOTH: {
    double e = exp(-0.5 * x[2] * x[2]), th = tanh(x[0] + x[1] - x[2]), s = 1 - th * th;
    const double j[9] = {cos(x[0]) * x[1], sin(x[0]), 0, x[2], 0, -x[2] * e + x[0], s, s, -s};
    memcpy(J, j, sizeof j);
    break;
  }
  case M_LIN: memcpy(J, MA, sizeof MA); break;
  case M_WIDE: J[0] = x[1], J[1] = x[0], J[2] = cos(x[2]) * x[3], J[3] = sin(x[2]); break;
  default:
    for (int i = 0; i < 4; i++) J[i] = 0.3 * exp(0.3 * (i + 1) * x[0]);
  }
}
static int m_f(void *ud, const double *x, double *y) {
  switch ((int)(intptr_t)ud) {
  case M_SMOOTH:
    y[0] = sin(x[0]) * x[1], y[1] = exp(-0.5 * x[2] * x[2]) + x[0] * x[2], y[2] = tanh(x[0] + x[1] - x[2]);
    break;
  case M_LIN:
    for (int i = 0; i < 2; i++) y[i] = MA[3 * i] * x[0] + MA[3 * i + 1] * x[1] + MA[3 * i + 2] * x[2];
    break;
  case M_WIDE: y[0] = x[0] * x[1] + sin(x[2]) * x[3]; break;
  default:
    for (int i = 0; i < 4; i++) y[i] = exp(0.3 * (i + 1) * x[0]) / (i + 1);
  }
  return 0;
}
static int m_t(void *ud, const double *x, const double *xd, double *yd) {
  int k = (int)(intptr_t)ud;
  double J[16];
  m_jac(k, x, J);
  for (int i = 0; i < MM[k]; i++) {
    yd[i] = 0;
    for (int j = 0; j < MN[k]; j++) yd[i] += J[i * MN[k] + j] * xd[j];
  }
  return 0;
}
static int m_a(void *ud, const double *x, const double *yb, double *xb) {
  int k = (int)(intptr_t)ud;
  double J[16];
  m_jac(k, x, J);
  for (int j = 0; j < MN[k]; j++) {
    xb[j] = 0;
    for (int i = 0; i < MM[k]; i++) xb[j] += J[i * MN[k] + j] * yb[i];
  }
  return 0;
}
static int m_j(void *ud, const double *x, double *J) {
  m_jac((int)(intptr_t)ud, x, J);
  return 0;
}
static const uint64_t MTC[MNE] = {9, 6, 5, 4}, MAC[MNE] = {11, 6, 3, 7};

static ade_elemental_def m_def(int k) {
  static const char *const names[MNE] = {"mt.smooth", "mt.lin", "mt.wide", "mt.tall"};
  ade_elemental_def d = {names[k], (size_t)MN[k], (size_t)MM[k], m_f, m_t, m_a, k == M_LIN ? m_j : NULL,
                         (void *)(intptr_t)k, MTC[k], MAC[k], NULL};
  return d;
}

static void m_register(void) {
  for (int k = 0; k < MNE; k++) {
    ade_elemental_def d = m_def(k);
    ck_assert_msg(ade_elemental_register(&d, &ME[k]) == ADE_OK, "%s", ade_errmsg());
  }
}

/* Record p at x with random regions (as record_regions) and, after a
 * random quarter of the steps, a random elemental call on recent values
 * (now and then the constant 0.7); its outputs replace or are added to
 * recent values, so some are dependents, some unused. *ncalls: the calls. */
static ade_tape *record_calls(const randprog *p, const double *x, uint64_t seed, int *ncalls) {
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof(ade_double) * (size_t)(p->n + p->nsteps)), in[4], y[4];
  uint64_t s = seed;
  int depth = 0;
  *ncalls = 0;
  static const char *const names[3] = {"res", "jac", "solve"};
  for (int i = 0; i < p->n; i++) v[i] = ade_indep(x[i]);
  for (int i = 0; i < p->nsteps; i++) {
    unsigned r = (unsigned)(ade_test_rand(&s) % 8);
    if (r == 0 && depth < 3) ade_region_begin(names[ade_test_rand(&s) % 3]), depth++;
    else if (r == 1 && depth > 0) ade_region_end(), depth--;
    int at = p->n + i;
    v[at] = rp_step_eval(&p->steps[i], v);
    if (ade_test_rand(&s) % 4) continue;
    int k = (int)(ade_test_rand(&s) % MNE), span = at + 1 < 5 ? at + 1 : 5;
    for (int j = 0; j < MN[k]; j++)
      in[j] = ade_test_rand(&s) % 9 == 0 ? ade_passive(0.7) : v[at - (int)(ade_test_rand(&s) % (uint64_t)span)];
    ck_assert_msg(ade_elemental_call(ME[k], in, y) == ADE_OK, "%s", ade_errmsg());
    ++*ncalls;
    for (int j = 0; j < MM[k] && at - j >= p->n; j++)
      v[at - j] = ade_test_rand(&s) % 2 ? y[j] : ade_add(v[at - j], ade_mul(ade_passive(0.5), y[j]));
  }
  for (int j = 0; j < p->m; j++) ade_dep(v[p->out[j]]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  return t;
}

/* Random programs with random elemental calls and regions: each call is
 * its own run, its elementals carry the registered costs, and every
 * method's plan, executed through the callbacks at the recorded point and
 * at a new one, gives dense forward mode's Jacobian at the planned cost. */
START_TEST(random_calls) {
  m_register();
  int calls = 0, celems = 0, sels = 0;
  for (uint64_t s = 1; s <= 24; s++) {
    uint64_t r = s * 104729;
    int n = 1 + (int)(ade_test_rand(&r) % 5), m = 1 + (int)(ade_test_rand(&r) % 4), nc;
    randprog pr = rp_make(s + 100, n, m, 8 + (int)(ade_test_rand(&r) % 30));
    double x[5], x2[5];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&r, -1.3, 1.7), x2[i] = x[i] + ade_test_uniform(&r, -0.2, 0.2);
    ade_tape *t = record_calls(&pr, x, s, &nc);
    calls += nc;
    ade_mission *d = NULL;
    ck_assert_msg(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS) == ADE_OK, "seed %llu: %s",
                  (unsigned long long)s, ade_errmsg());
    int nvar, nel;
    ade_mission_size(d, &nvar, &nel);
    int ce = 0;
    for (int k = 0; k < nel; k++) { /* a call's elemental: its registered costs (edges never cost 9/11 etc. together) */
      uint64_t tan, adj;
      ck_assert_int_eq(ade_mission_elemental(d, k, NULL, NULL, NULL, &tan, &adj), ADE_OK);
      for (int e = 0; e < MNE; e++) ce += tan == MTC[e] && adj == MAC[e] && tan != adj;
      sels += tan == 0 && adj == 0; /* a gather or scatter (a region has an edge at least) */
    }
    ck_assert_int_le(ce, nc); /* each call one elemental at most, however many variables feed it */
    celems += ce;
    for (int method = ADE_MISSION_SPARSE_TANGENT; method < ADE_MISSION_NMETHODS; method++) {
      ade_mplan *p = plan(d, method);
      if (!p) continue;
      check_exec(p, d, t, NULL, n, m);
      check_exec(p, d, t, x2, n, m);
      ade_mplan_free(p);
    }
    ade_mission_free(d);
    ade_tape_free(t);
    rp_free(&pr);
  }
  ck_assert_int_ge(calls, 60);
  ck_assert_int_ge(celems, 20);
  ck_assert_int_ge(sels, 20);
}
END_TEST

/* x (3) -> smooth (3 -> 3) -> lin (3 -> 2) -> y: variables x, the calls'
 * outputs; elementals with the registered costs; dense tangent 3 (9 + 6),
 * dense adjoint 2 (6 + 11); the executed Jacobian at the planned cost. */
START_TEST(calls_by_hand) {
  m_register();
  ade_tape *t = NULL;
  double xv[3] = {0.4, -0.9, 1.1};
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double x[3], u[3], y[2];
  for (int i = 0; i < 3; i++) x[i] = ade_indep(xv[i]);
  ck_assert_int_eq(ade_elemental_call(ME[M_SMOOTH], x, u), ADE_OK);
  ck_assert_int_eq(ade_elemental_call(ME[M_LIN], u, y), ADE_OK);
  for (int i = 0; i < 2; i++) ade_dep(y[i]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ade_mission *d = NULL;
  ck_assert_msg(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS) == ADE_OK, "%s", ade_errmsg());
  int nv, ne, src, dst;
  uint64_t size, tan, adj;
  ade_mission_size(d, &nv, &ne);
  ck_assert_int_eq(nv, 3);
  ck_assert_int_eq(ne, 2);
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(ade_mission_elemental(d, k, NULL, &src, &dst, &tan, &adj), ADE_OK);
    ck_assert_int_eq(ade_mission_var(d, src, NULL, &size), ADE_OK);
    ck_assert_uint_eq(size, 3);
    ck_assert_int_eq(ade_mission_var(d, dst, NULL, &size), ADE_OK);
    ck_assert_uint_eq(size, k ? 2 : 3);
    ck_assert_uint_eq(tan, k ? 6 : 9);
    ck_assert_uint_eq(adj, k ? 6 : 11);
  }
  const char *id;
  ck_assert_int_eq(ade_mission_var(d, 1, &id, NULL), ADE_OK);
  ck_assert_str_eq(id, "mt.smooth.1"); /* named after the elemental */
  /* each local Jacobian by the callbacks: the explicit one (lin, no count)
   * or 3 tangents (smooth: 3 * 9 < 3 * 11) equals tangents of the identity */
  ade_mission_fns f;
  ck_assert_int_eq(ade_mission_tape_fns(d, t, NULL, &f), ADE_OK);
  for (int k = 0; k < 2; k++) {
    double Jk[9], T[9] = {0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint64_t before = ade_mission_tape_fma(d);
    ck_assert_int_eq(f.jacobian(f.ud, k, Jk), ADE_OK);
    ck_assert_uint_eq(ade_mission_tape_fma(d) - before, k ? 0 : 27);
    ck_assert_int_eq(f.tangent(f.ud, k, 3, I, T), ADE_OK);
    for (int i = 0; i < (k ? 6 : 9); i++) ade_assert_rel(Jk[i], T[i], 1e-15);
  }
  ade_mplan *pt = plan(d, ADE_MISSION_DENSE_TANGENT), *pa = plan(d, ADE_MISSION_DENSE_ADJOINT);
  ck_assert_uint_eq(ade_mplan_cost(pt), 3 * (9 + 6));
  ck_assert_uint_eq(ade_mplan_cost(pa), 2 * (6 + 11));
  for (int method = ADE_MISSION_SPARSE_TANGENT; method < ADE_MISSION_NMETHODS; method++) {
    ade_mplan *p = plan(d, method);
    if (!p) continue;
    check_exec(p, d, t, NULL, 3, 2);
    double x2[3] = {0.5, 0.2, -0.7};
    check_exec(p, d, t, x2, 3, 2);
    ade_mplan_free(p);
  }
  /* unregistered: building and executing fail naming it */
  ade_mplan *p = plan(d, ADE_MISSION_GREEDY_MIN_FILL);
  double J[6];
  ck_assert_int_eq(ade_elemental_unregister("mt.smooth"), ADE_OK);
  ade_mission *d2 = NULL;
  ck_assert_int_eq(ade_mission_from_tape(&d2, t, ADE_PARTS_REGIONS), ADE_ENOTFOUND);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "mt.smooth"));
  ck_assert_ptr_null(d2);
  ck_assert_int_eq(ade_mission_tape_jacobian(p, d, t, xv, J, NULL), ADE_ENOTFOUND);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "mt.smooth"));
  m_register();
  ck_assert_int_eq(ade_mission_tape_jacobian(p, d, t, xv, J, NULL), ADE_OK);
  for (long k = 0;; k++) { /* every allocation failure: ADE_ENOMEM, no leak */
    ade_test_alloc a = {k, 0, 0};
    ade_mission *d3 = NULL;
    ade_set_allocator(ade_test_alloc_fn, &a);
    int rc = ade_mission_from_tape(&d3, t, ADE_PARTS_REGIONS);
    if (!rc) rc = ade_mission_tape_jacobian(p, d3, t, xv, J, NULL);
    ade_mission_free(d3);
    ade_set_allocator(NULL, NULL);
    ck_assert_int_eq(a.live, 0);
    if (rc == ADE_OK) break;
    ck_assert_int_eq(rc, ADE_ENOMEM);
  }
  ade_mplan_free(p);
  ade_mplan_free(pt);
  ade_mplan_free(pa);
  ade_mission_free(d);
  ade_tape_free(t);
}
END_TEST

/* x (4) -> smooth(x0..x2) = a, tall(x3) = b; y0 = wide(a0, a1, b0, b1),
 * y1 = b2. wide's inputs come from two variables: a gather mt.wide.3:in
 * (4) fed by two selections of cost 0, then wide once; tall's outputs go
 * to two variables (b0, b1 read later, b2 a dependent): one elemental
 * x -> mt.tall.2:out (4), then two scatters of cost 0. Dense tangent
 * 4 (9 + 4 + 5): each call's tangent once per direction (the pairs of
 * sources and targets would give 4 (9 + 2 * 4 + 2 * 5)); dense adjoint
 * 2 (11 + 7 + 3). */
START_TEST(gather_scatter_by_hand) {
  m_register();
  ade_tape *t = NULL;
  double xv[4] = {0.4, -0.9, 1.1, 0.3};
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double x[4], a[3], b[4], w[4], y;
  for (int i = 0; i < 4; i++) x[i] = ade_indep(xv[i]);
  ck_assert_int_eq(ade_elemental_call(ME[M_SMOOTH], x, a), ADE_OK);
  ck_assert_int_eq(ade_elemental_call(ME[M_TALL], x + 3, b), ADE_OK);
  w[0] = a[0], w[1] = a[1], w[2] = b[0], w[3] = b[1];
  ck_assert_int_eq(ade_elemental_call(ME[M_WIDE], w, &y), ADE_OK);
  ade_dep(y);
  ade_dep(b[2]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ade_mission *d = NULL;
  ck_assert_msg(ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS) == ADE_OK, "%s", ade_errmsg());
  int nv, ne, src, dst;
  ade_mission_size(d, &nv, &ne);
  ck_assert_int_eq(nv, 7); /* x, a (a0 a1), b (b0 b1), b:y (b2), y, the gather, tall's outputs */
  ck_assert_int_eq(ne, 7);
  static const char *const vid[7] = {"x", "mt.smooth.1", "mt.tall.2", "mt.tall.2:y", "mt.wide.3:y", "mt.tall.2:out", "mt.wide.3:in"};
  static const uint64_t vsz[7] = {4, 2, 2, 1, 1, 4, 4};
  for (int i = 0; i < 7; i++) {
    const char *id;
    uint64_t size;
    ck_assert_int_eq(ade_mission_var(d, i, &id, &size), ADE_OK);
    ck_assert_str_eq(id, vid[i]);
    ck_assert_uint_eq(size, vsz[i]);
  }
  /* by source and target: the calls at their registered costs, selections at 0 */
  static const int es[7] = {0, 0, 5, 5, 1, 2, 6}, ed[7] = {1, 5, 2, 3, 6, 6, 4};
  static const uint64_t et[7] = {9, 4, 0, 0, 0, 0, 5}, ea[7] = {11, 7, 0, 0, 0, 0, 3};
  for (int k = 0; k < 7; k++) {
    uint64_t tan, adj;
    ck_assert_int_eq(ade_mission_elemental(d, k, NULL, &src, &dst, &tan, &adj), ADE_OK);
    ck_assert_int_eq(src, es[k]);
    ck_assert_int_eq(dst, ed[k]);
    ck_assert_uint_eq(tan, et[k]);
    ck_assert_uint_eq(adj, ea[k]);
  }
  ade_mplan *pt = plan(d, ADE_MISSION_DENSE_TANGENT), *pa = plan(d, ADE_MISSION_DENSE_ADJOINT);
  ck_assert_uint_eq(ade_mplan_cost(pt), 4 * (9 + 4 + 5));
  ck_assert_uint_eq(ade_mplan_cost(pa), 2 * (11 + 7 + 3));
  /* a selection: copies, its 0/1 Jacobian, no multiply-adds */
  ade_mission_fns f;
  ck_assert_int_eq(ade_mission_tape_fns(d, t, NULL, &f), ADE_OK);
  double J[8], xd[4] = {1, 2, 3, 4}, yd[4] = {0}, xb[2] = {0};
  ck_assert_int_eq(f.jacobian(f.ud, 5, J), ADE_OK); /* b (2) -> gather (4): rows 2 and 3 */
  for (int i = 0; i < 8; i++) ck_assert(J[i] == (i == 2 || i == 7 ? 1.0 : 0.0));
  ck_assert_int_eq(f.tangent(f.ud, 5, 1, xd, yd), ADE_OK);
  ck_assert(yd[0] == 0 && yd[1] == 0 && yd[2] == 1 && yd[3] == 2);
  ck_assert_int_eq(f.adjoint(f.ud, 5, 1, xd, xb), ADE_OK);
  ck_assert(xb[0] == 3 && xb[1] == 4);
  ck_assert_uint_eq(ade_mission_tape_fma(d), 0);
  for (int method = ADE_MISSION_SPARSE_TANGENT; method < ADE_MISSION_NMETHODS; method++) {
    ade_mplan *p = plan(d, method);
    if (!p) continue;
    check_exec(p, d, t, NULL, 4, 2);
    double x2[4] = {0.5, 0.2, -0.7, -0.4};
    check_exec(p, d, t, x2, 4, 2);
    ade_mplan_free(p);
  }
  ade_mplan *pg = plan(d, ADE_MISSION_GREEDY_MIN_FILL);
  for (long k = 0;; k++) { /* every allocation failure: ADE_ENOMEM, no leak */
    ade_test_alloc al = {k, 0, 0};
    ade_mission *d3 = NULL;
    double J2[8];
    ade_set_allocator(ade_test_alloc_fn, &al);
    int rc = ade_mission_from_tape(&d3, t, ADE_PARTS_REGIONS);
    if (!rc) rc = ade_mission_tape_jacobian(pg, d3, t, xv, J2, NULL);
    ade_mission_free(d3);
    ade_set_allocator(NULL, NULL);
    ck_assert_int_eq(al.live, 0);
    if (rc == ADE_OK) break;
    ck_assert_int_eq(rc, ADE_ENOMEM);
  }
  ade_mplan_free(pg);
  ade_mplan_free(pt);
  ade_mplan_free(pa);
  ade_mission_free(d);
  ade_tape_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mtape");
  TCase *tc = tcase_create("missions from tapes");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, by_hand);
  tcase_add_test(tc, no_regions);
  tcase_add_test(tc, random_regions);
  tcase_add_test(tc, local_jacobians);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, out_of_memory);
  tcase_add_test(tc, random_calls);
  tcase_add_test(tc, calls_by_hand);
  tcase_add_test(tc, gather_scatter_by_hand);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
