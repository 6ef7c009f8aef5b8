/* elim_internal.h: the graph shared by c-graphs and dual c-graphs, and the elimination internals. */
#ifndef ADE_ELIM_INTERNAL_H
#define ADE_ELIM_INTERNAL_H

#include "common_internal.h"

/* The ceiling of an ordering run beside others in threads (order.c,
 * "portfolio"): bar, lowered (relaxed atomics) as the runs before it
 * finish, replaces the fixed ceiling; seen, written by the run's own
 * thread, is the largest cost-plus-bound it compared with bar. */
typedef struct ade__live {
  uint64_t bar, seen;
} ade__live;
/* Whether lb (the cost so far plus a lower bound of the rest) reaches the
 * ceiling (0: none), or live's bar. */
static inline int ade__reached(ade__live *live, uint64_t ceiling, uint64_t lb) {
  if (!live) return ceiling && lb >= ceiling;
  if (lb > live->seen) live->seen = lb;
  return lb >= __atomic_load_n(&live->bar, __ATOMIC_RELAXED);
}

/* Vertex kinds: minimal (independent), intermediate, maximal (dependent). */
enum { ADE__X = 0, ADE__Z = 1, ADE__Y = 2 };

#define ADE__NONE SIZE_MAX
/* An ordering stopped at its cost ceiling (ade_cgraph.ceiling): a positive
 * internal status, never returned by the public API. */
#define ADE__CUT 1
/* A structure-only ordering declined the graph (vmark.c): the caller runs
 * the graph engine's instead. Internal, positive, like ADE__CUT. */
#define ADE__FALLBACK 2

/* A vertex: its id, kind and adjacency (edge indices, unordered). In a
 * dual, val is the label and csrc/ctgt name the c-graph vertices the
 * vertex leads from and to (a fill-in k' of face (i, j) leads from
 * csrc(i) to ctgt(j)), so every face (i, j) passes through ctgt(i). */
typedef struct ade__vtx {
  long id;
  int kind, alive;
  size_t aux;          /* X: column, Y: row */
  double val;
  long csrc, ctgt;
  size_t *in, *out;
  size_t nin, nout, capin, capout;
} ade__vtx;

/* An edge: endpoints (vertex indices; src == ADE__NONE when the slot is
 * free), its positions in src's out-list and dst's in-list, label, number. */
typedef struct ade__edge {
  size_t src, dst, pout, pin;
  double val;
  long id;
} ade__edge;

/* Adjacency lists of a graph up to ADE__POOL_MAX entries: blocks of 2^k
 * entries carved from chunks; a list given back goes onto the free list
 * of its class and is reused, so an elimination calls no malloc or free
 * per list. The chunks are freed with the graph. */
#define ADE__POOL_CLASSES 9
#define ADE__POOL_MAX ((size_t)1 << (ADE__POOL_CLASSES - 1))
typedef struct ade__lpool {
  size_t *bin[ADE__POOL_CLASSES]; /* free blocks of 2^k entries, linked through their first entry */
  size_t **chunk, nchunk, chunkcap;
  size_t *cur, left;              /* the current chunk's unused entries */
} ade__lpool;
struct ade_cgraph {
  int dual;
  size_t nv, vcap, nalive;      /* vertices; ids ascend with the index */
  ade__vtx *v;
  size_t eslots, ecap, nedges;  /* edge slots, live edges */
  ade__edge *e;
  size_t efree;                 /* free slot list through .dst */
  size_t *htab, hcap, hused;    /* (src, dst) -> edge index + 1; linear probing */
  int noindex;                  /* no htab (a dual): ade__graph_find scans the shorter list */
  size_t n, m;
  size_t *xv, *yv;              /* vertex index of independent j / dependent i */
  long next_edge_id, next_vertex_id;
  unsigned *mark;               /* workspace for set comparisons */
  unsigned stamp;
  size_t markcap;
  /* Counters: executed multiply-adds (incremented where they happen), fill-in, absorption, merges. */
  uint64_t fma, fill, absorbed, merged;
  /* Orderings on a working copy: stop with ADE__CUT once fma reaches it
   * (the sequence cannot beat one of that cost); 0: no ceiling. */
  uint64_t ceiling;
  struct ade__live *live;       /* non-NULL: the ceiling is live->bar (order.c's threads) */
  /* An ordering's working copy or dual: cut, the cut bounds of the graph
   * it came from (ade__cut_bounds; NULL: none). lb (a vertex or edge
   * ordering's copy with a ceiling, every intermediate with predecessors
   * and successors, which vertex and edge eliminations keep so): lb[j] a
   * lower bound on the faces still to come with intermediate j in the
   * middle (its cut bound less the faces taken there, at least 1; 0 once
   * gone), lbrest their sum, a lower bound on the cost of every
   * completion (graph.c's deletions and eliminate.c keep it). */
  const uint8_t *cut;
  uint8_t *lb;
  uint64_t lbrest;
  struct ade__planrec *rec;     /* non-NULL: record each arithmetic step (plan.c) */
  size_t *slab, nslab;          /* a copy's or a dual's adjacency lists in one block
                                   (ade_cgraph_copy, ade_cgraph_dual): a list in it is
                                   moved out when it grows, its room reused by the pool */
  ade__lpool pool;              /* the other lists up to ADE__POOL_MAX entries (graph.c) */
  size_t memlimit;              /* the memory limit of the tape it came from
                                   (ade__budget); SIZE_MAX: none */
  size_t dropped;               /* tape operations not on an X -> Y path (from a tape) */
  uint64_t fp;                  /* ade__graph_fingerprint once computed, 0: not yet; every
                                   change of the structure (graph.c) clears it */
  struct ade__watch *watch;     /* an ordering's working copy: its progress (NULL: none) */
};

/* Progress reports of an ordering (ade_order_progress): its step loops
 * count their steps in p (ade__watch_step, through ade_cgraph.watch on a
 * working copy), and every 1024th step reads the clock; fn is called once
 * interval seconds have passed since the last report (or the start). */
typedef struct ade__watch {
  ade_order_progress_fn fn;
  void *ud;
  double t0, next, interval;
  uint64_t outer; /* the caller's best so far (ADE_ELIM_AUTO's), in p.best too */
  ade_order_progress p;
} ade__watch;
/* w for method, reporting to fn (NULL: none; then w stays unused). */
void ade__watch_start(ade__watch *w, int method, ade_order_progress_fn fn, void *ud, double interval);
void ade__watch_poll(ade__watch *w, uint64_t cost);
static inline void ade__watch_step(ade__watch *w, uint64_t cost) {
  if (w && !(++w->p.steps & 1023)) ade__watch_poll(w, cost);
}

/* The arithmetic of an elimination as a straight-line program over value
 * slots (an edge's number in a c-graph, a vertex's id in a dual), recorded
 * by the engines while a plan is compiled (plan.c). */
enum { ADE__P_SET = 0, ADE__P_FMA = 1, ADE__P_ADD = 2 }; /* d = a b; d += a b; d += a */
typedef struct ade__planrec {
  uint8_t *kind;
  size_t *d, *a, *b;
  size_t n, cap;
  size_t memlimit;  /* of the graph compiled (ade__budget) */
} ade__planrec;
int ade__plan_push(ade__planrec *r, int kind, long d, long a, long b);
/* Room for k more steps (NULL r: nothing to do). */
int ade__plan_reserve(ade__planrec *r, size_t k);
/* Frees r's steps and zeroes it. */
void ade__plan_rec_free(ade__planrec *r);

/* A compiled plan's parts, read-only, for code generation (codegen.c):
 * the partials of the tape's operands (in linearized order, chunk_ops[c]
 * per chunk) go to slots init[k] (0: none) of slots 1..ninit, zeroed
 * first; prog runs on the slots; entry k of J (rowptr, col) is slot out[k]. */
typedef struct ade__planinfo {
  uint64_t records, fma;
  size_t nchunks, ninit, nslot, m, n, nnz;
  const size_t *chunk_ops, *init, *rowptr, *col, *out;
  const ade__planrec *prog;
  int method;       /* the ordering it was compiled by, -1: a given sequence */
  size_t nbatch;    /* lane groups run (plan.c): batches of components sharing one template */
} ade__planinfo;
void ade__plan_info(const ade_elim_plan *p, ade__planinfo *info);
/* ade_plan_codegen, writing loops over tables for plans of more than
 * table_at statements of straight-line code (codegen.c). */
int ade__plan_codegen(const ade_elim_plan *p, ade_tape *t, const char *fname, void *file, size_t table_at);

struct ade_elim_seq {
  int kind;
  size_t len, cap;
  ade_elim_step *step;
  uint64_t cost;
  uint64_t fingerprint; /* ade__graph_fingerprint of the graph it was built for, 0 = any */
  uint64_t checked;     /* nonzero: the ade__graph_fingerprint of the graph (faces: the dual)
                         * it was built on by applying every step, which ended complete, cost
                         * the engines' count; ade_seq_push clears it */
  /* The Jacobian that building it left (ade__seq_keep_result), for
   * ade_jacobian on that same graph; ade_seq_push drops it. */
  ade_sparse *jac;
  uint64_t jac_key;
  size_t jac_fill, jac_absorbed, jac_merged;
};
/* Keep in s the Jacobian of w, a copy of g (faces: its dual) that s
 * eliminated completely, step by step with the engines, so that
 * ade_jacobian on g itself (the same object, structure and values) reads
 * it off instead of eliminating again: the same arithmetic in the same
 * order, so the same numbers. */
int ade__seq_keep_result(ade_elim_seq *s, const ade_cgraph *g, const ade_cgraph *w);
/* s's kept Jacobian, copied into *J (1), if it was kept for g as it is
 * now; else 0 and *J untouched. */
int ade__seq_kept_result(const ade_elim_seq *s, const ade_cgraph *g, ade_sparse **J, int *st);

/* Graph primitives (graph.c). */
int ade__graph_init(ade_cgraph *g, int dual, size_t nv_hint, size_t ne_hint);
int ade__graph_add_vertex(ade_cgraph *g, long id, int kind, size_t *idx);
/* The edge index (graph.c): linear probing over entries that hold edge
 * number + 1 in their low ADE__HBITS bits and the low ADE__TBITS bits of
 * the key's hash (ade__hmix) above them. */
#define ADE__HBITS 36
#define ADE__TBITS 28
static inline uint64_t ade__hmix(size_t src, size_t dst) {
  uint64_t z = (uint64_t)src * 0x9e3779b97f4a7c15ull + (uint64_t)dst * 0xc2b2ae3d27d4eb4full;
  return z ^ (z >> 32);
}
/* Edge (src, dst) by a scan of the shorter of src's out-list and dst's in-list. */
size_t ade__graph_scan_find(const ade_cgraph *g, size_t src, size_t dst);
/* Edge (src, dst) or ADE__NONE (inline: the orderings ask millions of times). */
static inline size_t ade__graph_find(const ade_cgraph *g, size_t src, size_t dst) {
  if (g->noindex) return ade__graph_scan_find(g, src, dst);
  if (!g->hcap) return ADE__NONE;
  uint64_t z = ade__hmix(src, dst), tag = z & ((UINT64_C(1) << ADE__TBITS) - 1);
  for (size_t h = (size_t)z & (g->hcap - 1);; h = (h + 1) & (g->hcap - 1)) {
    size_t x = g->htab[h];
    if (!x) return ADE__NONE;
    if ((uint64_t)x >> ADE__HBITS != tag) continue;
    size_t e = (size_t)((uint64_t)x & ((UINT64_C(1) << ADE__HBITS) - 1)) - 1;
    if (g->e[e].src == src && g->e[e].dst == dst) return e;
  }
}
/* The triangles u -> p -> w of g, walked along the shorter of S_u and P_w:
 * ade__tri_len of them to try (0 if u or w is dead); ade__tri_at gives the
 * k-th candidate's p and its edges (u, p), (p, w), or 0 if it closes none. */
static inline size_t ade__tri_len(const ade_cgraph *g, size_t u, size_t w) {
  const ade__vtx *U = &g->v[u], *W = &g->v[w];
  return !U->alive || !W->alive ? 0 : W->nin <= U->nout ? W->nin : U->nout;
}
static inline int ade__tri_at(const ade_cgraph *g, size_t u, size_t w, size_t k, size_t *p, size_t *e1, size_t *e2) {
  const ade__vtx *U = &g->v[u], *W = &g->v[w];
  int byin = W->nin <= U->nout;
  *p = byin ? g->e[W->in[k]].src : g->e[U->out[k]].dst;
  *e1 = byin ? ade__graph_find(g, u, *p) : U->out[k];
  *e2 = byin ? W->in[k] : ade__graph_find(g, *p, w);
  return *e1 != ADE__NONE && *e2 != ADE__NONE;
}
int ade__graph_add_edge(ade_cgraph *g, size_t src, size_t dst, double val, size_t *eidx);
/* Edge (src, dst) into *eidx: 1 if it exists, else added with label val
 * (ADE_OK) or an error: ade__graph_find, then ade__graph_add_edge, with
 * one probe of the index. */
int ade__graph_find_add(ade_cgraph *g, size_t src, size_t dst, double val, size_t *eidx);
void ade__graph_del_edge(ade_cgraph *g, size_t e);
void ade__graph_del_vertex(ade_cgraph *g, size_t v);
size_t ade__graph_vertex(const ade_cgraph *g, long id);
/* ade__graph_vertex with its first test inline: a vertex at its id's
 * offset from the first (the ids of a c-graph from a tape are dense). */
static inline size_t ade__graph_vertex_at(const ade_cgraph *g, long id) {
  if (g->nv && id >= g->v[0].id && (unsigned long)id - (unsigned long)g->v[0].id < g->nv) {
    const ade__vtx *v = &g->v[(unsigned long)id - (unsigned long)g->v[0].id];
    if (v->id == id) return v->alive ? (size_t)(v - g->v) : ADE__NONE;
  }
  return ade__graph_vertex(g, id);
}
int ade__graph_marks(ade_cgraph *g);
/* Reservations, so that an elimination step allocates everything before it
 * changes the graph: a step that fails with ADE_ENOMEM leaves it as it was.
 * ade__graph_reserve: nv more vertices (marks included) and ne more edges;
 * ade__graph_reserve_adj: nin more in-edges and nout more out-edges of i. */
int ade__graph_reserve_slow(ade_cgraph *g, size_t nv, size_t ne);
/* The memory a graph of nv vertices and ne edge slots is charged for
 * (ade__budget): each edge also takes two index slots (load <= 1/2) and
 * two adjacency entries, each vertex a mark. */
static inline size_t ade__graph_bytes(size_t nv, size_t ne) {
  size_t bv = ade__mul_size(nv, sizeof(ade__vtx) + sizeof(unsigned));
  size_t be = ade__mul_size(ne, sizeof(ade__edge) + 4 * sizeof(size_t));
  return bv > SIZE_MAX - be ? SIZE_MAX : bv + be;
}
/* Inline when nothing grows (every elimination step asks): then only the
 * budget of the graph as it is. */
static inline int ade__graph_reserve(ade_cgraph *g, size_t nv, size_t ne) {
  /* with the room there (marks_cover's test for the marks), as the slow path would find */
  if ((!nv || (g->vcap - g->nv >= nv && g->markcap > g->nv + nv)) && g->ecap - g->eslots >= ne &&
      (g->noindex || (g->hused + ne) * 2 <= g->hcap) &&
      !ade__over_budget(g->memlimit, ade__graph_bytes(g->vcap, g->ecap)))
    return ADE_OK;
  return ade__graph_reserve_slow(g, nv, ne);
}
int ade__graph_grow_adj(ade_cgraph *g, size_t i, size_t nin, size_t nout);
static inline int ade__graph_reserve_adj(ade_cgraph *g, size_t i, size_t nin, size_t nout) {
  const ade__vtx *v = &g->v[i]; /* inline: an elimination reserves at every neighbour, mostly with room */
  return v->capin - v->nin >= nin && v->capout - v->nout >= nout ? ADE_OK : ade__graph_grow_adj(g, i, nin, nout);
}
/* Give vertex i's lists back (they become empty, with no room). */
void ade__graph_drop_lists(ade_cgraph *g, size_t i);
/* width fresh mark values s, s+1, ..., s+width-1 (inline: the twin
 * search of every face step and face key takes one). */
static inline unsigned ade__graph_stamp(ade_cgraph *g, unsigned width) {
  if (g->stamp > UINT32_MAX - width - 1) {
    memset(g->mark, 0, g->markcap * sizeof *g->mark);
    g->stamp = 1;
  }
  unsigned s = g->stamp;
  g->stamp += width;
  return s;
}
uint64_t ade__graph_fingerprint(const ade_cgraph *g);
/* The same, computed afresh (the reference the tests compare with). */
uint64_t ade__graph_fingerprint_fresh(const ade_cgraph *g);

/* Face elimination internals (face.c). */
size_t ade__dual_twin(ade_cgraph *d, size_t pv, size_t sv, size_t exclude);
int ade__face_step(ade_cgraph *d, size_t a, size_t b);
/* ade__face_step for the face in edge slot f of dual d (a live face). */
int ade__face_step_at(ade_cgraph *d, size_t f);
/* ade__face_step_at; twin 0: the caller knows that the face does not
 * absorb (no vertex k has P_k = P_a, S_k = S_b), and it is not searched
 * for; kept[0] (kept[1]): the vertex that stays of the face's first
 * (second) end and a twin it merged with (the end or the twin),
 * ADE__NONE without a merge (also on an error). */
int ade__face_step_kept(ade_cgraph *d, size_t f, int twin, size_t kept[2]);

/* Steps by vertex index (eliminate.c); cost is what the rule says. */
int ade__elim_vertex_ix(ade_cgraph *g, size_t j, uint64_t *cost);
int ade__elim_edge_ix(ade_cgraph *g, size_t e, int dir, uint64_t *cost);
int ade__seq_apply_step(ade_cgraph *g, int kind, const ade_elim_step *st, uint64_t *cost);
/* ade_jacobian and its kin (cgraph.c): the c-graph of t, with the report's
 * before-figures (dropped, vertices/edges before, dense costs). */
int ade__graph_from_tape(ade_tape *t, ade_cgraph **g, ade_jacobian_report *r);
/* The labels of g's edges (g fresh from tape t: not eliminated) at x (NULL:
 * the recorded point) into lab[1 .. |E|] by edge number (lab[0] unused).
 * @return ADE_OK, ADE_WBRANCH (labels complete: a recorded comparison
 * differs at x), ADE_EINVAL, ADE_ENOMEM, tape read errors. */
int ade__cgraph_labels_at(ade_tape *t, const ade_cgraph *g, const double *x, double *lab);
/* Plans (plan.c): another reference to p; the report of its creation. */
void ade__plan_retain(ade_elim_plan *p);
const ade_jacobian_report *ade__plan_report(const ade_elim_plan *p);

/* Methods (auto.c): an ordering, ADE_ELIM_AUTO or ADE_ELIM_CPR_*. The
 * choice for g: an elimination sequence (ours, or the caller's o->seq), or
 * CPR's pattern and coloring; cost: its fma (counted or predicted exactly). */
#define ADE__AUTO_BITS ((size_t)64 << 20) /* auto's reachability bitsets at most */
typedef struct ade__choice {
  int method;                 /* an ordering, ADE_ELIM_CPR_*; -1: o->seq */
  uint64_t cost;
  ade_elim_seq *seq;          /* the ordering's, freed with the choice */
  const ade_elim_seq *given;  /* o->seq */
  ade_sparse *P;              /* CPR: J's pattern, the coloring of its */
  size_t *color, ncolors;     /* columns (forward) or rows (reverse) */
  int limited;                /* the ordering reached o->time_limit */
} ade__choice;
int ade__method_valid(int method);
int ade__choose(const ade_cgraph *g, int method, const ade_jacobian_options *o, ade__choice *c);
void ade__choice_free(ade__choice *c);
static inline int ade__choice_cpr(const ade__choice *c) {
  return c->method == ADE_ELIM_CPR_FORWARD || c->method == ADE_ELIM_CPR_REVERSE;
}

/* Converters (sequence.c): a vertex sequence as the equivalent edge
 * sequence (Rule 3) and face sequence, by simulation on copies. */
int ade__seq_vertex_to_edge(const ade_cgraph *g, const ade_elim_seq *vs, ade_elim_seq **es);
int ade__seq_vertex_to_face(const ade_cgraph *g, const ade_elim_seq *vs, ade_elim_seq **fs);
/* An edge sequence as the equivalent face sequence (front/back elimination
 * of an edge = its faces out of/into its dual vertex); *fill (may be NULL)
 * gets its fill-in. */
int ade__seq_edge_to_face(const ade_cgraph *g, const ade_elim_seq *es, ade_elim_seq **fs, uint64_t *fill);
/* An upper bound on the face eliminations of any complete face sequence
 * (Lemma 4: the sum over X-Y paths of their lengths in faces), capped. */
uint64_t ade__face_room(const ade_cgraph *g, uint64_t cap);
/* The live intermediate vertices of dual d by the c-graph vertex (index in
 * g) they end at: first[j], then next[u] (dead ones stay listed; skip
 * them). Sync after face steps: it adds the vertices from seen on (new
 * fill-ins), in front. */
typedef struct ade__dual_index {
  size_t *first, *next, cap, seen;
} ade__dual_index;
int ade__dual_index_init(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d);
int ade__dual_index_sync(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d);
/* The head of j's list after unlinking its dead vertices (walks that come
 * back to a vertex again and again stay linear in the live ones). */
size_t ade__dual_index_live(ade__dual_index *x, const ade_cgraph *d, size_t j);
void ade__dual_index_free(ade__dual_index *x);
/* Whether an intermediate face of d passes through c-graph vertex j
 * (index in g): a live dual vertex ending at j with an intermediate
 * successor. */
int ade__dual_has_face(ade__dual_index *x, const ade_cgraph *d, size_t j);
/* The c-graph vertices with an intermediate face of dual d through them:
 * face[j] their share of a lower bound on the cost still to come (their
 * cut bound, d->cut, less the faces taken through j, at least 1; 0: no
 * face left), rest the sum. A face step through c-graph vertex j never
 * adds such a vertex and can only take away j, and a complete face
 * sequence leaves none: so each step costs 1 fma and lowers rest by at
 * most 1, and cost + rest is a lower bound on the final cost
 * (doc/elimination.md, "Never worse than what they generalize", "Cut
 * bounds"). */
typedef struct ade__faced {
  ade__dual_index x;
  uint8_t *face;
  size_t rest;
} ade__faced;
int ade__faced_init(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d);
/* After a face step through c-graph vertex id c (ctgt of its first dual vertex). */
int ade__faced_step(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d, long c);
/* The same with rk[u], the index in g of the ctgt of each live intermediate
 * dual vertex u (kept by the caller, instead of looking them up; NULL:
 * looked up), and the index j of c. */
int ade__faced_init_rk(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d, const uint32_t *rk);
int ade__faced_step_rk(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d, size_t j, const uint32_t *rk);
void ade__faced_free(ade__faced *F);
/* All faces of dual d through c-graph vertex c (appended to s). */
int ade__dual_faces_through(const ade_cgraph *d, long c, ade_elim_seq *s);

/* Orderings (order.c) and connected components (component.c). */
/* ade_elim_order without its checks. The greedy edge and face orderings
 * and the face sweeps look at the clock: at deadline (ade__now() seconds;
 * 0: none) they stop with ADE_ELIMIT if limited is NULL, else they complete
 * the sequence in forward order and set *limited = 1. */
int ade__elim_order(const ade_cgraph *g, int order, double deadline, ade_elim_seq **sp, int *limited);
/* ade__elim_order with the winner left in its own kind (a generalized
 * ordering's vertex or edge sequence, same cost): what ade_jacobian and
 * plans apply. */
int ade__elim_order_native(const ade_cgraph *g, int order, double deadline, ade_elim_seq **sp, int *limited);
/* Either of the two (native or not) with progress reports to w (may be NULL). */
int ade__elim_order_watched(const ade_cgraph *g, int order, double deadline, int native, int threads, ade__watch *w,
                            ade_elim_seq **sp, int *limited);
/* *sp converted up to kind (vertex -> edge -> face) at the same cost (order.c). */
int ade__seq_to_kind(const ade_cgraph *g, ade_elim_seq **sp, int kind, uint64_t *fill);
/* The ordering's own choices, without the comparison with the ordering it
 * generalizes, on the whole of g; scan: the reference implementation that
 * rescans every candidate at each step (the tests check that both give
 * the same sequence); ADE__ORDER_AUDIT (edge-markowitz, edge-fillin, face-greedy):
 * the queue, checked after every step against every key computed from
 * scratch (ADE_EINVAL if an entry is missing or above its key). */
#define ADE__ORDER_AUDIT 2
int ade__order_raw(const ade_cgraph *g, int order, int scan, ade_elim_seq **sp);
/* As ade__order_raw, stopped with ADE__CUT (nothing returned) once the
 * sequence's cost is known to reach ceiling (UINT64_MAX: none; sooner
 * with cut, g's cut bounds, may be NULL), and with ADE_ELIMIT at deadline
 * (0: none; ade__now's clock). */
int ade__order_capped(const ade_cgraph *g, int order, int scan, uint64_t ceiling, double deadline,
                      const uint8_t *cut, ade_elim_seq **sp);
/* The first ceiling of the edge and face orderings and the hierarchies:
 * the counted vertex sweep of the cheaper vector mode's direction
 * (reverse when m < n) and, where the other direction costs about as
 * much to count (ade__both_sweeps), that one too; the cheaper (ties: the
 * first). */
int ade__vector_sweep(const ade_cgraph *g, ade_elim_seq **sp);
/* Whether ade__vector_sweep counts both directions: g's index order is
 * topological and the other direction's sources are at most 64 (one
 * batch of reach sets) or at most twice the first's. */
int ade__both_sweeps(const ade_cgraph *g);
/* The exact period of the records of t's first prefix records (parts.c):
 * from record *start on, blocks of *period records repeat (both 0: none
 * found). */
int ade__parts_period(ade_tape *t, size_t prefix, size_t *start, size_t *period);
int ade__cgraph_components(const ade_cgraph *g, size_t *comp, size_t *ncomp);

/* The parts of a c-graph: its components once the vertices of the shared
 * kinds (a bit 1 << ADE__X, 1 << ADE__Y per kind) are taken out, each with
 * the shared vertices it has edges to. Vertex lists are in index order,
 * edge lists in edge-number order; edges between shared vertices are in no
 * part. With nz < 2 only comp, lix, hasz and nz are filled. */
typedef struct ade__part {
  size_t ncomp, nz;       /* components; those with an intermediate vertex */
  size_t *comp, *lix;     /* per vertex: component (ADE__NONE if shared), index in its part's graph */
  size_t *vstart, *vlist; /* part c: vertices vlist[vstart[c] .. vstart[c+1]) by index */
  size_t *estart, *elist; /* part c: edge slots elist[estart[c] ..] by edge number */
  size_t *rank;           /* per edge slot: 1-based rank by edge number (dual vertex id) */
  char *hasz;
} ade__part;
int ade__part_split(const ade_cgraph *g, int share, ade__part *P);
void ade__part_free(ade__part *P);
/* The c-graph of part c (same vertex ids and kinds; edges in order, so its
 * edge k is its dual's vertex k). */
int ade__part_graph(const ade_cgraph *g, ade__part *P, size_t c, ade_cgraph **h);
/* Append part c's sequence cs (on h = its graph) to s, renumbering face
 * steps into g's dual, its fill-ins numbered from fill0. */
int ade__part_append(const ade_cgraph *g, const ade_cgraph *h, const ade__part *P, size_t c, const ade_elim_seq *cs,
                     long fill0, ade_elim_seq *s);
/* Bind s to g, or for a face sequence to g's dual. */
int ade__seq_bind_whole(const ade_cgraph *g, ade_elim_seq *s);

/* Key tuples (pqueue.c) compared lexicographically (ties are part of the
 * key, so the order is total), with an index. */
#define ADE__PQ_KEYS 5
typedef struct ade__pqent {
  long k[ADE__PQ_KEYS];
  size_t x;
} ade__pqent;
int ade__pq_less(const long *x, const long *y);
/* An indexed min-heap (pqueue.c): at most one entry per index, whose key
 * is set in place (a key that did not change costs one comparison), so
 * the heap holds no stale entries and stays as large as the candidates. */
typedef struct ade__ipq {
  ade__pqent *a;
  size_t n, cap;
  size_t *pos; /* per index: its place in a, SIZE_MAX if not queued */
  size_t pcap;
} ade__ipq;
int ade__ipq_set(ade__ipq *q, const long *key, size_t x); /* insert or change */
/* A bulk build in linear time: entries appended (x not queued) in any
 * order, then ade__ipq_heapify before any other call. */
int ade__ipq_append(ade__ipq *q, const long *key, size_t x);
void ade__ipq_heapify(ade__ipq *q);
void ade__ipq_del(ade__ipq *q, size_t x);                 /* if queued */
int ade__ipq_pop(ade__ipq *q, ade__pqent *top);            /* 0 if empty */
void ade__ipq_free(ade__ipq *q);
/* The same indexed heap over keys of two words compared as one 128-bit
 * number (hi, then lo): half the size of an ade__pqent, one or two
 * comparisons; for orderings whose key tuple packs into 128 bits. */
typedef struct ade__pk {
  uint64_t hi, lo;
} ade__pk;
typedef struct ade__pkent {
  ade__pk k;
  size_t x;
} ade__pkent;
typedef struct ade__pkq {
  ade__pkent *a;
  size_t n, cap;
  size_t *pos, pcap;
} ade__pkq;
int ade__pkq_set(ade__pkq *q, ade__pk key, size_t x); /* insert or change */
int ade__pkq_append(ade__pkq *q, ade__pk key, size_t x); /* as ade__ipq_append */
void ade__pkq_heapify(ade__pkq *q);
void ade__pkq_del(ade__pkq *q, size_t x);             /* if queued */
int ade__pkq_pop(ade__pkq *q, ade__pkent *top);        /* 0 if empty */
void ade__pkq_free(ade__pkq *q);
/* Whether x has an entry in q. */
static inline int ade__pkq_queued(const ade__pkq *q, size_t x) { return x < q->pcap && q->pos[x] != SIZE_MAX; }
/* A bucket queue over the same two-word keys (elim/bkq_inline.h), for
 * keys whose high word packs a small signed number (offset 2^31) above a
 * small count, as E_LF's (fill-in + 2^31, cost): a key with the upper half
 * of hi in [2^31 - 32, 2^31 + 32) and the lower half below 64 goes to one
 * of 4096 buckets, in hi order; the nonempty buckets are bits of a
 * two-level bitmap; other keys go to the two-word heap over. A bucket
 * holds (lo, x) in a run sorted by lo (the bulk build's entries, when
 * they come sorted; an entry taken out leaves a hole) and a 4-ary heap
 * (the others). The same order as an ade__pkq (hi, then lo). */
#define ADE__BKQ_N 4096
typedef struct ade__bkent {
  uint64_t lo;
  size_t x;
} ade__bkent;
typedef struct ade__bkheap {
  ade__bkent *a, *r; /* the heap; the run (x = SIZE_MAX: a hole) */
  size_t n, cap, rc, rn, rcap, live; /* heap entries; the run's first place, length, entries */
} ade__bkheap;
typedef struct ade__bkq {
  ade__bkheap *b;                             /* ADE__BKQ_N buckets, or NULL */
  uint64_t word[ADE__BKQ_N / 64], top;        /* nonempty buckets; nonzero words */
  size_t *pos;                                /* x's place in its bucket's heap, or ADE__BKQ_RUN | its place in the run */
  uint32_t *bk;                               /* x's bucket, ADE__BKQ_N: over, UINT32_MAX: none */
  size_t pcap;
  ade__pkq over;
} ade__bkq;
#define ADE__BKQ_RUN ((size_t)1 << (sizeof(size_t) * 8 - 1))
int ade__bkq_set(ade__bkq *q, ade__pk key, size_t x); /* insert or change */
int ade__bkq_append(ade__bkq *q, ade__pk key, size_t x); /* x not queued; then ade__bkq_heapify */
int ade__bkq_heapify(ade__bkq *q); /* ADE_ENOMEM (a run out of order needs its heap) */
void ade__bkq_del(ade__bkq *q, size_t x);             /* if queued */
int ade__bkq_pop(ade__bkq *q, ade__pkent *top);        /* 0 if empty */
void ade__bkq_free(ade__bkq *q);
static inline int ade__bkq_queued(const ade__bkq *q, size_t x) { return x < q->pcap && q->bk[x] != UINT32_MAX; }
/* A growable list of indices. */
typedef struct ade__ix {
  size_t *a, n, cap;
} ade__ix;
/* Room for one more (doubling); ade__ix_push appends v, inline: the
 * orderings push a few entries per step. */
int ade__ix_grow(ade__ix *b);
static inline int ade__ix_push(ade__ix *b, size_t v) {
  int st = b->n == b->cap ? ade__ix_grow(b) : ADE_OK;
  if (!st) b->a[b->n++] = v;
  return st;
}
/* The twins K of dual vertex v on one side (the intermediates k != v with
 * P_k = P_v (out) or S_k = S_v), and whether some k in K has S_k = S_w
 * (out) or P_k = P_w: face (v, w) (or (w, v)) absorbs iff it does. One
 * twin search for all of v's faces (face.c). */
int ade__dual_same_side(ade_cgraph *d, size_t v, int out, ade__ix *K);
/* Whether v certainly has no twin on that side, K empty without a search:
 * its first predecessor (out; else successor) has v as its only
 * successor (predecessor), and every twin would share it; or v has none.
 * The search starts with it; inline, a caller skips the call. */
static inline int ade__dual_lone(const ade_cgraph *d, size_t v, int out) {
  const ade__vtx *V = &d->v[v];
  if (!(out ? V->nin : V->nout)) return 1;
  const ade__vtx *p = &d->v[out ? d->e[V->in[0]].src : d->e[V->out[0]].dst];
  return (out ? p->nout : p->nin) == 1;
}
int ade__dual_side_matches(ade_cgraph *d, const ade__ix *K, size_t w, int out);
/* fn(ctx, d, e) for each face e that v absorbs, given v's twins K (face.c). */
int ade__dual_absorbed_each(ade_cgraph *d, const ade__ix *K, size_t v, int out,
                            int (*fn)(void *ctx, ade_cgraph *d, size_t e), void *ctx);
void ade__ix_free(ade__ix *b);

/* Per vertex, how many independents reach it (reverse: how many dependents
 * it reaches), order.c: O(|E| n/64) time, O(V) memory. */
int ade__reach_counts(const ade_cgraph *g, int reverse, uint64_t *cnt);
/* Cut bounds (cuts.c): cut[j] holds kx(j) in bits 0-1 and ky(j) in bits
 * 2-3, each 1 or 2: lower bounds on the least vertex cut between X and j
 * and between j and Y. Any elimination (vertex, edge or face) then takes
 * at least ade__cut(cut, j) = kx(j) ky(j) faces (fma) with intermediate j
 * in the middle, and after t of them at least that less t, and at least 1
 * while j has faces (1 without cut bounds). *cut is NULL (no bounds)
 * unless g's index order is topological and every intermediate has
 * predecessors and successors, or when the dominator walks pass
 * O(|V| + |E|) steps. */
int ade__cut_bounds(const ade_cgraph *g, uint8_t **cut);
static inline unsigned ade__cut(const uint8_t *cut, size_t j) { return cut ? (cut[j] & 3u) * (cut[j] >> 2) : 1; }
/* A lower bound on the cost of the vertex sweep (reverse: in reverse
 * index order) of g, whose index order is topological, in O(|V| + |E|):
 * eliminated in turn, j has as predecessors the independents that reach
 * it (reverse: as successors the dependents it reaches), which include
 * its independent predecessors and those that reach each predecessor;
 * so at least the most of those counts, times |S_j| (|P_j|). It stops
 * once the bound reaches bar (UINT64_MAX: never). */
int ade__sweep_floor(const ade_cgraph *g, int reverse, uint64_t bar, uint64_t *floor);
/* V_LM, or V_LR with dependency degrees dd, on a structure-only copy of g
 * (vmark.c): the sequence appended to s, its cost and fill-in in *fma and
 * *fill. ADE__CUT once the cost so far and a lower bound on the rest
 * (from cut, g's cut bounds: may be NULL) reach ceiling (0: none), ADE_ELIMIT at
 * the deadline (0: none), or with sweep 0 (1) the rest then as a forward
 * (reverse) vertex sweep and *swept = 1; ADE__FALLBACK: use order.c's.
 * Its steps are counted in w (may be NULL). */
int ade__vmark_order(const ade_cgraph *g, const int64_t *dd, uint64_t ceiling, ade__live *live, const uint8_t *cut,
                     double deadline, int sweep, ade__watch *w, int *swept, ade_elim_seq *s, uint64_t *fma,
                     uint64_t *fill);
/* Its scans' budget, factor (|E| + |V| + fma so far) + slack, past which
 * it falls back: 16 and 2^20 (the tests lower them). */
extern unsigned ade__vmark_factor;
extern uint64_t ade__vmark_slack;
/* Tasks 0 .. n - 1 taken in turn by up to threads threads (at most 16),
 * the calling thread one of them: fn(ud, k, w), w the caller's watch on
 * the calling thread's tasks, NULL on the others. A thread that cannot
 * be started leaves its tasks to the others (tasks.c). A graph the tasks
 * share needs its fingerprint taken first (ade__graph_fingerprint keeps
 * it in the graph, which ade_cgraph_copy copies). */
typedef struct ade__tasks {
  int n, next; /* next: the next to start (atomic) */
  void (*fn)(void *ud, int k, ade__watch *w);
  void *ud;
} ade__tasks;
void ade__tasks_run(ade__tasks *t, int threads, ade__watch *w);
/* The tests' knob (1): every task on the calling thread, the last first,
 * so that no ordering run's bar falls before it has finished (the latest
 * a bar can fall). */
extern int ade__order_reverse;
/* A task's failure, raised again on the calling thread (errors and the
 * memory limit's flag are the thread's own): keep returns st, clearing
 * the thread's error; ADE__CUT is no failure. */
typedef struct ade__failure {
  int st, budget;
  char msg[512];
} ade__failure;
int ade__failure_keep(ade__failure *f, int st);
int ade__failure_raise(const ade__failure *f);
/* Live vertices in a topological order (Kahn); *k gets how many. */
int ade__cgraph_topo(const ade_cgraph *g, size_t *ord, size_t *k);

#endif
