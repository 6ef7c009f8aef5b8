/* cache.c: plan caches keyed by the structure hash of a tape, and Jacobian loops (record once, plan once, evaluate at many points). */
#include "elim_internal.h"
#include "eval_internal.h"

struct ade_plan_cache {
  ade__pcache pc;
};

static void plan_retain(void *p) { ade__plan_retain(p); }
static void plan_release(void *p) { ade_elim_plan_free(p); }

int ade_plan_cache_create(ade_plan_cache **cp, size_t capacity) {
  if (!cp) return ade__fail(ADE_EINVAL, "ade_plan_cache_create: NULL result pointer");
  *cp = NULL;
  ade_plan_cache *c = ade__calloc(1, sizeof *c);
  if (!c) return ade__fail(ADE_ENOMEM, "out of memory for a plan cache");
  int st = ade__pcache_init(&c->pc, capacity, plan_retain, plan_release);
  if (st) ade__free(c);
  else *cp = c;
  return st;
}

void ade_plan_cache_free(ade_plan_cache *c) {
  if (!c) return;
  ade__pcache_fini(&c->pc);
  ade__free(c);
}

void ade_plan_cache_report(ade_plan_cache *c, ade_plan_cache_stats *s) {
  if (c && s) ade__pcache_report(&c->pc, s);
}

static int make_plan(void *report, ade_tape *t, int method, void **p) {
  ade_elim_plan *q = NULL;
  int st = ade_elim_plan_create(&q, t, method, NULL, report);
  *p = q;
  return st;
}

int ade_plan_cache_get(ade_plan_cache *c, ade_tape *t, int method, ade_elim_plan **pp, int *hit,
                       ade_jacobian_report *report) {
  if (!c || !pp) return ade__fail(ADE_EINVAL, "ade_plan_cache_get: NULL argument");
  *pp = NULL;
  if (hit) *hit = 0;
  if (!ade__method_valid(method)) return ade__fail(ADE_EINVAL, "ade_plan_cache_get: unknown method %d", method);
  void *p = NULL;
  int found = 0, st = ade__pcache_get(&c->pc, t, method, make_plan, report, &p, &found);
  if (st) return st;
  if (found && report) *report = *ade__plan_report(p), report->cached = 1; /* the creation report, as a hit */
  if (hit) *hit = found;
  *pp = p;
  return ADE_OK;
}

/* ------------------------------------------------------- Jacobian loops */

struct ade_jacobian_loop {
  ade__ploop core;
};

static int jl_cache_create(void **c) { return ade_plan_cache_create((ade_plan_cache **)c, 8); }
static void jl_cache_free(void *c) { ade_plan_cache_free(c); }
static int jl_get(void *c, ade_tape *t, int method, void **p, int *hit) {
  ade_elim_plan *q = NULL;
  int st = ade_plan_cache_get(c, t, method, &q, hit, NULL);
  *p = q;
  return st;
}
static int jl_pattern(const void *p, ade_sparse **P) { return ade_elim_plan_pattern(p, P); }
static int jl_eval(void *p, ade_tape *t, const double *x, const double *w, ade_sparse *J) {
  (void)w;
  return ade_elim_plan_jacobian(p, t, x, J);
}
static void jl_cost(const void *p, int *method, uint64_t *fma) {
  *method = ade_elim_plan_method(p);
  *fma = ade_elim_plan_fma(p);
}
static const ade__ploop_ops jl_ops = {"Jacobian", jl_cache_create, jl_cache_free, jl_get, plan_release,
                                      jl_pattern, jl_eval, jl_cost};

int ade_jacobian_loop_create(ade_jacobian_loop **Lp, ade_tape *t, int method, ade_plan_cache *cache) {
  if (!Lp) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_create: NULL result pointer");
  *Lp = NULL;
  ade_jacobian_loop *L = ade__alloc(sizeof *L);
  if (!L) return ade__fail(ADE_ENOMEM, "out of memory for a Jacobian loop");
  int st = ade__ploop_init(&L->core, &jl_ops, t, method, cache);
  if (st) ade__free(L);
  else *Lp = L;
  return st;
}

void ade_jacobian_loop_free(ade_jacobian_loop *L) {
  if (!L) return;
  ade__ploop_fini(&L->core);
  ade__free(L);
}

void ade_jacobian_loop_set_recorder(ade_jacobian_loop *L, ade_record_fn fn, void *ud) {
  if (L) L->core.rec = fn, L->core.ud = ud;
}

const ade_sparse *ade_jacobian_loop_matrix(const ade_jacobian_loop *L) { return L ? L->core.U : NULL; }

ade_tape *ade_jacobian_loop_tape(const ade_jacobian_loop *L) { return L ? L->core.t : NULL; }

void ade_jacobian_loop_report(const ade_jacobian_loop *L, ade_jacobian_loop_stats *s) {
  if (!L || !s) return;
  const ade__ploop *c = &L->core;
  *s = (ade_jacobian_loop_stats){c->evals, c->retapes, c->plans_built, c->growths, c->plan_method, c->fma};
}

int ade_jacobian_loop_triplets(const ade_jacobian_loop *L, size_t *row, size_t *col) {
  if (!L) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_triplets: NULL loop");
  return ade__ploop_triplets(&L->core, row, col);
}

int ade_jacobian_loop_retape(ade_jacobian_loop *L, ade_tape *t) {
  if (!L || !t) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_retape: NULL argument");
  int st = ade__ploop_take(&L->core, t, 0);
  L->core.retapes += st >= 0;
  return st;
}

int ade_jacobian_loop_eval(ade_jacobian_loop *L, const double *x, const ade_sparse **J) {
  if (!L) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_eval: NULL loop");
  return ade__ploop_eval(&L->core, x, NULL, J);
}
