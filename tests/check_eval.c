/* check_eval.c: the resident form gives, bit for bit, what the chunk-streaming sweeps give:
 * random programs over every opcode, at the recorded point and new ones, scalar and vector,
 * first and second order (Hessian-vector products, star Hessian plans), with branch flips. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hessian_internal.h"
#include "testutil.h"

/* ------------------------------------------------------------ programs */

#define NKINDS 50

/* One step of kind k on earlier values a, b, c and a constant q in
 * [0.3, 1.7]: every opcode appears in some kind, with constant operands in
 * each position and comparisons that choose what is recorded next. */
static ade_double step(int k, ade_double a, ade_double b, ade_double c, double q) {
  const ade_double Q = ade_passive(q);
#define P(v) ade_passive(v)
  switch (k) {
  case 0: return ade_add(a, b);
  case 1: return ade_sub(a, b);
  case 2: return ade_mul(a, b);
  case 3: return ade_div(a, ade_add(P(1.5), ade_square(b)));
  case 4: return ade_neg(a);
  case 5: return ade_square(a);
  case 6: return ade_fma(a, b, c);
  case 7: return ade_fma(a, Q, b);
  case 8: return ade_sqrt(ade_add(P(1.0), ade_square(a)));
  case 9: return ade_cbrt(a);
  case 10: return ade_exp(ade_tanh(a));
  case 11: return ade_expm1(ade_tanh(a));
  case 12: return ade_log(ade_add(P(1.2), ade_square(a)));
  case 13: return ade_log1p(ade_square(a));
  case 14: return ade_log10(ade_add(Q, ade_square(a)));
  case 15: return ade_pow(ade_add(P(1.5), ade_sin(a)), ade_tanh(b));
  case 16: return ade_pow(a, P(3.0)); /* a < 0: the exponent's partial is NaN, a constant's */
  case 17: return ade_sin(a);
  case 18: return ade_cos(a);
  case 19: return ade_tan(ade_mul(P(0.5), ade_tanh(a)));
  case 20: return ade_asin(ade_mul(P(0.9), ade_tanh(a)));
  case 21: return ade_acos(ade_mul(P(0.9), ade_tanh(a)));
  case 22: return ade_atan(a);
  case 23: return ade_atan2(a, b);
  case 24: return ade_sinh(ade_tanh(a));
  case 25: return ade_cosh(ade_tanh(a));
  case 26: return ade_tanh(a);
  case 27: return ade_asinh(a);
  case 28: return ade_acosh(ade_add(P(1.2), ade_square(a)));
  case 29: return ade_atanh(ade_mul(P(0.9), ade_tanh(a)));
  case 30: return ade_erf(a);
  case 31: return ade_erfc(a);
  case 32: return ade_hypot(a, b);
  case 33: return ade_fabs(a);
  case 34: return ade_fmin(a, b);
  case 35: return ade_fmax(a, b);
  case 36: return ade_copysign(a, b);
  case 37: return ade_add(ade_floor(a), b);
  case 38: return ade_mul(ade_ceil(a), b);
  case 39: return ade_sub(ade_trunc(a), b);
  case 40: return ade_add(ade_round(a), b);
  case 41: return ade_lt(a, b) ? ade_sin(a) : ade_cos(b);
  case 42: return ade_le(a, Q) ? ade_mul(a, b) : a;
  case 43: return ade_gt(Q, b) ? ade_exp(ade_tanh(b)) : ade_neg(b);
  case 44: return ade_ge(a, b) ? ade_sub(a, b) : ade_sub(b, a);
  case 45: return ade_eq(a, a) ? ade_add(a, c) : a;
  case 46: return ade_ne(a, b) ? ade_mul(Q, a) : b;
  case 47: return ade_sub(Q, a);
  case 48: return ade_div(Q, ade_add(P(1.0), ade_square(a)));
  default: return ade_fmax(Q, ade_fmin(a, P(-q)));
  }
#undef P
}

typedef struct prog {
  int n, m, nsteps;
  uint64_t seed;
  int rep; /* > 1: each kind rep steps in a row, in order (runs of one opcode) */
} prog;

/* Record prog at x: each step's kind and operands from the seed; values
 * that grow beyond 4 pass through tanh (decided while recording: the tape,
 * not the program, is what the sweeps evaluate). */
static ade_tape_options rec_opt = {NULL, 3, 65536, 0, 0, 0}; /* path, defer and keep for record */

static ade_tape *record(const prog *p, const double *x, uint32_t chunk_ops, int level) {
  ade_tape_options o = rec_opt;
  o.chunk_ops = chunk_ops;
  o.level = level;
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof *v * (size_t)(p->n + p->nsteps));
  uint64_t s = p->seed;
  for (int i = 0; i < p->n; i++) v[i] = ade_indep(x[i]);
  for (int i = 0; i < p->nsteps; i++) {
    int avail = p->n + i, k = i < NKINDS ? i : (int)(ade_test_rand(&s) % NKINDS);
    if (p->rep > 1) k = i / p->rep % NKINDS;
    int a = avail - 1 - (int)(ade_test_rand(&s) % (uint64_t)(avail < 5 ? avail : 5));
    int b = (int)(ade_test_rand(&s) % (uint64_t)avail), c = (int)(ade_test_rand(&s) % (uint64_t)avail);
    ade_double r = step(k, v[a], v[b], v[c], ade_test_uniform(&s, 0.3, 1.7));
    v[p->n + i] = fabs(ade_val(r)) > 4 ? ade_tanh(r) : r;
  }
  ade_dep(v[p->n]); /* an early dependent too */
  for (int j = 1; j < p->m; j++) ade_dep(v[p->n + p->nsteps - j]);
  free(v);
  ck_assert_msg(ade_trace_off() == ADE_OK, "trace_off: %s", ade_errmsg());
  return t;
}

/* ------------------------------------------------------------ results */

/* Everything the evaluations give: doubles (compared bitwise), statuses
 * and the messages of warnings. */
typedef struct results {
  double *v;
  size_t n, cap;
  int st[64];
  size_t at[64]; /* where each call's results begin */
  char msg[64][160];
  int ncall;
} results;

static void put(results *r, const double *v, size_t n) {
  if (r->n + n > r->cap) {
    r->cap = 2 * (r->n + n);
    r->v = realloc(r->v, r->cap * sizeof *r->v);
  }
  memcpy(r->v + r->n, v, n * sizeof *v);
  r->n += n;
}

static void note(results *r, int st) {
  ck_assert_msg(st >= 0, "call %d failed: %d %s", r->ncall, st, ade_errmsg());
  r->st[r->ncall] = st;
  r->at[r->ncall] = r->n;
  snprintf(r->msg[r->ncall], sizeof r->msg[0], "%s", st ? ade_errmsg() : "");
  r->ncall++;
}

enum { P = 6 }; /* directions of the vector modes (a block of 4 and 2 more: both loops of ADE__LANES) */

static int hvp_resident; /* Hessian-vector sweeps that read the resident form */

/* Second order at the point x (NULL: the recorded one; V its values): P
 * Hessian-vector products with the gradient and their fma count, and a
 * star Hessian plan's H (its own products, strip by strip) with the
 * gradient. */
static void run_hessian(ade_tape *t, const double *x, const double *V, const double *S, const double *w,
                        results *r) {
  size_t n = ade_tape_num_indep(t);
  double *HS = malloc(sizeof(double) * n * P), *g = malloc(sizeof(double) * n);
  ade__hvp f;
  note(r, ade__hvp_begin(&f, t, P, NULL));
  note(r, ade__hvp_run(&f, x ? V : NULL, w, S, HS, g));
  hvp_resident += f.res != NULL;
  double fma = (double)f.fma;
  ade__hvp_end(&f);
  put(r, HS, n * P);
  put(r, g, n);
  put(r, &fma, 1);
  ade_hess_plan *hp = NULL;
  ade_sparse *H = NULL;
  note(r, ade_hess_plan_create(&hp, t, ADE_HESS_STAR, NULL));
  note(r, ade_hess_plan_pattern(hp, &H));
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.x = x;
  o.w = w;
  o.grad = g;
  ade_hess_report rep;
  note(r, ade_hess_plan_hessian(hp, t, &o, H, &rep));
  fma = (double)rep.fma;
  put(r, H->val, H->nnz);
  put(r, g, n);
  put(r, &fma, 1);
  put(r, &rep.value, 1);
  ade_sparse_free(H);
  ade_hess_plan_free(hp);
  free(HS), free(g);
}

/* Every sweep of the evaluator at the recorded point and at the points X
 * (nx of them), in a fixed order; the plan was compiled for t. */
static void run_all(ade_tape *t, ade_elim_plan *plan, const double *X, int nx, results *r) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t), nv = (size_t)t->meta.records + 1;
  double *xd = malloc(sizeof(double) * n * P), *yb = malloc(sizeof(double) * m * P);
  double *y = malloc(sizeof(double) * m), *Yd = malloc(sizeof(double) * m * P);
  double *Xb = malloc(sizeof(double) * n * P), *J = malloc(sizeof(double) * n * m);
  double *V = malloc(sizeof(double) * nv);
  for (size_t i = 0; i < n * P; i++) xd[i] = 0.25 + 0.5 * (double)(i % 7) - 0.125 * (double)(i % 3);
  for (size_t i = 0; i < m * P; i++) yb[i] = 1.5 - 0.375 * (double)(i % 5);
  ade_sparse *Jp = NULL;
  ck_assert_int_eq(ade_elim_plan_pattern(plan, &Jp), ADE_OK);
  for (int k = -1; k < nx; k++) {
    const double *x = k < 0 ? NULL : X + (size_t)k * n;
    note(r, ade_replay(t, x, y));
    put(r, y, m);
    note(r, ade_tangent(t, x, xd, y, Yd));
    put(r, y, m);
    put(r, Yd, m);
    note(r, ade_tangent_vec(t, P, x, xd, y, Yd));
    put(r, Yd, m * P);
    note(r, ade_adjoint(t, x, yb, Xb));
    put(r, Xb, n);
    note(r, ade_adjoint_vec(t, P, x, yb, Xb));
    put(r, Xb, n * P);
    note(r, ade_jacobian_dense(t, ADE_FORWARD, x, J));
    put(r, J, n * m);
    note(r, ade_jacobian_dense(t, ADE_REVERSE, x, J));
    put(r, J, n * m);
    note(r, ade_elim_plan_jacobian(plan, t, x, Jp));
    put(r, Jp->val, Jp->nnz);
    if (m == 1) {
      note(r, ade_gradient(t, x, y, Xb));
      put(r, y, 1);
      put(r, Xb, n);
    }
    if (x) {
      note(r, ade__replay_values(t, x, V));
      put(r, V + 1, nv - 1); /* V[0] is no variable's */
    }
    run_hessian(t, x, V, xd, yb, r);
    if (x) {
      ade_hess_options o;
      ade_hess_options_init(&o);
      o.x = x;
      o.w = yb;
      ade_sparse *H = NULL;
      note(r, ade_hessian(t, ADE_HESS_EDGE_PUSH, &o, &H, NULL));
      put(r, H->val, H->nnz);
      ade_sparse_free(H);
    }
  }
  ade_sparse_free(Jp);
  free(xd), free(yb), free(y), free(Yd), free(Xb), free(J), free(V);
}

static void results_eq(const results *a, const results *b, const char *what) {
  ck_assert_msg(a->ncall == b->ncall, "%s: %d calls vs %d", what, a->ncall, b->ncall);
  for (int i = 0; i < a->ncall; i++) {
    ck_assert_msg(a->st[i] == b->st[i], "%s: call %d status %d vs %d", what, i, a->st[i], b->st[i]);
    ck_assert_msg(!strcmp(a->msg[i], b->msg[i]), "%s: call %d: '%s' vs '%s'", what, i, a->msg[i], b->msg[i]);
  }
  ck_assert_uint_eq(a->n, b->n);
  for (size_t i = 0, c = 0; i < a->n; i++) {
    while (c + 1 < (size_t)a->ncall && a->at[c + 1] <= i) c++;
    ck_assert_msg(!memcmp(&a->v[i], &b->v[i], sizeof(double)), "%s: call %zu, result %zu: %.17g vs %.17g", what,
                  c, i - a->at[c], a->v[i], b->v[i]);
  }
}

static const ade__res *resident(ade_tape *t) { return ade__res_peek(t); }

/* ------------------------------------------------------------ tests */

/* The resident sweeps (default memory limit) against the streaming ones
 * (a limit that holds one value per variable but not the resident form)
 * and the bounded ones (limit 0: values at x recomputed per chunk, live
 * adjoints): the same bits, statuses and branch warnings. */
START_TEST(resident_equals_streaming) {
  uint64_t s = 0x5eed0000u + (uint64_t)_i;
  prog p = {2 + (int)(ade_test_rand(&s) % 4), 1 + (int)(ade_test_rand(&s) % 3), 60 + (int)(ade_test_rand(&s) % 120),
            ade_test_rand(&s), 0};
  if (_i % 4 == 0) p.m = 1;
  double x[8], X[3 * 8];
  for (int i = 0; i < p.n; i++) {
    x[i] = ade_test_uniform(&s, -1.3, 1.3);
    X[i] = x[i] * (1 + 1e-9);                      /* near: usually the recorded branches */
    X[p.n + i] = ade_test_uniform(&s, -1.3, 1.3);  /* far: usually flips */
    X[2 * p.n + i] = x[i];                         /* the recorded point, given */
  }
  ade_tape *t = record(&p, x, 1 + (uint32_t)(ade_test_rand(&s) % 64), _i % 3 ? 3 : 0);
  ade_elim_plan *plan = NULL;
  ck_assert_int_ge(ade_elim_plan_create(&plan, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), 0);
  results a = {0}, b = {0}, c = {0};
  hvp_resident = 0;
  run_all(t, plan, X, 3, &a);
  ck_assert_int_gt(hvp_resident, 0);
  hvp_resident = 0;
  const ade__res *r = resident(t);
  ck_assert_ptr_nonnull(r);
  ck_assert_uint_le(ade__res_bytes(r), t->memlimit);
  ck_assert_uint_eq(r->n, t->meta.records);
  ade_tape_set_memory_limit(t, ((size_t)t->meta.records + 1) * sizeof(double));
  ck_assert_ptr_null(resident(t));
  run_all(t, plan, X, 3, &b);
  ck_assert_ptr_null(resident(t));
  ck_assert_int_eq(hvp_resident, 0);
  results_eq(&a, &b, "resident vs streaming");
  ade_tape_set_memory_limit(t, 0);
  run_all(t, plan, X, 3, &c);
  results_eq(&a, &c, "resident vs bounded");
  /* Streaming and bounded sweeps decode chunks ahead on a thread (three
   * chunks or more); without it, the same bits. */
  uint64_t served = ade__prefetch_served();
  ade__prefetch_enable(0);
  results d = {0};
  run_all(t, plan, X, 3, &d);
  ck_assert_uint_eq(ade__prefetch_served(), served);
  results_eq(&a, &d, "bounded without prefetch");
  free(d.v);
  d = (results){0};
  ade_tape_set_memory_limit(t, ((size_t)t->meta.records + 1) * sizeof(double));
  run_all(t, plan, X, 3, &d);
  results_eq(&a, &d, "streaming without prefetch");
  ade__prefetch_enable(1);
  if (t->meta.nchunks >= 3) ck_assert_uint_gt(served, 0);
  free(d.v);
  int flips = 0;
  for (int i = 0; i < a.ncall; i++) flips += a.st[i] == ADE_WBRANCH;
  if (_i >= 1 && _i <= 6) ck_assert_int_gt(flips, 0); /* these seeds flip branches at the far point */
  ade_elim_plan_free(plan);
  ade_tape_free(t);
  free(a.v), free(b.v), free(c.v);
}
END_TEST

/* The tape covers every opcode (the first NKINDS steps are one of each
 * kind), and the resident form holds each record, with its runs adding up. */
START_TEST(resident_layout) {
  prog p = {3, 2, 400, 42, 0};
  double x[3] = {0.61, -0.83, 1.17};
  ade_tape *t = record(&p, x, 37, 3);
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(t, &st), ADE_OK);
  for (unsigned op = 0; op < ADE_OP_COUNT; op++)
    ck_assert_msg(t->meta.opcount[op] > 0, "opcode %s not recorded", ade__optab[op].name);
  double xd[3] = {1, -2, 0.5}, yd[2];
  ck_assert_int_eq(ade_tangent(t, NULL, xd, NULL, yd), ADE_OK); /* linearizes chunk by chunk */
  ck_assert_uint_gt(st.chunks, 2);
  ck_assert_ptr_null(resident(t)); /* a tape swept once stays as it is */
  ck_assert_int_eq(ade_replay(t, x, NULL), ADE_OK);
  const ade__res *r = resident(t);
  ck_assert_ptr_nonnull(r);
  ck_assert_ptr_null(atomic_load(&r->d)); /* no sweep at the recorded point yet */
  uint64_t sum = 0;
  for (size_t u = 0; u < r->nrun; u++) {
    ck_assert_uint_gt(r->rlen[u], 0);
    if (u) ck_assert_uint_ne(r->rop[u], r->rop[u - 1]);
    for (uint32_t e = 0; e < r->rlen[u]; e++) ck_assert_uint_eq(r->op[sum + e], r->rop[u]);
    sum += r->rlen[u];
  }
  ck_assert_uint_eq(sum, st.records);
  size_t slots = 0;
  for (size_t i = 0; i < r->n; i++) slots += ade__optab[r->op[i]].arity;
  ck_assert_uint_eq(slots, r->nref);
  size_t act = 0, s = 0;
  for (size_t i = 0; i < r->n; s += ade__optab[r->op[i]].arity, i++)
    for (int j = 0; j < ade__optab[r->op[i]].arity && !(ade__optab[r->op[i]].flags & ADE__PASSIVE); j++)
      if (r->ref[s + j]) ck_assert_uint_eq(r->act[act++], s + j);
  ck_assert_uint_eq(act, r->nact);
  size_t base = r->n + (r->n + 1) * 8 + r->nrun * 5 + r->nref * 4 + r->nact * 4 + r->ncst * 8 +
                (t->meta.nchunks + 1) * 2 * sizeof(size_t);
  ck_assert_uint_eq(ade__res_bytes(r), base);
  double xb[3], xb2[3], yb[2] = {0.5, -1.25};
  ck_assert_int_eq(ade_adjoint(t, NULL, yb, xb), ADE_OK);
  ck_assert_ptr_null(atomic_load(&r->d)); /* the first computes the partials where it needs them */
  ck_assert_uint_eq(ade__res_bytes(r), base);
  ck_assert_int_eq(ade_adjoint(t, NULL, yb, xb2), ADE_OK);
  ck_assert_ptr_nonnull(atomic_load(&r->d)); /* the second stores them */
  ck_assert_mem_eq(xb, xb2, sizeof xb);
  ck_assert_uint_eq(ade__res_bytes(r), base + r->nref * 8);
  /* A limit of exactly its bytes keeps it; one byte less drops it. */
  size_t bytes = ade__res_bytes(r);
  ade_tape_set_memory_limit(t, bytes);
  ck_assert_ptr_eq(resident(t), r);
  ade_tape_set_memory_limit(t, bytes - 1);
  ck_assert_ptr_null(resident(t));
  ck_assert_int_eq(ade_replay(t, x, NULL), ADE_OK); /* streams: the bound is over the limit */
  ck_assert_ptr_null(resident(t));
  ade_tape_free(t);
}
END_TEST

/* Calls on a tape run on its clones and reuse the one resident form. */
START_TEST(resident_shared_by_clones) {
  prog p = {4, 1, 300, 7, 0};
  double x[4] = {0.3, -0.7, 1.1, 0.45}, g[4], g2[4], f, f2;
  ade_tape *t = record(&p, x, 50, 3);
  ck_assert_int_ge(ade_gradient(t, x, &f, g), 0);
  ck_assert_int_ge(ade_gradient(t, x, &f, g), 0); /* the second sweep builds it */
  const ade__res *r = resident(t);
  ck_assert_ptr_nonnull(r);
  for (int k = 0; k < 3; k++) {
    ck_assert_int_ge(ade_gradient(t, x, &f2, g2), 0);
    ck_assert_ptr_eq(resident(t), r);
    ck_assert_mem_eq(g, g2, sizeof g);
    ck_assert(f == f2);
  }
  ade_tape_free(t);
}
END_TEST

/* Tangent slots (ade__res_tmap): no record between an operand's definition
 * and its use takes the operand's slot, a record never shares its slot
 * with its operands, dependents keep theirs to the end, and the tangents
 * through the slots are those by record id, bit for bit (vector mode, at
 * a new point, 6 directions). */
START_TEST(tangent_slots) {
  uint64_t s = 0x7a9e0000u + (uint64_t)_i;
  prog p = {2 + (int)(ade_test_rand(&s) % 4), 1 + (int)(ade_test_rand(&s) % 3), 100 + (int)(ade_test_rand(&s) % 200),
            ade_test_rand(&s), 0};
  double x[8], X[8], xd[8 * 6], yd[3 * 6];
  for (int i = 0; i < p.n; i++) x[i] = ade_test_uniform(&s, -1.3, 1.3), X[i] = ade_test_uniform(&s, -1.3, 1.3);
  for (int i = 0; i < 6 * p.n; i++) xd[i] = ade_test_uniform(&s, -2, 2);
  ade_tape *t = record(&p, x, 1 + (uint32_t)(ade_test_rand(&s) % 64), 3);
  ck_assert_int_ge(ade_tangent_vec(t, 6, X, xd, NULL, yd), 0);
  ck_assert_int_ge(ade_tangent_vec(t, 6, X, xd, NULL, yd), 0); /* builds the resident form */
  const ade__res *r = resident(t);
  ck_assert_ptr_nonnull(r);
  const ade__tmap *m = ade__res_tmap(t, r);
  ck_assert_ptr_nonnull(m);
  ck_assert_ptr_eq(atomic_load(&r->tmap), m);
  ck_assert_uint_le(m->nslot, r->n + 1);
  ck_assert_uint_eq(m->rec[0], 0);
  size_t k = 0, n = r->n;
  for (size_t i = 0; i < n; i++) {
    const uint32_t rid = (uint32_t)i + 1;
    ck_assert_uint_gt(m->rec[rid], 0);
    ck_assert_uint_lt(m->rec[rid], m->nslot);
    for (int j = 0; j < ade__optab[r->op[i]].arity; j++, k++) {
      const uint32_t a = r->ref[k];
      ck_assert_uint_eq(m->op[k], a ? m->rec[a] : 0);
      if (!a) continue;
      ck_assert_uint_ne(m->rec[rid], m->rec[a]);
      for (uint32_t q = a + 1; q < rid; q++) ck_assert_uint_ne(m->rec[q], m->rec[a]);
    }
  }
  for (size_t j = 0; j < t->meta.ndep; j++)
    for (uint64_t q = t->meta.dep[j] + 1; q <= n; q++) ck_assert_uint_ne(m->rec[q], m->rec[t->meta.dep[j]]);
  /* through the slots and by record id: the same bits */
  double *V1 = calloc(n + 1, sizeof *V1), *V2 = calloc(n + 1, sizeof *V2);
  double *T1 = calloc((n + 1) * 6, sizeof *T1), *T2 = calloc(m->nslot * 6, sizeof *T2);
  ade__flips f1 = {0, 0}, f2 = {0, 0};
  ade__res_tangent(r, NULL, X, V1, NULL, 6, xd, T1, &f1);
  ade__res_tangent(r, m, X, V2, NULL, 6, xd, T2, &f2);
  ck_assert_mem_eq(V1, V2, (n + 1) * sizeof *V1);
  ck_assert_uint_eq(f1.n, f2.n);
  for (size_t j = 0; j < t->meta.ndep; j++) {
    const uint64_t d = t->meta.dep[j];
    ck_assert_mem_eq(T1 + d * 6, T2 + (size_t)m->rec[d] * 6, 6 * sizeof *T1);
    ck_assert_mem_eq(T1 + d * 6, yd + j * 6, 6 * sizeof *T1);
  }
  if (n > 200) ck_assert_uint_lt(m->nslot, n / 2); /* the live set, not the tape */
  free(V1), free(V2), free(T1), free(T2);
  ade_tape_free(t);
  /* A limit that holds the form and one tangent sweep at x but not the
   * slots: tangents by record id, the same bits as through the slots. */
  t = record(&p, x, 1 + (uint32_t)(ade_test_rand(&s) % 64), 3);
  const size_t keep = t->memlimit;
  ck_assert_int_ge(ade_replay(t, X, NULL), 0);
  ck_assert_int_ge(ade_replay(t, X, NULL), 0);
  r = resident(t);
  ck_assert_ptr_nonnull(r);
  size_t lim = ade__res_bytes(r), ws = 2 * (n + 1) * sizeof(double);
  ade_tape_set_memory_limit(t, (lim > ws ? lim : ws) + 8);
  double y1[3], y2[3];
  ck_assert_int_ge(ade_tangent_vec(t, 1, X, xd, NULL, y1), 0);
  ck_assert_ptr_eq(resident(t), r);
  ck_assert_ptr_null(atomic_load(&r->tmap));
  ade_tape_set_memory_limit(t, keep);
  ck_assert_int_ge(ade_tangent_vec(t, 1, X, xd, NULL, y2), 0);
  ck_assert_ptr_eq(resident(t), r);
  ck_assert_ptr_nonnull(atomic_load(&r->tmap));
  ck_assert_mem_eq(y1, y2, (size_t)p.m * sizeof *y1);
  ade_tape_free(t);
}
END_TEST

/* One Hessian sweep of every kind at the point V (NULL: the recorded one)
 * into r: vector Hessian-vector products for several widths (both loops of
 * the direction blocks, fma counts included), and edge pushing with its
 * report and its log of updates. */
static void run_second(ade_tape *t, const double *V, const double *w, uint64_t seed, results *r) {
  static const size_t widths[] = {1, 2, 3, 4, 5, 7, 8, 9};
  size_t n = ade_tape_num_indep(t);
  for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
    const size_t p = widths[k];
    double *S = malloc(sizeof(double) * n * p), *HS = malloc(sizeof(double) * n * p), *g = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n * p; i++) S[i] = ade_test_uniform(&seed, -2, 2);
    ade__hvp f;
    note(r, ade__hvp_begin(&f, t, p, NULL));
    note(r, ade__hvp_run(&f, V, w, S, HS, g));
    double fma = (double)f.fma;
    hvp_resident += f.res != NULL;
    ade__hvp_end(&f);
    put(r, HS, n * p);
    put(r, g, n);
    put(r, &fma, 1);
    free(S), free(HS), free(g);
  }
  ade_sparse *H = NULL;
  ade_hess_report rep;
  ade__hlog log;
  double *g = malloc(sizeof(double) * n);
  memset(&log, 0, sizeof log);
  note(r, ade__edge_push(t, V, w, &H, g, &rep, &log));
  double c[4] = {(double)rep.updates, (double)rep.fma, (double)rep.max_live, (double)log.n};
  put(r, c, 4);
  put(r, H->val, H->nnz);
  for (size_t i = 0; i <= n; i++) {
    double e = (double)H->rowptr[i];
    put(r, &e, 1);
  }
  for (size_t i = 0; i < H->nnz; i++) {
    double e = (double)H->col[i];
    put(r, &e, 1);
  }
  for (size_t i = 0; i < 3 * log.n; i++) { /* in sweep order, not sorted */
    double e = (double)log.e[i];
    put(r, &e, 1);
  }
  put(r, g, n);
  ade__hlog_free(&log);
  ade_sparse_free(H);
  free(g);
}

/* The Hessian sweeps over the resident form, one dispatch per run of one
 * opcode, against the per-record sweeps over the chunks (the limit holds
 * the values but not the resident form): the same bits, fma counts, live
 * sets and updates in the same order, at the recorded point and at a new
 * one, on random programs over every opcode with runs of 1 to 7 records
 * of one kind. */
START_TEST(hessian_runs_equal_records) {
  uint64_t s = 0x4e55e000u + (uint64_t)_i;
  prog p = {2 + (int)(ade_test_rand(&s) % 4), 1 + (int)(ade_test_rand(&s) % 3), 0, ade_test_rand(&s),
            1 + 2 * (_i % 4)};
  p.nsteps = NKINDS * p.rep + (int)(ade_test_rand(&s) % 60);
  double x[8], X[8], w[3];
  for (int i = 0; i < p.n; i++) x[i] = ade_test_uniform(&s, -1.3, 1.3), X[i] = ade_test_uniform(&s, -1.3, 1.3);
  for (int i = 0; i < 3; i++) w[i] = ade_test_uniform(&s, -2, 2);
  ade_tape *t = record(&p, x, 1 + (uint32_t)(ade_test_rand(&s) % 64), 3);
  for (unsigned op = 0; op < ADE_OP_COUNT; op++)
    ck_assert_msg(t->meta.opcount[op] > 0, "opcode %s not recorded", ade__optab[op].name);
  const size_t keep = t->memlimit, nv = (size_t)t->meta.records + 1;
  double *V = malloc(sizeof(double) * nv);
  ck_assert_int_ge(ade__replay_values(t, X, V), 0);
  const ade__res *r = ade__res_now(t);
  ck_assert_ptr_nonnull(r);
  uint32_t longest = 0;
  for (size_t u = 0; u < r->nrun; u++) longest = r->rlen[u] > longest ? r->rlen[u] : longest;
  ck_assert_uint_ge(longest, (uint32_t)p.rep); /* runs of several records */
  for (int at = 0; at < 2; at++) {
    const double *Vx = at ? V : NULL, *wx = p.m > 1 || at ? w : NULL;
    results a = {0}, b = {0};
    ade_tape_set_memory_limit(t, keep);
    ck_assert_ptr_nonnull(ade__res_now(t));
    hvp_resident = 0;
    run_second(t, Vx, wx, s, &a);
    ck_assert_int_gt(hvp_resident, 0);
    ade_tape_set_memory_limit(t, nv * sizeof(double));
    ck_assert_ptr_null(resident(t));
    hvp_resident = 0;
    run_second(t, Vx, wx, s, &b);
    ck_assert_int_eq(hvp_resident, 0);
    ck_assert_ptr_null(resident(t));
    results_eq(&a, &b, at ? "runs vs records at x" : "runs vs records at the recorded point");
    free(a.v), free(b.v);
  }
  free(V);
  ade_tape_free(t);
}
END_TEST

/* ------------------------------------------------------- o->keep */

/* The form a recording with o->keep leaves: the arrays decoding builds. */
static void res_same(const ade__res *a, const ade__res *b, size_t nchunks) {
  ck_assert_uint_eq(a->n, b->n);
  ck_assert_uint_eq(a->nrun, b->nrun);
  ck_assert_uint_eq(a->nref, b->nref);
  ck_assert_uint_eq(a->nact, b->nact);
  ck_assert_uint_eq(a->ncst, b->ncst);
  ck_assert_uint_eq(a->bytes, b->bytes);
  ck_assert_mem_eq(a->op, b->op, a->n);
  ck_assert_mem_eq(a->rop, b->rop, a->nrun);
  ck_assert_mem_eq(a->rlen, b->rlen, a->nrun * sizeof *a->rlen);
  ck_assert_mem_eq(a->ref, b->ref, a->nref * sizeof *a->ref);
  ck_assert_mem_eq(a->act, b->act, a->nact * sizeof *a->act);
  ck_assert_mem_eq(a->cst, b->cst, a->ncst * sizeof *a->cst);
  ck_assert_mem_eq(a->val, b->val, (a->n + 1) * sizeof *a->val);
  ck_assert_mem_eq(a->cref, b->cref, (nchunks + 1) * sizeof *a->cref);
  ck_assert_mem_eq(a->ccst, b->ccst, (nchunks + 1) * sizeof *a->ccst);
}

/* No workspace of t (its idle clones) has decoded a chunk. */
static void no_chunk_decoded(ade_tape *t) {
  int spares = 0;
  for (int i = 0; i < ADE__SPARES; i++) {
    const ade_tape *c = atomic_load(&t->spare[i]);
    if (!c) continue;
    spares++;
    ck_assert_uint_eq(c->view.cap, 0);
    ck_assert_uint_eq(c->scratch_view.cap, 0);
    ck_assert_uint_eq(c->cd.plain.cap, 0);
  }
  ck_assert_int_gt(spares, 0);
}

/* A recording with o->keep (in memory, deferred, or into a file) leaves
 * the resident form decoding would build, array for array; the first
 * sweeps after ade_trace_off decode no chunk, and every sweep gives the
 * bits of the same program recorded without it. */
START_TEST(kept_equals_decoded) {
  uint64_t s = 0x6ee90000u + (uint64_t)_i;
  prog p = {2 + (int)(ade_test_rand(&s) % 4), 1 + (int)(ade_test_rand(&s) % 3), 60 + (int)(ade_test_rand(&s) % 120),
            ade_test_rand(&s), 0};
  if (_i % 4 == 0) p.m = 1;
  double x[8], X[3 * 8];
  for (int i = 0; i < p.n; i++) {
    x[i] = ade_test_uniform(&s, -1.3, 1.3);
    X[i] = x[i] * (1 + 1e-9);
    X[p.n + i] = ade_test_uniform(&s, -1.3, 1.3);
    X[2 * p.n + i] = x[i];
  }
  const uint32_t chunk = 1 + (uint32_t)(ade_test_rand(&s) % 64);
  const int level = _i % 3 ? 3 : 0;
  ade_tape *t0 = record(&p, x, chunk, level);
  char path[] = "/tmp/check_eval_keep_XXXXXX";
  if (_i % 4 == 2) {
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    rec_opt.path = path;
  }
  rec_opt.defer = _i % 4 == 1;
  rec_opt.keep = 1;
  ade_tape *t1 = record(&p, x, chunk, level);
  rec_opt = (ade_tape_options){NULL, 3, 65536, 0, 0, 0};
  ck_assert_ptr_nonnull(atomic_load(&t1->kept));
  /* the first sweeps of one kind each at the recorded point */
  size_t n = (size_t)p.n, m = (size_t)p.m;
  double xb[8], xb0[8], yb[3] = {0.75, -1.5, 0.375}, xd[8], yd[3], yd0[3];
  for (size_t i = 0; i < n; i++) xd[i] = 0.5 - 0.25 * (double)i;
  ck_assert_int_ge(ade_adjoint(t1, NULL, yb, xb), 0);
  no_chunk_decoded(t1);
  ck_assert_ptr_nonnull(resident(t1));
  ck_assert_ptr_null(atomic_load(&resident(t1)->d)); /* partials where needed, none stored */
  ck_assert_int_ge(ade_tangent(t1, NULL, xd, NULL, yd), 0);
  no_chunk_decoded(t1);
  ck_assert_int_ge(ade_adjoint(t0, NULL, yb, xb0), 0); /* streams */
  ck_assert_int_ge(ade_tangent(t0, NULL, xd, NULL, yd0), 0);
  ck_assert_mem_eq(xb, xb0, n * sizeof *xb);
  ck_assert_mem_eq(yd, yd0, m * sizeof *yd);
  /* then everything */
  ade_elim_plan *p0 = NULL, *p1 = NULL;
  ck_assert_int_ge(ade_elim_plan_create(&p0, t0, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), 0);
  ck_assert_int_ge(ade_elim_plan_create(&p1, t1, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), 0);
  results a = {0}, b = {0};
  run_all(t0, p0, X, 3, &a);
  run_all(t1, p1, X, 3, &b);
  results_eq(&a, &b, "decoded vs kept");
  ck_assert_ptr_null(atomic_load(&t1->kept));
  const ade__res *r0 = resident(t0), *r1 = resident(t1);
  ck_assert_ptr_nonnull(r0);
  ck_assert_ptr_nonnull(r1);
  ck_assert_uint_eq(t0->meta.nchunks, t1->meta.nchunks);
  res_same(r0, r1, t0->meta.nchunks);
  ck_assert_uint_eq(ade_tape_resident_bytes(t0), ade_tape_resident_bytes(t1));
  ade_elim_plan_free(p0);
  ade_elim_plan_free(p1);
  ade_tape_free(t0);
  ade_tape_free(t1);
  if (_i % 4 == 2) unlink(path);
  free(a.v), free(b.v);
}
END_TEST

/* The form counts against the memory limit while recording (dropped
 * there once it would exceed it) and after (dropped by a lower limit);
 * without it sweeps decode, with the same bits. A tape saved and loaded
 * again has none until its second sweep, as any loaded tape. */
START_TEST(kept_memory_limit) {
  prog p = {3, 2, 2000, 99, 0};
  double x[3] = {0.61, -0.83, 1.17}, xb[3], want[3], yb[2] = {0.5, -1.25};
  ade_tape *t0 = record(&p, x, 256, 3);
  ck_assert_int_ge(ade_adjoint(t0, NULL, yb, want), 0);
  const size_t records = (size_t)t0->meta.records;
  for (int k = 0; k < 4; k++) {
    ade_tape_options o = rec_opt;
    o.chunk_ops = 256;
    o.keep = 1;
    ade_tape *t = NULL;
    ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
    /* 0: no room at all; 1: room for the first chunks only; 2, 3: room */
    const size_t lim[4] = {0, records * 20, (size_t)256 << 20, (size_t)256 << 20};
    ade_tape_set_memory_limit(t, lim[k]);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    uint64_t s = p.seed;
    ade_double v[2003];
    for (int i = 0; i < p.n; i++) v[i] = ade_indep(x[i]);
    for (int i = 0; i < p.nsteps; i++) {
      int avail = p.n + i, kind = i < NKINDS ? i : (int)(ade_test_rand(&s) % NKINDS);
      int a = avail - 1 - (int)(ade_test_rand(&s) % (uint64_t)(avail < 5 ? avail : 5));
      int b = (int)(ade_test_rand(&s) % (uint64_t)avail), c = (int)(ade_test_rand(&s) % (uint64_t)avail);
      ade_double r = step(kind, v[a], v[b], v[c], ade_test_uniform(&s, 0.3, 1.7));
      v[p.n + i] = fabs(ade_val(r)) > 4 ? ade_tanh(r) : r;
      if (k == 1 && i == 300) /* the first chunk fits, the tape does not */
        ck_assert_ptr_nonnull(t->w->keep);
    }
    ade_dep(v[p.n]);
    ade_dep(v[p.n + p.nsteps - 1]);
    ck_assert_int_eq(ade_trace_off(), ADE_OK);
    ck_assert_uint_eq(t->meta.records, records);
    ade_tape_set_memory_limit(t, (size_t)256 << 20);
    size_t bytes = ade_tape_resident_bytes(t);
    if (k < 2) ck_assert_uint_eq(bytes, 0);
    else ck_assert_uint_gt(bytes, records * 9);
    if (k == 3) { /* a limit below it after the recording drops it */
      ade_tape_set_memory_limit(t, bytes - 1);
      ck_assert_uint_eq(ade_tape_resident_bytes(t), 0);
    }
    ck_assert_int_ge(ade_adjoint(t, NULL, yb, xb), 0);
    ck_assert_mem_eq(xb, want, sizeof xb);
    if (k == 2) {
      char path[] = "/tmp/check_eval_keep_XXXXXX";
      int fd = mkstemp(path);
      ck_assert_int_ge(fd, 0);
      close(fd);
      ck_assert_int_eq(ade_tape_save(t, path), ADE_OK);
      ade_tape *l = NULL;
      ck_assert_int_eq(ade_tape_load(&l, path), ADE_OK);
      ck_assert_uint_eq(ade_tape_resident_bytes(l), 0);
      ck_assert_int_ge(ade_adjoint(l, NULL, yb, xb), 0);
      ck_assert_uint_eq(ade_tape_resident_bytes(l), 0);
      ck_assert_mem_eq(xb, want, sizeof xb);
      ade_tape_free(l);
      unlink(path);
    }
    ade_tape_free(t);
  }
  ade_tape_free(t0);
}
END_TEST

/* Out of memory at every allocation of a recording with o->keep and its
 * first sweeps: either the recording fails with ADE_ENOMEM, or the form is
 * dropped (a failed allocation of its own) and the sweeps decode, or a
 * sweep fails with ADE_ENOMEM; the results are the bits of a recording
 * without it, and nothing leaks. */
START_TEST(kept_out_of_memory) {
  prog p = {3, 2, 150, 5, 0};
  double x[3] = {0.61, -0.83, 1.17}, xb[3], want[3], yd[2], ywant[2], yb[2] = {0.5, -1.25}, xd[3] = {1, -2, 0.5};
  ade_tape *t0 = record(&p, x, 40, 3);
  ck_assert_int_ge(ade_adjoint(t0, NULL, yb, want), 0);
  ck_assert_int_ge(ade_tangent(t0, NULL, xd, NULL, ywant), 0);
  ade_tape_free(t0);
  ade_test_alloc al = {-1, 0, 0};
  int kept = 0;
  for (long k = 0;; k++) {
    al.fail_at = k, al.count = 0, al.live = 0;
    ade_set_allocator(ade_test_alloc_fn, &al);
    ade_tape_options o = rec_opt;
    o.chunk_ops = 40;
    o.keep = 1;
    ade_tape *t = NULL;
    int st = ade_tape_create(&t, &o);
    if (!st) {
      ade_trace_on(t);
      uint64_t s = p.seed;
      ade_double v[153];
      for (int i = 0; i < p.n; i++) v[i] = ade_indep(x[i]);
      for (int i = 0; i < p.nsteps; i++) {
        int avail = p.n + i, kind = i < NKINDS ? i : (int)(ade_test_rand(&s) % NKINDS);
        int a = avail - 1 - (int)(ade_test_rand(&s) % (uint64_t)(avail < 5 ? avail : 5));
        int b = (int)(ade_test_rand(&s) % (uint64_t)avail), c = (int)(ade_test_rand(&s) % (uint64_t)avail);
        ade_double r = step(kind, v[a], v[b], v[c], ade_test_uniform(&s, 0.3, 1.7));
        v[p.n + i] = fabs(ade_val(r)) > 4 ? ade_tanh(r) : r;
      }
      ade_dep(v[p.n]);
      ade_dep(v[p.n + p.nsteps - 1]);
      st = ade_trace_off();
    }
    int has = !st && atomic_load(&t->kept) != NULL;
    if (!st) st = ade_adjoint(t, NULL, yb, xb);
    if (st >= 0) st = ade_tangent(t, NULL, xd, NULL, yd);
    if (st >= 0) {
      ck_assert_mem_eq(xb, want, sizeof xb);
      ck_assert_mem_eq(yd, ywant, sizeof yd);
      kept += has;
    }
    ade_tape_free(t);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(al.live == 0, "k=%ld: %ld blocks leaked", k, al.live);
    if (st < 0) ck_assert_msg(st == ADE_ENOMEM, "k=%ld: %s: %s", k, ade_errname(st), ade_errmsg());
    if (al.count <= k) break; /* no allocation failed: the run is whole */
  }
  ck_assert_int_gt(kept, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("eval");
  TCase *tc = tcase_create("resident");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, resident_equals_streaming, 0, 24);
  tcase_add_test(tc, resident_layout);
  tcase_add_test(tc, resident_shared_by_clones);
  tcase_add_loop_test(tc, tangent_slots, 0, 12);
  tcase_add_loop_test(tc, hessian_runs_equal_records, 0, 16);
  tcase_add_loop_test(tc, kept_equals_decoded, 0, 12);
  tcase_add_test(tc, kept_memory_limit);
  tcase_add_test(tc, kept_out_of_memory);
  suite_add_tcase(s, tc);
  return ade_test_run(s);
}
