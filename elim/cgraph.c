/* cgraph.c: the linearized c-graph from a tape or an edge list, its dual (Definition 1), and the Jacobian it holds. */
#include <stdlib.h>

#include "elim_internal.h"
#include "eval_internal.h"

/* Per-record flags of the construction passes. */
enum { FWD = 1, BWD = 2, DEPSUCC = 4 };

static int new_graph(ade_cgraph **gp, int dual, size_t nv, size_t ne, size_t n, size_t m) {
  ade_cgraph *g = ade__calloc(1, sizeof *g);
  if (!g) return ade__fail(ADE_ENOMEM, "out of memory for a graph");
  int st = ade__graph_init(g, dual, nv, ne);
  g->n = n;
  g->m = m;
  g->xv = ade__calloc(n ? n : 1, sizeof *g->xv);
  g->yv = ade__calloc(m ? m : 1, sizeof *g->yv);
  if (!st && (!g->xv || !g->yv)) st = ade__fail(ADE_ENOMEM, "out of memory for a graph");
  if (st) {
    ade_cgraph_free(g);
    g = NULL;
  }
  *gp = g;
  return st;
}

/* Grow *fl (zeroed) to hold ids below n, at most R, doubling: the
 * footer's record count is not trusted before decoded chunks back it. */
static int grow_flags(uint8_t **fl, size_t *cap, size_t n, size_t R) {
  if (n <= *cap) return ADE_OK;
  size_t c = ADE__MIN(R, n > 2 * *cap ? n : 2 * *cap);
  uint8_t *p = ade__realloc(*fl, c);
  if (!p) return ade__fail(ADE_ENOMEM, "out of memory for %zu records", c);
  memset(p + *cap, 0, c - *cap);
  *fl = p;
  *cap = c;
  return ADE_OK;
}

/* The state the construction passes share, one chunk at a time. */
typedef struct passes {
  uint8_t *fl;     /* per-record flags (FWD, BWD, DEPSUCC) */
  size_t cap, R;   /* fl's entries now and in the end */
  uint8_t *ns;     /* kept successors per record, capped at 2 */
  size_t *vix;     /* record -> vertex, ADE__NONE if not kept */
  ade_cgraph *g;
  size_t dropped;
  ade_tape *t;     /* elemental calls' Jacobians (pass 3) */
  const double *J; /* the Jacobian of call Jblk of the chunk from record Jfirst */
  uint64_t Jfirst;
  size_t Jblk;
} passes;

/* Decode each chunk, first to last (backward: last to first), and run fn
 * on it: one indirect call per chunk, the record loops stay in fn. */
static int each_chunk(ade_tape *t, int backward, int (*fn)(const ade__view *, passes *), passes *p) {
  const size_t nc = t->meta.nchunks;
  for (size_t k = 0; k < nc; k++) {
    int st = ade__view_load(t, backward ? nc - 1 - k : k);
    if (!st) st = fn(&t->view, p);
    if (st) return st;
  }
  return ADE_OK;
}

/* Pass 1, forward: which records an independent reaches (fl grown as
 * chunks decode, to R entries in the end). */
static int chunk_forward(const ade__view *v, passes *p) {
  int st = grow_flags(&p->fl, &p->cap, (size_t)(v->first + v->n + 1), p->R);
  if (st) return st;
  uint8_t *fl = p->fl;
  for (uint32_t i = 0; i < v->n; i++) {
    unsigned op = v->op[i];
    uint64_t r = v->first + i + 1;
    if (op == ADE_OP_INDEP) fl[r] |= FWD;
    const uint64_t *a;
    int na = ade__view_args(v, i, &a);
    for (int k = 0; k < na; k++)
      if (a[k] && (fl[a[k]] & FWD)) fl[r] |= FWD;
  }
  return ADE_OK;
}

static int pass_forward(ade_tape *t, uint8_t **flp, size_t R) {
  passes p = {.fl = *flp, .R = R};
  int st = each_chunk(t, 0, chunk_forward, &p);
  *flp = p.fl;
  return st;
}

/* Pass 2, backward: which reach a dependent; count kept successors (capped at 2). */
static int chunk_backward(const ade__view *v, passes *p) {
  uint8_t *fl = p->fl, *ns = p->ns;
  for (uint32_t i = v->n; i-- > 0;) {
    unsigned op = v->op[i];
    uint64_t r = v->first + i + 1;
    if (op == ADE_OP_DEP) fl[r] |= BWD;
    if ((fl[r] & (FWD | BWD)) != (FWD | BWD) || op == ADE_OP_INDEP) continue;
    const uint64_t *a;
    int na = op == ADE_OP_VECTOR_ELEMENTAL ? ade__view_args(v, i, &a) : ade__optab[op].arity;
    if (op != ADE_OP_VECTOR_ELEMENTAL) a = ade__view_arg(v, i);
    for (int k = 0; k < na; k++) {
      if (!a[k] || !(fl[a[k]] & FWD) || (k > 0 && a[k] == a[0]) || (k > 1 && a[k] == a[1]))
        continue;
      fl[a[k]] |= BWD | (op == ADE_OP_DEP ? DEPSUCC : 0);
      if (ns[a[k]] < 2) ns[a[k]]++;
    }
  }
  return ADE_OK;
}

static int pass_backward(ade_tape *t, uint8_t *fl, uint8_t *ns) {
  passes p = {.fl = fl, .ns = ns};
  return each_chunk(t, 1, chunk_backward, &p);
}

/* Is record r a vertex of the c-graph? */
static int kept(unsigned op, uint8_t f) {
  return op == ADE_OP_INDEP || op == ADE_OP_DEP || (f & (FWD | BWD)) == (FWD | BWD);
}

/* Edge a -> r labelled c; parallel edges merge. */
static int add_edge(passes *p, uint64_t a, uint64_t r, double c) {
  ade_cgraph *g = p->g;
  size_t e = ade__graph_find(g, p->vix[a], p->vix[r]);
  if (e != ADE__NONE) g->e[e].val += c;
  else return ade__graph_add_edge(g, p->vix[a], p->vix[r], c, NULL);
  return ADE_OK;
}

/* Output k of an elemental call: an edge from each active input, labelled
 * by row k of the call's local Jacobian (formed through the callbacks at
 * the first output kept), so the c-graph holds the call's m x n edges. */
static int build_elemental(const ade__view *v, uint32_t i, passes *p) {
  const uint64_t *arg = ade__view_arg(v, i), r = v->first + i + 1;
  const ade__eblk *b = &v->blk[arg[0]];
  int st;
  if (!p->J || p->Jfirst != v->first || p->Jblk != arg[0]) {
    if ((st = ade__elem_jacobian(p->t, v, (uint32_t)arg[0], NULL, &p->J))) return st;
    p->Jfirst = v->first;
    p->Jblk = (size_t)arg[0];
  }
  for (uint32_t j = 0; j < b->n; j++) {
    uint64_t a = v->xarg[b->xoff + j];
    if (a && p->vix[a] != ADE__NONE && (st = add_edge(p, a, r, p->J[arg[1] * b->n + j]))) return st;
  }
  return ADE_OK;
}

/* Pass 3, forward: vertices and edges labelled with the local partials (2).
 * An intermediate whose only successor is a DEP copy becomes that
 * dependent itself; other dependents keep their unit copy edge. */
static int chunk_build(const ade__view *v, passes *p) {
  const uint8_t *fl = p->fl, *ns = p->ns;
  size_t *vix = p->vix;
  ade_cgraph *g = p->g;
  int st;
  for (uint32_t i = 0; i < v->n; i++) {
    unsigned op = v->op[i];
    uint64_t r = v->first + i + 1;
    const uint64_t *a = ade__view_arg(v, i);
    vix[r] = ADE__NONE;
    if (!kept(op, fl[r])) {
      p->dropped++;
      continue;
    }
    if (op == ADE_OP_DEP && a[0] && vix[a[0]] != ADE__NONE && g->v[vix[a[0]]].kind == ADE__Y &&
        ns[a[0]] == 1) {
      vix[r] = vix[a[0]]; /* collapsed onto its operand */
      continue;
    }
    int kind = op == ADE_OP_INDEP ? ADE__X : op == ADE_OP_DEP ? ADE__Y : ADE__Z;
    if (kind == ADE__Z && ns[r] == 1 && (fl[r] & DEPSUCC)) kind = ADE__Y;
    if ((st = ade__graph_add_vertex(g, (long)r, kind, &vix[r]))) return st;
    if (op == ADE_OP_INDEP) continue;
    if (op == ADE_OP_VECTOR_ELEMENTAL) {
      if ((st = build_elemental(v, i, p))) return st;
      continue;
    }
    double d[ADE__MAX_ARITY] = {0};
    ade__op_partials(op, ade__view_argv(v, i), v->val[i], d, NULL);
    for (int k = 0; k < ade__optab[op].arity; k++) {
      if (!a[k] || vix[a[k]] == ADE__NONE) continue; /* constant or passive operand */
      size_t e = ade__graph_find(g, vix[a[k]], vix[r]);
      if (e != ADE__NONE) g->e[e].val += d[k]; /* parallel edges merge */
      else if ((st = ade__graph_add_edge(g, vix[a[k]], vix[r], d[k], NULL))) return st;
    }
  }
  return ADE_OK;
}

static int pass_build(ade_tape *t, ade_cgraph *g, uint8_t *fl, uint8_t *ns, size_t *vix,
                      size_t *dropped) {
  passes p = {.fl = fl, .ns = ns, .vix = vix, .g = g, .t = t};
  int st = each_chunk(t, 0, chunk_build, &p);
  *dropped += p.dropped;
  return st;
}

static int cgraph_from_tape(ade_cgraph **gp, ade_tape *t, size_t *dropped) {
  size_t drop = 0;
  if (!gp) return ade__fail(ADE_EINVAL, "ade_cgraph_from_tape: NULL result pointer");
  *gp = NULL;
  int st = ade__tape_usable(t);
  if (!st) st = ade__elem_ready(t);
  if (st) return st;
  if (!t->meta.nindep || !t->meta.ndep)
    return ade__fail(ADE_EINVAL, "the tape has %zu independents and %zu dependents; a c-graph needs both",
                     t->meta.nindep, t->meta.ndep);
  size_t R = (size_t)t->meta.records + 1;
  if (t->meta.records >= SIZE_MAX / 16) return ade__fail(ADE_ETOOBIG, "tape too large for a c-graph");
  /* The footer's count, before any chunk backs it: per-record flags and index. */
  st = ade__budget(t->memlimit, ade__mul_size(R, 2 + sizeof(size_t)), "building the c-graph of %zu records", R - 1);
  if (st) return st;
  uint8_t *fl = NULL, *ns = NULL;
  size_t *vix = NULL;
  ade_cgraph *g = NULL;
  st = pass_forward(t, &fl, R); /* every chunk decoded: R is backed now */
  if (!st && (!(ns = ade__calloc(R, 1)) || !(vix = ade__alloc(R * sizeof *vix))))
    st = ade__fail(ADE_ENOMEM, "out of memory for %zu records", R);
  if (!st) st = pass_backward(t, fl, ns);
  if (!st) st = new_graph(&g, 0, 64, 64, t->meta.nindep, t->meta.ndep);
  if (!st) g->memlimit = t->memlimit;
  if (!st) st = pass_build(t, g, fl, ns, vix, &drop);
  for (size_t j = 0; !st && j < g->n; j++) {
    g->xv[j] = vix[t->meta.indep[j]];
    g->v[g->xv[j]].aux = j;
  }
  for (size_t i = 0; !st && i < g->m; i++) {
    g->yv[i] = vix[t->meta.dep[i]];
    g->v[g->yv[i]].aux = i;
  }
  ade__free(fl);
  ade__free(ns);
  ade__free(vix);
  if (st) {
    ade_cgraph_free(g);
    return st;
  }
  if (dropped) *dropped = drop;
  g->dropped = drop;
  *gp = g;
  return ADE_OK;
}

int ade_cgraph_from_tape(ade_cgraph **gp, ade_tape *shared, size_t *dropped) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : cgraph_from_tape(gp, t, dropped));
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* Kahn's algorithm: ADE_ECYCLE if g has a directed cycle. */
static int acyclic(const ade_cgraph *g) {
  size_t *deg = ade__alloc((g->nv + 1) * sizeof *deg), *stack = ade__alloc((g->nv + 1) * sizeof *stack);
  size_t top = 0, seen = 0;
  int st = ADE_OK;
  if (!deg || !stack) st = ade__fail(ADE_ENOMEM, "out of memory checking for cycles");
  for (size_t i = 0; !st && i < g->nv; i++)
    if (!(deg[i] = g->v[i].nin)) stack[top++] = i;
  while (!st && top) {
    const ade__vtx *v = &g->v[stack[--top]];
    seen++;
    for (size_t k = 0; k < v->nout; k++)
      if (!--deg[g->e[v->out[k]].dst]) stack[top++] = g->e[v->out[k]].dst;
  }
  if (!st && seen < g->nv) st = ade__fail(ADE_ECYCLE, "the edges form a directed cycle");
  ade__free(deg);
  ade__free(stack);
  return st;
}

/* Kinds of the vertices: independents, dependents, and the rest. */
static int set_kinds(ade_cgraph *g, const long *xid, const long *yid) {
  for (size_t i = 0; i < g->n + g->m; i++) {
    int isx = i < g->n;
    long id = isx ? xid[i] : yid[i - g->n];
    size_t v = ade__graph_vertex(g, id);
    if (g->v[v].kind != ADE__Z) return ade__fail(ADE_EINVAL, "vertex %ld is listed twice", id);
    g->v[v].kind = isx ? ADE__X : ADE__Y;
    g->v[v].aux = isx ? i : i - g->n;
    if (isx) g->xv[i] = v;
    else g->yv[i - g->n] = v;
  }
  for (size_t i = 0; i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (v->kind == ADE__X && v->nin) return ade__fail(ADE_EINVAL, "independent %ld has an in-edge", v->id);
    if (v->kind == ADE__Y && v->nout) return ade__fail(ADE_EINVAL, "dependent %ld has an out-edge", v->id);
    if (v->kind == ADE__Z && (!v->nin || !v->nout))
      return ade__fail(ADE_EINVAL, "intermediate %ld has no %s-edge", v->id, v->nin ? "out" : "in");
  }
  return acyclic(g);
}

int ade_cgraph_from_edges(ade_cgraph **gp, size_t n, const long *xid, size_t m, const long *yid,
                          size_t ne, const long *src, const long *dst, const double *val) {
  if (!gp || (n && !xid) || (m && !yid) || (ne && (!src || !dst)))
    return ade__fail(ADE_EINVAL, "ade_cgraph_from_edges: NULL argument");
  *gp = NULL;
  if (!n || !m) return ade__fail(ADE_EINVAL, "a c-graph needs independents and dependents (n = %zu, m = %zu)", n, m);
  size_t nid = n + m + 2 * ne, nu = 0;
  long *ids = ade__alloc(ade__mul_size(nid, sizeof *ids));
  ade_cgraph *g = NULL;
  int st = ids ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for %zu ids", nid);
  if (!st) {
    memcpy(ids, xid, n * sizeof *ids);
    memcpy(ids + n, yid, m * sizeof *ids);
    memcpy(ids + n + m, src, ne * sizeof *ids);
    memcpy(ids + n + m + ne, dst, ne * sizeof *ids);
    qsort(ids, nid, sizeof *ids, cmp_long);
    for (size_t i = 0; i < nid; i++)
      if (!i || ids[i] != ids[i - 1]) ids[nu++] = ids[i];
    st = new_graph(&g, 0, nu, ne, n, m);
  }
  for (size_t i = 0; !st && i < nu; i++) st = ade__graph_add_vertex(g, ids[i], ADE__Z, &(size_t){0});
  for (size_t k = 0; !st && k < ne; k++) {
    size_t s = ade__graph_vertex(g, src[k]), d = ade__graph_vertex(g, dst[k]), e;
    double c = val ? val[k] : 1.0;
    if (s == d) st = ade__fail(ADE_EINVAL, "edge %zu is a self loop at %ld", k + 1, src[k]);
    else if ((e = ade__graph_find(g, s, d)) != ADE__NONE) g->e[e].val += c; /* merge parallel edges */
    else {
      g->next_edge_id = (long)k + 1;
      st = ade__graph_add_edge(g, s, d, c, NULL);
    }
  }
  if (!st) g->next_edge_id = (long)ne + 1;
  if (!st) st = set_kinds(g, xid, yid);
  ade__free(ids);
  if (st) ade_cgraph_free(g);
  else *gp = g;
  return st;
}

typedef struct idslot {
  long id;
  size_t e;
} idslot;

static int cmp_idslot(const void *a, const void *b) {
  long x = ((const idslot *)a)->id, y = ((const idslot *)b)->id;
  return (x > y) - (x < y);
}

/* Live edge slots of g sorted by edge number (slots are reused after
 * eliminations, so slot order is not number order). */
static size_t *edges_by_id(const ade_cgraph *g) {
  size_t *ix = ade__alloc((g->nedges + 1) * sizeof *ix), k = 0;
  idslot *p = ade__alloc((g->nedges + 1) * sizeof *p);
  if (!ix || !p) {
    ade__free(ix);
    ade__free(p);
    return NULL;
  }
  int sorted = 1;
  for (size_t e = 0; e < g->eslots; e++)
    if (g->e[e].src != ADE__NONE) {
      sorted &= !k || p[k - 1].id < g->e[e].id;
      p[k].id = g->e[e].id, p[k++].e = e;
    }
  if (!sorted) qsort(p, k, sizeof *p, cmp_idslot); /* a fresh graph's slots are in number order */
  for (size_t i = 0; i < k; i++) ix[i] = p[i].e;
  ade__free(p);
  return ix;
}

/* Dual vertex v's lists at *at in the slab, room for nin and nout. */
static void take(ade_cgraph *d, size_t v, size_t **at, size_t nin, size_t nout) {
  ade__vtx *x = &d->v[v];
  x->in = nin ? *at : NULL, *at += nin, x->capin = nin;
  x->out = nout ? *at : NULL, *at += nout, x->capout = nout;
}

/* Face (u, w) of the dual being built, as ade__graph_add_edge adds it (the
 * next slot, the next number, at the ends of the lists), without its
 * checks when the room is there, which ade_cgraph_dual reserves: every
 * slot at once, each list at its length, no slot freed yet, no edge
 * index. */
static int dual_edge(ade_cgraph *d, size_t u, size_t w) {
  ade__vtx *s = &d->v[u], *t = &d->v[w];
  if (!d->noindex || d->efree != ADE__NONE || d->eslots == d->ecap || s->nout == s->capout || t->nin == t->capin)
    return ade__graph_add_edge(d, u, w, 0, NULL);
  size_t e = d->eslots++;
  ade__edge *x = &d->e[e];
  x->src = u, x->dst = w, x->val = 0, x->id = d->next_edge_id++;
  x->pout = s->nout, x->pin = t->nin;
  s->out[s->nout++] = e;
  t->in[t->nin++] = e;
  d->nedges++;
  d->fp = 0;
  return ADE_OK;
}

/* The in- and out-degree in the dual of the vertex of edge (u, w):
 * P_src (or the independent), S_dst (or the dependent). */
static size_t dual_in(const ade__vtx *u) { return u->kind == ADE__Z ? u->nin : 1; }
static size_t dual_out(const ade__vtx *w) { return w->kind == ADE__Z ? w->nout : 1; }
/* The out-degree of independent j's dual vertex (in-degree of dependent i's). */
static size_t xdeg(const ade_cgraph *g, size_t j) {
  const ade__vtx *v = &g->v[g->xv[j]];
  return v->alive && v->kind == ADE__X ? v->nout : 0;
}
static size_t ydeg(const ade_cgraph *g, size_t i) {
  const ade__vtx *v = &g->v[g->yv[i]];
  return v->alive && v->kind == ADE__Y ? v->nin : 0;
}

/* Definition 1: X~ = 1-n..0, Z~ = E (numbered 1..|E|), Y~ = |E|+1..|E|+m;
 * faces between edges incident at an intermediate vertex. The adjacency
 * lists share one block (d->slab), each at its length: one allocation
 * instead of two per dual vertex (a list that grows in face elimination
 * moves out of it, graph.c). */
int ade_cgraph_dual(ade_cgraph **dp, const ade_cgraph *g) {
  if (!dp || !g || g->dual) return ade__fail(ADE_EINVAL, "ade_cgraph_dual: needs a c-graph");
  *dp = NULL;
  size_t E = g->nedges, *ix = edges_by_id(g), *dv = ade__alloc((g->eslots + 1) * sizeof *dv), vi;
  ade_cgraph *d = NULL;
  int st = ix && dv ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for a dual graph");
  if (!st) st = new_graph(&d, 1, g->n + E + g->m, 64, g->n, g->m);
  /* No edge index: a face step walks the lists the twin search and the
   * isolation of its ends walk anyway, so finding a face by a scan of
   * the shorter list costs no more, and adding or removing a face skips
   * the index (a third of the face engine's time on the PDE tape). */
  if (!st) d->memlimit = g->memlimit, d->noindex = 1;
  /* Room for every face at once. */
  size_t nf = 0, nadj = 0, *at = NULL;
  for (size_t i = 0; !st && i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (v->alive) nf += v->kind == ADE__X ? v->nout : v->kind == ADE__Y ? v->nin : v->nin * v->nout;
  }
  for (size_t k = 0; !st && k < E; k++) nadj += dual_in(&g->v[g->e[ix[k]].src]) + dual_out(&g->v[g->e[ix[k]].dst]);
  for (size_t j = 0; !st && j < g->n; j++) nadj += xdeg(g, j);
  for (size_t i = 0; !st && i < g->m; i++) nadj += ydeg(g, i);
  if (!st) st = ade__graph_reserve(d, 0, nf);
  if (!st && nadj && !(d->slab = ade__alloc(ade__mul_size(nadj, sizeof *d->slab))))
    st = ade__fail(ADE_ENOMEM, "out of memory for a dual graph's %zu adjacency entries", nadj);
  if (!st) d->nslab = nadj, at = d->slab;
  for (size_t j = 0; !st && j < g->n; j++) {
    st = ade__graph_add_vertex(d, (long)j + 1 - (long)g->n, ADE__X, &d->xv[j]);
    if (!st) d->v[j].aux = j, d->v[j].csrc = d->v[j].ctgt = g->v[g->xv[j]].id;
  }
  for (size_t k = 0; !st && k < E; k++) {
    const ade__edge *e = &g->e[ix[k]];
    st = ade__graph_add_vertex(d, (long)k + 1, ADE__Z, &dv[ix[k]]);
    if (!st) {
      ade__vtx *v = &d->v[dv[ix[k]]];
      v->val = e->val;
      v->csrc = g->v[e->src].id;
      v->ctgt = g->v[e->dst].id;
      take(d, dv[ix[k]], &at, dual_in(&g->v[e->src]), dual_out(&g->v[e->dst]));
    }
  }
  for (size_t i = 0; !st && i < g->m; i++) {
    st = ade__graph_add_vertex(d, (long)(E + i + 1), ADE__Y, &d->yv[i]);
    if (!st) vi = d->yv[i], d->v[vi].aux = i, d->v[vi].csrc = d->v[vi].ctgt = g->v[g->yv[i]].id;
  }
  for (size_t j = 0; !st && j < g->n; j++) take(d, d->xv[j], &at, 0, xdeg(g, j));
  for (size_t i = 0; !st && i < g->m; i++) take(d, d->yv[i], &at, ydeg(g, i), 0);
  if (!st) d->next_vertex_id = (long)(E + g->m + 1);
  for (size_t i = 0; !st && i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (!v->alive) continue;
    for (size_t a = 0; !st && a < v->nout && v->kind == ADE__X; a++) st = dual_edge(d, d->xv[v->aux], dv[v->out[a]]);
    for (size_t a = 0; !st && a < v->nin && v->kind == ADE__Y; a++) st = dual_edge(d, dv[v->in[a]], d->yv[v->aux]);
    for (size_t a = 0; v->kind == ADE__Z && a < v->nin; a++)
      for (size_t b = 0; !st && b < v->nout; b++) st = dual_edge(d, dv[v->in[a]], dv[v->out[b]]);
  }
  ade__free(ix);
  ade__free(dv);
  if (st) ade_cgraph_free(d);
  else *dp = d;
  return st;
}

/* CSR from triplets: rows by counting, columns sorted, duplicates summed. */
static int to_csr(size_t m, size_t n, size_t nz, const size_t *ri, const size_t *ci, const double *vv,
                  ade_sparse **Jp) {
  ade_sparse *J = NULL;
  int st = ade_sparse_create(&J, m, n, nz, 0);
  if (st) return st;
  for (size_t k = 0; k < nz; k++) J->rowptr[ri[k] + 1]++;
  for (size_t i = 0; i < m; i++) J->rowptr[i + 1] += J->rowptr[i];
  for (size_t k = 0; k < nz; k++) {
    size_t p = J->rowptr[ri[k]]++;
    J->col[p] = ci[k];
    J->val[p] = vv[k];
  }
  for (size_t i = m; i > 0; i--) J->rowptr[i] = J->rowptr[i - 1];
  J->rowptr[0] = 0;
  size_t w = 0;
  for (size_t i = 0; i < m; i++) {
    size_t lo = J->rowptr[i], hi = J->rowptr[i + 1];
    for (size_t p = lo + 1; p < hi; p++) { /* rows are short: insertion sort */
      size_t c = J->col[p], q = p;
      double x = J->val[p];
      for (; q > lo && J->col[q - 1] > c; q--) J->col[q] = J->col[q - 1], J->val[q] = J->val[q - 1];
      J->col[q] = c;
      J->val[q] = x;
    }
    J->rowptr[i] = w;
    for (size_t p = lo; p < hi; p++) {
      if (w > J->rowptr[i] && J->col[w - 1] == J->col[p]) J->val[w - 1] += J->val[p];
      else J->col[w] = J->col[p], J->val[w++] = J->val[p];
    }
  }
  J->rowptr[m] = J->nnz = w;
  *Jp = J;
  return ADE_OK;
}

int ade_cgraph_jacobian(const ade_cgraph *g, ade_sparse **Jp) {
  if (!g || !Jp) return ade__fail(ADE_EINVAL, "ade_cgraph_jacobian: NULL argument");
  *Jp = NULL;
  size_t cap = (g->dual ? g->nalive : g->nedges) + 1, nz = 0;
  size_t *ri = ade__alloc(cap * sizeof *ri), *ci = ade__alloc(cap * sizeof *ci);
  double *vv = ade__alloc(cap * sizeof *vv);
  int st = ri && ci && vv ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for %zu Jacobian entries", cap);
  for (size_t i = 0; !st && i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (!v->alive || (v->kind == ADE__Y && g->dual) || v->kind == ADE__X) continue;
    if (v->kind == ADE__Z && !g->dual) {
      st = ade__fail(ADE_ESTATE, "intermediate vertex %ld is not eliminated", v->id);
    } else if (g->dual) {
      const ade__vtx *p = v->nin == 1 ? &g->v[g->e[v->in[0]].src] : NULL;
      const ade__vtx *s = v->nout == 1 ? &g->v[g->e[v->out[0]].dst] : NULL;
      if (!p || !s || p->kind != ADE__X || s->kind != ADE__Y)
        st = ade__fail(ADE_ESTATE, "dual vertex %ld still has intermediate faces", v->id);
      else ri[nz] = s->aux, ci[nz] = p->aux, vv[nz++] = v->val;
    } else {
      for (size_t k = 0; k < v->nin; k++) {
        const ade__edge *e = &g->e[v->in[k]];
        ri[nz] = v->aux, ci[nz] = g->v[e->src].aux, vv[nz++] = e->val;
      }
    }
  }
  if (!st) st = to_csr(g->m, g->n, nz, ri, ci, vv, Jp);
  ade__free(ri);
  ade__free(ci);
  ade__free(vv);
  return st;
}

int ade_cgraph_edge(const ade_cgraph *g, long i, long j, double *c) {
  if (!g || g->dual) return ade__fail(ADE_EINVAL, "ade_cgraph_edge: needs a c-graph");
  size_t a = ade__graph_vertex(g, i), b = ade__graph_vertex(g, j), e;
  if (a == ADE__NONE || b == ADE__NONE || (e = ade__graph_find(g, a, b)) == ADE__NONE)
    return ade__fail(ADE_ENOTFOUND, "no edge (%ld, %ld)", i, j);
  if (c) *c = g->e[e].val;
  return ADE_OK;
}

/* Invariants of one vertex: its lists point back to it, the kind rules hold. */
static int check_vertex(const ade_cgraph *g, size_t i) {
  const ade__vtx *v = &g->v[i];
  for (size_t k = 0; k < v->nin; k++)
    if (g->e[v->in[k]].dst != i || g->e[v->in[k]].pin != k)
      return ade__fail(ADE_EFORMAT, "in-list of vertex %ld is inconsistent", v->id);
  for (size_t k = 0; k < v->nout; k++)
    if (g->e[v->out[k]].src != i || g->e[v->out[k]].pout != k)
      return ade__fail(ADE_EFORMAT, "out-list of vertex %ld is inconsistent", v->id);
  if ((v->kind == ADE__X && v->nin) || (v->kind == ADE__Y && v->nout))
    return ade__fail(ADE_EFORMAT, "%s vertex %ld is not %s", v->kind == ADE__X ? "minimal" : "maximal",
                     v->id, v->kind == ADE__X ? "minimal" : "maximal");
  if (v->kind == ADE__Z && (!v->nin || !v->nout))
    return ade__fail(ADE_EFORMAT, "intermediate vertex %ld is isolated but not removed", v->id);
  if (i && g->v[i - 1].id >= v->id) return ade__fail(ADE_EFORMAT, "vertex ids do not ascend at %ld", v->id);
  return ADE_OK;
}

int ade_cgraph_check(const ade_cgraph *g) {
  size_t alive = 0, edges = 0;
  if (!g) return ade__fail(ADE_EINVAL, "ade_cgraph_check: NULL graph");
  for (size_t i = 0; i < g->nv; i++) {
    if (!g->v[i].alive) continue;
    alive++;
    int st = check_vertex(g, i);
    if (st) return st;
  }
  for (size_t e = 0; e < g->eslots; e++) {
    const ade__edge *x = &g->e[e];
    if (x->src == ADE__NONE) continue;
    edges++;
    if (!g->v[x->src].alive || !g->v[x->dst].alive || ade__graph_find(g, x->src, x->dst) != e)
      return ade__fail(ADE_EFORMAT, "edge (%ld, %ld) is not indexed", g->v[x->src].id, g->v[x->dst].id);
    if (g->dual && g->v[x->src].ctgt != g->v[x->dst].csrc)
      return ade__fail(ADE_EFORMAT, "face (%ld, %ld) joins edges that are not incident", g->v[x->src].id,
                       g->v[x->dst].id);
  }
  if (alive != g->nalive || edges != g->nedges || (!g->noindex && edges != g->hused))
    return ade__fail(ADE_EFORMAT, "counts disagree: %zu/%zu vertices, %zu/%zu/%zu edges", alive, g->nalive,
                     edges, g->nedges, g->hused);
  return ADE_OK;
}

/* The c-graph of t with the figures every Jacobian report starts from. */
int ade__graph_from_tape(ade_tape *t, ade_cgraph **g, ade_jacobian_report *r) {
  int st = ade_cgraph_from_tape(g, t, &r->dropped);
  if (st) return st;
  r->vertices_before = (*g)->nalive;
  r->edges_before = (*g)->nedges;
  r->forward_cost = (uint64_t)(*g)->n * (*g)->nedges;
  r->reverse_cost = (uint64_t)(*g)->m * (*g)->nedges;
  return ADE_OK;
}

/* ------------------------------------------------------- labels at x */

/* lab[id] += each operand's partial at V (NULL: the recorded point) for
 * the edge it labels in g (parallel operands add, as when g was built). */
static int labels_chunks(ade_tape *t, const ade_cgraph *g, const double *V, double *lab) {
  const ade__lin *L;
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__lin_at(t, c, V, &L);
    if (st) return st;
    for (uint32_t i = 0; i < L->n; i++) {
      size_t vr = ade__graph_vertex(g, (long)(L->first + i + 1));
      for (uint32_t q = L->pos[i]; vr != ADE__NONE && q < L->pos[i + 1]; q++) {
        size_t va = ade__graph_vertex(g, (long)L->id[q]);
        size_t e = va == ADE__NONE ? ADE__NONE : ade__graph_find(g, va, vr);
        if (e != ADE__NONE) lab[g->e[e].id] += L->d[q];
      }
    }
  }
  return ADE_OK;
}

static int labels_at(ade_tape *t, const ade_cgraph *g, const double *x, double *lab) {
  int st = ade__tape_usable(t), warn = ADE_OK;
  if (st) return st;
  if (g->dual || g->next_edge_id < 1 || (size_t)g->next_edge_id != g->nedges + 1)
    return ade__fail(ADE_EINVAL, "edge labels at a point need a c-graph fresh from its tape");
  size_t R = (size_t)t->meta.records + 1;
  double *V = NULL;
  if (x && (st = ade__budget(t->memlimit, ade__mul_size(R, sizeof *V), "the values of %zu records", R - 1)))
    return st;
  if (x && !(V = ade__alloc(R * sizeof *V))) return ade__fail(ADE_ENOMEM, "out of memory for %zu values", R);
  if (x && (st = ade__replay_values(t, x, V)) == ADE_WBRANCH) warn = st, st = ADE_OK;
  memset(lab, 0, (g->nedges + 1) * sizeof *lab);
  if (!st) st = labels_chunks(t, g, V, lab);
  ade__free(V);
  return st ? st : warn;
}

int ade__cgraph_labels_at(ade_tape *shared, const ade_cgraph *g, const double *x, double *lab) {
  ade_tape *t;
  if (!shared || !g || !lab) return ade__fail(ADE_EINVAL, "edge labels: NULL argument");
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : labels_at(t, g, x, lab));
}
