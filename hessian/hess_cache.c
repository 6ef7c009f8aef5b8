/* hess_cache.c: caches of Hessian plans keyed by the structure hash of a tape (a new point of the same code path finds its pattern, coloring and choice again). */
#include "hessian_internal.h"

struct ade_hess_plan_cache {
  ade__pcache pc;
};

static void plan_retain(void *p) { ade__hess_plan_retain(p); }
static void plan_release(void *p) { ade_hess_plan_free(p); }

int ade_hess_plan_cache_create(ade_hess_plan_cache **cp, size_t capacity) {
  if (!cp) return ade__fail(ADE_EINVAL, "ade_hess_plan_cache_create: NULL result pointer");
  *cp = NULL;
  ade_hess_plan_cache *c = ade__calloc(1, sizeof *c);
  if (!c) return ade__fail(ADE_ENOMEM, "out of memory for a Hessian plan cache");
  int st = ade__pcache_init(&c->pc, capacity, plan_retain, plan_release);
  if (st) ade__free(c);
  else *cp = c;
  return st;
}

void ade_hess_plan_cache_free(ade_hess_plan_cache *c) {
  if (!c) return;
  ade__pcache_fini(&c->pc);
  ade__free(c);
}

void ade_hess_plan_cache_report(ade_hess_plan_cache *c, ade_plan_cache_stats *s) {
  if (c && s) ade__pcache_report(&c->pc, s);
}

static int make_plan(void *report, ade_tape *t, int method, void **p) {
  ade_hess_plan *q = NULL;
  int st = ade_hess_plan_create(&q, t, method, report);
  *p = q;
  return st;
}

int ade_hess_plan_cache_get(ade_hess_plan_cache *c, ade_tape *t, int method, ade_hess_plan **pp, int *hit,
                            ade_hess_report *report) {
  if (!c || !pp) return ade__fail(ADE_EINVAL, "ade_hess_plan_cache_get: NULL argument");
  *pp = NULL;
  if (hit) *hit = 0;
  if (!ade_hess_method_name(method))
    return ade__fail(ADE_EINVAL, "ade_hess_plan_cache_get: unknown method %d", method);
  void *p = NULL;
  int found = 0, st = ade__pcache_get(&c->pc, t, method, make_plan, report, &p, &found);
  if (st) return st;
  if (found && report) *report = *ade__hess_plan_report(p); /* the creation report, as a hit */
  if (hit) *hit = found;
  *pp = p;
  return ADE_OK;
}
