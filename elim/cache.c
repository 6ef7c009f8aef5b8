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
  ade_plan_cache *cache, *own;  /* own: the private cache, if the caller gave none */
  int method;
  ade_tape *t;                  /* the tape evaluated */
  int owned;                    /* t came from the recorder: ours to free */
  ade_elim_plan *p;             /* t's plan */
  ade_sparse *P;                /* the plan's own pattern (its values at x) */
  ade_sparse *J;                /* the union of the patterns seen, values at x */
  size_t *pos;                  /* entry k of P is entry pos[k] of J */
  int same;                     /* P's pattern is J's: no scatter */
  ade_record_fn rec;
  void *ud;
  ade_jacobian_loop_stats st;
};

/* Take tape t (owned or not) with its plan p: pattern, union, map. */
static int take(ade_jacobian_loop *L, ade_tape *t, int owned, ade_elim_plan *p) {
  ade_sparse *P = NULL, *U = NULL;
  size_t *pos = NULL;
  int st = ade_elim_plan_pattern(p, &P), grew = 0;
  if (!st && !(pos = ade__alloc((P->nnz + 1) * sizeof *pos))) st = ade__fail(ADE_ENOMEM, "out of memory for a loop");
  if (!st && L->J && (P->m != L->J->m || P->n != L->J->n))
    st = ade__fail(ADE_EINVAL, "the new tape's Jacobian is %zu x %zu, the loop's %zu x %zu", P->m, P->n, L->J->m,
                   L->J->n);
  if (!st && L->J) st = ade__sparse_union(L->J, P, &U, pos);
  if (!st && !L->J) { /* the first: its own pattern */
    st = ade_elim_plan_pattern(p, &U);
    for (size_t k = 0; !st && k < P->nnz; k++) pos[k] = k;
  }
  if (st) {
    ade_sparse_free(P);
    ade__free(pos);
    ade_elim_plan_free(p);
    return st;
  }
  if (U) grew = L->J != NULL, ade_sparse_free(L->J), L->J = U;
  if (L->owned && L->t != t) ade_tape_free(L->t);
  ade_elim_plan_free(L->p);
  ade_sparse_free(L->P);
  ade__free(L->pos);
  L->t = t, L->owned = owned, L->p = p, L->P = P, L->pos = pos;
  L->same = P->nnz == L->J->nnz;
  L->st.method = ade_elim_plan_method(p);
  L->st.fma = ade_elim_plan_fma(p);
  L->st.pattern_growths += (uint64_t)grew;
  return grew ? ADE_WPATTERN : ADE_OK;
}

/* t's plan from the cache, then take it. */
static int retape(ade_jacobian_loop *L, ade_tape *t, int owned) {
  ade_elim_plan *p = NULL;
  int hit = 0, st = ade_plan_cache_get(L->cache, t, L->method, &p, &hit, NULL);
  if (st) return st;
  L->st.plans_built += !hit;
  return take(L, t, owned, p);
}

int ade_jacobian_loop_create(ade_jacobian_loop **Lp, ade_tape *t, int method, ade_plan_cache *cache) {
  if (!Lp) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_create: NULL result pointer");
  *Lp = NULL;
  ade_jacobian_loop *L = ade__calloc(1, sizeof *L);
  if (!L) return ade__fail(ADE_ENOMEM, "out of memory for a Jacobian loop");
  L->method = method;
  L->cache = cache;
  int st = cache ? ADE_OK : ade_plan_cache_create(&L->own, 8);
  if (!cache) L->cache = L->own;
  if (!st) st = retape(L, t, 0);
  if (st) ade_jacobian_loop_free(L);
  else *Lp = L;
  return st;
}

void ade_jacobian_loop_free(ade_jacobian_loop *L) {
  if (!L) return;
  if (L->owned) ade_tape_free(L->t);
  ade_elim_plan_free(L->p);
  ade_sparse_free(L->P);
  ade_sparse_free(L->J);
  ade__free(L->pos);
  ade_plan_cache_free(L->own);
  ade__free(L);
}

void ade_jacobian_loop_set_recorder(ade_jacobian_loop *L, ade_record_fn fn, void *ud) {
  if (L) L->rec = fn, L->ud = ud;
}

const ade_sparse *ade_jacobian_loop_matrix(const ade_jacobian_loop *L) { return L ? L->J : NULL; }

ade_tape *ade_jacobian_loop_tape(const ade_jacobian_loop *L) { return L ? L->t : NULL; }

void ade_jacobian_loop_report(const ade_jacobian_loop *L, ade_jacobian_loop_stats *s) {
  if (L && s) *s = L->st;
}

int ade_jacobian_loop_triplets(const ade_jacobian_loop *L, size_t *row, size_t *col) {
  if (!L || !row || !col) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_triplets: NULL argument");
  for (size_t i = 0; i < L->J->m; i++)
    for (size_t k = L->J->rowptr[i]; k < L->J->rowptr[i + 1]; k++) row[k] = i, col[k] = L->J->col[k];
  return ADE_OK;
}

int ade_jacobian_loop_retape(ade_jacobian_loop *L, ade_tape *t) {
  if (!L || !t) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_retape: NULL argument");
  int st = retape(L, t, 0);
  L->st.retapes += st >= 0;
  return st;
}

/* The plan at x into L->J (scattered onto the union pattern). */
static int run(ade_jacobian_loop *L, const double *x) {
  ade_sparse *T = L->same ? L->J : L->P;
  int st = ade_elim_plan_jacobian(L->p, L->t, x, T);
  if (st < 0 || L->same) return st;
  memset(L->J->val, 0, L->J->nnz * sizeof *L->J->val);
  for (size_t k = 0; k < T->nnz; k++) L->J->val[L->pos[k]] = T->val[k];
  return st;
}

int ade_jacobian_loop_eval(ade_jacobian_loop *L, const double *x, const ade_sparse **J) {
  if (!L) return ade__fail(ADE_EINVAL, "ade_jacobian_loop_eval: NULL loop");
  int st = run(L, x), grew = 0;
  if (st == ADE_WBRANCH && L->rec && x) { /* record at x, continue on the new tape */
    ade_tape *t = NULL;
    st = L->rec(L->ud, x, &t);
    if (st >= 0 && !t) st = ade__fail(ADE_EINVAL, "the recorder returned no tape");
    if (st >= 0) {
      st = retape(L, t, 1);
      if (st < 0) ade_tape_free(t);
    }
    if (st >= 0) L->st.retapes++, grew = st == ADE_WPATTERN, st = run(L, x);
  }
  if (st >= 0) L->st.evals++;
  if (J) *J = L->J;
  return st == ADE_OK && grew ? ADE_WPATTERN : st;
}
