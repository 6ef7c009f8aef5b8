/* elemental.c: vector elemental calls in sweeps: values and local Jacobians through the registered callbacks. */
#include <math.h>

#include "eval_internal.h"

/* The registered elemental of call b of view v; ADE_ENOTFOUND naming it
 * (or ADE_EFORMAT if its sizes differ) if this process lacks it. */
static int resolve(const ade_tape *t, const ade__view *v, const ade__eblk *b, const struct ade_elemental **e) {
  uint64_t rid = v->first + b->head + 1;
  if (b->name == UINT32_MAX)
    return ade__fail(ADE_ENOTFOUND, "op %llu: the elemental's name was lost with the footer (recovered tape)",
                     (unsigned long long)(rid - 1));
  const char *name = t->meta.strings[b->name];
  *e = ade__elem_lookup(name);
  if (!*e)
    return ade__fail(ADE_ENOTFOUND, "op %llu: elemental '%s' is not registered in this process "
                     "(ade_elemental_register)", (unsigned long long)(rid - 1), name);
  if ((*e)->n != b->n || (*e)->m != b->m)
    return ade__fail(ADE_EINVAL, "op %llu: elemental '%s' is called with %u inputs and %u outputs on the tape, "
                     "registered with %zu and %zu", (unsigned long long)(rid - 1), name, b->n, b->m, (*e)->n,
                     (*e)->m);
  return ADE_OK;
}

int ade__elem_ready(ade_tape *t) {
  if (!ade__tape_has_elementals(t)) return ADE_OK;
  int st = ade__tape_enames(t);
  for (size_t i = 0; !st && i < t->nenames; i++) {
    const ade__ename *k = &t->enames[i];
    if (k->name == UINT32_MAX)
      return ade__fail(ADE_ENOTFOUND, "the tape's elemental names were lost with its footer (recovered tape)");
    const char *name = t->meta.strings[k->name];
    const struct ade_elemental *e = ade__elem_lookup(name);
    if (!e)
      return ade__fail(ADE_ENOTFOUND, "elemental '%s' is not registered in this process (ade_elemental_register)",
                       name);
    if (e->n != k->n || e->m != k->m)
      return ade__fail(ADE_EINVAL, "elemental '%s' is called with %u inputs and %u outputs on the tape, registered "
                       "with %zu and %zu", name, k->n, k->m, e->n, e->m);
  }
  return st;
}

int ade__elem_check(const ade_tape *t, const ade__view *v) {
  const struct ade_elemental *e;
  for (size_t b = 0; b < v->nblk; b++) {
    int st = resolve(t, v, &v->blk[b], &e);
    if (st) return st;
  }
  return ADE_OK;
}

/* The elemental workspace of t: at least n doubles. */
static double *ework(ade_tape *t, size_t n) {
  if (n > t->eworkcap) {
    double *p = ade__realloc(t->ework, ade__mul_size(n, sizeof *p));
    if (!p) return NULL;
    t->ework = p;
    t->eworkcap = n;
  }
  return t->ework;
}

static int cb_fail(const struct ade_elemental *e, const ade__view *v, const ade__eblk *b, const char *what,
                   int rc) {
  return ade__fail(rc < 0 && strcmp(ade_errname(rc), "ADE_UNKNOWN") ? rc : ADE_EINVAL,
                   "op %llu: elemental '%s': the %s callback failed (status %d)",
                   (unsigned long long)(v->first + b->head), e->name, what, rc);
}

/* The call's inputs at V (NULL: the view's values). */
static void inputs(const ade__view *v, const ade__eblk *b, const double *V, double *x) {
  for (uint32_t j = 0; j < b->n; j++) {
    uint64_t id = v->xarg[b->xoff + j];
    x[j] = V && id ? V[id] : v->xargv[b->xoff + j];
  }
}

int ade__elem_primal(ade_tape *t, const ade__view *v, uint32_t bi, double *V) {
  const ade__eblk *b = &v->blk[bi];
  const struct ade_elemental *e;
  int st = resolve(t, v, b, &e);
  if (st) return st;
  double *x = ework(t, (size_t)b->n + b->m);
  if (!x) return ade__fail(ADE_ENOMEM, "out of memory for an elemental call");
  inputs(v, b, V, x);
  int rc = e->def.primal(e->def.ud, x, x + b->n);
  if (rc) return cb_fail(e, v, b, "primal", rc);
  memcpy(V + v->first + b->head + 1, x + b->n, b->m * sizeof *V);
  return ADE_OK;
}

/* J (m x n) by n tangents (columns) or m adjoints (rows); w: n + m doubles. */
static int jac_by_sweeps(const struct ade_elemental *e, const ade__view *v, const ade__eblk *b,
                         const double *x, double *J, double *w) {
  const size_t n = b->n, m = b->m;
  const int fwd = (double)n * (double)e->tcost <= (double)m * (double)e->acost;
  double *u = w, *r = w + (fwd ? n : m); /* seed, result */
  memset(u, 0, (fwd ? n : m) * sizeof *u);
  for (size_t k = 0; k < (fwd ? n : m); k++) {
    u[k] = 1.0;
    int rc = fwd ? e->def.tangent(e->def.ud, x, u, r) : e->def.adjoint(e->def.ud, x, u, r);
    u[k] = 0.0;
    if (rc) return cb_fail(e, v, b, fwd ? "tangent" : "adjoint", rc);
    for (size_t l = 0; l < (fwd ? m : n); l++) J[fwd ? l * n + k : k * n + l] = r[l];
  }
  return ADE_OK;
}

int ade__elem_jacobian(ade_tape *t, const ade__view *v, uint32_t bi, const double *V, const double **Jp) {
  const ade__eblk *b = &v->blk[bi];
  const struct ade_elemental *e;
  int st = resolve(t, v, b, &e);
  if (st) return st;
  size_t n = b->n, m = b->m, nm = n * m;
  double *w = ework(t, nm + 2 * (n + m));
  if (!w) return ade__fail(ADE_ENOMEM, "out of memory for the %zu x %zu Jacobian of elemental '%s'", m, n, e->name);
  double *J = w, *x = w + nm;
  inputs(v, b, V, x);
  if (e->def.jacobian) {
    int rc = e->def.jacobian(e->def.ud, x, J);
    if (rc) return cb_fail(e, v, b, "Jacobian", rc);
  } else if ((st = jac_by_sweeps(e, v, b, x, J, x + n))) {
    return st;
  }
  *Jp = J;
  return ADE_OK;
}

int ade__tape_elementals(ade_tape *t, ade__elemrec **out, size_t *nout) {
  *out = NULL;
  *nout = 0;
  int st = ade__tape_usable(t);
  size_t cap = 0, nid = 0, idcap = 0;
  ade__elemrec *r = NULL;
  uint64_t *ids = NULL;
  double *vals = NULL;
  size_t vcap = 0;
  for (size_t c = 0; !st && ade__tape_has_elementals(t) && c < t->meta.nchunks; c++) {
    if ((st = ade__view_load(t, c))) break;
    const ade__view *v = &t->view;
    for (size_t k = 0; !st && k < v->nblk; k++) {
      const ade__eblk *b = &v->blk[k];
      if (ade__grow((void **)&r, &cap, *nout + 1, sizeof *r) ||
          ade__grow((void **)&ids, &idcap, nid + b->n, sizeof *ids) ||
          ade__grow((void **)&vals, &vcap, nid + b->n, sizeof *vals)) {
        st = ade__fail(ADE_ENOMEM, "out of memory listing elementals");
        break;
      }
      const struct ade_elemental *e = b->name == UINT32_MAX ? NULL : ade__elem_lookup(t->meta.strings[b->name]);
      ade__elemrec *q = &r[(*nout)++];
      q->out = v->first + b->head + 1;
      q->n = b->n;
      q->m = b->m;
      q->in = (uint64_t *)(uintptr_t)nid; /* an offset until ids stop moving */
      q->name = b->name == UINT32_MAX ? NULL : t->meta.strings[b->name];
      q->def = e;
      q->tangent_cost = e ? e->tcost : 0;
      q->adjoint_cost = e ? e->acost : 0;
      memcpy(ids + nid, v->xarg + b->xoff, b->n * sizeof *ids);
      memcpy(vals + nid, v->xargv + b->xoff, b->n * sizeof *vals);
      nid += b->n;
    }
  }
  if (st) {
    ade__free(r);
    ade__free(ids);
    ade__free(vals);
    *nout = 0;
    return st;
  }
  for (size_t k = 0; k < *nout; k++)
    r[k].inv = vals + (size_t)(uintptr_t)r[k].in, r[k].in = ids + (size_t)(uintptr_t)r[k].in;
  if (r) r[0].ids = ids, r[0].vals = vals;
  else ade__free(ids), ade__free(vals);
  *out = r;
  return ADE_OK;
}

void ade__elemrecs_free(ade__elemrec *r) {
  if (r) ade__free(r[0].ids), ade__free(r[0].vals);
  ade__free(r);
}

int ade__tape_scalar(ade_tape *t, const char *what) {
  if (!ade__tape_has_elementals(t)) return ADE_OK;
  const char *name = NULL;
  for (size_t c = 0; !name && c < t->meta.nchunks && !ade__view_load(t, c); c++)
    if (t->view.nblk) name = t->view.blk[0].name == UINT32_MAX ? "(name lost)" : t->meta.strings[t->view.blk[0].name];
  return ade__fail(ADE_EUNSUPPORTED, "%s: elemental '%s' has no second derivatives or source code (the tape has "
                   "%llu elemental record(s)); first-order sweeps, Jacobians and plans handle them", what,
                   name ? name : "?", (unsigned long long)t->meta.opcount[ADE_OP_VECTOR_ELEMENTAL]);
}

/* Tangents through the call by its callbacks: p tangent calls, or its
 * Jacobian applied to the p input tangents, whichever the registered costs
 * make cheaper (an explicit Jacobian counts n m). */
int ade__elem_tangents(ade_tape *t, const ade__view *v, uint32_t bi, const double *V, size_t p, double *T) {
  const ade__eblk *b = &v->blk[bi];
  const struct ade_elemental *e;
  int st = resolve(t, v, b, &e);
  if (st) return st;
  const size_t n = b->n, m = b->m, out = v->first + b->head + 1;
  const double jcost = e->def.jacobian ? (double)n * (double)m
                                       : fmin((double)n * (double)e->tcost, (double)m * (double)e->acost);
  if ((double)p * (double)e->tcost > jcost) { /* T_out = J T_in */
    const double *J;
    if ((st = ade__elem_jacobian(t, v, bi, V, &J))) return st;
    for (size_t k = 0; k < m; k++)
      for (size_t l = 0; l < p; l++) {
        double s = 0.0;
        for (size_t j = 0; j < n; j++) {
          uint64_t id = v->xarg[b->xoff + j];
          if (id) s += J[k * n + j] * T[id * p + l];
        }
        T[(out + k) * p + l] = s;
      }
    return ADE_OK;
  }
  double *x = ework(t, 2 * n + m);
  if (!x) return ade__fail(ADE_ENOMEM, "out of memory for an elemental call");
  double *xd = x + n, *yd = xd + n;
  inputs(v, b, V, x);
  for (size_t l = 0; l < p; l++) {
    for (size_t j = 0; j < n; j++) {
      uint64_t id = v->xarg[b->xoff + j];
      xd[j] = id ? T[id * p + l] : 0.0;
    }
    int rc = e->def.tangent(e->def.ud, x, xd, yd);
    if (rc) return cb_fail(e, v, b, "tangent", rc);
    for (size_t k = 0; k < m; k++) T[(out + k) * p + l] = yd[k];
  }
  return ADE_OK;
}

/* One adjoint call: A[inputs] += A[outputs]^T f'(x) (dense adjoints by id). */
int ade__elem_adjoint1(ade_tape *t, const ade__view *v, uint32_t bi, const double *V, double *A) {
  const ade__eblk *b = &v->blk[bi];
  const struct ade_elemental *e;
  const double *yb = A + v->first + b->head + 1;
  int nz = 0;
  for (uint32_t k = 0; k < b->m; k++) nz |= yb[k] != 0.0;
  if (!nz) return ADE_OK;
  int st = resolve(t, v, b, &e);
  if (st) return st;
  double *x = ework(t, 2 * (size_t)b->n);
  if (!x) return ade__fail(ADE_ENOMEM, "out of memory for an elemental call");
  double *xb = x + b->n;
  inputs(v, b, V, x);
  int rc = e->def.adjoint(e->def.ud, x, yb, xb);
  if (rc) return cb_fail(e, v, b, "adjoint", rc);
  for (uint32_t j = 0; j < b->n; j++)
    if (v->xarg[b->xoff + j]) A[v->xarg[b->xoff + j]] += xb[j];
  return ADE_OK;
}
