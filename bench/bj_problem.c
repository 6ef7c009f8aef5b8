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

const char *const bj_problem_names[BJ_NPROBLEMS] = {"die", "chebyquad", "bratu2d", "cavity", "roe", "euler1d",
                                                    "lorenz96"};

/* A value in [-1, 1) from a hash of (k, salt) (splitmix64), independent of
 * the order in which problems are set up. */
static double hash11(size_t k, unsigned salt)
{
  uint64_t z = (uint64_t)k * 0x9e3779b97f4a7c15ull + 0x2385u + ((uint64_t)salt << 40);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return -1.0 + (double)(z >> 11) * 0x1.0p-52;
}

void bj_new_point(const struct bj_problem *p, unsigned salt, double *x1)
{
  for (size_t k = 0; k < p->n; k++)
    x1[k] = p->x[k] * (1.0 + 0.01 * hash11(k, salt));
}

/* Smooth subsonic states of euler1d with noise: rho, p in about [0.7, 1.3],
 * |u| <= 0.35 < c (about 1.1), so HLL's subsonic branch holds at every face. */
static void euler_states(struct bj_problem *p)
{
  const double pi = 3.14159265358979323846;
  for (size_t i = 0; i < p->grid; i++) {
    const double s = ((double)i + 0.5) / (double)p->grid;
    double rho = 1.0 + 0.2 * sin(2 * pi * s) + 0.05 * hash11(3 * i, 1);
    double u = 0.25 * cos(2 * pi * s) + 0.05 * hash11(3 * i + 1, 1);
    double pr = 1.0 + 0.2 * sin(4 * pi * s) + 0.05 * hash11(3 * i + 2, 1);
    double *q = p->x + 3 * i;
    q[0] = rho, q[1] = rho * u, q[2] = pr / 0.4 + 0.5 * rho * u * u;
  }
}

void bj_problem_init(struct bj_problem *p, int id)
{
  const char *const *names = bj_problem_names;
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
  case BJ_ROE: p->grid = 1000, p->n = 10000, p->m = 5000; break;
  case BJ_EULER1D: p->grid = 2000, p->n = p->m = 3 * 2000, p->nwork = 3 * 2001, p->sparse = 1; break;
  default: p->grid = 100, p->param = 0.01, p->n = p->m = 40, p->nwork = 6 * 40; break; /* lorenz96 */
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
    else if (id == BJ_LORENZ96) /* near the fixed point x_i = F, perturbed */
      p->x[k] = 8.0 + 0.5 * hash11(k, 2);
  }
  if (id == BJ_EULER1D)
    euler_states(p);
  for (size_t f = 0; id == BJ_ROE && f < 2 * p->grid; f++) { /* random physical states */
    double rho = uniform(0.6, 1.4), u = uniform(-0.4, 0.4), v = uniform(-0.4, 0.4), w = uniform(-0.4, 0.4);
    double pr = uniform(0.6, 1.4), *q = p->x + 5 * f;
    q[0] = rho, q[1] = rho * u, q[2] = rho * v, q[3] = rho * w;
    q[4] = pr / 0.4 + 0.5 * rho * (u * u + v * v + w * w);
  }
}
