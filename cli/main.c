/* main.c: the adelim command: subcommand dispatch, help and version. */
#include <stdio.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

static int cmd_help(const cli_cmd *self, int argc, char **argv);
static int unknown_command(const char *name);

#define STATS_USAGE                                                            \
  "Usage: adelim stats [--json] [--diagnostics] [--regions] TAPE...\n"         \
  "\n"                                                                         \
  "Print the counts and sizes of each tape side by side, one column per\n"     \
  "tape: records, independents, dependents, chunks, compression, regions,\n"   \
  "diagnostics, call sites and the records of each operation.\n"               \
  "\n"                                                                         \
  "  --json          print a JSON array with one object per tape\n"            \
  "  --diagnostics   list the non-differentiable points and non-finite\n"      \
  "                  values flagged on each tape, with their call sites\n"     \
  "  --regions       list the regions of each tape as a tree\n"                \
  "  -h, --help      print this help\n"

#define VERIFY_USAGE                                                           \
  "Usage: adelim verify [--json] TAPE...\n"                                    \
  "\n"                                                                         \
  "Read every chunk of each tape and check it: checksums, references,\n"       \
  "opcodes and recomputed values. Prints one line per good tape on\n"          \
  "standard output and the errors on standard error; exits with status 1\n"   \
  "if any tape fails.\n"                                                       \
  "\n"                                                                         \
  "  --json          print a JSON array with one object per tape: file, ok,\n" \
  "                  and records, chunks, complete, or error and detail\n"    \
  "  -h, --help      print this help\n"

#define HESSIAN_USAGE                                                          \
  "Usage: adelim hessian [--method M] [--weights W1,...] [--out H.mtx]\n"      \
  "                      [--dense] [--gradient] [--json] TAPE\n"               \
  "\n"                                                                         \
  "Compute the Hessian of the tape's dependent (of sum w_i y_i when it has\n"  \
  "several) at the recorded point and print its value, the nonzeros of the\n" \
  "lower triangle and the cost: edge updates, multiply-adds, largest live\n"  \
  "set (or vertex pairs eliminated) and time. 'adelim compare --hessian'\n"    \
  "prints the same for every method, one row each. There is no\n"             \
  "--time-limit: edge-push, edge-push-preacc, ve-reverse, for-over-rev, star\n" \
  "and auto are fixed sweeps with no decision to bound, and ve-markowitz's\n"  \
  "choices (a heap, about an eighth of its work) cost less than any way of\n"  \
  "finishing without them (doc/hessians.md, \"Time limits\").\n"             \
  "\n"                                                                         \
  "  --method M      edge-push (default), ve-reverse, ve-markowitz,\n"         \
  "                  for-over-rev, edge-push-preacc, star (pattern, star\n"    \
  "                  coloring, one Hessian-vector product per color), auto\n"  \
  "                  (one call: edge-push), or all (one column per\n"         \
  "                  method, with the error against for-over-rev)\n"          \
  "  --weights W     comma-separated weights, one per dependent (required\n"  \
  "                  when the tape has more than one)\n"                       \
  "  --out FILE      write H as a Matrix Market file (symmetric)\n"           \
  "  --dense         print H as a dense matrix\n"                              \
  "  --gradient      print the gradient\n"                                     \
  "  --json          print one JSON object: tape, n, m, a methods array as\n"  \
  "                  in 'adelim compare --hessian --json', and gradient\n"    \
  "                  and dense (an array of rows) when asked for\n"           \
  "  -h, --help      print this help\n"

#define HELP_USAGE                                                             \
  "Usage: adelim help [SUBCOMMAND]\n"                                          \
  "\n"                                                                         \
  "Print the list of subcommands, or the help of one subcommand.\n"

/* The subcommands: a new one is one row here and one function. */
static const cli_cmd commands[] = {
    {"stats", cli_cmd_stats, "print tape statistics side by side", STATS_USAGE},
    {"verify", cli_cmd_verify, "check every chunk of tapes", VERIFY_USAGE},
    {"jacobian", cli_cmd_jacobian, "sparse Jacobian by vertex, edge or face elimination", cli_jacobian_usage},
    {"hessian", cli_cmd_hessian, "Hessian by edge pushing or vertex elimination", HESSIAN_USAGE},
    {"compare", cli_cmd_compare, "cost and time of every Jacobian or Hessian method, sorted", cli_compare_usage},
    {"dot", cli_cmd_dot, "the c-graph (or its dual) as Graphviz DOT", cli_dot_usage},
    {"codegen", cli_cmd_codegen, "C code for the Jacobian by a compiled elimination plan", cli_codegen_usage},
    {"mission", cli_cmd_mission, "plan an AD mission (GraphML DAG of vector elementals)", cli_mission_usage},
    {"help", cmd_help, "print help on a subcommand", HELP_USAGE},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const cli_cmd *cli_find(const char *name) {
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

static void print_usage(FILE *f) {
  fputs("Usage: adelim SUBCOMMAND [OPTION]... [ARG]...\n"
        "       adelim --help | --version\n"
        "\nInspect, check and differentiate adelim tapes (.adt files).\n\nSubcommands:\n",
        f);
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fputs("\nRun 'adelim help SUBCOMMAND' for the options of a subcommand.\n"
        "See adelim(1) for the full manual.\n",
        f);
}

static int cmd_help(const cli_cmd *self, int argc, char **argv) {
  int nargs, rc = cli_parse(self, argc, argv, NULL, &nargs);
  if (rc >= 0) return rc;
  if (nargs == 0) {
    print_usage(stdout);
    return cli_finish(CLI_OK);
  }
  if (nargs > 1) return cli_usage_error(self, "too many arguments");
  const cli_cmd *cmd = cli_find(argv[0]);
  if (!cmd) return unknown_command(argv[0]);
  fputs(cmd->usage, stdout);
  return cli_finish(CLI_OK);
}

/* Edit distance of short words, for "did you mean"; capped at 9. */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[32];
  if (la >= 32 || lb >= 32) return 9;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

static int unknown_command(const char *name) {
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (distance(name, commands[i].name) <= 2)
      return cli_usage_error(NULL, "unknown subcommand '%s' (did you mean '%s'?)",
                             name, commands[i].name);
  return cli_usage_error(NULL, "unknown subcommand '%s'", name);
}

/* Options before the subcommand: only --help and --version. */
static int top_option(const char *arg) {
  if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
    print_usage(stdout);
    return cli_finish(CLI_OK);
  }
  if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
    printf("adelim %d.%d.%d\n", ADE_VERSION_MAJOR, ADE_VERSION_MINOR,
           ADE_VERSION_PATCH);
    return cli_finish(CLI_OK);
  }
  return cli_usage_error(NULL, "unknown option '%s'", arg);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_error("missing subcommand");
    print_usage(stderr);
    return CLI_USAGE;
  }
  if (argv[1][0] == '-') return top_option(argv[1]);
  const cli_cmd *cmd = cli_find(argv[1]);
  if (!cmd) return unknown_command(argv[1]);
  return cmd->run(cmd, argc - 1, argv + 1);
}
