/* cmd_verify.c: `adelim verify`: read and check every chunk of tapes. */
#include <inttypes.h>

#include <adelim.h>

#include "cli.h"

/* One tape's result: a line on stdout, or an object in j's array. */
static void result(const char *path, int rc, const ade_stats *st, cli_json *j) {
  if (!j) {
    cli_put_text(stdout, path);
    printf(": ok (%" PRIu64 " %s, %" PRIu64 " %s%s)\n", st->records, cli_plural(st->records, "record", "records"),
           st->chunks, cli_plural(st->chunks, "chunk", "chunks"), st->complete ? "" : ", incomplete recording");
    return;
  }
  cli_json_open(j, NULL, '{', 1);
  cli_json_str(j, "file", path);
  cli_json_bool(j, "ok", rc >= 0);
  if (rc >= 0) {
    cli_json_u64(j, "records", st->records);
    cli_json_u64(j, "chunks", st->chunks);
    cli_json_bool(j, "complete", st->complete);
  } else {
    cli_json_str(j, "error", ade_strerror(rc));
    cli_json_str(j, "detail", cli_errmsg());
  }
  cli_json_close(j);
}

/* Open, verify and count one tape: its result goes to stdout, an error to
 * stderr (and, in JSON, to stdout as a result). */
static int verify(const char *path, cli_json *j) {
  ade_tape *tape = NULL;
  ade_stats st;
  int rc = ade_tape_open(&tape, path);
  if (rc < 0) tape = NULL; /* nothing to free */
  if (rc >= 0 && (rc = ade_tape_verify(tape)) >= 0) rc = ade_tape_stats(tape, &st);
  if (rc >= 0 || j) result(path, rc, &st, j);
  if (rc < 0) cli_tape_error(path, tape ? "verification failed" : "cannot open", rc);
  ade_tape_free(tape);
  return rc >= 0 ? CLI_OK : CLI_FAIL;
}

int cli_cmd_verify(const cli_cmd *self, int argc, char **argv) {
  int n, json = 0, status = CLI_OK;
  const cli_opt opts[] = {{"json", &json}, {NULL, NULL}};
  int rc = cli_parse(self, argc, argv, opts, &n);
  cli_json j;
  if (rc >= 0) return rc;
  if (n == 0) return cli_usage_error(self, "missing TAPE argument");
  cli_json_init(&j, stdout);
  if (json) cli_json_open(&j, NULL, '[', 0);
  for (int i = 0; i < n; i++)
    if (verify(argv[i], json ? &j : NULL) != CLI_OK) status = CLI_FAIL;
  if (json) cli_json_close(&j);
  return cli_finish(status);
}
