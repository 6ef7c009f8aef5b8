/* thread.c: what a thread keeps from one recording to its next (a writer's buffers, a zstd context). */
#include <pthread.h>

#include "record_internal.h"

/* One writer and one compression context per thread, kept by ade_trace_off
 * and taken by the next ade_tape_create on that thread: a small tape then
 * pays neither the allocation of its columns nor a context's first use
 * (zstd sizes and clears its tables there). Only what the default
 * allocator made is kept, and only while the thread has no hook
 * (ade_set_allocator), so that kept memory never meets another allocator;
 * ade_thread_release and the thread's exit free it. */
typedef struct ade__tcache {
  ade__writer *w;
  void *cctx;
  int level;
  int keyed;           /* the exit hook is armed for this thread */
} ade__tcache;

static _Thread_local ade__tcache tc;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static int exit_ok; /* exit_key exists */

static void at_exit(void *p) {
  (void)p;
  ade_thread_release();
}

static void exit_init(void) { exit_ok = pthread_key_create(&exit_key, at_exit) == 0; }

/* A library unloaded (dlclose) while threads keep something must not
 * leave them an exit hook in unmapped code: the key goes with it (those
 * threads' kept memory is then lost, not freed). */
#if defined(__GNUC__) || defined(__clang__)
static void __attribute__((destructor)) unload(void) {
  if (exit_ok) pthread_key_delete(exit_key);
  exit_ok = 0;
}
#endif

/* Arm the thread's exit hook once; 0 if there can be none. */
static int exit_armed(void) {
  if (tc.keyed) return 1;
  pthread_once(&exit_once, exit_init);
  tc.keyed = exit_ok && pthread_setspecific(exit_key, &tc) == 0;
  return tc.keyed;
}

void ade_thread_release(void) {
  ade_alloc_fn fn;
  void *ud;
  if (!tc.w && !tc.cctx) return;
  ade__alloc_get(&fn, &ud);
  ade_set_allocator(NULL, NULL); /* what is kept came from realloc */
  ade__writer_free(tc.w);
  ade__zstd_free_cctx(tc.cctx);
  tc.w = NULL;
  tc.cctx = NULL;
  ade_set_allocator(fn, ud);
}

/* Keep w (emptied) and cctx (at level) for the thread's next tape, if the
 * slots are free and the default allocator made them; free them if not. */
void ade__tcache_put(ade__writer *w, void *cctx, int level, int hooked) {
  if (hooked || ade__alloc_hooked()) {
    ade__writer_free(w);
    ade__zstd_free_cctx(cctx);
    return;
  }
  if (!exit_armed()) { /* no exit hook: keep nothing */
    ade__writer_free(w);
    ade__zstd_free_cctx(cctx);
    return;
  }
  if (w && !tc.w) {
    ade__writer_reset(w);
    tc.w = w;
    w = NULL;
  }
  if (cctx && !tc.cctx) {
    tc.cctx = cctx;
    tc.level = level;
    cctx = NULL;
  }
  ade__writer_free(w);
  ade__zstd_free_cctx(cctx);
}

/* The kept writer (NULL if none, or if the thread has a hook now). */
ade__writer *ade__tcache_writer(void) {
  if (!tc.w || ade__alloc_hooked()) return NULL;
  ade__writer *w = tc.w;
  tc.w = NULL;
  return w;
}

/* The kept context set to level, or NULL (none, or a hook). */
void *ade__tcache_cctx(int level) {
  if (!tc.cctx || ade__alloc_hooked()) return NULL;
  void *c = tc.cctx;
  if (level != tc.level && ade__zstd_cctx_level(c, level)) return NULL; /* kept for another time */
  tc.cctx = NULL;
  return c;
}
