/* opt_hier.c: heuristic hierarchies (locality-heuristics paper): filters applied in turn to the eliminable targets, each keeping its most favourable class; keys kept incrementally in a heap, with the rescan as the reference. */
#include <limits.h>
#include <stdlib.h>

#include "opt_internal.h"
#include "../pkq_inline.h"

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
  /* incremental keys (not with scan, the rescanning reference) */
  int scan;
  int audit;               /* faces: the queue checked after every step (ADE__ORDER_AUDIT) */
  int gl[MAXH], ngl, pre[MAXH], fill; /* the global filters, their prefix lengths */
  ade__ipq q;              /* every target's global key tuple (no greater than it) */
  long (*kd)[ADE__PQ_KEYS]; /* edges: per target 2 e + dir its queued tuple; q holds e */
  size_t kdcap;            /* with the lesser of its two directions' */
  ade__ix pl, sl;          /* P and S of the last elimination as lists */
  ade__ix dv, pairs, in, out, fs; /* what a step changes */
  ade__ix tw;              /* faces: a vertex's twins on one side (ade__dual_same_side) */
  unsigned char *ab;       /* faces, at the start: per face whether it absorbs */
  int pk;                  /* faces and edges, the default chains: tuples packed into pq instead of q */
  int fdef;                /* faces: the default chain (absorb, cost, forward) */
  ade__pkq pq;
  ade__pkent *run;         /* pk: the start's entries not set since, ascending (x = SIZE_MAX: gone); */
  size_t nrun, rcur;       /* the least left at rcur */
  size_t *rat, ratcap;     /* per target its place in run, or SIZE_MAX */
  ade__pk *kp;             /* edges with pk: kd's tuples packed */
  size_t kpcap;
  ade__ix dg;              /* per vertex of dv: its in- and out-degree before the step */
  long id0;                /* the first edge number a step can give a new edge */
  unsigned *vm, vstamp;    /* marks on vertices (dedup of dv) */
  int twin;                /* faces: a filter reads ade__dual_twin */
  uint64_t ceiling;        /* stop once the cost exceeds it (0: never) */
  int cut;                 /* stopped so */
  ade__clock rep;          /* a copy of *clk for the progress reports (report: there is one) */
  int report;
  uint64_t steps;
  ade__faced faced;        /* faces with a ceiling: c-graph vertices with faces left (a lower bound) */
  int faces;               /* faces with a ceiling: the bound applies (faced built when first needed) */
  size_t rest0;            /* the vertices with faces at the start (faced.rest before it is built) */
  uint64_t *fc, frest;     /* faces, incremental, no merge yet: intermediate faces per c-graph vertex (by rank), those with any */
  size_t fr[3], fn[4];     /* the step's junction ranks (j, csrc(a), ctgt(b); SIZE_MAX: none) and |P_a|, |S_a|, |P_b|, |S_b| */
  size_t *jr, jrcap;       /* faces: rank of each dual vertex's junction */
  unsigned *dm, *fm, dstamp, fstamp; /* faces: marks on dual vertices and faces */
  size_t fa, fb, seg[2];   /* faces: the step's (a, b); where S_b and P_b start in in and out */
  uint64_t merged0, fill0; /* the merges and fill-ins before it */
  size_t dmcap, fmcap;
} hs;

/* Topological ranks, the lowest index first among the ready vertices (so
 * ranks follow ids where ids are topological, as on tapes). */
static int ranks(const ade_cgraph *g, size_t *rank) {
  /* Every edge from a lower index to a higher one (tapes): then the
   * lowest unranked index is always ready, and the ranks are the index
   * order. */
  int up = 1;
  for (size_t e = 0; up && e < g->eslots; e++) {
    const ade__edge *x = &g->e[e];
    up = x->src == ADE__NONE || (x->src < x->dst && g->v[x->src].alive && g->v[x->dst].alive);
  }
  if (up) {
    size_t r = 0;
    for (size_t i = 0; i < g->nv; i++) rank[i] = g->v[i].alive ? r++ : SIZE_MAX;
    return ADE_OK;
  }
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

static inline __attribute__((always_inline)) int add_cand(hs *h, size_t x, size_t y, int dir) {
  if (h->nc == h->ccap && ade__grow((void **)&h->cv, &h->ccap, h->nc + 1, sizeof *h->cv))
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

static int64_t junction_rank(hs *h, size_t a);
/* junction_rank with its cache read inline. */
static inline size_t jrank(hs *h, size_t a) {
  return a < h->jrcap && h->jr[a] != SIZE_MAX ? h->jr[a] : (size_t)junction_rank(h, a);
}

/* The live vertex of g with this id (dense ids: at its offset), or ADE__NONE. */
static inline size_t gvertex(const ade_cgraph *g, long id) {
  size_t j = g->nv && id >= g->v[0].id ? (size_t)(id - g->v[0].id) : SIZE_MAX;
  return j < g->nv && g->v[j].id == id && g->v[j].alive ? j : ade__graph_vertex(g, id);
}

/* The rank of dual vertex a's junction (cached per dual vertex). */
static int64_t junction_rank(hs *h, size_t a) {
  if (a < h->jrcap && h->jr[a] != SIZE_MAX) return (int64_t)h->jr[a];
  size_t r = h->rank[gvertex(h->g, h->c->v[a].ctgt)];
  if (a < h->jrcap) h->jr[a] = r;
  return (int64_t)r;
}

/* Edge filter f's key of target k, given its ends' ranks and its cost,
 * into key; the number of values written. */
static int edge_filter_key(const ade_cgraph *c, int f, const cand *k, int64_t ri, int64_t rj, int64_t cost,
                           int64_t *key) {
  switch (f) {
  case F_MARKOWITZ: key[0] = cost; return 1;
  case F_FILLIN: key[0] = edge_fill(c, k->x, k->dir); return 1;
  case F_FORWARD: key[0] = ri, key[1] = rj, key[2] = k->dir; return 3;
  default: key[0] = -rj, key[1] = -ri, key[2] = -k->dir; return 3;
  }
}

/* The key of a filter other than sibling and succpred (those depend on
 * the last elimination and on the other targets): a function of the
 * target and the current graph alone. absorb: whether face k is
 * absorption, or -1 (not known yet). */
static void filter_key(hs *h, int f, const cand *k, int absorb, int64_t *key) {
  const ade_cgraph *c = h->c;
  key[0] = key[1] = key[2] = 0;
  if (h->kind == ADE_SEQ_VERTEX) {
    const ade__vtx *v = &c->v[k->x];
    int64_t mk = (int64_t)(v->nin * v->nout);
    switch (f) {
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
    edge_filter_key(c, f, k, ri, rj, cost, key);
  } else {
    const ade__vtx *a = &c->v[k->x], *b = &c->v[k->y];
    int64_t rc = f == F_FORWARD || f == F_REVERSE ? junction_rank(h, k->x) : 0;
    if (absorb < 0 && (f == F_ABSORB || f == F_COST)) absorb = ade__dual_twin(h->c, k->x, k->y, ADE__NONE) != ADE__NONE;
    switch (f) {
    case F_ABSORB: key[0] = !absorb; break;
    case F_COST: key[0] = absorb ? 0 : (int64_t)(a->nin + b->nout); break;
    case F_FORWARD: key[0] = rc, key[1] = a->id, key[2] = b->id; break;
    default: key[0] = -rc, key[1] = -a->id, key[2] = -b->id;
    }
  }
}

static void set_keys(hs *h, int f) {
  if (f == F_SUCCPRED) {
    if (h->have_last) succpred(h);
    else
      for (size_t i = 0; i < h->nc; i++) h->cv[i].key[0] = 0;
    for (size_t i = 0; i < h->nc; i++) h->cv[i].key[1] = h->cv[i].key[2] = 0;
    return;
  }
  for (size_t i = 0; i < h->nc; i++) {
    cand *k = &h->cv[i];
    if (f != F_SIBLING) {
      filter_key(h, f, k, -1, k->key);
      continue;
    }
    k->key[1] = k->key[2] = 0;
    k->key[0] = !h->have_last                 ? 0
                : h->kind == ADE_SEQ_VERTEX ? -vertex_sibling(h, &h->c->v[k->x])
                                            : -edge_sibling(h, k);
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

/* Mark the sources (src) or targets of the edges in list, and with the
 * incremental keys also list them in l. */
static int mark_list(hs *h, unsigned *mark, const size_t *list, size_t n, int src, ade__ix *l) {
  int st = ADE_OK;
  for (size_t k = 0; k < n; k++) {
    const ade__edge *e = &h->c->e[list[k]];
    mark[src ? e->src : e->dst] = h->stamp;
    if (!h->scan && !st) st = ade__ix_push(l, src ? e->src : e->dst);
  }
  return st;
}

static int mark_one(hs *h, unsigned *mark, size_t v, ade__ix *l) {
  mark[v] = h->stamp;
  return h->scan ? ADE_OK : ade__ix_push(l, v);
}

/* Remember P and S of the chosen elimination for the locality filters. */
static int remember(hs *h, const cand *k) {
  const ade_cgraph *c = h->c;
  int st = ADE_OK;
  if (++h->stamp == 0 && h->pm) { /* faces have no marks */
    memset(h->pm, 0, (c->nv + 1) * sizeof *h->pm);
    memset(h->sm, 0, (c->nv + 1) * sizeof *h->sm);
    h->stamp = 1;
  }
  h->have_last = 1;
  h->last_dir = k->dir;
  h->pl.n = h->sl.n = 0;
  if (h->kind == ADE_SEQ_VERTEX) {
    const ade__vtx *v = &c->v[k->x];
    st = mark_list(h, h->pm, v->in, v->nin, 1, &h->pl);
    if (!st) st = mark_list(h, h->sm, v->out, v->nout, 0, &h->sl);
    h->np = v->nin, h->ns = v->nout;
  } else if (h->kind == ADE_SEQ_EDGE) {
    const ade__edge *e = &c->e[k->x];
    const ade__vtx *i = &c->v[e->src], *j = &c->v[e->dst];
    if (k->dir == ADE_FRONT) {
      st = mark_one(h, h->pm, e->src, &h->pl), h->np = 1;
      if (!st) st = mark_list(h, h->sm, j->out, j->nout, 0, &h->sl), h->ns = j->nout;
    } else {
      st = mark_list(h, h->pm, i->in, i->nin, 1, &h->pl), h->np = i->nin;
      if (!st) st = mark_one(h, h->sm, e->dst, &h->sl), h->ns = 1;
    }
  }
  return st;
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

/* A face step when the queue's entry gives the face's slot f: no search
 * for the face, and with twin 0 (its fresh key says it fills in) none for
 * a twin either (ade__face_step_kept). */
static int face_step_at(hs *h, const cand *k, ade_elim_seq *s, size_t f, int twin) {
  ade_cgraph *c = h->c;
  if (f >= c->eslots || c->e[f].src != k->x || c->e[f].dst != k->y) return step(h, k, s);
  size_t kept[2];
  int st = ade_seq_push(s, c->v[k->x].id, c->v[k->y].id, 0);
  return st ? st : ade__face_step_kept(c, f, twin, kept);
}

/* ------------------------------------------------- the cheap completion */

/* Vertices: the live intermediates by rank (ord: vertices of g by rank),
 * last first with rev; edges: the same vertices, each by front
 * elimination of its in-edges (Rule 3), with rev by back elimination of
 * its out-edges (Rule 4). */
static int finish_vertices(hs *h, const size_t *ord, size_t nord, int rev, ade_elim_seq *s) {
  ade_cgraph *c = h->c;
  int st = ADE_OK;
  for (size_t r = 0; !st && r < nord; r++) {
    size_t v = ord[rev ? nord - 1 - r : r];
    cand k = {v, 0, rev ? ADE_BACK : ADE_FRONT, {0, 0, 0}};
    if (h->kind == ADE_SEQ_VERTEX && c->v[v].alive && c->v[v].kind == ADE__Z) st = step(h, &k, s);
    while (!st && h->kind == ADE_SEQ_EDGE && c->v[v].alive && c->v[v].kind == ADE__Z && (rev ? c->v[v].nout : c->v[v].nin)) {
      k.x = rev ? c->v[v].out[0] : c->v[v].in[0];
      st = step(h, &k, s);
    }
  }
  return st;
}

/* An intermediate face out of (rev: into) dual vertex u, as its other
 * end, or ADE__NONE. */
static size_t face_at(const ade_cgraph *d, size_t u, int rev) {
  const ade__vtx *v = &d->v[u];
  size_t n = rev ? v->nin : v->nout;
  for (size_t k = 0; v->alive && v->kind == ADE__Z && k < n; k++) {
    size_t w = rev ? d->e[v->in[k]].src : d->e[v->out[k]].dst;
    if (d->v[w].kind == ADE__Z) return w;
  }
  return ADE__NONE;
}

/* Every face through each junction by rank. A fill-in of a face at
 * junction c ends after c, and in-faces of fill-ins come from vertices
 * ending before c, which have no intermediate out-face left: one pass. */
static int finish_faces(hs *h, const size_t *ord, size_t nord, ade_elim_seq *s) {
  ade__dual_index x;
  int st = ade__dual_index_init(&x, h->g, h->c);
  for (size_t r = 0; !st && r < nord; r++)
    for (size_t u = x.first[ord[r]]; !st && u != ADE__NONE; u = x.next[u]) {
      size_t o;
      while (!st && (o = face_at(h->c, u, 0)) != ADE__NONE) {
        cand k = {u, o, 0, {0, 0, 0}};
        st = step(h, &k, s);
        if (!st) st = ade__dual_index_sync(&x, h->g, h->c);
      }
    }
  ade__dual_index_free(&x);
  return st;
}

/* The same backward: every face through each junction, last rank first,
 * by the dual vertices starting there (csrc), each rid of its
 * intermediate in-faces. A fill-in of face (o, u) at junction c starts
 * where o does, before c, so it is listed and met later; its successors
 * are u's, which have no intermediate in-face left: one pass. bys: the
 * dual vertices by start (first per c-graph vertex, next per dual vertex). */
static int finish_faces_rev(hs *h, const size_t *ord, size_t nord, ade_elim_seq *s) {
  ade_cgraph *d = h->c;
  size_t *first = ade__alloc((h->g->nv + 1) * sizeof *first), *next = NULL, cap = 0, seen = 0;
  int st = first ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for a dual index");
  for (size_t j = 0; !st && j <= h->g->nv; j++) first[j] = ADE__NONE;
  for (size_t r = 0; !st && r < nord; r++) {
    if (d->nv > cap && ade__grow((void **)&next, &cap, d->nv, sizeof *next))
      st = ade__fail(ADE_ENOMEM, "out of memory for a dual index of %zu", d->nv);
    for (; !st && seen < d->nv; seen++) { /* list the new dual vertices at their start */
      size_t j = ade__graph_vertex(h->g, d->v[seen].csrc);
      if (j == ADE__NONE) continue;
      next[seen] = first[j];
      first[j] = seen;
    }
    for (size_t u = st ? ADE__NONE : first[ord[nord - 1 - r]]; !st && u != ADE__NONE; u = next[u]) {
      size_t o;
      while (!st && (o = face_at(d, u, 1)) != ADE__NONE) {
        cand k = {o, u, 0, {0, 0, 0}};
        st = step(h, &k, s);
      }
    }
  }
  ade__free(first);
  ade__free(next);
  return st;
}

/* The limit: the remaining targets in the order of the cheaper vector
 * mode (reverse when m < n, else forward), without rescanning. */
static int finish(hs *h, ade_elim_seq *s) {
  size_t nv = h->g->nv, *ord = ade__alloc((nv + 1) * sizeof *ord), nord = 0;
  int rev = h->g->m < h->g->n;
  if (!ord) return ade__fail(ADE_ENOMEM, "out of memory for a hierarchy");
  for (size_t v = 0; v <= nv; v++) ord[v] = ADE__NONE;
  for (size_t v = 0; v < nv; v++)
    if (h->rank[v] != SIZE_MAX) ord[h->rank[v]] = v, nord++;
  int st = h->kind != ADE_SEQ_FACE ? finish_vertices(h, ord, nord, rev, s)
           : rev                   ? finish_faces_rev(h, ord, nord, s)
                                   : finish_faces(h, ord, nord, s);
  ade__free(ord);
  return st;
}

/* ------------------------------------------------- incremental keys */

/* The filters split in two. Sibling and succpred (history filters) judge
 * a target by the last elimination, and are non-zero only near it. Every
 * other filter (global filters) has a key that is a function of the
 * target and the current graph. Keeping the least of a global filter's
 * key among the survivors of the global filters before it is keeping the
 * least of the tuple of their keys: one heap over the tuple of the global
 * filters' keys, in the order of the chain (a repeated one keeps all and
 * is left out), gives by its least tuple T* every prefix's least tuple,
 * and so the survivors of each filter as long as no history filter has
 * narrowed them ("implicit": the targets whose prefix equals T*'s). A
 * history filter on implicit survivors looks only at the targets near
 * the last elimination that are among them; if it narrows, the
 * survivors are listed ("explicit") and the remaining filters run on the
 * list exactly as in the rescanning reference. doc/elimination.md has
 * the proof that both choose the same target. */

static int is_global(int f) { return f != F_SIBLING && f != F_SUCCPRED; }

/* Longs a global filter's key takes in the tuple. */
static int key_width(const hs *h, int f) {
  return (f == F_FORWARD || f == F_REVERSE) && h->kind != ADE_SEQ_VERTEX ? 3 : 1;
}

/* The distinct global filters in order, and per position of the chain
 * the length of the tuple prefix of the global filters before it. */
static void plan_chain(hs *h, const int *f, int nf) {
  int len = 0;
  h->ngl = 0;
  for (int i = 0; i < nf; i++) {
    h->pre[i] = len;
    int seen = !is_global(f[i]);
    for (int k = 0; !seen && k < h->ngl; k++) seen = h->gl[k] == f[i];
    if (seen) continue;
    h->gl[h->ngl++] = f[i];
    h->fill |= f[i] == F_FILLIN;
    h->twin |= f[i] == F_ABSORB || f[i] == F_COST;
    len += key_width(h, f[i]);
  }
}

/* At most markowitz, relative, fillin and a tie-breaker (vertices),
 * markowitz, fillin and 3 (edges), absorb, cost and 3 (faces). */
#if ADE__PQ_KEYS < 5
#error "the hierarchy's key tuples need 5 longs"
#endif

/* An edge's tuple with its ranks and cost read once (gkey runs once per
 * re-queued target). */
static void gkey_edge(const hs *h, const cand *k, long *key) {
  const ade__edge *e = &h->c->e[k->x];
  if (h->ngl == 2 && h->gl[0] == F_MARKOWITZ && h->gl[1] == F_REVERSE) { /* the default */
    key[0] = (long)(k->dir == ADE_FRONT ? h->c->v[e->dst].nout : h->c->v[e->src].nin);
    key[1] = -(long)h->rank[e->dst], key[2] = -(long)h->rank[e->src], key[3] = -(long)k->dir, key[4] = 0;
    return;
  }
  int64_t t[ADE__PQ_KEYS + 2] = {0}, ri = (int64_t)h->rank[e->src], rj = (int64_t)h->rank[e->dst];
  int64_t cost = (int64_t)(k->dir == ADE_FRONT ? h->c->v[e->dst].nout : h->c->v[e->src].nin);
  int len = 0;
  for (int g = 0; g < h->ngl; g++) len += edge_filter_key(h->c, h->gl[g], k, ri, rj, cost, t + len);
  for (int w = 0; w < ADE__PQ_KEYS; w++) key[w] = (long)t[w];
}

/* A face's or a vertex's tuple, each filter's words written straight
 * into key, as filter_key computes them; faces: of face (x, y), whether
 * it absorbs given (absorb, read only with h->twin). */
static void gkey_face_ab(hs *h, size_t x, size_t y, int absorb, long *key) {
  const ade__vtx *a = &h->c->v[x], *b = &h->c->v[y];
  int len = 0;
  absorb = h->twin && absorb;
  if (h->fdef) { /* the default */
    size_t r = jrank(h, x);
    key[0] = !absorb, key[1] = absorb ? 0 : (long)(a->nin + b->nout), key[2] = (long)r, key[3] = a->id, key[4] = b->id;
    return;
  }
  for (int g = 0; g < h->ngl; g++) switch (h->gl[g]) {
    case F_ABSORB: key[len++] = !absorb; break;
    case F_COST: key[len++] = absorb ? 0 : (long)(a->nin + b->nout); break;
    case F_FORWARD:
      key[len++] = (long)junction_rank(h, x), key[len++] = a->id, key[len++] = b->id;
      break;
    default: key[len++] = -(long)junction_rank(h, x), key[len++] = -a->id, key[len++] = -b->id;
    }
  while (len < ADE__PQ_KEYS) key[len++] = 0;
}

static void gkey_face(hs *h, const cand *k, long *key) {
  gkey_face_ab(h, k->x, k->y, h->twin && ade__dual_twin(h->c, k->x, k->y, ADE__NONE) != ADE__NONE, key);
}

static void gkey_vertex(const hs *h, const cand *k, long *key) {
  const ade__vtx *v = &h->c->v[k->x];
  long mk = (long)(v->nin * v->nout);
  int len = 0;
  if (h->ngl == 2 && h->gl[0] == F_MARKOWITZ && h->gl[1] == F_REVERSE) { /* the default */
    key[0] = mk, key[1] = -(long)h->rank[k->x], key[2] = key[3] = key[4] = 0;
    return;
  }
  for (int g = 0; g < h->ngl; g++) switch (h->gl[g]) {
    case F_MARKOWITZ: key[len++] = mk; break;
    case F_RELATIVE: key[len++] = mk - (long)h->dd[k->x]; break;
    case F_FILLIN: key[len++] = (long)vertex_fill(h->c, v); break;
    case F_FORWARD: key[len++] = (long)h->rank[k->x]; break;
    default: key[len++] = -(long)h->rank[k->x];
    }
  while (len < ADE__PQ_KEYS) key[len++] = 0;
}

static __attribute__((noinline)) void gkey(hs *h, const cand *k, long *key) {
  if (h->kind == ADE_SEQ_EDGE) gkey_edge(h, k, key);
  else if (h->kind == ADE_SEQ_FACE) gkey_face(h, k, key);
  else gkey_vertex(h, k, key);
}

/* The face hierarchy's default tuple (!absorb, cost, junction rank, a's
 * id, b's id) packed into 128 bits in the same order: !absorb in bit 63,
 * the cost (|P_a| + |S_b| < 2^32) in bits 31-62, the rank (< 2^31) below;
 * the ids (< 2^32) in the low word. pack_fits checks the bounds. Half
 * the size of a tuple in the heap, one or two comparisons. */
static ade__pk pack(const long *key) {
  ade__pk p = {(uint64_t)key[0] << 63 | (uint64_t)key[1] << 31 | (uint64_t)key[2],
               (uint64_t)key[3] << 32 | (uint64_t)key[4]};
  return p;
}

static int pack_fits(const hs *h) {
  const uint64_t lim = (uint64_t)1 << 31;
  return (uint64_t)h->g->nv < lim && (uint64_t)h->c->nv < lim && h->c->next_vertex_id >= 0 &&
         (uint64_t)h->c->next_vertex_id < lim;
}

/* Queue target x with tuple key. */
static int qset(hs *h, const long *key, size_t x) {
  return h->pk ? pk_set(&h->pq, pack(key), x) : ade__ipq_set(&h->q, key, x);
}

/* Heap index of a target: the vertex; 2 slot + direction (edges); the
 * dual edge's slot (faces). 0 if x names no target now. */
static int cand_of(const hs *h, size_t x, cand *k) {
  const ade_cgraph *c = h->c;
  memset(k, 0, sizeof *k);
  if (h->kind == ADE_SEQ_VERTEX) {
    k->x = x;
    return x < c->nv && c->v[x].alive && c->v[x].kind == ADE__Z;
  }
  size_t e = h->kind == ADE_SEQ_EDGE ? x / 2 : x;
  if (e >= c->eslots || c->e[e].src == ADE__NONE) return 0;
  const ade__edge *y = &c->e[e];
  if (h->kind == ADE_SEQ_EDGE) {
    k->x = e, k->dir = (int)(x % 2);
    return c->v[k->dir == ADE_FRONT ? y->dst : y->src].kind == ADE__Z;
  }
  k->x = y->src, k->y = y->dst;
  return c->v[y->src].kind == ADE__Z && c->v[y->dst].kind == ADE__Z;
}

/* Edges: one entry per edge e, whose tuple is the lesser of its two
 * directions' (kd; all LONG_MAX where a direction is no target): half the
 * heap, and an eliminated edge leaves no twin to delete. Set target x =
 * 2 e + dir's tuple (NULL: it is no target). A new edge in a reused slot
 * sets the directions that are targets (refresh); a direction that is
 * none may keep an old edge's tuple, which only makes the entry lower:
 * at the top it is found to be no target and dropped (qtop). */
static int edge_kd(hs *h, size_t n);

/* The edge hierarchy's default tuple (|S_j| or |P_i|, -rank j, -rank i,
 * -dir) packed into 128 bits in the same order (ranks and degrees below
 * 2^31: epack_fits): the cost over R - rank j in the high word, R - rank
 * i over 1 - dir in the low one. No target: PK_NONE, above every tuple. */
#define EPK_R (((int64_t)1 << 31) - 1)
static const ade__pk PK_NONE = {UINT64_MAX, UINT64_MAX};

static ade__pk epack(const long *key) {
  ade__pk p = {(uint64_t)key[0] << 32 | (uint64_t)(EPK_R + key[1]), (uint64_t)(EPK_R + key[2]) << 32 | (uint64_t)(1 + key[3])};
  return p;
}

static int pk_eq(ade__pk a, ade__pk b) { return a.hi == b.hi && a.lo == b.lo; }

/* Room in kp for targets below n, the new ones without a tuple. */
static int edge_kp(hs *h, size_t n) {
  size_t old = h->kpcap;
  if (n <= old) return ADE_OK;
  if (!old) { /* the start: the slots and an eighth more, not the next power of two (fewer fresh pages) */
    size_t cap = n + n / 8 + 16;
    if (!(h->kp = ade__alloc(ade__mul_size(cap, sizeof *h->kp))))
      return ade__fail(ADE_ENOMEM, "out of memory for the tuples of %zu edges", n / 2);
    h->kpcap = cap;
  } else if (ade__grow((void **)&h->kp, &h->kpcap, n, sizeof *h->kp)) {
    return ade__fail(ADE_ENOMEM, "out of memory for the tuples of %zu edges", n / 2);
  }
  for (size_t i = old; i < h->kpcap; i++) h->kp[i] = PK_NONE;
  return ADE_OK;
}

/* Target x = 2 e + dir's packed tuple straight from the graph (epack of
 * gkey_edge's default tuple); PK_NONE if x is no target (cand_of). */
static ade__pk edge_pk(const hs *h, size_t x) {
  const ade_cgraph *c = h->c;
  size_t e = x / 2;
  int dir = (int)(x % 2);
  if (e >= c->eslots || c->e[e].src == ADE__NONE) return PK_NONE;
  const ade__edge *y = &c->e[e];
  if (c->v[dir == ADE_FRONT ? y->dst : y->src].kind != ADE__Z) return PK_NONE;
  uint64_t cost = dir == ADE_FRONT ? c->v[y->dst].nout : c->v[y->src].nin;
  ade__pk p = {cost << 32 | (uint64_t)(EPK_R - (int64_t)h->rank[y->dst]),
               (uint64_t)(EPK_R - (int64_t)h->rank[y->src]) << 32 | (uint64_t)(1 - dir)};
  return p;
}

/* The edge hierarchy's packed queue is two parts: the start's entries,
 * sorted once (the run, edge_start), and the heap pq of the entries set
 * since. An entry set to a new tuple leaves the run for the heap, a
 * deleted one is marked gone; the least entry is the lesser of the run's
 * first and the heap's top. The heap then holds only what the steps
 * touched (on the PDE tape at most 197 entries at a time, against
 * 300,000), so its operations go 4 levels deep instead of 9; the choices
 * are the same (an exact priority queue of the same entries, their
 * tuples unique). */
static inline void run_drop(hs *h, size_t x) {
  if (x < h->ratcap && h->rat[x] != SIZE_MAX) h->run[h->rat[x]].x = SIZE_MAX, h->rat[x] = SIZE_MAX;
}

static inline int rq_set(hs *h, ade__pk k, size_t x) {
  if (x < h->ratcap && h->rat[x] != SIZE_MAX) {
    if (pk_eq(h->run[h->rat[x]].k, k)) return ADE_OK;
    run_drop(h, x);
  }
  return pk_set(&h->pq, k, x);
}

static inline void rq_del(hs *h, size_t x) {
  run_drop(h, x);
  pkq_del(&h->pq, x);
}

/* The least entry (left queued); 0: none. */
static inline int rq_top(hs *h, size_t *x, ade__pk *k) {
  while (h->rcur < h->nrun && h->run[h->rcur].x == SIZE_MAX) h->rcur++;
  const ade__pkent *r = h->rcur < h->nrun ? &h->run[h->rcur] : NULL, *q = h->pq.n ? &h->pq.a[0] : NULL;
  if (!r || (q && pk_lt(q->k, r->k))) r = q;
  if (!r) return 0;
  *x = r->x, *k = r->k;
  return 1;
}

/* Stable counting sort of a[0..n) into b by digit(pass) in [0, nd)
 * (c: room for nd + 1 counts): the edges' rank i, rank j (both
 * descending, below nr) and cost. */
static inline __attribute__((always_inline)) void count_sort(const ade__pkent *a, ade__pkent *b, size_t n, size_t nd,
                                                             size_t nr, int pass, size_t *c) {
  memset(c, 0, (nd + 1) * sizeof *c);
#define DIGIT(k)                                                                                   \
  (pass == 0   ? nr - 1 - (size_t)(EPK_R - (int64_t)((k).lo >> 32))                                \
   : pass == 1 ? nr - 1 - (size_t)(EPK_R - (int64_t)(uint32_t)(k).hi)                              \
               : (size_t)((k).hi >> 32))
  for (size_t i = 0; i < n; i++) c[DIGIT(a[i].k) + 1]++;
  for (size_t d = 1; d <= nd; d++) c[d] += c[d - 1];
  for (size_t i = 0; i < n; i++) b[c[DIGIT(a[i].k)]++] = a[i];
#undef DIGIT
}

/* 0: the edge hierarchy's packed queue without the run (the heap alone,
 * as before it); -1: sorted, then handed to the heap as if the order
 * check had failed. check_hier compares all three. */
int ade__hier_run = 1;

/* The run from b[0..k), sorted, for targets below nx (b is taken), if it
 * is strictly ascending (*ok; else b stays). */
static int run_take(hs *h, ade__pkent **b, size_t k, size_t nx, int *ok) {
  const ade__pkent *r = *b;
  for (size_t i = 1; *ok && i < k; i++) *ok = pk_lt(r[i - 1].k, r[i].k);
  if (ade__hier_run < 0) *ok = 0; /* tests: as if the check failed */
  if (!*ok) return ADE_OK;
  if (!(h->rat = ade__alloc((nx + 1) * sizeof *h->rat))) return ade__fail(ADE_ENOMEM, "out of memory for %zu targets", nx);
  for (size_t i = 0; i <= nx; i++) h->rat[i] = SIZE_MAX;
  for (size_t i = 0; i < k; i++) h->rat[r[i].x] = i;
  h->run = *b, h->nrun = k, h->ratcap = nx + 1, *b = NULL;
  return ADE_OK;
}

/* The edge hierarchy's start with packed tuples: each edge's two
 * directions' tuples, and one entry per edge with the lesser, in the
 * order of the tie-breaker (rev: slots descending). Sorted by their
 * tuples (cost, R - rank j, R - rank i: three stable counting sorts,
 * ranks below g's nv) into the run; if they are not then strictly
 * ascending (parallel edges) or the costs are too spread for a count,
 * appended to the heap as they came and heapified instead. */
static int edge_start(hs *h, size_t n, int rev) {
  size_t ne = n / 2, k = 0, nr = h->g->nv;
  uint64_t maxc = 0;
  ade__pkent *a = ade__alloc((ne + 1) * sizeof *a), *b = ade__alloc((ne + 1) * sizeof *b);
  int st = a && b ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for the tuples of %zu edges", ne);
  for (size_t i = 0; !st && i < ne; i++) {
    size_t e = rev ? ne - 1 - i : i;
    ade__pk f = h->kp[2 * e] = edge_pk(h, 2 * e), g = h->kp[2 * e + 1] = edge_pk(h, 2 * e + 1);
    ade__pk m = pk_lt(g, f) ? g : f;
    if (m.hi == UINT64_MAX) continue;
    a[k++] = (ade__pkent){m, e};
    if (m.hi >> 32 > maxc) maxc = m.hi >> 32;
  }
  int sorted = !st && ade__hier_run && maxc <= ne + nr;
  size_t *c = sorted ? ade__alloc((ADE__MAX(nr, (size_t)maxc + 1) + 1) * sizeof *c) : NULL; /* the counts, reused */
  if (sorted && !c) st = ade__fail(ADE_ENOMEM, "out of memory for sorting %zu edges", k);
  if (sorted && !st) {
    count_sort(a, b, k, nr, nr, 0, c);
    count_sort(b, a, k, nr, nr, 1, c);
    count_sort(a, b, k, (size_t)maxc + 1, nr, 2, c);
  }
  ade__free(c);
  if (!st && sorted) st = run_take(h, &b, k, ne, &sorted);
  if (!st && !sorted) { /* as they came (a still holds that order when the sort did not run) */
    if (ade__hier_run && maxc <= ne + nr) /* sorted: a holds the second pass's order; redo from the slots */
      for (size_t i = 0, j = 0; i < ne; i++) {
        size_t e = rev ? ne - 1 - i : i;
        ade__pk f = h->kp[2 * e], g = h->kp[2 * e + 1], m = pk_lt(g, f) ? g : f;
        if (m.hi != UINT64_MAX) a[j++] = (ade__pkent){m, e};
      }
    for (size_t i = 0; !st && i < k; i++) st = pk_append(&h->pq, a[i].k, a[i].x);
    if (!st) pkq_heapify(&h->pq);
  }
  ade__free(a);
  ade__free(b);
  return st;
}

/* edge_set with packed tuples (PK_NONE: x is no target). */
static int edge_setp(hs *h, size_t x, ade__pk key) {
  size_t e = x / 2;
  int st = x + 2 <= h->kpcap ? ADE_OK : edge_kp(h, x + 2);
  if (st) return st;
  h->kp[x] = key;
  ade__pk m = pk_lt(h->kp[2 * e + 1], h->kp[2 * e]) ? h->kp[2 * e + 1] : h->kp[2 * e];
  if (m.hi == UINT64_MAX) {
    rq_del(h, e);
    return ADE_OK;
  }
  return rq_set(h, m, e);
}

/* A new edge e (in a slot maybe reused): both directions' packed tuples
 * set at once, a direction that is no target cleared, and one entry with
 * the lesser (none if neither is a target). */
static int edge_both(hs *h, size_t e) {
  int st = 2 * e + 2 <= h->kpcap ? ADE_OK : edge_kp(h, 2 * e + 2);
  if (st) return st;
  ade__pk f = h->kp[2 * e] = edge_pk(h, 2 * e), b = h->kp[2 * e + 1] = edge_pk(h, 2 * e + 1);
  ade__pk m = pk_lt(b, f) ? b : f;
  if (m.hi == UINT64_MAX) {
    rq_del(h, e);
    return ADE_OK;
  }
  return rq_set(h, m, e);
}

static int edge_set(hs *h, size_t x, const long *key) {
  if (h->pk) return edge_setp(h, x, key ? epack(key) : PK_NONE);
  size_t e = x / 2;
  int st = edge_kd(h, x + 2);
  if (st) return st;
  for (int w = 0; w < ADE__PQ_KEYS; w++) h->kd[x][w] = key ? key[w] : LONG_MAX;
  const long *m = ade__pq_less(h->kd[2 * e + 1], h->kd[2 * e]) ? h->kd[2 * e + 1] : h->kd[2 * e];
  if (m[0] == LONG_MAX) {
    ade__ipq_del(&h->q, e);
    return ADE_OK;
  }
  return ade__ipq_set(&h->q, m, e);
}

/* At the start: edge e's entry from both directions' tuples at once
 * (kd has room: edge_kd). */
static int edge_init(hs *h, size_t e) {
  cand k; /* with pk: edge_start */
  for (int dir = 0; dir < 2; dir++) {
    long *key = h->kd[2 * e + (size_t)dir];
    if (cand_of(h, 2 * e + (size_t)dir, &k)) gkey(h, &k, key);
  }
  const long *m = ade__pq_less(h->kd[2 * e + 1], h->kd[2 * e]) ? h->kd[2 * e + 1] : h->kd[2 * e];
  return m[0] == LONG_MAX ? ADE_OK : ade__ipq_set(&h->q, m, e);
}

/* Room in kd for targets below n, the new ones without a tuple. */
static int edge_kd(hs *h, size_t n) {
  size_t old = h->kdcap;
  if (n <= old) return ADE_OK;
  if (ade__grow((void **)&h->kd, &h->kdcap, n, sizeof *h->kd))
    return ade__fail(ADE_ENOMEM, "out of memory for the tuples of %zu edges", n / 2);
  for (size_t i = old; i < h->kdcap; i++)
    for (int w = 0; w < ADE__PQ_KEYS; w++) h->kd[i][w] = LONG_MAX;
  return ADE_OK;
}

/* Queue x with its current tuple (one entry per target, set in place; a
 * tuple that went up without being set again is put right when it
 * reaches the top). */
static int qpush_key(hs *h, const long *key, size_t x) {
  return h->kind == ADE_SEQ_EDGE ? edge_set(h, x, key) : qset(h, key, x);
}

static int qpush(hs *h, size_t x) {
  cand k;
  if (h->pk && h->kind == ADE_SEQ_EDGE) {
    ade__pk p = edge_pk(h, x);
    return p.hi == UINT64_MAX ? ADE_OK : edge_setp(h, x, p);
  }
  long key[ADE__PQ_KEYS];
  if (!cand_of(h, x, &k)) return ADE_OK;
  gkey(h, &k, key);
  return qpush_key(h, key, x);
}

/* The edges of v whose tuples read v's lists: front (a, v) and back (v,
 * b) by |S_v| and |P_v| (Markowitz); with fillin every edge at v. */
static int qpush_edges(hs *h, size_t v) {
  const ade__vtx *V = &h->c->v[v];
  int st = ADE_OK;
  /* Without fillin, only an intermediate's edges are such targets: an
   * independent's fan-out (a dependent's fan-in) is not walked. */
  if (!h->fill && V->kind != ADE__Z) return ADE_OK;
  for (size_t a = 0; !st && a < V->nin; a++) {
    st = qpush(h, 2 * V->in[a] + ADE_FRONT);
    if (!st && h->fill) st = qpush(h, 2 * V->in[a] + ADE_BACK);
  }
  for (size_t b = 0; !st && b < V->nout; b++) {
    st = qpush(h, 2 * V->out[b] + ADE_BACK);
    if (!st && h->fill) st = qpush(h, 2 * V->out[b] + ADE_FRONT);
  }
  return st;
}

/* The least tuple T* (key) and its target (*x), left queued. Stale
 * entries go back with their current tuple: every target keeps an entry
 * no greater than its tuple (a tuple that may have dropped is pushed
 * after each step), so a current top is the least of all. 0: none left. */
static int qtop(hs *h, size_t *x, long *key, int *st) {
  cand k;
  long kb[ADE__PQ_KEYS];
  int want = key != NULL; /* T* asked for (edges: only then computed) */
  if (!key) key = kb;
  size_t te;
  ade__pk top;
  while (h->pk && h->kind == ADE_SEQ_EDGE && !*st && rq_top(h, &te, &top)) {
    size_t t = 2 * te + (size_t)!pk_eq(top, h->kp[2 * te]); /* the direction whose tuple the entry holds */
    ade__pk p = edge_pk(h, t);
    if (p.hi == UINT64_MAX) {
      if (h->c->e[t / 2].src != ADE__NONE) *st = edge_setp(h, t, PK_NONE);
      else rq_del(h, t / 2); /* a dead edge: both directions */
      continue;
    }
    if (pk_eq(p, top)) {
      if (want) cand_of(h, t, &k), gkey(h, &k, key); /* T* for the history filters */
      *x = t;
      return 1;
    }
    *st = edge_setp(h, t, p);
  }
  while (h->pk && h->kind == ADE_SEQ_FACE && !*st && h->pq.n) {
    size_t t = h->pq.a[0].x;
    top = h->pq.a[0].k;
    if (!cand_of(h, t, &k)) {
      pkq_del(&h->pq, t);
      continue;
    }
    /* An entry is no greater than its target's tuple: one queued as not
     * absorbing does not absorb now (absorbing would be less), so only an
     * entry queued as absorbing needs the twin search. */
    int absorb = !(top.hi >> 63) && ade__dual_twin(h->c, k.x, k.y, ADE__NONE) != ADE__NONE;
    gkey_face_ab(h, k.x, k.y, absorb, key);
    ade__pk p = pack(key);
    if (pk_eq(p, top)) {
      *x = t;
      return 1;
    }
    *st = pk_set(&h->pq, p, t);
  }
  while (!*st && h->q.n) {
    size_t t = h->q.a[0].x;
    if (h->kind == ADE_SEQ_EDGE) /* the direction whose tuple the entry holds */
      t = 2 * t + (size_t)!!memcmp(h->q.a[0].k, h->kd[2 * t], sizeof h->q.a[0].k);
    int live = cand_of(h, t, &k);
    if (!live) {
      if (h->kind == ADE_SEQ_EDGE && h->c->e[t / 2].src != ADE__NONE) *st = edge_set(h, t, NULL);
      else ade__ipq_del(&h->q, h->kind == ADE_SEQ_EDGE ? t / 2 : t); /* a dead edge: both directions */
      continue;
    }
    gkey(h, &k, key);
    if (!memcmp(key, h->q.a[0].k, sizeof h->q.a[0].k)) {
      *x = t;
      return 1;
    }
    *st = qpush_key(h, key, t);
  }
  return 0;
}

static int add_near(hs *h, const cand *k, const long *tkey, int pre) {
  long key[ADE__PQ_KEYS];
  if (pre) gkey(h, k, key);
  return pre && memcmp(key, tkey, (size_t)pre * sizeof *key) ? ADE_OK : add_cand(h, k->x, k->y, k->dir);
}

/* Edges, sibling: a front (p, x) has a positive sibling degree only if p
 * is in P- and x has a successor in S-, a back (x, s) only if s is in S-
 * and x a predecessor in P-. Listing the fronts out of P- (the backs into
 * S-) walks the out-lists of P- (the in-lists of S-): an independent's
 * growing fan-out (a dependent's fan-in) at every step. Whether to list
 * them from the other side instead, the pairs (p, x) for x a predecessor
 * of S- (the pairs (x, s) for x a successor of P-), each looked up: when
 * that walks fewer edges. One of P- and S- has one vertex (an edge step's
 * P- is {i} or its S- {j}). The targets of degree 0 that this leaves out
 * change nothing: the filter keeps the highest degree if positive, else
 * everyone. */
static size_t list_degrees(const ade_cgraph *c, const ade__ix *l, int in) {
  size_t n = 0;
  for (size_t k = 0; k < l->n; k++)
    if (c->v[l->a[k]].alive) n += in ? c->v[l->a[k]].nin : c->v[l->a[k]].nout;
  return n;
}

static int near_by_pairs(const hs *h, int side) {
  const ade__ix *own = side ? &h->sl : &h->pl, *other = side ? &h->pl : &h->sl;
  if (own->n != 1 && other->n != 1) return 0;
  size_t direct = list_degrees(h->c, own, side), across = list_degrees(h->c, other, !side);
  return 2 * across * own->n < direct;
}

static __attribute__((noinline)) int near_edges_by_pairs(hs *h, int side, const long *tkey, int pre) {
  const ade_cgraph *c = h->c;
  const ade__ix *own = side ? &h->sl : &h->pl, *other = side ? &h->pl : &h->sl;
  int st = ADE_OK;
  if (++h->vstamp == 0) memset(h->vm, 0, (c->nv + 1) * sizeof *h->vm), h->vstamp = 1;
  for (size_t k = 0; !st && k < other->n; k++) {
    const ade__vtx *o = &c->v[other->a[k]];
    if (!o->alive) continue;
    /* side 0: x in P_s for s in S-, fronts (p, x); side 1: x in S_p for
     * p in P-, backs (x, s) */
    for (size_t a = 0; !st && a < (side ? o->nout : o->nin); a++) {
      size_t x = side ? c->e[o->out[a]].dst : c->e[o->in[a]].src;
      if (!c->v[x].alive || c->v[x].kind != ADE__Z) continue;
      if (own->n == 1 && h->vm[x] == h->vstamp) continue; /* found from another vertex of the other side */
      if (own->n == 1) h->vm[x] = h->vstamp;
      for (size_t b = 0; !st && b < own->n; b++) {
        size_t e = side ? ade__graph_find(c, x, own->a[b]) : ade__graph_find(c, own->a[b], x);
        cand t = {e, 0, side ? ADE_BACK : ADE_FRONT, {0, 0, 0}};
        if (e != ADE__NONE) st = add_near(h, &t, tkey, pre);
      }
    }
  }
  return st;
}

/* The targets near the last elimination among the implicit survivors
 * (tuple prefix pre equal to T*'s): for sibling those that may have a
 * positive sibling degree (vertices: a successor in S-, found from S-;
 * edges: front (i, j) with i in P-, back (i, j) with j in S-), for
 * succpred the targets in P- and S-. Into h->cv, each once. */
static int near_targets(hs *h, int f, const long *tkey, int pre) {
  const ade_cgraph *c = h->c;
  int st = ADE_OK, bp[2] = {0, 0}; /* edges: each side listed by pairs (decided once) */
  h->nc = 0;
  if (++h->vstamp == 0) memset(h->vm, 0, (c->nv + 1) * sizeof *h->vm), h->vstamp = 1;
  for (int side = 0; side < 2; side++) {
    const ade__ix *l = side ? &h->sl : &h->pl;
    if (h->kind == ADE_SEQ_EDGE && (bp[side] = near_by_pairs(h, side))) continue; /* listed below */
    for (size_t k = 0; !st && k < l->n; k++) {
      const ade__vtx *v = &c->v[l->a[k]];
      if (!v->alive) continue;
      if (h->kind == ADE_SEQ_EDGE) { /* f is sibling */
        for (size_t a = 0; !st && a < (side ? v->nin : v->nout); a++) {
          size_t e = side ? v->in[a] : v->out[a];
          cand x = {e, 0, side ? ADE_BACK : ADE_FRONT, {0, 0, 0}};
          if (c->v[side ? c->e[e].src : c->e[e].dst].kind == ADE__Z) st = add_near(h, &x, tkey, pre);
        }
        continue;
      }
      size_t nu = f == F_SUCCPRED ? 1 : side ? v->nin : 0;
      for (size_t a = 0; !st && a < nu; a++) {
        size_t u = f == F_SUCCPRED ? l->a[k] : c->e[v->in[a]].src;
        cand x = {u, 0, 0, {0, 0, 0}};
        if (h->vm[u] == h->vstamp || !c->v[u].alive || c->v[u].kind != ADE__Z) continue;
        h->vm[u] = h->vstamp;
        st = add_near(h, &x, tkey, pre);
      }
    }
  }
  for (int side = 0; !st && side < 2; side++)
    if (bp[side]) st = near_edges_by_pairs(h, side, tkey, pre);
  return st;
}

/* The target the filters choose, into *k (0: none left). T* is looked
 * up only when needed: for a history filter behind a global one, or when
 * no history filter narrowed (so a chain that starts with sibling often
 * needs no heap operation at all). */
static int choose(hs *h, const int *f, int nf, cand *k, size_t *top, int *st) {
  long tkey[ADE__PQ_KEYS];
  int implicit = 1, have_top = 0;
  for (int i = 0; !*st && i < nf && (implicit || h->nc > 1); i++) {
    if (implicit && (is_global(f[i]) || !h->have_last)) continue;
    if (implicit) {
      if (h->pre[i] && !have_top && !(have_top = qtop(h, top, tkey, st))) return 0;
      if ((*st = near_targets(h, f[i], tkey, h->pre[i])) || !h->nc) continue;
      set_keys(h, f[i]);
      int narrows = 0;
      for (size_t c = 0; c < h->nc; c++) narrows |= f[i] == F_SIBLING ? h->cv[c].key[0] < 0 : h->cv[c].key[0] == 0;
      if (!narrows) continue;
      implicit = 0;
    } else {
      set_keys(h, f[i]);
    }
    keep_least(h);
  }
  if (*st) return 0;
  if (!implicit) {
    *k = h->cv[0];
    return 1;
  }
  return (have_top || qtop(h, top, NULL, st)) && cand_of(h, *top, k);
}

/* Room for n more vertices in dv (and their degrees in dg). */
static int reserve_dv(hs *h, size_t n) {
  if (h->dv.n + n <= h->dv.cap && h->dg.n + 2 * n <= h->dg.cap) return ADE_OK;
  if (ade__grow((void **)&h->dv.a, &h->dv.cap, h->dv.n + n, sizeof *h->dv.a) ||
      ade__grow((void **)&h->dg.a, &h->dg.cap, h->dg.n + 2 * n, sizeof *h->dg.a))
    return ade__fail(ADE_ENOMEM, "out of memory for the %zu vertices a step changes", h->dv.n + n);
  return ADE_OK;
}

/* v into dv, once per step (room reserved). */
static void mark_v(hs *h, size_t v) {
  if (h->vm[v] == h->vstamp) return;
  h->vm[v] = h->vstamp;
  h->dv.a[h->dv.n++] = v;
  h->dg.a[h->dg.n++] = h->c->v[v].nin;
  h->dg.a[h->dg.n++] = h->c->v[v].nout;
}

/* v, P_v (if in) and S_v (if out) into dv, and the one vertex more
 * (ADE__NONE: none). */
static int mark_adjacent(hs *h, size_t v, size_t more, int in, int out) {
  const ade__vtx *V = &h->c->v[v];
  int st = reserve_dv(h, 2 + (in ? V->nin : 0) + (out ? V->nout : 0));
  if (st) return st;
  mark_v(h, v);
  for (size_t a = 0; in && a < V->nin; a++) mark_v(h, h->c->e[V->in[a]].src);
  for (size_t b = 0; out && b < V->nout; b++) mark_v(h, h->c->e[V->out[b]].dst);
  if (more != ADE__NONE) mark_v(h, more);
  return ADE_OK;
}

/* Before the step on vertices or edges: the vertices whose in- or
 * out-list it can change (dv, with their degrees in dg), and the pairs
 * (u, w) it can join (fill-in keys read which edges exist; edges: the new
 * edges). Vertex v: v, P_v, S_v; pairs P_v x S_v.
 * Front (i, j): i, j, S_j, and P_j in case j goes; pairs {i} x S_j. Back
 * (i, j): i, j, P_i, and S_i in case i goes; pairs P_i x {j}. */
static int delta(hs *h, const cand *k) {
  const ade_cgraph *c = h->c;
  int st;
  h->dv.n = h->dg.n = h->pairs.n = 0;
  h->id0 = c->next_edge_id;
  if (++h->vstamp == 0) memset(h->vm, 0, (c->nv + 1) * sizeof *h->vm), h->vstamp = 1;
  if (h->kind == ADE_SEQ_VERTEX) {
    const ade__vtx *v = &c->v[k->x];
    st = mark_adjacent(h, k->x, ADE__NONE, 1, 1);
    for (size_t a = 0; !st && h->fill && a < v->nin; a++)
      for (size_t b = 0; !st && b < v->nout; b++) {
        st = ade__ix_push(&h->pairs, c->e[v->in[a]].src);
        if (!st) st = ade__ix_push(&h->pairs, c->e[v->out[b]].dst);
      }
    return st;
  }
  size_t i = c->e[k->x].src, j = c->e[k->x].dst, w = k->dir == ADE_FRONT ? j : i;
  const ade__vtx *W = &c->v[w];
  /* Without fillin only degrees are read (refresh_sizes): front (i, j)
   * changes those of i, j and S_j, and of P_j only if j goes, which needs
   * P_j = {i} or S_j empty; back (i, j) those of i, j and P_i, and of S_i
   * only if i goes: S_i = {j} or P_i empty. */
  int front = k->dir == ADE_FRONT, all = h->fill;
  st = mark_adjacent(h, w, front ? i : j, !front || all || !W->nout, front || all || !W->nin);
  for (size_t a = 0; !st && a < (k->dir == ADE_FRONT ? W->nout : W->nin); a++) {
    st = ade__ix_push(&h->pairs, k->dir == ADE_FRONT ? i : c->e[W->in[a]].src);
    if (!st) st = ade__ix_push(&h->pairs, k->dir == ADE_FRONT ? c->e[W->out[a]].dst : j);
  }
  return st;
}

/* Pair (u, w) joined: the targets through a triangle u -> p -> w, whose
 * fill-in counts the edge (vertices: p; edges: front (u, p), back (p,
 * w)). The shorter of S_u and P_w is walked. */
static int triangles(hs *h, size_t u, size_t w) {
  const ade_cgraph *c = h->c;
  int st = ADE_OK;
  for (size_t k = 0, n = ade__tri_len(c, u, w); !st && k < n; k++) {
    size_t p, e1, e2;
    if (!ade__tri_at(c, u, w, k, &p, &e1, &e2)) continue;
    if (h->kind == ADE_SEQ_VERTEX) {
      st = qpush(h, p);
      continue;
    }
    st = qpush(h, 2 * e1 + ADE_FRONT);
    if (!st) st = qpush(h, 2 * e2 + ADE_BACK);
  }
  return st;
}

/* Edges without fillin: a tuple reads only |S_v| (front (a, v)) or |P_v|
 * (back (v, b)) besides the ranks, so the fronts into a vertex whose
 * out-degree changed and the backs out of one whose in-degree changed,
 * and both directions of a new edge, are all the targets whose tuple
 * changed (setting only those that dropped, and finding a rise at the
 * top, measured no cheaper on the PDE tape). */
static int refresh_sizes(hs *h) {
  const ade_cgraph *c = h->c;
  int st = ADE_OK;
  for (size_t k = 0; !st && k < h->dv.n; k++) {
    const ade__vtx *V = &c->v[h->dv.a[k]];
    if (!V->alive || V->kind != ADE__Z) continue;
    for (size_t a = 0; !st && V->nout != h->dg.a[2 * k + 1] && a < V->nin; a++) st = qpush(h, 2 * V->in[a] + ADE_FRONT);
    for (size_t b = 0; !st && V->nin != h->dg.a[2 * k] && b < V->nout; b++) st = qpush(h, 2 * V->out[b] + ADE_BACK);
  }
  for (size_t k = 0; !st && k < h->pairs.n; k += 2) {
    size_t e = ade__graph_find(c, h->pairs.a[k], h->pairs.a[k + 1]);
    if (e == ADE__NONE || c->e[e].id < h->id0) continue; /* absorbed: no edge came */
    if (h->pk) { /* both directions at once, one heap setting */
      st = edge_both(h, e);
      continue;
    }
    st = qpush(h, 2 * e + ADE_FRONT);
    if (!st) st = qpush(h, 2 * e + ADE_BACK);
  }
  return st;
}

/* After the step: fresh tuples for every target whose tuple can have
 * changed: (vertices) those in dv, (edges) those on an edge of a vertex
 * in dv, and with fillin the triangles of the pairs. */
static int refresh(hs *h) {
  int st = ADE_OK;
  if (h->kind == ADE_SEQ_EDGE && !h->fill) return refresh_sizes(h);
  for (size_t k = 0; !st && k < h->dv.n; k++) {
    size_t v = h->dv.a[k];
    const ade__vtx *V = &h->c->v[v];
    if (!V->alive) continue;
    /* without fillin a vertex's tuple reads |P_v| |S_v| alone: only a
     * drop needs it set (a rise is found at the top) */
    if (h->kind == ADE_SEQ_VERTEX && !h->fill && V->nin * V->nout >= h->dg.a[2 * k] * h->dg.a[2 * k + 1]) continue;
    st = h->kind == ADE_SEQ_VERTEX ? qpush(h, v) : qpush_edges(h, v);
  }
  for (size_t k = 0; !st && k < h->pairs.n; k += 2) st = triangles(h, h->pairs.a[k], h->pairs.a[k + 1]);
  return st;
}

static int push_adjacent(const ade_cgraph *d, size_t v, int in, int out, ade__ix *l) {
  const ade__vtx *V = &d->v[v];
  size_t n = (in ? V->nin : 0) + (out ? V->nout : 0);
  if (l->n + n > l->cap && ade__grow((void **)&l->a, &l->cap, l->n + n, sizeof *l->a))
    return ade__fail(ADE_ENOMEM, "out of memory for the %zu vertices a step changes", l->n + n);
  size_t *w = l->a + l->n;
  const ade__edge *e = d->e;
  for (size_t a = 0; in && a < V->nin; a++) *w++ = e[V->in[a]].src;
  for (size_t b = 0; out && b < V->nout; b++) *w++ = e[V->out[b]].dst;
  l->n += n;
  return ADE_OK;
}

/* The count of the bound (ade__faced's rest) kept by the step itself: fc
 * holds the intermediate faces through each c-graph vertex (by rank), so
 * no dual index. A face (x, y) passes through ctgt(x) = csrc(y); at a
 * vertex of Z all of A_j and B_j are intermediate, and P_a (S_b) is all
 * intermediate or one X (Y) vertex (then its vertex is not counted).
 * Step (a, b) through j: (a, b) goes; a fill-in k adds |P_a| faces
 * through csrc(a) and |S_b| through ctgt(b); an isolated a takes its
 * |P_a| in-faces and |S_a| - 1 out-faces with it, an isolated b its
 * |P_b| - 1 and |S_b|. A merge (a twin deleted with its faces) ends the
 * count: the bound goes back to ade__faced, built then. */
static void face_count_before(hs *h, size_t a, size_t b) {
  const ade_cgraph *d = h->c;
  const ade__vtx *A = &d->v[a], *B = &d->v[b];
  size_t p = A->nin ? d->e[A->in[0]].src : ADE__NONE, q = B->nout ? d->e[B->out[0]].dst : ADE__NONE;
  h->fr[0] = jrank(h, a);
  h->fr[1] = p != ADE__NONE && d->v[p].kind == ADE__Z ? jrank(h, p) : SIZE_MAX;
  h->fr[2] = q != ADE__NONE && d->v[q].kind == ADE__Z ? jrank(h, b) : SIZE_MAX;
  h->fn[0] = A->nin, h->fn[1] = A->nout, h->fn[2] = B->nin, h->fn[3] = B->nout;
}

/* fc and frest for the dual fresh from g: every pair of an in- and an
 * out-edge of a vertex of Z is a face through it. */
static __attribute__((noinline)) int face_count_init(hs *h) {
  const ade_cgraph *g = h->g;
  if (!(h->fc = ade__calloc(g->nv + 1, sizeof *h->fc))) return ade__fail(ADE_ENOMEM, "out of memory for a hierarchy");
  for (size_t j = 0; j < g->nv; j++)
    if (g->v[j].alive && g->v[j].kind == ADE__Z && g->v[j].nin && g->v[j].nout)
      h->fc[h->rank[j]] = (uint64_t)g->v[j].nin * g->v[j].nout, h->frest++;
  return ADE_OK;
}

/* fc[r] += by (or -= -by); 0 if it would go below 0 (the count is off). */
static int fc_add(hs *h, size_t r, int64_t by) {
  uint64_t was = h->fc[r];
  if (by < 0 && was < (uint64_t)-by) return 0;
  h->fc[r] = was + (uint64_t)by;
  h->frest += (h->fc[r] > 0) - (was > 0);
  return 1;
}

/* After the step: the counts moved (fill-in: h->fill0; merged0), or the
 * count ended (fc freed) on a merge. */
static void face_count_after(hs *h, size_t a, size_t b) {
  const ade_cgraph *d = h->c;
  int ok = d->merged == h->merged0, fill = d->fill != h->fill0;
  int64_t pa = (int64_t)h->fn[0], sa = (int64_t)h->fn[1], pb = (int64_t)h->fn[2], sb = (int64_t)h->fn[3];
  size_t rj = h->fr[0], ri = h->fr[1], rl = h->fr[2];
  if (ok) ok = fc_add(h, rj, -1);
  if (ok && fill && ri != SIZE_MAX) ok = fc_add(h, ri, pa);
  if (ok && fill && rl != SIZE_MAX) ok = fc_add(h, rl, sb);
  if (ok && !d->v[a].alive) {
    if (ri != SIZE_MAX) ok = fc_add(h, ri, -pa);
    if (ok) ok = fc_add(h, rj, 1 - sa);
  }
  if (ok && !d->v[b].alive) {
    ok = fc_add(h, rj, 1 - pb);
    if (ok && rl != SIZE_MAX) ok = fc_add(h, rl, -sb);
  }
  if (!ok) ade__free(h->fc), h->fc = NULL;
}

/* Before face step (a, b) (Rule 1): the in-lists of b, S_a and S_b and
 * the out-lists of a, P_a and P_b change (fill-in, isolation or merge).
 * fill: the step is known to fill in (its queued tuple, fresh at the top,
 * says it does not absorb): S_b and P_a are not needed (face_changed). */
static int face_delta(hs *h, const cand *k, int fill) {
  if (h->fc) face_count_before(h, k->x, k->y);
  h->in.n = h->out.n = 0;
  h->fa = k->x, h->fb = k->y, h->merged0 = h->c->merged, h->fill0 = h->c->fill;
  int st = ade__ix_push(&h->in, k->y);
  if (!st) st = ade__ix_push(&h->out, k->x);
  if (!st) st = push_adjacent(h->c, k->x, 0, 1, &h->in);
  h->seg[0] = h->in.n;
  if (!st && !fill) st = push_adjacent(h->c, k->y, 0, 1, &h->in);
  if (!st && !fill) st = push_adjacent(h->c, k->x, 1, 0, &h->out);
  h->seg[1] = h->out.n;
  if (!st) st = push_adjacent(h->c, k->y, 1, 0, &h->out);
  return st;
}

/* After the step, only the vertices whose lists lost a member: the
 * in-list of b and the out-list of a lost the face; S_a's in-lists and
 * P_a's out-lists lose a only if a went (isolated, or merged: a twin's
 * neighbours are a's), S_b's and P_b's b only if b went (conservatively,
 * after a merge all four). The fill-in vertex k joins the in-lists of
 * all of S_b (the out-lists of all of P_a) at once; that only raises
 * keys: |P_x| grows, and a twin w of face (x, y) after it (P_w = P_x,
 * S_w = S_y) has k in P_w iff x has, so x and w both gained k or
 * neither, and w was its twin before (two vertices of S_b with equal P
 * stay equal; a vertex of S_b and one outside no longer are). k itself
 * is listed on both sides (face_refresh), which finds the faces it
 * absorbs. With a fill-in, P_a is never listed, nor S_b: every x of P_a
 * gained k, and if a went (isolated, or merged: a or its twin, whose P
 * is P_a, deleted) lost the one that went, so S_x - r + k (or S_x + k),
 * the same size or more, and so did every vertex whose S held r or now
 * holds k (P_a is all of them, P_k = P_a); no other vertex has k. So a
 * face into x (|S_x|; absorbing: some t with P_t = P_w and S_t = S_x,
 * then t in P_a with S_t = S_x before) and a face that x absorbs (S_y =
 * S_x, y in P_a) absorbs after only if it did before: no tuple drops
 * (likewise S_b, P_y - r + k). Only an absorption (no k: x lost a, its
 * size dropped) lists them. */
static void face_changed(hs *h) {
  const ade_cgraph *d = h->c;
  int merged = d->merged != h->merged0, traded = d->fill != h->fill0;
  int ago = merged || !d->v[h->fa].alive, bgo = merged || !d->v[h->fb].alive;
  size_t n = 1;
  for (size_t k = 1; k < h->in.n; k++) /* b, S_a, S_b */
    if (k < h->seg[0] ? ago : bgo && !traded) h->in.a[n++] = h->in.a[k];
  h->in.n = n, n = 1;
  for (size_t k = 1; k < h->out.n; k++) /* a, P_a, P_b */
    if (k < h->seg[1] ? ago && !traded : bgo) h->out.a[n++] = h->out.a[k];
  h->out.n = n;
}

/* After it: a face's tuple drops only if it turns absorbing or |P_a| or
 * |S_b| drops, that is, if P_a or S_b changed or a vertex now has P_a
 * and S_b (as face_touched in elim/order.c); the faces at the changed
 * and new vertices and those these absorb get fresh tuples. */
/* Room in the junction ranks for every dual vertex. */
static int grow_jr(hs *h) {
  size_t old = h->jrcap;
  if (h->c->nv <= old) return ADE_OK;
  if (ade__grow((void **)&h->jr, &h->jrcap, h->c->nv, sizeof *h->jr))
    return ade__fail(ADE_ENOMEM, "out of memory for %zu junction ranks", h->c->nv);
  for (size_t i = old; i < h->jrcap; i++) h->jr[i] = SIZE_MAX;
  return ADE_OK;
}

/* Room in the marks on dual vertices (dm) and faces (fm) after a step;
 * the stamps restart at wrap-around. */
static int grow_marks(hs *h) {
  const ade_cgraph *d = h->c;
  if (d->nv > h->dmcap) {
    size_t old = h->dmcap;
    if (ade__grow((void **)&h->dm, &h->dmcap, d->nv, sizeof *h->dm))
      return ade__fail(ADE_ENOMEM, "out of memory for marks on %zu dual vertices", d->nv);
    memset(h->dm + old, 0, (h->dmcap - old) * sizeof *h->dm);
  }
  if (d->eslots > h->fmcap) {
    size_t old = h->fmcap;
    if (ade__grow((void **)&h->fm, &h->fmcap, d->eslots, sizeof *h->fm))
      return ade__fail(ADE_ENOMEM, "out of memory for marks on %zu faces", d->eslots);
    memset(h->fm + old, 0, (h->fmcap - old) * sizeof *h->fm);
  }
  if (h->dstamp >= UINT_MAX - 2) {
    memset(h->dm, 0, h->dmcap * sizeof *h->dm);
    memset(h->fm, 0, h->fmcap * sizeof *h->fm);
    h->dstamp = 0;
  }
  return ADE_OK;
}

/* Queue face e = (x, y) with its tuple, whether it absorbs given: with
 * pk packed straight from the graph (pack of gkey_face_ab's tuple). */
static inline ade__pk fpk(hs *h, size_t x, size_t y, int absorb) {
  const ade__vtx *a = &h->c->v[x], *b = &h->c->v[y];
  uint64_t r = jrank(h, x);
  absorb = h->twin && absorb;
  ade__pk p = {(uint64_t)!absorb << 63 | (absorb ? 0 : (uint64_t)(a->nin + b->nout)) << 31 | r,
               (uint64_t)a->id << 32 | (uint64_t)b->id};
  return p;
}

/* A face not queued yet (new) takes the root's place when the root holds
 * a dead face (after a step, the step's own: its slot is free), sifted
 * down from there: instead of that entry's deletion at the top (a full
 * descent) and an insertion at the bottom. The same entries, so the same
 * choices (qtop would drop the dead one before any). */
static inline int fq_set(hs *h, ade__pk p, size_t e) {
  ade__pkq *q = &h->pq;
  if (!q->n || ade__pkq_queued(q, e) || e >= q->pcap || q->a[0].x >= h->c->eslots || h->c->e[q->a[0].x].src != ADE__NONE)
    return pk_set(q, p, e);
  ade__pkent t = {p, e};
  q->pos[q->a[0].x] = SIZE_MAX;
  pkq_down(q, 0, &t);
  return ADE_OK;
}

static int fset(hs *h, size_t x, size_t y, int absorb, size_t e) {
  if (h->pk) return fq_set(h, fpk(h, x, y, absorb), e);
  long key[ADE__PQ_KEYS];
  gkey_face_ab(h, x, y, absorb, key);
  return qset(h, key, e);
}

/* Fresh tuples for the faces out of (out) or into v (qpush's, the
 * absorption found once for all of them: h->tw keeps K for
 * ade__dual_absorbed_each). */
static int faces_set(hs *h, size_t v, int out) {
  ade_cgraph *d = h->c;
  int st = ADE_OK;
  if (h->twin && ade__dual_lone(d, v, out)) h->tw.n = 0; /* no twin search needed */
  else if (h->twin) st = ade__dual_same_side(d, v, out, &h->tw);
  const ade__vtx *V = &d->v[v];
  for (size_t o = 0; !st && o < (out ? V->nout : V->nin); o++) {
    size_t e = out ? V->out[o] : V->in[o], w = out ? d->e[e].dst : d->e[e].src;
    if (d->v[w].kind != ADE__Z || h->fm[e] == h->fstamp) continue; /* no target (as cand_of), or set this step */
    h->fm[e] = h->fstamp;
    st = fset(h, out ? v : w, out ? w : v, h->twin && ade__dual_side_matches(d, &h->tw, w, out), e);
  }
  return st;
}

/* A fresh tuple for face e, which absorbs (ade__dual_absorbed_each),
 * once per step. */
static int absorbed_set(void *ctx, ade_cgraph *d, size_t e) {
  hs *h = ctx;
  if (h->fm[e] == h->fstamp) return ADE_OK;
  h->fm[e] = h->fstamp;
  return fset(h, d->e[e].src, d->e[e].dst, 1, e);
}

/* The faces at the changed and new vertices, and those these absorb,
 * get fresh tuples: per vertex, its twins on the side of the faces found
 * once (faces_set). A face listed twice is set twice to the same tuple
 * (no change). Without absorb and cost a face's tuple never changes, and
 * the faces a vertex absorbs need none. */
static int face_refresh(hs *h, size_t nv0) {
  ade_cgraph *d = h->c;
  face_changed(h);
  if (h->pk && !pack_fits(h))
    return ade__fail(ADE_ELIMIT, "face hierarchy: %zu dual vertices, over its queue's keys", d->nv);
  int st = ade__graph_marks(d);
  if (!st) st = grow_jr(h);
  for (size_t v = nv0; !st && v < d->nv; v++) { /* the fill-in, its junction b's (ctgt(k) = ctgt(b)) */
    if (h->jr[h->fb] != SIZE_MAX && d->v[v].ctgt == d->v[h->fb].ctgt) h->jr[v] = h->jr[h->fb];
    st = ade__ix_push(&h->in, v);
    if (!st) st = ade__ix_push(&h->out, v);
  }
  if (!st) st = grow_marks(h);
  unsigned vs = ++h->dstamp;
  h->fstamp = ++h->dstamp; /* each face set once per step */
  for (int side = 0; !st && side < 2; side++) {
    const ade__ix *l = side ? &h->out : &h->in;
    for (size_t k = 0; !st && k < l->n; k++) {
      const ade__vtx *v = &d->v[l->a[k]];
      if (!v->alive || v->kind != ADE__Z) continue;
      st = faces_set(h, l->a[k], !side);
      /* a vertex in both lists, or twice in one, is looked at once */
      if (!st && h->twin && h->dm[l->a[k]] != vs)
        st = ade__dual_absorbed_each(h->c, &h->tw, l->a[k], !side, absorbed_set, h);
      h->dm[l->a[k]] = vs;
    }
  }
  return st;
}

/* Whether the cost, or for faces the cost plus the c-graph vertices with
 * a face left (each costs at least 1 more: ade__faced), exceeds the
 * ceiling after a step (for faces, through c-graph vertex id through):
 * then the final cost would, and the run stops. The vertices with faces
 * left only go (ade__faced), so while the cost plus those at the start
 * (rest0) stays within the ceiling, so does the bound, and faced is built
 * only when that no longer holds (exact then for the graph as it is).
 * kept: the step left its a or b (the incremental run knows): each has a
 * face through that vertex still (alive, neither list empty), which
 * keeps its place in faced's count, so faced need not look. */
static int over_ceiling(hs *h, long through, int kept, int *st) {
  /* every 1024th step: progress, the steps as nodes, the ceiling as the incumbent */
  if (h->report && !(++h->steps & 1023))
    ade__clock_report(&h->rep, ADE_OPT_HIERARCHY, h->kind, h->ceiling ? h->ceiling : UINT64_MAX, 0, h->steps, 0);
  if (!h->ceiling) return 0;
  if (!h->faces) return h->c->fma > h->ceiling;
  if (h->fc) return h->c->fma + h->frest > h->ceiling; /* counted by the steps */
  uint64_t rest = 0;
  if (!h->faced.face) {
    if (h->c->fma + h->rest0 <= h->ceiling) return 0;
    if ((*st = ade__faced_init(&h->faced, h->g, h->c))) return 0;
  } else if (!kept) {
    *st = ade__faced_step(&h->faced, h->g, h->c, through);
  }
  rest = h->faced.rest;
  return !*st && h->c->fma + rest > h->ceiling;
}

/* At the start, on the dual fresh from g, whether each face absorbs (ab;
 * with packed tuples each face is appended to the queue with it instead):
 * face (v, w), v = (i, j) and w = (j, l) as edges of g, absorbs iff g
 * has an edge (i, l), P_v and S_w not empty. A twin k (P_k = P_v, S_k =
 * S_w: ade__dual_twin) is an edge out of i, as the in-faces of a fresh
 * dual vertex are those of every edge out of its source and of no other
 * (disjoint sets for different sources), and into l likewise. So the
 * dual vertices are bucketed by source, and per bucket the junction
 * ranks of its members (their targets) are marked: no twin search. */
static __attribute__((noinline)) int start_absorb(hs *h) {
  const ade_cgraph *d = h->c, *g = h->g;
  size_t *first = ade__alloc((g->nv + 1) * sizeof *first), *next = ade__alloc((d->nv + 1) * sizeof *next);
  size_t *mark = ade__alloc((g->nv + 1) * sizeof *mark);
  if (!first || !next || !mark) {
    ade__free(first), ade__free(next), ade__free(mark);
    return ade__fail(ADE_ENOMEM, "out of memory for the faces of %zu dual vertices", d->nv);
  }
  for (size_t i = 0; i <= g->nv; i++) first[i] = ADE__NONE, mark[i] = SIZE_MAX;
  for (size_t v = d->nv; v-- > 0;) {
    const ade__vtx *V = &d->v[v];
    size_t i = V->alive && V->kind == ADE__Z ? gvertex(g, V->csrc) : ADE__NONE, j;
    if (i == ADE__NONE) continue;
    next[v] = first[i], first[i] = v;
    if (v < h->jrcap && h->jr[v] == SIZE_MAX && (j = gvertex(g, V->ctgt)) != ADE__NONE) h->jr[v] = h->rank[j];
  }
  int st = ADE_OK;
  for (size_t i = 0; !st && i < g->nv; i++) {
    for (size_t v = first[i]; v != ADE__NONE; v = next[v]) mark[jrank(h, v)] = i;
    for (size_t v = first[i]; !st && v != ADE__NONE; v = next[v]) {
      const ade__vtx *V = &d->v[v];
      for (size_t o = 0; !st && o < V->nout; o++) {
        size_t e = V->out[o], w = d->e[e].dst;
        const ade__vtx *W = &d->v[w];
        if (W->kind != ADE__Z) continue; /* no target (cand_of) */
        int ab = V->nin && W->nout && mark[jrank(h, w)] == i;
        if (h->pk) st = pk_append(&h->pq, fpk(h, v, w, ab), e); /* queued here (each face once: its out-list) */
        else h->ab[e] = (unsigned char)ab;
      }
    }
  }
  ade__free(first), ade__free(next), ade__free(mark);
  return st;
}

/* The checking mode's test of the face hierarchy's queue
 * (ADE__ORDER_AUDIT): every intermediate face has an entry no greater
 * than its tuple computed from scratch (so a current top is the least of
 * all tuples). */
static __attribute__((noinline)) int face_audit(hs *h) {
  ade_cgraph *d = h->c;
  int st = ade__graph_marks(d);
  if (!st) st = grow_jr(h);
  for (size_t e = 0; !st && e < d->eslots; e++) {
    cand k;
    long key[ADE__PQ_KEYS];
    if (!cand_of(h, e, &k)) continue;
    gkey_face(h, &k, key);
    int ok = h->pk ? ade__pkq_queued(&h->pq, e) && !pk_lt(pack(key), h->pq.a[h->pq.pos[e]].k)
                   : e < h->q.pcap && h->q.pos[e] != SIZE_MAX && !ade__pq_less(key, h->q.a[h->q.pos[e]].k);
    if (!ok)
      st = ade__fail(ADE_EINVAL, "face hierarchy: face (%ld, %ld)'s tuple is not queued at or below it",
                     d->v[k.x].id, d->v[k.y].id);
  }
  /* the bound's count (fc, face_count_after) against a recount */
  uint64_t *c = !st && h->fc ? ade__calloc(h->g->nv + 1, sizeof *c) : NULL, rest = 0;
  if (!st && h->fc && !c) st = ade__fail(ADE_ENOMEM, "out of memory for an audit");
  for (size_t e = 0; c && e < d->eslots; e++) {
    cand k;
    if (cand_of(h, e, &k)) c[jrank(h, k.x)]++;
  }
  for (size_t r = 0; c && !st && r < h->g->nv; r++) {
    rest += c[r] > 0;
    if (c[r] != h->fc[r])
      st = ade__fail(ADE_EINVAL, "face hierarchy: %llu faces counted through rank %zu, %llu there",
                     (unsigned long long)h->fc[r], r, (unsigned long long)c[r]);
  }
  if (c && !st && rest != h->frest)
    st = ade__fail(ADE_EINVAL, "face hierarchy: %llu vertices with faces counted, %llu there",
                   (unsigned long long)h->frest, (unsigned long long)rest);
  ade__free(c);
  return st;
}

/* At the time limit: the rest in the cheaper vector mode's order; but a
 * hierarchy compared with a complete sequence (a ceiling: the sweep or
 * vertex Markowitz's) is dropped instead (cut, limited), and that
 * sequence is the best so far, as at an edge or face ordering's
 * deadline: completing the rest can take many times the limit (lorenz96,
 * limit 0.5 s: faces on the dual 3.9 s, vertices 1.4 s). */
static int at_limit(hs *h, ade_elim_seq *s) {
  size_t len = s->len;
  if (h->ceiling) return h->limited = h->cut = 1, ADE_OK;
  int st = finish(h, s);
  h->limited = s->len > len;
  return st;
}

static int run_incremental(hs *h, const int *f, int nf, ade_elim_seq *s) {
  int st = h->kind == ADE_SEQ_FACE ? ade__graph_marks(h->c) : ADE_OK;
  if (!st && h->kind == ADE_SEQ_FACE) st = grow_jr(h);
  size_t n = h->kind == ADE_SEQ_VERTEX ? h->c->nv : h->kind == ADE_SEQ_EDGE ? 2 * h->c->eslots : h->c->eslots;
  plan_chain(h, f, nf);
  h->fdef = h->kind == ADE_SEQ_FACE && h->ngl == 3 && h->gl[0] == F_ABSORB && h->gl[1] == F_COST && h->gl[2] == F_FORWARD;
  h->pk = h->fdef && pack_fits(h);
  if (h->kind == ADE_SEQ_EDGE && h->ngl == 2 && h->gl[0] == F_MARKOWITZ && h->gl[1] == F_REVERSE)
    h->pk = (uint64_t)h->g->nv < ((uint64_t)1 << 31) && (uint64_t)h->c->nv < ((uint64_t)1 << 31); /* epack's bounds */
  /* the targets in the order of the tie-breaker (ids and slots ascend
   * with the ranks on tapes), so that most land at the heap's bottom
   * instead of rising to its top: the same entries, the same choices */
  int rev = f[nf - 1] == F_REVERSE;
  if (h->kind == ADE_SEQ_EDGE && !st) st = h->pk ? edge_kp(h, n) : edge_kd(h, n);
  if (h->kind == ADE_SEQ_EDGE) { /* per edge, its two directions' tuples, then one entry */
    if (h->pk && !st) st = edge_start(h, n, rev);
    for (size_t i = 0; !h->pk && !st && i < n / 2; i++) st = edge_init(h, rev ? n / 2 - 1 - i : i);
  } else if (h->kind == ADE_SEQ_FACE) {
    /* each face's absorption (start_absorb; with packed tuples it queues them) */
    if (!st && h->twin && !h->pk && !(h->ab = ade__calloc(n + 1, 1)))
      st = ade__fail(ADE_ENOMEM, "out of memory for %zu faces", n);
    if (!st && h->twin) st = start_absorb(h);
    for (size_t i = 0; !st && !h->pk && i < n; i++) {
      size_t e = rev ? n - 1 - i : i;
      const ade__edge *y = &h->c->e[e];
      long key[ADE__PQ_KEYS];
      if (y->src == ADE__NONE || h->c->v[y->src].kind != ADE__Z || h->c->v[y->dst].kind != ADE__Z) continue; /* cand_of */
      int absorb = h->twin && h->ab[e];
      if (h->pk) {
        st = pk_append(&h->pq, fpk(h, y->src, y->dst, absorb), e);
        continue;
      }
      gkey_face_ab(h, y->src, y->dst, absorb, key);
      st = ade__ipq_append(&h->q, key, e);
    }
    if (!st && h->pk) pkq_heapify(&h->pq);
    else if (!st) ade__ipq_heapify(&h->q);
  } else
    for (size_t i = 0; !st && i < n; i++) st = qpush(h, rev ? n - 1 - i : i);
  if (!st && h->audit) st = face_audit(h); /* the start's queue */
  while (!st) {
    if (h->clk && ade__clock_expired(h->clk, 0)) { /* the limit */
      st = at_limit(h, s);
      break;
    }
    cand k;
    size_t top = ADE__NONE, nv0 = h->c->nv;
    if (!choose(h, f, nf, &k, &top, &st)) break;
    long through = 0;
    int kept = 0;
    st = remember(h, &k);
    if (h->kind == ADE_SEQ_FACE) {
      /* packed: the chosen face's entry is the fresh top, its bit 63 !absorb */
      int fill = h->pk && h->pq.n && h->pq.a[0].x == top && h->pq.a[0].k.hi >> 63;
      through = h->c->v[k.x].ctgt;
      if (!st) st = face_delta(h, &k, fill);
      if (!st) st = top != ADE__NONE ? face_step_at(h, &k, s, top, !fill) : step(h, &k, s);
      if (!st && h->fc) face_count_after(h, k.x, k.y);
      kept = !st && (h->c->v[k.x].alive || h->c->v[k.y].alive);
    } else {
      if (!st) st = delta(h, &k);
      if (!st) st = step(h, &k, s);
    }
    if (!st && over_ceiling(h, through, kept, &st)) {
      h->cut = 1;
      break;
    }
    if (!st) st = h->kind == ADE_SEQ_FACE ? face_refresh(h, nv0) : refresh(h);
    if (!st && h->audit) st = face_audit(h); /* faces: the queue after the step */
  }
  return st;
}

static int run(hs *h, const int *f, int nf, ade_elim_seq *s) {
  int st = ADE_OK;
  while (!st) {
    if (h->clk && ade__clock_expired(h->clk, 0)) { /* the limit */
      st = at_limit(h, s);
      break;
    }
    if ((st = candidates(h)) || !h->nc) break;
    if (h->kind == ADE_SEQ_FACE && (st = ade__graph_marks(h->c))) break;
    for (int i = 0; i < nf && h->nc > 1; i++) {
      set_keys(h, f[i]);
      keep_least(h);
    }
    cand k = h->cv[0];
    long through = h->kind == ADE_SEQ_FACE ? h->c->v[k.x].ctgt : 0;
    st = remember(h, &k);
    if (!st) st = step(h, &k, s);
    if (!st && over_ceiling(h, through, 0, &st)) {
      h->cut = 1;
      break;
    }
  }
  return st;
}

static void hs_free(hs *h) {
  ade_cgraph_free(h->c);
  ade__free(h->rank);
  ade__free(h->pm);
  ade__free(h->sm);
  ade__free(h->dd);
  ade__free(h->cv);
  ade__free(h->vm);
  ade__free(h->jr);
  ade__free(h->dm);
  ade__free(h->fm);
  ade__faced_free(&h->faced);
  ade__free(h->fc);
  ade__ipq_free(&h->q);
  ade__pkq_free(&h->pq);
  ade__free(h->run);
  ade__free(h->rat);
  ade__free(h->kd);
  ade__free(h->kp);
  ade__ix_free(&h->pl);
  ade__ix_free(&h->sl);
  ade__ix_free(&h->dv);
  ade__ix_free(&h->dg);
  ade__ix_free(&h->pairs);
  ade__ix_free(&h->in);
  ade__ix_free(&h->out);
  ade__ix_free(&h->fs);
  ade__ix_free(&h->tw);
  ade__free(h->ab);
}

static int no_intermediates(const ade_cgraph *c) {
  for (size_t v = 0; v < c->nv; v++)
    if (c->v[v].alive && c->v[v].kind == ADE__Z) return 0;
  return 1;
}

static int hierarchy(const ade_cgraph *g, int kind, const char *spec, const ade__clock *clk, int scan,
                     uint64_t ceiling, ade_elim_seq **seq, int *limited, int *cut) {
  hs h;
  int f[MAXH], nf = 0;
  ade_elim_seq *s = NULL;
  memset(&h, 0, sizeof h);
  h.g = g;
  h.kind = kind;
  h.clk = clk;
  if (clk) h.rep = *clk, h.report = 1;
  h.scan = scan == 1;
  h.audit = scan == ADE__ORDER_AUDIT && kind == ADE_SEQ_FACE;
  h.ceiling = ceiling;
  int st = parse(spec ? spec : ade__hier_default(kind), kind, f, &nf);
  if (!st) st = kind == ADE_SEQ_FACE ? ade_cgraph_dual(&h.c, g) : ade_cgraph_copy(&h.c, g);
  if (!st) {
    size_t n = h.c->nv + 1;
    h.rank = ade__alloc((g->nv + 1) * sizeof *h.rank);
    if (kind != ADE_SEQ_FACE) { /* the marks of the history filters and of the changed vertices: no face reads them */
      h.pm = ade__calloc(n, sizeof *h.pm);
      h.sm = ade__calloc(n, sizeof *h.sm);
      h.dd = ade__calloc(g->nv + 1, sizeof *h.dd);
      h.vm = ade__calloc(n, sizeof *h.vm);
    }
    if (!h.rank || (kind != ADE_SEQ_FACE && (!h.pm || !h.sm || !h.dd || !h.vm)))
      st = ade__fail(ADE_ENOMEM, "out of memory for a hierarchy");
  }
  if (!st && kind == ADE_SEQ_FACE && ceiling) { /* faced.rest as ade__faced_init would count it on the fresh dual */
    h.faces = 1;
    for (size_t j = 0; j < g->nv; j++)
      h.rest0 += g->v[j].alive && g->v[j].kind == ADE__Z && g->v[j].nin && g->v[j].nout;
  }
  if (!st) st = ranks(g, h.rank);
  /* the incremental run counts the faces per vertex itself (face_count_after; the audit checks it) */
  if (!st && kind == ADE_SEQ_FACE && !h.scan && (h.faces || h.audit)) st = face_count_init(&h);
  for (int i = 0; !st && i < nf; i++)
    if (f[i] == F_RELATIVE) {
      st = dependency_degrees(g, h.rank, h.dd);
      break;
    }
  if (!st) st = ade_seq_create(&s, kind);
  if (!st) st = h.scan ? run(&h, f, nf, s) : run_incremental(&h, f, nf, s);
  if (!st) s->cost = h.c->fma;
  if (!st && h.ceiling && s->cost > h.ceiling) h.cut = 1; /* also after a completion at the limit */
  /* Built by applying every step to a copy of g, complete: ade__seq_finish
   * need not simulate it again. */
  if (!st && !h.cut && kind != ADE_SEQ_FACE && no_intermediates(h.c)) s->checked = ade__graph_fingerprint(g);
  /* Complete: the copy holds the Jacobian (the dual too, read off alike). */
  if (!st && !h.cut && !scan && no_intermediates(h.c)) st = ade__seq_keep_result(s, g, h.c);
  if (!st && limited) *limited = h.limited;
  if (!st && cut) *cut = h.cut;
  hs_free(&h);
  if (st || h.cut) ade_seq_free(s);
  else *seq = s;
  return st;
}

int ade__opt_hierarchy_raw(const ade_cgraph *g, int kind, const char *spec, const ade__clock *clk, int scan,
                           ade_elim_seq **seq, int *limited) {
  return hierarchy(g, kind, spec, clk, scan, 0, seq, limited, NULL);
}

int ade__opt_hierarchy(const ade_cgraph *g, int kind, const char *spec, const ade__clock *clk, ade_elim_seq **seq,
                       int *limited) {
  ade_elim_seq *v = NULL, *s = NULL, *mk = NULL;
  uint8_t *bounds = NULL;
  uint64_t lb = g->fma;
  int cut = 0, lim = 0, vlim = 0, f[MAXH], nf = 0;
  int st = parse(spec ? spec : ade__hier_default(kind), kind, f, &nf); /* a bad spec fails, run or not */
  if (!st) st = ade__vector_sweep(g, &v);
  if (!st) st = ade__cut_bounds(g, &bounds);
  for (size_t j = 0; !st && j < g->nv; j++) lb += g->v[j].alive && g->v[j].kind == ADE__Z ? ade__cut(bounds, j) : 0;
  /* A hierarchy is never worse than vertex Markowitz either (as the edge
   * and face orderings; doc/elimination.md, "Never worse than what they
   * generalize"; a vertex hierarchy whose filters end in a sweep can
   * return more than twice its cost): its run, capped at the sweep's cost
   * (it stops once it cannot win), and the cheaper of the two is the
   * hierarchy's ceiling. Out of time or memory it is no candidate, and
   * the result is limited. */
  if (!st) {
    st = ade__order_capped(g, ADE_ORDER_VERTEX_MARKOWITZ, 0, v->cost, clk ? clk->deadline : 0, bounds, &mk);
    if (st == ADE__CUT) st = ADE_OK;
    else if (st == ADE_ELIMIT || ade__take_budget(&st)) st = ADE_OK, vlim = 1;
    else if (!st) ade_seq_free(v), v = mk; /* below the ceiling: cheaper */
  }
  /* An edge or face hierarchy that can at best tie the sweep (its cut
   * bound, "Cut bounds") would lose the tie: not run. */
  if (!st && kind != ADE_SEQ_VERTEX && lb >= v->cost) cut = 1;
  else if (!st) st = hierarchy(g, kind, spec, clk, 0, v->cost, &s, &lim, &cut);
  ade__free(bounds);
  if (ade__take_budget(&st)) lim = cut = 1; /* the dual, or the copy, grew over the memory limit */
  if (!st && (cut || (kind != ADE_SEQ_VERTEX && v->cost <= s->cost))) {
    /* The vertex sweep (or vertex Markowitz's sequence), in every kind,
     * when the hierarchy costs more, or the same for edges and faces (ties
     * go to the less general kind, as among the orderings): a vertex
     * elimination is the front elimination of its in-edges, or its faces,
     * at the same cost (Rule 3; the face-elimination paper's Section 3.3),
     * so it is returned as it is, a less general kind than asked for
     * (ade_optimize's contract), applied without a dual. It is complete and
     * its cost is what eliminating it costs (the sweep's counted from
     * reachability, doc/elimination.md, "Orderings"; vertex Markowitz's
     * counted step by step): ade__seq_finish need not simulate it. */
    ade_seq_free(s);
    s = v, v = NULL;
    s->checked = ade__graph_fingerprint(g);
  }
  ade_seq_free(v);
  if (!st && limited) *limited = lim || vlim;
  if (!st) *seq = s;
  return st;
}
