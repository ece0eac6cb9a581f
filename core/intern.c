/* intern.c: string interning with an open-addressing hash table.
 *
 * Workload: a few hundred distinct strings in a typical graph (types, units,
 * subsystems, "core0".."core43"), up to tens of thousands for host names;
 * look-ups on every vertex created and every name resolved.  Strings are
 * packed into large chunks (no malloc per string); the table stores the
 * symbol per slot and compares through the string array.
 *
 * This file must not hold what the symbols mean (types, subsystems, names):
 * that belongs to the graph.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "util.h"

#define CHUNK_MIN 4096

struct chunk {
    struct chunk *next;
    size_t used, cap; /* bytes in data */
    char data[];
};

struct grove_intern {
    char **str;        /* str[sym]: NUL-terminated string inside a chunk */
    uint32_t *len;     /* len[sym]: its length */
    uint32_t *hash;    /* hash[sym] */
    size_t count, cap; /* symbols used / allocated in str, len, hash */
    uint32_t *slots;   /* open addressing: symbol + 1, 0 = empty */
    size_t nslots;     /* power of two, at least twice count */
    struct chunk *chunks;
    size_t bytes; /* bytes in chunks */
};

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static char *store(grove_intern_t *t, const char *s, size_t n)
{
    struct chunk *c = t->chunks;
    if (!c || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > CHUNK_MIN ? n + 1 : CHUNK_MIN;
        if (c && c->cap * 2 > cap && c->cap < (1u << 20))
            cap = c->cap * 2 > n + 1 ? c->cap * 2 : n + 1;
        c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = t->chunks;
        t->chunks = c;
        t->bytes += sizeof(*c) + cap;
    }
    char *p = c->data + c->used;
    memcpy(p, s, n);
    p[n] = '\0';
    c->used += n + 1;
    return p;
}

static int rehash(grove_intern_t *t, size_t nslots)
{
    return grovep_slots_rebuild(&t->slots, &t->nslots, nslots, t->hash, t->count,
                                sizeof(*t->hash));
}

static int grow_arrays(grove_intern_t *t)
{
    /* three arrays of one length: each grows from the same capacity to the
     * same new one; t->cap moves only once all have */
    size_t need = t->cap + 1, c1 = t->cap, c2 = t->cap, c3 = t->cap;
    if (grovep_grow((void **)&t->str, &c1, need, sizeof(*t->str)) < 0
        || grovep_grow((void **)&t->len, &c2, need, sizeof(*t->len)) < 0
        || grovep_grow((void **)&t->hash, &c3, need, sizeof(*t->hash)) < 0)
        return -1;
    t->cap = c1;
    return 0;
}

grove_intern_t *grove_intern_create(void)
{
    grove_intern_t *t = grovep_zalloc(sizeof(*t));
    if (!t)
        return NULL;
    if (rehash(t, 128) < 0 || grove_intern(t, "") != GROVE_SYM_EMPTY)
        return GROVEP_NULL_AFTER(grove_intern_destroy, t, ENOMEM);
    return t;
}

void grove_intern_destroy(grove_intern_t *t)
{
    if (!t)
        return;
    int saved = errno;
    struct chunk *c = t->chunks;
    while (c) {
        struct chunk *next = c->next;
        free(c);
        c = next;
    }
    GROVEP_FREE_ALL(t->str, t->len, t->hash, t->slots);
    free(t);
    errno = saved;
}

grove_intern_t *grove_intern_copy(const grove_intern_t *t)
{
    grove_intern_t *c = grove_intern_create();
    if (!c)
        return NULL;
    for (size_t i = 1; i < t->count; i++) {
        if (grove_intern_n(c, t->str[i], t->len[i]) != (grove_sym_t)i)
            return GROVEP_NULL_AFTER(grove_intern_destroy, c, ENOMEM);
    }
    return c;
}

static grove_sym_t find(const grove_intern_t *t, const char *s, size_t n, uint32_t h,
                        size_t *slot)
{
    size_t j = h & (t->nslots - 1);
    while (t->slots[j]) {
        uint32_t sym = t->slots[j] - 1;
        if (t->hash[sym] == h && t->len[sym] == n && memcmp(t->str[sym], s, n) == 0)
            return sym;
        j = (j + 1) & (t->nslots - 1);
    }
    if (slot)
        *slot = j;
    return GROVE_SYM_NONE;
}

grove_sym_t grove_intern_n(grove_intern_t *t, const char *s, size_t n)
{
    if (!s || n >= UINT32_MAX) {
        errno = EINVAL;
        return GROVE_SYM_NONE;
    }
    uint32_t h = hash_bytes(s, n);
    size_t slot;
    grove_sym_t sym = find(t, s, n, h, &slot);
    if (sym != GROVE_SYM_NONE)
        return sym;
    if (t->count + 1 >= UINT32_MAX - 1)
        goto nomem;
    if ((t->count + 1) * 2 > t->nslots) {
        if (rehash(t, t->nslots * 2) < 0)
            goto nomem;
        find(t, s, n, h, &slot);
    }
    if (t->count == t->cap && grow_arrays(t) < 0)
        goto nomem;
    char *p = store(t, s, n);
    if (!p)
        goto nomem;
    sym = (grove_sym_t)t->count++;
    t->str[sym] = p;
    t->len[sym] = (uint32_t)n;
    t->hash[sym] = h;
    t->slots[slot] = sym + 1;
    return sym;
nomem:
    errno = ENOMEM;
    return GROVE_SYM_NONE;
}

grove_sym_t grove_intern(grove_intern_t *t, const char *s)
{
    if (!s) {
        errno = EINVAL;
        return GROVE_SYM_NONE;
    }
    return grove_intern_n(t, s, strlen(s));
}

grove_sym_t grove_intern_lookup(const grove_intern_t *t, const char *s)
{
    if (!s)
        return GROVE_SYM_NONE;
    size_t n = strlen(s);
    return find(t, s, n, hash_bytes(s, n), NULL);
}

const char *grove_intern_str(const grove_intern_t *t, grove_sym_t sym)
{
    return sym < t->count ? t->str[sym] : NULL;
}

GROVEP_GETTER(size_t, grove_intern_count, grove_intern_t, count)

size_t grove_intern_bytes(const grove_intern_t *t)
{
    return t->bytes + t->cap * (sizeof(char *) + 2 * sizeof(uint32_t))
           + t->nslots * sizeof(uint32_t) + sizeof(*t);
}
