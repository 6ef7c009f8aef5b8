/* stats_json.c: `adelim stats --json`: one JSON object per tape. */
#include "cli.h"
#include "stats.h"

static void json_field(const ade_stats *s, const stats_field *fd, cli_json *j) {
  stats_value v = stats_get(s, fd);
  switch (fd->kind) {
  case FIELD_U64: cli_json_u64(j, fd->key, v.u); break;
  case FIELD_INT: cli_json_int(j, fd->key, v.i); break;
  case FIELD_BOOL: cli_json_bool(j, fd->key, v.i); break;
  default: cli_json_num(j, fd->key, v.d);
  }
}

/* "op_count": {"name": count, ...} for the opcodes the tape uses. */
static void json_op_count(const ade_stats *s, cli_json *j) {
  cli_json_open(j, "op_count", '{', 1);
  for (int op = 0; op < 256; op++) {
    char name[16];
    if (s->op_count[op]) cli_json_u64(j, stats_op_name(op, name, sizeof name), s->op_count[op]);
  }
  cli_json_close(j);
}

static int json_tape(const stats_tape *t, const stats_flags *fl, cli_json *j) {
  int status = CLI_OK;
  cli_json_open(j, NULL, '{', 0);
  cli_json_str(j, "file", t->path);
  for (size_t k = 0; k < stats_nfields; k++) json_field(&t->st, &stats_fields[k], j);
  json_op_count(&t->st, j);
  if (fl->diagnostics && stats_json_diagnostics(t, j) != CLI_OK) status = CLI_FAIL;
  if (fl->regions && stats_json_regions(t, j) != CLI_OK) status = CLI_FAIL;
  cli_json_close(j);
  return status;
}

int stats_print_json(const stats_tape *t, size_t n, const stats_flags *fl, FILE *f) {
  int status = CLI_OK;
  cli_json j;
  cli_json_init(&j, f);
  cli_json_open(&j, NULL, '[', 0);
  for (size_t i = 0; i < n; i++)
    if (json_tape(&t[i], fl, &j) != CLI_OK) status = CLI_FAIL;
  cli_json_close(&j);
  return status;
}
