/* cmd_mission.c: `adelim mission` and `adelim compare --mission`: plans of AD missions from GraphML or a tape's regions. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <adelim.h>

#include "cli.h"

const char cli_mission_usage[] =
    "Usage: adelim mission [--method M] [--time-limit S] [--threads N] [--json] FILE.graphml|TAPE\n"
    "       adelim mission [--method M] [--time-limit S] [--threads N] --execute TAPE\n"
    "       adelim mission --dot | --graphml FILE.graphml|TAPE\n"
    "\n"
    "Plan the Jacobian of an AD mission: a DAG of vector elementals read from\n"
    "ADMission GraphML (node data size; edge data tangent_cost, adjoint_cost,\n"
    "has_jacobian, has_model), or built from a tape: its regions and the\n"
    "scalar code between them become the elementals, each with its part's\n"
    "c-graph edges as its tangent and adjoint cost per direction (variables\n"
    "x, the independents; REGION.K, what run K of a region passes on;\n"
    "REGION.K:y, the dependents it computes; 'top' outside regions). Prints the generalized face elimination\n"
    "sequence one operation per line with its cost, like the paper's listings:\n"
    "  ACC TAN (i j)              F'(i,j) preaccumulated by tangents (ADJ: adjoints)\n"
    "  ELI TAN (i j) (j k) -> (i j k)   tangents of (j k) seeded with F'(i j)\n"
    "                             (ADJ: adjoints of (i j) seeded with F'(j k);\n"
    "                             MUL: a dense product; '+=' into an existing vertex)\n"
    "  MRG (i k) += (i j k)       two vertices with the same neighbours added\n"
    "then the dense tangent and adjoint costs and the plan's. doc/missions.md\n"
    "describes the rules, the cost model and the file format.\n"
    "\n"
    "  --method M      dense-tangent, dense-adjoint, sparse-tangent,\n"
    "                  sparse-adjoint, greedy-min-fill, greedy-cost, dp (chains\n"
    "                  only), bnb (branch and bound) or best (default: the\n"
    "                  cheapest heuristic, then branch and bound from it)\n"
    "  --time-limit S  seconds for bnb and best (default 10); a search that\n"
    "                  reaches it prints its best plan, not proven optimal\n"
    "  --threads N     branch and bound threads (default 1)\n"
    "  --json          one JSON object: method, cost, proven_optimal, seconds,\n"
    "                  nodes, limited, plan (the operations with their costs),\n"
    "                  dense_tangent, dense_adjoint\n"
    "  --execute       (a tape) run the plan on the recorded program at its\n"
    "                  recorded point: print the multiply-adds executed (equal\n"
    "                  to the plan's cost) and the Jacobian's largest relative\n"
    "                  difference to dense forward mode (not with dense-*)\n"
    "  --dot           write the DAG as Graphviz DOT instead of planning\n"
    "  --graphml       write the DAG back as GraphML instead of planning\n"
    "  -h, --help      print this help\n";

/* A long search reports about once a second on stderr. */
static void on_progress(void *ud, const ade_mission_progress *p) {
  fprintf(stderr, "adelim: %s: search %.0f s, incumbent %" PRIu64 ", root bound %" PRIu64 ", %" PRIu64 " nodes\n",
          (const char *)ud, p->seconds, p->incumbent, p->bound, p->nodes);
}

static int parse_limits(const cli_cmd *self, const char *tl, const char *th, ade_mission_limits *l) {
  char *end;
  if (tl) {
    l->time_limit = strtod(tl, &end);
    if (end == tl || *end || !(l->time_limit > 0) || !isfinite(l->time_limit))
      return cli_usage_error(self, "--time-limit: '%s' is not a positive number of seconds", tl);
  }
  if (th) {
    long n = strtol(th, &end, 10);
    if (end == th || *end || n < 1 || n > 256) return cli_usage_error(self, "--threads: '%s' is not in 1..256", th);
    l->threads = (int)n;
  }
  return -1;
}

/* 1 if path starts with the tape magic (doc/tape-format.md). */
static int is_tape(const char *path) {
  static const unsigned char magic[8] = {0x89, 'A', 'D', 'T', '\r', '\n', 0x1a, '\n'};
  unsigned char b[8];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(b, 1, sizeof b, f) : 0;
  if (f) fclose(f);
  return n == sizeof b && memcmp(b, magic, sizeof b) == 0;
}

/* The DAG of a GraphML file, or of a tape's regions (*t: the tape). */
static int read_dag(const char *path, ade_mission **d, ade_tape **t) {
  int st;
  if (is_tape(path)) {
    if ((st = ade_tape_open(t, path)) < 0) return cli_tape_error(path, "cannot open", st);
    if ((st = ade_mission_from_tape(d, *t, ADE_PARTS_REGIONS)) < 0)
      return cli_tape_error(path, "cannot build its mission DAG", st);
    return -1;
  }
  if ((st = ade_mission_read_graphml(d, path)) < 0) {
    cli_error("%s (%s)", cli_errmsg(), ade_errname(st));
    return CLI_FAIL;
  }
  return -1;
}

/* The plan run on the tape at its recorded point, against forward mode. */
static int execute(const char *path, ade_mission *d, ade_tape *t, const ade_mplan *p) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  double *J = calloc(m * n + 1, sizeof *J), *F = calloc(m * n + 1, sizeof *F), worst = 0;
  uint64_t fma = 0;
  int st = J && F ? ade_mission_tape_jacobian(p, d, t, NULL, J, &fma) : ADE_ENOMEM;
  if (st >= 0) st = ade_jacobian_dense(t, ADE_FORWARD, NULL, F);
  for (size_t k = 0; st >= 0 && k < m * n; k++)
    worst = fmax(worst, fabs(J[k] - F[k]) / fmax(fabs(F[k]), 1e-300));
  free(J);
  free(F);
  if (st < 0) return cli_tape_error(path, "cannot execute the plan", st);
  printf("executed on the tape: %" PRIu64 " multiply-adds (planned %" PRIu64 "), %zu x %zu Jacobian, "
         "largest relative difference to forward mode %.1e\n",
         fma, ade_mplan_cost(p), m, n, worst);
  return -1;
}

static uint64_t dense(ade_mission *d, int method) {
  ade_mplan *p = NULL;
  uint64_t c = ade_mission_plan(d, method, NULL, &p) == ADE_OK ? ade_mplan_cost(p) : 0;
  ade_mplan_free(p);
  return c;
}

static int print_plan(ade_mission *d, const ade_mplan *p, int json) {
  uint64_t dt = dense(d, ADE_MISSION_DENSE_TANGENT), da = dense(d, ADE_MISSION_DENSE_ADJOINT);
  if (json) {
    if (ade_mplan_write_json(p, d, stdout) < 0) return cli_finish(CLI_FAIL);
    return cli_finish(CLI_OK);
  }
  if (ade_mplan_write_text(p, d, stdout) < 0) return cli_finish(CLI_FAIL);
  printf("dense tangent cost: %" PRIu64 "\ndense adjoint cost: %" PRIu64 "\n", dt, da);
  printf("planned in %.3f s, %" PRIu64 " search nodes%s\n", ade_mplan_seconds(p), ade_mplan_nodes(p),
         ade_mplan_limited(p) ? ", stopped by a limit" : "");
  return cli_finish(CLI_OK);
}

int cli_cmd_mission(const cli_cmd *self, int argc, char **argv) {
  const char *path = NULL, *method = "best", *tl = NULL, *th = NULL;
  int json = 0, dot = 0, gml = 0, exe = 0, rc, st;
  const cli_arg args[] = {{"method", &method, NULL}, {"time-limit", &tl, NULL}, {"threads", &th, NULL},
                          {"json", NULL, &json},     {"dot", NULL, &dot},       {"graphml", NULL, &gml},
                          {"execute", NULL, &exe},   {NULL, NULL, NULL}};
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.time_limit = 10.0;
  if ((rc = cli_parse_tape(self, argc, argv, args, &path)) >= 0) return rc;
  if ((rc = parse_limits(self, tl, th, &l)) >= 0) return rc;
  int m = ade_mission_method_parse(method);
  if (m < 0) return cli_usage_error(self, "unknown method '%s'", method);
  if (dot + gml + json + exe > 1)
    return cli_usage_error(self, "--dot, --graphml, --json and --execute exclude each other");
  if (exe && m <= ADE_MISSION_DENSE_ADJOINT) return cli_usage_error(self, "--execute needs a plan, not %s", method);
  if (exe && !is_tape(path)) return cli_usage_error(self, "--execute needs a tape");
  ade_mission *d = NULL;
  ade_mplan *p = NULL;
  ade_tape *t = NULL;
  if ((rc = read_dag(path, &d, &t)) >= 0) {
    ade_mission_free(d);
    ade_tape_free(t);
    return rc;
  }
  l.progress = on_progress;
  l.progress_ud = (void *)method;
  if (dot || gml) {
    st = dot ? ade_mission_write_dot(d, stdout) : ade_mission_write_graphml(d, stdout);
    rc = st < 0 ? cli_file_error("standard output", "cannot write", st, CLI_IO_WRITE) : cli_finish(CLI_OK);
  } else if ((st = ade_mission_plan(d, m, &l, &p)) < 0) {
    cli_error("%s: %s: %s (%s)", path, method, cli_errmsg(), ade_errname(st));
    rc = CLI_FAIL;
  } else if (!exe || (rc = execute(path, d, t, p)) < 0) {
    rc = print_plan(d, p, json);
  }
  ade_mplan_free(p);
  ade_mission_free(d);
  ade_tape_free(t);
  return rc;
}

/* ------------------------------------------------------ compare --mission */

typedef struct mrow {
  int method, ok, proven, limited;
  uint64_t cost, nodes;
  double seconds;
} mrow;

static void mrow_cells(const void *ctx, size_t i, char out[][CLI_CELL]) {
  const mrow *r = (const mrow *)ctx + i;
  snprintf(out[0], CLI_CELL, "%s", ade_mission_method_name(r->method));
  if (!r->ok) {
    for (int k = 1; k < 5; k++) out[k][0] = '\0';
    snprintf(out[1], CLI_CELL, "n/a");
    return;
  }
  snprintf(out[1], CLI_CELL, "%" PRIu64 "%s", r->cost, r->limited ? "*" : "");
  snprintf(out[2], CLI_CELL, "%s", r->proven ? "yes" : "no");
  snprintf(out[3], CLI_CELL, "%.3f", r->seconds);
  snprintf(out[4], CLI_CELL, "%" PRIu64, r->nodes);
}

static void mrow_json(cli_json *j, const mrow *r) {
  cli_json_open(j, NULL, '{', 1);
  cli_json_str(j, "method", ade_mission_method_name(r->method));
  if (r->ok) {
    cli_json_u64(j, "cost", r->cost);
    cli_json_bool(j, "proven_optimal", r->proven);
    cli_json_num(j, "seconds", r->seconds);
    cli_json_u64(j, "nodes", r->nodes);
    cli_json_bool(j, "limited", r->limited);
  } else {
    cli_json_null(j, "cost");
  }
  cli_json_close(j);
}

static double mnow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The search limit of method k of `rest` still to run (bnb and best search;
 * the others plan at once): twice its fair share of the budget left, at
 * most the per-method limit, at least 1 ms (the search then returns its
 * start, marked limited). */
static double mission_limit(double per_method, double deadline, int rest) {
  double left = deadline - mnow();
  return fmin(per_method, fmax(fmin(2.0 * left / (double)rest, left), 1e-3));
}

/* Progress on stderr before each method once the run has taken
 * ADELIM_PROGRESS_AFTER seconds (default 1), in compare's words. */
static double progress_after(void) {
  const char *e = getenv("ADELIM_PROGRESS_AFTER");
  char *end = NULL;
  double q = e ? strtod(e, &end) : 1.0;
  return e && (end == e || *end || !(q >= 0)) ? 1.0 : q;
}

/* The summary after the rows: the cheapest plan (json: "best" and every
 * method by cost, "by_cost"; text, markdown: the cheapest). */
static void mission_summary(cli_json *j, const mrow *rows, int fmt) {
  int order[ADE_MISSION_NMETHODS], n = 0;
  for (int m = 0; m < ADE_MISSION_NMETHODS; m++) { /* insertion sort by cost, stable */
    if (!rows[m].ok) continue;
    int k = n++;
    for (; k > 0 && rows[order[k - 1]].cost > rows[m].cost; k--) order[k] = order[k - 1];
    order[k] = m;
  }
  if (fmt == CLI_JSON) {
    cli_json_close(j);
    if (n) {
      cli_json_open(j, "best", '{', 1);
      cli_json_str(j, "method", ade_mission_method_name(rows[order[0]].method));
      cli_json_u64(j, "cost", rows[order[0]].cost);
      cli_json_close(j);
    } else {
      cli_json_null(j, "best");
    }
    cli_json_open(j, "by_cost", '[', 1);
    for (int k = 0; k < n; k++) cli_json_str(j, NULL, ade_mission_method_name(rows[order[k]].method));
    cli_json_close(j);
    cli_json_close(j);
  } else if (n && fmt != CLI_CSV) {
    printf("\ncheapest: %s (%" PRIu64 " fma)\n", ade_mission_method_name(rows[order[0]].method),
           rows[order[0]].cost);
  }
}

/* compare --mission: every planner, each row printed as it finishes (text,
 * markdown, csv; json: an element of the open "methods" array), bnb and
 * best within the per-method time limit and the budget. */
int cli_compare_mission(const cli_cmd *self, const char *path, double time_limit, double budget, int fmt) {
  static const char *const heads[] = {"method", "cost", "proven", "seconds", "nodes"};
  static const int minw[] = {15, 8, 6, 7, 5};
  char cl[CLI_GRID_MAXCOLS][CLI_CELL];
  mrow rows[ADE_MISSION_NMETHODS];
  ade_mission *d = NULL;
  ade_tape *t = NULL;
  cli_stream out;
  cli_json j;
  int rc;
  (void)self;
  double start = mnow(), quiet = progress_after(), deadline = start + budget;
  if ((rc = read_dag(path, &d, &t)) >= 0) {
    ade_mission_free(d);
    ade_tape_free(t);
    return rc;
  }
  ade_mission_limits l;
  ade_mission_limits_init(&l);
  l.threads = 1;
  l.progress = on_progress;
  cli_json_init(&j, stdout);
  if (fmt == CLI_JSON) {
    cli_json_open(&j, NULL, '{', 0);
    cli_json_str(&j, "file", path);
    cli_json_open(&j, "methods", '[', 0);
    fflush(stdout);
  } else if (fmt == CLI_TEXT) {
    cli_stream_start(&out, stdout, heads, minw, 5, 1);
  } else {
    cli_grid_head(stdout, fmt, heads, 5, 1);
  }
  for (int m = 0; m < ADE_MISSION_NMETHODS; m++) {
    ade_mplan *p = NULL;
    double elapsed = mnow() - start;
    if (elapsed > quiet)
      fprintf(stderr, "adelim: compare: %s (%d of %d), %.1f s elapsed\n", ade_mission_method_name(m), m + 1,
              ADE_MISSION_NMETHODS, elapsed);
    l.progress_ud = (void *)ade_mission_method_name(m);
    l.time_limit = mission_limit(time_limit, deadline, m >= ADE_MISSION_BNB ? ADE_MISSION_NMETHODS - m : 2);
    int st = ade_mission_plan(d, m, &l, &p);
    rows[m] = (mrow){m, st == ADE_OK, ade_mplan_proven(p), ade_mplan_limited(p), ade_mplan_cost(p),
                     ade_mplan_nodes(p), ade_mplan_seconds(p)};
    if (st < 0 && !(m == ADE_MISSION_DP && st == ADE_EINVAL))
      cli_error("%s: %s: %s", path, ade_mission_method_name(m), cli_errmsg());
    ade_mplan_free(p);
    if (fmt == CLI_JSON) {
      mrow_json(&j, &rows[m]);
      fflush(stdout);
      continue;
    }
    mrow_cells(rows, (size_t)m, cl);
    if (fmt == CLI_TEXT) cli_stream_row(&out, cl);
    else cli_grid_row(stdout, fmt, cl, 5);
  }
  mission_summary(&j, rows, fmt);
  ade_mission_free(d);
  ade_tape_free(t);
  return cli_finish(CLI_OK);
}
