/* graph.c: the directed graph under elimination: adjacency lists, an edge index, insertion and deletion in O(1). */
#include "elim_internal.h"

/* The edge index: linear probing over entries that hold edge number + 1
 * in their low HBITS bits and the low TBITS bits of the key's hash above
 * them. The hash bits let a probe skip other keys without reading their
 * edge (a cache miss each), and, while the table has at most 2^TBITS
 * slots, they are the entry's home slot, so deletion moves entries back
 * without reading edges either. The hash: the two indices times two odd
 * constants, added, the high half folded onto the low (ade__hmix). Not an
 * ade__u64map: the index holds edge numbers only, keyed by the edges' own
 * (src, dst). */
_Static_assert(SIZE_MAX >= UINT64_MAX, "the edge index packs hash bits into a size_t");
#define HBITS ADE__HBITS
#define TBITS ADE__TBITS
#define HMASK ((UINT64_C(1) << HBITS) - 1)
#define TMASK ((UINT64_C(1) << TBITS) - 1)

static size_t hslot(const ade_cgraph *g, size_t src, size_t dst) { return (size_t)ade__hmix(src, dst) & (g->hcap - 1); }

static size_t hentry(size_t e, uint64_t z) { return (size_t)((uint64_t)(e + 1) | (z & TMASK) << HBITS); }

static size_t hedge(size_t x) { return (size_t)((uint64_t)x & HMASK) - 1; }

/* The home slot of entry x in a table of cap slots. */
static size_t hhome(const ade_cgraph *g, size_t x, size_t cap) {
  if (cap <= (size_t)1 << TBITS) return (size_t)((uint64_t)x >> HBITS) & (cap - 1);
  const ade__edge *e = &g->e[hedge(x)];
  return (size_t)ade__hmix(e->src, e->dst) & (cap - 1);
}

static int hgrow(ade_cgraph *g) {
  size_t cap = g->hcap ? 2 * g->hcap : 64, *old = g->htab, oldcap = g->hcap;
  size_t *t = ade__calloc(cap, sizeof *t);
  if (!t) return ade__fail(ADE_ENOMEM, "out of memory for an edge index of %zu slots", cap);
  g->htab = t;
  g->hcap = cap;
  for (size_t s = 0; s < oldcap; s++) {
    if (!old[s]) continue;
    size_t h = hhome(g, old[s], cap);
    while (t[h]) h = (h + 1) & (cap - 1);
    t[h] = old[s];
  }
  ade__free(old);
  return ADE_OK;
}

size_t ade__graph_scan_find(const ade_cgraph *g, size_t src, size_t dst) {
  const ade__vtx *s = &g->v[src], *d = &g->v[dst];
  if (s->nout <= d->nin) {
    for (size_t k = 0; k < s->nout; k++)
      if (g->e[s->out[k]].dst == dst) return s->out[k];
  } else {
    for (size_t k = 0; k < d->nin; k++)
      if (g->e[d->in[k]].src == src) return d->in[k];
  }
  return ADE__NONE;
}

/* Remove edge e from the index, shifting later entries of its run back. */
static inline __attribute__((always_inline)) void hdel(ade_cgraph *g, size_t e) {
  size_t mask = g->hcap - 1, h = hslot(g, g->e[e].src, g->e[e].dst);
  while (hedge(g->htab[h]) != e) h = (h + 1) & mask;
  for (size_t j = (h + 1) & mask; g->htab[j]; j = (j + 1) & mask) {
    size_t home = hhome(g, g->htab[j], g->hcap);
    /* Move the entry at j into the hole at h unless its home lies in (h, j]. */
    if (((j - home) & mask) >= ((j - h) & mask)) {
      g->htab[h] = g->htab[j];
      h = j;
    }
  }
  g->htab[h] = 0;
  g->hused--;
}

/* Capacity *cap (doubled as needed) for extra elements of size sz beyond used. */
static int room(void **p, size_t used, size_t *cap, size_t extra, size_t sz) {
  if (*cap - used >= extra) return ADE_OK;
  size_t nc = *cap ? 2 * *cap : 4;
  while (nc - used < extra) nc *= 2;
  void *q = ade__realloc(*p, ade__mul_size(nc, sz));
  if (!q) return ADE_ENOMEM;
  *p = q;
  *cap = nc;
  return ADE_OK;
}

/* Whether list p lies in g's slab (compared as addresses). */
static int in_slab(const ade_cgraph *g, const size_t *p) {
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)g->slab;
  return g->slab && a >= b && a < b + g->nslab * sizeof *g->slab;
}

/* The class of a block of cap entries: the largest k with 2^k <= cap. */
static unsigned pool_class(size_t cap) {
  unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)cap | 1);
  return k < ADE__POOL_CLASSES - 1 ? k : ADE__POOL_CLASSES - 1;
}

/* A block of 2^k entries from the pool: a free one, or carved from the
 * current chunk (a new chunk when it has too little left; its rest goes to
 * the free lists). */
static size_t *pool_get(ade_cgraph *g, unsigned k) {
  ade__lpool *P = &g->pool;
  size_t n = (size_t)1 << k, *p = P->bin[k];
  if (p) {
    memcpy(&P->bin[k], p, sizeof p);
    return p;
  }
  if (P->left < n) {
    size_t sz = ADE__MAX((size_t)1 << 14, 8 * ADE__POOL_MAX);
    if (P->nchunk == P->chunkcap) {
      size_t nc = P->chunkcap ? 2 * P->chunkcap : 16, **q = ade__realloc(P->chunk, nc * sizeof *q);
      if (!q) return NULL;
      P->chunk = q, P->chunkcap = nc;
    }
    size_t *c = ade__alloc(sz * sizeof *c);
    if (!c) return NULL;
    for (unsigned j = ADE__POOL_CLASSES; j-- > 0;) /* the old chunk's rest, in blocks */
      for (; P->left >= ((size_t)1 << j); P->left -= (size_t)1 << j, P->cur += (size_t)1 << j) {
        memcpy(P->cur, &P->bin[j], sizeof P->cur);
        P->bin[j] = P->cur;
      }
    P->chunk[P->nchunk++] = c;
    P->cur = c, P->left = sz;
  }
  p = P->cur;
  P->cur += n, P->left -= n;
  return p;
}

/* Give list p of cap entries back: a pool or slab block to the free list
 * of its class, a larger block of its own to free(). */
static inline void free_list(ade_cgraph *g, size_t *p, size_t cap) {
  if (!p || !cap) return;
  if (cap > ADE__POOL_MAX && !in_slab(g, p)) {
    ade__free(p);
    return;
  }
  unsigned k = pool_class(cap);
  memcpy(p, &g->pool.bin[k], sizeof p);
  g->pool.bin[k] = p;
}

/* Room for extra more entries in a list of len: a block of the next power
 * of two (at least twice the old), from the pool up to ADE__POOL_MAX; the
 * old block is given back. */
static int grow_list(ade_cgraph *g, size_t **list, size_t len, size_t *cap, size_t extra) {
  size_t need = len + extra, m = ADE__MAX(ADE__MAX(need, 2 * *cap), 2);
  size_t nc = (size_t)1 << (64u - (unsigned)__builtin_clzll((unsigned long long)(m - 1))); /* the least 2^k >= m */
  size_t *q = nc <= ADE__POOL_MAX ? pool_get(g, pool_class(nc)) : ade__alloc(ade__mul_size(nc, sizeof *q));
  if (!q) return ade__fail(ADE_ENOMEM, "out of memory for an adjacency list of %zu", need);
  if (len) memcpy(q, *list, len * sizeof *q);
  free_list(g, *list, *cap);
  *list = q;
  *cap = nc;
  return ADE_OK;
}

static inline int reserve_list(ade_cgraph *g, size_t **list, size_t len, size_t *cap, size_t extra) {
  return *cap - len >= extra ? ADE_OK : grow_list(g, list, len, cap, extra);
}

static int push(ade_cgraph *g, size_t **list, size_t *len, size_t *cap, size_t x) {
  int st = reserve_list(g, list, *len, cap, 1);
  if (!st) (*list)[(*len)++] = x;
  return st;
}

static inline void drop_lists(ade_cgraph *g, size_t i) {
  ade__vtx *v = &g->v[i];
  free_list(g, v->in, v->capin);
  free_list(g, v->out, v->capout);
  v->in = v->out = NULL;
  v->nin = v->nout = v->capin = v->capout = 0;
  g->fp = 0;
}

void ade__graph_drop_lists(ade_cgraph *g, size_t i) { drop_lists(g, i); }

/* Within the memory limit with room for nv vertices and ne edges
 * (ade__graph_bytes)? Inline up to the verdict. */
static int over_budget(const ade_cgraph *g, size_t nv, size_t ne, size_t bytes) {
  return ade__budget(g->memlimit, bytes, "%s of %zu vertices and %zu edges", g->dual ? "dual c-graph" : "c-graph", nv,
                     ne);
}

static inline int budget(const ade_cgraph *g, size_t nv, size_t ne) {
  size_t bytes = ade__graph_bytes(nv, ne);
  return ade__over_budget(g->memlimit, bytes) ? over_budget(g, nv, ne, bytes) : ADE_OK;
}

int ade__graph_init(ade_cgraph *g, int dual, size_t nv_hint, size_t ne_hint) {
  memset(g, 0, sizeof *g);
  g->memlimit = SIZE_MAX;
  g->dual = dual;
  g->efree = ADE__NONE;
  g->stamp = 1;
  g->next_edge_id = 1;
  g->v = ade__calloc(nv_hint ? nv_hint : 1, sizeof *g->v);
  g->e = ade__alloc(ade__mul_size(ne_hint ? ne_hint : 1, sizeof *g->e));
  if (!g->v || !g->e) return ade__fail(ADE_ENOMEM, "out of memory for a graph of %zu vertices", nv_hint);
  g->vcap = nv_hint ? nv_hint : 1;
  g->ecap = ne_hint ? ne_hint : 1;
  return ADE_OK;
}

int ade__graph_add_vertex(ade_cgraph *g, long id, int kind, size_t *idx) {
  if (g->nv == g->vcap) {
    size_t nc = 2 * g->vcap;
    if (budget(g, nc, g->ecap)) return ADE_ENOMEM;
    ade__vtx *p = ade__realloc(g->v, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for %zu vertices", nc);
    g->v = p;
    g->vcap = nc;
  }
  ade__vtx *v = &g->v[g->nv];
  memset(v, 0, sizeof *v);
  v->id = id;
  v->kind = kind;
  v->alive = 1;
  v->csrc = v->ctgt = id;
  *idx = g->nv++;
  g->nalive++;
  g->fp = 0;
  return ADE_OK;
}

/* ade__graph_add_edge with the index's room already made and, in an
 * indexed graph, the edge's hash z and free index slot h. */
static inline __attribute__((always_inline)) int add_at(ade_cgraph *g, size_t src, size_t dst, double val,
                                                       size_t *eidx, uint64_t z, size_t h) {
  size_t e;
  if (g->efree != ADE__NONE) {
    e = g->efree;
    g->efree = g->e[e].dst;
  } else {
    if (g->eslots == g->ecap) {
      size_t nc = 2 * g->ecap;
      if (budget(g, g->vcap, nc)) return ADE_ENOMEM;
      ade__edge *p = ade__realloc(g->e, ade__mul_size(nc, sizeof *p));
      if (!p) return ade__fail(ADE_ENOMEM, "out of memory for %zu edges", nc);
      g->e = p;
      g->ecap = nc;
    }
    if ((uint64_t)g->eslots >= HMASK) return ade__fail(ADE_ENOMEM, "more than 2^%d edge slots", HBITS);
    e = g->eslots++;
  }
  ade__vtx *s = &g->v[src], *d = &g->v[dst];
  ade__edge *x = &g->e[e];
  x->src = src;
  x->dst = dst;
  x->val = val;
  x->id = g->next_edge_id++;
  x->pout = s->nout;
  x->pin = d->nin;
  if (push(g, &s->out, &s->nout, &s->capout, e) || push(g, &d->in, &d->nin, &d->capin, e)) {
    if (s->nout > x->pout) s->nout--;
    x->src = ADE__NONE;
    x->dst = g->efree;
    g->efree = e;
    return ADE_ENOMEM;
  }
  if (!g->noindex) {
    g->htab[h] = hentry(e, z);
    g->hused++;
  }
  g->nedges++;
  g->fp = 0;
  if (eidx) *eidx = e;
  return ADE_OK;
}

/* The first free slot of the probe sequence of hash z. */
static size_t hfree(const ade_cgraph *g, uint64_t z) {
  size_t h = (size_t)z & (g->hcap - 1);
  while (g->htab[h]) h = (h + 1) & (g->hcap - 1);
  return h;
}

int ade__graph_add_edge(ade_cgraph *g, size_t src, size_t dst, double val, size_t *eidx) {
  if (g->noindex) return add_at(g, src, dst, val, eidx, 0, 0);
  if ((g->hused + 1) * 2 > g->hcap && hgrow(g)) return ADE_ENOMEM;
  uint64_t z = ade__hmix(src, dst);
  return add_at(g, src, dst, val, eidx, z, hfree(g, z));
}

int ade__graph_find_add(ade_cgraph *g, size_t src, size_t dst, double val, size_t *eidx) {
  if (g->noindex || (g->hused + 1) * 2 > g->hcap) {
    size_t e = ade__graph_find(g, src, dst);
    if (e == ADE__NONE) return ade__graph_add_edge(g, src, dst, val, eidx);
    *eidx = e;
    return 1;
  }
  uint64_t z = ade__hmix(src, dst), tag = z & TMASK;
  size_t h = (size_t)z & (g->hcap - 1);
  for (size_t x; (x = g->htab[h]); h = (h + 1) & (g->hcap - 1)) { /* one probe: the find's ends at the free slot */
    if ((uint64_t)x >> HBITS != tag) continue;
    const ade__edge *e = &g->e[hedge(x)];
    if (e->src == src && e->dst == dst) {
      *eidx = hedge(x);
      return 1;
    }
  }
  return add_at(g, src, dst, val, eidx, z, h);
}

/* Edge e out of src's out-list (the last entry takes its place). */
static inline __attribute__((always_inline)) void unlink_out(ade_cgraph *g, const ade__edge *x) {
  ade__vtx *s = &g->v[x->src];
  size_t last = s->out[--s->nout];
  s->out[x->pout] = last;
  g->e[last].pout = x->pout;
}

/* Edge e out of dst's in-list. */
static inline __attribute__((always_inline)) void unlink_in(ade_cgraph *g, const ade__edge *x) {
  ade__vtx *d = &g->v[x->dst];
  size_t last = d->in[--d->nin];
  d->in[x->pin] = last;
  g->e[last].pin = x->pin;
}

/* Edge e, out of both lists, out of the index and onto the free slots. */
static inline __attribute__((always_inline)) void release(ade_cgraph *g, size_t e) {
  ade__edge *x = &g->e[e];
  if (!g->noindex) hdel(g, e);
  x->src = ADE__NONE;
  x->dst = g->efree;
  g->efree = e;
  g->nedges--;
  g->fp = 0;
}

void ade__graph_del_edge(ade_cgraph *g, size_t e) {
  unlink_out(g, &g->e[e]);
  unlink_in(g, &g->e[e]);
  release(g, e);
}

/* As ade__graph_del_edge of its last in-edge, then its last out-edge, until
 * none is left (the same slots freed in the same order), without the
 * swaps in i's own lists, which are dropped. */
void ade__graph_del_vertex(ade_cgraph *g, size_t i) {
  ade__vtx *v = &g->v[i];
  while (v->nin) {
    size_t e = v->in[--v->nin];
    unlink_out(g, &g->e[e]);
    release(g, e);
  }
  while (v->nout) {
    size_t e = v->out[--v->nout];
    unlink_in(g, &g->e[e]);
    release(g, e);
  }
  drop_lists(g, i);
  if (g->lb) g->lbrest -= g->lb[i], g->lb[i] = 0;
  v->alive = 0;
  g->nalive--;
  g->fp = 0;
}

/* Binary search: vertex ids ascend with the index. */
size_t ade__graph_vertex(const ade_cgraph *g, long id) {
  size_t lo = 0, hi = g->nv;
  /* dense ids: at its offset (unsigned: ids may span all of long) */
  if (hi && id >= g->v[0].id && (unsigned long)id - (unsigned long)g->v[0].id < hi) {
    const ade__vtx *v = &g->v[(unsigned long)id - (unsigned long)g->v[0].id];
    if (v->id == id) return v->alive ? (size_t)(v - g->v) : ADE__NONE;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->v[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->nv && g->v[lo].id == id && g->v[lo].alive ? lo : ADE__NONE;
}

/* Make the mark workspace cover n vertices plus one to come. */
static int marks_cover(ade_cgraph *g, size_t n) {
  if (g->markcap > n) return ADE_OK;
  size_t nc = 2 * n + 2;
  unsigned *p = ade__realloc(g->mark, ade__mul_size(nc, sizeof *p));
  if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a workspace of %zu", nc);
  memset(p + g->markcap, 0, (nc - g->markcap) * sizeof *p);
  g->mark = p;
  g->markcap = nc;
  return ADE_OK;
}

int ade__graph_marks(ade_cgraph *g) { return marks_cover(g, g->nv); }

int ade__graph_grow_adj(ade_cgraph *g, size_t i, size_t nin, size_t nout) {
  ade__vtx *v = &g->v[i];
  int st = reserve_list(g, &v->in, v->nin, &v->capin, nin);
  return st ? st : reserve_list(g, &v->out, v->nout, &v->capout, nout);
}

int ade__graph_reserve_slow(ade_cgraph *g, size_t nv, size_t ne) {
  if (budget(g, ADE__MAX(g->vcap, g->nv + nv), ADE__MAX(g->ecap, g->eslots + ne))) return ADE_ENOMEM;
  while (!g->noindex && (g->hused + ne) * 2 > g->hcap)
    if (hgrow(g)) return ADE_ENOMEM;
  if (room((void **)&g->e, g->eslots, &g->ecap, ne, sizeof *g->e))
    return ade__fail(ADE_ENOMEM, "out of memory for %zu edges", g->eslots + ne);
  if (room((void **)&g->v, g->nv, &g->vcap, nv, sizeof *g->v))
    return ade__fail(ADE_ENOMEM, "out of memory for %zu vertices", g->nv + nv);
  return nv ? marks_cover(g, g->nv + nv) : ADE_OK;
}

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* An order-independent fingerprint of the structure (ids, kinds, edges),
 * kept in g->fp until the structure changes: a graph is fingerprinted
 * again and again (by its ordering, ade_jacobian, ade_seq_apply) while it
 * stays the same. Relaxed atomics: a const graph may be shared between
 * threads, which all store the same value. */
uint64_t ade__graph_fingerprint(const ade_cgraph *g) {
  uint64_t h = __atomic_load_n(&g->fp, __ATOMIC_RELAXED);
  if (!h) __atomic_store_n(&((ade_cgraph *)g)->fp, h = ade__graph_fingerprint_fresh(g), __ATOMIC_RELAXED);
  return h;
}

uint64_t ade__graph_fingerprint_fresh(const ade_cgraph *g) {
  uint64_t h = mix((uint64_t)g->n * 31 + (uint64_t)g->m + (uint64_t)g->dual * 7);
  for (size_t i = 0; i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (!v->alive) continue;
    h += mix((uint64_t)v->id * 3 + (uint64_t)v->kind);
    for (size_t k = 0; k < v->nout; k++)
      h += mix((uint64_t)v->id ^ mix((uint64_t)g->v[g->e[v->out[k]].dst].id + 0x51ed27));
  }
  return h ? h : 1;
}

void ade_cgraph_free(ade_cgraph *g) {
  if (!g) return;
  for (size_t i = 0; i < g->nv; i++) { /* the lists of their own; the pool's go with its chunks */
    const ade__vtx *v = &g->v[i];
    if (v->capin > ADE__POOL_MAX && !in_slab(g, v->in)) ade__free(v->in);
    if (v->capout > ADE__POOL_MAX && !in_slab(g, v->out)) ade__free(v->out);
  }
  for (size_t c = 0; c < g->pool.nchunk; c++) ade__free(g->pool.chunk[c]);
  ade__free(g->pool.chunk);
  ade__free(g->slab);
  ade__free(g->v);
  ade__free(g->e);
  ade__free(g->htab);
  ade__free(g->xv);
  ade__free(g->yv);
  ade__free(g->mark);
  ade__free(g->lb);
  ade__free(g);
}

static size_t *dup_list(const size_t *p, size_t n, int *bad) {
  if (!n) return NULL;
  size_t *q = ade__alloc(n * sizeof *q);
  if (!q) *bad = 1;
  else memcpy(q, p, n * sizeof *q);
  return q;
}

/* The room of a copied list of len entries: the next power of two above
 * len (a block of the pool's size, so that it is reused when given back),
 * for lists below the pool's largest block; none for longer lists. An
 * elimination adds to most lists it touches: with the room the first
 * addition copies nothing. */
static size_t slab_cap(size_t len) {
  if (!len || len >= ADE__POOL_MAX) return len;
  return (size_t)2 << (63u - (unsigned)__builtin_clzll((unsigned long long)len));
}

int ade_cgraph_copy(ade_cgraph **cp, const ade_cgraph *g) {
  int bad = 0;
  if (!cp || !g) return ade__fail(ADE_EINVAL, "ade_cgraph_copy: NULL argument");
  ade_cgraph *c = ade__calloc(1, sizeof *c);
  if (!c) return ade__fail(ADE_ENOMEM, "out of memory copying a graph");
  *c = *g;
  c->rec = NULL; /* a copy records nothing */
  c->cut = NULL, c->lb = NULL, c->lbrest = 0;
  c->slab = NULL, c->nslab = 0;
  memset(&c->pool, 0, sizeof c->pool);
  for (size_t i = 0; i < g->nv; i++) c->nslab += slab_cap(g->v[i].nin) + slab_cap(g->v[i].nout);
  c->v = ade__alloc(ade__mul_size(g->vcap, sizeof *c->v)); /* past nv: set by add_vertex, as after a realloc */
  c->e = ade__alloc(ade__mul_size(g->ecap, sizeof *c->e));
  c->htab = g->hcap ? ade__alloc(g->hcap * sizeof *c->htab) : NULL;
  c->xv = dup_list(g->xv, g->n, &bad);
  c->yv = dup_list(g->yv, g->m, &bad);
  c->mark = NULL;
  c->markcap = 0;
  c->stamp = 1;
  c->nv = 0;
  c->slab = c->nslab ? ade__alloc(ade__mul_size(c->nslab, sizeof *c->slab)) : NULL;
  if (!c->v || !c->e || (g->hcap && !c->htab) || (c->nslab && !c->slab) || bad) goto fail;
  memcpy(c->e, g->e, g->eslots * sizeof *c->e);
  if (g->hcap) memcpy(c->htab, g->htab, g->hcap * sizeof *c->htab);
  /* The lists in one block, each with room to grow (slab_cap): one
   * allocation instead of two per vertex (a list that outgrows its room
   * moves out: reserve_list). */
  size_t *at = c->slab;
  for (size_t i = 0; i < g->nv; i++, c->nv++) {
    const ade__vtx *v = &g->v[i];
    c->v[i] = *v;
    c->v[i].capin = slab_cap(v->nin);
    c->v[i].capout = slab_cap(v->nout);
    c->v[i].in = v->nin ? at : NULL;
    if (v->nin) memcpy(at, v->in, v->nin * sizeof *at), at += c->v[i].capin;
    c->v[i].out = v->nout ? at : NULL;
    if (v->nout) memcpy(at, v->out, v->nout * sizeof *at), at += c->v[i].capout;
  }
  *cp = c;
  return ADE_OK;
fail:
  ade_cgraph_free(c);
  *cp = NULL;
  return ade__fail(ADE_ENOMEM, "out of memory copying a graph of %zu vertices", g->nv);
}

void ade_cgraph_size(const ade_cgraph *g, size_t *nv, size_t *ne, size_t *n, size_t *m) {
  if (nv) *nv = g ? g->nalive : 0;
  if (ne) *ne = g ? g->nedges : 0;
  if (n) *n = g ? g->n : 0;
  if (m) *m = g ? g->m : 0;
}

int ade_cgraph_is_dual(const ade_cgraph *g) { return g && g->dual; }

/* Live vertices of g in a topological order (Kahn); *k (may be NULL) gets
 * how many. ord holds g->nv entries. */
int ade__cgraph_topo(const ade_cgraph *g, size_t *ord, size_t *k) {
  size_t *deg = ade__alloc((g->nv + 1) * sizeof *deg), head = 0, tail = 0;
  if (!deg) return ade__fail(ADE_ENOMEM, "out of memory for a topological order");
  for (size_t i = 0; i < g->nv; i++)
    if (g->v[i].alive && !(deg[i] = g->v[i].nin)) ord[tail++] = i;
  while (head < tail) {
    const ade__vtx *v = &g->v[ord[head++]];
    for (size_t a = 0; a < v->nout; a++)
      if (!--deg[g->e[v->out[a]].dst]) ord[tail++] = g->e[v->out[a]].dst;
  }
  ade__free(deg);
  if (k) *k = tail;
  return ADE_OK;
}
