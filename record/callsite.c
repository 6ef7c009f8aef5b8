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

/* The string index of address ip; c (may be NULL) is a cursor at that frame. */
static int intern(ade_tape *t, uintptr_t ip, unw_cursor_t *c, uint32_t *index) {
  ade__u64map *m = &t->w->sites;
  const uint64_t *p = ade__u64map_find(m, ip);
  if (p) {
    *index = (uint32_t)*p;
    return ADE_OK;
  }
  char s[512];
  describe(c, ip, s, sizeof s);
  int isnew, st = ade__meta_add_string(&t->meta, s, index);
  if (st) return st;
  return ade__u64map_put(m, ip, *index, &isnew) ? ADE_OK : ADE_ENOMEM;
}

/* First sight of a call site: walk up to the frame whose ip is addr (the
 * user's code calling into adelim) so libunwind can name its function. */
int ade__site_intern(ade_tape *t, const void *addr, uint32_t *index) {
  uintptr_t ip = (uintptr_t)addr;
  const uint64_t *p = ade__u64map_find(&t->w->sites, ip);
  if (p) { /* seen: no unwinding */
    *index = (uint32_t)*p;
    return ADE_OK;
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
