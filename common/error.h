/* error.h: the thread-local detail message behind every ADE_E* status (error.c). */
#ifndef ADE_COMMON_ERROR_H
#define ADE_COMMON_ERROR_H

/* Set the thread's detail message and return status (GSL_ERROR's shape). */
int ade__fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear the detail message. */
void ade__clear_error(void);
/* Whether the thread's last failure was a memory limit (ade__budget), not
 * a failed allocation or another error: ade__fail and ade__clear_error
 * clear it. */
int ade__budget_hit(void);
void ade__set_budget_hit(void);
/* Whether *st is a memory limit's ADE_ENOMEM (ade__budget_hit): then the
 * error is cleared and *st is ADE_OK, for a caller that goes on with what
 * it has and reports itself limited. */
int ade__take_budget(int *st);

#endif /* ADE_COMMON_ERROR_H */
