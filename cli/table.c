/* table.c: a text table with a label column and right-aligned value columns. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct cli_table {
  size_t ncols, nrows, cap;
  char **cell; /* nrows x (1 + ncols), row-major; column 0 is the label */
};

cli_table *cli_table_create(size_t ncols) {
  cli_table *t = calloc(1, sizeof *t);
  if (t) t->ncols = ncols;
  return t;
}

void cli_table_free(cli_table *t) {
  if (!t) return;
  for (size_t i = 0; i < t->nrows * (t->ncols + 1); i++) free(t->cell[i]);
  free(t->cell);
  free(t);
}

static char *copy(const char *s) {
  size_t n = strlen(s ? s : "") + 1;
  char *c = malloc(n);
  if (c) memcpy(c, s ? s : "", n);
  return c;
}

int cli_table_add(cli_table *t, const char *label, const char *const *cells) {
  size_t w = t->ncols + 1;
  if (t->nrows == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 32;
    char **c = realloc(t->cell, cap * w * sizeof *c);
    if (!c) return -1;
    t->cell = c;
    t->cap = cap;
  }
  char **row = t->cell + t->nrows * w;
  int ok = (row[0] = copy(label)) != NULL;
  for (size_t j = 1; j < w; j++)
    ok &= (row[j] = copy(cells ? cells[j - 1] : NULL)) != NULL;
  t->nrows++; /* counted even on failure, so that free releases the row */
  return ok ? 0 : -1;
}

/* Display width of s: UTF-8 continuation bytes take no column. */
static size_t width(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
  return n;
}

/* The last column of a row that is not empty (0: only the label). */
static size_t last_cell(char *const *row, size_t w) {
  size_t last = 0;
  for (size_t j = 1; j < w; j++)
    if (row[j][0]) last = j;
  return last;
}

static void print_row(char *const *row, size_t w, const size_t *cw, FILE *f) {
  size_t last = last_cell(row, w);
  cli_put_text(f, row[0]);
  for (size_t j = 1; j <= last; j++) {
    size_t pad = (j == 1 ? cw[0] - width(row[0]) : 0) + 2 + cw[j] - width(row[j]);
    fprintf(f, "%*s", (int)pad, "");
    cli_put_text(f, row[j]);
  }
  fputc('\n', f);
}

void cli_table_print(const cli_table *t, FILE *f) {
  size_t w = t->ncols + 1, *cw = calloc(w, sizeof *cw);
  if (!cw) return;
  for (size_t i = 0; i < t->nrows * w; i++)
    if (width(t->cell[i]) > cw[i % w]) cw[i % w] = width(t->cell[i]);
  for (size_t i = 0; i < t->nrows; i++) print_row(t->cell + i * w, w, cw, f);
  free(cw);
}

/* One markdown or csv line; markdown shows an empty cell as "-". */
static void grid_line(FILE *f, int fmt, const char *const *cell, size_t ncols) {
  for (size_t k = 0; k < ncols; k++) {
    if (fmt == CLI_CSV) fprintf(f, "%s%s", k ? "," : "", cell[k]);
    else fprintf(f, "| %s ", cell[k][0] ? cell[k] : "-");
  }
  fputs(fmt == CLI_CSV ? "\n" : "|\n", f);
}

void cli_grid_head(FILE *f, int fmt, const char *const *heads, size_t ncols, size_t nleft) {
  if (ncols == 0 || ncols > CLI_GRID_MAXCOLS || fmt == CLI_TEXT) return;
  grid_line(f, fmt, heads, ncols);
  for (size_t k = 0; fmt == CLI_MARKDOWN && k < ncols; k++) fputs(k < nleft ? "|---" : "|--:", f);
  if (fmt == CLI_MARKDOWN) fputs("|\n", f);
  fflush(f);
}

void cli_grid_row(FILE *f, int fmt, char cells[][CLI_CELL], size_t ncols) {
  const char *p[CLI_GRID_MAXCOLS];
  if (ncols == 0 || ncols > CLI_GRID_MAXCOLS || fmt == CLI_TEXT) return;
  for (size_t k = 0; k < ncols; k++) p[k] = cells[k];
  grid_line(f, fmt, p, ncols);
  fflush(f);
}

void cli_grid_print(FILE *f, int fmt, const char *const *heads, size_t ncols, size_t nleft, size_t nrows,
                    cli_cells_fn *cells, const void *ctx) {
  char cl[CLI_GRID_MAXCOLS][CLI_CELL];
  const char *p[CLI_GRID_MAXCOLS];
  cli_table *tb = fmt == CLI_TEXT ? cli_table_create(ncols - 1) : NULL;
  if (ncols == 0 || ncols > CLI_GRID_MAXCOLS || (fmt == CLI_TEXT && !tb)) return;
  if (tb) cli_table_add(tb, heads[0], heads + 1);
  else cli_grid_head(f, fmt, heads, ncols, nleft);
  for (size_t i = 0; i < nrows; i++) {
    cells(ctx, i, cl);
    for (size_t k = 0; k < ncols; k++) p[k] = tb && !cl[k][0] ? "-" : cl[k];
    if (tb) cli_table_add(tb, p[0], p + 1);
    else grid_line(f, fmt, p, ncols);
  }
  if (tb) cli_table_print(tb, f);
  cli_table_free(tb);
}

/* One line of a streamed table: padded cells, "-" for an empty one. */
static void stream_line(const cli_stream *s, const char *const *cell) {
  for (size_t k = 0; k < s->ncols; k++) {
    const char *c = cell[k][0] ? cell[k] : "-";
    int w = s->width[k], left = k < s->nleft, last = k + 1 == s->ncols;
    fprintf(s->f, "%s%*s", k ? "  " : "", left ? -(last ? 0 : w) : w, c);
  }
  fputc('\n', s->f);
  fflush(s->f);
}

void cli_stream_start(cli_stream *s, FILE *f, const char *const *heads, const int *minw, size_t ncols,
                      size_t nleft) {
  s->f = f;
  s->ncols = ncols < CLI_GRID_MAXCOLS ? ncols : CLI_GRID_MAXCOLS;
  s->nleft = nleft;
  for (size_t k = 0; k < s->ncols; k++) {
    int h = (int)strlen(heads[k]);
    s->width[k] = minw[k] > h ? minw[k] : h;
  }
  stream_line(s, heads);
}

void cli_stream_row(const cli_stream *s, char cells[][CLI_CELL]) {
  const char *p[CLI_GRID_MAXCOLS];
  for (size_t k = 0; k < s->ncols; k++) p[k] = cells[k];
  stream_line(s, p);
}
