/* bnb.c: branch and bound for generalized face elimination (Problem 2, Section 4.2), on threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mission_internal.h"

#define FOR_BITS ADE__FOR_BITS

typedef struct cmove {
  ade__move m;
  uint64_t cost;
} cmove;

typedef struct shared {
  ade__mrun *r;
  const ade__ldag *root;
  pthread_mutex_t mu;
  _Atomic uint64_t best;  /* incumbent cost */
  ade__mseq best_seq;     /* its moves (under mu) */
  _Atomic uint64_t nodes;
  atomic_int stop;        /* a limit was reached */
  atomic_int deep;        /* a node was not expanded: states past the memory budget */
  ade__ttab *tt;           /* states seen (NULL: none) */
  cmove *roots;
  size_t nroots;
  atomic_size_t next;
  double last_progress;
} shared;

typedef struct worker {
  shared *sh;
  ade__ldag *st;          /* one state per depth */
  int nst;
  ade__move *path;        /* moves from the root */
  cmove *ms;              /* moves of the open nodes, a stack */
  size_t nms, capms;
  ade__keybuf kb;
  int is_main, rc;
  uint64_t nodes;
} worker;

/* Cost of preaccumulating what is left once no face is. */
static uint64_t finish_cost(const ade__ldag *g, const ade__mctx *c) {
  uint64_t x = 0;
  for (int s = g->nx + g->ny; s < g->nslot; s++)
    if (g->v[s].alive && !g->v[s].jac) x = ade__sadd(x, ade__acc_cost(g, c, s, NULL));
  return x;
}

/* Sort moves by cost, stable (a node has a few dozen moves: insertion). */
static void sort_moves(cmove *m, size_t n) {
  for (size_t a = 1; a < n; a++) {
    cmove x = m[a];
    size_t b = a;
    while (b > 0 && m[b - 1].cost > x.cost) m[b] = m[b - 1], b--;
    m[b] = x;
  }
}

/* Push the moves of g onto w->ms, cheapest first; *n gets their number. */
static int expand(worker *w, const ade__ldag *g, size_t *n) {
  const ade__mctx *c = w->sh->r->c;
  size_t start = w->nms;
  for (int u = g->nx + g->ny; u < g->nslot; u++) {
    if (!g->v[u].alive) continue;
    FOR_BITS(g, ade__row(g, g->succ, u), v) {
      if (g->v[v].term) continue;
      if (w->capms - w->nms < 4) {
        size_t nc = w->capms ? 2 * w->capms : 256;
        cmove *q = ade__realloc(w->ms, nc * sizeof *q);
        if (!q) return ade__fail(ADE_ENOMEM, "bnb: out of memory");
        w->ms = q, w->capms = nc;
      }
      ade__move mv[4];
      int k = ade__face_moves(g, c, u, v, mv);
      for (int i = 0; i < k; i++) w->ms[w->nms++] = (cmove){mv[i], ade__move_cost(g, c, &mv[i])};
    }
  }
  *n = w->nms - start;
  sort_moves(w->ms + start, *n);
  return ADE_OK;
}

/* Time and node limits, and progress on the calling thread. */
static void limits(worker *w) {
  shared *sh = w->sh;
  const ade_mission_limits *l = sh->r->lim;
  uint64_t nodes = atomic_fetch_add(&sh->nodes, w->nodes) + w->nodes;
  w->nodes = 0;
  double now = ade__now(), t = now - sh->r->t0;
  if ((l->time_limit > 0 && t >= l->time_limit) || (l->node_limit && nodes >= l->node_limit))
    atomic_store(&sh->stop, 1);
  if (w->is_main && l->progress && t >= 1 && now - sh->last_progress >= 1) {
    sh->last_progress = now;
    ade_mission_progress p = {t, atomic_load(&sh->best), sh->r->bound, nodes};
    l->progress(l->progress_ud, &p);
  }
}

static int improve(worker *w, int depth, uint64_t total) {
  shared *sh = w->sh;
  int rc = ADE_OK;
  pthread_mutex_lock(&sh->mu);
  if (total < atomic_load(&sh->best)) {
    sh->best_seq.n = 0;
    for (int i = 0; i < depth && !rc; i++) rc = ade__mseq_push(&sh->best_seq, &w->path[i]);
    if (!rc) atomic_store(&sh->best, total);
  }
  pthread_mutex_unlock(&sh->mu);
  return rc;
}

/* The search keeps one line dag per depth: at most this many bytes of them. */
#define STATE_BUDGET ((size_t)128 << 20)

/* A state per depth, grown on demand; 1 when depth is past the budget. */
static int state_at(worker *w, int depth) {
  const ade__ldag *r = w->sh->root;
  size_t bytes = (size_t)r->cap * ((size_t)r->words * 16 + sizeof(ade__lvx));
  if ((size_t)depth * bytes > STATE_BUDGET) return 1;
  if (depth < w->nst) return ADE_OK;
  int n = 2 * depth + 8;
  ade__ldag *s = ade__realloc(w->st, (size_t)n * sizeof *s);
  ade__move *p = s ? ade__realloc(w->path, (size_t)n * sizeof *p) : NULL;
  if (s) w->st = s;
  if (!p) return ade__fail(ADE_ENOMEM, "bnb: out of memory");
  w->path = p;
  for (int i = w->nst; i < n; i++) memset(&w->st[i], 0, sizeof w->st[i]);
  w->nst = n;
  return ADE_OK;
}

/* 1 if g was reached before at no more cost (prune), 0, or an error. */
static int seen(worker *w, const ade__ldag *g) {
  if (!w->sh->tt) return 0;
  int rc = ade__ldag_key(g, &w->kb);
  return rc ? rc : ade__ttab_visit(w->sh->tt, w->kb.k, w->kb.n, g->cost);
}

static int dfs(worker *w, int depth) {
  shared *sh = w->sh;
  const ade__mctx *c = sh->r->c;
  ade__ldag *g = &w->st[depth];
  if ((++w->nodes & 15) == 0 || g->nslot > 256) limits(w); /* big states: a node takes long */
  if (atomic_load(&sh->stop)) return ADE_OK;
  if (!ade__ldag_has_face(g)) return improve(w, depth, ade__sadd(g->cost, finish_cost(g, c)));
  uint64_t best = atomic_load(&sh->best);
  if (ade__sadd(g->cost, ade__ldag_bound_cut(g, c, best > g->cost ? best - g->cost : 0)) >= best) return ADE_OK;
  int rc = seen(w, g);
  if (rc) return rc < 0 ? rc : ADE_OK;
  if ((rc = state_at(w, depth + 1)) != 0) {
    if (rc > 0) atomic_store(&sh->deep, 1);
    return rc > 0 ? ADE_OK : rc;
  }
  g = &w->st[depth]; /* state_at may have moved the states */
  size_t start = w->nms, n;
  rc = expand(w, g, &n);
  for (size_t i = 0; i < n && !rc && !atomic_load(&sh->stop); i++) {
    cmove cm = w->ms[start + i];
    g = &w->st[depth]; /* deeper calls may have moved the states */
    if (ade__sadd(g->cost, cm.cost) >= atomic_load(&sh->best)) break; /* sorted: the rest cost more */
    if ((rc = ade__ldag_assign(&w->st[depth + 1], g))) break;
    if ((rc = ade__move_apply(&w->st[depth + 1], c, &cm.m, NULL, NULL))) break;
    w->path[depth] = cm.m;
    rc = dfs(w, depth + 1);
  }
  w->nms = start;
  return rc;
}

static void *work(void *arg) {
  worker *w = arg;
  shared *sh = w->sh;
  size_t i;
  w->rc = state_at(w, 1);
  if (w->rc > 0) { /* not even one level fits: the incumbent stands */
    atomic_store(&sh->deep, 1);
    w->rc = ADE_OK;
    return NULL;
  }
  if (!w->rc) w->rc = ade__ldag_assign(&w->st[0], sh->root);
  while (!w->rc && !atomic_load(&sh->stop) && (i = atomic_fetch_add(&sh->next, 1)) < sh->nroots) {
    const cmove *cm = &sh->roots[i];
    if (cm->cost >= atomic_load(&sh->best)) continue;
    if ((w->rc = ade__ldag_assign(&w->st[1], sh->root))) break;
    if ((w->rc = ade__move_apply(&w->st[1], sh->r->c, &cm->m, NULL, NULL))) break;
    w->path[0] = cm->m;
    w->rc = dfs(w, 1);
  }
  limits(w);
  return NULL;
}

static void worker_free(worker *w) {
  for (int i = 0; i < w->nst; i++) ade__ldag_free(&w->st[i]);
  ade__free(w->st);
  ade__free(w->path);
  ade__free(w->ms);
  ade__keybuf_free(&w->kb);
}

/* Keep s in *best when it is cheaper. */
static int keep(ade__mrun *r, ade__mseq *s, ade__mseq *best, uint64_t *cost) {
  uint64_t x;
  int rc = ade__mseq_cost(r->c, s, &x);
  if (!rc && x < *cost) {
    *cost = x;
    ade__mseq_free(best);
    *best = *s;
    *s = (ade__mseq){0};
  }
  ade__mseq_free(s);
  return rc;
}

/* The cheapest plan of the heuristics (greedy-cost only on small DAGs,
 * dp on chains) and start (may be NULL): the incumbent to start from.
 * Sparse tangent mode always completes (there must be one); the others
 * stop at the time limit, not started or cut short (the search then stops
 * at once and says so): their face scans grow with the faces at each
 * step (cavity's 464 parts: most of a minute past a 2 s limit). */
static int incumbent(ade__mrun *r, const ade__mseq *start, ade__mseq *seq, uint64_t *cost) {
  int rc = ADE_OK, small = r->c->d->ne <= 64;
  *cost = UINT64_MAX;
  for (int h = 0; h < 6 && !rc; h++) {
    ade__mseq s = {0};
    int ran = 1;
    r->clocked = h > 0 && h < 4;
    if (ade__mrun_expired(r)) ran = 0;
    else if (h < 2) rc = ade__m_sparse(r, h, &s);
    else if (h == 2 || h == 3) ran = h == 2 || small, rc = ran ? ade__m_greedy(r, h - 2, &s) : ADE_OK;
    else if (h == 4) ran = !ade__m_dp(r, &s);           /* fails unless a chain */
    else if ((ran = start != NULL)) rc = ade__mseq_copy(&s, start);
    if (rc == ADE_ELIMIT) rc = ADE_OK, ran = 0;
    if (!ran) ade__clear_error();
    if (!rc && ran) rc = keep(r, &s, seq, cost);
    ade__mseq_free(&s);
  }
  r->clocked = 0;
  r->proven = 0;
  return rc;
}

/* Run the workers: the calling thread and threads - 1 more. */
static int run_workers(shared *sh, int threads) {
  worker *w = ade__calloc((size_t)threads, sizeof *w);
  pthread_t *tid = ade__calloc((size_t)threads, sizeof *tid);
  int rc = (!w || !tid) ? ade__fail(ADE_ENOMEM, "bnb: out of memory") : ADE_OK, started = 1;
  for (int i = 0; !rc && i < threads; i++) w[i] = (worker){.sh = sh, .is_main = i == 0};
  for (; !rc && started < threads; started++)
    if (pthread_create(&tid[started], NULL, work, &w[started])) break;
  if (!rc) work(&w[0]);
  for (int i = 1; !rc && i < started; i++) pthread_join(tid[i], NULL);
  for (int i = 0; !rc && i < threads; i++) {
    if (w[i].rc && !rc) rc = w[i].rc;
  }
  for (int i = 0; w && i < threads; i++) worker_free(&w[i]);
  ade__free(w);
  ade__free(tid);
  return rc;
}

/* The root's moves, cheapest first. */
static int root_moves(shared *sh) {
  worker w = {.sh = sh};
  size_t n;
  int rc = expand(&w, sh->root, &n);
  sh->roots = w.ms;
  sh->nroots = rc ? 0 : n;
  return rc;
}

int ade__m_bnb(ade__mrun *r, const ade__mseq *start, ade__mseq *out) {
  shared sh = {.r = r};
  ade__ldag root;
  uint64_t cost;
  int rc = incumbent(r, start, &sh.best_seq, &cost);
  if (rc) {
    ade__mseq_free(&sh.best_seq);
    return rc;
  }
  atomic_store(&sh.best, cost);
  if ((rc = ade__ldag_init(&root, r->c))) {
    ade__mseq_free(&sh.best_seq);
    return rc;
  }
  sh.root = &root;
  r->bound = ade__ldag_bound(&root, r->c);
  pthread_mutex_init(&sh.mu, NULL);
  rc = ade__ttab_create(&sh.tt, (size_t)256 << 20);
  if (!rc) rc = root_moves(&sh);
  if (!rc && !sh.nroots && finish_cost(&root, r->c) < atomic_load(&sh.best)) {
    sh.best_seq.n = 0; /* no face at all: preaccumulating is all there is */
    atomic_store(&sh.best, finish_cost(&root, r->c));
  }
  int threads = r->lim->threads > 1 ? ADE__MIN(r->lim->threads, 256) : 1;
  if (!rc) rc = run_workers(&sh, threads);
  pthread_mutex_destroy(&sh.mu);
  r->nodes = atomic_load(&sh.nodes);
  r->limited = atomic_load(&sh.stop) || atomic_load(&sh.deep);
  r->proven = !rc && !r->limited;
  *out = sh.best_seq;
  ade__free(sh.roots);
  ade__ttab_free(sh.tt);
  ade__ldag_free(&root);
  return rc;
}
