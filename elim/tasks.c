/* tasks.c: tasks run in threads, and their failures raised again on the calling thread. */
#include <pthread.h>
#include <stdio.h>

#include "elim_internal.h"

int ade__order_reverse;

static void take(ade__tasks *t, ade__watch *w) {
  for (int k; (k = __atomic_fetch_add(&t->next, 1, __ATOMIC_RELAXED)) < t->n;)
    t->fn(t->ud, ade__order_reverse ? t->n - 1 - k : k, w);
}

static void *work(void *arg) {
  take(arg, NULL);
  return NULL;
}

void ade__tasks_run(ade__tasks *t, int threads, ade__watch *w) {
  pthread_t tid[15];
  int started = 0, most = threads - 1 < 15 ? threads - 1 : 15;
  while (!ade__order_reverse && started < most && started < t->n - 1 && !pthread_create(&tid[started], NULL, work, t))
    started++;
  take(t, w);
  while (started) pthread_join(tid[--started], NULL);
}

int ade__failure_keep(ade__failure *f, int st) {
  f->st = st;
  if (st && st != ADE__CUT) {
    f->budget = ade__budget_hit();
    snprintf(f->msg, sizeof f->msg, "%s", ade_errmsg());
    ade__clear_error();
  }
  return st;
}

int ade__failure_raise(const ade__failure *f) {
  int st = ade__fail(f->st, "%s", f->msg);
  if (f->budget) ade__set_budget_hit();
  return st;
}
