/* check_hier.c: the heuristic hierarchies' incremental keys against the rescanning reference (the checking mode), on random graphs and the papers' examples, and their time limit. */
#include <string.h>

#include "opt_internal.h"
#include "randprog.h"
#include "sweeps.h"

/* The filters of each kind other than the tie-breakers. */
static const char *const vf[] = {"sibling", "succpred", "markowitz", "relative", "fillin"};
static const char *const ef[] = {"sibling", "markowitz", "fillin"};
static const char *const ff[] = {"absorb", "cost"};

/* A random hierarchy of kind: 0-4 filters (repeats allowed), then forward
 * or reverse. */
static void random_chain(uint64_t *rs, int kind, char *buf, size_t cap) {
  const char *const *f = kind == ADE_SEQ_VERTEX ? vf : kind == ADE_SEQ_EDGE ? ef : ff;
  size_t nf = kind == ADE_SEQ_VERTEX ? 5 : kind == ADE_SEQ_EDGE ? 3 : 2, n = ade_test_rand(rs) % 5;
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    strncat(buf, f[ade_test_rand(rs) % nf], cap - strlen(buf) - 1);
    strncat(buf, ",", cap - strlen(buf) - 1);
  }
  strncat(buf, ade_test_rand(rs) % 2 ? "forward" : "reverse", cap - strlen(buf) - 1);
}

/* The graphs where vertex Markowitz alone was cheaper than the hierarchy
 * of each kind and the sweep (so the optimizer's comparison with it was
 * needed). */
static int markowitz_needed[3];

/* The checking mode: the incremental hierarchy makes the choices of the
 * rescanning reference, step by step, and its sequence is complete and
 * costs what the engines count. */
static void same_choices(const ade_cgraph *g, int kind, const char *spec, const char *what) {
  ade_elim_seq *inc = NULL, *ref = NULL;
  ade_cgraph *d = NULL;
  int done = 0;
  uint64_t cost = 0;
  ck_assert_msg(ade__opt_hierarchy_raw(g, kind, spec, NULL, 0, &inc, NULL) == ADE_OK, "%s: %s", spec, ade_errmsg());
  ck_assert_msg(ade__opt_hierarchy_raw(g, kind, spec, NULL, 1, &ref, NULL) == ADE_OK, "%s: %s", spec, ade_errmsg());
  ck_assert_msg(ade_seq_length(inc) == ade_seq_length(ref), "%s %s: %zu steps, reference %zu", what, spec,
                ade_seq_length(inc), ade_seq_length(ref));
  for (size_t k = 0; k < ade_seq_length(inc); k++) {
    const ade_elim_step *x = ade_seq_step(inc, k), *y = ade_seq_step(ref, k);
    ck_assert_msg(x->a == y->a && x->b == y->b && x->dir == y->dir,
                  "%s %s step %zu: (%ld, %ld, %d), reference (%ld, %ld, %d)", what, spec, k + 1, x->a, x->b, x->dir,
                  y->a, y->b, y->dir);
  }
  ck_assert_uint_eq(ade_seq_cost(inc), ade_seq_cost(ref));
  if (kind == ADE_SEQ_FACE) ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ck_assert_msg(ade_seq_validate(d ? d : g, inc, &done, &cost) == ADE_OK, "%s %s: %s", what, spec, ade_errmsg());
  ck_assert(done);
  ck_assert_uint_eq(cost, ade_seq_cost(inc));
  /* the optimizer: the hierarchy's sequence, or the vector modes' sweep
   * (both directions where ade__both_sweeps, and after the chains: each
   * run alone here, sweeps.h) if that costs less (in every kind what the
   * vertex sequence costs), or vertex Markowitz's if that costs less still */
  ade_elim_seq *opt = NULL, *vm = NULL;
  ck_assert_int_eq(ade__order_raw(g, ADE_ORDER_VERTEX_MARKOWITZ, 0, &vm), ADE_OK);
  ck_assert_int_eq(ade__opt_hierarchy(g, kind, spec, NULL, &opt, NULL), ADE_OK);
  uint64_t sweep = vector_cost(g);
  uint64_t want = ade_seq_cost(inc) <= sweep ? ade_seq_cost(inc) : sweep;
  if (ade_seq_cost(vm) < want) want = ade_seq_cost(vm), markowitz_needed[kind]++;
  ck_assert_msg(ade_seq_cost(opt) == want, "%s %s: %llu, want %llu", what, spec, (unsigned long long)ade_seq_cost(opt),
                (unsigned long long)want);
  /* the sweep and vertex Markowitz come back as vertices in every kind */
  ck_assert(ade_seq_kind(opt) == kind ||
            (ade_seq_kind(opt) == ADE_SEQ_VERTEX && (ade_seq_cost(opt) == sweep || ade_seq_cost(opt) == ade_seq_cost(vm))));
  ck_assert_msg(ade_seq_validate(ade_seq_kind(opt) == ADE_SEQ_FACE ? d : g, opt, &done, &cost) == ADE_OK, "%s %s: %s",
                what, spec, ade_errmsg());
  ck_assert(done);
  ck_assert_uint_eq(cost, want);
  ade_cgraph_free(d);
  ade_seq_free(opt);
  ade_seq_free(vm);
  ade_seq_free(inc);
  ade_seq_free(ref);
}

/* Every kind (faces on graphs of at most max_face_edges edges), the
 * default hierarchies and nchains random ones. */
static void check_graph(const ade_cgraph *g, uint64_t *rs, int nchains, size_t max_face_edges, const char *what) {
  char spec[256];
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
    if (kind == ADE_SEQ_FACE && g->nedges > max_face_edges) continue;
    same_choices(g, kind, ade__hier_default(kind), what);
    for (int c = 0; c < nchains; c++) {
      random_chain(rs, kind, spec, sizeof spec);
      same_choices(g, kind, spec, what);
    }
  }
}

static ade_cgraph *graph(size_t n, const long *x, size_t m, const long *y, size_t ne, const long (*e)[2]) {
  long src[64], dst[64];
  for (size_t k = 0; k < ne; k++) src[k] = e[k][0], dst[k] = e[k][1];
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&g, n, x, m, y, ne, src, dst, NULL) == ADE_OK, "%s", ade_errmsg());
  return g;
}

/* A random DAG: n independents, p intermediates, m dependents, each
 * vertex reading earlier ones with probability dens (at least one); an
 * intermediate without successor feeds a later vertex. */
static ade_cgraph *random_dag(uint64_t *rs, size_t n, size_t p, size_t m, double dens) {
  size_t nid = n + p + m, ne = 0, cap = nid * nid + nid;
  long *src = malloc(cap * sizeof *src), *dst = malloc(cap * sizeof *dst), x[16], y[16];
  char *hasout = calloc(nid, 1);
  for (size_t i = 0; i < n; i++) x[i] = (long)i + 1 - (long)n;
  for (size_t i = 0; i < m; i++) y[i] = (long)(p + 1 + i);
  for (size_t t = n; t < nid; t++) {
    long id = (long)t + 1 - (long)n;
    size_t lim = t < n + p ? t : n + p, first = ne;
    for (size_t s = 0; s < lim; s++)
      if (ade_test_uniform(rs, 0, 1) < dens) src[ne] = (long)s + 1 - (long)n, dst[ne++] = id, hasout[s] = 1;
    if (ne == first) {
      size_t s = ade_test_rand(rs) % lim;
      src[ne] = (long)s + 1 - (long)n, dst[ne++] = id, hasout[s] = 1;
    }
  }
  for (size_t s = n; s < n + p; s++)
    if (!hasout[s]) src[ne] = (long)s + 1 - (long)n, dst[ne++] = (long)(s + 2 - n + ade_test_rand(rs) % (n + p + m - s - 1));
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&g, n, x, m, y, ne, src, dst, NULL) == ADE_OK, "%s", ade_errmsg());
  free(src), free(dst), free(hasout);
  return g;
}

START_TEST(random_dags) {
  uint64_t rs = 2024;
  for (int it = 0; it < 400; it++) {
    size_t n = 1 + ade_test_rand(&rs) % 5, m = 1 + ade_test_rand(&rs) % 5, p = 1 + ade_test_rand(&rs) % 14;
    ade_cgraph *g = random_dag(&rs, n, p, m, ade_test_uniform(&rs, 0.1, 0.5));
    check_graph(g, &rs, 4, 60, "random dag");
    ade_cgraph_free(g);
  }
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) /* each kind's alone loses to it now and then */
    ck_assert_msg(markowitz_needed[kind] > 0, "kind %d: vertex Markowitz never needed", kind);
}
END_TEST

/* The default edge hierarchy's queue with the run (the start's tuples
 * sorted once) and with the heap alone, or after a sort whose result is
 * rejected: the same sequences. */
static void run_vs_heap(const ade_cgraph *g, int heap, const char *what) {
  ade_elim_seq *a = NULL, *b = NULL;
  ade__hier_run = 1;
  ck_assert_msg(ade__opt_hierarchy_raw(g, ADE_SEQ_EDGE, NULL, NULL, 0, &a, NULL) == ADE_OK, "%s", ade_errmsg());
  ade__hier_run = heap; /* 0: the heap alone; -1: the heap after a rejected sort */
  int st = ade__opt_hierarchy_raw(g, ADE_SEQ_EDGE, NULL, NULL, 0, &b, NULL);
  ade__hier_run = 1;
  ck_assert_msg(st == ADE_OK, "%s", ade_errmsg());
  ade_test_same_seq(a, b, what, 0); /* b: the heap alone */
  ade_seq_free(a);
  ade_seq_free(b);
}

START_TEST(run_against_heap) {
  uint64_t rs = 77;
  for (int it = 0; it < 300; it++) {
    size_t n = 1 + ade_test_rand(&rs) % 5, m = 1 + ade_test_rand(&rs) % 5, p = 1 + ade_test_rand(&rs) % 30;
    ade_cgraph *g = random_dag(&rs, n, p, m, ade_test_uniform(&rs, 0.1, 0.5));
    run_vs_heap(g, it % 2 ? 0 : -1, "random dag");
    ade_cgraph_free(g);
  }
  for (uint64_t seed = 1; seed <= 60; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 4);
    randprog p = rp_make(seed + 500, n, m, 20 + (int)(ade_test_rand(&rs) % 200));
    double x[8];
    for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (double)i;
    ade_tape *t = rp_record(&p, x, NULL);
    ade_cgraph *g = NULL;
    ck_assert_msg(ade_cgraph_from_tape(&g, t, NULL) == ADE_OK, "%s", ade_errmsg());
    run_vs_heap(g, seed % 2 ? 0 : -1, "random tape");
    ade_cgraph_free(g);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* The face hierarchy's queue audited after every step (ADE__ORDER_AUDIT):
 * every face's tuple computed from scratch has an entry no greater than
 * it (a step re-keys only the faces whose tuples can drop: the fill-in
 * trades, the merges, face_changed in opt_hier.c). The audited run makes
 * the queue's choices. */
static void face_audit(const ade_cgraph *g, const char *spec, const char *what, uint64_t seed) {
  ade_elim_seq *inc = NULL, *aud = NULL;
  ck_assert_msg(ade__opt_hierarchy_raw(g, ADE_SEQ_FACE, spec, NULL, 0, &inc, NULL) == ADE_OK, "%s", ade_errmsg());
  ck_assert_msg(ade__opt_hierarchy_raw(g, ADE_SEQ_FACE, spec, NULL, ADE__ORDER_AUDIT, &aud, NULL) == ADE_OK,
                "%s %s seed %llu: %s", what, spec, (unsigned long long)seed, ade_errmsg());
  ade_test_same_seq(aud, inc, what, seed);
  ade_seq_free(inc);
  ade_seq_free(aud);
}

START_TEST(face_queue_audit) {
  uint64_t rs = 909;
  char spec[256];
  for (uint64_t it = 0; it < 300; it++) {
    size_t n = 1 + ade_test_rand(&rs) % 5, m = 1 + ade_test_rand(&rs) % 5, p = 1 + ade_test_rand(&rs) % 24;
    ade_cgraph *g = random_dag(&rs, n, p, m, ade_test_uniform(&rs, 0.1, 0.5));
    random_chain(&rs, ADE_SEQ_FACE, spec, sizeof spec);
    face_audit(g, it % 2 ? spec : NULL, "random dag", it);
    ade_cgraph_free(g);
  }
  for (uint64_t seed = 1; seed <= 60; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 4);
    randprog p = rp_make(seed + 900, n, m, 10 + (int)(ade_test_rand(&rs) % 60));
    double x[8];
    for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (double)i;
    ade_tape *t = rp_record(&p, x, NULL);
    ade_cgraph *g = NULL;
    ck_assert_msg(ade_cgraph_from_tape(&g, t, NULL) == ADE_OK, "%s", ade_errmsg());
    face_audit(g, NULL, "random tape", seed);
    ade_cgraph_free(g);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

START_TEST(random_tapes) {
  uint64_t rs = 31;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 4);
    randprog p = rp_make(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 50));
    double x[8];
    for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (double)i;
    ade_tape *t = rp_record(&p, x, NULL);
    ade_cgraph *g = NULL;
    ck_assert_msg(ade_cgraph_from_tape(&g, t, NULL) == ADE_OK, "%s", ade_errmsg());
    check_graph(g, &rs, 3, 80, "random tape");
    ade_cgraph_free(g);
    ade_tape_free(t);
    rp_free(&p);
  }
}
END_TEST

/* The papers' examples of the tests (check_opt.c), every hierarchy of
 * check_opt's list and random ones; the DP paper's numbers (Figure 6:
 * relative,forward 18 = V_LR, markowitz,forward 22 = V_LM) still met. */
START_TEST(paper_examples) {
  static const long lx[] = {-1, 0}, ly[] = {3, 4, 5, 6};
  static const long le[][2] = {{-1, 1}, {0, 1}, {1, 2}, {1, 6}, {2, 3}, {2, 4}, {2, 5}, {2, 6}};
  static const long bx[] = {-3, -2, -1, 0}, by[] = {4, 5, 6, 7};
  static const long be[][2] = {{-3, 1}, {-2, 1}, {-1, 2}, {0, 2}, {1, 3}, {2, 3},
                               {3, 4},  {3, 5},  {3, 6},  {3, 7}, {1, 4}, {2, 7}};
  static const long mx[] = {-1, 0}, my[] = {4, 5};
  static const long me[][2] = {{-1, 1}, {0, 1}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {3, 5}};
  static const long dx[] = {-2, -1, 0}, dy[] = {4, 5, 6};
  static const long de[][2] = {{-2, 2}, {-2, 3}, {-1, 1}, {0, 1}, {1, 2}, {1, 3},
                               {2, 4},  {2, 5},  {2, 6},  {3, 4}, {3, 5}, {3, 6}};
  static const char *const fixed[][3] = {
      {"sibling,succpred,markowitz,reverse", "sibling,markowitz,reverse", "absorb,cost,forward"},
      {"markowitz,forward", "markowitz,fillin,forward", "cost,reverse"},
      {"relative,reverse", "fillin,reverse", "absorb,reverse"},
      {"fillin,markowitz,forward", "sibling,fillin,markowitz,forward", "absorb,cost,reverse"},
      {"succpred,sibling,relative,forward", "sibling,sibling,reverse", "cost,absorb,forward"}};
  ade_cgraph *gs[4] = {graph(2, lx, 4, ly, 8, le), graph(4, bx, 4, by, 12, be), graph(2, mx, 2, my, 7, me),
                       graph(3, dx, 3, dy, 12, de)};
  uint64_t rs = 7;
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 5; k++)
      for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) same_choices(gs[i], kind, fixed[k][kind], "paper");
    check_graph(gs[i], &rs, 20, 100, "paper");
  }
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade__opt_hierarchy_raw(gs[3], ADE_SEQ_VERTEX, "relative,forward", NULL, 0, &s, NULL), ADE_OK);
  ck_assert_uint_eq(ade_seq_cost(s), 18);
  ade_seq_free(s);
  ck_assert_int_eq(ade__opt_hierarchy_raw(gs[3], ADE_SEQ_VERTEX, "markowitz,forward", NULL, 0, &s, NULL), ADE_OK);
  ck_assert_uint_eq(ade_seq_cost(s), 22);
  ade_seq_free(s);
  for (int i = 0; i < 4; i++) ade_cgraph_free(gs[i]);
}
END_TEST

/* A chain of L layers of W vertices, each reading two of the layer
 * before, 4 independents and m dependents: too large to finish in a few
 * milliseconds on faces. */
static ade_cgraph *layers(long L, long W, long m) {
  size_t ne = 0;
  long x[4] = {-3, -2, -1, 0}, y[4], *src = malloc((size_t)(2 * L * W + W) * sizeof *src);
  long *dst = malloc((size_t)(2 * L * W + W) * sizeof *dst);
  for (long i = 0; i < m; i++) y[i] = L * W + 1 + i;
  for (long t = 0; t < L * W; t++) {
    long k = t % W;
    src[ne] = t < W ? x[k % 4] : t + 1 - W, dst[ne++] = t + 1;
    src[ne] = t < W ? x[(k + 1) % 4] : t + 1 - W - k + (k + 1) % W, dst[ne++] = t + 1;
  }
  for (long k = 0; k < W; k++) src[ne] = (L - 1) * W + k + 1, dst[ne++] = y[k % m];
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 4, x, (size_t)m, y, ne, src, dst, NULL), ADE_OK);
  free(src), free(dst);
  return g;
}

/* An expired clock: the rest in the order of the cheaper vector mode
 * (forward with m = n = 4, reverse with m = 2 < n), flagged, complete,
 * costing what the engines count; compared with the sweep, the sweep. */
/* The cut bound of g (doc/elimination.md, "Cut bounds"). */
static uint64_t cut_bound(const ade_cgraph *g) {
  uint8_t *b = NULL;
  uint64_t lb = g->fma;
  ck_assert_int_eq(ade__cut_bounds(g, &b), ADE_OK);
  for (size_t j = 0; j < g->nv; j++) lb += g->v[j].alive && g->v[j].kind == ADE__Z ? ade__cut(b, j) : 0;
  ade__free(b);
  return lb;
}

START_TEST(time_limit) {
  int proven = 0;
  ade_opt_limits l;
  for (long m = 2; m <= 4; m += 2) {
    ade_cgraph *g = layers(40, 50, m);
    for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
      ade__clock clk;
      ade_elim_seq *s = NULL;
      int limited = 0, done = 0;
      uint64_t cost = 0;
      ade_cgraph *d = NULL;
      ade_opt_limits_init(&l);
      l.time_limit = 1e-9;
      ade__clock_start(&clk, &l);
      while (!ade__clock_expired(&clk, 0)) continue;
      ck_assert_int_eq(ade__opt_hierarchy_raw(g, kind, NULL, &clk, 0, &s, &limited), ADE_OK);
      ck_assert(limited);
      if (kind == ADE_SEQ_FACE) ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
      ck_assert_msg(ade_seq_validate(d ? d : g, s, &done, &cost) == ADE_OK, "%s", ade_errmsg());
      ck_assert(done);
      ck_assert_uint_eq(cost, ade_seq_cost(s));
      ade_cgraph_free(d);
      ade_seq_free(s);
      /* compared (ade__opt_hierarchy): the run is dropped at the limit, not
       * completed, and the sweep it is compared with is the answer (vertex
       * Markowitz is dropped at the limit too); bench/bench_limits.sh
       * measures that the limit holds */
      ade_elim_seq *v = NULL;
      limited = 0;
      ck_assert_int_eq(ade__opt_hierarchy(g, kind, NULL, &clk, &s, &limited), ADE_OK);
      ck_assert_int_eq(ade__vector_sweep(g, &v), ADE_OK);
      ck_assert(limited || ade_seq_cost(v) == cut_bound(g)); /* else proven: nothing ran */
      proven += !limited;
      ade_test_same_seq(s, v, "a hierarchy at its limit", (uint64_t)kind);
      ck_assert_int_eq(ade_seq_kind(s), ADE_SEQ_VERTEX);
      ade_seq_free(v);
      ade_seq_free(s);
    }
    ade_cgraph_free(g);
  }
  ck_assert_int_lt(proven, 6);
}
END_TEST

/* Progress (ade_opt_limits.progress, every 1024 steps with a tiny
 * interval): the hierarchy reports its steps as nodes and the cost it must
 * beat as the incumbent, and the reports change nothing. */
typedef struct hreports {
  int kind, n, bad;
  uint64_t nodes, incumbent;
} hreports;

static void on_hier(void *ud, const ade_opt_progress *p) {
  hreports *r = ud;
  r->bad += p->method != ADE_OPT_HIERARCHY || p->kind != r->kind || p->nodes % 1024 || p->nodes <= r->nodes ||
            p->seconds < 0 || (r->n && p->incumbent != r->incumbent);
  r->nodes = p->nodes, r->incumbent = p->incumbent;
  r->n++;
}

START_TEST(progress_reports) {
  ade_cgraph *g = layers(40, 50, 4); /* with 2 dependents the cut bounds prove the sweep optimal: no run */
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
    hreports r = {kind, 0, 0, 0, 0};
    ade_opt_limits l;
    ade_opt_report a, b;
    ade_elim_seq *s = NULL, *t = NULL;
    ade_opt_limits_init(&l);
    l.progress = on_hier, l.progress_ud = &r, l.progress_interval = 1e-9;
    l.hierarchy = kind == ADE_SEQ_VERTEX ? "markowitz,forward" : NULL; /* the default is cut within 1024 steps here */
    ck_assert_int_eq(ade_optimize(g, kind, ADE_OPT_HIERARCHY, &l, &s, &a), ADE_OK);
    l.progress = NULL;
    ck_assert_int_eq(ade_optimize(g, kind, ADE_OPT_HIERARCHY, &l, &t, &b), ADE_OK);
    ck_assert_uint_eq(a.cost, b.cost);
    ck_assert_uint_eq(ade_seq_length(s), ade_seq_length(t));
    ck_assert_msg(r.n > 0 && !r.bad, "kind %d: %d reports, %d bad", kind, r.n, r.bad);
    ck_assert_uint_ge(r.incumbent, a.cost); /* the bar: what the returned sequence costs at most */
    ade_seq_free(s);
    ade_seq_free(t);
  }
  ade_cgraph_free(g);
  /* With 2 dependents the cut bounds reach the sweep's cost: an edge or
   * face hierarchy, which would lose a tie, returns the sweep unrun. */
  g = layers(40, 50, 2);
  ade_jacobian_baselines b;
  ck_assert_int_eq(ade_cgraph_baselines(g, &b), ADE_OK);
  ck_assert_uint_eq(b.cut, vector_cost(g));
  for (int kind = ADE_SEQ_EDGE; kind <= ADE_SEQ_FACE; kind++) {
    hreports r = {kind, 0, 0, 0, 0};
    ade_opt_limits l;
    ade_opt_report a;
    ade_elim_seq *s = NULL;
    ade_opt_limits_init(&l);
    l.progress = on_hier, l.progress_ud = &r, l.progress_interval = 1e-9;
    ck_assert_int_eq(ade_optimize(g, kind, ADE_OPT_HIERARCHY, &l, &s, &a), ADE_OK);
    ck_assert_int_eq(r.n, 0);
    ck_assert_uint_eq(a.cost, b.cut);
    ck_assert_int_eq(ade_seq_kind(s), ADE_SEQ_VERTEX);
    ade_seq_free(s);
  }
  ade_cgraph_free(g);
}
END_TEST

/* The Jacobian a hierarchy's run leaves (ade__seq_keep_result) is what
 * eliminating its sequence again gives, bit for bit; it is read off only
 * for the graph it was built on: not for the same structure at another
 * point, nor after a step is pushed. */
START_TEST(kept_jacobian) {
  int kept = 0;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    int n = 1 + (int)(seed % 4), m = 1 + (int)(seed % 3);
    randprog p = rp_make(seed + 900, n, m, 10 + (int)(seed * 7 % 60));
    double x[8], x2[8];
    for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (double)i, x2[i] = x[i] + 0.05;
    ade_tape *t = rp_record(&p, x, NULL), *t2 = rp_record(&p, x2, NULL);
    ade_cgraph *g = NULL, *g2 = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    ck_assert_int_eq(ade_cgraph_from_tape(&g2, t2, NULL), ADE_OK);
    for (int kind = ADE_SEQ_EDGE; kind <= ADE_SEQ_FACE; kind++) {
      ade_elim_seq *s = NULL;
      ade_opt_limits lim;
      ade_opt_limits_init(&lim);
      ck_assert_int_eq(ade_optimize(g, kind, ADE_OPT_HIERARCHY, &lim, &s, NULL), ADE_OK);
      kept += s->jac != NULL;
      for (int other = 0; other < 2; other++) {
        ade_tape *tt = other ? t2 : t;
        ade_jacobian_options o = {0}, oc = {0};
        o.seq = oc.seq = s, o.graph = oc.graph = other ? g2 : g, oc.check = 1; /* check: eliminated again */
        ade_sparse *J = NULL, *Jc = NULL;
        ade_jacobian_report r, rc;
        if (other && ade__graph_fingerprint(g2) != ade__graph_fingerprint(g)) continue; /* a branch flipped */
        ck_assert_msg(ade_jacobian(tt, 0, &o, &J, &r) == ADE_OK, "%s", ade_errmsg());
        ck_assert_msg(ade_jacobian(tt, 0, &oc, &Jc, &rc) == ADE_OK, "%s", ade_errmsg());
        ck_assert_uint_eq(J->nnz, Jc->nnz);
        ck_assert_mem_eq(J->rowptr, Jc->rowptr, (J->m + 1) * sizeof *J->rowptr);
        ck_assert_mem_eq(J->col, Jc->col, J->nnz * sizeof *J->col);
        ck_assert_mem_eq(J->val, Jc->val, J->nnz * sizeof *J->val);
        ck_assert_uint_eq(r.fma, rc.fma);
        ck_assert_uint_eq(r.fill, rc.fill);
        ck_assert_uint_eq(r.absorbed, rc.absorbed);
        ade_sparse_free(J);
        ade_sparse_free(Jc);
      }
      if (s->jac) { /* another step: the kept Jacobian goes */
        ck_assert_int_eq(ade_seq_push(s, 1, 2, 0), ADE_OK);
        ck_assert_ptr_null(s->jac);
      }
      ade_seq_free(s);
    }
    ade_cgraph_free(g);
    ade_cgraph_free(g2);
    ade_tape_free(t);
    ade_tape_free(t2);
    rp_free(&p);
  }
  ck_assert_int_ge(kept, 8); /* the hierarchy won, and kept its Jacobian, on some (12 of 240) */
}
END_TEST

/* Out of memory at every allocation: ADE_ENOMEM, nothing leaked. */
START_TEST(out_of_memory) {
  static const long bx[] = {-3, -2, -1, 0}, by[] = {4, 5, 6, 7};
  static const long be[][2] = {{-3, 1}, {-2, 1}, {-1, 2}, {0, 2}, {1, 3}, {2, 3},
                               {3, 4},  {3, 5},  {3, 6},  {3, 7}, {1, 4}, {2, 7}};
  static const char *const spec[] = {"sibling,succpred,fillin,relative,reverse", "sibling,fillin,markowitz,forward",
                                     "absorb,cost,forward"};
  ade_cgraph *g = graph(4, bx, 4, by, 12, be);
  for (int kind = ADE_SEQ_VERTEX; kind <= ADE_SEQ_FACE; kind++) {
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_elim_seq *s = NULL;
      ade_set_allocator(ade_test_alloc_fn, &a);
      int st = ade__opt_hierarchy(g, kind, spec[kind], NULL, &s, NULL);
      ade_seq_free(s);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "kind %d k=%ld: %d", kind, k, st);
      ck_assert_msg(a.live == 0, "kind %d k=%ld: %ld blocks leaked", kind, k, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
  ade_cgraph_free(g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hier");
  TCase *tc = tcase_create("incremental");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, random_dags);
  tcase_add_test(tc, random_tapes);
  tcase_add_test(tc, run_against_heap);
  tcase_add_test(tc, face_queue_audit);
  tcase_add_test(tc, paper_examples);
  tcase_add_test(tc, kept_jacobian);
  suite_add_tcase(s, tc);
  tc = tcase_create("limits");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, time_limit);
  tcase_add_test(tc, progress_reports);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
