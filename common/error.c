/* error.c: status names, messages and the thread-local detail message. */
#include <stdarg.h>
#include <stdio.h>

#include "adelim.h"
#include "error.h"

static _Thread_local char errmsg[512];

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
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errmsg, sizeof errmsg, fmt, ap);
  va_end(ap);
  return status;
}

void ade__clear_error(void) { errmsg[0] = '\0'; }
