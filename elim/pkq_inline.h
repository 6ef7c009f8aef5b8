/* pkq_inline.h: the two-word-key heap (ade__pkq) as static inline functions
 * of the file that includes it (pkq_set, pkq_pop, ...; pk_set,
 * pk_append and pk_lt take keys by value), so that an ordering's hot calls
 * inline. pqueue.c exports the same code as ade__pkq_*. */
#ifndef ADE_PKQ_INLINE_H
#define ADE_PKQ_INLINE_H
#include "elim_internal.h"

static inline int pkq_less(const ade__pk *x, const ade__pk *y) { return x->hi < y->hi || (x->hi == y->hi && x->lo < y->lo); }
#define ARITY 4
#define Q ade__pkq
#define E ade__pkent
#define K ade__pk
#define LESS(x, y) pkq_less(x, y)
#define F(name) pkq_##name
#include "pqueue_impl.h"
#undef ARITY
static inline int pk_lt(ade__pk a, ade__pk b) { return pkq_less(&a, &b); }
static inline int pk_set(ade__pkq *q, ade__pk key, size_t x) { return pkq_set(q, &key, x); }
static inline int pk_append(ade__pkq *q, ade__pk key, size_t x) { return pkq_append(q, &key, x); }
#endif
