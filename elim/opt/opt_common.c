/* opt_common.c: what the optimizers share: method names, limits, the best heuristic to start from, binding and checking a result. */
#include "opt_internal.h"

static const char *const opt_names[] = {
#define ADE__OPT_NAME(N, s) s,
    ADE_OPT_MAP(ADE__OPT_NAME)
#undef ADE__OPT_NAME
};
static const char *const kind_names[] = {"vertex", "edge", "face"};

const char *ade__opt_kind_name(int kind) { return kind >= 0 && kind < 3 ? kind_names[kind] : "such"; }

void ade_opt_limits_init(ade_opt_limits *l) {
  if (!l) return;
  memset(l, 0, sizeof *l);
  l->threads = 1;
  l->seed = 1;
}

const char *ade_opt_name(int method) { return method >= 0 && method < ADE_OPT_COUNT ? opt_names[method] : NULL; }

int ade_opt_parse(const char *name, int *kind) {
  if (!name) return -1;
  for (int i = 0; i < ADE_OPT_COUNT; i++)
    if (!strcmp(name, opt_names[i])) return i;
  size_t len = strlen(name);
  for (int k = 0; k < 3; k++) {
    size_t kl = strlen(kind_names[k]);
    if (len <= kl + 1 || name[len - kl - 1] != '-' || strcmp(name + len - kl, kind_names[k])) continue;
    for (int i = 0; i < ADE_OPT_COUNT; i++)
      if (strlen(opt_names[i]) == len - kl - 1 && !strncmp(name, opt_names[i], len - kl - 1)) {
        if (kind) *kind = k;
        return i;
      }
  }
  return -1;
}

int ade_opt_supports(int method, int kind) {
  if (kind < ADE_SEQ_VERTEX || kind > ADE_SEQ_FACE) return 0;
  switch (method) {
  case ADE_OPT_EXHAUSTIVE:
  case ADE_OPT_BNB:
  case ADE_OPT_HIERARCHY: return 1;
  case ADE_OPT_ANNEAL: return kind != ADE_SEQ_FACE;
  case ADE_OPT_DP_BFFT:
  case ADE_OPT_DP_BFFA:
  case ADE_OPT_DP_BFRT:
  case ADE_OPT_DP_BFRA: return kind != ADE_SEQ_VERTEX;
  default: return 0;
  }
}

/* What `adelim compare` lists: every method on every kind it builds,
 * except the face forms of the DP variants (their edge sequences as faces). */
static const struct {
  int method, kind;
  const char *label;
} variants[] = {
    {ADE_OPT_EXHAUSTIVE, ADE_SEQ_VERTEX, "exhaustive-vertex"}, {ADE_OPT_EXHAUSTIVE, ADE_SEQ_EDGE, "exhaustive-edge"},
    {ADE_OPT_EXHAUSTIVE, ADE_SEQ_FACE, "exhaustive-face"},     {ADE_OPT_BNB, ADE_SEQ_VERTEX, "bnb-vertex"},
    {ADE_OPT_BNB, ADE_SEQ_EDGE, "bnb-edge"},                   {ADE_OPT_BNB, ADE_SEQ_FACE, "bnb-face"},
    {ADE_OPT_HIERARCHY, ADE_SEQ_VERTEX, "hierarchy-vertex"},   {ADE_OPT_HIERARCHY, ADE_SEQ_EDGE, "hierarchy-edge"},
    {ADE_OPT_HIERARCHY, ADE_SEQ_FACE, "hierarchy-face"},       {ADE_OPT_ANNEAL, ADE_SEQ_VERTEX, "anneal-vertex"},
    {ADE_OPT_ANNEAL, ADE_SEQ_EDGE, "anneal-edge"},             {ADE_OPT_DP_BFFT, ADE_SEQ_EDGE, "dp-bfft"},
    {ADE_OPT_DP_BFFA, ADE_SEQ_EDGE, "dp-bffa"},                {ADE_OPT_DP_BFRT, ADE_SEQ_EDGE, "dp-bfrt"},
    {ADE_OPT_DP_BFRA, ADE_SEQ_EDGE, "dp-bfra"},
};

size_t ade_opt_num_variants(void) { return sizeof variants / sizeof *variants; }

int ade_opt_variant(size_t i, int *method, int *kind, const char **label) {
  if (i >= ade_opt_num_variants()) return ade__fail(ADE_EINVAL, "no optimizer variant %zu", i);
  if (method) *method = variants[i].method;
  if (kind) *kind = variants[i].kind;
  if (label) *label = variants[i].label;
  return ADE_OK;
}

int ade__seq_from_steps(int kind, const ade_elim_step *st, size_t n, ade_elim_seq **out) {
  ade_elim_seq *s = NULL;
  int r = ade_seq_create(&s, kind);
  for (size_t i = 0; !r && i < n; i++) r = ade_seq_push(s, st[i].a, st[i].b, st[i].dir);
  if (r) ade_seq_free(s);
  else *out = s;
  return r;
}

/* ---------------------------------------------------------- heuristics */

static void keep_best(ade_elim_seq **best, ade_elim_seq *s) {
  if (!s) return;
  if (!*best || s->cost < (*best)->cost) {
    ade_seq_free(*best);
    *best = s;
  } else {
    ade_seq_free(s);
  }
}

/* Graphs too large for the searches get the vertex and edge orderings
 * (near-linear: doc/elimination.md, "How the orderings keep their keys"), not the face orderings,
 * whose dual graph and runs can take seconds and much memory there
 * (face-greedy on lorenz96: 5 s), nor the hierarchies. */
static int large(const ade_cgraph *g) { return g->nv > ADE__SG_MAX_SLOTS; }

static int best_orders(const ade_cgraph *g, int kind, const ade__clock *clk, ade_elim_seq **best) {
  int st = ADE_OK;
  double deadline = clk ? clk->deadline : 0;
  /* Under a limit the candidates stop when it expires: first the sweep of
   * the cheaper vector mode (never above m|E| or n|E|, and the cheapest to
   * compute and to convert), then vertex Markowitz (most often the best
   * vertex ordering), then the other sweep and the rest. */
  int rev = g->m < g->n;
  const int first[3] = {rev ? ADE_ORDER_VERTEX_REVERSE : ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ,
                        rev ? ADE_ORDER_VERTEX_FORWARD : ADE_ORDER_VERTEX_REVERSE};
  for (int i = 0; !st && i < ADE_ORDER_COUNT; i++) {
    ade_elim_seq *s = NULL;
    int o = i < 3 ? first[i] : i;
    int k = o <= ADE_ORDER_VERTEX_RELATIVE ? ADE_SEQ_VERTEX : o <= ADE_ORDER_EDGE_FILLIN ? ADE_SEQ_EDGE : ADE_SEQ_FACE;
    if (k != kind || (large(g) && o >= ADE_ORDER_FACE_FORWARD)) continue;
    if (*best && clk && ade__clock_expired(clk, 0)) return ADE_OK; /* out of time: no more candidates */
    st = ade__elim_order_native(g, o, deadline, &s, NULL);
    if (st == ADE_ELIMIT) st = ADE_OK; /* out of time: not a candidate */
    keep_best(best, s);
  }
  ade_elim_seq *h = NULL;
  if (!st && *best && clk && ade__clock_expired(clk, 0)) return ADE_OK;
  if (!st && !large(g)) st = ade__opt_hierarchy(g, kind, NULL, clk, &h, NULL);
  keep_best(best, h);
  for (int m = ADE_OPT_DP_BFFT; !st && kind == ADE_SEQ_EDGE && m <= ADE_OPT_DP_BFRA; m++) {
    uint64_t c;
    ade_elim_seq *d = NULL;
    if (clk && ade__clock_expired(clk, 0)) break; /* each takes up to a tenth of a second */
    st = ade__opt_dp(g, m, &d, &c);
    if (st == ADE_ETOOBIG) st = ADE_OK; /* a chain too long: not a candidate */
    keep_best(best, d);
  }
  return st;
}

/* Out of time before any candidate: the sweep of the cheaper vector mode
 * (an ordering at a deadline already past returns it at once, as
 * ade_elim_order_limited does), counted, not simulated, and left a vertex
 * sequence (native). */
static int sweep_of_kind(const ade_cgraph *g, int kind, ade_elim_seq **best) {
  static const int sweep[3][2] = {{ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_REVERSE},
                                  {ADE_ORDER_EDGE_FORWARD, ADE_ORDER_EDGE_REVERSE},
                                  {ADE_ORDER_FACE_FORWARD, ADE_ORDER_FACE_REVERSE}};
  int limited = 0, o = sweep[kind][g->m < g->n];
  return ade__elim_order_native(g, o, kind == ADE_SEQ_VERTEX ? 0 : 1e-9, best, &limited);
}

/* The cheapest sequence for the kind among the orderings, the default
 * hierarchy, (edges) the DP variants and (edges, faces) the best of the
 * less general kind. Under clk (may be NULL) it stops trying
 * candidates when the clock expires. The winner stays in its own kind
 * (native: a vertex or edge sequence for edges or faces, at the same
 * cost), so that nothing is converted, or simulated on the dual, unless a
 * caller needs the kind itself (ade__seq_to_kind); ties go to the less
 * general kind. */
int ade__opt_heuristic(const ade_cgraph *g, int kind, const ade__clock *clk, ade_elim_seq **best) {
  ade_elim_seq *b = NULL;
  if (clk && ade__clock_expired(clk, 0)) return sweep_of_kind(g, kind, best);
  int st = kind == ADE_SEQ_VERTEX ? ADE_OK : ade__opt_heuristic(g, kind - 1, clk, &b);
  if (!st) st = best_orders(g, kind, clk, &b);
  if (st) ade_seq_free(b);
  else *best = b;
  return st;
}

/* Bind s to g (faces: its dual), apply it to a copy, check it is complete
 * and set its cost to what the engines counted. A sequence an engine built
 * itself by applying it to g (checked: ade__seq_vertex_to_edge,
 * ade__seq_edge_to_face, the converted starts) is complete and costed
 * already: bound, with no second simulation. Faces trust the mark (it
 * names the dual the conversion built from g; this one is not built). */
int ade__seq_finish(const ade_cgraph *g, ade_elim_seq *s, uint64_t *cost) {
  if (s->checked && (s->kind == ADE_SEQ_FACE || s->checked == ade__graph_fingerprint(g))) {
    s->fingerprint = s->checked;
    *cost = s->cost;
    return ADE_OK;
  }
  ade_cgraph *d = NULL;
  const ade_cgraph *w = g;
  int done = 0, st = s->kind == ADE_SEQ_FACE ? ade_cgraph_dual(&d, g) : ADE_OK;
  if (d) w = d;
  if (!st) {
    ade_seq_bind(s, w);
    st = ade_seq_validate(w, s, &done, cost);
  }
  if (!st && !done) st = ade__fail(ADE_ESTATE, "internal error: the optimizer's sequence is incomplete");
  if (!st) s->cost = *cost;
  ade_cgraph_free(d);
  return st;
}

/* The key of part graph h: sizes, vertex kinds in order, edges (local ends) in order. */
int ade__part_key(const ade_cgraph *h, uint64_t **key, size_t *cap, size_t *len) {
  size_t need = 1 + (h->nv + 31) / 32 + h->nedges;
  if (need > *cap) {
    uint64_t *k = ade__realloc(*key, need * sizeof *k);
    if (!k) return ade__fail(ADE_ENOMEM, "out of memory for the key of a part of %zu edges", h->nedges);
    *key = k, *cap = need;
  }
  uint64_t *k = *key;
  memset(k, 0, need * sizeof *k);
  k[0] = (uint64_t)h->nv | (uint64_t)h->nedges << 32;
  for (size_t v = 0; v < h->nv; v++) k[1 + v / 32] |= (uint64_t)h->v[v].kind << (2 * (v % 32));
  for (size_t e = 0, w = 1 + (h->nv + 31) / 32; e < h->eslots; e++)
    if (h->e[e].src != ADE__NONE) k[w++] = (uint64_t)h->e[e].src << 32 | h->e[e].dst;
  *len = need;
  return ADE_OK;
}
