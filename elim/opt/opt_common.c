/* opt_common.c: what the optimizers share: method names, limits, the best heuristic to start from, binding and checking a result. */
#include <limits.h>
#include <pthread.h>

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

/* Graphs too large for the searches get the vertex and edge orderings
 * (near-linear: doc/elimination.md, "How the orderings keep their keys"),
 * not the face orderings, whose dual graph and runs can take seconds and
 * much memory there (face-greedy on lorenz96: 5 s), nor the hierarchies. */
static int large(const ade_cgraph *g) { return g->nv > ADE__SG_MAX_SLOTS; }

/* A candidate of ade__opt_heuristic: an ordering (order >= 0), the
 * default hierarchy of a kind (order -1) or a dynamic program (order -2,
 * method dp). */
typedef struct cand {
  int order, kind, dp;
} cand;

/* The candidates for kind, in the order they are tried and win ties:
 * for each kind up to it, under a limit first the sweep of the cheaper
 * vector mode (never above m|E| or n|E|, and the cheapest to compute and
 * to convert), then vertex Markowitz (most often the best vertex
 * ordering), then the other sweep and the rest of the kind's orderings;
 * then its hierarchy; for edges the four dynamic programs. */
static int candidates(const ade_cgraph *g, int kind, cand *c) {
  int rev = g->m < g->n, n = 0;
  const int first[3] = {rev ? ADE_ORDER_VERTEX_REVERSE : ADE_ORDER_VERTEX_FORWARD, ADE_ORDER_VERTEX_MARKOWITZ,
                        rev ? ADE_ORDER_VERTEX_FORWARD : ADE_ORDER_VERTEX_REVERSE};
  for (int k = ADE_SEQ_VERTEX; k <= kind; k++) {
    for (int i = 0; i < ADE_ORDER_COUNT; i++) {
      int o = i < 3 ? first[i] : i;
      int ok = ade_order_kind(o);
      if (ok == k && !(large(g) && o >= ADE_ORDER_FACE_FORWARD)) c[n++] = (cand){o, k, 0};
    }
    if (!large(g)) c[n++] = (cand){-1, k, 0};
    for (int m = ADE_OPT_DP_BFFT; k == ADE_SEQ_EDGE && m <= ADE_OPT_DP_BFRA; m++) c[n++] = (cand){-2, k, m};
  }
  return n;
}

/* The candidates run as tasks (in threads or in turn); each result is
 * kept if cheaper than the best so far, or as cheap and earlier, so the
 * best is the one of running them in turn. */
typedef struct hrun {
  const ade_cgraph *g;
  const ade__clock *clk, *quiet;
  pthread_t caller;
  const cand *c;
  ade__failure *f;
  int failed;                      /* the first candidate that failed (atomic; INT_MAX: none) */
  pthread_mutex_t lock;            /* best, at */
  ade_elim_seq *best;
  int at;
} hrun;

static void cand_go(void *ud, int k, ade__watch *w) {
  hrun *h = ud;
  const cand *c = &h->c[k];
  const ade__clock *clk = h->clk && !pthread_equal(pthread_self(), h->caller) ? h->quiet : h->clk;
  ade_elim_seq *s = NULL;
  uint64_t cost;
  int st = ADE_OK;
  (void)w;
  /* Out of time: no more candidates after the first; none after a failure. */
  if ((k && clk && ade__clock_expired(clk, 0)) || k > __atomic_load_n(&h->failed, __ATOMIC_RELAXED)) return;
  if (c->order >= 0) st = ade__elim_order_native(h->g, c->order, clk ? clk->deadline : 0, &s, NULL);
  else if (c->order == -1) st = ade__opt_hierarchy(h->g, c->kind, NULL, clk, &s, NULL);
  else st = ade__opt_dp(h->g, c->dp, &s, &cost);
  if (st == ADE_ELIMIT || st == ADE_ETOOBIG) st = ADE_OK; /* out of time, a chain too long: not a candidate */
  if (ade__failure_keep(&h->f[k], st)) {
    for (int f = __atomic_load_n(&h->failed, __ATOMIC_RELAXED);
         k < f && !__atomic_compare_exchange_n(&h->failed, &f, k, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED);) {
    }
    return;
  }
  if (!s) return;
  pthread_mutex_lock(&h->lock);
  if (!h->best || s->cost < h->best->cost || (s->cost == h->best->cost && k < h->at)) {
    ade_seq_free(h->best);
    h->best = s, h->at = k, s = NULL;
  }
  pthread_mutex_unlock(&h->lock);
  ade_seq_free(s);
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
 * general kind. With threads > 1 (and the default allocator) the
 * candidates run in that many threads, only the calling thread reporting
 * progress: without a time limit, the sequence of one thread. */
int ade__opt_heuristic(const ade_cgraph *g, int kind, const ade__clock *clk, int threads, ade_elim_seq **best) {
  cand c[3 * (ADE_ORDER_COUNT + 5)];
  ade__failure f[sizeof c / sizeof *c];
  ade__clock quiet;
  ade_opt_limits ql;
  if (clk && ade__clock_expired(clk, 0)) return sweep_of_kind(g, kind, best);
  if (clk) ade__clock_quiet(clk, &quiet, &ql);
  hrun h = {g, clk, clk ? &quiet : NULL, pthread_self(), c, f, INT_MAX, PTHREAD_MUTEX_INITIALIZER, NULL, 0};
  ade__tasks t = {candidates(g, kind, c), 0, cand_go, &h};
  threads = threads > 1 && !ade__alloc_hooked() ? threads : 1;
  if (threads > 1) (void)ade__graph_fingerprint(g); /* kept in g: no task writes it while others copy g */
  ade__tasks_run(&t, threads, NULL);
  pthread_mutex_destroy(&h.lock);
  int st = h.failed < INT_MAX ? ade__failure_raise(&f[h.failed]) : ADE_OK;
  if (st) ade_seq_free(h.best);
  else *best = h.best;
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
