/* optimize.c: ade_optimize, the optimizers' dispatcher (on top of them), and
 * c-graphs of several parts: each class of identical parts optimized once,
 * the sequences repeated on the others and concatenated. */
#include "opt_internal.h"

/* Parts meet only at independents (and, for vertex and edge sequences, at
 * dependents), which are never eliminated: a step in one part neither
 * needs nor changes an edge of another (fill-in between two shared vertices
 * is final), so the optimum is the sum of the parts' optima and any order
 * of the parts' sequences is valid. Face fill-ins of two parts could only
 * merge if both joined the same shared vertices at both ends, which is why
 * faces share independents only. */

/* One class of parts with the same key: their graphs are equal up to the
 * order-preserving map of their vertices, so one sequence fits all. */
typedef struct cls {
  size_t rep, count, fill; /* first part, parts, face fill-ins of its sequence */
  ade_elim_step *step;     /* vertex, edge: local vertex indices; face: part dual ids */
  size_t len;
  uint64_t cost;
} cls;

/* Face fill-ins that s makes on the dual of h. */
static int face_fill(const ade_cgraph *h, const ade_elim_seq *s, size_t *fill) {
  ade_cgraph *d = NULL;
  uint64_t c;
  int st = ade_cgraph_dual(&d, h);
  if (!st) st = ade_seq_apply(d, s, &c);
  if (!st) *fill = d->fill;
  ade_cgraph_free(d);
  return st;
}

/* Optimize the representative part of class k; the steps in local terms. */
static int solve(const ade_cgraph *g, ade__part *P, cls *k, int kind, int method, const ade_opt_limits *l,
                 ade_opt_report *r) {
  ade_cgraph *h = NULL;
  ade_elim_seq *s = NULL;
  ade_opt_report pr;
  int st = ade__part_graph(g, P, k->rep, &h);
  if (!st) st = ade_optimize(h, kind, method, l, &s, &pr);
  if (!st) st = ade__seq_to_kind(h, &s, kind, NULL); /* the parts' sequences are concatenated in the kind */
  if (!st && kind == ADE_SEQ_FACE) st = face_fill(h, s, &k->fill);
  if (!st && !(k->step = ade__alloc((s->len + 1) * sizeof *k->step)))
    st = ade__fail(ADE_ENOMEM, "out of memory for a sequence of %zu steps", s->len);
  for (size_t t = 0; !st && t < s->len; t++) {
    ade_elim_step x = s->step[t];
    if (kind != ADE_SEQ_FACE) {
      x.a = (long)ade__graph_vertex(h, x.a);
      x.b = kind == ADE_SEQ_EDGE ? (long)ade__graph_vertex(h, x.b) : x.b;
    }
    k->step[t] = x;
  }
  if (!st) {
    k->len = s->len, k->cost = pr.cost;
    r->cost += k->count * pr.cost, r->bound += k->count * pr.bound, r->initial += k->count * pr.initial;
    r->optimal &= pr.optimal, r->limited |= pr.limited;
    r->nodes += pr.nodes, r->cuts += pr.cuts, r->states += pr.states;
  }
  ade_seq_free(s);
  ade_cgraph_free(h);
  return st;
}

/* Part c's sequence from its class's: local indices to c's vertex ids. */
static int emit(const ade_cgraph *g, ade__part *P, size_t c, const cls *k, int kind, long fill0, ade_elim_seq *s) {
  ade_cgraph *h = NULL;
  ade_elim_seq *cs = NULL;
  int st = ade__part_graph(g, P, c, &h);
  if (!st) st = ade_seq_create(&cs, kind);
  for (size_t t = 0; !st && t < k->len; t++) {
    ade_elim_step x = k->step[t];
    if (kind != ADE_SEQ_FACE) {
      x.a = h->v[x.a].id;
      x.b = kind == ADE_SEQ_EDGE ? h->v[x.b].id : x.b;
    }
    st = ade_seq_push(cs, x.a, x.b, x.dir);
  }
  if (!st) st = ade__part_append(g, h, P, c, cs, fill0, s);
  ade_seq_free(cs);
  ade_cgraph_free(h);
  return st;
}

/* Classes of the parts with intermediates: cl[c] for part c, the classes into ks. */
static int classify(const ade_cgraph *g, ade__part *P, size_t *cl, cls *ks, size_t *nk) {
  ade__table t;
  uint64_t *key = NULL, val;
  size_t cap = 0, len = 0;
  int st = ade__table_init(&t, (size_t)1 << 30);
  *nk = 0;
  for (size_t c = 0; !st && c < P->ncomp; c++) {
    ade_cgraph *h = NULL;
    if (!P->hasz[c]) continue;
    st = ade__part_graph(g, P, c, &h);
    if (!st) st = ade__part_key(h, &key, &cap, &len);
    ade_cgraph_free(h);
    if (st) break;
    if (ade__table_get(&t, key, len, &val)) {
      cl[c] = (size_t)val, ks[val].count++;
      continue;
    }
    cl[c] = *nk, ks[*nk].rep = c, ks[*nk].count = 1;
    st = ade__table_put(&t, key, len, (uint64_t)(*nk)++);
    if (st == ADE_ETOOBIG) st = ade__fail(ADE_ENOMEM, "out of memory for the keys of %zu parts", P->ncomp);
  }
  ade__free(key);
  ade__table_free(&t);
  return st;
}

/* The time left for the next of `left` classes: an equal share. */
static void share_time(const ade_opt_limits *l, double t0, size_t left, ade_opt_limits *sub) {
  *sub = *l;
  if (l->time_limit <= 0) return;
  double rest = l->time_limit - (ade__now() - t0);
  sub->time_limit = rest > 1e-3 * (double)left ? rest / (double)left : 1e-3;
}

/* With two or more parts (components apart from the independents, and for
 * vertex and edge kinds the dependents), optimize each class of identical
 * parts once by ade_optimize and concatenate (*split = 1; r gets the
 * sums); otherwise *split = 0. */
static int opt_split(const ade_cgraph *g, int kind, int method, const ade_opt_limits *l, ade_elim_seq **seq,
                     ade_opt_report *r, int *split) {
  ade__part P;
  ade_elim_seq *s = NULL;
  size_t nk = 0, *cl = NULL;
  cls *ks = NULL;
  double t0 = ade__now();
  int share = 1 << ADE__X | (kind == ADE_SEQ_FACE ? 0 : 1 << ADE__Y);
  *split = 0;
  int st = ade__part_split(g, share, &P);
  if (st || P.nz < 2) {
    ade__part_free(&P);
    return st;
  }
  cl = ade__alloc((P.ncomp + 1) * sizeof *cl);
  ks = ade__calloc(P.nz + 1, sizeof *ks);
  if (!cl || !ks) st = ade__fail(ADE_ENOMEM, "out of memory for the classes of %zu parts", P.nz);
  if (!st) st = classify(g, &P, cl, ks, &nk);
  r->optimal = 1;
  for (size_t k = 0; !st && k < nk; k++) {
    ade_opt_limits sub;
    share_time(l, t0, nk - k, &sub);
    st = solve(g, &P, &ks[k], kind, method, &sub, r);
  }
  if (!st) st = ade_seq_create(&s, kind);
  long fill0 = (long)g->nedges + (long)g->m + 1;
  for (size_t c = 0; !st && c < P.ncomp; c++) {
    if (!P.hasz[c]) continue;
    st = emit(g, &P, c, &ks[cl[c]], kind, fill0, s);
    fill0 += (long)ks[cl[c]].fill;
  }
  if (!st) st = ade__seq_bind_whole(g, s);
  for (size_t k = 0; ks && k < nk; k++) ade__free(ks[k].step);
  ade__free(ks);
  ade__free(cl);
  ade__part_free(&P);
  if (st) {
    ade_seq_free(s);
    return st;
  }
  s->cost = r->cost;
  *seq = s;
  *split = 1;
  return ADE_OK;
}

/* A graph the searches cannot hold (ade__sg_init: more than
 * ADE__SG_MAX_SLOTS vertices, of the dual for faces, which has a vertex per
 * edge): known before their start, which they would compute first and
 * ade_optimize then again. */
static int too_big(const ade_cgraph *g, int kind, int method) {
  if (method != ADE_OPT_EXHAUSTIVE && method != ADE_OPT_BNB && method != ADE_OPT_ANNEAL) return 0;
  return (kind == ADE_SEQ_FACE ? g->nedges : g->nalive) > ADE__SG_MAX_SLOTS;
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
    return ade__fail(ADE_EINVAL, "%s does not build %s sequences", ade_opt_name(method),
                     ade__opt_kind_name(kind));
  if (!limits) ade_opt_limits_init(&def), limits = &def;
  int bad = ade__limits_check(limits, "ade_optimize");
  if (bad) return bad;
  if (!limits->memory_limit && g->memlimit != SIZE_MAX) { /* the tape's limit bounds the state tables */
    def = *limits;
    def.memory_limit = g->memlimit ? g->memlimit : 1;
    limits = &def;
  }
  ade__clock clk;
  ade__clock_start(&clk, limits);
  int split = 0, st = opt_split(g, kind, method, limits, &s, &r, &split);
  if (!st && !split && too_big(g, kind, method)) st = ADE_ETOOBIG; /* the start once, below */
  else if (!st && !split) switch (method) {
  case ADE_OPT_EXHAUSTIVE: st = ade__opt_exhaustive(g, kind, limits, &s, &r); break;
  case ADE_OPT_BNB: st = ade__opt_bnb(g, kind, limits, &s, &r); break;
  case ADE_OPT_HIERARCHY:
    st = ade__opt_hierarchy(g, kind, limits->hierarchy, &clk, &s, &r.limited);
    break;
  case ADE_OPT_ANNEAL: st = ade__opt_anneal(g, kind, limits, &s, &r); break;
  default: {
    st = ade__opt_dp(g, method, &s, &r.cost); /* faces: the edge sequence, native */
  }
  }
  if (st == ADE_ETOOBIG && method <= ADE_OPT_ANNEAL && method != ADE_OPT_HIERARCHY) { /* too large to search: the start */
    memset(&r, 0, sizeof r);
    st = ade__opt_heuristic(g, kind, &clk, limits->threads, &s);
    if (!st) r.cost = r.initial = s->cost, r.limited = 1;
  }
  uint64_t cost = 0;
  if (!st) st = ade__seq_finish(g, s, &cost);
  if (!st && (split || method != ADE_OPT_HIERARCHY) && cost != r.cost) /* what the method claimed */
    st = ade__fail(ADE_ESTATE, "internal error: %s found cost %llu, the engines count %llu", ade_opt_name(method),
                   (unsigned long long)r.cost, (unsigned long long)cost);
  r.cost = cost;
  r.seconds = ade__now() - t0;
  if (st) ade_seq_free(s);
  else *seq = s;
  if (report) *report = r;
  return st;
}
