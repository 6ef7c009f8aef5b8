/* sweep.c: first-order sweeps over a tape: replay, tangent and adjoint (scalar and vector), dense Jacobians. */
#include <stdio.h>

#include "eval_internal.h"

/* Per-sweep state: the point's values V (NULL: the recorded point) and
 * branch flips seen. */
typedef struct sweep {
  ade_tape *t;
  const double *x;
  double *V;
  uint64_t flips, first_flip;
  int point; /* x is the tape's point (point.c): V is NULL */
  const ade__res *res; /* the resident form, if the sweep uses it */
  double *D;           /* with res at x, a reverse sweep's partials there */
  const ade__tmap *tm; /* with res, a forward sweep's tangent slots (or NULL: by record id) */
} sweep;

/* Zero-order step at a new point: V[rid] = op(a), flagging branch flips;
 * a gets the operands. */
ADE__INLINE double replay_record(sweep *s, uint32_t i, size_t *ix, double *a) {
  const ade__view *v = &s->t->view;
  unsigned op = v->op[i];
  uint64_t rid = v->first + i + 1;
  double r;
  ade__view_operands(v, s->V, i, ade__optab[op].arity, a);
  if (op == ADE_OP_INDEP) {
    r = s->x[(*ix)++];
  } else {
    r = ade__op_value(op, a);
    if (op >= ADE_OP_LT && r != v->val[i] && !s->flips++) s->first_flip = rid - 1;
  }
  return s->V[rid] = r;
}

static int finish(const sweep *s, int st) {
  if (st || !s->flips) return st;
  return ade__fail(ADE_WBRANCH, "%llu recorded comparison(s) differ at this point, first at op %llu",
                   (unsigned long long)s->flips, (unsigned long long)s->first_flip);
}

/* One chunk of a tangent sweep at a new point in one pass: each record's
 * value into V, then its partials, applied at once to the p tangents T (the
 * same operations, in the same order, as replaying the chunk, linearizing
 * it at V and sweeping the linearization). An elemental call: its primal,
 * then its tangents through its callbacks (eval/elemental.c). */
static int tangent_chunk(sweep *s, size_t p, const double *Xd, size_t *ix, double *T) {
  const ade__view *v = &s->t->view;
  for (uint32_t i = 0; i < v->n; i++) {
    const unsigned op = v->op[i];
    const uint64_t *arg = ade__view_arg(v, i), rid = v->first + i + 1;
    if (op == ADE_OP_VECTOR_ELEMENTAL) { /* the call, at its first output */
      int st = arg[1] ? ADE_OK : ade__elem_primal(s->t, v, (uint32_t)arg[0], s->V);
      if (!st && !arg[1]) st = ade__elem_tangents(s->t, v, (uint32_t)arg[0], s->V, p, T);
      if (st) return st;
      continue;
    }
    const int arity = ade__optab[op].arity;
    double *Tr = T + rid * p, a[ADE__MAX_ARITY], d[ADE__MAX_ARITY];
    if (op == ADE_OP_INDEP) {
      for (size_t l = 0; l < p; l++) Tr[l] = Xd[*ix * p + l];
    }
    if (op == ADE_OP_INDEP || op >= ADE_OP_LT || (ade__optab[op].flags & ADE__PASSIVE)) {
      /* no partials; comparisons flag flips */
      replay_record(s, i, ix, a);
      for (size_t l = 0; op != ADE_OP_INDEP && l < p; l++) Tr[l] = 0.0;
      continue;
    }
    ade__view_operands(v, s->V, i, arity, a);
    s->V[rid] = ade__op_value_partials(op, a, d);
    if (p == 1) { /* the sum in a register: same additions, same order */
      double tr = 0.0;
      for (int j = 0; j < arity; j++)
        if (arg[j]) tr += d[j] * T[arg[j]];
      *Tr = tr;
      continue;
    }
    for (size_t l = 0; l < p; l++) Tr[l] = 0.0;
    for (int j = 0; j < arity; j++) {
      const double *Ta = T + arg[j] * p, dk = d[j];
      for (size_t l = 0; arg[j] && l < p; l++) Tr[l] += dk * Ta[l];
    }
  }
  return ADE_OK;
}

/* forward() over the resident form: the same values, tangents and flips. */
static void forward_res(sweep *s, size_t p, const double *Xd, double *y, double *Yd, double *T) {
  const ade__meta *m = &s->t->meta;
  const double *V = s->V ? s->V : s->res->val;
  ade__flips fl = {0, 0};
  const ade__tmap *tm = p ? s->tm : NULL; /* T is this sweep's own: slots reused */
  if (p) ade__res_tangent(s->res, tm, s->V ? s->x : NULL, s->V, s->D, p, Xd, T, &fl);
  else if (s->V) ade__res_values(s->res, s->x, s->V, s->D, &fl);
  for (size_t j = 0; j < m->ndep; j++) {
    const size_t sj = tm ? tm->rec[m->dep[j]] : m->dep[j];
    if (y) y[j] = V[m->dep[j]];
    for (size_t l = 0; Yd && l < p; l++) Yd[j * p + l] = T[sj * p + l];
  }
  if (fl.n && !s->flips) s->first_flip = fl.first;
  s->flips += fl.n;
}

/* A chunk's values at a new point on a tape with elemental calls: each
 * call's outputs from its primal callback. */
static int replay_elem(sweep *s, size_t *ix) {
  const ade__view *v = &s->t->view;
  double a[ADE__MAX_ARITY];
  for (uint32_t i = 0; i < v->n; i++) {
    const uint64_t *arg = ade__view_arg(v, i);
    if (v->op[i] != ADE_OP_VECTOR_ELEMENTAL) replay_record(s, i, ix, a);
    else if (arg[1] == 0) {
      int st = ade__elem_primal(s->t, v, (uint32_t)arg[0], s->V);
      if (st) return st;
    }
  }
  return ADE_OK;
}

/* The dependents of the loaded view at V: values into y, tangents into Yd. */
static void view_deps(sweep *s, size_t p, double *y, double *Yd, const double *T, size_t *iy) {
  const ade__view *v = &s->t->view;
  for (uint32_t i = 0; i < v->n; i++) {
    if (v->op[i] != ADE_OP_DEP) continue;
    if (y) y[*iy] = s->V[v->first + i + 1];
    for (size_t l = 0; Yd && l < p; l++) Yd[*iy * p + l] = T[(v->first + i + 1) * p + l];
    ++*iy;
  }
}

/* Forward over all chunks: values at x (if given) and p tangents T; p = 0
 * replays the values only (x must be given). */
static int forward(sweep *s, size_t p, const double *Xd, double *y, double *Yd, double *T) {
  ade_tape *t = s->t;
  if (s->res) {
    forward_res(s, p, Xd, y, Yd, T);
    return ADE_OK;
  }
  const int elem = ade__tape_has_elementals(t);
  size_t ix = 0, iy = 0, jx = 0;
  for (size_t l = 0; l < p; l++) T[l] = 0.0;
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    const ade__lin *L = NULL;
    int st = s->V ? ade__view_load_lean(t, c) : ade__lin_get(t, c, &L);
    if (st) return st;
    if (s->V) { /* at x: values (and tangents) chunk by chunk */
      double a[ADE__MAX_ARITY];
      if (p) st = tangent_chunk(s, p, Xd, &ix, T);
      else if (elem) st = replay_elem(s, &ix);
      for (uint32_t i = 0; !p && !elem && i < t->view.n; i++) replay_record(s, i, &ix, a);
      if (st) return st;
      view_deps(s, p, y, Yd, T, &iy);
      continue;
    }
    for (uint32_t i = 0; i < L->n; i++) {
      unsigned op = L->op[i];
      double *Tr = T + (L->first + i + 1) * p;
      if (op == ADE_OP_INDEP) {
        for (size_t l = 0; l < p; l++) Tr[l] = Xd[jx * p + l];
        jx++;
      } else if (p) {
        for (size_t l = 0; l < p; l++) Tr[l] = 0.0;
        for (uint32_t k = L->pos[i]; k < L->pos[i + 1]; k++) {
          const double *Ta = T + L->id[k] * p, dk = L->d[k];
          for (size_t l = 0; l < p; l++) Tr[l] += dk * Ta[l];
        }
      }
      if (op == ADE_OP_DEP) {
        if (y) y[iy] = L->val[i];
        for (size_t l = 0; Yd && l < p; l++) Yd[iy * p + l] = Tr[l];
        iy++;
      }
    }
  }
  return ADE_OK;
}

/* Adjoints: a dense array over all variables, or only the live ones. */
typedef struct adjstore {
  double *dense;
  ade__livemap map;
} adjstore;

static inline double *adj_find(adjstore *A, uint64_t id, size_t q) {
  return A->dense ? A->dense + id * q : ade__livemap_find(&A->map, id);
}
static inline double *adj_get(adjstore *A, uint64_t id, size_t q) {
  return A->dense ? A->dense + id * q : ade__livemap_get(&A->map, id);
}
static inline void adj_drop(adjstore *A, uint64_t id) {
  if (!A->dense) ade__livemap_remove(&A->map, id);
}

/* One chunk of the commonest reverse sweep, a gradient's: one dense adjoint
 * per variable, no copies, no live map. */
static void reverse_chunk_scalar(const ade__lin *L, double *A, double *Xb, size_t *ix, double *y,
                                 size_t *iy) {
  for (uint32_t i = L->n; i-- > 0;) {
    const double a = A[L->first + i + 1];
    const unsigned op = L->op[i];
    if (op == ADE_OP_DEP && y) y[--*iy] = L->val[i];
    if (op == ADE_OP_INDEP) {
      Xb[--*ix] = a;
      continue;
    }
    if (a == 0.0) continue;
    for (uint32_t k = L->pos[i]; k < L->pos[i + 1]; k++) A[L->id[k]] += L->d[k] * a;
  }
}

/* The same from the loaded view, linearizing record by record at V (NULL:
 * the view's values) only where the adjoint is nonzero: the partials, and
 * their use, are those of reverse_chunk_scalar on the linearized chunk.
 * An elemental call: one adjoint call at its first output, when the
 * adjoints of all its outputs are complete. */
static int reverse_view_scalar(ade_tape *t, const ade__view *v, const double *V, double *A, double *Xb,
                               size_t *ix, double *y, size_t *iy) {
  for (uint32_t i = v->n; i-- > 0;) {
    const uint64_t rid = v->first + i + 1, *arg = ade__view_arg(v, i);
    const double a = A[rid], r = V ? V[rid] : v->val[i];
    const unsigned op = v->op[i];
    if (op == ADE_OP_VECTOR_ELEMENTAL) {
      int st = arg[1] ? ADE_OK : ade__elem_adjoint1(t, v, (uint32_t)arg[0], V, A);
      if (st) return st;
      continue;
    }
    const int arity = ade__optab[op].arity;
    double o[ADE__MAX_ARITY], d[ADE__MAX_ARITY];
    if (op == ADE_OP_DEP && y) y[--*iy] = r;
    if (op == ADE_OP_INDEP) {
      Xb[--*ix] = a;
      continue;
    }
    if (a == 0.0 || !arity || (ade__optab[op].flags & ADE__PASSIVE)) continue;
    ade__view_operands(v, V, i, arity, o);
    ade__op_partials(op, o, r, d, NULL);
    for (int j = 0; j < arity; j++)
      if (arg[j]) A[arg[j]] += d[j] * a;
  }
  return ADE_OK;
}

/* Reverse over all chunks: q adjoints, seeded at the dependents with Yb.
 * R is q doubles of scratch; y (may be NULL) gets F. */
static int reverse(sweep *s, size_t q, const double *Yb, double *Xb, adjstore *A, double *R,
                   double *y) {
  ade_tape *t = s->t;
  const ade__meta *m = &t->meta;
  size_t ix = m->nindep, iy = m->ndep;
  if (A->dense) memset(A->dense, 0, ade__mul_size((size_t)m->records + 1, q * sizeof *R));
  for (size_t j = 0; j < m->ndep; j++) {
    double *Ay = adj_get(A, m->dep[j], q);
    if (!Ay) return ade__fail(ADE_ENOMEM, "out of memory seeding adjoints");
    for (size_t l = 0; l < q; l++) Ay[l] += Yb[j * q + l];
  }
  if (s->res && A->dense) { /* partials at x from the forward pass, or the recorded ones */
    const double *D = s->D, *V = s->V ? s->V : s->res->val;
    if (q == 1 && !D) ade__res_reverse1_rec(s->res, A->dense);
    else if (q == 1) ade__res_reverse1(s->res, D, A->dense);
    else ade__res_reverse_dense(s->res, D, q, A->dense);
    for (size_t i = 0; i < m->nindep; i++)
      for (size_t l = 0; l < q; l++) Xb[i * q + l] = A->dense[m->indep[i] * q + l];
    for (size_t j = 0; y && j < m->ndep; j++) y[j] = V[m->dep[j]];
    return ADE_OK;
  }
  for (size_t c = m->nchunks; c-- > 0;) {
    const ade__lin *L = NULL;
    if (q == 1 && A->dense) { /* linearized only if kept, else straight from the view */
      int st = s->V ? ade__view_load_lean(t, c) : ade__lin_peek(t, c, &L);
      if (!st && L) reverse_chunk_scalar(L, A->dense, Xb, &ix, y, &iy);
      else if (!st) st = reverse_view_scalar(t, &t->view, s->V, A->dense, Xb, &ix, y, &iy);
      if (st) return st;
      continue;
    }
    int st = ade__lin_at(t, c, s->V, &L);
    if (st) return st;
    for (uint32_t i = L->n; i-- > 0;) {
      uint64_t rid = L->first + i + 1;
      const double *Ar = adj_find(A, rid, q);
      int nz = 0;
      for (size_t l = 0; Ar && l < q; l++) {
        R[l] = Ar[l];
        nz |= Ar[l] != 0.0;
      }
      adj_drop(A, rid);
      if (L->op[i] == ADE_OP_DEP && y) y[--iy] = L->val[i];
      if (L->op[i] == ADE_OP_INDEP) {
        ix--;
        for (size_t l = 0; l < q; l++) Xb[ix * q + l] = Ar ? R[l] : 0.0;
        continue;
      }
      for (uint32_t k = L->pos[i]; nz && k < L->pos[i + 1]; k++) {
        double *Aa = adj_get(A, L->id[k], q), dk = L->d[k];
        if (!Aa) return ade__fail(ADE_ENOMEM, "out of memory for live adjoints (%zu live)", A->map.n);
        for (size_t l = 0; l < q; l++) Aa[l] += dk * R[l];
      }
    }
  }
  if (!A->dense) t->peak_live = A->map.peak;
  return ADE_OK;
}

/* Check the tape and size the workspace: V (if x), nvec doubles per
 * variable, and for a reverse sweep q scratch doubles. At a new point whose
 * V would exceed the tape's memory limit, the values come from the tape's
 * point (point.c: the caller begins it), not from V. A reverse sweep whose
 * dense adjoints would exceed it keeps the adjoints of the live variables
 * only; a forward sweep's tangents must fit (ade__budget). */
static int setup(sweep *s, ade_tape *t, const double *x, size_t nvec, size_t q, double **W,
                 adjstore *A) {
  int st = ade__tape_usable(t);
  if (!st) st = ade__elem_ready(t);
  if (st) return st;
  size_t nv = (size_t)t->meta.records + 1;
  if (t->meta.records >= SIZE_MAX / 16 || (nvec && nv > SIZE_MAX / 8 / nvec - 1))
    return ade__fail(ADE_ETOOBIG, "workspace for %zu variables is too large", nv);
  s->point = ade__point_wanted(t, x);
  size_t nV = x && !s->point ? nv : 0;
  /* Without the point mechanism (a tape with elemental calls) the values at
   * x must fit the limit, in a reverse sweep too. */
  if (A && nV && (st = ade__budget(t->memlimit, nV * sizeof(double), "the values at x of %zu variables (a "
                                   "tape with elemental calls sweeps at a new point with every value held)", nv - 1)))
    return st;
  int live = A && nV + nv * nvec > t->memlimit / sizeof(double);
  s->res = s->point ? NULL : ade__res_get(t);
  /* The first scalar reverse sweep at the recorded point computes the
   * partials where it needs them (ade__res_reverse1_rec) unless a sweep
   * has stored them; the next stores them (ade__res_d), as the second
   * sweep builds the form: a first sweep on a tape the recorder left
   * decoded (o->keep) reads no more than the form. */
  const int lazy = s->res && A && nvec == 1 && !x && !atomic_load_explicit(&s->res->d, memory_order_acquire) &&
                   !atomic_exchange(&((ade__res *)s->res)->dlazy, 1);
  const double *Drec = s->res && !x && nvec && !lazy ? ade__res_d(t, s->res) : NULL; /* partials there */
  if (s->res && !x && nvec && !Drec && !lazy) s->res = NULL;
  size_t nD = A && x && s->res ? s->res->nref : 0;
  s->tm = s->res && !A && nvec ? ade__res_tmap(t, s->res) : NULL; /* tangents in its slots */
  size_t nT = s->tm ? s->tm->nslot : nv;
  size_t need = nV + (live ? 0 : nT * nvec) + q + nD;
  if (!A && (st = ade__budget(t->memlimit, need * sizeof(double), "a forward sweep with %zu tangent(s) per "
                              "variable over %zu variables", nvec, nv - 1)))
    return st;
  double *w = ade__work(t, need ? need : 1);
  if (!w) return ade__fail(ADE_ENOMEM, "out of memory for the sweep workspace (%zu doubles)", need);
  s->t = t;
  s->x = x;
  s->V = nV ? w : NULL;
  s->flips = 0;
  s->D = nD ? w + need - nD : (double *)Drec;
  *W = w + nV;
  if (A) {
    A->map.q = nvec;
    A->dense = live ? NULL : *W;
    *W += live ? 0 : nv * nvec; /* now the q scratch doubles */
  }
  return ADE_OK;
}

/* Leave the tape's point if the sweep set one, taking its branch flips. */
static void leave_point(sweep *s, ade_tape *t) {
  if (!s->point || !t->pt.active) return;
  s->flips = t->pt.flips;
  s->first_flip = t->pt.first_flip;
  ade__point_end(t);
}

/* Forward over the tape at s's point: values from the tape's point (chunks
 * linearized there) when V would exceed the memory limit. */
static int forward_at(sweep *s, size_t p, const double *Xd, double *y, double *Yd, double *T) {
  int st = s->point ? ade__point_begin(s->t, s->x) : ADE_OK;
  if (!st) st = forward(s, p, Xd, y, Yd, T);
  leave_point(s, s->t);
  return st;
}

static int replay(ade_tape *t, const double *x, double *y) {
  sweep s = {0};
  double *W;
  int st = setup(&s, t, x, 0, 0, &W, NULL);
  if (!st) st = forward_at(&s, 0, NULL, y, NULL, W);
  return finish(&s, st);
}

int ade_replay(ade_tape *shared, const double *x, double *y) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : replay(t, x, y));
}

static int tangent_vec(ade_tape *t, size_t p, const double *x, const double *Xd, double *y, double *Yd) {
  sweep s = {0};
  double *W;
  if (!p || !Xd || !Yd) return ade__fail(ADE_EINVAL, "ade_tangent: p = 0 or NULL Xd/Yd");
  int st = setup(&s, t, x, p, 0, &W, NULL);
  if (!st) st = forward_at(&s, p, Xd, y, Yd, W);
  return finish(&s, st);
}

int ade_tangent_vec(ade_tape *shared, size_t p, const double *x, const double *Xd, double *y, double *Yd) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : tangent_vec(t, p, x, Xd, y, Yd));
}

int ade_tangent(ade_tape *t, const double *x, const double *xd, double *y, double *yd) {
  return ade_tangent_vec(t, 1, x, xd, y, yd);
}

/* Values at x (if given), then the reverse sweep; y (may be NULL) gets F. */
static int adjoint(ade_tape *t, size_t q, const double *x, const double *Yb, double *Xb, double *y) {
  sweep s = {0};
  adjstore A = {0};
  double *W;
  int st = setup(&s, t, x, q, q, &W, &A);
  if (!st && s.point) st = ade__point_begin(t, x);
  else if (!st && x) st = forward(&s, 0, NULL, y, NULL, NULL);
  if (!st) st = reverse(&s, q, Yb, Xb, &A, W, s.V ? NULL : y);
  leave_point(&s, t);
  ade__livemap_free(&A.map);
  return finish(&s, st);
}

static int adjoint_vec(ade_tape *t, size_t q, const double *x, const double *Yb, double *Xb) {
  if (!q || !Yb || !Xb) return ade__fail(ADE_EINVAL, "ade_adjoint: q = 0 or NULL Yb/Xb");
  return adjoint(t, q, x, Yb, Xb, NULL);
}

int ade_adjoint_vec(ade_tape *shared, size_t q, const double *x, const double *Yb, double *Xb) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : adjoint_vec(t, q, x, Yb, Xb));
}

int ade_adjoint(ade_tape *t, const double *x, const double *yb, double *xb) {
  return ade_adjoint_vec(t, 1, x, yb, xb);
}

static int gradient(ade_tape *t, const double *x, double *f, double *g) {
  const double one = 1.0;
  int st = ade__tape_usable(t);
  if (!st) st = ade__elem_ready(t);
  if (!st && t->meta.ndep != 1)
    st = ade__fail(ADE_EINVAL, "ade_gradient: the tape has %zu dependents, not 1", t->meta.ndep);
  if (!st && !g) st = ade__fail(ADE_EINVAL, "ade_gradient: g is NULL");
  return st ? st : adjoint(t, 1, x, &one, g, f);
}

int ade_gradient(ade_tape *shared, const double *x, double *f, double *g) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : gradient(t, x, f, g));
}

int ade__replay_values(ade_tape *t, const double *x, double *V) {
  sweep s = {t, x, V, 0, 0, 0, ade__res_get(t), NULL, NULL};
  return finish(&s, forward(&s, 0, NULL, NULL, NULL, NULL));
}

/* See ade_tape_set_memory_limit: every consumer of the tape checks it. */
void ade_tape_set_memory_limit(ade_tape *t, size_t bytes) {
  if (!t) return;
  t->memlimit = bytes;
  if (ade__res_bytes(ade__res_peek(t)) > bytes) ade__res_drop(t); /* counted against it */
}

size_t ade_tape_peak_live(const ade_tape *t) { return t ? t->peak_live : 0; }

size_t ade_tape_resident_bytes(const ade_tape *t) { return t ? ade__res_bytes(ade__res_peek(t)) : 0; }

/* Directions per vector sweep when accumulating a dense Jacobian. */
#define ADE__STRIP 64

size_t ade__strip_width(const ade_tape *t, int mode, const double *x, size_t want) {
  size_t nv = (size_t)t->meta.records + 1, room = t->memlimit / sizeof(double);
  if (mode != ADE_FORWARD || !want) return want ? want : 1;
  room = ADE__MAX(room, ADE__MEM_FLOOR / sizeof(double));
  if (x && !ade__point_wanted(t, x)) room -= ADE__MIN(room, nv); /* the values at x */
  return ADE__MAX((size_t)1, ADE__MIN(want, room / nv));
}

int ade_jacobian_dense(ade_tape *t, int mode, const double *x, double *J) {
  int st = ade__tape_usable(t);
  if (!st) st = ade__elem_ready(t);
  if (st) return st;
  if (!J || (mode != ADE_FORWARD && mode != ADE_REVERSE))
    return ade__fail(ADE_EINVAL, "ade_jacobian_dense: bad mode or NULL J");
  size_t n = t->meta.nindep, m = t->meta.ndep, k = mode == ADE_FORWARD ? n : m;
  size_t other = mode == ADE_FORWARD ? m : n;
  size_t b = ade__strip_width(t, mode, x, ADE__MIN((size_t)ADE__STRIP, k ? k : 1));
  st = ade__budget(t->memlimit, ade__mul_size(k + other, b * sizeof(double)), "Jacobian seeds of %zu x %zu",
                   k + other, b);
  if (st) return st;
  double *S = ade__calloc(ade__mul_size(k, b), sizeof *S);
  double *R = ade__calloc(ade__mul_size(other, b), sizeof *R);
  if (!S || !R) st = ade__fail(ADE_ENOMEM, "out of memory for the Jacobian seeds");
  size_t sbytes = S ? k * b * sizeof *S : 0;
  int warn = ADE_OK;
  for (size_t k0 = 0; k0 < k && !st; k0 += b) {
    size_t w = ADE__MIN(b, k - k0);
    memset(S, 0, sbytes);
    for (size_t l = 0; l < w; l++) S[(k0 + l) * b + l] = 1.0; /* identity strip, padded */
    st = mode == ADE_FORWARD ? ade_tangent_vec(t, b, x, S, NULL, R) : ade_adjoint_vec(t, b, x, S, R);
    if (st == ADE_WBRANCH) {
      warn = st;
      st = ADE_OK;
    }
    for (size_t i = 0; i < other && !st; i++)
      for (size_t l = 0; l < w; l++) {
        if (mode == ADE_FORWARD) J[i * n + k0 + l] = R[i * b + l];
        else J[(k0 + l) * n + i] = R[i * b + l];
      }
  }
  if (!st && !k && x) { /* no sweep ran: whether x takes the recorded branches still counts */
    st = ade_replay(t, x, NULL);
    if (st == ADE_WBRANCH) warn = st, st = ADE_OK;
  }
  ade__free(S);
  ade__free(R);
  return st ? st : warn;
}
