/* parts.c: partitions of a tape's records (regions and their levels when nested, call sites, repeats, automatic) for elimination in levels. */
#include <string.h>

#include "elim_internal.h"
#include "eval_internal.h"
#include "u64map_internal.h"

/* Records of no region cut by ADE_PARTS_AUTO into parts of at most this many. */
#define CUT_RECORDS 1024
/* Repeats: k-gram length, shortest period, rounds, candidate periods per round. */
#define KGRAM 4
#define MIN_PERIOD 3
#define ROUNDS 4
#define CANDIDATES 8

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdu;
  return h ^ (h >> 33);
}

/* The records' opcodes, operands and call sites, read once (indexed by id). */
typedef struct recs {
  size_t R;
  uint8_t *op;
  uint8_t *nar;   /* operands kept (a vector elemental's first ADE__MAX_ARITY) */
  uint64_t *arg;  /* ADE__MAX_ARITY per id */
  uint32_t *site; /* only for call sites */
} recs;

static void recs_free(recs *r) {
  ade__free(r->op);
  ade__free(r->nar);
  ade__free(r->arg);
  ade__free(r->site);
}

static int recs_load(ade_tape *t, size_t R, int sites, recs *r) {
  size_t per = 2 + ADE__MAX_ARITY * sizeof(uint64_t) + (sites ? sizeof(uint32_t) : 0);
  memset(r, 0, sizeof *r);
  r->R = R;
  if (t->memlimit && R > t->memlimit / per)
    return ade__fail(ADE_ENOMEM, "partition: %zu records need %zu bytes, the tape's memory limit is %zu", R,
                     R * per, t->memlimit);
  r->op = ade__calloc(R + 1, 1);
  r->nar = ade__calloc(R + 1, 1);
  r->arg = ade__calloc((R + 1) * ADE__MAX_ARITY, sizeof *r->arg);
  if (sites) r->site = ade__calloc(R + 1, sizeof *r->site);
  if (!r->op || !r->nar || !r->arg || (sites && !r->site)) return ade__fail(ADE_ENOMEM, "partition: out of memory for %zu records", R);
  for (size_t k = 0; k < t->meta.nchunks; k++) {
    int st = ade__view_load(t, k);
    if (st) return st;
    const ade__view *v = &t->view;
    if (v->first >= R) break; /* a prefix (ade__parts_period) */
    for (uint32_t i = 0; i < v->n && v->first + i < R; i++) {
      size_t id = (size_t)v->first + i + 1;
      const uint64_t *a;
      int na = ade__view_args(v, i, &a);
      r->op[id] = v->op[i];
      r->nar[id] = (uint8_t)(na < ADE__MAX_ARITY ? na : ADE__MAX_ARITY);
      memcpy(r->arg + id * ADE__MAX_ARITY, a, r->nar[id] * sizeof *r->arg);
      if (sites) r->site[id] = v->site[i];
    }
  }
  return ADE_OK;
}

/* ------------------------------------------------------------- regions */

static int by_regions(const ade_tape *t, size_t R, size_t *part, size_t *np) {
  size_t nr = ade_tape_num_regions(t);
  /* Regions are listed as they begin, a region after those holding it: the
   * innermost one is written last. */
  for (size_t r = 0; r < nr; r++) {
    ade_region g;
    int st = ade_tape_region(t, r, &g);
    if (st) return st;
    for (uint64_t op = g.first_op; op < g.end_op && op < R; op++) part[op + 1] = r;
  }
  *np = nr;
  return ADE_OK;
}

/* ---------------------------------------------------------- call sites */

/* fn[s]: a number for the function of site string s (1-based), the same for
 * every site in one function ("name+0xoff (module)" up to the '+'); 0 for
 * the inline mixed forms of <adelim.h> ("ade_mul_ad"), which a build
 * without inlining leaves as frames of their own. */
static int site_functions(const ade_tape *t, uint32_t **fnp) {
  size_t ns = t->meta.nstrings;
  uint32_t *fn = ade__calloc(ns + 1, sizeof *fn);
  ade__u64map m = {0};
  int st = fn ? ADE_OK : ade__fail(ADE_ENOMEM, "partition: out of memory for %zu call sites", ns);
  for (size_t s = 1; !st && s <= ns; s++) {
    const char *name = t->meta.strings[s - 1];
    size_t len = strcspn(name, "+");
    if (!strncmp(name, "ade_", 4)) continue;
    uint64_t h = 0x51ed27;
    for (size_t k = 0; k < len; k++) h = mix(h, (unsigned char)name[k]);
    h &= UINT64_MAX >> 1;
    int isnew;
    uint64_t *slot = ade__u64map_put(&m, h, s, &isnew);
    if (!slot) st = ade__fail(ADE_ENOMEM, "partition: out of memory for %zu call sites", ns);
    else if (!isnew && strncmp(t->meta.strings[*slot - 1], name, len + 1)) fn[s] = (uint32_t)s; /* collision */
    else fn[s] = (uint32_t)*slot;
  }
  ade__u64map_free(&m);
  if (st) ade__free(fn), fn = NULL;
  *fnp = fn;
  return st;
}

/* A call-site part is a run of records recorded from one function: it ends
 * where a record comes from another function, or where the run's first call
 * site records again (the function was called again, or a loop in it that
 * holds its first recording statement went round). */
static int by_callsites(const ade_tape *t, const recs *r, size_t *part, size_t *np) {
  uint32_t *fn = NULL;
  int st = site_functions(t, &fn);
  uint32_t cur = 0, first = 0;
  for (size_t id = 1; !st && id <= r->R; id++) {
    uint32_t s = r->site[id], f = s && s <= t->meta.nstrings ? fn[s] : 0;
    if (!s) continue;
    if (f && (f != cur || s == first)) cur = f, first = s, (*np)++;
    if (cur) part[id] = *np - 1;
  }
  ade__free(fn);
  return st;
}

/* ------------------------------------------------------------- repeats */

/* A record's token: its opcode and which operands are constants. */
static uint64_t token(const recs *r, size_t id) {
  const uint64_t *a = r->arg + id * ADE__MAX_ARITY;
  uint64_t k = r->op[id];
  for (int j = 0; j < r->nar[id]; j++) k = k << 1 | (a[j] != 0);
  return k;
}

/* The structure hash of records [s, s + L): opcodes, and each operand as
 * a constant, a record of the block (by its offset) or the block's k-th
 * input (by first use): the same for every time step of a simulation,
 * wherever its inputs were computed. */
static int block_hash(const recs *r, size_t s, size_t L, ade__u64map *in, uint64_t *hp) {
  uint64_t h = L;
  ade__u64map_clear(in);
  for (size_t id = s; id < s + L; id++) {
    const uint64_t *a = r->arg + id * ADE__MAX_ARITY;
    h = mix(h, r->op[id]);
    for (int j = 0; j < r->nar[id]; j++) {
      int isnew;
      uint64_t *k = a[j] >= s ? NULL : a[j] ? ade__u64map_put(in, a[j], in->n, &isnew) : NULL;
      if (a[j] && a[j] < s && !k) return ade__fail(ADE_ENOMEM, "partition: out of memory hashing a block");
      h = mix(h, !a[j] ? 1 : a[j] >= s ? 2 + 2 * (a[j] - s) : 3 + 2 * *k);
    }
  }
  *hp = h;
  return ADE_OK;
}

typedef struct rep {
  const recs *r;
  const uint64_t *tok;
  size_t *part;
  size_t *np;
  ade__u64map in;
  uint64_t *bh;       /* block hashes of one run */
  size_t bcap;
} rep;

static int match(const rep *w, size_t i, size_t L) {
  return i + L <= w->r->R && w->part[i] == ADE_PART_NONE && w->part[i + L] == ADE_PART_NONE && w->tok[i] == w->tok[i + L];
}

/* The periodic run [a, a + nb L) as blocks: each block whose structure hash
 * equals a neighbour's becomes a part. */
static int assign_run(rep *w, size_t a, size_t nb, size_t L) {
  if (nb > w->bcap) {
    uint64_t *p = ade__realloc(w->bh, nb * sizeof *p);
    if (!p) return ade__fail(ADE_ENOMEM, "partition: out of memory for %zu blocks", nb);
    w->bh = p, w->bcap = nb;
  }
  for (size_t k = 0; k < nb; k++) {
    int st = block_hash(w->r, a + k * L, L, &w->in, &w->bh[k]);
    if (st) return st;
  }
  for (size_t k = 0; k < nb; k++) {
    if (!((k > 0 && w->bh[k] == w->bh[k - 1]) || (k + 1 < nb && w->bh[k] == w->bh[k + 1]))) continue;
    for (size_t id = a + k * L; id < a + (k + 1) * L; id++) w->part[id] = *w->np;
    (*w->np)++;
  }
  return ADE_OK;
}

/* Records covered by period L (assign: made parts): maximal runs where the
 * token sequence repeats after L, cut into blocks of L from the run's start. */
static int period_runs(rep *w, size_t L, int assign, size_t *covered) {
  size_t R = w->r->R;
  *covered = 0;
  for (size_t i = 1; i + L <= R;) {
    size_t b = i;
    while (match(w, b, L)) b++;
    if (b - i < L) {
      i = b + 1;
      continue;
    }
    size_t nb = (b - i) / L + 1;
    *covered += nb * L;
    if (assign) {
      int st = assign_run(w, i, nb, L);
      if (st) return st;
    }
    i += nb * L;
  }
  return ADE_OK;
}

/* Candidate periods: the most frequent distances between equal k-grams of
 * tokens (of records in no part yet). */
static int candidates(rep *w, size_t *cand, size_t *nc) {
  size_t R = w->r->R;
  ade__u64map last = {0}, gaps = {0};
  int st = ADE_OK, isnew;
  *nc = 0;
  for (size_t i = 1; !st && i + KGRAM <= R + 1; i++) {
    uint64_t h = 0x4b1d;
    size_t k = 0;
    for (; k < KGRAM && w->part[i + k] == ADE_PART_NONE; k++) h = mix(h, w->tok[i + k]);
    if (k < KGRAM) continue;
    h &= UINT64_MAX >> 1;
    uint64_t *p = ade__u64map_put(&last, h, i, &isnew), *c;
    if (!p) st = ADE_ENOMEM;
    else if (!isnew && i - *p >= MIN_PERIOD && i - *p <= R / 2) {
      if (!(c = ade__u64map_put(&gaps, i - *p, 0, &isnew))) st = ADE_ENOMEM;
      else ++*c;
    }
    if (p) *p = i;
  }
  uint64_t cnt[CANDIDATES];
  for (size_t s = 0; !st && s < gaps.cap; s++) { /* the CANDIDATES most frequent, by count */
    if (gaps.key[s] == UINT64_MAX || (*nc == CANDIDATES && cnt[CANDIDATES - 1] >= gaps.val[s])) continue;
    size_t j = *nc < CANDIDATES ? (*nc)++ : CANDIDATES - 1;
    for (; j > 0 && cnt[j - 1] < gaps.val[s]; j--) cnt[j] = cnt[j - 1], cand[j] = cand[j - 1];
    cand[j] = (size_t)gaps.key[s], cnt[j] = gaps.val[s];
  }
  ade__u64map_free(&last);
  ade__u64map_free(&gaps);
  return st ? ade__fail(ADE_ENOMEM, "partition: out of memory looking for repeats") : ADE_OK;
}

/* Repeated blocks among the records in no part yet, in up to ROUNDS rounds
 * (nested loops: a period, then another in what remains): each round takes
 * the candidate period that covers the most records, the shorter on ties. */
static int by_repeats(const recs *r, size_t *part, size_t *np) {
  rep w = {r, NULL, part, np, {0}, NULL, 0};
  uint64_t *tok = ade__alloc((r->R + 1) * sizeof *tok);
  int st = tok ? ADE_OK : ade__fail(ADE_ENOMEM, "partition: out of memory for %zu records", r->R);
  for (size_t id = 1; !st && id <= r->R; id++) tok[id] = token(r, id);
  w.tok = tok;
  for (int round = 0; !st && round < ROUNDS; round++) {
    size_t cand[CANDIDATES], nc = 0, best = 0, bestcov = 0, cov;
    st = candidates(&w, cand, &nc);
    for (size_t c = 0; !st && c < nc; c++) {
      st = period_runs(&w, cand[c], 0, &cov);
      if (!st && (cov > bestcov || (cov == bestcov && cov && cand[c] < best))) best = cand[c], bestcov = cov;
    }
    if (st || !bestcov) break;
    size_t before = *np;
    st = period_runs(&w, best, 1, &cov);
    if (!st && *np == before) break;
  }
  ade__u64map_free(&w.in);
  ade__free(w.bh);
  ade__free(tok);
  return st;
}

/* ------------------------------------------------------------ the rest */

/* Runs of records in no part cut into parts of at most CUT_RECORDS. */
static void cut_rest(size_t R, size_t *part, size_t *np) {
  size_t len = 0;
  for (size_t id = 1; id <= R; id++) {
    if (part[id] != ADE_PART_NONE) {
      len = 0;
      continue;
    }
    if (len == 0) (*np)++;
    part[id] = *np - 1;
    if (++len == CUT_RECORDS) len = 0;
  }
}

static int partition(ade_tape *t, int kind, size_t R, size_t *part, size_t *np) {
  recs r;
  int st = ADE_OK;
  if (kind == ADE_PARTS_REGIONS) return by_regions(t, R, part, np);
  if (kind == ADE_PARTS_AUTO && ade_tape_num_regions(t)) {
    if (!(st = by_regions(t, R, part, np))) cut_rest(R, part, np);
    return st;
  }
  st = recs_load(t, R, kind == ADE_PARTS_CALLSITES, &r);
  if (!st && kind == ADE_PARTS_CALLSITES) st = by_callsites(t, &r, part, np);
  if (!st && kind != ADE_PARTS_CALLSITES) st = by_repeats(&r, part, np);
  if (!st && kind == ADE_PARTS_AUTO) cut_rest(R, part, np);
  recs_free(&r);
  return st;
}

/* The period of t's first prefix records for streaming: the shortest P
 * (at least MIN_PERIOD) after which the records' tokens (opcode and
 * constant operands) repeat exactly over its third quarter (at least
 * two periods: what follows may be the tape's last records); *start the first record from which
 * they repeat with it. The shortest exact period of the whole run, not the
 * most frequent distance (by_repeats): in a time loop whose step runs
 * several inner loops, the inner loops' distances are the most frequent
 * but break at the loops' ends, while the step repeats exactly. */
int ade__parts_period(ade_tape *t, size_t prefix, size_t *start, size_t *period) {
  size_t R = prefix < t->meta.records ? prefix : (size_t)t->meta.records;
  recs r;
  *start = *period = 0;
  int st = recs_load(t, R, 0, &r);
  uint64_t *tok = st ? NULL : ade__alloc((R + 1) * sizeof *tok);
  if (!st && !tok) st = ade__fail(ADE_ENOMEM, "partition: out of memory for %zu records", R);
  for (size_t id = 1; !st && id <= R; id++) tok[id] = token(&r, id);
  size_t w0 = R / 2 + 1;
  for (size_t P = MIN_PERIOD; !st && w0 + 3 * P <= R + 1; P++) {
    size_t i = w0, w1 = w0 + (R / 4 > 2 * P ? R / 4 : 2 * P); /* what follows may be the tape's end */
    while (i < w1 && tok[i] == tok[i + P]) i++;
    if (i < w1) continue;
    size_t a = w0;
    while (a > 1 && tok[a - 1] == tok[a - 1 + P]) a--;
    *start = a, *period = P;
    break;
  }
  ade__free(tok);
  recs_free(&r);
  return st;
}

/* ------------------------------------------------------------- levels */

/* Each region's height (0: it holds no region; else 1 + its tallest
 * child's) into h[0..nr) (zeroed), the tallest into *top. Regions are
 * listed as they begin, each after its parent. */
static int heights(const ade_tape *t, size_t nr, size_t *h, size_t *top) {
  *top = 0;
  for (size_t r = nr; r-- > 0;) {
    ade_region g;
    int st = ade_tape_region(t, r, &g);
    if (st) return st;
    if (h[r] > *top) *top = h[r];
    if (g.parent >= 0 && (size_t)g.parent < r && h[g.parent] < h[r] + 1) h[g.parent] = h[r] + 1;
  }
  return ADE_OK;
}

/* The regions' heights (h: NULL, or freed by the caller) and the tallest. */
static int region_heights(const ade_tape *t, size_t **hp, size_t *top) {
  size_t nr = ade_tape_num_regions(t), *h = ade__calloc(nr + 1, sizeof *h);
  int st = h ? heights(t, nr, h, top) : ade__fail(ADE_ENOMEM, "partition: out of memory for %zu regions", nr);
  if (st || !hp) ade__free(h), h = NULL;
  if (hp) *hp = h;
  return st;
}

/* Level k >= 1 of the regions: each record's innermost region replaced by
 * its enclosing region of height k (at most one: heights grow outwards),
 * or ADE_PART_NONE. */
static int region_level(const ade_tape *t, size_t level, size_t R, size_t *part) {
  size_t nr = ade_tape_num_regions(t), top = 0, *h = NULL, *at = ade__alloc((nr + 1) * sizeof *at);
  int st = at ? region_heights(t, &h, &top) : ade__fail(ADE_ENOMEM, "partition: out of memory for %zu regions", nr);
  for (size_t r = 0; !st && r < nr; r++) { /* at[r]: r's enclosing region of height level (parents first) */
    ade_region g;
    if ((st = ade_tape_region(t, r, &g))) break;
    int up = g.parent >= 0 && (size_t)g.parent < r && h[r] < level;
    at[r] = h[r] == level ? r : up ? at[g.parent] : ADE_PART_NONE;
  }
  for (size_t id = 1; !st && id <= R; id++)
    if (part[id] < nr) part[id] = at[part[id]];
  ade__free(h);
  ade__free(at);
  return st;
}

/* The checks of ade_tape_parts and ade_tape_parts_level; *s the stats. */
static int parts_args(const ade_tape *t, int kind, const size_t *part, size_t nid, ade_stats *s, const char *fn) {
  int st = t && part ? ade_tape_stats(t, s) : ade__fail(ADE_EINVAL, "%s: NULL argument", fn);
  if (!st && !s->complete) return ade__fail(ADE_ESTATE, "%s: the tape is incomplete", fn);
  if (!st && (kind < ADE_PARTS_REGIONS || kind > ADE_PARTS_AUTO || nid < s->records + 1))
    return ade__fail(ADE_EINVAL, "%s: unknown kind %d or %zu ids for %llu records", fn, kind, nid,
                     (unsigned long long)s->records);
  return st;
}

int ade_tape_parts_levels(const ade_tape *t, int kind, size_t *nlevels) {
  size_t top = 0;
  if (!t || !nlevels || kind < ADE_PARTS_REGIONS || kind > ADE_PARTS_AUTO)
    return ade__fail(ADE_EINVAL, "ade_tape_parts_levels: NULL argument or unknown kind %d", kind);
  int st = kind == ADE_PARTS_REGIONS || kind == ADE_PARTS_AUTO ? region_heights(t, NULL, &top) : ADE_OK;
  if (!st) *nlevels = top + 1;
  return st;
}

int ade_tape_parts_level(const ade_tape *t, int kind, size_t level, size_t *part, size_t nid, size_t *nparts) {
  size_t levels = 0;
  ade_stats s;
  int st = ade_tape_parts_levels(t, kind, &levels);
  if (!st && level >= levels) return ade__fail(ADE_EINVAL, "ade_tape_parts_level: level %zu of %zu", level, levels);
  if (!st && level == 0) return ade_tape_parts(t, kind, part, nid, nparts);
  if (!st) st = parts_args(t, kind, part, nid, &s, "ade_tape_parts_level");
  size_t np = 0, R = st ? 0 : (size_t)s.records;
  for (size_t i = 0; !st && i < nid; i++) part[i] = ADE_PART_NONE;
  if (!st) st = by_regions(t, R, part, &np);
  if (!st) st = region_level(t, level, R, part);
  if (!st && nparts) *nparts = np;
  return st;
}

int ade_tape_parts(const ade_tape *t, int kind, size_t *part, size_t nid, size_t *nparts) {
  ade_stats s;
  int st = parts_args(t, kind, part, nid, &s, "ade_tape_parts");
  if (!st && kind == ADE_PARTS_CALLSITES && !s.capture)
    return ade__fail(ADE_EINVAL, "ade_tape_parts: call-site parts need a tape recorded with call sites "
                                 "(ade_tape_options.capture)");
  if (st) return st;
  for (size_t i = 0; i < nid; i++) part[i] = ADE_PART_NONE;
  size_t np = 0;
  ade_tape *c = NULL;
  ade_tape *shared = (ade_tape *)(uintptr_t)t; /* read through a clone: t itself is not changed */
  st = ade__tape_borrow(shared, &c);
  st = ade__tape_release(shared, c, st ? st : partition(c, kind, (size_t)s.records, part, &np));
  if (st) return st;
  if (nparts) *nparts = np;
  return ADE_OK;
}

const char *ade_parts_name(int kind) {
  static const char *const names[] = {"regions", "callsites", "repeats", "auto"};
  return kind >= 0 && kind <= ADE_PARTS_AUTO ? names[kind] : NULL;
}

int ade_parts_parse(const char *name) {
  for (int k = 0; name && k <= ADE_PARTS_AUTO; k++)
    if (!strcmp(name, ade_parts_name(k))) return k;
  return -1;
}
