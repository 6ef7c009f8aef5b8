/* check_mission.c: AD missions: GraphML, the cost model of generalized face elimination, planners. */
#include <string.h>

#include "mission_internal.h"
#include "testutil.h"

#ifndef MISSION_DATA
#define MISSION_DATA "tests/data/mission"
#endif

static ade_mission *load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", MISSION_DATA, name);
  ade_mission *d = NULL;
  int rc = ade_mission_read_graphml(&d, path);
  ck_assert_msg(rc == ADE_OK, "%s: %s", path, ade_errmsg());
  return d;
}

static uint64_t plan_lim(ade_mission *d, int method, const ade_mission_limits *l, int *proven) {
  ade_mplan *p = NULL;
  int rc = ade_mission_plan(d, method, l, &p);
  ck_assert_msg(rc == ADE_OK, "%s: %s", ade_mission_method_name(method), ade_errmsg());
  uint64_t c = ade_mplan_cost(p);
  if (proven) *proven = ade_mplan_proven(p);
  ade_mplan_free(p);
  return c;
}

static uint64_t plan_cost(ade_mission *d, int method, int *proven) { return plan_lim(d, method, NULL, proven); }

#define ASSERT_COST(d, m, want)                                                                    \
  do {                                                                                             \
    uint64_t c_ = plan_cost(d, m, NULL);                                                           \
    ck_assert_msg(c_ == (want), "%s: %llu, expected %llu", ade_mission_method_name(m),             \
                  (unsigned long long)c_, (unsigned long long)(want));                             \
  } while (0)

/* ---------------------------------------------------- ADMission's examples */

/* greedy-min-fill with its ties broken in the given order (internal). */
static uint64_t greedy_ties(ade_mission *d, int ties) {
  ade__mctx c;
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  ck_assert_int_eq(ade_mission_check(d), ADE_OK);
  ck_assert_int_eq(ade__mctx_init(&c, d), ADE_OK);
  ade__mrun r = {&c, &l, 0, 0, 0, 0, 0, 0};
  ade__mseq s = {0};
  uint64_t cost = 0;
  ck_assert_int_eq(ade__m_greedy_ties(&r, 0, ties, &s), ADE_OK);
  ck_assert_int_eq(ade__mseq_cost(&c, &s, &cost), ADE_OK);
  ade__mseq_free(&s);
  ade__mctx_free(&c);
  return cost;
}

/* Section 6.1: dense tangent, dense adjoint, sparse tangent, sparse
 * adjoint, greedy min-fill, branch and bound. */
START_TEST(lion) {
  ade_mission *d = load("lion.xml");
  int proven = 0;
  ASSERT_COST(d, ADE_MISSION_DENSE_TANGENT, 16);
  ASSERT_COST(d, ADE_MISSION_DENSE_ADJOINT, 64);
  ASSERT_COST(d, ADE_MISSION_SPARSE_TANGENT, 16);
  ASSERT_COST(d, ADE_MISSION_SPARSE_ADJOINT, 46);
  /* ADMission's greedy reports 20. The four faces of the Lion DAG all
   * have fill-in 0 at first; ours takes the first in slot order, (0 1)
   * (1 2) at junction 1, and finds 18. ADMission breaks ties "by sparse
   * tangent or adjoint modes": in sparse adjoint order (the latest
   * junction, then the latest end, first) it starts at junction 2 and ends
   * at 20, exactly ADMission's number; sparse tangent order gives 18 too. */
  ASSERT_COST(d, ADE_MISSION_GREEDY_MIN_FILL, 18);
  ck_assert_uint_eq(greedy_ties(d, ADE__TIES_SLOT), 18);
  ck_assert_uint_eq(greedy_ties(d, ADE__TIES_TANGENT), 18);
  ck_assert_uint_eq(greedy_ties(d, ADE__TIES_ADJOINT), 20);
  ck_assert_uint_eq(plan_cost(d, ADE_MISSION_BNB, &proven), 16);
  ck_assert_int_eq(proven, 1);
  ade_mission_free(d);
}
END_TEST

START_TEST(bat) {
  ade_mission *d = load("bat.xml");
  ASSERT_COST(d, ADE_MISSION_DENSE_TANGENT, 48);
  ASSERT_COST(d, ADE_MISSION_DENSE_ADJOINT, 96);
  ASSERT_COST(d, ADE_MISSION_SPARSE_TANGENT, 32);
  ASSERT_COST(d, ADE_MISSION_SPARSE_ADJOINT, 64);
  ASSERT_COST(d, ADE_MISSION_GREEDY_MIN_FILL, 36);
  /* ADMission's greedy gives 36 too; so do ours in slot and sparse tangent
   * order, while sparse adjoint order (20 on the Lion) gives 39 here: no
   * one order of equal fill-in reproduces both of ADMission's numbers,
   * whose fill-in counts line dag vertices, not edges (doc/missions.md). */
  ck_assert_uint_eq(greedy_ties(d, ADE__TIES_SLOT), 36);
  ck_assert_uint_eq(greedy_ties(d, ADE__TIES_TANGENT), 36);
  ck_assert_uint_eq(greedy_ties(d, ADE__TIES_ADJOINT), 39);
  ade_mission_free(d);
}
END_TEST

/* Bat's 32 proven optimal, single threaded (ADMission cannot prove it in
 * two minutes; the issue asks for under a second of CPU). The search is
 * deterministic on one thread: 882,671 nodes (1,643,032 before bound 3,
 * ade__ldag_bound), about 0.5 s of CPU on an idle machine
 * (doc/missions.md). The CPU bound is generous, for loaded machines and
 * sanitizers; the node count is the exact check. */
#if defined __SANITIZE_ADDRESS__ || defined __SANITIZE_THREAD__
#define BAT_CPU 30.0
#else
#define BAT_CPU 3.0
#endif
START_TEST(bat_proof) {
  ade_mission *d = load("bat.xml");
  ade_mplan *p = NULL;
  double c0 = ade_test_cpu();
  ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_BNB, NULL, &p), ADE_OK);
  double cpu = ade_test_cpu() - c0;
  ck_assert_uint_eq(ade_mplan_cost(p), 32);
  ck_assert_int_eq(ade_mplan_proven(p), 1);
  ck_assert_msg(ade_mplan_nodes(p) <= 900000, "%llu nodes", (unsigned long long)ade_mplan_nodes(p));
  ck_assert_msg(cpu < BAT_CPU, "Bat's proof took %.2f s of CPU", cpu);
  ade_mplan_free(p);
  ade_mission_free(d);
}
END_TEST

/* -------------------------------------------------------- the cost model */

typedef struct opsink {
  ade__mop op[64];
  int n;
} opsink;

static int sink(void *ud, const ade__mop *op) {
  opsink *s = ud;
  ck_assert_int_lt(s->n, 64);
  s->op[s->n++] = *op;
  return ADE_OK;
}

/* Example 5: F = F2 o F1, n = 10, m1 = 2, m = 5, tangents 1000, adjoints 2000. */
static ade_mission *example5(void) {
  ade_mission *d;
  ck_assert_int_eq(ade_mission_create(&d), ADE_OK);
  ck_assert_int_eq(ade_mission_add_var(d, "0", 10, NULL), ADE_OK);
  ck_assert_int_eq(ade_mission_add_var(d, "1", 2, NULL), ADE_OK);
  ck_assert_int_eq(ade_mission_add_var(d, "2", 5, NULL), ADE_OK);
  ck_assert_int_eq(ade_mission_add_elemental(d, "F1", 0, 1, 1000, 2000, 0, 1), ADE_OK);
  ck_assert_int_eq(ade_mission_add_elemental(d, "F2", 1, 2, 1000, 2000, 0, 1), ADE_OK);
  ck_assert_int_eq(ade_mission_check(d), ADE_OK);
  return d;
}

/* Apply moves to a fresh line dag, return the total with the final
 * preaccumulations; the operations go to s. */
static uint64_t run_moves(ade_mission *d, const ade__move *m, int n, opsink *s) {
  ade__mctx c;
  ade__ldag g;
  ck_assert_int_eq(ade__mctx_init(&c, d), ADE_OK);
  ck_assert_int_eq(ade__ldag_init(&g, &c), ADE_OK);
  for (int i = 0; i < n; i++) ck_assert_msg(ade__move_apply(&g, &c, &m[i], sink, s) == ADE_OK, "%s", ade_errmsg());
  ck_assert_int_eq(ade__ldag_has_face(&g), 0);
  ck_assert_int_eq(ade__ldag_finish(&g, &c, sink, s), ADE_OK);
  uint64_t cost = g.cost;
  ade__ldag_free(&g);
  ade__mctx_free(&c);
  return cost;
}

START_TEST(example5_variants) {
  enum { T = ADE__ACC_TAN, A = ADE__ACC_ADJ, F1 = 2, F2 = 3 }; /* slots: X~ 0, Y~ 1, then F1, F2 */
  /* each: preaccumulations, the face, and the costs of its operations */
  static const struct {
    ade__move m[3];
    int n;
    uint64_t ops[3], total;
  } v[8] = {
      {{{F1, -1, T, 0}, {F1, F2, 0, 0}}, 2, {10000, 10000}, 20000},   /* F.(1,2) (F.(0,1) I) */
      {{{F1, -1, A, 0}, {F1, F2, 0, 0}}, 2, {4000, 10000}, 14000},    /* F.(1,2) (I F-(0,1)) */
      {{{F2, -1, A, 0}, {F1, F2, 0, 0}}, 2, {10000, 10000}, 20000},   /* (I F-(1,2)) F-(0,1) */
      {{{F2, -1, T, 0}, {F1, F2, 0, 0}}, 2, {2000, 10000}, 12000},    /* (F.(1,2) I) F-(0,1) */
      {{{F1, F2, A, T}}, 1, {4000, 2000, 100}, 6100},                 /* (F.(1,2) I)(I F-(0,1)) */
      {{{F1, F2, A, A}}, 1, {4000, 10000, 100}, 14100},               /* (I F-(1,2))(I F-(0,1)) */
      {{{F1, F2, T, A}}, 1, {10000, 10000, 100}, 20100},              /* (I F-(1,2))(F.(0,1) I) */
      {{{F1, F2, T, T}}, 1, {10000, 2000, 100}, 12100},               /* (F.(1,2) I)(F.(0,1) I) */
  };
  ade_mission *d = example5();
  for (int k = 0; k < 8; k++) {
    opsink s = {0};
    ck_assert_uint_eq(run_moves(d, v[k].m, v[k].n, &s), v[k].total);
    ck_assert_int_eq(s.n, v[k].n == 2 ? 2 : 3);
    for (int i = 0; i < s.n; i++) ck_assert_uint_eq(s.op[i].cost, v[k].ops[i]);
  }
  int proven = 0;
  static const int exact[3] = {ADE_MISSION_DP, ADE_MISSION_BNB, ADE_MISSION_BEST};
  for (int k = 0; k < 3; k++) {
    ck_assert_uint_eq(plan_cost(d, exact[k], &proven), 6100);
    ck_assert_int_eq(proven, 1);
  }
  ASSERT_COST(d, ADE_MISSION_DENSE_TANGENT, 20000);
  ASSERT_COST(d, ADE_MISSION_DENSE_ADJOINT, 20000);
  ade_mission_free(d);
}
END_TEST

/* Example 6: one Newton step, n = m = 10 (Figure 2): x = -1, p = 0, R' = 1
 * (n^2 entries), R = 2, x' = 3; adjoints cost twice the tangents;
 * F'(-1,3) = I is given. */
static ade_mission *newton_step(void) {
  static const struct {
    int s, t;
    uint64_t tan;
  } e[6] = {{0, 2, 2000}, {1, 2, 2000}, {0, 3, 200}, {1, 3, 200}, {2, 4, 1000}, {3, 4, 800}};
  static const char *const id[5] = {"-1", "0", "1", "2", "3"};
  static const uint64_t size[5] = {10, 10, 100, 10, 10};
  ade_mission *d;
  ck_assert_int_eq(ade_mission_create(&d), ADE_OK);
  for (int i = 0; i < 5; i++) ck_assert_int_eq(ade_mission_add_var(d, id[i], size[i], NULL), ADE_OK);
  for (int k = 0; k < 6; k++)
    ck_assert_int_eq(ade_mission_add_elemental(d, NULL, e[k].s, e[k].t, e[k].tan, 2 * e[k].tan, 0, 1), ADE_OK);
  ck_assert_int_eq(ade_mission_add_elemental(d, "I", 0, 4, 0, 0, 1, 1), ADE_OK);
  return d;
}

START_TEST(example6) {
  ade_mission *d = newton_step();
  int proven = 0;
  ASSERT_COST(d, ADE_MISSION_DENSE_TANGENT, 124000);
  ASSERT_COST(d, ADE_MISSION_DENSE_ADJOINT, 124000);
  ASSERT_COST(d, ADE_MISSION_GREEDY_MIN_FILL, 80000);
  ASSERT_COST(d, ADE_MISSION_SPARSE_ADJOINT, 124000); /* "equivalent to dense adjoint mode" */
  ck_assert_uint_eq(plan_cost(d, ADE_MISSION_BNB, &proven), 74000);
  ck_assert_int_eq(proven, 1);
  /* the optimal sequence as the paper lists it (slots: X~ 0, 1; Y~ 2;
   * F(-1,1) 3, F(0,1) 4, F(-1,2) 5, F(0,2) 6, F(1,3) 7, F(2,3) 8, I 9) */
  enum { T = ADE__ACC_TAN };
  const ade__move seq[5] = {{6, 8, T, T}, {5, 8, T, 0}, {3, 7, T, 0}, {4, 7, T, 0}};
  static const uint64_t ops[11] = {2000, 8000, 1000, 2000, 1000, 20000, 10000, 20000, 10000};
  opsink s = {0};
  ck_assert_uint_eq(run_moves(d, seq, 4, &s), 74000);
  int k = 0;
  for (int i = 0; i < s.n; i++) {
    if (s.op[i].kind == ADE__OP_MRG) {
      ck_assert_uint_eq(s.op[i].cost, 0); /* F'(-1,3) += F'(-1,1,3): cost 0 */
      continue;
    }
    ck_assert_uint_eq(s.op[i].cost, ops[k]);
    k++;
  }
  ck_assert_int_eq(k, 9);
  /* the plan printed: ops in the paper's notation */
  ade_mplan *p;
  ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_BNB, NULL, &p), ADE_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(ade_mplan_write_text(p, d, f), ADE_OK);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "ACC TAN (0 2) 2000"));
  ck_assert_ptr_nonnull(strstr(buf, "ACC TAN (-1 1) 20000"));
  ck_assert_ptr_nonnull(strstr(buf, "ELI TAN (-1 1) (1 3) += (-1 3) 10000"));
  ck_assert_ptr_nonnull(strstr(buf, "bnb cost: 74000 (proven optimal)"));
  free(buf);
  ade_mplan_free(p);
  ade_mission_free(d);
}
END_TEST

/* k Newton steps chained (Section 6.3): best decomposes the chain at the
 * states x_s, plans the step once, and must reach the paper's bound of k
 * times the one-step optimum plus k - 1 junction products of 10 x 10 x 20. */
static ade_mission *newton_chain(int k) {
  ade_mission *d;
  char id[16];
  int p, x, jr, r, nx;
  ck_assert_int_eq(ade_mission_create(&d), ADE_OK);
  ck_assert_int_eq(ade_mission_add_var(d, "p", 10, &p), ADE_OK);
  ck_assert_int_eq(ade_mission_add_var(d, "x0", 10, &x), ADE_OK);
  for (int s = 0; s < k; s++) {
    snprintf(id, sizeof id, "J%d", s);
    ck_assert_int_eq(ade_mission_add_var(d, id, 100, &jr), ADE_OK);
    snprintf(id, sizeof id, "R%d", s);
    ck_assert_int_eq(ade_mission_add_var(d, id, 10, &r), ADE_OK);
    snprintf(id, sizeof id, "x%d", s + 1);
    ck_assert_int_eq(ade_mission_add_var(d, id, 10, &nx), ADE_OK);
    const int src[7] = {x, p, x, p, jr, r, x}, dst[7] = {jr, jr, r, r, nx, nx, nx};
    const uint64_t tan[7] = {2000, 2000, 200, 200, 1000, 800, 0};
    for (int e = 0; e < 7; e++)
      ck_assert_int_eq(ade_mission_add_elemental(d, NULL, src[e], dst[e], tan[e], 2 * tan[e], e == 6, 1), ADE_OK);
    x = nx;
  }
  return d;
}

START_TEST(newton_steps) {
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.time_limit = 0.2;
  for (int k = 2; k <= 5; k += 3) {
    ade_mission *d = newton_chain(k);
    uint64_t c = plan_lim(d, ADE_MISSION_BEST, &l, NULL);
    ck_assert_msg(c <= (uint64_t)k * 74000 + (uint64_t)(k - 1) * 2000, "%d steps: %llu", k, (unsigned long long)c);
    ck_assert_uint_ge(c, (uint64_t)k * 70000); /* sanity: not below k times a lower bound of one step */
    ade_mission_free(d);
  }
}
END_TEST

/* The scale: a chain of 100 Newton-like steps, planned by best at
 * no more than 100 one-step optima (74,000) plus 99 junction products
 * (2,000). A node limit keeps the test independent of the machine's
 * speed; bench/bench_mission measures the time (doc/benchmarks.md). */
START_TEST(newton_chain_100) {
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.node_limit = 100;
  ade_mission *d = newton_chain(100);
  uint64_t c = plan_lim(d, ADE_MISSION_BEST, &l, NULL);
  ck_assert_uint_le(c, 100u * 74000 + 99u * 2000);
  ck_assert_uint_ge(c, 100u * 70000);
  ade_mission_free(d);
}
END_TEST

/* Rule 3 and Rule 2's flavours on one face, by hand: n = (3, 4, 5),
 * F1: tangent 7, adjoint 11; F2: tangent 13, adjoint 17. */
START_TEST(op_costs) {
  ade_mission *d;
  ade__mctx c;
  ade__ldag g;
  int mode;
  ck_assert_int_eq(ade_mission_create(&d), ADE_OK);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(ade_mission_add_var(d, (const char *[]){"a", "b", "c"}[i], (uint64_t)(3 + i), NULL), ADE_OK);
  ck_assert_int_eq(ade_mission_add_elemental(d, NULL, 0, 1, 7, 11, 0, 1), ADE_OK);
  ck_assert_int_eq(ade_mission_add_elemental(d, NULL, 1, 2, 13, 17, 0, 1), ADE_OK);
  ck_assert_int_eq(ade_mission_check(d), ADE_OK);
  ck_assert_int_eq(ade__mctx_init(&c, d), ADE_OK);
  ck_assert_int_eq(ade__ldag_init(&g, &c), ADE_OK);
  ck_assert_uint_eq(ade__acc_cost_in(&g, &c, 2, ADE__ACC_TAN, &mode), 3 * 7);
  ck_assert_uint_eq(ade__acc_cost_in(&g, &c, 2, ADE__ACC_ADJ, &mode), 4 * 11);
  ck_assert_uint_eq(ade__acc_cost(&g, &c, 2, &mode), 21);
  ck_assert_int_eq(mode, ADE__M_TAN);
  ck_assert_uint_eq(ade__acc_cost(&g, &c, 3, &mode), 52); /* min(4 * 13, 5 * 17) */
  ck_assert_uint_eq(ade__face_cost(&g, &c, 2, 3, &mode), UINT64_MAX); /* no Jacobian yet */
  ade__move tan = {2, 3, ADE__ACC_MIN, 0}, adj = {2, 3, 0, ADE__ACC_MIN}, mul = {2, 3, ADE__ACC_MIN, ADE__ACC_MIN};
  ck_assert_uint_eq(ade__move_cost(&g, &c, &tan), 21 + 3 * 13);                   /* n_i Cost(F.(j,k)) */
  ck_assert_uint_eq(ade__move_cost(&g, &c, &adj), 52 + 5 * 11);                   /* n_k Cost(F-(i,j)) */
  ck_assert_uint_eq(ade__move_cost(&g, &c, &mul), 21 + 52 + ADE__MIN(3 * 4 * 5, 3 * 13)); /* cheapest flavour */
  ck_assert_int_eq(ade__ldag_bound(&g, &c) <= 21 + 3 * 13, 1);
  ck_assert_int_eq(ade__move_apply(&g, &c, &tan, NULL, NULL), ADE_OK);
  ck_assert_uint_eq(g.cost, 60);
  ck_assert_int_eq(ade__ldag_has_face(&g), 0);
  ade__ldag_free(&g);
  ade__mctx_free(&c);
  ade_mission_free(d);
}
END_TEST

/* ----------------------------------------------- random DAGs and chains */

typedef struct rdag {
  int nv, ne;
  uint64_t size[8];
  int src[16], dst[16];
  uint64_t tan[16], adj[16];
  int jac[16], model[16];
} rdag;

static ade_mission *build(const rdag *r) {
  ade_mission *d;
  char id[8];
  ck_assert_int_eq(ade_mission_create(&d), ADE_OK);
  for (int i = 0; i < r->nv; i++) {
    snprintf(id, sizeof id, "v%d", i);
    ck_assert_int_eq(ade_mission_add_var(d, id, r->size[i], NULL), ADE_OK);
  }
  for (int k = 0; k < r->ne; k++)
    ck_assert_int_eq(ade_mission_add_elemental(d, NULL, r->src[k], r->dst[k], r->tan[k], r->adj[k], r->jac[k],
                                               r->model[k]),
                     ADE_OK);
  return d;
}

static void random_costs(rdag *r, uint64_t *seed, int k, int jac_ok) {
  r->tan[k] = 1 + ade_test_rand(seed) % 6;
  r->adj[k] = r->tan[k] + ade_test_rand(seed) % 8;
  r->jac[k] = jac_ok && ade_test_rand(seed) % 6 == 0;
  r->model[k] = !r->jac[k] || ade_test_rand(seed) % 2;
}

/* A chain of q elementals with random sizes and costs. */
static void random_chain(rdag *r, uint64_t *seed, int q, int jac_ok) {
  r->nv = q + 1;
  r->ne = q;
  for (int i = 0; i <= q; i++) r->size[i] = 1 + ade_test_rand(seed) % 6;
  for (int k = 0; k < q; k++) {
    r->src[k] = k, r->dst[k] = k + 1;
    random_costs(r, seed, k, jac_ok);
  }
}

/* Section 4.3: on single-path DAGs branch and bound equals dynamic
 * programming, and both equal ade_chain_bracket's generalized problem. */
START_TEST(chains) {
  uint64_t seed = 14;
  for (int t = 0; t < 60; t++) {
    rdag r;
    int q = 1 + (int)(ade_test_rand(&seed) % 6), pd = 0, pb = 0;
    random_chain(&r, &seed, q, t % 2);
    ade_mission *d = build(&r);
    uint64_t dp = plan_cost(d, ADE_MISSION_DP, &pd), bnb = plan_cost(d, ADE_MISSION_BNB, &pb);
    ck_assert_msg(dp == bnb, "chain %d: dp %llu, bnb %llu", t, (unsigned long long)dp, (unsigned long long)bnb);
    ck_assert_int_eq(pd && pb, 1);
    if (!(t % 2)) { /* no Jacobians given: the generalized chain bracketing of elim/opt */
      size_t dims[8];
      uint64_t cost;
      for (int i = 0; i <= q; i++) dims[i] = (size_t)r.size[i];
      ck_assert_int_eq(ade_chain_bracket((size_t)q, dims, r.tan, r.adj, &cost, NULL, 0), ADE_OK);
      ck_assert_uint_eq(cost, dp);
    }
    ade_mission_free(d);
  }
}
END_TEST

/* ------------------ an independent exhaustive search (vertices are path sets) */

#define XV 64
typedef struct xvx {
  uint64_t paths;   /* the DAG paths the vertex represents (bits into xg.path) */
  int i, k, jac, model, elem, alive;
} xvx;
typedef struct xst {
  int n;
  xvx v[XV];
  uint64_t succ[XV]; /* intermediate successors, by index */
} xst;
typedef struct xg {
  const rdag *r;
  int np;
  int pfirst[64], plast[64]; /* edges: first and last of each path */
  int cat[64][64];           /* path p then path q, or -1 */
  int in[8], out[8];
  /* memo: open addressing over (hash, key offset, length, value); keys in a pool */
  uint64_t *ent; /* 4 words per entry */
  uint64_t *pool;
  size_t cap, n, npool, cappool;
} xg;

/* Enumerate the DAG's paths as edge sequences (strings of edge numbers). */
static int paths(xg *x) {
  const rdag *r = x->r;
  int seq[64][8], len[64];
  x->np = 0;
  for (int k = 0; k < r->ne; k++) seq[x->np][0] = k, len[x->np++] = 1;
  for (int p = 0; p < x->np; p++)
    for (int k = 0; k < r->ne; k++)
      if (r->src[k] == r->dst[seq[p][len[p] - 1]]) {
        if (x->np == 64) return -1;
        memcpy(seq[x->np], seq[p], sizeof seq[p]);
        len[x->np] = len[p] + 1;
        seq[x->np][len[p]] = k;
        x->np++;
      }
  for (int p = 0; p < x->np; p++) x->pfirst[p] = seq[p][0], x->plast[p] = seq[p][len[p] - 1];
  for (int p = 0; p < x->np; p++)
    for (int q = 0; q < x->np; q++) {
      x->cat[p][q] = -1;
      if (r->dst[x->plast[p]] != r->src[x->pfirst[q]]) continue;
      for (int s = 0; s < x->np; s++)
        if (len[s] == len[p] + len[q] && !memcmp(seq[s], seq[p], (size_t)len[p] * sizeof(int)) &&
            !memcmp(seq[s] + len[p], seq[q], (size_t)len[q] * sizeof(int)))
          x->cat[p][q] = s;
      ck_assert_int_ge(x->cat[p][q], 0);
    }
  return 0;
}

static uint64_t xpreds(const xst *s, int u) {
  uint64_t m = 0;
  for (int w = 0; w < s->n; w++)
    if (s->v[w].alive && (s->succ[w] >> u & 1)) m |= 1ull << w;
  return m;
}
/* P(a) = P(b) and S(a) = S(b), terminals included. */
static int same_nb(const xg *x, const xst *s, int a, int b) {
  uint64_t pa = xpreds(s, a), pb = xpreds(s, b);
  if (pa != pb || s->succ[a] != s->succ[b]) return 0;
  if (!pa && s->v[a].i != s->v[b].i) return 0;
  if (!s->succ[a] && s->v[a].k != s->v[b].k) return 0;
  (void)x;
  return 1;
}
static void xremove(xst *s, int u) {
  s->v[u].alive = 0;
  s->succ[u] = 0;
  for (int w = 0; w < s->n; w++) s->succ[w] &= ~(1ull << u);
}
/* Merge Jacobian twins until none is left; *t follows a merged vertex. */
static void xmerge(const xg *x, xst *s, int *t) {
  for (int again = 1; again;) {
    again = 0;
    for (int a = 0; a < s->n && !again; a++)
      for (int b = a + 1; b < s->n && !again; b++) {
        if (!s->v[a].alive || !s->v[b].alive || !s->v[a].jac || !s->v[b].jac || !same_nb(x, s, a, b)) continue;
        s->v[a].paths |= s->v[b].paths;
        s->v[a].model = 0; /* a sum: no model gives it */
        xremove(s, b);
        if (t && *t == b) *t = a;
        again = 1;
      }
  }
}
static uint64_t xsz(const xg *x, int var) { return x->r->size[var]; }
static uint64_t xacc_cost(const xg *x, const xst *s, int u) {
  const xvx *a = &s->v[u];
  uint64_t t = xsz(x, a->i) * x->r->tan[a->elem], d = xsz(x, a->k) * x->r->adj[a->elem];
  return t < d ? t : d;
}
static uint64_t xacc(const xg *x, xst *s, int *u) {
  uint64_t c = xacc_cost(x, s, *u);
  s->v[*u].jac = 1;
  xmerge(x, s, u);
  return c;
}
/* Rule 2 on face (u, v): the cheapest flavour available, absorb or fill,
 * isolated vertices removed, twins merged. */
static uint64_t xface(const xg *x, xst *s, int u, int v) {
  const xvx *a = &s->v[u], *b = &s->v[v];
  uint64_t c = UINT64_MAX, ni = xsz(x, a->i), nj = xsz(x, a->k), nk = xsz(x, b->k);
  if (a->jac && b->jac) c = ni * nj * nk;
  if (a->jac && b->model && ni * x->r->tan[b->elem] < c) c = ni * x->r->tan[b->elem];
  if (b->jac && a->model && nk * x->r->adj[a->elem] < c) c = nk * x->r->adj[a->elem];
  uint64_t pm = 0;
  for (int p = 0; p < x->np; p++)
    for (int q = 0; a->paths >> p & 1 && q < x->np; q++)
      if (b->paths >> q & 1) pm |= 1ull << x->cat[p][q];
  int w = -1;
  uint64_t pu = xpreds(s, u);
  for (int y = 0; y < s->n && w < 0; y++)
    if (s->v[y].alive && s->v[y].jac && y != u && y != v && xpreds(s, y) == pu && s->succ[y] == s->succ[v] &&
        (pu || s->v[y].i == a->i) && (s->succ[v] || s->v[y].k == b->k))
      w = y;
  if (w >= 0) {
    s->v[w].paths |= pm;
    s->v[w].model = 0;
  } else {
    ck_assert_int_lt(s->n, XV);
    w = s->n++;
    s->v[w] = (xvx){pm, a->i, b->k, 1, 0, -1, 1};
    s->succ[w] = s->succ[v];
    for (int p = 0; p < s->n; p++)
      if (pu >> p & 1) s->succ[p] |= 1ull << w;
  }
  s->succ[u] &= ~(1ull << v);
  if (!s->succ[u]) xremove(s, u);
  if (!xpreds(s, v)) xremove(s, v); /* v starts inside: P(v) is empty */
  xmerge(x, s, NULL);
  return c;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = **(const uint64_t *const *)a, y = **(const uint64_t *const *)b;
  return (x > y) - (x < y);
}

/* The state as words: vertices sorted by path set, each with its
 * successors as a mask of ranks and its flags. */
static size_t xkey(const xst *s, uint64_t *key) {
  const uint64_t *ord[XV];
  int n = 0, rank[XV];
  for (int u = 0; u < s->n; u++)
    if (s->v[u].alive) ord[n++] = &s->v[u].paths;
  qsort(ord, (size_t)n, sizeof *ord, cmp_u64);
  for (int r = 0; r < n; r++) rank[(const xvx *)(const void *)ord[r] - s->v] = r;
  key[0] = (uint64_t)n;
  for (int r = 0; r < n; r++) {
    int u = (int)((const xvx *)(const void *)ord[r] - s->v);
    uint64_t m = 0;
    for (int w = 0; w < s->n; w++)
      if (s->succ[u] >> w & 1) m |= 1ull << rank[w];
    key[1 + 3 * r] = s->v[u].paths;
    key[2 + 3 * r] = m;
    key[3 + 3 * r] = (uint64_t)s->v[u].jac | (uint64_t)s->v[u].model << 1;
  }
  return 1 + 3 * (size_t)n;
}

static uint64_t *xmemo(xg *x, const uint64_t *key, size_t n, int insert, uint64_t v) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ key[i]) * 1099511628211ull;
  h |= 1; /* 0 marks an empty entry */
  for (size_t j = h % x->cap;; j = (j + 1) % x->cap) {
    uint64_t *e = x->ent + 4 * j;
    if (!e[0] && !insert) return NULL;
    if (!e[0]) {
      ck_assert_int_lt(x->n * 2, x->cap);
      if (x->npool + n > x->cappool) {
        x->cappool = 2 * (x->npool + n);
        x->pool = realloc(x->pool, x->cappool * sizeof *x->pool);
        ck_assert_ptr_nonnull(x->pool);
      }
      memcpy(x->pool + x->npool, key, n * sizeof *key);
      e[0] = h, e[1] = x->npool, e[2] = n, e[3] = v;
      x->npool += n;
      x->n++;
      return &e[3];
    }
    if (e[0] == h && e[2] == n && !memcmp(x->pool + e[1], key, n * sizeof *key)) return &e[3];
  }
}

static uint64_t xbest(xg *x, const xst *s) {
  uint64_t key[1 + 3 * XV], best = UINT64_MAX;
  size_t kn = xkey(s, key);
  uint64_t *m = xmemo(x, key, kn, 0, 0);
  if (m) return *m;
  int faces = 0;
  for (int u = 0; u < s->n; u++)
    for (int v = 0; v < s->n; v++) {
      if (!s->v[u].alive || !(s->succ[u] >> v & 1)) continue;
      faces = 1;
      for (int au = 0; au <= !s->v[u].jac; au++)
        for (int av = 0; av <= !s->v[v].jac; av++) {
          if (!s->v[u].jac && !s->v[v].jac && !au && !av) continue;
          xst t = *s;
          int uu = u, vv = v;
          uint64_t c = 0;
          if (au) c += xacc(x, &t, &uu);
          if (av) c += xacc(x, &t, &vv);
          c += xface(x, &t, uu, vv);
          c += xbest(x, &t);
          if (c < best) best = c;
        }
    }
  if (!faces) {
    best = 0;
    for (int u = 0; u < s->n; u++)
      if (s->v[u].alive && !s->v[u].jac) best += xacc_cost(x, s, u);
  }
  xmemo(x, key, kn, 1, best);
  return best;
}

/* The optimum of Problem 2 by exhaustive search; UINT64_MAX if the DAG has
 * too many paths for the search. */
static uint64_t exhaustive(const rdag *r) {
  xg x = {.r = r};
  if (paths(&x)) return UINT64_MAX;
  xst s;
  memset(&s, 0, sizeof s);
  for (int k = 0; k < r->ne; k++) {
    x.in[r->dst[k]]++;
    x.out[r->src[k]]++;
  }
  for (int j = 0; j < r->nv; j++) x.in[j] = !x.in[j]; /* in[j]: j is an input */
  for (int k = 0; k < r->ne; k++) {
    int p = 0;
    while (x.pfirst[p] != k || x.plast[p] != k) p++;
    s.v[k] = (xvx){1ull << p, r->src[k], r->dst[k], r->jac[k], r->model[k], k, 1};
  }
  s.n = r->ne;
  for (int a = 0; a < r->ne; a++)
    for (int b = 0; b < r->ne; b++)
      if (r->dst[a] == r->src[b]) s.succ[a] |= 1ull << b;
  x.cap = 1 << 20;
  x.ent = calloc(4 * x.cap, sizeof *x.ent);
  ck_assert_ptr_nonnull(x.ent);
  uint64_t best = xbest(&x, &s);
  free(x.ent);
  free(x.pool);
  return best;
}

/* A weakly connected random DAG with nv vertices (edges i < j). */
static void random_dag(rdag *r, uint64_t *seed, int nv, int maxe) {
  for (;;) {
    r->nv = nv;
    r->ne = 0;
    int up[8];
    for (int i = 0; i < nv; i++) up[i] = i, r->size[i] = 1 + ade_test_rand(seed) % 5;
    for (int i = 0; i < nv; i++)
      for (int j = i + 1; j < nv && r->ne < maxe; j++)
        if (ade_test_rand(seed) % 100 < 45) {
          r->src[r->ne] = i, r->dst[r->ne] = j;
          random_costs(r, seed, r->ne, 1);
          r->ne++;
          int a = up[i], b = up[j];
          for (int t = 0; t < nv; t++)
            if (up[t] == b) up[t] = a;
        }
    int ok = r->ne > 0;
    for (int i = 1; i < nv; i++) ok &= up[i] == up[0];
    if (ok) return;
  }
}

/* 500 random DAGs with up to 7 vertices: branch and bound equals the
 * exhaustive search; every heuristic plan costs no less. */
START_TEST(random_dags) {
  uint64_t seed = 2023;
  int done = 0;
  while (done < 500) {
    rdag r;
    random_dag(&r, &seed, 2 + (int)(ade_test_rand(&seed) % 6), 8);
    uint64_t ex = exhaustive(&r);
    if (ex == UINT64_MAX) continue;
    ade_mission *d = build(&r);
    int proven = 0;
    uint64_t bnb = plan_cost(d, ADE_MISSION_BNB, &proven);

    ck_assert_msg(bnb == ex, "DAG %d: bnb %llu, exhaustive %llu", done, (unsigned long long)bnb,
                  (unsigned long long)ex);
    ck_assert_int_eq(proven, 1);
    for (int m = ADE_MISSION_SPARSE_TANGENT; m <= ADE_MISSION_GREEDY_COST; m++)
      ck_assert_uint_ge(plan_cost(d, m, NULL), ex);
    ade_mission_free(d);
    done++;
  }
}
END_TEST

/* The search's bound (both bounds in one pass) equals the two bounds
 * computed apart, on every state of random walks through random DAGs. */
START_TEST(bound_one_pass) {
  uint64_t seed = 77;
  int states = 0;
  for (int n = 0; n < 600; n++) {
    rdag r;
    random_dag(&r, &seed, 2 + (int)(ade_test_rand(&seed) % 6), 8);
    ade_mission *d = build(&r);
    ade__mctx c;
    ade__ldag g;
    ck_assert_int_eq(ade_mission_check(d), ADE_OK);
    ck_assert_int_eq(ade__mctx_init(&c, d), ADE_OK);
    ck_assert_int_eq(ade__ldag_init(&g, &c), ADE_OK);
    for (;;) {
      ck_assert_uint_eq(ade__ldag_bound(&g, &c), ade__ldag_bound_ref(&g, &c));
      states++;
      ade__move mv[64 * 4];
      int k = 0;
      for (int u = g.nx + g.ny; u < g.nslot && k < 60 * 4; u++)
        for (int v = g.nx + g.ny; g.v[u].alive && v < g.nslot && k < 60 * 4; v++)
          if (ade__is_face(&g, u, v)) k += ade__face_moves(&g, &c, u, v, mv + k);
      if (!k) break;
      ck_assert_int_eq(ade__move_apply(&g, &c, &mv[ade_test_rand(&seed) % (uint64_t)k], NULL, NULL), ADE_OK);
    }
    ade__ldag_free(&g);
    ade__mctx_free(&c);
    ade_mission_free(d);
  }
  ck_assert_int_ge(states, 1000);
}
END_TEST

/* ------------------------------------------------------------ execution */

/* Elementals with random dense Jacobians (column-major); the callbacks
 * count their multiply-adds. */
typedef struct rjac {
  const rdag *r;
  double *J[16];
  uint64_t fma;
} rjac;

static int t_tangent(void *ud, int k, size_t q, const double *xd, double *yd) {
  rjac *a = ud;
  size_t ni = a->r->size[a->r->src[k]], nj = a->r->size[a->r->dst[k]];
  for (size_t c = 0; c < q; c++)
    for (size_t j = 0; j < ni; j++)
      for (size_t i = 0; i < nj; i++) yd[i + c * nj] += a->J[k][i + j * nj] * xd[j + c * ni];
  a->fma += nj * ni * q;
  return 0;
}

static int t_adjoint(void *ud, int k, size_t q, const double *yb, double *xb) {
  rjac *a = ud;
  size_t ni = a->r->size[a->r->src[k]], nj = a->r->size[a->r->dst[k]];
  for (size_t c = 0; c < q; c++)
    for (size_t j = 0; j < ni; j++)
      for (size_t i = 0; i < nj; i++) xb[j + c * ni] += a->J[k][i + j * nj] * yb[i + c * nj];
  a->fma += nj * ni * q;
  return 0;
}

static int t_jacobian(void *ud, int k, double *J) {
  rjac *a = ud;
  memcpy(J, a->J[k], a->r->size[a->r->src[k]] * a->r->size[a->r->dst[k]] * sizeof *J);
  return 0;
}

/* The dense chain rule in topological order (edges go from lower to
 * higher variables): D_v = sum over edges (s, v) of F'_e D_s, D_x = the
 * selection of input x; J's rows are the outputs' D in variable order. */
static void chain_rule(const rjac *a, double *J, size_t *m, size_t *n) {
  const rdag *r = a->r;
  size_t off[8], tot = 0, rows = 0;
  static double D[8][8 * 64];
  int nin[8] = {0}, nout[8] = {0};
  for (int k = 0; k < r->ne; k++) nin[r->dst[k]]++, nout[r->src[k]]++;
  for (int v = 0; v < r->nv; v++) off[v] = tot, tot += nin[v] ? 0 : r->size[v];
  for (int v = 0; v < r->nv; v++) {
    memset(D[v], 0, sizeof D[v]);
    for (size_t i = 0; !nin[v] && i < r->size[v]; i++) D[v][i * tot + off[v] + i] = 1;
    for (int k = 0; k < r->ne; k++) {
      if (r->dst[k] != v) continue;
      size_t ni = r->size[r->src[k]], nj = r->size[v];
      for (size_t i = 0; i < nj; i++)
        for (size_t j = 0; j < ni; j++)
          for (size_t c = 0; c < tot; c++) D[v][i * tot + c] += a->J[k][i + j * nj] * D[r->src[k]][j * tot + c];
    }
    for (size_t i = 0; !nout[v] && i < r->size[v]; i++, rows++) memcpy(J + rows * tot, D[v] + i * tot, tot * sizeof *J);
  }
  *m = rows;
  *n = tot;
}

/* Plans executed on random DAGs of random dense elementals: the Jacobian
 * is the chain rule's, and the multiply-adds counted by the callbacks and
 * the products are the planned cost (a scalar tangent or adjoint of a
 * dense n_j x n_i elemental costs n_j n_i here). */
START_TEST(execute) {
  uint64_t seed = 5;
  ade_mission_fns f = {t_tangent, t_adjoint, t_jacobian, NULL};
  for (int t = 0; t < 150; t++) {
    rdag r;
    rjac a = {&r, {0}, 0};
    random_dag(&r, &seed, 2 + (int)(ade_test_rand(&seed) % 6), 8);
    for (int k = 0; k < r.ne; k++) {
      size_t ni = r.size[r.src[k]], nj = r.size[r.dst[k]];
      r.tan[k] = r.adj[k] = ni * nj;
      a.J[k] = malloc(ni * nj * sizeof(double));
      for (size_t i = 0; i < ni * nj; i++) a.J[k][i] = ade_test_uniform(&seed, -2, 2);
    }
    ade_mission *d = build(&r);
    double want[64 * 64], got[64 * 64];
    size_t m, n;
    chain_rule(&a, want, &m, &n);
    f.ud = &a;
    for (int meth = ADE_MISSION_SPARSE_TANGENT; meth <= ADE_MISSION_BNB; meth++) {
      ade_mplan *p = NULL;
      if (meth == ADE_MISSION_DP && ade_mission_plan(d, meth, NULL, &p) != ADE_OK) continue;
      if (!p) ck_assert_int_eq(ade_mission_plan(d, meth, NULL, &p), ADE_OK);
      uint64_t products = 0;
      a.fma = 0;
      ck_assert_msg(ade_mplan_execute(p, d, &f, got, &products) == ADE_OK, "%s", ade_errmsg());
      ck_assert_uint_eq(a.fma + products, ade_mplan_cost(p));
      double scale = 0;
      for (size_t i = 0; i < m * n; i++) scale = fmax(scale, fabs(want[i]));
      for (size_t i = 0; i < m * n; i++)
        ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * fmax(1, scale), "DAG %d %s entry %zu: %.17g, want %.17g", t,
                      ade_mission_method_name(meth), i, got[i], want[i]);
      ade_mplan_free(p);
    }
    ade_mission_free(d);
    for (int k = 0; k < r.ne; k++) free(a.J[k]);
  }
}
END_TEST

/* ------------------------------------------------------------- GraphML */

static char *slurp(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", MISSION_DATA, name);
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  char *buf = malloc(1 << 16);
  *len = fread(buf, 1, 1 << 16, f);
  fclose(f);
  buf[*len] = 0;
  return buf;
}

/* Write d as GraphML and read it back: same sizes and the same plan costs. */
START_TEST(graphml_round_trip) {
  static const char *const files[2] = {"lion.xml", "bat.xml"};
  for (int i = 0; i < 2; i++) {
    ade_mission *d = load(files[i]), *e = NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(ade_mission_write_graphml(d, f), ADE_OK);
    fclose(f);
    ck_assert_int_eq(ade_mission_read_graphml_mem(&e, buf, len), ADE_OK);
    int nv, ne, nv2, ne2;
    ade_mission_size(d, &nv, &ne);
    ade_mission_size(e, &nv2, &ne2);
    ck_assert_int_eq(nv, nv2);
    ck_assert_int_eq(ne, ne2);
    for (int m = 0; m < ADE_MISSION_DP; m++) /* the searches are in the tests above */
      ck_assert_uint_eq(plan_cost(d, m, NULL), plan_cost(e, m, NULL));
    free(buf);
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(ade_mission_write_dot(d, f), ADE_OK);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "digraph mission"));
    ck_assert_ptr_nonnull(strstr(buf, "\"0\" -> "));
    free(buf);
    ade_mission_free(d);
    ade_mission_free(e);
  }
}
END_TEST

/* Each malformed file is rejected with the code and a message naming the element. */
START_TEST(graphml_malformed) {
  static const char *const head =
      "<graphml><key id='s' for='node' attr.name='size'/><key id='t' for='edge' attr.name='tangent_cost'/>"
      "<key id='a' for='edge' attr.name='adjoint_cost'/><key id='j' for='edge' attr.name='has_jacobian'/>"
      "<key id='m' for='edge' attr.name='has_model'/><graph edgedefault='directed'>";
  static const char *const ok_edge = "<data key='t'>1</data><data key='a'>2</data><data key='j'>0</data><data key='m'>1</data>";
  static const struct {
    const char *body;
    int code;
    const char *msg;
  } bad[] = {
      {"<node id='x'/><node id='y'><data key='s'>1</data></node><edge source='x' target='y'>%s</edge>", ADE_EFORMAT, "node 'x': missing data 'size'"},
      {"<node id='x'><data key='s'>two</data></node><node id='y'><data key='s'>1</data></node>", ADE_EFORMAT, "node 'x': size 'two'"},
      {"<node id='x'><data key='s'>0</data></node>", ADE_EFORMAT, "node 'x': size"},
      {"<node id='x'><data key='s'>-3</data></node>", ADE_EFORMAT, "node 'x'"},
      {"<node id='x'><data key='s'>99999999999999999999999</data></node>", ADE_EFORMAT, "node 'x'"},
      {"<node id='x'><data key='s'>1</data></node><node id='x'><data key='s'>1</data></node>", ADE_EFORMAT, "node 'x'"},
      {"<node id='x'><data key='s'>1</data></node><edge id='e' source='x' target='z'>%s</edge>", ADE_EFORMAT, "edge 'e': its target is no node"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'><data key='t'>1</data></edge>", ADE_EFORMAT, "edge 'e': missing data 'adjoint_cost'"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'><data key='t'>1</data><data key='a'>1</data><data key='j'>maybe</data><data key='m'>1</data></edge>", ADE_EFORMAT, "edge 'e': has_jacobian 'maybe' is not a boolean"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'><data key='q'>1</data></edge>", ADE_EFORMAT, "edge 'e': data with an undeclared key"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'>%s</edge><edge id='e' source='y' target='x'>%s</edge>", ADE_EFORMAT, "edge 'e'"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'>%s</edge><edge id='f' source='y' target='x'>%s</edge>", ADE_ECYCLE, "on a cycle"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><node id='z'><data key='s'>1</data></node><edge id='e' source='x' target='y'>%s</edge>", ADE_EINVAL, "'z' is not connected"},
      {"<node id='x'><data key='s'>1</data></node><edge id='e' source='x' target='x'>%s</edge>", ADE_EFORMAT, "self loop"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'>%s</edge><edge id='f' source='x' target='y'>%s</edge>", ADE_EFORMAT, "a second edge"},
      {"<node id='x'><data key='s'>1</data></node><node id='y'><data key='s'>1</data></node><edge id='e' source='x' target='y'><data key='t'>1</data><data key='a'>1</data><data key='j'>0</data><data key='m'>0</data></edge>", ADE_EFORMAT, "neither a Jacobian nor a model"},
      {"<node id='a b'><data key='s'>1</data></node>", ADE_EFORMAT, "node"},
      {"", ADE_EINVAL, "no elementals"},
  };
  char doc[4096], body[2048];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(body, sizeof body, bad[i].body, ok_edge, ok_edge);
    snprintf(doc, sizeof doc, "%s%s</graph></graphml>", head, body);
    ade_mission *d = (ade_mission *)1;
    int rc = ade_mission_read_graphml_mem(&d, doc, strlen(doc));
    ck_assert_msg(rc == bad[i].code, "case %zu: %d (%s), expected %d", i, rc, ade_errmsg(), bad[i].code);
    ck_assert_ptr_null(d);
    ck_assert_msg(strstr(ade_errmsg(), bad[i].msg), "case %zu: message '%s' lacks '%s'", i, ade_errmsg(), bad[i].msg);
  }
  static const char *const nonsense[] = {
      "", "not xml", "<graphml>", "<other/>", "<graphml><graph/><graph/></graphml>",
      "<!DOCTYPE g [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;'>]><graphml>&b;</graphml>",
      "<graphml><graph edgedefault='undirected'/></graphml>",
      /* a billion laughs: libxml2 stops it; adelim would reject the DTD anyway */
      "<!DOCTYPE g [<!ENTITY a 'ha'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
      "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'><!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>"
      "<!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'><!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>"
      "<!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'><!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'>]>"
      "<graphml><key id='s' for='node' attr.name='size'/><graph><node id='x'><data key='s'>&h;</data></node>"
      "</graph></graphml>"};
  for (size_t i = 0; i < sizeof nonsense / sizeof nonsense[0]; i++) {
    ade_mission *d = NULL;
    ck_assert_int_eq(ade_mission_read_graphml_mem(&d, nonsense[i], strlen(nonsense[i])), ADE_EFORMAT);
    ck_assert_ptr_null(d);
  }
  ade_mission *d = NULL;
  ck_assert_int_eq(ade_mission_read_graphml(&d, "/nonexistent/mission.xml"), ADE_EIO);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "/nonexistent/mission.xml"));
}
END_TEST

/* Hostile input: lion.xml truncated everywhere and with random bytes
 * changed is read or rejected, never a crash; what is read plans. */
START_TEST(graphml_hostile) {
  size_t len;
  char *good = slurp("lion.xml", &len);
  uint64_t seed = 7;
  for (size_t cut = 0; cut < len; cut += 7) {
    ade_mission *d = NULL;
    if (ade_mission_read_graphml_mem(&d, good, cut) == ADE_OK) ade_mission_free(d);
  }
  char *buf = malloc(len + 1);
  for (int t = 0; t < 2000; t++) {
    memcpy(buf, good, len);
    for (int k = 0, nk = 1 + (int)(ade_test_rand(&seed) % 4); k < nk; k++)
      buf[ade_test_rand(&seed) % len] = (char)(ade_test_rand(&seed) % 256);
    ade_mission *d = NULL;
    int rc = ade_mission_read_graphml_mem(&d, buf, len);
    ck_assert_int_le(rc, 0);
    if (rc == ADE_OK) {
      ade_mplan *p = NULL;
      ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_GREEDY_MIN_FILL, NULL, &p), ADE_OK);
      ade_mplan_free(p);
      ade_mission_free(d);
    } else {
      ck_assert_ptr_null(d);
      ck_assert_int_gt((int)strlen(ade_errmsg()), 0);
    }
  }
  free(buf);
  free(good);
}
END_TEST

/* ------------------------------------------------- limits, threads, API */

static int calls;
static void count_progress(void *ud, const ade_mission_progress *p) {
  (void)ud;
  (void)p;
  calls++;
}

START_TEST(limits_threads) {
  ade_mission *d = load("bat.xml");
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.node_limit = 1;
  l.progress = count_progress;
  ade_mplan *p = NULL;
  ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_BNB, &l, &p), ADE_OK);
  ck_assert_int_eq(ade_mplan_proven(p), 0);
  ck_assert_int_eq(ade_mplan_limited(p), 1);
  ck_assert_uint_ge(ade_mplan_cost(p), 32); /* a valid plan, not proven */
  ade_mplan_free(p);
  ade_mission_free(d);
  ade_mission_limits_init(&l);
  l.threads = 3;
  uint64_t seed = 99;
  for (int t = 0; t < 20; t++) {
    rdag r;
    random_dag(&r, &seed, 6, 9);
    d = build(&r);
    ck_assert_uint_eq(plan_lim(d, ADE_MISSION_BNB, &l, NULL), plan_cost(d, ADE_MISSION_BNB, NULL));
    ade_mission_free(d);
  }
}
END_TEST

/* Clocked heuristics (branch and bound's incumbents but sparse tangent
 * mode): past the time limit greedy-min-fill, greedy-cost and sparse
 * adjoint mode stop with ADE_ELIMIT (leaking nothing: the suite runs
 * under the sanitizers), unclocked they complete; branch and bound out
 * of time still returns a valid plan, flagged limited unless proven. */
START_TEST(expired_clock) {
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.time_limit = 1e-9;
  uint64_t seed = 4242;
  int stopped[3] = {0, 0, 0};
  for (int t = 0; t < 200; t++) {
    rdag r;
    random_dag(&r, &seed, 3 + (int)(ade_test_rand(&seed) % 5), 9);
    ade_mission *d = build(&r);
    ade__mctx c;
    ck_assert_int_eq(ade_mission_check(d), ADE_OK);
    ck_assert_int_eq(ade__mctx_init(&c, d), ADE_OK);
    for (int m = 0; m < 3; m++) {
      ade__mrun run = {&c, &l, ade__now() - 1, 0, 0, 0, 0, 1};
      ade__mseq s = {0};
      int st = m < 2 ? ade__m_greedy(&run, m, &s) : ade__m_sparse(&run, 1, &s);
      ck_assert(st == ADE_OK || st == ADE_ELIMIT);
      stopped[m] += st == ADE_ELIMIT;
      ade__clear_error();
      ade__mseq_free(&s);
      run.clocked = 0;
      ck_assert_int_eq(m < 2 ? ade__m_greedy(&run, m, &s) : ade__m_sparse(&run, 1, &s), ADE_OK);
      ade__mseq_free(&s);
    }
    ade__mctx_free(&c);
    ade_mplan *p = NULL;
    int opt = 0;
    uint64_t best = plan_cost(d, ADE_MISSION_BNB, &opt);
    ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_BNB, &l, &p), ADE_OK);
    ck_assert_uint_ge(ade_mplan_cost(p), best);
    ck_assert(ade_mplan_proven(p) || ade_mplan_limited(p));
    ade_mplan_free(p);
    ade_mission_free(d);
  }
  for (int m = 0; m < 3; m++) ck_assert_int_gt(stopped[m], 100);
}
END_TEST

START_TEST(api_errors) {
  ade_mission *d = example5();
  ade_mplan *p = (ade_mplan *)1;
  ck_assert_int_eq(ade_mission_plan(d, 99, NULL, &p), ADE_EINVAL);
  ck_assert_ptr_null(p);
  ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_BNB, NULL, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_add_var(d, "0", 3, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_add_var(d, "big", 2000000, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_add_var(d, "a\"b", 2, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_add_elemental(d, NULL, 0, 7, 1, 1, 0, 1), ADE_EINVAL);
  ck_assert_int_eq(ade_mission_add_elemental(d, NULL, 0, 1, 1, 1, 0, 1), ADE_EINVAL); /* parallel */
  for (int m = 0; m < ADE_MISSION_NMETHODS; m++)
    ck_assert_int_eq(ade_mission_method_parse(ade_mission_method_name(m)), m);
  ck_assert_int_eq(ade_mission_method_parse("nope"), -1);
  ck_assert_ptr_null(ade_mission_method_name(-1));
  ade_mission_free(NULL);
  ade_mplan_free(NULL);
  ade_mission_free(d);
  /* dp on a DAG that is not a chain */
  d = load("lion.xml");
  ck_assert_int_eq(ade_mission_plan(d, ADE_MISSION_DP, NULL, &p), ADE_EINVAL);
  ade_mission_free(d);
}
END_TEST

/* Every allocation failure is ADE_ENOMEM, leaks nothing, and the run
 * after it succeeds with the same plan. */
START_TEST(out_of_memory) {
  ade_mission *d = load("lion.xml");
  static const int methods[3] = {ADE_MISSION_SPARSE_ADJOINT, ADE_MISSION_GREEDY_COST, ADE_MISSION_BNB};
  for (int i = 0; i < 3; i++) {
    int m = methods[i];
    uint64_t want = plan_cost(d, m, NULL);
    for (long k = 0;; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_mplan *p = NULL;
      ade_set_allocator(ade_test_alloc_fn, &a);
      int rc = ade_mission_plan(d, m, NULL, &p);
      uint64_t c = ade_mplan_cost(p);
      ade_mplan_free(p);
      ade_set_allocator(NULL, NULL);
      ck_assert_int_eq(a.live, 0);
      if (rc == ADE_OK) {
        ck_assert_uint_eq(c, want);
        break;
      }
      ck_assert_int_eq(rc, ADE_ENOMEM);
    }
  }
  ade_mission_free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mission");
  TCase *tc = tcase_create("papers");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, lion);
  tcase_add_test(tc, bat);
  tcase_add_test(tc, bat_proof);
  tcase_add_test(tc, example5_variants);
  tcase_add_test(tc, example6);
  tcase_add_test(tc, op_costs);
  tcase_add_test(tc, newton_steps);
  tcase_add_test(tc, newton_chain_100);
  suite_add_tcase(s, tc);
  tc = tcase_create("property");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, chains);
  tcase_add_test(tc, random_dags);
  tcase_add_test(tc, bound_one_pass);
  tcase_add_test(tc, limits_threads);
  tcase_add_test(tc, expired_clock);
  tcase_add_test(tc, execute);
  suite_add_tcase(s, tc);
  tc = tcase_create("input and errors");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, graphml_round_trip);
  tcase_add_test(tc, graphml_malformed);
  tcase_add_test(tc, graphml_hostile);
  tcase_add_test(tc, api_errors);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
