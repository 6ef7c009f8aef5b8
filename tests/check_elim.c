/* check_elim.c: tests of the c-graph, vertex/edge/face elimination, sequences, orderings and ade_jacobian. */
#include <string.h>
#include <unistd.h>

#include "elim_internal.h"
#include "randprog.h"

#define TOL 1e-12

/* ------------------------------------------------------------- helpers */

static ade_cgraph *graph(size_t n, const long *x, size_t m, const long *y, size_t ne, const long (*e)[2],
                         const double *val) {
  long *src = malloc(ne * sizeof *src), *dst = malloc(ne * sizeof *dst);
  for (size_t k = 0; k < ne; k++) src[k] = e[k][0], dst[k] = e[k][1];
  ade_cgraph *g = NULL;
  int st = ade_cgraph_from_edges(&g, n, x, m, y, ne, src, dst, val);
  ck_assert_msg(st == ADE_OK, "from_edges: %s", ade_errmsg());
  free(src);
  free(dst);
  return g;
}

/* Random labels in [0.5, 1.5) so no cancellation hides a wrong product. */
static double *labels(size_t ne, uint64_t seed) {
  double *v = malloc((ne ? ne : 1) * sizeof *v);
  for (size_t k = 0; k < ne; k++) v[k] = ade_test_uniform(&seed, 0.5, 1.5);
  return v;
}

static double *dense(const ade_sparse *J) {
  size_t len = J->m * J->n;
  double *D = malloc((len ? len : 1) * sizeof *D);
  ck_assert_int_eq(ade_sparse_to_dense(J, D), ADE_OK);
  return D;
}

static void assert_same(const double *A, const double *B, size_t len, double tol) {
  for (size_t i = 0; i < len; i++) ade_assert_rel(A[i], B[i], tol);
}

/* Apply s to a copy of g (or its dual) step by step: each step's cost is
 * what the engine counted, invariants hold after each step; returns the
 * total and the dense Jacobian. */
static uint64_t run_seq(const ade_cgraph *g, const ade_elim_seq *s, double **D) {
  ade_cgraph *w = NULL;
  uint64_t total = 0, c;
  int st = ade_seq_kind(s) == ADE_SEQ_FACE ? ade_cgraph_dual(&w, g) : ade_cgraph_copy(&w, g);
  ck_assert_int_eq(st, ADE_OK);
  for (size_t k = 0; k < ade_seq_length(s); k++) {
    uint64_t before = w->fma;
    st = ade__seq_apply_step(w, ade_seq_kind(s), ade_seq_step(s, k), &c);
    ck_assert_msg(st == ADE_OK, "step %zu: %s", k + 1, ade_errmsg());
    ck_assert_uint_eq(w->fma - before, c);
    ck_assert_msg(ade_cgraph_check(w) == ADE_OK, "after step %zu: %s", k + 1, ade_errmsg());
    total += c;
  }
  ck_assert_uint_eq(total, w->fma);
  if (D) {
    ade_sparse *J = NULL;
    ck_assert_msg(ade_cgraph_jacobian(w, &J) == ADE_OK, "jacobian: %s", ade_errmsg());
    *D = dense(J);
    ade_sparse_free(J);
  }
  ade_cgraph_free(w);
  return total;
}

static ade_elim_seq *vseq(size_t k, const long *v) {
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_seq_create(&s, ADE_SEQ_VERTEX), ADE_OK);
  for (size_t i = 0; i < k; i++) ck_assert_int_eq(ade_seq_push(s, v[i], 0, 0), ADE_OK);
  return s;
}

static uint64_t vcost(const ade_cgraph *g, size_t k, const long *v, double **D) {
  ade_elim_seq *s = vseq(k, v);
  uint64_t c = run_seq(g, s, D);
  ade_seq_free(s);
  return c;
}

/* -------------------------------------------- the motivating example */

/* Section 2: v1 = v-1 v0; v2 = sin v1; v3 = v1 v2; v4 = cos v3; v5 = exp v3.
 * Edges numbered as c1..c7 in the paper. */
static const long mx[] = {-1, 0}, my[] = {4, 5};
static const long me[][2] = {{-1, 1}, {0, 1}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {3, 5}};
static const double xm1 = 1.3, x0 = 0.7;

static void motivating_labels(double *c) {
  double v1 = xm1 * x0, v2 = sin(v1), v3 = v1 * v2, v5 = exp(v3);
  double lab[7] = {x0, xm1, v2, cos(v1), v1, -sin(v3), v5};
  memcpy(c, lab, sizeof lab);
}

/* Equation (4). */
static void motivating_jacobian(double *J) {
  double c[7];
  motivating_labels(c);
  double r = c[2] + c[3] * c[4];
  J[0] = c[5] * r * c[0];
  J[1] = c[5] * r * c[1];
  J[2] = c[6] * r * c[0];
  J[3] = c[6] * r * c[1];
}

static ade_tape *motivating_tape(void) {
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(xm1), b = ade_indep(x0);
  ade_double v1 = ade_mul(a, b), v2 = ade_sin(v1), v3 = ade_mul(v1, v2);
  ade_dep(ade_cos(v3));
  ade_dep(ade_exp(v3));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  return t;
}

START_TEST(motivating_cgraph) {
  double c[7], J[4], *D = NULL;
  motivating_labels(c);
  motivating_jacobian(J);
  ade_cgraph *g = graph(2, mx, 2, my, 7, me, c);
  size_t nv, ne;
  ade_cgraph_size(g, &nv, &ne, NULL, NULL);
  ck_assert_uint_eq(nv, 7);
  ck_assert_uint_eq(2 * ne, 14); /* n|E| = m|E| = 14 */
  /* Equation (5): r = c3 + c5 c4 (vertex 2), s, t (vertex 1), then 4: 7 fma. */
  long order[] = {2, 1, 3};
  ck_assert_uint_eq(vcost(g, 3, order, &D), 7);
  assert_same(D, J, 4, TOL);
  free(D);
  long fwd[] = {1, 2, 3};
  ck_assert_uint_eq(vcost(g, 3, fwd, NULL), 2 * 2 + 2 * 1 + 2 * 2);
  ade_cgraph_free(g);
}
END_TEST

START_TEST(motivating_tape_graph) {
  ade_tape *t = motivating_tape();
  ade_cgraph *g = NULL;
  size_t dropped = 9, nv, ne;
  double J[4], Jd[4], *D = NULL;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, &dropped), ADE_OK);
  ck_assert_uint_eq(dropped, 0);
  ade_cgraph_size(g, &nv, &ne, NULL, NULL);
  ck_assert_uint_eq(nv, 7); /* the DEP copies collapse onto v4 and v5 */
  ck_assert_uint_eq(ne, 7);
  ck_assert_int_eq(ade_cgraph_check(g), ADE_OK);
  motivating_jacobian(J);
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, NULL, Jd), ADE_OK);
  assert_same(Jd, J, 4, TOL);
  /* Record ids: v-1 = 1, v0 = 2, v1 = 3, v2 = 4, v3 = 5. */
  long order[] = {4, 3, 5};
  ck_assert_uint_eq(vcost(g, 3, order, &D), 7);
  assert_same(D, J, 4, TOL);
  free(D);
  ade_jacobian_report r;
  ade_sparse *Js = NULL;
  for (int m = 0; m < ADE_ORDER_COUNT; m++) {
    ade_jacobian_options o = {NULL, 1, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
    ck_assert_msg(ade_jacobian(t, m, &o, &Js, &r) == ADE_OK, "%s: %s", ade_order_name(m), ade_errmsg());
    ck_assert_uint_eq(r.forward_cost, 14);
    ck_assert_uint_eq(r.reverse_cost, 14);
    ck_assert_uint_eq(r.vertices_before, 7);
    ck_assert_uint_eq(r.edges_after, 4);
    D = dense(Js);
    assert_same(D, J, 4, TOL);
    free(D);
    ade_sparse_free(Js);
  }
  ade_cgraph_free(g);
  ade_tape_free(t);
}
END_TEST

/* Section 3.2, as narrated: (1,3) fill-in 10; (4,5) fill-in 11, 4 and 5
 * isolated; (1,11) absorbed by 10, 1 isolated, 3 and 11 merge into 3;
 * (2,3) fill-in 12; four more faces give the Jacobian. */
START_TEST(motivating_faces) {
  double c[7], J[4], *D;
  motivating_labels(c);
  motivating_jacobian(J);
  ade_cgraph *g = graph(2, mx, 2, my, 7, me, c), *d = NULL;
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  size_t nv, ne;
  ade_cgraph_size(d, &nv, &ne, NULL, NULL);
  ck_assert_uint_eq(nv, 11); /* -1, 0, 1..7, 8, 9 */
  ck_assert_uint_eq(ne, 2 + 9 + 2);
#define V(id) (&d->v[ade__graph_vertex(d, id)])
#define ALIVE(id) (ade__graph_vertex(d, id) != ADE__NONE)
  uint64_t cost;
  ck_assert_int_eq(ade_elim_face(d, 1, 3, &cost), ADE_OK);
  ck_assert(ALIVE(10) && ALIVE(1) && ALIVE(3));
  ck_assert_uint_eq(d->fill, 1);
  ade_assert_rel(V(10)->val, c[2] * c[0], TOL);
  ck_assert_uint_eq(V(10)->nin, 1);
  ck_assert_uint_eq(V(10)->nout, 2);
  ck_assert_int_eq(ade_elim_face(d, 4, 5, &cost), ADE_OK);
  ck_assert(ALIVE(11) && !ALIVE(4) && !ALIVE(5));
  ck_assert_uint_eq(d->fill, 2);
  ade_assert_rel(V(11)->val, c[4] * c[3], TOL);
  ck_assert_int_eq(ade_elim_face(d, 1, 11, &cost), ADE_OK);
  ck_assert_uint_eq(d->absorbed, 1);
  ck_assert_uint_eq(d->merged, 1);
  ck_assert(!ALIVE(1) && !ALIVE(11) && ALIVE(3));
  ade_assert_rel(V(10)->val, c[2] * c[0] + c[4] * c[3] * c[0], TOL);
  ade_assert_rel(V(3)->val, c[2] + c[4] * c[3], TOL);
  ck_assert_int_eq(ade_elim_face(d, 2, 3, &cost), ADE_OK);
  ck_assert(ALIVE(12) && !ALIVE(2) && !ALIVE(3));
  ck_assert_int_eq(ade_elim_face(d, 10, 6, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_face(d, 10, 7, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_face(d, 12, 6, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_face(d, 12, 7, NULL), ADE_OK);
  ck_assert_int_eq(ade_cgraph_check(d), ADE_OK);
  ck_assert_uint_eq(d->fma, 8); /* 8 faces, one merge (an addition) */
  ade_sparse *Js = NULL;
  ck_assert_int_eq(ade_cgraph_jacobian(d, &Js), ADE_OK);
  ck_assert_uint_eq(Js->nnz, 4);
  D = dense(Js);
  assert_same(D, J, 4, TOL);
  free(D);
  ade_sparse_free(Js);
#undef V
#undef ALIVE
  ade_cgraph_free(d);
  ade_cgraph_free(g);
}
END_TEST

/* ------------------------------------------------------ lion, bat, K5 */

static const long lx[] = {-1, 0}, ly[] = {3, 4, 5, 6};
static const long le[][2] = {{-1, 1}, {0, 1}, {1, 2}, {1, 6}, {2, 3}, {2, 4}, {2, 5}, {2, 6}};

START_TEST(lion) {
  double *c = labels(8, 11), *D1, *D2, *D3;
  ade_cgraph *g = graph(2, lx, 4, ly, 8, le, c), *w = NULL;
  long o12[] = {1, 2}, o21[] = {2, 1};
  ck_assert_uint_eq(vcost(g, 2, o12, &D1), 12);
  ck_assert_uint_eq(vcost(g, 2, o21, &D2), 12);
  assert_same(D1, D2, 8, TOL);
  /* Lemma 9: [1,2] makes 10 fill edges, [2,1] 11. */
  uint64_t cost, total = 0;
  ck_assert_int_eq(ade_cgraph_copy(&w, g), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 1, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 2, NULL), ADE_OK);
  ck_assert_uint_eq(w->fill, 10);
  ade_cgraph_free(w);
  ck_assert_int_eq(ade_cgraph_copy(&w, g), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 2, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 1, NULL), ADE_OK);
  ck_assert_uint_eq(w->fill, 11);
  ade_cgraph_free(w);
  /* Proposition 1: back elimination of (2,6), then vertices 1 and 2: 11. */
  ck_assert_int_eq(ade_cgraph_copy(&w, g), ADE_OK);
  ck_assert_int_eq(ade_elim_edge(w, 2, 6, ADE_BACK, &cost), ADE_OK);
  total += cost;
  ck_assert_uint_eq(cost, 1);
  ck_assert_int_eq(ade_elim_vertex(w, 1, &cost), ADE_OK);
  total += cost;
  ck_assert_int_eq(ade_elim_vertex(w, 2, &cost), ADE_OK);
  total += cost;
  ck_assert_uint_eq(total, 11);
  ck_assert_uint_eq(w->fma, 11);
  ade_cgraph_free(w);
  /* The same as a pure edge sequence (Rule 3 for the vertices). */
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_seq_create(&s, ADE_SEQ_EDGE), ADE_OK);
  ade_seq_push(s, 2, 6, ADE_BACK);
  ade_seq_push(s, -1, 1, ADE_FRONT);
  ade_seq_push(s, 0, 1, ADE_FRONT);
  ade_seq_push(s, -1, 2, ADE_FRONT);
  ade_seq_push(s, 0, 2, ADE_FRONT);
  ck_assert_uint_eq(run_seq(g, s, &D3), 11);
  assert_same(D3, D1, 8, TOL);
  int done = 0;
  ck_assert_int_eq(ade_seq_validate(g, s, &done, &cost), ADE_OK);
  ck_assert(done);
  ck_assert_uint_eq(cost, 11);
  ade_seq_free(s);
  free(D1);
  free(D2);
  free(D3);
  free(c);
  ade_cgraph_free(g);
}
END_TEST

static const long bx[] = {-3, -2, -1, 0}, by[] = {4, 5, 6, 7};
static const long be[][2] = {{-3, 1}, {-2, 1}, {-1, 2}, {0, 2}, {1, 3}, {2, 3},
                             {3, 4}, {3, 5},  {3, 6},  {3, 7}, {1, 4}, {2, 7}};

/* Proposition 2: faces 1->3->4 and 2->3->7, then vertices 1 and 2 (as their
 * faces), then the remaining faces: 22 fma. No vertex order gets there. */
START_TEST(bat) {
  double *c = labels(12, 5), *Dv, *Df;
  ade_cgraph *g = graph(4, bx, 4, by, 12, be, c), *d = NULL;
  long perms[6][3] = {{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}};
  uint64_t best = UINT64_MAX;
  for (int p = 0; p < 6; p++) {
    uint64_t cst = vcost(g, 3, perms[p], NULL);
    best = cst < best ? cst : best;
  }
  ck_assert_uint_gt(best, 22);
  vcost(g, 3, perms[0], &Dv);
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ade_elim_seq *s = NULL, *tmp = NULL;
  ck_assert_int_eq(ade_seq_create(&s, ADE_SEQ_FACE), ADE_OK);
  ck_assert_int_eq(ade_seq_create(&tmp, ADE_SEQ_FACE), ADE_OK);
  ade_seq_push(s, 5, 7, 0);   /* (1,3) then (3,4) */
  ade_seq_push(s, 6, 10, 0);  /* (2,3) then (3,7) */
  ck_assert_int_eq(ade_elim_face(d, 5, 7, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_face(d, 6, 10, NULL), ADE_OK);
  ck_assert_uint_eq(d->absorbed, 2); /* into the edges (1,4) and (2,7) */
  for (long v = 1; v <= 3; v++) {
    tmp->len = 0;
    ck_assert_int_eq(ade__dual_faces_through(d, v, tmp), ADE_OK);
    for (size_t k = 0; k < tmp->len; k++) {
      ck_assert_int_eq(ade_elim_face(d, tmp->step[k].a, tmp->step[k].b, NULL), ADE_OK);
      ade_seq_push(s, tmp->step[k].a, tmp->step[k].b, 0);
    }
  }
  ck_assert_uint_eq(d->fma, 22);
  ck_assert_uint_eq(run_seq(g, s, &Df), 22);
  assert_same(Df, Dv, 16, TOL);
  ade_seq_free(s);
  ade_seq_free(tmp);
  free(Dv);
  free(Df);
  free(c);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
}
END_TEST

/* Lemma 9: K5 with X = {0}, Z = {1,2,3}, Y = {4}: no order makes fill-in,
 * [1,2,3] costs 6 and [2,1,3] 7. */
START_TEST(k5) {
  long x[] = {0}, y[] = {4}, e[10][2];
  int k = 0;
  for (long i = 0; i < 5; i++)
    for (long j = i + 1; j < 5; j++) e[k][0] = i, e[k++][1] = j;
  double *c = labels(10, 3), *D1, *D2;
  ade_cgraph *g = graph(1, x, 1, y, 10, (const long(*)[2])e, c), *w = NULL;
  long o1[] = {1, 2, 3}, o2[] = {2, 1, 3};
  ck_assert_uint_eq(vcost(g, 3, o1, &D1), 6);
  ck_assert_uint_eq(vcost(g, 3, o2, &D2), 7);
  assert_same(D1, D2, 1, TOL);
  ck_assert_int_eq(ade_cgraph_copy(&w, g), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 2, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 1, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_vertex(w, 3, NULL), ADE_OK);
  ck_assert_uint_eq(w->fill, 0);
  ade_cgraph_free(w);
  free(D1);
  free(D2);
  free(c);
  ade_cgraph_free(g);
}
END_TEST

/* A vertex sequence, its edge sequence (Rule 3) and its face sequence cost
 * the same and give the same Jacobian. */
static void check_equivalent(const ade_cgraph *g, const ade_elim_seq *vs, size_t len) {
  ade_elim_seq *es = NULL, *fs = NULL;
  double *Dv, *De, *Df;
  ck_assert_int_eq(ade__seq_vertex_to_edge(g, vs, &es), ADE_OK);
  ck_assert_int_eq(ade__seq_vertex_to_face(g, vs, &fs), ADE_OK);
  uint64_t cv = run_seq(g, vs, &Dv), ce = run_seq(g, es, &De), cf = run_seq(g, fs, &Df);
  ck_assert_uint_eq(cv, ce);
  ck_assert_uint_eq(cv, cf);
  ck_assert_uint_eq(ade_seq_cost(es), cv);
  ck_assert_uint_eq(ade_seq_cost(fs), cv);
  assert_same(De, Dv, len, TOL);
  assert_same(Df, Dv, len, TOL);
  ade_seq_free(es);
  ade_seq_free(fs);
  free(Dv);
  free(De);
  free(Df);
}

START_TEST(equivalence) {
  double *c = labels(12, 7);
  ade_cgraph *g = graph(4, bx, 4, by, 12, be, c);
  long orders[][3] = {{1, 2, 3}, {3, 2, 1}, {2, 3, 1}};
  for (int i = 0; i < 3; i++) {
    ade_elim_seq *s = vseq(3, orders[i]);
    check_equivalent(g, s, 16);
    ade_seq_free(s);
  }
  ade_cgraph_free(g);
  motivating_labels(c);
  g = graph(2, mx, 2, my, 7, me, c);
  long o[] = {2, 1, 3};
  ade_elim_seq *s = vseq(3, o);
  check_equivalent(g, s, 4);
  ade_seq_free(s);
  ade_cgraph_free(g);
  free(c);
}
END_TEST

/* ------------------------------------------------------- property tests */

/* Every ordering on a random tape's c-graph: complete, counted, checked,
 * and equal to forward mode. */
static void check_tape(ade_tape *t, int n, int m, uint64_t seed) {
  double *Jf = malloc((size_t)(n * m) * sizeof *Jf), *D;
  ade_cgraph *g = NULL;
  ck_assert_int_ge(ade_jacobian_dense(t, ADE_FORWARD, NULL, Jf), ADE_OK);
  ck_assert_msg(ade_cgraph_from_tape(&g, t, NULL) == ADE_OK, "%s", ade_errmsg());
  ck_assert_msg(ade_cgraph_check(g) == ADE_OK, "%s", ade_errmsg());
  double tol = 64 * DBL_EPSILON * (double)(g->nedges + 1);
  tol = tol < TOL ? TOL : tol;
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ade_elim_seq *s = NULL;
    ck_assert_msg(ade_elim_order(g, o, &s) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
    uint64_t c = run_seq(g, s, &D);
    ck_assert_uint_eq(c, ade_seq_cost(s));
    for (int i = 0; i < n * m; i++)
      ck_assert_msg(fabs(D[i] - Jf[i]) <= tol * fmax(1.0, fabs(Jf[i])), "seed %llu %s: J[%d] = %.17g, want %.17g",
                    (unsigned long long)seed, ade_order_name(o), i, D[i], Jf[i]);
    if (o == ADE_ORDER_VERTEX_MARKOWITZ && seed % 4 == 0) check_equivalent(g, s, (size_t)(n * m));
    free(D);
    ade_seq_free(s);
  }
  ade_cgraph_free(g);
  free(Jf);
}

START_TEST(random_tapes) {
  uint64_t rs = 2024;
  for (uint64_t seed = 1; seed <= 1000; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 4), m = 1 + (int)(ade_test_rand(&rs) % 4);
    int steps = 4 + (int)(ade_test_rand(&rs) % 22);
    randprog p = rp_make(seed, n, m, steps);
    double x[4];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&rs, -1.5, 1.5);
    ade_tape *t = rp_record(&p, x, NULL);
    check_tape(t, n, m, seed);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* The engine's primitives against simple references on random graphs:
 * ade__graph_find_add against a scan of every edge slot, the kept
 * fingerprint against one computed afresh (ade__graph_fingerprint_fresh),
 * after random vertex and edge eliminations and added edges; the
 * invariants (ade_cgraph_check) after each change; a copy fingerprints
 * as its original. */
static size_t scan_edge(const ade_cgraph *g, size_t a, size_t b) {
  for (size_t e = 0; e < g->eslots; e++)
    if (g->e[e].src == a && g->e[e].dst == b) return e;
  return ADE__NONE;
}

static void engine_find_add(ade_cgraph *g, uint64_t *rs) {
  size_t a = (size_t)(ade_test_rand(rs) % g->nv), b = (size_t)(ade_test_rand(rs) % g->nv);
  if (a > b) a ^= b, b ^= a, a ^= b; /* ids ascend with the index: a -> b keeps the graph acyclic */
  const ade__vtx *A = &g->v[a], *B = &g->v[b];
  if (a == b || !A->alive || !B->alive || A->kind == ADE__Y || B->kind == ADE__X) return;
  size_t want = scan_edge(g, a, b), e = ADE__NONE, ne = g->nedges;
  double val = ade_test_uniform(rs, 0.5, 1.5);
  int st = ade__graph_find_add(g, a, b, val, &e);
  if (want != ADE__NONE) {
    ck_assert_int_eq(st, 1);
    ck_assert_uint_eq(e, want);
    ck_assert_uint_eq(g->nedges, ne);
  } else {
    ck_assert_int_eq(st, ADE_OK);
    ck_assert_uint_eq(scan_edge(g, a, b), e);
    ck_assert(g->e[e].val == val);
    ck_assert_uint_eq(g->nedges, ne + 1);
  }
}

static void engine_step(ade_cgraph *g, uint64_t *rs) {
  uint64_t r = ade_test_rand(rs) % 4, before = g->fma, cost = 0;
  if (r == 0) {
    engine_find_add(g, rs);
    return;
  }
  if (r == 1) {
    size_t j = (size_t)(ade_test_rand(rs) % g->nv);
    if (!g->v[j].alive || g->v[j].kind != ADE__Z) return;
    ck_assert_int_eq(ade__elim_vertex_ix(g, j, &cost), ADE_OK);
  } else {
    size_t e = (size_t)(ade_test_rand(rs) % g->eslots);
    if (g->e[e].src == ADE__NONE) return;
    int dir = r == 2 ? ADE_FRONT : ADE_BACK;
    if (g->v[dir == ADE_FRONT ? g->e[e].dst : g->e[e].src].kind != ADE__Z) return;
    ck_assert_int_eq(ade__elim_edge_ix(g, e, dir, &cost), ADE_OK);
  }
  ck_assert_uint_eq(g->fma - before, cost);
}

START_TEST(engine_random) {
  uint64_t rs = 77;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 4), m = 1 + (int)(ade_test_rand(&rs) % 4);
    randprog p = rp_make(seed * 7919, n, m, 10 + (int)(ade_test_rand(&rs) % 60));
    double x[4];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&rs, -1.5, 1.5);
    ade_tape *t = rp_record(&p, x, NULL);
    ade_cgraph *g = NULL, *c = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    for (int k = 0; k < 200 && g->nedges; k++) {
      engine_step(g, &rs);
      ck_assert_msg(ade_cgraph_check(g) == ADE_OK, "seed %llu step %d: %s", (unsigned long long)seed, k, ade_errmsg());
      if (ade_test_rand(&rs) % 3 == 0) ck_assert_uint_eq(ade__graph_fingerprint(g), ade__graph_fingerprint_fresh(g));
      if (k % 50 == 49) {
        ck_assert_int_eq(ade_cgraph_copy(&c, g), ADE_OK);
        ck_assert_uint_eq(ade__graph_fingerprint_fresh(c), ade__graph_fingerprint(g));
        ck_assert_uint_eq(ade__graph_fingerprint(c), ade__graph_fingerprint(g));
        engine_step(c, &rs); /* the copy changes alone */
        ck_assert_uint_eq(ade__graph_fingerprint(c), ade__graph_fingerprint_fresh(c));
        ck_assert_uint_eq(ade__graph_fingerprint(g), ade__graph_fingerprint_fresh(g));
        ade_cgraph_free(c);
      }
    }
    ck_assert_uint_eq(ade__graph_fingerprint(g), ade__graph_fingerprint_fresh(g));
    ade_cgraph_free(g);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* ade_jacobian agrees with forward mode on larger tapes for every method. */
START_TEST(jacobian_api) {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    randprog p = rp_make(seed * 7919, 6, 5, 120);
    double x[6], Jf[30], *D;
    for (int i = 0; i < 6; i++) x[i] = 0.3 + 0.1 * (double)i;
    ade_tape *t = rp_record(&p, x, NULL);
    ck_assert_int_ge(ade_jacobian_dense(t, ADE_FORWARD, NULL, Jf), ADE_OK);
    for (int o = 0; o < ADE_ORDER_COUNT; o++) {
      ade_sparse *J = NULL;
      ade_jacobian_report r;
      ck_assert_msg(ade_jacobian(t, o, NULL, &J, &r) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
      ck_assert_uint_eq(r.forward_cost, 6 * r.edges_before);
      ck_assert_uint_eq(r.edges_after, J->nnz);
      D = dense(J);
      assert_same(D, Jf, 30, 1e-10);
      free(D);
      ade_sparse_free(J);
    }
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* o->graph: the caller's c-graph instead of a second build, for every
 * method, with and without a 1 us limit (a limited Markowitz ordering or
 * auto reports it): forward mode's Jacobian, the same report, the graph
 * unchanged; an optimizer's sequence of a less general kind than asked
 * (ade_optimize's contract) applied to it; graphs that are not the tape's
 * as built are refused. */
START_TEST(given_graph) {
  static const int extra[] = {ADE_ELIM_AUTO, ADE_ELIM_CPR_FORWARD, ADE_ELIM_CPR_REVERSE};
  for (uint64_t seed = 1; seed <= 12; seed++) {
    randprog p = rp_make(seed * 104729, 6, 5, 120);
    double x[6], Jf[30], *D;
    for (int i = 0; i < 6; i++) x[i] = 0.3 + 0.1 * (double)i;
    ade_tape *t = rp_record(&p, x, NULL);
    ade_cgraph *g = NULL;
    ck_assert_int_ge(ade_jacobian_dense(t, ADE_FORWARD, NULL, Jf), ADE_OK);
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    uint64_t fp = ade__graph_fingerprint(g);
    for (int k = 0; k < ADE_ORDER_COUNT + 3; k++) {
      int method = k < ADE_ORDER_COUNT ? k : extra[k - ADE_ORDER_COUNT];
      for (int lim = 0; lim < 2; lim++) {
        ade_sparse *J = NULL, *J0 = NULL;
        ade_jacobian_report r, r0;
        ade_jacobian_options o = {NULL, 0, NULL, lim ? 1e-6 : 0, g, NULL, NULL, NULL, 0, 0};
        ck_assert_msg(ade_jacobian(t, method, &o, &J, &r) == ADE_OK, "%s: %s", ade_elim_method_name(method),
                      ade_errmsg());
        o.graph = NULL;
        ck_assert_int_eq(ade_jacobian(t, method, &o, &J0, &r0), ADE_OK);
        ck_assert_uint_eq(r.edges_before, r0.edges_before);
        ck_assert_uint_eq(r.vertices_before, r0.vertices_before);
        ck_assert_uint_eq(r.dropped, r0.dropped);
        ck_assert_uint_eq(r.forward_cost, r0.forward_cost);
        if (!lim) ck_assert_uint_eq(r.fma, r0.fma);
        if (lim && (method == ADE_ORDER_VERTEX_MARKOWITZ || method == ADE_ORDER_VERTEX_RELATIVE ||
                    method == ADE_ELIM_AUTO))
          ck_assert_msg(r.limited, "%s: a 1 us limit not reported", ade_elim_method_name(method));
        D = dense(J);
        assert_same(D, Jf, 30, 1e-10);
        free(D);
        ade_sparse_free(J);
        ade_sparse_free(J0);
        ck_assert_uint_eq(ade__graph_fingerprint(g), fp); /* unchanged */
        ck_assert_uint_eq(g->fma, 0);
      }
    }
    /* A plan (what codegen compiles) under a 1 us limit: limited, forward mode's Jacobian. */
    for (int k = 0; k < 2; k++) {
      ade_elim_plan *pl = NULL;
      ade_sparse *J = NULL;
      ade_jacobian_report r;
      ade_jacobian_options o = {NULL, 0, NULL, 1e-6, NULL, NULL, NULL, NULL, 0, 0};
      ck_assert_int_eq(ade_elim_plan_create(&pl, t, k ? ADE_ELIM_AUTO : ADE_ORDER_VERTEX_MARKOWITZ, &o, &r), ADE_OK);
      ck_assert(r.limited);
      ck_assert_int_eq(ade_elim_plan_pattern(pl, &J), ADE_OK);
      ck_assert_int_eq(ade_elim_plan_jacobian(pl, t, NULL, J), ADE_OK);
      D = dense(J);
      assert_same(D, Jf, 30, 1e-10);
      free(D);
      ade_sparse_free(J);
      ade_elim_plan_free(pl);
    }
    /* A face search stopped at once returns its start in its own kind. */
    for (int method = ADE_OPT_EXHAUSTIVE; method <= ADE_OPT_BNB; method++) {
      ade_opt_limits l;
      ade_opt_report orep;
      ade_elim_seq *s = NULL;
      ade_sparse *J = NULL;
      ade_jacobian_report r;
      ade_opt_limits_init(&l);
      l.time_limit = 1e-9;
      ck_assert_int_eq(ade_optimize(g, ADE_SEQ_FACE, method, &l, &s, &orep), ADE_OK);
      ck_assert(orep.limited);
      ck_assert_int_lt(ade_seq_kind(s), ADE_SEQ_FACE);
      ade_jacobian_options o = {s, 1, NULL, 0, g, NULL, NULL, NULL, 0, 0};
      ck_assert_msg(ade_jacobian(t, 0, &o, &J, &r) == ADE_OK, "%s", ade_errmsg());
      ck_assert_uint_eq(r.fma, orep.cost);
      ck_assert_uint_eq(r.fma, ade_seq_cost(s));
      D = dense(J);
      assert_same(D, Jf, 30, 1e-10);
      free(D);
      ade_sparse_free(J);
      ade_seq_free(s);
    }
    /* Not this tape's graph as built: refused. */
    ade_cgraph *d = NULL, *c = NULL;
    ade_sparse *J = NULL;
    uint64_t cost;
    ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
    ck_assert_int_eq(ade_cgraph_copy(&c, g), ADE_OK);
    for (size_t j = 0; j < c->nv; j++)
      if (c->v[j].alive && c->v[j].kind == ADE__Z) {
        ck_assert_int_eq(ade_elim_vertex(c, c->v[j].id, &cost), ADE_OK);
        break;
      }
    ade_jacobian_options o = {NULL, 0, NULL, 0, d, NULL, NULL, NULL, 0, 0};
    ck_assert_int_eq(ade_jacobian(t, ADE_ELIM_AUTO, &o, &J, NULL), ADE_EINVAL);
    o.graph = c;
    ck_assert_int_eq(ade_jacobian(t, ADE_ELIM_AUTO, &o, &J, NULL), ADE_EINVAL);
    ck_assert_ptr_null(J);
    ade_cgraph_free(d);
    ade_cgraph_free(c);
    randprog q = rp_make(seed, 3, 2, 20);
    ade_tape *u = rp_record(&q, x, NULL);
    o.graph = g;
    ck_assert_int_eq(ade_jacobian(u, ADE_ORDER_VERTEX_MARKOWITZ, &o, &J, NULL), ADE_EINVAL);
    ade_tape_free(u);
    rp_free(&q);
    /* graph_scratch: the same Jacobian and cost as a copy of graph, for
     * each kind of sequence, the graph eliminated in place; not with
     * graph. */
    for (int ord = ADE_ORDER_VERTEX_MARKOWITZ; ord < ADE_ORDER_COUNT; ord += 4) {
      ade_cgraph *sc = NULL;
      ade_elim_seq *s = NULL;
      ade_jacobian_report r0, r1;
      ade_sparse *J0 = NULL;
      ck_assert_int_eq(ade_elim_order(g, ord, &s), ADE_OK);
      ck_assert_int_eq(ade_cgraph_copy(&sc, g), ADE_OK);
      ade_jacobian_options a = {s, 0, NULL, 0, g, NULL, NULL, NULL, 0, 0}, b = {s, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
      b.graph_scratch = sc;
      ck_assert_int_eq(ade_jacobian(t, 0, &a, &J0, &r0), ADE_OK);
      ck_assert_msg(ade_jacobian(t, 0, &b, &J, &r1) == ADE_OK, "%s: %s", ade_order_name(ord), ade_errmsg());
      ck_assert_uint_eq(r1.fma, r0.fma);
      ck_assert_uint_eq(r1.fma, ade_seq_cost(s));
      D = dense(J);
      assert_same(D, Jf, 30, 1e-10);
      free(D);
      ck_assert(sc->fma == (ade_seq_kind(s) == ADE_SEQ_FACE ? 0 : r1.fma)); /* faces: on the dual */
      ck_assert_uint_eq(g->fma, 0);
      a.graph_scratch = sc;
      ade_sparse_free(J);
      J = NULL;
      ck_assert_int_eq(ade_jacobian(t, 0, &a, &J, NULL), ADE_EINVAL);
      ck_assert_ptr_null(J);
      ade_sparse_free(J0);
      ade_seq_free(s);
      ade_cgraph_free(sc);
    }
    ade_cgraph_free(g);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* ------------------------------------------------- sequences as values */

START_TEST(seq_text) {
  double *c = labels(8, 1);
  ade_cgraph *g = graph(2, lx, 4, ly, 8, le, c);
  char path[] = "/tmp/check_elim_seqXXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ade_elim_seq *s = NULL, *l = NULL;
    ck_assert_int_eq(ade_elim_order(g, o, &s), ADE_OK);
    ck_assert_int_eq(ade_seq_save(s, path), ADE_OK);
    ck_assert_msg(ade_seq_load(&l, path) == ADE_OK, "%s", ade_errmsg());
    ck_assert_int_eq(ade_seq_kind(l), ade_seq_kind(s));
    ck_assert_uint_eq(ade_seq_length(l), ade_seq_length(s));
    ck_assert_uint_eq(ade_seq_cost(l), ade_seq_cost(s));
    for (size_t k = 0; k < ade_seq_length(s); k++)
      ck_assert(ade_seq_step(l, k)->a == ade_seq_step(s, k)->a && ade_seq_step(l, k)->b == ade_seq_step(s, k)->b &&
                ade_seq_step(l, k)->dir == ade_seq_step(s, k)->dir);
    int done = 0;
    uint64_t cost = 0;
    ade_cgraph *w = g;
    if (ade_seq_kind(l) == ADE_SEQ_FACE) ck_assert_int_eq(ade_cgraph_dual(&w, g), ADE_OK);
    ck_assert_msg(ade_seq_validate(w, l, &done, &cost) == ADE_OK, "%s", ade_errmsg());
    ck_assert(done);
    ck_assert_uint_eq(cost, ade_seq_cost(s));
    if (w != g) ade_cgraph_free(w);
    ade_seq_free(s);
    ade_seq_free(l);
  }
  ck_assert_int_eq(ade_order_parse("vertex-relative"), ADE_ORDER_VERTEX_RELATIVE);
  ck_assert_int_eq(ade_order_parse("nonsense"), -1);
  /* Malformed text. */
  const char *bad[] = {"", "adelim-sequence 2\n", "adelim-sequence 1\nkind knight\n",
                       "adelim-sequence 1\nkind vertex\ngraph 0\ncost 0\nsteps 2\nvertex 1\n",
                       "adelim-sequence 1\nkind edge\ngraph 0\ncost 0\nsteps 1\nsideways 1 2\n",
                       "adelim-sequence 1\nkind vertex\ngraph 0\ncost 0\nsteps 1\nvertex 1\nvertex 2\n",
                       /* numbers out of range or signed counts (sscanf clamped or wrapped them) */
                       "adelim-sequence 1\nkind face\ngraph 0\ncost 0\nsteps 1\nface 99999999999999999999 2\n",
                       "adelim-sequence 1\nkind vertex\ngraph 0\ncost 0\nsteps -1\n",
                       "adelim-sequence 1\nkind vertex\ngraph 0\ncost 99999999999999999999\nsteps 0\n",
                       "adelim-sequence 1\nkind vertex\ngraph 11112222333344445\ncost 0\nsteps 0\n",
                       "adelim-sequence 1\nkind vertex\ngraph 0\ncost 0\nsteps 1\nvertex 1 2\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    FILE *f = fopen(path, "w");
    fputs(bad[i], f);
    fclose(f);
    ade_elim_seq *l = (ade_elim_seq *)1;
    ck_assert_int_eq(ade_seq_load(&l, path), ADE_EFORMAT);
    ck_assert_ptr_null(l);
  }
  ade_elim_seq *l = NULL;
  ck_assert_int_eq(ade_seq_load(&l, "/nonexistent/seq.txt"), ADE_EIO);
  unlink(path);
  free(c);
  ade_cgraph_free(g);
}
END_TEST

/* ------------------------------------------------------------ bad input */

START_TEST(bad_steps) {
  double *c = labels(8, 2);
  ade_cgraph *g = graph(2, lx, 4, ly, 8, le, c), *d = NULL, *other = NULL;
  ck_assert_int_eq(ade_elim_vertex(g, -1, NULL), ADE_EINVAL);   /* independent */
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "independent"));
  ck_assert_int_eq(ade_elim_vertex(g, 3, NULL), ADE_EINVAL);    /* dependent */
  ck_assert_int_eq(ade_elim_vertex(g, 42, NULL), ADE_EINVAL);   /* no such vertex */
  ck_assert_int_eq(ade_elim_edge(g, 2, 3, ADE_FRONT, NULL), ADE_EINVAL); /* into Y */
  ck_assert_int_eq(ade_elim_edge(g, -1, 1, ADE_BACK, NULL), ADE_EINVAL); /* out of X */
  ck_assert_int_eq(ade_elim_edge(g, -1, 2, ADE_FRONT, NULL), ADE_EINVAL); /* no edge */
  ck_assert_int_eq(ade_elim_face(g, 1, 2, NULL), ADE_EINVAL);   /* not a dual */
  ck_assert_int_eq(ade_cgraph_check(g), ADE_OK);                /* untouched */
  ade_sparse *J = (ade_sparse *)1;
  ck_assert_int_eq(ade_cgraph_jacobian(g, &J), ADE_ESTATE);
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ck_assert_int_eq(ade_elim_face(d, -1, 1, NULL), ADE_EINVAL);  /* X~ face */
  ck_assert_int_eq(ade_elim_face(d, 1, 5, NULL), ADE_EINVAL);   /* no such face */
  ck_assert_int_eq(ade_elim_vertex(d, 1, NULL), ADE_EINVAL);    /* a dual */
  /* A sequence for another graph, a sequence with a bad step. */
  long x[] = {0}, y[] = {4};
  long e[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 2}};
  other = graph(1, x, 1, y, 5, e, NULL);
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_elim_order(g, ADE_ORDER_VERTEX_FORWARD, &s), ADE_OK);
  ck_assert_int_eq(ade_seq_apply(other, s, NULL), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "different graph"));
  ck_assert_int_eq(ade_seq_apply(d, s, NULL), ADE_EINVAL);     /* vertex seq on a dual */
  ade_seq_free(s);
  long bad[] = {1, 1};
  s = vseq(2, bad);
  ck_assert_int_eq(ade_seq_validate(g, s, NULL, NULL), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "step 2"));
  ade_seq_free(s);
  /* Bad edge lists. */
  ade_cgraph *h = NULL;
  long cyc[][2] = {{0, 1}, {1, 2}, {2, 1}, {2, 4}};
  long src[4], dst[4];
  for (int i = 0; i < 4; i++) src[i] = cyc[i][0], dst[i] = cyc[i][1];
  ck_assert_int_eq(ade_cgraph_from_edges(&h, 1, x, 1, y, 4, src, dst, NULL), ADE_ECYCLE);
  src[2] = 4, dst[2] = 1; /* a dependent with an out-edge */
  ck_assert_int_eq(ade_cgraph_from_edges(&h, 1, x, 1, y, 4, src, dst, NULL), ADE_EINVAL);
  src[2] = 1, dst[2] = 1;
  ck_assert_int_eq(ade_cgraph_from_edges(&h, 1, x, 1, y, 4, src, dst, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_cgraph_from_edges(&h, 0, x, 1, y, 4, src, dst, NULL), ADE_EINVAL);
  ck_assert_ptr_null(h);
  ade_cgraph_free(other);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
  free(c);
}
END_TEST

START_TEST(bad_tapes) {
  ade_tape *t = NULL;
  ade_cgraph *g = NULL;
  ade_sparse *J = NULL;
  /* No dependents. */
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_sin(ade_indep(1.0));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "dependents"));
  ck_assert_int_eq(ade_jacobian(t, ADE_ORDER_VERTEX_FORWARD, NULL, &J, NULL), ADE_EINVAL);
  ade_tape_free(t);
  /* No independents. */
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_dep(ade_passive(2.0));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_EINVAL);
  ade_tape_free(t);
  /* A tape still recording; an unknown method. */
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_ESTATE);
  ade_dep(ade_indep(1.0));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_jacobian(t, 99, NULL, &J, NULL), ADE_EINVAL);
  ade_tape_free(t);
}
END_TEST

/* Passive operations, constants, dead code, dependents that are
 * independents, dependents used later and repeated dependents. */
START_TEST(tape_shapes) {
  ade_tape *t = NULL;
  ade_cgraph *g = NULL;
  size_t dropped = 0;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(1.25), b = ade_indep(-0.5), u = ade_indep(3.0);
  ade_double fl = ade_floor(a);                     /* passive */
  ade_double dead = ade_exp(b);                     /* reaches no dependent */
  (void)dead;
  ade_double p = ade_mul(a, a);                     /* parallel edges merge: 2a */
  ade_double q = ade_add(p, ade_mul(fl, b));        /* fl*b: only b's edge */
  ade_dep(q);                                       /* q is used later too */
  ade_double r = ade_sin(q);
  ade_dep(r);
  ade_dep(r);                                       /* the same value twice */
  ade_dep(a);                                       /* an independent */
  ade_dep(fl);                                      /* a passive dependent */
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  (void)u;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, &dropped), ADE_OK);
  ck_assert_int_eq(ade_cgraph_check(g), ADE_OK);
  ck_assert_uint_eq(dropped, 2); /* floor, exp */
  double c;
  size_t xa = g->xv[0];
  ck_assert_int_eq(ade_cgraph_edge(g, g->v[xa].id, g->v[xa].id + 5, &c), ADE_OK); /* a -> p */
  ade_assert_rel(c, 2.5, TOL);
  double Jf[15], *D;
  ade_sparse *J = NULL;
  ck_assert_int_ge(ade_jacobian_dense(t, ADE_FORWARD, NULL, Jf), ADE_OK);
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ck_assert_msg(ade_jacobian(t, o, NULL, &J, NULL) == ADE_OK, "%s", ade_errmsg());
    ck_assert_uint_eq(J->m, 5);
    ck_assert_uint_eq(J->n, 3);
    D = dense(J);
    assert_same(D, Jf, 15, TOL);
    free(D);
    ade_sparse_free(J);
  }
  ade_cgraph_free(g);
  ade_tape_free(t);
}
END_TEST

/* Out of memory at every allocation: ADE_ENOMEM, nothing leaked. */
START_TEST(out_of_memory) {
  double *c = labels(12, 9);
  long src[12], dst[12];
  for (int i = 0; i < 12; i++) src[i] = be[i][0], dst[i] = be[i][1];
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_set_allocator(ade_test_alloc_fn, &a);
      ade_cgraph *g = NULL, *w = NULL;
      ade_elim_seq *s = NULL;
      ade_sparse *J = NULL;
      int st = ade_cgraph_from_edges(&g, 4, bx, 4, by, 12, src, dst, c);
      if (!st) st = ade_elim_order(g, o, &s);
      if (!st) st = ade_seq_kind(s) == ADE_SEQ_FACE ? ade_cgraph_dual(&w, g) : ade_cgraph_copy(&w, g);
      if (!st) st = ade_seq_apply(w, s, NULL);
      if (!st) st = ade_cgraph_jacobian(w, &J);
      ade_sparse_free(J);
      ade_cgraph_free(w);
      ade_cgraph_free(g);
      ade_seq_free(s);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "%s k=%ld: %d", ade_order_name(o), k, st);
      ck_assert_msg(a.live == 0, "%s k=%ld: %ld blocks leaked", ade_order_name(o), k, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
  free(c);
  /* ade_jacobian on a given c-graph (o->graph: copied, or its dual). */
  static const int methods[] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_GREEDY, ADE_ELIM_AUTO,
                                ADE_ELIM_CPR_FORWARD};
  ade_tape *t = motivating_tape();
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  for (size_t q = 0; q < sizeof methods / sizeof *methods; q++) {
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_jacobian_options o = {NULL, 0, NULL, 0, g, NULL, NULL, NULL, 0, 0};
      ade_sparse *J = NULL;
      ade_set_allocator(ade_test_alloc_fn, &a);
      int st = ade_jacobian(t, methods[q], &o, &J, NULL);
      ade_sparse_free(J);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "%s k=%ld: %d", ade_elim_method_name(methods[q]), k, st);
      ck_assert_msg(a.live == 0, "%s k=%ld: %ld blocks leaked", ade_elim_method_name(methods[q]), k, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
  ade_cgraph_free(g);
  ade_tape_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("elim");
  TCase *tc = tcase_create("paper");
  tcase_add_test(tc, motivating_cgraph);
  tcase_add_test(tc, motivating_tape_graph);
  tcase_add_test(tc, motivating_faces);
  tcase_add_test(tc, lion);
  tcase_add_test(tc, bat);
  tcase_add_test(tc, k5);
  tcase_add_test(tc, equivalence);
  suite_add_tcase(s, tc);
  tc = tcase_create("property");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, random_tapes);
  tcase_add_test(tc, jacobian_api);
  tcase_add_test(tc, given_graph);
  tcase_add_test(tc, engine_random);
  suite_add_tcase(s, tc);
  tc = tcase_create("values and errors");
  tcase_add_test(tc, seq_text);
  tcase_add_test(tc, bad_steps);
  tcase_add_test(tc, bad_tapes);
  tcase_add_test(tc, tape_shapes);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
