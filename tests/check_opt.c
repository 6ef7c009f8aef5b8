/* check_opt.c: tests of the optimizers: exhaustive oracle, branch and bound, hierarchies, annealing, dynamic programming, chain bracketing. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "opt_internal.h"
#include "testutil.h"

#define TOL 1e-12

/* ------------------------------------------------------------- helpers */

static ade_cgraph *graph(size_t n, const long *x, size_t m, const long *y, size_t ne, const long (*e)[2],
                         uint64_t seed) {
  long *src = malloc((ne + 1) * sizeof *src), *dst = malloc((ne + 1) * sizeof *dst);
  double *val = malloc((ne + 1) * sizeof *val);
  for (size_t k = 0; k < ne; k++) src[k] = e[k][0], dst[k] = e[k][1], val[k] = ade_test_uniform(&seed, 0.5, 1.5);
  ade_cgraph *g = NULL;
  int st = ade_cgraph_from_edges(&g, n, x, m, y, ne, src, dst, val);
  ck_assert_msg(st == ADE_OK, "from_edges: %s", ade_errmsg());
  free(src);
  free(dst);
  free(val);
  return g;
}

/* Forward mode on the c-graph itself: tangents propagated in topological
 * order (ids are topological in these tests), one direction per column. */
static double *forward_jacobian(const ade_cgraph *g) {
  size_t nv = g->nv;
  double *J = calloc(g->m * g->n + 1, sizeof *J), *t = malloc((nv + 1) * sizeof *t);
  for (size_t j = 0; j < g->n; j++) {
    for (size_t v = 0; v < nv; v++) {
      const ade__vtx *x = &g->v[v];
      t[v] = x->kind == ADE__X ? (x->aux == j) : 0.0;
      for (size_t k = 0; k < x->nin; k++) t[v] += g->e[x->in[k]].val * t[g->e[x->in[k]].src];
    }
    for (size_t i = 0; i < g->m; i++) J[i * g->n + j] = t[g->yv[i]];
  }
  free(t);
  return J;
}

/* Apply s step by step to a copy of g (or its dual): every step's cost is
 * what the engine counted, invariants hold; the result is complete and its
 * Jacobian is forward mode's. Returns the total. */
static uint64_t check_seq(const ade_cgraph *g, const ade_elim_seq *s, const char *what) {
  ade_cgraph *w = NULL;
  uint64_t total = 0, c;
  int st = ade_seq_kind(s) == ADE_SEQ_FACE ? ade_cgraph_dual(&w, g) : ade_cgraph_copy(&w, g);
  ck_assert_int_eq(st, ADE_OK);
  for (size_t k = 0; k < ade_seq_length(s); k++) {
    uint64_t before = w->fma;
    st = ade__seq_apply_step(w, ade_seq_kind(s), ade_seq_step(s, k), &c);
    ck_assert_msg(st == ADE_OK, "%s: step %zu: %s", what, k + 1, ade_errmsg());
    ck_assert_uint_eq(w->fma - before, c);
    total += c;
  }
  ck_assert_msg(ade_cgraph_check(w) == ADE_OK, "%s: %s", what, ade_errmsg());
  ade_sparse *J = NULL;
  ck_assert_msg(ade_cgraph_jacobian(w, &J) == ADE_OK, "%s: incomplete: %s", what, ade_errmsg());
  double *D = calloc(g->m * g->n + 1, sizeof *D), *F = forward_jacobian(g);
  ck_assert_int_eq(ade_sparse_to_dense(J, D), ADE_OK);
  for (size_t i = 0; i < g->m * g->n; i++) ade_assert_rel(D[i], F[i], 1e-11);
  ck_assert_msg(total == ade_seq_cost(s), "%s: applied %llu, claimed %llu", what, (unsigned long long)total,
                (unsigned long long)ade_seq_cost(s));
  free(D);
  free(F);
  ade_sparse_free(J);
  ade_cgraph_free(w);
  return total;
}

/* Optimize, check the sequence, return its cost. */
static uint64_t opt(const ade_cgraph *g, int kind, int method, const ade_opt_limits *l, ade_opt_report *rep) {
  ade_elim_seq *s = NULL;
  ade_opt_report r;
  int st = ade_optimize(g, kind, method, l, &s, &r);
  ck_assert_msg(st == ADE_OK, "%s kind %d: %s", ade_opt_name(method), kind, ade_errmsg());
  ck_assert_int_le(ade_seq_kind(s), kind); /* or a less general kind: the same fma (ade_optimize) */
  uint64_t c = check_seq(g, s, ade_opt_name(method));
  ck_assert_uint_eq(c, r.cost);
  ck_assert_uint_le(r.bound, r.cost);
  if (r.optimal) ck_assert_uint_eq(r.bound, r.cost);
  if (rep) *rep = r;
  ade_seq_free(s);
  return c;
}

static uint64_t optimum(const ade_cgraph *g, int kind) {
  ade_opt_report r;
  uint64_t c = opt(g, kind, ADE_OPT_EXHAUSTIVE, NULL, &r);
  ck_assert(r.optimal);
  return c;
}

/* threads < 0: one thread and no state table (commuting steps are then
 * cut by the commutation rule). */
/* The plain shortest path (no bounds), checking on every state solved that
 * the lower bound of opt_bound.c does not exceed the true cost. */
static uint64_t pure_optimum(const ade_cgraph *g, int kind) {
  ade_opt_limits l;
  ade_opt_report r;
  ade_elim_seq *s = NULL;
  uint64_t bad = 1;
  ade_opt_limits_init(&l);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ade__exhaustive(g, kind, &l, 0, 1, &s, &r, &bad), ADE_OK);
  ck_assert(r.optimal);
  ck_assert_uint_eq(bad, 0);
  uint64_t c;
  ck_assert_int_eq(ade__seq_finish(g, s, &c), ADE_OK);
  c = check_seq(g, s, "pure exhaustive");
  ck_assert_uint_eq(c, r.cost);
  ade_seq_free(s);
  return c;
}

static uint64_t bnb(const ade_cgraph *g, int kind, int threads) {
  ade_opt_limits l;
  ade_opt_report r;
  ade_opt_limits_init(&l);
  l.threads = threads < 0 ? 1 : threads;
  l.memory_limit = threads < 0 ? 1 : 0;
  uint64_t c = opt(g, kind, ADE_OPT_BNB, &l, &r);
  ck_assert(r.optimal && !r.limited);
  return c;
}

static uint64_t order_cost(const ade_cgraph *g, int order) {
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_elim_order(g, order, &s), ADE_OK);
  uint64_t c = ade_seq_cost(s);
  ade_seq_free(s);
  return c;
}

/* ---------------------------------------------------------- the papers */

static const long lx[] = {-1, 0}, ly[] = {3, 4, 5, 6};
static const long le[][2] = {{-1, 1}, {0, 1}, {1, 2}, {1, 6}, {2, 3}, {2, 4}, {2, 5}, {2, 6}};

/* Face-elimination paper, Proposition 1 and Lemma 12: the lion. */
START_TEST(lion) {
  ade_cgraph *g = graph(2, lx, 4, ly, 8, le, 11);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_VERTEX), 12);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_EDGE), 11);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_VERTEX, 1), 12);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_EDGE, 1), 11);
  ck_assert_uint_le(optimum(g, ADE_SEQ_FACE), 11);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_FACE, 1), optimum(g, ADE_SEQ_FACE));
  /* Lemma 12: only back elimination of (2,6) first leads to 11. */
  for (int method = ADE_OPT_EXHAUSTIVE; method <= ADE_OPT_BNB; method++) {
    ade_elim_seq *s = NULL;
    ck_assert_int_eq(ade_optimize(g, ADE_SEQ_EDGE, method, NULL, &s, NULL), ADE_OK);
    const ade_elim_step *st = ade_seq_step(s, 0);
    ck_assert(st->a == 2 && st->b == 6 && st->dir == ADE_BACK);
    ade_seq_free(s);
  }
  ade_cgraph_free(g);
}
END_TEST

static const long bx[] = {-3, -2, -1, 0}, by[] = {4, 5, 6, 7};
static const long be[][2] = {{-3, 1}, {-2, 1}, {-1, 2}, {0, 2}, {1, 3}, {2, 3},
                             {3, 4},  {3, 5},  {3, 6},  {3, 7}, {1, 4}, {2, 7}};

/* Proposition 2: the bat: faces 22, edges 23. */
START_TEST(bat) {
  ade_cgraph *g = graph(4, bx, 4, by, 12, be, 5);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_FACE), 22);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_EDGE), 23);
  ck_assert_uint_gt(optimum(g, ADE_SEQ_VERTEX), 23);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_FACE, 1), 22);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_EDGE, 1), 23);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_VERTEX, 1), optimum(g, ADE_SEQ_VERTEX));
  ade_cgraph_free(g);
}
END_TEST

/* Section 2: v1 = v-1 v0; v2 = sin v1; v3 = v1 v2; v4 = cos v3; v5 = exp v3. */
START_TEST(motivating) {
  static const long x[] = {-1, 0}, y[] = {4, 5};
  static const long e[][2] = {{-1, 1}, {0, 1}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {3, 5}};
  ade_cgraph *g = graph(2, x, 2, y, 7, e, 3);
  for (int k = ADE_SEQ_VERTEX; k <= ADE_SEQ_FACE; k++) {
    ck_assert_uint_eq(optimum(g, k), 7);
    ck_assert_uint_eq(bnb(g, k, 1), 7);
  }
  ade_cgraph_free(g);
}
END_TEST

/* DP paper, Figure 6: V_LM eliminates like V_F (22), V_LR like V_B (18,
 * the optimum): dd = 6, 9, 9; Markowitz degrees 4, 6, 6, then 8 and 6. */
START_TEST(relative_markowitz) {
  static const long x[] = {-2, -1, 0}, y[] = {4, 5, 6};
  static const long e[][2] = {{-2, 2}, {-2, 3}, {-1, 1}, {0, 1}, {1, 2}, {1, 3},
                              {2, 4},  {2, 5},  {2, 6},  {3, 4}, {3, 5}, {3, 6}};
  ade_cgraph *g = graph(3, x, 3, y, 12, e, 7);
  ck_assert_uint_eq(order_cost(g, ADE_ORDER_VERTEX_MARKOWITZ), 22);
  ck_assert_uint_eq(order_cost(g, ADE_ORDER_VERTEX_FORWARD), 22);
  ck_assert_uint_eq(order_cost(g, ADE_ORDER_VERTEX_RELATIVE), 18);
  ck_assert_uint_eq(order_cost(g, ADE_ORDER_VERTEX_REVERSE), 18);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_VERTEX), 18);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_VERTEX, 1), 18);
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  l.hierarchy = "relative,forward";
  ck_assert_uint_eq(opt(g, ADE_SEQ_VERTEX, ADE_OPT_HIERARCHY, &l, NULL), 18);
  /* the filters alone make V_LM's 22; the optimizer returns the cheaper
   * reverse sweep (n = m: both vector modes' sweeps are counted) */
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade__opt_hierarchy_raw(g, ADE_SEQ_VERTEX, "markowitz,forward", NULL, 0, &s, NULL), ADE_OK);
  ck_assert_uint_eq(ade_seq_cost(s), 22);
  ade_seq_free(s);
  l.hierarchy = "markowitz,forward";
  ck_assert_uint_eq(opt(g, ADE_SEQ_VERTEX, ADE_OPT_HIERARCHY, &l, NULL), 18);
  ade_cgraph_free(g);
}
END_TEST

/* -------------------------------------------------------- random graphs */

/* A random c-graph: n independents 1-n..0, p intermediates 1..p, m
 * dependents p+1..p+m; every intermediate has a predecessor and a
 * successor, every dependent a predecessor; ids are topological. */
static ade_cgraph *random_graph(uint64_t *rs, size_t n, size_t p, size_t m, double dens, size_t *nedges) {
  long x[8], y[8], (*e)[2] = malloc(256 * sizeof *e);
  size_t ne = 0, nid = n + p + m;
  for (size_t i = 0; i < n; i++) x[i] = (long)i + 1 - (long)n;
  for (size_t i = 0; i < m; i++) y[i] = (long)(p + 1 + i);
  for (size_t t = n; t < nid; t++) { /* vertex t-n+1: predecessors among the earlier ones */
    long id = (long)t + 1 - (long)n;
    size_t lim = t < n + p ? t : n + p, first = ne;
    for (size_t s = 0; s < lim; s++)
      if (ade_test_uniform(rs, 0, 1) < dens) e[ne][0] = (long)s + 1 - (long)n, e[ne++][1] = id;
    if (ne == first) e[ne][0] = (long)(ade_test_rand(rs) % lim) + 1 - (long)n, e[ne++][1] = id;
  }
  for (size_t j = 1; j <= p; j++) { /* successors */
    int has = 0;
    for (size_t k = 0; k < ne; k++) has |= e[k][0] == (long)j;
    if (!has) e[ne][0] = (long)j, e[ne++][1] = (long)(j + 1 + ade_test_rand(rs) % (p + m - j));
  }
  long src[256], dst[256];
  double val[256];
  for (size_t k = 0; k < ne; k++) src[k] = e[k][0], dst[k] = e[k][1], val[k] = ade_test_uniform(rs, 0.5, 1.5);
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&g, n, x, m, y, ne, src, dst, val) == ADE_OK, "%s", ade_errmsg());
  free(e);
  *nedges = g->nedges;
  return g;
}

/* Every heuristic the library has for a kind, as costs. */
static uint64_t heuristics_min(const ade_cgraph *g, int kind, uint64_t opt_cost) {
  static const char *const vh[] = {"sibling,succpred,markowitz,reverse", "markowitz,forward", "relative,reverse",
                                   "fillin,markowitz,forward", "succpred,sibling,relative,forward"};
  static const char *const eh[] = {"sibling,markowitz,reverse", "markowitz,fillin,forward", "fillin,reverse",
                                   "sibling,fillin,markowitz,forward"};
  static const char *const fh[] = {"absorb,cost,forward", "cost,reverse", "absorb,reverse"};
  const char *const *hs = kind == ADE_SEQ_VERTEX ? vh : kind == ADE_SEQ_EDGE ? eh : fh;
  size_t nh = kind == ADE_SEQ_VERTEX ? 5 : kind == ADE_SEQ_EDGE ? 4 : 3;
  uint64_t best = UINT64_MAX;
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  for (size_t i = 0; i < nh; i++) {
    l.hierarchy = hs[i];
    uint64_t c = opt(g, kind, ADE_OPT_HIERARCHY, &l, NULL);
    ck_assert_uint_ge(c, opt_cost);
    best = c < best ? c : best;
  }
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    int k = ade_order_kind(o);
    if (k != kind) continue;
    uint64_t c = order_cost(g, o);
    ck_assert_uint_ge(c, opt_cost);
    best = c < best ? c : best;
  }
  return best;
}

/* One random graph: B&B equals the oracle (with and without its state
 * table); the bounded oracle equals the plain one, which checks the lower
 * bound on every state it solves; face <= edge <= vertex optimum; every
 * heuristic, annealing and DP variant is at least the optimum. Edges and
 * faces are searched on graphs with at most 14 and 10 edges. */
static void random_case(const ade_cgraph *g, size_t ne, int it, int *edges, int *faces) {
  ade_opt_limits l;
  uint64_t ov = pure_optimum(g, ADE_SEQ_VERTEX), oe, of;
  ck_assert_uint_eq(optimum(g, ADE_SEQ_VERTEX), ov);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_VERTEX, 1), ov);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_VERTEX, -1), ov);
  heuristics_min(g, ADE_SEQ_VERTEX, ov);
  ade_opt_limits_init(&l);
  l.iterations = 200;
  l.seed = (uint64_t)it;
  ck_assert_uint_ge(opt(g, ADE_SEQ_VERTEX, ADE_OPT_ANNEAL, &l, NULL), ov);
  if (ne > 14) return;
  (*edges)++;
  oe = pure_optimum(g, ADE_SEQ_EDGE);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_EDGE), oe);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_EDGE, 1 + it % 2), oe);
  if (ne <= 12) ck_assert_uint_eq(bnb(g, ADE_SEQ_EDGE, -1), oe);
  ck_assert_uint_le(oe, ov);
  heuristics_min(g, ADE_SEQ_EDGE, oe);
  ck_assert_uint_ge(opt(g, ADE_SEQ_EDGE, ADE_OPT_ANNEAL, &l, NULL), oe);
  for (int d = ADE_OPT_DP_BFFT; d <= ADE_OPT_DP_BFRA; d++) {
    uint64_t c = opt(g, ADE_SEQ_EDGE, d, NULL, NULL);
    ck_assert_uint_ge(c, oe);
    if (ne <= 10) ck_assert_uint_eq(opt(g, ADE_SEQ_FACE, d, NULL, NULL), c);
  }
  if (ne > 10) return;
  (*faces)++;
  of = pure_optimum(g, ADE_SEQ_FACE);
  ck_assert_uint_eq(optimum(g, ADE_SEQ_FACE), of);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_FACE, 1), of);
  ck_assert_uint_le(of, oe);
  heuristics_min(g, ADE_SEQ_FACE, of);
}

/* 520 graphs with up to 8 intermediates, then smaller ones until edges and
 * faces have had 500 graphs each. */
START_TEST(random_small) {
  uint64_t rs = 4242;
  int edges = 0, faces = 0, it = 0;
  for (; it < 520 || edges < 500 || faces < 500; it++) {
    int big = it < 520;
    size_t n = 1 + ade_test_rand(&rs) % 3, m = 1 + ade_test_rand(&rs) % 3, ne;
    size_t p = 1 + ade_test_rand(&rs) % (big ? 8 : 4);
    double dens = ade_test_uniform(&rs, 0.1, big ? 0.4 : 0.3);
    ade_cgraph *g = random_graph(&rs, n, p, m, dens, &ne);
    random_case(g, ne, it, &edges, &faces);
    ade_cgraph_free(g);
  }
  ck_assert_int_lt(it, 2000);
}
END_TEST

/* The best heuristic (ade__opt_heuristic, the start of the searches and
 * what --parts uses): the least cost of its candidates, computed here one
 * by one (every ordering of the kind or a less general one, the default
 * hierarchies, for edges the dynamic programs), won by the least general
 * kind on ties, and in three threads the sequence of one. */
START_TEST(heuristic_best) {
  uint64_t rs = 777;
  int ties = 0;
  for (int it = 0; it < 120; it++) {
    size_t n = 1 + ade_test_rand(&rs) % 4, m = 1 + ade_test_rand(&rs) % 4, ne;
    ade_cgraph *g = random_graph(&rs, n, 2 + ade_test_rand(&rs) % 12, m, ade_test_uniform(&rs, 0.1, 0.4), &ne);
    for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_EDGE; kind++) {
      uint64_t best = UINT64_MAX;
      int least = 3; /* the least general kind reaching best */
      for (int o = 0; o < ADE_ORDER_COUNT; o++) {
        ade_elim_seq *s = NULL;
        int k = ade_order_kind(o);
        if (k > kind) continue;
        ck_assert_int_eq(ade_elim_order_native(g, o, 0, &s, NULL), ADE_OK);
        uint64_t c = ade_seq_cost(s);
        if (c < best || (c == best && ade_seq_kind(s) < least)) best = c, least = ade_seq_kind(s);
        ade_seq_free(s);
      }
      for (int k = ADE_SEQ_VERTEX; k <= kind; k++)
        for (int me = ADE_OPT_HIERARCHY; me <= ADE_OPT_DP_BFRA; me++) {
          ade_elim_seq *s = NULL;
          uint64_t c;
          if (me == ADE_OPT_ANNEAL || (me > ADE_OPT_ANNEAL && k != ADE_SEQ_EDGE)) continue;
          if (me == ADE_OPT_HIERARCHY) ck_assert_int_eq(ade__opt_hierarchy(g, k, NULL, NULL, &s, NULL), ADE_OK);
          else if (ade__opt_dp(g, me, &s, &c) != ADE_OK) continue; /* a chain too long */
          c = ade_seq_cost(s);
          if (c < best || (c == best && ade_seq_kind(s) < least)) best = c, least = ade_seq_kind(s);
          ade_seq_free(s);
        }
      ade_elim_seq *h[2] = {NULL, NULL};
      for (int t = 0; t < 2; t++) ck_assert_int_eq(ade__opt_heuristic(g, kind, NULL, 1 + 2 * t, &h[t]), ADE_OK);
      ck_assert_uint_eq(ade_seq_cost(h[0]), best);
      ck_assert_int_eq(ade_seq_kind(h[0]), least);
      ties += kind == ADE_SEQ_EDGE && least == ADE_SEQ_VERTEX;
      ade_test_same_seq(h[1], h[0], "three threads", (uint64_t)it);
      ade_seq_free(h[0]);
      ade_seq_free(h[1]);
    }
    ade_cgraph_free(g);
  }
  ck_assert_int_gt(ties, 0); /* edges asked for, a vertex sequence as cheap: the vertex one */
}
END_TEST

/* The face bound's chains (opt_bound.c) count on graphs with vertices
 * between two junctions, which need more edges than random_small gives
 * faces: the plain oracle checks the bound on every state of graphs with
 * 11 and 12 edges. At the root of the bat it is 20 (optimum 22; the
 * families at each junction alone give 16). */
static uint64_t root_bound(const ade_cgraph *g, int kind) {
  ade__sg s;
  ck_assert_int_eq(ade__sg_init(&s, g, kind, 64), ADE_OK);
  uint64_t lb = ade__sg_lower(&s, UINT64_MAX);
  ade__sg_free(&s);
  return lb;
}

START_TEST(face_bound) {
  ade_cgraph *g = graph(4, bx, 4, by, 12, be, 5);
  ck_assert_uint_eq(root_bound(g, ADE_SEQ_FACE), 20);
  ade_cgraph_free(g);
  uint64_t rs = 2024;
  int done = 0;
  while (done < 60) {
    size_t n = 1 + ade_test_rand(&rs) % 4, m = 1 + ade_test_rand(&rs) % 4, p = 2 + ade_test_rand(&rs) % 5, ne;
    g = random_graph(&rs, n, p, m, ade_test_uniform(&rs, 0.15, 0.4), &ne);
    if (ne == 11 || ne == 12) {
      uint64_t of = pure_optimum(g, ADE_SEQ_FACE);
      ck_assert_uint_le(root_bound(g, ADE_SEQ_FACE), of);
      ck_assert_uint_eq(bnb(g, ADE_SEQ_FACE, 1), of);
      done++;
    }
    ade_cgraph_free(g);
  }
}
END_TEST

/* Single-path chains: n independents, a path of p intermediates, m
 * dependents. Every DP variant equals branch and bound, and the dense
 * chain bracketing of the elementals (n -> 1 -> ... -> 1 -> m) too. */
START_TEST(chains) {
  uint64_t rs = 99;
  for (int it = 0; it < 40; it++) {
    size_t n = 1 + ade_test_rand(&rs) % 4, m = 1 + ade_test_rand(&rs) % 4, p = 1 + ade_test_rand(&rs) % 6;
    long x[4], y[4], e[64][2];
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) x[i] = (long)i + 1 - (long)n, e[ne][0] = x[i], e[ne++][1] = 1;
    for (size_t j = 1; j < p; j++) e[ne][0] = (long)j, e[ne++][1] = (long)j + 1;
    for (size_t i = 0; i < m; i++) y[i] = (long)(p + 1 + i), e[ne][0] = (long)p, e[ne++][1] = y[i];
    ade_cgraph *g = graph(n, x, m, y, ne, (const long(*)[2])e, rs);
    uint64_t b = bnb(g, ADE_SEQ_EDGE, 1);
    ck_assert_uint_eq(b, bnb(g, ADE_SEQ_VERTEX, 1));
    for (int d = ADE_OPT_DP_BFFT; d <= ADE_OPT_DP_BFRA; d++) ck_assert_uint_eq(opt(g, ADE_SEQ_EDGE, d, NULL, NULL), b);
    size_t dims[8];
    dims[0] = n;
    for (size_t j = 1; j <= p; j++) dims[j] = 1;
    dims[p + 1] = m;
    uint64_t cost;
    ck_assert_int_eq(ade_chain_bracket(p + 1, dims, NULL, NULL, &cost, NULL, 0), ADE_OK);
    ck_assert_uint_eq(cost, b);
    ade_cgraph_free(g);
  }
}
END_TEST

/* Dense Jacobian chain bracketing: the classic example (Cormen et al.,
 * 15125 for 30x35, 35x15, 15x5, 5x10, 10x20, 20x25) and the generalized
 * problem against enumeration of all plans. */
static uint64_t brute(size_t i, size_t j, const size_t *d, const uint64_t *t, const uint64_t *a) {
  if (i == j) return t ? (t[i - 1] * d[i - 1] < a[i - 1] * d[i] ? t[i - 1] * d[i - 1] : a[i - 1] * d[i]) : 0;
  uint64_t best = UINT64_MAX;
  for (size_t k = i; k < j; k++) {
    uint64_t v = brute(k + 1, j, d, t, a) + brute(i, k, d, t, a) + d[j] * d[k] * d[i - 1];
    best = v < best ? v : best;
  }
  if (t) {
    uint64_t vt = brute(i, j - 1, d, t, a) + d[i - 1] * t[j - 1], va = brute(i + 1, j, d, t, a) + d[j] * a[i - 1];
    best = vt < best ? vt : best;
    best = va < best ? va : best;
  }
  return best;
}

START_TEST(chain_bracket) {
  size_t d[] = {25, 20, 10, 5, 15, 35, 30};
  uint64_t cost;
  char plan[128];
  ck_assert_int_eq(ade_chain_bracket(6, d, NULL, NULL, &cost, plan, sizeof plan), ADE_OK);
  ck_assert_uint_eq(cost, 15125);
  ck_assert_str_eq(plan, "((F6 (F5 F4)) ((F3 F2) F1))");
  ck_assert_int_eq(ade_chain_bracket(6, d, NULL, NULL, &cost, plan, 8), ADE_OK);
  ck_assert_str_eq(plan, "((F6 (F");
  uint64_t rs = 5;
  for (int it = 0; it < 200; it++) {
    size_t q = 1 + ade_test_rand(&rs) % 6, dd[8];
    uint64_t t[8], a[8];
    for (size_t i = 0; i <= q; i++) dd[i] = 1 + ade_test_rand(&rs) % 9;
    for (size_t i = 0; i < q; i++) t[i] = 1 + ade_test_rand(&rs) % 60, a[i] = 1 + ade_test_rand(&rs) % 60;
    ck_assert_int_eq(ade_chain_bracket(q, dd, t, a, &cost, plan, sizeof plan), ADE_OK);
    ck_assert_uint_eq(cost, brute(1, q, dd, t, a));
    ck_assert_int_eq(ade_chain_bracket(q, dd, NULL, NULL, &cost, NULL, 0), ADE_OK);
    ck_assert_uint_eq(cost, brute(1, q, dd, NULL, NULL));
  }
  ck_assert_int_eq(ade_chain_bracket(0, d, NULL, NULL, &cost, NULL, 0), ADE_EINVAL);
  ck_assert_int_eq(ade_chain_bracket(2, d, (uint64_t[]){1, 2}, NULL, &cost, NULL, 0), ADE_EINVAL);
  ck_assert_int_eq(ade_chain_bracket(2000, d, NULL, NULL, &cost, NULL, 0), ADE_ETOOBIG);
  /* Every bracketing's cost overflows: an error, and no plan from memory
   * never written (it crashed). */
  size_t big[3] = {(size_t)1 << 22, (size_t)1 << 22, (size_t)1 << 22}, huge[3] = {SIZE_MAX, 1, SIZE_MAX};
  uint64_t tmax[2] = {UINT64_MAX, UINT64_MAX};
  ck_assert_int_eq(ade_chain_bracket(2, big, NULL, NULL, &cost, plan, sizeof plan), ADE_ETOOBIG);
  ck_assert_int_eq(ade_chain_bracket(2, huge, tmax, tmax, &cost, plan, sizeof plan), ADE_ETOOBIG);
  big[0] = 1;
  ck_assert_int_eq(ade_chain_bracket(2, big, NULL, NULL, &cost, plan, sizeof plan), ADE_OK);
  ck_assert_uint_eq(cost, (uint64_t)1 << 44);
}
END_TEST

/* ------------------------------------------------------------ parts */

/* Pieces glued at shared independents (their columns drawn from a pool of
 * nx) and, with share_y, at a shared first dependent; copy: the second
 * piece repeats the first. Ids stay topological. */
static ade_cgraph *glued(uint64_t *rs, size_t npieces, int copy, int share_y, size_t *nedges) {
  long x[8], y[16], src[512], dst[512], zoff = 0, ybase = 0, ny = 0;
  size_t nx = 1 + ade_test_rand(rs) % 3, ne = 0;
  ade_cgraph *pc[4];
  uint64_t first = *rs;
  for (size_t i = 0; i < nx; i++) x[i] = (long)i + 1 - (long)nx;
  for (size_t k = 0; k < npieces; k++) {
    uint64_t r = k == 1 && copy ? first : *rs;
    size_t pe, n = 1 + ade_test_rand(&r) % 2, p = 1 + ade_test_rand(&r) % 4, m = 1 + ade_test_rand(&r) % 2;
    pc[k] = random_graph(&r, n, p, m, ade_test_uniform(&r, 0.1, 0.35), &pe);
    if (k != 1 || !copy) *rs = r;
    ybase += (long)(pc[k]->nv - pc[k]->n - pc[k]->m);
  }
  for (size_t k = 0; k < npieces; k++) {
    const ade_cgraph *g = pc[k];
    long p = (long)(g->nv - g->n - g->m), map[32];
    for (size_t v = 0; v < g->nv; v++) {
      const ade__vtx *u = &g->v[v];
      if (u->kind == ADE__X) map[v] = x[(u->aux + k) % nx];
      else if (u->kind == ADE__Z) map[v] = zoff + u->id;
      else if (share_y && k && u->aux == 0) map[v] = ybase + 1;
      else map[v] = ybase + 1 + ny + (long)u->aux - (share_y && k ? 1 : 0);
    }
    for (size_t e = 0; e < g->eslots; e++) {
      if (g->e[e].src == ADE__NONE) continue;
      long a = map[g->e[e].src], b = map[g->e[e].dst];
      int dup = 0;
      for (size_t i = 0; i < ne; i++) dup |= src[i] == a && dst[i] == b;
      if (!dup) src[ne] = a, dst[ne++] = b;
    }
    zoff += p;
    ny += (long)g->m - (share_y && k ? 1 : 0);
  }
  for (long i = 0; i < ny; i++) y[i] = ybase + 1 + i;
  double val[512];
  for (size_t k = 0; k < ne; k++) val[k] = ade_test_uniform(rs, 0.5, 1.5);
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&g, nx, x, (size_t)ny, y, ne, src, dst, val) == ADE_OK, "%s", ade_errmsg());
  for (size_t k = 0; k < npieces; k++) ade_cgraph_free(pc[k]);
  *nedges = ne;
  return g;
}

/* Two runs with the same seed give the same sequence. */
static void same_twice(const ade_cgraph *g, int kind, int method, const ade_opt_limits *l) {
  ade_elim_seq *a = NULL, *b = NULL;
  ck_assert_int_eq(ade_optimize(g, kind, method, l, &a, NULL), ADE_OK);
  ck_assert_int_eq(ade_optimize(g, kind, method, l, &b, NULL), ADE_OK);
  ade_test_same_seq(a, b, "the same seed twice", 0);
  ade_seq_free(a);
  ade_seq_free(b);
}

/* Graphs of two or three parts (some repeated, some sharing a dependent):
 * the optimum of the split search is the plain oracle's on the whole graph;
 * B&B equals it; every method's sequence is valid on the whole graph (its
 * Jacobian is forward mode's) and no cheaper than the optimum; annealing
 * is reproducible from its seed. */
START_TEST(parts) {
  uint64_t rs = 2024;
  int edges = 0, faces = 0, split = 0;
  for (int it = 0; it < 500; it++) {
    size_t ne;
    ade_cgraph *g = glued(&rs, 2 + (size_t)it % 2, it % 3 == 0, it % 4 == 1, &ne);
    ade__part P;
    ck_assert_int_eq(ade__part_split(g, 1 << ADE__X | 1 << ADE__Y, &P), ADE_OK);
    split += P.nz >= 2;
    ade__part_free(&P);
    ade_opt_limits l;
    ade_opt_limits_init(&l);
    l.iterations = 100;
    l.seed = (uint64_t)it;
    for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
      if ((kind == ADE_SEQ_EDGE && ne > 14) || (kind == ADE_SEQ_FACE && ne > 10)) break;
      edges += kind == ADE_SEQ_EDGE, faces += kind == ADE_SEQ_FACE;
      uint64_t o = pure_optimum(g, kind);
      ck_assert_uint_eq(optimum(g, kind), o);
      ck_assert_uint_eq(bnb(g, kind, 1), o);
      ck_assert_uint_ge(opt(g, kind, ADE_OPT_HIERARCHY, NULL, NULL), o);
      if (kind != ADE_SEQ_FACE) {
        ck_assert_uint_ge(opt(g, kind, ADE_OPT_ANNEAL, &l, NULL), o);
        same_twice(g, kind, ADE_OPT_ANNEAL, &l);
      }
      for (int d = ADE_OPT_DP_BFFT; kind != ADE_SEQ_VERTEX && d <= ADE_OPT_DP_BFRA; d++)
        ck_assert_uint_ge(opt(g, kind, d, NULL, NULL), o);
    }
    ade_cgraph_free(g);
  }
  ck_assert_int_eq(split, 500);
  ck_assert_int_ge(edges, 200);
  ck_assert_int_ge(faces, 100);
}
END_TEST

/* Three lions on the same independents: three times the lion optima, proven. */
START_TEST(repeated_parts) {
  static const long x2[] = {-1, 0}, y2[] = {3, 4, 5, 6};
  long e[64][2];
  size_t ne = 0;
  for (long c = 0; c < 3; c++) /* three lions on the same two independents */
    for (size_t k = 0; k < 8; k++) {
      long a = le[k][0], b = le[k][1];
      e[ne][0] = a <= 0 ? a : a + 2 * c, e[ne++][1] = b <= 2 ? b + 2 * c : 7 + 4 * c + (b - 3);
    }
  long y[12], x[2] = {x2[0], x2[1]};
  for (long i = 0; i < 12; i++) y[i] = 7 + i;
  (void)y2;
  ade_cgraph *g = graph(2, x, 12, y, ne, (const long(*)[2])e, 3);
  ade_opt_report r;
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
    ck_assert_uint_eq(opt(g, kind, ADE_OPT_BNB, NULL, &r), kind == ADE_SEQ_VERTEX ? 36 : 33);
    ck_assert(r.optimal);
  }
  ade_cgraph_free(g);
}
END_TEST

/* One part of more vertices than a search holds: two independents, a
 * chain with a side edge every third vertex, two dependents. The searches
 * return their start (the best ordering), limited, valid. */
START_TEST(too_large) {
  size_t p = ADE__SG_MAX_SLOTS + 100, ne = 0;
  long x[] = {-1, 0}, y[] = {(long)p + 1, (long)p + 2}, (*e)[2] = malloc((2 * p + 8) * sizeof *e);
  e[ne][0] = -1, e[ne++][1] = 1;
  e[ne][0] = 0, e[ne++][1] = 1;
  for (long j = 1; j < (long)p; j++) {
    e[ne][0] = j, e[ne++][1] = j + 1;
    if (j % 3 == 0 && j + 2 <= (long)p) e[ne][0] = j, e[ne++][1] = j + 2;
  }
  e[ne][0] = (long)p, e[ne++][1] = (long)p + 1;
  e[ne][0] = (long)p, e[ne++][1] = (long)p + 2;
  ade_cgraph *g = graph(2, x, 2, y, ne, (const long(*)[2])e, 9);
  free(e);
  ade_opt_report r;
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  l.iterations = 10;
  uint64_t best = UINT64_MAX;
  for (int o = ADE_ORDER_VERTEX_FORWARD; o <= ADE_ORDER_VERTEX_CHAINS; o++) {
    uint64_t c = order_cost(g, o);
    best = c < best ? c : best;
  }
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_EDGE; kind++)
    for (int m = ADE_OPT_EXHAUSTIVE; m <= ADE_OPT_ANNEAL; m++) {
      if (m == ADE_OPT_HIERARCHY) continue;
      ck_assert_uint_le(opt(g, kind, m, &l, &r), best);
      ck_assert(r.limited && !r.optimal && r.initial == r.cost);
    }
  ade_cgraph_free(g);
}
END_TEST

/* ------------------------------------------------------ limits, threads */

/* A graph too large to finish quickly: a few stacked bats. */
static ade_cgraph *big_graph(void) {
  uint64_t rs = 77;
  size_t ne;
  return random_graph(&rs, 4, 30, 4, 0.2, &ne);
}

/* A graph no search or hierarchy finishes in 0.3 s: 50 layers of 60
 * intermediates, each fed by the one at its place in the layer before and
 * by another one there (the first layer: by two of 8 independents), the
 * last layer feeding 8 dependents. */
static ade_cgraph *layered_graph(void) {
  enum { L = 50, W = 60, N = 8 };
  uint64_t rs = 5;
  size_t ne = 0;
  long x[N], y[N], (*e)[2] = malloc((2 * L * W + W) * sizeof *e);
  for (long i = 0; i < N; i++) x[i] = i + 1 - N, y[i] = L * W + 1 + i;
  for (long t = 0; t < L * W; t++) { /* vertex t + 1 */
    long k = t % W, o = (k + 1 + (long)(ade_test_rand(&rs) % (W - 1))) % W; /* o != k */
    e[ne][0] = t < W ? x[k % N] : t + 1 - W, e[ne++][1] = t + 1;
    e[ne][0] = t < W ? x[(k + 1 + o % (N - 1)) % N] : t + 1 - W - k + o, e[ne++][1] = t + 1;
  }
  for (long k = 0; k < W; k++) e[ne][0] = (L - 1) * W + k + 1, e[ne++][1] = y[k % N];
  ade_cgraph *g = graph(N, x, N, y, ne, (const long(*)[2])e, 9);
  free(e);
  return g;
}

/* CPU seconds a 0.3 s limit (two threads) may take at most: what runs
 * before the first clock check and after the last (graph copies, the start
 * heuristic, the completion) runs several times slower under
 * AddressSanitizer. Wall time may be ten times that on a loaded machine. */
#if defined __SANITIZE_ADDRESS__ || defined __SANITIZE_THREAD__
#define LIMIT_BOUND 10.0
#else
#define LIMIT_BOUND 3.0
#endif

static int progress_calls;
static void on_progress(void *ud, const ade_opt_progress *p) {
  (void)ud;
  ck_assert(p->seconds >= 1.0 && p->method == ADE_OPT_BNB);
  progress_calls++;
}

/* A face start the engine built (edge sequence converted on the dual) is
 * kept as it is: marked checked, its cost the engines' count; ade_seq_push
 * clears the mark, so a changed sequence is simulated again (and a bad
 * step then fails). bnb and exhaustive stopped at once return it, checked
 * against the forward-mode Jacobian by opt(). */
START_TEST(checked_start) {
  uint64_t rs = 97;
  for (int it = 0; it < 20; it++) {
    size_t ne;
    ade_cgraph *g = random_graph(&rs, 2 + it % 3, 4 + it % 5, 2 + it % 2, 0.35, &ne);
    ade_elim_seq *es = NULL, *fs = NULL;
    uint64_t c = 0, v = 0;
    int done = 0;
    ck_assert_int_eq(ade_elim_order(g, it % 2 ? ADE_ORDER_EDGE_FORWARD : ADE_ORDER_EDGE_MARKOWITZ, &es), ADE_OK);
    ck_assert_int_eq(ade__seq_edge_to_face(g, es, &fs, NULL), ADE_OK);
    ck_assert(fs->checked);
    ck_assert_uint_eq(check_seq(g, fs, "converted start"), fs->cost);
    ade_elim_seq *vs = NULL, *cs = NULL;
    ck_assert_int_eq(ade_elim_order(g, ADE_ORDER_VERTEX_MARKOWITZ, &vs), ADE_OK);
    ck_assert_int_eq(ade__seq_vertex_to_edge(g, vs, &cs), ADE_OK);
    ck_assert_uint_eq(cs->checked, ade__graph_fingerprint(g));
    ck_assert_int_eq(ade__seq_finish(g, cs, &c), ADE_OK);
    ck_assert_uint_eq(check_seq(g, cs, "converted edge start"), c);
    ade_cgraph *g2 = NULL; /* another graph: simulated, not trusted */
    uint64_t rs2 = rs;
    size_t ne2;
    g2 = random_graph(&rs2, 2, 3, 2, 0.5, &ne2);
    if (ade__graph_fingerprint(g2) != cs->checked) {
      cs->fingerprint = 0;
      int st2 = ade__seq_finish(g2, cs, &c);
      ck_assert(st2 != ADE_OK || c == check_seq(g2, cs, "other graph"));
    }
    ade_cgraph_free(g2);
    ade_seq_free(vs);
    ade_seq_free(cs);
    ck_assert_int_eq(ade__seq_finish(g, fs, &c), ADE_OK);
    ck_assert_uint_eq(c, fs->cost);
    ade_cgraph *d = NULL;
    ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
    ck_assert_int_eq(ade_seq_validate(d, fs, &done, &v), ADE_OK);
    ck_assert(done && v == c);
    ade_cgraph_free(d);
    if (fs->len) { /* a repeated step: not applicable any more */
      ck_assert_int_eq(ade_seq_push(fs, fs->step[0].a, fs->step[0].b, 0), ADE_OK);
      ck_assert(!fs->checked);
      ck_assert_int_ne(ade__seq_finish(g, fs, &c), ADE_OK);
    }
    ade_seq_free(es);
    ade_seq_free(fs);
    ade_opt_limits l;
    ade_opt_report r;
    ade_opt_limits_init(&l);
    l.node_limit = 1;
    opt(g, ADE_SEQ_FACE, ADE_OPT_BNB, &l, &r);
    ck_assert_uint_le(r.cost, r.initial);
    l.time_limit = 1e-9;
    l.node_limit = 0;
    opt(g, ADE_SEQ_FACE, ADE_OPT_BNB, &l, &r);
    opt(g, ADE_SEQ_FACE, ADE_OPT_EXHAUSTIVE, &l, &r);
    ade_cgraph_free(g);
  }
}
END_TEST

START_TEST(limits) {
  ade_cgraph *g = big_graph();
  ade_opt_limits l;
  ade_opt_report r;
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_EDGE; kind++) {
    ade_opt_limits_init(&l);
    l.node_limit = 50;
    opt(g, kind, ADE_OPT_BNB, &l, &r);
    ck_assert(r.limited && !r.optimal);
    ck_assert_uint_le(r.nodes, 50);
    ck_assert_uint_le(r.cost, r.initial);
    ade_opt_limits_init(&l);
    l.time_limit = 0.2;
    l.threads = 2;
    double t0 = ade__now(), c0 = ade_test_cpu();
    opt(g, kind, ADE_OPT_BNB, &l, &r);
    ck_assert(r.limited && !r.optimal);
    ck_assert(ade_test_cpu() - c0 < 2.0 && ade__now() - t0 < 20.0);
    l.threads = 1;
    l.node_limit = 10;
    l.time_limit = 0;
    opt(g, kind, ADE_OPT_EXHAUSTIVE, &l, &r);
    ck_assert(r.limited && !r.optimal);
  }
  /* every method on every kind it builds stops near a limit of 0.3 s with
   * a complete sequence (generous bound: this checks the limit works) */
  ade_cgraph *b = layered_graph();
  for (int method = 0; method < ADE_OPT_COUNT; method++)
    for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
      if (!ade_opt_supports(method, kind)) continue;
      ade_opt_limits_init(&l);
      /* the face hierarchy runs about 0.15 s here (branch hier5): a limit
       * it cannot meet */
      l.time_limit = method == ADE_OPT_HIERARCHY && kind == ADE_SEQ_FACE ? 0.01 : 0.3;
      l.threads = 2;
      double t0 = ade__now(), c0 = ade_test_cpu();
      opt(b, kind, method, &l, &r);
      double t = ade__now() - t0, c = ade_test_cpu() - c0;
      ck_assert_msg(c < LIMIT_BOUND && t < 10 * LIMIT_BOUND, "%s kind %d: %.2f s CPU, %.2f s wall",
                    ade_opt_name(method), kind, c, t);
      if (method <= ADE_OPT_BNB || method == ADE_OPT_ANNEAL || (method == ADE_OPT_HIERARCHY && kind == ADE_SEQ_FACE))
        ck_assert_msg(r.limited, "%s kind %d: not limited", ade_opt_name(method), kind);
      if (r.limited) ck_assert(!r.optimal);
    }
  ade_cgraph_free(b);
  /* progress is reported from the first second on, then about every second */
  ade_opt_limits_init(&l);
  l.time_limit = 1.3;
  l.progress = on_progress;
  progress_calls = 0;
  opt(g, ADE_SEQ_EDGE, ADE_OPT_BNB, &l, &r);
  if (r.limited) ck_assert_int_ge(progress_calls, 1);
  ade_cgraph_free(g);
}
END_TEST

START_TEST(threads) {
  uint64_t rs = 31;
  for (int it = 0; it < 30; it++) {
    size_t ne;
    ade_cgraph *g = random_graph(&rs, 2, 5, 3, 0.3, &ne);
    for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_EDGE; kind++) {
      uint64_t one = bnb(g, kind, 1);
      ck_assert_uint_eq(bnb(g, kind, 3), one);
    }
    ade_cgraph_free(g);
  }
  ade_cgraph *g = graph(4, bx, 4, by, 12, be, 5);
  ck_assert_uint_eq(bnb(g, ADE_SEQ_FACE, 4), 22);
  ade_cgraph_free(g);
}
END_TEST

/* ------------------------------------------------------ values, errors */

START_TEST(names) {
  int kind = -1;
  ck_assert_int_eq(ade_opt_parse("bnb", &kind), ADE_OPT_BNB);
  ck_assert_int_eq(kind, -1);
  ck_assert_int_eq(ade_opt_parse("bnb-face", &kind), ADE_OPT_BNB);
  ck_assert_int_eq(kind, ADE_SEQ_FACE);
  ck_assert_int_eq(ade_opt_parse("dp-bfra", NULL), ADE_OPT_DP_BFRA);
  ck_assert_int_eq(ade_opt_parse("dp-bfra-edge", &kind), ADE_OPT_DP_BFRA);
  ck_assert_int_eq(kind, ADE_SEQ_EDGE);
  ck_assert_int_eq(ade_opt_parse("bnb-", NULL), -1);
  ck_assert_int_eq(ade_opt_parse("-face", NULL), -1);
  ck_assert_int_eq(ade_opt_parse("nonsense", NULL), -1);
  for (int m = 0; m < ADE_OPT_COUNT; m++) ck_assert_int_eq(ade_opt_parse(ade_opt_name(m), NULL), m);
  ck_assert_ptr_null(ade_opt_name(ADE_OPT_COUNT));
  ck_assert(!ade_opt_supports(ADE_OPT_ANNEAL, ADE_SEQ_FACE));
  ck_assert(!ade_opt_supports(ADE_OPT_DP_BFFT, ADE_SEQ_VERTEX));
  ck_assert(!ade_opt_supports(ADE_OPT_BNB, 3));
  ck_assert_uint_eq(ade_opt_num_variants(), 15);
  for (size_t i = 0; i < ade_opt_num_variants(); i++) {
    int m, k;
    const char *label;
    ck_assert_int_eq(ade_opt_variant(i, &m, &k, &label), ADE_OK);
    ck_assert(ade_opt_supports(m, k));
    int k2 = -1;
    ck_assert_int_eq(ade_opt_parse(label, &k2), m);
    if (k2 >= 0) ck_assert_int_eq(k2, k);
  }
  ck_assert_int_eq(ade_opt_variant(99, NULL, NULL, NULL), ADE_EINVAL);
}
END_TEST

START_TEST(bad_input) {
  ade_cgraph *g = graph(2, lx, 4, ly, 8, le, 1), *d = NULL;
  ade_elim_seq *s = (ade_elim_seq *)1;
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  ck_assert_int_eq(ade_optimize(g, ADE_SEQ_FACE, ADE_OPT_ANNEAL, NULL, &s, NULL), ADE_EINVAL);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(ade_optimize(g, ADE_SEQ_VERTEX, ADE_OPT_DP_BFFT, NULL, &s, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_optimize(g, 7, ADE_OPT_BNB, NULL, &s, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_optimize(g, ADE_SEQ_EDGE, 42, NULL, &s, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_optimize(NULL, ADE_SEQ_EDGE, ADE_OPT_BNB, NULL, &s, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ck_assert_int_eq(ade_optimize(d, ADE_SEQ_FACE, ADE_OPT_BNB, NULL, &s, NULL), ADE_EINVAL);
  const char *bad[] = {"sibling,nonsense", "absorb", "forward,markowitz", "relative,forward",
                       "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q"};
  int kinds[] = {ADE_SEQ_VERTEX, ADE_SEQ_VERTEX, ADE_SEQ_EDGE, ADE_SEQ_EDGE, ADE_SEQ_EDGE};
  for (int i = 0; i < 5; i++) {
    l.hierarchy = bad[i];
    ck_assert_int_eq(ade_optimize(g, kinds[i], ADE_OPT_HIERARCHY, &l, &s, NULL), ADE_EINVAL);
  }
  l.hierarchy = "markowitz"; /* forward is added */
  ck_assert_uint_eq(opt(g, ADE_SEQ_VERTEX, ADE_OPT_HIERARCHY, &l, NULL), 12);
  l.hierarchy = " sibling , markowitz,reverse ";
  opt(g, ADE_SEQ_EDGE, ADE_OPT_HIERARCHY, &l, NULL);
  /* A time limit or progress interval that is negative or NaN: an error,
   * as for the orderings (they read as no limit before). */
  size_t part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 3; k++) {
    ade_opt_limits_init(&l);
    if (k == 0) l.time_limit = NAN;
    if (k == 1) l.time_limit = -1;
    if (k == 2) l.progress_interval = -INFINITY;
    ck_assert_int_eq(ade_optimize(g, ADE_SEQ_EDGE, ADE_OPT_BNB, &l, &s, NULL), ADE_EINVAL);
    ck_assert_int_eq(ade_optimize_parts(g, part, 8, -1, &l, &s, NULL), ADE_EINVAL);
  }
  /* An edge step's direction is ADE_FRONT or ADE_BACK. */
  ck_assert_int_eq(ade_seq_create(&s, ADE_SEQ_EDGE), ADE_OK);
  ck_assert_int_eq(ade_seq_push(s, 1, 2, 7), ADE_EINVAL);
  ck_assert_int_eq(ade_seq_push(s, 1, 2, ADE_BACK), ADE_OK);
  ck_assert_uint_eq(ade_seq_length(s), 1);
  ade_seq_free(s);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
}
END_TEST

/* Sequences saved and loaded apply to the graph they were built for. */
START_TEST(save_load) {
  ade_cgraph *g = graph(4, bx, 4, by, 12, be, 5);
  char path[] = "/tmp/check_opt_seqXXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  for (size_t i = 0; i < ade_opt_num_variants(); i++) {
    int m, k;
    ade_opt_variant(i, &m, &k, NULL);
    ade_elim_seq *s = NULL, *t = NULL;
    ck_assert_int_eq(ade_optimize(g, k, m, NULL, &s, NULL), ADE_OK);
    ck_assert_int_eq(ade_seq_save(s, path), ADE_OK);
    ck_assert_int_eq(ade_seq_load(&t, path), ADE_OK);
    ck_assert_uint_eq(check_seq(g, t, ade_opt_name(m)), ade_seq_cost(s));
    ade_cgraph *w = NULL;
    int done = 0;
    uint64_t c = 0;
    ck_assert_int_eq(ade_seq_kind(s) == ADE_SEQ_FACE ? ade_cgraph_dual(&w, g) : ade_cgraph_copy(&w, g), ADE_OK);
    ck_assert_msg(ade_seq_validate(w, t, &done, &c) == ADE_OK, "%s", ade_errmsg());
    ck_assert(done);
    ade_cgraph_free(w);
    ade_seq_free(s);
    ade_seq_free(t);
  }
  unlink(path);
  ade_cgraph_free(g);
}
END_TEST

/* Out of memory at every allocation: ADE_ENOMEM, nothing leaked. */
START_TEST(out_of_memory) {
  long src[8], dst[8];
  for (int i = 0; i < 8; i++) src[i] = le[i][0], dst[i] = le[i][1];
  for (size_t v = 0; v < ade_opt_num_variants(); v++) {
    int m, k, ok = 0;
    ade_opt_variant(v, &m, &k, NULL);
    for (long fail = 0; !ok && fail < 100000; fail++) {
      ade_test_alloc a = {fail, 0, 0};
      ade_set_allocator(ade_test_alloc_fn, &a);
      ade_cgraph *g = NULL;
      ade_elim_seq *s = NULL;
      ade_opt_limits l;
      ade_opt_limits_init(&l);
      l.iterations = 50;
      l.threads = m == ADE_OPT_BNB ? 2 : 1;
      int st = ade_cgraph_from_edges(&g, 2, lx, 4, ly, 8, src, dst, NULL);
      if (!st) st = ade_optimize(g, k, m, &l, &s, NULL);
      ade_seq_free(s);
      ade_cgraph_free(g);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "%s-%d fail=%ld: %d %s", ade_opt_name(m), k, fail, st,
                    ade_errmsg());
      ck_assert_msg(a.live == 0, "%s-%d fail=%ld: %ld blocks leaked", ade_opt_name(m), k, fail, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("opt");
  TCase *tc = tcase_create("papers");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, lion);
  tcase_add_test(tc, bat);
  tcase_add_test(tc, motivating);
  tcase_add_test(tc, relative_markowitz);
  tcase_add_test(tc, chains);
  tcase_add_test(tc, chain_bracket);
  suite_add_tcase(s, tc);
  tc = tcase_create("property");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, random_small);
  tcase_add_test(tc, heuristic_best);
  tcase_add_test(tc, face_bound);
  tcase_add_test(tc, parts);
  tcase_add_test(tc, repeated_parts);
  tcase_add_test(tc, too_large);
  tcase_add_test(tc, threads);
  tcase_add_test(tc, limits);
  tcase_add_test(tc, checked_start);
  suite_add_tcase(s, tc);
  tc = tcase_create("values and errors");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, names);
  tcase_add_test(tc, bad_input);
  tcase_add_test(tc, save_load);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
