/* bench_elemental.c: a vector elemental against the same function recorded in scalar operations.
 *
 * The program: K steps x <- tanh(A x) with a dense n x n matrix A (n = 50,
 * K = 4), recorded three ways: (S) in scalar operations, (E) each step one
 * elemental with an explicit Jacobian callback, (T) the same without it
 * (the local Jacobian from n tangent calls). Per variant: recording time,
 * tape records and bytes, one adjoint and the dense Jacobian at a new point,
 * ade_jacobian (auto) at the recorded point; the Jacobians are checked
 * against (S). Usage: bench_elemental [n] [K]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adelim.h"
#include "bench_util.h"

typedef struct prob {
  size_t n;
  int K;
  double *A, *x, *x2;
  ade_elemental *e[2];
} prob;

/* y = tanh(A x) */
static int step_f(void *ud, const double *x, double *y) {
  const prob *p = ud;
  for (size_t i = 0; i < p->n; i++) {
    double s = 0;
    for (size_t j = 0; j < p->n; j++) s += p->A[i * p->n + j] * x[j];
    y[i] = tanh(s);
  }
  return 0;
}
/* yd = diag(1 - y^2) A xd */
static int step_t(void *ud, const double *x, const double *xd, double *yd) {
  const prob *p = ud;
  double *y = malloc(p->n * sizeof *y);
  if (!y) return ADE_ENOMEM;
  step_f(ud, x, y);
  for (size_t i = 0; i < p->n; i++) {
    double s = 0;
    for (size_t j = 0; j < p->n; j++) s += p->A[i * p->n + j] * xd[j];
    yd[i] = (1 - y[i] * y[i]) * s;
  }
  free(y);
  return 0;
}
/* xb = A^T diag(1 - y^2) yb */
static int step_a(void *ud, const double *x, const double *yb, double *xb) {
  const prob *p = ud;
  double *y = malloc(p->n * sizeof *y);
  if (!y) return ADE_ENOMEM;
  step_f(ud, x, y);
  memset(xb, 0, p->n * sizeof *xb);
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < p->n; j++) xb[j] += p->A[i * p->n + j] * (1 - y[i] * y[i]) * yb[i];
  free(y);
  return 0;
}
static int step_j(void *ud, const double *x, double *J) {
  const prob *p = ud;
  double *y = malloc(p->n * sizeof *y);
  if (!y) return ADE_ENOMEM;
  step_f(ud, x, y);
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < p->n; j++) J[i * p->n + j] = (1 - y[i] * y[i]) * p->A[i * p->n + j];
  free(y);
  return 0;
}

/* Record the program: variant 0 scalar, 1 and 2 the elementals. */
static ade_tape *record(const prob *p, int variant) {
  ade_tape *t = NULL;
  size_t n = p->n;
  ade_double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
  if (!v || !w || ade_tape_create(&t, NULL) || ade_trace_on(t)) exit(1);
  for (size_t i = 0; i < n; i++) v[i] = ade_indep(p->x[i]);
  for (int k = 0; k < p->K; k++) {
    if (variant) {
      if (ade_elemental_call(p->e[variant - 1], v, w)) exit(1);
    } else {
      for (size_t i = 0; i < n; i++) {
        ade_double s = ade_passive(0.0);
        for (size_t j = 0; j < n; j++) s = ade_add(s, ade_mul(ade_passive(p->A[i * n + j]), v[j]));
        w[i] = ade_tanh(s);
      }
    }
    memcpy(v, w, n * sizeof *v);
  }
  for (size_t i = 0; i < n; i++) ade_dep(v[i]);
  if (ade_trace_off()) {
    fprintf(stderr, "recording: %s\n", ade_errmsg());
    exit(1);
  }
  free(v);
  free(w);
  return t;
}

typedef struct run {
  const prob *p;
  int variant;
  ade_tape *t;
  double *J, *yb, *xb;
} run;

static void do_record(void *ctx) {
  run *r = ctx;
  ade_tape_free(r->t);
  r->t = record(r->p, r->variant);
}
static void do_adjoint(void *ctx) {
  run *r = ctx;
  if (ade_adjoint(r->t, r->p->x2, r->yb, r->xb) < 0) exit(1);
}
static void do_dense(void *ctx) {
  run *r = ctx;
  if (ade_jacobian_dense(r->t, ADE_FORWARD, r->p->x2, r->J) < 0) exit(1);
}
static void do_auto(void *ctx) {
  run *r = ctx;
  ade_sparse *S = NULL;
  if (ade_jacobian(r->t, ADE_ELIM_AUTO, NULL, &S, NULL)) {
    fprintf(stderr, "ade_jacobian: %s\n", ade_errmsg());
    exit(1);
  }
  ade_sparse_free(S);
}

int main(int argc, char **argv) {
  prob p = {argc > 1 ? (size_t)atoi(argv[1]) : 50, argc > 2 ? atoi(argv[2]) : 4, NULL, NULL, NULL, {NULL, NULL}};
  size_t n = p.n;
  p.A = bench_xmalloc(n * n, sizeof *p.A);
  p.x = bench_xmalloc(n, sizeof *p.x);
  p.x2 = bench_xmalloc(n, sizeof *p.x2);
  uint64_t s = 12345;
  for (size_t i = 0; i < n * n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p.A[i] = ((double)(s >> 11) * 0x1.0p-53 - 0.5) * 2.5 / (double)n;
  }
  for (size_t i = 0; i < n; i++) {
    p.x[i] = 0.3 + 0.01 * (double)i;
    p.x2[i] = p.x[i] + 0.05;
  }
  ade_elemental_def d = {"bench.tanhAx", n, n, step_f, step_t, step_a, step_j, &p, 0, 0, NULL};
  if (ade_elemental_register(&d, &p.e[0])) return 1;
  d.name = "bench.tanhAx.nojac";
  d.jacobian = NULL;
  if (ade_elemental_register(&d, &p.e[1])) return 1;
  static const char *names[3] = {"scalar ops", "elemental + Jacobian", "elemental, tangents"};
  double *Jref = bench_xmalloc(n * n, sizeof *Jref);
  printf("x <- tanh(A x), n = %zu, K = %d steps; times in ms (min over repetitions)\n", n, p.K);
  printf("%-22s %9s %10s %9s %9s %9s %9s %10s\n", "variant", "records", "bytes", "record", "adjoint", "dense J",
         "auto J", "rel diff");
  for (int v = 0; v < 3; v++) {
    run r = {&p, v, NULL, bench_xmalloc(n * n, sizeof(double)), bench_xmalloc(n, sizeof(double)),
             bench_xmalloc(n, sizeof(double))};
    for (size_t i = 0; i < n; i++) r.yb[i] = 1.0 / (double)(i + 1);
    double tr = bench_time(NULL, do_record, NULL, &r);
    double ta = bench_time(NULL, do_adjoint, NULL, &r);
    double td = bench_time(NULL, do_dense, NULL, &r);
    double tj = bench_time(NULL, do_auto, NULL, &r);
    if (!v) memcpy(Jref, r.J, n * n * sizeof *Jref);
    ade_stats st;
    ade_tape_stats(r.t, &st);
    printf("%-22s %9llu %10llu %9.3f %9.3f %9.3f %9.3f %10.2e\n", names[v], (unsigned long long)st.records,
           (unsigned long long)st.stored_bytes, 1e3 * tr, 1e3 * ta, 1e3 * td, 1e3 * tj, bench_rel_diff(r.J, Jref, n * n));
    ade_tape_free(r.t);
    free(r.J);
    free(r.yb);
    free(r.xb);
  }
  free(Jref);
  free(p.A);
  free(p.x);
  free(p.x2);
  return 0;
}
