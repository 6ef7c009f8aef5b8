/* hmap.c: a 64-bit key to 64-bit value open-addressing hash map (live sets, edge lookup). */
#include "hessian_internal.h"

#define EMPTY UINT64_MAX

static size_t home(const ade__hmap *m, uint64_t k) {
  k ^= k >> 31;
  k *= 0x9e3779b97f4a7c15ull;
  return (size_t)(k >> 20) & (m->cap - 1);
}

void ade__hmap_free(ade__hmap *m) {
  ade__free(m->key);
  ade__free(m->val);
  memset(m, 0, sizeof *m);
}

uint64_t *ade__hmap_find(const ade__hmap *m, uint64_t k) {
  if (!m->cap) return NULL;
  for (size_t h = home(m, k);; h = (h + 1) & (m->cap - 1)) {
    if (m->key[h] == k) return &m->val[h];
    if (m->key[h] == EMPTY) return NULL;
  }
}

static int grow(ade__hmap *m) {
  ade__hmap b = {NULL, NULL, m->cap ? 2 * m->cap : 64, 0};
  b.key = ade__alloc(ade__mul_size(b.cap, sizeof *b.key));
  b.val = ade__alloc(ade__mul_size(b.cap, sizeof *b.val));
  if (!b.key || !b.val) {
    ade__hmap_free(&b);
    return ADE_ENOMEM;
  }
  memset(b.key, 0xff, b.cap * sizeof *b.key);
  for (size_t i = 0; i < m->cap; i++) {
    if (m->key[i] == EMPTY) continue;
    size_t h = home(&b, m->key[i]);
    while (b.key[h] != EMPTY) h = (h + 1) & (b.cap - 1);
    b.key[h] = m->key[i];
    b.val[h] = m->val[i];
  }
  b.n = m->n;
  ade__hmap_free(m);
  *m = b;
  return ADE_OK;
}

uint64_t *ade__hmap_put(ade__hmap *m, uint64_t k, uint64_t v, int *isnew) {
  uint64_t *p = ade__hmap_find(m, k);
  *isnew = !p;
  if (p) return p;
  if (2 * (m->n + 1) > m->cap && grow(m)) return NULL;
  size_t h = home(m, k);
  while (m->key[h] != EMPTY) h = (h + 1) & (m->cap - 1);
  m->key[h] = k;
  m->val[h] = v;
  m->n++;
  return &m->val[h];
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
void ade__hmap_del(ade__hmap *m, uint64_t k) {
  if (!m->cap) return;
  size_t h = home(m, k);
  while (m->key[h] != k) {
    if (m->key[h] == EMPTY) return;
    h = (h + 1) & (m->cap - 1);
  }
  for (size_t j = (h + 1) & (m->cap - 1); m->key[j] != EMPTY; j = (j + 1) & (m->cap - 1)) {
    size_t o = home(m, m->key[j]);
    if ((j > h && (o <= h || o > j)) || (j < h && o <= h && o > j)) {
      m->key[h] = m->key[j];
      m->val[h] = m->val[j];
      h = j;
    }
  }
  m->key[h] = EMPTY;
  m->n--;
}
