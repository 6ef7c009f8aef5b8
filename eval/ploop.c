/* ploop.c: the core of Jacobian and Hessian loops (record once, plan once, evaluate at many points, re-record on a branch flip, the pattern the union of the paths seen). */
#include "eval_internal.h"

int ade__ploop_init(ade__ploop *L, const ade__ploop_ops *ops, ade_tape *t, int method, void *cache) {
  memset(L, 0, sizeof *L);
  L->ops = ops;
  L->method = method;
  L->cache = cache;
  if (!t) return ade__fail(ADE_EINVAL, "a %s loop needs a tape", ops->what);
  int st = cache ? ADE_OK : ops->cache_create(&L->own);
  if (!cache) L->cache = L->own;
  if (!st) st = ade__ploop_take(L, t, 0);
  if (st) ade__ploop_fini(L);
  return st;
}

void ade__ploop_fini(ade__ploop *L) {
  if (L->owned) ade_tape_free(L->t);
  if (L->p) L->ops->release(L->p);
  ade_sparse_free(L->P);
  ade_sparse_free(L->U);
  ade__free(L->pos);
  if (L->own) L->ops->cache_free(L->own);
  memset(L, 0, sizeof *L);
}

/* A loop sweeps its tape at every point: its resident form is built now
 * (within the memory limit; if not, or if building fails, sweeps stream
 * the chunks as they would without it, with the same results). */
static void resident_now(ade_tape *t) {
  ade_tape *b;
  if (ade__tape_borrow(t, &b) == ADE_OK) ade__tape_release(t, b, (ade__res_now(b), ADE_OK));
}

/* Continue on tape t (owned: the loop frees it) with its plan from the
 * cache: its pattern joins the union. On error the loop is unchanged. */
int ade__ploop_take(ade__ploop *L, ade_tape *t, int owned) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  if (L->U && (n != L->n || m != L->m))
    return ade__fail(ADE_EINVAL, "the new tape has %zu independents and %zu dependents, the loop's %zu and %zu", n, m,
                     L->n, L->m);
  void *p = NULL;
  int hit = 0, st = L->ops->get(L->cache, t, L->method, &p, &hit);
  if (st) return st;
  L->plans_built += !hit;
  ade_sparse *P = NULL, *U = NULL;
  size_t *pos = NULL;
  int grew = 0;
  st = L->ops->pattern(p, &P);
  if (!st && !(pos = ade__alloc((P->nnz + 1) * sizeof *pos)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a %s loop", L->ops->what);
  if (!st && L->U) st = ade__sparse_union(L->U, P, &U, pos);
  if (!st && !L->U) { /* the first: its own pattern */
    st = L->ops->pattern(p, &U);
    for (size_t k = 0; !st && k < P->nnz; k++) pos[k] = k;
  }
  if (st) {
    ade_sparse_free(P);
    ade__free(pos);
    L->ops->release(p);
    return st;
  }
  if (U) grew = L->U != NULL, ade_sparse_free(L->U), L->U = U;
  if (L->owned && L->t != t) ade_tape_free(L->t);
  if (L->p) L->ops->release(L->p);
  ade_sparse_free(L->P);
  ade__free(L->pos);
  L->t = t, L->owned = owned, L->n = n, L->m = m, L->p = p, L->P = P, L->pos = pos;
  resident_now(t);
  L->same = P->nnz == L->U->nnz;
  L->ops->cost(p, &L->plan_method, &L->fma);
  L->growths += (uint64_t)grew;
  return grew ? ADE_WPATTERN : ADE_OK;
}

/* The plan at x (weights w) into L->U, scattered onto the union pattern. */
static int run(ade__ploop *L, const double *x, const double *w) {
  ade_sparse *T = L->same ? L->U : L->P;
  int st = L->ops->eval(L->p, L->t, x, w, T);
  if (st < 0 || L->same) return st;
  memset(L->U->val, 0, L->U->nnz * sizeof *L->U->val);
  for (size_t k = 0; k < T->nnz; k++) L->U->val[L->pos[k]] = T->val[k];
  return st;
}

int ade__ploop_eval(ade__ploop *L, const double *x, const double *w, const ade_sparse **M) {
  int st = run(L, x, w), grew = 0;
  if (st == ADE_WBRANCH && L->rec && x) { /* record at x, continue on the new tape */
    ade_tape *t = NULL;
    st = L->rec(L->ud, x, &t);
    if (st >= 0 && !t) st = ade__fail(ADE_EINVAL, "the recorder returned no tape");
    if (st >= 0) {
      st = ade__ploop_take(L, t, 1);
      if (st < 0) ade_tape_free(t);
    }
    if (st >= 0) L->retapes++, grew = st == ADE_WPATTERN, st = run(L, x, w);
  }
  if (st >= 0) L->evals++;
  if (M) *M = L->U;
  return st == ADE_OK && grew ? ADE_WPATTERN : st;
}

int ade__ploop_triplets(const ade__ploop *L, size_t *row, size_t *col) {
  if (!row || !col) return ade__fail(ADE_EINVAL, "a %s loop's triplets: NULL argument", L->ops->what);
  for (size_t i = 0; i < L->U->m; i++)
    for (size_t k = L->U->rowptr[i]; k < L->U->rowptr[i + 1]; k++) row[k] = i, col[k] = L->U->col[k];
  return ADE_OK;
}
