/* resident.c: the resident form of a finished tape (decoded once, flat, shared by its clones)
 * and the sweeps over it, one loop per operation class. */
#include <stdio.h>

#include "eval_internal.h"

/* Operands of one record: active ones from V, constants in order. */
#define RES_LOAD(K)                                                            \
  for (int j_ = 0; j_ < (K); j_++) a[j_] = ref[j_] ? V[ref[j_]] : *cs++;

/* Whether opcode N is a comparison, an independent, passive. */
#define RES_CMP(N) (ADE_OP_##N >= ADE_OP_LT)
#define RES_INDEP(N) (ADE_OP_##N == ADE_OP_INDEP)
#define RES_PASSIVE(N, F) (((F) & ADE__PASSIVE) != 0)

void ade__res_free(ade__res *r) {
  if (!r) return;
  ade__free(r->op);
  ade__free(r->rop);
  ade__free(r->rlen);
  ade__free(r->ref);
  ade__free(r->act);
  ade__free(r->cst);
  ade__free(r->val);
  ade__free(atomic_load(&r->d));
  ade__free(r->cref);
  ade__free(r->ccst);
  ade__free(atomic_load(&r->tmap));
  ade__free(r);
}

/* Operand slots of the whole tape: one per operand of every record, from
 * the footer's opcode counts. */
static size_t slot_count(const ade__meta *m) {
  size_t k = 0;
  for (unsigned op = 0; op < ADE_OP_COUNT; op++) k += (size_t)m->opcount[op] * ade__optab[op].arity;
  return k;
}

/* Bytes the resident form of t takes at most (constants: at most one per
 * operand slot; runs: at most one per record; active operands: at most
 * one per slot), its partials not counted:
 * the figure checked against the memory limit before building. */
static size_t res_bound(const ade_tape *t) {
  size_t n = (size_t)t->meta.records, k = slot_count(&t->meta), nc = t->meta.nchunks + 1;
  if (t->meta.records >= UINT32_MAX || k >= SIZE_MAX / 32) return SIZE_MAX;
  return n * (1 + 8 + 5) + 8 + k * (4 + 4 + 8) + nc * 2 * sizeof(size_t);
}

size_t ade__res_bytes(const ade__res *r) {
  if (!r) return 0;
  const ade__tmap *m = atomic_load_explicit(&r->tmap, memory_order_acquire);
  return r->bytes + (atomic_load_explicit(&r->d, memory_order_acquire) ? r->nref * sizeof(double) : 0) +
         (m ? sizeof *m + (r->n + 1 + r->nref) * sizeof m->rec[0] : 0);
}

static int res_alloc(ade__res *r, const ade_tape *t) {
  size_t n = (size_t)t->meta.records, nc = t->meta.nchunks + 1;
  r->n = n;
  r->nref = slot_count(&t->meta);
  r->op = ade__alloc(n ? n : 1);
  r->ref = ade__alloc(ade__mul_size(r->nref ? r->nref : 1, sizeof *r->ref));
  r->act = ade__alloc(ade__mul_size(r->nref ? r->nref : 1, sizeof *r->act));
  r->val = ade__alloc(ade__mul_size(n + 1, sizeof *r->val));
  r->cref = ade__alloc(ade__mul_size(nc, sizeof *r->cref));
  r->ccst = ade__alloc(ade__mul_size(nc, sizeof *r->ccst));
  if (!r->op || !r->ref || !r->act || !r->val || !r->cref || !r->ccst) return ADE_ENOMEM;
  r->val[0] = 0.0;
  return ADE_OK;
}


/* Room for twice the runs (both columns or neither). */
static int run_grow(ade__res *r, size_t *cap) {
  size_t want = 2 * *cap + 64;
  uint8_t *op = ade__realloc(r->rop, want);
  if (op) r->rop = op;
  uint32_t *len = ade__realloc(r->rlen, ade__mul_size(want, sizeof *len));
  if (len) r->rlen = len;
  if (!op || !len) return ADE_ENOMEM;
  *cap = want;
  return ADE_OK;
}

/* Copy the decoded view v (at the recorded point) into r; *k: slots so far. */
static int res_add_view(ade__res *r, const ade__view *v, size_t *k, size_t *cstcap, size_t *runcap) {
  if (v->first > r->n || v->n > r->n - v->first)
    return ade__fail(ADE_EFORMAT, "a chunk's records lie beyond the footer's %zu", r->n);
  for (uint32_t i = 0; i < v->n; i++) {
    const unsigned op = v->op[i];
    const int arity = ade__optab[op].arity;
    const uint64_t rid = v->first + i + 1, *arg = ade__view_arg(v, i);
    const double *argv = ade__view_argv(v, i);
    r->op[rid - 1] = (uint8_t)op;
    r->val[rid] = v->val[i];
    if (r->nrun && r->rop[r->nrun - 1] == op && r->rlen[r->nrun - 1] < UINT32_MAX) {
      r->rlen[r->nrun - 1]++;
    } else {
      if (r->nrun == *runcap && run_grow(r, runcap)) return ADE_ENOMEM;
      r->rop[r->nrun] = (uint8_t)op;
      r->rlen[r->nrun++] = 1;
    }
    for (int j = 0; j < arity; j++, (*k)++) {
      if (*k >= r->nref) return ade__fail(ADE_EFORMAT, "more operands than the footer's opcode counts");
      r->ref[*k] = (uint32_t)arg[j];
      if (arg[j] && !(ade__optab[op].flags & ADE__PASSIVE)) r->act[r->nact++] = (uint32_t)*k;
      if (arg[j]) continue;
      if (ade__grow((void **)&r->cst, cstcap, r->ncst + 1, sizeof *r->cst)) return ADE_ENOMEM;
      r->cst[r->ncst++] = argv[j];
    }
  }
  return ADE_OK;
}

/* Decode every chunk of t into a new resident form. */
static int res_build(ade_tape *t, ade__res **out) {
  ade__res *r = ade__calloc(1, sizeof *r);
  size_t k = 0, cstcap = 0, runcap = 0;
  int st = r ? res_alloc(r, t) : ADE_ENOMEM;
  if (st) st = ade__fail(ADE_ENOMEM, "out of memory for the resident form");
  t->view_chunk = SIZE_MAX; /* the scratch view is reused below */
  for (size_t c = 0; c < t->meta.nchunks && !st; c++) {
    r->cref[c] = k;
    r->ccst[c] = r->ncst;
    st = ade__view_decode(t, c, &t->scratch_view);
    if (!st) st = res_add_view(r, &t->scratch_view, &k, &cstcap, &runcap);
    if (st == ADE_ENOMEM) st = ade__fail(ADE_ENOMEM, "out of memory for the resident form");
  }
  if (!st && k != r->nref) st = ade__fail(ADE_EFORMAT, "fewer operands than the footer's opcode counts");
  if (st) {
    ade__res_free(r);
    return st;
  }
  r->cref[t->meta.nchunks] = k;
  r->ccst[t->meta.nchunks] = r->ncst;
  r->bytes = r->n * 1 + (r->n + 1) * 8 + r->nrun * 5 + r->nref * 4 + r->nact * 4 + r->ncst * 8 +
             (t->meta.nchunks + 1) * 2 * sizeof(size_t);
  *out = r;
  return ADE_OK;
}

/* The owner's resident pointer after one sweep, before the second builds. */
static char seen_mark;
#define RES_SEEN ((ade__res *)(void *)&seen_mark)

/* The form the recorder left on owner o (o->keep: ade__kept, the same
 * arrays), taken as o's resident form by the first caller that finds it;
 * dropped if the small struct cannot be had (sweeps then decode). A
 * builder racing with it loses or wins as two builders do. */
static void res_adopt(ade_tape *o) {
  if (!atomic_load_explicit(&o->kept, memory_order_acquire)) return;
  ade__kept *k = atomic_exchange_explicit(&o->kept, NULL, memory_order_acq_rel);
  if (!k) return;
  ade__res *r = ade__calloc(1, sizeof *r);
  if (r) {
    *r = (ade__res){.n = k->n, .nrun = k->nrun, .nref = k->nref, .nact = k->nact, .ncst = k->ncst,
                    .op = k->op, .rop = k->rop, .rlen = k->rlen, .ref = k->ref, .act = k->act,
                    .cst = k->cst, .val = k->val, .cref = k->cref, .ccst = k->ccst};
    atomic_init(&r->d, NULL);
    atomic_init(&r->tmap, NULL);
    atomic_init(&r->dlazy, 0);
    r->bytes = r->n * 1 + (r->n + 1) * 8 + r->nrun * 5 + r->nref * 4 + r->nact * 4 + r->ncst * 8 +
               (k->nchunk + 1) * 2 * sizeof(size_t);
    memset(k, 0, sizeof *k); /* the arrays are r's now */
  }
  ade__kept_free(k);
  if (!r) return;
  ade__res *none = NULL, *seen = RES_SEEN;
  if (!atomic_compare_exchange_strong(&o->resident, &none, r) &&
      !atomic_compare_exchange_strong(&o->resident, &seen, r)) {
    ade__res_free(r); /* a build got there first */
    return;
  }
  o->eval_free[ADE__EV_RES] = ade__res_drop; /* the owner frees it */
}

/* The resident form of t's owner, if it fits the memory limit: built by
 * the second sweep that asks for it (a tape swept once pays no more than
 * decoding: fresh pages for all of it would cost more than they save
 * once); NULL: none (the sweep streams, as it would without one; also if
 * building failed). Concurrent builders race; the first to publish wins
 * and the others free theirs. */
const ade__res *ade__res_get(ade_tape *t) {
  ade_tape *o = t->owner ? t->owner : t;
  res_adopt(o);
  ade__res *r = atomic_load_explicit(&o->resident, memory_order_acquire), *none = NULL;
  if (r && r != RES_SEEN) return r->bytes <= t->memlimit ? r : NULL;
  if (t->state != ADE__FINISHED || !t->meta.complete || res_bound(t) > t->memlimit) return NULL;
  if (ade__tape_has_elementals(t)) return NULL; /* their calls run through the chunks' views */
  if (!r) {
    atomic_compare_exchange_strong(&o->resident, &none, RES_SEEN);
    return NULL;
  }
  char msg[512];
  snprintf(msg, sizeof msg, "%s", ade_errmsg()); /* a failed build leaves no trace */
  int st = res_build(t, &r);
  if (st) {
    ade__fail(ADE_OK, "%s", msg);
    return NULL;
  }
  ade__res *seen = RES_SEEN;
  if (!atomic_compare_exchange_strong_explicit(&o->resident, &seen, r, memory_order_acq_rel,
                                               memory_order_acquire)) {
    ade__res_free(r);
    r = seen;
    if (!r || r == RES_SEEN) return NULL; /* dropped meanwhile */
  } else {
    o->eval_free[ADE__EV_RES] = ade__res_drop; /* the owner frees it */
  }
  return r->bytes <= t->memlimit ? r : NULL;
}

/* The resident form now, for a caller that sweeps t at many points (a
 * Jacobian or Hessian loop): the first sweep then already uses it, where
 * ade__res_get would stream the first two (each one costs several sweeps
 * over the resident form). NULL as for ade__res_get. */
const ade__res *ade__res_now(ade_tape *t) {
  ade_tape *o = t->owner ? t->owner : t;
  ade__res *none = NULL;
  atomic_compare_exchange_strong(&o->resident, &none, RES_SEEN);
  return ade__res_get(t);
}

const ade__res *ade__res_find(const ade_tape *t) {
  const ade__res *r = ade__res_peek(t);
  return r && r->bytes <= t->memlimit ? r : NULL;
}

const ade__res *ade__res_peek(const ade_tape *t) {
  const ade_tape *o = t->owner ? t->owner : t;
  res_adopt((ade_tape *)o); /* the tape's own state, shared by its readers */
  ade__res *r = atomic_load_explicit(&((ade_tape *)o)->resident, memory_order_acquire);
  return r == RES_SEEN ? NULL : r;
}

/* The partials at the recorded point, computed from the resident values by
 * the first sweep there that needs them (as ade__lin_build computes them
 * from a decoded chunk: the same operands, the same bits), if they fit the
 * memory limit beside the rest; NULL: they do not (or ENOMEM). */
const double *ade__res_d(const ade_tape *t, const ade__res *rc) {
  ade__res *r = (ade__res *)rc;
  double *d = atomic_load_explicit(&r->d, memory_order_acquire), *none = NULL;
  if (d) return d;
  if (r->bytes + r->nref * sizeof *d > t->memlimit) return NULL;
  if (!(d = ade__alloc(ade__mul_size(r->nref ? r->nref : 1, sizeof *d)))) return NULL;
  const uint32_t *ref = r->ref;
  const double *cs = r->cst, *V = r->val;
  double *Dp = d;
  for (size_t i = 0; i < r->n; i++) {
    const unsigned op = r->op[i];
    const int k = ade__optab[op].arity;
    double a[ADE__MAX_ARITY];
    RES_LOAD(k);
    if (k) ade__op_partials(op, a, V[i + 1], Dp, NULL);
    ref += k;
    Dp += k;
  }
  if (!atomic_compare_exchange_strong_explicit(&r->d, &none, d, memory_order_acq_rel, memory_order_acquire)) {
    ade__free(d);
    d = none;
  }
  return d;
}

/* Tangent slots by liveness (a register allocation, once per resident
 * form): record rid takes a free slot (the one freed last: still in
 * cache) before its operands' slots are freed, so a record's tangents
 * never share a slot with its operands'; a slot is freed after the last
 * record that reads it, never for a dependent. last: 2 (n + 1) scratch. */
static size_t tmap_fill(const ade__res *r, const ade_tape *t, uint32_t *last, uint32_t *rec, uint32_t *op) {
  const uint32_t *ref = r->ref;
  const uint32_t keep = UINT32_MAX, gone = UINT32_MAX - 1;
  uint32_t next = 1, top = 0, *stack = last + r->n + 1; /* the free slots */
  for (size_t i = 0; i <= r->n; i++) last[i] = 0;
  for (size_t i = 0; i < r->n; i++) {
    const int k = ade__optab[r->op[i]].arity;
    for (int j = 0; j < k; j++)
      if (ref[j]) last[ref[j]] = (uint32_t)i + 1;
    ref += k;
  }
  for (size_t j = 0; j < t->meta.ndep; j++) last[t->meta.dep[j]] = keep;
  rec[0] = 0;
  ref = r->ref;
  for (size_t i = 0; i < r->n; i++) {
    const uint32_t rid = (uint32_t)i + 1;
    const int k = ade__optab[r->op[i]].arity;
    rec[rid] = top ? stack[--top] : next++;
    for (int j = 0; j < k; j++) {
      op[j] = ref[j] ? rec[ref[j]] : 0;
      if (ref[j] && last[ref[j]] == rid) last[ref[j]] = gone, stack[top++] = rec[ref[j]];
    }
    if (!last[rid]) last[rid] = gone, stack[top++] = rec[rid]; /* read by nobody */
    ref += k, op += k;
  }
  return next;
}

const ade__tmap *ade__res_tmap(const ade_tape *t, const ade__res *rc) {
  ade__res *r = (ade__res *)rc;
  ade__tmap *m = atomic_load_explicit(&r->tmap, memory_order_acquire), *none = NULL;
  if (m) return m;
  size_t need = (r->n + 1 + r->nref) * sizeof m->rec[0];
  if (r->n >= UINT32_MAX - 2 || ade__res_bytes(r) + sizeof *m + need + (r->n + 1) * 8 > t->memlimit) return NULL;
  uint32_t *last = ade__alloc(2 * (r->n + 1) * sizeof *last);
  if (last) m = ade__alloc(sizeof *m + need);
  if (m) {
    m->op = m->rec + r->n + 1;
    m->nslot = tmap_fill(r, t, last, m->rec, m->rec + r->n + 1);
  }
  ade__free(last);
  if (!m) return NULL;
  if (!atomic_compare_exchange_strong_explicit(&r->tmap, &none, m, memory_order_acq_rel, memory_order_acquire)) {
    ade__free(m);
    m = none;
  }
  return m;
}

void ade__res_drop(ade_tape *t) {
  if (t->owner) return;
  ade__res *r = atomic_exchange_explicit(&t->resident, NULL, memory_order_acq_rel);
  if (r != RES_SEEN) ade__res_free(r);
}

/* ------------------------------------------------------------ sweeps */

void ade__res_values(const ade__res *r, const double *x, double *V, double *D, ade__flips *fl) {
  const uint32_t *ref = r->ref;
  const double *cs = r->cst;
  double *Dp = D;
  uint64_t rid = 1;
  size_t ix = 0;
  for (size_t u = 0; u < r->nrun; u++) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define RES_VAL(N, s, K, F)                                                    \
  case ADE_OP_##N:                                                             \
    for (uint32_t e = 0; e < len; e++, rid++, ref += (K)) {                    \
      double a[ADE__MAX_ARITY + 1], v, h[6];                                   \
      RES_LOAD(K);                                                             \
      if (RES_INDEP(N)) {                                                      \
        v = x[ix++];                                                           \
      } else {                                                                 \
        v = ade__val_##N(a);                                                   \
        if (RES_CMP(N) && v != r->val[rid] && !fl->n++) fl->first = rid - 1;   \
        if (D && (K)) ade__der_##N(a, v, Dp, h);                               \
        (void)h;                                                               \
      }                                                                        \
      V[rid] = v;                                                              \
      if (D) Dp += (K);                                                        \
    }                                                                          \
    break;
      ADE_OPS(RES_VAL)
#undef RES_VAL
    }
  }
}

/* ade__res_values at x with each slot's partial added straight to
 * out[M[k]] (slot k's target, or a slot nobody reads), in slot order:
 * the additions of ade__res_scatter_at's loop, without storing the
 * partials first. */
static void res_values_to(const ade__res *r, const double *x, double *V, const uint32_t *M, double *out,
                          ade__flips *fl) {
  const uint32_t *ref = r->ref;
  const double *cs = r->cst;
  uint64_t rid = 1;
  size_t ix = 0;
  for (size_t u = 0; u < r->nrun; u++) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define RES_VTO(N, s, K, F)                                                    \
  case ADE_OP_##N:                                                             \
    for (uint32_t e = 0; e < len; e++, rid++, ref += (K), M += (K)) {          \
      double a[ADE__MAX_ARITY + 1], v, d[ADE__MAX_ARITY + 1], h[6];            \
      RES_LOAD(K);                                                             \
      if (RES_INDEP(N)) {                                                      \
        v = x[ix++];                                                           \
      } else {                                                                 \
        v = ade__val_##N(a);                                                   \
        if (RES_CMP(N) && v != r->val[rid] && !fl->n++) fl->first = rid - 1;   \
        if ((K) && !RES_PASSIVE(N, F)) {                                       \
          ade__der_##N(a, v, d, h);                                            \
          for (int j = 0; j < (K); j++) out[M[j]] += d[j];                     \
        }                                                                      \
        (void)h, (void)d;                                                      \
      }                                                                        \
      V[rid] = v;                                                              \
    }                                                                          \
    break;
      ADE_OPS(RES_VTO)
#undef RES_VTO
    }
  }
}

/* Tr[0..p) = sum over active operands j of d[j] Tr_j, from 0.0 in operand
 * order (the additions of the streaming sweeps, lane by lane), in one pass
 * over Tr for up to two active operands. */
ADE__INLINE void tan_combine(size_t p, int k, const uint32_t *ref, const double *d, const double *T,
                               double *restrict Tr) {
  if (p == 1) {
    double tr = 0.0;
    for (int j = 0; j < k; j++)
      if (ref[j]) tr += d[j] * T[ref[j]];
    *Tr = tr;
    return;
  }
  int j0 = 0, j1;
  while (j0 < k && !ref[j0]) j0++;
  if (j0 == k) {
    for (size_t l = 0; l < p; l++) Tr[l] = 0.0;
    return;
  }
  for (j1 = j0 + 1; j1 < k && !ref[j1];) j1++;
  const double *restrict A0 = T + (size_t)ref[j0] * p, c0 = d[j0];
  if (j1 == k) {
#define RES_L1(L) Tr[L] = 0.0 + c0 * A0[L]
    ADE__LANES(RES_L1);
#undef RES_L1
    return;
  }
  const double *restrict A1 = T + (size_t)ref[j1] * p, c1 = d[j1];
#define RES_L2(L) Tr[L] = (0.0 + c0 * A0[L]) + c1 * A1[L]
  ADE__LANES(RES_L2);
#undef RES_L2
  for (int j = j1 + 1; j < k; j++) {
    if (!ref[j]) continue;
    const double *restrict Ta = T + (size_t)ref[j] * p, dk = d[j];
#define RES_LK(L) Tr[L] += dk * Ta[L]
    ADE__LANES(RES_LK);
#undef RES_LK
  }
}

void ade__res_tangent(const ade__res *r, const ade__tmap *m, const double *x, double *V, const double *D,
                      size_t p, const double *Xd, double *T, ade__flips *fl) {
  const uint32_t *ref = r->ref, *sl = m ? m->op : r->ref; /* the operands' tangent slots */
  const double *cs = r->cst, *Dp = D;
  uint64_t rid = 1;
  size_t ix = 0;
  for (size_t l = 0; l < p; l++) T[l] = 0.0;
  for (size_t u = 0; u < r->nrun; u++) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define RES_TAN(N, s, K, F)                                                    \
  case ADE_OP_##N:                                                             \
    for (uint32_t e = 0; e < len; e++, rid++, ref += (K), sl += (K), Dp += V ? 0 : (K)) {\
      double a[ADE__MAX_ARITY + 1], d[ADE__MAX_ARITY + 1], h[6], v;            \
      double *Tr = T + (m ? m->rec[rid] : rid) * p;                            \
      if (RES_INDEP(N)) {                                                      \
        if (V) V[rid] = x[ix];                                                 \
        for (size_t l = 0; l < p; l++) Tr[l] = Xd[ix * p + l];                 \
        ix++;                                                                  \
        continue;                                                              \
      }                                                                        \
      if (V) {                                                                 \
        RES_LOAD(K);                                                           \
        v = ade__val_##N(a);                                                   \
        if (RES_CMP(N) && v != r->val[rid] && !fl->n++) fl->first = rid - 1;   \
        if (!RES_PASSIVE(N, F)) ade__der_##N(a, v, d, h);                      \
        V[rid] = v;                                                            \
      } else if (!RES_PASSIVE(N, F)) {                                         \
        for (int j = 0; j < (K); j++) d[j] = Dp[j];                            \
      }                                                                        \
      (void)h, (void)a, (void)d;                                               \
      if (RES_PASSIVE(N, F)) {                                                 \
        for (size_t l = 0; l < p; l++) Tr[l] = 0.0;                            \
      } else {                                                                 \
        tan_combine(p, (K), sl, d, T, Tr);                                     \
      }                                                                        \
    }                                                                          \
    break;
      ADE_OPS(RES_TAN)
#undef RES_TAN
    }
  }
}

/* One reverse step of a record with K operand slots: the adjoint a spread
 * to the active operands through the partials d (skipped when a is 0, as
 * the streaming sweeps do). */
#define RES_REV1(K)                                                            \
  do {                                                                         \
    const double a = A[rid];                                                   \
    if (a == 0.0) break;                                                       \
    for (int j = 0; j < (K); j++)                                              \
      if (ref[j]) A[ref[j]] += d[j] * a;                                       \
  } while (0)

void ade__res_reverse1(const ade__res *r, const double *D, double *A) {
  const uint32_t *ref = r->ref + r->nref;
  const double *d = D + r->nref;
  uint64_t rid = r->n + 1;
  for (size_t u = r->nrun; u-- > 0;) {
    const unsigned op = r->rop[u];
    const uint32_t len = r->rlen[u];
    const int k = ade__optab[op].arity;
    if (!k || (ade__optab[op].flags & ADE__PASSIVE)) {
      rid -= len;
      ref -= (size_t)k * len;
      d -= (size_t)k * len;
      continue;
    }
    switch (k) {
    case 1:
      for (uint32_t e = 0; e < len; e++) {
        rid--, ref--, d--;
        RES_REV1(1);
      }
      break;
    case 2:
      for (uint32_t e = 0; e < len; e++) {
        rid--, ref -= 2, d -= 2;
        RES_REV1(2);
      }
      break;
    default:
      for (uint32_t e = 0; e < len; e++) {
        rid--, ref -= 3, d -= 3;
        RES_REV1(3);
      }
      break;
    }
  }
}

/* ade__res_reverse1 at the recorded point without its partials there:
 * each record's partials computed from the recorded values where its
 * adjoint is nonzero (as ade__res_d computes them: the same bits), so a
 * first sweep needs neither their pass nor their 8 bytes per operand. */
void ade__res_reverse1_rec(const ade__res *r, double *A) {
  const uint32_t *ref = r->ref + r->nref;
  const double *cs = r->cst + r->ncst, *V = r->val;
  uint64_t rid = r->n + 1;
  for (size_t u = r->nrun; u-- > 0;) {
    const uint32_t len = r->rlen[u];
    switch (r->rop[u]) {
#define RES_REVR(N, s, K, F)                                                     case ADE_OP_##N:                                                                 for (uint32_t e = 0; e < len; e++) {                                             rid--, ref -= (K);                                                             for (int j_ = 0; j_ < (K); j_++) cs -= !ref[j_];                               const double ad = A[rid];                                                      if (RES_PASSIVE(N, F) || !(K) || ad == 0.0) continue;                          double a[ADE__MAX_ARITY + 1], d[ADE__MAX_ARITY + 1], h[6];                     const double *c_ = cs;                                                         for (int j_ = 0; j_ < (K); j_++) a[j_] = ref[j_] ? V[ref[j_]] : *c_++;         ade__der_##N(a, V[rid], d, h);                                                 (void)h;                                                                       for (int j_ = 0; j_ < (K); j_++)                                                 if (ref[j_]) A[ref[j_]] += d[j_] * ad;                                     }                                                                              break;
      ADE_OPS(RES_REVR)
#undef RES_REVR
    }
  }
}

/* q adjoints per variable, dense: A[rid q + l]. */
void ade__res_reverse_dense(const ade__res *r, const double *D, size_t q, double *A) {
  const uint32_t *ref = r->ref + r->nref;
  const double *d = D + r->nref;
  uint64_t rid = r->n + 1;
  for (size_t u = r->nrun; u-- > 0;) {
    const unsigned op = r->rop[u];
    const uint32_t len = r->rlen[u];
    const int k = ade__optab[op].arity, skip = !k || (ade__optab[op].flags & ADE__PASSIVE);
    for (uint32_t e = 0; e < len; e++) {
      rid--, ref -= k, d -= k;
      if (skip) continue;
      const double *restrict Ar = A + rid * q;
      int nz = 0;
      for (size_t l = 0; l < q; l++) nz |= Ar[l] != 0.0;
      for (int j = 0; nz && j < k; j++) {
        if (!ref[j]) continue;
        double *restrict Aa = A + (size_t)ref[j] * q;
        const double dk = d[j];
        for (size_t l = 0; l < q; l++) Aa[l] += dk * Ar[l];
      }
    }
  }
}

/* Chunk c as a linearized chunk at V (NULL: the recorded point), as
 * ade__lin_build would make it from the decoded chunk. */
int ade__res_lin(const ade__res *r, const double *D, const ade_tape *t, size_t c, const double *V,
                 ade__lin *L) {
  const ade__chunkent *e = &t->meta.chunks[c];
  const uint32_t *ref = r->ref + r->cref[c];
  const double *cs = r->cst + r->ccst[c], *Dp = V ? NULL : D + r->cref[c];
  if (ade__lin_reserve(L, e->records, r->cref[c + 1] - r->cref[c]))
    return ade__fail(ADE_ENOMEM, "out of memory linearizing chunk %zu", c);
  L->first = e->first;
  L->n = e->records;
  uint32_t k = 0;
  for (uint32_t i = 0; i < L->n; i++) {
    const uint64_t rid = e->first + i + 1;
    const unsigned op = r->op[rid - 1];
    const int arity = ade__optab[op].arity;
    double a[ADE__MAX_ARITY], d[ADE__MAX_ARITY];
    if (V) RES_LOAD(arity);
    L->op[i] = (uint8_t)op;
    L->val[i] = V ? V[rid] : r->val[rid];
    L->pos[i] = k;
    if (arity && !(ade__optab[op].flags & ADE__PASSIVE)) {
      if (V) ade__op_partials(op, a, L->val[i], d, NULL);
      for (int j = 0; j < arity; j++)
        if (ref[j]) {
          L->id[k] = ref[j];
          L->d[k++] = V ? d[j] : Dp[j];
        }
    }
    ref += arity;
    if (!V) Dp += arity;
  }
  L->pos[L->n] = k;
  return ADE_OK;
}

/* Values and partials at x in one pass (into W: the values, then each
 * slot's partial, or with a map M from ade__res_scatter_map the values
 * alone; x NULL: the partials at the recorded point), then out[init[k]] += the k-th
 * active partial, k in the order of the linearized chunks: the inputs of a
 * plan, as ade__replay_values, ade__lin_at and their sum would give them. */
size_t ade__res_scatter_work(const ade__res *r, const double *x, const uint32_t *M) {
  return x ? r->n + 1 + (M ? 0 : r->nref) : 0;
}

int ade__res_scatter_map(const ade__res *r, const size_t *init, size_t ntape, const uint32_t *perm, uint32_t junk,
                         uint32_t *M) {
  if (r->nact != ntape)
    return ade__fail(ADE_EINVAL, "the tape has %zu operands; the plan was compiled for %zu", r->nact, ntape);
  for (size_t k = 0; k < r->nref; k++) M[k] = junk;
  for (size_t q = 0; q < ntape; q++) {
    if (init[q] > UINT32_MAX) return ade__fail(ADE_ETOOBIG, "plan slot %zu beyond 32 bits", init[q]);
    if (init[q]) M[r->act[q]] = perm ? perm[init[q]] : (uint32_t)init[q];
  }
  return ADE_OK;
}

int ade__res_scatter_at(ade_tape *t, const ade__res *r, const double *x, double *W, const size_t *init,
                        const uint32_t *perm, size_t ntape, const uint32_t *M, double *out) {
  double *V = W;
  const double *D = x ? V + r->n + 1 : ade__res_d(t, r);
  ade__flips fl = {0, 0};
  if (!D) return ade__fail(ADE_ENOMEM, "the partials at the recorded point do not fit the memory limit");
  if (r->nact != ntape)
    return ade__fail(ADE_EINVAL, "the tape has %zu operands; the plan was compiled for %zu", r->nact, ntape);
  if (x && M) {
    res_values_to(r, x, V, M, out, &fl);
  } else {
    if (x) ade__res_values(r, x, V, V + r->n + 1, &fl);
    const uint32_t *act = r->act;
    for (size_t q = 0; q < ntape; q++)
      if (init[q]) out[perm ? perm[init[q]] : init[q]] += D[act[q]];
  }
  if (!fl.n) return ADE_OK;
  return ade__fail(ADE_WBRANCH, "%llu recorded comparison(s) differ at this point, first at op %llu",
                   (unsigned long long)fl.n, (unsigned long long)fl.first);
}
