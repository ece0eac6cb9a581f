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
 * carries a SHARED annotation per job and window, counting the records below
 * it, so "is this subtree untouched in [s, e)?" is a look at one vertex.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

#define VCHECK(g, v, ret)                                                       \
    do {                                                                        \
        if (!grovep_alive(g, v)) {                                              \
            errno = EINVAL;                                                     \
            return ret;                                                         \
        }                                                                       \
    } while (0)

/* ---- properties and tags -------------------------------------------------- */

static uint32_t *kv_head(grove_graph_t *g, grove_vid_t v, bool tags)
{
    return tags ? &g->v[v].tags : &g->v[v].props;
}

static const uint32_t *kv_chead(const grove_graph_t *g, grove_vid_t v, bool tags)
{
    return tags ? &g->v[v].tags : &g->v[v].props;
}

static int kv_set(grove_graph_t *g, grove_vid_t v, bool tags, const char *key,
                  const char *value)
{
    VCHECK(g, v, -1);
    if (!key || !key[0] || (!tags && !value)) {
        errno = EINVAL;
        return -1;
    }
    grove_sym_t k = grove_intern(g->strings, key);
    grove_sym_t val = value ? grove_intern(g->strings, value) : GROVE_SYM_NONE;
    if (k == GROVE_SYM_NONE || (value && val == GROVE_SYM_NONE))
        return -1;
    uint32_t *head = kv_head(g, v, tags);
    uint32_t last = GROVEP_NONE;
    for (uint32_t i = *head; i != GROVEP_NONE; i = g->kv[i].next) {
        if (g->kv[i].key == k) {
            g->kv[i].val = val;
            return 0;
        }
        last = i;
    }
    uint32_t n = grovep_kv_new(g);
    if (n == GROVEP_NONE)
        return -1;
    head = kv_head(g, v, tags); /* g->kv may have moved, heads did not */
    g->kv[n] = (grovep_kv_t){k, val, GROVEP_NONE};
    if (last == GROVEP_NONE)
        *head = n;
    else
        g->kv[last].next = n;
    return 0;
}

static uint32_t kv_find(const grove_graph_t *g, grove_vid_t v, bool tags, const char *key)
{
    if (!grovep_alive(g, v) || !key)
        return GROVEP_NONE;
    grove_sym_t k = grove_intern_lookup(g->strings, key);
    if (k == GROVE_SYM_NONE)
        return GROVEP_NONE;
    for (uint32_t i = *kv_chead(g, v, tags); i != GROVEP_NONE; i = g->kv[i].next)
        if (g->kv[i].key == k)
            return i;
    return GROVEP_NONE;
}

static int kv_remove(grove_graph_t *g, grove_vid_t v, bool tags, const char *key)
{
    VCHECK(g, v, -1);
    grove_sym_t k = key ? grove_intern_lookup(g->strings, key) : GROVE_SYM_NONE;
    uint32_t *link = kv_head(g, v, tags);
    while (k != GROVE_SYM_NONE && *link != GROVEP_NONE) {
        uint32_t i = *link;
        if (g->kv[i].key == k) {
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
        for (uint32_t i = *kv_chead(g, v, tags); i != GROVEP_NONE; i = g->kv[i].next) {
            if (n-- == 0) {
                if (key)
                    *key = grove_intern_str(g->strings, g->kv[i].key);
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
        for (uint32_t i = *kv_chead(g, v, tags); i != GROVEP_NONE; i = g->kv[i].next)
            n++;
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

/* Peak units held on v by ALLOC records during [start, end), from its pool
 * planner (every vertex with ALLOC records has one). */
static int64_t peak_used(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    if (!(g->v[v].flags & GROVEP_V_ALLOC))
        return 0;
    int64_t peak = grovep_pool_peak(g, v, start, end);
    /* no planner for a vertex with records: only after a failed update;
     * count the pool as full rather than over-allocate it */
    return peak < 0 ? g->v[v].size : peak;
}

/* A record on v held exclusively during the window by a job other than
 * `except` (pass 0 with any_job to match every job).  Returns the record
 * index or GROVEP_NONE. */
static uint32_t excl_record(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                            bool any_job, grove_jobid_t except)
{
    if (!(g->v[v].flags & GROVEP_V_EXCL))
        return GROVEP_NONE;
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        const grovep_rec_t *r = &g->recs[i];
        if (r->kind == GROVE_RECORD_ALLOC && r->excl && overlaps(r, start, end)
            && (any_job || r->job != except))
            return i;
    }
    return GROVEP_NONE;
}

int64_t grovep_own_available(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    if (g->v[v].status != GROVE_STATUS_UP)
        return 0;
    if (excl_record(g, v, start, end, true, 0) != GROVEP_NONE)
        return 0;
    int64_t used = peak_used(g, v, start, end);
    if (used < 0)
        return 0;
    int64_t avail = g->v[v].size - used;
    return avail > 0 ? avail : 0;
}

int64_t grove_vertex_available_during(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                      int64_t end)
{
    if (!grovep_alive(g, v) || end <= start)
        return 0;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        if (g->v[a].status != GROVE_STATUS_UP
            || excl_record(g, a, start, end, true, 0) != GROVEP_NONE)
            return 0;
    }
    return grovep_own_available(g, v, start, end);
}

int64_t grove_vertex_available(const grove_graph_t *g, grove_vid_t v)
{
    return grove_vertex_available_during(g, v, g->now, g->now + 1);
}

int64_t grove_vertex_allocated_at(const grove_graph_t *g, grove_vid_t v, int64_t t)
{
    int64_t n = 0;
    if (!grovep_alive(g, v))
        return 0;
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        const grovep_rec_t *r = &g->recs[i];
        if (r->kind == GROVE_RECORD_ALLOC && r->start <= t && t < r->end)
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
    for (grove_vid_t a = v; a != GROVEP_NONE && a < g->nv; a = g->parent[a]) {
        uint32_t i = excl_record(g, a, t, t + 1, true, 0);
        if (i != GROVEP_NONE) {
            if (job)
                *job = g->recs[i].job;
            return true;
        }
    }
    return false;
}

/* The record of `job` of `kind` on v with exactly this window. */
static uint32_t find_record(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int kind,
                            int64_t start, int64_t end)
{
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        const grovep_rec_t *r = &g->recs[i];
        if (r->job == job && r->kind == kind && r->start == start && r->end == end)
            return i;
    }
    return GROVEP_NONE;
}

/* Is any record of another job (held or shared) on v during the window? */
static bool touched_by_other(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                             int64_t start, int64_t end)
{
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        const grovep_rec_t *r = &g->recs[i];
        if (r->job != job && overlaps(r, start, end))
            return true;
    }
    return false;
}

/* Recompute the EXCL / ALLOC summary bits of v from its records. */
static void refresh_flags(grove_graph_t *g, grove_vid_t v)
{
    uint8_t f = 0;
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        if (g->recs[i].kind != GROVE_RECORD_ALLOC)
            continue;
        f |= GROVEP_V_ALLOC;
        if (g->recs[i].excl)
            f |= GROVEP_V_EXCL;
    }
    g->v[v].flags = (uint8_t)((g->v[v].flags & ~(GROVEP_V_EXCL | GROVEP_V_ALLOC)) | f);
}

static void unlink_record(grove_graph_t *g, grove_vid_t v, uint32_t idx)
{
    uint32_t *link = &g->v[v].recs;
    while (*link != GROVEP_NONE) {
        if (*link == idx) {
            *link = g->recs[idx].next;
            grovep_rec_release(g, idx);
            refresh_flags(g, v);
            return;
        }
        link = &g->recs[*link].next;
    }
}

/* Count of ancestors of v (for preallocating records). */
static size_t ancestor_count(const grove_graph_t *g, grove_vid_t v)
{
    size_t n = 0;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a])
        n++;
    return n;
}

/* Add one to the job's SHARED annotation on every ancestor of v. */
static int annotate_up(grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int64_t start,
                       int64_t end)
{
    /* reserve enough records first so the loop below cannot fail midway */
    size_t need = ancestor_count(g, v);
    uint32_t *fresh = need ? malloc(need * sizeof(*fresh)) : NULL;
    size_t nfresh = 0;
    if (need && !fresh) {
        errno = ENOMEM;
        return -1;
    }
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        if (find_record(g, a, job, GROVE_RECORD_SHARED, start, end) == GROVEP_NONE) {
            uint32_t r = grovep_rec_new(g);
            if (r == GROVEP_NONE) {
                while (nfresh)
                    grovep_rec_release(g, fresh[--nfresh]);
                free(fresh);
                return -1;
            }
            fresh[nfresh++] = r;
        }
    }
    size_t k = 0;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        uint32_t r = find_record(g, a, job, GROVE_RECORD_SHARED, start, end);
        if (r != GROVEP_NONE) {
            g->recs[r].amount++;
            continue;
        }
        r = fresh[k++];
        g->recs[r] = (grovep_rec_t){
            .job = job,
            .amount = 1,
            .start = start,
            .end = end,
            .next = g->v[a].recs,
            .kind = GROVE_RECORD_SHARED,
        };
        g->v[a].recs = r;
    }
    free(fresh);
    return 0;
}

/* Take one off the job's SHARED annotation on every ancestor of v. */
static void unannotate_up(grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int64_t start,
                          int64_t end)
{
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        uint32_t r = find_record(g, a, job, GROVE_RECORD_SHARED, start, end);
        if (r != GROVEP_NONE && --g->recs[r].amount <= 0)
            unlink_record(g, a, r);
    }
}

int grove_vertex_allocate(grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                          int64_t amount, int64_t start, int64_t end, bool exclusive)
{
    VCHECK(g, v, -1);
    grovep_vertex_t *x = &g->v[v];
    if (amount <= 0 || amount > x->size || start < 0 || end <= start) {
        errno = EINVAL;
        return -1;
    }
    /* status and exclusivity of the ancestors */
    if (x->status != GROVE_STATUS_UP)
        goto busy;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        if (g->v[a].status != GROVE_STATUS_UP
            || excl_record(g, a, start, end, false, job) != GROVEP_NONE)
            goto busy;
        /* the job holds an ancestor whole: v is implied, a record of its
         * own would count it twice */
        uint32_t mine_above = excl_record(g, a, start, end, true, 0);
        if (mine_above != GROVEP_NONE && g->recs[mine_above].job == job) {
            errno = EEXIST;
            return -1;
        }
    }
    uint32_t mine = find_record(g, v, job, GROVE_RECORD_ALLOC, start, end);
    int64_t total = amount + (mine != GROVEP_NONE ? g->recs[mine].amount : 0);
    if (total > x->size)
        goto busy;
    bool excl = exclusive || total == x->size
                || (mine != GROVEP_NONE && g->recs[mine].asked);
    if (excl) {
        if (touched_by_other(g, v, job, start, end))
            goto busy;
        /* holding v whole while holding parts of it: implied twice */
        for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
            const grovep_rec_t *r = &g->recs[i];
            if (r->job == job && r->kind == GROVE_RECORD_SHARED && overlaps(r, start, end)) {
                errno = EEXIST;
                return -1;
            }
        }
    } else if (excl_record(g, v, start, end, false, job) != GROVEP_NONE) {
        goto busy;
    }
    int64_t used = peak_used(g, v, start, end);
    if (used < 0)
        return -1;
    if (used + amount > x->size)
        goto busy;
    if (mine != GROVEP_NONE) {
        grovep_rec_t old = g->recs[mine];
        grovep_rec_removing(g, v, mine);
        g->recs[mine].amount = total;
        g->recs[mine].excl = excl;
        g->recs[mine].asked |= exclusive;
        if (grovep_rec_added(g, v, mine) < 0) {
            int saved = errno;
            g->recs[mine] = old;
            g->recs[mine].pspan = g->recs[mine].aspan = 0;
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
    if (annotate_up(g, v, job, start, end) < 0) {
        grovep_rec_release(g, r);
        return -1;
    }
    g->recs[r] = (grovep_rec_t){
        .job = job,
        .amount = total,
        .start = start,
        .end = end,
        .next = g->v[v].recs,
        .kind = GROVE_RECORD_ALLOC,
        .excl = excl,
        .asked = exclusive,
    };
    g->v[v].recs = r;
    refresh_flags(g, v);
    if (grovep_rec_added(g, v, r) < 0) {
        int saved = errno;
        unannotate_up(g, v, job, start, end);
        unlink_record(g, v, r);
        errno = saved;
        return -1;
    }
    return 0;
busy:
    errno = EBUSY;
    return -1;
}

int grove_vertex_free(grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int64_t amount)
{
    VCHECK(g, v, -1);
    bool found = false;
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        const grovep_rec_t *r = &g->recs[i];
        if (r->job == job && r->kind == GROVE_RECORD_ALLOC) {
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
    uint32_t i = g->v[v].recs;
    while (i != GROVEP_NONE) {
        grovep_rec_t *r = &g->recs[i];
        uint32_t next = r->next;
        if (r->job == job && r->kind == GROVE_RECORD_ALLOC) {
            if (amount < 0 || amount == r->amount) {
                int64_t s = r->start, e = r->end;
                grovep_rec_removing(g, v, i);
                unlink_record(g, v, i);
                unannotate_up(g, v, job, s, e);
            } else if (amount > 0) {
                grovep_rec_removing(g, v, i);
                g->recs[i].amount -= amount;
                g->recs[i].excl = g->recs[i].asked || g->recs[i].amount == g->v[v].size;
                grovep_rec_added(g, v, i); /* smaller than before: cannot fail but ENOMEM */
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
        uint32_t *link = &g->v[v].recs;
        while (*link != GROVEP_NONE) {
            uint32_t i = *link;
            if (g->recs[i].job == job) {
                if (g->recs[i].kind == GROVE_RECORD_ALLOC)
                    n++;
                grovep_rec_removing(g, v, i);
                *link = g->recs[i].next;
                grovep_rec_release(g, i);
            } else {
                link = &g->recs[i].next;
            }
        }
        refresh_flags(g, v);
    }
    return n;
}

int grove_vertex_record_at(const grove_graph_t *g, grove_vid_t v, size_t n,
                           grove_record_t *rec)
{
    if (grovep_alive(g, v)) {
        for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
            if (n-- == 0) {
                const grovep_rec_t *r = &g->recs[i];
                rec->job = r->job;
                rec->kind = (grove_record_kind_t)r->kind;
                rec->amount = r->amount;
                rec->start = r->start;
                rec->end = r->end;
                rec->exclusive = r->excl;
                return 0;
            }
        }
    }
    errno = ENOENT;
    return -1;
}

size_t grove_vertex_record_count(const grove_graph_t *g, grove_vid_t v)
{
    size_t n = 0;
    if (grovep_alive(g, v))
        for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next)
            n++;
    return n;
}

int grove_vertex_set_size(grove_graph_t *g, grove_vid_t v, int64_t size)
{
    VCHECK(g, v, -1);
    if (size < 0) {
        errno = EINVAL;
        return -1;
    }
    /* the peak over all time must fit */
    int64_t used = peak_used(g, v, 0, GROVE_TIME_MAX);
    if (used < 0)
        return -1;
    if (used > size) {
        errno = EBUSY;
        return -1;
    }
    int64_t old = g->v[v].size;
    g->v[v].size = size;
    if (grovep_pool_resize(g, v, size) < 0) {
        g->v[v].size = old;
        return -1;
    }
    g->agg_dirty = true;
    for (uint32_t i = g->v[v].recs; i != GROVEP_NONE; i = g->recs[i].next) {
        grovep_rec_t *r = &g->recs[i];
        if (r->kind == GROVE_RECORD_ALLOC)
            r->excl = r->asked || r->amount == size;
    }
    refresh_flags(g, v);
    return 0;
}

bool grovep_any_records(const grove_graph_t *g, const grove_vid_t *vs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (g->v[vs[i]].recs != GROVEP_NONE)
            return true;
    return false;
}

void grovep_release_subtree(grove_graph_t *g, const grove_vid_t *vs, size_t n, grove_vid_t top)
{
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = vs[i];
        while (g->v[v].recs != GROVEP_NONE) {
            uint32_t r = g->v[v].recs;
            grovep_rec_removing(g, v, r);
            grovep_rec_t rec = g->recs[r];
            g->v[v].recs = rec.next;
            grovep_rec_release(g, r);
            /* each ALLOC record below top counted once in the annotations above top */
            if (rec.kind == GROVE_RECORD_ALLOC)
                unannotate_up(g, top, rec.job, rec.start, rec.end);
        }
        refresh_flags(g, v);
    }
}
