/* auto.c: the automatic Jacobian method: the cheapest by fma of the vertex sweeps (plain and after the chains), the Markowitz orderings and CPR, and the methods' names. */
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

/* What CPR's lower bound needs: the most entries in a row and in a column
 * of J (the most independents reaching a dependent, dependents reached by
 * an independent): CPR needs at least that many colors. Beyond the memory
 * limit, 1 (no bound). */
typedef struct sweeps {
  uint64_t maxrow, maxcol;
  int exact; /* 0: the counts would not fit */
} sweeps;

static int predict(const ade_cgraph *g, sweeps *p) {
  uint64_t *id = ade__alloc((g->nv + 1) * sizeof *id), *od = ade__alloc((g->nv + 1) * sizeof *od);
  int st = id && od ? ade__reach_counts(g, 0, id) : ADE_ENOMEM;
  if (!st) st = ade__reach_counts(g, 1, od);
  *p = (sweeps){1, 1, !st};
  for (size_t i = 0; !st && i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (v->alive && v->kind == ADE__Y) p->maxrow = ADE__MAX(p->maxrow, id[i]);
    if (v->alive && v->kind == ADE__X) p->maxcol = ADE__MAX(p->maxcol, od[i]);
  }
  ade__free(id);
  ade__free(od);
  if (st == ADE_ENOMEM) ade__clear_error(), st = ADE_OK; /* no bound: CPR is tried */
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

/* The automatic rule (doc/elimination.md): the Markowitz orderings
 * run, the vertex sweeps counted without eliminating (ade_elim_order), CPR when its
 * lower bound is below the best so far; the least fma wins, ties going to
 * the one tried first (elimination before CPR: a plan runs straight-line
 * code). At the deadline (0: none) a Markowitz ordering still running is
 * dropped and CPR not tried (c->limited): the counted sweeps, which take
 * no decisions, are always there. */
static int choose_auto(const ade_cgraph *g, double deadline, int threads, ade__watch *w, ade__choice *c) {
  static const int counted[] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_VERTEX_RELATIVE, ADE_ORDER_VERTEX_REVERSE,
                                ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_CHAINS};
  sweeps p;
  int st = predict(g, &p);
  c->cost = UINT64_MAX;
  c->method = -1;
  for (size_t k = 0; !st && k < sizeof counted / sizeof *counted; k++) {
    ade_elim_seq *s = NULL;
    int sweep = counted[k] == ADE_ORDER_VERTEX_REVERSE || counted[k] == ADE_ORDER_VERTEX_FORWARD ||
                counted[k] == ADE_ORDER_VERTEX_CHAINS;
    if (!sweep && deadline > 0 && ade__now() >= deadline) { /* out of time: not started */
      c->limited = 1;
      continue;
    }
    if (w) w->outer = c->cost;
    st = ade__elim_order_watched(g, counted[k], sweep ? 0 : deadline, 0, threads, w, &s, NULL);
    if (st == ADE_ELIMIT && deadline > 0) ade__clear_error(), st = ADE_OK, c->limited = 1; /* dropped */
    if (st == ADE_ENOMEM && c->seq) ade__clear_error(), st = ADE_OK; /* V_LR's degrees beyond the limit */
    if (!st && s && ade_seq_cost(s) < c->cost) {
      ade_seq_free(c->seq);
      c->seq = s, s = NULL, c->method = counted[k], c->cost = ade_seq_cost(c->seq);
    }
    ade_seq_free(s);
  }
  if (!st && deadline > 0 && ade__now() >= deadline) c->limited = 1; /* out of time: no coloring */
  else if (!st) st = try_cpr(g, &p, 3, c);
  return st;
}

/* CPR in one mode, whatever it costs. */
static int cpr_only(const ade_cgraph *g, int method, ade__choice *c) {
  sweeps p = {0, 0, 0}; /* lower bounds 0: always tried */
  c->cost = UINT64_MAX;
  return try_cpr(g, &p, method == ADE_ELIM_CPR_FORWARD ? 1 << ADE_FORWARD : 1 << ADE_REVERSE, c);
}

int ade__choose(const ade_cgraph *g, int method, const ade_jacobian_options *o, ade__choice *c) {
  memset(c, 0, sizeof *c);
  int st = o && !(o->time_limit >= 0 && o->progress_interval >= 0)
               ? ade__fail(ADE_EINVAL, "bad time limit %g or progress interval %g", o->time_limit, o->progress_interval)
               : ADE_OK;
  if (st) return st;
  if (o && o->seq) { /* the caller's sequence, not ours to free */
    c->method = -1;
    c->given = o->seq;
    return ADE_OK;
  }
  double deadline = o && o->time_limit > 0 ? ade__now() + o->time_limit : 0;
  ade__watch watch, *w = o && o->progress ? &watch : NULL;
  if (w) ade__watch_start(w, method, o->progress, o->progress_ud, o->progress_interval);
  if (method == ADE_ELIM_AUTO) st = choose_auto(g, deadline, o ? o->threads : 1, w, c);
  else if (method == ADE_ELIM_CPR_FORWARD || method == ADE_ELIM_CPR_REVERSE)
    st = cpr_only(g, method, c);
  else c->method = method;
  /* An ordering's winner in its own kind (the same cost; no conversion). */
  if (!st && c->method >= 0 && c->method < ADE_ORDER_COUNT && !c->seq)
    st = ade__elim_order_watched(g, c->method, deadline, 1, o ? o->threads : 1, w, &c->seq, &c->limited);
  if (!st && c->seq) c->cost = ade_seq_cost(c->seq);
  if (!st && c->method != ADE_ELIM_CPR_FORWARD && c->method != ADE_ELIM_CPR_REVERSE) { /* elimination only */
    ade_sparse_free(c->P), c->P = NULL;
    ade__free(c->color), c->color = NULL;
  }
  if (st) ade__choice_free(c);
  return st;
}
