/* statement.c: statement-level preaccumulation for edge pushing (local derivatives of a tree of records, as in LivarH). */
#include "hessian_internal.h"

/* Packed lower-triangle position of the symmetric entry (i, j). */
#define PK(i, j) ((i) > (j) ? (i) * ((i) + 1) / 2 + (j) : (j) * ((j) + 1) / 2 + (i))

void ade__stmt_uses(const ade__view *v, uint8_t *uses) {
  memset(uses, 0, v->n * sizeof *uses);
  for (uint32_t i = 0; i < v->n; i++) {
    const uint64_t *arg = ade__view_arg(v, i);
    for (int j = 0; j < ade__optab[v->op[i]].arity; j++) {
      int again = 0; /* a record using an operand twice uses it once */
      for (int l = 0; l < j; l++) again |= arg[l] == arg[j];
      if (arg[j] > v->first && !again && uses[arg[j] - v->first - 1] < ADE__USE_MANY)
        uses[arg[j] - v->first - 1]++;
    }
  }
}

/* Does operand id of the tree become its record S->rec[S->nrec]? Only if it
 * is in this chunk, used by its parent alone (so not live: its parent has
 * not been swept), and the leaves can stay within the cap: *open counts the
 * operand places not yet absorbed, an upper bound of the distinct leaves. */
static int absorb(const ade__view *v, uint64_t id, const double *V, uint8_t *uses, ade__stmt *S,
                  int *open) {
  if (id <= v->first || S->nrec == ADE__STMT_MAXREC) return 0;
  uint32_t q = (uint32_t)(id - v->first - 1);
  if (uses[q] != ADE__USE_ONCE || v->op[q] == ADE_OP_INDEP || v->op[q] == ADE_OP_DEP) return 0;
  ade__hess_local(v, q, V, &S->rec[S->nrec]);
  if (*open - 1 + S->rec[S->nrec].np > ADE__STMT_MAXLEAF) return 0;
  *open += S->rec[S->nrec].np - 1;
  uses[q] = ADE__USE_INNER;
  return 1;
}

/* The leaf id (merged with an equal one): its local variable, coded -1 - leaf. */
static int leaf(ade__stmt *S, uint64_t id) {
  int l = 0;
  while (l < S->np && S->id[l] != id) l++;
  if (l == S->np) S->id[S->np++] = id;
  return -1 - l;
}

_Static_assert(ADE__STMT_NVAR <= 64, "a variable's entries are a 64-bit set");

/* W(i, j) += x; zeros (an add's second partials) leave no entry. */
static inline void wadd(ade__stmt *S, int i, int j, double x) {
  if (x == 0) return;
  S->W[PK(i, j)] += x;
  S->nz[i] |= UINT64_C(1) << j;
  S->nz[j] |= UINT64_C(1) << i;
}

/* Eq. (4.2) on the dense local Hessian W over the tree's variables (records
 * 0..nrec-1, parents first, then the leaves), seeded with adjoint 1 at the
 * root: W and a end as d^2 root / d leaves^2 and d root / d leaves. */
static void local_sweep(ade__stmt *S) {
  const int nv = S->nrec + S->np;
  uint64_t fma = 0;
  memset(S->W, 0, (size_t)(nv * (nv + 1) / 2) * sizeof *S->W);
  memset(S->a, 0, (size_t)nv * sizeof *S->a);
  memset(S->nz, 0, (size_t)nv * sizeof *S->nz);
  S->a[0] = 1;
  for (int k = 0; k < S->nrec; k++) {
    const ade__local *L = &S->rec[k];
    int o[ADE__MAX_ARITY];
    for (int b = 0; b < L->np; b++) o[b] = S->var[k][b] >= 0 ? S->var[k][b] : S->nrec - 1 - S->var[k][b];
    /* Pushing W(k, j), j > k (earlier variables are swept): o_b > k and
     * j > k, so row k is not written meanwhile. */
    for (uint64_t row = S->nz[k] >> k >> 1 << k << 1; row; row &= row - 1) {
      const int j = __builtin_ctzll(row);
      const double x = S->W[PK(j, k)];
      for (int b = 0; b < L->np; b++) wadd(S, o[b], j, (j == o[b] ? 2 : 1) * L->d[b] * x);
      fma += (uint64_t)L->np;
    }
    const double hk = S->W[PK(k, k)], ak = S->a[k];
    for (int b = 0; b < L->np && hk != 0; b++) { /* the diagonal */
      const double t = L->d[b] * hk;
      for (int c = 0; c <= b; c++) wadd(S, o[b], o[c], t * L->d[c]);
      fma += (uint64_t)(b + 2);
    }
    for (int b = 0; b < L->np && ak != 0; b++) { /* creating, adjoints */
      for (int c = 0; c <= b; c++) wadd(S, o[b], o[c], L->h[b * (b + 1) / 2 + c] * ak);
      S->a[o[b]] += L->d[b] * ak;
      fma += (uint64_t)(b + 2);
    }
  }
  for (int l = 0; l < S->np; l++) {
    S->d[l] = S->a[S->nrec + l];
    for (int m = 0; m <= l; m++) S->h[l * (l + 1) / 2 + m] = S->W[PK(S->nrec + l, S->nrec + m)];
  }
  S->fma = fma;
}

int ade__stmt_build(const ade__view *v, uint32_t i, const double *V, uint8_t *uses, ade__stmt *S) {
  ade__hess_local(v, i, V, &S->rec[0]);
  S->nrec = 1;
  S->np = 0;
  int open = S->rec[0].np;
  for (int k = 0; k < S->nrec; k++) /* breadth first: S->nrec grows */
    for (int b = 0; b < S->rec[k].np; b++) {
      const uint64_t id = S->rec[k].id[b];
      S->var[k][b] = absorb(v, id, V, uses, S, &open) ? S->nrec++ : leaf(S, id);
    }
  if (S->nrec == 1) return 1;
  local_sweep(S);
  S->np = ade__local_drop(S->np, S->id, S->d, S->h);
  return S->nrec;
}
