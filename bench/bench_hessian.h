/* bench_hessian.h: the problems of bench_hessian and its ADOL-C side,
 * callable from C. */
#ifndef BENCH_HESSIAN_H
#define BENCH_HESSIAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bh_id { BH_ROSENBROCK = 0, BH_BROYDEN = 1, BH_PENALTY1 = 2, BH_PAIRS = 3, BH_CHAINTREE = 4,
             BH_MINSURF = 5, BH_BBANDED = 6 };

/* One problem instance: the function, its size and the point x, the same
 * for every tool. */
struct bh_problem {
  int id;            /* enum bh_id */
  const char *name;
  size_t n;          /* independents (one dependent) */
  size_t grid;       /* minsurf: the grid side (n = grid^2) */
  size_t nwork;      /* workspace entries the evaluation needs */
  int sparse;        /* 1: a sparse Hessian (ADOL-C's compressed run) */
  double *x;         /* n */
};

#ifdef BENCH_HAVE_ADOLC
/* The ADOL-C side (bench_hessian_adolc.cpp). A context holds the tape tag
 * and the arrays ADOL-C's drivers take, allocated once. */
struct bh_adolc;
/*! bh_adolc_create: record p at p->x on a new tag. *rec_s gets the
 * recording time, *y the value, *ops the tape's operations. NULL on
 * failure. */
struct bh_adolc *bh_adolc_create(const struct bh_problem *p, double *rec_s, double *y, double *ops);
void bh_adolc_free(struct bh_adolc *a);
/*! bh_adolc_hessian_alloc: allocate and zero the lower triangle H that
 * bh_adolc_hessian fills (row i has i + 1 entries). */
void bh_adolc_hessian_alloc(struct bh_adolc *a);
/*! bh_adolc_hessian: hessian(tag, n, x, H) (vector_mode 0: n
 * Hessian-vector products) or hessian2(tag, n, x, H) (vector_mode 1: one
 * Hessian-matrix product, hov_wk_forward + hos_ov_reverse) into that
 * triangle (allocated first if needed). @return 0 or -1. */
int bh_adolc_hessian(struct bh_adolc *a, int vector_mode);
/*! bh_adolc_pattern: hess_pat(tag, n, x, HP, 0), then a greedy distance-2
 * coloring of HP's columns and the seed S(j, color[j]) = 1 (n x colors).
 * @return the number of colors, or -1. */
int bh_adolc_pattern(struct bh_adolc *a);
/*! bh_adolc_hess_mat: hess_mat(tag, n, colors, x, S, W) = H S (after
 * bh_adolc_pattern). @return 0 or -1. */
int bh_adolc_hess_mat(struct bh_adolc *a);
/*! bh_adolc_compare: max |A - B| and max |B| over the lower triangle,
 * A = adelim's H (lower-triangle CSR), B = the triangle of the last
 * bh_adolc_hessian (compressed = 0) or the entries of HP recovered
 * directly from hess_mat's W (compressed = 1). @return 0, -1 if that
 * result is missing. */
int bh_adolc_compare(const struct bh_adolc *a, int compressed, const size_t *rowptr,
                     const size_t *col, const double *val, double *maxdiff, double *maxref);
/*! bh_adolc_pattern_nnz: entries of HP's lower triangle (after
 * bh_adolc_pattern). */
size_t bh_adolc_pattern_nnz(const struct bh_adolc *a);
/*! bh_adolc_sparse_hess_probe: call sparse_hess(tag, n, 0, x, ...) in a
 * forked child. msg gets what happened (ADOL-C's stderr, or the nonzeros).
 * @return 0 if sparse_hess returned normally, -1 otherwise. */
int bh_adolc_sparse_hess_probe(const struct bh_adolc *a, char *msg, size_t size);
#ifdef BENCH_HAVE_COLPACK
/*! bh_adolc_sparse_hess: sparse_hess(tag, n, repeat, x, ...) with default
 * options (safe pattern, indirect recovery: ColPack's acyclic coloring);
 * repeat 0 computes pattern and coloring, 1 reuses them. @return nnz or -1. */
int bh_adolc_sparse_hess(struct bh_adolc *a, int repeat, const double *x);
/*! bh_adolc_colpack_seed: hess_pat, then generate_seed_hess(option) (0:
 * acyclic coloring, indirect recovery; 1: star coloring, direct recovery)
 * into the context's seed for bh_adolc_colpack_hess_mat. @return the
 * number of colors, or -1. */
int bh_adolc_colpack_seed(struct bh_adolc *a, int option);
/*! bh_adolc_colpack_hess_mat: hess_mat(tag, n, p, x, Seed, W) with that
 * seed. @return 0 or -1. */
int bh_adolc_colpack_hess_mat(struct bh_adolc *a, const double *x);
/*! bh_adolc_new_compare: max |A - B| and max |B| over the lower triangle,
 * A = adelim's H (lower-triangle CSR), B = the last sparse_hess result
 * (which = 0) or the entries recovered directly from the last ColPack
 * hess_mat with a star-coloring seed (which = 1). @return 0, -1 if that
 * result is missing. */
int bh_adolc_new_compare(const struct bh_adolc *a, int which, const size_t *rowptr, const size_t *col,
                         const double *val, double *maxdiff, double *maxref);
#endif
#endif

#ifdef __cplusplus
}
#endif
#endif /* BENCH_HESSIAN_H */
