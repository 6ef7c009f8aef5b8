/* elemental.c: the per-process registry of vector elementals and recording their calls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "record_internal.h"

/* The registry: entries are never freed (a tape's sweep or a user's handle
 * may still point to one), only marked dead. A process registers a handful
 * of elementals, so a linear search under one lock is enough. It is
 * allocated with malloc, not through ade_set_allocator's hook: it lives as
 * long as the process, across allocator changes (a hook must never see a
 * block another allocator made). */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ade_elemental **reg;
static size_t nreg, regcap;

static struct ade_elemental *find_locked(const char *name) {
  for (size_t i = 0; i < nreg; i++)
    if (!strcmp(reg[i]->name, name)) return reg[i];
  return NULL;
}

const struct ade_elemental *ade__elem_lookup(const char *name) {
  pthread_mutex_lock(&reg_mu);
  struct ade_elemental *e = find_locked(name);
  pthread_mutex_unlock(&reg_mu);
  return e && atomic_load(&e->live) ? e : NULL;
}

static int check_def(const ade_elemental_def *d) {
  if (!d || !d->name || !d->name[0] || strlen(d->name) > 255)
    return ade__fail(ADE_EINVAL, "ade_elemental_register: NULL definition or a name of 0 or more than 255 bytes");
  if (d->n < 1 || d->m < 1 || d->n > ADE__ELEM_MAX || d->m > ADE__ELEM_MAX ||
      (uint64_t)d->n * d->m > ADE__ELEM_MAXJAC)
    return ade__fail(ADE_EINVAL, "ade_elemental_register: '%s' has %zu inputs and %zu outputs (1 .. %u each, "
                     "n * m at most %llu)", d->name, d->n, d->m, ADE__ELEM_MAX,
                     (unsigned long long)ADE__ELEM_MAXJAC);
  if (!d->primal || !d->tangent || !d->adjoint)
    return ade__fail(ADE_EINVAL, "ade_elemental_register: '%s' lacks its %s callback", d->name,
                     !d->primal ? "primal" : !d->tangent ? "tangent" : "adjoint");
  return ADE_OK;
}

/* A callback's status as an ADE_E code (negative codes pass through). */
static int cb_status(int rc) { return rc < 0 && strcmp(ade_errname(rc), "ADE_UNKNOWN") ? rc : ADE_EINVAL; }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds of one tangent (adj = 0) or adjoint direction: the fastest
 * of five calls at the probe point (at least 1). w: n + m + max(n, m). */
static int measure(const ade_elemental_def *d, int adj, double *w, uint64_t *cost) {
  double *x = w, *u = w + d->n, *r = u + (adj ? d->m : d->n);
  uint64_t best = UINT64_MAX;
  for (size_t j = 0; j < d->n; j++) x[j] = d->probe ? d->probe[j] : 1.0;
  for (size_t j = 0; j < (adj ? d->m : d->n); j++) u[j] = 1.0;
  for (int k = 0; k < 5; k++) {
    uint64_t t0 = now_ns();
    int rc = adj ? d->adjoint(d->ud, x, u, r) : d->tangent(d->ud, x, u, r);
    uint64_t dt = now_ns() - t0;
    if (rc) return ade__fail(cb_status(rc), "elemental '%s': the %s callback failed (status %d) while its cost "
                             "was measured", d->name, adj ? "adjoint" : "tangent", rc);
    if (dt < best) best = dt;
  }
  *cost = best ? best : 1;
  return ADE_OK;
}

static int costs(const ade_elemental_def *d, uint64_t *tc, uint64_t *ac) {
  *tc = d->tangent_cost;
  *ac = d->adjoint_cost;
  if (*tc && *ac) return ADE_OK;
  double *w = ade__alloc(ade__mul_size(d->n + d->m + ADE__MAX(d->n, d->m), sizeof *w));
  if (!w) return ade__fail(ADE_ENOMEM, "out of memory measuring elemental '%s'", d->name);
  int st = *tc ? ADE_OK : measure(d, 0, w, tc);
  if (!st && !*ac) st = measure(d, 1, w, ac);
  ade__free(w);
  return st;
}

static void fill(struct ade_elemental *e, const ade_elemental_def *d, uint64_t tc, uint64_t ac) {
  e->def = *d;
  e->def.name = e->name;
  e->def.probe = NULL;
  e->n = d->n;
  e->m = d->m;
  e->tcost = tc;
  e->acost = ac;
}

int ade_elemental_register(const ade_elemental_def *d, ade_elemental **out) {
  uint64_t tc, ac;
  if (out) *out = NULL;
  int st = check_def(d);
  if (!st) st = costs(d, &tc, &ac);
  if (st) return st;
  pthread_mutex_lock(&reg_mu);
  struct ade_elemental *e = find_locked(d->name);
  if (e && (e->n != d->n || e->m != d->m)) {
    st = ade__fail(ADE_EINVAL, "ade_elemental_register: '%s' is registered with %zu inputs and %zu outputs, "
                   "not %zu and %zu", d->name, e->n, e->m, d->n, d->m);
  } else if (!e) {
    e = calloc(1, sizeof *e);
    struct ade_elemental **r = nreg < regcap ? reg : realloc(reg, (2 * regcap + 16) * sizeof *reg);
    if (r && r != reg) reg = r, regcap = 2 * regcap + 16;
    if (!e || !r) {
      free(e);
      e = NULL;
      st = ade__fail(ADE_ENOMEM, "out of memory registering elemental '%s'", d->name);
    } else {
      memcpy(e->name, d->name, strlen(d->name) + 1);
      reg[nreg++] = e;
    }
  }
  if (!st) {
    fill(e, d, tc, ac);
    atomic_store(&e->live, 1);
    if (out) *out = e;
  }
  pthread_mutex_unlock(&reg_mu);
  return st;
}

int ade_elemental_unregister(const char *name) {
  if (!name) return ade__fail(ADE_EINVAL, "ade_elemental_unregister: NULL name");
  pthread_mutex_lock(&reg_mu);
  struct ade_elemental *e = find_locked(name);
  int was = e ? atomic_exchange(&e->live, 0) : 0;
  pthread_mutex_unlock(&reg_mu);
  return was ? ADE_OK : ade__fail(ADE_ENOTFOUND, "ade_elemental_unregister: no elemental '%s' is registered", name);
}

ade_elemental *ade_elemental_find(const char *name) {
  return name ? (ade_elemental *)ade__elem_lookup(name) : NULL;
}

int ade_elemental_info(const ade_elemental *e, const char **name, size_t *n, size_t *m, uint64_t *tangent_cost,
                       uint64_t *adjoint_cost) {
  if (!e) return ade__fail(ADE_EINVAL, "ade_elemental_info: NULL elemental");
  if (name) *name = e->name;
  if (n) *n = e->n;
  if (m) *m = e->m;
  if (tangent_cost) *tangent_cost = e->tcost;
  if (adjoint_cost) *adjoint_cost = e->acost;
  return atomic_load(&e->live) ? ADE_OK : ade__fail(ADE_ENOTFOUND, "elemental '%s' is not registered", e->name);
}

/* An error of a call: the message set, the recording tape failed (sticky). */
static int call_fail(ade_tape *t, int st) {
  if (t && t->w && !t->w->status) ade__record_error(t, st, "%s", ade_errmsg());
  return st;
}

/* y = f(x), recorded when some x is active and a tape records here. */
static int call(const ade_elemental *e, const ade_double *x, ade_double *y, double *xv, double *yv,
                const void *site) {
  ade_tape *t = ade__current();
  uint64_t any = 0;
  for (size_t j = 0; j < e->n; j++) {
    xv[j] = x[j].v;
    any |= x[j].id;
  }
  int rc = e->def.primal(e->def.ud, xv, yv);
  for (size_t k = 0; k < e->m; k++) y[k] = ade_passive(yv[k]);
  if (rc)
    return call_fail(t, ade__fail(cb_status(rc), "elemental '%s': the primal callback failed (status %d) while "
                                  "recording", e->name, rc));
  if (!any) return ADE_OK;
  if (!t) return ade__fail(ADE_ESTATE, "elemental '%s' called on active values while no tape records on this "
                           "thread", e->name);
  if (t->w->status) return t->w->status;
  int st = ade__append_elemental(t, e, x, yv, y, site);
  return st ? call_fail(t, st) : ADE_OK;
}

int ade_elemental_call(const ade_elemental *e, const ade_double *x, ade_double *y) {
  ade_tape *t = ade__current();
  if (!e || !x || !y) return call_fail(t, ade__fail(ADE_EINVAL, "ade_elemental_call: NULL argument"));
  if (!atomic_load(&e->live))
    return call_fail(t, ade__fail(ADE_ENOTFOUND, "ade_elemental_call: elemental '%s' is not registered", e->name));
  double *w = ade__alloc(ade__mul_size(e->n + e->m, sizeof *w));
  if (!w) return call_fail(t, ade__fail(ADE_ENOMEM, "out of memory calling elemental '%s'", e->name));
  int st = call(e, x, y, w, w + e->n, __builtin_return_address(0));
  ade__free(w);
  return st;
}

int ade__enames_add(const ade__view *v, ade__ename **l, size_t *n, size_t *cap, size_t chunk) {
  for (size_t b = 0; b < v->nblk; b++) {
    const ade__eblk *k = &v->blk[b];
    size_t i = 0;
    while (i < *n && (*l)[i].name != k->name) i++;
    if (i < *n && ((*l)[i].n != k->n || (*l)[i].m != k->m))
      return ade__fail(ADE_EFORMAT, "chunk %zu, op %llu: an elemental called with %u inputs and %u outputs, "
                       "earlier with %u and %u", chunk, (unsigned long long)(v->first + k->head), k->n, k->m,
                       (*l)[i].n, (*l)[i].m);
    if (i < *n) continue;
    if (ade__grow((void **)l, cap, *n + 1, sizeof **l)) return ade__fail(ADE_ENOMEM, "out of memory");
    (*l)[(*n)++] = (ade__ename){k->name, k->n, k->m};
  }
  return ADE_OK;
}

int ade__tape_enames(ade_tape *t) {
  int st = ADE_OK;
  for (size_t c = 0; !t->enames_set && c < t->meta.nchunks && !st; c++) {
    st = ade__view_load(t, c);
    if (!st) st = ade__enames_add(&t->view, &t->enames, &t->nenames, &t->enamecap, c);
  }
  if (st) t->nenames = 0;
  else t->enames_set = 1;
  return st;
}
