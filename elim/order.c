/* order.c: elimination orderings: vertex (forward, reverse, V_LM, V_LR), edge (forward, reverse, Markowitz, E_LF), face (forward, reverse, greedy). */
#include <stdlib.h>

#include "elim_internal.h"

/* Face orderings stop with ADE_ELIMIT after this many steps. */
#define ADE__MAX_FACE_STEPS 100000000u

/* The orderings that rescan their candidates at each step stop with
 * ADE_ELIMIT at a deadline (ade__now() seconds; 0: none). */
static int late(double deadline) {
  return deadline > 0 && ade__now() >= deadline ? ade__fail(ADE_ELIMIT, "ordering: time limit reached") : ADE_OK;
}

static const struct {
  const char *name;
  int kind;
} orders[] = {
#define ADE__ORDER_ROW(N, s, k) {s, k},
    ADE_ORDER_MAP(ADE__ORDER_ROW)
#undef ADE__ORDER_ROW
};

const char *ade_order_name(int order) {
  return order >= 0 && order < ADE_ORDER_COUNT ? orders[order].name : NULL;
}

int ade_order_parse(const char *name) {
  for (int i = 0; name && i < ADE_ORDER_COUNT; i++)
    if (!strcmp(name, orders[i].name)) return i;
  return -1;
}

/* ---------------------------------------------------------------- vertex */

/* A binary min-heap of (key, vertex) with lazy deletion. */
typedef struct hent {
  int64_t key;
  size_t v;
} hent;
typedef struct heap {
  hent *a;
  size_t n, cap;
} heap;

static int hless(const hent *x, const hent *y) { return x->key < y->key || (x->key == y->key && x->v < y->v); }

static int heap_push(heap *h, int64_t key, size_t v) {
  if (h->n == h->cap) {
    size_t nc = h->cap ? 2 * h->cap : 64;
    hent *p = ade__realloc(h->a, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a heap of %zu", nc);
    h->a = p;
    h->cap = nc;
  }
  size_t i = h->n++;
  h->a[i].key = key;
  h->a[i].v = v;
  while (i && hless(&h->a[i], &h->a[(i - 1) / 2])) {
    hent t = h->a[i];
    h->a[i] = h->a[(i - 1) / 2];
    h->a[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
  return ADE_OK;
}

static hent heap_pop(heap *h) {
  hent top = h->a[0];
  h->a[0] = h->a[--h->n];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < h->n && hless(&h->a[l], &h->a[s])) s = l;
    if (r < h->n && hless(&h->a[r], &h->a[s])) s = r;
    if (s == i) break;
    hent t = h->a[i];
    h->a[i] = h->a[s];
    h->a[s] = t;
    i = s;
  }
  return top;
}

/* Dependency degrees dd_j = id_j od_j (DP paper, V_LR): the numbers of
 * minimal vertices reaching j and maximal vertices j reaches, by bitsets
 * propagated in topological order. */
static int dependency_degrees(const ade_cgraph *g, int64_t *dd) {
  size_t wn = (g->n + 63) / 64, wm = (g->m + 63) / 64, w = wn > wm ? wn : wm;
  size_t *ord = ade__alloc((g->nv + 1) * sizeof *ord);
  uint64_t *bits = ade__calloc(ade__mul_size(g->nv + 1, w), sizeof *bits);
  int st = ord && bits ? ade__cgraph_topo(g, ord, NULL) : ade__fail(ADE_ENOMEM, "out of memory for dependency degrees (%zu x %zu words)", g->nv, w);
  for (int pass = 0; !st && pass < 2; pass++) { /* 0: id_j forward, 1: od_j backward */
    memset(bits, 0, (g->nv + 1) * w * sizeof *bits);
    for (size_t t = 0; t < g->nalive; t++) {
      size_t i = ord[pass ? g->nalive - 1 - t : t];
      const ade__vtx *v = &g->v[i];
      uint64_t *b = bits + i * w;
      if (v->kind == (pass ? ADE__Y : ADE__X)) b[v->aux / 64] |= 1ull << (v->aux % 64);
      size_t nk = pass ? v->nout : v->nin;
      for (size_t k = 0; k < nk; k++) {
        size_t u = pass ? g->e[v->out[k]].dst : g->e[v->in[k]].src;
        for (size_t x = 0; x < w; x++) b[x] |= bits[u * w + x];
      }
      int64_t c = 0;
      for (size_t x = 0; x < w; x++) c += __builtin_popcountll(b[x]);
      dd[i] = pass ? dd[i] * c : c;
    }
  }
  ade__free(ord);
  ade__free(bits);
  return st;
}

static int64_t vkey(const ade_cgraph *g, size_t j, const int64_t *dd) {
  return (int64_t)(g->v[j].nin * g->v[j].nout) - (dd ? dd[j] : 0);
}

/* V_LM (lowest Markowitz degree first) or, with dd, V_LR (lowest
 * Markowitz degree relative to the dependency degree). */
static int order_markowitz(ade_cgraph *c, ade_elim_seq *s, int relative) {
  heap h = {0};
  int64_t *dd = relative ? ade__alloc((c->nv + 1) * sizeof *dd) : NULL;
  size_t *nb = NULL, nbcap = 0;
  int st = relative && !dd ? ade__fail(ADE_ENOMEM, "out of memory for dependency degrees") : ADE_OK;
  if (!st && relative) st = dependency_degrees(c, dd);
  for (size_t j = 0; !st && j < c->nv; j++)
    if (c->v[j].alive && c->v[j].kind == ADE__Z) st = heap_push(&h, vkey(c, j, dd), j);
  while (!st && h.n) {
    hent top = heap_pop(&h);
    size_t j = top.v, k = 0;
    if (!c->v[j].alive || top.key != vkey(c, j, dd)) continue; /* stale */
    size_t need = c->v[j].nin + c->v[j].nout;
    if (need > nbcap) {
      size_t *p = ade__realloc(nb, (need + 1) * sizeof *p);
      if (!p) {
        st = ade__fail(ADE_ENOMEM, "out of memory for %zu neighbours", need);
        break;
      }
      nb = p;
      nbcap = need;
    }
    for (size_t a = 0; a < c->v[j].nin; a++) nb[k++] = c->e[c->v[j].in[a]].src;
    for (size_t b = 0; b < c->v[j].nout; b++) nb[k++] = c->e[c->v[j].out[b]].dst;
    st = ade_seq_push(s, c->v[j].id, 0, 0);
    if (!st) st = ade__elim_vertex_ix(c, j, NULL);
    for (size_t x = 0; !st && x < k; x++) /* degrees changed: fresh keys */
      if (c->v[nb[x]].alive && c->v[nb[x]].kind == ADE__Z) st = heap_push(&h, vkey(c, nb[x], dd), nb[x]);
  }
  ade__free(h.a);
  ade__free(dd);
  ade__free(nb);
  return st;
}

/* Forward or reverse: intermediates in id order, as vertices or as edges
 * (Rule 3: front elimination of all in-edges; Rule 4: back elimination of
 * all out-edges). */
static int order_sweep(ade_cgraph *c, ade_elim_seq *s, int reverse, int edges) {
  int st = ADE_OK;
  for (size_t t = 0; !st && t < c->nv; t++) {
    size_t j = reverse ? c->nv - 1 - t : t;
    ade__vtx *v = &c->v[j];
    if (!v->alive || v->kind != ADE__Z) continue;
    long id = v->id;
    if (!edges) {
      st = ade_seq_push(s, id, 0, 0);
      if (!st) st = ade__elim_vertex_ix(c, j, NULL);
      continue;
    }
    while (!st && c->v[j].alive) {
      size_t e = reverse ? c->v[j].out[0] : c->v[j].in[0];
      st = ade_seq_push(s, c->v[c->e[e].src].id, c->v[c->e[e].dst].id, reverse ? ADE_BACK : ADE_FRONT);
      if (!st) st = ade__elim_edge_ix(c, e, reverse ? ADE_BACK : ADE_FRONT, NULL);
    }
  }
  return st;
}

/* Fill-in of eliminating edge e (edges after minus before, DP paper E_LF). */
static long edge_fill(const ade_cgraph *c, size_t e, int dir) {
  const ade__edge *x = &c->e[e];
  const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
  long nw = 0;
  if (dir == ADE_FRONT) {
    for (size_t b = 0; b < j->nout; b++) nw += ade__graph_find(c, x->src, c->e[j->out[b]].dst) == ADE__NONE;
    return nw - 1 - (j->nin == 1 ? (long)j->nout : 0);
  }
  for (size_t a = 0; a < i->nin; a++) nw += ade__graph_find(c, c->e[i->in[a]].src, x->dst) == ADE__NONE;
  return nw - 1 - (i->nout == 1 ? (long)i->nin : 0);
}

/* Greedy edge elimination: lowest Markowitz degree (|S_j| front, |P_i|
 * back) or lowest fill-in first; ties by cost, then lower ids, front first. */
static int order_edge_greedy(ade_cgraph *c, ade_elim_seq *s, int fillin, double deadline) {
  int st = ADE_OK;
  while (!(st = late(deadline))) {
    size_t best = ADE__NONE;
    int bdir = 0;
    long bkey[4] = {0};
    for (size_t e = 0; e < c->eslots; e++) {
      const ade__edge *x = &c->e[e];
      if (x->src == ADE__NONE) continue;
      for (int dir = 0; dir < 2; dir++) {
        const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
        if ((dir == ADE_FRONT && j->kind != ADE__Z) || (dir == ADE_BACK && i->kind != ADE__Z)) continue;
        long cost = (long)(dir == ADE_FRONT ? j->nout : i->nin);
        long key[4] = {fillin ? edge_fill(c, e, dir) : cost, cost, i->id, j->id};
        int better = best == ADE__NONE;
        for (int k = 0; !better && k < 4 && key[k] <= bkey[k]; k++) better = key[k] < bkey[k];
        if (better) {
          best = e;
          bdir = dir;
          memcpy(bkey, key, sizeof key);
        }
      }
    }
    if (best == ADE__NONE) break;
    st = ade_seq_push(s, c->v[c->e[best].src].id, c->v[c->e[best].dst].id, bdir);
    if (!st) st = ade__elim_edge_ix(c, best, bdir, NULL);
    if (st) break;
  }
  return st;
}

/* ------------------------------------------------------------------ face */

/* Any intermediate face left in d? */
static int faces_left(const ade_cgraph *d) {
  for (size_t i = 0; i < d->eslots; i++) {
    const ade__edge *x = &d->e[i];
    if (x->src != ADE__NONE && d->v[x->src].kind == ADE__Z && d->v[x->dst].kind == ADE__Z) return 1;
  }
  return 0;
}

/* Eliminate every face through c-graph vertex c (absorption and merges may
 * remove listed faces; fill-ins may add new ones: repeat until none). */
static int drain(ade_cgraph *d, long c, ade_elim_seq *s, ade_elim_seq *tmp, double deadline) {
  int st = late(deadline);
  while (!st) {
    tmp->len = 0;
    st = ade__dual_faces_through(d, c, tmp);
    for (size_t i = 0; !st && i < tmp->len; i++) {
      size_t a = ade__graph_vertex(d, tmp->step[i].a), b = ade__graph_vertex(d, tmp->step[i].b);
      if (a == ADE__NONE || b == ADE__NONE || ade__graph_find(d, a, b) == ADE__NONE) continue;
      st = ade_seq_push(s, tmp->step[i].a, tmp->step[i].b, 0);
      if (!st) st = ade__face_step(d, a, b);
      if (!st && s->len >= ADE__MAX_FACE_STEPS) st = ade__fail(ADE_ELIMIT, "face ordering: step limit reached");
    }
    if (!tmp->len) break;
  }
  return st;
}

/* Forward or reverse: the faces through each intermediate vertex of g in
 * id order (or reverse), until no intermediate face is left. */
static int order_face_sweep(const ade_cgraph *g, ade_cgraph *d, ade_elim_seq *s, int reverse, double deadline) {
  ade_elim_seq *tmp = NULL;
  int st = ade_seq_create(&tmp, ADE_SEQ_FACE);
  for (int pass = 0; !st && (pass == 0 || faces_left(d)); pass++) {
    if (pass > 2) {
      st = ade__fail(ADE_ELIMIT, "face ordering: faces left after %d sweeps", pass);
      break;
    }
    for (size_t t = 0; !st && t < g->nv; t++) {
      const ade__vtx *v = &g->v[reverse ? g->nv - 1 - t : t];
      if (v->alive && v->kind == ADE__Z) st = drain(d, v->id, s, tmp, deadline);
    }
  }
  ade_seq_free(tmp);
  return st;
}

/* Greedy face elimination: absorption first, then the fill-in that adds
 * the fewest dual edges (|P_a| + |S_b|); ties by the faces' forward order. */
static int order_face_greedy(ade_cgraph *d, ade_elim_seq *s, double deadline) {
  int st = ADE_OK;
  while (!(st = late(deadline))) {
    size_t best = ADE__NONE;
    long bkey[4] = {0};
    if ((st = ade__graph_marks(d))) break;
    for (size_t e = 0; e < d->eslots; e++) {
      const ade__edge *x = &d->e[e];
      if (x->src == ADE__NONE || d->v[x->src].kind != ADE__Z || d->v[x->dst].kind != ADE__Z) continue;
      size_t a = x->src, b = x->dst;
      int absorb = ade__dual_twin(d, a, b, ADE__NONE) != ADE__NONE;
      long key[4] = {absorb ? 0 : 1 + (long)(d->v[a].nin + d->v[b].nout), d->v[a].ctgt, d->v[a].id, d->v[b].id};
      int better = best == ADE__NONE;
      for (int k = 0; !better && k < 4 && key[k] <= bkey[k]; k++) better = key[k] < bkey[k];
      if (better) {
        best = e;
        memcpy(bkey, key, sizeof key);
      }
    }
    if (best == ADE__NONE) break;
    size_t a = d->e[best].src, b = d->e[best].dst;
    st = ade_seq_push(s, d->v[a].id, d->v[b].id, 0);
    if (!st) st = ade__face_step(d, a, b);
    if (!st && s->len >= ADE__MAX_FACE_STEPS) st = ade__fail(ADE_ELIMIT, "face ordering: step limit");
    if (st) break;
  }
  return st;
}

int ade_elim_order(const ade_cgraph *g, int order, ade_elim_seq **sp) {
  if (!g || !sp || g->dual || order < 0 || order >= ADE_ORDER_COUNT)
    return ade__fail(ADE_EINVAL, "ade_elim_order: needs a c-graph and a known ordering (got %d)", order);
  *sp = NULL;
  return ade__elim_order(g, order, 0, sp);
}

int ade__elim_order(const ade_cgraph *g, int order, double deadline, ade_elim_seq **sp) {
  int split = 0;
  /* Several connected components: each is ordered alone (component.c). */
  int st = ade__order_split(g, order, orders[order].kind, deadline, sp, &split);
  return st || split ? st : ade__elim_order_one(g, order, deadline, sp, NULL);
}

/* One ordering on the whole of g; *fill (may be NULL) gets the fill-in. */
int ade__elim_order_one(const ade_cgraph *g, int order, double deadline, ade_elim_seq **sp, uint64_t *fill) {
  ade_cgraph *c = NULL;
  ade_elim_seq *s = NULL;
  int kind = orders[order].kind;
  int st = kind == ADE_SEQ_FACE ? ade_cgraph_dual(&c, g) : ade_cgraph_copy(&c, g);
  if (!st) st = ade_seq_create(&s, kind);
  if (!st) s->print = ade__graph_print(c);
  if (!st) switch (order) {
    case ADE_ORDER_VERTEX_FORWARD: st = order_sweep(c, s, 0, 0); break;
    case ADE_ORDER_VERTEX_REVERSE: st = order_sweep(c, s, 1, 0); break;
    case ADE_ORDER_VERTEX_MARKOWITZ: st = order_markowitz(c, s, 0); break;
    case ADE_ORDER_VERTEX_RELATIVE: st = order_markowitz(c, s, 1); break;
    case ADE_ORDER_EDGE_FORWARD: st = order_sweep(c, s, 0, 1); break;
    case ADE_ORDER_EDGE_REVERSE: st = order_sweep(c, s, 1, 1); break;
    case ADE_ORDER_EDGE_MARKOWITZ: st = order_edge_greedy(c, s, 0, deadline); break;
    case ADE_ORDER_EDGE_FILLIN: st = order_edge_greedy(c, s, 1, deadline); break;
    case ADE_ORDER_FACE_FORWARD: st = order_face_sweep(g, c, s, 0, deadline); break;
    case ADE_ORDER_FACE_REVERSE: st = order_face_sweep(g, c, s, 1, deadline); break;
    default: st = order_face_greedy(c, s, deadline); break;
    }
  if (!st) s->cost = c->fma;
  if (!st && fill) *fill = c->fill;
  ade_cgraph_free(c);
  if (st) ade_seq_free(s);
  else *sp = s;
  return st;
}
