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

/* tan_record for a record of the resident form with K operand slots
 * (ref: their ids, 0 = constant): lane by lane the same additions.
 * @return the fma. */
ADE__INLINE uint64_t tan_run(size_t p, int K, const uint32_t *ref, const double *d, const double *T,
                             double *restrict Tr) {
  int j0 = 0;
  while (j0 < K && !ref[j0]) j0++;
  if (j0 == K) {
    for (size_t l = 0; l < p; l++) Tr[l] = 0.0;
    return 0;
  }
  const double *restrict A0 = T + (size_t)ref[j0] * p, c0 = d[j0];
#define HVP_T1(L) Tr[L] = 0.0 + c0 * A0[L]
  ADE__LANES(HVP_T1);
#undef HVP_T1
  uint64_t fma = p;
  for (int j = j0 + 1; j < K; j++) {
    if (!ref[j]) continue;
    const double *restrict Ta = T + (size_t)ref[j] * p, dj = d[j];
#define HVP_TK(L) Tr[L] += dj * Ta[L]
    ADE__LANES(HVP_TK);
#undef HVP_TK
    fma += p;
  }
  return fma;
}

/* Whether opcode N is an independent, passive (flags F). */
#define HVP_INDEP(N) (ADE_OP_##N == ADE_OP_INDEP)
#define HVP_PASSIVE(F) (((F) & ADE__PASSIVE) != 0)

/* forward over the resident form, one dispatch per run of one opcode (the
 * rule inlined for K known): the streaming sweep's operations per record,
 * on the decoded arrays. */
static void res_forward(ade__hvp *f, const ade__res *r, const double *S) {
  const size_t p = f->p;
  const double *V = f->V ? f->V : r->val, *cs = r->cst, *T = f->T;
  const uint32_t *ref = r->ref;
  uint64_t rid = 1, fma = 0;
  size_t ix = 0;
  for (size_t u = 0; u < r->nrun; u++) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define HVP_FWD(N, s, K, F)                                                    \
  case ADE_OP_##N:                                                             \
    for (uint32_t e = 0; e < len; e++, rid++, ref += (K)) {                    \
      double a[ADE__MAX_ARITY + 1], d[ADE__MAX_ARITY + 1], h[6];               \
      double *Tr = f->T + rid * p;                                             \
      if (HVP_INDEP(N)) {                                                      \
        memcpy(Tr, S + ix++ * p, p * sizeof *Tr);                              \
        continue;                                                              \
      }                                                                        \
      for (int j = 0; j < (K); j++) a[j] = ref[j] ? V[ref[j]] : *cs++;         \
      if (HVP_PASSIVE(F)) {                                                    \
        for (size_t l = 0; l < p; l++) Tr[l] = 0.0;                            \
        continue;                                                              \
      }                                                                        \
      ade__der_##N(a, V[rid], d, h);                                           \
      fma += tan_run(p, (K), ref, d, T, Tr);                                   \
    }                                                                          \
    break;
      ADE_OPS(HVP_FWD)
#undef HVP_FWD
    }
  }
  f->fma += fma;
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

/* reverse_record for a record of the resident form with K operand slots
 * (ref: their ids), K known where it is inlined: per direction the same
 * additions in the same order, lanes in blocks for the vectoriser.
 * @return the fma. */
ADE__INLINE uint64_t rev_run(ade__hvp *f, int K, const uint32_t *ref, const double *d, const double *h,
                             uint64_t rid) {
  const size_t p = f->p;
  const double ar = f->A[rid], *restrict Br = f->B + rid * p;
  uint64_t fma = 0;
  int curv = 0;
  /* Unrolled for K known, the rule's constant partials fold (no curvature
   * test left for a linear operation). */
#pragma GCC unroll 6
  for (int j = 0; j < 6; j++) curv |= h[j] != 0;
  curv &= ar != 0;
#pragma GCC unroll 3
  for (int j = 0; j < K; j++) {
    if (!ref[j]) continue;
    double *restrict Bu = f->B + (size_t)ref[j] * p, hc[ADE__MAX_ARITY];
    const double dj = d[j], *restrict T0, *restrict T1, *restrict T2;
    const double *Tc[ADE__MAX_ARITY];
    int nc = 0;
    f->A[ref[j]] += dj * ar;
    fma += 1 + p;
#pragma GCC unroll 3
    for (int l = 0; l < K && curv; l++) {
      double hl = ar * h[j >= l ? j * (j + 1) / 2 + l : l * (l + 1) / 2 + j];
      if (!ref[l] || hl == 0) continue;
      hc[nc] = hl;
      Tc[nc++] = f->T + (size_t)ref[l] * p;
      fma += 1 + p;
    }
    switch (nc) { /* T and B are disjoint; B_u is not B_r (u < r) */
    case 0:
#define HVP_B0(L) Bu[L] += dj * Br[L]
      ADE__LANES(HVP_B0);
#undef HVP_B0
      break;
    case 1:
      T0 = Tc[0];
#define HVP_B1(L) Bu[L] = (Bu[L] + dj * Br[L]) + hc[0] * T0[L]
      ADE__LANES(HVP_B1);
#undef HVP_B1
      break;
    case 2:
      T0 = Tc[0], T1 = Tc[1];
#define HVP_B2(L) Bu[L] = ((Bu[L] + dj * Br[L]) + hc[0] * T0[L]) + hc[1] * T1[L]
      ADE__LANES(HVP_B2);
#undef HVP_B2
      break;
    default:
      T0 = Tc[0], T1 = Tc[1], T2 = Tc[2];
#define HVP_B3(L) Bu[L] = (((Bu[L] + dj * Br[L]) + hc[0] * T0[L]) + hc[1] * T1[L]) + hc[2] * T2[L]
      ADE__LANES(HVP_B3);
#undef HVP_B3
      break;
    }
  }
  return fma;
}

/* reverse over the resident form, runs backward, one dispatch per run:
 * each record's constants are the ones before those of the records after
 * it. */
static void res_reverse(ade__hvp *f, const ade__res *r, double *HS, double *g) {
  const size_t p = f->p;
  const double *V = f->V ? f->V : r->val, *cend = r->cst + r->ncst, *w = f->w;
  const uint32_t *ref = r->ref + r->nref;
  uint64_t rid = r->n + 1, fma = 0;
  size_t ix = f->t->meta.nindep, jd = f->t->meta.ndep;
  for (size_t u = r->nrun; u-- > 0;) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define HVP_REV(N, s, K, F)                                                    \
  case ADE_OP_##N:                                                             \
    for (uint32_t e = 0; e < len; e++) {                                       \
      double a[ADE__MAX_ARITY + 1], d[ADE__MAX_ARITY + 1], h[6] = {0};         \
      rid--, ref -= (K);                                                       \
      for (int j = 0; j < (K); j++) cend -= !ref[j];                           \
      if (ADE_OP_##N == ADE_OP_DEP) f->A[rid] += w ? w[--jd] : 1.0;            \
      if (HVP_INDEP(N)) {                                                      \
        ix--;                                                                  \
        memcpy(HS + ix * p, f->B + rid * p, p * sizeof *HS);                   \
        if (g) g[ix] = f->A[rid];                                              \
        continue;                                                              \
      }                                                                        \
      if (HVP_PASSIVE(F)) continue;                                            \
      const double *cs = cend;                                                 \
      for (int j = 0; j < (K); j++) a[j] = ref[j] ? V[ref[j]] : *cs++;         \
      ade__der_##N(a, V[rid], d, h);                                           \
      fma += rev_run(f, (K), ref, d, h, rid);                                  \
    }                                                                          \
    break;
      ADE_OPS(HVP_REV)
#undef HVP_REV
    }
  }
  f->fma += fma;
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
