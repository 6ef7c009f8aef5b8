/* jacobian.c: ade_jacobian: tape -> c-graph -> ordering -> elimination -> sparse Jacobian, with a report. */
#include "elim_internal.h"

/* Apply s to g step by step, checking the invariants after each step. */
static int apply_checked(ade_cgraph *g, const ade_elim_seq *s, uint64_t *cost) {
  uint64_t total = 0, c;
  for (size_t k = 0; k < s->len; k++) {
    int st = ade__seq_apply_step(g, s->kind, &s->step[k], &c);
    if (!st) st = ade_cgraph_check(g);
    if (st) return st;
    total += c;
  }
  *cost = total;
  return ADE_OK;
}

/* Eliminate with s and read off J: on mine (g itself, ours to change) or,
 * without it, a copy of g; faces on g's dual. */
static int eliminate(const ade_cgraph *g, ade_cgraph *mine, const ade_elim_seq *s, int check, ade_sparse **J,
                     ade_jacobian_report *r) {
  ade_cgraph *d = NULL, *w = mine;
  uint64_t cost = 0;
  int st = ADE_OK;
  if (!check && ade__seq_kept_result(s, g, J, &st)) { /* built on g itself: its Jacobian kept */
    if (!st) {
      r->fma = s->cost, r->fill = s->jac_fill, r->absorbed = s->jac_absorbed, r->merged = s->jac_merged;
      r->steps = s->len, r->vertices_after = g->n + g->m, r->edges_after = (*J)->nnz;
    }
    return st;
  }
  if (s->kind == ADE_SEQ_FACE) st = ade_cgraph_dual(&d, g), w = d;
  else if (!mine) st = ade_cgraph_copy(&d, g), w = d;
  if (!st && s->fingerprint && s->fingerprint != ade__graph_fingerprint(w))
    st = ade__fail(ADE_EINVAL, "the sequence was built for a different graph");
  if (!st) st = check ? apply_checked(w, s, &cost) : ade_seq_apply(w, s, &cost);
  if (!st) st = ade_cgraph_jacobian(w, J);
  if (!st) {
    r->fma = cost;
    r->fill = w->fill;
    r->absorbed = w->absorbed;
    r->merged = w->merged;
    r->steps = s->len;
    r->vertices_after = g->n + g->m;
    r->edges_after = (*J)->nnz;
  }
  ade_cgraph_free(d);
  return st;
}

/* CPR's Jacobian at the recorded point on the chosen pattern (taken from c). */
static int by_cpr(ade_tape *t, const ade_cgraph *g, ade__choice *c, ade_sparse **J, ade_jacobian_report *r) {
  int mode = c->method == ADE_ELIM_CPR_FORWARD ? ADE_FORWARD : ADE_REVERSE;
  int st = ade_jacobian_cpr_values(t, mode, NULL, c->color, c->ncolors, c->P);
  if (st < 0) return st;
  *J = c->P, c->P = NULL;
  r->fma = c->cost, r->colors = c->ncolors, r->steps = (c->ncolors + 63) / 64;
  r->vertices_after = g->n + g->m, r->edges_after = (*J)->nnz;
  return ADE_OK;
}

/* The plan of t's structure from the cache, run at the recorded point. */
static int by_cache(ade_tape *t, int method, ade_plan_cache *c, ade_sparse **J, ade_jacobian_report *r) {
  ade_elim_plan *p = NULL;
  int st = ade_plan_cache_get(c, t, method, &p, NULL, r);
  if (!st) st = ade_elim_plan_pattern(p, J);
  if (!st) st = ade_elim_plan_jacobian(p, t, NULL, *J);
  if (st < 0) ade_sparse_free(*J), *J = NULL;
  ade_elim_plan_free(p);
  return st;
}

/* o->graph (or o->graph_scratch) instead of a build: it must be t's c-graph, untouched. */
static int given_graph(ade_tape *t, const ade_cgraph *g, ade_jacobian_report *r) {
  if (g->dual || g->fma || g->fill || g->n != ade_tape_num_indep(t) || g->m != ade_tape_num_dep(t))
    return ade__fail(ADE_EINVAL, "ade_jacobian: o->graph is not the c-graph of this tape as built (%zu x %zu%s)",
                     g->m, g->n, g->dual ? ", a dual" : g->fma || g->fill ? ", eliminated" : "");
  r->dropped = g->dropped;
  r->vertices_before = g->nalive;
  r->edges_before = g->nedges;
  r->forward_cost = (uint64_t)g->n * g->nedges;
  r->reverse_cost = (uint64_t)g->m * g->nedges;
  return ADE_OK;
}

int ade_jacobian(ade_tape *t, int method, const ade_jacobian_options *o, ade_sparse **J,
                 ade_jacobian_report *report) {
  ade_jacobian_report r;
  ade_cgraph *g = NULL;
  ade__choice c;
  double t0 = ade__now();
  memset(&r, 0, sizeof r);
  if (!J) return ade__fail(ADE_EINVAL, "ade_jacobian: NULL result pointer");
  *J = NULL;
  if ((!o || !o->seq) && !ade__method_valid(method))
    return ade__fail(ADE_EINVAL, "ade_jacobian: unknown method %d", method);
  int st;
  if (o && o->cache && !o->seq && !o->check) {
    st = by_cache(t, method, o->cache, J, &r);
  } else {
    ade_cgraph *scratch = o ? o->graph_scratch : NULL;
    const ade_cgraph *use = o && o->graph ? o->graph : scratch;
    if (o && o->graph && scratch) return ade__fail(ADE_EINVAL, "ade_jacobian: o->graph and o->graph_scratch both set");
    st = use ? given_graph(t, use, &r) : ade__graph_from_tape(t, &g, &r);
    if (!use) use = g;
    if (!st) st = ade__choose(use, method, o, &c);
    if (!st) {
      r.method = c.method;
      r.limited = c.limited;
      st = ade__choice_cpr(&c) ? by_cpr(t, use, &c, J, &r)
                               : eliminate(use, g ? g : scratch, c.seq ? c.seq : c.given, o && o->check, J, &r);
      ade__choice_free(&c);
    }
  }
  ade_cgraph_free(g);
  r.seconds = ade__now() - t0;
  if (report) *report = r;
  return st;
}
