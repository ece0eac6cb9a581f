/* util.h: small helpers shared by the files of libgrove: zeroed
 * allocation, array growth, the string buffer, whole-file reading and
 * loading, binary search, accessors, destructor lists, failing after a
 * release or a failed call, three-way comparison, enumeration names,
 * decimal numbers.  Not public API (not installed).
 *
 * This header must not hold anything that knows a file format or a Grove
 * type (those helpers belong to their module), nor error reporting
 * (error_private.h).
 */
#ifndef GROVE_UTIL_H
#define GROVE_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* A new zeroed object of size bytes (caller frees), or NULL with errno
 * ENOMEM: the constructors' one allocation, failing alike whatever the C
 * library leaves in errno. */
void *grovep_zalloc(size_t size);

/* Grow the array *p of *cap elements of elem bytes to hold at least need,
 * doubling (from 16, or fewer where 16 would pass 512 bytes).  0, or -1
 * with ENOMEM and the array untouched.  The common case (room already)
 * is inline: it sits on the match path. */
int grovep_grow_slow(void **p, size_t *cap, size_t need, size_t elem);

static inline int grovep_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : grovep_grow_slow(p, cap, need, elem);
}

/* Ask the kernel to back the pages of [p, p + bytes) with huge pages when
 * they are first touched (Linux; elsewhere nothing).  For scratch indexed
 * by vertex id that one large match fills at once: a whole machine's
 * arrays fault in 2 MB at a time rather than 4 KB (a fault costs
 * microseconds, mostly to clear the page).  Below 4 MB, nothing. */
void grovep_huge(void *p, size_t bytes);

/* A new block for an array indexed by vertex id that is cleared whole at
 * once (the matcher's marks of dead slots, made at its first match):
 * from 2 MB up, aligned to a huge page, its size rounded up to whole huge pages and
 * those asked for (grovep_huge), so that clearing it faults a few huge
 * pages in, not a page every 4 kB (about 30 us each on a virtual
 * machine).  *bytes: asked for, then the size given.  NULL with ENOMEM.
 * Freed with free, grown with realloc. */
void *grovep_alloc_huge(size_t *bytes);

/* Rebuild the open-addressing table *slots (of *nslots slots) with n slots
 * (a power of two) for count items whose 32-bit hashes lie at hash, stride
 * bytes apart: a slot holds item i as i + 1 (0: empty), placed by linear
 * probing.  0, or -1 with ENOMEM and the table untouched. */
int grovep_slots_rebuild(uint32_t **slots, size_t *nslots, size_t n, const uint32_t *hash,
                         size_t count, size_t stride);

/* After removals from the array *p of *cap elements of elem bytes, n of
 * them in use: halve it while n is at most a quarter of it (not below
 * 16), so that a table that once held 100,000 entries does not keep their
 * room once they are gone, and add and remove around one size do not
 * reallocate each time.  Never fails: a refused realloc keeps the array. */
void grovep_shrink(void **p, size_t *cap, size_t n, size_t elem);

/* A growable text buffer, for code that builds a string piece by piece.
 * Appending never needs a check after each piece: a failed growth sets
 * `failed`, later appends do nothing, and the builder looks once at the end
 * (it may also set `failed` itself when another allocation of its own
 * fails, so that one check covers both).  Start from {0}. */
typedef struct grovep_buf {
    char *p;     /* the bytes so far; NULL until something is reserved */
    size_t len;  /* bytes used */
    size_t cap;  /* bytes allocated; > len once anything is reserved */
    bool failed; /* a growth failed: the content is incomplete */
} grovep_buf_t;

/* Room for more bytes after p[len] and one byte beyond them (for a NUL):
 * a pointer to p + len, or NULL with errno ENOMEM (and failed set).  The
 * common case (room already) is inline: readers call it per string. */
char *grovep_buf_room_slow(grovep_buf_t *b, size_t more);

static inline char *grovep_buf_room(grovep_buf_t *b, size_t more)
{
    return !b->failed && more < b->cap - b->len ? b->p + b->len : grovep_buf_room_slow(b, more);
}

/* Append n bytes of s.  0, or -1 with ENOMEM.  Inline: writers call it
 * per token. */
static inline int grovep_buf_put(grovep_buf_t *b, const char *s, size_t n)
{
    char *o = grovep_buf_room(b, n);
    if (!o)
        return -1;
    if (n)
        memcpy(o, s, n);
    b->len += n;
    return 0;
}

/* Append n bytes of s and a NUL, which counts in len (strings packed one
 * after another).  The offset of the copy in b->p, or (size_t)-1 with
 * ENOMEM. */
static inline size_t grovep_buf_putz(grovep_buf_t *b, const char *s, size_t n)
{
    size_t off = b->len;
    if (grovep_buf_put(b, s, n) < 0)
        return (size_t)-1;
    b->p[b->len++] = '\0';
    return off;
}

/* NUL-terminate the text and hand it over (caller frees), or, when
 * anything failed, free it and return NULL with ENOMEM. */
char *grovep_buf_finish(grovep_buf_t *b);

/* The whole text file at path in a new NUL-terminated buffer (caller
 * frees), its length in *len.  NULL with errno and err ("SOURCE: reason",
 * source NULL: path) when it cannot be read (ENOENT, EACCES, EISDIR,
 * ENOMEM, ...), holds a NUL byte (EINVAL: not text; found in the first
 * block read, so /dev/zero fails at once) or is larger than the input
 * limit (EOVERFLOW, GROVE_MAX_INPUT in limit.h). */
char *grovep_read_file(const char *path, const char *source, size_t *len, grove_error_t *err);

/* A loader's parser: text of len bytes (NUL-terminated), named source in
 * messages, with the loader's arg.  A new object, or NULL with errno and
 * err filled. */
typedef void *(*grovep_text_reader_f)(const char *text, size_t len, const char *source,
                                      const void *arg, grove_error_t *err);

/* What every grove_*_load does: clear err, read the file at path and
 * parse it with read, naming it source in messages (path when source is
 * NULL).  What read returns, or NULL with errno; when the file cannot be
 * read, err says "source: reason". */
void *grovep_load_file(const char *path, const char *source, grovep_text_reader_f read,
                       const void *arg, grove_error_t *err);

/* Define the static grovep_text_reader_f `name` that parses with
 * `read(text, len, source, err)`, for a format whose reader takes no
 * options (its loader passes arg NULL). */
#define GROVEP_TEXT_READER(name, read)                                          \
    static void *name(const char *text, size_t len, const char *source,         \
                      const void *arg, grove_error_t *err)                      \
    {                                                                           \
        (void)arg;                                                              \
        return read(text, len, source, err);                                    \
    }

/* Binary search: set pos (a size_t) to the first index in [0, n) at
 * which the condition below, an expression of the index variable i,
 * is false (n if none).  below must hold for a prefix of the indices
 * and fail for the rest, as "a[i].key < key" does on an array sorted by
 * key.  A macro so that the comparison is inlined at each search (the
 * matcher's and the idset's are on hot paths). */
#define GROVEP_LOWER_BOUND(pos, n, i, below)                                    \
    do {                                                                        \
        size_t lo_ = 0, hi_ = (n);                                              \
        while (lo_ < hi_) {                                                     \
            size_t i = lo_ + (hi_ - lo_) / 2;                                   \
            if (below)                                                          \
                lo_ = i + 1;                                                    \
            else                                                                \
                hi_ = i;                                                        \
        }                                                                       \
        (pos) = lo_;                                                            \
    } while (0)

/* Define `type name(const T *o)` returning o->member: the read-only
 * accessors of an opaque type, one line each (their contract is at the
 * prototype in the public header, which also keeps -Wmissing-prototypes
 * satisfied). */
#define GROVEP_GETTER(type, name, T, member)                                    \
    type name(const T *o)                                                       \
    {                                                                           \
        return o->member;                                                       \
    }

/* Call fn, a function taking a T *, on each of the pointers listed, in
 * order, and leave errno as it was: the destructor of an object that owns
 * many members says which ones and how they are freed in one statement,
 * not one line each, and a failure path frees what it holds after setting
 * its errno without saving it around.  The list is a local array, so
 * nothing is allocated (destructors run when memory is short). */
#define GROVEP_EACH(fn, T, ...)                                                 \
    do {                                                                        \
        T *const each_[] = {__VA_ARGS__};                                       \
        int each_errno_ = errno;                                                \
        for (size_t each_i_ = 0; each_i_ < sizeof(each_) / sizeof(*each_);     \
             each_i_++)                                                         \
            fn(each_[each_i_]);                                                 \
        errno = each_errno_;                                                    \
    } while (0)

/* free() each of the buffers listed (NULL ones too, as free does), errno
 * kept. */
#define GROVEP_FREE_ALL(...) GROVEP_EACH(free, void, __VA_ARGS__)

/* free() the first n buffers of the array a, then a: an array that owns
 * what it points to (a may be NULL when n is 0). */
#define GROVEP_FREE_ARRAY(a, n)                                                 \
    do {                                                                        \
        for (size_t free_i_ = 0; free_i_ < (n); free_i_++)                      \
            free((a)[free_i_]);                                                 \
        free(a);                                                                \
    } while (0)

/* Release obj with fn (its destroy or free), then set errno to e and
 * yield NULL: the failure of a function that was building obj to return,
 * written `return GROVEP_NULL_AFTER(grove_x_destroy, x, ENOMEM);`.  errno
 * is set after fn, so fn may touch it. */
#define GROVEP_NULL_AFTER(fn, obj, e) ((void)(fn)(obj), errno = (e), (void *)NULL)

/* p, with errno set to e when p is NULL: the result of a function whose
 * last call made p and may fail without a dependable errno (jansson's
 * makers and dumps, the C library's allocators), written
 * `return grovep_or_errno(text, ENOMEM);`. */
static inline void *grovep_or_errno(void *p, int e)
{
    if (!p)
        errno = e;
    return p;
}

/* -1, 0 or 1 as a is below, equal to or above b: the comparators'
 * three-way step, for numbers of any type (each argument is evaluated
 * twice). */
#define GROVEP_CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The name of value i of an enumeration from its table of n names, or
 * NULL when i is out of range. */
static inline const char *grovep_name_of(const char *const *names, unsigned n, unsigned i)
{
    return i < n ? names[i] : NULL;
}

/* The index of name s in the table of n names, or -1 with EINVAL (s NULL
 * or not in the table). */
int grovep_name_index(const char *const *names, int n, const char *s);

/* The number of decimal digits of v (1 for 0). */
static inline int grovep_ndigits(uint64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* Write v in decimal at o, zero-padded to width digits (0 or less: no
 * padding), with no NUL; the number of bytes written.  The encoders of
 * ids and host names write their numbers through it. */
static inline int grovep_put_decimal(char *o, uint64_t v, int width)
{
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    int len = 0;
    for (int z = k; z < width; z++)
        o[len++] = '0';
    while (k)
        o[len++] = tmp[--k];
    return len;
}

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
