/* sparse.c: the compressed-sparse-row matrix shared by Jacobians and Hessians. */
#include <stdio.h>

#include "common_internal.h"

int ade_sparse_create(ade_sparse **Ap, size_t m, size_t n, size_t nnz, int symmetric) {
  if (!Ap) return ade__fail(ADE_EINVAL, "ade_sparse_create: NULL result pointer");
  ade_sparse *A = ade__calloc(1, sizeof *A);
  if (A) {
    A->m = m;
    A->n = n;
    A->nnz = nnz;
    A->symmetric = symmetric != 0;
    A->rowptr = ade__calloc(m + 1, sizeof *A->rowptr);
    A->col = ade__alloc(ade__mul_size(nnz, sizeof *A->col));
    A->val = ade__alloc(ade__mul_size(nnz, sizeof *A->val));
  }
  if (!A || !A->rowptr || !A->col || !A->val) {
    ade_sparse_free(A);
    *Ap = NULL;
    return ade__fail(ADE_ENOMEM, "out of memory for a %zu x %zu sparse matrix with %zu entries", m, n, nnz);
  }
  *Ap = A;
  return ADE_OK;
}

void ade_sparse_free(ade_sparse *A) {
  if (!A) return;
  ade__free(A->rowptr);
  ade__free(A->col);
  ade__free(A->val);
  ade__free(A);
}

int ade_sparse_to_dense(const ade_sparse *A, double *D) {
  if (!A || !D) return ade__fail(ADE_EINVAL, "ade_sparse_to_dense: NULL argument");
  memset(D, 0, ade__mul_size(A->m, A->n * sizeof *D));
  for (size_t i = 0; i < A->m; i++)
    for (size_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      D[i * A->n + A->col[k]] = A->val[k];
      if (A->symmetric) D[A->col[k] * A->n + i] = A->val[k];
    }
  return ADE_OK;
}

int ade_sparse_write_mtx(const ade_sparse *A, const char *path) {
  if (!A || !path) return ade__fail(ADE_EINVAL, "ade_sparse_write_mtx: NULL argument");
  ade__afile out;
  FILE *f;
  int st = ade__afile_open(&out, path);
  if (!st) st = ade__afile_stream(&out, &f);
  if (st) return st;
  fprintf(f, "%%%%MatrixMarket matrix coordinate real %s\n%zu %zu %zu\n",
          A->symmetric ? "symmetric" : "general", A->m, A->n, A->nnz);
  for (size_t i = 0; i < A->m; i++)
    for (size_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      fprintf(f, "%zu %zu %.17g\n", i + 1, A->col[k] + 1, A->val[k]);
  return ade__afile_commit(&out, 0); /* checks the stream's errors */
}

/* ade__sparse_union: see common_internal.h. */
int ade__sparse_union(const ade_sparse *J, const ade_sparse *P, ade_sparse **U, size_t *pos) {
  size_t add = 0;
  *U = NULL;
  for (int pass = 0; pass < 2; pass++) {
    size_t nz = 0;
    for (size_t i = 0; i < P->m; i++) {
      size_t a = J->rowptr[i], b = P->rowptr[i];
      if (pass) (*U)->rowptr[i] = nz;
      while (a < J->rowptr[i + 1] || b < P->rowptr[i + 1]) {
        size_t ca = a < J->rowptr[i + 1] ? J->col[a] : SIZE_MAX, cb = b < P->rowptr[i + 1] ? P->col[b] : SIZE_MAX;
        size_t col = ca < cb ? ca : cb;
        if (cb == col) pos[b++] = nz;
        if (ca == col) a++;
        else if (!pass) add++;
        if (pass) (*U)->col[nz] = col, (*U)->val[nz] = 0;
        nz++;
      }
    }
    if (!pass && !add) return ADE_OK; /* pos is into J */
    if (pass) (*U)->rowptr[P->m] = nz;
    else {
      int st = ade_sparse_create(U, J->m, J->n, nz, J->symmetric);
      if (st) return st;
    }
  }
  return ADE_OK;
}
