/* format.c: header, chunk frames, footer and trailer of the tape format (doc/tape-format.md). */
#include <xxhash.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem: route zstd allocations through our hook */
#include <zstd.h>
#include <zstd_errors.h>

#include "tape_internal.h"

/* Fuzz builds only (tests/fuzz/fuzz_tape_nocheck, -DADE_FUZZ_NO_CHECKSUM, never
 * the library): checksum mismatches pass, so mutated bytes reach the decoders. */
#ifdef ADE_FUZZ_NO_CHECKSUM
#define SUM_BAD(stored, computed) ((void)(stored), (void)(computed), 0)
#else
#define SUM_BAD(stored, computed) ((stored) != (computed))
#endif

static const unsigned char magic[8] = {0x89, 'A', 'D', 'T', '\r', '\n', 0x1a, '\n'};
static const unsigned char trailer_magic[8] = {'A', 'D', 'T', '-', 'E', 'N', 'D', '\n'};

/* ------------------------------------------------------------------ zstd */

static void *zalloc(void *opaque, size_t n) {
  (void)opaque;
  return ade__alloc(n);
}
static void zfree(void *opaque, void *p) {
  (void)opaque;
  ade__free(p);
}
static const ZSTD_customMem zmem = {zalloc, zfree, NULL};

void *ade__zstd_cctx(int level) {
  ZSTD_CCtx *c = ZSTD_createCCtx_advanced(zmem);
  if (c && ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level))) {
    ZSTD_freeCCtx(c);
    return NULL;
  }
  return c;
}
int ade__zstd_cctx_level(void *c, int level) {
  return ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)) ? ADE_EINVAL : ADE_OK;
}
void *ade__zstd_dctx(void) { return ZSTD_createDCtx_advanced(zmem); }
void ade__zstd_free_cctx(void *c) { ZSTD_freeCCtx(c); }
void ade__zstd_free_dctx(void *d) { ZSTD_freeDCtx(d); }

/* ---------------------------------------------------------------- header */

void ade__header_encode(unsigned char o[ADE__HEADER_SIZE], const ade__header *h) {
  memset(o, 0, ADE__HEADER_SIZE);
  memcpy(o, magic, 8);
  o[8] = ADE__FMT_MAJOR;
  o[10] = ADE__FMT_MINOR;
  o[12] = sizeof(double);
  o[13] = sizeof(uint64_t);
  o[14] = h->capture ? 1 : 0;
  o[15] = (unsigned char)h->level;
  ade__st32(o + 16, ADE__ENDIAN_TAG);
  ade__st32(o + 20, h->chunk_records);
  ade__stf64(o + 24, ADE__CANARY);
  ade__st64(o + 56, XXH64(o, 56, 0));
}

int ade__header_decode(const unsigned char in[ADE__HEADER_SIZE], ade__header *h) {
  if (memcmp(in, magic, 8) != 0) return ade__fail(ADE_EFORMAT, "not an adelim tape (bad magic at offset 0)");
  unsigned major = in[8] | (unsigned)in[9] << 8;
  if (major != ADE__FMT_MAJOR)
    return ade__fail(ADE_EVERSION, "tape format version %u, this adelim reads version %d", major,
                     ADE__FMT_MAJOR);
  if (SUM_BAD(ade__ld64(in + 56), XXH64(in, 56, 0)))
    return ade__fail(ADE_ECHECKSUM, "tape header checksum mismatch (offset 56)");
  if (in[12] != 8 || in[13] != 8 || ade__ld32(in + 16) != ADE__ENDIAN_TAG ||
      ade__ldf64(in + 24) != ADE__CANARY)
    return ade__fail(ADE_EFORMAT, "tape header: size, byte order or float canary differs");
  for (int i = 32; i < 56; i++)
    if (in[i]) return ade__fail(ADE_EFORMAT, "tape header: reserved byte %d is not zero", i);
  if (in[14] > 1 || in[15] > 22) return ade__fail(ADE_EFORMAT, "tape header: bad flags or level");
  h->capture = in[14];
  h->level = in[15];
  h->chunk_records = ade__ld32(in + 20);
  if (h->chunk_records == 0 || h->chunk_records > ADE__MAX_CHUNK_RECORDS)
    return ade__fail(ADE_EFORMAT, "tape header: chunk size %u out of range", h->chunk_records);
  return ADE_OK;
}

/* ----------------------------------------------------------------- frames */

typedef struct frame {
  unsigned char tag[4];
  uint32_t index, records, raw_size, stored_size;
  uint64_t first;
  unsigned codec;
  uint64_t sum;
} frame;

static void frame_encode(unsigned char o[ADE__FRAME_SIZE], const frame *f) {
  memset(o, 0, ADE__FRAME_SIZE);
  memcpy(o, f->tag, 4);
  ade__st32(o + 4, f->index);
  ade__st64(o + 8, f->first);
  ade__st32(o + 16, f->records);
  ade__st32(o + 20, f->raw_size);
  ade__st32(o + 24, f->stored_size);
  o[28] = (unsigned char)f->codec;
  ade__st64(o + 32, f->sum);
  ade__st64(o + 40, XXH64(o, 40, 0));
}

static int frame_decode(const unsigned char in[ADE__FRAME_SIZE], frame *f, uint64_t off) {
  if (SUM_BAD(ade__ld64(in + 40), XXH64(in, 40, 0)))
    return ade__fail(ADE_ECHECKSUM, "frame header checksum mismatch at offset %llu",
                     (unsigned long long)off);
  memcpy(f->tag, in, 4);
  f->index = ade__ld32(in + 4);
  f->first = ade__ld64(in + 8);
  f->records = ade__ld32(in + 16);
  f->raw_size = ade__ld32(in + 20);
  f->stored_size = ade__ld32(in + 24);
  f->codec = in[28];
  f->sum = ade__ld64(in + 32);
  if (f->codec > 1 || in[29] || in[30] || in[31])
    return ade__fail(ADE_EFORMAT, "frame at offset %llu: bad codec or reserved bytes",
                     (unsigned long long)off);
  /* A zstd block regenerates at most 128 KiB and takes at least 4 bytes (RLE),
   * so a larger claim is false: refuse it before allocating for it. */
  if (f->raw_size > ADE__MAX_CHUNK_BYTES || f->stored_size > ADE__MAX_CHUNK_BYTES ||
      (f->codec == 0 && f->raw_size != f->stored_size) ||
      (f->codec == 1 && f->raw_size / 32768 > f->stored_size))
    return ade__fail(ADE_EFORMAT, "frame at offset %llu: sizes out of range",
                     (unsigned long long)off);
  return ADE_OK;
}

/* Compress payload (or keep it raw when that is not smaller), frame and append it. */
static int frame_write(ade__store *s, void *cctx, int level, frame *f, const ade__buf *raw,
                       ade__buf *out, uint64_t *offset) {
  const unsigned char *stored = raw->p;
  size_t n = raw->len;
  f->codec = 0;
  if (level > 0) {
    out->len = 0;
    size_t bound = ZSTD_compressBound(raw->len);
    if (ade__buf_reserve(out, bound)) return ade__fail(ADE_ENOMEM, "out of memory compressing");
    size_t z = ZSTD_compress2(cctx, out->p, bound, raw->p, raw->len);
    if (ZSTD_isError(z))
      return ade__fail(ZSTD_getErrorCode(z) == ZSTD_error_memory_allocation ? ADE_ENOMEM : ADE_EIO,
                       "zstd: %s", ZSTD_getErrorName(z));
    if (z < raw->len) {
      stored = out->p;
      n = z;
      f->codec = 1;
    }
  }
  f->raw_size = (uint32_t)raw->len;
  f->stored_size = (uint32_t)n;
  f->sum = XXH64(stored, n, 0);
  unsigned char hdr[ADE__FRAME_SIZE];
  frame_encode(hdr, f);
  *offset = s->size;
  /* In memory, room for the whole frame first: a frame is appended whole or not at all. */
  if (s->fd < 0 && ade__buf_reserve(&s->mem, sizeof hdr + n))
    return ade__fail(ADE_ENOMEM, "out of memory growing the tape");
  int st = ade__store_append(s, hdr, sizeof hdr);
  return st ? st : ade__store_append(s, stored, n);
}

/* Read the frame at off with the expected tag, verify and decompress it into raw. */
static int frame_read(const ade__store *s, void *dctx, uint64_t off, const char *tag, frame *f,
                      ade__buf *scratch, ade__buf *raw) {
  unsigned char hdr[ADE__FRAME_SIZE];
  int st = ade__store_read(s, off, hdr, sizeof hdr);
  if (st || (st = frame_decode(hdr, f, off))) return st;
  if (memcmp(f->tag, tag, 4) != 0)
    return ade__fail(ADE_EFORMAT, "expected a %.4s frame at offset %llu", tag, (unsigned long long)off);
  if (f->stored_size > s->size - off - ADE__FRAME_SIZE) /* before allocating for it */
    return ade__fail(ADE_ETRUNC, "tape truncated: the %.4s frame at offset %llu claims %u bytes",
                     tag, (unsigned long long)off, f->stored_size);
  ade__buf *dst = f->codec ? scratch : raw;
  dst->len = 0;
  if (ade__buf_reserve(dst, f->stored_size + 1)) return ade__fail(ADE_ENOMEM, "out of memory reading");
  if ((st = ade__store_read(s, off + ADE__FRAME_SIZE, dst->p, f->stored_size))) return st;
  dst->len = f->stored_size;
  if (SUM_BAD(f->sum, XXH64(dst->p, dst->len, 0)))
    return ade__fail(ADE_ECHECKSUM, "payload checksum mismatch in the %.4s frame at offset %llu", tag,
                     (unsigned long long)off);
  if (!f->codec) return ADE_OK;
  unsigned long long cs = ZSTD_getFrameContentSize(scratch->p, scratch->len);
  if (cs != f->raw_size)
    return ade__fail(ADE_EFORMAT, "compressed payload at offset %llu: size %llu, frame says %u",
                     (unsigned long long)off, cs, f->raw_size);
  raw->len = 0;
  if (ade__buf_reserve(raw, f->raw_size + 1)) return ade__fail(ADE_ENOMEM, "out of memory decompressing");
  size_t z = ZSTD_decompressDCtx(dctx, raw->p, f->raw_size, scratch->p, scratch->len);
  if (ZSTD_isError(z) || z != f->raw_size)
    return ade__fail(ADE_EFORMAT, "corrupt compressed payload at offset %llu: %s",
                     (unsigned long long)off, ZSTD_isError(z) ? ZSTD_getErrorName(z) : "short");
  raw->len = z;
  return ADE_OK;
}

/* ----------------------------------------------------------------- chunks */

static int is_double_col(int c) { return c == ADE__COL_VALUES || c == ADE__COL_CONSTS; }

/* The payload of cols (column directory, then the columns, doubles
 * shuffled) into p, total bytes. */
static void payload_fill(unsigned char *p, const ade__buf cols[ADE__NCOLS]) {
  unsigned char *q = p + 4 + 4 * ADE__NCOLS;
  ade__st32(p, ADE__NCOLS);
  for (int c = 0; c < ADE__NCOLS; c++) {
    ade__st32(p + 4 + 4 * c, (uint32_t)cols[c].len);
    if (is_double_col(c)) ade__shuffle8(q, cols[c].p, cols[c].len / 8);
    else if (cols[c].len) memcpy(q, cols[c].p, cols[c].len);
    q += cols[c].len;
  }
}

/* A raw frame built where it goes, at the end of a memory store: no
 * scratch copy (what frame_write writes for level 0). */
static int frame_in_place(ade__store *s, frame *f, const ade__buf cols[ADE__NCOLS], size_t total,
                          uint64_t *offset) {
  if (ade__buf_reserve(&s->mem, ADE__FRAME_SIZE + total)) return ade__fail(ADE_ENOMEM, "out of memory growing the tape");
  unsigned char *hdr = s->mem.p + s->mem.len, *raw = hdr + ADE__FRAME_SIZE;
  payload_fill(raw, cols);
  f->codec = 0;
  f->raw_size = f->stored_size = (uint32_t)total;
  f->sum = XXH64(raw, total, 0);
  frame_encode(hdr, f);
  *offset = s->size;
  s->mem.len += ADE__FRAME_SIZE + total;
  s->size += ADE__FRAME_SIZE + total;
  return ADE_OK;
}

int ade__chunk_write(ade__store *s, void *cctx, int level, uint32_t index, uint64_t first,
                     uint32_t records, const ade__buf cols[ADE__NCOLS], ade__buf scratch[2],
                     ade__chunkent *ent) {
  ade__buf *raw = &scratch[0];
  size_t total = 4 + 4 * ADE__NCOLS;
  for (int c = 0; c < ADE__NCOLS; c++) total += cols[c].len;
  if (total > ADE__MAX_CHUNK_BYTES) return ade__fail(ADE_ETOOBIG, "chunk %u exceeds 1 GiB", index);
  frame f = {{'A', 'D', 'C', 'K'}, index, records, 0, 0, first, 0, 0};
  int st;
  if (level == 0 && s->fd < 0) {
    st = frame_in_place(s, &f, cols, total, &ent->offset);
  } else {
    raw->len = 0;
    if (ade__buf_reserve(raw, total)) return ade__fail(ADE_ENOMEM, "out of memory writing chunk %u", index);
    payload_fill(raw->p, cols);
    raw->len = total;
    st = frame_write(s, cctx, level, &f, raw, &scratch[1], &ent->offset);
  }
  ent->first = first;
  ent->records = records;
  ent->raw_size = f.raw_size;
  ent->stored_size = f.stored_size;
  return st;
}

int ade__chunk_peek(const ade__store *s, uint64_t off, uint32_t index, uint64_t first,
                    ade__chunkent *e) {
  unsigned char hdr[ADE__FRAME_SIZE];
  frame f;
  int st = ade__store_read(s, off, hdr, sizeof hdr);
  if (st || (st = frame_decode(hdr, &f, off))) return st;
  if (memcmp(f.tag, "ADCK", 4) != 0 || f.index != index || f.first != first || f.records == 0 ||
      f.records > ADE__MAX_CHUNK_RECORDS)
    return ade__fail(ADE_EFORMAT, "no chunk %u frame at offset %llu", index, (unsigned long long)off);
  if (f.stored_size > s->size - off - ADE__FRAME_SIZE)
    return ade__fail(ADE_ETRUNC, "chunk %u at offset %llu is cut short", index, (unsigned long long)off);
  e->offset = off;
  e->first = first;
  e->records = f.records;
  e->raw_size = f.raw_size;
  e->stored_size = f.stored_size;
  return ADE_OK;
}

int ade__chunk_read(const ade__store *s, void *dctx, const ade__meta *m, size_t index,
                    ade__buf *scratch, ade__chunkdata *d) {
  const ade__chunkent *e = &m->chunks[index];
  frame f;
  int st = frame_read(s, dctx, e->offset, "ADCK", &f, scratch, &d->raw);
  if (st) return st;
  if (f.index != index || f.first != e->first || f.records != e->records ||
      f.stored_size != e->stored_size || f.raw_size != e->raw_size)
    return ade__fail(ADE_EFORMAT, "chunk %zu at offset %llu does not match the chunk index", index,
                     (unsigned long long)e->offset);
  size_t dir = 4 + 4 * ADE__NCOLS, sum = dir;
  if (d->raw.len < dir || ade__ld32(d->raw.p) != ADE__NCOLS)
    return ade__fail(ADE_EFORMAT, "chunk %zu: bad column directory", index);
  size_t ndoubles = 0;
  for (int c = 0; c < ADE__NCOLS; c++) {
    d->collen[c] = ade__ld32(d->raw.p + 4 + 4 * c);
    if (d->collen[c] > d->raw.len - sum || (is_double_col(c) && d->collen[c] % 8))
      return ade__fail(ADE_EFORMAT, "chunk %zu: column %d size %zu out of range", index, c, d->collen[c]);
    d->col[c] = d->raw.p + sum;
    sum += d->collen[c];
    if (is_double_col(c)) ndoubles += d->collen[c];
  }
  if (sum != d->raw.len) return ade__fail(ADE_EFORMAT, "chunk %zu: trailing bytes after the columns", index);
  d->plain.len = 0;
  if (ade__buf_reserve(&d->plain, ndoubles + 1)) return ade__fail(ADE_ENOMEM, "out of memory reading chunk %zu", index);
  unsigned char *q = d->plain.p;
  for (int c = 0; c < ADE__NCOLS; c++) {
    if (!is_double_col(c)) continue;
    ade__unshuffle8(q, d->col[c], d->collen[c] / 8);
    d->col[c] = q;
    q += d->collen[c];
  }
  return ADE_OK;
}

/* ----------------------------------------------------- footer and trailer */

int ade__footer_write(ade__store *s, void *cctx, int level, const ade__meta *m) {
  ade__buf b[2] = {{0}, {0}};
  unsigned char tr[ADE__TRAILER_SIZE];
  uint64_t off = 0;
  int st = ade__meta_encode(&b[0], m);
  if (!st && b[0].len > ADE__MAX_CHUNK_BYTES) st = ade__fail(ADE_ETOOBIG, "footer exceeds 1 GiB");
  if (!st) {
    frame f = {{'A', 'D', 'F', 'T'}, (uint32_t)m->nchunks, 0, 0, 0, m->records, 0, 0};
    st = frame_write(s, cctx, level, &f, &b[0], &b[1], &off);
  }
  if (!st) {
    ade__st64(tr, off);
    ade__st64(tr + 8, s->size + ADE__TRAILER_SIZE);
    ade__st64(tr + 16, XXH64(tr, 16, 0));
    memcpy(tr + 24, trailer_magic, 8);
    st = ade__store_append(s, tr, sizeof tr);
  }
  ade__buf_free(&b[0]);
  ade__buf_free(&b[1]);
  return st;
}

int ade__tape_recode(const ade__store *in, void *dctx, const ade__header *h, const ade__meta *m,
                     void *cctx, ade__store *out) {
  unsigned char hb[ADE__HEADER_SIZE];
  ade__buf b[3] = {{0}, {0}, {0}};
  ade__meta m2 = *m; /* the same tables but for the chunk index */
  m2.chunks = m->nchunks ? ade__calloc(m->nchunks, sizeof *m2.chunks) : NULL;
  int st = m->nchunks && !m2.chunks ? ade__fail(ADE_ENOMEM, "out of memory saving a tape") : ADE_OK;
  ade__header_encode(hb, h);
  if (!st) st = ade__store_append(out, hb, sizeof hb);
  for (size_t i = 0; i < m->nchunks && !st; i++) {
    const ade__chunkent *e = &m->chunks[i];
    frame f;
    st = frame_read(in, dctx, e->offset, "ADCK", &f, &b[0], &b[1]);
    if (st) break;
    frame g = {{'A', 'D', 'C', 'K'}, (uint32_t)i, e->records, 0, 0, e->first, 0, 0};
    st = frame_write(out, cctx, h->level, &g, &b[1], &b[2], &m2.chunks[i].offset);
    m2.chunks[i].first = e->first;
    m2.chunks[i].records = e->records;
    m2.chunks[i].raw_size = g.raw_size;
    m2.chunks[i].stored_size = g.stored_size;
  }
  if (!st) st = ade__footer_write(out, cctx, h->level, &m2);
  ade__free(m2.chunks);
  for (int i = 0; i < 3; i++) ade__buf_free(&b[i]);
  return st;
}

/* Chunks must tile the bytes between the header and the footer exactly. */
static int check_chunk_index(const ade__meta *m, uint64_t footer_off) {
  uint64_t off = ADE__HEADER_SIZE, records = 0;
  for (size_t i = 0; i < m->nchunks; i++) {
    const ade__chunkent *e = &m->chunks[i];
    if (e->offset != off)
      return ade__fail(ADE_EFORMAT, "chunk index: chunk %zu at offset %llu, expected %llu", i,
                       (unsigned long long)e->offset, (unsigned long long)off);
    /* Each record takes an opcode byte of the raw payload, which zstd
     * expands at most 32768-fold: so the records a footer claims are backed
     * by the file's bytes before anyone allocates for them. */
    if (e->records > e->raw_size - ADE__MIN(e->raw_size, 4 + 4 * ADE__NCOLS) ||
        e->raw_size / 32768 > e->stored_size)
      return ade__fail(ADE_EFORMAT, "chunk index: chunk %zu claims %u records in %u raw, %u stored "
                       "bytes", i, e->records, e->raw_size, e->stored_size);
    off += ADE__FRAME_SIZE + (uint64_t)e->stored_size;
    records += e->records;
  }
  if (off != footer_off || records != m->records)
    return ade__fail(ADE_EFORMAT, "chunk index does not cover the tape (%llu records, footer at %llu)",
                     (unsigned long long)m->records, (unsigned long long)footer_off);
  if ((m->nindep && m->indep[m->nindep - 1] > m->records) ||
      (m->ndep && m->dep[m->ndep - 1] > m->records))
    return ade__fail(ADE_EFORMAT, "footer: independent or dependent id beyond the last record");
  return ADE_OK;
}

int ade__footer_read(const ade__store *s, void *dctx, ade__meta *m) {
  unsigned char tr[ADE__TRAILER_SIZE];
  if (s->size < ADE__HEADER_SIZE + ADE__TRAILER_SIZE)
    return ade__fail(ADE_ETRUNC, "tape truncated: %llu bytes", (unsigned long long)s->size);
  int st = ade__store_read(s, s->size - ADE__TRAILER_SIZE, tr, sizeof tr);
  if (st) return st;
  if (memcmp(tr + 24, trailer_magic, 8) != 0)
    return ade__fail(ADE_ETRUNC, "tape has no trailer at offset %llu: the file is truncated, or "
                     "the recording never finished",
                     (unsigned long long)(s->size - ADE__TRAILER_SIZE));
  uint64_t off = ade__ld64(tr), total = ade__ld64(tr + 8);
  if (SUM_BAD(ade__ld64(tr + 16), XXH64(tr, 16, 0)))
    return ade__fail(ADE_ECHECKSUM, "trailer checksum mismatch at offset %llu",
                     (unsigned long long)(s->size - ADE__TRAILER_SIZE));
  if (total != s->size || off < ADE__HEADER_SIZE || off > s->size - ADE__TRAILER_SIZE - ADE__FRAME_SIZE)
    return ade__fail(ADE_EFORMAT, "trailer: footer offset %llu or size %llu inconsistent with file size %llu",
                     (unsigned long long)off, (unsigned long long)total, (unsigned long long)s->size);
  ade__buf b[2] = {{0}, {0}};
  frame f;
  st = frame_read(s, dctx, off, "ADFT", &f, &b[0], &b[1]);
  if (!st && off + ADE__FRAME_SIZE + f.stored_size != s->size - ADE__TRAILER_SIZE)
    st = ade__fail(ADE_EFORMAT, "footer frame at offset %llu does not end at the trailer",
                   (unsigned long long)off);
  if (!st) st = ade__meta_decode(b[1].p, b[1].len, m);
  if (!st && (f.index != m->nchunks || f.first != m->records))
    st = ade__fail(ADE_EFORMAT, "footer frame counts disagree with its payload");
  if (!st) st = check_chunk_index(m, off);
  ade__buf_free(&b[0]);
  ade__buf_free(&b[1]);
  return st;
}
