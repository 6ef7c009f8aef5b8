/* planrec.c: the straight-line program that the elimination engines record while a plan is compiled (plan.c reads it). */
#include "elim_internal.h"

int ade__plan_reserve(ade__planrec *r, size_t k) {
  if (!r || r->cap - r->n >= k) return ADE_OK;
  size_t nc = r->cap ? 2 * r->cap : 1024;
  if (nc - r->n < k) nc = r->n + k; /* a large request: exactly */
  int st = ade__budget(r->memlimit, ade__mul_size(nc, 1 + 3 * sizeof *r->d), "a plan of %zu steps", nc);
  if (st) return st;
  uint8_t *kd = ade__realloc(r->kind, nc);
  if (kd) r->kind = kd;
  size_t *pd = kd ? ade__realloc(r->d, ade__mul_size(nc, sizeof *pd)) : NULL;
  if (pd) r->d = pd;
  size_t *pa = pd ? ade__realloc(r->a, ade__mul_size(nc, sizeof *pa)) : NULL;
  if (pa) r->a = pa;
  size_t *pb = pa ? ade__realloc(r->b, ade__mul_size(nc, sizeof *pb)) : NULL;
  if (pb) r->b = pb;
  if (!pb) return ade__fail(ADE_ENOMEM, "out of memory for a plan of %zu steps", nc);
  r->cap = nc;
  return ADE_OK;
}

int ade__plan_push(ade__planrec *r, int kind, long d, long a, long b) {
  int st = ade__plan_reserve(r, 1);
  if (st) return st;
  r->kind[r->n] = (uint8_t)kind;
  r->d[r->n] = (size_t)d;
  r->a[r->n] = (size_t)a;
  r->b[r->n++] = (size_t)b;
  return ADE_OK;
}

void ade__plan_rec_free(ade__planrec *r) {
  ade__free(r->kind);
  ade__free(r->d);
  ade__free(r->a);
  ade__free(r->b);
  memset(r, 0, sizeof *r);
}
