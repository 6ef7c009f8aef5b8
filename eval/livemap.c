/* livemap.c: adjoints of the live variables only, keyed by id (bounded-memory reverse sweeps). */
#include "eval_internal.h"

static size_t slot(const ade__livemap *m, uint64_t id) {
  return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
}

void ade__livemap_free(ade__livemap *m) {
  ade__free(m->key);
  ade__free(m->val);
  memset(m, 0, sizeof *m);
}

double *ade__livemap_find(const ade__livemap *m, uint64_t id) {
  if (!m->cap) return NULL;
  for (size_t h = slot(m, id);; h = (h + 1) & (m->cap - 1)) {
    if (m->key[h] == id) return m->val + h * m->q;
    if (!m->key[h]) return NULL;
  }
}

static int grow(ade__livemap *m) {
  ade__livemap b = {NULL, NULL, m->cap ? 2 * m->cap : 1024, 0, m->q, m->peak};
  b.key = ade__calloc(b.cap, sizeof *b.key);
  b.val = ade__alloc(ade__mul_size(b.cap, m->q * sizeof *b.val));
  if (!b.key || !b.val) {
    ade__livemap_free(&b);
    return ADE_ENOMEM;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->key[i]) continue;
    size_t h = slot(&b, m->key[i]);
    while (b.key[h]) h = (h + 1) & (b.cap - 1);
    b.key[h] = m->key[i];
    memcpy(b.val + h * m->q, m->val + i * m->q, m->q * sizeof *b.val);
  }
  b.n = m->n;
  ade__livemap_free(m);
  *m = b;
  return ADE_OK;
}

double *ade__livemap_get(ade__livemap *m, uint64_t id) {
  double *v = ade__livemap_find(m, id);
  if (v) return v;
  if (2 * (m->n + 1) > m->cap && grow(m)) return NULL;
  size_t h = slot(m, id);
  while (m->key[h]) h = (h + 1) & (m->cap - 1);
  m->key[h] = id;
  v = m->val + h * m->q;
  memset(v, 0, m->q * sizeof *v);
  if (++m->n > m->peak) m->peak = m->n;
  return v;
}

/* Linear probing with backward-shift deletion: no tombstones. */
void ade__livemap_remove(ade__livemap *m, uint64_t id) {
  if (!m->cap) return;
  size_t h = slot(m, id);
  while (m->key[h] != id) {
    if (!m->key[h]) return;
    h = (h + 1) & (m->cap - 1);
  }
  for (size_t j = (h + 1) & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1)) {
    size_t home = slot(m, m->key[j]);
    /* Move j back to h unless its home lies cyclically in (h, j]. */
    if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
      m->key[h] = m->key[j];
      memcpy(m->val + h * m->q, m->val + j * m->q, m->q * sizeof *m->val);
      h = j;
    }
  }
  m->key[h] = 0;
  m->n--;
}
