/* ttable.c: a transposition table for branch and bound: line dag states seen, with the least cost they were reached at. */
#include <pthread.h>
#include <stdlib.h>

#include "mission_internal.h"

#define SHARDS 64

typedef struct entry {
  uint64_t h, g;
  size_t off;     /* key words in the pool */
  uint32_t len;   /* 0: empty slot */
} entry;

typedef struct shard {
  pthread_mutex_t mu;
  entry *e;
  size_t cap, n;
  uint32_t *pool;
  size_t npool, cappool;
} shard;

struct ade__ttab {
  shard s[SHARDS];
  size_t bytes, max_bytes;   /* approximate, over all shards */
};

int ade__ttab_create(ade__ttab **t, size_t max_bytes) {
  *t = ade__calloc(1, sizeof **t);
  if (!*t) return ade__fail(ADE_ENOMEM, "bnb: out of memory");
  for (int i = 0; i < SHARDS; i++) pthread_mutex_init(&(*t)->s[i].mu, NULL);
  (*t)->max_bytes = max_bytes;
  return ADE_OK;
}

void ade__ttab_free(ade__ttab *t) {
  if (!t) return;
  for (int i = 0; i < SHARDS; i++) {
    pthread_mutex_destroy(&t->s[i].mu);
    ade__free(t->s[i].e);
    ade__free(t->s[i].pool);
  }
  ade__free(t);
}

/* Four independent lanes (a key is a hundred words or more: one chain
 * of multiplies would wait on each), mixed at the end. */
static uint64_t hash_key(const uint32_t *k, size_t n) {
  const uint64_t m = 0xff51afd7ed558ccdull;
  uint64_t h[4] = {0x9e3779b97f4a7c15ull ^ n, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull};
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; l++) h[l] = (h[l] ^ k[i + (size_t)l]) * m;
  for (; i < n; i++) h[0] = (h[0] ^ k[i]) * m;
  uint64_t x = h[0];
  for (int l = 1; l < 4; l++) x = (x ^ (x >> 32) ^ h[l]) * m;
  return x ^ (x >> 29);
}

/* Double the shard's table (rehash); 0 on success. */
static int rehash(ade__ttab *t, shard *s) {
  size_t nc = s->cap ? 2 * s->cap : 256;
  if (t->bytes + nc * sizeof(entry) > t->max_bytes) return -1;
  entry *e = ade__calloc(nc, sizeof *e);
  if (!e) return -1;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->e[i].len) continue;
    size_t j = s->e[i].h & (nc - 1);
    while (e[j].len) j = (j + 1) & (nc - 1);
    e[j] = s->e[i];
  }
  t->bytes += (nc - s->cap) * sizeof(entry);
  ade__free(s->e);
  s->e = e;
  s->cap = nc;
  return 0;
}

static int store(ade__ttab *t, shard *s, const uint32_t *k, size_t n, uint64_t h, uint64_t g) {
  if ((s->n + 1) * 2 > s->cap && rehash(t, s)) return 0;
  if (s->npool + n > s->cappool) {
    size_t nc = ADE__MAX(2 * s->cappool, s->npool + n + 1024);
    if (t->bytes + (nc - s->cappool) * 4 > t->max_bytes) return 0;
    uint32_t *p = ade__realloc(s->pool, nc * sizeof *p);
    if (!p) return 0;
    t->bytes += (nc - s->cappool) * 4;
    s->pool = p;
    s->cappool = nc;
  }
  size_t j = h & (s->cap - 1);
  while (s->e[j].len) j = (j + 1) & (s->cap - 1);
  memcpy(s->pool + s->npool, k, n * sizeof *k);
  s->e[j] = (entry){h, g, s->npool, (uint32_t)n};
  s->npool += n;
  s->n++;
  return 0;
}

/* 1 if the state was reached before at no more than g (prune); otherwise
 * remember g (when there is room) and return 0. */
int ade__ttab_visit(ade__ttab *t, const uint32_t *k, size_t n, uint64_t g) {
  uint64_t h = hash_key(k, n);
  shard *s = &t->s[(h >> 58) % SHARDS];
  int prune = 0, found = 0;
  pthread_mutex_lock(&s->mu);
  for (size_t j = s->cap ? h & (s->cap - 1) : 0; s->cap && s->e[j].len; j = (j + 1) & (s->cap - 1)) {
    entry *e = &s->e[j];
    if (e->h != h || e->len != n || memcmp(s->pool + e->off, k, n * sizeof *k)) continue;
    found = 1;
    if (e->g <= g) prune = 1;
    else e->g = g;
    break;
  }
  if (!found) store(t, s, k, n, h, g);
  pthread_mutex_unlock(&s->mu);
  return prune;
}
