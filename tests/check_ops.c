/* check_ops.c: the operation table: values, first and second partials, diagnoses. */
#include <string.h>

#include "testutil.h"
#include "ops_internal.h"

#define NPTS 256 /* random points per op in each randomized test */
#define PI 3.14159265358979323846
#define SENTINEL 0x7ff00000deadbeefull /* a signaling NaN no rule can produce */

static const char *name(unsigned op) { return ade__optab[op].name; }
static unsigned arity(unsigned op) { return ade__optab[op].arity; }
static int passive(unsigned op) { return (ade__optab[op].flags & ADE__PASSIVE) != 0; }
static int compare(unsigned op) { return op >= ADE_OP_LT && op <= ADE_OP_NE; }
/* Index of h_ij in the packed lower triangle (either order). */
static unsigned tri(unsigned i, unsigned j) {
  return i >= j ? i * (i + 1) / 2 + j : j * (j + 1) / 2 + i;
}
static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static double sentinel(void) {
  const uint64_t u = SENTINEL;
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}
static int same(double x, double y) { return bits(x) == bits(y) || (isnan(x) && isnan(y)); }

/* Each row's C library expression, written independently of ops_rules.h. */
static double ref_value(unsigned op, const double *a) {
  const double x = a[0], y = a[1], z = a[2];
  switch (op) {
  case ADE_OP_INDEP: return (double)NAN;
  case ADE_OP_DEP: return x;
  case ADE_OP_ADD: return x + y;
  case ADE_OP_SUB: return x - y;
  case ADE_OP_MUL: return x * y;
  case ADE_OP_DIV: return x / y;
  case ADE_OP_NEG: return -x;
  case ADE_OP_SQUARE: return x * x;
  case ADE_OP_FMA: return fma(x, y, z);
  case ADE_OP_SQRT: return sqrt(x);
  case ADE_OP_CBRT: return cbrt(x);
  case ADE_OP_EXP: return exp(x);
  case ADE_OP_EXPM1: return expm1(x);
  case ADE_OP_LOG: return log(x);
  case ADE_OP_LOG1P: return log1p(x);
  case ADE_OP_LOG10: return log10(x);
  case ADE_OP_POW: return pow(x, y);
  case ADE_OP_SIN: return sin(x);
  case ADE_OP_COS: return cos(x);
  case ADE_OP_TAN: return tan(x);
  case ADE_OP_ASIN: return asin(x);
  case ADE_OP_ACOS: return acos(x);
  case ADE_OP_ATAN: return atan(x);
  case ADE_OP_ATAN2: return atan2(x, y);
  case ADE_OP_SINH: return sinh(x);
  case ADE_OP_COSH: return cosh(x);
  case ADE_OP_TANH: return tanh(x);
  case ADE_OP_ASINH: return asinh(x);
  case ADE_OP_ACOSH: return acosh(x);
  case ADE_OP_ATANH: return atanh(x);
  case ADE_OP_ERF: return erf(x);
  case ADE_OP_ERFC: return erfc(x);
  case ADE_OP_HYPOT: return hypot(x, y);
  case ADE_OP_FABS: return fabs(x);
  /* libm's fmin/fmax, except at a tie of zeros, where the table fixes -0/+0. */
  case ADE_OP_FMIN: return x == 0 && y == 0 ? (signbit(x) || signbit(y) ? -0.0 : 0.0) : fmin(x, y);
  case ADE_OP_FMAX: return x == 0 && y == 0 ? (signbit(x) && signbit(y) ? -0.0 : 0.0) : fmax(x, y);
  case ADE_OP_COPYSIGN: return copysign(x, y);
  case ADE_OP_FLOOR: return floor(x);
  case ADE_OP_CEIL: return ceil(x);
  case ADE_OP_TRUNC: return trunc(x);
  case ADE_OP_ROUND: return round(x);
  case ADE_OP_LT: return x < y;
  case ADE_OP_LE: return x <= y;
  case ADE_OP_GT: return x > y;
  case ADE_OP_GE: return x >= y;
  case ADE_OP_EQ: return x == y;
  case ADE_OP_NE: return x != y;
  }
  ck_abort_msg("opcode %u has no reference value", op);
  return 0;
}

/* Textbook partials in long double (x87: 64-bit significand), for the
 * analytic pairs; independent of the formulas in ops_rules.h. */
static void ref_partials(unsigned op, const double *a, long double *d, long double *h) {
  const long double x = a[0], y = a[1], q = x * x + y * y, s = sqrtl(q);
  const long double e2 = 2 / sqrtl(acosl(-1)) * expl(-x * x), c = coshl(x);
  const long double m = (1 - x) * (1 + x); /* 1 - x^2, exact for a double x */
  for (int i = 0; i < 6; i++) h[i] = d[i % 3] = 0;
  switch (op) {
  case ADE_OP_DEP: d[0] = 1; break;
  case ADE_OP_ADD: d[0] = d[1] = 1; break;
  case ADE_OP_SUB: d[0] = 1, d[1] = -1; break;
  case ADE_OP_MUL: d[0] = y, d[1] = x, h[1] = 1; break;
  case ADE_OP_DIV: d[0] = 1 / y, d[1] = -x / (y * y), h[1] = -1 / (y * y),
                   h[2] = 2 * x / (y * y * y); break;
  case ADE_OP_NEG: d[0] = -1; break;
  case ADE_OP_SQUARE: d[0] = 2 * x, h[0] = 2; break;
  case ADE_OP_FMA: d[0] = y, d[1] = x, d[2] = 1, h[1] = 1; break;
  case ADE_OP_SQRT: d[0] = 0.5L / sqrtl(x), h[0] = -0.25L / (x * sqrtl(x)); break;
  case ADE_OP_CBRT:
    d[0] = 1 / (3 * cbrtl(x * x)), h[0] = -2 / (9 * x * cbrtl(x * x));
    break;
  case ADE_OP_EXP: case ADE_OP_EXPM1: d[0] = h[0] = expl(x); break;
  case ADE_OP_LOG: d[0] = 1 / x, h[0] = -1 / (x * x); break;
  case ADE_OP_LOG1P: d[0] = 1 / (1 + x), h[0] = -1 / ((1 + x) * (1 + x)); break;
  case ADE_OP_LOG10: d[0] = 1 / (x * logl(10)), h[0] = -1 / (x * x * logl(10)); break;
  case ADE_OP_POW:
    d[0] = y * powl(x, y - 1), d[1] = powl(x, y) * logl(x);
    h[0] = y * (y - 1) * powl(x, y - 2), h[1] = powl(x, y - 1) * (1 + y * logl(x));
    h[2] = powl(x, y) * logl(x) * logl(x);
    break;
  case ADE_OP_SIN: d[0] = cosl(x), h[0] = -sinl(x); break;
  case ADE_OP_COS: d[0] = -sinl(x), h[0] = -cosl(x); break;
  case ADE_OP_TAN:
    d[0] = 1 / (cosl(x) * cosl(x)), h[0] = 2 * sinl(x) / powl(cosl(x), 3);
    break;
  case ADE_OP_ASIN: d[0] = 1 / sqrtl(m), h[0] = x / powl(m, 1.5L); break;
  case ADE_OP_ACOS: d[0] = -1 / sqrtl(m), h[0] = -x / powl(m, 1.5L); break;
  case ADE_OP_ATAN:
    d[0] = 1 / (1 + x * x), h[0] = -2 * x / ((1 + x * x) * (1 + x * x));
    break;
  case ADE_OP_ATAN2:
    d[0] = y / q, d[1] = -x / q;
    h[0] = -2 * x * y / (q * q), h[1] = (x * x - y * y) / (q * q);
    h[2] = 2 * x * y / (q * q);
    break;
  case ADE_OP_SINH: d[0] = coshl(x), h[0] = sinhl(x); break;
  case ADE_OP_COSH: d[0] = sinhl(x), h[0] = coshl(x); break;
  case ADE_OP_TANH: d[0] = 1 / (c * c), h[0] = -2 * sinhl(x) / (c * c * c); break;
  case ADE_OP_ASINH: d[0] = 1 / sqrtl(1 + x * x), h[0] = -x / powl(1 + x * x, 1.5L); break;
  case ADE_OP_ACOSH: d[0] = 1 / sqrtl(-m), h[0] = -x / powl(-m, 1.5L); break;
  case ADE_OP_ATANH: d[0] = 1 / m, h[0] = 2 * x / (m * m); break;
  case ADE_OP_ERF: d[0] = e2, h[0] = -2 * x * e2; break;
  case ADE_OP_ERFC: d[0] = -e2, h[0] = 2 * x * e2; break;
  case ADE_OP_HYPOT:
    d[0] = x / s, d[1] = y / s;
    h[0] = y * y / (q * s), h[1] = -x * y / (q * s), h[2] = x * x / (q * s);
    break;
  case ADE_OP_FABS: d[0] = x > 0 ? 1 : -1; break;
  case ADE_OP_FMIN: d[x < y ? 0 : 1] = 1; break;
  case ADE_OP_FMAX: d[x > y ? 0 : 1] = 1; break;
  case ADE_OP_COPYSIGN: d[0] = (x > 0) == (y > 0) ? 1 : -1; break;
  default: ck_abort_msg("opcode %u has no reference partials", op);
  }
}

/* ---------------------------------------------------------------- domains */

static double loguniform(uint64_t *s, double lo, double hi) {
  return exp(ade_test_uniform(s, log(lo), log(hi)));
}
/* |x| log-uniform in [lo, hi), either sign. */
static double sloguniform(uint64_t *s, double lo, double hi) {
  const double m = loguniform(s, lo, hi);
  return ade_test_rand(s) & 1 ? -m : m;
}

/* Distance from a to op's nearest kink, singularity or branch cut, in the
 * coordinates that reach it (INFINITY if op has none). */
static double sing_dist(unsigned op, const double *a) {
  switch (op) {
  case ADE_OP_SQRT: case ADE_OP_CBRT: case ADE_OP_LOG: case ADE_OP_LOG10:
  case ADE_OP_FABS: case ADE_OP_POW: return fabs(a[0]);
  case ADE_OP_LOG1P: return fabs(1 + a[0]);
  case ADE_OP_DIV: return fabs(a[1]);
  case ADE_OP_ASIN: case ADE_OP_ACOS: case ADE_OP_ATANH: return 1 - fabs(a[0]);
  case ADE_OP_ACOSH: return a[0] - 1;
  case ADE_OP_TAN: return fabs(fabs(remainder(a[0], PI)) - PI / 2);
  case ADE_OP_HYPOT: return hypot(a[0], a[1]);
  case ADE_OP_ATAN2: /* the cut is x = 0, y < 0 */
    return a[1] < 0 ? fmin(fabs(a[0]), hypot(a[0], a[1])) : hypot(a[0], a[1]);
  case ADE_OP_FMIN: case ADE_OP_FMAX: return fabs(a[0] - a[1]);
  case ADE_OP_COPYSIGN: return fmin(fabs(a[0]), fabs(a[1]));
  }
  return (double)INFINITY;
}

/* The same along coordinate j alone. */
static double coord_dist(unsigned op, const double *a, unsigned j) {
  switch (op) {
  case ADE_OP_COPYSIGN: return fabs(a[j]);
  case ADE_OP_POW: return j == 0 ? fabs(a[0]) : (double)INFINITY;
  case ADE_OP_DIV: return j == 1 ? fabs(a[1]) : (double)INFINITY;
  }
  return sing_dist(op, a);
}

/* Finite-difference step for argument j: a power of 2 near 2^-10 times the
 * argument's scale or its distance to the nearest singularity. */
static double fd_step(unsigned op, const double *a, unsigned j) {
  return ldexp(1, ilogb(fmin(fmax(1, fabs(a[j])), coord_dist(op, a, j))) - 10);
}

/* Rows whose singularity is at a = 0 and whose steps scale with |a|: any
 * distance from it is fine for finite differences. */
static int scale_free(unsigned op) {
  return op == ADE_OP_SQRT || op == ADE_OP_CBRT || op == ADE_OP_LOG ||
         op == ADE_OP_LOG10 || op == ADE_OP_FABS || op == ADE_OP_POW;
}

/* A random point of op's domain, away from kinks and singularities, with
 * each a_j a multiple of its step t_j (so every stencil point is exact). */
static void draw(unsigned op, uint64_t *s, double *a, double *t) {
  for (;;) {
    for (unsigned j = 0; j < 3; j++) a[j] = ade_test_uniform(s, -8, 8);
    switch (op) {
    case ADE_OP_SQRT: case ADE_OP_LOG: case ADE_OP_LOG10:
      a[0] = loguniform(s, 1e-20, 1e20); break;
    case ADE_OP_CBRT: a[0] = sloguniform(s, 1e-20, 1e20); break;
    case ADE_OP_FABS: a[0] = sloguniform(s, 1e-3, 1e3); break;
    case ADE_OP_DIV: a[1] = sloguniform(s, 1e-3, 1e3); break;
    case ADE_OP_EXP: case ADE_OP_EXPM1: a[0] = ade_test_uniform(s, -30, 30); break;
    case ADE_OP_LOG1P: a[0] = -1 + loguniform(s, 1e-3, 1e3); break;
    case ADE_OP_POW:
      a[0] = loguniform(s, 1e-3, 1e3), a[1] = ade_test_uniform(s, -4, 4); break;
    case ADE_OP_ASIN: case ADE_OP_ACOS: case ADE_OP_ATANH:
      a[0] = ade_test_uniform(s, -1, 1); break;
    case ADE_OP_ACOSH: a[0] = 1 + loguniform(s, 1e-3, 1e3); break;
    case ADE_OP_ASINH: a[0] = sloguniform(s, 1e-3, 1e6); break;
    case ADE_OP_COPYSIGN:
      a[0] = sloguniform(s, 1e-2, 1e2), a[1] = sloguniform(s, 1e-2, 1e2); break;
    }
    for (unsigned j = 0; j < 3; j++) t[j] = fd_step(op, a, j);
    for (unsigned j = 0; j < 3; j++) a[j] = nearbyint(a[j] / t[j]) * t[j];
    if (sing_dist(op, a) > (scale_free(op) ? 0 : 1e-3)) return;
  }
}

/* --------------------------------------------------- finite differences */

/* f(a): op's value (which < 0) or its first partial d_which. */
static double eval(unsigned op, int which, const double *a) {
  double d[3], h[6];
  if (which < 0) return ade__op_value(op, a);
  ade__op_partials(op, a, ade__op_value(op, a), d, h);
  return d[which];
}

typedef struct fd_est {
  double value; /* Richardson extrapolation of the two stencils */
  double trunc; /* their difference: bounds the truncation error */
  double round; /* rounding bound: 64 ulps of max |f| per evaluation */
} fd_est;

/* df/da_j by the 4th-order central stencil
 * f' = (8 (f(+t) - f(-t)) - (f(+2t) - f(-2t))) / 12t at steps t and t/2. */
static fd_est fd(unsigned op, int which, const double *a0, unsigned j, double t) {
  static const double off[4] = {-2, -1, 1, 2};
  double a[3], D[2], F = 0;
  memcpy(a, a0, sizeof a);
  for (int k = 0; k < 2; k++) {
    const double tk = k ? t / 2 : t;
    double f[4];
    for (int i = 0; i < 4; i++) {
      a[j] = a0[j] + off[i] * tk;
      f[i] = eval(op, which, a);
      F = fmax(F, fabs(f[i]));
    }
    D[k] = (8 * (f[2] - f[1]) - (f[3] - f[0])) / (12 * tk);
  }
  const fd_est e = {D[1] + (D[1] - D[0]) / 15, fabs(D[1] - D[0]),
                    64 * DBL_EPSILON * F / t};
  return e;
}

/* got matches the estimate within its error bounds plus 16 ulps of got;
 * the estimate itself must be good to 1e-6. */
static void expect_fd(unsigned op, const char *what, unsigned i, unsigned j,
                      const double *a, double got, fd_est e) {
  const double bound = e.trunc + e.round + 16 * DBL_EPSILON * fabs(got);
  ck_assert_msg(e.trunc + e.round <= 1e-6 * fmax(1, fabs(e.value)),
                "%s: finite differences unreliable at (%.17g, %.17g, %.17g): "
                "%.17g +- %.3g", name(op), a[0], a[1], a[2], e.value, e.trunc + e.round);
  ck_assert_msg(fabs(got - e.value) <= bound,
                "%s: %s[%u,%u] = %.17g, finite differences %.17g +- %.3g at "
                "(%.17g, %.17g, %.17g)", name(op), what, i, j, got, e.value, bound,
                a[0], a[1], a[2]);
}

/* ------------------------------------------------------------------ tests */

/* The rows in opcode order: the order is the tape format, rows only append. */
static const struct { const char *name; unsigned arity; } rows[] = {
    {"indep", 0}, {"dep", 1},    {"add", 2},      {"sub", 2},   {"mul", 2},
    {"div", 2},   {"neg", 1},    {"square", 1},   {"fma", 3},   {"sqrt", 1},
    {"cbrt", 1},  {"exp", 1},    {"expm1", 1},    {"log", 1},   {"log1p", 1},
    {"log10", 1}, {"pow", 2},    {"sin", 1},      {"cos", 1},   {"tan", 1},
    {"asin", 1},  {"acos", 1},   {"atan", 1},     {"atan2", 2}, {"sinh", 1},
    {"cosh", 1},  {"tanh", 1},   {"asinh", 1},    {"acosh", 1}, {"atanh", 1},
    {"erf", 1},   {"erfc", 1},   {"hypot", 2},    {"fabs", 1},  {"fmin", 2},
    {"fmax", 2},  {"copysign", 2}, {"floor", 1},  {"ceil", 1},  {"trunc", 1},
    {"round", 1}, {"lt", 2},     {"le", 2},       {"gt", 2},    {"ge", 2},
    {"eq", 2},    {"ne", 2}};

START_TEST(test_table) {
  const size_t nrows = sizeof rows / sizeof rows[0];
  ck_assert_uint_ge(ADE_OP_COUNT, nrows);
  for (unsigned op = 0; op < ADE_OP_COUNT; op++) {
    const char *s = name(op);
    ck_assert_msg(s && *s, "opcode %u has no name", op);
    for (const char *p = s; *p; p++)
      ck_assert_msg((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'), "name %s", s);
    for (unsigned k = 0; k < op; k++) ck_assert_str_ne(s, name(k));
    ck_assert_uint_le(arity(op), ADE__MAX_ARITY);
    ck_assert_uint_eq(ade__optab[op].flags & ~(ADE__STORE | ADE__PASSIVE), 0);
    ck_assert_int_eq(passive(op), op >= ADE_OP_FLOOR && op <= ADE_OP_NE);
    ck_assert_ptr_eq(ade_op_name((int)op), s);
    if (op < nrows) {
      ck_assert_str_eq(s, rows[op].name);
      ck_assert_uint_eq(arity(op), rows[op].arity);
    }
  }
  ck_assert_ptr_null(ade_op_name(-1));
  ck_assert_ptr_null(ade_op_name(ADE_OP_COUNT));
  ck_assert_str_eq(ade_op_name(ADE_OP_VECTOR_ELEMENTAL), "elemental"); /* not a row: a record kind */
  /* indep has no value rule (its values are stored), and no partials. */
  const double a[3] = {2.385, 1, 1};
  double d[3] = {-1, -1, -1};
  ck_assert(isnan(ade__op_value(ADE_OP_INDEP, a)));
  ck_assert_int_eq(ade__op_check(ADE_OP_INDEP, a, 2.385), 0);
  ck_assert_int_eq(ade__op_partials(ADE_OP_INDEP, a, 2.385, d, NULL), 0);
  ck_assert_int_eq(ade__op_check(ADE_OP_INDEP, a, (double)INFINITY), ADE_DIAG_NONFINITE);
  ck_assert(d[0] == -1);
  /* Opcodes outside the table. */
  ck_assert(isnan(ade__op_value(ADE_OP_COUNT, a)));
  ck_assert_int_eq(ade__op_partials(ADE_OP_COUNT, a, 0, d, NULL), 0);
  ck_assert_int_eq(ade__op_check(ADE_OP_VECTOR_ELEMENTAL, a, 0), 0);
}
END_TEST

/* Values are the C library's, bit for bit: in the domain, anywhere. */
START_TEST(test_values) {
  const unsigned op = (unsigned)_i;
  uint64_t s = 0x5eed0000u + op;
  double a[3], t[3];
  for (int n = 0; n < 2 * NPTS; n++) {
    if (n < NPTS) {
      draw(op, &s, a, t);
    } else {
      for (unsigned j = 0; j < 3; j++)
        a[j] = sloguniform(&s, 1e-30, 1e30) * (ade_test_rand(&s) % 8 ? 1 : 1e250);
    }
    const double got = ade__op_value(op, a), want = ref_value(op, a);
    ck_assert_msg(same(got, want), "%s(%.17g, %.17g, %.17g) = %a, C library %a", name(op),
                  a[0], a[1], a[2], got, want);
  }
}
END_TEST

/* Special operands, all combinations: values, write coverage, diagnoses. */
static const double specials[] = {
    0.0,     -0.0,   1.0,  -1.0, 2.385, -0.615, 0.5, 3.0, DBL_MIN / 4, -DBL_TRUE_MIN,
    DBL_MAX, -1e300, (double)INFINITY, -(double)INFINITY, (double)NAN};
#define NSPEC (sizeof specials / sizeof specials[0])

static void check_special(unsigned op, const double *a) {
  const unsigned k = arity(op), nh = k * (k + 1) / 2;
  const double r = ade__op_value(op, a);
  double d[3], h[6], d2[3];
  ck_assert_msg(same(r, ref_value(op, a)), "%s value at (%g, %g, %g)", name(op), a[0],
                a[1], a[2]);
  for (unsigned i = 0; i < 6; i++) h[i] = d[i % 3] = d2[i % 3] = sentinel();
  const int c = ade__op_check(op, a, r), p = ade__op_partials(op, a, r, d, h);
  ck_assert_msg(p == c, "%s(%g, %g, %g): partials say %d, check %d", name(op), a[0],
                a[1], a[2], p, c);
  ck_assert_int_eq(ade__op_partials(op, a, r, d2, NULL), c);
  ck_assert(c >= 0 && c <= ADE_DIAG_NONFINITE);
  if (compare(op)) ck_assert_int_eq(c, 0);
  else if (!isfinite(r)) ck_assert_int_eq(c, ADE_DIAG_NONFINITE);
  for (unsigned i = 0; i < 3; i++) {
    ck_assert_msg((bits(d[i]) == SENTINEL) == (i >= k), "%s: d[%u] written?", name(op), i);
    ck_assert(bits(d2[i]) == bits(d[i]));
    if (passive(op) && i < k) ck_assert(d[i] == 0);
  }
  for (unsigned i = 0; i < 6; i++) {
    ck_assert_msg((bits(h[i]) == SENTINEL) == (i >= nh), "%s: h[%u] written?", name(op), i);
    if (passive(op) && i < nh) ck_assert(h[i] == 0);
  }
}

START_TEST(test_specials) {
  const unsigned op = (unsigned)_i;
  double a[3];
  for (size_t i = 0; i < NSPEC; i++)
    for (size_t j = 0; j < NSPEC; j++)
      for (size_t k = 0; k < NSPEC; k++) {
        a[0] = specials[i], a[1] = specials[j], a[2] = specials[k];
        check_special(op, a);
      }
}
END_TEST

/* First partials against finite differences of the value, argument by
 * argument; every point is ordinary, so check and partials return 0. */
START_TEST(test_first_partials) {
  const unsigned op = (unsigned)_i, k = arity(op);
  uint64_t s = 0xf1257000u + op;
  double a[3], t[3], d[3], h[6];
  for (int n = 0; n < NPTS; n++) {
    draw(op, &s, a, t);
    const double r = ade__op_value(op, a);
    ck_assert_int_eq(ade__op_check(op, a, r), 0);
    ck_assert_int_eq(ade__op_partials(op, a, r, d, h), 0);
    for (unsigned j = 0; j < k; j++) {
      if (passive(op)) ck_assert(d[j] == 0);
      else expect_fd(op, "d", j, j, a, d[j], fd(op, -1, a, j, t[j]));
    }
  }
}
END_TEST

/* Second partials against finite differences of the first partials: d_i
 * along a_j and d_j along a_i must both match the one packed h_ij. */
START_TEST(test_second_partials) {
  const unsigned op = (unsigned)_i, k = arity(op);
  uint64_t s = 0x5ec0d000u + op;
  double a[3], t[3], d[3], h[6];
  for (int n = 0; n < NPTS; n++) {
    draw(op, &s, a, t);
    ck_assert_int_eq(ade__op_partials(op, a, ade__op_value(op, a), d, h), 0);
    for (unsigned i = 0; i < k; i++)
      for (unsigned j = 0; j < k; j++) {
        if (passive(op)) ck_assert(h[tri(i, j)] == 0);
        else expect_fd(op, "h", i, j, a, h[tri(i, j)], fd(op, (int)i, a, j, t[j]));
      }
  }
}
END_TEST

/* Partials of op at a, checked against ref_partials to rel (pure relative
 * error: a reference 0 must come out 0). */
static void expect_pairs(unsigned op, const double *a, double rel) {
  const unsigned k = arity(op);
  long double wd[3], wh[6];
  double d[3], h[6];
  ck_assert_int_eq(ade__op_partials(op, a, ade__op_value(op, a), d, h), 0);
  ref_partials(op, a, wd, wh);
  for (unsigned i = 0; i < k; i++) {
    const double w = (double)wd[i];
    ade_assert_rel(d[i], w, rel * fabs(w) / fmax(1, fabs(w)));
  }
  for (unsigned i = 0; i < k * (k + 1) / 2; i++) {
    const double w = (double)wh[i];
    ade_assert_rel(h[i], w, rel * fabs(w) / fmax(1, fabs(w)));
  }
}

/* Analytic pairs at high-entropy points, to 32 ulps. */
START_TEST(test_analytic) {
  static const double pts[][3] = {
      {2.385, -1.3, 0.7}, {-0.615, 2.2, -3.1}, {0.1375, 0.7, 1.9}, {7.25, 1.7, 0.3}};
  for (unsigned op = 1; op < ADE_OP_COUNT; op++) {
    int tested = 0;
    if (passive(op)) continue;
    for (size_t n = 0; n < sizeof pts / sizeof pts[0]; n++) {
      const double r = ade__op_value(op, pts[n]);
      if (!isfinite(r) || ade__op_check(op, pts[n], r)) continue;
      expect_pairs(op, pts[n], 32 * DBL_EPSILON);
      tested++;
    }
    ck_assert_msg(tested > 0, "%s: no analytic point", name(op));
  }
  /* The same, spelled out in double for a few rows. */
  const double x = 2.385, one[3] = {x}, p[3] = {x, 1.7}, f[3] = {x, -1.3, 0.7};
  double d[3], h[6];
  ade__op_partials(ADE_OP_SIN, one, sin(x), d, h);
  ade_assert_rel(d[0], cos(x), DBL_EPSILON);
  ade_assert_rel(h[0], -sin(x), DBL_EPSILON);
  ade__op_partials(ADE_OP_EXP, one, exp(x), d, h);
  ade_assert_rel(d[0], exp(x), DBL_EPSILON);
  ade_assert_rel(h[0], exp(x), DBL_EPSILON);
  ade__op_partials(ADE_OP_LOG, one, log(x), d, h);
  ade_assert_rel(d[0], 1 / x, DBL_EPSILON);
  ade_assert_rel(h[0], -1 / (x * x), 4 * DBL_EPSILON);
  ade__op_partials(ADE_OP_POW, p, pow(x, 1.7), d, h);
  ade_assert_rel(d[0], 1.7 * pow(x, 1.7) / x, 8 * DBL_EPSILON);
  ade_assert_rel(d[1], pow(x, 1.7) * log(x), 8 * DBL_EPSILON);
  ade_assert_rel(h[2], pow(x, 1.7) * log(x) * log(x), 8 * DBL_EPSILON);
  ade__op_partials(ADE_OP_FMA, f, fma(x, -1.3, 0.7), d, h);
  ck_assert(d[0] == -1.3 && d[1] == x && d[2] == 1);
  ck_assert(h[0] == 0 && h[1] == 1 && h[2] == 0 && h[3] == 0 && h[4] == 0 && h[5] == 0);
}
END_TEST

/* Where naive formulas lose digits (cancellation, overflow, underflow). */
START_TEST(test_accuracy) {
  static const struct { unsigned op; double a[3]; } hard[] = {
      {ADE_OP_TANH, {10}},          {ADE_OP_TANH, {-19.5}},
      {ADE_OP_EXPM1, {-40}},        {ADE_OP_EXPM1, {-0.75}},
      {ADE_OP_ASIN, {0.9999999}},   {ADE_OP_ACOS, {-0.9999999}},
      {ADE_OP_ATANH, {0.9999999}},  {ADE_OP_ACOSH, {1.0000001}},
      {ADE_OP_ACOSH, {1e200}},      {ADE_OP_ASINH, {1e200}},
      {ADE_OP_ASINH, {-1e-8}},      {ADE_OP_LOG1P, {-0.999999}},
      {ADE_OP_ATAN2, {1e200, 3e200}}, {ADE_OP_ATAN2, {3e-100, -1e-100}},
      {ADE_OP_HYPOT, {1e200, 3e200}}, {ADE_OP_HYPOT, {3e-100, -1e-100}},
      {ADE_OP_POW, {1e-300, 1.5}},  {ADE_OP_TAN, {1.5707963}},
      {ADE_OP_SQRT, {1e-200}},      {ADE_OP_CBRT, {-1e-200}},
      {ADE_OP_ERFC, {5.5}},         {ADE_OP_COSH, {700}}};
  if (LDBL_MANT_DIG < 64) return; /* the references need extended precision */
  for (size_t n = 0; n < sizeof hard / sizeof hard[0]; n++)
    expect_pairs(hard[n].op, hard[n].a, 64 * DBL_EPSILON);
}
END_TEST

/* op at (x, y): the diagnosis from check and from partials must be kind. */
static void expect_diag(unsigned op, double x, double y, int kind, double *d, double *h) {
  const double a[3] = {x, y, 0}, r = ade__op_value(op, a);
  const int c = ade__op_check(op, a, r), p = ade__op_partials(op, a, r, d, h);
  ck_assert_msg(c == kind && p == kind, "%s(%g, %g): check %d, partials %d, expected %d",
                name(op), x, y, c, p, kind);
}

/* Non-differentiable points: the documented diagnoses and conventions. */
START_TEST(test_edges) {
  const double x = 2.385, inf = (double)INFINITY;
  double d[3], h[6];
  expect_diag(ADE_OP_FABS, 0.0, 0, ADE_DIAG_KINK, d, h);
  ck_assert(d[0] == 0 && h[0] == 0); /* sign(0) = 0 */
  expect_diag(ADE_OP_FABS, -0.0, 0, ADE_DIAG_KINK, d, h);
  ck_assert(d[0] == 0);
  expect_diag(ADE_OP_FABS, -x, 0, 0, d, h);
  ck_assert(d[0] == -1);
  for (unsigned op = ADE_OP_FMIN; op <= ADE_OP_FMAX; op++) {
    expect_diag(op, x, x, ADE_DIAG_KINK, d, h); /* a tie: 0.5 each */
    ck_assert(d[0] == 0.5 && d[1] == 0.5 && h[0] == 0 && h[1] == 0 && h[2] == 0);
    expect_diag(op, -0.0, 0.0, ADE_DIAG_KINK, d, h);
    expect_diag(op, (double)NAN, x, 0, d, h); /* the NaN is not selected */
    ck_assert(d[0] == 0 && d[1] == 1);
    expect_diag(op, x, (double)NAN, 0, d, h);
    ck_assert(d[0] == 1 && d[1] == 0);
    expect_diag(op, (double)NAN, (double)NAN, ADE_DIAG_NONFINITE, d, h);
  }
  expect_diag(ADE_OP_FMIN, x, -1.3, 0, d, h);
  ck_assert(d[0] == 0 && d[1] == 1);
  expect_diag(ADE_OP_FMAX, x, -1.3, 0, d, h);
  ck_assert(d[0] == 1 && d[1] == 0);
  expect_diag(ADE_OP_COPYSIGN, x, 0.0, ADE_DIAG_KINK, d, h);
  ck_assert(d[0] == 1 && d[1] == 0);
  expect_diag(ADE_OP_COPYSIGN, x, -0.0, ADE_DIAG_KINK, d, h);
  ck_assert(d[0] == -1 && d[1] == 0); /* by the sign bits */
  expect_diag(ADE_OP_COPYSIGN, 0.0, -1.3, ADE_DIAG_KINK, d, h);
  ck_assert(d[0] == -1);
  expect_diag(ADE_OP_COPYSIGN, -x, 1.3, 0, d, h);
  ck_assert(d[0] == -1 && d[1] == 0 && h[0] == 0 && h[1] == 0 && h[2] == 0);
  expect_diag(ADE_OP_HYPOT, 0.0, -0.0, ADE_DIAG_KINK, d, h);
  ck_assert(d[0] == 0 && d[1] == 0 && h[0] == 0 && h[1] == 0 && h[2] == 0);
  expect_diag(ADE_OP_HYPOT, 0.0, -x, 0, d, h);
  ck_assert(d[0] == 0 && d[1] == -1);
  ade_assert_rel(h[0], 1 / x, DBL_EPSILON);
  expect_diag(ADE_OP_HYPOT, inf, (double)NAN, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_ATAN2, 0.0, 0.0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(isnan(d[0]) && isnan(d[1]));
  expect_diag(ADE_OP_ATAN2, 0.0, -1.0, 0, d, h); /* on the cut, from above */
  ck_assert(d[0] == -1 && d[1] == 0);

  /* Infinite slopes at a finite result. */
  expect_diag(ADE_OP_SQRT, 0.0, 0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == inf);
  expect_diag(ADE_OP_CBRT, 0.0, 0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == inf);
  expect_diag(ADE_OP_CBRT, -0.0, 0, ADE_DIAG_SINGULAR, d, h);
  for (double s = -1; s <= 1; s += 2) {
    expect_diag(ADE_OP_ASIN, s, 0, ADE_DIAG_SINGULAR, d, h);
    ck_assert(d[0] == inf);
    expect_diag(ADE_OP_ACOS, s, 0, ADE_DIAG_SINGULAR, d, h);
    ck_assert(d[0] == -inf);
    expect_diag(ADE_OP_ATANH, s, 0, ADE_DIAG_NONFINITE, d, h); /* atanh(+-1) = +-inf */
  }
  expect_diag(ADE_OP_ACOSH, 1.0, 0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == inf);

  /* pow at base 0 and below. */
  expect_diag(ADE_OP_POW, 0.0, 2.5, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == 0 && d[1] == 0 && h[0] == 0 && h[1] == 0 && h[2] == 0);
  expect_diag(ADE_OP_POW, 0.0, 2.0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == 0 && h[0] == 2 && d[1] == 0);
  expect_diag(ADE_OP_POW, 0.0, 1.0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == 1 && h[0] == 0 && h[1] == -inf);
  expect_diag(ADE_OP_POW, 0.0, 0.5, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == inf && d[1] == 0 && h[0] == -inf && h[1] == -inf && h[2] == 0);
  expect_diag(ADE_OP_POW, 0.0, 0.0, ADE_DIAG_SINGULAR, d, h);
  ck_assert(d[0] == 0 && h[0] == 0 && isnan(d[1]));
  expect_diag(ADE_OP_POW, 0.0, -1.0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_POW, -2.5, 3.0, 0, d, h); /* integer exponent: d/da holds */
  ck_assert(d[0] == 18.75 && h[0] == -15 && isnan(d[1]) && isnan(h[1]) && isnan(h[2]));
  expect_diag(ADE_OP_POW, -2.5, 0.5, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_POW, x, 0.0, 0, d, h);
  ck_assert(d[0] == 0 && h[0] == 0 && d[1] == log(x) && h[2] == log(x) * log(x));
  ade_assert_rel(h[1], 1 / x, 2 * DBL_EPSILON);

  /* Non-finite results. */
  expect_diag(ADE_OP_LOG, 0.0, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_LOG, -1.0, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_LOG10, 0.0, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_LOG1P, -1.0, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_SQRT, -1.0, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_ACOSH, 0.5, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_ASIN, 1.5, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_EXP, 1000, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_EXP, -1000, 0, 0, d, h); /* underflow to 0 is finite */
  expect_diag(ADE_OP_EXPM1, 1000, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_SINH, 1000, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_COSH, -1000, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_DIV, 1.0, 0.0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_DIV, 0.0, 0.0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_MUL, DBL_MAX, 2.0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_DEP, (double)NAN, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_FLOOR, inf, 0, ADE_DIAG_NONFINITE, d, h);
  expect_diag(ADE_OP_ROUND, (double)NAN, 0, ADE_DIAG_NONFINITE, d, h);

  /* Passive rows: jumps are not diagnosed; comparisons never are. */
  expect_diag(ADE_OP_FLOOR, 3.0, 0, 0, d, h);
  ck_assert(d[0] == 0 && h[0] == 0);
  expect_diag(ADE_OP_CEIL, -2.5, 0, 0, d, h);
  expect_diag(ADE_OP_ROUND, 2.5, 0, 0, d, h);
  for (unsigned op = ADE_OP_LT; op <= ADE_OP_NE; op++) {
    expect_diag(op, x, x, 0, d, h);
    ck_assert(d[0] == 0 && d[1] == 0 && h[0] == 0 && h[1] == 0 && h[2] == 0);
    expect_diag(op, (double)NAN, x, 0, d, h);
  }
  const double nan2[3] = {(double)NAN, (double)NAN, 0}, lt[3] = {-1.3, x, 0};
  ck_assert(ade__op_value(ADE_OP_NE, nan2) == 1 && ade__op_value(ADE_OP_EQ, nan2) == 0);
  ck_assert(ade__op_value(ADE_OP_LT, lt) == 1 && ade__op_value(ADE_OP_GE, lt) == 0);
}
END_TEST

/* -------------------------------------------------------------- the suite */

static Suite *ops_suite(void) {
  Suite *s = suite_create("ops");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, test_table);
  tcase_add_loop_test(tc, test_values, 0, ADE_OP_COUNT);
  tcase_add_loop_test(tc, test_specials, 0, ADE_OP_COUNT);
  suite_add_tcase(s, tc);
  tc = tcase_create("partials");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_first_partials, 1, ADE_OP_COUNT);
  tcase_add_loop_test(tc, test_second_partials, 1, ADE_OP_COUNT);
  tcase_add_test(tc, test_analytic);
  tcase_add_test(tc, test_accuracy);
  suite_add_tcase(s, tc);
  tc = tcase_create("edges");
  tcase_add_test(tc, test_edges);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(ops_suite()); }
