/* lv_problem.h: the Luksan-Vlcek problem 5.1 of ipopt_lv.h, f and c written once over the ADE_ macros (also instantiated for ADOL-C's adouble by bench/bench_ipopt_adolc.cpp). */
#ifndef LV_PROBLEM_H
#define LV_PROBLEM_H

/* f(x) and c(x) for any real type with the ADE_ macros: double and
 * ade_double (adelim.h), adouble (plain C++ operators). */
#define LV_PROBLEM(real, objective, constraints)                                      \
  static real objective(int n, const real *x) {                                       \
    real f = x[0];                                                                    \
    for (int i = 0; i < n - 1; i++) {                                                 \
      real a1 = ADE_SUB(ADE_SQUARE(x[i]), x[i + 1]), a2 = ADE_SUB(x[i], 1.0);         \
      real t = ADE_ADD(ADE_MUL(100.0, ADE_SQUARE(a1)), ADE_SQUARE(a2));               \
      f = i == 0 ? t : ADE_ADD(f, t);                                                 \
    }                                                                                 \
    return f;                                                                         \
  }                                                                                   \
  static void constraints(int n, const real *x, real *c) {                            \
    for (int i = 0; i < n - 2; i++) {                                                 \
      real a = x[i], b = x[i + 1], d = x[i + 2];                                      \
      real t = ADE_ADD(ADE_MUL(3.0, ADE_MUL(ADE_SQUARE(b), b)), ADE_MUL(2.0, d));     \
      t = ADE_SUB(t, 5.0);                                                            \
      t = ADE_ADD(t, ADE_MUL(ADE_SIN(ADE_SUB(b, d)), ADE_SIN(ADE_ADD(b, d))));        \
      t = ADE_ADD(t, ADE_MUL(4.0, b));                                                \
      t = ADE_SUB(t, ADE_MUL(a, ADE_EXP(ADE_SUB(a, b))));                             \
      c[i] = ADE_SUB(t, 3.0);                                                         \
    }                                                                                 \
  }
#endif /* LV_PROBLEM_H */
