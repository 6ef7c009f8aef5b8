/* eval_internal.h: evaluation of a finished tape: value, tangent and adjoint
 * sweeps, linearized chunks, sweeps at a new point in bounded memory, and the
 * live map of reverse sweeps beyond the memory limit. Below elim/ and
 * hessian/, above record/. */
#ifndef ADE_EVAL_INTERNAL_H
#define ADE_EVAL_INTERNAL_H

#include <pthread.h>

#include "record_internal.h"

/* The resident form of a finished tape (resident.c): every record decoded
 * once into flat arrays, shared read only by the tape and its clones. Per
 * record: its opcode (1 byte) and its value at the recorded point (8);
 * per operand slot (arity of each record, in record order): the operand's
 * id, 0 for a constant (4); per active operand of a record with partials
 * its slot (4); per constant operand its value (8); per run of
 * records of one opcode, the opcode and the length (5). The partials at
 * the recorded point (8 per slot) are added by the first sweep there. */
/* Tangent slots of a resident form: a record's tangents live in slot
 * rec[rid] (slot 0: the zero of constants), operand slot k reads slot
 * op[k]; a slot is reused once the record holding it is read no more
 * (dependents' slots are kept): nslot slots instead of n + 1. */
typedef struct ade__tmap {
  size_t nslot;
  const uint32_t *op;  /* nref */
  uint32_t rec[];      /* n + 1, then op */
} ade__tmap;

typedef struct ade__res {
  size_t n;            /* records */
  size_t nrun, nref, nact, ncst;
  uint8_t *op;         /* n: record rid's opcode at op[rid - 1] */
  uint8_t *rop;        /* nrun: opcode of each run */
  uint32_t *rlen;      /* nrun: records in each run */
  uint32_t *ref;       /* nref: operand ids, 0 = the next constant */
  uint32_t *act;       /* nact: the slots of the active operands of records with partials,
                        * in order (the operands of the linearized chunks) */
  double *cst;         /* ncst */
  double *val;         /* n + 1: val[rid], the values at the recorded point */
  _Atomic(double *) d; /* nref: partials at the recorded point (constants' unused), or NULL */
  size_t *cref, *ccst; /* nchunks + 1: each chunk's first slot and constant */
  _Atomic(ade__tmap *) tmap; /* tangent slots (ade__res_tmap), or NULL */
  _Atomic int dlazy;   /* a scalar reverse sweep at the recorded point ran without d
                        * (ade__res_reverse1_rec): the next one computes d */
  size_t bytes;        /* all of the above but d and tmap */
} ade__res;

/* Recorded comparisons that differ at a point: how many, the first's op. */
typedef struct ade__flips {
  uint64_t n, first;
} ade__flips;

/* t's resident form (built now if it fits t's memory limit and none is
 * yet); NULL: sweeps stream the chunks (beyond the limit, or building
 * failed). */
const ade__res *ade__res_get(ade_tape *t);
const ade__res *ade__res_now(ade_tape *t); /* ade__res_get, built now if not yet */
const ade__res *ade__res_peek(const ade_tape *t); /* the owner's, if built; never builds */
const ade__res *ade__res_find(const ade_tape *t); /* the same, if within t's memory limit */
/* A plan's inputs at x (NULL: the recorded point, whose partials must fit:
 * ade__res_d) over the resident form in one pass: out[init[k]] (perm[init[k]]
 * if perm is given) += the k-th
 * of the ntape active partials (linearized-chunk order); ADE_WBRANCH (out
 * complete) when a recorded comparison differs at x. */
int ade__res_scatter_at(ade_tape *t, const ade__res *r, const double *x, double *W, const size_t *init,
                        const uint32_t *perm, size_t ntape, const uint32_t *M, double *out);
/* M[k] (r->nref entries) = the plan slot of operand slot k (init's, or
 * perm of it if perm is given), junk for none: with it ade__res_scatter_at at x adds the partials to out as it
 * computes them (out[junk] then holds junk). EINVAL: r has not ntape
 * active operands; ETOOBIG: a slot beyond 32 bits. */
int ade__res_scatter_map(const ade__res *r, const size_t *init, size_t ntape, const uint32_t *perm, uint32_t junk,
                         uint32_t *M);
/* The doubles of workspace W it needs (values and partials at x; 0 at the
 * recorded point): the caller's, so that out may live in the tape's work
 * area beside it. */
size_t ade__res_scatter_work(const ade__res *r, const double *x, const uint32_t *M);
/* r's partials at the recorded point (computed now if they fit t's
 * memory limit beside r; NULL if not). */
const double *ade__res_d(const ade_tape *t, const ade__res *r);
/* r's tangent slots (made now if they fit t's memory limit beside r; NULL
 * if not, or ENOMEM: tangents by record id then). */
const ade__tmap *ade__res_tmap(const ade_tape *t, const ade__res *r);
size_t ade__res_bytes(const ade__res *r);
void ade__res_free(ade__res *r);
void ade__res_drop(ade_tape *t); /* an owner's, freed (ade_tape_set_memory_limit, free) */
/* V[rid] = values at x (V: n + 1 doubles), and with D (nref doubles) each
 * slot's partial there; flips counted in fl. */
void ade__res_values(const ade__res *r, const double *x, double *V, double *D, ade__flips *fl);
/* p tangents T (p per variable, in slots of m, or by record id if m is
 * NULL) seeded with Xd at the independents: at x with V (values there,
 * computed on the way), or at the recorded point (V and x NULL) with its
 * partials D. */
void ade__res_tangent(const ade__res *r, const ade__tmap *m, const double *x, double *V, const double *D,
                      size_t p, const double *Xd, double *T, ade__flips *fl);
/* Reverse sweeps with partials D (r->d: the recorded point) over dense
 * adjoints A seeded at the dependents: one per variable, or q. */
void ade__res_reverse1(const ade__res *r, const double *D, double *A);
void ade__res_reverse1_rec(const ade__res *r, double *A); /* at the recorded point, without D */
void ade__res_reverse_dense(const ade__res *r, const double *D, size_t q, double *A);
/* Chunk c linearized at V (NULL: the recorded point, partials D) from r. */
int ade__res_lin(const ade__res *r, const double *D, const ade_tape *t, size_t c, const double *V,
                 ade__lin *L);
int ade__lin_reserve(ade__lin *L, size_t n, size_t nops);

/* Live map (livemap.c). */
double *ade__livemap_find(const ade__livemap *m, uint64_t id);
double *ade__livemap_get(ade__livemap *m, uint64_t id); /* zeros if new; NULL: ENOMEM */
void ade__livemap_remove(ade__livemap *m, uint64_t id);
void ade__livemap_free(ade__livemap *m);

/* The core of a loop over new points (ploop.c) for any kind of plan:
 * Jacobian plans (elim/cache.c) and Hessian plans (hessian/hess_loop.c)
 * each give their operations. */
typedef struct ade__ploop_ops {
  const char *what; /* "Jacobian", "Hessian": for messages */
  int (*cache_create)(void **c); /* a private cache of 8 */
  void (*cache_free)(void *c);
  int (*get)(void *cache, ade_tape *t, int method, void **p, int *hit); /* a reference */
  void (*release)(void *p);
  int (*pattern)(const void *p, ade_sparse **P);
  int (*eval)(void *p, ade_tape *t, const double *x, const double *w, ade_sparse *M);
  void (*cost)(const void *p, int *method, uint64_t *fma);
} ade__ploop_ops;
typedef struct ade__ploop {
  const ade__ploop_ops *ops;
  void *cache, *own;   /* own: the private cache, if the caller gave none */
  int method;
  ade_tape *t;         /* the tape evaluated */
  int owned;           /* t came from the recorder: ours to free */
  size_t n, m;         /* its independents and dependents */
  void *p;             /* t's plan */
  ade_sparse *P;       /* the plan's own pattern (its values at x) */
  ade_sparse *U;       /* the union of the patterns seen, values at x */
  size_t *pos;         /* entry k of P is entry pos[k] of U */
  int same;            /* P's pattern is U's: no scatter */
  ade_record_fn rec;
  void *ud;
  uint64_t evals, retapes, plans_built, growths, fma;
  int plan_method;
} ade__ploop;
int ade__ploop_init(ade__ploop *L, const ade__ploop_ops *ops, ade_tape *t, int method, void *cache);
void ade__ploop_fini(ade__ploop *L);
int ade__ploop_take(ade__ploop *L, ade_tape *t, int owned);
/* The matrix at x with weights w (used by Hessians); a flipped branch with
 * a recorder records at x and continues (ADE_WPATTERN if the union grew). */
int ade__ploop_eval(ade__ploop *L, const double *x, const double *w, const ade_sparse **M);
int ade__ploop_triplets(const ade__ploop *L, size_t *row, size_t *col);

/* Plan caches keyed by a tape's structure (pcache.c), for any kind of
 * plan: retain and release count its owners. What a tape's structure must
 * match besides the first hash: the second, independent hash and the
 * counts a plan depends on. */
typedef struct ade__shape {
  uint64_t h[2];
  uint64_t records;
  size_t nchunks, n, m;
  uint64_t opcount[256];
  uint32_t *chunkrec; /* records of each chunk */
} ade__shape;
typedef struct ade__pentry {
  ade__shape s;
  int method;
  void *p;
  uint64_t used; /* the cache's tick at the last hit: least recently used goes first */
} ade__pentry;
typedef struct ade__pcache {
  pthread_mutex_t mu;
  size_t cap, n;
  ade__pentry *e;
  uint64_t tick;
  ade_plan_cache_stats st;
  void (*retain)(void *), (*release)(void *);
} ade__pcache;
int ade__pcache_init(ade__pcache *c, size_t capacity, void (*retain)(void *), void (*release)(void *));
void ade__pcache_fini(ade__pcache *c);
void ade__pcache_report(ade__pcache *c, ade_plan_cache_stats *s);
/* *p = the plan of t's structure and method, retained (found, *hit = 1;
 * or made by make(ctx, t, method, p) and kept). @return make's status. */
int ade__pcache_get(ade__pcache *c, ade_tape *t, int method, int (*make)(void *ctx, ade_tape *t, int method, void **p),
                    void *ctx, void **p, int *hit);

/* Linearized chunks. */
int ade__lin_build(ade_tape *t, const double *V, ade__lin *L);
/* The operand slots a linearization of v needs: ADE__MAX_ARITY per record,
 * and n per output of an elemental call. */
size_t ade__lin_slots(const ade__view *v);
int ade__lin_get(ade_tape *t, size_t c, const ade__lin **L);
/* Chunk c linearized at the values V (all records; NULL: the recorded
 * point, through the cache of ade__lin_get). */
int ade__lin_at(ade_tape *t, size_t c, const double *V, const ade__lin **L);
int ade__lin_peek(ade_tape *t, size_t c, const ade__lin **L); /* NULL: t->view holds c */
void ade__lin_free(ade__lin *L);
void ade__lin_cache_free(ade_tape *t);

/* V[id] = every variable's value at x (V holds records + 1 doubles);
 * ADE_WBRANCH when a recorded comparison differs there. */
int ade__replay_values(ade_tape *t, const double *x, double *V);

/* Sweeps at a new point x whose value array (one double per record) would
 * exceed the tape's memory limit: ade__point_begin replays the tape at x
 * keeping only the imported values; until ade__point_end, ade__view_load
 * gives views at x (values recomputed from the imports) and ade__lin_get
 * linearizes at x. Values are bitwise those of ade__replay_values.
 * @return ADE_OK (t->pt.flips counts the recorded comparisons that differ at
 * x), or a read error or ENOMEM with no point set. */
int ade__point_begin(ade_tape *t, const double *x);
void ade__point_end(ade_tape *t);
void ade__point_free(ade_tape *t);
/* The values of view v (a chunk at the recorded point) at t's point; store:
 * also keep the imported ones and count comparison flips (the forward pass). */
void ade__point_apply(ade_tape *t, ade__view *v, int store);
/* Whether sweeps at x should use the point mechanism: x given and one
 * double per record beyond the memory limit. */
static inline int ade__point_wanted(const ade_tape *t, const double *x) {
  /* not with elementals: their calls need every input's value at x */
  return x && (size_t)t->meta.records + 1 > t->memlimit / sizeof(double) && !ade__tape_has_elementals(t);
}

/* Vector elemental calls (elemental.c), through the registered callbacks;
 * ADE_ENOTFOUND naming an elemental this process has not registered, or a
 * failing callback's status. ade__elem_primal: V[outputs] = f(inputs at
 * V) of call bi of view v. ade__elem_jacobian: *J (m x n row-major, in t's
 * elemental workspace, valid until the next call) = f' at the inputs' values
 * V (NULL: the view's), by the explicit Jacobian callback if registered,
 * else by n tangents or m adjoints, whichever the registered costs make
 * cheaper. */
/* ADE_OK if t has no elemental calls, else ADE_EUNSUPPORTED: what (a
 * Hessian, generated code) needs second derivatives or the source of every
 * operation, and the message names the first elemental. */
int ade__tape_scalar(ade_tape *t, const char *what);
/* Every elemental t calls registered with the sizes of its calls:
 * ADE_ENOTFOUND naming the first that is not, ADE_EINVAL if sizes differ
 * (every path that runs callbacks checks first, so all fail alike). */
int ade__elem_ready(ade_tape *t);
/* Every call of view v resolved (before allocating for their Jacobians). */
int ade__elem_check(const ade_tape *t, const ade__view *v);
int ade__elem_primal(ade_tape *t, const ade__view *v, uint32_t bi, double *V);
/* T (p per variable, by id) of call bi's outputs from its inputs' at V
 * (NULL: the view's values): p tangent calls or its Jacobian, whichever is
 * cheaper. */
int ade__elem_tangents(ade_tape *t, const ade__view *v, uint32_t bi, const double *V, size_t p, double *T);
/* A[inputs] += A[outputs]^T f' by one adjoint call (dense adjoints by id;
 * nothing if the outputs' adjoints are 0). */
int ade__elem_adjoint1(ade_tape *t, const ade__view *v, uint32_t bi, const double *V, double *A);
int ade__elem_jacobian(ade_tape *t, const ade__view *v, uint32_t bi, const double *V, const double **J);

/* A tape's elemental calls, for builders of mission DAGs (elim/mission):
 * per call, in record order, its outputs out .. out + m - 1 (ids), its n
 * input ids (0 = a constant), its name (NULL: lost on a recovered tape)
 * and, if registered in this process, the elemental and its costs per
 * tangent and adjoint direction (else def NULL, costs 0). */
typedef struct ade__elemrec {
  uint64_t out;
  size_t n, m;
  const uint64_t *in;
  const double *inv;   /* the n inputs' recorded values */
  const char *name;
  const struct ade_elemental *def;
  uint64_t tangent_cost, adjoint_cost;
  uint64_t *ids;       /* [0] only: the storage of every in */
  double *vals;        /* [0] only: the storage of every inv */
} ade__elemrec;
/* *r (free with ade__elemrecs_free) holds t's *n calls. */
int ade__tape_elementals(ade_tape *t, ade__elemrec **r, size_t *n);
void ade__elemrecs_free(ade__elemrec *r);

/* Directions per vector sweep for strips of at most want: in forward mode
 * (mode ADE_FORWARD) as many as fit the tape's memory limit with one
 * tangent each per variable (and the values at x), at least 1; in reverse
 * mode want (adjoints beyond the limit are kept for live variables only). */
size_t ade__strip_width(const ade_tape *t, int mode, const double *x, size_t want);

/* LANE(L) for each direction L in [0, p) (the vector loops of the sweeps
 * over the resident form and of the Hessian-vector sweeps): in blocks of 4
 * with a fixed inner count, which gcc -O2 vectorises (its cheap cost model
 * leaves loops of unknown count scalar), then the rest. */
#define ADE__LANES(LANE)                                                       \
  do {                                                                         \
    size_t l0_ = 0;                                                            \
    for (; l0_ + 4 <= p; l0_ += 4)                                             \
      for (size_t u_ = 0; u_ < 4; u_++) LANE(l0_ + u_);                        \
    for (; l0_ < p; l0_++) LANE(l0_);                                          \
  } while (0)

#endif
