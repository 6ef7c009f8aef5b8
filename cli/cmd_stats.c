/* cmd_stats.c: `adelim stats`: tape statistics side by side. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stats.h"

/* Open path and read its statistics into *t. */
static int load(stats_tape *t, const char *path) {
  t->path = path;
  t->tape = NULL;
  int rc = ade_tape_open(&t->tape, path);
  if (rc < 0) {
    t->tape = NULL; /* nothing to free */
    return cli_tape_error(path, "cannot open tape", rc);
  }
  rc = ade_tape_stats(t->tape, &t->st);
  if (rc >= 0) return CLI_OK;
  cli_tape_error(path, "cannot read tape statistics", rc);
  ade_tape_free(t->tape);
  return CLI_FAIL;
}

/* Rows of per-opcode counts, for opcodes some tape uses. */
static int add_op_rows(cli_table *tab, const stats_tape *t, size_t n,
                       char (*buf)[32], const char **cells) {
  int header = 0;
  for (int op = 0; op < 256; op++) {
    int used = 0;
    for (size_t i = 0; i < n; i++) used |= t[i].st.op_count[op] != 0;
    if (!used) continue;
    if (!header++ && cli_table_add(tab, "records by operation:", NULL) < 0) return -1;
    char label[40], name[16];
    snprintf(label, sizeof label, "  %s", stats_op_name(op, name, sizeof name));
    for (size_t i = 0; i < n; i++)
      snprintf(buf[i], sizeof buf[i], "%" PRIu64, t[i].st.op_count[op]);
    if (cli_table_add(tab, label, cells) < 0) return -1;
  }
  return 0;
}

/* Header, one row per field, then the opcode rows. */
static int fill_table(cli_table *tab, const stats_tape *t, size_t n,
                      char (*buf)[32], const char **cells) {
  for (size_t i = 0; i < n; i++) cells[i] = t[i].path;
  if (cli_table_add(tab, "", cells) < 0) return -1;
  for (size_t i = 0; i < n; i++) cells[i] = buf[i];
  for (size_t k = 0; k < stats_nfields; k++) {
    for (size_t i = 0; i < n; i++)
      stats_format(buf[i], sizeof buf[i], &t[i].st, &stats_fields[k]);
    if (cli_table_add(tab, stats_fields[k].label, cells) < 0) return -1;
  }
  return add_op_rows(tab, t, n, buf, cells);
}

static int print_table(const stats_tape *t, size_t n) {
  cli_table *tab = cli_table_create(n);
  char(*buf)[32] = calloc(n, sizeof *buf);
  const char **cells = calloc(n, sizeof *cells);
  int ok = tab && buf && cells && fill_table(tab, t, n, buf, cells) == 0;
  if (ok) cli_table_print(tab, stdout);
  else cli_error("out of memory");
  cli_table_free(tab);
  free(buf);
  free(cells);
  return ok ? CLI_OK : CLI_FAIL;
}

static int print_text(const stats_tape *t, size_t n, const stats_flags *fl) {
  int status = print_table(t, n);
  for (size_t i = 0; fl->diagnostics && i < n; i++)
    if (stats_list_diagnostics(&t[i], stdout) != CLI_OK) status = CLI_FAIL;
  for (size_t i = 0; fl->regions && i < n; i++)
    if (stats_list_regions(&t[i], stdout) != CLI_OK) status = CLI_FAIL;
  return status;
}

/* Open every tape that opens, print them, free them. */
static int run(char **paths, size_t n, const stats_flags *fl) {
  stats_tape *t = calloc(n, sizeof *t);
  size_t ok = 0;
  int status = CLI_OK, rc;
  if (!t) {
    cli_error("out of memory");
    return CLI_FAIL;
  }
  for (size_t i = 0; i < n; i++)
    if (load(&t[ok], paths[i]) == CLI_OK) ok++;
    else status = CLI_FAIL;
  if (ok > 0 || fl->json) {
    rc = fl->json ? stats_print_json(t, ok, fl, stdout) : print_text(t, ok, fl);
    if (rc != CLI_OK) status = rc;
  }
  for (size_t i = 0; i < ok; i++) ade_tape_free(t[i].tape);
  free(t);
  return status;
}

int cli_cmd_stats(const cli_cmd *self, int argc, char **argv) {
  stats_flags fl = {0, 0, 0};
  const cli_opt opts[] = {{"json", &fl.json},
                          {"diagnostics", &fl.diagnostics},
                          {"regions", &fl.regions},
                          {NULL, NULL}};
  int n, rc = cli_parse(self, argc, argv, opts, &n);
  if (rc >= 0) return rc;
  if (n == 0) return cli_usage_error(self, "missing TAPE argument");
  return cli_finish(run(argv, (size_t)n, &fl));
}
