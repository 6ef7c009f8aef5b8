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

/* ---------------------------------------------------- the indexed heap */

/* Move entry e up from hole i, then down: its place after a change of
 * key (or an insertion at the end, or a removal into hole i). */
static void ipq_place(ade__ipq *q, size_t i, const ade__pqent *e) {
  ade__pqent *a = q->a;
  int up = 0;
  while (i && ade__pq_less(e->k, a[(i - 1) / ARITY].k)) {
    size_t p = (i - 1) / ARITY;
    a[i] = a[p];
    q->pos[a[i].x] = i;
    i = p, up = 1;
  }
  while (!up) {
    size_t c = ARITY * i + 1, s = c, end = c + ARITY < q->n ? c + ARITY : q->n;
    if (c >= q->n) break;
    for (size_t k = c + 1; k < end; k++)
      if (ade__pq_less(a[k].k, a[s].k)) s = k;
    if (!ade__pq_less(a[s].k, e->k)) break;
    a[i] = a[s];
    q->pos[a[i].x] = i;
    i = s;
  }
  a[i] = *e;
  q->pos[e->x] = i;
}

int ade__ipq_set(ade__ipq *q, const long *key, size_t x) {
  if (x >= q->pcap) {
    size_t nc = 2 * x + 64;
    size_t *p = ade__realloc(q->pos, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a priority queue index of %zu", nc);
    for (size_t i = q->pcap; i < nc; i++) p[i] = SIZE_MAX;
    q->pos = p;
    q->pcap = nc;
  }
  ade__pqent e;
  memcpy(e.k, key, sizeof e.k);
  e.x = x;
  size_t i = q->pos[x];
  if (i != SIZE_MAX) {
    if (!memcmp(q->a[i].k, key, sizeof e.k)) return ADE_OK;
    ipq_place(q, i, &e);
    return ADE_OK;
  }
  if (q->n == q->cap) {
    size_t nc = q->cap ? 2 * q->cap : 64;
    ade__pqent *p = ade__realloc(q->a, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", nc);
    q->a = p;
    q->cap = nc;
  }
  ipq_place(q, q->n++, &e);
  return ADE_OK;
}

/* Remove the entry at place i: the last entry fills the hole. */
static void ipq_remove(ade__ipq *q, size_t i) {
  q->pos[q->a[i].x] = SIZE_MAX;
  ade__pqent e = q->a[--q->n];
  if (i < q->n) ipq_place(q, i, &e);
}

void ade__ipq_del(ade__ipq *q, size_t x) {
  if (x < q->pcap && q->pos[x] != SIZE_MAX) ipq_remove(q, q->pos[x]);
}

/* The root's hole goes down to a leaf along the least children, then the
 * last entry goes up from there (Floyd): it nearly always belongs near
 * the bottom, so this saves the comparison with it on every level. */
int ade__ipq_pop(ade__ipq *q, ade__pqent *top) {
  if (!q->n) return 0;
  ade__pqent *a = q->a;
  *top = a[0];
  q->pos[top->x] = SIZE_MAX;
  ade__pqent e = a[--q->n];
  if (!q->n) return 1;
  size_t i = 0;
  for (;;) {
    size_t c = ARITY * i + 1, s = c, end = c + ARITY < q->n ? c + ARITY : q->n;
    if (c >= q->n) break;
    for (size_t k = c + 1; k < end; k++)
      if (ade__pq_less(a[k].k, a[s].k)) s = k;
    a[i] = a[s];
    q->pos[a[i].x] = i;
    i = s;
  }
  while (i && ade__pq_less(e.k, a[(i - 1) / ARITY].k)) {
    size_t p = (i - 1) / ARITY;
    a[i] = a[p];
    q->pos[a[i].x] = i;
    i = p;
  }
  a[i] = e;
  q->pos[e.x] = i;
  return 1;
}

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
