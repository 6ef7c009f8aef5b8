/* petsc_bratu.c: PETSc SNES on a distributed 2-D Bratu problem, each MPI rank's Jacobian rows from its own adelim tape. */

/* The problem is the solid-fuel ignition (Bratu) problem of PETSc's SNES
 * tutorial ex5, discretized the same way on an mx x my DMDA grid of the
 * unit square (5-point star stencil, Dirichlet u = 0):
 *   F(u)_ij = (2u - u_W - u_E) hy/hx + (2u - u_S - u_N) hx/hy - hx hy lam e^u
 * inside, F(u)_ij = 2 (hy/hx + hx/hy) u_ij on the boundary.
 *
 * The residual kernel is written once with the ADE_ macros: plain double
 * code for PETSc's residual callback, recording code for adelim. It maps a
 * rank's LOCAL (ghosted) array to the residuals of the points it owns, so
 * every rank records its own tape once, at the initial guess: its owned and
 * ghost points are the independents (the DMDA local vector, in its order),
 * its owned residuals the dependents. The ghost exchange
 * (DMGlobalToLocal) happens before the kernel, outside the tape: no tape
 * holds any communication. At every Newton step the rank evaluates its
 * tape's Jacobian at the new local array through a Jacobian loop
 * (ade_jacobian_loop: plan built once) and inserts its rows with
 * MatSetValuesLocal: the columns are local indices, which the DMDA's
 * local-to-global mapping turns into global ones. The matrix is
 * preallocated from the tape's pattern (diagonal and off-diagonal blocks
 * per row), with new nonzeros an error.
 *
 * The same solve is run with PETSc's colored finite differences: -jac fd
 * installs SNESComputeJacobianDefaultColor, exactly what -snes_fd_color
 * does, with a timer around it. Both runs start from ex5's initial guess.
 *
 * Options (PETSc options, any rank count):
 *   -da_grid_x MX -da_grid_y MY   grid (default 32 x 32)
 *   -par LAMBDA                   0 <= LAMBDA <= 6.81 (default 6)
 *   -clip C                       the source exp(u) turns linear above u = C
 *                                 (default: never): Newton's iterates cross
 *                                 C, a recorded comparison flips and the
 *                                 ranks concerned record their kernel again
 *                                 (the loop's recorder); the pattern stays
 *   -jac adelim|fd|both           the Jacobians to solve with (default both;
 *                                 bench/bench_petsc, this file built with
 *                                 ADOL-C, also takes adolc and all: ADOL-C's
 *                                 sparse_jac on a tape per rank)
 *   -ade_method NAME              the Jacobian loop's method (default
 *                                 cpr-forward: a 5-point stencil needs 5
 *                                 colors; "auto" also tries eliminations,
 *                                 which on a tape of 10^5 records and more
 *                                 costs seconds to minutes once per run)
 *   -ade_memory_limit MIB         each tape's memory limit (default 1024)
 *   -jac_repeat K                 after each solve, time K more Jacobians
 *                                 at the solution (steady state)
 *   -check                        verify and exit nonzero on failure: both
 *                                 runs converge (||F|| <= rtol ||F0||) to the
 *                                 same solution, adelim in no more Newton
 *                                 iterations, and at the first -check_iterates
 *                                 (default 3) Newton iterates every rank's
 *                                 Jacobian rows equal central differences of
 *                                 its local residual (every local column) and
 *                                 the assembled matrix times a random vector
 *                                 equals central differences of the global
 *                                 residual along it; and adelim frees every
 *                                 block it allocates (counted through
 *                                 ade_set_allocator)
 * and any SNES/KSP option (-snes_monitor, -ksp_type, -pc_type, ...).
 * Timings of -check runs include no checking: it is timed and subtracted. */
#include <adelim.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <petscdmda.h>
#include <petscsnes.h>
#include <string.h>

#include "bratu_kernel.h"
BRATU_KERNEL(double, bratu_d)
BRATU_KERNEL(ade_double, bratu_a)

enum { JAC_ADELIM, JAC_FD, JAC_ADOLC, NJAC };

#ifdef BRATU_WITH_ADOLC
/* bench/bench_petsc only (bench/bench_petsc_adolc.cpp): this rank's kernel
 * on an ADOL-C tape, its rows by sparse_jac. */
void bpa_record(int rank, const DMDALocalInfo *info, double lambda, double clip, const double *xl);
int bpa_jacobian(int m, int n, const double *xl, int repeat, int *nnz, unsigned **ri, unsigned **ci, double **v);
#endif

typedef struct app {
  DM da;
  DMDALocalInfo info;
  double lambda, clip;    /* clip: INFINITY, or where the source turns linear */
  int jac;                /* JAC_ADELIM, JAC_FD or JAC_ADOLC */
  int method;             /* the loop's elimination method */
  size_t memory_limit;    /* of each tape, bytes */
  PetscInt repeat;        /* Jacobians at the solution after the solve */
  /* counters of one solve (this rank) */
  long nfunc, njac;
  double jac_seconds, ade_seconds, check_seconds; /* ade_: in ade_jacobian_loop_eval */
  /* adelim: the rank's tape, loop, and its rows' local indices */
  ade_tape *tape;
  ade_jacobian_loop *loop;
  PetscInt *rowloc, *colloc; /* local row of each dependent; J->col as PetscInt */
  int tapes;              /* recorded on this rank */
  /* ADOL-C (bench/bench_petsc): sparse_jac's triplets, and each triplet's
   * place in the CSR rows rowptr/colloc (which then hold ADOL-C's pattern) */
  int a_nnz;
  unsigned *a_ri, *a_ci;
  double *a_v, *a_val;
  size_t *a_rowptr, *a_perm;
  /* -check */
  PetscBool check;
  PetscInt check_iterates;
  double local_err, global_err; /* worst relative errors found */
  long checked;
} app;

static const char *jac_name(int jac) { return jac == JAC_ADELIM ? "adelim" : jac == JAC_FD ? "fd-color" : "ADOL-C"; }

#define ADE_CALL(st)                                                                               \
  do {                                                                                            \
    int ade_st_ = (st);                                                                           \
    PetscCheck(ade_st_ >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "adelim: %s: %s", ade_strerror(ade_st_), \
               ade_errmsg());                                                                     \
  } while (0)

/* The global residual: ghost exchange, then the kernel on the local array. */
static PetscErrorCode residual(app *c, Vec X, Vec F) {
  Vec Xl;
  const PetscScalar *x;
  PetscScalar *f;
  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(c->da, &Xl));
  PetscCall(DMGlobalToLocalBegin(c->da, X, INSERT_VALUES, Xl));
  PetscCall(DMGlobalToLocalEnd(c->da, X, INSERT_VALUES, Xl));
  PetscCall(VecGetArrayRead(Xl, &x));
  PetscCall(VecGetArray(F, &f));
  bratu_d(&c->info, c->lambda, c->clip, x, f);
  PetscCall(VecRestoreArray(F, &f));
  PetscCall(VecRestoreArrayRead(Xl, &x));
  PetscCall(DMRestoreLocalVector(c->da, &Xl));
  PetscFunctionReturn(0);
}

/* SNES's residual callback (also what the colored differences call). */
static PetscErrorCode form_function(SNES snes, Vec X, Vec F, void *ctx) {
  app *c = ctx;
  (void)snes;
  PetscFunctionBeginUser;
  c->nfunc++;
  PetscCall(residual(c, X, F));
  PetscFunctionReturn(0);
}

/* ex5's initial guess. */
static PetscErrorCode initial_guess(app *c, Vec X) {
  const DMDALocalInfo *in = &c->info;
  const double hx = 1.0 / (double)(in->mx - 1), hy = 1.0 / (double)(in->my - 1);
  const double t1 = c->lambda / (c->lambda + 1.0);
  PetscScalar **x;
  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(c->da, X, &x));
  for (PetscInt j = in->ys; j < in->ys + in->ym; j++) {
    double ty = (double)PetscMin(j, in->my - j - 1) * hy;
    for (PetscInt i = in->xs; i < in->xs + in->xm; i++) {
      if (i == 0 || j == 0 || i == in->mx - 1 || j == in->my - 1) x[j][i] = 0.0;
      else x[j][i] = t1 * sqrt(PetscMin((double)PetscMin(i, in->mx - i - 1) * hx, ty));
    }
  }
  PetscCall(DMDAVecRestoreArray(c->da, X, &x));
  PetscFunctionReturn(0);
}

/* The recorder: this rank's local kernel at the local array xl onto a new
 * tape (also the loop's recorder, should a recorded comparison ever flip;
 * this kernel has none). */
static int record(void *ud, const double *xl, ade_tape **t) {
  app *c = ud;
  const size_t nl = (size_t)c->info.gxm * (size_t)c->info.gym, no = (size_t)c->info.xm * (size_t)c->info.ym;
  ade_double *x = malloc(sizeof *x * nl), *f = malloc(sizeof *f * no);
  int st = x && f ? ade_tape_create(t, NULL) : ADE_ENOMEM;
  if (st >= 0) {
    st = ade_trace_on(*t);
    if (st >= 0) {
      for (size_t k = 0; k < nl; k++) x[k] = ade_indep(xl[k]);
      bratu_a(&c->info, c->lambda, c->clip, x, f);
      for (size_t k = 0; k < no; k++) ade_dep(f[k]);
      st = ade_trace_off();
    }
    if (st >= 0) ade_tape_set_memory_limit(*t, c->memory_limit);
    if (st < 0) ade_tape_free(*t), *t = NULL;
  }
  c->tapes++;
  free(x);
  free(f);
  return st;
}

/* A matrix preallocated from the pattern of the rank's rows (CSR: rowptr,
 * local columns c->colloc), with the DMDA's local-to-global mapping: *J.
 * Also fills c->rowloc, each dependent's local row. */
static PetscErrorCode preallocate(app *c, Vec X, const size_t *rowptr, Mat *J) {
  const DMDALocalInfo *in = &c->info;
  const PetscInt no = in->xm * in->ym, nnz = (PetscInt)rowptr[no];
  ISLocalToGlobalMapping ltog;
  PetscInt *gcol, *d_nnz, *o_nnz, rstart, rend, k = 0;
  PetscFunctionBeginUser;
  /* The local columns mapped to global ones once, to count the diagonal
   * and off-diagonal block entries of each row. */
  PetscCall(PetscMalloc3(nnz, &gcol, no, &d_nnz, no, &o_nnz));
  for (PetscInt j = in->ys; j < in->ys + in->ym; j++)
    for (PetscInt i = in->xs; i < in->xs + in->xm; i++) c->rowloc[k++] = (j - in->gys) * in->gxm + (i - in->gxs);
  PetscCall(DMGetLocalToGlobalMapping(c->da, &ltog));
  PetscCall(ISLocalToGlobalMappingApply(ltog, nnz, c->colloc, gcol));
  PetscCall(VecGetOwnershipRange(X, &rstart, &rend));
  for (PetscInt r = 0; r < no; r++) {
    d_nnz[r] = o_nnz[r] = 0;
    for (size_t e = rowptr[r]; e < rowptr[r + 1]; e++) {
      if (gcol[e] >= rstart && gcol[e] < rend) d_nnz[r]++;
      else o_nnz[r]++;
    }
  }
  PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)X), no, no, PETSC_DETERMINE, PETSC_DETERMINE, 0, d_nnz, 0,
                         o_nnz, J));
  PetscCall(MatSetLocalToGlobalMapping(*J, ltog, ltog));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree3(gcol, d_nnz, o_nnz));
  PetscFunctionReturn(0);
}

/* Record at X, make the loop, and a matrix preallocated from the pattern
 * with the DMDA's local-to-global mapping: *J. */
static PetscErrorCode adelim_setup(app *c, Vec X, Mat *J) {
  const DMDALocalInfo *in = &c->info;
  const PetscInt no = in->xm * in->ym, nl = in->gxm * in->gym;
  Vec Xl;
  const PetscScalar *xl;
  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(c->da, &Xl));
  PetscCall(VecSet(Xl, 0.0)); /* the star stencil's corner ghosts are never filled */
  PetscCall(DMGlobalToLocalBegin(c->da, X, INSERT_VALUES, Xl));
  PetscCall(DMGlobalToLocalEnd(c->da, X, INSERT_VALUES, Xl));
  PetscCall(VecGetArrayRead(Xl, &xl));
  ADE_CALL(record(c, xl, &c->tape));
  PetscCall(VecRestoreArrayRead(Xl, &xl));
  PetscCall(DMRestoreLocalVector(c->da, &Xl));
  ADE_CALL(ade_jacobian_loop_create(&c->loop, c->tape, c->method, NULL));
  ade_jacobian_loop_set_recorder(c->loop, record, c);
  const ade_sparse *P = ade_jacobian_loop_matrix(c->loop);
  PetscCheck(P->m == (size_t)no && P->n == (size_t)nl, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tape is %zu x %zu",
             P->m, P->n);
  PetscCall(PetscMalloc2(no, &c->rowloc, (PetscInt)P->nnz, &c->colloc));
  for (size_t e = 0; e < P->nnz; e++) c->colloc[e] = (PetscInt)P->col[e];
  PetscCall(preallocate(c, X, P->rowptr, J));
  PetscFunctionReturn(0);
}

/* -check, oracle 1: the rank's Jacobian rows J (at the local array xl)
 * against central differences of the local kernel in every local column. */
static PetscErrorCode check_local_rows(app *c, const double *xl, const ade_sparse *J) {
  const size_t m = J->m, n = J->n;
  double *D, *x, *fp, *fm, worst = 0, scale = 0;
  PetscFunctionBeginUser;
  PetscCheck(m * n <= ((size_t)1 << 24), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "-check compares dense local Jacobians: use a smaller grid (at most 4096 points per rank)");
  PetscCall(PetscMalloc4(m * n, &D, n, &x, m, &fp, m, &fm));
  ADE_CALL(ade_sparse_to_dense(J, D));
  memcpy(x, xl, sizeof *x * n);
  for (size_t e = 0; e < J->nnz; e++) scale = fmax(scale, fabs(J->val[e]));
  for (size_t q = 0; q < n; q++) {
    /* h = eps^(1/3) |x|: truncation and rounding error both ~ eps^(2/3) */
    const double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(xl[q]));
    x[q] = xl[q] + h;
    bratu_d(&c->info, c->lambda, c->clip, x, fp);
    x[q] = xl[q] - h;
    bratu_d(&c->info, c->lambda, c->clip, x, fm);
    x[q] = xl[q];
    for (size_t r = 0; r < m; r++) {
      const double fd = (fp[r] - fm[r]) / (2 * h);
      worst = fmax(worst, fabs(fd - D[r * n + q]) / (1.0 + scale));
    }
  }
  c->local_err = fmax(c->local_err, worst);
  PetscCall(PetscFree4(D, x, fp, fm));
  PetscFunctionReturn(0);
}

/* -check, oracle 2: the assembled A times a random v against central
 * differences of the global residual (ghost exchange included) along v. */
static PetscErrorCode check_global(app *c, Vec X, Mat A) {
  Vec v, Av, xp, fp, fm;
  PetscRandom rnd;
  PetscReal xnorm, dnorm, anorm;
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(X, &v));
  PetscCall(VecDuplicate(X, &Av));
  PetscCall(VecDuplicate(X, &xp));
  PetscCall(VecDuplicate(X, &fp));
  PetscCall(VecDuplicate(X, &fm));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)X), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(1000 + c->checked)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(v, rnd));
  PetscCall(VecNorm(X, NORM_INFINITY, &xnorm));
  const double h = cbrt(DBL_EPSILON) * fmax(1.0, xnorm);
  PetscCall(VecWAXPY(xp, h, v, X));
  PetscCall(residual(c, xp, fp));
  PetscCall(VecWAXPY(xp, -h, v, X));
  PetscCall(residual(c, xp, fm));
  PetscCall(VecAXPY(fp, -1.0, fm));
  PetscCall(VecScale(fp, 1.0 / (2 * h))); /* (F(x + hv) - F(x - hv)) / 2h */
  PetscCall(MatMult(A, v, Av));
  PetscCall(VecNorm(Av, NORM_INFINITY, &anorm));
  PetscCall(VecAXPY(fp, -1.0, Av));
  PetscCall(VecNorm(fp, NORM_INFINITY, &dnorm));
  c->global_err = fmax(c->global_err, dnorm / (1.0 + anorm));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&Av));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&fm));
  PetscFunctionReturn(0);
}

/* SNES's Jacobian callback, adelim: ghost exchange, this rank's rows from
 * its tape at the new local array, inserted by local indices. */
static PetscErrorCode jac_adelim(SNES snes, Vec X, Mat A, Mat B, void *ctx) {
  app *c = ctx;
  const double t0 = MPI_Wtime();
  Vec Xl;
  const PetscScalar *xl;
  const ade_sparse *J;
  (void)snes;
  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(c->da, &Xl));
  PetscCall(DMGlobalToLocalBegin(c->da, X, INSERT_VALUES, Xl));
  PetscCall(DMGlobalToLocalEnd(c->da, X, INSERT_VALUES, Xl));
  PetscCall(VecGetArrayRead(Xl, &xl));
  const double t1 = MPI_Wtime();
  int st = ade_jacobian_loop_eval(c->loop, xl, &J);
  c->ade_seconds += MPI_Wtime() - t1;
  ADE_CALL(st);
  /* A grown pattern (a re-recorded path with new entries) would not fit the
   * preallocated matrix: say so rather than let PETSc allocate silently. */
  PetscCheck(st != ADE_WPATTERN, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "adelim: the Jacobian's pattern grew after a re-recording; preallocate for the union of the paths");
  for (size_t r = 0; r < J->m; r++) {
    const size_t b = J->rowptr[r];
    PetscCall(MatSetValuesLocal(B, 1, &c->rowloc[r], (PetscInt)(J->rowptr[r + 1] - b), c->colloc + b, J->val + b,
                                INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (A != B) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  c->jac_seconds += MPI_Wtime() - t0;
  c->njac++;
  if (c->check && c->checked < c->check_iterates) {
    const double t2 = MPI_Wtime();
    PetscCall(check_local_rows(c, xl, J));
    PetscCall(check_global(c, X, B));
    c->checked++;
    c->check_seconds += MPI_Wtime() - t2;
  }
  PetscCall(VecRestoreArrayRead(Xl, &xl));
  PetscCall(DMRestoreLocalVector(c->da, &Xl));
  PetscFunctionReturn(0);
}

/* SNES's Jacobian callback, colored finite differences: what -snes_fd_color
 * installs (SNESSetFromOptions), timed. */
static PetscErrorCode jac_fd(SNES snes, Vec X, Mat A, Mat B, void *ctx) {
  app *c = ctx;
  const double t0 = MPI_Wtime();
  PetscFunctionBeginUser;
  PetscCall(SNESComputeJacobianDefaultColor(snes, X, A, B, NULL));
  c->jac_seconds += MPI_Wtime() - t0;
  c->njac++;
  PetscFunctionReturn(0);
}

#ifdef BRATU_WITH_ADOLC
/* Tape the kernel with ADOL-C at X, run the first sparse_jac (pattern and
 * coloring), put its triplets in CSR order (c->a_perm) and preallocate. */
static PetscErrorCode adolc_setup(app *c, Vec X, Mat *J) {
  const DMDALocalInfo *in = &c->info;
  const PetscInt no = in->xm * in->ym, nl = in->gxm * in->gym;
  Vec Xl;
  const PetscScalar *xl;
  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(c->da, &Xl));
  PetscCall(VecSet(Xl, 0.0));
  PetscCall(DMGlobalToLocalBegin(c->da, X, INSERT_VALUES, Xl));
  PetscCall(DMGlobalToLocalEnd(c->da, X, INSERT_VALUES, Xl));
  PetscCall(VecGetArrayRead(Xl, &xl));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)X), &rank));
  bpa_record((int)rank, in, c->lambda, c->clip, xl);
  int st = bpa_jacobian((int)no, (int)nl, xl, 0, &c->a_nnz, &c->a_ri, &c->a_ci, &c->a_v);
  PetscCall(VecRestoreArrayRead(Xl, &xl));
  PetscCall(DMRestoreLocalVector(c->da, &Xl));
  PetscCheck(st >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "ADOL-C: sparse_jac failed (%d)", st);
  const size_t nnz = (size_t)c->a_nnz;
  size_t *next;
  PetscCall(PetscMalloc2(no, &c->rowloc, (PetscInt)nnz, &c->colloc));
  PetscCall(PetscMalloc3(no + 1, &c->a_rowptr, (PetscInt)nnz, &c->a_perm, (PetscInt)nnz, &c->a_val));
  PetscCall(PetscCalloc1(no + 1, &next));
  for (PetscInt r = 0; r <= no; r++) c->a_rowptr[r] = 0;
  for (size_t k = 0; k < nnz; k++) c->a_rowptr[c->a_ri[k] + 1]++;
  for (PetscInt r = 0; r < no; r++) c->a_rowptr[r + 1] += c->a_rowptr[r], next[r] = c->a_rowptr[r];
  for (size_t k = 0; k < nnz; k++) c->a_perm[k] = next[c->a_ri[k]]++, c->colloc[c->a_perm[k]] = (PetscInt)c->a_ci[k];
  PetscCall(PetscFree(next));
  PetscCall(preallocate(c, X, c->a_rowptr, J));
  c->tapes = 1;
  PetscFunctionReturn(0);
}

/* SNES's Jacobian callback, ADOL-C: ghost exchange, sparse_jac (repeat 1)
 * at the new local array, its values scattered into CSR rows and inserted
 * as adelim's are. */
static PetscErrorCode jac_adolc(SNES snes, Vec X, Mat A, Mat B, void *ctx) {
  app *c = ctx;
  const double t0 = MPI_Wtime();
  const PetscInt no = c->info.xm * c->info.ym, nl = c->info.gxm * c->info.gym;
  Vec Xl;
  const PetscScalar *xl;
  (void)snes;
  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(c->da, &Xl));
  PetscCall(DMGlobalToLocalBegin(c->da, X, INSERT_VALUES, Xl));
  PetscCall(DMGlobalToLocalEnd(c->da, X, INSERT_VALUES, Xl));
  PetscCall(VecGetArrayRead(Xl, &xl));
  const double t1 = MPI_Wtime();
  int st = bpa_jacobian((int)no, (int)nl, xl, 1, &c->a_nnz, &c->a_ri, &c->a_ci, &c->a_v);
  c->ade_seconds += MPI_Wtime() - t1;
  PetscCheck(st >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "ADOL-C: sparse_jac failed (%d)", st);
  PetscCall(VecRestoreArrayRead(Xl, &xl));
  PetscCall(DMRestoreLocalVector(c->da, &Xl));
  for (int k = 0; k < c->a_nnz; k++) c->a_val[c->a_perm[k]] = c->a_v[k];
  for (PetscInt r = 0; r < no; r++) {
    const size_t b = c->a_rowptr[r];
    PetscCall(MatSetValuesLocal(B, 1, &c->rowloc[r], (PetscInt)(c->a_rowptr[r + 1] - b), c->colloc + b,
                                c->a_val + b, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (A != B) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  c->jac_seconds += MPI_Wtime() - t0;
  c->njac++;
  PetscFunctionReturn(0);
}
#endif

typedef struct result {
  PetscInt its, lits;
  SNESConvergedReason reason;
  PetscReal fnorm0, fnorm, rtol;
  long nfunc, njac;
  double jac_seconds, ade_seconds, solve_seconds, setup_seconds; /* max over ranks */
  double repeat_seconds;                                          /* per Jacobian, max over ranks */
  int method;                                                     /* adelim's, as chosen */
  double local_err, global_err;                     /* max over ranks */
  long checked;
  uint64_t records, nnz; /* summed over ranks (adelim) */
  uint64_t retapes;      /* tapes recorded again after a branch flipped, all ranks */
  int tapes;             /* max over ranks */
  int jac;               /* which Jacobians */
  Vec u;
} result;

static PetscErrorCode max_over_ranks(MPI_Comm comm, double *v, int n) {
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/* One Newton solve from the initial guess with c->jac's Jacobians. */
static PetscErrorCode solve(app *c, result *res) {
  MPI_Comm comm = PetscObjectComm((PetscObject)c->da);
  SNES snes;
  Mat J = NULL;
  Vec F;
  double t0, setup = 0;
  PetscReal atol, stol;
  PetscInt maxit, maxf;
  PetscFunctionBeginUser;
  c->nfunc = c->njac = c->checked = 0;
  c->jac_seconds = c->ade_seconds = c->check_seconds = c->local_err = c->global_err = 0;
  PetscCall(DMCreateGlobalVector(c->da, &res->u));
  PetscCall(VecDuplicate(res->u, &F));
  PetscCall(initial_guess(c, res->u));
  PetscCall(SNESCreate(comm, &snes));
  PetscCall(SNESSetDM(snes, c->da));
  PetscCall(SNESSetFunction(snes, F, form_function, c));
  PetscCallMPI(MPI_Barrier(comm));
  if (c->jac == JAC_ADELIM) {
    t0 = MPI_Wtime();
    PetscCall(adelim_setup(c, res->u, &J));
    setup = MPI_Wtime() - t0;
    PetscCall(SNESSetJacobian(snes, J, J, jac_adelim, c));
#ifdef BRATU_WITH_ADOLC
  } else if (c->jac == JAC_ADOLC) {
    t0 = MPI_Wtime();
    PetscCall(adolc_setup(c, res->u, &J));
    setup = MPI_Wtime() - t0;
    PetscCall(SNESSetJacobian(snes, J, J, jac_adolc, c));
#endif
  } else {
    PetscCall(SNESSetJacobian(snes, NULL, NULL, jac_fd, c));
  }
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(residual(c, res->u, F));
  PetscCall(VecNorm(F, NORM_2, &res->fnorm0));
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  PetscCall(SNESSolve(snes, NULL, res->u));
  double times[6] = {MPI_Wtime() - t0 - c->check_seconds, c->jac_seconds, setup, c->local_err, c->global_err,
                     c->ade_seconds};
  PetscCall(max_over_ranks(comm, times, 6));
  res->ade_seconds = times[5];
  res->solve_seconds = times[0], res->jac_seconds = times[1], res->setup_seconds = times[2];
  res->local_err = times[3], res->global_err = times[4];
  PetscCall(SNESGetIterationNumber(snes, &res->its));
  PetscCall(SNESGetLinearSolveIterations(snes, &res->lits));
  PetscCall(SNESGetConvergedReason(snes, &res->reason));
  PetscCall(SNESGetTolerances(snes, &atol, &res->rtol, &stol, &maxit, &maxf));
  PetscCall(residual(c, res->u, F));
  PetscCall(VecNorm(F, NORM_2, &res->fnorm));
  res->nfunc = c->nfunc, res->njac = c->njac, res->checked = c->checked, res->jac = c->jac;
  res->repeat_seconds = 0;
  if (c->repeat > 0) { /* steady state: the Jacobian at the solution, repeat times */
    Mat A, B;
    PetscCall(SNESGetJacobian(snes, &A, &B, NULL, NULL));
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    for (PetscInt k = 0; k < c->repeat; k++) PetscCall(SNESComputeJacobian(snes, res->u, A, B));
    res->repeat_seconds = (MPI_Wtime() - t0) / (double)c->repeat;
    PetscCall(max_over_ranks(comm, &res->repeat_seconds, 1));
  }
  res->records = res->nnz = res->retapes = 0, res->tapes = c->tapes;
  if (c->loop) {
    ade_stats s;
    ade_jacobian_loop_stats ls;
    ADE_CALL(ade_tape_stats(ade_jacobian_loop_tape(c->loop), &s));
    ade_jacobian_loop_report(c->loop, &ls);
    res->method = ls.method;
    uint64_t v[3] = {s.records, ade_jacobian_loop_matrix(c->loop)->nnz, ls.retapes};
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_SUM, comm));
    res->records = v[0], res->nnz = v[1], res->retapes = v[2];
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &res->tapes, 1, MPI_INT, MPI_MAX, comm));
  }
  ade_jacobian_loop_free(c->loop);
  ade_tape_free(c->tape);
  c->loop = NULL, c->tape = NULL, c->tapes = 0;
  if (c->rowloc) PetscCall(PetscFree2(c->rowloc, c->colloc));
  if (c->a_rowptr) PetscCall(PetscFree3(c->a_rowptr, c->a_perm, c->a_val));
  free(c->a_ri), free(c->a_ci), free(c->a_v);
  c->a_ri = c->a_ci = NULL, c->a_v = NULL, c->a_nnz = 0, c->tapes = 0;
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&F));
  PetscCall(SNESDestroy(&snes));
  PetscFunctionReturn(0);
}

static PetscErrorCode print_result(MPI_Comm comm, const char *name, const result *r) {
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "%-9s %s after %" PetscInt_FMT " Newton / %" PetscInt_FMT
                              " linear iterations; |F| %.3e -> %.3e (rtol %.0e)\n",
                        name, r->reason > 0 ? "converged" : "DIVERGED", r->its, r->lits, (double)r->fnorm0,
                        (double)r->fnorm, (double)r->rtol));
  PetscCall(PetscPrintf(comm,
                        "%-9s residual evaluations %ld, Jacobians %ld, %.3f ms per Jacobian, solve %.3f s"
                        " (%.0f%% in Jacobians)\n",
                        "", r->nfunc, r->njac, r->njac ? 1e3 * r->jac_seconds / (double)r->njac : 0.0,
                        r->solve_seconds, r->solve_seconds > 0 ? 100 * r->jac_seconds / r->solve_seconds : 0.0));
  if (r->records)
    PetscCall(PetscPrintf(comm,
                          "%-9s tapes (all ranks) %" PRIu64 " records, %" PRIu64
                          " Jacobian entries; record + plan (%s) + preallocation %.3f s (once);\n"
                          "%-9s %.3f ms per Jacobian in adelim, the rest inserting and assembling\n",
                          "", r->records, r->nnz, ade_elim_method_name(r->method), r->setup_seconds, "",
                          r->njac ? 1e3 * r->ade_seconds / (double)r->njac : 0.0));
  if (r->records)
    PetscCall(PetscPrintf(comm, "%-9s tapes recorded again after a branch flipped: %" PRIu64 " (all ranks)\n", "",
                          r->retapes));
  if (r->jac == JAC_ADOLC)
    PetscCall(PetscPrintf(comm,
                          "%-9s tape + first sparse_jac (pattern, coloring) + preallocation %.3f s (once);\n"
                          "%-9s %.3f ms per Jacobian in sparse_jac, the rest inserting and assembling\n",
                          "", r->setup_seconds, "", r->njac ? 1e3 * r->ade_seconds / (double)r->njac : 0.0));
  if (r->repeat_seconds > 0)
    PetscCall(PetscPrintf(comm, "%-9s %.3f ms per Jacobian at the solution (steady state, -jac_repeat)\n", "",
                          1e3 * r->repeat_seconds));
  PetscFunctionReturn(0);
}

/* -check: the verdicts; *ok = 0 on any failure. */
static PetscErrorCode verify(MPI_Comm comm, const app *c, const result *ad, const result *fd, int *ok) {
  Vec d;
  PetscReal diff, unorm;
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(ad->u, &d));
  PetscCall(VecWAXPY(d, -1.0, fd->u, ad->u));
  PetscCall(VecNorm(d, NORM_INFINITY, &diff));
  PetscCall(VecNorm(ad->u, NORM_INFINITY, &unorm));
  PetscCall(VecDestroy(&d));
  /* The error of a solution with ||F|| <= rtol ||F0|| is at most ||J^-1||
   * times that; 1e3 rtol covers ||J^-1|| ||F0|| on the test's grids. */
  const double tol_u = 1e3 * (double)ad->rtol * fmax(1.0, (double)unorm);
  /* Central differences are good to about eps^(2/3) relative. */
  const double tol_fd = 100 * pow(DBL_EPSILON, 2.0 / 3.0);
  struct {
    const char *what;
    int pass;
  } v[] = {
      {"fd-color converged, |F| <= rtol |F0|", fd->reason > 0 && fd->fnorm <= fd->rtol * fd->fnorm0},
      {"adelim converged, |F| <= rtol |F0|", ad->reason > 0 && ad->fnorm <= ad->rtol * ad->fnorm0},
      {"adelim in no more Newton iterations", ad->its <= fd->its},
      {"the same solution", diff <= tol_u},
      {"Jacobians checked at some iterates", ad->checked > 0},
      {"each rank's rows = central differences of its local residual", ad->local_err <= tol_fd},
      {"assembled J v = central differences of the global residual", ad->global_err <= tol_fd},
      {"-clip: a branch flipped and a rank recorded again", ad->retapes > 0},
  };
  PetscCall(PetscPrintf(comm, "check: |u_adelim - u_fd|_inf = %.2e (tolerance %.1e); Jacobians checked at %ld iterates:"
                              " worst local error %.1e, global %.1e (tolerance %.1e)\n",
                        (double)diff, tol_u, ad->checked, ad->local_err, ad->global_err, tol_fd));
  for (size_t k = 0; k < sizeof v / sizeof v[0] - !isfinite(c->clip); k++) {
    PetscCall(PetscPrintf(comm, "check: %s: %s\n", v[k].what, v[k].pass ? "ok" : "FAILED"));
    if (!v[k].pass) *ok = 0;
  }
  PetscFunctionReturn(0);
}

/* -check: adelim's allocator hook, counting the blocks it holds, so that
 * the run itself shows adelim freed everything (LeakSanitizer cannot tell
 * MPI's own leaks apart under mpiexec: examples/petsc.test). */
static void *counting_alloc(void *ud, void *p, size_t n) {
  long *live = ud;
  if (n == 0) {
    if (p) free(p), (*live)--;
    return NULL;
  }
  void *q = realloc(p, n);
  if (q && !p) (*live)++;
  return q;
}

int main(int argc, char **argv) {
  app c;
  result res[NJAC];
  char jac[16] = "both", method[32] = "cpr-forward";
  PetscMPIInt size;
  PetscReal unorm;
  int ok = 1, run[NJAC];
  long live = 0; /* -check: blocks adelim holds */
  memset(&c, 0, sizeof c);
  memset(res, 0, sizeof res);
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  MPI_Comm comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  c.lambda = 6.0;
  c.clip = INFINITY;
  c.check_iterates = 3;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-par", &c.lambda, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-clip", &c.clip, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-jac", jac, sizeof jac, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-check", &c.check));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ade_method", method, sizeof method, NULL));
  c.method = ade_elim_method_parse(method);
  PetscCheck(c.method >= 0, comm, PETSC_ERR_ARG_WRONG, "-ade_method: auto, cpr-forward, cpr-reverse or an ordering");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-check_iterates", &c.check_iterates, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-jac_repeat", &c.repeat, NULL));
  PetscInt mib = 1024;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ade_memory_limit", &mib, NULL));
  PetscCheck(mib > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ade_memory_limit: MiB > 0");
  c.memory_limit = (size_t)mib << 20;
  PetscCheck(c.lambda >= 0 && c.lambda <= 6.81, comm, PETSC_ERR_ARG_OUTOFRANGE, "-par: lambda in [0, 6.81]");
  const int all = !strcmp(jac, "all");
  run[JAC_FD] = !strcmp(jac, "fd") || !strcmp(jac, "both") || all;
  run[JAC_ADELIM] = !strcmp(jac, "adelim") || !strcmp(jac, "both") || all;
  run[JAC_ADOLC] = 0;
#ifdef BRATU_WITH_ADOLC
  run[JAC_ADOLC] = !strcmp(jac, "adolc") || all;
  PetscCheck(!run[JAC_ADOLC] || isinf(c.clip), comm, PETSC_ERR_ARG_WRONG,
             "-clip: ADOL-C's tape would not see the branch flip; not with -jac adolc|all");
#endif
  PetscCheck(run[0] || run[1] || run[2], comm, PETSC_ERR_ARG_WRONG, "-jac adelim|fd|both (bench_petsc: |adolc|all)");
  PetscCheck(!c.check || (run[0] && run[1]), comm, PETSC_ERR_ARG_WRONG, "-check needs -jac both");
  if (c.check) ade_set_allocator(counting_alloc, &live);
  PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 32, 32, PETSC_DECIDE,
                         PETSC_DECIDE, 1, 1, NULL, NULL, &c.da));
  PetscCall(DMSetFromOptions(c.da));
  PetscCall(DMSetUp(c.da));
  PetscCall(DMDAGetLocalInfo(c.da, &c.info));
  PetscCall(PetscPrintf(comm, "Bratu (SNES ex5) on a %" PetscInt_FMT " x %" PetscInt_FMT
                              " grid, lambda %g, clip %g, %d rank(s); Newton, each rank's Jacobian rows from its own tape\n",
                        c.info.mx, c.info.my, c.lambda, c.clip, (int)size));
  for (int k = JAC_FD; k >= JAC_ADELIM; k--) { /* fd first, as the reference */
    if (!run[k]) continue;
    c.jac = k;
    PetscCall(solve(&c, &res[k]));
    PetscCall(print_result(comm, jac_name(k), &res[k]));
  }
  if (run[JAC_ADOLC]) {
    c.jac = JAC_ADOLC;
    PetscCall(solve(&c, &res[JAC_ADOLC]));
    PetscCall(print_result(comm, jac_name(JAC_ADOLC), &res[JAC_ADOLC]));
  }
  if (run[JAC_ADELIM] && run[JAC_FD]) {
    const result *a = &res[JAC_ADELIM], *f = &res[JAC_FD];
    if (a->repeat_seconds > 0)
      PetscCall(PetscPrintf(comm, "fd-color / adelim: time per Jacobian at the solution %.2f\n",
                            f->repeat_seconds / a->repeat_seconds));
    PetscCall(PetscPrintf(comm, "fd-color / adelim: time per Jacobian %.2f, solve time %.2f, residual evaluations %.1f\n",
                          a->jac_seconds > 0 && a->njac ? (f->jac_seconds / (double)f->njac) / (a->jac_seconds / (double)a->njac) : 0.0,
                          a->solve_seconds > 0 ? f->solve_seconds / a->solve_seconds : 0.0,
                          a->nfunc ? (double)f->nfunc / (double)a->nfunc : 0.0));
  }
  if (run[JAC_ADOLC] && run[JAC_ADELIM]) {
    const result *a = &res[JAC_ADELIM], *o = &res[JAC_ADOLC];
    if (a->repeat_seconds > 0)
      PetscCall(PetscPrintf(comm, "ADOL-C / adelim: time per Jacobian at the solution %.2f\n",
                            o->repeat_seconds / a->repeat_seconds));
    PetscCall(PetscPrintf(comm, "ADOL-C / adelim: time per Jacobian %.2f, solve time %.2f\n",
                          a->jac_seconds > 0 && a->njac ? (o->jac_seconds / (double)o->njac) / (a->jac_seconds / (double)a->njac) : 0.0,
                          a->solve_seconds > 0 ? o->solve_seconds / a->solve_seconds : 0.0));
  }
  for (int k = 0; k < NJAC; k++)
    if (run[k]) {
      PetscCall(VecNorm(res[k].u, NORM_2, &unorm));
      PetscCall(PetscPrintf(comm, "solution %s: |u|_2 = %.12e\n", jac_name(k), (double)unorm));
    }
  if (c.check) {
    PetscCall(verify(comm, &c, &res[JAC_ADELIM], &res[JAC_FD], &ok));
    /* every tape, loop and plan is freed by now (solve) */
    long held = live;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_LONG, MPI_MAX, comm));
    PetscCall(PetscPrintf(comm, "check: adelim freed every block it allocated (%ld left): %s\n", held,
                          held == 0 ? "ok" : "FAILED"));
    if (held != 0) ok = 0;
  }
  for (int k = 0; k < NJAC; k++) PetscCall(VecDestroy(&res[k].u));
  PetscCall(DMDestroy(&c.da));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
