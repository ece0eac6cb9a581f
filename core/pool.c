/* pool.c: the data of a resource pool beyond its base data: properties,
 * tags, status, and allocation records (RFC 4, RFC 16 draft).
 *
 * Workload: a handful of properties and tags per vertex at most, and a few
 * allocation records per pool (one per job holding it, over time).  Both are
 * index-linked lists in shared pools (g->kv, g->recs) with free lists, so a
 * vertex with none costs nothing and adding one does not call malloc in
 * steady state.
 *
 * Record rules: a pool's units are never over-allocated at any instant (the
 * peak of overlapping records is checked); a job that takes every unit or
 * asks for exclusivity holds the pool alone, and nothing below it may be
 * held by another job in that window; each ancestor of an allocated pool
 * carries a SHARED annotation per window, counting the records of every job
 * below it over that window, so "is this subtree untouched in [s, e)?" is
 * a look at one vertex, and a stream of jobs over one window adds no
 * annotation of its own (what a held job costs is its records).  The
 * annotations of one job, as grove_vertex_record_at lists them, are read
 * from the records below (only where annotations lead).
 *
 * This file must not hold base data, edges or walks (graph.c, walker.c), nor
 * availability over time (aggregate.c, a floor below: each record added or
 * removed is told to it by a call down, and a pool's use over a window or
 * its exclusive holder is asked of it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "util.h"

/* ---- properties and tags -------------------------------------------------- */

/* Properties and tags share one list a vertex (g->kvh[v]): a tag's key
 * carries GROVEP_KV_TAG, so each kind is the list's entries of that kind,
 * in the order they were set. */

/* The key of an entry of the kind asked, as the list holds it. */
static grove_sym_t kv_key(grove_sym_t k, bool tags)
{
    return tags ? k | GROVEP_KV_TAG : k;
}

static bool kv_is(const grove_graph_t *g, uint32_t i, bool tags)
{
    return !(g->kv[i].key & GROVEP_KV_TAG) == !tags;
}

static const char *kv_key_str(const grove_graph_t *g, uint32_t i)
{
    return grove_intern_str(g->strings, g->kv[i].key & ~GROVEP_KV_TAG);
}

static int kv_set(grove_graph_t *g, grove_vid_t v, bool tags, const char *key,
                  const char *value)
{
    GROVEP_VCHECK(g, v, -1);
    g->chg_gen++;
    if (!key || !key[0] || (!tags && !value)) {
        errno = EINVAL;
        return -1;
    }
    grove_sym_t k = grove_intern(g->strings, key);
    grove_sym_t val = value ? grove_intern(g->strings, value) : GROVE_SYM_NONE;
    if (k == GROVE_SYM_NONE || (value && val == GROVE_SYM_NONE))
        return -1;
    if (k & GROVEP_KV_TAG) { /* 2^31 strings: not reached */
        errno = EOVERFLOW;
        return -1;
    }
    k = kv_key(k, tags);
    uint32_t last = GROVEP_NONE;
    for (uint32_t i = grovep_kv_head(g, v); i != GROVEP_NONE; i = g->kv[i].next) {
        if (g->kv[i].key == k) {
            g->kv[i].val = val;
            return 0;
        }
        last = i;
    }
    if (!g->kvh) { /* the first property or tag of the graph */
        if (!(g->kvh = malloc((g->vcap ? g->vcap : 1) * sizeof(*g->kvh)))) {
            errno = ENOMEM;
            return -1;
        }
        /* GROVEP_NONE, for the vertices to come as well (reserve_vertices
         * keeps it so for the slots it adds) */
        memset(g->kvh, 0xff, (g->vcap ? g->vcap : 1) * sizeof(*g->kvh));
    }
    uint32_t n = grovep_kv_new(g);
    if (n == GROVEP_NONE)
        return -1;
    g->kv[n] = (grovep_kv_t){k, val, GROVEP_NONE};
    if (last == GROVEP_NONE)
        g->kvh[v] = n;
    else
        g->kv[last].next = n;
    return 0;
}

static uint32_t kv_find(const grove_graph_t *g, grove_vid_t v, bool tags, const char *key)
{
    /* most vertices (cores, sockets) hold none: no lookup of the key */
    if (!grovep_alive(g, v) || !key || grovep_kv_head(g, v) == GROVEP_NONE)
        return GROVEP_NONE;
    grove_sym_t k = grove_intern_lookup(g->strings, key);
    if (k == GROVE_SYM_NONE)
        return GROVEP_NONE;
    k = kv_key(k, tags);
    for (uint32_t i = grovep_kv_head(g, v); i != GROVEP_NONE; i = g->kv[i].next)
        if (g->kv[i].key == k)
            return i;
    return GROVEP_NONE;
}

static int kv_remove(grove_graph_t *g, grove_vid_t v, bool tags, const char *key)
{
    GROVEP_VCHECK(g, v, -1);
    g->chg_gen++;
    grove_sym_t k = key ? grove_intern_lookup(g->strings, key) : GROVE_SYM_NONE;
    uint32_t none = GROVEP_NONE, *link = g->kvh ? &g->kvh[v] : &none;
    while (k != GROVE_SYM_NONE && *link != GROVEP_NONE) {
        uint32_t i = *link;
        if (g->kv[i].key == kv_key(k, tags)) {
            *link = g->kv[i].next;
            grovep_kv_release(g, i);
            return 0;
        }
        link = &g->kv[i].next;
    }
    errno = ENOENT;
    return -1;
}

static int kv_at(const grove_graph_t *g, grove_vid_t v, bool tags, size_t n, const char **key,
                 const char **value)
{
    if (grovep_alive(g, v)) {
        for (uint32_t i = grovep_kv_head(g, v); i != GROVEP_NONE; i = g->kv[i].next) {
            if (kv_is(g, i, tags) && n-- == 0) {
                if (key)
                    *key = kv_key_str(g, i);
                if (value)
                    *value = g->kv[i].val == GROVE_SYM_NONE
                                 ? NULL
                                 : grove_intern_str(g->strings, g->kv[i].val);
                return 0;
            }
        }
    }
    errno = ENOENT;
    return -1;
}

static size_t kv_count(const grove_graph_t *g, grove_vid_t v, bool tags)
{
    size_t n = 0;
    if (grovep_alive(g, v))
        for (uint32_t i = grovep_kv_head(g, v); i != GROVEP_NONE; i = g->kv[i].next)
            n += kv_is(g, i, tags);
    return n;
}

int grove_vertex_set_property(grove_graph_t *g, grove_vid_t v, const char *key,
                              const char *value)
{
    return kv_set(g, v, false, key, value);
}

const char *grove_vertex_property(const grove_graph_t *g, grove_vid_t v, const char *key)
{
    uint32_t i = kv_find(g, v, false, key);
    return i == GROVEP_NONE ? NULL : grove_intern_str(g->strings, g->kv[i].val);
}

int grove_vertex_remove_property(grove_graph_t *g, grove_vid_t v, const char *key)
{
    return kv_remove(g, v, false, key);
}

int grove_vertex_property_at(const grove_graph_t *g, grove_vid_t v, size_t i,
                             const char **key, const char **value)
{
    return kv_at(g, v, false, i, key, value);
}

size_t grove_vertex_property_count(const grove_graph_t *g, grove_vid_t v)
{
    return kv_count(g, v, false);
}

int grove_vertex_tag(grove_graph_t *g, grove_vid_t v, const char *key, const char *value)
{
    return kv_set(g, v, true, key, value);
}

bool grove_vertex_has_tag(const grove_graph_t *g, grove_vid_t v, const char *key,
                          const char **value)
{
    uint32_t i = kv_find(g, v, true, key);
    if (i == GROVEP_NONE)
        return false;
    if (value)
        *value = g->kv[i].val == GROVE_SYM_NONE ? NULL
                                                : grove_intern_str(g->strings, g->kv[i].val);
    return true;
}

int grove_vertex_untag(grove_graph_t *g, grove_vid_t v, const char *key)
{
    return kv_remove(g, v, true, key);
}

int grove_vertex_tag_at(const grove_graph_t *g, grove_vid_t v, size_t i, const char **key,
                        const char **value)
{
    return kv_at(g, v, true, i, key, value);
}

size_t grove_vertex_tag_count(const grove_graph_t *g, grove_vid_t v)
{
    return kv_count(g, v, true);
}

/* ---- records ----------------------------------------------------------------- */

static bool overlaps(const grovep_rec_t *r, int64_t start, int64_t end)
{
    return r->start < end && start < r->end;
}

#define FOREACH_ALLOC(g, v, i)                                                  \
    for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = (g)->recs[i].next)
/* The job an annotation names: none (an annotation counts the records of
 * every job below over its window). */
#define SHARED_JOB 0

#define FOREACH_SHARED(g, v, i)                                                 \
    for (uint32_t i = grovep_shared_head(g, v); i != GROVEP_NONE; i = (g)->recs[i].next)

static uint64_t rec_key(grove_vid_t v, grove_jobid_t job, int64_t start, int64_t end,
                        int kind)
{
    /* each part through a full 64-bit mix (the finalizer of splitmix64)
     * before the next: a weaker combination collided every few thousand
     * jobs, and a record whose key another held stayed unindexed, so its
     * annotation outlived its job once the other was dropped */
    uint64_t k = ((uint64_t)v << 8 | (uint64_t)(kind & 0xff)) + 0x9e3779b97f4a7c15ULL;
    const uint64_t parts[3] = {(uint64_t)job, (uint64_t)start, (uint64_t)end};
    for (int i = 0; i < 4; i++) {
        k ^= k >> 30;
        k *= 0xbf58476d1ce4e5b9ULL;
        k ^= k >> 27;
        k *= 0x94d049bb133111ebULL;
        k ^= k >> 31;
        if (i < 3)
            k += parts[i] * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
    }
    return k;
}

/* ---- the record index ----------------------------------------------------
 *
 * (vertex, job, window, kind) -> record.  Linear probing over 8-byte slots
 * (see grovep_recidx_t), at most 7/10 full, shrunk by half when under an
 * eighth; removal shifts the slots that follow back, so there are no
 * tombstones.  A probe reads a record only when the 32 bits of its key
 * match.  About 12-20 bytes an entry (the map of chains it replaces took
 * 42-84). */

static uint64_t key_of(const grovep_rec_t *r)
{
    return rec_key(r->v, r->job, r->start, r->end, r->kind);
}

static uint64_t idx_slot(uint64_t key, uint32_t r)
{
    return (key >> 32) << 32 | ((uint64_t)r + 1);
}

static size_t idx_home(const grovep_recidx_t *x, uint64_t slot)
{
    return (size_t)(slot >> 32) & (x->cap - 1);
}

static int idx_rehash(grovep_recidx_t *x, size_t cap)
{
    uint64_t *n = calloc(cap, sizeof(*n));
    if (!n) {
        errno = ENOMEM;
        return -1;
    }
    uint64_t *old = x->slot;
    size_t oldcap = x->cap;
    x->slot = n;
    x->cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i])
            continue;
        size_t h = idx_home(x, old[i]);
        while (n[h])
            h = (h + 1) & (cap - 1);
        n[h] = old[i];
    }
    free(old);
    return 0;
}

void grovep_rec_index_free(grove_graph_t *g)
{
    free(g->rec_idx.slot);
    free(g->rec_idx.list);
    g->rec_idx = (grovep_recidx_t){0};
}

/* Room for more entries so that the next `more` inserts cannot fail: 0 or
 * -1 (ENOMEM), the index unchanged. */
static int idx_reserve(grove_graph_t *g, size_t more)
{
    grovep_recidx_t *x = &g->rec_idx;
    size_t cap = x->cap ? x->cap : 64;
    while ((x->count + more) * 10 > cap * 7)
        cap *= 2;
    return cap == x->cap ? 0 : idx_rehash(x, cap);
}

/* Index record r (after idx_reserve). */
static void idx_put(grove_graph_t *g, uint32_t r)
{
    grovep_recidx_t *x = &g->rec_idx;
    uint64_t s = idx_slot(key_of(&g->recs[r]), r);
    size_t h = idx_home(x, s);
    while (x->slot[h])
        h = (h + 1) & (x->cap - 1);
    x->slot[h] = s;
    x->count++;
}

/* The job's record of this kind on v for exactly [start, end), through the
 * index: O(1) however many jobs share v. */
static uint32_t rec_find(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                         int64_t start, int64_t end, int kind)
{
    const grovep_recidx_t *x = &g->rec_idx;
    if (!x->cap)
        return GROVEP_NONE;
    uint64_t tag = rec_key(v, job, start, end, kind) >> 32;
    for (size_t h = idx_home(x, tag << 32); x->slot[h]; h = (h + 1) & (x->cap - 1)) {
        if (x->slot[h] >> 32 != tag)
            continue;
        uint32_t i = (uint32_t)x->slot[h] - 1;
        const grovep_rec_t *r = &g->recs[i];
        if (r->v == v && r->job == job && r->start == start && r->end == end && r->kind == kind)
            return i;
    }
    return GROVEP_NONE;
}

/* Index record r of v; 0 or -1 (ENOMEM). */
static int rec_index(grove_graph_t *g, grove_vid_t v, uint32_t r)
{
    g->recs[r].v = v;
    if (idx_reserve(g, 1) < 0)
        return -1;
    idx_put(g, r);
    return 0;
}

/* Take record r (of v) out of the index, if it is there. */
static void rec_unindex(grove_graph_t *g, grove_vid_t v, uint32_t r)
{
    grovep_recidx_t *x = &g->rec_idx;
    if (!x->cap)
        return;
    g->recs[r].v = v;
    uint64_t s = idx_slot(key_of(&g->recs[r]), r);
    size_t mask = x->cap - 1, i = idx_home(x, s);
    while (x->slot[i] && x->slot[i] != s)
        i = (i + 1) & mask;
    if (!x->slot[i])
        return;
    /* shift back each slot that follows and may move to the hole: one
     * whose home is not in the cyclic range (hole, slot] */
    for (size_t j = (i + 1) & mask; x->slot[j]; j = (j + 1) & mask) {
        size_t h = idx_home(x, x->slot[j]);
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (!stays) {
            x->slot[i] = x->slot[j];
            i = j;
        }
    }
    x->slot[i] = 0;
    x->count--;
    /* shrink as it empties (the index of 100,000 jobs must not outlive
     * them); a failed rehash keeps the larger table */
    if (x->count == 0) {
        free(x->slot);
        x->slot = NULL;
        x->cap = 0;
    } else if (x->cap > 64 && x->count * 8 < x->cap)
        (void)idx_rehash(x, x->cap / 2);
}

/* Put record r at the front of the list at *head. */
static void list_push(grove_graph_t *g, uint32_t *head, uint32_t r)
{
    g->rec_idx.gen++; /* what grove_vertex_record_at lists may change */
    grovep_chg_vertex(g, g->recs[r].v);
    g->recs[r].prev = GROVEP_NONE;
    g->recs[r].next = *head;
    if (*head != GROVEP_NONE)
        g->recs[*head].prev = r;
    *head = r;
}

/* Take record r out of the list at *head (O(1)). */
static void list_remove(grove_graph_t *g, uint32_t *head, uint32_t r)
{
    g->rec_idx.gen++;
    grovep_chg_vertex(g, g->recs[r].v);
    uint32_t p = g->recs[r].prev, n = g->recs[r].next;
    if (p == GROVEP_NONE)
        *head = n;
    else
        g->recs[p].next = n;
    if (n != GROVEP_NONE)
        g->recs[n].prev = p;
}

/* Peak units held on v by ALLOC records during [start, end), from its pool
 * planner (every vertex with ALLOC records has one). */
static inline int64_t peak_used(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                int64_t end)
{
    if (!(g->v[v].flags & GROVEP_V_ALLOC))
        return 0;
    int64_t peak = grovep_pool_peak(g, v, start, end);
    /* no planner for a vertex with records: only after a failed update;
     * count the pool as full rather than over-allocate it */
    return peak < 0 ? grovep_vertex_size(g, v) : peak;
}

int64_t grovep_own_available(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    if (g->v[v].status != GROVE_STATUS_UP)
        return 0;
    if (grovep_excl_any(g, v, start, end))
        return 0;
    int64_t avail = grovep_vertex_size(g, v) - peak_used(g, v, start, end);
    return avail > 0 ? avail : 0;
}

int64_t grove_vertex_available_during(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                      int64_t end)
{
    if (!grovep_alive(g, v) || end <= start)
        return 0;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        if (g->v[a].status != GROVE_STATUS_UP
            || grovep_excl_record(g, a, start, end, true, 0) != GROVEP_NONE)
            return 0;
    }
    return grovep_own_available(g, v, start, end);
}

int64_t grove_vertex_available(const grove_graph_t *g, grove_vid_t v)
{
    return grove_vertex_available_during(g, v, g->now, grove_time_end(g->now, 1));
}

int64_t grove_vertex_allocated_at(const grove_graph_t *g, grove_vid_t v, int64_t t)
{
    int64_t n = 0;
    if (!grovep_alive(g, v))
        return 0;
    FOREACH_ALLOC(g, v, i)
    {
        const grovep_rec_t *r = &g->recs[i];
        if (r->start <= t && t < r->end)
            n += r->amount;
    }
    return n;
}

int64_t grove_vertex_allocated(const grove_graph_t *g, grove_vid_t v)
{
    return grove_vertex_allocated_at(g, v, g->now);
}

bool grove_vertex_held_exclusively(const grove_graph_t *g, grove_vid_t v, int64_t t,
                                   grove_jobid_t *job)
{
    if (!grove_time_ok(t))
        return false; /* no record holds anything outside [0, forever) */
    for (grove_vid_t a = v; a != GROVEP_NONE && a < g->nv; a = g->parent[a]) {
        uint32_t i = grovep_excl_record(g, a, t, t + 1, true, 0);
        if (i != GROVEP_NONE) {
            if (job)
                *job = g->recs[i].job;
            return true;
        }
    }
    return false;
}

/* The live vertices of g for which in(g, v, start, end) holds, in id
 * order, into a new array.  0 or -1 (EINVAL: a bad window; ENOMEM). */
static int collect(const grove_graph_t *g, int64_t start, int64_t end,
                   bool (*in)(const grove_graph_t *, grove_vid_t, int64_t, int64_t),
                   grove_vid_t **vids, size_t *n)
{
    *vids = NULL;
    *n = 0;
    if (!grove_time_ok(start) || end <= start) {
        errno = EINVAL;
        return -1;
    }
    grove_vid_t *out = NULL;
    size_t cnt = 0, cap = 0;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v) || !in(g, v, start, end))
            continue;
        if (grovep_grow((void **)&out, &cap, cnt + 1, sizeof(*out)) < 0) {
            free(out);
            errno = ENOMEM;
            return -1;
        }
        out[cnt++] = v;
    }
    *vids = out;
    *n = cnt;
    return 0;
}

static bool is_allocated(const grove_graph_t *g, grove_vid_t v, int64_t t, int64_t end)
{
    (void)end;
    return grove_vertex_allocated_at(g, v, t) > 0 || grove_vertex_held_exclusively(g, v, t, NULL);
}

static bool is_available(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    return grove_vertex_available_during(g, v, start, end) > 0;
}

int grove_graph_allocated_at(const grove_graph_t *g, int64_t t, grove_vid_t **vids, size_t *n)
{
    return collect(g, t, grove_time_end(t, 1), is_allocated, vids, n);
}

int grove_graph_available_during(const grove_graph_t *g, int64_t start, int64_t end,
                                 grove_vid_t **vids, size_t *n)
{
    return collect(g, start, end, is_available, vids, n);
}

/* The job's ALLOC record on v with exactly this window. */
static uint32_t find_alloc(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                           int64_t start, int64_t end)
{
    return rec_find(g, v, job, start, end, GROVE_RECORD_ALLOC);
}

bool grovep_touched_any(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    if (peak_used(g, v, start, end) > 0)
        return true;
    FOREACH_SHARED(g, v, i)
    if (overlaps(&g->recs[i], start, end))
        return true;
    return false;
}

/* Call fn on every ALLOC record strictly below v, descending only where
 * an annotation says records lie, until fn returns nonzero: that value,
 * 0, or -1 (ENOMEM).  O(the annotated part of v's subtree): for the API's
 * slow paths (an exclusive allocation over a touched subtree, listing a
 * vertex's annotations by job), never for a match. */
typedef int (*below_f)(const grovep_rec_t *r, void *arg);

static int below_each(const grove_graph_t *g, grove_vid_t v, below_f fn, void *arg)
{
    int sub = g->containment;
    if (sub == 0xff || grovep_shared_head(g, v) == GROVEP_NONE)
        return 0;
    grove_vid_t buf[64];
    grove_vid_t *stack = buf;
    size_t n = 0, cap = 64;
    int rc = 0;
    stack[n++] = v;
    while (n && !rc) {
        grove_vid_t w = stack[--n];
        for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE && !rc; e = g->e[e].next_out) {
            grove_vid_t c = g->e[e].dst;
            if (g->e[e].sub != sub || (g->e[e].flags & GROVEP_E_UP) || g->parent[c] != w)
                continue;
            for (uint32_t i = grovep_recs_head(g, c); i != GROVEP_NONE && !rc; i = g->recs[i].next)
                rc = fn(&g->recs[i], arg);
            if (rc || grovep_shared_head(g, c) == GROVEP_NONE)
                continue;
            if (grovep_vstack_room(&stack, &cap, n, buf) < 0) {
                rc = -1;
                break;
            }
            stack[n++] = c;
        }
    }
    if (stack != buf)
        free(stack);
    return rc;
}

struct held_below {
    grove_jobid_t job;
    int64_t start, end;
    int who; /* bit 1: the job itself; bit 2: another job */
};

static int held_below_one(const grovep_rec_t *r, void *arg)
{
    struct held_below *h = arg;
    if (overlaps(r, h->start, h->end))
        h->who |= r->job == h->job ? 1 : 2;
    return h->who == 3;
}

/* Who holds records strictly below v overlapping [start, end): bit 1 the
 * job, bit 2 another job (both when memory runs out: refused either way). */
static int held_below(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int64_t start,
                      int64_t end)
{
    bool any = false;
    FOREACH_SHARED(g, v, i)
    any |= overlaps(&g->recs[i], start, end);
    if (!any)
        return 0;
    struct held_below h = {job, start, end, 0};
    return below_each(g, v, held_below_one, &h) < 0 ? 3 : h.who;
}

/* Any record of a job other than `job` (held here or below) on v
 * overlapping [start, end)? */
static bool touched_by_other(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                             int64_t start, int64_t end)
{
    /* held units show in the pool planner: none in the window, no record */
    if (peak_used(g, v, start, end) > 0) {
        FOREACH_ALLOC(g, v, i)
        if (g->recs[i].job != job && overlaps(&g->recs[i], start, end))
            return true;
    }
    return held_below(g, v, job, start, end) & 2;
}

/* Recompute the EXCL / ALLOC summary bits of v from its ALLOC records. */
static void refresh_flags(grove_graph_t *g, grove_vid_t v)
{
    uint8_t f = 0;
    /* both known at the first exclusive record: a node reserved by
     * thousands of jobs in turn is not walked whole at each removal */
    FOREACH_ALLOC(g, v, i)
    {
        f |= GROVEP_V_ALLOC;
        if (g->recs[i].excl) {
            f |= GROVEP_V_EXCL;
            break;
        }
    }
    g->v[v].flags = (uint8_t)((g->v[v].flags & ~(GROVEP_V_EXCL | GROVEP_V_ALLOC)) | f);
}

static void drop_alloc(grove_graph_t *g, grove_vid_t v, uint32_t r)
{
    rec_unindex(g, v, r);
    list_remove(g, grovep_head_ref(g, v, false), r);
    grovep_heads_tidy(g, v);
    grovep_rec_release(g, r);
    refresh_flags(g, v);
}

static void drop_shared(grove_graph_t *g, grove_vid_t v, uint32_t r)
{
    rec_unindex(g, v, r);
    list_remove(g, grovep_head_ref(g, v, true), r);
    grovep_heads_tidy(g, v);
    grovep_rec_release(g, r);
}

/* Count of ancestors of v (for preallocating records). */
static size_t ancestor_count(const grove_graph_t *g, grove_vid_t v)
{
    size_t n = 0;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a])
        n++;
    return n;
}

/* A small memo of (vertex -> SHARED record) for one job and window, so a
 * batch of picks under the same racks and cluster finds their annotations
 * without hashing each time.  Direct-mapped; a miss asks the index. */
#define MEMO_SLOTS 64
struct memo {
    grove_vid_t v[MEMO_SLOTS];
    uint32_t r[MEMO_SLOTS];
};

static void memo_init(struct memo *mm)
{
    memset(mm->v, 0xff, sizeof(mm->v));
}

static uint32_t memo_find(const grove_graph_t *g, struct memo *mm, grove_vid_t a,
                          int64_t start, int64_t end)
{
    if (mm && mm->v[a % MEMO_SLOTS] == a)
        return mm->r[a % MEMO_SLOTS];
    uint32_t r = rec_find(g, a, SHARED_JOB, start, end, GROVE_RECORD_SHARED);
    if (mm && r != GROVEP_NONE) {
        mm->v[a % MEMO_SLOTS] = a;
        mm->r[a % MEMO_SLOTS] = r;
    }
    return r;
}

/* Add one to the SHARED annotation of [start, end) on every ancestor of
 * v.  All or nothing: 0, or -1 (ENOMEM) with nothing changed.  mm (may be
 * NULL) remembers annotations across calls for the same window. */
static int annotate_up(grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                       struct memo *mm)
{
    struct anc {
        grove_vid_t a;
        uint32_t r;
        bool fresh;
    } stackbuf[32];
    size_t need = ancestor_count(g, v), n = 0;
    struct anc *anc = need <= 32 ? stackbuf : malloc(need * sizeof(*anc));
    if (!anc) {
        errno = ENOMEM;
        return -1;
    }
    /* 1: the annotation of each ancestor, or a new record for it */
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        uint32_t r = memo_find(g, mm, a, start, end);
        bool fresh = false;
        if (r == GROVEP_NONE) {
            r = grovep_rec_new(g);
            if (r == GROVEP_NONE)
                goto fail;
            g->recs[r] = (grovep_rec_t){
                .job = SHARED_JOB, .start = start, .end = end, .kind = GROVE_RECORD_SHARED};
            fresh = true;
        }
        anc[n++] = (struct anc){a, r, fresh};
    }
    /* 2: room in the index for the new ones */
    size_t nfresh = 0;
    for (size_t i = 0; i < n; i++)
        nfresh += anc[i].fresh;
    if (nfresh && idx_reserve(g, nfresh) < 0)
        goto fail;
    /* 3: link and count: nothing here can fail */
    for (size_t i = 0; i < n; i++) {
        if (anc[i].fresh) {
            g->recs[anc[i].r].v = anc[i].a;
            idx_put(g, anc[i].r);
            list_push(g, grovep_head_ref(g, anc[i].a, true), anc[i].r);
            grovep_busy_change(g, anc[i].a, anc[i].r, 1); /* a node may be in use now */
            if (mm) {
                mm->v[anc[i].a % MEMO_SLOTS] = anc[i].a;
                mm->r[anc[i].a % MEMO_SLOTS] = anc[i].r;
            }
        }
        g->recs[anc[i].r].amount++;
    }
    if (anc != stackbuf)
        free(anc);
    return 0;
fail:
    for (size_t i = 0; i < n; i++)
        if (anc[i].fresh)
            grovep_rec_release(g, anc[i].r);
    if (anc != stackbuf)
        free(anc);
    errno = ENOMEM;
    return -1;
}

/* Take one off the SHARED annotation of [start, end) on every ancestor of
 * v. */
static void unannotate_memo(grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                            struct memo *mm)
{
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        uint32_t r = memo_find(g, mm, a, start, end);
        if (r != GROVEP_NONE && --g->recs[r].amount <= 0) {
            /* the last record below a is gone: no later look-up of a */
            grovep_rec_removing(g, a, r);
            drop_shared(g, a, r);
        }
    }
}

static void unannotate_up(grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    unannotate_memo(g, v, start, end, NULL);
}

int grove_vertex_allocate(grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                          int64_t amount, int64_t start, int64_t end, bool exclusive)
{
    GROVEP_VCHECK(g, v, -1);
    int64_t size = grovep_vertex_size(g, v);
    if (amount <= 0 || amount > size || start < 0 || end <= start
        || start >= GROVE_PLANNER_TIME_MAX) {
        errno = EINVAL;
        return -1;
    }
    /* status and exclusivity of the ancestors */
    if (g->v[v].status != GROVE_STATUS_UP)
        goto busy;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        if (g->v[a].status != GROVE_STATUS_UP
            || grovep_excl_record(g, a, start, end, false, job) != GROVEP_NONE)
            goto busy;
        /* the job holds an ancestor whole: v is implied, a record of its
         * own would count it twice */
        if (grovep_excl_record(g, a, start, end, true, 0) != GROVEP_NONE) {
            errno = EEXIST;
            return -1;
        }
    }
    uint32_t mine = find_alloc(g, v, job, start, end);
    int64_t total = amount + (mine != GROVEP_NONE ? g->recs[mine].amount : 0);
    if (total > size)
        goto busy;
    bool excl = exclusive || total == size || (mine != GROVEP_NONE && g->recs[mine].asked);
    /* the job's records of v over other, overlapping windows: holding v
     * whole in one and units of it in another would count them twice */
    FOREACH_ALLOC(g, v, i)
    {
        const grovep_rec_t *o = &g->recs[i];
        if (i != mine && o->job == job && overlaps(o, start, end) && (excl || o->excl)) {
            errno = EEXIST;
            return -1;
        }
    }
    if (excl) {
        if (touched_by_other(g, v, job, start, end))
            goto busy;
        /* holding v whole while holding parts of it: implied twice */
        if (held_below(g, v, job, start, end) & 1) {
            errno = EEXIST;
            return -1;
        }
    } else if (grovep_excl_record(g, v, start, end, false, job) != GROVEP_NONE) {
        goto busy;
    }
    if (peak_used(g, v, start, end) + amount > size)
        goto busy;
    if (mine != GROVEP_NONE) {
        grovep_rec_t old = g->recs[mine];
        grovep_rec_removing(g, v, mine);
        g->recs[mine].amount = excl ? size : total; /* held whole: all of it */
        g->recs[mine].excl = excl;
        g->recs[mine].asked |= exclusive;
        if (grovep_rec_added(g, v, mine) < 0) {
            int saved = errno;
            g->recs[mine] = old;
            g->recs[mine].pspan = 0;
            grovep_rec_added(g, v, mine);
            errno = saved;
            return -1;
        }
        refresh_flags(g, v);
        return 0;
    }
    uint32_t r = grovep_rec_new(g);
    if (r == GROVEP_NONE)
        return -1;
    if (annotate_up(g, v, start, end, NULL) < 0) {
        grovep_rec_release(g, r);
        return -1;
    }
    g->recs[r] = (grovep_rec_t){
        .job = job,
        .amount = excl ? size : total, /* held whole: the record says all of it */
        .start = start,
        .end = end,
        .kind = GROVE_RECORD_ALLOC,
        .excl = excl,
        .asked = exclusive,
    };
    if (rec_index(g, v, r) < 0) {
        int saved = errno;
        grovep_rec_release(g, r);
        unannotate_up(g, v, start, end);
        errno = saved;
        return -1;
    }
    list_push(g, grovep_head_ref(g, v, false), r);
    g->v[v].flags |= (uint8_t)(GROVEP_V_ALLOC | (excl ? GROVEP_V_EXCL : 0));
    if (grovep_rec_added(g, v, r) < 0) {
        int saved = errno;
        drop_alloc(g, v, r);
        unannotate_up(g, v, start, end);
        errno = saved;
        return -1;
    }
    return 0;
busy:
    errno = EBUSY;
    return -1;
}

int grove_vertex_set_staged(grove_graph_t *g, grove_vid_t v, bool staged)
{
    GROVEP_VCHECK(g, v, -1);
    if (staged)
        g->v[v].flags |= GROVEP_V_STAGED;
    else
        g->v[v].flags &= (uint8_t)~GROVEP_V_STAGED;
    return 0;
}

bool grove_vertex_staged(const grove_graph_t *g, grove_vid_t v)
{
    return grovep_alive(g, v) && (g->v[v].flags & GROVEP_V_STAGED);
}

int grove_vertex_free(grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int64_t amount)
{
    GROVEP_VCHECK(g, v, -1);
    bool found = false;
    FOREACH_ALLOC(g, v, i)
    {
        const grovep_rec_t *r = &g->recs[i];
        if (r->job == job) {
            found = true;
            if (amount > r->amount) {
                errno = EINVAL;
                return -1;
            }
        }
    }
    if (!found) {
        errno = ENOENT;
        return -1;
    }
    uint32_t i = grovep_recs_head(g, v);
    while (i != GROVEP_NONE) {
        uint32_t next = g->recs[i].next;
        if (g->recs[i].job == job) {
            if (amount < 0 || amount == g->recs[i].amount) {
                int64_t s = g->recs[i].start, e = g->recs[i].end;
                grovep_rec_removing(g, v, i);
                drop_alloc(g, v, i);
                unannotate_up(g, v, s, e);
            } else if (amount > 0) {
                grovep_rec_removing(g, v, i);
                g->recs[i].amount -= amount;
                g->recs[i].excl = g->recs[i].asked || g->recs[i].amount == grovep_vertex_size(g, v);
                grovep_rec_added(g, v, i); /* smaller than before: only ENOMEM */
            }
        }
        i = next;
    }
    refresh_flags(g, v);
    return 0;
}

size_t grove_graph_free_job(grove_graph_t *g, grove_jobid_t job)
{
    size_t n = 0;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        uint32_t i = grovep_recs_head(g, v);
        while (i != GROVEP_NONE) {
            uint32_t next = g->recs[i].next;
            if (g->recs[i].job == job) {
                int64_t s = g->recs[i].start, e = g->recs[i].end;
                n++;
                grovep_rec_removing(g, v, i);
                drop_alloc(g, v, i);
                unannotate_up(g, v, s, e);
            }
            i = next;
        }
    }
    return n;
}

static void export_rec(const grovep_rec_t *r, grove_record_t *rec)
{
    rec->job = r->job;
    rec->kind = (grove_record_kind_t)r->kind;
    rec->amount = r->amount;
    rec->start = r->start;
    rec->end = r->end;
    rec->exclusive = r->excl;
    rec->asked = r->asked;
}

/* ---- a vertex's annotations by job, as the API lists them --------------
 *
 * For each job and window with records strictly below v, one SHARED entry
 * whose amount is how many: read from the records below (below_each),
 * sorted by job and window, and kept for the vertex last asked until a
 * record comes or goes, so that listing them one by one costs one walk. */

struct grovep_shlist {
    grove_vid_t v;
    uint64_t gen;
    size_t n;
    grove_record_t r[];
};

struct collect {
    grove_record_t *r;
    size_t n, cap;
};

static int collect_one(const grovep_rec_t *r, void *arg)
{
    struct collect *c = arg;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        grove_record_t *n = realloc(c->r, cap * sizeof(*n));
        if (!n) {
            errno = ENOMEM;
            return -1;
        }
        c->r = n;
        c->cap = cap;
    }
    c->r[c->n++] = (grove_record_t){
        .job = r->job, .kind = GROVE_RECORD_SHARED, .amount = 1, .start = r->start,
        .end = r->end};
    return 0;
}

static int shared_cmp(const void *a, const void *b)
{
    const grove_record_t *x = a, *y = b;
    if (x->job != y->job)
        return x->job < y->job ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The SHARED entries of v (kept in the graph's cache, which is logically
 * const), or NULL (ENOMEM). */
static const struct grovep_shlist *shared_list(const grove_graph_t *g, grove_vid_t v)
{
    grovep_recidx_t *x = (grovep_recidx_t *)(uintptr_t)&g->rec_idx;
    if (x->list && x->list->v == v && x->list->gen == x->gen)
        return x->list;
    struct collect c = {0};
    if (below_each(g, v, collect_one, &c) < 0) {
        free(c.r);
        return NULL;
    }
    if (c.n > 1)
        qsort(c.r, c.n, sizeof(*c.r), shared_cmp);
    size_t k = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (k && !shared_cmp(&c.r[k - 1], &c.r[i]))
            c.r[k - 1].amount++;
        else
            c.r[k++] = c.r[i];
    }
    struct grovep_shlist *l = malloc(sizeof(*l) + k * sizeof(l->r[0]));
    if (!l)
        return GROVEP_NULL_AFTER(free, c.r, ENOMEM);
    l->v = v;
    l->gen = x->gen;
    l->n = k;
    if (k)
        memcpy(l->r, c.r, k * sizeof(l->r[0]));
    free(c.r);
    free(x->list);
    x->list = l;
    return l;
}

int grove_vertex_record_at(const grove_graph_t *g, grove_vid_t v, size_t n,
                           grove_record_t *rec)
{
    if (grovep_alive(g, v)) {
        FOREACH_ALLOC(g, v, i)
        if (n-- == 0) {
            export_rec(&g->recs[i], rec);
            return 0;
        }
        const struct grovep_shlist *l =
            grovep_shared_head(g, v) == GROVEP_NONE ? NULL : shared_list(g, v);
        if (l && n < l->n) {
            *rec = l->r[n];
            return 0;
        }
        if (!l && grovep_shared_head(g, v) != GROVEP_NONE)
            return -1; /* ENOMEM */
    }
    errno = ENOENT;
    return -1;
}

size_t grove_vertex_record_count(const grove_graph_t *g, grove_vid_t v)
{
    size_t n = 0;
    if (grovep_alive(g, v)) {
        FOREACH_ALLOC(g, v, i)
        n++;
        const struct grovep_shlist *l =
            grovep_shared_head(g, v) == GROVEP_NONE ? NULL : shared_list(g, v);
        n += l ? l->n : 0;
    }
    return n;
}

int grove_vertex_set_size(grove_graph_t *g, grove_vid_t v, int64_t size)
{
    GROVEP_VCHECK(g, v, -1);
    if (size < 0) {
        errno = EINVAL;
        return -1;
    }
    /* the peak over all time must fit */
    if (peak_used(g, v, 0, GROVE_TIME_MAX) > size) {
        errno = EBUSY;
        return -1;
    }
    int64_t old = grovep_vertex_size(g, v);
    if (grovep_vertex_size_set(g, v, size) < 0)
        return -1;
    if (grovep_pool_resize(g, v, size) < 0) {
        (void)grovep_vertex_size_set(g, v, old); /* its entry is there: cannot fail */
        return -1;
    }
    g->agg_dirty = true;
    FOREACH_ALLOC(g, v, i)
    g->recs[i].excl = g->recs[i].asked || g->recs[i].amount == size;
    refresh_flags(g, v);
    return 0;
}

bool grovep_any_records(const grove_graph_t *g, const grove_vid_t *vs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (grovep_recs_head(g, vs[i]) != GROVEP_NONE || grovep_shared_head(g, vs[i]) != GROVEP_NONE)
            return true;
    return false;
}

void grovep_release_subtree(grove_graph_t *g, const grove_vid_t *vs, size_t n, grove_vid_t top)
{
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = vs[i];
        while (grovep_recs_head(g, v) != GROVEP_NONE) {
            uint32_t r = grovep_recs_head(g, v);
            grovep_rec_t rec = g->recs[r];
            grovep_rec_removing(g, v, r);
            drop_alloc(g, v, r);
            /* each ALLOC record below top counted once in the annotations above top */
            unannotate_up(g, top, rec.start, rec.end);
        }
        while (grovep_shared_head(g, v) != GROVEP_NONE) {
            uint32_t r = grovep_shared_head(g, v);
            grovep_rec_removing(g, v, r);
            drop_shared(g, v, r);
        }
    }
}

int grovep_job_record(grove_graph_t *g, grove_jobid_t job, int64_t start, int64_t end,
                      const grove_vid_t *vs, const int64_t *amount, const bool *excl, size_t n)
{
    uint32_t *recs = malloc((n ? n : 1) * sizeof(*recs));
    if (!recs) {
        errno = ENOMEM;
        return -1;
    }
    struct memo mm;
    memo_init(&mm);
    size_t k;
    grovep_busy_begin(g); /* the nodes' use summed, put in once (aggregate.c) */
    for (k = 0; k < n; k++) {
        grove_vid_t v = vs[k];
        uint32_t r = grovep_rec_new(g);
        if (r == GROVEP_NONE)
            goto fail;
        g->recs[r] = (grovep_rec_t){
            .job = job,
            .amount = amount[k],
            .start = start,
            .end = end,
            .kind = GROVE_RECORD_ALLOC,
            .excl = excl[k] || amount[k] == grovep_vertex_size(g, v),
            .asked = excl[k],
        };
        if (annotate_up(g, v, start, end, &mm) < 0) {
            grovep_rec_release(g, r);
            goto fail;
        }
        if (rec_index(g, v, r) < 0) {
            int saved = errno;
            grovep_rec_release(g, r);
            unannotate_up(g, v, start, end);
            errno = saved;
            goto fail;
        }
        list_push(g, grovep_head_ref(g, v, false), r);
        g->v[v].flags |= (uint8_t)(GROVEP_V_ALLOC | (g->recs[r].excl ? GROVEP_V_EXCL : 0));
        if (grovep_pool_add(g, v, r) < 0) {
            int saved = errno;
            drop_alloc(g, v, r);
            unannotate_up(g, v, start, end);
            errno = saved;
            goto fail;
        }
        recs[k] = r;
    }
    grovep_agg_add_job(g, vs, recs, n); /* on failure: rebuilt at the next use */
    grovep_busy_end(g);
    free(recs);
    return 0;
fail:;
    int saved = errno;
    /* undo the first k records (no aggregate spans were made yet) */
    while (k-- > 0) {
        grovep_pool_remove(g, vs[k], recs[k]);
        drop_alloc(g, vs[k], recs[k]);
        unannotate_up(g, vs[k], start, end);
    }
    grovep_busy_end(g);
    free(recs);
    errno = saved;
    return -1;
}

void grovep_job_release(grove_graph_t *g, grove_jobid_t job, int64_t start, int64_t end,
                        const grove_vid_t *vs, size_t n)
{
    if (n == 0)
        return;
    struct memo mm;
    memo_init(&mm);
    uint32_t buf[64];
    uint32_t *recs = n <= 64 ? buf : malloc(n * sizeof(*recs));
    for (size_t k = 0; recs && k < n; k++)
        recs[k] = find_alloc(g, vs[k], job, start, end);
    if (recs)
        grovep_agg_drop_job(g, vs, recs, n);
    else
        g->agg_dirty = true; /* no memory for the batch: rebuilt without them */
    grovep_busy_begin(g);
    for (size_t k = 0; k < n; k++) {
        grove_vid_t v = vs[k];
        uint32_t r = recs ? recs[k] : find_alloc(g, v, job, start, end);
        if (r == GROVEP_NONE)
            continue;
        grovep_pool_remove(g, v, r);
        drop_alloc(g, v, r);
        unannotate_memo(g, v, start, end, &mm);
    }
    grovep_busy_end(g);
    if (recs != buf)
        free(recs);
}

int grovep_shared_reindex(grove_graph_t *g)
{
    grovep_rec_index_free(g);
    /* the annotations are counted again from the records: a copy of part
     * of a graph holds only some of the records they counted */
    for (grove_vid_t v = 0; v < g->nv; v++) {
        while (grovep_shared_head(g, v) != GROVEP_NONE) {
            uint32_t r = grovep_shared_head(g, v);
            list_remove(g, grovep_head_ref(g, v, true), r);
            grovep_heads_tidy(g, v);
            grovep_rec_release(g, r);
        }
    }
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v))
            continue;
        FOREACH_ALLOC(g, v, i)
        if (rec_index(g, v, i) < 0 || annotate_up(g, v, g->recs[i].start, g->recs[i].end, NULL) < 0)
            return -1;
    }
    return 0;
}
