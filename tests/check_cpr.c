/* check_cpr.c: tests of CPR compression (pattern, colorings, compressed sweeps), the baselines, connected components and DOT output. */
#include <string.h>
#include <unistd.h>

#include "elim_internal.h"
#include "randprog.h"

#define TOL 1e-12

/* ------------------------------------------------------------- helpers */

static double *dense(const ade_sparse *J) {
  size_t len = J->m * J->n;
  double *D = malloc((len ? len : 1) * sizeof *D);
  ck_assert_int_eq(ade_sparse_to_dense(J, D), ADE_OK);
  return D;
}

/* Normwise: |A - B| <= tol max(1, |B|) entry by entry. */
static void assert_close(const double *A, const double *B, size_t len, double tol, const char *what) {
  size_t i = 0; /* one assertion for the lot: Check logs every assertion */
  while (i < len && fabs(A[i] - B[i]) <= tol * fmax(1.0, fabs(B[i]))) i++;
  ck_assert_msg(i == len, "%s: entry %zu = %.17g, want %.17g", what, i, i < len ? A[i] : 0.0, i < len ? B[i] : 0.0);
}

/* The dense forward-mode Jacobian at x (NULL: recorded point). */
static double *forward_jacobian(ade_tape *t, const double *x) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  double *J = malloc((n * m > 0 ? n * m : 1) * sizeof *J);
  ck_assert_int_ge(ade_jacobian_dense(t, ADE_FORWARD, x, J), ADE_OK);
  return J;
}

/* A coloring is CPR-valid: no two items sharing a group have one color. */
static void assert_valid_coloring(const ade_sparse *P, int mode, const size_t *color, size_t nc) {
  size_t nitem = mode == ADE_FORWARD ? P->n : P->m;
  for (size_t j = 0; j < nitem; j++) ck_assert_uint_lt(color[j], nc);
  if (mode == ADE_FORWARD) { /* columns within a row */
    for (size_t i = 0; i < P->m; i++)
      for (size_t a = P->rowptr[i]; a < P->rowptr[i + 1]; a++)
        for (size_t b = a + 1; b < P->rowptr[i + 1]; b++)
          ck_assert_msg(color[P->col[a]] != color[P->col[b]], "columns %zu and %zu share row %zu and a color",
                        P->col[a], P->col[b], i);
    return;
  }
  for (size_t i = 0; i < P->m; i++) /* rows sharing a column */
    for (size_t k = i + 1; k < P->m; k++) {
      if (color[i] != color[k]) continue;
      for (size_t a = P->rowptr[i]; a < P->rowptr[i + 1]; a++)
        for (size_t b = P->rowptr[k]; b < P->rowptr[k + 1]; b++)
          ck_assert_msg(P->col[a] != P->col[b], "rows %zu and %zu share column %zu and a color", i, k, P->col[a]);
    }
}

static ade_sparse *tape_pattern(ade_tape *t) {
  ade_cgraph *g = NULL;
  ade_sparse *P = NULL;
  ck_assert_msg(ade_cgraph_from_tape(&g, t, NULL) == ADE_OK, "%s", ade_errmsg());
  ck_assert_msg(ade_cgraph_pattern(g, &P) == ADE_OK, "%s", ade_errmsg());
  ade_cgraph_free(g);
  return P;
}

static size_t colors_of(const ade_sparse *P, int mode, int order) {
  size_t nc = 0, *color = malloc((P->n + P->m + 1) * sizeof *color);
  ck_assert_int_eq(ade_sparse_color(P, mode, order, color, &nc), ADE_OK);
  assert_valid_coloring(P, mode, color, nc);
  free(color);
  return nc;
}

/* CPR forward and reverse at x agree with dense forward mode; their
 * reports say colors and colors |E|. Returns the column colors. */
static size_t check_cpr(ade_tape *t, const double *x, double tol) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t), cols = 0;
  double *Jf = forward_jacobian(t, x);
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
    ade_sparse *J = NULL;
    ade_jacobian_report r;
    ck_assert_msg(ade_jacobian_cpr(t, mode, x, &J, &r) >= ADE_OK, "cpr %d: %s", mode, ade_errmsg());
    ck_assert_uint_eq(J->m, m);
    ck_assert_uint_eq(J->n, n);
    ck_assert_uint_ge(r.colors, 1);
    ck_assert_uint_le(r.colors, mode == ADE_FORWARD ? n : m);
    ck_assert_uint_eq(r.fma, r.colors * r.edges_before);
    ck_assert_uint_eq(r.forward_cost, n * r.edges_before);
    ck_assert_uint_eq(r.edges_after, J->nnz);
    double *D = dense(J);
    assert_close(D, Jf, n * m, tol, mode == ADE_FORWARD ? "cpr forward" : "cpr reverse");
    free(D);
    if (mode == ADE_FORWARD) cols = r.colors;
    ade_sparse_free(J);
  }
  free(Jf);
  return cols;
}

static ade_tape *begin(void) {
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  return t;
}

static void end(void) { ck_assert_msg(ade_trace_off() == ADE_OK, "%s", ade_errmsg()); }

/* ------------------------------------------------- structured patterns */

/* y_i = x_{i-1} sin(x_i) + x_{i+1}^2 (tridiagonal): 3 column colors. */
static ade_tape *tridiagonal(int n) {
  ade_tape *t = begin();
  ade_double *x = malloc((size_t)n * sizeof *x);
  for (int i = 0; i < n; i++) x[i] = ade_indep(0.3 + 0.11 * i);
  for (int i = 0; i < n; i++) {
    ade_double y = ade_sin(x[i]);
    if (i > 0) y = ade_mul(x[i - 1], y);
    if (i + 1 < n) y = ade_add(y, ade_square(x[i + 1]));
    ade_dep(y);
  }
  end();
  free(x);
  return t;
}

START_TEST(tridiagonal_colors) {
  for (int n = 2; n <= 40; n += 19) {
    ade_tape *t = tridiagonal(n);
    ade_sparse *P = tape_pattern(t);
    ck_assert_uint_eq(P->nnz, (size_t)(3 * n - 2));
    for (size_t i = 0; i < P->m; i++)
      for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) ck_assert_uint_le(labs((long)P->col[k] - (long)i), 1);
    size_t want = n == 2 ? 2 : 3;
    for (int o = ADE_COLOR_NATURAL; o <= ADE_COLOR_BEST; o++) {
      ck_assert_uint_eq(colors_of(P, ADE_FORWARD, o), want);
      ck_assert_uint_eq(colors_of(P, ADE_REVERSE, o), want);
    }
    ck_assert_uint_eq(check_cpr(t, NULL, TOL), want);
    double x[40];
    for (int i = 0; i < n; i++) x[i] = 1.7 - 0.05 * i;
    check_cpr(t, x, TOL);
    ade_sparse_free(P);
    ade_tape_free(t);
  }
}
END_TEST

/* Arrows: y_0 = sum x_j, y_i = sin x_i (a full first row: n column colors,
 * 2 row colors), and y_0 = exp x_0, y_i = x_0 x_i (a full first column: 2
 * column colors, m row colors). */
static ade_tape *arrow(int n, int rows) {
  ade_tape *t = begin();
  ade_double x[64];
  for (int i = 0; i < n; i++) x[i] = ade_indep(0.5 + 0.07 * i);
  if (rows) {
    ade_double s = x[0];
    for (int i = 1; i < n; i++) s = ade_add(s, ade_mul(ade_passive(1.0 + i), x[i]));
    ade_dep(s);
    for (int i = 1; i < n; i++) ade_dep(ade_sin(x[i]));
  } else {
    ade_dep(ade_exp(x[0]));
    for (int i = 1; i < n; i++) ade_dep(ade_mul(x[0], x[i]));
  }
  end();
  return t;
}

START_TEST(arrow_colors) {
  const int n = 33;
  for (int rows = 0; rows < 2; rows++) {
    ade_tape *t = arrow(n, rows);
    ade_sparse *P = tape_pattern(t);
    ck_assert_uint_eq(P->nnz, (size_t)(2 * n - 1));
    ck_assert_uint_eq(colors_of(P, ADE_FORWARD, ADE_COLOR_BEST), rows ? (size_t)n : 2);
    ck_assert_uint_eq(colors_of(P, ADE_REVERSE, ADE_COLOR_BEST), rows ? 2 : (size_t)n);
    ck_assert_uint_eq(colors_of(P, ADE_FORWARD, ADE_COLOR_NATURAL), rows ? (size_t)n : 2);
    ck_assert_uint_eq(check_cpr(t, NULL, TOL), rows ? (size_t)n : 2);
    ade_jacobian_baselines b;
    ade_cgraph *g = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    ck_assert_int_eq(ade_cgraph_baselines(g, &b), ADE_OK);
    ck_assert_uint_eq(b.max_row_nnz, rows ? (size_t)n : 2);
    ck_assert_uint_eq(b.max_col_nnz, rows ? 2 : (size_t)n);
    ck_assert_uint_eq(b.col_colors, rows ? (size_t)n : 2);
    ck_assert_uint_eq(b.row_colors, rows ? 2 : (size_t)n);
    ck_assert_uint_eq(b.cpr_forward, b.col_colors * b.edges);
    ade_cgraph_free(g);
    ade_sparse_free(P);
    ade_tape_free(t);
  }
}
END_TEST

/* Colorings of hand-made patterns: diagonal (1 color), dense (n), and a
 * pattern where natural order needs more colors than largest-first. */
static ade_sparse *pattern(size_t m, size_t n, size_t nnz, const size_t (*e)[2]) {
  ade_sparse *P = NULL;
  ck_assert_int_eq(ade_sparse_create(&P, m, n, nnz, 0), ADE_OK);
  for (size_t k = 0; k < nnz; k++) P->rowptr[e[k][0] + 1]++;
  for (size_t i = 0; i < m; i++) P->rowptr[i + 1] += P->rowptr[i];
  for (size_t k = 0; k < nnz; k++) P->col[k] = e[k][1], P->val[k] = 1.0; /* e is sorted by row */
  return P;
}

START_TEST(colorings) {
  size_t diag[5][2], full[12][2];
  for (size_t i = 0; i < 5; i++) diag[i][0] = diag[i][1] = i;
  for (size_t k = 0; k < 12; k++) full[k][0] = k / 4, full[k][1] = k % 4;
  ade_sparse *P = pattern(5, 5, 5, (const size_t(*)[2])diag);
  ck_assert_uint_eq(colors_of(P, ADE_FORWARD, ADE_COLOR_NATURAL), 1);
  ck_assert_uint_eq(colors_of(P, ADE_REVERSE, ADE_COLOR_LARGEST_FIRST), 1);
  ade_sparse_free(P);
  P = pattern(3, 4, 12, (const size_t(*)[2])full);
  ck_assert_uint_eq(colors_of(P, ADE_FORWARD, ADE_COLOR_BEST), 4);
  ck_assert_uint_eq(colors_of(P, ADE_REVERSE, ADE_COLOR_BEST), 3);
  ade_sparse_free(P);
  /* Column intersection graph: the path 0-2-3-1 (rows {0,2}, {2,3}, {3,1})
   * plus column 4 joined to 2 and 3. Natural order: 0:0, 1:0, 2:1, 3:2, 4:3?
   * No: 4 sees 2 (1) and 3 (2), takes 0. Largest first: 2, 3 first. Both
   * valid; best never exceeds either. */
  const size_t e[][2] = {{0, 0}, {0, 2}, {1, 2}, {1, 3}, {2, 1}, {2, 3}, {3, 2}, {3, 4}, {4, 3}, {4, 4}};
  P = pattern(5, 5, 10, e);
  size_t nat = colors_of(P, ADE_FORWARD, ADE_COLOR_NATURAL), lf = colors_of(P, ADE_FORWARD, ADE_COLOR_LARGEST_FIRST);
  size_t best = colors_of(P, ADE_FORWARD, ADE_COLOR_BEST);
  ck_assert_uint_eq(best, nat < lf ? nat : lf);
  ck_assert_uint_eq(best, 3); /* 2, 3, 4 form a triangle */
  ade_sparse_free(P);
  /* Random patterns: every order gives a valid coloring; best is the least. */
  uint64_t s = 77;
  for (int trial = 0; trial < 200; trial++) {
    size_t m = 1 + ade_test_rand(&s) % 12, n = 1 + ade_test_rand(&s) % 12, k = 0;
    size_t (*r)[2] = malloc(m * n * sizeof *r);
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j++)
        if (ade_test_rand(&s) % 4 == 0) r[k][0] = i, r[k++][1] = j;
    P = pattern(m, n, k, (const size_t(*)[2])r);
    for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
      size_t a = colors_of(P, mode, ADE_COLOR_NATURAL), b = colors_of(P, mode, ADE_COLOR_LARGEST_FIRST);
      ck_assert_uint_eq(colors_of(P, mode, ADE_COLOR_BEST), a < b ? a : b);
    }
    ade_sparse_free(P);
    free(r);
  }
}
END_TEST

/* ------------------------------------------------------ random programs */

/* The pattern is the structure of the eliminated Jacobian and covers every
 * nonzero; CPR in both modes equals forward mode, also at a new point. */
START_TEST(random_tapes) {
  uint64_t rs = 4242;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 6), m = 1 + (int)(ade_test_rand(&rs) % 6);
    int steps = 3 + (int)(ade_test_rand(&rs) % 40);
    randprog p = rp_make(seed * 31, n, m, steps);
    double x[6], x2[6];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&rs, -1.5, 1.5), x2[i] = ade_test_uniform(&rs, -1.5, 1.5);
    ade_tape *t = rp_record(&p, x, NULL);
    ade_sparse *P = tape_pattern(t), *J = NULL;
    ck_assert_msg(ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &J, NULL) == ADE_OK, "%s", ade_errmsg());
    ck_assert_uint_eq(P->nnz, J->nnz);
    for (size_t k = 0; k < P->nnz; k++) ck_assert_uint_eq(P->col[k], J->col[k]);
    for (size_t i = 0; i <= P->m; i++) ck_assert_uint_eq(P->rowptr[i], J->rowptr[i]);
    double *Jf = forward_jacobian(t, NULL), *D = dense(P);
    for (int k = 0; k < n * m; k++)
      if (Jf[k] != 0.0) ck_assert_msg(D[k] == 1.0, "seed %llu: nonzero J[%d] outside the pattern", (unsigned long long)seed, k);
    double tol = 64 * DBL_EPSILON * (double)(steps + 1);
    check_cpr(t, NULL, tol < TOL ? TOL : tol);
    check_cpr(t, x2, 1e-10);
    free(Jf);
    free(D);
    ade_sparse_free(J);
    ade_sparse_free(P);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* The split API: pattern and coloring once, values at many points. */
START_TEST(repeated_values) {
  randprog p = rp_make(99, 5, 4, 60);
  double x[5] = {0.3, -0.2, 1.1, 0.7, -0.9};
  ade_tape *t = rp_record(&p, x, NULL);
  ade_sparse *P = tape_pattern(t);
  size_t color[5], nc;
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
    ck_assert_int_eq(ade_sparse_color(P, mode, ADE_COLOR_BEST, color, &nc), ADE_OK);
    for (int k = 0; k < 5; k++) {
      double xk[5];
      for (int i = 0; i < 5; i++) xk[i] = x[i] + 0.1 * k * (i + 1);
      ck_assert_int_eq(ade_jacobian_cpr_values(t, mode, xk, color, nc, P), ADE_OK);
      double *Jf = forward_jacobian(t, xk), *D = dense(P);
      assert_close(D, Jf, 20, 1e-11, "repeated values");
      free(Jf);
      free(D);
    }
  }
  ade_sparse_free(P);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* ------------------------------------------------------------ baselines */

/* The motivating example of the face-elimination paper: n = m = 2, p = 3,
 * |E| = 7, a dense 2 x 2 Jacobian. [DP]: Cost_DM = min{2 (2 + 3), 2 (2 +
 * 3)} = 10; n^ = m^ = 2, so Cost_NR = 10 too. */
START_TEST(baselines_motivating) {
  const long mx[] = {-1, 0}, my[] = {4, 5}, src[] = {-1, 0, 1, 1, 2, 3, 3}, dst[] = {1, 1, 3, 2, 3, 4, 5};
  ade_cgraph *g = NULL;
  ade_jacobian_baselines b;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 2, mx, 2, my, 7, src, dst, NULL), ADE_OK);
  ck_assert_int_eq(ade_cgraph_baselines(g, &b), ADE_OK);
  ck_assert_uint_eq(b.n, 2);
  ck_assert_uint_eq(b.m, 2);
  ck_assert_uint_eq(b.p, 3);
  ck_assert_uint_eq(b.edges, 7);
  ck_assert_uint_eq(b.nnz, 4);
  ck_assert_uint_eq(b.dense_forward, 14);
  ck_assert_uint_eq(b.dense_reverse, 14);
  ck_assert_uint_eq(b.dm, 10);
  ck_assert_uint_eq(b.max_row_nnz, 2);
  ck_assert_uint_eq(b.max_col_nnz, 2);
  ck_assert_uint_eq(b.nr, 10);
  ck_assert_uint_eq(b.nr_colors, 10);
  ck_assert_uint_eq(b.cpr_forward, 14);
  ade_cgraph_free(g);
}
END_TEST

/* A gradient (m = 1): n^ = n, m^ = 1, so Cost_NR = n + p, as the [DP]
 * table's gradient rows (PDJ: 1 (64 + 1447) = 1511). */
START_TEST(baselines_gradient) {
  ade_tape *t = begin();
  ade_double s = ade_passive(0.0);
  for (int i = 0; i < 10; i++) s = ade_add(s, ade_sin(ade_indep(0.1 * i + 0.05)));
  ade_dep(s);
  end();
  ade_cgraph *g = NULL;
  ade_jacobian_baselines b;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  ck_assert_int_eq(ade_cgraph_baselines(g, &b), ADE_OK);
  ck_assert_uint_eq(b.max_row_nnz, 10);
  ck_assert_uint_eq(b.max_col_nnz, 1);
  ck_assert_uint_eq(b.nr, 10 + b.p);
  ck_assert_uint_eq(b.dm, 10 + b.p);
  ck_assert_uint_eq(b.col_colors, 10);
  ck_assert_uint_eq(b.row_colors, 1);
  ade_cgraph_free(g);
  ade_tape_free(t);
}
END_TEST

/* --------------------------------------------------- connected components */

/* k copies of a small random program on disjoint inputs, on one tape. */
static ade_tape *blocks(const randprog *p, int k, const double *x) {
  ade_tape *t = begin();
  double y[8];
  for (int b = 0; b < k; b++) rp_eval(p, x + b * p->n, y, 1);
  end();
  return t;
}

/* Every ordering on a tape of disjoint blocks costs the sum of the blocks
 * recorded alone; face sequences renumbered into the whole dual apply;
 * the Jacobian is forward mode's. */
START_TEST(components_add_up) {
  for (uint64_t seed = 1; seed <= 12; seed++) {
    randprog p = rp_make(seed * 101, 3, 2, 18 + (int)seed);
    const int k = 1 + (int)(seed % 5);
    double x[3 * 6];
    uint64_t s = seed;
    for (int i = 0; i < 3 * k; i++) x[i] = ade_test_uniform(&s, -1.2, 1.2);
    ade_tape *all = blocks(&p, k, x);
    double *Jf = forward_jacobian(all, NULL);
    ade_cgraph *g = NULL;
    size_t *comp = NULL, nc = 0;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, all, NULL), ADE_OK);
    comp = malloc((g->nv + 1) * sizeof *comp);
    ck_assert_int_eq(ade__cgraph_components(g, comp, &nc), ADE_OK);
    ck_assert_uint_ge(nc, (size_t)k);
    for (int o = 0; o < ADE_ORDER_COUNT; o++) {
      uint64_t sum = 0;
      ade_jacobian_report r;
      ade_sparse *J = NULL;
      for (int b = 0; b < k; b++) {
        ade_tape *one = blocks(&p, 1, x + 3 * b);
        ck_assert_int_eq(ade_jacobian(one, o, NULL, &J, &r), ADE_OK);
        sum += r.fma;
        ade_sparse_free(J);
        ade_tape_free(one);
      }
      ade_jacobian_options opt = {NULL, 1, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
      ck_assert_msg(ade_jacobian(all, o, &opt, &J, &r) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
      ck_assert_msg(r.fma == sum, "seed %llu %s: %llu fma, blocks alone %llu", (unsigned long long)seed,
                    ade_order_name(o), (unsigned long long)r.fma, (unsigned long long)sum);
      double *D = dense(J);
      assert_close(D, Jf, J->m * J->n, 1e-11, ade_order_name(o));
      free(D);
      ade_sparse_free(J);
      ade_elim_seq *sq = NULL;
      int done = 0;
      ck_assert_int_eq(ade_elim_order(g, o, &sq), ADE_OK);
      if (ade_seq_kind(sq) == ADE_SEQ_FACE) {
        ade_cgraph *d = NULL;
        ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
        ck_assert_msg(ade_seq_validate(d, sq, &done, NULL) == ADE_OK, "%s", ade_errmsg());
        ade_cgraph_free(d);
      } else {
        ck_assert_msg(ade_seq_validate(g, sq, &done, NULL) == ADE_OK, "%s", ade_errmsg());
      }
      ck_assert(done);
      ck_assert_uint_eq(ade_seq_cost(sq), sum);
      ade_seq_free(sq);
    }
    free(comp);
    ade_cgraph_free(g);
    free(Jf);
    ade_tape_free(all);
    rp_free(&p);
  }
}
END_TEST

/* Many components: the greedy orderings (a scan of all candidates per
 * step) stay linear in the number of blocks; this would take minutes on
 * the whole graph. */
START_TEST(many_components) {
  randprog p = rp_make(5, 4, 3, 30);
  const int k = 600;
  double *x = malloc(4 * k * sizeof *x);
  uint64_t s = 3;
  for (int i = 0; i < 4 * k; i++) x[i] = ade_test_uniform(&s, -1.0, 1.0);
  ade_tape *t = blocks(&p, k, x);
  double *Jf = forward_jacobian(t, NULL);
  const int ords[] = {ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_GREEDY, ADE_ORDER_FACE_FORWARD, ADE_ORDER_VERTEX_RELATIVE};
  for (int i = 0; i < 4; i++) {
    ade_sparse *J = NULL;
    ade_jacobian_report r;
    ck_assert_msg(ade_jacobian(t, ords[i], NULL, &J, &r) == ADE_OK, "%s", ade_errmsg());
    ck_assert_msg(r.seconds < 10.0, "%s took %.1f s", ade_order_name(ords[i]), r.seconds);
    double *D = dense(J);
    assert_close(D, Jf, J->m * J->n, 1e-11, ade_order_name(ords[i]));
    free(D);
    ade_sparse_free(J);
  }
  check_cpr(t, NULL, 1e-11);
  free(Jf);
  free(x);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* --------------------------------------------------------------- plans */

/* A plan gives ade_jacobian's Jacobian bit for bit and its fma, for every
 * ordering and for a saved sequence; at a new point forward mode's. */
static void check_plan(ade_tape *t, int o, const ade_jacobian_options *opt, const double *x2, const double *Jf2) {
  ade_sparse *J = NULL, *P = NULL;
  ade_jacobian_report r, pr;
  ade_elim_plan *plan = NULL;
  ck_assert_msg(ade_jacobian(t, o, opt, &J, &r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_msg(ade_elim_plan_create(&plan, t, o, opt, &pr) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
  ck_assert_uint_eq(pr.fma, r.fma);
  ck_assert_uint_eq(ade_elim_plan_fma(plan), r.fma);
  ck_assert_uint_eq(pr.edges_after, J->nnz);
  ck_assert_int_eq(ade_elim_plan_pattern(plan, &P), ADE_OK);
  ck_assert_uint_eq(P->nnz, J->nnz);
  ck_assert(!memcmp(P->rowptr, J->rowptr, (J->m + 1) * sizeof *J->rowptr));
  ck_assert(!memcmp(P->col, J->col, J->nnz * sizeof *J->col));
  for (int rep = 0; rep < 2; rep++) {
    ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, NULL, P), ADE_OK);
    size_t k = 0; /* equal values (a zero's sign may differ: 0 + -0 is +0) */
    while (k < J->nnz && P->val[k] == J->val[k]) k++;
    ck_assert_msg(k == J->nnz, "%s: plan value %zu is %.17g, not %.17g", ade_order_name(o), k, P->val[k], J->val[k]);
  }
  ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, x2, P), ADE_OK);
  double *D = dense(P);
  assert_close(D, Jf2, P->m * P->n, 1e-10, "plan at a new point");
  free(D);
  ade_sparse_free(P);
  ade_sparse_free(J);
  ade_elim_plan_free(plan);
}

START_TEST(plans) {
  uint64_t rs = 777;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    randprog p = rp_make(seed * 53, n, m, 3 + (int)(ade_test_rand(&rs) % 35));
    double x[5], x2[5];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&rs, -1.5, 1.5), x2[i] = ade_test_uniform(&rs, -1.5, 1.5);
    ade_tape *t = seed % 3 ? rp_record(&p, x, NULL) : blocks(&p, 1, x);
    double *Jf2 = forward_jacobian(t, x2);
    for (int o = 0; o < ADE_ORDER_COUNT; o++) check_plan(t, o, NULL, x2, Jf2);
    ade_cgraph *g = NULL;
    ade_elim_seq *sq = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    ck_assert_int_eq(ade_elim_order(g, (int)(seed % ADE_ORDER_COUNT), &sq), ADE_OK);
    ade_jacobian_options opt = {sq, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
    check_plan(t, 0, &opt, x2, Jf2);
    ade_seq_free(sq);
    ade_cgraph_free(g);
    free(Jf2);
    ade_tape_free(t);
    rp_free(&p);
  }
  /* Several components, and a face sequence renumbered across them. */
  randprog p = rp_make(8, 3, 2, 25);
  double x[12], x2[12];
  for (int i = 0; i < 12; i++) x[i] = 0.1 * i - 0.4, x2[i] = 0.3 - 0.07 * i;
  ade_tape *t = blocks(&p, 4, x);
  double *Jf2 = forward_jacobian(t, x2);
  for (int o = 0; o < ADE_ORDER_COUNT; o++) check_plan(t, o, NULL, x2, Jf2);
  free(Jf2);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* A plan refuses another tape and a J of another shape. */
/* Equal values (a zero's sign may differ: 0 + -0 is +0). */
static void same_values(const ade_sparse *P, const ade_sparse *J, const char *what, int o) {
  ck_assert_uint_eq(P->nnz, J->nnz);
  size_t k = 0;
  while (k < J->nnz && P->val[k] == J->val[k]) k++;
  ck_assert_msg(k == J->nnz, "%s, %s: plan value %zu is %.17g, not %.17g", what, ade_order_name(o), k, P->val[k],
                J->val[k]);
}

/* k copies of p on disjoint inputs, the one at k / 2 replaced by q's. */
static ade_tape *mixed_blocks(const randprog *p, const randprog *q, int k, const double *x) {
  ade_tape *t = begin();
  double y[8];
  for (int b = 0; b < k; b++) rp_eval(b == k / 2 ? q : p, x + b * p->n, y, 1);
  end();
  return t;
}

/* Lane groups (plan.c): components whose steps are the same program on
 * their own slots run 4 at a time through one template. Tapes of 4 to 12
 * copies of a random program (one of them another program's): every
 * ordering's plan gives ade_jacobian's values at the recorded point and,
 * at a new point, the values ade_jacobian gives on the tape recorded there
 * (the same arithmetic in the same order; the elimination, not the plan),
 * also through the chunks beyond the memory limit; forward mode's
 * Jacobian there; and batches are made. */
START_TEST(lane_groups) {
  uint64_t rs = 4242;
  size_t batches = 0, vf_batches = 0;
  for (uint64_t seed = 1; seed <= 12; seed++) {
    randprog p = rp_make(seed * 31, 3, 2, 8 + (int)(seed * 7 % 25)), q = rp_make(seed * 37 + 5, 3, 2, 12);
    const int k = 4 + (int)(seed % 9);
    double x[3 * 12], x2[3 * 12];
    for (int i = 0; i < 3 * k; i++) x[i] = ade_test_uniform(&rs, -1.2, 1.2), x2[i] = ade_test_uniform(&rs, -1.2, 1.2);
    ade_tape *t = mixed_blocks(&p, &q, k, x), *t2 = mixed_blocks(&p, &q, k, x2);
    double *Jf2 = forward_jacobian(t, x2);
    for (int o = 0; o < ADE_ORDER_COUNT; o++) {
      ade_elim_plan *plan = NULL;
      ade_sparse *P = NULL, *J = NULL, *J2 = NULL;
      ade__planinfo info;
      ck_assert_msg(ade_elim_plan_create(&plan, t, o, NULL, NULL) == ADE_OK, "%s", ade_errmsg());
      ade__plan_info(plan, &info);
      batches += info.nbatch;
      if (o == ADE_ORDER_VERTEX_FORWARD) vf_batches += info.nbatch;
      ck_assert_int_eq(ade_elim_plan_pattern(plan, &P), ADE_OK);
      ck_assert_int_eq(ade_jacobian(t, o, NULL, &J, NULL), ADE_OK);
      ck_assert_int_eq(ade_jacobian(t2, o, NULL, &J2, NULL), ADE_OK);
      ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, NULL, P), ADE_OK);
      same_values(P, J, "recorded point", o);
      for (int rep = 0; rep < 2; rep++) { /* the second run: the plan's map of the resident form */
        ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, x2, P), ADE_OK);
        same_values(P, J2, "new point", o);
      }
      /* no resident form, no value array: partials chunk by chunk (load_inputs), the same bits */
      double *v = malloc(P->nnz * sizeof *v + 1);
      memcpy(v, P->val, P->nnz * sizeof *v);
      ade_tape_set_memory_limit(t, 0);
      ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, x2, P), ADE_OK);
      ade_tape_set_memory_limit(t, (size_t)256 << 20);
      ck_assert_mem_eq(v, P->val, P->nnz * sizeof *v);
      free(v);
      double *D = dense(P);
      assert_close(D, Jf2, P->m * P->n, 1e-10, "lane groups at a new point");
      free(D);
      ade_sparse_free(P), ade_sparse_free(J), ade_sparse_free(J2);
      ade_elim_plan_free(plan);
    }
    free(Jf2);
    ade_tape_free(t), ade_tape_free(t2);
    rp_free(&p), rp_free(&q);
  }
  /* vertex-forward eliminates in tape order: each copy's steps together */
  ck_assert_uint_ge(vf_batches, 12);
  ck_assert_uint_gt(batches, vf_batches);
}
END_TEST

START_TEST(plan_errors) {
  ade_tape *t = tridiagonal(6), *u = tridiagonal(7);
  ade_elim_plan *plan = NULL;
  ade_sparse *J = NULL, *K = NULL;
  ck_assert_int_eq(ade_elim_plan_create(NULL, t, 0, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_elim_plan_create(&plan, t, 99, NULL, NULL), ADE_EINVAL);
  ck_assert_ptr_null(plan);
  ck_assert_int_eq(ade_elim_plan_create(&plan, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_pattern(plan, &J), ADE_OK);
  ck_assert_int_eq(ade_elim_plan_jacobian(plan, u, NULL, J), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "compiled for a tape"));
  K = tape_pattern(u);
  ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, NULL, K), ADE_EINVAL);
  ck_assert_int_eq(ade_elim_plan_jacobian(plan, t, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_elim_plan_pattern(NULL, &J), ADE_EINVAL);
  ck_assert_uint_eq(ade_elim_plan_fma(NULL), 0);
  ade_elim_plan_free(NULL);
  ade_sparse_free(K);
  ade_sparse_free(J);
  ade_elim_plan_free(plan);
  ade_tape_free(u);
  ade_tape_free(t);
}
END_TEST

/* ------------------------------------------------------------------ DOT */

static char *dot_text(const ade_cgraph *g) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ade_cgraph_print_dot(g, f), ADE_OK);
  long len = ftell(f);
  char *s = calloc((size_t)len + 1, 1);
  rewind(f);
  ck_assert_uint_eq(fread(s, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  return s;
}

START_TEST(dot_output) {
  const long mx[] = {-1, 0}, my[] = {4, 5}, src[] = {-1, 0, 1, 1, 2, 3, 3}, dst[] = {1, 1, 3, 2, 3, 4, 5};
  const double val[] = {0.7, 1.3, 0.25, 0.5, 2.0, -1.5, 3.125};
  ade_cgraph *g = NULL, *d = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 2, mx, 2, my, 7, src, dst, val), ADE_OK);
  char *s = dot_text(g);
  ck_assert_ptr_nonnull(strstr(s, "digraph cgraph {"));
  ck_assert_ptr_nonnull(strstr(s, "\"-1\" [shape=box]"));
  ck_assert_ptr_nonnull(strstr(s, "\"2\" [shape=circle]"));
  ck_assert_ptr_nonnull(strstr(s, "\"5\" [shape=doublecircle]"));
  ck_assert_ptr_nonnull(strstr(s, "\"3\" -> \"5\" [label=\"3.12\"];"));
  ck_assert_ptr_nonnull(strstr(s, "\"-1\" -> \"1\" [label=\"0.7\"];"));
  size_t arrows = 0;
  for (const char *q = s; (q = strstr(q, " -> ")); q++) arrows++;
  ck_assert_uint_eq(arrows, 7);
  free(s);
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  s = dot_text(d);
  ck_assert_ptr_nonnull(strstr(s, "digraph dual_cgraph {"));
  ck_assert_ptr_nonnull(strstr(s, "\"7\" [shape=circle, label=\"7\\n3.12\"]"));
  ck_assert_ptr_nonnull(strstr(s, "\"8\" [shape=doublecircle]"));
  arrows = 0;
  for (const char *q = s; (q = strstr(q, " -> ")); q++) arrows++;
  ck_assert_uint_eq(arrows, 2 + 9 + 2);
  free(s);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
}
END_TEST

/* --------------------------------------------------------------- errors */

START_TEST(bad_arguments) {
  ade_tape *t = tridiagonal(5), *u = NULL;
  ade_sparse *P = tape_pattern(t), *J = NULL;
  size_t color[8] = {0}, nc = 0;
  ade_cgraph *g = NULL, *d = NULL;
  ck_assert_int_eq(ade_cgraph_pattern(NULL, &P), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_color(NULL, ADE_FORWARD, 0, color, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_color(P, 7, 0, color, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_color(P, ADE_FORWARD, 9, color, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_color(P, ADE_FORWARD, 0, NULL, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_cpr(t, 5, NULL, &J, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_cpr(t, ADE_FORWARD, NULL, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_sparse_color(P, ADE_FORWARD, 0, color, &nc), ADE_OK);
  ck_assert_int_eq(ade_jacobian_cpr_values(t, ADE_FORWARD, NULL, color, nc - 1, P), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "color"));
  ck_assert_int_eq(ade_jacobian_cpr_values(NULL, ADE_FORWARD, NULL, color, nc, P), ADE_EINVAL);
  P->col[1] = 99; /* an entry outside the columns */
  ck_assert_int_eq(ade_sparse_color(P, ADE_FORWARD, 0, color, &nc), ADE_EINVAL);
  ck_assert_int_eq(ade_jacobian_cpr_values(t, ADE_FORWARD, NULL, color, nc, P), ADE_EINVAL);
  ade_sparse_free(P);
  /* A pattern of another shape. */
  ade_tape *t2 = tridiagonal(6);
  P = tape_pattern(t2);
  ck_assert_int_eq(ade_sparse_color(P, ADE_FORWARD, 0, color, &nc), ADE_OK);
  ck_assert_int_eq(ade_jacobian_cpr_values(t, ADE_FORWARD, NULL, color, nc, P), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "6 x 6"));
  ade_sparse_free(P);
  ade_tape_free(t2);
  /* Duals, NULLs. */
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ck_assert_int_eq(ade_cgraph_pattern(d, &P), ADE_EINVAL);
  ade_jacobian_baselines b;
  ck_assert_int_eq(ade_cgraph_baselines(d, &b), ADE_EINVAL);
  ck_assert_int_eq(ade_cgraph_baselines(g, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_cgraph_print_dot(g, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_cgraph_print_dot(NULL, stdout), ADE_EINVAL);
  /* A tape still recording; one without dependents. */
  ck_assert_int_eq(ade_tape_create(&u, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(u), ADE_OK);
  ck_assert_int_eq(ade_jacobian_cpr(u, ADE_FORWARD, NULL, &J, NULL), ADE_ESTATE);
  ade_sin(ade_indep(1.0));
  end();
  ck_assert_int_eq(ade_jacobian_cpr(u, ADE_REVERSE, NULL, &J, NULL), ADE_EINVAL);
  ck_assert_ptr_null(J);
  ade_tape_free(u);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
  ade_tape_free(t);
}
END_TEST

/* Out of memory at every allocation of CPR, the baselines, a split
 * ordering and plans: ADE_ENOMEM, nothing leaked. */
START_TEST(out_of_memory) {
  randprog p = rp_make(17, 2, 2, 12);
  double x[8] = {0.4, -0.3, 1.1, 0.8, -0.6, 0.2, 0.7, -0.9};
  for (int what = 0; what < 6; what++) {
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_set_allocator(ade_test_alloc_fn, &a);
      ade_tape *t = NULL;
      ade_sparse *J = NULL;
      ade_cgraph *g = NULL;
      ade_elim_seq *s = NULL;
      ade_jacobian_baselines b;
      double y[2];
      int st = ade_tape_create(&t, NULL);
      if (!st) {
        st = ade_trace_on(t);
        for (int blk = 0; blk < (what == 4 ? 4 : 3); blk++) rp_eval(&p, x + 2 * blk, y, 1); /* 4: a lane group */
        int off = ade_trace_off();
        st = st ? st : off;
      }
      if (!st && what < 2) st = ade_jacobian_cpr(t, what, what ? x : NULL, &J, NULL);
      if (!st && (what == 2 || what == 3)) st = ade_cgraph_from_tape(&g, t, NULL);
      if (!st && what == 2) st = ade_cgraph_baselines(g, &b);
      if (!st && what == 3) st = ade_elim_order(g, ADE_ORDER_FACE_GREEDY, &s);
      if (!st && what >= 4) { /* a plan, then its Jacobian at the recorded point and at x */
        ade_elim_plan *plan = NULL;
        st = ade_elim_plan_create(&plan, t, what == 4 ? ADE_ORDER_VERTEX_MARKOWITZ : ADE_ORDER_FACE_GREEDY, NULL, NULL);
        ade__planinfo info = {0};
        if (!st) ade__plan_info(plan, &info);
        if (!st && what == 4) ck_assert_uint_eq(info.nbatch, 1);
        if (!st) st = ade_elim_plan_pattern(plan, &J);
        if (!st) st = ade_elim_plan_jacobian(plan, t, NULL, J);
        if (!st) st = ade_elim_plan_jacobian(plan, t, x, J);
        ade_elim_plan_free(plan);
      }
      ade_seq_free(s);
      ade_cgraph_free(g);
      ade_sparse_free(J);
      ade_tape_free(t);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "what %d k=%ld: %d %s", what, k, st, ade_errmsg());
      ck_assert_msg(a.live == 0, "what %d k=%ld: %ld blocks leaked", what, k, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
  rp_free(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cpr");
  TCase *tc = tcase_create("compression");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, tridiagonal_colors);
  tcase_add_test(tc, arrow_colors);
  tcase_add_test(tc, colorings);
  tcase_add_test(tc, random_tapes);
  tcase_add_test(tc, repeated_values);
  suite_add_tcase(s, tc);
  tc = tcase_create("baselines and components");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, baselines_motivating);
  tcase_add_test(tc, baselines_gradient);
  tcase_add_test(tc, components_add_up);
  tcase_add_test(tc, many_components);
  tcase_add_test(tc, dot_output);
  tcase_add_test(tc, plans);
  tcase_add_test(tc, lane_groups);
  tcase_add_test(tc, plan_errors);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
