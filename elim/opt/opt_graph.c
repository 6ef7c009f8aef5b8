/* opt_graph.c: the optimizers' search graph: bitset rows, vertex/edge/face steps that mirror the engines exactly, undo, moves, canonical keys. */
#include <stdlib.h>

#include "opt_internal.h"

#define ROW(s, r, v) ((s)->r + (size_t)(v) * (s)->W)
#define FOR_BITS(row, W, b)                                                                        \
  for (size_t w_ = 0; w_ < (W); w_++)                                                              \
    for (uint64_t x_ = (row)[w_]; x_ && ((b) = (uint32_t)(w_ * 64 + (size_t)__builtin_ctzll(x_)), 1); \
         x_ &= x_ - 1)

static void setb(uint64_t *row, size_t i) { row[i >> 6] |= 1ull << (i & 63); }
static void clrb(uint64_t *row, size_t i) { row[i >> 6] &= ~(1ull << (i & 63)); }
static int empty(const uint64_t *row, size_t W) {
  for (size_t w = 0; w < W; w++)
    if (row[w]) return 0;
  return 1;
}
static int same(const uint64_t *a, const uint64_t *b, size_t W) { return !memcmp(a, b, W * sizeof *a); }
static uint32_t first_bit(const uint64_t *row, size_t W) {
  for (size_t w = 0; w < W; w++)
    if (row[w]) return (uint32_t)(w * 64 + (size_t)__builtin_ctzll(row[w]));
  return ADE__SLOT_NONE;
}

/* ------------------------------------------------------------ set up */

static int alloc_arrays(ade__sg *s, size_t njunc) {
  size_t c = s->cap, W = s->W;
  s->in = ade__calloc(c * W, sizeof *s->in);
  s->out = ade__calloc(c * W, sizeof *s->out);
  s->vk = ade__calloc(c, 1);
  s->alive = ade__calloc(c, 1);
  s->thr = ade__calloc(c, 1);
  s->id = ade__calloc(c, sizeof *s->id);
  s->csrc = ade__calloc(c, sizeof *s->csrc);
  s->ctgt = ade__calloc(c, sizeof *s->ctgt);
  s->aux = ade__calloc(c, sizeof *s->aux);
  s->touched = ade__calloc(c, sizeof *s->touched);
  s->nxt = ade__calloc(c, sizeof *s->nxt);
  s->prv = ade__calloc(c, sizeof *s->prv);
  s->order = ade__calloc(c, sizeof *s->order);
  s->par = ade__calloc(2 * c, sizeof *s->par);
  s->queue = ade__calloc(2 * c, sizeof *s->queue);
  s->vis = ade__calloc(2 * c, sizeof *s->vis);
  s->jmark = ade__calloc(njunc + 1, sizeof *s->jmark);
  s->jset = ade__calloc(3 * (njunc + 1), sizeof *s->jset);
  s->anc = ade__calloc(W, sizeof *s->anc);
  s->rowtmp = ade__calloc(2 * W, sizeof *s->rowtmp);
  s->color = ade__calloc(4 * c, sizeof *s->color);
  s->xs = ade__calloc(s->n + 1, sizeof *s->xs);
  s->ys = ade__calloc(s->m + 1, sizeof *s->ys);
  if (!s->in || !s->out || !s->vk || !s->alive || !s->thr || !s->id || !s->csrc || !s->ctgt || !s->aux ||
      !s->touched || !s->nxt || !s->prv || !s->order || !s->par || !s->queue || !s->vis || !s->jmark || !s->jset ||
      !s->anc || !s->rowtmp || !s->color || !s->xs || !s->ys)
    return ade__fail(ADE_ENOMEM, "out of memory for a search graph of %zu vertices", c);
  return ADE_OK;
}

/* Copy the live vertices and edges of h (a c-graph, or the dual of g). */
static void fill_rows(ade__sg *s, const ade_cgraph *h, const ade_cgraph *g, uint32_t *slot) {
  size_t k = 0;
  for (size_t i = 0; i < h->nv; i++) slot[i] = h->v[i].alive ? (uint32_t)k++ : ADE__SLOT_NONE;
  for (size_t i = 0; i < h->nv; i++) {
    const ade__vtx *v = &h->v[i];
    if (!v->alive) continue;
    uint32_t a = slot[i];
    s->vk[a] = (uint8_t)v->kind;
    s->alive[a] = 1;
    s->id[a] = v->id;
    s->aux[a] = (uint32_t)v->aux;
    if (h->dual) {
      s->csrc[a] = (uint32_t)ade__graph_vertex(g, v->csrc);
      s->ctgt[a] = (uint32_t)ade__graph_vertex(g, v->ctgt);
    }
    if (v->kind == ADE__Z) s->nlive++;
    for (size_t e = 0; e < v->nout; e++) {
      uint32_t b = slot[h->e[v->out[e]].dst];
      setb(ROW(s, out, a), b);
      setb(ROW(s, in, b), a);
    }
  }
  for (size_t j = 0; j < s->n; j++) s->xs[j] = slot[h->xv[j]];
  for (size_t i = 0; i < s->m; i++) s->ys[i] = slot[h->yv[i]];
}

int ade__sg_init(ade__sg *s, const ade_cgraph *g, int kind, size_t extra) {
  ade_cgraph *d = NULL;
  const ade_cgraph *h = g;
  uint32_t *slot = NULL;
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->stamp = 1;
  int st = kind == ADE_SEQ_FACE ? ade_cgraph_dual(&d, g) : ADE_OK;
  if (d) h = d;
  size_t need = st ? 0 : h->nalive + (kind == ADE_SEQ_FACE ? extra : 0);
  if (!st && need > ADE__SG_MAX_SLOTS)
    st = ade__fail(ADE_ETOOBIG, "the %s has %zu vertices; searches handle at most %u", h->dual ? "dual" : "c-graph",
                   need, ADE__SG_MAX_SLOTS);
  if (!st) {
    s->cap = need ? need : 1;
    s->W = (s->cap + 63) / 64;
    s->n = g->n;
    s->m = g->m;
    s->njunc = g->nv;
    s->nv = h->nalive;
    s->next_id = h->next_vertex_id;
    slot = ade__alloc((h->nv + 1) * sizeof *slot);
    st = slot ? alloc_arrays(s, g->nv) : ade__fail(ADE_ENOMEM, "out of memory for a search graph");
  }
  if (!st) fill_rows(s, h, g, slot);
  ade__free(slot);
  ade_cgraph_free(d);
  if (st) ade__sg_free(s);
  return st;
}

void ade__sg_free(ade__sg *s) {
  void *p[] = {s->in, s->out, s->vk, s->alive, s->thr, s->id, s->csrc, s->ctgt, s->aux, s->touched, s->nxt,
               s->prv, s->order, s->par, s->queue, s->vis, s->jmark, s->jset, s->anc, s->rowtmp, s->color, s->xs,
               s->ys, s->trail, s->fr};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++) ade__free(p[i]);
  memset(s, 0, sizeof *s);
}

int ade__moves_push(ade__moves *v, uint32_t a, uint32_t b, uint32_t dir, uint32_t cost) {
  if (ade__grow((void **)&v->m, &v->cap, v->len + 1, sizeof *v->m))
    return ade__fail(ADE_ENOMEM, "out of memory for %zu moves", v->len + 1);
  ade__move *m = &v->m[v->len++];
  m->a = a, m->b = b, m->dir = dir, m->cost = cost;
  return ADE_OK;
}

void ade__moves_free(ade__moves *v) {
  ade__free(v->m);
  memset(v, 0, sizeof *v);
}

/* ------------------------------------------------------------- undo */

/* Save slot v's rows and live flag once per step. */
static int touch(ade__sg *s, uint32_t v) {
  if (s->touched[v] == s->stamp) return ADE_OK;
  size_t rec = 1 + 2 * s->W;
  if (s->tlen + rec > s->tcap) {
    size_t nc = s->tcap ? 2 * s->tcap : 4096;
    while (nc < s->tlen + rec) nc *= 2;
    uint64_t *p = ade__realloc(s->trail, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for an undo trail of %zu words", nc);
    s->trail = p;
    s->tcap = nc;
  }
  uint64_t *t = s->trail + s->tlen;
  t[0] = (uint64_t)v | ((uint64_t)s->alive[v] << 32);
  memcpy(t + 1, ROW(s, in, v), s->W * sizeof *t);
  memcpy(t + 1 + s->W, ROW(s, out, v), s->W * sizeof *t);
  s->tlen += rec;
  s->touched[v] = s->stamp;
  return ADE_OK;
}

static int begin(ade__sg *s) {
  if (s->nfr == s->frcap) {
    size_t nc = s->frcap ? 2 * s->frcap : 64;
    ade__undo *p = ade__realloc(s->fr, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for an undo stack of %zu", nc);
    s->fr = p;
    s->frcap = nc;
  }
  ade__undo *f = &s->fr[s->nfr++];
  f->tlen = s->tlen, f->nv = s->nv, f->nlive = s->nlive, f->next_id = s->next_id;
  if (++s->stamp == 0) {
    memset(s->touched, 0, s->cap * sizeof *s->touched);
    s->stamp = 1;
  }
  return ADE_OK;
}

void ade__sg_undo(ade__sg *s) {
  const ade__undo *f = &s->fr[--s->nfr];
  size_t rec = 1 + 2 * s->W;
  while (s->tlen > f->tlen) {
    s->tlen -= rec;
    const uint64_t *t = s->trail + s->tlen;
    uint32_t v = (uint32_t)(t[0] & 0xffffffffu);
    s->alive[v] = (uint8_t)(t[0] >> 32);
    memcpy(ROW(s, in, v), t + 1, s->W * sizeof *t);
    memcpy(ROW(s, out, v), t + 1 + s->W, s->W * sizeof *t);
  }
  s->nv = f->nv, s->nlive = f->nlive, s->next_id = f->next_id;
}

/* Remove v with its edges (isolation, merges, vertex elimination). */
static int remove_vertex(ade__sg *s, uint32_t v) {
  uint32_t b;
  int st = touch(s, v);
  FOR_BITS(ROW(s, in, v), s->W, b) {
    if (!st) st = touch(s, b);
    clrb(ROW(s, out, b), v);
  }
  FOR_BITS(ROW(s, out, v), s->W, b) {
    if (!st) st = touch(s, b);
    clrb(ROW(s, in, b), v);
  }
  memset(ROW(s, in, v), 0, s->W * sizeof(uint64_t));
  memset(ROW(s, out, v), 0, s->W * sizeof(uint64_t));
  s->alive[v] = 0;
  if (s->vk[v] == ADE__Z) s->nlive--;
  return st;
}

/* ----------------------------------------------------- vertex and edge */

/* Rules 3/4: c(i,k) += c(i,j) c(j,k) for i in P_j, k in S_j. */
static int vertex_step(ade__sg *s, uint32_t j, uint64_t *cost) {
  const uint64_t *P = ROW(s, in, j), *S = ROW(s, out, j);
  uint32_t b;
  int st = ADE_OK;
  *cost = (uint64_t)ade__popcount(P, s->W) * ade__popcount(S, s->W);
  FOR_BITS(P, s->W, b) {
    if (!st) st = touch(s, b);
    uint64_t *o = ROW(s, out, b);
    for (size_t w = 0; w < s->W; w++) o[w] |= S[w];
  }
  FOR_BITS(S, s->W, b) {
    if (!st) st = touch(s, b);
    uint64_t *r = ROW(s, in, b);
    for (size_t w = 0; w < s->W; w++) r[w] |= P[w];
  }
  return st ? st : remove_vertex(s, j);
}

/* Rule 2: front (c(i,k) += c(j,k) c(i,j), k in S_j) or back (c(h,j) +=
 * c(i,j) c(h,i), h in P_i); then (i,j) goes, and j (front) or i (back) if
 * it is left isolated, as the engine does. */
static int edge_step(ade__sg *s, uint32_t i, uint32_t j, uint32_t dir, uint64_t *cost) {
  uint32_t b;
  int st = touch(s, i);
  if (!st) st = touch(s, j);
  if (dir == ADE_FRONT) {
    const uint64_t *S = ROW(s, out, j);
    *cost = ade__popcount(S, s->W);
    FOR_BITS(S, s->W, b) {
      if (!st) st = touch(s, b);
      setb(ROW(s, in, b), i);
    }
    uint64_t *o = ROW(s, out, i);
    for (size_t w = 0; w < s->W; w++) o[w] |= S[w];
  } else {
    const uint64_t *P = ROW(s, in, i);
    *cost = ade__popcount(P, s->W);
    FOR_BITS(P, s->W, b) {
      if (!st) st = touch(s, b);
      setb(ROW(s, out, b), j);
    }
    uint64_t *r = ROW(s, in, j);
    for (size_t w = 0; w < s->W; w++) r[w] |= P[w];
  }
  clrb(ROW(s, out, i), j);
  clrb(ROW(s, in, j), i);
  if (!st && s->vk[j] == ADE__Z && empty(ROW(s, in, j), s->W)) st = remove_vertex(s, j);
  if (!st && s->vk[i] == ADE__Z && empty(ROW(s, out, i), s->W)) st = remove_vertex(s, i);
  return st;
}

/* ---------------------------------------------------------------- face */

/* An intermediate k != not with in(k) = in(p) and out(k) = out(q)
 * (candidates: the successors of a predecessor of p). */
static uint32_t twin(const ade__sg *s, uint32_t p, uint32_t q, uint32_t not) {
  const uint64_t *P = ROW(s, in, p), *S = ROW(s, out, q);
  uint32_t p0 = first_bit(P, s->W), k;
  if (p0 == ADE__SLOT_NONE || empty(S, s->W)) return ADE__SLOT_NONE;
  FOR_BITS(ROW(s, out, p0), s->W, k) {
    if (k != not && s->vk[k] == ADE__Z && same(ROW(s, in, k), P, s->W) && same(ROW(s, out, k), S, s->W))
      return k;
  }
  return ADE__SLOT_NONE;
}

/* Rule 1, steps 3-4: remove i if isolated, else merge it with a twin (the
 * lower number survives). */
static int settle(ade__sg *s, uint32_t i) {
  if (!s->alive[i]) return ADE_OK;
  if (empty(ROW(s, in, i), s->W) || empty(ROW(s, out, i), s->W)) return remove_vertex(s, i);
  uint32_t t = twin(s, i, i, i);
  if (t == ADE__SLOT_NONE) return ADE_OK;
  return remove_vertex(s, s->id[t] < s->id[i] ? i : t);
}

/* Fill-in: a new vertex with the predecessors of a and the successors of b. */
static int fill_vertex(ade__sg *s, uint32_t a, uint32_t b) {
  if (s->nv == s->cap)
    return ade__fail(ADE_ETOOBIG, "face search: more than %zu dual vertices", s->cap);
  uint32_t f = (uint32_t)s->nv++, x;
  int st = ADE_OK;
  memcpy(ROW(s, in, f), ROW(s, in, a), s->W * sizeof(uint64_t));
  memcpy(ROW(s, out, f), ROW(s, out, b), s->W * sizeof(uint64_t));
  s->touched[f] = s->stamp; /* new: nothing to restore */
  s->vk[f] = ADE__Z;
  s->alive[f] = 1;
  s->id[f] = s->next_id++;
  s->csrc[f] = s->csrc[a];
  s->ctgt[f] = s->ctgt[b];
  s->nlive++;
  FOR_BITS(ROW(s, in, f), s->W, x) {
    if (!st) st = touch(s, x);
    setb(ROW(s, out, x), f);
  }
  FOR_BITS(ROW(s, out, f), s->W, x) {
    if (!st) st = touch(s, x);
    setb(ROW(s, in, x), f);
  }
  return st;
}

/* Rule 1 on the face (a, b): absorption or fill-in, removal, settling. */
static int face_step(ade__sg *s, uint32_t a, uint32_t b) {
  int st = ADE_OK;
  if (twin(s, a, b, ADE__SLOT_NONE) == ADE__SLOT_NONE) st = fill_vertex(s, a, b);
  if (!st) st = touch(s, a);
  if (!st) st = touch(s, b);
  if (st) return st;
  clrb(ROW(s, out, a), b);
  clrb(ROW(s, in, b), a);
  st = settle(s, a);
  return st ? st : settle(s, b);
}

/* ----------------------------------------------------------- interface */

int ade__sg_apply(ade__sg *s, const ade__move *mv, uint64_t *cost) {
  int st = begin(s);
  if (st) return st;
  switch (s->kind) {
  case ADE_SEQ_VERTEX: st = vertex_step(s, mv->a, cost); break;
  case ADE_SEQ_EDGE: st = edge_step(s, mv->a, mv->b, mv->dir, cost); break;
  default:
    *cost = 1;
    st = face_step(s, mv->a, mv->b);
  }
  if (st) ade__sg_undo(s);
  return st;
}

int ade__sg_done(const ade__sg *s) {
  if (s->kind != ADE_SEQ_FACE) return s->nlive == 0;
  uint32_t b;
  for (uint32_t a = 0; a < s->nv; a++) {
    if (!s->alive[a] || s->vk[a] != ADE__Z) continue;
    FOR_BITS(ROW(s, out, a), s->W, b) {
      if (s->vk[b] == ADE__Z) return 0;
    }
  }
  return 1;
}

void ade__sg_step(const ade__sg *s, const ade__move *mv, ade_elim_step *st) {
  st->a = s->id[mv->a];
  st->b = s->kind == ADE_SEQ_VERTEX ? 0 : s->id[mv->b];
  st->dir = s->kind == ADE_SEQ_EDGE ? (int)mv->dir : 0;
}

int ade__move_cmp(const ade__move *p, const ade__move *q) {
  if (p->cost != q->cost) return p->cost < q->cost ? -1 : 1;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return (p->dir > q->dir) - (p->dir < q->dir);
}

static int cmp_move(const void *x, const void *y) { return ade__move_cmp(x, y); }

int ade__sg_moves(ade__sg *s, ade__moves *out, int sorted) {
  size_t start = out->len, W = s->W;
  uint32_t b, *din = s->nxt, *dout = s->prv; /* degrees (the flows' workspace is free here) */
  int st = ADE_OK;
  for (uint32_t a = 0; a < s->nv; a++)
    if (s->alive[a]) din[a] = (uint32_t)ade__popcount(ROW(s, in, a), W), dout[a] = (uint32_t)ade__popcount(ROW(s, out, a), W);
  for (uint32_t a = 0; !st && a < s->nv; a++) {
    if (!s->alive[a] || s->vk[a] == ADE__Y || (s->kind != ADE_SEQ_EDGE && s->vk[a] != ADE__Z)) continue;
    if (s->kind == ADE_SEQ_VERTEX) {
      st = ade__moves_push(out, a, 0, 0, din[a] * dout[a]);
      continue;
    }
    FOR_BITS(ROW(s, out, a), W, b) {
      if (st) break;
      if (s->kind == ADE_SEQ_EDGE) {
        if (s->vk[b] == ADE__Z) st = ade__moves_push(out, a, b, ADE_FRONT, dout[b]);
        if (!st && s->vk[a] == ADE__Z) st = ade__moves_push(out, a, b, ADE_BACK, din[a]);
      } else if (s->vk[b] == ADE__Z) {
        uint32_t c = twin(s, a, b, ADE__SLOT_NONE) != ADE__SLOT_NONE ? 0 : 1 + din[a] + dout[b];
        st = ade__moves_push(out, a, b, 0, c);
      }
    }
  }
  if (!st && sorted) qsort(out->m + start, out->len - start, sizeof *out->m, cmp_move);
  return st;
}

void ade__sg_neighbours(const ade__sg *s, uint32_t a, uint64_t *nb) {
  const uint64_t *P = ROW(s, in, a), *S = ROW(s, out, a);
  for (size_t w = 0; w < s->W; w++) nb[w] = P[w] | S[w];
}

/* The vertices an edge step reads or writes, as seen from state s: front
 * (i,j): {i, j} and S_j; back: {i, j} and P_i. After the step (i,j) itself,
 * S_i (front) or P_j (back) contains what S_j or P_i was before it. */
static void edge_reach(const ade__sg *s, const ade__move *m, int after, uint64_t *T) {
  const uint64_t *r = m->dir == ADE_FRONT ? ROW(s, out, after ? m->a : m->b) : ROW(s, in, after ? m->b : m->a);
  memcpy(T, r, s->W * sizeof *T);
  setb(T, m->a);
  setb(T, m->b);
}

int ade__sg_independent(const ade__sg *s, const ade__move *last, const uint64_t *nb, const ade__move *mv) {
  if (s->kind == ADE_SEQ_VERTEX) return !ade__bit(nb, mv->a);
  if (s->kind != ADE_SEQ_EDGE) return 0;
  uint64_t *T = s->rowtmp, *U = s->rowtmp + s->W;
  edge_reach(s, last, 1, T);
  edge_reach(s, mv, 0, U);
  for (size_t w = 0; w < s->W; w++)
    if (T[w] & U[w]) return 0;
  return 1;
}

/* ---------------------------------------------------------------- keys */

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int key_room(uint64_t **key, size_t *cap, size_t need) {
  if (need <= *cap) return ADE_OK;
  size_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  uint64_t *p = ade__realloc(*key, ade__mul_size(nc, sizeof *p));
  if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a state key of %zu words", nc);
  *key = p;
  *cap = nc;
  return ADE_OK;
}

static int cmp_color(const void *x, const void *y, const uint64_t *color) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  if (color[a] != color[b]) return color[a] < color[b] ? -1 : 1;
  return (a > b) - (a < b);
}

/* Insertion sort of the intermediate slots by refined colour (few of them). */
static void sort_by_color(uint32_t *v, size_t n, const uint64_t *color) {
  for (size_t i = 1; i < n; i++) {
    uint32_t x = v[i];
    size_t j = i;
    for (; j > 0 && cmp_color(&v[j - 1], &x, color) > 0; j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

/* Colour refinement over the structure only: the cost of what is left
 * depends on nothing else, and it does not change when independents,
 * dependents or intermediates are renamed among themselves (Rule 1 treats
 * all alike). All live vertices in canonical order into s->order. */
static size_t refine(ade__sg *s) {
  uint64_t *c = s->color, *nc = c + s->cap, *mi = nc + s->cap, *mo = mi + s->cap;
  size_t nl = 0;
  uint32_t b;
  for (uint32_t v = 0; v < s->nv; v++) {
    if (!s->alive[v]) continue;
    c[v] = s->vk[v] == ADE__X ? 0x1111 : s->vk[v] == ADE__Y ? 0x2222 : 0x5a5a;
    s->order[nl++] = v;
  }
  for (int round = 0; round < 4; round++) {
    for (size_t k = 0; k < nl; k++) {
      uint32_t v = s->order[k];
      mi[v] = mix(c[v] + 1);
      mo[v] = mix(c[v] + 2);
    }
    for (size_t k = 0; k < nl; k++) {
      uint32_t v = s->order[k];
      uint64_t hi = 0, ho = 0;
      FOR_BITS(ROW(s, in, v), s->W, b) hi += mi[b];
      FOR_BITS(ROW(s, out, v), s->W, b) ho += mo[b];
      nc[v] = mix(c[v] * 31 + hi * 7 + ho * 13);
    }
    for (size_t k = 0; k < nl; k++) c[s->order[k]] = nc[s->order[k]];
  }
  sort_by_color(s->order, nl, c);
  return nl;
}

/* Faces: the number of live vertices, their kinds (2 bits each) in
 * canonical order, and each one's predecessors by canonical position. */
static int face_key(ade__sg *s, uint64_t **key, size_t *cap, size_t *len) {
  size_t nl = refine(s), K = (nl + 63) / 64, nk = (nl + 31) / 32, n = 1 + nk + nl * K;
  uint32_t b, *pos = s->par;
  int st = key_room(key, cap, n);
  if (st) return st;
  uint64_t *k = *key;
  memset(k, 0, n * sizeof *k);
  k[0] = nl;
  for (size_t i = 0; i < nl; i++) {
    pos[s->order[i]] = (uint32_t)i;
    k[1 + i / 32] |= (uint64_t)s->vk[s->order[i]] << (2 * (i % 32));
  }
  for (size_t i = 0; i < nl; i++) {
    uint64_t *r = k + 1 + nk + i * K;
    FOR_BITS(ROW(s, in, s->order[i]), s->W, b) setb(r, pos[b]);
  }
  *len = n;
  return ADE_OK;
}

int ade__sg_key(ade__sg *s, uint64_t **key, size_t *cap, size_t *len) {
  if (s->kind == ADE_SEQ_FACE) return face_key(s, key, cap, len);
  size_t W = s->W, n = W, rows = s->kind == ADE_SEQ_EDGE ? s->nv : 0;
  int st = key_room(key, cap, W + rows * W);
  if (st) return st;
  uint64_t *k = *key;
  memset(k, 0, W * sizeof *k);
  for (uint32_t v = 0; v < s->nv; v++)
    if (s->alive[v]) setb(k, v);
  for (uint32_t v = 0; v < rows; v++) /* edge states: the live edges */
    if (s->alive[v] && s->vk[v] != ADE__Y) {
      memcpy(k + n, ROW(s, out, v), W * sizeof *k);
      n += W;
    }
  *len = n;
  return ADE_OK;
}
