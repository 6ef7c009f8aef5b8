/* common_internal.h: helpers shared by the modules (errors, allocation, buffers, varints). */
#ifndef ADE_COMMON_INTERNAL_H
#define ADE_COMMON_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "adelim.h"

#include "error.h"
#include "alloc.h"

/* The union of J's pattern and P's (same shape, columns ascending in each
 * row) into a new *U with J's symmetric flag and zero values (*U = NULL if
 * P adds nothing), and the position in *U (or in J) of each of P's
 * entries in pos (P->nnz). @return ADE_OK, ADE_ENOMEM. */
int ade__sparse_union(const ade_sparse *J, const ade_sparse *P, ade_sparse **U, size_t *pos);
/* Seconds on a monotonic clock (time reports, time limits). */
double ade__now(void);

/* Write all n bytes to fd (retrying EINTR and short writes); adds the
 * bytes written to *done if done is not NULL. Returns 0 or an errno value
 * (ENOSPC when write makes no progress). */
int ade__write_all(int fd, const void *p, size_t n, uint64_t *done);

/* An atomic file write. The bytes go to a new temporary file "<path>.XXXXXX"
 * in the target's directory (O_EXCL, mode 0644 & ~umask; the old file's
 * mode, owner and links are not preserved); commit fsyncs it, renames it
 * onto path and fsyncs the directory. Until commit, path is untouched; on
 * any failure the temporary file is removed. Errors: ADE_EIO naming path
 * and the system's reason, ADE_ENOMEM. A zeroed ade__afile is "nothing
 * pending": abort on it does nothing. */
typedef struct ade__afile {
  char *path, *tmp; /* target; temporary file */
  int fd;           /* on tmp */
  FILE *f;          /* the stream from ade__afile_stream, or NULL */
} ade__afile;

int ade__afile_open(ade__afile *a, const char *path);
/* Write n bytes at the current position (fd route). */
int ade__afile_write(ade__afile *a, const void *p, size_t n);
/* A stdio stream on the temporary file, owned by a (commit/abort close it);
 * on failure a is aborted. */
int ade__afile_stream(ade__afile *a, FILE **f);
/* Flush, fsync, close, rename onto path, fsync the directory. keep: leave
 * fd open for the caller, who owns it from then on, even on failure (the
 * temporary file is then unlinked but still readable through fd). */
int ade__afile_commit(ade__afile *a, int keep);
/* Close and remove the temporary file; path stays as it was. */
void ade__afile_abort(ade__afile *a);
/* Forget the temporary file, leaving it on disk; the caller owns fd. */
void ade__afile_release(ade__afile *a);

/* Unsigned LEB128 varints: at most 10 bytes for 64 bits. */
static inline size_t ade__varint_put(unsigned char *dst, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    dst[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  dst[n++] = (unsigned char)v;
  return n;
}
static inline int ade__buf_varint(ade__buf *b, uint64_t v) {
  if (b->cap - b->len < 10 && ade__buf_reserve(b, 10)) return ADE_ENOMEM;
  b->len += ade__varint_put(b->p + b->len, v);
  return ADE_OK;
}
/* Read a varint from [*p, end); 0 on success, -1 if truncated or overlong. */
static inline int ade__varint_get(const unsigned char **p, const unsigned char *end,
                                  uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
    unsigned char c = *(*p)++;
    r |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      if (shift == 63 && c > 1) return -1;
      *v = r;
      return 0;
    }
  }
  return -1;
}

/* Little-endian fixed-width load/store (the tape format is little-endian). */
static inline void ade__st32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void ade__st64(unsigned char *p, uint64_t v) {
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, 8); /* one store: gcc merges the byte loop below only when unrolled */
#else
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
#endif
}
static inline uint32_t ade__ld32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static inline uint64_t ade__ld64(const unsigned char *p) {
  uint64_t v = 0;
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(&v, p, 8); /* one load: gcc does not fold the byte loop below */
#else
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
#endif
  return v;
}
static inline void ade__stf64(unsigned char *p, double d) {
  uint64_t v;
  memcpy(&v, &d, 8);
  ade__st64(p, v);
}
static inline double ade__ldf64(const unsigned char *p) {
  uint64_t v = ade__ld64(p);
  double d;
  memcpy(&d, &v, 8);
  return d;
}

#define ADE__MIN(a, b) ((a) < (b) ? (a) : (b))

/* Branch hints and rarely run functions, kept out of the hot paths' way
 * (GCC and Clang; plain code elsewhere). */
#if defined(__GNUC__) || defined(__clang__)
#define ADE__LIKELY(x) __builtin_expect(!!(x), 1)
#define ADE__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ADE__COLD __attribute__((cold, noinline))
#else
#define ADE__LIKELY(x) (x)
#define ADE__UNLIKELY(x) (x)
#define ADE__COLD
#endif
#define ADE__MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
