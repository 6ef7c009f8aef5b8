/* opt_parts.c: elimination in levels over partitions of the intermediate vertices (the parts of a tape, nested regions level by level), then the rest. */
#include <limits.h>
#include <pthread.h>
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

/* A class of identical parts: the graph of its first part, its sequence
 * s there, and (once all classes are solved) step: s in the kind of the
 * whole first level, as local vertex indices, which fit every part of
 * the class. */
typedef struct pclass {
  ade_cgraph *h;
  ade_elim_seq *s;
  ade_elim_step *step;
  size_t len;
  int limited;
  ade__failure f;
} pclass;

/* How the levels are solved: by method (< 0: the best heuristic) on the
 * clock, which reports progress on the calling thread (caller); other
 * threads use a quiet copy. threads: for the classes, and for the
 * candidates of the heuristic on the rest and on the whole (1: in turn). */
typedef struct pctx {
  int method, threads;
  const ade_opt_limits *l;
  ade__clock clk, quiet;
  ade_opt_limits ql;
  pthread_t caller;
} pctx;

/* The clock of a search: quiet off the calling thread, and for the
 * heuristics on the classes (each would report once past a second). */
static const ade__clock *clock_of(const pctx *c, int quiet) {
  return !quiet && pthread_equal(pthread_self(), c->caller) ? &c->clk : &c->quiet;
}

typedef struct pwork {
  const ade_cgraph *g;
  size_t *pv;        /* per vertex: its part, ADE__NONE if none or not intermediate */
  char *in;          /* per vertex: interior of its part */
  size_t *lx, *ly;   /* per vertex: its X and Y copy in the part's graph, ADE__NONE */
} pwork;

/* A vertex of a part's graph: the X copies first, then the others, each
 * in the order of their ids in g; the part's graph numbers them 0, 1, ...
 * in that order (ids of g may span all of long). */
typedef struct lvtx {
  long id;
  int kind;
  size_t gix;
} lvtx;

static int cmp_lvtx(const void *a, const void *b) {
  const lvtx *u = a, *v = b;
  int cu = u->kind != ADE__X, cv = v->kind != ADE__X;
  if (cu != cv) return cu - cv;
  return (u->id > v->id) - (u->id < v->id);
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
      if (w->lx[u] == ADE__NONE) w->lx[u] = 0, L[n++] = (lvtx){g->v[u].id, ADE__X, u};
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

/* The graph of the part whose interior is Z (lx, ly reset on return), and
 * *gid: the id in g of each of its vertices (h's ids are 0, 1, ...). */
static int part_graph(pwork *w, const size_t *Z, size_t nz, ade_cgraph **hp, long **gid) {
  const ade_cgraph *g = w->g;
  lvtx *L = NULL;
  size_t nl = 0, ne = 0, ix;
  int st = part_vertices(w, Z, nz, &L, &nl);
  ade_cgraph *h = st ? NULL : ade__calloc(1, sizeof *h);
  *gid = st ? NULL : ade__alloc((nl + 1) * sizeof **gid);
  if (!st && !*gid) st = ade__fail(ADE_ENOMEM, "out of memory for a part of %zu vertices", nl);
  for (size_t t = 0; t < nz; t++) ne += g->v[Z[t]].nin + g->v[Z[t]].nout;
  if (!st && (!h || ade__graph_init(h, 0, nl, ne) || !(h->xv = ade__alloc((nl + 1) * sizeof *h->xv)) ||
              !(h->yv = ade__alloc((nl + 1) * sizeof *h->yv))))
    st = ade__fail(ADE_ENOMEM, "out of memory for a part of %zu vertices", nl);
  if (h) h->memlimit = g->memlimit;
  for (size_t k = 0; !st && k < nl; k++) {
    if ((st = ade__graph_add_vertex(h, (long)k, L[k].kind, &ix))) break;
    (*gid)[ix] = L[k].id;
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
  if (st) ade_cgraph_free(h), h = NULL, ade__free(*gid), *gid = NULL;
  *hp = h;
  return st;
}

/* A sequence for h by method: an optimizer's vertex sequence, or (method
 * < 0) the cheapest of the vertex and edge heuristics on clk (a vertex
 * sequence if no edge plan costs less). The optimizer searches within
 * the fraction frac of the time left on clk: the classes of the first
 * level a third each, the second level half, the comparison with one
 * level the rest, so the whole keeps to the limit. */
static int solve(const ade_cgraph *h, const pctx *c, double frac, int quiet, int threads, ade_elim_seq **s,
                 int *limited) {
  ade_opt_report r;
  ade_opt_limits sub = *c->l;
  const ade__clock *clk = clock_of(c, quiet);
  if (c->method < 0) return ade__opt_heuristic(h, ADE_SEQ_EDGE, clk, threads, s);
  sub.time_limit = ade__clock_share(clk, frac);
  int st = ade_optimize(h, ADE_SEQ_VERTEX, c->method, &sub, s, &r);
  *limited |= r.limited;
  return st;
}

/* *s, a vertex sequence on g, as front eliminations of each vertex's
 * in-edges (Rule 3), at the same cost, so that edge steps can follow. */
static int to_edges(const ade_cgraph *g, ade_elim_seq **s) {
  ade_elim_seq *e = NULL;
  int st = ade__seq_vertex_to_edge(g, *s, &e);
  if (!st) ade_seq_free(*s), *s = e;
  return st;
}

/* Class k's sequence in kind (its own, or edges), as local indices. */
static int localize(pclass *k, int kind) {
  const ade_cgraph *h = k->h;
  int st = k->s->kind < kind ? to_edges(h, &k->s) : ADE_OK;
  size_t n = k->s->len;
  if (!st && !(k->step = ade__alloc((n + 1) * sizeof *k->step)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a sequence of %zu steps", n);
  for (size_t t = 0; !st && t < n; t++) {
    const ade_elim_step *e = &k->s->step[t];
    k->step[t] = (ade_elim_step){(long)ade__graph_vertex(h, e->a), kind ? (long)ade__graph_vertex(h, e->b) : 0,
                                 e->dir};
  }
  if (!st) k->len = n;
  return st;
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* Each intermediate's part; the labels (any value but ADE_PART_NONE) are
 * renumbered 0 .. *nparts - 1 in increasing order, so that labels far
 * apart cost nothing. */
static int setup(pwork *w, const ade_cgraph *g, const size_t *part, size_t nid, size_t *nparts) {
  size_t nv = g->nv, n = 0, np = 0;
  memset(w, 0, sizeof *w);
  w->g = g;
  w->pv = ade__alloc((nv + 1) * sizeof *w->pv);
  w->lx = ade__alloc((nv + 1) * sizeof *w->lx);
  w->ly = ade__alloc((nv + 1) * sizeof *w->ly);
  w->in = ade__calloc(nv + 1, 1);
  if (!w->pv || !w->lx || !w->ly || !w->in) return ade__fail(ADE_ENOMEM, "out of memory for parts of %zu vertices", nv);
  size_t *label = w->lx; /* scratch until the copies are numbered */
  for (size_t i = 0; i < nv; i++) {
    const ade__vtx *v = &g->v[i];
    w->pv[i] = v->alive && v->kind == ADE__Z && v->id >= 0 && (size_t)v->id < nid ? part[v->id] : ADE__NONE;
    if (w->pv[i] != ADE__NONE) label[n++] = w->pv[i];
  }
  qsort(label, n, sizeof *label, cmp_size);
  for (size_t k = 0; k < n; k++)
    if (!np || label[k] != label[np - 1]) label[np++] = label[k];
  for (size_t i = 0; i < nv; i++)
    if (w->pv[i] != ADE__NONE)
      w->pv[i] = (size_t)((const size_t *)bsearch(&w->pv[i], label, np, sizeof *label, cmp_size) - label);
  for (size_t i = 0; i < nv; i++) w->lx[i] = w->ly[i] = ADE__NONE;
  for (size_t i = 0; i < nv; i++) w->in[i] = w->pv[i] != ADE__NONE && interior(g, w->pv, i);
  *nparts = np;
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

/* The parts, each with its class and the ids in g of its graph's
 * vertices (local index order): ids[first[q] ..) for the q-th part with
 * an interior. */
typedef struct plist {
  size_t n, *cls, *first, nids, capids;
  long *ids;
} plist;

typedef struct pclasses {
  const pctx *c;
  pclass *k;
  size_t n, cap;
} pclasses;

static void class_go(void *ud, int k, ade__watch *w) {
  const pclasses *K = ud;
  pclass *x = &K->k[k];
  (void)w;
  ade__failure_keep(&x->f, solve(x->h, K->c, 1.0 / 3, K->c->method < 0, 1, &x->s, &x->limited));
}

/* Part q's graph h: its class (the first part of an equal key solved for
 * all) and its vertices' ids in g (gid); *hp stays its owner's (NULL once
 * a class keeps it). */
static int enlist(plist *P, ade__table *t, pclasses *K, ade_cgraph **hp, const long *gid, uint64_t **key,
                  size_t *cap) {
  ade_cgraph *h = *hp;
  size_t len = 0, nv = h->nv;
  uint64_t val;
  int st = ade__part_key(h, key, cap, &len);
  if (!st && P->nids + nv > P->capids) {
    size_t c = 2 * (P->nids + nv);
    long *ids = ade__realloc(P->ids, c * sizeof *ids);
    if (!ids) st = ade__fail(ADE_ENOMEM, "out of memory for the vertices of %zu parts", P->n);
    else P->ids = ids, P->capids = c;
  }
  if (!st) memcpy(P->ids + P->nids, gid, nv * sizeof *gid);
  if (!st && !ade__table_get(t, *key, len, &val)) {
    if (K->n == K->cap) {
      size_t c = 2 * K->cap + 8;
      pclass *k = ade__realloc(K->k, c * sizeof *k);
      if (!k) return ade__fail(ADE_ENOMEM, "out of memory for %zu classes of parts", c);
      K->k = k, K->cap = c;
    }
    val = K->n;
    memset(&K->k[val], 0, sizeof *K->k);
    K->k[K->n++].h = h, *hp = NULL;
    st = ade__table_put(t, *key, len, val);
  }
  if (!st) P->cls[P->n] = val, P->first[P->n++] = P->nids, P->nids += nv;
  return st;
}

/* The parts' interiors eliminated (each class of identical parts solved
 * once, in c->threads threads), appended to *s: a vertex sequence, or an
 * edge sequence when the heuristics found an edge plan cheaper for some
 * class (the vertex classes then as front eliminations of their
 * vertices' in-edges); r gets the counts. The first failure in the order
 * of the classes is the one returned, as in turn. */
static int first_level(pwork *w, size_t np, const pctx *c, ade_elim_seq **s, ade_parts_report *r) {
  size_t *Z = NULL, *start = NULL, cap = 0;
  uint64_t *key = NULL;
  plist P = {0};
  pclasses K = {c, NULL, 0, 0};
  P.cls = ade__alloc((np + 1) * sizeof *P.cls), P.first = ade__alloc((np + 1) * sizeof *P.first);
  ade__table t;
  int st = P.cls && P.first ? group(w, np, &Z, &start) : ade__fail(ADE_ENOMEM, "out of memory for %zu parts", np);
  int tst = st ? st : ade__table_init(&t, (size_t)1 << 30);
  if (!st) st = tst;
  for (size_t p = 0; !st && p < np; p++) {
    ade_cgraph *h = NULL;
    long *gid = NULL;
    if (start[p] == start[p + 1]) continue;
    st = part_graph(w, Z + start[p], start[p + 1] - start[p], &h, &gid);
    if (!st) st = enlist(&P, &t, &K, &h, gid, &key, &cap);
    if (!st) r->parts++, r->interior += start[p + 1] - start[p];
    ade_cgraph_free(h);
    ade__free(gid);
  }
  ade__tasks tasks = {(int)K.n, 0, class_go, &K};
  if (!st && K.n > INT_MAX) st = ade__fail(ADE_ENOMEM, "out of memory for %zu classes of parts", K.n);
  if (!st) ade__tasks_run(&tasks, c->threads, NULL);
  int kind = ADE_SEQ_VERTEX;
  for (size_t k = 0; !st && k < K.n; k++) {
    if (K.k[k].f.st) st = ade__failure_raise(&K.k[k].f);
    else if (K.k[k].s->kind > kind) kind = K.k[k].s->kind;
  }
  for (size_t k = 0; !st && k < K.n; k++) st = localize(&K.k[k], kind), r->limited |= K.k[k].limited;
  if (!st && kind != (*s)->kind) ade_seq_free(*s), *s = NULL, st = ade_seq_create(s, kind);
  for (size_t q = 0; !st && q < P.n; q++) {
    const pclass *k = &K.k[P.cls[q]];
    const long *id = P.ids + P.first[q];
    for (size_t u = 0; !st && u < k->len; u++)
      st = ade_seq_push(*s, id[k->step[u].a], kind ? id[k->step[u].b] : 0, k->step[u].dir);
    r->local_cost += k->s->cost;
  }
  r->classes += K.n;
  if (kind > r->inner_kind) r->inner_kind = kind;
  for (size_t k = 0; k < K.n; k++) ade_cgraph_free(K.k[k].h), ade_seq_free(K.k[k].s), ade__free(K.k[k].step);
  if (!tst) ade__table_free(&t);
  ade__free(K.k);
  ade__free(key);
  ade__free(P.cls);
  ade__free(P.first);
  ade__free(P.ids);
  ade__free(Z);
  ade__free(start);
  return st == ADE_ETOOBIG ? ade__fail(ADE_ENOMEM, "out of memory for the keys of %zu parts", np) : st;
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

/* *o, a sequence on h (g after *s, the same ids), appended to *s, a
 * sequence on g: both in edges when either is (vertex steps as the front
 * elimination of their in-edges, where they apply). */
static int append(const ade_cgraph *g, const ade_cgraph *h, ade_elim_seq **s, ade_elim_seq **o) {
  int st = (*o)->kind < (*s)->kind ? to_edges(h, o) : ADE_OK;
  if (!st && (*s)->kind < (*o)->kind) st = to_edges(g, s);
  for (size_t k = 0; !st && k < (*o)->len; k++)
    st = ade_seq_push(*s, (*o)->step[k].a, (*o)->step[k].b, (*o)->step[k].dir);
  return st;
}

/* One level of parts on *cur (NULL: g itself; else a graph of what the
 * levels before left): the interiors of its parts eliminated
 * (first_level), appended to *s, and *cur replaced by a graph of what is
 * left (the next level's own graph). The level's local cost is checked
 * against the engine's count on a copy. */
static int level(const ade_cgraph *g, ade_cgraph **cur, const size_t *part, size_t nid, const pctx *c,
                 ade_elim_seq **s, ade_parts_report *r) {
  const ade_cgraph *h = *cur ? *cur : g;
  ade_cgraph *a = NULL, *next = NULL;
  ade_elim_seq *o = NULL;
  uint64_t before = r->local_cost, count = 0;
  size_t np = 0;
  pwork w;
  int st = setup(&w, h, part, nid, &np);
  if (!st) st = ade_seq_create(&o, ADE_SEQ_VERTEX);
  if (!st) st = first_level(&w, np, c, &o, r);
  pwork_free(&w);
  if (!st) st = ade_cgraph_copy(&a, h);
  if (!st) st = ade_seq_apply(a, o, &count);
  if (!st && count != r->local_cost - before)
    st = ade__fail(ADE_ESTATE, "internal error: the parts' interiors cost %llu, the engine counts %llu",
                   (unsigned long long)(r->local_cost - before), (unsigned long long)count);
  if (!st) st = compact(a, &next);
  ade_cgraph_free(a);
  if (!st) st = append(g, h, s, &o);
  ade_seq_free(o);
  if (!st) ade_cgraph_free(*cur), *cur = next, next = NULL;
  ade_cgraph_free(next);
  return st;
}

/* What the levels of parts left (cur), eliminated as one graph, appended
 * to *s. */
static int last_level(const ade_cgraph *g, const ade_cgraph *cur, const pctx *x, ade_elim_seq **s,
                      ade_parts_report *r) {
  ade_elim_seq *o = NULL;
  int st = solve(cur, x, 0.5, 0, x->threads, &o, &r->limited);
  if (!st) r->outer_cost = o->cost, r->outer_kind = o->kind;
  if (!st) st = append(g, cur, s, &o);
  ade_seq_free(o);
  return st;
}

/* A copy of s. */
static int dup(const ade_elim_seq *s, ade_elim_seq **t) {
  int st = ade_seq_create(t, s->kind);
  for (size_t k = 0; !st && k < s->len; k++) st = ade_seq_push(*t, s->step[k].a, s->step[k].b, s->step[k].dir);
  if (st) ade_seq_free(*t), *t = NULL;
  return st;
}

/* The levels of parts so far (at, report ar; what they left: cur) and
 * then the rest as one graph: *best (report *br) if cheaper than *best
 * (NULL: none yet), so that more levels never cost more than fewer (ties
 * keep fewer). */
static int try_levels(const ade_cgraph *g, const ade_cgraph *cur, const pctx *c, const ade_elim_seq *at,
                      const ade_parts_report *ar, size_t levels, ade_elim_seq **best, ade_parts_report *br) {
  ade_parts_report q = *ar;
  ade_elim_seq *t = NULL;
  int st = dup(at, &t);
  if (!st) st = last_level(g, cur, c, &t, &q);
  int lim = br->limited | q.limited;
  if (!st && (!*best || q.local_cost + q.outer_cost < br->local_cost + br->outer_cost))
    ade_seq_free(*best), *best = t, t = NULL, *br = q, br->levels_used = levels;
  br->limited = lim;
  ade_seq_free(t);
  return st;
}

/* The same method on the whole graph in one level: where preaccumulating
 * the parts does not pay (a gradient through time steps, whose local
 * Jacobians cost as much as one adjoint sweep through them), it is the
 * answer, and r->two_level is 0. With threads it runs beside the two
 * levels, and is read after them, as in turn. */
typedef struct flat {
  const ade_cgraph *g;
  const pctx *c;
  ade_elim_seq *s;
  uint64_t cost;
  int limited;
  ade__failure f;
} flat;

static void *flat_go(void *arg) {
  flat *f = arg;
  int st = solve(f->g, f->c, 1.0, 0, f->c->threads, &f->s, &f->limited);
  if (!st) st = ade__seq_finish(f->g, f->s, &f->cost);
  ade__failure_keep(&f->f, st);
  return NULL;
}

/* The flat sequence if cheaper (its own errors after the two levels'). */
static int keep_flat(flat *f, int st, ade_elim_seq **s, ade_parts_report *r) {
  if (!st && f->f.st) st = ade__failure_raise(&f->f);
  if (!st) r->flat_cost = f->cost, r->limited |= f->limited;
  r->two_level = st || r->cost <= r->flat_cost;
  if (!st && !r->two_level) ade_seq_free(*s), *s = f->s, f->s = NULL, r->cost = r->flat_cost;
  ade_seq_free(f->s);
  return st;
}

static int optimize(const ade_cgraph *g, const size_t *part, size_t nlevels, size_t nid, int method,
                    const ade_opt_limits *limits, ade_elim_seq **seq, ade_parts_report *report, const char *fn) {
  ade_parts_report r;
  ade_opt_limits def;
  pctx c;
  ade_elim_seq *s = NULL;
  ade_cgraph *cur = NULL;
  memset(&r, 0, sizeof r);
  if (!g || g->dual || !seq || (nid && !part) || !nlevels)
    return ade__fail(ADE_EINVAL, "%s: needs a c-graph, a partition (at least one level) and a result pointer", fn);
  *seq = NULL;
  if (method >= ADE_OPT_COUNT || (method >= 0 && !ade_opt_supports(method, ADE_SEQ_VERTEX)))
    return ade__fail(ADE_EINVAL, "%s: method %d does not build vertex sequences", fn, method);
  if (!limits) ade_opt_limits_init(&def), limits = &def;
  int bad = ade__limits_check(limits, fn);
  if (bad) return bad;
  /* In threads with the best heuristic and the default allocator (the
   * optimizers share the time left in turn; the workers would allocate
   * what the caller frees): one level beside the two, the classes at
   * once, and the candidates of each heuristic at once. */
  int par = method < 0 && limits->threads > 1 && !ade__alloc_hooked();
  c.method = method, c.l = limits, c.caller = pthread_self();
  c.threads = par ? limits->threads : 1;
  ade__clock_start(&c.clk, limits);
  ade__clock_quiet(&c.clk, &c.quiet, &c.ql);
  flat f = {g, &c, NULL, 0, 0, {0}};
  pthread_t tid;
  double t0 = ade__now();
  if (par) (void)ade__graph_fingerprint(g); /* kept in g: no thread writes it while another copies g */
  int beside = par && !pthread_create(&tid, NULL, flat_go, &f);
  ade_elim_seq *at = NULL; /* the levels of parts so far */
  ade_parts_report ar = r;
  int st = ade_seq_create(&at, ADE_SEQ_VERTEX);
  for (size_t k = 0; !st && k < nlevels; k++) {
    size_t before = ar.interior;
    st = level(g, &cur, part ? part + k * nid : NULL, nid, &c, &at, &ar);
    if (!st && (k == 0 || ar.interior > before)) st = try_levels(g, cur, &c, at, &ar, k + 1, &s, &r);
  }
  ade_seq_free(at);
  ade_cgraph_free(cur);
  r.levels = nlevels;
  /* Complete and costed: each level of parts as the engine counted it on
   * a copy of what the levels before left, the last a complete sequence
   * of what they left (its own graph, the same vertices and edges), costed
   * by the engines there. So ade__seq_finish binds it without simulating
   * the whole again. */
  if (!st) s->cost = r.local_cost + r.outer_cost, s->checked = ade__graph_fingerprint(g);
  if (!st) st = ade__seq_finish(g, s, &r.cost);
  if (beside) pthread_join(tid, NULL);
  else if (!st) flat_go(&f);
  st = keep_flat(&f, st, &s, &r);
  r.seconds = ade__now() - t0;
  if (st) ade_seq_free(s);
  else *seq = s;
  if (report) *report = r;
  return st;
}

int ade_optimize_parts(const ade_cgraph *g, const size_t *part, size_t nid, int method, const ade_opt_limits *limits,
                       ade_elim_seq **seq, ade_parts_report *report) {
  return optimize(g, part, 1, nid, method, limits, seq, report, "ade_optimize_parts");
}

int ade_optimize_levels(const ade_cgraph *g, const size_t *part, size_t nlevels, size_t nid, int method,
                        const ade_opt_limits *limits, ade_elim_seq **seq, ade_parts_report *report) {
  return optimize(g, part, nlevels, nid, method, limits, seq, report, "ade_optimize_levels");
}
