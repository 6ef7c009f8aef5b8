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

/* Eliminate with s (on g, or on its dual for faces) and read off J. */
static int eliminate(ade_cgraph *g, const ade_elim_seq *s, int check, ade_sparse **J,
                     ade_jacobian_report *r) {
  ade_cgraph *d = NULL, *w = g;
  uint64_t cost = 0;
  int st = ADE_OK;
  if (s->kind == ADE_SEQ_FACE && !(st = ade_cgraph_dual(&d, g))) w = d;
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

int ade__graph_from_tape(ade_tape *t, ade_cgraph **g, ade_jacobian_report *r) {
  int st = ade_cgraph_from_tape(g, t, &r->dropped);
  if (st) return st;
  r->vertices_before = (*g)->nalive;
  r->edges_before = (*g)->nedges;
  r->forward_cost = (uint64_t)(*g)->n * (*g)->nedges;
  r->reverse_cost = (uint64_t)(*g)->m * (*g)->nedges;
  return ADE_OK;
}

int ade__jacobian_seq(const ade_cgraph *g, int method, const ade_jacobian_options *o,
                      ade_elim_seq **own, const ade_elim_seq **use) {
  *own = NULL;
  *use = o ? o->seq : NULL;
  if (*use) return ADE_OK;
  int st = ade_elim_order(g, method, own);
  *use = *own;
  return st;
}

int ade_jacobian(ade_tape *t, int method, const ade_jacobian_options *o, ade_sparse **J,
                 ade_jacobian_report *report) {
  ade_jacobian_report r;
  ade_cgraph *g = NULL;
  ade_elim_seq *s = NULL;
  double t0 = ade__now();
  memset(&r, 0, sizeof r);
  if (!J) return ade__fail(ADE_EINVAL, "ade_jacobian: NULL result pointer");
  *J = NULL;
  if ((!o || !o->seq) && (method < 0 || method >= ADE_ORDER_COUNT))
    return ade__fail(ADE_EINVAL, "ade_jacobian: unknown method %d", method);
  const ade_elim_seq *use = NULL;
  int st = ade__graph_from_tape(t, &g, &r);
  if (!st) st = ade__jacobian_seq(g, method, o, &s, &use);
  if (!st) st = eliminate(g, use, o && o->check, J, &r);
  ade_seq_free(s);
  ade_cgraph_free(g);
  r.seconds = ade__now() - t0;
  if (report) *report = r;
  return st;
}
