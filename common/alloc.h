/* alloc.h: allocation through the thread's hook, the memory limit rule and growable buffers (alloc.c). */
#ifndef ADE_COMMON_ALLOC_H
#define ADE_COMMON_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* All allocation goes through the thread's hook (see ade_set_allocator). */
void *ade__alloc(size_t size);
void *ade__calloc(size_t n, size_t size);
void *ade__realloc(void *p, size_t size);
/* Whether the calling thread has an allocator hook (ade_set_allocator). */
int ade__alloc_hooked(void);
/* The calling thread's hook and its argument (NULL, NULL: none). */
void ade__alloc_get(void *(**fn)(void *, void *, size_t), void **ud);
void ade__free(void *p);
char *ade__strdup(const char *s);
/* n * size, or SIZE_MAX on overflow (so the allocation fails cleanly). */
static inline size_t ade__mul_size(size_t n, size_t size) {
  return (size && n > SIZE_MAX / size) ? SIZE_MAX : n * size;
}

/* The memory limit rule (ade_tape_set_memory_limit): a consumer that
 * would hold about `bytes` (its estimate, sized by the tape or graph)
 * fails with ADE_ENOMEM when that is over `limit` (SIZE_MAX: none) and
 * over ADE__MEM_FLOOR, the work area every call may use (less than one
 * decoded chunk). The message names what (a printf format) and the limit. */
#define ADE__MEM_FLOOR ((size_t)256 << 10)
int ade__budget(size_t limit, size_t bytes, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int ade__over_budget(size_t limit, size_t bytes) {
  return bytes > limit && bytes > ADE__MEM_FLOOR;
}

/* A growable byte buffer. */
typedef struct ade__buf {
  unsigned char *p;
  size_t len, cap;
} ade__buf;

int ade__buf_grow(ade__buf *b, size_t extra);
/* Room for need items of size sz in the array *p of *cap items: the
 * capacity doubles (from 16) until it holds them. ADE_ENOMEM (no message:
 * the caller names what it was growing) leaves *p and *cap as they were. */
int ade__grow(void **p, size_t *cap, size_t need, size_t sz);
/* Room for extra more bytes: the common case inline, growth out of line. */
static inline int ade__buf_reserve(ade__buf *b, size_t extra) {
  return b->cap - b->len >= extra ? 0 : ade__buf_grow(b, extra);
}
int ade__buf_put(ade__buf *b, const void *src, size_t n);
void ade__buf_free(ade__buf *b);

#endif /* ADE_COMMON_ALLOC_H */
