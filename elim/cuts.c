/* cuts.c: lower bounds on each intermediate vertex's share of any
 * elimination's cost, from dominators (doc/elimination.md, "Cut bounds"). */
#include "elim_internal.h"

/* Any complete elimination (vertex, edge or face) ends with no path of
 * the c-graph through an intermediate j; a path leaves j only through a
 * face (i, j, k) with j in the middle, one fma each (a vertex elimination
 * of j is |P_j||S_j| of them, an edge elimination |S_j| or |P_i|), and
 * each pair of a path from X to j and a path from j to Y leaves j through
 * exactly one face: one whose in-edge (i, j) has i on the first path (the
 * last vertex of it still there before j, or a copy of it) and whose
 * out-edge (j, k) has k on the second. Take kx(j) paths from X to j
 * disjoint but at j (Menger: kx(j) is the least vertex cut between X and
 * j) and ky(j) paths from j to Y likewise: no face has its i on two of
 * the first or its k on two of the second, so each of the kx(j) ky(j)
 * pairs takes a face of its own at j. Faces at different vertices are
 * different faces, so the faces still to take are at least, summed over
 * the intermediates j left, kx(j) ky(j) less the faces already taken at
 * j, and at least 1 while j has a face.
 * A single vertex cuts j from X exactly when it dominates j (in the graph
 * with a source above all of X), so kx(j) >= 2 where j's immediate
 * dominator is that source; ky likewise with postdominators. Bounds
 * above 2 would need flows; these two cost one pass each way. */

#define TOP (SIZE_MAX - 1) /* the added source (sink), above X (Y) */

/* Immediate dominators in index order (Cooper, Harvey and Kennedy's
 * intersection: on a DAG in topological order one pass is exact, each
 * vertex after its predecessors). up: postdominators, in descending
 * order over successors. 0 once the walks pass budget (the caller then
 * has no bound), else 1. */
static int dominators(const ade_cgraph *g, int up, size_t *dom, size_t budget) {
  size_t walked = 0;
  for (size_t t = 0; t < g->nv; t++) {
    size_t j = up ? g->nv - 1 - t : t, d = ADE__NONE;
    const ade__vtx *v = &g->v[j];
    dom[j] = ADE__NONE;
    if (!v->alive) continue;
    if (v->kind == (up ? ADE__Y : ADE__X)) {
      dom[j] = TOP;
      continue;
    }
    size_t deg = up ? v->nout : v->nin;
    const size_t *adj = up ? v->out : v->in;
    for (size_t a = 0; a < deg && d != TOP; a++) {
      size_t p = up ? g->e[adj[a]].dst : g->e[adj[a]].src;
      if (d == ADE__NONE) {
        d = p;
        continue;
      }
      while (d != p && d != TOP && p != TOP) { /* the one farther from the top steps up */
        if (++walked > budget) return 0;
        if (up ? d < p : d > p) d = dom[d];
        else p = dom[p];
      }
      if (p == TOP) d = TOP;
    }
    dom[j] = d;
  }
  return 1;
}

int ade__cut_bounds(const ade_cgraph *g, uint8_t **cut) {
  *cut = NULL;
  if (g->dual) return ADE_OK;
  for (size_t e = 0; e < g->eslots; e++) /* an index order that is topological */
    if (g->e[e].src != ADE__NONE && g->e[e].src >= g->e[e].dst) return ADE_OK;
  for (size_t j = 0; j < g->nv; j++) /* every intermediate on a path from X to Y */
    if (g->v[j].alive && g->v[j].kind == ADE__Z && (!g->v[j].nin || !g->v[j].nout)) return ADE_OK;
  size_t *dom = ade__alloc(ade__mul_size(g->nv + 1, sizeof *dom));
  uint8_t *k = ade__calloc(g->nv + 1, 1);
  if (!dom || !k) {
    ade__free(dom), ade__free(k);
    return ade__fail(ADE_ENOMEM, "out of memory for the cut bounds of %zu vertices", g->nv);
  }
  size_t budget = 8 * (g->nv + g->nedges) + 1024;
  int ok = dominators(g, 0, dom, budget);
  for (size_t j = 0; ok && j < g->nv; j++) k[j] = (uint8_t)(dom[j] == TOP ? 2 : 1);
  ok = ok && dominators(g, 1, dom, budget);
  for (size_t j = 0; ok && j < g->nv; j++) k[j] |= (uint8_t)((dom[j] == TOP ? 2 : 1) << 2);
  ade__free(dom);
  if (ok) *cut = k;
  else ade__free(k);
  return ADE_OK;
}
