/* cli.h: shared declarations of the adelim command-line tool. */
#ifndef ADE_CLI_H
#define ADE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <adelim.h>

/* Exit statuses (doc/adelim.1.md, EXIT STATUS). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* One subcommand: a row of the dispatch table in main.c. run gets the
 * arguments after the subcommand name (argv[0] is the name) and returns an
 * exit status. */
typedef struct cli_cmd {
  const char *name;
  int (*run)(const struct cli_cmd *self, int argc, char **argv);
  const char *summary; /* one line for `adelim --help` */
  const char *usage;   /* full text for `adelim help NAME` */
} cli_cmd;

/* A flag option of a subcommand ("--json" sets *flag to 1). */
typedef struct cli_opt {
  const char *name; /* without the leading "--" */
  int *flag;
} cli_opt;

/* An option of a subcommand that takes one TAPE (args.c): a valued option
 * ("--name VALUE" or "--name=VALUE" sets *value) or, with value NULL, a
 * flag ("--name" sets *flag to 1). */
typedef struct cli_arg {
  const char *name; /* without the leading "--" */
  const char **value;
  int *flag;
} cli_arg;

/* cli_parse_tape: parse argv[1..argc-1] of a subcommand taking exactly one
 * TAPE, with the options in args (NULL-terminated by name); "--" ends the
 * options; "-h"/"--help" prints the usage.
 * @return -1 to continue, else the exit status to leave with. */
int cli_parse_tape(const cli_cmd *cmd, int argc, char **argv, const cli_arg *args,
                   const char **tape);

/* The dispatch table lookup (main.c). */
const cli_cmd *cli_find(const char *name);

/* cli_parse: parse argv[1..argc-1] of a subcommand: set the flags in opts
 * (NULL-terminated by name), move the operands to argv[0..*nargs-1].
 * "--" ends the options; "-h"/"--help" prints the usage.
 * @return -1 to continue, else the exit status to leave with. */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, const cli_opt *opts,
              int *nargs);

/* one when n is 1, else many: "1 dependent", "2 dependents". */
const char *cli_plural(uint64_t n, const char *one, const char *many);
/* "vertices", "edges" or "faces" for an enum ade_seq_kind. */
const char *cli_kind_plural(int kind);

/* "adelim: <message>" on stderr. */
void cli_error(const char *fmt, ...);
/* A usage error of cmd (NULL: the top level), with a pointer to --help.
 * @return CLI_USAGE. */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...);
/* cli_parse_seconds: *t = s, a positive number of seconds (option opt).
 * @return -1 to continue, else the exit status of a usage error. */
int cli_parse_seconds(const cli_cmd *cmd, const char *opt, const char *s, double *t);
/* What a failed library call was doing with its file, for a hint that fits. */
enum { CLI_IO_TAPE, CLI_IO_SEQ, CLI_IO_WRITE };
/* A failed library call on path, a file of kind io: status, detail message
 * and a hint. @return CLI_FAIL. */
int cli_file_error(const char *path, const char *what, int status, int io);
/* cli_file_error on a tape (reading it or computing from it). */
int cli_tape_error(const char *path, const char *what, int status);
/* The library's detail message, or "" when it has none. */
const char *cli_errmsg(void);
/* Flush stdout and report a write error. @return status or CLI_FAIL. */
int cli_finish(int status);
/* Seconds between progress reports on stderr, and before the first:
 * ADELIM_PROGRESS_AFTER (0: as often as they come), else 1. */
double cli_progress_after(void);
/* The processors online, 1 to 16: an ordering's threads by default (the
 * same sequence as one thread's). */
int cli_processors(void);
/* --parts KIND: t's parts (every level of nested regions), and
 * ade_optimize_levels' sequence over them on t's c-graph (*g, built here
 * if NULL). Returns a status (< 0: failed; not reported). */
/* The line on nested levels of parts (none for one level). */
void cli_print_levels(const ade_parts_report *p);
int cli_parts_sequence(ade_tape *t, const char *kind, int method, const ade_opt_limits *l, ade_cgraph **g,
                       ade_elim_seq **seq, ade_parts_report *rep);
/* An ordering's progress report on stderr, "adelim: what: ...";
 * cli_on_order_progress names the method (ade_jacobian_options.progress). */
void cli_order_progress(const char *what, const ade_order_progress *p);
void cli_on_order_progress(void *ud, const ade_order_progress *p);
/* The hierarchy optimizer's progress (no search: its steps, as nodes, and
 * the sequence it must beat, as the incumbent), "adelim: what: ...". */
void cli_hierarchy_progress(const char *what, const ade_opt_progress *p);

/* Writing a file atomically: cli_out_open creates a unique temporary file
 * next to path; write to o->f; cli_out_commit checks every write, flushes,
 * syncs and renames it onto path; cli_out_abort (after a failure) removes
 * it. path is left untouched unless the commit succeeds. Failures are
 * reported naming path. @return CLI_OK or CLI_FAIL. */
typedef struct cli_out {
  const char *path;
  char *tmp;
  FILE *f;
} cli_out;
int cli_out_open(cli_out *o, const char *path);
int cli_out_commit(cli_out *o);
void cli_out_abort(cli_out *o);

/* Text from a tape is untrusted: print it with control characters as '?'. */
void cli_put_text(FILE *f, const char *s);
/* The same into a JSON string literal (quoted, escaped, valid UTF-8). */
void cli_put_json_str(FILE *f, const char *s);

/* A JSON writer: members are separated, indented and keyed for the caller;
 * numbers are written with %.17g (null when not finite or not defined).
 * Containers nest up to CLI_JSON_DEPTH; an inline one stays on one line.
 * Closing the outermost container ends the line. */
#define CLI_JSON_DEPTH 8
typedef struct cli_json {
  FILE *f;
  int depth;
  size_t count[CLI_JSON_DEPTH];
  unsigned char inl[CLI_JSON_DEPTH];
  char bracket[CLI_JSON_DEPTH];
} cli_json;
void cli_json_init(cli_json *j, FILE *f);
/* key: the member's key inside an object, NULL inside an array or at the top.
 * bracket: '{' or '['. */
void cli_json_open(cli_json *j, const char *key, char bracket, int inl);
void cli_json_close(cli_json *j);
void cli_json_str(cli_json *j, const char *key, const char *s);
void cli_json_u64(cli_json *j, const char *key, uint64_t v);
void cli_json_int(cli_json *j, const char *key, int v);
void cli_json_bool(cli_json *j, const char *key, int v);
void cli_json_num(cli_json *j, const char *key, double x);
void cli_json_opt(cli_json *j, const char *key, int defined, double x);
void cli_json_null(cli_json *j, const char *key);
/* The "parts" member: what two-level elimination by partition kind did. */
void cli_json_parts(cli_json *j, const char *kind, const ade_parts_report *p);

/* A text table: a label column and one right-aligned column per value. */
typedef struct cli_table cli_table;
cli_table *cli_table_create(size_t ncols);
void cli_table_free(cli_table *t);
/* Append a row: label and ncols cells, copied (cells NULL or a cell NULL:
 * empty). @return 0 or -1 when out of memory. */
int cli_table_add(cli_table *t, const char *label, const char *const *cells);
void cli_table_print(const cli_table *t, FILE *f);

/* Output formats of `adelim compare`. */
enum { CLI_TEXT, CLI_MARKDOWN, CLI_CSV, CLI_JSON };
#define CLI_CELL 32
#define CLI_GRID_MAXCOLS 16
/* Writes the ncols cells of row i (CLI_CELL bytes each; "" if undefined). */
typedef void cli_cells_fn(const void *ctx, size_t i, char cells[][CLI_CELL]);
/* cli_grid_print: nrows rows of ncols (<= CLI_GRID_MAXCOLS) cells under
 * heads, as text (a cli_table, the first column the label, undefined cells
 * "-"), markdown (the first nleft columns left-aligned, the others right;
 * "-") or csv (undefined cells empty). */
void cli_grid_print(FILE *f, int fmt, const char *const *heads, size_t ncols, size_t nleft, size_t nrows,
                    cli_cells_fn *cells, const void *ctx);
/* The same a row at a time (markdown, csv; nothing in text), f flushed
 * after each: cli_grid_head the heads (markdown: and the rule), then
 * cli_grid_row each row as it arrives. */
void cli_grid_head(FILE *f, int fmt, const char *const *heads, size_t ncols, size_t nleft);
void cli_grid_row(FILE *f, int fmt, char cells[][CLI_CELL], size_t ncols);
/* A text table printed a row at a time, as results arrive: each column as
 * wide as the larger of its head and minw, the first nleft left-aligned,
 * empty cells "-", f flushed after each line. start prints the heads. */
typedef struct cli_stream {
  FILE *f;
  size_t ncols, nleft;
  int width[CLI_GRID_MAXCOLS];
} cli_stream;
void cli_stream_start(cli_stream *s, FILE *f, const char *const *heads, const int *minw, size_t ncols,
                      size_t nleft);
void cli_stream_row(const cli_stream *s, char cells[][CLI_CELL]);

/* The Hessian methods on one tape (hess.c), shared by `adelim hessian`
 * and `adelim compare --hessian`. */
typedef struct cli_hess {
  int method;        /* set by the caller */
  ade_hess_report r;
  ade_sparse *H;     /* NULL: the method failed */
  double err;        /* max |H - H_ref| / max |H_ref|, H_ref by for-over-rev; < 0: none */
} cli_hess;
/* cli_hess_weights: *w = the weights given by spec ("w1,w2,..."; malloc'd,
 * NULL when spec is NULL and m <= 1). A usage error when the tape has
 * m > 1 dependents and spec is NULL, or spec is not m numbers.
 * @return -1 to continue, else the exit status (*w to be freed anyway). */
int cli_hess_weights(const cli_cmd *cmd, const char *spec, size_t m, double **w);
/* cli_hess_run: res[k].method for k < nm, at the recorded point, with
 * weights w; g (NULL: none) gets the gradient. A failed method is reported
 * on stderr and the others still run; the errors are filled when
 * for-over-rev is among them. @return CLI_OK or CLI_FAIL. */
int cli_hess_run(const char *path, ade_tape *t, const double *w, double *g, cli_hess *res, size_t nm);
void cli_hess_free(cli_hess *res, size_t nm);
/* The error column of res[0..nm-1]: max |H - H_ref| / max |H_ref|, H_ref
 * by for-over-rev when it is among them and succeeded. */
void cli_hess_errors(cli_hess *res, size_t nm);
#define CLI_HESS_NCOLS 10
extern const char *const cli_hess_heads[CLI_HESS_NCOLS];
/* The cells of one method's row ("" when not defined). */
void cli_hess_cells(const cli_hess *h, char out[][CLI_CELL]);
/* A text table with one column per method (`adelim hessian`). */
#define CLI_HESS_COLUMNS (-1)
/* cli_hess_print: the methods that succeeded, in res order, one row each
 * in fmt (CLI_TEXT, CLI_MARKDOWN, CLI_CSV), or one column each
 * (CLI_HESS_COLUMNS). */
void cli_hess_print(FILE *f, const cli_hess *res, size_t nm, int fmt);
/* cli_hess_json: the same as the member "methods", an array of objects. */
void cli_hess_json(cli_json *j, const cli_hess *res, size_t nm);
/* One element of that array (nothing when the method failed). */
void cli_hess_json_row(cli_json *j, const cli_hess *h);

/* Subcommands. */
int cli_cmd_stats(const cli_cmd *self, int argc, char **argv);
int cli_cmd_verify(const cli_cmd *self, int argc, char **argv);
int cli_cmd_jacobian(const cli_cmd *self, int argc, char **argv);
extern const char cli_jacobian_usage[];
int cli_cmd_hessian(const cli_cmd *self, int argc, char **argv);
int cli_cmd_compare(const cli_cmd *self, int argc, char **argv);
extern const char cli_compare_usage[];
int cli_cmd_dot(const cli_cmd *self, int argc, char **argv);
extern const char cli_dot_usage[];
int cli_cmd_codegen(const cli_cmd *self, int argc, char **argv);
extern const char cli_codegen_usage[];
int cli_cmd_mission(const cli_cmd *self, int argc, char **argv);
extern const char cli_mission_usage[];
/* `adelim compare --mission FILE`: every mission planner on one GraphML
 * DAG, one row each (bnb and best within time_limit seconds). */
int cli_compare_mission(const cli_cmd *self, const char *path, double time_limit, double budget, int fmt);

#endif /* ADE_CLI_H */
