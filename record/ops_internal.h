/* ops_internal.h: the operation table, one row per elemental operation. */
#ifndef ADE_OPS_INTERNAL_H
#define ADE_OPS_INTERNAL_H

#include <math.h>
#include <stdint.h>

/* Row flags. */
#define ADE__STORE 1u   /* result value is stored: not bit-exactly recomputable */
#define ADE__PASSIVE 2u /* result carries no derivative (partials are all 0) */

/* X(NAME, "name", arity, flags). The row order is the opcode: it is part of
 * the tape format (doc/tape-format.md), so rows are only ever appended.
 * Every row has two rules in ops_rules.h:
 *   double ade__val_NAME(const double *a)           r = f(a[0..arity-1])
 *   int ade__der_NAME(const double *a, double r, double *d, double *h)
 *     first partials d[i] = df/da_i, second partials packed lower triangle
 *     h[i*(i+1)/2 + j] = d2f/da_i da_j (j <= i), from the operands and the
 *     result r; returns 0 or an ade_diag_kind for a non-differentiable point.
 *   int ade__chk_NAME(const double *a, double r)
 *     the same diagnosis without computing partials (cheap: run while
 *     recording); 0 or an ade_diag_kind.
 *   ade__opsrc ade__src_NAME(void)
 *     the value and first partials as C source text, made by the rule
 *     macros from the same tokens (code generation, elim/codegen.c).
 * Operands may be constants on the tape; their partials are then unused. */
#define ADE_OPS(X)                                                             \
  X(INDEP, "indep", 0, ADE__STORE)       /* r = x_i (an independent) */        \
  X(DEP, "dep", 1, 0)                    /* r = a (marks a dependent) */       \
  X(ADD, "add", 2, 0)                    /* r = a + b */                       \
  X(SUB, "sub", 2, 0)                    /* r = a - b */                       \
  X(MUL, "mul", 2, 0)                    /* r = a * b */                       \
  X(DIV, "div", 2, 0)                    /* r = a / b */                       \
  X(NEG, "neg", 1, 0)                    /* r = -a */                          \
  X(SQUARE, "square", 1, 0)              /* r = a * a */                       \
  X(FMA, "fma", 3, 0)                    /* r = fma(a, b, c) = a*b + c */      \
  X(SQRT, "sqrt", 1, 0)                  /* r = sqrt(a), correctly rounded */  \
  X(CBRT, "cbrt", 1, ADE__STORE)         /* r = cbrt(a) */                     \
  X(EXP, "exp", 1, ADE__STORE)           /* r = exp(a) */                      \
  X(EXPM1, "expm1", 1, ADE__STORE)       /* r = exp(a) - 1 */                  \
  X(LOG, "log", 1, ADE__STORE)           /* r = log(a) */                      \
  X(LOG1P, "log1p", 1, ADE__STORE)       /* r = log(1 + a) */                  \
  X(LOG10, "log10", 1, ADE__STORE)       /* r = log10(a) */                    \
  X(POW, "pow", 2, ADE__STORE)           /* r = a ^ b */                       \
  X(SIN, "sin", 1, ADE__STORE)           /* r = sin(a) */                      \
  X(COS, "cos", 1, ADE__STORE)           /* r = cos(a) */                      \
  X(TAN, "tan", 1, ADE__STORE)           /* r = tan(a) */                      \
  X(ASIN, "asin", 1, ADE__STORE)         /* r = asin(a) */                     \
  X(ACOS, "acos", 1, ADE__STORE)         /* r = acos(a) */                     \
  X(ATAN, "atan", 1, ADE__STORE)         /* r = atan(a) */                     \
  X(ATAN2, "atan2", 2, ADE__STORE)       /* r = atan2(a, b) */                 \
  X(SINH, "sinh", 1, ADE__STORE)         /* r = sinh(a) */                     \
  X(COSH, "cosh", 1, ADE__STORE)         /* r = cosh(a) */                     \
  X(TANH, "tanh", 1, ADE__STORE)         /* r = tanh(a) */                     \
  X(ASINH, "asinh", 1, ADE__STORE)       /* r = asinh(a) */                    \
  X(ACOSH, "acosh", 1, ADE__STORE)       /* r = acosh(a) */                    \
  X(ATANH, "atanh", 1, ADE__STORE)       /* r = atanh(a) */                    \
  X(ERF, "erf", 1, ADE__STORE)           /* r = erf(a) */                      \
  X(ERFC, "erfc", 1, ADE__STORE)         /* r = erfc(a) */                     \
  X(HYPOT, "hypot", 2, ADE__STORE)       /* r = hypot(a, b) */                 \
  X(FABS, "fabs", 1, 0)                  /* r = |a| */                         \
  X(FMIN, "fmin", 2, 0)                  /* r = fmin(a, b) */                  \
  X(FMAX, "fmax", 2, 0)                  /* r = fmax(a, b) */                  \
  X(COPYSIGN, "copysign", 2, 0)          /* r = copysign(a, b) */              \
  X(FLOOR, "floor", 1, ADE__PASSIVE)     /* r = floor(a), no derivative */     \
  X(CEIL, "ceil", 1, ADE__PASSIVE)       /* r = ceil(a), no derivative */      \
  X(TRUNC, "trunc", 1, ADE__PASSIVE)     /* r = trunc(a), no derivative */     \
  X(ROUND, "round", 1, ADE__PASSIVE)     /* r = round(a), no derivative */     \
  X(LT, "lt", 2, ADE__PASSIVE)           /* r = a < b (a recorded branch) */   \
  X(LE, "le", 2, ADE__PASSIVE)           /* r = a <= b */                      \
  X(GT, "gt", 2, ADE__PASSIVE)           /* r = a > b */                       \
  X(GE, "ge", 2, ADE__PASSIVE)           /* r = a >= b */                      \
  X(EQ, "eq", 2, ADE__PASSIVE)           /* r = a == b */                      \
  X(NE, "ne", 2, ADE__PASSIVE)           /* r = a != b */

enum ade__opcode {
#define ADE__OP_ENUM(N, s, k, f) ADE_OP_##N,
  ADE_OPS(ADE__OP_ENUM)
#undef ADE__OP_ENUM
  ADE_OP_COUNT
};

/* Opcode 255 is reserved for a later record kind, the vector elemental (a
 * user function with registered tangent/adjoint callbacks, many inputs and
 * outputs); readers reject it with ADE_EUNSUPPORTED. */
#define ADE_OP_VECTOR_ELEMENTAL 255
#define ADE__MAX_ARITY 3
/* Second partials are packed as the lower triangle of a 3 x 3 matrix, h[6]
 * (ade__op_partials, the rules of ops_rules.h and their users). */
_Static_assert(ADE__MAX_ARITY == 3, "h[6] holds the packed second partials of 3 operands");

typedef struct ade__opinfo {
  const char *name;
  uint8_t arity;
  uint8_t flags;
} ade__opinfo;

extern const ade__opinfo ade__optab[ADE_OP_COUNT];

#include "ops_rules.h"

/* Dispatchers over the table. Always inlined: where op is a constant (each
 * recording function) the switch folds to the one rule. */
#define ADE__INLINE static inline __attribute__((always_inline))

/* r = op(a): the value rule of the table. */
ADE__INLINE double ade__op_value(unsigned op, const double *a) {
  switch (op) {
#define ADE__OP_VAL(N, s, k, f) case ADE_OP_##N: return ade__val_##N(a);
    ADE_OPS(ADE__OP_VAL)
#undef ADE__OP_VAL
  }
  return (double)NAN;
}

/* First (d) and second (h, may be NULL) partials of op at (a, r). */
ADE__INLINE int ade__op_partials(unsigned op, const double *a, double r, double *d, double *h) {
  double hs[6];
  if (!h) h = hs;
  switch (op) {
#define ADE__OP_DER(N, s, k, f) case ADE_OP_##N: return ade__der_##N(a, r, d, h);
    ADE_OPS(ADE__OP_DER)
#undef ADE__OP_DER
  }
  return 0;
}

/* r = op(a) and its first partials d at (a, r): ade__op_value then
 * ade__op_partials, with one dispatch. */
ADE__INLINE double ade__op_value_partials(unsigned op, const double *a, double *d) {
  double h[6], r = (double)NAN;
  switch (op) {
#define ADE__OP_VD(N, s, k, f) case ADE_OP_##N: r = ade__val_##N(a); ade__der_##N(a, r, d, h); break;
    ADE_OPS(ADE__OP_VD)
#undef ADE__OP_VD
  }
  return r;
}

/* The rules of op as C source text (ade__opsrc); every field NULL for
 * opcodes outside the table. */
static inline ade__opsrc ade__op_source(unsigned op) {
  switch (op) {
#define ADE__OP_SRC(N, s, k, f) case ADE_OP_##N: return ade__src_##N();
    ADE_OPS(ADE__OP_SRC)
#undef ADE__OP_SRC
  }
  return (ade__opsrc){NULL, {NULL, NULL}, NULL};
}

/* op's row flags (ADE__STORE, ADE__PASSIVE): a constant where op is one,
 * where ade__optab[op].flags is a load. */
ADE__INLINE unsigned ade__op_flags(unsigned op) {
  switch (op) {
#define ADE__OP_FLAGS(N, s, k, f) case ADE_OP_##N: return (f);
    ADE_OPS(ADE__OP_FLAGS)
#undef ADE__OP_FLAGS
  }
  return 0;
}

/* 0 or the ade_diag_kind of op at (a, r); non-finite results included. */
ADE__INLINE int ade__op_check(unsigned op, const double *a, double r) {
  switch (op) {
#define ADE__OP_CHK(N, s, k, f) case ADE_OP_##N: return ade__chk_##N(a, r);
    ADE_OPS(ADE__OP_CHK)
#undef ADE__OP_CHK
  }
  return 0;
}

#endif
