/* reader.c: decode a chunk into a view of records, operands and values, validating everything. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "record_internal.h"

static int view_reserve(ade__view *v, uint32_t n) {
  if (n <= v->cap) return ADE_OK;
  uint8_t *op = ade__realloc(v->op, n);
  if (op) v->op = op;
  uint64_t *arg = ade__realloc(v->arg, ade__mul_size(ADE__MAX_ARITY * (size_t)n, sizeof *arg));
  if (arg) v->arg = arg;
  double *argv = ade__realloc(v->argv, ade__mul_size(ADE__MAX_ARITY * (size_t)n, sizeof *argv));
  if (argv) v->argv = argv;
  double *val = ade__realloc(v->val, ade__mul_size(n, sizeof *val));
  if (val) v->val = val;
  uint32_t *site = ade__realloc(v->site, ade__mul_size(n, sizeof *site));
  if (site) v->site = site;
  if (!op || !arg || !argv || !val || !site) return ADE_ENOMEM;
  v->cap = n;
  return ADE_OK;
}

typedef struct imports {
  size_t n;
  const unsigned char *ids, *vals;
} imports;

/* Parse the imports column: count, ascending id deltas, values. */
static int imports_parse(const ade__chunkdata *d, uint64_t first, imports *im, size_t chunk) {
  const unsigned char *p = d->col[ADE__COL_IMPORTS], *end = p + d->collen[ADE__COL_IMPORTS];
  uint64_t n = 0, id = 0, delta;
  if (d->collen[ADE__COL_IMPORTS] == 0) {
    im->n = 0;
    return ADE_OK;
  }
  if (ade__varint_get(&p, end, &n) || n > (uint64_t)(end - p) / 9)
    return ade__fail(ADE_EFORMAT, "chunk %zu: bad imports column", chunk);
  im->ids = p;
  for (uint64_t i = 0; i < n; i++) {
    if (ade__varint_get(&p, end, &delta) || delta == 0 || delta > first - id)
      return ade__fail(ADE_EFORMAT, "chunk %zu: import %llu is not an earlier record", chunk,
                       (unsigned long long)i);
    id += delta;
  }
  if ((uint64_t)(end - p) != 8 * n)
    return ade__fail(ADE_EFORMAT, "chunk %zu: imports column has %zu value bytes for %llu imports",
                     chunk, (size_t)(end - p), (unsigned long long)n);
  im->n = (size_t)n;
  im->vals = p;
  return ADE_OK;
}

/* The imports' ascending ids into *ids (grown as needed). */
static int import_table(const imports *im, uint64_t **ids, size_t *cap) {
  if (im->n > *cap) {
    uint64_t *p = ade__realloc(*ids, ade__mul_size(im->n, sizeof *p));
    if (!p) return ADE_ENOMEM;
    *ids = p;
    *cap = im->n;
  }
  const unsigned char *p = im->ids;
  uint64_t id = 0, delta = 0;
  for (size_t i = 0; i < im->n; i++) {
    ade__varint_get(&p, im->vals, &delta);
    (*ids)[i] = id += delta;
  }
  return ADE_OK;
}

/* Hash slot of id in a table of 2^bits = cap slots (Fibonacci hashing). */
static inline size_t import_slot(uint64_t id, size_t cap) {
  return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (cap - 1);
}

/* Position of the first element >= id in a sorted id list. */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int in_list(const uint64_t *v, size_t n, uint64_t id) {
  size_t k = lower_bound(v, n, id);
  return k < n && v[k] == id;
}

/* An import is an operand, and the recorder never uses a dependent (ade_dep
 * returns a double) or a comparison (an int) as one. Dependents are in the
 * footer's list; comparisons of earlier chunks are known to verify only. */
static int import_check(const ade_tape *t, const ade__view *v, uint64_t id, size_t chunk) {
  int dep = in_list(t->meta.dep, t->meta.ndep, id);
  if (dep || in_list(v->cmp, v->ncmp, id))
    return ade__fail(ADE_EFORMAT, "chunk %zu: imports record %llu, a %s, as an operand", chunk,
                     (unsigned long long)(id - 1), dep ? "dependent" : "comparison");
  return ADE_OK;
}

/* Hash the imports' ids into v (reused across chunks): a reference to an
 * earlier chunk then costs one probe or two, not a binary search. */
static int import_index(const ade_tape *t, const imports *im, ade__view *v, size_t chunk) {
  size_t cap = 16;
  while (cap < 2 * im->n) cap *= 2;
  if (cap > v->impcap) {
    uint64_t *key = ade__realloc(v->impkey, ade__mul_size(cap, sizeof *key));
    if (key) v->impkey = key;
    uint32_t *at = ade__realloc(v->impat, ade__mul_size(cap, sizeof *at));
    if (at) v->impat = at;
    if (!key || !at) return ade__fail(ADE_ENOMEM, "out of memory reading chunk %zu", chunk);
    v->impcap = cap;
  }
  cap = v->impcap;
  memset(v->impkey, 0, cap * sizeof *v->impkey);
  const unsigned char *p = im->ids;
  uint64_t id = 0, delta = 0;
  for (size_t i = 0; i < im->n; i++) {
    ade__varint_get(&p, im->vals, &delta); /* checked by imports_parse */
    int st = import_check(t, v, id += delta, chunk);
    if (st) return st;
    size_t h = import_slot(id, cap);
    while (v->impkey[h]) h = (h + 1) & (cap - 1);
    v->impkey[h] = id;
    v->impat[h] = (uint32_t)i;
  }
  return ADE_OK;
}

#define IMPORT_USED 0x80000000u /* in impat: an operand named the import */

/* Position of import id in the imports column, -1 if not imported; counts
 * the imports used (the recorder imports exactly the operands it needs). */
static long import_find(ade__view *v, uint64_t id, size_t *used) {
  for (size_t h = import_slot(id, v->impcap); v->impkey[h]; h = (h + 1) & (v->impcap - 1))
    if (v->impkey[h] == id) {
      *used += !(v->impat[h] & IMPORT_USED);
      v->impat[h] |= IMPORT_USED;
      return v->impat[h] & ~IMPORT_USED;
    }
  return -1;
}

typedef struct decoder {
  const unsigned char *ref, *ref_end, *site, *site_end;
  const unsigned char *val, *val_end, *cst, *cst_end;
  size_t indep, dep; /* next expected positions in the footer's lists */
  size_t used;       /* imports some operand named */
  uint32_t eleft;    /* outputs of the open elemental call still to come */
} decoder;

/* Comparisons give an int to the program, dependents a double: neither is
 * ever an operand. */
static int operand_role(unsigned op) { return op == ADE_OP_DEP || (op >= ADE_OP_LT && op < ADE_OP_COUNT); }

ADE__INLINE int decode_operand(ade__view *v, decoder *dc, uint64_t rid, const imports *im,
                          uint64_t *arg, double *argv, size_t chunk) {
  const int values = !v->lean;
  uint64_t delta;
  if (ade__varint_get(&dc->ref, dc->ref_end, &delta) || delta >= rid)
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: bad operand reference", chunk,
                     (unsigned long long)(rid - 1));
  if (!delta) {
    if (dc->cst_end - dc->cst < 8)
      return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: constants column exhausted", chunk,
                       (unsigned long long)(rid - 1));
    *arg = 0;
    *argv = ade__ldf64(dc->cst);
    dc->cst += 8;
    return ADE_OK;
  }
  uint64_t id = rid - delta;
  *arg = id;
  if (id > v->first) {
    unsigned op = v->op[id - v->first - 1];
    if (operand_role(op))
      return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: operand %llu is a %s", chunk,
                       (unsigned long long)(rid - 1), (unsigned long long)(id - 1),
                       op == ADE_OP_DEP ? "dependent" : "comparison");
    if (values) *argv = v->val[id - v->first - 1];
    return ADE_OK;
  }
  long k = import_find(v, id, &dc->used);
  if (k < 0)
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: operand %llu missing from the imports",
                     chunk, (unsigned long long)(rid - 1), (unsigned long long)id);
  if (values) *argv = ade__ldf64(im->vals + 8 * (size_t)k);
  return ADE_OK;
}

/* The footer's independent and dependent lists must name exactly the INDEP
 * and DEP records, in order. */
static int check_role(const ade__meta *m, unsigned op, uint64_t rid, decoder *dc, size_t chunk) {
  if (op == ADE_OP_INDEP && (dc->indep >= m->nindep || m->indep[dc->indep++] != rid))
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: independent not in the footer's list", chunk,
                     (unsigned long long)(rid - 1));
  if (op == ADE_OP_DEP && (dc->dep >= m->ndep || m->dep[dc->dep++] != rid))
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: dependent not in the footer's list", chunk,
                     (unsigned long long)(rid - 1));
  return ADE_OK;
}

static int ref_varint(decoder *dc, uint64_t *x, uint64_t rid, size_t chunk) {
  if (ade__varint_get(&dc->ref, dc->ref_end, x))
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: bad elemental call in the refs column", chunk,
                     (unsigned long long)(rid - 1));
  return ADE_OK;
}

/* The head of an elemental call (output 0): name, n, m, then n operands. */
static int decode_call(const ade_tape *t, ade__view *v, decoder *dc, uint32_t i, const imports *im,
                       size_t chunk) {
  uint64_t rid = v->first + i + 1, name = 0, n = 0, m = 0;
  int st = ref_varint(dc, &name, rid, chunk);
  if (!st) st = ref_varint(dc, &n, rid, chunk);
  if (!st) st = ref_varint(dc, &m, rid, chunk);
  if (st) return st;
  if (n < 1 || m < 1 || n > ADE__ELEM_MAX || m > ADE__ELEM_MAX || n * m > ADE__ELEM_MAXJAC ||
      m > v->n - i || n > (uint64_t)(dc->ref_end - dc->ref) || (name >= t->meta.nstrings && !t->recovered))
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: elemental call with %llu inputs, %llu outputs (%u records "
                     "left in the chunk) or name %llu of %zu strings", chunk, (unsigned long long)(rid - 1),
                     (unsigned long long)n, (unsigned long long)m, v->n - i, (unsigned long long)name,
                     t->meta.nstrings);
  if (ade__grow((void **)&v->blk, &v->blkcap, v->nblk + 1, sizeof *v->blk) ||
      ade__grow((void **)&v->xarg, &v->xcap, v->nx + n, sizeof *v->xarg))
    return ade__fail(ADE_ENOMEM, "out of memory reading chunk %zu", chunk);
  size_t xc = v->xcap; /* xargv keeps xarg's capacity */
  double *xv = ade__realloc(v->xargv, ade__mul_size(xc, sizeof *xv));
  if (!xv) return ade__fail(ADE_ENOMEM, "out of memory reading chunk %zu", chunk);
  v->xargv = xv;
  ade__eblk *b = &v->blk[v->nblk];
  *b = (ade__eblk){i, (uint32_t)n, (uint32_t)m, t->recovered ? UINT32_MAX : (uint32_t)name, v->nx};
  for (uint64_t j = 0; j < n && !st; j++) st = decode_operand(v, dc, rid, im, &v->xarg[b->xoff + j], &v->xargv[b->xoff + j], chunk);
  if (st) return st;
  v->nx += n;
  v->nblk++;
  dc->eleft = (uint32_t)m;
  return ADE_OK;
}

/* An elemental output: output k of the open call (k = 0 opens one). */
static int decode_output(const ade_tape *t, ade__view *v, decoder *dc, uint32_t i, const imports *im,
                         size_t chunk) {
  uint64_t rid = v->first + i + 1, k;
  int st = ref_varint(dc, &k, rid, chunk);
  if (st) return st;
  if (!t->meta.opcount[ADE_OP_VECTOR_ELEMENTAL])
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: an elemental record on a tape whose footer counts none",
                     chunk, (unsigned long long)(rid - 1));
  if (k == 0 && !dc->eleft) st = decode_call(t, v, dc, i, im, chunk);
  else if (!dc->eleft || k != v->blk[v->nblk - 1].m - dc->eleft)
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: elemental output %llu out of sequence", chunk,
                     (unsigned long long)(rid - 1), (unsigned long long)k);
  if (st) return st;
  uint64_t *arg = ade__view_arg(v, i);
  arg[0] = v->nblk - 1;
  arg[1] = k;
  arg[2] = 0;
  dc->eleft--;
  return ADE_OK;
}

static int decode_record(const ade_tape *t, ade__view *v, decoder *dc, uint32_t i,
                         const imports *im, size_t chunk) {
  unsigned op = v->op[i];
  uint64_t rid = v->first + i + 1;
  int elem = op == ADE_OP_VECTOR_ELEMENTAL, st;
  if (op >= ADE_OP_COUNT && !elem)
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: unknown opcode %u", chunk, (unsigned long long)(rid - 1), op);
  if (dc->eleft && !elem)
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: an elemental call ends before its %u outputs", chunk,
                     (unsigned long long)(rid - 1), v->blk[v->nblk - 1].m);
  if (elem) {
    st = decode_output(t, v, dc, i, im, chunk);
  } else {
    st = check_role(&t->meta, op, rid, dc, chunk);
    for (int k = 0; k < ade__optab[op].arity && !st; k++)
      st = decode_operand(v, dc, rid, im, &ade__view_arg(v, i)[k], &ade__view_argv(v, i)[k], chunk);
  }
  if (st) return st;
  if (elem || (ade__optab[op].flags & ADE__STORE)) {
    if (dc->val_end - dc->val < 8)
      return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: values column exhausted", chunk,
                       (unsigned long long)(rid - 1));
    v->val[i] = ade__ldf64(dc->val);
    dc->val += 8;
  } else if (!v->lean) {
    v->val[i] = ade__op_value(op, ade__view_argv(v, i));
  }
  uint64_t s = 0;
  if (dc->site && (ade__varint_get(&dc->site, dc->site_end, &s) ||
                   (s > t->meta.nstrings && !t->recovered)))
    return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: bad call site", chunk, (unsigned long long)(rid - 1));
  v->site[i] = t->recovered ? 0 : (uint32_t)s; /* a recovered tape lost the site names */
  return ADE_OK;
}

static int decode(const ade_tape *t, const ade__chunkdata *d, ade__view *v, size_t chunk) {
  imports im = {0, NULL, NULL};
  int st = imports_parse(d, v->first, &im, chunk);
  if (!st) st = import_index(t, &im, v, chunk);
  if (st) return st;
  decoder dc = {d->col[ADE__COL_REFS], d->col[ADE__COL_REFS] + d->collen[ADE__COL_REFS], NULL, NULL,
                d->col[ADE__COL_VALUES], d->col[ADE__COL_VALUES] + d->collen[ADE__COL_VALUES],
                d->col[ADE__COL_CONSTS], d->col[ADE__COL_CONSTS] + d->collen[ADE__COL_CONSTS],
                lower_bound(t->meta.indep, t->meta.nindep, v->first + 1),
                lower_bound(t->meta.dep, t->meta.ndep, v->first + 1), 0, 0};
  if (t->hdr.capture) {
    dc.site = d->col[ADE__COL_SITES];
    dc.site_end = dc.site + d->collen[ADE__COL_SITES];
  } else if (d->collen[ADE__COL_SITES]) {
    return ade__fail(ADE_EFORMAT, "chunk %zu: call sites on a tape recorded without capture", chunk);
  }
  memcpy(v->op, d->col[ADE__COL_OPS], v->n);
  for (uint32_t i = 0; v->lean && i < v->n; i++) /* flips need the recorded comparisons */
    v->lean = v->op[i] < ADE_OP_LT || v->op[i] >= ADE_OP_COUNT;
  v->nblk = v->nx = 0;
  for (uint32_t i = 0; i < v->n && !st; i++) st = decode_record(t, v, &dc, i, &im, chunk);
  if (!st && dc.eleft)
    st = ade__fail(ADE_EFORMAT, "chunk %zu: its last elemental call lacks %u outputs", chunk, dc.eleft);
  if (!st && (dc.ref != dc.ref_end || dc.val != dc.val_end || dc.cst != dc.cst_end ||
              dc.site != dc.site_end))
    st = ade__fail(ADE_EFORMAT, "chunk %zu: columns longer than its records need", chunk);
  if (!st && dc.used != im.n)
    st = ade__fail(ADE_EFORMAT, "chunk %zu: %zu of its %zu imports are no operand's", chunk,
                   im.n - dc.used, im.n);
  uint64_t end = v->first + v->n;
  if (!st && ((dc.indep < t->meta.nindep && t->meta.indep[dc.indep] <= end) ||
              (dc.dep < t->meta.ndep && t->meta.dep[dc.dep] <= end)))
    st = ade__fail(ADE_EFORMAT, "chunk %zu: the footer lists an independent or dependent that is "
                   "not an indep/dep record", chunk);
  return st;
}

void ade__view_free(ade__view *v) {
  if (!v) return;
  ade__free(v->op);
  ade__free(v->arg);
  ade__free(v->argv);
  ade__free(v->val);
  ade__free(v->site);
  ade__free(v->impkey);
  ade__free(v->impat);
  ade__free(v->blk);
  ade__free(v->xarg);
  ade__free(v->xargv);
  memset(v, 0, sizeof *v);
}

/* Decode chunk into v (its buffers grown as needed) with the decoder *dctx
 * (made if NULL) and the buffers scratch and d; lean: see
 * ade__view_load_lean. Reads only what a finished tape never changes (its
 * store, header and footer), so a prefetch thread may run it. */
static int decode_with(const ade_tape *t, void **dctx, ade__buf *scratch, ade__chunkdata *d, size_t chunk,
                       ade__view *v, int lean) {
  if (!*dctx && !(*dctx = ade__zstd_dctx())) return ade__fail(ADE_ENOMEM, "out of memory");
  int st = ade__chunk_read(&t->store, *dctx, &t->meta, chunk, scratch, d);
  if (st) return st;
  const ade__chunkent *e = &t->meta.chunks[chunk];
  if (d->collen[ADE__COL_OPS] != e->records) /* before allocating for that many records */
    return ade__fail(ADE_EFORMAT, "chunk %zu: %zu opcodes for %u records", chunk,
                     d->collen[ADE__COL_OPS], e->records);
  if (view_reserve(v, e->records)) return ade__fail(ADE_ENOMEM, "out of memory reading chunk %zu", chunk);
  v->first = e->first;
  v->n = e->records;
  v->lean = lean;
  return decode(t, d, v, chunk);
}

static int view_decode(ade_tape *t, size_t chunk, ade__view *v, int lean) {
  return decode_with(t, &t->dctx, &t->scratch, &t->cd, chunk, v, lean);
}

int ade__view_decode(ade_tape *t, size_t chunk, ade__view *v) { return view_decode(t, chunk, v, 0); }

/* The ascending ids chunk imports into *ids (grown as needed), *n of them. */
int ade__chunk_imports(ade_tape *t, size_t chunk, uint64_t **ids, size_t *n, size_t *cap) {
  if (!t->dctx && !(t->dctx = ade__zstd_dctx())) return ade__fail(ADE_ENOMEM, "out of memory");
  int st = ade__chunk_read(&t->store, t->dctx, &t->meta, chunk, &t->scratch, &t->cd);
  imports im = {0, NULL, NULL};
  if (!st) st = imports_parse(&t->cd, t->meta.chunks[chunk].first, &im, chunk);
  if (!st && import_table(&im, ids, cap)) st = ade__fail(ADE_ENOMEM, "out of memory reading chunk %zu", chunk);
  *n = st ? 0 : im.n;
  return st;
}

/* ------------------------------------------------------------- prefetch */

/* A sweep that streams a finished tape reads its chunks in order, forward
 * or backward. Once two loads in a row are neighbours, a thread of the
 * tape's workspace decodes the next chunk in that direction while the
 * sweep works on this one (one chunk ahead: the memory of one more view).
 * Only where the calling thread uses the default allocator: the thread's
 * buffers come from realloc, and views are exchanged with the tape's. */
enum { PF_IDLE, PF_BUSY, PF_DONE, PF_QUIT };
struct ade__prefetch {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int state, running, failed; /* failed: no thread could be started */
  const ade_tape *t;
  size_t chunk, last;         /* the chunk asked for; the last one loaded */
  int lean, status;
  void *dctx;                 /* the thread's own decoder and buffers */
  ade__buf scratch;
  ade__chunkdata cd;
  ade__view v;
};

static _Atomic int prefetch_on = -1; /* -1: not yet read from ADE_PREFETCH */
static _Atomic uint64_t prefetch_served;
uint64_t ade__prefetch_served(void) { return atomic_load(&prefetch_served); }
void ade__prefetch_enable(int on) { atomic_store(&prefetch_on, on != 0); }
static int prefetch_enabled(void) {
  int on = atomic_load(&prefetch_on);
  if (on < 0) {
    const char *e = getenv("ADE_PREFETCH");
    on = !(e && strcmp(e, "0") == 0);
    atomic_store(&prefetch_on, on);
  }
  return on;
}

static void *pf_main(void *arg) {
  ade__prefetch *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->state == PF_IDLE || p->state == PF_DONE) pthread_cond_wait(&p->cv, &p->mu);
    if (p->state == PF_QUIT) break;
    size_t c = p->chunk;
    int lean = p->lean;
    pthread_mutex_unlock(&p->mu);
    int st = decode_with(p->t, &p->dctx, &p->scratch, &p->cd, c, &p->v, lean);
    pthread_mutex_lock(&p->mu);
    p->status = st;
    p->state = PF_DONE;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  /* Freed by the thread that allocated them (no hook: realloc/free). */
  ade__zstd_free_dctx(p->dctx);
  ade__buf_free(&p->cd.raw);
  ade__buf_free(&p->cd.plain);
  ade__buf_free(&p->scratch);
  ade__view_free(&p->v);
  return NULL;
}

/* Wait for the thread's job; *v = its view if it decoded chunk as asked. */
static int pf_take(ade__prefetch *p, size_t chunk, int lean, ade__view *v) {
  int got = 0;
  pthread_mutex_lock(&p->mu);
  while (p->state == PF_BUSY) pthread_cond_wait(&p->cv, &p->mu);
  if (p->state == PF_DONE) {
    p->state = PF_IDLE;
    if (p->chunk == chunk && !p->status && (lean || !p->v.lean)) {
      ade__view tmp = *v;
      *v = p->v;
      p->v = tmp;
      got = 1;
      atomic_fetch_add_explicit(&prefetch_served, 1, memory_order_relaxed);
    }
  }
  pthread_mutex_unlock(&p->mu);
  return got;
}

/* Start decoding the chunk after (or before) chunk, if the loads go in order. */
static void pf_next(ade_tape *t, size_t chunk, int lean) {
  if (t->state != ADE__FINISHED || t->meta.nchunks < 3 || !prefetch_enabled() || ade__alloc_hooked())
    return;
  ade__prefetch *p = t->pf;
  if (!p) {
    if (!(p = t->pf = ade__calloc(1, sizeof *p))) return;
    p->t = t;
    p->last = SIZE_MAX;
    if (pthread_mutex_init(&p->mu, NULL)) p->failed = 1;
    else if (pthread_cond_init(&p->cv, NULL)) {
      pthread_mutex_destroy(&p->mu);
      p->failed = 1;
    }
  }
  size_t last = p->last, next;
  p->last = chunk;
  if (p->failed || last == SIZE_MAX) return;
  if (chunk == last + 1 && chunk + 1 < t->meta.nchunks) next = chunk + 1;
  else if (chunk + 1 == last && chunk > 0) next = chunk - 1;
  else return;
  if (!p->running) {
    if (pthread_create(&p->th, NULL, pf_main, p)) {
      p->failed = 1;
      return;
    }
    p->running = 1;
  }
  pthread_mutex_lock(&p->mu);
  p->chunk = next;
  p->lean = lean;
  p->state = PF_BUSY;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

void ade__prefetch_stop(ade_tape *t) {
  ade__prefetch *p = t->pf;
  if (!p) return;
  if (p->running) {
    pthread_mutex_lock(&p->mu);
    while (p->state == PF_BUSY) pthread_cond_wait(&p->cv, &p->mu);
    p->state = PF_QUIT;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
  }
  if (!p->failed) {
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
  }
  ade__free(p);
  t->pf = NULL;
}

static int view_load(ade_tape *t, size_t chunk, int lean) {
  if (t->view_chunk == chunk && (lean || !t->view.lean)) return ADE_OK;
  lean = lean && !t->view_apply;
  t->view_chunk = SIZE_MAX;
  int st = t->pf && t->pf->running && pf_take(t->pf, chunk, lean, &t->scratch_view)
               ? ADE_OK
               : view_decode(t, chunk, &t->scratch_view, lean);
  if (!st && t->view_apply) t->view_apply(t, &t->scratch_view);
  if (st) return st;
  t->view = t->scratch_view;
  t->view_chunk = chunk;
  pf_next(t, chunk, lean);
  return ADE_OK;
}

/* Make t->view hold chunk's records (decoded into the tape's scratch view;
 * its values are those at the tape's point, if one is set). */
int ade__view_load(ade_tape *t, size_t chunk) { return view_load(t, chunk, 0); }

int ade__view_load_lean(ade_tape *t, size_t chunk) { return view_load(t, chunk, 1); }
