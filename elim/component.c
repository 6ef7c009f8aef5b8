/* component.c: the connected components of a c-graph, each ordered on its own, so that the work of an ordering grows with the parts, not with their product. */
#include <stdlib.h>

#include "elim_internal.h"

/* Union-find root with path halving. */
static size_t root(size_t *up, size_t x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

#define SHARED(g, share, ix) (((share) >> (g)->v[ix].kind) & 1)

/* comp[v]: the weakly connected component of live vertex v, numbered 0, 1,
 * ... in the order of their lowest vertex index; ADE__NONE for dead slots. */
int ade__cgraph_components(const ade_cgraph *g, size_t *comp, size_t *ncomp) {
  size_t *up = ade__alloc((g->nv + 1) * sizeof *up), k = 0;
  if (!up) return ade__fail(ADE_ENOMEM, "out of memory for the components of %zu vertices", g->nv);
  for (size_t v = 0; v < g->nv; v++) up[v] = v;
  for (size_t e = 0; e < g->eslots; e++) {
    if (g->e[e].src == ADE__NONE) continue;
    size_t a = root(up, g->e[e].src), b = root(up, g->e[e].dst);
    if (a != b) up[ADE__MAX(a, b)] = ADE__MIN(a, b); /* the lowest index stays the root */
  }
  for (size_t v = 0; v < g->nv; v++) {
    size_t r = g->v[v].alive ? root(up, v) : ADE__NONE;
    comp[v] = r == ADE__NONE ? r : r == v ? k++ : comp[r];
  }
  ade__free(up);
  *ncomp = k;
  return ADE_OK;
}

int ade_cgraph_parts(const ade_cgraph *g, size_t *nparts, size_t *largest) {
  size_t nc = 0, np = 0, big = 0;
  if (!g) return ade__fail(ADE_EINVAL, "ade_cgraph_parts: NULL graph");
  size_t *comp = ade__alloc((g->nv + 1) * sizeof *comp), *ne = NULL;
  char *hasz = NULL;
  int st = comp ? ade__cgraph_components(g, comp, &nc) : ADE_ENOMEM;
  if (!st) {
    ne = ade__calloc(nc + 1, sizeof *ne);
    hasz = ade__calloc(nc + 1, 1);
    if (!ne || !hasz) st = ADE_ENOMEM;
  }
  if (st == ADE_ENOMEM) st = ade__fail(ADE_ENOMEM, "out of memory for the components of %zu vertices", g->nv);
  for (size_t v = 0; !st && v < g->nv; v++) {
    if (!g->v[v].alive) continue;
    ne[comp[v]] += g->v[v].nout;
    if (g->v[v].kind == ADE__Z && !hasz[comp[v]]) hasz[comp[v]] = 1, np++;
  }
  for (size_t c = 0; !st && c < nc; c++)
    if (hasz[c]) big = ADE__MAX(big, ne[c]);
  ade__free(comp);
  ade__free(ne);
  ade__free(hasz);
  if (!st && nparts) *nparts = np;
  if (!st && largest) *largest = big;
  return st;
}

void ade__part_free(ade__part *P) {
  ade__free(P->comp);
  ade__free(P->lix);
  ade__free(P->vstart);
  ade__free(P->vlist);
  ade__free(P->estart);
  ade__free(P->elist);
  ade__free(P->rank);
  ade__free(P->hasz);
}

typedef struct idslot {
  long id;
  size_t e;
} idslot;

static int cmp_idslot(const void *a, const void *b) {
  long x = ((const idslot *)a)->id, y = ((const idslot *)b)->id;
  return (x > y) - (x < y);
}

/* Live edge slots in edge-number order, and each one's rank. */
static int edge_order(const ade_cgraph *g, size_t *sorted, size_t *rank) {
  idslot *p = ade__alloc((g->nedges + 1) * sizeof *p);
  size_t k = 0;
  if (!p) return ade__fail(ADE_ENOMEM, "out of memory sorting %zu edges", g->nedges);
  int inorder = 1;
  for (size_t e = 0; e < g->eslots; e++)
    if (g->e[e].src != ADE__NONE) {
      inorder &= !k || p[k - 1].id < g->e[e].id;
      p[k].id = g->e[e].id, p[k++].e = e;
    }
  if (!inorder) qsort(p, k, sizeof *p, cmp_idslot); /* a fresh graph's slots are in number order */
  for (size_t i = 0; i < k; i++) {
    sorted[i] = p[i].e;
    rank[p[i].e] = i + 1;
  }
  ade__free(p);
  return ADE_OK;
}

/* Counting sort of n items (in the given order) into buckets by key. */
static void bucket(size_t nb, size_t *start, size_t *list, size_t n, const size_t *item, const size_t *key) {
  memset(start, 0, (nb + 1) * sizeof *start);
  for (size_t i = 0; i < n; i++) start[key[i] + 1]++;
  for (size_t c = 0; c < nb; c++) start[c + 1] += start[c];
  for (size_t i = 0; i < n; i++) list[start[key[i]]++] = item[i];
  for (size_t c = nb; c > 0; c--) start[c] = start[c - 1];
  start[0] = 0;
}

/* Components of g without the vertices of the shared kinds (a bit per
 * kind): union over the edges between unshared vertices. comp[v] is
 * ADE__NONE for dead and shared vertices. */
static void components_apart(const ade_cgraph *g, int share, size_t *up, size_t *comp, size_t *ncomp) {
  size_t k = 0;
  for (size_t v = 0; v < g->nv; v++) up[v] = v;
  for (size_t e = 0; e < g->eslots; e++) {
    const ade__edge *x = &g->e[e];
    if (x->src == ADE__NONE || SHARED(g, share, x->src) || SHARED(g, share, x->dst)) continue;
    size_t a = root(up, x->src), b = root(up, x->dst);
    if (a != b) up[ADE__MAX(a, b)] = ADE__MIN(a, b);
  }
  for (size_t v = 0; v < g->nv; v++) {
    size_t r = g->v[v].alive && !SHARED(g, share, v) ? root(up, v) : ADE__NONE;
    comp[v] = r == ADE__NONE ? r : r == v ? k++ : comp[r];
  }
  *ncomp = k;
}

/* The part of each edge (that of an unshared end; ADE__NONE: both shared),
 * and the (vertex, part) memberships in vertex order: a shared vertex joins
 * every part it has an edge into. */
static size_t memberships(const ade_cgraph *g, int share, const ade__part *P, size_t *item, size_t *key,
                          size_t *last) {
  size_t k = 0;
  for (size_t c = 0; c < P->ncomp; c++) last[c] = ADE__NONE;
  for (size_t v = 0; v < g->nv; v++) {
    const ade__vtx *x = &g->v[v];
    if (!x->alive) continue;
    if (!SHARED(g, share, v)) {
      item[k] = v, key[k++] = P->comp[v];
      continue;
    }
    for (size_t i = 0; i < x->nin + x->nout; i++) {
      const ade__edge *e = &g->e[i < x->nin ? x->in[i] : x->out[i - x->nin]];
      size_t c = P->comp[e->src == v ? e->dst : e->src];
      if (c != ADE__NONE && last[c] != v) last[c] = v, item[k] = v, key[k++] = c;
    }
  }
  return k;
}

int ade__part_split(const ade_cgraph *g, int share, ade__part *P) {
  size_t nv = g->nv + 1, ne = g->nedges + 1, nm = nv + 2 * ne, *tmp = NULL, *key = NULL, *sorted = NULL,
         *last = NULL;
  memset(P, 0, sizeof *P);
  P->comp = ade__alloc(nv * sizeof *P->comp);
  P->lix = ade__alloc(nv * sizeof *P->lix);
  tmp = ade__alloc(nm * sizeof *tmp);
  key = ade__alloc(nm * sizeof *key);
  int st = P->comp && P->lix && tmp && key ? ADE_OK : ADE_ENOMEM;
  if (!st) components_apart(g, share, tmp, P->comp, &P->ncomp);
  if (!st) {
    P->hasz = ade__calloc(P->ncomp + 1, 1);
    P->vstart = ade__alloc((P->ncomp + 1) * sizeof *P->vstart);
    P->estart = ade__alloc((P->ncomp + 1) * sizeof *P->estart);
    P->vlist = ade__alloc(nm * sizeof *P->vlist);
    P->elist = ade__alloc(ne * sizeof *P->elist);
    P->rank = ade__alloc((g->eslots + 1) * sizeof *P->rank);
    sorted = ade__alloc(ne * sizeof *sorted);
    last = ade__alloc((P->ncomp + 1) * sizeof *last);
    if (!P->hasz || !P->vstart || !P->estart || !P->vlist || !P->elist || !P->rank || !sorted || !last)
      st = ADE_ENOMEM;
  }
  if (st == ADE_ENOMEM) st = ade__fail(ADE_ENOMEM, "out of memory splitting a graph of %zu vertices", g->nv);
  for (size_t v = 0; !st && v < g->nv; v++)
    if (g->v[v].alive && g->v[v].kind == ADE__Z && !P->hasz[P->comp[v]]) P->hasz[P->comp[v]] = 1, P->nz++;
  if (!st && P->nz >= 2) { /* otherwise the caller orders g whole */
    size_t k = memberships(g, share, P, tmp, key, last);
    bucket(P->ncomp, P->vstart, P->vlist, k, tmp, key);
    st = edge_order(g, sorted, P->rank);
    k = 0;
    for (size_t i = 0; !st && i < g->nedges; i++) {
      const ade__edge *e = &g->e[sorted[i]];
      size_t c = SHARED(g, share, e->src) ? P->comp[e->dst] : P->comp[e->src];
      if (c != ADE__NONE) sorted[k] = sorted[i], key[k++] = c; /* edges between shared vertices: in no part */
    }
    if (!st) bucket(P->ncomp, P->estart, P->elist, k, sorted, key);
  }
  ade__free(tmp);
  ade__free(key);
  ade__free(sorted);
  ade__free(last);
  return st;
}

/* The c-graph of part c: its vertices (same ids, kinds; local columns and
 * rows in index order) and edges in edge-number order, so that its edge k
 * is its dual's vertex k. */
int ade__part_graph(const ade_cgraph *g, ade__part *P, size_t c, ade_cgraph **hp) {
  size_t v0 = P->vstart[c], nvc = P->vstart[c + 1] - v0, e0 = P->estart[c], nec = P->estart[c + 1] - e0;
  size_t n = 0, m = 0, ix;
  for (size_t k = 0; k < nvc; k++) {
    n += g->v[P->vlist[v0 + k]].kind == ADE__X;
    m += g->v[P->vlist[v0 + k]].kind == ADE__Y;
  }
  ade_cgraph *h = ade__calloc(1, sizeof *h);
  int st = h ? ade__graph_init(h, 0, nvc, nec) : ADE_ENOMEM;
  if (!st) {
    h->memlimit = g->memlimit;
    h->xv = ade__alloc((n + 1) * sizeof *h->xv);
    h->yv = ade__alloc((m + 1) * sizeof *h->yv);
    if (!h->xv || !h->yv) st = ADE_ENOMEM;
  }
  if (st == ADE_ENOMEM) st = ade__fail(ADE_ENOMEM, "out of memory for a component of %zu vertices", nvc);
  for (size_t k = 0; !st && k < nvc; k++) {
    const ade__vtx *v = &g->v[P->vlist[v0 + k]];
    st = ade__graph_add_vertex(h, v->id, v->kind, &ix);
    if (st) break;
    P->lix[P->vlist[v0 + k]] = ix;
    if (v->kind == ADE__X) h->v[ix].aux = h->n, h->xv[h->n++] = ix;
    if (v->kind == ADE__Y) h->v[ix].aux = h->m, h->yv[h->m++] = ix;
  }
  for (size_t k = 0; !st && k < nec; k++) {
    const ade__edge *e = &g->e[P->elist[e0 + k]];
    st = ade__graph_add_edge(h, P->lix[e->src], P->lix[e->dst], e->val, NULL);
  }
  if (st) {
    ade_cgraph_free(h);
    h = NULL;
  }
  *hp = h;
  return st;
}

/* A vertex id of part c's dual as the id the same vertex gets in g's dual
 * (Definition 1 numbering): X~ 1-n..0 by column, Z~ 1..|E| by edge rank,
 * Y~ |E|+1.. by row, fill-ins from fill0 on in the order they are made. */
static long global_id(const ade_cgraph *g, const ade_cgraph *h, const ade__part *P, size_t c, long id, long fill0) {
  long ec = (long)(P->estart[c + 1] - P->estart[c]), mc = (long)h->m;
  const size_t *vl = P->vlist + P->vstart[c];
  if (id <= 0) return 1 - (long)g->n + (long)g->v[vl[h->xv[id - 1 + (long)h->n]]].aux;
  if (id <= ec) return (long)P->rank[P->elist[P->estart[c] + (size_t)id - 1]];
  if (id <= ec + mc) return (long)g->nedges + 1 + (long)g->v[vl[h->yv[id - ec - 1]]].aux;
  return fill0 + (id - ec - mc - 1);
}

/* Append part c's sequence to s, renumbering face steps into g's dual. */
int ade__part_append(const ade_cgraph *g, const ade_cgraph *h, const ade__part *P, size_t c, const ade_elim_seq *cs,
                     long fill0, ade_elim_seq *s) {
  int st = ADE_OK;
  for (size_t k = 0; !st && k < cs->len; k++) {
    ade_elim_step x = cs->step[k];
    if (cs->kind == ADE_SEQ_FACE) {
      x.a = global_id(g, h, P, c, x.a, fill0);
      x.b = global_id(g, h, P, c, x.b, fill0);
    }
    st = ade_seq_push(s, x.a, x.b, x.dir);
  }
  return st;
}

/* Bind s to g, or for a face sequence to g's dual. */
int ade__seq_bind_whole(const ade_cgraph *g, ade_elim_seq *s) {
  ade_cgraph *d = NULL;
  if (s->kind != ADE_SEQ_FACE) {
    s->fingerprint = ade__graph_fingerprint(g);
    return ADE_OK;
  }
  int st = ade_cgraph_dual(&d, g);
  if (!st) s->fingerprint = ade__graph_fingerprint(d);
  ade_cgraph_free(d);
  return st;
}

