/* bj_problem.c: the Jacobian benchmark problems at their benchmark sizes and points, shared by bench_jacobian and bench_opt. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_jacobian.h"

static uint64_t rng_state = 0x2385;
static double uniform(double lo, double hi)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * 0x1.0p-53;
}

void bj_problem_init(struct bj_problem *p, int id)
{
  static const char *const names[] = {"die", "chebyquad", "bratu2d", "cavity", "roe"};
  const double pi = 3.14159265358979323846;
  memset(p, 0, sizeof *p);
  p->id = id;
  p->name = names[id];
  switch (id) {
  case BJ_DIE: p->n = p->m = 100; break;
  case BJ_CHEBYQUAD: p->n = p->m = 30; break;
  case BJ_BRATU: p->grid = 64, p->param = 6.0, p->n = p->m = 64 * 64, p->sparse = 1; break;
  case BJ_CAVITY:
    p->grid = 32, p->param = 100.0, p->n = p->m = 32 * 32, p->sparse = 1;
    p->nwork = (32 + 4) * (32 + 4) + (32 + 2) * (32 + 2);
    break;
  default: p->grid = 1000, p->n = 10000, p->m = 5000; break;
  }
  p->x = calloc(p->n, sizeof *p->x);
  if (!p->x) {
    fprintf(stderr, "out of memory for the point of %s\n", p->name);
    exit(1);
  }
  double h = 1.0 / (double)(p->grid + 1);
  for (size_t k = 0; k < p->n; k++) {
    size_t i = p->grid ? k % p->grid : 0, j = p->grid ? k / p->grid : 0;
    double t = (double)(k + 1) / (double)(p->n + 1);
    if (id == BJ_DIE) /* MINPACK's standard starting point */
      p->x[k] = t * (t - 1.0);
    else if (id == BJ_CHEBYQUAD)
      p->x[k] = t;
    else if (id == BJ_BRATU) { /* MINPACK-2 dsfifj's starting point */
      double di = fmin((double)(i + 1), (double)(p->grid - i)) * h, dj = fmin((double)(j + 1), (double)(p->grid - j)) * h;
      p->x[k] = p->param / (p->param + 1.0) * sqrt(fmin(di, dj));
    } else if (id == BJ_CAVITY) /* a smooth nonzero stream function */
      p->x[k] = 0.05 * sin(pi * (double)(i + 1) * h) * sin(pi * (double)(j + 1) * h);
  }
  for (size_t f = 0; id == BJ_ROE && f < 2 * p->grid; f++) { /* random physical states */
    double rho = uniform(0.6, 1.4), u = uniform(-0.4, 0.4), v = uniform(-0.4, 0.4), w = uniform(-0.4, 0.4);
    double pr = uniform(0.6, 1.4), *q = p->x + 5 * f;
    q[0] = rho, q[1] = rho * u, q[2] = rho * v, q[3] = rho * w;
    q[4] = pr / 0.4 + 0.5 * rho * (u * u + v * v + w * w);
  }
}
