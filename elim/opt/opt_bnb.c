/* opt_bnb.c: branch and bound over vertex, edge or face elimination sequences, in threads, with time and node limits. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "opt_internal.h"

/* Keys longer than this (words) are not remembered: large graphs rely on
 * the bound and on commuting steps alone. */
#define MAX_KEY 4096u

/* The state table, shared by the workers: shards, each with its lock. */
#define SHARDS 64
typedef struct table {
  ade__table t[SHARDS];
  pthread_mutex_t mu[SHARDS];
  int n;                        /* shards initialized */
} table;

static size_t shard(const uint64_t *k, size_t len) {
  uint64_t h = len;
  for (size_t i = 0; i < len; i++) h = (h ^ k[i]) * 0x100000001b3ull;
  return (size_t)((h ^ (h >> 29)) % SHARDS);
}

static int table_init(table *t, size_t limit) {
  t->n = 0;
  for (int i = 0; i < SHARDS; i++) {
    if (pthread_mutex_init(&t->mu[i], NULL)) return ade__fail(ADE_ENOMEM, "cannot create a mutex");
    int st = ade__table_init(&t->t[i], limit / SHARDS);
    if (st) {
      pthread_mutex_destroy(&t->mu[i]);
      return st;
    }
    t->n++;
  }
  return ADE_OK;
}

static void table_free(table *t) {
  for (int i = 0; i < t->n; i++) {
    ade__table_free(&t->t[i]);
    pthread_mutex_destroy(&t->mu[i]);
  }
  t->n = 0;
}

static int table_get(table *t, const uint64_t *k, size_t len, uint64_t *v) {
  size_t i = shard(k, len);
  pthread_mutex_lock(&t->mu[i]);
  int found = ade__table_get(&t->t[i], k, len, v);
  pthread_mutex_unlock(&t->mu[i]);
  return found;
}

/* Raise the remembered bound of k to at least v. */
static int table_raise(table *t, const uint64_t *k, size_t len, uint64_t v) {
  size_t i = shard(k, len);
  uint64_t old = 0;
  int st = ADE_OK;
  pthread_mutex_lock(&t->mu[i]);
  if (!ade__table_get(&t->t[i], k, len, &old) || old < v) st = ade__table_put(&t->t[i], k, len, v);
  pthread_mutex_unlock(&t->mu[i]);
  return st;
}

static size_t table_used(const table *t) {
  size_t u = 0;
  for (int i = 0; i < t->n; i++) u += t->t[i].used;
  return u;
}

/* Allocation from the workers goes through the caller's allocator hook,
 * which belongs to the calling thread: a worker posts the request and the
 * calling thread, which only watches the search, serves it. */
typedef struct proxy {
  pthread_mutex_t mu;
  pthread_cond_t ask, answer;
  void *p, *result;
  size_t n;
  int pending, served;
} proxy;

static void *proxy_alloc(void *ud, void *p, size_t n) {
  proxy *x = ud;
  pthread_mutex_lock(&x->mu);
  while (x->pending) pthread_cond_wait(&x->answer, &x->mu);
  x->p = p, x->n = n, x->pending = 1, x->served = 0;
  pthread_cond_broadcast(&x->ask);
  while (!x->served) pthread_cond_wait(&x->answer, &x->mu);
  void *r = x->result;
  x->pending = 0;
  pthread_cond_broadcast(&x->answer);
  pthread_mutex_unlock(&x->mu);
  return r;
}

/* Serve a pending request, or wait for one (or for the workers to end) at
 * most 10 ms. */
static void proxy_serve(proxy *x, _Atomic size_t *running) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += 10 * 1000 * 1000;
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&x->mu);
  if (!(x->pending && !x->served) && atomic_load(running)) pthread_cond_timedwait(&x->ask, &x->mu, &ts);
  if (x->pending && !x->served) {
    x->result = ade__realloc(x->p, x->n);
    x->served = 1;
    pthread_cond_broadcast(&x->answer);
  }
  pthread_mutex_unlock(&x->mu);
}

typedef struct shared {
  const ade_cgraph *g;
  const ade_opt_limits *l;
  int kind, threads;
  size_t room;
  ade__clock clk;
  pthread_mutex_t lock;
  _Atomic uint64_t best, nodes, cuts;
  _Atomic int stop, proved;     /* proved: a worker finished its search */
  _Atomic size_t running;
  ade_elim_step *bseq;          /* the incumbent (under lock) */
  size_t blen, bcap;
  table tt;                     /* state -> lower bound on the cost to finish it */
  int use_tt;
  uint64_t root_bound;
  proxy px;
  int err;
} shared;

typedef struct worker {
  shared *sh;
  int index;
  ade__sg s;
  int use_tt;
  ade__moves mv;
  uint64_t *key, *nb;           /* nb: per depth, the neighbours of the step taken (vertex kind) */
  size_t kcap, klen, nbcap;
  ade_elim_step *path;
  size_t plen, pcap;
  uint64_t local;
  int err;
} worker;

static int grow_steps(ade_elim_step **p, size_t *cap, size_t need) {
  return ade__grow((void **)p, cap, need, sizeof **p) ? ade__fail(ADE_ENOMEM, "out of memory for a path of %zu steps", need)
                                                     : ADE_OK;
}

/* A better complete sequence: publish it. */
static void improve(worker *w, uint64_t g) {
  shared *sh = w->sh;
  pthread_mutex_lock(&sh->lock);
  if (g < atomic_load(&sh->best) && !grow_steps(&sh->bseq, &sh->bcap, w->plen)) {
    memcpy(sh->bseq, w->path, w->plen * sizeof *w->path);
    sh->blen = w->plen;
    atomic_store(&sh->best, g);
  }
  pthread_mutex_unlock(&sh->lock);
}

static void fail(worker *w, int st) {
  if (!w->err) w->err = st;
  atomic_store(&w->sh->stop, 1);
}

/* Count a node; check the limits now and then. */
static int tick(worker *w) {
  shared *sh = w->sh;
  uint64_t n = atomic_fetch_add(&sh->nodes, 1) + 1;
  if (sh->clk.node_limit && n >= sh->clk.node_limit) atomic_store(&sh->stop, 1);
  if (ade__clock_expired(&sh->clk, 0)) atomic_store(&sh->stop, 1); /* a node's bound may take 0.1 s */
  if ((++w->local & 63) == 0) {
    if (sh->threads == 1)
      ade__clock_report(&sh->clk, ADE_OPT_BNB, sh->kind, atomic_load(&sh->best), sh->root_bound, n,
                        atomic_load(&sh->cuts));
  }
  return atomic_load(&sh->stop);
}

/* The key of the state into w->key. */
static int key_of(worker *w) {
  int st = ade__sg_key(&w->s, &w->key, &w->kcap, &w->klen);
  if (st) {
    fail(w, st);
    return st;
  }
  return ADE_OK;
}

/* Remember h as a lower bound on the cost to finish the state. */
static void learn(worker *w, uint64_t h) {
  int st = table_raise(&w->sh->tt, w->key, w->klen, h);
  if (st && st != ADE_ETOOBIG) fail(w, st);
}

/* A total order on steps; of two commuting steps only the smaller may come first. */
static int before(const ade__move *x, const ade__move *y) {
  if (x->a != y->a) return x->a < y->a;
  if (x->b != y->b) return x->b < y->b;
  return x->dir < y->dir;
}

static int push_nb(worker *w, size_t depth, uint32_t a) {
  size_t need = (depth + 1) * w->s.W;
  if (need > w->nbcap) {
    size_t nc = 2 * need;
    uint64_t *p = ade__realloc(w->nb, nc * sizeof *p);
    if (!p) return ade__fail(ADE_ENOMEM, "out of memory for the search stack");
    w->nb = p;
    w->nbcap = nc;
  }
  ade__sg_neighbours(&w->s, a, w->nb + depth * w->s.W);
  return ADE_OK;
}

static void dfs(worker *w, uint64_t g, const ade__move *last, size_t depth);

/* Take step m (from depth to depth + 1) and search below it. */
static void branch(worker *w, uint64_t g, const ade__move *m, size_t depth) {
  uint64_t c;
  int st = grow_steps(&w->path, &w->pcap, w->plen + 1);
  if (!st && w->s.kind == ADE_SEQ_VERTEX) st = push_nb(w, depth, m->a);
  if (!st) ade__sg_step(&w->s, m, &w->path[w->plen]);
  if (!st) st = ade__sg_apply(&w->s, m, &c);
  if (st) {
    fail(w, st);
    return;
  }
  w->plen++;
  dfs(w, g + c, m, depth + 1);
  w->plen--;
  ade__sg_undo(&w->s);
}

/* The state table holds, per state, a lower bound on the cost to finish
 * it: first the bound of opt_bound.c, then, once its subtree is searched
 * without finding a sequence cheaper than the incumbent B, B - g (no
 * cheaper completion exists). A state reached again is cut when g plus
 * what is known reaches the incumbent. Steps that commute lead to the same
 * state at the same cost, so the table explores them in one order only;
 * without a table (large graphs) the rule of ade__sg_independent does:
 * of two commuting steps only the smaller may come first. (The two are
 * not combined: the steps allowed after a state would then depend on the
 * path to it, and a remembered bound would no longer cover them all.) */
static void dfs(worker *w, uint64_t g, const ade__move *last, size_t depth) {
  shared *sh = w->sh;
  uint64_t hl = 0;
  if (tick(w)) return;
  if (ade__sg_done(&w->s)) {
    if (g < atomic_load(&sh->best)) improve(w, g);
    return;
  }
  uint64_t best = atomic_load(&sh->best), lb = 0;
  int keyed = 0;
  if (g >= best || g + (lb = ade__sg_lower(&w->s, best - g)) >= best ||
      ((keyed = w->use_tt && !key_of(w)) && table_get(&sh->tt, w->key, w->klen, &hl) && g + hl >= best)) {
    atomic_fetch_add(&sh->cuts, 1);
    return;
  }
  if (keyed && lb > hl) learn(w, hl = lb);
  size_t base = w->mv.len;
  int st = ade__sg_moves(&w->s, &w->mv, 1);
  if (st) fail(w, st);
  size_t nm = w->mv.len - base, rot = depth < 2 && nm ? (size_t)w->index % nm : 0;
  for (size_t j = 0; !st && j < nm && !atomic_load(&sh->stop); j++) {
    ade__move m = w->mv.m[base + (j + rot) % nm];
    if (!w->use_tt && last && w->s.kind != ADE_SEQ_FACE && before(&m, last) &&
        ade__sg_independent(&w->s, last, w->nb + (depth - 1) * w->s.W, &m))
      continue; /* explored in the other order */
    branch(w, g, &m, depth);
  }
  w->mv.len = base;
  best = atomic_load(&sh->best);
  if (keyed && !atomic_load(&sh->stop) && best > g && best - g > hl && !key_of(w)) learn(w, best - g);
}

/* -------------------------------------------------------------- threads */

static int worker_init(worker *w, shared *sh, int index) {
  memset(w, 0, sizeof *w);
  w->sh = sh;
  w->index = index;
  int st = ade__sg_init(&w->s, sh->g, sh->kind, sh->room);
  w->s.deadline = sh->clk.deadline;
  if (!st) /* no table for huge keys, or when asked (a limit under 64 KiB) */
    w->use_tt = sh->use_tt && (sh->kind == ADE_SEQ_FACE ? 1 : w->s.W * (1 + w->s.nv)) <= MAX_KEY;
  return st;
}

static void worker_free(worker *w) {
  ade__sg_free(&w->s);
  ade__moves_free(&w->mv);
  ade__free(w->key);
  ade__free(w->nb);
  ade__free(w->path);
}

/* Every worker searches the whole tree, sharing the incumbent and the state
 * table ("lazy SMP"); near the root each starts with a different step, so
 * they spread out and cut each other's subtrees through the table. The
 * first to finish has proved the optimum (every cut is sound whoever made
 * it) and stops the others. */
static void *run_worker(void *arg) {
  worker *w = arg;
  shared *sh = w->sh;
  ade_set_allocator(proxy_alloc, &sh->px);
  dfs(w, 0, NULL, 0);
  if (!w->err && !atomic_load(&sh->stop)) atomic_store(&sh->proved, 1);
  atomic_store(&sh->stop, 1);
  pthread_mutex_lock(&sh->px.mu); /* wake the calling thread */
  atomic_fetch_sub(&sh->running, 1);
  pthread_cond_broadcast(&sh->px.ask);
  pthread_mutex_unlock(&sh->px.mu);
  return NULL;
}

/* The calling thread watches the limits and reports progress. */
static int run_threads(shared *sh) {
  int T = sh->threads, st = ADE_OK, started = 0, sync = 0;
  worker *ws = ade__calloc((size_t)T, sizeof *ws);
  pthread_t *tid = ade__calloc((size_t)T, sizeof *tid);
  if (!ws || !tid) st = ade__fail(ADE_ENOMEM, "out of memory for %d workers", T);
  if (!st && !pthread_mutex_init(&sh->px.mu, NULL)) sync |= 1;
  if (!st && !pthread_cond_init(&sh->px.ask, NULL)) sync |= 2;
  if (!st && !pthread_cond_init(&sh->px.answer, NULL)) sync |= 4;
  if (!st && sync != 7) st = ade__fail(ADE_ENOMEM, "cannot create the workers' locks");
  for (int t = 0; !st && t < T; t++) {
    if ((st = worker_init(&ws[t], sh, t))) {
      worker_free(&ws[t]);
      break;
    }
    atomic_fetch_add(&sh->running, 1);
    if (pthread_create(&tid[t], NULL, run_worker, &ws[t])) {
      atomic_fetch_sub(&sh->running, 1);
      worker_free(&ws[t]);
      st = ade__fail(ADE_ENOMEM, "cannot start worker thread %d", t);
      break;
    }
    started++;
  }
  if (st) atomic_store(&sh->stop, 1);
  while (atomic_load(&sh->running)) {
    proxy_serve(&sh->px, &sh->running);
    if (ade__clock_expired(&sh->clk, 0)) atomic_store(&sh->stop, 1);
    ade__clock_report(&sh->clk, ADE_OPT_BNB, sh->kind, atomic_load(&sh->best), sh->root_bound,
                      atomic_load(&sh->nodes), atomic_load(&sh->cuts));
  }
  for (int t = 0; t < started; t++) {
    pthread_join(tid[t], NULL);
    if (!st && ws[t].err) /* its message stayed with its thread */
      st = ade__fail(ws[t].err, "branch and bound: worker %d failed: %s", t, ade_strerror(ws[t].err));
    worker_free(&ws[t]);
  }
  if (sync & 1) pthread_mutex_destroy(&sh->px.mu);
  if (sync & 2) pthread_cond_destroy(&sh->px.ask);
  if (sync & 4) pthread_cond_destroy(&sh->px.answer);
  ade__free(ws);
  ade__free(tid);
  return st;
}

/* ------------------------------------------------------------------ api */

/* Edges and faces: search the less general kind first, with a third of
 * the time left (and of the node limit), and start from its result if it is cheaper (the optima
 * satisfy face <= edge <= vertex, and the smaller search space often finds
 * good sequences sooner). */
static int seed(const ade_cgraph *g, int kind, const ade_opt_limits *l, const ade__clock *clk, ade_elim_seq **h) {
  ade_opt_limits sub = *l;
  ade_opt_report r;
  ade_elim_seq *lo = NULL;
  if (ade__clock_expired(clk, 0)) return ADE_OK; /* out of time: the start as it is */
  sub.progress = NULL;
  sub.time_limit = ade__clock_share(clk, 1.0 / 3);
  sub.node_limit = l->node_limit / 3 + (l->node_limit ? 1 : 0);
  memset(&r, 0, sizeof r);
  int st = ade__opt_bnb(g, kind - 1, &sub, &lo, &r);
  if (!st && lo->cost < (*h)->cost) { /* kept in its kind, as the start is */
    ade_seq_free(*h);
    *h = lo, lo = NULL;
  }
  ade_seq_free(lo);
  return st;
}

static int start(shared *sh, const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **h) {
  memset(sh, 0, sizeof *sh);
  sh->g = g;
  sh->l = l;
  sh->kind = kind;
  sh->threads = l->threads > 1 ? l->threads : 1;
  if (sh->threads > 256) sh->threads = 256;
  ade__clock_start(&sh->clk, l);
  ade__clock half; /* the start gets at most half the time */
  ade__clock_part(&sh->clk, 0.5, &half);
  int st = ade__opt_heuristic(g, kind, &half, sh->threads, h);
  if (!st && kind != ADE_SEQ_VERTEX) st = seed(g, kind, l, &sh->clk, h);
  if (st) return st;
  uint64_t ub = (*h)->cost;
  sh->room = kind == ADE_SEQ_FACE ? (size_t)(ub < ADE__SG_MAX_SLOTS ? ub : ADE__SG_MAX_SLOTS) : 0;
  atomic_store(&sh->best, ub);
  /* A start of a less general kind (the same cost) is not the search's
   * incumbent in steps: the search only records sequences that beat it. */
  int own = (*h)->kind == kind;
  st = grow_steps(&sh->bseq, &sh->bcap, (own ? (*h)->len : 0) + 1);
  if (!st && own && (*h)->len) memcpy(sh->bseq, (*h)->step, (*h)->len * sizeof *sh->bseq); /* none: no Z */
  sh->blen = own ? (*h)->len : 0;
  return st;
}

/* 1 if steps x[0..n) are those of h (the search kept its start). */
static int same_steps(const ade_elim_seq *h, const ade_elim_step *x, size_t n) {
  if (!h || h->len != n) return 0;
  for (size_t t = 0; t < n; t++)
    if (h->step[t].a != x[t].a || h->step[t].b != x[t].b || h->step[t].dir != x[t].dir) return 0;
  return 1;
}

int ade__opt_bnb(const ade_cgraph *g, int kind, const ade_opt_limits *l, ade_elim_seq **seq, ade_opt_report *r) {
  shared sh;
  worker w0;
  ade_elim_seq *h = NULL;
  int st = start(&sh, g, kind, l, &h), locked = 0;
  memset(&w0, 0, sizeof w0);
  if (!st) st = pthread_mutex_init(&sh.lock, NULL) ? ade__fail(ADE_ENOMEM, "cannot create a mutex") : ADE_OK;
  locked = !st;
  size_t limit = l->memory_limit ? l->memory_limit : (size_t)256 << 20;
  sh.use_tt = limit >= 65536;
  if (!st && sh.use_tt) st = table_init(&sh.tt, limit);
  if (!st) st = worker_init(&w0, &sh, 0);
  if (!st) {
    r->initial = h->cost;
    r->bound = sh.root_bound = ade__sg_lower(&w0.s, UINT64_MAX);
    if (r->bound < h->cost) {
      if (sh.threads == 1) {
        dfs(&w0, 0, NULL, 0);
        st = w0.err;
        atomic_store(&sh.proved, !atomic_load(&sh.stop));
      } else {
        st = run_threads(&sh);
      }
    } else {
      atomic_store(&sh.proved, 1);
    }
  }
  if (!st) {
    r->cost = atomic_load(&sh.best);
    r->optimal = atomic_load(&sh.proved);
    r->limited = !r->optimal;
    if (r->optimal) r->bound = r->cost;
    r->nodes = atomic_load(&sh.nodes);
    r->cuts = atomic_load(&sh.cuts);
    r->states = table_used(&sh.tt);
    /* The search kept its start: the start itself, in its own kind (a
     * vertex or edge start of an edge or face search is applied without
     * conversion: same cost), checked if it was built so. */
    int kept = h->kind != kind ? r->cost >= h->cost : same_steps(h, sh.bseq, sh.blen);
    if (kept) *seq = h, h = NULL;
    else if (!(st = ade__seq_from_steps(kind, sh.bseq, sh.blen, seq))) (*seq)->cost = r->cost;
  }
  if (locked) pthread_mutex_destroy(&sh.lock);
  table_free(&sh.tt);
  worker_free(&w0);
  ade__free(sh.bseq);
  ade_seq_free(h);
  return st;
}
