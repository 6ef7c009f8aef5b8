/* ops_rules.h: value, partials and diagnosis rules for each row of ADE_OPS. */
#ifndef ADE_OPS_RULES_H
#define ADE_OPS_RULES_H

#include <math.h>

#include "adelim.h"

/* Every rule set has the shape documented in ops_internal.h. The diagnosis
 * is checked in this order: a non-finite result is ADE_DIAG_NONFINITE (so
 * log(0), atanh(+-1), 1/0 and overflows land there), then the row's own kinks
 * (ADE_DIAG_KINK) and infinite derivatives at a finite result
 * (ADE_DIAG_SINGULAR). der returns exactly what chk returns. */

#define ADE__2_SQRTPI 1.12837916709551257389615890312154517 /* 2/sqrt(pi) */
#define ADE__LN10 2.30258509299404568401799145468436421     /* ln 10 */

/* Each row's rules also as C source text, for code generation
 * (elim/codegen.c), taken from the same tokens the rules are compiled from:
 * val, the value in terms of the operands x, y; d[j], the first partials in
 * terms of x, y, the result r and da (the first partial); or, where a row's
 * rules are written as functions, fn, their definitions (ade__val_N,
 * ade__chk_N, ade__der_N), which generated code calls. ade__src_helpers is
 * the text of the helper functions the rules use. */
typedef struct ade__opsrc {
  const char *val, *d[2], *fn;
} ade__opsrc;
#define ADE__XSTR(...) ADE__STR(__VA_ARGS__)
#define ADE__STR(...) #__VA_ARGS__
/* Definitions that are compiled and also kept as text (ade__src_N). */
#define ADE__VERBATIM(N, ...)                                                  \
  __VA_ARGS__                                                                  \
  static inline ade__opsrc ade__src_##N(void) {                                \
    return (ade__opsrc){NULL, {NULL, NULL}, #__VA_ARGS__};                     \
  }

/* One unary row: value VAL, f' as D1 (named dx), f'' as D2 (may use dx),
 * the diagnosis DIAG at a finite result; x is the operand, r the result. */
#define ADE__RULE1(N, VAL, D1, D2, DIAG)                                       \
  static inline double ade__val_##N(const double *a) {                         \
    const double x = a[0];                                                     \
    return VAL;                                                                \
  }                                                                            \
  static inline int ade__chk_##N(const double *a, double r) {                  \
    const double x = a[0];                                                     \
    (void)x;                                                                   \
    return isfinite(r) ? (DIAG) : ADE_DIAG_NONFINITE;                          \
  }                                                                            \
  static inline int ade__der_##N(const double *a, double r, double *d,         \
                                 double *h) {                                  \
    const double x = a[0], dx = (D1);                                          \
    (void)x;                                                                   \
    d[0] = dx;                                                                 \
    h[0] = (D2);                                                               \
    return ade__chk_##N(a, r);                                                 \
  }                                                                            \
  static inline ade__opsrc ade__src_##N(void) {                                \
    return (ade__opsrc){#VAL, {#D1, NULL}, NULL};                              \
  }

/* One binary row with operands x, y: partials DA, DB (named da, db) and the
 * second partials HAA, HAB, HBB (may use da, db). */
#define ADE__RULE2(N, VAL, DA, DB, HAA, HAB, HBB, DIAG)                        \
  static inline double ade__val_##N(const double *a) {                         \
    const double x = a[0], y = a[1];                                           \
    return VAL;                                                                \
  }                                                                            \
  static inline int ade__chk_##N(const double *a, double r) {                  \
    const double x = a[0], y = a[1];                                           \
    (void)x, (void)y;                                                          \
    return isfinite(r) ? (DIAG) : ADE_DIAG_NONFINITE;                          \
  }                                                                            \
  static inline int ade__der_##N(const double *a, double r, double *d,         \
                                 double *h) {                                  \
    const double x = a[0], y = a[1], da = (DA), db = (DB);                     \
    (void)x, (void)y;                                                          \
    d[0] = da;                                                                 \
    d[1] = db;                                                                 \
    h[0] = (HAA);                                                              \
    h[1] = (HAB);                                                              \
    h[2] = (HBB);                                                              \
    return ade__chk_##N(a, r);                                                 \
  }                                                                            \
  static inline ade__opsrc ade__src_##N(void) {                                \
    return (ade__opsrc){#VAL, {#DA, #DB}, NULL};                               \
  }

/* A recorded comparison: 1.0 or 0.0, no derivative, never diagnosed. */
#define ADE__COMPARE(N, OP)                                                    \
  static inline double ade__val_##N(const double *a) {                         \
    const double x = a[0], y = a[1];                                           \
    return x OP y ? 1.0 : 0.0;                                                 \
  }                                                                            \
  static inline int ade__chk_##N(const double *a, double r) {                  \
    (void)a, (void)r;                                                          \
    return 0;                                                                  \
  }                                                                            \
  static inline int ade__der_##N(const double *a, double r, double *d,         \
                                 double *h) {                                  \
    (void)a, (void)r;                                                          \
    d[0] = d[1] = 0;                                                           \
    h[0] = h[1] = h[2] = 0;                                                    \
    return 0;                                                                  \
  }                                                                            \
  static inline ade__opsrc ade__src_##N(void) {                                \
    return (ade__opsrc){ADE__XSTR(x OP y ? 1.0 : 0.0), {"0", "0"}, NULL};      \
  }

/* Helpers of the rules below. tanh' as 1/cosh^2 (ade__sech2). fmin/fmax
 * (FMIN, FMAX rows): slope 1 to the selected operand; at a tie (kink) 0.5
 * to each, the mean of the one-sided slopes. C's fmin/fmax return the
 * operand that is not NaN, so a NaN operand gets 0. ade__sel is the first
 * operand's weight, given whether each operand wins outright. C leaves
 * fmin(+0, -0) to the implementation, and compilers expand fmin inline
 * differently from libm; recorded and recomputed values must agree bit for
 * bit, so the tie of zeros is fixed here: ade__fmin gives -0, ade__fmax +0. */
ADE__VERBATIM(helpers,
static inline double ade__sech2(double x) {
  const double c = 1 / cosh(x);
  return c * c;
}
static inline double ade__sel(int first, int second) {
  return first ? 1.0 : second ? 0.0 : 0.5;
}
static inline double ade__fmin(double x, double y) {
  return isnan(y) || x < y ? x : isnan(x) || y < x ? y : signbit(x) ? x : y;
}
static inline double ade__fmax(double x, double y) {
  return isnan(y) || x > y ? x : isnan(x) || y > x ? y : signbit(x) ? y : x;
}
)

/* indep: its value is always stored, never recomputed; no partials. */
static inline double ade__val_INDEP(const double *a) {
  (void)a;
  return (double)NAN;
}
static inline int ade__chk_INDEP(const double *a, double r) {
  (void)a;
  return isfinite(r) ? 0 : ADE_DIAG_NONFINITE;
}
static inline int ade__der_INDEP(const double *a, double r, double *d, double *h) {
  (void)d, (void)h;
  return ade__chk_INDEP(a, r);
}
static inline ade__opsrc ade__src_INDEP(void) { /* generated code reads x */
  return (ade__opsrc){NULL, {NULL, NULL}, NULL};
}

/* Arithmetic: (x/y)' = (1/y, -r/y), (x/y)'' = (0, -1/y^2, 2r/y^2). */
ADE__RULE1(DEP, x, 1, 0, 0)
ADE__RULE2(ADD, x + y, 1, 1, 0, 0, 0, 0)
ADE__RULE2(SUB, x - y, 1, -1, 0, 0, 0, 0)
ADE__RULE2(MUL, x * y, y, x, 0, 1, 0, 0)
ADE__RULE2(DIV, x / y, 1 / y, -r / y, 0, -da * da, -2 * db * da, 0)
ADE__RULE1(NEG, -x, -1, 0, 0)
ADE__RULE1(SQUARE, x * x, 2 * x, 2, 0)

/* fma(x, y, z) = x*y + z (one rounding): d = (y, x, 1), only h_xy = 1. */
ADE__VERBATIM(FMA,
static inline double ade__val_FMA(const double *a) { return fma(a[0], a[1], a[2]); }
static inline int ade__chk_FMA(const double *a, double r) {
  (void)a;
  return isfinite(r) ? 0 : ADE_DIAG_NONFINITE;
}
static inline int ade__der_FMA(const double *a, double r, double *d, double *h) {
  d[0] = a[1];
  d[1] = a[0];
  d[2] = 1;
  h[0] = h[2] = h[3] = h[4] = h[5] = 0;
  h[1] = 1;
  return ade__chk_FMA(a, r);
}
)

/* Roots: sqrt' = 1/(2r), sqrt'' = -sqrt'/(2x); cbrt' = 1/(3r^2),
 * cbrt'' = -2 cbrt'/(3x). Both are singular (infinite slope) at x = 0. */
ADE__RULE1(SQRT, sqrt(x), 0.5 / r, -0.5 * dx / x, x == 0 ? ADE_DIAG_SINGULAR : 0)
ADE__RULE1(CBRT, cbrt(x), 1 / (3 * r * r), -2.0 / 3.0 * dx / x,
           x == 0 ? ADE_DIAG_SINGULAR : 0)

/* Exponentials and logarithms: exp' = exp'' = r; expm1' = r + 1, from exp(x)
 * where r + 1 would cancel; log' = 1/x, log1p' = 1/(1 + x), log10' =
 * 1/(x ln 10), each with f'' = -f'/u for u the logarithm's argument (x or
 * 1 + x). At u = 0 the logs are -inf: non-finite. */
ADE__RULE1(EXP, exp(x), r, r, 0)
ADE__RULE1(EXPM1, expm1(x), r > -0.5 ? r + 1 : exp(x), dx, 0)
ADE__RULE1(LOG, log(x), 1 / x, -dx * dx, 0)
ADE__RULE1(LOG1P, log1p(x), 1 / (1 + x), -dx * dx, 0)
ADE__RULE1(LOG10, log10(x), 1 / (x * ADE__LN10), -dx / x, 0)

/* pow(x, y) = x^y: d = (y x^(y-1), r ln x), h = (y (y-1) x^(y-2),
 * x^(y-1) (1 + y ln x), r ln^2 x). The x-terms are written 0 when their
 * factor y or y (y-1) is 0, so x = 0 gives no 0 * inf; they hold for x < 0 with
 * integer y. The y-terms need ln x: at x = 0 with y > 0 they are the limits
 * from x > 0 (0, except h_xy = -inf for y <= 1); for x < 0, or x = 0 with
 * y <= 0, they are NaN and matter only when the exponent is active. Any
 * base 0 is singular (x^y is not defined for x < 0 and most y). */
ADE__VERBATIM(POW,
static inline double ade__val_POW(const double *a) { return pow(a[0], a[1]); }
static inline int ade__chk_POW(const double *a, double r) {
  if (!isfinite(r)) return ADE_DIAG_NONFINITE;
  return a[0] == 0 ? ADE_DIAG_SINGULAR : 0;
}
static inline int ade__der_POW(const double *a, double r, double *d, double *h) {
  const double x = a[0], y = a[1], p1 = pow(x, y - 1);
  d[0] = y == 0 ? 0 : y * p1;
  h[0] = (y == 0 || y == 1) ? 0 : y * (y - 1) * pow(x, y - 2);
  if (x > 0) {
    const double lx = log(x);
    d[1] = r * lx;
    h[1] = p1 * (1 + y * lx);
    h[2] = d[1] * lx;
  } else if (x == 0 && y > 0) {
    d[1] = h[2] = 0;
    h[1] = y > 1 ? 0 : -(double)INFINITY;
  } else {
    d[1] = h[1] = h[2] = (double)NAN;
  }
  return ade__chk_POW(a, r);
}
)

/* Trigonometric: sin' = cos, cos' = -sin, both f'' = -r; tan' = 1 + r^2,
 * tan'' = 2 r tan'. */
ADE__RULE1(SIN, sin(x), cos(x), -r, 0)
ADE__RULE1(COS, cos(x), -sin(x), -r, 0)
ADE__RULE1(TAN, tan(x), 1 + r * r, 2 * r * dx, 0)

/* Inverse trigonometric: asin' = 1/sqrt((1-x)(1+x)) (factored: no
 * cancellation near |x| = 1), asin'' = x asin'^3, acos = pi/2 - asin;
 * atan' = 1/(1 + x^2), atan'' = -2x atan'^2. Infinite slope at |x| = 1. */
ADE__RULE1(ASIN, asin(x), 1 / sqrt((1 - x) * (1 + x)), x * dx * dx * dx,
           fabs(x) == 1 ? ADE_DIAG_SINGULAR : 0)
ADE__RULE1(ACOS, acos(x), -1 / sqrt((1 - x) * (1 + x)), x * dx * dx * dx,
           fabs(x) == 1 ? ADE_DIAG_SINGULAR : 0)
ADE__RULE1(ATAN, atan(x), 1 / (1 + x * x), -2 * x * dx * dx, 0)

/* atan2(x, y), the angle of the point with abscissa y and ordinate x: with
 * s = hypot(x, y), d = (y, -x)/s^2,
 * h = (-2xy, x^2 - y^2, 2xy)/s^4, written through d to avoid overflow.
 * Undefined (discontinuous) at the origin: singular, partials NaN. */
ADE__VERBATIM(ATAN2,
static inline double ade__val_ATAN2(const double *a) { return atan2(a[0], a[1]); }
static inline int ade__chk_ATAN2(const double *a, double r) {
  if (!isfinite(r)) return ADE_DIAG_NONFINITE;
  return a[0] == 0 && a[1] == 0 ? ADE_DIAG_SINGULAR : 0;
}
static inline int ade__der_ATAN2(const double *a, double r, double *d, double *h) {
  const double s = hypot(a[0], a[1]);
  d[0] = a[1] / s / s;
  d[1] = -a[0] / s / s;
  h[0] = 2 * d[0] * d[1];
  h[1] = (d[1] - d[0]) * (d[1] + d[0]);
  h[2] = -h[0];
  return ade__chk_ATAN2(a, r);
}
)

/* Hyperbolic: sinh' = cosh, cosh' = sinh, both f'' = r; tanh' = 1 - r^2,
 * from 1/cosh^2 where 1 - r^2 would cancel, tanh'' = -2 r tanh'. */
ADE__RULE1(SINH, sinh(x), cosh(x), r, 0)
ADE__RULE1(COSH, cosh(x), sinh(x), r, 0)
ADE__RULE1(TANH, tanh(x), fabs(r) < 0.5 ? (1 - r) * (1 + r) : ade__sech2(x),
           -2 * r * dx, 0)

/* Inverse hyperbolic: asinh' = 1/hypot(1, x), acosh' = 1/sqrt((x-1)(x+1))
 * (factored against overflow and cancellation), both f'' = -x f'^3; acosh
 * has infinite slope at 1. atanh' = 1/((1-x)(1+x)), atanh'' = 2x atanh'^2;
 * atanh(+-1) = +-inf is diagnosed as non-finite. */
ADE__RULE1(ASINH, asinh(x), 1 / hypot(1, x), -(x * dx) * dx * dx, 0)
ADE__RULE1(ACOSH, acosh(x), 1 / (sqrt(x - 1) * sqrt(x + 1)), -(x * dx) * dx * dx,
           x == 1 ? ADE_DIAG_SINGULAR : 0)
ADE__RULE1(ATANH, atanh(x), 1 / ((1 - x) * (1 + x)), 2 * x * dx * dx, 0)

/* Error functions: erf' = 2/sqrt(pi) exp(-x^2) = -erfc', f'' = -2x f'. */
ADE__RULE1(ERF, erf(x), ADE__2_SQRTPI * exp(-x * x), -2 * x * dx, 0)
ADE__RULE1(ERFC, erfc(x), -ADE__2_SQRTPI * exp(-x * x), -2 * x * dx, 0)

/* hypot(x, y) = r: d = (x, y)/r, h = (y^2, -xy, x^2)/r^3. At (0, 0), a
 * cone point (kink), the convention is d = 0, h = 0. */
ADE__VERBATIM(HYPOT,
static inline double ade__val_HYPOT(const double *a) { return hypot(a[0], a[1]); }
static inline int ade__chk_HYPOT(const double *a, double r) {
  if (!isfinite(r)) return ADE_DIAG_NONFINITE;
  return a[0] == 0 && a[1] == 0 ? ADE_DIAG_KINK : 0;
}
static inline int ade__der_HYPOT(const double *a, double r, double *d, double *h) {
  const double u = r == 0 ? 0 : a[0] / r, v = r == 0 ? 0 : a[1] / r;
  d[0] = u;
  d[1] = v;
  h[0] = r == 0 ? 0 : v * v / r;
  h[1] = r == 0 ? 0 : -u * v / r;
  h[2] = r == 0 ? 0 : u * u / r;
  return ade__chk_HYPOT(a, r);
}
)

/* fabs' = sign(x) with sign(0) = 0 (the mean of the one-sided slopes);
 * kink at 0. */
ADE__RULE1(FABS, fabs(x), x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0, 0,
           x == 0 ? ADE_DIAG_KINK : 0)

/* fmin/fmax: see ade__sel above. */
ADE__RULE2(FMIN, ade__fmin(x, y), ade__sel(isnan(y) || x < y, isnan(x) || y < x),
           1 - da, 0, 0, 0, x == y ? ADE_DIAG_KINK : 0)
ADE__RULE2(FMAX, ade__fmax(x, y), ade__sel(isnan(y) || x > y, isnan(x) || y > x),
           1 - da, 0, 0, 0, x == y ? ADE_DIAG_KINK : 0)

/* copysign(x, y) = |x| sign(y): d/dx = +1 if the sign bits agree, else -1
 * (also at x = +-0, by the sign bits); d/dy = 0. Kinks: at y = 0 the result
 * jumps, at x = 0 it has |x|'s corner. */
ADE__RULE2(COPYSIGN, copysign(x, y),
           (signbit(x) != 0) == (signbit(y) != 0) ? 1.0 : -1.0, 0, 0, 0, 0,
           x == 0 || y == 0 ? ADE_DIAG_KINK : 0)

/* Rounding: piecewise constant, all partials 0, only a non-finite result
 * is diagnosed (jumps are not). */
ADE__RULE1(FLOOR, floor(x), 0, 0, 0)
ADE__RULE1(CEIL, ceil(x), 0, 0, 0)
ADE__RULE1(TRUNC, trunc(x), 0, 0, 0)
ADE__RULE1(ROUND, round(x), 0, 0, 0)

ADE__COMPARE(LT, <)
ADE__COMPARE(LE, <=)
ADE__COMPARE(GT, >)
ADE__COMPARE(GE, >=)
ADE__COMPARE(EQ, ==)
ADE__COMPARE(NE, !=)

#undef ADE__RULE1
#undef ADE__RULE2
#undef ADE__COMPARE
#undef ADE__VERBATIM

#endif
