/* dispatch.c: ade_hessian: the dispatch to the star plan or the one-shot methods, on top of them. */
#include <stdlib.h>
#include <time.h>

#include "hessian_internal.h"

static int hessian(ade_tape *t, int method, const ade_hess_options *o, ade_sparse **H,
                   ade_hess_report *r) {
  ade_hess_report rep;
  ade__hpoint hp = {NULL, 0, 0};
  memset(&rep, 0, sizeof rep);
  double t0 = ade__now();
  if (H) *H = NULL;
  int st = ade__hess_check(t, method, o, H);
  const double *x = o ? o->x : NULL, *w = o ? o->w : NULL;
  double *g = o ? o->grad : NULL;
  if (!st) st = ade__hess_point_begin(t, x, &hp);
  if (!st) st = ade__hess_value(t, hp.V, w, &rep.value);
  if (!st) st = method == ADE_HESS_STAR ? ade__star_once(t, hp.V, w, H, g, &rep) : ade__hess_run(t, method, &hp, w, H, g, &rep);
  ade__hess_point_end(t, &hp);
  if (st && H) {
    ade_sparse_free(*H);
    *H = NULL;
  }
  rep.nnz = !st && H && *H ? (*H)->nnz : 0;
  rep.seconds = ade__now() - t0;
  if (r) *r = rep;
  return ade__hess_warn(st, hp.warn);
}

int ade_hessian(ade_tape *shared, int method, const ade_hess_options *o, ade_sparse **H,
                ade_hess_report *r) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : hessian(t, method, o, H, r));
}
