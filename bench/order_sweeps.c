/* order_sweeps.c: the sweeps the edge and face orderings start from, and
 * the cut bound, on saved tapes (doc/elimination.md, "Cut bounds" and
 * "Chains first").
 *
 * Usage: order_sweeps TAPE.adt...
 *   for each tape: the fma of the forward and reverse vertex sweeps
 *   (ade__order_raw, not compared with anything), of the sweep the
 *   orderings start from (ade__vector_sweep: the cheaper sweep, or the
 *   sweep after the chains where that is cheaper still), and the cut
 *   bound (ade_jacobian_baselines.cut). Links the internal library. */
#include <stdio.h>

#include "elim_internal.h"

static unsigned long long raw(const ade_cgraph *g, int o) {
  ade_elim_seq *s = NULL;
  unsigned long long c = ade__order_raw(g, o, 0, &s) == ADE_OK ? ade_seq_cost(s) : 0;
  ade_seq_free(s);
  return c;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: order_sweeps TAPE.adt...\n");
    return 2;
  }
  printf("tape forward reverse start cut_bound\n");
  for (int a = 1; a < argc; a++) {
    ade_tape *t = NULL;
    ade_cgraph *g = NULL;
    ade_elim_seq *v = NULL;
    ade_jacobian_baselines b;
    if (ade_tape_open(&t, argv[a]) || ade_cgraph_from_tape(&g, t, NULL) || ade__vector_sweep(g, &v) ||
        ade_cgraph_baselines(g, &b)) {
      fprintf(stderr, "order_sweeps: %s: %s\n", argv[a], ade_errmsg());
      return 1;
    }
    printf("%s %llu %llu %llu %llu\n", argv[a], raw(g, ADE_ORDER_VERTEX_FORWARD), raw(g, ADE_ORDER_VERTEX_REVERSE),
           (unsigned long long)ade_seq_cost(v), (unsigned long long)b.cut);
    ade_seq_free(v);
    ade_cgraph_free(g);
    ade_tape_free(t);
  }
  return 0;
}
