/* pqueue_impl.h: the indexed 4-ary min-heap, included once per key type (pqueue.c, pkq_inline.h).
 * Parameters: Q (queue type), E (entry type with .k and .x), K (key type),
 * LESS(x, y) on two keys' addresses, F(name) the function name; it
 * undefines them at its end. */

/* The first least of the four children from c on, as the scan from c
 * would find it (pairs, then their winners: the same place on ties, so
 * the heap's layout and every pop stay as they were). */
_Static_assert(ARITY == 4, "least4 takes four children");
static inline size_t F(least4)(const E *a, size_t c) {
  size_t s0 = LESS(&a[c + 1].k, &a[c].k) ? c + 1 : c, s1 = LESS(&a[c + 3].k, &a[c + 2].k) ? c + 3 : c + 2;
  return LESS(&a[s1].k, &a[s0].k) ? s1 : s0;
}

/* Move entry e down from hole i to its place below. */
static inline void F(down)(Q *q, size_t i, const E *e) {
  E *a = q->a;
  for (;;) {
    size_t c = ARITY * i + 1, s = c;
    if (c + ARITY <= q->n) s = F(least4)(a, c);
    else if (c >= q->n) break;
    else
      for (size_t k = c + 1; k < q->n; k++)
        if (LESS(&a[k].k, &a[s].k)) s = k;
    if (!LESS(&a[s].k, &e->k)) break;
    a[i] = a[s];
    q->pos[a[i].x] = i;
    i = s;
  }
  a[i] = *e;
  q->pos[e->x] = i;
}

/* Move entry e up from hole i, then down: its place after a change of
 * key (or an insertion at the end, or a removal into hole i). */
static inline void F(place)(Q *q, size_t i, const E *e) {
  E *a = q->a;
  if (!i || !LESS(&e->k, &a[(i - 1) / ARITY].k)) {
    F(down)(q, i, e);
    return;
  }
  while (i && LESS(&e->k, &a[(i - 1) / ARITY].k)) {
    size_t p = (i - 1) / ARITY;
    a[i] = a[p];
    q->pos[a[i].x] = i;
    i = p;
  }
  a[i] = *e;
  q->pos[e->x] = i;
}

/* Room in the index for x (index_room) and for one more entry (room):
 * the growth (ade__grow), out of the hot paths. */
static int F(index_room)(Q *q, size_t x) {
  size_t old = q->pcap;
  if (ade__grow((void **)&q->pos, &q->pcap, x + 1, sizeof *q->pos))
    return ade__fail(ADE_ENOMEM, "out of memory for a priority queue index of %zu", x + 1);
  for (size_t i = old; i < q->pcap; i++) q->pos[i] = SIZE_MAX;
  return ADE_OK;
}

static int F(room)(Q *q) {
  if (ade__grow((void **)&q->a, &q->cap, q->n + 1, sizeof *q->a))
    return ade__fail(ADE_ENOMEM, "out of memory for a priority queue of %zu", q->n + 1);
  return ADE_OK;
}

/* Insert x with key *key, or change its key. */
static inline int F(set)(Q *q, const K *key, size_t x) {
  int st = x < q->pcap ? ADE_OK : F(index_room)(q, x);
  if (st) return st;
  E e;
  memcpy(&e.k, key, sizeof e.k);
  e.x = x;
  size_t i = q->pos[x];
  if (i != SIZE_MAX) {
    if (memcmp(&q->a[i].k, key, sizeof e.k)) F(place)(q, i, &e);
    return ADE_OK;
  }
  if (q->n == q->cap && (st = F(room)(q))) return st;
  F(place)(q, q->n++, &e);
  return ADE_OK;
}

/* Append x with key *key, out of heap order (x not queued); F(heapify)
 * restores the order: a bulk build in linear time. */
static inline int F(append)(Q *q, const K *key, size_t x) {
  int st = x < q->pcap ? ADE_OK : F(index_room)(q, x);
  if (st) return st;
  if (q->n == q->cap && (st = F(room)(q))) return st;
  memcpy(&q->a[q->n].k, key, sizeof q->a[q->n].k);
  q->a[q->n].x = x;
  q->pos[x] = q->n++;
  return ADE_OK;
}

/* Floyd's bottom-up build: every inner node sifted down, the last first. */
static inline void F(heapify)(Q *q) {
  for (size_t i = q->n < 2 ? 0 : (q->n - 2) / ARITY + 1; i-- > 0;) {
    E e = q->a[i];
    F(down)(q, i, &e);
  }
}

/* The hole at i goes down to a leaf along the least children, then e
 * goes up from there (Floyd): e, the last entry, nearly always belongs
 * near the bottom, so this saves the comparison with it on every level.
 * Right for any hole: the path to the leaf stays ordered. */
static inline void F(refill)(Q *q, size_t i, const E *e) {
  E *a = q->a;
  const size_t n = q->n;
  for (;;) {
    size_t c = ARITY * i + 1, s = c;
    if (c + ARITY <= n) s = F(least4)(a, c);
    else if (c >= n) break;
    else
      for (size_t k = c + 1; k < n; k++)
        if (LESS(&a[k].k, &a[s].k)) s = k;
    a[i] = a[s];
    q->pos[a[i].x] = i;
    i = s;
  }
  while (i && LESS(&e->k, &a[(i - 1) / ARITY].k)) {
    size_t p = (i - 1) / ARITY;
    a[i] = a[p];
    q->pos[a[i].x] = i;
    i = p;
  }
  a[i] = *e;
  q->pos[e->x] = i;
}

/* Remove x if queued: the last entry fills its hole. */
static inline void F(del)(Q *q, size_t x) {
  if (x >= q->pcap || q->pos[x] == SIZE_MAX) return;
  size_t i = q->pos[x];
  q->pos[x] = SIZE_MAX;
  E e = q->a[--q->n];
  if (i < q->n) F(refill)(q, i, &e);
}

static inline int F(pop)(Q *q, E *top) {
  if (!q->n) return 0;
  *top = q->a[0];
  q->pos[top->x] = SIZE_MAX;
  E e = q->a[--q->n];
  if (q->n) F(refill)(q, 0, &e);
  return 1;
}

static inline void F(release)(Q *q) {
  ade__free(q->a);
  ade__free(q->pos);
  memset(q, 0, sizeof *q);
}

#undef Q
#undef E
#undef K
#undef LESS
#undef F
