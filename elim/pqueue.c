/* pqueue.c: a 4-ary min-heap of keyed entries with lazy deletion, shared by the greedy orderings. */
#include "elim_internal.h"

/* Lexicographic order of key tuples. */
int ade__pq_less(const long *x, const long *y) {
  for (int i = 0; i < ADE__PQ_KEYS; i++)
    if (x[i] != y[i]) return x[i] < y[i];
  return 0;
}

/* A 4-ary heap: half the levels of a binary one, the children of a node
 * side by side; entries move into a hole instead of being swapped. */
#define ARITY 4

/* Grow the record of the last queued key per index to cover x. */
static int track(ade__pq *h, size_t x) {
  if (x < h->tcap) return ADE_OK;
  size_t nc = 2 * x + 64;
  ade__pqent *p = ade__realloc(h->last, ade__mul_size(nc, sizeof *p));
  if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a priority queue index of %zu", nc);
  for (size_t i = h->tcap; i < nc; i++) p[i].x = 0;
  h->last = p;
  h->tcap = nc;
  return ADE_OK;
}

/* With h->track, an index whose last pushed entry is still queued with
 * the same key is not pushed again (.x of last[x]: 1 while queued). */
int ade__pq_push(ade__pq *h, const long *key, size_t x) {
  if (h->track) {
    if (track(h, x)) return ADE_ENOMEM;
    if (h->last[x].x && !memcmp(h->last[x].k, key, sizeof h->last[x].k)) return ADE_OK;
    memcpy(h->last[x].k, key, sizeof h->last[x].k);
    h->last[x].x = 1;
  }
  if (h->n == h->cap) {
    size_t nc = h->cap ? 2 * h->cap : 64;
    ade__pqent *p = ade__realloc(h->a, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", nc);
    h->a = p;
    h->cap = nc;
  }
  ade__pqent e;
  memcpy(e.k, key, sizeof e.k);
  e.x = x;
  size_t i = h->n++;
  for (; i && ade__pq_less(e.k, h->a[(i - 1) / ARITY].k); i = (i - 1) / ARITY) h->a[i] = h->a[(i - 1) / ARITY];
  h->a[i] = e;
  return ADE_OK;
}

int ade__pq_pop(ade__pq *h, ade__pqent *top) {
  if (!h->n) return 0;
  *top = h->a[0];
  if (h->track && h->last[top->x].x && !memcmp(h->last[top->x].k, top->k, sizeof top->k)) h->last[top->x].x = 0;
  ade__pqent e = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = ARITY * i + 1, s = c, end = c + ARITY < h->n ? c + ARITY : h->n;
    if (c >= h->n) break;
    for (size_t k = c + 1; k < end; k++)
      if (ade__pq_less(h->a[k].k, h->a[s].k)) s = k;
    if (!ade__pq_less(h->a[s].k, e.k)) break;
    h->a[i] = h->a[s];
    i = s;
  }
  if (h->n) h->a[i] = e;
  return 1;
}

void ade__pq_free(ade__pq *h) {
  ade__free(h->a);
  ade__free(h->last);
  memset(h, 0, sizeof *h);
}

/* ---------------------------------------------------- the indexed heaps */

/* ade__ipq: keys of ADE__PQ_KEYS longs. */
typedef long tuple[ADE__PQ_KEYS];
#define Q ade__ipq
#define E ade__pqent
#define K tuple
#define LESS(x, y) ade__pq_less(*(x), *(y))
#define F(name) ipq_##name
#include "pqueue_impl.h"
#undef Q
#undef E
#undef K
#undef LESS
#undef F

/* ade__pkq: keys of two words, the high one first. */
static inline int pk_less(const ade__pk *x, const ade__pk *y) { return x->hi < y->hi || (x->hi == y->hi && x->lo < y->lo); }
#define Q ade__pkq
#define E ade__pkent
#define K ade__pk
#define LESS(x, y) pk_less(x, y)
#define F(name) pkq_##name
#include "pqueue_impl.h"
#undef Q
#undef E
#undef K
#undef LESS
#undef F

int ade__pkq_set(ade__pkq *q, ade__pk key, size_t x) { return pkq_set(q, &key, x); }
void ade__pkq_del(ade__pkq *q, size_t x) { pkq_del(q, x); }
int ade__pkq_pop(ade__pkq *q, ade__pkent *top) { return pkq_pop(q, top); }

void ade__pkq_free(ade__pkq *q) {
  ade__free(q->a);
  ade__free(q->pos);
  memset(q, 0, sizeof *q);
}

int ade__ipq_set(ade__ipq *q, const long *key, size_t x) { return ipq_set(q, (const tuple *)key, x); }
void ade__ipq_del(ade__ipq *q, size_t x) { ipq_del(q, x); }
int ade__ipq_pop(ade__ipq *q, ade__pqent *top) { return ipq_pop(q, top); }

void ade__ipq_free(ade__ipq *q) {
  ade__free(q->a);
  ade__free(q->pos);
  memset(q, 0, sizeof *q);
}

int ade__ix_push(ade__ix *b, size_t v) {
  if (b->n == b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 64;
    size_t *p = ade__realloc(b->a, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a list of %zu", nc);
    b->a = p;
    b->cap = nc;
  }
  b->a[b->n++] = v;
  return ADE_OK;
}

void ade__ix_free(ade__ix *b) {
  ade__free(b->a);
  memset(b, 0, sizeof *b);
}
