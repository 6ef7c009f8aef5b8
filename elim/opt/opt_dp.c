/* opt_dp.c: dynamic programming over the tangent and adjoint chains of extended Jacobians on BFF/BFR quotient graphs (DP paper), and dense Jacobian chain bracketing. */
#include <stdio.h>

#include "opt_internal.h"

/* Chains longer than this are refused (the cost table grows as L^3/6). */
#define MAX_FACTORS 400u

/* The c-graph as the chain sees it. Tangent chains (DP paper, equation
 * (7)) run on G; adjoint chains (8) on G reversed, so that both are
 * products B_L ... B_1 of supernode factors whose rows are the
 * non-source vertices. The product of factors B_b ... B_a holds for each
 * row r the pattern N(r, a): the vertices outside the range (sources, or
 * below position a) that reach r through vertices inside it. */
typedef struct chain {
  const ade_cgraph *g;
  int adjoint;
  size_t nv, W;
  size_t *pi, *pl;      /* predecessors in the chain's direction (CSR) */
  uint8_t *role;        /* 0: source (never a row), 1: intermediate, 2: sink (a row never dropped) */
  uint32_t *pos;        /* factor 1..L of the rows */
  uint32_t *end;        /* rows: the factor after the last successor (L + 1 for sinks) */
  uint32_t *ord;        /* rows in chain order */
  size_t nrows, L;
  uint64_t *bits;       /* N(., a) for one a: nv x W */
  uint32_t *cnt;        /* |N(c, a)|: nv x (L + 1), a row per vertex */
  uint64_t *cost;       /* cost(a, k, b), packed */
  size_t *off;          /* (L + 1) x (L + 1): start of (a, k) in cost */
  uint64_t *m;          /* m(a, b): (L + 1) x (L + 1) */
  uint32_t *split;
} chain;

#define NB(c, v) ((c)->bits + (size_t)(v) * (c)->W)

/* Longest paths from the sources (fwd) or to the sinks, in topological order. */
static void longest(const ade_cgraph *g, const size_t *topo, size_t n, uint32_t *lp, int fwd) {
  for (size_t t = 0; t < n; t++) {
    size_t v = topo[fwd ? t : n - 1 - t];
    const ade__vtx *x = &g->v[v];
    lp[v] = 0;
    size_t k = fwd ? x->nin : x->nout;
    for (size_t i = 0; i < k; i++) {
      size_t u = fwd ? g->e[x->in[i]].src : g->e[x->out[i]].dst;
      if (lp[u] + 1 > lp[v]) lp[v] = lp[u] + 1;
    }
  }
}

static int topo_order(const ade_cgraph *g, size_t *topo, size_t *n) {
  size_t *deg = ade__alloc((g->nv + 1) * sizeof *deg), head = 0, tail = 0;
  if (!deg) return ade__fail(ADE_ENOMEM, "out of memory for a topological order");
  for (size_t i = 0; i < g->nv; i++)
    if (g->v[i].alive && !(deg[i] = g->v[i].nin)) topo[tail++] = i;
  while (head < tail) {
    const ade__vtx *v = &g->v[topo[head++]];
    for (size_t k = 0; k < v->nout; k++)
      if (!--deg[g->e[v->out[k]].dst]) topo[tail++] = g->e[v->out[k]].dst;
  }
  ade__free(deg);
  *n = tail;
  return ADE_OK;
}

/* Positions: BFF numbers a vertex by its longest path from X, BFR by the
 * longest path minus its longest path to Y; both are consistent numberings
 * whose level sets are supernodes of mutually unreachable vertices
 * (Definition 2.4), and the number of levels is minimal (Theorem 2.1). The
 * adjoint chain runs on G reversed, where positions count from the end. */
static int positions(chain *c, int bfr, const size_t *topo, size_t n) {
  const ade_cgraph *g = c->g;
  uint32_t *lx = ade__calloc(g->nv + 1, sizeof *lx), *ly = ade__calloc(g->nv + 1, sizeof *ly), Lmax = 0;
  uint8_t *used = NULL;
  if (!lx || !ly) goto nomem;
  longest(g, topo, n, lx, 1);
  longest(g, topo, n, ly, 0);
  for (size_t t = 0; t < n; t++) Lmax = lx[topo[t]] > Lmax ? lx[topo[t]] : Lmax;
  used = ade__calloc(Lmax + 2, 1);
  if (!used) goto nomem;
  for (size_t t = 0; t < n; t++) {
    size_t v = topo[t];
    uint32_t p = bfr ? Lmax - ly[v] : lx[v];
    c->pos[v] = c->adjoint ? Lmax - p : p;
    int kind = g->v[v].kind;
    c->role[v] = kind == ADE__Z ? 1 : (kind == ADE__X) == !c->adjoint ? 0 : 2;
    if (c->role[v]) used[c->pos[v]] = 1;
  }
  uint32_t *rank = lx; /* compress to the occupied positions 1..L */
  c->L = 0;
  for (uint32_t p = 0; p <= Lmax; p++) rank[p] = used[p] ? (uint32_t)++c->L : 0;
  for (size_t t = 0; t < n; t++) c->pos[topo[t]] = c->role[topo[t]] ? rank[c->pos[topo[t]]] : 0;
  ade__free(lx);
  ade__free(ly);
  ade__free(used);
  return ADE_OK;
nomem:
  ade__free(lx);
  ade__free(ly);
  return ade__fail(ADE_ENOMEM, "out of memory for chain positions");
}

/* Predecessor lists in the chain's direction, rows in chain order, and
 * when each row dies: after its last successor's factor (Rule 2: an
 * intermediate without successors is removed). */
static int build(chain *c, const size_t *topo, size_t n) {
  const ade_cgraph *g = c->g;
  size_t ne = 0;
  c->pi = ade__alloc((g->nv + 2) * sizeof *c->pi);
  c->pl = ade__alloc((g->nedges + 1) * sizeof *c->pl);
  if (!c->pi || !c->pl) return ade__fail(ADE_ENOMEM, "out of memory for a chain");
  for (size_t v = 0; v < g->nv; v++) {
    const ade__vtx *x = &g->v[v];
    c->pi[v] = ne;
    size_t k = x->alive ? (c->adjoint ? x->nout : x->nin) : 0;
    for (size_t i = 0; i < k; i++) c->pl[ne++] = c->adjoint ? g->e[x->out[i]].dst : g->e[x->in[i]].src;
  }
  c->pi[g->nv] = ne;
  for (size_t t = 0; t < n; t++) {
    size_t v = topo[c->adjoint ? t : n - 1 - t];
    c->end[v] = c->role[v] == 2 ? (uint32_t)c->L + 1 : 0;
  }
  for (size_t v = 0; v < g->nv; v++)
    for (size_t i = c->pi[v]; i < c->pi[v + 1]; i++)
      if (c->pos[v] > c->end[c->pl[i]] && c->role[c->pl[i]] == 1) c->end[c->pl[i]] = c->pos[v];
  c->nrows = 0;
  for (uint32_t p = 1; p <= c->L; p++) /* rows by factor (positions are consistent) */
    for (size_t t = 0; t < n; t++)
      if (c->role[topo[t]] && c->pos[topo[t]] == p) c->ord[c->nrows++] = (uint32_t)topo[t];
  return ADE_OK;
}

/* N(r, a) for the rows r at factors a..L (rows in chain order). */
static void patterns(chain *c, uint32_t a) {
  for (size_t t = 0; t < c->nrows; t++) {
    uint32_t r = c->ord[t];
    if (c->pos[r] < a) continue;
    uint64_t *b = NB(c, r);
    memset(b, 0, c->W * sizeof *b);
    for (size_t i = c->pi[r]; i < c->pi[r + 1]; i++) {
      size_t p = c->pl[i];
      if (!c->role[p] || c->pos[p] < a) b[p >> 6] |= 1ull << (p & 63);
      else
        for (size_t w = 0; w < c->W; w++) b[w] |= NB(c, p)[w];
    }
  }
}

#define M(c, a, b) ((c)->m[(size_t)(a) * ((c)->L + 1) + (b)])
#define OFF(c, a, k) ((c)->off[(size_t)(a) * ((c)->L + 1) + (k)])

/* cost(a, k, b) of B[b..k+1] B[k..a]: for every live row r of the left
 * product and every intermediate c of the right one in its pattern N(r,
 * k+1), |N(c, a)| multiplications; i.e. back (front) eliminations of the
 * edges (c, r), each costing the current |P_c| (|S_c|). */
static int costs(chain *c) {
  size_t L = c->L, tot = 0;
  for (size_t a = 1; a <= L; a++)
    for (size_t k = a; k <= L; k++) OFF(c, a, k) = tot, tot += L - k;
  c->cost = ade__calloc(tot + 1, sizeof *c->cost);
  /* D[b (L + 1) + a2]: row r's weight for (a2, b) enters at b = pos r and
   * leaves at its end; w: one row's weights by a2 (then the running sums). */
  uint64_t *D = ade__alloc((L + 2) * (L + 1) * sizeof *D), *w = ade__alloc((L + 1) * sizeof *w);
  int st = c->cost && D && w ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for %zu chain costs", tot);
  for (uint32_t a = 1; !st && a <= L; a++) {
    patterns(c, a);
    for (size_t t = 0; t < c->nrows; t++) {
      uint32_t r = c->ord[t];
      if (c->pos[r] >= a) c->cnt[(size_t)r * (L + 1) + a] = (uint32_t)ade__popcount(NB(c, r), c->W);
    }
    size_t k = a - 1;
    if (!k) continue;
    memset(D, 0, (L + 2) * (L + 1) * sizeof *D);
    for (size_t t = 0; t < c->nrows; t++) {
      uint32_t r = c->ord[t], x;
      if (c->pos[r] < a || c->end[r] <= c->pos[r]) continue;
      memset(w, 0, (k + 1) * sizeof *w); /* x in N(r, a) lies below a: pos x <= k */
      for (size_t q = 0; q < c->W; q++)
        for (uint64_t bits = NB(c, r)[q]; bits && (x = (uint32_t)(q * 64 + (size_t)__builtin_ctzll(bits)), 1); bits &= bits - 1)
          if (c->role[x] == 1) {
            const uint32_t *cx = c->cnt + (size_t)x * (L + 1);
            for (size_t a2 = 1, top = c->pos[x] < k ? c->pos[x] : k; a2 <= top; a2++) w[a2] += cx[a2];
          }
      uint32_t e = c->end[r] > L + 1 ? (uint32_t)L + 1 : c->end[r];
      uint64_t *in = D + (size_t)c->pos[r] * (L + 1), *out = D + (size_t)e * (L + 1);
      for (size_t a2 = 1; a2 <= k; a2++) in[a2] += w[a2], out[a2] -= w[a2]; /* r counts for b in [pos r, end r) */
    }
    memset(w, 0, (k + 1) * sizeof *w);
    for (size_t b = k + 1; b <= L; b++)
      for (size_t a2 = 1; a2 <= k; a2++) {
        w[a2] += D[b * (L + 1) + a2];
        c->cost[OFF(c, a2, k) + (b - k - 1)] = w[a2];
      }
  }
  ade__free(D);
  ade__free(w);
  return st;
}

/* m(a, b) = min over k of m(a, k) + m(k+1, b) + cost(a, k, b) (DP paper,
 * Section 2.3), by increasing length. */
static void solve(chain *c) {
  size_t L = c->L;
  for (size_t len = 1; len < L; len++)
    for (size_t a = 1; a + len <= L; a++) {
      size_t b = a + len;
      uint64_t best = UINT64_MAX;
      for (size_t k = a; k < b; k++) {
        uint64_t v = M(c, a, k) + M(c, k + 1, b) + c->cost[OFF(c, a, k) + (b - k - 1)];
        if (v < best) best = v, c->split[a * (L + 1) + b] = (uint32_t)k;
      }
      M(c, a, b) = best;
    }
}

/* The elimination sequence of the bracketing: the two halves, then the
 * edges between them. */
static int emit(chain *c, uint32_t a, uint32_t b, ade_elim_seq *s) {
  if (a >= b) return ADE_OK;
  uint32_t k = c->split[(size_t)a * (c->L + 1) + b], x;
  int st = emit(c, a, k, s);
  if (!st) st = emit(c, k + 1, b, s);
  if (st) return st;
  patterns(c, k + 1);
  for (size_t t = 0; !st && t < c->nrows; t++) {
    uint32_t r = c->ord[t];
    if (c->pos[r] <= k || c->pos[r] > b || c->end[r] <= b) continue;
    for (size_t q = 0; q < c->W; q++)
      for (uint64_t bits = NB(c, r)[q]; !st && bits && (x = (uint32_t)(q * 64 + (size_t)__builtin_ctzll(bits)), 1);
           bits &= bits - 1) {
        if (c->role[x] != 1 || c->pos[x] < a) continue;
        long xi = c->g->v[x].id, ri = c->g->v[r].id;
        st = c->adjoint ? ade_seq_push(s, ri, xi, ADE_FRONT) : ade_seq_push(s, xi, ri, ADE_BACK);
      }
  }
  return st;
}

static void chain_free(chain *c) {
  void *p[] = {c->pi, c->pl, c->role, c->pos, c->end, c->ord, c->bits, c->cnt, c->cost, c->off, c->m, c->split};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++) ade__free(p[i]);
}

static int chain_alloc(chain *c) {
  size_t L = c->L, nv = c->nv;
  if (L > MAX_FACTORS || (L + 1) * nv > ((size_t)1 << 24))
    return ade__fail(ADE_ETOOBIG,
                     "the chain has %zu factors (longest path) over %zu vertices; dynamic programming takes at most "
                     "%u factors and 16M factor-vertex pairs", L, nv, MAX_FACTORS);
  c->bits = ade__calloc(ade__mul_size(nv, c->W), sizeof *c->bits);
  c->cnt = ade__calloc(ade__mul_size(L + 1, nv), sizeof *c->cnt);
  c->off = ade__calloc((L + 1) * (L + 1), sizeof *c->off);
  c->m = ade__calloc((L + 1) * (L + 1), sizeof *c->m);
  c->split = ade__calloc((L + 1) * (L + 1), sizeof *c->split);
  if (!c->bits || !c->cnt || !c->off || !c->m || !c->split) return ade__fail(ADE_ENOMEM, "out of memory for a chain");
  return ADE_OK;
}

int ade__opt_dp(const ade_cgraph *g, int method, ade_elim_seq **seq, uint64_t *cost) {
  chain c;
  size_t n = 0, *topo = NULL;
  ade_elim_seq *s = NULL;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.nv = g->nv;
  c.W = (g->nv + 63) / 64;
  c.adjoint = method == ADE_OPT_DP_BFFA || method == ADE_OPT_DP_BFRA;
  int bfr = method == ADE_OPT_DP_BFRT || method == ADE_OPT_DP_BFRA;
  if (g->nv > ADE__SG_MAX_SLOTS)
    return ade__fail(ADE_ETOOBIG, "the c-graph has %zu vertices; dynamic programming takes at most %u", g->nv,
                     ADE__SG_MAX_SLOTS);
  topo = ade__alloc((g->nv + 1) * sizeof *topo);
  c.role = ade__calloc(g->nv + 1, 1);
  c.pos = ade__calloc(g->nv + 1, sizeof *c.pos);
  c.end = ade__calloc(g->nv + 1, sizeof *c.end);
  c.ord = ade__calloc(g->nv + 1, sizeof *c.ord);
  int st = topo && c.role && c.pos && c.end && c.ord ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory for a chain");
  if (!st) st = topo_order(g, topo, &n);
  if (!st) st = positions(&c, bfr, topo, n);
  if (!st) st = build(&c, topo, n);
  if (!st) st = chain_alloc(&c);
  if (!st) st = costs(&c);
  if (!st) solve(&c);
  if (!st) st = ade_seq_create(&s, ADE_SEQ_EDGE);
  if (!st) st = emit(&c, 1, (uint32_t)c.L, s);
  if (!st) *cost = s->cost = c.L ? M(&c, 1, c.L) : 0;
  ade__free(topo);
  chain_free(&c);
  if (st) ade_seq_free(s);
  else *seq = s;
  return st;
}

/* ------------------------------------------------ dense chain bracketing */

enum { MUL = 0, TAN = 1, ADJ = 2 };

typedef struct out {
  char *p;
  size_t n, len;
} out;

static void put(out *o, const char *fmt, size_t x) {
  char buf[32];
  int k = snprintf(buf, sizeof buf, fmt, x);
  for (int i = 0; i < k; i++, o->len++)
    if (o->len + 1 < o->n) o->p[o->len] = buf[i];
  if (o->n) o->p[o->len + 1 < o->n ? o->len : o->n - 1] = '\0';
}

/* The plan of F_j' ... F_i' as text. */
static void plan(out *o, const uint8_t *how, const uint32_t *at, size_t q, size_t i, size_t j) {
  size_t x = (i - 1) * q + (j - 1);
  if (i == j) {
    put(o, how[x] == TAN ? "tan(F%zu)" : how[x] == ADJ ? "adj(F%zu)" : "F%zu", i);
  } else if (how[x] == TAN) {
    put(o, "tan(F%zu, ", j), plan(o, how, at, q, i, j - 1), put(o, ")", 0);
  } else if (how[x] == ADJ) {
    put(o, "adj(", 0), plan(o, how, at, q, i + 1, j), put(o, ", F%zu)", i);
  } else {
    put(o, "(", 0), plan(o, how, at, q, at[x] + 1, j), put(o, " ", 0), plan(o, how, at, q, i, at[x]);
    put(o, ")", 0);
  }
}

static uint64_t sat(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
static uint64_t satm(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* f(j, i) for F_j' ... F_i' (d[i-1] columns, d[j] rows):
 *   i = j: tangent mode (d[i-1] tangents of F_i) or adjoint mode (d[i]
 *          adjoints), or 0 when the elemental Jacobians are given;
 *   i < j: min over k of f(j, k+1) + f(k, i) + d[j] d[k] d[i-1] (a dense
 *          product), f(j-1, i) + d[i-1] tangent_j (F_j in tangent mode on
 *          the d[i-1] columns), f(j, i+1) + d[j] adjoint_i (F_i in adjoint
 *          mode on the d[j] rows). */
int ade_chain_bracket(size_t q, const size_t *d, const uint64_t *tan, const uint64_t *adj, uint64_t *cost,
                      char *text, size_t text_size) {
  if (!q || !d || !cost || (!tan) != (!adj)) return ade__fail(ADE_EINVAL, "ade_chain_bracket: bad arguments");
  if (q > 1024) return ade__fail(ADE_ETOOBIG, "ade_chain_bracket: %zu elementals (at most 1024)", q);
  uint64_t *f = ade__alloc(q * q * sizeof *f);
  uint8_t *how = ade__alloc(q * q);
  uint32_t *at = ade__alloc(q * q * sizeof *at);
  if (!f || !how || !at) {
    ade__free(f), ade__free(how), ade__free(at);
    return ade__fail(ADE_ENOMEM, "out of memory for a chain of %zu", q);
  }
#define F(i, j) f[((i) - 1) * q + ((j) - 1)]
#define H(i, j) how[((i) - 1) * q + ((j) - 1)]
  for (size_t i = 1; i <= q; i++) {
    uint64_t t = tan ? satm(tan[i - 1], d[i - 1]) : 0, a = adj ? satm(adj[i - 1], d[i]) : 0;
    F(i, i) = tan && a < t ? a : t;
    H(i, i) = !tan ? MUL : a < t ? ADJ : TAN;
  }
  for (size_t len = 1; len < q; len++)
    for (size_t i = 1; i + len <= q; i++) {
      size_t j = i + len;
      uint64_t best = UINT64_MAX;
      H(i, j) = MUL, at[(i - 1) * q + (j - 1)] = (uint32_t)i; /* a plan even if every cost saturates */
      for (size_t k = i; k < j; k++) {
        uint64_t v = sat(sat(F(k + 1, j), F(i, k)), satm(satm(d[j], d[k]), d[i - 1]));
        if (v < best) best = v, H(i, j) = MUL, at[(i - 1) * q + (j - 1)] = (uint32_t)k;
      }
      if (tan) {
        uint64_t vt = sat(F(i, j - 1), satm(d[i - 1], tan[j - 1])), va = sat(F(i + 1, j), satm(d[j], adj[i - 1]));
        if (vt < best) best = vt, H(i, j) = TAN;
        if (va < best) best = va, H(i, j) = ADJ;
      }
      F(i, j) = best;
    }
  *cost = F(1, q);
  int st = *cost == UINT64_MAX ? ade__fail(ADE_ETOOBIG, "ade_chain_bracket: the chain's cost overflows 64 bits")
                               : ADE_OK;
  if (!st && text && text_size) {
    out o = {text, text_size, 0};
    text[0] = '\0';
    plan(&o, how, at, q, 1, q);
  }
#undef F
#undef H
  ade__free(f);
  ade__free(how);
  ade__free(at);
  return st;
}
