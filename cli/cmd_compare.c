/* cmd_compare.c: `adelim compare`: every Jacobian or Hessian method on one tape, its cost and time, by fma. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <adelim.h>

#include "cli.h"

const char cli_compare_usage[] =
    "Usage: adelim compare [--format text|markdown|csv|json] [--json] [--optimize]\n"
    "                      [--time-limit SECONDS] [--budget SECONDS] [--parts P]\n"
    "                      [--memory-limit MIB] [--all] TAPE\n"
    "       adelim compare --hessian [--weights W1,...] [--format F] [--json] TAPE\n"
    "       adelim compare --mission [--time-limit S] [--budget S] [--format F] [--json]\n"
    "                      FILE.graphml|TAPE\n"
    "\n"
    "Compute the Jacobian of the tape at its recorded point by every method\n"
    "and print one table, a row per method as it finishes, then the\n"
    "cheapest by multiply-adds (fma):\n"
    "  - every elimination ordering of 'adelim jacobian' (fma executed,\n"
    "    fill-in; seconds: c-graph, ordering and elimination compiled into a\n"
    "    plan; replay: the plan run again on the tape's partials),\n"
    "  - cpr-forward / cpr-reverse: Curtis-Powell-Reid compression, one\n"
    "    vector sweep with a direction per column (row) color; fma = colors |E|,\n"
    "  - dense-forward / dense-reverse: vector modes with n or m directions,\n"
    "    fma = n|E| and m|E|, timed with ade_jacobian_dense,\n"
    "  - newsam-ramsdell: the one-sided compression bound of Naumann's\n"
    "    'Jacobians by dynamic programming', min{n^(m+p), m^(n+p)}, with n^ and\n"
    "    m^ the most nonzeros in a row and a column and p the intermediates,\n"
    "  - cut-bound: no vertex, edge or face elimination costs less: per\n"
    "    intermediate j, kx(j) ky(j), the least vertex cuts between the\n"
    "    independents and j and between j and the dependents (1 or 2, by\n"
    "    dominators; doc/elimination.md, \"Cut bounds\").\n"
    "The error column is the largest difference from dense forward mode,\n"
    "relative to its largest entry (left empty when the dense Jacobian would\n"
    "take more than 256 MiB; dense modes are then not run). Each ordering\n"
    "runs within --time-limit (default 10 s); one that reaches it eliminates\n"
    "the rest in forward or reverse order (the cheaper vector mode), and its\n"
    "row is marked with a *.\n"
    "The whole run keeps within --budget (default 30 s, not counting the\n"
    "first build of the c-graph): before each method, its time is predicted\n"
    "from the c-graph's build time, its counted cost (fma of the vector\n"
    "sweeps, of the elimination) and the measured seconds per fma of the\n"
    "methods run so far; a method predicted to need more than what is left is\n"
    "skipped, and its row says why (text, markdown; csv: standard error;\n"
    "json: \"skipped\"). Orderings and optimizers run limited to their share\n"
    "of what is left (at most --time-limit). A method whose elimination or\n"
    "plan does not fit in the tape's memory limit is skipped the same way\n"
    "(its row gives the memory it needs); it does not fail the comparison.\n"
    "In every format the head comes first, then each row as its method\n"
    "finishes, in the order run, then a summary: text, markdown: the\n"
    "cheapest method (markdown: and every method by fma); json: the array\n"
    "\"methods\" streamed, then \"best\" and \"by_fma\"; csv: rows only.\n"
    "A run longer than a second reports each method it starts on standard\n"
    "error (method, i of N, seconds elapsed), and an optimizer search longer\n"
    "than a second its incumbent about once a second.\n"
    "\n"
    "  --format F        text (default), markdown, csv or json\n"
    "  --json            the same as --format json: one JSON object, its\n"
    "                    \"methods\" elements printed as they finish\n"
    "  --optimize        also every optimizer variant (ade_optimize: exhaustive,\n"
    "                    branch and bound, hierarchy, annealing, dynamic\n"
    "                    programming), each stopped after --time-limit; a\n"
    "                    variant that does not apply or fails is reported on\n"
    "                    standard error and left out\n"
    "  --time-limit S    seconds per ordering (default 10) and per optimizer\n"
    "                    variant (default 1); no effect with --hessian\n"
    "  --budget S        seconds for the whole comparison (default 30; Jacobians\n"
    "                    and --mission)\n"
    "  --memory-limit MIB  the tape's memory limit (ade_tape_set_memory_limit;\n"
    "                    default 256), as for 'adelim jacobian'\n"
    "  --parts P         also two-level elimination over the tape's parts, as\n"
    "                    'adelim jacobian --parts P' with the best heuristic\n"
    "                    (P: regions, callsites, repeats, auto): a row\n"
    "                    parts-P, and under the table the parts, the cost of\n"
    "                    their interiors (first level), of the rest (second\n"
    "                    level) and the total against one level; and a row\n"
    "                    parts-P-mission: the same parts as vector\n"
    "                    elementals, planned by the mission planner (best,\n"
    "                    2 s) and executed. Not the hierarchy optimizer's\n"
    "                    filters (--optimize)\n"
    "  --all             accepted for old scripts; every ordering runs\n"
    "  --hessian         compare the Hessian methods instead: every method of\n"
    "                    'adelim hessian', one row each as it finishes (then\n"
    "                    the cheapest, as above), with its\n"
    "                    value, nonzeros, updates, fma, largest live set,\n"
    "                    vertex pairs, seconds and the error against\n"
    "                    for-over-rev (relative to its largest entry)\n"
    "  --mission         compare the planners of 'adelim mission' on a GraphML\n"
    "                    DAG of vector elementals (or a tape's regions)\n"
    "                    instead: cost, proven optimal,\n"
    "                    seconds and search nodes, one row each in method\n"
    "                    order as it finishes, then the cheapest (json: an\n"
    "                    object: file, the methods array, best, by_cost);\n"
    "                    bnb and best search within --time-limit (default\n"
    "                    10 s) and their share of --budget: their cost is\n"
    "                    then marked *; dp is n/a unless the DAG is a chain\n"
    "  --weights W       with --hessian: comma-separated weights, one per\n"
    "                    dependent (required when the tape has more than one)\n"
    "  -h, --help        print this help\n";

/* Seconds each ordering may take when --time-limit is not given: past it,
 * the ordering eliminates what is left in forward or reverse order (a row
 * marked *). */
#define ORDER_LIMIT 10.0

/* Seconds the whole comparison may take when --budget is not given. */
#define BUDGET 30.0

/* Dense Jacobians above this many entries are not formed. */
#define DENSE_MAX ((size_t)1 << 25)

typedef struct row {
  const char *method, *kind;
  uint64_t fma, fill;
  int has_fill;
  size_t dirs;     /* directions of a vector sweep; 0: none */
  double seconds;  /* < 0: not timed */
  double replay;   /* plan or compressed sweeps alone; < 0: none */
  double err;      /* < 0: not checked */
  int limited;     /* the ordering or search stopped at its time limit */
  int skipped;     /* not run: the budget; why in reason */
  char reason[160];
  size_t index;    /* listing order, for a stable sort */
} row;

typedef struct cmp {
  const char *path;
  ade_tape *t;
  size_t n, m;
  double *ref, refmax; /* dense forward Jacobian, NULL if not formed */
  ade_jacobian_baselines b;
  size_t dropped, largest;
  int all, optimize;
  const char *parts;  /* --parts: the partition kind's name, NULL: none */
  char parts_row[32], mission_row[48];
  ade_parts_report prep;
  int have_parts;
  double time_limit;  /* seconds per optimizer variant */
  double order_limit; /* seconds per ordering */
  row *rows;
  size_t nrows;
  int failed;
  int fmt;           /* rows are printed as they finish, in every format */
  cli_stream out;    /* text */
  cli_json json;     /* json: the object open, its "methods" array open */
  double start;      /* for the progress on stderr */
  double quiet;      /* seconds before progress is shown (ADELIM_PROGRESS_AFTER) */
  size_t step, nsteps;
  const char *current;
  double budget;      /* --budget: seconds for the whole run */
  double deadline;    /* start + budget */
  double graph_s;     /* seconds to build the c-graph (measured once) */
  double sweep_s, sweep_fma; /* vector sweeps run so far: seconds, fma */
  double elim_s, elim_fma;   /* eliminations (plans) so far: seconds, fma */
  double probe_s;            /* one tangent sweep at the recorded point */
  double kind_fixed[3];      /* vertex, edge, face: the last measured fixed part */
} cmp;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void start_clock(cmp *c) {
  c->quiet = cli_progress_after();
  c->start = now();
  c->deadline = c->start + c->budget;
}

static row *add_row(cmp *c, const char *method, const char *kind, uint64_t fma) {
  row *r = &c->rows[c->nrows];
  memset(r, 0, sizeof *r);
  r->method = method;
  r->kind = kind;
  r->fma = fma;
  r->seconds = r->replay = r->err = -1.0;
  r->index = c->nrows++;
  return r;
}

/* The next method starts: say so on stderr once the run has taken a second
 * (or ADELIM_PROGRESS_AFTER seconds). */
static void progress(cmp *c, const char *name) {
  double elapsed = now() - c->start;
  c->current = name;
  c->step++;
  if (elapsed > c->quiet)
    fprintf(stderr, "adelim: compare: %s (%zu of %zu), %.1f s elapsed\n", name, c->step, c->nsteps, elapsed);
}

/* An ordering runs longer than a second (ade_order_options.progress). */
static void on_order(void *ud, const ade_order_progress *p) {
  const cmp *c = ud;
  char what[128];
  snprintf(what, sizeof what, "compare: %s (%zu of %zu)", c->current, c->step, c->nsteps);
  cli_order_progress(what, p);
}

/* An optimizer's search runs longer than a second (ade_opt_limits.progress). */
static void on_search(void *ud, const ade_opt_progress *p) {
  const cmp *c = ud;
  if (p->method == ADE_OPT_HIERARCHY) {
    char what[128];
    snprintf(what, sizeof what, "compare: %s (%zu of %zu)", c->current, c->step, c->nsteps);
    cli_hierarchy_progress(what, p);
    return;
  }
  fprintf(stderr, "adelim: compare: %s (%zu of %zu): search %.0f s, incumbent %" PRIu64 ", lower bound %" PRIu64
          ", %.1f s elapsed\n", c->current, c->step, c->nsteps, p->seconds, p->incumbent, p->bound,
          now() - c->start);
}

#define NCOLS 8
static void cells(const void *ctx, size_t i, char out[][CLI_CELL]);
static void json_row(cmp *c, const row *r);

/* A row is complete: print it now, in every format (text: a skipped one
 * with why; markdown: why under the table; csv: why on stderr). */
static void row_done(cmp *c, const row *r) {
  char cl[CLI_GRID_MAXCOLS][CLI_CELL];
  if (r->skipped && c->fmt == CLI_CSV) fprintf(stderr, "adelim: compare: %s skipped: %s\n", r->method, r->reason);
  if (c->fmt == CLI_JSON) {
    json_row(c, r);
    fflush(stdout);
    return;
  }
  if (r->skipped && c->fmt == CLI_TEXT) {
    printf("%-*s  %-*s  skipped: %s\n", c->out.width[0], r->method, c->out.width[1], r->kind, r->reason);
    fflush(stdout);
    return;
  }
  cells(c, (size_t)(r - c->rows), cl);
  if (c->fmt == CLI_TEXT) cli_stream_row(&c->out, cl);
  else cli_grid_row(stdout, c->fmt, cl, NCOLS);
}

/* max |J - ref| / max |ref| over all m x n entries (J's rows are sorted). */
static double error_of(const cmp *c, const ade_sparse *J) {
  double e = 0.0;
  for (size_t i = 0; i < J->m; i++) {
    size_t k = J->rowptr[i];
    for (size_t j = 0; j < J->n; j++) {
      double v = k < J->rowptr[i + 1] && J->col[k] == j ? J->val[k++] : 0.0;
      e = fmax(e, fabs(v - c->ref[i * c->n + j]));
    }
  }
  return e / fmax(c->refmax, DBL_MIN);
}

/* ------------------------------------------------------------- budget */

/* Seconds left of the budget (negative: over). */
static double left(const cmp *c) { return c->deadline - now(); }

/* Seconds per fma of a vector sweep: as measured so far, else one tangent
 * sweep's per edge (an overestimate: a vector sweep shares the decoding
 * among its directions), else the c-graph's build time per edge. */
static double sweep_rate(const cmp *c) {
  double e = (double)(c->b.edges ? c->b.edges : 1);
  if (c->sweep_fma > 0) return c->sweep_s / c->sweep_fma;
  return (c->probe_s > 0 ? c->probe_s : c->graph_s) / e;
}

/* Seconds per fma of compiling an elimination into a plan (beyond building
 * the graph), as measured so far, else as a sweep. */
static double elim_rate(const cmp *c) { return c->elim_fma > 0 ? c->elim_s / c->elim_fma : sweep_rate(c); }

/* The cheaper vector mode's fma: what a limited ordering falls back to. */
static uint64_t vector_fma(const cmp *c) {
  return c->b.dense_forward < c->b.dense_reverse ? c->b.dense_forward : c->b.dense_reverse;
}

/* Seconds a searching step (ordering, optimizer) may search besides its
 * fixed part: twice its fair share of what is left (most steps finish
 * early), within what is left, at least 1 ms (an ordering then returns
 * its vector-mode sweep at once, marked *), and at most per_method. */
static double step_limit(const cmp *c, double fixed, double per_method) {
  size_t rest = c->nsteps >= c->step ? c->nsteps - c->step + 1 : 1;
  double l = left(c);
  return fmin(per_method, fmax(fmin(2.0 * l / (double)rest, l) - fixed, 1e-3));
}

static int kind_index(const char *kind) {
  return strcmp(kind, "vertex") == 0 ? 0 : strcmp(kind, "edge") == 0 ? 1 : strcmp(kind, "face") == 0 ? 2 : -1;
}

/* A method not run: its row says why, printed at once. */
static void skip_row(cmp *c, const char *method, const char *kind, const char *why) {
  row *r = add_row(c, method, kind, 0);
  r->skipped = 1;
  snprintf(r->reason, sizeof r->reason, "%s, %.3g s left of the %.3g s budget", why, fmax(left(c), 0.0), c->budget);
  row_done(c, r);
}

/* 1 when a method predicted to take pred seconds (what: from what) fits
 * what is left of the budget; else its row is skipped and 0. */
static int fits(cmp *c, const char *method, const char *kind, double pred, const char *what) {
  char why[96];
  if (pred <= left(c)) return 1;
  snprintf(why, sizeof why, "predicted %.3g s (%s)", pred, what);
  skip_row(c, method, kind, why);
  return 0;
}

static void method_failed(cmp *c, const char *method, int st) {
  cli_tape_error(c->path, method, st);
  c->failed = 1;
}

/* A method whose elimination or plan does not fit in memory (the tape's
 * memory limit, say: vertex-forward on a gradient's tape) is a result of
 * the comparison, not its failure: its row says why, as a skipped one. */
static void refused_row(cmp *c, const char *method, const char *kind) {
  row *r = add_row(c, method, kind, 0);
  r->skipped = 1;
  snprintf(r->reason, sizeof r->reason, "%s", cli_errmsg());
  row_done(c, r);
}

/* A method's failure: a skipped row when it is out of memory, else an error. */
static void method_refused(cmp *c, const char *method, const char *kind, int st) {
  if (st == ADE_ENOMEM) refused_row(c, method, kind);
  else method_failed(c, method, st);
}

/* An ordering's kind from its name: "vertex-markowitz" is a vertex ordering. */
static const char *kind_of(const char *name) {
  static const char *const kinds[] = {"vertex", "edge", "face"};
  for (int k = 0; k < 3; k++)
    if (strncmp(name, kinds[k], strlen(kinds[k])) == 0) return kinds[k];
  return "other";
}

/* One elimination (an ordering, or the sequence in o): compiled into a
 * plan (timed: graph, ordering, elimination), then the plan run once more
 * (timed: the replay). */
/* The row it added, or NULL when the method failed. */
static row *run_plan(cmp *c, const char *name, const char *kind, int method, const ade_jacobian_options *o,
                     double extra, int limited) {
  row *w = NULL;
  ade_elim_plan *plan = NULL;
  ade_sparse *J = NULL;
  ade_jacobian_report r;
  int st = ade_elim_plan_create(&plan, c->t, method, o, &r);
  if (st >= 0 && !kind) kind = ade_elim_method_name(r.method); /* auto: what it chose */
  if (st >= 0) st = ade_elim_plan_pattern(plan, &J);
  double t0 = now();
  if (st >= 0) st = ade_elim_plan_jacobian(plan, c->t, NULL, J);
  double t1 = now();
  if (st < 0) {
    method_refused(c, name, kind ? kind : "-", st);
  } else {
    w = add_row(c, name, kind, r.fma);
    w->limited = limited;
    w->fill = r.fill;
    w->has_fill = 1;
    w->seconds = r.seconds + extra;
    w->replay = t1 - t0;
    if (c->ref) w->err = error_of(c, J);
    if (o && o->seq) { /* the plan: the graph, then the sequence eliminated */
      c->elim_s += fmax(r.seconds - c->graph_s, 0.0);
      c->elim_fma += (double)r.fma;
    }
    row_done(c, w);
  }
  ade_sparse_free(J);
  ade_elim_plan_free(plan);
  return w;
}

/* The fixed part of an ordering's time (not limited by its clock): the
 * c-graph built for the plan and the elimination of its predicted fma (a
 * forward or reverse ordering: the vector mode's; else the cheaper one's,
 * which a limited ordering falls back to). */
static double ordering_fixed(const cmp *c, const char *name) {
  size_t len = strlen(name);
  uint64_t f = vector_fma(c);
  int k = kind_index(kind_of(name));
  if (len > 8 && strcmp(name + len - 8, "-forward") == 0) f = c->b.dense_forward;
  if (len > 8 && strcmp(name + len - 8, "-reverse") == 0) f = c->b.dense_reverse;
  double t = c->graph_s + elim_rate(c) * (double)f;
  return k >= 0 ? fmax(t, c->kind_fixed[k]) : t; /* a face ordering's dual, say */
}

/* Every ordering, each within its share of the budget and the time limit
 * (ORDER_LIMIT by default); ones whose fixed part does not fit are
 * skipped. The c-graph is built once, when the first one runs. */
static void run_orderings(cmp *c) {
  ade_cgraph *g = NULL;
  int st = 0;
  for (int o = 0; st >= 0 && o < ADE_ORDER_COUNT; o++) {
    const char *name = ade_order_name(o);
    ade_elim_seq *s = NULL;
    int limited = 0;
    progress(c, name);
    double fixed = ordering_fixed(c, name) + (g ? 0.0 : c->graph_s), lim = step_limit(c, fixed, c->order_limit);
    if (!fits(c, name, kind_of(name), fixed, "c-graph and elimination")) continue;
    if (!g && (st = ade_cgraph_from_tape(&g, c->t, NULL)) < 0) break;
    double t0 = now();
    /* native: a winner of a less general kind as it is, no dual */
    ade_order_options oo = {lim, 1, on_order, c, c->quiet, 1};
    int os = ade_elim_order_with(g, o, &oo, &s, &limited);
    double t1 = now();
    if (os < 0) {
      method_refused(c, name, kind_of(name), os);
    } else {
      ade_jacobian_options jo = {s, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
      row *w = run_plan(c, name, kind_of(name), 0, &jo, t1 - t0, limited);
      int k = kind_index(kind_of(name));
      /* what it took besides its search: the plan, and any time past its limit */
      if (w && k >= 0) c->kind_fixed[k] = w->seconds - (t1 - t0) + fmax(t1 - t0 - lim, 0.0);
    }
    ade_seq_free(s);
  }
  if (st < 0) method_failed(c, "orderings", st);
  ade_cgraph_free(g);
}

/* Every optimizer variant, limited in time; ones that do not apply to a
 * graph this large are left out. */
static void run_optimizers(cmp *c) {
  static const char *const kinds[] = {"vertex", "edge", "face"};
  ade_cgraph *g = NULL;
  ade_opt_limits lim;
  ade_opt_limits_init(&lim);
  lim.time_limit = c->time_limit;
  lim.progress = on_search;
  lim.progress_ud = c;
  lim.progress_interval = c->quiet;
  int st = 0;
  for (size_t i = 0; st >= 0 && i < ade_opt_num_variants(); i++) {
    int method, kind;
    const char *label;
    ade_elim_seq *s = NULL;
    ade_opt_report rep;
    if (ade_opt_variant(i, &method, &kind, &label) < 0) break;
    progress(c, label);
    const char *kname = kind >= 0 && kind < 3 ? kinds[kind] : "other";
    double fixed = c->graph_s * (g ? 1.0 : 2.0) + elim_rate(c) * (double)vector_fma(c);
    lim.time_limit = step_limit(c, fixed, c->time_limit);
    if (!fits(c, label, kname, fixed, "c-graph and elimination")) continue;
    if (!g && (st = ade_cgraph_from_tape(&g, c->t, NULL)) < 0) break;
    double t0 = now();
    int os = ade_optimize(g, kind, method, &lim, &s, &rep);
    double t1 = now();
    if (os == ADE_ETOOBIG || os == ADE_ELIMIT) {
      fprintf(stderr, "adelim: compare: %s skipped: %s\n", label, cli_errmsg());
    } else if (os < 0) { /* reported, but not a failure of compare */
      fprintf(stderr, "adelim: compare: %s failed: %s: %s\n", label, ade_strerror(os), cli_errmsg());
    } else {
      ade_jacobian_options o = {s, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
      run_plan(c, label, kname, 0, &o, t1 - t0, rep.limited);
    }
    ade_seq_free(s);
  }
  if (st < 0) method_failed(c, "optimizers", st);
  ade_cgraph_free(g);
}

/* Seconds the mission planner gets for the parts (bench_parts' limit):
 * its branch and bound uses all it is given. */
#define MISSION_LIMIT 2.0

/* --parts, the same parts as vector elementals (ade_mission_from_tape):
 * the mission planner's best plan (within MISSION_LIMIT) executed
 * on the tape, a row parts-KIND-mission; where the tape has more runs
 * than a mission takes, or J is too large to compare densely, a line on
 * stderr says why there is none. */
static void run_parts_mission(cmp *c) {
  ade_mission *d = NULL;
  ade_mplan *p = NULL;
  ade_mission_limits l;
  double *J = NULL;
  uint64_t fma = 0;
  snprintf(c->mission_row, sizeof c->mission_row, "parts-%s-mission", c->parts);
  progress(c, c->mission_row);
  if (!c->ref) { /* no dense reference: J would not fit to compare */
    fprintf(stderr, "adelim: compare: %s skipped: the %zu x %zu Jacobian is too large for a dense check\n",
            c->mission_row, c->m, c->n);
    return;
  }
  double fixed = 3.0 * c->graph_s + sweep_rate(c) * (double)vector_fma(c);
  ade_mission_limits_init(&l);
  l.time_limit = step_limit(c, fixed, fmin(c->order_limit, MISSION_LIMIT));
  if (!fits(c, c->mission_row, "mission", fixed, "c-graph, runs and execution")) return;
  double t0 = now();
  int st = ade_mission_from_tape(&d, c->t, ade_parts_parse(c->parts));
  if (st >= 0) st = ade_mission_plan(d, ADE_MISSION_BEST, &l, &p);
  if (st >= 0 && !(J = malloc(sizeof *J * (c->n * c->m + 1)))) st = ADE_ENOMEM;
  double t1 = now();
  if (st >= 0) st = ade_mission_tape_jacobian(p, d, c->t, NULL, J, &fma);
  double t2 = now();
  if (st == ADE_ETOOBIG) {
    fprintf(stderr, "adelim: compare: %s skipped: %s\n", c->mission_row, cli_errmsg());
  } else if (st < 0) {
    method_failed(c, c->mission_row, st);
  } else {
    row *w = add_row(c, c->mission_row, "mission", fma);
    w->seconds = t2 - t0;
    w->replay = t2 - t1;
    double e = 0.0;
    for (size_t k = 0; k < c->n * c->m; k++) e = fmax(e, fabs(J[k] - c->ref[k]));
    w->err = e / fmax(c->refmax, DBL_MIN);
    row_done(c, w);
  }
  free(J);
  ade_mplan_free(p);
  ade_mission_free(d);
}

/* --parts: elimination in levels over the tape's parts (two, or one per
 * height of nested regions and the rest) with the best heuristic at each
 * (each search within the ordering limit); the sequence it returns is
 * compiled and run like an ordering's. */
static void run_parts(cmp *c) {
  ade_cgraph *g = NULL;
  ade_elim_seq *seq = NULL;
  ade_opt_limits lim;
  snprintf(c->parts_row, sizeof c->parts_row, "parts-%s", c->parts);
  progress(c, c->parts_row);
  double fixed = 3.0 * c->graph_s + elim_rate(c) * (double)vector_fma(c); /* parts, graph, plan */
  ade_opt_limits_init(&lim);
  lim.time_limit = step_limit(c, fixed, c->order_limit);
  if (!fits(c, c->parts_row, "vertex", fixed, "parts, c-graph and elimination")) return;
  double t0 = now();
  int st = cli_parts_sequence(c->t, c->parts, -1, &lim, &g, &seq, &c->prep);
  double t1 = now();
  if (st < 0) {
    method_failed(c, c->parts_row, st);
  } else {
    ade_jacobian_options o = {seq, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
    const char *kind = ade_seq_kind(seq) == ADE_SEQ_EDGE ? "edge" : "vertex";
    c->have_parts = run_plan(c, c->parts_row, kind, 0, &o, t1 - t0, c->prep.limited) != NULL;
  }
  ade_seq_free(seq);
  ade_cgraph_free(g);
  run_parts_mission(c);
}

/* Under the table: what --parts found and what its two levels cost. */
static void print_parts(const cmp *c) {
  const ade_parts_report *p = &c->prep;
  if (!c->have_parts) return;
  printf("\nparts (%s): %zu with an interior, %zu %s of identical parts, %zu vertices eliminated first\n", c->parts,
         p->parts, p->classes, cli_plural(p->classes, "class", "classes"), p->interior);
  cli_print_levels(p);
  printf("two levels: first (the parts' interiors, by %s) %" PRIu64 " fma + second (the rest, by %s) %" PRIu64
         " fma = %" PRIu64 " fma; one level (the same heuristics, flat): %" PRIu64 " fma; %s used\n",
         cli_kind_plural(p->inner_kind), p->local_cost, cli_kind_plural(p->outer_kind), p->outer_cost,
         p->local_cost + p->outer_cost, p->flat_cost,
         p->two_level ? "two levels" : "one level");
}

/* CPR: the whole of ade_jacobian_cpr timed, then its sweeps alone (the
 * replay) with the pattern and colors kept. */
static void run_cpr(cmp *c) {
  size_t *color = malloc(sizeof *color * (c->n + c->m + 1)), nc = 0;
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE && color; mode++) {
    ade_sparse *J = NULL;
    ade_jacobian_report r;
    const char *name = mode == ADE_FORWARD ? "cpr-forward" : "cpr-reverse";
    size_t colors = mode == ADE_FORWARD ? c->b.col_colors : c->b.row_colors;
    progress(c, name);
    /* the pattern (about a graph's build), then colors sweeps, twice (timed, replayed) */
    if (!fits(c, name, "cpr", c->graph_s + 2.0 * sweep_rate(c) * (double)colors * (double)c->b.edges,
              "pattern and compressed sweeps"))
      continue;
    int st = ade_jacobian_cpr(c->t, mode, NULL, &J, &r);
    if (st >= 0) st = ade_sparse_color(J, mode, ADE_COLOR_BEST, color, &nc);
    double t0 = now();
    if (st >= 0) st = ade_jacobian_cpr_values(c->t, mode, NULL, color, nc, J);
    double t1 = now();
    if (st < 0) {
      method_refused(c, name, "cpr", st);
      ade_sparse_free(J);
      continue;
    }
    row *w = add_row(c, name, "cpr", r.fma);
    c->sweep_s += t1 - t0;
    c->sweep_fma += (double)r.fma;
    w->dirs = r.colors;
    w->seconds = r.seconds;
    w->replay = t1 - t0;
    if (c->ref) w->err = error_of(c, J);
    row_done(c, w);
    ade_sparse_free(J);
  }
  if (!color) method_failed(c, "cpr", ADE_ENOMEM);
  free(color);
}

/* The dense Jacobian is formed (and dense modes run) only when it is small. */
static int dense_ok(const cmp *c) {
  size_t len = c->n * c->m;
  return len <= DENSE_MAX && (!c->m || len / c->m == c->n);
}

/* Dense forward (the reference) and reverse vector modes. */
static void run_dense(cmp *c) {
  size_t len = c->n * c->m;
  if (!dense_ok(c)) return;
  double *D = malloc(sizeof *D * (len ? len : 1));
  c->ref = malloc(sizeof *c->ref * (len ? len : 1));
  if (!D || !c->ref) {
    cli_error("%s: out of memory for a dense %zu x %zu Jacobian", c->path, c->m, c->n);
    free(D);
    free(c->ref);
    c->ref = NULL;
    c->failed = 1;
    return;
  }
  int have_ref = 0;
  for (int mode = ADE_FORWARD; mode <= ADE_REVERSE; mode++) {
    const char *name = mode == ADE_FORWARD ? "dense-forward" : "dense-reverse";
    uint64_t fma = mode == ADE_FORWARD ? c->b.dense_forward : c->b.dense_reverse;
    progress(c, name);
    if (!fits(c, name, "dense", sweep_rate(c) * (double)fma, "vector sweeps")) continue;
    double t0 = now();
    int st = ade_jacobian_dense(c->t, mode, NULL, mode == ADE_FORWARD ? c->ref : D);
    double t1 = now();
    if (st < 0) {
      method_refused(c, name, "dense", st);
      if (mode == ADE_FORWARD) break;
      continue;
    }
    row *w = add_row(c, name, "dense", fma);
    c->sweep_s += t1 - t0;
    c->sweep_fma += (double)fma;
    w->dirs = mode == ADE_FORWARD ? c->n : c->m;
    w->seconds = t1 - t0;
    if (mode == ADE_FORWARD) {
      for (size_t k = 0; k < len; k++) c->refmax = fmax(c->refmax, fabs(c->ref[k]));
      w->err = 0.0;
      have_ref = 1;
    } else if (have_ref) {
      double e = 0.0;
      for (size_t k = 0; k < len; k++) e = fmax(e, fabs(D[k] - c->ref[k]));
      w->err = e / fmax(c->refmax, DBL_MIN);
    }
    row_done(c, w);
  }
  if (!have_ref) { /* forward failed or skipped: no reference */
    free(c->ref);
    c->ref = NULL;
  }
  free(D);
}

static int by_fma(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->skipped != y->skipped) return x->skipped - y->skipped;
  if (x->fma != y->fma) return x->fma < y->fma ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* ------------------------------------------------------------- output */

static const char *const heads[NCOLS] = {"method", "kind", "fma", "fill-in", "directions", "seconds", "replay",
                                         "error"};
static const int minw[NCOLS] = {17, 6, 10, 8, 10, 8, 8, 7}; /* text: rows are printed as they finish */

/* The cells of row i as text ("" when not defined). */
static void cells(const void *ctx, size_t i, char out[][CLI_CELL]) {
  const cmp *c = ctx;
  const row *r = &c->rows[i];
  int star = r->limited && (c->fmt == CLI_TEXT || c->fmt == CLI_MARKDOWN); /* csv, json: a name */
  snprintf(out[0], CLI_CELL, "%s%s", r->method, star ? "*" : "");
  snprintf(out[1], CLI_CELL, "%s", r->kind);
  snprintf(out[2], CLI_CELL, "%" PRIu64, r->fma);
  for (int k = 3; k < NCOLS; k++) out[k][0] = '\0';
  if (r->skipped) snprintf(out[2], CLI_CELL, "%s", c->fmt == CLI_MARKDOWN ? "skipped" : "");
  if (r->has_fill) snprintf(out[3], CLI_CELL, "%" PRIu64, r->fill);
  if (r->dirs) snprintf(out[4], CLI_CELL, "%zu", r->dirs);
  if (r->seconds >= 0) snprintf(out[5], CLI_CELL, "%.3g", r->seconds);
  if (r->replay >= 0) snprintf(out[6], CLI_CELL, "%.3g", r->replay);
  if (r->err >= 0) snprintf(out[7], CLI_CELL, "%.2g", r->err);
}

static void print_header(const cmp *c) {
  const ade_jacobian_baselines *b = &c->b;
  printf("tape: ");
  cli_put_text(stdout, c->path);
  printf("\nc-graph: n = %zu, m = %zu, p = %zu %s, |E| = %zu %s (%zu %s dropped)\n", b->n, b->m, b->p,
         cli_plural(b->p, "intermediate", "intermediates"), b->edges, cli_plural(b->edges, "edge", "edges"),
         c->dropped, cli_plural(c->dropped, "operation", "operations"));
  printf("Jacobian: %zu %s; most per row n^ = %zu, per column m^ = %zu; CPR colors: %zu %s, %zu %s\n", b->nnz,
         cli_plural(b->nnz, "nonzero", "nonzeros"), b->max_row_nnz, b->max_col_nnz, b->col_colors,
         cli_plural(b->col_colors, "column", "columns"), b->row_colors, cli_plural(b->row_colors, "row", "rows"));
  printf("bounds (Naumann, Jacobians by dynamic programming): DM = min{n(m+p), m(n+p)} = %" PRIu64
         ", NR = min{n^(m+p), m^(n+p)} = %" PRIu64 "\n", b->dm, b->nr);
  printf("cut bound: every vertex, edge or face elimination costs at least %" PRIu64 " fma\n\n", b->cut);
}

/* The cheapest method run (rows sorted by fma), not the bound; NULL: none. */
static const row *cheapest(const cmp *c) {
  for (size_t i = 0; i < c->nrows; i++)
    if (strcmp(c->rows[i].kind, "bound") != 0 && !c->rows[i].skipped) return &c->rows[i];
  return NULL;
}

/* After the text or markdown rows (in the order run; rows now sorted):
 * the cheapest method; markdown also every row's method by fma. */
static void print_cheapest(const cmp *c) {
  const row *b = cheapest(c);
  if (b) printf("\ncheapest: %s (%" PRIu64 " fma%s)\n", b->method, b->fma,
                b->fma == c->b.cut ? ", the cut bound: optimal" : "");
  if (c->fmt != CLI_MARKDOWN || c->nrows == 0) return;
  printf("%sby fma:", b ? "" : "\n");
  for (size_t i = 0; i < c->nrows; i++)
    printf("%s %s", i ? "," : "", c->rows[i].method);
  printf("\n");
}

/* Under the markdown table: why each skipped row was skipped. */
static void print_skipped(const cmp *c) {
  int first = 1;
  for (size_t i = 0; i < c->nrows; i++)
    if (c->rows[i].skipped) {
      printf("%s- %s skipped: %s\n", first ? "\n" : "", c->rows[i].method, c->rows[i].reason);
      first = 0;
    }
}

/* Under the table (text, markdown): what a * means, if any row has one. */
static void print_limited_note(const cmp *c) {
  for (size_t i = 0; i < c->nrows; i++)
    if (c->rows[i].limited) {
      printf("\n* stopped at its time limit (at most %.3g s, less when its share of the budget was less): the best "
             "sequence by then (an ordering: the best of the vector modes' sweep and the orderings it compares "
             "with that finished; vertex-markowitz and vertex-relative: theirs, completed in the sweep's order)\n",
             c->order_limit);
      return;
    }
}

/* json: the object's head, then the "methods" array opened; its elements
 * follow as the methods finish (json_row). */
static void json_start(cmp *c) {
  const ade_jacobian_baselines *b = &c->b;
  cli_json *j = &c->json;
  cli_json_init(j, stdout);
  cli_json_open(j, NULL, '{', 0);
  cli_json_str(j, "tape", c->path);
  const char *const keys[] = {"n", "m", "p", "edges", "dropped", "nnz", "max_row_nnz", "max_col_nnz",
                              "col_colors", "row_colors", "dm", "nr", "nr_colors", "cut_bound"};
  const uint64_t vals[] = {b->n, b->m, b->p, b->edges, c->dropped, b->nnz, b->max_row_nnz, b->max_col_nnz,
                           b->col_colors, b->row_colors, b->dm, b->nr, b->nr_colors, b->cut};
  for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) cli_json_u64(j, keys[k], vals[k]);
  cli_json_open(j, "methods", '[', 0);
  fflush(stdout);
}

static void json_row(cmp *c, const row *r) {
  cli_json *j = &c->json;
  cli_json_open(j, NULL, '{', 1);
  cli_json_str(j, "method", r->method);
  cli_json_str(j, "kind", r->kind);
  cli_json_opt(j, "fma", !r->skipped, (double)r->fma);
  cli_json_opt(j, "fill", r->has_fill, (double)r->fill);
  cli_json_opt(j, "directions", r->dirs > 0, (double)r->dirs);
  cli_json_opt(j, "seconds", r->seconds >= 0, r->seconds);
  cli_json_opt(j, "replay", r->replay >= 0, r->replay);
  cli_json_opt(j, "error", r->err >= 0, r->err);
  cli_json_bool(j, "limited", r->limited);
  if (r->skipped) cli_json_str(j, "skipped", r->reason);
  else cli_json_opt(j, "skipped", 0, 0.0);
  cli_json_close(j);
}

/* json, once every method has finished (rows sorted by fma): "methods"
 * closed, then "best" (the cheapest method, null if none ran), "by_fma"
 * (every method, sorted by fma, skipped ones last) and "parts". */
static void json_end(cmp *c) {
  cli_json *j = &c->json;
  const row *b = cheapest(c);
  cli_json_close(j);
  if (b) {
    cli_json_open(j, "best", '{', 1);
    cli_json_str(j, "method", b->method);
    cli_json_u64(j, "fma", b->fma);
    cli_json_close(j);
  } else {
    cli_json_null(j, "best");
  }
  cli_json_open(j, "by_fma", '[', 1);
  for (size_t i = 0; i < c->nrows; i++) cli_json_str(j, NULL, c->rows[i].method);
  cli_json_close(j);
  if (c->have_parts) cli_json_parts(j, c->parts, &c->prep);
  cli_json_close(j);
}

static int parse_format(const cli_cmd *self, const char *s, int *fmt) {
  static const char *const names[] = {"text", "markdown", "csv", "json"};
  for (int k = 0; k < 4; k++)
    if (strcmp(s, names[k]) == 0) {
      *fmt = k;
      return -1;
    }
  return cli_usage_error(self, "unknown format '%s' (text, markdown, csv or json)", s);
}

/* One tangent sweep at the recorded point, timed: the first guess of a
 * vector sweep's seconds per fma (sweep_rate); left 0 if it fails (the
 * methods report their own errors). */
static void probe(cmp *c) {
  size_t n = c->n ? c->n : 1, m = c->m ? c->m : 1;
  double *xd = calloc(n, sizeof *xd), *y = malloc(m * sizeof *y), *yd = malloc(m * sizeof *yd);
  int st = xd && y && yd ? ADE_OK : ADE_ENOMEM;
  if (st >= 0 && c->n) xd[0] = 1.0;
  double t0 = now();
  if (st >= 0) st = ade_tangent(c->t, NULL, xd, y, yd);
  if (st >= 0) c->probe_s = now() - t0;
  free(xd);
  free(y);
  free(yd);
}

/* The c-graph's baselines: sizes, colors, DM and NR. */
static int baselines(cmp *c) {
  ade_cgraph *g = NULL;
  double t0 = now();
  int st = ade_cgraph_from_tape(&g, c->t, &c->dropped);
  c->graph_s = now() - t0;
  if (st >= 0) st = ade_cgraph_baselines(g, &c->b);
  if (st >= 0) st = ade_cgraph_parts(g, NULL, &c->largest);
  ade_cgraph_free(g);
  if (st >= 0) probe(c);
  return st < 0 ? cli_tape_error(c->path, "c-graph", st) : -1;
}

/* auto runs vertex-markowitz and vertex-relative, then eliminates: their
 * measured seconds (else three graph builds each) and the graph for its
 * plan. */
static double auto_predicted(const cmp *c) {
  double t = c->graph_s + elim_rate(c) * (double)vector_fma(c);
  for (int k = 0; k < 2; k++) {
    const char *name = k ? "vertex-relative" : "vertex-markowitz";
    double s = 3.0 * c->graph_s;
    for (size_t i = 0; i < c->nrows; i++)
      if (strcmp(c->rows[i].method, name) == 0 && !c->rows[i].skipped && !c->rows[i].limited) s = c->rows[i].seconds;
    t += s;
  }
  return t;
}

/* Every Jacobian method, one row each printed as it finishes, then the
 * summary (the cheapest; markdown, json: every method by fma). */
static int compare_jacobian(cmp *c, int fmt) {
  c->rows = calloc(ADE_ORDER_COUNT + ade_opt_num_variants() + 9, sizeof *c->rows);
  int rc = c->rows ? baselines(c) : cli_tape_error(c->path, "compare", ADE_ENOMEM);
  if (rc >= 0) return rc;
  c->fmt = fmt;
  start_clock(c);
  c->nsteps = 2 * (size_t)dense_ok(c) + 2 + (c->optimize ? ade_opt_num_variants() : 0);
  c->nsteps += ADE_ORDER_COUNT + 1 + 2 * (c->parts != NULL);
  if (fmt == CLI_TEXT || fmt == CLI_MARKDOWN) print_header(c);
  if (fmt == CLI_TEXT) cli_stream_start(&c->out, stdout, heads, minw, NCOLS, 2);
  else if (fmt == CLI_JSON) json_start(c);
  else cli_grid_head(stdout, fmt, heads, NCOLS, 2);
  run_dense(c);
  run_orderings(c);
  progress(c, "auto");
  if (fits(c, "auto", "auto", auto_predicted(c), "c-graph, two Markowitz orderings and elimination"))
    run_plan(c, "auto", NULL, ADE_ELIM_AUTO, NULL, 0, 0); /* kind: the method it chose */
  if (c->parts) run_parts(c);
  if (c->optimize) run_optimizers(c);
  run_cpr(c);
  row_done(c, add_row(c, "newsam-ramsdell", "bound", c->b.nr));
  row_done(c, add_row(c, "cut-bound", "bound", c->b.cut));
  qsort(c->rows, c->nrows, sizeof *c->rows, by_fma);
  if (fmt == CLI_JSON) json_end(c);
  else if (fmt != CLI_CSV) print_cheapest(c);
  if (fmt == CLI_MARKDOWN) print_skipped(c);
  if (fmt == CLI_TEXT || fmt == CLI_MARKDOWN) print_limited_note(c);
  if (fmt == CLI_TEXT || fmt == CLI_MARKDOWN) print_parts(c);
  return cli_finish(c->failed ? CLI_FAIL : CLI_OK);
}

static int by_hess_fma(const void *a, const void *b) {
  const cli_hess *x = a, *y = b;
  if (x->r.fma != y->r.fma) return x->r.fma < y->r.fma ? -1 : 1;
  return x->method < y->method ? -1 : x->method > y->method;
}

/* The Hessian methods one at a time, for-over-rev (the reference) first,
 * each row printed as soon as its error is known (every format; json: an
 * element of the open "methods" array). */
static int run_hessians(cmp *c, const double *w, cli_hess *res) {
  static const int hminw[CLI_HESS_NCOLS] = {16, 22, 16, 8, 8, 8, 8, 6, 8, 7};
  char cl[CLI_GRID_MAXCOLS][CLI_CELL];
  int status = CLI_OK;
  res[0].method = ADE_HESS_FOR_OVER_REV;
  for (int k = 0, i = 1; k < ADE_HESS_NMETHODS; k++)
    if (k != ADE_HESS_FOR_OVER_REV) res[i++].method = k;
  start_clock(c);
  c->nsteps = ADE_HESS_NMETHODS;
  if (c->fmt == CLI_TEXT) cli_stream_start(&c->out, stdout, cli_hess_heads, hminw, CLI_HESS_NCOLS, 1);
  else if (c->fmt != CLI_JSON) cli_grid_head(stdout, c->fmt, cli_hess_heads, CLI_HESS_NCOLS, 1);
  for (size_t k = 0; k < ADE_HESS_NMETHODS; k++) {
    progress(c, ade_hess_method_name(res[k].method));
    if (cli_hess_run(c->path, c->t, w, NULL, &res[k], 1) != CLI_OK) status = CLI_FAIL;
    cli_hess_errors(res, k + 1);
    if (!res[k].H) continue;
    if (c->fmt == CLI_JSON) {
      cli_hess_json_row(&c->json, &res[k]);
      fflush(stdout);
      continue;
    }
    cli_hess_cells(&res[k], cl);
    if (c->fmt == CLI_TEXT) cli_stream_row(&c->out, cl);
    else cli_grid_row(stdout, c->fmt, cl, CLI_HESS_NCOLS);
  }
  return status;
}

/* --hessian: every Hessian method, one row each printed as it finishes (in
 * the order run), then the summary: the cheapest (markdown: and every
 * method by fma; json: "best" and "by_fma"); the error is against
 * for-over-rev. */
static int compare_hessian(const cli_cmd *self, cmp *c, const char *weights, int fmt) {
  cli_hess res[ADE_HESS_NMETHODS] = {{0}};
  double *w = NULL;
  int rc = cli_hess_weights(self, weights, c->m, &w);
  c->fmt = fmt;
  if (rc < 0) {
    cli_json *j = &c->json;
    const cli_hess *best = NULL;
    if (fmt == CLI_TEXT || fmt == CLI_MARKDOWN) {
      printf("tape: ");
      cli_put_text(stdout, c->path);
      printf("\nHessian of %s: n = %zu %s, m = %zu %s; error against for-over-rev\n\n",
             weights ? "sum w_i y_i" : "y", c->n, cli_plural(c->n, "independent", "independents"), c->m,
             cli_plural(c->m, "dependent", "dependents"));
    }
    cli_json_init(j, stdout);
    if (fmt == CLI_JSON) {
      cli_json_open(j, NULL, '{', 0);
      cli_json_str(j, "tape", c->path);
      cli_json_u64(j, "n", c->n);
      cli_json_u64(j, "m", c->m);
      cli_json_open(j, "methods", '[', 0);
      fflush(stdout);
    }
    rc = run_hessians(c, w, res);
    qsort(res, ADE_HESS_NMETHODS, sizeof *res, by_hess_fma);
    for (size_t k = 0; k < ADE_HESS_NMETHODS && !best; k++)
      if (res[k].H) best = &res[k];
    if (fmt == CLI_JSON) {
      cli_json_close(j);
      if (best) {
        cli_json_open(j, "best", '{', 1);
        cli_json_str(j, "method", ade_hess_method_name(best->method));
        cli_json_u64(j, "fma", best->r.fma);
        cli_json_close(j);
      } else {
        cli_json_null(j, "best");
      }
      cli_json_open(j, "by_fma", '[', 1);
      for (size_t k = 0; k < ADE_HESS_NMETHODS; k++)
        if (res[k].H) cli_json_str(j, NULL, ade_hess_method_name(res[k].method));
      cli_json_close(j);
      cli_json_close(j);
    }
    if (best && (fmt == CLI_TEXT || fmt == CLI_MARKDOWN))
      printf("\ncheapest: %s (%llu fma)\n", ade_hess_method_name(best->method), (unsigned long long)best->r.fma);
    if (best && fmt == CLI_MARKDOWN) {
      printf("by fma:");
      for (size_t k = 0, i = 0; k < ADE_HESS_NMETHODS; k++)
        if (res[k].H) printf("%s %s", i++ ? "," : "", ade_hess_method_name(res[k].method));
      printf("\n");
    }
    rc = cli_finish(rc);
  }
  cli_hess_free(res, ADE_HESS_NMETHODS);
  free(w);
  return rc;
}

int cli_cmd_compare(const cli_cmd *self, int argc, char **argv) {
  const char *format = "text", *limit = NULL, *weights = NULL, *budget = NULL, *memlimit = NULL;
  int fmt = CLI_TEXT, hessian = 0, json = 0, mission = 0;
  cmp c;
  memset(&c, 0, sizeof c);
  const cli_arg args[] = {{"format", &format, NULL}, {"time-limit", &limit, NULL}, {"optimize", NULL, &c.optimize},
                          {"all", NULL, &c.all},      {"hessian", NULL, &hessian},  {"weights", &weights, NULL},
                          {"json", NULL, &json},      {"mission", NULL, &mission}, {"parts", &c.parts, NULL},
                          {"budget", &budget, NULL},  {"memory-limit", &memlimit, NULL},
                          {NULL, NULL, NULL}};
  int rc = cli_parse_tape(self, argc, argv, args, &c.path), st;
  if (rc >= 0 || (rc = parse_format(self, format, &fmt)) >= 0 ||
      (limit && (rc = cli_parse_seconds(self, "--time-limit", limit, &c.time_limit)) >= 0) ||
      (budget && (rc = cli_parse_seconds(self, "--budget", budget, &c.budget)) >= 0))
    return rc;
  char *end = NULL;
  double mib = memlimit ? strtod(memlimit, &end) : 0;
  if (memlimit && (end == memlimit || *end || !(mib >= 1.0 / 1024) || mib > 1e12))
    return cli_usage_error(self, "--memory-limit needs a number of MiB, at least 1 KiB, not '%s'", memlimit);
  if (memlimit && mission) return cli_usage_error(self, "--memory-limit applies to Jacobians and Hessians");
  if (!budget) c.budget = BUDGET;
  if (budget && hessian) return cli_usage_error(self, "--budget applies to Jacobians and missions");
  c.order_limit = limit ? c.time_limit : ORDER_LIMIT;
  if (!limit) c.time_limit = 1.0;
  if (json && strcmp(format, "text") != 0 && fmt != CLI_JSON)
    return cli_usage_error(self, "--json is --format json, not --format %s", format);
  if (json) fmt = CLI_JSON;
  if (mission && (hessian || c.optimize || weights))
    return cli_usage_error(self, "--mission goes without --hessian, --optimize and --weights");
  if (mission) return cli_compare_mission(self, c.path, limit ? c.time_limit : 10.0, c.budget, fmt);
  if (c.parts && ade_parts_parse(c.parts) < 0)
    return cli_usage_error(self, "unknown --parts '%s' (regions, callsites, repeats or auto)", c.parts);
  if (c.parts && (hessian || mission)) return cli_usage_error(self, "--parts applies to Jacobians");
  if (hessian && c.optimize) return cli_usage_error(self, "--optimize applies to Jacobians, not to --hessian");
  if (!hessian && weights) return cli_usage_error(self, "--weights goes with --hessian");
  if ((st = ade_tape_open(&c.t, c.path)) < 0) return cli_tape_error(c.path, "cannot open", st);
  if (memlimit) ade_tape_set_memory_limit(c.t, (size_t)(mib * 1048576.0));
  c.n = ade_tape_num_indep(c.t);
  c.m = ade_tape_num_dep(c.t);
  rc = hessian ? compare_hessian(self, &c, weights, fmt) : compare_jacobian(&c, fmt);
  free(c.ref);
  free(c.rows);
  ade_tape_free(c.t);
  return rc;
}
