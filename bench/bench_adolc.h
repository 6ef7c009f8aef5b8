/* bench_adolc.h: the ADOL-C side of bench_tape, callable from C. */
#ifndef BENCH_ADOLC_H
#define BENCH_ADOLC_H

#include "bench_util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bench_adolc_result {
  int spilled;            /* 1: a tape outgrew its buffer and went to a file */
  double ops;             /* NUM_OPERATIONS */
  double locs, vals, tays;/* NUM_LOCATIONS, NUM_VALUES, TAY_STACK_SIZE */
  double bytes;           /* ops*1 + locs*sizeof(locint) + (vals + tays)*8 */
  double rec_s;           /* trace_on(tag, 0) .. trace_off() */
  double rec_keep_s;      /* trace_on(tag, 1) .. trace_off() */
  double fwd_s;           /* fos_forward(keep 0): y and Y = F'(x) X */
  double rev_s;           /* fos_reverse alone, Taylors from zos_forward(keep 1) */
  double fwdrev_s;        /* zos_forward(keep 1) + fos_reverse */
  double *y, *yd, *xb;    /* m, m, n: values, tangent, adjoint */
};

/*! bench_adolc_setup: make ADOL-C keep tapes of up to bufsize entries per
 * stream in memory (its .adolcrc buffer sizes). Call once, first. */
void bench_adolc_setup(size_t bufsize);
/*! bench_adolc_run: record p with ADOL-C and time it; fills *r, allocating
 * r->y, r->yd, r->xb (free them with free()). @return 0, -1 on failure. */
int bench_adolc_run(const struct bench_problem *p, struct bench_adolc_result *r);

#ifdef __cplusplus
}
#endif
#endif /* BENCH_ADOLC_H */
