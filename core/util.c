/* util.c: small helpers shared by the files of libgrove (see util.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

char *grovep_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    size_t n = 0, cap = 65536;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    int e = buf ? 0 : ENOMEM;
    while (!e) {
        if (n + 1 >= cap) {
            char *q = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!q) {
                e = ENOMEM;
                break;
            }
            buf = q;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + n, cap - n - 1);
        if (k < 0) {
            if (errno != EINTR)
                e = errno;
            continue;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
