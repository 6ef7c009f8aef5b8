/* bench_jacobian_adolc.cpp: the ADOL-C side of bench_jacobian: the same
 * problem source (jacobian_problems.h) instantiated with adouble, recorded,
 * and differentiated by jacobian() and by jac_pat + fov_forward. */
#include "bench_jacobian.h"

#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

/* The operation layer of jacobian_problems.h for adouble: plain C++
 * operators, so ADOL-C records what natural operator-overloading code
 * records. */
#define ADE_ADD(a, b) ((a) + (b))
#define ADE_SUB(a, b) ((a) - (b))
#define ADE_MUL(a, b) ((a) * (b))
#define ADE_DIV(a, b) ((a) / (b))
#define ADE_EXP(a) exp(a)
#define ADE_SQRT(a) sqrt(a)
#define ADE_FABS(a) fabs(a)
#define ADE_FMIN(a, b) fmin(a, b)
#define ADE_FMAX(a, b) fmax(a, b)
#define BJ_REAL adouble
#define BJ_CONST(v) adouble(v)
#define BJ_FN(name) adolc_##name
#include "jacobian_problems.h"

struct bj_adolc {
  const bj_problem *p;
  short tag;
  int m, n, colors;
  double *y;
  double **J, **S, **B; /* m x n, n x colors, m x colors */
  /* sparse_jac's results, reused by repeat = 1 calls */
  unsigned *sj_ri, *sj_ci;
  double *sj_v;
  int sj_nnz;
  /* ColPack's seed (generate_seed_jac) and the compressed Jacobian */
  double **CS, **CB;
  int cp_colors;
};

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

extern "C" struct bj_adolc *bj_adolc_create(const struct bj_problem *p, size_t colors, double *rec_s)
{
  bj_adolc *a = new bj_adolc();
  a->p = p;
  a->tag = (short)(10 + p->id);
  a->m = (int)p->m;
  a->n = (int)p->n;
  a->colors = (int)colors;
  a->y = new double[p->m];
  /* The active arrays exist before taping (as the C arrays of the other
   * side), so their construction is not on the tape. */
  adouble *xa = new adouble[p->n], *fa = new adouble[p->m];
  adouble *wa = new adouble[p->nwork ? p->nwork : 1];
  double t0 = seconds();
  trace_on(a->tag);
  for (size_t i = 0; i < p->n; i++)
    xa[i] <<= p->x[i];
  adolc_eval(p, xa, wa, fa);
  for (size_t i = 0; i < p->m; i++)
    fa[i] >>= a->y[i];
  trace_off();
  *rec_s = seconds() - t0;
  delete[] wa;
  delete[] fa;
  delete[] xa;
  size_t s[STAT_SIZE];
  tapestats(a->tag, s);
  if (s[OP_FILE_ACCESS] || s[LOC_FILE_ACCESS] || s[VAL_FILE_ACCESS])
    std::fprintf(stderr, "bench_jacobian: ADOL-C spilled the %s tape to a file\n", p->name);
  if (colors) {
    a->S = myalloc2(p->n, colors);
    a->B = myalloc2(p->m, colors);
  }
  return a;
}

/* generate_seed_jac's seed comes from ColPack's new[] (as ADOL-C's
 * examples free it). */
static void free_seed(double **S, int n)
{
  for (int j = 0; S && j < n; j++)
    delete[] S[j];
  delete[] S;
}

extern "C" void bj_adolc_free(struct bj_adolc *a)
{
  if (!a)
    return;
  if (a->J)
    myfree2(a->J);
  if (a->S)
    myfree2(a->S);
  if (a->B)
    myfree2(a->B);
  std::free(a->sj_ri);
  std::free(a->sj_ci);
  std::free(a->sj_v);
  free_seed(a->CS, a->n);
  if (a->CB)
    myfree2(a->CB);
  delete[] a->y;
  delete a;
}

extern "C" int bj_adolc_dense(struct bj_adolc *a, double *J)
{
  if (!a->J)
    a->J = myalloc2(a->m, a->n); /* the m x n result, once */
  if (jacobian(a->tag, a->m, a->n, a->p->x, a->J) < 0)
    return -1;
  for (int i = 0; J && i < a->m; i++)
    std::memcpy(J + (size_t)i * (size_t)a->n, a->J[i], sizeof(double) * (size_t)a->n);
  return 0;
}

extern "C" int bj_adolc_pattern(struct bj_adolc *a, size_t *rowptr, size_t **col)
{
  unsigned int **crs = new unsigned int *[a->m];
  int options[3] = {0, 0, 0}; /* index domains, safe mode, automatic direction */
  if (jac_pat(a->tag, a->m, a->n, a->p->x, crs, options) < 0) {
    delete[] crs;
    return -1;
  }
  rowptr[0] = 0;
  for (int i = 0; i < a->m; i++)
    rowptr[i + 1] = rowptr[i] + crs[i][0];
  *col = static_cast<size_t *>(std::malloc(sizeof(size_t) * (rowptr[a->m] + 1)));
  for (int i = 0; i < a->m; i++) {
    for (unsigned k = 0; k < crs[i][0]; k++)
      (*col)[rowptr[i] + k] = crs[i][k + 1];
    free(crs[i]);
  }
  delete[] crs;
  return 0;
}

extern "C" void bj_adolc_seed(struct bj_adolc *a, const size_t *color)
{
  for (int j = 0; j < a->n; j++)
    for (int c = 0; c < a->colors; c++)
      a->S[j][c] = color[j] == (size_t)c ? 1.0 : 0.0;
}

extern "C" int bj_adolc_compressed(struct bj_adolc *a, double *B)
{
  if (!a->S || fov_forward(a->tag, a->m, a->n, a->colors, a->p->x, a->S, a->y, a->B) < 0)
    return -1;
  for (int i = 0; B && i < a->m; i++)
    std::memcpy(B + (size_t)i * (size_t)a->colors, a->B[i], sizeof(double) * (size_t)a->colors);
  return 0;
}

extern "C" int bj_adolc_dense_at(struct bj_adolc *a, const double *x)
{
  if (!a->J)
    a->J = myalloc2(a->m, a->n);
  return jacobian(a->tag, a->m, a->n, x, a->J) < 0 ? -1 : 0;
}

extern "C" void bj_adolc_dense_get(const struct bj_adolc *a, double *J)
{
  for (int i = 0; i < a->m; i++)
    std::memcpy(J + (size_t)i * (size_t)a->n, a->J[i], sizeof(double) * (size_t)a->n);
}

#ifdef BENCH_HAVE_COLPACK
extern "C" int bj_adolc_sparse_jac(struct bj_adolc *a, int repeat, const double *x)
{
  int options[4] = {0, 0, 0, 0}; /* ADOL-C's defaults */
  if (sparse_jac(a->tag, a->m, a->n, repeat, x, &a->sj_nnz, &a->sj_ri, &a->sj_ci, &a->sj_v, options) < 0)
    return -1;
  return a->sj_nnz;
}

extern "C" int bj_adolc_sparse_jac_get(const struct bj_adolc *a, const unsigned **ri, const unsigned **ci,
                                       const double **v)
{
  *ri = a->sj_ri, *ci = a->sj_ci, *v = a->sj_v;
  return a->sj_nnz;
}

extern "C" int bj_adolc_colpack_seed(struct bj_adolc *a, size_t *color)
{
  unsigned int **JP = new unsigned int *[a->m];
  int options[3] = {0, 0, 0};
  if (jac_pat(a->tag, a->m, a->n, a->p->x, JP, options) < 0) {
    delete[] JP;
    return -1;
  }
  free_seed(a->CS, a->n);
  a->CS = nullptr;
  generate_seed_jac(a->m, a->n, JP, &a->CS, &a->cp_colors, 0);
  for (int i = 0; i < a->m; i++)
    std::free(JP[i]);
  delete[] JP;
  if (a->CB)
    myfree2(a->CB);
  a->CB = myalloc2(a->m, a->cp_colors);
  for (int j = 0; j < a->n; j++) {
    color[j] = (size_t)a->cp_colors; /* none: an empty column */
    for (int c = 0; c < a->cp_colors; c++)
      if (a->CS[j][c] != 0.0)
        color[j] = (size_t)c;
  }
  return a->cp_colors;
}

extern "C" int bj_adolc_colpack_fov(struct bj_adolc *a, const double *x, double *B)
{
  if (!a->CS || fov_forward(a->tag, a->m, a->n, a->cp_colors, x, a->CS, a->y, a->CB) < 0)
    return -1;
  for (int i = 0; B && i < a->m; i++)
    std::memcpy(B + (size_t)i * (size_t)a->cp_colors, a->CB[i], sizeof(double) * (size_t)a->cp_colors);
  return 0;
}
#endif
