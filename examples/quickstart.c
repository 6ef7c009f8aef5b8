/* quickstart.c: record f(x0, x1) = x0 sin(x1) + exp(x0 / x1), get its gradient. */
#include <adelim.h>
#include <stdio.h>

/* The function, written with adelim's active doubles. Its gradient is
 * (sin(x1) + exp(x0 / x1) / x1, x0 cos(x1) - x0 exp(x0 / x1) / x1^2). */
static ade_double f(ade_double x0, ade_double x1)
{
  return ade_add(ade_mul(x0, ade_sin(x1)), ade_exp(ade_div(x0, x1)));
}

int main(void)
{
  ade_tape_options o;
  ade_tape *tape = NULL;
  double y = 0, g[2] = {0, 0};
  int rc;
  ade_tape_options_init(&o);                 /* defaults: a tape in memory */
  rc = ade_tape_create(&tape, &o);
  if (rc == ADE_OK) rc = ade_trace_on(tape);  /* record f at (1.5, 2.5) */
  if (rc == ADE_OK) {
    ade_double x0 = ade_indep(1.5), x1 = ade_indep(2.5);
    ade_dep(f(x0, x1));
    rc = ade_trace_off();
  }
  if (rc == ADE_OK) rc = ade_gradient(tape, NULL, &y, g);  /* reverse sweep */
  if (rc == ADE_OK)
    printf("f = %.6e, df/dx0 = %.6e, df/dx1 = %.6e\n", y, g[0], g[1]);
  else
    fprintf(stderr, "quickstart: %s: %s\n", ade_strerror(rc), ade_errmsg());
  ade_tape_free(tape);
  return rc == ADE_OK ? 0 : 1;
}
