/* point.c: sweeps at a new point in memory bounded by the values chunks import, not by the tape. */
#include <stdlib.h>

#include "eval_internal.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Every record some chunk imports, once, ascending (a property of the tape:
 * read once, kept for later points). */
static int collect_imports(ade_tape *t) {
  ade__point *p = &t->pt;
  uint64_t *ids = NULL, *all = NULL;
  size_t n = 0, cap = 0, total = 0, allcap = 0;
  int st = ADE_OK;
  for (size_t c = 0; c < t->meta.nchunks && !st; c++) {
    st = ade__chunk_imports(t, c, &ids, &n, &cap);
    if (!st && total + n > allcap) {
      size_t want = ADE__MAX(2 * allcap, total + n);
      uint64_t *q = ade__realloc(all, ade__mul_size(want, sizeof *q));
      if (q) {
        all = q;
        allcap = want;
      } else {
        st = ade__fail(ADE_ENOMEM, "out of memory for the imported values");
      }
    }
    if (!st && n) memcpy(all + total, ids, n * sizeof *ids);
    total += st ? 0 : n;
  }
  ade__free(ids);
  if (st) {
    ade__free(all);
    return st;
  }
  if (total) qsort(all, total, sizeof *all, cmp_u64);
  size_t u = 0;
  for (size_t i = 0; i < total; i++)
    if (!u || all[u - 1] != all[i]) all[u++] = all[i];
  p->val = ade__alloc(ade__mul_size(u ? u : 1, sizeof *p->val));
  if (!p->val) {
    ade__free(all);
    return ade__fail(ADE_ENOMEM, "out of memory for the imported values");
  }
  p->id = all;
  p->n = u;
  p->have_ids = 1;
  return ADE_OK;
}

/* Position of the first imported id >= id. */
static size_t find(const ade__point *p, uint64_t id) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->id[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void ade__point_apply(ade_tape *t, ade__view *v, int store) {
  ade__point *p = &t->pt;
  const ade__meta *m = &t->meta;
  size_t lo = 0, hi = m->nindep, next = store ? find(p, v->first + 1) : 0;
  while (lo < hi) { /* the chunk's first independent */
    size_t mid = lo + (hi - lo) / 2;
    if (m->indep[mid] <= v->first) lo = mid + 1;
    else hi = mid;
  }
  for (uint32_t i = 0; i < v->n; i++) {
    unsigned op = v->op[i];
    uint64_t rid = v->first + i + 1;
    double *a = ade__view_argv(v, i), r;
    for (int j = 0; j < ade__optab[op].arity; j++) {
      uint64_t id = ade__view_arg(v, i)[j];
      if (id > v->first) a[j] = v->val[id - v->first - 1];
      else if (id) a[j] = p->val[find(p, id)]; /* the reader checked it is imported */
    }
    if (op == ADE_OP_INDEP) {
      r = p->x[lo++];
    } else {
      r = ade__op_value(op, a);
      if (store && op >= ADE_OP_LT && r != v->val[i] && !p->flips++) p->first_flip = rid - 1;
    }
    v->val[i] = r;
    if (store && next < p->n && p->id[next] == rid) p->val[next++] = r;
  }
}

static void view_at_point(ade_tape *t, ade__view *v) { ade__point_apply(t, v, 0); }

int ade__point_begin(ade_tape *t, const double *x) {
  ade__point *p = &t->pt;
  int st = p->have_ids ? ADE_OK : collect_imports(t);
  if (st) return st;
  p->x = x;
  p->flips = 0;
  p->active = 0;
  t->view_chunk = SIZE_MAX;
  for (size_t c = 0; c < t->meta.nchunks && !st; c++) {
    st = ade__view_decode(t, c, &t->scratch_view);
    if (!st) ade__point_apply(t, &t->scratch_view, 1);
  }
  p->active = !st;
  if (p->active) t->view_apply = view_at_point;
  t->eval_free[ADE__EV_POINT] = ade__point_free;
  return st;
}

void ade__point_end(ade_tape *t) {
  t->pt.active = 0;
  t->view_apply = NULL;
  t->pt.x = NULL;
  t->view_chunk = SIZE_MAX;
}

void ade__point_free(ade_tape *t) {
  ade__free(t->pt.id);
  ade__free(t->pt.val);
  memset(&t->pt, 0, sizeof t->pt);
}
