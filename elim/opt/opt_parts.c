/* opt_parts.c: two-level elimination over a partition of the intermediate vertices (the parts of a tape). */
#include <stdlib.h>

#include "opt_internal.h"

/* A part's interior: its intermediates whose successors all lie in the
 * part. Eliminating an interior vertex touches only the part and the
 * vertices that feed it, so the interiors are eliminated part by part
 * first (the parts' local Jacobians are preaccumulated), each on a graph
 * of its own: the interior as Z, what feeds it as X, the part's other
 * vertices it feeds as Y. A vertex that feeds the interior and is fed by
 * it appears twice (X and Y): it is not eliminated at this level, so no
 * path runs through it, and every Markowitz degree is the one the vertex
 * has in the whole graph at that point. Then what is left (the parts'
 * outputs and the vertices in no part) is eliminated as one graph. */

typedef struct pclass {
  size_t *step, len; /* the local sequence as local vertex indices */
  uint64_t cost;
} pclass;

typedef struct pwork {
  const ade_cgraph *g;
  size_t *pv;        /* per vertex: its part, ADE__NONE if none or not intermediate */
  char *in;          /* per vertex: interior of its part */
  size_t *lx, *ly;   /* per vertex: its X and Y copy in the part's graph, ADE__NONE */
  long off;          /* X copies are numbered id - off (below every id of g) */
} pwork;

typedef struct lvtx {
  long id;
  int kind;
  size_t gix;
} lvtx;

static int cmp_lvtx(const void *a, const void *b) {
  long x = ((const lvtx *)a)->id, y = ((const lvtx *)b)->id;
  return (x > y) - (x < y);
}

/* Interior: every successor is in the part, or is eliminated at no part's
 * first level (a dependent, a vertex in no part). Eliminating an interior
 * vertex adds edges into such a successor but changes no other part's
 * Markowitz degrees (a degree counts the eliminated vertex's own
 * neighbours), so the costs still add up; without the second case every
 * vertex feeding a dependent stays for the second level (cavity, auto
 * parts: 6,241 second-level vertices instead of 4,193). */
static int interior(const ade_cgraph *g, const size_t *pv, size_t i) {
  const ade__vtx *v = &g->v[i];
  for (size_t k = 0; k < v->nout; k++) {
    size_t d = pv[g->e[v->out[k]].dst];
    if (d != pv[i] && d != ADE__NONE) return 0;
  }
  return 1;
}

/* The vertices of the graph of the part whose interior is Z[0..nz). */
static int part_vertices(pwork *w, const size_t *Z, size_t nz, lvtx **out, size_t *nl) {
  const ade_cgraph *g = w->g;
  size_t cap = nz, n = 0;
  for (size_t t = 0; t < nz; t++) cap += g->v[Z[t]].nin + g->v[Z[t]].nout;
  lvtx *L = ade__alloc((cap + 1) * sizeof *L);
  if (!L) return ade__fail(ADE_ENOMEM, "out of memory for a part of %zu vertices", nz);
  for (size_t t = 0; t < nz; t++) {
    const ade__vtx *v = &g->v[Z[t]];
    L[n++] = (lvtx){v->id, ADE__Z, Z[t]};
    for (size_t k = 0; k < v->nin; k++) {
      size_t u = g->e[v->in[k]].src;
      if (w->in[u] && w->pv[u] == w->pv[Z[t]]) continue;
      if (w->lx[u] == ADE__NONE) w->lx[u] = 0, L[n++] = (lvtx){g->v[u].id - w->off, ADE__X, u};
    }
    for (size_t k = 0; k < v->nout; k++) {
      size_t x = g->e[v->out[k]].dst;
      if (w->in[x]) continue;
      if (w->ly[x] == ADE__NONE) w->ly[x] = 0, L[n++] = (lvtx){g->v[x].id, ADE__Y, x};
    }
  }
  qsort(L, n, sizeof *L, cmp_lvtx);
  *out = L, *nl = n;
  return ADE_OK;
}

/* The graph of the part whose interior is Z (lx, ly reset on return). */
static int part_graph(pwork *w, const size_t *Z, size_t nz, ade_cgraph **hp) {
  const ade_cgraph *g = w->g;
  lvtx *L = NULL;
  size_t nl = 0, ne = 0, ix;
  int st = part_vertices(w, Z, nz, &L, &nl);
  ade_cgraph *h = st ? NULL : ade__calloc(1, sizeof *h);
  for (size_t t = 0; t < nz; t++) ne += g->v[Z[t]].nin + g->v[Z[t]].nout;
  if (!st && (!h || ade__graph_init(h, 0, nl, ne) || !(h->xv = ade__alloc((nl + 1) * sizeof *h->xv)) ||
              !(h->yv = ade__alloc((nl + 1) * sizeof *h->yv))))
    st = ade__fail(ADE_ENOMEM, "out of memory for a part of %zu vertices", nl);
  if (h) h->memlimit = g->memlimit;
  for (size_t k = 0; !st && k < nl; k++) {
    if ((st = ade__graph_add_vertex(h, L[k].id, L[k].kind, &ix))) break;
    if (L[k].kind == ADE__X) w->lx[L[k].gix] = ix, h->v[ix].aux = h->n, h->xv[h->n++] = ix;
    if (L[k].kind == ADE__Y) w->ly[L[k].gix] = ix, h->v[ix].aux = h->m, h->yv[h->m++] = ix;
    if (L[k].kind == ADE__Z) w->ly[L[k].gix] = ix; /* the interior's own index */
  }
  for (size_t t = 0; !st && t < nz; t++) {
    const ade__vtx *v = &g->v[Z[t]];
    for (size_t k = 0; !st && k < v->nin; k++) {
      const ade__edge *e = &g->e[v->in[k]];
      size_t s = w->in[e->src] && w->pv[e->src] == w->pv[Z[t]] ? w->ly[e->src] : w->lx[e->src];
      st = ade__graph_add_edge(h, s, w->ly[Z[t]], e->val, NULL);
    }
    for (size_t k = 0; !st && k < v->nout; k++) {
      const ade__edge *e = &g->e[v->out[k]];
      if (!w->in[e->dst]) st = ade__graph_add_edge(h, w->ly[Z[t]], w->ly[e->dst], e->val, NULL);
    }
  }
  for (size_t k = 0; k < nl; k++) w->lx[L[k].gix] = w->ly[L[k].gix] = ADE__NONE;
  ade__free(L);
  if (st) ade_cgraph_free(h), h = NULL;
  *hp = h;
  return st;
}

/* Vertex sequence for h by method (< 0: the best heuristic, on clk). The
 * method searches within the fraction frac of the time left on clk: the
 * classes of the first level a third each, the second level half, the
 * comparison with one level the rest, so the whole keeps to the limit. */
static int solve(const ade_cgraph *h, int method, const ade_opt_limits *l, const ade__clock *clk, double frac,
                 ade_elim_seq **s, int *limited) {
  ade_opt_report r;
  ade_opt_limits sub = *l;
  if (method < 0) return ade__opt_heuristic(h, ADE_SEQ_VERTEX, clk, s);
  sub.time_limit = ade__clock_share(clk, frac);
  int st = ade_optimize(h, ADE_SEQ_VERTEX, method, &sub, s, &r);
  *limited |= r.limited;
  return st;
}

/* Class k's sequence from part graph h, as local indices. */
static int solve_class(const ade_cgraph *h, int method, const ade_opt_limits *l, const ade__clock *clk, pclass *k,
                       int *limited) {
  ade_elim_seq *s = NULL;
  int st = solve(h, method, l, clk, 1.0 / 3, &s, limited);
  if (!st && !(k->step = ade__alloc((s->len + 1) * sizeof *k->step)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a sequence of %zu steps", s->len);
  for (size_t t = 0; !st && t < s->len; t++) k->step[t] = ade__graph_vertex(h, s->step[t].a);
  if (!st) k->len = s->len, k->cost = s->cost;
  ade_seq_free(s);
  return st;
}

static int setup(pwork *w, const ade_cgraph *g, const size_t *part, size_t nid, size_t *nparts) {
  size_t nv = g->nv;
  long maxid = 0;
  memset(w, 0, sizeof *w);
  w->g = g;
  w->pv = ade__alloc((nv + 1) * sizeof *w->pv);
  w->lx = ade__alloc((nv + 1) * sizeof *w->lx);
  w->ly = ade__alloc((nv + 1) * sizeof *w->ly);
  w->in = ade__calloc(nv + 1, 1);
  if (!w->pv || !w->lx || !w->ly || !w->in) return ade__fail(ADE_ENOMEM, "out of memory for parts of %zu vertices", nv);
  *nparts = 0;
  for (size_t i = 0; i < nv; i++) {
    const ade__vtx *v = &g->v[i];
    w->lx[i] = w->ly[i] = ADE__NONE;
    w->pv[i] = v->alive && v->kind == ADE__Z && v->id >= 0 && (size_t)v->id < nid ? part[v->id] : ADE__NONE;
    if (w->pv[i] != ADE__NONE && w->pv[i] + 1 > *nparts) *nparts = w->pv[i] + 1;
    if (v->id > maxid) maxid = v->id;
  }
  for (size_t i = 0; i < nv; i++) w->in[i] = w->pv[i] != ADE__NONE && interior(g, w->pv, i);
  w->off = maxid + 1;
  return ADE_OK;
}

static void pwork_free(pwork *w) {
  ade__free(w->pv);
  ade__free(w->lx);
  ade__free(w->ly);
  ade__free(w->in);
}

/* The interiors grouped by part: Z[start[p] .. start[p+1]) in index order. */
static int group(const pwork *w, size_t np, size_t **Zp, size_t **startp) {
  size_t nv = w->g->nv, *start = ade__calloc(np + 2, sizeof *start), *Z = ade__alloc((nv + 1) * sizeof *Z);
  if (!start || !Z) {
    ade__free(start);
    ade__free(Z);
    return ade__fail(ADE_ENOMEM, "out of memory for %zu parts", np);
  }
  for (size_t i = 0; i < nv; i++)
    if (w->in[i]) start[w->pv[i] + 2]++;
  for (size_t p = 0; p < np; p++) start[p + 2] += start[p + 1];
  for (size_t i = 0; i < nv; i++)
    if (w->in[i]) Z[start[w->pv[i] + 1]++] = i;
  *Zp = Z, *startp = start;
  return ADE_OK;
}

/* The parts' interiors eliminated (each class of identical parts solved
 * once), appended to s; r gets the counts. */
static int first_level(pwork *w, size_t np, int method, const ade_opt_limits *l, const ade__clock *clk,
                       ade_elim_seq *s, ade_parts_report *r) {
  size_t *Z = NULL, *start = NULL, cap = 0, len = 0, nk = 0;
  uint64_t *key = NULL, val;
  pclass *ks = ade__calloc(np + 1, sizeof *ks);
  ade__table t;
  int st = ks ? group(w, np, &Z, &start) : ade__fail(ADE_ENOMEM, "out of memory for %zu parts", np);
  int tst = st ? st : ade__table_init(&t, (size_t)1 << 30);
  if (!st) st = tst;
  for (size_t p = 0; !st && p < np; p++) {
    ade_cgraph *h = NULL;
    if (start[p] == start[p + 1]) continue;
    st = part_graph(w, Z + start[p], start[p + 1] - start[p], &h);
    if (!st) st = ade__part_key(h, &key, &cap, &len);
    if (!st && !ade__table_get(&t, key, len, &val)) {
      val = nk++;
      st = solve_class(h, method, l, clk, &ks[val], &r->limited);
      if (!st) st = ade__table_put(&t, key, len, val);
    }
    for (size_t k = 0; !st && k < ks[val].len; k++) st = ade_seq_push(s, h->v[ks[val].step[k]].id, 0, 0);
    if (!st) r->parts++, r->interior += start[p + 1] - start[p], r->local_cost += ks[val].cost;
    ade_cgraph_free(h);
  }
  r->classes = nk;
  for (size_t k = 0; k < nk; k++) ade__free(ks[k].step);
  if (!tst) ade__table_free(&t);
  ade__free(ks);
  ade__free(key);
  ade__free(Z);
  ade__free(start);
  return st == ADE_ETOOBIG ? ade__fail(ADE_ENOMEM, "out of memory for the keys of %zu parts", np) : st;
}

/* With the best heuristic (method < 0), the second level is also planned
 * by edge eliminations: the edge orderings and the dynamic programming
 * over the chain of extended Jacobians (DP paper; on time steps whose
 * interiors are gone, the chain of their local Jacobians), which
 * ade__opt_heuristic tries for edges. When that is cheaper than the vertex
 * sequence o, *e gets it (else NULL). */
static int second_edges(const ade_cgraph *c, int method, const ade__clock *clk, const ade_elim_seq *o,
                        ade_elim_seq **e) {
  ade_elim_seq *x = NULL;
  *e = NULL;
  if (method >= 0 || !o->len) return ADE_OK;
  int st = ade__opt_heuristic(c, ADE_SEQ_EDGE, clk, &x);
  if (!st && x->cost < o->cost) st = ade__seq_to_kind(c, &x, ADE_SEQ_EDGE, NULL);
  if (!st && x->cost < o->cost) *e = x, x = NULL;
  ade_seq_free(x);
  return st;
}

/* s (the first level's vertex steps on g) as front eliminations of their
 * in-edges (Rule 3), at the same cost, so edge steps can follow. */
static int to_edges(const ade_cgraph *g, ade_elim_seq **s) {
  ade_elim_seq *e = NULL;
  int st = ade__seq_vertex_to_edge(g, *s, &e);
  if (!st) ade_seq_free(*s), *s = e;
  return st;
}

/* The live part of c as a graph of its own (the same ids, kinds and
 * independent and dependent order): the eliminated vertices no longer
 * count towards the sizes that decide which orderings, hierarchies and
 * dynamic programs a graph gets (ADE__SG_MAX_SLOTS). */
static int compact(const ade_cgraph *c, ade_cgraph **hp) {
  size_t *map = ade__alloc((c->nv + 1) * sizeof *map), ix = 0;
  ade_cgraph *h = map ? ade__calloc(1, sizeof *h) : NULL;
  int st = h && !ade__graph_init(h, 0, c->nalive, c->nedges) && (h->xv = ade__alloc((c->n + 1) * sizeof *h->xv)) &&
                   (h->yv = ade__alloc((c->m + 1) * sizeof *h->yv))
               ? ADE_OK
               : ade__fail(ADE_ENOMEM, "out of memory for a graph of %zu vertices", c->nalive);
  if (h) h->memlimit = c->memlimit;
  for (size_t i = 0; !st && i < c->nv; i++) {
    map[i] = ADE__NONE;
    if (c->v[i].alive) st = ade__graph_add_vertex(h, c->v[i].id, c->v[i].kind, &map[i]);
  }
  for (size_t j = 0; !st && j < c->n; j++) ix = map[c->xv[j]], h->v[ix].aux = j, h->xv[h->n++] = ix;
  for (size_t j = 0; !st && j < c->m; j++) ix = map[c->yv[j]], h->v[ix].aux = j, h->yv[h->m++] = ix;
  for (size_t i = 0; !st && i < c->nv; i++)
    for (size_t k = 0; !st && c->v[i].alive && k < c->v[i].nout; k++) {
      const ade__edge *e = &c->e[c->v[i].out[k]];
      st = ade__graph_add_edge(h, map[i], map[e->dst], e->val, NULL);
    }
  ade__free(map);
  if (st) ade_cgraph_free(h), h = NULL;
  *hp = h;
  return st;
}

/* What the first level left, eliminated as one graph, appended to *s
 * (turned into an edge sequence when the edge plan of the rest wins);
 * *first gets the engine's count of the first level. */
static int second_level(const ade_cgraph *g, int method, const ade_opt_limits *l, const ade__clock *clk,
                        ade_elim_seq **s, ade_parts_report *r, uint64_t *first) {
  ade_cgraph *a = NULL, *c = NULL;
  ade_elim_seq *o = NULL, *e = NULL;
  int st = ade_cgraph_copy(&a, g);
  if (!st) st = ade_seq_apply(a, *s, first);
  if (!st) st = compact(a, &c); /* the second level's own graph and cost */
  ade_cgraph_free(a);
  if (!st) st = solve(c, method, l, clk, 0.5, &o, &r->limited);
  if (!st) st = second_edges(c, method, clk, o, &e);
  if (!st && e) st = to_edges(g, s);
  const ade_elim_seq *w = e ? e : o;
  for (size_t k = 0; !st && k < w->len; k++) st = ade_seq_push(*s, w->step[k].a, w->step[k].b, w->step[k].dir);
  if (!st) r->outer_cost = w->cost, r->outer_kind = w->kind;
  ade_seq_free(o);
  ade_seq_free(e);
  ade_cgraph_free(c);
  return st;
}

/* The same method on the whole graph in one level: where preaccumulating
 * the parts does not pay (a gradient through time steps, whose local
 * Jacobians cost as much as one adjoint sweep through them), it is the
 * answer, and r->two_level is 0. */
static int keep_flat(const ade_cgraph *g, int method, const ade_opt_limits *l, const ade__clock *clk, ade_elim_seq **s,
                     ade_parts_report *r) {
  ade_elim_seq *f = NULL;
  int st = solve(g, method, l, clk, 1.0, &f, &r->limited);
  if (!st) st = ade__seq_finish(g, f, &r->flat_cost);
  r->two_level = st || r->cost <= r->flat_cost;
  if (!st && !r->two_level) ade_seq_free(*s), *s = f, f = NULL, r->cost = r->flat_cost;
  ade_seq_free(f);
  return st;
}

int ade_optimize_parts(const ade_cgraph *g, const size_t *part, size_t nid, int method, const ade_opt_limits *limits,
                       ade_elim_seq **seq, ade_parts_report *report) {
  ade_parts_report r;
  ade_opt_limits def;
  pwork w;
  ade_elim_seq *s = NULL;
  size_t np = 0;
  memset(&r, 0, sizeof r);
  if (!g || g->dual || !seq || (nid && !part))
    return ade__fail(ADE_EINVAL, "ade_optimize_parts: needs a c-graph, a partition and a result pointer");
  *seq = NULL;
  if (method >= ADE_OPT_COUNT || (method >= 0 && !ade_opt_supports(method, ADE_SEQ_VERTEX)))
    return ade__fail(ADE_EINVAL, "ade_optimize_parts: method %d does not build vertex sequences", method);
  if (!limits) ade_opt_limits_init(&def), limits = &def;
  ade__clock clk;
  ade__clock_start(&clk, limits);
  double t0 = ade__now();
  int st = setup(&w, g, part, nid, &np);
  if (!st) st = ade_seq_create(&s, ADE_SEQ_VERTEX);
  uint64_t first = 0;
  if (!st) st = first_level(&w, np, method, limits, &clk, s, &r);
  if (!st) st = second_level(g, method, limits, &clk, &s, &r, &first);
  if (!st && first != r.local_cost)
    st = ade__fail(ADE_ESTATE, "internal error: the parts' interiors cost %llu, the engine counts %llu",
                   (unsigned long long)r.local_cost, (unsigned long long)first);
  /* Complete and costed: the first level as the engine counted it on a
   * copy of g, the second a complete sequence of what it left (its own
   * graph, the same vertices and edges), costed by the engines there. So
   * ade__seq_finish binds it without simulating the whole again. */
  if (!st) s->cost = first + r.outer_cost, s->checked = ade__graph_fingerprint(g);
  if (!st) st = ade__seq_finish(g, s, &r.cost);
  if (!st) st = keep_flat(g, method, limits, &clk, &s, &r);
  pwork_free(&w);
  r.seconds = ade__now() - t0;
  if (st) ade_seq_free(s);
  else *seq = s;
  if (report) *report = r;
  return st;
}
