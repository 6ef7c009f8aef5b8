/* writer.c: the tape writer: recording operations onto the current tape (columns, imports, flush). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "record_internal.h"

#define SITE() __builtin_return_address(0)

void ade__writer_free(ade__writer *w) {
  if (!w) return;
  for (int c = 0; c < ADE__NCOLS; c++) ade__buf_free(&w->col[c]);
  ade__buf_free(&w->scratch[0]);
  ade__buf_free(&w->scratch[1]);
  ade__u64map_free(&w->imports);
  ade__u64map_free(&w->sites);
  ade__free(w->rstack);
  ade__free(w->enames);
  ade__free(w->estring);
  ade__kept_free(w->keep);
  ade__free(w);
}

void ade__writer_reset(ade__writer *w) {
  ade__buf col[ADE__NCOLS], scratch[2];
  ade__u64map imports = w->imports;
  memcpy(col, w->col, sizeof col);
  memcpy(scratch, w->scratch, sizeof scratch);
  ade__u64map_clear(&imports);
  ade__u64map_free(&w->sites);
  ade__free(w->rstack);
  ade__free(w->enames);
  ade__free(w->estring);
  memset(w, 0, sizeof *w);
  for (int c = 0; c < ADE__NCOLS; c++) col[c].len = 0;
  scratch[0].len = scratch[1].len = 0;
  memcpy(w->col, col, sizeof col);
  memcpy(w->scratch, scratch, sizeof scratch);
  w->imports = imports;
}

/* The sticky error: the first one wins; recording continues passively. */
void ade__record_error(ade_tape *t, int status, const char *fmt, ...) {
  if (t->w->status) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->w->errmsg, sizeof t->w->errmsg, fmt, ap);
  va_end(ap);
  t->w->status = status;
  t->w->quick = 0;
}

/* ---------------------------------------------------------------- imports */

/* Remember the value of an operand defined in an earlier chunk (id 1-based). */
static int import_add(ade__writer *w, uint64_t id, double v) {
  uint64_t bits;
  int isnew;
  memcpy(&bits, &v, sizeof bits);
  return ade__u64map_put(&w->imports, id, bits, &isnew) ? ADE_OK : ADE_ENOMEM;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The imports column: count, ascending ids as deltas, then their values. */
static int import_column(ade__writer *w) {
  ade__buf *b = &w->col[ADE__COL_IMPORTS];
  const ade__u64map *m = &w->imports;
  uint64_t *ids = ade__alloc(ade__mul_size(m->n + 1, sizeof *ids));
  if (!ids) return ADE_ENOMEM;
  uint32_t n = 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->key[i] != UINT64_MAX) ids[n++] = m->key[i];
  qsort(ids, n, sizeof *ids, cmp_u64);
  int st = ade__buf_varint(b, n) || ade__buf_reserve(b, (size_t)n * 18);
  for (uint32_t i = 0; i < n && !st; i++) st = ade__buf_varint(b, ids[i] - (i ? ids[i - 1] : 0));
  for (uint32_t i = 0; i < n && !st; i++) {
    double v;
    memcpy(&v, ade__u64map_find(m, ids[i]), sizeof v);
    unsigned char d[8];
    ade__stf64(d, v);
    st = ade__buf_put(b, d, 8);
  }
  ade__free(ids);
  return st ? ADE_ENOMEM : ADE_OK;
}

/* ------------------------------------------------------------------ flush */

int ade__writer_flush(ade_tape *t) {
  ade__writer *w = t->w;
  ade__chunkent e;
  /* The index entry is reserved first: a chunk on the store is in the index. */
  if (import_column(w) || ade__meta_reserve_chunk(&t->meta))
    return ade__fail(ADE_ENOMEM, "out of memory writing chunk %zu", t->meta.nchunks);
  ade__kept_chunk(t); /* o->keep: from the raw columns, before they are compressed */
  int st = ade__chunk_write(&t->store, t->cctx, t->wlevel, (uint32_t)t->meta.nchunks, w->first,
                            w->n, w->col, w->scratch, &e);
  if (st) return st;
  if (t->shrec_chunks == t->meta.nchunks) { /* the structure hash while the columns are hot */
    ade__shash_chunk(t->shrec, w->first, w->n, w->col[ADE__COL_OPS].p, w->col[ADE__COL_OPS].len,
                     w->col[ADE__COL_REFS].p, w->col[ADE__COL_REFS].len);
    t->shrec_chunks++;
  }
  ade__meta_add_chunk(&t->meta, &e);
  for (int op = 0; op < 256; op++) t->meta.opcount[op] += w->opcount[op];
  memset(w->opcount, 0, sizeof w->opcount);
  t->meta.stored_values += w->col[ADE__COL_VALUES].len / 8; /* every stored value, calls' too */
  t->meta.raw_bytes += e.raw_size;
  t->meta.records = w->first + w->n;
  w->first += w->n;
  w->n = 0;
  w->quick = 0;
  for (int c = 0; c < ADE__NCOLS; c++) w->col[c].len = 0;
  ade__u64map_clear(&w->imports);
  return ADE_OK;
}

/* ----------------------------------------------------------------- append */

static ADE__COLD ade_double passive_with_error(ade_tape *t, double r, int st, const char *what) {
  if (t) ade__record_error(t, st, "%s at op %llu", what, (unsigned long long)(t->w->first + t->w->n));
  else ade__fail(st, "%s (no tape is recording on this thread)", what);
  return ade_passive(r);
}

static int check_operand(const ade_tape *t, ade_double x) {
  uint64_t local = x.id & ADE__ID_MASK;
  return (x.id & ~ADE__ID_MASK) == t->serial && local >= 1 && local <= t->w->first + t->w->n;
}

/* Worst case of an ordinary record in each column it writes: one opcode,
 * three operand varints, a stored value, three constants, a site varint. */
enum { ROOM_OPS = 1, ROOM_REFS = 30, ROOM_VALUES = 8, ROOM_CONSTS = 24, ROOM_SITES = 10 };

/* Ordinary records that fit every column's free capacity. */
static uint32_t col_room(const ade__buf *c) {
  size_t r = c[ADE__COL_OPS].cap - c[ADE__COL_OPS].len;
  r = ADE__MIN(r, (c[ADE__COL_REFS].cap - c[ADE__COL_REFS].len) / ROOM_REFS);
  r = ADE__MIN(r, (c[ADE__COL_VALUES].cap - c[ADE__COL_VALUES].len) / ROOM_VALUES);
  r = ADE__MIN(r, (c[ADE__COL_CONSTS].cap - c[ADE__COL_CONSTS].len) / ROOM_CONSTS);
  r = ADE__MIN(r, (c[ADE__COL_SITES].cap - c[ADE__COL_SITES].len) / ROOM_SITES);
  return (uint32_t)ADE__MIN(r, (size_t)UINT32_MAX);
}

/* Grow the columns to hold ROOM_BATCH more records at least (capacities
 * double): out of the way of the record path. */
enum { ROOM_BATCH = 64 };
static ADE__COLD int room_refill(ade__writer *w) {
  ade__buf *c = w->col;
  if (ade__buf_reserve(&c[ADE__COL_OPS], ROOM_BATCH * ROOM_OPS) ||
      ade__buf_reserve(&c[ADE__COL_REFS], ROOM_BATCH * ROOM_REFS) ||
      ade__buf_reserve(&c[ADE__COL_VALUES], ROOM_BATCH * ROOM_VALUES) ||
      ade__buf_reserve(&c[ADE__COL_CONSTS], ROOM_BATCH * ROOM_CONSTS) ||
      ade__buf_reserve(&c[ADE__COL_SITES], ROOM_BATCH * ROOM_SITES))
    return ADE_ENOMEM;
  return ADE_OK;
}

/* How many ordinary records may take the fast path from here: those that
 * fit the columns, leave the chunk one record short of full (the slow
 * path flushes it) and stay below 2^44; none while call sites are
 * captured or the recording has failed. */
static void quick_set(ade_tape *t) {
  ade__writer *w = t->w;
  w->base = t->serial | (w->first + 1);
  if (w->status || t->hdr.capture) {
    w->quick = 0;
    return;
  }
  uint64_t q = ADE__MIN((uint64_t)col_room(w->col), (uint64_t)(t->hdr.chunk_records - 1 - w->n));
  w->quick = (uint32_t)ADE__MIN(q, ADE__ID_MASK - 1 - (w->first + w->n));
}

/* Append one record; x holds the k operands, r the result: every case
 * (operands from earlier chunks, call sites, diagnoses, full columns, a
 * full chunk, errors). append_fast takes the common one. */
ade_double ade__append(ade_tape *t, unsigned op, int k, const ade_double *x, double r,
                       int kind, const void *site) {
  ade__writer *w = t->w;
  if (w->status) return ade_passive(r);
  uint64_t rid = w->first + w->n + 1;
  if (rid > ADE__ID_MASK) return passive_with_error(t, r, ADE_ETOOBIG, "tape is full (2^44 records)");
  for (int i = 0; i < k; i++)
    if (x[i].id && !check_operand(t, x[i]))
      return passive_with_error(t, r, ADE_ESTATE, "operand from another tape or a finished one");
  ade__buf *c = w->col;
  if (!col_room(c) && room_refill(w)) return passive_with_error(t, r, ADE_ENOMEM, "out of memory");
  c[ADE__COL_OPS].p[c[ADE__COL_OPS].len++] = (unsigned char)op;
  for (int i = 0; i < k; i++) {
    uint64_t local = x[i].id & ADE__ID_MASK;
    ade__buf *refs = &c[ADE__COL_REFS];
    refs->len += ade__varint_put(refs->p + refs->len, local ? rid - local : 0);
    if (!local) {
      ade__stf64(c[ADE__COL_CONSTS].p + c[ADE__COL_CONSTS].len, x[i].v);
      c[ADE__COL_CONSTS].len += 8;
    } else if (local <= w->first && import_add(w, local, x[i].v)) {
      return passive_with_error(t, r, ADE_ENOMEM, "out of memory");
    }
  }
  if (ade__optab[op].flags & ADE__STORE) {
    ade__stf64(c[ADE__COL_VALUES].p + c[ADE__COL_VALUES].len, r);
    c[ADE__COL_VALUES].len += 8;
  }
  uint32_t sidx = 0;
  if (t->hdr.capture) {
    if (ade__site_intern(t, site, &sidx)) return passive_with_error(t, r, ADE_ENOMEM, "out of memory");
    c[ADE__COL_SITES].len += ade__varint_put(c[ADE__COL_SITES].p + c[ADE__COL_SITES].len, sidx + 1);
  }
  if (kind) {
    ade__diag_rec d = {rid - 1, (uint8_t)op, (uint8_t)kind, t->hdr.capture ? sidx + 1 : 0};
    if (ade__meta_add_diag(&t->meta, &d)) return passive_with_error(t, r, ADE_ENOMEM, "out of memory");
  }
  w->opcount[op]++;
  w->n++;
  if (w->n == t->hdr.chunk_records) {
    int st = ade__writer_flush(t);
    if (st) { /* the record is lost with its chunk: its result is passive */
      ade__record_error(t, st, "writing chunk %zu: %s", t->meta.nchunks, ade_errmsg());
      return ade_passive(r);
    }
  }
  quick_set(t);
  ade_double res = {r, t->serial | rid};
  return res;
}

/* The common record, inlined into every operation: the fast path allows
 * it (w->quick), nothing is diagnosed, and every operand is a constant or
 * a record of the open chunk (no import). It writes what ade__append
 * writes for it, byte for byte; anything else goes there. */
static inline __attribute__((always_inline)) ade_double append_fast(ade_tape *t, unsigned op, int k,
                                                                    const ade_double *x, double r,
                                                                    int kind, const void *site) {
  ade__writer *w = t->w;
  const uint64_t n = w->n, base = w->base;
  int slow = !w->quick || kind;
#pragma GCC unroll 3
  for (int i = 0; i < k; i++) slow |= x[i].id && x[i].id - base >= n;
  if (ADE__UNLIKELY(slow)) return ade__append(t, op, k, x, r, kind, site);
  const uint64_t rid = base + n;
  ade__buf *c = w->col;
  c[ADE__COL_OPS].p[c[ADE__COL_OPS].len++] = (unsigned char)op;
  unsigned char *ref = c[ADE__COL_REFS].p + c[ADE__COL_REFS].len;
#pragma GCC unroll 3
  for (int i = 0; i < k; i++) {
    if (x[i].id) {
      ref += ade__varint_put(ref, rid - x[i].id);
    } else {
      *ref++ = 0;
      ade__stf64(c[ADE__COL_CONSTS].p + c[ADE__COL_CONSTS].len, x[i].v);
      c[ADE__COL_CONSTS].len += 8;
    }
  }
  c[ADE__COL_REFS].len = (size_t)(ref - c[ADE__COL_REFS].p);
  if (ade__op_flags(op) & ADE__STORE) {
    ade__stf64(c[ADE__COL_VALUES].p + c[ADE__COL_VALUES].len, r);
    c[ADE__COL_VALUES].len += 8;
  }
  w->opcount[op]++;
  w->n = (uint32_t)n + 1;
  w->quick--;
  ade_double res = {r, rid};
  return res;
}

/* ------------------------------------------------- vector elemental calls */

/* The string index of e's name on t, added once per tape. */
static int elem_string(ade_tape *t, const struct ade_elemental *e, uint32_t *idx) {
  ade__writer *w = t->w;
  for (size_t i = 0; i < w->nenames; i++)
    if (w->enames[i] == e) return *idx = w->estring[i], ADE_OK;
  size_t c1 = w->enamecap, c2 = w->enamecap;
  if (ade__grow((void **)&w->enames, &c1, w->nenames + 1, sizeof *w->enames) ||
      ade__grow((void **)&w->estring, &c2, w->nenames + 1, sizeof *w->estring) ||
      ade__meta_add_string(&t->meta, e->name, idx))
    return ADE_ENOMEM;
  w->enamecap = ADE__MIN(c1, c2);
  w->enames[w->nenames] = e;
  w->estring[w->nenames++] = *idx;
  return ADE_OK;
}

/* Columns of an elemental call: m records of opcode 255, the first with
 * its output number 0, name, n, m and n operands in refs, the others with
 * their output number only; every output's value stored. */
static int elem_columns(ade_tape *t, const struct ade_elemental *e, uint32_t name, const ade_double *x,
                        const double *yv, uint64_t rid, uint32_t site) {
  ade__writer *w = t->w;
  ade__buf *c = w->col;
  size_t n = e->n, m = e->m;
  w->quick = 0; /* the call took room of its own: the next record counts again */
  if (ade__buf_reserve(&c[ADE__COL_OPS], m) || ade__buf_reserve(&c[ADE__COL_REFS], 10 * (n + m + 3)) ||
      ade__buf_reserve(&c[ADE__COL_VALUES], 8 * m) || ade__buf_reserve(&c[ADE__COL_CONSTS], 8 * n) ||
      ade__buf_reserve(&c[ADE__COL_SITES], 10 * m))
    return ADE_ENOMEM;
  ade__buf *refs = &c[ADE__COL_REFS];
  for (size_t k = 0; k < m; k++) {
    c[ADE__COL_OPS].p[c[ADE__COL_OPS].len++] = ADE_OP_VECTOR_ELEMENTAL;
    refs->len += ade__varint_put(refs->p + refs->len, k);
    if (k == 0) {
      refs->len += ade__varint_put(refs->p + refs->len, name);
      refs->len += ade__varint_put(refs->p + refs->len, n);
      refs->len += ade__varint_put(refs->p + refs->len, m);
      for (size_t j = 0; j < n; j++) {
        uint64_t local = x[j].id & ADE__ID_MASK;
        refs->len += ade__varint_put(refs->p + refs->len, local ? rid - local : 0);
        if (!local) {
          ade__stf64(c[ADE__COL_CONSTS].p + c[ADE__COL_CONSTS].len, x[j].v);
          c[ADE__COL_CONSTS].len += 8;
        } else if (local <= w->first && import_add(w, local, x[j].v)) {
          return ADE_ENOMEM;
        }
      }
    }
    ade__stf64(c[ADE__COL_VALUES].p + c[ADE__COL_VALUES].len, yv[k]);
    c[ADE__COL_VALUES].len += 8;
    if (t->hdr.capture)
      c[ADE__COL_SITES].len += ade__varint_put(c[ADE__COL_SITES].p + c[ADE__COL_SITES].len, site + 1);
  }
  return ADE_OK;
}

/* Non-finite outputs of finite inputs, flagged like any operation's. */
static int elem_diags(ade_tape *t, const struct ade_elemental *e, const ade_double *x, const double *yv,
                      uint64_t rid, uint32_t site) {
  for (size_t j = 0; j < e->n; j++)
    if (!isfinite(x[j].v)) return ADE_OK;
  for (size_t k = 0; k < e->m; k++) {
    ade__diag_rec d = {rid - 1 + k, ADE_OP_VECTOR_ELEMENTAL, ADE_DIAG_NONFINITE, t->hdr.capture ? site + 1 : 0};
    if (!isfinite(yv[k]) && ade__meta_add_diag(&t->meta, &d)) return ADE_ENOMEM;
  }
  return ADE_OK;
}

int ade__append_elemental(ade_tape *t, const struct ade_elemental *e, const ade_double *x, const double *yv,
                          ade_double *y, const void *site) {
  ade__writer *w = t->w;
  if (e->m > t->hdr.chunk_records)
    return ade__fail(ADE_ETOOBIG, "elemental '%s' has %zu outputs; a chunk holds %u records", e->name, e->m,
                     t->hdr.chunk_records);
  for (size_t j = 0; j < e->n; j++)
    if (x[j].id && !check_operand(t, x[j]))
      return ade__fail(ADE_ESTATE, "elemental '%s': input %zu is from another tape or a finished one", e->name, j);
  int st = w->n + e->m > t->hdr.chunk_records ? ade__writer_flush(t) : ADE_OK; /* a call stays in one chunk */
  if (st) return st;
  uint64_t rid = w->first + w->n + 1;
  if (rid + e->m - 1 > ADE__ID_MASK) return ade__fail(ADE_ETOOBIG, "tape is full (2^44 records)");
  uint32_t name = 0, sidx = 0;
  if (elem_string(t, e, &name) || (t->hdr.capture && ade__site_intern(t, site, &sidx)) ||
      elem_columns(t, e, name, x, yv, rid, sidx) || elem_diags(t, e, x, yv, rid, sidx))
    return ade__fail(ADE_ENOMEM, "out of memory recording elemental '%s'", e->name);
  w->opcount[ADE_OP_VECTOR_ELEMENTAL] += e->m;
  w->n += (uint32_t)e->m;
  for (size_t k = 0; k < e->m; k++) y[k] = (ade_double){yv[k], t->serial | (rid + k)};
  if (w->n == t->hdr.chunk_records && (st = ade__writer_flush(t))) {
    for (size_t k = 0; k < e->m; k++) y[k] = ade_passive(yv[k]);
    return st;
  }
  return ADE_OK;
}

/* ------------------------------------------------------ public operations */

/* Record op on k operands: plain arithmetic when nothing is active. */
static inline __attribute__((always_inline)) ade_double rec(unsigned op, int k,
                                                            const ade_double *x,
                                                            const void *site) {
  double a[ADE__MAX_ARITY];
  uint64_t any = 0;
  for (int i = 0; i < k; i++) {
    a[i] = x[i].v;
    any |= x[i].id;
  }
  double r = ade__op_value(op, a);
  if (!any) return ade_passive(r);
  ade_tape *t = ade__current();
  if (ADE__UNLIKELY(!t)) return passive_with_error(NULL, r, ADE_ESTATE, "active operand");
  /* A failed recording goes on passively: its quick is 0, and ade__append
   * returns the passive result. Diagnose here, where op is a constant: the check folds to a few compares.
   * Flag where a non-finite value arises, not everywhere it propagates. */
  int kind = ade__op_check(op, a, r);
  for (int i = 0; i < k && kind == ADE_DIAG_NONFINITE; i++)
    if (!isfinite(a[i])) kind = 0;
  return append_fast(t, op, k, x, r, kind, site);
}

ade_double ade_indep(double v) {
  ade_tape *t = ade__current();
  if (!t) return ade_passive(v);
  ade_double r = append_fast(t, ADE_OP_INDEP, 0, NULL, v, isfinite(v) ? 0 : ADE_DIAG_NONFINITE, SITE());
  ade__meta *m = &t->meta;
  if (!r.id) return r; /* a failed recording */
  if (ADE__LIKELY(m->nindep < m->indepcap)) {
    m->indep[m->nindep++] = r.id & ADE__ID_MASK;
  } else if (ade__meta_add_id(&m->indep, &m->nindep, &m->indepcap, r.id & ADE__ID_MASK)) {
    ade__record_error(t, ADE_ENOMEM, "out of memory adding an independent");
    return ade_passive(v);
  }
  return r;
}

double ade_dep(ade_double y) {
  ade_tape *t = ade__current();
  if (!t) {
    if (y.id) passive_with_error(NULL, y.v, ADE_ESTATE, "ade_dep on an active value");
    return y.v;
  }
  ade_double r = append_fast(t, ADE_OP_DEP, 1, &y, y.v, 0, SITE());
  ade__meta *m = &t->meta;
  if (!r.id) return y.v; /* a failed recording */
  if (ADE__LIKELY(m->ndep < m->depcap)) m->dep[m->ndep++] = r.id & ADE__ID_MASK;
  else if (ade__meta_add_id(&m->dep, &m->ndep, &m->depcap, r.id & ADE__ID_MASK))
    ade__record_error(t, ADE_ENOMEM, "out of memory adding a dependent");
  return y.v;
}

#define DEF_UNARY(f, OP)                                                       \
  ade_double ade_##f(ade_double a) { return rec(ADE_OP_##OP, 1, &a, SITE()); }
#define DEF_BINARY(f, OP)                                                      \
  ade_double ade_##f(ade_double a, ade_double b) {                             \
    ade_double x[2] = {a, b};                                                  \
    return rec(ADE_OP_##OP, 2, x, SITE());                                     \
  }
#define DEF_COMPARE(f, OP)                                                     \
  int ade_##f(ade_double a, ade_double b) {                                    \
    ade_double x[2] = {a, b};                                                  \
    return rec(ADE_OP_##OP, 2, x, SITE()).v != 0.0;                            \
  }

DEF_UNARY(neg, NEG)
DEF_UNARY(square, SQUARE)
DEF_UNARY(sqrt, SQRT)
DEF_UNARY(cbrt, CBRT)
DEF_UNARY(exp, EXP)
DEF_UNARY(expm1, EXPM1)
DEF_UNARY(log, LOG)
DEF_UNARY(log1p, LOG1P)
DEF_UNARY(log10, LOG10)
DEF_UNARY(sin, SIN)
DEF_UNARY(cos, COS)
DEF_UNARY(tan, TAN)
DEF_UNARY(asin, ASIN)
DEF_UNARY(acos, ACOS)
DEF_UNARY(atan, ATAN)
DEF_UNARY(sinh, SINH)
DEF_UNARY(cosh, COSH)
DEF_UNARY(tanh, TANH)
DEF_UNARY(asinh, ASINH)
DEF_UNARY(acosh, ACOSH)
DEF_UNARY(atanh, ATANH)
DEF_UNARY(erf, ERF)
DEF_UNARY(erfc, ERFC)
DEF_UNARY(fabs, FABS)
DEF_UNARY(floor, FLOOR)
DEF_UNARY(ceil, CEIL)
DEF_UNARY(trunc, TRUNC)
DEF_UNARY(round, ROUND)
DEF_BINARY(add, ADD)
DEF_BINARY(sub, SUB)
DEF_BINARY(mul, MUL)
DEF_BINARY(div, DIV)
DEF_BINARY(pow, POW)
DEF_BINARY(atan2, ATAN2)
DEF_BINARY(hypot, HYPOT)
DEF_BINARY(fmin, FMIN)
DEF_BINARY(fmax, FMAX)
DEF_BINARY(copysign, COPYSIGN)
DEF_COMPARE(lt, LT)
DEF_COMPARE(le, LE)
DEF_COMPARE(gt, GT)
DEF_COMPARE(ge, GE)
DEF_COMPARE(eq, EQ)
DEF_COMPARE(ne, NE)

ade_double ade_fma(ade_double a, ade_double b, ade_double c) {
  ade_double x[3] = {a, b, c};
  return rec(ADE_OP_FMA, 3, x, SITE());
}

/* ---------------------------------------------------------------- regions */

void ade_region_begin(const char *name) {
  ade_tape *t = ade__current();
  if (!t || t->w->status) return;
  ade__writer *w = t->w;
  ade__region_rec r = {0};
  r.parent = w->rdepth ? (int32_t)w->rstack[w->rdepth - 1] : -1;
  r.first_op = r.end_op = w->first + w->n;
  int st = ade__meta_add_string(&t->meta, name ? name : "", &r.name);
  if (!st && t->hdr.capture) st = ade__site_stack(t, &r.frames, &r.nframes);
  if (!st && w->rdepth == w->rcap) {
    size_t cap = w->rcap ? 2 * w->rcap : 16;
    uint32_t *s = ade__realloc(w->rstack, cap * sizeof *s);
    if (s) {
      w->rstack = s;
      w->rcap = cap;
    } else {
      st = ADE_ENOMEM;
    }
  }
  if (!st) st = ade__meta_add_region(&t->meta, &r);
  if (st) {
    ade__free(r.frames);
    ade__record_error(t, st, "out of memory opening region '%s'", name ? name : "");
    return;
  }
  w->rstack[w->rdepth++] = (uint32_t)(t->meta.nregions - 1);
}

void ade_region_end(void) {
  ade_tape *t = ade__current();
  if (!t || t->w->status) return;
  if (!t->w->rdepth) {
    ade__record_error(t, ADE_ESTATE, "ade_region_end without an open region");
    return;
  }
  t->meta.regions[t->w->rstack[--t->w->rdepth]].end_op = t->w->first + t->w->n;
}
