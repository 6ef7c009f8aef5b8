/* linear.c: linearized chunks (each record's active operands and partials) and their cache. */
#include "eval_internal.h"

void ade__lin_free(ade__lin *L) {
  if (!L) return;
  ade__free(L->op);
  ade__free(L->val);
  ade__free(L->pos);
  ade__free(L->id);
  ade__free(L->d);
  memset(L, 0, sizeof *L);
}

int ade__lin_reserve(ade__lin *L, size_t n, size_t nops) {
  if (n > L->cap) {
    uint8_t *op = ade__realloc(L->op, n);
    if (op) L->op = op;
    double *val = ade__realloc(L->val, ade__mul_size(n, sizeof *val));
    if (val) L->val = val;
    uint32_t *pos = ade__realloc(L->pos, ade__mul_size(n + 1, sizeof *pos));
    if (pos) L->pos = pos;
    if (!op || !val || !pos) return ADE_ENOMEM;
    L->cap = n;
  }
  if (nops > L->opcap) {
    uint64_t *id = ade__realloc(L->id, ade__mul_size(nops, sizeof *id));
    if (id) L->id = id;
    double *d = ade__realloc(L->d, ade__mul_size(nops, sizeof *d));
    if (d) L->d = d;
    if (!id || !d) return ADE_ENOMEM;
    L->opcap = nops;
  }
  return ADE_OK;
}

/* The operand slots a linearization of v needs: ADE__MAX_ARITY per record,
 * and n per output of an elemental call. */
static size_t lin_slots(const ade__view *v) {
  size_t k = ADE__MAX_ARITY * (size_t)v->n;
  for (size_t b = 0; b < v->nblk; b++) k += (size_t)v->blk[b].n * v->blk[b].m;
  return k;
}

/* Record i, output k of an elemental call, at slot *k: its call's active
 * inputs with row k of the call's Jacobian J (formed at output 0). */
static int lin_elemental(ade_tape *t, const ade__view *v, uint32_t i, const double *V, ade__lin *L,
                         uint32_t *k, const double **J) {
  const uint64_t *arg = ade__view_arg(v, i);
  const ade__eblk *b = &v->blk[arg[0]];
  if (arg[1] == 0) {
    int st = ade__elem_jacobian(t, v, (uint32_t)arg[0], V, J);
    if (st) return st;
  }
  const double *row = *J + arg[1] * b->n;
  for (uint32_t j = 0; j < b->n; j++)
    if (v->xarg[b->xoff + j]) {
      L->id[*k] = v->xarg[b->xoff + j];
      L->d[(*k)++] = row[j];
    }
  return ADE_OK;
}

/* Linearize the loaded view at the values V (NULL: the recorded values). */
int ade__lin_build(ade_tape *t, const double *V, ade__lin *L) {
  t->eval_free = ade__eval_free;
  const ade__view *v = &t->view;
  size_t slots = lin_slots(v);
  int st = v->nblk ? ade__elem_check(t, v) : ADE_OK;
  if (!st && v->nblk)
    st = ade__budget(t->memlimit, ade__mul_size(slots, 16), "linearizing chunk %zu with elemental calls (%zu "
                     "operands)", t->view_chunk, slots);
  if (st) return st;
  if (ade__lin_reserve(L, v->n, slots))
    return ade__fail(ADE_ENOMEM, "out of memory linearizing chunk %zu", t->view_chunk);
  L->first = v->first;
  L->n = v->n;
  uint32_t k = 0;
  const double *J = NULL;
  for (uint32_t i = 0; i < v->n; i++) {
    unsigned op = v->op[i];
    L->op[i] = (uint8_t)op;
    L->val[i] = V ? V[v->first + i + 1] : v->val[i];
    L->pos[i] = k;
    if (op == ADE_OP_VECTOR_ELEMENTAL) {
      if ((st = lin_elemental(t, v, i, V, L, &k, &J))) return st;
      continue;
    }
    const uint64_t *arg = ade__view_arg(v, i);
    int arity = ade__optab[op].arity;
    double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY];
    ade__view_operands(v, V, i, arity, a);
    if (arity && !(ade__optab[op].flags & ADE__PASSIVE)) {
      ade__op_partials(op, a, L->val[i], d, NULL);
      for (int j = 0; j < arity; j++)
        if (arg[j]) {
          L->id[k] = arg[j];
          L->d[k++] = d[j];
        }
    }
  }
  L->pos[v->n] = k;
  return ADE_OK;
}

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
    t->eval_free = ade__eval_free;
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
  size_t est = (size_t)t->view.n * 13 + lin_slots(&t->view) * 16;
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
  if (r) t->eval_free = ade__eval_free; /* frees linscratch */
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

void ade__eval_free(ade_tape *t) {
  ade__lin_cache_free(t);
  ade__res_drop(t);
  ade__point_free(t);
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
