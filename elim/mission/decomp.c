/* decomp.c: decomposition of a mission DAG at cut variables into pieces, each planned once per distinct shape. */
#include <stdlib.h>

#include "mission_internal.h"

/* in[j]: j is an input of d. */
static int is_input(const ade_mission *d, int j) { return !d->v[j].nin; }

/* u[j] = 1 for c and its ancestors that are not inputs; 1 if c is a cut:
 * no edge leaves that set except from c, and c is no input or output. */
static int cut_set(const ade_mission *d, int c, unsigned char *u) {
  if (is_input(d, c) || !d->v[c].nout) return 0;
  memset(u, 0, (size_t)d->nv);
  u[c] = 1;
  for (int t = d->nv - 1; t >= 0; t--) { /* reverse topological: ancestors */
    int x = d->topo[t];
    if (is_input(d, x)) continue;
    for (int q = d->outp[x]; q < d->outp[x + 1] && !u[x]; q++)
      if (u[d->e[d->oute[q]].dst]) u[x] = 1;
  }
  for (int k = 0; k < d->ne; k++)
    if (u[d->e[k].src] && !u[d->e[k].dst] && d->e[k].src != c) return 0;
  /* and every other variable but the inputs descends from c */
  for (int t = 0; t < d->nv; t++) {
    int x = d->topo[t];
    if (u[x] == 1 || u[x] == 2) /* c's set or a descendant: mark what it reaches */
      for (int q = d->outp[x]; q < d->outp[x + 1]; q++)
        if (!u[d->e[d->oute[q]].dst] && (x == c || u[x] == 2)) u[d->e[d->oute[q]].dst] = 2;
  }
  for (int j = 0; j < d->nv; j++)
    if (!u[j] && !is_input(d, j)) return 0;
  for (int j = 0; j < d->nv; j++)
    if (u[j] == 2) u[j] = 0;
  return 1;
}

/* A piece: the elementals whose target lies in (U_k \ U_{k-1}). */
typedef struct piece {
  ade_mission *d;
  int *elem;      /* piece elemental -> elemental of the whole */
  int shape;      /* index of the first piece with the same shape */
  ade__mseq moves;
} piece;

static int add_piece_var(ade_mission *p, const ade_mission *d, int j, int *map) {
  if (map[j] >= 0) return ADE_OK;
  return ade_mission_add_var(p, d->v[j].id, d->v[j].size, &map[j]);
}

/* Build piece from the elementals k with owner[dst] == idx. */
static int build_piece(const ade_mission *d, const int *owner, int idx, piece *pc, int *map) {
  int rc = ade_mission_create(&pc->d), n = 0;
  pc->elem = ade__alloc(ade__mul_size((size_t)d->ne, sizeof *pc->elem));
  if (!rc && !pc->elem) rc = ade__fail(ADE_ENOMEM, "best: out of memory");
  for (int j = 0; j < d->nv; j++) map[j] = -1;
  for (int k = 0; k < d->ne && !rc; k++) {
    const ade__melem *e = &d->e[k];
    if (owner[e->dst] != idx) continue;
    if (!(rc = add_piece_var(pc->d, d, e->src, map)) && !(rc = add_piece_var(pc->d, d, e->dst, map)))
      rc = ade_mission_add_elemental(pc->d, e->id, map[e->src], map[e->dst], e->tan, e->adj, e->jac, e->model);
    if (!rc) pc->elem[n++] = k;
  }
  if (!rc) rc = ade__mission_check(pc->d);
  return rc;
}

/* Two pieces of the same shape: the same elementals, sizes and costs in order. */
static int same_shape(const piece *a, const piece *b) {
  const ade_mission *x = a->d, *y = b->d;
  if (x->nv != y->nv || x->ne != y->ne) return 0;
  for (int j = 0; j < x->nv; j++)
    if (x->v[j].size != y->v[j].size) return 0;
  for (int k = 0; k < x->ne; k++) {
    const ade__melem *e = &x->e[k], *f = &y->e[k];
    if (e->src != f->src || e->dst != f->dst || e->tan != f->tan || e->adj != f->adj || e->jac != f->jac ||
        e->model != f->model)
      return 0;
  }
  return 1;
}

/* Plan one piece by branch and bound within half the time left (all of
 * it goes to the whole when pieces are quick, as repeated ones are). */
static int plan_piece(ade__mrun *r, piece *pc) {
  ade__mctx c;
  ade_mission_limits l = *r->lim;
  int rc = ade__mctx_init(&c, pc->d);
  if (rc) return rc;
  double now = ade__now();
  if (l.time_limit > 0) l.time_limit = ADE__MAX((l.time_limit - (now - r->t0)) / 2, 1e-3);
  l.progress = NULL;
  ade__mrun pr = {&c, &l, now, 0, 0, 0, 0, 0};
  rc = ade__m_bnb(&pr, NULL, &pc->moves);
  r->nodes += pr.nodes;
  r->limited |= pr.limited;
  ade__mctx_free(&c);
  return rc;
}

/* Slot maps while a piece's moves are replayed on the whole line dag. */
typedef struct lockstep {
  int fill;  /* the fill-in slot the last ELI created, or -1 */
} lockstep;

static int catch_fill(void *ud, const ade__mop *op) {
  if (op->kind == ADE__OP_ELI && op->fill) ((lockstep *)ud)->fill = op->c;
  return ADE_OK;
}

/* Apply pc's moves to the whole line dag g, translating slots; the
 * translated moves go to out. */
static int replay_piece(ade__ldag *g, const ade__mctx *c, const piece *pc, const ade__mseq *mv, ade__mseq *out) {
  ade__mctx pcx;
  ade__ldag pg;
  int rc = ade__mctx_init(&pcx, pc->d), *map = NULL, cap = 0;
  if (rc) return rc;
  if ((rc = ade__ldag_init(&pg, &pcx))) {
    ade__mctx_free(&pcx);
    return rc;
  }
  int pbase = pg.nx + pg.ny, gbase = g->nx + g->ny;
  for (size_t i = 0; i < mv->n && !rc; i++) {
    if (cap < pg.nslot + 4) {
      int nc = 2 * (pg.nslot + 4), *m = ade__realloc(map, (size_t)nc * sizeof *m);
      if (!m) { rc = ade__fail(ADE_ENOMEM, "best: out of memory"); break; }
      for (int s = cap; s < nc; s++) m[s] = s >= pbase && s < pbase + pc->d->ne ? gbase + pc->elem[s - pbase] : -1;
      map = m, cap = nc;
    }
    ade__move m = mv->m[i], gm = m;
    gm.u = map[m.u];
    gm.v = m.v < 0 ? -1 : map[m.v];
    if (gm.u < 0 || (m.v >= 0 && gm.v < 0)) { rc = ade__fail(ADE_EINVAL, "best: piece slot not mapped"); break; }
    lockstep a = {-1}, b = {-1};
    if ((rc = ade__move_apply(&pg, &pcx, &m, catch_fill, &a)) || (rc = ade__move_apply(g, c, &gm, catch_fill, &b)))
      break;
    if ((a.fill < 0) != (b.fill < 0)) { rc = ade__fail(ADE_EINVAL, "best: piece and whole differ"); break; }
    if (a.fill >= 0 && a.fill < cap) map[a.fill] = b.fill;
    rc = ade__mseq_push(out, &gm);
  }
  ade__free(map);
  ade__ldag_free(&pg);
  ade__mctx_free(&pcx);
  return rc;
}

/* Cut variables in topological order, each an ancestor of the next;
 * owner[j]: the piece of variable j (by the cut set it first falls in). */
static int find_cuts(const ade_mission *d, int *owner, int *npieces) {
  unsigned char *u = ade__alloc((size_t)d->nv);
  if (!u) return ade__fail(ADE_ENOMEM, "best: out of memory");
  int n = 0;
  for (int j = 0; j < d->nv; j++) owner[j] = -1;
  for (int t = 0; t < d->nv; t++) {
    int c = d->topo[t];
    if (!cut_set(d, c, u)) continue;
    for (int j = 0; j < d->nv; j++)
      if (u[j] && owner[j] < 0) owner[j] = n;
    n++;
  }
  for (int j = 0; j < d->nv; j++)
    if (owner[j] < 0 && !is_input(d, j)) owner[j] = n;
  ade__free(u);
  *npieces = n + 1;
  return ADE_OK;
}

static void free_pieces(piece *pc, int n) {
  for (int i = 0; pc && i < n; i++) {
    ade_mission_free(pc[i].d);
    ade__free(pc[i].elem);
    ade__mseq_free(&pc[i].moves);
  }
  ade__free(pc);
}

/* Build and plan the pieces (each distinct shape once). */
static int plan_pieces(ade__mrun *r, const int *owner, piece *pc, int np) {
  const ade_mission *d = r->c->d;
  int *map = ade__alloc(ade__mul_size((size_t)d->nv, sizeof *map)), rc = map ? ADE_OK : ADE_ENOMEM;
  for (int i = 0; i < np && !rc; i++) {
    if ((rc = build_piece(d, owner, i, &pc[i], map))) break;
    pc[i].shape = i;
    for (int k = 0; k < i && pc[i].shape == i; k++)
      if (same_shape(&pc[k], &pc[i])) pc[i].shape = pc[k].shape;
    if (pc[i].shape == i) rc = plan_piece(r, &pc[i]);
  }
  ade__free(map);
  return rc == ADE_ENOMEM && !map ? ade__fail(ADE_ENOMEM, "best: out of memory") : rc;
}

/* Finish the junctions left between pieces by greedy min-fill moves. */
static int finish_junctions(ade__ldag *g, const ade__mctx *c, ade__mseq *out) {
  ade__mrun r = {c, NULL, 0, 0, 0, 0, 0, 0};
  ade__mseq rest = {0};
  (void)r;
  int rc = ade__greedy_from(g, c, 0, &rest);
  for (size_t i = 0; i < rest.n && !rc; i++) rc = ade__mseq_push(out, &rest.m[i]);
  ade__mseq_free(&rest);
  return rc;
}

int ade__m_decomp(ade__mrun *r, ade__mseq *out) {
  const ade_mission *d = r->c->d;
  int np = 0, *owner = ade__alloc(ade__mul_size((size_t)d->nv, sizeof *owner)), rc;
  if (!owner) return ade__fail(ADE_ENOMEM, "best: out of memory");
  if ((rc = find_cuts(d, owner, &np)) || np < 2) {
    ade__free(owner);
    return rc ? rc : ade__fail(ADE_EINVAL, "best: no cut variable");
  }
  piece *pc = ade__calloc((size_t)np, sizeof *pc);
  ade__ldag g;
  rc = pc ? plan_pieces(r, owner, pc, np) : ade__fail(ADE_ENOMEM, "best: out of memory");
  if (!rc && !(rc = ade__ldag_init(&g, r->c))) {
    for (int i = 0; i < np && !rc; i++) rc = replay_piece(&g, r->c, &pc[i], &pc[pc[i].shape].moves, out);
    if (!rc) rc = finish_junctions(&g, r->c, out);
    ade__ldag_free(&g);
  }
  free_pieces(pc, np);
  ade__free(owner);
  return rc;
}

/* best: branch and bound started from the decomposition's plan (where the
 * DAG has a cut variable) besides the heuristics. */
int ade__m_best(ade__mrun *r, ade__mseq *out) {
  ade__mseq d = {0};
  int cut = !ade__m_decomp(r, &d);
  if (!cut) ade__clear_error();
  int rc = ade__m_bnb(r, cut ? &d : NULL, out);
  ade__mseq_free(&d);
  return rc;
}
