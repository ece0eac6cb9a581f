/* error.h: parse and load errors that say where and why.
 *
 * Functions that read external input (idsets, hostlists, jobspecs, JGF, R,
 * recipes, messages) take an optional caller-owned grove_error_t and fill it
 * with one printable message: "SOURCE:LINE: reason" when a line is known,
 * "SOURCE: reason" otherwise, or just "reason" when there is no source name.
 * errno carries the category (see DESIGN.md: EINVAL, ENOMEM, ENOENT, EEXIST,
 * ERANGE, EBUSY, ENODEV, EOVERFLOW).  There is no sticky error state.
 */
#ifndef GROVE_ERROR_H
#define GROVE_ERROR_H

#include <stddef.h>

typedef struct grove_error {
    char text[512]; /* the whole message, NUL-terminated, ready to print */
    int line;       /* 1-based line the message refers to, 0 if none */
} grove_error_t;

/* Fill err (if not NULL) with a message; source and line may be NULL/0.
 * Leaves errno unchanged. */
void grove_error_set(grove_error_t *err, const char *source, int line,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Prefix an already-filled message with "SOURCE: " (used when a lower layer
 * knew the place but not the file name).  Leaves errno unchanged. */
void grove_error_prefix(grove_error_t *err, const char *source);

/* Clear err (if not NULL). */
void grove_error_clear(grove_error_t *err);

#endif
