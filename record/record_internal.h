/* record_internal.h: the tape object, the recorder's state and decoded chunk views. */
#ifndef ADE_RECORD_INTERNAL_H
#define ADE_RECORD_INTERNAL_H

#include <stdatomic.h>

#include "ops_internal.h"
#include "tape_internal.h"
#include "u64map_internal.h"

/* An active value's id: the tape's serial in the high bits, the 1-based
 * record index in the low ADE__ID_BITS (0 = passive). */
#define ADE__ID_BITS 44
#define ADE__ID_MASK ((UINT64_C(1) << ADE__ID_BITS) - 1)
#define ADE__SERIAL_MASK ((UINT64_C(1) << (64 - ADE__ID_BITS)) - 1)

enum { ADE__NEW, ADE__RECORDING, ADE__FINISHED };

/* A serial (1 .. ADE__SERIAL_MASK) no live tape holds, 0 if all are held;
 * release gives it back (0 is ignored). */
uint64_t ade__serial_claim(void);
void ade__serial_release(uint64_t serial);

/* Idle clones a finished tape keeps (see ade__tape_borrow). */
#define ADE__SPARES 8

/* The recorder: column buffers of the open chunk and its lookup tables. */
/* The decoded form a recording with o->keep leaves behind (keep.c): the
 * arrays of the evaluator's resident form (eval_internal.h, ade__res, which
 * says what each holds), filled from each chunk's raw columns as the writer
 * finishes it and handed over whole to the evaluator by the first sweep
 * that looks for a resident form (so that it decodes no chunk). */
typedef struct ade__kept {
  size_t n, nrun, nref, nact, ncst, nchunk;
  uint8_t *op, *rop;
  uint32_t *rlen, *ref, *act;
  double *cst, *val;
  size_t *cref, *ccst;
  size_t cap[9]; /* capacities of op, rop, rlen, ref, act, cst, val, cref, ccst */
} ade__kept;
void ade__kept_free(ade__kept *k);

typedef struct ade__writer {
  ade__buf col[ADE__NCOLS];
  uint32_t n;          /* records in the open chunk */
  uint64_t first;      /* record index of its first record */
  ade__u64map imports; /* operands from earlier chunks: id -> value's bits */
  ade__u64map sites;   /* call-site address -> string index */
  uint32_t *rstack;    /* open regions (indices into meta.regions) */
  size_t rdepth, rcap;
  uint64_t opcount[256]; /* of the open chunk, added to the footer's at flush */
  /* The fast path of an ordinary record (writer.c, append_fast): quick
   * records may take it before the slow path (ade__append) must look:
   * they fit the columns without growing them, none of them fills the
   * chunk, and the tape records no call sites and has no error (0 then).
   * base is the id of the open chunk's first record (serial included),
   * so an operand id is in the open chunk iff id - base < n. */
  uint32_t quick;
  uint64_t base;
  ade__buf scratch[2];
  int status;          /* sticky error */
  char errmsg[512];
  const struct ade_elemental **enames; /* elementals named on this tape so far */
  uint32_t *estring;   /* ... and their names' string indices */
  size_t nenames, enamecap;
  /* With o->keep: the records of the chunks written so far, decoded;
   * dropped (NULL) beyond the tape's memory limit or at an elemental call. */
  ade__kept *keep;
} ade__writer;

/* A decoded chunk: records [first, first + n) with operands and values. */
typedef struct ade__view {
  uint64_t first;
  uint32_t n;
  size_t cap;
  uint8_t *op;
  uint64_t *arg;       /* ADE__MAX_ARITY per record: 1-based operand ids, 0 = constant */
  double *argv;        /* ADE__MAX_ARITY per record: operand values at the recorded point */
  double *val;         /* results at the recorded point */
  uint32_t *site;      /* call-site string index + 1, 0 = none */
  uint64_t *impkey;    /* the imports' ids hashed (0 = empty slot), while decoding */
  uint32_t *impat;     /* each one's position in the imports column */
  size_t impcap;       /* slots: a power of two */
  int lean;            /* argv of active operands and val of unstored results unset */
  const uint64_t *cmp; /* ade_tape_verify: the comparison records of earlier */
  size_t ncmp;         /* chunks, ascending, which no import may name */
  /* Vector elemental calls (opcode 255): a call with m outputs is m
   * consecutive records; record i of one has arg[0] = its call's index in
   * blk and arg[1] = its output number k (argv unused). */
  struct ade__eblk *blk;
  size_t nblk, blkcap;
  uint64_t *xarg;      /* the calls' inputs: ids, 0 = constant */
  double *xargv;       /* their values (as argv: active ones unset when lean) */
  size_t nx, xcap;
} ade__view;

/* One elemental call of a decoded chunk: records [head, head + m) of the
 * view are its outputs, xarg[xoff .. xoff + n) its inputs. */
typedef struct ade__eblk {
  uint32_t head, n, m;
  uint32_t name;       /* string index of its name; UINT32_MAX: lost (recovered tape) */
  size_t xoff;
} ade__eblk;

/* Limits of an elemental call (doc/tape-format.md): inputs and outputs
 * each at most ADE__ELEM_MAX, and n * m at most ADE__ELEM_MAXJAC (the
 * dense local Jacobian a sweep forms). */
#define ADE__ELEM_MAX 65536u
#define ADE__ELEM_MAXJAC ((uint64_t)1 << 20)

/* An elemental a tape calls: its name's string index and its sizes. */
typedef struct ade__ename {
  uint32_t name, n, m;
} ade__ename;
/* Add view v's calls to the list (*l, *n, *cap) of distinct names;
 * ADE_EFORMAT if a name is called with other sizes than before. */
int ade__enames_add(const ade__view *v, ade__ename **l, size_t *n, size_t *cap, size_t chunk);
/* t's list (t->enames), read once from its chunks. */
int ade__tape_enames(ade_tape *t);

/* Registered vector elementals (elemental.c): never freed, so a handle
 * stays valid after unregistering (live = 0). */
struct ade_elemental {
  char name[256];
  size_t n, m;
  _Atomic int live;
  ade_elemental_def def; /* def.name points to name */
  uint64_t tcost, acost;
};
/* The live elemental registered under name, or NULL. */
const struct ade_elemental *ade__elem_lookup(const char *name);
/* Record a call of e at x (values xv) with outputs yv into y (outputs active). */
int ade__append_elemental(ade_tape *t, const struct ade_elemental *e, const ade_double *x, const double *yv,
                          ade_double *y, const void *site);
/* Whether t may hold elemental records (the footer counts some): every
 * consumer without elemental support refuses such a tape
 * (ade__tape_scalar in eval/). */
static inline int ade__tape_has_elementals(const ade_tape *t);

/* Record i's operand slots in the arg and argv columns: the one place that
 * states their layout. */
static inline uint64_t *ade__view_arg(const ade__view *v, uint32_t i) {
  return v->arg + (size_t)ADE__MAX_ARITY * i;
}
static inline double *ade__view_argv(const ade__view *v, uint32_t i) {
  return v->argv + (size_t)ADE__MAX_ARITY * i;
}

/* Record i's active-or-constant operands: its arity slots, or an elemental
 * output's call inputs; 0 for independents and passive records. */
static inline int ade__view_args(const ade__view *v, uint32_t i, const uint64_t **a) {
  unsigned op = v->op[i];
  if (op == ADE_OP_VECTOR_ELEMENTAL) {
    const ade__eblk *b = &v->blk[ade__view_arg(v, i)[0]];
    *a = v->xarg + b->xoff;
    return (int)b->n;
  }
  *a = ade__view_arg(v, i);
  return op == ADE_OP_INDEP || (ade__optab[op].flags & ADE__PASSIVE) ? 0 : ade__optab[op].arity;
}

/* Record i's operands in a: from V (the values at a new point; NULL: the
 * view's own) where active, the tape's constants where not. */
static inline void ade__view_operands(const ade__view *v, const double *V, uint32_t i, int arity,
                                      double *a) {
  const uint64_t *arg = ade__view_arg(v, i);
  const double *argv = ade__view_argv(v, i);
  for (int j = 0; j < arity; j++) a[j] = V && arg[j] ? V[arg[j]] : argv[j];
}

/* A linearized chunk: each record's active operands and their partials at
 * one point, all a first-order sweep needs. */
typedef struct ade__lin {
  uint64_t first;
  uint32_t n;
  uint8_t *op;
  double *val;         /* results */
  uint32_t *pos;       /* n + 1: record i's operands are [pos[i], pos[i+1]) */
  uint64_t *id;        /* operand ids */
  double *d;           /* partial derivative with respect to each */
  size_t cap, opcap;
} ade__lin;

/* Adjoint vectors (q doubles) of live variables, keyed by id. Not an
 * ade__u64map: the q doubles sit in the slot, so the reverse sweep reaches
 * them without an indirection. */
typedef struct ade__livemap {
  uint64_t *key;       /* 0 = empty slot */
  double *val;         /* cap * q */
  size_t cap, n, q, peak;
} ade__livemap;


/* A point x other than the recorded one, set for a sweep (point.c): the
 * values at x of every record some chunk imports, so that a chunk's values
 * at x can be recomputed from its own records alone. */
typedef struct ade__point {
  int active;
  const double *x;
  uint64_t *id;        /* ascending: the imported records (kept: x-independent) */
  double *val;         /* their values at x */
  size_t n;
  int have_ids;        /* id holds the tape's imports */
  uint64_t flips, first_flip; /* recorded comparisons that differ at x */
} ade__point;

/* The evaluator's parts that keep state in a tape, in the order freed. */
enum { ADE__EV_LIN, ADE__EV_RES, ADE__EV_POINT, ADE__EV_N };

struct ade_tape {
  int state;
  int recovered;       /* opened by ade_tape_recover: no footer */
  int nofooter;        /* recorded, but the footer could not be written */
  int deferred;        /* recorded raw, compressed at hdr.level when saved (o->defer) */
  int wlevel;          /* the level chunks are written at: 0 if deferred, else hdr.level */
  int hooked;          /* created under an allocator hook: its writer and context are not kept */
  char why[512];       /* why the recording failed (ade__tape_usable's message) */
  uint64_t serial;     /* shifted into the high id bits; 0 unless created to record */
  ade__store store;
  ade__header hdr;
  ade__meta meta;
  /* Structure hash (shash.c): two independent hashes of the opcode and
   * operand-reference columns, accumulated by the recorder as it flushes
   * chunks (shrec_chunks of them), and the final hashes once computed
   * (shash_set = 1; published on the tape itself, never on a clone). */
  uint64_t shrec[2];
  size_t shrec_chunks;
  _Atomic uint64_t shash[2];
  _Atomic int shash_set;
  void *cctx, *dctx;
  ade__writer *w;      /* while recording */
  ade__chunkdata cd;   /* reading */
  ade__buf scratch;
  ade__view view;      /* the loaded chunk (its arrays are scratch_view's) */
  size_t view_chunk;   /* chunk held in view, SIZE_MAX = none */
  ade__view scratch_view;
  struct ade__prefetch *pf; /* decoding the next chunk on a thread (reader.c) */
  ade__lin **lin;      /* linearized chunks at the recorded point, kept */
  uint8_t *linseen;    /* chunks linearized before */
  size_t linbytes;
  ade__lin linscratch;
  double *work;        /* sweep workspace, grown on demand */
  size_t workcap;
  size_t memlimit;     /* dense adjoints above this many bytes: live map */
  _Atomic size_t peak_live; /* live variables at most, in the last live-map sweep */
  ade__point pt;       /* while a sweep runs at a new point in bounded memory */
  /* Set by the evaluator (eval/), which owns the lin cache, the resident
   * form and the point: each part installs the hook that frees what it
   * keeps (ADE__EV_*), freed in that order; view_apply gives a decoded
   * view the values at the tape's point, when one is set. Hooks, so that
   * record/ calls no function of the layer above it. Atomic: a clone's
   * thread publishing the resident form sets its owner's, while the owner
   * may set its own. */
  void (*_Atomic eval_free[ADE__EV_N])(ade_tape *t);
  /* The evaluator's resident form of a finished tape (eval/resident.c):
   * built by the first sweep that fits it, published here in the owner and
   * shared read only by its clones; its eval_free frees it with the owner. */
  _Atomic(struct ade__res *) resident;
  /* The recorder's decoded form (o->keep), left by ade_trace_off on a
   * complete tape until the evaluator takes it as the resident form; the
   * owner's only (a clone's is NULL). */
  _Atomic(ade__kept *) kept;
  void (*view_apply)(ade_tape *t, ade__view *v);
  /* Sharing between threads: evaluations run on a clone, a copy of the
   * finished tape with workspaces of its own (everything above from cd on);
   * up to ADE__SPARES idle clones are kept for the next call. */
  ade_tape *owner;     /* a clone: the tape it was copied from; NULL: not a clone */
  _Atomic(ade_tape *) spare[ADE__SPARES];
  double *ework;       /* elemental calls' workspace (eval/elemental.c) */
  size_t eworkcap;
  struct ade__ename *enames; /* the elementals the tape calls, once read */
  size_t nenames, enamecap;
  int enames_set;
};

static inline int ade__tape_has_elementals(const ade_tape *t) {
  return t->meta.opcount[ADE_OP_VECTOR_ELEMENTAL] != 0;
}

/* Recording. */
/* The open chunk's records added to the writer's kept form, from its raw
 * columns (before they are compressed); the form is dropped if they do not
 * fit the memory limit or hold an elemental call. */
void ade__kept_chunk(ade_tape *t);
void ade__kept_drop(ade__writer *w); /* the writer's kept form freed: none from now on */
/* The writer's kept form left on t (ok: the recording succeeded and the
 * form is whole and within the limit) or freed. */
void ade__kept_finish(ade_tape *t, int ok);
ade_double ade__append(ade_tape *t, unsigned op, int k, const ade_double *x, double r,
                       int kind, const void *site);
int ade__site_intern(ade_tape *t, const void *addr, uint32_t *index);
int ade__site_stack(ade_tape *t, uint32_t **frames, uint32_t *n);
void ade__record_error(ade_tape *t, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ade__writer_free(ade__writer *w);
/* Empty w for another tape: its column, scratch and import buffers stay. */
void ade__writer_reset(ade__writer *w);
/* The calling thread's writer and zstd context kept between tapes
 * (thread.c): put keeps them (or frees them: hooked, a tape created while
 * the thread had an allocator hook, or the slots are taken); the getters
 * hand them out (NULL: none kept, or the thread has a hook now). */
void ade__tcache_put(ade__writer *w, void *cctx, int level, int hooked);
ade__writer *ade__tcache_writer(void);
void *ade__tcache_cctx(int level);
int ade__writer_flush(ade_tape *t);
extern _Thread_local ade_tape *ade__cur __attribute__((tls_model("initial-exec")));
static inline ade_tape *ade__current(void) { return ade__cur; }


/* Structure hash (shash.c): absorb a chunk's opcode and reference columns
 * into h (two hashes); ade__shash_chunks: all of t's chunks, read from its
 * store; ade__shash_finish: then its independents and dependents. */
void ade__shash_chunk(uint64_t h[2], uint64_t first, size_t records, const unsigned char *ops,
                      size_t nops, const unsigned char *refs, size_t nrefs);
int ade__shash_chunks(ade_tape *t, uint64_t h[2]);
void ade__shash_finish(const ade_tape *t, uint64_t h[2]);
/* t's two final hashes, computed once (inspect.c). */
int ade__tape_shape(ade_tape *t, uint64_t h[2]);

/* Reading. */
int ade__chunk_imports(ade_tape *t, size_t chunk, uint64_t **ids, size_t *n, size_t *cap);
int ade__view_load(ade_tape *t, size_t chunk);
/* The same for a sweep at values V of its own: the values at the recorded
 * point (argv of active operands, val of unstored results) are left out,
 * unless the chunk records comparisons (the sweep compares their values)
 * or the tape's point is set. The next ade__view_load decodes again. */
int ade__view_load_lean(ade_tape *t, size_t chunk);
int ade__view_decode(ade_tape *t, size_t chunk, ade__view *v);
void ade__view_free(ade__view *v);
/* The prefetch thread of t's workspace: stopped and freed (before anything
 * it reads goes). ade__prefetch_enable: on or off for all tapes (default:
 * on, unless the environment has ADE_PREFETCH=0). */
typedef struct ade__prefetch ade__prefetch;
void ade__prefetch_stop(ade_tape *t);
void ade__prefetch_enable(int on);
uint64_t ade__prefetch_served(void); /* chunks the threads decoded ahead, in all */
int ade__tape_readable(const ade_tape *t);
/* Readable and complete: what every derivative (sweeps, c-graph, plans,
 * CPR, Hessians) needs; ADE_ESTATE naming the recording's failure if not. */
int ade__tape_usable(const ade_tape *t);
double *ade__work(ade_tape *t, size_t n);

/* Evaluation of a finished tape shared between threads: *c is a clone of t
 * (its own decoder, views, caches and workspace; store and metadata shared,
 * read only), taken from t's idle clones or made. A tape that is not
 * finished, a NULL tape and a clone are their own "clone" (the caller
 * reports their state as usual). ade__tape_release(t, c, status) gives c
 * back (kept idle or freed) and returns status. */
int ade__tape_borrow(ade_tape *t, ade_tape **c);
int ade__tape_release(ade_tape *t, ade_tape *c, int status);

#endif
