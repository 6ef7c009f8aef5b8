/* check_elemental.c: vector elementals: registration, recording, every sweep and Jacobian method against the same program in scalar operations and finite differences. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "eval_internal.h"
#include "randprog.h"

/* ------------------------------------------------------- the elementals */

/* Callback failures on demand: the status the named callback returns. */
typedef struct eud {
  double A[8]; /* E_LIN's matrix (2 x 3) */
  int fail_primal, fail_tangent, fail_adjoint, fail_jacobian;
  _Atomic long tangents, adjoints, jacobians; /* calls (sweeps run in threads too) */
} eud;

enum { E_LIN, E_SMOOTH, E_WIDE, E_TALL, NE };
static const int EN[NE] = {3, 3, 4, 1}, EM[NE] = {2, 3, 1, 4};
static const char *ENAME[NE] = {"test.lin", "test.smooth", "test.wide", "test.tall"};
static eud U[NE];
static ade_elemental *E[NE];

/* E_LIN: y = A x (2 x 3), with an explicit Jacobian. */
static int lin_f(void *ud, const double *x, double *y) {
  eud *u = ud;
  if (u->fail_primal) return u->fail_primal;
  for (int i = 0; i < 2; i++) y[i] = u->A[3 * i] * x[0] + u->A[3 * i + 1] * x[1] + u->A[3 * i + 2] * x[2];
  return 0;
}
static int lin_t(void *ud, const double *x, const double *xd, double *yd) {
  eud *u = ud;
  u->tangents++;
  (void)x;
  if (u->fail_tangent) return u->fail_tangent;
  for (int i = 0; i < 2; i++) yd[i] = u->A[3 * i] * xd[0] + u->A[3 * i + 1] * xd[1] + u->A[3 * i + 2] * xd[2];
  return 0;
}
static int lin_a(void *ud, const double *x, const double *yb, double *xb) {
  eud *u = ud;
  (void)x;
  u->adjoints++;
  if (u->fail_adjoint) return u->fail_adjoint;
  for (int j = 0; j < 3; j++) xb[j] = u->A[j] * yb[0] + u->A[3 + j] * yb[1];
  return 0;
}
static int lin_j(void *ud, const double *x, double *J) {
  eud *u = ud;
  (void)x;
  u->jacobians++;
  if (u->fail_jacobian) return u->fail_jacobian;
  memcpy(J, u->A, 6 * sizeof *J);
  return 0;
}

/* E_SMOOTH: y0 = sin(x0) x1, y1 = exp(-x2^2/2) + x0 x2, y2 = tanh(x0 + x1 - x2). */
static void smooth_jac(const double *x, double *J) {
  double e = exp(-0.5 * x[2] * x[2]), th = tanh(x[0] + x[1] - x[2]), s = 1 - th * th;
  const double j[9] = {cos(x[0]) * x[1], sin(x[0]), 0, x[2], 0, -x[2] * e + x[0], s, s, -s};
  memcpy(J, j, sizeof j);
}
static int smooth_f(void *ud, const double *x, double *y) {
  eud *u = ud;
  if (u->fail_primal) return u->fail_primal;
  y[0] = sin(x[0]) * x[1];
  y[1] = exp(-0.5 * x[2] * x[2]) + x[0] * x[2];
  y[2] = tanh(x[0] + x[1] - x[2]);
  return 0;
}
static int smooth_t(void *ud, const double *x, const double *xd, double *yd) {
  eud *u = ud;
  double J[9];
  u->tangents++;
  if (u->fail_tangent) return u->fail_tangent;
  smooth_jac(x, J);
  for (int i = 0; i < 3; i++) yd[i] = J[3 * i] * xd[0] + J[3 * i + 1] * xd[1] + J[3 * i + 2] * xd[2];
  return 0;
}
static int smooth_a(void *ud, const double *x, const double *yb, double *xb) {
  eud *u = ud;
  double J[9];
  u->adjoints++;
  if (u->fail_adjoint) return u->fail_adjoint;
  smooth_jac(x, J);
  for (int j = 0; j < 3; j++) xb[j] = J[j] * yb[0] + J[3 + j] * yb[1] + J[6 + j] * yb[2];
  return 0;
}

/* E_WIDE: y = x0 x1 + sin(x2) x3 (one adjoint is its Jacobian). */
static int wide_f(void *ud, const double *x, double *y) {
  eud *u = ud;
  if (u->fail_primal) return u->fail_primal;
  y[0] = x[0] * x[1] + sin(x[2]) * x[3];
  return 0;
}
static int wide_t(void *ud, const double *x, const double *xd, double *yd) {
  eud *u = ud;
  u->tangents++;
  if (u->fail_tangent) return u->fail_tangent;
  yd[0] = x[1] * xd[0] + x[0] * xd[1] + cos(x[2]) * x[3] * xd[2] + sin(x[2]) * xd[3];
  return 0;
}
static int wide_a(void *ud, const double *x, const double *yb, double *xb) {
  eud *u = ud;
  u->adjoints++;
  if (u->fail_adjoint) return u->fail_adjoint;
  xb[0] = x[1] * yb[0];
  xb[1] = x[0] * yb[0];
  xb[2] = cos(x[2]) * x[3] * yb[0];
  xb[3] = sin(x[2]) * yb[0];
  return 0;
}

/* E_TALL: y_k = exp(0.3 (k + 1) x0) / (k + 1) (one tangent is its Jacobian). */
static int tall_f(void *ud, const double *x, double *y) {
  eud *u = ud;
  if (u->fail_primal) return u->fail_primal;
  for (int k = 0; k < 4; k++) y[k] = exp(0.3 * (k + 1) * x[0]) / (k + 1);
  return 0;
}
static int tall_t(void *ud, const double *x, const double *xd, double *yd) {
  eud *u = ud;
  u->tangents++;
  if (u->fail_tangent) return u->fail_tangent;
  for (int k = 0; k < 4; k++) yd[k] = 0.3 * exp(0.3 * (k + 1) * x[0]) * xd[0];
  return 0;
}
static int tall_a(void *ud, const double *x, const double *yb, double *xb) {
  eud *u = ud;
  u->adjoints++;
  if (u->fail_adjoint) return u->fail_adjoint;
  xb[0] = 0;
  for (int k = 0; k < 4; k++) xb[0] += 0.3 * exp(0.3 * (k + 1) * x[0]) * yb[k];
  return 0;
}

static ade_elemental_def edef(int k) {
  static const ade_elem_primal_fn P[NE] = {lin_f, smooth_f, wide_f, tall_f};
  static const ade_elem_tangent_fn T[NE] = {lin_t, smooth_t, wide_t, tall_t};
  static const ade_elem_adjoint_fn A[NE] = {lin_a, smooth_a, wide_a, tall_a};
  static const uint64_t TC[NE] = {6, 0, 4, 4}, AC[NE] = {6, 0, 4, 4};
  ade_elemental_def d = {ENAME[k], (size_t)EN[k], (size_t)EM[k], P[k], T[k], A[k], k == E_LIN ? lin_j : NULL,
                         &U[k], TC[k], AC[k], NULL};
  return d;
}

static void register_all(void) {
  static const double A[6] = {0.7, -1.3, 0.45, 2.1, 0.35, -0.8};
  memset(U, 0, sizeof U);
  memcpy(U[E_LIN].A, A, sizeof A);
  for (int k = 0; k < NE; k++) {
    ade_elemental_def d = edef(k);
    ck_assert_msg(ade_elemental_register(&d, &E[k]) == ADE_OK, "%s", ade_errmsg());
  }
}

/* The same functions in scalar operations (the oracle's recording). */
static void scalar_call(int k, const ade_double *x, ade_double *y) {
  switch (k) {
  case E_LIN:
    for (int i = 0; i < 2; i++)
      y[i] = ade_add(ade_add(ade_mul(ade_passive(U[E_LIN].A[3 * i]), x[0]), ade_mul(ade_passive(U[E_LIN].A[3 * i + 1]), x[1])),
                     ade_mul(ade_passive(U[E_LIN].A[3 * i + 2]), x[2]));
    break;
  case E_SMOOTH:
    y[0] = ade_mul(ade_sin(x[0]), x[1]);
    y[1] = ade_add(ade_exp(ade_mul(ade_passive(-0.5), ade_square(x[2]))), ade_mul(x[0], x[2]));
    y[2] = ade_tanh(ade_sub(ade_add(x[0], x[1]), x[2]));
    break;
  case E_WIDE: y[0] = ade_add(ade_mul(x[0], x[1]), ade_mul(ade_sin(x[2]), x[3])); break;
  default:
    for (int j = 0; j < 4; j++) y[j] = ade_div(ade_exp(ade_mul(ade_passive(0.3 * (j + 1)), x[0])), ade_passive(j + 1.0));
  }
}

/* ------------------------------------------- random programs with calls */

typedef struct estep {
  int call;      /* -1: a scalar step (randprog's), else the elemental */
  rp_step s;
  int in[4];     /* the call's inputs: value indices, -1 = the constant 0.7 */
} estep;

typedef struct eprog {
  int n, m, nsteps, nval;
  estep *st;
  int *out;
} eprog;

static eprog ep_make(uint64_t seed, int n, int m, int nsteps) {
  eprog p = {n, m, nsteps, n, calloc((size_t)nsteps, sizeof(estep)), calloc((size_t)m, sizeof(int))};
  uint64_t s = seed;
  for (int i = 0; i < nsteps; i++) {
    estep *e = &p.st[i];
    int avail = p.nval;
    e->call = ade_test_rand(&s) % 3 == 0 ? (int)(ade_test_rand(&s) % NE) : -1;
    e->s.kind = (int)(ade_test_rand(&s) % RP_KINDS);
    e->s.a = avail - 1 - (int)(ade_test_rand(&s) % (uint64_t)(avail < 6 ? avail : 6));
    e->s.b = (int)(ade_test_rand(&s) % (uint64_t)avail);
    e->s.c = (int)(ade_test_rand(&s) % (uint64_t)avail);
    e->s.k = ade_test_uniform(&s, 0.3, 1.7);
    for (int j = 0; j < 4; j++) /* recent values, now and then a constant or a repeat */
      e->in[j] = ade_test_rand(&s) % 9 == 0 ? -1 : avail - 1 - (int)(ade_test_rand(&s) % (uint64_t)(avail < 5 ? avail : 5));
    p.nval += e->call < 0 ? 1 : EM[e->call];
  }
  for (int j = 0; j < m; j++) p.out[j] = p.nval - 1 - (int)(ade_test_rand(&s) % (uint64_t)(p.nval - n < 4 ? p.nval - n : 4));
  return p;
}

static void ep_free(eprog *p) {
  free(p->st);
  free(p->out);
}

/* mode 0: plain (scalar operations on passive values), 1: recording with
 * elementals, 2: recording in scalar operations. */
static void ep_eval(const eprog *p, const double *x, double *y, int mode) {
  ade_double *v = malloc(sizeof(ade_double) * (size_t)p->nval), in[4];
  int at = p->n;
  for (int i = 0; i < p->n; i++) v[i] = mode ? ade_indep(x[i]) : ade_passive(x[i]);
  for (int i = 0; i < p->nsteps; i++) {
    const estep *e = &p->st[i];
    if (e->call < 0) {
      /* the rp_step's operand indices refer to the values so far */
      v[at++] = rp_step_eval(&e->s, v);
      continue;
    }
    for (int j = 0; j < EN[e->call]; j++) in[j] = e->in[j] < 0 ? ade_passive(0.7) : v[e->in[j]];
    if (mode == 1) ck_assert_msg(ade_elemental_call(E[e->call], in, v + at) == ADE_OK, "%s", ade_errmsg());
    else scalar_call(e->call, in, v + at);
    at += EM[e->call];
  }
  for (int j = 0; j < p->m; j++) y[j] = mode ? ade_dep(v[p->out[j]]) : ade_val(v[p->out[j]]);
  free(v);
}

static ade_tape *ep_record(const eprog *p, const double *x, int mode, uint32_t chunk) {
  ade_tape_options o;
  ade_tape *t = NULL;
  double *y = malloc(sizeof(double) * (size_t)p->m);
  ade_tape_options_init(&o);
  if (chunk) o.chunk_ops = chunk;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ep_eval(p, x, y, mode);
  ck_assert_msg(ade_trace_off() == ADE_OK, "trace_off: %s", ade_errmsg());
  free(y);
  return t;
}

/* ------------------------------------------------------------- oracles */

static double *dense_fwd(ade_tape *t, const double *x) {
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  double *J = calloc(n * m + 1, sizeof *J);
  ck_assert_msg(ade_jacobian_dense(t, ADE_FORWARD, x, J) >= ADE_OK, "%s", ade_errmsg());
  return J;
}

static int cur_prog; /* for failure messages */

static void close_all(const double *a, const double *b, size_t len, double tol, const char *what) {
  for (size_t i = 0; i < len; i++)
    ck_assert_msg(fabs(a[i] - b[i]) <= tol * fmax(1.0, fabs(b[i])), "program %d: %s[%zu]: %.17g vs %.17g", cur_prog,
                  what, i, a[i], b[i]);
}

static void sparse_close(const ade_sparse *J, const double *D, double tol, const char *what) {
  double *A = calloc(J->m * J->n + 1, sizeof *A);
  ck_assert_int_eq(ade_sparse_to_dense(J, A), ADE_OK);
  close_all(A, D, J->m * J->n, tol, what);
  free(A);
}

/* Central differences of the plain program (with Richardson), against J. */
static void check_fd(const eprog *p, const double *x, const double *J) {
  int n = p->n, m = p->m;
  double *xp = malloc(sizeof(double) * (size_t)n), *y1 = malloc(sizeof(double) * (size_t)m),
         *y2 = malloc(sizeof(double) * (size_t)m), *d[2];
  d[0] = malloc(sizeof(double) * (size_t)m);
  d[1] = malloc(sizeof(double) * (size_t)m);
  for (int j = 0; j < n; j++) {
    double h = 2 * cbrt(DBL_EPSILON) * fmax(1.0, fabs(x[j]));
    for (int r = 0; r < 2; r++, h /= 2) {
      memcpy(xp, x, sizeof(double) * (size_t)n);
      xp[j] = x[j] + h;
      ep_eval(p, xp, y1, 0);
      xp[j] = x[j] - h;
      ep_eval(p, xp, y2, 0);
      for (int i = 0; i < m; i++) d[r][i] = (y1[i] - y2[i]) / (2 * h);
    }
    for (int i = 0; i < m; i++) {
      double fd = (4 * d[1][i] - d[0][i]) / 3, err = fabs(d[1][i] - d[0][i]) + 1e-9 * fmax(1.0, fabs(fd));
      ck_assert_msg(fabs(J[i * n + j] - fd) <= 10 * err + 1e-7, "J[%d,%d] = %.17g, finite differences %.17g", i, j,
                    J[i * n + j], fd);
    }
  }
  free(xp);
  free(y1);
  free(y2);
  free(d[0]);
  free(d[1]);
}

/* Every first-order sweep of te (elementals) against ts (scalars) at x
 * (NULL: the recorded point). */
static void check_sweeps(ade_tape *te, ade_tape *ts, const double *x, size_t n, size_t m, uint64_t *s) {
  const double tol = 1e-11;
  size_t p = 3;
  double *ye = calloc(m, sizeof(double)), *ys = calloc(m, sizeof(double));
  double *Xd = calloc(n * p, sizeof(double)), *Yde = calloc(m * p, sizeof(double)), *Yds = calloc(m * p, sizeof(double));
  double *Yb = calloc(m * p, sizeof(double)), *Xbe = calloc(n * p, sizeof(double)), *Xbs = calloc(n * p, sizeof(double));
  for (size_t i = 0; i < n * p; i++) Xd[i] = ade_test_uniform(s, -1, 1);
  for (size_t i = 0; i < m * p; i++) Yb[i] = ade_test_uniform(s, -1, 1);
  if (x) {
    ck_assert_msg(ade_replay(te, x, ye) >= ADE_OK, "replay: %s", ade_errmsg());
    ck_assert_int_ge(ade_replay(ts, x, ys), ADE_OK);
    close_all(ye, ys, m, tol, "replay");
  }
  ck_assert_msg(ade_tangent(te, x, Xd, ye, Yde) >= ADE_OK, "tangent: %s", ade_errmsg());
  ck_assert_int_ge(ade_tangent(ts, x, Xd, ys, Yds), ADE_OK);
  close_all(ye, ys, m, tol, "tangent y");
  close_all(Yde, Yds, m, tol, "tangent");
  ck_assert_msg(ade_tangent_vec(te, p, x, Xd, NULL, Yde) >= ADE_OK, "tangent_vec: %s", ade_errmsg());
  ck_assert_int_ge(ade_tangent_vec(ts, p, x, Xd, NULL, Yds), ADE_OK);
  close_all(Yde, Yds, m * p, tol, "tangent_vec");
  ck_assert_msg(ade_adjoint(te, x, Yb, Xbe) >= ADE_OK, "adjoint: %s", ade_errmsg());
  ck_assert_int_ge(ade_adjoint(ts, x, Yb, Xbs), ADE_OK);
  close_all(Xbe, Xbs, n, tol, "adjoint");
  ck_assert_msg(ade_adjoint_vec(te, p, x, Yb, Xbe) >= ADE_OK, "adjoint_vec: %s", ade_errmsg());
  ck_assert_int_ge(ade_adjoint_vec(ts, p, x, Yb, Xbs), ADE_OK);
  close_all(Xbe, Xbs, n * p, tol, "adjoint_vec");
  double *Je = calloc(n * m + 1, sizeof(double)), *Js = dense_fwd(ts, x);
  ck_assert_msg(ade_jacobian_dense(te, ADE_FORWARD, x, Je) >= ADE_OK, "%s", ade_errmsg());
  close_all(Je, Js, n * m, tol, "dense forward");
  ck_assert_msg(ade_jacobian_dense(te, ADE_REVERSE, x, Je) >= ADE_OK, "%s", ade_errmsg());
  close_all(Je, Js, n * m, tol, "dense reverse");
  for (int mode = ADE_FORWARD; x && mode <= ADE_REVERSE; mode++) { /* CPR at the new point */
    ade_sparse *J = NULL;
    ck_assert_msg(ade_jacobian_cpr(te, mode, x, &J, NULL) >= ADE_OK, "cpr: %s", ade_errmsg());
    sparse_close(J, Js, tol, "cpr at x");
    ade_sparse_free(J);
  }
  free(Je);
  free(Js);
  free(ye);
  free(ys);
  free(Xd);
  free(Yde);
  free(Yds);
  free(Yb);
  free(Xbe);
  free(Xbs);
}

/* Every Jacobian method at the recorded point, and a plan of each at x. */
static void check_methods(ade_tape *te, const double *Js, const double *x, const double *Jsx) {
  int methods[ADE_ORDER_COUNT + 3], nm = 0;
  for (int o = 0; o < ADE_ORDER_COUNT; o++) methods[nm++] = o;
  methods[nm++] = ADE_ELIM_AUTO;
  methods[nm++] = ADE_ELIM_CPR_FORWARD;
  methods[nm++] = ADE_ELIM_CPR_REVERSE;
  for (int k = 0; k < nm; k++) {
    ade_sparse *J = NULL;
    ck_assert_msg(ade_jacobian(te, methods[k], NULL, &J, NULL) == ADE_OK, "%s: %s", ade_elim_method_name(methods[k]),
                  ade_errmsg());
    sparse_close(J, Js, 1e-11, ade_elim_method_name(methods[k]));
    ade_sparse_free(J);
    ade_elim_plan *pl = NULL;
    ck_assert_msg(ade_elim_plan_create(&pl, te, methods[k], NULL, NULL) == ADE_OK, "plan %s: %s",
                  ade_elim_method_name(methods[k]), ade_errmsg());
    ck_assert_int_eq(ade_elim_plan_pattern(pl, &J), ADE_OK);
    ck_assert_msg(ade_elim_plan_jacobian(pl, te, x, J) >= ADE_OK, "plan at x: %s", ade_errmsg());
    sparse_close(J, Jsx, 1e-11, "plan at x");
    ade_sparse_free(J);
    ade_elim_plan_free(pl);
  }
}

/* ---------------------------------------------------------------- tests */

/* Random programs with random calls: every sweep and every Jacobian method
 * of the tape with elementals equals the same program recorded in scalar
 * operations (dense forward mode), and finite differences; at the recorded
 * point and at a new one; in small chunks (calls flushed whole, inputs
 * imported) and large. */
START_TEST(test_random_programs) {
  register_all();
  uint64_t s = 0xe1e3e7a1ull + (uint64_t)_i;
  for (int prog = 0; prog < 6; prog++) {
    cur_prog = prog;
    int n = 2 + (int)(ade_test_rand(&s) % 4), m = 1 + (int)(ade_test_rand(&s) % 4);
    eprog p = ep_make(ade_test_rand(&s), n, m, 8 + (int)(ade_test_rand(&s) % 14));
    double *x = malloc(sizeof(double) * (size_t)n), *x2 = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
      x[i] = ade_test_uniform(&s, -1.2, 1.2);
      x2[i] = x[i] + ade_test_uniform(&s, -0.3, 0.3);
    }
    uint32_t chunk = prog % 2 ? 7 : 0;
    ade_tape *te = ep_record(&p, x, 1, chunk), *ts = ep_record(&p, x, 2, chunk);
    ck_assert_int_eq(ade_tape_verify(te), ADE_OK);
    check_sweeps(te, ts, NULL, (size_t)n, (size_t)m, &s);
    check_sweeps(te, ts, x2, (size_t)n, (size_t)m, &s);
    double *Js = dense_fwd(ts, NULL), *Jsx = dense_fwd(ts, x2), *Je = dense_fwd(te, x2);
    check_methods(te, Js, x2, Jsx);
    check_fd(&p, x2, Je);
    if (m == 1) { /* gradient */
      double f, fs, *g = malloc(sizeof(double) * (size_t)n);
      ck_assert_msg(ade_gradient(te, x2, &f, g) >= ADE_OK, "%s", ade_errmsg());
      ck_assert_int_ge(ade_gradient(ts, x2, &fs, g), ADE_OK);
      ade_assert_rel(f, fs, 1e-12);
      ck_assert_msg(ade_gradient(te, x2, &f, g) >= ADE_OK, "%s", ade_errmsg());
      close_all(g, Jsx, (size_t)n, 1e-11, "gradient");
      free(g);
    }
    ade_stats st;
    ck_assert_int_eq(ade_tape_stats(te, &st), ADE_OK);
    ck_assert_uint_eq(ade_tape_resident_bytes(te), 0); /* sweeps stream the chunks */
    /* Partitions read an elemental's outputs and their call inputs. */
    size_t *part = malloc(((size_t)st.records + 1) * sizeof *part), np = 0;
    for (int kind = ADE_PARTS_REPEATS; kind <= ADE_PARTS_AUTO; kind++) {
      ck_assert_msg(ade_tape_parts(te, kind, part, (size_t)st.records + 1, &np) == ADE_OK, "%s", ade_errmsg());
      for (size_t k = 0; k <= st.records; k++) ck_assert(part[k] == ADE_PART_NONE || part[k] < np);
    }
    free(part);
    free(Js);
    free(Jsx);
    free(Je);
    free(x);
    free(x2);
    ade_tape_free(te);
    ade_tape_free(ts);
    ep_free(&p);
  }
}
END_TEST

/* A fixed program: y = lin(x0, x1, smooth(x)...) with every elemental; its
 * records, the stats' count, the internal listing, save/load round trips
 * and the Jacobian after loading. */
static ade_tape *fixed_tape(const double *x, uint32_t chunk) {
  ade_tape_options o;
  ade_tape *t = NULL;
  ade_tape_options_init(&o);
  if (chunk) o.chunk_ops = chunk;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double v[3], a[3], b[2], c[1], d[4], w[4];
  for (int i = 0; i < 3; i++) v[i] = ade_indep(x[i]);
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], v, a), ADE_OK);
  ade_double l_in[3] = {a[0], ade_passive(0.25), a[2]};
  ck_assert_int_eq(ade_elemental_call(E[E_LIN], l_in, b), ADE_OK);
  ade_double w_in[4] = {b[0], b[1], a[1], v[0]};
  ck_assert_int_eq(ade_elemental_call(E[E_WIDE], w_in, c), ADE_OK);
  ck_assert_int_eq(ade_elemental_call(E[E_TALL], c, d), ADE_OK);
  for (int k = 0; k < 4; k++) w[k] = ade_mul(d[k], v[k % 3]);
  for (int k = 0; k < 4; k++) ade_dep(w[k]);
  ck_assert_msg(ade_trace_off() == ADE_OK, "%s", ade_errmsg());
  return t;
}

START_TEST(test_save_load_stats) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62};
  ade_tape *t = fixed_tape(x, _i ? 5 : 0);
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(t, &st), ADE_OK);
  ck_assert_uint_eq(st.op_count[255], 3 + 2 + 1 + 4);
  ck_assert_str_eq(ade_op_name(255), "elemental");
  ade__elemrec *r;
  size_t nr;
  ck_assert_int_eq(ade__tape_elementals(t, &r, &nr), ADE_OK);
  ck_assert_uint_eq(nr, 4);
  ck_assert_str_eq(r[0].name, "test.smooth");
  ck_assert_uint_eq(r[0].out, 4); /* after the three independents */
  ck_assert_uint_eq(r[1].n, 3);
  ck_assert_uint_eq(r[1].in[1], 0); /* the constant */
  ck_assert_uint_eq(r[1].in[0], 4);
  ck_assert_uint_eq(r[2].in[3], 1);
  ck_assert_uint_eq(r[3].m, 4);
  ck_assert_uint_eq(r[1].tangent_cost, 6);
  ck_assert_uint_gt(r[0].tangent_cost, 0); /* measured */
  ck_assert_ptr_eq(r[2].def, E[E_WIDE]);
  ade__elemrecs_free(r);
  const void *bytes;
  size_t size;
  ck_assert_int_eq(ade_tape_bytes(t, &bytes, &size), ADE_OK);
  ade_tape *u = NULL;
  ck_assert_msg(ade_tape_from_bytes(&u, bytes, size) == ADE_OK, "%s", ade_errmsg());
  ck_assert_msg(ade_tape_verify(u) == ADE_OK, "%s", ade_errmsg());
  const void *b2;
  size_t s2;
  ck_assert_int_eq(ade_tape_bytes(u, &b2, &s2), ADE_OK);
  ck_assert_uint_eq(size, s2);
  ck_assert_int_eq(memcmp(bytes, b2, size), 0);
  double J1[12], J2[12];
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, NULL, J1), ADE_OK);
  ck_assert_int_eq(ade_jacobian_dense(u, ADE_FORWARD, NULL, J2), ADE_OK);
  close_all(J2, J1, 12, 1e-13, "after loading");
  /* a file, read chunk by chunk */
  char path[64];
  snprintf(path, sizeof path, "/tmp/check_elemental_%d_%d.adt", (int)getpid(), _i);
  ck_assert_int_eq(ade_tape_save(t, path), ADE_OK);
  ade_tape *f = NULL;
  ck_assert_msg(ade_tape_open(&f, path) == ADE_OK, "%s", ade_errmsg());
  ck_assert_int_eq(ade_tape_verify(f), ADE_OK);
  const double x2[3] = {0.4, -1.1, 0.6};
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, x2, J1), ADE_OK);
  ck_assert_int_eq(ade_jacobian_dense(f, ADE_REVERSE, x2, J2), ADE_OK);
  close_all(J2, J1, 12, 1e-13, "from the file");
  ade_tape_free(f);
  remove(path);
  /* recording twice gives the same bytes */
  ade_tape *t2 = fixed_tape(x, _i ? 5 : 0);
  ck_assert_int_eq(ade_tape_bytes(t2, &b2, &s2), ADE_OK);
  ck_assert_uint_eq(size, s2);
  ck_assert_int_eq(memcmp(bytes, b2, size), 0);
  ade_tape_free(t2);
  ade_tape_free(u);
  ade_tape_free(t);
}
END_TEST

/* The Jacobian of a call without its own: n tangents or m adjoints,
 * whichever the registered costs make cheaper; with one, that callback. */
START_TEST(test_jacobian_choice) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62};
  ade_tape *t = fixed_tape(x, 0);
  double J[12];
  for (int k = 0; k < NE; k++) U[k].tangents = U[k].adjoints = U[k].jacobians = 0;
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, NULL, J), ADE_OK);
  ck_assert_int_eq(U[E_LIN].jacobians, 1);
  ck_assert_int_eq(U[E_LIN].tangents + U[E_LIN].adjoints, 0);
  ck_assert_int_eq(U[E_WIDE].adjoints, 1); /* m = 1 adjoint, not 4 tangents */
  ck_assert_int_eq(U[E_WIDE].tangents, 0);
  ck_assert_int_eq(U[E_TALL].tangents, 1); /* n = 1 tangent, not 4 adjoints */
  ck_assert_int_eq(U[E_TALL].adjoints, 0);
  ck_assert_int_eq(U[E_SMOOTH].tangents + U[E_SMOOTH].adjoints, 3);
  ade_tape_free(t);
}
END_TEST

/* A tape whose elementals this process lacks: stats, verify and the
 * listing work; every sweep and Jacobian path names the missing one. */
START_TEST(test_missing_registration) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62};
  ade_tape *t = fixed_tape(x, 0);
  double J[12], y[4];
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, NULL, J), ADE_OK);
  const void *bytes;
  size_t size;
  ck_assert_int_eq(ade_tape_bytes(t, &bytes, &size), ADE_OK);
  ade_tape *u = NULL;
  ck_assert_int_eq(ade_tape_from_bytes(&u, bytes, size), ADE_OK);
  ck_assert_int_eq(ade_elemental_unregister("test.wide"), ADE_OK);
  ck_assert_int_eq(ade_elemental_unregister("test.wide"), ADE_ENOTFOUND);
  ck_assert_ptr_null(ade_elemental_find("test.wide"));
  ck_assert_int_eq(ade_tape_verify(u), ADE_OK);
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(u, &st), ADE_OK);
  ck_assert_uint_eq(st.op_count[255], 10);
  const double x2[3] = {0.4, -1.1, 0.6};
  double v[12];
  int st1 = ade_replay(u, x2, y);
  ck_assert_int_eq(st1, ADE_ENOTFOUND);
  ck_assert_msg(strstr(ade_errmsg(), "'test.wide' is not registered"), "%s", ade_errmsg());
  ck_assert_int_eq(ade_tangent(u, NULL, x2, y, v), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_adjoint(u, NULL, y, v), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_adjoint(u, x2, y, v), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_jacobian_dense(u, ADE_REVERSE, x2, J), ADE_ENOTFOUND);
  ade_sparse *S = NULL;
  ck_assert_int_eq(ade_jacobian(u, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &S, NULL), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_jacobian(u, ADE_ELIM_AUTO, NULL, &S, NULL), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_jacobian_cpr(u, ADE_FORWARD, NULL, &S, NULL), ADE_ENOTFOUND);
  ade_elim_plan *pl = NULL;
  ck_assert_int_eq(ade_elim_plan_create(&pl, u, ADE_ORDER_VERTEX_FORWARD, NULL, NULL), ADE_ENOTFOUND);
  ck_assert_msg(strstr(ade_errmsg(), "test.wide"), "%s", ade_errmsg());
  /* the listing still names it, without costs */
  ade__elemrec *r;
  size_t nr;
  ck_assert_int_eq(ade__tape_elementals(u, &r, &nr), ADE_OK);
  ck_assert_ptr_null(r[2].def);
  ck_assert_str_eq(r[2].name, "test.wide");
  ade__elemrecs_free(r);
  /* registered again: everything works */
  ade_elemental_def d = edef(E_WIDE);
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_OK);
  double J2[12];
  ck_assert_int_eq(ade_jacobian_dense(u, ADE_FORWARD, NULL, J2), ADE_OK);
  close_all(J2, J, 12, 1e-13, "registered again");
  ade_tape_free(u);
  ade_tape_free(t);
}
END_TEST

/* Second derivatives and generated code: a clear refusal. */
START_TEST(test_hessian_refused) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62};
  ade_tape *t = fixed_tape(x, 0);
  double w[4] = {1, 2, 3, 4};
  ade_hess_options o;
  ade_hess_options_init(&o);
  o.w = w;
  for (int k = 0; ade_hess_method_name(k); k++) {
    ade_sparse *H = NULL;
    ck_assert_int_eq(ade_hessian(t, k, &o, &H, NULL), ADE_EUNSUPPORTED);
    ck_assert_msg(strstr(ade_errmsg(), "elemental 'test.smooth' has no second derivatives"), "%s", ade_errmsg());
    ck_assert_ptr_null(H);
  }
  ade_hess_plan *hp = NULL;
  ck_assert_int_eq(ade_hess_plan_create(&hp, t, ADE_HESS_EDGE_PUSH, NULL), ADE_EUNSUPPORTED);
  ade_elim_plan *pl = NULL;
  ck_assert_int_eq(ade_elim_plan_create(&pl, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), ADE_OK);
  FILE *f = tmpfile();
  ck_assert_int_eq(ade_plan_codegen(pl, t, "jac", f), ADE_EUNSUPPORTED);
  fclose(f);
  ade_elim_plan_free(pl);
  ade_tape_free(t);
}
END_TEST

/* Bad registrations and calls. */
START_TEST(test_bad_arguments) {
  register_all();
  ade_elemental_def d = edef(E_SMOOTH);
  d.name = "test.bad";
  d.primal = NULL;
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  ck_assert_msg(strstr(ade_errmsg(), "primal"), "%s", ade_errmsg());
  d = edef(E_SMOOTH);
  d.name = "test.bad";
  d.adjoint = NULL;
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  d = edef(E_SMOOTH);
  d.name = "";
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  d.name = NULL;
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_elemental_register(NULL, NULL), ADE_EINVAL);
  d = edef(E_SMOOTH);
  d.n = 0;
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  d = edef(E_SMOOTH);
  d.m = 4; /* the name is registered with 3 outputs */
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  ck_assert_msg(strstr(ade_errmsg(), "test.smooth"), "%s", ade_errmsg());
  d = edef(E_SMOOTH);
  d.n = d.m = 5000; /* a 25e6-entry Jacobian */
  d.name = "test.huge";
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_elemental_info(NULL, NULL, NULL, NULL, NULL, NULL), ADE_EINVAL);
  size_t n, m;
  const char *name;
  ck_assert_int_eq(ade_elemental_info(E[E_TALL], &name, &n, &m, NULL, NULL), ADE_OK);
  ck_assert_str_eq(name, "test.tall");
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(m, 4);
  ck_assert_ptr_eq(ade_elemental_find("test.tall"), E[E_TALL]);
  /* passive inputs, no tape: a plain evaluation */
  ade_double x[3] = {{0.3, 0}, {0.5, 0}, {-0.2, 0}}, y[4];
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], x, y), ADE_OK);
  ade_assert_rel(y[0].v, sin(0.3) * 0.5, 1e-15);
  ck_assert_uint_eq(y[0].id, 0);
  ck_assert_int_eq(ade_elemental_call(NULL, x, y), ADE_EINVAL);
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], NULL, y), ADE_EINVAL);
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], x, NULL), ADE_EINVAL);
  /* active inputs, no tape */
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a[3] = {ade_indep(0.3), ade_indep(0.5), ade_indep(-0.2)};
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], x, y), ADE_OK); /* passive inputs: not recorded */
  ck_assert_uint_eq(y[1].id, 0);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], a, y), ADE_ESTATE);
  ade_stats st;
  ck_assert_int_eq(ade_tape_stats(t, &st), ADE_OK);
  ck_assert_uint_eq(st.op_count[255], 0);
  ade_tape_free(t);
  /* a NULL argument while recording fails the tape */
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  a[0] = ade_indep(0.3);
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], a, NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_trace_off(), ADE_EINVAL);
  ade_tape_free(t);
  /* more outputs than a chunk holds */
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 3;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  a[0] = ade_indep(0.3);
  ck_assert_int_eq(ade_elemental_call(E[E_TALL], a, y), ADE_ETOOBIG);
  ck_assert_uint_eq(y[0].id, 0);
  ck_assert_int_eq(ade_trace_off(), ADE_ETOOBIG);
  ade_tape_free(t);
  /* an unregistered handle */
  ck_assert_int_eq(ade_elemental_unregister("test.lin"), ADE_OK);
  ck_assert_int_eq(ade_elemental_call(E[E_LIN], x, y), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_elemental_info(E[E_LIN], NULL, NULL, NULL, NULL, NULL), ADE_ENOTFOUND);
  ck_assert_int_eq(ade_elemental_unregister(NULL), ADE_EINVAL);
}
END_TEST

/* A tape with elemental calls has no bounded-memory path at a new point
 * (their calls need every input's value): a sweep whose values at x exceed
 * the tape's memory limit fails with ADE_ENOMEM, forward and reverse, and
 * works again with the limit raised. */
START_TEST(test_memory_limit) {
  register_all();
  const double x0[3] = {0.3, 0.5, -0.2}, x1[3] = {0.35, 0.45, -0.1};
  ade_tape *t = NULL;
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 1024; /* each chunk's linearization fits the limit below */
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double v[3], a[3];
  for (int i = 0; i < 3; i++) v[i] = ade_indep(x0[i]);
  ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], v, a), ADE_OK);
  ade_double s = a[0];
  for (int k = 0; k < 60000; k++) s = ade_add(ade_mul(s, ade_passive(0.5)), a[k % 3]); /* 120,000 records */
  ade_dep(s);
  ck_assert_msg(ade_trace_off() == ADE_OK, "%s", ade_errmsg());
  double f, g[3], g2[3], y, yd, xd[3] = {1, 0, 0};
  ade_tape_set_memory_limit(t, (size_t)512 << 10); /* below 120,000 doubles */
  ck_assert_int_eq(ade_gradient(t, x1, &f, g), ADE_ENOMEM);
  ck_assert_msg(strstr(ade_errmsg(), "elemental"), "%s", ade_errmsg());
  ck_assert_int_eq(ade_tangent(t, x1, xd, &y, &yd), ADE_ENOMEM);
  ade_tape_set_memory_limit(t, (size_t)64 << 20);
  ck_assert_int_eq(ade_gradient(t, x1, &f, g), ADE_OK);
  ck_assert_int_eq(ade_tangent(t, x1, xd, &y, &yd), ADE_OK);
  ade_assert_rel(yd, g[0], 1e-13);
  ck_assert_int_eq(ade_gradient(t, x1, &f, g2), ADE_OK);
  for (int i = 0; i < 3; i++) ck_assert(g[i] == g2[i]);
  ade_tape_free(t);
}
END_TEST

/* A recording with o->keep leaves no decoded form on a tape with an
 * elemental call (its calls sweep through the chunks' views), also when
 * the call comes chunks after the start: sweeps decode, with the bits of
 * the same tape recorded without it. */
START_TEST(test_keep_dropped) {
  register_all();
  const double x0[3] = {0.3, 0.5, -0.2};
  double g[2][3], f[2];
  for (int keep = 0; keep < 2; keep++) {
    ade_tape *t = NULL;
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.chunk_ops = 64;
    o.keep = keep;
    ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
    ck_assert_int_eq(ade_trace_on(t), ADE_OK);
    ade_double v[3], a[3];
    for (int i = 0; i < 3; i++) v[i] = ade_indep(x0[i]);
    for (int k = 0; k < 300; k++) v[k % 3] = ade_add(ade_mul(v[k % 3], ade_passive(0.5)), ade_sin(v[(k + 1) % 3]));
    ck_assert_int_eq(t->w->keep != NULL, keep); /* kept so far */
    ck_assert_int_eq(ade_elemental_call(E[E_SMOOTH], v, a), ADE_OK);
    ade_double s = ade_add(ade_mul(a[0], a[1]), a[2]);
    for (int k = 0; k < 100; k++) s = ade_add(ade_mul(s, ade_passive(0.5)), a[k % 3]);
    ade_dep(s);
    ck_assert_msg(ade_trace_off() == ADE_OK, "%s", ade_errmsg());
    ck_assert_ptr_null(atomic_load(&t->kept));
    ck_assert_uint_eq(ade_tape_resident_bytes(t), 0);
    ck_assert_int_eq(ade_gradient(t, NULL, &f[keep], g[keep]), ADE_OK);
    ade_tape_free(t);
  }
  ck_assert_mem_eq(g[0], g[1], sizeof g[0]);
  ck_assert(f[0] == f[1]);
}
END_TEST

/* A failing callback's status reaches the caller: negative ADE codes as
 * they are, anything else as ADE_EINVAL; the message names the callback. */
START_TEST(test_failing_callbacks) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62}, x2[3] = {0.4, -1.1, 0.6};
  ade_tape *t = fixed_tape(x, 0);
  double J[12], y[4];
  U[E_SMOOTH].fail_primal = ADE_EIO;
  ck_assert_int_eq(ade_replay(t, x2, y), ADE_EIO);
  ck_assert_msg(strstr(ade_errmsg(), "'test.smooth': the primal callback failed"), "%s", ade_errmsg());
  U[E_SMOOTH].fail_primal = 0;
  U[E_SMOOTH].fail_tangent = 3;
  U[E_SMOOTH].fail_adjoint = 3; /* whichever it takes */
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_FORWARD, x2, J), ADE_EINVAL);
  ck_assert_msg(strstr(ade_errmsg(), "callback failed (status 3)"), "%s", ade_errmsg());
  U[E_SMOOTH].fail_tangent = U[E_SMOOTH].fail_adjoint = 0;
  U[E_LIN].fail_jacobian = ADE_ENOMEM;
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, x2, J), ADE_ENOMEM);
  ade_sparse *S = NULL;
  ck_assert_int_eq(ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &S, NULL), ADE_ENOMEM);
  U[E_LIN].fail_jacobian = 0;
  ck_assert_int_eq(ade_jacobian_dense(t, ADE_REVERSE, x2, J), ADE_OK);
  ade_tape_free(t);
  /* while recording: the call and the tape fail */
  U[E_TALL].fail_primal = -99; /* not an ADE code */
  ck_assert_int_eq(ade_tape_create(&t, NULL), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double a = ade_indep(0.5), b[4];
  ck_assert_int_eq(ade_elemental_call(E[E_TALL], &a, b), ADE_EINVAL);
  ck_assert_int_eq(ade_trace_off(), ADE_EINVAL);
  ade_tape_free(t);
  U[E_TALL].fail_primal = 0;
  /* measuring costs runs the callbacks */
  ade_elemental_def d = edef(E_WIDE);
  d.name = "test.measured";
  d.tangent_cost = 0;
  U[E_WIDE].fail_tangent = ADE_EIO;
  ck_assert_int_eq(ade_elemental_register(&d, NULL), ADE_EIO);
  ck_assert_ptr_null(ade_elemental_find("test.measured"));
  U[E_WIDE].fail_tangent = 0;
}
END_TEST

/* Many names: each found again, earlier handles stay valid. */
START_TEST(test_many_names) {
  register_all();
  char name[32];
  for (int k = 0; k < 40; k++) {
    ade_elemental_def d = edef(E_WIDE);
    snprintf(name, sizeof name, "test.many.%d", k);
    d.name = name;
    ade_elemental *e;
    ck_assert_int_eq(ade_elemental_register(&d, &e), ADE_OK);
    ck_assert_ptr_eq(ade_elemental_find(name), e);
  }
  ck_assert_ptr_eq(ade_elemental_find("test.lin"), E[E_LIN]);
}
END_TEST

/* Threads sharing one tape with elementals: each its own points, the
 * Jacobians of a serial run (the tape lends each thread a clone). */
typedef struct job {
  ade_tape *t;
  double J[8][12];
  int st;
} job;

static void *job_run(void *arg) {
  job *j = arg;
  for (int k = 0; k < 8 && !j->st; k++) {
    const double x[3] = {0.385 + 0.01 * k, -1.17, 0.62 - 0.02 * k};
    j->st = ade_jacobian_dense(j->t, k % 2 ? ADE_REVERSE : ADE_FORWARD, x, j->J[k]);
  }
  return NULL;
}

START_TEST(test_threads) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62};
  ade_tape *t = fixed_tape(x, 0);
  job ref = {t, {{0}}, 0}, jobs[4];
  job_run(&ref);
  ck_assert_int_eq(ref.st, ADE_OK);
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (job){t, {{0}}, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, job_run, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ck_assert_msg(jobs[i].st == ADE_OK, "thread %d: %s", i, ade_errname(jobs[i].st));
    for (int k = 0; k < 8; k++) close_all(jobs[i].J[k], ref.J[k], 12, 0.0, "thread");
  }
  ade_tape_free(t);
}
END_TEST

/* One run of recording and differentiating the fixed program; every
 * status OK or ADE_ENOMEM (consumers of a failed recording: ADE_ESTATE).
 * J gets the plan's Jacobian at x2 when everything succeeded. */
static int oom_run(const double *x, const double *x2, double *J) {
  ade_tape *t = NULL;
  int st = ade_tape_create(&t, NULL), fail = st, rec = st;
  if (!st && !(st = ade_trace_on(t))) {
    ade_double v[3], a[3], b[2], c[1], d[4];
    for (int i = 0; i < 3; i++) v[i] = ade_indep(x[i]);
    int s1 = ade_elemental_call(E[E_SMOOTH], v, a), s2 = ade_elemental_call(E[E_LIN], a, b);
    ade_double w_in[4] = {b[0], b[1], a[1], v[0]};
    int s3 = ade_elemental_call(E[E_WIDE], w_in, c), s4 = ade_elemental_call(E[E_TALL], c, d);
    for (int k = 0; k < 4; k++) ade_dep(ade_mul(d[k], v[k % 3]));
    int sc[4] = {s1, s2, s3, s4};
    for (int k = 0; k < 4; k++) ck_assert_msg(sc[k] == ADE_OK || sc[k] == ADE_ENOMEM, "call: %s", ade_errname(sc[k]));
    st = ade_trace_off();
  }
  ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "recording: %s", ade_errname(st));
  rec = fail = st;
  double D[12];
  ade_sparse *S = NULL;
  ade_elim_plan *p = NULL;
  int calls[4];
  calls[0] = t ? ade_jacobian_dense(t, ADE_FORWARD, x2, D) : ADE_ENOMEM;
  calls[1] = t ? ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &S, NULL) : ADE_ENOMEM;
  ade_sparse_free(S);
  S = NULL;
  calls[2] = t ? ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL) : ADE_ENOMEM;
  if (!calls[2]) calls[2] = ade_elim_plan_pattern(p, &S);
  calls[3] = S ? ade_elim_plan_jacobian(p, t, x2, S) : ADE_ENOMEM;
  for (int k = 0; k < 4; k++) {
    ck_assert_msg(calls[k] == ADE_OK || calls[k] == ADE_ENOMEM || (rec && calls[k] == ADE_ESTATE), "call %d: %s (%s)",
                  k, ade_errname(calls[k]), ade_errmsg());
    if (!fail) fail = calls[k];
  }
  if (!fail) ck_assert_int_eq(ade_sparse_to_dense(S, J), ADE_OK);
  ade_sparse_free(S);
  ade_elim_plan_free(p);
  ade_tape_free(t);
  return fail;
}

/* Out of memory at every allocation in turn: a clean ADE_ENOMEM, nothing
 * leaked, and the result of a run without failures once none fails. */
START_TEST(test_out_of_memory) {
  register_all();
  const double x[3] = {0.385, -1.17, 0.62}, x2[3] = {0.4, -1.1, 0.6};
  double Jref[12], J[12];
  ck_assert_int_eq(oom_run(x, x2, Jref), ADE_OK);
  long k;
  for (k = 0; k < 5000; k++) {
    ade_test_alloc a = {k, 0, 0};
    ade_set_allocator(ade_test_alloc_fn, &a);
    int st = oom_run(x, x2, J);
    ade_set_allocator(NULL, NULL);
    ck_assert_msg(a.live == 0, "k = %ld: %ld blocks leaked", k, a.live);
    if (a.count <= k) { /* no allocation failed */
      ck_assert_int_eq(st, ADE_OK);
      close_all(J, Jref, 12, 0.0, "after the failures");
      break;
    }
  }
  ck_assert_int_lt(k, 5000);
  ck_assert_int_gt(k, 50); /* the run allocates: failures were provoked */
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("elemental");
  TCase *tc = tcase_create("elemental");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_random_programs, 0, 4);
  tcase_add_loop_test(tc, test_save_load_stats, 0, 2);
  tcase_add_test(tc, test_jacobian_choice);
  tcase_add_test(tc, test_missing_registration);
  tcase_add_test(tc, test_hessian_refused);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_memory_limit);
  tcase_add_test(tc, test_keep_dropped);
  tcase_add_test(tc, test_failing_callbacks);
  tcase_add_test(tc, test_many_names);
  tcase_add_test(tc, test_out_of_memory);
  tcase_add_test(tc, test_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
