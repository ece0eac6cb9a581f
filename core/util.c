/* util.c: small helpers shared by the files of libgrove (see util.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

int grovep_grow_slow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem) {
            errno = ENOMEM;
            return -1;
        }
        n *= 2;
    }
    void *q = realloc(*p, n * elem);
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    *p = q;
    *cap = n;
    return 0;
}
