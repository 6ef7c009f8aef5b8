/* hvp.c: p Hessian-vector products at once by vector forward-over-reverse: one tangent sweep with p directions, one reverse sweep with the adjoint and p adjoint tangents, over the resident form of the tape or its chunks. */
#include "hessian_internal.h"

/* The partials of record i at the values V (NULL: the view's own). */
static int partials(const ade__view *v, const double *V, uint32_t i, double *d, double *h) {
  unsigned op = v->op[i];
  int k = ade__optab[op].arity;
  double a[ADE__MAX_ARITY];
  if (k == 0 || (ade__optab[op].flags & ADE__PASSIVE)) return 0;
  ade__view_operands(v, V, i, k, a);
  ade__op_partials(op, a, V ? V[v->first + i + 1] : v->val[i], d, h);
  return k;
}

/* Tr = sum over the k active operands of d_j T_j, from 0 in operand order
 * (both sweeps share it: the same additions, the same bits; 0.0 + the
 * first product, as 0.0 then += it). */
static inline void tan_record(ade__hvp *f, int k, const uint64_t *arg, const double *d, double *restrict Tr) {
  const size_t p = f->p;
  int j = 0;
  while (j < k && !arg[j]) j++;
  if (j == k) {
    for (size_t q = 0; q < p; q++) Tr[q] = 0.0;
    return;
  }
  const double d0 = d[j], *restrict T0 = f->T + arg[j] * p;
  for (size_t q = 0; q < p; q++) Tr[q] = 0.0 + d0 * T0[q];
  f->fma += p;
  for (j++; j < k; j++) {
    if (!arg[j]) continue;
    const double dj = d[j], *restrict Ta = f->T + arg[j] * p;
    for (size_t q = 0; q < p; q++) Tr[q] += dj * Ta[q];
    f->fma += p;
  }
}

/* Record i of the resident form r: its operands' values at V into a (the
 * constants from *cs on), their ids into arg; @return its arity. */
static inline int res_operands(const ade__res *r, size_t i, const uint32_t *ref, const double **cs,
                               const double *V, double *a, uint64_t *arg) {
  const int k = ade__optab[r->op[i]].arity;
  for (int j = 0; j < k; j++) {
    arg[j] = ref[j];
    a[j] = ref[j] ? V[ref[j]] : *(*cs)++;
  }
  return k;
}

/* forward over the resident form: the streaming sweep's operations on the
 * decoded arrays (no chunk decoded). */
static void res_forward(ade__hvp *f, const ade__res *r, const double *S) {
  const size_t p = f->p;
  const double *V = f->V ? f->V : r->val, *cs = r->cst;
  const uint32_t *ref = r->ref;
  size_t ix = 0;
  for (size_t i = 0; i < r->n; i++) {
    const unsigned op = r->op[i];
    double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY], h[6], *Tr = f->T + (i + 1) * p;
    uint64_t arg[ADE__MAX_ARITY];
    const int k = res_operands(r, i, ref, &cs, V, a, arg);
    ref += k;
    if (op == ADE_OP_INDEP) {
      memcpy(Tr, S + ix++ * p, p * sizeof *Tr);
      continue;
    }
    const int ka = k && !(ade__optab[op].flags & ADE__PASSIVE) ? k : 0;
    if (ka) ade__op_partials(op, a, V[i + 1], d, h);
    tan_record(f, ka, arg, d, Tr);
  }
}

/* T[id p + q] = the tangent of id in direction q; independent j's from
 * S[j p + q]. */
static int forward(ade__hvp *f, const double *S) {
  ade_tape *t = f->t;
  const size_t p = f->p;
  size_t ix = 0;
  if (f->res) {
    res_forward(f, f->res, S);
    return ADE_OK;
  }
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = 0; i < v->n; i++) {
      double d[ADE__MAX_ARITY], h[6], *Tr = f->T + (v->first + i + 1) * p;
      if (v->op[i] == ADE_OP_INDEP) {
        memcpy(Tr, S + ix++ * p, p * sizeof *Tr);
        continue;
      }
      int k = partials(v, f->V, i, d, h);
      tan_record(f, k, ade__view_arg(v, i), d, Tr);
    }
  }
  return ADE_OK;
}

/* Record r = phi(u): A_u += d_u A_r; B_u += d_u B_r + A_r sum_l h_ul T_l
 * (the second-order adjoint of the tangent-linear model), in one pass over
 * B_u per operand u: per direction the same additions in the same order
 * as one pass per term. */
static void reverse_record(ade__hvp *f, int k, const uint64_t *arg, const double *d, const double *h,
                           uint64_t rid) {
  const size_t p = f->p;
  const double ar = f->A[rid], *restrict Br = f->B + rid * p;
  int curv = 0;
  for (int j = 0; j < 6; j++) curv |= h[j] != 0;
  curv &= ar != 0;
  for (int j = 0; j < k; j++) {
    uint64_t id = arg[j];
    if (!id) continue;
    double *restrict Bu = f->B + id * p, dj = d[j], hc[ADE__MAX_ARITY];
    const double *Tc[ADE__MAX_ARITY];
    int nc = 0;
    f->A[id] += dj * ar;
    f->fma += 1 + p;
    for (int l = 0; l < k && curv; l++) {
      double hl = ar * h[j >= l ? j * (j + 1) / 2 + l : l * (l + 1) / 2 + j];
      if (!arg[l] || hl == 0) continue;
      hc[nc] = hl;
      Tc[nc++] = f->T + arg[l] * p;
      f->fma += 1 + p;
    }
    switch (nc) { /* T and B are disjoint; B_u is not B_r (u < r) */
    case 0:
      for (size_t q = 0; q < p; q++) Bu[q] += dj * Br[q];
      break;
    case 1:
      for (size_t q = 0; q < p; q++) Bu[q] = (Bu[q] + dj * Br[q]) + hc[0] * Tc[0][q];
      break;
    case 2:
      for (size_t q = 0; q < p; q++) Bu[q] = ((Bu[q] + dj * Br[q]) + hc[0] * Tc[0][q]) + hc[1] * Tc[1][q];
      break;
    default:
      for (size_t q = 0; q < p; q++)
        Bu[q] = (((Bu[q] + dj * Br[q]) + hc[0] * Tc[0][q]) + hc[1] * Tc[1][q]) + hc[2] * Tc[2][q];
      break;
    }
  }
}

/* reverse over the resident form, records backward: each record's
 * constants are the ones before those of the records after it. */
static void res_reverse(ade__hvp *f, const ade__res *r, double *HS, double *g) {
  const size_t p = f->p;
  const double *V = f->V ? f->V : r->val, *cend = r->cst + r->ncst;
  const uint32_t *ref = r->ref + r->nref;
  size_t ix = f->t->meta.nindep, jd = f->t->meta.ndep;
  for (size_t i = r->n; i-- > 0;) {
    const unsigned op = r->op[i];
    const uint64_t rid = i + 1;
    const int k = ade__optab[op].arity;
    double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY], h[6] = {0};
    uint64_t arg[ADE__MAX_ARITY];
    ref -= k;
    for (int j = 0; j < k; j++) cend -= !ref[j];
    const double *cs = cend;
    res_operands(r, i, ref, &cs, V, a, arg);
    if (op == ADE_OP_DEP) f->A[rid] += f->w ? f->w[--jd] : 1.0;
    if (op == ADE_OP_INDEP) {
      ix--;
      memcpy(HS + ix * p, f->B + rid * p, p * sizeof *HS);
      if (g) g[ix] = f->A[rid];
      continue;
    }
    if (!k || (ade__optab[op].flags & ADE__PASSIVE)) continue;
    ade__op_partials(op, a, V[rid], d, h);
    reverse_record(f, k, arg, d, h, rid);
  }
}

/* HS[j p + q] = (H S)(j, q) for independent j; g (may be NULL) = the gradient. */
static int reverse(ade__hvp *f, double *HS, double *g) {
  ade_tape *t = f->t;
  const ade__meta *m = &t->meta;
  const size_t p = f->p;
  size_t nv = (size_t)m->records + 1, ix = m->nindep, jd = m->ndep;
  memset(f->A, 0, nv * sizeof *f->A);
  memset(f->B, 0, nv * p * sizeof *f->B);
  if (f->res) {
    res_reverse(f, f->res, HS, g);
    return ADE_OK;
  }
  for (size_t c = m->nchunks; c-- > 0;) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = v->n; i-- > 0;) {
      uint64_t rid = v->first + i + 1;
      double d[ADE__MAX_ARITY], h[6] = {0};
      if (v->op[i] == ADE_OP_DEP) f->A[rid] += f->w ? f->w[--jd] : 1.0;
      if (v->op[i] == ADE_OP_INDEP) {
        ix--;
        memcpy(HS + ix * p, f->B + rid * p, p * sizeof *HS);
        if (g) g[ix] = f->A[rid];
        continue;
      }
      int k = partials(v, f->V, i, d, h);
      if (k) reverse_record(f, k, ade__view_arg(v, i), d, h, rid);
    }
  }
  return ADE_OK;
}

size_t ade__hvp_width(const ade_tape *t, size_t want) {
  size_t nv = (size_t)t->meta.records + 1, per = ADE__MAX(t->memlimit, ADE__MEM_FLOOR) / sizeof(double) / nv;
  size_t p = per > 1 ? (per - 1) / 2 : 1; /* A, then T and B per direction */
  return ADE__MAX((size_t)1, ADE__MIN(p, want));
}

size_t ade__hvp_doubles(const ade_tape *t, size_t p) {
  return ade__mul_size((size_t)t->meta.records + 1, 2 * p + 1);
}

int ade__hvp_begin(ade__hvp *f, ade_tape *t, size_t p, double *buf) {
  size_t nv = (size_t)t->meta.records + 1;
  memset(f, 0, sizeof *f);
  f->t = t;
  f->p = p;
  int st = ade__budget(t->memlimit, ade__mul_size(nv, (2 * p + 1) * sizeof(double)),
                       "Hessian-vector products in %zu directions over %zu variables", p, nv - 1);
  if (st) return st;
  f->own = !buf;
  f->A = buf ? buf : ade__alloc(ade__mul_size(nv, (2 * p + 1) * sizeof(double)));
  if (!f->A) return ade__fail(ADE_ENOMEM, "out of memory for %zu Hessian-vector products", p);
  f->T = f->A + nv;
  f->B = f->T + nv * p;
  return ADE_OK;
}

void ade__hvp_end(ade__hvp *f) {
  if (f->own) ade__free(f->A);
  f->A = f->T = f->B = NULL;
}

int ade__hvp_run(ade__hvp *f, const double *V, const double *w, const double *S, double *HS, double *g) {
  f->V = V;
  f->w = w;
  /* The resident form when it fits the memory limit (not at the tape's
   * bounded-memory point, whose values live in the chunks' views). */
  f->res = f->t->pt.active ? NULL : ade__res_get(f->t);
  int st = forward(f, S);
  return st ? st : reverse(f, HS, g);
}
