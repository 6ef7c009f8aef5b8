/* hvp.c: p Hessian-vector products at once by vector forward-over-reverse: one tangent sweep with p directions, one reverse sweep with the adjoint and p adjoint tangents. */
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

/* T[id p + q] = the tangent of id in direction q; independent j's from
 * S[j p + q]. */
static int forward(ade__hvp *f, const double *S) {
  ade_tape *t = f->t;
  const size_t p = f->p;
  size_t ix = 0;
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
      const uint64_t *arg = ade__view_arg(v, i);
      memset(Tr, 0, p * sizeof *Tr);
      for (int j = 0; j < k; j++) {
        if (!arg[j]) continue;
        const double dj = d[j], *Ta = f->T + arg[j] * p;
        for (size_t q = 0; q < p; q++) Tr[q] += dj * Ta[q];
        f->fma += p;
      }
    }
  }
  return ADE_OK;
}

/* Record r = phi(u): A_u += d_u A_r; B_u += d_u B_r + A_r sum_l h_ul T_l
 * (the second-order adjoint of the tangent-linear model). */
static void reverse_record(ade__hvp *f, int k, const uint64_t *arg, const double *d, const double *h,
                           uint64_t rid) {
  const size_t p = f->p;
  const double ar = f->A[rid], *Br = f->B + rid * p;
  int curv = 0;
  for (int j = 0; j < 6; j++) curv |= h[j] != 0;
  curv &= ar != 0;
  for (int j = 0; j < k; j++) {
    uint64_t id = arg[j];
    if (!id) continue;
    double *Bu = f->B + id * p, dj = d[j];
    f->A[id] += dj * ar;
    for (size_t q = 0; q < p; q++) Bu[q] += dj * Br[q];
    f->fma += 1 + p;
    for (int l = 0; l < k && curv; l++) {
      double hl = ar * h[j >= l ? j * (j + 1) / 2 + l : l * (l + 1) / 2 + j];
      if (!arg[l] || hl == 0) continue;
      const double *Tl = f->T + arg[l] * p;
      for (size_t q = 0; q < p; q++) Bu[q] += hl * Tl[q];
      f->fma += 1 + p;
    }
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

/* forward() over the resident form r: the same operations in the same
 * order (operands from V or, at the recorded point, r's values; constants
 * from r's list), without decoding a chunk. */
static void forward_res(ade__hvp *f, const ade__res *r, const double *S) {
  const size_t p = f->p;
  const double *V = f->V ? f->V : r->val, *cs = r->cst;
  const uint32_t *ref = r->ref;
  size_t ix = 0;
  for (uint64_t rid = 1; rid <= r->n; rid++) {
    const unsigned op = r->op[rid - 1];
    const int k = ade__optab[op].arity;
    double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY], h[6], *Tr = f->T + rid * p;
    for (int j = 0; j < k; j++) a[j] = ref[j] ? V[ref[j]] : *cs++;
    if (op == ADE_OP_INDEP) {
      memcpy(Tr, S + ix++ * p, p * sizeof *Tr);
      continue;
    }
    memset(Tr, 0, p * sizeof *Tr);
    if (k && !(ade__optab[op].flags & ADE__PASSIVE)) {
      ade__op_partials(op, a, V[rid], d, h);
      for (int j = 0; j < k; j++) {
        if (!ref[j]) continue;
        const double dj = d[j], *Ta = f->T + (size_t)ref[j] * p;
        for (size_t q = 0; q < p; q++) Tr[q] += dj * Ta[q];
        f->fma += p;
      }
    }
    ref += k;
  }
}

/* reverse() over the resident form r: records backward, each one's
 * constants found by counting its constant operands back. */
static void reverse_res(ade__hvp *f, const ade__res *r, double *HS, double *g) {
  const ade__meta *m = &f->t->meta;
  const size_t p = f->p;
  const double *V = f->V ? f->V : r->val, *cs = r->cst + r->ncst;
  const uint32_t *ref = r->ref + r->nref;
  size_t nv = r->n + 1, ix = m->nindep, jd = m->ndep;
  memset(f->A, 0, nv * sizeof *f->A);
  memset(f->B, 0, nv * p * sizeof *f->B);
  for (uint64_t rid = r->n; rid > 0; rid--) {
    const unsigned op = r->op[rid - 1];
    const int k = ade__optab[op].arity;
    double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY], h[6] = {0};
    uint64_t arg[ADE__MAX_ARITY];
    ref -= k;
    for (int j = 0; j < k; j++) cs -= !ref[j];
    const double *c = cs;
    for (int j = 0; j < k; j++) arg[j] = ref[j], a[j] = ref[j] ? V[ref[j]] : *c++;
    if (op == ADE_OP_DEP) f->A[rid] += f->w ? f->w[--jd] : 1.0;
    if (op == ADE_OP_INDEP) {
      ix--;
      memcpy(HS + ix * p, f->B + rid * p, p * sizeof *HS);
      if (g) g[ix] = f->A[rid];
      continue;
    }
    if (k == 0 || (ade__optab[op].flags & ADE__PASSIVE)) continue;
    ade__op_partials(op, a, V[rid], d, h);
    reverse_record(f, k, arg, d, h, rid);
  }
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
  const ade__res *r = ade__res_get(f->t);
  if (r) { /* decoded once (eval/resident.c): no chunk decoding per product */
    forward_res(f, r, S);
    reverse_res(f, r, HS, g);
    return ADE_OK;
  }
  int st = forward(f, S);
  return st ? st : reverse(f, HS, g);
}
