/* args.c: parsing the arguments of a subcommand that takes options with values and one TAPE. */
#include <string.h>

#include "cli.h"

/* The option of args named by arg ("--name" or "--name=VALUE"), or NULL. */
static const cli_arg *find(const cli_arg *args, const char *arg, size_t *len) {
  if (strncmp(arg, "--", 2) != 0) return NULL;
  for (const cli_arg *a = args; a && a->name; a++) {
    *len = strlen(a->name);
    if (strncmp(arg + 2, a->name, *len) == 0 && (arg[2 + *len] == '\0' || arg[2 + *len] == '='))
      return a;
  }
  return NULL;
}

int cli_parse_tape(const cli_cmd *cmd, int argc, char **argv, const cli_arg *args, const char **tape) {
  int options = 1;
  *tape = NULL;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    size_t len = 0;
    if (options && (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)) {
      fputs(cmd->usage, stdout);
      return cli_finish(CLI_OK);
    }
    if (options && strcmp(arg, "--") == 0) {
      options = 0;
      continue;
    }
    if (!options || arg[0] != '-' || arg[1] == '\0') {
      if (*tape) return cli_usage_error(cmd, "more than one TAPE ('%s' and '%s')", *tape, arg);
      *tape = arg;
      continue;
    }
    const cli_arg *a = find(args, arg, &len);
    if (!a) return cli_usage_error(cmd, "unknown option '%s'", arg);
    if (!a->value) { /* a flag */
      if (arg[2 + len] == '=') return cli_usage_error(cmd, "option '--%s' takes no value", a->name);
      *a->flag = 1;
    } else if (arg[2 + len] == '=') {
      *a->value = arg + 3 + len;
    } else if (i + 1 < argc) {
      *a->value = argv[++i];
    } else {
      return cli_usage_error(cmd, "option '--%s' needs a value", a->name);
    }
  }
  if (!*tape) return cli_usage_error(cmd, "missing TAPE argument");
  return -1;
}
