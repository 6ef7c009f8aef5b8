/* edge_push.c: Hessians by edge pushing, Algorithm 4 of the edge-pushing paper in its live-variable form. */
#include "hessian_internal.h"

/* Row of a live variable a: the entries h(a, b) for live b with key(b) <
 * key(a). When record k is reached, every live variable has a key below
 * k's, so row k holds all of k's off-diagonal entries (the neighbours to
 * push); entries are found through one hash of (row slot, column slot). */
typedef struct ep_row {
  uint32_t n, cap;
  uint32_t *col;
  double *val;
} ep_row;

typedef struct ep {
  const ade__meta *m;
  ade__u64map ids;   /* variable id -> slot */
  ade__u64map pairs; /* row slot << 32 | column slot -> position in the row */
  uint64_t *id, *key;
  double *adj, *diag;
  uint8_t *hasdiag;
  ep_row *row;
  uint32_t *freel;
  size_t nfree, nslots, cap, live, max_live;
  uint64_t updates, fma, step;
  ade__hlog *log;
  /* Preaccumulation (else NULL): the statement workspace, the use counts of
   * the chunk being swept (its first record index first), and per chunk its
   * records other than independents that later chunks made live. */
  ade__stmt *stmt;
  uint8_t *uses;
  size_t usescap;
  uint64_t first;
  ade__buf *pend; /* uint64_t ids */
  size_t limit, rowbytes; /* the tape's memory limit; bytes of the rows */
  int over;               /* ep_budget failed (its message stands) */
  int structural;         /* the pattern: structural partials, no values */
} ep;

/* Within the tape's memory limit with cap live slots? The slot arrays,
 * the maps and the rows of the live Hessian. */
static int ep_budget(ep *e, size_t cap) {
  size_t per = 2 * sizeof *e->id + 2 * sizeof *e->adj + 1 + sizeof *e->freel + sizeof *e->row;
  size_t bytes = ade__mul_size(cap, per) + (e->ids.cap + e->pairs.cap) * 2 * sizeof(uint64_t) + e->rowbytes;
  if (!ade__over_budget(e->limit, bytes)) return ADE_OK;
  e->over = 1;
  return ade__budget(e->limit, bytes, "edge pushing's live set of %zu variables and %zu Hessian entries", e->live,
                     e->pairs.n);
}

static void ep_free(ep *e) {
  ade__u64map_free(&e->ids);
  ade__u64map_free(&e->pairs);
  for (size_t s = 0; s < e->nslots; s++) {
    ade__free(e->row[s].col);
    ade__free(e->row[s].val);
  }
  ade__free(e->id);
  ade__free(e->key);
  ade__free(e->adj);
  ade__free(e->diag);
  ade__free(e->hasdiag);
  ade__free(e->row);
  ade__free(e->freel);
  ade__free(e->stmt);
  ade__free(e->uses);
  for (size_t c = 0; e->pend && c < e->m->nchunks; c++) ade__buf_free(&e->pend[c]);
  ade__free(e->pend);
}

#define GROW(p, n)                                                             \
  do {                                                                         \
    void *q_ = ade__realloc((p), ade__mul_size((n), sizeof *(p)));             \
    if (!q_) return ADE_ENOMEM;                                                \
    (p) = q_;                                                                  \
  } while (0)

static int ep_grow(ep *e) {
  size_t cap = e->cap ? 2 * e->cap : 256;
  if (cap > UINT32_MAX) return ADE_ETOOBIG;
  if (ep_budget(e, cap)) return ADE_ENOMEM;
  GROW(e->id, cap);
  GROW(e->key, cap);
  GROW(e->adj, cap);
  GROW(e->diag, cap);
  GROW(e->hasdiag, cap);
  GROW(e->freel, cap);
  GROW(e->row, cap);
  e->cap = cap;
  return ADE_OK;
}

/* Preaccumulation: record id, of an earlier chunk than the one swept, has
 * been made live; its chunk's statements must not hold it. */
static int pend_add(ep *e, uint64_t id) {
  size_t lo = 0, hi = e->m->nchunks;
  while (hi - lo > 1) { /* the last chunk with first < id */
    size_t mid = lo + (hi - lo) / 2;
    if (e->m->chunks[mid].first < id) lo = mid;
    else hi = mid;
  }
  return ade__buf_put(&e->pend[lo], &id, sizeof id);
}

/* The slot of live variable id, made live (zero adjoint, empty row) if new. */
static int slot_get(ep *e, uint64_t id, uint32_t *sp) {
  uint64_t *p = ade__u64map_find(&e->ids, id);
  if (p) {
    *sp = (uint32_t)*p;
    return ADE_OK;
  }
  if (!e->nfree && e->nslots == e->cap) {
    int st = ep_grow(e);
    if (st) return st;
  }
  uint32_t s = e->nfree ? e->freel[--e->nfree] : (uint32_t)e->nslots;
  if (s == e->nslots) {
    e->row[s] = (ep_row){0, 0, NULL, NULL};
    e->nslots++;
  }
  int isnew;
  if (!ade__u64map_put(&e->ids, id, s, &isnew)) {
    e->freel[e->nfree++] = s;
    return ADE_ENOMEM;
  }
  e->id[s] = id;
  e->key[s] = ade__hkey(e->m, id);
  e->adj[s] = e->diag[s] = 0;
  e->hasdiag[s] = 0;
  e->row[s].n = 0;
  if (++e->live > e->max_live) e->max_live = e->live;
  *sp = s;
  return e->pend && id <= e->first && e->key[s] >= e->m->nindep ? pend_add(e, id) : ADE_OK;
}

static void slot_kill(ep *e, uint32_t s) {
  ep_row *r = &e->row[s];
  for (uint32_t q = 0; q < r->n; q++) ade__u64map_del(&e->pairs, (uint64_t)s << 32 | r->col[q]);
  r->n = 0;
  ade__u64map_del(&e->ids, e->id[s]);
  e->freel[e->nfree++] = s;
  e->live--;
}

/* h(a, b) += x: one Hessian edge update. */
static int add(ep *e, uint32_t a, uint32_t b, double x) {
  e->updates++;
  ade__hlog_count(e->log, e->step, 1);
  e->fma++;
  ade__hlog_add(e->log, e->step, e->key[a], e->key[b]);
  if (a == b) {
    e->diag[a] += x;
    e->hasdiag[a] = 1;
    return ADE_OK;
  }
  if (e->key[a] < e->key[b]) {
    uint32_t t = a;
    a = b;
    b = t;
  }
  ep_row *r = &e->row[a];
  int isnew;
  uint64_t *pos = ade__u64map_put(&e->pairs, (uint64_t)a << 32 | b, r->n, &isnew);
  if (!pos) return ADE_ENOMEM;
  if (isnew) {
    if (r->n == r->cap) {
      uint32_t cap = r->cap ? 2 * r->cap : 4;
      e->rowbytes += (cap - r->cap) * (sizeof *r->col + sizeof *r->val);
      if (ep_budget(e, e->cap)) {
        ade__u64map_del(&e->pairs, (uint64_t)a << 32 | b);
        return ADE_ENOMEM;
      }
      uint32_t *col = ade__realloc(r->col, cap * sizeof *col);
      if (col) r->col = col;
      double *val = ade__realloc(r->val, cap * sizeof *val);
      if (val) r->val = val;
      if (!col || !val) {
        ade__u64map_del(&e->pairs, (uint64_t)a << 32 | b);
        return ADE_ENOMEM;
      }
      r->cap = cap;
    }
    r->col[r->n] = b;
    r->val[r->n++] = 0;
  }
  r->val[*pos] += x;
  return ADE_OK;
}

/* Record (or statement) k = phi(u_1..u_np) with slot s, first partials d,
 * packed second partials h (eq. 4.2): pushing, creating, adjoints. */
static int process(ep *e, uint32_t s, int np, const uint64_t *id, const double *d, const double *h) {
  uint32_t u[ADE__STMT_MAXLEAF];
  int st = ADE_OK;
  for (int a = 0; a < np && !st; a++) st = slot_get(e, id[a], &u[a]);
  if (st) return st;
  const double adjk = e->adj[s];
  const ep_row *r = &e->row[s]; /* not reallocated below: no row of s is added to */
  for (uint32_t q = 0; q < r->n && !st; q++) { /* pushing */
    uint32_t p = r->col[q];
    for (int a = 0; a < np && !st; a++)
      st = add(e, u[a], p, (p == u[a] ? 2 : 1) * d[a] * r->val[q]);
  }
  if (e->hasdiag[s]) { /* pushing the diagonal: h(a, b) += d_a d_b h(k, k) */
    double t[ADE__STMT_MAXLEAF];
    for (int a = 0; a < np; a++) t[a] = d[a] * e->diag[s];
    e->updates += (uint64_t)np;
    e->fma += (uint64_t)np;
    ade__hlog_count(e->log, e->step, (uint64_t)np);
    for (int a = 0; a < np && !st; a++)
      for (int b = 0; b <= a && !st; b++) st = add(e, u[a], u[b], t[a] * d[b]);
  }
  for (int a = 0; a < np && !st && adjk != 0; a++) /* creating */
    for (int b = 0; b <= a && !st; b++)
      if (h[a * (a + 1) / 2 + b] != 0) st = add(e, u[a], u[b], h[a * (a + 1) / 2 + b] * adjk);
  for (int a = 0; a < np; a++) e->adj[u[a]] += d[a] * adjk; /* adjoints */
  e->fma += (uint64_t)np;
  return st;
}

/* Live record i of the view with slot s: by its own partials, or with
 * preaccumulation by those of the statement rooted at it (whose other
 * records are never made live, so the sweep passes over them). */
static int step(ep *e, const ade__view *v, uint32_t i, const double *V, uint32_t s) {
  if (e->adj[s] == 0 && !e->row[s].n && !e->hasdiag[s]) return ADE_OK;
  if (e->stmt) {
    ade__stmt *S = e->stmt;
    if (ade__stmt_build(v, i, V, e->uses, S) == 1)
      return process(e, s, S->rec[0].np, S->rec[0].id, S->rec[0].d, S->rec[0].h);
    e->fma += S->fma;
    return process(e, s, S->np, S->id, S->d, S->h);
  }
  ade__local L;
  if (e->structural) ade__hess_local_struct(v, i, &L);
  else ade__hess_local(v, i, V, &L);
  return process(e, s, L.np, L.id, L.d, L.h);
}

/* Preaccumulation: the use counts of chunk c, just loaded. */
static int chunk_uses(ep *e, const ade__view *v, size_t c) {
  e->first = v->first;
  if (!e->stmt) return ADE_OK;
  if (v->n > e->usescap) {
    uint8_t *u = ade__realloc(e->uses, v->n);
    if (!u) return ADE_ENOMEM;
    e->uses = u;
    e->usescap = v->n;
  }
  ade__stmt_uses(v, e->uses);
  for (size_t k = 0; k < e->pend[c].len; k += sizeof(uint64_t)) {
    uint64_t id;
    memcpy(&id, e->pend[c].p + k, sizeof id);
    e->uses[id - v->first - 1] = ADE__USE_MANY;
  }
  ade__buf_free(&e->pend[c]);
  return ADE_OK;
}

/* Live record rid of the resident form r with K operand slots ref (its
 * constants from cs on) and slot s: step's work without preaccumulation,
 * the rule N's partials at the values V inlined for K known (a passive
 * record has no local partials: processing none changes nothing). */
#define EP_RES_STEP(N, K, F)                                                   \
  do {                                                                         \
    ade__local L_;                                                             \
    double a_[ADE__MAX_ARITY + 1], d_[ADE__MAX_ARITY + 1], h_[6];              \
    uint64_t arg_[ADE__MAX_ARITY + 1];                                         \
    if (((F) & ADE__PASSIVE) || !(K)) break;                                   \
    for (int j_ = 0; j_ < (K); j_++) {                                         \
      arg_[j_] = ref[j_];                                                      \
      a_[j_] = ref[j_] ? V[ref[j_]] : *cs++;                                   \
    }                                                                          \
    ade__der_##N(a_, V[rid], d_, h_);                                          \
    ade__hess_merge((K), arg_, d_, h_, &L_);                                   \
    st = process(e, s, L_.np, L_.id, L_.d, L_.h);                              \
  } while (0)

/* The reverse sweep over the resident form r at the values V (r's own if
 * NULL), runs backward, one dispatch per run of one opcode: the records,
 * live sets and updates of the sweep over the chunks, in the same order. */
static int res_sweep(ep *e, const ade__res *r, const double *V, const double *w) {
  const double *cend = r->cst + r->ncst;
  const uint32_t *ref = r->ref + r->nref;
  uint64_t rid = r->n + 1;
  size_t jd = e->m->ndep;
  int st = ADE_OK;
  if (!V) V = r->val;
  for (size_t u = r->nrun; u-- > 0 && !st;) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define EP_RES(N, str, K, F)                                                   \
  case ADE_OP_##N:                                                             \
    for (uint32_t i = 0; i < len && !st; i++) {                                \
      uint32_t s;                                                              \
      rid--, ref -= (K);                                                       \
      for (int j = 0; j < (K); j++) cend -= !ref[j];                           \
      if (ADE_OP_##N == ADE_OP_INDEP) continue; /* live to the end */          \
      if (ADE_OP_##N == ADE_OP_DEP && (w ? w[--jd] : 1.0) != 0) {              \
        if ((st = slot_get(e, rid, &s))) break;                                \
        e->adj[s] += w ? w[jd] : 1.0;                                          \
      }                                                                        \
      uint64_t *ps = ade__u64map_find(&e->ids, rid);                           \
      if (!ps) continue; /* not live: no adjoint, no Hessian entries */        \
      s = (uint32_t)*ps;                                                       \
      e->step = e->key[s];                                                     \
      if (e->adj[s] != 0 || e->row[s].n || e->hasdiag[s]) {                    \
        const double *cs = cend;                                               \
        EP_RES_STEP(N, K, F);                                                  \
        if (st) break;                                                         \
      }                                                                        \
      slot_kill(e, s);                                                         \
      if (e->log && e->log->live && e->step < e->log->nkeys) e->log->live[e->step] = e->live; \
    }                                                                          \
    break;
      ADE_OPS(EP_RES)
#undef EP_RES
    }
  }
  return st;
}

/* The reverse sweep over the chunks, last to first. */
static int sweep(ep *e, ade_tape *t, const double *V, const double *w) {
  const ade__meta *m = &t->meta;
  size_t jd = m->ndep;
  /* The resident form when it fits (not at the tape's bounded-memory
   * point, whose values live in the chunks' views); statements and the
   * structural pattern read the chunks. */
  const ade__res *r = e->stmt || e->structural || t->pt.active ? NULL : ade__res_get(t);
  if (r) return res_sweep(e, r, V, w);
  for (size_t c = m->nchunks; c-- > 0;) {
    int st = ade__view_load(t, c);
    if (!st) st = chunk_uses(e, &t->view, c);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = v->n; i-- > 0;) {
      unsigned op = v->op[i];
      uint64_t rid = v->first + i + 1;
      uint32_t s;
      if (op == ADE_OP_INDEP) continue; /* independents stay live to the end */
      if (e->uses && e->uses[i] == ADE__USE_INNER) continue; /* in a statement */
      if (op == ADE_OP_DEP && (w ? w[--jd] : 1.0) != 0) {
        if ((st = slot_get(e, rid, &s))) return st;
        e->adj[s] += w ? w[jd] : 1.0;
      }
      uint64_t *ps = ade__u64map_find(&e->ids, rid);
      if (!ps) continue; /* not live: no adjoint, no Hessian entries */
      s = (uint32_t)*ps;
      e->step = e->key[s];
      if ((st = step(e, v, i, V, s))) return st;
      slot_kill(e, s);
      if (e->log && e->log->live && e->step < e->log->nkeys) e->log->live[e->step] = e->live;
    }
  }
  return ADE_OK;
}

/* The live independents' rows are the Hessian, their adjoints the gradient. */
static int result(ep *e, size_t n, ade_sparse **H, double *g) {
  size_t nt = 0, k = 0;
  if (g) memset(g, 0, n * sizeof *g);
  for (size_t s = 0; s < e->nslots; s++)
    if (ade__u64map_find(&e->ids, e->id[s]) && *ade__u64map_find(&e->ids, e->id[s]) == s)
      nt += e->row[s].n + e->hasdiag[s];
  ade__trip *T = ade__alloc(ade__mul_size(nt ? nt : 1, sizeof *T));
  if (!T) return ADE_ENOMEM;
  for (size_t s = 0; s < e->nslots; s++) {
    uint64_t *p = ade__u64map_find(&e->ids, e->id[s]);
    if (!p || *p != s) continue;
    size_t row = (size_t)e->key[s];
    if (g) g[row] = e->adj[s];
    if (e->hasdiag[s]) T[k++] = (ade__trip){row, row, e->diag[s]};
    for (uint32_t q = 0; q < e->row[s].n; q++)
      T[k++] = (ade__trip){row, (size_t)e->key[e->row[s].col[q]], e->row[s].val[q]};
  }
  int st = ade__hess_from_triplets(n, T, nt, H);
  ade__free(T);
  return st;
}

static int run(ade_tape *t, const double *V, const double *w, int preacc, ade_sparse **H, double *g,
               ade_hess_report *r, ade__hlog *log) {
  ep e;
  memset(&e, 0, sizeof e);
  e.structural = preacc < 0;
  if (preacc < 0) preacc = 0;
  e.m = &t->meta;
  e.log = log;
  e.limit = t->memlimit;
  int st = ADE_OK;
  if (preacc) {
    e.stmt = ade__alloc(sizeof *e.stmt);
    e.pend = ade__calloc(t->meta.nchunks ? t->meta.nchunks : 1, sizeof *e.pend);
    if (!e.stmt || !e.pend) st = ADE_ENOMEM;
  }
  if (!st) st = sweep(&e, t, V, w);
  if (!st) st = result(&e, t->meta.nindep, H, g);
  if (st == ADE_ENOMEM && !e.over) st = ade__fail(ADE_ENOMEM, "edge pushing: out of memory (%zu live variables)", e.live);
  else if (st == ADE_ETOOBIG) st = ade__fail(ADE_ETOOBIG, "edge pushing: more than 2^32 live variables");
  if (log && log->failed && !st) st = ade__fail(ADE_ENOMEM, "out of memory for the update log");
  r->updates = e.updates;
  r->fma = e.fma;
  r->max_live = e.max_live;
  ep_free(&e);
  return st;
}

int ade__edge_push(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g,
                   ade_hess_report *r, ade__hlog *log) {
  return run(t, V, w, 0, H, g, r, log);
}

int ade__edge_push_preacc(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g,
                          ade_hess_report *r, ade__hlog *log) {
  return run(t, V, w, 1, H, g, r, log);
}

int ade__edge_push_pattern(ade_tape *t, ade_sparse **H, ade_hess_report *r) {
  return run(t, NULL, NULL, -1, H, NULL, r, NULL);
}
