/* face.c: face elimination on the dual c-graph (face-elimination paper, Rule 1), with fma counting. */
#include "face_inline.h"

/* ade__dual_twin's scan of the candidates: the successors of p0 (down)
 * or the predecessors of s0, one copy per direction. */
static inline __attribute__((always_inline)) size_t twin_scan(const ade_cgraph *d, size_t exclude, size_t np,
                                                              size_t ns, size_t p0, size_t s0, unsigned s,
                                                              const int down) {
  const ade__vtx *v0 = &d->v[down ? p0 : s0];
  for (size_t c = 0; c < (down ? v0->nout : v0->nin); c++) {
    size_t k = down ? d->e[v0->out[c]].dst : d->e[v0->in[c]].src, ok = 1;
    const ade__vtx *K = &d->v[k];
    if (k == exclude || K->kind != ADE__Z || K->nin != np || K->nout != ns) continue;
    if (np == 1) ok = down || d->e[K->in[0]].src == p0; /* down: p0 is k's predecessor */
    for (size_t a = 0; ok && np > 1 && a < np; a++) ok = d->mark[d->e[K->in[a]].src] == s;
    if (ns == 1) ok = ok && (!down || d->e[K->out[0]].dst == s0); /* up: s0 is k's successor */
    for (size_t b = 0; ok && ns > 1 && b < ns; b++) ok = d->mark[d->e[K->out[b]].dst] == s + 1;
    if (ok) return k;
  }
  return ADE__NONE;
}

/* A vertex k != exclude with P_k = P_pv and S_k = S_sv, or ADE__NONE.
 * Candidates are the successors of the predecessor of pv with the fewest
 * successors or the predecessors of the successor of sv with the fewest
 * predecessors, whichever list is shorter (merges keep at most one such
 * k, so the choice does not change the answer); sets are compared through
 * marks (the workspace is sized by the caller), a set of one directly. */
size_t ade__dual_twin(ade_cgraph *d, size_t pv, size_t sv, size_t exclude) {
  const ade__vtx *P = &d->v[pv], *S = &d->v[sv];
  if (!P->nin || !S->nout) return ADE__NONE;
  size_t np = P->nin, ns = S->nout;
  unsigned s = ade__graph_stamp(d, 2);
  size_t p0 = d->e[P->in[0]].src, s0 = d->e[S->out[0]].dst;
  for (size_t a = 0; np > 1 && a < np; a++) { /* a side of one is compared without marks */
    size_t p = d->e[P->in[a]].src;
    d->mark[p] = s;
    if (d->v[p].nout < d->v[p0].nout) p0 = p;
  }
  for (size_t b = 0; ns > 1 && b < ns; b++) {
    size_t q = d->e[S->out[b]].dst;
    d->mark[q] = s + 1;
    if (d->v[q].nin < d->v[s0].nin) s0 = q;
  }
  return d->v[p0].nout <= d->v[s0].nin ? twin_scan(d, exclude, np, ns, p0, s0, s, 1)
                                       : twin_scan(d, exclude, np, ns, p0, s0, s, 0);
}

/* Rule 1, steps 3-4: remove i if isolated, else merge it with a twin
 * (same predecessors and successors). The older vertex survives with the
 * sum of both labels. By Lemmas 7-8 no other vertex becomes mergeable. */
static int settle(ade_cgraph *d, size_t i, size_t *kept) {
  ade__vtx *v = &d->v[i];
  if (!v->alive) return ADE_OK;
  if (!v->nin || !v->nout) {
    ade__graph_del_vertex(d, i);
    return ADE_OK;
  }
  size_t t = ade__dual_twin(d, i, i, i);
  if (t == ADE__NONE) return ADE_OK;
  size_t keep = t < i ? t : i, gone = t < i ? i : t;
  d->v[keep].val += d->v[gone].val;
  d->merged++;
  *kept = keep;
  int st = d->rec ? ade__plan_push(d->rec, ADE__P_ADD, d->v[keep].id, d->v[gone].id, 0) : ADE_OK;
  ade__graph_del_vertex(d, gone);
  return st;
}

/* Room for the fill-in vertex of face (a, b), its edges and the plan's
 * steps (the update and two merges), so that the step cannot fail midway:
 * on failure the new vertex, if added, is taken back. */
static int reserve_fill(ade_cgraph *d, size_t a, size_t b, size_t *k) {
  size_t np = d->v[a].nin, ns = d->v[b].nout;
  int st = ade__graph_reserve(d, 1, np + ns);
  for (size_t x = 0; x < np && !st; x++) st = ade__graph_reserve_adj(d, d->e[d->v[a].in[x]].src, 0, 1);
  for (size_t x = 0; x < ns && !st; x++) st = ade__graph_reserve_adj(d, d->e[d->v[b].out[x]].dst, 1, 0);
  if (!st) st = ade__plan_reserve(d->rec, 3);
  if (st || (st = ade__graph_add_vertex(d, d->next_vertex_id, ADE__Z, k))) return st;
  if ((st = ade__graph_reserve_adj(d, *k, np, ns))) {
    ade__graph_drop_lists(d, *k);
    d->nv--;
    d->nalive--;
  }
  return st;
}

/* Fill-in: a new vertex k' with P_k' = P_a, S_k' = S_b and label c. */
static int fill_vertex(ade_cgraph *d, size_t a, size_t b, double c) {
  size_t k;
  int st = reserve_fill(d, a, b, &k);
  if (st) return st;
  d->next_vertex_id++;
  d->v[k].val = c;
  d->v[k].csrc = d->v[a].csrc;
  d->v[k].ctgt = d->v[b].ctgt;
  for (size_t x = 0; !st && x < d->v[a].nin; x++) st = ade__graph_add_edge(d, d->e[d->v[a].in[x]].src, k, 0, NULL);
  for (size_t x = 0; !st && x < d->v[b].nout; x++) st = ade__graph_add_edge(d, k, d->e[d->v[b].out[x]].dst, 0, NULL);
  return st;
}

/* Rule 1: eliminate the intermediate face (a, b). */
int ade__face_step(ade_cgraph *d, size_t a, size_t b) {
  if (!d->dual) return ade__fail(ADE_EINVAL, "face elimination needs a dual c-graph");
  size_t f = ade__graph_find(d, a, b);
  if (f == ADE__NONE) return ade__fail(ADE_EINVAL, "no face (%ld, %ld)", d->v[a].id, d->v[b].id);
  return ade__face_step_at(d, f);
}

/* Rule 1 for the face in edge slot f (the slot stays that face's while
 * the step adds edges: slots are only reused after a deletion). */
int ade__face_step_at(ade_cgraph *d, size_t f) {
  size_t kept[2];
  return ade__face_step_kept(d, f, 1, kept);
}

int ade__face_step_kept(ade_cgraph *d, size_t f, int twin, size_t kept[2]) {
  kept[0] = kept[1] = ADE__NONE;
  size_t a = d->e[f].src, b = d->e[f].dst;
  if (d->v[a].kind != ADE__Z || d->v[b].kind != ADE__Z)
    return ade__fail(ADE_EINVAL, "face (%ld, %ld) is not intermediate (Rule 1 needs both ends in Z~)",
                     d->v[a].id, d->v[b].id);
  int st = ade__graph_marks(d);
  if (!st) st = ade__plan_reserve(d->rec, 3);
  if (st) return st;
  double ca = d->v[a].val, cb = d->v[b].val;
  size_t k = twin ? ade__dual_twin(d, a, b, ADE__NONE) : ADE__NONE;
  long kid = k != ADE__NONE ? d->v[k].id : d->next_vertex_id;
  if (k != ADE__NONE) { /* absorption */
    d->v[k].val += cb * ca;
    d->fma++;
    d->absorbed++;
  } else { /* fill-in */
    if ((st = fill_vertex(d, a, b, cb * ca))) return st;
    d->fma++;
    d->fill++;
    if ((st = ade__graph_marks(d))) return st;
  }
  if (d->rec && (st = ade__plan_push(d->rec, k != ADE__NONE ? ADE__P_FMA : ADE__P_SET, kid, d->v[b].id, d->v[a].id)))
    return st;
  ade__graph_del_edge(d, f);
  if ((st = settle(d, a, &kept[0]))) return st;
  return settle(d, b, &kept[1]);
}

/* ------------------------------------------------------- dual index */

static int index_sync(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d, const uint32_t *rk);

static int index_init(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d, const uint32_t *rk) {
  memset(x, 0, sizeof *x);
  x->first = ade__alloc((g->nv + 1) * sizeof *x->first);
  if (!x->first) return ade__fail(ADE_ENOMEM, "out of memory for a dual index");
  for (size_t j = 0; j <= g->nv; j++) x->first[j] = ADE__NONE;
  return index_sync(x, g, d, rk);
}

int ade__dual_index_init(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d) {
  return index_init(x, g, d, NULL);
}

int ade__dual_index_sync(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d) {
  return index_sync(x, g, d, NULL);
}

/* The c-graph index of the ctgt of live intermediate dual vertex u: rk[u]
 * when the caller keeps them (face-greedy), else looked up. */
static size_t ctgt_ix(const ade_cgraph *g, const ade_cgraph *d, const uint32_t *rk, size_t u) {
  return rk ? rk[u] : ade__graph_vertex_at(g, d->v[u].ctgt);
}

static int index_sync(ade__dual_index *x, const ade_cgraph *g, const ade_cgraph *d, const uint32_t *rk) {
  if (d->nv > x->cap) {
    size_t nc = 2 * d->nv;
    size_t *p = ade__realloc(x->next, ade__mul_size(nc, sizeof *p));
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a dual index of %zu", nc);
    x->next = p, x->cap = nc;
  }
  for (; x->seen < d->nv; x->seen++) {
    const ade__vtx *v = &d->v[x->seen];
    size_t j = v->alive && v->kind == ADE__Z ? ctgt_ix(g, d, rk, x->seen) : ADE__NONE;
    if (j == ADE__NONE) continue;
    x->next[x->seen] = x->first[j];
    x->first[j] = x->seen;
  }
  return ADE_OK;
}

size_t ade__dual_index_live(ade__dual_index *x, const ade_cgraph *d, size_t j) {
  size_t *link = &x->first[j];
  while (*link != ADE__NONE) { /* a dual vertex once dead stays dead */
    size_t u = *link;
    if (d->v[u].alive && d->v[u].kind == ADE__Z) link = &x->next[u];
    else *link = x->next[u];
  }
  return x->first[j];
}

void ade__dual_index_free(ade__dual_index *x) {
  ade__free(x->first);
  ade__free(x->next);
  memset(x, 0, sizeof *x);
}

int ade__dual_has_face(ade__dual_index *x, const ade_cgraph *d, size_t j) {
  for (size_t u = ade__dual_index_live(x, d, j); u != ADE__NONE; u = x->next[u]) {
    const ade__vtx *v = &d->v[u];
    if (!v->alive || v->kind != ADE__Z) continue;
    for (size_t o = 0; o < v->nout; o++)
      if (d->v[d->e[v->out[o]].dst].kind == ADE__Z) return 1;
  }
  return 0;
}

/* ------------------------------------------- vertices with faces left */

/* face[j] for every j at once, as ade__dual_has_face: one pass over the
 * dual's vertices instead of the index's lists. */
int ade__faced_init_rk(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d, const uint32_t *rk) {
  memset(F, 0, sizeof *F);
  int st = index_init(&F->x, g, d, rk);
  if (!st && !(F->face = ade__calloc(g->nv + 1, 1)))
    st = ade__fail(ADE_ENOMEM, "out of memory for the faces of %zu vertices", g->nv);
  for (size_t u = 0; !st && u < d->nv; u++) {
    const ade__vtx *v = &d->v[u];
    int z = 0;
    for (size_t o = 0; v->alive && v->kind == ADE__Z && !z && o < v->nout; o++) z = d->v[d->e[v->out[o]].dst].kind == ADE__Z;
    size_t j = z ? ctgt_ix(g, d, rk, u) : ADE__NONE;
    if (j != ADE__NONE && !F->face[j] && g->v[j].alive && g->v[j].kind == ADE__Z)
      F->rest += F->face[j] = (uint8_t)ade__cut(d->cut, j);
  }
  return st;
}

int ade__faced_init(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d) { return ade__faced_init_rk(F, g, d, NULL); }

int ade__faced_step_rk(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d, size_t j, const uint32_t *rk) {
  int st = index_sync(&F->x, g, d, rk);
  if (!st && j != ADE__NONE && F->face[j] > 1) F->rest--, F->face[j]--; /* one face at j taken */
  if (!st && j != ADE__NONE && F->face[j] && !ade__dual_has_face(&F->x, d, j)) F->face[j] = 0, F->rest--;
  return st;
}

int ade__faced_step(ade__faced *F, const ade_cgraph *g, const ade_cgraph *d, long c) {
  return ade__faced_step_rk(F, g, d, ade__graph_vertex(g, c), NULL);
}

void ade__faced_free(ade__faced *F) {
  ade__dual_index_free(&F->x);
  ade__free(F->face);
  memset(F, 0, sizeof *F);
}

/* The twin searches for the keys of faces (face_inline.h), one copy per
 * side. */
int ade__dual_same_side(ade_cgraph *d, size_t v, int out, ade__ix *K) {
  return out ? dual_same_side(d, v, 1, K) : dual_same_side(d, v, 0, K);
}

int ade__dual_side_matches(ade_cgraph *d, const ade__ix *K, size_t w, int out) {
  return out ? dual_side_matches(d, K, w, 1) : dual_side_matches(d, K, w, 0);
}

int ade__dual_absorbed_each(ade_cgraph *d, const ade__ix *K, size_t v, int out,
                            int (*fn)(void *ctx, ade_cgraph *d, size_t e), void *ctx) {
  return out ? dual_absorbed_each(d, K, v, 1, fn, ctx) : dual_absorbed_each(d, K, v, 0, fn, ctx);
}
