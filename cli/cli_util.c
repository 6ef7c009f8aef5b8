/* cli_util.c: option parsing, error reporting and output helpers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

void cli_error(const char *fmt, ...) {
  va_list ap;
  fputs("adelim: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) {
  va_list ap;
  fputs("adelim: ", stderr);
  if (cmd) fprintf(stderr, "%s: ", cmd->name);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (cmd)
    fprintf(stderr, "\nTry 'adelim %s --help' for its usage.\n", cmd->name);
  else
    fputs("\nTry 'adelim --help' for the list of subcommands.\n", stderr);
  return CLI_USAGE;
}

const char *cli_errmsg(void) {
  const char *m = ade_errmsg();
  return (!m || strcmp(m, "no error") == 0) ? "" : m;
}

/* What the user can do about a failed open or read. */
static const char *hint(int status) {
  switch (status) {
  case ADE_EIO: return "check that the file exists and is readable";
  case ADE_EFORMAT: return "is this an adelim tape (.adt)?";
  case ADE_ECHECKSUM: return "the file is damaged; record the tape again";
  case ADE_ETRUNC: return "the file is incomplete or not an adelim tape";
  case ADE_EVERSION: return "the tape was written by another adelim version";
  case ADE_ETOOBIG: return "the tape exceeds a size limit of this build";
  case ADE_ENOMEM: return "not enough memory";
  default: return NULL;
  }
}

int cli_tape_error(const char *path, const char *what, int status) {
  const char *msg = cli_errmsg(), *h = hint(status);
  fprintf(stderr, "adelim: %s: %s: %s", path, what, ade_strerror(status));
  if (*msg) fprintf(stderr, ": %s", msg);
  fputc('\n', stderr);
  if (h) fprintf(stderr, "adelim: hint: %s\n", h);
  return CLI_FAIL;
}

int cli_finish(int status) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    cli_error("error writing output: %s", strerror(errno));
    return CLI_FAIL;
  }
  return status;
}

/* One option argument: set its flag, or report it. -1 or an exit status. */
static int parse_option(const cli_cmd *cmd, const char *arg, const cli_opt *opts) {
  if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
    fputs(cmd->usage, stdout);
    return cli_finish(CLI_OK);
  }
  for (const cli_opt *o = opts; o && o->name; o++)
    if (arg[1] == '-' && strcmp(arg + 2, o->name) == 0) {
      *o->flag = 1;
      return -1;
    }
  if (arg[1] == '-' && strchr(arg, '='))
    return cli_usage_error(cmd, "option '%.*s' takes no value or is unknown",
                           (int)(strchr(arg, '=') - arg), arg);
  return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, const cli_opt *opts,
              int *nargs) {
  int n = 0, options = 1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options && strcmp(arg, "--") == 0) {
      options = 0;
    } else if (options && arg[0] == '-' && arg[1] != '\0') {
      int rc = parse_option(cmd, arg, opts);
      if (rc >= 0) return rc;
    } else {
      argv[n++] = argv[i];
    }
  }
  *nargs = n;
  return -1;
}

/* Length of the valid UTF-8 sequence at s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s) {
  size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
  if (n == 0 || s[0] > 0xf4) return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) return 0;  /* overlong */
  if (n == 3 && s[0] == 0xed && s[1] >= 0xa0) return 0; /* surrogate */
  if (n == 4 && s[0] == 0xf0 && s[1] < 0x90) return 0;  /* overlong */
  if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90) return 0; /* > U+10FFFF */
  return n;
}

void cli_put_text(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    size_t n = *p >= 0x80 ? utf8_len(p) : 1;
    if (n == 0 || *p < 0x20 || *p == 0x7f) fputc('?', f);
    else fwrite(p, 1, n, f);
    p += n ? n : 1;
  }
}

void cli_put_json_str(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  fputc('"', f);
  while (*p) {
    size_t n = *p >= 0x80 ? utf8_len(p) : 1;
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
    else if (n == 0) fputs("\\ufffd", f);
    else fwrite(p, 1, n, f);
    p += n ? n : 1;
  }
  fputc('"', f);
}

void cli_put_json_num(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.10g", x);
  else fputs("null", f);
}

void cli_put_json_opt(FILE *f, const char *key, int defined, double x, int last) {
  fprintf(f, "\"%s\": ", key);
  if (defined) cli_put_json_num(f, x);
  else fputs("null", f);
  fputs(last ? "" : ", ", f);
}
