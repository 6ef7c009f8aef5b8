/* face_inline.h: the face engine's twin searches for the keys of faces
 * (ade__dual_same_side, ade__dual_side_matches, ade__dual_absorbed_each,
 * face.c) as static inline functions of the file that includes it, one
 * copy per side when the side is a constant (out, here an argument
 * always inlined): face-greedy's hot calls (order.c) inline, the side's
 * tests leave the loops. face.c exports the same code. */
#ifndef ADE_FACE_INLINE_H
#define ADE_FACE_INLINE_H
#include "elim_internal.h"

/* The absorption test of every face out of (out) or into dual vertex v
 * at once (face-greedy's face_key, the face hierarchy's keys: one twin
 * search per vertex instead of one per face). Face (a, b) absorbs iff
 * some intermediate k has P_k = P_a and S_k = S_b (ade__dual_twin; k is neither a nor b, the dual
 * being acyclic). K: the intermediates k != v with P_k = P_v (out) or S_k
 * = S_v, from the neighbours of v's neighbour with the fewest (as
 * ade__dual_twin; in a dual fresh from a c-graph the P-twins of edge
 * (i, j) are the other edges out of i); with none, no face of v absorbs. */
static inline __attribute__((always_inline)) int dual_same_side(ade_cgraph *d, size_t v, const int out, ade__ix *K) {
  const ade__vtx *V = &d->v[v];
  size_t n = out ? V->nin : V->nout, p0 = ADE__NONE;
  const size_t *l = out ? V->in : V->out;
  K->n = 0;
  if (ade__dual_lone(d, v, out)) return ADE_OK; /* the common case, with no marks */
  /* every candidate has p0 on that side: with n = 1 an equal size is an
   * equal set, and no marks are needed */
  unsigned s = n > 1 ? ade__graph_stamp(d, 1) : 0;
  if (n == 1) p0 = out ? d->e[l[0]].src : d->e[l[0]].dst;
  for (size_t a = 0; n > 1 && a < n; a++) {
    size_t p = out ? d->e[l[a]].src : d->e[l[a]].dst;
    d->mark[p] = s;
    if (p0 == ADE__NONE || (out ? d->v[p].nout < d->v[p0].nout : d->v[p].nin < d->v[p0].nin)) p0 = p;
  }
  const ade__vtx *P = &d->v[p0];
  int st = ADE_OK;
  for (size_t c = 0; !st && c < (out ? P->nout : P->nin); c++) {
    size_t k = out ? d->e[P->out[c]].dst : d->e[P->in[c]].src;
    const ade__vtx *X = &d->v[k];
    if (k == v || X->kind != ADE__Z || (out ? X->nin : X->nout) != n) continue;
    int ok = 1;
    for (size_t a = 0; ok && n > 1 && a < n; a++) ok = d->mark[out ? d->e[X->in[a]].src : d->e[X->out[a]].dst] == s;
    if (ok) st = ade__ix_push(K, k);
  }
  return st;
}


/* Whether some k in K has S_k = S_w (out) or P_k = P_w. */
static inline __attribute__((always_inline)) int dual_side_matches(ade_cgraph *d, const ade__ix *K, size_t w, const int out) {
  const ade__vtx *W = &d->v[w];
  size_t n = out ? W->nout : W->nin;
  if (!K->n || !n) return 0;
  if (n == 1) { /* one neighbour: compared without marks */
    size_t q = out ? d->e[W->out[0]].dst : d->e[W->in[0]].src;
    for (size_t i = 0; i < K->n; i++) {
      const ade__vtx *X = &d->v[K->a[i]];
      if ((out ? X->nout : X->nin) == 1 && (out ? d->e[X->out[0]].dst : d->e[X->in[0]].src) == q) return 1;
    }
    return 0;
  }
  unsigned s = ade__graph_stamp(d, 1);
  for (size_t b = 0; b < n; b++) d->mark[out ? d->e[W->out[b]].dst : d->e[W->in[b]].src] = s;
  for (size_t i = 0; i < K->n; i++) {
    const ade__vtx *X = &d->v[K->a[i]];
    int ok = (out ? X->nout : X->nin) == n;
    for (size_t b = 0; ok && b < n; b++) ok = d->mark[out ? d->e[X->out[b]].dst : d->e[X->in[b]].src] == s;
    if (ok) return 1;
  }
  return 0;
}


/* fn(ctx, d, e) for each face e = (x, y) that v absorbs, P_x = P_v and
 * S_y = S_v (x among the successors of a predecessor of v), given v's
 * twins K from ade__dual_same_side(d, v, out, K): out: the x are K (x != v: x = v
 * would need y in S_y), the y their successors; else the y are K and the
 * x their predecessors. Stops at fn's first error. */
static inline __attribute__((always_inline)) int dual_absorbed_each(ade_cgraph *d, const ade__ix *K, size_t v,
                                                              const int out,
                                                              int (*fn)(void *ctx, ade_cgraph *d, size_t e),
                                                              void *ctx) {
  const ade__vtx *V = &d->v[v];
  size_t n = out ? V->nout : V->nin;
  if (!K->n || !V->nin || !V->nout) return ADE_OK;
  /* one neighbour: compared without marks (q) */
  unsigned s = n > 1 ? ade__graph_stamp(d, 1) : 0;
  size_t q = out ? d->e[V->out[0]].dst : d->e[V->in[0]].src;
  for (size_t b = 0; n > 1 && b < n; b++) d->mark[out ? d->e[V->out[b]].dst : d->e[V->in[b]].src] = s;
  int st = ADE_OK;
  for (size_t i = 0; !st && i < K->n; i++) {
    const ade__vtx *X = &d->v[K->a[i]];
    for (size_t o = 0; !st && o < (out ? X->nout : X->nin); o++) {
      size_t e = out ? X->out[o] : X->in[o];
      const ade__vtx *Y = &d->v[out ? d->e[e].dst : d->e[e].src];
      int same = Y->kind == ADE__Z && (out ? Y->nout : Y->nin) == n;
      if (same && n == 1) same = (out ? d->e[Y->out[0]].dst : d->e[Y->in[0]].src) == q;
      for (size_t b = 0; same && n > 1 && b < n; b++) same = d->mark[out ? d->e[Y->out[b]].dst : d->e[Y->in[b]].src] == s;
      if (same) st = fn(ctx, d, e);
    }
  }
  return st;
}

#endif
