/* clock.c: a monotonic clock in seconds, for the time reports and limits. */
#include <time.h>

#include "common_internal.h"

double ade__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
