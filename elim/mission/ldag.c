/* ldag.c: the line dag of a mission DAG and generalized face elimination (Rules 2 and 3). */
#include <stdlib.h>

#include "mission_internal.h"

static void bset(ade__ldag *g, uint64_t *rows, int s, int t) {
  ade__row(g, rows, s)[t >> 6] |= (uint64_t)1 << (t & 63);
}
static void bclr(ade__ldag *g, uint64_t *rows, int s, int t) {
  ade__row(g, rows, s)[t >> 6] &= ~((uint64_t)1 << (t & 63));
}
static int row_empty(const ade__ldag *g, const uint64_t *r) {
  for (int w = 0; w < g->words; w++)
    if (r[w]) return 0;
  return 1;
}
static int row_eq(const ade__ldag *g, const uint64_t *a, const uint64_t *b) {
  return memcmp(a, b, (size_t)g->words * sizeof *a) == 0;
}
/* The first set bit of row r at or after t, or -1. */
static int next_bit(const ade__ldag *g, const uint64_t *r, int t) {
  for (int w = t >> 6; w < g->words; w++) {
    uint64_t x = r[w];
    if (w == t >> 6) x &= ~(uint64_t)0 << (t & 63);
    if (x) return w * 64 + __builtin_ctzll(x);
  }
  return -1;
}
/* Bits set in x (no popcount instruction is assumed). */
static int popcount64(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}
int ade__row_count(const ade__ldag *g, const uint64_t *r) {
  int n = 0;
  for (int w = 0; w < g->words; w++) n += popcount64(r[w]);
  return n;
}

int ade__next_bit(const ade__ldag *g, const uint64_t *r, int t) { return next_bit(g, r, t); }

#define FOR_BITS ADE__FOR_BITS

/* Allocate rows and vertices for cap slots (a multiple of 64), keeping the first nslot. */
static int resize(ade__ldag *g, int cap) {
  int words = cap / 64;
  size_t n = ade__mul_size((size_t)cap, (size_t)words * sizeof(uint64_t));
  uint64_t *p = ade__calloc(1, n), *s = ade__calloc(1, n);
  ade__lvx *v = ade__realloc(g->v, ade__mul_size((size_t)cap, sizeof *v));
  if (v) g->v = v;
  if (!p || !s || !v) {
    ade__free(p);
    ade__free(s);
    return ade__fail(ADE_ENOMEM, "mission planner: out of memory (%d line dag vertices)", cap);
  }
  for (int i = 0; i < g->nslot; i++) {
    memcpy(p + (size_t)i * words, ade__row(g, g->pred, i), (size_t)g->words * sizeof *p);
    memcpy(s + (size_t)i * words, ade__row(g, g->succ, i), (size_t)g->words * sizeof *s);
  }
  ade__free(g->pred);
  ade__free(g->succ);
  g->pred = p;
  g->succ = s;
  g->cap = cap;
  g->words = words;
  return ADE_OK;
}

/* A new slot (grown on demand), all zero. */
static int new_slot(ade__ldag *g, int *s) {
  if (g->nslot == g->cap && resize(g, 2 * g->cap)) return ADE_ENOMEM;
  *s = g->nslot++;
  memset(&g->v[*s], 0, sizeof g->v[*s]);
  return ADE_OK;
}

static void add_edge(ade__ldag *g, int s, int t) {
  bset(g, g->succ, s, t);
  bset(g, g->pred, t, s);
}
static void del_edge(ade__ldag *g, int s, int t) {
  bclr(g, g->succ, s, t);
  bclr(g, g->pred, t, s);
}

/* Terminal slots of the variables: X~ and Y~ (Definition 1). */
static void terminals(ade__ldag *g, const ade_mission *d, int *xs, int *ys) {
  for (int j = 0; j < d->nv; j++) {
    xs[j] = ys[j] = -1;
    if (!d->v[j].nin) xs[j] = g->nx++;
    if (!d->v[j].nout) ys[j] = g->ny++;
  }
  for (int j = 0; j < d->nv; j++) {
    if (ys[j] >= 0) ys[j] += g->nx;
    int t = xs[j] >= 0 ? xs[j] : ys[j];
    if (t >= 0) g->v[t] = (ade__lvx){j, j, -1, 1, 1, 0, 0};
  }
}

static void elementals(ade__ldag *g, const ade_mission *d, const int *xs, const int *ys) {
  int base = g->nx + g->ny;
  for (int k = 0; k < d->ne; k++) {
    const ade__melem *e = &d->e[k];
    g->v[base + k] = (ade__lvx){e->src, e->dst, k, 0, 1, (unsigned char)e->jac, (unsigned char)e->model};
    if (xs[e->src] >= 0) add_edge(g, xs[e->src], base + k);
    if (ys[e->dst] >= 0) add_edge(g, base + k, ys[e->dst]);
    for (int q = d->outp[e->dst]; q < d->outp[e->dst + 1]; q++) add_edge(g, base + k, base + d->oute[q]);
  }
}

int ade__ldag_init(ade__ldag *g, const ade__mctx *c) {
  const ade_mission *d = c->d;
  memset(g, 0, sizeof *g);
  int n = 2 * d->nv + d->ne, cap = 64;
  while (cap < n + n / 2 + 64) cap *= 2;
  int *xs = ade__alloc(ade__mul_size((size_t)d->nv, 2 * sizeof *xs));
  if (!xs || resize(g, cap)) {
    ade__free(xs);
    ade__ldag_free(g);
    return ade__fail(ADE_ENOMEM, "mission planner: out of memory");
  }
  terminals(g, d, xs, xs + d->nv);
  g->nslot = g->nx + g->ny + d->ne;
  elementals(g, d, xs, xs + d->nv);
  ade__free(xs);
  return ADE_OK;
}

void ade__ldag_free(ade__ldag *g) {
  ade__free(g->v);
  ade__free(g->pred);
  ade__free(g->succ);
  memset(g, 0, sizeof *g);
}

int ade__ldag_assign(ade__ldag *dst, const ade__ldag *src) {
  if (dst->cap != src->cap) {
    ade__ldag_free(dst);
    dst->nslot = 0;
    if (resize(dst, src->cap)) return ADE_ENOMEM;
  }
  size_t rows = (size_t)src->nslot * (size_t)src->words * sizeof(uint64_t);
  memcpy(dst->pred, src->pred, rows);
  memcpy(dst->succ, src->succ, rows);
  memcpy(dst->v, src->v, (size_t)src->nslot * sizeof *src->v);
  if (dst->nslot > src->nslot) { /* rows past nslot must be zero for new slots */
    size_t w = (size_t)src->words, from = (size_t)src->nslot * w, n = (size_t)(dst->nslot - src->nslot) * w;
    memset(dst->pred + from, 0, n * sizeof(uint64_t));
    memset(dst->succ + from, 0, n * sizeof(uint64_t));
  }
  dst->nslot = src->nslot;
  dst->nx = src->nx;
  dst->ny = src->ny;
  dst->cost = src->cost;
  return ADE_OK;
}

int ade__ldag_copy(ade__ldag *dst, const ade__ldag *src) {
  memset(dst, 0, sizeof *dst);
  return ade__ldag_assign(dst, src);
}

/* ------------------------------------------------------------------ costs */

static uint64_t nsize(const ade__mctx *c, int var) { return c->d->v[var].size; }
static const ade__melem *elem(const ade__mctx *c, const ade__lvx *x) { return &c->d->e[x->elem]; }

/* Rule 3: min{n_i Cost(F.(i,j)), n_j Cost(F-(i,j))}; ties go to tangents. */
uint64_t ade__acc_cost_in(const ade__ldag *g, const ade__mctx *c, int s, int how, int *mode) {
  const ade__lvx *x = &g->v[s];
  if (x->term || x->jac || !x->model) return UINT64_MAX;
  uint64_t t = ade__smul(nsize(c, x->i), elem(c, x)->tan), a = ade__smul(nsize(c, x->k), elem(c, x)->adj);
  int tan = how == ADE__ACC_TAN || (how != ADE__ACC_ADJ && t <= a);
  if (mode) *mode = tan ? ADE__M_TAN : ADE__M_ADJ;
  return tan ? t : a;
}

uint64_t ade__acc_cost(const ade__ldag *g, const ade__mctx *c, int s, int *mode) {
  return ade__acc_cost_in(g, c, s, ADE__ACC_MIN, mode);
}

/* Rule 2's three flavours with u's and v's Jacobians given by uj, vj:
 * n_i Cost(F.(j,*,k)), n_k Cost(F-(i,*,j)), n_i n_j n_k; the cheapest. */
static uint64_t face_cost_as(const ade__ldag *g, const ade__mctx *c, int u, int v, int uj, int vj,
                             int *mode) {
  const ade__lvx *a = &g->v[u], *b = &g->v[v];
  uint64_t best = UINT64_MAX, x;
  int m = -1;
  if (uj && vj) best = ade__smul(ade__smul(nsize(c, a->i), nsize(c, a->k)), nsize(c, b->k)), m = ADE__M_MUL;
  if (uj && b->model && (x = ade__smul(nsize(c, a->i), elem(c, b)->tan)) <= best) best = x, m = ADE__M_TAN;
  if (vj && a->model && (x = ade__smul(nsize(c, b->k), elem(c, a)->adj)) < best) best = x, m = ADE__M_ADJ;
  if (mode) *mode = m;
  return best;
}

uint64_t ade__face_cost(const ade__ldag *g, const ade__mctx *c, int u, int v, int *mode) {
  if (!ade__is_face(g, u, v) || (!g->v[u].jac && !g->v[v].jac)) return UINT64_MAX;
  return face_cost_as(g, c, u, v, g->v[u].jac, g->v[v].jac, mode);
}

uint64_t ade__move_cost(const ade__ldag *g, const ade__mctx *c, const ade__move *m) {
  uint64_t cost = 0;
  if (m->au) cost = ade__sadd(cost, ade__acc_cost_in(g, c, m->u, m->au, NULL));
  if (m->v < 0) return cost;
  if (m->av) cost = ade__sadd(cost, ade__acc_cost_in(g, c, m->v, m->av, NULL));
  int uj = g->v[m->u].jac || m->au, vj = g->v[m->v].jac || m->av;
  if (!uj && !vj) return UINT64_MAX;
  return ade__sadd(cost, face_cost_as(g, c, m->u, m->v, uj, vj, NULL));
}

/* The moves for face (u, v): preaccumulate u and/or v (each only if it
 * has no Jacobian), then eliminate; at least one end needs a Jacobian.
 * A preaccumulation that does not make this face cheaper is kept: it may
 * enable a merge, which pays off later. */
int ade__face_moves(const ade__ldag *g, const ade__mctx *c, int u, int v, ade__move *m) {
  int n = 0, uj = g->v[u].jac, vj = g->v[v].jac;
  (void)c;
  for (int au = 0; au <= !uj; au++)
    for (int av = 0; av <= !vj; av++)
      if (uj || vj || au || av) m[n++] = (ade__move){u, v, (unsigned char)au, (unsigned char)av};
  return n;
}

/* ---------------------------------------------------------------- updates */

static int emit(ade__mop_fn fn, void *ud, ade__mop op) { return fn ? fn(ud, &op) : ADE_OK; }

/* Remove slot s and its edges; its neighbours are marked in dirty. */
static void remove_slot(ade__ldag *g, int s, uint64_t *dirty) {
  FOR_BITS(g, ade__row(g, g->pred, s), p) {
    bclr(g, g->succ, p, s);
    dirty[p >> 6] |= (uint64_t)1 << (p & 63);
  }
  FOR_BITS(g, ade__row(g, g->succ, s), q) {
    bclr(g, g->pred, q, s);
    dirty[q >> 6] |= (uint64_t)1 << (q & 63);
  }
  memset(ade__row(g, g->pred, s), 0, (size_t)g->words * sizeof(uint64_t));
  memset(ade__row(g, g->succ, s), 0, (size_t)g->words * sizeof(uint64_t));
  g->v[s].alive = 0;
}

/* An intermediate vertex other than x with a Jacobian and P = pr, S = su. */
int ade__find_same(const ade__ldag *g, const uint64_t *pr, const uint64_t *su, int x) {
  int p = next_bit(g, pr, 0);
  if (p < 0) return -1;
  FOR_BITS(g, ade__row(g, g->succ, p), y) {
    if (y == x || g->v[y].term || !g->v[y].jac) continue;
    if (row_eq(g, ade__row(g, g->pred, y), pr) && row_eq(g, ade__row(g, g->succ, y), su)) return y;
  }
  return -1;
}

/* Merge (Rules 2.4, 2.5, 3.2) the dirty vertices with Jacobians into
 * their twins (same P and S); the older slot stays. Repeats until none is left. */
static int merge_dirty(ade__ldag *g, uint64_t *dirty, int *follow, ade__mop_fn fn, void *ud) {
  int x;
  while ((x = next_bit(g, dirty, 0)) >= 0) {
    dirty[x >> 6] &= ~((uint64_t)1 << (x & 63));
    if (!g->v[x].alive || g->v[x].term || !g->v[x].jac) continue;
    int y = ade__find_same(g, ade__row(g, g->pred, x), ade__row(g, g->succ, x), x);
    if (y < 0) continue;
    int keep = ADE__MIN(x, y), gone = ADE__MAX(x, y);
    g->v[keep].model = 0; /* a sum now: no elemental's model gives it */
    int rc = emit(fn, ud, (ade__mop){ADE__OP_MRG, 0, gone, -1, keep, 0, 0});
    if (rc) return rc;
    remove_slot(g, gone, dirty);
    if (follow && *follow == gone) *follow = keep;
  }
  return ADE_OK;
}

static uint64_t *scratch(int words, uint64_t *buf, int nbuf) {
  if (words <= nbuf) {
    memset(buf, 0, (size_t)words * sizeof *buf);
    return buf;
  }
  return ade__calloc((size_t)words, sizeof *buf);
}

/* Rule 3: F'(s) by tangents or adjoints, then merges; *s follows the slot
 * into the twin it may be merged with. */
static int acc(ade__ldag *g, const ade__mctx *c, int *sp, int how, ade__mop_fn fn, void *ud) {
  int s = *sp, mode;
  uint64_t cost = ade__acc_cost_in(g, c, s, how, &mode);
  if (cost == UINT64_MAX) return ade__fail(ADE_EINVAL, "slot %d cannot be preaccumulated", s);
  int rc = emit(fn, ud, (ade__mop){ADE__OP_ACC, mode, s, -1, -1, 0, cost});
  if (rc) return rc;
  g->cost = ade__sadd(g->cost, cost);
  g->v[s].jac = 1;
  uint64_t buf[8], *dirty = scratch(g->words, buf, 8);
  if (!dirty) return ade__fail(ADE_ENOMEM, "mission planner: out of memory");
  dirty[s >> 6] |= (uint64_t)1 << (s & 63);
  rc = merge_dirty(g, dirty, sp, fn, ud);
  if (dirty != buf) ade__free(dirty);
  return rc;
}

/* Rule 2.1: the vertex (i,*,j,*,k) that absorbs F'(v) F'(u): an existing
 * one with the same neighbours and a Jacobian, or new fill-in. */
static int target(ade__ldag *g, int u, int v, int *w, int *fill) {
  *w = ade__find_same(g, ade__row(g, g->pred, u), ade__row(g, g->succ, v), -1);
  *fill = *w < 0;
  if (!*fill) {
    g->v[*w].model = 0; /* F'(w) changes: its elemental's tangents and adjoints no longer give it */
    return ADE_OK;
  }
  if (new_slot(g, w)) return ADE_ENOMEM;
  g->v[*w] = (ade__lvx){g->v[u].i, g->v[v].k, -1, 0, 1, 1, 0};
  FOR_BITS(g, ade__row(g, g->pred, u), p) add_edge(g, p, *w);
  FOR_BITS(g, ade__row(g, g->succ, v), q) add_edge(g, *w, q);
  return ADE_OK;
}

/* Rule 2: eliminate face (u, v), then remove isolated vertices and merge. */
static int face(ade__ldag *g, const ade__mctx *c, int u, int v, ade__mop_fn fn, void *ud) {
  int mode, w, fill, rc;
  uint64_t cost = ade__face_cost(g, c, u, v, &mode);
  if (cost == UINT64_MAX) return ade__fail(ADE_EINVAL, "face (%d, %d) cannot be eliminated", u, v);
  if ((rc = target(g, u, v, &w, &fill))) return rc;
  if ((rc = emit(fn, ud, (ade__mop){ADE__OP_ELI, mode, u, v, w, fill, cost}))) return rc;
  g->cost = ade__sadd(g->cost, cost);
  del_edge(g, u, v);
  uint64_t buf[8], *dirty = scratch(g->words, buf, 8);
  if (!dirty) return ade__fail(ADE_ENOMEM, "mission planner: out of memory");
  dirty[u >> 6] |= (uint64_t)1 << (u & 63);
  dirty[v >> 6] |= (uint64_t)1 << (v & 63);
  dirty[w >> 6] |= (uint64_t)1 << (w & 63);
  if (row_empty(g, ade__row(g, g->succ, u))) remove_slot(g, u, dirty); /* 2.4 */
  if (row_empty(g, ade__row(g, g->pred, v))) remove_slot(g, v, dirty); /* 2.5 */
  rc = merge_dirty(g, dirty, NULL, fn, ud);
  if (dirty != buf) ade__free(dirty);
  return rc;
}

int ade__move_apply(ade__ldag *g, const ade__mctx *c, const ade__move *m, ade__mop_fn fn, void *ud) {
  int rc = ADE_OK, u = m->u, v = m->v;
  if (m->u < 0 || m->u >= g->nslot || m->v >= g->nslot || !g->v[m->u].alive)
    return ade__fail(ADE_EINVAL, "mission move: bad slot");
  if (m->v >= 0 && !ade__is_face(g, m->u, m->v)) return ade__fail(ADE_EINVAL, "mission move: not a face");
  /* a preaccumulated vertex may merge into an older twin, which has the
   * same neighbours: the face continues from there */
  if (m->au && (rc = acc(g, c, &u, m->au, fn, ud))) return rc;
  if (v < 0) return ADE_OK;
  if (m->av && (rc = acc(g, c, &v, m->av, fn, ud))) return rc;
  return face(g, c, u, v, fn, ud);
}

int ade__ldag_has_face(const ade__ldag *g) {
  int t0 = g->nx + g->ny;
  for (int s = t0; s < g->nslot; s++) {
    if (!g->v[s].alive) continue;
    const uint64_t *r = ade__row(g, g->succ, s);
    if (next_bit(g, r, t0) >= 0) return 1;
  }
  return 0;
}

int ade__ldag_finish(ade__ldag *g, const ade__mctx *c, ade__mop_fn fn, void *ud) {
  for (int s = g->nx + g->ny; s < g->nslot; s++) {
    if (!g->v[s].alive || g->v[s].jac) continue;
    int t = s, rc = acc(g, c, &t, ADE__ACC_MIN, fn, ud);
    if (rc) return rc;
  }
  return ADE_OK;
}

/* Bound 1: every vertex (i, k) without a Jacobian is used at least once:
 * preaccumulated, or its tangents propagate some F'(h,*,i) (h a strict
 * ancestor of i), or its adjoints some F'(k,*,l) (l a strict descendant);
 * these uses are distinct operations. Faces whose ends both have
 * Jacobians are eliminated by products (or tangents and adjoints of
 * vertices with Jacobians), which are no such use: one per junction
 * variable whose faces are all of this kind adds its cheapest floor. */
static uint64_t face_floor(const ade__ldag *g, const ade__mctx *c, int u, int v);
static uint64_t bound_uses(const ade__ldag *g, const ade__mctx *c) {
  enum { NJ = 256 };
  int jv[NJ], nj = 0;
  uint64_t jmin[NJ], lb = 0;
  for (int s = g->nx + g->ny; s < g->nslot; s++) {
    const ade__lvx *x = &g->v[s];
    if (!x->alive) continue;
    FOR_BITS(g, ade__row(g, g->succ, s), v) {
      if (g->v[v].term) continue;
      int k = 0, both = x->jac && g->v[v].jac;
      uint64_t f = both ? face_floor(g, c, s, v) : UINT64_MAX; /* MAX: a use may pay for j */
      while (k < nj && jv[k] != x->k) k++;
      if (k < nj) jmin[k] = (jmin[k] == UINT64_MAX || f == UINT64_MAX) ? UINT64_MAX : ADE__MIN(jmin[k], f);
      else if (nj < NJ) jv[nj] = x->k, jmin[nj++] = f;
    }
    if (x->jac) continue;
    uint64_t use = ade__acc_cost(g, c, s, NULL);
    use = ADE__MIN(use, ade__smul(c->upstrict[x->i], elem(c, x)->tan));
    use = ADE__MIN(use, ade__smul(c->downstrict[x->k], elem(c, x)->adj));
    lb = ade__sadd(lb, use);
  }
  for (int k = 0; k < nj; k++)
    if (jmin[k] != UINT64_MAX) lb = ade__sadd(lb, jmin[k]);
  return lb;
}

/* The least an elimination through face (u, v)'s junction variable j can
 * cost: a face is not always eliminated itself, it is dropped when u or v
 * is isolated, and its paths go on in faces (u', v') with the same j whose
 * ends are ancestors of i and descendants of k: sizes minup(i) and
 * mindown(k) at least, and a fill-in end has no model. */
static uint64_t face_floor(const ade__ldag *g, const ade__mctx *c, int u, int v) {
  const ade__lvx *a = &g->v[u], *b = &g->v[v];
  uint64_t ni = c->minup[a->i], nk = c->mindown[b->k], best;
  best = ade__smul(ade__smul(ni, nsize(c, a->k)), nk);
  if (b->model) best = ADE__MIN(best, ade__smul(ni, elem(c, b)->tan));
  if (a->model) best = ADE__MIN(best, ade__smul(nk, elem(c, a)->adj));
  return best;
}

/* Bound 2: every junction variable j with a face through it is eliminated
 * through at least once (faces through j may all merge into one), at no
 * less than its cheapest face's floor; these operations are distinct, and
 * distinct from the preaccumulations of the vertices without faces and
 * Jacobians (from an input straight to an output). */
static uint64_t bound_faces(const ade__ldag *g, const ade__mctx *c) {
  enum { NJ = 256 };
  int jv[NJ], nj = 0;
  uint64_t jmin[NJ], lb = 0;
  for (int u = g->nx + g->ny; u < g->nslot; u++) {
    if (!g->v[u].alive) continue;
    int faces = 0;
    FOR_BITS(g, ade__row(g, g->succ, u), v) {
      if (g->v[v].term) continue;
      faces = 1;
      int k = 0;
      uint64_t f = face_floor(g, c, u, v);
      while (k < nj && jv[k] != g->v[u].k) k++;
      if (k < nj) jmin[k] = ADE__MIN(jmin[k], f);
      else if (nj < NJ) jv[nj] = g->v[u].k, jmin[nj++] = f; /* no room: left out, still a bound */
    }
    if (!faces && !g->v[u].jac && next_bit(g, ade__row(g, g->pred, u), g->nx + g->ny) < 0)
      lb = ade__sadd(lb, ade__acc_cost(g, c, u, NULL)); /* no face either way: input to output */
  }
  for (int k = 0; k < nj; k++) lb = ade__sadd(lb, jmin[k]);
  return lb;
}

/* Bound 3: bound 1's uses, plus what the eliminations at each junction
 * cost beyond the uses they can serve. An elimination at j serves at most
 * one use (its TAN flavour is a use of its (j,*,k) end, ADJ of its
 * (i,*,j) end; MUL none), of a vertex with an end at j, and costs no less
 * than that use and than j's floor. Junction j needs at least cnt_j
 * eliminations (junction_count); the adversary lets them serve the
 * largest uses there, so j adds sum over t < cnt_j of
 * max(0, floor_j - use_(t)), use_(t) the t-th largest (0 when fewer).
 * A vertex may count at both its junctions: that only lowers the sum. */
enum { NJ3 = 256, NF3 = 16, NU3 = 16 };
typedef struct jinfo {
  int j, nf, nu;
  uint64_t floor, both, in[NF3], out[NF3];
  uint64_t u[NU3]; /* the largest uses of vertices with an end at j, descending */
} jinfo;

/* The fewest eliminations junction j needs. One at j joins (i',*,j) and
 * (j,*,k') derived from a face (a, b) there now (a' from a by steps
 * upstream, b' from b downstream), so every (input, output) pair it
 * serves lies in in(a) x out(b) (inputs above a's first variable, outputs
 * below b's last), and every such pair of every face at j needs one (its
 * paths through j are joined only there). Pairs no face's rectangle holds
 * two of (a fooling set, built greedily) need one each. */
static int junction_count(const jinfo *J) {
  if (J->nf > NF3) return 1;
  int n = 0, px[NU3], py[NU3];
  for (int f = 0; f < J->nf && n < NU3; f++)
    for (uint64_t a = J->in[f]; a && n < NU3; a &= a - 1)
      for (uint64_t b = J->out[f]; b && n < NU3; b &= b - 1) {
        int x = __builtin_ctzll(a), y = __builtin_ctzll(b), ok = 1;
        for (int q = 0; q < n && ok; q++)
          for (int h = 0; h < J->nf && ok; h++)
            if ((J->in[h] >> x & 1) && (J->in[h] >> px[q] & 1) && (J->out[h] >> y & 1) && (J->out[h] >> py[q] & 1))
              ok = 0;
        if (ok) px[n] = x, py[n++] = y;
      }
  return n ? n : 1;
}

/* Junction j's entry in J (a new one if there is room; NULL if not: left
 * out, which only lowers the bounds). */
static jinfo *junction(jinfo *J, int *nj, int j) {
  for (int k = 0; k < *nj; k++)
    if (J[k].j == j) return &J[k];
  if (*nj == NJ3) return NULL;
  J[*nj].j = j, J[*nj].nf = J[*nj].nu = 0, J[*nj].floor = J[*nj].both = UINT64_MAX;
  return &J[(*nj)++];
}

/* Face (u, v) at its junction's entry. */
static void junction_face(jinfo *J, const ade__ldag *g, const ade__mctx *c, int u, int v) {
  uint64_t f = face_floor(g, c, u, v), fb = g->v[u].jac && g->v[v].jac ? f : UINT64_MAX;
  J->floor = ADE__MIN(J->floor, f);
  J->both = (J->nf && J->both == UINT64_MAX) || fb == UINT64_MAX ? UINT64_MAX : ADE__MIN(J->both, fb);
  if (J->nf < NF3) J->in[J->nf] = c->inset[g->v[u].i], J->out[J->nf] = c->outset[g->v[v].k];
  J->nf++;
}

/* A use u of a vertex with an end at J's junction. */
static void junction_use(jinfo *J, uint64_t u) {
  int t = J->nu < NU3 ? J->nu++ : NU3 - 1;
  if (t == NU3 - 1 && J->nu == NU3 && J->u[t] >= u) return;
  while (t > 0 && J->u[t - 1] < u) J->u[t] = J->u[t - 1], t--;
  J->u[t] = u;
}

/* Junction j's part of bound 3. */
static uint64_t junction_extra(const jinfo *J) {
  uint64_t x = 0;
  for (int t = 0, n = junction_count(J); t < n; t++) {
    uint64_t u = t < J->nu ? J->u[t] : 0;
    if (J->floor > u) x = ade__sadd(x, J->floor - u);
  }
  return x;
}

/* Bound 3 by itself (the reference the tests compare the one pass with). */
static uint64_t bound_share(const ade__ldag *g, const ade__mctx *c) {
  jinfo J[NJ3];
  int nj = 0;
  uint64_t la = 0;
  for (int s = g->nx + g->ny; s < g->nslot; s++) {
    if (!g->v[s].alive) continue;
    FOR_BITS(g, ade__row(g, g->succ, s), v) {
      jinfo *q = g->v[v].term ? NULL : junction(J, &nj, g->v[s].k);
      if (q) junction_face(q, g, c, s, v);
    }
  }
  for (int s = g->nx + g->ny; s < g->nslot; s++) {
    const ade__lvx *x = &g->v[s];
    if (!x->alive || x->jac) continue;
    la = ade__sadd(la, c->use[x->elem]);
    for (int k = 0; k < nj; k++)
      if (J[k].j == x->i || J[k].j == x->k) junction_use(&J[k], c->use[x->elem]);
  }
  for (int k = 0; k < nj; k++) la = ade__sadd(la, junction_extra(&J[k]));
  return la;
}

/* The three bounds in one pass over the faces (each face's floor once):
 * the same number as the largest of bound_uses, bound_faces and
 * bound_share, which the tests compare it with; this runs at every
 * search node. A junction past NJ3 is left out of all three. */
static uint64_t bound_all(const ade__ldag *g, const ade__mctx *c, uint64_t need) {
  jinfo J[NJ3];
  int nj = 0;
  uint64_t la = 0, lb = 0, ls = 0, lu = 0;
  for (int s = g->nx + g->ny; s < g->nslot; s++) {
    const ade__lvx *x = &g->v[s];
    if (!x->alive) continue;
    int faces = 0;
    FOR_BITS(g, ade__row(g, g->succ, s), v) {
      if (g->v[v].term) continue;
      faces = 1;
      jinfo *q = junction(J, &nj, x->k);
      if (q) junction_face(q, g, c, s, v);
    }
    if (x->jac) continue; /* a vertex without F' is an elemental's, with its model */
    if (!faces && next_bit(g, ade__row(g, g->pred, s), g->nx + g->ny) < 0) lb = ade__sadd(lb, c->acc[x->elem]);
    lu = ade__sadd(lu, c->use[x->elem]);
  }
  la = ls = lu;
  for (int k = 0; k < nj; k++) {
    if (J[k].both != UINT64_MAX) la = ade__sadd(la, J[k].both);
    lb = ade__sadd(lb, J[k].floor);
  }
  if (ADE__MAX(la, lb) >= need) return ADE__MAX(la, lb); /* enough to cut: bound 3 not needed */
  for (int s = g->nx + g->ny; s < g->nslot && nj; s++) {
    const ade__lvx *x = &g->v[s];
    if (!x->alive || x->jac) continue;
    for (int k = 0; k < nj; k++)
      if (J[k].j == x->i || J[k].j == x->k) junction_use(&J[k], c->use[x->elem]);
  }
  for (int k = 0; k < nj; k++) ls = ade__sadd(ls, junction_extra(&J[k]));
  return ADE__MAX(ADE__MAX(la, lb), ls);
}

uint64_t ade__ldag_bound(const ade__ldag *g, const ade__mctx *c) { return bound_all(g, c, UINT64_MAX); }

uint64_t ade__ldag_bound_cut(const ade__ldag *g, const ade__mctx *c, uint64_t need) { return bound_all(g, c, need); }

uint64_t ade__ldag_bound_ref(const ade__ldag *g, const ade__mctx *c) {
  uint64_t a = bound_uses(g, c), b = bound_faces(g, c), s = bound_share(g, c);
  return ADE__MAX(ADE__MAX(a, b), s);
}

/* ------------------------------------------------------------ state keys */

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

static uint64_t label(const ade__ldag *g, int s) {
  const ade__lvx *x = &g->v[s];
  if (x->term) return mix(0x5bd1e995u + (uint64_t)s);
  return mix(((uint64_t)(x->elem + 1) << 40) ^ ((uint64_t)x->i << 20) ^ (uint64_t)x->k ^ ((uint64_t)x->jac << 62) ^
             ((uint64_t)x->model << 61));
}

/* A vertex's label and its neighbours' labels (one refinement round;
 * lab: every slot's label). */
static uint64_t signature(const ade__ldag *g, int s, const uint64_t *lab) {
  uint64_t h = lab[s];
  FOR_BITS(g, ade__row(g, g->pred, s), p) h += mix(lab[p] + 1);
  FOR_BITS(g, ade__row(g, g->succ, s), q) h += mix(lab[q] + 2);
  return h;
}

/* Sort ord[0..n) by signature, ties by slot (insertion sort: a state has
 * a few dozen live vertices, and this runs once per search node). */
static void sort_by_sig(int *ord, int n, const uint64_t *sig) {
  for (int a = 1; a < n; a++) {
    int x = ord[a], b = a;
    while (b > 0 && (sig[ord[b - 1]] > sig[x] || (sig[ord[b - 1]] == sig[x] && ord[b - 1] > x))) ord[b] = ord[b - 1], b--;
    ord[b] = x;
  }
}

static int keybuf_room(ade__keybuf *kb, const ade__ldag *g, size_t words) {
  if (kb->capv < g->nslot) {
    int nc = 2 * g->nslot;
    int *o = ade__realloc(kb->ord, (size_t)nc * sizeof *o);
    if (o) kb->ord = o;
    int *r = o ? ade__realloc(kb->rank, (size_t)nc * sizeof *r) : NULL;
    if (r) kb->rank = r;
    uint64_t *s = r ? ade__realloc(kb->sig, (size_t)nc * sizeof *s) : NULL;
    if (s) kb->sig = s;
    uint64_t *l = s ? ade__realloc(kb->lab, (size_t)nc * sizeof *l) : NULL;
    if (!l) return ade__fail(ADE_ENOMEM, "bnb: out of memory");
    kb->lab = l;
    kb->capv = nc;
  }
  if (kb->cap < words) {
    uint32_t *k = ade__realloc(kb->k, 2 * words * sizeof *k);
    if (!k) return ade__fail(ADE_ENOMEM, "bnb: out of memory");
    kb->k = k;
    kb->cap = 2 * words;
  }
  return ADE_OK;
}

/* Serialize g: its live intermediate vertices ordered by signature (ties
 * by slot, which only costs missed matches), each as two words and its
 * successors' ranks (terminals by slot): the elemental (or the end
 * variables of fill-in), then the number of successors and whether F' and
 * a valid model are there. Equal keys are equal states. */
int ade__ldag_key(const ade__ldag *g, ade__keybuf *kb) {
  int t0 = g->nx + g->ny, nl = 0;
  for (int s = t0; s < g->nslot; s++) nl += g->v[s].alive;
  /* room for every vertex with every slot a successor: no count of edges */
  if (keybuf_room(kb, g, 1 + (size_t)nl * (2 + (size_t)g->nslot))) return ADE_ENOMEM;
  nl = 0;
  for (int s = 0; s < g->nslot; s++)
    if (g->v[s].alive || g->v[s].term) kb->lab[s] = label(g, s);
  for (int s = t0; s < g->nslot; s++)
    if (g->v[s].alive) kb->sig[s] = signature(g, s, kb->lab), kb->ord[nl++] = s;
  sort_by_sig(kb->ord, nl, kb->sig);
  for (int r = 0; r < nl; r++) kb->rank[kb->ord[r]] = t0 + r;
  for (int s = 0; s < t0; s++) kb->rank[s] = s;
  size_t n = 0;
  kb->k[n++] = (uint32_t)nl;
  for (int r = 0; r < nl; r++) {
    const ade__lvx *x = &g->v[kb->ord[r]];
    /* an elemental's vertex by its index (its variables follow), fill-in
     * by its variables (below 2^15: ADE__M_MAXVARS) */
    kb->k[n++] = x->elem >= 0 ? (uint32_t)x->elem : (uint32_t)1 << 31 | (uint32_t)x->i << 15 | (uint32_t)x->k;
    size_t at = n++;
    FOR_BITS(g, ade__row(g, g->succ, kb->ord[r]), q) {
      uint32_t c = (uint32_t)kb->rank[q];
      size_t j = n++;
      while (j > at + 1 && kb->k[j - 1] > c) kb->k[j] = kb->k[j - 1], j--;
      kb->k[j] = c;
    }
    kb->k[at] = (uint32_t)(n - at - 1) << 2 | (uint32_t)(x->jac | x->model << 1);
  }
  kb->n = n;
  return ADE_OK;
}

void ade__keybuf_free(ade__keybuf *kb) {
  ade__free(kb->k);
  ade__free(kb->ord);
  ade__free(kb->rank);
  ade__free(kb->sig);
  ade__free(kb->lab);
  memset(kb, 0, sizeof *kb);
}

/* ------------------------------------------------------- move sequences */

int ade__mseq_cost(const ade__mctx *c, const ade__mseq *s, uint64_t *cost) {
  ade__ldag g;
  int rc = ade__ldag_init(&g, c);
  for (size_t i = 0; i < s->n && !rc; i++) rc = ade__move_apply(&g, c, &s->m[i], NULL, NULL);
  if (!rc) rc = ade__ldag_finish(&g, c, NULL, NULL);
  *cost = g.cost;
  ade__ldag_free(&g);
  return rc;
}

int ade__mseq_push(ade__mseq *s, const ade__move *m) {
  if (ade__grow((void **)&s->m, &s->cap, s->n + 1, sizeof *s->m))
    return ade__fail(ADE_ENOMEM, "out of memory for a mission sequence");
  s->m[s->n++] = *m;
  return ADE_OK;
}

void ade__mseq_free(ade__mseq *s) {
  ade__free(s->m);
  memset(s, 0, sizeof *s);
}

int ade__mseq_copy(ade__mseq *dst, const ade__mseq *src) {
  int rc = ADE_OK;
  for (size_t i = 0; i < src->n && !rc; i++) rc = ade__mseq_push(dst, &src->m[i]);
  return rc;
}
