/* for_over_rev.c: the oracle: Hessian columns by forward-over-reverse Hessian-vector products. */
#include "hessian_internal.h"

typedef struct fr {
  ade_tape *t;
  const double *V, *w;
  double *T, *A, *B; /* tangents, adjoints, adjoint tangents: one per variable */
  uint64_t fma;
} fr;

/* Raw (unmerged) partials of record i: the oracle shares nothing with edge
 * pushing beyond the operation table. */
static int raw(const fr *f, const ade__view *v, uint32_t i, double *d, double *h) {
  unsigned op = v->op[i];
  int k = ade__optab[op].arity;
  double a[ADE__MAX_ARITY];
  if (ade__optab[op].flags & ADE__PASSIVE) return 0;
  ade__view_operands(v, f->V, i, k, a);
  ade__op_partials(op, a, f->V ? f->V[v->first + i + 1] : v->val[i], d, h);
  return k;
}

/* Tangent sweep in direction e_dir (dir = SIZE_MAX: none, adjoints only). */
static int forward(fr *f, size_t dir) {
  ade_tape *t = f->t;
  size_t ix = 0;
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = 0; i < v->n; i++) {
      double d[ADE__MAX_ARITY], h[6], s = 0;
      uint64_t rid = v->first + i + 1;
      if (v->op[i] == ADE_OP_INDEP) {
        f->T[rid] = ix++ == dir;
        continue;
      }
      int k = raw(f, v, i, d, h);
      const uint64_t *arg = ade__view_arg(v, i);
      for (int j = 0; j < k; j++)
        if (arg[j]) s += d[j] * f->T[arg[j]];
      f->fma += (uint64_t)k;
      f->T[rid] = s;
    }
  }
  return ADE_OK;
}

/* Reverse sweep: A_j += d_j A_k; B_j += d_j B_k + A_k sum_l h_jl T_l. With
 * tangents off (first pass), only the adjoints. */
static int reverse(fr *f, int tangents, double *Hcol, double *g) {
  ade_tape *t = f->t;
  const ade__meta *m = &t->meta;
  size_t nv = (size_t)m->records + 1, ix = m->nindep, jd = m->ndep;
  double *A = f->A, *B = f->B;
  if (tangents) memset(B, 0, nv * sizeof *B);
  else memset(A, 0, nv * sizeof *A);
  for (size_t c = m->nchunks; c-- > 0;) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = v->n; i-- > 0;) {
      uint64_t rid = v->first + i + 1;
      unsigned op = v->op[i];
      double d[ADE__MAX_ARITY], h[6];
      if (op == ADE_OP_DEP && !tangents) A[rid] += f->w ? f->w[--jd] : 1.0;
      if (op == ADE_OP_INDEP) {
        ix--;
        if (tangents) Hcol[ix] = B[rid];
        else if (g) g[ix] = A[rid];
        continue;
      }
      int k = raw(f, v, i, d, h);
      const uint64_t *arg = ade__view_arg(v, i);
      for (int j = 0; j < k; j++) {
        uint64_t id = arg[j];
        if (!id) continue;
        if (!tangents) {
          A[id] += d[j] * A[rid];
          continue;
        }
        double s = 0;
        for (int l = 0; l < k; l++)
          if (arg[l]) s += h[j >= l ? j * (j + 1) / 2 + l : l * (l + 1) / 2 + j] * f->T[arg[l]];
        B[id] += d[j] * B[rid] + A[rid] * s;
        f->fma += (uint64_t)k + 2;
      }
    }
  }
  return ADE_OK;
}

int ade__for_over_rev(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g,
                      ade_hess_report *r) {
  size_t n = t->meta.nindep, nv = (size_t)t->meta.records + 1, nt = 0;
  fr f = {t, V, w, NULL, NULL, NULL, 0};
  size_t bytes = ade__mul_size(nv, 3 * sizeof(double)) + ade__mul_size(n * (n + 1) / 2 + 1, sizeof(ade__trip));
  int st = ade__budget(t->memlimit, bytes, "forward-over-reverse over %zu variables with n = %zu", nv - 1, n);
  if (st) return st;
  f.T = ade__alloc(ade__mul_size(nv, 3 * sizeof(double)));
  double *col = ade__alloc(ade__mul_size(n ? n : 1, sizeof *col));
  ade__trip *T = ade__alloc(ade__mul_size(n * (n + 1) / 2 + 1, sizeof *T));
  st = f.T && col && T ? ADE_OK : ade__fail(ADE_ENOMEM, "forward-over-reverse: out of memory for n = %zu", n);
  if (!st) {
    f.A = f.T + nv;
    f.B = f.A + nv;
    st = reverse(&f, 0, NULL, g);
  }
  for (size_t j = 0; j < n && !st; j++) {
    st = forward(&f, j);
    if (!st) st = reverse(&f, 1, col, NULL);
    for (size_t i = j; i < n && !st; i++) /* column j, lower part */
      if (col[i] != 0) T[nt++] = (ade__trip){i, j, col[i]};
  }
  if (!st) st = ade__hess_from_triplets(n, T, nt, H);
  r->fma = f.fma;
  ade__free(f.T);
  ade__free(col);
  ade__free(T);
  return st;
}
