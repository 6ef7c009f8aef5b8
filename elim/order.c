/* order.c: elimination orderings: vertex (forward, reverse, V_LM, V_LR), edge (forward, reverse, Markowitz, E_LF), face (forward, reverse, greedy). */
#include <limits.h>
#include <stdlib.h>

#include "elim_internal.h"

/* the two-word-key heap inline (its hot calls: set, pop) */
#include "pkq_inline.h"
#include "bkq_inline.h"
#include "face_inline.h"

/* Face orderings stop with ADE_ELIMIT after this many steps. */
#define ADE__MAX_FACE_STEPS 100000000u

/* The greedy edge and face orderings and the face sweeps stop with
 * ADE_ELIMIT at a deadline (ade__now() seconds; 0: none). */
static int expired(double deadline) { return deadline > 0 && ade__now() >= deadline; }
static int late(double deadline) {
  return expired(deadline) ? ade__fail(ADE_ELIMIT, "ordering: time limit reached") : ADE_OK;
}
/* ADE__CUT once c's cost reaches its ceiling: the costs only grow, so the
 * sequence could not beat the one the ceiling came from. With lower
 * bounds (ade_cgraph.lb) the cut comes as soon as the cost so far plus
 * the bound on the rest reaches it. */
static int over(const ade_cgraph *c) {
  ade__watch_step(c->watch, c->fma);
  return ade__reached(c->live, c->ceiling, c->fma + (c->lb ? c->lbrest : 0)) ? ADE__CUT : ADE_OK;
}

/* The lower bounds of working copy c, if every intermediate has
 * predecessors and successors (always so on a c-graph from a tape): each
 * then costs at least 1 more, and at least its cut bound (c->cut). */
static int set_bounds(ade_cgraph *c) {
  uint64_t rest = 0;
  for (size_t j = 0; j < c->nv; j++) {
    const ade__vtx *v = &c->v[j];
    if (v->alive && v->kind == ADE__Z && (!v->nin || !v->nout)) return ADE_OK;
  }
  if (!(c->lb = ade__calloc(c->nv + 1, 1)))
    return ade__fail(ADE_ENOMEM, "out of memory for the bounds of %zu vertices", c->nv);
  for (size_t j = 0; j < c->nv; j++)
    if (c->v[j].alive && c->v[j].kind == ADE__Z) rest += c->lb[j] = (uint8_t)ade__cut(c->cut, j);
  c->lbrest = rest;
  return ADE_OK;
}

static const struct {
  const char *name;
  int kind;
} orders[] = {
#define ADE__ORDER_ROW(N, s, k) {s, k},
    ADE_ORDER_MAP(ADE__ORDER_ROW)
#undef ADE__ORDER_ROW
};

const char *ade_order_name(int order) {
  return order >= 0 && order < ADE_ORDER_COUNT ? orders[order].name : NULL;
}

int ade_order_kind(int order) { return order >= 0 && order < ADE_ORDER_COUNT ? orders[order].kind : -1; }

int ade_order_parse(const char *name) {
  for (int i = 0; name && i < ADE_ORDER_COUNT; i++)
    if (!strcmp(name, orders[i].name)) return i;
  return -1;
}

/* ---------------------------------------------------------------- vertex */

/* Append P_v (in) and S_v (out) to b. */
static int adjacent(const ade_cgraph *c, size_t v, int in, int out, ade__ix *b) {
  int st = ADE_OK;
  for (size_t a = 0; !st && in && a < c->v[v].nin; a++) st = ade__ix_push(b, c->e[c->v[v].in[a]].src);
  for (size_t a = 0; !st && out && a < c->v[v].nout; a++) st = ade__ix_push(b, c->e[c->v[v].out[a]].dst);
  return st;
}

/* Dependency degrees dd_j = id_j od_j (DP paper, V_LR): the numbers of
 * minimal vertices reaching j and maximal vertices j reaches. */
static int dependency_degrees(const ade_cgraph *g, int64_t *dd) {
  uint64_t *id = ade__alloc((g->nv + 1) * sizeof *id), *od = ade__alloc((g->nv + 1) * sizeof *od);
  int st = id && od ? ade__reach_counts(g, 0, id) : ade__fail(ADE_ENOMEM, "out of memory for dependency degrees");
  if (!st) st = ade__reach_counts(g, 1, od);
  for (size_t i = 0; !st && i < g->nv; i++) dd[i] = (int64_t)(id[i] * od[i]);
  ade__free(id);
  ade__free(od);
  return st;
}

static int64_t vkey(const ade_cgraph *g, size_t j, const int64_t *dd) {
  return (int64_t)(g->v[j].nin * g->v[j].nout) - (dd ? dd[j] : 0);
}

/* (vkey, j) as two words in the same order (the sign bit flipped). */
static ade__pk vpk(const ade_cgraph *g, size_t j, const int64_t *dd) {
  return (ade__pk){(uint64_t)vkey(g, j, dd) ^ (UINT64_C(1) << 63), j};
}

/* The reference for order_markowitz: the least (key, index) by a rescan
 * of every intermediate; ADE__NONE when none is left. */
static size_t markowitz_scan(const ade_cgraph *c, const int64_t *dd) {
  size_t best = ADE__NONE;
  int64_t bk = 0;
  for (size_t j = 0; j < c->nv; j++)
    if (c->v[j].alive && c->v[j].kind == ADE__Z && (best == ADE__NONE || vkey(c, j, dd) < bk))
      best = j, bk = vkey(c, j, dd);
  return best;
}

/* V_LM (lowest Markowitz degree first) or, with dd, V_LR (lowest
 * Markowitz degree relative to the dependency degree); ties by index.
 * scan: the rescanning reference (the tests check both choose alike).
 * ADE_ELIMIT at the deadline (the heap's version only). */
static int order_markowitz(ade_cgraph *c, ade_elim_seq *s, int relative, int scan, double deadline) {
  if (scan) {
    int64_t *d = relative ? ade__alloc((c->nv + 1) * sizeof *d) : NULL;
    int st = relative && !d ? ade__fail(ADE_ENOMEM, "out of memory for dependency degrees") : ADE_OK;
    if (!st && relative) st = dependency_degrees(c, d);
    for (size_t j; !st && (j = markowitz_scan(c, d)) != ADE__NONE;) {
      st = ade_seq_push(s, c->v[j].id, 0, 0);
      if (!st) st = ade__elim_vertex_ix(c, j, NULL);
      if (!st) st = over(c);
    }
    ade__free(d);
    return st;
  }
  ade__pkq h = {0};
  ade__pkent top;
  ade__ix nb = {0};
  int64_t *dd = relative ? ade__alloc((c->nv + 1) * sizeof *dd) : NULL;
  int st = relative && !dd ? ade__fail(ADE_ENOMEM, "out of memory for dependency degrees") : ADE_OK;
  if (!st && relative) st = dependency_degrees(c, dd);
  for (size_t j = 0; !st && j < c->nv; j++)
    if (c->v[j].alive && c->v[j].kind == ADE__Z) st = pk_append(&h, vpk(c, j, dd), j);
  pkq_heapify(&h);
  /* One entry per intermediate, its key set again whenever its degrees
   * change (only the neighbours of an eliminated vertex): the top is the
   * least (key, index) of all. */
  while (!st && pkq_pop(&h, &top)) {
    size_t j = top.x;
    if (!c->v[j].alive || c->v[j].kind != ADE__Z) continue;
    if ((st = late(deadline))) break;
    nb.n = 0;
    st = adjacent(c, j, 1, 1, &nb);
    if (!st) st = ade_seq_push(s, c->v[j].id, 0, 0);
    if (!st) st = ade__elim_vertex_ix(c, j, NULL);
    if (!st) st = over(c);
    for (size_t x = 0; !st && x < nb.n; x++) { /* degrees changed: fresh keys */
      size_t u = nb.a[x];
      if (c->v[u].alive && c->v[u].kind == ADE__Z) st = pk_set(&h, vpk(c, u, dd), u);
      else pkq_del(&h, u);
    }
  }
  ade__pkq_free(&h);
  ade__ix_free(&nb);
  ade__free(dd);
  return st;
}

/* Forward or reverse: intermediates in id order, as vertices or as edges
 * (Rule 3: front elimination of all in-edges; Rule 4: back elimination of
 * all out-edges). */
static int order_sweep(ade_cgraph *c, ade_elim_seq *s, int reverse, int edges) {
  int st = ADE_OK;
  for (size_t t = 0; !st && t < c->nv; t++) {
    size_t j = reverse ? c->nv - 1 - t : t;
    ade__vtx *v = &c->v[j];
    if (!v->alive || v->kind != ADE__Z) continue;
    long id = v->id;
    if (!edges) {
      st = ade_seq_push(s, id, 0, 0);
      if (!st) st = ade__elim_vertex_ix(c, j, NULL);
      if (!st) st = over(c);
      continue;
    }
    while (!st && c->v[j].alive) {
      size_t e = reverse ? c->v[j].out[0] : c->v[j].in[0];
      st = ade_seq_push(s, c->v[c->e[e].src].id, c->v[c->e[e].dst].id, reverse ? ADE_BACK : ADE_FRONT);
      if (!st) st = ade__elim_edge_ix(c, e, reverse ? ADE_BACK : ADE_FRONT, NULL);
      if (!st) st = over(c);
    }
  }
  return st;
}

/* Fill-in of eliminating edge e (edges after minus before, DP paper E_LF). */
static long edge_fill(const ade_cgraph *c, size_t e, int dir) {
  const ade__edge *x = &c->e[e];
  const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
  long nw = 0;
  if (dir == ADE_FRONT) {
    for (size_t b = 0; b < j->nout; b++) nw += ade__graph_find(c, x->src, c->e[j->out[b]].dst) == ADE__NONE;
    return nw - 1 - (j->nin == 1 ? (long)j->nout : 0);
  }
  for (size_t a = 0; a < i->nin; a++) nw += ade__graph_find(c, c->e[i->in[a]].src, x->dst) == ADE__NONE;
  return nw - 1 - (i->nout == 1 ? (long)i->nin : 0);
}

/* The key of eliminating edge e front or back, least first: fill-in
 * (E_LF) or cost, then cost (|S_j| front, |P_i| back), the ids, front
 * before back. 0 if the elimination does not apply. */
static int edge_key(const ade_cgraph *c, size_t e, int dir, int fillin, long *key) {
  const ade__edge *x = &c->e[e];
  if (x->src == ADE__NONE) return 0;
  const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
  if ((dir == ADE_FRONT ? j : i)->kind != ADE__Z) return 0;
  long cost = (long)(dir == ADE_FRONT ? j->nout : i->nin);
  key[0] = fillin ? edge_fill(c, e, dir) : cost;
  key[1] = cost;
  key[2] = i->id;
  key[3] = j->id;
  key[4] = dir;
  return 1;
}

/* The reference: every edge and direction rescanned. */
static size_t edge_scan(const ade_cgraph *c, int fillin, int *bdir) {
  size_t best = ADE__NONE;
  long key[ADE__PQ_KEYS], bkey[ADE__PQ_KEYS];
  for (size_t e = 0; e < c->eslots; e++)
    for (int dir = 0; dir < 2; dir++)
      if (edge_key(c, e, dir, fillin, key) && (best == ADE__NONE || ade__pq_less(key, bkey))) {
        best = e;
        *bdir = dir;
        memcpy(bkey, key, sizeof key);
      }
  return best;
}

/* E_LF's key packed into two words, in edge_key's order: (fill-in +
 * 2^31, cost) high, (i, j, dir) low, vertex indices for ids (ids ascend
 * with the index). It fits while the graph has fewer than 2^31 - 1
 * vertices (|fill-in| and cost are below the vertex count). 0 if the
 * elimination does not apply. */
#define ADE__PK_VERTICES ((size_t)INT32_MAX)
static int edge_pk(const ade_cgraph *c, size_t e, int dir, ade__pk *k) {
  const ade__edge *x = &c->e[e];
  if (x->src == ADE__NONE) return 0;
  const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
  int64_t nw = 0, cost;
  if (dir == ADE_FRONT) {
    if (j->kind != ADE__Z) return 0;
    cost = (int64_t)j->nout;
    for (size_t b = 0; b < j->nout; b++) nw += ade__graph_find(c, x->src, c->e[j->out[b]].dst) == ADE__NONE;
    nw -= 1 + (j->nin == 1 ? cost : 0);
  } else {
    if (i->kind != ADE__Z) return 0;
    cost = (int64_t)i->nin;
    for (size_t a = 0; a < i->nin; a++) nw += ade__graph_find(c, c->e[i->in[a]].src, x->dst) == ADE__NONE;
    nw -= 1 + (i->nout == 1 ? cost : 0);
  }
  k->hi = (uint64_t)(nw + INT64_C(2147483648)) << 32 | (uint64_t)cost;
  k->lo = (uint64_t)x->src << 32 | (uint64_t)x->dst << 1 | (uint64_t)dir;
  return 1;
}

/* E_LF's queue: one entry per edge slot e, its key the lesser of the keys
 * of its two directions (the direction is the key's last bit), kept in
 * kd[2 e + dir] (all ones where the direction does not apply). A kept key
 * is never greater than the current one: keys that drop are set again
 * (fill_update), keys that rise are found at the top (edge_pop). */
typedef struct fqueue {
  ade__bkq q;
  ade__pk *kd;
  size_t kcap;
} fqueue;

static const ade__pk pk_none = {UINT64_MAX, UINT64_MAX};


/* |A ∩ B| for neighbour lists A (marked with t in mk) and B of c (edge
 * slots; out: their heads, else their tails). */
static size_t marked(const ade_cgraph *c, const unsigned *mk, unsigned t, const size_t *B, size_t nb, int out) {
  size_t n = 0;
  for (size_t k = 0; k < nb; k++) n += mk[out ? c->e[B[k]].dst : c->e[B[k]].src] == t;
  return n;
}

/* After a step, its pivot's lists marked (fill_update says when): S_piv
 * with now, P_piv with now + 1 (disjoint: the graph is acyclic); piv is
 * ADE__NONE when none is marked. */
typedef struct pmarks {
  unsigned *m, now;
  size_t cap, piv;
} pmarks;

/* edge_pk, counting by the marks when e has the marked pivot at one end:
 * front (i, j) needs |S_j ∩ S_i|, read over S_j (i the pivot) or over S_i
 * (j the pivot, unless S_i is much the longer); back (i, j) |P_i ∩ P_j|,
 * over P_i (j the pivot) or P_j (i the pivot, likewise). */
static int edge_pk_m(const pmarks *g, const ade_cgraph *c, size_t e, int dir, ade__pk *k) {
  const ade__edge *x = &c->e[e];
  size_t p = g ? g->piv : ADE__NONE;
  if (x->src == ADE__NONE || p == ADE__NONE || (x->src != p && x->dst != p)) return edge_pk(c, e, dir, k);
  const ade__vtx *i = &c->v[x->src], *j = &c->v[x->dst];
  int64_t cost, nw;
  if (dir == ADE_FRONT) {
    if (j->kind != ADE__Z) return 0;
    if (x->src != p && i->nout > 4 * j->nout + 4) return edge_pk(c, e, dir, k);
    cost = (int64_t)j->nout;
    nw = cost - (int64_t)(x->src == p ? marked(c, g->m, g->now, j->out, j->nout, 1)
                                      : marked(c, g->m, g->now, i->out, i->nout, 1));
    nw -= 1 + (j->nin == 1 ? cost : 0);
  } else {
    if (i->kind != ADE__Z) return 0;
    if (x->dst != p && j->nin > 4 * i->nin + 4) return edge_pk(c, e, dir, k);
    cost = (int64_t)i->nin;
    nw = cost - (int64_t)(x->dst == p ? marked(c, g->m, g->now + 1, i->in, i->nin, 0)
                                      : marked(c, g->m, g->now + 1, j->in, j->nin, 0));
    nw -= 1 + (i->nout == 1 ? cost : 0);
  }
  k->hi = (uint64_t)(nw + INT64_C(2147483648)) << 32 | (uint64_t)cost;
  k->lo = (uint64_t)x->src << 32 | (uint64_t)x->dst << 1 | (uint64_t)dir;
  return 1;
}

/* Set the keys of e's directions in mask (bit dir), then its entry once. */
static int edge_push_dirs(fqueue *h, const ade_cgraph *c, const pmarks *g, size_t e, unsigned mask) {
  if (2 * e + 1 >= h->kcap) {
    size_t nc = 4 * e + 64;
    ade__pk *p = ade__realloc(h->kd, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for the keys of %zu edges", nc / 2);
    for (size_t k = h->kcap; k < nc; k++) p[k] = pk_none;
    h->kd = p, h->kcap = nc;
  }
  ade__pk *kd = &h->kd[2 * e];
  int same = 1;
  for (int dir = 0; dir < 2; dir++) {
    if (!(mask >> dir & 1)) continue;
    ade__pk old = kd[dir];
    if (!edge_pk_m(g, c, e, dir, &kd[dir])) kd[dir] = pk_none;
    same &= kd[dir].hi == old.hi && kd[dir].lo == old.lo;
  }
  /* unchanged: a queued entry holds the lesser of kd already */
  if (same && ade__bkq_queued(&h->q, e)) return ADE_OK;
  ade__pk m = pk_lt(kd[1], kd[0]) ? kd[1] : kd[0];
  if (m.hi == UINT64_MAX) {
    bkq_del(&h->q, e);
    return ADE_OK;
  }
  return bkq_set(&h->q, m, e);
}

/* Set the key of e's direction dir. */
static int edge_push(fqueue *h, const ade_cgraph *c, size_t e, int dir) { return edge_push_dirs(h, c, NULL, e, 1u << dir); }

/* Every edge's keys, the queue built in one go: by head j, S_j and P_j
 * marked once (disjoint: c is acyclic), so that an in-edge (i, j) counts
 * |S_i ∩ S_j| and |P_i ∩ P_j| over i's lists where they are not much
 * longer than j's, and looks up j's members in i's otherwise (an
 * independent's fan-out). The same keys as edge_pk. */
static int fill_init(fqueue *h, const ade_cgraph *c) {
  size_t nc = 2 * c->eslots + 64;
  unsigned *mk = ade__calloc(c->nv + 1, sizeof *mk);
  if (!(h->kd = ade__alloc(ade__mul_size(nc, sizeof *h->kd))) || !mk) {
    ade__free(mk);
    return ade__fail(ADE_ENOMEM, "out of memory for the keys of %zu edges", nc / 2);
  }
  h->kcap = nc;
  for (size_t k = 0; k < nc; k++) h->kd[k] = pk_none;
  int st = ADE_OK;
  unsigned t = 0;
  for (size_t j = 0; !st && j < c->nv; j++) {
    const ade__vtx *J = &c->v[j];
    if (!J->alive || !J->nin) continue;
    t += 2;
    for (size_t k = 0; k < J->nout; k++) mk[c->e[J->out[k]].dst] = t;
    for (size_t k = 0; k < J->nin; k++) mk[c->e[J->in[k]].src] = t + 1;
    for (size_t a = 0; !st && a < J->nin; a++) {
      size_t e = J->in[a], i = c->e[e].src;
      const ade__vtx *I = &c->v[i];
      ade__pk *kd = &h->kd[2 * e];
      if (J->kind == ADE__Z) { /* front: |S_j \ S_i| */
        int64_t cost = (int64_t)J->nout, com;
        if (I->nout <= 4 * J->nout + 4) com = (int64_t)marked(c, mk, t, I->out, I->nout, 1);
        else {
          com = 0;
          for (size_t b = 0; b < J->nout; b++) com += ade__graph_find(c, i, c->e[J->out[b]].dst) != ADE__NONE;
        }
        int64_t nw = cost - com - 1 - (J->nin == 1 ? cost : 0);
        kd[ADE_FRONT].hi = (uint64_t)(nw + INT64_C(2147483648)) << 32 | (uint64_t)cost;
        kd[ADE_FRONT].lo = (uint64_t)i << 32 | (uint64_t)j << 1 | ADE_FRONT;
      }
      if (I->kind == ADE__Z) { /* back: |P_i \ P_j| */
        int64_t cost = (int64_t)I->nin, com = (int64_t)marked(c, mk, t + 1, I->in, I->nin, 0);
        int64_t nw = cost - com - 1 - (I->nout == 1 ? cost : 0);
        kd[ADE_BACK].hi = (uint64_t)(nw + INT64_C(2147483648)) << 32 | (uint64_t)cost;
        kd[ADE_BACK].lo = (uint64_t)i << 32 | (uint64_t)j << 1 | ADE_BACK;
      }
    }
  }
  ade__free(mk);
  /* queued by tail, then in out-list order: by (i, j) where the lists
   * run by head, so the buckets' runs come sorted (bkq_inline.h) */
  for (size_t i = 0; !st && i < c->nv; i++) {
    const ade__vtx *I = &c->v[i];
    for (size_t b = 0; !st && I->alive && b < I->nout; b++) {
      size_t e = I->out[b];
      const ade__pk *kd = &h->kd[2 * e];
      ade__pk m = pk_lt(kd[1], kd[0]) ? kd[1] : kd[0];
      if (m.hi != UINT64_MAX) st = bkq_append(&h->q, m, e);
    }
  }
  return st ? st : bkq_heapify(&h->q);
}

/* What an edge-markowitz step changed: the vertices whose in-list (in) or
 * out-list (out) changed. */
typedef struct edelta {
  ade__ix in, out;
} edelta;

/* Before front (back) elimination of (i, j): out-lists of i (and P_i)
 * change, in-lists of j and S_j (of j). (j goes if (i, j) was its only
 * in-edge, i if it was its only out-edge: their neighbours are listed
 * already.) */
static int edge_delta(const ade_cgraph *c, size_t e, int dir, edelta *x) {
  size_t i = c->e[e].src, j = c->e[e].dst, v = dir == ADE_FRONT ? j : i;
  int st = ade__ix_push(&x->out, i);
  if (!st) st = ade__ix_push(&x->in, j);
  if (!st) st = adjacent(c, v, dir == ADE_BACK, dir == ADE_FRONT, dir == ADE_FRONT ? &x->in : &x->out);
  return st;
}

/* What an E_LF step changes, listed before it: the vertices whose out-list
 * (so) or in-list (pi) changes, each with its degree before and a flag
 * (pairs v, 8 degree + flag; flags below), the pairs (u, w)
 * of the edges it may add (fill-in or absorption), and the first edge
 * number it can give a new edge. seen: per queue index, the step that
 * last set it (each key is computed once per step). fresh: after the
 * step, the indices in pairs of the edges it added. A step that isolates
 * its end (front (i, j) with P_j = {i}, back (i, j) with S_i = {j}) has
 * pivot i (front) or j (back); its far ends (S_j, P_i: flag FAR) carry
 * the mark vnow in vm, vnow + 1 if the step gave them a new edge; its
 * near end (i front, j back: flag NEAR) is the pivot's list that lost
 * the isolated vertex and gained the new edges. A step that isolates
 * nothing has pivot i (front) or j (back) too, the new edges' fixed end;
 * its far ends (flag ABSORB) gain the new edge or absorb it, and its
 * other end (j front, i back: flag LOST) lost the eliminated
 * edge only (fill_lost). */
enum { FAR = 1, NEAR = 2, ABSORB = 3, LOST = 4 };
typedef struct fdelta {
  ade__ix so, pi, pairs, fresh, fe; /* fe: the edges in fresh */
  long id0;
  unsigned *seen, now;
  size_t seencap;
  int iso, dir;
  size_t pivot;
  unsigned *vm, vnow;
  size_t vmcap;
  pmarks g;
  unsigned *um, unow; /* fill_near's tags */
  size_t umcap;
  pmarks t; /* a new edge's other end (edge_triangles) */
} fdelta;

static int fdelta_vertex(ade__ix *l, const ade_cgraph *c, size_t v, int in, int flag) {
  int st = ade__ix_push(l, v);
  return st ? st : ade__ix_push(l, 8 * (in ? c->v[v].nin : c->v[v].nout) + (size_t)flag);
}

/* Front (i, j): i's out-list changes (and P_i's, if i can lose its only
 * out-edge: S_j empty), the in-lists of j and S_j (j goes with its
 * out-edges if (i, j) was its only in-edge); pairs (i, S_j). Back: the
 * mirror image. */
static int fdelta_before(const ade_cgraph *c, size_t e, int dir, fdelta *x) {
  size_t i = c->e[e].src, j = c->e[e].dst;
  const ade__vtx *I = &c->v[i], *J = &c->v[j];
  x->so.n = x->pi.n = x->pairs.n = 0;
  x->id0 = c->next_edge_id;
  int iso = dir == ADE_FRONT ? J->nin == 1 : I->nout == 1;
  int st = fdelta_vertex(&x->so, c, i, 0, iso ? (dir == ADE_FRONT ? NEAR : 0) : dir == ADE_BACK ? LOST : 0);
  if (!st) st = fdelta_vertex(&x->pi, c, j, 1, iso ? (dir == ADE_BACK ? NEAR : 0) : dir == ADE_FRONT ? LOST : 0);
  const ade__vtx *V = dir == ADE_FRONT ? J : I;
  size_t n = dir == ADE_FRONT ? V->nout : V->nin;
  if (!st && iso && x->vmcap < c->nv) {
    unsigned *p = ade__realloc(x->vm, ade__mul_size(c->nv, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for the marks of %zu vertices", c->nv);
    memset(p + x->vmcap, 0, (c->nv - x->vmcap) * sizeof *p);
    x->vm = p, x->vmcap = c->nv;
  }
  if (iso && (x->vnow += 2) >= UINT32_MAX - 2) memset(x->vm, 0, x->vmcap * sizeof *x->vm), x->vnow = 2;
  x->iso = iso, x->dir = dir;
  x->pivot = dir == ADE_FRONT ? i : j;
  for (size_t k = 0; !st && k < n; k++) {
    size_t o = dir == ADE_FRONT ? c->e[V->out[k]].dst : c->e[V->in[k]].src;
    if (iso) x->vm[o] = x->vnow;
    st = fdelta_vertex(dir == ADE_FRONT ? &x->pi : &x->so, c, o, dir == ADE_FRONT, iso ? FAR : ABSORB);
    if (!st) st = ade__ix_push(&x->pairs, dir == ADE_FRONT ? i : o);
    if (!st) st = ade__ix_push(&x->pairs, dir == ADE_FRONT ? o : j);
  }
  /* An end that can be left isolated goes with its other edges. */
  if (!n && dir == ADE_FRONT && I->nout == 1)
    for (size_t k = 0; !st && k < I->nin; k++) st = fdelta_vertex(&x->so, c, c->e[I->in[k]].src, 0, 0);
  if (!n && dir == ADE_BACK && J->nin == 1)
    for (size_t k = 0; !st && k < J->nout; k++) st = fdelta_vertex(&x->pi, c, c->e[J->out[k]].dst, 1, 0);
  return st;
}

/* Set the keys of queue indices 2 e + dir, dir in mask (bit dir), each
 * once per step. */
static int seen_room(fdelta *x, size_t q) {
  if (q >= x->seencap) {
    size_t nc = 2 * q + 64;
    unsigned *p = ade__realloc(x->seen, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for the marks of %zu edges", nc / 2);
    memset(p + x->seencap, 0, (nc - x->seencap) * sizeof *p);
    x->seen = p, x->seencap = nc;
  }
  return ADE_OK;
}

static inline __attribute__((always_inline)) int fill_push_marked(fqueue *h, const ade_cgraph *c, fdelta *x,
                                                                 const pmarks *g, size_t e, unsigned mask) {
  int st = seen_room(x, 2 * e + 1);
  if (st) return st;
  for (int dir = 0; dir < 2; dir++)
    if (mask >> dir & 1) {
      if (x->seen[2 * e + (size_t)dir] >> 1 == x->now) mask &= ~(1u << dir);
      else x->seen[2 * e + (size_t)dir] = x->now << 1;
    }
  return mask ? edge_push_dirs(h, c, g, e, mask) : ADE_OK;
}

static int fill_push_dirs(fqueue *h, const ade_cgraph *c, fdelta *x, size_t e, unsigned mask) {
  return fill_push_marked(h, c, x, &x->g, e, mask);
}

static int fill_push(fqueue *h, const ade_cgraph *c, fdelta *x, size_t e, int dir) {
  return fill_push_dirs(h, c, x, e, 1u << dir);
}

/* Change the key of e's direction dir by df in its fill-in and -1 in its
 * cost, where the step changed the current key by exactly that: a kept
 * key no greater than the one before the step stays no greater than the
 * one after it (the same amounts added to both fields keep their order).
 * Stamped as shifted (the low bit of seen), so that edge_pop recomputes
 * it; computed afresh (fill_push) where none is kept or its cost is 0. */
static int fill_shift(fqueue *h, const ade_cgraph *c, fdelta *x, size_t e, int dir, int df) {
  size_t q = 2 * e + (size_t)dir;
  if (q >= h->kcap || h->kd[q].hi == UINT64_MAX || !(h->kd[q].hi & 0xffffffffu)) return fill_push(h, c, x, e, dir);
  int st = seen_room(x, q | 1);
  if (st || x->seen[q] >> 1 == x->now) return st;
  x->seen[q] = x->now << 1 | 1;
  h->kd[q].hi += (uint64_t)((int64_t)df * (INT64_C(1) << 32) - 1);
  ade__pk *kd = &h->kd[2 * e];
  return bkq_set(&h->q, pk_lt(kd[1], kd[0]) ? kd[1] : kd[0], e);
}

/* Mark p's out-list (out) and in-list (in) in g (pmarks), grown to c's
 * vertices. */
static inline __attribute__((always_inline)) int mark_lists(pmarks *g, const ade_cgraph *c, size_t p, int out,
                                                            int in) {
  if (g->cap < c->nv) {
    unsigned *m = ade__realloc(g->m, ade__mul_size(c->nv, sizeof *m));
    if (!m) return ade__fail(ADE_ENOMEM, "out of memory for the marks of %zu vertices", c->nv);
    memset(m + g->cap, 0, (c->nv - g->cap) * sizeof *m);
    g->m = m, g->cap = c->nv;
  }
  if ((g->now += 2) >= UINT32_MAX - 2) memset(g->m, 0, g->cap * sizeof *g->m), g->now = 2;
  const ade__vtx *P = &c->v[p];
  for (size_t k = 0; out && k < P->nout; k++) g->m[c->e[P->out[k]].dst] = g->now;
  for (size_t k = 0; in && k < P->nin; k++) g->m[c->e[P->in[k]].src] = g->now + 1;
  g->piv = p;
  return ADE_OK;
}

static int mark_pivot(pmarks *g, const ade_cgraph *c, size_t p) { return mark_lists(g, c, p, 1, 1); }

/* Edge (u, w) came: the fill-in of front (u, p) and back (p, w) for p in
 * S_u and P_w counts it (the smaller list is walked). One end
 * of a new edge is the step's pivot, whose lists are marked (x->g); with
 * more than three such p to try, the other end's list that the keys read
 * is marked too (x->t: S_u, or P_w), so that every key is counted over
 * marks (edge_pk_m) rather than looked up. */
static int edge_triangles(fqueue *h, const ade_cgraph *c, fdelta *x, size_t u, size_t w) {
  int st = ADE_OK;
  size_t n = ade__tri_len(c, u, w), o = x->g.piv == u ? w : x->g.piv == w ? u : ADE__NONE;
  x->t.piv = ADE__NONE;
  /* marked only if the list is not much longer than the walk (a fan-in
   * or fan-out built up by fill-in would cost more than it saves) */
  if (n > 3 && o != ADE__NONE && (o == u ? c->v[u].nout : c->v[w].nin) <= 4 * n + 4)
    st = mark_lists(&x->t, c, o, o == u, o == w);
  const pmarks *gu = x->g.piv == u ? &x->g : &x->t, *gw = x->g.piv == w ? &x->g : &x->t;
  for (size_t k = 0; !st && k < n; k++) {
    size_t p, e1, e2;
    if (!ade__tri_at(c, u, w, k, &p, &e1, &e2)) continue;
    st = fill_push_marked(h, c, x, gu, e1, 1u << ADE_FRONT);
    if (!st) st = fill_push_marked(h, c, x, gw, e2, 1u << ADE_BACK);
  }
  return st;
}

/* A far end o of a step that isolates its end, when the step gave it a
 * new edge from (to) the pivot p: a front (i, j), P_j = {i}, replaced j
 * by i in P_o (o in S_j), so |P_o| is the same and back (o, x) changes
 * its fill-in by [i not in P_x] - [j not in P_x]: for x in S_j both are 0
 * (P_x lost j and holds i now); else P_x did not change and holds no j,
 * so the key drops only if (i, x) is an edge, and else stays or rises.
 * Only those backs are set (mirror image: a back (i, j), S_i = {j},
 * replaced i by j in S_o, o in P_i; front (u, o) with u not in P_i drops
 * only if (u, j) is an edge). 0 (nothing done) if the far end's edge was
 * absorbed: then its list shrank, and every key of its side is set. */
static int fill_far(fqueue *h, const ade_cgraph *c, fdelta *x, size_t o, int side, int *st) {
  size_t p = x->pivot;
  if (x->vm[o] != x->vnow + 1) return 0;
  const ade__vtx *v = &c->v[o];
  size_t n = side ? v->nout : v->nin;
  for (size_t k = 0; !*st && k < n; k++) {
    size_t f = side ? v->out[k] : v->in[k], y = side ? c->e[f].dst : c->e[f].src;
    if ((x->vm[y] | 1) == (x->vnow | 1)) continue;
    /* (p, y) an edge (back: (y, p)): read off the pivot's marks */
    int in = x->g.piv == p ? x->g.m[y] == x->g.now + (unsigned)!side
                           : (side ? ade__graph_find(c, p, y) : ade__graph_find(c, y, p)) != ADE__NONE;
    if (in) *st = fill_push(h, c, x, f, side ? ADE_BACK : ADE_FRONT);
  }
  return 1;
}

/* The near end v (side 0: i of a front (i, j), P_j = {i}; side 1: j of a
 * back (i, j), S_i = {j}) lost the isolated vertex and gained the set N
 * of its new edges' far ends. Front (u, i), u in P_i: j is not in S_u
 * (P_j was {i}) and S_u did not change, so its fill-in changes by
 * |N \ S_u| - 1 and its cost by |N| - 1 (|P_i| != 1), or its fill-in by
 * -|N ∩ S_u| (P_i = {u}, fill-in -|S_i ∩ S_u| - 1): the key drops only
 * if N is within S_u, or (P_i = {u}) meets it. Only those are set (the
 * mirror image for the backs out of j). 0 (nothing done) if N is empty:
 * the cost dropped, and every key of the side is set. */
static int fill_near(fqueue *h, const ade_cgraph *c, fdelta *x, size_t v, int side, int *st) {
  size_t nn = x->fresh.n;
  if (!nn) return 0;
  const ade__vtx *V = &c->v[v];
  size_t n = side ? V->nout : V->nin;
  int single = (side ? V->nout : V->nin) == 1;
  if (nn == 1) { /* one far end o: u's edge to o (from o) tested by o's list, tagged once */
    size_t q = x->fresh.a[0], o = side ? x->pairs.a[q] : x->pairs.a[q + 1];
    const ade__vtx *O = &c->v[o];
    size_t no = side ? O->nout : O->nin;
    if (no <= 4 * n + 4) {
      if (x->umcap < c->nv) {
        unsigned *m = ade__realloc(x->um, ade__mul_size(c->nv, sizeof *m));
        if (!m) return *st = ade__fail(ADE_ENOMEM, "out of memory for the marks of %zu vertices", c->nv), 1;
        memset(m + x->umcap, 0, (c->nv - x->umcap) * sizeof *m);
        x->um = m, x->umcap = c->nv;
      }
      if (++x->unow == 0) memset(x->um, 0, x->umcap * sizeof *x->um), x->unow = 1;
      for (size_t k = 0; k < no; k++) x->um[side ? c->e[O->out[k]].dst : c->e[O->in[k]].src] = x->unow;
      for (size_t k = 0; !*st && k < n; k++) {
        size_t f = side ? V->out[k] : V->in[k], u = side ? c->e[f].dst : c->e[f].src;
        if (x->um[u] == x->unow) *st = fill_push(h, c, x, f, side ? ADE_BACK : ADE_FRONT);
      }
      return 1;
    }
  }
  for (size_t k = 0; !*st && k < n; k++) {
    size_t f = side ? V->out[k] : V->in[k], u = side ? c->e[f].dst : c->e[f].src, hit = 0;
    for (size_t a = 0; a < nn; a++) {
      size_t q = x->fresh.a[a], o = side ? x->pairs.a[q] : x->pairs.a[q + 1];
      int in = (side ? ade__graph_find(c, o, u) : ade__graph_find(c, u, o)) != ADE__NONE;
      hit += (size_t)in;
      if (single ? in : !in) break;
    }
    if (single ? hit > 0 : hit == nn) *st = fill_push(h, c, x, f, side ? ADE_BACK : ADE_FRONT);
  }
  return 1;
}

/* v lost the eliminated edge and nothing else, in a step that isolates
 * neither end (side 1: j of a front (i, j), |P_j| > 1; side 0: i of a
 * back (i, j), |S_i| > 1). Back (j, w), w in S_j: P_j lost i and P_w
 * holds i now (it gained it with a new edge (i, w), or had it), so
 * |P_j \ P_w| drops by one if (i, w) is new, the term [|S_j| = 1] |P_j|
 * by [|S_j| = 1], the cost by one: the kept key is shifted by exactly
 * that (fill_shift). Fronts into i after a back: the mirror image (new
 * edges (u, j)). */
static int fill_lost(fqueue *h, const ade_cgraph *c, fdelta *x, size_t v, int side) {
  const ade__vtx *V = &c->v[v];
  size_t n = side ? V->nout : V->nin, p = x->pivot; /* i (front) or j (back): the new edges' fixed end */
  int st = ADE_OK, one = n == 1;
  for (size_t a = 0; !st && a < n; a++) {
    size_t f = side ? V->out[a] : V->in[a], u = side ? c->e[f].dst : c->e[f].src;
    size_t e = side ? ade__graph_find(c, p, u) : ade__graph_find(c, u, p);
    int fresh = e != ADE__NONE && c->e[e].id >= x->id0;
    st = fill_shift(h, c, x, f, side ? ADE_BACK : ADE_FRONT, one - fresh);
  }
  return st;
}

/* Fresh E_LF keys for what the step changed, and only those. Front (u, v)
 * has fill-in |S_v \ S_u| - 1 - [|P_v| = 1] |S_v| and cost |S_v|; back
 * (u, v) |P_u \ P_v| - 1 - [|S_u| = 1] |P_u| and cost |P_u|. So S_v
 * changed: the fronts into v, and the backs out of v if [|S_v| = 1]
 * changed; P_v changed: the backs out of v, and the fronts into v if
 * [|P_v| = 1] changed; an edge (u, w) that came or went changes S_u and
 * P_w at p in S_u and P_w: front (u, p) and back (p, w) (its triangles;
 * the fronts out of u and backs into w otherwise keep their keys); a new
 * edge gets both keys. Keys that only rise are left to edge_pop. An edge
 * that went with an isolated end needs nothing: that end is dead. Only
 * intermediates have such keys. */
static int fill_update(fqueue *h, const ade_cgraph *c, fdelta *x) {
  int st = ADE_OK;
  if (++x->now >= 1u << 31) memset(x->seen, 0, x->seencap * sizeof *x->seen), x->now = 1;
  x->fresh.n = x->fe.n = 0;
  for (size_t k = 0; !st && k < x->pairs.n; k += 2) { /* the edges the step added */
    size_t u = x->pairs.a[k], w = x->pairs.a[k + 1], e = ade__graph_find(c, u, w);
    if (e == ADE__NONE || c->e[e].id < x->id0) continue; /* absorbed: no edge came */
    st = ade__ix_push(&x->fresh, k);
    if (!st) st = ade__ix_push(&x->fe, e);
    if (x->iso) x->vm[x->dir == ADE_FRONT ? w : u] = x->vnow + 1;
  }
  x->g.piv = ADE__NONE;
  /* After a step that isolates nothing, an independent (dependent) pivot
   * has no keys of its own: its marks serve the triangles of the new
   * edges, so they are set only if its lists are not much longer than
   * those walks (an independent's fan-out would cost more than it
   * saves). */
  size_t walk = 0;
  for (size_t a = 0; !x->iso && a < x->fresh.n; a++) {
    const ade__vtx *o = &c->v[x->pairs.a[x->fresh.a[a] + (x->dir == ADE_FRONT)]];
    walk += x->dir == ADE_FRONT ? o->nin : o->nout;
  }
  const ade__vtx *pv = &c->v[x->pivot];
  if (!st && pv->alive && (x->iso || pv->kind == ADE__Z || pv->nin + pv->nout <= 4 * walk + 4))
    st = mark_pivot(&x->g, c, x->pivot);
  for (int side = 0; !st && side < 2; side++) {
    const ade__ix *l = side ? &x->pi : &x->so;
    for (size_t k = 0; !st && k < l->n; k += 2) {
      const ade__vtx *v = &c->v[l->a[k]];
      size_t d0 = l->a[k + 1] / 8, d = side ? v->nin : v->nout, flag = l->a[k + 1] & 7;
      if (!v->alive || v->kind != ADE__Z) continue;
      if (flag == ABSORB && d == d0) continue; /* absorbed: its lists, and its side's keys, are as they were */
      /* ABSORB with a new edge (side 1: (i, o), o in S_j of a front (i, j);
       * side 0: (o, j), o in P_i of a back): the keys of that side only
       * rise. Back (o, w): P_o gained i, and i is in P_w after the step (w
       * in S_j has it now; any other w has it iff (i, w) is an edge), so
       * |P_o \ P_w| grows by [(i, w) is no edge] and the cost by one. The
       * term [|S_o| = 1] |P_o| would lower the key if S_o = {w}; but then,
       * before the step, back (o, w) had fill-in -1 - |P_o ∩ P_w| < 0,
       * and the front chosen, with |P_j| > 1 and o in S_j \ S_i, had
       * |S_j \ S_i| - 1 >= 0: not the least key, which the queue rules
       * out (the checking mode's audit would find the kept key too high).
       * Fronts into o after a back: the mirror image. */
      int done = flag == FAR    ? fill_far(h, c, x, l->a[k], side, &st)
                 : flag == NEAR ? fill_near(h, c, x, l->a[k], side, &st)
                 : flag == LOST ? (st = fill_lost(h, c, x, l->a[k], side), 1) /* an end that stays */
                 : flag == ABSORB ? 1
                                : 0;
      int flip = (d0 == 1) != (d == 1);
      if (flag && !done) {
        /* The near end with N empty lost the isolated vertex only, which
         * is in no list of its neighbours on this side: front (u, i), u in
         * P_i, loses one from |S_i \ S_u| and from its cost, and its
         * fill-in gains [|P_i| = 1] |S_i| one back. A far end o whose edge
         * was absorbed (front step: o in S_j, P_o lost j) likewise: back
         * (o, u) loses one from |P_o \ P_u| unless u is a far end whose
         * edge was absorbed too (j left both lists, i in both), one from
         * its cost. The backs out of j, the fronts into o: the mirror
         * image. */
        size_t n = side ? v->nout : v->nin;
        int one = (side ? v->nout : v->nin) == 1;
        for (size_t a = 0; !st && a < n; a++) {
          size_t f = side ? v->out[a] : v->in[a], u = side ? c->e[f].dst : c->e[f].src;
          int df = (flag == FAR && x->vm[u] == x->vnow ? 0 : -1) + one;
          if (flag == NEAR) df = one ? 0 : -1;
          st = fill_shift(h, c, x, f, side ? ADE_BACK : ADE_FRONT, df);
        }
        done = 1;
      }
      for (size_t a = 0; !st && (side == 0 ? !done : flip) && a < v->nin; a++) st = fill_push(h, c, x, v->in[a], ADE_FRONT);
      for (size_t b = 0; !st && (side == 1 ? !done : flip) && b < v->nout; b++) st = fill_push(h, c, x, v->out[b], ADE_BACK);
    }
  }
  for (size_t a = 0; !st && a < x->fresh.n; a++) { /* new edges and their triangles */
    size_t u = x->pairs.a[x->fresh.a[a]], w = x->pairs.a[x->fresh.a[a] + 1], e = x->fe.a[a];
    st = fill_push_dirs(h, c, x, e, 3);
    if (!st) st = edge_triangles(h, c, x, u, w);
  }
  /* An edge (u, w) that went only raises its triangles' keys (w joins
   * S_p \ S_u, u joins P_p \ P_w): the queue finds those at the top
   * (edge_pop), so they are not set here. */
  return st;
}

/* The least key in h (one entry per edge and direction, its key set
 * again after every step that can lower it: fill_update). A stale entry
 * (its slot holds no candidate now, or another edge) goes back with its
 * current key: every live candidate keeps an entry no greater than its
 * key, so a top that is current is the least of all. */
static size_t edge_pop(fqueue *h, const ade_cgraph *c, const fdelta *x, int *dir, int *st) {
  ade__pkent t;
  ade__pk key;
  while (!*st && bkq_pop(&h->q, &t)) {
    int d = (int)(t.k.lo & 1);
    size_t q = 2 * t.x + (size_t)d;
    /* A key set since the last step (fill_update's stamp) is current. */
    if (q < x->seencap && x->seen[q] == x->now << 1 && h->kd[q].hi == t.k.hi && h->kd[q].lo == t.k.lo) {
      *dir = d;
      return t.x;
    }
    /* A slot holds a live edge as long as its direction applies: the
     * vertices' kinds do not change, and a new edge sets both keys. */
    if (!edge_pk(c, t.x, d, &key)) continue;
    if (key.hi == t.k.hi && key.lo == t.k.lo) {
      *dir = d;
      return t.x;
    }
    *st = edge_push(h, c, t.x, d);
  }
  return ADE__NONE;
}

/* Edge-markowitz by vertex. The keys of the front eliminations into j
 * differ only in the predecessor's id, and those of the back eliminations
 * out of i only in the successor's: the least front elimination into j is
 * that of its in-edge from the predecessor of least id, and likewise back.
 * So the least key of an intermediate's edges in one direction stands for
 * them all, *e the edge; a step changes the keys of the vertices whose
 * in- or out-list it changed, and of no other. 0 if none applies. */
static int vertex_edge_key(const ade_cgraph *c, size_t v, int dir, ade__pk *key, size_t *e) {
  const ade__vtx *V = &c->v[v];
  if (!V->alive || V->kind != ADE__Z) return 0;
  size_t n = dir == ADE_FRONT ? V->nin : V->nout, b = 0;
  /* the least id is the least index (ids ascend with the index) */
  for (size_t k = 0; k < n; k++) {
    size_t x = dir == ADE_FRONT ? V->in[k] : V->out[k], u = dir == ADE_FRONT ? c->e[x].src : c->e[x].dst;
    if (k == 0 || u < b) b = u, *e = x;
  }
  if (!n) return 0;
  /* edge_key's (cost, cost, ids, dir) in the same order, the cost once,
   * packed as edge_pk packs it (fewer than 2^31 - 1 vertices) */
  key->hi = dir == ADE_FRONT ? V->nout : V->nin;
  key->lo = (uint64_t)(dir == ADE_FRONT ? b : v) << 32 | (uint64_t)(dir == ADE_FRONT ? v : b) << 1 | (uint64_t)dir;
  return 1;
}

/* The lesser of v's two keys (front and back), *dir its direction, *e its
 * edge; 0 if neither applies. */
static int vertex_edge_best(const ade_cgraph *c, size_t v, ade__pk *key, size_t *e, int *dir) {
  ade__pk kb;
  size_t eb = ADE__NONE;
  int f = vertex_edge_key(c, v, ADE_FRONT, key, e), b = vertex_edge_key(c, v, ADE_BACK, &kb, &eb);
  *dir = ADE_FRONT;
  if (b && (!f || kb.hi < key->hi || (kb.hi == key->hi && kb.lo < key->lo))) *key = kb, *e = eb, *dir = ADE_BACK;
  return f || b;
}

/* One entry per vertex, its key the lesser of its two directions' (the
 * least of all keys is the least of these; the keys are distinct). */
static int vertex_edge_push(ade__pkq *h, const ade_cgraph *c, size_t v) {
  ade__pk key;
  size_t e;
  int dir;
  if (vertex_edge_best(c, v, &key, &e, &dir)) return pk_set(h, key, v);
  pkq_del(h, v);
  return ADE_OK;
}

/* The least key in h (stale entries as in edge_pop), left at the top:
 * the step changes the lists of its vertex, so vertex_edge_push sets its
 * key again after it, in place, where it mostly stays (the next edge of
 * the same vertex and direction, at the same cost), instead of a pop
 * and an insertion. */
static size_t vertex_edge_top(ade__pkq *h, const ade_cgraph *c, int *dir, int *st) {
  ade__pk key;
  size_t e = ADE__NONE;
  while (!*st && h->n) {
    ade__pkent t = h->a[0];
    if (!vertex_edge_best(c, t.x, &key, &e, dir)) pkq_del(h, t.x);
    else if (key.hi == t.k.hi && key.lo == t.k.lo) return e;
    else *st = pk_set(h, key, t.x);
  }
  return ADE__NONE;
}

/* The checking mode's test of the queue (ADE__ORDER_AUDIT): every vertex
 * with a key has an entry no greater than it (so a current top is the
 * least of all keys). */
static int vertex_edge_audit(const ade__pkq *h, const ade_cgraph *c) {
  ade__pk key;
  size_t e;
  int dir;
  for (size_t v = 0; v < c->nv; v++)
    if (vertex_edge_best(c, v, &key, &e, &dir) &&
        (v >= h->pcap || h->pos[v] == SIZE_MAX || pk_lt(key, h->a[h->pos[v]].k)))
      return ade__fail(ADE_EINVAL, "edge-markowitz: vertex %zu's key is not queued at or below it", v);
  return ADE_OK;
}

static int order_edge_markowitz(ade_cgraph *c, ade_elim_seq *s, double deadline, int audit) {
  if (c->nv >= ADE__PK_VERTICES)
    return ade__fail(ADE_ELIMIT, "edge-markowitz: %zu vertices, over its queue's %zu", c->nv, ADE__PK_VERTICES);
  ade__pkq h = {0};
  edelta x = {{0}, {0}};
  int st = ADE_OK, dir = 0;
  for (size_t v = 0; !st && v < c->nv; v++) st = vertex_edge_push(&h, c, v);
  while (!st && !(st = audit ? vertex_edge_audit(&h, c) : ADE_OK) && !(st = late(deadline))) {
    size_t e = vertex_edge_top(&h, c, &dir, &st);
    if (st || e == ADE__NONE) break;
    x.in.n = x.out.n = 0;
    st = edge_delta(c, e, dir, &x);
    if (!st) st = ade_seq_push(s, c->v[c->e[e].src].id, c->v[c->e[e].dst].id, dir);
    if (!st) st = ade__elim_edge_ix(c, e, dir, NULL);
    if (!st) st = over(c);
    for (size_t k = 0; !st && k < x.in.n; k++) st = vertex_edge_push(&h, c, x.in.a[k]);
    for (size_t k = 0; !st && k < x.out.n; k++) st = vertex_edge_push(&h, c, x.out.a[k]);
  }
  ade__pkq_free(&h);
  ade__ix_free(&x.in);
  ade__ix_free(&x.out);
  return st;
}

/* The checking mode's test of E_LF's queue (ADE__ORDER_AUDIT): every
 * edge with a direction that applies is queued, at a key no greater than
 * that direction's key computed from scratch (so a current top is the
 * least of all keys, whatever fill_update set, shifted or left), and so
 * is the direction's kept key (kd), which its next entry is made of. */
static int fill_audit(const fqueue *h, const ade_cgraph *c) {
  ade__pk k, q;
  for (size_t e = 0; e < c->eslots; e++)
    for (int dir = 0; dir < 2; dir++)
      if (edge_pk(c, e, dir, &k) &&
          (!bkq_key(&h->q, e, &q) || pk_lt(k, q) || 2 * e + 1 >= h->kcap || pk_lt(k, h->kd[2 * e + (size_t)dir])))
        return ade__fail(ADE_EINVAL, "edge-fillin: edge (%ld, %ld) %s is not queued at or below its key",
                         c->v[c->e[e].src].id, c->v[c->e[e].dst].id, dir == ADE_FRONT ? "front" : "back");
  return ADE_OK;
}

/* Greedy edge elimination by edge_key: E_LF, or with scan the rescanning
 * reference of either key; the E_LF keys a step changes are set again
 * after it (fill_update). */
static int order_edge_greedy(ade_cgraph *c, ade_elim_seq *s, int fillin, int scan, double deadline) {
  if (!fillin && scan != 1) return order_edge_markowitz(c, s, deadline, scan == ADE__ORDER_AUDIT);
  int audit = scan == ADE__ORDER_AUDIT;
  scan = scan == 1;
  if (!scan && c->nv >= ADE__PK_VERTICES)
    return ade__fail(ADE_ELIMIT, "edge-fillin: %zu vertices, over its queue's %zu", c->nv, ADE__PK_VERTICES);
  fqueue h = {{0}, NULL, 0};
  fdelta x = {{0}, {0}, {0}, {0}, {0}, 0, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, {NULL, 0, 0, ADE__NONE}, NULL, 0, 0,
              {NULL, 0, 0, ADE__NONE}};
  int st = ADE_OK, dir = 0;
  if (!scan) st = fill_init(&h, c);
  while (!st && !(st = audit ? fill_audit(&h, c) : ADE_OK) && !(st = late(deadline))) {
    size_t e = scan ? edge_scan(c, fillin, &dir) : edge_pop(&h, c, &x, &dir, &st);
    if (st || e == ADE__NONE) break;
    if (!scan) st = fdelta_before(c, e, dir, &x);
    if (!st) st = ade_seq_push(s, c->v[c->e[e].src].id, c->v[c->e[e].dst].id, dir);
    if (!st) st = ade__elim_edge_ix(c, e, dir, NULL);
    if (!st) st = over(c);
    if (!st && !scan) st = fill_update(&h, c, &x);
  }
  bkq_release(&h.q);
  ade__free(h.kd);
  ade__ix_free(&x.so);
  ade__ix_free(&x.pi);
  ade__ix_free(&x.pairs);
  ade__ix_free(&x.fresh);
  ade__ix_free(&x.fe);
  ade__free(x.seen);
  ade__free(x.vm);
  ade__free(x.g.m);
  ade__free(x.t.m);
  ade__free(x.um);
  return st;
}

/* ------------------------------------------------------------------ face */

/* Any intermediate face left in d? */
static int faces_left(const ade_cgraph *d) {
  for (size_t i = 0; i < d->eslots; i++) {
    const ade__edge *x = &d->e[i];
    if (x->src != ADE__NONE && d->v[x->src].kind == ADE__Z && d->v[x->dst].kind == ADE__Z) return 1;
  }
  return 0;
}

/* The faces through c-graph vertex j (index in g) as
 * ade__dual_faces_through lists them (by dual vertex index, then out-list
 * order), as pairs of dual vertex indices in f, from the dual index (its
 * lists run by decreasing index); scan: by ade__dual_faces_through itself,
 * which reads every dual vertex (ids, looked up). */
static int faces_through(const ade_cgraph *g, const ade_cgraph *d, ade__dual_index *x, size_t j, int scan,
                         ade__ix *buf, ade_elim_seq *tmp, ade__ix *f) {
  int st = ADE_OK;
  f->n = 0;
  if (scan) {
    tmp->len = 0;
    st = ade__dual_faces_through(d, g->v[j].id, tmp);
    for (size_t i = 0; !st && i < tmp->len; i++) {
      st = ade__ix_push(f, ade__graph_vertex(d, tmp->step[i].a));
      if (!st) st = ade__ix_push(f, ade__graph_vertex(d, tmp->step[i].b));
    }
    return st;
  }
  buf->n = 0;
  for (size_t u = ade__dual_index_live(x, d, j); !st && u != ADE__NONE; u = x->next[u]) st = ade__ix_push(buf, u);
  for (size_t k = buf->n; !st && k-- > 0;) {
    const ade__vtx *v = &d->v[buf->a[k]];
    for (size_t o = 0; !st && v->alive && v->kind == ADE__Z && o < v->nout; o++) {
      size_t b = d->e[v->out[o]].dst;
      if (d->v[b].kind != ADE__Z) continue;
      st = ade__ix_push(f, buf->a[k]);
      if (!st) st = ade__ix_push(f, b);
    }
  }
  return st;
}

/* Work space of the face sweeps. */
typedef struct sweep {
  const ade_cgraph *g;
  ade_cgraph *d;
  ade__dual_index x;
  ade__ix buf, f;
  ade_elim_seq *tmp;
  int scan;
  size_t rest; /* the faces still to come, at least, at the c-graph vertices not yet
                * drained that have a face through them (each its cut bound), the
                * one being drained left out (its last face may be gone) */
} sweep;

/* ADE__CUT once the cost so far plus a lower bound on the rest reaches the
 * ceiling. The bound: the c-graph vertices with an intermediate face
 * through them are never more after a face step, and at most one fewer
 * (doc/elimination.md, "Never worse than what they generalize"), and a
 * complete sequence leaves none; so each costs at least 1 more, and at
 * least its cut bound (cuts.c) before its first face is taken. */
static int sweep_over(const sweep *w) {
  const ade_cgraph *d = w->d;
  ade__watch_step(d->watch, d->fma);
  return ade__reached(d->live, d->ceiling, d->fma + w->rest) ? ADE__CUT : ADE_OK;
}

/* Eliminate every face through c-graph vertex j (absorption and merges
 * may remove listed faces; fill-ins may add new ones: repeat until none).
 * Vertex indices stay valid: vertices are only appended, a removed one is
 * marked dead. */
static int drain(sweep *w, size_t j, ade_elim_seq *s, double deadline) {
  int st = late(deadline);
  while (!st) {
    st = faces_through(w->g, w->d, &w->x, j, w->scan, &w->buf, w->tmp, &w->f);
    for (size_t i = 0; !st && i < w->f.n; i += 2) {
      size_t a = w->f.a[i], b = w->f.a[i + 1], e;
      if (a == ADE__NONE || b == ADE__NONE || !w->d->v[a].alive || !w->d->v[b].alive ||
          (e = ade__graph_find(w->d, a, b)) == ADE__NONE)
        continue;
      st = ade_seq_push(s, w->d->v[a].id, w->d->v[b].id, 0);
      if (!st) st = ade__face_step_at(w->d, e);
      if (!st) st = sweep_over(w);
      if (!st && s->len >= ADE__MAX_FACE_STEPS) st = ade__fail(ADE_ELIMIT, "face ordering: step limit reached");
    }
    if (!st) st = ade__dual_index_sync(&w->x, w->g, w->d);
    if (!w->f.n) break;
  }
  return st;
}

/* Forward or reverse: the faces through each intermediate vertex of g in
 * id order (or reverse), until no intermediate face is left. */
static int order_face_sweep(const ade_cgraph *g, ade_cgraph *d, ade_elim_seq *s, int reverse, int scan,
                            double deadline) {
  sweep w = {g, d, {0}, {0}, {0}, NULL, scan, 0};
  uint8_t *face = NULL; /* face[j]: j's share of w.rest (pass 0 only) */
  int st = ade_seq_create(&w.tmp, ADE_SEQ_FACE);
  if (!st) st = ade__dual_index_init(&w.x, g, d);
  if (!st && d->ceiling && !(face = ade__calloc(g->nv + 1, 1)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a face sweep of %zu vertices", g->nv);
  for (size_t j = 0; !st && face && j < g->nv; j++)
    if (g->v[j].alive && g->v[j].kind == ADE__Z && ade__dual_has_face(&w.x, d, j))
      w.rest += face[j] = (uint8_t)ade__cut(d->cut, j);
  for (int pass = 0; !st && (pass == 0 || faces_left(d)); pass++) {
    if (pass > 2) {
      st = ade__fail(ADE_ELIMIT, "face ordering: faces left after %d sweeps", pass);
      break;
    }
    for (size_t t = 0; !st && t < g->nv; t++) {
      size_t j = reverse ? g->nv - 1 - t : t;
      if (face && face[j]) w.rest -= face[j], face[j] = 0; /* j is drained now */
      if (!st && g->v[j].alive && g->v[j].kind == ADE__Z) st = drain(&w, j, s, deadline);
    }
  }
  ade__free(face);
  ade__dual_index_free(&w.x);
  ade__ix_free(&w.buf);
  ade__ix_free(&w.f);
  ade_seq_free(w.tmp);
  return st;
}

/* The key of face e, least first: absorption (0), else the dual edges a
 * fill-in adds (1 + |P_a| + |S_b|); then ctgt(a) and the ids. 0 if e is no
 * intermediate face. Needs the marks sized (ade__graph_marks). */
static void face_key_as(const ade_cgraph *d, size_t a, size_t b, int absorb, long *key) {
  key[0] = absorb ? 0 : 1 + (long)(d->v[a].nin + d->v[b].nout);
  key[1] = d->v[a].ctgt;
  key[2] = d->v[a].id;
  key[3] = d->v[b].id;
  key[4] = 0;
}

static int face_key(ade_cgraph *d, size_t e, long *key) {
  const ade__edge *x = &d->e[e];
  if (x->src == ADE__NONE || d->v[x->src].kind != ADE__Z || d->v[x->dst].kind != ADE__Z) return 0;
  face_key_as(d, x->src, x->dst, ade__dual_twin(d, x->src, x->dst, ADE__NONE) != ADE__NONE, key);
  return 1;
}

static size_t face_scan(ade_cgraph *d) {
  size_t best = ADE__NONE;
  long key[ADE__PQ_KEYS], bkey[ADE__PQ_KEYS];
  for (size_t e = 0; e < d->eslots; e++)
    if (face_key(d, e, key) && (best == ADE__NONE || ade__pq_less(key, bkey))) {
      best = e;
      memcpy(bkey, key, sizeof key);
    }
  return best;
}

/* face-greedy's queue: one entry per face (edge slot of the dual), its
 * key face_key packed into two words: (key[0], the index of ctgt(a) in
 * the c-graph) high, the ids of a and b low (ids ascend with the index
 * in a c-graph; those of the dual's intermediates are positive and below
 * next_vertex_id). rk: per dual vertex, the index of its ctgt; K: work
 * space of faces_push. */
typedef struct fgqueue {
  ade__pkq q;
  uint32_t *rk;
  size_t rkcap;
  ade__ix K;
  uint64_t hi; /* the high word of the key of the face face_pop returned last */
} fgqueue;

static inline ade__pk face_pk(const fgqueue *h, const ade_cgraph *d, size_t a, size_t b, int absorb) {
  const ade__vtx *A = &d->v[a], *B = &d->v[b]; /* face_key_as's key, packed */
  uint64_t k0 = absorb ? 0 : 1 + (uint64_t)(A->nin + B->nout);
  ade__pk k = {k0 << 32 | h->rk[a], (uint64_t)A->id << 32 | (uint64_t)B->id};
  return k;
}

/* Set rk for the dual vertices from v0 on; hint: a vertex whose ctgt they
 * likely share, or ADE__NONE (a fill-in takes its face's b's). The keys
 * fit while the dual stays below 2^31 - 1 vertices and ids (each of the at most ADE__MAX_FACE_STEPS steps adds at
 * most one): key[0] <= 1 + 2 nv. */
static int face_ranks(fgqueue *h, const ade_cgraph *g, const ade_cgraph *d, size_t v0, size_t hint) {
  if ((uint64_t)d->nv + ADE__MAX_FACE_STEPS >= INT32_MAX || d->next_vertex_id < 0 ||
      (uint64_t)d->next_vertex_id + ADE__MAX_FACE_STEPS >= INT32_MAX)
    return ade__fail(ADE_ELIMIT, "face-greedy: %zu dual vertices, over its queue's keys", d->nv);
  if (d->nv > h->rkcap) {
    size_t nc = 2 * d->nv + 64;
    uint32_t *p = ade__realloc(h->rk, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for the keys of %zu faces", nc);
    h->rk = p, h->rkcap = nc;
  }
  size_t j = hint == ADE__NONE ? ADE__NONE : h->rk[hint]; /* the index of ctgt c */
  long c = hint == ADE__NONE ? 0 : d->v[hint].ctgt;
  for (size_t v = v0; v < d->nv; v++) {
    const ade__vtx *V = &d->v[v];
    h->rk[v] = 0;
    if (!V->alive || V->kind != ADE__Z) continue;
    if (j == ADE__NONE || V->ctgt != c) j = ade__graph_vertex_at(g, c = V->ctgt);
    if (j == ADE__NONE || V->id < 0)
      return ade__fail(ADE_EINVAL, "face-greedy: dual vertex %ld leads to no c-graph vertex", V->id);
    h->rk[v] = (uint32_t)j;
  }
  return ADE_OK;
}

/* The checking mode's test of the queue (ADE__ORDER_AUDIT): every
 * intermediate face has an entry no greater than its key (so a current
 * top is the least of all keys). Needs the marks sized. */
static int face_audit(const fgqueue *h, ade_cgraph *d) {
  long key[ADE__PQ_KEYS];
  for (size_t e = 0; e < d->eslots; e++) {
    if (!face_key(d, e, key)) continue;
    ade__pk k = face_pk(h, d, d->e[e].src, d->e[e].dst, key[0] == 0);
    if (e >= h->q.pcap || h->q.pos[e] == SIZE_MAX || pk_lt(k, h->q.a[h->q.pos[e]].k))
      return ade__fail(ADE_EINVAL, "face-greedy: face (%ld, %ld)'s key is not queued at or below it",
                       d->v[d->e[e].src].id, d->v[d->e[e].dst].id);
  }
  return ADE_OK;
}

/* The least entry whose key is current (a stale one set again, as
 * edge_pop). The queue holds every face at or below its key, so an entry
 * above key 0 is of a face that does not absorb: its key needs no twin
 * search. */
static size_t face_pop(fgqueue *h, ade_cgraph *d, int *st) {
  ade__pkent t;
  long key[ADE__PQ_KEYS];
  while (!*st && pkq_pop(&h->q, &t)) {
    const ade__edge *x = &d->e[t.x];
    if (x->src == ADE__NONE || d->v[x->src].kind != ADE__Z || d->v[x->dst].kind != ADE__Z) continue;
    if (t.k.hi >> 32 == 0 && !face_key(d, t.x, key)) continue;
    ade__pk k = face_pk(h, d, x->src, x->dst, t.k.hi >> 32 == 0 && key[0] == 0);
    if (k.hi == t.k.hi && k.lo == t.k.lo) {
      h->hi = k.hi;
      return t.x;
    }
    *st = pk_set(&h->q, k, t.x); /* stale: as edge_pop */
  }
  return ADE__NONE;
}

/* Set the keys of the faces out of v (out) or into v, as face_key would;
 * fresh: the faces are not queued yet, appended out of heap order (the
 * queue's first build, heapified after), and h->K already holds v's
 * twins on that side. */
static inline __attribute__((always_inline)) int faces_push_side(fgqueue *h, ade_cgraph *d, size_t v, const int out,
                                                                int fresh) {
  ade__ix *K = &h->K;
  int st = fresh ? ADE_OK : dual_same_side(d, v, out, K);
  const ade__vtx *V = &d->v[v];
  for (size_t o = 0; !st && o < (out ? V->nout : V->nin); o++) {
    size_t e = out ? V->out[o] : V->in[o], w = out ? d->e[e].dst : d->e[e].src;
    if (d->v[w].kind != ADE__Z) {
      if (!fresh) pkq_del(&h->q, e);
      continue;
    }
    ade__pk k = face_pk(h, d, out ? v : w, out ? w : v, dual_side_matches(d, K, w, out));
    if (fresh) st = pk_append(&h->q, k, e);
    else if (!ade__pkq_queued(&h->q, e) || pk_lt(k, h->q.a[h->q.pos[e]].k)) st = pk_set(&h->q, k, e);
  }
  return st;
}

static int faces_push(fgqueue *h, ade_cgraph *d, size_t v, int out, int fresh) { /* one copy per side */
  return out ? faces_push_side(h, d, v, 1, fresh) : faces_push_side(h, d, v, 0, fresh);
}

/* The queue's first build: every face's key, appended, then heapified.
 * The intermediates with equal P form classes (as at the face
 * hierarchy's start): the twins K of a vertex are its class without it,
 * so one search per class finds them (cls[v]: where v's class [size,
 * members...] starts in cm). */
static int faces_start(fgqueue *h, ade_cgraph *d) {
  size_t *cls = ade__alloc((d->nv + 1) * sizeof *cls);
  ade__ix cm = {0};
  int st = cls ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for the twins of %zu dual vertices", d->nv);
  for (size_t v = 0; cls && v < d->nv; v++) cls[v] = SIZE_MAX;
  for (size_t v = 0; !st && v < d->nv; v++) {
    if (!d->v[v].alive || d->v[v].kind != ADE__Z) continue;
    ade__ix *K = &h->K;
    if (cls[v] == SIZE_MAX) {
      size_t at = cm.n;
      st = dual_same_side(d, v, 1, K);
      if (!st) st = ade__ix_push(&cm, K->n + 1);
      if (!st) st = ade__ix_push(&cm, v);
      for (size_t i = 0; !st && i < K->n; i++) st = ade__ix_push(&cm, K->a[i]);
      for (size_t i = 0; !st && i <= K->n; i++) cls[cm.a[at + 1 + i]] = at;
    } else {
      K->n = 0;
      for (size_t i = 0, at = cls[v]; !st && i < cm.a[at]; i++)
        if (cm.a[at + 1 + i] != v) st = ade__ix_push(K, cm.a[at + 1 + i]);
    }
    if (!st) st = faces_push(h, d, v, 1, 1);
  }
  if (!st) pkq_heapify(&h->q);
  ade__free(cls);
  ade__ix_free(&cm);
  return st;
}

/* Key 0 for face e, which absorbs (ade__dual_absorbed_each). */
static int absorbed_push(void *ctx, ade_cgraph *d, size_t e) {
  fgqueue *h = ctx;
  return pk_set(&h->q, face_pk(h, d, d->e[e].src, d->e[e].dst, 1), e);
}

/* Set again the keys that can have dropped in a step: |P_x| drops only if
 * x lost an in-edge, |S_y| only if y lost an out-edge, and (x, y) turns
 * absorbing only if P_x or S_y changed or a vertex v now has P_v = P_x and
 * S_v = S_y (then it absorbs: key 0). in and out list the vertices whose
 * in- or out-list changed. */
static int face_touched(fgqueue *h, ade_cgraph *d, const ade__ix *in, const ade__ix *out, size_t nv0) {
  int st = ADE_OK;
  for (int side = 0; side < 2; side++) {
    const ade__ix *l = side ? out : in;
    for (size_t k = 0; !st && k < l->n; k++) {
      const ade__vtx *v = &d->v[l->a[k]];
      if (!v->alive || v->kind != ADE__Z) continue;
      st = faces_push(h, d, l->a[k], !side, 0);
      /* the faces v absorbs, found from either side: a fill-in (from nv0
       * on), in both lists, has them set on the first */
      if (!st && !side) st = dual_absorbed_each(d, &h->K, l->a[k], 1, absorbed_push, h);
      else if (!st && l->a[k] < nv0) st = dual_absorbed_each(d, &h->K, l->a[k], 0, absorbed_push, h);
    }
  }
  return st;
}

/* Greedy face elimination by face_key: absorption first, then the fill-in
 * that adds the fewest dual edges; ties by the faces' forward order. */
static int order_face_greedy(const ade_cgraph *g, ade_cgraph *d, ade_elim_seq *s, int scan, double deadline) {
  int audit = scan == ADE__ORDER_AUDIT;
  scan = scan == 1;
  fgqueue h = {{0}, NULL, 0, {0}, 0};
  ade__ix in = {0}, out = {0};
  ade__faced F = {{0}, NULL, 0};
  int st = ade__graph_marks(d);
  if (!st && !scan) st = face_ranks(&h, g, d, 0, ADE__NONE);
  if (!st && d->ceiling) st = scan ? ade__faced_init(&F, g, d) : ade__faced_init_rk(&F, g, d, h.rk); /* a lower bound */
  if (!st && !scan) st = faces_start(&h, d);
  while (!st && !(st = audit ? face_audit(&h, d) : ADE_OK) && !(st = late(deadline))) {
    size_t e = scan ? face_scan(d) : face_pop(&h, d, &st), nv0 = d->nv;
    if (st || e == ADE__NONE) break;
    size_t a = d->e[e].src, b = d->e[e].dst;
    long through = d->v[a].ctgt;
    size_t jt = scan ? ADE__NONE : h.rk[a]; /* its index in g (the fill-in's rk is set below) */
    /* The vertices whose in- (out-) lists lost an entry go to in (out),
     * with the fill-in k' (face_touched sets again the keys that can have
     * dropped). Rule 1 (face.c: the fill-in, then settle a and b) takes a
     * out of P_b and b out of S_a; a that goes (isolated: a step takes no
     * in-edge of a, so exactly when a has no predecessor or b was its only
     * successor) leaves P_a and S_a, likewise b; a merge takes the twin
     * that goes out of the lists of its predecessors and successors, those
     * of the twin that stays (ade__face_step_kept). Otherwise the lists
     * only gain k': P_s for s in S_b, S_p for p in P_a. No key there can
     * drop for it: |P_s| and |S_p| grow, and if some u has P_u = P_x and
     * S_u = S_y after the step but not before, with none of the in-lists of
     * x and u and out-lists of y and u having lost an entry, then each of
     * those changed at most by gaining k' -- but k' in P_u = P_x (S_u =
     * S_y) means both gained it, so the sets were equal before too; those
     * faces are re-keyed through x, y or u in the lists. */
    size_t kept[2], ga = d->v[a].nin == 0 || d->v[a].nout == 1, gb = d->v[b].nout == 0 || d->v[b].nin == 1;
    in.n = out.n = 0;
    st = ade__ix_push(&in, b);
    if (!st) st = ade__ix_push(&out, a);
    if (!st && ga) st = adjacent(d, a, 1, 0, &out);
    if (!st && gb) st = adjacent(d, b, 0, 1, &in);
    for (size_t x = 0; !st && ga && x < d->v[a].nout; x++) /* S_a but b, which is listed */
      if (d->e[d->v[a].out[x]].dst != b) st = ade__ix_push(&in, d->e[d->v[a].out[x]].dst);
    for (size_t x = 0; !st && gb && x < d->v[b].nin; x++)
      if (d->e[d->v[b].in[x]].src != a) st = ade__ix_push(&out, d->e[d->v[b].in[x]].src);
    if (!st) st = ade_seq_push(s, d->v[a].id, d->v[b].id, 0);
    /* a current key above 0: the face does not absorb, no twin to search */
    if (!st) st = ade__face_step_kept(d, e, scan || !(h.hi >> 32), kept);
    for (int k = 0; !st && k < 2; k++)
      if (kept[k] != ADE__NONE) {
        st = adjacent(d, kept[k], 0, 1, &in);
        if (!st) st = adjacent(d, kept[k], 1, 0, &out);
      }
    if (!st) st = over(d);
    if (!st && F.face) st = scan ? ade__faced_step(&F, g, d, through) : ade__faced_step_rk(&F, g, d, jt, NULL);
    if (!st && F.face && ade__reached(d->live, d->ceiling, d->fma + F.rest)) st = ADE__CUT;
    if (!st && s->len >= ADE__MAX_FACE_STEPS) st = ade__fail(ADE_ELIMIT, "face ordering: step limit");
    if (!st) st = ade__graph_marks(d);
    for (size_t v = nv0; !st && !scan && v < d->nv; v++) { /* the fill-in */
      st = ade__ix_push(&in, v);
      if (!st) st = ade__ix_push(&out, v);
    }
    if (!st && !scan && d->nv > nv0) st = face_ranks(&h, g, d, nv0, b);
    if (!st && !scan) st = face_touched(&h, d, &in, &out, nv0);
  }
  ade__ix_free(&h.K);
  ade__pkq_free(&h.q);
  ade__free(h.rk);
  ade__ix_free(&in);
  ade__ix_free(&out);
  ade__faced_free(&F);
  return st;
}

/* ------------------------------------------------------------- entries */

/* The orderings each ordering generalizes (a vertex elimination is the
 * front elimination of its in-edges, an edge elimination the elimination
 * of its faces, at the same cost): the cheapest is returned. */
static const int generalizes[ADE_ORDER_COUNT][3] = {
    [ADE_ORDER_VERTEX_FORWARD] = {-1, -1, -1},
    [ADE_ORDER_VERTEX_REVERSE] = {-1, -1, -1},
    [ADE_ORDER_VERTEX_MARKOWITZ] = {-1, -1, -1},
    [ADE_ORDER_VERTEX_RELATIVE] = {-1, -1, -1},
    [ADE_ORDER_VERTEX_CHAINS] = {-1, -1, -1}, /* itself the start of the edge and face orderings */
    /* a counted vertex sweep first: its cost is the ceiling of the rest
     * (an edge sweep costs what the vertex sweep does) */
    [ADE_ORDER_EDGE_FORWARD] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ, -1},
    [ADE_ORDER_EDGE_REVERSE] = {ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ, -1},
    [ADE_ORDER_EDGE_MARKOWITZ] = {ADE_ORDER_VERTEX_MARKOWITZ, -1, -1},
    [ADE_ORDER_EDGE_FILLIN] = {ADE_ORDER_VERTEX_MARKOWITZ, -1, -1},
    [ADE_ORDER_FACE_FORWARD] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ, -1},
    [ADE_ORDER_FACE_REVERSE] = {ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ, -1},
    [ADE_ORDER_FACE_GREEDY] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN},
};

/* Run the ordering on c (a copy of g, or its dual). At the deadline, with
 * limited, the rest is eliminated in the order of the cheaper vector mode
 * (vertex Markowitz orderings: as vertices):
 * forward (vertices in id order as front eliminations; the faces through
 * each vertex), or reverse when g has fewer dependents than independents. */
static int run(const ade_cgraph *g, ade_cgraph *c, ade_elim_seq *s, int order, int scan, double deadline,
               int *limited) {
  int st, rev = g->m < g->n;
  switch (order) {
  case ADE_ORDER_VERTEX_FORWARD: return order_sweep(c, s, 0, 0);
  case ADE_ORDER_VERTEX_REVERSE: return order_sweep(c, s, 1, 0);
  case ADE_ORDER_VERTEX_MARKOWITZ:
  case ADE_ORDER_VERTEX_RELATIVE:
    st = order_markowitz(c, s, order == ADE_ORDER_VERTEX_RELATIVE, scan, deadline);
    if (st == ADE_ELIMIT && limited && expired(deadline)) *limited = 1, st = order_sweep(c, s, rev, 0);
    return st;
  case ADE_ORDER_EDGE_FORWARD: return order_sweep(c, s, 0, 1);
  case ADE_ORDER_EDGE_REVERSE: return order_sweep(c, s, 1, 1);
  case ADE_ORDER_EDGE_MARKOWITZ:
  case ADE_ORDER_EDGE_FILLIN:
    st = order_edge_greedy(c, s, order == ADE_ORDER_EDGE_FILLIN, scan, deadline);
    if (st == ADE_ELIMIT && limited && expired(deadline)) *limited = 1, st = order_sweep(c, s, rev, 1);
    return st;
  default:
    st = order == ADE_ORDER_FACE_GREEDY ? order_face_greedy(g, c, s, scan, deadline)
                                        : order_face_sweep(g, c, s, order == ADE_ORDER_FACE_REVERSE, scan, deadline);
    if (st == ADE_ELIMIT && limited && expired(deadline))
      *limited = 1, st = order_face_sweep(g, c, s, rev, scan, 0);
    return st;
  }
}

/* Whether every edge runs from a lower to a higher vertex index (always so
 * for a c-graph from a tape: operands precede results). */
static int index_topological(const ade_cgraph *g) {
  for (size_t e = 0; e < g->eslots; e++)
    if (g->e[e].src != ADE__NONE && g->e[e].src >= g->e[e].dst) return 0;
  return 1;
}

/* The cost of vertex elimination in forward (reverse) index order without
 * eliminating, for g whose index order is topological: eliminating j after
 * all intermediates before it leaves it the independents it depends on as
 * predecessors and its own successors (fill-in only enters later
 * vertices), so it costs |X(j)| |S_j| (reverse: |P_j| |Y(j)|). */
static int reach_counts(const ade_cgraph *g, int reverse, uint64_t *cnt, int by_index);
/* The same with the counts |X(j)| (reverse: |Y(j)|) kept in *cnt (NULL:
 * freed), for the sweep after the chains (chains_first). */
static int sweep_counts(const ade_cgraph *g, int reverse, uint64_t **cnt, uint64_t *cost) {
  uint64_t *c = ade__alloc((g->nv + 1) * sizeof *c), total = 0;
  int st = c ? reach_counts(g, reverse, c, 1) : ade__fail(ADE_ENOMEM, "out of memory for the cost of a sweep");
  for (size_t j = 0; !st && j < g->nv; j++)
    if (g->v[j].alive && g->v[j].kind == ADE__Z) total += c[j] * (reverse ? g->v[j].nin : g->v[j].nout);
  if (cnt && !st) *cnt = c;
  else ade__free(c);
  *cost = total;
  return st;
}
static int sweep_cost(const ade_cgraph *g, int reverse, uint64_t *cost) { return sweep_counts(g, reverse, NULL, cost); }

int ade__sweep_floor(const ade_cgraph *g, int reverse, uint64_t bar, uint64_t *floor) {
  uint64_t *r = ade__calloc(g->nv + 1, sizeof *r), total = 0;
  if (!r) return ade__fail(ADE_ENOMEM, "out of memory for the floor of a sweep of %zu vertices", g->nv);
  int src = reverse ? ADE__Y : ADE__X;
  for (size_t t = 0; t < g->nv && total < bar; t++) {
    size_t j = reverse ? g->nv - 1 - t : t;
    const ade__vtx *v = &g->v[j];
    if (!v->alive || v->kind == src) continue;
    size_t deg = reverse ? v->nout : v->nin, ns = 0;
    const size_t *adj = reverse ? v->out : v->in;
    uint64_t most = 0;
    for (size_t a = 0; a < deg; a++) {
      size_t p = reverse ? g->e[adj[a]].dst : g->e[adj[a]].src;
      if (g->v[p].kind == src) ns++;
      else if (r[p] > most) most = r[p];
    }
    r[j] = ns > most ? ns : most;
    if (v->kind == ADE__Z) total += r[j] * (reverse ? v->nin : v->nout);
  }
  ade__free(r);
  *floor = total;
  return ADE_OK;
}

/* A binary min-heap of positions (size_t), for the batches below. */
static void heap_push(size_t *h, size_t *n, size_t x) {
  size_t i = (*n)++;
  for (; i && h[(i - 1) / 2] > x; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
  h[i] = x;
}

static size_t heap_pop(size_t *h, size_t *n) {
  size_t top = h[0], x = h[--*n], i = 0;
  for (size_t c; (c = 2 * i + 1) < *n; i = c) {
    if (c + 1 < *n && h[c + 1] < h[c]) c++;
    if (h[c] >= x) break;
    h[i] = h[c];
  }
  if (*n) h[i] = x;
  return top;
}

/* The reach counts of all (at most 64) sources at once, added to cnt: the
 * topological order ord of k vertices (NULL: the k = g->nv indices, a
 * topological order) scanned once, forward (reverse: backward), each
 * vertex's word (zeros in w) passed on to its neighbours. A source
 * outside ord (not in the graph) reaches nothing. */
static void one_batch(const ade_cgraph *g, int reverse, const size_t *ord, size_t k, uint64_t *w, uint64_t *cnt) {
  size_t nsrc = reverse ? g->m : g->n;
  for (size_t i = 0; i < nsrc; i++) {
    size_t s = reverse ? g->yv[i] : g->xv[i];
    if (g->v[s].alive) w[s] |= UINT64_C(1) << i;
  }
  for (size_t t = 0; t < k; t++) {
    size_t j = reverse ? k - 1 - t : t;
    if (ord) j = ord[j];
    if (!w[j]) continue;
    const ade__vtx *v = &g->v[j];
    size_t deg = reverse ? v->nin : v->nout;
    const size_t *adj = reverse ? v->in : v->out;
    cnt[j] += (uint64_t)__builtin_popcountll(w[j]);
    for (size_t e = 0; e < deg; e++) w[reverse ? g->e[adj[e]].src : g->e[adj[e]].dst] |= w[j];
  }
}

/* Per vertex, how many independents reach it (reverse: dependents it
 * reaches): the sets propagated 64 at a time as bits, one word per vertex.
 * A batch visits only the vertices it reaches, in topological order (a heap
 * of their positions, each pushed when its word turns nonzero): O(R log R)
 * for R reached, which on a local graph (a stencil, a time step) are a few
 * near the batch's sources; O(|E| n/64 log V) at worst (reverse: m/64),
 * O(V) memory. One batch (at most 64 sources) scans the topological order
 * instead, in O(V + E) without the heap: by index where the caller knows
 * that order topological (by_index), with no sort. */
static int reach_counts(const ade_cgraph *g, int reverse, uint64_t *cnt, int by_index) {
  size_t nsrc = reverse ? g->m : g->n, nv = g->nv, k = 0, nh = 0;
  int st = ade__budget(g->memlimit, ade__mul_size(nv + 1, 4 * sizeof(uint64_t)), "reachability of %zu vertices", nv);
  if (!st && nsrc <= 64 && by_index) {
    uint64_t *w = ade__calloc(nv + 1, sizeof *w);
    if (!w) return ade__fail(ADE_ENOMEM, "out of memory for the reachability of %zu vertices", nv);
    memset(cnt, 0, nv * sizeof *cnt);
    one_batch(g, reverse, NULL, nv, w, cnt);
    ade__free(w);
    return ADE_OK;
  }
  uint64_t *w = st ? NULL : ade__calloc(nv + 1, sizeof *w);
  size_t *ord = st ? NULL : ade__alloc((nv + 1) * sizeof *ord);
  size_t *pos = st ? NULL : ade__alloc((nv + 1) * sizeof *pos), *h = st ? NULL : ade__alloc((nv + 1) * sizeof *h);
  if (!st && (!w || !ord || !pos || !h))
    st = ade__fail(ADE_ENOMEM, "out of memory for the reachability of %zu vertices", nv);
  if (!st) st = ade__cgraph_topo(g, ord, &k);
  if (!st) {
    memset(cnt, 0, nv * sizeof *cnt);
    for (size_t j = 0; j < nv; j++) pos[j] = SIZE_MAX;
    for (size_t t = 0; t < k; t++) pos[ord[reverse ? k - 1 - t : t]] = t;
  }
  if (!st && nsrc <= 64) {
    one_batch(g, reverse, ord, k, w, cnt);
    nsrc = 0; /* done: the batches below do not run */
  }
  for (size_t b0 = 0; !st && b0 < nsrc; b0 += 64) {
    for (size_t i = b0; i < nsrc && i < b0 + 64; i++) {
      size_t s = reverse ? g->yv[i] : g->xv[i];
      if (pos[s] == SIZE_MAX) continue; /* not in the graph */
      if (!w[s]) heap_push(h, &nh, pos[s]);
      w[s] |= UINT64_C(1) << (i - b0);
    }
    while (nh) {
      size_t j = ord[reverse ? k - 1 - heap_pop(h, &nh) : heap_pop(h, &nh)];
      const ade__vtx *v = &g->v[j];
      size_t deg = reverse ? v->nin : v->nout;
      const size_t *adj = reverse ? v->in : v->out;
      cnt[j] += (uint64_t)__builtin_popcountll(w[j]);
      for (size_t e = 0; e < deg; e++) {
        size_t d = reverse ? g->e[adj[e]].src : g->e[adj[e]].dst;
        if (!w[d]) heap_push(h, &nh, pos[d]);
        w[d] |= w[j];
      }
      w[j] = 0; /* done with: the next batch starts from zeros */
    }
  }
  ade__free(w);
  ade__free(ord);
  ade__free(pos);
  ade__free(h);
  return st;
}

int ade__reach_counts(const ade_cgraph *g, int reverse, uint64_t *cnt) { return reach_counts(g, reverse, cnt, 0); }

/* Vertex elimination in forward or reverse index order: the intermediates
 * listed, the cost by sweep_cost (plus what g has counted already, as an
 * elimination on a copy of g would report). */
/* The intermediates of g in index order (reverse: the other way), but
 * those gone (gone: NULL, or gone[j] != j for a vertex eliminated
 * already), appended to s. */
static int sweep_steps(const ade_cgraph *g, int reverse, const size_t *gone, ade_elim_seq *s) {
  if (ade__grow((void **)&s->step, &s->cap, s->len + g->nv, sizeof *s->step)) /* room once: steps written */
    return ade__fail(ADE_ENOMEM, "out of memory for %zu steps", s->len + g->nv);
  s->checked = 0;
  for (size_t t = 0; t < g->nv; t++) {
    size_t j = reverse ? g->nv - 1 - t : t;
    const ade__vtx *v = &g->v[j];
    if (v->alive && v->kind == ADE__Z && (!gone || gone[j] == j)) s->step[s->len++] = (ade_elim_step){v->id, 0, 0};
  }
  return ADE_OK;
}
static int vertex_sweep(const ade_cgraph *g, int reverse, ade_elim_seq *s) {
  int st = sweep_cost(g, reverse, &s->cost);
  s->cost += g->fma;
  return st ? st : sweep_steps(g, reverse, NULL, s);
}

/* V_LM or V_LR by vmark.c, as run() would on a copy of g (the same
 * sequence, cost and fill-in), in a fraction of the time and memory;
 * ADE__FALLBACK (nothing returned) where vmark.c declines g. */
static int structural(const ade_cgraph *g, int relative, double deadline, ade__watch *w, int *limited,
                      ade_elim_seq **sp, uint64_t *fill, uint64_t ceiling, ade__live *live, const uint8_t *cut) {
  ade_elim_seq *s = NULL;
  int64_t *dd = NULL;
  uint64_t fma = 0, f = 0;
  int swept = 0, st = ade_seq_create(&s, ADE_SEQ_VERTEX);
  if (!st && relative)
    st = (dd = ade__alloc((g->nv + 1) * sizeof *dd)) ? dependency_degrees(g, dd)
                                                   : ade__fail(ADE_ENOMEM, "out of memory for dependency degrees");
  if (!st)
    st = ade__vmark_order(g, dd, ceiling == UINT64_MAX ? 0 : ceiling, live, cut, deadline,
                          limited ? g->m < g->n : -1, w, &swept, s, &fma, &f);
  ade__free(dd);
  if (swept && st != ADE__FALLBACK) *limited = 1;
  if (st) {
    ade_seq_free(s);
    return st;
  }
  s->cost = fma;
  if (fill) *fill = f;
  *sp = s;
  return ADE_OK;
}

/* Whether the cost of g so far plus the cut bounds of its intermediates
 * reach the ceiling (or live's bar): then no sequence can win, and
 * nothing need be built. */
static int bound_reached(const ade_cgraph *g, const uint8_t *cut, uint64_t ceiling, ade__live *live) {
  uint64_t lb = g->fma;
  for (size_t j = 0; j < g->nv; j++)
    if (g->v[j].alive && g->v[j].kind == ADE__Z) lb += ade__cut(cut, j);
  return ade__reached(live, ceiling, lb);
}

static int vector_sweep(const ade_cgraph *g, ade_elim_seq **sp, uint64_t *cost);

/* The ordering's own sequence; *fill (may be NULL) gets the fill-in.
 * ADE__CUT (nothing returned) once its cost reaches ceiling (UINT64_MAX:
 * none): it is compared with a sequence of that cost and cannot win.
 * With live (may be NULL), the ceiling is live->bar; cut: g's cut bounds
 * (may be NULL), for the cut at the ceiling. */
static int own_live(const ade_cgraph *g, int order, int scan, double deadline, ade__watch *w, int *limited,
                    ade_elim_seq **sp, uint64_t *fill, uint64_t ceiling, ade__live *live, const uint8_t *cut) {
  ade_cgraph *c = NULL;
  ade_elim_seq *s = NULL;
  int kind = orders[order].kind;
  if (w) w->p.running = order, w->p.steps = 0;
  if (cut && ceiling != UINT64_MAX && bound_reached(g, cut, ceiling, live)) return ADE__CUT;
  if (order == ADE_ORDER_VERTEX_CHAINS) return vector_sweep(g, sp, NULL); /* counted, or one direction simulated */
  if (!scan && (order == ADE_ORDER_VERTEX_MARKOWITZ || order == ADE_ORDER_VERTEX_RELATIVE)) {
    int st = structural(g, order == ADE_ORDER_VERTEX_RELATIVE, deadline, w, limited, sp, fill, ceiling, live, cut);
    if (st != ADE__FALLBACK) return st;
  }
  if (!scan && (order == ADE_ORDER_VERTEX_FORWARD || order == ADE_ORDER_VERTEX_REVERSE) && index_topological(g)) {
    int st = ade_seq_create(&s, kind);
    if (!st) st = vertex_sweep(g, order == ADE_ORDER_VERTEX_REVERSE, s);
    if (st) ade_seq_free(s);
    else *sp = s;
    return st;
  }
  int st = kind == ADE_SEQ_FACE ? ade_cgraph_dual(&c, g) : ade_cgraph_copy(&c, g);
  if (!st) st = ade_seq_create(&s, kind);
  /* A vertex or edge sequence gets g's fingerprint once it has won
   * (bind); the dual's is taken here. */
  if (!st && kind == ADE_SEQ_FACE) s->fingerprint = ade__graph_fingerprint(c);
  if (!st) c->ceiling = ceiling == UINT64_MAX ? 0 : ceiling, c->live = live, c->cut = cut;
  if (!st) c->watch = w;
  if (!st && c->ceiling && kind != ADE_SEQ_FACE) st = set_bounds(c);
  if (!st) st = run(g, c, s, order, scan, deadline, limited);
  if (!st) s->cost = c->fma;
  if (!st && fill) *fill = c->fill;
  ade_cgraph_free(c);
  if (st) ade_seq_free(s);
  else *sp = s;
  return st;
}

static int own(const ade_cgraph *g, int order, int scan, double deadline, ade__watch *w, int *limited,
               ade_elim_seq **sp, uint64_t *fill, uint64_t ceiling, const uint8_t *cut) {
  return own_live(g, order, scan, deadline, w, limited, sp, fill, ceiling, NULL, cut);
}

/* A vertex or edge sequence's fingerprint: g's (a copy of g has it).
 * Every sequence bound here is complete and costed for g: own() applied
 * it step by step to a copy of g (or its dual), or counted a sweep of all
 * intermediates, and the conversions simulate their result; so it is
 * marked checked (ade_elim_seq.checked), and ade__seq_finish binds it
 * without simulating it again. */
static ade_elim_seq *bind(const ade_cgraph *g, ade_elim_seq *s) {
  if (s->kind != ADE_SEQ_FACE && !s->fingerprint) s->fingerprint = ade__graph_fingerprint(g);
  if (!s->checked) s->checked = s->fingerprint;
  return s;
}

int ade__order_raw(const ade_cgraph *g, int order, int scan, ade_elim_seq **sp) {
  return ade__order_capped(g, order, scan, UINT64_MAX, 0, NULL, sp);
}

int ade__order_capped(const ade_cgraph *g, int order, int scan, uint64_t ceiling, double deadline,
                      const uint8_t *cut, ade_elim_seq **sp) {
  int st = own(g, order, scan, deadline, NULL, NULL, sp, NULL, ceiling, cut);
  if (!st) bind(g, *sp);
  return st;
}

int ade__both_sweeps(const ade_cgraph *g) {
  size_t first = g->m < g->n ? g->m : g->n, other = g->m < g->n ? g->n : g->m;
  return (other <= 64 || other <= 2 * first) && index_topological(g);
}

/* Chains first: the intermediates with one predecessor and one
 * successor, each eliminated as it comes at cost 1 (its elimination can
 * leave a neighbour so), then a vertex sweep of what is left. Never
 * costlier than that sweep alone: reachability is kept, so each other
 * vertex's |X(j)| and |Y(j)| are; a chain vertex c (predecessor p,
 * successor k) costs 1 instead of its |X(c)| (forward) or |Y(c)|
 * (reverse), and only |S_p| or |P_k| changes, by 0 or -1 (when the edge
 * (p, k) was there). So each sweep's cost is counted from g's reach
 * counts cnt[d] (NULL: that direction is not tried) and the degrees
 * left; *sp gets the cheaper if it costs less than bar (else NULL, as
 * when there is no chain vertex).
 *
 * The eliminations are not made on a copy of g: eliminating c only
 * replaces c by k among p's successors and by p among k's predecessors,
 * so c forwards to k (fw) and back to p (bw), and a vertex's neighbours
 * now are its neighbours in g, each followed through the chain vertices
 * eliminated since (merged where two meet: the edge (p, k) was there). */
typedef struct chains {
  const ade_cgraph *g;
  size_t *fw, *bw;  /* an eliminated chain vertex's successor, predecessor then; else itself */
  size_t *mark;     /* the stamp of the last count that met a vertex */
  size_t stamp;
} chains;

/* The vertex a neighbour of g now is (path compression). */
static size_t follow(size_t *to, size_t v) {
  size_t r = v;
  while (to[r] != r) r = to[r];
  while (to[v] != r) {
    size_t n = to[v];
    to[v] = r, v = n;
  }
  return r;
}

/* How many successors (out) or predecessors v now has, counting no further
 * than most; *one gets one of them. */
static size_t now_degree(chains *w, size_t v, int out, size_t most, size_t *one) {
  const ade__vtx *x = &w->g->v[v];
  size_t n = 0, deg = out ? x->nout : x->nin, stamp = ++w->stamp;
  for (size_t a = 0; a < deg && n < most; a++) {
    const ade__edge *e = &w->g->e[out ? x->out[a] : x->in[a]];
    size_t u = follow(out ? w->fw : w->bw, out ? e->dst : e->src);
    if (w->mark[u] != stamp) w->mark[u] = stamp, n++, *one = u;
  }
  return n;
}

/* Whether v is a chain vertex now: an intermediate with one predecessor
 * p and one successor k. */
static int is_chain(chains *w, size_t v, size_t *p, size_t *k) {
  const ade__vtx *x = &w->g->v[v];
  return x->alive && x->kind == ADE__Z && w->fw[v] == v && now_degree(w, v, 0, 2, p) == 1 &&
         now_degree(w, v, 1, 2, k) == 1;
}

static int chains_first(const ade_cgraph *g, uint64_t *const cnt[2], uint64_t bar, ade_elim_seq **sp) {
  ade_elim_seq *s = NULL;
  size_t nq = 0, nv = g->nv, *q = NULL, *touched = NULL, nt = 0, p = 0, k = 0;
  chains w = {g, NULL, NULL, NULL, 0};
  *sp = NULL;
  for (size_t j = 0; j < nv && !nq; j++)
    nq = g->v[j].alive && g->v[j].kind == ADE__Z && g->v[j].nin == 1 && g->v[j].nout == 1;
  if (!nq) return ADE_OK;
  nq = 0;
  w.fw = ade__alloc((nv + 1) * sizeof *w.fw), w.bw = ade__alloc((nv + 1) * sizeof *w.bw);
  w.mark = ade__calloc(nv + 1, sizeof *w.mark);
  q = ade__alloc((nv + 1) * sizeof *q), touched = ade__alloc((2 * nv + 1) * sizeof *touched);
  uint8_t *seen = ade__calloc(nv + 1, 1);
  int st = w.fw && w.bw && w.mark && q && touched && seen ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for chains");
  if (!st) st = ade_seq_create(&s, ADE_SEQ_VERTEX);
  for (size_t j = 0; !st && j < nv; j++) {
    w.fw[j] = w.bw[j] = j;
    if (g->v[j].alive && g->v[j].kind == ADE__Z && g->v[j].nin == 1 && g->v[j].nout == 1) q[nq++] = j;
  }
  uint64_t chain = 0; /* chain vertices eliminated, 1 fma each */
  while (!st && nq) {
    size_t j = q[--nq];
    if (!is_chain(&w, j, &p, &k)) continue;
    st = ade_seq_push(s, g->v[j].id, 0, 0);
    w.fw[j] = k, w.bw[j] = p, chain++;
    touched[nt++] = p, touched[nt++] = k;
    size_t nb[2] = {p, k}, a, b;
    for (int i = 0; !st && i < 2; i++)
      if (is_chain(&w, nb[i], &a, &b)) q[nq++] = nb[i];
  }
  /* the degrees left: g's, but where a chain vertex next to it went */
  uint64_t cost[2] = {UINT64_MAX, UINT64_MAX};
  for (int d = 0; !st && d < 2; d++) {
    if (!cnt[d]) continue;
    cost[d] = g->fma + chain;
    for (size_t j = 0; j < nv; j++)
      if (g->v[j].alive && g->v[j].kind == ADE__Z && w.fw[j] == j)
        cost[d] += cnt[d][j] * (d ? g->v[j].nin : g->v[j].nout);
    for (size_t t = 0; t < nt; t++) { /* each once: the first time it is listed */
      size_t v = touched[t];
      if (g->v[v].kind != ADE__Z || w.fw[v] != v || seen[v] == d + 1) continue;
      seen[v] = (uint8_t)(d + 1);
      cost[d] -= cnt[d][v] * ((d ? g->v[v].nin : g->v[v].nout) - now_degree(&w, v, !d, SIZE_MAX, &p));
    }
  }
  int rev = g->m < g->n, d = cost[!rev] < cost[rev] ? !rev : rev;
  if (!st && cost[d] < bar) s->cost = cost[d], st = sweep_steps(g, d, w.fw, s); /* the sweep of what is left */
  else ade_seq_free(s), s = NULL;
  ade__free(w.fw), ade__free(w.bw), ade__free(w.mark), ade__free(q), ade__free(touched), ade__free(seen);
  if (st) ade_seq_free(s);
  else *sp = s;
  return st;
}

/* ade__vector_sweep without the binding; cost[d] (may be NULL) gets the
 * cost of the (plain) sweep of direction d (1: reverse), UINT64_MAX if not
 * counted. On a graph whose index order is topological (one from a
 * tape) the sweeps are counted (reach counts, not simulated) and the
 * sweep after the chains is tried with the same counts. */
static int vector_sweep(const ade_cgraph *g, ade_elim_seq **sp, uint64_t *cost) {
  int rev = g->m < g->n;
  ade_elim_seq *s = NULL, *t = NULL;
  if (cost) cost[0] = cost[1] = UINT64_MAX;
  if (!index_topological(g)) { /* simulated on a copy, one direction */
    int st = own(g, rev ? ADE_ORDER_VERTEX_REVERSE : ADE_ORDER_VERTEX_FORWARD, 0, 0, NULL, NULL, &s, NULL,
                 UINT64_MAX, NULL);
    if (!st && cost) cost[rev] = s->cost;
    if (!st) *sp = s;
    return st;
  }
  uint64_t *cnt[2] = {NULL, NULL}, c[2] = {UINT64_MAX, UINT64_MAX}, lo = 0;
  int st = sweep_counts(g, rev, &cnt[rev], &c[rev]);
  /* the other direction's floor first (O(|E|)), then, if that leaves it a chance, its count */
  if (!st && ade__both_sweeps(g) && !(st = ade__sweep_floor(g, !rev, c[rev], &lo)) && lo < c[rev])
    st = sweep_counts(g, !rev, &cnt[!rev], &c[!rev]);
  int d = c[!rev] < c[rev] ? !rev : rev;
  for (int k = 0; cost && !st && k < 2; k++) cost[k] = c[k] == UINT64_MAX ? UINT64_MAX : c[k] + g->fma;
  if (!st) st = chains_first(g, cnt, c[d] + g->fma, &t);
  if (!st && !t && !(st = ade_seq_create(&s, ADE_SEQ_VERTEX)))
    s->cost = c[d] + g->fma, st = sweep_steps(g, d, NULL, s);
  ade__free(cnt[0]);
  ade__free(cnt[1]);
  if (st) ade_seq_free(s), ade_seq_free(t);
  else *sp = t ? t : s;
  return st;
}

int ade__vector_sweep(const ade_cgraph *g, ade_elim_seq **sp) {
  int st = vector_sweep(g, sp, NULL);
  if (!st) bind(g, *sp);
  return st;
}

/* The bar the next run must beat, for the progress reports. */
static void watch_best(ade__watch *w, uint64_t bar) {
  if (w) w->p.best = bar < w->outer ? bar : w->outer;
}

/* Replace *sp by ordering o's sequence if that costs less (*sp NULL: in
 * any case); sequences stay in their own kind until the end (ade__seq_to_kind).
 * Without limited, an ordering stopped by the deadline is dropped (*sp
 * stays, *dropped = 1); with soft, one stopped by the memory limit too
 * (*mem = 1). cut: g's cut bounds (may be NULL). */
static int keep_cheaper(const ade_cgraph *g, int o, double deadline, ade__watch *w, int *limited, ade_elim_seq **sp,
                        int *dropped, int soft, int *mem, const uint8_t *cut) {
  ade_elim_seq *t = NULL;
  uint64_t bar = *sp ? (*sp)->cost : UINT64_MAX;
  watch_best(w, bar);
  int st = own(g, o, 0, deadline, w, limited, &t, NULL, bar, cut);
  if (st == ADE__CUT) return ADE_OK; /* it reached bar: *sp stays */
  if (soft && *sp && ade__take_budget(&st)) {
    *mem = 1;
    return ADE_OK;
  }
  if (st == ADE_ELIMIT && !limited && *sp && expired(deadline)) {
    ade__clear_error();
    *dropped = 1;
    return ADE_OK;
  }
  if (!st && t->cost < bar) {
    ade_seq_free(*sp);
    *sp = t, t = NULL;
  }
  ade_seq_free(t);
  return st;
}

/* *sp converted to kind, at the same cost (a vertex elimination is the
 * front elimination of its in-edges, an edge elimination that of its
 * faces): only the sequence returned is converted. *fill (may be NULL)
 * gets the face sequence's fill-in. A sequence of kind is left as it is. */
int ade__seq_to_kind(const ade_cgraph *g, ade_elim_seq **sp, int kind, uint64_t *fill) {
  ade_elim_seq *u = NULL;
  int st = ADE_OK;
  if ((*sp)->kind == ADE_SEQ_VERTEX && kind != ADE_SEQ_VERTEX) {
    st = ade__seq_vertex_to_edge(g, *sp, &u);
    if (!st) u->fingerprint = ade__graph_fingerprint(g);
    if (!st) ade_seq_free(*sp), *sp = u, u = NULL;
  }
  if (!st && (*sp)->kind != ADE_SEQ_FACE && kind == ADE_SEQ_FACE) {
    st = ade__seq_edge_to_face(g, *sp, &u, fill);
    if (!st) ade_seq_free(*sp), *sp = u, u = NULL;
  }
  ade_seq_free(u);
  return st;
}

/* ------------------------------------------------------------ portfolio */

/* With threads, order_one's runs after the sweep (the generalized
 * orderings, then the ordering's own) run at once, and the answer is the
 * one of running them one after the other. Each run's ceiling is live: a
 * run that finishes lowers the bars of the runs after it (in that order)
 * to its cost (the own run's: plus the tie rule's 1), so each run's bar
 * only falls to the bar it has in the sequential order; a run still
 * cheaper when its bar falls late completes or is cut later, and loses
 * anyway. The runs are then read in that order, as in sequence: a run that
 * failed (a memory or step limit) after its cost and bound had reached
 * its sequential bar (ade__live.seen) would have been cut there, so it is
 * not a failure. The same sequence, limited flag and errors, whatever
 * the threads and their timing (check_order: portfolio_is_sequential). */
typedef struct prun {
  int order, own, lim; /* own: the ordering's own run (the last) */
  ade__failure f;
  uint64_t fill;
  ade__live live;
  ade_elim_seq *seq;
} prun;

typedef struct pool {
  const ade_cgraph *g;
  prun *r;
  int n;
  uint64_t tie;    /* added to the own run's bars (its ties: !native) */
  int *limited;    /* as order_one's (NULL: none) */
  double deadline; /* anytime (0: none): a run out of time is dropped */
  const uint8_t *cut; /* g's cut bounds (may be NULL) */
} pool;

static void prun_go(void *ud, int k, ade__watch *w) {
  pool *p = ud;
  prun *r = &p->r[k];
  uint64_t bar = __atomic_load_n(&r->live.bar, __ATOMIC_RELAXED);
  watch_best(w, bar);
  ade__failure_keep(&r->f, own_live(p->g, r->order, 0, p->deadline, w, p->limited && !p->deadline ? &r->lim : NULL,
                                    &r->seq, r->own ? &r->fill : NULL, bar, &r->live, p->cut));
  for (prun *q = r + 1; !r->f.st && q < p->r + p->n; q++) { /* the runs after it must beat it */
    uint64_t b = r->seq->cost + (q->own ? p->tie : 0), cur = __atomic_load_n(&q->live.bar, __ATOMIC_RELAXED);
    while (b < cur && !__atomic_compare_exchange_n(&q->live.bar, &cur, b, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
}

/* The runs of order (its generalized orderings, then its own) in up to
 * threads threads, the calling thread one of them (its runs report to w);
 * *sp (the sweep) replaced by the cheapest, *fill by the own run's
 * fill-in if it wins, *mem set if one was dropped at the memory limit
 * (soft). */
static int portfolio(const ade_cgraph *g, int order, int threads, int native, int soft, double deadline, ade__watch *w,
                     int *limited, ade_elim_seq **sp, uint64_t *fill, int *mem, const uint8_t *cut) {
  prun r[4] = {{0}};
  pool p = {g, r, 0, !native, limited, deadline, cut};
  for (int k = 0; k < 3 && generalizes[order][k] >= 0; k++) r[p.n++].order = generalizes[order][k];
  r[p.n].order = order, r[p.n++].own = 1;
  for (int k = 0; k < p.n; k++) r[k].live.bar = (*sp)->cost + (r[k].own ? p.tie : 0);
  ade__tasks t = {p.n, 0, prun_go, &p};
  ade__tasks_run(&t, threads, w);
  int st = ADE_OK;
  for (int k = 0; !st && k < p.n; k++) {
    uint64_t bar = (*sp)->cost + (r[k].own ? p.tie : 0);
    if (limited && r[k].lim) *limited = 1;
    if (r[k].f.st == ADE__CUT || (r[k].f.st && r[k].live.seen >= bar)) continue; /* cut */
    if (r[k].f.st == ADE_ELIMIT && deadline > 0) *limited = 1; /* dropped at the deadline (anytime) */
    else if (r[k].f.st && soft && r[k].f.budget) *mem = 1; /* dropped at the memory limit */
    else if (r[k].f.st) st = ade__failure_raise(&r[k].f);
    else if (r[k].seq->cost < bar) {
      ade_seq_free(*sp);
      *sp = r[k].seq, r[k].seq = NULL;
      if (r[k].own) *fill = r[k].fill;
    }
  }
  for (int k = 0; k < p.n; k++) ade_seq_free(r[k].seq);
  return st;
}

/* One ordering on the whole of g, never worse than the cheaper vector
 * mode's vertex sweep and the orderings it generalizes (its own sequence
 * on ties); *fill (may be NULL) gets the fill-in of a face sequence (the
 * new dual vertices, for renumbering). The counted sweep comes first (its
 * cost from reachability, not simulated: the first ceiling), then the
 * generalized orderings, then the ordering itself, each stopped once it
 * costs more than the best so far: the result is the same as in the other
 * order, and the costly greedy runs stop sooner. In the anytime path a
 * generalized ordering that reaches the deadline is dropped, not
 * completed. */
static int order_one(const ade_cgraph *g, int order, double deadline, ade__watch *w, ade_elim_seq **sp,
                     uint64_t *fill, int *limited, int native, int threads) {
  ade_elim_seq *s = NULL, *t = NULL;
  uint8_t *cut = NULL; /* g's cut bounds, for the runs' cuts at their ceilings */
  uint64_t f = 0, tf = 0, same = UINT64_MAX;
  uint64_t sc[2] = {UINT64_MAX, UINT64_MAX}; /* the counted vertex sweeps' costs, forward and reverse */
  int dropped = 0, mem = 0, kind = orders[order].kind, st = ADE_OK;
  int gen = generalizes[order][0] != -1 && kind != ADE_SEQ_VERTEX;
  /* In native form with a flag to report it, a run that the tape's memory
   * limit stops (a face ordering's dual grows with its fill-in) is
   * dropped, and the best of the others is the answer, limited, as at a
   * deadline. (Converted to faces, that answer would need the dual.) */
  int soft = limited && native;
  /* Anytime (a limit and a flag to report it): out of time, the best of
   * the sweep and the generalized orderings is the answer, with no
   * completion to pay. */
  int anytime = deadline > 0 && limited && gen;
  /* With a deadline but nowhere to report it (the optimizers' heuristics),
   * the ordering runs first and stops with ADE_ELIMIT at the deadline. */
  int first = !(deadline > 0 && !anytime);
  /* An edge sweep costs exactly what the vertex sweep of its direction
   * does (Rules 3 and 4: a vertex's in-edges front eliminated, or its
   * out-edges back eliminated, cost |P_j| |S_j| together), and so does a
   * face sweep (the faces through a vertex are its vertex elimination;
   * check_order: face_sweeps_cost_vertex_sweeps). */
  int esweep = order == ADE_ORDER_EDGE_FORWARD || order == ADE_ORDER_EDGE_REVERSE ||
               order == ADE_ORDER_FACE_FORWARD || order == ADE_ORDER_FACE_REVERSE;
  if (gen) st = vector_sweep(g, &s, sc);
  if (!st && esweep) same = sc[generalizes[order][0] == ADE_ORDER_VERTEX_REVERSE];
  if (!st && gen) st = ade__cut_bounds(g, &cut);
  /* In threads (portfolio): without a deadline or anytime (each run out
   * of time is dropped), and with the default allocator (the runs' memory
   * changes threads). */
  int par = !st && threads > 1 && gen && !esweep && (deadline <= 0 || anytime) && s->cost && !ade__alloc_hooked();
  if (par) st = portfolio(g, order, threads, native, soft, anytime ? deadline : 0, w, limited, &s, &f, &mem, cut);
  for (int k = 0; !st && !par && first && k < 3 && generalizes[order][k] >= 0 && !expired(deadline); k++) {
    if (esweep && k == 0 && same != UINT64_MAX) continue; /* counted above */
    if (esweep && k == 0) { /* the vertex sweep of the edge sweep's direction */
      st = own(g, generalizes[order][0], 0, 0, w, NULL, &t, NULL, UINT64_MAX, NULL);
      if (!st) same = t->cost;
      if (!st && t->cost < s->cost) ade_seq_free(s), s = t, t = NULL;
      ade_seq_free(t), t = NULL;
      continue;
    }
    st = keep_cheaper(g, generalizes[order][k], deadline, w, anytime ? NULL : limited, &s, &dropped, soft, &mem, cut);
  }
  /* Ties go to the ordering's own sequence, except in native form, where
   * the generalized one applies without the dual (same cost, less work).
   * An edge sweep whose cost is known to lose (or tie, in native form) is
   * not run. */
  int skip = !st && s && same != UINT64_MAX && same >= s->cost + !native;
  watch_best(w, s ? s->cost : UINT64_MAX);
  if (!st && !skip && !par)
    st = own(g, order, 0, deadline, w, anytime ? NULL : limited, &t, &tf, s ? s->cost + !native : UINT64_MAX, cut);
  if (skip || par) (void)0;
  else if (st == ADE_ELIMIT && anytime) *limited = 1, st = ADE_OK; /* out of time: the best so far */
  else if (st == ADE__CUT) st = ADE_OK; /* it cost more than s */
  else if (soft && s && ade__take_budget(&st)) mem = 1; /* over the memory limit: the best so far */
  else if (!st && (!s || t->cost < s->cost + !native)) ade_seq_free(s), s = t, t = NULL, f = tf;
  ade_seq_free(t);
  for (int k = 0; !st && !first && k < 3 && generalizes[order][k] >= 0 && !expired(deadline); k++)
    if (!(esweep && k == 0)) /* the sweeps' vertex sweep: counted (or not needed: the own run has the answer) */
      st = keep_cheaper(g, generalizes[order][k], deadline, w, limited, &s, &dropped, soft, &mem, cut);
  if (!st && dropped && anytime) *limited = 1; /* a generalized ordering dropped at the deadline */
  if (!st && mem) *limited = 1;            /* or one over the memory limit */
  if (!st && s->kind != kind && !native) st = ade__seq_to_kind(g, &s, kind, &f);
  ade__free(cut);
  if (st) {
    ade_seq_free(s);
    return st;
  }
  if (fill) *fill = f;
  *sp = bind(g, s);
  return ADE_OK;
}

static int check_args(const ade_cgraph *g, int order, ade_elim_seq **sp) {
  if (!g || !sp || g->dual || order < 0 || order >= ADE_ORDER_COUNT)
    return ade__fail(ADE_EINVAL, "ade_elim_order: needs a c-graph and a known ordering (got %d)", order);
  *sp = NULL;
  return ADE_OK;
}

int ade_elim_order(const ade_cgraph *g, int order, ade_elim_seq **sp) {
  int st = check_args(g, order, sp);
  return st ? st : ade__elim_order(g, order, 0, sp, NULL);
}

int ade_elim_order_with(const ade_cgraph *g, int order, const ade_order_options *o, ade_elim_seq **sp,
                        int *limited) {
  ade_order_options none = {0};
  ade__watch w;
  int st = check_args(g, order, sp), lim = 0;
  if (!o) o = &none;
  if (!st && !(o->time_limit >= 0 && o->progress_interval >= 0))
    st = ade__fail(ADE_EINVAL, "ade_elim_order: bad time limit %g or progress interval %g", o->time_limit,
                   o->progress_interval);
  double deadline = o->time_limit > 0 ? ade__now() + o->time_limit : 0;
  if (!st) ade__watch_start(&w, order, o->progress, o->progress_ud, o->progress_interval);
  if (!st) st = ade__elim_order_watched(g, order, deadline, o->native, o->threads, o->progress ? &w : NULL, sp, &lim);
  if (limited) *limited = lim;
  return st;
}

int ade_elim_order_limited(const ade_cgraph *g, int order, double time_limit, ade_elim_seq **sp, int *limited) {
  ade_order_options o = {time_limit, 0, NULL, NULL, 0, 1};
  return ade_elim_order_with(g, order, &o, sp, limited);
}

int ade_elim_order_native(const ade_cgraph *g, int order, double time_limit, ade_elim_seq **sp, int *limited) {
  ade_order_options o = {time_limit, 1, NULL, NULL, 0, 1};
  return ade_elim_order_with(g, order, &o, sp, limited);
}

/* With two or more components holding intermediate vertices, order each
 * alone and concatenate (*split = 1): eliminations in different components
 * touch disjoint vertices and edges, so they commute, the costs add up,
 * and every ordering makes the same choices inside a component as on the
 * whole graph (its keys compare the same). Otherwise *split = 0. First
 * each component is ordered (with threads, several at once, each with one
 * thread); then, in order, each sequence is converted
 * to the kind of the whole (native: the most general of the components'
 * winners, so that a face ordering whose components all ended with edge
 * sequences returns an edge sequence, as on one component) and appended.
 * The same sequence whatever the threads, and the first error in the
 * order of the components (those after it are not started). */
typedef struct comp {
  ade_elim_seq *cs;
  uint64_t fill;
  int lim;
  ade__failure f;
} comp;

typedef struct comps {
  const ade_cgraph *g;
  ade__part *P;
  size_t *zc; /* the components with an intermediate, in order */
  comp *c;
  int order, native, threads, *limited;
  double deadline;
  int failed; /* the first component that failed (atomic; INT_MAX: none) */
} comps;

static void comp_go(void *ud, int k, ade__watch *w) {
  comps *p = ud;
  comp *c = &p->c[k];
  ade_cgraph *h = NULL;
  if (k > __atomic_load_n(&p->failed, __ATOMIC_RELAXED)) return; /* never appended */
  if (w) w->p.component = (size_t)k + 1;
  int st = ade__part_graph(p->g, p->P, p->zc[k], &h);
  if (!st)
    st = order_one(h, p->order, p->deadline, w, &c->cs, &c->fill, p->limited ? &c->lim : NULL, p->native, p->threads);
  ade_cgraph_free(h);
  if (ade__failure_keep(&c->f, st))
    for (int f = __atomic_load_n(&p->failed, __ATOMIC_RELAXED);
         k < f && !__atomic_compare_exchange_n(&p->failed, &f, k, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED);) {
    }
}

static int order_split(const ade_cgraph *g, int order, int native, double deadline, ade__watch *w, ade_elim_seq **sp,
                       int *split, int *limited, int threads) {
  ade__part P;
  ade_elim_seq *s = NULL;
  *split = 0;
  int st = ade__part_split(g, 0, &P);
  if (st || P.nz < 2 || P.nz > INT_MAX) {
    ade__part_free(&P);
    return st;
  }
  /* In threads: with the default allocator (as order_one); a deadline
   * holds for each component as in sequence */
  int par = threads > 1 && !ade__alloc_hooked(), kind = orders[order].kind;
  comps p = {g, &P, ade__calloc(P.nz, sizeof *p.zc), ade__calloc(P.nz, sizeof *p.c), order, native, par ? 1 : threads,
             limited, deadline, INT_MAX};
  if (!p.zc || !p.c) st = ade__fail(ADE_ENOMEM, "out of memory for %zu components", P.nz);
  for (size_t c = 0, k = 0; !st && c < P.ncomp; c++)
    if (P.hasz[c]) p.zc[k++] = c;
  if (w) w->p.component = 0, w->p.components = P.nz;
  ade__tasks t = {(int)P.nz, 0, comp_go, &p};
  if (!st) ade__tasks_run(&t, par ? threads : 1, w);
  for (size_t k = 0; native && !st && k < P.nz && p.c[k].cs; k++)
    if (k == 0 || p.c[k].cs->kind > kind) kind = p.c[k].cs->kind;
  if (!st) st = ade_seq_create(&s, kind);
  long fill0 = (long)g->nedges + (long)g->m + 1;
  uint64_t cost = 0;
  for (size_t k = 0; !st && k < P.nz; k++) {
    comp *c = &p.c[k];
    ade_cgraph *h = NULL;
    if (limited && c->lim) *limited = 1;
    if (c->f.st) st = ade__failure_raise(&c->f);
    else if (c->cs->kind != kind || kind == ADE_SEQ_FACE) /* a conversion, or face ids to renumber */
      st = ade__part_graph(g, &P, p.zc[k], &h);
    if (!st && c->cs->kind != kind) st = ade__seq_to_kind(h, &c->cs, kind, &c->fill);
    if (!st) st = ade__part_append(g, h, &P, p.zc[k], c->cs, fill0, s);
    if (!st) cost += c->cs->cost, fill0 += (long)c->fill;
    ade_cgraph_free(h);
  }
  for (size_t k = 0; p.c && k < P.nz; k++) ade_seq_free(p.c[k].cs);
  ade__free(p.zc);
  ade__free(p.c);
  if (!st) st = ade__seq_bind_whole(g, s);
  ade__part_free(&P);
  if (st) {
    ade_seq_free(s);
    return st;
  }
  s->cost = cost;
  *sp = s;
  *split = 1;
  return ADE_OK;
}

int ade__elim_order_watched(const ade_cgraph *g, int order, double deadline, int native, int threads, ade__watch *w,
                            ade_elim_seq **sp, int *limited) {
  int split = 0;
  /* Several connected components: each is ordered alone (component.c). */
  int st = order_split(g, order, native, deadline, w, sp, &split, limited, threads);
  return st || split ? st : order_one(g, order, deadline, w, sp, NULL, limited, native, threads);
}

int ade__elim_order(const ade_cgraph *g, int order, double deadline, ade_elim_seq **sp, int *limited) {
  return ade__elim_order_watched(g, order, deadline, 0, 1, NULL, sp, limited);
}

/* As ade__elim_order, but a winner of another kind (a generalized
 * ordering's sequence) is returned in its own kind, unconverted: it costs
 * the same, and applying it skips the conversion (a simulation) and, for a
 * face ordering, the dual. With components, as ade__elim_order. */
int ade__elim_order_native(const ade_cgraph *g, int order, double deadline, ade_elim_seq **sp, int *limited) {
  return ade__elim_order_watched(g, order, deadline, 1, 1, NULL, sp, limited);
}

/* ------------------------------------------------------------- progress */

void ade__watch_start(ade__watch *w, int method, ade_order_progress_fn fn, void *ud, double interval) {
  memset(w, 0, sizeof *w);
  w->fn = fn, w->ud = ud;
  w->interval = interval > 0 ? interval : 1.0;
  w->t0 = ade__now();
  w->next = w->t0 + w->interval;
  w->p.method = w->p.running = method;
  w->p.best = w->outer = UINT64_MAX;
  w->p.component = w->p.components = 1;
}

void ade__watch_poll(ade__watch *w, uint64_t cost) {
  double t;
  if (!w->fn || (t = ade__now()) < w->next) return;
  w->next = t + w->interval;
  w->p.seconds = t - w->t0;
  w->p.cost = cost;
  w->fn(w->ud, &w->p);
}
