/* keep.c: the decoded form a recording with o->keep leaves behind, built
 * from each chunk's raw columns as the writer finishes it. */
#include "record_internal.h"

void ade__kept_free(ade__kept *k) {
  if (!k) return;
  ade__free(k->op);
  ade__free(k->rop);
  ade__free(k->rlen);
  ade__free(k->ref);
  ade__free(k->act);
  ade__free(k->cst);
  ade__free(k->val);
  ade__free(k->cref);
  ade__free(k->ccst);
  ade__free(k);
}

/* The writer's form dropped: the tape's sweeps decode as without it. */
void ade__kept_drop(ade__writer *w) {
  ade__kept_free(w->keep);
  w->keep = NULL;
}

/* Array a (elements of sz bytes, capacity *cap) with room for need. */
static int kgrow(void **a, size_t *cap, size_t need, size_t sz) {
  if (need <= *cap) return ADE_OK;
  size_t want = ADE__MAX(need, 2 * *cap);
  void *p = ade__realloc(*a, ade__mul_size(want, sz));
  if (!p) return ADE_ENOMEM;
  *a = p;
  *cap = want;
  return ADE_OK;
}

/* Bytes k holds allocated with capacities cap (see the field order). */
static size_t kept_alloc_bytes(const size_t *cap) {
  return cap[0] + cap[1] + (cap[2] + cap[3] + cap[4]) * 4 + (cap[5] + cap[6]) * 8 +
         (cap[7] + cap[8]) * sizeof(size_t);
}

/* Room for a chunk of n records with nref operand slots and ncst
 * constants, if the whole form then fits the memory limit. */
static int kept_reserve(ade__kept *k, size_t n, size_t nref, size_t ncst, size_t limit) {
  size_t cap[9];
  memcpy(cap, k->cap, sizeof cap);
  const size_t need[9] = {k->n + n, k->nrun + n, k->nrun + n, k->nref + nref, k->nact + nref,
                          k->ncst + ncst, k->n + n + 1, k->nchunk + 2, k->nchunk + 2};
  for (int i = 0; i < 9; i++)
    if (need[i] > cap[i]) cap[i] = ADE__MAX(need[i], 2 * cap[i]);
  if (kept_alloc_bytes(cap) > limit) return ADE_ETOOBIG;
  if (kgrow((void **)&k->op, &k->cap[0], need[0], 1) || kgrow((void **)&k->rop, &k->cap[1], need[1], 1) ||
      kgrow((void **)&k->rlen, &k->cap[2], need[2], 4) || kgrow((void **)&k->ref, &k->cap[3], need[3], 4) ||
      kgrow((void **)&k->act, &k->cap[4], need[4], 4) || kgrow((void **)&k->cst, &k->cap[5], need[5], 8) ||
      kgrow((void **)&k->val, &k->cap[6], need[6], 8) || kgrow((void **)&k->cref, &k->cap[7], need[7], 8) ||
      kgrow((void **)&k->ccst, &k->cap[8], need[8], 8))
    return ADE_ENOMEM;
  return ADE_OK;
}

/* A record's operand distance (the refs column's varint, as written). */
static inline uint64_t ref_next(const unsigned char **p) {
  uint64_t v = **p;
  if (v < 0x80) {
    (*p)++;
    return v;
  }
  ade__varint_get(p, *p + 10, &v); /* written by ade__varint_put: well formed */
  return v;
}

/* Runs of one opcode (ade__res: rop, rlen) over the chunk's opcodes. */
static void kept_runs(ade__kept *k, const unsigned char *ops, uint32_t n) {
  uint8_t *restrict rop = k->rop;
  uint32_t *restrict rlen = k->rlen;
  size_t nrun = k->nrun;
  for (uint32_t i = 0; i < n;) {
    const unsigned char op = ops[i];
    uint32_t e = i + 1;
    while (e < n && ops[e] == op) e++;
    if (nrun && rop[nrun - 1] == op && rlen[nrun - 1] <= UINT32_MAX - (e - i)) {
      rlen[nrun - 1] += e - i;
    } else {
      rop[nrun] = op;
      rlen[nrun++] = e - i;
    }
    i = e;
  }
  k->nrun = nrun;
}

/* The open chunk's records appended to k: as the reader decodes them
 * (values not stored are computed by the operation table from the
 * operands', the same bits), but from the columns as written. */
static void kept_add(ade__kept *k, const ade__writer *w) {
  const unsigned char *restrict ops = w->col[ADE__COL_OPS].p, *rp = w->col[ADE__COL_REFS].p;
  const unsigned char *vp = w->col[ADE__COL_VALUES].p, *cp = w->col[ADE__COL_CONSTS].p;
  double *restrict val = k->val, *restrict cst = k->cst + k->ncst;
  uint32_t *restrict ref = k->ref + k->nref, *restrict act = k->act + k->nact;
  uint32_t slot = (uint32_t)k->nref; /* < 3 records: a 32-bit id fits (ade__kept_chunk) */
  const uint32_t n = w->n;
  k->cref[k->nchunk] = k->nref;
  k->ccst[k->nchunk++] = k->ncst;
  memcpy(k->op + w->first, ops, n);
  kept_runs(k, ops, n);
  val[0] = 0.0;
  uint32_t rid = (uint32_t)w->first + 1;
  for (uint32_t i = 0; i < n; i++, rid++) {
    const unsigned op = ops[i], flags = ade__optab[op].flags;
    const int arity = ade__optab[op].arity;
    double a[ADE__MAX_ARITY];
    for (int j = 0; j < arity; j++, slot++) {
      const uint32_t d = (uint32_t)ref_next(&rp);
      *ref++ = d ? rid - d : 0;
      if (d) {
        a[j] = val[rid - d];
        if (!(flags & ADE__PASSIVE)) *act++ = slot;
      } else {
        a[j] = *cst++ = ade__ldf64(cp);
        cp += 8;
      }
    }
    if (flags & ADE__STORE) {
      val[rid] = ade__ldf64(vp);
      vp += 8;
    } else {
      val[rid] = ade__op_value(op, a);
    }
  }
  k->n += n;
  k->nref = slot;
  k->nact = (size_t)(act - k->act);
  k->ncst = (size_t)(cst - k->cst);
}

void ade__kept_chunk(ade_tape *t) {
  ade__writer *w = t->w;
  ade__kept *k = w->keep;
  if (!k) return;
  size_t nref = 0;
  for (unsigned op = 0; op < ADE_OP_COUNT; op++) nref += (size_t)w->opcount[op] * ade__optab[op].arity;
  /* Elemental calls sweep through the chunks' views; 32-bit operand ids. */
  if (w->opcount[ADE_OP_VECTOR_ELEMENTAL] || w->first + w->n >= UINT32_MAX ||
      kept_reserve(k, w->n, nref, w->col[ADE__COL_CONSTS].len / 8, t->memlimit)) {
    ade__kept_drop(w);
    return;
  }
  kept_add(k, w);
}

/* Arrays shrunk to their contents (a shrinking realloc that fails keeps
 * the larger block). */
static void kept_fit(void **a, size_t n, size_t sz) {
  void *p = ade__realloc(*a, ade__mul_size(n ? n : 1, sz));
  if (p) *a = p;
}

void ade__kept_finish(ade_tape *t, int ok) {
  ade__writer *w = t->w;
  ade__kept *k = w->keep;
  w->keep = NULL;
  if (!k) return;
  if (!ok || !t->meta.complete || k->n != t->meta.records || kept_reserve(k, 0, 0, 0, t->memlimit)) {
    ade__kept_free(k);
    return;
  }
  k->cref[k->nchunk] = k->nref;
  k->ccst[k->nchunk] = k->ncst;
  k->val[0] = 0.0;
  kept_fit((void **)&k->op, k->n, 1);
  kept_fit((void **)&k->rop, k->nrun, 1);
  kept_fit((void **)&k->rlen, k->nrun, 4);
  kept_fit((void **)&k->ref, k->nref, 4);
  kept_fit((void **)&k->act, k->nact, 4);
  kept_fit((void **)&k->cst, k->ncst, 8);
  kept_fit((void **)&k->val, k->n + 1, 8);
  atomic_store_explicit(&t->kept, k, memory_order_release);
}
