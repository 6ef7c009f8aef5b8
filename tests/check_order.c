/* check_order.c: tests of the orderings: incremental keys against the rescanning reference, never worse than the orderings they generalize, time limits. */
#include <string.h>

#include "elim_internal.h"
#include "randprog.h"
#include "sweeps.h"

/* The greedy orderings and the face sweeps, which have a rescanning
 * reference (ade__order_raw with scan). */
static const int greedy[] = {ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_FORWARD,
                             ADE_ORDER_FACE_REVERSE, ADE_ORDER_FACE_GREEDY};
#define NGREEDY (sizeof greedy / sizeof *greedy)
/* Every ordering with keys kept incrementally: the greedy ones and the
 * vertex Markowitz orderings (heap with lazy deletion). */
static const int keyed[] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_VERTEX_RELATIVE, ADE_ORDER_EDGE_MARKOWITZ,
                            ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_FORWARD, ADE_ORDER_FACE_REVERSE,
                            ADE_ORDER_FACE_GREEDY};
#define NKEYED (sizeof keyed / sizeof *keyed)

/* A random layered c-graph: n independents, layers of width w, m
 * dependents; each vertex reads 1-3 vertices of earlier layers, mostly the
 * previous one, sometimes a hub (an independent or a vertex of the first
 * layer), so that some vertices have high degree. */
static ade_cgraph *layered(uint64_t seed, int n, int layers, int w, int m) {
  int nz = layers * w, cap = 4 * (nz + m) + nz + m;
  long *src = malloc((size_t)cap * sizeof *src), *dst = malloc((size_t)cap * sizeof *dst);
  long *xid = malloc((size_t)n * sizeof *xid), *yid = malloc((size_t)m * sizeof *yid);
  char *used = calloc((size_t)(nz + 1), 1);
  size_t ne = 0;
  for (int i = 0; i < n; i++) xid[i] = -i;
  for (int j = 0; j < m; j++) yid[j] = nz + 1 + j;
  for (long v = 1; v <= nz + m; v++) {
    long layer = v <= nz ? (v - 1) / w : layers, k = 1 + (long)(ade_test_rand(&seed) % 3);
    long lo = layer ? (layer - 1) * w + 1 : 0, hi = layer ? layer * w : 0; /* the previous layer (ids) */
    for (long r = 0; r < k; r++) {
      uint64_t u = ade_test_rand(&seed) % 10;
      long s = !layer || u < 2 ? -(long)(ade_test_rand(&seed) % (uint64_t)n)
               : u < 3 ? 1 + (long)(ade_test_rand(&seed) % (uint64_t)w)
                       : lo + (long)(ade_test_rand(&seed) % (uint64_t)(hi - lo + 1));
      int dup = 0;
      for (size_t q = 0; q < ne; q++) dup |= src[q] == s && dst[q] == v;
      if (dup || s == v || (s >= 1 && s >= v)) continue;
      src[ne] = s, dst[ne++] = v;
      if (s >= 1) used[s] = 1;
    }
    if (ne == 0 || dst[ne - 1] != v) src[ne] = -(long)(ade_test_rand(&seed) % (uint64_t)n), dst[ne++] = v;
  }
  for (long v = 1; v <= nz; v++) /* every intermediate reaches a dependent */
    if (!used[v]) src[ne] = v, dst[ne++] = nz + 1 + (long)(ade_test_rand(&seed) % (uint64_t)m);
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&g, (size_t)n, xid, (size_t)m, yid, ne, src, dst, NULL) == ADE_OK, "%s",
                ade_errmsg());
  free(src), free(dst), free(xid), free(yid), free(used);
  return g;
}

static ade_cgraph *random_tape_graph(uint64_t seed, int n, int m, int steps) {
  randprog p = rp_make(seed, n, m, steps);
  double x[8];
  for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (double)i;
  ade_tape *t = rp_record(&p, x, NULL);
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_tape(&g, t, NULL) == ADE_OK, "%s", ade_errmsg());
  ade_tape_free(t);
  rp_free(&p);
  return g;
}

/* The checking mode: incremental keys make the choices of a from-scratch
 * recomputation of every key at every step (the rescanning reference),
 * step by step, for every keyed ordering. */
static void check_same_choices(const ade_cgraph *g, uint64_t seed) {
  for (size_t k = 0; k < NKEYED; k++) {
    ade_elim_seq *inc = NULL, *ref = NULL;
    ck_assert_msg(ade__order_raw(g, keyed[k], 0, &inc) == ADE_OK, "%s", ade_errmsg());
    ck_assert_msg(ade__order_raw(g, keyed[k], 1, &ref) == ADE_OK, "%s", ade_errmsg());
    ade_test_same_seq(inc, ref, ade_order_name(keyed[k]), seed);
    ade_seq_free(inc);
    ade_seq_free(ref);
  }
}

START_TEST(same_choices_tapes) {
  uint64_t rs = 77;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 60));
    check_same_choices(g, seed);
    ade_cgraph_free(g);
  }
}
END_TEST

START_TEST(same_choices_layered) {
  uint64_t rs = 99;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 6), m = 1 + (int)(ade_test_rand(&rs) % 6);
    int layers = 1 + (int)(ade_test_rand(&rs) % 6), w = 1 + (int)(ade_test_rand(&rs) % 8);
    ade_cgraph *g = layered(seed, n, layers, w, m);
    check_same_choices(g, seed);
    ade_cgraph_free(g);
  }
}
END_TEST


/* The queues of edge-markowitz (one entry per vertex, the lesser of its
 * directions' keys), edge-fillin (only keys that can drop set again, some
 * shifted instead of computed, in a bucket queue) and face-greedy (the
 * faces of a changed vertex re-keyed from one twin search, packed keys),
 * audited after every step
 * (ADE__ORDER_AUDIT): every key computed from scratch has an entry no
 * greater than it. The audited run makes the queue's choices. */
static void check_audit(const ade_cgraph *g, uint64_t seed) {
  static const int ao[] = {ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_GREEDY};
  for (size_t k = 0; k < sizeof ao / sizeof *ao; k++) {
    ade_elim_seq *inc = NULL, *aud = NULL;
    ck_assert_msg(ade__order_raw(g, ao[k], 0, &inc) == ADE_OK, "%s", ade_errmsg());
    ck_assert_msg(ade__order_raw(g, ao[k], ADE__ORDER_AUDIT, &aud) == ADE_OK, "%s seed %llu: %s",
                  ade_order_name(ao[k]), (unsigned long long)seed, ade_errmsg());
    ade_test_same_seq(aud, inc, ade_order_name(ao[k]), seed);
    ade_seq_free(inc);
    ade_seq_free(aud);
  }
}

/* A random DAG of n independents, p intermediates and m dependents, each
 * vertex reading each earlier one with probability dens (at least one):
 * denser than the tapes' graphs, so that steps isolate nothing and their
 * ends keep, gain or absorb edges. */
static ade_cgraph *dense_dag(uint64_t *rs, int n, int p, int m, double dens) {
  int nid = n + p + m, ne = 0;
  long *src = malloc((size_t)(nid * nid + nid) * sizeof *src), *dst = malloc((size_t)(nid * nid + nid) * sizeof *dst);
  long x[16], y[16];
  char *hasout = calloc((size_t)nid, 1);
  for (int i = 0; i < n; i++) x[i] = i + 1 - n;
  for (int i = 0; i < m; i++) y[i] = p + 1 + i;
  for (int t = n; t < nid; t++) {
    int lim = t < n + p ? t : n + p, first = ne;
    for (int q = 0; q < lim; q++)
      if (ade_test_uniform(rs, 0, 1) < dens) src[ne] = q + 1 - n, dst[ne++] = t + 1 - n, hasout[q] = 1;
    if (ne == first) {
      int q = (int)(ade_test_rand(rs) % (uint64_t)lim);
      src[ne] = q + 1 - n, dst[ne++] = t + 1 - n, hasout[q] = 1;
    }
  }
  for (int q = n; q < n + p; q++) /* every intermediate reaches a later vertex */
    if (!hasout[q]) src[ne] = q + 1 - n, dst[ne++] = q + 2 - n + (long)(ade_test_rand(rs) % (uint64_t)(n + p + m - q - 1));
  ade_cgraph *g = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&g, (size_t)n, x, (size_t)m, y, (size_t)ne, src, dst, NULL) == ADE_OK, "%s",
                ade_errmsg());
  free(src), free(dst), free(hasout);
  return g;
}

START_TEST(queue_audit_random) {
  uint64_t rs = 4242;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 60))
                             : layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 6), 1 + (int)(ade_test_rand(&rs) % 8), m);
    check_audit(g, seed);
    ade_cgraph_free(g);
  }
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 4), m = 1 + (int)(ade_test_rand(&rs) % 4);
    ade_cgraph *g = dense_dag(&rs, n, 4 + (int)(ade_test_rand(&rs) % 16), m, ade_test_uniform(&rs, 0.15, 0.6));
    check_audit(g, 1000 + seed);
    ade_cgraph_free(g);
  }
}
END_TEST

/* A vertex-markowitz (vertex-relative, face-forward, face-reverse,
 * face-greedy) run with a cost ceiling stops (ADE__CUT) once its cost so
 * far plus a lower bound of the cost still to come reaches the ceiling
 * (order.c: over(), sweep_over()), with or without the cut bounds. The
 * bound must never exceed the cost to come: with the ceiling one above
 * the full run's cost C, the run is never stopped and gives the same
 * sequence, in the incremental and in the rescanning (scan)
 * implementation; at C or below it is stopped. */
static void check_capped(const ade_cgraph *g, uint64_t seed, uint64_t *rs) {
  static const int vo[] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_VERTEX_RELATIVE, ADE_ORDER_FACE_FORWARD,
                           ADE_ORDER_FACE_REVERSE, ADE_ORDER_FACE_GREEDY};
  uint8_t *bounds = NULL;
  ck_assert_int_eq(ade__cut_bounds(g, &bounds), ADE_OK);
  for (size_t k = 0; k < sizeof vo / sizeof *vo; k++)
    for (int scan = 0; scan < 4; scan++) {
      const uint8_t *cut = scan & 2 ? bounds : NULL;
      ade_elim_seq *full = NULL, *s = NULL;
      ck_assert_msg(ade__order_raw(g, vo[k], scan & 1, &full) == ADE_OK, "%s", ade_errmsg());
      uint64_t c = ade_seq_cost(full);
      int st = ade__order_capped(g, vo[k], scan & 1, c + 1, 0, cut, &s);
      ck_assert_msg(st == ADE_OK, "%s seed %llu scan %d: stopped below its cost %llu (%d: %s)", ade_order_name(vo[k]),
                    (unsigned long long)seed, scan, (unsigned long long)c, st, ade_errmsg());
      ade_test_same_seq(s, full, ade_order_name(vo[k]), seed);
      ade_seq_free(s), s = NULL;
      uint64_t below = c ? 1 + ade_test_rand(rs) % c : 0;
      for (int r = 0; c && r < 2; r++) {
        st = ade__order_capped(g, vo[k], scan & 1, r ? below : c, 0, cut, &s);
        ck_assert_msg(st == ADE__CUT, "%s seed %llu: not stopped at ceiling %llu <= cost %llu (%d)", ade_order_name(vo[k]),
                      (unsigned long long)seed, (unsigned long long)(r ? below : c), (unsigned long long)c, st);
      }
      ade_seq_free(full);
    }
  free(bounds);
}

START_TEST(capped_markowitz_random) {
  uint64_t rs = 31;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 60))
                             : layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 6), 1 + (int)(ade_test_rand(&rs) % 8), m);
    check_capped(g, seed, &rs);
    ade_cgraph_free(g);
  }
}
END_TEST

/* vmark.c's vertex Markowitz orderings fall back to the graph engine's
 * (ADE__FALLBACK, order.c runs them on a copy) when their scans pass a
 * budget, and on parallel edges. With the budget near nothing they fall
 * back mid-run on every graph, and the orderings still make the
 * reference's choices, capped and uncapped; with the default budget they
 * do not fall back on the same graphs. */
static int vmark_falls_back(const ade_cgraph *g) {
  ade_elim_seq *s = NULL;
  uint64_t fma = 0, fill = 0;
  int swept = 0;
  ck_assert_int_eq(ade_seq_create(&s, ADE_SEQ_VERTEX), ADE_OK);
  int st = ade__vmark_order(g, NULL, 0, NULL, NULL, 0, -1, NULL, &swept, s, &fma, &fill);
  ck_assert_msg(st == ADE_OK || st == ADE__FALLBACK, "%d: %s", st, ade_errmsg());
  ade_seq_free(s);
  return st == ADE__FALLBACK;
}

START_TEST(vmark_fallback) {
  uint64_t rs = 41;
  for (uint64_t seed = 1; seed <= 80; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 8 + (int)(ade_test_rand(&rs) % 60))
                             : layered(seed, n, 2 + (int)(ade_test_rand(&rs) % 5), 2 + (int)(ade_test_rand(&rs) % 7), m);
    ade__vmark_factor = 16, ade__vmark_slack = (uint64_t)1 << 20;
    ck_assert(!vmark_falls_back(g));
    ade__vmark_factor = 0, ade__vmark_slack = ade_test_rand(&rs) % 8;
    ck_assert_msg(vmark_falls_back(g), "seed %llu: no fallback", (unsigned long long)seed);
    check_same_choices(g, seed);
    check_capped(g, seed, &rs);
    ade_cgraph_free(g);
  }
  ade__vmark_factor = 16, ade__vmark_slack = (uint64_t)1 << 20;
  /* Parallel edges (the public constructors merge them; an internal graph
   * may not): the graph engine's orderings, which count both. */
  ade_cgraph *g = layered(5, 3, 4, 5, 2);
  size_t e = 0;
  while (g->e[e].src == ADE__NONE || g->v[g->e[e].dst].kind != ADE__Z) e++;
  ck_assert_int_eq(ade__graph_add_edge(g, g->e[e].src, g->e[e].dst, 2.0, NULL), ADE_OK);
  ck_assert(vmark_falls_back(g));
  ade_elim_seq *inc = NULL, *ref = NULL;
  for (int o = ADE_ORDER_VERTEX_MARKOWITZ; o <= ADE_ORDER_VERTEX_RELATIVE; o++) {
    ck_assert_msg(ade__order_raw(g, o, 0, &inc) == ADE_OK, "%s", ade_errmsg());
    ck_assert_msg(ade__order_raw(g, o, 1, &ref) == ADE_OK, "%s", ade_errmsg());
    ade_test_same_seq(inc, ref, ade_order_name(o), 0);
    ade_seq_free(inc), ade_seq_free(ref);
  }
  ade_cgraph_free(g);
}
END_TEST

/* vmark.c keeps to the graph's memory limit: over it, ADE_ENOMEM with
 * its message (no fallback to the engine, which would need more). */
START_TEST(vmark_memory_limit) {
  enum { NZ = 40000 };
  long *src = malloc((NZ + 1) * sizeof *src), *dst = malloc((NZ + 1) * sizeof *dst), x = 0, y = NZ + 1;
  for (long k = 0; k <= NZ; k++) src[k] = k, dst[k] = k + 1; /* a chain x = 0 -> 1 -> ... -> y */
  ade_cgraph *g = NULL;
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 1, &x, 1, &y, NZ + 1, src, dst, NULL), ADE_OK);
  g->memlimit = 0; /* the floor: ADE__MEM_FLOOR */
  ck_assert_int_eq(ade_elim_order(g, ADE_ORDER_VERTEX_MARKOWITZ, &s), ADE_ENOMEM);
  ck_assert_msg(strstr(ade_errmsg(), "vertex Markowitz ordering") != NULL, "%s", ade_errmsg());
  ck_assert_ptr_null(s);
  g->memlimit = SIZE_MAX;
  ck_assert_int_eq(ade_elim_order(g, ADE_ORDER_VERTEX_MARKOWITZ, &s), ADE_OK);
  ck_assert_uint_eq(ade_seq_cost(s), NZ);
  ade_seq_free(s);
  ade_cgraph_free(g);
  free(src), free(dst);
}
END_TEST

/* The c-graph vertices (by id, marked in seen[id - lo]) with an
 * intermediate face through them: ctgt(x) of the faces (x, y), both in Z. */
static size_t faced_vertices(const ade_cgraph *d, long lo, char *seen, size_t nseen) {
  size_t count = 0;
  memset(seen, 0, nseen);
  for (size_t e = 0; e < d->eslots; e++) {
    const ade__edge *x = &d->e[e];
    if (x->src == ADE__NONE || d->v[x->src].kind != ADE__Z || d->v[x->dst].kind != ADE__Z) continue;
    size_t c = (size_t)(d->v[x->src].ctgt - lo);
    ck_assert_uint_lt(c, nseen);
    count += !seen[c];
    seen[c] = 1;
  }
  return count;
}

/* The lower bound of the face sweeps (order.c, sweep_over): a face step
 * (a, b) through j = ctgt(a) never adds a c-graph vertex with an
 * intermediate face through it and takes away at most j, so the number
 * of such vertices drops by at most 1 per step (each costs 1 fma), and a
 * complete sequence leaves none. Checked from scratch after every step of
 * random face sequences on random graphs. */
START_TEST(face_bound_random) {
  uint64_t rs = 57;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 40))
                             : layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 5), 1 + (int)(ade_test_rand(&rs) % 6), m);
    ade_cgraph *d = NULL;
    ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
    long lo = g->v[0].id;
    size_t nseen = (size_t)(g->v[g->nv - 1].id - lo + 1);
    char *seen = malloc(nseen);
    size_t L = faced_vertices(d, lo, seen, nseen), *faces = NULL;
    for (;;) {
      size_t nf = 0;
      faces = realloc(faces, (d->eslots + 1) * sizeof *faces);
      for (size_t e = 0; e < d->eslots; e++) {
        const ade__edge *x = &d->e[e];
        if (x->src != ADE__NONE && d->v[x->src].kind == ADE__Z && d->v[x->dst].kind == ADE__Z) faces[nf++] = e;
      }
      if (!nf) break;
      const ade__edge *x = &d->e[faces[ade_test_rand(&rs) % nf]];
      ck_assert_int_eq(ade__face_step(d, x->src, x->dst), ADE_OK);
      size_t L2 = faced_vertices(d, lo, seen, nseen);
      ck_assert_msg(L2 <= L && L - L2 <= 1, "seed %llu: %zu vertices with faces, then %zu", (unsigned long long)seed,
                    L, L2);
      L = L2;
    }
    ck_assert_uint_eq(L, 0);
    free(seen), free(faces);
    ade_cgraph_free(d);
    ade_cgraph_free(g);
  }
}
END_TEST

/* Whether one vertex other than j cuts j from every independent (up: from
 * every dependent): a search from j that avoids it, per vertex. */
static int single_cut(const ade_cgraph *g, size_t j, int up) {
  size_t *stack = malloc((g->nv + 1) * sizeof *stack);
  char *seen = malloc(g->nv + 1);
  int cut = 0;
  for (size_t c = 0; !cut && c < g->nv; c++) {
    if (c == j || !g->v[c].alive) continue;
    size_t top = 0;
    int reached = 0;
    memset(seen, 0, g->nv);
    stack[top++] = j, seen[j] = seen[c] = 1;
    while (top && !reached) {
      const ade__vtx *v = &g->v[stack[--top]];
      reached = v->kind == (up ? ADE__Y : ADE__X);
      for (size_t k = 0; k < (up ? v->nout : v->nin); k++) {
        size_t u = up ? g->e[v->out[k]].dst : g->e[v->in[k]].src;
        if (!seen[u]) seen[u] = 1, stack[top++] = u;
      }
    }
    cut = !reached;
  }
  free(stack), free(seen);
  return cut;
}

/* A working copy of g with the lower bounds an ordering's copy gets
 * (order.c's set_bounds): each intermediate's cut bound. */
static ade_cgraph *bounded_copy(const ade_cgraph *g, const uint8_t *cut) {
  ade_cgraph *c = NULL;
  ck_assert_int_eq(ade_cgraph_copy(&c, g), ADE_OK);
  c->lb = calloc(c->nv + 1, 1);
  c->lbrest = 0;
  for (size_t j = 0; j < c->nv; j++)
    if (c->v[j].alive && c->v[j].kind == ADE__Z)
      c->lbrest += c->lb[j] = (uint8_t)ade__cut(cut, j);
  return c;
}

/* The bound c->lbrest against its definition (the sum over the vertices
 * alive of their cut bounds less at[j], the faces taken at j, at least 1;
 * at NULL: none taken), and the cost so far plus it, kept in *hist, the
 * final cost's. */
static void bound_step(const ade_cgraph *c, const uint8_t *cut, const uint64_t *at, uint64_t *hist, size_t *nh) {
  uint64_t sum = 0;
  for (size_t j = 0; j < c->nv; j++) {
    if (!c->v[j].alive || c->v[j].kind != ADE__Z) continue;
    uint64_t b = ade__cut(cut, j), t = at ? at[j] : 0;
    ck_assert_uint_eq(c->lb[j], t + 1 < b ? b - t : 1);
    sum += c->lb[j];
  }
  ck_assert_uint_eq(sum, c->lbrest);
  hist[(*nh)++] = c->fma + c->lbrest;
}

/* ade__cut_bounds: kx(j) = 2 exactly where no single vertex cuts j from
 * the independents (1 where one does), ky likewise from the dependents,
 * checked by a search per vertex; and the lemma behind the cuts at the
 * ceilings, on complete random vertex, edge and face sequences: each
 * takes at least kx(j) ky(j) faces with j in the middle; the bounds kept
 * by the graph engine on a working copy (ade_cgraph.lb: deletions, an
 * edge elimination's faces at its middle) stay their sum, and the cost so
 * far plus them never passes the final cost. Small graphs: the exhaustive
 * optimum of each kind is at least the sum. */
START_TEST(cut_bounds_random) {
  uint64_t rs = 71;
  int twos = 0, ones = 0, above = 0, tight = 0, exhausted = 0;
  for (uint64_t seed = 1; seed <= 240; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 3 == 0 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 40))
                    : seed % 3 == 1
                        ? layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 5), 1 + (int)(ade_test_rand(&rs) % 6), m)
                        : dense_dag(&rs, n, 2 + (int)(ade_test_rand(&rs) % 10), m, ade_test_uniform(&rs, 0.15, 0.6));
    uint8_t *cut = NULL;
    ck_assert_int_eq(ade__cut_bounds(g, &cut), ADE_OK);
    ck_assert_msg(cut != NULL, "seed %llu: no cut bounds", (unsigned long long)seed);
    uint64_t sum = 0, nz = 0;
    for (size_t j = 0; j < g->nv; j++) {
      if (!g->v[j].alive || g->v[j].kind != ADE__Z) continue;
      ck_assert_uint_eq(cut[j] & 3, single_cut(g, j, 0) ? 1 : 2);
      ck_assert_uint_eq(cut[j] >> 2, single_cut(g, j, 1) ? 1 : 2);
      twos += (cut[j] & 3) == 2 || cut[j] >> 2 == 2, ones += cut[j] == (1 | 1 << 2);
      sum += ade__cut(cut, j), nz++;
    }
    above += sum > nz;
    ade_jacobian_baselines b;
    ck_assert_int_eq(ade_cgraph_baselines(g, &b), ADE_OK);
    ck_assert_uint_eq(b.cut, sum);
    uint64_t *hist = malloc(100000 * sizeof *hist);
    size_t nh = 0;
    /* vertices in a random order */
    ade_cgraph *c = bounded_copy(g, cut);
    for (;;) {
      size_t z[512], nzl = 0;
      for (size_t j = 0; j < c->nv && nzl < 512; j++)
        if (c->v[j].alive && c->v[j].kind == ADE__Z) z[nzl++] = j;
      if (!nzl) break;
      size_t j = z[ade_test_rand(&rs) % nzl];
      uint64_t cost = 0;
      ck_assert_int_eq(ade__elim_vertex_ix(c, j, &cost), ADE_OK);
      ck_assert_uint_ge(cost, ade__cut(cut, j));
      bound_step(c, cut, NULL, hist, &nh);
    }
    for (size_t h = 0; h < nh; h++) ck_assert_uint_le(hist[h], c->fma);
    ck_assert_uint_eq(c->lbrest, 0);
    ade_cgraph_free(c);
    /* edges in a random order, front or back; faces counted per middle */
    uint64_t *at = calloc(g->nv + 1, sizeof *at);
    c = bounded_copy(g, cut), nh = 0;
    for (;;) {
      size_t cand[4096], nc = 0;
      for (size_t e = 0; e < c->eslots && nc < 4096; e++) {
        const ade__edge *x = &c->e[e];
        if (x->src == ADE__NONE) continue;
        if (c->v[x->dst].kind == ADE__Z) cand[nc++] = 2 * e;
        if (c->v[x->src].kind == ADE__Z && nc < 4096) cand[nc++] = 2 * e + 1;
      }
      if (!nc) break;
      size_t pick = cand[ade_test_rand(&rs) % nc], e = pick / 2, mid = pick % 2 ? c->e[e].src : c->e[e].dst;
      uint64_t cost = 0;
      ck_assert_int_eq(ade__elim_edge_ix(c, e, pick % 2 ? ADE_BACK : ADE_FRONT, &cost), ADE_OK);
      at[mid] += cost;
      bound_step(c, cut, at, hist, &nh);
      ck_assert_uint_lt(nh, 100000);
    }
    for (size_t h = 0; h < nh; h++) ck_assert_uint_le(hist[h], c->fma);
    for (size_t j = 0; j < g->nv; j++)
      if (g->v[j].alive && g->v[j].kind == ADE__Z) ck_assert_uint_ge(at[j], ade__cut(cut, j));
    ade_cgraph_free(c);
    /* faces in a random order, counted per middle (the ctgt of the first) */
    ade_cgraph *d = NULL;
    ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
    memset(at, 0, (g->nv + 1) * sizeof *at);
    for (size_t steps = 0;; steps++) {
      size_t f[4096], nf = 0;
      for (size_t e = 0; e < d->eslots && nf < 4096; e++) {
        const ade__edge *x = &d->e[e];
        if (x->src != ADE__NONE && d->v[x->src].kind == ADE__Z && d->v[x->dst].kind == ADE__Z) f[nf++] = e;
      }
      if (!nf) break;
      const ade__edge *x = &d->e[f[ade_test_rand(&rs) % nf]];
      at[ade__graph_vertex(g, d->v[x->src].ctgt)]++;
      ck_assert_int_eq(ade__face_step(d, x->src, x->dst), ADE_OK);
      ck_assert_uint_lt(steps, 100000);
    }
    for (size_t j = 0; j < g->nv; j++)
      if (g->v[j].alive && g->v[j].kind == ADE__Z) ck_assert_uint_ge(at[j], ade__cut(cut, j));
    ade_cgraph_free(d);
    free(at), free(hist);
    if (nz <= 8) { /* the optimum of each kind, where 4,000 nodes find it */
      static const int kinds[] = {ADE_SEQ_VERTEX, ADE_SEQ_EDGE, ADE_SEQ_FACE};
      ade_opt_limits l;
      ade_opt_limits_init(&l);
      l.node_limit = 4000;
      for (int k = 0; k < 3; k++) {
        ade_elim_seq *s = NULL;
        ade_opt_report r;
        ck_assert_int_eq(ade_optimize(g, kinds[k], ADE_OPT_EXHAUSTIVE, &l, &s, &r), ADE_OK);
        ck_assert_uint_ge(r.cost, g->fma + sum);
        tight += r.optimal && r.cost == g->fma + sum;
        exhausted += r.optimal;
        ade_seq_free(s);
      }
    }
    free(cut);
    ade_cgraph_free(g);
  }
  /* not vacuous: both values on both sides, bounds above one per
   * intermediate, optima met by them */
  ck_assert_int_gt(twos, 100);
  ck_assert_int_gt(ones, 100);
  ck_assert_int_gt(above, 150);
  ck_assert_int_gt(exhausted, 200);
  ck_assert_int_gt(tight, 40);
}
END_TEST

/* Where the cut bounds alone reach the sweep's cost, no edge or face
 * sequence can beat the sweep, and the orderings in native form (where
 * ties go to the sweep) return it without running: not limited even with
 * a time limit of 1 us. The graph:
 * y = sum_k sin(x_k) x_{k+1}, k = 0, 1, 2 (s_k = sin(x_k) is vertex
 * 1 + 10k, p_k = s_k x_{k+1} 2 + 10k, the partial sums 3 + 10k): bounds
 * s_k 1, p_k 2, the sums 1, 2, 2: 14, the reverse sweep's cost. */
START_TEST(cut_bounds_prove) {
  ade_cgraph *g = NULL;
  long x[4] = {-3, -2, -1, 0}, y[1] = {100}, src[32], dst[32];
  size_t ne = 0;
  for (long k = 0; k < 3; k++) {
    src[ne] = x[k], dst[ne++] = 1 + 10 * k;
    src[ne] = 1 + 10 * k, dst[ne++] = 2 + 10 * k;
    src[ne] = x[k + 1], dst[ne++] = 2 + 10 * k;
    src[ne] = 2 + 10 * k, dst[ne++] = 3 + 10 * k;
    if (k) src[ne] = 3 + 10 * (k - 1), dst[ne++] = 3 + 10 * k;
  }
  src[ne] = 23, dst[ne++] = 100;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 4, x, 1, y, ne, src, dst, NULL), ADE_OK);
  uint8_t *cut = NULL;
  ck_assert_int_eq(ade__cut_bounds(g, &cut), ADE_OK);
  uint64_t fsum = 0;
  for (size_t j = 0; j < g->nv; j++)
    if (g->v[j].alive && g->v[j].kind == ADE__Z) fsum += ade__cut(cut, j);
  ck_assert_uint_eq(fsum, 14);
  for (int o = ADE_ORDER_EDGE_FORWARD; o <= ADE_ORDER_FACE_GREEDY; o++) {
    ade_elim_seq *s = NULL;
    int limited = -1;
    ck_assert_int_eq(ade_elim_order_native(g, o, 1e-6, &s, &limited), ADE_OK);
    ck_assert_msg(!limited, "%s: limited", ade_order_name(o));
    ck_assert_uint_eq(ade_seq_cost(s), 14);
    ade_seq_free(s);
  }
  free(cut);
  ade_cgraph_free(g);
}
END_TEST

/* The sequence of ordering o for g, complete and costing what it says. */

/* Per vertex, the sources (independents; reverse: dependents) that reach
 * it (it reaches), by a search from each source: the oracle of
 * ade__reach_counts. */
static void reach_naive(const ade_cgraph *g, int reverse, uint64_t *cnt) {
  size_t *stack = malloc((g->nv + 1) * sizeof *stack), ns = reverse ? g->m : g->n;
  char *seen = malloc(g->nv + 1);
  memset(cnt, 0, g->nv * sizeof *cnt);
  for (size_t i = 0; i < ns; i++) {
    size_t s = reverse ? g->yv[i] : g->xv[i], top = 0;
    if (s == ADE__NONE || !g->v[s].alive) continue;
    memset(seen, 0, g->nv);
    stack[top++] = s, seen[s] = 1;
    while (top) {
      const ade__vtx *v = &g->v[stack[--top]];
      cnt[v - g->v]++;
      for (size_t k = 0; k < (reverse ? v->nin : v->nout); k++) {
        size_t u = reverse ? g->e[v->in[k]].src : g->e[v->out[k]].dst;
        if (!seen[u]) seen[u] = 1, stack[top++] = u;
      }
    }
  }
  free(stack), free(seen);
}

/* ade__reach_counts, one batch (at most 64 sources: a scan in topological
 * order) or several (the heap), equals a search from each source; and the
 * counted vertex sweeps (the one batch scanned by index) cost what their
 * simulation does (ade__order_raw with the rescanning reference). */
START_TEST(reach_counts_random) {
  static const int ns[] = {1, 3, 64, 65, 130};
  for (int r = 0; r < 40; r++) {
    uint64_t seed = 0x7eac4u + (uint64_t)r;
    int n = ns[r % 5], m = ns[(r / 5) % 5];
    ade_cgraph *g = layered(seed, n, 3 + r % 4, 4 + r % 7, m);
    uint64_t *a = malloc((g->nv + 1) * sizeof *a), *b = malloc((g->nv + 1) * sizeof *b);
    for (int rev = 0; rev < 2; rev++) {
      ck_assert_int_eq(ade__reach_counts(g, rev, a), ADE_OK);
      reach_naive(g, rev, b);
      for (size_t j = 0; j < g->nv; j++)
        ck_assert_msg(a[j] == b[j], "seed %llu n %d m %d rev %d: vertex %zu reached by %llu, not %llu",
                      (unsigned long long)seed, n, m, rev, j, (unsigned long long)a[j], (unsigned long long)b[j]);
      int o = rev ? ADE_ORDER_VERTEX_REVERSE : ADE_ORDER_VERTEX_FORWARD;
      ade_elim_seq *s = NULL;
      ck_assert_int_eq(ade__order_raw(g, o, 1, &s), ADE_OK);
      ck_assert_uint_eq(raw_cost(g, o), ade_seq_cost(s));
      ade_seq_free(s);
    }
    free(a), free(b);
    ade_cgraph_free(g);
  }
}
END_TEST

/* A face sweep costs exactly what the vertex sweep of its direction
 * does: draining the faces through a vertex is its vertex elimination
 * (Section 3.3 of [F]), and the dual stays the dual of the eliminated
 * c-graph between vertices (a fill-in (u, w) is absorbed exactly where
 * the c-graph has the edge already). order.c relies on it: a face sweep
 * whose vertex sweep already loses (or ties, in native form) is not run. */
START_TEST(face_sweeps_cost_vertex_sweeps) {
  uint64_t rs = 23;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 6), m = 1 + (int)(ade_test_rand(&rs) % 6);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 80))
                             : layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 6), 1 + (int)(ade_test_rand(&rs) % 8), m);
    for (int r = 0; r < 2; r++) {
      int fo = r ? ADE_ORDER_FACE_REVERSE : ADE_ORDER_FACE_FORWARD;
      uint64_t f = raw_cost(g, fo), v = raw_cost(g, r ? ADE_ORDER_VERTEX_REVERSE : ADE_ORDER_VERTEX_FORWARD);
      ck_assert_msg(f == v, "seed %llu: %s %llu fma, its vertex sweep %llu", (unsigned long long)seed,
                    ade_order_name(fo), (unsigned long long)f, (unsigned long long)v);
    }
    ade_cgraph_free(g);
  }
}
END_TEST

static uint64_t order_cost(const ade_cgraph *g, int o) {
  ade_elim_seq *s = NULL;
  ade_cgraph *d = NULL;
  int done = 0;
  uint64_t cost = 0;
  ck_assert_msg(ade_elim_order(g, o, &s) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
  if (ade_seq_kind(s) == ADE_SEQ_FACE) ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ck_assert_msg(ade_seq_validate(d ? d : g, s, &done, &cost) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
  ck_assert(done);
  ck_assert_uint_eq(cost, ade_seq_cost(s));
  ade_seq_free(s);
  ade_cgraph_free(d);
  return cost;
}

/* Every edge and face ordering costs no more than vertex-markowitz,
 * face-greedy no more than the greedy edge orderings, the face sweeps no
 * more than the vertex sweeps; *fell counts the graphs where an ordering's own sequence cost
 * more (so the comparison was needed). */
static int check_never_worse(const ade_cgraph *g, int *fell) {
  uint64_t c[ADE_ORDER_COUNT];
  for (int o = 0; o < ADE_ORDER_COUNT; o++) c[o] = order_cost(g, o);
  ck_assert_uint_le(c[ADE_ORDER_EDGE_MARKOWITZ], c[ADE_ORDER_VERTEX_MARKOWITZ]);
  ck_assert_uint_le(c[ADE_ORDER_EDGE_FILLIN], c[ADE_ORDER_VERTEX_MARKOWITZ]);
  ck_assert_uint_le(c[ADE_ORDER_FACE_GREEDY], c[ADE_ORDER_EDGE_MARKOWITZ]);
  ck_assert_uint_le(c[ADE_ORDER_FACE_GREEDY], c[ADE_ORDER_EDGE_FILLIN]);
  ck_assert_uint_le(c[ADE_ORDER_FACE_FORWARD], c[ADE_ORDER_VERTEX_FORWARD]);
  ck_assert_uint_le(c[ADE_ORDER_FACE_REVERSE], c[ADE_ORDER_VERTEX_REVERSE]);
  /* every edge and face ordering: no worse than vertex-markowitz and the
   * vector modes' sweep (vertex-reverse if m < n, else vertex-forward;
   * both where ade__both_sweeps) */
  uint64_t vec = vector_cost(g);
  for (int o = ADE_ORDER_EDGE_FORWARD; o < ADE_ORDER_COUNT; o++) {
    ck_assert_msg(c[o] <= c[ADE_ORDER_VERTEX_MARKOWITZ], "%s: %llu fma, vertex-markowitz %llu", ade_order_name(o),
                  (unsigned long long)c[o], (unsigned long long)c[ADE_ORDER_VERTEX_MARKOWITZ]);
    ck_assert_msg(c[o] <= vec, "%s: %llu fma, the vector mode's sweep %llu", ade_order_name(o),
                  (unsigned long long)c[o], (unsigned long long)vec);
  }
  for (size_t k = 0; k < NGREEDY; k++) {
    ade_elim_seq *s = NULL;
    ck_assert_int_eq(ade__order_raw(g, greedy[k], 0, &s), ADE_OK);
    fell[k] += ade_seq_cost(s) > c[greedy[k]];
    ade_seq_free(s);
  }
  /* On one component: exactly the least of its own, the generalized
   * orderings' and the cheaper vector mode's sweep's sequences, each run
   * in full: a run stopped at its cost ceiling (the cost of the best so
   * far) could not have won. The same with a time limit. */
  static const int gen[][4] = {{ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_VERTEX_MARKOWITZ, -1, -1},
                               {ADE_ORDER_EDGE_FILLIN, ADE_ORDER_VERTEX_MARKOWITZ, -1, -1},
                               {ADE_ORDER_EDGE_FORWARD, ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ, -1},
                               {ADE_ORDER_EDGE_REVERSE, ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ, -1},
                               {ADE_ORDER_FACE_FORWARD, ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ, -1},
                               {ADE_ORDER_FACE_REVERSE, ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ, -1},
                               {ADE_ORDER_FACE_GREEDY, ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_EDGE_MARKOWITZ,
                                ADE_ORDER_EDGE_FILLIN}};
  size_t parts = 0;
  ck_assert_int_eq(ade_cgraph_parts(g, &parts, NULL), ADE_OK);
  if (parts != 1) return 0; /* components: each is ordered alone, and the least is taken in each */
  uint64_t sweep = vec;
  for (size_t k = 0; k < sizeof gen / sizeof *gen; k++) {
    uint64_t least = UINT64_MAX;
    for (int j = 0; j < 4 && gen[k][j] >= 0; j++) {
      uint64_t r = raw_cost(g, gen[k][j]);
      if (r < least) least = r;
    }
    if (sweep < least) least = sweep;
    ck_assert_uint_eq(c[gen[k][0]], least);
    ade_elim_seq *s = NULL;
    int limited = 1;
    ck_assert_int_eq(ade_elim_order_limited(g, gen[k][0], 1000, &s, &limited), ADE_OK);
    ck_assert_int_eq(limited, 0);
    ck_assert_uint_eq(ade_seq_cost(s), least);
    ade_seq_free(s);
  }
  return 1;
}

/* ade__vector_sweep: both directions counted on graphs with few sources
 * (and, on random graphs, the other direction cheaper now and then), the
 * cheaper returned, as a complete sequence of what it costs, and the
 * sweeps after the chains where cheaper (on many); one direction only
 * where the other has many more sources. */
START_TEST(vector_sweeps) {
  uint64_t rs = 17;
  int other = 0, chains = 0, single = 0;
  for (uint64_t seed = 1; seed <= 100; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 60));
    ade_elim_seq *s = NULL;
    int done = 0;
    uint64_t cost = 0, f = raw_cost(g, ADE_ORDER_VERTEX_FORWARD), r = raw_cost(g, ADE_ORDER_VERTEX_REVERSE);
    ck_assert(ade__both_sweeps(g));
    ck_assert_int_eq(ade__vector_sweep(g, &s), ADE_OK);
    ck_assert_uint_eq(ade_seq_cost(s), vector_cost(g));
    ck_assert_uint_le(ade_seq_cost(s), f < r ? f : r);
    chains += ade_seq_cost(s) < (f < r ? f : r);
    for (size_t k = 2; ade_seq_cost(s) == (f < r ? f : r) && k < ade_seq_length(s); k++) { /* ties: the sweep */
      long a = ade_seq_step(s, k - 2)->a, b = ade_seq_step(s, k - 1)->a, c = ade_seq_step(s, k)->a;
      ck_assert((a < b) == (b < c));
    }
    ck_assert_msg(ade_seq_validate(g, s, &done, &cost) == ADE_OK, "%s", ade_errmsg());
    ck_assert(done);
    ck_assert_uint_eq(cost, ade_seq_cost(s));
    other += (g->m < g->n ? f < r : r < f);
    /* the ordering vertex-chains is this sweep, a vertex sequence (with
     * components: each component's, in its cheaper direction) */
    ade_elim_seq *o = NULL;
    size_t parts = 0;
    ck_assert_int_eq(ade_elim_order(g, ADE_ORDER_VERTEX_CHAINS, &o), ADE_OK);
    ck_assert_int_eq(ade_seq_kind(o), ADE_SEQ_VERTEX);
    ck_assert_int_eq(ade_cgraph_parts(g, &parts, NULL), ADE_OK);
    if (parts == 1) ade_test_same_seq(o, s, "vertex-chains", seed);
    ck_assert_uint_le(ade_seq_cost(o), ade_seq_cost(s));
    ck_assert(ade_seq_validate(g, o, &done, &cost) == ADE_OK && done && cost == ade_seq_cost(o));
    single += parts == 1;
    ade_seq_free(o);
    ade_seq_free(s);
    ade_cgraph_free(g);
  }
  ck_assert_int_gt(other, 0);
  ck_assert_int_gt(chains, 30);
  ck_assert_int_gt(single, 30);
  /* 200 independents into one dependent: the forward count would take 4
   * batches of reach sets against reverse's one, and is skipped */
  enum { K = 200 };
  long x[K], y = 2, src[K + 1], dst[K + 1];
  for (long i = 0; i < K; i++) x[i] = -i, src[i] = -i, dst[i] = 1;
  src[K] = 1, dst[K] = 2;
  ade_cgraph *g = NULL;
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, K, x, 1, &y, K + 1, src, dst, NULL), ADE_OK);
  ck_assert(!ade__both_sweeps(g));
  ck_assert_int_eq(ade__vector_sweep(g, &s), ADE_OK);
  ck_assert_uint_eq(ade_seq_cost(s), raw_cost(g, ADE_ORDER_VERTEX_REVERSE));
  ade_seq_free(s);
  ade_cgraph_free(g);
}
END_TEST

/* ade__sweep_floor: never above the sweep's cost (reachability counts,
 * by the naive search, times degrees), equal to it on some graphs, and on a graph whose
 * forward sweep costs far more than its reverse one (64 independents
 * through layers into 2 dependents) above the reverse cost, so that
 * ade__vector_sweep does not count the forward sweep. */
START_TEST(sweep_floor) {
  uint64_t rs = 29;
  int equal = 0;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 6), m = 1 + (int)(ade_test_rand(&rs) % 6);
    int layers = 1 + (int)(ade_test_rand(&rs) % 8), width = 1 + (int)(ade_test_rand(&rs) % 9);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 80))
                             : layered(seed, n, layers, width, m);
    for (int rev = 0; rev < 2; rev++) {
      uint64_t *cnt = malloc((g->nv + 1) * sizeof *cnt), exact = 0, lo = 0;
      reach_naive(g, rev, cnt); /* the test's own count: a search from each source */
      for (size_t j = 0; j < g->nv; j++)
        if (g->v[j].alive && g->v[j].kind == ADE__Z) exact += cnt[j] * (rev ? g->v[j].nin : g->v[j].nout);
      ck_assert_int_eq(ade__sweep_floor(g, rev, UINT64_MAX, &lo), ADE_OK);
      ck_assert_uint_le(lo, exact);
      equal += lo == exact;
      free(cnt);
    }
    ade_cgraph_free(g);
  }
  ck_assert_int_gt(equal, 0);
  ade_cgraph *g = layered(3, 64, 12, 40, 2);
  uint64_t lo = 0, rc = raw_cost(g, ADE_ORDER_VERTEX_REVERSE);
  ck_assert(ade__both_sweeps(g));
  ck_assert_int_eq(ade__sweep_floor(g, 0, UINT64_MAX, &lo), ADE_OK);
  ck_assert_uint_gt(lo, rc);
  uint64_t part = 0; /* stopped at a bar: at least the bar, at most the whole floor */
  ck_assert_int_eq(ade__sweep_floor(g, 0, rc, &part), ADE_OK);
  ck_assert(part >= rc && part <= lo);
  ck_assert_uint_le(lo, raw_cost(g, ADE_ORDER_VERTEX_FORWARD));
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade__vector_sweep(g, &s), ADE_OK);
  ck_assert_uint_eq(ade_seq_cost(s), vector_cost(g));
  ck_assert_uint_le(ade_seq_cost(s), rc);
  ade_seq_free(s);
  ade_cgraph_free(g);
}
END_TEST

/* g eliminated by s (on a copy, or on the dual for faces): its Jacobian. */
static ade_sparse *jacobian_by(const ade_cgraph *g, const ade_elim_seq *s) {
  ade_cgraph *w = NULL;
  ade_sparse *J = NULL;
  uint64_t cost = 0;
  ck_assert_int_eq(ade_seq_kind(s) == ADE_SEQ_FACE ? ade_cgraph_dual(&w, g) : ade_cgraph_copy(&w, g), ADE_OK);
  ck_assert_msg(ade_seq_apply(w, s, &cost) == ADE_OK, "%s", ade_errmsg());
  ck_assert_uint_eq(cost, ade_seq_cost(s));
  ck_assert_int_eq(ade_cgraph_jacobian(w, &J), ADE_OK);
  ade_cgraph_free(w);
  return J;
}

/* ade_elim_order_native: the fma of ade_elim_order_limited, in the
 * ordering's kind or a less general one (some of each on these graphs),
 * and the same Jacobian (to rounding: another order of the same
 * products' sums). */
static ade_cgraph *pair(const ade_cgraph *f, const ade_cgraph *g);
static ade_cgraph *twice(const ade_cgraph *g);

/* Every other graph is the last two side by side (components ordered
 * alone): in native form, the most general kind of the halves' winners,
 * at the sum of their costs. */
START_TEST(native_kind) {
  uint64_t rs = 23;
  int less = 0, own_kind = 0, mixed = 0;
  ade_cgraph *last = NULL;
  for (uint64_t seed = 1; seed <= 80; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *one = random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 40));
    ade_cgraph *g = last && seed % 2 ? pair(last, one) : one;
    for (int o = ADE_ORDER_EDGE_FORWARD; o < ADE_ORDER_COUNT; o++) {
      ade_elim_seq *a = NULL, *b = NULL, *c = NULL, *d = NULL;
      int la = 1, lb = 1;
      if (g != one) {
        ck_assert_int_eq(ade_elim_order_native(last, o, 0, &c, NULL), ADE_OK);
        ck_assert_int_eq(ade_elim_order_native(one, o, 0, &d, NULL), ADE_OK);
        ck_assert_msg(ade_elim_order_native(g, o, 0, &b, NULL) == ADE_OK, "%s", ade_errmsg());
        ck_assert_int_eq(ade_seq_kind(b), ADE__MAX(ade_seq_kind(c), ade_seq_kind(d)));
        ck_assert_uint_eq(ade_seq_cost(b), ade_seq_cost(c) + ade_seq_cost(d));
        mixed += ade_seq_kind(c) != ade_seq_kind(d);
        ade_seq_free(b), b = NULL;
        ade_seq_free(c);
        ade_seq_free(d);
      }
      ck_assert_int_eq(ade_elim_order_limited(g, o, 0, &a, &la), ADE_OK);
      ck_assert_msg(ade_elim_order_native(g, o, 0, &b, &lb) == ADE_OK, "%s: %s", ade_order_name(o), ade_errmsg());
      ck_assert(!la && !lb);
      ck_assert_uint_eq(ade_seq_cost(b), ade_seq_cost(a));
      ck_assert_int_le(ade_seq_kind(b), ade_seq_kind(a));
      less += ade_seq_kind(b) < ade_seq_kind(a), own_kind += ade_seq_kind(b) == ade_seq_kind(a);
      ade_sparse *Ja = jacobian_by(g, a), *Jb = jacobian_by(g, b);
      ck_assert_uint_eq(Ja->nnz, Jb->nnz);
      for (size_t r = 0; r <= Ja->m; r++) ck_assert_uint_eq(Ja->rowptr[r], Jb->rowptr[r]);
      for (size_t k = 0; k < Ja->nnz; k++) {
        ck_assert_uint_eq(Ja->col[k], Jb->col[k]);
        ck_assert_msg(fabs(Ja->val[k] - Jb->val[k]) <= 1e-12 * (1 + fabs(Ja->val[k])), "%s: %g against %g",
                      ade_order_name(o), Jb->val[k], Ja->val[k]);
      }
      ade_sparse_free(Ja);
      ade_sparse_free(Jb);
      ade_seq_free(a);
      ade_seq_free(b);
    }
    if (g != one) ade_cgraph_free(g);
    ade_cgraph_free(last);
    last = one;
  }
  ade_cgraph_free(last);
  ck_assert_int_gt(less, 0);
  ck_assert_int_gt(own_kind, 0);
  ck_assert_int_gt(mixed, 0);
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade_elim_order_native(NULL, 0, 0, &s, NULL), ADE_EINVAL);
}
END_TEST

START_TEST(never_worse_random) {
  int fell[NGREEDY] = {0}, exact = 0;
  uint64_t rs = 5;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 2 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 60))
                             : layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 6), 1 + (int)(ade_test_rand(&rs) % 8), m);
    exact += check_never_worse(g, fell);
    ade_cgraph_free(g);
  }
  ck_assert_int_gt(exact, 75); /* graphs of one component, checked exactly */
  /* The greedy edge orderings alone lose to vertex-markowitz now and then. */
  ck_assert_int_gt(fell[0], 0);
  ck_assert_int_gt(fell[1], 0);
}
END_TEST

/* A hub h with K in-edges from the independents and K out-edges, each to
 * an intermediate into the one dependent: K^2 faces through h. With both,
 * also its mirror image from x_0: K intermediates into a hub h' with K
 * out-edges to dependents (each sweep meets one of the hubs early, at K^2
 * fma; vertex-markowitz pays 4K). */
static ade_cgraph *hubs(long K, int both) {
  long *x = malloc((size_t)K * sizeof *x), *y = malloc((size_t)(K + 1) * sizeof *y), ne = 0;
  long *src = malloc(6 * (size_t)K * sizeof *src), *dst = malloc(6 * (size_t)K * sizeof *dst);
  y[0] = 2 * K + 1;
  for (long i = 0; i < K; i++) {
    x[i] = -i;
    src[ne] = -i, dst[ne++] = 1;            /* x_i -> h = 1 */
    src[ne] = 1, dst[ne++] = 2 + i;         /* h -> z_i */
    src[ne] = 2 + i, dst[ne++] = 2 * K + 1; /* z_i -> y */
    if (!both) continue;
    y[1 + i] = 3 * K + 3 + i;
    src[ne] = 0, dst[ne++] = 2 * K + 2 + i;         /* x_0 -> a_i */
    src[ne] = 2 * K + 2 + i, dst[ne++] = 3 * K + 2; /* a_i -> h' */
    src[ne] = 3 * K + 2, dst[ne++] = 3 * K + 3 + i; /* h' -> y_i */
  }
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, (size_t)K, x, both ? (size_t)K + 1 : 1, y, (size_t)ne, src, dst, NULL),
                   ADE_OK);
  free(x), free(y), free(src), free(dst);
  return g;
}

/* hubs(200, 0): the dual (about 3 MB) is over a 1 MiB memory limit that
 * the graph (tens of KB) keeps. A face ordering in native form with a
 * flag (ade_jacobian's) then drops its run and returns the best of the others, limited;
 * ade_elim_order and ade_elim_order_limited, which return faces, fail
 * with the dual's ADE_ENOMEM; the face hierarchy (ade_optimize) returns
 * the best of its comparisons, limited. */
START_TEST(memory_limit_soft) {
  ade_cgraph *g = hubs(200, 0);
  ade_elim_seq *s = NULL;
  g->memlimit = (size_t)1 << 20;
  uint64_t vm = order_cost(g, ADE_ORDER_VERTEX_MARKOWITZ);
  static const int fo[] = {ADE_ORDER_FACE_GREEDY, ADE_ORDER_FACE_FORWARD, ADE_ORDER_FACE_REVERSE};
  for (size_t k = 0; k < sizeof fo / sizeof *fo; k++) {
    int limited = 0;
    ck_assert_msg(ade__elim_order_native(g, fo[k], 0, &s, &limited) == ADE_OK, "%s: %s", ade_order_name(fo[k]),
                  ade_errmsg());
    ck_assert_uint_le(ade_seq_cost(s), vm);
    ade_seq_free(s), s = NULL;
    if (fo[k] != ADE_ORDER_FACE_GREEDY) continue; /* a face sweep that cannot win is not run */
    ck_assert_int_eq(limited, 1);
    ck_assert_int_eq(ade_elim_order(g, fo[k], &s), ADE_ENOMEM);
    ck_assert_msg(strstr(ade_errmsg(), "dual c-graph") != NULL, "%s", ade_errmsg());
    ck_assert_int_eq(ade_elim_order_limited(g, fo[k], 0, &s, &limited), ADE_ENOMEM);
    ck_assert_ptr_null(s);
  }
  ade_opt_limits lim;
  ade_opt_report r;
  ade_opt_limits_init(&lim);
  ck_assert_msg(ade_optimize(g, ADE_SEQ_FACE, ADE_OPT_HIERARCHY, &lim, &s, &r) == ADE_OK, "%s", ade_errmsg());
  ck_assert_int_eq(r.limited, 1);
  ck_assert_uint_le(ade_seq_cost(s), vm);
  ade_seq_free(s), s = NULL;
  g->memlimit = SIZE_MAX; /* no limit: face-greedy runs, not limited */
  int limited = 0;
  ck_assert_int_eq(ade__elim_order_native(g, ADE_ORDER_FACE_GREEDY, 0, &s, &limited), ADE_OK);
  ck_assert_int_eq(limited, 0);
  ade_seq_free(s);
  ade_cgraph_free(g);
}
END_TEST

/* The paper's lion (Figure 12) and bat (Proposition 2). */
START_TEST(never_worse_paper) {
  static const long lx[] = {-1, 0}, ly[] = {3, 4, 5, 6};
  static const long ls[] = {-1, 0, 1, 1, 2, 2, 2, 2}, ld[] = {1, 1, 2, 6, 3, 4, 5, 6};
  static const long bx[] = {-3, -2, -1, 0}, by[] = {4, 5, 6, 7};
  static const long bs[] = {-3, -2, -1, 0, 1, 2, 3, 3, 3, 3, 1, 2}, bd[] = {1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 4, 7};
  int fell[NGREEDY] = {0};
  ade_cgraph *g = NULL;
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 2, lx, 4, ly, 8, ls, ld, NULL), ADE_OK);
  check_never_worse(g, fell);
  check_same_choices(g, 0);
  ck_assert_uint_le(order_cost(g, ADE_ORDER_EDGE_MARKOWITZ), 12); /* the vertex orders' 12 */
  ade_cgraph_free(g);
  ck_assert_int_eq(ade_cgraph_from_edges(&g, 4, bx, 4, by, 12, bs, bd, NULL), ADE_OK);
  check_never_worse(g, fell);
  check_same_choices(g, 0);
  ade_cgraph_free(g);
}
END_TEST

/* A 0.05 s limit on a graph whose face-greedy ordering takes longer:
 * internally ADE_ELIMIT at once; through the API a complete sequence,
 * flagged limited. */
/* The cost of face sequence s on g's dual, checked complete. */
static uint64_t face_cost(const ade_cgraph *g, const ade_elim_seq *s) {
  ade_cgraph *d = NULL;
  uint64_t cost = 0;
  int done = 0;
  ck_assert_int_eq(ade_cgraph_dual(&d, g), ADE_OK);
  ck_assert_msg(ade_seq_validate(d, s, &done, &cost) == ADE_OK && done, "%s", ade_errmsg());
  ade_cgraph_free(d);
  return cost;
}

START_TEST(time_limit) {
  ade_cgraph *g = layered(3, 8, 300, 60, 8);
  ade_elim_seq *s = NULL;
  int limited = -1, done = 0;
  double t0 = ade__now(), c0 = ade_test_cpu();
  ck_assert_int_eq(ade__elim_order(g, ADE_ORDER_FACE_GREEDY, t0 + 0.05, &s, NULL), ADE_ELIMIT);
  ck_assert_ptr_null(s);
  ck_assert_double_lt(ade_test_cpu() - c0, 1.0); /* CPU: a loaded machine stretches wall time */
  ck_assert_double_lt(ade__now() - t0, 10.0);
  ck_assert_int_eq(ade_elim_order_limited(g, ADE_ORDER_FACE_GREEDY, 0.05, &s, &limited), ADE_OK);
  ck_assert_int_eq(limited, 1);
  ck_assert_uint_eq(face_cost(g, s), ade_seq_cost(s));
  ade_seq_free(s);
  uint64_t cost = 0;
  /* No limit, and a limit never reached: not limited. */
  ck_assert_int_eq(ade_elim_order_limited(g, ADE_ORDER_EDGE_MARKOWITZ, 0, &s, &limited), ADE_OK);
  ck_assert_int_eq(limited, 0);
  ade_seq_free(s);
  ck_assert_int_eq(ade_elim_order_limited(g, ADE_ORDER_VERTEX_FORWARD, 1e-9, &s, &limited), ADE_OK);
  ck_assert_int_eq(limited, 0); /* the vertex sweeps take no decisions worth a clock */
  ade_seq_free(s);
  /* The Markowitz orderings take it: out of time, the rest in the order of
   * the cheaper vector mode, complete, costed, flagged limited. */
  for (int o = ADE_ORDER_VERTEX_MARKOWITZ; o <= ADE_ORDER_VERTEX_RELATIVE; o++) {
    ck_assert_int_eq(ade_elim_order_limited(g, o, 1e-9, &s, &limited), ADE_OK);
    ck_assert_int_eq(limited, 1);
    ck_assert_msg(ade_seq_validate(g, s, &done, &cost) == ADE_OK && done, "%s", ade_errmsg());
    ck_assert_uint_eq(cost, ade_seq_cost(s));
    ade_seq_free(s);
  }
  /* Fewer dependents than independents: out of time, the answer is the
   * sweep of the cheaper vector mode (reverse), computed first, complete. */
  ade_cgraph *g1 = layered(7, 8, 40, 30, 1);
  ade_elim_seq *rev = NULL;
  ck_assert_int_eq(ade_elim_order(g1, ADE_ORDER_VERTEX_REVERSE, &rev), ADE_OK);
  ck_assert_int_eq(ade_elim_order_limited(g1, ADE_ORDER_EDGE_FILLIN, 1e-9, &s, &limited), ADE_OK);
  ck_assert_int_eq(limited, 1);
  ck_assert_msg(ade_seq_validate(g1, s, &done, &cost) == ADE_OK && done, "%s", ade_errmsg());
  ck_assert_uint_eq(cost, ade_seq_cost(rev));
  ade_seq_free(s);
  ck_assert_int_eq(ade_elim_order_limited(g1, ADE_ORDER_FACE_GREEDY, 1e-9, &s, &limited), ADE_OK);
  ck_assert_int_eq(limited, 1);
  ck_assert_uint_eq(face_cost(g1, s), ade_seq_cost(rev));
  ade_seq_free(s);
  ade_seq_free(rev);
  ade_cgraph_free(g1);
  /* Two components in two threads: the limit holds for each. */
  ade_cgraph *g2 = twice(g);
  ade_order_options o = {0.05, 0, NULL, NULL, 0, 2};
  t0 = ade__now();
  ck_assert_int_eq(ade_elim_order_with(g2, ADE_ORDER_FACE_GREEDY, &o, &s, &limited), ADE_OK);
  ck_assert_double_lt(ade__now() - t0, 30.0); /* the limit, then the winners converted to faces */
  ck_assert_int_eq(limited, 1);
  ck_assert_uint_eq(face_cost(g2, s), ade_seq_cost(s));
  ade_seq_free(s);
  ade_cgraph_free(g2);
  /* The compared runs of one component in three threads under the limit:
   * each run out of time is dropped, as in turn; the answer is complete,
   * costed and limited. */
  o.threads = 3;
  t0 = ade__now();
  ck_assert_int_eq(ade_elim_order_with(g, ADE_ORDER_FACE_GREEDY, &o, &s, &limited), ADE_OK);
  ck_assert_double_lt(ade__now() - t0, 30.0);
  ck_assert_int_eq(limited, 1);
  ck_assert_uint_eq(face_cost(g, s), ade_seq_cost(s));
  ade_seq_free(s);
  /* A limit never reached: in threads, the sequence without one, not limited. */
  ade_cgraph *g3 = layered(11, 4, 12, 6, 3);
  for (int k = ADE_ORDER_EDGE_MARKOWITZ; k <= ADE_ORDER_FACE_GREEDY; k++) {
    ade_elim_seq *u = NULL;
    if (k == ADE_ORDER_FACE_FORWARD || k == ADE_ORDER_FACE_REVERSE) continue;
    o.time_limit = 0;
    ck_assert_int_eq(ade_elim_order_with(g3, k, &o, &u, NULL), ADE_OK);
    o.time_limit = 100;
    ck_assert_int_eq(ade_elim_order_with(g3, k, &o, &s, &limited), ADE_OK);
    ck_assert_int_eq(limited, 0);
    ade_test_same_seq(s, u, ade_order_name(k), 11);
    ade_seq_free(s);
    ade_seq_free(u);
  }
  ade_cgraph_free(g3);
  ck_assert_int_eq(ade_elim_order_limited(g, ADE_ORDER_FACE_GREEDY, -1, &s, &limited), ADE_EINVAL);
  ck_assert_int_eq(ade_elim_order_limited(NULL, ADE_ORDER_FACE_GREEDY, 1, &s, &limited), ADE_EINVAL);
  ade_cgraph_free(g);
}
END_TEST

/* Progress (ade_elim_order_with; every 1024 steps with a tiny interval). */
typedef struct reports {
  int order, n, bad, stale;
  size_t components;
  ade_order_progress last;
  int seen[ADE_ORDER_COUNT];
} reports;

static void on_report(void *ud, const ade_order_progress *p) {
  reports *r = ud;
  int ok = p->method == r->order && p->running >= 0 && p->running < ADE_ORDER_COUNT && p->steps > 0 &&
           p->steps % 1024 == 0 && p->cost >= p->steps && p->seconds >= 0 && p->component >= 1 &&
           p->component <= p->components;
  /* an edge or face ordering has the vector sweep's bar from the start; a vertex ordering none */
  if (ok && r->order < ADE_ORDER_COUNT) ok = (r->order >= ADE_ORDER_EDGE_FORWARD) == (p->best != UINT64_MAX);
  if (ok && r->n && p->component == r->last.component) /* a bar never rises; time runs on */
    ok = p->best <= r->last.best && p->seconds >= r->last.seconds;
  if (ok && p->running == r->last.running && p->component == r->last.component && r->n)
    r->stale += p->steps == r->last.steps; /* the same run reports again only after more steps */
  r->bad += !ok;
  if (ok) r->seen[p->running]++;
  if (p->components > r->components) r->components = p->components;
  r->last = *p;
  r->n++;
}

/* The orderings an ordering runs: itself and those it generalizes. */
static int runs_for(int o, int running) {
  static const int gen[ADE_ORDER_COUNT][3] = {
      [ADE_ORDER_EDGE_FORWARD] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ, -1},
      [ADE_ORDER_FACE_FORWARD] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ, -1},
      [ADE_ORDER_EDGE_REVERSE] = {ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ, -1},
      [ADE_ORDER_FACE_REVERSE] = {ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ, -1},
      [ADE_ORDER_EDGE_MARKOWITZ] = {ADE_ORDER_VERTEX_MARKOWITZ, -1, -1},
      [ADE_ORDER_EDGE_FILLIN] = {ADE_ORDER_VERTEX_MARKOWITZ, -1, -1},
      [ADE_ORDER_FACE_GREEDY] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN},
      [ADE_ORDER_VERTEX_FORWARD] = {-1, -1, -1}, [ADE_ORDER_VERTEX_REVERSE] = {-1, -1, -1},
      [ADE_ORDER_VERTEX_MARKOWITZ] = {-1, -1, -1}, [ADE_ORDER_VERTEX_RELATIVE] = {-1, -1, -1}};
  return running == o || running == gen[o][0] || running == gen[o][1] || running == gen[o][2];
}

static void same_steps(const ade_elim_seq *a, const ade_elim_seq *b) {
  ck_assert_uint_eq(a->len, b->len);
  for (size_t i = 0; i < a->len; i++)
    ck_assert(a->step[i].a == b->step[i].a && a->step[i].b == b->step[i].b && a->step[i].dir == b->step[i].dir);
}

/* f and g side by side (ids of g's shifted, the independents' down, the
 * others' up, clear of f's): at least two components. */
static ade_cgraph *pair(const ade_cgraph *f, const ade_cgraph *g) {
  long shift = 1, *src = malloc((f->nedges + g->nedges) * sizeof *src);
  long *dst = malloc((f->nedges + g->nedges) * sizeof *dst), *xid = malloc((f->n + g->n) * sizeof *xid);
  long *yid = malloc((f->m + g->m) * sizeof *yid);
  for (size_t j = 0; j < f->nv; j++) shift = ADE__MAX(shift, 1 + labs(f->v[j].id));
  for (size_t j = 0; j < g->nv; j++) shift = ADE__MAX(shift, 1 + labs(g->v[j].id));
  size_t ne = 0, nx = 0, ny = 0;
  for (int k = 0; k < 2; k++, g = f) {
    for (size_t e = 0; e < g->eslots; e++)
      if (g->e[e].src != ADE__NONE) {
        const ade__vtx *a = &g->v[g->e[e].src];
        src[ne] = a->id + (a->kind == ADE__X ? -2 : 2) * k * shift, dst[ne++] = g->v[g->e[e].dst].id + 2 * k * shift;
      }
    for (size_t i = 0; i < g->n; i++) xid[nx++] = g->v[g->xv[i]].id - 2 * k * shift;
    for (size_t i = 0; i < g->m; i++) yid[ny++] = g->v[g->yv[i]].id + 2 * k * shift;
  }
  ade_cgraph *h = NULL;
  ck_assert_msg(ade_cgraph_from_edges(&h, nx, xid, ny, yid, ne, src, dst, NULL) == ADE_OK, "%s", ade_errmsg());
  free(src), free(dst), free(xid), free(yid);
  return h;
}

static ade_cgraph *twice(const ade_cgraph *g) { return pair(g, g); }

START_TEST(progress_reports) {
  ade_cgraph *one = layered(11, 6, 60, 30, 6), *two = twice(one);
  ade_cgraph *gs[2] = {one, two};
  for (int k = 0; k < 2; k++)
    for (int o = 0; o < ADE_ORDER_COUNT; o++)
      for (int native = 0; native < 2; native++) {
        reports r = {o, 0, 0, 0, 0, {0}, {0}};
        ade_order_options opt = {0, native, on_report, &r, 1e-9, 1};
        ade_elim_seq *a = NULL, *b = NULL;
        int la = -1, lb = -1;
        ck_assert_msg(ade_elim_order_with(gs[k], o, &opt, &a, &la) == ADE_OK, "%s: %s", ade_order_name(o),
                      ade_errmsg());
        ck_assert_int_eq((native ? ade_elim_order_native : ade_elim_order_limited)(gs[k], o, 0, &b, &lb), ADE_OK);
        /* reports change nothing */
        ck_assert(!la && !lb);
        ck_assert_uint_eq(ade_seq_cost(a), ade_seq_cost(b));
        ck_assert_int_eq(ade_seq_kind(a), ade_seq_kind(b));
        same_steps(a, b);
        ck_assert_msg(!r.bad && !r.stale, "%s: %d bad reports, %d repeated", ade_order_name(o), r.bad, r.stale);
        for (int x = 0; x < ADE_ORDER_COUNT; x++)
          if (r.seen[x]) ck_assert_msg(runs_for(o, x), "%s reports %s running", ade_order_name(o), ade_order_name(x));
        /* every ordering that decides (the sweeps count, over 1800 intermediates) reports */
        if (o != ADE_ORDER_VERTEX_FORWARD && o != ADE_ORDER_VERTEX_REVERSE && o != ADE_ORDER_VERTEX_CHAINS)
          ck_assert_int_gt(r.n, 0);
        ck_assert_uint_eq(r.components, r.n ? (k ? 2 : 1) : 0);
        if (o == ADE_ORDER_FACE_GREEDY) /* the runs it compares report too */
          ck_assert(r.seen[ADE_ORDER_EDGE_MARKOWITZ] && r.seen[ADE_ORDER_EDGE_FILLIN] && r.seen[ADE_ORDER_FACE_GREEDY]);
        ade_seq_free(a);
        ade_seq_free(b);
      }
  /* No options: ade_elim_order's sequence. Bad options: refused. */
  ade_elim_seq *a = NULL, *b = NULL;
  ck_assert_int_eq(ade_elim_order_with(one, ADE_ORDER_EDGE_FILLIN, NULL, &a, NULL), ADE_OK);
  ck_assert_int_eq(ade_elim_order(one, ADE_ORDER_EDGE_FILLIN, &b), ADE_OK);
  same_steps(a, b);
  ade_seq_free(a);
  ade_seq_free(b);
  ade_order_options bad = {0, 0, NULL, NULL, -1, 1};
  ck_assert_int_eq(ade_elim_order_with(one, ADE_ORDER_EDGE_FILLIN, &bad, &a, NULL), ADE_EINVAL);
  bad.progress_interval = NAN;
  ck_assert_int_eq(ade_elim_order_with(one, ADE_ORDER_EDGE_FILLIN, &bad, &a, NULL), ADE_EINVAL);
  bad.progress_interval = 0, bad.time_limit = -1;
  ck_assert_int_eq(ade_elim_order_with(one, ADE_ORDER_EDGE_FILLIN, &bad, &a, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_elim_order_with(NULL, ADE_ORDER_EDGE_FILLIN, NULL, &a, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_elim_order_with(one, ADE_ORDER_COUNT, NULL, &a, NULL), ADE_EINVAL);
  ck_assert_ptr_null(a);
  ade_cgraph_free(one);
  ade_cgraph_free(two);
}
END_TEST

/* ade_jacobian reports an ordering method's progress, and ADE_ELIM_AUTO's
 * orderings' (method ADE_ELIM_AUTO, the Markowitz orderings running). */
START_TEST(jacobian_progress) {
  randprog p = rp_make(5, 4, 3, 3000);
  double x[4] = {0.3, 0.5, 0.7, 0.9};
  ade_tape *t = rp_record(&p, x, NULL);
  const int methods[] = {ADE_ELIM_AUTO, ADE_ORDER_EDGE_FILLIN};
  for (int k = 0; k < 2; k++) {
    reports r = {methods[k], 0, 0, 0, 0, {0}, {0}};
    ade_jacobian_options o = {NULL, 0, NULL, 0, NULL, NULL, on_report, &r, 1e-9, 1};
    ade_jacobian_report a, b;
    ade_sparse *J = NULL, *K = NULL;
    ck_assert_msg(ade_jacobian(t, methods[k], &o, &J, &a) == ADE_OK, "%s", ade_errmsg());
    ck_assert_int_eq(ade_jacobian(t, methods[k], NULL, &K, &b), ADE_OK);
    ck_assert_uint_eq(a.fma, b.fma);
    ck_assert_int_eq(a.method, b.method);
    ck_assert_int_gt(r.n, 0);
    ck_assert_int_eq(r.bad, 0);
    if (k == 0) /* auto runs the Markowitz orderings, as themselves */
      ck_assert(r.seen[ADE_ORDER_VERTEX_MARKOWITZ] && r.seen[ADE_ORDER_VERTEX_RELATIVE] &&
                r.seen[ADE_ORDER_VERTEX_MARKOWITZ] + r.seen[ADE_ORDER_VERTEX_RELATIVE] == r.n);
    else
      for (int q = 0; q < ADE_ORDER_COUNT; q++)
        if (r.seen[q]) ck_assert(runs_for(methods[k], q));
    ade_sparse_free(J);
    ade_sparse_free(K);
    o.progress_interval = -1;
    ck_assert_int_eq(ade_jacobian(t, methods[k], &o, &J, NULL), ADE_EINVAL);
  }
  ade_tape_free(t);
  rp_free(&p);
}
END_TEST

/* Out of memory at every allocation of the incremental orderings. */
START_TEST(out_of_memory) {
  ade_cgraph *g = layered(11, 3, 3, 4, 3);
  for (size_t o = 0; o < NKEYED; o++) {
    int ok = 0;
    for (long k = 0; !ok && k < 100000; k++) {
      ade_test_alloc a = {k, 0, 0};
      ade_elim_seq *s = NULL;
      int limited = 0;
      ade_set_allocator(ade_test_alloc_fn, &a);
      int st = ade_elim_order_limited(g, keyed[o], 10, &s, &limited);
      ade_seq_free(s);
      ade_set_allocator(NULL, NULL);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "%s k=%ld: %d", ade_order_name(keyed[o]), k, st);
      ck_assert_msg(a.live == 0, "%s k=%ld: %ld blocks leaked", ade_order_name(keyed[o]), k, a.live);
      ok = st == ADE_OK;
    }
    ck_assert(ok);
  }
  ade_cgraph_free(g);
}
END_TEST

/* Threads (ade_order_options.threads): the status, sequence, cost,
 * limited flag and message of one thread, whatever the timing: with 2, 3
 * and 4 threads, and with the runs taken last first on one (no bar falls
 * before its run has finished). */
static int same_as_one_thread(const ade_cgraph *g, int o, int native) {
  ade_order_options one = {0, native, NULL, NULL, 0, 1};
  ade_elim_seq *a = NULL;
  int la = 0, sa = ade_elim_order_with(g, o, &one, &a, &la);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", sa ? ade_errmsg() : "");
  for (int th = 2; th <= 5; th++) { /* 5: last first */
    ade_order_options par = one;
    ade_elim_seq *b = NULL;
    int lb = 0;
    par.threads = th == 5 ? 2 : th;
    ade__order_reverse = th == 5;
    ck_assert_int_eq(ade_elim_order_with(g, o, &par, &b, &lb), sa);
    ade__order_reverse = 0;
    ck_assert_int_eq(lb, la);
    if (sa) ck_assert_str_eq(ade_errmsg(), msg);
    if (!sa) {
      ck_assert_uint_eq(ade_seq_cost(b), ade_seq_cost(a));
      same_steps(a, b);
    }
    ade_seq_free(b);
  }
  ade_seq_free(a);
  return sa;
}

/* On random graphs, and on hubs under memory limits that stop the face
 * ordering's run (its dual) at its start or part way, before or after
 * its bar, soft (native) or not. */
START_TEST(portfolio_is_sequential) {
  static const int os[] = {ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_GREEDY};
  uint64_t rs = 17;
  int failed = 0;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    int n = 1 + (int)(ade_test_rand(&rs) % 5), m = 1 + (int)(ade_test_rand(&rs) % 5);
    ade_cgraph *g = seed % 3 == 0 ? random_tape_graph(seed, n, m, 4 + (int)(ade_test_rand(&rs) % 60))
                    : seed % 3 == 1
                        ? layered(seed, n, 1 + (int)(ade_test_rand(&rs) % 6), 1 + (int)(ade_test_rand(&rs) % 8), m)
                        : dense_dag(&rs, n, 2 + (int)(ade_test_rand(&rs) % 14), m, 0.4);
    for (size_t k = 0; k < sizeof os / sizeof *os; k++) same_as_one_thread(g, os[k], (int)(seed % 2));
    ade_cgraph_free(g);
  }
  for (int both = 0; both < 2; both++)
    for (long K = 20; K <= 120; K += 50)
      for (size_t lim = (size_t)1 << 17; lim <= (size_t)1 << 22; lim += lim / 2) {
        ade_cgraph *g = hubs(K, both);
        g->memlimit = lim;
        for (int native = 0; native < 2; native++) failed += same_as_one_thread(g, ADE_ORDER_FACE_GREEDY, native) != 0;
        ade_cgraph_free(g);
      }
  ck_assert_int_gt(failed, 0);
}
END_TEST

/* The heap invariant of both queues: no entry less than its parent (4-ary),
 * and every entry where its index says. */
static void heaps_ordered(const ade__ipq *q, const ade__pkq *p) {
  for (size_t i = 0; i < q->n; i++) {
    ck_assert(q->pos[q->a[i].x] == i);
    ck_assert(!i || !ade__pq_less(q->a[i].k, q->a[(i - 1) / 4].k));
  }
  for (size_t i = 0; i < p->n; i++) {
    const ade__pk *a = &p->a[i].k, *b = &p->a[i ? (i - 1) / 4 : 0].k;
    ck_assert(p->pos[p->a[i].x] == i);
    ck_assert(!i || a->hi > b->hi || (a->hi == b->hi && a->lo >= b->lo));
  }
}

/* The indexed heaps (ade__ipq over tuples, ade__pkq over two-word keys)
 * against a linear scan, on random keys with many ties in the leading
 * fields: the same (key, index) at every pop, after random insertions,
 * key changes (up and down) and deletions. The index is the last field,
 * so the order is total and every pop has one right answer; the two-word
 * key holds the tuple (a, b, x) as hi = a, lo = b 2^32 + x. Each run
 * starts from a bulk build (append, heapify) of about half the indices;
 * ade__pkq_queued agrees with the set of queued indices after every
 * operation; the heap invariant is checked after the build and now and
 * then. */
START_TEST(queues_random) {
  enum { NX = 300, OPS = 40000 };
  long key[NX][3];
  int in[NX];
  for (uint64_t seed = 1; seed <= 4; seed++) {
    ade__ipq q = {0};
    ade__pkq p = {0};
    uint64_t r = seed;
    memset(in, 0, sizeof in);
    for (size_t x = 0; x < NX; x++) { /* a bulk build of about half the indices, in random order of keys */
      if (ade_test_rand(&r) % 2) continue;
      key[x][0] = (long)(ade_test_rand(&r) % (seed == 1 ? 2 : 40));
      key[x][1] = (long)(ade_test_rand(&r) % 5);
      key[x][2] = (long)x;
      long t[ADE__PQ_KEYS] = {key[x][0], key[x][1], key[x][2], 0, 0};
      ck_assert_int_eq(ade__ipq_append(&q, t, x), ADE_OK);
      ade__pk k = {(uint64_t)key[x][0], (uint64_t)key[x][1] << 32 | x};
      ck_assert_int_eq(ade__pkq_append(&p, k, x), ADE_OK);
      in[x] = 1;
    }
    ade__ipq_heapify(&q);
    ade__pkq_heapify(&p);
    heaps_ordered(&q, &p);
    for (int op = 0; op < OPS; op++) {
      uint64_t u = ade_test_rand(&r) % 100;
      size_t x = (size_t)(ade_test_rand(&r) % NX);
      if (u < 55) { /* insert or change: a few distinct values, so ties are common */
        key[x][0] = (long)(ade_test_rand(&r) % (seed == 1 ? 2 : 40));
        key[x][1] = (long)(ade_test_rand(&r) % 5);
        key[x][2] = (long)x;
        long t[ADE__PQ_KEYS] = {key[x][0], key[x][1], key[x][2], 0, 0};
        ck_assert_int_eq(ade__ipq_set(&q, t, x), ADE_OK);
        ade__pk k = {(uint64_t)key[x][0], (uint64_t)key[x][1] << 32 | x};
        ck_assert_int_eq(ade__pkq_set(&p, k, x), ADE_OK);
        in[x] = 1;
      } else if (u < 70) {
        ade__ipq_del(&q, x);
        ade__pkq_del(&p, x);
        in[x] = 0;
      } else {
        size_t best = SIZE_MAX; /* the least (a, b, x) by a scan */
        for (size_t y = 0; y < NX; y++)
          if (in[y] && (best == SIZE_MAX || key[y][0] < key[best][0] ||
                        (key[y][0] == key[best][0] && (key[y][1] < key[best][1] ||
                                                       (key[y][1] == key[best][1] && key[y][2] < key[best][2])))))
            best = y;
        ade__pqent a;
        ade__pkent b;
        int ha = ade__ipq_pop(&q, &a), hb = ade__pkq_pop(&p, &b);
        ck_assert_int_eq(ha, best != SIZE_MAX);
        ck_assert_int_eq(hb, best != SIZE_MAX);
        if (best == SIZE_MAX) continue;
        ck_assert_msg(a.x == best && b.x == best, "seed %d op %d: popped %zu and %zu, least %zu", (int)seed, op, a.x,
                      b.x, best);
        ck_assert(a.k[0] == key[best][0] && a.k[1] == key[best][1] && a.k[2] == key[best][2]);
        ck_assert(b.k.hi == (uint64_t)key[best][0] && b.k.lo == ((uint64_t)key[best][1] << 32 | best));
        in[best] = 0;
      }
      ck_assert_int_eq(ade__pkq_queued(&p, x), in[x]);
      if (op % 97 == 0) heaps_ordered(&q, &p);
    }
    ade__ipq_free(&q);
    ade__pkq_free(&p);
  }
}
END_TEST

/* The bucket queue (ade__bkq) against a linear scan: keys hi = (2^31 -
 * 32 + a) 2^32 + b with a in [-3, 67) and b in [0, 67), so that some fall
 * outside the 64 x 64 buckets (into the two-word heap) on either side,
 * lo = c 2^32 + x with few values of c (ties within a bucket). The bulk
 * build appends about half the indices, in increasing lo (so the buckets'
 * runs are used) for odd seeds and in random order (the runs go into the
 * heaps) for even ones; then random insertions, key changes (within a
 * bucket, between buckets, into and out of the heap over) and deletions;
 * every pop must give the least (hi, lo) by the scan, and
 * ade__bkq_queued must agree with the set of queued indices. */
START_TEST(bucket_queue_random) {
  enum { NX = 400, OPS = 40000 };
  ade__pk key[NX];
  int in[NX];
  for (uint64_t seed = 1; seed <= 6; seed++) {
    ade__bkq q = {0};
    uint64_t r = seed;
    memset(in, 0, sizeof in);
    int spread = seed > 2; /* seeds 1, 2: a, b in a few buckets only */
    size_t order[NX];
    for (size_t k = 0; k < NX; k++) order[k] = k;
    if (seed % 2 == 0)
      for (size_t k = NX - 1; k > 0; k--) {
        size_t t = (size_t)(ade_test_rand(&r) % (k + 1)), y = order[k];
        order[k] = order[t], order[t] = y;
      }
#define RANDKEY(x)                                                                                              \
  do {                                                                                                          \
    uint64_t a_ = spread ? ade_test_rand(&r) % 70 : 32 + ade_test_rand(&r) % 2;                                \
    uint64_t b_ = spread ? ade_test_rand(&r) % 67 : 1 + ade_test_rand(&r) % 2;                                 \
    key[x].hi = (UINT64_C(2147483648) - 35 + a_) << 32 | b_;                                                    \
    key[x].lo = (ade_test_rand(&r) % 3) << 32 | (uint64_t)(x);                                                  \
  } while (0)
    for (size_t k = 0; k < NX; k++) { /* by increasing x, so by increasing lo within each c */
      size_t x = order[k];
      if (ade_test_rand(&r) % 2) continue;
      RANDKEY(x);
      if (seed % 2) key[x].lo = (uint64_t)x; /* increasing lo: sorted runs */
      ck_assert_int_eq(ade__bkq_append(&q, key[x], x), ADE_OK);
      in[x] = 1;
    }
    ck_assert_int_eq(ade__bkq_heapify(&q), ADE_OK);
    for (int op = 0; op < OPS; op++) {
      uint64_t u = ade_test_rand(&r) % 100;
      size_t x = (size_t)(ade_test_rand(&r) % NX);
      if (u < 45) {
        if (in[x] && u < 10) key[x].lo = (ade_test_rand(&r) % 3) << 32 | x; /* the same bucket, lo changed */
        else RANDKEY(x);
        ck_assert_int_eq(ade__bkq_set(&q, key[x], x), ADE_OK);
        in[x] = 1;
      } else if (u < 60) {
        ade__bkq_del(&q, x);
        in[x] = 0;
      } else {
        size_t best = SIZE_MAX;
        for (size_t y = 0; y < NX; y++)
          if (in[y] && (best == SIZE_MAX || key[y].hi < key[best].hi ||
                        (key[y].hi == key[best].hi && key[y].lo < key[best].lo)))
            best = y;
        ade__pkent t;
        int h = ade__bkq_pop(&q, &t);
        ck_assert_int_eq(h, best != SIZE_MAX);
        if (best == SIZE_MAX) continue;
        ck_assert_msg(t.x == best, "seed %d op %d: popped %zu, least %zu", (int)seed, op, t.x, best);
        ck_assert(t.k.hi == key[best].hi && t.k.lo == key[best].lo);
        in[best] = 0;
      }
      ck_assert_int_eq(ade__bkq_queued(&q, x), in[x]);
    }
#undef RANDKEY
    ade__bkq_free(&q);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("order");
  TCase *tc = tcase_create("incremental");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, same_choices_tapes);
  tcase_add_test(tc, same_choices_layered);
  tcase_add_test(tc, queues_random);
  tcase_add_test(tc, bucket_queue_random);
  tcase_add_test(tc, queue_audit_random);
  suite_add_tcase(s, tc);
  tc = tcase_create("never worse");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, vector_sweeps);
  tcase_add_test(tc, sweep_floor);
  tcase_add_test(tc, native_kind);
  tcase_add_test(tc, never_worse_random);
  tcase_add_test(tc, capped_markowitz_random);
  tcase_add_test(tc, vmark_fallback);
  tcase_add_test(tc, vmark_memory_limit);
  tcase_add_test(tc, face_bound_random);
  tcase_add_test(tc, cut_bounds_random);
  tcase_add_test(tc, cut_bounds_prove);
  tcase_add_test(tc, face_sweeps_cost_vertex_sweeps);
  tcase_add_test(tc, reach_counts_random);
  tcase_add_test(tc, never_worse_paper);
  suite_add_tcase(s, tc);
  tc = tcase_create("limits");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, time_limit);
  tcase_add_test(tc, progress_reports);
  tcase_add_test(tc, jacobian_progress);
  tcase_add_test(tc, out_of_memory);
  tcase_add_test(tc, memory_limit_soft);
  tcase_add_test(tc, portfolio_is_sequential);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
