/* inspect.c: statistics, diagnostics, regions, verification and the structure hash of a finished tape. */
#include "record_internal.h"

int ade_tape_stats(const ade_tape *t, ade_stats *s) {
  int st = ade__tape_readable(t);
  if (st) return st;
  if (!s) return ade__fail(ADE_EINVAL, "ade_tape_stats: NULL stats");
  const ade__meta *m = &t->meta;
  memset(s, 0, sizeof *s);
  s->records = m->records;
  s->independents = m->nindep;
  s->dependents = m->ndep;
  s->chunks = m->nchunks;
  s->raw_bytes = m->raw_bytes;
  s->stored_bytes = t->store.size;
  s->stored_values = m->stored_values;
  s->regions = m->nregions;
  s->diagnostics = m->ndiags;
  s->callsites = m->nstrings;
  uint64_t chunk_bytes = 0;
  for (size_t i = 0; i < m->nchunks; i++) chunk_bytes += m->chunks[i].stored_size;
  s->bytes_per_op = m->records ? (double)s->stored_bytes / (double)m->records : 0.0;
  s->compression_ratio = chunk_bytes ? (double)m->raw_bytes / (double)chunk_bytes : 1.0;
  s->level = t->hdr.level;
  s->capture = t->hdr.capture;
  s->complete = m->complete;
  memcpy(s->op_count, m->opcount, sizeof s->op_count);
  return ADE_OK;
}

size_t ade_tape_num_indep(const ade_tape *t) { return t ? t->meta.nindep : 0; }
size_t ade_tape_num_dep(const ade_tape *t) { return t ? t->meta.ndep : 0; }
size_t ade_tape_num_diagnostics(const ade_tape *t) { return t ? t->meta.ndiags : 0; }
size_t ade_tape_num_regions(const ade_tape *t) { return t ? t->meta.nregions : 0; }

int ade_tape_diagnostic(const ade_tape *t, size_t i, ade_diagnostic *d) {
  int st = ade__tape_readable(t);
  if (st) return st;
  if (!d || i >= t->meta.ndiags)
    return ade__fail(ADE_EINVAL, "diagnostic %zu out of range (%zu)", i, t->meta.ndiags);
  const ade__diag_rec *r = &t->meta.diags[i];
  d->op = r->op;
  d->opcode = r->opcode;
  d->kind = r->kind;
  d->site = r->site ? t->meta.strings[r->site - 1] : "";
  return ADE_OK;
}

int ade_tape_region(const ade_tape *t, size_t i, ade_region *r) {
  int st = ade__tape_readable(t);
  if (st) return st;
  if (!r || i >= t->meta.nregions)
    return ade__fail(ADE_EINVAL, "region %zu out of range (%zu)", i, t->meta.nregions);
  const ade__region_rec *g = &t->meta.regions[i];
  r->name = t->meta.strings[g->name];
  r->parent = g->parent;
  r->depth = 0;
  for (int p = g->parent; p >= 0; p = t->meta.regions[p].parent) r->depth++;
  r->first_op = g->first_op;
  r->end_op = g->end_op;
  r->nframes = g->nframes;
  return ADE_OK;
}

const char *ade_tape_region_frame(const ade_tape *t, size_t i, size_t k) {
  if (!t || i >= t->meta.nregions || k >= t->meta.regions[i].nframes) return NULL;
  return t->meta.strings[t->meta.regions[i].frames[k]];
}

/* Diagnostics name records in ascending order, each with its opcode. */
static int check_diags(const ade_tape *t, const ade__view *v, size_t *d, size_t chunk) {
  const ade__meta *m = &t->meta;
  for (; *d < m->ndiags && m->diags[*d].op < v->first + v->n; ++*d) {
    const ade__diag_rec *r = &m->diags[*d];
    if ((*d && r->op <= m->diags[*d - 1].op) || r->opcode != v->op[r->op - v->first])
      return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: diagnostic %zu does not match the record "
                       "(opcode %u, order)", chunk, (unsigned long long)r->op, *d, r->opcode);
  }
  return ADE_OK;
}

/* Count v's opcodes and stored values; keep its comparisons' ids for the
 * imports of later chunks. */
static int tally(const ade__view *v, uint64_t count[256], uint64_t *stored, uint64_t **cmp,
                 size_t *ncmp, size_t *cap) {
  for (uint32_t i = 0; i < v->n; i++) {
    unsigned op = v->op[i];
    count[op]++;
    if (op == ADE_OP_VECTOR_ELEMENTAL) { /* outputs of a call: stored, never comparisons */
      ++*stored;
      continue;
    }
    *stored += (ade__optab[op].flags & ADE__STORE) != 0;
    if (op >= ADE_OP_LT && ade__meta_add_id(cmp, ncmp, cap, v->first + i + 1))
      return ade__fail(ADE_ENOMEM, "out of memory verifying");
  }
  return ADE_OK;
}

/* The footer's statistics are those of the records (a recovered tape
 * rebuilt its operation counts and raw bytes, not its stored values). */
static int check_counts(const ade_tape *t, const uint64_t count[256], uint64_t stored) {
  const ade__meta *m = &t->meta;
  uint64_t raw = 0;
  for (size_t c = 0; c < m->nchunks; c++) raw += m->chunks[c].raw_size;
  if (memcmp(count, m->opcount, sizeof m->opcount) || raw != m->raw_bytes ||
      (!t->recovered && stored != m->stored_values))
    return ade__fail(ADE_EFORMAT, "footer: operation counts, stored values or raw bytes differ from "
                     "the chunks'");
  return ADE_OK;
}

/* A chunk that ends before the header's size (short of it by s records)
 * is followed by an elemental call of more than s outputs. */
static int check_short(const ade_tape *t, const ade__view *v, uint32_t s, size_t chunk) {
  if (s && (v->op[0] != ADE_OP_VECTOR_ELEMENTAL || !v->nblk || v->blk[0].head || v->blk[0].m <= s))
    return ade__fail(ADE_EFORMAT, "chunk %zu: %u records short of the header's chunk size, but chunk %zu does "
                     "not start with an elemental call that would not have fit", chunk - 1,
                     s, chunk);
  (void)t;
  return ADE_OK;
}

static int verify(ade_tape *t) {
  int st = ade__tape_readable(t);
  ade__view v = {0};
  uint64_t count[256] = {0}, stored = 0, *cmp = NULL;
  size_t ncmp = 0, cap = 0, d = 0, nen = 0, encap = 0;
  ade__ename *en = NULL;
  for (size_t c = 0; !st && c < t->meta.nchunks; c++) {
    v.cmp = cmp;
    v.ncmp = ncmp;
    st = ade__view_decode(t, c, &v);
    if (!st && c) st = check_short(t, &v, t->hdr.chunk_records - t->meta.chunks[c - 1].records, c);
    if (!st) st = check_diags(t, &v, &d, c);
    if (!st) st = ade__enames_add(&v, &en, &nen, &encap, c);
    if (!st) st = tally(&v, count, &stored, &cmp, &ncmp, &cap);
  }
  if (!st) st = check_counts(t, count, stored);
  ade__view_free(&v);
  ade__free(cmp);
  ade__free(en);
  return st;
}

int ade_tape_verify(ade_tape *shared) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : verify(t));
}

int ade__tape_shape(ade_tape *shared, uint64_t h[2]) {
  int st = ade__tape_usable(shared);
  if (st) return st;
  ade_tape *own = shared->owner ? shared->owner : shared;
  if (atomic_load_explicit(&own->shash_set, memory_order_acquire)) {
    h[0] = atomic_load_explicit(&own->shash[0], memory_order_relaxed);
    h[1] = atomic_load_explicit(&own->shash[1], memory_order_relaxed);
    return ADE_OK;
  }
  uint64_t x[2] = {0, 0};
  if (own->shrec_chunks == own->meta.nchunks) { /* hashed while recording */
    x[0] = own->shrec[0], x[1] = own->shrec[1];
  } else {
    ade_tape *t;
    st = ade__tape_borrow(shared, &t);
    st = ade__tape_release(shared, t, st ? st : ade__shash_chunks(t, x));
    if (st) return st;
  }
  ade__shash_finish(own, x);
  /* Threads that race here compute the same values. */
  atomic_store_explicit(&own->shash[0], x[0], memory_order_relaxed);
  atomic_store_explicit(&own->shash[1], x[1], memory_order_relaxed);
  atomic_store_explicit(&own->shash_set, 1, memory_order_release);
  h[0] = x[0], h[1] = x[1];
  return ADE_OK;
}

int ade_tape_structure_hash(ade_tape *t, uint64_t *h) {
  uint64_t x[2];
  if (!h) return ade__fail(ADE_EINVAL, "ade_tape_structure_hash: NULL result");
  int st = ade__tape_shape(t, x);
  if (!st) *h = x[0];
  return st;
}
