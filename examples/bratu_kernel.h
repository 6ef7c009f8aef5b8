/* bratu_kernel.h: the local residual kernel of petsc_bratu.c, written once over the ADE_ macros (also instantiated for ADOL-C's adouble by bench/bench_petsc_adolc.cpp). */
#ifndef BRATU_KERNEL_H
#define BRATU_KERNEL_H

/* F for the points this rank owns from its ghosted local array x
 * (gxm x gym, row-major) into f (xm x ym), for real = double or ade_double.
 * With a finite clip the source is exp(u) below u = clip and its tangent
 * exp(clip) (1 + u - clip) above (C^1): a recorded comparison per point. */
#define BRATU_KERNEL(real, name)                                                            \
  static void name(const DMDALocalInfo *info, double lambda, double clip, const real *x, real *f) { \
    const PetscInt mx = info->mx, my = info->my, gxm = info->gxm;                         \
    const double hx = 1.0 / (double)(mx - 1), hy = 1.0 / (double)(my - 1);                \
    const double sc = hx * hy * lambda, hxdhy = hx / hy, hydhx = hy / hx;                 \
    for (PetscInt j = info->ys; j < info->ys + info->ym; j++)                               \
      for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {                           \
        const real *u = x + (j - info->gys) * gxm + (i - info->gxs);                        \
        real *r = f + (j - info->ys) * info->xm + (i - info->xs);                           \
        if (i == 0 || j == 0 || i == mx - 1 || j == my - 1) {                               \
          *r = ADE_MUL(2.0 * (hydhx + hxdhy), u[0]);                                        \
        } else {                                                                            \
          real two_u = ADE_MUL(2.0, u[0]);                                                  \
          real uxx = ADE_MUL(hydhx, ADE_SUB(ADE_SUB(two_u, u[-1]), u[1]));                  \
          real uyy = ADE_MUL(hxdhy, ADE_SUB(ADE_SUB(two_u, u[-gxm]), u[gxm]));              \
          real g = isinf(clip) || ADE_LT(u[0], clip) ? ADE_EXP(u[0])                        \
                                                     : ADE_MUL(exp(clip), ADE_ADD(1.0 - clip, u[0])); \
          *r = ADE_SUB(ADE_ADD(uxx, uyy), ADE_MUL(sc, g));                                  \
        }                                                                                   \
      }                                                                                     \
  }
#endif /* BRATU_KERNEL_H */
