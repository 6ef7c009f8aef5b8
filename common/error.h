/* error.h: the thread-local detail message behind every ADE_E* status (error.c). */
#ifndef ADE_COMMON_ERROR_H
#define ADE_COMMON_ERROR_H

/* Set the thread's detail message and return status (GSL_ERROR's shape). */
int ade__fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear the detail message. */
void ade__clear_error(void);

#endif /* ADE_COMMON_ERROR_H */
