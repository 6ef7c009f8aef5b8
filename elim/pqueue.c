/* pqueue.c: a binary min-heap of keyed entries with lazy deletion, shared by the greedy orderings. */
#include "elim_internal.h"

/* Lexicographic order of key tuples. */
int ade__pq_less(const long *x, const long *y) {
  for (int i = 0; i < ADE__PQ_KEYS; i++)
    if (x[i] != y[i]) return x[i] < y[i];
  return 0;
}

static void swap(ade__pqent *a, size_t i, size_t j) {
  ade__pqent t = a[i];
  a[i] = a[j];
  a[j] = t;
}

int ade__pq_push(ade__pq *h, const long *key, size_t x) {
  if (h->n == h->cap) {
    size_t nc = h->cap ? 2 * h->cap : 64;
    ade__pqent *p = ade__realloc(h->a, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", nc);
    h->a = p;
    h->cap = nc;
  }
  size_t i = h->n++;
  memcpy(h->a[i].k, key, sizeof h->a[i].k);
  h->a[i].x = x;
  for (; i && ade__pq_less(h->a[i].k, h->a[(i - 1) / 2].k); i = (i - 1) / 2) swap(h->a, i, (i - 1) / 2);
  return ADE_OK;
}

int ade__pq_pop(ade__pq *h, ade__pqent *top) {
  if (!h->n) return 0;
  *top = h->a[0];
  h->a[0] = h->a[--h->n];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < h->n && ade__pq_less(h->a[l].k, h->a[s].k)) s = l;
    if (r < h->n && ade__pq_less(h->a[r].k, h->a[s].k)) s = r;
    if (s == i) break;
    swap(h->a, i, s);
    i = s;
  }
  return 1;
}

void ade__pq_free(ade__pq *h) {
  ade__free(h->a);
  memset(h, 0, sizeof *h);
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
