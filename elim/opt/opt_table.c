/* opt_table.c: the optimizers' state table (exact keys, open addressing, a byte limit) and their clock (limits and progress reports). */
#include <time.h>

#include "opt_internal.h"

#define EMPTY SIZE_MAX

static uint64_t hash_key(const uint64_t *k, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
  for (size_t i = 0; i < len; i++) {
    h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
  }
  return h ^ (h >> 32);
}

static size_t entry_bytes(void) { return 2 * sizeof(uint64_t) + sizeof(size_t) + sizeof(uint32_t); }

static int alloc_slots(ade__table *t, size_t cap) {
  t->hash = ade__alloc(cap * sizeof *t->hash);
  t->val = ade__alloc(cap * sizeof *t->val);
  t->off = ade__alloc(cap * sizeof *t->off);
  t->len = ade__alloc(cap * sizeof *t->len);
  if (!t->hash || !t->val || !t->off || !t->len) return ade__fail(ADE_ENOMEM, "out of memory for a state table of %zu", cap);
  for (size_t i = 0; i < cap; i++) t->off[i] = EMPTY;
  t->cap = cap;
  return ADE_OK;
}

static void free_slots(ade__table *t) {
  ade__free(t->hash);
  ade__free(t->val);
  ade__free(t->off);
  ade__free(t->len);
}

int ade__table_init(ade__table *t, size_t limit) {
  memset(t, 0, sizeof *t);
  t->limit = limit ? limit : (size_t)256 << 20;
  int st = alloc_slots(t, 64);
  if (st) ade__table_free(t);
  return st;
}

void ade__table_free(ade__table *t) {
  free_slots(t);
  ade__free(t->arena);
  memset(t, 0, sizeof *t);
}

static size_t find(const ade__table *t, uint64_t h, const uint64_t *key, size_t len) {
  for (size_t i = (size_t)h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    if (t->off[i] == EMPTY) return i;
    if (t->hash[i] == h && t->len[i] == len && !memcmp(t->arena + t->off[i], key, len * sizeof *key)) return i;
  }
}

int ade__table_get(const ade__table *t, const uint64_t *key, size_t len, uint64_t *val) {
  size_t i = find(t, hash_key(key, len), key, len);
  if (t->off[i] == EMPTY) return 0;
  *val = t->val[i];
  return 1;
}

static size_t bytes(size_t cap, size_t acap) {
  return cap * entry_bytes() + acap * sizeof(uint64_t);
}

static int grow(ade__table *t) {
  ade__table n = *t;
  size_t nc = 2 * t->cap;
  if (bytes(nc, t->acap) > t->limit) return ADE_ETOOBIG;
  if (alloc_slots(&n, nc)) {
    free_slots(&n);
    return ADE_ENOMEM;
  }
  for (size_t i = 0; i < t->cap; i++) {
    if (t->off[i] == EMPTY) continue;
    size_t j = (size_t)t->hash[i] & (nc - 1);
    while (n.off[j] != EMPTY) j = (j + 1) & (nc - 1);
    n.hash[j] = t->hash[i], n.val[j] = t->val[i], n.off[j] = t->off[i], n.len[j] = t->len[i];
  }
  free_slots(t);
  *t = n;
  return ADE_OK;
}

static int arena_room(ade__table *t, size_t len) {
  if (t->alen + len <= t->acap) return ADE_OK;
  size_t nc = t->acap ? 2 * t->acap : 4096;
  while (nc < t->alen + len) nc *= 2;
  if (bytes(t->cap, nc) > t->limit) return ADE_ETOOBIG;
  uint64_t *p = ade__realloc(t->arena, nc * sizeof *p);
  if (!p) return ADE_ENOMEM;
  t->arena = p;
  t->acap = nc;
  return ADE_OK;
}

int ade__table_put(ade__table *t, const uint64_t *key, size_t len, uint64_t val) {
  uint64_t h = hash_key(key, len);
  size_t i = find(t, h, key, len);
  if (t->off[i] != EMPTY) {
    t->val[i] = val;
    return ADE_OK;
  }
  int st = t->full ? ADE_ETOOBIG : ADE_OK;
  if (!st && 2 * (t->used + 1) > t->cap && !(st = grow(t))) i = find(t, h, key, len);
  if (!st) st = arena_room(t, len);
  if (st) {
    if (st == ADE_ETOOBIG) t->full = 1;
    return st == ADE_ENOMEM ? ade__fail(st, "out of memory for the state table") : st;
  }
  memcpy(t->arena + t->alen, key, len * sizeof *key);
  t->hash[i] = h, t->val[i] = val, t->off[i] = t->alen, t->len[i] = (uint32_t)len;
  t->alen += len;
  t->used++;
  return ADE_OK;
}

/* ----------------------------------------------------------------- clock */

int ade__limits_check(const ade_opt_limits *lim, const char *who) {
  if (lim->time_limit >= 0 && lim->progress_interval >= 0) return ADE_OK;
  return ade__fail(ADE_EINVAL, "%s: bad time limit %g or progress interval %g", who, lim->time_limit,
                   lim->progress_interval);
}

void ade__clock_start(ade__clock *c, const ade_opt_limits *lim) {
  c->lim = lim;
  c->t0 = ade__now();
  c->deadline = lim && lim->time_limit > 0 ? c->t0 + lim->time_limit : 0;
  c->interval = lim && lim->progress_interval > 0 ? lim->progress_interval : 1.0;
  c->next_report = c->t0 + c->interval;
  c->node_limit = lim ? lim->node_limit : 0;
}

void ade__clock_part(const ade__clock *c, double frac, ade__clock *part) {
  *part = *c;
  part->node_limit = 0;
  double t = ade__now(), left = c->deadline - t;
  if (c->deadline > 0) part->deadline = left > 0 ? t + frac * left : c->deadline;
}

double ade__clock_share(const ade__clock *c, double frac) {
  double left = c->deadline - ade__now();
  return c->deadline <= 0 ? 0 : left > 1e-3 ? frac * left : 1e-3 * frac;
}

int ade__clock_expired(const ade__clock *c, uint64_t nodes) {
  if (c->node_limit && nodes >= c->node_limit) return 1;
  return c->deadline > 0 && ade__now() >= c->deadline;
}

void ade__clock_quiet(const ade__clock *c, ade__clock *q, ade_opt_limits *ql) {
  *q = *c;
  if (c->lim) *ql = *c->lim, ql->progress = NULL, q->lim = ql;
}

void ade__clock_report(ade__clock *c, int method, int kind, uint64_t inc, uint64_t bound, uint64_t nodes,
                       uint64_t cuts) {
  double t = ade__now();
  if (!c->lim || !c->lim->progress || t < c->next_report) return;
  c->next_report = t + c->interval;
  ade_opt_progress p = {method, kind, t - c->t0, inc, bound, nodes, cuts};
  c->lim->progress(c->lim->progress_ud, &p);
}
