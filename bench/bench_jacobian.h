/* bench_jacobian.h: the problems of bench_jacobian and its ADOL-C side, callable from C. */
#ifndef BENCH_JACOBIAN_H
#define BENCH_JACOBIAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bj_id { BJ_DIE = 0, BJ_CHEBYQUAD = 1, BJ_BRATU = 2, BJ_CAVITY = 3, BJ_ROE = 4, BJ_EULER1D = 5, BJ_LORENZ96 = 6,
             BJ_NPROBLEMS = 7 };

/* One problem: sizes and the point x, the same for every tool. */
struct bj_problem {
  int id;             /* enum bj_id */
  const char *name;
  size_t n, m;        /* independents, dependents */
  size_t grid;        /* Bratu, cavity: grid side; Roe: faces; euler1d: cells; lorenz96: steps */
  size_t nwork;       /* workspace entries the evaluation needs */
  double param;       /* Bratu lambda, cavity Reynolds number, lorenz96 step size */
  int sparse;         /* 1: a sparse Jacobian (compare with compression) */
  double *x;          /* n */
};

/*! bj_problem_init: problem id at its benchmark size and point (p->x
 * malloc'ed, free() it; Roe's states from a fixed pseudo-random sequence,
 * so call it once per process for the same states). */
void bj_problem_init(struct bj_problem *p, int id);
/*! bj_problem_names: the problems' names, indexed by enum bj_id. */
extern const char *const bj_problem_names[BJ_NPROBLEMS];
/*! bj_new_point: x1 = a new point near p->x for the timings at a new point:
 * each entry scaled by 1 + 0.01 r, r in [-1, 1) from a hash of (k, salt). */
void bj_new_point(const struct bj_problem *p, unsigned salt, double *x1);

#ifdef BENCH_HAVE_ADOLC
/* The ADOL-C side (bench_jacobian_adolc.cpp). A context holds the tape tag
 * and the double** arrays ADOL-C's drivers take, allocated once. */
struct bj_adolc;
/*! bj_adolc_create: record p at p->x on a new tag; p colors (0: no
 * compressed runs) for the seed matrix of bj_adolc_compressed. NULL on
 * failure. *rec_s gets the recording time. */
struct bj_adolc *bj_adolc_create(const struct bj_problem *p, size_t colors, double *rec_s);
void bj_adolc_free(struct bj_adolc *a);
/*! bj_adolc_dense: jacobian(tag, m, n, x, J): J (m x n, row-major) gets it
 * when J is not NULL (copied out after the call). @return 0 or -1. */
int bj_adolc_dense(struct bj_adolc *a, double *J);
/*! bj_adolc_pattern: jac_pat(tag, m, n, x, crs, {0, 0, 0}) as CSR: rowptr
 * (m + 1) and *col (malloc'ed, free() it). @return 0 or -1. */
int bj_adolc_pattern(struct bj_adolc *a, size_t *rowptr, size_t **col);
/*! bj_adolc_seed: the seed matrix S(j, color[j]) = 1 (n x colors). */
void bj_adolc_seed(struct bj_adolc *a, const size_t *color);
/*! bj_adolc_compressed: fov_forward(tag, m, n, p, x, S, y, B): B (m x p,
 * row-major) copied out when not NULL. @return 0 or -1. */
int bj_adolc_compressed(struct bj_adolc *a, double *B);
/*! bj_adolc_dense_at: jacobian() at x (not the recorded point), result
 * kept in the context. @return 0 or -1. */
int bj_adolc_dense_at(struct bj_adolc *a, const double *x);
/*! bj_adolc_dense_get: the last jacobian() result into J (m x n). */
void bj_adolc_dense_get(const struct bj_adolc *a, double *J);
#ifdef BENCH_HAVE_COLPACK
/*! bj_adolc_sparse_jac: sparse_jac(tag, m, n, repeat, x, ...) with default
 * options (safe index-domain pattern, column compression: ColPack's
 * distance-2 coloring, fov_forward, ColPack's recovery); repeat 0 computes
 * pattern and coloring, repeat 1 reuses them. @return nnz, or -1. */
int bj_adolc_sparse_jac(struct bj_adolc *a, int repeat, const double *x);
/*! bj_adolc_sparse_jac_get: the coordinates and values of the last
 * sparse_jac (owned by the context). @return nnz. */
int bj_adolc_sparse_jac_get(const struct bj_adolc *a, const unsigned **ri, const unsigned **ci, const double **v);
/*! bj_adolc_colpack_seed: jac_pat, then generate_seed_jac (ColPack,
 * column compression) into the context. color (n) gets each column's
 * color. @return the number of colors, or -1. */
int bj_adolc_colpack_seed(struct bj_adolc *a, size_t *color);
/*! bj_adolc_colpack_fov: fov_forward(tag, m, n, p, x, Seed, y, B) with that
 * seed; B (m x p, row-major) copied out when not NULL. @return 0 or -1. */
int bj_adolc_colpack_fov(struct bj_adolc *a, const double *x, double *B);
#endif
#endif

#ifdef __cplusplus
}
#endif
#endif /* BENCH_JACOBIAN_H */
