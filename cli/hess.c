/* hess.c: Hessian methods run on one tape and their table, shared by `adelim hessian` and `adelim compare --hessian`. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

int cli_hess_weights(const cli_cmd *cmd, const char *spec, size_t m, double **w) {
  *w = NULL;
  if (!spec && m > 1)
    return cli_usage_error(cmd, "the tape has %zu dependents: give %zu comma-separated weights with "
                           "--weights (H is then the Hessian of sum w_i y_i)", m, m);
  if (!spec) return -1;
  if (!(*w = malloc(sizeof **w * (m + 1)))) {
    cli_error("out of memory for %zu %s", m, cli_plural(m, "weight", "weights"));
    return CLI_FAIL;
  }
  const char *p = spec;
  for (size_t i = 0; i < m; i++) {
    char *end;
    errno = 0;
    (*w)[i] = strtod(p, &end);
    if (end == p || errno || !isfinite((*w)[i]))
      return cli_usage_error(cmd, "--weights: bad number at '%s'", p);
    if (*end != (i + 1 < m ? ',' : '\0') && m == 1)
      return cli_usage_error(cmd, "--weights: the tape has 1 dependent; give one number");
    if (*end != (i + 1 < m ? ',' : '\0'))
      return cli_usage_error(cmd, "--weights: the tape has %zu dependents; give %zu comma-separated numbers", m, m);
    p = end + 1;
  }
  return -1;
}

/* max |A - B| over the lower triangles (rows sorted; absent entries 0). */
static double max_diff(const ade_sparse *A, const ade_sparse *B) {
  double e = 0.0;
  for (size_t i = 0; i < A->m; i++) {
    size_t a = A->rowptr[i], b = B->rowptr[i], ae = A->rowptr[i + 1], be = B->rowptr[i + 1];
    while (a < ae || b < be) {
      size_t ca = a < ae ? A->col[a] : SIZE_MAX, cb = b < be ? B->col[b] : SIZE_MAX;
      double x = ca <= cb ? A->val[a++] : 0.0, y = cb <= ca ? B->val[b++] : 0.0;
      e = fmax(e, fabs(x - y));
    }
  }
  return e;
}

void cli_hess_errors(cli_hess *res, size_t nm) {
  const cli_hess *ref = NULL;
  for (size_t k = 0; k < nm; k++)
    if (res[k].method == ADE_HESS_FOR_OVER_REV && res[k].H) ref = &res[k];
  if (!ref) return;
  double scale = 0.0;
  for (size_t q = 0; q < ref->H->nnz; q++) scale = fmax(scale, fabs(ref->H->val[q]));
  for (size_t k = 0; k < nm; k++)
    if (res[k].H) res[k].err = max_diff(res[k].H, ref->H) / fmax(scale, DBL_MIN);
}

int cli_hess_run(const char *path, ade_tape *t, const double *w, double *g, cli_hess *res, size_t nm) {
  int status = CLI_OK;
  for (size_t k = 0; k < nm; k++) {
    ade_hess_options o = {NULL, w, g};
    res[k].H = NULL;
    res[k].err = -1.0;
    int rc = ade_hessian(t, res[k].method, &o, &res[k].H, &res[k].r);
    if (rc < 0) status = cli_tape_error(path, ade_hess_method_name(res[k].method), rc);
    else if (rc > 0) cli_error("%s: %s: warning: %s", path, ade_hess_method_name(res[k].method), cli_errmsg());
  }
  cli_hess_errors(res, nm);
  return status;
}

void cli_hess_free(cli_hess *res, size_t nm) {
  for (size_t k = 0; k < nm; k++) {
    ade_sparse_free(res[k].H);
    res[k].H = NULL;
  }
}

const char *const cli_hess_heads[CLI_HESS_NCOLS] = {"method", "value", "nonzeros (lower)", "updates",
                                                   "fma", "max live", "vertices", "colors", "seconds",
                                                   "error"};

void cli_hess_cells(const cli_hess *h, char out[][CLI_CELL]) {
  const ade_hess_report *r = &h->r;
  snprintf(out[0], CLI_CELL, "%s", ade_hess_method_name(h->method));
  snprintf(out[1], CLI_CELL, "%.17g", r->value);
  snprintf(out[2], CLI_CELL, "%zu", r->nnz);
  snprintf(out[3], CLI_CELL, "%llu", (unsigned long long)r->updates);
  snprintf(out[4], CLI_CELL, "%llu", (unsigned long long)r->fma);
  for (int k = 5; k < CLI_HESS_NCOLS; k++) out[k][0] = '\0';
  if (r->max_live) snprintf(out[5], CLI_CELL, "%zu", r->max_live);
  if (r->vertices) snprintf(out[6], CLI_CELL, "%zu", r->vertices);
  if (r->colors) snprintf(out[7], CLI_CELL, "%zu", r->colors);
  snprintf(out[8], CLI_CELL, "%.3g", r->seconds);
  if (h->err >= 0) snprintf(out[9], CLI_CELL, "%.2g", h->err);
}

/* The methods that succeeded, in the order given. */
typedef struct done {
  const cli_hess *res;
  size_t n, *ix;
} done;

static void done_cells(const void *ctx, size_t i, char out[][CLI_CELL]) {
  const done *d = ctx;
  cli_hess_cells(&d->res[d->ix[i]], out);
}

/* One column per method; a row left out when no method defines it. */
static void print_columns(FILE *f, const done *d) {
  char (*cl)[CLI_HESS_NCOLS][CLI_CELL] = malloc(sizeof *cl * (d->n + 1));
  const char **p = malloc(sizeof *p * (d->n + 1));
  cli_table *tb = cli_table_create(d->n);
  for (size_t k = 0; cl && p && k < d->n; k++) cli_hess_cells(&d->res[d->ix[k]], cl[k]);
  for (int c = 0; cl && p && tb && c < CLI_HESS_NCOLS; c++) {
    int any = 0;
    for (size_t k = 0; k < d->n; k++) {
      any |= cl[k][c][0] != '\0';
      p[k] = cl[k][c][0] ? cl[k][c] : "-";
    }
    if (any) cli_table_add(tb, cli_hess_heads[c], p);
  }
  if (tb) cli_table_print(tb, f);
  cli_table_free(tb);
  free(cl);
  free(p);
}

void cli_hess_json_row(cli_json *j, const cli_hess *h) {
  if (!h->H) return;
  cli_json_open(j, NULL, '{', 1);
  cli_json_str(j, "method", ade_hess_method_name(h->method));
  cli_json_num(j, "value", h->r.value);
  cli_json_u64(j, "nnz", h->r.nnz);
  cli_json_u64(j, "updates", h->r.updates);
  cli_json_u64(j, "fma", h->r.fma);
  cli_json_opt(j, "max_live", h->r.max_live > 0, (double)h->r.max_live);
  cli_json_opt(j, "vertices", h->r.vertices > 0, (double)h->r.vertices);
  cli_json_opt(j, "colors", h->r.colors > 0, (double)h->r.colors);
  cli_json_num(j, "seconds", h->r.seconds);
  cli_json_opt(j, "error", h->err >= 0, h->err);
  cli_json_close(j);
}

void cli_hess_json(cli_json *j, const cli_hess *res, size_t nm) {
  cli_json_open(j, "methods", '[', 0);
  for (size_t k = 0; k < nm; k++) cli_hess_json_row(j, &res[k]);
  cli_json_close(j);
}

void cli_hess_print(FILE *f, const cli_hess *res, size_t nm, int fmt) {
  size_t ix[ADE_HESS_NMETHODS + 1];
  done d = {res, 0, ix};
  for (size_t k = 0; k < nm && d.n < ADE_HESS_NMETHODS; k++)
    if (res[k].H) ix[d.n++] = k;
  if (fmt == CLI_HESS_COLUMNS) print_columns(f, &d);
  else cli_grid_print(f, fmt, cli_hess_heads, CLI_HESS_NCOLS, 1, d.n, done_cells, &d);
}
