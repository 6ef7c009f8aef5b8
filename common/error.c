/* error.c: status names, messages and the thread-local detail message. */
#include <stdarg.h>
#include <stdio.h>

#include "adelim.h"
#include "error.h"

static _Thread_local char errmsg[512];
static _Thread_local int budget_hit;

const char *ade_strerror(int status) {
  switch (status) {
#define X(name, value, msg) case value: return msg;
    ADE_STATUS_MAP(X)
#undef X
  }
  return "unknown status";
}

const char *ade_errname(int status) {
  switch (status) {
#define X(name, value, msg) case value: return "ADE_" #name;
    ADE_STATUS_MAP(X)
#undef X
  }
  return "ADE_UNKNOWN";
}

const char *ade_errmsg(void) { return errmsg[0] ? errmsg : "no error"; }

int ade__fail(int status, const char *fmt, ...) {
  budget_hit = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errmsg, sizeof errmsg, fmt, ap);
  va_end(ap);
  return status;
}

void ade__clear_error(void) { errmsg[0] = '\0', budget_hit = 0; }

int ade__budget_hit(void) { return budget_hit; }
void ade__set_budget_hit(void) { budget_hit = 1; }

int ade__take_budget(int *st) {
  if (*st != ADE_ENOMEM || !budget_hit) return 0;
  ade__clear_error();
  *st = ADE_OK;
  return 1;
}
