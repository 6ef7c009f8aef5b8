/* opt_internal.h: the optimizers' internals: a bitset search graph with undo, moves, lower bounds, canonical state keys, a state table, limits. */
#ifndef ADE_OPT_INTERNAL_H
#define ADE_OPT_INTERNAL_H

#include "elim_internal.h"

/* Search graphs hold at most this many vertices (rows are bitsets). */
#define ADE__SG_MAX_SLOTS 8192u
#define ADE__SLOT_NONE UINT32_MAX

/* One elimination step on a search graph, by slot: vertex a, edge (a, b)
 * front or back, face (a, b). cost orders candidate moves. */
typedef struct ade__move {
  uint32_t a, b, dir, cost;
} ade__move;

/* A growable array of moves, used as a stack of per-depth move lists. */
typedef struct ade__moves {
  ade__move *m;
  size_t len, cap;
} ade__moves;

typedef struct ade__undo {
  size_t tlen, nv, nlive;
  long next_id;
} ade__undo;

/* The c-graph (vertex and edge kinds) or its dual (face kind) as bitset
 * rows, with an undo trail: a step saves the rows it changes, so search
 * goes back without copying or allocating (after warm-up). Slot order is
 * the vertex order of the ade_cgraph it was built from; face fill-ins get
 * new slots (never reused on one path) and the engine's vertex numbers. */
typedef struct ade__sg {
  int kind;                 /* enum ade_seq_kind */
  size_t nv, cap, W;        /* slots in use, capacity, 64-bit words per row */
  uint64_t *in, *out;       /* rows: cap x W */
  uint8_t *vk, *alive;      /* ADE__X/Z/Y per slot; live flag */
  long *id;                 /* vertex ids as the engine names them */
  uint32_t *csrc, *ctgt;    /* faces: c-graph vertices (junction points) */
  size_t njunc;             /* c-graph vertices */
  size_t n, m;
  uint32_t *xs, *ys;        /* slots of the independents and dependents */
  uint32_t *aux;            /* X slot: its column; Y slot: its row */
  long next_id;             /* faces: number of the next fill-in */
  size_t nlive;             /* live intermediate vertices */
  /* Undo: records (slot, alive, in row, out row) and a frame per step. */
  uint64_t *trail;
  size_t tlen, tcap;
  ade__undo *fr;
  size_t nfr, frcap;
  uint32_t *touched, stamp;
  /* Workspace of the lower bounds and keys. */
  uint8_t *thr;
  uint32_t *nxt, *prv, *par, *queue, *vis, *jmark, vstamp, jstamp;
  uint64_t *anc, *rowtmp, *color;  /* color: keys, and the face bound's chains */
  uint64_t *jset;                   /* face bound: claimed points and bounds per junction */
  uint32_t *order;
  double deadline;          /* the lower bounds stop here (ade__now(); 0: never) */
} ade__sg;

/* opt_graph.c */
int ade__sg_init(ade__sg *s, const ade_cgraph *g, int kind, size_t extra);
void ade__sg_free(ade__sg *s);
int ade__moves_push(ade__moves *v, uint32_t a, uint32_t b, uint32_t dir, uint32_t cost);
void ade__moves_free(ade__moves *v);
/* Append the applicable moves at the current state, sorted (or not) by
 * cost, then slots (ade__move_cmp). */
int ade__sg_moves(ade__sg *s, ade__moves *out, int sorted);
int ade__move_cmp(const ade__move *p, const ade__move *q);
int ade__sg_apply(ade__sg *s, const ade__move *mv, uint64_t *cost);
void ade__sg_undo(ade__sg *s);
int ade__sg_done(const ade__sg *s);
/* The step as the engine names it (call before applying the move). */
void ade__sg_step(const ade__sg *s, const ade__move *mv, ade_elim_step *st);
/* The canonical key of the state into *key (words, grown as needed). */
int ade__sg_key(ade__sg *s, uint64_t **key, size_t *cap, size_t *len);
/* Vertex and edge kinds: may the moves last and mv be swapped? (disjoint
 * neighbourhoods, so either order gives the same graph and cost); nb is
 * the neighbourhood of last recorded when it was applied (vertex kind). */
int ade__sg_independent(const ade__sg *s, const ade__move *last, const uint64_t *nb, const ade__move *mv);
/* Vertex kind: the neighbours of vertex a (in | out) into nb (W words). */
void ade__sg_neighbours(const ade__sg *s, uint32_t a, uint64_t *nb);
static inline int ade__bit(const uint64_t *row, size_t i) { return (int)((row[i >> 6] >> (i & 63)) & 1u); }
static inline size_t ade__popcount(const uint64_t *row, size_t W) {
  size_t c = 0;
#ifdef __POPCNT__
  for (size_t w = 0; w < W; w++) c += (size_t)__builtin_popcountll(row[w]);
#else /* without the instruction the builtin is a call to libgcc; this vectorizes */
  for (size_t w = 0; w < W; w++) {
    uint64_t x = row[w];
    x -= (x >> 1) & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    c += (size_t)((x * 0x0101010101010101u) >> 56);
  }
#endif
  return c;
}

/* opt_bound.c: a lower bound on the cost of completing the elimination,
 * stopping early once it reaches limit; past s->deadline, the sum of the
 * parts computed so far (still a lower bound, only weaker). */
uint64_t ade__sg_lower(ade__sg *s, uint64_t limit);

/* opt_table.c: a hash table from keys (word strings) to values. */
typedef struct ade__table {
  uint64_t *hash, *val;
  size_t *off;           /* key offset into arena, SIZE_MAX = empty */
  uint32_t *len;
  size_t cap, used;
  uint64_t *arena;
  size_t alen, acap;
  size_t limit;          /* bytes */
  int full;
} ade__table;
int ade__table_init(ade__table *t, size_t limit);
void ade__table_free(ade__table *t);
/* Find key; 1 and *val if present. */
int ade__table_get(const ade__table *t, const uint64_t *key, size_t len, uint64_t *val);
/* Insert or overwrite. ADE_OK, ADE_ENOMEM, or ADE_ETOOBIG when the byte limit is reached. */
int ade__table_put(ade__table *t, const uint64_t *key, size_t len, uint64_t val);

/* Limits and progress, shared by the searches. */
typedef struct ade__clock {
  double t0, deadline, next_report, interval;
  uint64_t node_limit;
  const ade_opt_limits *lim;
} ade__clock;
void ade__clock_start(ade__clock *c, const ade_opt_limits *lim);
/* ADE_EINVAL naming who for a time limit or progress interval that is
 * negative or NaN (as ade_elim_order_with), else ADE_OK. */
int ade__limits_check(const ade_opt_limits *lim, const char *who);
int ade__clock_expired(const ade__clock *c, uint64_t nodes);
/* A clock for a first phase of a search (its start): the fraction frac of
 * the time left on c, no node limit. */
void ade__clock_part(const ade__clock *c, double frac, ade__clock *part);
/* The time limit of a sub-search given the fraction frac of the time left
 * on c (0: no limit; a sliver if none is left). */
double ade__clock_share(const ade__clock *c, double frac);
void ade__clock_report(ade__clock *c, int method, int kind, uint64_t inc, uint64_t bound, uint64_t nodes,
                       uint64_t cuts);
/* *q: c without progress reports (its limits copied to *ql), for a search
 * off the calling thread. */
void ade__clock_quiet(const ade__clock *c, ade__clock *q, ade_opt_limits *ql);

/* opt_common.c */
/* The best heuristic sequence for the kind; clk (may be NULL) bounds its
 * time: the orderings that rescan their candidates are dropped and the
 * hierarchies completed cheaply when it expires. It may be of a less
 * general kind than asked (the same cost; ade__seq_to_kind converts). */
int ade__opt_heuristic(const ade_cgraph *g, int kind, const ade__clock *clk, int threads, ade_elim_seq **best);
int ade__seq_finish(const ade_cgraph *g, ade_elim_seq *s, uint64_t *cost);
/* The key of a part's graph h into *key (grown as needed; *len words):
 * sizes, vertex kinds in order, edges (local ends) in order. Two graphs
 * with equal keys are equal up to the order-preserving map of their
 * vertices, so one sequence fits both. */
int ade__part_key(const ade_cgraph *h, uint64_t **key, size_t *cap, size_t *len);
/* "vertex", "edge", "face" ("such" for another kind). */
const char *ade__opt_kind_name(int kind);
/* A sequence of the kind from steps. */
int ade__seq_from_steps(int kind, const ade_elim_step *st, size_t n, ade_elim_seq **s);

/* The methods (each file). r is zeroed and filled; *seq bound and costed by the caller. */
int ade__opt_exhaustive(const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **seq,
                        ade_opt_report *r);
/* The exhaustive search, with or without bounds; check counts the states
 * whose lower bound exceeds their exact cost (the tests' check of the bound). */
int ade__exhaustive(const ade_cgraph *g, int kind, const ade_opt_limits *l, int bound, int check,
                    ade_elim_seq **seq, ade_opt_report *r, uint64_t *violations);
int ade__opt_bnb(const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **seq,
                 ade_opt_report *r);
/* clk (may be NULL): when it expires, the remaining targets are taken in
 * forward order without rescanning, and *limited (may be NULL) is set.
 * Once the hierarchy's cost exceeds that of the vertex sweep in the
 * cheaper vector mode's direction (reverse when m < n), that sweep is
 * returned instead (in the kind; doc/optimizers.md). */
int ade__opt_hierarchy(const ade_cgraph *g, int kind, const char *spec, const ade__clock *clk, ade_elim_seq **seq,
                       int *limited);
/* The hierarchy's own sequence, without the comparison with the sweep;
 * keys kept incrementally in a heap, or with scan 1 the reference that
 * rescans every target at each step (the tests check both choose alike);
 * scan ADE__ORDER_AUDIT: incremental, faces with the queue checked after
 * every step against every tuple computed from scratch (ADE_EINVAL if an
 * entry is missing or above its tuple). */
int ade__opt_hierarchy_raw(const ade_cgraph *g, int kind, const char *spec, const ade__clock *clk, int scan,
                           ade_elim_seq **seq, int *limited);
int ade__opt_anneal(const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **seq,
                    ade_opt_report *r);
int ade__opt_dp(const ade_cgraph *g, int method, ade_elim_seq **seq, uint64_t *cost);

/* Default hierarchy of a kind. */
const char *ade__hier_default(int kind);
/* 1 (the default): the default edge hierarchy queues the start's tuples
 * sorted once (a run) besides its heap; 0: the heap alone; -1: the
 * heap after a sort whose result is rejected (tests). */
extern int ade__hier_run;

#endif
