/* vmark.c: vertex Markowitz orderings (V_LM, V_LR) on a structure-only copy of the c-graph: no values, no edge index. */
#include "elim_internal.h"
#include "pkq_inline.h"

/* The graph engine (graph.c) keeps labels, edge records and an index of
 * (src, dst) pairs, which an elimination sequence needs when it is applied
 * but an ordering does not: to choose and to cost a vertex elimination it
 * takes only the predecessor and successor sets. Here they are lists of
 * vertex indices (32 bits) with exact live counts; an eliminated vertex
 * stays in its neighbours' lists until a scan passes it (lazy removal).
 * Whether p is already a predecessor of x, for each p in P_j and x in
 * S_j, is read off marks: P_j marked, x's list scanned (or, when that
 * list is the longer side, p's successor list scanned for x). The fill-in,
 * the costs and so the choices are those of the graph engine, step by
 * step (check_order: same_choices_*).
 *
 * The scans cost the lengths of the lists, where the engine's index costs
 * one probe per multiply-add. On graphs where that difference would tell
 * (hubs on both sides of many cheap steps), the scans' total passes its
 * budget and the ordering falls back to the graph engine
 * (ADE__FALLBACK), so it is never more than a constant factor slower. */

typedef struct vlist {
  uint32_t *a;
  uint32_t n, cap;
} vlist;

enum { DEAD = 0, XV = 1, ZV = 2, YV = 3 };

typedef struct vm {
  size_t nv;
  vlist *in, *out;
  uint32_t *nin, *nout; /* live counts */
  uint8_t *st;          /* DEAD or the kind */
  uint32_t *mark, now;
  uint32_t **chunk;     /* list room: the first block, then chunks as lists grow */
  size_t nchunk, chunkcap, left, held, first;
  uint32_t *cur;
  size_t memlimit;
  uint64_t fma, fill, work, budget;
  size_t rest;          /* intermediates left */
  int trimmed;
  const uint8_t *cut;   /* g's cut bounds (may be NULL) */
  uint64_t lbrest;      /* the sum of their vertex bounds over the intermediates left */
  uint64_t ceiling;     /* 0: none */
  ade__live *live;      /* non-NULL: the ceiling is live->bar */
} vm;

/* The scans' budget: factor (|E| + |V| + the fma so far) + slack; the
 * tests lower it to take the fallback. */
unsigned ade__vmark_factor = 16;
uint64_t ade__vmark_slack = (uint64_t)1 << 20;

/* n entries of list room from the current chunk, or a new chunk. */
static uint32_t *room(vm *m, size_t n) {
  if (m->left < n) {
    size_t sz = ADE__MAX(n, m->first / 4 + 64); /* in proportion to the graph */
    if (m->nchunk == m->chunkcap && ade__grow((void **)&m->chunk, &m->chunkcap, m->nchunk + 1, sizeof *m->chunk)) {
      ade__fail(ADE_ENOMEM, "out of memory for a vertex Markowitz ordering");
      return NULL;
    }
    m->held += sz * sizeof(uint32_t);
    if (ade__over_budget(m->memlimit, m->held) &&
        ade__budget(m->memlimit, m->held, "a vertex Markowitz ordering of %zu vertices", m->nv))
      return NULL;
    uint32_t *c = ade__alloc(ade__mul_size(sz, sizeof *c));
    if (!c) {
      ade__fail(ADE_ENOMEM, "out of memory for a vertex Markowitz ordering");
      return NULL;
    }
    m->chunk[m->nchunk++] = m->cur = c;
    m->left = sz;
  }
  uint32_t *r = m->cur;
  m->cur += n, m->left -= n;
  return r;
}

/* Move l to twice its room. */
static __attribute__((noinline)) int grow(vm *m, vlist *l) {
  if (l->cap > UINT32_MAX / 2) return ade__fail(ADE_ENOMEM, "a vertex of more than 2^31 neighbours");
  uint32_t cap = l->cap ? 2 * l->cap : 4, *a = room(m, cap);
  if (!a) return ADE_ENOMEM;
  if (l->n) memcpy(a, l->a, l->n * sizeof *a);
  l->a = a, l->cap = cap;
  return ADE_OK;
}

/* Append v to l. */
static inline int push(vm *m, vlist *l, uint32_t v) {
  int st = l->n == l->cap ? grow(m, l) : ADE_OK;
  if (!st) l->a[l->n++] = v;
  return st;
}

/* Drop the eliminated vertices from l; the work counts its old length. */
static inline void compact(vm *m, vlist *l) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < l->n; i++)
    if (m->st[l->a[i]] != DEAD) l->a[k++] = l->a[i];
  m->work += l->n;
  l->n = k;
}

static uint32_t stamp(vm *m) {
  if ((m->now += 2) >= UINT32_MAX - 2) memset(m->mark, 0, m->nv * sizeof *m->mark), m->now = 2;
  return m->now;
}

static void vm_free(vm *m) {
  for (size_t k = 0; k < m->nchunk; k++) ade__free(m->chunk[k]);
  ade__free(m->chunk);
  ade__free(m->in);
  ade__free(m->out);
  ade__free(m->nin);
  ade__free(m->nout);
  ade__free(m->st);
  ade__free(m->mark);
}

/* The structure of g; ADE__FALLBACK if g has parallel edges or more
 * vertices than 32 bits number. */
static int vm_init(vm *m, const ade_cgraph *g, uint64_t ceiling) {
  size_t nv = g->nv, ne = 0;
  if (nv >= UINT32_MAX - 4) return ADE__FALLBACK;
  for (size_t j = 0; j < nv; j++)
    if (g->v[j].alive) ne += g->v[j].nin;
  m->nv = nv, m->memlimit = g->memlimit, m->ceiling = ceiling;
  size_t slack = ne / 2 + 2 * nv + 1; /* room to grow in place: a quarter more per list, and one */
  m->held = ade__mul_size(nv, 2 * sizeof(vlist) + 3 * sizeof(uint32_t) + 1) + (2 * ne + slack) * sizeof(uint32_t);
  int st = ade__budget(g->memlimit, m->held, "a vertex Markowitz ordering of %zu vertices", nv);
  if (st) return st;
  m->in = ade__calloc(nv + 1, sizeof *m->in), m->out = ade__calloc(nv + 1, sizeof *m->out);
  m->nin = ade__alloc((nv + 1) * sizeof *m->nin), m->nout = ade__alloc((nv + 1) * sizeof *m->nout);
  m->st = ade__alloc(nv + 1), m->mark = ade__calloc(nv + 1, sizeof *m->mark);
  size_t first = m->first = 2 * ne + slack + 1;
  uint32_t *blk = ade__alloc(ade__mul_size(first, sizeof *blk));
  if (blk && !ade__grow((void **)&m->chunk, &m->chunkcap, 1, sizeof *m->chunk)) m->chunk[m->nchunk++] = blk;
  else ade__free(blk), blk = NULL;
  if (!m->in || !m->out || !m->nin || !m->nout || !m->st || !m->mark || !blk)
    return ade__fail(ADE_ENOMEM, "out of memory for a vertex Markowitz ordering of %zu vertices", nv);
  m->trimmed = 1;
  for (size_t j = 0; j < nv; j++) {
    const ade__vtx *v = &g->v[j];
    m->st[j] = !v->alive ? DEAD : v->kind == ADE__X ? XV : v->kind == ADE__Z ? ZV : YV;
    uint32_t ni = (uint32_t)(v->alive ? v->nin : 0), no = (uint32_t)(v->alive ? v->nout : 0);
    m->in[j] = (vlist){blk, 0, ni + ni / 4 + 1};
    blk += m->in[j].cap;
    m->out[j] = (vlist){blk, 0, no + no / 4 + 1};
    blk += m->out[j].cap;
    m->nin[j] = ni, m->nout[j] = no;
    if (m->st[j] == ZV) m->rest++, m->lbrest += ade__cut(m->cut, j), m->trimmed &= ni && no;
  }
  m->cur = blk, m->left = first - (size_t)(blk - m->chunk[0]); /* the first block's rest serves growth */
  for (size_t j = 0; j < nv; j++) {
    if (!g->v[j].alive) continue;
    uint32_t t = stamp(m);
    for (size_t a = 0; a < g->v[j].nin; a++) {
      size_t i = g->e[g->v[j].in[a]].src;
      if (m->mark[i] == t) return ADE__FALLBACK; /* parallel edges */
      m->mark[i] = t;
      m->in[j].a[m->in[j].n++] = (uint32_t)i;
      m->out[i].a[m->out[i].n++] = (uint32_t)j;
    }
  }
  m->budget = ade__vmark_factor * (uint64_t)(ne + nv) + ade__vmark_slack;
  return ADE_OK;
}

/* The edge (p, x), new. */
static int fill_in(vm *m, uint32_t p, uint32_t x) {
  m->nin[x]++, m->nout[p]++, m->fill++;
  int st = push(m, &m->in[x], p);
  return st ? st : push(m, &m->out[p], x);
}

/* Whether x is a live successor of p (a scan of S_p, compacted). */
static int succ_of(vm *m, uint32_t p, uint32_t x) {
  vlist *l = &m->out[p];
  compact(m, l);
  for (uint32_t i = 0; i < l->n; i++)
    if (l->a[i] == x) return 1;
  return 0;
}

/* Vertex elimination of j: P_j joins P_x for each x in S_j (and S_j
 * joins S_p for each p in P_j), at cost |P_j| |S_j|. */
static int vm_elim(vm *m, uint32_t j) {
  vlist *P = &m->in[j], *S = &m->out[j];
  compact(m, P);
  compact(m, S);
  m->fma += (uint64_t)P->n * S->n;
  m->st[j] = DEAD, m->rest--, m->lbrest -= ade__cut(m->cut, j);
  uint64_t sumout = 0;
  for (uint32_t a = 0; a < P->n; a++) m->nout[P->a[a]]--, sumout += m->out[P->a[a]].n;
  int st = ADE_OK;
  for (uint32_t b = 0; !st && b < S->n; b++) {
    uint32_t x = S->a[b], np = P->n;
    m->nin[x]--;
    if (m->in[x].n <= sumout + np) {
      uint32_t t = stamp(m);
      for (uint32_t a = 0; a < np; a++) m->mark[P->a[a]] = t;
      vlist *l = &m->in[x];
      compact(m, l);
      for (uint32_t i = 0; i < l->n; i++)
        if (m->mark[l->a[i]] == t) m->mark[l->a[i]] = t + 1;
      for (uint32_t a = 0; !st && a < np; a++)
        if (m->mark[P->a[a]] == t) st = fill_in(m, P->a[a], x);
    } else {
      for (uint32_t a = 0; !st && a < np; a++)
        if (!succ_of(m, P->a[a], x)) st = fill_in(m, P->a[a], x);
    }
  }
  if (!st && m->work > m->budget + ade__vmark_factor * m->fma) st = ADE__FALLBACK;
  return st;
}

/* ADE__CUT once the cost so far plus a lower bound of the rest (each
 * intermediate left's cut bound, on a trimmed graph) reaches the
 * ceiling: as order.c. */
static int vm_over(const vm *m) {
  uint64_t rest = m->trimmed ? m->lbrest : 0;
  return ade__reached(m->live, m->ceiling, m->fma + rest) ? ADE__CUT : ADE_OK;
}

static int64_t key(const vm *m, uint32_t j, const int64_t *dd) {
  return (int64_t)((uint64_t)m->nin[j] * m->nout[j]) - (dd ? dd[j] : 0);
}

/* The queue of intermediates by (key, index). Keys 0..NB-1 (V_LM's
 * Markowitz degrees are mostly small) go to buckets, each a set of
 * indices as a bitmap with summary levels (a bit per nonempty word), so
 * that its least index is a few ctz away; the other keys go to a heap
 * of (key, index). The least (key, index) is a negative key's heap top,
 * else the least nonempty bucket's least index, else the heap's top. */
#define NB 64
typedef struct bset {
  uint64_t *w;            /* the levels, the bitmap first, the top word last */
  size_t off[8];          /* each level's first word */
  int levels;
} bset;
typedef struct vq {
  bset b[NB];
  uint64_t used;          /* nonempty buckets */
  uint8_t *at;            /* per vertex: its bucket, HEAP, or NOWHERE */
  ade__pkq h;
  size_t nv;
  int buckets;            /* 0: all in the heap (V_LR's keys are mostly negative) */
} vq;
enum { HEAP = NB, NOWHERE = 255 };

static int bset_init(bset *b, size_t n) {
  size_t words = 0;
  b->levels = 0;
  do {
    n = (n + 63) / 64;
    b->off[b->levels++] = words, words += n;
  } while (n > 1);
  b->w = ade__calloc(words, sizeof *b->w);
  return b->w ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for a vertex Markowitz ordering");
}

static void bset_add(bset *b, size_t i) {
  for (int l = 0; l < b->levels; l++, i /= 64) {
    uint64_t *w = &b->w[b->off[l] + i / 64], was = *w;
    *w |= UINT64_C(1) << (i % 64);
    if (was) return;
  }
}

/* Remove i; whether the set is empty then. */
static int bset_del(bset *b, size_t i) {
  for (int l = 0; l < b->levels; l++, i /= 64) {
    uint64_t *w = &b->w[b->off[l] + i / 64];
    *w &= ~(UINT64_C(1) << (i % 64));
    if (*w) return 0;
  }
  return 1;
}

static size_t bset_least(const bset *b) {
  size_t i = 0;
  for (int l = b->levels; l-- > 0;) i = 64 * i + (size_t)__builtin_ctzll(b->w[b->off[l] + i]);
  return i;
}

static inline int vq_set(vq *q, uint32_t j, int64_t k) {
  uint8_t a = q->at[j], to = k >= 0 && k < NB && q->buckets ? (uint8_t)k : HEAP;
  if (a == to && a != HEAP) return ADE_OK;
  if (a < NB && bset_del(&q->b[a], j)) q->used &= ~(UINT64_C(1) << a);
  if (a == HEAP && to != HEAP) pkq_del(&q->h, j);
  q->at[j] = to;
  if (to == HEAP) return pk_set(&q->h, (ade__pk){(uint64_t)k ^ (UINT64_C(1) << 63), j}, j);
  if (!q->b[to].w && bset_init(&q->b[to], q->nv)) return ADE_ENOMEM;
  bset_add(&q->b[to], j);
  q->used |= UINT64_C(1) << to;
  return ADE_OK;
}

/* The least (key, index), taken out; 0 if the queue is empty. */
static int vq_pop(vq *q, uint32_t *j) {
  ade__pkent top;
  if (q->h.n && (!q->used || (int64_t)(q->h.a[0].k.hi ^ (UINT64_C(1) << 63)) < 0)) {
    pkq_pop(&q->h, &top);
    *j = (uint32_t)top.x;
  } else if (q->used) {
    int k = __builtin_ctzll(q->used);
    *j = (uint32_t)bset_least(&q->b[k]);
    if (bset_del(&q->b[k], *j)) q->used &= ~(UINT64_C(1) << k);
  } else {
    return 0;
  }
  q->at[*j] = NOWHERE;
  return 1;
}

static void vq_free(vq *q) {
  for (int k = 0; k < NB; k++) ade__free(q->b[k].w);
  ade__free(q->at);
  ade__pkq_free(&q->h);
}

/* Step j: appended to s (room for every intermediate reserved by
 * ade__vmark_order, so ade_seq_push's growth is not needed here). */
static int step(vm *m, const ade_cgraph *g, uint32_t j, ade_elim_seq *s) {
  s->step[s->len++] = (ade_elim_step){.a = g->v[j].id};
  int st = vm_elim(m, j);
  return st ? st : vm_over(m);
}

/* The rest as a vertex sweep (reverse: in descending index). */
static int sweep_rest(vm *m, const ade_cgraph *g, int reverse, ade_elim_seq *s) {
  int st = ADE_OK;
  for (size_t t = 0; !st && t < m->nv; t++) {
    size_t j = reverse ? m->nv - 1 - t : t;
    if (m->st[j] == ZV) st = step(m, g, (uint32_t)j, s);
  }
  return st;
}

static int markowitz(vm *m, const ade_cgraph *g, const int64_t *dd, double deadline, ade__watch *w, ade_elim_seq *s) {
  vq q = {.nv = m->nv, .at = ade__alloc(m->nv + 1), .buckets = !dd};
  int st = q.at ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for a vertex Markowitz ordering");
  if (!st) memset(q.at, NOWHERE, m->nv + 1);
  for (size_t j = 0; !st && j < m->nv; j++)
    if (m->st[j] == ZV) {
      int64_t k = key(m, (uint32_t)j, dd);
      if (k >= 0 && k < NB && !dd) st = vq_set(&q, (uint32_t)j, k);
      else q.at[j] = HEAP, st = pk_append(&q.h, (ade__pk){(uint64_t)k ^ (UINT64_C(1) << 63), j}, j);
    }
  pkq_heapify(&q.h);
  for (uint32_t j; !st && vq_pop(&q, &j);) {
    if (deadline > 0 && ade__now() >= deadline) {
      st = ade__fail(ADE_ELIMIT, "ordering: time limit reached");
      break;
    }
    st = step(m, g, j, s);
    ade__watch_step(w, m->fma);
    /* the degrees of P_j and S_j changed: fresh keys (the lists are
     * compacted and hold P_j and S_j at the step's start) */
    for (int side = 0; !st && side < 2; side++) {
      const vlist *l = side ? &m->out[j] : &m->in[j];
      for (uint32_t a = 0; !st && a < l->n; a++)
        if (m->st[l->a[a]] == ZV) st = vq_set(&q, l->a[a], key(m, l->a[a], dd));
    }
  }
  vq_free(&q);
  return st;
}

int ade__vmark_order(const ade_cgraph *g, const int64_t *dd, uint64_t ceiling, ade__live *live, const uint8_t *cut,
                     double deadline, int sweep, ade__watch *w, int *swept, ade_elim_seq *s, uint64_t *fma,
                     uint64_t *fill) {
  vm m = {.cut = cut};
  int st = vm_init(&m, g, ceiling);
  m.live = live;
  if (!st && ade__grow((void **)&s->step, &s->cap, s->len + m.rest, sizeof *s->step))
    st = ade__fail(ADE_ENOMEM, "out of memory for %zu steps", s->len + m.rest);
  if (!st) s->checked = 0;
  if (!st) st = markowitz(&m, g, dd, deadline, w, s);
  if (st == ADE_ELIMIT && sweep >= 0) *swept = 1, st = sweep_rest(&m, g, sweep, s);
  *fma = m.fma, *fill = m.fill;
  vm_free(&m);
  return st;
}
