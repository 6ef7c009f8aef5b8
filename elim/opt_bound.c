/* opt_bound.c: lower bounds on the cost of completing an elimination: minimal Markowitz degrees by max-flow (c-graphs), junction-disjoint path families (duals). */
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
static uint64_t markowitz_bound(ade__sg *s, uint64_t limit) {
  uint64_t sum = 0;
  for (uint32_t j = 0; j < s->nv && sum < limit; j++)
    if (s->alive[j] && s->vk[j] == ADE__Z) sum += (uint64_t)separator(s, j, 0) * separator(s, j, 1);
  return sum;
}

/* Faces. A dual vertex stands for c-graph paths from csrc to ctgt; a face
 * elimination multiplies at the junction ctgt(a) = csrc(b). A family of dual
 * paths from X~ to the faces at junction c that share no junction point
 * (csrc of their vertices), and a family from there to Y~ sharing no ctgt,
 * need one multiplication at c per pair joined by a face: a future vertex
 * ending at c starts at one junction point, so it serves one path of each
 * family. The families are grown greedily (any such families give a valid
 * bound). Extends the path from v towards X~ (towards Y~ when fwd). */
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

/* Does v have a face at its end (fwd: a Z~ successor) and a neighbour in
 * X~ (Y~ when fwd) on the other side? */
static int has(const ade__sg *s, uint32_t v, int out, int z) {
  uint32_t b;
  FOR_BITS(out ? ROW(s, out, v) : ROW(s, in, v), s->W, b) if ((s->vk[b] == ADE__Z) == z) return 1;
  return 0;
}

/* One family for junction c: in-vertices (fwd = 0) or out-vertices, those
 * next to X~ (Y~) first. Returns how many got a path; members in list or
 * in the bitset row. */
static uint32_t family(ade__sg *s, uint32_t c, int fwd, uint32_t *list, uint64_t *row) {
  uint32_t used = next_stamp(&s->jstamp, s->jmark, s->njunc + 1), k = 0;
  const uint32_t *at = fwd ? s->csrc : s->ctgt;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t v = 0; v < s->nv; v++) {
      if (!s->alive[v] || s->vk[v] != ADE__Z || at[v] != c || !has(s, v, !fwd, 1)) continue;
      if (has(s, v, fwd, 0) != !pass || !dual_path(s, v, fwd, used)) continue;
      if (list) list[k] = v;
      if (row) row[v >> 6] |= 1ull << (v & 63);
      k++;
    }
  return k;
}

static uint64_t junction_bound(ade__sg *s, uint32_t c) {
  uint32_t na = family(s, c, 0, s->order, NULL);
  if (!na) return 0;
  memset(s->rowtmp, 0, s->W * sizeof *s->rowtmp);
  family(s, c, 1, NULL, s->rowtmp);
  uint64_t pairs = 0;
  for (uint32_t k = 0; k < na; k++) {
    const uint64_t *o = ROW(s, out, s->order[k]);
    for (size_t x = 0; x < s->W; x++) pairs += (uint64_t)__builtin_popcountll(o[x] & s->rowtmp[x]);
  }
  return pairs;
}

static uint64_t face_bound(ade__sg *s, uint64_t limit) {
  uint64_t sum = 0;
  for (uint32_t c = 0; c < s->njunc && sum < limit; c++) {
    int any = 0;
    for (uint32_t u = 0; u < s->nv && !any; u++) any = s->alive[u] && s->vk[u] == ADE__Z && s->ctgt[u] == c;
    if (any) sum += junction_bound(s, c);
  }
  return sum;
}

uint64_t ade__sg_lower(ade__sg *s, uint64_t limit) {
  return s->kind == ADE_SEQ_FACE ? face_bound(s, limit) : markowitz_bound(s, limit);
}
