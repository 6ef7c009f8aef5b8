/* opt_exhaustive.c: the optimum by a shortest path over the metagraph, memoized on canonical graph states (the oracle for tiny graphs). */
#include "opt_internal.h"

typedef struct ex {
  ade__sg s;
  ade__table tab;      /* canonical state -> cost to finish it */
  ade__moves mv;       /* a stack of per-depth move lists */
  uint64_t *key;
  size_t kcap, klen;
  ade__clock clk;
  uint64_t nodes, violations, ub;
  int kind, bound, check;
} ex;

/* The metagraph of [F] Section 4 is acyclic (Lemma 4), so the cost h(S)
 * to finish a state S is min over its steps of (step cost + cost to finish
 * the result), and each state is solved once and remembered by its key
 * (as lo << 1 | exact). With a budget b, solve returns h(S) if h(S) < b,
 * and otherwise a lower bound >= b (fail-soft); the bounded search (x->bound)
 * also starts from the lower bound of opt_bound.c, so states that cannot
 * beat the budget are not expanded. Without it every state reachable from
 * the start is solved: the plain shortest path, which the tests use to
 * check the lower bound (x->check counts states where it exceeds h). */
static int solve(ex *x, uint64_t budget, uint64_t *h) {
  uint64_t best = UINT64_MAX, sub, c, memo = 0, lo = 0;
  if (ade__sg_done(&x->s)) {
    *h = 0;
    return ADE_OK;
  }
  int st = ade__sg_key(&x->s, &x->key, &x->kcap, &x->klen);
  if (st) return st;
  int known = ade__table_get(&x->tab, x->key, x->klen, &memo);
  if (known) lo = memo >> 1;
  if (known && ((memo & 1) || lo >= budget)) {
    *h = lo;
    return ADE_OK;
  }
  if (ade__clock_expired(&x->clk, ++x->nodes)) return ADE_ELIMIT;
  ade__clock_report(&x->clk, ADE_OPT_EXHAUSTIVE, x->kind, x->ub, 0, x->nodes, 0);
  uint64_t lb = x->bound || x->check ? ade__sg_lower(&x->s, UINT64_MAX) : 0;
  if (x->bound && lb > lo) lo = lb;
  if (lo >= budget) {
    best = lo;
  } else {
    size_t base = x->mv.len;
    st = ade__sg_moves(&x->s, &x->mv, 1);
    for (size_t i = base; !st && i < x->mv.len; i++) {
      ade__move m = x->mv.m[i];
      uint64_t cap = best < budget ? best : budget;
      if (m.cost >= cap && x->s.kind == ADE_SEQ_VERTEX) { /* vertex steps cost what they say */
        best = m.cost < best ? m.cost : best;
        continue;
      }
      if ((st = ade__sg_apply(&x->s, &m, &c))) break;
      st = cap > c ? solve(x, cap - c, &sub) : ADE_OK;
      if (cap <= c) sub = 0;
      ade__sg_undo(&x->s);
      if (!st && c + sub < best) best = c + sub;
    }
    x->mv.len = base;
  }
  if (!st && x->check && best < budget && lb > best) x->violations++;
  if (!st) st = ade__sg_key(&x->s, &x->key, &x->kcap, &x->klen);
  if (!st) st = ade__table_put(&x->tab, x->key, x->klen, best << 1 | (best < budget));
  if (st == ADE_ETOOBIG) st = ADE_ELIMIT; /* the memory limit */
  *h = best;
  return st;
}

/* Walk from the start along steps whose cost plus the remembered cost of
 * their result equals the cost of the state. */
static int trace(ex *x, uint64_t total, ade_elim_seq *out) {
  uint64_t h = total, c, sub;
  size_t depth = 0;
  int st = ADE_OK;
  while (!st && !ade__sg_done(&x->s)) {
    size_t base = x->mv.len, i;
    st = ade__sg_moves(&x->s, &x->mv, 1);
    for (i = base; !st && i < x->mv.len; i++) {
      ade__move m = x->mv.m[i];
      ade_elim_step step;
      ade__sg_step(&x->s, &m, &step);
      if ((st = ade__sg_apply(&x->s, &m, &c))) break;
      if (c <= h && !(st = solve(x, h - c + 1, &sub)) && c + sub == h) {
        st = ade_seq_push(out, step.a, step.b, step.dir);
        h = sub;
        depth++;
        break;
      }
      ade__sg_undo(&x->s);
    }
    if (!st && i == x->mv.len) st = ade__fail(ADE_ESTATE, "internal error: no step realizes the optimum");
    x->mv.len = base;
  }
  while (depth--) ade__sg_undo(&x->s);
  return st;
}

/* The search; bound: use lower bounds and an upper bound (the best
 * heuristic); check: count states whose lower bound exceeds their cost. */
int ade__exhaustive(const ade_cgraph *g, int kind, const ade_opt_limits *l, int bound, int check,
                    ade_elim_seq **seq, ade_opt_report *r, uint64_t *violations) {
  ex x;
  uint64_t h = 0, ub = UINT64_MAX - 1;
  ade_elim_seq *heur = NULL;
  memset(&x, 0, sizeof x);
  x.kind = kind;
  x.bound = bound;
  x.check = check;
  *seq = NULL;
  ade__clock_start(&x.clk, l);
  ade__clock half; /* the start gets at most half the time */
  ade__clock_part(&x.clk, 0.5, &half);
  int st = bound ? ade__opt_heuristic(g, kind, &half, 1, &heur) : ADE_OK;
  if (heur) ub = x.ub = r->initial = heur->cost;
  uint64_t room = kind == ADE_SEQ_FACE ? ade__face_room(g, ADE__SG_MAX_SLOTS) : 0;
  if (!st) st = ade__sg_init(&x.s, g, kind, (size_t)(room < ub ? room : ub));
  x.s.deadline = x.clk.deadline;
  if (!st) st = ade__table_init(&x.tab, l->memory_limit);
  if (!st) st = solve(&x, ub + 1, &h);
  if (!st) st = ade_seq_create(seq, kind);
  if (!st) st = trace(&x, h, *seq);
  r->nodes = x.nodes;
  r->states = x.tab.used;
  if (violations) *violations = x.violations;
  if (!st) {
    r->cost = r->bound = h;
    r->optimal = 1;
  } else if (st == ADE_ELIMIT) { /* the best heuristic, not proven */
    ade_seq_free(*seq);
    *seq = NULL;
    r->limited = 1;
    if (!heur) st = ade__opt_heuristic(g, kind, &x.clk, 1, &heur);
    else st = ADE_OK;
    if (!st) r->cost = r->initial = heur->cost, *seq = heur, heur = NULL;
  }
  if (st) {
    ade_seq_free(*seq);
    *seq = NULL;
  }
  ade_seq_free(heur);
  ade__moves_free(&x.mv);
  ade__free(x.key);
  ade__table_free(&x.tab);
  ade__sg_free(&x.s);
  return st;
}

int ade__opt_exhaustive(const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **seq,
                        ade_opt_report *r) {
  return ade__exhaustive(g, kind, l, 1, 0, seq, r, NULL);
}
