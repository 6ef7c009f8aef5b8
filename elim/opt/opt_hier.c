/* opt_hier.c: heuristic hierarchies (locality-heuristics paper): filters applied in turn to the eliminable targets, each keeping its most favourable class. */
#include <stdlib.h>

#include "opt_internal.h"

#define KV (1 << ADE_SEQ_VERTEX)
#define KE (1 << ADE_SEQ_EDGE)
#define KF (1 << ADE_SEQ_FACE)

enum { F_SIBLING, F_SUCCPRED, F_MARKOWITZ, F_RELATIVE, F_FILLIN, F_ABSORB, F_COST, F_FORWARD, F_REVERSE };

static const struct {
  const char *name;
  int filter, kinds;
} filter_names[] = {
    {"sibling", F_SIBLING, KV | KE},     {"succpred", F_SUCCPRED, KV},   {"successor-predecessor", F_SUCCPRED, KV},
    {"markowitz", F_MARKOWITZ, KV | KE}, {"relative", F_RELATIVE, KV},   {"relative-markowitz", F_RELATIVE, KV},
    {"fillin", F_FILLIN, KV | KE},       {"fill-in", F_FILLIN, KV | KE}, {"absorb", F_ABSORB, KF},
    {"cost", F_COST, KF},                {"forward", F_FORWARD, KV | KE | KF}, {"reverse", F_REVERSE, KV | KE | KF},
};
#define NFILTERS (sizeof filter_names / sizeof *filter_names)
#define MAXH 16

const char *ade__hier_default(int kind) {
  return kind == ADE_SEQ_VERTEX ? "sibling,succpred,markowitz,reverse"
         : kind == ADE_SEQ_EDGE ? "sibling,markowitz,reverse"
                                : "absorb,cost,forward";
}

/* "a,b,c" -> filters; the last must be forward or reverse, and is added
 * (forward) when missing; a tie-breaker anywhere else is an error. */
static int parse(const char *spec, int kind, int *f, int *nf) {
  const char *p = spec;
  *nf = 0;
  while (*p) {
    while (*p == ' ' || *p == ',') p++;
    size_t len = strcspn(p, ", ");
    if (!len) break;
    size_t k = 0;
    for (; k < NFILTERS; k++)
      if (strlen(filter_names[k].name) == len && !strncmp(p, filter_names[k].name, len)) break;
    if (k == NFILTERS) return ade__fail(ADE_EINVAL, "unknown filter '%.*s' in hierarchy '%s'", (int)len, p, spec);
    if (!(filter_names[k].kinds & (1 << kind)))
      return ade__fail(ADE_EINVAL, "filter '%s' does not apply to %s elimination", filter_names[k].name,
                       kind == ADE_SEQ_VERTEX ? "vertex" : kind == ADE_SEQ_EDGE ? "edge" : "face");
    if (*nf && (f[*nf - 1] == F_FORWARD || f[*nf - 1] == F_REVERSE))
      return ade__fail(ADE_EINVAL, "hierarchy '%s': forward or reverse can only be the last filter", spec);
    if (*nf == MAXH - 1) return ade__fail(ADE_EINVAL, "hierarchy '%s' has too many filters", spec);
    f[(*nf)++] = filter_names[k].filter;
    p += len;
  }
  if (!*nf || (f[*nf - 1] != F_FORWARD && f[*nf - 1] != F_REVERSE)) f[(*nf)++] = F_FORWARD;
  return ADE_OK;
}

/* ------------------------------------------------------------ the state */

typedef struct cand {
  size_t x;      /* vertex, edge slot, or dual vertex a */
  size_t y;      /* faces: dual vertex b */
  int dir;
  int64_t key[3];
} cand;

typedef struct hs {
  ade_cgraph *c;           /* the graph being eliminated (a copy, or the dual) */
  const ade_cgraph *g;
  int kind;
  size_t *rank;            /* topological rank of g's vertices */
  int64_t *dd;             /* dependency degrees (relative Markowitz) */
  unsigned *pm, *sm, stamp; /* marks: P and S of the last elimination */
  size_t np, ns;           /* their sizes */
  int have_last, last_dir;
  cand *cv;
  size_t nc, ccap;
  const ade__clock *clk;   /* may be NULL */
  int limited;
} hs;

/* Topological ranks, the lowest index first among the ready vertices (so
 * ranks follow ids where ids are topological, as on tapes). */
static int ranks(const ade_cgraph *g, size_t *rank) {
  size_t nv = g->nv, *deg = ade__alloc((nv + 1) * sizeof *deg), *heap = ade__alloc((nv + 1) * sizeof *heap), hn = 0, r = 0;
  if (!deg || !heap) {
    ade__free(deg);
    ade__free(heap);
    return ade__fail(ADE_ENOMEM, "out of memory for ranks");
  }
#define HPUSH(x)                                                                                   \
  do {                                                                                             \
    size_t i_ = hn++;                                                                              \
    heap[i_] = (x);                                                                                \
    while (i_ && heap[(i_ - 1) / 2] > heap[i_]) {                                                  \
      size_t t_ = heap[i_];                                                                        \
      heap[i_] = heap[(i_ - 1) / 2];                                                               \
      heap[(i_ - 1) / 2] = t_;                                                                     \
      i_ = (i_ - 1) / 2;                                                                           \
    }                                                                                              \
  } while (0)
  for (size_t i = 0; i < nv; i++) {
    rank[i] = SIZE_MAX;
    if (g->v[i].alive && !(deg[i] = g->v[i].nin)) HPUSH(i);
  }
  while (hn) {
    size_t v = heap[0], i = 0;
    heap[0] = heap[--hn];
    for (;;) {
      size_t l = 2 * i + 1, s = i;
      if (l < hn && heap[l] < heap[s]) s = l;
      if (l + 1 < hn && heap[l + 1] < heap[s]) s = l + 1;
      if (s == i) break;
      size_t t = heap[i];
      heap[i] = heap[s];
      heap[s] = t;
      i = s;
    }
    rank[v] = r++;
    for (size_t k = 0; k < g->v[v].nout; k++)
      if (!--deg[g->e[g->v[v].out[k]].dst]) HPUSH(g->e[g->v[v].out[k]].dst);
  }
#undef HPUSH
  ade__free(deg);
  ade__free(heap);
  return ADE_OK;
}

/* dd_j = id_j od_j (DP paper, V_LR): the independents reaching j times the
 * dependents j reaches, by bitsets propagated in rank order. */
static int dependency_degrees(const ade_cgraph *g, const size_t *rank, int64_t *dd) {
  size_t nv = g->nv, w = ((g->n > g->m ? g->n : g->m) + 63) / 64, live = 0;
  size_t *ord = ade__alloc((nv + 1) * sizeof *ord);
  uint64_t *bits = ade__calloc(ade__mul_size(nv + 1, w), sizeof *bits);
  if (!ord || !bits) {
    ade__free(ord);
    ade__free(bits);
    return ade__fail(ADE_ENOMEM, "out of memory for dependency degrees");
  }
  for (size_t i = 0; i < nv; i++)
    if (rank[i] != SIZE_MAX) ord[rank[i]] = i, live++;
  for (int pass = 0; pass < 2; pass++) { /* 0: id_j forward, 1: od_j backward */
    memset(bits, 0, (nv + 1) * w * sizeof *bits);
    for (size_t t = 0; t < live; t++) {
      size_t i = ord[pass ? live - 1 - t : t], nk = pass ? g->v[i].nout : g->v[i].nin;
      const ade__vtx *v = &g->v[i];
      uint64_t *b = bits + i * w;
      if (v->kind == (pass ? ADE__Y : ADE__X)) b[v->aux / 64] |= 1ull << (v->aux % 64);
      for (size_t k = 0; k < nk; k++) {
        size_t u = pass ? g->e[v->out[k]].dst : g->e[v->in[k]].src;
        for (size_t x = 0; x < w; x++) b[x] |= bits[u * w + x];
      }
      int64_t c = (int64_t)ade__popcount(b, w);
      dd[i] = pass ? dd[i] * c : c;
    }
  }
  ade__free(ord);
  ade__free(bits);
  return ADE_OK;
}

static int add_cand(hs *h, size_t x, size_t y, int dir) {
  if (ade__grow((void **)&h->cv, &h->ccap, h->nc + 1, sizeof *h->cv))
    return ade__fail(ADE_ENOMEM, "out of memory for %zu candidates", h->nc + 1);
  cand *c = &h->cv[h->nc++];
  c->x = x, c->y = y, c->dir = dir;
  return ADE_OK;
}

/* Keep the candidates whose key is lexicographically least. */
static void keep_least(hs *h) {
  size_t k = 0;
  const cand *b = &h->cv[0];
  for (size_t i = 1; i < h->nc; i++) {
    const int64_t *x = h->cv[i].key;
    if (x[0] < b->key[0] || (x[0] == b->key[0] && (x[1] < b->key[1] || (x[1] == b->key[1] && x[2] < b->key[2]))))
      b = &h->cv[i];
  }
  cand best = *b;
  for (size_t i = 0; i < h->nc; i++)
    if (!memcmp(h->cv[i].key, best.key, sizeof best.key)) h->cv[k++] = h->cv[i];
  h->nc = k;
}

static size_t count_marked(const hs *h, const unsigned *mark, const size_t *list, size_t n, int src) {
  size_t c = 0;
  for (size_t k = 0; k < n; k++) {
    const ade__edge *e = &h->c->e[list[k]];
    c += mark[src ? e->src : e->dst] == h->stamp;
  }
  return c;
}

/* Number of the (p, s) in P x S without an edge yet: the new edges. */
static int64_t vertex_fill(const ade_cgraph *c, const ade__vtx *v) {
  int64_t f = 0;
  for (size_t a = 0; a < v->nin; a++)
    for (size_t b = 0; b < v->nout; b++)
      f += ade__graph_find(c, c->e[v->in[a]].src, c->e[v->out[b]].dst) == ADE__NONE;
  return f;
}

/* Edges after minus edges before (E_LF of the DP paper). */
static int64_t edge_fill(const ade_cgraph *c, size_t e, int dir) {
  const ade__edge *x = &c->e[e];
  const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
  int64_t nw = 0;
  if (dir == ADE_FRONT) {
    for (size_t b = 0; b < j->nout; b++) nw += ade__graph_find(c, x->src, c->e[j->out[b]].dst) == ADE__NONE;
    return nw - 1 - (j->nin == 1 ? (int64_t)j->nout : 0);
  }
  for (size_t a = 0; a < i->nin; a++) nw += ade__graph_find(c, c->e[i->in[a]].src, x->dst) == ADE__NONE;
  return nw - 1 - (i->nout == 1 ? (int64_t)i->nin : 0);
}

/* ------------------------------------------------------------ filters */

/* Sibling degree |S n S-| |P n P-| of a vertex (Section 3.1). */
static int64_t vertex_sibling(const hs *h, const ade__vtx *v) {
  return (int64_t)(count_marked(h, h->sm, v->out, v->nout, 0) * count_marked(h, h->pm, v->in, v->nin, 1));
}

/* Successor/predecessor (Section 3.2): targets among the successors of
 * the last vertex if it had more predecessors, among its predecessors if
 * it had more successors, among both if as many; or wherever there are. */
static void succpred(hs *h) {
  size_t inp = 0, ins = 0;
  for (size_t i = 0; i < h->nc; i++) inp += h->pm[h->cv[i].x] == h->stamp, ins += h->sm[h->cv[i].x] == h->stamp;
  int useP = inp && (!ins || h->ns >= h->np), useS = ins && (!inp || h->np >= h->ns);
  for (size_t i = 0; i < h->nc; i++) {
    size_t v = h->cv[i].x;
    int in = (useP && h->pm[v] == h->stamp) || (useS && h->sm[v] == h->stamp);
    h->cv[i].key[0] = in ? 0 : 1;
  }
}

/* P and S of an edge step: front (i,j): {i} and S_j; back: P_i and {j}. */
static int64_t edge_sibling(const hs *h, const cand *c) {
  const ade__edge *e = &h->c->e[c->x];
  const ade__vtx *i = &h->c->v[e->src], *j = &h->c->v[e->dst];
  int64_t sd = c->dir == ADE_FRONT ? (int64_t)((h->pm[e->src] == h->stamp) * count_marked(h, h->sm, j->out, j->nout, 0))
                                    : (int64_t)(count_marked(h, h->pm, i->in, i->nin, 1) * (h->sm[e->dst] == h->stamp));
  /* After a front (back) elimination a back (front) one counts at most 1:
   * it is chosen only when the best sibling degree is 1 (Section 4.1). */
  return c->dir != h->last_dir && sd > 1 ? 1 : sd;
}

static void set_keys(hs *h, int f) {
  const ade_cgraph *c = h->c;
  if (f == F_SUCCPRED) {
    if (h->have_last) succpred(h);
    else
      for (size_t i = 0; i < h->nc; i++) h->cv[i].key[0] = 0;
    for (size_t i = 0; i < h->nc; i++) h->cv[i].key[1] = h->cv[i].key[2] = 0;
    return;
  }
  for (size_t i = 0; i < h->nc; i++) {
    cand *k = &h->cv[i];
    int64_t *key = k->key;
    key[0] = key[1] = key[2] = 0;
    if (h->kind == ADE_SEQ_VERTEX) {
      const ade__vtx *v = &c->v[k->x];
      int64_t mk = (int64_t)(v->nin * v->nout);
      switch (f) {
      case F_SIBLING: key[0] = h->have_last ? -vertex_sibling(h, v) : 0; break;
      case F_MARKOWITZ: key[0] = mk; break;
      case F_RELATIVE: key[0] = mk - h->dd[k->x]; break;
      case F_FILLIN: key[0] = vertex_fill(c, v); break;
      case F_FORWARD: key[0] = (int64_t)h->rank[k->x]; break;
      default: key[0] = -(int64_t)h->rank[k->x];
      }
    } else if (h->kind == ADE_SEQ_EDGE) {
      const ade__edge *e = &c->e[k->x];
      int64_t ri = (int64_t)h->rank[e->src], rj = (int64_t)h->rank[e->dst];
      int64_t cost = (int64_t)(k->dir == ADE_FRONT ? c->v[e->dst].nout : c->v[e->src].nin);
      switch (f) {
      case F_SIBLING: key[0] = h->have_last ? -edge_sibling(h, k) : 0; break;
      case F_MARKOWITZ: key[0] = cost; break;
      case F_FILLIN: key[0] = edge_fill(c, k->x, k->dir); break;
      case F_FORWARD: key[0] = ri, key[1] = rj, key[2] = k->dir; break;
      default: key[0] = -rj, key[1] = -ri, key[2] = -k->dir;
      }
    } else {
      const ade__vtx *a = &c->v[k->x], *b = &c->v[k->y];
      int64_t rc = (int64_t)h->rank[ade__graph_vertex(h->g, a->ctgt)];
      int absorb = ade__dual_twin(h->c, k->x, k->y, ADE__NONE) != ADE__NONE;
      switch (f) {
      case F_ABSORB: key[0] = !absorb; break;
      case F_COST: key[0] = absorb ? 0 : (int64_t)(a->nin + b->nout); break;
      case F_FORWARD: key[0] = rc, key[1] = a->id, key[2] = b->id; break;
      default: key[0] = -rc, key[1] = -a->id, key[2] = -b->id;
      }
    }
  }
}

/* The eliminable targets of the current graph. */
static int candidates(hs *h) {
  const ade_cgraph *c = h->c;
  int st = ADE_OK;
  h->nc = 0;
  if (h->kind == ADE_SEQ_VERTEX) {
    for (size_t v = 0; !st && v < c->nv; v++)
      if (c->v[v].alive && c->v[v].kind == ADE__Z) st = add_cand(h, v, 0, 0);
  } else if (h->kind == ADE_SEQ_EDGE) {
    for (size_t e = 0; !st && e < c->eslots; e++) {
      const ade__edge *x = &c->e[e];
      if (x->src == ADE__NONE) continue;
      if (c->v[x->dst].kind == ADE__Z) st = add_cand(h, e, 0, ADE_FRONT);
      if (!st && c->v[x->src].kind == ADE__Z) st = add_cand(h, e, 0, ADE_BACK);
    }
  } else {
    for (size_t e = 0; !st && e < c->eslots; e++) {
      const ade__edge *x = &c->e[e];
      if (x->src != ADE__NONE && c->v[x->src].kind == ADE__Z && c->v[x->dst].kind == ADE__Z)
        st = add_cand(h, x->src, x->dst, 0);
    }
  }
  return st;
}

static void mark_list(hs *h, unsigned *mark, const size_t *list, size_t n, int src) {
  for (size_t k = 0; k < n; k++) {
    const ade__edge *e = &h->c->e[list[k]];
    mark[src ? e->src : e->dst] = h->stamp;
  }
}

/* Remember P and S of the chosen elimination for the locality filters. */
static void remember(hs *h, const cand *k) {
  const ade_cgraph *c = h->c;
  if (++h->stamp == 0) {
    memset(h->pm, 0, (c->nv + 1) * sizeof *h->pm);
    memset(h->sm, 0, (c->nv + 1) * sizeof *h->sm);
    h->stamp = 1;
  }
  h->have_last = 1;
  h->last_dir = k->dir;
  if (h->kind == ADE_SEQ_VERTEX) {
    const ade__vtx *v = &c->v[k->x];
    mark_list(h, h->pm, v->in, v->nin, 1);
    mark_list(h, h->sm, v->out, v->nout, 0);
    h->np = v->nin, h->ns = v->nout;
  } else if (h->kind == ADE_SEQ_EDGE) {
    const ade__edge *e = &c->e[k->x];
    const ade__vtx *i = &c->v[e->src], *j = &c->v[e->dst];
    if (k->dir == ADE_FRONT) {
      h->pm[e->src] = h->stamp, h->np = 1;
      mark_list(h, h->sm, j->out, j->nout, 0), h->ns = j->nout;
    } else {
      mark_list(h, h->pm, i->in, i->nin, 1), h->np = i->nin;
      h->sm[e->dst] = h->stamp, h->ns = 1;
    }
  }
}

static int step(hs *h, const cand *k, ade_elim_seq *s) {
  ade_cgraph *c = h->c;
  if (h->kind == ADE_SEQ_VERTEX) {
    int st = ade_seq_push(s, c->v[k->x].id, 0, 0);
    return st ? st : ade__elim_vertex_ix(c, k->x, NULL);
  }
  if (h->kind == ADE_SEQ_EDGE) {
    const ade__edge *e = &c->e[k->x];
    int st = ade_seq_push(s, c->v[e->src].id, c->v[e->dst].id, k->dir);
    return st ? st : ade__elim_edge_ix(c, k->x, k->dir, NULL);
  }
  int st = ade_seq_push(s, c->v[k->x].id, c->v[k->y].id, 0);
  return st ? st : ade__face_step(c, k->x, k->y);
}

/* ------------------------------------------------- the cheap completion */

/* Vertices: the live intermediates by rank (ord: vertices of g by rank);
 * edges: the same vertices, each by front elimination of its in-edges
 * (Rule 3). */
static int finish_vertices(hs *h, const size_t *ord, ade_elim_seq *s) {
  ade_cgraph *c = h->c;
  int st = ADE_OK;
  for (size_t r = 0; !st && r < h->g->nv && ord[r] != ADE__NONE; r++) {
    size_t v = ord[r];
    cand k = {v, 0, ADE_FRONT, {0, 0, 0}};
    if (h->kind == ADE_SEQ_VERTEX && c->v[v].alive && c->v[v].kind == ADE__Z) st = step(h, &k, s);
    while (!st && h->kind == ADE_SEQ_EDGE && c->v[v].alive && c->v[v].kind == ADE__Z && c->v[v].nin) {
      k.x = c->v[v].in[0];
      st = step(h, &k, s);
    }
  }
  return st;
}

/* An intermediate face out of dual vertex u, or ADE__NONE. */
static size_t face_out(const ade_cgraph *d, size_t u) {
  const ade__vtx *v = &d->v[u];
  for (size_t k = 0; v->alive && v->kind == ADE__Z && k < v->nout; k++)
    if (d->v[d->e[v->out[k]].dst].kind == ADE__Z) return d->e[v->out[k]].dst;
  return ADE__NONE;
}

/* Every face through each junction by rank. A fill-in of a face at
 * junction c ends after c, and in-faces of fill-ins come from vertices
 * ending before c, which have no intermediate out-face left: one pass. */
static int finish_faces(hs *h, const size_t *ord, ade_elim_seq *s) {
  ade__dual_index x;
  int st = ade__dual_index_init(&x, h->g, h->c);
  for (size_t r = 0; !st && r < h->g->nv && ord[r] != ADE__NONE; r++)
    for (size_t u = x.first[ord[r]]; !st && u != ADE__NONE; u = x.next[u]) {
      size_t o;
      while (!st && (o = face_out(h->c, u)) != ADE__NONE) {
        cand k = {u, o, 0, {0, 0, 0}};
        st = step(h, &k, s);
        if (!st) st = ade__dual_index_sync(&x, h->g, h->c);
      }
    }
  ade__dual_index_free(&x);
  return st;
}

/* The limit: the remaining targets in forward order, without rescanning. */
static int finish(hs *h, ade_elim_seq *s) {
  size_t nv = h->g->nv, *ord = ade__alloc((nv + 1) * sizeof *ord);
  if (!ord) return ade__fail(ADE_ENOMEM, "out of memory for a hierarchy");
  for (size_t v = 0; v <= nv; v++) ord[v] = ADE__NONE;
  for (size_t v = 0; v < nv; v++)
    if (h->rank[v] != SIZE_MAX) ord[h->rank[v]] = v;
  int st = h->kind == ADE_SEQ_FACE ? finish_faces(h, ord, s) : finish_vertices(h, ord, s);
  ade__free(ord);
  return st;
}

static int run(hs *h, const int *f, int nf, ade_elim_seq *s) {
  int st = ADE_OK;
  while (!st) {
    if (h->clk && ade__clock_expired(h->clk, 0)) { /* the limit: the rest in forward order */
      size_t len = s->len;
      st = finish(h, s);
      h->limited = s->len > len;
      break;
    }
    if ((st = candidates(h)) || !h->nc) break;
    if (h->kind == ADE_SEQ_FACE && (st = ade__graph_marks(h->c))) break;
    for (int i = 0; i < nf && h->nc > 1; i++) {
      set_keys(h, f[i]);
      keep_least(h);
    }
    cand k = h->cv[0];
    remember(h, &k);
    st = step(h, &k, s);
  }
  return st;
}

int ade__opt_hierarchy(const ade_cgraph *g, int kind, const char *spec, const ade__clock *clk, ade_elim_seq **seq,
                       int *limited) {
  hs h;
  int f[MAXH], nf = 0;
  ade_elim_seq *s = NULL;
  memset(&h, 0, sizeof h);
  h.g = g;
  h.kind = kind;
  h.clk = clk;
  int st = parse(spec ? spec : ade__hier_default(kind), kind, f, &nf);
  if (!st) st = kind == ADE_SEQ_FACE ? ade_cgraph_dual(&h.c, g) : ade_cgraph_copy(&h.c, g);
  if (!st) {
    size_t n = h.c->nv + 1;
    h.rank = ade__alloc((g->nv + 1) * sizeof *h.rank);
    h.pm = ade__calloc(n, sizeof *h.pm);
    h.sm = ade__calloc(n, sizeof *h.sm);
    h.dd = ade__calloc(g->nv + 1, sizeof *h.dd);
    if (!h.rank || !h.pm || !h.sm || !h.dd) st = ade__fail(ADE_ENOMEM, "out of memory for a hierarchy");
  }
  if (!st) st = ranks(g, h.rank);
  for (int i = 0; !st && i < nf; i++)
    if (f[i] == F_RELATIVE) {
      st = dependency_degrees(g, h.rank, h.dd);
      break;
    }
  if (!st) st = ade_seq_create(&s, kind);
  if (!st) st = run(&h, f, nf, s);
  if (!st) s->cost = h.c->fma;
  if (!st && limited) *limited = h.limited;
  ade_cgraph_free(h.c);
  ade__free(h.rank);
  ade__free(h.pm);
  ade__free(h.sm);
  ade__free(h.dd);
  ade__free(h.cv);
  if (st) ade_seq_free(s);
  else *seq = s;
  return st;
}
