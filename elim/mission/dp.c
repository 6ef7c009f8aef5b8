/* dp.c: dynamic programming for generalized Jacobian chain products (single-path DAGs, Section 4.3). */
#include "mission_internal.h"

typedef struct chain {
  int q;             /* elementals F_1..F_q along the path */
  int *el;           /* el[t]: the elemental index of F_t (t = 1..q) */
  uint64_t *n;       /* n[t]: size of the variable after F_t (n[0]: the input) */
  uint64_t *cost;    /* cost[a * (q + 1) + b]: optimum for F_b ... F_a */
  int *how;          /* 0 leaf, -1 tangent of F_b, -2 adjoint of F_a, c > 0: product at c */
} chain;

#define AT(ch, a, b) ((size_t)(a) * (size_t)((ch)->q + 1) + (size_t)(b))

/* The path of a chain DAG, or ADE_EINVAL when d is not one. */
static int chain_path(const ade_mission *d, chain *ch) {
  if (d->ne != d->nv - 1) return ade__fail(ADE_EINVAL, "dp: the mission DAG is not a chain");
  for (int j = 0; j < d->nv; j++)
    if (d->v[j].nin > 1 || d->v[j].nout > 1) return ade__fail(ADE_EINVAL, "dp: the mission DAG is not a chain ('%s' branches)", d->v[j].id);
  int x = d->topo[0];
  ch->n[0] = d->v[x].size;
  for (int t = 1; t <= ch->q; t++) {
    int k = d->oute[d->outp[x]];
    ch->el[t] = k;
    x = d->e[k].dst;
    ch->n[t] = d->v[x].size;
  }
  return ADE_OK;
}

/* One interval [a, b]: the cheapest of extending [a, b-1] by tangents of
 * F_b, [a+1, b] by adjoints of F_a, or a product of two parts. */
static void interval(const ade_mission *d, chain *ch, int a, int b) {
  const ade__melem *fa = &d->e[ch->el[a]], *fb = &d->e[ch->el[b]];
  uint64_t best = UINT64_MAX, x;
  int how = 0;
  if (a == b) {
    best = fa->jac ? 0 : ADE__MIN(ade__smul(ch->n[a - 1], fa->tan), ade__smul(ch->n[a], fa->adj));
  } else {
    if (fb->model && (x = ade__sadd(ch->cost[AT(ch, a, b - 1)], ade__smul(ch->n[a - 1], fb->tan))) < best)
      best = x, how = -1;
    if (fa->model && (x = ade__sadd(ch->cost[AT(ch, a + 1, b)], ade__smul(ch->n[b], fa->adj))) < best)
      best = x, how = -2;
    for (int c = a; c < b; c++) {
      x = ade__sadd(ade__sadd(ch->cost[AT(ch, a, c)], ch->cost[AT(ch, c + 1, b)]),
                    ade__smul(ade__smul(ch->n[a - 1], ch->n[c]), ch->n[b]));
      if (x < best) best = x, how = c;
    }
  }
  ch->cost[AT(ch, a, b)] = best;
  ch->how[AT(ch, a, b)] = how;
}

/* Last result slot of an applied move (the ELI target). */
static int last_target(void *ud, const ade__mop *op) {
  if (op->kind == ADE__OP_ELI) *(int *)ud = op->c;
  return ADE_OK;
}

typedef struct emit_ctx {
  ade__ldag *g;
  const ade__mctx *c;
  ade__mseq *out;
  const chain *ch;
} emit_ctx;

static int apply(emit_ctx *e, ade__move m, int *result) {
  int rc = ade__move_apply(e->g, e->c, &m, last_target, result);
  return rc ? rc : ade__mseq_push(e->out, &m);
}

/* Build the moves of [a, b] on the line dag; *s gets the slot holding it. */
static int build(emit_ctx *e, int a, int b, int *s) {
  const chain *ch = e->ch;
  int how = ch->how[AT(ch, a, b)], base = e->g->nx + e->g->ny, x, y, rc;
  if (a == b) {
    *s = base + ch->el[a];
    return e->g->v[*s].jac ? ADE_OK : apply(e, (ade__move){*s, -1, ADE__ACC_MIN, 0}, s);
  }
  if (how == -1) {
    if ((rc = build(e, a, b - 1, &x))) return rc;
    return apply(e, (ade__move){x, base + ch->el[b], 0, 0}, s);
  }
  if (how == -2) {
    if ((rc = build(e, a + 1, b, &y))) return rc;
    return apply(e, (ade__move){base + ch->el[a], y, 0, 0}, s);
  }
  if ((rc = build(e, a, how, &x)) || (rc = build(e, how + 1, b, &y))) return rc;
  return apply(e, (ade__move){x, y, 0, 0}, s);
}

int ade__m_dp(ade__mrun *r, ade__mseq *out) {
  const ade_mission *d = r->c->d;
  chain ch = {d->ne, NULL, NULL, NULL, NULL};
  size_t q1 = (size_t)d->ne + 1;
  ch.el = ade__alloc(q1 * sizeof *ch.el);
  ch.n = ade__alloc(q1 * sizeof *ch.n);
  ch.cost = ade__alloc(ade__mul_size(q1 * q1, sizeof *ch.cost));
  ch.how = ade__alloc(ade__mul_size(q1 * q1, sizeof *ch.how));
  int rc = (!ch.el || !ch.n || !ch.cost || !ch.how) ? ade__fail(ADE_ENOMEM, "dp: out of memory") : ADE_OK;
  if (!rc && d->ne > 2000) rc = ade__fail(ADE_ETOOBIG, "dp: %d elementals (at most 2000)", d->ne);
  if (!rc) rc = chain_path(d, &ch);
  for (int len = 0; !rc && len < ch.q; len++)
    for (int a = 1; a + len <= ch.q; a++) interval(d, &ch, a, a + len);
  ade__ldag g;
  if (!rc && !(rc = ade__ldag_init(&g, r->c))) {
    emit_ctx e = {&g, r->c, out, &ch};
    int s;
    rc = build(&e, 1, ch.q, &s);
    ade__ldag_free(&g);
  }
  r->proven = !rc;
  ade__free(ch.el);
  ade__free(ch.n);
  ade__free(ch.cost);
  ade__free(ch.how);
  return rc;
}
