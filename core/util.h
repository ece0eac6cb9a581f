/* util.h: small helpers shared by the files of libgrove.  Not public API
 * (not installed). */
#ifndef GROVE_UTIL_H
#define GROVE_UTIL_H

#include <stddef.h>

/* Grow the array *p of *cap elements of elem bytes to hold at least need,
 * doubling (from 16).  0, or -1 with ENOMEM and the array untouched.  The
 * common case (room already) is inline: it sits on the match path. */
int grovep_grow_slow(void **p, size_t *cap, size_t need, size_t elem);

static inline int grovep_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : grovep_grow_slow(p, cap, need, elem);
}

/* The whole file at path in a new NUL-terminated buffer (caller frees),
 * its length in *len.  NULL with errno (ENOENT, EACCES, EISDIR, ENOMEM,
 * ...) when it cannot be read. */
char *grovep_read_file(const char *path, size_t *len);

/* The value of one hexadecimal digit (either case), or -1. */
static inline int grovep_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
