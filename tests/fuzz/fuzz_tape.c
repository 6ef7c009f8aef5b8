/* fuzz_tape.c: libFuzzer harness for tapes: open, inspect, verify, and drive every entry point that reads a tape. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_tape.h"
#include "record_internal.h"

#define MAXNM 64               /* differentiate tapes with n, m <= MAXNM */
#define MAXRECORDS (1u << 20)  /* ... and at most this many records (time) */
#define MAXGRAPH (1u << 12)    /* records for c-graphs, plans and Hessians */
#define MAXALLOC ((size_t)256 << 20) /* a bigger block from a fuzz input is a bug */
#define MAXLIVE ((size_t)512 << 20)  /* ... and so are more live bytes */

size_t fuzz_reached[FUZZ_NENTRIES], fuzz_ok[FUZZ_NENTRIES];
const char *const fuzz_entry_name[FUZZ_NENTRIES] = {
#define FUZZ_NAME(N, s) s,
    FUZZ_ENTRY_MAP(FUZZ_NAME)
#undef FUZZ_NAME
};

/* The library's allocations go through here, each block with its size in a
 * header: one block too big, too many live bytes, or blocks still live after
 * ade_tape_free abort, so even a build without sanitizers (replay_corpus and
 * mutants in `make check`) catches huge allocations and leaks. */
static size_t live, live_bytes, peak_bytes;

/* A broken contract: say which, then abort (a crash for libFuzzer). */
#define FAIL(...) (fprintf(stderr, "fuzz_tape:%d: ", __LINE__), fprintf(stderr, __VA_ARGS__), \
                   fprintf(stderr, " (%s)\n", ade_errmsg()), abort())
#define HDR 16

static void *hook(void *ud, void *p, size_t n) {
  (void)ud;
  unsigned char *b = p ? (unsigned char *)p - HDR : NULL;
  size_t old = b ? *(size_t *)b : 0;
  if (!n) {
    live -= p != NULL;
    live_bytes -= old;
    free(b);
    return NULL;
  }
  if (n > MAXALLOC || live_bytes - old + n > MAXLIVE)
    FAIL("allocation of %zu bytes with %zu live", n, live_bytes);
  unsigned char *q = realloc(b, n + HDR);
  if (!q) return NULL;
  live += !p;
  live_bytes += n - old;
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
  *(size_t *)q = n;
  return q + HDR;
}

/* Every byte the library hands out is read, so a bad pointer is caught. */
static size_t touch(const char *s) { return s ? strlen(s) : 0; }

static void inspect(const ade_tape *t) {
  ade_stats s;
  ade_diagnostic d;
  ade_region r;
  size_t sum = 0;
  if (ade_tape_stats(t, &s) != ADE_OK) FAIL("inspection or harness invariant");
  size_t nd = ade_tape_num_diagnostics(t), nr = ade_tape_num_regions(t);
  for (size_t i = 0; i < nd; i++) {
    if (ade_tape_diagnostic(t, i, &d) != ADE_OK) FAIL("inspection or harness invariant");
    if (d.op >= s.records || d.kind < ADE_DIAG_KINK || d.kind > ADE_DIAG_NONFINITE) FAIL("inspection or harness invariant");
    sum += touch(d.site) + touch(ade_op_name(d.opcode));
  }
  if (ade_tape_diagnostic(t, nd, &d) == ADE_OK) FAIL("inspection or harness invariant");
  for (size_t i = 0; i < nr; i++) {
    if (ade_tape_region(t, i, &r) != ADE_OK) FAIL("inspection or harness invariant");
    if (r.parent < -1 || r.parent >= (int)i || r.first_op > r.end_op || r.end_op > s.records)
      FAIL("the documented contract of ade_region");
    sum += touch(r.name);
    for (size_t k = 0; k < r.nframes; k++) sum += touch(ade_tape_region_frame(t, i, k));
    if (ade_tape_region_frame(t, i, r.nframes)) FAIL("inspection or harness invariant");
  }
  if (ade_tape_region(t, nr, &r) == ADE_OK) FAIL("inspection or harness invariant");
  (void)sum;
}

/* A call on a verified tape: note that the entry point was reached (once
 * per input) and whether it succeeded; a tape-format error after verify
 * accepted breaks the contract. */
static unsigned char seen[FUZZ_NENTRIES], good[FUZZ_NENTRIES];
static int call(int entry, int st) {
  if (st == ADE_EFORMAT || st == ADE_ECHECKSUM || st == ADE_ETRUNC || st == ADE_EVERSION)
    FAIL("%s: %s on a verified tape", fuzz_entry_name[entry], ade_errname(st));
  seen[entry] = 1;
  good[entry] |= st >= 0;
  return st;
}

/* The recorded point: the values of the INDEP records, in order. */
static int recorded_point(ade_tape *t, double *x, size_t n) {
  size_t ix = 0;
  for (size_t c = 0; c < t->meta.nchunks; c++) {
    int st = ade__view_load(t, c);
    if (st) return st;
    for (uint32_t i = 0; i < t->view.n; i++)
      if (t->view.op[i] == ADE_OP_INDEP && ix < n) x[ix++] = t->view.val[i];
  }
  return ix == n ? ADE_OK : ADE_EFORMAT;
}

typedef struct point {
  size_t n, m;
  double x[MAXNM + 1], xd[3 * MAXNM + 1], y[MAXNM + 1], yd[3 * MAXNM + 1];
  double yb[2 * MAXNM + 1], xb[2 * MAXNM + 1], w[MAXNM + 1];
} point;

/* Sweeps at the recorded point (NULL) and at a perturbed one (P->x). */
static void sweeps(ade_tape *t, point *P) {
  static double Jf[MAXNM * MAXNM], Jr[MAXNM * MAXNM];
  for (int k = 0; k < 2; k++) {
    const double *x = k ? P->x : NULL;
    if (x) call(FUZZ_REPLAY, ade_replay(t, x, P->y));
    call(FUZZ_TANGENT, ade_tangent(t, x, P->xd, P->y, P->yd));
    call(FUZZ_TANGENT, ade_tangent_vec(t, 3, x, P->xd, P->y, P->yd));
    call(FUZZ_ADJOINT, ade_adjoint(t, x, P->yb, P->xb));
    call(FUZZ_ADJOINT, ade_adjoint_vec(t, 2, x, P->yb, P->xb));
    if (P->m == 1) call(FUZZ_GRADIENT, ade_gradient(t, x, P->y, P->xb));
    int sf = call(FUZZ_JACOBIAN, ade_jacobian_dense(t, ADE_FORWARD, x, Jf));
    int sr = call(FUZZ_JACOBIAN, ade_jacobian_dense(t, ADE_REVERSE, x, Jr));
    if (sf != sr) FAIL("dense Jacobians: forward %s, reverse %s", ade_errname(sf), ade_errname(sr));
  }
  /* A tiny memory limit: live adjoints, and values from the tape's point. */
  ade_tape_set_memory_limit(t, 64);
  call(FUZZ_LIVE, ade_adjoint(t, NULL, P->yb, P->xb));
  call(FUZZ_LIVE, ade_adjoint_vec(t, 2, P->x, P->yb, P->xb));
  ade_tape_set_memory_limit(t, (size_t)256 << 20);
}

/* The input's hash: where seq_file cuts and changes a saved sequence. */
static uint64_t input_hash;

/* The sequence loader on s (vertices or edges) saved, cut and with one
 * byte changed where the input's hash says: ADE_EFORMAT, or a sequence
 * that applies to g or is refused, without a crash or a leak. */
static void seq_file(const ade_cgraph *g, const ade_elim_seq *s) {
  char path[] = "/tmp/fuzz-seq-XXXXXX", buf[4096];
  int fd = mkstemp(path);
  if (fd < 0) return;
  close(fd);
  size_t len = 0;
  FILE *f = NULL;
  if (!call(FUZZ_SEQFILE, ade_seq_save(s, path)) && (f = fopen(path, "rb"))) {
    len = fread(buf, 1, sizeof buf, f);
    fclose(f);
  }
  if (len && (f = fopen(path, "wb"))) {
    uint64_t h = input_hash;
    size_t cut = len - (size_t)(h % 7 == 0 ? h / 7 % len : 0), at = (size_t)(h >> 8) % len;
    static const char subst[] = "0-9 x\n#face";
    buf[at] = subst[(h >> 40) % (sizeof subst - 1)];
    fwrite(buf, 1, cut, f);
    fclose(f);
    ade_elim_seq *l = NULL;
    ade_cgraph *c = NULL;
    int ls = ade_seq_load(&l, path); /* ADE_EFORMAT is the answer to a broken file */
    if (ls != ADE_EFORMAT && !call(FUZZ_SEQFILE, ls) && !call(FUZZ_SEQFILE, ade_cgraph_copy(&c, g)))
      call(FUZZ_SEQFILE, ade_seq_apply(c, l, NULL));
    ade_cgraph_free(c);
    ade_seq_free(l);
  }
  remove(path);
}

static void orderings(ade_tape *t, const ade_cgraph *g) {
  for (int o = 0; o < ADE_ORDER_COUNT; o++) {
    ade_elim_seq *s = NULL;
    ade_sparse *J = NULL;
    int complete = 0;
    if (!call(FUZZ_ORDER, ade_elim_order(g, o, &s))) {
      ade_cgraph *d = NULL;
      int face = ade_seq_kind(s) == ADE_SEQ_FACE;
      if (!face || !ade_cgraph_dual(&d, g))
        if (call(FUZZ_ORDER, ade_seq_validate(face ? d : g, s, &complete, NULL)) == ADE_OK && !complete)
          FAIL("an ordering's sequence eliminates everything");
      ade_cgraph_free(d);
      if (o == ADE_ORDER_VERTEX_MARKOWITZ || o == ADE_ORDER_EDGE_FILLIN) seq_file(g, s);
    }
    ade_jacobian_options jo = {NULL, o == 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 0};
    call(FUZZ_ELIM_JAC, ade_jacobian(t, o, &jo, &J, NULL));
    ade_sparse_free(J);
    ade_seq_free(s);
  }
}

static void optimizers(const ade_cgraph *g) {
  ade_opt_limits l;
  ade_opt_limits_init(&l);
  l.time_limit = 0.05;
  l.node_limit = 2000;
  l.memory_limit = (size_t)4 << 20;
  l.iterations = 500;
  for (size_t i = 0; i < ade_opt_num_variants(); i++) {
    int method, kind;
    const char *label;
    ade_elim_seq *s = NULL;
    if (ade_opt_variant(i, &method, &kind, &label)) FAIL("inspection or harness invariant");
    call(FUZZ_OPTIMIZE, ade_optimize(g, kind, method, &l, &s, NULL));
    ade_seq_free(s);
  }
}

/* The c-graph and everything built on it. */
static void graphs(ade_tape *t, const point *P) {
  ade_cgraph *g = NULL, *d = NULL, *c = NULL;
  ade_sparse *S = NULL;
  ade_jacobian_baselines b;
  size_t parts, largest, ne = 0;
  if (call(FUZZ_CGRAPH, ade_cgraph_from_tape(&g, t, NULL))) return;
  if (ade_cgraph_check(g) != ADE_OK) FAIL("the c-graph of a verified tape fails its check");
  ade_cgraph_size(g, NULL, &ne, NULL, NULL);
  call(FUZZ_CGRAPH, ade_cgraph_parts(g, &parts, &largest));
  call(FUZZ_CGRAPH, ade_cgraph_baselines(g, &b));
  if (!call(FUZZ_CGRAPH, ade_cgraph_pattern(g, &S))) ade_sparse_free(S);
  if (!call(FUZZ_CGRAPH, ade_cgraph_dual(&d, g)) && ade_cgraph_check(d) != ADE_OK) FAIL("inspection or harness invariant");
  if (!call(FUZZ_CGRAPH, ade_cgraph_copy(&c, g)) && ade_cgraph_check(c) != ADE_OK) FAIL("inspection or harness invariant");
  FILE *null = fopen("/dev/null", "w");
  if (null) {
    call(FUZZ_CGRAPH, ade_cgraph_print_dot(g, null));
    fclose(null);
  }
  orderings(t, g);
  if (ne <= 256) optimizers(g);
  for (int mode = 0; mode < 2; mode++)
    for (int k = 0; k < 2; k++) {
      ade_sparse *J = NULL;
      call(FUZZ_CPR, ade_jacobian_cpr(t, mode, k ? P->x : NULL, &J, NULL));
      ade_sparse_free(J);
    }
  ade_elim_plan *p = NULL;
  if (!call(FUZZ_PLAN, ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_MARKOWITZ, NULL, NULL)) &&
      !call(FUZZ_PLAN, ade_elim_plan_pattern(p, &S))) {
    call(FUZZ_PLAN, ade_elim_plan_jacobian(p, t, P->x, S));
    call(FUZZ_PLAN, ade_elim_plan_jacobian(p, t, NULL, S));
    ade_sparse_free(S);
  }
  ade_elim_plan_free(p);
  ade_cgraph_free(c);
  ade_cgraph_free(d);
  ade_cgraph_free(g);
}

/* What a loop over new points runs: the structure hash, the plan cache (a
 * miss, then a hit), a Jacobian loop, code generation and two-level parts. */
static void loops(ade_tape *t, const point *P) {
  uint64_t h[2];
  ade_plan_cache *c = NULL;
  call(FUZZ_LOOP, ade_tape_structure_hash(t, h));
  if (!call(FUZZ_LOOP, ade_plan_cache_create(&c, 2))) {
    for (int k = 0; k < 2; k++) {
      ade_elim_plan *p = NULL;
      int hit = 0;
      if (!call(FUZZ_LOOP, ade_plan_cache_get(c, t, ADE_ELIM_AUTO, &p, &hit, NULL)) && hit != k)
        FAIL("the plan cache's second lookup is a hit, the first a miss");
      ade_elim_plan_free(p);
    }
    ade_jacobian_loop *L = NULL;
    if (!call(FUZZ_LOOP, ade_jacobian_loop_create(&L, t, ADE_ELIM_AUTO, c))) {
      const ade_sparse *J = NULL;
      call(FUZZ_LOOP, ade_jacobian_loop_eval(L, P->x, &J));
      call(FUZZ_LOOP, ade_jacobian_loop_eval(L, NULL, &J));
      const ade_sparse *M = ade_jacobian_loop_matrix(L);
      size_t nnz = M ? M->rowptr[M->m] : 0;
      size_t *rc = nnz ? malloc(2 * nnz * sizeof *rc) : NULL;
      if (rc) call(FUZZ_LOOP, ade_jacobian_loop_triplets(L, rc, rc + nnz));
      free(rc);
    }
    ade_jacobian_loop_free(L);
    ade_plan_cache_free(c);
  }
  ade_elim_plan *p = NULL;
  FILE *null = fopen("/dev/null", "w");
  if (null && !call(FUZZ_CODEGEN, ade_elim_plan_create(&p, t, ADE_ORDER_VERTEX_REVERSE, NULL, NULL)))
    call(FUZZ_CODEGEN, ade_plan_codegen(p, t, "jac", null));
  if (null) fclose(null);
  ade_elim_plan_free(p);
  size_t nid = (size_t)t->meta.records + 1, nparts = 0;
  size_t *part = malloc(nid * sizeof *part);
  ade_cgraph *g = NULL;
  if (part && !call(FUZZ_PARTS, ade_tape_parts(t, ADE_PARTS_REGIONS, part, nid, &nparts)) &&
      !call(FUZZ_PARTS, ade_cgraph_from_tape(&g, t, NULL))) {
    ade_opt_limits l;
    ade_opt_limits_init(&l);
    l.time_limit = 0.05;
    l.node_limit = 2000;
    ade_elim_seq *s = NULL;
    call(FUZZ_PARTS, ade_optimize_parts(g, part, nid, -1, &l, &s, NULL));
    ade_seq_free(s), s = NULL;
    /* Any label but ADE_PART_NONE names a part: far apart, in another order. */
    for (size_t i = 0; i < nid; i++)
      if (part[i] != ADE_PART_NONE) part[i] = (part[i] + 1) * 0x9E3779B97F4A7C15u % (ADE_PART_NONE - 1);
    call(FUZZ_PARTS, ade_optimize_parts(g, part, nid, -1, &l, &s, NULL));
    ade_seq_free(s), s = NULL;
    /* The levels of nested regions (the region list's parents and
     * depths as the tape has them), and elimination over all of them. */
    size_t nl = 0, *lv = NULL;
    if (!call(FUZZ_PARTS, ade_tape_parts_levels(t, ADE_PARTS_AUTO, &nl)) && nl <= 8 &&
        (lv = malloc(nl * nid * sizeof *lv))) {
      int st = ADE_OK;
      for (size_t k = 0; !st && k < nl; k++)
        st = call(FUZZ_PARTS, ade_tape_parts_level(t, ADE_PARTS_AUTO, k, lv + k * nid, nid, &nparts));
      if (!st) call(FUZZ_PARTS, ade_optimize_levels(g, lv, nl, nid, -1, &l, &s, NULL));
      ade_seq_free(s), s = NULL;
    }
    free(lv);
  }
  for (int kind = ADE_PARTS_CALLSITES; part && kind <= ADE_PARTS_AUTO; kind++)
    call(FUZZ_PARTS, ade_tape_parts(t, kind, part, nid, &nparts));
  ade_sparse *SJ = NULL; /* streaming elimination in parts read backward */
  call(FUZZ_PARTS, ade_jacobian_stream(t, NULL, &SJ, NULL));
  ade_sparse_free(SJ);
  ade_cgraph_free(g);
  free(part);
  /* A mission from the tape's regions, planned and executed at x. */
  static double J[MAXNM * MAXNM];
  ade_mission *d = NULL;
  ade_mplan *mp = NULL;
  if (!call(FUZZ_PARTS, ade_mission_from_tape(&d, t, ADE_PARTS_REGIONS)) &&
      !call(FUZZ_PARTS, ade_mission_plan(d, ADE_MISSION_GREEDY_MIN_FILL, NULL, &mp)))
    call(FUZZ_PARTS, ade_mission_tape_jacobian(mp, d, t, P->x, J, NULL));
  ade_mplan_free(mp);
  ade_mission_free(d);
  /* A Hessian loop at x with the weights. */
  ade_hess_loop *H = NULL;
  if (!call(FUZZ_HESS_PLAN, ade_hess_loop_create(&H, t, ADE_HESS_AUTO, NULL)))
    call(FUZZ_HESS_PLAN, ade_hess_loop_eval(H, P->x, P->w, NULL));
  ade_hess_loop_free(H);
}

static void hessians(ade_tape *t, const point *P) {
  double grad[MAXNM + 1];
  for (int method = 0; method < ADE_HESS_NMETHODS; method++)
    for (int k = 0; k < 2; k++) {
      ade_hess_options o = {k ? P->x : NULL, P->w, grad};
      ade_sparse *H = NULL;
      call(FUZZ_HESSIAN, ade_hessian(t, method, &o, &H, NULL));
      ade_sparse_free(H);
    }
  for (int method = 0; method < ADE_HESS_NMETHODS; method++) {
    ade_hess_plan *p = NULL;
    ade_sparse *H = NULL;
    ade_hess_options o = {P->x, P->w, grad};
    if (!call(FUZZ_HESS_PLAN, ade_hess_plan_create(&p, t, method, NULL)) &&
        !call(FUZZ_HESS_PLAN, ade_hess_plan_pattern(p, &H))) {
      call(FUZZ_HESS_PLAN, ade_hess_plan_hessian(p, t, &o, H, NULL));
      o.x = NULL;
      call(FUZZ_HESS_PLAN, ade_hess_plan_hessian(p, t, &o, H, NULL));
    }
    ade_sparse_free(H);
    ade_hess_plan_free(p);
  }
}

/* Every entry point that reads a tape, on a tape verify accepted. */
static void differentiate(ade_tape *t, size_t n, size_t m) {
  static point P;
  P.n = n;
  P.m = m;
  if (recorded_point(t, P.x, n) != ADE_OK) FAIL("inspection or harness invariant");
  for (size_t i = 0; i < n; i++) P.x[i] = P.x[i] * (1.0 + 0x1p-20) + 0x1p-30;
  for (size_t i = 0; i < 3 * n; i++) P.xd[i] = 0.25 + 0.125 * (double)(i % 7);
  for (size_t i = 0; i < 2 * m; i++) P.yb[i] = 1.5 - 0.25 * (double)(i % 5);
  for (size_t i = 0; i < m; i++) P.w[i] = 0.75 + 0.0625 * (double)i;
  memset(seen, 0, sizeof seen);
  memset(good, 0, sizeof good);
  sweeps(t, &P);
  if (t->meta.records <= MAXGRAPH) {
    graphs(t, &P);
    loops(t, &P);
    hessians(t, &P);
  }
  for (int e = 0; e < FUZZ_NENTRIES; e++) {
    fuzz_reached[e] += seen[e];
    fuzz_ok[e] += good[e];
  }
}

/* fuzz.rot: y = x0 (cos x1, sin x1); fuzz.sum3: y = x0 + 2 x1 - x2 x2. */
static int rot_f(void *ud, const double *x, double *y) {
  (void)ud;
  y[0] = x[0] * cos(x[1]);
  y[1] = x[0] * sin(x[1]);
  return 0;
}
static int rot_t(void *ud, const double *x, const double *xd, double *yd) {
  (void)ud;
  yd[0] = cos(x[1]) * xd[0] - x[0] * sin(x[1]) * xd[1];
  yd[1] = sin(x[1]) * xd[0] + x[0] * cos(x[1]) * xd[1];
  return 0;
}
static int rot_a(void *ud, const double *x, const double *yb, double *xb) {
  (void)ud;
  xb[0] = cos(x[1]) * yb[0] + sin(x[1]) * yb[1];
  xb[1] = -x[0] * sin(x[1]) * yb[0] + x[0] * cos(x[1]) * yb[1];
  return 0;
}
static int sum_f(void *ud, const double *x, double *y) {
  (void)ud;
  y[0] = x[0] + 2 * x[1] - x[2] * x[2];
  return 0;
}
static int sum_t(void *ud, const double *x, const double *xd, double *yd) {
  (void)ud;
  yd[0] = xd[0] + 2 * xd[1] - 2 * x[2] * xd[2];
  return 0;
}
static int sum_a(void *ud, const double *x, const double *yb, double *xb) {
  (void)ud;
  xb[0] = yb[0];
  xb[1] = 2 * yb[0];
  xb[2] = -2 * x[2] * yb[0];
  return 0;
}
static int sum_j(void *ud, const double *x, double *J) {
  (void)ud;
  J[0] = 1;
  J[1] = 2;
  J[2] = -2 * x[2];
  return 0;
}

void fuzz_register_elementals(void) {
  static int done;
  if (done++) return;
  ade_elemental_def rot = {"fuzz.rot", 2, 2, rot_f, rot_t, rot_a, NULL, NULL, 8, 8, NULL};
  ade_elemental_def sum = {"fuzz.sum3", 3, 1, sum_f, sum_t, sum_a, sum_j, NULL, 3, 3, NULL};
  if (ade_elemental_register(&rot, NULL) || ade_elemental_register(&sum, NULL)) FAIL("registering elementals");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ade_tape *t = NULL;
  fuzz_register_elementals();
  input_hash = 1469598103934665603u;
  for (size_t i = 0; i < size; i++) input_hash = (input_hash ^ data[i]) * 1099511628211u;
  ade_set_allocator(hook, NULL);
  live = live_bytes = 0;
  if (ade_tape_from_bytes(&t, data, size) != ADE_OK) {
    if (t || live) FAIL("a failed open left %zu blocks", live);
    return 0;
  }
  fuzz_reached[FUZZ_OPENED]++;
  fuzz_ok[FUZZ_OPENED]++;
  inspect(t);
  int ok = ade_tape_verify(t) == ADE_OK;
  size_t n = ade_tape_num_indep(t), m = ade_tape_num_dep(t);
  fuzz_reached[FUZZ_VERIFIED] += ok;
  fuzz_ok[FUZZ_VERIFIED] += ok;
  if (ok && n <= MAXNM && m <= MAXNM && t->meta.records <= MAXRECORDS) differentiate(t, n, m);
  ade_tape_free(t);
  if (live) FAIL("%zu blocks leaked", live);
  return 0;
}
