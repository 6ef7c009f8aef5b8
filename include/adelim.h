/* adelim.h: the public API of adelim (record C code on a tape, differentiate it). */
#ifndef ADELIM_H
#define ADELIM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ADE_BUILDING) && defined(__GNUC__)
#define ADE_API __attribute__((visibility("default")))
#else
#define ADE_API
#endif

#define ADE_VERSION_MAJOR 0
#define ADE_VERSION_MINOR 1
#define ADE_VERSION_PATCH 0

/* ---------------------------------------------------------------- errors */

/* Status codes: stable, never renumbered. Negative = error, positive = warning
 * (the call produced its results, but something deserves attention). */
#define ADE_STATUS_MAP(X)                                                      \
  X(OK, 0, "success")                                                          \
  X(ENOMEM, -1, "out of memory")                                               \
  X(EINVAL, -2, "invalid argument")                                            \
  X(EIO, -3, "input/output error")                                             \
  X(EFORMAT, -4, "malformed tape or file")                                     \
  X(ECHECKSUM, -5, "checksum mismatch")                                        \
  X(EVERSION, -6, "unsupported format version")                                \
  X(ETRUNC, -7, "truncated input")                                             \
  X(ESTATE, -8, "operation not allowed in this state")                         \
  X(ETOOBIG, -9, "size limit exceeded")                                        \
  X(EUNSUPPORTED, -10, "unsupported feature")                                  \
  X(ENOTFOUND, -11, "not found")                                               \
  X(ECYCLE, -12, "graph has a cycle")                                          \
  X(ELIMIT, -13, "time or node limit reached")                                 \
  X(WBRANCH, 1, "a recorded branch would go the other way at this point")

enum ade_status {
#define ADE__STATUS_ENUM(name, value, msg) ADE_##name = value,
  ADE_STATUS_MAP(ADE__STATUS_ENUM)
#undef ADE__STATUS_ENUM
};

/*! ade_strerror: a fixed message for a status code ("unknown status" if none). */
ADE_API const char *ade_strerror(int status);
/*! ade_errname: the code's name, e.g. "ADE_EFORMAT". */
ADE_API const char *ade_errname(int status);
/*! ade_errmsg: the calling thread's detail message for the last error or
 * warning, naming where (file offset, chunk, op index, call site). */
ADE_API const char *ade_errmsg(void);

/* ------------------------------------------------------------- allocator */

/*! An allocator with realloc semantics: (ud, NULL, n) allocates, (ud, p, n)
 * resizes, (ud, p, 0) frees and returns NULL. Every allocation adelim makes,
 * including zstd's, goes through the calling thread's hook. */
typedef void *(*ade_alloc_fn)(void *ud, void *ptr, size_t size);
/*! ade_set_allocator: set the calling thread's allocator (NULL: realloc/free).
 * Objects must be freed with the allocator that created them. */
ADE_API void ade_set_allocator(ade_alloc_fn fn, void *ud);

/* ------------------------------------------------------------------ tapes */

typedef struct ade_tape ade_tape;

typedef struct ade_tape_options {
  const char *path;    /* file to stream the tape to (".adt"); NULL: memory */
  int level;           /* zstd level 1..19; 0 stores chunks raw; default 3 */
  uint32_t chunk_ops;  /* records per chunk; default 65536 */
  int capture;         /* nonzero: record call sites and region stacks */
} ade_tape_options;

/*! ade_tape_options_init: fill *o with the defaults. */
ADE_API void ade_tape_options_init(ade_tape_options *o);
/*! ade_tape_create: a new empty tape ready for ade_trace_on.
 * @return ADE_OK, ADE_ENOMEM, ADE_EINVAL (bad option), ADE_EIO (file). */
ADE_API int ade_tape_create(ade_tape **tape, const ade_tape_options *o);
/*! ade_tape_open: open a tape file read-only, streaming chunks on demand.
 * The header, footer and chunk index are validated here; chunks when read.
 * @return ADE_OK, ADE_EIO, ADE_EFORMAT, ADE_EVERSION, ADE_ECHECKSUM,
 * ADE_ETRUNC, ADE_ETOOBIG, ADE_ENOMEM. */
ADE_API int ade_tape_open(ade_tape **tape, const char *path);
/*! ade_tape_load: read a whole tape file into memory (same checks as open). */
ADE_API int ade_tape_load(ade_tape **tape, const char *path);
/*! ade_tape_save: write a finished tape to a file (bit-identical bytes). */
ADE_API int ade_tape_save(const ade_tape *tape, const char *path);
/*! ade_tape_bytes: the finished tape's bytes, if it lives in memory. */
ADE_API int ade_tape_bytes(const ade_tape *tape, const void **bytes, size_t *size);
/*! ade_tape_from_bytes: a read-only tape over a copy of size bytes. */
ADE_API int ade_tape_from_bytes(ade_tape **tape, const void *bytes, size_t size);
/*! ade_tape_verify: read and check every chunk (checksums, references,
 * opcodes, recomputed values). @return ADE_OK or the first error found. */
ADE_API int ade_tape_verify(ade_tape *tape);
/*! ade_tape_free: release a tape (NULL is fine). A tape still recording is
 * finished first. */
ADE_API void ade_tape_free(ade_tape *tape);

/*! ade_trace_on: make tape the calling thread's current tape and start
 * recording. @return ADE_OK, ADE_ESTATE (tape finished or another tape is
 * current on this thread). */
ADE_API int ade_trace_on(ade_tape *tape);
/*! ade_trace_off: finish the current tape (write its footer) and detach it.
 * @return ADE_OK, or the sticky error that failed the recording (the part
 * recorded before the error stays readable and is marked incomplete). */
ADE_API int ade_trace_off(void);

/* --------------------------------------------------------- active scalars */

/* An active double: its value and its tape variable (id 0: passive). Pass it
 * by value, like a double. */
typedef struct ade_double {
  double v;
  uint64_t id;
} ade_double;

static inline double ade_val(ade_double a) { return a.v; }
static inline ade_double ade_passive(double v) {
  ade_double r = {v, 0};
  return r;
}
static inline int ade_is_active(ade_double a) { return a.id != 0; }

/*! ade_indep: a new independent variable with value x (on the current tape;
 * without one, a passive value). Call order fixes the order of x. */
ADE_API ade_double ade_indep(double x);
/*! ade_dep: mark y as the next dependent; returns y's value. */
ADE_API double ade_dep(ade_double y);

/* Operations. Each records one tape operation when an operand is active. */
#define ADE__UNARY_MAP(X)                                                      \
  X(neg) X(sqrt) X(cbrt) X(exp) X(expm1) X(log) X(log1p) X(log10) X(sin)       \
  X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(asinh)       \
  X(acosh) X(atanh) X(erf) X(erfc) X(fabs) X(square) X(floor) X(ceil)         \
  X(trunc) X(round)
#define ADE__BINARY_MAP(X)                                                     \
  X(add) X(sub) X(mul) X(div) X(pow) X(atan2) X(hypot) X(fmin) X(fmax)         \
  X(copysign)
#define ADE__COMPARE_MAP(X) X(lt) X(le) X(gt) X(ge) X(eq) X(ne)

#define ADE__DECL_UNARY(f) ADE_API ade_double ade_##f(ade_double a);
#define ADE__DECL_BINARY(f) ADE_API ade_double ade_##f(ade_double a, ade_double b);
#define ADE__DECL_COMPARE(f) ADE_API int ade_##f(ade_double a, ade_double b);
ADE__UNARY_MAP(ADE__DECL_UNARY)
ADE__BINARY_MAP(ADE__DECL_BINARY)
ADE__COMPARE_MAP(ADE__DECL_COMPARE)
/*! ade_fma: a*b + c, correctly rounded. */
ADE_API ade_double ade_fma(ade_double a, ade_double b, ade_double c);

/* Mixed forms (active op double, double op active) and the plain double
 * forms the _Generic macros pick when no operand is active. */
static inline double ade__neg_d(double a) { return -a; }
static inline double ade__square_d(double a) { return a * a; }
static inline double ade__add_dd(double a, double b) { return a + b; }
static inline double ade__sub_dd(double a, double b) { return a - b; }
static inline double ade__mul_dd(double a, double b) { return a * b; }
static inline double ade__div_dd(double a, double b) { return a / b; }
#define ADE__PLAIN_BINARY(f)                                                   \
  static inline double ade__##f##_dd(double a, double b) { return f(a, b); }
ADE__PLAIN_BINARY(pow)
ADE__PLAIN_BINARY(atan2)
ADE__PLAIN_BINARY(hypot)
ADE__PLAIN_BINARY(fmin)
ADE__PLAIN_BINARY(fmax)
ADE__PLAIN_BINARY(copysign)
#define ADE__MIXED_BINARY(f)                                                   \
  static inline ade_double ade_##f##_ad(ade_double a, double b) {              \
    return ade_##f(a, ade_passive(b));                                         \
  }                                                                            \
  static inline ade_double ade_##f##_da(double a, ade_double b) {              \
    return ade_##f(ade_passive(a), b);                                         \
  }
ADE__BINARY_MAP(ADE__MIXED_BINARY)
#define ADE__MIXED_COMPARE(f)                                                  \
  static inline int ade_##f##_ad(ade_double a, double b) {                     \
    return ade_##f(a, ade_passive(b));                                         \
  }                                                                            \
  static inline int ade_##f##_da(double a, ade_double b) {                     \
    return ade_##f(ade_passive(a), b);                                         \
  }
ADE__COMPARE_MAP(ADE__MIXED_COMPARE)
static inline int ade__lt_dd(double a, double b) { return a < b; }
static inline int ade__le_dd(double a, double b) { return a <= b; }
static inline int ade__gt_dd(double a, double b) { return a > b; }
static inline int ade__ge_dd(double a, double b) { return a >= b; }
static inline int ade__eq_dd(double a, double b) { return a == b; }
static inline int ade__ne_dd(double a, double b) { return a != b; }
static inline ade_double ade__to_active(ade_double a) { return a; }
static inline double ade__to_double(double a) { return a; }

/* C11 _Generic conveniences: any mix of double and ade_double. With no
 * active operand they are plain double expressions, so one source compiles
 * both as plain double code and as recording code. */
#define ADE__G1(f, plain, a) _Generic((a), ade_double: ade_##f, default: plain)(a)
#define ADE__G2(f, a, b)                                                       \
  _Generic((a),                                                                \
      ade_double: _Generic((b), ade_double: ade_##f, default: ade_##f##_ad),   \
      default: _Generic((b), ade_double: ade_##f##_da, default: ade__##f##_dd))(a, b)
#define ADE_ADD(a, b) ADE__G2(add, a, b)
#define ADE_SUB(a, b) ADE__G2(sub, a, b)
#define ADE_MUL(a, b) ADE__G2(mul, a, b)
#define ADE_DIV(a, b) ADE__G2(div, a, b)
#define ADE_POW(a, b) ADE__G2(pow, a, b)
#define ADE_ATAN2(a, b) ADE__G2(atan2, a, b)
#define ADE_HYPOT(a, b) ADE__G2(hypot, a, b)
#define ADE_FMIN(a, b) ADE__G2(fmin, a, b)
#define ADE_FMAX(a, b) ADE__G2(fmax, a, b)
#define ADE_COPYSIGN(a, b) ADE__G2(copysign, a, b)
#define ADE_LT(a, b) ADE__G2(lt, a, b)
#define ADE_LE(a, b) ADE__G2(le, a, b)
#define ADE_GT(a, b) ADE__G2(gt, a, b)
#define ADE_GE(a, b) ADE__G2(ge, a, b)
#define ADE_EQ(a, b) ADE__G2(eq, a, b)
#define ADE_NE(a, b) ADE__G2(ne, a, b)
#define ADE_NEG(a) ADE__G1(neg, ade__neg_d, a)
#define ADE_SQUARE(a) ADE__G1(square, ade__square_d, a)
#define ADE_SQRT(a) ADE__G1(sqrt, sqrt, a)
#define ADE_CBRT(a) ADE__G1(cbrt, cbrt, a)
#define ADE_EXP(a) ADE__G1(exp, exp, a)
#define ADE_EXPM1(a) ADE__G1(expm1, expm1, a)
#define ADE_LOG(a) ADE__G1(log, log, a)
#define ADE_LOG1P(a) ADE__G1(log1p, log1p, a)
#define ADE_LOG10(a) ADE__G1(log10, log10, a)
#define ADE_SIN(a) ADE__G1(sin, sin, a)
#define ADE_COS(a) ADE__G1(cos, cos, a)
#define ADE_TAN(a) ADE__G1(tan, tan, a)
#define ADE_ASIN(a) ADE__G1(asin, asin, a)
#define ADE_ACOS(a) ADE__G1(acos, acos, a)
#define ADE_ATAN(a) ADE__G1(atan, atan, a)
#define ADE_SINH(a) ADE__G1(sinh, sinh, a)
#define ADE_COSH(a) ADE__G1(cosh, cosh, a)
#define ADE_TANH(a) ADE__G1(tanh, tanh, a)
#define ADE_ASINH(a) ADE__G1(asinh, asinh, a)
#define ADE_ACOSH(a) ADE__G1(acosh, acosh, a)
#define ADE_ATANH(a) ADE__G1(atanh, atanh, a)
#define ADE_ERF(a) ADE__G1(erf, erf, a)
#define ADE_ERFC(a) ADE__G1(erfc, erfc, a)
#define ADE_FABS(a) ADE__G1(fabs, fabs, a)
#define ADE_FLOOR(a) ADE__G1(floor, floor, a)
#define ADE_CEIL(a) ADE__G1(ceil, ceil, a)
#define ADE_TRUNC(a) ADE__G1(trunc, trunc, a)
#define ADE_ROUND(a) ADE__G1(round, round, a)
/* ADE_FMA(a, b, c): active if any operand is. */
#define ADE__A(a) _Generic((a), ade_double: ade__to_active, default: ade_passive)(a)
static inline double ade__fma_dd(double a, double b, double c) { return fma(a, b, c); }
#define ADE_FMA(a, b, c)                                                       \
  _Generic((a), ade_double: ade_fma(ADE__A(a), ADE__A(b), ADE__A(c)),          \
      default: _Generic((b), ade_double: ade_fma(ADE__A(a), ADE__A(b), ADE__A(c)), \
          default: _Generic((c), ade_double: ade_fma(ADE__A(a), ADE__A(b), ADE__A(c)), \
              default: ade__fma_dd(ADE__VAL(a), ADE__VAL(b), ADE__VAL(c)))))
#define ADE__VAL(a) _Generic((a), ade_double: ade_val, default: ade__to_double)(a)
/* ADE_VALUE(a): the double value of either type. */
#define ADE_VALUE(a) ADE__VAL(a)

/* ---------------------------------------------------- regions, call sites */

/*! ade_region_begin: open a named region (nested regions allowed); with
 * capture on, the user's call stack is stored with it. */
ADE_API void ade_region_begin(const char *name);
/*! ade_region_end: close the innermost open region. */
ADE_API void ade_region_end(void);

/* ------------------------------------------------------ inspecting a tape */

typedef struct ade_stats {
  uint64_t records;          /* operations recorded (each defines one variable) */
  uint64_t independents;
  uint64_t dependents;
  uint64_t chunks;
  uint64_t raw_bytes;        /* column bytes before compression */
  uint64_t stored_bytes;     /* whole tape: header, chunks, footer */
  uint64_t stored_values;    /* result values stored (the rest are recomputed) */
  uint64_t regions, diagnostics, callsites;
  double bytes_per_op;       /* stored_bytes / records */
  double compression_ratio;  /* raw_bytes / compressed chunk bytes */
  int level;                 /* zstd level, 0 = raw */
  int capture;               /* call sites recorded */
  int complete;              /* 0: recording failed; the tape is a prefix */
  uint64_t op_count[256];    /* records by opcode */
} ade_stats;

/*! ade_tape_stats: counts and sizes of a finished tape (type ade_stats). */
ADE_API int ade_tape_stats(const ade_tape *tape, ade_stats *s);
/*! ade_tape_num_indep / ade_tape_num_dep: n and m of a finished tape. */
ADE_API size_t ade_tape_num_indep(const ade_tape *tape);
ADE_API size_t ade_tape_num_dep(const ade_tape *tape);
/*! ade_op_name: an opcode's name ("sin"), NULL if not an opcode. */
ADE_API const char *ade_op_name(int opcode);

enum ade_diag_kind {
  ADE_DIAG_KINK = 1,      /* fabs at 0, fmin/fmax tie, copysign at 0, ... */
  ADE_DIAG_SINGULAR = 2,  /* infinite derivative: sqrt/cbrt at 0, pow at 0 */
  ADE_DIAG_NONFINITE = 3  /* a result or partial is NaN or infinite */
};

typedef struct ade_diagnostic {
  uint64_t op;           /* record index (0-based) */
  int opcode;
  int kind;              /* enum ade_diag_kind */
  const char *site;      /* "function+0xoff (module)", "" without capture */
} ade_diagnostic;

typedef struct ade_region {
  const char *name;
  int parent;            /* index of the enclosing region, -1 at top */
  int depth;
  uint64_t first_op;     /* records [first_op, end_op) belong to it */
  uint64_t end_op;
  size_t nframes;        /* frames of the user call stack when it began */
} ade_region;

ADE_API size_t ade_tape_num_diagnostics(const ade_tape *tape);
ADE_API int ade_tape_diagnostic(const ade_tape *tape, size_t i, ade_diagnostic *d);
ADE_API size_t ade_tape_num_regions(const ade_tape *tape);
ADE_API int ade_tape_region(const ade_tape *tape, size_t i, ade_region *r);
/*! ade_tape_region_frame: frame k (0 = innermost) of region i's call stack
 * as "function+0xoff (module)"; NULL if out of range. */
ADE_API const char *ade_tape_region_frame(const ade_tape *tape, size_t i, size_t k);

/* ----------------------------------------------------- first-order sweeps */

/* All sweeps take a finished tape. x (n values) is the point; NULL means the
 * recorded point, whose values are on the tape. Vector arguments are stored
 * by variable: Xd is n x p with x_i's p directions contiguous, Yd is m x p,
 * Yb is m x q, Xb is n x q; dense Jacobians are m x n row-major.
 * Sweeps at a new point return ADE_WBRANCH when a recorded comparison comes
 * out differently there (ade_errmsg names the first); results are still
 * those of the recorded operation sequence. */

/*! ade_replay: zero-order forward sweep, y = F(x). */
ADE_API int ade_replay(ade_tape *t, const double *x, double *y);
/*! ade_tangent: y = F(x), yd = F'(x) xd (Jacobian-vector product). */
ADE_API int ade_tangent(ade_tape *t, const double *x, const double *xd,
                        double *y, double *yd);
/*! ade_tangent_vec: p directions at once, Yd = F'(x) Xd. */
ADE_API int ade_tangent_vec(ade_tape *t, size_t p, const double *x,
                            const double *Xd, double *y, double *Yd);
/*! ade_adjoint: xb = F'(x)^T yb (vector-Jacobian product). */
ADE_API int ade_adjoint(ade_tape *t, const double *x, const double *yb, double *xb);
/*! ade_adjoint_vec: q weight vectors at once, Xb = F'(x)^T Yb. */
ADE_API int ade_adjoint_vec(ade_tape *t, size_t q, const double *x,
                            const double *Yb, double *Xb);
/*! ade_gradient: g = grad f(x) for a tape with one dependent; f may be NULL. */
ADE_API int ade_gradient(ade_tape *t, const double *x, double *f, double *g);

/*! ade_tape_set_memory_limit: sweeps keep one double per variable and
 * direction while that fits in bytes (default 256 MiB); beyond it, reverse
 * sweeps at the recorded point keep the adjoints of the live variables only,
 * so memory is bounded by the live set and a few chunks, not by the tape.
 * Forward sweeps and sweeps at a new point keep one value per variable. */
ADE_API void ade_tape_set_memory_limit(ade_tape *t, size_t bytes);
/*! ade_tape_peak_live: the most live adjoints held by the last reverse sweep
 * that ran on live adjoints (0 if none did). */
ADE_API size_t ade_tape_peak_live(const ade_tape *t);

enum ade_mode { ADE_FORWARD = 0, ADE_REVERSE = 1 };
/*! ade_jacobian_dense: the dense m x n Jacobian by vector forward (n
 * directions) or vector reverse (m weights) mode. */
ADE_API int ade_jacobian_dense(ade_tape *t, int mode, const double *x, double *J);

/* --------------------------------------------------------- sparse matrices */

/* A sparse matrix in compressed sparse row form. A symmetric matrix stores
 * its lower triangle only (col <= row in every row). */
typedef struct ade_sparse {
  size_t m, n, nnz;
  size_t *rowptr;  /* m + 1 row starts into col/val */
  size_t *col;     /* nnz column indices, ascending within a row */
  double *val;     /* nnz values */
  int symmetric;
} ade_sparse;

/*! ade_sparse_create: an m x n matrix with room for nnz entries (rowptr
 * zeroed, the caller fills it). @return ADE_OK, ADE_ENOMEM. */
ADE_API int ade_sparse_create(ade_sparse **A, size_t m, size_t n, size_t nnz, int symmetric);
/*! ade_sparse_free: release A (NULL is fine). */
ADE_API void ade_sparse_free(ade_sparse *A);
/*! ade_sparse_to_dense: D (m x n, row-major) = A; a symmetric A is expanded. */
ADE_API int ade_sparse_to_dense(const ade_sparse *A, double *D);
/*! ade_sparse_write_mtx: write A as a Matrix Market coordinate file
 * ("symmetric" for symmetric matrices, 1-based, %.17g). */
ADE_API int ade_sparse_write_mtx(const ade_sparse *A, const char *path);

/* ------------------------------------------ Jacobians by elimination (elim/) */

/* ------------------------------------------------------ Hessians (hessian/) */

#ifdef __cplusplus
}
#endif
#endif /* ADELIM_H */
