/* check_oom.c: allocation-failure sweep over a whole run (record, sweeps, c-graph, eliminations,
 * optimizers, plans, CPR, Hessians, files): every call fails cleanly or gives the bits of a
 * run without failures, and nothing leaks. */
#include <string.h>
#include <unistd.h>

#include "elim_internal.h"
#include "testutil.h"

/* Fails allocation k (counting from 0) and, with all, every one after it. */
typedef struct hook {
  long k, count, live, failed;
  int all, armed; /* armed 0: neither counts nor fails */
} hook;

static void *hook_fn(void *ud, void *p, size_t n) {
  hook *h = ud;
  if (n == 0) {
    if (p) h->live--;
    free(p);
    return NULL;
  }
  long i = h->armed ? h->count++ : -1;
  if (i >= 0 && h->k >= 0 && (i == h->k || (h->all && i > h->k))) {
    h->failed++;
    return NULL;
  }
  void *q = realloc(p, n);
  if (q && !p) h->live++;
  return q;
}

/* What one run saw: per call, the status and a hash of its results' bits. */
#define NCALLS 128
typedef struct run {
  int st[NCALLS];
  uint64_t hash[NCALLS];
  int done[NCALLS];
  int ncall;          /* the next call's slot */
  int base;           /* the first slot of the current section */
  int last;           /* the status of the call being noted */
  int failed;         /* a call before this one failed */
  int strict;         /* no failure may show (the check after a stage) */
  int tape_failed;    /* the recording of tape A failed: consumers must say ESTATE */
  const struct run *ref; /* the run without failures (NULL: this is it) */
  long k;
  char path[64], seqpath[64];
} run;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}
#define FNV0 0xcbf29ce484222325ull

static uint64_t hash_sparse(const ade_sparse *A) {
  uint64_t h = fnv(FNV0, &A->m, sizeof A->m);
  h = fnv(h, &A->n, sizeof A->n);
  h = fnv(h, A->rowptr, (A->m + 1) * sizeof *A->rowptr);
  h = fnv(h, A->col, A->nnz * sizeof *A->col);
  return fnv(h, A->val, A->nnz * sizeof *A->val);
}

/* The state of a graph under elimination, adjacency order and counters included. */
static uint64_t hash_graph(const ade_cgraph *g) {
  uint64_t h = fnv(FNV0, &g->nalive, sizeof g->nalive);
  for (size_t i = 0; i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (!v->alive) continue;
    h = fnv(h, &v->id, sizeof v->id);
    h = fnv(h, &v->val, sizeof v->val);
    for (size_t k = 0; k < v->nout; k++) {
      const ade__edge *e = &g->e[v->out[k]];
      h = fnv(h, &g->v[e->dst].id, sizeof(long));
      h = fnv(h, &e->val, sizeof e->val);
      h = fnv(h, &e->id, sizeof e->id);
    }
  }
  uint64_t c[4] = {g->fma, g->fill, g->absorbed, g->merged};
  long ids[2] = {g->next_edge_id, g->next_vertex_id};
  return fnv(fnv(h, c, sizeof c), ids, sizeof ids);
}

/* Check one call: an error is ENOMEM (ESTATE after a failed call), a
 * success has the reference's status and result bits. Returns st. */
static int note(run *r, int st, uint64_t h, int line) {
  int i = r->ncall++;
  ck_assert_int_lt(i, NCALLS);
  r->st[i] = st;
  r->hash[i] = h;
  r->done[i] = 1;
  if (!r->ref) {
    ck_assert_msg(st >= 0, "line %d: the run without failures got %s: %s", line, ade_errname(st), ade_errmsg());
    return st;
  }
  const run *f = r->ref;
  ck_assert_msg(!r->strict || st >= 0, "k=%ld line %d: %s after the failures: %s", r->k, line, ade_errname(st),
                ade_errmsg());
  if (st < 0) {
    ck_assert_msg(st == ADE_ENOMEM || (st == ADE_ESTATE && r->failed), "k=%ld line %d: %s: %s", r->k, line,
                  ade_errname(st), ade_errmsg());
    r->failed = 1;
  } else {
    ck_assert_msg(f->done[i] && st == f->st[i], "k=%ld line %d: status %d, without failures %d", r->k, line,
                  st, f->st[i]);
    ck_assert_msg(h == f->hash[i], "k=%ld line %d slot %d: results differ from the run without failures (%llx, %llx)", r->k, line, i, (unsigned long long)h, (unsigned long long)f->hash[i]);
  }
  return st;
}
static int use(run *r, int st, uint64_t h, int line) {
  if (r->tape_failed)
    ck_assert_msg(st == ADE_ESTATE, "k=%ld line %d: %s on an incomplete tape: %s", r->k, line, ade_errname(st),
                  ade_errmsg());
  return note(r, st, h, line);
}
/* The call first, then the hash of what it wrote (h is not evaluated after an error). */
#define NOTE(r, call, h) (r->last = (call), note(r, r->last, r->last < 0 ? 0 : (h), __LINE__))
/* A consumer of tape A: after a failed recording it must say ESTATE. */
#define USE(r, call, h) (r->last = (call), use(r, r->last, r->last < 0 ? 0 : (h), __LINE__))

static const double X0[4] = {0.7386, -1.215, 2.385, 0.4219}, X1[4] = {0.9134, -0.8721, 1.937, 0.6612};
static const double W[3] = {1.375, -0.625, 2.25};

/* F: R^4 -> R^3 with regions, a comparison, chunks that import. */
static void program_a(const double *x, double *y) {
  ade_double a[4];
  for (int i = 0; i < 4; i++) a[i] = ade_indep(x[i]);
  ade_region_begin("outer");
  ade_double s = ade_add(ade_mul(a[0], a[1]), ade_sin(a[2]));
  ade_region_begin("inner");
  ade_double u = ade_exp(ade_mul_ad(a[3], 0.5)), v = ade_div(s, ade_add_ad(u, 1.0));
  ade_region_end();
  ade_double w = ade_sqrt(ade_add(ade_square(a[0]), ade_square(a[3])));
  for (int k = 0; k < 3; k++) {
    s = ade_add(ade_mul(s, v), ade_cos(w));
    w = ade_atan2(w, ade_add(ade_tanh(s), a[k % 4]));
  }
  if (ade_lt(s, w)) s = ade_fma(s, v, a[2]);
  ade_region_end();
  y[0] = ade_dep(s);
  y[1] = ade_dep(ade_mul(v, w));
  y[2] = ade_dep(ade_log1p(ade_square(ade_sub(u, a[2]))));
}

/* f: R^3 -> R for the gradient. */
static void program_b(const double *x, double *y) {
  ade_double a = ade_indep(x[0]), b = ade_indep(x[1]), c = ade_indep(x[2]);
  *y = ade_dep(ade_add(ade_mul(ade_mul(a, b), c), ade_hypot(a, ade_exp(c))));
}

static int record(ade_tape **t, int capture, int level, uint32_t chunk, void (*f)(const double *, double *),
                  const double *x, double *y) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.capture = capture;
  o.level = level;
  o.chunk_ops = chunk;
  int st = ade_tape_create(t, &o);
  if (!st) st = ade_trace_on(*t);
  f(x, y); /* plain values without a tape */
  return st ? st : ade_trace_off();
}

/* Sweeps over tape A (n = 4, m = 3) and B (n = 3, m = 1). */
static void sweeps(run *r, ade_tape *t, ade_tape *b) {
  double y[3], yd[9], xb[8], J[12], Xd[12], Yb[6], g[3], f;
  for (int i = 0; i < 12; i++) Xd[i] = 0.25 * (i + 1) - 1.3;
  for (int i = 0; i < 6; i++) Yb[i] = 0.5 * i - 0.7;
  memset(y, 0, sizeof y);
  USE(r, ade_replay(t, X1, y), fnv(FNV0, y, sizeof y));
  USE(r, ade_tangent(t, NULL, Xd, y, yd), fnv(fnv(FNV0, y, sizeof y), yd, 3 * sizeof *yd));
  USE(r, ade_tangent_vec(t, 3, X1, Xd, y, yd), fnv(fnv(FNV0, y, sizeof y), yd, sizeof yd));
  USE(r, ade_adjoint(t, NULL, Yb, xb), fnv(FNV0, xb, 4 * sizeof *xb));
  USE(r, ade_adjoint_vec(t, 2, X1, Yb, xb), fnv(FNV0, xb, sizeof xb));
  for (int pass = 0; pass < 2; pass++) { /* the second time from kept chunks, then in bounded memory */
    USE(r, ade_jacobian_dense(t, ADE_FORWARD, NULL, J), fnv(FNV0, J, sizeof J));
    USE(r, ade_jacobian_dense(t, ADE_REVERSE, X1, J), fnv(FNV0, J, sizeof J));
    USE(r, ade_jacobian_dense(t, ADE_REVERSE, NULL, J), fnv(FNV0, J, sizeof J));
  }
  ade_tape_set_memory_limit(t, 0);
  USE(r, ade_jacobian_dense(t, ADE_REVERSE, X1, J), fnv(FNV0, J, sizeof J));
  USE(r, ade_adjoint_vec(t, 2, X1, Yb, xb), fnv(FNV0, xb, sizeof xb));
  ade_tape_set_memory_limit(t, (size_t)256 << 20);
  if (!b) return;
  NOTE(r, ade_gradient(b, NULL, &f, g), fnv(fnv(FNV0, &f, sizeof f), g, sizeof g));
  NOTE(r, ade_gradient(b, X1, &f, g), fnv(fnv(FNV0, &f, sizeof f), g, sizeof g));
}

/* What any change to a graph changes (labels: the Jacobian at the end). */
static uint64_t fingerprint(const ade_cgraph *g) {
  uint64_t c[10] = {g->fma, g->fill, g->absorbed, g->merged, g->nv, g->nalive, g->nedges,
                    (uint64_t)g->next_edge_id, (uint64_t)g->next_vertex_id, g->hused};
  return fnv(FNV0, c, sizeof c);
}

/* Apply s to w step by step: a step that fails leaves w as it was. */
static void stepwise(run *r, ade_cgraph *w, const ade_elim_seq *s) {
  int st = ADE_OK;
  for (size_t i = 0; i < ade_seq_length(s) && !st; i++) {
    const ade_elim_step *x = ade_seq_step(s, i);
    uint64_t before = fingerprint(w);
    for (int attempt = 0; attempt < 2; attempt++) {
      switch (ade_seq_kind(s)) {
      case ADE_SEQ_VERTEX: st = ade_elim_vertex(w, x->a, NULL); break;
      case ADE_SEQ_EDGE: st = ade_elim_edge(w, x->a, x->b, x->dir, NULL); break;
      default: st = ade_elim_face(w, x->a, x->b, NULL); break;
      }
      if (!st) break;
      ck_assert_msg(st == ADE_ENOMEM, "k=%ld step %zu: %s", r->k, i, ade_errmsg());
      ck_assert_msg(fingerprint(w) == before, "k=%ld: failed step %zu changed the graph", r->k, i);
      ck_assert_int_eq(ade_cgraph_check(w), ADE_OK);
    }
  }
  ade_sparse *J = NULL;
  if (!st) st = ade_cgraph_jacobian(w, &J);
  NOTE(r, st, st ? 0 : hash_sparse(J));
  ade_sparse_free(J);
}

static const int orders[3] = {ADE_ORDER_VERTEX_MARKOWITZ, ADE_ORDER_EDGE_MARKOWITZ, ADE_ORDER_FACE_GREEDY};

static uint64_t hash_seq(const ade_elim_seq *s) {
  uint64_t h = fnv(FNV0, &(uint64_t){ade_seq_cost(s)}, 8);
  for (size_t i = 0; i < ade_seq_length(s); i++) {
    const ade_elim_step *x = ade_seq_step(s, i);
    long v[3] = {x->a, x->b, x->dir}; /* not the struct: its padding */
    h = fnv(h, v, sizeof v);
  }
  return h;
}

/* The c-graph and the Jacobian by each kind of elimination. */
static void jacobians(run *r, ade_tape *t, ade_tape *b) {
  (void)b;
  ade_cgraph *g = NULL;
  int st = ade_cgraph_from_tape(&g, t, NULL);
  USE(r, st, st ? 0 : hash_graph(g));
  ade_cgraph_free(g);
  for (int o = 0; o < 3; o++) {
    ade_sparse *J = NULL;
    int js = ade_jacobian(t, orders[o], NULL, &J, NULL);
    USE(r, js, js ? 0 : hash_sparse(J));
    ade_sparse_free(J);
  }
}

/* Orderings, their sequences on file, and single elimination steps. */
static void sequences(run *r, ade_tape *t, ade_tape *b) {
  (void)b;
  ade_cgraph *g = NULL;
  int st = USE(r, ade_cgraph_from_tape(&g, t, NULL), 0);
  for (int o = 0; o < 3 && !st; o++) {
    ade_elim_seq *s = NULL, *l = NULL;
    ade_cgraph *w = NULL;
    r->ncall = r->base + 1 + 5 * o;
    int os = ade_elim_order(g, orders[o], &s);
    if (!NOTE(r, os, os ? 0 : hash_seq(s)) && !NOTE(r, ade_seq_save(s, r->seqpath), 0)) {
      int ls = ade_seq_load(&l, r->seqpath);
      NOTE(r, ls, ls ? 0 : hash_seq(l) ^ hash_seq(s));
    }
    r->ncall = r->base + 4 + 5 * o;
    if (!os && !NOTE(r, o == 2 ? ade_cgraph_dual(&w, g) : ade_cgraph_copy(&w, g), 0)) stepwise(r, w, s);
    ade_cgraph_free(w);
    ade_seq_free(s);
    ade_seq_free(l);
  }
  ade_cgraph_free(g);
}

/* Optimizers with small limits. */
static void optimizers(run *r, ade_tape *t, ade_tape *b) {
  static const int opt[4][2] = {{ADE_OPT_BNB, ADE_SEQ_VERTEX}, {ADE_OPT_HIERARCHY, ADE_SEQ_EDGE},
                                {ADE_OPT_ANNEAL, ADE_SEQ_VERTEX}, {ADE_OPT_DP_BFFT, ADE_SEQ_EDGE}};
  (void)b;
  ade_cgraph *g = NULL;
  int st = USE(r, ade_cgraph_from_tape(&g, t, NULL), 0);
  for (int i = 0; i < 4 && !st; i++) {
    ade_opt_limits l;
    ade_opt_limits_init(&l);
    l.node_limit = 10;
    l.iterations = 30;
    ade_elim_seq *s = NULL;
    int os = ade_optimize(g, opt[i][1], opt[i][0], &l, &s, NULL);
    NOTE(r, os, os ? 0 : hash_seq(s));
    ade_seq_free(s);
  }
  ade_cgraph_free(g);
}

/* A compiled plan at a new point, CPR forward and reverse. */
static void plans(run *r, ade_tape *t, ade_tape *b) {
  (void)b;
  ade_elim_plan *p = NULL;
  ade_sparse *J = NULL;
  if (!USE(r, ade_elim_plan_create(&p, t, ADE_ORDER_EDGE_MARKOWITZ, NULL, NULL), 0) &&
      !NOTE(r, ade_elim_plan_pattern(p, &J), 0)) {
    int st = ade_elim_plan_jacobian(p, t, X1, J);
    USE(r, st, st < 0 ? 0 : hash_sparse(J));
  }
  ade_sparse_free(J);
  ade_elim_plan_free(p);
  r->ncall = r->base + 3;
  for (int mode = 0; mode < 2; mode++) {
    J = NULL;
    int st = ade_jacobian_cpr(t, mode, mode ? NULL : X1, &J, NULL);
    USE(r, st, st < 0 ? 0 : hash_sparse(J));
    ade_sparse_free(J);
  }
}

/* Every Hessian method at the recorded point and at a new one. */
static void hessians(run *r, ade_tape *t, ade_tape *b) {
  (void)b;
  ade_sparse *H = NULL;
  for (int m = 0; m < ADE_HESS_NMETHODS; m++)
    for (int at = 0; at < 2; at++) {
      double grad[4];
      ade_hess_options o;
      ade_hess_options_init(&o);
      o.x = at ? X1 : NULL;
      o.w = W;
      o.grad = grad;
      if (at && m == ADE_HESS_EDGE_PUSH) ade_tape_set_memory_limit(t, 0); /* at x without a value array */
      int st = ade_hessian(t, m, &o, &H, NULL);
      ade_tape_set_memory_limit(t, (size_t)256 << 20);
      USE(r, st, st < 0 ? 0 : fnv(hash_sparse(H), grad, sizeof grad));
      ade_sparse_free(H);
    }
}

/* Save, open, load, bytes, from_bytes: the bytes survive each. */
static void files(run *r, ade_tape *t, ade_tape *b) {
  (void)b;
  const void *bytes = NULL;
  size_t size = 0;
  ade_tape *u[3] = {NULL, NULL, NULL};
  double y[3];
  int st = ade_tape_bytes(t, &bytes, &size);
  if (r->tape_failed) { /* refused without a footer; else a readable, incomplete tape */
    ck_assert_msg(st == ADE_OK || st == ADE_ESTATE, "k=%ld: bytes of a failed recording: %s", r->k, ade_errmsg());
    int fs = st ? ADE_OK : ade_tape_from_bytes(&u[0], bytes, size);
    ck_assert_msg(fs == ADE_OK || fs == ADE_ENOMEM, "k=%ld: bytes of a failed recording: %s", r->k, ade_errmsg());
    ck_assert(!u[0] || ade_replay(u[0], X1, y) == ADE_ESTATE);
    ck_assert(ade_tape_save(t, r->path) == (st ? ADE_ESTATE : ADE_OK) || !st);
    ade_tape_free(u[0]);
    return;
  }
  NOTE(r, st, st ? 0 : fnv(FNV0, bytes, size));
  if (!NOTE(r, ade_tape_save(t, r->path), 0)) {
    if (!NOTE(r, ade_tape_open(&u[0], r->path), 0)) {
      int rs = ade_replay(u[0], X1, y);
      NOTE(r, rs, rs ? 0 : fnv(FNV0, y, sizeof y));
    }
    r->ncall = r->base + 4;
    if (!NOTE(r, ade_tape_load(&u[1], r->path), 0)) {
      const void *b2 = NULL;
      size_t s2 = 0;
      int bs = ade_tape_bytes(u[1], &b2, &s2);
      NOTE(r, bs, bs ? 0 : fnv(FNV0, b2, s2));
    }
  }
  r->ncall = r->base + 6;
  if (!st && !NOTE(r, ade_tape_from_bytes(&u[2], bytes, size), 0)) {
    ade_stats s;
    int ss = ade_tape_stats(u[2], &s);
    NOTE(r, ss, ss ? 0 : fnv(FNV0, &s.op_count, sizeof s.op_count));
  }
  for (int i = 0; i < 3; i++) ade_tape_free(u[i]);
}

typedef void stage_fn(run *, ade_tape *, ade_tape *);
static stage_fn *const stages[] = {sweeps, jacobians, sequences, optimizers, plans, hessians, files};
#define NSTAGES 7

/* One run: record tapes A and B, then the stages. stage -1: the hook is
 * armed while recording, then the stages run; stage s: the hook is armed
 * for stage s only, then the sweeps check that the tape still serves the
 * right results. ref: armed all along (counting). */
static __attribute__((noipa)) void whole_run(run *r, hook *h, int capture, int level, int stage) {
  ade_tape *t = NULL, *b = NULL;
  double y[3], yb;
  ade_set_allocator(hook_fn, h);
  h->armed = stage < 0;
  int st = record(&t, capture, level, 8, program_a, X0, y);
  /* the program's values do not depend on the recording */
  NOTE(r, ADE_OK, fnv(FNV0, y, sizeof y));
  if (st) {
    ck_assert_msg(st == ADE_ENOMEM, "k=%ld: recording: %s", r->k, ade_errmsg());
    r->failed = 1;
    r->tape_failed = t != NULL;
  }
  if (record(&b, 0, level, 4, program_b, X0, &yb)) b = (ade_tape_free(b), NULL), r->failed = 1;
  if (t) {
    ade_stats s;
    if (!ade_tape_stats(t, &s)) ck_assert_int_eq(s.complete, !r->tape_failed);
    for (int i = 0; i < NSTAGES; i++) {
      if (stage >= 0 && i != stage) continue;
      h->armed = !r->ref || i == stage;
      r->ncall = r->base = 4 + 16 * i;
      stages[i](r, t, b);
    }
    if (stage >= 0) { /* the failures left nothing behind */
      h->armed = 0;
      r->strict = !r->tape_failed;
      r->ncall = r->base = 4;
      sweeps(r, t, b);
    }
  }
  ade_tape_free(t);
  ade_tape_free(b);
  ade_set_allocator(NULL, NULL);
  ck_assert_msg(h->live == 0, "k=%ld: %ld blocks leaked", h->k, h->live);
}

/* Run i of a sweep of stage: 0 without failures (into ref), then k =
 * start, start + stride, ...; returns whether allocations failed. One
 * call site for whole_run (noipa, arguments through volatiles), so that
 * the regions' captured call stacks are the same in every run. */
static __attribute__((noipa)) int one_run(long i, run *ref, hook *count, int capture, int level, int stage,
                                          int all, long start, long stride) {
  static run r;
  long k = i ? start + (i - 1) * stride : -1;
  hook h = {k, 0, 0, 0, all, 0};
  run *volatile x = i ? &r : ref;
  hook *volatile hp = i ? &h : count;
  /* tmpfs if there is one: thousands of small files are rewritten */
  const char *dir = access("/dev/shm", W_OK) ? "." : "/dev/shm";
  memset(x, 0, sizeof *x);
  snprintf(x->path, sizeof x->path, "%s/check_oom-%d.adt", dir, (int)getpid());
  snprintf(x->seqpath, sizeof x->seqpath, "%s/check_oom-%d.seq", dir, (int)getpid());
  x->ref = i ? ref : NULL;
  x->k = k;
  whole_run(x, hp, capture, level, i ? stage : -1);
  return hp->failed != 0;
}

/* Fail allocation k of the stage (-1: of the recording), and every later
 * one if all, for k = start, start + stride, ... until a run sees no failure. */
static void sweep_k(int capture, int level, int stage, int all, long start, long stride) {
  static run ref;
  hook count = {-1, 0, 0, 0, 0, 0};
  long runs = 0;
  for (long i = 0; one_run(i, &ref, &count, capture, level, stage, all, start, stride) || i == 0; i++) runs = i;
  ck_assert_int_ge(runs, 1);
  unlink(ref.path);
  unlink(ref.seqpath);
}

/* Every k of every stage, failing one allocation (the next ones succeed:
 * errors must stick or leave nothing behind). Call sites are captured
 * where they matter (recording, files): capturing reads /proc/self/maps. */
START_TEST(every_k) { sweep_k(_i == 0 || _i == NSTAGES, 1, _i - 1, 0, 0, 1); }
END_TEST
/* Every third k, failing all allocations from k on, raw chunks, no capture. */
START_TEST(from_k_on) { sweep_k(0, 0, _i - 1, 1, _i % 3, 3); }
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("oom");
  TCase *tc = tcase_create("sweep");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, every_k, 0, NSTAGES + 1);
  tcase_add_loop_test(tc, from_k_on, 0, NSTAGES + 1);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
