/* opt_anneal.c: simulated annealing over vertex sequences (permutations) and edge sequences (choice vectors), with a fixed, seedable schedule. */
#include <math.h>
#include <stdlib.h>

#include "opt_internal.h"

/* The schedule (doc/optimizers.md): N moves (default: 20000 for vertices;
 * for edges 2e8 / (L E) clamped to [1000, 20000], L the start's length and
 * E the edges: each move re-decodes a suffix); temperature T_k = T0 (T1/T0)^(k/N)
 * with T0 = 1 + C0/50 (C0: cost of the start, the best heuristic) and
 * T1 = 0.05; a move that raises the cost by d is taken with probability
 * exp(-d/T_k) (Metropolis). Random numbers: xorshift64* seeded by
 * splitmix64(seed), so a run is reproducible from (graph, seed, N). */
#define DEFAULT_MOVES 20000u
#define T_END 0.05

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t splitmix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t next(rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545f4914f6cdd1dull;
}
static double uniform(rng *r) { return (double)(next(r) >> 11) * 0x1.0p-53; }
static size_t below(rng *r, size_t n) { return (size_t)(next(r) % n); }

typedef struct sa {
  ade__sg s;
  rng r;
  ade__clock clk;
  uint64_t *pc;            /* pc[t]: cost of the first t steps */
  ade__move *cur, *best;   /* the steps taken; the best sequence */
  uint32_t *gene, *tmp;    /* edges: choice per step; vertices: scratch */
  size_t len, cap, blen;
  uint64_t bcost;
  ade__moves mv;
} sa;

static int room(sa *a, size_t need) {
  if (need <= a->cap) return ADE_OK;
  size_t nc = a->cap ? 2 * a->cap : 64;
  while (nc < need) nc *= 2;
  uint64_t *pc = ade__realloc(a->pc, (nc + 1) * sizeof *pc);
  if (pc && !a->pc) pc[0] = 0;
  if (pc) a->pc = pc;
  ade__move *c = pc ? ade__realloc(a->cur, nc * sizeof *c) : NULL;
  if (c) a->cur = c;
  ade__move *b = c ? ade__realloc(a->best, nc * sizeof *b) : NULL;
  if (b) a->best = b;
  uint32_t *g = b ? ade__realloc(a->gene, nc * sizeof *g) : NULL;
  if (g) {
    memset(g + a->cap, 0, (nc - a->cap) * sizeof *g);
    a->gene = g;
  }
  uint32_t *t = g ? ade__realloc(a->tmp, nc * sizeof *t) : NULL;
  if (t) a->tmp = t;
  if (!t) return ade__fail(ADE_ENOMEM, "out of memory for an annealing state of %zu steps", nc);
  a->cap = nc;
  return ADE_OK;
}

/* Apply step t (cur[t]) on top of the first t. */
static int push_step(sa *a, size_t t) {
  uint64_t c;
  int st = ade__sg_apply(&a->s, &a->cur[t], &c);
  if (!st) a->pc[t + 1] = a->pc[t] + c;
  return st;
}

static void back_to(sa *a, size_t t) {
  while (a->len > t) {
    ade__sg_undo(&a->s);
    a->len--;
  }
}

/* Quickselect: v[k] as in sorted order (moves are distinct). */
static ade__move select_kth(ade__move *v, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    ade__move p = v[lo + (hi - lo) / 2], t;
    size_t i = lo, j = hi;
    while (i <= j) {
      while (ade__move_cmp(&v[i], &p) < 0) i++;
      while (ade__move_cmp(&v[j], &p) > 0) j--;
      if (i <= j) {
        t = v[i], v[i] = v[j], v[j] = t;
        i++;
        if (j-- == 0) break;
      }
    }
    if (k <= j && j != (size_t)-1) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return v[k];
}

/* The k-th move in the order of ade__move_cmp: passes of selection for
 * small k (the usual case: genes are mostly 0), else quickselect. */
static ade__move kth(ade__moves *v, size_t k) {
  const ade__move *prev = NULL, *best = NULL;
  if (k > 4) return select_kth(v->m, v->len, k);
  for (size_t r = 0; r <= k; r++, prev = best) {
    best = NULL;
    for (size_t i = 0; i < v->len; i++) {
      const ade__move *m = &v->m[i];
      if ((!prev || ade__move_cmp(m, prev) > 0) && (!best || ade__move_cmp(m, best) < 0)) best = m;
    }
  }
  return *best;
}

/* Edges: from step t on, take the gene[k]-th cheapest applicable step (mod
 * their number) until the graph is bipartite. */
static int decode(sa *a, size_t t) {
  int st = ADE_OK;
  back_to(a, t);
  while (!st && !ade__sg_done(&a->s)) {
    if (ade__clock_expired(&a->clk, 0)) return ADE_ELIMIT; /* the best is kept apart */
    a->mv.len = 0;
    if ((st = ade__sg_moves(&a->s, &a->mv, 0)) || (st = room(a, a->len + 1))) break;
    a->cur[a->len] = kth(&a->mv, a->gene[a->len] % a->mv.len);
    if (!(st = push_step(a, a->len))) a->len++;
  }
  return st;
}

/* Vertices: apply the permutation cur[t..p). */
static int replay(sa *a, size_t t, size_t p) {
  int st = ADE_OK;
  back_to(a, t);
  for (; !st && a->len < p; a->len++) st = push_step(a, a->len);
  return st;
}

static void save_best(sa *a) {
  if (a->pc[a->len] >= a->bcost) return;
  a->bcost = a->pc[a->len];
  a->blen = a->len;
  memcpy(a->best, a->cur, a->len * sizeof *a->best);
}

/* The slot of vertex id (slots keep the c-graph's vertex order, by id). */
static uint32_t slot_of(const ade__sg *s, long id) {
  uint32_t lo = 0, hi = (uint32_t)s->nv;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->id[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Step t of the start h as a move; edges: its rank among the applicable
 * moves into gene[t] (ranking scans every move: the start of a large
 * graph takes seconds, hence the clock). */
static int start_move(sa *a, const ade_elim_step *x, size_t t) {
  if (a->s.kind == ADE_SEQ_VERTEX) {
    ade__move m = {slot_of(&a->s, x->a), 0, 0, 0};
    a->cur[t] = m;
    return m.a < a->s.nv && a->s.id[m.a] == x->a ? ADE_OK : ADE_ESTATE;
  }
  a->mv.len = 0;
  int st = ade__sg_moves(&a->s, &a->mv, 0);
  size_t i = 0, rank = 0;
  for (; !st && i < a->mv.len; i++) {
    ade_elim_step y;
    ade__sg_step(&a->s, &a->mv.m[i], &y);
    if (y.a == x->a && y.b == x->b && y.dir == x->dir) break;
  }
  if (st || i == a->mv.len) return st ? st : ADE_ESTATE;
  for (size_t j = 0; j < a->mv.len; j++) rank += ade__move_cmp(&a->mv.m[j], &a->mv.m[i]) < 0;
  a->gene[t] = (uint32_t)rank;
  a->cur[t] = a->mv.m[i];
  return ADE_OK;
}

/* The start: the heuristic's steps, recorded as genes (edges) or as the
 * permutation (vertices). ADE_ELIMIT if the clock runs out first. */
static int start(sa *a, const ade_elim_seq *h) {
  int st = room(a, h->len + 1);
  for (size_t t = 0; !st && t < h->len; t++) {
    if (ade__clock_expired(&a->clk, 0)) return ADE_ELIMIT;
    st = start_move(a, &h->step[t], t);
    if (st == ADE_ESTATE) st = ade__fail(st, "internal error: step %zu of the start is not applicable", t + 1);
    if (!st && !(st = push_step(a, t))) a->len++;
  }
  a->bcost = UINT64_MAX;
  if (!st) save_best(a);
  return st;
}

/* A random neighbour of the current vertex permutation: swap two vertices
 * or move one to an earlier position. Positions [*i, *j] change; their old
 * vertices are kept in tmp. */
static void vertex_move(sa *a, size_t p, size_t *i, size_t *j) {
  size_t x = below(&a->r, p), y = below(&a->r, p - 1);
  if (y >= x) y++;
  *i = x < y ? x : y;
  *j = x < y ? y : x;
  for (size_t k = *i; k <= *j; k++) a->tmp[k] = a->cur[k].a;
  if (next(&a->r) & 1) {
    a->cur[*i].a = a->tmp[*j];
    a->cur[*j].a = a->tmp[*i];
  } else {
    for (size_t k = *j; k > *i; k--) a->cur[k].a = a->tmp[k - 1];
    a->cur[*i].a = a->tmp[*j];
  }
}

static uint32_t geometric(rng *r) {
  uint32_t v = 0;
  while (v < 31 && (next(r) & 1)) v++;
  return v;
}

/* One annealing run from h; the best sequence into *seq. */
static int anneal(sa *a, int kind, uint64_t N, const ade_elim_seq *h, ade_opt_report *rep) {
  int st = start(a, h);
  if (st) return st;
  size_t p = a->len;
  double T0 = 1.0 + (p ? (double)a->pc[a->len] : 0.0) / 50.0; /* pc is NULL when p = 0 */
  uint64_t k = 0;
  for (; !st && k < N && p > 1; k++) {
    if (ade__clock_expired(&a->clk, 0)) { /* every move: on large graphs one re-decodes thousands of steps */
      rep->limited = 1;
      break;
    }
    ade__clock_report(&a->clk, ADE_OPT_ANNEAL, kind, a->bcost, 0, k, 0);
    double T = T0 * pow(T_END / T0, (double)k / (double)N);
    uint64_t old = a->pc[a->len];
    size_t i, j = 0;
    uint32_t g = 0;
    if (kind == ADE_SEQ_VERTEX) {
      vertex_move(a, p, &i, &j);
      st = replay(a, i, p);
    } else {
      i = below(&a->r, a->len);
      g = a->gene[i];
      a->gene[i] = geometric(&a->r);
      if (a->gene[i] == g) a->gene[i] = g + 1;
      st = decode(a, i);
    }
    if (st == ADE_ELIMIT) { /* decoding ran out of time */
      rep->limited = 1;
      st = ADE_OK;
      break;
    }
    if (st) break;
    uint64_t now = a->pc[a->len];
    if (now <= old || uniform(&a->r) < exp(-(double)(now - old) / T)) {
      save_best(a);
      continue;
    }
    if (kind == ADE_SEQ_VERTEX) { /* reject: restore the permutation */
      for (size_t q = i; q <= j; q++) a->cur[q].a = a->tmp[q];
      st = replay(a, i, p);
    } else {
      a->gene[i] = g;
      st = decode(a, i);
      if (st == ADE_ELIMIT) rep->limited = 1, st = ADE_OK;
    }
  }
  rep->nodes = k;
  return st;
}

/* Edges start from the better of the best edge heuristic and the vertex
 * annealing's result as edges (Rule 3): edge sequences include vertex
 * sequences, and the vertex moves are far cheaper to anneal. Under a time
 * limit the vertex annealing gets a third of the time left. */
static int edge_start(const ade_cgraph *g, const ade_opt_limits *l, const ade__clock *clk, ade_elim_seq **h,
                      ade_opt_report *r) {
  ade_opt_report rv;
  ade_opt_limits sub = *l;
  ade_elim_seq *v = NULL, *e = NULL;
  memset(&rv, 0, sizeof rv);
  if (ade__clock_expired(clk, 0)) return ADE_OK; /* out of time: the start as it is */
  sub.time_limit = ade__clock_share(clk, 1.0 / 3);
  sub.progress = NULL;
  int st = ade__opt_anneal(g, ADE_SEQ_VERTEX, &sub, &v, &rv);
  if (!st) st = ade__seq_vertex_to_edge(g, v, &e);
  if (!st && e->cost < (*h)->cost) {
    ade_seq_free(*h);
    *h = e, e = NULL;
  }
  r->limited |= rv.limited;
  ade_seq_free(v);
  ade_seq_free(e);
  return st;
}

int ade__opt_anneal(const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **seq, ade_opt_report *r) {
  sa a;
  ade_elim_seq *h = NULL;
  memset(&a, 0, sizeof a);
  a.r.s = splitmix(l->seed) | 1;
  ade__clock_start(&a.clk, l);
  ade__clock half; /* the start gets at most half the time */
  ade__clock_part(&a.clk, 0.5, &half);
  int st = ade__opt_heuristic(g, kind, &half, 1, &h);
  if (!st) st = ade__seq_to_kind(g, &h, kind, NULL); /* its steps are the first genes */
  if (!st) r->initial = h->cost;
  if (!st && kind == ADE_SEQ_EDGE) st = edge_start(g, l, &a.clk, &h, r);
  if (!st) st = ade__sg_init(&a.s, g, kind, 0);
  if (!st) {
    uint64_t N = DEFAULT_MOVES, work = (uint64_t)h->len * (g->nedges + 1);
    if (kind == ADE_SEQ_EDGE && work > 200000000u / DEFAULT_MOVES) N = 200000000u / work;
    if (N < 1000) N = 1000;
    st = anneal(&a, kind, l->iterations ? l->iterations : N, h, r);
  }
  if (st == ADE_ELIMIT) { /* out of time before the annealing: the start */
    r->cost = h->cost, r->limited = 1;
    *seq = h, h = NULL;
    st = ADE_OK;
  } else {
    if (!st) st = ade_seq_create(seq, kind);
    back_to(&a, 0);
    for (size_t t = 0; !st && t < a.blen; t++) { /* name the best steps on the replayed graph */
      ade_elim_step x;
      uint64_t c;
      ade__sg_step(&a.s, &a.best[t], &x);
      st = ade_seq_push(*seq, x.a, x.b, x.dir);
      if (!st) st = ade__sg_apply(&a.s, &a.best[t], &c);
    }
    if (!st) r->cost = a.bcost;
  }
  if (st && *seq) {
    ade_seq_free(*seq);
    *seq = NULL;
  }
  ade_seq_free(h);
  ade__sg_free(&a.s);
  ade__moves_free(&a.mv);
  ade__free(a.pc);
  ade__free(a.cur);
  ade__free(a.best);
  ade__free(a.gene);
  ade__free(a.tmp);
  return st;
}
