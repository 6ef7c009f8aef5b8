/* randprog.h: random straight-line programs over the recording API, for property tests. */
#ifndef ADE_RANDPROG_H
#define ADE_RANDPROG_H

#include "testutil.h"

/* A program: n inputs, steps that each combine earlier values, m outputs. */
typedef struct rp_step {
  int kind;      /* which composite operation */
  int a, b, c;   /* indices of earlier values */
  double k;      /* a constant */
} rp_step;

typedef struct randprog {
  int n, m, nsteps;
  rp_step *steps;
  int *out;      /* m value indices */
} randprog;

#define RP_KINDS 16

static inline randprog rp_make(uint64_t seed, int n, int m, int nsteps) {
  randprog p = {n, m, nsteps, calloc((size_t)nsteps, sizeof(rp_step)), calloc((size_t)m, sizeof(int))};
  uint64_t s = seed;
  for (int i = 0; i < nsteps; i++) {
    int avail = n + i;
    rp_step *st = &p.steps[i];
    st->kind = (int)(ade_test_rand(&s) % RP_KINDS);
    /* Prefer recent values so graphs are deep as well as wide. */
    st->a = avail - 1 - (int)(ade_test_rand(&s) % (uint64_t)(avail < 6 ? avail : 6));
    st->b = (int)(ade_test_rand(&s) % (uint64_t)avail);
    st->c = (int)(ade_test_rand(&s) % (uint64_t)avail);
    st->k = ade_test_uniform(&s, 0.3, 1.7);
  }
  for (int j = 0; j < m; j++) p.out[j] = n + nsteps - 1 - (int)(ade_test_rand(&s) % (uint64_t)(nsteps < m ? nsteps : m));
  return p;
}

static inline void rp_free(randprog *p) {
  free(p->steps);
  free(p->out);
}

/* One step on the recording API; every result stays bounded and smooth. */
static inline ade_double rp_step_eval(const rp_step *s, const ade_double *v) {
  ade_double a = v[s->a], b = v[s->b], c = v[s->c];
  switch (s->kind) {
  case 0: return ade_add(a, b);
  case 1: return ade_sub(a, ade_mul(ade_passive(s->k), b));
  case 2: return ade_tanh(ade_mul(a, b));
  case 3: return ade_div(a, ade_add(ade_passive(1.5), ade_sin(b)));
  case 4: return ade_sin(ade_fma(a, ade_passive(s->k), b));
  case 5: return ade_cos(ade_sub(a, c));
  case 6: return ade_exp(ade_mul(ade_passive(-0.5), ade_square(a)));
  case 7: return ade_sqrt(ade_add(ade_passive(1.0), ade_square(b)));
  case 8: return ade_atan(ade_add(a, ade_mul(b, c)));
  case 9: return ade_log1p(ade_square(a));
  case 10: return ade_pow(ade_add(ade_passive(2.0), ade_sin(a)), ade_passive(s->k));
  case 11: return ade_hypot(a, ade_add(ade_passive(0.5), ade_square(b)));
  case 12: return ade_atan2(a, ade_add(ade_passive(2.0), ade_cos(b)));
  case 13: return ade_erf(ade_mul(a, ade_passive(s->k)));
  case 14: return ade_fma(a, b, c);
  default: return ade_mul(ade_neg(a), ade_cbrt(ade_add(ade_passive(3.0), ade_tanh(c))));
  }
}

/* Evaluate at x. With a tape recording, inputs become independents and
 * outputs dependents; without one it is a plain evaluation. */
static inline void rp_eval(const randprog *p, const double *x, double *y, int record) {
  ade_double *v = malloc(sizeof(ade_double) * (size_t)(p->n + p->nsteps));
  for (int i = 0; i < p->n; i++) v[i] = record ? ade_indep(x[i]) : ade_passive(x[i]);
  for (int i = 0; i < p->nsteps; i++) v[p->n + i] = rp_step_eval(&p->steps[i], v);
  for (int j = 0; j < p->m; j++) y[j] = record ? ade_dep(v[p->out[j]]) : ade_val(v[p->out[j]]);
  free(v);
}

/* Record p at x on a new tape with the given options. */
static inline ade_tape *rp_record(const randprog *p, const double *x, const ade_tape_options *o) {
  ade_tape *t = NULL;
  double *y = malloc(sizeof(double) * (size_t)p->m);
  ck_assert_int_eq(ade_tape_create(&t, o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  rp_eval(p, x, y, 1);
  ck_assert_msg(ade_trace_off() == ADE_OK, "trace_off: %s", ade_errmsg());
  free(y);
  return t;
}

/* Central difference of output i in direction j with step h. */
static inline void rp_fd(const randprog *p, const double *x, int j, double h, double *d) {
  int n = p->n, m = p->m;
  double *xp = malloc(sizeof(double) * (size_t)n), *yp = malloc(sizeof(double) * (size_t)m),
         *ym = malloc(sizeof(double) * (size_t)m);
  for (int i = 0; i < n; i++) xp[i] = x[i];
  xp[j] = x[j] + h;
  rp_eval(p, xp, yp, 0);
  xp[j] = x[j] - h;
  rp_eval(p, xp, ym, 0);
  for (int i = 0; i < m; i++) d[i] = (yp[i] - ym[i]) / (2 * h);
  free(xp);
  free(yp);
  free(ym);
}

/* Jacobian (m x n) by central differences with one Richardson step, and an
 * error estimate per entry: |D(h) - D(h/2)| bounds the truncation error of
 * D(h/2), which the extrapolation removes to the next order. The step
 * h ~ eps^(1/3) balances truncation h^2 f''' against rounding eps f / h. */
static inline void rp_fd_jacobian(const randprog *p, const double *x, double *J, double *err) {
  int n = p->n, m = p->m;
  double *d1 = malloc(sizeof(double) * (size_t)m), *d2 = malloc(sizeof(double) * (size_t)m);
  for (int j = 0; j < n; j++) {
    double h = 2 * cbrt(DBL_EPSILON) * fmax(1.0, fabs(x[j]));
    rp_fd(p, x, j, h, d1);
    rp_fd(p, x, j, h / 2, d2);
    for (int i = 0; i < m; i++) {
      J[i * n + j] = (4 * d2[i] - d1[i]) / 3;
      err[i * n + j] = fabs(d2[i] - d1[i]) + 1e3 * DBL_EPSILON / h * fmax(1.0, fabs(d2[i]));
    }
  }
  free(d1);
  free(d2);
}

/* One time step of a small simulation of 3 values, in a function of its
 * own so that its records' call sites lie in it (call-site parts). */
static __attribute__((noinline, unused)) void rp_sim_step(ade_double *u) {
  ade_double a = ADE_MUL(u[0], ADE_SIN(u[1])), b = ADE_ADD(ADE_MUL(u[1], u[2]), a);
  ade_double c = ADE_EXP(ADE_MUL(-0.1, ADE_MUL(a, b)));
  u[0] = ADE_ADD(u[0], ADE_MUL(0.01, c));
  u[1] = ADE_SUB(u[1], ADE_MUL(0.02, ADE_MUL(a, c)));
  u[2] = ADE_ADD(u[2], ADE_MUL(0.03, ADE_TANH(b)));
}

/* steps time steps of rp_sim_step from u = (0.3, 0.4, 0.5), recorded on a
 * new tape with the given options; u's final values are the dependents. */
static inline ade_tape *rp_record_sim(int steps, const ade_tape_options *o) {
  ade_tape *t = NULL;
  ck_assert_int_eq(ade_tape_create(&t, o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double u[3];
  for (int i = 0; i < 3; i++) u[i] = ade_indep(0.3 + 0.1 * i);
  for (int s = 0; s < steps; s++) rp_sim_step(u);
  for (int i = 0; i < 3; i++) ade_dep(u[i]);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  return t;
}

#endif
