/* cmd_hessian.c: `adelim hessian`: the Hessian of a tape by edge pushing, vertex elimination or forward-over-reverse. */
#include <stdlib.h>
#include <string.h>

#include <adelim.h>

#include "cli.h"

typedef struct hopts {
  const char *method, *out, *weights;
  int dense, gradient, json;
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

/* H densely: rows of numbers, or the JSON member "dense" (an array of rows). */
static int print_dense(const char *path, const ade_sparse *H, cli_json *j) {
  double *D = malloc(sizeof(double) * (H->n * H->n + 1));
  int st = D ? ade_sparse_to_dense(H, D) : ADE_ENOMEM;
  if (st < 0) {
    free(D);
    return cli_tape_error(path, "dense Hessian", st);
  }
  if (j) cli_json_open(j, "dense", '[', 0);
  for (size_t i = 0; i < H->n; i++) {
    if (j) cli_json_open(j, NULL, '[', 1);
    for (size_t k = 0; k < H->n; k++) {
      if (j) cli_json_num(j, NULL, D[i * H->n + k]);
      else printf("%.17g%c", D[i * H->n + k], k + 1 < H->n ? ' ' : '\n');
    }
    if (j) cli_json_close(j);
  }
  if (j) cli_json_close(j);
  free(D);
  return CLI_OK;
}

/* The results as text (a column per method) or as one JSON object. */
static int print(const char *path, const hopts *o, const cli_hess *res, size_t nm, size_t m, const double *g) {
  const ade_sparse *H = res[nm - 1].H;
  size_t n = H->n;
  int status = CLI_OK;
  cli_json j;
  cli_json_init(&j, stdout);
  if (o->json) {
    cli_json_open(&j, NULL, '{', 0);
    cli_json_str(&j, "tape", path);
    cli_json_u64(&j, "n", n);
    cli_json_u64(&j, "m", m);
    cli_hess_json(&j, res, nm);
  } else {
    printf("%zu %s, %zu %s\n", n, cli_plural(n, "independent", "independents"), m,
           cli_plural(m, "dependent", "dependents"));
    cli_hess_print(stdout, res, nm, CLI_HESS_COLUMNS);
  }
  if (o->gradient && o->json) cli_json_open(&j, "gradient", '[', 1);
  for (size_t i = 0; o->gradient && i < n; i++) {
    if (o->json) cli_json_num(&j, NULL, g[i]);
    else printf("g[%zu] = %.17g\n", i + 1, g[i]);
  }
  if (o->gradient && o->json) cli_json_close(&j);
  if (o->dense) status = print_dense(path, H, o->json ? &j : NULL);
  if (o->json) cli_json_close(&j);
  return status;
}

/* The methods named by name ("all": every one) into res; -1 if unknown. */
static int methods(const char *name, cli_hess *res) {
  int nm = strcmp(name, "all") == 0 ? ADE_HESS_NMETHODS : 1;
  for (int k = 0; k < nm; k++) res[k].method = nm > 1 ? k : ade_hess_method_parse(name);
  return res[0].method < 0 ? -1 : nm;
}

static int unknown_method(const cli_cmd *self, const char *name) {
  char list[256] = "";
  for (int k = 0; k < ADE_HESS_NMETHODS; k++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s, ", ade_hess_method_name(k));
  }
  return cli_usage_error(self, "unknown method '%s' (%sor all)", name, list);
}

/* One method or all of them, as a table with one column per method. */
static int run(const char *path, const hopts *o, const cli_cmd *self) {
  ade_tape *t = NULL;
  cli_hess res[ADE_HESS_NMETHODS] = {{0}};
  int nm = methods(o->method, res), rc;
  if (nm < 0) return unknown_method(self, o->method);
  if ((rc = ade_tape_open(&t, path)) < 0) return cli_tape_error(path, "cannot open", rc);
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  double *w = NULL, *g = malloc(sizeof(double) * (n + 1));
  int status = (rc = cli_hess_weights(self, o->weights, m, &w)) >= 0 ? rc : CLI_OK;
  if (status == CLI_OK && !g) status = cli_tape_error(path, "gradient", ADE_ENOMEM);
  if (status == CLI_OK) status = cli_hess_run(path, t, w, g, res, (size_t)nm);
  if (status == CLI_OK && o->out && (rc = ade_sparse_write_mtx(res[nm - 1].H, o->out)) != ADE_OK)
    status = cli_file_error(o->out, "cannot write", rc, CLI_IO_WRITE);
  if (status == CLI_OK) status = print(path, o, res, (size_t)nm, m, g);
  cli_hess_free(res, (size_t)nm);
  ade_tape_free(t);
  free(w);
  free(g);
  return status;
}

int cli_cmd_hessian(const cli_cmd *self, int argc, char **argv) {
  hopts o = {"edge-push", NULL, NULL, 0, 0, 0};
  int n, rc;
  if ((rc = value_option(self, &argc, argv, "--method", &o.method)) >= 0) return rc;
  if ((rc = value_option(self, &argc, argv, "--out", &o.out)) >= 0) return rc;
  if ((rc = value_option(self, &argc, argv, "--weights", &o.weights)) >= 0) return rc;
  const cli_opt opts[] = {{"dense", &o.dense}, {"gradient", &o.gradient}, {"json", &o.json}, {NULL, NULL}};
  if ((rc = cli_parse(self, argc, argv, opts, &n)) >= 0) return rc;
  if (n != 1) return cli_usage_error(self, n ? "one TAPE only" : "missing TAPE argument");
  return cli_finish(run(argv[0], &o, self));
}
