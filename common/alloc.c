/* alloc.c: the per-thread allocator hook and the growable byte buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "adelim.h"

static _Thread_local ade_alloc_fn hook;
static _Thread_local void *hook_ud;

void ade_set_allocator(ade_alloc_fn fn, void *ud) {
  hook = fn;
  hook_ud = ud;
}

int ade__alloc_hooked(void) { return hook != NULL; }

void ade__alloc_get(ade_alloc_fn *fn, void **ud) {
  *fn = hook;
  *ud = hook_ud;
}

void *ade__realloc(void *p, size_t size) {
  if (hook) return hook(hook_ud, p, size);
  if (size == 0) {
    free(p);
    return NULL;
  }
  return realloc(p, size);
}

void *ade__alloc(size_t size) { return ade__realloc(NULL, size ? size : 1); }

void *ade__calloc(size_t n, size_t size) {
  size_t total = ade__mul_size(n, size);
  if (total == SIZE_MAX) return NULL;
  if (!hook) return calloc(1, total ? total : 1); /* fresh pages come zeroed: no memset */
  void *p = ade__alloc(total);
  if (p) memset(p, 0, total);
  return p;
}

void ade__free(void *p) {
  if (p) ade__realloc(p, 0);
}

char *ade__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = ade__alloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int ade__buf_grow(ade__buf *b, size_t extra) {
  if (extra > SIZE_MAX / 2 - b->len) return ADE_ENOMEM;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < extra) cap *= 2;
  unsigned char *p = ade__realloc(b->p, cap);
  if (!p) return ADE_ENOMEM;
  b->p = p;
  b->cap = cap;
  return ADE_OK;
}

int ade__grow(void **p, size_t *cap, size_t need, size_t sz) {
  if (need <= *cap) return ADE_OK;
  size_t nc = *cap ? *cap : 16;
  while (nc < need) {
    if (nc > SIZE_MAX / 2) return ADE_ENOMEM;
    nc *= 2;
  }
  void *q = ade__realloc(*p, ade__mul_size(nc, sz));
  if (!q) return ADE_ENOMEM;
  *p = q;
  *cap = nc;
  return ADE_OK;
}

int ade__buf_put(ade__buf *b, const void *src, size_t n) {
  if (ade__buf_reserve(b, n)) return ADE_ENOMEM;
  if (n) memcpy(b->p + b->len, src, n);
  b->len += n;
  return ADE_OK;
}

void ade__buf_free(ade__buf *b) {
  ade__free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

/* "41.2 MiB", "12.0 KiB", "300 bytes". */
static void human(char *b, size_t n, size_t bytes) {
  if (bytes >= (size_t)1 << 20) snprintf(b, n, "%.1f MiB", (double)bytes / (1 << 20));
  else if (bytes >= 1024) snprintf(b, n, "%.1f KiB", (double)bytes / 1024);
  else snprintf(b, n, "%zu bytes", bytes);
}

int ade__budget(size_t limit, size_t bytes, const char *fmt, ...) {
  if (!ade__over_budget(limit, bytes)) return ADE_OK;
  char what[256], need[32], lim[32];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  human(need, sizeof need, bytes);
  human(lim, sizeof lim, limit);
  int st = ade__fail(ADE_ENOMEM, "%s needs about %s, over the tape's memory limit of %s "
                     "(ade_tape_set_memory_limit)", what, need, lim);
  ade__set_budget_hit();
  return st;
}
