/* shash.c: the structure hash: opcodes, operand pattern, independents and dependents, not values; of a chunk as it is recorded, or of a finished tape's chunks. */
#include "record_internal.h"

/* Two independent 64-bit hashes: each 8-byte word goes through a different
 * multiply-rotate mix (different constants, rotations and combining), so a
 * collision of one is not a collision of the other. */
#define K1 UINT64_C(0x9e3779b97f4a7c15)
#define K2 UINT64_C(0xbf58476d1ce4e5b9)
#define K3 UINT64_C(0x94d049bb133111eb)
#define K4 UINT64_C(0xff51afd7ed558ccd)

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static void word(uint64_t h[2], uint64_t w) {
  h[0] = rotl(h[0] ^ (w * K1), 31) * K2;
  h[1] = (rotl(h[1] + w * K3, 27) ^ (h[1] >> 29)) * K4 + K1;
}

static void bytes(uint64_t h[2], const unsigned char *p, size_t n) {
  size_t k = 0;
  word(h, n);
  for (; k + 8 <= n; k += 8) {
    uint64_t w;
    memcpy(&w, p + k, 8); /* native order: the hash is a property of this process's tapes */
    word(h, w);
  }
  uint64_t tail = 0;
  for (size_t i = 0; k + i < n; i++) tail |= (uint64_t)p[k + i] << (8 * i);
  word(h, tail);
}

/* splitmix64's finalizer. */
static uint64_t fmix(uint64_t x) {
  x = (x ^ (x >> 30)) * K2;
  x = (x ^ (x >> 27)) * K3;
  return x ^ (x >> 31);
}

void ade__shash_chunk(uint64_t h[2], uint64_t first, size_t records, const unsigned char *ops,
                      size_t nops, const unsigned char *refs, size_t nrefs) {
  word(h, first);
  word(h, records);
  bytes(h, ops, nops);   /* one opcode per record */
  bytes(h, refs, nrefs); /* per operand: 0 = constant, else the distance back to its record */
}

/* The chunks' hash from the tape's bytes (a tape opened or loaded). */
int ade__shash_chunks(ade_tape *t, uint64_t h[2]) {
  if (!t->dctx && !(t->dctx = ade__zstd_dctx())) return ade__fail(ADE_ENOMEM, "out of memory");
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__chunk_read(&t->store, t->dctx, &t->meta, c, &t->scratch, &t->cd);
    if (st) return st;
    const ade__chunkent *e = &t->meta.chunks[c];
    ade__shash_chunk(h, e->first, e->records, t->cd.col[ADE__COL_OPS], t->cd.collen[ADE__COL_OPS],
                     t->cd.col[ADE__COL_REFS], t->cd.collen[ADE__COL_REFS]);
  }
  return ADE_OK;
}

/* The whole: chunks, then the independents and dependents in order. */
void ade__shash_finish(const ade_tape *t, uint64_t h[2]) {
  const ade__meta *m = &t->meta;
  word(h, m->records);
  word(h, m->nchunks);
  word(h, m->nindep);
  for (size_t i = 0; i < m->nindep; i++) word(h, m->indep[i]);
  word(h, m->ndep);
  for (size_t i = 0; i < m->ndep; i++) word(h, m->dep[i]);
  h[0] = fmix(h[0]);
  h[1] = fmix(h[1] ^ K4);
}
