/* hess_loop.c: Hessian loops (record once, plan once, evaluate the weighted Lagrangian Hessian at many points, re-record on a branch flip). */
#include "hessian_internal.h"

struct ade_hess_loop {
  ade__ploop core;
};

static int hl_cache_create(void **c) { return ade_hess_plan_cache_create((ade_hess_plan_cache **)c, 8); }
static void hl_cache_free(void *c) { ade_hess_plan_cache_free(c); }
static int hl_get(void *c, ade_tape *t, int method, void **p, int *hit) {
  ade_hess_plan *q = NULL;
  int st = ade_hess_plan_cache_get(c, t, method, &q, hit, NULL);
  *p = q;
  return st;
}
static void hl_release(void *p) { ade_hess_plan_free(p); }
static int hl_pattern(const void *p, ade_sparse **P) { return ade_hess_plan_pattern(p, P); }
static int hl_eval(void *p, ade_tape *t, const double *x, const double *w, ade_sparse *H) {
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = x, o.w = w;
  return ade_hess_plan_hessian(p, t, &o, H, NULL);
}
static void hl_cost(const void *p, int *method, uint64_t *fma) {
  uint64_t ep = 0, star = 0;
  ade_hess_plan_cost(p, &ep, &star);
  *method = ade_hess_plan_method(p);
  *fma = *method == ADE_HESS_STAR ? star : ep;
}
static const ade__ploop_ops hl_ops = {"Hessian", hl_cache_create, hl_cache_free, hl_get, hl_release,
                                      hl_pattern, hl_eval, hl_cost};

int ade_hess_loop_create(ade_hess_loop **Lp, ade_tape *t, int method, ade_hess_plan_cache *cache) {
  if (!Lp) return ade__fail(ADE_EINVAL, "ade_hess_loop_create: NULL result pointer");
  *Lp = NULL;
  if (!t) return ade__fail(ADE_EINVAL, "ade_hess_loop_create: NULL tape");
  ade_hess_loop *L = ade__alloc(sizeof *L);
  if (!L) return ade__fail(ADE_ENOMEM, "out of memory for a Hessian loop");
  int st = ade__ploop_init(&L->core, &hl_ops, t, method, cache);
  if (st) ade__free(L);
  else *Lp = L;
  return st;
}

void ade_hess_loop_free(ade_hess_loop *L) {
  if (!L) return;
  ade__ploop_fini(&L->core);
  ade__free(L);
}

void ade_hess_loop_set_recorder(ade_hess_loop *L, ade_record_fn fn, void *ud) {
  if (L) L->core.rec = fn, L->core.ud = ud;
}

const ade_sparse *ade_hess_loop_matrix(const ade_hess_loop *L) { return L ? L->core.U : NULL; }

ade_tape *ade_hess_loop_tape(const ade_hess_loop *L) { return L ? L->core.t : NULL; }

void ade_hess_loop_report(const ade_hess_loop *L, ade_hess_loop_stats *s) {
  if (!L || !s) return;
  const ade__ploop *c = &L->core;
  *s = (ade_hess_loop_stats){c->evals, c->retapes, c->plans_built, c->growths, c->plan_method, c->fma};
}

int ade_hess_loop_triplets(const ade_hess_loop *L, size_t *row, size_t *col) {
  if (!L) return ade__fail(ADE_EINVAL, "ade_hess_loop_triplets: NULL loop");
  return ade__ploop_triplets(&L->core, row, col);
}

int ade_hess_loop_retape(ade_hess_loop *L, ade_tape *t) {
  if (!L || !t) return ade__fail(ADE_EINVAL, "ade_hess_loop_retape: NULL argument");
  int st = ade__ploop_take(&L->core, t, 0);
  L->core.retapes += st >= 0;
  return st;
}

int ade_hess_loop_eval(ade_hess_loop *L, const double *x, const double *w, const ade_sparse **H) {
  if (!L) return ade__fail(ADE_EINVAL, "ade_hess_loop_eval: NULL loop");
  if (!w && L->core.m != 1)
    return ade__fail(ADE_EINVAL, "ade_hess_loop_eval: %zu dependents need weights", L->core.m);
  return ade__ploop_eval(&L->core, x, w, H);
}
