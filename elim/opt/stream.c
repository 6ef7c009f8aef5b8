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

/* A class of identical parts, compiled from its first part: the slot
 * (edge number of the part's graph) each operand's partial goes to, the
 * elimination's arithmetic on the slots (none if an adjoint sweep through
 * the part costs less), and what is left: per record the in-edges of its
 * vertex (source vertex, slot), through which the adjoints are folded. */
typedef struct sclass {
  size_t n, ne, nv, nslot, nops;
  size_t e0;           /* edges before the elimination */
  size_t *init;        /* nops: the slot of each operand, in record order */
  ade__planrec prog;   /* SET and FMA steps on the slots */
  size_t *rv, *cv;     /* n: each record's vertex, its X copy's (ADE__NONE) */
  size_t *xv;          /* ne: each external operand's vertex */
  size_t *inptr;       /* n + 1: record k's in-edges [inptr[k], inptr[k + 1]) */
  size_t *insrc, *inslot;
  int elim;
  size_t bytes;
} sclass;

static void sclass_free(sclass *k) {
  if (!k) return;
  ade__free(k->init);
  ade__plan_rec_free(&k->prog);
  ade__free(k->rv);
  ade__free(k->cv);
  ade__free(k->xv);
  ade__free(k->inptr);
  ade__free(k->insrc);
  ade__free(k->inslot);
  ade__free(k);
}

/* The part being read: records [s, s + n) by offset, their operands. */
typedef struct spart {
  size_t cap;
  uint8_t *op;
  uint8_t *nop;
  uint64_t *oid;       /* ADE__MAX_ARITY per record */
  double *od;
  size_t *col;         /* an independent's column */
  uint8_t *live;       /* read after the part (its adjoint is in the map) */
  uint64_t *ext;       /* the operands from before s, in order of first use */
} spart;

/* Classes kept for later parts at most (bytes): beyond, parts are solved
 * and compiled each time (a tape without repeats). */
#define CLASS_BYTES ((size_t)64 << 20)

typedef struct sstate {
  ade_tape *t;
  size_t q, n;         /* adjoints per live value (m), columns */
  ade__livemap map;    /* the live values' adjoints */
  double *J;           /* m x n dense */
  spart p;
  ade__u64map extix;   /* external operand -> its index */
  ade__table cls;
  int cls_init;
  sclass **ks;
  size_t nk, kcap, kbytes;
  uint64_t *key;
  size_t keycap, keylen;
  double *acc;         /* q per vertex of the part's graph */
  size_t acccap;
  double *slot;
  size_t slotcap;
  ade__clock clk;
  int block;           /* the part read is a block of the period (its class repeats) */
  ade_stream_report r;
} sstate;

static void spart_free(spart *p) {
  ade__free(p->op);
  ade__free(p->nop);
  ade__free(p->oid);
  ade__free(p->od);
  ade__free(p->col);
  ade__free(p->live);
  ade__free(p->ext);
}

static int spart_reserve(spart *p, size_t n) {
  if (n <= p->cap) return ADE_OK;
  spart b = {n, ade__alloc(n), ade__alloc(n), ade__alloc(n * ADE__MAX_ARITY * sizeof(uint64_t)),
             ade__alloc(n * ADE__MAX_ARITY * sizeof(double)), ade__alloc(n * sizeof(size_t)), ade__alloc(n),
             ade__alloc(n * ADE__MAX_ARITY * sizeof(uint64_t))};
  if (!b.op || !b.nop || !b.oid || !b.od || !b.col || !b.live || !b.ext) {
    spart_free(&b);
    return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a part of %zu records", n);
  }
  spart_free(p);
  *p = b;
  return ADE_OK;
}

static int grow_u64(uint64_t **a, size_t *cap, size_t need) {
  if (need <= *cap) return ADE_OK;
  size_t nc = need > 2 * *cap ? need : 2 * *cap;
  uint64_t *b = ade__realloc(*a, nc * sizeof *b);
  if (!b) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a key of %zu words", nc);
  *a = b, *cap = nc;
  return ADE_OK;
}

/* Part [s, s + n): its external operands in order of first use (*ne), the
 * records' liveness, and its key: what its graph is made of (records'
 * opcodes, liveness, operands as external index or offset), equal for
 * identical parts wherever they lie. */
static int part_key(sstate *w, size_t s, size_t n, size_t *nep) {
  spart *p = &w->p;
  size_t ne = 0, len = 2;
  int st = grow_u64(&w->key, &w->keycap, 2 + n * (1 + ADE__MAX_ARITY)), isnew;
  if (st) return st;
  ade__u64map_clear(&w->extix);
  for (size_t k = 0; k < n; k++) {
    p->live[k] = p->op[k] != ADE_OP_INDEP && ade__livemap_find(&w->map, s + k) != NULL;
    w->key[len++] = p->op[k] | (uint64_t)p->nop[k] << 8 | (uint64_t)p->live[k] << 16;
    for (int j = 0; j < p->nop[k]; j++) {
      uint64_t a = p->oid[k * ADE__MAX_ARITY + j], *x;
      if (a >= s + k || !a) /* the reader rejects these; a corrupt tape must not reach the arrays */
        return ade__fail(ADE_EFORMAT, "streaming elimination: record %zu reads %llu, not an earlier record", s + k,
                         (unsigned long long)a);
      if (a >= s) {
        w->key[len++] = 2 * (a - s) + 1;
        continue;
      }
      if (!(x = ade__u64map_put(&w->extix, a, ne, &isnew))) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory");
      if (isnew) p->ext[ne++] = a;
      w->key[len++] = 2 * *x;
    }
  }
  w->key[0] = n, w->key[1] = ne, w->keylen = len;
  *nep = ne;
  return st;
}

static int add_vertex(ade_cgraph *h, long id, int kind, size_t *ix) {
  int st = ade__graph_add_vertex(h, id, kind, ix);
  if (st) return st;
  if (kind == ADE__X) h->v[*ix].aux = h->n, h->xv[h->n++] = *ix;
  if (kind == ADE__Y) h->v[*ix].aux = h->m, h->yv[h->m++] = *ix;
  return ADE_OK;
}

/* The graph of part [s, s + n): the external operands as X (local ids
 * 1..ne), then record k as vertex ne + 1 + 2k: X if an independent, Y if
 * live after the part, else Z; a Y read inside the part gets an X copy
 * (id ne + 2 + 2k) that feeds its readers, so that every path through it
 * ends there. k->init gets each operand's edge number. */
static int part_graph(sstate *w, size_t s, size_t n, sclass *k, ade_cgraph **hp) {
  spart *p = &w->p;
  size_t ne = k->ne, nv = ne + 2 * n + 1, pos = 0;
  ade_cgraph *h = ade__calloc(1, sizeof *h);
  char *succ = ade__calloc(n + 1, 1);
  int st = h && succ ? ade__graph_init(h, 0, nv, 2 * n + 1) : ADE_ENOMEM;
  if (!st && (!(h->xv = ade__alloc(nv * sizeof *h->xv)) || !(h->yv = ade__alloc(nv * sizeof *h->yv))))
    st = ADE_ENOMEM;
  if (st) st = ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a part of %zu records", n);
  if (h) h->memlimit = w->t->memlimit;
  for (size_t r = 0; !st && r < n; r++)
    for (int j = 0; j < p->nop[r]; j++)
      if (p->oid[r * ADE__MAX_ARITY + j] >= s) succ[p->oid[r * ADE__MAX_ARITY + j] - s] = 1;
  for (size_t e = 0; !st && e < ne; e++) st = add_vertex(h, (long)e + 1, ADE__X, &k->xv[e]);
  for (size_t r = 0; !st && r < n; r++) {
    int kind = p->op[r] == ADE_OP_INDEP ? ADE__X : p->live[r] ? ADE__Y : ADE__Z;
    k->cv[r] = ADE__NONE;
    st = add_vertex(h, (long)(ne + 1 + 2 * r), kind, &k->rv[r]);
    if (!st && p->live[r] && succ[r]) st = add_vertex(h, (long)(ne + 2 + 2 * r), ADE__X, &k->cv[r]);
  }
  for (size_t r = 0; !st && r < n; r++)
    for (int j = 0; !st && j < p->nop[r]; j++) {
      uint64_t a = p->oid[r * ADE__MAX_ARITY + j];
      size_t src = a < s ? k->xv[*ade__u64map_find(&w->extix, a)] : k->cv[a - s] != ADE__NONE ? k->cv[a - s]
                                                                                               : k->rv[a - s];
      size_t e = ade__graph_find(h, src, k->rv[r]);
      double d = p->od[r * ADE__MAX_ARITY + j];
      if (e != ADE__NONE) h->e[e].val += d; /* parallel edges merge */
      else st = ade__graph_add_edge(h, src, k->rv[r], d, &e);
      if (!st) k->init[pos++] = (size_t)h->e[e].id;
    }
  ade__free(succ);
  if (st) ade_cgraph_free(h), h = NULL;
  *hp = h;
  return st;
}

/* Whether eliminating h by the best heuristic sequence and sweeping the
 * adjoints through what is left costs less than sweeping them through h;
 * if so, h eliminated by it, the arithmetic recorded in k->prog. A block
 * of the period (its class repeats) gets the heuristics of the vertex and
 * edge kinds (an edge plan where it costs less; dynamic programming
 * among them, whose time the repeats pay back), a piece cut from the rest
 * the vertex ones (die, 50 pieces of 1024 records: 1.3 s with the edge
 * heuristics, 0.07 s without, the same fma). */
static int eliminate(sstate *w, ade_cgraph *h, sclass *k) {
  ade_elim_seq *s = NULL;
  ade_cgraph *c = NULL;
  uint64_t cost = 0;
  int st = ade__opt_heuristic(h, w->block ? ADE_SEQ_EDGE : ADE_SEQ_VERTEX, &w->clk, 1, &s);
  if (!st) st = ade_cgraph_copy(&c, h);
  for (size_t i = 0; !st && i < s->len; i++) st = ade__seq_apply_step(c, s->kind, &s->step[i], &cost);
  if (!st) k->elim = c->fma + w->q * c->nedges < w->q * h->nedges;
  if (!st && k->elim && s->kind == ADE_SEQ_EDGE) w->r.edge_classes++;
  ade_cgraph_free(c);
  h->rec = &k->prog;
  for (size_t i = 0; !st && k->elim && i < s->len; i++) st = ade__seq_apply_step(h, s->kind, &s->step[i], &cost);
  h->rec = NULL;
  ade_seq_free(s);
  return st;
}

/* What is left of h: each record's in-edges. */
static int leftover(const ade_cgraph *h, sclass *k) {
  size_t ne = 0;
  for (size_t r = 0; r < k->n; r++) ne += h->v[k->rv[r]].alive ? h->v[k->rv[r]].nin : 0;
  k->inptr = ade__alloc((k->n + 1) * sizeof *k->inptr);
  k->insrc = ade__alloc((ne + 1) * sizeof *k->insrc);
  k->inslot = ade__alloc((ne + 1) * sizeof *k->inslot);
  if (!k->inptr || !k->insrc || !k->inslot) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory");
  ne = 0;
  for (size_t r = 0; r < k->n; r++) {
    const ade__vtx *v = &h->v[k->rv[r]];
    k->inptr[r] = ne;
    for (size_t i = 0; v->alive && v->kind != ADE__X && i < v->nin; i++) {
      k->insrc[ne] = h->e[v->in[i]].src;
      k->inslot[ne++] = (size_t)h->e[v->in[i]].id;
    }
  }
  k->inptr[k->n] = ne;
  return ADE_OK;
}

/* Part [s, s + n)'s class compiled from it (its key in w->key). */
static int compile(sstate *w, size_t s, size_t n, size_t ne, sclass **kp) {
  sclass *k = ade__calloc(1, sizeof *k);
  ade_cgraph *h = NULL;
  size_t nops = 0;
  for (size_t r = 0; r < n; r++) nops += w->p.nop[r];
  int st = k ? ADE_OK : ADE_ENOMEM;
  if (k) {
    k->n = n, k->ne = ne, k->nops = nops;
    k->init = ade__alloc((nops + 1) * sizeof *k->init);
    k->rv = ade__alloc((n + 1) * sizeof *k->rv);
    k->cv = ade__alloc((n + 1) * sizeof *k->cv);
    k->xv = ade__alloc((ne + 1) * sizeof *k->xv);
    if (!k->init || !k->rv || !k->cv || !k->xv) st = ADE_ENOMEM;
  }
  if (st) st = ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for a part of %zu records", n);
  if (!st) st = part_graph(w, s, n, k, &h);
  if (!st) k->e0 = h->nedges;
  if (!st) st = eliminate(w, h, k);
  if (!st && h->fma != k->prog.n) /* the replay counts a step per multiply: the engine's count */
    st = ade__fail(ADE_ESTATE, "internal error: a part's elimination counts %llu fma, its program %zu steps",
                   (unsigned long long)h->fma, k->prog.n);
  if (!st) st = leftover(h, k);
  if (!st) {
    k->nv = h->nv, k->nslot = (size_t)h->next_edge_id;
    k->bytes = sizeof *k + (nops + 4 * n + ne + 2 * k->inptr[n]) * sizeof(size_t) + k->prog.n * 25;
    size_t bytes = h->vcap * sizeof(ade__vtx) + h->ecap * sizeof(ade__edge) + h->hcap * sizeof(size_t);
    if (bytes > w->r.part_bytes) w->r.part_bytes = bytes;
  }
  ade_cgraph_free(h);
  if (st) sclass_free(k), k = NULL;
  *kp = k;
  return st;
}

/* The part's partials into the class's slots, its elimination replayed
 * on them, then the adjoints folded through what is left: every record
 * in descending order (its adjoint complete: every edge leads to a higher
 * id) passes its adjoint along its in-edges, q fma per edge; an
 * independent's goes to its column of J, an external operand's to the map. */
static int run(sstate *w, const sclass *k, size_t s) {
  spart *p = &w->p;
  size_t q = w->q, pos = 0;
  if (k->nslot > w->slotcap || k->nv * q > w->acccap) {
    double *a = ade__realloc(w->slot, k->nslot * sizeof *a);
    if (a) w->slot = a, w->slotcap = k->nslot;
    double *b = a ? ade__realloc(w->acc, (k->nv * q + 1) * sizeof *b) : NULL;
    if (!b) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for %zu adjoints", k->nv * q);
    w->acc = b, w->acccap = k->nv * q + 1;
  }
  double *v = w->slot, *acc = w->acc;
  memset(v, 0, k->nslot * sizeof *v);
  for (size_t r = 0; r < k->n; r++)
    for (int j = 0; j < p->nop[r]; j++) v[k->init[pos++]] += p->od[r * ADE__MAX_ARITY + j];
  const ade__planrec *g = &k->prog;
  for (size_t i = 0; i < g->n; i++) {
    if (g->kind[i] == ADE__P_SET) v[g->d[i]] = v[g->a[i]] * v[g->b[i]];
    else v[g->d[i]] += v[g->a[i]] * v[g->b[i]];
  }
  w->r.elim_fma += g->n;
  memset(acc, 0, k->nv * q * sizeof *acc);
  for (size_t r = k->n; r-- > 0;) {
    double *A = acc + k->rv[r] * q;
    const double *M = p->live[r] || p->op[r] == ADE_OP_INDEP ? ade__livemap_find(&w->map, s + r) : NULL;
    for (size_t l = 0; M && l < q; l++) A[l] += M[l];
    if (M) ade__livemap_remove(&w->map, s + r);
    if (k->cv[r] != ADE__NONE)
      for (size_t l = 0; l < q; l++) A[l] += acc[k->cv[r] * q + l];
    if (p->op[r] == ADE_OP_INDEP) {
      for (size_t l = 0; l < q; l++) w->J[l * w->n + p->col[r]] += A[l];
      continue;
    }
    for (size_t e = k->inptr[r]; e < k->inptr[r + 1]; e++) {
      double *B = acc + k->insrc[e] * q, d = v[k->inslot[e]];
      for (size_t l = 0; l < q; l++) B[l] += d * A[l];
    }
    w->r.fold_fma += q * (k->inptr[r + 1] - k->inptr[r]);
  }
  for (size_t e = 0; e < k->ne; e++) {
    double *M = ade__livemap_get(&w->map, p->ext[e]);
    if (!M) return ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for %zu live adjoints", w->map.n);
    for (size_t l = 0; l < q; l++) M[l] += acc[k->xv[e] * q + l];
  }
  if (w->map.n > w->r.max_live) w->r.max_live = w->map.n;
  return ADE_OK;
}

/* Part [s, s + n), read: its class (compiled now if new), run on it. */
static int do_part(sstate *w, size_t s, size_t n) {
  size_t ne = 0;
  uint64_t val;
  sclass *k = NULL, *own = NULL;
  int st = part_key(w, s, n, &ne);
  if (!st && ade__table_get(&w->cls, w->key, w->keylen, &val)) k = w->ks[val];
  if (!st && !k && !(st = compile(w, s, n, ne, &own))) {
    k = own;
    if (w->nk == w->kcap && w->kbytes + k->bytes <= CLASS_BYTES) {
      size_t nc = w->kcap ? 2 * w->kcap : 64;
      sclass **b = ade__realloc(w->ks, nc * sizeof *b);
      if (b) w->ks = b, w->kcap = nc;
    }
    if (w->kbytes + k->bytes <= CLASS_BYTES && w->nk < w->kcap) {
      int pst = ade__table_put(&w->cls, w->key, w->keylen, w->nk);
      if (!pst) w->ks[w->nk++] = own, w->kbytes += k->bytes, own = NULL;
      else if (pst != ADE_ETOOBIG) st = ade__fail(ADE_ENOMEM, "streaming elimination: out of memory for the classes");
    }
    w->r.classes++;
  }
  if (!st) w->r.reverse_fma += w->q * k->e0;
  if (!st) st = run(w, k, s);
  if (!st) {
    w->r.parts++;
    w->r.eliminated += k->elim != 0;
    if (n > w->r.largest) w->r.largest = n;
  }
  sclass_free(own);
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
        w->block = s >= lay->a && s < lay->a + lay->nb * lay->L;
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
  int bad = ade__limits_check(limits, "ade_jacobian_stream");
  if (bad) return bad;
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
  w.r.fma = w.r.elim_fma + w.r.fold_fma;
  w.r.part_bytes += w.p.cap * (3 + sizeof(size_t) + ADE__MAX_ARITY * 24) + w.acccap * sizeof(double) +
                    w.slotcap * sizeof(double) + w.extix.cap * 16;
  w.r.peak_bytes = w.r.part_bytes + w.map.cap * (sizeof(uint64_t) + w.map.q * sizeof(double)) +
                   w.q * w.n * sizeof(double) + w.kbytes + (w.cls_init ? w.cls.cap * 32 + w.cls.acap * 8 : 0);
  w.r.seconds = ade__now() - t0;
  for (size_t k = 0; k < w.nk; k++) sclass_free(w.ks[k]);
  ade__free(w.ks);
  ade__free(w.slot);
  ade__u64map_free(&w.extix);
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
