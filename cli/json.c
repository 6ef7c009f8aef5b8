/* json.c: one JSON writer for every subcommand's --json output. */
#include <inttypes.h>
#include <math.h>

#include "cli.h"

void cli_json_init(cli_json *j, FILE *f) {
  j->f = f;
  j->depth = 0;
}

/* The separator, line break and indent before a value, then its key. */
static void member(cli_json *j, const char *key) {
  if (j->depth > 0) {
    int d = (j->depth < CLI_JSON_DEPTH ? j->depth : CLI_JSON_DEPTH) - 1;
    if (j->count[d]++) fputc(',', j->f);
    if (j->inl[d]) fputs(j->count[d] > 1 ? " " : "", j->f);
    else fprintf(j->f, "\n%*s", 2 * j->depth, "");
  }
  if (key) {
    cli_put_json_str(j->f, key);
    fputs(": ", j->f);
  }
}

void cli_json_open(cli_json *j, const char *key, char bracket, int inl) {
  member(j, key);
  fputc(bracket, j->f);
  if (j->depth < CLI_JSON_DEPTH) {
    j->count[j->depth] = 0;
    j->inl[j->depth] = (unsigned char)inl;
    j->bracket[j->depth] = bracket;
  }
  j->depth++;
}

void cli_json_close(cli_json *j) {
  if (j->depth == 0) return;
  int d = --j->depth < CLI_JSON_DEPTH ? j->depth : CLI_JSON_DEPTH - 1;
  if (!j->inl[d] && j->count[d]) fprintf(j->f, "\n%*s", 2 * j->depth, "");
  fputc(j->bracket[d] == '{' ? '}' : ']', j->f);
  if (j->depth == 0) fputc('\n', j->f);
}

void cli_json_str(cli_json *j, const char *key, const char *s) {
  member(j, key);
  cli_put_json_str(j->f, s);
}

void cli_json_u64(cli_json *j, const char *key, uint64_t v) {
  member(j, key);
  fprintf(j->f, "%" PRIu64, v);
}

void cli_json_int(cli_json *j, const char *key, int v) {
  member(j, key);
  fprintf(j->f, "%d", v);
}

void cli_json_bool(cli_json *j, const char *key, int v) {
  member(j, key);
  fputs(v ? "true" : "false", j->f);
}

void cli_json_num(cli_json *j, const char *key, double x) {
  cli_json_opt(j, key, 1, x);
}

void cli_json_opt(cli_json *j, const char *key, int defined, double x) {
  member(j, key);
  if (defined && isfinite(x)) fprintf(j->f, "%.17g", x);
  else fputs("null", j->f);
}

void cli_json_null(cli_json *j, const char *key) {
  member(j, key);
  fputs("null", j->f);
}

void cli_json_parts(cli_json *j, const char *kind, const ade_parts_report *p) {
  cli_json_open(j, "parts", '{', 1);
  cli_json_str(j, "kind", kind);
  cli_json_u64(j, "parts", p->parts);
  cli_json_u64(j, "classes", p->classes);
  cli_json_u64(j, "interior", p->interior);
  cli_json_u64(j, "levels", p->levels);
  cli_json_u64(j, "levels_used", p->levels_used);
  cli_json_u64(j, "first_level_fma", p->local_cost);
  cli_json_str(j, "first_level_kind", p->inner_kind == ADE_SEQ_EDGE ? "edge" : "vertex");
  cli_json_u64(j, "second_level_fma", p->outer_cost);
  cli_json_str(j, "second_level_kind", p->outer_kind == ADE_SEQ_EDGE ? "edge" : "vertex");
  cli_json_u64(j, "one_level_fma", p->flat_cost);
  cli_json_bool(j, "two_level", p->two_level);
  cli_json_bool(j, "limited", p->limited);
  cli_json_num(j, "seconds", p->seconds);
  cli_json_close(j);
}
