/* fuzz_tape.c: libFuzzer harness for the tape reader: open, inspect, verify and differentiate any bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_internal.h"

#define MAXNM 64               /* differentiate tapes with n, m <= MAXNM */
#define MAXRECORDS (1u << 20)  /* ... and at most this many records (time) */
#define MAXALLOC ((size_t)256 << 20) /* a bigger block from a fuzz input is a bug */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The library's allocations go through here: one too big, or blocks still
 * live after ade_tape_free, abort, so even a build without sanitizers
 * (replay_corpus in `make check`) catches huge allocations and leaks. */
static size_t live;

static void *hook(void *ud, void *p, size_t n) {
  (void)ud;
  if (!n) {
    live -= p != NULL;
    free(p);
    return NULL;
  }
  if (n > MAXALLOC) {
    fprintf(stderr, "fuzz_tape: allocation of %zu bytes\n", n);
    abort();
  }
  void *q = realloc(p, n);
  live += q && !p;
  return q;
}

/* Every byte the library hands out is read, so a bad pointer is caught. */
static size_t touch(const char *s) { return s ? strlen(s) : 0; }

static void inspect(const ade_tape *t) {
  ade_stats s;
  ade_diagnostic d;
  ade_region r;
  size_t sum = 0;
  if (ade_tape_stats(t, &s) != ADE_OK) abort();
  size_t nd = ade_tape_num_diagnostics(t), nr = ade_tape_num_regions(t);
  for (size_t i = 0; i < nd; i++) {
    if (ade_tape_diagnostic(t, i, &d) != ADE_OK) abort();
    if (d.op >= s.records || d.kind < ADE_DIAG_KINK || d.kind > ADE_DIAG_NONFINITE) abort();
    sum += touch(d.site) + touch(ade_op_name(d.opcode));
  }
  if (ade_tape_diagnostic(t, nd, &d) == ADE_OK) abort();
  for (size_t i = 0; i < nr; i++) {
    if (ade_tape_region(t, i, &r) != ADE_OK) abort();
    if (r.parent < -1 || r.parent >= (int)i || r.first_op > r.end_op || r.end_op > s.records)
      abort(); /* the documented contract of ade_region */
    sum += touch(r.name);
    for (size_t k = 0; k < r.nframes; k++) sum += touch(ade_tape_region_frame(t, i, k));
    if (ade_tape_region_frame(t, i, r.nframes)) abort();
  }
  if (ade_tape_region(t, nr, &r) == ADE_OK) abort();
  (void)sum;
}

/* The recorded point: the values of the INDEP records, in order. */
static int recorded_point(ade_tape *t, double *x, size_t n) {
  size_t ix = 0;
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__view_load(t, c);
    if (st) return st;
    for (uint32_t i = 0; i < t->view.n; i++)
      if (t->view.op[i] == ADE_OP_INDEP && ix < n) x[ix++] = t->view.val[i];
  }
  return ix == n ? ADE_OK : ADE_EFORMAT;
}

/* Dense Jacobians both ways at the recorded point, a replay nearby. */
static void differentiate(ade_tape *t, size_t n) {
  static double Jf[MAXNM * MAXNM], Jr[MAXNM * MAXNM];
  double x[MAXNM + 1], y[MAXNM + 1];
  int sf = ade_jacobian_dense(t, ADE_FORWARD, NULL, Jf);
  int sr = ade_jacobian_dense(t, ADE_REVERSE, NULL, Jr);
  if (sf != sr) abort(); /* both read the same chunks */
  if (recorded_point(t, x, n) != ADE_OK) abort();
  for (size_t i = 0; i < n; i++) x[i] = x[i] * (1.0 + 0x1p-20) + 0x1p-30;
  ade_replay(t, x, y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ade_tape *t = NULL;
  ade_set_allocator(hook, NULL);
  live = 0;
  if (ade_tape_from_bytes(&t, data, size) != ADE_OK) {
    if (t || live) abort(); /* a failed open leaves nothing behind */
    return 0;
  }
  inspect(t);
  int ok = ade_tape_verify(t) == ADE_OK;
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  if (ok && t->meta.complete && n <= MAXNM && m <= MAXNM && t->meta.records <= MAXRECORDS)
    differentiate(t, n);
  ade_tape_free(t);
  if (live) {
    fprintf(stderr, "fuzz_tape: %zu blocks leaked\n", live);
    abort();
  }
  return 0;
}
