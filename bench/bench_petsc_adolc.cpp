/* bench_petsc_adolc.cpp: the ADOL-C side of bench/bench_petsc (examples/petsc_bratu.c built with BRATU_WITH_ADOLC): each rank's local Bratu kernel taped with adouble, its Jacobian rows by sparse_jac. */

/* Built only when configure found PETSc and ADOL-C with ColPack. Each MPI
 * rank is its own process, so each records its own ADOL-C tape (tag 1 +
 * rank) of the local kernel of examples/bratu_kernel.h: owned and ghost
 * points in, owned residuals out, as adelim's tape. sparse_jac (index-domain pattern,
 * ColPack's column coloring, one compressed forward sweep) gives the rows;
 * the first call (repeat = 0) makes the pattern and the coloring and runs
 * in the setup, later calls (repeat = 1) reuse them. The comparisons of
 * the kernel (-clip) are plain comparisons of values here: ADOL-C's tape
 * would not notice a branch that flips, so bench_petsc refuses -clip with
 * -jac adolc. */
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>
#include <petscdmda.h>

#include <cmath>

/* The operation layer of bratu_kernel.h for adouble: plain C++ operators. */
#define ADE_ADD(a, b) ((a) + (b))
#define ADE_SUB(a, b) ((a) - (b))
#define ADE_MUL(a, b) ((a) * (b))
#define ADE_EXP(a) exp(a)
#define ADE_LT(a, b) ((a).getValue() < (b))
#include "bratu_kernel.h"
BRATU_KERNEL(adouble, bratu_adolc)

/* The tape's tag: 1 + the rank. A tape beyond ADOL-C's buffers goes to
 * files named by the tag in the working directory (ADOLC-*_TAG.tap), which
 * ranks sharing a directory must not share. */
static short tag = 1;

/* Record the kernel at the local array xl (gxm gym values) on rank's tape. */
extern "C" void bpa_record(int rank, const DMDALocalInfo *info, double lambda, double clip, const double *xl)
{
  tag = (short)(1 + rank);
  const size_t nl = (size_t)info->gxm * (size_t)info->gym, no = (size_t)info->xm * (size_t)info->ym;
  adouble *x = new adouble[nl], *f = new adouble[no];
  double y;
  trace_on(tag);
  for (size_t k = 0; k < nl; k++) x[k] <<= xl[k];
  bratu_adolc(info, lambda, clip, x, f);
  for (size_t k = 0; k < no; k++) f[k] >>= y;
  trace_off();
  delete[] f;
  delete[] x;
}

/* The m x n Jacobian at xl as triplets (sparse_jac's, allocated by ADOL-C
 * on the first call, repeat = 0; free() them); repeat = 1 refills *v in
 * the same order. @return sparse_jac's status (< 0: failed). */
extern "C" int bpa_jacobian(int m, int n, const double *xl, int repeat, int *nnz, unsigned **ri, unsigned **ci,
                            double **v)
{
  int options[4] = {0, 0, 0, 0}; /* index domains, safe, automatic, column compression */
  return sparse_jac(tag, m, n, repeat, xl, nnz, ri, ci, v, options);
}
