/* bench_jacobian.h: the problems of bench_jacobian and its ADOL-C side, callable from C. */
#ifndef BENCH_JACOBIAN_H
#define BENCH_JACOBIAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bj_id { BJ_DIE = 0, BJ_CHEBYQUAD = 1, BJ_BRATU = 2, BJ_CAVITY = 3, BJ_ROE = 4, BJ_NPROBLEMS = 5 };

/* One problem: sizes and the point x, the same for every tool. */
struct bj_problem {
  int id;             /* enum bj_id */
  const char *name;
  size_t n, m;        /* independents, dependents */
  size_t grid;        /* Bratu, cavity: grid side; Roe: faces */
  size_t nwork;       /* workspace entries the evaluation needs */
  double param;       /* Bratu lambda, cavity Reynolds number */
  int sparse;         /* 1: a sparse Jacobian (compare with compression) */
  double *x;          /* n */
};

/*! bj_problem_init: problem id at its benchmark size and point (p->x
 * malloc'ed, free() it; Roe's states from a fixed pseudo-random sequence,
 * so call it once per process for the same states). */
void bj_problem_init(struct bj_problem *p, int id);

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
#endif

#ifdef __cplusplus
}
#endif
#endif /* BENCH_JACOBIAN_H */
