/* u64map.c: the one hash table: 64-bit keys to 64-bit values, open addressing (live sets, edge pushing's edge lookup, the recorder's imports and call sites). */
#include "u64map_internal.h"

#define EMPTY UINT64_MAX

static size_t home(const ade__u64map *m, uint64_t k) {
  k ^= k >> 31;
  k *= 0x9e3779b97f4a7c15ull;
  return (size_t)(k >> 20) & (m->cap - 1);
}

void ade__u64map_free(ade__u64map *m) {
  ade__free(m->key);
  ade__free(m->val);
  memset(m, 0, sizeof *m);
}

uint64_t *ade__u64map_find(const ade__u64map *m, uint64_t k) {
  if (!m->cap) return NULL;
  for (size_t h = home(m, k);; h = (h + 1) & (m->cap - 1)) {
    if (m->key[h] == k) return &m->val[h];
    if (m->key[h] == EMPTY) return NULL;
  }
}

static int grow(ade__u64map *m) {
  ade__u64map b = {NULL, NULL, m->cap ? 2 * m->cap : 64, 0};
  b.key = ade__alloc(ade__mul_size(b.cap, sizeof *b.key));
  b.val = ade__alloc(ade__mul_size(b.cap, sizeof *b.val));
  if (!b.key || !b.val) {
    ade__u64map_free(&b);
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
  ade__u64map_free(m);
  *m = b;
  return ADE_OK;
}

uint64_t *ade__u64map_put(ade__u64map *m, uint64_t k, uint64_t v, int *isnew) {
  uint64_t *p = ade__u64map_find(m, k);
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

void ade__u64map_clear(ade__u64map *m) {
  if (m->n) memset(m->key, 0xff, m->cap * sizeof *m->key);
  m->n = 0;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
void ade__u64map_del(ade__u64map *m, uint64_t k) {
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
