/* bench_mission.c: planning time and cost of every mission planner on Lion, Bat, one Newton step and chains of Newton steps.
 *
 * Usage: bench_mission [LIMIT [MAXSTEPS [DATADIR [METHOD]]]]
 *   bnb and best get LIMIT seconds each (default 10; a row marked * hit
 *   it); chains of 10, 20, 50, 100 Newton-like steps up to MAXSTEPS
 *   (default 100); DATADIR holds lion.xml and bat.xml (default
 *   tests/data/mission); METHOD: that method only (default: all). Prints
 *   a markdown table: cost (* a limit stopped the search), proven optimal,
 *   wall seconds as the plan reports them, CPU seconds, search nodes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <adelim.h>

/* k Newton steps x_{s+1} = x_s - R'(x_s, p)^{-1} R(x_s, p) with n = m = 10
 * (Example 6 of the generalized face elimination paper, chained as in its
 * Section 6.3): per step R' (n^2), R (n) and x_{s+1} (n); tangent costs
 * 2000, 200, 1000, 800, adjoints twice that; dx_{s+1}/dx_s = I is given. */
static ade_mission *newton(int k) {
  ade_mission *d;
  char id[32];
  int p, x, jr, r, nx;
  if (ade_mission_create(&d) || ade_mission_add_var(d, "p", 10, &p) || ade_mission_add_var(d, "x0", 10, &x))
    return NULL;
  for (int s = 0; s < k; s++) {
    snprintf(id, sizeof id, "J%d", s);
    if (ade_mission_add_var(d, id, 100, &jr)) return NULL;
    snprintf(id, sizeof id, "R%d", s);
    if (ade_mission_add_var(d, id, 10, &r)) return NULL;
    snprintf(id, sizeof id, "x%d", s + 1);
    if (ade_mission_add_var(d, id, 10, &nx)) return NULL;
    if (ade_mission_add_elemental(d, NULL, x, jr, 2000, 4000, 0, 1) ||
        ade_mission_add_elemental(d, NULL, p, jr, 2000, 4000, 0, 1) ||
        ade_mission_add_elemental(d, NULL, x, r, 200, 400, 0, 1) ||
        ade_mission_add_elemental(d, NULL, p, r, 200, 400, 0, 1) ||
        ade_mission_add_elemental(d, NULL, jr, nx, 1000, 2000, 0, 1) ||
        ade_mission_add_elemental(d, NULL, r, nx, 800, 1600, 0, 1) ||
        ade_mission_add_elemental(d, NULL, x, nx, 0, 0, 1, 1))
      return NULL;
    x = nx;
  }
  return d;
}

static void progress(void *ud, const ade_mission_progress *p) {
  fprintf(stderr, "  %s: %.0f s, incumbent %" PRIu64 ", %" PRIu64 " nodes\n", (const char *)ud, p->seconds,
          p->incumbent, p->nodes);
}

static int only = -1; /* METHOD, -1: all */

/* CPU seconds of the process (the planners run on one thread here): on a
 * shared machine the wall time says little. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void bench(const char *name, ade_mission *d, double limit) {
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.time_limit = limit;
  l.progress = progress;
  l.progress_ud = (void *)name;
  for (int m = 0; m < ADE_MISSION_NMETHODS; m++) {
    if (only >= 0 && m != only) continue;
    ade_mplan *p = NULL;
    double c0 = cpu_now();
    int rc = ade_mission_plan(d, m, &l, &p);
    double cpu = cpu_now() - c0;
    if (rc == ADE_EINVAL && m == ADE_MISSION_DP) continue; /* not a chain */
    if (rc) {
      printf("| %s | %s | error: %s | | | | |\n", name, ade_mission_method_name(m), ade_errmsg());
      continue;
    }
    printf("| %s | %s | %" PRIu64 "%s | %s | %.4f | %.4f | %" PRIu64 " |\n", name, ade_mission_method_name(m),
           ade_mplan_cost(p), ade_mplan_limited(p) ? "*" : "", ade_mplan_proven(p) ? "yes" : "no",
           ade_mplan_seconds(p), cpu, ade_mplan_nodes(p));
    fflush(stdout);
    ade_mplan_free(p);
  }
}

int main(int argc, char **argv) {
  double limit = argc > 1 ? atof(argv[1]) : 10.0;
  int maxsteps = argc > 2 ? atoi(argv[2]) : 100;
  const char *dir = argc > 3 ? argv[3] : "tests/data/mission";
  if (argc > 4 && (only = ade_mission_method_parse(argv[4])) < 0) {
    fprintf(stderr, "bench_mission: unknown method '%s'\n", argv[4]);
    return 2;
  }
  static const int steps[] = {1, 2, 10, 20, 50, 100};
  char path[1024], name[32];
  printf("| DAG | method | cost | proven | seconds | CPU s | nodes |\n|---|---|--:|---|--:|--:|--:|\n");
  const char *files[2] = {"lion.xml", "bat.xml"};
  for (int i = 0; i < 2; i++) {
    ade_mission *d = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    if (ade_mission_read_graphml(&d, path)) {
      fprintf(stderr, "bench_mission: %s\n", ade_errmsg());
      return 1;
    }
    bench(files[i], d, limit);
    ade_mission_free(d);
  }
  for (size_t i = 0; i < sizeof steps / sizeof steps[0] && steps[i] <= maxsteps; i++) {
    ade_mission *d = newton(steps[i]);
    if (!d) {
      fprintf(stderr, "bench_mission: %s\n", ade_errmsg());
      return 1;
    }
    snprintf(name, sizeof name, "newton-%d", steps[i]);
    bench(name, d, limit);
    ade_mission_free(d);
  }
  return 0;
}
