/* bench_util.c: problem set-up, timing and comparison helpers for bench/. */
#define _DEFAULT_SOURCE /* wait4, and POSIX 2008: clock_gettime, getrusage */
#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct bench_timing bench_timing = {5, 1000, 0.5, 0};

#define PDE_GRID 1000
#define PDE_STEPS 100
#define BRATU_GRID 64

/* A deterministic high-entropy value in [0, 1) (splitmix64 of i). */
static double hash01(size_t i, unsigned salt)
{
  unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ull + salt;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

static void set_sizes(struct bench_problem *p, int id, size_t pde_steps)
{
  p->id = id;
  p->nwork = 0;
  p->steps = 0;
  p->lambda = 0.0;
  if (id == BENCH_SPEELPENNING) {
    p->name = "speelpenning";
    p->n = 1000, p->m = 1, p->grid = 0;
  } else if (id == BENCH_BRATU) {
    p->name = "bratu2d";
    p->grid = BRATU_GRID, p->n = p->m = BRATU_GRID * BRATU_GRID;
    p->lambda = 6.0;
  } else {
    p->name = "pde1d";
    p->grid = p->n = PDE_GRID, p->m = 1;
    p->steps = pde_steps ? pde_steps : PDE_STEPS;
    p->nwork = 2 * PDE_GRID;
  }
}

/* The point: near 1 for the product (so it stays finite), a smooth bump
 * plus noise for the PDE and Bratu states. */
static double point(const struct bench_problem *p, size_t i)
{
  const double pi = 3.14159265358979323846;
  const double r = hash01(i, 1u) - 0.5;
  if (p->id == BENCH_SPEELPENNING)
    return 1.0 + 0.01 * r;
  if (p->id == BENCH_BRATU) {
    const double h = 1.0 / (double)(p->grid + 1);
    const double s = (double)(i % p->grid + 1) * h, t = (double)(i / p->grid + 1) * h;
    return 4.0 * s * (1.0 - s) * t * (1.0 - t) * (1.0 + 0.1 * r);
  }
  return 0.5 + 0.4 * sin(2.0 * pi * (double)i / (double)p->n) + 0.05 * r;
}

int bench_problem_init(struct bench_problem *p, int id, size_t pde_steps)
{
  set_sizes(p, id, pde_steps);
  p->x = malloc(p->n * sizeof(double));
  p->xd = malloc(p->n * sizeof(double));
  p->yb = malloc(p->m * sizeof(double));
  if (!p->x || !p->xd || !p->yb) {
    bench_problem_free(p);
    return -1;
  }
  for (size_t i = 0; i < p->n; i++) {
    p->x[i] = point(p, i);
    p->xd[i] = hash01(i, 2u) - 0.5;
  }
  for (size_t j = 0; j < p->m; j++)
    p->yb[j] = p->m == 1 ? 1.0 : hash01(j, 3u) - 0.5;
  return 0;
}

void bench_problem_free(struct bench_problem *p)
{
  free(p->x);
  free(p->xd);
  free(p->yb);
  p->x = p->xd = p->yb = NULL;
}

double bench_now(void)
{
  struct timespec ts;
  clock_gettime(bench_timing.cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_time(bench_step pre, bench_step run, bench_step post, void *ctx)
{
  double best = INFINITY, spent = 0.0;
  for (int k = 0; k < bench_timing.kmax; k++) {
    if (k >= bench_timing.kmin && spent >= bench_timing.budget)
      break;
    if (pre)
      pre(ctx);
    const double t0 = bench_now();
    run(ctx);
    const double t = bench_now() - t0;
    if (post)
      post(ctx);
    spent += t;
    if (t < best)
      best = t;
  }
  return best;
}

double bench_rel_diff(const double *a, const double *b, size_t k)
{
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < k; i++) {
    num = fmax(num, fabs(a[i] - b[i]));
    den = fmax(den, fabs(b[i]));
  }
  return den > 0.0 ? num / den : num;
}

double bench_dot(const double *a, const double *b, size_t k)
{
  double s = 0.0;
  for (size_t i = 0; i < k; i++)
    s += a[i] * b[i];
  return s;
}

double bench_peak_rss_mib(void)
{
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return -1.0;
  return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

void *bench_xmalloc(size_t count, size_t size)
{
  void *p = calloc(count ? count : 1, size);
  if (!p) {
    fprintf(stderr, "bench: out of memory (%zu x %zu bytes)\n", count, size);
    exit(2);
  }
  return p;
}

int bench_in_child(bench_job job, void *ctx, void *out, size_t size, double *rss_mib)
{
  int fd[2], wstatus;
  struct rusage ru;
  fflush(stdout);
  fflush(stderr);
  if (pipe(fd) != 0)
    return -1;
  const pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    close(fd[0]);
    job(ctx, out);
    const ssize_t wr = write(fd[1], out, size);
    _exit(wr == (ssize_t)size ? 0 : 1);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t rd;
  while (got < size && ((rd = read(fd[0], (char *)out + got, size - got)) > 0 ||
                        (rd < 0 && errno == EINTR)))
    got += rd > 0 ? (size_t)rd : 0;
  close(fd[0]);
  while (wait4(pid, &wstatus, 0, &ru) < 0)
    if (errno != EINTR)
      return -1;
  if (rss_mib)
    *rss_mib = (double)ru.ru_maxrss / 1024.0;
  return got == size && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? 0 : -1;
}

void bench_cpu_model(char *model, size_t size)
{
  char line[256];
  snprintf(model, size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0) {
      const char *s = strchr(line, ':');
      snprintf(model, size, "%s", s ? s + 2 : line);
      model[strcspn(model, "\n")] = 0;
      break;
    }
  fclose(f);
}
