/* cpr.c: sparse Jacobians by Curtis-Powell-Reid compression: the pattern from the c-graph, greedy distance-2 colorings, compressed vector sweeps, recovery; the baselines of [DP]. */
#include <stdlib.h>

#include "elim_internal.h"
#include "eval_internal.h"

/* Colors per compressed sweep (as ade_jacobian_dense's strips). */
#define ADE__CPR_STRIP 64

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- pattern */

/* Index sets: set[v] (len[v] columns, ascending) = the union of its
 * predecessors' sets; a set is freed once its last successor has read it,
 * so memory follows the live part of the graph. */
typedef struct isets {
  size_t **set, *len, *rem, *mark, *buf;
  size_t base, held, limit; /* bytes of the arrays, entries in sets, the graph's limit */
} isets;

static int iset_union(const ade_cgraph *g, isets *S, size_t v, size_t stamp) {
  const ade__vtx *x = &g->v[v];
  size_t k = 0;
  if (x->kind == ADE__X) S->buf[k++] = x->aux;
  for (size_t a = 0; a < x->nin; a++) {
    size_t u = g->e[x->in[a]].src;
    for (size_t c = 0; c < S->len[u]; c++)
      if (S->mark[S->set[u][c]] != stamp) S->mark[S->set[u][c]] = stamp, S->buf[k++] = S->set[u][c];
    if (!--S->rem[u]) {
      S->held -= S->len[u] + 1;
      ade__free(S->set[u]);
      S->set[u] = NULL;
    }
  }
  qsort(S->buf, k, sizeof *S->buf, cmp_size);
  S->held += k + 1;
  if (ade__budget(S->limit, S->base + ade__mul_size(S->held, sizeof **S->set),
                  "the Jacobian pattern's index sets (%zu entries)", S->held))
    return ADE_ENOMEM;
  S->set[v] = ade__alloc((k + 1) * sizeof **S->set);
  if (!S->set[v]) return ade__fail(ADE_ENOMEM, "out of memory for an index set of %zu", k);
  memcpy(S->set[v], S->buf, k * sizeof **S->set);
  S->len[v] = k;
  S->rem[v] = x->nout;
  return ADE_OK;
}

/* The rows of P from the dependents' sets. */
static int pattern_rows(const ade_cgraph *g, const isets *S, ade_sparse **Pp) {
  size_t nnz = 0;
  for (size_t i = 0; i < g->m; i++) nnz += S->len[g->yv[i]];
  int st = ade_sparse_create(Pp, g->m, g->n, nnz, 0);
  if (st) return st;
  ade_sparse *P = *Pp;
  for (size_t i = 0; i < g->m; i++) {
    size_t y = g->yv[i], p0 = P->rowptr[i];
    memcpy(P->col + p0, S->set[y], S->len[y] * sizeof *P->col);
    for (size_t k = 0; k < S->len[y]; k++) P->val[p0 + k] = 1.0;
    P->rowptr[i + 1] = p0 + S->len[y];
  }
  return ADE_OK;
}

int ade_cgraph_pattern(const ade_cgraph *g, ade_sparse **Pp) {
  isets S;
  size_t nv = g ? g->nv + 1 : 1, *ord = NULL, k = 0;
  if (!g || !Pp || g->dual) return ade__fail(ADE_EINVAL, "ade_cgraph_pattern: needs a c-graph");
  *Pp = NULL;
  S.base = ade__mul_size(nv, 4 * sizeof(size_t)) + ade__mul_size(g->n + 1, 2 * sizeof(size_t));
  S.held = 0;
  S.limit = g->memlimit;
  int st = ade__budget(S.limit, S.base, "the Jacobian pattern of %zu vertices", g->nv);
  if (st) return st;
  S.set = ade__calloc(nv, sizeof *S.set);
  S.len = ade__calloc(nv, sizeof *S.len);
  S.rem = ade__calloc(nv, sizeof *S.rem);
  S.mark = ade__calloc(g->n + 1, sizeof *S.mark);
  S.buf = ade__alloc((g->n + 1) * sizeof *S.buf);
  ord = ade__alloc(nv * sizeof *ord);
  st = S.set && S.len && S.rem && S.mark && S.buf && ord
               ? ade__cgraph_topo(g, ord, &k)
               : ade__fail(ADE_ENOMEM, "out of memory for the index sets of %zu vertices", g->nv);
  for (size_t t = 0; !st && t < k; t++) st = iset_union(g, &S, ord[t], t + 1);
  if (!st) st = pattern_rows(g, &S, Pp);
  for (size_t v = 0; S.set && v < g->nv; v++) ade__free(S.set[v]);
  ade__free(S.set);
  ade__free(S.len);
  ade__free(S.rem);
  ade__free(S.mark);
  ade__free(S.buf);
  ade__free(ord);
  return st;
}

/* --------------------------------------------------------------- coloring */

/* Items to color and the groups joining them: item j lies in groups
 * gi[gp[j] .. gp[j+1]), group i holds items ii[ip[i] .. ip[i+1]). Columns
 * of P are items with rows as groups (CPR); rows are items with columns as
 * groups (the transpose). */
typedef struct bip {
  size_t nitem;
  const size_t *gp, *gi, *ip, *ii;
} bip;

/* P's columns as lists of rows (CSC structure). */
static int transpose(const ade_sparse *P, size_t **cp, size_t **ci) {
  size_t *p = ade__calloc(P->n + 2, sizeof *p), *r = ade__alloc((P->nnz + 1) * sizeof *r);
  if (!p || !r) {
    ade__free(p);
    ade__free(r);
    return ade__fail(ADE_ENOMEM, "out of memory for the transpose of a pattern with %zu entries", P->nnz);
  }
  for (size_t k = 0; k < P->nnz; k++) p[P->col[k] + 2]++;
  for (size_t j = 0; j < P->n; j++) p[j + 2] += p[j + 1];
  for (size_t i = 0; i < P->m; i++)
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) r[p[P->col[k] + 1]++] = i;
  *cp = p;
  *ci = r;
  return ADE_OK;
}

/* Greedy coloring in the given order: each item takes the least color no
 * item sharing a group with it has (forbid: nitem + 1 entries). */
static size_t greedy(const bip *B, const size_t *order, size_t *color, size_t *forbid) {
  size_t nc = 0;
  for (size_t j = 0; j <= B->nitem; j++) forbid[j] = ADE__NONE;
  for (size_t j = 0; j < B->nitem; j++) color[j] = ADE__NONE;
  for (size_t t = 0; t < B->nitem; t++) {
    size_t j = order[t], c = 0;
    for (size_t a = B->gp[j]; a < B->gp[j + 1]; a++)
      for (size_t b = B->ip[B->gi[a]]; b < B->ip[B->gi[a] + 1]; b++)
        if (color[B->ii[b]] != ADE__NONE) forbid[color[B->ii[b]]] = j;
    while (forbid[c] == j) c++;
    color[j] = c;
    nc = ADE__MAX(nc, c + 1);
  }
  return nc;
}

/* Largest-first order: decreasing distance-2 degree (the number of other
 * items sharing a group), ties by index; a stable counting sort. */
static void largest_first(const bip *B, size_t *order, size_t *deg, size_t *mark, size_t *cnt) {
  for (size_t j = 0; j <= B->nitem; j++) mark[j] = ADE__NONE, cnt[j] = 0;
  for (size_t j = 0; j < B->nitem; j++) {
    deg[j] = 0;
    mark[j] = j;
    for (size_t a = B->gp[j]; a < B->gp[j + 1]; a++)
      for (size_t b = B->ip[B->gi[a]]; b < B->ip[B->gi[a] + 1]; b++)
        if (mark[B->ii[b]] != j) mark[B->ii[b]] = j, deg[j]++;
    cnt[B->nitem - 1 - deg[j]]++; /* deg < nitem: key 0 is the largest degree */
  }
  for (size_t d = 0, s = 0; d < B->nitem; d++) {
    size_t c = cnt[d];
    cnt[d] = s;
    s += c;
  }
  for (size_t j = 0; j < B->nitem; j++) order[cnt[B->nitem - 1 - deg[j]]++] = j;
}

static int check_pattern(const ade_sparse *P) {
  if (P->rowptr[0] != 0 || P->rowptr[P->m] != P->nnz)
    return ade__fail(ADE_EINVAL, "the pattern's row pointers do not span its %zu entries", P->nnz);
  for (size_t i = 0; i < P->m; i++) {
    if (P->rowptr[i + 1] < P->rowptr[i] || P->rowptr[i + 1] > P->nnz)
      return ade__fail(ADE_EINVAL, "row pointer %zu of the pattern is out of order", i + 1);
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
      if (P->col[k] >= P->n) return ade__fail(ADE_EINVAL, "pattern entry (%zu, %zu) is outside %zu columns", i, P->col[k], P->n);
  }
  return ADE_OK;
}

int ade_sparse_color(const ade_sparse *P, int mode, int order, size_t *color, size_t *ncolors) {
  size_t *cp = NULL, *ci = NULL, nc = 0;
  if (!P || !color || P->symmetric || (mode != ADE_FORWARD && mode != ADE_REVERSE) || order < ADE_COLOR_NATURAL ||
      order > ADE_COLOR_BEST)
    return ade__fail(ADE_EINVAL, "ade_sparse_color: needs an unsymmetric pattern, a mode and an order");
  int st = check_pattern(P);
  if (!st) st = transpose(P, &cp, &ci);
  if (st) return st;
  bip B = mode == ADE_FORWARD ? (bip){P->n, cp, ci, P->rowptr, P->col} : (bip){P->m, P->rowptr, P->col, cp, ci};
  size_t w = B.nitem + 1, *ord = ade__alloc(w * sizeof *ord), *forbid = ade__alloc(w * sizeof *forbid);
  size_t *alt = ade__alloc(w * sizeof *alt), *deg = ade__alloc(w * sizeof *deg);
  if (!ord || !forbid || !alt || !deg) st = ade__fail(ADE_ENOMEM, "out of memory coloring %zu items", B.nitem);
  for (size_t j = 0; !st && j < B.nitem; j++) ord[j] = j;
  if (!st && order != ADE_COLOR_LARGEST_FIRST) nc = greedy(&B, ord, color, forbid);
  if (!st && order != ADE_COLOR_NATURAL) {
    largest_first(&B, ord, deg, forbid, alt);
    size_t lf = greedy(&B, ord, order == ADE_COLOR_BEST ? alt : color, forbid);
    if (order == ADE_COLOR_BEST && lf < nc) memcpy(color, alt, B.nitem * sizeof *color);
    nc = order == ADE_COLOR_BEST ? ADE__MIN(nc, lf) : lf;
  }
  if (!st && ncolors) *ncolors = nc;
  ade__free(cp);
  ade__free(ci);
  ade__free(ord);
  ade__free(forbid);
  ade__free(alt);
  ade__free(deg);
  return st;
}

/* ----------------------------------------------------- compressed sweeps */

/* Read strip [c0, c0 + w) of the compressed product R back into P. */
static void recover(ade_sparse *P, int mode, const size_t *color, size_t c0, size_t w, const double *R) {
  for (size_t i = 0; i < P->m; i++)
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
      size_t c = color[mode == ADE_FORWARD ? P->col[k] : i];
      if (c < c0 || c >= c0 + w) continue;
      /* Forward: B = J S, J(i, j) = B(i, color j). Reverse: C = J^T W, J(i, j) = C(j, color i). */
      P->val[k] = mode == ADE_FORWARD ? R[i * w + c - c0] : R[P->col[k] * w + c - c0];
    }
}

int ade_jacobian_cpr_values(ade_tape *t, int mode, const double *x, const size_t *color, size_t ncolors,
                            ade_sparse *P) {
  if (!t || !P || !color || (mode != ADE_FORWARD && mode != ADE_REVERSE))
    return ade__fail(ADE_EINVAL, "ade_jacobian_cpr_values: NULL argument or bad mode");
  int st = ade__tape_usable(t), warn = ADE_OK;
  if (!st) st = ade__elem_ready(t);
  if (st) return st;
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t), ns = mode == ADE_FORWARD ? n : m;
  size_t no = mode == ADE_FORWARD ? m : n, b = ade__strip_width(t, mode, x, ADE__MIN((size_t)ADE__CPR_STRIP, ncolors));
  if (P->m != m || P->n != n || P->symmetric)
    return ade__fail(ADE_EINVAL, "the pattern is %zu x %zu, the tape's Jacobian %zu x %zu", P->m, P->n, m, n);
  st = check_pattern(P);
  for (size_t j = 0; !st && j < ns; j++)
    if (color[j] >= ncolors) st = ade__fail(ADE_EINVAL, "color %zu of item %zu is not below %zu", color[j], j, ncolors);
  if (st || !ncolors) return st;
  st = ade__budget(t->memlimit, ade__mul_size(ns + no, b * sizeof(double)), "CPR seeds of %zu x %zu", ns + no, b);
  if (st) return st;
  double *S = ade__alloc(ade__mul_size(ns ? ns : 1, b * sizeof *S)), *R = ade__alloc(ade__mul_size(no ? no : 1, b * sizeof *R));
  if (!S || !R) st = ade__fail(ADE_ENOMEM, "out of memory for %zu compressed directions", b);
  for (size_t c0 = 0; !st && c0 < ncolors; c0 += b) {
    size_t w = ADE__MIN(b, ncolors - c0);
    memset(S, 0, ns * w * sizeof *S);
    for (size_t j = 0; j < ns; j++)
      if (color[j] >= c0 && color[j] < c0 + w) S[j * w + color[j] - c0] = 1.0;
    st = mode == ADE_FORWARD ? ade_tangent_vec(t, w, x, S, NULL, R) : ade_adjoint_vec(t, w, x, S, R);
    if (st == ADE_WBRANCH) warn = st, st = ADE_OK;
    if (!st) recover(P, mode, color, c0, w, R);
  }
  ade__free(S);
  ade__free(R);
  return st ? st : warn;
}

int ade_jacobian_cpr(ade_tape *t, int mode, const double *x, ade_sparse **J, ade_jacobian_report *report) {
  ade_jacobian_report r;
  ade_cgraph *g = NULL;
  ade_sparse *P = NULL;
  size_t *color = NULL, nc = 0;
  double t0 = ade__now();
  memset(&r, 0, sizeof r);
  if (!J || (mode != ADE_FORWARD && mode != ADE_REVERSE))
    return ade__fail(ADE_EINVAL, "ade_jacobian_cpr: NULL result pointer or bad mode %d", mode);
  *J = NULL;
  int st = ade__graph_from_tape(t, &g, &r);
  if (!st) st = ade_cgraph_pattern(g, &P);
  if (!st && !(color = ade__alloc((ADE__MAX(g->n, g->m) + 1) * sizeof *color)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a coloring");
  if (!st) st = ade_sparse_color(P, mode, ADE_COLOR_BEST, color, &nc);
  if (!st) st = ade_jacobian_cpr_values(t, mode, x, color, nc, P);
  if (st >= 0 && P) {
    r.colors = nc;
    r.fma = (uint64_t)nc * g->nedges;
    r.steps = (nc + ADE__CPR_STRIP - 1) / ADE__CPR_STRIP;
    r.vertices_after = g->n + g->m;
    r.edges_after = P->nnz;
    *J = P;
  } else {
    ade_sparse_free(P);
  }
  ade__free(color);
  ade_cgraph_free(g);
  r.seconds = ade__now() - t0;
  if (report) *report = r;
  return st;
}

/* -------------------------------------------------------------- baselines */

/* n^ and m^: the most entries in a row and in a column of P. */
static int max_counts(const ade_sparse *P, size_t *mr, size_t *mc) {
  size_t *cnt = ade__calloc(P->n + 1, sizeof *cnt);
  if (!cnt) return ade__fail(ADE_ENOMEM, "out of memory counting %zu columns", P->n);
  *mr = *mc = 0;
  for (size_t i = 0; i < P->m; i++) {
    *mr = ADE__MAX(*mr, P->rowptr[i + 1] - P->rowptr[i]);
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
      size_t c = ++cnt[P->col[k]];
      *mc = ADE__MAX(*mc, c);
    }
  }
  ade__free(cnt);
  return ADE_OK;
}

static uint64_t min2(uint64_t a, uint64_t b) { return a < b ? a : b; }

int ade_cgraph_baselines(const ade_cgraph *g, ade_jacobian_baselines *b) {
  ade_sparse *P = NULL;
  size_t *color = NULL;
  if (!g || !b || g->dual) return ade__fail(ADE_EINVAL, "ade_cgraph_baselines: needs a c-graph");
  memset(b, 0, sizeof *b);
  b->n = g->n;
  b->m = g->m;
  b->edges = g->nedges;
  for (size_t i = 0; i < g->nv; i++) b->p += g->v[i].alive && g->v[i].kind == ADE__Z;
  int st = ade_cgraph_pattern(g, &P);
  if (!st && !(color = ade__alloc((ADE__MAX(g->n, g->m) + 1) * sizeof *color)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a coloring");
  if (!st) st = ade_sparse_color(P, ADE_FORWARD, ADE_COLOR_BEST, color, &b->col_colors);
  if (!st) st = ade_sparse_color(P, ADE_REVERSE, ADE_COLOR_BEST, color, &b->row_colors);
  if (!st) st = max_counts(P, &b->max_row_nnz, &b->max_col_nnz);
  if (!st) {
    uint64_t n = b->n, m = b->m, p = b->p, E = b->edges;
    b->nnz = P->nnz;
    b->dense_forward = n * E;
    b->dense_reverse = m * E;
    b->cpr_forward = b->col_colors * E;
    b->cpr_reverse = b->row_colors * E;
    b->dm = min2(n * (m + p), m * (n + p));                               /* [DP] Cost_DM */
    b->nr = min2(b->max_row_nnz * (m + p), b->max_col_nnz * (n + p));     /* [DP] Cost_NR */
    b->nr_colors = min2(b->col_colors * (m + p), b->row_colors * (n + p));
  }
  uint8_t *cut = NULL;
  if (!st) st = ade__cut_bounds(g, &cut);
  for (size_t j = 0; !st && j < g->nv; j++) b->cut += g->v[j].alive && g->v[j].kind == ADE__Z ? ade__cut(cut, j) : 0;
  ade__free(cut);
  ade_sparse_free(P);
  ade__free(color);
  return st;
}
