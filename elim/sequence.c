/* sequence.c: elimination sequences as values: build, apply, validate, save and load as text, convert. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim_internal.h"

static const char *const kind_names[] = {"vertex", "edge", "face"};

int ade_seq_create(ade_elim_seq **sp, int kind) {
  if (!sp || kind < ADE_SEQ_VERTEX || kind > ADE_SEQ_FACE)
    return ade__fail(ADE_EINVAL, "ade_seq_create: bad kind %d", kind);
  *sp = ade__calloc(1, sizeof **sp);
  if (!*sp) return ade__fail(ADE_ENOMEM, "out of memory for a sequence");
  (*sp)->kind = kind;
  return ADE_OK;
}

void ade_seq_free(ade_elim_seq *s) {
  if (!s) return;
  ade_sparse_free(s->jac);
  ade__free(s->step);
  ade__free(s);
}

/* g's identity for a kept Jacobian: the object, its structure and its
 * edges' values (ade_jacobian reads them; a graph built again at the
 * address of a freed one, or at another point, has others). */
static uint64_t values_key(const ade_cgraph *g) {
  uint64_t h = ade__graph_fingerprint(g) ^ ((uint64_t)(uintptr_t)g * UINT64_C(0x9e3779b97f4a7c15));
  for (size_t e = 0; e < g->eslots; e++) {
    uint64_t b;
    if (g->e[e].src == ADE__NONE) continue;
    memcpy(&b, &g->e[e].val, sizeof b);
    h = (h ^ b ^ e) * UINT64_C(0x100000001b3);
  }
  return h | 1;
}

int ade__seq_keep_result(ade_elim_seq *s, const ade_cgraph *g, const ade_cgraph *w) {
  ade_sparse_free(s->jac), s->jac = NULL;
  int st = ade_cgraph_jacobian(w, &s->jac);
  if (st) return st;
  s->jac_key = values_key(g);
  s->jac_fill = w->fill, s->jac_absorbed = w->absorbed, s->jac_merged = w->merged;
  return ADE_OK;
}

int ade__seq_kept_result(const ade_elim_seq *s, const ade_cgraph *g, ade_sparse **J, int *st) {
  if (!s->jac || s->jac_key != values_key(g)) return 0;
  const ade_sparse *A = s->jac;
  *st = ade_sparse_create(J, A->m, A->n, A->nnz, A->symmetric);
  if (*st) return 1;
  memcpy((*J)->rowptr, A->rowptr, (A->m + 1) * sizeof *A->rowptr);
  memcpy((*J)->col, A->col, A->nnz * sizeof *A->col);
  memcpy((*J)->val, A->val, A->nnz * sizeof *A->val);
  (*J)->nnz = A->nnz;
  return 1;
}

int ade_seq_push(ade_elim_seq *s, long a, long b, int dir) {
  if (!s) return ade__fail(ADE_EINVAL, "ade_seq_push: NULL sequence");
  if (s->kind == ADE_SEQ_EDGE && dir != ADE_FRONT && dir != ADE_BACK)
    return ade__fail(ADE_EINVAL, "ade_seq_push: edge direction %d (ADE_FRONT or ADE_BACK)", dir);
  if (ade__grow((void **)&s->step, &s->cap, s->len + 1, sizeof *s->step))
    return ade__fail(ADE_ENOMEM, "out of memory for %zu steps", s->len + 1);
  ade_elim_step *st = &s->step[s->len++];
  s->checked = 0;
  if (s->jac) ade_sparse_free(s->jac), s->jac = NULL;
  st->a = a;
  st->b = s->kind == ADE_SEQ_VERTEX ? 0 : b;
  st->dir = s->kind == ADE_SEQ_EDGE ? dir : 0;
  return ADE_OK;
}

int ade_seq_kind(const ade_elim_seq *s) { return s ? s->kind : -1; }
size_t ade_seq_length(const ade_elim_seq *s) { return s ? s->len : 0; }
uint64_t ade_seq_cost(const ade_elim_seq *s) { return s ? s->cost : 0; }
const ade_elim_step *ade_seq_step(const ade_elim_seq *s, size_t i) {
  return s && i < s->len ? &s->step[i] : NULL;
}
void ade_seq_bind(ade_elim_seq *s, const ade_cgraph *g) {
  if (s) s->fingerprint = g ? ade__graph_fingerprint(g) : 0;
}

/* One step by ids. */
int ade__seq_apply_step(ade_cgraph *g, int kind, const ade_elim_step *st, uint64_t *cost) {
  switch (kind) {
  case ADE_SEQ_VERTEX: return ade_elim_vertex(g, st->a, cost);
  case ADE_SEQ_EDGE: return ade_elim_edge(g, st->a, st->b, st->dir, cost);
  default: return ade_elim_face(g, st->a, st->b, cost);
  }
}

static void describe(char *buf, size_t n, int kind, const ade_elim_step *st) {
  if (kind == ADE_SEQ_VERTEX) snprintf(buf, n, "vertex %ld", st->a);
  else if (kind == ADE_SEQ_EDGE) snprintf(buf, n, "%s %ld %ld", st->dir == ADE_BACK ? "back" : "front", st->a, st->b);
  else snprintf(buf, n, "face %ld %ld", st->a, st->b);
}

int ade_seq_apply(ade_cgraph *g, const ade_elim_seq *s, uint64_t *cost) {
  uint64_t total = 0, c;
  if (!g || !s) return ade__fail(ADE_EINVAL, "ade_seq_apply: NULL argument");
  if ((s->kind == ADE_SEQ_FACE) != (g->dual != 0))
    return ade__fail(ADE_EINVAL, "a %s sequence applies to a %s, not to a %s", kind_names[s->kind],
                     s->kind == ADE_SEQ_FACE ? "dual c-graph" : "c-graph", g->dual ? "dual c-graph" : "c-graph");
  if (s->fingerprint && s->fingerprint != ade__graph_fingerprint(g))
    return ade__fail(ADE_EINVAL, "the sequence was built for a different graph (fingerprint %016" PRIx64
                     ", this graph %016" PRIx64 ")", s->fingerprint, ade__graph_fingerprint(g));
  for (size_t k = 0; k < s->len; k++) {
    int st = ade__seq_apply_step(g, s->kind, &s->step[k], &c);
    if (st) {
      char what[96], msg[400];
      describe(what, sizeof what, s->kind, &s->step[k]);
      snprintf(msg, sizeof msg, "%s", ade_errmsg());
      return ade__fail(st, "step %zu (%s) is not applicable: %s", k + 1, what, msg);
    }
    total += c;
  }
  if (cost) *cost = total;
  return ADE_OK;
}

/* 1 if g holds the Jacobian: no intermediate vertex (c-graph), or every
 * intermediate dual vertex joins one minimal and one maximal vertex. */
static int complete(const ade_cgraph *g) {
  for (size_t i = 0; i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    if (!v->alive || v->kind != ADE__Z) continue;
    if (!g->dual || v->nin != 1 || v->nout != 1) return 0;
    if (g->v[g->e[v->in[0]].src].kind != ADE__X || g->v[g->e[v->out[0]].dst].kind != ADE__Y) return 0;
  }
  return 1;
}

int ade_seq_validate(const ade_cgraph *g, const ade_elim_seq *s, int *done, uint64_t *cost) {
  ade_cgraph *c = NULL;
  int st = ade_cgraph_copy(&c, g);
  if (!st) st = ade_seq_apply(c, s, cost);
  if (!st && done) *done = complete(c);
  ade_cgraph_free(c);
  return st;
}

int ade_seq_print(const ade_elim_seq *s, void *file) {
  FILE *f = file;
  if (!s || !f) return ade__fail(ADE_EINVAL, "ade_seq_print: NULL argument");
  fprintf(f, "adelim-sequence 1\nkind %s\ngraph %016" PRIx64 "\ncost %" PRIu64 "\nsteps %zu\n",
          kind_names[s->kind], s->fingerprint, s->cost, s->len);
  for (size_t k = 0; k < s->len; k++) {
    char buf[96];
    describe(buf, sizeof buf, s->kind, &s->step[k]);
    fprintf(f, "%s\n", buf);
  }
  return ferror(f) ? ade__fail(ADE_EIO, "writing the sequence failed") : ADE_OK;
}

int ade_seq_save(const ade_elim_seq *s, const char *path) {
  if (!s || !path) return ade__fail(ADE_EINVAL, "ade_seq_save: NULL argument");
  ade__afile out;
  FILE *f;
  int st = ade__afile_open(&out, path);
  if (!st) st = ade__afile_stream(&out, &f);
  if (st) return st;
  if ((st = ade_seq_print(s, f))) {
    ade__afile_abort(&out);
    return ade__fail(st, "writing '%s' failed", path);
  }
  return ade__afile_commit(&out, 0);
}

/* The next line that is not blank or a comment, without its newline. */
static int next_line(FILE *f, char *buf, size_t n, size_t *lineno) {
  while (fgets(buf, (int)n, f)) {
    (*lineno)++;
    size_t len = strlen(buf);
    if (len && buf[len - 1] != '\n' && !feof(f)) return -2; /* too long */
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
    if (len && buf[0] != '#') return 0;
  }
  return -1;
}

/* Numbers are read whole: out of range (which sscanf clamps or wraps), a
 * sign on a count, or anything after them is a format error. */
static int at_end(const char *p) {
  while (isspace((unsigned char)*p)) p++;
  return !*p;
}

static int read_long(const char **p, long *v) {
  char *e;
  errno = 0;
  *v = strtol(*p, &e, 10);
  if (e == *p || errno == ERANGE) return -1;
  *p = e;
  return 0;
}

/* "key N" (base 10 or 16), N unsigned, on a line of its own. */
static int read_keyed(const char *line, const char *key, int base, uint64_t *v) {
  size_t n = strlen(key);
  char *e;
  if (strncmp(line, key, n) || !isspace((unsigned char)line[n])) return -1;
  const char *p = line + n;
  while (isspace((unsigned char)*p)) p++;
  if (!isxdigit((unsigned char)*p)) return -1;
  errno = 0;
  unsigned long long x = strtoull(p, &e, base);
  if (e == p || errno == ERANGE || !at_end(e)) return -1;
  *v = (uint64_t)x;
  return 0;
}

/* A step line of the given kind. */
static int parse_step(const char *line, int kind, ade_elim_step *st) {
  char word[16];
  int n = 0, k;
  st->dir = 0;
  st->b = 0;
  if (sscanf(line, "%15s%n", word, &n) != 1) return -1;
  const char *p = line + n;
  if (read_long(&p, &st->a) || (kind != ADE_SEQ_VERTEX && read_long(&p, &st->b)) || !at_end(p)) return -1;
  if (kind == ADE_SEQ_VERTEX) return strcmp(word, "vertex") ? -1 : 0;
  if (kind == ADE_SEQ_FACE) return strcmp(word, "face") ? -1 : 0;
  k = !strcmp(word, "front") ? ADE_FRONT : !strcmp(word, "back") ? ADE_BACK : -1;
  st->dir = k;
  return k < 0 ? -1 : 0;
}

static int load_stream(FILE *f, const char *path, ade_elim_seq **out) {
  char line[256], kind[16];
  size_t lineno = 0;
  uint64_t fingerprint, cost, nsteps;
  int ver, k = -1, st = ADE_OK;
  ade_elim_seq *s = NULL;
#define BAD(...) (st = ade__fail(ADE_EFORMAT, __VA_ARGS__))
  if (next_line(f, line, sizeof line, &lineno) || sscanf(line, "adelim-sequence %d", &ver) != 1 || ver != 1)
    BAD("%s:%zu: not an adelim sequence (version 1)", path, lineno);
  if (!st && (next_line(f, line, sizeof line, &lineno) || sscanf(line, "kind %15s", kind) != 1))
    BAD("%s:%zu: expected 'kind vertex|edge|face'", path, lineno);
  for (int i = 0; !st && i < 3; i++)
    if (!strcmp(kind, kind_names[i])) k = i;
  if (!st && k < 0) BAD("%s:%zu: unknown kind '%s'", path, lineno, kind);
  if (!st && (next_line(f, line, sizeof line, &lineno) || read_keyed(line, "graph", 16, &fingerprint)))
    BAD("%s:%zu: expected 'graph FINGERPRINT'", path, lineno);
  if (!st && (next_line(f, line, sizeof line, &lineno) || read_keyed(line, "cost", 10, &cost)))
    BAD("%s:%zu: expected 'cost N'", path, lineno);
  if (!st && (next_line(f, line, sizeof line, &lineno) || read_keyed(line, "steps", 10, &nsteps)))
    BAD("%s:%zu: expected 'steps N'", path, lineno);
  if (!st) st = ade_seq_create(&s, k);
  for (uint64_t i = 0; !st && i < nsteps; i++) {
    ade_elim_step x;
    if (next_line(f, line, sizeof line, &lineno) || parse_step(line, k, &x))
      BAD("%s:%zu: expected step %" PRIu64 " of %" PRIu64 " as '%s'", path, lineno, i + 1, nsteps,
          k == ADE_SEQ_VERTEX ? "vertex ID" : k == ADE_SEQ_EDGE ? "front|back I J" : "face I J");
    else st = ade_seq_push(s, x.a, x.b, x.dir);
  }
  if (!st && next_line(f, line, sizeof line, &lineno) != -1)
    BAD("%s:%zu: more lines than the %" PRIu64 " steps announced", path, lineno, nsteps);
#undef BAD
  if (st) ade_seq_free(s);
  else {
    s->fingerprint = fingerprint;
    s->cost = cost;
    *out = s;
  }
  return st;
}

int ade_seq_load(ade_elim_seq **s, const char *path) {
  if (!s || !path) return ade__fail(ADE_EINVAL, "ade_seq_load: NULL argument");
  *s = NULL;
  FILE *f = fopen(path, "r");
  if (!f) return ade__fail(ADE_EIO, "cannot read '%s': %s", path, strerror(errno));
  int st = load_stream(f, path, s);
  fclose(f);
  return st;
}

/* Rule 3: vertex v is eliminated by front elimination of all its in-edges.
 * On a graph with intermediates that feed nothing (a streamed part's
 * dead records; never on a tape's c-graph, which drops them), an earlier
 * front elimination can take the last out-edge of v, and the edge engine
 * then removes v as dead (the vertex engine keeps it until its step, at
 * no cost): such a step is left out, as it has nothing left to do. */
int ade__seq_vertex_to_edge(const ade_cgraph *g, const ade_elim_seq *vs, ade_elim_seq **es) {
  ade_cgraph *c = NULL;
  ade_elim_seq *s = NULL;
  int st = vs->kind == ADE_SEQ_VERTEX ? ade_cgraph_copy(&c, g) : ade__fail(ADE_EINVAL, "not a vertex sequence");
  if (!st) st = ade_seq_create(&s, ADE_SEQ_EDGE);
  for (size_t k = 0; !st && k < vs->len; k++) {
    size_t v = ade__graph_vertex(c, vs->step[k].a), w = ade__graph_vertex(g, vs->step[k].a);
    if (v == ADE__NONE && w != ADE__NONE && g->v[w].kind == ADE__Z) continue; /* removed as dead */
    if (v == ADE__NONE || c->v[v].kind != ADE__Z) st = ade__fail(ADE_EINVAL, "step %zu: no intermediate %ld", k + 1, vs->step[k].a);
    while (!st && c->v[v].alive && c->v[v].nin) {
      size_t e = c->v[v].in[0];
      st = ade_seq_push(s, c->v[c->e[e].src].id, vs->step[k].a, ADE_FRONT);
      if (!st) st = ade__elim_edge_ix(c, e, ADE_FRONT, NULL);
    }
  }
  if (!st) s->cost = c->fma, s->checked = complete(c) ? ade__graph_fingerprint(g) : 0;
  ade_cgraph_free(c);
  if (st) ade_seq_free(s);
  else *es = s;
  return st;
}

/* Vertex v of G is eliminated in the dual by eliminating every face through it. */
int ade__seq_vertex_to_face(const ade_cgraph *g, const ade_elim_seq *vs, ade_elim_seq **fs) {
  ade_cgraph *d = NULL;
  ade_elim_seq *s = NULL, *tmp = NULL;
  int st = vs->kind == ADE_SEQ_VERTEX ? ade_cgraph_dual(&d, g) : ade__fail(ADE_EINVAL, "not a vertex sequence");
  if (!st) st = ade_seq_create(&s, ADE_SEQ_FACE);
  if (!st) st = ade_seq_create(&tmp, ADE_SEQ_FACE);
  for (size_t k = 0; !st && k < vs->len; k++) {
    do {
      tmp->len = 0;
      st = ade__dual_faces_through(d, vs->step[k].a, tmp);
      for (size_t i = 0; !st && i < tmp->len; i++) {
        size_t a = ade__graph_vertex(d, tmp->step[i].a), b = ade__graph_vertex(d, tmp->step[i].b);
        if (a == ADE__NONE || b == ADE__NONE || ade__graph_find(d, a, b) == ADE__NONE) continue;
        st = ade__face_step(d, a, b);
        if (!st) st = ade_seq_push(s, tmp->step[i].a, tmp->step[i].b, 0);
      }
    } while (!st && tmp->len);
  }
  if (!st) s->cost = d->fma;
  ade_cgraph_free(d);
  ade_seq_free(tmp);
  if (st) ade_seq_free(s);
  else *fs = s;
  return st;
}

/* Faces (i, j) of d with i entering c-graph vertex c, in list order. */
int ade__dual_faces_through(const ade_cgraph *d, long c, ade_elim_seq *s) {
  for (size_t i = 0; i < d->nv; i++) {
    const ade__vtx *v = &d->v[i];
    if (!v->alive || v->kind != ADE__Z || v->ctgt != c) continue;
    for (size_t k = 0; k < v->nout; k++) {
      const ade__vtx *w = &d->v[d->e[v->out[k]].dst];
      if (w->kind != ADE__Z) continue;
      int st = ade_seq_push(s, v->id, w->id, 0);
      if (st) return st;
    }
  }
  return ADE_OK;
}

/* ------------------------------------------------ edges to faces */

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
  if (!st) s->cost = d->fma, s->checked = complete(d) ? s->fingerprint : 0;
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
