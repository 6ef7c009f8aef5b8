/* sweep.c: first-order sweeps over a tape: replay, tangent and adjoint (scalar and vector), dense Jacobians. */
#include <stdio.h>

#include "record_internal.h"

/* Per-sweep state: the point's values V (NULL: the recorded point) and
 * branch flips seen. */
typedef struct sweep {
  ade_tape *t;
  const double *x;
  double *V;
  uint64_t flips, first_flip;
} sweep;

/* Operand values and result of record i of the loaded view. */
static inline double operands(const sweep *s, uint32_t i, double *a) {
  const ade__view *v = &s->t->view;
  const int k = ade__optab[v->op[i]].arity;
  if (!s->V) {
    for (int j = 0; j < k; j++) a[j] = v->argv[3 * i + j];
    return v->val[i];
  }
  for (int j = 0; j < k; j++) {
    uint64_t id = v->arg[3 * i + j];
    a[j] = id ? s->V[id] : v->argv[3 * i + j];
  }
  return s->V[v->first + i + 1];
}

/* Zero-order step at a new point: V[rid] = op(a), flagging branch flips. */
static inline void replay_record(sweep *s, uint32_t i, size_t *ix) {
  const ade__view *v = &s->t->view;
  unsigned op = v->op[i];
  uint64_t rid = v->first + i + 1;
  double a[ADE__MAX_ARITY], r;
  for (int j = 0; j < ade__optab[op].arity; j++) {
    uint64_t id = v->arg[3 * i + j];
    a[j] = id ? s->V[id] : v->argv[3 * i + j];
  }
  if (op == ADE_OP_INDEP) {
    r = s->x[(*ix)++];
  } else {
    r = ade__op_value(op, a);
    if (op >= ADE_OP_LT && r != v->val[i] && !s->flips++) s->first_flip = rid - 1;
  }
  s->V[rid] = r;
}

static int finish(const sweep *s, int st) {
  if (st || !s->flips) return st;
  return ade__fail(ADE_WBRANCH, "%llu recorded comparison(s) differ at this point, first at op %llu",
                   (unsigned long long)s->flips, (unsigned long long)s->first_flip);
}

/* Forward over all chunks: values at x (if given) and p tangents. */
static int forward(sweep *s, size_t p, const double *Xd, double *y, double *Yd, double *T) {
  ade_tape *t = s->t;
  size_t ix = 0, iy = 0;
  for (size_t l = 0; l < p; l++) T[l] = 0.0;
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = 0; i < v->n; i++) {
      unsigned op = v->op[i];
      uint64_t rid = v->first + i + 1;
      size_t ixi = ix;
      if (s->V) replay_record(s, i, &ix);
      else if (op == ADE_OP_INDEP) ix++;
      if (p) {
        double *Tr = T + rid * p;
        if (op == ADE_OP_INDEP) {
          for (size_t l = 0; l < p; l++) Tr[l] = Xd[ixi * p + l];
        } else if (ade__optab[op].flags & ADE__PASSIVE) {
          for (size_t l = 0; l < p; l++) Tr[l] = 0.0;
        } else {
          double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY];
          double r = operands(s, i, a);
          ade__op_partials(op, a, r, d, NULL);
          for (size_t l = 0; l < p; l++) Tr[l] = 0.0;
          for (int j = 0; j < ade__optab[op].arity; j++) {
            uint64_t id = v->arg[3 * i + j];
            if (!id) continue;
            const double *Ta = T + id * p;
            for (size_t l = 0; l < p; l++) Tr[l] += d[j] * Ta[l];
          }
        }
      }
      if (op == ADE_OP_DEP) {
        if (y) y[iy] = s->V ? s->V[rid] : v->val[i];
        if (Yd) for (size_t l = 0; l < p; l++) Yd[iy * p + l] = T[rid * p + l];
        iy++;
      }
    }
  }
  return ADE_OK;
}

/* Reverse over all chunks: q adjoints, seeded at the dependents with Yb. */
static int reverse(sweep *s, size_t q, const double *Yb, double *Xb, double *A) {
  ade_tape *t = s->t;
  const ade__meta *m = &t->meta;
  size_t ix = m->nindep;
  memset(A, 0, ade__mul_size((size_t)m->records + 1, q * sizeof *A));
  for (size_t j = 0; j < m->ndep; j++)
    for (size_t l = 0; l < q; l++) A[m->dep[j] * q + l] += Yb[j * q + l];
  for (size_t c = m->nchunks; c-- > 0;) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = v->n; i-- > 0;) {
      unsigned op = v->op[i];
      double *Ar = A + (v->first + i + 1) * q;
      if (op == ADE_OP_INDEP) {
        ix--;
        for (size_t l = 0; l < q; l++) Xb[ix * q + l] = Ar[l];
        continue;
      }
      if (ade__optab[op].flags & ADE__PASSIVE) continue;
      int nz = 0;
      for (size_t l = 0; l < q && !nz; l++) nz = Ar[l] != 0.0;
      if (!nz) continue;
      double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY];
      double r = operands(s, i, a);
      ade__op_partials(op, a, r, d, NULL);
      for (int j = 0; j < ade__optab[op].arity; j++) {
        uint64_t id = v->arg[3 * i + j];
        if (!id) continue;
        double *Aa = A + id * q;
        for (size_t l = 0; l < q; l++) Aa[l] += d[j] * Ar[l];
      }
    }
  }
  return ADE_OK;
}

/* Check the tape, size the workspace: V (if x) then nvec doubles per variable. */
static int setup(sweep *s, ade_tape *t, const double *x, size_t nvec, double **W) {
  int st = ade__tape_readable(t);
  if (st) return st;
  if (!t->meta.complete)
    return ade__fail(ADE_ESTATE, "the tape is incomplete (recording failed: %s); it can be inspected "
                     "but not differentiated", ade_strerror(t->meta.status));
  size_t nv = (size_t)t->meta.records + 1;
  if (t->meta.records >= SIZE_MAX / 16 || (nvec && nv > SIZE_MAX / 8 / nvec - 1))
    return ade__fail(ADE_ETOOBIG, "workspace for %zu variables is too large", nv);
  size_t need = (x ? nv : 0) + nv * nvec;
  double *w = ade__work(t, need ? need : 1);
  if (!w) return ade__fail(ADE_ENOMEM, "out of memory for the sweep workspace (%zu doubles)", need);
  s->t = t;
  s->x = x;
  s->V = x ? w : NULL;
  s->flips = 0;
  *W = w + (x ? nv : 0);
  return ADE_OK;
}

int ade_replay(ade_tape *t, const double *x, double *y) {
  sweep s;
  double *W;
  if (!x) return ade__fail(ADE_EINVAL, "ade_replay: x is NULL");
  int st = setup(&s, t, x, 0, &W);
  if (!st) st = forward(&s, 0, NULL, y, NULL, W);
  return finish(&s, st);
}

int ade_tangent_vec(ade_tape *t, size_t p, const double *x, const double *Xd, double *y, double *Yd) {
  sweep s;
  double *W;
  if (!p || !Xd || !Yd) return ade__fail(ADE_EINVAL, "ade_tangent: p = 0 or NULL Xd/Yd");
  int st = setup(&s, t, x, p, &W);
  if (!st) st = forward(&s, p, Xd, y, Yd, W);
  return finish(&s, st);
}

int ade_tangent(ade_tape *t, const double *x, const double *xd, double *y, double *yd) {
  return ade_tangent_vec(t, 1, x, xd, y, yd);
}

int ade_adjoint_vec(ade_tape *t, size_t q, const double *x, const double *Yb, double *Xb) {
  sweep s;
  double *W;
  if (!q || !Yb || !Xb) return ade__fail(ADE_EINVAL, "ade_adjoint: q = 0 or NULL Yb/Xb");
  int st = setup(&s, t, x, q, &W);
  if (!st && x) st = forward(&s, 0, NULL, NULL, NULL, W);
  if (!st) st = reverse(&s, q, Yb, Xb, W);
  return finish(&s, st);
}

int ade_adjoint(ade_tape *t, const double *x, const double *yb, double *xb) {
  return ade_adjoint_vec(t, 1, x, yb, xb);
}

int ade_gradient(ade_tape *t, const double *x, double *f, double *g) {
  sweep s;
  double *W, one = 1.0;
  int st = ade__tape_readable(t);
  if (!st && t->meta.ndep != 1)
    st = ade__fail(ADE_EINVAL, "ade_gradient: the tape has %zu dependents, not 1", t->meta.ndep);
  if (!st && !g) st = ade__fail(ADE_EINVAL, "ade_gradient: g is NULL");
  if (!st) st = setup(&s, t, x, 1, &W);
  if (!st) st = forward(&s, 0, NULL, f, NULL, W);
  if (!st) st = reverse(&s, 1, &one, g, W);
  return st ? st : finish(&s, st);
}

/* Directions per vector sweep when accumulating a dense Jacobian. */
#define ADE__STRIP 64

int ade_jacobian_dense(ade_tape *t, int mode, const double *x, double *J) {
  int st = ade__tape_readable(t);
  if (st) return st;
  if (!J || (mode != ADE_FORWARD && mode != ADE_REVERSE))
    return ade__fail(ADE_EINVAL, "ade_jacobian_dense: bad mode or NULL J");
  size_t n = t->meta.nindep, m = t->meta.ndep, k = mode == ADE_FORWARD ? n : m;
  size_t other = mode == ADE_FORWARD ? m : n, b = ADE__MIN((size_t)ADE__STRIP, k ? k : 1);
  double *S = ade__calloc(ade__mul_size(k, b), sizeof *S);
  double *R = ade__calloc(ade__mul_size(other, b), sizeof *R);
  if (!S || !R) st = ade__fail(ADE_ENOMEM, "out of memory for the Jacobian seeds");
  size_t sbytes = S ? k * b * sizeof *S : 0;
  int warn = ADE_OK;
  for (size_t k0 = 0; k0 < k && !st; k0 += b) {
    size_t w = ADE__MIN(b, k - k0);
    memset(S, 0, sbytes);
    for (size_t l = 0; l < w; l++) S[(k0 + l) * b + l] = 1.0; /* identity strip, padded */
    st = mode == ADE_FORWARD ? ade_tangent_vec(t, b, x, S, NULL, R) : ade_adjoint_vec(t, b, x, S, R);
    if (st == ADE_WBRANCH) {
      warn = st;
      st = ADE_OK;
    }
    for (size_t i = 0; i < other && !st; i++)
      for (size_t l = 0; l < w; l++) {
        if (mode == ADE_FORWARD) J[i * n + k0 + l] = R[i * b + l];
        else J[(k0 + l) * n + i] = R[i * b + l];
      }
  }
  ade__free(S);
  ade__free(R);
  return st ? st : warn;
}
