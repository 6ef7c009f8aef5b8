/* bench_nested.c: elimination in levels over nested regions against two
 * levels (doc/elimination.md, "Nested regions: a level per height").
 *
 * Usage: bench_nested [N S]...   (default: 16 50  8 100  16 200)
 *   records a periodic 1-D reaction-diffusion grid of N points over S time
 *   steps of 4 stages, each step a region and each point's update in each
 *   stage a region inside it, the N final values dependent; then prints
 *   the fma and seconds of ade_optimize_parts (two levels: the points,
 *   then the rest) and of ade_optimize_levels over both levels (the
 *   points, the steps, then the rest; the cheaper stop), with the levels
 *   it used, and the one level both compare with (best heuristic, one
 *   thread). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <adelim.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench_nested: %s: %s\n", what, ade_errmsg());
  exit(1);
}

static ade_tape *record(int N, int S) {
  ade_tape *t = NULL;
  if (ade_tape_create(&t, NULL) || ade_trace_on(t)) die("tape");
  ade_double *u = malloc(sizeof *u * (size_t)N), *v = malloc(sizeof *v * (size_t)N);
  if (!u || !v) die("out of memory");
  for (int i = 0; i < N; i++) u[i] = ade_indep(0.5 + 0.01 * i);
  for (int s = 0; s < S; s++) {
    ade_region_begin("step");
    for (int stage = 0; stage < 4; stage++) {
      for (int i = 0; i < N; i++) {
        ade_region_begin("point");
        ade_double l = u[i ? i - 1 : N - 1], r = u[i + 1 < N ? i + 1 : 0];
        ade_double lap = ADE_SUB(ADE_ADD(l, r), ADE_MUL(2.0, u[i]));
        ade_double src = ADE_DIV(u[i], ADE_ADD(1.0, ADE_MUL(0.1, ADE_MUL(u[i], u[i]))));
        v[i] = ADE_ADD(u[i], ADE_MUL(0.1, ADE_ADD(lap, ADE_MUL(0.05, ADE_SIN(src)))));
        ade_region_end();
      }
      for (int i = 0; i < N; i++) u[i] = v[i];
    }
    ade_region_end();
  }
  for (int i = 0; i < N; i++) ade_dep(u[i]);
  if (ade_trace_off()) die("recording");
  free(u), free(v);
  return t;
}

static void run(int N, int S) {
  ade_tape *t = record(N, S);
  ade_stats st;
  size_t nl = 0;
  if (ade_tape_stats(t, &st) || ade_tape_parts_levels(t, ADE_PARTS_REGIONS, &nl)) die("stats");
  size_t nid = (size_t)st.records + 1, *part = malloc(nl * nid * sizeof *part);
  if (!part) die("out of memory");
  for (size_t k = 0; k < nl; k++)
    if (ade_tape_parts_level(t, ADE_PARTS_REGIONS, k, part + k * nid, nid, NULL)) die("parts");
  ade_cgraph *g = NULL;
  if (ade_cgraph_from_tape(&g, t, NULL)) die("c-graph");
  ade_elim_seq *s2 = NULL, *sl = NULL;
  ade_parts_report r2, rl;
  double t0 = now();
  if (ade_optimize_parts(g, part, nid, -1, NULL, &s2, &r2)) die("ade_optimize_parts");
  double t1 = now();
  if (ade_optimize_levels(g, part, nl, nid, -1, NULL, &sl, &rl)) die("ade_optimize_levels");
  double t2 = now();
  printf("%d %d %zu %llu %.2f %llu %zu %.2f %llu\n", N, S, nl, (unsigned long long)(r2.local_cost + r2.outer_cost),
         t1 - t0, (unsigned long long)(rl.local_cost + rl.outer_cost), rl.levels_used, t2 - t1,
         (unsigned long long)rl.flat_cost);
  ade_seq_free(s2), ade_seq_free(sl);
  ade_cgraph_free(g);
  free(part);
  ade_tape_free(t);
}

int main(int argc, char **argv) {
  static const int dflt[] = {16, 50, 8, 100, 16, 200};
  printf("N S levels two_levels_fma two_levels_s levels_fma levels_used levels_s one_level_fma\n");
  if (argc > 1)
    for (int a = 1; a + 1 < argc; a += 2) run(atoi(argv[a]), atoi(argv[a + 1]));
  else
    for (int k = 0; k < 6; k += 2) run(dflt[k], dflt[k + 1]);
  return 0;
}
