/* order_own.c: each greedy ordering's own run against what the method
 * returns, on saved tapes: how much of a method's answer and time its own
 * run accounts for (doc/benchmarks.md, issue 12's face-greedy).
 *
 * Usage: order_own TAPE.adt...
 *   for each tape and each of vertex-markowitz, edge-markowitz,
 *   edge-fillin and face-greedy: the fma of the ordering's own run,
 *   uncapped and not compared with anything (the library's internal
 *   ade__order_raw, as check_order calls it), with its CPU seconds, and
 *   the fma of the method as ade_elim_order_native returns it (the
 *   cheapest of the vector sweep, the orderings it generalizes and its
 *   own run, each run cut once it cannot win) with its CPU seconds ("L":
 *   one of its runs dropped at a limit). The own run of a face ordering
 *   may stop at the tape's memory limit ("memory limit"; the reason on
 *   stderr). Links the internal library (not libadelim). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "elim_internal.h"

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  static const int orders[] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_EDGE_FILLIN,
                               ADE_ORDER_FACE_GREEDY};
  if (argc < 2) {
    fprintf(stderr, "usage: %s TAPE.adt...\n", argv[0]);
    return 2;
  }
  printf("%-24s %-17s %14s %8s %14s %8s\n", "tape", "ordering", "own fma", "own s", "method fma", "method s");
  for (int a = 1; a < argc; a++) {
    ade_tape *t = NULL;
    ade_cgraph *g = NULL;
    if (ade_tape_open(&t, argv[a]) || ade_cgraph_from_tape(&g, t, NULL)) {
      fprintf(stderr, "%s: %s\n", argv[a], ade_errmsg());
      ade_tape_free(t);
      return 1;
    }
    for (size_t k = 0; k < sizeof orders / sizeof *orders; k++) {
      ade_elim_seq *s = NULL;
      int limited = 0;
      double t0 = cpu();
      int st = ade__order_raw(g, orders[k], 0, &s);
      double t1 = cpu();
      printf("%-24s %-17s ", argv[a], ade_order_name(orders[k]));
      if (st) {
        fprintf(stderr, "%s: %s: %s\n", argv[a], ade_order_name(orders[k]), ade_errmsg());
        printf("%14s %8.3f ", st == ADE_ENOMEM ? "memory limit" : "error", t1 - t0);
      } else
        printf("%14llu %8.3f ", (unsigned long long)ade_seq_cost(s), t1 - t0);
      ade_seq_free(s), s = NULL;
      ade__clear_error();
      t0 = cpu();
      st = ade_elim_order_native(g, orders[k], 0, &s, &limited);
      t1 = cpu();
      if (st) {
        fprintf(stderr, "%s: %s: %s\n", argv[a], ade_order_name(orders[k]), ade_errmsg());
        printf("%14s %8.3f\n", "error", t1 - t0);
      } else
        printf("%14llu %8.3f%s\n", (unsigned long long)ade_seq_cost(s), t1 - t0, limited ? " L" : "");
      ade_seq_free(s);
    }
    ade_cgraph_free(g);
    ade_tape_free(t);
  }
  return 0;
}
