/* linear.c: a linearized chunk: each record's active operands and partials, from a decoded view. */
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

size_t ade__lin_slots(const ade__view *v) {
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
  t->eval_free[ADE__EV_LIN] = ade__lin_cache_free;
  const ade__view *v = &t->view;
  size_t slots = ade__lin_slots(v);
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
