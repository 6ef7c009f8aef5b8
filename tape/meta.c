/* meta.c: the footer's tables (chunk index, independents, dependents, strings, regions, diagnostics). */
#include "tape_internal.h"

/* Grow *v (elements of size sz) to hold one more. */
static int grow(void **v, size_t n, size_t *cap, size_t sz) {
  return ade__grow(v, cap, n + 1, sz) ? ade__fail(ADE_ENOMEM, "out of memory growing tape metadata") : ADE_OK;
}

int ade__meta_reserve_chunk(ade__meta *m) {
  return grow((void **)&m->chunks, m->nchunks, &m->chunkcap, sizeof *m->chunks);
}

int ade__meta_add_chunk(ade__meta *m, const ade__chunkent *e) {
  if (grow((void **)&m->chunks, m->nchunks, &m->chunkcap, sizeof *e)) return ADE_ENOMEM;
  m->chunks[m->nchunks++] = *e;
  return ADE_OK;
}

int ade__meta_add_id(uint64_t **v, size_t *n, size_t *cap, uint64_t id) {
  if (grow((void **)v, *n, cap, sizeof **v)) return ADE_ENOMEM;
  (*v)[(*n)++] = id;
  return ADE_OK;
}

/* Strings are shorter than 4096 bytes on the tape (doc/tape-format.md), so a
 * longer region name is cut: the footer must stay readable. */
int ade__meta_add_string(ade__meta *m, const char *s, uint32_t *index) {
  if (grow((void **)&m->strings, m->nstrings, &m->stringcap, sizeof(char *))) return ADE_ENOMEM;
  size_t n = strnlen(s, 4095);
  char *d = ade__alloc(n + 1);
  if (!d) return ade__fail(ADE_ENOMEM, "out of memory");
  memcpy(d, s, n);
  d[n] = '\0';
  m->strings[m->nstrings] = d;
  *index = (uint32_t)m->nstrings++;
  return ADE_OK;
}

int ade__meta_add_region(ade__meta *m, const ade__region_rec *r) {
  if (grow((void **)&m->regions, m->nregions, &m->regioncap, sizeof *r)) return ADE_ENOMEM;
  m->regions[m->nregions++] = *r;
  return ADE_OK;
}

int ade__meta_add_diag(ade__meta *m, const ade__diag_rec *d) {
  if (grow((void **)&m->diags, m->ndiags, &m->diagcap, sizeof *d)) return ADE_ENOMEM;
  m->diags[m->ndiags++] = *d;
  return ADE_OK;
}

void ade__meta_free(ade__meta *m) {
  for (size_t i = 0; i < m->nstrings; i++) ade__free(m->strings[i]);
  for (size_t i = 0; i < m->nregions; i++) ade__free(m->regions[i].frames);
  ade__free(m->strings);
  ade__free(m->regions);
  ade__free(m->diags);
  ade__free(m->chunks);
  ade__free(m->indep);
  ade__free(m->dep);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------- serialize */

/* After meta_reserve: room for every varint, so no check per value. */
static int put(ade__buf *b, uint64_t v) {
  b->len += ade__varint_put(b->p + b->len, v);
  return ADE_OK;
}

/* Room for m's footer: 10 bytes per varint at most, and the strings. */
static int meta_reserve(ade__buf *b, const ade__meta *m) {
  size_t v = 6 + 4 * m->nchunks + 2 + m->nindep + m->ndep + 257 + 1 + m->nstrings + 1 + 5 * m->nregions + 1 +
             4 * m->ndiags, bytes = 0;
  for (size_t i = 0; i < m->nstrings; i++) bytes += strlen(m->strings[i]);
  for (size_t i = 0; i < m->nregions; i++) v += m->regions[i].nframes;
  return ade__buf_reserve(b, ade__mul_size(v, 10) + bytes) ? ADE_ENOMEM : ADE_OK;
}

static int put_ids(ade__buf *b, const uint64_t *ids, size_t n) {
  int st = put(b, n);
  for (size_t i = 0, prev = 0; i < n && !st; prev = ids[i++]) st = put(b, ids[i] - prev);
  return st;
}

int ade__meta_encode(ade__buf *b, const ade__meta *m) {
  int st = meta_reserve(b, m) || put(b, (uint64_t)m->complete) || put(b, (uint64_t)(-m->status)) ||
           put(b, m->records) || put(b, m->stored_values) || put(b, m->raw_bytes) ||
           put(b, m->nchunks);
  for (size_t i = 0; i < m->nchunks && !st; i++) {
    const ade__chunkent *e = &m->chunks[i];
    st = put(b, e->offset) || put(b, e->records) || put(b, e->raw_size) || put(b, e->stored_size);
  }
  st = st || put_ids(b, m->indep, m->nindep) || put_ids(b, m->dep, m->ndep) || put(b, 256);
  for (int i = 0; i < 256 && !st; i++) st = put(b, m->opcount[i]);
  st = st || put(b, m->nstrings);
  for (size_t i = 0; i < m->nstrings && !st; i++) {
    size_t n = strlen(m->strings[i]);
    st = put(b, n) || ade__buf_put(b, m->strings[i], n);
  }
  st = st || put(b, m->nregions);
  for (size_t i = 0; i < m->nregions && !st; i++) {
    const ade__region_rec *r = &m->regions[i];
    st = put(b, r->name) || put(b, (uint64_t)(r->parent + 1)) || put(b, r->first_op) ||
         put(b, r->end_op) || put(b, r->nframes);
    for (uint32_t k = 0; k < r->nframes && !st; k++) st = put(b, r->frames[k]);
  }
  st = st || put(b, m->ndiags);
  for (size_t i = 0; i < m->ndiags && !st; i++) {
    const ade__diag_rec *d = &m->diags[i];
    st = put(b, d->op) || put(b, d->opcode) || put(b, d->kind) || put(b, d->site);
  }
  return st ? ade__fail(ADE_ENOMEM, "out of memory writing the footer") : ADE_OK;
}

/* ----------------------------------------------------------- deserialize */

typedef struct cursor {
  const unsigned char *p, *end;
  int bad;
} cursor;

static uint64_t get(cursor *c) {
  uint64_t v = 0;
  if (!c->bad && ade__varint_get(&c->p, c->end, &v)) c->bad = 1;
  return c->bad ? 0 : v;
}

/* A count of elements that each take at least one more byte: bounded by what
 * is left, so a hostile count cannot cause a huge allocation. */
static size_t get_count(cursor *c) {
  uint64_t n = get(c);
  if (n > (uint64_t)(c->end - c->p)) c->bad = 1;
  return c->bad ? 0 : (size_t)n;
}

static int get_ids(cursor *c, uint64_t **v, size_t *n, size_t *cap) {
  size_t k = get_count(c);
  uint64_t id = 0;
  for (size_t i = 0; i < k && !c->bad; i++) {
    uint64_t d = get(c);
    if (d == 0 || id + d < id) c->bad = 1; /* ids strictly increase */
    else if (ade__meta_add_id(v, n, cap, id += d)) return ADE_ENOMEM;
  }
  return ADE_OK;
}

static int get_strings(cursor *c, ade__meta *m) {
  size_t k = get_count(c);
  char buf[4096];
  for (size_t i = 0; i < k && !c->bad; i++) {
    uint64_t len = get(c);
    uint32_t idx;
    if (len >= sizeof buf || len > (uint64_t)(c->end - c->p)) {
      c->bad = 1;
      break;
    }
    memcpy(buf, c->p, len);
    buf[len] = '\0';
    c->p += len;
    if (memchr(buf, '\0', len)) c->bad = 1;
    else if (ade__meta_add_string(m, buf, &idx)) return ADE_ENOMEM;
  }
  return ADE_OK;
}

/* The recorder opens regions in record order, each inside the innermost
 * open one (parent + 1; 0 = none), which it closes after its children. */
static int nested(const ade__meta *m, const ade__region_rec *r, uint64_t parent) {
  const ade__region_rec *p = parent ? &m->regions[parent - 1] : NULL;
  return (!m->nregions || m->regions[m->nregions - 1].first_op <= r->first_op) &&
         (!p || (p->first_op <= r->first_op && r->end_op <= p->end_op));
}

static int get_regions(cursor *c, ade__meta *m) {
  size_t k = get_count(c);
  for (size_t i = 0; i < k && !c->bad; i++) {
    ade__region_rec r = {0};
    uint64_t name = get(c), parent = get(c); /* range-checked before narrowing */
    r.first_op = get(c);
    r.end_op = get(c);
    r.nframes = (uint32_t)get_count(c);
    if (c->bad || name >= m->nstrings || parent > i || r.first_op > r.end_op ||
        r.end_op > m->records || !nested(m, &r, parent)) {
      c->bad = 1;
      break;
    }
    r.name = (uint32_t)name;
    r.parent = (int32_t)parent - 1;
    if (r.nframes && !(r.frames = ade__calloc(r.nframes, sizeof *r.frames))) return ADE_ENOMEM;
    for (uint32_t f = 0; f < r.nframes; f++) {
      uint64_t s = get(c);
      if (s >= m->nstrings) c->bad = 1;
      else r.frames[f] = (uint32_t)s;
    }
    if (ade__meta_add_region(m, &r)) {
      ade__free(r.frames);
      return ADE_ENOMEM;
    }
  }
  return ADE_OK;
}

static int get_diags(cursor *c, ade__meta *m) {
  size_t k = get_count(c);
  for (size_t i = 0; i < k && !c->bad; i++) {
    ade__diag_rec d;
    d.op = get(c);
    uint64_t op = get(c), kind = get(c), site = get(c);
    if (op > 255 || kind < 1 || kind > 3 || site > m->nstrings || d.op >= m->records) c->bad = 1;
    d.opcode = (uint8_t)op;
    d.kind = (uint8_t)kind;
    d.site = (uint32_t)site;
    if (!c->bad && ade__meta_add_diag(m, &d)) return ADE_ENOMEM;
  }
  return ADE_OK;
}

static int get_chunks(cursor *c, ade__meta *m) {
  size_t k = get_count(c);
  uint64_t first = 0;
  for (size_t i = 0; i < k && !c->bad; i++) {
    ade__chunkent e;
    e.offset = get(c);
    e.first = first;
    uint64_t rec = get(c), raw = get(c), stored = get(c);
    if (rec == 0 || rec > ADE__MAX_CHUNK_RECORDS || raw > ADE__MAX_CHUNK_BYTES ||
        stored > ADE__MAX_CHUNK_BYTES) {
      c->bad = 1;
      break;
    }
    e.records = (uint32_t)rec;
    e.raw_size = (uint32_t)raw;
    e.stored_size = (uint32_t)stored;
    first += rec;
    if (ade__meta_add_chunk(m, &e)) return ADE_ENOMEM;
  }
  return ADE_OK;
}

int ade__meta_decode(const unsigned char *p, size_t n, ade__meta *m) {
  cursor c = {p, p + n, 0};
  int st;
  uint64_t complete = get(&c), status = get(&c);
  /* The recorder writes 1 and 0, or 0 and its failure's status. */
  if (complete > 1 || (complete == 1) != (status == 0) || status > 255) c.bad = 1;
  m->complete = complete == 1;
  m->status = -(int)(status & 0xff);
  m->records = get(&c);
  m->stored_values = get(&c);
  m->raw_bytes = get(&c);
  if ((st = get_chunks(&c, m)) || (st = get_ids(&c, &m->indep, &m->nindep, &m->indepcap)) ||
      (st = get_ids(&c, &m->dep, &m->ndep, &m->depcap)))
    return st;
  if (get(&c) != 256) c.bad = 1;
  for (int i = 0; i < 256 && !c.bad; i++) m->opcount[i] = get(&c);
  if ((st = get_strings(&c, m)) || (st = get_regions(&c, m)) || (st = get_diags(&c, m))) return st;
  if (!c.bad && c.p != c.end) c.bad = 1;
  if (c.bad)
    return ade__fail(ADE_EFORMAT, "malformed footer at byte %zu of its payload", (size_t)(c.p - p));
  return ADE_OK;
}
