/* hess_loop.c: Hessian loops (record once, plan once, evaluate the weighted Lagrangian Hessian at many points, re-record on a branch flip). */
#include "hessian_internal.h"

struct ade_hess_loop {
  ade_hess_plan_cache *cache, *own; /* own: the private cache, if the caller gave none */
  int method;
  ade_tape *t;                      /* the tape evaluated */
  int owned;                        /* t came from the recorder: ours to free */
  size_t m;                         /* dependents (weights per evaluation) */
  ade_hess_plan *p;                 /* t's plan */
  ade_sparse *P;                    /* the plan's own pattern (its values at x) */
  ade_sparse *H;                    /* the union of the patterns seen, values at x */
  size_t *pos;                      /* entry k of P is entry pos[k] of H */
  int same;                         /* P's pattern is H's: no scatter */
  ade_record_fn rec;
  void *ud;
  ade_hess_loop_stats st;
};

/* The first tape's pattern is the loop's; a later one's joins it. */
static int join(ade_hess_loop *L, const ade_hess_plan *p, const ade_sparse *P, ade_sparse **U, size_t *pos) {
  if (L->H) return ade__sparse_union(L->H, P, U, pos);
  for (size_t k = 0; k < P->nnz; k++) pos[k] = k;
  return ade_hess_plan_pattern(p, U);
}

/* Take tape t (owned or not) of m dependents with its plan p: pattern,
 * union, map. On error p is released and the loop is unchanged. */
static int take(ade_hess_loop *L, ade_tape *t, int owned, size_t m, ade_hess_plan *p) {
  ade_sparse *P = NULL, *U = NULL;
  size_t *pos = NULL;
  int st = ade_hess_plan_pattern(p, &P), grew = 0;
  if (!st && !(pos = ade__alloc((P->nnz + 1) * sizeof *pos)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a Hessian loop");
  if (!st) st = join(L, p, P, &U, pos);
  if (st) {
    ade_sparse_free(P);
    ade__free(pos);
    ade_hess_plan_free(p);
    return st;
  }
  if (U) grew = L->H != NULL, ade_sparse_free(L->H), L->H = U;
  if (L->owned && L->t != t) ade_tape_free(L->t);
  ade_hess_plan_free(L->p);
  ade_sparse_free(L->P);
  ade__free(L->pos);
  L->t = t, L->owned = owned, L->m = m, L->p = p, L->P = P, L->pos = pos;
  L->same = P->nnz == L->H->nnz;
  uint64_t ep = 0, star = 0;
  ade_hess_plan_cost(p, &ep, &star);
  L->st.method = ade_hess_plan_method(p);
  L->st.fma = L->st.method == ADE_HESS_STAR ? star : ep;
  L->st.pattern_growths += (uint64_t)grew;
  return grew ? ADE_WPATTERN : ADE_OK;
}

/* t's plan from the cache, then take it. */
static int retape(ade_hess_loop *L, ade_tape *t, int owned) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  if (L->H && (n != L->H->n || m != L->m))
    return ade__fail(ADE_EINVAL, "the new tape has %zu independents and %zu dependents, the loop's %zu and %zu", n, m,
                     L->H->n, L->m);
  ade_hess_plan *p = NULL;
  int hit = 0, st = ade_hess_plan_cache_get(L->cache, t, L->method, &p, &hit, NULL);
  if (st) return st;
  L->st.plans_built += !hit;
  return take(L, t, owned, m, p);
}

int ade_hess_loop_create(ade_hess_loop **Lp, ade_tape *t, int method, ade_hess_plan_cache *cache) {
  if (!Lp) return ade__fail(ADE_EINVAL, "ade_hess_loop_create: NULL result pointer");
  *Lp = NULL;
  if (!t) return ade__fail(ADE_EINVAL, "ade_hess_loop_create: NULL tape");
  ade_hess_loop *L = ade__calloc(1, sizeof *L);
  if (!L) return ade__fail(ADE_ENOMEM, "out of memory for a Hessian loop");
  L->method = method;
  L->cache = cache;
  int st = cache ? ADE_OK : ade_hess_plan_cache_create(&L->own, 8);
  if (!cache) L->cache = L->own;
  if (!st) st = retape(L, t, 0);
  if (st) ade_hess_loop_free(L);
  else *Lp = L;
  return st;
}

void ade_hess_loop_free(ade_hess_loop *L) {
  if (!L) return;
  if (L->owned) ade_tape_free(L->t);
  ade_hess_plan_free(L->p);
  ade_sparse_free(L->P);
  ade_sparse_free(L->H);
  ade__free(L->pos);
  ade_hess_plan_cache_free(L->own);
  ade__free(L);
}

void ade_hess_loop_set_recorder(ade_hess_loop *L, ade_record_fn fn, void *ud) {
  if (L) L->rec = fn, L->ud = ud;
}

const ade_sparse *ade_hess_loop_matrix(const ade_hess_loop *L) { return L ? L->H : NULL; }

ade_tape *ade_hess_loop_tape(const ade_hess_loop *L) { return L ? L->t : NULL; }

void ade_hess_loop_report(const ade_hess_loop *L, ade_hess_loop_stats *s) {
  if (L && s) *s = L->st;
}

int ade_hess_loop_triplets(const ade_hess_loop *L, size_t *row, size_t *col) {
  if (!L || !row || !col) return ade__fail(ADE_EINVAL, "ade_hess_loop_triplets: NULL argument");
  for (size_t i = 0; i < L->H->m; i++)
    for (size_t k = L->H->rowptr[i]; k < L->H->rowptr[i + 1]; k++) row[k] = i, col[k] = L->H->col[k];
  return ADE_OK;
}

int ade_hess_loop_retape(ade_hess_loop *L, ade_tape *t) {
  if (!L || !t) return ade__fail(ADE_EINVAL, "ade_hess_loop_retape: NULL argument");
  int st = retape(L, t, 0);
  L->st.retapes += st >= 0;
  return st;
}

/* The plan at x with weights w into L->H (scattered onto the union pattern). */
static int run(ade_hess_loop *L, const double *x, const double *w) {
  ade_sparse *T = L->same ? L->H : L->P;
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = x, o.w = w;
  int st = ade_hess_plan_hessian(L->p, L->t, &o, T, NULL);
  if (st < 0 || L->same) return st;
  memset(L->H->val, 0, L->H->nnz * sizeof *L->H->val);
  for (size_t k = 0; k < T->nnz; k++) L->H->val[L->pos[k]] = T->val[k];
  return st;
}

/* Record at x through the recorder and continue on the new tape. */
static int rerecord(ade_hess_loop *L, const double *x) {
  ade_tape *t = NULL;
  int st = L->rec(L->ud, x, &t);
  if (st >= 0 && !t) st = ade__fail(ADE_EINVAL, "the recorder returned no tape");
  if (st >= 0) {
    st = retape(L, t, 1);
    if (st < 0) ade_tape_free(t);
  }
  if (st >= 0) L->st.retapes++;
  return st;
}

int ade_hess_loop_eval(ade_hess_loop *L, const double *x, const double *w, const ade_sparse **H) {
  if (!L) return ade__fail(ADE_EINVAL, "ade_hess_loop_eval: NULL loop");
  if (!w && L->m != 1) return ade__fail(ADE_EINVAL, "ade_hess_loop_eval: %zu dependents need weights", L->m);
  int st = run(L, x, w), grew = 0;
  if (st == ADE_WBRANCH && L->rec && x) {
    st = rerecord(L, x);
    if (st >= 0) grew = st == ADE_WPATTERN, st = run(L, x, w);
  }
  if (st >= 0) L->st.evals++;
  if (H) *H = L->H;
  return st == ADE_OK && grew ? ADE_WPATTERN : st;
}
