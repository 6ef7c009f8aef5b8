/* opt_common.c: ade_optimize: method names, limits, the best heuristic to start from, edge-to-face conversion, binding and checking the result. */
#include "opt_internal.h"

static const char *const opt_names[] = {
#define ADE__OPT_NAME(N, s) s,
    ADE_OPT_MAP(ADE__OPT_NAME)
#undef ADE__OPT_NAME
};
static const char *const kind_names[] = {"vertex", "edge", "face"};

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

/* --------------------------------------------------------- conversions */

/* The live intermediate dual vertex for c-graph edge (i, j) (the oldest,
 * if several). */
static size_t dual_of(const ade_cgraph *g, const ade_cgraph *d, ade__dual_index *x, long i, long j) {
  size_t jv = ade__graph_vertex(g, j), best = ADE__NONE;
  for (size_t k = jv == ADE__NONE ? ADE__NONE : ade__dual_index_live(x, d, jv); k != ADE__NONE; k = x->next[k])
    if (d->v[k].csrc == i && k < best) best = k;
  return best;
}

/* The first intermediate face out of (front) or into (back) dual vertex k. */
static size_t next_face(const ade_cgraph *d, size_t k, int dir) {
  const ade__vtx *v = &d->v[k];
  size_t n = dir == ADE_FRONT ? v->nout : v->nin;
  for (size_t x = 0; x < n; x++) {
    const ade__edge *e = &d->e[dir == ADE_FRONT ? v->out[x] : v->in[x]];
    size_t o = dir == ADE_FRONT ? e->dst : e->src;
    if (d->v[o].kind == ADE__Z) return o;
  }
  return ADE__NONE;
}

/* Front (back) elimination of an edge is the elimination of all faces out
 * of (into) its dual vertex (face-elimination paper, Section 3.3). */
int ade__seq_edge_to_face(const ade_cgraph *g, const ade_elim_seq *es, ade_elim_seq **fs, uint64_t *fill) {
  ade_cgraph *d = NULL;
  ade_elim_seq *s = NULL;
  ade__dual_index ix = {0};
  int st = es->kind == ADE_SEQ_EDGE ? ade_cgraph_dual(&d, g) : ade__fail(ADE_EINVAL, "not an edge sequence");
  if (!st) st = ade_seq_create(&s, ADE_SEQ_FACE);
  if (!st) s->fingerprint = ade__graph_fingerprint(d);
  if (!st) st = ade__dual_index_init(&ix, g, d);
  for (size_t t = 0; !st && t < es->len; t++) {
    const ade_elim_step *x = &es->step[t];
    size_t k = dual_of(g, d, &ix, x->a, x->b), o;
    if (k == ADE__NONE) st = ade__fail(ADE_EINVAL, "step %zu: no edge (%ld, %ld)", t + 1, x->a, x->b);
    while (!st && k != ADE__NONE && (o = next_face(d, k, x->dir)) != ADE__NONE) {
      size_t a = x->dir == ADE_FRONT ? k : o, b = x->dir == ADE_FRONT ? o : k;
      st = ade_seq_push(s, d->v[a].id, d->v[b].id, 0);
      if (!st) st = ade__face_step(d, a, b);
      if (!st) st = ade__dual_index_sync(&ix, g, d);
      k = dual_of(g, d, &ix, x->a, x->b);
    }
  }
  if (!st) s->cost = d->fma;
  if (!st && fill) *fill = d->fill;
  ade__dual_index_free(&ix);
  ade_cgraph_free(d);
  if (st) ade_seq_free(s);
  else *fs = s;
  return st;
}

static uint64_t sat_add(uint64_t a, uint64_t b, uint64_t cap) { return a + b < a || a + b > cap ? cap : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b, uint64_t cap) { return a && b > cap / a ? cap : a * b; }

/* sum over intermediates c of (X-c paths)(c-Y paths): the faces on all
 * X~-Y~ paths of the dual, counted with multiplicity. */
uint64_t ade__face_room(const ade_cgraph *g, uint64_t cap) {
  size_t nv = g->nv, head = 0, tail = 0;
  size_t *ord = ade__alloc((nv + 1) * sizeof *ord), *deg = ade__alloc((nv + 1) * sizeof *deg);
  uint64_t *px = ade__calloc(nv + 1, sizeof *px), *py = ade__calloc(nv + 1, sizeof *py), sum = 0;
  if (!ord || !deg || !px || !py) sum = cap;
  for (size_t i = 0; sum < cap && i < nv; i++)
    if (g->v[i].alive && !(deg[i] = g->v[i].nin)) ord[tail++] = i;
  while (sum < cap && head < tail) {
    const ade__vtx *v = &g->v[ord[head++]];
    for (size_t k = 0; k < v->nout; k++)
      if (!--deg[g->e[v->out[k]].dst]) ord[tail++] = g->e[v->out[k]].dst;
  }
  for (size_t t = 0; sum < cap && t < tail; t++) {
    const ade__vtx *v = &g->v[ord[t]];
    px[ord[t]] = v->kind == ADE__X ? 1 : px[ord[t]];
    for (size_t k = 0; k < v->nout; k++) px[g->e[v->out[k]].dst] = sat_add(px[g->e[v->out[k]].dst], px[ord[t]], cap);
  }
  for (size_t t = tail; sum < cap && t-- > 0;) {
    const ade__vtx *v = &g->v[ord[t]];
    py[ord[t]] = v->kind == ADE__Y ? 1 : py[ord[t]];
    for (size_t k = 0; k < v->nin; k++) py[g->e[v->in[k]].src] = sat_add(py[g->e[v->in[k]].src], py[ord[t]], cap);
    if (v->kind == ADE__Z) sum = sat_add(sum, sat_mul(px[ord[t]], py[ord[t]], cap), cap);
  }
  ade__free(ord);
  ade__free(deg);
  ade__free(px);
  ade__free(py);
  return sum;
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

/* Graphs too large for the searches get only the orderings that do not
 * rescan every candidate at each step: the others (edge-markowitz,
 * edge-fillin, the face orderings, the hierarchies) take minutes there. */
static int large(const ade_cgraph *g) { return g->nv > ADE__SG_MAX_SLOTS; }

static int best_orders(const ade_cgraph *g, int kind, const ade__clock *clk, ade_elim_seq **best) {
  int st = ADE_OK;
  double deadline = clk ? clk->deadline : 0;
  for (int o = 0; !st && o < ADE_ORDER_COUNT; o++) {
    ade_elim_seq *s = NULL;
    int k = o <= ADE_ORDER_VERTEX_RELATIVE ? ADE_SEQ_VERTEX : o <= ADE_ORDER_EDGE_FILLIN ? ADE_SEQ_EDGE : ADE_SEQ_FACE;
    if (k != kind || (large(g) && o >= ADE_ORDER_EDGE_MARKOWITZ)) continue;
    st = ade__elim_order(g, o, deadline, &s, NULL);
    if (st == ADE_ELIMIT) st = ADE_OK; /* out of time: not a candidate */
    keep_best(best, s);
  }
  ade_elim_seq *h = NULL;
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

/* The cheapest sequence of the kind among the orderings, the default
 * hierarchy, (edges) the DP variants and (edges, faces) the best of the
 * less general kind. */
int ade__opt_heuristic(const ade_cgraph *g, int kind, const ade__clock *clk, ade_elim_seq **best) {
  ade_elim_seq *b = NULL, *lower = NULL, *conv = NULL;
  int st = kind == ADE_SEQ_VERTEX ? ADE_OK : ade__opt_heuristic(g, kind - 1, clk, &lower);
  if (!st && lower)
    st = kind == ADE_SEQ_EDGE ? ade__seq_vertex_to_edge(g, lower, &conv) : ade__seq_edge_to_face(g, lower, &conv, NULL);
  ade_seq_free(lower);
  keep_best(&b, conv);
  if (!st) st = best_orders(g, kind, clk, &b);
  if (st) ade_seq_free(b);
  else *best = b;
  return st;
}

/* Bind s to g (faces: its dual), apply it to a copy, check it is complete
 * and set its cost to what the engines counted. */
int ade__seq_finish(const ade_cgraph *g, ade_elim_seq *s, uint64_t *cost) {
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

int ade_optimize(const ade_cgraph *g, int kind, int method, const ade_opt_limits *limits, ade_elim_seq **seq,
                 ade_opt_report *report) {
  ade_opt_limits def;
  ade_opt_report r;
  ade_elim_seq *s = NULL;
  double t0 = ade__now();
  memset(&r, 0, sizeof r);
  if (!seq || !g || g->dual) return ade__fail(ADE_EINVAL, "ade_optimize: needs a c-graph and a result pointer");
  *seq = NULL;
  if (method < 0 || method >= ADE_OPT_COUNT) return ade__fail(ADE_EINVAL, "ade_optimize: unknown method %d", method);
  if (!ade_opt_supports(method, kind))
    return ade__fail(ADE_EINVAL, "%s does not build %s sequences", opt_names[method],
                     kind >= 0 && kind < 3 ? kind_names[kind] : "such");
  if (!limits) ade_opt_limits_init(&def), limits = &def;
  if (!limits->memory_limit && g->memlimit != SIZE_MAX) { /* the tape's limit bounds the state tables */
    def = *limits;
    def.memory_limit = g->memlimit ? g->memlimit : 1;
    limits = &def;
  }
  ade__clock clk;
  ade__clock_start(&clk, limits);
  int split = 0, st = ade__opt_split(g, kind, method, limits, &s, &r, &split);
  if (!st && !split) switch (method) {
  case ADE_OPT_EXHAUSTIVE: st = ade__opt_exhaustive(g, kind, limits, &s, &r); break;
  case ADE_OPT_BNB: st = ade__opt_bnb(g, kind, limits, &s, &r); break;
  case ADE_OPT_HIERARCHY: st = ade__opt_hierarchy(g, kind, limits->hierarchy, &clk, &s, &r.limited); break;
  case ADE_OPT_ANNEAL: st = ade__opt_anneal(g, kind, limits, &s, &r); break;
  default: {
    ade_elim_seq *es = NULL;
    st = ade__opt_dp(g, method, &es, &r.cost);
    if (!st && kind == ADE_SEQ_FACE) st = ade__seq_edge_to_face(g, es, &s, NULL);
    else s = es, es = NULL;
    ade_seq_free(es);
  }
  }
  if (st == ADE_ETOOBIG && method <= ADE_OPT_ANNEAL && method != ADE_OPT_HIERARCHY) { /* too large to search: the start */
    memset(&r, 0, sizeof r);
    st = ade__opt_heuristic(g, kind, &clk, &s);
    if (!st) r.cost = r.initial = s->cost, r.limited = 1;
  }
  uint64_t cost = 0;
  if (!st) st = ade__seq_finish(g, s, &cost);
  if (!st && (split || method != ADE_OPT_HIERARCHY) && cost != r.cost) /* what the method claimed */
    st = ade__fail(ADE_ESTATE, "internal error: %s found cost %llu, the engines count %llu", opt_names[method],
                   (unsigned long long)r.cost, (unsigned long long)cost);
  r.cost = cost;
  r.seconds = ade__now() - t0;
  if (st) ade_seq_free(s);
  else *seq = s;
  if (report) *report = r;
  return st;
}
