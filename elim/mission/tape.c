/* tape.c: the mission DAG of a recorded tape's parts (regions and the scalar code between them), and plans executed on it. */
#include <stdio.h>
#include <stdlib.h>

#include "elim_internal.h"
#include "eval_internal.h"
#include "mission_internal.h"

/* A part's elemental F'(S, T): the edges of the tape's c-graph on paths
 * from the entries of source variable S into the part and on to the
 * entries of target T inside it, by source vertex (an order for tangents;
 * reversed, for adjoints). One sweep direction runs each edge once: |E|
 * multiply-adds, the elemental's tangent and adjoint cost. */
typedef struct telem {
  size_t nin, nout, nloc, ne;
  size_t *in, *out; /* local slots of S's and T's entries */
  size_t *es, *ed;  /* edge k: local slots of its ends */
  long *eid;        /* edge k: its number in the c-graph */
  /* An elemental call's part (call >= 0): its callbacks at the call's
   * inputs; jin[j]: input j's entry in S (ADE__NONE: another variable's or
   * a constant), kout[c]: T's entry c is output kout[c]. */
  long call;
  size_t *jin, *kout;
  uint64_t tan, adj;
  /* A selection (sel): a copy, entry es[k] of S to entry ed[k] of T for
   * k < ne (no edges, no multiply-adds): a call's gather or scatter. */
  int sel;
} telem;

struct ade__mtape {
  ade_cgraph *g;
  uint64_t records;
  size_t n, m;
  int ne;
  telem *el;
  double *lab; /* edge labels by number at the current point */
  double *w;   /* one direction of the largest elemental */
  size_t nw;
  size_t *row, nrow; /* output entry r (variables in order) -> the tape's dependent */
  uint64_t fma;      /* multiply-adds of the tangents and adjoints run */
  ade__elemrec *calls; /* the tape's elemental calls */
  size_t ncall;
  double *cx;          /* per call: its inputs' values at the current point (offsets: calls' inv) */
  double *cw;          /* workspace of the largest call: 2 (n + m) + n m doubles */
};

static void mtape_free(ade__mtape *tp) {
  if (!tp) return;
  for (int k = 0; k < tp->ne; k++) {
    telem *e = &tp->el[k];
    ade__free(e->in);
    ade__free(e->out);
    ade__free(e->es);
    ade__free(e->ed);
    ade__free(e->eid);
    ade__free(e->jin);
    ade__free(e->kout);
  }
  ade__elemrecs_free(tp->calls);
  ade__free(tp->cx);
  ade__free(tp->cw);
  ade__free(tp->el);
  ade_cgraph_free(tp->g);
  ade__free(tp->lab);
  ade__free(tp->w);
  ade__free(tp->row);
  ade__free(tp);
}

/* ------------------------------------------------------------- building */

typedef struct build {
  ade_mission *d;
  ade__mtape *tp;
  const ade_cgraph *g;
  size_t nv, ngrp;
  size_t *grp;           /* per vertex: its group (ADE__NONE: an independent) */
  int *var;              /* per vertex: the variable it is an entry of (-1: none) */
  size_t *gfirst, *mem;  /* members of group q: mem[gfirst[q] .. gfirst[q+1]), by index */
  int *gv, *gy;          /* group q's interface and output variables (-1: none) */
  size_t *vfirst, *vent; /* entries of variable i: vent[vfirst[i] .. vfirst[i+1]) */
  unsigned char *fw, *bw;
  size_t *loc;
  size_t *run;           /* per record id: its run (maximal stretch of one part) */
  size_t *rpart;         /* per run: its part */
  size_t *rcall;         /* per record id: its elemental call (ADE__NONE: scalar) */
  size_t *runcall;       /* per run: its call (ADE__NONE: scalar code) */
  size_t *v2i;           /* per record id: its c-graph vertex (ADE__NONE) */
  size_t cape;
  ade_tape *t;
} build;

static int oom(void) { return ade__fail(ADE_ENOMEM, "mission from a tape: out of memory"); }

/* Runs: consecutive records of one part; a region's records around a
 * nested one are two runs, so the runs' graph is acyclic. */
static int runs(build *b, ade_tape *t, int kind, uint64_t records) {
  size_t R = (size_t)records + 1, *part = ade__alloc(ade__mul_size(R, sizeof *part)), nr = 0;
  b->run = ade__alloc(ade__mul_size(R, sizeof *b->run));
  b->rpart = ade__alloc(ade__mul_size(R, sizeof *b->rpart));
  b->runcall = ade__alloc(ade__mul_size(R, sizeof *b->runcall));
  b->rcall = ade__alloc(ade__mul_size(R, sizeof *b->rcall));
  if (!part || !b->run || !b->rpart || !b->runcall || !b->rcall) {
    ade__free(part);
    return oom();
  }
  int st = ade_tape_parts(t, kind, part, R, NULL);
  for (size_t id = 0; id < R; id++) b->rcall[id] = ADE__NONE;
  for (size_t c = 0; c < b->tp->ncall; c++) /* each call is a run of its own */
    for (size_t k = 0; k < b->tp->calls[c].m && b->tp->calls[c].out + k < R; k++) b->rcall[b->tp->calls[c].out + k] = c;
  for (size_t id = 1; !st && id < R; id++) {
    if (id == 1 || part[id] != part[id - 1] || b->rcall[id] != b->rcall[id - 1])
      b->rpart[nr] = part[id], b->runcall[nr++] = b->rcall[id];
    b->run[id] = nr - 1;
  }
  ade__free(part);
  return st;
}

/* Groups: the runs holding a c-graph vertex, numbered in order. */
static int groups(build *b) {
  const ade_cgraph *g = b->g;
  size_t last = ADE__NONE;
  b->grp = ade__alloc(ade__mul_size(b->nv, sizeof *b->grp));
  b->gfirst = ade__calloc(b->nv + 2, sizeof *b->gfirst);
  b->mem = ade__alloc(ade__mul_size(b->nv + 1, sizeof *b->mem));
  if (!b->grp || !b->gfirst || !b->mem) return oom();
  size_t nm = 0;
  for (size_t v = 0; v < b->nv; v++) {
    b->grp[v] = ADE__NONE;
    if (!g->v[v].alive || g->v[v].kind == ADE__X) continue;
    if (g->v[v].id < 1 || (uint64_t)g->v[v].id > b->tp->records)
      return ade__fail(ADE_EINVAL, "mission from a tape: c-graph vertex %ld is no record", g->v[v].id);
    size_t r = b->run[g->v[v].id];
    if (r != last) b->gfirst[b->ngrp++] = nm, last = r;
    b->grp[v] = b->ngrp - 1;
    b->mem[nm++] = v;
  }
  b->gfirst[b->ngrp] = nm;
  return ADE_OK;
}

/* Group q's name: its elemental's or region's (characters outside the id
 * set as '_'), "top" for code in no region, then ".q". */
static void group_name(const build *b, ade_tape *t, size_t q, char *out, size_t cap) {
  size_t run = b->run[b->g->v[b->mem[b->gfirst[q]]].id], p = b->rpart[run], c = b->runcall[run];
  ade_region r = {0};
  char nm[48] = "top";
  if (c != ADE__NONE && b->tp->calls[c].name) r.name = b->tp->calls[c].name;
  else if (p == ADE_PART_NONE || ade_tape_region(t, p, &r) != ADE_OK) r.name = NULL;
  if (r.name && *r.name) {
    size_t i = 0;
    for (; r.name[i] && i + 1 < sizeof nm; i++) {
      char ch = r.name[i];
      int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("_.:+-", ch);
      nm[i] = ok ? ch : '_';
    }
    nm[i] = 0;
  }
  snprintf(out, cap, "%s.%zu", nm, q + 1);
}

/* 1 if member v of group q feeds another group. */
static int feeds_out(const build *b, size_t v, size_t q) {
  const ade__vtx *x = &b->g->v[v];
  for (size_t k = 0; k < x->nout; k++)
    if (b->grp[b->g->e[x->out[k]].dst] != q) return 1;
  return 0;
}

/* A variable of the entries vs[0..n) (vertex indices). */
static int add_var(build *b, const char *id, const size_t *vs, size_t n, int *index) {
  int st = ade_mission_add_var(b->d, id, n, index);
  if (st) return st;
  size_t at = b->vfirst[*index];
  for (size_t k = 0; k < n; k++) b->vent[at + k] = vs[k], b->var[vs[k]] = *index;
  b->vfirst[*index + 1] = at + n;
  return ADE_OK;
}

/* The input x (the independents in order), then per group its interface
 * (members feeding later groups) and its outputs (its dependents that
 * depend on an independent). */
static int variables(build *b, ade_tape *t) {
  const ade_cgraph *g = b->g;
  size_t *tmp = ade__alloc(ade__mul_size(b->nv + 1, 2 * sizeof *tmp));
  b->var = ade__alloc(ade__mul_size(b->nv, sizeof *b->var));
  b->vent = ade__alloc(ade__mul_size(b->nv + 1, sizeof *b->vent));
  b->vfirst = ade__calloc(2 * b->ngrp + 2, sizeof *b->vfirst);
  b->gv = ade__alloc(ade__mul_size(b->ngrp + 1, 2 * sizeof *b->gv));
  if (!tmp || !b->var || !b->vent || !b->vfirst || !b->gv) {
    ade__free(tmp);
    return oom();
  }
  b->gy = b->gv + b->ngrp + 1;
  for (size_t v = 0; v < b->nv; v++) b->var[v] = -1;
  int x, st = add_var(b, "x", g->xv, g->n, &x);
  char id[64];
  for (size_t q = 0; !st && q < b->ngrp; q++) {
    size_t nv = 0, ny = 0, *ys = tmp + b->nv + 1;
    b->gv[q] = b->gy[q] = -1;
    for (size_t k = b->gfirst[q]; k < b->gfirst[q + 1]; k++) {
      size_t v = b->mem[k];
      if (g->v[v].kind == ADE__Y && g->v[v].nin) ys[ny++] = v;
      else if (g->v[v].kind == ADE__Z && feeds_out(b, v, q)) tmp[nv++] = v;
    }
    group_name(b, t, q, id, sizeof id - 2);
    if (nv) st = add_var(b, id, tmp, nv, &b->gv[q]);
    strcat(id, ":y");
    if (!st && ny) st = add_var(b, id, ys, ny, &b->gy[q]);
  }
  ade__free(tmp);
  return st;
}

/* 1 if edge e enters group q's paths from S: from an entry of S, or from a
 * member reached from S. */
static int from_s(const build *b, size_t e, size_t q, int S) {
  size_t s = b->g->e[e].src;
  return b->grp[s] != q ? b->var[s] == S : b->fw[s];
}

/* Marks: fw, members reached from S; bw, members reaching T. */
static void mark(build *b, size_t q, int S, int T) {
  const ade_cgraph *g = b->g;
  for (size_t k = b->gfirst[q]; k < b->gfirst[q + 1]; k++) {
    const ade__vtx *x = &g->v[b->mem[k]];
    for (size_t i = 0; i < x->nin && !b->fw[b->mem[k]]; i++) b->fw[b->mem[k]] = (unsigned char)from_s(b, x->in[i], q, S);
  }
  for (size_t k = b->gfirst[q + 1]; k-- > b->gfirst[q];) {
    size_t v = b->mem[k];
    const ade__vtx *x = &g->v[v];
    b->bw[v] = b->var[v] == T;
    for (size_t i = 0; i < x->nout && !b->bw[v]; i++) {
      size_t o = g->e[x->out[i]].dst;
      b->bw[v] = b->grp[o] == q && b->bw[o];
    }
  }
}

static int by_src(const void *x, const void *y, void *ud) {
  const ade_cgraph *g = ud;
  size_t a = g->e[*(const size_t *)x].src, c = g->e[*(const size_t *)y].src;
  return (a > c) - (a < c);
}

/* The edges of F'(S, T) (edge slots, by source). */
static int edges_of(build *b, size_t q, int S, size_t *es, size_t *ne) {
  const ade_cgraph *g = b->g;
  *ne = 0;
  for (size_t k = b->gfirst[q]; k < b->gfirst[q + 1]; k++) {
    size_t v = b->mem[k];
    if (!b->fw[v] || !b->bw[v]) continue;
    for (size_t i = 0; i < g->v[v].nin; i++)
      if (from_s(b, g->v[v].in[i], q, S)) es[(*ne)++] = g->v[v].in[i];
  }
  qsort_r(es, *ne, sizeof *es, by_src, (void *)g);
  return ADE_OK;
}

/* Local slots: S's entries, then the members on its paths, then T's
 * entries not reached (they stay zero). */
static int slots(build *b, size_t q, int S, int T, telem *e) {
  size_t nl = 0;
  for (size_t k = b->vfirst[S]; k < b->vfirst[S + 1]; k++) b->loc[b->vent[k]] = nl++;
  for (size_t k = b->gfirst[q]; k < b->gfirst[q + 1]; k++)
    if (b->fw[b->mem[k]] && b->bw[b->mem[k]]) b->loc[b->mem[k]] = nl++;
  for (size_t k = b->vfirst[T]; k < b->vfirst[T + 1]; k++)
    if (b->loc[b->vent[k]] == ADE__NONE) b->loc[b->vent[k]] = nl++;
  e->nloc = nl;
  e->nin = b->vfirst[S + 1] - b->vfirst[S];
  e->nout = b->vfirst[T + 1] - b->vfirst[T];
  e->in = ade__alloc(ade__mul_size(e->nin, sizeof *e->in));
  e->out = ade__alloc(ade__mul_size(e->nout, sizeof *e->out));
  if (!e->in || !e->out) return oom();
  for (size_t k = 0; k < e->nin; k++) e->in[k] = b->loc[b->vent[b->vfirst[S] + k]];
  for (size_t k = 0; k < e->nout; k++) e->out[k] = b->loc[b->vent[b->vfirst[T] + k]];
  return ADE_OK;
}

static void unmark(build *b, size_t q, int S, int T) {
  for (size_t k = b->gfirst[q]; k < b->gfirst[q + 1]; k++) b->fw[b->mem[k]] = b->bw[b->mem[k]] = 0, b->loc[b->mem[k]] = ADE__NONE;
  for (size_t k = b->vfirst[S]; k < b->vfirst[S + 1]; k++) b->loc[b->vent[k]] = ADE__NONE;
  (void)T;
}

/* Call c's telem e (nin, nout set): its registered costs (0 counts as
 * 1), its maps. */
static int call_init(build *b, size_t c, telem *e) {
  const ade__elemrec *r = &b->tp->calls[c];
  if (!r->def)
    return ade__fail(ADE_ENOTFOUND, "mission from a tape: elemental '%s' is not registered in this process",
                     r->name ? r->name : "(name lost)");
  e->call = (long)c;
  e->tan = r->tangent_cost ? r->tangent_cost : 1;
  e->adj = r->adjoint_cost ? r->adjoint_cost : 1;
  if (e->tan > ADE__M_MAXCOST || e->adj > ADE__M_MAXCOST)
    return ade__fail(ADE_ETOOBIG, "mission from a tape: elemental '%s' costs %llu per tangent and %llu per adjoint "
                     "(at most %u)", r->name, (unsigned long long)e->tan, (unsigned long long)e->adj, ADE__M_MAXCOST);
  e->jin = ade__alloc(ade__mul_size(r->n + 1, sizeof *e->jin));
  e->kout = ade__alloc(ade__mul_size(e->nout + 1, sizeof *e->kout));
  return e->jin && e->kout ? ADE_OK : oom();
}

/* jin: input j's slot in S (b->loc of S's entries), ADE__NONE if it is
 * another variable's entry or a constant. */
static void call_inputs(build *b, const ade__elemrec *r, int S, telem *e) {
  for (size_t j = 0; j < r->n; j++) {
    size_t v = r->in[j] && r->in[j] <= b->tp->records ? b->v2i[r->in[j]] : ADE__NONE;
    e->jin[j] = v != ADE__NONE && b->var[v] == S ? b->loc[v] : ADE__NONE;
  }
}

/* kout (e: NULL, only checked): the output of T's entry k. */
static int call_outputs(build *b, const ade__elemrec *r, int T, telem *e) {
  for (size_t k = b->vfirst[T]; k < b->vfirst[T + 1]; k++) {
    long id = b->g->v[b->vent[k]].id;
    if (id < (long)r->out || (uint64_t)id >= r->out + r->m)
      return ade__fail(ADE_EINVAL, "mission from a tape: vertex %ld is no output of elemental '%s'", id, r->name);
    if (e) e->kout[k - b->vfirst[T]] = (size_t)id - r->out;
  }
  return ADE_OK;
}

/* Elemental S -> T of call c's group: S's local slots are still marked. */
static int call_elemental(build *b, size_t c, int S, int T, telem *e) {
  const ade__elemrec *r = &b->tp->calls[c];
  int st = call_init(b, c, e);
  if (!st) call_inputs(b, r, S, e), st = call_outputs(b, r, T, e);
  if (st) return st;
  return ade_mission_add_elemental(b->d, NULL, S, T, e->tan, e->adj, r->def->def.jacobian != NULL, 1);
}

/* Elemental S -> T of group q, if a path joins them. */
static int elemental(build *b, size_t q, int S, int T, size_t *buf) {
  size_t ne;
  mark(b, q, S, T);
  int st = edges_of(b, q, S, buf, &ne);
  if (st || !ne) {
    unmark(b, q, S, T);
    return st;
  }
  ade__mtape *tp = b->tp;
  if ((size_t)tp->ne == b->cape && ade__grow((void **)&tp->el, &b->cape, b->cape + 1, sizeof *tp->el)) st = oom();
  telem *e = st ? NULL : &tp->el[tp->ne];
  if (e) memset(e, 0, sizeof *e), tp->ne++;
  if (e) st = slots(b, q, S, T, e);
  if (!st) {
    e->ne = ne;
    e->es = ade__alloc(ade__mul_size(ne, sizeof *e->es));
    e->ed = ade__alloc(ade__mul_size(ne, sizeof *e->ed));
    e->eid = ade__alloc(ade__mul_size(ne, sizeof *e->eid));
    if (!e->es || !e->ed || !e->eid) st = oom();
  }
  for (size_t k = 0; !st && k < ne; k++) {
    const ade__edge *x = &b->g->e[buf[k]];
    e->es[k] = b->loc[x->src], e->ed[k] = b->loc[x->dst], e->eid[k] = x->id;
  }
  if (!st) tp->nw = ADE__MAX(tp->nw, e->nloc);
  size_t c = b->runcall[b->run[b->g->v[b->mem[b->gfirst[q]]].id]];
  if (!st && c == ADE__NONE) e->call = -1, st = ade_mission_add_elemental(b->d, NULL, S, T, ne, ne, 0, 1);
  else if (!st) st = call_elemental(b, c, S, T, e);
  if (st == ADE_EINVAL && ne > ADE__M_MAXCOST)
    st = ade__fail(ADE_ETOOBIG, "mission from a tape: elemental %s -> %s has %zu edges (at most %u)",
                   b->d->v[S].id, b->d->v[T].id, ne, ADE__M_MAXCOST);
  unmark(b, q, S, T);
  return st;
}

static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, c = *(const int *)y;
  return (a > c) - (a < c);
}

/* Group q's sources: the variables with an edge into it, ascending. */
static size_t sources(const build *b, size_t q, int *src) {
  const ade_cgraph *g = b->g;
  size_t n = 0;
  for (size_t k = b->gfirst[q]; k < b->gfirst[q + 1]; k++) {
    const ade__vtx *x = &g->v[b->mem[k]];
    for (size_t i = 0; i < x->nin; i++) {
      size_t s = g->e[x->in[i]].src;
      if (b->grp[s] != q) src[n++] = b->var[s];
    }
  }
  qsort(src, n, sizeof *src, cmp_int);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (!u || src[u - 1] != src[i]) src[u++] = src[i];
  return u;
}

/* A selection S -> T (costs 0, its 0/1 Jacobian given): T's entry dst[k]
 * is S's entry src[k], k < np. */
static int selection(build *b, int S, int T, const size_t *src, const size_t *dst, size_t np) {
  ade__mtape *tp = b->tp;
  if ((size_t)tp->ne == b->cape && ade__grow((void **)&tp->el, &b->cape, b->cape + 1, sizeof *tp->el)) return oom();
  telem *e = &tp->el[tp->ne++];
  memset(e, 0, sizeof *e);
  e->call = -1, e->sel = 1, e->ne = np;
  e->nin = (size_t)b->d->v[S].size, e->nout = (size_t)b->d->v[T].size;
  e->es = ade__alloc(ade__mul_size(np + 1, sizeof *e->es));
  e->ed = ade__alloc(ade__mul_size(np + 1, sizeof *e->ed));
  if (!e->es || !e->ed) return oom();
  memcpy(e->es, src, np * sizeof *src);
  memcpy(e->ed, dst, np * sizeof *dst);
  return ade_mission_add_elemental(b->d, NULL, S, T, 0, 0, 1, 1);
}

/* Call c's group q with inputs from several variables, or outputs in two:
 * the call as one elemental G -> H (G: its n inputs, H: its m outputs;
 * or the one source and target themselves), a selection S -> G per source
 * S and H -> T per output variable T. */
static int split_call(build *b, size_t q, size_t c, const int *src, size_t ns) {
  const ade__elemrec *r = &b->tp->calls[c];
  int T[2] = {b->gv[q], b->gy[q]}, nt = (T[0] >= 0) + (T[1] >= 0), G = src[0], H = T[0] >= 0 ? T[0] : T[1];
  size_t n = r->n, m = r->m, *ps = ade__alloc(ade__mul_size(n + m + 1, 2 * sizeof *ps)), *pd = ps ? ps + n + m + 1 : NULL;
  char id[72];
  int st = ps ? ADE_OK : oom();
  if (!st && ns > 1) group_name(b, b->t, q, id, 56), strcat(id, ":in"), st = ade_mission_add_var(b->d, id, n, &G);
  if (!st && nt > 1) group_name(b, b->t, q, id, 56), strcat(id, ":out"), st = ade_mission_add_var(b->d, id, m, &H);
  for (size_t i = 0; !st && ns > 1 && i < ns; i++) { /* the gathers: input j is entry ps of src[i] */
    size_t np = 0;
    for (size_t k = b->vfirst[src[i]]; k < b->vfirst[src[i] + 1]; k++) b->loc[b->vent[k]] = k - b->vfirst[src[i]];
    for (size_t j = 0; j < n; j++) {
      size_t v = r->in[j] && r->in[j] <= b->tp->records ? b->v2i[r->in[j]] : ADE__NONE;
      if (v != ADE__NONE && b->var[v] == src[i]) ps[np] = b->loc[v], pd[np++] = j;
    }
    for (size_t k = b->vfirst[src[i]]; k < b->vfirst[src[i] + 1]; k++) b->loc[b->vent[k]] = ADE__NONE;
    st = selection(b, src[i], G, ps, pd, np);
  }
  telem *e = NULL;
  if (!st && (size_t)b->tp->ne == b->cape && ade__grow((void **)&b->tp->el, &b->cape, b->cape + 1, sizeof *b->tp->el))
    st = oom();
  if (!st) e = &b->tp->el[b->tp->ne++], memset(e, 0, sizeof *e);
  if (e) e->nin = (size_t)b->d->v[G].size, e->nout = (size_t)b->d->v[H].size, st = call_init(b, c, e);
  if (!st && ns > 1)
    for (size_t j = 0; j < n; j++) e->jin[j] = j;
  else if (!st) { /* one source S = G: input j is its entry jin[j] */
    for (size_t k = b->vfirst[G]; k < b->vfirst[G + 1]; k++) b->loc[b->vent[k]] = k - b->vfirst[G];
    call_inputs(b, r, G, e);
    for (size_t k = b->vfirst[G]; k < b->vfirst[G + 1]; k++) b->loc[b->vent[k]] = ADE__NONE;
  }
  if (!st && nt > 1)
    for (size_t k = 0; k < m; k++) e->kout[k] = k;
  else if (!st) st = call_outputs(b, r, H, e);
  if (!st) st = ade_mission_add_elemental(b->d, NULL, G, H, e->tan, e->adj, r->def->def.jacobian != NULL, 1);
  for (int i = 0; !st && nt > 1 && i < 2; i++) { /* the scatters: T's entry k is output pd[k] */
    size_t np = 0;
    for (size_t k = b->vfirst[T[i]]; k < b->vfirst[T[i] + 1]; k++)
      ps[np] = (size_t)b->g->v[b->vent[k]].id - r->out, pd[np] = np, np++;
    st = call_outputs(b, r, T[i], NULL);
    if (!st) st = selection(b, H, T[i], ps, pd, np);
  }
  ade__free(ps);
  return st;
}

static int elementals(build *b) {
  size_t ns, *buf = ade__alloc(ade__mul_size(b->g->eslots + 1, sizeof *buf));
  int *src = ade__alloc(ade__mul_size(b->g->eslots + 1, sizeof *src)), st = ADE_OK;
  b->fw = ade__calloc(b->nv + 1, 2);
  b->loc = ade__alloc(ade__mul_size(b->nv + 1, sizeof *b->loc));
  if (!buf || !src || !b->fw || !b->loc) st = oom();
  if (!st) b->bw = b->fw + b->nv + 1;
  for (size_t v = 0; !st && v < b->nv; v++) b->loc[v] = ADE__NONE;
  for (size_t q = 0; !st && q < b->ngrp; q++) {
    ns = sources(b, q, src);
    size_t c = b->runcall[b->run[b->g->v[b->mem[b->gfirst[q]]].id]];
    if (c != ADE__NONE && ns && (ns > 1 || (b->gv[q] >= 0 && b->gy[q] >= 0))) {
      st = split_call(b, q, c, src, ns);
      continue;
    }
    for (size_t i = 0; !st && i < ns; i++) {
      if (b->gv[q] >= 0) st = elemental(b, q, src[i], b->gv[q], buf);
      if (!st && b->gy[q] >= 0) st = elemental(b, q, src[i], b->gy[q], buf);
    }
  }
  ade__free(buf);
  ade__free(src);
  return st;
}

/* The tape's dependent of each output entry, and the workspaces. */
static int finish(build *b) {
  ade__mtape *tp = b->tp;
  tp->row = ade__alloc(ade__mul_size(b->g->m + 1, sizeof *tp->row));
  tp->lab = ade__alloc(ade__mul_size(b->g->nedges + 1, sizeof *tp->lab));
  tp->w = ade__alloc(ade__mul_size(tp->nw + 1, sizeof *tp->w));
  if (!tp->row || !tp->lab || !tp->w) return oom();
  size_t ncw = 0, nin = 0;
  for (size_t c = 0; c < tp->ncall; c++) ncw = ADE__MAX(ncw, 2 * (tp->calls[c].n + tp->calls[c].m)), nin += tp->calls[c].n;
  if (tp->ncall && (!(tp->cw = ade__alloc(ade__mul_size(ncw, sizeof *tp->cw))) ||
                    !(tp->cx = ade__alloc(ade__mul_size(nin + 1, sizeof *tp->cx)))))
    return oom();
  for (size_t q = 0; q < b->ngrp; q++)
    for (int y = b->gy[q], k = y >= 0 ? (int)b->vfirst[y] : 0; y >= 0 && k < (int)b->vfirst[y + 1]; k++)
      tp->row[tp->nrow++] = b->g->v[b->vent[k]].aux;
  if (!b->d->ne) return ade__fail(ADE_EINVAL, "mission from a tape: no dependent depends on an independent");
  return ade__mission_check(b->d);
}

static void build_free(build *b) {
  ade__free(b->grp);
  ade__free(b->var);
  ade__free(b->gfirst);
  ade__free(b->mem);
  ade__free(b->gv);
  ade__free(b->vfirst);
  ade__free(b->vent);
  ade__free(b->fw);
  ade__free(b->loc);
  ade__free(b->run);
  ade__free(b->rpart);
  ade__free(b->rcall);
  ade__free(b->runcall);
  ade__free(b->v2i);
}

int ade_mission_from_tape(ade_mission **dp, ade_tape *t, int kind) {
  if (!dp || !t) return ade__fail(ADE_EINVAL, "ade_mission_from_tape: NULL argument");
  *dp = NULL;
  ade_stats s;
  int st = ade_tape_stats(t, &s);
  if (!st && !s.complete) st = ade__fail(ADE_ESTATE, "ade_mission_from_tape: the tape is incomplete");
  build b = {.t = t};
  if (!st) st = ade_mission_create(&b.d);
  if (!st && !(b.tp = ade__calloc(1, sizeof *b.tp))) st = oom();
  if (!st) b.d->tp = b.tp, b.d->tp_free = mtape_free, st = ade_cgraph_from_tape(&b.tp->g, t, NULL);
  if (!st) {
    b.g = b.tp->g, b.nv = b.g->nv;
    b.tp->records = s.records, b.tp->n = b.g->n, b.tp->m = b.g->m;
    for (size_t v = 0; v < b.nv; v++) /* every edge runs up in index: an order for the sweeps */
      for (size_t k = 0; k < b.g->v[v].nout && !st; k++)
        if (b.g->e[b.g->v[v].out[k]].dst <= v) st = ade__fail(ADE_EINVAL, "mission from a tape: an edge runs back");
  }
  if (!st) st = ade__tape_elementals(t, &b.tp->calls, &b.tp->ncall);
  if (!st && !(b.v2i = ade__alloc(ade__mul_size((size_t)s.records + 1, sizeof *b.v2i)))) st = oom();
  for (size_t id = 0; !st && id <= (size_t)s.records; id++) b.v2i[id] = ADE__NONE;
  for (size_t v = 0; !st && v < b.nv; v++)
    if (b.g->v[v].alive && b.g->v[v].id >= 1 && (uint64_t)b.g->v[v].id <= s.records) b.v2i[b.g->v[v].id] = v;
  if (!st) st = runs(&b, t, kind, s.records);
  if (!st) st = groups(&b);
  if (!st && b.ngrp > ADE__M_MAXVARS / 2)
    st = ade__fail(ADE_ETOOBIG, "mission from a tape: %zu runs of parts (at most %d)", b.ngrp, ADE__M_MAXVARS / 2);
  if (!st) st = variables(&b, t);
  if (!st) st = elementals(&b);
  if (!st) st = finish(&b);
  build_free(&b);
  if (st) ade_mission_free(b.d);
  else *dp = b.d;
  return st;
}

/* ------------------------------------------------------------ execution */

/* Call c's inputs at the current point, its callbacks. */
static const double *call_x(const ade__mtape *tp, size_t c) { return tp->cx + (tp->calls[c].inv - tp->calls[0].vals); }

static int call_fail(const ade__elemrec *r, const char *what, int rc) {
  return ade__fail(rc < 0 && strcmp(ade_errname(rc), "ADE_UNKNOWN") ? rc : ADE_EINVAL,
                   "mission from a tape: elemental '%s': the %s callback failed (status %d)", r->name, what, rc);
}

/* Ydot += F' Xdot of a call's elemental: one tangent call per direction,
 * the inputs outside S seeded 0. */
static int c_tangent(ade__mtape *tp, const telem *e, size_t q, const double *xd, double *yd) {
  const ade__elemrec *r = &tp->calls[e->call];
  double *u = tp->cw, *o = u + r->n;
  for (size_t d = 0; d < q; d++) {
    for (size_t j = 0; j < r->n; j++) u[j] = e->jin[j] == ADE__NONE ? 0.0 : xd[e->jin[j] + d * e->nin];
    int rc = r->def->def.tangent(r->def->def.ud, call_x(tp, (size_t)e->call), u, o);
    if (rc) return call_fail(r, "tangent", rc);
    for (size_t c = 0; c < e->nout; c++) yd[c + d * e->nout] += o[e->kout[c]];
    tp->fma += e->tan;
  }
  return ADE_OK;
}

/* Xbar += F'^T Ybar of a call's elemental: one adjoint call per direction. */
static int c_adjoint(ade__mtape *tp, const telem *e, size_t q, const double *yb, double *xb) {
  const ade__elemrec *r = &tp->calls[e->call];
  double *u = tp->cw, *o = u + r->m;
  for (size_t d = 0; d < q; d++) {
    memset(u, 0, r->m * sizeof *u);
    for (size_t c = 0; c < e->nout; c++) u[e->kout[c]] = yb[c + d * e->nout];
    int rc = r->def->def.adjoint(r->def->def.ud, call_x(tp, (size_t)e->call), u, o);
    if (rc) return call_fail(r, "adjoint", rc);
    for (size_t j = 0; j < r->n; j++)
      if (e->jin[j] != ADE__NONE) xb[e->jin[j] + d * e->nin] += o[j];
    tp->fma += e->adj;
  }
  return ADE_OK;
}

/* Ydot += F' Xdot, one direction at a time over the part's edges. */
static int t_tangent(void *ud, int k, size_t q, const double *xd, double *yd) {
  ade__mtape *tp = ud;
  const telem *e = &tp->el[k];
  if (e->call >= 0) return c_tangent(tp, e, q, xd, yd);
  if (e->sel) { /* copies */
    for (size_t r = 0; r < q; r++)
      for (size_t j = 0; j < e->ne; j++) yd[e->ed[j] + r * e->nout] += xd[e->es[j] + r * e->nin];
    return ADE_OK;
  }
  double *w = tp->w;
  for (size_t r = 0; r < q; r++) {
    memset(w, 0, e->nloc * sizeof *w);
    for (size_t a = 0; a < e->nin; a++) w[e->in[a]] = xd[a + r * e->nin];
    for (size_t j = 0; j < e->ne; j++) w[e->ed[j]] += tp->lab[e->eid[j]] * w[e->es[j]];
    for (size_t c = 0; c < e->nout; c++) yd[c + r * e->nout] += w[e->out[c]];
  }
  tp->fma += (uint64_t)q * e->ne;
  return ADE_OK;
}

/* Xbar += F'^T Ybar, the edges backward. */
static int t_adjoint(void *ud, int k, size_t q, const double *yb, double *xb) {
  ade__mtape *tp = ud;
  const telem *e = &tp->el[k];
  if (e->call >= 0) return c_adjoint(tp, e, q, yb, xb);
  if (e->sel) {
    for (size_t r = 0; r < q; r++)
      for (size_t j = 0; j < e->ne; j++) xb[e->es[j] + r * e->nin] += yb[e->ed[j] + r * e->nout];
    return ADE_OK;
  }
  double *w = tp->w;
  for (size_t r = 0; r < q; r++) {
    memset(w, 0, e->nloc * sizeof *w);
    for (size_t c = 0; c < e->nout; c++) w[e->out[c]] = yb[c + r * e->nout];
    for (size_t j = e->ne; j-- > 0;) w[e->es[j]] += tp->lab[e->eid[j]] * w[e->ed[j]];
    for (size_t a = 0; a < e->nin; a++) xb[a + r * e->nin] += w[e->in[a]];
  }
  tp->fma += (uint64_t)q * e->ne;
  return ADE_OK;
}

/* The c-graph of elemental e's edges: S's entries with an out-edge as
 * independents, T's entries with an in-edge as dependents (each through a
 * unit edge from its slot, which may feed others), the rest intermediate;
 * ids: local slot + 1, dependent c: nloc + 1 + c. */
static int local_graph(const ade__mtape *tp, const telem *e, ade_cgraph **g, size_t *nx, size_t *ny, long *ids) {
  size_t ne = e->ne + e->nout, m = 0, n = 0;
  long *src = ade__alloc(ade__mul_size(ne + 1, 2 * sizeof *src)), *dst = src ? src + ne + 1 : NULL;
  double *val = ade__alloc(ade__mul_size(ne + 1, sizeof *val));
  unsigned char *has = ade__calloc(e->nloc + 1, 2);
  int st = src && val && has ? ADE_OK : oom();
  for (size_t j = 0; !st && j < e->ne; j++) {
    src[j] = (long)e->es[j] + 1, dst[j] = (long)e->ed[j] + 1, val[j] = tp->lab[e->eid[j]];
    has[e->es[j]] |= 1, has[e->ed[j]] |= 2; /* 1: an out-edge, 2: an in-edge */
  }
  size_t k = e->ne;
  long *xid = ids, *yid = ids + e->nin;
  for (size_t a = 0; !st && a < e->nin; a++)
    if (has[e->in[a]] & 1) xid[n++] = (long)e->in[a] + 1;
  for (size_t c = 0; !st && c < e->nout; c++)
    if (has[e->out[c]] & 2) {
      yid[m] = (long)(e->nloc + 1 + c);
      src[k] = (long)e->out[c] + 1, dst[k] = yid[m++], val[k++] = 1;
    }
  if (!st) st = ade_cgraph_from_edges(g, n, xid, m, yid, k, src, dst, val);
  *nx = n, *ny = m;
  ade__free(src);
  ade__free(val);
  ade__free(has);
  return st;
}

/* J := F'_k (n_T x n_S, column-major) by vertex elimination (Markowitz
 * order) of its edges' c-graph; the multiply-adds count in tp->fma. */
/* J := F'_k of a call's elemental by its Jacobian callback (no count), or
 * n_S tangents or n_T adjoints, whichever the registered costs make cheaper. */
static int c_jacobian(ade__mtape *tp, int k, double *J) {
  const telem *e = &tp->el[k];
  const ade__elemrec *r = &tp->calls[e->call];
  size_t nj = e->nout * e->nin, nid = ADE__MAX(e->nin, e->nout);
  memset(J, 0, nj * sizeof *J);
  double *w = ade__calloc(ade__mul_size(ADE__MAX(r->n * r->m, nid * nid + nj) + 1, 1), sizeof *w);
  if (!w) return oom();
  int st = ADE_OK;
  if (r->def->def.jacobian) {
    int rc = r->def->def.jacobian(r->def->def.ud, call_x(tp, (size_t)e->call), w);
    if (rc) st = call_fail(r, "Jacobian", rc);
    for (size_t c = 0; !st && c < e->nout; c++)
      for (size_t j = 0; j < r->n; j++)
        if (e->jin[j] != ADE__NONE) J[c + e->jin[j] * e->nout] += w[e->kout[c] * r->n + j];
  } else if ((double)e->nin * (double)e->tan <= (double)e->nout * (double)e->adj) {
    for (size_t a = 0; a < e->nin; a++) w[a + a * e->nin] = 1.0;
    st = c_tangent(tp, e, e->nin, w, J);
  } else {
    double *xb = w + e->nout * e->nout;
    for (size_t c = 0; c < e->nout; c++) w[c + c * e->nout] = 1.0;
    st = c_adjoint(tp, e, e->nout, w, xb);
    for (size_t c = 0; !st && c < e->nout; c++)
      for (size_t a = 0; a < e->nin; a++) J[c + a * e->nout] = xb[a + c * e->nin];
  }
  ade__free(w);
  return st;
}

static int t_jacobian(void *ud, int k, double *J) {
  ade__mtape *tp = ud;
  const telem *e = &tp->el[k];
  if (e->call >= 0) return c_jacobian(tp, k, J);
  if (e->sel) { /* the 0/1 matrix, no count */
    memset(J, 0, e->nout * e->nin * sizeof *J);
    for (size_t j = 0; j < e->ne; j++) J[e->ed[j] + e->es[j] * e->nout] = 1.0;
    return ADE_OK;
  }
  ade_cgraph *g = NULL;
  ade_elim_seq *seq = NULL;
  ade_sparse *S = NULL;
  size_t nx = 0, ny = 0;
  uint64_t cost = 0;
  long *ids = ade__alloc(ade__mul_size(e->nin + e->nout + 1, sizeof *ids));
  int st = ids ? local_graph(tp, e, &g, &nx, &ny, ids) : oom();
  if (!st) st = ade_elim_order(g, ADE_ORDER_VERTEX_MARKOWITZ, &seq);
  if (!st) st = ade_seq_apply(g, seq, &cost);
  if (!st) st = ade_cgraph_jacobian(g, &S);
  if (!st) {
    memset(J, 0, e->nout * e->nin * sizeof *J);
    size_t *row = ade__alloc(ade__mul_size(ny + nx + 1, sizeof *row)), *col = row ? row + ny : NULL;
    if (!row) st = oom();
    for (size_t r = 0; !st && r < ny; r++) row[r] = (size_t)(ids[e->nin + r] - (long)e->nloc - 1);
    for (size_t a = 0, c = 0; !st && a < e->nin; a++) /* the columns kept, in order */
      if (c < nx && ids[c] == (long)e->in[a] + 1) col[c++] = a;
    for (size_t r = 0; !st && r < S->m; r++)
      for (size_t q = S->rowptr[r]; q < S->rowptr[r + 1]; q++) J[row[r] + col[S->col[q]] * e->nout] = S->val[q];
    ade__free(row);
  }
  tp->fma += cost;
  ade_sparse_free(S);
  ade_seq_free(seq);
  ade_cgraph_free(g);
  ade__free(ids);
  return st;
}

int ade_mission_tape_fns(ade_mission *d, ade_tape *t, const double *x, ade_mission_fns *f) {
  if (!d || !t || !f) return ade__fail(ADE_EINVAL, "ade_mission_tape_fns: NULL argument");
  ade__mtape *tp = d->tp;
  if (!tp || tp->ne != d->ne) return ade__fail(ADE_EINVAL, "ade_mission_tape_fns: the mission is not a tape's");
  ade_stats s;
  int st = ade_tape_stats(t, &s);
  if (st) return st;
  if (s.records != tp->records || s.independents != tp->n || s.dependents != tp->m)
    return ade__fail(ADE_EINVAL, "the mission was built from a tape of %llu records, not %llu",
                     (unsigned long long)tp->records, (unsigned long long)s.records);
  st = ade__cgraph_labels_at(t, tp->g, x, tp->lab);
  if (st < 0) return st;
  if (tp->ncall) { /* the calls' inputs: recorded, or replayed at x */
    const ade__elemrec *r = tp->calls;
    size_t nin = (size_t)(r[tp->ncall - 1].inv - r[0].vals) + r[tp->ncall - 1].n;
    if (!x) {
      memcpy(tp->cx, r[0].vals, nin * sizeof *tp->cx);
    } else {
      double *V = ade__alloc(ade__mul_size((size_t)tp->records + 1, sizeof *V));
      ade_tape *c = NULL;
      int rs = V ? ade__tape_borrow(t, &c) : oom();
      if (V && !rs) rs = ade__tape_release(t, c, ade__replay_values(c, x, V));
      for (size_t k = 0; rs >= 0 && k < tp->ncall; k++)
        for (size_t j = 0; j < r[k].n; j++)
          tp->cx[(size_t)(r[k].inv - r[0].vals) + j] = r[k].in[j] ? V[r[k].in[j]] : r[k].inv[j];
      ade__free(V);
      if (rs < 0) return rs;
    }
  }
  *f = (ade_mission_fns){t_tangent, t_adjoint, t_jacobian, tp};
  tp->fma = 0;
  return st;
}

uint64_t ade_mission_tape_fma(const ade_mission *d) { return d && d->tp ? d->tp->fma : 0; }

int ade_mission_tape_jacobian(const ade_mplan *p, ade_mission *d, ade_tape *t, const double *x, double *J,
                              uint64_t *fma) {
  if (!p || !d || !t || !J) return ade__fail(ADE_EINVAL, "ade_mission_tape_jacobian: NULL argument");
  ade_mission_fns f;
  int warn = ade_mission_tape_fns(d, t, x, &f);
  if (warn < 0) return warn;
  ade__mtape *tp = d->tp;
  double *Jm = ade__alloc(ade__mul_size(tp->nrow * tp->n + 1, sizeof *Jm));
  uint64_t products = 0;
  int st = Jm ? ade_mplan_execute(p, d, &f, Jm, &products) : oom();
  if (!st) {
    memset(J, 0, tp->m * tp->n * sizeof *J);
    for (size_t r = 0; r < tp->nrow; r++) memcpy(J + tp->row[r] * tp->n, Jm + r * tp->n, tp->n * sizeof *J);
    if (fma) *fma = tp->fma + products;
  }
  ade__free(Jm);
  return st ? st : warn;
}
