/* vertex_elim.c: the gradient graph G_g (Section 3.1, 5.1 of the edge-pushing paper) and symmetric vertex elimination on it. */
#include "hessian_internal.h"

#define DEAD UINT32_MAX

/* G_g is stored once for both halves: E_G holds (v_p, v_s) and stands for
 * its mirror (vbar_s, vbar_p) in E_Gbar; a cross edge {i, j} stands for the
 * pair (v_i, vbar_j), (v_j, vbar_i) of equal weight (E_C merged into E_H).
 * The parallel edges E_C^k (one per common successor k) are parked until
 * they are merged. Vertices are numbered in key order: the independents,
 * then the other records that reach a weighted dependent. */
typedef struct vedge {
  uint32_t a, b; /* a = DEAD: removed */
  double w;
} vedge;

typedef struct ilist {
  size_t n, cap;
  uint32_t *e;
} ilist;

typedef struct elist {
  vedge *e;
  size_t n, cap;
} elist;

typedef struct ve {
  size_t nv, nindep;
  uint64_t *key;
  elist g, c, park;  /* E_G, cross edges (E_H), parked E_C^k */
  ade__u64map gmap, cmap;
  ilist *pred, *succ, *cross, *owned;
  uint32_t *npred, *nsucc, *ncross, *parkown;
  double *diag;
  uint8_t *hasdiag, *gone;
  uint32_t *P, *S, *N; /* gathered neighbours of the vertex being eliminated */
  double *dP, *wS, *wN;
  uint32_t *heap, *hpos; /* ve-markowitz: the pairs left, a binary min-heap */
  uint64_t *hdeg;        /* each pair's degree as the heap last saw it */
  size_t hn;
  uint64_t updates, fma, step;
  ade__hlog *log;
  size_t limit, base; /* the tape's memory limit; bytes of the fixed arrays */
  int over;           /* ve_budget failed (its message stands) */
} ve;

/* Within the tape's memory limit? The fixed arrays, and the edge lists
 * (with their adjacency entries) and maps as they grow. */
static int ve_budget(ve *v) {
  size_t ne = v->g.cap + v->c.cap + v->park.cap, nm = v->gmap.cap + v->cmap.cap;
  size_t bytes = v->base + ne * (sizeof(vedge) + 2 * sizeof(uint32_t)) + nm * 2 * sizeof(uint64_t);
  if (!ade__over_budget(v->limit, bytes)) return ADE_OK;
  v->over = 1;
  return ade__budget(v->limit, bytes, "vertex elimination of %zu vertices with %zu edges", v->nv, ne);
}

static int list_push(ilist *l, uint32_t x) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 4;
    uint32_t *e = ade__realloc(l->e, ade__mul_size(cap, sizeof *e));
    if (!e) return ADE_ENOMEM;
    l->e = e;
    l->cap = cap;
  }
  l->e[l->n++] = x;
  return ADE_OK;
}

static int edge_new(elist *l, uint32_t a, uint32_t b, double w, uint32_t *k) {
  if (l->n >= UINT32_MAX - 1) return ADE_ETOOBIG;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    vedge *e = ade__realloc(l->e, ade__mul_size(cap, sizeof *e));
    if (!e) return ADE_ENOMEM;
    l->e = e;
    l->cap = cap;
  }
  l->e[l->n] = (vedge){a, b, w};
  *k = (uint32_t)l->n++;
  return ADE_OK;
}

/* c(p, s) += x in E_G (and its mirror). */
static int g_add(ve *v, uint32_t p, uint32_t s, double x) {
  int isnew, st;
  uint64_t *pk = ade__u64map_put(&v->gmap, (uint64_t)p << 32 | s, 0, &isnew);
  if (!pk) return ADE_ENOMEM;
  if (isnew) {
    uint32_t k;
    if ((st = edge_new(&v->g, p, s, 0, &k)) || (st = list_push(&v->succ[p], k)) ||
        (st = list_push(&v->pred[s], k))) {
      ade__u64map_del(&v->gmap, (uint64_t)p << 32 | s);
      return st;
    }
    *pk = k;
    v->nsucc[p]++;
    v->npred[s]++;
  }
  v->g.e[*pk].w += x;
  return ADE_OK;
}

/* c(a, bbar) = c(b, abar) += x: one Hessian edge update. */
static int c_add(ve *v, uint32_t a, uint32_t b, double x) {
  int isnew, st;
  v->updates++;
  ade__hlog_count(v->log, v->step, 1);
  v->fma++;
  ade__hlog_add(v->log, v->step, v->key[a], v->key[b]);
  if (a == b) {
    v->diag[a] += x;
    v->hasdiag[a] = 1;
    return ADE_OK;
  }
  uint64_t key = a > b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
  uint64_t *pk = ade__u64map_put(&v->cmap, key, 0, &isnew);
  if (!pk) return ADE_ENOMEM;
  if (isnew) {
    uint32_t k;
    if ((st = edge_new(&v->c, a, b, 0, &k)) || (st = list_push(&v->cross[a], k)) ||
        (st = list_push(&v->cross[b], k))) {
      ade__u64map_del(&v->cmap, key);
      return st;
    }
    *pk = k;
    v->ncross[a]++;
    v->ncross[b]++;
  }
  v->c.e[*pk].w += x;
  return ADE_OK;
}

/* The live edges of list l (compacting it): other endpoints and weights. */
static size_t gather(const elist *E, ilist *l, uint32_t self, uint32_t *o, double *w) {
  size_t n = 0, k = 0;
  for (size_t q = 0; q < l->n; q++) {
    const vedge *e = &E->e[l->e[q]];
    if (e->a == DEAD) continue;
    l->e[k++] = l->e[q];
    o[n] = e->a == self ? e->b : e->a;
    w[n++] = e->w;
  }
  l->n = k;
  return n;
}

static void kill_edges(ve *v, elist *E, ade__u64map *map, ilist *l, uint32_t self, int kind) {
  for (size_t q = 0; q < l->n; q++) {
    vedge *e = &E->e[l->e[q]];
    if (e->a == DEAD) continue;
    uint32_t o = e->a == self ? e->b : e->a;
    if (kind == 0) v->nsucc[o]--;      /* pred edge (o, self) */
    else if (kind == 1) v->npred[o]--; /* succ edge (self, o) */
    else v->ncross[o]--;
    ade__u64map_del(map, kind == 2 ? ((uint64_t)ADE__MAX(e->a, e->b) << 32 | ADE__MIN(e->a, e->b))
                                 : ((uint64_t)e->a << 32 | e->b));
    e->a = DEAD;
  }
  l->n = 0;
}

static int merge_parked(ve *v, uint32_t k) {
  int st = ADE_OK;
  for (size_t q = 0; q < v->owned[k].n && !st; q++) {
    const vedge *e = &v->park.e[v->owned[k].e[q]];
    st = c_add(v, e->a, e->b, e->w);
  }
  v->owned[k].n = 0;
  return st;
}

#define ALLOC(p, n) ((p) = ade__calloc((n) ? (n) : 1, sizeof *(p)))

/* Markowitz degree of the pair: |P| (|S| + |N|), N with the diagonal. */
static uint64_t degree(const ve *v, uint32_t k) {
  return (uint64_t)v->npred[k] * (v->nsucc[k] + v->ncross[k] + v->hasdiag[k]);
}

/* ve-markowitz's choice: the pair of least degree, ties by least index
 * (vertices are numbered in key order).
 * The heap orders the pairs left by (hdeg, index), so its top is that
 * choice as long as hdeg is every pair's current degree. */
static int heap_less(const ve *v, uint32_t a, uint32_t b) {
  return v->hdeg[a] != v->hdeg[b] ? v->hdeg[a] < v->hdeg[b] : a < b;
}

static void heap_put(ve *v, size_t i, uint32_t k) {
  v->heap[i] = k;
  v->hpos[k] = (uint32_t)i;
}

static void heap_up(ve *v, size_t i) {
  uint32_t k = v->heap[i];
  for (; i > 0 && heap_less(v, k, v->heap[(i - 1) / 2]); i = (i - 1) / 2)
    heap_put(v, i, v->heap[(i - 1) / 2]);
  heap_put(v, i, k);
}

static void heap_down(ve *v, size_t i) {
  uint32_t k = v->heap[i];
  for (size_t c; (c = 2 * i + 1) < v->hn; i = c) {
    if (c + 1 < v->hn && heap_less(v, v->heap[c + 1], v->heap[c])) c++;
    if (!heap_less(v, v->heap[c], k)) break;
    heap_put(v, i, v->heap[c]);
  }
  heap_put(v, i, k);
}

static int heap_init(ve *v) {
  if (!ALLOC(v->heap, v->nv) || !ALLOC(v->hpos, v->nv) || !ALLOC(v->hdeg, v->nv)) return ADE_ENOMEM;
  for (size_t k = v->nindep; k < v->nv; k++) {
    v->hdeg[k] = degree(v, (uint32_t)k);
    heap_put(v, v->hn++, (uint32_t)k);
  }
  for (size_t i = v->hn / 2; i-- > 0;) heap_down(v, i);
  return ADE_OK;
}

static uint32_t heap_pop(ve *v) {
  uint32_t k = v->heap[0];
  if (--v->hn) {
    heap_put(v, 0, v->heap[v->hn]);
    heap_down(v, 0);
  }
  return k;
}

/* After eliminating a pair: only its neighbours' degrees have changed
 * (g_add on P x S, c_add on P x N and P x P, kill_edges on P, S and N). */
static void requeue(ve *v, size_t np, size_t ns, size_t nn) {
  const uint32_t *nb[3] = {v->P, v->S, v->N};
  const size_t cnt[3] = {np, ns, nn};
  for (int l = 0; l < 3; l++)
    for (size_t q = 0; q < cnt[l]; q++) {
      uint32_t k = nb[l][q];
      uint64_t old = v->hdeg[k];
      if (k < v->nindep || (v->hdeg[k] = degree(v, k)) == old) continue;
      if (v->hdeg[k] < old) heap_up(v, v->hpos[k]);
      else heap_down(v, v->hpos[k]);
    }
}

/* The reference for the heap (tests): the same choice by a linear scan. */
static uint32_t scan_least(const ve *v) {
  uint32_t best = DEAD;
  uint64_t bd = UINT64_MAX;
  for (size_t k = v->nindep; k < v->nv; k++)
    if (!v->gone[k] && degree(v, (uint32_t)k) < bd) bd = degree(v, (uint32_t)(best = (uint32_t)k));
  return best;
}

/* Eliminate the pair (v_k, vbar_k): E_G fill P x S, cross fill P x N, and
 * through the diagonal c(k, kbar) the transient (p, kbar) and P x P. */
static int eliminate(ve *v, uint32_t k, int reverse) {
  int st = ve_budget(v);
  if (st) return st;
  size_t np = gather(&v->g, &v->pred[k], k, v->P, v->dP);
  size_t ns = gather(&v->g, &v->succ[k], k, v->S, v->wS);
  size_t nn = gather(&v->c, &v->cross[k], k, v->N, v->wN);
  v->step = v->key[k];
  ade__hlog_step(v->log, v->step);
  for (size_t a = 0; a < np && !st; a++)
    for (size_t b = 0; b < ns && !st; b++) {
      st = g_add(v, v->P[a], v->S[b], v->dP[a] * v->wS[b]);
      v->updates++;
      ade__hlog_count(v->log, v->step, 1);
      v->fma++;
    }
  for (size_t b = 0; b < nn && !st; b++)
    for (size_t a = 0; a < np && !st; a++)
      st = c_add(v, v->P[a], v->N[b], (v->P[a] == v->N[b] ? 2 : 1) * v->dP[a] * v->wN[b]);
  if (v->hasdiag[k] && !st) {
    v->updates += np;
    v->fma += np;
    ade__hlog_count(v->log, v->step, np);
    for (size_t a = 0; a < np && !st; a++)
      for (size_t b = 0; b <= a && !st; b++)
        st = c_add(v, v->P[a], v->P[b], v->dP[a] * v->diag[k] * v->dP[b]);
  }
  if (reverse && !st) st = merge_parked(v, k);
  if (st) return st;
  kill_edges(v, &v->g, &v->gmap, &v->pred[k], k, 0);
  kill_edges(v, &v->g, &v->gmap, &v->succ[k], k, 1);
  kill_edges(v, &v->c, &v->cmap, &v->cross[k], k, 2);
  v->gone[k] = 1;
  if (v->heap) requeue(v, np, ns, nn);
  return ADE_OK;
}

static int eliminate_all(ve *v, int method) {
  int st = ADE_OK;
  if (method == ADE_HESS_VE_REVERSE) {
    for (size_t k = v->nv; k-- > v->nindep && !st;) st = eliminate(v, (uint32_t)k, 1);
    return st;
  }
  v->step = UINT64_MAX; /* parallel edges merged before any pair: no step's */
  for (size_t k = v->nindep; k < v->nv && !st; k++) st = merge_parked(v, (uint32_t)k);
  if (!st && method != ADE__HESS_VE_MARKOWITZ_SCAN) st = heap_init(v);
  for (size_t left = v->nv - v->nindep; left > 0 && !st; left--)
    st = eliminate(v, v->heap ? heap_pop(v) : scan_least(v), 0);
  return st;
}

static int ve_alloc(ve *v) {
  size_t n = v->nv;
  if (!ALLOC(v->key, n) || !ALLOC(v->pred, n) || !ALLOC(v->succ, n) || !ALLOC(v->cross, n) ||
      !ALLOC(v->owned, n) || !ALLOC(v->npred, n) || !ALLOC(v->nsucc, n) || !ALLOC(v->ncross, n) ||
      !ALLOC(v->diag, n) || !ALLOC(v->hasdiag, n) || !ALLOC(v->gone, n) || !ALLOC(v->P, n) ||
      !ALLOC(v->S, n) || !ALLOC(v->N, n) || !ALLOC(v->dP, n) || !ALLOC(v->wS, n) || !ALLOC(v->wN, n))
    return ADE_ENOMEM;
  return ADE_OK;
}

static void ve_free(ve *v) {
  for (size_t k = 0; k < v->nv; k++) {
    if (v->pred) ade__free(v->pred[k].e);
    if (v->succ) ade__free(v->succ[k].e);
    if (v->cross) ade__free(v->cross[k].e);
    if (v->owned) ade__free(v->owned[k].e);
  }
  void *p[] = {v->key, v->pred, v->succ, v->cross, v->owned, v->npred, v->nsucc, v->ncross,
               v->diag, v->hasdiag, v->gone, v->P, v->S, v->N, v->dP, v->wS, v->wN,
               v->g.e, v->c.e, v->park.e, v->heap, v->hpos, v->hdeg};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) ade__free(p[i]);
  ade__u64map_free(&v->gmap);
  ade__u64map_free(&v->cmap);
}

/* Pass 1, reverse: adjoints A and which records reach a weighted dependent
 * (idx[id] != DEAD); the same operand rule as edge pushing. */
static int relevance(ade_tape *t, const double *V, const double *w, double *A, uint32_t *idx,
                     uint64_t *fma) {
  const ade__meta *m = &t->meta;
  size_t jd = m->ndep;
  for (size_t c = m->nchunks; c-- > 0;) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *vw = &t->view;
    for (uint32_t i = vw->n; i-- > 0;) {
      uint64_t rid = vw->first + i + 1;
      if (vw->op[i] == ADE_OP_DEP && (w ? w[--jd] : 1.0) != 0) {
        A[rid] += w ? w[jd] : 1.0;
        idx[rid] = 0;
      }
      if (idx[rid] == DEAD || vw->op[i] == ADE_OP_INDEP) continue;
      ade__local L;
      ade__hess_local(vw, i, V, &L);
      *fma += (uint64_t)L.np;
      for (int a = 0; a < L.np; a++) {
        A[L.id[a]] += L.d[a] * A[rid];
        idx[L.id[a]] = 0;
      }
    }
  }
  return ADE_OK;
}

/* Pass 2, forward: number the vertices, build E_G and park E_C^k. */
static int build(ve *v, ade_tape *t, const double *V, const double *A, uint32_t *idx) {
  const ade__meta *m = &t->meta;
  size_t nv = m->nindep;
  for (uint64_t id = 1; id <= m->records; id++)
    if (idx[id] != DEAD && ade__hkey(m, id) >= m->nindep) idx[id] = (uint32_t)nv++;
  for (size_t j = 0; j < m->nindep; j++) idx[m->indep[j]] = (uint32_t)j;
  if (nv >= UINT32_MAX) return ADE_ETOOBIG;
  v->nv = nv;
  v->nindep = m->nindep;
  v->base += ade__mul_size(nv, sizeof *v->key + 4 * sizeof *v->pred + 6 * sizeof *v->npred + 4 * sizeof *v->diag + 2);
  int st = ve_budget(v);
  if (!st) st = ve_alloc(v);
  for (size_t j = 0; j < m->nindep && !st; j++) v->key[j] = j;
  for (size_t c = 0; c < m->nchunks && !st; c++) {
    if ((st = ade__view_load(t, c)) || (st = ve_budget(v))) return st;
    const ade__view *vw = &t->view;
    for (uint32_t i = 0; i < vw->n && !st; i++) {
      uint64_t rid = vw->first + i + 1;
      if (vw->op[i] == ADE_OP_INDEP || idx[rid] == DEAD) continue;
      uint32_t k = idx[rid], u[ADE__MAX_ARITY], e;
      ade__local L;
      ade__hess_local(vw, i, V, &L);
      v->key[k] = m->nindep + rid;
      for (int a = 0; a < L.np && !st; a++) {
        u[a] = idx[L.id[a]];
        st = g_add(v, u[a], k, L.d[a]);
      }
      for (int a = 0; a < L.np && !st && A[rid] != 0; a++)
        for (int b = 0; b <= a && !st; b++)
          if (L.h[a * (a + 1) / 2 + b] != 0) {
            st = edge_new(&v->park, u[a], u[b], L.h[a * (a + 1) / 2 + b] * A[rid], &e);
            if (!st) st = list_push(&v->owned[k], e);
            v->fma++;
          }
    }
  }
  return st;
}

static int result(const ve *v, ade_sparse **H) {
  size_t nt = 0, n = v->nindep;
  ade__trip *T = ade__alloc(ade__mul_size(v->c.n + n + 1, sizeof *T));
  if (!T) return ADE_ENOMEM;
  for (size_t j = 0; j < n; j++)
    if (v->hasdiag[j]) T[nt++] = (ade__trip){j, j, v->diag[j]};
  for (size_t q = 0; q < v->c.n; q++) {
    const vedge *e = &v->c.e[q];
    if (e->a != DEAD) T[nt++] = (ade__trip){ADE__MAX(e->a, e->b), ADE__MIN(e->a, e->b), e->w};
  }
  int st = ade__hess_from_triplets(n, T, nt, H);
  ade__free(T);
  return st;
}

int ade__vertex_elim(ade_tape *t, const double *V, const double *w, int method, ade_sparse **H,
                     double *g, ade_hess_report *r, ade__hlog *log) {
  const ade__meta *m = &t->meta;
  size_t nrec = (size_t)m->records + 1;
  ve v;
  memset(&v, 0, sizeof v);
  v.log = log;
  v.limit = t->memlimit;
  v.base = ade__mul_size(nrec, sizeof(double) + sizeof(uint32_t)); /* A, idx */
  int st = ve_budget(&v);
  if (st) return st;
  double *A = ade__calloc(nrec, sizeof *A);
  uint32_t *idx = ade__alloc(ade__mul_size(nrec, sizeof *idx));
  st = A && idx ? ADE_OK : ADE_ENOMEM;
  if (!st) {
    memset(idx, 0xff, nrec * sizeof *idx);
    st = relevance(t, V, w, A, idx, &v.fma);
  }
  if (!st) st = build(&v, t, V, A, idx);
  if (!st) st = eliminate_all(&v, method);
  if (!st) st = result(&v, H);
  if (!st && g)
    for (size_t j = 0; j < m->nindep; j++) g[j] = A[m->indep[j]];
  if (st == ADE_ENOMEM && !v.over) st = ade__fail(ADE_ENOMEM, "vertex elimination: out of memory");
  else if (st == ADE_ETOOBIG) st = ade__fail(ADE_ETOOBIG, "vertex elimination: graph too large");
  if (log && log->failed && !st) st = ade__fail(ADE_ENOMEM, "out of memory for the update log");
  r->updates = v.updates;
  r->fma = v.fma;
  r->vertices = v.nv - v.nindep;
  ade__free(A);
  ade__free(idx);
  ve_free(&v);
  return st;
}
