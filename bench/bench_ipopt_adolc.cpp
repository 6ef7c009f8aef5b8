/* bench_ipopt_adolc.cpp: the ADOL-C side of bench_ipopt: the Luksan-Vlcek problem of examples/lv_problem.h recorded with adouble; gradient(), sparse_jac and sparse_hess as Ipopt's derivatives. */

/* Built only when configure found ADOL-C with ColPack (WITH_COLPACK). As
 * ADOL-C's own Ipopt example (ADOL-C_sparseNLP.cpp) does it, three tapes:
 *   tag 1: f alone, for gradient() (one forward and one reverse sweep);
 *   tag 2: c, for sparse_jac (index-domain pattern, ColPack's column
 *          coloring, one compressed forward sweep; repeat = 1 after the
 *          first call reuses the pattern and the coloring);
 *   tag 3: L = sigma f + sum_i lambda_i c_i with sigma and lambda recorded
 *          as parameters (mkparam), set at each call by set_param_vec, for
 *          sparse_hess (index-domain pattern, ColPack's coloring, ADOL-C's
 *          default indirect recovery; repeat = 1 reuses them).
 * The first sparse_jac and sparse_hess (repeat = 0, pattern and coloring)
 * run in bia_setup, outside the timed callbacks. */
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>

#include <cmath>
#include <cstdlib>

static adouble square(const adouble &a)
{
  return a * a;
}

/* The operation layer of lv_problem.h for adouble: plain C++ operators. */
#define ADE_ADD(a, b) adouble((a) + (b))
#define ADE_SUB(a, b) ((a) - (b))
#define ADE_MUL(a, b) ((a) * (b))
#define ADE_SQUARE(a) square(a)
#define ADE_SIN(a) sin(a)
#define ADE_EXP(a) exp(a)
#include "lv_problem.h"
LV_PROBLEM(adouble, lv_f_adolc, lv_c_adolc)

enum { TAG_F = 1, TAG_C = 2, TAG_L = 3 };

/* The state between the calls: sparse_jac's and sparse_hess's triplets
 * (allocated by ADOL-C on the first call, refilled in place after). */
struct bia {
  int n, m;
  int jnnz, hnnz;
  unsigned *jr, *jc, *hr, *hc;
  double *jv, *hv, *w; /* w: the m + 1 parameters (sigma, lambda) */
};
static bia S;

/* Record the three tapes at x and make the patterns and colorings (the
 * first sparse_jac and sparse_hess, weights (1, 1, .., 1)). @return 0, or
 * -1 if a driver failed. */
extern "C" int bia_setup(int n, const double *x)
{
  int m = n - 2;
  adouble *xa = new adouble[n], *c = new adouble[m];
  double y, *cy = new double[m];
  S.n = n, S.m = m;
  S.w = new double[m + 1];
  trace_on(TAG_F);
  for (int i = 0; i < n; i++) xa[i] <<= x[i];
  adouble f = lv_f_adolc(n, xa);
  f >>= y;
  trace_off();
  trace_on(TAG_C);
  for (int i = 0; i < n; i++) xa[i] <<= x[i];
  lv_c_adolc(n, xa, c);
  for (int i = 0; i < m; i++) c[i] >>= cy[i];
  trace_off();
  trace_on(TAG_L);
  for (int i = 0; i < n; i++) xa[i] <<= x[i];
  {
    adouble L = mkparam(1.0) * lv_f_adolc(n, xa);
    lv_c_adolc(n, xa, c);
    for (int i = 0; i < m; i++) L += mkparam(1.0) * c[i];
    L >>= y;
  }
  trace_off();
  delete[] cy;
  delete[] c;
  delete[] xa;
  int jopt[4] = {0, 0, 0, 0}; /* index domains, safe, automatic, column compression */
  int hopt[2] = {0, 0};       /* safe pattern, indirect recovery */
  if (sparse_jac(TAG_C, m, n, 0, x, &S.jnnz, &S.jr, &S.jc, &S.jv, jopt) < 0) return -1;
  for (int i = 0; i <= m; i++) S.w[i] = 1;
  set_param_vec(TAG_L, (size_t)m + 1, S.w);
  if (sparse_hess(TAG_L, n, 0, x, &S.hnnz, &S.hr, &S.hc, &S.hv, hopt) < 0) return -1;
  return 0;
}

/* The sizes of the two patterns. */
extern "C" void bia_nnz(int *jnnz, int *hnnz)
{
  *jnnz = S.jnnz, *hnnz = S.hnnz;
}

/* The patterns as Ipopt's triplets: the constraint Jacobian's, and the
 * Hessian's upper triangle (row <= col), one of the two Ipopt accepts. */
extern "C" void bia_jac_pattern(int *row, int *col)
{
  for (int k = 0; k < S.jnnz; k++) row[k] = (int)S.jr[k], col[k] = (int)S.jc[k];
}

extern "C" void bia_hess_pattern(int *row, int *col)
{
  for (int k = 0; k < S.hnnz; k++) row[k] = (int)S.hr[k], col[k] = (int)S.hc[k];
}

extern "C" int bia_grad(const double *x, double *g)
{
  return gradient(TAG_F, S.n, x, g);
}

/* The Jacobian's values in the pattern's order. */
extern "C" int bia_jac(const double *x, double *val)
{
  int opt[4] = {0, 0, 0, 0};
  if (sparse_jac(TAG_C, S.m, S.n, 1, x, &S.jnnz, &S.jr, &S.jc, &S.jv, opt) < 0) return -1;
  for (int k = 0; k < S.jnnz; k++) val[k] = S.jv[k];
  return 0;
}

/* The Lagrangian Hessian's values in the pattern's order. */
extern "C" int bia_hess(const double *x, double sigma, const double *lambda, double *val)
{
  int opt[2] = {0, 0};
  S.w[0] = sigma;
  for (int i = 0; i < S.m; i++) S.w[i + 1] = lambda[i];
  set_param_vec(TAG_L, (size_t)S.m + 1, S.w);
  if (sparse_hess(TAG_L, S.n, 1, x, &S.hnnz, &S.hr, &S.hc, &S.hv, opt) < 0) return -1;
  for (int k = 0; k < S.hnnz; k++) val[k] = S.hv[k];
  return 0;
}

extern "C" void bia_free(void)
{
  std::free(S.jr), std::free(S.jc), std::free(S.jv);
  if (S.hr) std::free(S.hr), std::free(S.hc), std::free(S.hv);
  delete[] S.w;
  S = bia();
}
