/* hessian_internal.h: shared pieces of the Hessian module (local partials, hash map, update log). */
#ifndef ADE_HESSIAN_INTERNAL_H
#define ADE_HESSIAN_INTERNAL_H

#include "eval_internal.h"

/* One record's local derivatives over its distinct active operands:
 * operands with the same id are merged (d summed, h summed over all pairs),
 * constants and operands with no nonzero partial are dropped. h is packed
 * lower triangle, h[a*(a+1)/2 + b] (b <= a). */
typedef struct ade__local {
  int np;
  uint64_t id[ADE__MAX_ARITY];
  double d[ADE__MAX_ARITY];
  double h[6];
} ade__local;

#define ADE__STMT_MAXLEAF 16 /* distinct leaves of a statement (below) */

/* Drop the operands with no nonzero first or second partial from np
 * operands (id, d, packed h), compacting in place; @return the new np.
 * In place: entry (q, o) moves to (map[q], map[o]), never to a later
 * position of the packed triangle, which is read in increasing order. */
static inline int ade__local_drop(int np, uint64_t *id, double *d, double *h) {
  int n = 0, map[ADE__STMT_MAXLEAF];
  for (int q = 0; q < np; q++) {
    int live = d[q] != 0;
    for (int o = 0; o < np && !live; o++) live = h[q > o ? q * (q + 1) / 2 + o : o * (o + 1) / 2 + q] != 0;
    map[q] = live ? n++ : -1;
  }
  if (n == np) return np;
  for (int q = 0; q < np; q++) {
    if (map[q] < 0) continue;
    id[map[q]] = id[q];
    d[map[q]] = d[q];
    for (int o = 0; o <= q; o++)
      if (map[o] >= 0) h[map[q] * (map[q] + 1) / 2 + map[o]] = h[q * (q + 1) / 2 + o];
  }
  return n;
}


/* L = the local partials of a record with k operand slots (ids arg, 0 =
 * a constant) and the rule's partials d, h at its operands: repeated
 * operands merged (d(a, a)/da = d0 + d1), constants and operands with no
 * nonzero partial dropped. */
static inline void ade__hess_merge(int k, const uint64_t *arg, const double *d, const double *h, ade__local *L) {
  int pos[ADE__MAX_ARITY] = {-1, -1, -1};
  L->np = 0;
  memset(L->h, 0, sizeof L->h);
#pragma GCC unroll 3 /* where k is known (a run's rule inlined), the merging folds */
  for (int j = 0; j < k; j++) {
    uint64_t id = arg[j];
    pos[j] = -1;
    if (!id) continue;
    int q = 0;
    while (q < L->np && L->id[q] != id) q++;
    if (q == L->np) {
      L->id[q] = id;
      L->d[q] = 0;
      L->np++;
    }
    pos[j] = q;
    L->d[q] += d[j];
  }
#pragma GCC unroll 3
  for (int j = 0; j < k; j++)
#pragma GCC unroll 3
    for (int l = 0; l <= j; l++) {
      if (pos[j] < 0 || pos[l] < 0) continue;
      int p = pos[j] > pos[l] ? pos[j] : pos[l], q = pos[j] > pos[l] ? pos[l] : pos[j];
      /* h_jl and h_lj both land on (p, q); the packed table holds one. */
      L->h[p * (p + 1) / 2 + q] += (j != l && p == q ? 2 : 1) * h[j * (j + 1) / 2 + l];
    }
  L->np = ade__local_drop(L->np, L->id, L->d, L->h);
}

/* Local partials of record i of the loaded view; V (NULL: recorded point)
 * holds the values at a new point. */
void ade__hess_local(const ade__view *v, uint32_t i, const double *V, ade__local *L);
/* The structure of record i's local partials: 1 where an operand's first
 * partial or a second partial can be nonzero at some point, else 0 (no
 * values read). ade__hess_struct_mask(op): the bits of the packed h that
 * can be nonzero. */
void ade__hess_local_struct(const ade__view *v, uint32_t i, ade__local *L);
unsigned ade__hess_struct_mask(unsigned op);

/* Statement-level preaccumulation (LivarH): a statement is a tree of records
 * of one chunk rooted at a live record; its internal records are each used
 * by one record only (their parent in the tree), were not live when the
 * chunk's sweep started, and are not independents or dependents. The tree's local
 * derivatives with respect to its leaves replace the records' own. */
#define ADE__STMT_MAXREC 16  /* records of a tree, root included */
#define ADE__STMT_NVAR (ADE__STMT_MAXREC + ADE__STMT_MAXLEAF) /* ADE__STMT_MAXLEAF: above */

typedef struct ade__stmt {
  int np, nrec;                /* leaves; records (1: no tree, use rec[0]) */
  uint64_t id[ADE__STMT_MAXLEAF];
  double d[ADE__STMT_MAXLEAF]; /* d root / d leaf */
  double h[ADE__STMT_MAXLEAF * (ADE__STMT_MAXLEAF + 1) / 2]; /* packed */
  uint64_t fma;                /* multiply-adds of the local sweep */
  /* Workspace: the records (breadth first, root 0) with their partials,
   * their operands' local variables, the local adjoints and Hessian, and
   * per variable the bit set of its entries written. */
  ade__local rec[ADE__STMT_MAXREC];
  int var[ADE__STMT_MAXREC][ADE__MAX_ARITY];
  double a[ADE__STMT_NVAR], W[ADE__STMT_NVAR * (ADE__STMT_NVAR + 1) / 2];
  uint64_t nz[ADE__STMT_NVAR];
} ade__stmt;

/* Per record of the loaded view: how many records of the view use it (0,
 * ONCE, MANY; the caller sets MANY also for records live when the chunk's
 * sweep starts), INNER once a statement holds it. */
enum { ADE__USE_ONCE = 1, ADE__USE_MANY = 2, ADE__USE_INNER = 3 };
void ade__stmt_uses(const ade__view *v, uint8_t *uses);
/* The statement rooted at record i of the view; its other records are
 * marked INNER. @return S->nrec. */
int ade__stmt_build(const ade__view *v, uint32_t i, const double *V, uint8_t *uses, ade__stmt *S);

/* The ordering key of a variable: independents first (their position in
 * the independent list), then the other records by id. Every live variable
 * of a reverse sweep at record k has a key below k's. */
static inline uint64_t ade__hkey(const ade__meta *m, uint64_t id) {
  size_t lo = 0, hi = m->nindep;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->indep[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->nindep && m->indep[lo] == id ? lo : m->nindep + id;
}

/* A log of Hessian edge updates (step, i, j) with i >= j ordering keys,
 * recorded by edge pushing and vertex elimination to check Theorem 5.1. */
typedef struct ade__hlog {
  uint64_t *e; /* 3 per update */
  size_t n, cap;
  int failed;  /* an append ran out of memory */
  /* Optional, caller-allocated, indexed by step key (< nkeys): all updates
   * of the step (transients and E_G fill included) and, for edge pushing,
   * the size of the live set S_k after the step. */
  uint64_t *upd, *live;
  size_t nkeys;
  /* Optional, caller-allocated (a slot per vertex): vertex elimination's
   * step keys in the order it eliminated them. */
  uint64_t *order;
  size_t norder;
} ade__hlog;

static inline void ade__hlog_step(ade__hlog *g, uint64_t step) {
  if (g && g->order) g->order[g->norder++] = step;
}

static inline void ade__hlog_count(ade__hlog *g, uint64_t step, uint64_t k) {
  if (g && g->upd && step < g->nkeys) g->upd[step] += k;
}

static inline void ade__hlog_add(ade__hlog *g, uint64_t step, uint64_t i, uint64_t j) {
  if (!g || g->failed) return;
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 1024;
    uint64_t *e = ade__realloc(g->e, ade__mul_size(cap, 3 * sizeof *e));
    if (!e) {
      g->failed = 1;
      return;
    }
    g->e = e;
    g->cap = cap;
  }
  g->e[3 * g->n] = step;
  g->e[3 * g->n + 1] = i > j ? i : j;
  g->e[3 * g->n + 2] = i > j ? j : i;
  g->n++;
}
void ade__hlog_free(ade__hlog *g);
/* Sort each step's updates so two logs compare independently of the order
 * within a step. */
void ade__hlog_sort(ade__hlog *g);

/* The methods; V: values at a new point or NULL; w: m weights. H gets the
 * n x n lower triangle, g (may be NULL) the gradient of sum w_i y_i. */
int ade__edge_push(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g,
                   ade_hess_report *r, ade__hlog *log);
/* The same with statement-level preaccumulation (ade__stmt). */
int ade__edge_push_preacc(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g,
                          ade_hess_report *r, ade__hlog *log);
/* The structural Hessian pattern (values: positive counts, never 0) of
 * every dependent of t with weight 1: edge pushing on the structural local
 * partials of ade__hess_local_struct, whose sums of positive terms never
 * cancel, so every entry that can be nonzero at some point is present.
 * r->fma: the multiply-adds edge pushing would run (a bound at any point). */
int ade__edge_push_pattern(ade_tape *t, ade_sparse **H, ade_hess_report *r);
int ade__for_over_rev(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g,
                      ade_hess_report *r);
/* Vector forward-over-reverse (hvp.c): p directions S (n x p, row-major)
 * give HS = H S (n x p) and the gradient g (may be NULL) of sum w_i y_i at
 * the values V (NULL: the recorded point or the tape's point). The state
 * holds A (one adjoint per variable), T and B (p tangents and adjoint
 * tangents per variable), allocated once by ade__hvp_begin within the
 * tape's memory limit, or the caller's buf of ade__hvp_doubles (kept
 * between calls: no fresh pages each time). The sweeps read the tape's
 * resident form when it fits the memory limit (ade__res_get), else its
 * chunks: the same operations in the same order, the same bits. */
typedef struct ade__hvp {
  ade_tape *t;
  const double *V, *w;
  size_t p;
  double *A, *T, *B;
  const ade__res *res; /* the resident form the sweeps read, or NULL: the chunks */
  int own;          /* A was allocated here */
  uint64_t fma;
} ade__hvp;
size_t ade__hvp_doubles(const ade_tape *t, size_t p);
/* Directions per sweep: at most want, as many as the memory limit allows. */
size_t ade__hvp_width(const ade_tape *t, size_t want);
int ade__hvp_begin(ade__hvp *f, ade_tape *t, size_t p, double *buf);
int ade__hvp_run(ade__hvp *f, const double *V, const double *w, const double *S, double *HS, double *g);
void ade__hvp_end(ade__hvp *f);

/* ADE_HESS_AUTO's rule (hess_plan.c): star when its predicted fma are
 * fewer than this many times edge pushing's. bench_hesscolor measured an
 * edge-push multiply-add (hashed rows of the live Hessian) at 50 to 200 ns
 * and a compressed sweep's (arrays, directions innermost) at 2 to 18 ns:
 * break-even weights 10 to 70 on its problems; 16 picks the faster method
 * on all eight of them (doc/hessians.md). */
#define ADE__HESS_EP_WEIGHT 16

/* Star coloring (color.c): the adjacency of a symmetric pattern (both
 * directions, no diagonal) and the direct recovery map src (P->nnz
 * entries: the place i * nc + c in B = H S of each entry of P);
 * ADE_EINVAL if color is not a star coloring of P. */
int ade__sym_adjacency(const ade_sparse *P, size_t **ptr, size_t **adj);
int ade__star_recovery(const ade_sparse *P, const size_t *color, size_t nc, size_t *src);

int ade__vertex_elim(ade_tape *t, const double *V, const double *w, int order, ade_sparse **H,
                     double *g, ade_hess_report *r, ade__hlog *log);
/* A method of ade__vertex_elim for the tests only: ve-markowitz choosing
 * each pair by a linear scan (O(V^2)), the reference for its heap. */
#define ADE__HESS_VE_MARKOWITZ_SCAN 0x100

/* The dispatcher's pieces (shared.c), shared with plans (hess_plan.c): the
 * argument checks of ade_hessian; the values at x (V, or the tape's point
 * beyond the memory limit; warn = ADE_WBRANCH when a recorded comparison
 * differs there); f = sum w_i y_i; one method there; the final status. */
typedef struct ade__hpoint {
  double *V;
  int point, warn;
} ade__hpoint;
int ade__hess_check(ade_tape *t, int method, const ade_hess_options *o, ade_sparse **H);
int ade__hess_point_begin(ade_tape *t, const double *x, ade__hpoint *hp);
void ade__hess_point_end(ade_tape *t, ade__hpoint *hp);
int ade__hess_value(ade_tape *t, const double *V, const double *w, double *f);
/* A one-shot method (run.c: every method but ADE_HESS_STAR; ADE_HESS_AUTO
 * is edge pushing in one call) at the point set up (hp). */
int ade__hess_run(ade_tape *t, int method, const ade__hpoint *hp, const double *w, ade_sparse **H, double *g,
                  ade_hess_report *rep);
int ade__hess_warn(int st, int warn);
/* ADE_HESS_STAR in one call (hess_plan.c): pattern, coloring, products, recovery. */
int ade__star_once(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g, ade_hess_report *r);

/* Build the symmetric CSR result from n dense lower-triangle rows given as
 * (col, val) triplets; used by every method. */
typedef struct ade__trip {
  size_t row, col;
  double val;
} ade__trip;
int ade__hess_from_triplets(size_t n, ade__trip *T, size_t nt, ade_sparse **H);


/* Hessian plans shared by caches (hess_plan.c, hess_cache.c): one more
 * owner (ade_hess_plan_free releases one); the creation report. */
void ade__hess_plan_retain(ade_hess_plan *p);
const ade_hess_report *ade__hess_plan_report(const ade_hess_plan *p);

#endif
