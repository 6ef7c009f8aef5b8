/* tape.c: tape objects: create, trace on/off, open, load, save, free. */
#include <stdatomic.h>
#include <stdio.h>

#include "record_internal.h"

/* The calling thread's current tape (initial-exec: one instruction to read). */
_Thread_local ade_tape *ade__cur __attribute__((tls_model("initial-exec")));
#define cur ade__cur

/* The process-wide state: serials of recording tapes, so that a variable
 * from another tape is recognised. A counter hands them out round robin
 * (a freed tape's serial comes back only after every other one has been
 * tried) and a bitmap marks those held: a tape keeps its serial from
 * ade_tape_create to ade_tape_free, so no two live tapes share one. */
static atomic_uint_fast64_t serials;
static atomic_uint_fast64_t held[(ADE__SERIAL_MASK >> 6) + 1];

uint64_t ade__serial_claim(void) {
  for (uint64_t k = 0; k < ADE__SERIAL_MASK; k++) {
    uint64_t s = atomic_fetch_add(&serials, 1) % ADE__SERIAL_MASK + 1, bit = UINT64_C(1) << (s & 63);
    if (!(atomic_fetch_or(&held[s >> 6], bit) & bit)) return s;
  }
  return 0;
}

void ade__serial_release(uint64_t s) {
  if (s) atomic_fetch_and(&held[s >> 6], ~(UINT64_C(1) << (s & 63)));
}

void ade_tape_options_init(ade_tape_options *o) {
  o->path = NULL;
  o->level = 3;
  o->chunk_ops = 65536;
  o->capture = 0;
  o->defer = 0;
  o->keep = 0;
}

static ade_tape *tape_new(void) {
  ade_tape *t = ade__calloc(1, sizeof *t);
  if (!t) return NULL;
  t->store.fd = -1;
  t->view_chunk = SIZE_MAX;
  t->memlimit = (size_t)256 << 20;
  return t;
}

/* What a clone owns: the reading and sweep workspaces. */
static void workspace_free(ade_tape *t) {
  ade__prefetch_stop(t);
  for (int k = 0; k < ADE__EV_N; k++) { /* before the metadata: the lin cache needs the chunk count */
    void (*f)(ade_tape *) = atomic_load_explicit(&t->eval_free[k], memory_order_acquire);
    if (f) f(t);
  }
  ade__zstd_free_dctx(t->dctx);
  ade__buf_free(&t->cd.raw);
  ade__buf_free(&t->cd.plain);
  ade__buf_free(&t->scratch);
  ade__view_free(&t->scratch_view);
  ade__free(t->work);
  ade__free(t->ework);
  ade__free(t->enames);
}

void ade_tape_free(ade_tape *t) {
  if (!t) return;
  if (t->state == ADE__RECORDING && cur == t) ade_trace_off();
  for (int i = 0; i < ADE__SPARES; i++) {
    ade_tape *c = atomic_exchange(&t->spare[i], NULL);
    if (c) workspace_free(c);
    ade__free(c);
  }
  workspace_free(t);
  ade__serial_release(t->serial >> ADE__ID_BITS);
  ade__kept_free(atomic_exchange(&t->kept, NULL)); /* a form no sweep took */
  ade__writer_free(t->w);
  ade__store_close(&t->store);
  ade__meta_free(&t->meta);
  ade__zstd_free_cctx(t->cctx);
  ade__free(t);
}

/* A clone of finished tape t: t's bytes, workspaces empty. The copy is
 * bytewise: the store and the metadata arrays stay t's. */
static ade_tape *clone_new(const ade_tape *t) {
  ade_tape *c = ade__alloc(sizeof *c);
  if (!c) return NULL;
  memcpy(c, t, sizeof *c);
  c->owner = (ade_tape *)t;
  c->cctx = c->dctx = NULL;
  c->w = NULL;
  memset(&c->cd, 0, sizeof c->cd);
  memset(&c->scratch, 0, sizeof c->scratch);
  memset(&c->scratch_view, 0, sizeof c->scratch_view);
  memset(&c->view, 0, sizeof c->view);
  c->view_chunk = SIZE_MAX;
  c->pf = NULL;
  c->lin = NULL;
  c->linseen = NULL;
  c->linbytes = 0;
  memset(&c->linscratch, 0, sizeof c->linscratch);
  c->work = NULL;
  c->workcap = 0;
  c->ework = NULL;
  c->eworkcap = 0;
  c->enames = NULL;
  c->nenames = c->enamecap = 0;
  c->enames_set = 0;
  memset(&c->pt, 0, sizeof c->pt);
  c->view_apply = NULL;
  atomic_init(&c->resident, NULL); /* the owner's is shared, not copied */
  atomic_init(&c->kept, NULL);
  for (int i = 0; i < ADE__SPARES; i++) atomic_init(&c->spare[i], NULL);
  return c;
}

int ade__tape_borrow(ade_tape *t, ade_tape **cp) {
  *cp = t;
  if (!t || t->owner || t->state != ADE__FINISHED) return ADE_OK;
  ade_tape *c = NULL;
  for (int i = 0; i < ADE__SPARES && !c; i++)
    if (atomic_load_explicit(&t->spare[i], memory_order_relaxed))
      c = atomic_exchange_explicit(&t->spare[i], NULL, memory_order_acquire);
  if (!c && !(c = clone_new(t))) return ade__fail(ADE_ENOMEM, "out of memory for a tape's workspace");
  c->memlimit = t->memlimit;
  c->peak_live = SIZE_MAX; /* none yet: release keeps t's */
  *cp = c;
  return ADE_OK;
}

int ade__tape_release(ade_tape *t, ade_tape *c, int status) {
  if (c == t) return status;
  ade__prefetch_stop(c); /* no idle thread is kept with a spare */
  size_t peak = atomic_load_explicit(&c->peak_live, memory_order_relaxed);
  if (peak != SIZE_MAX) atomic_store_explicit(&t->peak_live, peak, memory_order_relaxed);
  for (int i = 0; i < ADE__SPARES && c; i++) {
    ade_tape *none = NULL;
    if (atomic_compare_exchange_strong_explicit(&t->spare[i], &none, c, memory_order_release,
                                                memory_order_relaxed))
      c = NULL;
  }
  if (c) {
    workspace_free(c);
    ade__free(c);
  }
  return status;
}

int ade_tape_create(ade_tape **tp, const ade_tape_options *o) {
  ade_tape_options def;
  if (!tp) return ade__fail(ADE_EINVAL, "ade_tape_create: tape pointer is NULL");
  *tp = NULL;
  if (!o) {
    ade_tape_options_init(&def);
    o = &def;
  }
  if (o->level < 0 || o->level > 19 || o->chunk_ops < 1 || o->chunk_ops > ADE__MAX_CHUNK_RECORDS)
    return ade__fail(ADE_EINVAL, "tape options: level must be 0..19 and chunk_ops 1..%u",
                     ADE__MAX_CHUNK_RECORDS);
  if (o->defer && o->path)
    return ade__fail(ADE_EINVAL, "tape options: defer is for memory tapes (path must be NULL)");
  ade_tape *t = tape_new();
  int st = t ? ADE_OK : ade__fail(ADE_ENOMEM, "out of memory creating a tape");
  if (!st && !(t->serial = ade__serial_claim() << ADE__ID_BITS))
    st = ade__fail(ADE_ETOOBIG, "%llu tapes from ade_tape_create are alive: no serial left",
                   (unsigned long long)ADE__SERIAL_MASK);
  if (!st) {
    t->hdr.capture = o->capture != 0;
    t->hdr.level = o->level;
    t->deferred = o->defer != 0;
    t->wlevel = t->deferred ? 0 : o->level;
    t->hdr.chunk_records = o->chunk_ops;
    t->meta.complete = 1;
    t->hooked = ade__alloc_hooked();
    if (!(t->w = ade__tcache_writer())) t->w = ade__calloc(1, sizeof *t->w);
    if (t->wlevel > 0 && !(t->cctx = ade__tcache_cctx(t->wlevel))) t->cctx = ade__zstd_cctx(t->wlevel);
    if (t->w && o->keep) t->w->keep = ade__calloc(1, sizeof *t->w->keep);
    if (!t->w || (o->keep && !t->w->keep) || (t->wlevel > 0 && !t->cctx))
      st = ade__fail(ADE_ENOMEM, "out of memory creating a tape");
  }
  if (!st && o->path) st = ade__store_open_file(&t->store, o->path, 1);
  if (!st) {
    unsigned char h[ADE__HEADER_SIZE];
    ade__header_encode(h, &t->hdr);
    st = ade__store_append(&t->store, h, sizeof h);
  }
  if (st) {
    ade_tape_free(t);
    return st;
  }
  *tp = t;
  return ADE_OK;
}

int ade_trace_on(ade_tape *t) {
  if (!t) return ade__fail(ADE_EINVAL, "ade_trace_on: tape is NULL");
  if (t->state != ADE__NEW)
    return ade__fail(ADE_ESTATE, "ade_trace_on: the tape was already recorded (a tape records once)");
  if (cur) return ade__fail(ADE_ESTATE, "ade_trace_on: another tape is recording on this thread");
  t->state = ADE__RECORDING;
  cur = t;
  return ADE_OK;
}

/* Close open regions, flush the last chunk, write the footer: returns the
 * recording's status, *fst the footer's. */
static int finish(ade_tape *t, int *fst) {
  ade__writer *w = t->w;
  while (w->rdepth) t->meta.regions[w->rstack[--w->rdepth]].end_op = w->first + w->n;
  int st = w->status;
  if (!st && w->n && (st = ade__writer_flush(t)))
    ade__record_error(t, st, "writing chunk %zu: %s", t->meta.nchunks, ade_errmsg());
  if (st) {
    /* Keep the chunks written so far; drop the open one (it is not on disk). */
    t->meta.complete = 0;
    t->meta.status = st;
    while (t->meta.nindep && t->meta.indep[t->meta.nindep - 1] > w->first) t->meta.nindep--;
    while (t->meta.ndep && t->meta.dep[t->meta.ndep - 1] > w->first) t->meta.ndep--;
    while (t->meta.ndiags && t->meta.diags[t->meta.ndiags - 1].op >= w->first) t->meta.ndiags--;
    for (size_t i = 0; i < t->meta.nregions; i++) {
      ade__region_rec *r = &t->meta.regions[i];
      r->first_op = ADE__MIN(r->first_op, w->first);
      r->end_op = ADE__MIN(r->end_op, w->first);
    }
  }
  *fst = ade__footer_write(&t->store, t->cctx, t->wlevel, &t->meta);
  if (*fst) { /* the bytes are not a tape: never complete, never handed out */
    t->meta.complete = 0;
    t->meta.status = st ? st : *fst;
    t->nofooter = 1;
    if (!w->errmsg[0]) snprintf(w->errmsg, sizeof w->errmsg, "writing the footer: %s", ade_errmsg());
  }
  return st;
}

/* Streaming: rename the temporary file onto the path asked for (also for a
 * failed recording: its footer says so). If the footer could not be
 * written, keep the temporary file, a prefix ade_tape_recover reads, and
 * name it. The store keeps reading through its fd either way. */
static int commit_file(ade_tape *t, int fst) {
  ade__afile *a = &t->store.out;
  if (!a->tmp) return fst;
  if (!fst) return ade__afile_commit(a, 1);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", ade_errmsg());
  fst = ade__fail(fst, "%s; the recording so far is in '%s' (ade_tape_recover reads it)", msg, a->tmp);
  ade__afile_release(a);
  return fst;
}

int ade_trace_off(void) {
  ade_tape *t = cur;
  if (!t) return ade__fail(ADE_ESTATE, "ade_trace_off: no tape is recording on this thread");
  cur = NULL;
  int fst, st = finish(t, &fst);
  ade__kept_finish(t, !st && !fst);
  if (st || fst)
    snprintf(t->why, sizeof t->why, "%s", t->w->errmsg[0] ? t->w->errmsg : ade_strerror(st ? st : fst));
  char fmsg[512] = "";
  ade__tcache_put(t->w, t->cctx, t->wlevel, t->hooked); /* for this thread's next tape */
  t->w = NULL;
  t->cctx = NULL;
  t->state = ADE__FINISHED;
  fst = commit_file(t, fst);
  if (!st) return fst;
  if (fst) snprintf(fmsg, sizeof fmsg, "; %s", ade_errmsg());
  return ade__fail(st, "recording failed: %s%s", t->why, fmsg);
}

int ade__tape_readable(const ade_tape *t) {
  if (!t) return ade__fail(ADE_EINVAL, "tape is NULL");
  if (t->state != ADE__FINISHED)
    return ade__fail(ADE_ESTATE, "the tape is still being recorded (call ade_trace_off first)");
  return ADE_OK;
}

/* The recorder fills every chunk but the last to the header's size, but
 * for one that ends early because the next elemental call does not fit
 * (ade_tape_verify checks that it is so). */
static int check_chunk_sizes(const ade_tape *t) {
  const ade__meta *m = &t->meta;
  const int elem = ade__tape_has_elementals(t);
  for (size_t c = 0; c < m->nchunks; c++)
    if (m->chunks[c].records > t->hdr.chunk_records ||
        (c + 1 < m->nchunks && m->chunks[c].records != t->hdr.chunk_records && !elem))
      return ade__fail(ADE_EFORMAT, "chunk %zu: %u records, the header's chunk size is %u", c,
                       m->chunks[c].records, t->hdr.chunk_records);
  return ADE_OK;
}

int ade__tape_usable(const ade_tape *t) {
  int st = ade__tape_readable(t);
  if (st || t->meta.complete) return st;
  return ade__fail(ADE_ESTATE, "the tape is incomplete (recording failed: %s); it can be inspected "
                   "(stats, regions, diagnostics, verify) but not evaluated or differentiated",
                   t->why[0] ? t->why : ade_strerror(t->meta.status));
}

/* A tape whose footer was never written has no valid bytes to hand out. */
static int tape_has_bytes(const ade_tape *t) {
  int st = ade__tape_readable(t);
  if (st || !t->nofooter) return st;
  return ade__fail(ADE_ESTATE, "the tape has no footer (recording failed: %s); its bytes are not a tape",
                   t->why);
}

/* Read header and footer of a store into a fresh finished tape. */
static int open_store(ade_tape *t) {
  unsigned char h[ADE__HEADER_SIZE];
  int st = ade__store_read(&t->store, 0, h, sizeof h);
  if (st == ADE_ETRUNC) {
    size_t n = (size_t)t->store.size;
    ade__store_read(&t->store, 0, h, n);
    st = memcmp(h, "\x89" "ADT", ADE__MIN(n, 4)) || n == 0 ? ADE_EFORMAT : ADE_ETRUNC;
    if (n == 0) st = ADE_ETRUNC;
    st = ade__fail(st, st == ADE_ETRUNC ? "tape truncated: %zu bytes, shorter than its header"
                                        : "not an adelim tape (%zu bytes, bad magic)", n);
  }
  if (!st) st = ade__header_decode(h, &t->hdr);
  if (!st && !(t->dctx = ade__zstd_dctx())) st = ade__fail(ADE_ENOMEM, "out of memory opening a tape");
  if (!st) st = ade__footer_read(&t->store, t->dctx, &t->meta);
  if (!st) st = check_chunk_sizes(t);
  t->state = ADE__FINISHED;
  return st;
}

int ade_tape_open(ade_tape **tp, const char *path) {
  if (!tp || !path) return ade__fail(ADE_EINVAL, "ade_tape_open: NULL argument");
  *tp = NULL;
  ade_tape *t = tape_new();
  if (!t) return ade__fail(ADE_ENOMEM, "out of memory opening '%s'", path);
  int st = ade__store_open_file(&t->store, path, 0);
  if (!st) st = open_store(t);
  if (st) {
    ade_tape_free(t);
    return st;
  }
  *tp = t;
  return ADE_OK;
}

/* Add chunk e found by the recovery scan (its records, roles and op counts)
 * if it decodes; otherwise leave the metadata as it was. */
static int recover_chunk(ade_tape *t, const ade__chunkent *e) {
  ade__meta *m = &t->meta, saved = *m;
  uint64_t counts[256];
  memcpy(counts, m->opcount, sizeof counts);
  int st = ade__meta_add_chunk(m, e);
  if (!st) st = ade__chunk_read(&t->store, t->dctx, m, m->nchunks - 1, &t->scratch, &t->cd);
  if (!st && t->cd.collen[ADE__COL_OPS] != e->records) st = ADE_EFORMAT;
  for (uint32_t i = 0; i < e->records && !st; i++) {
    unsigned op = t->cd.col[ADE__COL_OPS][i];
    m->opcount[op]++;
    if (op == ADE_OP_INDEP) st = ade__meta_add_id(&m->indep, &m->nindep, &m->indepcap, e->first + i + 1);
    if (op == ADE_OP_DEP) st = ade__meta_add_id(&m->dep, &m->ndep, &m->depcap, e->first + i + 1);
  }
  m->records += e->records;
  m->raw_bytes += e->raw_size;
  if (!st) st = ade__view_load(t, m->nchunks - 1);
  if (st) { /* the arrays may have moved: keep the pointers, restore counts */
    m->nchunks = saved.nchunks;
    m->nindep = saved.nindep;
    m->ndep = saved.ndep;
    m->records = saved.records;
    m->raw_bytes = saved.raw_bytes;
    memcpy(m->opcount, counts, sizeof counts);
  }
  return st;
}

int ade_tape_recover(ade_tape **tp, const char *path) {
  if (!tp || !path) return ade__fail(ADE_EINVAL, "ade_tape_recover: NULL argument");
  *tp = NULL;
  ade_tape *t = tape_new();
  unsigned char h[ADE__HEADER_SIZE];
  int st = t ? ade__store_open_file(&t->store, path, 0) : ade__fail(ADE_ENOMEM, "out of memory");
  if (!st) st = ade__store_read(&t->store, 0, h, sizeof h);
  if (!st) st = ade__header_decode(h, &t->hdr);
  if (!st && !(t->dctx = ade__zstd_dctx())) st = ade__fail(ADE_ENOMEM, "out of memory");
  if (!st) {
    t->state = ADE__FINISHED;
    t->recovered = 1;
    t->meta.status = ADE_ETRUNC;
  }
  /* Every intact chunk frame from the header on, up to the first bad one. */
  uint64_t off = ADE__HEADER_SIZE;
  ade__chunkent e;
  while (!st && ade__chunk_peek(&t->store, off, (uint32_t)t->meta.nchunks, t->meta.records, &e) == ADE_OK &&
         recover_chunk(t, &e) == ADE_OK)
    off += ADE__FRAME_SIZE + e.stored_size;
  if (st) {
    ade_tape_free(t);
    return st;
  }
  ade__clear_error();
  *tp = t;
  return ADE_OK;
}

int ade_tape_from_bytes(ade_tape **tp, const void *bytes, size_t size) {
  if (!tp || (!bytes && size)) return ade__fail(ADE_EINVAL, "ade_tape_from_bytes: NULL argument");
  *tp = NULL;
  ade_tape *t = tape_new();
  int st = t ? ade__store_append(&t->store, bytes, size) : ade__fail(ADE_ENOMEM, "out of memory");
  if (!st) st = open_store(t);
  if (st) {
    ade_tape_free(t);
    return st;
  }
  *tp = t;
  return ADE_OK;
}

int ade_tape_load(ade_tape **tp, const char *path) {
  if (!tp || !path) return ade__fail(ADE_EINVAL, "ade_tape_load: NULL argument");
  *tp = NULL;
  ade__store f = {.fd = -1};
  ade__buf b = {0};
  int st = ade__store_open_file(&f, path, 0);
  if (!st && f.size > SIZE_MAX / 2) st = ade__fail(ADE_ETOOBIG, "'%s' is too large to load", path);
  if (!st && ade__buf_reserve(&b, (size_t)f.size + 1)) st = ade__fail(ADE_ENOMEM, "out of memory loading '%s'", path);
  if (!st) st = ade__store_read(&f, 0, b.p, (size_t)f.size);
  if (!st) st = ade_tape_from_bytes(tp, b.p, (size_t)f.size);
  ade__store_close(&f);
  ade__buf_free(&b);
  return st;
}

int ade_tape_bytes(const ade_tape *t, const void **bytes, size_t *size) {
  int st = tape_has_bytes(t);
  if (st) return st;
  if (t->store.fd >= 0) return ade__fail(ADE_EINVAL, "the tape lives in a file, not in memory");
  *bytes = t->store.mem.p;
  *size = t->store.mem.len;
  return ADE_OK;
}

/* A deferred tape's bytes compressed at its level, atomically onto path. */
static int save_compressed(const ade_tape *t, const char *path) {
  ade__store out = {.fd = -1};
  const int hooked = ade__alloc_hooked();
  void *dctx = ade__zstd_dctx(), *cctx = ade__tcache_cctx(t->hdr.level);
  if (!cctx) cctx = ade__zstd_cctx(t->hdr.level);
  int st = dctx && cctx ? ade__store_open_file(&out, path, 1)
                        : ade__fail(ADE_ENOMEM, "out of memory saving a tape");
  if (!st) st = ade__tape_recode(&t->store, dctx, &t->hdr, &t->meta, cctx, &out);
  if (!st) {
    st = ade__afile_commit(&out.out, 0);
    out.fd = -1; /* closed by the commit, or by its abort */
  }
  ade__store_close(&out);
  ade__zstd_free_dctx(dctx);
  ade__tcache_put(NULL, cctx, t->hdr.level, hooked);
  return st;
}

int ade_tape_save(const ade_tape *t, const char *path) {
  int st = tape_has_bytes(t);
  if (st) return st;
  if (!path) return ade__fail(ADE_EINVAL, "ade_tape_save: path is NULL");
  if (t->deferred && t->hdr.level > 0) return save_compressed(t, path);
  ade__afile out;
  unsigned char buf[1 << 16];
  if ((st = ade__afile_open(&out, path))) return st;
  for (uint64_t off = 0; off < t->store.size && !st; off += sizeof buf) {
    size_t n = (size_t)ADE__MIN((uint64_t)sizeof buf, t->store.size - off);
    st = ade__store_read(&t->store, off, buf, n);
    if (!st) st = ade__afile_write(&out, buf, n);
  }
  if (st) {
    ade__afile_abort(&out);
    return st;
  }
  return ade__afile_commit(&out, 0);
}

double *ade__work(ade_tape *t, size_t n) {
  if (n > t->workcap) {
    double *p = ade__realloc(t->work, ade__mul_size(n, sizeof(double)));
    if (!p) return NULL;
    t->work = p;
    t->workcap = n;
  }
  return t->work;
}
