/* util.c: small helpers shared by the files of libgrove (see util.h):
 * array growth, the string buffer, enumeration names, whole-file reading
 * and loading.
 *
 * This file must not hold anything that knows a file format or a Grove
 * type: such helpers belong to their module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limit.h"
#include "util.h"

void grovep_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t page = 4096, huge = (uintptr_t)2 << 20;
    if (!p || bytes < 2 * huge)
        return;
    /* the whole pages inside the block: a large block is a mapping of its
     * own, so they are no other allocation's */
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#else
    (void)p;
    (void)bytes;
#endif
}

void *grovep_alloc_huge(size_t *bytes)
{
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (*bytes >= huge && *bytes <= SIZE_MAX - huge) {
        size_t n = (*bytes + huge - 1) & ~(huge - 1);
        void *p;
        if (posix_memalign(&p, huge, n) != 0) {
            errno = ENOMEM;
            return NULL;
        }
        (void)madvise(p, n, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
        *bytes = n;
        return p;
    }
#endif
    void *p = malloc(*bytes ? *bytes : 1);
    return grovep_or_errno(p, ENOMEM);
}

void *grovep_zalloc(size_t size)
{
    void *p = calloc(1, size);
    return grovep_or_errno(p, ENOMEM);
}

int grovep_grow_slow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap;
    if (!n) {
        /* the first block: 16 elements, or fewer where that would pass
         * 512 bytes.  A request past about a kilobyte makes glibc's
         * allocator gather every small freed chunk first (its fastbins);
         * a small array made for each job (a jobspec's resources) kept
         * under that is not what makes the scheduler's thread do it */
        n = 16;
        while (n > 1 && n * elem > 512)
            n /= 2;
    }
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

int grovep_slots_rebuild(uint32_t **slots, size_t *nslots, size_t n, const uint32_t *hash,
                         size_t count, size_t stride)
{
    uint32_t *s = calloc(n, sizeof(*s));
    if (!s) {
        errno = ENOMEM;
        return -1;
    }
    const char *h = (const char *)hash;
    for (size_t i = 0; i < count; i++, h += stride) {
        uint32_t v;
        memcpy(&v, h, sizeof(v));
        size_t j = v & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(*slots);
    *slots = s;
    *nslots = n;
    return 0;
}

void grovep_shrink(void **p, size_t *cap, size_t n, size_t elem)
{
    size_t c = *cap;
    while (c > 16 && n <= c / 4)
        c /= 2;
    if (c == *cap)
        return;
    void *q = realloc(*p, c * elem);
    if (q) {
        *p = q;
        *cap = c;
    }
}

char *grovep_buf_room_slow(grovep_buf_t *b, size_t more)
{
    if (!b->failed && (more > SIZE_MAX - 1 - b->len
                       || grovep_grow((void **)&b->p, &b->cap, b->len + more + 1, 1) < 0))
        b->failed = true;
    if (b->failed) {
        errno = ENOMEM;
        return NULL;
    }
    return b->p + b->len;
}

char *grovep_buf_finish(grovep_buf_t *b)
{
    if (!grovep_buf_room(b, 0)) {
        free(b->p);
        b->p = NULL;
        return NULL;
    }
    b->p[b->len] = '\0';
    return b->p;
}

char *grovep_read_file(const char *path, const char *source, size_t *len, grove_error_t *err)
{
    if (!source)
        source = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        grove_error_set(err, source, 0, "%s", strerror(e));
        errno = e;
        return NULL;
    }
    grove_limits_t lim;
    grove_limits_get(&lim);
    struct stat st;
    size_t n = 0, cap = 65536;
    int e = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uint64_t)st.st_size > lim.input)
            e = EOVERFLOW;
        else
            cap = (size_t)st.st_size + 1;
    }
    char *buf = e ? NULL : malloc(cap);
    if (!e && !buf)
        e = ENOMEM;
    while (!e) {
        if (grovep_grow((void **)&buf, &cap, n + 2, 1) < 0) {
            e = ENOMEM;
            break;
        }
        ssize_t k = read(fd, buf + n, cap - n - 1);
        if (k < 0) {
            if (errno != EINTR)
                e = errno;
            continue;
        }
        if (k == 0)
            break;
        /* a text format never holds a NUL: stop at once (/dev/zero) */
        const char *nul = memchr(buf + n, '\0', (size_t)k);
        if (nul) {
            grove_error_set(err, source, 0, "byte %zu is NUL: not a text file",
                            n + (size_t)(nul - (buf + n)));
            free(buf);
            return GROVEP_NULL_AFTER(close, fd, EINVAL);
        }
        n += (size_t)k;
        if (n > lim.input)
            e = EOVERFLOW;
    }
    close(fd);
    if (e) {
        free(buf);
        if (e == EOVERFLOW)
            grove_error_set(err, source, 0,
                            "larger than the input limit of %llu bytes (GROVE_MAX_INPUT)",
                            (unsigned long long)lim.input);
        else
            grove_error_set(err, source, 0, "%s", strerror(e));
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int grovep_name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    errno = EINVAL;
    return -1;
}

void *grovep_load_file(const char *path, const char *source, grovep_text_reader_f read,
                       const void *arg, grove_error_t *err)
{
    grove_error_clear(err);
    if (!source)
        source = path;
    size_t len;
    char *buf = grovep_read_file(path, source, &len, err);
    if (!buf)
        return NULL;
    void *obj = read(buf, len, source, arg, err);
    int e = errno;
    free(buf);
    errno = e;
    return obj;
}
