/* sweeps.h: the tests' oracle of the sweep that the edge and face
 * orderings and the hierarchies start from (order.c's vector_sweep and
 * chains_first), from simulated runs. Include after elim_internal.h and
 * testutil.h (randprog.h includes it). */
#ifndef ADE_TEST_SWEEPS_H
#define ADE_TEST_SWEEPS_H

/* The cost of the ordering's own sequence alone (no comparisons). */
static uint64_t raw_cost(const ade_cgraph *g, int o) {
  ade_elim_seq *s = NULL;
  ck_assert_int_eq(ade__order_raw(g, o, 0, &s), ADE_OK);
  uint64_t c = ade_seq_cost(s);
  ade_seq_free(s);
  return c;
}

/* The cheaper vector mode's sweep by n and m (reverse if m < n), and
 * where ade__both_sweeps the other's too, whichever costs less: of g, or
 * with chains, of g after its chains (the intermediates with one
 * predecessor and one successor, eliminated until none is left, in index
 * order, each costing 1: the oracle of order.c's chains_first). */
static uint64_t sweeps_cost(const ade_cgraph *g, int chains) {
  ade_cgraph *c = NULL;
  ck_assert_int_eq(ade_cgraph_copy(&c, g), ADE_OK);
  for (size_t j = 0; chains && j < c->nv; j++) {
    const ade__vtx *v = &c->v[j];
    uint64_t one = 0;
    if (!v->alive || v->kind != ADE__Z || v->nin != 1 || v->nout != 1) continue;
    ck_assert_int_eq(ade_elim_vertex(c, v->id, &one), ADE_OK);
    ck_assert_uint_eq(one, 1);
    j = (size_t)-1; /* from the start: it may have left another so */
  }
  uint64_t f = raw_cost(c, ADE_ORDER_VERTEX_FORWARD), r = raw_cost(c, ADE_ORDER_VERTEX_REVERSE);
  ade_cgraph_free(c);
  if (ade__both_sweeps(g)) return f < r ? f : r;
  return g->m < g->n ? r : f;
}

/* The cost of the sweep that the edge and face orderings start from: the
 * cheaper of the vector modes' sweeps and the sweeps after the chains. */
static uint64_t vector_cost(const ade_cgraph *g) {
  uint64_t a = sweeps_cost(g, 0), b = sweeps_cost(g, 1);
  return a < b ? a : b;
}

#endif
