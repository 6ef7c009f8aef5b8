/* pqueue.c: indexed 4-ary min-heaps of keyed entries (tuples, or two-word keys), shared by the greedy orderings and the hierarchies. */
#include "elim_internal.h"

/* Lexicographic order of key tuples. */
int ade__pq_less(const long *x, const long *y) {
  for (int i = 0; i < ADE__PQ_KEYS; i++)
    if (x[i] != y[i]) return x[i] < y[i];
  return 0;
}

/* A 4-ary heap: half the levels of a binary one, the children of a node
 * side by side; entries move into a hole instead of being swapped. */
#define ARITY 4

/* ---------------------------------------------------- the indexed heaps */

/* ade__ipq: keys of ADE__PQ_KEYS longs. */
typedef long tuple[ADE__PQ_KEYS];
#define Q ade__ipq
#define E ade__pqent
#define K tuple
#define LESS(x, y) ade__pq_less(*(x), *(y))
#define F(name) ipq_##name
#include "pqueue_impl.h"

/* ade__pkq: keys of two words, the high one first (pkq_inline.h). */
#undef ARITY
#include "pkq_inline.h"

int ade__pkq_set(ade__pkq *q, ade__pk key, size_t x) { return pkq_set(q, &key, x); }
int ade__pkq_append(ade__pkq *q, ade__pk key, size_t x) { return pkq_append(q, &key, x); }
void ade__pkq_heapify(ade__pkq *q) { pkq_heapify(q); }
void ade__pkq_del(ade__pkq *q, size_t x) { pkq_del(q, x); }
int ade__pkq_pop(ade__pkq *q, ade__pkent *top) { return pkq_pop(q, top); }

void ade__pkq_free(ade__pkq *q) { pkq_release(q); }

/* ade__bkq: buckets of the two-word keys (bkq_inline.h). */
#include "bkq_inline.h"

int ade__bkq_set(ade__bkq *q, ade__pk key, size_t x) { return bkq_set(q, key, x); }
int ade__bkq_append(ade__bkq *q, ade__pk key, size_t x) { return bkq_append(q, key, x); }
int ade__bkq_heapify(ade__bkq *q) { return bkq_heapify(q); }
void ade__bkq_del(ade__bkq *q, size_t x) { bkq_del(q, x); }
int ade__bkq_pop(ade__bkq *q, ade__pkent *top) { return bkq_pop(q, top); }
void ade__bkq_free(ade__bkq *q) { bkq_release(q); }

int ade__ipq_set(ade__ipq *q, const long *key, size_t x) { return ipq_set(q, (const tuple *)key, x); }
int ade__ipq_append(ade__ipq *q, const long *key, size_t x) { return ipq_append(q, (const tuple *)key, x); }
void ade__ipq_heapify(ade__ipq *q) { ipq_heapify(q); }
void ade__ipq_del(ade__ipq *q, size_t x) { ipq_del(q, x); }
int ade__ipq_pop(ade__ipq *q, ade__pqent *top) { return ipq_pop(q, top); }

void ade__ipq_free(ade__ipq *q) { ipq_release(q); }

int ade__ix_grow(ade__ix *b) {
  if (ade__grow((void **)&b->a, &b->cap, b->n + 1, sizeof *b->a))
    return ade__fail(ADE_ENOMEM, "out of memory for a list of %zu", b->n + 1);
  return ADE_OK;
}

void ade__ix_free(ade__ix *b) {
  ade__free(b->a);
  memset(b, 0, sizeof *b);
}
