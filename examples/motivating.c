/* motivating.c: the motivating example of the face-elimination paper, its Jacobian by every elimination method. */

/* Section 2 of Naumann, "Optimal accumulation of Jacobian matrices by
 * elimination methods on the dual computational graph" (2003):
 *
 *   v1 = v-1 v0;  v2 = sin v1;  v3 = v1 v2;  v4 = cos v3;  v5 = exp v3
 *
 * with independents v-1, v0 and dependents v4, v5. Forward and reverse
 * vector mode both cost n|E| = m|E| = 14 multiply-adds; preaccumulating
 * r = c3 + c5 c4 first (equation (5)) costs 7. The program records the code
 * list, builds its c-graph from the tape alone, and accumulates the 2 x 2
 * Jacobian with every ordering adelim has, checking each against forward
 * mode.
 *
 * Usage: motivating */
#include <adelim.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int status, const char *what)
{
  if (status >= ADE_OK) return;
  fprintf(stderr, "motivating: %s: %s: %s\n", what, ade_strerror(status), ade_errmsg());
  exit(1);
}

/* The code list, recorded at (x1, x2). */
static ade_tape *record(double x1, double x2)
{
  ade_tape *tape = NULL;
  check(ade_tape_create(&tape, NULL), "ade_tape_create");
  check(ade_trace_on(tape), "ade_trace_on");
  ade_double vm1 = ade_indep(x1), v0 = ade_indep(x2);
  ade_double v1 = ade_mul(vm1, v0);
  ade_double v2 = ade_sin(v1);
  ade_double v3 = ade_mul(v1, v2);
  ade_dep(ade_cos(v3));
  ade_dep(ade_exp(v3));
  check(ade_trace_off(), "ade_trace_off");
  return tape;
}

int main(void)
{
  double J[4], D[4];
  int ok = 1;
  ade_tape *tape = record(1.3, 0.7);
  ade_cgraph *g = NULL;
  ade_elim_seq *s = NULL;
  size_t nv, ne, dropped;
  uint64_t cost;

  check(ade_jacobian_dense(tape, ADE_FORWARD, NULL, J), "ade_jacobian_dense");
  check(ade_cgraph_from_tape(&g, tape, &dropped), "ade_cgraph_from_tape");
  ade_cgraph_size(g, &nv, &ne, NULL, NULL);
  printf("c-graph: %zu vertices, %zu edges, %zu operations dropped\n", nv, ne, dropped);
  printf("forward vector mode n|E| = %zu, reverse vector mode m|E| = %zu\n", 2 * ne, 2 * ne);

  /* Equation (5): eliminate v2 (record 4), then v1 (3), then v3 (5). */
  check(ade_seq_create(&s, ADE_SEQ_VERTEX), "ade_seq_create");
  check(ade_seq_push(s, 4, 0, 0), "ade_seq_push");
  check(ade_seq_push(s, 3, 0, 0), "ade_seq_push");
  check(ade_seq_push(s, 5, 0, 0), "ade_seq_push");
  check(ade_seq_validate(g, s, NULL, &cost), "ade_seq_validate");
  printf("preaccumulation r = c3 + c5 c4 (vertices v2, v1, v3): %llu fma\n",
         (unsigned long long)cost);
  ade_seq_free(s);

  printf("\n%-18s %6s %6s  %s\n", "method", "fma", "fill", "agrees with forward mode");
  for (int m = 0; m < ADE_ORDER_COUNT; m++) {
    ade_sparse *Js = NULL;
    ade_jacobian_report r;
    check(ade_jacobian(tape, m, NULL, &Js, &r), ade_order_name(m));
    check(ade_sparse_to_dense(Js, D), "ade_sparse_to_dense");
    int same = 1;
    for (int i = 0; i < 4; i++) same &= fabs(D[i] - J[i]) <= 1e-14 * fmax(1.0, fabs(J[i]));
    ok &= same;
    printf("%-18s %6llu %6llu  %s\n", ade_order_name(m), (unsigned long long)r.fma,
           (unsigned long long)r.fill, same ? "yes" : "NO");
    ade_sparse_free(Js);
  }
  printf("\nJacobian:\n  %12.8f %12.8f\n  %12.8f %12.8f\n", J[0], J[1], J[2], J[3]);
  ade_cgraph_free(g);
  ade_tape_free(tape);
  return ok ? 0 : 1;
}
