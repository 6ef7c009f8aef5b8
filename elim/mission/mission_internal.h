/* mission_internal.h: AD missions: the DAG of vector elementals, its line dag under generalized face elimination, planners. */
#ifndef ADE_MISSION_INTERNAL_H
#define ADE_MISSION_INTERNAL_H

#include <stdint.h>

#include "common_internal.h"

/* Inputs beyond these limits are rejected (ADE_ETOOBIG): they keep every
 * cost below 2^63 (size^3 and size * cost) and the planners' state small. */
#define ADE__M_MAXVARS 10000
#define ADE__M_MAXELEMS 20000
#define ADE__M_MAXSIZE 1000000u
#define ADE__M_MAXCOST 1000000000u

/* A variable of the mission DAG (a vertex: v_j of size n_j). */
typedef struct ade__mvar {
  char *id;      /* its name (GraphML node id) */
  uint64_t size; /* n_j */
  int nin, nout; /* in- and out-degree */
} ade__mvar;

/* An elemental (an edge (i, j): F'(i, j) in R^{n_j x n_i}). */
typedef struct ade__melem {
  char *id;          /* its name (GraphML edge id) */
  int src, dst;      /* variable indices */
  uint64_t tan, adj; /* cost of one scalar tangent / adjoint */
  int jac, model;    /* F' given; tangent and adjoint models given */
} ade__melem;

struct ade_mission {
  int nv, ne, capv, cape;
  ade__mvar *v;
  ade__melem *e;
  int checked;       /* ade__mission_check passed since the last change */
  int *topo;         /* variables in topological order (after the check) */
  int *outp, *oute;  /* out-edges of variable i: oute[outp[i] .. outp[i+1]-1] */
  /* Built from a tape (tape.c): its parts' sweeps, NULL otherwise, and
   * how to free them (a hook: the DAG calls nothing of tape.c above it). */
  struct ade__mtape *tp;
  void (*tp_free)(struct ade__mtape *tp);
};

typedef struct ade__mtape ade__mtape;

/* Validate d: at least one elemental, acyclic, weakly connected; fills
 * topo. @return ADE_OK, ADE_EINVAL, ADE_ECYCLE, ADE_ENOMEM. */
int ade__mission_check(ade_mission *d);
/* 1 if id is a valid variable or elemental name. */
int ade__mission_id_ok(const char *id);
/* Saturating arithmetic for costs. */
static inline uint64_t ade__sadd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static inline uint64_t ade__smul(uint64_t a, uint64_t b) {
  uint64_t x; /* no division: this runs for every face at every search node */
  return __builtin_mul_overflow(a, b, &x) ? UINT64_MAX : x;
}

/* ------------------------------------------------------------ line dag */

/* The line dag G~ of a mission DAG (Definition 1) under Rules 2 and 3.
 * Slots: 0..nx-1 the minimal terminals X~, nx..nx+ny-1 the maximal ones
 * Y~, then one per elemental in input order, then fill-in in order of
 * creation. Slots are never reused, so replaying the same moves gives the
 * same slot numbers. P and S are bit rows. */
typedef struct ade__lvx {
  int i, k;          /* first and last variable of the path (i, *, k) */
  int elem;          /* elemental index; -1 for fill-in and terminals */
  unsigned char term, alive, jac, model;
} ade__lvx;

typedef struct ade__ldag {
  int nslot, cap, words; /* slots used, capacity (64 * words) */
  int nx, ny;
  ade__lvx *v;
  uint64_t *pred, *succ; /* cap rows of `words` words */
  uint64_t cost;         /* of the moves applied so far */
} ade__ldag;

/* Constant context: the DAG and its bounds. */
typedef struct ade__mctx {
  const ade_mission *d;
  uint64_t *minup, *mindown; /* per variable: least size of an ancestor / descendant, itself included */
  uint64_t *upstrict, *downstrict; /* the same over strict ancestors / descendants (none: UINT64_MAX) */
  int *pos;                  /* per variable: its place in topological order */
  /* per elemental, for its own vertex while it has no Jacobian (the
   * bounds' terms, computed once): Rule 3's cost, and the least a use of
   * it costs (ade__ldag_bound) */
  uint64_t *acc, *use;
  /* per variable: the inputs it descends from, the outputs that descend
   * from it (bit q: the q-th input or output; all 0 past 64 of either) */
  uint64_t *inset, *outset;
} ade__mctx;

int ade__mctx_init(ade__mctx *c, const ade_mission *d);
void ade__mctx_free(ade__mctx *c);

/* Kinds of operations and their modes. */
enum { ADE__OP_ACC = 0, ADE__OP_ELI = 1, ADE__OP_MRG = 2 };
enum { ADE__M_TAN = 0, ADE__M_ADJ = 1, ADE__M_MUL = 2 };

/* One executed operation (what the plan records). */
typedef struct ade__mop {
  int kind, mode;
  int a, b, c; /* ACC: a; ELI: a = (i,*,j), b = (j,*,k), c = result; MRG: a into c */
  int fill;    /* ELI: c is new */
  uint64_t cost;
} ade__mop;

/* A sink for operations (NULL: not recorded). */
typedef int (*ade__mop_fn)(void *ud, const ade__mop *op);

int ade__ldag_init(ade__ldag *g, const ade__mctx *c);
void ade__ldag_free(ade__ldag *g);
int ade__ldag_copy(ade__ldag *dst, const ade__ldag *src);
/* Copy into an initialized dst of the same capacity or more, no allocation
 * unless it must grow. */
int ade__ldag_assign(ade__ldag *dst, const ade__ldag *src);

static inline uint64_t *ade__row(const ade__ldag *g, const uint64_t *rows, int s) {
  return (uint64_t *)rows + (size_t)s * (size_t)g->words;
}
static inline int ade__bit(const ade__ldag *g, const uint64_t *rows, int s, int t) {
  return (int)((ade__row(g, rows, s)[t >> 6] >> (t & 63)) & 1);
}
/* 1 if (u, v) is a face (an edge of G~ between two intermediate vertices). */
static inline int ade__is_face(const ade__ldag *g, int u, int v) {
  return !g->v[u].term && !g->v[v].term && ade__bit(g, g->succ, u, v);
}

/* Run the statement after it with t = each set bit of row r, in order
 * (the row's words are read one at a time: the statement may change
 * other rows, not r). `continue` works; `break` ends only one bit. */
#define ADE__FOR_BITS(g, r, t)                                                   \
  for (int w_##t = 0; w_##t < (g)->words; w_##t++)                               \
    for (uint64_t x_##t = (r)[w_##t]; x_##t; x_##t &= x_##t - 1)                 \
      for (int t = w_##t * 64 + __builtin_ctzll(x_##t), o_##t = 1; o_##t; o_##t = 0)

/* Bits set in a row; the first set bit at or after t (-1: none). */
int ade__row_count(const ade__ldag *g, const uint64_t *r);
int ade__next_bit(const ade__ldag *g, const uint64_t *r, int t);
/* An intermediate vertex other than x with a Jacobian, P = pr and S = su; -1: none. */
int ade__find_same(const ade__ldag *g, const uint64_t *pr, const uint64_t *su, int x);

/* Costs of Rule 3 (preaccumulation, the cheaper mode) and of Rule 2's
 * three flavours for face (u, v); UINT64_MAX when not applicable. */
uint64_t ade__acc_cost(const ade__ldag *g, const ade__mctx *c, int s, int *mode);
/* The same in a given mode (ADE__ACC_*). */
uint64_t ade__acc_cost_in(const ade__ldag *g, const ade__mctx *c, int s, int how, int *mode);
uint64_t ade__face_cost(const ade__ldag *g, const ade__mctx *c, int u, int v, int *mode);

/* A move: face (u, v) after preaccumulating u (au) and/or v (av); or with
 * v < 0, the preaccumulation of u alone. au, av: 0 none, ADE__ACC_MIN the
 * cheaper mode, ADE__ACC_TAN / ADE__ACC_ADJ that mode. */
enum { ADE__ACC_MIN = 1, ADE__ACC_TAN = 2, ADE__ACC_ADJ = 3 };
typedef struct ade__move {
  int u, v;
  unsigned char au, av;
} ade__move;

/* The cost a move would add (UINT64_MAX if not feasible). */
uint64_t ade__move_cost(const ade__ldag *g, const ade__mctx *c, const ade__move *m);
/* Apply a move (Rules 2 and 3, with merges); ops go to fn. */
int ade__move_apply(ade__ldag *g, const ade__mctx *c, const ade__move *m, ade__mop_fn fn, void *ud);
/* The faces left (0: complete up to preaccumulations). */
int ade__ldag_has_face(const ade__ldag *g);
/* Preaccumulate every intermediate vertex still without a Jacobian (the
 * cheaper mode; the last step of every complete sequence). */
int ade__ldag_finish(ade__ldag *g, const ade__mctx *c, ade__mop_fn fn, void *ud);
/* Admissible lower bound on the cost still to come. */
uint64_t ade__ldag_bound(const ade__ldag *g, const ade__mctx *c);
/* The same, or any admissible bound of at least need when one cheaper
 * than the whole reaches it (the search asks only whether it cuts). */
uint64_t ade__ldag_bound_cut(const ade__ldag *g, const ade__mctx *c, uint64_t need);
/* ade__ldag_bound as its three bounds computed apart (the reference the
 * tests compare ade__ldag_bound with). */
uint64_t ade__ldag_bound_ref(const ade__ldag *g, const ade__mctx *c);
/* The feasible moves for face (u, v), at most 4, into m; returns count. */
int ade__face_moves(const ade__ldag *g, const ade__mctx *c, int u, int v, ade__move *m);

/* State keys for the transposition table. */
typedef struct ade__keybuf {
  uint32_t *k;
  size_t n, cap;
  int *ord, *rank;
  uint64_t *sig, *lab; /* per slot: signature, label */
  int capv;
} ade__keybuf;
int ade__ldag_key(const ade__ldag *g, ade__keybuf *kb);
void ade__keybuf_free(ade__keybuf *kb);

typedef struct ade__ttab ade__ttab;
int ade__ttab_create(ade__ttab **t, size_t max_bytes);
void ade__ttab_free(ade__ttab *t);
int ade__ttab_visit(ade__ttab *t, const uint32_t *key, size_t n, uint64_t g);

/* ------------------------------------------------------------- methods */

/* A growable list of moves (what planners produce). */
typedef struct ade__mseq {
  ade__move *m;
  size_t n, cap;
} ade__mseq;
/* Move sequences (ldag.c). */
int ade__mseq_push(ade__mseq *s, const ade__move *m);
int ade__mseq_copy(ade__mseq *dst, const ade__mseq *src); /* appended */
void ade__mseq_free(ade__mseq *s);

/* Search state shared by a method's run. */
typedef struct ade__mrun {
  const ade__mctx *c;
  const ade_mission_limits *lim;
  double t0;
  int proven;      /* the result is proven optimal */
  int limited;     /* a limit stopped the search */
  uint64_t nodes, bound;
  int clocked;     /* the heuristics stop at the time limit with ADE_ELIMIT
                      (branch and bound's incumbents but the first) */
} ade__mrun;

/* Whether r's heuristics are clocked and its time limit has passed. */
static inline int ade__mrun_expired(const ade__mrun *r) {
  return r && r->clocked && r->lim->time_limit > 0 && ade__now() - r->t0 >= r->lim->time_limit;
}

int ade__m_dense(const ade__mctx *c, int adjoint, uint64_t *cost);
int ade__m_sparse(ade__mrun *r, int adjoint, ade__mseq *out);
int ade__m_greedy(ade__mrun *r, int by_cost, ade__mseq *out);
/* greedy-min-fill with its ties (faces of equal fill-in) broken by slot
 * order (what ade__m_greedy does), or by the order of the faces in
 * sparse tangent or adjoint mode (the paper's "ties are broken by either
 * sparse tangent or adjoint modes"): tests/check_mission.c shows that the
 * adjoint order reproduces ADMission's 20 on the Lion DAG. */
enum { ADE__TIES_SLOT = 0, ADE__TIES_TANGENT = 1, ADE__TIES_ADJOINT = 2 };
int ade__m_greedy_ties(ade__mrun *r, int by_cost, int ties, ade__mseq *out);
int ade__m_dp(ade__mrun *r, ade__mseq *out);
/* Greedy moves from state g on (g is changed). */
int ade__greedy_from(ade__ldag *g, const ade__mctx *c, int by_cost, ade__mseq *out);
/* Decomposition at cut variables (a variable every path from the part
 * before it to the rest passes, inputs aside): the pieces between cuts
 * planned once per shape by bnb, replayed on the whole, the junctions
 * eliminated greedily. ADE_EINVAL when there is no cut. */
int ade__m_decomp(ade__mrun *r, ade__mseq *out);
/* Branch and bound from the best heuristic plan or start (may be NULL),
 * whichever is cheaper (bnb.c). */
int ade__m_bnb(ade__mrun *r, const ade__mseq *start, ade__mseq *out);
/* best: bnb started from the decomposition where there is a cut (decomp.c). */
int ade__m_best(ade__mrun *r, ade__mseq *out);
/* Replay moves on a fresh line dag: the total cost (moves then finish). */
int ade__mseq_cost(const ade__mctx *c, const ade__mseq *s, uint64_t *cost);

#endif
