/* lincache.c: linearized chunks for the sweeps: from the resident form, the cache of chunks linearized before, or a fresh linearization. */
#include "eval_internal.h"

static size_t lin_bytes(const ade__lin *L) {
  return L->n * (1 + 8 + 4) + (size_t)L->pos[L->n] * 16 + 4;
}

/* Chunk c linearized at the recorded values (at the tape's point, if one
 * is set: then never kept), if kept. A chunk linearized a second time is
 * kept while the kept ones fit in the tape's memory limit, so repeated
 * sweeps (gradients in a loop, strips of a Jacobian) skip decoding, while a
 * single sweep touches no more new memory than one chunk (fresh pages cost
 * more than the decoding they would save once). *out = NULL: not kept, the
 * chunk is loaded in t->view instead. */
int ade__lin_peek(ade_tape *t, size_t c, const ade__lin **out) {
  *out = NULL;
  if (t->pt.active) return ade__view_load(t, c); /* at a new point: never cached */
  if (!t->lin) {
    t->eval_free[ADE__EV_LIN] = ade__lin_cache_free;
    t->lin = ade__calloc(t->meta.nchunks + 1, sizeof *t->lin);
    t->linseen = ade__calloc(t->meta.nchunks + 1, 1);
    if (!t->lin || !t->linseen) { /* both or neither */
      ade__free(t->lin);
      ade__free(t->linseen);
      t->lin = NULL;
      t->linseen = NULL;
      return ade__fail(ADE_ENOMEM, "out of memory for the linearized-chunk cache");
    }
  }
  if (t->lin[c]) {
    *out = t->lin[c];
    return ADE_OK;
  }
  int st = ade__view_load(t, c);
  size_t est = (size_t)t->view.n * 13 + ade__lin_slots(&t->view) * 16;
  ade__lin *L = NULL;
  if (!st && t->linseen[c] && t->linbytes + est <= t->memlimit) L = ade__calloc(1, sizeof *L);
  t->linseen[c] = 1;
  if (!L) return st;
  st = ade__lin_build(t, NULL, L);
  if (st) {
    ade__lin_free(L);
    ade__free(L);
    return st;
  }
  t->lin[c] = L;
  t->linbytes += lin_bytes(L);
  *out = L;
  return ADE_OK;
}

/* The resident form, if built and within the limit, where it can serve a
 * linearization (not while a point is set: then the views are at that
 * point). Never built here: a sweep linearizes chunk by chunk, and only
 * sweeps count towards building it (ade__res_get). */
static const ade__res *lin_res(ade_tape *t) {
  const ade__res *r = t->pt.active ? NULL : ade__res_find(t);
  if (r) t->eval_free[ADE__EV_LIN] = ade__lin_cache_free; /* frees linscratch */
  return r;
}

int ade__lin_get(ade_tape *t, size_t c, const ade__lin **out) {
  const ade__res *r = lin_res(t);
  const double *D = r ? ade__res_d(t, r) : NULL;
  if (D) {
    *out = &t->linscratch;
    return ade__res_lin(r, D, t, c, NULL, &t->linscratch);
  }
  int st = ade__lin_peek(t, c, out);
  if (st || *out) return st;
  *out = &t->linscratch;
  return ade__lin_build(t, NULL, &t->linscratch);
}

void ade__lin_cache_free(ade_tape *t) {
  for (size_t c = 0; t->lin && c < t->meta.nchunks; c++) {
    ade__lin_free(t->lin[c]);
    ade__free(t->lin[c]);
  }
  ade__free(t->lin);
  ade__free(t->linseen);
  ade__lin_free(&t->linscratch);
  t->lin = NULL;
  t->linseen = NULL;
  t->linbytes = 0;
}

int ade__lin_at(ade_tape *t, size_t c, const double *V, const ade__lin **out) {
  if (!V) return ade__lin_get(t, c, out);
  const ade__res *r = lin_res(t);
  *out = &t->linscratch;
  if (r) return ade__res_lin(r, NULL, t, c, V, &t->linscratch);
  int st = ade__view_load_lean(t, c);
  if (!st) st = ade__lin_build(t, V, &t->linscratch);
  *out = &t->linscratch;
  return st;
}
