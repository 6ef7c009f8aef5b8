/* cmd_dot.c: `adelim dot`: the c-graph of a tape, or its dual, as Graphviz DOT. */
#include <adelim.h>

#include "cli.h"

const char cli_dot_usage[] =
    "Usage: adelim dot [--dual] [--out FILE] TAPE\n"
    "\n"
    "Write the linearized computational graph (c-graph) of the tape as a\n"
    "Graphviz DOT graph: vertices named by their record ids, independents as\n"
    "boxes, dependents as double circles, intermediates as circles, and each\n"
    "edge labelled with its local partial derivative (%.3g). Render it with,\n"
    "e.g., 'adelim dot model.adt | dot -Tsvg > cgraph.svg'.\n"
    "\n"
    "  --dual          write the dual c-graph instead: a vertex per edge of\n"
    "                  the c-graph (numbered 1..|E|, labelled with its\n"
    "                  partial), minimal vertices 1-n..0, maximal |E|+1..,\n"
    "                  and an edge (face) per pair of consecutive edges\n"
    "  --out FILE      write to FILE instead of standard output, atomically:\n"
    "                  a temporary file next to it is renamed onto it when\n"
    "                  complete; on failure FILE is left as it was\n"
    "  -h, --help      print this help\n";

int cli_cmd_dot(const cli_cmd *self, int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  int dual = 0;
  const cli_arg args[] = {{"dual", NULL, &dual}, {"out", &out, NULL}, {NULL, NULL, NULL}};
  int rc = cli_parse_tape(self, argc, argv, args, &path), st;
  if (rc >= 0) return rc;
  ade_tape *t = NULL;
  ade_cgraph *g = NULL, *d = NULL;
  cli_out o = {NULL, NULL, NULL};
  if ((st = ade_tape_open(&t, path)) < 0) return cli_tape_error(path, "cannot open", st);
  if ((st = ade_cgraph_from_tape(&g, t, NULL)) < 0) rc = cli_tape_error(path, "c-graph", st);
  if (rc < 0 && dual && (st = ade_cgraph_dual(&d, g)) < 0) rc = cli_tape_error(path, "dual c-graph", st);
  if (rc < 0 && out && cli_out_open(&o, out) != CLI_OK) rc = CLI_FAIL;
  if (rc < 0 && (st = ade_cgraph_print_dot(dual ? d : g, o.f ? o.f : stdout)) < 0)
    rc = cli_file_error(out ? out : "standard output", "cannot write", st, CLI_IO_WRITE);
  if (rc < 0) rc = out ? cli_out_commit(&o) : cli_finish(CLI_OK);
  if (o.f) cli_out_abort(&o);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
  ade_tape_free(t);
  return rc;
}
