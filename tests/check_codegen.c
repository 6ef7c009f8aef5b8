/* check_codegen.c: C generated from elimination plans, compiled by the system compiler, against the interpreted plan and forward mode. */
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "elim_internal.h"
#include "eval_internal.h"
#include "randprog.h"

#ifndef ADE_TEST_CC
#define ADE_TEST_CC "cc"
#endif

typedef int (*jacfn)(const double *x, double *nz);

#define NIN 6
#define NSTEPS 50

/* Operand values kept in each row's domain at every point the tests use:
 * u in (0.1, 0.3), w in (1.6, 2.4), both nonlinear in x. */
static ade_double every_op(ade_tape *t, unsigned op, const ade_double *a, const ade_double *x, int dup) {
  ade_double u = ade_add(ade_passive(0.2), ade_mul(ade_passive(0.1), ade_sin(ade_mul(a[0], a[1]))));
  ade_double w = ade_add(ade_passive(2.0), ade_mul(ade_passive(0.4), ade_cos(ade_sub(a[2], a[3]))));
  ade_double z = ade_mul(a[4], ade_passive(0.3));
  if (op == ADE_OP_ACOSH) u = ade_add(u, ade_passive(1.2));
  ade_double xs[3] = {u, dup ? u : w, z};
  if (op == ADE_OP_POW || op == ADE_OP_LOG || op == ADE_OP_LOG10) xs[0] = w, xs[1] = u;
  if (op >= ADE_OP_LT) xs[0] = x[0], xs[1] = x[1]; /* lt, le, gt, ge flip when x0 and x1 swap */
  int k = ade__optab[op].arity;
  double args[3] = {ade_val(xs[0]), ade_val(xs[1]), ade_val(xs[2])};
  double r = ade__op_value(op, args);
  return ade__append(t, op, k, xs, r, ade__op_check(op, args, r), NULL);
}

/* A random program with every row of the operation table appended (binary
 * rows also with a repeated operand, and with a constant operand). */
static ade_tape *record_all(uint64_t seed, const double *x) {
  randprog p = rp_make(seed, NIN, 4, NSTEPS);
  ade_tape *t;
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.chunk_ops = 97; /* several chunks */
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double *v = malloc(sizeof *v * (size_t)(NIN + NSTEPS));
  for (int i = 0; i < NIN; i++) v[i] = ade_indep(x[i]);
  for (int i = 0; i < NSTEPS; i++) v[NIN + i] = rp_step_eval(&p.steps[i], v);
  for (int j = 0; j < p.m; j++) ade_dep(v[p.out[j]]);
  for (unsigned op = ADE_OP_DEP + 1; op < ADE_OP_COUNT; op++)
    for (int dup = 0; dup < (ade__optab[op].arity > 1 ? 2 : 1); dup++) {
      ade_double y = every_op(t, op, v + (op + (unsigned)dup) % 3, v, dup);
      if (op >= ADE_OP_LT) continue; /* a comparison is never an operand */
      ade_dep(ade_mul(y, ade_add(v[NIN + NSTEPS - 1 - (int)op % 5], ade_passive(1.1))));
    }
  ade_dep(ade_mul(v[0], ade_passive(2.5))); /* constant operands */
  ade_dep(ade_pow(v[1], ade_passive(3.0)));
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  free(v);
  rp_free(&p);
  return t;
}

static const int methods[] = {ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_REVERSE, ADE_ORDER_VERTEX_MARKOWITZ,
                              ADE_ORDER_EDGE_FILLIN, ADE_ORDER_FACE_GREEDY};
#define NMETH (sizeof methods / sizeof methods[0])
#define NTAPES 2

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)); }

/* Every tape x every method: one file each, compiled into one shared
 * object by one compiler run. */
START_TEST(compiled_equals_interpreter) {
  char dir[] = "/tmp/ade-codegen-XXXXXX", cmd[4096], path[512];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  double x0[NTAPES][NIN];
  ade_tape *t[NTAPES];
  ade_elim_plan *p[NTAPES][NMETH];
  int st;
  int n = snprintf(cmd, sizeof cmd, "%s -std=c99 -O0 -ffp-contract=off -fPIC -shared -o %s/jac.so", ADE_TEST_CC, dir);
  for (int s = 0; s < NTAPES; s++) {
    uint64_t rs = 77 + (uint64_t)s;
    for (int i = 0; i < NIN; i++) x0[s][i] = ade_test_uniform(&rs, -0.9, 0.9);
    t[s] = record_all(1000 + (uint64_t)s, x0[s]);
    for (size_t q = 0; q < NMETH; q++) {
      ck_assert_int_eq(ade_elim_plan_create(&p[s][q], t[s], methods[q], NULL, NULL), ADE_OK);
      char name[32];
      snprintf(name, sizeof name, "jac_%d_%zu", s, q);
      snprintf(path, sizeof path, "%s/%s.c", dir, name);
      FILE *f = fopen(path, "w");
      ck_assert_ptr_nonnull(f);
      /* tape 1: split code (pieces of straight-line code over arrays) */
      st = s ? ade__plan_codegen(p[s][q], t[s], name, f, 0) : ade_plan_codegen(p[s][q], t[s], name, f);
      ck_assert_msg(st == ADE_OK, "%s", ade_errmsg());
      ck_assert_int_eq(fclose(f), 0);
      n += snprintf(cmd + n, sizeof cmd - (size_t)n, " %s", path);
    }
  }
  snprintf(cmd + n, sizeof cmd - (size_t)n, " -lm");
  ck_assert_msg(system(cmd) == 0, "%s", cmd);
  snprintf(path, sizeof path, "%s/jac.so", dir);
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(so != NULL, "%s", dlerror());
  for (int s = 0; s < NTAPES; s++) {
    size_t m = ade_tape_num_dep(t[s]), nn = ade_tape_num_indep(t[s]);
    double *D = malloc(sizeof *D * m * nn);
    for (size_t q = 0; q < NMETH; q++) {
      char name[64];
      ade_sparse *J;
      ck_assert_int_eq(ade_elim_plan_pattern(p[s][q], &J), ADE_OK);
      snprintf(name, sizeof name, "jac_%d_%zu", s, q);
      jacfn fn = (jacfn)(uintptr_t)dlsym(so, name);
      ck_assert_ptr_nonnull(fn);
      snprintf(name, sizeof name, "jac_%d_%zu_rowptr", s, q);
      const long *rowptr = dlsym(so, name);
      snprintf(name, sizeof name, "jac_%d_%zu_col", s, q);
      const long *col = dlsym(so, name);
      ck_assert(rowptr && col);
      for (size_t i = 0; i <= m; i++) ck_assert_int_eq((size_t)rowptr[i], J->rowptr[i]);
      for (size_t k = 0; k < J->nnz; k++) ck_assert_int_eq((size_t)col[k], J->col[k]);
      double *nz = malloc(sizeof *nz * (J->nnz + 1));
      uint64_t rs = 5 + (uint64_t)s;
      for (int pt = 0; pt < 6; pt++) {
        double x[NIN];
        for (int i = 0; i < NIN; i++) x[i] = x0[s][i] + (pt ? ade_test_uniform(&rs, -0.05, 0.05) : 0);
        if (pt == 5) x[0] = x0[s][1], x[1] = x0[s][0]; /* every recorded comparison flips */
        int flips = fn(x, nz);
        st = ade_elim_plan_jacobian(p[s][q], t[s], x, J);
        ck_assert_msg(st == ADE_OK || st == ADE_WBRANCH, "%s", ade_errmsg());
        ck_assert_msg((flips != 0) == (st == ADE_WBRANCH), "point %d: %d flips, status %d", pt, flips, st);
        if (pt == 0) ck_assert_int_eq(flips, 0);
        if (pt == 5) ck_assert_int_eq(flips, 2 * 4); /* lt, le, gt, ge, each twice */
        for (size_t k = 0; k < J->nnz; k++)
          ck_assert_msg(same_bits(nz[k], J->val[k]), "tape %d method %s point %d nz[%zu] = %a, plan %a", s,
                        ade_order_name(methods[q]), pt, k, nz[k], J->val[k]);
        ck_assert_int_eq(ade_jacobian_dense(t[s], ADE_FORWARD, x, D) == ADE_WBRANCH, st == ADE_WBRANCH);
        for (size_t i = 0; i < m; i++) /* forward mode: the same derivative, another rounding */
          for (size_t k = J->rowptr[i]; k < J->rowptr[i + 1]; k++)
            ade_assert_rel(nz[k], D[i * nn + J->col[k]], 1e-12);
      }
      free(nz);
      ade_sparse_free(J);
      ade_elim_plan_free(p[s][q]);
    }
    free(D);
    ade_tape_free(t[s]);
  }
  dlclose(so);
  snprintf(cmd, sizeof cmd, getenv("ADE_KEEP") ? "true %s" : "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Every opcode is in the generated code (as an expression or a call). */
START_TEST(every_opcode_emitted) {
  double x[NIN] = {0.31, -0.42, 0.53, 0.17, -0.29, 0.66};
  ade_tape *t = record_all(3, x);
  ade_elim_plan *p;
  ck_assert_int_eq(ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), ADE_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(ade_plan_codegen(p, t, "jac", f), ADE_OK);
  fclose(f);
  for (unsigned op = ADE_OP_DEP + 1; op < ADE_OP_COUNT; op++) {
    char tag[32];
    snprintf(tag, sizeof tag, "/* %s */", ade_op_name((int)op));
    ck_assert_msg(strstr(buf, tag) != NULL, "no %s in the code", tag);
  }
  ck_assert_ptr_nonnull(strstr(buf, "vertex-markowitz"));
  free(buf);
  ade_elim_plan_free(p);
  ade_tape_free(t);
}
END_TEST

START_TEST(bad_arguments) {
  double x[NIN] = {0.31, -0.42, 0.53, 0.17, -0.29, 0.66};
  ade_tape *t = record_all(4, x), *t2 = record_all(5, x);
  ade_elim_plan *p;
  ck_assert_int_eq(ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_FORWARD, NULL, NULL), ADE_OK);
  FILE *f = tmpfile();
  ck_assert_int_eq(ade_plan_codegen(NULL, t, "jac", f), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_codegen(p, t, "jac", NULL), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_codegen(p, t, "9jac", f), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_codegen(p, t, "ja-c", f), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_codegen(p, t, "", f), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_codegen(p, t, NULL, f), ADE_EINVAL);
  ck_assert_int_eq(ade_plan_codegen(p, NULL, "jac", f), ADE_EINVAL);
  int st = ade_plan_codegen(p, t2, "jac", f); /* another tape of another structure */
  ck_assert_msg(st == ADE_EINVAL, "%d %s", st, ade_errmsg());
  fclose(f);
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    ck_assert_int_eq(ade_plan_codegen(p, t, "jac", full), ADE_EIO);
    fclose(full);
  }
  ade_elim_plan_free(p);
  ade_tape_free(t);
  ade_tape_free(t2);
}
END_TEST

/* Every allocation failing in turn: ENOMEM, nothing leaked, then success. */
START_TEST(out_of_memory) {
  double x[NIN] = {0.31, -0.42, 0.53, 0.17, -0.29, 0.66};
  ade_tape *t = record_all(6, x);
  ade_elim_plan *p;
  ck_assert_int_eq(ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL), ADE_OK);
  int st = ADE_ENOMEM;
  for (long k = 0; st == ADE_ENOMEM && k < 10000; k++)
    for (int form = 0; form < 2; form++) {
      FILE *f = tmpfile();
      ade_test_alloc a = {k, 0, 0};
      ade_set_allocator(ade_test_alloc_fn, &a);
      st = form ? ade__plan_codegen(p, t, "jac", f, 0) : ade_plan_codegen(p, t, "jac", f);
      ade_set_allocator(NULL, NULL);
      fclose(f);
      ck_assert_msg(st == ADE_OK || st == ADE_ENOMEM, "k=%ld: %d %s", k, st, ade_errmsg());
      ck_assert_msg(a.live == 0, "k=%ld: %ld blocks leaked", k, a.live);
    }
  ck_assert_int_eq(st, ADE_OK);
  ade_elim_plan_free(p);
  ade_tape_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("codegen");
  TCase *tc = tcase_create("codegen");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, compiled_equals_interpreter);
  tcase_add_test(tc, every_opcode_emitted);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (system(ADE_TEST_CC " --version >/dev/null 2>&1") != 0) {
    printf("SKIP: the compiler '%s' does not run\n", ADE_TEST_CC);
    return 77; /* automake: skipped */
  }
  return ade_test_run(suite());
}
