/* exec.c: executing a mission plan on elementals given as tangent, adjoint and Jacobian callbacks. */
#include "mission_internal.h"

typedef struct exec {
  const ade_mplan *p;
  const ade_mission *d;
  const ade_mission_fns *f;
  double **m;        /* per slot: its matrix (rows x cols, column-major) or NULL */
  int n;             /* slots */
  uint64_t products;
} exec;

static size_t rows(const exec *x, int s) {
  int len;
  const int *path = ade_mplan_slot_path(x->p, s, &len);
  return (size_t)x->d->v[path[len - 1]].size;
}
static size_t cols(const exec *x, int s) {
  const int *path = ade_mplan_slot_path(x->p, s, NULL);
  return (size_t)x->d->v[path[0]].size;
}

/* A zero matrix for slot s (kept if it exists). */
static int zeros(exec *x, int s) {
  if (x->m[s]) return ADE_OK;
  x->m[s] = ade__calloc(rows(x, s) * cols(x, s), sizeof(double));
  return x->m[s] ? ADE_OK : ade__fail(ADE_ENOMEM, "plan execution: out of memory");
}

/* B := A^T for an r x c column-major A. */
static void transpose(const double *a, size_t r, size_t c, double *b) {
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < c; j++) b[j + i * c] = a[i + j * r];
}

/* F'(a) by tangents (seed I) or adjoints (seed I, result transposed). */
static int acc(exec *x, const ade_mplan_op *o) {
  size_t r = rows(x, o->a), c = cols(x, o->a), k = o->mode == ADE_MODE_TAN ? c : r;
  double *seed = ade__calloc(k * k, sizeof *seed), *out = ade__calloc(r * c, sizeof *out);
  int rc = seed && out ? zeros(x, o->a) : ade__fail(ADE_ENOMEM, "plan execution: out of memory");
  for (size_t i = 0; !rc && i < k; i++) seed[i + i * k] = 1;
  if (!rc && o->mode == ADE_MODE_TAN) rc = x->f->tangent(x->f->ud, o->a, c, seed, x->m[o->a]);
  else if (!rc) rc = x->f->adjoint(x->f->ud, o->a, r, seed, out); /* out: c x r = F'^T */
  if (!rc && o->mode == ADE_MODE_ADJ) transpose(out, c, r, x->m[o->a]);
  ade__free(seed);
  ade__free(out);
  return rc;
}

/* C += B A (dense: rows(b) x rows(a) x cols(a) multiply-adds). */
static void mul(exec *x, const double *b, const double *a, double *c, size_t nk, size_t nj, size_t ni) {
  for (size_t i = 0; i < ni; i++)
    for (size_t j = 0; j < nj; j++)
      for (size_t k = 0; k < nk; k++) c[k + i * nk] += b[k + j * nk] * a[j + i * nj];
  x->products += (uint64_t)nk * nj * ni;
}

/* Rule 2: F'(c) += F'(b) F'(a) by tangents of b, adjoints of a, or a product. */
static int eli(exec *x, const ade_mplan_op *o) {
  size_t ni = cols(x, o->a), nj = rows(x, o->a), nk = rows(x, o->b);
  int rc = zeros(x, o->c);
  if (rc) return rc;
  if (o->mode == ADE_MODE_TAN) return x->f->tangent(x->f->ud, o->b, ni, x->m[o->a], x->m[o->c]);
  if (o->mode == ADE_MODE_MUL) {
    mul(x, x->m[o->b], x->m[o->a], x->m[o->c], nk, nj, ni);
    return ADE_OK;
  }
  double *bt = ade__alloc(nj * nk * sizeof *bt), *out = ade__calloc(ni * nk, sizeof *out);
  if (!bt || !out) rc = ade__fail(ADE_ENOMEM, "plan execution: out of memory");
  if (!rc) transpose(x->m[o->b], nk, nj, bt); /* F'(b)^T: nj x nk */
  if (!rc) rc = x->f->adjoint(x->f->ud, o->a, nk, bt, out); /* out: ni x nk */
  for (size_t i = 0; !rc && i < ni; i++)
    for (size_t k = 0; k < nk; k++) x->m[o->c][k + i * nk] += out[i + k * ni];
  ade__free(bt);
  ade__free(out);
  return rc;
}

static int merge(exec *x, const ade_mplan_op *o) {
  size_t n = rows(x, o->a) * cols(x, o->a);
  int rc = zeros(x, o->c);
  for (size_t i = 0; !rc && i < n; i++) x->m[o->c][i] += x->m[o->a][i];
  ade__free(x->m[o->a]);
  x->m[o->a] = NULL;
  return rc;
}

/* Given Jacobians first, then the operations in order. */
static int run(exec *x) {
  int rc = ADE_OK;
  for (int k = 0; k < x->d->ne && !rc; k++)
    if (x->d->e[k].jac && !(rc = zeros(x, k))) rc = x->f->jacobian(x->f->ud, k, x->m[k]);
  for (size_t i = 0; i < ade_mplan_num_ops(x->p) && !rc; i++) {
    const ade_mplan_op *o = ade_mplan_op_at(x->p, i);
    rc = o->kind == ADE_MOP_ACC ? acc(x, o) : o->kind == ADE_MOP_ELI ? eli(x, o) : merge(x, o);
  }
  return rc;
}

/* Offsets of the inputs' (outputs') entries in J's columns (rows). */
static void offsets(const ade_mission *d, int out, size_t *off, size_t *total) {
  *total = 0;
  for (int j = 0; j < d->nv; j++) {
    off[j] = *total;
    if (out ? !d->v[j].nout : !d->v[j].nin) *total += d->v[j].size;
  }
}

/* The slots from an input to an output are the Jacobian's blocks. */
static int assemble(exec *x, double *J) {
  const ade_mission *d = x->d;
  size_t *co = ade__alloc(2 * (size_t)d->nv * sizeof *co), n, m;
  if (!co) return ade__fail(ADE_ENOMEM, "plan execution: out of memory");
  size_t *ro = co + d->nv;
  offsets(d, 0, co, &n);
  offsets(d, 1, ro, &m);
  memset(J, 0, m * n * sizeof *J);
  for (int s = 0; s < x->n; s++) {
    int len;
    const int *path = ade_mplan_slot_path(x->p, s, &len);
    int a = path[0], b = path[len - 1];
    if (!x->m[s] || d->v[a].nin || d->v[b].nout) continue;
    size_t r = d->v[b].size, c = d->v[a].size;
    for (size_t i = 0; i < r; i++)
      for (size_t j = 0; j < c; j++) J[(ro[b] + i) * n + co[a] + j] += x->m[s][i + j * r];
  }
  ade__free(co);
  return ADE_OK;
}

int ade_mplan_execute(const ade_mplan *p, const ade_mission *d, const ade_mission_fns *f, double *J,
                      uint64_t *products) {
  if (!p || !d || !f || !J || !f->tangent || !f->adjoint)
    return ade__fail(ADE_EINVAL, "ade_mplan_execute: NULL argument");
  if (ade_mplan_method(p) <= ADE_MISSION_DENSE_ADJOINT)
    return ade__fail(ADE_EINVAL, "ade_mplan_execute: a dense-mode plan has no operations");
  for (int k = 0; k < d->ne; k++)
    if (d->e[k].jac && !f->jacobian) return ade__fail(ADE_EINVAL, "ade_mplan_execute: no jacobian callback");
  exec x = {p, d, f, NULL, 0, 0};
  while (ade_mplan_slot_path(p, x.n, NULL)) x.n++;
  if (x.n < d->ne || ade_mplan_slot_elemental(p, d->ne - 1) != d->ne - 1)
    return ade__fail(ADE_EINVAL, "ade_mplan_execute: the plan is not of this DAG");
  x.m = ade__calloc((size_t)x.n, sizeof *x.m);
  int rc = x.m ? run(&x) : ade__fail(ADE_ENOMEM, "plan execution: out of memory");
  if (!rc) rc = assemble(&x, J);
  for (int s = 0; x.m && s < x.n; s++) ade__free(x.m[s]);
  ade__free(x.m);
  if (products) *products = x.products;
  return rc;
}
