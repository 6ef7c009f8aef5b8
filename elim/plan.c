/* plan.c: compiled eliminations: the arithmetic an elimination sequence executes on a tape's c-graph, kept as a straight-line program over value slots and run again on the tape's partials without building the graph. */
#include <stdatomic.h>
#include <stdlib.h>

#include "elim_internal.h"
#include "eval_internal.h"

/* The plan slot of each operand slot of a resident form of nref slots. */
struct rmap {
  size_t nref;
  uint32_t m[];
};

struct ade_elim_plan {
  uint64_t records;      /* the tape it was compiled for: records, chunks, operands */
  size_t nchunks, ntape;
  size_t *chunk_ops;     /* operands of each linearized chunk */
  size_t *init;          /* per tape operand (in linearized order): its slot, 0 = none */
  size_t ninit;          /* slots 1..ninit hold the partials (the c-graph's edges) */
  ade__planrec prog;     /* the multiply-adds (and merges) of the elimination */
  uint32_t *step;        /* prog to run (compact_program), 3 per step; NULL: run prog */
  uint32_t *perm, *pout; /* with step: slot s of prog is slot perm[s] of step; J's entry k is slot pout[k] */
  size_t nphys;          /* with step: its slots (fill-ins share slots once dead: reuse) */
  size_t nstep;          /* with step: the steps in step (those not in lane groups) */
  struct lane_step *lstep; /* lane groups: the classes' templates (group) */
  size_t *lbatch, nbatch; /* batch j: its first slot, its template's steps lstep[lbatch[4j + 1] .. lbatch[4j + 2]),
                            its template's inputs (slots 2 .. 2 + lbatch[4j + 3] of each lane) */
  size_t zfirst, nzero;  /* the other inputs: slots zfirst .. nzero - 1 */
  _Atomic(struct rmap *) rmap; /* the resident form's operand slots -> init (plan_map), once needed */
  size_t nslot;          /* values of a run (in the tape's workspace: the plan is read only) */
  size_t m, n, nnz;
  size_t *rowptr, *col;  /* J's structure */
  size_t *out;           /* the slot of each entry of J */
  uint64_t fma;
  int method;            /* an ordering, ADE_ELIM_CPR_*; -1: a caller's sequence */
  size_t *color, ncolors; /* CPR: the coloring of columns (forward) or rows (reverse) */
  ade_jacobian_report rep; /* of its creation (a cache hands it out again) */
  _Atomic size_t refs;   /* owners: the creator, caches, loops */
};

void ade__plan_retain(ade_elim_plan *p) { atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed); }

const ade_jacobian_report *ade__plan_report(const ade_elim_plan *p) { return &p->rep; }

void ade_elim_plan_free(ade_elim_plan *p) {
  if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1) return;
  ade__free(p->chunk_ops);
  ade__free(p->init);
  ade__plan_rec_free(&p->prog);
  ade__free(p->step);
  ade__free(p->perm);
  ade__free(p->pout);
  ade__free(p->lstep);
  ade__free(p->lbatch);
  ade__free(atomic_load(&p->rmap));
  ade__free(p->color);
  ade__free(p->rowptr);
  ade__free(p->col);
  ade__free(p->out);
  ade__free(p);
}

/* ------------------------------------------------------------- inputs */

/* Each operand of the linearized tape: the c-graph edge its partial goes
 * to (the edge's number is its slot; parallel edges share one), as
 * ade_cgraph_from_tape labels the edges. */
static int map_chunk(ade_elim_plan *p, const ade_cgraph *g, const ade__lin *L, size_t *k) {
  for (uint32_t i = 0; i < L->n; i++) {
    size_t vr = ade__graph_vertex(g, (long)(L->first + i + 1));
    for (uint32_t q = L->pos[i]; q < L->pos[i + 1]; q++) {
      size_t va = vr == ADE__NONE ? ADE__NONE : ade__graph_vertex(g, (long)L->id[q]);
      size_t e = va == ADE__NONE ? ADE__NONE : ade__graph_find(g, va, vr);
      p->init[(*k)++] = e == ADE__NONE ? 0 : (size_t)g->e[e].id;
    }
  }
  return ADE_OK;
}

static int map_inputs(ade_elim_plan *p, ade_tape *t, const ade_cgraph *g) {
  const ade__lin *L;
  int st = ADE_OK;
  size_t k = 0;
  p->records = t->meta.records;
  p->nchunks = t->meta.nchunks;
  p->ninit = g->nedges;
  if (g->next_edge_id != (long)g->nedges + 1)
    return ade__fail(ADE_EINVAL, "a plan needs a c-graph fresh from its tape");
  p->chunk_ops = ade__calloc(p->nchunks + 1, sizeof *p->chunk_ops);
  if (!p->chunk_ops) return ade__fail(ADE_ENOMEM, "out of memory for a plan");
  for (size_t c = 0; !st && c < p->nchunks; c++)
    if (!(st = ade__lin_get(t, c, &L))) p->chunk_ops[c] = L->pos[L->n], p->ntape += L->pos[L->n];
  if (!st) st = ade__budget(t->memlimit, ade__mul_size(p->ntape + 1, sizeof *p->init),
                            "a plan's map of %zu operands", p->ntape);
  if (!st && !(p->init = ade__alloc((p->ntape + 1) * sizeof *p->init)))
    st = ade__fail(ADE_ENOMEM, "out of memory for the inputs of a plan (%zu operands)", p->ntape);
  for (size_t c = 0; !st && c < p->nchunks; c++)
    if (!(st = ade__lin_get(t, c, &L))) st = map_chunk(p, g, L, &k);
  return st;
}

/* ------------------------------------------------------------ outputs */

typedef struct entry {
  size_t row, col, slot;
} entry;

static int cmp_entry(const void *x, const void *y) {
  const entry *a = x, *b = y;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return (a->col > b->col) - (a->col < b->col);
}

/* The entries of J held by the eliminated graph w (as ade_cgraph_jacobian
 * reads them), in row-major order. */
static size_t collect(const ade_cgraph *w, entry *E) {
  size_t nz = 0;
  for (size_t i = 0; i < w->nv; i++) {
    const ade__vtx *v = &w->v[i];
    if (!v->alive) continue;
    if (!w->dual && v->kind == ADE__Y)
      for (size_t k = 0; k < v->nin; k++) {
        const ade__edge *e = &w->e[v->in[k]];
        E[nz++] = (entry){v->aux, w->v[e->src].aux, (size_t)e->id};
      }
    if (w->dual && v->kind == ADE__Z)
      E[nz++] = (entry){w->v[w->e[v->out[0]].dst].aux, w->v[w->e[v->in[0]].src].aux, (size_t)v->id};
  }
  qsort(E, nz, sizeof *E, cmp_entry);
  return nz;
}

/* J's structure; an entry held twice is summed by a merge step. */
static int map_outputs(ade_elim_plan *p, const ade_cgraph *w) {
  size_t cap = (w->dual ? w->nalive : w->nedges) + 1, nz;
  entry *E = ade__alloc(cap * sizeof *E);
  int st = E ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for %zu Jacobian entries", cap);
  if (!st) nz = collect(w, E);
  if (!st) {
    p->rowptr = ade__calloc(p->m + 1, sizeof *p->rowptr);
    p->col = ade__alloc((nz + 1) * sizeof *p->col);
    p->out = ade__alloc((nz + 1) * sizeof *p->out);
    if (!p->rowptr || !p->col || !p->out) st = ade__fail(ADE_ENOMEM, "out of memory for %zu Jacobian entries", nz);
  }
  for (size_t k = 0; !st && k < nz; k++) {
    if (p->nnz && E[k].row == E[k - 1].row && E[k].col == E[k - 1].col) {
      st = ade__plan_push(&p->prog, ADE__P_ADD, (long)p->out[p->nnz - 1], (long)E[k].slot, 0);
      continue;
    }
    p->rowptr[E[k].row + 1]++;
    p->col[p->nnz] = E[k].col;
    p->out[p->nnz++] = E[k].slot;
  }
  for (size_t i = 0; !st && i < p->m; i++) p->rowptr[i + 1] += p->rowptr[i];
  ade__free(E);
  return st;
}

/* ------------------------------------------------------------- compile */

/* Apply s to w (g, or its dual for faces) recording the arithmetic. */
static int compile(ade_elim_plan *p, ade_cgraph *g, const ade_elim_seq *s, ade_jacobian_report *r) {
  ade_cgraph *d = NULL, *w = g;
  uint64_t cost = 0;
  int st = s->kind == ADE_SEQ_FACE ? ade_cgraph_dual(&d, g) : ADE_OK;
  if (d) w = d;
  if (!st) {
    p->prog.memlimit = g->memlimit;
    /* One step per multiply-add: a sequence that knows its cost gets its
     * plan's room at once (or ENOMEM now, not after eliminating). */
    if (s->cost) st = ade__plan_reserve(&p->prog, (size_t)ADE__MIN(s->cost, (uint64_t)SIZE_MAX / 32));
  }
  if (!st) {
    w->rec = &p->prog;
    st = ade_seq_apply(w, s, &cost);
    w->rec = NULL;
  }
  if (!st) {
    ade_sparse *J = NULL; /* complete? (the same check ade_jacobian makes) */
    st = ade_cgraph_jacobian(w, &J);
    ade_sparse_free(J);
  }
  if (!st) st = map_outputs(p, w);
  if (!st) {
    p->nslot = (size_t)(w->dual ? w->next_vertex_id : w->next_edge_id) + 1;
    p->fma = cost;
    r->fma = cost, r->fill = w->fill, r->absorbed = w->absorbed, r->merged = w->merged;
    r->steps = s->len, r->vertices_after = g->n + g->m, r->edges_after = p->nnz;
  }
  ade_cgraph_free(d);
  return st;
}

/* CPR's plan: the pattern and the coloring (taken from c). */
static int take_cpr(ade_elim_plan *p, const ade_cgraph *g, ade__choice *c, ade_jacobian_report *r) {
  ade_sparse *P = c->P;
  p->rowptr = ade__alloc((P->m + 1) * sizeof *p->rowptr);
  p->col = ade__alloc((P->nnz + 1) * sizeof *p->col);
  if (!p->rowptr || !p->col) return ade__fail(ADE_ENOMEM, "out of memory for %zu Jacobian entries", P->nnz);
  memcpy(p->rowptr, P->rowptr, (P->m + 1) * sizeof *p->rowptr);
  memcpy(p->col, P->col, P->nnz * sizeof *p->col);
  p->nnz = P->nnz;
  p->color = c->color, c->color = NULL;
  p->ncolors = c->ncolors;
  p->fma = c->cost;
  r->fma = c->cost, r->colors = c->ncolors, r->vertices_after = g->n + g->m, r->edges_after = p->nnz;
  r->steps = (c->ncolors + 63) / 64;
  return ADE_OK;
}

/* ------------------------------------------------------------ lane groups */

/* A plan's steps fall into components (slots linked by steps; the graph's
 * connected parts). Components whose steps are the same program on their
 * own slots -- the same kinds, each slot touched in the same place (a loop
 * over cells or interfaces: roe's 1000 interfaces) -- form a class; LANES
 * members of a class run its one template at once, member l's slot i at
 * base + i LANES + l. A template of a few hundred steps stays in cache
 * where the scalar steps stream 12 bytes each from memory, and one step's
 * decoding serves LANES multiply-adds. Each slot sees the same operations
 * in the same order as in prog (components share no slot), so the same
 * bits. Local slot 0 holds -0.0 and 1 holds 1.0 in every lane (the SET and
 * ADD forms of run_steps). */
#define LANES 4

typedef struct lane_step {
  uint32_t d, c, a, b; /* v[d] = v[c] + v[a] v[b], offsets from a batch's base */
} lane_step;

typedef struct canon_class {
  uint64_t hash;
  size_t nsteps, nloc, key, fkey, members; /* key, fkey: offsets in the key and flag stores */
  size_t tfirst, nl, nin, seen, base;       /* with a template: its first step in p->lstep, its slots, inputs;
                                               members laid out, their batch's first slot */
} canon_class;

typedef struct grouping {
  uint32_t *uf, *loc, *order, *key, *cfirst; /* order: steps by component; cfirst: component c's steps */
  uint32_t *ccls, *phys, *last, *stack;      /* component -> class; templates' slots (beside flag), last use, free */
  uint8_t *flag, *isout;                     /* flags of local slots (1 input, 2 entry of J), of prog's slots */
  size_t *table, ntable;                     /* class + 1 by hash */
  canon_class *cls;
  size_t ncomp, ncls;
} grouping;

static uint32_t uf_find(uint32_t *uf, uint32_t s) {
  while (uf[s] != s) s = uf[s] = uf[uf[s]];
  return s;
}

/* Component c's steps with its slots numbered by first touch: key[4j..]
 * = kind, a, b (a for ADD), d of its j-th step, flag[i] of local slot i.
 * The number of local slots; loc is left all UINT32_MAX. */
static size_t canon(const ade_elim_plan *p, grouping *g, size_t c, uint32_t *key, uint8_t *flag) {
  const ade__planrec *r = &p->prog;
  size_t nloc = 0;
  for (uint32_t j = g->cfirst[c]; j < g->cfirst[c + 1]; j++) {
    const size_t k = g->order[j], u[3] = {r->a[k], r->kind[k] == ADE__P_ADD ? r->a[k] : r->b[k], r->d[k]};
    uint32_t *o = key + 4 * (j - g->cfirst[c]);
    o[0] = r->kind[k];
    for (int i = 0; i < 3; i++) {
      if (g->loc[u[i]] == UINT32_MAX) {
        flag[nloc] = (uint8_t)((u[i] <= p->ninit) | (g->isout[u[i]] << 1));
        g->loc[u[i]] = (uint32_t)nloc++;
      }
      o[i + 1] = g->loc[u[i]];
    }
  }
  for (uint32_t j = g->cfirst[c]; j < g->cfirst[c + 1]; j++) {
    const size_t k = g->order[j];
    g->loc[r->a[k]] = g->loc[r->d[k]] = UINT32_MAX;
    if (r->kind[k] != ADE__P_ADD) g->loc[r->b[k]] = UINT32_MAX;
  }
  return nloc;
}

static uint64_t canon_hash(const uint32_t *key, size_t nkey, const uint8_t *flag, size_t nloc) {
  uint64_t h = 0x9e3779b97f4a7c15u ^ nkey ^ ((uint64_t)nloc << 32);
  for (size_t i = 0; i < nkey; i++) h = (h ^ key[i]) * 0x100000001b3u;
  for (size_t i = 0; i < nloc; i++) h = (h ^ flag[i]) * 0x100000001b3u;
  return h ^ (h >> 29);
}

/* Components: union of each step's slots, then the steps by component
 * (in prog's order within one). */
static void components(const ade_elim_plan *p, grouping *g) {
  const ade__planrec *r = &p->prog;
  for (size_t s = 0; s < p->nslot; s++) g->uf[s] = (uint32_t)s, g->loc[s] = UINT32_MAX;
  for (size_t k = 0; k < r->n; k++) {
    const uint32_t d = uf_find(g->uf, (uint32_t)r->d[k]), a = uf_find(g->uf, (uint32_t)r->a[k]);
    g->uf[a] = d;
    if (r->kind[k] != ADE__P_ADD) g->uf[uf_find(g->uf, (uint32_t)r->b[k])] = d;
  }
  /* loc: a root's component number; cfirst: counts, then starts */
  for (size_t k = 0; k < r->n; k++) {
    const uint32_t c = uf_find(g->uf, (uint32_t)r->d[k]);
    if (g->loc[c] == UINT32_MAX) g->cfirst[g->ncomp] = 0, g->loc[c] = (uint32_t)g->ncomp++;
    g->cfirst[g->loc[c]]++;
  }
  uint32_t sum = 0;
  for (size_t c = 0; c <= g->ncomp; c++) {
    const uint32_t n = c < g->ncomp ? g->cfirst[c] : 0;
    g->cfirst[c] = sum, sum += n;
  }
  for (size_t k = 0; k < r->n; k++) g->order[g->cfirst[g->loc[uf_find(g->uf, (uint32_t)r->d[k])]]++] = (uint32_t)k;
  for (size_t c = g->ncomp; c > 0; c--) g->cfirst[c] = g->cfirst[c - 1];
  g->cfirst[0] = 0;
  for (size_t s = 0; s < p->nslot; s++) g->loc[s] = UINT32_MAX;
}

/* Each component's class (a new one, or the class of an equal earlier
 * component: the same canonical steps and slot flags). */
static void classify(const ade_elim_plan *p, grouping *g) {
  size_t top = 0, ftop = 0;
  for (size_t c = 0; c < g->ncomp; c++) {
    const size_t n = g->cfirst[c + 1] - g->cfirst[c];
    uint32_t *key = g->key + top;
    uint8_t *flag = g->flag + ftop;
    const size_t nloc = canon(p, g, c, key, flag);
    const uint64_t h = canon_hash(key, 4 * n, flag, nloc);
    size_t i = (size_t)h & (g->ntable - 1), k;
    for (; (k = g->table[i]); i = (i + 1) & (g->ntable - 1)) {
      const canon_class *q = &g->cls[k - 1];
      if (q->hash == h && q->nsteps == n && q->nloc == nloc && !memcmp(g->key + q->key, key, 4 * n * sizeof *key) &&
          !memcmp(g->flag + q->fkey, flag, nloc))
        break;
    }
    if (!k) {
      g->cls[g->ncls] = (canon_class){h, n, nloc, top, ftop, 0, 0, 0, 0, 0, 0};
      g->table[i] = k = ++g->ncls;
      top += 4 * n;
      ftop += nloc;
    }
    g->ccls[c] = (uint32_t)(k - 1);
    g->cls[k - 1].members++;
  }
}

/* Class q's template into t: its local slots numbered from 2 (after the
 * constants) by first touch, the inputs first (*nin of them: a batch's
 * slots to zero), a fill-in that is not an entry of J taking the slot
 * freed last as reuse() does; offsets local slot LANES. Its number of
 * local slots. */
static size_t make_template(grouping *g, const canon_class *q, lane_step *t, size_t *nin) {
  const uint32_t *key = g->key + q->key;
  const uint8_t *flag = g->flag + q->fkey;
  uint32_t next = 2, *phys = g->phys + q->fkey, *last = g->last;
  size_t top = 0;
  for (size_t i = 0; i < q->nloc; i++) phys[i] = UINT32_MAX;
  for (size_t j = 0; j < q->nsteps; j++)
    for (int i = 1; i < 4; i++) {
      const uint32_t u = key[4 * j + i];
      last[u] = (uint32_t)j;
      if ((flag[u] & 1) && phys[u] == UINT32_MAX) phys[u] = next++;
    }
  *nin = next - 2;
  for (size_t j = 0; j < q->nsteps; j++) {
    const uint32_t *o = key + 4 * j;
    for (int i = 1; i < 4; i++)
      if (phys[o[i]] == UINT32_MAX)
        phys[o[i]] = i == 3 && o[0] == ADE__P_SET && !flag[o[3]] && top ? g->stack[--top] : next++;
    t[j] = (lane_step){phys[o[3]] * LANES, o[0] == ADE__P_SET ? 0 : phys[o[3]] * LANES, phys[o[1]] * LANES,
                       o[0] == ADE__P_ADD ? LANES : phys[o[2]] * LANES};
    for (int i = 1; i < 4; i++)
      if (!flag[o[i]] && last[o[i]] == j) g->stack[top++] = phys[o[i]], last[o[i]] = UINT32_MAX;
  }
  return next;
}

/* Member lane of the batch at base: perm of component c's slots (through
 * its class's template slots), its steps marked in gstep; the inputs
 * among its slots. */
static size_t place(ade_elim_plan *p, grouping *g, size_t c, size_t base, size_t lane, uint8_t *gstep) {
  const ade__planrec *r = &p->prog;
  const uint32_t *phys = g->phys + g->cls[g->ccls[c]].fkey;
  size_t nloc = 0, nin = 0;
  for (uint32_t j = g->cfirst[c]; j < g->cfirst[c + 1]; j++) {
    const size_t k = g->order[j], u[3] = {r->a[k], r->kind[k] == ADE__P_ADD ? r->a[k] : r->b[k], r->d[k]};
    gstep[k] = 1;
    for (int i = 0; i < 3; i++)
      if (g->loc[u[i]] == UINT32_MAX) {
        g->loc[u[i]] = (uint32_t)nloc++;
        p->perm[u[i]] = (uint32_t)(base + (size_t)phys[g->loc[u[i]]] * LANES + lane);
        nin += u[i] <= p->ninit;
      }
  }
  for (uint32_t j = g->cfirst[c]; j < g->cfirst[c + 1]; j++) {
    const size_t k = g->order[j];
    g->loc[r->a[k]] = g->loc[r->d[k]] = UINT32_MAX;
    if (r->kind[k] != ADE__P_ADD) g->loc[r->b[k]] = UINT32_MAX;
  }
  return nin;
}

static void grouping_free(grouping *g) {
  ade__free(g->uf), ade__free(g->loc), ade__free(g->order), ade__free(g->key), ade__free(g->cfirst);
  ade__free(g->ccls), ade__free(g->phys), ade__free(g->last), ade__free(g->stack);
  ade__free(g->flag), ade__free(g->isout), ade__free(g->table), ade__free(g->cls);
}

/* Batches of the classes' members: p->lstep, p->lbatch, perm of their
 * slots (1..G), gstep[k] = 1 for their steps; returns G, *nin the inputs
 * among their slots. */
static size_t batches(ade_elim_plan *p, grouping *g, uint8_t *gstep, size_t *nin) {
  size_t nt = 0, base = 1;
  for (size_t k = 0; k < g->ncls; k++) {
    canon_class *q = &g->cls[k];
    if (q->members < LANES) continue;
    q->tfirst = nt;
    q->nl = make_template(g, q, p->lstep + nt, &q->nin);
    nt += q->nsteps;
  }
  for (size_t c = 0; c < g->ncomp; c++) {
    canon_class *q = &g->cls[g->ccls[c]];
    if (q->members < LANES || q->seen / LANES >= q->members / LANES) continue; /* the rest run scalar */
    const size_t lane = q->seen++ % LANES;
    if (!lane) {
      size_t *b = p->lbatch + 4 * p->nbatch++;
      b[0] = q->base = base, b[1] = q->tfirst, b[2] = q->tfirst + q->nsteps, b[3] = q->nin;
      base += q->nl * LANES;
    }
    *nin += place(p, g, c, q->base, lane, gstep);
  }
  return base - 1;
}

/* The lane groups of the classes of at least LANES members (batches);
 * *G = 0: none, or their bookkeeping is beyond the memory limit. */
static int group(ade_elim_plan *p, size_t memlimit, uint8_t *gstep, size_t *G, size_t *nin) {
  const size_t n = p->prog.n, ns = p->nslot;
  grouping g = {0};
  int st = ADE_OK;
  *G = *nin = 0;
  /* per slot uf, loc, isout; per step key, order, cfirst, flag, phys, lstep */
  if (ade__over_budget(memlimit, ade__mul_size(ns, 9) + ade__mul_size(n, 16 + 4 + 4 + 3 + 12 + 16)))
    return ADE_OK;
  g.uf = ade__alloc(ns * sizeof *g.uf), g.loc = ade__alloc(ns * sizeof *g.loc), g.isout = ade__calloc(ns, 1);
  g.order = ade__alloc(n * sizeof *g.order), g.cfirst = ade__alloc((n + 1) * sizeof *g.cfirst);
  g.key = ade__alloc(4 * n * sizeof *g.key), g.flag = ade__alloc(3 * n), g.phys = ade__alloc(3 * n * sizeof *g.phys);
  if (!g.uf || !g.loc || !g.isout || !g.order || !g.cfirst || !g.key || !g.flag || !g.phys) goto nomem;
  for (size_t k = 0; k < p->nnz; k++) g.isout[p->out[k]] = 1;
  components(p, &g);
  for (g.ntable = 16; g.ntable < 2 * g.ncomp; g.ntable *= 2) {}
  if (ade__over_budget(memlimit, ade__mul_size(g.ncomp, sizeof *g.cls + sizeof *g.ccls) +
                                     ade__mul_size(g.ntable, sizeof *g.table))) {
    grouping_free(&g);
    return ADE_OK;
  }
  g.cls = ade__alloc(g.ncomp * sizeof *g.cls), g.ccls = ade__alloc(g.ncomp * sizeof *g.ccls);
  g.table = ade__calloc(g.ntable, sizeof *g.table);
  if (!g.cls || !g.ccls || !g.table) goto nomem;
  classify(p, &g);
  size_t nt = 0, nb = 0, maxloc = 1;
  for (size_t k = 0; k < g.ncls; k++)
    if (g.cls[k].members >= LANES)
      nt += g.cls[k].nsteps, nb += g.cls[k].members / LANES, maxloc = ADE__MAX(maxloc, g.cls[k].nloc);
  if (nb) {
    p->lstep = ade__alloc(nt * sizeof *p->lstep), p->lbatch = ade__alloc(4 * nb * sizeof *p->lbatch);
    g.last = ade__alloc(maxloc * sizeof *g.last), g.stack = ade__alloc(maxloc * sizeof *g.stack);
    if (!p->lstep || !p->lbatch || !g.last || !g.stack) goto nomem;
    *G = batches(p, &g, gstep, nin);
  }
  grouping_free(&g);
  return st;
nomem:
  grouping_free(&g);
  return ade__fail(ADE_ENOMEM, "out of memory for the lane groups of a plan of %zu steps", n);
}

/* Zero the slots that receive partials (and slot 0, none's). */
static void zero_inputs(const ade_elim_plan *p, double *val) {
  val[0] = 0;
  memset(val + p->zfirst, 0, (p->nzero - p->zfirst) * sizeof *val);
  for (size_t j = 0; j < p->nbatch; j++)
    memset(val + p->lbatch[4 * j] + 2 * LANES, 0, p->lbatch[4 * j + 3] * LANES * sizeof *val);
}

/* The batches' steps: LANES multiply-adds per template step. */
static void run_lanes(const ade_elim_plan *p, double *v) {
  for (size_t j = 0; j < p->nbatch; j++) {
    const size_t *b = p->lbatch + 4 * j;
    double *B = v + b[0];
    for (int l = 0; l < LANES; l++) B[l] = -0.0, B[LANES + l] = 1.0;
    for (const lane_step *t = p->lstep + b[1], *end = p->lstep + b[2]; t < end; t++) {
      const double *C = B + t->c, *A = B + t->a, *X = B + t->b;
      double y[LANES]; /* d may be a or b (a slot freed by this step) */
      for (int l = 0; l < LANES; l++) y[l] = C[l] + A[l] * X[l];
      memcpy(B + t->d, y, sizeof y);
    }
  }
}

/* prog as one branch-free form, v[d] = v[c] + v[a] v[b], 12 bytes a step
 * instead of 25: c is d (FMA), or slot nslot holding -0.0 (SET: -0.0 + y
 * is y, bit for bit, for every y); b is slot nslot + 1 holding 1.0 for ADD
 * (y 1.0 is y). The top bit of d marks SET. Skipped (prog runs as it is)
 * when the slots need more than 31 bits or the steps do not fit the
 * tape's memory limit. */
#define STEP_SET 0x80000000u

/* perm: the slots renumbered in the order the steps first touch them, the
 * inputs (1..ninit) among themselves and the fill-ins (ninit + 1 ..) among
 * themselves: the slots a run of steps reads lie together in memory (the
 * engines number edges in tape order, and the elimination does not visit
 * them so). The same arithmetic on renamed slots: the same bits. */
static size_t renumber(ade_elim_plan *p, const uint8_t *gstep, size_t G, size_t nin) {
  const ade__planrec *r = &p->prog;
  uint32_t *perm = p->perm, next[2] = {(uint32_t)G + 1, (uint32_t)(G + 1 + p->ninit - nin)};
#define RENUMBER(S)                                                            \
  do {                                                                         \
    const size_t s_ = (S);                                                     \
    if (perm[s_] == UINT32_MAX) perm[s_] = next[s_ > p->ninit]++;               \
  } while (0)
  for (size_t k = 0; k < r->n; k++) {
    if (gstep[k]) continue;
    RENUMBER(r->a[k]);
    if (r->kind[k] != ADE__P_ADD) RENUMBER(r->b[k]);
    RENUMBER(r->d[k]);
  }
  for (size_t s = 1; s < p->nslot; s++) RENUMBER(s);
#undef RENUMBER
  return next[1];
}

/* The step after which each slot of prog is no longer touched (SIZE_MAX:
 * never, or read at the end: J's entries); 0 if a fill-in is touched
 * before its SET or SET twice (then no slot is reused); -1: out of memory. */
static int last_use(const ade_elim_plan *p, size_t *last) {
  const ade__planrec *r = &p->prog;
  uint8_t *w = ade__calloc(p->nslot + 1, 1);
  if (!w) return -1;
  int ok = 1;
  for (size_t s = 0; s < p->nslot; s++) last[s] = SIZE_MAX;
  for (size_t k = 0; k < r->n && ok; k++) {
    const size_t d = r->d[k], a = r->a[k], b = r->kind[k] == ADE__P_ADD ? a : r->b[k];
    ok = (a <= p->ninit || w[a]) && (b <= p->ninit || w[b]);
    if (r->kind[k] == ADE__P_SET) ok = ok && d > p->ninit && !w[d];
    else ok = ok && (d <= p->ninit || w[d]);
    w[d] = 1;
    last[a] = last[b] = last[d] = k;
  }
  for (size_t k = 0; k < p->nnz; k++) last[p->out[k]] = SIZE_MAX;
  ade__free(w);
  return ok;
}

/* perm of the fill-ins (slots above ninit) with reuse: a SET takes the
 * slot last freed (LIFO: still in cache), a fill-in's slot is freed after
 * the step that touches it last. A step reads a and b before it writes d,
 * so d may take the slot a or b frees. The working set of the steps is
 * then the live fill-ins, not all of them (roe: a few kB instead of MB). */
static void reuse(ade_elim_plan *p, size_t *last, uint32_t *stack, const uint8_t *gstep, size_t G, size_t nin) {
  const ade__planrec *r = &p->prog;
  uint32_t *perm = p->perm, next = (uint32_t)(G + 1 + p->ninit - nin);
  size_t top = 0;
  for (size_t s = p->ninit + 1; s < p->nslot; s++)
    if (perm[s] > G) perm[s] = UINT32_MAX; /* not a lane group's */
  for (size_t k = 0; k < r->n; k++) {
    if (gstep[k]) continue;
    const size_t d = r->d[k], u[3] = {r->a[k], r->kind[k] == ADE__P_ADD ? r->a[k] : r->b[k], d};
    if (r->kind[k] == ADE__P_SET) perm[d] = top ? stack[--top] : next++;
    for (int j = 0; j < 3; j++)
      if (u[j] > p->ninit && last[u[j]] == k) stack[top++] = perm[u[j]], last[u[j]] = SIZE_MAX - 1;
  }
  for (size_t s = p->ninit + 1; s < p->nslot; s++)
    if (perm[s] == UINT32_MAX) perm[s] = next++;
  p->nphys = next;
}

static int compact_program(ade_elim_plan *p, size_t memlimit) {
  const ade__planrec *r = &p->prog;
  size_t bytes = ade__mul_size(r->n, 3 * sizeof *p->step + 1) + (p->nslot + p->nnz) * sizeof *p->perm, G = 0, nin = 0;
  if (!r->n || p->nslot + 2 >= STEP_SET || bytes > memlimit) return ADE_OK;
  p->step = ade__alloc(ade__mul_size(r->n, 3 * sizeof *p->step));
  p->perm = ade__alloc(p->nslot * sizeof *p->perm);
  p->pout = ade__alloc((p->nnz + 1) * sizeof *p->pout);
  uint8_t *gstep = ade__calloc(r->n, 1);
  if (!p->step || !p->perm || !p->pout || !gstep) {
    ade__free(gstep);
    return ade__fail(ADE_ENOMEM, "out of memory for a plan of %zu steps", r->n);
  }
  for (size_t s = 0; s < p->nslot; s++) p->perm[s] = UINT32_MAX;
  p->perm[0] = 0;
  /* slot reuse and lane groups: skipped (each fill-in its own slot, no
   * groups) when their bookkeeping does not fit the memory limit, or a
   * fill-in is used before its SET */
  int ok = 0, st = ADE_OK;
  size_t *last = NULL;
  uint32_t *stack = NULL;
  if (!ade__over_budget(memlimit, ade__mul_size(p->nslot, sizeof(size_t) + sizeof(uint32_t) + 1))) {
    last = ade__alloc(p->nslot * sizeof *last);
    stack = last ? ade__alloc(p->nslot * sizeof *stack) : NULL;
    ok = stack ? last_use(p, last) : -1;
  }
  if (ok < 0) st = ade__fail(ADE_ENOMEM, "out of memory for the slots of a plan of %zu steps", r->n);
  if (!st && ok > 0 && p->nslot < (STEP_SET - 3) / 3 && r->n < UINT32_MAX) st = group(p, memlimit, gstep, &G, &nin);
  if (!st) p->nphys = renumber(p, gstep, G, nin);
  if (!st && ok > 0) reuse(p, last, stack, gstep, G, nin);
  ade__free(last);
  ade__free(stack);
  const uint32_t *perm = p->perm, nz = (uint32_t)p->nphys;
  for (size_t k = 0; !st && k < r->n; k++) {
    if (gstep[k]) continue;
    uint32_t *s = p->step + 3 * p->nstep++;
    s[0] = perm[r->d[k]] | (r->kind[k] == ADE__P_SET ? STEP_SET : 0);
    s[1] = perm[r->a[k]];
    s[2] = r->kind[k] == ADE__P_ADD ? nz + 1 : perm[r->b[k]];
  }
  for (size_t k = 0; !st && k < p->nnz; k++) p->pout[k] = perm[p->out[k]];
  p->zfirst = G + 1, p->nzero = G + 1 + p->ninit - nin;
  ade__free(gstep);
  return st;
}

static int plan_create(ade_elim_plan **pp, ade_tape *t, int method, const ade_jacobian_options *o,
                       ade_jacobian_report *report) {
  ade_jacobian_report r;
  ade_cgraph *g = NULL;
  ade__choice c = {0};
  double t0 = ade__now();
  memset(&r, 0, sizeof r);
  if (!pp) return ade__fail(ADE_EINVAL, "ade_elim_plan_create: NULL result pointer");
  *pp = NULL;
  if ((!o || !o->seq) && !ade__method_valid(method))
    return ade__fail(ADE_EINVAL, "ade_elim_plan_create: unknown method %d", method);
  int st = ade__tape_usable(t);
  if (st) return st;
  ade_elim_plan *p = ade__calloc(1, sizeof *p);
  if (p) atomic_init(&p->refs, 1);
  st = p ? ade__graph_from_tape(t, &g, &r) : ade__fail(ADE_ENOMEM, "out of memory for a plan");
  if (!st) st = ade__choose(g, method, o, &c);
  if (!st) {
    p->m = g->m, p->n = g->n, p->method = r.method = c.method, r.limited = c.limited;
    if (ade__choice_cpr(&c)) st = take_cpr(p, g, &c, &r);
    else st = map_inputs(p, t, g);
  }
  if (!st && !p->color) st = compile(p, g, c.seq ? c.seq : c.given, &r);
  if (!st) p->zfirst = 1, p->nzero = p->ninit + 1;
  if (!st) st = ade__budget(t->memlimit, ade__mul_size(p->nslot, sizeof(double)), "a plan's %zu values", p->nslot);
  if (!st) p->records = t->meta.records, p->nchunks = t->meta.nchunks;
  if (!st && !p->color) st = compact_program(p, t->memlimit);
  if (!st && p->nphys > p->nslot) /* lane groups' constants: a few more values */
    st = ade__budget(t->memlimit, ade__mul_size(p->nphys + 3, sizeof(double)), "a plan's %zu values", p->nphys);
  ade__choice_free(&c);
  ade_cgraph_free(g);
  r.seconds = ade__now() - t0;
  if (st) ade_elim_plan_free(p);
  else p->rep = r, *pp = p;
  if (report) *report = r;
  return st;
}

int ade_elim_plan_create(ade_elim_plan **pp, ade_tape *shared, int method, const ade_jacobian_options *o,
                         ade_jacobian_report *report) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : plan_create(pp, t, method, o, report));
}

uint64_t ade_elim_plan_fma(const ade_elim_plan *p) { return p ? p->fma : 0; }

int ade_elim_plan_method(const ade_elim_plan *p) { return p ? p->method : -1; }

void ade__plan_info(const ade_elim_plan *p, ade__planinfo *i) {
  *i = (ade__planinfo){p->records, p->fma, p->nchunks, p->ninit, p->nslot, p->m, p->n, p->nnz,
                       p->chunk_ops, p->init, p->rowptr, p->col, p->out, &p->prog, p->method, p->nbatch};
}

int ade_elim_plan_pattern(const ade_elim_plan *p, ade_sparse **J) {
  if (!p || !J) return ade__fail(ADE_EINVAL, "ade_elim_plan_pattern: NULL argument");
  int st = ade_sparse_create(J, p->m, p->n, p->nnz, 0);
  if (st) return st;
  memcpy((*J)->rowptr, p->rowptr, (p->m + 1) * sizeof *p->rowptr);
  memcpy((*J)->col, p->col, p->nnz * sizeof *p->col);
  memset((*J)->val, 0, p->nnz * sizeof *(*J)->val);
  return ADE_OK;
}

/* ------------------------------------------------------------ execute */

/* Slots 1..ninit of val: each c-graph edge's label, the sum of its partials. */
static int load_inputs(const ade_elim_plan *p, ade_tape *t, const double *V, double *val) {
  const ade__lin *L;
  size_t k = 0;
  zero_inputs(p, val);
  for (size_t c = 0; c < p->nchunks; c++) {
    int st = ade__lin_at(t, c, V, &L);
    if (st) return st;
    if (L->pos[L->n] != p->chunk_ops[c])
      return ade__fail(ADE_EINVAL, "chunk %zu has %u operands; the plan was compiled for %zu", c,
                       (unsigned)L->pos[L->n], p->chunk_ops[c]);
    const size_t *init = p->init + k;
    for (size_t q = 0; q < p->chunk_ops[c]; q++)
      if (init[q]) val[p->perm ? p->perm[init[q]] : init[q]] += L->d[q];
    k += p->chunk_ops[c];
  }
  return ADE_OK;
}

/* The elimination's arithmetic, step by step as the engines did it. */
static void run_program(const ade_elim_plan *p, double *v) {
  const ade__planrec *r = &p->prog;
  for (size_t k = 0; k < r->n; k++) {
    switch (r->kind[k]) {
    case ADE__P_SET: v[r->d[k]] = v[r->a[k]] * v[r->b[k]]; break;
    case ADE__P_FMA: v[r->d[k]] += v[r->a[k]] * v[r->b[k]]; break;
    default: v[r->d[k]] += v[r->a[k]]; break;
    }
  }
}

/* The values of a run: the slots, then -0.0 and 1.0 of run_steps and
 * plan_map's junk slot. */
static size_t plan_nval(const ade_elim_plan *p) {
  return (p->step ? ADE__MAX(p->nslot, p->nphys) : p->nslot) + 3;
}

/* The compact steps over v (nphys + 2 slots). */
static void run_steps(const ade_elim_plan *p, double *restrict v) {
  const uint32_t *restrict s = p->step, *end = s + 3 * p->nstep;
  const uint32_t nz = (uint32_t)p->nphys;
  v[nz] = -0.0;
  v[nz + 1] = 1.0;
  for (; s < end; s += 3) {
    const uint32_t d = s[0] & ~STEP_SET, c = (s[0] & STEP_SET) ? nz : d;
    v[d] = v[c] + v[s[1]] * v[s[2]];
  }
}

/* p's map for r's operand slots (ade__res_scatter_map; junk: slot nslot +
 * 2), made by the first run at x over a resident form and kept; NULL: none
 * (slots beyond 32 bits, over the memory limit, out of memory, or another
 * tape layout): the partials go through the scatter loop. */
static const uint32_t *plan_map(ade_elim_plan *p, const ade_tape *t, const ade__res *r) {
  struct rmap *m = atomic_load_explicit(&p->rmap, memory_order_acquire), *none = NULL;
  if (m) return m->nref == r->nref ? m->m : NULL;
  if (plan_nval(p) > UINT32_MAX || t->memlimit < sizeof *m || r->nref > (t->memlimit - sizeof *m) / sizeof m->m[0])
    return NULL;
  if (!(m = ade__alloc(sizeof *m + (r->nref ? r->nref : 1) * sizeof m->m[0]))) return NULL;
  m->nref = r->nref;
  if (ade__res_scatter_map(r, p->init, p->ntape, p->perm, (uint32_t)plan_nval(p) - 1, m->m)) {
    ade__free(m);
    return NULL;
  }
  if (!atomic_compare_exchange_strong_explicit(&p->rmap, &none, m, memory_order_acq_rel, memory_order_acquire)) {
    ade__free(m);
    m = none;
  }
  return m->nref == r->nref ? m->m : NULL;
}

static int plan_jacobian(ade_elim_plan *p, ade_tape *t, const double *x, ade_sparse *J) {
  if (!p || !J) return ade__fail(ADE_EINVAL, "ade_elim_plan_jacobian: NULL argument");
  int st = ade__tape_usable(t), warn = ADE_OK;
  if (!st) st = ade__elem_ready(t);
  if (st) return st;
  if (t->meta.records != p->records || t->meta.nchunks != p->nchunks)
    return ade__fail(ADE_EINVAL, "the plan was compiled for a tape of %llu records in %zu chunks, not %llu in %zu",
                     (unsigned long long)p->records, p->nchunks, (unsigned long long)t->meta.records,
                     t->meta.nchunks);
  if (J->m != p->m || J->n != p->n || J->nnz != p->nnz || J->symmetric)
    return ade__fail(ADE_EINVAL, "J is %zu x %zu with %zu entries; the plan's Jacobian %zu x %zu with %zu", J->m,
                     J->n, J->nnz, p->m, p->n, p->nnz);
  if (p->color) /* CPR: compressed sweeps */
    return ade_jacobian_cpr_values(t, p->method == ADE_ELIM_CPR_FORWARD ? ADE_FORWARD : ADE_REVERSE, x, p->color,
                                   p->ncolors, J);
  /* The workspace: the resident form's scatter space or the values at x
   * (when kept), then the plan's slots. */
  const ade__res *r = ade__res_find(t);
  if (r && !x && !ade__res_d(t, r)) r = NULL; /* the recorded partials do not fit */
  const uint32_t *M = r && x ? plan_map(p, t, r) : NULL;
  size_t nR = r ? ade__res_scatter_work(r, x, M) : 0;
  size_t nV = !r && x && !ade__point_wanted(t, x) ? (size_t)t->meta.records + 1 : 0;
  double *W = ade__work(t, nR + nV + plan_nval(p)), *V = nV ? W : NULL, *val = W ? W + nR + nV : NULL;
  if (!W) return ade__fail(ADE_ENOMEM, "out of memory for %zu values", nR + nV + plan_nval(p));
  if (r) { /* partials (and values at x) in one pass over the resident form (eval/resident.c) */
    zero_inputs(p, val);
    st = ade__res_scatter_at(t, r, x, W, p->init, p->perm, p->ntape, M, val);
    if (st == ADE_WBRANCH) warn = st, st = ADE_OK;
  } else if (ade__point_wanted(t, x)) { /* no value array: partials at x from the tape's point (point.c) */
    st = ade__point_begin(t, x);
    if (st) return st;
    if (t->pt.flips)
      warn = ade__fail(ADE_WBRANCH, "%llu recorded comparison(s) differ at this point, first at op %llu",
                       (unsigned long long)t->pt.flips, (unsigned long long)t->pt.first_flip);
    st = load_inputs(p, t, NULL, val);
    ade__point_end(t);
  } else if (x) { /* the values at x, then partials there */
    st = ade__replay_values(t, x, V);
    if (st == ADE_WBRANCH) warn = st, st = ADE_OK;
  }
  if (!st && !r && !ade__point_wanted(t, x)) st = load_inputs(p, t, V, val);
  if (st) return st;
  if (p->step) run_lanes(p, val), run_steps(p, val);
  else run_program(p, val);
  if (p->pout)
    for (size_t k = 0; k < p->nnz; k++) J->val[k] = val[p->pout[k]];
  else
    for (size_t k = 0; k < p->nnz; k++) J->val[k] = val[p->out[k]];
  return warn;
}

int ade_elim_plan_jacobian(ade_elim_plan *p, ade_tape *shared, const double *x, ade_sparse *J) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : plan_jacobian(p, t, x, J));
}
