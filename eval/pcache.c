/* pcache.c: caches of plans keyed by the structure hash of a tape, for any kind of plan (Jacobian plans in elim/cache.c, Hessian plans in hessian/hess_cache.c). */
#include "eval_internal.h"

static int shape_of(ade_tape *t, ade__shape *s) {
  int st = ade__tape_shape(t, s->h);
  if (st) return st;
  const ade__meta *m = &t->meta;
  s->records = m->records, s->nchunks = m->nchunks, s->n = m->nindep, s->m = m->ndep;
  memcpy(s->opcount, m->opcount, sizeof s->opcount);
  s->chunkrec = NULL;
  return ADE_OK;
}

/* The same structure: second hash, counts, and chunk by chunk. */
static int shape_same(const ade__shape *a, const ade_tape *t, const ade__shape *b) {
  if (a->h[1] != b->h[1] || a->records != b->records || a->nchunks != b->nchunks || a->n != b->n ||
      a->m != b->m || memcmp(a->opcount, b->opcount, sizeof a->opcount))
    return 0;
  for (size_t c = 0; c < a->nchunks; c++)
    if (a->chunkrec[c] != t->meta.chunks[c].records) return 0;
  return 1;
}

static int shape_keep(ade__shape *s, const ade_tape *t) {
  s->chunkrec = ade__alloc((s->nchunks + 1) * sizeof *s->chunkrec);
  if (!s->chunkrec) return ade__fail(ADE_ENOMEM, "out of memory for a cache entry");
  for (size_t c = 0; c < s->nchunks; c++) s->chunkrec[c] = t->meta.chunks[c].records;
  return ADE_OK;
}

int ade__pcache_init(ade__pcache *c, size_t capacity, void (*retain)(void *), void (*release)(void *)) {
  if (!capacity) capacity = 16;
  if (capacity > ((size_t)1 << 20)) return ade__fail(ADE_EINVAL, "a plan cache of %zu plans is too large", capacity);
  memset(c, 0, sizeof *c);
  if (!(c->e = ade__calloc(capacity, sizeof *c->e))) return ade__fail(ADE_ENOMEM, "out of memory for a plan cache");
  if (pthread_mutex_init(&c->mu, NULL)) {
    ade__free(c->e);
    return ade__fail(ADE_ENOMEM, "cannot create a mutex");
  }
  c->cap = c->st.capacity = capacity;
  c->retain = retain, c->release = release;
  return ADE_OK;
}

static void entry_free(ade__pcache *c, ade__pentry *e) {
  c->release(e->p);
  ade__free(e->s.chunkrec);
  memset(e, 0, sizeof *e);
}

void ade__pcache_fini(ade__pcache *c) {
  for (size_t i = 0; i < c->n; i++) entry_free(c, &c->e[i]);
  pthread_mutex_destroy(&c->mu);
  ade__free(c->e);
}

void ade__pcache_report(ade__pcache *c, ade_plan_cache_stats *s) {
  pthread_mutex_lock(&c->mu);
  *s = c->st;
  s->entries = c->n;
  pthread_mutex_unlock(&c->mu);
}

/* Under the lock: the entry for (s, method), retained, or NULL. */
static void *lookup(ade__pcache *c, const ade_tape *t, const ade__shape *s, int method) {
  for (size_t i = 0; i < c->n; i++) {
    ade__pentry *e = &c->e[i];
    if (e->s.h[0] != s->h[0] || e->method != method) continue;
    if (!shape_same(&e->s, t, s)) {
      c->st.collisions++;
      continue;
    }
    e->used = ++c->tick;
    c->retain(e->p);
    return e->p;
  }
  return NULL;
}

/* Under the lock: keep p for (s, method) (s's chunk list is taken), in a
 * free slot or the least recently used one's. Another thread may have
 * inserted the same structure meanwhile: then p is simply not kept. */
static void insert(ade__pcache *c, const ade_tape *t, ade__shape *s, int method, void *p) {
  for (size_t i = 0; i < c->n; i++)
    if (c->e[i].s.h[0] == s->h[0] && c->e[i].method == method && shape_same(&c->e[i].s, t, s)) return;
  size_t k = c->n;
  if (k == c->cap) {
    k = 0;
    for (size_t i = 1; i < c->n; i++)
      if (c->e[i].used < c->e[k].used) k = i;
    entry_free(c, &c->e[k]);
    c->st.evictions++;
  } else {
    c->n++;
  }
  c->retain(p);
  c->e[k] = (ade__pentry){*s, method, p, ++c->tick};
  s->chunkrec = NULL;
}

int ade__pcache_get(ade__pcache *c, ade_tape *t, int method, int (*make)(void *ctx, ade_tape *t, int method, void **p),
                    void *ctx, void **pp, int *hit) {
  ade__shape s;
  *pp = NULL;
  if (hit) *hit = 0;
  int st = shape_of(t, &s);
  if (st) return st;
  pthread_mutex_lock(&c->mu);
  void *p = lookup(c, t, &s, method);
  if (p) c->st.hits++;
  pthread_mutex_unlock(&c->mu);
  if (p) {
    if (hit) *hit = 1;
    *pp = p;
    return ADE_OK;
  }
  /* A miss: build outside the lock (other threads go on), then keep it. */
  st = make(ctx, t, method, &p);
  if (!st) st = shape_keep(&s, t);
  if (!st) {
    pthread_mutex_lock(&c->mu);
    c->st.misses++;
    insert(c, t, &s, method, p);
    pthread_mutex_unlock(&c->mu);
    *pp = p;
  } else if (p) {
    c->release(p);
  }
  ade__free(s.chunkrec);
  return st;
}
