/* check_parts.c: partitions of a tape (regions, call sites, repeats, auto) and two-level elimination over them. */
#include <limits.h>
#include <string.h>

#include "randprog.h"

/* Record p at x with regions opened and closed at random between steps
 * (nested up to depth 3; some left open for ade_trace_off to close). */
static ade_tape *record_regions(const randprog *p, const double *x, uint64_t seed) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 97; /* regions across chunks */
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof(ade_double) * (size_t)(p->n + p->nsteps));
  uint64_t s = seed;
  int depth = 0;
  for (int i = 0; i < p->n; i++) v[i] = ade_indep(x[i]);
  for (int i = 0; i < p->nsteps; i++) {
    unsigned r = (unsigned)(ade_test_rand(&s) % 8);
    if (r == 0 && depth < 3) ade_region_begin("part"), depth++;
    else if (r == 1 && depth > 0) ade_region_end(), depth--;
    v[p->n + i] = rp_step_eval(&p->steps[i], v);
  }
  for (int j = 0; j < p->m; j++) ade_dep(v[p->out[j]]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  return t;
}

static size_t *regions_of(ade_tape *t, size_t *nid, size_t *np) {
  ade_stats s;
  ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
  *nid = (size_t)s.records + 1;
  size_t *part = malloc(*nid * sizeof *part);
  ck_assert_int_eq(ade_tape_parts(t, ADE_PARTS_REGIONS, part, *nid, np), ADE_OK);
  return part;
}

/* The Jacobian of seq on t against dense forward mode. */
static void check_jacobian(ade_tape *t, const ade_elim_seq *seq, int n, int m) {
  ade_sparse *J = NULL;
  ade_jacobian_options o = {seq, 1, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
  ade_jacobian_report r;
  ck_assert_msg(ade_jacobian(t, 0, &o, &J, &r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_uint_eq(r.fma, ade_seq_cost(seq));
  double *D = calloc((size_t)(n * m), sizeof *D), *F = calloc((size_t)(n * m), sizeof *F);
  ck_assert_int_eq(ade_sparse_to_dense(J, D), ADE_OK);
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, NULL, F), ADE_OK);
  for (int k = 0; k < n * m; k++) ade_assert_rel(D[k], F[k], 1e-12);
  free(D);
  free(F);
  ade_sparse_free(J);
}

/* Random programs with random nested regions: with the best heuristic and
 * with branch and bound at both levels, the two-level sequence is complete,
 * costs what the levels add up to, and gives dense forward mode's Jacobian;
 * with the best heuristic the second level is an edge plan where that is
 * cheaper, and the sequence then an edge sequence. */
START_TEST(random_regions) {
  int inner = 0, outer = 0, flat = 0;
  for (int k = 0; k < 60; k++) {
    uint64_t s = 1000 + (uint64_t)k;
    int n = 1 + (int)(ade_test_rand(&s) % 4), m = 1 + (int)(ade_test_rand(&s) % 3);
    int nsteps = 8 + (int)(ade_test_rand(&s) % 40);
    randprog p = rp_make(s, n, m, nsteps);
    double x[4];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1, 1);
    ade_tape *t = record_regions(&p, x, s);
    size_t nid, np;
    size_t *part = regions_of(t, &nid, &np);
    ade_cgraph *g = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    for (int method = -1; method <= ADE_OPT_BNB; method += 1 + ADE_OPT_BNB) {
      ade_elim_seq *seq = NULL;
      ade_parts_report r;
      ade_opt_limits l;
      ade_opt_limits_init(&l);
      l.time_limit = 0.05;
      ck_assert_msg(ade_optimize_parts(g, part, nid, method, &l, &seq, &r) == ADE_OK, "seed %d: %s", k,
                    ade_errmsg());
      ck_assert_uint_eq(r.cost, ade_seq_cost(seq));
      ck_assert_uint_eq(r.cost, r.two_level ? r.local_cost + r.outer_cost : r.flat_cost);
      ck_assert_uint_le(r.cost, r.flat_cost);
      ck_assert(r.two_level == (r.local_cost + r.outer_cost <= r.flat_cost));
      ck_assert_uint_le(r.parts, np);
      ck_assert_uint_le(r.classes, r.parts);
      if (method >= 0) { /* an optimizer's vertex sequences */
        ck_assert_int_eq(r.inner_kind, ADE_SEQ_VERTEX);
        ck_assert_int_eq(r.outer_kind, ADE_SEQ_VERTEX);
      }
      int both = r.inner_kind > r.outer_kind ? r.inner_kind : r.outer_kind;
      if (r.two_level) ck_assert_int_eq(ade_seq_kind(seq), both);
      ck_assert_int_le(ade_seq_kind(seq), method < 0 ? ADE_SEQ_EDGE : ADE_SEQ_VERTEX);
      inner += r.two_level && r.inner_kind == ADE_SEQ_EDGE;
      outer += r.two_level && r.outer_kind == ADE_SEQ_EDGE;
      flat += !r.two_level && ade_seq_kind(seq) == ADE_SEQ_EDGE;
      check_jacobian(t, seq, n, m);
      ade_seq_free(seq);
    }
    ade_cgraph_free(g);
    ade_tape_free(t);
    free(part);
    rp_free(&p);
  }
  printf("random_regions: edge plans won %d times at the first level, %d at the second, %d in one level\n", inner,
         outer, flat);
  /* edge plans (edge orderings, DP) win on some: at the second level and in one level */
  ck_assert_int_gt(outer, 0); /* at the first level: edge_parts */
  ck_assert_int_gt(flat, 0);
}
END_TEST

/* A region's height by its definition (0: holds none; else 1 + its
 * tallest child's), the tree from the parent indices. */
static size_t height_of(const ade_tape *t, size_t r) {
  size_t h = 0, nr = ade_tape_num_regions(t);
  for (size_t c = 0; c < nr; c++) {
    ade_region g;
    ck_assert_int_eq(ade_tape_region(t, c, &g), ADE_OK);
    if (g.parent == (int)r && height_of(t, c) + 1 > h) h = height_of(t, c) + 1;
  }
  return h;
}

/* Random programs with random nested regions, in levels: the number of
 * levels and each level's labels against the definition (the region of
 * that height whose records hold the record, from the regions' record
 * ranges; level 0 ade_tape_parts'); ade_optimize_levels with one level is
 * ade_optimize_parts, step for step; with all levels its sequence gives
 * dense forward mode's Jacobian, costs what its report adds up to, and
 * never more than the two levels (levels 1 when they win). */
START_TEST(nested_levels) {
  int deeper = 0, won = 0;
  for (int k = 0; k < 60; k++) {
    uint64_t s = 5000 + (uint64_t)k;
    int n = 1 + (int)(ade_test_rand(&s) % 4), m = 1 + (int)(ade_test_rand(&s) % 3);
    randprog p = rp_make(s, n, m, 8 + (int)(ade_test_rand(&s) % 60));
    double x[4];
    for (int i = 0; i < n; i++) x[i] = ade_test_uniform(&s, -1, 1);
    ade_tape *t = record_regions(&p, x, s);
    size_t nid, np, nl = 0, top = 0, nr = ade_tape_num_regions(t);
    size_t *inner = regions_of(t, &nid, &np), *h = calloc(nr + 1, sizeof *h);
    for (size_t r = 0; r < nr; r++) h[r] = height_of(t, r), top = h[r] > top ? h[r] : top;
    ck_assert_int_eq(ade_tape_parts_levels(t, ADE_PARTS_REGIONS, &nl), ADE_OK);
    ck_assert_uint_eq(nl, top + 1);
    deeper += nl > 1;
    size_t *part = malloc(nl * nid * sizeof *part), q = 0;
    for (size_t v = 0; v < nl; v++) {
      size_t *lv = part + v * nid;
      ck_assert_int_eq(ade_tape_parts_level(t, ADE_PARTS_REGIONS, v, lv, nid, &q), ADE_OK);
      ck_assert_uint_eq(q, nr);
      for (size_t id = 1; id < nid; id++) {
        size_t want = v == 0 ? inner[id] : ADE_PART_NONE;
        for (size_t r = 0; v > 0 && r < nr; r++) {
          ade_region g;
          ck_assert_int_eq(ade_tape_region(t, r, &g), ADE_OK);
          if (h[r] != v || id - 1 < g.first_op || id - 1 >= g.end_op) continue;
          ck_assert(want == ADE_PART_NONE); /* at most one */
          want = r;
        }
        ck_assert_uint_eq(lv[id], want);
      }
    }
    ck_assert_int_eq(ade_tape_parts_level(t, ADE_PARTS_REGIONS, nl, part, nid, &q), ADE_EINVAL);
    /* auto: the same levels above 0 (the records in no region only at level 0); other kinds: one level */
    size_t *a = malloc(nid * sizeof *a), na = 0;
    ck_assert_int_eq(ade_tape_parts_levels(t, ADE_PARTS_AUTO, &na), ADE_OK);
    ck_assert_uint_eq(na, nl);
    for (size_t v = 1; v < nl; v++) {
      ck_assert_int_eq(ade_tape_parts_level(t, ADE_PARTS_AUTO, v, a, nid, NULL), ADE_OK);
      ck_assert(!memcmp(a, part + v * nid, nid * sizeof *a));
    }
    free(a);
    ck_assert_int_eq(ade_tape_parts_levels(t, ADE_PARTS_REPEATS, &na), ADE_OK);
    ck_assert_uint_eq(na, 1);
    ck_assert_int_eq(ade_tape_parts_levels(t, -1, &na), ADE_EINVAL);
    ck_assert_int_eq(ade_tape_parts_levels(NULL, ADE_PARTS_REGIONS, &na), ADE_EINVAL);
    ade_cgraph *g = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    ade_elim_seq *two = NULL, *one = NULL, *all = NULL;
    ade_parts_report rt, ro, ra;
    ck_assert_int_eq(ade_optimize_parts(g, part, nid, -1, NULL, &two, &rt), ADE_OK);
    ck_assert_int_eq(ade_optimize_levels(g, part, 1, nid, -1, NULL, &one, &ro), ADE_OK);
    ade_test_same_seq(one, two, "one level of parts", s);
    ck_assert_uint_eq(ro.levels, 1);
    ck_assert_uint_eq(ro.levels_used, 1);
    ck_assert_msg(ade_optimize_levels(g, part, nl, nid, -1, NULL, &all, &ra) == ADE_OK, "%s", ade_errmsg());
    ck_assert_uint_eq(ra.cost, ade_seq_cost(all));
    ck_assert_uint_eq(ra.cost, ra.two_level ? ra.local_cost + ra.outer_cost : ra.flat_cost);
    ck_assert_uint_le(ra.local_cost + ra.outer_cost, rt.local_cost + rt.outer_cost);
    ck_assert_uint_le(ra.cost, rt.cost);
    ck_assert(ra.levels == nl && ra.levels_used >= 1 && ra.levels_used <= nl);
    if (ra.levels_used == 1) ck_assert_uint_eq(ra.local_cost + ra.outer_cost, rt.local_cost + rt.outer_cost);
    else won += ra.local_cost + ra.outer_cost < rt.local_cost + rt.outer_cost;
    check_jacobian(t, all, n, m);
    ade_seq_free(two), ade_seq_free(one), ade_seq_free(all);
    ck_assert_int_eq(ade_optimize_levels(g, part, 0, nid, -1, NULL, &all, &ra), ADE_EINVAL);
    ade_cgraph_free(g);
    ade_tape_free(t);
    free(part), free(inner), free(h);
    rp_free(&p);
  }
  printf("nested_levels: %d of 60 programs nest regions; more levels cheaper on %d\n", deeper, won);
  ck_assert_int_gt(deeper, 30);
  ck_assert_int_gt(won, 0); /* and on some, more levels are cheaper */
}
END_TEST

/* Steps of a time loop, one region each: the parts are identical, so one
 * class is solved, and the two-level cost is the local cost of every step
 * plus the junctions. */
START_TEST(repeated_steps) {
  const int steps = 12, n = 3;
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double u[3];
  for (int i = 0; i < n; i++) u[i] = ade_indep(0.3 + 0.1 * i);
  for (int s = 0; s < steps; s++) {
    ade_region_begin("step");
    ade_double a = ADE_MUL(u[0], ADE_SIN(u[1])), b = ADE_ADD(ADE_MUL(u[1], u[2]), a);
    ade_double c = ADE_EXP(ADE_MUL(-0.1, ADE_MUL(a, b)));
    u[0] = ADE_ADD(u[0], ADE_MUL(0.01, c));
    u[1] = ADE_SUB(u[1], ADE_MUL(0.02, ADE_MUL(a, c)));
    u[2] = ADE_ADD(u[2], ADE_MUL(0.03, ADE_TANH(b)));
    ade_region_end();
  }
  for (int i = 0; i < n; i++) ade_dep(u[i]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  size_t nid, np;
  size_t *part = regions_of(t, &nid, &np);
  ck_assert_uint_eq(np, (size_t)steps);
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  ade_elim_seq *seq = NULL;
  ade_parts_report r;
  ck_assert_int_eq(ade_optimize_parts(g, part, nid, -1, NULL, &seq, &r), ADE_OK);
  ck_assert_uint_eq(r.parts, (size_t)steps);
  ck_assert_uint_le(r.classes, 3); /* the first step reads independents, the last feeds dependents */
  ck_assert_uint_gt(r.local_cost, 0);
  check_jacobian(t, seq, n, n);
  ade_seq_free(seq);
  ade_cgraph_free(g);
  free(part);
  ade_tape_free(t);
}
END_TEST

/* K copies of a random program, each in a region of its own on the same
 * independents, its outputs dependents: each part's graph is the
 * program's whole graph, whose edge plans (edge orderings, dynamic
 * programming) cost less than every vertex heuristic for some programs.
 * There the first level solves the one class by edges, and the sequence
 * is an edge sequence; the costs add up (ade_optimize_parts checks its
 * first level against the engine), three threads give the same
 * sequence as one, and the Jacobian is forward mode's. */
START_TEST(edge_parts) {
  const int K = 4;
  int edges = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    uint64_t s = seed;
    int n = 2 + (int)(ade_test_rand(&s) % 3), m = 1 + (int)(ade_test_rand(&s) % 3);
    randprog p = rp_make(s, n, m, 12 + (int)(ade_test_rand(&s) % 20));
    ade_tape *t = NULL;
    ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double *v = malloc(sizeof(ade_double) * (size_t)(p.n + p.nsteps));
    for (int i = 0; i < n; i++) v[i] = ade_indep(ade_test_uniform(&s, -1, 1));
    for (int k = 0; k < K; k++) {
      ade_region_begin("copy");
      for (int i = 0; i < p.nsteps; i++) v[n + i] = rp_step_eval(&p.steps[i], v);
      for (int j = 0; j < m; j++) ade_dep(v[p.out[j]]);
      ade_region_end();
    }
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    free(v);
    size_t nid, np;
    size_t *part = regions_of(t, &nid, &np);
    ade_cgraph *g = NULL;
    ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
    ade_elim_seq *seq[2] = {NULL, NULL};
    ade_parts_report r[2];
    for (int th = 0; th < 2; th++) {
      ade_test_parts(g, part, nid, 1 + 2 * th, &seq[th], &r[th]);
      ck_assert_uint_eq(r[th].cost, ade_seq_cost(seq[th]));
      ck_assert_uint_eq(r[th].local_cost % (uint64_t)K, 0); /* one class, K times */
      if (r[th].two_level) ck_assert_int_eq(ade_seq_kind(seq[th]), r[th].inner_kind > r[th].outer_kind ? r[th].inner_kind : r[th].outer_kind);
      check_jacobian(t, seq[th], n, m * K);
    }
    ck_assert_int_eq(r[0].inner_kind, r[1].inner_kind);
    ck_assert_uint_eq(r[0].local_cost, r[1].local_cost);
    ade_test_same_seq(seq[1], seq[0], "three threads", seed);
    edges += r[0].inner_kind == ADE_SEQ_EDGE;
    ade_seq_free(seq[0]);
    ade_seq_free(seq[1]);
    ade_cgraph_free(g);
    free(part);
    ade_tape_free(t);
    rp_free(&p);
  }
  printf("edge_parts: the first level by edges for %d of 40 programs\n", edges);
  ck_assert_int_gt(edges, 0);
}
END_TEST

/* No regions: everything is in no part, and the second level is the best
 * heuristic on the whole graph. Bad arguments give errors. */
START_TEST(edges_and_errors) {
  randprog p = rp_make(7, 3, 2, 30);
  double x[3] = {0.1, 0.2, 0.3};
  ade_tape *t = rp_record(&p, x, NULL);
  size_t nid, np;
  size_t *part = regions_of(t, &nid, &np);
  ck_assert_uint_eq(np, 0);
  for (size_t i = 0; i < nid; i++) ck_assert(part[i] == ADE_PART_NONE);
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  ade_elim_seq *seq = NULL, *best = NULL;
  ade_parts_report r;
  ck_assert_int_eq(ade_optimize_parts(g, part, nid, -1, NULL, &seq, &r), ADE_OK);
  ck_assert_uint_eq(r.parts, 0);
  ck_assert_uint_eq(r.local_cost, 0);
  ck_assert_int_eq(ade_optimize(g, ADE_SEQ_VERTEX, ADE_OPT_HIERARCHY, NULL, &best, NULL), ADE_OK);
  check_jacobian(t, seq, 3, 2);
  /* Every vertex in one part: the interior is all but what feeds the dependents. */
  for (size_t i = 1; i < nid; i++) part[i] = 0;
  ade_seq_free(seq);
  ck_assert_int_eq(ade_optimize_parts(g, part, nid, -1, NULL, &seq, &r), ADE_OK);
  ck_assert_uint_eq(r.parts, 1);
  check_jacobian(t, seq, 3, 2);
  ade_seq_free(seq);
  /* Part labels are any values but ADE_PART_NONE: labels far apart (the
   * largest one below it) give the sequence of the same parts numbered
   * 0, 1 (they crashed in group() before). */
  ade_elim_seq *dense = NULL;
  for (size_t i = 1; i < nid; i++) part[i] = i % 2;
  ck_assert_int_eq(ade_optimize_parts(g, part, nid, -1, NULL, &dense, &r), ADE_OK);
  ck_assert_uint_eq(r.parts, 2);
  for (size_t i = 1; i < nid; i++) part[i] = i % 2 ? ADE_PART_NONE - 1 : (size_t)1 << 40;
  ck_assert_int_eq(ade_optimize_parts(g, part, nid, -1, NULL, &seq, &r), ADE_OK);
  ck_assert_uint_eq(r.parts, 2);
  ade_test_same_seq(seq, dense, "labels far apart", 0);
  check_jacobian(t, seq, 3, 2);
  ade_seq_free(seq);
  ade_seq_free(dense);
  ck_assert_int_eq(ade_optimize_parts(NULL, part, nid, -1, NULL, &seq, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_optimize_parts(g, NULL, nid, -1, NULL, &seq, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_optimize_parts(g, part, nid, ADE_OPT_COUNT, NULL, &seq, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_tape_parts(t, ADE_PARTS_REGIONS, part, 1, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_tape_parts(t, 99, part, nid, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_tape_parts(NULL, ADE_PARTS_REGIONS, part, nid, NULL), ADE_EINVAL);
  ade_seq_free(best);
  ade_cgraph_free(g);
  free(part);
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* A c-graph whose ids span more than LONG_MAX (ade_cgraph_from_edges
 * takes any ids): the part's copies of its independents once took ids
 * below the smallest by subtraction, which wrapped and collided with an
 * intermediate's ("vertex ... is independent, not intermediate"). The
 * part's Jacobian is the product of its edges: J = [2 5 7, 3 5 7 + 13 7]. */
START_TEST(ids_span_long) {
  const long lo = LONG_MIN + 5, hi = LONG_MAX - 10;
  long x[] = {lo, 3}, y[] = {hi};
  long src[] = {lo, 3, 14, 15, 16, 3}, dst[] = {14, 14, 15, 16, hi, 15};
  double val[] = {2, 3, 5, 7, 11, 13};
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 2, x, 1, y, 6, src, dst, val), ADE_OK);
  size_t part[17];
  for (int i = 0; i < 17; i++) part[i] = i >= 14 ? 0 : ADE_PART_NONE;
  ade_elim_seq *seq = NULL;
  ade_parts_report r;
  ck_assert_msg(ade_optimize_parts(g, part, 17, -1, NULL, &seq, &r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_uint_eq(r.parts, 1);
  ade_sparse *J = NULL;
  ck_assert_msg(ade_seq_apply(g, seq, NULL) == ADE_OK, "%s", ade_errmsg());
  ck_assert_int_eq(ade_cgraph_jacobian(g, &J), ADE_OK);
  double D[2] = {0, 0};
  ck_assert_int_eq(ade_sparse_to_dense(J, D), ADE_OK);
  ck_assert_double_eq(D[0], 2.0 * 5 * 7 * 11);
  ck_assert_double_eq(D[1], (3.0 * 5 + 13) * 7 * 11);
  ade_sparse_free(J);
  ade_seq_free(seq);
  ade_cgraph_free(g);
}
END_TEST

/* ------------------------------------------- call sites, repeats, auto */

/* A random program's steps as the body of a function called again and
 * again: u[0..n) in, the last n values out. */
static __attribute__((noinline)) void rp_body(const randprog *b, ade_double *u, ade_double *v) {
  for (int i = 0; i < b->n; i++) v[i] = u[i];
  for (int i = 0; i < b->nsteps; i++) v[b->n + i] = rp_step_eval(&b->steps[i], v);
  for (int i = 0; i < b->n; i++) u[i] = v[b->n + b->nsteps - 1 - i];
}

static ade_tape *record_loop(int steps, int capture) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.capture = capture;
  o.chunk_ops = 50;
  return rp_record_sim(steps, &o);
}

/* Every id's part is below the count or none. */
static size_t *parts_of(ade_tape *t, int kind, size_t *nid, size_t *np) {
  ade_stats s;
  ck_assert_int_eq(ade_tape_stats(t, &s), ADE_OK);
  *nid = (size_t)s.records + 1;
  size_t *part = malloc(*nid * sizeof *part);
  ck_assert_msg(ade_tape_parts(t, kind, part, *nid, np) == ADE_OK, "%s: %s", ade_parts_name(kind), ade_errmsg());
  ck_assert(part[0] == ADE_PART_NONE);
  for (size_t i = 0; i < *nid; i++) ck_assert(part[i] == ADE_PART_NONE || part[i] < *np);
  return part;
}

/* Two-level elimination over the kind's parts of t: the report adds up
 * and the Jacobian is dense forward mode's. */
static void check_kind(ade_tape *t, int kind, int method, int n, int m, ade_parts_report *r) {
  size_t nid, np;
  size_t *part = parts_of(t, kind, &nid, &np);
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_tape(&g, t, NULL), ADE_OK);
  ade_elim_seq *seq = NULL;
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  l.time_limit = 0.05;
  ck_assert_msg(ade_optimize_parts(g, part, nid, method, &l, &seq, r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_uint_eq(r->cost, ade_seq_cost(seq));
  ck_assert_uint_eq(r->cost, r->two_level ? r->local_cost + r->outer_cost : r->flat_cost);
  ck_assert_uint_le(r->parts, np);
  check_jacobian(t, seq, n, m);
  ade_seq_free(seq);
  ade_cgraph_free(g);
  free(part);
}

/* A time loop of one function: call sites and repeats both find its steps
 * (one part each, at most three classes: the first step reads
 * independents, the last feeds dependents), and auto takes the repeats. */
START_TEST(loop_steps) {
  const int steps = 12;
  ade_tape *t = record_loop(steps, 1);
  for (int kind = ADE_PARTS_CALLSITES; kind <= ADE_PARTS_AUTO; kind++) {
    size_t nid, np;
    free(parts_of(t, kind, &nid, &np));
    ck_assert_msg(np >= (size_t)steps - 1, "%s: %zu parts", ade_parts_name(kind), np);
    ade_parts_report r;
    check_kind(t, kind, -1, 3, 3, &r);
    ck_assert_msg(r.parts >= (size_t)steps - 2, "%s: %zu parts with an interior", ade_parts_name(kind), r.parts);
    ck_assert_msg(r.classes <= 4, "%s: %zu classes", ade_parts_name(kind), r.classes);
  }
  /* Call sites: each step's records are one part, and only they (the
   * independents and dependents are one part or, where the compiler keeps
   * their loop, one per iteration). */
  size_t nid, np;
  size_t *part = parts_of(t, ADE_PARTS_CALLSITES, &nid, &np);
  size_t per = (nid - 1 - 6) / (size_t)steps;
  for (int s = 0; s < steps; s++) {
    size_t first = 1 + 3 + (size_t)s * per, p = part[first];
    ck_assert(p != ADE_PART_NONE && (s == 0 || p != part[first - 1]) && p != part[first + per]);
    for (size_t k = 0; k < per; k++) ck_assert_uint_eq(part[first + k], p);
  }
  free(part);
  ade_tape_free(t);
  /* Without call sites on the tape: a clear error. */
  t = record_loop(steps, 0);
  part = malloc(nid * sizeof *part);
  ck_assert_int_eq(ade_tape_parts(t, ADE_PARTS_CALLSITES, part, nid, &np), ADE_EINVAL);
  ck_assert(strstr(ade_errmsg(), "capture") != NULL);
  free(part);
  ade_tape_free(t);
}
END_TEST

/* Random programs: a random prologue, then random bodies (two of them)
 * called in random order inside randomly nested regions, some never
 * closed; recorded with call sites. Every partition kind, with the best
 * heuristic and with branch and bound, gives dense forward mode's Jacobian. */
START_TEST(random_kinds) {
  for (int k = 0; k < 30; k++) {
    uint64_t s = 7000 + (uint64_t)k;
    int n = 2 + (int)(ade_test_rand(&s) % 3), m = 1 + (int)(ade_test_rand(&s) % 3);
    randprog pro = rp_make(s, n, m, 3 + (int)(ade_test_rand(&s) % 10));
    randprog body[2] = {rp_make(s + 1, n, n, n + (int)(ade_test_rand(&s) % 8)),
                        rp_make(s + 2, n, n, n + (int)(ade_test_rand(&s) % 8))};
    int calls = 2 + (int)(ade_test_rand(&s) % 10), depth = 0;
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.capture = 1;
    o.chunk_ops = 61;
    ade_tape *t = NULL;
    ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double *v = malloc(sizeof(ade_double) * (size_t)(n + pro.nsteps + 2 * n + 16));
    ade_double u[4];
    for (int i = 0; i < n; i++) v[i] = ade_indep(ade_test_uniform(&s, -1, 1));
    for (int i = 0; i < pro.nsteps; i++) v[n + i] = rp_step_eval(&pro.steps[i], v);
    for (int i = 0; i < n; i++) u[i] = v[n + pro.nsteps - 1 - i];
    for (int c = 0; c < calls; c++) {
      unsigned r = (unsigned)(ade_test_rand(&s) % 6);
      if (r == 0 && depth < 3) ade_region_begin("call"), depth++;
      else if (r == 1 && depth > 0) ade_region_end(), depth--;
      rp_body(&body[ade_test_rand(&s) % 4 == 0], u, v);
    }
    for (int j = 0; j < m; j++) ade_dep(u[j % n]);
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    for (int kind = ADE_PARTS_REGIONS; kind <= ADE_PARTS_AUTO; kind++) {
      ade_parts_report r;
      check_kind(t, kind, -1, n, m, &r);
      if (k % 10 == 0) check_kind(t, kind, ADE_OPT_BNB, n, m, &r);
    }
    free(v);
    ade_tape_free(t);
    rp_free(&pro);
    rp_free(&body[0]);
    rp_free(&body[1]);
  }
}
END_TEST

/* A region opened and never closed ends with the tape (the documented
 * fallback: ade_trace_off closes it); auto cuts the records before it
 * into parts of their own. Names and kinds round-trip. */
START_TEST(unclosed_and_names) {
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double u[3];
  for (int i = 0; i < 3; i++) u[i] = ade_indep(0.3 + 0.1 * i);
  rp_sim_step(u);
  ade_region_begin("open");
  rp_sim_step(u);
  for (int i = 0; i < 3; i++) ade_dep(u[i]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  size_t nid, np;
  size_t *part = parts_of(t, ADE_PARTS_REGIONS, &nid, &np);
  ck_assert_uint_eq(np, 1);
  ck_assert_uint_eq(part[nid - 1], 0); /* the last record: in the open region */
  ck_assert(part[1] == ADE_PART_NONE);
  free(part);
  part = parts_of(t, ADE_PARTS_AUTO, &nid, &np);
  ck_assert_uint_eq(np, 2);
  ck_assert_uint_eq(part[1], 1);
  ck_assert_uint_eq(part[nid - 1], 0);
  free(part);
  ade_parts_report r;
  check_kind(t, ADE_PARTS_AUTO, -1, 3, 3, &r);
  for (int k = 0; k <= ADE_PARTS_AUTO; k++) ck_assert_int_eq(ade_parts_parse(ade_parts_name(k)), k);
  ck_assert_ptr_null(ade_parts_name(-1));
  ck_assert_ptr_null(ade_parts_name(ADE_PARTS_AUTO + 1));
  ck_assert_int_eq(ade_parts_parse("cells"), -1);
  ck_assert_int_eq(ade_parts_parse(NULL), -1);
  part = malloc(nid * sizeof *part);
  ck_assert_int_eq(ade_tape_parts(t, ADE_PARTS_AUTO + 1, part, nid, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_tape_parts(t, ADE_PARTS_REPEATS, part, nid - 1, NULL), ADE_EINVAL);
  free(part);
  ade_tape_free(t);
}
END_TEST

/* Out of memory at every allocation, recording included: ADE_ENOMEM (or
 * the recording's failure), nothing leaked, for every partition kind and
 * its levels, and (regions) elimination in levels. */
START_TEST(out_of_memory) {
  for (int kind = ADE_PARTS_REGIONS; kind <= ADE_PARTS_AUTO; kind++) {
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_set_allocator(ade_test_alloc_fn, &a);
      ade_tape_options o;
      ade_tape_options_init(&o);
      o.capture = 1;
      o.chunk_ops = 40;
      ade_tape *t = NULL;
      size_t part[200], np = 0;
      int st = ade_tape_create(&t, &o);
      if (!st) st = ade_trace_on(t);
      if (!st) {
        ade_double u[3];
        for (int i = 0; i < 3; i++) u[i] = ade_indep(0.3 + 0.1 * i);
        ade_region_begin("steps");
        for (int s = 0; s < 6; s++) {
          ade_region_begin("step"); /* nested: two levels */
          rp_sim_step(u);
          ade_region_end();
        }
        ade_region_end();
        for (int i = 0; i < 3; i++) ade_dep(u[i]);
        st = ade_trace_off();
      }
      size_t nl = 0;
      if (!st) st = ade_tape_parts(t, kind, part, 200, &np);
      if (!st) st = ade_tape_parts_levels(t, kind, &nl);
      size_t lv[2][200];
      for (size_t v = 0; !st && v < nl && v < 2; v++) st = ade_tape_parts_level(t, kind, v, lv[v], 200, &np);
      if (!st && kind == ADE_PARTS_REGIONS) { /* and elimination in both levels */
        ade_cgraph *g = NULL;
        ade_elim_seq *s = NULL;
        ck_assert_uint_eq(nl, 2);
        st = ade_cgraph_from_tape(&g, t, NULL);
        if (!st) st = ade_optimize_levels(g, &lv[0][0], 2, 200, -1, NULL, &s, NULL);
        ade_seq_free(s);
        ade_cgraph_free(g);
      }
      ade_tape_free(t);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "%s k=%ld: %d %s", ade_parts_name(kind), k, st, ade_errmsg());
      ck_assert_msg(a.live == 0, "%s k=%ld: %ld blocks leaked", ade_parts_name(kind), k, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("parts");
  TCase *tc = tcase_create("parts");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, random_regions);
  tcase_add_test(tc, nested_levels);
  tcase_add_test(tc, repeated_steps);
  tcase_add_test(tc, edge_parts);
  tcase_add_test(tc, edges_and_errors);
  tcase_add_test(tc, ids_span_long);
  tcase_add_test(tc, loop_steps);
  tcase_add_test(tc, random_kinds);
  tcase_add_test(tc, unclosed_and_names);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
