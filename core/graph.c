/* graph.c: vertices, edges, subsystems, paths and look-up indexes.
 *
 * Workload: graphs of up to a few million vertices built once (from the
 * DSL, JGF, recipes, hwloc or R) and then walked many times by the matcher.
 * Building must be fast and small: every per-vertex datum lives in an array
 * indexed by vertex id (see graph_private.h), strings are interned (a
 * name made from basename + id is found in a table by id, not hashed),
 * edges are 24-byte records chained per vertex, and the per-vertex index
 * costs (three id chains: type, name, rank; the uuid table) are paid at
 * the first look-up that needs them, not while a graph is read.
 *
 * Containment is the dominant subsystem and a tree: its parent of every
 * vertex is cached in g->parent so ancestors are walked without touching
 * edges.
 *
 * This file must not hold pool data (properties, tags, records: pool.c),
 * availability over time (aggregate.c), walks (walker.c) or the readers and
 * writers of graph formats, and never calls those floors above it: it
 * makes, frees and copies the bare graph, and graph_life.c starts and ends
 * the aggregates and the record index beside it (docs/architecture.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "util.h"
#include "graph_private.h"

/* ---- small helpers ----------------------------------------------------- */

static void uuid_generate(const grove_graph_t *g, uint8_t u[16]);
static void idnames_free(grove_graph_t *g);


static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static uint64_t rng_next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static uint64_t uuid_key(const uint8_t u[16])
{
    uint64_t a, b;
    memcpy(&a, u, 8);
    memcpy(&b, u + 8, 8);
    return a ^ rotl(b, 29);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
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

static int map_rehash(grovep_map_t *m, size_t cap)
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
    if ((m->count + 1) * 2 > m->cap && map_rehash(m, m->cap ? m->cap * 2 : 64) < 0)
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
static void map_del(grovep_map_t *m, uint64_t key)
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

static int map_copy(grovep_map_t *dst, const grovep_map_t *src)
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
    map_del(m, key);
    /* shrink as it empties (the shared-annotation index of 100,000 jobs
     * must not outlive them); a failed rehash keeps the larger table */
    if (m->count == 0)
        map_free(m);
    else if (m->cap > 64 && m->count * 8 < m->cap)
        (void)map_rehash(m, m->cap / 2);
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

struct grovep_uuidx {
    uint64_t *slots;
    size_t count, cap; /* cap: 0 or a power of two, at least 2 * count */
    bool built;        /* every live vertex is indexed */
    uint8_t (*u)[16];  /* [vcap] the uuids once stored (built implies it), or NULL */
    uint64_t key[2];   /* the uuid of vertex v until stored: uuid_keyed */
    uint64_t rng[4];   /* generator state of new uuids */
};

/* The uuid of vertex v while none is stored: a keyed mix of v, version 4. */
static void uuid_keyed(const struct grovep_uuidx *x, grove_vid_t v, uint8_t u[16])
{
    uint64_t a = mix64(x->key[0] ^ v), b = mix64(x->key[1] ^ ((uint64_t)v << 32 | v));
    memcpy(u, &a, 8);
    memcpy(u + 8, &b, 8);
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

static void uuid_get(const grove_graph_t *g, grove_vid_t v, uint8_t u[16])
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
static grove_vid_t uuid_probe(const grove_graph_t *g, const uint8_t u[16], size_t *at)
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
static int uuid_reserve(struct grovep_uuidx *x, size_t more)
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

/* Index u as the uuid of v (after uuid_reserve; u not indexed yet). */
static void uuid_insert(const grove_graph_t *g, const uint8_t u[16], grove_vid_t v)
{
    size_t j = 0;
    uuid_probe(g, u, &j);
    g->uuidx->slots[j] = (uint64_t)uuid_tag(u) << 32 | ((uint64_t)v + 1);
    g->uuidx->count++;
}

/* Index every live vertex, once.  0 or -1 (ENOMEM, the index left empty). */
static int uuid_build(const grove_graph_t *g)
{
    struct grovep_uuidx *x = g->uuidx;
    if (x->built)
        return 0;
    if (uuid_store(g) < 0 || uuid_reserve(x, g->nlive) < 0)
        return -1;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (g->v[v].flags & GROVEP_V_DEAD)
            continue;
        while (uuid_probe(g, x->u[v], NULL) != GROVE_VID_NONE)
            uuid_generate(g, x->u[v]); /* a generated one collided */
        uuid_insert(g, x->u[v], v);
    }
    x->built = true;
    return 0;
}

/* Drop the uuid of v from the index (backward-shift deletion keeps
 * probing correct). */
static void uuid_del(grove_graph_t *g, grove_vid_t v)
{
    struct grovep_uuidx *x = g->uuidx;
    size_t j;
    if (!x->built || uuid_probe(g, x->u[v], &j) == GROVE_VID_NONE)
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

static void uuid_index_free(struct grovep_uuidx *x)
{
    if (x) {
        free(x->slots);
        free(x->u);
    }
    free(x);
}

/* ---- status names ----------------------------------------------------- */

static const char *const status_names[GROVE_STATUS_COUNT] = {
    "up", "down", "drained", "excluded", "degraded", "failing", "unknown", "null",
};

const char *grove_status_name(grove_status_t s)
{
    return grovep_name_of(status_names, GROVE_STATUS_COUNT, s);
}

int grove_status_parse(const char *s)
{
    return grovep_name_index(status_names, GROVE_STATUS_COUNT, s);
}

/* ---- life --------------------------------------------------------------- */

/* The bare graph's life: graph_life.c starts, ends and copies a graph with
 * the floors above kept beside it (aggregates, the pools' records). */

grove_graph_t *grovep_graph_new(void)
{
    grove_graph_t *g = grovep_zalloc(sizeof(*g));
    if (!g)
        return NULL;
    g->strings = grove_intern_create();
    if (!g->strings)
        goto fail;
    g->sym_containment = grove_intern(g->strings, GROVE_CONTAINMENT);
    g->sym_contains = grove_intern(g->strings, GROVE_CONTAINS);
    g->sym_in = grove_intern(g->strings, GROVE_IN);
    if (g->sym_in == GROVE_SYM_NONE)
        goto fail;
    if (!(g->units = malloc(4 * sizeof(*g->units))))
        goto fail;
    g->units[0] = GROVE_SYM_EMPTY;
    g->nunits = 1;
    g->unitcap = 4;
    g->containment = 0xff;
    g->kv_free = GROVEP_NONE;
    g->rec_free = GROVEP_NONE;
    g->head_free = GROVEP_NONE;
    g->pend = GROVEP_NONE;
    if (!(g->uuidx = calloc(1, sizeof(*g->uuidx))))
        goto fail;
    uint64_t *rng = g->uuidx->rng;
    if (getrandom(rng, sizeof(g->uuidx->rng), 0) != (ssize_t)sizeof(g->uuidx->rng)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rng[0] = mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30));
        rng[1] = mix64((uint64_t)(uintptr_t)g);
        rng[2] = mix64(rng[0] + 1);
        rng[3] = mix64(rng[1] + 2);
    }
    g->uuidx->key[0] = rng_next(rng);
    g->uuidx->key[1] = rng_next(rng);
    return g;
fail:
    grovep_graph_free(g);
    errno = ENOMEM;
    return NULL;
}

const grove_vid_t *grovep_tree_kids(const grove_graph_t *cg, const uint32_t **off)
{
    /* a cache of what the edges say: the graph as seen through its
     * functions does not change */
    grove_graph_t *g = (grove_graph_t *)(uintptr_t)cg;
    if (!g->tk_off || g->tk_nv != g->nv || g->tk_ne != g->ne || g->tk_live != g->nlive_e) {
        free(g->tk_off);
        g->tk_off = malloc((g->nv + 1) * sizeof(*g->tk_off));
        /* about one entry a vertex (one tree parent each; two edges from
         * a parent to one child would list it twice, so it may grow) */
        if (!g->tk_off
            || grovep_grow((void **)&g->tk_kid, &g->tk_cap, g->nv ? g->nv : 1, sizeof(*g->tk_kid))
                   < 0)
            goto fail;
        size_t k = 0;
        g->tk_all = true;
        for (grove_vid_t v = 0; v < g->nv; v++) {
            g->tk_off[v] = (uint32_t)k;
            if (!grovep_alive(g, v))
                continue;
            for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
                const grovep_edge_t *ed = &g->e[e];
                if (ed->sub != g->containment || (ed->flags & GROVEP_E_UP))
                    continue;
                if (g->parent[ed->dst] != v) {
                    g->tk_all = false;
                    continue;
                }
                if (grovep_grow((void **)&g->tk_kid, &g->tk_cap, k + 1, sizeof(*g->tk_kid)) < 0)
                    goto fail;
                g->tk_kid[k++] = ed->dst;
            }
        }
        g->tk_off[g->nv] = (uint32_t)k;
        g->tk_nv = g->nv;
        g->tk_ne = g->ne;
        g->tk_live = g->nlive_e;
    }
    *off = g->tk_off;
    return g->tk_kid;
fail:
    free(g->tk_off);
    g->tk_off = NULL;
    errno = ENOMEM;
    return NULL;
}

void grovep_holder_release(struct grovep_holder *h)
{
    if (h && --h->refs == 0)
        free(h);
}

void grovep_graph_free(grove_graph_t *g)
{
    if (!g)
        return;
    int saved = errno;
    grovep_holder_release(g->holder);
    grove_intern_destroy(g->strings);
    idnames_free(g);
    GROVEP_FREE_ALL(g->v, g->names, g->pnames, g->kvh, g->first_out, g->tails, g->parent,
                    g->next_type, g->next_name, g->next_rank, g->e, g->uin_first, g->uin_next, g->uin_src, g->tk_off, g->tk_kid, g->kv, g->recs,
                    g->heads, g->by_type, g->by_name);
    map_free(&g->by_rank);
    map_free(&g->big_ids);
    free(g->units);
    uuid_index_free(g->uuidx);
    free(g);
    errno = saved;
}

const char *grove_graph_str(const grove_graph_t *g, grove_sym_t sym)
{
    return grove_intern_str(g->strings, sym);
}

grove_sym_t grove_graph_sym(grove_graph_t *g, const char *s)
{
    return grove_intern(g->strings, s);
}

grove_sym_t grove_graph_sym_lookup(const grove_graph_t *g, const char *s)
{
    return grove_intern_lookup(g->strings, s);
}

GROVEP_GETTER(size_t, grove_graph_vertex_slots, grove_graph_t, nv)
GROVEP_GETTER(size_t, grove_graph_vertex_count, grove_graph_t, nlive)
GROVEP_GETTER(size_t, grove_graph_edge_count, grove_graph_t, nlive_e)
GROVEP_GETTER(size_t, grove_graph_edge_slots, grove_graph_t, ne)

bool grove_graph_has_vertex(const grove_graph_t *g, grove_vid_t v)
{
    return grovep_alive(g, v);
}

bool grove_graph_has_edge(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && !(g->e[e].flags & GROVEP_E_DEAD);
}

size_t grove_graph_bytes(const grove_graph_t *g)
{
    size_t per_v = sizeof(grovep_vertex_t) + 3 * sizeof(grove_eid_t)
                   + (!!g->next_type + !!g->next_name + !!g->next_rank) * sizeof(grove_vid_t);
    size_t b = sizeof(*g) + g->nv * per_v + g->ne * sizeof(grovep_edge_t)
               + g->nkv * sizeof(grovep_kv_t) + g->nrec * sizeof(grovep_rec_t)
               + g->headcap * sizeof(*g->heads)
               + (g->names ? g->vcap * sizeof(*g->names) : 0)
               + (g->pnames ? g->vcap * sizeof(*g->pnames) : 0)
               + (g->kvh ? g->vcap * sizeof(*g->kvh) : 0)
               + g->rec_idx.cap * sizeof(*g->rec_idx.slot)
               + 2 * g->chain_cap * sizeof(grovep_chain_t)
               + g->by_rank.cap * (sizeof(uint64_t) + sizeof(grovep_chain_t) + 1)
               + g->uuidx->cap * sizeof(*g->uuidx->slots)
               + (g->uuidx->u ? g->vcap * sizeof(*g->uuidx->u) : 0)
               + g->tailcap * sizeof(*g->tails)
               + g->nidnames * sizeof(*g->idnames) + g->idnames_len * sizeof(grove_sym_t);
    return b + grove_intern_bytes(g->strings);
}

GROVEP_GETTER(int64_t, grove_graph_now, grove_graph_t, now)

int grove_graph_set_now(grove_graph_t *g, int64_t now)
{
    if (!grove_time_ok(now)) {
        errno = EINVAL;
        return -1;
    }
    g->now = now;
    return 0;
}

GROVEP_GETTER(int64_t, grove_graph_expiration, grove_graph_t, expiration)

int grove_graph_set_expiration(grove_graph_t *g, int64_t t)
{
    if (!g || t < 0) {
        errno = EINVAL;
        return -1;
    }
    g->expiration = t;
    return 0;
}

/* ---- subsystems and relationships -------------------------------------- */

static int small_index(grove_sym_t *arr, size_t *n, grove_sym_t sym)
{
    for (size_t i = 0; i < *n; i++)
        if (arr[i] == sym)
            return (int)i;
    if (*n >= GROVEP_MAX_SMALL) {
        errno = EOVERFLOW;
        return -1;
    }
    arr[*n] = sym;
    return (int)(*n)++;
}

/* Subsystem / relationship index of a symbol, adding it if new; -1 with
 * EOVERFLOW past GROVEP_MAX_SMALL. */
static int subsys_index(grove_graph_t *g, grove_sym_t sym)
{
    int i = small_index(g->subsys, &g->nsubsys, sym);
    if (i >= 0 && sym == g->sym_containment)
        g->containment = (uint8_t)i;
    return i;
}

static int rel_index(grove_graph_t *g, grove_sym_t sym)
{
    return small_index(g->rels, &g->nrels, sym);
}

int grovep_subsys_find(const grove_graph_t *g, grove_sym_t sym)
{
    for (size_t i = 0; i < g->nsubsys; i++)
        if (g->subsys[i] == sym)
            return (int)i;
    return -1;
}

grove_sym_t grove_graph_subsystem_at(const grove_graph_t *g, size_t i)
{
    return i < g->nsubsys ? g->subsys[i] : GROVE_SYM_NONE;
}

/* ---- vertices ------------------------------------------------------------ */

void grove_vertex_info_init(grove_vertex_info_t *info)
{
    memset(info, 0, sizeof(*info));
    info->id = GROVE_ID_NONE;
    info->rank = GROVE_ID_NONE;
    info->size = 1;
}

/* The 16-byte uuid from its 36-char text form; 0 or -1 (EINVAL). */
static int uuid_parse(const char *text, uint8_t out[16])
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

static void uuid_format(const uint8_t u[16], char buf[37])
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

static int reserve_vertices(grove_graph_t *g, size_t need)
{
    if (need <= g->vcap) /* every per-vertex array has vcap slots */
        return 0;
    size_t cap = g->vcap; /* parallel arrays: all grow alike */
#define GROWV(field)                                                            \
    do {                                                                        \
        cap = g->vcap;                                                          \
        if (grovep_grow((void **)&g->field, &cap, need, sizeof(*g->field)) < 0) \
            return -1;                                                          \
    } while (0)
    GROWV(v);
    GROWV(first_out);
    GROWV(parent);
#undef GROWV
    /* the index chains' links, once made (chains_made) */
    grove_vid_t **links[] = {&g->next_type, &g->next_name, &g->next_rank};
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        size_t lcap = g->vcap;
        if (*links[i] && grovep_grow((void **)links[i], &lcap, need, sizeof(**links[i])) < 0)
            return -1;
    }
    size_t ncap = g->vcap; /* the own names, once one is */
    if (g->names && grovep_grow((void **)&g->names, &ncap, need, sizeof(*g->names)) < 0)
        return -1;
    size_t pcap = g->vcap; /* the path names, once one is */
    if (g->pnames && grovep_grow((void **)&g->pnames, &pcap, need, sizeof(*g->pnames)) < 0)
        return -1;
    size_t kcap = g->vcap; /* the heads of properties, once one is set: */
    if (g->kvh) {          /* none for the vertices to come */
        if (grovep_grow((void **)&g->kvh, &kcap, need, sizeof(*g->kvh)) < 0)
            return -1;
        memset(g->kvh + g->vcap, 0xff, (kcap - g->vcap) * sizeof(*g->kvh));
    }
    size_t ucap = g->vcap; /* the uuid index, once built, grows with them */
    struct grovep_uuidx *x = g->uuidx;
    if (x->u && grovep_grow((void **)&x->u, &ucap, need, sizeof(*x->u)) < 0)
        return -1;
    g->vcap = cap;
    return 0;
}

int grove_graph_reserve(grove_graph_t *g, size_t vertices, size_t edges)
{
    if (vertices && reserve_vertices(g, g->nv + vertices) < 0)
        return -1;
    return grovep_grow((void **)&g->e, &g->ecap, g->ne + edges, sizeof(*g->e));
}

static int reserve_chains(grove_graph_t *g, grove_sym_t sym)
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
static void chain_insert(grovep_chain_t *c, grove_vid_t *next, grove_vid_t v)
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

static void chain_remove(grovep_chain_t *c, grove_vid_t *next, grove_vid_t v)
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

/* Remember s as the default name of (basename, id), within the bound on
 * the tables' entries; a table that cannot grow is left as it was (the
 * name is then made again the next time). */
static void idnames_put(grove_graph_t *g, grove_sym_t base, uint64_t id, grove_sym_t s)
{
    int saved = errno;
    if (base >= g->nidnames) {
        size_t cap = g->nidnames;
        if (grovep_grow((void **)&g->idnames, &cap, (size_t)base + 1, sizeof(*g->idnames)) < 0)
            goto out;
        memset(g->idnames + g->nidnames, 0, (cap - g->nidnames) * sizeof(*g->idnames));
        g->nidnames = cap;
    }
    grovep_idnames_t *t = &g->idnames[base];
    if (id >= t->len) {
        size_t len = t->len ? 2 * (size_t)t->len : 16;
        while (len <= id)
            len *= 2;
        if (len > UINT32_MAX || g->idnames_len + (len - t->len) > GROVEP_IDNAMES_MIN + g->nv / 2)
            goto out;
        grove_sym_t *at = realloc(t->at, len * sizeof(*at));
        if (!at)
            goto out;
        memset(at + t->len, 0xff, (len - t->len) * sizeof(*at)); /* GROVE_SYM_NONE */
        g->idnames_len += len - t->len;
        t->at = at;
        t->len = (uint32_t)len;
    }
    t->at[id] = s;
out:
    errno = saved;
}

static void idnames_free(grove_graph_t *g)
{
    for (size_t i = 0; i < g->nidnames; i++)
        free(g->idnames[i].at);
    free(g->idnames);
    g->idnames = NULL;
    g->nidnames = g->idnames_len = 0;
}

/* basename + id: from the table of the basename's names, or built by hand
 * (snprintf was a tenth of the build time) and interned.  *kept: the
 * table holds it, where a vertex of that basename and id reads its name
 * (grovep_vertex_name); an id past 31 bits is never there. */
static grove_sym_t default_name(grove_graph_t *g, grove_sym_t basename, int64_t id,
                                bool *kept)
{
    *kept = true;
    if (id < 0)
        return basename;
    if (basename < g->nidnames && (uint64_t)id < g->idnames[basename].len
        && g->idnames[basename].at[id] != GROVE_SYM_NONE)
        return g->idnames[basename].at[id];
    const char *b = grove_intern_str(g->strings, basename);
    size_t bl = strlen(b);
    char digits[24], *d = digits + sizeof(digits);
    uint64_t x = (uint64_t)id;
    do {
        *--d = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    size_t dl = (size_t)(digits + sizeof(digits) - d);
    char stack[128];
    char *buf = bl + dl <= sizeof(stack) ? stack : malloc(bl + dl);
    if (!buf) {
        errno = ENOMEM;
        return GROVE_SYM_NONE;
    }
    memcpy(buf, b, bl);
    memcpy(buf + bl, d, dl);
    grove_sym_t s = grove_intern_n(g->strings, buf, bl + dl);
    if (buf != stack)
        free(buf);
    if (s != GROVE_SYM_NONE && id <= INT32_MAX)
        idnames_put(g, basename, (uint64_t)id, s);
    *kept = id <= INT32_MAX && basename < g->nidnames
            && (uint64_t)id < g->idnames[basename].len && g->idnames[basename].at[id] == s;
    return s;
}

/* Is name the default name of (basename, id): the basename's text
 * followed by the id in decimal (the basename alone with no id)? */
static bool spells_default(const grove_graph_t *g, const char *name, grove_sym_t basename,
                           int64_t id)
{
    if (id > INT32_MAX)
        return false;
    const char *b = grove_intern_str(g->strings, basename);
    size_t bl = strlen(b);
    if (strncmp(name, b, bl) != 0)
        return false;
    name += bl;
    if (id < 0)
        return !*name;
    char digits[24], *d = digits + sizeof(digits) - 1;
    *d = '\0';
    uint64_t x = (uint64_t)id;
    do {
        *--d = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    return !strcmp(name, d);
}

/* Is s the name vertex v would have by default, as g->idnames holds it?
 * (v's id and basename set.) */
static bool name_is_default(const grove_graph_t *g, const grovep_vertex_t *x, grove_sym_t s)
{
    if (x->id == GROVEP_ID_BIG)
        return false;
    if (x->id < 0)
        return s == x->basename;
    return x->basename < g->nidnames && (uint32_t)x->id < g->idnames[x->basename].len
           && g->idnames[x->basename].at[x->id] == s;
}

/* g->names made if it is not: 0, or -1 (ENOMEM). */
static int names_make(grove_graph_t *g)
{
    if (!g->names && !(g->names = malloc((g->vcap ? g->vcap : 1) * sizeof(*g->names)))) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int grovep_vertex_name_set(grove_graph_t *g, grove_vid_t v, grove_sym_t s)
{
    grovep_vertex_t *x = &g->v[v];
    if (name_is_default(g, x, s)) {
        x->flags &= (uint8_t)~GROVEP_V_NAMED;
        return 0;
    }
    if (names_make(g) < 0)
        return -1;
    g->names[v] = s;
    x->flags |= GROVEP_V_NAMED;
    return 0;
}

int grovep_vertex_pathname_set(grove_graph_t *g, grove_vid_t v, grove_sym_t s)
{
    grovep_vertex_t *x = &g->v[v];
    if (s == GROVE_SYM_NONE || s == grovep_vertex_name(g, v)) {
        x->flags &= (uint8_t)~GROVEP_V_PATHNAMED;
        return 0;
    }
    if (!g->pnames && !(g->pnames = malloc((g->vcap ? g->vcap : 1) * sizeof(*g->pnames)))) {
        errno = ENOMEM;
        return -1;
    }
    g->pnames[v] = s;
    x->flags |= GROVEP_V_PATHNAMED;
    return 0;
}

int64_t grovep_big_id(const grove_graph_t *g, grove_vid_t v)
{
    const grovep_chain_t *b = map_get(&g->big_ids, v);
    return b ? (int64_t)((uint64_t)b->tail << 32 | b->head) : GROVE_ID_NONE;
}

int64_t grovep_big_size(const grove_graph_t *g, grove_vid_t v)
{
    const grovep_chain_t *b = map_get(&g->big_ids, GROVEP_BIG_SIZE_KEY + v);
    return b ? (int64_t)((uint64_t)b->tail << 32 | b->head) : 0;
}

grove_eid_t grovep_far_opposite(const grove_graph_t *g, grove_eid_t e)
{
    const grovep_chain_t *b = map_get(&g->big_ids, GROVEP_FAR_OPP_KEY + e);
    return b ? b->head : GROVEP_NONE;
}

/* Room in g->big_ids for two more entries (the far opposites of a pair):
 * 0, or -1 (ENOMEM) with nothing changed. */
static int opp_room(grove_graph_t *g)
{
    grovep_map_t *m = &g->big_ids;
    size_t cap = m->cap ? m->cap : 64;
    while ((m->count + 2) * 2 > cap)
        cap *= 2;
    return cap == m->cap ? 0 : map_rehash(m, cap);
}

/* Make o the opposite of edge e (GROVEP_NONE: none).  A far one needs a
 * slot of g->big_ids: opp_room first. */
static void opp_set(grove_graph_t *g, grove_eid_t e, grove_eid_t o)
{
    if (g->e[e].opp == GROVEP_OPP_FAR)
        map_del(&g->big_ids, GROVEP_FAR_OPP_KEY + e);
    int64_t d = o == GROVEP_NONE ? 0 : (int64_t)o - (int64_t)e;
    if (d > GROVEP_OPP_FAR && d <= INT8_MAX) {
        g->e[e].opp = (int8_t)d;
        return;
    }
    grovep_chain_t *b = map_put(&g->big_ids, GROVEP_FAR_OPP_KEY + e); /* room made */
    b->head = o;
    g->e[e].opp = GROVEP_OPP_FAR;
}

/* Leave e and its opposite o with none. */
static void unpair(grove_graph_t *g, grove_eid_t e, grove_eid_t o)
{
    opp_set(g, o, GROVEP_NONE);
    opp_set(g, e, GROVEP_NONE);
}

/* Would o as the opposite of e take a slot of g->big_ids? */
static inline bool opp_far(grove_eid_t e, grove_eid_t o)
{
    int64_t d = (int64_t)o - (int64_t)e;
    return o != GROVEP_NONE && (d <= GROVEP_OPP_FAR || d > INT8_MAX);
}

int grovep_vertex_size_set(grove_graph_t *g, grove_vid_t v, int64_t size)
{
    if (size > INT32_MAX) {
        grovep_chain_t *b = map_put(&g->big_ids, GROVEP_BIG_SIZE_KEY + v);
        if (!b)
            return -1;
        *b = (grovep_chain_t){(uint32_t)size, (uint32_t)((uint64_t)size >> 32), 1};
        g->v[v].size = GROVEP_SIZE_BIG;
    } else {
        g->v[v].size = (int32_t)size;
    }
    return 0;
}

/* The index of unit in g->units, added if new: -1 with ENOMEM, or
 * EOVERFLOW past GROVEP_MAX_UNITS distinct units.  A graph has a few
 * (GB, W, ...): the last one found is tried first. */
static int unit_index(grove_graph_t *g, grove_sym_t unit)
{
    if (unit == GROVE_SYM_EMPTY)
        return 0;
    if (g->units[g->last_unit] == unit)
        return (int)g->last_unit;
    for (size_t i = 1; i < g->nunits; i++)
        if (g->units[i] == unit)
            return (int)(g->last_unit = i);
    if (g->nunits > GROVEP_MAX_UNITS) {
        errno = EOVERFLOW;
        return -1;
    }
    if (grovep_grow((void **)&g->units, &g->unitcap, g->nunits + 1, sizeof(*g->units)) < 0)
        return -1;
    g->units[g->nunits] = unit;
    return (int)(g->last_unit = g->nunits++);
}

/* Slots of g->recent. */
enum { RECENT_TYPE, RECENT_BASE };

/* The symbol of s if it is the string last interned through slot k, else
 * GROVE_SYM_NONE (nothing interned). */
static grove_sym_t recent_find(const grove_graph_t *g, int k, const char *s)
{
    const grovep_recent_t *r = &g->recent[k];
    return r->s && !strcmp(r->s, s) ? r->sym : GROVE_SYM_NONE;
}

/* The symbol of s, interned, and remembered in slot k; GROVE_SYM_NONE
 * with errno on failure. */
static grove_sym_t recent_intern(grove_graph_t *g, int k, const char *s)
{
    grove_sym_t sym = grove_intern(g->strings, s);
    if (sym != GROVE_SYM_NONE)
        g->recent[k] = (grovep_recent_t){grove_intern_str(g->strings, sym), sym};
    return sym;
}

/* grove_graph_add_vertex, with the type, basename and unit given as
 * symbols (syms[0..2]) or, with syms NULL, as info's strings, interned
 * here in that order. */
static grove_vid_t add_vertex(grove_graph_t *g, const grove_vertex_info_t *info,
                              const grove_sym_t *syms)
{
    if (!info
        || (syms ? syms[0] == GROVE_SYM_EMPTY : !info->type || !info->type[0])
        || info->size < 0 || info->id < -1 || info->rank < -1 || info->rank > GROVEP_RANK_MAX) {
        errno = EINVAL;
        return GROVE_VID_NONE;
    }
    uint8_t u[16];
    if (info->uuid) {
        if (uuid_parse(info->uuid, u) < 0)
            return GROVE_VID_NONE;
        if (uuid_build(g) < 0)
            return GROVE_VID_NONE;
        if (uuid_probe(g, u, NULL) != GROVE_VID_NONE) {
            errno = EEXIST;
            return GROVE_VID_NONE;
        }
    }
    /* names make up paths: one with a '/' would be written to a file that
     * reads back as another path, so it is refused here, at the door (the
     * basename last taken passed already: base_text NULL) */
    grove_sym_t type = GROVE_SYM_NONE, base, unit = GROVE_SYM_EMPTY;
    const char *base_text;
    if (syms) {
        base = syms[1];
        base_text = g->recent[RECENT_BASE].s && g->recent[RECENT_BASE].sym == base
                        ? NULL
                        : grove_intern_str(g->strings, base);
    } else {
        base_text = info->basename ? info->basename : info->type;
        base = recent_find(g, RECENT_BASE, base_text);
        if (base != GROVE_SYM_NONE)
            base_text = NULL;
    }
    if ((base_text && strchr(base_text, '/')) || (info->name && strchr(info->name, '/'))) {
        errno = EINVAL;
        return GROVE_VID_NONE;
    }
    if (g->nv >= GROVEP_NONE - 1) {
        errno = EOVERFLOW;
        return GROVE_VID_NONE;
    }
    if (syms) {
        type = syms[0];
        unit = syms[2];
        if (base_text)
            g->recent[RECENT_BASE] = (grovep_recent_t){base_text, base};
    } else {
        if (!info->basename) {
            type = base = base != GROVE_SYM_NONE ? base : recent_intern(g, RECENT_BASE, info->type);
        } else {
            type = recent_find(g, RECENT_TYPE, info->type);
            if (type == GROVE_SYM_NONE)
                type = recent_intern(g, RECENT_TYPE, info->type);
            if (type != GROVE_SYM_NONE && base == GROVE_SYM_NONE)
                base = recent_intern(g, RECENT_BASE, info->basename);
        }
        if (type != GROVE_SYM_NONE && base != GROVE_SYM_NONE && info->unit && info->unit[0])
            unit = grove_intern(g->strings, info->unit);
    }
    if (type == GROVE_SYM_NONE || base == GROVE_SYM_NONE || unit == GROVE_SYM_NONE)
        return GROVE_VID_NONE;
    /* a name given that is the default one (a JGF's "node17" of basename
     * "node" and id 17) is taken as the default, which the vertex then
     * need not keep (grovep_vertex_name) */
    bool own; /* a name of its own (not basename + id, as g->idnames has it) */
    grove_sym_t name;
    if (info->name && !spells_default(g, info->name, base, info->id)) {
        name = grove_intern(g->strings, info->name);
        own = true;
    } else {
        bool kept;
        name = default_name(g, base, info->id, &kept);
        own = !kept;
    }
    if (name == GROVE_SYM_NONE)
        return GROVE_VID_NONE;
    grove_vid_t v = (grove_vid_t)g->nv;
    int ui = unit_index(g, unit);
    if (ui < 0)
        return GROVE_VID_NONE;
    if (info->id > INT32_MAX) {
        grovep_chain_t *b = map_put(&g->big_ids, v);
        if (!b)
            return GROVE_VID_NONE;
        *b = (grovep_chain_t){(uint32_t)info->id, (uint32_t)((uint64_t)info->id >> 32), 1};
    }
    if (info->size > INT32_MAX) {
        grovep_chain_t *b = map_put(&g->big_ids, GROVEP_BIG_SIZE_KEY + v);
        if (!b)
            return GROVE_VID_NONE;
        *b = (grovep_chain_t){(uint32_t)info->size, (uint32_t)((uint64_t)info->size >> 32), 1};
    }
    if (reserve_vertices(g, g->nv + 1) < 0
        || ((type >= g->chain_cap || name >= g->chain_cap)
            && (reserve_chains(g, type) < 0 || reserve_chains(g, name) < 0)))
        return GROVE_VID_NONE;
    if (g->uuidx->built && uuid_reserve(g->uuidx, 1) < 0)
        return GROVE_VID_NONE;
    if (!info->uuid && g->uuidx->u)
        uuid_generate(g, u); /* else its uuid is uuid_keyed's */
    /* a name of its own: room for it first, so that nothing below fails */
    if (own && names_make(g) < 0)
        return GROVE_VID_NONE;
    grovep_chain_t *rc = NULL;
    if (g->next_rank && info->rank >= 0 && !(rc = map_put(&g->by_rank, (uint64_t)info->rank)))
        return GROVE_VID_NONE;
    if (g->uuidx->built)
        uuid_insert(g, u, v);
    g->v[v] = (grovep_vertex_t){
        .type = type,
        .basename = base,
        .unit = (uint16_t)ui,
        .id = info->id > INT32_MAX ? GROVEP_ID_BIG : (int32_t)info->id,
        .rank = (int32_t)info->rank,
        .size = info->size > INT32_MAX ? GROVEP_SIZE_BIG : (int32_t)info->size,
        .held = GROVEP_NONE,
        .status = GROVE_STATUS_UP,
        .flags = own ? GROVEP_V_NAMED : 0,
    };
    if (own)
        g->names[v] = name;
    if (g->uuidx->u)
        memcpy(g->uuidx->u[v], u, 16);
    g->first_out[v] = GROVEP_NONE;
    g->parent[v] = GROVEP_NONE;
    g->nv++;
    g->nlive++;
    if (g->next_type) {
        chain_insert(&g->by_type[type], g->next_type, v);
    } else { /* the head without the links: chain_first's first vertex */
        grovep_chain_t *tc = &g->by_type[type];
        if (tc->head == GROVEP_NONE)
            tc->head = v;
        tc->count++;
    }
    if (g->next_name)
        chain_insert(&g->by_name[name], g->next_name, v);
    else
        g->by_name[name].count++;
    if (rc)
        chain_insert(rc, g->next_rank, v);
    else if (g->next_rank)
        g->next_rank[v] = GROVEP_NONE;
    return v;
}

grove_vid_t grove_graph_add_vertex(grove_graph_t *g, const grove_vertex_info_t *info)
{
    return add_vertex(g, info, NULL);
}

grove_vid_t grovep_add_vertex_sym(grove_graph_t *g, const grove_vertex_info_t *info,
                                  grove_sym_t type, grove_sym_t basename, grove_sym_t unit)
{
    const grove_sym_t syms[3] = {type, basename, unit};
    return add_vertex(g, info, syms);
}

grove_sym_t grove_vertex_type_sym(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? g->v[v].type : GROVE_SYM_NONE;
}

grove_sym_t grove_vertex_basename_sym(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? g->v[v].basename : GROVE_SYM_NONE;
}

grove_sym_t grove_vertex_name_sym(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grovep_vertex_name(g, v) : GROVE_SYM_NONE;
}

grove_sym_t grove_vertex_unit_sym(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grovep_vertex_unit(g, v) : GROVE_SYM_NONE;
}

const char *grove_vertex_type(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grove_intern_str(g->strings, g->v[v].type) : NULL;
}

const char *grove_vertex_basename(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grove_intern_str(g->strings, g->v[v].basename) : NULL;
}

const char *grove_vertex_name(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grove_intern_str(g->strings, grovep_vertex_name(g, v)) : NULL;
}

const char *grove_vertex_unit(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grove_intern_str(g->strings, grovep_vertex_unit(g, v)) : NULL;
}

int64_t grove_vertex_id(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grovep_vertex_id(g, v) : GROVE_ID_NONE;
}

int64_t grove_vertex_rank(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? g->v[v].rank : GROVE_ID_NONE;
}

int64_t grove_vertex_size(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grovep_vertex_size(g, v) : 0;
}

void grove_vertex_uuid(const grove_graph_t *g, grove_vid_t v, char buf[37])
{
    uint8_t u[16];
    if (v < g->nv) {
        uuid_get(g, v, u);
        uuid_format(u, buf);
    } else {
        buf[0] = '\0';
    }
}

int grove_vertex_set_rank(grove_graph_t *g, grove_vid_t v, int64_t rank)
{
    GROVEP_VCHECK(g, v, -1);
    if (rank < -1 || rank > GROVEP_RANK_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (g->v[v].rank == rank)
        return 0;
    if (!g->next_rank) { /* no index to keep */
        g->v[v].rank = (int32_t)rank;
        return 0;
    }
    grovep_chain_t *nc = NULL;
    if (rank >= 0 && !(nc = map_put(&g->by_rank, (uint64_t)rank)))
        return -1;
    if (g->v[v].rank >= 0) {
        grovep_chain_t *oc = map_get(&g->by_rank, (uint64_t)g->v[v].rank);
        if (oc) {
            chain_remove(oc, g->next_rank, v);
            if (oc->count == 0 && oc->head == GROVEP_NONE) {
                map_del(&g->by_rank, (uint64_t)g->v[v].rank);
                if (rank >= 0) /* the delete may have moved the new chain */
                    nc = map_get(&g->by_rank, (uint64_t)rank);
            }
        }
    }
    g->v[v].rank = (int32_t)rank;
    if (nc)
        chain_insert(nc, g->next_rank, v);
    return 0;
}

int grove_vertex_set_name(grove_graph_t *g, grove_vid_t v, const char *name)
{
    GROVEP_VCHECK(g, v, -1);
    if (!name) {
        errno = EINVAL;
        return -1;
    }
    grove_sym_t s = grove_intern(g->strings, name);
    if (s == GROVE_SYM_NONE || reserve_chains(g, s) < 0)
        return -1;
    grove_sym_t old = grovep_vertex_name(g, v);
    if (s == old)
        return 0;
    if (grovep_vertex_name_set(g, v, s) < 0)
        return -1;
    if (g->next_name) {
        chain_remove(&g->by_name[old], g->next_name, v);
        chain_insert(&g->by_name[s], g->next_name, v);
    } else {
        g->by_name[old].count--;
        g->by_name[s].count++;
    }
    return 0;
}

grove_status_t grove_vertex_status(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? (grove_status_t)g->v[v].status : GROVE_STATUS_UNKNOWN;
}

int grove_vertex_set_status(grove_graph_t *g, grove_vid_t v, grove_status_t s)
{
    GROVEP_VCHECK(g, v, -1);
    if ((unsigned)s >= GROVE_STATUS_COUNT) {
        errno = EINVAL;
        return -1;
    }
    if (g->v[v].status != (uint8_t)s)
        g->status_gen++;
    g->v[v].status = (uint8_t)s;
    return 0;
}

/* ---- edges --------------------------------------------------------------- */

/* The tails of long out-lists.  Edges are appended to a vertex's
 * out-list; a list shorter than GROVEP_TAIL_WALK is walked to its tail
 * (a core's, a node's), and a vertex whose list grows to that length (a
 * socket, a rack) keeps its tail in g->tails: open addressing on 8-byte
 * slots, (vertex + 1) << 32 | tail edge (GROVEP_NONE once the list is
 * empty again), 0 when empty, at most half full; the vertex's flag
 * GROVEP_V_TAIL says it has one.  A slot is never dropped.  In place of a tail per vertex: 4 bytes a vertex. */

static uint64_t tail_key(grove_vid_t v)
{
    return (uint64_t)(v + 1) << 32;
}

static uint64_t *tails_find(const grove_graph_t *cg, grove_vid_t v)
{
    if (!(cg->v[v].flags & GROVEP_V_TAIL))
        return NULL;
    /* the slot found last, tried first (a socket's cores come in a run):
     * a cache, so the graph as its functions show it does not change */
    grove_graph_t *g = (grove_graph_t *)(uintptr_t)cg;
    size_t mask = g->tailcap - 1;
    if ((g->tails[g->tail_hit & mask] >> 32) == (uint64_t)v + 1)
        return &g->tails[g->tail_hit & mask];
    for (size_t j = mix64(v) & mask; g->tails[j]; j = (j + 1) & mask)
        if ((g->tails[j] >> 32) == (uint64_t)v + 1) {
            g->tail_hit = j;
            return &g->tails[j];
        }
    return NULL;
}

/* Room for one more slot.  0 or -1 (ENOMEM), the table unchanged. */
static int tails_room(grove_graph_t *g)
{
    if ((g->ntails + 1) * 2 <= g->tailcap)
        return 0;
    size_t cap = g->tailcap ? 2 * g->tailcap : 256;
    uint64_t *t = calloc(cap, sizeof(*t));
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < g->tailcap; i++) {
        uint64_t s = g->tails[i];
        if (!s)
            continue;
        size_t j = mix64((s >> 32) - 1) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = s;
    }
    free(g->tails);
    g->tails = t;
    g->tailcap = cap;
    return 0;
}

/* Keep e as the tail of v, which has no slot yet (after tails_room). */
static void tails_put(grove_graph_t *g, grove_vid_t v, grove_eid_t e)
{
    size_t mask = g->tailcap - 1, j = mix64(v) & mask;
    while (g->tails[j])
        j = (j + 1) & mask;
    g->tails[j] = tail_key(v) | e;
    g->ntails++;
    g->v[v].flags |= GROVEP_V_TAIL;
}

/* The last edge of v's out-list, or GROVEP_NONE; *slot (if asked) gets
 * v's slot in g->tails or NULL, and *n (if asked) the length of the list
 * when it was walked (0 with a slot). */
static grove_eid_t out_last(const grove_graph_t *g, grove_vid_t v, uint64_t **slot, size_t *n)
{
    uint64_t *ts = tails_find(g, v);
    if (slot)
        *slot = ts;
    if (n)
        *n = 0;
    if (ts)
        return (grove_eid_t)*ts;
    grove_eid_t last = GROVEP_NONE;
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
        last = e;
        if (n)
            ++*n;
    }
    return last;
}

static bool rel_is_up(const grove_graph_t *g, grove_sym_t rel)
{
    return rel == g->sym_in;
}

/* The downward in-edge of v in subsystem index sub, or GROVEP_NONE. */
static grove_eid_t down_in_edge(const grove_graph_t *g, grove_vid_t v, int sub)
{
    for (grove_eid_t e = grovep_in_first(g, v); e != GROVEP_NONE; e = grovep_in_next(g, e))
        if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP))
            return e;
    return GROVEP_NONE;
}

/* An edge src -> dst in subsystem sub, not up/down as asked, or NONE. */
static grove_eid_t find_edge(const grove_graph_t *g, grove_vid_t src, grove_vid_t dst, int sub,
                             int want_up)
{
    /* In containment at most one unpaired downward edge joins two vertices
     * (a vertex has one parent), and when it exists it is usually the last
     * edge added from src (add_child, or a JGF file listing each "in" edge
     * after its "contains" edge): look there before scanning every child
     * of src.  A vertex just made (a "contains" edge's child) has no
     * edge out at all. */
    if (g->first_out[src] == GROVEP_NONE)
        return GROVEP_NONE;
    grove_eid_t last = out_last(g, src, NULL, NULL);
    if (!want_up && last != GROVEP_NONE && g->subsys[sub] == g->sym_containment
        && g->e[last].dst == dst && g->e[last].sub == sub
        && !(g->e[last].flags & GROVEP_E_UP) && g->e[last].opp == 0)
        return last;
    for (grove_eid_t e = g->first_out[src]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].dst == dst && g->e[e].sub == sub
            && !!(g->e[e].flags & GROVEP_E_UP) == want_up
            && g->e[e].opp == 0)
            return e;
    return GROVEP_NONE;
}

static grove_eid_t add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                            grove_error_t *err);

static void edge_kill(grove_graph_t *g, grove_eid_t e, grove_vid_t src);

/* ---- the in-lists of the edges with no opposite (g->pend, g->uin_*) ---- */

/* Make g->uin_first cover vertex v and g->uin_next, g->uin_src edge x:
 * 0, or -1 (ENOMEM) with nothing changed. */
static int uin_cover(grove_graph_t *g, grove_vid_t v, grove_eid_t x)
{
    size_t cap = g->uin_nv;
    if (v >= cap) {
        if (grovep_grow((void **)&g->uin_first, &cap, (size_t)v + 1, sizeof(*g->uin_first)) < 0)
            return -1;
        for (size_t i = g->uin_nv; i < cap; i++)
            g->uin_first[i] = GROVEP_NONE;
        g->uin_nv = cap;
    }
    cap = g->uin_ne;
    if (x >= cap) {
        size_t scap = g->uin_ne;
        if (grovep_grow((void **)&g->uin_src, &scap, (size_t)x + 1, sizeof(*g->uin_src)) < 0
            || grovep_grow((void **)&g->uin_next, &cap, scap, sizeof(*g->uin_next)) < 0)
            return -1; /* uin_src larger, harmless */
        for (size_t i = g->uin_ne; i < scap; i++)
            g->uin_next[i] = g->uin_src[i] = GROVEP_NONE;
        g->uin_ne = scap;
    }
    return 0;
}

/* Room for one more edge with no opposite: g->pend moved to the head of
 * its destination's list.  0, or -1 (ENOMEM) with nothing changed. */
static int uin_room_slow(grove_graph_t *g)
{
    grove_eid_t x = g->pend;
    grove_vid_t v = g->e[x].dst;
    if (uin_cover(g, v, x) < 0)
        return -1;
    g->uin_next[x] = g->uin_first[v];
    g->uin_first[v] = x;
    g->uin_src[x] = g->pend_src;
    g->pend = GROVEP_NONE;
    return 0;
}

static inline int uin_room(grove_graph_t *g)
{
    return g->pend == GROVEP_NONE ? 0 : uin_room_slow(g);
}

/* Live edge x, from src, has no opposite now: it becomes g->pend
 * (uin_room first). */
static inline void uin_add(grove_graph_t *g, grove_eid_t x, grove_vid_t src)
{
    g->pend = x;
    g->pend_src = src;
}

/* Take live edge x, with no opposite, out of g->pend or its list: it is
 * about to have one, or to go. */
static void uin_take_slow(grove_graph_t *g, grove_eid_t x)
{
    grove_eid_t *p = &g->uin_first[g->e[x].dst];
    while (*p != x)
        p = &g->uin_next[*p];
    *p = g->uin_next[x];
}

static inline void uin_take(grove_graph_t *g, grove_eid_t x)
{
    if (x == g->pend)
        g->pend = GROVEP_NONE;
    else
        uin_take_slow(g, x);
}

grove_eid_t grove_graph_add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                                 const char *subsystem, const char *rel, grove_error_t *err)
{
    return grovep_add_edge(g, src, dst, subsystem, rel, -1, err);
}

/* Are src and dst two live vertices, not one?  Else false with EINVAL and
 * err filled. */
static bool ends_ok(const grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                    grove_error_t *err)
{
    if (!grovep_alive(g, src) || !grovep_alive(g, dst)) {
        grove_error_set(err, NULL, 0, "edge %u -> %u: no such vertex", src, dst);
        errno = EINVAL;
        return false;
    }
    if (src == dst) {
        grove_error_set(err, NULL, 0, "edge %u -> %u: a vertex cannot be its own neighbour",
                        src, dst);
        errno = EINVAL;
        return false;
    }
    return true;
}

grove_eid_t grovep_add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            const char *subsystem, const char *rel, int up_flag,
                            grove_error_t *err)
{
    if (!ends_ok(g, src, dst, err))
        return GROVE_EID_NONE;
    /* the well-known names without hashing them */
    grove_sym_t ssym = !subsystem || !strcmp(subsystem, GROVE_CONTAINMENT)
                           ? g->sym_containment
                           : grove_intern(g->strings, subsystem);
    grove_sym_t rsym = !rel || !strcmp(rel, GROVE_CONTAINS) ? g->sym_contains
                       : !strcmp(rel, GROVE_IN)             ? g->sym_in
                                                            : grove_intern(g->strings, rel);
    if (ssym == GROVE_SYM_NONE || rsym == GROVE_SYM_NONE)
        return GROVE_EID_NONE;
    return add_edge(g, src, dst, ssym, rsym, up_flag, err);
}

grove_eid_t grovep_add_edge_sym(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                                grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                                grove_error_t *err)
{
    if (!ends_ok(g, src, dst, err))
        return GROVE_EID_NONE;
    return add_edge(g, src, dst, ssym, rsym, up_flag, err);
}

/* The rest of an edge's making, once its ends are checked and its names
 * are symbols. */
static grove_eid_t add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                            grove_error_t *err)
{
    bool up = up_flag < 0 ? rel_is_up(g, rsym) : up_flag > 0;
    size_t nsub_before = g->nsubsys, nrel_before = g->nrels;
    int sub = ssym == g->sym_containment && g->containment != 0xff ? g->containment
                                                                    : subsys_index(g, ssym);
    int ri = sub < 0 ? -1 : rel_index(g, rsym);
    if (sub < 0 || ri < 0) {
        grove_error_set(err, NULL, 0, "too many subsystems or relationships (at most %d)",
                        GROVEP_MAX_SMALL);
        g->nsubsys = nsub_before;
        g->nrels = nrel_before;
        return GROVE_EID_NONE;
    }
    /* containment is a tree of "contains" edges; a downward containment edge
     * of another relationship links a vertex into a second hierarchy (a
     * storage unit shared by two levels) without making it its parent */
    bool primary = ssym == g->sym_containment && !up && rsym == g->sym_contains;
    if (ssym == g->sym_containment && !up) {
        if (primary && g->parent[dst] != GROVEP_NONE) {
            grove_error_set(err, NULL, 0,
                            "vertex %s (%u) would have two containment parents (%s and %s)",
                            grove_vertex_name(g, dst), dst,
                            grove_vertex_name(g, g->parent[dst]), grove_vertex_name(g, src));
            errno = EINVAL;
            goto undo;
        }
        /* dst with no edge out has no child: it cannot be above src (so
         * building a tree top-down never walks up a deep chain) */
        for (grove_vid_t a = g->first_out[dst] == GROVEP_NONE ? GROVEP_NONE : src;
             a != GROVEP_NONE; a = g->parent[a]) {
            if (a == dst) {
                grove_error_set(err, NULL, 0,
                                "edge %s (%u) -> %s (%u) would make a containment cycle",
                                grove_vertex_name(g, src), src, grove_vertex_name(g, dst),
                                dst);
                errno = EINVAL;
                goto undo;
            }
        }
    }
    /* the tail of src's out-list, and room to keep it once the list is
     * long; an unpaired edge in the other direction to pair with (it has
     * none: nothing of it to drop from g->big_ids), or room to keep the
     * new edge with no opposite */
    size_t nout;
    uint64_t *ts;
    grove_eid_t last = out_last(g, src, &ts, &nout);
    bool track = !ts && nout + 1 >= GROVEP_TAIL_WALK;
    /* a pair's second edge: its first is g->pend and the last edge made,
     * so the last of dst's out-list, where find_edge would look first */
    grove_eid_t o = g->pend;
    if (!(up && o != GROVEP_NONE && (size_t)o + 1 == g->ne && g->pend_src == dst
          && g->e[o].dst == src && g->e[o].sub == sub && !(g->e[o].flags & GROVEP_E_UP)
          && g->subsys[sub] == g->sym_containment))
        o = find_edge(g, dst, src, sub, !up);
    if ((track && tails_room(g) < 0)
        || (o == GROVEP_NONE ? uin_room(g) : opp_far((grove_eid_t)g->ne, o) ? opp_room(g) : 0)
               < 0
        || grovep_grow((void **)&g->e, &g->ecap, g->ne + 1, sizeof(*g->e)) < 0)
        goto undo;
    grove_eid_t e = (grove_eid_t)g->ne++;
    g->e[e] = (grovep_edge_t){
        .dst = dst,
        .next_out = GROVEP_NONE,
        .sub = (uint8_t)sub,
        .rel = (uint8_t)ri,
        .flags = up ? GROVEP_E_UP : 0,
        .opp = 0,
    };
    if (last == GROVEP_NONE)
        g->first_out[src] = e;
    else
        g->e[last].next_out = e;
    if (ts)
        *ts = tail_key(src) | e;
    else if (track)
        tails_put(g, src, e);
    g->nlive_e++;
    if (primary) {
        g->parent[dst] = src;
        g->agg_dirty = true;
    }
    if (o == GROVEP_NONE) {
        uin_add(g, e, src);
    } else {
        uin_take(g, o);
        if (!opp_far(e, o)) {
            g->e[o].opp = (int8_t)((int64_t)e - (int64_t)o);
            g->e[e].opp = (int8_t)((int64_t)o - (int64_t)e);
        } else { /* room made */
            opp_set(g, o, e);
            opp_set(g, e, o);
        }
    }
    return e;
undo:
    g->nsubsys = nsub_before;
    g->nrels = nrel_before;
    if (g->containment >= g->nsubsys)
        g->containment = 0xff;
    return GROVE_EID_NONE;
}

int grove_graph_add_child(grove_graph_t *g, grove_vid_t parent, grove_vid_t child,
                          const char *subsystem, grove_error_t *err)
{
    /* d may pair with an "in" edge made before, which is left with no
     * opposite again if u cannot be made: g->pend empty to take it */
    if (uin_room(g) < 0)
        return -1;
    grove_eid_t d = grove_graph_add_edge(g, parent, child, subsystem, GROVE_CONTAINS, err);
    if (d == GROVE_EID_NONE)
        return -1;
    grove_eid_t u = grove_graph_add_edge(g, child, parent, subsystem, GROVE_IN, err);
    if (u == GROVE_EID_NONE) {
        grove_eid_t o = grovep_edge_opposite(g, d);
        if (o == GROVEP_NONE) {
            grovep_edge_remove(g, d);
        } else {
            unpair(g, d, o);
            edge_kill(g, d, parent);
            uin_add(g, o, child); /* g->pend: d's making left it empty */
        }
        return -1;
    }
    return 0;
}

int grove_graph_set_opposite(grove_graph_t *g, grove_eid_t a, grove_eid_t b)
{
    if (!grove_graph_has_edge(g, a) || !grove_graph_has_edge(g, b) || a == b
        || grovep_edge_src(g, a) != g->e[b].dst || g->e[a].dst != grovep_edge_src(g, b)
        || g->e[a].sub != g->e[b].sub) {
        errno = EINVAL;
        return -1;
    }
    grove_eid_t oa = grovep_edge_opposite(g, a), ob = grovep_edge_opposite(g, b);
    /* a's and b's opposites of now, if not each other, are left with
     * none: room in the in-lists for both, when there is no pend */
    bool lose_a = oa != GROVEP_NONE && oa != b, lose_b = ob != GROVEP_NONE && ob != a;
    if ((opp_far(a, b) && opp_room(g) < 0)
        || ((lose_a || lose_b)
            && (uin_cover(g, (grove_vid_t)g->nv - 1, (grove_eid_t)g->ne - 1) < 0
                || uin_room(g) < 0)))
        return -1;
    grove_eid_t upe = g->rels[g->e[a].rel] == g->sym_in ? a : b;
    g->agg_dirty = true;
    grove_eid_t down = upe == a ? b : a;
    if (oa == GROVEP_NONE)
        uin_take(g, a);
    if (ob == GROVEP_NONE)
        uin_take(g, b);
    if (oa != GROVEP_NONE)
        opp_set(g, oa, GROVEP_NONE);
    if (ob != GROVEP_NONE)
        opp_set(g, ob, GROVEP_NONE);
    opp_set(g, a, b);
    opp_set(g, b, a);
    /* the arrays cover every vertex and edge: the first left with none is
     * g->pend (empty now), the second goes to its list */
    if (lose_a)
        uin_add(g, oa, g->e[a].dst);
    if (lose_b) {
        if (lose_a)
            (void)uin_room(g); /* covered: cannot fail */
        uin_add(g, ob, g->e[b].dst);
    }
    bool containment = g->subsys[g->e[a].sub] == g->sym_containment;
    if (!(g->e[upe].flags & GROVEP_E_UP)) {
        g->e[upe].flags |= GROVEP_E_UP;
        if (containment && g->parent[g->e[upe].dst] == g->e[down].dst)
            g->parent[g->e[upe].dst] = GROVEP_NONE;
    }
    if (g->e[down].flags & GROVEP_E_UP) {
        g->e[down].flags &= (uint8_t)~GROVEP_E_UP;
        if (containment)
            g->parent[g->e[down].dst] = g->e[upe].dst;
    }
    return 0;
}

/* Take e out of the out-list starting at *head.  The edge before it, or
 * GROVEP_NONE when e was first. */
static grove_eid_t list_unlink(grove_graph_t *g, grove_eid_t *head, grove_eid_t e)
{
    grove_eid_t prev = GROVEP_NONE;
    for (grove_eid_t x = *head; x != GROVEP_NONE; prev = x, x = g->e[x].next_out)
        if (x == e) {
            *(prev == GROVEP_NONE ? head : &g->e[prev].next_out) = g->e[e].next_out;
            break;
        }
    return prev;
}

/* Remove live edge e, whose opposite is gone or going too. */
/* Remove live edge e from src, with no opposite now (or its opposite is
 * going too); it keeps its source in next_out. */
static void edge_kill(grove_graph_t *g, grove_eid_t e, grove_vid_t src)
{
    grovep_edge_t *ed = &g->e[e];
    grove_eid_t prev = list_unlink(g, &g->first_out[src], e);
    uint64_t *ts = tails_find(g, src);
    if (ts && (grove_eid_t)*ts == e)
        *ts = tail_key(src) | prev;
    if (g->subsys[ed->sub] == g->sym_containment && !(ed->flags & GROVEP_E_UP)
        && g->parent[ed->dst] == src) {
        g->parent[ed->dst] = GROVEP_NONE;
        g->agg_dirty = true;
    }
    ed->flags |= GROVEP_E_DEAD;
    ed->next_out = src;
    g->nlive_e--;
}

void grovep_edge_remove(grove_graph_t *g, grove_eid_t e)
{
    if (g->e[e].flags & GROVEP_E_DEAD)
        return;
    grove_eid_t o = grovep_edge_opposite(g, e);
    grove_vid_t src = grovep_edge_src(g, e);
    if (o == GROVEP_NONE) {
        uin_take(g, e);
    } else {
        unpair(g, e, o);
        edge_kill(g, o, g->e[e].dst);
    }
    edge_kill(g, e, src);
}

grove_vid_t grove_edge_src(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? grovep_edge_src(g, e) : GROVE_VID_NONE;
}

grove_vid_t grove_edge_dst(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? g->e[e].dst : GROVE_VID_NONE;
}

grove_sym_t grove_edge_subsystem(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? g->subsys[g->e[e].sub] : GROVE_SYM_NONE;
}

grove_sym_t grove_edge_relation(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? g->rels[g->e[e].rel] : GROVE_SYM_NONE;
}

grove_eid_t grove_edge_opposite(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? grovep_edge_opposite(g, e) : GROVE_EID_NONE;
}

bool grove_edge_is_up(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && (g->e[e].flags & GROVEP_E_UP);
}

grove_eid_t grove_vertex_first_out(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? g->first_out[v] : GROVE_EID_NONE;
}

grove_eid_t grove_edge_next_out(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && !(g->e[e].flags & GROVEP_E_DEAD) ? g->e[e].next_out : GROVE_EID_NONE;
}

grove_eid_t grove_vertex_first_in(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grovep_in_first(g, v) : GROVE_EID_NONE;
}

grove_eid_t grove_edge_next_in(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && !(g->e[e].flags & GROVEP_E_DEAD) ? grovep_in_next(g, e) : GROVE_EID_NONE;
}

grove_vid_t grove_vertex_parent(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem)
{
    if (!grovep_alive(g, v))
        return GROVE_VID_NONE;
    if (subsystem == g->sym_containment)
        return g->parent[v];
    int sub = grovep_subsys_find(g, subsystem);
    if (sub < 0)
        return GROVE_VID_NONE;
    grove_eid_t e = down_in_edge(g, v, sub);
    return e == GROVEP_NONE ? GROVE_VID_NONE : grovep_edge_src(g, e);
}

static grove_vid_t next_child_from(const grove_graph_t *g, int sub, grove_eid_t e,
                                   grove_eid_t *cursor)
{
    for (; e != GROVEP_NONE; e = g->e[e].next_out) {
        if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP)) {
            *cursor = e;
            return g->e[e].dst;
        }
    }
    *cursor = GROVEP_NONE;
    return GROVE_VID_NONE;
}

grove_vid_t grove_vertex_first_child(const grove_graph_t *g, grove_vid_t v,
                                     grove_sym_t subsystem, grove_eid_t *cursor)
{
    int sub = grovep_subsys_find(g, subsystem);
    if (sub < 0 || !grovep_alive(g, v)) {
        *cursor = GROVEP_NONE;
        return GROVE_VID_NONE;
    }
    return next_child_from(g, sub, g->first_out[v], cursor);
}

grove_vid_t grove_vertex_next_child(const grove_graph_t *g, grove_sym_t subsystem,
                                    grove_eid_t *cursor)
{
    (void)subsystem; /* the cursor's edge already names it */
    if (*cursor == GROVEP_NONE || *cursor >= g->ne)
        return GROVE_VID_NONE;
    return next_child_from(g, g->e[*cursor].sub, g->e[*cursor].next_out, cursor);
}

static bool has_down_out(const grove_graph_t *g, grove_vid_t v, int sub)
{
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP))
            return true;
    return false;
}

grove_vid_t grove_graph_root(const grove_graph_t *g, grove_sym_t subsystem, size_t i)
{
    int sub = grovep_subsys_find(g, subsystem);
    bool containment = subsystem == g->sym_containment;
    if (sub < 0) {
        /* no edges at all: a lone vertex is the containment root */
        if (containment || subsystem == grove_intern_lookup(g->strings, GROVE_CONTAINMENT)) {
            for (grove_vid_t v = 0; v < g->nv; v++)
                if (grovep_alive(g, v) && i-- == 0)
                    return v;
        }
        return GROVE_VID_NONE;
    }
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v))
            continue;
        bool root;
        if (containment)
            root = g->parent[v] == GROVEP_NONE
                   && (has_down_out(g, v, sub) || g->nlive == 1);
        else
            root = down_in_edge(g, v, sub) == GROVEP_NONE && has_down_out(g, v, sub);
        if (root && i-- == 0)
            return v;
    }
    return GROVE_VID_NONE;
}

int grove_vertex_depth(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem)
{
    int d = 0;
    for (grove_vid_t p = grove_vertex_parent(g, v, subsystem); p != GROVE_VID_NONE;
         p = grove_vertex_parent(g, p, subsystem)) {
        if (++d > (int)g->nv)
            return -1; /* a cycle in a non-tree subsystem */
    }
    return d;
}

/* Is v part of subsystem at all (has an edge of it)? */
static bool in_subsystem(const grove_graph_t *g, grove_vid_t v, int sub)
{
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].sub == sub)
            return true;
    for (grove_eid_t e = grovep_in_first(g, v); e != GROVEP_NONE; e = grovep_in_next(g, e))
        if (g->e[e].sub == sub)
            return true;
    return false;
}

int grove_vertex_path(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                      size_t len)
{
    if (!grovep_alive(g, v)) {
        errno = ENOENT;
        return -1;
    }
    int sub = grovep_subsys_find(g, subsystem);
    bool lone = subsystem == g->sym_containment && g->nlive == 1;
    if (!lone && (sub < 0 || !in_subsystem(g, v, sub))) {
        errno = ENOENT;
        return -1;
    }
    /* collect the chain root..v, bounded against cycles */
    grove_vid_t stackbuf[64];
    grove_vid_t *chain = stackbuf;
    size_t n = 0, cap = 64;
    for (grove_vid_t p = v; p != GROVE_VID_NONE; p = grove_vertex_parent(g, p, subsystem)) {
        if (n == cap) {
            if (n > g->nv)
                break;
            grove_vid_t *bigger = malloc(cap * 2 * sizeof(*bigger));
            if (!bigger) {
                if (chain != stackbuf)
                    free(chain);
                errno = ENOMEM;
                return -1;
            }
            memcpy(bigger, chain, n * sizeof(*chain));
            if (chain != stackbuf)
                free(chain);
            chain = bigger;
            cap *= 2;
        }
        chain[n++] = p;
    }
    size_t need = 0;
    for (size_t i = n; i-- > 0;) {
        const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, chain[i]));
        size_t l = strlen(name);
        if (buf && need + 1 < len) {
            buf[need] = '/';
            size_t room = len - need - 2;
            memcpy(buf + need + 1, name, l < room ? l : room);
        }
        need += 1 + l;
    }
    if (buf && len)
        buf[need < len ? need : len - 1] = '\0';
    if (chain != stackbuf)
        free(chain);
    return (int)need;
}

/* ---- look-ups -------------------------------------------------------------- */

grove_vid_t grove_graph_find_path(const grove_graph_t *g, grove_sym_t subsystem,
                                  const char *path)
{
    if (!path || path[0] != '/') {
        errno = ENOENT;
        return GROVE_VID_NONE;
    }
    const char *p = path + 1;
    const char *slash = strchr(p, '/');
    size_t l = slash ? (size_t)(slash - p) : strlen(p);
    grove_vid_t cur = GROVE_VID_NONE;
    for (size_t i = 0;; i++) {
        grove_vid_t r = grove_graph_root(g, subsystem, i);
        if (r == GROVE_VID_NONE)
            break;
        const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, r));
        if (strlen(name) == l && !memcmp(name, p, l)) {
            cur = r;
            break;
        }
    }
    while (cur != GROVE_VID_NONE && slash) {
        p = slash + 1;
        slash = strchr(p, '/');
        l = slash ? (size_t)(slash - p) : strlen(p);
        if (l == 0 && !slash)
            break; /* trailing slash */
        grove_eid_t cursor;
        grove_vid_t c = grove_vertex_first_child(g, cur, subsystem, &cursor);
        cur = GROVE_VID_NONE;
        for (; c != GROVE_VID_NONE; c = grove_vertex_next_child(g, subsystem, &cursor)) {
            const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, c));
            if (strlen(name) == l && !memcmp(name, p, l)) {
                cur = c;
                break;
            }
        }
    }
    if (cur == GROVE_VID_NONE)
        errno = ENOENT;
    return cur;
}

int grove_vertex_uri(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                     size_t len)
{
    const char *name = grove_intern_str(g->strings, subsystem);
    size_t l = strlen(name);
    if (buf && len)
        snprintf(buf, len, "%s:", name);
    int n = grove_vertex_path(g, v, subsystem, buf && len > l + 1 ? buf + l + 1 : NULL,
                              buf && len > l + 1 ? len - l - 1 : 0);
    return n < 0 ? -1 : n + (int)l + 1;
}

grove_vid_t grove_graph_find_uri(const grove_graph_t *g, const char *uri)
{
    const char *colon = uri ? strstr(uri, ":/") : NULL;
    if (!colon || colon == uri) {
        errno = EINVAL;
        return GROVE_VID_NONE;
    }
    char name[256];
    size_t l = (size_t)(colon - uri);
    grove_sym_t sub = GROVE_SYM_NONE;
    if (l < sizeof(name)) {
        memcpy(name, uri, l);
        name[l] = '\0';
        sub = grove_graph_sym_lookup(g, name);
    }
    if (sub == GROVE_SYM_NONE || grovep_subsys_find(g, sub) < 0) {
        errno = ENOENT;
        return GROVE_VID_NONE;
    }
    return grove_graph_find_path(g, sub, colon + 1);
}

grove_vid_t grove_graph_find_uuid(const grove_graph_t *g, const char *uuid)
{
    uint8_t u[16];
    if (uuid_parse(uuid, u) == 0) {
        if (uuid_build(g) < 0)
            return GROVE_VID_NONE; /* ENOMEM */
        grove_vid_t v = uuid_probe(g, u, NULL);
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

void grovep_vertex_kill(grove_graph_t *g, grove_vid_t v)
{
    grovep_vertex_t *x = &g->v[v];
    if (x->flags & GROVEP_V_DEAD)
        return;
    x->flags |= GROVEP_V_DEAD;
    g->nlive--;
    g->by_type[x->type].count--;
    g->by_name[grovep_vertex_name(g, v)].count--;
    if (x->rank >= 0 && g->next_rank) {
        grovep_chain_t *c = map_get(&g->by_rank, (uint64_t)x->rank);
        if (c)
            c->count--;
    }
    uuid_del(g, v);
    g->parent[v] = GROVEP_NONE;
}

/* Copy the n elements of elem bytes at src into the array *dst (of *cap
 * elements), growing it first.  0, or -1 with ENOMEM. */
static int copy_grown(void **dst, size_t *cap, const void *src, size_t n, size_t elem)
{
    if (!n)
        return 0;
    if (grovep_grow(dst, cap, n, elem) < 0)
        return -1;
    memcpy(*dst, src, n * elem);
    return 0;
}

grove_graph_t *grovep_graph_copy(const grove_graph_t *g)
{
    grove_graph_t *c = grovep_zalloc(sizeof(*c));
    if (!c)
        return NULL;
    *c = *g;
    /* the copy holds no matcher's jobs, but their records: a matcher on
     * it numbers its jobs after them */
    c->holder = NULL;
    if (g->holder && !(c->holder = calloc(1, sizeof(*c->holder)))) {
        free(c);
        return NULL;
    }
    if (g->holder)
        *c->holder = (struct grovep_holder){.refs = 1, .next_id = g->holder->next_id};
    c->strings = NULL;
    c->v = NULL;
    c->first_out = c->parent = NULL;
    c->uin_first = c->uin_next = NULL;
    c->uin_src = NULL;
    c->uin_nv = c->uin_ne = 0;
    c->tails = NULL;
    c->ntails = c->tailcap = 0;
    c->next_type = c->next_name = c->next_rank = NULL;
    c->e = NULL;
    c->kv = NULL;
    c->kvh = NULL;
    c->recs = NULL;
    c->heads = NULL;
    c->by_type = c->by_name = NULL;
    memset(&c->by_rank, 0, sizeof(c->by_rank));
    memset(&c->big_ids, 0, sizeof(c->big_ids));
    c->units = NULL;
    /* the recent strings point into g's own table of strings: the copy
     * makes its own as it goes.  The names' tables (symbols, the same in
     * the copy's table) are copied below: the names of the vertices not
     * flagged GROVEP_V_NAMED are read there */
    c->idnames = NULL;
    c->nidnames = c->idnames_len = 0;
    c->names = NULL;
    c->pnames = NULL;
    memset(c->recent, 0, sizeof(c->recent));
    c->uuidx = calloc(1, sizeof(*c->uuidx)); /* its index: built when used */
    memset(&c->rec_idx, 0, sizeof(c->rec_idx));
    /* derived state is rebuilt, not shared */
    c->agg_spec = NULL;
    c->aggs = NULL;
    c->aggv = NULL;
    c->naggs = c->aggcap = c->aggvcap = 0;
    c->agg_sum = NULL;
    c->agg_touch = NULL;
    c->agg_seen = NULL;
    memset(&c->agg_of, 0, sizeof(c->agg_of));
    memset(&c->aggwin, 0, sizeof(c->aggwin));
    c->planners = NULL;
    c->planner_vid = NULL;
    c->nplanners = c->plcap = c->nspare = 0;
    memset(&c->planner_of, 0, sizeof(c->planner_of));
    c->rec_ends = NULL;
    c->nrec_ends = c->rec_endcap = 0;
    if (!c->uuidx)
        goto fail;
    memcpy(c->uuidx->key, g->uuidx->key, sizeof(c->uuidx->key));
    memcpy(c->uuidx->rng, g->uuidx->rng, sizeof(c->uuidx->rng));
    c->vcap = c->ecap = c->kvcap = c->reccap = c->chain_cap = 0;
    if (!(c->strings = grove_intern_copy(g->strings)))
        goto fail;
    if (g->nv && reserve_vertices(c, g->nv) < 0)
        goto fail;
#define CP(field, n)                                                            \
    if (n)                                                                      \
    memcpy(c->field, g->field, (n) * sizeof(*g->field))
    CP(v, g->nv);
    if (g->names) {
        if (!(c->names = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->names))))
            goto fail;
        CP(names, g->nv);
    }
    if (g->pnames) {
        if (!(c->pnames = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->pnames))))
            goto fail;
        CP(pnames, g->nv);
    }
    if (g->kvh) {
        if (!(c->kvh = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->kvh))))
            goto fail;
        memset(c->kvh, 0xff, c->vcap * sizeof(*c->kvh)); /* GROVEP_NONE */
        CP(kvh, g->nv);
    }
    if (g->nidnames) {
        if (!(c->idnames = calloc(g->nidnames, sizeof(*c->idnames))))
            goto fail;
        c->nidnames = g->nidnames;
        for (size_t i = 0; i < g->nidnames; i++) {
            const grovep_idnames_t *t = &g->idnames[i];
            if (!t->len)
                continue;
            if (!(c->idnames[i].at = malloc(t->len * sizeof(*t->at))))
                goto fail;
            memcpy(c->idnames[i].at, t->at, t->len * sizeof(*t->at));
            c->idnames[i].len = t->len;
        }
        c->idnames_len = g->idnames_len;
    }
    CP(first_out, g->nv);
    CP(parent, g->nv);
    if (g->uin_first) { /* both cover at least one slot when made */
        if (!(c->uin_first = malloc(g->uin_nv * sizeof(*c->uin_first)))
            || !(c->uin_next = malloc(g->uin_ne * sizeof(*c->uin_next)))
            || !(c->uin_src = malloc(g->uin_ne * sizeof(*c->uin_src))))
            goto fail;
        memcpy(c->uin_first, g->uin_first, g->uin_nv * sizeof(*c->uin_first));
        memcpy(c->uin_next, g->uin_next, g->uin_ne * sizeof(*c->uin_next));
        memcpy(c->uin_src, g->uin_src, g->uin_ne * sizeof(*c->uin_src));
        c->uin_nv = g->uin_nv;
        c->uin_ne = g->uin_ne;
    }
    /* the index chains that g made */
    const grove_vid_t *glinks[] = {g->next_type, g->next_name, g->next_rank};
    grove_vid_t **clinks[] = {&c->next_type, &c->next_name, &c->next_rank};
    for (size_t i = 0; i < sizeof(glinks) / sizeof(glinks[0]); i++) {
        if (!glinks[i])
            continue;
        if (!(*clinks[i] = malloc((c->vcap ? c->vcap : 1) * sizeof(grove_vid_t))))
            goto fail;
        if (g->nv)
            memcpy(*clinks[i], glinks[i], g->nv * sizeof(grove_vid_t));
    }
    if (copy_grown((void **)&c->e, &c->ecap, g->e, g->ne, sizeof(*c->e)) < 0 ||
        copy_grown((void **)&c->kv, &c->kvcap, g->kv, g->nkv, sizeof(*c->kv)) < 0 ||
        copy_grown((void **)&c->recs, &c->reccap, g->recs, g->nrec, sizeof(*c->recs)) < 0)
        goto fail;
    c->headcap = 0;
    if (g->headcap && (grovep_grow((void **)&c->heads, &c->headcap, g->headcap,
                                   sizeof(*c->heads)) < 0))
        goto fail;
    if (g->nheads)
        memcpy(c->heads, g->heads, g->nheads * sizeof(*c->heads));
    if (g->chain_cap) {
        c->by_type = malloc(g->chain_cap * sizeof(*c->by_type));
        c->by_name = malloc(g->chain_cap * sizeof(*c->by_name));
        if (!c->by_type || !c->by_name)
            goto fail;
        c->chain_cap = g->chain_cap;
        CP(by_type, g->chain_cap);
        CP(by_name, g->chain_cap);
    }
#undef CP
    if (g->tailcap) {
        if (!(c->tails = malloc(g->tailcap * sizeof(*c->tails))))
            goto fail;
        memcpy(c->tails, g->tails, g->tailcap * sizeof(*c->tails));
        c->ntails = g->ntails;
        c->tailcap = g->tailcap;
    }
    if (map_copy(&c->by_rank, &g->by_rank) < 0 || map_copy(&c->big_ids, &g->big_ids) < 0
        || !(c->units = malloc(g->unitcap * sizeof(*c->units))))
        goto fail;
    memcpy(c->units, g->units, g->nunits * sizeof(*c->units));
    if (g->uuidx->u) {
        if (!(c->uuidx->u = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->uuidx->u))))
            goto fail;
        memcpy(c->uuidx->u, g->uuidx->u, g->nv * sizeof(*c->uuidx->u));
    }
    return c;
fail:
    grovep_graph_free(c);
    errno = ENOMEM;
    return NULL;
}

int grovep_vstack_room(grove_vid_t **stack, size_t *cap, size_t n, grove_vid_t *buf)
{
    if (n < *cap)
        return 0;
    grove_vid_t *bigger = malloc(2 * *cap * sizeof(*bigger));
    if (!bigger) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(bigger, *stack, n * sizeof(*bigger));
    if (*stack != buf)
        free(*stack);
    *stack = bigger;
    *cap *= 2;
    return 0;
}

/* kv and record pools ----------------------------------------------------- */

/* A slot of the array *arr (*n elements of elem bytes, capacity *cap):
 * the head of the free list *head, threaded through the uint32_t at
 * next_off in each element, or else a new one at the end.  Its index, or
 * GROVEP_NONE with EOVERFLOW or ENOMEM. */
static uint32_t slot_new(void **arr, size_t *n, size_t *cap, size_t elem, size_t next_off,
                         uint32_t *head)
{
    if (*head != GROVEP_NONE) {
        uint32_t i = *head;
        memcpy(head, (const char *)*arr + i * elem + next_off, sizeof(*head));
        return i;
    }
    if (*n >= GROVEP_NONE - 1) {
        errno = EOVERFLOW;
        return GROVEP_NONE;
    }
    if (grovep_grow(arr, cap, *n + 1, elem) < 0)
        return GROVEP_NONE;
    return (uint32_t)(*n)++;
}

uint32_t grovep_kv_new(grove_graph_t *g)
{
    return slot_new((void **)&g->kv, &g->nkv, &g->kvcap, sizeof(*g->kv),
                    offsetof(grovep_kv_t, next), &g->kv_free);
}

void grovep_kv_release(grove_graph_t *g, uint32_t i)
{
    g->kv[i].next = g->kv_free;
    g->kv_free = i;
}

uint32_t grovep_rec_new(grove_graph_t *g)
{
    uint32_t i = slot_new((void **)&g->recs, &g->nrec, &g->reccap, sizeof(*g->recs),
                          offsetof(grovep_rec_t, next), &g->rec_free);
    if (i == GROVEP_NONE)
        return i;
    g->nrec_live++;
    /* room for a vertex's heads a live record: a vertex takes a slot only
     * with a record in one of its lists, so a push never needs to grow */
    if (grovep_grow((void **)&g->heads, &g->headcap, g->nrec_live, sizeof(*g->heads)) < 0) {
        grovep_rec_release(g, i);
        errno = ENOMEM;
        return GROVEP_NONE;
    }
    return i;
}

uint32_t *grovep_head_ref(grove_graph_t *g, grove_vid_t v, bool shared)
{
    uint32_t h = g->v[v].held;
    if (h == GROVEP_NONE) {
        if (g->head_free != GROVEP_NONE) {
            h = g->head_free;
            g->head_free = g->heads[h].recs;
        } else {
            h = (uint32_t)g->nheads++; /* < headcap: see grovep_rec_new */
        }
        g->heads[h] = (grovep_heads_t){GROVEP_NONE, GROVEP_NONE};
        g->v[v].held = h;
    }
    return shared ? &g->heads[h].shared : &g->heads[h].recs;
}

void grovep_heads_tidy(grove_graph_t *g, grove_vid_t v)
{
    uint32_t h = g->v[v].held;
    if (h == GROVEP_NONE || g->heads[h].recs != GROVEP_NONE
        || g->heads[h].shared != GROVEP_NONE)
        return;
    g->heads[h].recs = g->head_free;
    g->head_free = h;
    g->v[v].held = GROVEP_NONE;
}

void grovep_rec_release(grove_graph_t *g, uint32_t i)
{
    g->recs[i].next = g->rec_free;
    g->rec_free = i;
    if (--g->nrec_live == 0) {
        /* every job is gone: the memory of their records comes back to
         * the allocator.  Not to the system: that walk of the heap
         * (malloc_trim) is for the caller's quiet points, such as the end
         * of a simulation or of a session's burst of jobs
         * (core.trim_memory); here it would run each time a machine
         * empties, which a lightly loaded simulation does thousands of
         * times (a third of its CPU went to the kernel). */
        free(g->recs);
        g->recs = NULL;
        g->nrec = g->reccap = 0;
        g->rec_free = GROVEP_NONE;
        /* every list is empty, every vertex's slot given back */
        free(g->heads);
        g->heads = NULL;
        g->nheads = g->headcap = 0;
        g->head_free = GROVEP_NONE;
    }
}

/* A fresh random (version 4) uuid, not used yet in the graph when its
 * index is built. */
static void uuid_generate(const grove_graph_t *g, uint8_t u[16])
{
    uint64_t *rng = g->uuidx->rng;
    do {
        uint64_t a = rng_next(rng), b = rng_next(rng);
        memcpy(u, &a, 8);
        memcpy(u + 8, &b, 8);
        u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
        u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
    } while (g->uuidx->built && uuid_probe(g, u, NULL) != GROVE_VID_NONE);
}
