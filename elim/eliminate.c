/* eliminate.c: vertex and edge elimination on the c-graph (face-elimination paper, Rules 2-4), with fma counting. */
#include "elim_internal.h"

/* c(i, k) += c(ea) c(eb): absorption into an existing edge or fill-in of a
 * new one. The multiply-add is counted here, where it is executed, and
 * recorded when a plan is being compiled. */
static inline __attribute__((always_inline)) int update(ade_cgraph *g, size_t i, size_t k, size_t ea, size_t eb) {
  double a = g->e[ea].val, b = g->e[eb].val;
  size_t e;
  int st = ade__graph_find_add(g, i, k, a * b, &e), kind = st == 1 ? ADE__P_FMA : ADE__P_SET;
  if (st == 1) {
    g->e[e].val += a * b;
    g->absorbed++;
    st = ADE_OK;
  } else if (!st) {
    g->fill++;
  }
  if (!st) g->fma++;
  if (!st && g->rec) st = ade__plan_push(g->rec, kind, g->e[e].id, g->e[ea].id, g->e[eb].id);
  return st;
}

/* Remove intermediate vertex i if it has become isolated (Rule 2). */
static void drop_isolated(ade_cgraph *g, size_t i) {
  const ade__vtx *v = &g->v[i];
  if (v->alive && v->kind == ADE__Z && (!v->nin || !v->nout)) ade__graph_del_vertex(g, i);
}

/* Vertex elimination of j: c(i,k) += c(i,j) c(j,k) for i in P_j, k in S_j;
 * cost |P_j||S_j|, the Markowitz degree (Rules 3/4). */
int ade__elim_vertex_ix(ade_cgraph *g, size_t j, uint64_t *cost) {
  if (g->dual) return ade__fail(ADE_EINVAL, "vertex elimination needs a c-graph, not a dual");
  if (j >= g->nv || !g->v[j].alive) return ade__fail(ADE_EINVAL, "no such vertex");
  if (g->v[j].kind != ADE__Z)
    return ade__fail(ADE_EINVAL, "vertex %ld is %s, not intermediate", g->v[j].id,
                     g->v[j].kind == ADE__X ? "independent" : "dependent");
  size_t np = g->v[j].nin, ns = g->v[j].nout;
  int st = ade__graph_reserve(g, 0, np * ns);
  for (size_t a = 0; a < np && !st; a++) st = ade__graph_reserve_adj(g, g->e[g->v[j].in[a]].src, 0, ns);
  for (size_t b = 0; b < ns && !st; b++) st = ade__graph_reserve_adj(g, g->e[g->v[j].out[b]].dst, np, 0);
  if (st || (st = ade__plan_reserve(g->rec, np * ns))) return st; /* nothing changed yet */
  for (size_t a = 0; a < np; a++) {
    size_t e1 = g->v[j].in[a], i = g->e[e1].src;
    for (size_t b = 0; b < ns; b++) {
      size_t e2 = g->v[j].out[b];
      if ((st = update(g, i, g->e[e2].dst, e2, e1))) return st;
    }
  }
  ade__graph_del_vertex(g, j);
  if (cost) *cost = (uint64_t)np * ns;
  return ADE_OK;
}

/* Room for the fill-in of front (back) eliminating edge (i, j): an edge
 * from i to each successor of j (to j from each predecessor of i). */
static int reserve_edge(ade_cgraph *g, size_t i, size_t j, int dir) {
  const ade__vtx *v = &g->v[dir == ADE_FRONT ? j : i];
  size_t n = dir == ADE_FRONT ? v->nout : v->nin;
  int st = ade__graph_reserve(g, 0, n);
  if (!st) st = dir == ADE_FRONT ? ade__graph_reserve_adj(g, i, 0, n) : ade__graph_reserve_adj(g, j, n, 0);
  for (size_t k = 0; k < n && !st; k++)
    st = dir == ADE_FRONT ? ade__graph_reserve_adj(g, g->e[v->out[k]].dst, 1, 0)
                          : ade__graph_reserve_adj(g, g->e[v->in[k]].src, 0, 1);
  return st ? st : ade__plan_reserve(g->rec, n);
}

/* Rule 2. Front elimination of (i,j): c(i,j') += c(j,j') c(i,j) for j' in
 * S_j, cost |S_j|. Back elimination: c(i',j) += c(i,j) c(i',i) for i' in
 * P_i, cost |P_i|. Then (i,j) goes, and i or j if isolated. */
int ade__elim_edge_ix(ade_cgraph *g, size_t e, int dir, uint64_t *cost) {
  size_t i = g->e[e].src, j = g->e[e].dst, n;
  if (g->dual) return ade__fail(ADE_EINVAL, "edge elimination needs a c-graph, not a dual");
  if (dir != ADE_FRONT && dir != ADE_BACK) return ade__fail(ADE_EINVAL, "bad edge direction %d", dir);
  if (dir == ADE_FRONT && g->v[j].kind != ADE__Z)
    return ade__fail(ADE_EINVAL, "edge (%ld, %ld) leads into a dependent: it cannot be front eliminated",
                     g->v[i].id, g->v[j].id);
  if (dir == ADE_BACK && g->v[i].kind != ADE__Z)
    return ade__fail(ADE_EINVAL, "edge (%ld, %ld) leaves an independent: it cannot be back eliminated",
                     g->v[i].id, g->v[j].id);
  int st = reserve_edge(g, i, j, dir);
  if (st) return st; /* nothing changed yet */
  if (dir == ADE_FRONT) {
    n = g->v[j].nout;
    for (size_t b = 0; b < n; b++) {
      size_t x = g->v[j].out[b];
      if ((st = update(g, i, g->e[x].dst, x, e))) return st;
    }
  } else {
    n = g->v[i].nin;
    for (size_t a = 0; a < n; a++) {
      size_t x = g->v[i].in[a];
      if ((st = update(g, g->e[x].src, j, e, x))) return st;
    }
  }
  size_t mid = dir == ADE_FRONT ? j : i, drop = g->lb && g->lb[mid] > 1 ? g->lb[mid] - 1u : 0;
  if (drop) drop = n < drop ? n : drop, g->lbrest -= drop, g->lb[mid] -= (uint8_t)drop; /* n faces at mid taken */
  ade__graph_del_edge(g, e);
  drop_isolated(g, i);
  drop_isolated(g, j);
  if (cost) *cost = n;
  return ADE_OK;
}

static int vertex_of(const ade_cgraph *g, long id, size_t *v) {
  *v = ADE__NONE;
  if (!g) return ade__fail(ADE_EINVAL, "NULL graph");
  *v = ade__graph_vertex(g, id);
  return *v == ADE__NONE ? ade__fail(ADE_EINVAL, "no vertex %ld in the graph", id) : ADE_OK;
}

int ade_elim_vertex(ade_cgraph *g, long v, uint64_t *cost) {
  size_t j;
  int st = vertex_of(g, v, &j);
  return st ? st : ade__elim_vertex_ix(g, j, cost);
}

int ade_elim_edge(ade_cgraph *g, long i, long j, int dir, uint64_t *cost) {
  size_t a, b, e;
  int st = vertex_of(g, i, &a);
  if (!st) st = vertex_of(g, j, &b);
  if (st) return st;
  if ((e = ade__graph_find(g, a, b)) == ADE__NONE) return ade__fail(ADE_EINVAL, "no edge (%ld, %ld)", i, j);
  return ade__elim_edge_ix(g, e, dir, cost);
}

int ade_elim_face(ade_cgraph *d, long i, long j, uint64_t *cost) {
  size_t a = ADE__NONE, b = ADE__NONE;
  int st = vertex_of(d, i, &a);
  if (!st) st = vertex_of(d, j, &b);
  if (!st) st = ade__face_step(d, a, b);
  if (!st && cost) *cost = 1;
  return st;
}
