/* store.c: where tape bytes live (memory buffer or file), and the byte-plane shuffle. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tape_internal.h"

int ade__store_open_file(ade__store *s, const char *path, int write) {
  s->writing = write;
  s->size = 0;
  if (write) { /* into "<path>.XXXXXX"; ade_trace_off renames it onto path */
    int st = ade__afile_open(&s->out, path);
    s->fd = st ? -1 : s->out.fd;
    return st;
  }
  s->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (s->fd < 0) return ade__fail(ADE_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(s->fd);
    s->fd = -1;
    return ade__fail(ADE_EIO, "'%s' is not a regular file", path);
  }
  s->size = (uint64_t)st.st_size;
  return ADE_OK;
}

int ade__store_append(ade__store *s, const void *p, size_t n) {
  if (s->fd < 0) {
    if (ade__buf_put(&s->mem, p, n)) return ade__fail(ADE_ENOMEM, "out of memory growing the tape");
    s->size += n;
    return ADE_OK;
  }
  uint64_t at = s->size;
  int e = ade__write_all(s->fd, p, n, &s->size);
  return e ? ade__fail(ADE_EIO, "writing the tape at offset %llu: %s", (unsigned long long)at, strerror(e))
           : ADE_OK;
}

int ade__store_read(const ade__store *s, uint64_t off, void *dst, size_t n) {
  if (off > s->size || n > s->size - off)
    return ade__fail(ADE_ETRUNC, "tape truncated: need %zu bytes at offset %llu, size %llu", n,
                     (unsigned long long)off, (unsigned long long)s->size);
  if (s->fd < 0) {
    if (n) memcpy(dst, s->mem.p + off, n); /* an empty store has no buffer */
    return ADE_OK;
  }
  unsigned char *c = dst;
  while (n) {
    ssize_t r = pread(s->fd, c, n, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return ade__fail(r < 0 ? ADE_EIO : ADE_ETRUNC, "reading the tape at offset %llu: %s",
                       (unsigned long long)off, r < 0 ? strerror(errno) : "end of file");
    c += r;
    n -= (size_t)r;
    off += (uint64_t)r;
  }
  return ADE_OK;
}

void ade__store_close(ade__store *s) {
  if (s->out.tmp) ade__afile_abort(&s->out); /* a recording that never finished */
  else if (s->fd >= 0) close(s->fd);
  s->fd = -1;
  ade__buf_free(&s->mem);
}

/* Transpose the 8 x 8 byte matrix x (row j = x[j], column k = byte k, in
 * little-endian order) in place: three rounds of block swaps (4 x 4, 2 x 2,
 * 1 x 1 bytes), Hacker's Delight 7-3 on bytes instead of bits. */
static inline void transpose8(uint64_t x[8]) {
#define SWAP(j, d, mask)                                                       \
  do {                                                                         \
    uint64_t t = ((x[j] >> (d)) ^ x[(j) + (d) / 8]) & UINT64_C(mask);          \
    x[j] ^= t << (d);                                                          \
    x[(j) + (d) / 8] ^= t;                                                     \
  } while (0)
  SWAP(0, 32, 0x00000000ffffffff); SWAP(1, 32, 0x00000000ffffffff);
  SWAP(2, 32, 0x00000000ffffffff); SWAP(3, 32, 0x00000000ffffffff);
  SWAP(0, 16, 0x0000ffff0000ffff); SWAP(1, 16, 0x0000ffff0000ffff);
  SWAP(4, 16, 0x0000ffff0000ffff); SWAP(5, 16, 0x0000ffff0000ffff);
  SWAP(0, 8, 0x00ff00ff00ff00ff); SWAP(2, 8, 0x00ff00ff00ff00ff);
  SWAP(4, 8, 0x00ff00ff00ff00ff); SWAP(6, 8, 0x00ff00ff00ff00ff);
#undef SWAP
}

/* Eight values at a time by a byte transpose (little-endian hosts; the
 * byte loop elsewhere and for the last n % 8). */
void ade__shuffle8(unsigned char *dst, const unsigned char *src, size_t n) {
  size_t i = 0;
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (; i + 8 <= n; i += 8) {
    uint64_t x[8];
    memcpy(x, src + 8 * i, sizeof x);
    transpose8(x);
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; k++) memcpy(dst + k * n + i, &x[k], 8);
  }
#endif
  for (size_t k = 0; k < 8; k++)
    for (size_t j = i; j < n; j++) dst[k * n + j] = src[8 * j + k];
}

void ade__unshuffle8(unsigned char *dst, const unsigned char *src, size_t n) {
  size_t i = 0;
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (; i + 8 <= n; i += 8) {
    uint64_t x[8];
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; k++) memcpy(&x[k], src + k * n + i, 8);
    transpose8(x);
    memcpy(dst + 8 * i, x, sizeof x);
  }
#endif
  for (size_t k = 0; k < 8; k++)
    for (size_t j = i; j < n; j++) dst[8 * j + k] = src[k * n + j];
}
