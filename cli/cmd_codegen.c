/* cmd_codegen.c: `adelim codegen`: C code for a tape's Jacobian by a compiled elimination plan. */
#include <string.h>

#include <adelim.h>

#include "cli.h"

const char cli_codegen_usage[] =
    "Usage: adelim codegen [--method NAME] [--time-limit S] [--name FN]\n"
    "                      [-o FILE] TAPE\n"
    "\n"
    "Compile the elimination of the tape's c-graph into a plan and write it\n"
    "as portable C (C99, <math.h> only): a function\n"
    "    int FN(const double *x, double *nz)\n"
    "that writes the values at x of the Jacobian's nonzeros (row by row,\n"
    "columns ascending) by straight-line code (loops over tables beyond\n"
    "25,000 statements), the elimination's multiply-adds in the plan's\n"
    "order, and returns 0, or the number of recorded comparisons that\n"
    "differ at x (the code follows the recorded path only); and the\n"
    "structure FN_m, FN_n, FN_nnz, FN_rowptr, FN_col.\n"
    "Compiled with -ffp-contract=off its results equal those of the\n"
    "interpreted plan bit for bit (doc/elimination.md).\n"
    "\n"
    "  --method NAME   an elimination ordering (default vertex-markowitz):\n"
    "                  vertex-forward, vertex-reverse, vertex-markowitz,\n"
    "                  vertex-relative, vertex-chains, edge-forward,\n"
    "                  edge-reverse, edge-markowitz, edge-fillin,\n"
    "                  face-forward, face-reverse, face-greedy; or auto: the\n"
    "                  automatic method's ordering (as in adelim jacobian;\n"
    "                  an error where it chooses CPR, which has no\n"
    "                  elimination to emit: pass an ordering then)\n"
    "  --time-limit S  the ordering's or auto's choice stops after S seconds\n"
    "                  and the best complete sequence so far is compiled (as\n"
    "                  in adelim jacobian; a note on stderr says so); the\n"
    "                  vertex sweeps and edge sweeps have nothing to bound;\n"
    "                  an ordering running over a second reports its\n"
    "                  progress on stderr (ADELIM_PROGRESS_AFTER)\n"
    "  --name FN       the function's name, a C identifier (default jacobian)\n"
    "  -o FILE, --out FILE\n"
    "                  write to FILE instead of standard output, atomically:\n"
    "                  a temporary file next to it is renamed onto it when\n"
    "                  complete; on failure FILE is left as it was\n"
    "  -h, --help      print this help\n";

int cli_cmd_codegen(const cli_cmd *self, int argc, char **argv) {
  const char *path = NULL, *out = NULL, *method_name = "vertex-markowitz", *name = "jacobian", *limit = NULL;
  const cli_arg args[] = {{"method", &method_name, NULL}, {"name", &name, NULL}, {"out", &out, NULL},
                          {"time-limit", &limit, NULL}, {NULL, NULL, NULL}};
  ade_jacobian_options jo = {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
  ade_jacobian_report r;
  static char out_flag[] = "--out";
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) /* -o is --out */
    if (!strcmp(argv[i], "-o")) argv[i] = out_flag;
  int rc = cli_parse_tape(self, argc, argv, args, &path), st;
  if (rc >= 0) return rc;
  int method = strcmp(method_name, "auto") ? ade_order_parse(method_name) : ADE_ELIM_AUTO;
  if (method < 0) return cli_usage_error(self, "unknown method '%s' (see --help)", method_name);
  if (limit && (rc = cli_parse_seconds(self, "--time-limit", limit, &jo.time_limit)) >= 0) return rc;
  jo.progress = cli_on_order_progress, jo.progress_interval = cli_progress_after();
  ade_tape *t = NULL;
  ade_elim_plan *p = NULL;
  cli_out o = {NULL, NULL, NULL};
  if ((st = ade_tape_open(&t, path)) < 0) return cli_tape_error(path, "cannot open", st);
  if ((st = ade_elim_plan_create(&p, t, method, &jo, &r)) < 0) rc = cli_tape_error(path, "plan", st);
  else if (r.limited)
    cli_error("%s: %s: time limit reached, the best complete sequence so far was compiled", path, method_name);
  if (rc < 0 && out && cli_out_open(&o, out) != CLI_OK) rc = CLI_FAIL;
  if (rc < 0 && (st = ade_plan_codegen(p, t, name, o.f ? o.f : stdout)) == ADE_EINVAL)
    rc = cli_usage_error(self, "%s", cli_errmsg());
  else if (rc < 0 && st < 0)
    rc = cli_file_error(out ? out : "standard output", "cannot write", st, CLI_IO_WRITE);
  if (rc < 0) rc = out ? cli_out_commit(&o) : cli_finish(CLI_OK);
  if (o.f) cli_out_abort(&o);
  ade_elim_plan_free(p);
  ade_tape_free(t);
  return rc;
}
