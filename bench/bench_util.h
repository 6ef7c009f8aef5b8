/* bench_util.h: problem set-up, timing and comparison helpers shared by the
 * C (plain double, adelim) and C++ (ADOL-C) sides of the benchmarks. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bench_id { BENCH_SPEELPENNING = 0, BENCH_BRATU = 1, BENCH_PDE = 2, BENCH_NPROBLEMS = 3 };

/* One benchmark problem: its sizes, the point x, a tangent direction xd and
 * an adjoint weight yb, the same for every tool. */
struct bench_problem {
  int id;              /* enum bench_id */
  const char *name;
  size_t n, m;         /* independents, dependents */
  size_t nwork;        /* workspace entries the evaluation needs */
  size_t grid;         /* Bratu: grid side; PDE: grid points */
  size_t steps;        /* PDE: time steps */
  double lambda;       /* Bratu parameter */
  double *x, *xd, *yb; /* n, n, m */
};

/*! bench_problem_init: set up problem id; PDE uses pde_steps steps
 * (0: the default). @return 0, or -1 if out of memory. */
int bench_problem_init(struct bench_problem *p, int id, size_t pde_steps);
/*! bench_problem_free: release the vectors of p. */
void bench_problem_free(struct bench_problem *p);

/* Timing: run() is timed alone, pre() and post() (either may be NULL) run
 * untimed before and after each repetition. The result is the minimum over
 * at least kmin repetitions, more while the budget (seconds) lasts, at most
 * kmax. */
typedef void (*bench_step)(void *ctx);
struct bench_timing {
  int kmin, kmax;
  double budget;
  int cpu; /* nonzero: bench_now is the calling thread's CPU time */
};
extern struct bench_timing bench_timing;
double bench_now(void);
double bench_time(bench_step pre, bench_step run, bench_step post, void *ctx);

/*! bench_rel_diff: max_i |a_i - b_i| / max_i |b_i| (normwise relative). */
double bench_rel_diff(const double *a, const double *b, size_t k);
/*! bench_dot: sum a_i b_i. */
double bench_dot(const double *a, const double *b, size_t k);
/*! bench_peak_rss_mib: this process's peak resident set size so far, MiB. */
double bench_peak_rss_mib(void);
/* bench_in_child: run job(ctx, out) in a forked child process; out (size
 * bytes) comes back through a pipe, *rss_mib (may be NULL) gets the child's
 * peak resident set size (wait4's ru_maxrss): a phase measured this way is
 * alone in its process. @return 0, or -1 if the child could not run or
 * failed. */
typedef void (*bench_job)(void *ctx, void *out);
int bench_in_child(bench_job job, void *ctx, void *out, size_t size, double *rss_mib);
/*! bench_cpu_model: the CPU's model name from /proc/cpuinfo, or "unknown". */
void bench_cpu_model(char *model, size_t size);
/*! bench_xmalloc: calloc that reports and exits on failure (programs only). */
void *bench_xmalloc(size_t count, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* BENCH_UTIL_H */
