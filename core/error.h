/* error.h: the error vocabulary of libgrove, and parse and load errors
 * that say where and why.
 *
 * Every Grove function that fails returns -1 or NULL and sets errno to one
 * code of GROVE_ERRNO_VOCABULARY below, the one list of them, each with
 * what it means.  The file loaders (JGF, GRUG, hwloc XML, R, jobspecs)
 * also let the system's errors of file access through unchanged (EACCES,
 * EISDIR, ENOTDIR, ELOOP, ...): they say what is wrong with the file more
 * exactly than any code of ours would.  grove_errno_name() names both.
 *
 * Functions that read external input (idsets, hostlists, jobspecs, JGF, R,
 * recipes, messages) take an optional caller-owned grove_error_t and fill it
 * with one printable message: "SOURCE:LINE: reason" when a line is known,
 * "SOURCE: reason" otherwise, or just "reason" when there is no source name.
 * There is no sticky error state.
 *
 * This header holds the vocabulary and the message buffer only: no
 * module's own failure rules (each header says which codes its functions
 * set and when).
 */
#ifndef GROVE_ERROR_H
#define GROVE_ERROR_H

#include <stddef.h>

/* The error vocabulary: X(code, meaning), one row per errno value that a
 * Grove function sets itself. */
#define GROVE_ERRNO_VOCABULARY(X)                                                  \
    X(EINVAL, "bad input: a malformed text, an argument out of its domain")        \
    X(ENOMEM, "out of memory (the object is as before the call)")                  \
    X(ENOENT, "no such thing: file, vertex, job, policy, name")                    \
    X(EEXIST, "it exists already: a vertex, an edge, a job id")                    \
    X(ERANGE, "a number out of its range")                                         \
    X(EBUSY, "not now: the resources exist but are in use, down or drained; "     \
             "or the store's database is locked")                                 \
    X(ENODEV, "never: the request cannot be met even on the empty, healthy graph") \
    X(EOVERFLOW, "a limit of Grove's (nesting, size, count) was passed")          \
    X(ECANCELED, "a policy or walk hook failed and stopped the work; "            \
                 "its message says why")                                          \
    X(EIO, "the store's database file failed")

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

/* The symbolic name of errnum ("EINVAL", "EISDIR", ...): a code of the
 * vocabulary, or a system error passed through by a loader, named as it
 * is.  Static; NULL when errnum has no name (0 or not an errno value). */
const char *grove_errno_name(int errnum);

#endif
