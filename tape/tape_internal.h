/* tape_internal.h: the tape byte format (header, chunk frames, footer, trailer), storage and metadata. */
#ifndef ADE_TAPE_INTERNAL_H
#define ADE_TAPE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "common_internal.h"

/* Format constants: see doc/tape-format.md. */
#define ADE__FMT_MAJOR 1
#define ADE__FMT_MINOR 0
#define ADE__HEADER_SIZE 64
#define ADE__FRAME_SIZE 48
#define ADE__TRAILER_SIZE 32
#define ADE__CANARY 370.5
#define ADE__ENDIAN_TAG 0x0A0B0C0Du
#define ADE__MAX_CHUNK_RECORDS (1u << 24)
#define ADE__MAX_CHUNK_BYTES (1u << 30)

/* Columns of a chunk payload, in this order. */
enum ade__column {
  ADE__COL_OPS,     /* one opcode byte per record */
  ADE__COL_REFS,    /* per operand: varint 0 = constant, else record id - operand id */
  ADE__COL_VALUES,  /* f64 result of each record whose op stores its value */
  ADE__COL_CONSTS,  /* f64 value of each constant operand */
  ADE__COL_IMPORTS, /* operands defined in earlier chunks: ids and values */
  ADE__COL_SITES,   /* per record: varint call-site index + 1 (0 = none) */
  ADE__NCOLS
};

/* Where the tape's bytes live: a growable memory buffer or a file. */
typedef struct ade__store {
  ade__buf mem;     /* memory-backed bytes */
  int fd;           /* file-backed (write: streaming; read: on demand); -1: memory */
  uint64_t size;    /* bytes written / file size */
  int writing;
  ade__afile out;   /* streaming: the temporary file until ade_trace_off */
} ade__store;

/* One entry of the chunk index. */
typedef struct ade__chunkent {
  uint64_t offset;  /* of the frame header */
  uint64_t first;   /* index of its first record */
  uint32_t records;
  uint32_t raw_size, stored_size;
} ade__chunkent;

typedef struct ade__region_rec {
  uint32_t name;    /* string index */
  int32_t parent;
  uint64_t first_op, end_op;
  uint32_t nframes;
  uint32_t *frames; /* string indices */
} ade__region_rec;

typedef struct ade__diag_rec {
  uint64_t op;
  uint8_t opcode, kind;
  uint32_t site;    /* string index + 1, 0 = none */
} ade__diag_rec;

/* Everything the footer holds. */
typedef struct ade__meta {
  int complete;          /* 0: recording failed, the tape is a prefix */
  int status;            /* the failure's status code */
  uint64_t records, stored_values, raw_bytes;
  size_t nchunks, chunkcap;
  ade__chunkent *chunks;
  size_t nindep, indepcap, ndep, depcap;
  uint64_t *indep, *dep; /* record ids (1-based) of independents, dependents */
  uint64_t opcount[256];
  size_t nstrings, stringcap;
  char **strings;        /* call sites, region names, frames */
  size_t nregions, regioncap;
  ade__region_rec *regions;
  size_t ndiags, diagcap;
  ade__diag_rec *diags;
} ade__meta;

/* Header fields that vary. */
typedef struct ade__header {
  int capture;
  int level;
  uint32_t chunk_records;
} ade__header;

/* A decompressed chunk: its columns point into raw. */
typedef struct ade__chunkdata {
  ade__buf raw, plain; /* decompressed payload; unshuffled doubles */
  const unsigned char *col[ADE__NCOLS];
  size_t collen[ADE__NCOLS];
} ade__chunkdata;

/* Storage. write: stream into a temporary file next to path (s->out), which
 * the writer commits or releases; otherwise read path. */
int ade__store_open_file(ade__store *s, const char *path, int write);
int ade__store_append(ade__store *s, const void *p, size_t n);
int ade__store_read(const ade__store *s, uint64_t off, void *dst, size_t n);
void ade__store_close(ade__store *s);

/* Header. */
void ade__header_encode(unsigned char out[ADE__HEADER_SIZE], const ade__header *h);
int ade__header_decode(const unsigned char in[ADE__HEADER_SIZE], ade__header *h);

/* Chunks: compress (level 0: raw) the columns and append a framed chunk. */
int ade__chunk_write(ade__store *s, void *cctx, int level, uint32_t index, uint64_t first,
                     uint32_t records, const ade__buf cols[ADE__NCOLS], ade__buf scratch[2],
                     ade__chunkent *ent);
/* Read and check the frame header of chunk index expected at off (the
 * footer-less recovery scan). */
int ade__chunk_peek(const ade__store *s, uint64_t off, uint32_t index, uint64_t first,
                    ade__chunkent *e);
/* Read, verify and decompress chunk index of meta into d. */
int ade__chunk_read(const ade__store *s, void *dctx, const ade__meta *m, size_t index,
                    ade__buf *scratch, ade__chunkdata *d);
/* Write the tape of header h and footer m read from in to out with every
 * frame compressed at h->level by cctx: the bytes a recording at that
 * level writes. */
int ade__tape_recode(const ade__store *in, void *dctx, const ade__header *h, const ade__meta *m,
                     void *cctx, ade__store *out);
void *ade__zstd_cctx(int level);
/* Set context c's level; ADE_EINVAL if zstd refuses it. */
int ade__zstd_cctx_level(void *c, int level);
void *ade__zstd_dctx(void);
void ade__zstd_free_cctx(void *c);
void ade__zstd_free_dctx(void *d);

/* Footer and trailer. */
int ade__footer_write(ade__store *s, void *cctx, int level, const ade__meta *m);
int ade__footer_read(const ade__store *s, void *dctx, ade__meta *m);

/* Metadata tables. */
int ade__meta_add_chunk(ade__meta *m, const ade__chunkent *e);
/* Room for one more chunk entry, so that adding it cannot fail. */
int ade__meta_reserve_chunk(ade__meta *m);
int ade__meta_add_id(uint64_t **v, size_t *n, size_t *cap, uint64_t id);
int ade__meta_add_string(ade__meta *m, const char *s, uint32_t *index);
int ade__meta_add_region(ade__meta *m, const ade__region_rec *r);
int ade__meta_add_diag(ade__meta *m, const ade__diag_rec *d);
void ade__meta_free(ade__meta *m);
int ade__meta_encode(ade__buf *b, const ade__meta *m);
int ade__meta_decode(const unsigned char *p, size_t n, ade__meta *m);

/* Byte-plane shuffle of n doubles (8n bytes): plane k holds byte k of each
 * value, which zstd compresses far better than interleaved doubles. */
void ade__shuffle8(unsigned char *dst, const unsigned char *src, size_t n);
void ade__unshuffle8(unsigned char *dst, const unsigned char *src, size_t n);

#endif
