/* cmd_jacobian.c: `adelim jacobian`: the sparse Jacobian of a tape by elimination, with its cost. */
#include <inttypes.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

const char cli_jacobian_usage[] =
    "Usage: adelim jacobian [--method NAME] [--seq FILE] [--save-seq FILE]\n"
    "                       [--out J.mtx] TAPE\n"
    "\n"
    "Build the linearized computational graph of the tape, eliminate it and\n"
    "print the cost: multiply-adds (fma), fill-in, graph sizes before and\n"
    "after, the dense forward and reverse vector mode costs n|E| and m|E|,\n"
    "and the time.\n"
    "\n"
    "  --method NAME   the elimination ordering (default vertex-markowitz):\n"
    "                  vertex-forward, vertex-reverse, vertex-markowitz,\n"
    "                  vertex-relative, edge-forward, edge-reverse,\n"
    "                  edge-markowitz, edge-fillin, face-forward,\n"
    "                  face-reverse, face-greedy\n"
    "  --seq FILE      apply the elimination sequence in FILE instead\n"
    "  --save-seq FILE write the sequence the method chose to FILE\n"
    "  --out FILE      write the Jacobian as a Matrix Market file\n"
    "  -h, --help      print this help\n";

typedef struct jac_args {
  const char *tape, *method, *seq, *save, *out;
} jac_args;

/* Options with a value: "--name VALUE" or "--name=VALUE". -1 to go on. */
static int parse(const cli_cmd *self, int argc, char **argv, jac_args *a) {
  static const char *const names[] = {"method", "seq", "save-seq", "out"};
  const char **slot[] = {&a->method, &a->seq, &a->save, &a->out};
  int nopt = 1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (nopt && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      fputs(self->usage, stdout);
      return cli_finish(CLI_OK);
    }
    if (nopt && !strcmp(arg, "--")) {
      nopt = 0;
      continue;
    }
    if (!nopt || arg[0] != '-' || !arg[1]) {
      if (a->tape) return cli_usage_error(self, "more than one TAPE");
      a->tape = arg;
      continue;
    }
    size_t k = 0, len;
    for (; k < 4; k++) {
      len = strlen(names[k]);
      if (!strncmp(arg, "--", 2) && !strncmp(arg + 2, names[k], len) && (!arg[2 + len] || arg[2 + len] == '='))
        break;
    }
    if (k == 4) return cli_usage_error(self, "unknown option '%s'", arg);
    if (arg[2 + len] == '=') *slot[k] = arg + 3 + len;
    else if (i + 1 < argc) *slot[k] = argv[++i];
    else return cli_usage_error(self, "option '--%s' needs a value", names[k]);
  }
  if (!a->tape) return cli_usage_error(self, "missing TAPE argument");
  return -1;
}

static void print_report(const jac_args *a, const ade_jacobian_report *r, const ade_sparse *J) {
  printf("tape: ");
  cli_put_text(stdout, a->tape);
  printf("\nmethod: %s\n", a->seq ? "sequence from file" : a->method);
  printf("c-graph: %zu vertices, %zu edges (%zu operations dropped)\n", r->vertices_before,
         r->edges_before, r->dropped);
  printf("fma: %" PRIu64 " (forward vector mode n|E| = %" PRIu64 ", reverse vector mode m|E| = %" PRIu64
         ")\n", r->fma, r->forward_cost, r->reverse_cost);
  printf("fill-in: %" PRIu64 ", absorbed: %" PRIu64 ", merged: %" PRIu64 ", steps: %zu\n", r->fill,
         r->absorbed, r->merged, r->steps);
  printf("Jacobian: %zu x %zu, %zu nonzeros (bipartite graph: %zu vertices, %zu edges)\n", J->m, J->n,
         J->nnz, r->vertices_after, r->edges_after);
  printf("time: %.6f s\n", r->seconds);
}

int cli_cmd_jacobian(const cli_cmd *self, int argc, char **argv) {
  jac_args a = {NULL, "vertex-markowitz", NULL, NULL, NULL};
  ade_jacobian_options o = {NULL, 0};
  ade_jacobian_report r;
  ade_tape *tape = NULL;
  ade_elim_seq *seq = NULL, *chosen = NULL;
  ade_cgraph *g = NULL;
  ade_sparse *J = NULL;
  int rc = parse(self, argc, argv, &a), method = ade_order_parse(a.method), st;
  if (rc >= 0) return rc;
  if (method < 0) return cli_usage_error(self, "unknown method '%s' (see --help)", a.method);
  if ((st = ade_tape_open(&tape, a.tape)) < 0) return cli_tape_error(a.tape, "cannot open", st);
  if (a.seq && (st = ade_seq_load(&seq, a.seq)) < 0) rc = cli_tape_error(a.seq, "cannot load sequence", st);
  o.seq = seq;
  if (rc < 0 && (st = ade_jacobian(tape, method, &o, &J, &r)) < 0) rc = cli_tape_error(a.tape, "jacobian", st);
  if (rc < 0 && a.save && !a.seq) { /* the sequence the ordering chose, bound to the graph */
    st = ade_cgraph_from_tape(&g, tape, NULL);
    if (st >= 0) st = ade_elim_order(g, method, &chosen);
    if (st >= 0) st = ade_seq_save(chosen, a.save);
    if (st < 0) rc = cli_tape_error(a.save, "cannot save sequence", st);
  }
  if (rc < 0 && a.out && (st = ade_sparse_write_mtx(J, a.out)) < 0) rc = cli_tape_error(a.out, "cannot write", st);
  if (rc < 0) {
    print_report(&a, &r, J);
    rc = cli_finish(CLI_OK);
  }
  ade_sparse_free(J);
  ade_seq_free(seq);
  ade_seq_free(chosen);
  ade_cgraph_free(g);
  ade_tape_free(tape);
  return rc;
}
