/* heur.c: mission planners without search: dense and sparse vector modes, greedy heuristics (Section 4.1). */
#include "mission_internal.h"

#define FOR_BITS(g, r, t) for (int t = ade__next_bit(g, r, 0); t >= 0; t = ade__next_bit(g, r, t + 1))

/* Dense tangent (adjoint) mode: every elemental's tangent (adjoint) with
 * as many directions as the inputs (outputs) have entries in total; an
 * elemental given only as a Jacobian costs a matrix-vector product. */
int ade__m_dense(const ade__mctx *c, int adjoint, uint64_t *cost) {
  const ade_mission *d = c->d;
  uint64_t dirs = 0, sum = 0;
  for (int j = 0; j < d->nv; j++)
    if (adjoint ? !d->v[j].nout : !d->v[j].nin) dirs += d->v[j].size;
  for (int k = 0; k < d->ne; k++) {
    const ade__melem *e = &d->e[k];
    uint64_t one = e->model ? (adjoint ? e->adj : e->tan) : ade__smul(d->v[e->src].size, d->v[e->dst].size);
    sum = ade__sadd(sum, ade__smul(dirs, one));
  }
  *cost = sum;
  return ADE_OK;
}

static int apply_push(ade__ldag *g, const ade__mctx *c, const ade__move *m, ade__mseq *out) {
  int rc = ade__move_apply(g, c, m, NULL, NULL);
  return rc ? rc : ade__mseq_push(out, m);
}

/* Sparse modes, step 1: preaccumulate, in the mode, the elementals at the
 * inputs (tangent) or at the outputs (adjoint). */
static int sparse_seed(ade__ldag *g, const ade__mctx *c, int adjoint, ade__mseq *out) {
  const ade_mission *d = c->d;
  int rc = ADE_OK;
  for (int s = g->nx + g->ny; s < g->nx + g->ny + d->ne && !rc; s++) {
    const ade__lvx *x = &g->v[s];
    int end = adjoint ? !d->v[x->k].nout : !d->v[x->i].nin;
    ade__move m = {s, -1, (unsigned char)(adjoint ? ADE__ACC_ADJ : ADE__ACC_TAN), 0};
    if (x->alive && !x->jac && end) rc = apply_push(g, c, &m, out);
  }
  return rc;
}

/* Sparse modes, step 2: the next face to propagate: from an input-rooted
 * Jacobian forward in topological order of its variables (tangent), or
 * into an output-ending Jacobian backward (adjoint). */
static int sparse_next(const ade__ldag *g, const ade__mctx *c, int adjoint, ade__move *m) {
  const ade_mission *d = c->d;
  long best = -1;
  for (int u = g->nx + g->ny; u < g->nslot; u++) {
    if (!g->v[u].alive) continue;
    FOR_BITS(g, ade__row(g, g->succ, u), v) {
      if (g->v[v].term) continue;
      const ade__lvx *a = &g->v[u], *b = &g->v[v];
      int ok = adjoint ? (b->jac && !d->v[b->k].nout) : (a->jac && !d->v[a->i].nin);
      long key = adjoint ? (long)(d->nv - c->pos[a->k]) * d->nv + (d->nv - c->pos[a->i])
                         : (long)c->pos[a->k] * d->nv + c->pos[b->k];
      if (ok && (best < 0 || key < best)) best = key, *m = (ade__move){u, v, 0, 0};
    }
  }
  return best >= 0;
}

int ade__m_sparse(ade__mrun *r, int adjoint, ade__mseq *out) {
  ade__ldag g;
  ade__move m;
  int rc = ade__ldag_init(&g, r->c);
  if (!rc) rc = sparse_seed(&g, r->c, adjoint, out);
  while (!rc && sparse_next(&g, r->c, adjoint, &m))
    rc = ade__mrun_expired(r) ? ade__fail(ADE_ELIMIT, "sparse mode: out of time") : apply_push(&g, r->c, &m, out);
  if (!rc && ade__ldag_has_face(&g)) rc = ade__fail(ADE_EINVAL, "sparse mode left faces");
  ade__ldag_free(&g);
  return rc;
}

/* Line dag edges a face elimination adds (fill-in) less those it removes:
 * the edge itself, u's in-edges if u loses its last successor, v's
 * out-edges if v loses its last predecessor. */
static long fill_of(const ade__ldag *g, int u, int v) {
  const uint64_t *pu = ade__row(g, g->pred, u), *sv = ade__row(g, g->succ, v);
  long f = -1;
  if (ade__find_same(g, pu, sv, -1) < 0) f += ade__row_count(g, pu) + ade__row_count(g, sv);
  if (ade__row_count(g, ade__row(g, g->succ, u)) == 1) f -= ade__row_count(g, pu);
  if (ade__row_count(g, ade__row(g, g->pred, v)) == 1) f -= ade__row_count(g, sv);
  return f;
}

/* The cheapest way to eliminate face (u, v), with the preaccumulations it needs. */
static uint64_t cheapest(const ade__ldag *g, const ade__mctx *c, int u, int v, ade__move *m) {
  ade__move mv[4];
  uint64_t best = UINT64_MAX;
  int n = ade__face_moves(g, c, u, v, mv);
  for (int k = 0; k < n; k++) {
    uint64_t x = ade__move_cost(g, c, &mv[k]);
    if (x < best) best = x, *m = mv[k];
  }
  return best;
}

/* The order of face (u, v) in sparse tangent mode (junction variable,
 * then end variable, earliest first) or adjoint mode (latest first). */
static long mode_key(const ade__ldag *g, const ade__mctx *c, int u, int v, int ties) {
  long nv = c->d->nv, j = c->pos[g->v[u].k], k = c->pos[g->v[v].k];
  return ties == ADE__TIES_TANGENT ? j * nv + k : (nv - j) * nv + (nv - k);
}

/* greedy-min-fill (Section 4.1): the face of least fill-in, eliminated
 * the cheapest way; ties go to the first face in slot order (ties =
 * ADE__TIES_SLOT), or in sparse tangent or adjoint order.
 * greedy-cost: the face whose cheapest elimination costs least among those
 * that add no fill-in if there are any (else among all); ties go to less
 * fill-in. */
static int greedy_next(const ade__ldag *g, const ade__mctx *c, int by_cost, int ties, ade__move *best) {
  long bf = 0, bk = 0;
  uint64_t bc = UINT64_MAX;
  int found = 0;
  for (int u = g->nx + g->ny; u < g->nslot; u++) {
    if (!g->v[u].alive) continue;
    FOR_BITS(g, ade__row(g, g->succ, u), v) {
      if (g->v[v].term) continue;
      ade__move m;
      uint64_t cost = cheapest(g, c, u, v, &m);
      long f = fill_of(g, u, v);
      int grows = f > 0, bgrows = bf > 0;
      long key = ties ? mode_key(g, c, u, v, ties) : 0;
      int better = by_cost ? (grows < bgrows || (grows == bgrows && (cost < bc || (cost == bc && f < bf))))
                           : f < bf || (f == bf && key < bk);
      if (!found || better) found = 1, bf = f, bc = cost, bk = key, *best = m;
    }
  }
  return found;
}

/* r (may be NULL): its clock (ade__mrun_expired). */
static int greedy_run(ade__ldag *g, const ade__mctx *c, const ade__mrun *r, int by_cost, int ties, ade__mseq *out) {
  ade__move m;
  int rc = ADE_OK;
  while (!rc && greedy_next(g, c, by_cost, ties, &m))
    rc = ade__mrun_expired(r) ? ade__fail(ADE_ELIMIT, "greedy planner: out of time") : apply_push(g, c, &m, out);
  return rc;
}

int ade__greedy_from(ade__ldag *g, const ade__mctx *c, int by_cost, ade__mseq *out) {
  return greedy_run(g, c, NULL, by_cost, ADE__TIES_SLOT, out);
}

int ade__m_greedy_ties(ade__mrun *r, int by_cost, int ties, ade__mseq *out) {
  ade__ldag g;
  int rc = ade__ldag_init(&g, r->c);
  if (!rc) rc = greedy_run(&g, r->c, r, by_cost, ties, out);
  ade__ldag_free(&g);
  return rc;
}

int ade__m_greedy(ade__mrun *r, int by_cost, ade__mseq *out) {
  return ade__m_greedy_ties(r, by_cost, ADE__TIES_SLOT, out);
}
