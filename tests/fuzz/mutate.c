/* mutate.c: decode a tape into editable records, mutate its structure, re-encode it with valid checksums. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <xxhash.h>

#include "mutate.h"
#include "record_internal.h"

/* ------------------------------------------------------- checksum repair */

static void fix_frame(unsigned char *f, uint64_t avail) {
  uint64_t stored = ade__ld32(f + 24);
  if (stored <= avail) ade__st64(f + 32, XXH64(f + ADE__FRAME_SIZE, (size_t)stored, 0));
  ade__st64(f + 40, XXH64(f, 40, 0));
}

void mt_fix_sums(unsigned char *p, size_t n) {
  if (n >= ADE__HEADER_SIZE) ade__st64(p + 56, XXH64(p, 56, 0));
  if (n < ADE__HEADER_SIZE + ADE__TRAILER_SIZE) return;
  uint64_t end = n - ADE__TRAILER_SIZE, off = ADE__HEADER_SIZE;
  while (off + ADE__FRAME_SIZE <= end) {
    uint64_t stored = ade__ld32(p + off + 24);
    fix_frame(p + off, end - off - ADE__FRAME_SIZE);
    off += ADE__FRAME_SIZE + stored;
  }
  uint64_t foot = ade__ld64(p + end);
  if (foot >= ADE__HEADER_SIZE && foot <= end - ADE__FRAME_SIZE)
    fix_frame(p + foot, end - foot - ADE__FRAME_SIZE);
  ade__st64(p + end + 16, XXH64(p + end, 16, 0));
}

/* ------------------------------------------------------------ the model */

typedef struct mrec {
  uint8_t op;
  uint64_t arg[ADE__MAX_ARITY]; /* operand ids, 0 = constant */
  double cst[ADE__MAX_ARITY];   /* the constants */
  double val;                   /* the value (written if stored, or imported) */
  uint32_t site;
  /* An elemental output (opcode 255): its output number ek; output 0 also
   * its call's name (string index), en inputs (at eoff in the model's
   * pool) and em outputs. */
  uint32_t ek, ename, en, em;
  size_t eoff;
} mrec;

typedef struct model {
  ade__header hdr;
  ade__meta meta;        /* the footer's tables; chunk index and counts rebuilt */
  mrec *r;
  size_t n;
  uint32_t *chunk;       /* records per chunk */
  size_t nchunks;
  int keep_lists;        /* keep meta's (mutated) independent/dependent lists */
  int keep_chunks;       /* keep chunk (mutated) sizes, else the recorder's */
  int footer;            /* a footer mutation applied after the index is built */
  long cut_chunk, cut_col, cut; /* drop (< 0) or append (> 0) column bytes */
  int frame;             /* a frame header field to patch after encoding */
  uint32_t claim;        /* mt_claim_records: records every chunk claims */
  int pad;               /* ... with chunks padded to back it */
  const char *what;
  uint64_t *eid;         /* elemental calls' inputs: ids, 0 = constant */
  double *ecst;          /* ... and the constants */
  size_t ne, ecap;
} model;

static uint64_t rnd(uint64_t *s, uint64_t n) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return n ? z % n : z;
}

static double weird(uint64_t *s) {
  static const double v[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, DBL_MAX, -DBL_MAX,
                             DBL_MIN / 4, 4.9e-324, 1e300, -1e-300, 1.0, 0.5, 2.0};
  uint64_t k = rnd(s, sizeof v / sizeof *v + 2);
  return k < sizeof v / sizeof *v ? v[k] : (double)(int64_t)rnd(s, 2001) / 64.0 - 15.0;
}

static int arity(unsigned op) { return op < ADE_OP_COUNT ? ade__optab[op].arity : 0; }
/* Elemental outputs store their values. */
static int stores(unsigned op) {
  return op == ADE_OP_VECTOR_ELEMENTAL || (op < ADE_OP_COUNT && (ade__optab[op].flags & ADE__STORE));
}

static void model_free(model *m) {
  free(m->eid);
  free(m->ecst);
  ade__meta_free(&m->meta);
  free(m->r);
  free(m->chunk);
}

/* Room for k more inputs in the pool; their offset. */
static size_t pool_add(model *m, size_t k) {
  if (m->ne + k > m->ecap) {
    size_t cap = 2 * (m->ne + k) + 16;
    uint64_t *id = realloc(m->eid, cap * sizeof *id);
    if (id) m->eid = id;
    double *c = realloc(m->ecst, cap * sizeof *c);
    if (c) m->ecst = c;
    if (!id || !c) return SIZE_MAX;
    m->ecap = cap;
  }
  m->ne += k;
  return m->ne - k;
}

/* Output k of an elemental call of view v into r (output 0: the call too). */
static int decode_elemental(model *m, const ade__view *v, uint32_t i, mrec *r) {
  const ade__eblk *b = &v->blk[v->arg[3 * i]];
  r->ek = (uint32_t)v->arg[3 * i + 1];
  if (r->ek) return 0;
  r->ename = b->name == UINT32_MAX ? 0 : b->name;
  r->en = b->n;
  r->em = b->m;
  if ((r->eoff = pool_add(m, b->n)) == SIZE_MAX) return ADE_ENOMEM;
  memcpy(m->eid + r->eoff, v->xarg + b->xoff, b->n * sizeof *m->eid);
  memcpy(m->ecst + r->eoff, v->xargv + b->xoff, b->n * sizeof *m->ecst);
  return 0;
}

static int model_decode(model *m, const unsigned char *p, size_t n) {
  ade_tape *t = NULL;
  ade__view v = {0};
  int st = ade_tape_from_bytes(&t, p, n);
  if (!st) {
    m->nchunks = t->meta.nchunks;
    m->n = (size_t)t->meta.records;
    m->r = calloc(m->n + 1, sizeof *m->r);
    m->chunk = calloc(m->nchunks + 1, sizeof *m->chunk);
    if (!m->r || !m->chunk) st = ADE_ENOMEM;
  }
  for (size_t c = 0; !st && c < m->nchunks && !(st = ade__view_decode(t, c, &v)); c++) {
    m->chunk[c] = v.n;
    for (uint32_t i = 0; i < v.n; i++) {
      mrec *r = &m->r[v.first + i];
      r->op = v.op[i];
      if (r->op == ADE_OP_VECTOR_ELEMENTAL && !st) st = decode_elemental(m, &v, i, r);
      for (int k = 0; k < arity(r->op); k++) {
        r->arg[k] = v.arg[3 * i + k];
        r->cst[k] = v.argv[3 * i + k];
      }
      r->val = v.val[i];
      r->site = v.site[i];
    }
  }
  ade__view_free(&v);
  if (t) {
    m->hdr = t->hdr;
    m->meta = t->meta; /* the model owns the footer's tables now */
    memset(&t->meta, 0, sizeof t->meta);
  }
  ade_tape_free(t);
  return st;
}

/* ------------------------------------------------------------- encoding */


static int put_f64(ade__buf *b, double x) {
  unsigned char d[8];
  ade__stf64(d, x);
  return ade__buf_put(b, d, 8);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The imports column of records [first, first + cnt): every operand id <= first. */
static int is_call(const mrec *r) { return r->op == ADE_OP_VECTOR_ELEMENTAL && r->ek == 0; }

static int import_column(const model *m, uint64_t first, uint32_t cnt, ade__buf *b) {
  size_t k = 0, u = 0, need = 3 * (size_t)cnt + 1;
  for (uint64_t i = first; i < first + cnt; i++) need += is_call(&m->r[i]) ? m->r[i].en : 0;
  uint64_t *ids = malloc(need * sizeof *ids);
  if (!ids) return ADE_ENOMEM;
  for (uint64_t i = first; i < first + cnt; i++) {
    for (int j = 0; j < arity(m->r[i].op); j++)
      if (m->r[i].arg[j] && m->r[i].arg[j] <= first) ids[k++] = m->r[i].arg[j];
    for (uint32_t j = 0; is_call(&m->r[i]) && j < m->r[i].en; j++) {
      uint64_t id = m->eid[m->r[i].eoff + j];
      if (id && id <= first && id <= m->n) ids[k++] = id;
    }
  }
  qsort(ids, k, sizeof *ids, cmp_u64);
  for (size_t i = 0; i < k; i++)
    if (!u || ids[i] != ids[u - 1]) ids[u++] = ids[i];
  int st = u ? ade__buf_varint(b, u) : 0;
  for (size_t i = 0; i < u && !st; i++) st = ade__buf_varint(b, ids[i] - (i ? ids[i - 1] : 0));
  for (size_t i = 0; i < u && !st; i++) st = put_f64(b, m->r[ids[i] - 1].val);
  free(ids);
  return st;
}

static int chunk_columns(const model *m, uint64_t first, uint32_t cnt, ade__buf col[ADE__NCOLS]) {
  int st = 0;
  for (int c = 0; c < ADE__NCOLS; c++) col[c].len = 0;
  for (uint64_t i = first; i < first + cnt && !st; i++) {
    const mrec *r = &m->r[i];
    st = ade__buf_put(&col[ADE__COL_OPS], &r->op, 1);
    if (r->op == ADE_OP_VECTOR_ELEMENTAL && !st) st = ade__buf_varint(&col[ADE__COL_REFS], r->ek);
    if (is_call(r) && !st)
      st = ade__buf_varint(&col[ADE__COL_REFS], r->ename) || ade__buf_varint(&col[ADE__COL_REFS], r->en) ||
           ade__buf_varint(&col[ADE__COL_REFS], r->em);
    for (uint32_t k = 0; is_call(r) && k < r->en && !st; k++) {
      uint64_t id = m->eid[r->eoff + k];
      st = ade__buf_varint(&col[ADE__COL_REFS], id ? i + 1 - id : 0);
      if (!st && !id) st = put_f64(&col[ADE__COL_CONSTS], m->ecst[r->eoff + k]);
    }
    for (int k = 0; k < arity(r->op) && !st; k++) {
      st = ade__buf_varint(&col[ADE__COL_REFS], r->arg[k] ? i + 1 - r->arg[k] : 0);
      if (!st && !r->arg[k]) st = put_f64(&col[ADE__COL_CONSTS], r->cst[k]);
    }
    if (!st && stores(r->op)) st = put_f64(&col[ADE__COL_VALUES], r->val);
    if (!st && m->hdr.capture) st = ade__buf_varint(&col[ADE__COL_SITES], r->site);
  }
  return st ? st : import_column(m, first, cnt, &col[ADE__COL_IMPORTS]);
}

/* Drop or append bytes of one column (a truncated or overlong payload). */
static int cut_column(const model *m, size_t c, ade__buf col[ADE__NCOLS]) {
  for (uint32_t k = 0; m->pad && k <= m->claim / 32768; k++) /* room for the claim */
    if (ade__buf_put(&col[ADE__COL_SITES], "", 1)) return ADE_ENOMEM;
  if ((long)c != m->cut_chunk) return 0;
  ade__buf *b = &col[m->cut_col];
  if (m->cut < 0) {
    b->len -= ADE__MIN(b->len, (size_t)-m->cut);
    return 0;
  }
  for (long k = 0; k < m->cut; k++)
    if (ade__buf_put(b, "\x81", 1)) return ADE_ENOMEM;
  return 0;
}

/* The footer's lists and statistics as the records say. */
static int derive_meta(model *m) {
  ade__meta *f = &m->meta;
  memset(f->opcount, 0, sizeof f->opcount);
  f->stored_values = f->raw_bytes = 0;
  f->records = m->n;
  if (!m->keep_lists) f->nindep = f->ndep = 0;
  for (size_t i = 0; i < m->n; i++) {
    unsigned op = m->r[i].op;
    f->opcount[op]++;
    f->stored_values += stores(op) != 0;
    int st = 0;
    if (!m->keep_lists && op == ADE_OP_INDEP) st = ade__meta_add_id(&f->indep, &f->nindep, &f->indepcap, i + 1);
    if (!m->keep_lists && op == ADE_OP_DEP) st = ade__meta_add_id(&f->dep, &f->ndep, &f->depcap, i + 1);
    if (st) return st;
  }
  for (size_t c = 0; c < f->nchunks; c++) f->raw_bytes += f->chunks[c].raw_size;
  return 0;
}

/* The recorder's chunks: full ones of the header's size, a shorter last,
 * and one ended early before an elemental call that does not fit. */
static int layout(model *m) {
  if (m->keep_chunks) return 0;
  const uint32_t size = m->hdr.chunk_records;
  uint32_t *c = realloc(m->chunk, (m->n + 2) * sizeof *c);
  if (!c) return ADE_ENOMEM;
  m->chunk = c;
  m->nchunks = 0;
  c[0] = 0;
  for (size_t i = 0; i < m->n; i++) {
    const mrec *r = &m->r[i];
    int early = r->op == ADE_OP_VECTOR_ELEMENTAL && r->ek == 0 && r->em <= size && c[m->nchunks] + r->em > size;
    if (c[m->nchunks] == size || (early && c[m->nchunks])) c[++m->nchunks] = 0;
    c[m->nchunks]++;
  }
  m->nchunks += m->n != 0;
  return 0;
}

static void mutate_footer(model *m, uint64_t *s);
static void patch_frame(const model *m, unsigned char *p, size_t n, uint64_t *s);

static int encode(model *m, uint64_t *s, unsigned char **out, size_t *outn) {
  ade__store st = {{0}, -1, 0, 0};
  ade__buf col[ADE__NCOLS] = {{0}}, scratch[2] = {{0}};
  unsigned char h[ADE__HEADER_SIZE];
  void *cctx = m->hdr.level ? ade__zstd_cctx(m->hdr.level) : NULL;
  ade__header_encode(h, &m->hdr);
  int rc = (m->hdr.level && !cctx) || layout(m) || ade__store_append(&st, h, sizeof h);
  uint64_t first = 0;
  m->meta.nchunks = 0;
  for (size_t c = 0; c < m->nchunks && !rc; first += m->chunk[c++]) {
    ade__chunkent e;
    rc = chunk_columns(m, first, m->chunk[c], col) || cut_column(m, c, col) ||
         ade__chunk_write(&st, cctx, m->hdr.level, (uint32_t)c, first, m->chunk[c], col, scratch, &e) ||
         ade__meta_add_chunk(&m->meta, &e);
  }
  if (!rc) rc = derive_meta(m);
  if (!rc) mutate_footer(m, s);
  if (!rc) rc = ade__footer_write(&st, cctx, m->hdr.level, &m->meta);
  if (!rc && (*out = malloc(st.mem.len + 1))) {
    memcpy(*out, st.mem.p, st.mem.len);
    *outn = st.mem.len;
    patch_frame(m, *out, *outn, s);
  } else {
    rc = -1;
  }
  for (int c = 0; c < ADE__NCOLS; c++) ade__buf_free(&col[c]);
  ade__buf_free(&scratch[0]);
  ade__buf_free(&scratch[1]);
  ade__store_close(&st);
  ade__zstd_free_cctx(cctx);
  return rc ? -1 : 0;
}

/* ------------------------------------------------------------ mutations */

/* Records of a kind: op == want, or any comparison for want = ADE_OP_LT. */
static uint64_t pick_kind(const model *m, size_t below, unsigned want, uint64_t *s) {
  size_t k = 0;
  for (size_t i = 0; i < below; i++)
    k += want == ADE_OP_LT ? m->r[i].op >= ADE_OP_LT && m->r[i].op < ADE_OP_COUNT : m->r[i].op == want;
  if (!k) return 0;
  k = rnd(s, k);
  for (size_t i = 0; i < below; i++)
    if ((want == ADE_OP_LT ? m->r[i].op >= ADE_OP_LT && m->r[i].op < ADE_OP_COUNT : m->r[i].op == want) &&
        !k--)
      return i + 1;
  return 0;
}

/* An operand for record i: any earlier record, one of a role the recorder
 * never uses as an operand, an independent, a constant, or (rarely) not an
 * earlier record at all. */
static void new_operand(const model *m, size_t i, int k, uint64_t *s) {
  mrec *r = &m->r[i];
  uint64_t id = 0;
  switch (rnd(s, 8)) {
  case 0: id = pick_kind(m, i, ADE_OP_DEP, s); break;
  case 1: id = pick_kind(m, i, ADE_OP_LT, s); break;
  case 2: id = pick_kind(m, i, ADE_OP_INDEP, s); break;
  case 3: r->cst[k] = weird(s); break;
  case 4: id = rnd(s, 64) ? 0 : i + 1 + rnd(s, 3); break;
  default: id = i ? 1 + rnd(s, i) : 0; break;
  }
  r->arg[k] = id;
  if (!id) r->cst[k] = weird(s);
}

/* An elemental call's structure: an output number, its name, its sizes
 * (the inputs grown or cut), or one input retargeted like an operand. */
static void mut_elemental(model *m, size_t i, uint64_t *s) {
  mrec *r = &m->r[i];
  m->what = "elemental call";
  switch (rnd(s, is_call(r) ? 6 : 2)) {
  case 0: r->ek = (uint32_t)rnd(s, 4); break;
  case 1: r->ek++; break;
  case 2: r->ename = (uint32_t)rnd(s, m->meta.nstrings + 2); break;
  case 3: r->em = (uint32_t)rnd(s, r->em + 3); break;
  case 4: {
    uint32_t en = (uint32_t)rnd(s, r->en + 3);
    size_t off = pool_add(m, en);
    if (off == SIZE_MAX) return;
    for (uint32_t k = 0; k < en; k++) {
      m->eid[off + k] = k < r->en ? m->eid[r->eoff + k] : (i ? 1 + rnd(s, i) : 0);
      m->ecst[off + k] = k < r->en ? m->ecst[r->eoff + k] : weird(s);
    }
    r->en = en;
    r->eoff = off;
    break;
  }
  default: {
    if (!r->en) break;
    size_t k = r->eoff + rnd(s, r->en);
    mrec save = *r; /* new_operand draws into arg[0] */
    new_operand(m, i, 0, s);
    m->eid[k] = r->arg[0];
    m->ecst[k] = r->cst[0];
    r->arg[0] = save.arg[0];
    r->cst[0] = save.cst[0];
  }
  }
}

static void mut_opcode(model *m, size_t i, uint64_t *s) {
  mrec *r = &m->r[i];
  int old = arity(r->op);
  r->op = (uint8_t)(rnd(s, 20) ? rnd(s, ADE_OP_COUNT) : rnd(s, 256));
  for (int k = old; k < arity(r->op); k++) new_operand(m, i, k, s);
  if (stores(r->op) && rnd(s, 2)) r->val = weird(s);
  m->what = "opcode";
}

/* Shift ids and record indices at or after record p by +1 (insert) or -1. */
static void renumber(model *m, size_t p, int delta) {
  for (size_t i = 0; i < m->n; i++)
    for (int k = 0; k < arity(m->r[i].op); k++) {
      uint64_t *a = &m->r[i].arg[k];
      if (delta < 0 && *a == p + 1) {
        *a = 0;
        m->r[i].cst[k] = 1.5;
      } else if (*a > p) {
        *a += (uint64_t)(int64_t)delta;
      }
    }
  for (size_t j = 0; j < m->ne; j++) { /* elemental calls' inputs */
    if (delta < 0 && m->eid[j] == p + 1) {
      m->eid[j] = 0;
      m->ecst[j] = 1.5;
    } else if (m->eid[j] > p) {
      m->eid[j] += (uint64_t)(int64_t)delta;
    }
  }
  for (size_t g = 0; g < m->meta.nregions; g++) {
    ade__region_rec *q = &m->meta.regions[g];
    if (q->first_op > p) q->first_op += (uint64_t)(int64_t)delta;
    if (q->end_op > p) q->end_op += (uint64_t)(int64_t)delta;
  }
  for (size_t d = 0; d < m->meta.ndiags; d++)
    if (m->meta.diags[d].op > p || (delta > 0 && m->meta.diags[d].op == p))
      m->meta.diags[d].op += (uint64_t)(int64_t)delta;
}

/* The chunk holding record p. */
static size_t chunk_of(const model *m, size_t p) {
  size_t c = 0;
  for (size_t first = 0; c + 1 < m->nchunks && first + m->chunk[c] <= p; first += m->chunk[c++]) continue;
  return c;
}

/* Insert a record at p: an independent, a dependent (of an earlier
 * record, a constant, or a dependent's operand again), or any operation. */
static void mut_insert(model *m, size_t p, uint64_t *s) {
  mrec *r = realloc(m->r, (m->n + 2) * sizeof *r);
  if (!r) return;
  m->r = r;
  renumber(m, p, +1);
  memmove(&r[p + 1], &r[p], (m->n - p) * sizeof *r);
  m->n++;
  if (!m->nchunks) m->chunk[m->nchunks++] = 0; /* an empty tape gets its first chunk */
  m->chunk[chunk_of(m, p)]++;
  memset(&r[p], 0, sizeof *r);
  r[p].val = weird(s);
  switch (rnd(s, 4)) {
  case 0: r[p].op = ADE_OP_INDEP; m->what = "insert indep"; break;
  case 1: {
    uint64_t d = pick_kind(m, p, ADE_OP_DEP, s);
    r[p].op = ADE_OP_DEP;
    r[p].arg[0] = d ? r[d - 1].arg[0] : 0;
    r[p].cst[0] = d ? r[d - 1].cst[0] : weird(s);
    m->what = "insert duplicate dep";
    break;
  }
  case 2: r[p].op = ADE_OP_DEP; new_operand(m, p, 0, s); m->what = "insert dep"; break;
  default:
    r[p].op = (uint8_t)rnd(s, ADE_OP_COUNT);
    for (int k = 0; k < arity(r[p].op); k++) new_operand(m, p, k, s);
    m->what = "insert op";
  }
}

/* Append an operation whose operands are dependents or comparisons (what
 * the recorder never writes), and a dependent of it. */
static void mut_misuse(model *m, uint64_t *s) {
  mrec *r = realloc(m->r, (m->n + 3) * sizeof *r);
  if (!r) return;
  m->r = r;
  size_t p = m->n;
  memset(&r[p], 0, 2 * sizeof *r);
  do r[p].op = (uint8_t)(1 + rnd(s, ADE_OP_LT - 1)); while (arity(r[p].op) == 0);
  for (int k = 0; k < arity(r[p].op); k++) {
    r[p].arg[k] = pick_kind(m, p, rnd(s, 2) ? ADE_OP_DEP : ADE_OP_LT, s);
    r[p].cst[k] = 0.75;
  }
  r[p].val = 0.5;
  r[p + 1].op = ADE_OP_DEP;
  r[p + 1].arg[0] = p + 1;
  m->n += 2;
  m->what = "operand: dependent or comparison";
}

static void mut_delete(model *m, size_t p) {
  renumber(m, p, -1);
  memmove(&m->r[p], &m->r[p + 1], (m->n - p - 1) * sizeof *m->r);
  m->n--;
  size_t c = chunk_of(m, p);
  if (--m->chunk[c] == 0) {
    memmove(&m->chunk[c], &m->chunk[c + 1], (m->nchunks - c - 1) * sizeof *m->chunk);
    m->nchunks--;
  }
  m->what = "delete record";
}

/* New chunk boundaries: random sizes, or the header's nominal size. */
static void mut_rechunk(model *m, uint64_t *s) {
  uint32_t *c = realloc(m->chunk, (m->n + 1) * sizeof *c);
  if (!c) return;
  m->chunk = c;
  m->nchunks = 0;
  uint32_t nominal = (uint32_t)(1 + rnd(s, 9));
  int fixed = (int)rnd(s, 2);
  for (size_t left = m->n; left;) {
    uint32_t k = fixed ? nominal : (uint32_t)(1 + rnd(s, 12));
    k = (uint32_t)ADE__MIN(k, left);
    c[m->nchunks++] = k;
    left -= k;
  }
  if (fixed) m->hdr.chunk_records = nominal;
  m->keep_chunks = !fixed;
  m->what = fixed ? "rechunk nominal" : "rechunk random";
}

static void mut_lists(model *m, uint64_t *s) {
  ade__meta *f = &m->meta;
  int dep = (int)rnd(s, 2);
  uint64_t **v = dep ? &f->dep : &f->indep;
  size_t *n = dep ? &f->ndep : &f->nindep, *cap = dep ? &f->depcap : &f->indepcap;
  m->keep_lists = 1;
  m->what = "footer lists";
  if (!*n) {
    ade__meta_add_id(v, n, cap, 1 + rnd(s, m->n + 2));
    return;
  }
  size_t i = rnd(s, *n);
  switch (rnd(s, 4)) {
  case 0: memmove(&(*v)[i], &(*v)[i + 1], (*n - i - 1) * sizeof **v); --*n; break;
  case 1: ade__meta_add_id(v, n, cap, (*v)[i]); break;
  case 2: { uint64_t t = (*v)[i]; (*v)[i] = (*v)[*n - 1]; (*v)[*n - 1] = t; break; }
  default: (*v)[i] = 1 + rnd(s, m->n + 2);
  }
}

static void mut_region(model *m, uint64_t *s) {
  ade__meta *f = &m->meta;
  m->what = "region or diagnostic";
  if (rnd(s, 2) && f->nregions) {
    ade__region_rec *g = &f->regions[rnd(s, f->nregions)];
    switch (rnd(s, 5)) {
    case 0: g->name = (uint32_t)rnd(s, f->nstrings + 2); break;
    case 1: g->parent = (int32_t)rnd(s, f->nregions + 1) - 1; break;
    case 2: g->first_op = rnd(s, m->n + 2); break;
    case 3: g->end_op = rnd(s, m->n + 2); break;
    default: if (g->nframes) g->frames[rnd(s, g->nframes)] = (uint32_t)rnd(s, f->nstrings + 2);
    }
    return;
  }
  ade__diag_rec d = {rnd(s, m->n + 2), (uint8_t)rnd(s, 256), (uint8_t)(1 + rnd(s, 3)),
                     (uint32_t)rnd(s, f->nstrings + 2)};
  if (f->ndiags && rnd(s, 2)) f->diags[rnd(s, f->ndiags)] = d;
  else ade__meta_add_diag(f, &d);
}

/* Footer claims: huge or off-by-one counts, chunk index entries, statistics. */
static void mutate_footer(model *m, uint64_t *s) {
  ade__meta *f = &m->meta;
  static const uint64_t big[] = {1, (uint64_t)1 << 24, (uint64_t)1 << 30, (uint64_t)1 << 40};
  uint64_t b = big[rnd(s, 4)];
  ade__chunkent *e = f->nchunks ? &f->chunks[rnd(s, f->nchunks)] : NULL;
  switch (m->footer) {
  case 0: return;
  case 8: /* mt_claim_records */
    for (size_t c = 0; c < f->nchunks; c++) {
      f->chunks[c].records = m->claim;
      if (m->pad) f->chunks[c].raw_size = m->claim + 4 + 4 * ADE__NCOLS;
    }
    f->records = (uint64_t)f->nchunks * m->claim;
    break;
  case 1: f->records += b; break;
  case 2: if (e) { f->records += ADE__MAX_CHUNK_RECORDS - e->records; e->records = ADE__MAX_CHUNK_RECORDS; } break;
  case 3: if (e) e->raw_size = (uint32_t)rnd(s, (uint64_t)e->raw_size * 2 + 64); break;
  case 4: f->opcount[rnd(s, 256)] = rnd(s, 2) ? b : 0; break;
  case 5: f->stored_values += b; f->raw_bytes ^= rnd(s, 1024); break;
  case 6: f->complete = !f->complete; f->status = f->complete ? 0 : -(int)(1 + rnd(s, 13)); break;
  default: /* 2^30 records over chunks that claim 2^24 each */
    for (size_t c = 0; c < f->nchunks; c++) f->chunks[c].records = ADE__MAX_CHUNK_RECORDS;
    f->records = (uint64_t)f->nchunks * ADE__MAX_CHUNK_RECORDS;
  }
}

/* Patch a frame header field (records, raw or stored size, index, first,
 * codec) of a chunk or the footer, then repair the checksums. */
static void patch_frame(const model *m, unsigned char *p, size_t n, uint64_t *s) {
  for (uint64_t off = ADE__HEADER_SIZE, c = 0; m->claim && c < m->nchunks; c++) {
    ade__st32(p + off + 16, m->claim); /* records, and padded: raw size, codec zstd */
    if (m->pad) ade__st32(p + off + 20, m->claim + 4 + 4 * ADE__NCOLS);
    p[off + 28] = (unsigned char)(m->pad != 0);
    off += ADE__FRAME_SIZE + ade__ld32(p + off + 24);
  }
  if (m->claim) mt_fix_sums(p, n);
  if (!m->frame || n < ADE__HEADER_SIZE + ADE__TRAILER_SIZE + ADE__FRAME_SIZE) return;
  uint64_t off = ADE__HEADER_SIZE, end = n - ADE__TRAILER_SIZE;
  for (uint64_t k = rnd(s, m->nchunks + 1); k && off + ADE__FRAME_SIZE <= end; k--)
    off += ADE__FRAME_SIZE + ade__ld32(p + off + 24);
  if (off + ADE__FRAME_SIZE > end) return;
  unsigned char *f = p + off;
  static const uint32_t big[] = {0, 1, 1u << 24, 1u << 30, 0xffffffffu};
  uint32_t v = rnd(s, 2) ? big[rnd(s, 5)] : (uint32_t)rnd(s, 1u << 16);
  switch (m->frame) {
  case 1: ade__st32(f + 16, v); break;
  case 2: ade__st32(f + 20, v); break;
  case 3: ade__st32(f + 4, v); break;
  case 4: ade__st64(f + 8, v); break;
  default: f[28] ^= 1;
  }
  mt_fix_sums(p, n);
}

static void mutate_once(model *m, uint64_t *s) {
  size_t i = m->n ? rnd(s, m->n) : 0;
  switch (m->n ? rnd(s, 17) : 5 + rnd(s, 11)) {
  case 16: mut_misuse(m, s); break;
  case 0: case 1: case 2: mut_opcode(m, i, s); break;
  case 3: case 4:
    if (m->r[i].op == ADE_OP_VECTOR_ELEMENTAL) {
      mut_elemental(m, i, s);
      break;
    }
    if (arity(m->r[i].op)) new_operand(m, i, (int)rnd(s, (uint64_t)arity(m->r[i].op)), s);
    m->what = "retarget operand";
    break;
  case 5: case 6: mut_insert(m, m->n ? rnd(s, m->n + 1) : 0, s); break;
  case 7: if (m->n) mut_delete(m, i); break;
  case 8:
    if (m->n && arity(m->r[i].op) && !m->r[i].arg[0]) m->r[i].cst[0] = weird(s);
    else if (m->n) m->r[i].val = weird(s);
    m->what = "value";
    break;
  case 9: mut_rechunk(m, s); break;
  case 10: mut_lists(m, s); break;
  case 11: mut_region(m, s); break;
  case 12:
    m->footer = (int)(1 + rnd(s, 7));
    m->what = "footer counts";
    break;
  case 13:
    m->frame = (int)(1 + rnd(s, 5));
    m->what = "frame header";
    break;
  case 14:
    m->cut_chunk = (long)rnd(s, m->nchunks + 1);
    m->cut_col = (long)rnd(s, ADE__NCOLS);
    m->cut = (long)rnd(s, 19) - 9;
    m->what = "column bytes";
    break;
  default:
    if (rnd(s, 2)) m->hdr.capture = !m->hdr.capture;
    else m->hdr.level = (int)rnd(s, 4);
    m->what = "header";
  }
}

int mt_mutate(const unsigned char *in, size_t n, uint64_t *rng, unsigned char **out, size_t *outn,
              const char **what) {
  model m;
  memset(&m, 0, sizeof m);
  m.cut_chunk = -1;
  ade_set_allocator(NULL, NULL);
  int rc = model_decode(&m, in, n) ? -1 : 0;
  for (uint64_t k = 1 + rnd(rng, 3); !rc && k; k--) mutate_once(&m, rng);
  if (!rc) rc = encode(&m, rng, out, outn);
  if (what) *what = m.what ? m.what : "none";
  model_free(&m);
  return rc;
}

int mt_claim_records(const unsigned char *in, size_t n, uint32_t claim, int pad, unsigned char **out,
                     size_t *outn) {
  model m;
  uint64_t rng = 1;
  memset(&m, 0, sizeof m);
  m.cut_chunk = -1;
  ade_set_allocator(NULL, NULL);
  int rc = model_decode(&m, in, n) ? -1 : 0;
  m.hdr.level = 0;
  m.hdr.chunk_records = claim;
  m.keep_chunks = 1;
  m.claim = claim;
  m.pad = pad;
  m.footer = 8;
  if (!rc) rc = encode(&m, &rng, out, outn);
  model_free(&m);
  return rc;
}
