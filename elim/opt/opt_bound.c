/* opt_bound.c: lower bounds on the cost of completing an elimination: minimal Markowitz degrees by max-flow (c-graphs), junction-disjoint path families (duals). */
#include <stdlib.h>

#include "opt_internal.h"

#define ROW(s, r, v) ((s)->r + (size_t)(v) * (s)->W)
#define FOR_BITS(row, W, b)                                                                        \
  for (size_t w_ = 0; w_ < (W); w_++)                                                              \
    for (uint64_t x_ = (row)[w_]; x_ && ((b) = (uint32_t)(w_ * 64 + (size_t)__builtin_ctzll(x_)), 1); \
         x_ &= x_ - 1)
#define NONE ADE__SLOT_NONE

static uint32_t next_stamp(uint32_t *stamp, uint32_t *arr, size_t n) {
  if (++*stamp == 0) {
    memset(arr, 0, n * sizeof *arr);
    *stamp = 1;
  }
  return *stamp;
}

/* Vertex states of the flow network: 2v is v_in, 2v + 1 is v_out. */
static int visit(ade__sg *s, uint32_t st, uint32_t from, size_t *tail) {
  if (s->vis[st] == s->vstamp) return 0;
  s->vis[st] = s->vstamp;
  s->par[st] = from;
  s->queue[(*tail)++] = st;
  return 1;
}

/* Ancestors of j (descendants when rev) into s->anc. */
static void ancestors(ade__sg *s, uint32_t j, int rev) {
  size_t head = 0, tail = 0;
  uint32_t b;
  memset(s->anc, 0, s->W * sizeof *s->anc);
  s->queue[tail++] = j;
  while (head < tail) {
    uint32_t v = s->queue[head++];
    FOR_BITS(rev ? ROW(s, out, v) : ROW(s, in, v), s->W, b) {
      if (ade__bit(s->anc, b)) continue;
      s->anc[b >> 6] |= 1ull << (b & 63);
      s->queue[tail++] = b;
    }
  }
}

/* One augmenting path in the vertex-split network from the sources to j;
 * the end state, or NONE. */
static uint32_t augmenting_path(ade__sg *s, uint32_t j, int rev) {
  size_t head = 0, tail = 0;
  uint32_t b;
  next_stamp(&s->vstamp, s->vis, 2 * s->cap);
  size_t nsrc = rev ? s->m : s->n;
  for (size_t k = 0; k < nsrc; k++) {
    uint32_t x = rev ? s->ys[k] : s->xs[k];
    if (ade__bit(s->anc, x) && !s->thr[x]) visit(s, 2 * x + 1, NONE, &tail);
  }
  while (head < tail) {
    uint32_t st = s->queue[head++], v = st >> 1;
    if (st & 1) { /* v_out: arcs to successors, or back through v */
      FOR_BITS(rev ? ROW(s, in, v) : ROW(s, out, v), s->W, b) {
        if (b == j && s->nxt[v] != j) return st;
        if (b != j && ade__bit(s->anc, b) && s->nxt[v] != b) visit(s, 2 * b, st, &tail);
      }
      if (s->thr[v]) visit(s, 2 * v, st, &tail);
    } else if (!s->thr[v]) {
      visit(s, 2 * v + 1, st, &tail);
    } else if (s->prv[v] != NONE) { /* push back the flow entering v */
      visit(s, 2 * s->prv[v] + 1, st, &tail);
    }
  }
  return NONE;
}

/* Push one unit along the path ending at state end, then into j. */
static void augment(ade__sg *s, uint32_t end, uint32_t j) {
  size_t len = 0;
  for (uint32_t st = end; st != NONE; st = s->par[st]) s->queue[len++] = st;
  s->thr[s->queue[len - 1] >> 1] = 1; /* the source */
  for (size_t k = len - 1; k > 0; k--) {
    uint32_t A = s->queue[k], B = s->queue[k - 1], u = A >> 1, w = B >> 1;
    if ((A & 1) && !(B & 1) && u != w) { /* forward arc u -> w */
      s->nxt[u] = w;
      s->prv[w] = u;
    } else if (!(A & 1) && (B & 1) && u == w) {
      s->thr[w] = 1;
    } else if ((A & 1) && !(B & 1)) { /* back through u */
      s->thr[u] = 0;
    } else { /* cancel the flow w -> u */
      s->nxt[w] = NONE;
      if (s->prv[u] == w) s->prv[u] = NONE;
    }
  }
  s->nxt[end >> 1] = j;
}

/* The most paths from X to j (from j to Y when rev) that share no vertex
 * but j: by Menger's theorem the size of a minimal X-j (j-Y) vertex
 * separator, which may contain independents (dependents). */
static uint32_t separator(ade__sg *s, uint32_t j, int rev) {
  size_t deg = ade__popcount(rev ? ROW(s, out, j) : ROW(s, in, j), s->W), flow = 0;
  uint32_t b;
  if (deg <= 1) return (uint32_t)deg;
  ancestors(s, j, rev);
  FOR_BITS(s->anc, s->W, b) {
    s->thr[b] = 0;
    s->nxt[b] = s->prv[b] = NONE;
  }
  while (flow < deg) {
    uint32_t end = augmenting_path(s, j, rev);
    if (end == NONE) break;
    augment(s, end, j);
    flow++;
  }
  return (uint32_t)flow;
}

/* Sum over the intermediates j of |X-j separator| |j-Y separator|, the
 * minimal Markowitz degrees (face-elimination paper, Section 4, after [28]):
 * every multiplication has one middle vertex, and a multiplication through
 * j serves one pair of an X-j path and a j-Y path from two families of
 * vertex-disjoint paths, so j needs at least their product. */
/* Past the deadline (checked every 32 vertices: a max-flow on thousands of
 * vertices takes a millisecond). */
static int late(const ade__sg *s, uint32_t j) { return (j & 31) == 31 && s->deadline > 0 && ade__now() >= s->deadline; }

static uint64_t markowitz_bound(ade__sg *s, uint64_t limit) {
  uint64_t sum = 0;
  for (uint32_t j = 0; j < s->nv && sum < limit && !late(s, j); j++)
    if (s->alive[j] && s->vk[j] == ADE__Z) sum += (uint64_t)separator(s, j, 0) * separator(s, j, 1);
  return sum;
}

/* Faces. A dual vertex stands for c-graph paths from csrc to ctgt; every
 * X-Y path of the c-graph runs through a chain of dual vertices, whose
 * inner ends are its junctions. A face elimination (a, b) multiplies at
 * c = ctgt(a) = csrc(b) and removes the junction c from the paths through
 * a and b; finishing removes every junction of every path. Give the
 * multiplication the triple (c, csrc(a), ctgt(b)): when it removes c from
 * a path, csrc(a) and ctgt(b) are the path's nearest junctions (or its
 * ends) left of c at that time. Junctions are never added to a path, so
 * these lie among the path's present points, and multiplications with
 * different triples are different. The bounds count triples that must
 * differ.
 *
 * Extends a dual path from v towards X~ (Y~ when fwd) sharing no point
 * (csrc; ctgt when fwd) marked used, and marks its points. */
static int dual_path(ade__sg *s, uint32_t u, int fwd, uint32_t used) {
  const uint32_t *pt = fwd ? s->ctgt : s->csrc;
  uint32_t b;
  size_t head = 0, tail = 0;
  next_stamp(&s->vstamp, s->vis, 2 * s->cap);
  if (s->jmark[pt[u]] == used) return 0;
  s->queue[tail++] = u;
  s->vis[u] = s->vstamp;
  s->par[u] = NONE;
  while (head < tail) { /* breadth first: short paths leave room for others */
    uint32_t v = s->queue[head++], end = 0;
    FOR_BITS(fwd ? ROW(s, out, v) : ROW(s, in, v), s->W, b) {
      if (s->vk[b] != ADE__Z) end = 1;
      else if (s->vis[b] != s->vstamp && s->jmark[pt[b]] != used) {
        s->vis[b] = s->vstamp;
        s->par[b] = v;
        s->queue[tail++] = b;
      }
    }
    if (!end) continue;
    for (uint32_t x = v; x != NONE; x = s->par[x]) s->jmark[pt[x]] = used;
    return 1;
  }
  return 0;
}

/* Does v have a neighbour of kind Z~ (z) or not (!z), after it (out) or before? */
static int has(const ade__sg *s, uint32_t v, int out, int z) {
  uint32_t b;
  FOR_BITS(out ? ROW(s, out, v) : ROW(s, in, v), s->W, b) if ((s->vk[b] == ADE__Z) == z) return 1;
  return 0;
}

/* A new mark for points, with the points of forbid (a set of junction
 * points, when there are at most 64) already marked. */
static uint32_t new_mark(ade__sg *s, uint64_t forbid) {
  uint32_t used = next_stamp(&s->jstamp, s->jmark, s->njunc + 1);
  for (; forbid; forbid &= forbid - 1) s->jmark[__builtin_ctzll(forbid)] = used;
  return used;
}

static uint64_t marked(const ade__sg *s, uint32_t used) {
  uint64_t set = 0;
  for (size_t p = 0; p < s->njunc && p < 64; p++)
    if (s->jmark[p] == used) set |= 1ull << p;
  return set;
}

/* A family of dual paths towards X~ (Y~ when fwd) sharing no point, one
 * from each intermediate of cand that gets one, those next to X~ (Y~)
 * first (grown greedily: any such family gives a valid bound). Members in
 * list or in the bitset row; their number. */
static uint32_t grow(ade__sg *s, const uint64_t *cand, int fwd, uint32_t used, uint32_t *list, uint64_t *row) {
  uint32_t k = 0, v;
  for (int pass = 0; pass < 2; pass++)
    FOR_BITS(cand, s->W, v) {
      if (s->vk[v] != ADE__Z || has(s, v, fwd, 0) != !pass || !dual_path(s, v, fwd, used)) continue;
      if (list) list[k] = v;
      if (row) row[v >> 6] |= 1ull << (v & 63);
      k++;
    }
  return k;
}

/* The vertices with a face at junction c: ending there (fwd = 0) or
 * starting there, into row. */
static void at_junction(ade__sg *s, uint32_t c, int fwd, uint64_t *row) {
  const uint32_t *at = fwd ? s->csrc : s->ctgt;
  memset(row, 0, s->W * sizeof *row);
  for (uint32_t v = 0; v < s->nv; v++)
    if (s->alive[v] && s->vk[v] == ADE__Z && at[v] == c && has(s, v, !fwd, 1)) row[v >> 6] |= 1ull << (v & 63);
}

/* Junction c: a family of paths from X~ to the vertices ending at c and
 * one from the vertices starting at c to Y~, the first avoiding the points
 * fl, the second fr. A face joining members of the two closes an X-Y path;
 * the multiplication removing c from it has a left point on its first
 * member and a right point on its second, so pairs need different ones. */
static uint64_t junction_bound(ade__sg *s, uint32_t c, uint64_t fl, uint64_t fr) {
  uint64_t *cand = s->rowtmp, *right = s->rowtmp + s->W, pairs = 0;
  at_junction(s, c, 0, cand);
  uint32_t na = grow(s, cand, 0, new_mark(s, fl), s->order, NULL);
  if (!na) return 0;
  at_junction(s, c, 1, cand);
  memset(right, 0, s->W * sizeof *right);
  grow(s, cand, 1, new_mark(s, fr), NULL, right);
  for (uint32_t k = 0; k < na; k++) {
    const uint64_t *o = ROW(s, out, s->order[k]);
    for (size_t x = 0; x < s->W; x++) pairs += (uint64_t)__builtin_popcountll(o[x] & right[x]);
  }
  return pairs;
}

/* A chain: a vertex m from junction c to junction d with faces on both
 * sides, a families of paths from X~ into P_m sharing no point and b from
 * S_m to Y~. Each of the a b paths through m loses c and d, one first. If
 * c goes first, its triple is (c, l, d), l on the path's first member; else
 * (c, l, r), r on its second, past d; at d, (d, c, r) if d goes first, else
 * (d, l, r) with l before c. So the c-triples take one per row (first member) that
 * ever goes c-first plus one per pair going d-first, the d-triples one per
 * column going d-first plus one per pair going c-first: a b + rows + cols,
 * and a row that never goes c-first puts every column in, so at least
 * a b + min(a, b) (the bracketing of (a x 1)(1 x 1)(1 x b)). The chain's
 * triples at c have l in A (its first members' points) and r in {d} + B;
 * at d, l in {c} + A and r in B. Into *L, *R. */
static uint64_t chain_bound(ade__sg *s, uint32_t m, uint64_t *L, uint64_t *R) {
  uint32_t ua = new_mark(s, 0), a = grow(s, ROW(s, in, m), 0, ua, NULL, NULL);
  *L = marked(s, ua);
  uint32_t ub = new_mark(s, 0), b = grow(s, ROW(s, out, m), 1, ub, NULL, NULL);
  *R = marked(s, ub);
  return (uint64_t)a * b + (a < b ? a : b);
}

/* Claims at a junction: sets of triples whose left points lie in L and
 * right points in R. A new one is disjoint from those taken if its L misses
 * all their left points or its R all their right points. */
static int fits(const uint64_t *claim, uint64_t L, uint64_t R) {
  return !(L & claim[0]) || !(R & claim[1]);
}

static void take(uint64_t *claim, uint64_t L, uint64_t R) {
  claim[0] |= L;
  claim[1] |= R;
}

static int cmp_desc(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a < b) - (a > b);
}

/* The chains (largest first) whose triples are disjoint from those taken,
 * then at each junction with a chain the pairs of families avoiding the
 * chains' left points or their right points. Needs at most 64 junction
 * points (sets are words). */
static uint64_t chains_bound(ade__sg *s, const uint64_t *base) {
  uint64_t *key = s->color, *Ls = key + s->cap, *Rs = Ls + s->cap, *claim = s->jset, sum = 0;
  size_t nc = 0;
  memset(claim, 0, 2 * s->njunc * sizeof *claim);
  for (uint32_t m = 0; m < s->nv; m++)
    if (s->alive[m] && s->vk[m] == ADE__Z && has(s, m, 0, 1) && has(s, m, 1, 1)) {
      uint64_t v = chain_bound(s, m, &Ls[m], &Rs[m]);
      if (v) key[nc++] = v << 32 | m;
    }
  qsort(key, nc, sizeof *key, cmp_desc);
  for (size_t k = 0; k < nc; k++) {
    uint32_t m = (uint32_t)key[k], c = s->csrc[m], d = s->ctgt[m];
    uint64_t L = Ls[m], R = Rs[m], cb = 1ull << c, db = 1ull << d;
    if (!fits(claim + 2 * c, L, R | db) || !fits(claim + 2 * d, L | cb, R)) continue;
    take(claim + 2 * c, L, R | db);
    take(claim + 2 * d, L | cb, R);
    sum += key[k] >> 32;
  }
  for (uint32_t c = 0; c < s->njunc; c++) {
    const uint64_t *cl = claim + 2 * c;
    if (!cl[0] && !cl[1]) {
      sum += base[c];
      continue;
    }
    uint64_t x = junction_bound(s, c, cl[0], 0), y = junction_bound(s, c, 0, cl[1]);
    sum += x > y ? x : y;
  }
  return sum;
}

/* The larger of two sums of claims: the families at each junction alone,
 * and (up to 64 junction points) chains first. */
static uint64_t face_bound(ade__sg *s, uint64_t limit) {
  uint64_t sum = 0, *base = s->jset + 2 * s->njunc;
  int stop = 0;
  for (uint32_t c = 0; c < s->njunc; c++) {
    int any = 0;
    stop |= late(s, c);
    for (uint32_t u = 0; u < s->nv && !any && !stop; u++) any = s->alive[u] && s->vk[u] == ADE__Z && s->ctgt[u] == c;
    uint64_t b = any && sum < limit ? junction_bound(s, c, 0, 0) : 0;
    sum += base[c] = b;
  }
  if (sum >= limit || s->njunc > 64 || stop) return sum;
  uint64_t ch = chains_bound(s, base);
  return ch > sum ? ch : sum;
}

uint64_t ade__sg_lower(ade__sg *s, uint64_t limit) {
  return s->kind == ADE_SEQ_FACE ? face_bound(s, limit) : markowitz_bound(s, limit);
}
