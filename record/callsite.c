/* callsite.c: call sites and region stacks, resolved through libunwind to function+offset. */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <stdio.h>
#include <string.h>

#include "record_internal.h"

/* "function+0xoff (module)" for the frame under cursor c, or the raw address. */
static void describe(unw_cursor_t *c, uintptr_t ip, char *out, size_t len) {
  char name[256];
  unw_word_t off = 0;
  Dl_info info;
  const char *mod = "?";
  if (dladdr((void *)ip, &info) && info.dli_fname) {
    mod = strrchr(info.dli_fname, '/');
    mod = mod ? mod + 1 : info.dli_fname;
  }
  if (c && unw_get_proc_name(c, name, sizeof name, &off) == 0)
    snprintf(out, len, "%s+0x%lx (%s)", name, (unsigned long)off, mod);
  else
    snprintf(out, len, "0x%lx (%s)", (unsigned long)ip, mod);
}

static int site_grow(ade__writer *w) {
  size_t cap = w->site_cap ? 2 * w->site_cap : 256;
  uintptr_t *key = ade__calloc(cap, sizeof *key);
  uint32_t *val = ade__alloc(ade__mul_size(cap, sizeof *val));
  if (!key || !val) {
    ade__free(key);
    ade__free(val);
    return ADE_ENOMEM;
  }
  for (size_t i = 0; i < w->site_cap; i++) {
    if (!w->site_key[i]) continue;
    size_t h = (w->site_key[i] * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
    while (key[h]) h = (h + 1) & (cap - 1);
    key[h] = w->site_key[i];
    val[h] = w->site_val[i];
  }
  ade__free(w->site_key);
  ade__free(w->site_val);
  w->site_key = key;
  w->site_val = val;
  w->site_cap = cap;
  return ADE_OK;
}

/* The string index of address ip; c (may be NULL) is a cursor at that frame. */
static int intern(ade_tape *t, uintptr_t ip, unw_cursor_t *c, uint32_t *index) {
  ade__writer *w = t->w;
  if (2 * (w->site_n + 1) > w->site_cap && site_grow(w)) return ADE_ENOMEM;
  size_t h = (ip * 0x9e3779b97f4a7c15ull >> 20) & (w->site_cap - 1);
  while (w->site_key[h] && w->site_key[h] != ip) h = (h + 1) & (w->site_cap - 1);
  if (w->site_key[h]) {
    *index = w->site_val[h];
    return ADE_OK;
  }
  char s[512];
  describe(c, ip, s, sizeof s);
  int st = ade__meta_add_string(&t->meta, s, index);
  if (st) return st;
  w->site_key[h] = ip;
  w->site_val[h] = *index;
  w->site_n++;
  return ADE_OK;
}

/* First sight of a call site: walk up to the frame whose ip is addr (the
 * user's code calling into adelim) so libunwind can name its function. */
int ade__site_intern(ade_tape *t, const void *addr, uint32_t *index) {
  ade__writer *w = t->w;
  uintptr_t ip = (uintptr_t)addr;
  if (w->site_cap) {
    size_t h = (ip * 0x9e3779b97f4a7c15ull >> 20) & (w->site_cap - 1);
    while (w->site_key[h] && w->site_key[h] != ip) h = (h + 1) & (w->site_cap - 1);
    if (w->site_key[h]) {
      *index = w->site_val[h];
      return ADE_OK;
    }
  }
  unw_context_t ctx;
  unw_cursor_t c;
  unw_getcontext(&ctx);
  int found = 0;
  if (unw_init_local(&c, &ctx) == 0) {
    for (int depth = 0; depth < 32 && unw_step(&c) > 0; depth++) {
      unw_word_t pc;
      if (unw_get_reg(&c, UNW_REG_IP, &pc) == 0 && pc == ip) {
        found = 1;
        break;
      }
    }
  }
  return intern(t, ip, found ? &c : NULL, index);
}

/* The user's call stack (callers of the adelim function that called us). */
int ade__site_stack(ade_tape *t, uint32_t **frames, uint32_t *n) {
  unw_context_t ctx;
  unw_cursor_t c;
  uint32_t buf[64], k = 0;
  *frames = NULL;
  *n = 0;
  unw_getcontext(&ctx);
  if (unw_init_local(&c, &ctx) != 0) return ADE_OK;
  /* Skip this function and the public adelim function that called it. */
  for (int skip = 0; skip < 2; skip++)
    if (unw_step(&c) <= 0) return ADE_OK;
  do {
    unw_word_t pc;
    if (unw_get_reg(&c, UNW_REG_IP, &pc) != 0) break;
    int st = intern(t, (uintptr_t)pc, &c, &buf[k]);
    if (st) return st;
    k++;
  } while (k < 64 && unw_step(&c) > 0);
  if (!(*frames = ade__alloc(k * sizeof **frames))) return ADE_ENOMEM;
  memcpy(*frames, buf, k * sizeof **frames);
  *n = k;
  return ADE_OK;
}
