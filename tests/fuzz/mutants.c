/* mutants.c: checksum-valid structural mutants of recorded tapes through the fuzz harness, and memory bombs.
 * Usage: mutants [SEEDDIR]; environment: ADE_MUTANTS (count, default 1000),
 * ADE_MUTANT_SEED (default 1; CI campaigns vary it), ADE_MUTANT_LAST (file
 * that holds the mutant being run, default mutant.last: after a crash, run
 * `replay_corpus mutant.last`). Bases: random programs (tests/randprog.h)
 * recorded with varied chunk sizes, levels and capture, plus the files of
 * SEEDDIR (mkcorpus seeds). Then: tapes whose chunks claim 2^24 records each
 * must fail from open, verify, ade_cgraph_from_tape and every consumer fast
 * and small.
 * Prints how many mutants verify accepted and reached each entry point.
 * Exit 0, or abort (the harness) / 1 (a bomb too slow or too big). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_tape.h"
#include "mutate.h"
#include "randprog.h"
#include "record_internal.h"

typedef struct tape_bytes {
  unsigned char *p;
  size_t n;
} tape_bytes;

#define MAXBASES 64
static tape_bytes bases[MAXBASES];
static size_t nbases;

static void add_base(const void *p, size_t n) {
  if (nbases == MAXBASES || !(bases[nbases].p = malloc(n + 1))) return;
  memcpy(bases[nbases].p, p, n);
  bases[nbases++].n = n;
}

/* Random programs: n, m, steps, chunk size, level and capture vary; some
 * dependents repeat, one is a constant, and comparisons are recorded. */
static void record_programs(uint64_t seed) {
  static const uint32_t chunks[] = {1, 3, 7, 64};
  for (int k = 0; k < 16; k++) {
    uint64_t s = seed + (uint64_t)k;
    randprog p = rp_make(s, 1 + k % 4, 1 + k % 3, 4 + 3 * k);
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.chunk_ops = chunks[k % 4];
    o.level = k % 3 == 2 ? 3 : k % 3;
    o.capture = k % 5 == 0;
    double x[4], y[4];
    for (int i = 0; i < p.n; i++) x[i] = 0.3 + 0.37 * i;
    ade_tape *t = NULL;
    const void *b;
    size_t n;
    if (ade_tape_create(&t, &o) == ADE_OK && ade_trace_on(t) == ADE_OK) {
      rp_eval(&p, x, y, 1);
      ade_double v = ade_indep(1.25 + k);
      if (ADE_LT(v, 2.0)) v = ADE_MUL(v, v);
      if (k % 2) ade_dep(v);                 /* another dependent, after a comparison */
      if (k % 4 == 1) ade_dep(v);            /* the same one twice */
      if (k % 4 == 2) ade_dep(ade_passive(0.5)); /* a constant dependent */
      if (ade_trace_off() == ADE_OK && ade_tape_bytes(t, &b, &n) == ADE_OK) add_base(b, n);
    }
    ade_tape_free(t);
    rp_free(&p);
  }
}

/* Programs with vector elemental calls (the harness's fuzz.rot and
 * fuzz.sum3): constant and repeated inputs, chunks that end early before a
 * call that does not fit. */
static void record_elementals(uint64_t seed) {
  static const uint32_t chunks[] = {2, 3, 5, 64};
  const ade_elemental *rot = ade_elemental_find("fuzz.rot"), *sum = ade_elemental_find("fuzz.sum3");
  for (int k = 0; k < 8; k++) {
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.chunk_ops = chunks[k % 4];
    o.level = k % 3;
    o.capture = k % 5 == 0;
    ade_tape *t = NULL;
    const void *b;
    size_t n;
    if (ade_tape_create(&t, &o) == ADE_OK && ade_trace_on(t) == ADE_OK) {
      ade_double x[3], a[2], c[1], d[2];
      for (int i = 0; i < 3; i++) x[i] = ade_indep(0.3 + 0.41 * i + 0.01 * (double)(seed % 7));
      ade_elemental_call(rot, x, a);
      ade_double s_in[3] = {a[0], k % 2 ? ade_passive(0.5) : a[1], k % 3 ? x[2] : a[0]};
      ade_elemental_call(sum, s_in, c);
      ade_double r_in[2] = {ade_mul(c[0], x[0]), k % 2 ? x[1] : c[0]};
      ade_elemental_call(rot, r_in, d);
      ade_dep(ade_add(d[0], a[1]));
      if (k % 2) ade_dep(d[1]);
      if (ade_trace_off() == ADE_OK && ade_tape_bytes(t, &b, &n) == ADE_OK) add_base(b, n);
    }
    ade_tape_free(t);
  }
}

static void read_seeds(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char path[4096];
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    static unsigned char buf[1 << 20];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    if (n && n < sizeof buf) add_base(buf, n);
  }
  if (d) closedir(d);
}

/* ------------------------------------------------------------ memory bombs */

static size_t live_bytes, peak_bytes;

static void *peak_hook(void *ud, void *p, size_t n) {
  (void)ud;
  unsigned char *b = p ? (unsigned char *)p - 16 : NULL;
  size_t old = b ? *(size_t *)b : 0;
  if (!n) {
    live_bytes -= old;
    free(b);
    return NULL;
  }
  unsigned char *q = realloc(b, n + 16);
  if (!q) return NULL;
  live_bytes += n - old;
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
  *(size_t *)q = n;
  return q + 16;
}

/* Entry point k >= 4 on an opened bomb t (default memory limit). */
static int consume(ade_tape *t, int k) {
  static double x[64], v[64], J[64 * 64];
  size_t n = t->meta.nindep, m = t->meta.ndep;
  ade_sparse *A = NULL;
  ade_elim_plan *pl = NULL;
  ade_hess_plan *hp = NULL;
  ade_jacobian_loop *L = NULL;
  uint64_t h[2];
  ade_hess_options o = {x, v, NULL};
  int st;
  if (n > 64 || m > 64) return ADE_EINVAL;
  for (size_t i = 0; i < 64; i++) x[i] = v[i] = 0.5;
  switch (k) {
  case 4: return ade_replay(t, x, v);
  case 5: return ade_tangent_vec(t, 1, NULL, x, NULL, v);
  case 6: return ade_adjoint(t, x, v, J);
  case 7: return ade_jacobian_dense(t, ADE_FORWARD, NULL, J);
  case 8: st = ade_jacobian(t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, &A, NULL); break;
  case 9: st = ade_jacobian_cpr(t, ADE_FORWARD, x, &A, NULL); break;
  case 10: st = ade_elim_plan_create(&pl, t, ADE_ORDER_VERTEX_FORWARD, NULL, NULL); break;
  case 18: st = ade_hess_plan_create(&hp, t, ADE_HESS_STAR, NULL); break;
  case 19: st = ade_jacobian_loop_create(&L, t, ADE_ELIM_AUTO, NULL); break;
  case 20: return ade_tape_structure_hash(t, h);
  default: st = ade_hessian(t, k - 11, &o, &A, NULL); break;
  }
  ade_sparse_free(A);
  ade_elim_plan_free(pl);
  ade_hess_plan_free(hp);
  ade_jacobian_loop_free(L);
  return st;
}

/* One bomb through open (from bytes and from a file: opens says whether it
 * should open), verify, the c-graph and, once open, every consumer: each
 * must fail in < 0.1 s with a peak < 64 MiB. */
static int bomb(const unsigned char *p, size_t n, const char *path, int opens) {
  const char *what[] = {"ade_tape_from_bytes", "ade_tape_open", "ade_tape_verify", "ade_cgraph_from_tape",
                        "ade_replay", "ade_tangent_vec", "ade_adjoint", "ade_jacobian_dense", "ade_jacobian",
                        "ade_jacobian_cpr", "ade_elim_plan_create", "ade_hessian edge-push",
                        "ade_hessian ve-reverse", "ade_hessian ve-markowitz", "ade_hessian for-over-rev",
                        "ade_hessian edge-push-preacc", "ade_hessian star", "ade_hessian auto",
                        "ade_hess_plan_create", "ade_jacobian_loop_create", "ade_tape_structure_hash"};
  int bad = 0;
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f)) return 1;
  for (int k = 0; k < (opens ? 21 : 4); k++) {
    ade_tape *t = NULL;
    ade_cgraph *g = NULL;
    ade_set_allocator(peak_hook, NULL);
    live_bytes = peak_bytes = 0;
    double t0 = ade__now();
    int st = k == 1 ? ade_tape_open(&t, path) : ade_tape_from_bytes(&t, p, n);
    if (!st && k == 2) st = ade_tape_verify(t);
    if (!st && k == 3) st = ade_cgraph_from_tape(&g, t, NULL);
    if (!st && k >= 4) st = consume(t, k);
    double sec = ade__now() - t0;
    printf("bomb (%zu bytes, %llu records claimed) %s: %s in %.3f s, peak %.1f MiB\n", n,
           (unsigned long long)(t ? t->meta.records : 0), what[k], ade_errname(st), sec,
           (double)peak_bytes / (1 << 20));
    if ((k <= 1 && (st == ADE_OK) != opens) || (k >= 2 && st == ADE_OK) || sec >= 0.1 ||
        peak_bytes >= ((size_t)64 << 20))
      bad = 1;
    ade_cgraph_free(g);
    ade_tape_free(t);
  }
  ade_set_allocator(NULL, NULL);
  remove(path);
  return bad;
}

/* A base with 64 or more chunks whose chunks claim 2^24 records each (2^30
 * or more): unpadded, a few KB refused when the footer is read; padded,
 * past the open and refused when the first chunk is read. */
static int bombs(void) {
  for (size_t b = 0; b < nbases; b++) {
    ade_tape *t = NULL;
    if (ade_tape_from_bytes(&t, bases[b].p, bases[b].n) != ADE_OK) continue;
    size_t nc = t->meta.nchunks;
    ade_tape_free(t);
    if (nc < 64) continue;
    int bad = 0;
    for (int pad = 0; pad < 2 && !bad; pad++) {
      unsigned char *p = NULL;
      size_t n = 0;
      if (mt_claim_records(bases[b].p, bases[b].n, ADE__MAX_CHUNK_RECORDS, pad, &p, &n)) return 1;
      bad = bomb(p, n, "bomb.tmp.adt", pad);
      free(p);
    }
    return bad;
  }
  printf("bombs: no base with 64 chunks\n");
  return 1;
}

/* ---------------------------------------------------------------- mutants */

static uint64_t env_u64(const char *name, uint64_t dflt) {
  const char *s = getenv(name);
  return s && *s ? strtoull(s, NULL, 0) : dflt;
}

int main(int argc, char **argv) {
  uint64_t seed = env_u64("ADE_MUTANT_SEED", 1), count = env_u64("ADE_MUTANTS", 1000);
  const char *last = getenv("ADE_MUTANT_LAST") ? getenv("ADE_MUTANT_LAST") : "mutant.last";
  fuzz_register_elementals();
  record_programs(seed);
  record_elementals(seed);
  if (argc > 1) read_seeds(argv[1]);
  record_programs(seed + 1000); /* a base with 64+ chunks for the bombs */
  if (!nbases) return 1;
  int bad = bombs();
  size_t made = 0;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + i;
    const tape_bytes *b = &bases[i % nbases];
    unsigned char *p = NULL;
    size_t n = 0;
    const char *what;
    if (mt_mutate(b->p, b->n, &rng, &p, &n, &what)) continue;
    FILE *f = fopen(last, "wb"); /* for replay_corpus after a crash */
    if (f) {
      fwrite(p, 1, n, f);
      fclose(f);
    }
    LLVMFuzzerTestOneInput(p, n);
    free(p);
    made++;
  }
  remove(last);
  printf("mutants: seed %llu, %zu bases, %zu mutants run\n", (unsigned long long)seed, nbases, made);
  for (int e = 0; e < FUZZ_NENTRIES; e++)
    printf("  %-22s reached by %6zu, ok in %6zu\n", fuzz_entry_name[e], fuzz_reached[e], fuzz_ok[e]);
  for (size_t b = 0; b < nbases; b++) free(bases[b].p);
  return bad;
}
