/* hess_plan.c: Hessian plans: the structural pattern and its star coloring once, compressed Hessian-vector products and direct recovery at each new point, and the automatic choice between them and edge pushing. */
#include "hessian_internal.h"

struct ade_hess_plan {
  uint64_t records;      /* the tape it was made for */
  size_t nchunks, n;
  int method;            /* what an evaluation runs */
  ade_sparse *P;         /* the structural pattern (lower triangle) */
  size_t *color, ncolors;
  size_t *src;           /* per entry of P: its place in B = H S (n x ncolors) */
  uint64_t ep_fma;       /* structural edge pushing's multiply-adds */
  uint64_t fixed, per_dir; /* one sweep pair: fma independent of p, and per direction */
};


void ade_hess_plan_free(ade_hess_plan *p) {
  if (!p) return;
  ade_sparse_free(p->P);
  ade__free(p->color);
  ade__free(p->src);
  ade__free(p);
}

int ade_hess_plan_method(const ade_hess_plan *p) { return p ? p->method : -1; }

size_t ade_hess_plan_colors(const ade_hess_plan *p, size_t *color) {
  if (!p || !p->color) return 0;
  if (color) memcpy(color, p->color, p->n * sizeof *color);
  return p->ncolors;
}

/* The star method's predicted fma: each sweep pair costs fixed + p per_dir
 * (as hvp.c counts, every structurally nonzero second partial used). */
static uint64_t star_cost(const ade_hess_plan *p, size_t width) {
  if (!p->color) return 0;
  size_t strips = p->ncolors ? (p->ncolors + width - 1) / width : 0;
  return strips * p->fixed + p->ncolors * p->per_dir;
}

void ade_hess_plan_cost(const ade_hess_plan *p, uint64_t *edge_push, uint64_t *star) {
  if (edge_push) *edge_push = p ? p->ep_fma : 0;
  if (star) *star = p ? star_cost(p, p->ncolors ? p->ncolors : 1) : 0;
}

int ade_hess_plan_pattern(const ade_hess_plan *p, ade_sparse **H) {
  if (!p || !H) return ade__fail(ADE_EINVAL, "ade_hess_plan_pattern: NULL argument");
  int st = ade_sparse_create(H, p->n, p->n, p->P->nnz, 1);
  if (st) return st;
  memcpy((*H)->rowptr, p->P->rowptr, (p->n + 1) * sizeof *p->P->rowptr);
  memcpy((*H)->col, p->P->col, p->P->nnz * sizeof *p->P->col);
  memset((*H)->val, 0, p->P->nnz * sizeof *(*H)->val);
  return ADE_OK;
}

/* Per active operand: 1 + p (adjoint, adjoint tangents) in reverse, p in
 * forward; per structurally nonzero second partial h_jl (ordered pairs of
 * active operands): 1 + p. */
static int sweep_counts(ade_tape *t, ade_hess_plan *p) {
  uint64_t a = 0, c = 0;
  for (size_t ch = 0; ch < t->meta.nchunks; ch++) {
    int st = ade__view_load(t, ch);
    if (st) return st;
    const ade__view *v = &t->view;
    for (uint32_t i = 0; i < v->n; i++) {
      unsigned op = v->op[i], mask = ade__hess_struct_mask(op);
      int k = ade__optab[op].arity;
      const uint64_t *arg = ade__view_arg(v, i);
      if (!k || (ade__optab[op].flags & ADE__PASSIVE)) continue;
      for (int j = 0; j < k; j++)
        for (int l = 0; l < k && arg[j]; l++)
          c += arg[l] && (mask >> (j >= l ? j * (j + 1) / 2 + l : l * (l + 1) / 2 + j) & 1u);
      for (int j = 0; j < k; j++) a += arg[j] != 0;
    }
  }
  p->fixed = a + c;
  p->per_dir = 2 * a + c;
  return ADE_OK;
}

/* The rule of ADE_HESS_AUTO: star when its predicted fma are below edge
 * pushing's weighted by ADE__HESS_EP_WEIGHT. */
static int choose(const ade_hess_plan *p, const ade_tape *t) {
  uint64_t star = star_cost(p, ade__hvp_width(t, p->ncolors));
  return star < ADE__HESS_EP_WEIGHT * p->ep_fma ? ADE_HESS_STAR : ADE_HESS_EDGE_PUSH;
}

static int plan_create(ade_hess_plan **pp, ade_tape *t, int method, ade_hess_report *r) {
  ade_hess_report rep;
  memset(&rep, 0, sizeof rep);
  double t0 = ade__now();
  if (!pp) return ade__fail(ADE_EINVAL, "ade_hess_plan_create: NULL result pointer");
  *pp = NULL;
  if (!ade_hess_method_name(method)) return ade__fail(ADE_EINVAL, "ade_hess_plan_create: unknown method %d", method);
  int st = ade__tape_usable(t);
  if (!st) st = ade__tape_scalar(t, "ade_hess_plan_create");
  if (st) return st;
  ade_hess_plan *p = ade__calloc(1, sizeof *p);
  if (!p) return ade__fail(ADE_ENOMEM, "out of memory for a Hessian plan");
  p->records = t->meta.records;
  p->nchunks = t->meta.nchunks;
  p->n = t->meta.nindep;
  p->method = method;
  st = ade__edge_push_pattern(t, &p->P, &rep);
  if (!st) {
    p->ep_fma = rep.fma;
    memset(p->P->val, 0, p->P->nnz * sizeof *p->P->val);
  }
  if (!st && (method == ADE_HESS_STAR || method == ADE_HESS_AUTO))
    /* The graph (2 per entry), the color-count map (2 entries per edge at
     * most half full, key and value), recovery's arrays, per vertex 4. */
    st = ade__budget(t->memlimit, ade__mul_size(p->P->nnz + p->n + 1, 16 * sizeof(size_t)),
                     "the star coloring of a pattern with %zu entries", p->P->nnz);
  if (!st && (method == ADE_HESS_STAR || method == ADE_HESS_AUTO)) {
    p->color = ade__alloc((p->n + 1) * sizeof *p->color);
    p->src = ade__alloc((p->P->nnz + 1) * sizeof *p->src);
    st = p->color && p->src ? ade_sparse_star_color(p->P, ADE_COLOR_BEST, p->color, &p->ncolors)
                            : ade__fail(ADE_ENOMEM, "out of memory for a coloring of %zu", p->n);
    if (!st) st = ade__star_recovery(p->P, p->color, p->ncolors, p->src);
    if (!st) st = sweep_counts(t, p);
    if (!st && method == ADE_HESS_AUTO) p->method = choose(p, t);
  }
  rep.nnz = p->P ? p->P->nnz : 0;
  rep.colors = p->ncolors;
  rep.seconds = ade__now() - t0;
  if (r) *r = rep;
  if (st) ade_hess_plan_free(p);
  else *pp = p;
  return st;
}

int ade_hess_plan_create(ade_hess_plan **pp, ade_tape *shared, int method, ade_hess_report *r) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : plan_create(pp, t, method, r));
}

/* ------------------------------------------------------------ evaluate */

/* B = H S strip by strip (the seeds of the colors [c0, c0 + w)), then each
 * entry of H read off B; g from the first strip. */
static int star_eval(const ade_hess_plan *p, ade_tape *t, const double *V, const double *w, double *val, double *g,
                     uint64_t *fma) {
  size_t n = p->n, nc = p->ncolors, b = ade__hvp_width(t, nc);
  ade__hvp f;
  int st = ade__budget(t->memlimit, ade__mul_size(n + 1, (nc + 2 * b) * sizeof(double)),
                       "the compressed Hessian of %zu x %zu", n, nc);
  if (!st) st = ade__hvp_begin(&f, t, b);
  if (st) return st;
  double *B = ade__alloc(ade__mul_size(n + 1, (nc + 2 * b) * sizeof *B)), *S = B + (n + 1) * nc, *HS = S + (n + 1) * b;
  if (!B) st = ade__fail(ADE_ENOMEM, "out of memory for the compressed Hessian of %zu x %zu", n, nc);
  for (size_t c0 = 0; !st && (c0 < nc || c0 == 0); c0 += b) {
    size_t wd = nc ? ADE__MIN(b, nc - c0) : 1;
    if (wd != f.p) f.p = wd; /* the last strip: fewer directions in the same arrays */
    memset(S, 0, n * wd * sizeof *S);
    for (size_t j = 0; j < n && nc; j++)
      if (p->color[j] >= c0 && p->color[j] < c0 + wd) S[j * wd + p->color[j] - c0] = 1.0;
    st = ade__hvp_run(&f, V, w, S, HS, c0 == 0 ? g : NULL);
    for (size_t j = 0; !st && j < n && nc; j++)
      memcpy(B + j * nc + c0, HS + j * wd, wd * sizeof *B);
    if (!nc) break;
  }
  for (size_t k = 0; !st && k < p->P->nnz; k++) val[k] = B[p->src[k]];
  *fma = f.fma;
  ade__hvp_end(&f);
  ade__free(B);
  return st;
}

/* Another method's H scattered into the plan's pattern. */
static int scatter(const ade_hess_plan *p, const ade_sparse *A, double *val) {
  const ade_sparse *P = p->P;
  memset(val, 0, P->nnz * sizeof *val);
  for (size_t i = 0; i < P->n; i++) {
    size_t k = P->rowptr[i];
    for (size_t a = A->rowptr[i]; a < A->rowptr[i + 1]; a++) {
      while (k < P->rowptr[i + 1] && P->col[k] < A->col[a]) k++;
      if (k == P->rowptr[i + 1] || P->col[k] != A->col[a])
        return ade__fail(ADE_EINVAL, "entry (%zu, %zu) lies outside the plan's pattern", i, A->col[a]);
      val[k] = A->val[a];
    }
  }
  return ADE_OK;
}

static int check_eval(const ade_hess_plan *p, ade_tape *t, const ade_hess_options *o, const ade_sparse *H) {
  if (!p || !H) return ade__fail(ADE_EINVAL, "ade_hess_plan_hessian: NULL argument");
  ade_sparse *unused;
  int st = ade__hess_check(t, ADE_HESS_EDGE_PUSH, o, &unused);
  if (st) return st;
  if (t->meta.records != p->records || t->meta.nchunks != p->nchunks || t->meta.nindep != p->n)
    return ade__fail(ADE_EINVAL, "the plan was made for a tape of %llu records in %zu chunks, not %llu in %zu",
                     (unsigned long long)p->records, p->nchunks, (unsigned long long)t->meta.records, t->meta.nchunks);
  if (H->m != p->n || H->n != p->n || H->nnz != p->P->nnz || !H->symmetric)
    return ade__fail(ADE_EINVAL, "H is %zu x %zu with %zu entries; the plan's Hessian %zu x %zu with %zu", H->m, H->n,
                     H->nnz, p->n, p->n, p->P->nnz);
  return ADE_OK;
}

static int plan_hessian(ade_hess_plan *p, ade_tape *t, const ade_hess_options *o, ade_sparse *H,
                        ade_hess_report *r) {
  ade_hess_report rep;
  ade__hpoint hp = {NULL, 0, 0};
  ade_sparse *A = NULL;
  memset(&rep, 0, sizeof rep);
  double t0 = ade__now();
  int st = check_eval(p, t, o, H);
  const double *x = o ? o->x : NULL, *w = o ? o->w : NULL;
  double *g = o ? o->grad : NULL;
  if (!st) st = ade__hess_point_begin(t, x, &hp);
  if (!st) st = ade__hess_value(t, hp.V, w, &rep.value);
  if (!st && p->method == ADE_HESS_STAR) {
    st = star_eval(p, t, hp.V, w, H->val, g, &rep.fma);
    rep.colors = p->ncolors;
  } else if (!st) {
    st = ade__hess_run(t, p->method, &hp, w, &A, g, &rep);
    if (!st) st = scatter(p, A, H->val);
  }
  ade__hess_point_end(t, &hp);
  ade_sparse_free(A);
  rep.nnz = st ? 0 : H->nnz;
  rep.seconds = ade__now() - t0;
  if (r) *r = rep;
  return ade__hess_warn(st, hp.warn);
}

int ade_hess_plan_hessian(ade_hess_plan *p, ade_tape *shared, const ade_hess_options *o, ade_sparse *H,
                          ade_hess_report *r) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : plan_hessian(p, t, o, H, r));
}

int ade__star_once(ade_tape *t, const double *V, const double *w, ade_sparse **H, double *g, ade_hess_report *r) {
  ade_hess_plan *p = NULL;
  ade_hess_report pr;
  int st = plan_create(&p, t, ADE_HESS_STAR, &pr);
  if (!st) st = ade_hess_plan_pattern(p, H);
  if (!st) st = star_eval(p, t, V, w, (*H)->val, g, &r->fma);
  if (!st) {
    r->fma += pr.fma; /* the pattern's structural edge pushing */
    r->updates = pr.updates;
    r->colors = p->ncolors;
  }
  ade_hess_plan_free(p);
  return st;
}
