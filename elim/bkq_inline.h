/* bkq_inline.h: the bucket queue (ade__bkq, elim_internal.h) as static
 * inline functions of the file that includes it (bkq_set, bkq_pop, ...),
 * so that an ordering's hot calls inline; pqueue.c exports the same code
 * as ade__bkq_*. A key's bucket follows from its high word alone; within
 * a bucket the low words are ordered by a run sorted by lo (the bulk
 * build's entries, when they come in order: a pop or a removal there
 * costs O(1), a hole left behind) and a 4-ary heap of 16-byte entries for
 * the rest (one comparison of one word where the two-word heap makes two
 * of two); the least bucket is found by two ctz. Keys outside the buckets' range
 * go to the two-word heap (pkq_inline.h), and a pop compares its top with
 * the least bucket's: the order is that of one two-word heap. */
#ifndef ADE_BKQ_INLINE_H
#define ADE_BKQ_INLINE_H
#include "pkq_inline.h"

#define BKQ_OVER ((uint32_t)ADE__BKQ_N)
#define BKQ_NONE UINT32_MAX
#define BKQ_BASE (UINT64_C(2147483648) - 32) /* the least upper half of hi in a bucket */

/* hi's bucket, or BKQ_OVER: upper half in [2^31 - 32, 2^31 + 32), lower
 * half below 64, bucket (upper - BKQ_BASE) 64 + lower (ascending with hi). */
static inline uint32_t bkq_bucket(uint64_t hi) {
  uint64_t u = (hi >> 32) - BKQ_BASE, l = hi & 0xffffffffu;
  return u < 64 && l < 64 ? (uint32_t)(u << 6 | l) : BKQ_OVER;
}

static inline uint64_t bkq_hi(uint32_t b) { return (BKQ_BASE + (b >> 6)) << 32 | (b & 63u); }

static inline void bkq_mark(ade__bkq *q, uint32_t b) {
  q->word[b >> 6] |= UINT64_C(1) << (b & 63);
  q->top |= UINT64_C(1) << (b >> 6);
}

static inline void bkq_unmark(ade__bkq *q, uint32_t b) {
  if (!(q->word[b >> 6] &= ~(UINT64_C(1) << (b & 63)))) q->top &= ~(UINT64_C(1) << (b >> 6));
}

/* The first least of the children from c on of a heap of n entries (a
 * tournament of two pairs when there are four, as the two-word heap's),
 * or SIZE_MAX when there is none. */
static inline size_t bkq_child(const ade__bkent *a, size_t n, size_t c) {
  if (c + 4 <= n) {
    size_t s0 = a[c + 1].lo < a[c].lo ? c + 1 : c, s1 = a[c + 3].lo < a[c + 2].lo ? c + 3 : c + 2;
    return a[s1].lo < a[s0].lo ? s1 : s0;
  }
  if (c >= n) return SIZE_MAX;
  size_t s = c;
  for (size_t k = c + 1; k < n; k++)
    if (a[k].lo < a[s].lo) s = k;
  return s;
}

/* Move e down from hole i of bucket h to its place below. */
static inline void bkq_down(ade__bkq *q, ade__bkheap *h, size_t i, ade__bkent e) {
  ade__bkent *a = h->a;
  for (;;) {
    size_t s = bkq_child(a, h->n, 4 * i + 1);
    if (s == SIZE_MAX || !(a[s].lo < e.lo)) break;
    a[i] = a[s];
    q->pos[a[i].x] = i;
    i = s;
  }
  a[i] = e;
  q->pos[e.x] = i;
}

/* Move e up from hole i of bucket h. */
static inline void bkq_up(ade__bkq *q, ade__bkheap *h, size_t i, ade__bkent e) {
  ade__bkent *a = h->a;
  while (i && e.lo < a[(i - 1) / 4].lo) {
    size_t p = (i - 1) / 4;
    a[i] = a[p];
    q->pos[a[i].x] = i;
    i = p;
  }
  a[i] = e;
  q->pos[e.x] = i;
}

/* The hole at i goes down to a leaf along the least children, then e
 * goes up from there (Floyd, as the two-word heap's refill). */
static inline void bkq_refill(ade__bkq *q, ade__bkheap *h, size_t i, ade__bkent e) {
  ade__bkent *a = h->a;
  for (;;) {
    size_t s = bkq_child(a, h->n, 4 * i + 1);
    if (s == SIZE_MAX) break;
    a[i] = a[s];
    q->pos[a[i].x] = i;
    i = s;
  }
  bkq_up(q, h, i, e);
}

static inline int bkq_empty(const ade__bkheap *h) { return !h->n && !h->live; }

/* Take x out of bucket b (its run or its heap). */
static inline __attribute__((always_inline)) void bkq_take(ade__bkq *q, uint32_t b, size_t x) {
  ade__bkheap *h = &q->b[b];
  size_t i = q->pos[x];
  if (i & ADE__BKQ_RUN) {
    h->r[i & ~ADE__BKQ_RUN].x = SIZE_MAX;
    h->live--;
  } else {
    ade__bkent e = h->a[--h->n];
    if (i < h->n) bkq_refill(q, h, i, e);
  }
  if (bkq_empty(h)) bkq_unmark(q, b);
}

/* Room for index x (pos, bk) and the buckets. */
static int bkq_index_room(ade__bkq *q, size_t x) {
  if (!q->b && !(q->b = ade__calloc(ADE__BKQ_N, sizeof *q->b)))
    return ade__fail(ADE_ENOMEM, "out of memory for a bucket queue");
  if (x < q->pcap) return ADE_OK;
  size_t old = q->pcap, pc = q->pcap;
  if (ade__grow((void **)&q->pos, &pc, x + 1, sizeof *q->pos))
    return ade__fail(ADE_ENOMEM, "out of memory for a priority queue index of %zu", x + 1);
  uint32_t *bk = ade__realloc(q->bk, ade__mul_size(pc, sizeof *bk));
  if (!bk) return ade__fail(ADE_ENOMEM, "out of memory for a priority queue index of %zu", x + 1);
  for (size_t i = old; i < pc; i++) bk[i] = BKQ_NONE;
  q->bk = bk, q->pcap = pc;
  return ADE_OK;
}

/* Append (x, lo) at the end of bucket b's run (the bulk build). */
static inline int bkq_push_run(ade__bkq *q, uint32_t b, uint64_t lo, size_t x) {
  ade__bkheap *h = &q->b[b];
  if (h->rn == h->rcap && ade__grow((void **)&h->r, &h->rcap, h->rn + 1, sizeof *h->r))
    return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", h->rn + 1);
  if (bkq_empty(h)) bkq_mark(q, b);
  h->r[h->rn].lo = lo;
  h->r[h->rn].x = x;
  q->pos[x] = ADE__BKQ_RUN | h->rn++;
  h->live++;
  q->bk[x] = b;
  return ADE_OK;
}

/* Insert (x, lo) into bucket b's heap. */
static inline int bkq_insert(ade__bkq *q, uint32_t b, uint64_t lo, size_t x) {
  ade__bkheap *h = &q->b[b];
  if (h->n == h->cap && ade__grow((void **)&h->a, &h->cap, h->n + 1, sizeof *h->a))
    return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", h->n + 1);
  if (bkq_empty(h)) bkq_mark(q, b);
  ade__bkent e = {lo, x};
  h->n++;
  bkq_up(q, h, h->n - 1, e);
  q->bk[x] = b;
  return ADE_OK;
}

/* Insert x with key key, or change its key. */
static inline __attribute__((always_inline)) int bkq_set(ade__bkq *q, ade__pk key, size_t x) {
  int st = x < q->pcap ? ADE_OK : bkq_index_room(q, x);
  if (st) return st;
  uint32_t nb = bkq_bucket(key.hi), ob = q->bk[x];
  if (nb == ob) {
    if (nb == BKQ_OVER) return pkq_set(&q->over, &key, x);
    ade__bkheap *h = &q->b[nb];
    size_t i = q->pos[x];
    if (i & ADE__BKQ_RUN) {
      if (h->r[i & ~ADE__BKQ_RUN].lo == key.lo) return ADE_OK;
    } else {
      if (h->a[i].lo != key.lo) {
        ade__bkent e = {key.lo, x};
        if (i && key.lo < h->a[(i - 1) / 4].lo) bkq_up(q, h, i, e);
        else bkq_down(q, h, i, e);
      }
      return ADE_OK;
    }
  }
  if (ob == BKQ_OVER) pkq_del(&q->over, x);
  else if (ob != BKQ_NONE) bkq_take(q, ob, x);
  q->bk[x] = BKQ_NONE;
  if (nb == BKQ_OVER) {
    if (!(st = pkq_set(&q->over, &key, x))) q->bk[x] = BKQ_OVER;
    return st;
  }
  return bkq_insert(q, nb, key.lo, x);
}

/* Append x (not queued) with key key, out of order; bkq_heapify restores
 * the order: a bulk build in linear time. */
static inline int bkq_append(ade__bkq *q, ade__pk key, size_t x) {
  int st = x < q->pcap ? ADE_OK : bkq_index_room(q, x);
  if (st) return st;
  uint32_t b = bkq_bucket(key.hi);
  if (b != BKQ_OVER) return bkq_push_run(q, b, key.lo, x);
  if (!(st = pkq_append(&q->over, &key, x))) q->bk[x] = BKQ_OVER;
  return st;
}

/* The runs that are not sorted go into their buckets' heaps; Floyd's
 * build of every heap and of over. */
static inline int bkq_heapify(ade__bkq *q) {
  for (uint32_t w = 0; w < ADE__BKQ_N / 64; w++)
    for (uint64_t m = q->word[w]; m; m &= m - 1) {
      ade__bkheap *h = &q->b[w << 6 | (uint32_t)__builtin_ctzll(m)];
      size_t k = h->rc, last = SIZE_MAX;
      for (; k < h->rn; k++)
        if (h->r[k].x != SIZE_MAX) {
          if (last != SIZE_MAX && h->r[k].lo < h->r[last].lo) break;
          last = k;
        }
      if (k < h->rn) { /* not sorted */
        if (ade__grow((void **)&h->a, &h->cap, h->n + h->live, sizeof *h->a))
          return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", h->n + h->live);
        for (k = h->rc; k < h->rn; k++)
          if (h->r[k].x != SIZE_MAX) h->a[h->n++] = h->r[k];
        h->rc = h->rn = h->live = 0;
        for (k = 0; k < h->n; k++) q->pos[h->a[k].x] = k;
      }
      for (size_t i = h->n < 2 ? 0 : (h->n - 2) / 4 + 1; i-- > 0;) bkq_down(q, h, i, h->a[i]);
    }
  pkq_heapify(&q->over);
  return ADE_OK;
}

/* Remove x if queued. */
static inline void bkq_del(ade__bkq *q, size_t x) {
  if (x >= q->pcap || q->bk[x] == BKQ_NONE) return;
  if (q->bk[x] == BKQ_OVER) pkq_del(&q->over, x);
  else bkq_take(q, q->bk[x], x);
  q->bk[x] = BKQ_NONE;
}

/* The least entry out into *top: the least bucket's top or over's. */
static inline __attribute__((always_inline)) int bkq_pop(ade__bkq *q, ade__pkent *top) {
  if (!q->top) {
    if (!pkq_pop(&q->over, top)) return 0;
    q->bk[top->x] = BKQ_NONE;
    return 1;
  }
  uint32_t w = (uint32_t)__builtin_ctzll(q->top), b = w << 6 | (uint32_t)__builtin_ctzll(q->word[w]);
  ade__bkheap *h = &q->b[b];
  while (h->rc < h->rn && h->r[h->rc].x == SIZE_MAX) h->rc++; /* the holes before the run's least */
  const ade__bkent *t = h->rc < h->rn && (!h->n || h->r[h->rc].lo < h->a[0].lo) ? &h->r[h->rc] : &h->a[0];
  ade__pk k = {bkq_hi(b), t->lo};
  if (q->over.n && pkq_less(&q->over.a[0].k, &k)) {
    pkq_pop(&q->over, top);
    q->bk[top->x] = BKQ_NONE;
    return 1;
  }
  top->k = k;
  top->x = t->x;
  bkq_take(q, b, top->x);
  q->bk[top->x] = BKQ_NONE;
  return 1;
}

/* x's queued key into *k; 0 if x is not queued (the checking mode). */
static inline int bkq_key(const ade__bkq *q, size_t x, ade__pk *k) {
  if (x >= q->pcap || q->bk[x] == BKQ_NONE) return 0;
  if (q->bk[x] == BKQ_OVER) {
    *k = q->over.a[q->over.pos[x]].k;
    return 1;
  }
  const ade__bkheap *h = &q->b[q->bk[x]];
  size_t i = q->pos[x];
  k->hi = bkq_hi(q->bk[x]);
  k->lo = i & ADE__BKQ_RUN ? h->r[i & ~ADE__BKQ_RUN].lo : h->a[i].lo;
  return 1;
}

static inline void bkq_release(ade__bkq *q) {
  if (q->b)
    for (size_t b = 0; b < ADE__BKQ_N; b++) ade__free(q->b[b].a), ade__free(q->b[b].r);
  ade__free(q->b);
  ade__free(q->pos);
  ade__free(q->bk);
  pkq_release(&q->over);
  memset(q, 0, sizeof *q);
}

#endif
