/* cmd_hessian.c: `adelim hessian`: the Hessian of a tape by edge pushing, vertex elimination or forward-over-reverse. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

typedef struct hopts {
  const char *method, *out, *weights;
  int dense, gradient;
} hopts;

/* Take "--name VALUE" / "--name=VALUE" out of argv; -1 or an exit status. */
static int value_option(const cli_cmd *self, int *argc, char **argv, const char *name,
                        const char **val) {
  size_t len = strlen(name);
  for (int i = 1; i < *argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strncmp(argv[i], name, len) != 0 || (argv[i][len] != '\0' && argv[i][len] != '=')) continue;
    int take = argv[i][len] == '=' ? 1 : 2;
    if (take == 2 && i + 1 >= *argc) return cli_usage_error(self, "option '%s' needs a value", name);
    *val = take == 1 ? argv[i] + len + 1 : argv[i + 1];
    for (int j = i; j + take < *argc; j++) argv[j] = argv[j + take];
    *argc -= take;
    i--;
  }
  return -1;
}

/* Parse "w1,w2,..." into m weights. */
static int parse_weights(const cli_cmd *self, const char *s, size_t m, double *w) {
  const char *p = s;
  for (size_t i = 0; i < m; i++) {
    char *end;
    errno = 0;
    w[i] = strtod(p, &end);
    if (end == p || errno || !isfinite(w[i]))
      return cli_usage_error(self, "--weights: bad number at '%s'", p);
    if (*end != (i + 1 < m ? ',' : '\0'))
      return cli_usage_error(self, "--weights: the tape has %zu dependents; give %zu comma-separated "
                             "numbers", m, m);
    p = end + 1;
  }
  return -1;
}

static void print_dense(const ade_sparse *H) {
  double *D = malloc(sizeof(double) * (H->n * H->n + 1));
  if (!D || ade_sparse_to_dense(H, D)) {
    free(D);
    return;
  }
  for (size_t i = 0; i < H->n; i++)
    for (size_t j = 0; j < H->n; j++) printf("%.17g%c", D[i * H->n + j], j + 1 < H->n ? ' ' : '\n');
  free(D);
}

static void report_row(cli_table *tb, const char *label, int nm, char cells[][32]) {
  const char *c[ADE_HESS_NMETHODS];
  for (int i = 0; i < nm; i++) c[i] = cells[i];
  cli_table_add(tb, label, c);
}

/* One method or all of them, as a table with one column per method. */
static int run(const char *path, const hopts *o, const cli_cmd *self) {
  ade_tape *t = NULL;
  int all = strcmp(o->method, "all") == 0;
  int first = all ? 0 : ade_hess_method_parse(o->method), nm = all ? ADE_HESS_NMETHODS : 1;
  if (first < 0) return cli_usage_error(self, "unknown method '%s' (edge-push, ve-reverse, "
                                        "ve-markowitz, for-over-rev, edge-push-preacc or all)", o->method);
  int rc = ade_tape_open(&t, path);
  if (rc < 0) return cli_tape_error(path, "cannot open", rc);
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  double *w = o->weights ? malloc(sizeof(double) * (m + 1)) : NULL;
  double *g = malloc(sizeof(double) * (n + 1));
  int status = CLI_OK;
  if (o->weights && (rc = parse_weights(self, o->weights, m, w)) >= 0) status = rc;
  char cells[7][ADE_HESS_NMETHODS][32];
  ade_hess_report r[ADE_HESS_NMETHODS];
  ade_sparse *H = NULL;
  for (int k = 0; k < nm && status == CLI_OK; k++) {
    ade_hess_options ho = {NULL, w, g};
    ade_sparse_free(H);
    rc = ade_hessian(t, first + k, &ho, &H, &r[k]);
    if (rc < 0) status = cli_tape_error(path, ade_hess_method_name(first + k), rc);
    if (rc == ADE_EINVAL && m > 1 && !w) cli_error("hint: give one weight per dependent with --weights");
    else if (rc > 0) cli_error("%s: warning: %s", path, cli_errmsg());
    if (rc < 0) break;
    snprintf(cells[0][k], 32, "%s", ade_hess_method_name(first + k));
    snprintf(cells[1][k], 32, "%.17g", r[k].value);
    snprintf(cells[2][k], 32, "%zu", r[k].nnz);
    snprintf(cells[3][k], 32, "%llu", (unsigned long long)r[k].updates);
    snprintf(cells[4][k], 32, "%llu", (unsigned long long)r[k].fma);
    snprintf(cells[5][k], 32, "%zu", r[k].max_live ? r[k].max_live : r[k].vertices);
    snprintf(cells[6][k], 32, "%.6f", r[k].seconds);
  }
  if (status == CLI_OK) {
    static const char *labels[7] = {"method", "value", "nonzeros (lower)", "updates", "fma",
                                    "live / vertices", "seconds"};
    cli_table *tb = cli_table_create((size_t)nm);
    printf("%zu independents, %zu dependents\n", n, m);
    for (int i = 0; tb && i < 7; i++) report_row(tb, labels[i], nm, cells[i]);
    if (tb) cli_table_print(tb, stdout);
    cli_table_free(tb);
    if (o->gradient)
      for (size_t i = 0; i < n; i++) printf("g[%zu] = %.17g\n", i + 1, g[i]);
    if (o->dense) print_dense(H);
    if (o->out && (rc = ade_sparse_write_mtx(H, o->out)) != ADE_OK)
      status = cli_tape_error(o->out, "cannot write", rc);
  }
  ade_sparse_free(H);
  ade_tape_free(t);
  free(w);
  free(g);
  return status;
}

int cli_cmd_hessian(const cli_cmd *self, int argc, char **argv) {
  hopts o = {"edge-push", NULL, NULL, 0, 0};
  int n, rc;
  if ((rc = value_option(self, &argc, argv, "--method", &o.method)) >= 0) return rc;
  if ((rc = value_option(self, &argc, argv, "--out", &o.out)) >= 0) return rc;
  if ((rc = value_option(self, &argc, argv, "--weights", &o.weights)) >= 0) return rc;
  const cli_opt opts[] = {{"dense", &o.dense}, {"gradient", &o.gradient}, {NULL, NULL}};
  if ((rc = cli_parse(self, argc, argv, opts, &n)) >= 0) return rc;
  if (n != 1) return cli_usage_error(self, n ? "one TAPE only" : "missing TAPE argument");
  return cli_finish(run(argv[0], &o, self));
}
