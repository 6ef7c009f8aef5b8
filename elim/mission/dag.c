/* dag.c: the mission DAG of vector elementals: building, validation, bounds. */
#include <inttypes.h>
#include <stdlib.h>

#include "mission_internal.h"

int ade_mission_create(ade_mission **d) {
  if (!d) return ade__fail(ADE_EINVAL, "ade_mission_create: NULL argument");
  *d = ade__calloc(1, sizeof **d);
  return *d ? ADE_OK : ade__fail(ADE_ENOMEM, "ade_mission_create: out of memory");
}

void ade_mission_free(ade_mission *d) {
  if (!d) return;
  for (int i = 0; i < d->nv; i++) ade__free(d->v[i].id);
  for (int k = 0; k < d->ne; k++) ade__free(d->e[k].id);
  ade__free(d->v);
  ade__free(d->e);
  ade__free(d->topo);
  ade__free(d->outp);
  ade__free(d->oute);
  if (d->tp) d->tp_free(d->tp);
  ade__free(d);
}

void ade_mission_size(const ade_mission *d, int *nvars, int *nelementals) {
  if (nvars) *nvars = d ? d->nv : 0;
  if (nelementals) *nelementals = d ? d->ne : 0;
}

int ade_mission_var(const ade_mission *d, int i, const char **id, uint64_t *size) {
  if (!d || i < 0 || i >= d->nv) return ade__fail(ADE_EINVAL, "ade_mission_var: no variable %d", i);
  if (id) *id = d->v[i].id;
  if (size) *size = d->v[i].size;
  return ADE_OK;
}

int ade_mission_elemental(const ade_mission *d, int k, const char **id, int *src, int *dst, uint64_t *tangent_cost,
                          uint64_t *adjoint_cost) {
  if (!d || k < 0 || k >= d->ne) return ade__fail(ADE_EINVAL, "ade_mission_elemental: no elemental %d", k);
  const ade__melem *e = &d->e[k];
  if (id) *id = e->id;
  if (src) *src = e->src;
  if (dst) *dst = e->dst;
  if (tangent_cost) *tangent_cost = e->tan;
  if (adjoint_cost) *adjoint_cost = e->adj;
  return ADE_OK;
}

/* Room for one more item in an array of *cap items of size sz. */
static int grow(void **p, int *cap, int n, size_t sz) {
  if (n < *cap) return ADE_OK;
  int nc = *cap ? 2 * *cap : 16;
  void *q = ade__realloc(*p, ade__mul_size((size_t)nc, sz));
  if (!q) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  *p = q;
  *cap = nc;
  return ADE_OK;
}

/* Names are 1..64 letters, digits and _ . : + - (printed unquoted in
 * plans, DOT and GraphML). */
int ade__mission_id_ok(const char *id) {
  size_t n = strlen(id);
  if (n < 1 || n > 64) return 0;
  for (; *id; id++)
    if (!((*id >= 'a' && *id <= 'z') || (*id >= 'A' && *id <= 'Z') || (*id >= '0' && *id <= '9') ||
          strchr("_.:+-", *id)))
      return 0;
  return 1;
}

int ade_mission_add_var(ade_mission *d, const char *id, uint64_t size, int *index) {
  if (!d || !id) return ade__fail(ADE_EINVAL, "ade_mission_add_var: NULL argument");
  if (!ade__mission_id_ok(id)) return ade__fail(ADE_EINVAL, "variable id: 1..64 characters of A-Z a-z 0-9 _ . : + -");
  if (size < 1 || size > ADE__M_MAXSIZE)
    return ade__fail(ADE_EINVAL, "variable '%s': size %" PRIu64 " not in 1..%u", id, size, ADE__M_MAXSIZE);
  if (d->nv >= ADE__M_MAXVARS) return ade__fail(ADE_ETOOBIG, "more than %d variables", ADE__M_MAXVARS);
  for (int i = 0; i < d->nv; i++)
    if (strcmp(d->v[i].id, id) == 0) return ade__fail(ADE_EINVAL, "variable '%s' defined twice", id);
  if (grow((void **)&d->v, &d->capv, d->nv, sizeof *d->v)) return ADE_ENOMEM;
  char *s = ade__strdup(id);
  if (!s) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  d->v[d->nv] = (ade__mvar){s, size, 0, 0};
  if (index) *index = d->nv;
  d->nv++;
  d->checked = 0;
  return ADE_OK;
}

/* The checks of one new elemental, before anything changes. */
static int elem_ok(const ade_mission *d, const char *id, int src, int dst, uint64_t tc, uint64_t ac,
                   int jac, int model) {
  if (src < 0 || dst < 0 || src >= d->nv || dst >= d->nv)
    return ade__fail(ADE_EINVAL, "elemental '%s': no such variable", id);
  if (src == dst) return ade__fail(ADE_EINVAL, "elemental '%s': a self loop on '%s'", id, d->v[src].id);
  if (!jac && !model) return ade__fail(ADE_EINVAL, "elemental '%s': neither a Jacobian nor a model", id);
  if (tc > ADE__M_MAXCOST || ac > ADE__M_MAXCOST)
    return ade__fail(ADE_EINVAL, "elemental '%s': a cost above %u", id, ADE__M_MAXCOST);
  if (d->ne >= ADE__M_MAXELEMS) return ade__fail(ADE_ETOOBIG, "more than %d elementals", ADE__M_MAXELEMS);
  for (int k = 0; k < d->ne; k++)
    if (d->e[k].src == src && d->e[k].dst == dst)
      return ade__fail(ADE_EINVAL, "elemental '%s': a second edge '%s' -> '%s'", id, d->v[src].id,
                       d->v[dst].id);
  return ADE_OK;
}

int ade_mission_add_elemental(ade_mission *d, const char *id, int src, int dst, uint64_t tangent_cost,
                              uint64_t adjoint_cost, int has_jacobian, int has_model) {
  char name[32];
  if (!d) return ade__fail(ADE_EINVAL, "ade_mission_add_elemental: NULL argument");
  if (id && !ade__mission_id_ok(id))
    return ade__fail(ADE_EINVAL, "elemental id: 1..64 characters of A-Z a-z 0-9 _ . : + -");
  if (!id) snprintf(name, sizeof name, "%d", d->ne);
  const char *nm = id ? id : name;
  int rc = elem_ok(d, nm, src, dst, tangent_cost, adjoint_cost, has_jacobian, has_model);
  if (rc) return rc;
  if (grow((void **)&d->e, &d->cape, d->ne, sizeof *d->e)) return ADE_ENOMEM;
  char *s = ade__strdup(nm);
  if (!s) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  d->e[d->ne++] = (ade__melem){s, src, dst, tangent_cost, adjoint_cost, !!has_jacobian, !!has_model};
  d->v[src].nout++;
  d->v[dst].nin++;
  d->checked = 0;
  return ADE_OK;
}

/* Out-edges as CSR: d->outp[i]..d->outp[i+1] index d->oute. */
static int build_out(ade_mission *d) {
  ade__free(d->outp);
  ade__free(d->oute);
  d->outp = ade__calloc((size_t)d->nv + 1, sizeof *d->outp);
  d->oute = ade__alloc(ade__mul_size((size_t)d->ne, sizeof *d->oute));
  if (!d->outp || !d->oute) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  for (int k = 0; k < d->ne; k++) d->outp[d->e[k].src + 1]++;
  for (int i = 0; i < d->nv; i++) d->outp[i + 1] += d->outp[i];
  for (int k = 0; k < d->ne; k++) d->oute[d->outp[d->e[k].src]++] = k; /* outp[i]: end of i */
  for (int i = d->nv; i > 0; i--) d->outp[i] = d->outp[i - 1];
  d->outp[0] = 0;
  return ADE_OK;
}

/* Kahn's algorithm; a variable left over is on a cycle or after one. */
static int topo_sort(ade_mission *d, int *order) {
  int *deg = ade__calloc((size_t)d->nv, sizeof *deg), n = 0, head = 0;
  if (!deg) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  for (int i = 0; i < d->nv; i++) deg[i] = d->v[i].nin;
  for (int i = 0; i < d->nv; i++)
    if (!deg[i]) order[n++] = i;
  while (head < n) {
    int x = order[head++];
    for (int q = d->outp[x]; q < d->outp[x + 1]; q++)
      if (--deg[d->e[d->oute[q]].dst] == 0) order[n++] = d->e[d->oute[q]].dst;
  }
  int bad = -1;
  for (int i = 0; i < d->nv && bad < 0; i++)
    if (deg[i]) bad = i;
  ade__free(deg);
  if (bad >= 0) return ade__fail(ADE_ECYCLE, "mission DAG: variable '%s' is on a cycle", d->v[bad].id);
  return ADE_OK;
}

/* Union-find root with path halving. */
static int root(int *up, int x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

static int connected(const ade_mission *d) {
  int *up = ade__alloc(ade__mul_size((size_t)d->nv, sizeof *up)), bad = -1;
  if (!up) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  for (int i = 0; i < d->nv; i++) up[i] = i;
  for (int k = 0; k < d->ne; k++) up[root(up, d->e[k].src)] = root(up, d->e[k].dst);
  for (int i = 1; i < d->nv && bad < 0; i++)
    if (root(up, i) != root(up, 0)) bad = i;
  ade__free(up);
  if (bad >= 0)
    return ade__fail(ADE_EINVAL, "mission DAG: variable '%s' is not connected to '%s' (plan each part alone)",
                     d->v[bad].id, d->v[0].id);
  return ADE_OK;
}

int ade__mission_check(ade_mission *d) {
  if (!d) return ade__fail(ADE_EINVAL, "mission DAG: NULL argument");
  if (d->checked) return ADE_OK;
  if (!d->ne) return ade__fail(ADE_EINVAL, "mission DAG: no elementals");
  int rc = connected(d);
  if (rc) return rc;
  if ((rc = build_out(d))) return rc;
  int *order = ade__alloc(ade__mul_size((size_t)d->nv, sizeof *order));
  if (!order) return ade__fail(ADE_ENOMEM, "mission DAG: out of memory");
  if ((rc = topo_sort(d, order))) {
    ade__free(order);
    return rc;
  }
  ade__free(d->topo);
  d->topo = order;
  d->checked = 1;
  return ADE_OK;
}

int ade_mission_check(ade_mission *d) { return ade__mission_check(d); }

/* minup[j]: the least size among j and its ancestors (in topological
 * order); mindown likewise over descendants (reverse order). */
int ade__mctx_init(ade__mctx *c, const ade_mission *d) {
  size_t n = (size_t)d->nv;
  c->d = d;
  c->minup = ade__alloc(ade__mul_size(n, sizeof *c->minup));
  c->mindown = ade__alloc(ade__mul_size(n, sizeof *c->mindown));
  c->pos = ade__alloc(ade__mul_size(n, sizeof *c->pos));
  c->upstrict = ade__alloc(ade__mul_size(n, sizeof *c->upstrict));
  c->downstrict = ade__alloc(ade__mul_size(n, sizeof *c->downstrict));
  c->acc = ade__alloc(ade__mul_size((size_t)d->ne + 1, sizeof *c->acc));
  c->use = ade__alloc(ade__mul_size((size_t)d->ne + 1, sizeof *c->use));
  c->inset = ade__calloc(n + 1, sizeof *c->inset);
  c->outset = ade__calloc(n + 1, sizeof *c->outset);
  if (!c->minup || !c->mindown || !c->pos || !c->upstrict || !c->downstrict || !c->acc || !c->use || !c->inset ||
      !c->outset) {
    ade__mctx_free(c);
    return ade__fail(ADE_ENOMEM, "mission planner: out of memory");
  }
  for (size_t i = 0; i < n; i++) c->minup[i] = c->mindown[i] = d->v[i].size;
  for (int t = 0; t < d->nv; t++) c->pos[d->topo[t]] = t;
  for (int t = 0; t < d->nv; t++) {
    int x = d->topo[t];
    for (int q = d->outp[x]; q < d->outp[x + 1]; q++) {
      uint64_t *m = &c->minup[d->e[d->oute[q]].dst];
      *m = ADE__MIN(*m, c->minup[x]);
    }
  }
  for (int t = d->nv - 1; t >= 0; t--) {
    int x = d->topo[t];
    for (int q = d->outp[x]; q < d->outp[x + 1]; q++)
      c->mindown[x] = ADE__MIN(c->mindown[x], c->mindown[d->e[d->oute[q]].dst]);
  }
  for (size_t i = 0; i < n; i++) c->upstrict[i] = c->downstrict[i] = UINT64_MAX;
  for (int k = 0; k < d->ne; k++) {
    uint64_t *u = &c->upstrict[d->e[k].dst], *w = &c->downstrict[d->e[k].src];
    *u = ADE__MIN(*u, c->minup[d->e[k].src]);
    *w = ADE__MIN(*w, c->mindown[d->e[k].dst]);
  }
  int nin = 0, nout = 0;
  for (int t = 0; t < d->nv; t++) nin += !d->v[t].nin, nout += !d->v[t].nout;
  for (int t = 0, q = 0, r = 0; t < d->nv && nin <= 64 && nout <= 64; t++) {
    int x = d->topo[t], y = d->topo[d->nv - 1 - t];
    if (!d->v[x].nin) c->inset[x] |= (uint64_t)1 << q++;
    for (int p = d->outp[x]; p < d->outp[x + 1]; p++) c->inset[d->e[d->oute[p]].dst] |= c->inset[x];
    if (!d->v[y].nout) c->outset[y] |= (uint64_t)1 << r++;
    for (int p = d->outp[y]; p < d->outp[y + 1]; p++) c->outset[y] |= c->outset[d->e[d->oute[p]].dst];
  }
  for (int k = 0; k < d->ne; k++) {
    const ade__melem *e = &d->e[k];
    uint64_t t = ade__smul(d->v[e->src].size, e->tan), a = ade__smul(d->v[e->dst].size, e->adj);
    c->acc[k] = e->model ? ADE__MIN(t, a) : UINT64_MAX;
    c->use[k] = ADE__MIN(c->acc[k], ade__smul(c->upstrict[e->src], e->tan));
    c->use[k] = ADE__MIN(c->use[k], ade__smul(c->downstrict[e->dst], e->adj));
  }
  return ADE_OK;
}

void ade__mctx_free(ade__mctx *c) {
  ade__free(c->minup);
  ade__free(c->mindown);
  ade__free(c->pos);
  ade__free(c->upstrict);
  ade__free(c->downstrict);
  ade__free(c->acc);
  ade__free(c->use);
  ade__free(c->inset);
  ade__free(c->outset);
  c->acc = c->use = c->inset = c->outset = NULL;
  c->upstrict = c->downstrict = NULL;
  c->minup = c->mindown = NULL;
  c->pos = NULL;
}
