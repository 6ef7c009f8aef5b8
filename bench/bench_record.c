/* bench_record.c: record one benchmark tape R times, for instruction counts of the recorder (callgrind).
 *
 * bench_record [speelpenning|bratu2d] [R] [level] [defer]: records the
 * tape (problems.h, the functions bench_tape records) R times, each with
 * ade_tape_create .. ade_trace_off, and prints the best wall time of one.
 * Run it under `valgrind --tool=callgrind` and divide by R for
 * instructions per tape (doc/benchmarks.md, "Recording: a fast path");
 * it uses only the API of earlier versions, so that it also builds
 * against them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <adelim.h>

#define BENCH_REAL ade_double
#define BENCH_FN(name) rec_##name
#include "problems.h"

int main(int argc, char **argv) {
  (void)rec_eval; /* problems.h's dispatcher: this program calls the two functions itself */
  const int bratu = argc > 1 && !strcmp(argv[1], "bratu2d");
  const int reps = argc > 2 ? atoi(argv[2]) : 200;
  ade_tape_options o;
  ade_tape_options_init(&o);
  if (argc > 3) o.level = atoi(argv[3]);
  if (argc > 4) o.defer = atoi(argv[4]);
  const size_t n = bratu ? 4096 : 1000, m = bratu ? 4096 : 1;
  ade_double *x = malloc(n * sizeof *x), *y = malloc(m * sizeof *y);
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    const double t0 = bench_now();
    ade_tape *t;
    if (ade_tape_create(&t, &o) || ade_trace_on(t)) {
      fprintf(stderr, "bench_record: %s\n", ade_errmsg());
      return 1;
    }
    for (size_t i = 0; i < n; i++) x[i] = ade_indep(1.0 + 1e-4 * (double)i);
    if (bratu) rec_bratu(64, 6.0, x, y);
    else rec_speelpenning(n, x, y);
    for (size_t j = 0; j < m; j++) ade_dep(y[j]);
    if (ade_trace_off()) {
      fprintf(stderr, "bench_record: %s\n", ade_errmsg());
      return 1;
    }
    const double dt = bench_now() - t0;
    if (dt < best) best = dt;
    ade_tape_free(t);
  }
  printf("%s, %d tapes, level %d%s: best %.4f ms\n", bratu ? "bratu2d" : "speelpenning", reps, o.level,
         o.defer ? " deferred" : "", best * 1e3);
  free(x);
  free(y);
  return 0;
}
