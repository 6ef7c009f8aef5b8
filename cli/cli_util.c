/* cli_util.c: option parsing, error reporting and output helpers. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fsync, fchmod */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <adelim.h>

#include "cli.h"

const char *cli_plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

const char *cli_kind_plural(int kind) {
  return kind == ADE_SEQ_FACE ? "faces" : kind == ADE_SEQ_EDGE ? "edges" : "vertices";
}

double cli_progress_after(void) {
  const char *e = getenv("ADELIM_PROGRESS_AFTER");
  char *end = NULL;
  double q = e ? strtod(e, &end) : 1.0;
  if (!e || end == e || *end || !(q >= 0)) return 1.0;
  return q > 0 ? q : 1e-9; /* 0: every report the library offers */
}

int cli_processors(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

void cli_print_levels(const ade_parts_report *p) {
  if (p->levels > 1)
    printf("nested regions: %zu levels of parts (each region after the regions inside it); the cheapest stops "
           "after %zu, then the rest\n", p->levels, p->levels_used);
}

int cli_parts_sequence(ade_tape *t, const char *kind, int method, const ade_opt_limits *l, ade_cgraph **g,
                       ade_elim_seq **seq, ade_parts_report *rep) {
  ade_stats s;
  size_t *part = NULL, nid = 0, nl = 0;
  int k = ade_parts_parse(kind), st = ade_tape_stats(t, &s);
  if (st >= 0) st = ade_tape_parts_levels(t, k, &nl), nid = (size_t)s.records + 1;
  if (st >= 0 && (nid > SIZE_MAX / sizeof *part / nl || !(part = malloc(nl * nid * sizeof *part)))) st = ADE_ENOMEM;
  for (size_t v = 0; st >= 0 && v < nl; v++) st = ade_tape_parts_level(t, k, v, part + v * nid, nid, NULL);
  if (st >= 0 && !*g) st = ade_cgraph_from_tape(g, t, NULL);
  if (st >= 0) st = ade_optimize_levels(*g, part, nl, nid, method, l, seq, rep);
  free(part);
  return st;
}

void cli_order_progress(const char *what, const ade_order_progress *p) {
  fprintf(stderr, "adelim: %s: %.1f s", what, p->seconds);
  if (p->components > 1) fprintf(stderr, ", component %zu of %zu", p->component, p->components);
  if (p->running != p->method)
    fprintf(stderr, ", %s %s", p->method == ADE_ELIM_AUTO ? "trying" : "comparing", ade_order_name(p->running));
  fprintf(stderr, ": %" PRIu64 " %s, %" PRIu64 " fma so far", p->steps, cli_plural(p->steps, "step", "steps"), p->cost);
  if (p->best != UINT64_MAX) fprintf(stderr, " (to beat: %" PRIu64 ")", p->best);
  fputc('\n', stderr);
}

void cli_hierarchy_progress(const char *what, const ade_opt_progress *p) {
  fprintf(stderr, "adelim: %s: %.1f s: %" PRIu64 " steps so far (to beat: %" PRIu64 ")\n", what, p->seconds, p->nodes,
          p->incumbent);
}

void cli_on_order_progress(void *ud, const ade_order_progress *p) {
  (void)ud;
  cli_order_progress(ade_elim_method_name(p->method), p);
}

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

/* What the user can do about a failed call on a file of this kind. */
static const char *hint(int status, int io) {
  switch (status) {
  case ADE_EIO:
    return io == CLI_IO_WRITE ? "check that the directory exists and is writable, and that the disk has room"
                              : "check that the file exists and is readable";
  case ADE_EFORMAT:
    return io == CLI_IO_TAPE ? "is this an adelim tape (.adt)?"
           : io == CLI_IO_SEQ ? "is this an elimination sequence written by --save-sequence?"
                              : NULL;
  case ADE_ECHECKSUM: return io == CLI_IO_TAPE ? "the file is damaged; record the tape again" : NULL;
  case ADE_ETRUNC:
    return io == CLI_IO_TAPE ? "the file is incomplete or not an adelim tape" : "the file is incomplete";
  case ADE_EVERSION: return io == CLI_IO_TAPE ? "the tape was written by another adelim version" : NULL;
  case ADE_ETOOBIG: return io == CLI_IO_TAPE ? "the tape exceeds a size limit of this build" : NULL;
  case ADE_ESTATE:
    return io == CLI_IO_TAPE ? "the tape's recording failed: it can be inspected and verified, not differentiated"
                             : NULL;
  case ADE_ENOMEM: return "not enough memory";
  default: return NULL;
  }
}

int cli_file_error(const char *path, const char *what, int status, int io) {
  const char *msg = cli_errmsg(), *h = hint(status, io);
  fputs("adelim: ", stderr);
  cli_put_text(stderr, path);
  fprintf(stderr, ": %s: %s", what, ade_strerror(status));
  if (*msg) {
    fputs(": ", stderr);
    cli_put_text(stderr, msg);
  }
  fputc('\n', stderr);
  if (h) fprintf(stderr, "adelim: hint: %s\n", h);
  return CLI_FAIL;
}

int cli_tape_error(const char *path, const char *what, int status) {
  return cli_file_error(path, what, status, CLI_IO_TAPE);
}

/* A failed system call on an output file, with errno's reason. CLI_FAIL. */
static int out_error(const char *path, const char *what, int err) {
  fputs("adelim: ", stderr);
  cli_put_text(stderr, path);
  fprintf(stderr, ": %s: %s\n", what, strerror(err));
  fprintf(stderr, "adelim: hint: %s\n", hint(ADE_EIO, CLI_IO_WRITE));
  return CLI_FAIL;
}

/* The mode a new file gets: the old target's, else 0666 less the umask. */
static mode_t out_mode(const char *path) {
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) return sb.st_mode & 07777;
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

int cli_out_open(cli_out *o, const char *path) {
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0, len = dirlen + strlen(base) + 16;
  int fd = -1;
  o->path = path;
  o->f = NULL;
  if (!*base) return out_error(path, "cannot write", EISDIR);
  if (!(o->tmp = malloc(len))) return out_error(path, "cannot write", ENOMEM);
  snprintf(o->tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, path, base);
  if ((fd = mkstemp(o->tmp)) < 0 || fchmod(fd, out_mode(path)) != 0 || !(o->f = fdopen(fd, "w"))) {
    int err = errno;
    if (fd >= 0) {
      close(fd);
      unlink(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return out_error(path, "cannot create a temporary file next to it", err);
  }
  return CLI_OK;
}

void cli_out_abort(cli_out *o) {
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  o->f = NULL;
  o->tmp = NULL;
}

int cli_out_commit(cli_out *o) {
  int err = 0;
  errno = 0;
  if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
  else if (fsync(fileno(o->f)) != 0) err = errno;
  int closed = fclose(o->f);
  o->f = NULL;
  if (!err && closed != 0) err = errno;
  if (!err && rename(o->tmp, o->path) != 0) err = errno;
  if (err) {
    cli_out_abort(o);
    return out_error(o->path, "cannot write (left unchanged)", err);
  }
  free(o->tmp);
  o->tmp = NULL;
  return CLI_OK;
}

int cli_parse_seconds(const cli_cmd *cmd, const char *opt, const char *s, double *t) {
  char *end;
  *t = strtod(s, &end);
  if (end == s || *end || !(*t > 0) || !isfinite(*t))
    return cli_usage_error(cmd, "%s: '%s' is not a positive number of seconds", opt, s);
  return -1;
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
