/* cmd_verify.c: `adelim verify`: read and check every chunk of tapes. */
#include <inttypes.h>

#include <adelim.h>

#include "cli.h"

/* Open, verify and count one tape: its result line goes to stdout, an
 * error to stderr. */
static int verify(const char *path) {
  ade_tape *tape = NULL;
  ade_stats st;
  int rc = ade_tape_open(&tape, path);
  if (rc < 0) return cli_tape_error(path, "cannot open", rc);
  if ((rc = ade_tape_verify(tape)) >= 0) rc = ade_tape_stats(tape, &st);
  if (rc >= 0) {
    cli_put_text(stdout, path);
    printf(": ok (%" PRIu64 " %s, %" PRIu64 " %s%s)\n", st.records, cli_plural(st.records, "record", "records"),
           st.chunks, cli_plural(st.chunks, "chunk", "chunks"), st.complete ? "" : ", incomplete recording");
  } else {
    cli_tape_error(path, "verification failed", rc);
  }
  ade_tape_free(tape);
  return rc >= 0 ? CLI_OK : CLI_FAIL;
}

int cli_cmd_verify(const cli_cmd *self, int argc, char **argv) {
  int n, status = CLI_OK, rc = cli_parse(self, argc, argv, NULL, &n);
  if (rc >= 0) return rc;
  if (n == 0) return cli_usage_error(self, "missing TAPE argument");
  for (int i = 0; i < n; i++)
    if (verify(argv[i]) != CLI_OK) status = CLI_FAIL;
  return cli_finish(status);
}
