/* cmd_jacobian.c: `adelim jacobian`: the sparse Jacobian of a tape by elimination, with its cost. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

const char cli_jacobian_usage[] =
    "Usage: adelim jacobian [--method NAME] [--kind K] [--time-limit S]\n"
    "                       [--node-limit N] [--threads N] [--hierarchy H]\n"
    "                       [--seed N] [--iterations N] [--sequence FILE]\n"
    "                       [--save-sequence FILE] [--parts P] [--stream]\n"
    "                       [--memory-limit MIB]\n"
    "                       [--out J.mtx] [--values] [--json] TAPE\n"
    "\n"
    "Build the linearized computational graph of the tape, eliminate it and\n"
    "print the cost: multiply-adds (fma), fill-in, graph sizes before and\n"
    "after, the dense forward and reverse vector mode costs n|E| and m|E|,\n"
    "and the time.\n"
    "\n"
    "  --method NAME   auto (the default): the least fma of vertex-markowitz,\n"
    "                  vertex-relative, vertex-reverse, vertex-forward,\n"
    "                  vertex-chains and CPR (doc/elimination.md); when the\n"
    "                  c-graph is over the memory limit, it streams\n"
    "                  (--stream) instead;\n"
    "                  cpr-forward, cpr-reverse;\n"
    "                  an elimination ordering:\n"
    "                  vertex-forward, vertex-reverse, vertex-markowitz,\n"
    "                  vertex-relative, vertex-chains, edge-forward,\n"
    "                  edge-reverse, edge-markowitz, edge-fillin,\n"
    "                  face-forward, face-reverse, face-greedy;\n"
    "                  or an optimizer (doc/optimizers.md): exhaustive, bnb,\n"
    "                  hierarchy, anneal, dp-bfft, dp-bffa, dp-bfrt, dp-bfra,\n"
    "                  optionally with a kind suffix (bnb-face)\n"
    "  --kind K        the optimizer's kind: vertex, edge (default), face\n"
    "  --time-limit S  stop the optimizer (its start heuristic included;\n"
    "                  with --parts all its searches), a greedy vertex, edge\n"
    "                  or face ordering or face sweep, or auto's choice,\n"
    "                  after S seconds (the best complete sequence found so\n"
    "                  far is used; it is then not proven optimal). The\n"
    "                  vertex sweeps, CPR and dp-* have nothing to bound\n"
    "  --node-limit N  stop the optimizer after N search nodes\n"
    "  --threads N     branch and bound in N threads (default 1); an\n"
    "                  ordering orders the graph's components at once and\n"
    "                  a greedy edge or face ordering runs the orderings it\n"
    "                  is compared with beside its own (each with the time\n"
    "                  limit),\n"
    "                  in N threads (default: the processors online, at most\n"
    "                  16; without --time-limit, the result of one thread);\n"
    "                  --parts without an optimizer solves its classes of\n"
    "                  parts in N threads and the one level beside (default:\n"
    "                  the processors online; the result of one thread)\n"
    "  --hierarchy H   the filters of the hierarchy optimizer, e.g.\n"
    "                  sibling,markowitz,reverse (implies --method hierarchy)\n"
    "  --seed N        annealing: the random seed (default 1)\n"
    "  --iterations N  annealing: the number of moves (default 20000)\n"
    "  --sequence FILE, --seq FILE\n"
    "                  apply the elimination sequence in FILE instead\n"
    "  --save-sequence FILE, --save-seq FILE\n"
    "                  write the sequence the method chose to FILE\n"
    "  --parts P       two-level elimination over parts of the tape: each\n"
    "                  part's interior first (its local Jacobian), identical\n"
    "                  parts solved once, then the rest; by the optimizer\n"
    "                  given (vertex kind), else the best vertex or edge\n"
    "                  heuristic (edge orderings and dynamic programming over\n"
    "                  the chain of factors, when cheaper), at each level;\n"
    "                  the same heuristics on the whole graph are tried too.\n"
    "                  P: regions (ade_region_begin/end), callsites (runs of\n"
    "                  records from one call of a function; a tape recorded\n"
    "                  with call sites), repeats (repeated blocks such as\n"
    "                  time steps, found by a structure hash), auto (regions\n"
    "                  if any, else repeats; the rest cut into parts of at\n"
    "                  most 1024 records). Nested regions: a level of parts\n"
    "                  per height of region (each region after the regions\n"
    "                  inside it), stopping where cheapest. Not the\n"
    "                  --hierarchy filters (those order one graph)\n"
    "  --stream        streaming elimination (ade_jacobian_stream): the tape\n"
    "                  is read backward chunk by chunk and eliminated part\n"
    "                  by part (repeated blocks such as time steps, found in\n"
    "                  its first 65,536 records; else parts of 1024 records),\n"
    "                  each class of identical parts optimized once, m\n"
    "                  adjoints kept for the values live between parts:\n"
    "                  memory holds one part, that interface and the dense\n"
    "                  Jacobian, not the tape's c-graph. Not with --method,\n"
    "                  --sequence, --save-sequence or --parts other than\n"
    "                  repeats\n"
    "  --memory-limit MIB  the tape's memory limit (ade_tape_set_memory_limit)\n"
    "                  in MiB; default 256\n"
    "  --out FILE      write the Jacobian as a Matrix Market file\n"
    "  --values        also print the Jacobian's nonzeros: one line 'row\n"
    "                  column value' each (1-based, %.17g), row by row,\n"
    "                  columns ascending within a row\n"
    "  --json          print one JSON object instead: the figures above,\n"
    "                  an \"optimizer\" object, and with --values a \"values\"\n"
    "                  array of [row, column, value]\n"
    "  -h, --help      print this help\n"
    "\n"
    "Orderings and searches longer than a second report their progress on\n"
    "stderr (ADELIM_PROGRESS_AFTER: seconds between reports).\n";

typedef struct jac_args {
  const char *tape, *method, *seq, *save, *out, *kind, *time, *nodes, *threads, *hier, *seed, *iters, *parts;
  const char *memlimit;
  int json, values, stream;
} jac_args;

/* Options with a value ("--name VALUE" or "--name=VALUE") and flags. -1 to go on. */
static int parse(const cli_cmd *self, int argc, char **argv, jac_args *a) {
  const cli_arg args[] = {{"method", &a->method, NULL},     {"sequence", &a->seq, NULL},
                          {"seq", &a->seq, NULL},           {"save-sequence", &a->save, NULL},
                          {"save-seq", &a->save, NULL},     {"out", &a->out, NULL},
                          {"kind", &a->kind, NULL},         {"time-limit", &a->time, NULL},
                          {"node-limit", &a->nodes, NULL},  {"threads", &a->threads, NULL},
                          {"hierarchy", &a->hier, NULL},    {"seed", &a->seed, NULL},
                          {"iterations", &a->iters, NULL},  {"json", NULL, &a->json},
                          {"values", NULL, &a->values},     {"parts", &a->parts, NULL},
                          {"stream", NULL, &a->stream},     {"memory-limit", &a->memlimit, NULL},
                          {NULL, NULL, NULL}};
  return cli_parse_tape(self, argc, argv, args, &a->tape);
}

/* A non-negative number of the option name; 0 if s is NULL. */
static int number(const cli_cmd *self, const char *name, const char *s, int integer, double *v) {
  char *end;
  *v = 0;
  if (!s) return 0;
  errno = 0;
  *v = strtod(s, &end);
  if (errno || end == s || *end || !(*v >= 0) || *v > 1e15 || (integer && *v != (double)(uint64_t)*v))
    return cli_usage_error(self, "--%s needs a non-negative %s, not '%s'", name, integer ? "integer" : "number", s);
  return 0;
}

static int kind_of(const char *s) {
  return !s ? -1 : !strcmp(s, "vertex") ? ADE_SEQ_VERTEX : !strcmp(s, "edge") ? ADE_SEQ_EDGE
                 : !strcmp(s, "face") ? ADE_SEQ_FACE : -1;
}

static const char *const kind_names[] = {"vertex", "edge", "face"};

/* The library does not print: this is how a long search shows progress. */
static void on_progress(void *ud, const ade_opt_progress *p) {
  (void)ud;
  if (p->method == ADE_OPT_HIERARCHY) {
    char what[64];
    snprintf(what, sizeof what, "%s (%s)", ade_opt_name(p->method), kind_names[p->kind]);
    cli_hierarchy_progress(what, p);
    return;
  }
  fprintf(stderr, "adelim: %s (%s): %.0f s, incumbent %" PRIu64 ", lower bound %" PRIu64 ", nodes %" PRIu64
          ", cuts %" PRIu64 "\n", ade_opt_name(p->method), kind_names[p->kind], p->seconds, p->incumbent, p->bound,
          p->nodes, p->cuts);
}

/* A non-empty comma-separated list without empty items. */
static int valid_list(const char *s) {
  size_t len = strlen(s);
  return len > 0 && s[0] != ',' && s[len - 1] != ',' && !strstr(s, ",,") && strspn(s, " ,") < len;
}

/* The optimizer's limits from the options. */
static int limits(const cli_cmd *self, const jac_args *a, ade_opt_limits *l) {
  double t, n, th, seed, it;
  ade_opt_limits_init(l);
  if (number(self, "time-limit", a->time, 0, &t) || number(self, "node-limit", a->nodes, 1, &n) ||
      number(self, "threads", a->threads, 1, &th) || number(self, "seed", a->seed, 1, &seed) ||
      number(self, "iterations", a->iters, 1, &it))
    return CLI_USAGE;
  if (a->threads && (th < 1 || th > 256)) return cli_usage_error(self, "--threads must be 1 to 256, not '%s'", a->threads);
  if (a->hier && !valid_list(a->hier))
    return cli_usage_error(self, "--hierarchy needs a comma-separated list of filters, not '%s'", a->hier);
  l->time_limit = t;
  l->node_limit = (uint64_t)n;
  l->threads = a->threads ? (int)th : 1;
  l->hierarchy = a->hier;
  if (a->seed) l->seed = (uint64_t)seed;
  l->iterations = (uint64_t)it;
  l->progress = on_progress;
  l->progress_interval = cli_progress_after();
  return -1;
}

static void print_opt(const char *name, int kind, const ade_opt_report *o, const ade_elim_seq *s) {
  printf("optimizer: %s (%s elimination), cost %" PRIu64 ", %s", name, kind_names[kind], o->cost,
         o->optimal ? "proven optimal" : o->limited ? "not proven optimal (limit reached)" : "heuristic");
  if (!o->optimal && o->bound) printf(", lower bound %" PRIu64, o->bound);
  printf("\n");
  if (s && ade_seq_kind(s) != kind) /* ade_optimize's contract: a less general kind, the same fma */
    printf("applied as: %s eliminations (the same fma, no conversion)\n", kind_names[ade_seq_kind(s)]);
  if (o->initial) printf("started from: %" PRIu64 " fma\n", o->initial);
  if (o->nodes)
    printf("search: %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s\n", o->nodes, cli_plural(o->nodes, "node", "nodes"),
           o->cuts, cli_plural(o->cuts, "cut", "cuts"), o->states, cli_plural(o->states, "state", "states"));
  printf("optimizer time: %.6f s\n", o->seconds);
}

static void print_report(const jac_args *a, const ade_jacobian_report *r, const ade_sparse *J) {
  printf("tape: ");
  cli_put_text(stdout, a->tape);
  if (a->seq) printf("\nmethod: sequence from file\n");
  else if (r->method >= 0 && strcmp(a->method, ade_elim_method_name(r->method)))
    printf("\nmethod: %s (chose %s)\n", a->method, ade_elim_method_name(r->method));
  else printf("\nmethod: %s\n", a->method);
  printf("c-graph: %zu %s, %zu %s (%zu %s dropped)\n", r->vertices_before,
         cli_plural(r->vertices_before, "vertex", "vertices"), r->edges_before,
         cli_plural(r->edges_before, "edge", "edges"), r->dropped, cli_plural(r->dropped, "operation", "operations"));
  printf("fma: %" PRIu64 " (forward vector mode n|E| = %" PRIu64 ", reverse vector mode m|E| = %" PRIu64
         ")\n", r->fma, r->forward_cost, r->reverse_cost);
  if (r->colors) printf("colors: %zu (CPR: one vector sweep direction each)\n", r->colors);
  else printf("fill-in: %" PRIu64 ", absorbed: %" PRIu64 ", merged: %" PRIu64 ", steps: %zu\n", r->fill,
              r->absorbed, r->merged, r->steps);
  printf("Jacobian: %zu x %zu, %zu %s (bipartite graph: %zu %s, %zu %s)\n", J->m, J->n, J->nnz,
         cli_plural(J->nnz, "nonzero", "nonzeros"), r->vertices_after, cli_plural(r->vertices_after, "vertex", "vertices"),
         r->edges_after, cli_plural(r->edges_after, "edge", "edges"));
  if (r->limited)
    printf("ordering: stopped at the time or memory limit, the best complete sequence so far was used\n");
  printf("time: %.6f s\n", r->seconds);
}

/* J's entries row by row, columns ascending within a row, 1-based. */
static void print_values(const ade_sparse *J, cli_json *j) {
  if (j) cli_json_open(j, "values", '[', 0);
  else printf("values (row column value, 1-based, by row):\n");
  for (size_t i = 0; i < J->m; i++)
    for (size_t k = J->rowptr[i]; k < J->rowptr[i + 1]; k++) {
      if (!j) {
        printf("%zu %zu %.17g\n", i + 1, J->col[k] + 1, J->val[k]);
        continue;
      }
      cli_json_open(j, NULL, '[', 1);
      cli_json_u64(j, NULL, i + 1);
      cli_json_u64(j, NULL, J->col[k] + 1);
      cli_json_num(j, NULL, J->val[k]);
      cli_json_close(j);
    }
  if (j) cli_json_close(j);
}

static void json_opt(cli_json *j, const char *name, int kind, const ade_opt_report *o, const ade_elim_seq *s) {
  cli_json_open(j, "optimizer", '{', 1);
  cli_json_str(j, "name", name);
  cli_json_str(j, "kind", kind_names[kind]);
  cli_json_str(j, "applied_kind", kind_names[s ? ade_seq_kind(s) : kind]);
  cli_json_u64(j, "cost", o->cost);
  cli_json_bool(j, "optimal", o->optimal);
  cli_json_bool(j, "limited", o->limited);
  cli_json_opt(j, "bound", o->bound > 0, (double)o->bound);
  cli_json_opt(j, "initial", o->initial > 0, (double)o->initial);
  cli_json_u64(j, "nodes", o->nodes);
  cli_json_u64(j, "cuts", o->cuts);
  cli_json_u64(j, "states", o->states);
  cli_json_num(j, "seconds", o->seconds);
  cli_json_close(j);
}

/* Elimination in levels over the tape's parts (--parts): the sequence to
 * apply, and the c-graph it was built for (*g, kept for ade_jacobian). */
static int by_parts(const jac_args *a, const ade_opt_limits *l, ade_tape *tape, int optimizer, ade_elim_seq **seq,
                    ade_parts_report *rep, ade_cgraph **g) {
  int st = cli_parts_sequence(tape, a->parts, optimizer, l, g, seq, rep);
  return st < 0 ? cli_tape_error(a->tape, "parts", st) : -1;
}

static void print_parts(const char *kind, const ade_parts_report *p) {
  printf("parts: %s, %zu with an interior (%zu %s), %zu vertices eliminated first\n", kind, p->parts, p->classes,
         cli_plural(p->classes, "class", "classes"), p->interior);
  cli_print_levels(p);
  printf("levels: first (%s) %" PRIu64 " fma + second (%s) %" PRIu64 " fma = %" PRIu64 "; one level: %" PRIu64
         " fma; %s%s; %.6f s\n", cli_kind_plural(p->inner_kind), p->local_cost, cli_kind_plural(p->outer_kind), p->outer_cost,
         p->local_cost + p->outer_cost, p->flat_cost,
         p->two_level ? "two levels used" : "one level used", p->limited ? " (a search stopped at its limit)" : "",
         p->seconds);
}

/* The report as one JSON object: the figures of the text report. */
static void print_json(const jac_args *a, const ade_jacobian_report *r, const ade_sparse *J, int kind,
                       const ade_opt_report *o, const ade_elim_seq *s, const ade_parts_report *p) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_open(&j, NULL, '{', 0);
  cli_json_str(&j, "tape", a->tape);
  cli_json_str(&j, "method", a->seq ? "sequence" : a->method);
  if (r->method >= 0) cli_json_str(&j, "chosen", ade_elim_method_name(r->method));
  else cli_json_null(&j, "chosen");
  cli_json_u64(&j, "colors", r->colors);
  if (a->seq) cli_json_str(&j, "sequence", a->seq);
  else cli_json_null(&j, "sequence");
  cli_json_u64(&j, "vertices", r->vertices_before);
  cli_json_u64(&j, "edges", r->edges_before);
  cli_json_u64(&j, "dropped", r->dropped);
  cli_json_u64(&j, "fma", r->fma);
  cli_json_u64(&j, "forward_cost", r->forward_cost);
  cli_json_u64(&j, "reverse_cost", r->reverse_cost);
  cli_json_u64(&j, "fill", r->fill);
  cli_json_u64(&j, "absorbed", r->absorbed);
  cli_json_u64(&j, "merged", r->merged);
  cli_json_u64(&j, "steps", r->steps);
  cli_json_bool(&j, "limited", r->limited);
  cli_json_u64(&j, "m", J->m);
  cli_json_u64(&j, "n", J->n);
  cli_json_u64(&j, "nnz", J->nnz);
  cli_json_u64(&j, "vertices_after", r->vertices_after);
  cli_json_u64(&j, "edges_after", r->edges_after);
  cli_json_num(&j, "seconds", r->seconds);
  if (s) json_opt(&j, a->method, kind, o, s);
  if (p) cli_json_parts(&j, a->parts, p);
  if (a->values) print_values(J, &j);
  cli_json_close(&j);
}

/* --stream: ade_jacobian_stream and its report. */
static int run_stream(const jac_args *a, const ade_opt_limits *l, ade_tape *tape) {
  ade_stream_report r;
  ade_sparse *J = NULL;
  int st = ade_jacobian_stream(tape, l, &J, &r);
  if (st < 0) return cli_tape_error(a->tape, "jacobian --stream", st);
  if (a->out && (st = ade_sparse_write_mtx(J, a->out)) < 0) {
    ade_sparse_free(J);
    return cli_file_error(a->out, "cannot write", st, CLI_IO_WRITE);
  }
  if (a->json) {
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_open(&j, NULL, '{', 0);
    cli_json_str(&j, "tape", a->tape);
    cli_json_str(&j, "method", "stream");
    cli_json_u64(&j, "m", J->m);
    cli_json_u64(&j, "n", J->n);
    cli_json_u64(&j, "nnz", J->nnz);
    cli_json_u64(&j, "records", r.records);
    cli_json_u64(&j, "period", r.period);
    cli_json_u64(&j, "parts", r.parts);
    cli_json_u64(&j, "classes", r.classes);
    cli_json_u64(&j, "edge_classes", r.edge_classes);
    cli_json_u64(&j, "eliminated", r.eliminated);
    cli_json_u64(&j, "largest", r.largest);
    cli_json_u64(&j, "max_live", r.max_live);
    cli_json_u64(&j, "elim_fma", r.elim_fma);
    cli_json_u64(&j, "fold_fma", r.fold_fma);
    cli_json_u64(&j, "fma", r.fma);
    cli_json_u64(&j, "reverse_cost", r.reverse_fma);
    cli_json_u64(&j, "peak_bytes", r.peak_bytes);
    cli_json_num(&j, "seconds", r.seconds);
    if (a->values) print_values(J, &j);
    cli_json_close(&j);
  } else {
    printf("tape: ");
    cli_put_text(stdout, a->tape);
    printf("\nmethod: stream\nrecords: %" PRIu64 "\njacobian: %zu x %zu, %zu nonzeros\n", r.records, J->m, J->n,
           J->nnz);
    printf("parts: %zu (period %zu records; largest %zu), %zu %s (%zu by edges), %zu eliminated, at most %zu live "
           "between parts\n",
           r.parts, r.period, r.largest, r.classes, cli_plural(r.classes, "class", "classes"), r.edge_classes,
           r.eliminated,
           r.max_live);
    printf("fma: %" PRIu64 " (eliminations %" PRIu64 " + adjoints %" PRIu64 "); reverse mode %" PRIu64 "\n", r.fma,
           r.elim_fma, r.fold_fma, r.reverse_fma);
    printf("memory: %zu bytes at most (part %zu); time: %.6f s\n", r.peak_bytes, r.part_bytes, r.seconds);
    if (a->values) print_values(J, NULL);
  }
  ade_sparse_free(J);
  return cli_finish(CLI_OK);
}

/* Run the optimizer on the tape's c-graph (*g, kept for ade_jacobian):
 * the sequence to apply. */
static int optimize(const cli_cmd *self, const jac_args *a, const ade_opt_limits *l, ade_tape *tape, int method,
                    int kind, ade_elim_seq **seq, ade_opt_report *rep, ade_cgraph **g) {
  int st = ade_cgraph_from_tape(g, tape, NULL), ingraph = st >= 0;
  if (ingraph) st = ade_optimize(*g, kind, method, l, seq, rep);
  if (st == ADE_EINVAL && ingraph && a->hier) /* the only argument ade_optimize can refuse here */
    return cli_usage_error(self, "--hierarchy '%s': %s", a->hier, cli_errmsg());
  return st < 0 ? cli_tape_error(a->tape, ade_opt_name(method), st) : -1;
}

int cli_cmd_jacobian(const cli_cmd *self, int argc, char **argv) {
  jac_args a;
  ade_jacobian_options o = {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
  ade_jacobian_report r;
  ade_opt_report orep;
  ade_parts_report prep;
  ade_opt_limits lim;
  ade_tape *tape = NULL;
  ade_elim_seq *seq = NULL, *chosen = NULL;
  ade_cgraph *g = NULL;
  ade_sparse *J = NULL;
  memset(&a, 0, sizeof a);
  memset(&orep, 0, sizeof orep);
  int rc = parse(self, argc, argv, &a), st, kind = ADE_SEQ_EDGE, optimizer = -1;
  if (rc >= 0) return rc;
  const char *given = a.method;
  if (!a.method) a.method = a.hier ? "hierarchy" : a.parts ? "vertex-markowitz" : "auto";
  int method = ade_elim_method_parse(a.method);
  if (method < 0 && (optimizer = ade_opt_parse(a.method, &kind)) < 0)
    return cli_usage_error(self, "unknown method '%s' (see --help)", a.method);
  if (a.kind && optimizer >= 0 && (kind = kind_of(a.kind)) < 0)
    return cli_usage_error(self, "unknown kind '%s' (vertex, edge or face)", a.kind);
  if (a.kind && optimizer < 0) return cli_usage_error(self, "--kind applies to optimizers, not to '%s'", a.method);
  if (a.parts && ade_parts_parse(a.parts) < 0)
    return cli_usage_error(self, "unknown --parts '%s' (regions, callsites, repeats or auto)", a.parts);
  if (a.parts && a.seq) return cli_usage_error(self, "--parts builds a sequence: not with --sequence");
  if (a.parts && optimizer >= 0) {
    if (a.kind && kind != ADE_SEQ_VERTEX) return cli_usage_error(self, "--parts eliminates vertices: not --kind %s", a.kind);
    kind = ADE_SEQ_VERTEX;
  }
  if (a.parts && optimizer < 0 && strcmp(a.method, "vertex-markowitz"))
    return cli_usage_error(self, "--parts takes an optimizer (or none), not the ordering '%s'", a.method);
  if (a.hier && optimizer != ADE_OPT_HIERARCHY)
    return cli_usage_error(self, "--hierarchy goes with the hierarchy optimizer, not with '%s'", a.method);
  if ((rc = limits(self, &a, &lim)) >= 0) return rc;
  if (optimizer >= 0 && !a.seq && !ade_opt_supports(optimizer, kind))
    return cli_usage_error(self, "%s does not build %s sequences", ade_opt_name(optimizer), kind_names[kind]);
  double mib = 0;
  int bad = number(self, "memory-limit", a.memlimit, 0, &mib);
  if (bad) return bad;
  if (a.memlimit && mib < 1.0 / 1024) return cli_usage_error(self, "--memory-limit needs at least 1 KiB, not '%s'", a.memlimit);
  if (a.stream && (given || a.seq || a.save || a.hier ||
                   (a.parts && strcmp(a.parts, "repeats"))))
    return cli_usage_error(self, "--stream chooses its parts and sequences: not with --method, --sequence, "
                                 "--save-sequence, --hierarchy or --parts %s", a.parts ? a.parts : "");
  if ((st = ade_tape_open(&tape, a.tape)) < 0) return cli_tape_error(a.tape, "cannot open", st);
  if (a.memlimit) ade_tape_set_memory_limit(tape, (size_t)(mib * 1048576.0));
  if (a.stream) {
    rc = run_stream(&a, &lim, tape);
    ade_tape_free(tape);
    return rc;
  }
  if (a.seq && (st = ade_seq_load(&seq, a.seq)) < 0) rc = cli_file_error(a.seq, "cannot load sequence", st, CLI_IO_SEQ);
  if (a.parts && optimizer < 0 && !a.threads) lim.threads = cli_processors(); /* the heuristics' classes, one level beside */
  if (rc < 0 && a.parts) rc = by_parts(&a, &lim, tape, optimizer, &chosen, &prep, &g);
  else if (rc < 0 && !a.seq && optimizer >= 0) rc = optimize(self, &a, &lim, tape, optimizer, kind, &chosen, &orep, &g);
  o.seq = seq ? seq : chosen;
  o.graph_scratch = g; /* the optimizer's: not built twice, eliminated in place (not used after) */
  if (method >= 0) { /* an ordering or auto: it takes the clock, and reports after a second */
    o.time_limit = lim.time_limit;
    o.progress = cli_on_order_progress;
    o.progress_interval = cli_progress_after();
    o.threads = a.threads ? lim.threads : cli_processors();
  }
  if (rc < 0 && (st = ade_jacobian(tape, method < 0 ? 0 : method, &o, &J, &r)) == ADE_ENOMEM && !given && method == ADE_ELIM_AUTO && !a.seq &&
      !a.parts && !a.save) { /* the default method and no room for the c-graph: stream instead */
    fprintf(stderr, "adelim jacobian: %s; streaming instead (--stream)\n", cli_errmsg());
    rc = run_stream(&a, &lim, tape);
  } else if (rc < 0 && st < 0)
    rc = a.seq ? cli_file_error(a.seq, "cannot apply to the tape", st, CLI_IO_SEQ)
               : cli_tape_error(a.tape, "jacobian", st);
  if (rc < 0 && a.save && !a.seq && !chosen && (r.method < 0 || r.method >= ADE_ORDER_COUNT))
    rc = cli_usage_error(self, "--save-sequence: %s%s%s is CPR, not an elimination sequence", a.method,
                         method == r.method ? "" : " chose ", method == r.method ? "" : ade_elim_method_name(r.method));
  if (rc < 0 && a.save && !a.seq) { /* the sequence the method chose, bound to the graph */
    st = ADE_OK;
    if (!chosen && !g && (st = ade_cgraph_from_tape(&g, tape, NULL)) >= 0) st = ade_elim_order(g, r.method, &chosen);
    if (st >= 0) st = ade_seq_save(chosen, a.save);
    if (st < 0) rc = cli_file_error(a.save, "cannot save sequence", st, CLI_IO_WRITE);
  }
  if (rc < 0 && a.out && (st = ade_sparse_write_mtx(J, a.out)) < 0) rc = cli_file_error(a.out, "cannot write", st, CLI_IO_WRITE);
  if (rc < 0 && a.json) {
    print_json(&a, &r, J, kind, &orep, optimizer >= 0 && !a.seq && !a.parts ? chosen : NULL, a.parts ? &prep : NULL);
  } else if (rc < 0) {
    print_report(&a, &r, J);
    if (optimizer >= 0 && !a.seq && !a.parts) print_opt(a.method, kind, &orep, chosen);
    if (a.parts) print_parts(a.parts, &prep);
    if (a.values) print_values(J, NULL);
  }
  if (rc < 0) rc = cli_finish(CLI_OK);
  ade_sparse_free(J);
  ade_seq_free(seq);
  ade_seq_free(chosen);
  ade_cgraph_free(g);
  ade_tape_free(tape);
  return rc;
}
