/* run.c: the one-shot Hessian methods (all but the star plan) by method. */
#include "hessian_internal.h"

/* One method at the point set up (hp); *H gets its result. */
int ade__hess_run(ade_tape *t, int method, const ade__hpoint *hp, const double *w, ade_sparse **H, double *g,
                  ade_hess_report *rep) {
  switch (method) {
  case ADE_HESS_AUTO: /* one call: the star method's pattern alone costs an edge push */
  case ADE_HESS_EDGE_PUSH: return ade__edge_push(t, hp->V, w, H, g, rep, NULL);
  case ADE_HESS_FOR_OVER_REV: return ade__for_over_rev(t, hp->V, w, H, g, rep);
  case ADE_HESS_EDGE_PUSH_PREACC: return ade__edge_push_preacc(t, hp->V, w, H, g, rep, NULL);
  default: return ade__vertex_elim(t, hp->V, w, method, H, g, rep, NULL);
  }
}
