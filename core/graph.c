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
#include "graph_parts.h"

static void idnames_free(grove_graph_t *g);

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
    return GROVEP_NULL_AFTER(grovep_graph_free, g, ENOMEM);
}

const grove_vid_t *grovep_tree_kids(const grove_graph_t *cg, const uint32_t **off,
                                    const uint8_t **kind)
{
    /* a cache of what the edges say: the graph as seen through its
     * functions does not change */
    grove_graph_t *g = (grove_graph_t *)(uintptr_t)cg;
    if (!g->tk_off || g->tk_nv != g->nv || g->tk_ne != g->ne || g->tk_live != g->nlive_e) {
        free(g->tk_off);
        free(g->tk_kind);
        g->tk_kind = malloc(g->nv ? g->nv : 1);
        g->tk_off = malloc((g->nv + 1) * sizeof(*g->tk_off));
        /* about one entry a vertex (one tree parent each; two edges from
         * a parent to one child would list it twice, so it may grow) */
        if (!g->tk_off || !g->tk_kind
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
        for (grove_vid_t v = 0; v < g->nv; v++) {
            uint8_t kd = 0;
            for (uint32_t i = g->tk_off[v]; i < g->tk_off[v + 1]; i++) {
                grove_vid_t c = g->tk_kid[i];
                kd |= g->tk_off[c + 1] > g->tk_off[c] ? GROVEP_TK_INNER : GROVEP_TK_LEAF;
            }
            g->tk_kind[v] = kd;
        }
        g->tk_nv = g->nv;
        g->tk_ne = g->ne;
        g->tk_live = g->nlive_e;
    }
    *off = g->tk_off;
    if (kind)
        *kind = g->tk_kind;
    return g->tk_kid;
fail:
    free(g->tk_off);
    free(g->tk_kind);
    g->tk_off = NULL;
    g->tk_kind = NULL;
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
    GROVEP_FREE_ALL(g->v, g->names, g->pnames, g->kvh, g->first_out, g->tails, g->parent, g->next_type,
                    g->next_name, g->next_rank, g->e, g->uin_first, g->uin_next, g->uin_src, g->tk_off, g->tk_kid, g->tk_kind, g->kv, g->recs,
                    g->heads, g->by_type, g->by_name, g->chg_ring);
    grovep_map_free(&g->by_rank);
    grovep_map_free(&g->big_ids);
    free(g->units);
    grovep_uuid_index_free(g->uuidx);
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

uint64_t grove_graph_changes(const grove_graph_t *g)
{
    return g ? g->chg_gen : 0;
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

int grovep_reserve_vertices(grove_graph_t *g, size_t need)
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
    if (vertices && grovep_reserve_vertices(g, g->nv + vertices) < 0)
        return -1;
    return grovep_grow((void **)&g->e, &g->ecap, g->ne + edges, sizeof(*g->e));
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
    const grovep_chain_t *b = grovep_map_get(&g->big_ids, v);
    return b ? (int64_t)((uint64_t)b->tail << 32 | b->head) : GROVE_ID_NONE;
}

int64_t grovep_big_size(const grove_graph_t *g, grove_vid_t v)
{
    const grovep_chain_t *b = grovep_map_get(&g->big_ids, GROVEP_BIG_SIZE_KEY + v);
    return b ? (int64_t)((uint64_t)b->tail << 32 | b->head) : 0;
}

int grovep_vertex_size_set(grove_graph_t *g, grove_vid_t v, int64_t size)
{
    g->chg_gen++;
    if (size > INT32_MAX) {
        grovep_chain_t *b = grovep_map_put(&g->big_ids, GROVEP_BIG_SIZE_KEY + v);
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
/* The type, basename and unit symbols of a new vertex, from syms (type,
 * basename, unit: grovep_add_vertex_sym) or from info's strings, interned
 * through the recent ones.  0, or -1 (EINVAL for a name with a '/',
 * EOVERFLOW when the graph is full, ENOMEM). */
static int vertex_syms(grove_graph_t *g, const grove_vertex_info_t *info, const grove_sym_t *syms,
                       grove_sym_t *type_out, grove_sym_t *base_out, grove_sym_t *unit_out)
{
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
        return -1;
    }
    if (g->nv >= GROVEP_NONE - 1) {
        errno = EOVERFLOW;
        return -1;
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
        return -1;
    *type_out = type;
    *base_out = base;
    *unit_out = unit;
    return 0;
}

/* Keep the id and the size of the new vertex v past 31 bits in
 * g->big_ids.  0, or -1 (ENOMEM). */
static int vertex_big(grove_graph_t *g, grove_vid_t v, const grove_vertex_info_t *info)
{
    if (info->id > INT32_MAX) {
        grovep_chain_t *b = grovep_map_put(&g->big_ids, v);
        if (!b)
            return -1;
        *b = (grovep_chain_t){(uint32_t)info->id, (uint32_t)((uint64_t)info->id >> 32), 1};
    }
    if (info->size > INT32_MAX) {
        grovep_chain_t *b = grovep_map_put(&g->big_ids, GROVEP_BIG_SIZE_KEY + v);
        if (!b)
            return -1;
        *b = (grovep_chain_t){(uint32_t)info->size, (uint32_t)((uint64_t)info->size >> 32), 1};
    }
    return 0;
}

/* Link the new vertex v into the index chains that are made (type, name,
 * rank: rc, its rank's chain, or NULL), or count it in them. */
static void vertex_chains(grove_graph_t *g, grove_vid_t v, grove_sym_t type, grove_sym_t name,
                          grovep_chain_t *rc)
{
    if (g->next_type) {
        grovep_chain_insert(&g->by_type[type], g->next_type, v);
    } else { /* the head without the links: chain_first's first vertex */
        grovep_chain_t *tc = &g->by_type[type];
        if (tc->head == GROVEP_NONE)
            tc->head = v;
        tc->count++;
    }
    if (g->next_name)
        grovep_chain_insert(&g->by_name[name], g->next_name, v);
    else
        g->by_name[name].count++;
    if (rc)
        grovep_chain_insert(rc, g->next_rank, v);
    else if (g->next_rank)
        g->next_rank[v] = GROVEP_NONE;
}

static grove_vid_t add_vertex(grove_graph_t *g, const grove_vertex_info_t *info,
                              const grove_sym_t *syms)
{
    g->chg_gen++;
    if (!info
        || (syms ? syms[0] == GROVE_SYM_EMPTY : !info->type || !info->type[0])
        || info->size < 0 || info->id < -1 || info->rank < -1 || info->rank > GROVEP_RANK_MAX) {
        errno = EINVAL;
        return GROVE_VID_NONE;
    }
    uint8_t u[16];
    if (info->uuid) {
        if (grovep_uuid_parse(info->uuid, u) < 0)
            return GROVE_VID_NONE;
        if (grovep_uuid_build(g) < 0)
            return GROVE_VID_NONE;
        if (grovep_uuid_probe(g, u, NULL) != GROVE_VID_NONE) {
            errno = EEXIST;
            return GROVE_VID_NONE;
        }
    }
    grove_sym_t type, base, unit;
    if (vertex_syms(g, info, syms, &type, &base, &unit) < 0)
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
    if (vertex_big(g, v, info) < 0)
        return GROVE_VID_NONE;
    if (grovep_reserve_vertices(g, g->nv + 1) < 0
        || ((type >= g->chain_cap || name >= g->chain_cap)
            && (grovep_reserve_chains(g, type) < 0 || grovep_reserve_chains(g, name) < 0)))
        return GROVE_VID_NONE;
    if (g->uuidx->built && grovep_uuid_reserve(g->uuidx, 1) < 0)
        return GROVE_VID_NONE;
    if (!info->uuid && g->uuidx->u)
        grovep_uuid_generate(g, u); /* else its uuid is uuid_keyed's */
    /* a name of its own: room for it first, so that nothing below fails */
    if (own && names_make(g) < 0)
        return GROVE_VID_NONE;
    grovep_chain_t *rc = NULL;
    if (g->next_rank && info->rank >= 0 && !(rc = grovep_map_put(&g->by_rank, (uint64_t)info->rank)))
        return GROVE_VID_NONE;
    if (g->uuidx->built)
        grovep_uuid_insert(g, u, v);
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
    vertex_chains(g, v, type, name, rc);
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
        grovep_uuid_get(g, v, u);
        grovep_uuid_format(u, buf);
    } else {
        buf[0] = '\0';
    }
}

int grove_vertex_set_rank(grove_graph_t *g, grove_vid_t v, int64_t rank)
{
    GROVEP_VCHECK(g, v, -1);
    g->chg_gen++;
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
    if (rank >= 0 && !(nc = grovep_map_put(&g->by_rank, (uint64_t)rank)))
        return -1;
    if (g->v[v].rank >= 0) {
        grovep_chain_t *oc = grovep_map_get(&g->by_rank, (uint64_t)g->v[v].rank);
        if (oc) {
            grovep_chain_remove(oc, g->next_rank, v);
            if (oc->count == 0 && oc->head == GROVEP_NONE) {
                grovep_map_remove(&g->by_rank, (uint64_t)g->v[v].rank);
                if (rank >= 0) /* the delete may have moved the new chain */
                    nc = grovep_map_get(&g->by_rank, (uint64_t)rank);
            }
        }
    }
    g->v[v].rank = (int32_t)rank;
    if (nc)
        grovep_chain_insert(nc, g->next_rank, v);
    return 0;
}

int grove_vertex_set_name(grove_graph_t *g, grove_vid_t v, const char *name)
{
    GROVEP_VCHECK(g, v, -1);
    g->chg_gen++;
    if (!name) {
        errno = EINVAL;
        return -1;
    }
    grove_sym_t s = grove_intern(g->strings, name);
    if (s == GROVE_SYM_NONE || grovep_reserve_chains(g, s) < 0)
        return -1;
    grove_sym_t old = grovep_vertex_name(g, v);
    if (s == old)
        return 0;
    if (grovep_vertex_name_set(g, v, s) < 0)
        return -1;
    if (g->next_name) {
        grovep_chain_remove(&g->by_name[old], g->next_name, v);
        grovep_chain_insert(&g->by_name[s], g->next_name, v);
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
    if (g->v[v].status != (uint8_t)s) {
        g->status_gen++;
        g->chg_gen++;
    }
    g->v[v].status = (uint8_t)s;
    return 0;
}

void grovep_vertex_kill(grove_graph_t *g, grove_vid_t v)
{
    grovep_vertex_t *x = &g->v[v];
    if (x->flags & GROVEP_V_DEAD)
        return;
    x->flags |= GROVEP_V_DEAD;
    g->nlive--;
    g->chg_gen++;
    g->by_type[x->type].count--;
    g->by_name[grovep_vertex_name(g, v)].count--;
    if (x->rank >= 0 && g->next_rank) {
        grovep_chain_t *c = grovep_map_get(&g->by_rank, (uint64_t)x->rank);
        if (c)
            c->count--;
    }
    grovep_uuid_del(g, v);
    g->parent[v] = GROVEP_NONE;
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
