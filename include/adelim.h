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
  X(WBRANCH, 1, "a recorded branch would go the other way at this point")     \
  X(WPATTERN, 2, "the Jacobian's sparsity pattern changed")

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
 * Objects must be freed with the allocator that created them. When the hook
 * returns NULL the call fails with ADE_ENOMEM, frees what it allocated and
 * leaves its arguments as they were (tapes, graphs, sequences stay usable);
 * only a recording fails for good (ade_trace_off). */
ADE_API void ade_set_allocator(ade_alloc_fn fn, void *ud);
/*! ade_thread_release: free what the calling thread keeps from one
 * recording to its next: the recorder's column buffers (up to a chunk's
 * worth, a few MiB for the default 65,536 records) and a zstd compression
 * context, which ade_trace_off and ade_tape_save keep so that the thread's
 * next small tape pays neither again. A thread's exit frees them too; a
 * program's main thread, or one that wants the memory back earlier, calls
 * this. Only memory of the default allocator is kept: nothing while the
 * thread has a hook (ade_set_allocator). Safe to call at any time, also
 * while a tape records (it keeps its own). */
ADE_API void ade_thread_release(void);

/* ------------------------------------------------------------------ tapes */

/* A tape records on one thread (the thread that called ade_trace_on).
 * Once finished (ade_trace_off) or opened, it is read only, and any number
 * of threads may evaluate it at once: replay, tangents, adjoints, gradients,
 * Jacobians (dense, by elimination, CPR, c-graphs, plans), Hessians and
 * verification. Each concurrent call works in a workspace of its own (its
 * decoder, chunk views, caches of linearized chunks and sweep arrays, each
 * within the tape's memory limit); up to 8 idle workspaces are kept for the
 * next calls, so a thread that calls again does not start cold. Not to be
 * done while other threads evaluate the tape: ade_tape_free,
 * ade_tape_set_memory_limit. A plan (ade_elim_plan) and a c-graph are used
 * by one thread at a time. Threads sharing a tape use the same allocator
 * (ade_set_allocator), since a workspace may be freed by another thread. */
typedef struct ade_tape ade_tape;

typedef struct ade_tape_options {
  const char *path;    /* file to stream the tape to (".adt"); NULL: memory.
                        * Written as "<path>.XXXXXX", renamed onto path by
                        * ade_trace_off: until then path keeps its old file */
  int level;           /* zstd level 1..19; 0 stores chunks raw; default 3 */
  uint32_t chunk_ops;  /* records per chunk; default 65536 */
  int capture;         /* nonzero: record call sites and region stacks */
  int defer;           /* nonzero (memory tapes only): record chunks raw, as
                        * fast as level 0, and compress them at level when
                        * the tape is saved (ade_tape_save); default 0 */
  int keep;            /* nonzero: the recorder also leaves the tape decoded in
                        * memory (the resident form of section "Sweeps" of
                        * the user guide, built from each chunk as it is
                        * written), so that the first sweep after
                        * ade_trace_off decodes no chunk (ADOL-C's
                        * trace_on(tag, 1)). It counts against the tape's
                        * memory limit (ade_tape_set_memory_limit, which may
                        * be set while recording): beyond it, or at an
                        * elemental call, the form is dropped and sweeps
                        * decode the chunks as without it. Same results,
                        * bit for bit. Default 0 */
} ade_tape_options;

/*! ade_tape_options_init: fill *o with the defaults. */
ADE_API void ade_tape_options_init(ade_tape_options *o);
/*! ade_tape_create: a new empty tape ready for ade_trace_on.
 * With o->path the tape streams into a new temporary file "<path>.XXXXXX"
 * in path's directory (mode 0644 less the umask; the old file's mode and
 * owner are not kept). ade_trace_off writes the footer, fsyncs, renames it
 * onto path and fsyncs the directory, also when the recording failed (the
 * footer marks the tape incomplete; trace_off returns the status). If the
 * footer cannot be written, the temporary file is left as a prefix for
 * ade_tape_recover and the error message names it. A crash while recording
 * therefore leaves the old file at path and a recoverable "<path>.XXXXXX".
 * A tape freed before ade_trace_on removes its temporary file.
 * The tape holds a serial until ade_tape_free, and its variables carry it:
 * recording rejects (sticky ADE_ESTATE) an operand of any other live tape,
 * finished or not, and one numbered beyond the records so far. An operand
 * of a freed tape is rejected unless 2^20 - 1 - L or more tapes were created
 * after it (L: the tapes from ade_tape_create alive when it was created):
 * then its serial may be in use again and the operand is taken, undetected,
 * for the record with the same number on the new tape.
 * @return ADE_OK, ADE_ENOMEM, ADE_EINVAL (bad option), ADE_EIO (cannot
 * create the temporary file: the message names path and the reason),
 * ADE_ETOOBIG (2^20 - 1 tapes from ade_tape_create alive: no serial left). */
ADE_API int ade_tape_create(ade_tape **tape, const ade_tape_options *o);
/*! ade_tape_open: open a tape file read-only, streaming chunks on demand.
 * The header, footer and chunk index are validated here; chunks when read.
 * @return ADE_OK, ADE_EIO, ADE_EFORMAT, ADE_EVERSION, ADE_ECHECKSUM,
 * ADE_ETRUNC, ADE_ETOOBIG, ADE_ENOMEM. */
ADE_API int ade_tape_open(ade_tape **tape, const char *path);
/*! ade_tape_recover: open a tape file whose footer is missing (the disk
 * filled up or the program died while recording; a streaming recording
 * leaves it as "<path>.XXXXXX" next to the path asked for, see
 * ade_tape_create): the intact chunks from the start are kept and the tape is marked incomplete (ade_stats.complete
 * is 0). It can be inspected and verified, not differentiated; regions,
 * diagnostics and call-site names lived in the lost footer.
 * @return ADE_OK, ADE_EIO, header errors, ADE_ENOMEM. */
ADE_API int ade_tape_recover(ade_tape **tape, const char *path);
/*! ade_tape_load: read a whole tape file into memory (same checks as open). */
ADE_API int ade_tape_load(ade_tape **tape, const char *path);
/*! ade_tape_save: write a finished tape to a file (bit-identical bytes;
 * a tape recorded with o->defer gets its chunks and footer compressed at
 * its level on the way, the bytes a recording at that level writes),
 * atomically: into a temporary file "<path>.XXXXXX" next to path, fsynced
 * and renamed onto path, the directory fsynced. On failure (or a crash)
 * path keeps its old contents; after a crash a stale "<path>.XXXXXX" may be
 * left. Saving a file-backed tape onto the file it reads is fine: the tape
 * keeps reading the old file. Mode 0644 less the umask.
 * @return ADE_OK, ADE_EINVAL, ADE_ESTATE (not finished), ADE_EIO (message
 * names path and the reason), ADE_ENOMEM, read errors of the tape. */
ADE_API int ade_tape_save(const ade_tape *tape, const char *path);
/*! ade_tape_bytes: the finished tape's bytes, if it lives in memory.
 * @return ADE_OK, ADE_EINVAL (file-backed), ADE_ESTATE (no footer). */
ADE_API int ade_tape_bytes(const ade_tape *tape, const void **bytes, size_t *size);
/*! ade_tape_from_bytes: a read-only tape over a copy of size bytes. */
ADE_API int ade_tape_from_bytes(ade_tape **tape, const void *bytes, size_t size);
/*! ade_tape_verify: read and check every chunk against every rule of a
 * valid tape (doc/tape-format.md, "What a valid tape is"): checksums,
 * sizes, opcodes, operand references (no dependent or comparison used as
 * an operand, in the chunk or through its imports), imports, the footer's
 * lists, diagnostics and counts. A tape it accepts is safe for every entry
 * point: no crash and memory and time bounded by its bytes.
 * @return ADE_OK, or the first error found (ADE_EFORMAT, ADE_ECHECKSUM,
 * ADE_ETRUNC, ADE_EUNSUPPORTED, ADE_ENOMEM, ADE_EIO) with ade_errmsg()
 * naming the chunk and record. */
ADE_API int ade_tape_verify(ade_tape *tape);
/*! ade_tape_structure_hash: *h = a 64-bit hash of the finished tape's
 * structure: its opcodes, which record each operand is (or that it is a
 * constant), the chunk boundaries, the independents and the dependents, in
 * order; not values. Two recordings of the same code path (at different
 * points) hash alike; a different path (a branch went the other way, another
 * size) hashes differently, up to collisions, which the plan cache guards
 * against with a second, independent hash and the tape's counts. Computed
 * while recording (free), or from the chunks' opcode and operand columns
 * on the first call for a tape read from bytes or a file; kept on the tape.
 * Safe to call from several threads. @return ADE_OK, ADE_EINVAL,
 * ADE_ESTATE (unfinished or incomplete tape), read errors. */
ADE_API int ade_tape_structure_hash(ade_tape *tape, uint64_t *h);
/*! ade_tape_free: release a tape (NULL is fine). A tape still recording is
 * finished first. */
ADE_API void ade_tape_free(ade_tape *tape);

/*! ade_trace_on: make tape the calling thread's current tape and start
 * recording. @return ADE_OK, ADE_ESTATE (tape finished or another tape is
 * current on this thread). */
ADE_API int ade_trace_on(ade_tape *tape);
/*! ade_trace_off: finish the current tape (write its footer) and detach it.
 * @return ADE_OK, or the sticky error that failed the recording (the part
 * recorded before the error stays readable and is marked incomplete). An
 * incomplete tape can be inspected (stats, regions, diagnostics, verify);
 * every call that evaluates or differentiates it returns ADE_ESTATE. If the
 * footer itself failed, ade_tape_bytes and ade_tape_save refuse it too. */
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
 * capture on, the user's call stack is stored with it. Names are stored up
 * to 4095 bytes. */
ADE_API void ade_region_begin(const char *name);
/*! ade_region_end: close the innermost open region. */
ADE_API void ade_region_end(void);

/* ------------------------------------------------------ vector elementals */

/* A vector elemental is a user function y = f(x), R^n -> R^m, recorded as
 * one call (opcode 255) whose derivatives come from callbacks registered
 * once per process under a unique name; a tape names its elementals, so a
 * tape loaded elsewhere needs the same names registered before any sweep
 * (ADE_ENOTFOUND naming the missing one otherwise). Every callback returns
 * 0 on success; any other value fails the sweep that called it with that
 * status if it is a negative ADE_E code, else with ADE_EINVAL, and
 * ade_errmsg() names the elemental, the callback and the record. x holds n
 * values, y and yd m, xd and xb n, yb m; J is m x n row-major. */
typedef int (*ade_elem_primal_fn)(void *ud, const double *x, double *y);
/* yd = f'(x) xd */
typedef int (*ade_elem_tangent_fn)(void *ud, const double *x, const double *xd, double *yd);
/* xb = yb^T f'(x) (overwritten, not accumulated) */
typedef int (*ade_elem_adjoint_fn)(void *ud, const double *x, const double *yb, double *xb);
/* J = f'(x) */
typedef int (*ade_elem_jacobian_fn)(void *ud, const double *x, double *J);

typedef struct ade_elemental_def {
  const char *name;              /* 1 .. 255 bytes, unique in the process */
  size_t n, m;                   /* inputs and outputs, 1 .. 65536 each,
                                  * n * m at most 2^20 (the dense Jacobian) */
  ade_elem_primal_fn primal;     /* required */
  ade_elem_tangent_fn tangent;   /* required */
  ade_elem_adjoint_fn adjoint;   /* required */
  ade_elem_jacobian_fn jacobian; /* optional (NULL): then n tangents or m
                                  * adjoints, whichever costs less */
  void *ud;                      /* passed to every callback */
  /* Cost of one tangent and one adjoint direction (any unit, e.g. fma or
   * nanoseconds); 0: measured at registration (nanoseconds per call, the
   * fastest of a few calls at probe, or at x = 1 if probe is NULL). */
  uint64_t tangent_cost, adjoint_cost;
  const double *probe;           /* n values, or NULL */
} ade_elemental_def;

typedef struct ade_elemental ade_elemental;

/*! ade_elemental_register: register d (copied; ud is kept as given) under
 * d->name. Registering a name again with the same n and m replaces its
 * callbacks and costs (no sweep may run on it meanwhile); with other sizes
 * it is ADE_EINVAL. Thread safe.
 * @return ADE_OK and *e (may be NULL if not wanted), ADE_EINVAL (NULL or
 * empty name, sizes out of range, a NULL required callback), ADE_ENOMEM,
 * or the status of a callback that failed while its cost was measured. */
ADE_API int ade_elemental_register(const ade_elemental_def *d, ade_elemental **e);
/*! ade_elemental_unregister: forget name's callbacks; tapes naming it then
 * fail their sweeps with ADE_ENOTFOUND (their handles stay valid). Thread
 * safe. @return ADE_OK, ADE_EINVAL, ADE_ENOTFOUND. */
ADE_API int ade_elemental_unregister(const char *name);
/*! ade_elemental_find: the registered elemental of that name, or NULL. */
ADE_API ade_elemental *ade_elemental_find(const char *name);
/*! ade_elemental_info: name, sizes and costs of e (any pointer may be NULL).
 * @return ADE_OK, ADE_EINVAL (e NULL), ADE_ENOTFOUND (unregistered). */
ADE_API int ade_elemental_info(const ade_elemental *e, const char **name, size_t *n, size_t *m,
                               uint64_t *tangent_cost, uint64_t *adjoint_cost);
/*! ade_elemental_call: y = f(x) with e's primal. While a tape records on
 * this thread and some x is active, the call is recorded as one elemental
 * record and every y is active (its outputs); otherwise the y are passive.
 * x and y are e's n and m values (they must not overlap).
 * @return ADE_OK, ADE_EINVAL (NULL argument), ADE_ENOTFOUND (e
 * unregistered), ADE_ETOOBIG (m above the tape's records per chunk), the
 * primal's failure; an error while recording also fails the tape (sticky,
 * as for every recording call) and leaves the y passive. */
ADE_API int ade_elemental_call(const ade_elemental *e, const ade_double *x, ade_double *y);

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

/*! ade_tape_set_memory_limit: how much memory (default 256 MiB) any one
 * call on the tape may use beyond a few decoded chunks and a 256 KiB work
 * area. It bounds every consumer: sweeps, ade_cgraph_from_tape (and the
 * graph keeps the limit: orderings, eliminations, ade_cgraph_dual,
 * ade_cgraph_pattern and ade_optimize's state tables, unless
 * ade_opt_limits.memory_limit is set, stay within it), plans, CPR, dense
 * Jacobians (the caller's J not counted) and every Hessian method. Each
 * estimates what it holds from the tape's counts before allocating and
 * checks again as it grows (fill-in, live sets). Sweeps switch to bounded
 * memory where they can: within the limit, sweeps at the recorded point
 * keep the chunks they decode and linearize and reverse sweeps keep one
 * adjoint per variable and direction; beyond it, reverse sweeps keep the
 * adjoints of the live variables only, and at a new point sweeps (and
 * ade_hessian, ade_elim_plan_jacobian) recompute each chunk's values from
 * the values earlier chunks export instead of keeping one value per
 * variable; dense and CPR Jacobians take fewer directions per forward
 * sweep. Forward sweeps keep p tangents per variable. Everything that
 * cannot stay within the limit fails with ADE_ENOMEM and ade_errmsg()
 * naming what needs how much and the limit. A tape that declares more
 * records than the limit can hold is thus refused before any array is
 * sized from its count. */
ADE_API void ade_tape_set_memory_limit(ade_tape *t, size_t bytes);
/*! ade_tape_resident_bytes: bytes of the tape's resident form (0: none).
 * The second sweep over a finished tape decodes it once into flat arrays
 * that later sweeps, plans and Hessians' value passes use instead of
 * decoding chunks, when it fits the memory limit: about 9 bytes per record
 * plus 8 per operand and 8 per constant operand, and 8 per operand more
 * once a sweep at the recorded point needs the partials there
 * (doc/user-guide.md, "Sweeps"). It is shared by all threads evaluating
 * the tape and counted against the memory limit; lowering the limit below
 * it frees it. */
ADE_API size_t ade_tape_resident_bytes(const ade_tape *t);
/*! ade_tape_peak_live: the most live adjoints held by the last reverse sweep
 * that ran on live adjoints (0 if none did; with several threads, the last
 * such sweep to finish). */
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
 * ("symmetric" for symmetric matrices, 1-based, %.17g), atomically like
 * ade_tape_save. @return ADE_OK, ADE_EINVAL, ADE_EIO, ADE_ENOMEM. */
ADE_API int ade_sparse_write_mtx(const ade_sparse *A, const char *path);

/* ------------------------------------------ Jacobians by elimination (elim/) */

/* The linearized computational graph (c-graph) G = (X u Z u Y, E) of a tape:
 * edge labels are the local partials at the recorded point (face-elimination
 * paper, Section 1), or its dual c-graph (Definition 1) whose intermediate
 * vertices carry the labels. Vertices are named by ids: a tape's record ids
 * (1-based), or the ids given to ade_cgraph_from_edges. Dual vertices are
 * numbered as in the paper: X~ = 1-n..0, Z~ = 1..|E| (G's edges in order),
 * Y~ = |E|+1..|E|+m, fill-in vertices from |E|+m+1 on. */
typedef struct ade_cgraph ade_cgraph;

/* The c-graph of a finished tape: independents are X (Jacobian columns in
 * order), dependents Y (rows), operations on a path from X to Y are Z;
 * constant operands and passive operations vanish, parallel edges are
 * merged by adding labels, and operations reaching no dependent or reached
 * from no independent are dropped (counted in *dropped, may be NULL).
 * @return ADE_OK, ADE_EINVAL (no independents or no dependents),
 * ADE_ESTATE (incomplete tape), ADE_ENOMEM, tape read errors. */
ADE_API int ade_cgraph_from_tape(ade_cgraph **g, ade_tape *t, size_t *dropped);
/*! ade_cgraph_from_edges: a c-graph from ne labelled edges src[k] -> dst[k]
 * (val NULL: labels 1); xid[0..n-1] are the independents, yid[0..m-1] the
 * dependents, every other id is intermediate. Edge k gets number k+1.
 * @return ADE_OK, ADE_EINVAL (an independent with an in-edge, a dependent
 * with an out-edge, an intermediate without in- or out-edges, a self loop,
 * an id listed twice), ADE_ECYCLE, ADE_ENOMEM. */
ADE_API int ade_cgraph_from_edges(ade_cgraph **g, size_t n, const long *xid, size_t m,
                                  const long *yid, size_t ne, const long *src,
                                  const long *dst, const double *val);
/*! ade_cgraph_dual: the dual c-graph of g (Definition 1). */
ADE_API int ade_cgraph_dual(ade_cgraph **d, const ade_cgraph *g);
/*! ade_cgraph_copy: a deep copy (same ids, same numbering state). */
ADE_API int ade_cgraph_copy(ade_cgraph **c, const ade_cgraph *g);
/*! ade_cgraph_free: release g (NULL is fine). */
ADE_API void ade_cgraph_free(ade_cgraph *g);
/*! ade_cgraph_size: live vertices and edges; n and m (any may be NULL). */
ADE_API void ade_cgraph_size(const ade_cgraph *g, size_t *nv, size_t *ne, size_t *n, size_t *m);
/*! ade_cgraph_is_dual: 1 for a dual c-graph. */
ADE_API int ade_cgraph_is_dual(const ade_cgraph *g);
/*! ade_cgraph_edge: the label of edge (i, j) of a c-graph into *c.
 * @return ADE_OK, ADE_ENOTFOUND. */
ADE_API int ade_cgraph_edge(const ade_cgraph *g, long i, long j, double *c);
/*! ade_cgraph_jacobian: the m x n Jacobian held by a fully eliminated graph
 * (bipartite c-graph, or tripartite dual). @return ADE_OK, ADE_ESTATE
 * (intermediate vertices or faces left), ADE_ENOMEM. */
ADE_API int ade_cgraph_jacobian(const ade_cgraph *g, ade_sparse **J);
/*! ade_cgraph_parts: the weakly connected components of g that hold an
 * intermediate vertex (*nparts) and the most edges in one of them
 * (*largest); either may be NULL. Orderings handle each such part alone
 * (doc/elimination.md), so their work grows with the parts.
 * @return ADE_OK, ADE_EINVAL, ADE_ENOMEM. */
ADE_API int ade_cgraph_parts(const ade_cgraph *g, size_t *nparts, size_t *largest);
/*! ade_cgraph_check: verify g's invariants (adjacency lists, edge index,
 * X minimal, Y maximal, no isolated intermediate). @return ADE_OK or
 * ADE_EFORMAT naming the broken one. */
ADE_API int ade_cgraph_check(const ade_cgraph *g);

/* Single elimination steps. *cost (may be NULL) gets the multiply-adds the
 * step executed. They return ADE_OK, ADE_EINVAL (not applicable: the message
 * says why), ADE_ENOMEM. A step allocates before it changes the graph: on
 * any error the graph and its counters are as before the call. */
/*! ade_elim_vertex: eliminate intermediate vertex v (cost |P_v||S_v|). */
ADE_API int ade_elim_vertex(ade_cgraph *g, long v, uint64_t *cost);
enum ade_edge_dir { ADE_FRONT = 0, ADE_BACK = 1 };
/*! ade_elim_edge: front (cost |S_j|) or back (cost |P_i|) elimination of
 * edge (i, j), Rule 2. */
ADE_API int ade_elim_edge(ade_cgraph *g, long i, long j, int dir, uint64_t *cost);
/*! ade_elim_face: eliminate the intermediate face (i, j) of a dual c-graph
 * (Rule 1: absorption or fill-in, then isolation or merge; cost 1). */
ADE_API int ade_elim_face(ade_cgraph *d, long i, long j, uint64_t *cost);

/* Elimination sequences: values that can be built, checked, applied, saved
 * and loaded (a line-oriented text format, doc/elimination.md). */
enum ade_seq_kind { ADE_SEQ_VERTEX = 0, ADE_SEQ_EDGE = 1, ADE_SEQ_FACE = 2 };
typedef struct ade_elim_step {
  long a, b;   /* vertex: a; edge: (a, b); face: (a, b) */
  int dir;     /* edges: ADE_FRONT or ADE_BACK */
} ade_elim_step;
typedef struct ade_elim_seq ade_elim_seq;

/*! ade_seq_create: an empty sequence of a kind. */
ADE_API int ade_seq_create(ade_elim_seq **s, int kind);
ADE_API void ade_seq_free(ade_elim_seq *s);
/*! ade_seq_push: append a step (edges: dir ADE_FRONT or ADE_BACK).
 * @return ADE_OK, ADE_EINVAL (NULL, a bad direction), ADE_ENOMEM. */
ADE_API int ade_seq_push(ade_elim_seq *s, long a, long b, int dir);
ADE_API int ade_seq_kind(const ade_elim_seq *s);
ADE_API size_t ade_seq_length(const ade_elim_seq *s);
/*! ade_seq_step: step i (NULL if out of range). */
ADE_API const ade_elim_step *ade_seq_step(const ade_elim_seq *s, size_t i);
/*! ade_seq_cost: the total cost recorded when the sequence was built by an
 * ordering or applied (0 if never). */
ADE_API uint64_t ade_seq_cost(const ade_elim_seq *s);
/*! ade_seq_bind: tie s to g's structure (a fingerprint checked on apply). */
ADE_API void ade_seq_bind(ade_elim_seq *s, const ade_cgraph *g);
/*! ade_seq_apply: apply every step to g (a c-graph for vertex and edge
 * sequences, a dual for face sequences); *cost gets the total. Stops at the
 * first inapplicable step with ADE_EINVAL naming it; a sequence bound to
 * another graph is refused. */
ADE_API int ade_seq_apply(ade_cgraph *g, const ade_elim_seq *s, uint64_t *cost);
/*! ade_seq_validate: apply s to a copy of g; ADE_OK if every step applies
 * (and *complete, may be NULL, says whether the result is the Jacobian). */
ADE_API int ade_seq_validate(const ade_cgraph *g, const ade_elim_seq *s, int *complete,
                             uint64_t *cost);
/*! ade_seq_save / ade_seq_load: the text form, to/from a file path; the
 * save is atomic like ade_tape_save (on failure path is left as it was). */
ADE_API int ade_seq_save(const ade_elim_seq *s, const char *path);
ADE_API int ade_seq_load(ade_elim_seq **s, const char *path);
/*! ade_seq_print: the text form to a stdio stream (FILE *). */
ADE_API int ade_seq_print(const ade_elim_seq *s, void *file);

/* Orderings (heuristics from the face-elimination and dynamic-programming
 * papers). Each builds a complete sequence for g without changing it. The
 * enum below is generated from the map; its names, for grep:
 *   ADE_ORDER_VERTEX_FORWARD    vertex elimination in forward order
 *   ADE_ORDER_VERTEX_REVERSE    vertex elimination in reverse order
 *   ADE_ORDER_VERTEX_MARKOWITZ  least Markowitz degree first (V_LM)
 *   ADE_ORDER_VERTEX_RELATIVE   least relative Markowitz degree (V_LR)
 *   ADE_ORDER_VERTEX_CHAINS     the chains first (intermediates with one
 *                               predecessor and one successor, at 1 fma
 *                               each), then the cheaper vertex sweep;
 *                               the cheaper plain sweep where that is not
 *                               cheaper (doc/elimination.md, "Chains first")
 *   ADE_ORDER_EDGE_FORWARD, ADE_ORDER_EDGE_REVERSE, ADE_ORDER_EDGE_MARKOWITZ,
 *   ADE_ORDER_EDGE_FILLIN       edge elimination (E_LF: least fill-in)
 *   ADE_ORDER_FACE_FORWARD, ADE_ORDER_FACE_REVERSE, ADE_ORDER_FACE_GREEDY
 *                               face elimination on the dual c-graph
 *   ADE_ORDER_COUNT             the number of orderings */
#define ADE_ORDER_MAP(X)                                                       \
  X(VERTEX_FORWARD, "vertex-forward", ADE_SEQ_VERTEX)                          \
  X(VERTEX_REVERSE, "vertex-reverse", ADE_SEQ_VERTEX)                          \
  X(VERTEX_MARKOWITZ, "vertex-markowitz", ADE_SEQ_VERTEX)    /* V_LM */        \
  X(VERTEX_RELATIVE, "vertex-relative", ADE_SEQ_VERTEX)      /* V_LR */        \
  X(VERTEX_CHAINS, "vertex-chains", ADE_SEQ_VERTEX)                            \
  X(EDGE_FORWARD, "edge-forward", ADE_SEQ_EDGE)                                \
  X(EDGE_REVERSE, "edge-reverse", ADE_SEQ_EDGE)                                \
  X(EDGE_MARKOWITZ, "edge-markowitz", ADE_SEQ_EDGE)                            \
  X(EDGE_FILLIN, "edge-fillin", ADE_SEQ_EDGE)                /* E_LF */        \
  X(FACE_FORWARD, "face-forward", ADE_SEQ_FACE)                                \
  X(FACE_REVERSE, "face-reverse", ADE_SEQ_FACE)                                \
  X(FACE_GREEDY, "face-greedy", ADE_SEQ_FACE)
enum ade_order {
#define ADE__ORDER_ENUM(N, s, k) ADE_ORDER_##N,
  ADE_ORDER_MAP(ADE__ORDER_ENUM)
#undef ADE__ORDER_ENUM
  ADE_ORDER_COUNT
};
/*! ade_order_name / ade_order_parse: "vertex-markowitz" <-> enum (-1 if unknown). */
ADE_API const char *ade_order_name(int order);
ADE_API int ade_order_parse(const char *name);
/*! ade_order_kind: the kind of sequence the ordering builds (ADE_SEQ_VERTEX,
 * _EDGE or _FACE), -1 if unknown. */
ADE_API int ade_order_kind(int order);
/*! ade_elim_order: a complete sequence for g (a c-graph; face orderings
 * work on its dual) by the ordering; its cost is set. An edge or face
 * ordering is never worse than the ones it generalizes, and none is worse
 * than vertex-markowitz or the cheaper vector mode: every edge and face
 * ordering returns vertex-markowitz's sequence or the vertex sweep of the
 * cheaper vector mode (reverse when g has fewer dependents than
 * independents, else forward; both directions where the other is about
 * as cheap to count), or that sweep after the chains (intermediates with
 * one predecessor and one successor, eliminated first) where cheaper (as
 * front eliminations, or as faces) when that costs less; edge-forward and
 * face-forward (-reverse) also vertex-forward's (vertex-reverse's),
 * face-greedy also the greedy edge orderings' (doc/elimination.md, "Never
 * worse than what they generalize"). A compared run whose cut bound
 * (ade_jacobian_baselines.cut) already reaches the cost to beat is not
 * started.
 * @return ADE_OK, ADE_EINVAL, ADE_ENOMEM, ADE_ELIMIT (face step limit). */
ADE_API int ade_elim_order(const ade_cgraph *g, int order, ade_elim_seq **s);
/*! ade_elim_order_limited: ade_elim_order within about time_limit seconds
 * (0: none). A greedy edge or face ordering or a face sweep first takes
 * the vector modes' vertex sweep (the cheaper vector mode's, reverse when
 * g has fewer dependents than independents, else forward, and the other
 * direction's too where it is about as cheap to count) as its kind, then
 * runs until the limit; out of time it returns that sweep (complete) and sets
 * *limited (may be NULL) to 1; else *limited = 0. vertex-markowitz and
 * vertex-relative out of time eliminate the rest in that sweep's order
 * (complete; *limited = 1). An ordering still
 * running at the limit is not compared with the orderings it generalizes
 * (doc/elimination.md, "Time limits"). The vertex sweeps
 * (forward, reverse) cost O(|E| n/64) (O(|E| m/64)) whatever their
 * multiply-adds: their cost is counted, not simulated.
 * @return as ade_elim_order. */
ADE_API int ade_elim_order_limited(const ade_cgraph *g, int order, double time_limit, ade_elim_seq **s,
                                   int *limited);
/*! ade_elim_order_native: as ade_elim_order_limited, but the sequence is
 * returned in the kind of the ordering that won (vertex < edge < face),
 * not converted to the ordering's kind: the same fma and Jacobian, and
 * applying it needs no conversion (a simulation) and, for a face
 * ordering whose winner is a vertex or edge sequence, no dual c-graph
 * (what ade_jacobian does for an ordering method). A face ordering's own
 * run whose dual grows past g's memory limit is dropped like one out of
 * time: the best of the others is returned and *limited set.
 * @return as ade_elim_order. */
ADE_API int ade_elim_order_native(const ade_cgraph *g, int order, double time_limit, ade_elim_seq **s,
                                  int *limited);

/* An ordering's progress, reported while it runs (ade_order_options and
 * ade_jacobian_options .progress): every progress_interval seconds (1 by
 * default), after the first, from the steps of the ordering running. */
typedef struct ade_order_progress {
  int method;        /* asked for: an ordering (enum ade_order) or ADE_ELIM_AUTO */
  int running;       /* the ordering running (enum ade_order): method itself,
                        or one it is compared with (never worse than what it
                        generalizes), or one ADE_ELIM_AUTO tries */
  double seconds;    /* since the ordering started */
  uint64_t steps;    /* elimination steps of the running ordering so far */
  uint64_t cost;     /* their fma */
  uint64_t best;     /* fma of the cheapest complete sequence so far (the
                        bar the running ordering must beat); UINT64_MAX: none */
  size_t component, components; /* the connected component ordered (from 1),
                                   of how many (each is ordered alone) */
} ade_order_progress;
typedef void (*ade_order_progress_fn)(void *ud, const ade_order_progress *p);

/* Options of ade_elim_order_with; all zero: ade_elim_order's behaviour. */
typedef struct ade_order_options {
  double time_limit;              /* seconds (ade_elim_order_limited); 0: none */
  int native;                     /* nonzero: the sequence in the kind of the
                                     ordering that won (ade_elim_order_native) */
  ade_order_progress_fn progress; /* NULL: none; called on the calling thread */
  void *progress_ud;
  double progress_interval;       /* seconds between reports (and before the
                                     first); 0: 1 */
  int threads;                    /* > 1: up to this many threads (at most
                                     16): g's connected components are
                                     ordered at once, and on one component
                                     a greedy edge or face ordering runs the
                                     orderings it is compared with beside
                                     its own (up to 4; under a time limit
                                     only with a limited flag to report
                                     it); without a time limit, the same
                                     sequence as with one thread. Not when
                                     the calling thread has an allocator
                                     hook. 0 or 1: one */
} ade_order_options;
/*! ade_elim_order_with: ade_elim_order_limited (or, with o->native,
 * ade_elim_order_native) with o's time limit, reporting progress to
 * o->progress while it runs (o may be NULL: no limit, no progress).
 * @return as ade_elim_order; ADE_EINVAL for a negative time limit or
 * interval. */
ADE_API int ade_elim_order_with(const ade_cgraph *g, int order, const ade_order_options *o, ade_elim_seq **s,
                                int *limited);

/* Methods of ade_jacobian, ade_elim_plan_create and ade_jacobian_loop
 * beside the orderings (enum ade_order), doc/elimination.md:
 *   ADE_ELIM_AUTO         the recommended method: the least fma of
 *                         vertex-markowitz and vertex-relative (run and
 *                         counted), vertex-reverse, vertex-forward and
 *                         vertex-chains (their costs counted exactly from
 *                         reachability counts; never more than the vector
 *                         modes m|E| and n|E|)
 *                         and CPR forward and reverse (colors |E|, tried when
 *                         the most entries in a row or column of J times |E|
 *                         is below the best so far); ties go to elimination.
 *                         With a plan cache it is chosen once per structure.
 *   ADE_ELIM_CPR_FORWARD, ADE_ELIM_CPR_REVERSE
 *                         CPR compression (ade_jacobian_cpr) as a method. */
enum ade_elim_method { ADE_ELIM_AUTO = 100, ADE_ELIM_CPR_FORWARD = 101, ADE_ELIM_CPR_REVERSE = 102 };
/*! ade_elim_method_name / ade_elim_method_parse: "auto", "cpr-forward",
 * "cpr-reverse" and the orderings' names <-> method (-1 if unknown). */
ADE_API const char *ade_elim_method_name(int method);
ADE_API int ade_elim_method_parse(const char *name);

/* A plan cache (elim/cache.c): compiled plans kept by the structure hash of
 * the tapes they were made for, so that recording the same code path again
 * (the next Newton iteration or time step) finds its plan instead of
 * building the graph and ordering it again. The library keeps no global
 * state: the cache is the caller's object. One cache may be shared by
 * several threads (a mutex guards lookups and inserts; plans are read only
 * while they run). */
typedef struct ade_plan_cache ade_plan_cache;

/* Jacobians by elimination. */
typedef struct ade_jacobian_options {
  const ade_elim_seq *seq; /* apply this sequence instead of an ordering */
  int check;               /* nonzero: check graph invariants after each step */
  ade_plan_cache *cache;   /* non-NULL (and seq, check unset): ade_jacobian
                              evaluates the cached plan of the tape's structure
                              and method at the recorded point, building and
                              caching it on a miss */
  double time_limit;       /* > 0: an ordering method (a greedy edge or face
                              ordering, a face sweep, vertex-markowitz,
                              vertex-relative) or ADE_ELIM_AUTO stops
                              choosing after about this many seconds and
                              returns its best complete sequence so far
                              (report->limited); 0: none
                              (ade_elim_order_limited) */
  const ade_cgraph *graph; /* non-NULL: t's c-graph, built by
                              ade_cgraph_from_tape(&graph, t, ...) and not
                              changed since (an optimizer's, say), used
                              instead of building it again; it stays as it
                              is (a copy, or the dual, is eliminated). Not
                              with cache (ade_elim_plan_create and the
                              loops build their own). With a seq that
                              ade_optimize's hierarchy built on this graph
                              (not changed since), the Jacobian its run
                              left is read off instead (the same numbers;
                              check unset) */
  ade_cgraph *graph_scratch; /* instead of graph (not both): the same, but
                              ade_jacobian may eliminate it in place, with
                              no copy (its own memory, not twice the
                              graph's); afterwards it can only be freed */
  ade_order_progress_fn progress; /* non-NULL: an ordering method's (or
                              ADE_ELIM_AUTO's orderings') progress, as
                              ade_order_options.progress */
  void *progress_ud;
  double progress_interval; /* seconds between reports; 0: 1 */
  int threads;              /* an ordering method's (or ADE_ELIM_AUTO's
                              orderings') threads, as
                              ade_order_options.threads; 0 or 1: one */
} ade_jacobian_options;

typedef struct ade_jacobian_report {
  uint64_t fma;             /* multiply-adds of the elimination */
  uint64_t fill;            /* fill-in: new edges (vertex, edge) or new vertices (face) */
  uint64_t absorbed;        /* updates of existing edges / vertices */
  uint64_t merged;          /* face elimination: vertex merges (one add each) */
  size_t steps;
  size_t vertices_before, edges_before;   /* the c-graph from the tape */
  size_t vertices_after, edges_after;     /* the bipartite graph: edges = nnz */
  size_t dropped;           /* tape operations not on an X -> Y path */
  uint64_t forward_cost;    /* dense forward vector mode, n |E| */
  uint64_t reverse_cost;    /* dense reverse vector mode, m |E| */
  double seconds;           /* graph construction, ordering and elimination */
  size_t colors;            /* ade_jacobian_cpr: directions (forward) or weights
                               (reverse) of the compressed sweeps; else 0 */
  int method;               /* the method used: the ordering, ADE_ELIM_CPR_*
                               (ADE_ELIM_AUTO: the one it chose), -1 for o->seq */
  int cached;               /* 1: the plan came from o->cache (the graph
                               figures are those of when it was built) */
  int limited;              /* 1: the ordering reached o->time_limit, or a
                               run of an edge or face ordering (its own or
                               one it compares) was dropped at the tape's
                               memory limit and the best of the others
                               used (ade_elim_order fails instead) */
} ade_jacobian_report;

/*! ade_jacobian: the sparse m x n Jacobian of a tape at its recorded point by
 * eliminating its c-graph with the ordering `method` (enum ade_order), or
 * with o->seq, or by a method of enum ade_elim_method (ADE_ELIM_AUTO is the
 * recommended one). With o->cache, the plan of the tape's structure and
 * method is looked up (built and kept on a miss) and run. With o->graph the
 * c-graph given is used (ADE_EINVAL if its n, m are not t's, or it is a
 * dual or already eliminated). report may be NULL. @return ADE_OK,
 * ADE_EINVAL, ADE_ESTATE, ADE_ENOMEM, ADE_ELIMIT, tape read errors. */
ADE_API int ade_jacobian(ade_tape *t, int method, const ade_jacobian_options *o,
                         ade_sparse **J, ade_jacobian_report *report);

/* Optimizers (doc/optimizers.md): elimination sequences of low or provably
 * minimal fma count. Methods and the kinds of sequence they build:
 *   exhaustive  shortest path over the metagraph, memoized on canonical
 *               graph states: the optimum (tiny graphs; vertex, edge, face)
 *   bnb         branch and bound from the best heuristic; lower bound: sum of
 *               minimal Markowitz degrees (vertex, edge, face)
 *   hierarchy   a heuristic hierarchy of filters, ade_opt_limits.hierarchy
 *               (locality-heuristics paper; vertex, edge, face)
 *   anneal      simulated annealing, seedable and reproducible (vertex, edge)
 *   dp-bfft, dp-bffa, dp-bfrt, dp-bfra  dynamic programming over the tangent
 *               (T) or adjoint (A) chain of extended Jacobians on the
 *               breadth-first forward (BFF) or reverse (BFR) quotient graph
 *               (DP paper): back (T) or front (A) edge eliminations (edge;
 *               face as the equivalent face sequence) */
/* The enum's names, for grep: ADE_OPT_EXHAUSTIVE, ADE_OPT_BNB,
 * ADE_OPT_HIERARCHY, ADE_OPT_ANNEAL, ADE_OPT_DP_BFFT, ADE_OPT_DP_BFFA,
 * ADE_OPT_DP_BFRT, ADE_OPT_DP_BFRA, ADE_OPT_COUNT. */
#define ADE_OPT_MAP(X)                                                         \
  X(EXHAUSTIVE, "exhaustive")                                                  \
  X(BNB, "bnb")                                                                \
  X(HIERARCHY, "hierarchy")                                                    \
  X(ANNEAL, "anneal")                                                          \
  X(DP_BFFT, "dp-bfft")                                                        \
  X(DP_BFFA, "dp-bffa")                                                        \
  X(DP_BFRT, "dp-bfrt")                                                        \
  X(DP_BFRA, "dp-bfra")
enum ade_opt_method {
#define ADE__OPT_ENUM(N, s) ADE_OPT_##N,
  ADE_OPT_MAP(ADE__OPT_ENUM)
#undef ADE__OPT_ENUM
  ADE_OPT_COUNT
};

/* Progress of a long search, passed to ade_opt_limits.progress. */
typedef struct ade_opt_progress {
  int method, kind;
  double seconds;      /* since the search started */
  uint64_t incumbent;  /* cost of the best complete sequence so far */
  uint64_t bound;      /* proven lower bound on the optimum */
  uint64_t nodes;      /* search nodes (states) expanded */
  uint64_t cuts;       /* subtrees cut by the bound or the state table */
} ade_opt_progress;
typedef void (*ade_opt_progress_fn)(void *ud, const ade_opt_progress *p);

typedef struct ade_opt_limits {
  double time_limit;        /* seconds; 0: none */
  uint64_t node_limit;      /* search nodes; 0: none */
  int threads;              /* bnb worker threads (pthreads), which also
                               try its start's heuristics at once; 0 or
                               1: one; ade_optimize_parts: see there */
  size_t memory_limit;      /* bytes for state tables; 0: 256 MiB; bnb
                               without a table under 64 KiB */
  const char *hierarchy;    /* filters, e.g. "sibling,markowitz,reverse";
                               NULL: the default of the kind */
  uint64_t seed;            /* anneal: random seed */
  uint64_t iterations;      /* anneal: moves; 0: 20000 */
  ade_opt_progress_fn progress; /* called about once a second after the
                                   first second, on the calling thread */
  void *progress_ud;
  double progress_interval; /* seconds between reports (and before the
                               first); 0: 1 */
} ade_opt_limits;

typedef struct ade_opt_report {
  uint64_t cost;        /* fma of the returned sequence (as applied) */
  uint64_t bound;       /* proven lower bound on the optimum of the kind */
  uint64_t initial;     /* cost of the sequence the search started from */
  int optimal;          /* 1: cost is proven minimal for the kind */
  int limited;          /* 1: a time, node or memory limit stopped the search */
  uint64_t nodes, cuts; /* search nodes expanded, subtrees cut */
  uint64_t states;      /* states held in the state table */
  double seconds;
} ade_opt_report;

/*! ade_opt_limits_init: no limits, one thread, default hierarchy, seed 1. */
ADE_API void ade_opt_limits_init(ade_opt_limits *l);
/*! ade_opt_name / ade_opt_parse: "bnb" <-> ADE_OPT_BNB; parse accepts a kind
 * suffix ("bnb-face") and stores it in *kind (may be NULL; untouched without
 * a suffix). @return the method, -1 if unknown. */
ADE_API const char *ade_opt_name(int method);
ADE_API int ade_opt_parse(const char *name, int *kind);
/*! ade_opt_supports: 1 if method builds sequences of this kind. */
ADE_API int ade_opt_supports(int method, int kind);
/*! ade_optimize: an elimination sequence for the c-graph g by method,
 * searching sequences of the given kind (enum ade_seq_kind), bound to g
 * (face sequences: to its dual), with its cost set. The result's kind
 * (ade_seq_kind) is the kind asked for, or a less general one (vertex <
 * edge < face) when the best sequence found is one: the start of an edge
 * or face search that the search did not beat, the dynamic programs' edge
 * sequences for faces, the cheaper vector mode's vertex sweep where an
 * edge or face hierarchy costs no less. Each vertex elimination is the front elimination
 * of its in-edges and each edge elimination that of its faces, so such a
 * sequence has the same fma and gives the same Jacobian (ade_jacobian with
 * o->seq applies it to g itself, no dual built); nothing is converted or
 * simulated on the dual that the caller did not need. limits and report
 * may be NULL. A search stopped by a limit still returns a valid complete
 * sequence (the best found, at worst the best heuristic) with
 * report->optimal = 0 and report->limited = 1. @return ADE_OK, ADE_EINVAL (not a c-graph, unknown
 * method, kind not supported, bad hierarchy), ADE_ETOOBIG (graph too large
 * for the method), ADE_ENOMEM. */
ADE_API int ade_optimize(const ade_cgraph *g, int kind, int method, const ade_opt_limits *limits,
                         ade_elim_seq **seq, ade_opt_report *report);

/* Parts of a tape and two-level elimination (doc/elimination.md, "Parts").
 * A partition names a part for each record id: part[id] in 0..nparts-1,
 * or ADE_PART_NONE for records in no part. */
#define ADE_PART_NONE SIZE_MAX
enum ade_parts_kind {
  ADE_PARTS_REGIONS = 0,   /* the innermost region (ade_region_begin/end) holding the record */
  ADE_PARTS_CALLSITES = 1, /* runs of records from one call of one function (needs
                              ade_tape_options.capture: sites named by libunwind) */
  ADE_PARTS_REPEATS = 2,   /* repeated blocks (time steps) found by a structure hash */
  ADE_PARTS_AUTO = 3       /* regions if the tape has any, else repeats; the rest
                              cut into parts of at most 1024 records */
};
/*! ade_tape_parts: the partition of t's records by kind into part[0..nid)
 * (nid: at least the record count + 1; part[0] is ADE_PART_NONE), *nparts
 * the number of parts (may be NULL); doc/elimination.md, "Parts".
 * Regions: regions still open when recording stopped end with the tape
 * (ade_trace_off closes them); regions nest, so they cannot overlap.
 * Call sites: a part is a maximal run of records whose call sites lie in
 * one function; it ends where the function's first recording statement of
 * the run records again (a new call; or a loop around that statement went
 * round), so one function called many times gives identical parts. Runs
 * cannot overlap or stay open. Records from the inline mixed forms of this
 * header, when a build without inlining leaves them frames of their own,
 * stay in the part of the record before them. Repeats: runs where the
 * sequence of opcodes (and which operands are constants) repeats with a
 * period L are cut into blocks of L records; a block whose structure hash
 * (opcodes, operands as constants, records of the block or the block's
 * k-th input) equals a neighbouring block's is a part; up to 4 periods are
 * taken in turn (nested loops). Records in no part are ADE_PART_NONE.
 * Call sites and repeats read every record's operands once (26 bytes a
 * record, within the tape's memory limit).
 * @return ADE_OK, ADE_EINVAL (NULL arguments, nid too small, unknown kind,
 * call sites on a tape recorded without capture), ADE_ESTATE (an
 * incomplete tape), ADE_ENOMEM, errors reading the tape. */
ADE_API int ade_tape_parts(const ade_tape *t, int kind, size_t *part, size_t nid, size_t *nparts);
/*! ade_tape_parts_levels: how many levels of parts nested regions give
 * (ade_tape_parts_level, ade_optimize_levels): with kind ADE_PARTS_REGIONS,
 * or ADE_PARTS_AUTO on a tape with regions, 1 + the height of the tallest
 * region (a region's height: 0 if it holds no region, else 1 + the
 * tallest region it holds), so 1 where regions do not nest; for the other
 * kinds 1. @return ADE_OK, ADE_EINVAL, ADE_ENOMEM. */
ADE_API int ade_tape_parts_levels(const ade_tape *t, int kind, size_t *nlevels);
/*! ade_tape_parts_level: level `level` (below ade_tape_parts_levels) of
 * t's parts, as ade_tape_parts: level 0 is ade_tape_parts' partition (the
 * innermost region holding a record); level k >= 1 labels each record by
 * the region of height k that holds it (a record's enclosing regions grow
 * in height outwards, so there is at most one), ADE_PART_NONE if none.
 * So a region's part at its level holds everything inside it.
 * @return as ade_tape_parts; ADE_EINVAL for a level beyond the last. */
ADE_API int ade_tape_parts_level(const ade_tape *t, int kind, size_t level, size_t *part, size_t nid,
                                 size_t *nparts);
/*! ade_parts_name / ade_parts_parse: ADE_PARTS_REPEATS <-> "repeats"
 * ("regions", "callsites", "repeats", "auto"). @return NULL / -1 if unknown. */
ADE_API const char *ade_parts_name(int kind);
ADE_API int ade_parts_parse(const char *name);

typedef struct ade_parts_report {
  size_t parts;          /* parts with an interior (eliminated at the first level) */
  size_t classes;        /* classes of identical parts: each solved once */
  size_t interior;       /* vertices eliminated at the first level */
  uint64_t local_cost;   /* fma of the first level */
  uint64_t outer_cost;   /* fma of the second level */
  uint64_t flat_cost;    /* the method on the whole graph in one level */
  uint64_t cost;         /* of the sequence returned: the two levels' sum,
                            or flat_cost if that is less */
  int two_level;         /* 1: the two-level sequence is returned */
  int outer_kind;        /* the second level's plan: ADE_SEQ_VERTEX, or
                            ADE_SEQ_EDGE when edge eliminations (an edge
                            ordering, or dynamic programming over the chain
                            of extended Jacobians) cost less */
  int limited;           /* a time or node limit cut a search short */
  double seconds;
  int inner_kind;        /* the first level's: ADE_SEQ_EDGE when edge
                            eliminations cost less for some class of parts
                            (the best heuristic only); the two-level
                            sequence is an edge sequence when either level
                            is */
  size_t levels;         /* levels of parts given (ade_optimize_levels'
                            nlevels; ade_optimize_parts: 1) */
  size_t levels_used;    /* of them, the levels before the rest (as one
                            graph) in the sequence of levels: the
                            cheapest place to stop, fewer on ties */
} ade_parts_report;
/*! ade_optimize_parts: an elimination sequence for g in two levels. First the
 * interior of each part (its intermediates whose successors all lie in the
 * part; vertex ids index part[0..nid); any label but ADE_PART_NONE names a
 * part, taken in increasing order) is eliminated on a graph of its own
 * (what feeds it as independents, the part's other vertices it feeds as
 * dependents): the part's local Jacobian is preaccumulated, and parts with
 * identical graphs (the time steps of a simulation) are solved once. Then
 * what is left is eliminated as one graph. Each level uses method (an
 * optimizer building vertex sequences, under limits), or, when method <
 * 0, the best heuristic of the vertex and edge kinds (the orderings, the
 * default hierarchies, dynamic programming over the chain of extended
 * Jacobians): where an edge plan costs less at either level, the
 * sequence is an edge sequence (report->inner_kind, outer_kind). The
 * method on the whole graph in one level is tried too, and the cheaper
 * sequence returned (report->two_level says which). With limits->threads
 * above 1 and method < 0, the classes are solved in that many threads,
 * and the one level beside the two: the same sequence as with one. The sequence is bound to g and its cost set; report may be
 * NULL. @return ADE_OK, ADE_EINVAL, ADE_ENOMEM,
 * errors of the method. */
ADE_API int ade_optimize_parts(const ade_cgraph *g, const size_t *part, size_t nid, int method,
                               const ade_opt_limits *limits, ade_elim_seq **seq, ade_parts_report *report);
/*! ade_optimize_levels: ade_optimize_parts over nlevels partitions, innermost
 * first (part[k nid .. (k + 1) nid) is level k's; ade_tape_parts_level):
 * the interiors of level 0's parts are eliminated as in
 * ade_optimize_parts, then, on what is left, those of level 1's parts, and
 * so on; then the rest as one graph. Nested regions so give one level per
 * height: a region's local Jacobian is preaccumulated from its inner
 * regions' ones. The report sums the levels of parts (parts, classes,
 * interior, local_cost; inner_kind the most general). After each level
 * of parts (that eliminated something) the rest is eliminated as one
 * graph too, and the cheapest of these stops is the sequence of levels
 * (report->levels_used: after how many levels), so more levels never
 * cost more than fewer; the one level is compared as in
 * ade_optimize_parts. nlevels 1 is ade_optimize_parts. @return as
 * ade_optimize_parts; ADE_EINVAL for nlevels 0. */
ADE_API int ade_optimize_levels(const ade_cgraph *g, const size_t *part, size_t nlevels, size_t nid, int method,
                                const ade_opt_limits *limits, ade_elim_seq **seq, ade_parts_report *report);

/* Streaming elimination (doc/elimination.md, "Streaming"). */
typedef struct ade_stream_report {
  uint64_t records;      /* records read */
  size_t period;         /* records of the repeated block found in the tape's first
                            65,536 records (0: none; parts of at most 1024 records) */
  size_t parts;          /* parts processed */
  size_t classes;        /* classes of identical parts: each optimized once */
  size_t eliminated;     /* parts whose interior was eliminated (the others cost less
                            by sweeping adjoints through them) */
  size_t largest;        /* records of the largest part */
  size_t max_live;       /* most live values between parts (the interface) */
  uint64_t elim_fma;     /* fma of the parts' eliminations */
  uint64_t fold_fma;     /* fma of the adjoints through what they left: m per edge */
  uint64_t fma;          /* elim_fma + fold_fma */
  uint64_t reverse_fma;  /* vector reverse mode through the same edges: m per edge */
  size_t part_bytes;     /* most bytes of one part's graph, buffers and adjoints */
  size_t peak_bytes;     /* part_bytes + the live adjoints' map + J + the classes */
  double seconds;
  size_t edge_classes;   /* classes eliminated by an edge plan (cheaper than
                            every vertex sequence the heuristics found) */
} ade_stream_report;
/*! ade_jacobian_stream: t's Jacobian (m x n, entries that are exactly 0
 * left out) by elimination in parts read from the tape chunk by chunk,
 * backward, so that memory holds one part, the adjoints (m each) of the
 * values live between parts, and the dense m x n Jacobian, never the
 * whole tape or its c-graph. Parts: the repeated blocks that the tape's
 * first 65,536 records show (ADE_PARTS_REPEATS: time steps) continued to
 * its end; records outside them in parts of at most 1024. A part's
 * interior (what no later part and no dependent reads) is eliminated by
 * the best heuristic sequence, found once per class of identical parts
 * (limits bounds the search, NULL: none; a block of the repeated period
 * gets the vertex and edge kinds, an edge plan where cheaper: edge
 * orderings, dynamic programming; a piece cut from the rest the vertex
 * kind), if that and sweeping the
 * m adjoints through what remains costs less than sweeping them through
 * the part; the fma are counted as executed (report). @return ADE_OK,
 * ADE_EINVAL, ADE_ENOMEM (also: a part or J beyond the tape's memory
 * limit), ADE_EUNSUPPORTED (elemental calls), tape read errors. */
ADE_API int ade_jacobian_stream(const ade_tape *t, const ade_opt_limits *limits, ade_sparse **J,
                                ade_stream_report *report);
/*! ade_opt_num_variants / ade_opt_variant: the (method, kind) pairs that
 * `adelim compare` lists, with labels such as "bnb-edge".
 * @return ADE_OK, ADE_EINVAL (i out of range). */
ADE_API size_t ade_opt_num_variants(void);
ADE_API int ade_opt_variant(size_t i, int *method, int *kind, const char **label);
/*! ade_chain_bracket: optimal bracketing, by dynamic programming, of the
 * dense Jacobian chain F_q' ... F_1' of q (vector) elementals F_i: R^{d[i-1]}
 * -> R^{d[i]} (d has q + 1 entries). With tangent and adjoint (q entries
 * each: fma of one tangent / adjoint evaluation of F_i) the generalized
 * problem is solved: F_i' may be accumulated in tangent or adjoint mode and
 * a sub-chain extended by tangents or adjoints of its end elementals instead
 * of a matrix product; NULL: the elemental Jacobians are given and only
 * products are chosen. *cost gets the fma; plan (may be NULL) gets the
 * bracketing as text, truncated to plan_size bytes: "(F3 (F2 F1))" for
 * products, "tan(F1)" / "adj(F1)" for F1' accumulated in tangent / adjoint
 * mode, "tan(F3, P)" for P extended by tangents of F3, "adj(P, F1)" for P
 * extended by adjoints of F1.
 * @return ADE_OK, ADE_EINVAL, ADE_ETOOBIG (q > 1024, or the cost above
 * 2^64 - 2: costs saturate), ADE_ENOMEM. */
ADE_API int ade_chain_bracket(size_t q, const size_t *d, const uint64_t *tangent,
                              const uint64_t *adjoint, uint64_t *cost, char *plan,
                              size_t plan_size);

/* Compiled eliminations. A plan is the arithmetic an elimination executes on
 * a tape's c-graph (one step per multiply-add: c = a b or c += a b, and the
 * additions of face merges), compiled once; it then gives the Jacobian from
 * the tape's partials alone, at the recorded point or at a new x, without
 * building or searching the graph again (doc/elimination.md). */
typedef struct ade_elim_plan ade_elim_plan;
/*! ade_elim_plan_create: compile the elimination of t's c-graph by the
 * ordering `method` (enum ade_order) or by o->seq; with ADE_ELIM_CPR_* (or
 * ADE_ELIM_AUTO choosing CPR) the plan is CPR's pattern and coloring and
 * runs compressed sweeps. o->cache is not used. report (may be NULL) as
 * for ade_jacobian. A plan may be run by several threads at once. It is
 * valid for every tape of the same structure (ade_tape_structure_hash).
 * @return as ade_jacobian. */
ADE_API int ade_elim_plan_create(ade_elim_plan **p, ade_tape *t, int method,
                                 const ade_jacobian_options *o, ade_jacobian_report *report);
/*! ade_elim_plan_free: release p (NULL is fine); a plan held by a cache
 * or a loop as well lives on until they release it too. */
ADE_API void ade_elim_plan_free(ade_elim_plan *p);
/*! ade_elim_plan_fma: the multiply-adds one run executes (the sequence's cost). */
ADE_API uint64_t ade_elim_plan_fma(const ade_elim_plan *p);
/*! ade_elim_plan_pattern: a new m x n matrix with the structure of J (values 0). */
ADE_API int ade_elim_plan_pattern(const ade_elim_plan *p, ade_sparse **J);
/*! ade_elim_plan_jacobian: J's values (J from ade_elim_plan_pattern) at x
 * (NULL: the recorded point) on the tape the plan was compiled for.
 * @return ADE_OK, ADE_WBRANCH (a recorded comparison differs at x; J is
 * that of the recorded operation sequence), ADE_EINVAL (another tape or J's
 * shape), ADE_ENOMEM, tape read errors. */
ADE_API int ade_elim_plan_jacobian(ade_elim_plan *p, ade_tape *t, const double *x, ade_sparse *J);
/*! ade_elim_plan_method: the method the plan runs (an ordering,
 * ADE_ELIM_CPR_FORWARD or _REVERSE; -1: a caller's sequence). */
ADE_API int ade_elim_plan_method(const ade_elim_plan *p);
/*! ade_plan_codegen: p as portable C (C99, <math.h> only) to a stdio
 * stream (FILE *): `int fname(const double *x, double *nz)` writes the
 * values at x of J's nonzeros, in the CSR order of ade_elim_plan_pattern,
 * by straight-line code (the tape's values and partials, then the plan's
 * multiply-adds in its order), and returns 0, or the number of recorded
 * comparisons that differ at x (the code is valid on the recorded path
 * only, as ade_elim_plan_jacobian's ADE_WBRANCH); also `const long
 * fname_m, fname_n, fname_nnz, fname_rowptr[], fname_col[]`, J's structure.
 * Compiled without fma contraction (-ffp-contract=off) its results equal
 * ade_elim_plan_jacobian's bitwise (doc/elimination.md). t is the tape p was
 * compiled for; fname a C identifier. A CPR plan (ADE_ELIM_CPR_*, which
 * auto may choose) has no elimination to emit: ADE_EINVAL.
 * @return ADE_OK, ADE_EINVAL, ADE_EIO
 * (write error), ADE_ENOMEM, tape read errors. */
ADE_API int ade_plan_codegen(const ade_elim_plan *p, ade_tape *t, const char *fname, void *file);

/* ------------------------------------------ plan caches and Jacobian loops */

typedef struct ade_plan_cache_stats {
  uint64_t hits, misses;   /* lookups that found a plan / built one */
  uint64_t collisions;     /* first hash equal, second hash or counts not */
  uint64_t evictions;      /* plans dropped for room (least recently used) */
  size_t entries, capacity;
} ade_plan_cache_stats;

/*! ade_plan_cache_create: an empty cache of at most capacity plans (0: 16).
 * @return ADE_OK, ADE_EINVAL (NULL c), ADE_ENOMEM. */
ADE_API int ade_plan_cache_create(ade_plan_cache **c, size_t capacity);
/*! ade_plan_cache_free: release c and its references to plans (NULL is fine). */
ADE_API void ade_plan_cache_free(ade_plan_cache *c);
/*! ade_plan_cache_get: *p = the plan for t's structure and method (enum
 * ade_order or ade_elim_method): found by ade_tape_structure_hash, checked
 * against a second independent hash and t's counts (records, chunks and
 * operands per chunk, independents, dependents, opcode counts), or built
 * by ade_elim_plan_create and kept. *hit (may be NULL) = 1 if found. The
 * caller owns a reference: ade_elim_plan_free it when done (it stays valid
 * if the cache drops it). report (may be NULL): the plan's creation report
 * (cached = 1 on a hit). @return as ade_elim_plan_create. */
ADE_API int ade_plan_cache_get(ade_plan_cache *c, ade_tape *t, int method, ade_elim_plan **p, int *hit,
                               ade_jacobian_report *report);
/*! ade_plan_cache_report: the cache's counters. */
ADE_API void ade_plan_cache_report(ade_plan_cache *c, ade_plan_cache_stats *s);

/* Derivatives in a loop (doc/user-guide.md): record once, get the pattern
 * once, evaluate the Jacobian at every new point by the tape's plan. When a
 * recorded comparison comes out differently at a new point (ADE_WBRANCH),
 * the tape no longer describes the function there: record again at that
 * point (a recorder callback does it for the loop) and the loop finds or
 * builds the plan of the new structure. The pattern the loop hands out is
 * the union of the patterns of all the structures it has seen, so it only
 * ever grows: entries absent on the current path hold 0. A loop is used by
 * one thread at a time; its cache may be shared. */
typedef struct ade_jacobian_loop ade_jacobian_loop;
/*! A recorder: record the function at x (n values) onto a new finished
 * tape *t, which the loop then owns and frees. @return ADE_OK (a warning
 * is taken as OK) or an error (then *t is ignored: the recorder frees
 * what it made). */
typedef int (*ade_record_fn)(void *ud, const double *x, ade_tape **t);
typedef struct ade_jacobian_loop_stats {
  uint64_t evals;          /* ade_jacobian_loop_eval calls that gave J */
  uint64_t retapes;        /* new tapes taken (the first not counted) */
  uint64_t plans_built;    /* cache misses: plans built */
  uint64_t pattern_growths;/* retapes that added entries to the pattern */
  int method;              /* of the current plan (auto: the one it chose) */
  uint64_t fma;            /* the current plan's multiply-adds per evaluation */
} ade_jacobian_loop_stats;
/*! ade_jacobian_loop_create: a loop over t (a finished tape the caller
 * keeps alive while the loop uses it) by method (ADE_ELIM_AUTO
 * recommended), with plans from cache (NULL: a private cache of 8).
 * @return as ade_plan_cache_get. */
ADE_API int ade_jacobian_loop_create(ade_jacobian_loop **L, ade_tape *t, int method, ade_plan_cache *cache);
/*! ade_jacobian_loop_free: release L, the tapes its recorder made and its
 * plans (NULL is fine). */
ADE_API void ade_jacobian_loop_free(ade_jacobian_loop *L);
/*! ade_jacobian_loop_set_recorder: on ADE_WBRANCH, ade_jacobian_loop_eval
 * calls fn(ud, x, &t) and continues on t (NULL fn: it returns ADE_WBRANCH). */
ADE_API void ade_jacobian_loop_set_recorder(ade_jacobian_loop *L, ade_record_fn fn, void *ud);
/*! ade_jacobian_loop_matrix: the loop's m x n CSR matrix: the pattern
 * (columns ascending in each row) and the values of the last evaluation.
 * The pointer stays valid until the pattern grows (ADE_WPATTERN). */
ADE_API const ade_sparse *ade_jacobian_loop_matrix(const ade_jacobian_loop *L);
/*! ade_jacobian_loop_triplets: the pattern as row[k], col[k] (nnz each, in
 * the order of the matrix's values), as solvers taking triplets want them.
 * @return ADE_OK, ADE_EINVAL. */
ADE_API int ade_jacobian_loop_triplets(const ade_jacobian_loop *L, size_t *row, size_t *col);
/*! ade_jacobian_loop_eval: the Jacobian at x (n values; NULL: the tape's
 * recorded point) into the loop's matrix; *J (may be NULL) = that matrix.
 * @return ADE_OK; ADE_WBRANCH (no recorder: a recorded comparison differs
 * at x; J is that of the recorded path); ADE_WPATTERN (a recorder made a
 * new tape at x whose pattern has entries the loop's had not: J is right
 * at x, on the grown pattern, and earlier matrix pointers are stale);
 * errors: ADE_EINVAL, ADE_ENOMEM, the recorder's, read errors. */
ADE_API int ade_jacobian_loop_eval(ade_jacobian_loop *L, const double *x, const ade_sparse **J);
/*! ade_jacobian_loop_retape: continue on t (a finished tape of the same
 * function, e.g. recorded again after ADE_WBRANCH; the caller keeps it
 * alive): its plan from the cache or built. @return ADE_OK (the pattern
 * holds t's), ADE_WPATTERN (it grew), ADE_EINVAL (another n or m), errors
 * as ade_plan_cache_get. On error the loop keeps its tape. */
ADE_API int ade_jacobian_loop_retape(ade_jacobian_loop *L, ade_tape *t);
/*! ade_jacobian_loop_tape: the tape the loop evaluates now. */
ADE_API ade_tape *ade_jacobian_loop_tape(const ade_jacobian_loop *L);
/*! ade_jacobian_loop_report: the loop's counters. */
ADE_API void ade_jacobian_loop_report(const ade_jacobian_loop *L, ade_jacobian_loop_stats *s);

/* Sparse Jacobians by Curtis-Powell-Reid (CPR) compression: the pattern of
 * J from the c-graph, a greedy distance-2 coloring of its columns (forward)
 * or rows (reverse), one vector sweep with a direction (weight vector) per
 * color, and every entry read off the compressed product (doc/elimination.md). */
enum ade_color_order {
  ADE_COLOR_NATURAL = 0,       /* columns (rows) in index order */
  ADE_COLOR_LARGEST_FIRST = 1, /* by decreasing distance-2 degree, ties by index */
  ADE_COLOR_BEST = 2           /* both; the one with fewer colors (natural on ties) */
};

/*! ade_cgraph_pattern: the sparsity pattern of the m x n Jacobian of g (a
 * c-graph, eliminated or not): entry (i, j), with value 1, when a path
 * leads from independent j to dependent i (index sets propagated forward
 * in topological order). @return ADE_OK, ADE_EINVAL, ADE_ENOMEM. */
ADE_API int ade_cgraph_pattern(const ade_cgraph *g, ade_sparse **P);
/*! ade_sparse_color: a CPR coloring of P's columns (mode ADE_FORWARD: two
 * columns with an entry in the same row differ; color has P->n entries) or
 * rows (ADE_REVERSE: two rows with an entry in the same column differ; P->m
 * entries), greedy in the order `order` (enum ade_color_order), each item
 * taking the least color its neighbours leave free. *ncolors (may be NULL)
 * gets the number of colors. @return ADE_OK, ADE_EINVAL, ADE_ENOMEM. */
ADE_API int ade_sparse_color(const ade_sparse *P, int mode, int order, size_t *color, size_t *ncolors);
/*! ade_jacobian_cpr_values: overwrite the values of P (a pattern of the
 * tape's Jacobian, as from ade_cgraph_pattern) with J's entries at x (NULL:
 * the recorded point) from compressed vector sweeps: ade_tangent_vec with
 * the seed S(j, color[j]) = 1 (ADE_FORWARD) or ade_adjoint_vec with the
 * weights W(i, color[i]) = 1 (ADE_REVERSE), at most 64 colors per sweep.
 * color/ncolors from ade_sparse_color with the same mode.
 * @return ADE_OK, ADE_WBRANCH (as for sweeps; J computed), ADE_EINVAL,
 * ADE_ENOMEM, tape read errors. */
ADE_API int ade_jacobian_cpr_values(ade_tape *t, int mode, const double *x, const size_t *color,
                                    size_t ncolors, ade_sparse *P);
/*! ade_jacobian_cpr: pattern, coloring (ADE_COLOR_BEST), compressed sweeps
 * and recovery in one call: *J (m x n CSR) at x (NULL: the recorded point).
 * The report (may be NULL) has colors and fma = colors |E|, the cost of a
 * vector sweep with that many directions on the c-graph, beside n|E| and
 * m|E|. @return as ade_jacobian_cpr_values, plus ADE_ESTATE. */
ADE_API int ade_jacobian_cpr(ade_tape *t, int mode, const double *x, ade_sparse **J,
                             ade_jacobian_report *r);

/* Baselines for the cost of a Jacobian ([DP] = Naumann, Jacobians by dynamic
 * programming, Section 1): vector modes, CPR compression, and the paper's
 * lower bounds, in multiplications. */
typedef struct ade_jacobian_baselines {
  size_t n, m, p;           /* independents, dependents, intermediates |Z| */
  size_t edges, nnz;        /* |E| of the c-graph, entries of J's pattern */
  size_t max_row_nnz;       /* n^: most entries in a row of J (<= column colors) */
  size_t max_col_nnz;       /* m^: most entries in a column of J (<= row colors) */
  size_t col_colors, row_colors; /* CPR colorings found (ADE_COLOR_BEST) */
  uint64_t dense_forward, dense_reverse; /* n |E|, m |E| */
  uint64_t cpr_forward, cpr_reverse;     /* col_colors |E|, row_colors |E| */
  uint64_t dm;              /* [DP] Cost_DM = min{n (m + p), m (n + p)} */
  uint64_t nr;              /* [DP] Cost_NR = min{n^ (m + p), m^ (n + p)}: one-sided
                               Newsam-Ramsdell compression */
  uint64_t nr_colors;       /* the same with the colors found in place of n^, m^ */
  uint64_t cut;             /* cut bound: every vertex, edge or face elimination of
                               the c-graph costs at least this many fma, the sum over
                               the intermediates j of kx(j) ky(j), the least vertex
                               cuts between X and j and between j and Y, each known
                               as 1 or 2 (dominators; doc/elimination.md, "Cut
                               bounds"); p where not known */
} ade_jacobian_baselines;

/*! ade_cgraph_baselines: the baselines of g (a c-graph not yet eliminated).
 * @return ADE_OK, ADE_EINVAL, ADE_ENOMEM. */
ADE_API int ade_cgraph_baselines(const ade_cgraph *g, ade_jacobian_baselines *b);

/*! ade_cgraph_print_dot: g (a c-graph or a dual) in Graphviz DOT to a stdio
 * stream (FILE *): vertices named by id, independents as boxes, dependents
 * as double circles, intermediates as circles; c-graph edges labelled with
 * their partials (%.3g), dual vertices with theirs. @return ADE_OK,
 * ADE_EINVAL, ADE_EIO. */
ADE_API int ade_cgraph_print_dot(const ade_cgraph *g, void *file);

/* ------------------------------------------------ Missions (elim/mission/) */

/* An AD mission (generalized face elimination paper, Naumann et al.): a DAG
 * whose vertices are vector variables v_j of size n_j and whose edges (i, j)
 * are elementals with the cost of one scalar tangent and one scalar adjoint,
 * and whether the elemental Jacobian F'(i, j) is given and whether tangent
 * and adjoint models are. A plan is a generalized face elimination sequence
 * (Rules 2 and 3): preaccumulations F'(i,j) by tangents or adjoints, and
 * eliminations of faces by a tangent, an adjoint or a dense matrix product,
 * each with its cost (doc/missions.md). Minimal variables are the inputs,
 * maximal ones the outputs. */
typedef struct ade_mission ade_mission;

/*! ade_mission_create: an empty mission DAG. @return ADE_OK, ADE_ENOMEM. */
ADE_API int ade_mission_create(ade_mission **d);
/*! ade_mission_free: release d (NULL is fine). */
ADE_API void ade_mission_free(ade_mission *d);
/*! ade_mission_add_var: a variable named id (unique) of the given size
 * (1..10^6; ids are 1..64 characters of A-Z a-z 0-9 _ . : + -); its index (0, 1, ... in order) into *index (may be NULL).
 * @return ADE_OK, ADE_EINVAL (duplicate id, bad size), ADE_ETOOBIG, ADE_ENOMEM. */
ADE_API int ade_mission_add_var(ade_mission *d, const char *id, uint64_t size, int *index);
/*! ade_mission_add_elemental: the elemental src -> dst (variable indices),
 * named id (NULL: its number), with costs (0..10^9) of one scalar tangent
 * and adjoint; has_jacobian: F' is given; has_model: the tangent and
 * adjoint models are (at least one of the two must be set).
 * @return ADE_OK, ADE_EINVAL (bad index, self loop, parallel edge, neither
 * Jacobian nor model, bad cost), ADE_ETOOBIG, ADE_ENOMEM. */
ADE_API int ade_mission_add_elemental(ade_mission *d, const char *id, int src, int dst,
                                      uint64_t tangent_cost, uint64_t adjoint_cost,
                                      int has_jacobian, int has_model);
/*! ade_mission_check: validate d: one elemental at least, no cycle, weakly
 * connected (a disconnected DAG is rejected: plan its parts one by one).
 * Planning and writing check by themselves. @return ADE_OK, ADE_EINVAL
 * (naming a variable outside the first part), ADE_ECYCLE (naming a
 * variable on a cycle), ADE_ENOMEM. */
ADE_API int ade_mission_check(ade_mission *d);
/*! ade_mission_read_graphml: read an ADMission GraphML file (keys size;
 * tangent_cost, adjoint_cost, has_jacobian, has_model) with libxml2,
 * validated as by ade_mission_check. At most 16 MiB, 10^4 nodes and
 * 2 10^4 edges.
 * @return ADE_OK, ADE_EIO, ADE_EFORMAT (not XML or not GraphML, missing
 * key, non-numeric or out-of-range value, dangling edge, duplicate id:
 * the message names the element), ADE_ECYCLE, ADE_EINVAL (disconnected),
 * ADE_ETOOBIG, ADE_ENOMEM. */
ADE_API int ade_mission_read_graphml(ade_mission **d, const char *path);
/*! ade_mission_read_graphml_mem: the same from len bytes in memory. */
ADE_API int ade_mission_read_graphml_mem(ade_mission **d, const char *buf, size_t len);
/*! ade_mission_write_graphml / ade_mission_write_dot: d as ADMission
 * GraphML (reads back to the same DAG) or Graphviz DOT (vertices labelled
 * id and size, edges tangent/adjoint cost, J when F' is given) to a stdio
 * stream (FILE *). @return ADE_OK, ADE_EINVAL, ADE_EIO. */
ADE_API int ade_mission_write_graphml(const ade_mission *d, void *file);
ADE_API int ade_mission_write_dot(const ade_mission *d, void *file);
/*! ade_mission_size: variables and elementals. */
ADE_API void ade_mission_size(const ade_mission *d, int *nvars, int *nelementals);
/*! ade_mission_var: variable i's id and size; ade_mission_elemental:
 * elemental k's id, source and target variables and costs of one scalar
 * tangent and adjoint (any output pointer may be NULL).
 * @return ADE_OK, ADE_EINVAL (NULL d, index out of range). */
ADE_API int ade_mission_var(const ade_mission *d, int i, const char **id, uint64_t *size);
ADE_API int ade_mission_elemental(const ade_mission *d, int k, const char **id, int *src, int *dst,
                                  uint64_t *tangent_cost, uint64_t *adjoint_cost);

/* Planners. dense-tangent and dense-adjoint are vector modes over the whole
 * DAG (a cost, no elimination plan); sparse-tangent / sparse-adjoint
 * preaccumulate the elementals at the inputs (outputs) and propagate
 * tangents (adjoints) from there; greedy-min-fill picks the move of least
 * fill-in (ties: least cost); greedy-cost the move of least cost (ties:
 * least fill); dp is exact on chains (a single path) only; bnb is branch
 * and bound, exact when it finishes; best runs bnb from the best greedy
 * plan. */
#define ADE_MISSION_METHOD_MAP(X)                                              \
  X(DENSE_TANGENT, "dense-tangent")                                            \
  X(DENSE_ADJOINT, "dense-adjoint")                                            \
  X(SPARSE_TANGENT, "sparse-tangent")                                          \
  X(SPARSE_ADJOINT, "sparse-adjoint")                                          \
  X(GREEDY_MIN_FILL, "greedy-min-fill")                                        \
  X(GREEDY_COST, "greedy-cost")                                                \
  X(DP, "dp")                                                                  \
  X(BNB, "bnb")                                                                \
  X(BEST, "best")
enum ade_mission_method {
#define ADE__MISSION_ENUM(N, s) ADE_MISSION_##N,
  ADE_MISSION_METHOD_MAP(ADE__MISSION_ENUM)
#undef ADE__MISSION_ENUM
  ADE_MISSION_NMETHODS
};
/*! ade_mission_method_name / _parse: "bnb" <-> ADE_MISSION_BNB (NULL / -1 if unknown). */
ADE_API const char *ade_mission_method_name(int method);
ADE_API int ade_mission_method_parse(const char *name);

/* Progress of a long search (about once a second after the first second). */
typedef struct ade_mission_progress {
  double seconds;
  uint64_t incumbent, bound, nodes;
} ade_mission_progress;
typedef void (*ade_mission_progress_fn)(void *ud, const ade_mission_progress *p);

typedef struct ade_mission_limits {
  double time_limit;    /* seconds; 0: none */
  uint64_t node_limit;  /* search nodes; 0: none */
  int threads;          /* bnb threads; 0 or 1: one */
  ade_mission_progress_fn progress; /* called on the calling thread */
  void *progress_ud;
} ade_mission_limits;
/*! ade_mission_limits_init: no limits, one thread, no progress. */
ADE_API void ade_mission_limits_init(ade_mission_limits *l);

/* A plan: its operations in order. Slots name the line dag's vertices:
 * elemental k is slot k, fill-in vertices (i,*,j,*,k) follow in order of
 * creation. */
typedef struct ade_mplan ade_mplan;
enum { ADE_MOP_ACC = 0, ADE_MOP_ELI = 1, ADE_MOP_MRG = 2 };    /* kinds */
enum { ADE_MODE_TAN = 0, ADE_MODE_ADJ = 1, ADE_MODE_MUL = 2 }; /* modes */
typedef struct ade_mplan_op {
  int kind;     /* ACC: F'(a) := tangents (F'(a) I) or adjoints (I F'(a));
                   ELI: F'(c) (+)= F'(b) F'(a) by TAN (tangents of b seeded
                   with F'(a)), ADJ (adjoints of a seeded with F'(b)) or MUL;
                   MRG: F'(c) += F'(a), a removed (cost 0) */
  int mode;
  int a, b, c;  /* slots; b unused for ACC and MRG, c unused for ACC */
  int fill;     /* ELI: c is a new vertex (else F'(b) F'(a) is added to it) */
  uint64_t cost;
} ade_mplan_op;

/*! ade_mission_plan: plan the Jacobian of d by method within limits (NULL:
 * none). A search stopped by a limit returns its best plan, not proven.
 * dense-* plans have a cost and no operations. @return ADE_OK, ADE_EINVAL
 * (bad method; dp on a DAG that is not a chain), ADE_ECYCLE, ADE_ENOMEM. */
ADE_API int ade_mission_plan(ade_mission *d, int method, const ade_mission_limits *l,
                             ade_mplan **p);
ADE_API void ade_mplan_free(ade_mplan *p);
/*! ade_mplan_cost: the total cost (fma) of p. */
ADE_API uint64_t ade_mplan_cost(const ade_mplan *p);
/*! ade_mplan_proven: 1 if the cost is proven minimal (Problem 2). */
ADE_API int ade_mplan_proven(const ade_mplan *p);
ADE_API int ade_mplan_method(const ade_mplan *p);
/*! ade_mplan_seconds, ade_mplan_nodes, ade_mplan_limited: planning time,
 * search nodes, and whether a limit stopped the search. */
ADE_API double ade_mplan_seconds(const ade_mplan *p);
ADE_API uint64_t ade_mplan_nodes(const ade_mplan *p);
ADE_API int ade_mplan_limited(const ade_mplan *p);
ADE_API size_t ade_mplan_num_ops(const ade_mplan *p);
/*! ade_mplan_op: operation i (NULL if out of range). */
ADE_API const ade_mplan_op *ade_mplan_op_at(const ade_mplan *p, size_t i);
/*! ade_mplan_slot_path: the variables (indices) of slot s's path, *len of
 * them; NULL if s is not a slot. ade_mplan_slot_elemental: the elemental
 * of slot s, -1 for fill-in. */
ADE_API const int *ade_mplan_slot_path(const ade_mplan *p, int s, int *len);
ADE_API int ade_mplan_slot_elemental(const ade_mplan *p, int s);
/*! ade_mplan_write_text: one line per operation, as the paper lists them
 * ("ACC TAN (0 1) 4", "ELI MUL (0 2 3) 1000", "MRG (-1 3) += (-1 1 3) 0"),
 * then the total. ade_mplan_write_json: one JSON object with method, cost,
 * proven_optimal, seconds, nodes, limited and plan (the operations). To a
 * stdio stream (FILE *). @return ADE_OK, ADE_EINVAL, ADE_EIO. */
ADE_API int ade_mplan_write_text(const ade_mplan *p, const ade_mission *d, void *file);
ADE_API int ade_mplan_write_json(const ade_mplan *p, const ade_mission *d, void *file);

/* Executing a plan on elementals given as callbacks (matrices column-major;
 * n_i, n_j: sizes of elemental k's source and target; ud from the struct).
 * tangent: Ydot (n_j x q) += F'_k Xdot (n_i x q); adjoint: Xbar (n_i x q)
 * += F'_k^T Ybar (n_j x q) (q directions each); jacobian (may be NULL when
 * no elemental has has_jacobian): J (n_j x n_i) := F'_k. A callback returns
 * 0, or a negative status that stops the execution. A tape-backed
 * elemental plugs in through the same three functions. */
typedef struct ade_mission_fns {
  int (*tangent)(void *ud, int k, size_t q, const double *xdot, double *ydot);
  int (*adjoint)(void *ud, int k, size_t q, const double *ybar, double *xbar);
  int (*jacobian)(void *ud, int k, double *J);
  void *ud;
} ade_mission_fns;
/*! ade_mplan_execute: run plan p of d (not a dense-* plan): J (m x n,
 * row-major; rows: the outputs' entries in variable order, columns: the
 * inputs') gets the Jacobian. *products (may be NULL) gets the
 * multiply-adds of the plan's dense products (MUL), the tangents and
 * adjoints being the callbacks' own. @return ADE_OK, ADE_EINVAL (a dense
 * plan, another DAG, a callback missing), ADE_ENOMEM, a callback's status. */
ADE_API int ade_mplan_execute(const ade_mplan *p, const ade_mission *d, const ade_mission_fns *f, double *J,
                              uint64_t *products);

/* Missions from a recorded tape (doc/missions.md, "Missions from a tape").
 * The tape's records are cut into runs: maximal stretches of records in one
 * part (kind ADE_PARTS_REGIONS: the innermost region holding them, or none
 * for the scalar code between regions; a region's records around a nested
 * one are two runs). The DAG's variables are x (the independents in order),
 * and per run of the c-graph (ade_cgraph_from_tape) its interface (the
 * values it computes that later runs use), named after its region ("top"
 * outside regions) and its number, "newton.3", and its outputs (its
 * dependents), "newton.3:y". Each run R gets an elemental S -> T for each
 * variable S it reads and each of its variables T that S reaches: F'(S, T),
 * the derivative of T with respect to S through R's records, with the
 * edges of R's c-graph on those paths as both its tangent and its adjoint
 * cost per direction (one multiply-add per edge and direction), and a
 * tangent and adjoint model (sweeps over those edges), no given Jacobian.
 * Each vector elemental call is a run of its own (named after the
 * elemental): its elementals F'(S, T) run the registered callbacks, with
 * the registered tangent and adjoint costs (0 counts as 1) and a given
 * Jacobian if it has an explicit Jacobian callback; ADE_ENOTFOUND names
 * an elemental this process has not registered. The mission keeps the c-graph (its structure, labels at the point of the
 * last execution). @return ADE_OK, ADE_EINVAL (NULL argument, unknown kind,
 * no dependent depends on an independent), ADE_ESTATE (incomplete tape),
 * ADE_ETOOBIG (more than 5000 runs with c-graph vertices, an elemental of
 * more than 10^9 edges, a variable of more than 10^6 entries), ADE_ENOMEM,
 * tape read errors. */
ADE_API int ade_mission_from_tape(ade_mission **d, ade_tape *t, int kind);
/*! ade_mission_tape_jacobian: execute plan p (of d, not a dense-* plan) on
 * tape t, the tape d was built from, at x (n values; NULL: the recorded
 * point): the c-graph's edge labels are computed at x, then the plan's
 * preaccumulations and eliminations run as sweeps over the runs' edges and
 * dense products (ade_mplan_execute). J (m x n, row-major, the tape's
 * dependents and independents in order, as ade_jacobian_dense) gets the
 * Jacobian; *fma (may be NULL) the multiply-adds executed: tangents,
 * adjoints and products, which is ade_mplan_cost(p). The plan is reusable
 * at any x. Not thread-safe on one d. @return ADE_OK, ADE_WBRANCH (J is
 * complete; a recorded comparison differs at x), ADE_EINVAL (a dense plan,
 * d not from a tape, another tape), ADE_ENOMEM, tape read errors. */
ADE_API int ade_mission_tape_jacobian(const ade_mplan *p, ade_mission *d, ade_tape *t, const double *x,
                                      double *J, uint64_t *fma);
/*! ade_mission_tape_fns: the elementals of d (built from tape t) as
 * callbacks at x (NULL: the recorded point), for ade_mplan_execute or
 * direct use: tangent and adjoint sweep elemental k's edges (|E| multiply-
 * adds per direction); jacobian gives its local Jacobian F'_k (n_j x n_i,
 * column-major) by vertex elimination (Markowitz order) of the c-graph of
 * its edges; a vector elemental call's run its registered callbacks at the
 * call's inputs (recorded, or replayed at x), counting its registered costs
 * (doc/missions.md). The callbacks stay valid until d is freed or this is called
 * again, and count their multiply-adds: ade_mission_tape_fma (zeroed
 * here). @return ADE_OK, ADE_WBRANCH (a recorded comparison differs at x),
 * ADE_EINVAL (d not from a tape, another tape), ADE_ENOTFOUND (an
 * elemental the tape calls is not registered), ADE_ENOMEM, tape errors. */
ADE_API int ade_mission_tape_fns(ade_mission *d, ade_tape *t, const double *x, ade_mission_fns *f);
ADE_API uint64_t ade_mission_tape_fma(const ade_mission *d);

/* ------------------------------------------------------ Hessians (hessian/) */

/* Second derivatives of the weighted sum f = sum_i w_i y_i of a tape's
 * dependents (a Lagrangian when m > 1), as a sparse symmetric n x n matrix
 * (lower triangle CSR, symmetric = 1). Methods (doc/hessians.md):
 *   ADE_HESS_EDGE_PUSH      one reverse sweep over the tape keeping adjoints
 *                           and the Hessian over the live variables (Gower
 *                           and Mello; Wang, Gebremedhin, Pothen). Streams
 *                           chunks backward; at the recorded point its memory
 *                           is bounded by the live set, not by the tape.
 *   ADE_HESS_VE_REVERSE     symmetric vertex elimination on the explicit
 *                           gradient graph, pairs in reverse topological
 *                           order: the same updates as edge pushing.
 *   ADE_HESS_VE_MARKOWITZ   the same with the pair of least Markowitz degree
 *                           eliminated first (ties: the first recorded),
 *                           chosen from a heap: O(log V) per degree change.
 *   ADE_HESS_FOR_OVER_REV   n Hessian-vector products by forward-over-reverse
 *                           (the oracle: dense, O(n l) time, O(l) memory).
 *   ADE_HESS_EDGE_PUSH_PREACC  edge pushing with statement-level
 *                           preaccumulation (LivarH): a record used once,
 *                           in its chunk, is folded into its user, and one
 *                           global step per tree of up to 16 records pushes
 *                           its dense local derivatives onto the leaves.
 *                           Same memory bound as ADE_HESS_EDGE_PUSH.
 *   ADE_HESS_STAR           compressed: the structural pattern of H (edge
 *                           pushing on structural partials), a star
 *                           coloring of it (Gebremedhin, Manne, Pothen),
 *                           one vector forward-over-reverse sweep pair
 *                           with a direction per color, and each entry read
 *                           directly off H S. Worth it in a loop through
 *                           ade_hess_plan, which keeps pattern and coloring;
 *                           one ade_hessian call pays for both.
 *   ADE_HESS_AUTO           in a plan: ADE_HESS_STAR or ADE_HESS_EDGE_PUSH,
 *                           whichever the predicted cost per evaluation
 *                           favours (doc/hessians.md states the rule). In
 *                           one ade_hessian call: edge pushing, since the
 *                           star method's pattern alone costs an edge push. */
enum ade_hess_method {
  ADE_HESS_EDGE_PUSH = 0,
  ADE_HESS_VE_REVERSE = 1,
  ADE_HESS_VE_MARKOWITZ = 2,
  ADE_HESS_FOR_OVER_REV = 3,
  ADE_HESS_EDGE_PUSH_PREACC = 4,
  ADE_HESS_STAR = 5,
  ADE_HESS_AUTO = 6
};
#define ADE_HESS_NMETHODS 7

typedef struct ade_hess_options {
  const double *x;  /* the point (n values); NULL: the recorded point */
  const double *w;  /* m weights; NULL is allowed only when m == 1 (w = 1) */
  double *grad;     /* output, may be NULL: the n gradient entries of f */
} ade_hess_options;

typedef struct ade_hess_report {
  double value;      /* f = sum w_i y_i at the point */
  uint64_t updates;  /* Hessian edge updates (doc/hessians.md defines them) */
  uint64_t fma;      /* all multiply-adds, adjoints and tangents included */
  size_t max_live;   /* largest live set (edge pushing), else 0 */
  size_t vertices;   /* vertex pairs eliminated (vertex elimination), else 0 */
  size_t nnz;        /* entries of the lower triangle of H */
  double seconds;    /* wall time of the call */
  size_t colors;     /* star coloring's colors (ADE_HESS_STAR), else 0 */
} ade_hess_report;

/*! ade_hess_options_init: x = w = grad = NULL. */
ADE_API void ade_hess_options_init(ade_hess_options *o);
/*! ade_hessian: *H = the Hessian of f = sum w_i y_i at o->x by method.
 * o may be NULL (recorded point, m == 1); r may be NULL. Entries never
 * reached by the method are structurally zero and absent from H.
 * @return ADE_OK; ADE_WBRANCH (H still computed) when a recorded comparison
 * differs at x; ADE_EINVAL (bad method, NULL H, m > 1 without weights),
 * ADE_ESTATE (tape unfinished or incomplete), ADE_ENOMEM, read errors.
 * On error *H is NULL. */
ADE_API int ade_hessian(ade_tape *t, int method, const ade_hess_options *o, ade_sparse **H,
                        ade_hess_report *r);
/*! ade_hess_method_name: "edge-push", "ve-reverse", "ve-markowitz",
 * "for-over-rev", "edge-push-preacc", "star", "auto"; NULL for an unknown
 * method. */
ADE_API const char *ade_hess_method_name(int method);
/*! ade_hess_method_parse: the method named name, or -1. */
ADE_API int ade_hess_method_parse(const char *name);

/*! ade_sparse_star_color: a star coloring of the graph of symmetric P
 * (vertices 0..n-1, an edge per off-diagonal entry): adjacent vertices
 * differ and every path on four vertices has three colors, so H can be read
 * directly off H S with S(j, color j) = 1 [Gebremedhin, Manne, Pothen
 * 2005, Algorithm 4.1], greedy in the order `order` (enum ade_color_order;
 * largest first: by degree). color gets n entries, *ncolors (may be NULL)
 * the number of colors. @return ADE_OK, ADE_EINVAL (NULL, not square
 * symmetric lower-triangle CSR), ADE_ENOMEM. */
ADE_API int ade_sparse_star_color(const ade_sparse *P, int order, size_t *color, size_t *ncolors);

/* Hessian plans: what a loop over new points needs once per tape structure.
 * ade_hess_plan_create computes the structural pattern of H for every
 * dependent (entries that can be nonzero at some point of the recorded
 * operation sequence) and, for ADE_HESS_STAR and ADE_HESS_AUTO, its star
 * coloring and recovery map; ade_hess_plan_hessian then runs only the
 * compressed products (or the chosen method) at each new x, into H with
 * the plan's pattern. */
typedef struct ade_hess_plan ade_hess_plan;
/*! ade_hess_plan_create: a plan for t by method (any ade_hess_method;
 * ADE_HESS_AUTO decides here). r (may be NULL) reports the pattern's
 * structural edge pushing (fma, updates), nnz, colors and seconds.
 * @return ADE_OK, ADE_EINVAL, ADE_ESTATE, ADE_ENOMEM, read errors. */
ADE_API int ade_hess_plan_create(ade_hess_plan **p, ade_tape *t, int method, ade_hess_report *r);
/*! ade_hess_plan_free: release p, or one reference to it when a cache holds it too (NULL is fine). */
ADE_API void ade_hess_plan_free(ade_hess_plan *p);
/*! ade_hess_plan_method: the method each evaluation runs (for ADE_HESS_AUTO
 * its choice, ADE_HESS_STAR or ADE_HESS_EDGE_PUSH); -1 for NULL. */
ADE_API int ade_hess_plan_method(const ade_hess_plan *p);
/*! ade_hess_plan_colors: the number of colors (0 without a coloring);
 * color (may be NULL) gets each independent's color. */
ADE_API size_t ade_hess_plan_colors(const ade_hess_plan *p, size_t *color);
/*! ade_hess_plan_cost: predicted multiply-adds of one evaluation by edge
 * pushing (the pattern's structural count, a bound at every point) and by
 * the star method (its sweeps, 0 without a coloring); either may be NULL. */
ADE_API void ade_hess_plan_cost(const ade_hess_plan *p, uint64_t *edge_push, uint64_t *star);
/*! ade_hess_plan_pattern: a new matrix with the plan's pattern (values 0). */
ADE_API int ade_hess_plan_pattern(const ade_hess_plan *p, ade_sparse **H);
/*! ade_hess_plan_hessian: H's values (H from ade_hess_plan_pattern) at
 * o->x with weights o->w (o as for ade_hessian) on the tape the plan was
 * made for. r may be NULL. @return as ade_hessian; ADE_EINVAL for another
 * tape or H's shape. */
ADE_API int ade_hess_plan_hessian(ade_hess_plan *p, ade_tape *t, const ade_hess_options *o, ade_sparse *H,
                                  ade_hess_report *r);

/* Hessian plan caches: as ade_plan_cache for Jacobian plans, keyed by
 * ade_tape_structure_hash and checked the same way, so that a tape recorded
 * again on the same code path (the next optimizer iterate) finds its
 * pattern, coloring and method choice, and a path whose branch went the
 * other way gets a plan of its own. Shared between threads under a mutex;
 * a plan stays valid while its holder keeps its reference. */
typedef struct ade_hess_plan_cache ade_hess_plan_cache;
/*! ade_hess_plan_cache_create: an empty cache of at most capacity plans
 * (0: 16). @return ADE_OK, ADE_EINVAL (NULL c or capacity over 2^20), ADE_ENOMEM. */
ADE_API int ade_hess_plan_cache_create(ade_hess_plan_cache **c, size_t capacity);
/*! ade_hess_plan_cache_free: release c and its references to plans (NULL is fine). */
ADE_API void ade_hess_plan_cache_free(ade_hess_plan_cache *c);
/*! ade_hess_plan_cache_get: *p = the plan for t's structure and method
 * (enum ade_hess_method), found or made by ade_hess_plan_create and kept;
 * *hit (may be NULL) = 1 if found. The caller owns a reference:
 * ade_hess_plan_free it when done (it stays valid if the cache drops it).
 * report (may be NULL): the plan's creation report.
 * @return as ade_hess_plan_create. */
ADE_API int ade_hess_plan_cache_get(ade_hess_plan_cache *c, ade_tape *t, int method, ade_hess_plan **p, int *hit,
                                    ade_hess_report *report);
/*! ade_hess_plan_cache_report: the cache's counters. */
ADE_API void ade_hess_plan_cache_report(ade_hess_plan_cache *c, ade_plan_cache_stats *s);

/* Hessians in a loop: the counterpart of ade_jacobian_loop for the
 * weighted Lagrangian Hessian sigma d2f + sum lambda_i d2c_i (the weights w
 * of one evaluation; doc/hessians.md). Record once, get the pattern once
 * (lower triangle CSR, or triplets), evaluate at every new point by the
 * tape's Hessian plan. On ADE_WBRANCH a recorder callback records again at
 * the point and the loop continues on the new tape with its plan (from the
 * cache or built). The pattern only grows: it is the union of the
 * structural patterns of all the structures seen, entries absent on the
 * current path hold 0, and a growth is reported as ADE_WPATTERN. A loop is
 * used by one thread at a time; its cache may be shared. */
typedef struct ade_hess_loop ade_hess_loop;
typedef struct ade_hess_loop_stats {
  uint64_t evals;          /* ade_hess_loop_eval calls that gave H */
  uint64_t retapes;        /* new tapes taken (the first not counted) */
  uint64_t plans_built;    /* cache misses: plans built */
  uint64_t pattern_growths;/* retapes that added entries to the pattern */
  int method;              /* of the current plan (auto: the one it chose) */
  uint64_t fma;            /* the current plan's predicted multiply-adds per evaluation */
} ade_hess_loop_stats;
/*! ade_hess_loop_create: a loop over t (a finished tape the caller keeps
 * alive while the loop uses it) by method (enum ade_hess_method;
 * ADE_HESS_AUTO recommended), with plans from cache (NULL: a private cache
 * of 8). @return as ade_hess_plan_cache_get. */
ADE_API int ade_hess_loop_create(ade_hess_loop **L, ade_tape *t, int method, ade_hess_plan_cache *cache);
/*! ade_hess_loop_free: release L, the tapes its recorder made and its
 * plans (NULL is fine). */
ADE_API void ade_hess_loop_free(ade_hess_loop *L);
/*! ade_hess_loop_set_recorder: on ADE_WBRANCH, ade_hess_loop_eval calls
 * fn(ud, x, &t) and continues on t (NULL fn: it returns ADE_WBRANCH). */
ADE_API void ade_hess_loop_set_recorder(ade_hess_loop *L, ade_record_fn fn, void *ud);
/*! ade_hess_loop_matrix: the loop's n x n symmetric matrix, lower triangle
 * CSR (columns ascending in each row): the pattern and the values of the
 * last evaluation. The pointer stays valid until the pattern grows
 * (ADE_WPATTERN). */
ADE_API const ade_sparse *ade_hess_loop_matrix(const ade_hess_loop *L);
/*! ade_hess_loop_triplets: the pattern as row[k] >= col[k] (nnz each, in
 * the order of the matrix's values), as solvers taking triplets (Ipopt)
 * want them. @return ADE_OK, ADE_EINVAL. */
ADE_API int ade_hess_loop_triplets(const ade_hess_loop *L, size_t *row, size_t *col);
/*! ade_hess_loop_eval: the Hessian of sum w_i y_i at x (n values; NULL:
 * the tape's recorded point) with weights w (m values; NULL only when
 * m == 1) into the loop's matrix; *H (may be NULL) = that matrix.
 * @return ADE_OK; ADE_WBRANCH (no recorder, or x NULL: a recorded
 * comparison differs at x; H is that of the recorded path); ADE_WPATTERN
 * (a recorder made a new tape at x whose pattern has entries the loop's
 * had not: H is right at x, on the grown pattern, and earlier matrix
 * pointers are stale); errors: ADE_EINVAL, ADE_ENOMEM, the recorder's,
 * read errors. */
ADE_API int ade_hess_loop_eval(ade_hess_loop *L, const double *x, const double *w, const ade_sparse **H);
/*! ade_hess_loop_retape: continue on t (a finished tape of the same
 * function; the caller keeps it alive): its plan from the cache or built.
 * @return ADE_OK (the pattern holds t's), ADE_WPATTERN (it grew),
 * ADE_EINVAL (another number of independents or dependents), errors as
 * ade_hess_plan_cache_get. On error the loop keeps its tape. */
ADE_API int ade_hess_loop_retape(ade_hess_loop *L, ade_tape *t);
/*! ade_hess_loop_tape: the tape the loop evaluates now. */
ADE_API ade_tape *ade_hess_loop_tape(const ade_hess_loop *L);
/*! ade_hess_loop_report: the loop's counters. */
ADE_API void ade_hess_loop_report(const ade_hess_loop *L, ade_hess_loop_stats *s);

#ifdef __cplusplus
}
#endif
#endif /* ADELIM_H */
