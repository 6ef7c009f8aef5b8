/* auto.c: the automatic Jacobian method: the cheapest by fma of the vertex sweeps, the Markowitz orderings and CPR, and the methods' names. */
#include "elim_internal.h"

const char *ade_elim_method_name(int method) {
  switch (method) {
  case ADE_ELIM_AUTO: return "auto";
  case ADE_ELIM_CPR_FORWARD: return "cpr-forward";
  case ADE_ELIM_CPR_REVERSE: return "cpr-reverse";
  default: return ade_order_name(method);
  }
}

int ade_elim_method_parse(const char *name) {
  static const int extra[] = {ADE_ELIM_AUTO, ADE_ELIM_CPR_FORWARD, ADE_ELIM_CPR_REVERSE};
  for (size_t i = 0; name && i < sizeof extra / sizeof *extra; i++)
    if (!strcmp(name, ade_elim_method_name(extra[i]))) return extra[i];
  return ade_order_parse(name);
}

int ade__method_valid(int method) {
  return (method >= 0 && method < ADE_ORDER_COUNT) || method == ADE_ELIM_AUTO ||
         method == ADE_ELIM_CPR_FORWARD || method == ADE_ELIM_CPR_REVERSE;
}

void ade__choice_free(ade__choice *c) {
  ade_seq_free(c->seq);
  ade_sparse_free(c->P);
  ade__free(c->color);
  memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ predictions */

/* Exact costs of the vertex sweeps without running them. In forward order
 * every predecessor of v is, when v goes, one of the id_v independents
 * that reach it, and its out-edges are still the c-graph's: the cost is
 * sum_v id_v |S_v| (<= n |E|, forward vector mode). In reverse order it is
 * sum_v od_v |P_v| (<= m |E|). id and od by bitsets propagated in
 * topological order, as V_LR's dependency degrees (order.c); also the
 * largest id of a dependent and od of an independent (the most entries in
 * a row and in a column of J: CPR needs at least that many colors). */
typedef struct sweeps {
  uint64_t fwd, rev, maxrow, maxcol;
  int exact; /* 0: the bitsets would not fit; fwd, rev are the bounds n|E|, m|E| */
} sweeps;

static int predict(const ade_cgraph *g, sweeps *p) {
  size_t wn = (g->n + 63) / 64, wm = (g->m + 63) / 64, w = ADE__MAX(wn, wm);
  size_t bytes = ade__mul_size(ade__mul_size(g->nv + 1, w), sizeof(uint64_t));
  *p = (sweeps){(uint64_t)g->n * g->nedges, (uint64_t)g->m * g->nedges, 1, 1, 0};
  if (ade__over_budget(g->memlimit, bytes) || bytes > ADE__AUTO_BITS) return ADE_OK;
  size_t *ord = ade__alloc((g->nv + 1) * sizeof *ord);
  uint64_t *bits = ade__alloc(bytes);
  int st = ord && bits ? ade__cgraph_topo(g, ord, NULL) : ade__fail(ADE_ENOMEM, "out of memory predicting sweeps");
  uint64_t fwd = 0, rev = 0, maxrow = 1, maxcol = 1;
  for (int pass = 0; !st && pass < 2; pass++) { /* 0: id forward, 1: od backward */
    memset(bits, 0, bytes);
    for (size_t t = 0; t < g->nalive; t++) {
      size_t i = ord[pass ? g->nalive - 1 - t : t];
      const ade__vtx *v = &g->v[i];
      uint64_t *b = bits + i * w, c = 0;
      if (v->kind == (pass ? ADE__Y : ADE__X)) b[v->aux / 64] |= 1ull << (v->aux % 64);
      size_t nk = pass ? v->nout : v->nin;
      for (size_t k = 0; k < nk; k++) {
        const uint64_t *u = bits + (pass ? g->e[v->out[k]].dst : g->e[v->in[k]].src) * w;
        for (size_t x = 0; x < w; x++) b[x] |= u[x];
      }
      for (size_t x = 0; x < w; x++) c += (uint64_t)__builtin_popcountll(b[x]);
      if (v->kind == ADE__Z && !pass) fwd += c * v->nout;
      if (v->kind == ADE__Z && pass) rev += c * v->nin;
      if (v->kind == ADE__Y && !pass) maxrow = ADE__MAX(maxrow, c);
      if (v->kind == ADE__X && pass) maxcol = ADE__MAX(maxcol, c);
    }
  }
  if (!st) *p = (sweeps){fwd, rev, maxrow, maxcol, 1};
  ade__free(ord);
  ade__free(bits);
  return st;
}

/* --------------------------------------------------------------- choosing */

/* CPR in each mode whose lower bound (the most entries in a row or a
 * column of J: at least that many colors, times |E|) is below c's cost:
 * the pattern, a coloring, and the cost colors |E|. */
static int try_cpr(const ade_cgraph *g, const sweeps *p, int modes, ade__choice *c) {
  ade_sparse *P = NULL;
  int st = ADE_OK;
  for (int mode = ADE_FORWARD; !st && mode <= ADE_REVERSE; mode++) {
    uint64_t lower = (mode == ADE_FORWARD ? p->maxrow : p->maxcol) * g->nedges;
    if (!(modes & (1 << mode)) || lower >= c->cost) continue;
    size_t nc = 0, *col = ade__alloc((ADE__MAX(g->n, g->m) + 1) * sizeof *col);
    st = col ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for a coloring");
    if (!st && !P) st = ade_cgraph_pattern(g, &P);
    if (!st) st = ade_sparse_color(P, mode, ADE_COLOR_BEST, col, &nc);
    if (st == ADE_ENOMEM && c->method >= 0) { /* beyond the memory limit: keep the elimination */
      ade__free(col);
      st = ADE_OK;
      break;
    }
    if (!st && (uint64_t)nc * g->nedges < c->cost) {
      ade_seq_free(c->seq), c->seq = NULL;
      ade__free(c->color), c->color = col, col = NULL;
      c->ncolors = nc, c->cost = (uint64_t)nc * g->nedges;
      c->method = mode == ADE_FORWARD ? ADE_ELIM_CPR_FORWARD : ADE_ELIM_CPR_REVERSE;
    }
    ade__free(col);
  }
  if (!st && c->color) c->P = P, P = NULL;
  ade_sparse_free(P);
  return st;
}

/* The vertex sweep's sequence without running it: the intermediates in id
 * order (forward) or against it; its cost is the exact prediction. */
static int sweep_seq(const ade_cgraph *g, int reverse, uint64_t cost, ade_elim_seq **sp) {
  int st = ade_seq_create(sp, ADE_SEQ_VERTEX);
  for (size_t t = 0; !st && t < g->nv; t++) {
    const ade__vtx *v = &g->v[reverse ? g->nv - 1 - t : t];
    if (v->alive && v->kind == ADE__Z) st = ade_seq_push(*sp, v->id, 0, 0);
  }
  if (!st) (*sp)->cost = cost;
  return st;
}

/* The automatic rule (doc/elimination.md): the Markowitz orderings
 * counted (they run), the vertex sweeps predicted exactly, CPR when its
 * lower bound is below the best so far; the least fma wins, ties going to
 * the one tried first (elimination before CPR: a plan runs straight-line
 * code). */
static int choose_auto(const ade_cgraph *g, ade__choice *c) {
  static const int counted[] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_VERTEX_RELATIVE};
  sweeps p;
  int st = predict(g, &p);
  c->cost = UINT64_MAX;
  c->method = -1;
  for (size_t k = 0; !st && k < 2; k++) {
    ade_elim_seq *s = NULL;
    if (counted[k] == ADE_ORDER_VERTEX_RELATIVE && !p.exact) break; /* its bitsets would not fit */
    st = ade_elim_order(g, counted[k], &s);
    if (!st && ade_seq_cost(s) < c->cost) {
      ade_seq_free(c->seq);
      c->seq = s, s = NULL, c->method = counted[k], c->cost = ade_seq_cost(c->seq);
    }
    ade_seq_free(s);
  }
  int sweep[2] = {ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_FORWARD};
  for (int k = 0; !st && k < 2; k++) { /* the sequence is built below, if chosen */
    uint64_t cost = k ? p.fwd : p.rev;
    if (cost < c->cost) ade_seq_free(c->seq), c->seq = NULL, c->cost = cost, c->method = sweep[k];
  }
  if (!st) st = try_cpr(g, &p, 3, c);
  if (!st && p.exact && !c->seq && !ade__choice_cpr(c)) /* a sweep, its cost known: no need to run it */
    st = sweep_seq(g, c->method == ADE_ORDER_VERTEX_REVERSE, c->cost, &c->seq);
  return st;
}

/* CPR in one mode, whatever it costs. */
static int cpr_only(const ade_cgraph *g, int method, ade__choice *c) {
  sweeps p = {0, 0, 0, 0, 0}; /* lower bounds 0: always tried */
  c->cost = UINT64_MAX;
  return try_cpr(g, &p, method == ADE_ELIM_CPR_FORWARD ? 1 << ADE_FORWARD : 1 << ADE_REVERSE, c);
}

int ade__choose(const ade_cgraph *g, int method, const ade_jacobian_options *o, ade__choice *c) {
  int st = ADE_OK;
  memset(c, 0, sizeof *c);
  if (o && o->seq) { /* the caller's sequence, not ours to free */
    c->method = -1;
    c->given = o->seq;
    return ADE_OK;
  }
  if (method == ADE_ELIM_AUTO) st = choose_auto(g, c);
  else if (method == ADE_ELIM_CPR_FORWARD || method == ADE_ELIM_CPR_REVERSE)
    st = cpr_only(g, method, c);
  else c->method = method;
  if (!st && c->method >= 0 && c->method < ADE_ORDER_COUNT && !c->seq) st = ade_elim_order(g, c->method, &c->seq);
  if (!st && c->seq) c->cost = ade_seq_cost(c->seq);
  if (!st && c->method != ADE_ELIM_CPR_FORWARD && c->method != ADE_ELIM_CPR_REVERSE) { /* elimination only */
    ade_sparse_free(c->P), c->P = NULL;
    ade__free(c->color), c->color = NULL;
  }
  if (st) ade__choice_free(c);
  return st;
}
