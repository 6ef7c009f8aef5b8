/* color.c: star coloring of a symmetric pattern (Gebremedhin, Manne, Pothen 2005, Algorithm 4.1) and direct recovery of a Hessian from H S. */
#include "hessian_internal.h"
#include "u64map_internal.h"

/* The adjacency graph of symmetric P (lower triangle): both directions of
 * every off-diagonal entry, ptr[n + 1], adj[ptr[n]]. */
int ade__sym_adjacency(const ade_sparse *P, size_t **ptr, size_t **adj) {
  size_t n = P->n, *p = ade__calloc(n + 2, sizeof *p), *a = ade__alloc(ade__mul_size(2 * P->nnz + 1, sizeof *a));
  if (!p || !a) {
    ade__free(p);
    ade__free(a);
    return ade__fail(ADE_ENOMEM, "out of memory for the graph of a pattern with %zu entries", P->nnz);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
      if (P->col[k] != i) p[i + 2]++, p[P->col[k] + 2]++;
  for (size_t i = 0; i < n; i++) p[i + 2] += p[i + 1];
  for (size_t i = 0; i < n; i++)
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
      if (P->col[k] != i) a[p[i + 1]++] = P->col[k], a[p[P->col[k] + 1]++] = i;
  *ptr = p;
  *adj = a;
  return ADE_OK;
}

/* Algorithm 4.1 of [GMP05] in the given order: vertex v may not take the
 * color of a neighbor w, nor of a neighbor x of w when w is uncolored
 * (so that two vertices at distance two through a vertex still uncolored
 * differ), nor of such an x when w is colored and x has another neighbor
 * y of w's color (v-w-x-y would be a two-colored path on four vertices).
 * That last test reads cnt(x, c), the colored neighbors of x with color c
 * (a hash map kept as vertices are colored), in O(1) instead of a scan of
 * x's neighbors. color: SIZE_MAX = uncolored; forbid: n + 1 entries. */
static int star_greedy(size_t n, const size_t *ptr, const size_t *adj, const size_t *order, size_t *color,
                       size_t *forbid, size_t *ncolors) {
  ade__u64map cnt = {NULL, NULL, 0, 0};
  size_t nc = 0;
  int st = ADE_OK;
  for (size_t j = 0; j <= n; j++) forbid[j] = SIZE_MAX;
  for (size_t j = 0; j < n; j++) color[j] = SIZE_MAX;
  for (size_t t = 0; t < n && !st; t++) {
    size_t v = order[t], c = 0;
    for (size_t a = ptr[v]; a < ptr[v + 1]; a++) /* distance one first: their x are skipped below */
      if (color[adj[a]] != SIZE_MAX) forbid[color[adj[a]]] = v;
    for (size_t a = ptr[v]; a < ptr[v + 1]; a++) {
      size_t w = adj[a];
      for (size_t b = ptr[w]; b < ptr[w + 1]; b++) {
        size_t x = adj[b];
        if (x == v || color[x] == SIZE_MAX || forbid[color[x]] == v) continue;
        const uint64_t *k = color[w] == SIZE_MAX ? NULL : ade__u64map_find(&cnt, (uint64_t)x * (n + 1) + color[w]);
        if (color[w] == SIZE_MAX || (k && *k >= 2)) forbid[color[x]] = v;
      }
    }
    while (forbid[c] == v) c++;
    color[v] = c;
    nc = ADE__MAX(nc, c + 1);
    for (size_t a = ptr[v]; a < ptr[v + 1] && !st; a++) {
      int isnew;
      uint64_t *k = ade__u64map_put(&cnt, (uint64_t)adj[a] * (n + 1) + c, 0, &isnew);
      if (k) ++*k;
      else st = ade__fail(ADE_ENOMEM, "out of memory star coloring %zu vertices", n);
    }
  }
  ade__u64map_free(&cnt);
  *ncolors = nc;
  return st;
}

/* Largest-first: decreasing degree, ties by index (a stable counting sort). */
static void by_degree(size_t n, const size_t *ptr, size_t *order, size_t *cnt) {
  memset(cnt, 0, (n + 1) * sizeof *cnt);
  for (size_t j = 0; j < n; j++) cnt[n - 1 - (ptr[j + 1] - ptr[j])]++; /* degree < n */
  for (size_t d = 0, s = 0; d < n; d++) {
    size_t c = cnt[d];
    cnt[d] = s;
    s += c;
  }
  for (size_t j = 0; j < n; j++) order[cnt[n - 1 - (ptr[j + 1] - ptr[j])]++] = j;
}

static size_t diag_entries(const ade_sparse *P) {
  size_t k = 0;
  for (size_t i = 0; i < P->n; i++) k += P->rowptr[i + 1] > P->rowptr[i] && P->col[P->rowptr[i + 1] - 1] == i;
  return k;
}

static int check_sym(const ade_sparse *P) {
  if (!P->symmetric || P->m != P->n || P->rowptr[0] != 0 || P->rowptr[P->n] != P->nnz)
    return ade__fail(ADE_EINVAL, "ade_sparse_star_color: needs a square symmetric pattern (lower triangle CSR)");
  for (size_t i = 0; i < P->n; i++) {
    if (P->rowptr[i + 1] < P->rowptr[i] || P->rowptr[i + 1] > P->nnz)
      return ade__fail(ADE_EINVAL, "row pointer %zu of the pattern is out of order", i + 1);
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
      if (P->col[k] > i) return ade__fail(ADE_EINVAL, "pattern entry (%zu, %zu) is above the diagonal", i, P->col[k]);
      if (k > P->rowptr[i] && P->col[k] <= P->col[k - 1])
        return ade__fail(ADE_EINVAL, "row %zu of the pattern is not strictly ascending", i);
    }
  }
  return ADE_OK;
}

int ade_sparse_star_color(const ade_sparse *P, int order, size_t *color, size_t *ncolors) {
  size_t *ptr = NULL, *adj = NULL, nc = 0;
  if (!P || !color || order < ADE_COLOR_NATURAL || order > ADE_COLOR_BEST)
    return ade__fail(ADE_EINVAL, "ade_sparse_star_color: NULL argument or unknown order %d", order);
  int st = check_sym(P);
  if (!st) st = ade__sym_adjacency(P, &ptr, &adj);
  if (st) return st;
  size_t n = P->n, w = n + 1, *ord = ade__alloc(w * sizeof *ord), *forbid = ade__alloc(w * sizeof *forbid);
  size_t *alt = ade__alloc(w * sizeof *alt);
  if (!ord || !forbid || !alt) st = ade__fail(ADE_ENOMEM, "out of memory star coloring %zu vertices", n);
  for (size_t j = 0; !st && j < n; j++) ord[j] = j;
  if (!st && P->nnz - diag_entries(P) == n * (n - 1) / 2) { /* complete: n colors, the only star coloring */
    memcpy(color, ord, n * sizeof *color);
    nc = n;
    order = -1;
  }
  if (!st && order != ADE_COLOR_LARGEST_FIRST && order >= 0) st = star_greedy(n, ptr, adj, ord, color, forbid, &nc);
  if (!st && order != ADE_COLOR_NATURAL && order >= 0) {
    size_t lf = 0;
    by_degree(n, ptr, ord, forbid);
    st = star_greedy(n, ptr, adj, ord, order == ADE_COLOR_BEST ? alt : color, forbid, &lf);
    if (order == ADE_COLOR_BEST && lf < nc) memcpy(color, alt, n * sizeof *color);
    nc = order == ADE_COLOR_BEST ? ADE__MIN(nc, lf) : lf;
  }
  if (!st && ncolors) *ncolors = nc;
  ade__free(ptr);
  ade__free(adj);
  ade__free(ord);
  ade__free(forbid);
  ade__free(alt);
  return st;
}

/* cnt[c] = how many neighbors of v have color c (+1 where add is 1, -1 to undo). */
static void tally(const size_t *ptr, const size_t *adj, const size_t *color, size_t v, size_t *cnt, int add) {
  for (size_t a = ptr[v]; a < ptr[v + 1]; a++) cnt[color[adj[a]]] += add > 0 ? 1 : (size_t)-1;
}

/* Direct recovery [GMP05, Section 4.3]: with B = H S (S(j, color j) = 1),
 * H(i, i) = B(i, color i) and an off-diagonal H(i, j) = B(i, color j) when
 * j is i's only neighbor of its color, else B(j, color i), which a star
 * coloring guarantees: in the two-colored star holding edge ij, one end is
 * a leaf whose only neighbor of the hub's color is the hub. src[k] = the
 * place i * nc + c in B of P's entry k. Rows first, then the entries left
 * by their column, so each vertex's neighbors are tallied at most twice. */
int ade__star_recovery(const ade_sparse *P, const size_t *color, size_t nc, size_t *src) {
  size_t *ptr = NULL, *adj = NULL, n = P->n, nd = 0;
  int st = ade__sym_adjacency(P, &ptr, &adj);
  if (st) return st;
  size_t *cnt = ade__calloc(nc + 1, sizeof *cnt), *defer = ade__alloc((P->nnz + 1) * sizeof *defer);
  size_t *bp = ade__calloc(n + 2, sizeof *bp), *bk = ade__alloc((P->nnz + 1) * sizeof *bk);
  if (!cnt || !defer || !bp || !bk) st = ade__fail(ADE_ENOMEM, "out of memory for the recovery of %zu entries", P->nnz);
  for (size_t j = 0; !st && j < n; j++)
    if (color[j] >= nc) st = ade__fail(ADE_EINVAL, "color %zu of vertex %zu is not below %zu", color[j], j, nc);
  for (size_t i = 0; !st && i < n; i++) {
    tally(ptr, adj, color, i, cnt, 1);
    for (size_t k = P->rowptr[i]; k < P->rowptr[i + 1] && !st; k++) {
      size_t j = P->col[k];
      if (cnt[color[j]] == (i != j)) src[k] = i * nc + color[j];
      else if (i == j || color[i] == color[j])
        st = ade__fail(ADE_EINVAL, "not a distance-1 coloring: vertex %zu has a neighbor of its color %zu", i, color[i]);
      else defer[nd++] = k, bp[j + 2]++;
    }
    tally(ptr, adj, color, i, cnt, -1);
  }
  /* The deferred entries by column (a counting sort); their rows by search. */
  for (size_t j = 0; !st && j < n; j++) bp[j + 2] += bp[j + 1];
  for (size_t q = 0; !st && q < nd; q++) bk[bp[P->col[defer[q]] + 1]++] = defer[q];
  for (size_t j = 0; !st && j < n; j++) {
    if (bp[j] == bp[j + 1]) continue;
    tally(ptr, adj, color, j, cnt, 1);
    for (size_t q = bp[j]; q < bp[j + 1] && !st; q++) {
      size_t k = bk[q], lo = 0, hi = n; /* the row i holding entry k */
      while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (P->rowptr[mid] <= k) lo = mid;
        else hi = mid;
      }
      if (cnt[color[lo]] == 1) src[k] = j * nc + color[lo];
      else st = ade__fail(ADE_EINVAL, "not a star coloring: entry (%zu, %zu) cannot be read directly", lo, j);
    }
    tally(ptr, adj, color, j, cnt, -1);
  }
  ade__free(cnt);
  ade__free(defer);
  ade__free(bp);
  ade__free(bk);
  ade__free(ptr);
  ade__free(adj);
  return st;
}
