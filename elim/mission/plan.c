/* plan.c: mission plans: running a method, replaying its moves into operations, text and JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "mission_internal.h"

struct ade_mplan {
  int method, proven, limited;
  uint64_t cost, nodes;
  double seconds;
  ade_mplan_op *ops;
  size_t nops, capops;
  int base;             /* internal slot of elemental 0 (terminals come first) */
  int nelem, nvar;      /* of the DAG planned */
  int nslot, capslot;   /* public slots with paths */
  int *poff, *plen;     /* path of slot s: pool[poff[s] .. poff[s] + plen[s] - 1] */
  int *pool;
  size_t npool, cappool;
};

static const char *const method_names[] = {
#define ADE__MISSION_NAME(N, s) s,
    ADE_MISSION_METHOD_MAP(ADE__MISSION_NAME)
#undef ADE__MISSION_NAME
};

const char *ade_mission_method_name(int method) {
  return method >= 0 && method < ADE_MISSION_NMETHODS ? method_names[method] : NULL;
}

int ade_mission_method_parse(const char *name) {
  for (int m = 0; name && m < ADE_MISSION_NMETHODS; m++)
    if (strcmp(method_names[m], name) == 0) return m;
  return -1;
}

void ade_mission_limits_init(ade_mission_limits *l) {
  if (l) memset(l, 0, sizeof *l);
}

void ade_mplan_free(ade_mplan *p) {
  if (!p) return;
  ade__free(p->ops);
  ade__free(p->poff);
  ade__free(p->plen);
  ade__free(p->pool);
  ade__free(p);
}

uint64_t ade_mplan_cost(const ade_mplan *p) { return p ? p->cost : 0; }
int ade_mplan_proven(const ade_mplan *p) { return p ? p->proven : 0; }
int ade_mplan_method(const ade_mplan *p) { return p ? p->method : -1; }
double ade_mplan_seconds(const ade_mplan *p) { return p ? p->seconds : 0; }
uint64_t ade_mplan_nodes(const ade_mplan *p) { return p ? p->nodes : 0; }
int ade_mplan_limited(const ade_mplan *p) { return p ? p->limited : 0; }
size_t ade_mplan_num_ops(const ade_mplan *p) { return p ? p->nops : 0; }

const ade_mplan_op *ade_mplan_op_at(const ade_mplan *p, size_t i) {
  return p && i < p->nops ? &p->ops[i] : NULL;
}

const int *ade_mplan_slot_path(const ade_mplan *p, int s, int *len) {
  if (!p || s < 0 || s >= p->nslot) return NULL;
  if (len) *len = p->plen[s];
  return p->pool + p->poff[s];
}

int ade_mplan_slot_elemental(const ade_mplan *p, int s) {
  if (!p || s < 0 || s >= p->nslot) return -1;
  return s < p->nelem ? s : -1;
}

/* ------------------------------------------------------------- building */

static int grow_arr(void **a, size_t *cap, size_t n, size_t sz) {
  return ade__grow(a, cap, n + 1, sz) ? ade__fail(ADE_ENOMEM, "mission plan: out of memory") : ADE_OK;
}

/* Room in the path pool for need more variables. */
static int pool_room(ade_mplan *p, size_t need) {
  return grow_arr((void **)&p->pool, &p->cappool, p->npool + need - 1, sizeof *p->pool);
}

/* Slot s gets the path a followed by b without its first variable (b may
 * be NULL). a and b may point into the pool: the caller makes room first. */
static int add_path(ade_mplan *p, int s, const int *a, int la, const int *b, int lb) {
  size_t cap = (size_t)p->capslot;
  if (s != p->nslot) return ade__fail(ADE_EINVAL, "mission plan: slot %d out of order", s);
  if (grow_arr((void **)&p->poff, &cap, (size_t)s, sizeof *p->poff)) return ADE_ENOMEM;
  size_t cap2 = (size_t)p->capslot;
  if (grow_arr((void **)&p->plen, &cap2, (size_t)s, sizeof *p->plen)) return ADE_ENOMEM;
  p->capslot = (int)ADE__MIN(cap, cap2);
  size_t need = (size_t)la + (size_t)(lb > 0 ? lb - 1 : 0);
  if (p->npool + need > p->cappool) return ade__fail(ADE_ESTATE, "mission plan: no room for a path");
  p->poff[s] = (int)p->npool;
  p->plen[s] = (int)need;
  memcpy(p->pool + p->npool, a, (size_t)la * sizeof *a);
  if (lb > 1) memcpy(p->pool + p->npool + la, b + 1, (size_t)(lb - 1) * sizeof *b);
  p->npool += need;
  p->nslot++;
  return ADE_OK;
}

/* The operation sink of a replay: public slots, fill-in paths. */
static int record(void *ud, const ade__mop *op) {
  ade_mplan *p = ud;
  if (grow_arr((void **)&p->ops, &p->capops, p->nops, sizeof *p->ops)) return ADE_ENOMEM;
  ade_mplan_op o = {op->kind, op->mode, op->a - p->base, op->b < 0 ? -1 : op->b - p->base,
                    op->c < 0 ? -1 : op->c - p->base, op->fill, op->cost};
  if (op->kind == ADE__OP_ELI && op->fill) { /* room first: the paths it joins live in the pool */
    int rc = pool_room(p, (size_t)p->plen[o.a] + (size_t)p->plen[o.b]);
    if (!rc) rc = add_path(p, o.c, p->pool + p->poff[o.a], p->plen[o.a], p->pool + p->poff[o.b], p->plen[o.b]);
    if (rc) return rc;
  }
  p->ops[p->nops++] = o;
  return ADE_OK;
}

/* Replay moves on a fresh line dag into p's operations; p->cost is theirs. */
static int replay(ade_mplan *p, const ade__mctx *c, const ade__mseq *s) {
  ade__ldag g;
  int rc = ade__ldag_init(&g, c);
  if (rc) return rc;
  p->base = g.nx + g.ny;
  for (int k = 0; k < c->d->ne && !rc; k++) {
    int e[2] = {c->d->e[k].src, c->d->e[k].dst};
    rc = pool_room(p, 2);
    if (!rc) rc = add_path(p, k, e, 2, NULL, 0);
  }
  for (size_t i = 0; i < s->n && !rc; i++) rc = ade__move_apply(&g, c, &s->m[i], record, p);
  if (!rc && ade__ldag_has_face(&g)) rc = ade__fail(ADE_EINVAL, "mission plan: incomplete sequence");
  if (!rc) rc = ade__ldag_finish(&g, c, record, p);
  p->cost = g.cost;
  ade__ldag_free(&g);
  return rc;
}

/* The moves of a method into s (dense modes: only the cost). */
static int run_method(ade__mrun *r, int method, ade__mseq *s, uint64_t *dense) {
  switch (method) {
  case ADE_MISSION_DENSE_TANGENT: return ade__m_dense(r->c, 0, dense);
  case ADE_MISSION_DENSE_ADJOINT: return ade__m_dense(r->c, 1, dense);
  case ADE_MISSION_SPARSE_TANGENT: return ade__m_sparse(r, 0, s);
  case ADE_MISSION_SPARSE_ADJOINT: return ade__m_sparse(r, 1, s);
  case ADE_MISSION_GREEDY_MIN_FILL: return ade__m_greedy(r, 0, s);
  case ADE_MISSION_GREEDY_COST: return ade__m_greedy(r, 1, s);
  case ADE_MISSION_DP: return ade__m_dp(r, s);
  case ADE_MISSION_BNB: return ade__m_bnb(r, NULL, s);
  default: return ade__m_best(r, s);
  }
}

static int plan_with(ade_mplan *p, ade__mrun *r, int method) {
  ade__mseq s = {0};
  uint64_t dense = 0;
  int rc = run_method(r, method, &s, &dense);
  if (!rc && method <= ADE_MISSION_DENSE_ADJOINT) p->cost = dense;
  else if (!rc) rc = replay(p, r->c, &s);
  ade__mseq_free(&s);
  p->proven = r->proven;
  p->limited = r->limited;
  p->nodes = r->nodes;
  return rc;
}

int ade_mission_plan(ade_mission *d, int method, const ade_mission_limits *l, ade_mplan **pp) {
  ade_mission_limits none;
  if (!pp) return ade__fail(ADE_EINVAL, "ade_mission_plan: NULL plan");
  *pp = NULL;
  if (!ade_mission_method_name(method)) return ade__fail(ADE_EINVAL, "ade_mission_plan: unknown method %d", method);
  int rc = ade__mission_check(d);
  if (rc) return rc;
  if (!l) ade_mission_limits_init(&none), l = &none;
  ade__mctx c;
  if ((rc = ade__mctx_init(&c, d))) return rc;
  ade_mplan *p = ade__calloc(1, sizeof *p);
  if (!p) {
    ade__mctx_free(&c);
    return ade__fail(ADE_ENOMEM, "ade_mission_plan: out of memory");
  }
  p->method = method;
  p->nelem = d->ne;
  p->nvar = d->nv;
  ade__mrun r = {&c, l, ade__now(), 0, 0, 0, 0, 0};
  rc = plan_with(p, &r, method);
  p->seconds = ade__now() - r.t0;
  ade__mctx_free(&c);
  if (rc) ade_mplan_free(p);
  else *pp = p;
  return rc;
}

/* --------------------------------------------------------------- output */

static void put_path(FILE *f, const ade_mplan *p, const ade_mission *d, int s) {
  fputc('(', f);
  for (int k = 0; k < p->plen[s]; k++) fprintf(f, "%s%s", k ? " " : "", d->v[p->pool[p->poff[s] + k]].id);
  fputc(')', f);
}

static const char *const mode_names[] = {"TAN", "ADJ", "MUL"};
static const char *const kind_names[] = {"ACC", "ELI", "MRG"};

static void text_op(FILE *f, const ade_mplan *p, const ade_mission *d, const ade_mplan_op *o) {
  if (o->kind == ADE_MOP_ACC) {
    fprintf(f, "ACC %s ", mode_names[o->mode]);
    put_path(f, p, d, o->a);
  } else if (o->kind == ADE_MOP_ELI) {
    fprintf(f, "ELI %s ", mode_names[o->mode]);
    put_path(f, p, d, o->a);
    fputs(" ", f);
    put_path(f, p, d, o->b);
    fputs(o->fill ? " -> " : " += ", f);
    put_path(f, p, d, o->c);
  } else {
    fputs("MRG ", f);
    put_path(f, p, d, o->c);
    fputs(" += ", f);
    put_path(f, p, d, o->a);
  }
  fprintf(f, " %" PRIu64 "\n", o->cost);
}

/* d must be the DAG p was planned for (or one of the same shape). */
static int valid(const ade_mplan *p, const ade_mission *d, void *file) {
  return p && d && file && p->nelem == d->ne && p->nvar == d->nv;
}

int ade_mplan_write_text(const ade_mplan *p, const ade_mission *d, void *file) {
  FILE *f = file;
  if (!valid(p, d, file)) return ade__fail(ADE_EINVAL, "ade_mplan_write_text: bad argument");
  for (size_t i = 0; i < p->nops; i++) text_op(f, p, d, &p->ops[i]);
  fprintf(f, "%s cost: %" PRIu64 "%s\n", method_names[p->method], p->cost,
          p->proven ? " (proven optimal)" : "");
  return ferror(f) ? ade__fail(ADE_EIO, "writing the plan failed") : ADE_OK;
}

/* A JSON string of slot s's path: "0 1 2" (variable ids, quoted). */
static void json_path(FILE *f, const ade_mplan *p, const ade_mission *d, int s) {
  fputc('[', f);
  for (int k = 0; k < p->plen[s]; k++) {
    const char *id = d->v[p->pool[p->poff[s] + k]].id;
    fputs(k ? ", \"" : "\"", f);
    for (; *id; id++)
      if (*id == '"' || *id == '\\') fprintf(f, "\\%c", *id);
      else if ((unsigned char)*id < 0x20) fprintf(f, "\\u%04x", *id);
      else fputc(*id, f);
    fputc('"', f);
  }
  fputc(']', f);
}

static void json_op(FILE *f, const ade_mplan *p, const ade_mission *d, const ade_mplan_op *o) {
  fprintf(f, "    {\"op\": \"%s\"", kind_names[o->kind]);
  if (o->kind != ADE_MOP_MRG) fprintf(f, ", \"mode\": \"%s\"", mode_names[o->mode]);
  fputs(", \"a\": ", f);
  json_path(f, p, d, o->a);
  if (o->kind == ADE_MOP_ELI) fputs(", \"b\": ", f), json_path(f, p, d, o->b);
  if (o->kind != ADE_MOP_ACC) fputs(", \"target\": ", f), json_path(f, p, d, o->c);
  if (o->kind == ADE_MOP_ELI) fprintf(f, ", \"fill\": %s", o->fill ? "true" : "false");
  fprintf(f, ", \"cost\": %" PRIu64 "}", o->cost);
}

int ade_mplan_write_json(const ade_mplan *p, const ade_mission *d, void *file) {
  FILE *f = file;
  if (!valid(p, d, file)) return ade__fail(ADE_EINVAL, "ade_mplan_write_json: bad argument");
  fprintf(f, "{\n  \"method\": \"%s\",\n  \"cost\": %" PRIu64 ",\n  \"proven_optimal\": %s,\n",
          method_names[p->method], p->cost, p->proven ? "true" : "false");
  fprintf(f, "  \"seconds\": %.6f,\n  \"nodes\": %" PRIu64 ",\n  \"limited\": %s,\n  \"plan\": [",
          p->seconds, p->nodes, p->limited ? "true" : "false");
  for (size_t i = 0; i < p->nops; i++) {
    fputs(i ? ",\n" : "\n", f);
    json_op(f, p, d, &p->ops[i]);
  }
  fputs(p->nops ? "\n  ]\n}\n" : "]\n}\n", f);
  return ferror(f) ? ade__fail(ADE_EIO, "writing the plan failed") : ADE_OK;
}
