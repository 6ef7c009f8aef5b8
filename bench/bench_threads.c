/* bench_threads.c: one recorded tape evaluated by 1..T threads at once:
 * calls per second of a derivative at new points, and the speed-up.
 *
 * Every thread calls the same derivative on the one shared tape at points
 * of its own (x perturbed per call), as a multi-start optimizer or an
 * ensemble does. Uses the public API only, so the same source can be linked
 * against an older libadelim to time one thread before and after a change
 * (doc/benchmarks.md). */
#define _POSIX_C_SOURCE 200809L
#include <adelim.h>

#include "bench_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_REAL ade_double
#define BENCH_FN(name) rec_##name
#include "problems.h"
#undef BENCH_REAL
#undef BENCH_FN

#define MAXT 16

typedef struct run {
  ade_tape *tape;
  const struct bench_problem *p;
  int what;          /* 0: gradient (adjoint) at x, 1: tangent at x */
  double seconds;    /* how long each thread calls */
  long calls;        /* out */
  int failed;        /* out */
} run;

static void *worker(void *arg) {
  run *r = arg;
  const struct bench_problem *p = r->p;
  double *x = bench_xmalloc(p->n, sizeof *x), *g = bench_xmalloc(p->n, sizeof *g);
  double *y = bench_xmalloc(p->m, sizeof *y), *yd = bench_xmalloc(p->m, sizeof *yd);
  double t0 = bench_now();
  long k = 0;
  do {
    for (size_t i = 0; i < p->n; i++) x[i] = p->x[i] * (1.0 + 1e-3 * (double)(k % 7));
    int st = r->what ? ade_tangent(r->tape, x, p->xd, y, yd) : ade_adjoint(r->tape, x, p->yb, g);
    r->failed |= st < 0;
    k++;
  } while (bench_now() - t0 < r->seconds);
  r->calls = k;
  free(x);
  free(g);
  free(y);
  free(yd);
  return NULL;
}

/* Calls per second of nt threads together. */
static double throughput(ade_tape *t, const struct bench_problem *p, int what, int nt, double seconds) {
  pthread_t th[MAXT];
  run r[MAXT];
  double t0 = bench_now();
  for (int i = 0; i < nt; i++) {
    r[i] = (run){t, p, what, seconds, 0, 0};
    if (pthread_create(&th[i], NULL, worker, &r[i])) {
      fprintf(stderr, "bench_threads: cannot start a thread\n");
      exit(1);
    }
  }
  long calls = 0;
  for (int i = 0; i < nt; i++) {
    pthread_join(th[i], NULL);
    if (r[i].failed) {
      fprintf(stderr, "bench_threads: a call failed: %s\n", ade_errmsg());
      exit(1);
    }
    calls += r[i].calls;
  }
  return (double)calls / (bench_now() - t0);
}

static ade_tape *record(const struct bench_problem *p) {
  ade_tape *t;
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) return NULL;
  ade_double *x = bench_xmalloc(p->n, sizeof *x), *y = bench_xmalloc(p->m, sizeof *y);
  ade_double *w = bench_xmalloc(p->nwork ? p->nwork : 1, sizeof *w);
  for (size_t i = 0; i < p->n; i++) x[i] = ade_indep(p->x[i]);
  rec_eval(p, x, w, y);
  for (size_t j = 0; j < p->m; j++) ade_dep(y[j]);
  free(x);
  free(y);
  free(w);
  if (ade_trace_off()) {
    ade_tape_free(t);
    return NULL;
  }
  return t;
}

int main(int argc, char **argv) {
  int maxt = (int)sysconf(_SC_NPROCESSORS_ONLN);
  double seconds = 1.0;
  int opt;
  while ((opt = getopt(argc, argv, "t:s:h")) != -1) {
    if (opt == 't') maxt = atoi(optarg);
    else if (opt == 's') seconds = atof(optarg);
    else {
      fprintf(stderr, "usage: %s [-t max_threads] [-s seconds_per_run]\n", argv[0]);
      return 2;
    }
  }
  if (maxt < 1) maxt = 1;
  if (maxt > MAXT) maxt = MAXT;
  char cpu[128];
  bench_cpu_model(cpu, sizeof cpu);
  printf("bench_threads: %s, %ld cores; %.1f s per run\n\n", cpu, sysconf(_SC_NPROCESSORS_ONLN), seconds);
  printf("| problem | records | sweep | threads | calls/s | per call, us | speed-up |\n");
  printf("|---|--:|---|--:|--:|--:|--:|\n");
  for (int id = 0; id < BENCH_NPROBLEMS; id++) {
    struct bench_problem p;
    if (bench_problem_init(&p, id, 0)) return 1;
    ade_tape *t = record(&p);
    ade_stats s;
    if (!t || ade_tape_stats(t, &s)) {
      fprintf(stderr, "bench_threads: recording %s failed: %s\n", p.name, ade_errmsg());
      return 1;
    }
    for (int what = 0; what < 2; what++) {
      double one = 0;
      for (int nt = 1; nt <= maxt; nt++) {
        double cps = throughput(t, &p, what, nt, seconds);
        if (nt == 1) one = cps;
        printf("| %s | %llu | %s | %d | %.0f | %.2f | %.2f |\n", p.name, (unsigned long long)s.records,
               what ? "tangent at x" : "adjoint at x", nt, cps, 1e6 * nt / cps, cps / one);
        fflush(stdout);
      }
    }
    ade_tape_free(t);
    bench_problem_free(&p);
  }
  return 0;
}
