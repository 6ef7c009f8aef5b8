/* stream.c: Jacobians by elimination in parts read backward from the tape, in bounded memory. */
#include <stdlib.h>
#include <string.h>

#include "elim_internal.h"
#include "eval_internal.h"
#include "opt_internal.h"

/* Records read to find the repeated blocks; records outside them are cut
 * into parts of at most CUT. */
#define PREFIX ((size_t)1 << 16)
#define CUT ((size_t)1024)

/* The parts: [1, a) cut into pieces of CUT, nb blocks of L from a, the
 * rest cut into pieces of CUT. */
typedef struct layout {
  size_t a, L, nb;
} layout;

static size_t part_start(const layout *p, size_t id) {
  size_t e = p->a + p->nb * p->L;
  if (id < p->a) return 1 + (id - 1) / CUT * CUT;
  if (id < e) return p->a + (id - p->a) / p->L * p->L;
  return e + (id - e) / CUT * CUT;
}

/* A class of identical parts: its vertex sequence as local indices, or
 * none (an adjoint sweep through the part costs less). */
typedef struct sclass {
  size_t *step, len;
  int elim;
} sclass;

/* The part being read: records [s, s + n) by offset, their operands. */
typedef struct spart {
  size_t cap;
  uint8_t *op;
  uint8_t *nop;
  uint64_t *oid;       /* ADE__MAX_ARITY per record */
  double *od;
  size_t *col;         /* an independent's column */
  size_t *rv, *cv;     /* its vertex, its X copy's (ADE__NONE) */
  uint64_t *ext;       /* the operands from before s, sorted */
  size_t next;
} spart;

typedef struct sstate {
  ade_tape *t;
  size_t q, n;         /* adjoints per live value (m), columns */
  ade__livemap map;    /* the live values' adjoints */
  double *J;           /* m x n dense */
  spart p;
  ade__table cls;
  int cls_init;
  sclass *ks;
  size_t nk, kcap;
  uint64_t *key;
  size_t keycap, keylen;
  double *acc;         /* q per vertex of the part's graph */
  size_t acccap;
  const ade_opt_limits *lim;
  ade__clock clk;
  ade_stream_report r;
} sstate;

static void spart_free(spart *p) {
  ade__free(p->op);
  ade__free(p->nop);
  ade__free(p->oid);
  ade__free(p->od);
  ade__free(p->col);
  ade__free(p->rv);
  ade__free(p->cv);
  ade__free(p->ext);
}

static int spart_reserve(spart *p, size_t n) {
  if (n <= p->cap) return ADE_OK;
  spart b = {n, ade__alloc(n), ade__alloc(n), ade__alloc(n * ADE__MAX_ARITY * sizeof(uint64_t)),
             ade__alloc(n * ADE__MAX_ARITY * sizeof(double)), ade__alloc(n * sizeof(size_t)),
             ade__alloc(n * sizeof(size_t)), ade__alloc(n * sizeof(size_t)),
             ade__alloc(n * ADE__MAX_ARITY * sizeof(uint64_t)), 0};
  if (!b.op || !b.nop || !b.oid || !b.od || !b.col || !b.rv || !b.cv || !b.ext) {
    spart_free(&b);
    return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a part of %zu records", n);
  }
  spart_free(p);
  *p = b;
  return ADE_OK;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The operands of records [s, s + n) from before s, sorted, distinct. */
static size_t externals(spart *p, size_t s, size_t n) {
  size_t ne = 0;
  for (size_t k = 0; k < n; k++)
    for (int j = 0; j < p->nop[k]; j++)
      if (p->oid[k * ADE__MAX_ARITY + j] < s) p->ext[ne++] = p->oid[k * ADE__MAX_ARITY + j];
  qsort(p->ext, ne, sizeof *p->ext, cmp_u64);
  size_t u = 0;
  for (size_t i = 0; i < ne; i++)
    if (!u || p->ext[u - 1] != p->ext[i]) p->ext[u++] = p->ext[i];
  return u;
}

static size_t ext_index(const spart *p, size_t ne, uint64_t id) {
  size_t lo = 0, hi = ne;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (p->ext[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int add_vertex(ade_cgraph *h, long id, int kind, size_t *ix) {
  int st = ade__graph_add_vertex(h, id, kind, ix);
  if (st) return st;
  if (kind == ADE__X) h->v[*ix].aux = h->n, h->xv[h->n++] = *ix;
  if (kind == ADE__Y) h->v[*ix].aux = h->m, h->yv[h->m++] = *ix;
  return ADE_OK;
}

/* The graph of part [s, s + n): the operands from before s as X (local
 * ids 1..ne), then record k as vertex ne + 1 + 2k: X if an independent, Y
 * if live after the part (its adjoint is in the map), else Z; a Y read
 * inside the part gets an X copy (id ne + 2 + 2k) that feeds its readers,
 * so that every path through it ends there. */
static int part_graph(sstate *w, size_t s, size_t n, size_t ne, ade_cgraph **hp) {
  spart *p = &w->p;
  ade_cgraph *h = ade__calloc(1, sizeof *h);
  size_t nv = ne + 2 * n + 1, ix;
  char *succ = ade__calloc(n + 1, 1);
  int st = h && succ ? ade__graph_init(h, 0, nv, 2 * n + 1) : ADE_ENOMEM;
  if (!st && (!(h->xv = ade__alloc(nv * sizeof *h->xv)) || !(h->yv = ade__alloc(nv * sizeof *h->yv))))
    st = ADE_ENOMEM;
  if (st) st = ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a part of %zu records", n);
  if (h) h->memlimit = w->t->memlimit;
  for (size_t k = 0; !st && k < n; k++)
    for (int j = 0; j < p->nop[k]; j++)
      if (p->oid[k * ADE__MAX_ARITY + j] >= s) succ[p->oid[k * ADE__MAX_ARITY + j] - s] = 1;
  for (size_t k = 0; !st && k < ne; k++) st = add_vertex(h, (long)k + 1, ADE__X, &ix);
  for (size_t k = 0; !st && k < n; k++) {
    int live = p->op[k] != ADE_OP_INDEP && ade__livemap_find(&w->map, s + k);
    int kind = p->op[k] == ADE_OP_INDEP ? ADE__X : live ? ADE__Y : ADE__Z;
    p->cv[k] = ADE__NONE;
    st = add_vertex(h, (long)(ne + 1 + 2 * k), kind, &p->rv[k]);
    if (!st && live && succ[k]) st = add_vertex(h, (long)(ne + 2 + 2 * k), ADE__X, &p->cv[k]);
  }
  for (size_t k = 0; !st && k < n; k++)
    for (int j = 0; !st && j < p->nop[k]; j++) {
      uint64_t a = p->oid[k * ADE__MAX_ARITY + j];
      size_t src = a < s ? h->xv[ext_index(p, ne, a)] : p->cv[a - s] != ADE__NONE ? p->cv[a - s] : p->rv[a - s];
      size_t e = ade__graph_find(h, src, p->rv[k]);
      double d = p->od[k * ADE__MAX_ARITY + j];
      if (e != ADE__NONE) h->e[e].val += d; /* parallel edges merge */
      else st = ade__graph_add_edge(h, src, p->rv[k], d, NULL);
    }
  ade__free(succ);
  if (st) ade_cgraph_free(h), h = NULL;
  *hp = h;
  return st;
}

/* A new class for part graph h: the best heuristic vertex sequence, kept
 * if eliminating by it and sweeping adjoints through what is left costs
 * less than sweeping them through h. */
static int solve_class(sstate *w, const ade_cgraph *h, sclass *k) {
  ade_elim_seq *s = NULL;
  ade_cgraph *c = NULL;
  uint64_t cost = 0;
  memset(k, 0, sizeof *k);
  int st = ade__opt_heuristic(h, ADE_SEQ_VERTEX, &w->clk, &s);
  if (!st) st = ade_cgraph_copy(&c, h);
  if (!st && !(k->step = ade__alloc((s->len + 1) * sizeof *k->step)))
    st = ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a sequence of %zu steps", s->len);
  for (size_t i = 0; !st && i < s->len; i++) {
    k->step[i] = ade__graph_vertex(h, s->step[i].a);
    st = ade__elim_vertex_ix(c, k->step[i], &cost);
  }
  if (!st) k->len = s->len, k->elim = c->fma + w->q * c->nedges < w->q * h->nedges;
  else ade__free(k->step), k->step = NULL;
  ade_cgraph_free(c);
  ade_seq_free(s);
  return st;
}

static int class_of(sstate *w, const ade_cgraph *h, const sclass **kp) {
  uint64_t val;
  int st = ade__part_key(h, &w->key, &w->keycap, &w->keylen);
  if (!st && ade__table_get(&w->cls, w->key, w->keylen, &val)) {
    *kp = &w->ks[val];
    return ADE_OK;
  }
  if (!st && w->nk == w->kcap) {
    size_t nc = w->kcap ? 2 * w->kcap : 16;
    sclass *b = ade__realloc(w->ks, nc * sizeof *b);
    if (!b) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for %zu classes", nc);
    w->ks = b, w->kcap = nc;
  }
  if (!st) st = solve_class(w, h, &w->ks[w->nk]);
  if (st) return st;
  w->nk++;
  st = ade__table_put(&w->cls, w->key, w->keylen, w->nk - 1);
  if (st == ADE_ETOOBIG) st = ADE_OK; /* the table is full: later parts of the class are solved again */
  *kp = &w->ks[w->nk - 1];
  return st ? ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for the classes' table") : ADE_OK;
}

/* The adjoints through what is left of h, from its Y vertices (the map's
 * adjoints of their records) to its X vertices: every other vertex in
 * descending order (its accumulated adjoint complete: every edge leads
 * to a higher id) passes its adjoint along its in-edges, q fma per edge.
 * Then the X vertices hand theirs on: an operand from before the part to
 * the map, an independent to its column of J, a copy to its record. */
static int fold(sstate *w, ade_cgraph *h, size_t s, size_t n, size_t ne) {
  spart *p = &w->p;
  size_t q = w->q, nv = h->nv;
  if (nv * q > w->acccap) {
    double *a = ade__realloc(w->acc, nv * q * sizeof *a);
    if (!a) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for %zu adjoints", nv * q);
    w->acc = a, w->acccap = nv * q;
  }
  double *acc = w->acc;
  memset(acc, 0, nv * q * sizeof *acc);
  for (size_t k = n; k-- > 0;) {
    size_t v = p->rv[k];
    double *A = acc + v * q;
    const double *M = ade__livemap_find(&w->map, s + k);
    for (size_t l = 0; M && l < q; l++) A[l] += M[l];
    if (p->cv[k] != ADE__NONE)
      for (size_t l = 0; l < q; l++) A[l] += acc[p->cv[k] * q + l];
    ade__livemap_remove(&w->map, s + k);
    if (p->op[k] == ADE_OP_INDEP) {
      for (size_t l = 0; l < q; l++) w->J[l * w->n + p->col[k]] += A[l];
      continue;
    }
    const ade__vtx *x = &h->v[v];
    for (size_t i = 0; x->alive && i < x->nin; i++) {
      const ade__edge *e = &h->e[x->in[i]];
      double *B = acc + e->src * q;
      for (size_t l = 0; l < q; l++) B[l] += e->val * A[l];
      w->r.fold_fma += q;
    }
  }
  for (size_t k = 0; k < ne; k++) {
    double *M = ade__livemap_get(&w->map, p->ext[k]);
    if (!M) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for %zu live adjoints", w->map.n);
    for (size_t l = 0; l < q; l++) M[l] += acc[h->xv[k] * q + l];
  }
  if (w->map.n > w->r.max_live) w->r.max_live = w->map.n;
  return ADE_OK;
}

/* Part [s, s + n), read: its graph, its interior eliminated by its class's
 * sequence, the adjoints folded through it. */
static int do_part(sstate *w, size_t s, size_t n) {
  ade_cgraph *h = NULL;
  const sclass *k = NULL;
  uint64_t cost = 0;
  size_t ne = externals(&w->p, s, n);
  int st = part_graph(w, s, n, ne, &h);
  if (!st) w->r.reverse_fma += w->q * h->nedges;
  if (!st) st = class_of(w, h, &k);
  for (size_t i = 0; !st && k->elim && i < k->len; i++) st = ade__elim_vertex_ix(h, k->step[i], &cost);
  if (!st) st = fold(w, h, s, n, ne);
  if (!st) {
    size_t bytes = h->vcap * sizeof(ade__vtx) + h->ecap * sizeof(ade__edge) + h->hcap * sizeof(size_t) +
                   h->nv * w->q * sizeof(double) + w->p.cap * (2 + ADE__MAX_ARITY * 24 + 3 * sizeof(size_t));
    if (bytes > w->r.part_bytes) w->r.part_bytes = bytes;
    w->r.elim_fma += h->fma;
    w->r.parts++;
    w->r.eliminated += k->elim != 0;
    if (n > w->r.largest) w->r.largest = n;
  }
  ade_cgraph_free(h);
  return st;
}

/* Every chunk backward; each part is processed once its first record is read. */
static int sweep(sstate *w, const layout *lay) {
  ade_tape *t = w->t;
  const ade__meta *m = &t->meta;
  size_t ix = m->nindep, end = (size_t)m->records + 1, s = 0, n = 0;
  for (size_t c = m->nchunks; c-- > 0;) {
    const ade__lin *L = NULL;
    int st = ade__lin_get(t, c, &L);
    if (st) return st;
    for (uint32_t i = L->n; i-- > 0;) {
      size_t rid = (size_t)L->first + i + 1;
      if (rid >= end) continue;
      if (!n) {
        s = part_start(lay, rid), n = rid + 1 - s;
        if ((st = spart_reserve(&w->p, n))) return st;
      }
      size_t k = rid - s, o = 0;
      w->p.op[k] = L->op[i];
      if (L->op[i] == ADE_OP_INDEP) w->p.col[k] = --ix;
      for (uint32_t j = L->pos[i]; j < L->pos[i + 1] && o < ADE__MAX_ARITY; j++, o++) {
        w->p.oid[k * ADE__MAX_ARITY + o] = L->id[j];
        w->p.od[k * ADE__MAX_ARITY + o] = L->d[j];
      }
      w->p.nop[k] = (uint8_t)o;
      if (rid == s) {
        if ((st = do_part(w, s, n))) return st;
        end = s, n = 0;
      }
    }
  }
  return ADE_OK;
}

static int stream(sstate *w, ade_sparse **J) {
  ade_tape *t = w->t;
  const ade__meta *m = &t->meta;
  layout lay = {(size_t)m->records + 1, 1, 0};
  size_t a = 0, L = 0;
  int st = ade__tape_usable(t);
  if (!st) st = ade__tape_scalar(t, "streaming elimination");
  if (!st && m->ndep && m->nindep > SIZE_MAX / sizeof(double) / m->ndep)
    st = ade__fail(ADE_ETOOBIG, "streaming elimination: a %zu x %zu Jacobian is too large", (size_t)m->ndep,
                   (size_t)m->nindep);
  if (!st) st = ade__budget(t->memlimit, (size_t)m->ndep * m->nindep * sizeof(double),
                            "streaming elimination: the dense %zu x %zu Jacobian", (size_t)m->ndep,
                            (size_t)m->nindep);
  if (!st) st = ade__parts_period(t, PREFIX, &a, &L);
  if (st) return st;
  if (L) lay.a = a, lay.L = L, lay.nb = ((size_t)m->records + 1 - a) / L;
  w->r.period = L;
  w->q = m->ndep, w->n = m->nindep;
  w->map.q = w->q ? w->q : 1;
  if (!(w->J = ade__calloc(w->q * w->n + 1, sizeof *w->J)))
    return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for the Jacobian");
  if ((st = ade__table_init(&w->cls, (size_t)64 << 20))) return st;
  w->cls_init = 1;
  for (size_t i = 0; i < m->ndep; i++) {
    if (!m->dep[i]) continue; /* a passive dependent: a zero row */
    double *A = ade__livemap_get(&w->map, m->dep[i]);
    if (!A) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory seeding the adjoints");
    A[i] += 1.0;
  }
  if (w->q && (st = sweep(w, &lay))) return st;
  size_t nnz = 0;
  for (size_t i = 0; i < w->q * w->n; i++) nnz += w->J[i] != 0.0;
  if ((st = ade_sparse_create(J, w->q, w->n, nnz, 0))) return st;
  size_t e = 0;
  for (size_t i = 0; i < w->q; i++) {
    (*J)->rowptr[i] = e;
    for (size_t j = 0; j < w->n; j++)
      if (w->J[i * w->n + j] != 0.0) (*J)->col[e] = j, (*J)->val[e++] = w->J[i * w->n + j];
  }
  (*J)->rowptr[w->q] = e;
  (*J)->nnz = e;
  return ADE_OK;
}

int ade_jacobian_stream(const ade_tape *t, const ade_opt_limits *limits, ade_sparse **J, ade_stream_report *report) {
  ade_opt_limits def;
  sstate w;
  if (!t || !J) return ade__fail(ADE_EINVAL, "ade_jacobian_stream: NULL argument");
  *J = NULL;
  memset(&w, 0, sizeof w);
  if (!limits) ade_opt_limits_init(&def), limits = &def;
  w.lim = limits;
  ade__clock_start(&w.clk, limits);
  double t0 = ade__now();
  ade_tape *c = NULL, *shared = (ade_tape *)(uintptr_t)t; /* read through a clone: t itself is not changed */
  int st = ade__tape_borrow(shared, &c);
  if (!st) {
    w.t = c;
    st = stream(&w, J);
    w.r.records = c->meta.records;
    st = ade__tape_release(shared, c, st);
  }
  w.r.classes = w.nk;
  w.r.fma = w.r.elim_fma + w.r.fold_fma;
  w.r.peak_bytes = w.r.part_bytes + w.map.cap * (sizeof(uint64_t) + w.map.q * sizeof(double)) +
                   w.q * w.n * sizeof(double) + (w.cls_init ? w.cls.cap * 32 + w.cls.acap * 8 : 0);
  w.r.seconds = ade__now() - t0;
  for (size_t k = 0; k < w.nk; k++) ade__free(w.ks[k].step);
  ade__free(w.ks);
  ade__free(w.key);
  ade__free(w.acc);
  ade__free(w.J);
  spart_free(&w.p);
  ade__livemap_free(&w.map);
  if (w.cls_init) ade__table_free(&w.cls);
  if (st) ade_sparse_free(*J), *J = NULL;
  if (report) *report = w.r;
  return st;
}
