/* stats_json.c: `adelim stats --json`: one JSON object per tape. */
#include <inttypes.h>

#include "cli.h"
#include "stats.h"

static void json_field(const ade_stats *s, const stats_field *fd, FILE *f) {
  stats_value v = stats_get(s, fd);
  fprintf(f, ",\n    \"%s\": ", fd->key);
  switch (fd->kind) {
  case FIELD_U64: fprintf(f, "%" PRIu64, v.u); break;
  case FIELD_INT: fprintf(f, "%d", v.i); break;
  case FIELD_BOOL: fputs(v.i ? "true" : "false", f); break;
  default: cli_put_json_num(f, v.d);
  }
}

/* "op_count": {"name": count, ...} for the opcodes the tape uses. */
static void json_op_count(const ade_stats *s, FILE *f) {
  int first = 1;
  fputs(",\n    \"op_count\": {", f);
  for (int op = 0; op < 256; op++) {
    char name[16];
    if (s->op_count[op] == 0) continue;
    fputs(first ? "" : ", ", f);
    cli_put_json_str(f, stats_op_name(op, name, sizeof name));
    fprintf(f, ": %" PRIu64, s->op_count[op]);
    first = 0;
  }
  fputs("}", f);
}

static int json_tape(const stats_tape *t, const stats_flags *fl, FILE *f) {
  int status = CLI_OK;
  fputs("  {\n    \"file\": ", f);
  cli_put_json_str(f, t->path);
  for (size_t k = 0; k < stats_nfields; k++) json_field(&t->st, &stats_fields[k], f);
  json_op_count(&t->st, f);
  if (fl->diagnostics && stats_json_diagnostics(t, f) != CLI_OK) status = CLI_FAIL;
  if (fl->regions && stats_json_regions(t, f) != CLI_OK) status = CLI_FAIL;
  fputs("\n  }", f);
  return status;
}

int stats_print_json(const stats_tape *t, size_t n, const stats_flags *fl,
                     FILE *f) {
  int status = CLI_OK;
  fputs("[", f);
  for (size_t i = 0; i < n; i++) {
    fputs(i ? ",\n" : "\n", f);
    if (json_tape(&t[i], fl, f) != CLI_OK) status = CLI_FAIL;
  }
  fputs(n ? "\n]\n" : "]\n", f);
  return status;
}
