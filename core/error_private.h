/* error_private.h: the one way the files of libgrove fill a grove_error_t
 * and fail.  Not public API (not installed).
 *
 * A failure fills the caller's error (when given) with "SOURCE:LINE:
 * PLACE: reason", sets errno and returns -1, so that a reader writes
 * `return grovep_error_fail(...)`.  Readers that carry their source and
 * error in a context of their own bind it in a small variadic wrapper
 * whose body is GROVEP_VFAIL_RETURN.
 *
 * This header must not hold any module's messages or rules for which
 * errno goes with which failure: those belong to the module.
 */
#ifndef GROVE_ERROR_PRIVATE_H
#define GROVE_ERROR_PRIVATE_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

/* The reason of a reader's failure is cut to this many bytes (with the
 * NUL) before the source, line and place are put in front of it. */
#define GROVEP_REASON_MAX 400

/* Fill err (if not NULL) with the reason formatted from fmt, cut to cap
 * bytes (at most the whole message), after "PLACE: " when place is not
 * NULL or empty, with source and line as grove_error_set puts them; set
 * errno to e; return -1. */
int grovep_error_vfail(grove_error_t *err, int e, const char *source, int line, const char *place,
                       size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

/* The body of a variadic failure wrapper whose last named argument is
 * fmt: grovep_error_vfail(err, e, source, line, place, cap, fmt, ...)
 * with the wrapper's own arguments, then return -1 from the wrapper.
 * One body for the readers' wrappers, which differ only in where they
 * find their error, source and line. */
#define GROVEP_VFAIL_RETURN(fmt, err, e, source, line, place, cap)              \
    do {                                                                        \
        va_list vfail_ap_;                                                      \
        va_start(vfail_ap_, fmt);                                               \
        grovep_error_vfail(err, e, source, line, place, cap, fmt, vfail_ap_);   \
        va_end(vfail_ap_);                                                      \
        return -1;                                                              \
    } while (0)

/* grovep_error_vfail with no place and the reason cut only by the size
 * of the message. */
int grovep_error_fail(grove_error_t *err, int e, const char *source, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The same with no source and no line: "reason". */
int grovep_errorf(grove_error_t *err, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fill err (if not NULL) for the text s of len bytes that does not hold a
 * valid kind ("idset", "hostlist"): 'invalid KIND "ECHO": REASON at
 * position N', ECHO the first 40 bytes of s (a byte that is not printable
 * as '?', "..." after a cut), N the 1-based position pos + 1.  reason NULL
 * says "unexpected 'c'" of the byte at pos ('\xNN' when not printable).
 * errno is left alone. */
void grovep_error_input(grove_error_t *err, const char *kind, const char *s, size_t len,
                        size_t pos, const char *reason);

/* "SOURCE: out of memory", errno ENOMEM, -1. */
int grovep_error_nomem(grove_error_t *err, const char *source);

#endif
