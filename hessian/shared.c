/* shared.c: what the Hessian methods share: method names, local first and second partials (values and structure), triplets to CSR, the log of Hessian entries, argument checks, values at a new point. */
#include <stdlib.h>

#include "hessian_internal.h"

static const char *const method_names[ADE_HESS_NMETHODS] = {
    "edge-push", "ve-reverse", "ve-markowitz", "for-over-rev", "edge-push-preacc", "star", "auto"};

const char *ade_hess_method_name(int method) {
  return method >= 0 && method < ADE_HESS_NMETHODS ? method_names[method] : NULL;
}

int ade_hess_method_parse(const char *name) {
  for (int i = 0; name && i < ADE_HESS_NMETHODS; i++)
    if (strcmp(name, method_names[i]) == 0) return i;
  return -1;
}

void ade_hess_options_init(ade_hess_options *o) {
  if (o) memset(o, 0, sizeof *o);
}

void ade__hess_local(const ade__view *v, uint32_t i, const double *V, ade__local *L) {
  unsigned op = v->op[i];
  const int k = ade__optab[op].arity;
  double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY], h[6], r = V ? V[v->first + i + 1] : v->val[i];
  L->np = 0;
  if (k == 0 || (ade__optab[op].flags & ADE__PASSIVE)) return;
  ade__view_operands(v, V, i, k, a);
  ade__op_partials(op, a, r, d, h);
  ade__hess_merge(k, ade__view_arg(v, i), d, h, L);
}

/* Which second partials an operation can have nonzero anywhere: a bit per
 * packed entry h[a*(a+1)/2 + b]. Every active operation may have all
 * (the safe default a new row gets) except these, whose second partials are
 * zero at every point by their rule (ops_rules.h); check_hesscolor tests
 * each mask against the rules at random points. */
static unsigned struct_h(unsigned op) {
  switch (op) {
  case ADE_OP_DEP: case ADE_OP_ADD: case ADE_OP_SUB: case ADE_OP_NEG: case ADE_OP_FABS:
  case ADE_OP_FMIN: case ADE_OP_FMAX: case ADE_OP_COPYSIGN: return 0;
  case ADE_OP_MUL: case ADE_OP_FMA: return 1u << 1; /* h_ab */
  case ADE_OP_DIV: return 1u << 1 | 1u << 2;        /* h_ab, h_bb: a/b is linear in a */
  default: return 0x3fu;
  }
}

unsigned ade__hess_struct_mask(unsigned op) {
  return op < ADE_OP_COUNT && !(ade__optab[op].flags & ADE__PASSIVE) ? struct_h(op) : 0;
}

void ade__hess_local_struct(const ade__view *v, uint32_t i, ade__local *L) {
  unsigned op = v->op[i], mask = ade__hess_struct_mask(op);
  const int k = ade__optab[op].arity;
  int pos[ADE__MAX_ARITY];
  L->np = 0;
  if (k == 0 || (ade__optab[op].flags & ADE__PASSIVE)) return;
  memset(L->h, 0, sizeof L->h);
  const uint64_t *arg = ade__view_arg(v, i);
  for (int j = 0; j < k; j++) { /* first partials: 1 (positive sums never cancel) */
    int q = 0;
    pos[j] = -1;
    if (!arg[j]) continue;
    while (q < L->np && L->id[q] != arg[j]) q++;
    if (q == L->np) L->id[L->np++] = arg[j];
    L->d[q] = 1;
    pos[j] = q;
  }
  for (int j = 0; j < k; j++)
    for (int l = 0; l <= j; l++)
      if (pos[j] >= 0 && pos[l] >= 0 && (mask >> (j * (j + 1) / 2 + l) & 1u)) {
        int p = ADE__MAX(pos[j], pos[l]), q = ADE__MIN(pos[j], pos[l]);
        L->h[p * (p + 1) / 2 + q] = 1;
      }
}

static int trip_cmp(const void *pa, const void *pb) {
  const ade__trip *a = pa, *b = pb;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return a->col < b->col ? -1 : a->col > b->col;
}

/* Sort, then sum duplicates (callers may emit one entry several times). */
int ade__hess_from_triplets(size_t n, ade__trip *T, size_t nt, ade_sparse **H) {
  qsort(T, nt, sizeof *T, trip_cmp);
  size_t nz = 0;
  for (size_t k = 0; k < nt; k++) {
    if (nz && T[nz - 1].row == T[k].row && T[nz - 1].col == T[k].col) T[nz - 1].val += T[k].val;
    else T[nz++] = T[k];
  }
  int st = ade_sparse_create(H, n, n, nz, 1);
  if (st) return st;
  ade_sparse *A = *H;
  for (size_t k = 0; k < nz; k++) {
    A->rowptr[T[k].row + 1]++;
    A->col[k] = T[k].col;
    A->val[k] = T[k].val;
  }
  for (size_t i = 0; i < n; i++) A->rowptr[i + 1] += A->rowptr[i];
  return ADE_OK;
}

void ade__hlog_free(ade__hlog *g) {
  if (!g) return;
  ade__free(g->e);
  memset(g, 0, sizeof *g);
}

static int ent_cmp(const void *pa, const void *pb) {
  const uint64_t *a = pa, *b = pb;
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

void ade__hlog_sort(ade__hlog *g) {
  if (g && g->n) qsort(g->e, g->n, 3 * sizeof *g->e, ent_cmp);
}

int ade__hess_check(ade_tape *t, int method, const ade_hess_options *o, ade_sparse **H) {
  int st = ade__tape_usable(t);
  if (!st) st = ade__tape_scalar(t, "ade_hessian");
  if (st) return st;
  if (!H) return ade__fail(ADE_EINVAL, "ade_hessian: H is NULL");
  if (!ade_hess_method_name(method)) return ade__fail(ADE_EINVAL, "ade_hessian: unknown method %d", method);
  if (t->meta.ndep == 0) return ade__fail(ADE_EINVAL, "ade_hessian: the tape has no dependents");
  if (t->meta.ndep > 1 && !(o && o->w))
    return ade__fail(ADE_EINVAL, "ade_hessian: the tape has %zu dependents; give m weights w (the "
                     "Hessian is that of sum w_i y_i)", t->meta.ndep);
  if (t->meta.records >= SIZE_MAX / 16)
    return ade__fail(ADE_ETOOBIG, "tape too large for this build");
  return ADE_OK;
}

/* f = sum w_i y_i from the dependents' values: V's at x, else the
 * recorded ones (the resident form's, or the chunks' views; decoding them
 * only for this would cost as much as a sweep). */
int ade__hess_value(ade_tape *t, const double *V, const double *w, double *f) {
  const ade__meta *m = &t->meta;
  const ade__res *r = V ? NULL : ade__res_find(t);
  *f = 0;
  size_t j = 0;
  if (V || r) {
    for (; j < m->ndep; j++) *f += (w ? w[j] : 1.0) * (V ? V : r->val)[m->dep[j]];
    return ADE_OK;
  }
  for (size_t c = 0; c < m->nchunks && j < m->ndep; c++) {
    const ade__chunkent *e = &m->chunks[c];
    if (m->dep[j] > e->first + e->records) continue;
    int st = ade__view_load(t, c);
    if (st) return st;
    for (; j < m->ndep && m->dep[j] <= e->first + e->records; j++) {
      uint64_t id = m->dep[j];
      *f += (w ? w[j] : 1.0) * (V ? V[id] : t->view.val[id - e->first - 1]);
    }
  }
  return ADE_OK;
}

int ade__hess_point_begin(ade_tape *t, const double *x, ade__hpoint *hp) {
  int st = ADE_OK;
  memset(hp, 0, sizeof *hp);
  if (ade__point_wanted(t, x)) { /* no value array: views at x (point.c) */
    st = ade__point_begin(t, x);
    hp->point = !st;
    if (hp->point && t->pt.flips) hp->warn = ADE_WBRANCH;
  } else if (x) {
    hp->V = ade__alloc(ade__mul_size((size_t)t->meta.records + 1, sizeof *hp->V));
    st = hp->V ? ade__replay_values(t, x, hp->V) : ade__fail(ADE_ENOMEM, "out of memory for the values at x");
    if (st == ADE_WBRANCH) {
      hp->warn = st;
      st = ADE_OK;
    }
  }
  return st;
}

void ade__hess_point_end(ade_tape *t, ade__hpoint *hp) {
  ade__free(hp->V);
  hp->V = NULL;
  if (hp->point) ade__point_end(t);
  hp->point = 0;
}

int ade__hess_warn(int st, int warn) {
  if (!st && warn) ade__fail(warn, "recorded comparisons differ at this point; the Hessian is that "
                             "of the recorded operation sequence");
  return st ? st : warn;
}
