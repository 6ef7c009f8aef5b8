/* bench_overhead.c: a fixed number of gradients at new points of a small
 * tape, to count instructions per call under callgrind (deterministic,
 * unlike seconds on a shared machine): run it with CALLS and 3 CALLS and
 * divide the difference by 2 CALLS. Public API only, so it links against an
 * older library too (doc/benchmarks.md, "Tapes shared between threads").
 * Usage: bench_overhead [n = 20] [calls = 2000] */
#include <adelim.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20, calls = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000;
  ade_tape *t;
  if (n < 1 || ade_tape_create(&t, NULL) || ade_trace_on(t)) return 1;
  ade_double p = ade_indep(1.01); /* y = x_0 sin(x_1) ... sin(x_{n-1}) */
  for (size_t i = 1; i < n; i++) p = ade_mul(p, ade_sin(ade_indep(1.0 + 0.01 * (double)i)));
  ade_dep(p);
  if (ade_trace_off()) return 1;
  double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g), f, sum = 0;
  for (size_t k = 0; x && g && k < calls; k++) {
    for (size_t i = 0; i < n; i++) x[i] = 1.0 + 0.001 * (double)(k % 13) + 0.01 * (double)i;
    if (ade_gradient(t, x, &f, g) < 0) return 1;
    sum += g[0];
  }
  printf("%zu gradients, sum of dy/dx0 %.17g\n", calls, sum);
  free(x);
  free(g);
  ade_tape_free(t);
  return 0;
}
