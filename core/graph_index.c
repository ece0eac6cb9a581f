/* graph_index.c: the graph's look-up indexes.
 *
 * Holds the map of 64-bit keys to id chains (ranks, default names by id),
 * the uuids and their index (kept lazily: see below), and the chains of
 * vertices by type, name and rank with the look-ups over them
 * (grove_graph_find_uuid, grove_graph_first_by_*, grove_vertex_next_same_*,
 * grove_graph_count_type).  An index is built at the first look-up that
 * needs it, never while a graph is read.
 *
 * It must not hold the making or editing of vertices and edges (graph.c,
 * graph_edge.c), paths (graph_path.c) or anything of the floors above the
 * graph; it only keeps the indexes graph.c tells it of (graph_parts.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "graph_private.h"
#include "graph_parts.h"

/* ---- small helpers ----------------------------------------------------- */

static uint64_t uuid_key(const uint8_t u[16])
{
    uint64_t a, b;
    memcpy(&a, u, 8);
    memcpy(&b, u + 8, 8);
    return a ^ rotl(b, 29);
}

/* ---- map: 64-bit key -> chain ----------------------------------------- */

static void map_free(grovep_map_t *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof(*m));
}

static grovep_chain_t *map_get(const grovep_map_t *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t j = mix64(key) & (m->cap - 1);
    while (m->used[j]) {
        if (m->keys[j] == key)
            return &m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

int grovep_map_rehash(grovep_map_t *m, size_t cap)
{
    grovep_map_t n = {0};
    n.keys = malloc(cap * sizeof(*n.keys));
    n.vals = malloc(cap * sizeof(*n.vals));
    n.used = calloc(cap, 1);
    if (!n.keys || !n.vals || !n.used) {
        map_free(&n);
        errno = ENOMEM;
        return -1;
    }
    n.cap = cap;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        size_t j = mix64(m->keys[i]) & (cap - 1);
        while (n.used[j])
            j = (j + 1) & (cap - 1);
        n.used[j] = 1;
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
    }
    n.count = m->count;
    map_free(m);
    *m = n;
    return 0;
}

/* The chain for key, created empty if absent; NULL with ENOMEM. */
static grovep_chain_t *map_put(grovep_map_t *m, uint64_t key)
{
    grovep_chain_t *c = map_get(m, key);
    if (c)
        return c;
    if ((m->count + 1) * 2 > m->cap && grovep_map_rehash(m, m->cap ? m->cap * 2 : 64) < 0)
        return NULL;
    size_t j = mix64(key) & (m->cap - 1);
    while (m->used[j])
        j = (j + 1) & (m->cap - 1);
    m->used[j] = 1;
    m->keys[j] = key;
    m->vals[j] = (grovep_chain_t){GROVEP_NONE, GROVEP_NONE, 0};
    m->count++;
    return &m->vals[j];
}

/* Remove key (backward-shift deletion keeps probing correct). */
void grovep_map_remove(grovep_map_t *m, uint64_t key)
{
    if (!m->cap)
        return;
    size_t mask = m->cap - 1, j = mix64(key) & mask;
    while (m->used[j] && m->keys[j] != key)
        j = (j + 1) & mask;
    if (!m->used[j])
        return;
    m->used[j] = 0;
    m->count--;
    size_t k = (j + 1) & mask;
    while (m->used[k]) {
        size_t home = mix64(m->keys[k]) & mask;
        /* move k back to j if j lies cyclically in [home, k) */
        if ((k > j && (home <= j || home > k)) || (k < j && (home <= j && home > k))) {
            m->keys[j] = m->keys[k];
            m->vals[j] = m->vals[k];
            m->used[j] = 1;
            m->used[k] = 0;
            j = k;
        }
        k = (k + 1) & mask;
    }
}

int grovep_map_copy(grovep_map_t *dst, const grovep_map_t *src)
{
    memset(dst, 0, sizeof(*dst));
    if (!src->cap)
        return 0;
    dst->keys = malloc(src->cap * sizeof(*dst->keys));
    dst->vals = malloc(src->cap * sizeof(*dst->vals));
    dst->used = malloc(src->cap);
    if (!dst->keys || !dst->vals || !dst->used) {
        map_free(dst);
        errno = ENOMEM;
        return -1;
    }
    memcpy(dst->keys, src->keys, src->cap * sizeof(*dst->keys));
    memcpy(dst->vals, src->vals, src->cap * sizeof(*dst->vals));
    memcpy(dst->used, src->used, src->cap);
    dst->cap = src->cap;
    dst->count = src->count;
    return 0;
}

grovep_chain_t *grovep_map_get(const grovep_map_t *m, uint64_t key)
{
    return map_get(m, key);
}

grovep_chain_t *grovep_map_put(grovep_map_t *m, uint64_t key)
{
    return map_put(m, key);
}

void grovep_map_del(grovep_map_t *m, uint64_t key)
{
    grovep_map_remove(m, key);
    /* shrink as it empties (the shared-annotation index of 100,000 jobs
     * must not outlive them); a failed rehash keeps the larger table */
    if (m->count == 0)
        map_free(m);
    else if (m->cap > 64 && m->count * 8 < m->cap)
        (void)grovep_map_rehash(m, m->cap / 2);
}

void grovep_map_free(grovep_map_t *m)
{
    map_free(m);
}

/* ---- uuid index --------------------------------------------------------
 *
 * Open addressing on 8-byte slots: (upper 32 bits of the uuid's hash) << 32
 * | (vertex + 1), 0 when empty.  A slot's home is the top bits of those 32,
 * so growing never reads a uuid, and a probe reads one only when the 32
 * bits match.  At most half full: about 20 bytes a vertex.
 *
 * Neither the uuids nor their index cost anything while a graph is read:
 * until a uuid is given or looked up, the uuid of vertex v is a keyed
 * mix of v (a bijection of it, so distinct vertices differ in all but 6
 * bits) and nothing is stored.  The first uuid given to add_vertex or
 * asked of grove_graph_find_uuid stores them all (16 bytes a vertex; new
 * vertices then get random ones) and builds the index, which regenerates
 * the second of any two that collide.  Indexing and storing were a third
 * of the time and 30 MB of reading a 16,384-node GRUG.  This state lives
 * behind a pointer so that look-ups on a const graph may build it. */

/* The uuid of vertex v while none is stored: a keyed mix of v, version 4. */
static void uuid_keyed(const struct grovep_uuidx *x, grove_vid_t v, uint8_t u[16])
{
    uint64_t a = mix64(x->key[0] ^ v), b = mix64(x->key[1] ^ ((uint64_t)v << 32 | v));
    memcpy(u, &a, 8);
    memcpy(u + 8, &b, 8);
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

void grovep_uuid_get(const grove_graph_t *g, grove_vid_t v, uint8_t u[16])
{
    if (g->uuidx->u)
        memcpy(u, g->uuidx->u[v], 16);
    else
        uuid_keyed(g->uuidx, v, u);
}

/* Store the uuid of every vertex (room for g->vcap).  0 or -1 (ENOMEM). */
static int uuid_store(const grove_graph_t *g)
{
    struct grovep_uuidx *x = g->uuidx;
    if (x->u)
        return 0;
    uint8_t(*u)[16] = malloc((g->vcap ? g->vcap : 1) * sizeof(*u));
    if (!u) {
        errno = ENOMEM;
        return -1;
    }
    for (grove_vid_t v = 0; v < g->nv; v++)
        uuid_keyed(x, v, u[v]);
    x->u = u;
    return 0;
}

static uint32_t uuid_tag(const uint8_t u[16])
{
    return (uint32_t)(mix64(uuid_key(u)) >> 32);
}

static size_t uuid_home(const struct grovep_uuidx *x, uint32_t tag)
{
    int bits = __builtin_ctzll((unsigned long long)x->cap);
    return bits <= 32 ? (size_t)(tag >> (32 - bits)) : (size_t)tag << (bits - 32);
}

/* The vertex of uuid u in the index (built or not) or GROVE_VID_NONE; *at
 * gets its slot, or the empty slot where it would go (when it has room). */
grove_vid_t grovep_uuid_probe(const grove_graph_t *g, const uint8_t u[16], size_t *at)
{
    const struct grovep_uuidx *x = g->uuidx;
    if (!x->cap)
        return GROVE_VID_NONE;
    uint32_t tag = uuid_tag(u);
    size_t mask = x->cap - 1, j = uuid_home(x, tag);
    for (uint64_t s; (s = x->slots[j]) != 0; j = (j + 1) & mask) {
        grove_vid_t v = (grove_vid_t)((s & 0xffffffffu) - 1);
        if ((uint32_t)(s >> 32) == tag && !memcmp(x->u[v], u, 16)) {
            if (at)
                *at = j;
            return v;
        }
    }
    if (at)
        *at = j;
    return GROVE_VID_NONE;
}

/* Room for `more` uuids.  0 or -1 (ENOMEM). */
int grovep_uuid_reserve(struct grovep_uuidx *x, size_t more)
{
    if ((x->count + more) * 2 <= x->cap)
        return 0;
    size_t ocap = x->cap, cap = ocap ? ocap : 1024;
    while ((x->count + more) * 2 > cap)
        cap *= 2;
    uint64_t *old = x->slots, *s = calloc(cap, sizeof(*s));
    if (!s) {
        errno = ENOMEM;
        return -1;
    }
    x->slots = s;
    x->cap = cap;
    for (size_t i = 0; i < ocap; i++) {
        if (!old[i])
            continue;
        size_t j = uuid_home(x, (uint32_t)(old[i] >> 32));
        while (s[j])
            j = (j + 1) & (cap - 1);
        s[j] = old[i];
    }
    free(old);
    return 0;
}

/* Index u as the uuid of v (after grovep_uuid_reserve; u not indexed yet). */
void grovep_uuid_insert(const grove_graph_t *g, const uint8_t u[16], grove_vid_t v)
{
    size_t j = 0;
    grovep_uuid_probe(g, u, &j);
    g->uuidx->slots[j] = (uint64_t)uuid_tag(u) << 32 | ((uint64_t)v + 1);
    g->uuidx->count++;
}

/* Index every live vertex, once.  0 or -1 (ENOMEM, the index left empty). */
int grovep_uuid_build(const grove_graph_t *g)
{
    struct grovep_uuidx *x = g->uuidx;
    if (x->built)
        return 0;
    if (uuid_store(g) < 0 || grovep_uuid_reserve(x, g->nlive) < 0)
        return -1;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (g->v[v].flags & GROVEP_V_DEAD)
            continue;
        while (grovep_uuid_probe(g, x->u[v], NULL) != GROVE_VID_NONE)
            grovep_uuid_generate(g, x->u[v]); /* a generated one collided */
        grovep_uuid_insert(g, x->u[v], v);
    }
    x->built = true;
    return 0;
}

/* Drop the uuid of v from the index (backward-shift deletion keeps
 * probing correct). */
void grovep_uuid_del(grove_graph_t *g, grove_vid_t v)
{
    struct grovep_uuidx *x = g->uuidx;
    size_t j;
    if (!x->built || grovep_uuid_probe(g, x->u[v], &j) == GROVE_VID_NONE)
        return;
    size_t mask = x->cap - 1, k = (j + 1) & mask;
    x->slots[j] = 0;
    x->count--;
    while (x->slots[k]) {
        size_t home = uuid_home(x, (uint32_t)(x->slots[k] >> 32));
        /* move k back to j if j lies cyclically in [home, k) */
        if ((k > j && (home <= j || home > k)) || (k < j && (home <= j && home > k))) {
            x->slots[j] = x->slots[k];
            x->slots[k] = 0;
            j = k;
        }
        k = (k + 1) & mask;
    }
}

void grovep_uuid_index_free(struct grovep_uuidx *x)
{
    if (x) {
        free(x->slots);
        free(x->u);
    }
    free(x);
}

/* The 16-byte uuid from its 36-char text form; 0 or -1 (EINVAL). */
int grovep_uuid_parse(const char *text, uint8_t out[16])
{
    if (!text || strlen(text) != 36)
        goto inval;
    int k = 0;
    for (int i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-')
                goto inval;
            i++;
            continue;
        }
        int hi = grovep_hexval(text[i]), lo = grovep_hexval(text[i + 1]);
        if (hi < 0 || lo < 0)
            goto inval;
        out[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return 0;
inval:
    errno = EINVAL;
    return -1;
}

void grovep_uuid_format(const uint8_t u[16], char buf[37])
{
    static const char hex[] = "0123456789abcdef";
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[k++] = '-';
        buf[k++] = hex[u[i] >> 4];
        buf[k++] = hex[u[i] & 15];
    }
    buf[k] = '\0';
}

int grovep_reserve_chains(grove_graph_t *g, grove_sym_t sym)
{
    size_t old = g->chain_cap, tcap = old, ncap = old; /* parallel arrays */
    if (grovep_grow((void **)&g->by_type, &tcap, (size_t)sym + 1, sizeof(*g->by_type)) < 0
        || grovep_grow((void **)&g->by_name, &ncap, (size_t)sym + 1, sizeof(*g->by_name)) < 0)
        return -1;
    for (size_t i = old; i < tcap; i++) {
        g->by_type[i] = (grovep_chain_t){GROVEP_NONE, GROVEP_NONE, 0};
        g->by_name[i] = (grovep_chain_t){GROVEP_NONE, GROVEP_NONE, 0};
    }
    g->chain_cap = tcap;
    return 0;
}

/* Insert v into a chain kept in ascending id order. */
void grovep_chain_insert(grovep_chain_t *c, grove_vid_t *next, grove_vid_t v)
{
    c->count++;
    if (c->head == GROVEP_NONE) {
        c->head = c->tail = v;
        next[v] = GROVEP_NONE;
    } else if (v > c->tail) {
        next[c->tail] = v;
        next[v] = GROVEP_NONE;
        c->tail = v;
    } else if (v < c->head) {
        next[v] = c->head;
        c->head = v;
    } else {
        grove_vid_t p = c->head;
        while (next[p] != GROVEP_NONE && next[p] < v)
            p = next[p];
        next[v] = next[p];
        next[p] = v;
    }
}

void grovep_chain_remove(grovep_chain_t *c, grove_vid_t *next, grove_vid_t v)
{
    grove_vid_t prev = GROVEP_NONE, p = c->head;
    while (p != GROVEP_NONE && p != v) {
        prev = p;
        p = next[p];
    }
    if (p == GROVEP_NONE)
        return;
    if (prev == GROVEP_NONE)
        c->head = next[v];
    else
        next[prev] = next[v];
    if (c->tail == v)
        c->tail = prev;
    c->count--;
}

/* Which index chains_made makes. */
enum { CHAIN_TYPE, CHAIN_NAME, CHAIN_RANK };

/* The links of the chains of index k (CHAIN_*), made at the first look-up
 * through it from the live vertices in id order: a graph never searched
 * by type, name or rank keeps none of them (12 bytes a vertex).  Once
 * made they are kept as vertices come, change and go, as before.  The
 * counts of the type and name chains are kept all along (count_type),
 * and the heads of the type chains (chain_first's first vertex of a
 * type); making the links makes the ends afresh, of the live vertices.
 * NULL with ENOMEM, nothing made. */
static grove_vid_t *chains_made(const grove_graph_t *cg, int k)
{
    /* a cache of what the vertices say: the graph as seen through its
     * functions does not change */
    grove_graph_t *g = (grove_graph_t *)(uintptr_t)cg;
    grove_vid_t **links = k == CHAIN_TYPE ? &g->next_type
                          : k == CHAIN_NAME ? &g->next_name
                                            : &g->next_rank;
    if (*links)
        return *links;
    grove_vid_t *next = malloc((g->vcap ? g->vcap : 1) * sizeof(*next));
    if (!next) {
        errno = ENOMEM;
        return NULL;
    }
    grovep_chain_t *by = k == CHAIN_TYPE ? g->by_type : g->by_name;
    if (k != CHAIN_RANK)
        for (size_t i = 0; i < g->chain_cap; i++)
            by[i].head = by[i].tail = GROVEP_NONE;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        next[v] = GROVEP_NONE;
        const grovep_vertex_t *x = &g->v[v];
        if (x->flags & GROVEP_V_DEAD)
            continue;
        grovep_chain_t *c;
        if (k == CHAIN_RANK) {
            if (x->rank < 0)
                continue;
            if (!(c = map_put(&g->by_rank, (uint64_t)x->rank))) {
                map_free(&g->by_rank);
                free(next);
                return NULL;
            }
            c->count++;
        } else {
            c = &by[k == CHAIN_TYPE ? x->type : grovep_vertex_name(g, v)];
        }
        if (c->head == GROVEP_NONE)
            c->head = v;
        else
            next[c->tail] = v;
        c->tail = v;
    }
    *links = next;
    return next;
}

grove_vid_t grove_graph_find_uuid(const grove_graph_t *g, const char *uuid)
{
    uint8_t u[16];
    if (grovep_uuid_parse(uuid, u) == 0) {
        if (grovep_uuid_build(g) < 0)
            return GROVE_VID_NONE; /* ENOMEM */
        grove_vid_t v = grovep_uuid_probe(g, u, NULL);
        if (v != GROVE_VID_NONE && grovep_alive(g, v))
            return v;
    }
    errno = ENOENT;
    return GROVE_VID_NONE;
}

static grove_vid_t skip_dead(const grove_graph_t *g, const grove_vid_t *next, grove_vid_t v)
{
    while (v != GROVEP_NONE && (g->v[v].flags & GROVEP_V_DEAD))
        v = next[v];
    return v;
}

/* The chain of index k (CHAIN_*) that holds the vertices of key (a
 * symbol, or a rank), or NULL when none does.  Its chains are made. */
static const grovep_chain_t *chain_of(const grove_graph_t *g, int k, int64_t key)
{
    if (k == CHAIN_RANK)
        return key < 0 ? NULL : map_get(&g->by_rank, (uint64_t)key);
    if (key < 0 || (uint64_t)key >= g->chain_cap)
        return NULL;
    return k == CHAIN_TYPE ? &g->by_type[key] : &g->by_name[key];
}

/* The first live vertex of key in index k, or the next live one after v on
 * its chain: GROVE_VID_NONE at the end, or with ENOMEM when the index's
 * chains cannot be made. */
static grove_vid_t chain_first(const grove_graph_t *g, int k, int64_t key)
{
    /* A type's chain keeps its head before its links are made (a
     * vertex's type never changes and ids only grow): the first vertex
     * of a type, when alive, costs no pass over the whole graph.  A
     * matcher asks for one at its first match (is the type a channeled
     * pool?), and nothing else may ever walk the chain. */
    if (k == CHAIN_TYPE && !g->next_type && key >= 0 && (uint64_t)key < g->chain_cap) {
        grove_vid_t h = g->by_type[key].head;
        if (h == GROVEP_NONE || !(g->v[h].flags & GROVEP_V_DEAD))
            return h;
    }
    const grove_vid_t *next = chains_made(g, k);
    const grovep_chain_t *c = next ? chain_of(g, k, key) : NULL;
    return c ? skip_dead(g, next, c->head) : GROVE_VID_NONE;
}

static grove_vid_t chain_next(const grove_graph_t *g, int k, grove_vid_t v)
{
    const grove_vid_t *next = chains_made(g, k);
    return next && v < g->nv ? skip_dead(g, next, next[v]) : GROVE_VID_NONE;
}

/* The public first/next pair of index k, its key of type key_t. */
#define CHAIN_LOOKUPS(first, next, key_t, k)                                    \
    grove_vid_t first(const grove_graph_t *g, key_t key)                        \
    {                                                                           \
        return chain_first(g, k, key);                                          \
    }                                                                           \
    grove_vid_t next(const grove_graph_t *g, grove_vid_t v)                     \
    {                                                                           \
        return chain_next(g, k, v);                                             \
    }

CHAIN_LOOKUPS(grove_graph_first_by_type, grove_vertex_next_same_type, grove_sym_t, CHAIN_TYPE)
CHAIN_LOOKUPS(grove_graph_first_by_name, grove_vertex_next_same_name, grove_sym_t, CHAIN_NAME)
CHAIN_LOOKUPS(grove_graph_first_by_rank, grove_vertex_next_same_rank, int64_t, CHAIN_RANK)
#undef CHAIN_LOOKUPS

size_t grove_graph_count_type(const grove_graph_t *g, grove_sym_t type)
{
    return type < g->chain_cap ? g->by_type[type].count : 0;
}

/* A fresh random (version 4) uuid, not used yet in the graph when its
 * index is built. */
void grovep_uuid_generate(const grove_graph_t *g, uint8_t u[16])
{
    uint64_t *rng = g->uuidx->rng;
    do {
        uint64_t a = rng_next(rng), b = rng_next(rng);
        memcpy(u, &a, 8);
        memcpy(u + 8, &b, 8);
        u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
        u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
    } while (g->uuidx->built && grovep_uuid_probe(g, u, NULL) != GROVE_VID_NONE);
}
