/* match_job.c: the matcher's jobs: the table, their kept requests, the
 * clock, cancel, release and re-plan.
 *
 * Workload: a live session of tens of thousands of jobs, most of them
 * added with growing ids and removed oldest first.  The table and the
 * kept requests are arrays sorted by id with room kept in front, so that
 * both ends change in O(1); release frees a job whole or in part (ranks
 * or vertices); restore puts back a job read from R or the store; re-plan
 * matches every job again from its kept request; the clock ends the jobs
 * whose window is past (queued as events).
 *
 * This file must not search (match_walk.c) or write records itself
 * (match_record.c); re-plan goes through the public grove_match.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_private.h"
#include "match_private.h"

static void kept_forget(grove_matcher_t *m, grove_jobid_t id);

void grovep_match_job_free(grove_job_t *j)
{
    if (j) {
        free(j->picks);
        free(j);
    }
}

/* The allocation of table a (NULL for none), for free (see dtab_open below). */
void *grovep_match_dtab_base(void *a, size_t off, size_t elem)
{
    return a ? (char *)a - off * elem : NULL;
}

/* ---- job table ------------------------------------------------------------ */

/* The job table and the kept requests are arrays sorted by id, of *n
 * elements of elem bytes starting *off elements into an allocation of
 * *cap.  Jobs come with growing ids, so a new one is appended; one that
 * goes moves the entries on its nearer side by one, the front ones moving
 * up into room kept in front (off), so that the oldest or the newest goes
 * in O(1): cancelling every job, oldest first, moved the whole table at
 * each cancel.  The room in front is taken back by one slide once it is
 * half the table, or when the table is shrunk: amortised O(1). */
static void dtab_slide(void **a, size_t n, size_t *off, size_t elem)
{
    if (!*off)
        return;
    char *base = (char *)*a - *off * elem;
    memmove(base, *a, n * elem);
    *a = base;
    *off = 0;
}

/* Open position i (the entries from i move back by one); *n grows.  0 or
 * -1 (ENOMEM), the table unchanged. */
static int dtab_open(void **a, size_t *n, size_t *cap, size_t *off, size_t elem, size_t i)
{
    if (*off + *n == *cap) {
        if (*off > *n / 2) {
            dtab_slide(a, *n, off, elem);
        } else {
            void *base = grovep_match_dtab_base(*a, *off, elem);
            size_t c = *cap;
            if (grovep_grow(&base, &c, *off + *n + 1, elem) < 0)
                return -1;
            *a = (char *)base + *off * elem;
            *cap = c;
        }
    }
    char *p = *a;
    memmove(p + (i + 1) * elem, p + i * elem, (*n - i) * elem);
    (*n)++;
    return 0;
}

/* Close position i; the table gives back room it no longer needs. */
static void dtab_close(void **a, size_t *n, size_t *cap, size_t *off, size_t elem, size_t i)
{
    char *p = *a;
    if (i < *n / 2) {
        memmove(p + elem, p, i * elem);
        *a = p + elem;
        (*off)++;
    } else {
        memmove(p + i * elem, p + (i + 1) * elem, (*n - i - 1) * elem);
    }
    (*n)--;
    if (*n * 4 <= *cap) {
        dtab_slide(a, *n, off, elem); /* O(n), once per halving of the room */
        grovep_shrink(a, cap, *n, elem);
    }
}

static size_t job_pos(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, m->njobs, mid, m->jobs[mid]->id < id);
    return lo;
}

/* The position of job id in the table, or -1 (ENOENT). */
long grovep_match_job_index(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t i = job_pos(m, id);
    if (i < m->njobs && m->jobs[i]->id == id)
        return (long)i;
    errno = ENOENT;
    return -1;
}

/* Job i of the table, whole (grovep_match_job_fill), or NULL (ENOMEM).
 * A compact job is a reservation kept short until it is read: as its
 * readers see it (here, the only way to it from outside) it is whole, so,
 * as grovep_tree_kids makes its cache, the table is completed through a
 * const matcher. */
static grove_job_t *whole_at(const grove_matcher_t *m, size_t i)
{
    grove_job_t *j = m->jobs[i];
    return grovep_match_job_fill(m->g, j) < 0 ? NULL : j;
}

const grove_job_t *grove_matcher_job(const grove_matcher_t *m, grove_jobid_t id)
{
    long i = grovep_match_job_index(m, id);
    return i < 0 ? NULL : whole_at(m, (size_t)i);
}

const grove_job_t *grove_matcher_job_kept(const grove_matcher_t *m, grove_jobid_t id)
{
    long i = grovep_match_job_index(m, id);
    return i < 0 ? NULL : m->jobs[i];
}

void grove_matcher_set_compact(grove_matcher_t *m, bool on)
{
    m->compact = on;
}

void grove_matcher_set_tell_never(grove_matcher_t *m, bool on)
{
    m->busy_only = !on;
}

int grove_matcher_prepare(grove_matcher_t *m)
{
    if (m->g->agg_dirty && grovep_agg_refresh(m->g) < 0)
        return -1;
    /* the tree's child arrays, which a whole machine's expansion reads
     * (without them, it walks the edge lists) */
    const uint32_t *off;
    (void)grovep_tree_kids(m->g, &off, NULL);
    return grovep_match_scratch_reserve(m);
}

const grove_job_t *grove_matcher_result(const grove_matcher_t *m)
{
    return m->result.picks ? &m->result : NULL;
}

const grove_job_t *grove_matcher_job_at(const grove_matcher_t *m, size_t i)
{
    return i < m->njobs ? whole_at(m, i) : NULL;
}

size_t grove_matcher_job_count(const grove_matcher_t *m)
{
    return m->njobs;
}

grove_jobid_t grove_matcher_next_id(const grove_matcher_t *m)
{
    return m->next_id;
}

int grove_matcher_set_next_id(grove_matcher_t *m, grove_jobid_t id)
{
    if (id == 0 || (m->njobs && id <= m->jobs[m->njobs - 1]->id)) {
        errno = EINVAL;
        return -1;
    }
    m->next_id = id;
    return 0;
}

int grovep_match_job_insert(grove_matcher_t *m, grove_job_t *j)
{
    size_t i = job_pos(m, j->id);
    if (dtab_open((void **)&m->jobs, &m->njobs, &m->jobcap, &m->jobs_off, sizeof(*m->jobs), i)
        < 0)
        return -1;
    m->jobs[i] = j;
    m->holder->njobs = m->njobs;
    if (j->id >= m->next_id)
        m->next_id = j->id + 1;
    m->holder->next_id = m->next_id; /* where a copy of the graph numbers on */
    return 0;
}

static grove_job_t *job_detach(grove_matcher_t *m, size_t i);

static void job_remove_at(grove_matcher_t *m, size_t i)
{
    kept_forget(m, m->jobs[i]->id);
    grovep_match_job_free(job_detach(m, i)); /* what it asked for stops counting there */
}

/* ---- cancel and release ------------------------------------------------------------ */

/* Job i's records freed, and the job out of the table. */
static void cancel_at(grove_matcher_t *m, size_t i)
{
    grove_job_t *j = m->jobs[i];
    grovep_match_unrecord(m->g, j->id, j->start, j->end, j->picks, j->npicks);
    job_remove_at(m, i);
}

int grove_matcher_cancel(grove_matcher_t *m, grove_jobid_t id)
{
    long i = grovep_match_job_index(m, id);
    if (i < 0)
        return -1;
    cancel_at(m, (size_t)i);
    return 0;
}

/* When many records go at once (a conservative pass drops every
 * reservation, hundreds of thousands of records, each of which merged its
 * node's windows into the busy tallies and took its share out of every
 * aggregate above it, only for the next records to put most of them
 * back), the aggregates' upkeep of each is skipped and their spans are
 * rebuilt from the records that stay (grovep_agg_respan), which reads
 * every vertex once and puts each staying record in again.  So: when the
 * records of the jobs going are at least half of those the graph holds,
 * and more than one for each BULK_VERTICES vertices.  Records, not picks:
 * a reservation of 512 whole nodes is 512 records, whatever lies below
 * them (23,000 picks of sierra's topology), and dropping easy's one such
 * reservation beside the running jobs' records went through the rebuild
 * of every span (a fifth of an easy loop's instructions at 1,024 nodes,
 * bench/RESULTS.md). */
#define BULK_VERTICES 64

static int cmp_jobid(const void *a, const void *b)
{
    grove_jobid_t x = *(const grove_jobid_t *)a, y = *(const grove_jobid_t *)b;
    return (x > y) - (x < y);
}

long grove_matcher_cancel_many(grove_matcher_t *m, const grove_jobid_t *ids, size_t n)
{
    if (n == 0)
        return 0;
    grove_jobid_t *sorted = malloc(n * sizeof(*sorted));
    if (!sorted) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(sorted, ids, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_jobid);
    /* the jobs of the table, each once, and their records */
    size_t k = 0, recs = 0;
    for (size_t i = 0; i < n; i++) {
        long x = grovep_match_job_index(m, sorted[i]);
        if (x < 0 || (k > 0 && sorted[k - 1] == sorted[i]))
            continue;
        sorted[k++] = sorted[i];
        const grove_job_t *j = m->jobs[x];
        for (size_t p = 0; p < j->npicks; p++)
            recs += j->picks[p].recorded;
    }
    grove_graph_t *g = m->g;
    bool bulk = !g->agg_dirty && g->naggs && recs * BULK_VERTICES >= g->nlive
                && 2 * recs >= g->nrec_live;
    if (bulk)
        g->agg_dirty = true; /* their upkeep skipped, as for a graph to rebuild */
    /* from the last: the table closes up behind each */
    for (size_t i = k; i-- > 0;)
        cancel_at(m, (size_t)grovep_match_job_index(m, sorted[i]));
    free(sorted);
    if (bulk) {
        g->agg_dirty = false;
        (void)grovep_agg_respan(g); /* on failure left dirty: rebuilt whole at the next use */
    }
    return (long)k;
}

static int64_t rank_of(const grove_graph_t *g, grove_vid_t v)
{
    for (grove_vid_t a = v; a != GROVEP_NONE; a = g->parent[a])
        if (g->v[a].rank >= 0)
            return g->v[a].rank;
    return -1;
}

/* Which picks of job j stay when those marked in rel go: its remaining
 * records, what they imply below them, and the containers above them. */
static void release_keep(const grove_matcher_t *m, const grove_job_t *j, const uint8_t *rel,
                         uint8_t *keep)
{
    const grove_graph_t *g = m->g;
    for (size_t p = 0; p < j->npicks; p++)
        keep[p] = !rel[p] && j->picks[p].recorded;
    for (size_t p = 0; p < j->npicks; p++) {
        if (rel[p] || keep[p])
            continue;
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE; a = g->parent[a]) {
            long x = pick_index(j, a);
            if (x >= 0 && keep[x] && j->picks[x].exclusive && j->picks[x].recorded) {
                keep[p] = 1;
                break;
            }
        }
    }
    for (size_t p = 0; p < j->npicks; p++) {
        if (!keep[p] || rel[p])
            continue;
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE; a = g->parent[a]) {
            long x = pick_index(j, a);
            if (x < 0 || keep[x])
                break;
            if (!rel[x])
                keep[x] = 1;
        }
    }
}

/* Release the picks of job i marked in rel[] (marks are added for the
 * channel units that go with them).  What stays is what release_keep
 * says; shared containers left with nothing below go too, and so do the
 * channel units of every vertex that goes.  The job goes when it holds
 * nothing. */
static long release_marked(grove_matcher_t *m, size_t i, uint8_t *rel, bool *removed)
{
    grove_job_t *j = m->jobs[i];
    long n = 0;
    uint8_t *keep = calloc(j->npicks ? j->npicks : 1, 1);
    uint8_t *fed = calloc(j->npicks ? j->npicks : 1, 1); /* channel units given back */
    if (!keep || !fed) {
        free(keep);
        free(fed);
        errno = ENOMEM;
        return -1;
    }
    /* what the caller named (channel units given back below mark more) */
    memcpy(keep, rel, j->npicks);
    for (size_t p = 0; p < j->npicks; p++) {
        if (keep[p]) {
            n += grovep_match_channel_pool_release(m, j, (long)p, rel);
            if (j->picks[p].recorded)
                grove_vertex_free(m->g, j->picks[p].v, j->id, -1);
            j->picks[p].recorded = false;
            n++;
        }
    }
    /* a vertex going gives back its channel units; that may leave a
     * container (a switch's rack) with nothing below: until nothing moves */
    long gave;
    do {
        release_keep(m, j, rel, keep);
        gave = 0;
        for (size_t p = 0; p < j->npicks; p++) {
            if (keep[p] || fed[p])
                continue;
            fed[p] = 1;
            gave += grovep_match_channel_release(m, j, j->picks[p].v, rel);
        }
        n += gave;
    } while (gave > 0);
    size_t k = 0;
    bool held = false;
    for (size_t p = 0; p < j->npicks; p++) {
        if (!keep[p]) {
            if (!rel[p])
                n++; /* a container left with nothing below: released too */
            if (j->use_held)
                (void)grovep_match_use_count_all(m, USE_HELD, &j->picks[p], 1, -1);
            continue;
        }
        held |= j->picks[p].recorded;
        j->picks[k++] = j->picks[p];
    }
    j->npicks = k;
    free(keep);
    free(fed);
    if (!held) {
        grovep_match_unrecord(m->g, j->id, j->start, j->end, j->picks, j->npicks);
        job_remove_at(m, i);
    }
    if (removed)
        *removed = !held;
    return n;
}

/* A zeroed release mark per pick of job id (new: caller frees), its place
 * in the table in *i, the job whole; NULL with ENOENT or ENOMEM. */
static uint8_t *release_marks(const grove_matcher_t *m, grove_jobid_t id, size_t *i)
{
    long k = grovep_match_job_index(m, id);
    if (k < 0 || !whole_at(m, (size_t)k))
        return NULL;
    *i = (size_t)k;
    size_t n = m->jobs[k]->npicks;
    uint8_t *rel = calloc(n ? n : 1, 1);
    return grovep_or_errno(rel, ENOMEM);
}

/* Before a partial release of ranks below a vertex without a rank that
 * job j holds exclusively (a chassis or a rack taken whole): that hold
 * would keep the released nodes, and everything else below it, from every
 * other job until the final free (Fluxion keeps them so, its issue 1561).
 * So its hold is pushed down onto what j holds below it, each held whole:
 * the vertex becomes a container the job shares, the ranks released go
 * back at once, and what stays (the other nodes, the ssds no rank covers)
 * stays held.  0, or -1 (ENOMEM) with j's records as they were. */
static int push_down_holds(grove_matcher_t *m, grove_job_t *j, const uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    size_t n = j->npicks;
    uint8_t *split = calloc(n ? n : 1, 1);
    if (!split)
        goto nomem;
    bool any = false;
    for (size_t p = 0; p < n; p++) {
        if (!rel[p])
            continue;
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE; a = g->parent[a]) {
            long x = pick_index(j, a);
            if (x >= 0 && j->picks[x].exclusive && j->picks[x].recorded && rank_of(g, a) < 0) {
                split[x] = 1;
                any = true;
            }
        }
    }
    if (!any) {
        free(split);
        return 0;
    }
    grove_pick_t *old = malloc(n * sizeof(*old));
    uint8_t *imp = calloc(n, 1);
    if (!old || !imp) {
        free(old);
        free(imp);
        free(split);
        goto nomem;
    }
    memcpy(old, j->picks, n * sizeof(*old));
    grovep_match_unrecord(m->g, j->id, j->start, j->end, j->picks, n);
    for (size_t p = 0; p < n; p++) {
        if (split[p]) {
            j->picks[p].exclusive = false;
            continue;
        }
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE; a = g->parent[a]) {
            long x = pick_index(j, a);
            if (x >= 0 && split[x]) {
                j->picks[p].exclusive = true;
                break;
            }
        }
    }
    /* implied: below a pick held exclusively */
    for (size_t p = 0; p < n; p++)
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE && !imp[p];
             a = g->parent[a]) {
            long x = pick_index(j, a);
            imp[p] = x >= 0 && j->picks[x].exclusive;
        }
    int rc = grovep_match_record(m->g, j->id, j->picks, n, j->start, j->end, imp);
    if (rc < 0) {
        /* as they were: the records the job had */
        memcpy(j->picks, old, n * sizeof(*old));
        for (size_t p = 0; p < n; p++)
            imp[p] = !old[p].recorded;
        (void)grovep_match_record(m->g, j->id, j->picks, n, j->start, j->end, imp);
    }
    free(old);
    free(imp);
    free(split);
    if (rc < 0)
        goto nomem;
    return 0;
nomem:
    errno = ENOMEM;
    return -1;
}

long grove_matcher_release_ranks(grove_matcher_t *m, grove_jobid_t id,
                                 const grove_idset_t *ranks, bool *removed)
{
    size_t i;
    uint8_t *rel = release_marks(m, id, &i);
    if (!rel)
        return -1;
    const grove_job_t *j = m->jobs[i];
    for (size_t p = 0; p < j->npicks; p++) {
        int64_t r = rank_of(m->g, j->picks[p].v);
        rel[p] = r >= 0 && r < (int64_t)UINT32_MAX && grove_idset_test(ranks, (unsigned)r);
    }
    if (push_down_holds(m, m->jobs[i], rel) < 0) {
        free(rel);
        return -1;
    }
    long n = release_marked(m, i, rel, removed);
    free(rel);
    return n;
}

long grove_matcher_release_vertices(grove_matcher_t *m, grove_jobid_t id,
                                    const grove_vid_t *vs, size_t n, bool *removed)
{
    size_t i;
    uint8_t *rel = release_marks(m, id, &i);
    if (!rel)
        return -1;
    for (size_t k = 0; k < n; k++) {
        long x = pick_index(m->jobs[i], vs[k]);
        if (x < 0) {
            free(rel);
            errno = EINVAL;
            return -1;
        }
        rel[x] = 1;
    }
    long r = release_marked(m, i, rel, removed);
    free(rel);
    return r;
}

void grove_matcher_stats(const grove_matcher_t *m, grove_match_stats_t *st)
{
    *st = m->stats;
}

void grove_matcher_stats_reset(grove_matcher_t *m)
{
    memset(&m->stats, 0, sizeof(m->stats));
}

int grove_matcher_restore(grove_matcher_t *m, const grove_job_t *src)
{
    if (!src || src->id == 0 || src->end <= src->start) {
        errno = EINVAL;
        return -1;
    }
    if (grovep_match_job_index(m, src->id) >= 0) {
        errno = EEXIST;
        return -1;
    }
    if (grovep_match_hold(m, NULL) < 0)
        return -1;
    grove_job_t *j = calloc(1, sizeof(*j));
    uint8_t *imp = calloc(src->npicks ? src->npicks : 1, 1);
    grove_pick_t *pk = malloc((src->npicks ? src->npicks : 1) * sizeof(*pk));
    if (!j || !imp || !pk) {
        free(imp);
        free(pk);
        grovep_match_job_free(j);
        errno = ENOMEM;
        return -1;
    }
    *j = *src;
    j->picks = pk;
    if (src->npicks) { /* a job of no picks may have no array */
        memcpy(j->picks, src->picks, src->npicks * sizeof(*j->picks));
        qsort(j->picks, j->npicks, sizeof(*j->picks), grovep_match_cmp_pick);
    }
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        /* a saved job is recorded without the matcher's checks: a unit
         * count its vertex cannot hold is refused here */
        if (!grove_graph_has_vertex(m->g, p->v)
            || (p->leaf && !p->exclusive
                && (p->amount <= 0 || p->amount > grovep_vertex_size(m->g, p->v)))) {
            free(imp);
            grovep_match_job_free(j);
            errno = EINVAL;
            return -1;
        }
    }
    /* which picks carry records: as the job says when it says (a saved job:
     * its walk may have followed another subsystem, its channeled pools
     * lie outside containment), else those without an exclusive
     * containment ancestor among the picks */
    bool said = false;
    for (size_t i = 0; i < j->npicks && !said; i++)
        said = j->picks[i].recorded;
    for (size_t i = 0; said && i < j->npicks; i++)
        imp[i] = !j->picks[i].recorded;
    for (size_t i = 0; !said && i < j->npicks; i++) {
        for (grove_vid_t a = m->g->parent[j->picks[i].v]; a != GROVEP_NONE && !imp[i];
             a = m->g->parent[a]) {
            size_t lo;
            GROVEP_LOWER_BOUND(lo, j->npicks, mid, j->picks[mid].v < a);
            if (lo < j->npicks && j->picks[lo].v == a && j->picks[lo].exclusive)
                imp[i] = 1;
        }
    }
    int rc = grovep_match_record(m->g, j->id, j->picks, j->npicks, j->start, j->end, imp);
    free(imp);
    if (rc < 0 || grovep_match_job_insert(m, j) < 0) {
        int saved = errno;
        if (rc == 0)
            grovep_match_unrecord(m->g, j->id, j->start, j->end, j->picks, j->npicks);
        grovep_match_job_free(j);
        errno = saved;
        return -1;
    }
    return 0;
}

/* ---- requests kept, and re-plan ------------------------------------------- */

static size_t kept_pos(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, m->nkept, mid, m->kept[mid].id < id);
    return lo;
}

static struct kept *kept_find(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t i = kept_pos(m, id);
    return i < m->nkept && m->kept[i].id == id ? &m->kept[i] : NULL;
}

void grovep_match_kept_free(grove_matcher_t *m)
{
    for (size_t i = 0; i < m->nkept; i++)
        json_decref(m->kept[i].docs);
    free(grovep_match_dtab_base(m->kept, m->kept_off, sizeof(*m->kept)));
    free(m->events);
}

static void kept_forget(grove_matcher_t *m, grove_jobid_t id)
{
    size_t i = kept_pos(m, id);
    if (i < m->nkept && m->kept[i].id == id) {
        json_decref(m->kept[i].docs);
        dtab_close((void **)&m->kept, &m->nkept, &m->keptcap, &m->kept_off, sizeof(*m->kept),
                   i);
    }
}

/* Make docs (taken: a reference the table now owns) the request of job id,
 * replacing what it had.  0 or -1 (ENOMEM; docs released). */
static int kept_put(grove_matcher_t *m, grove_jobid_t id, json_t *docs)
{
    struct kept *k = kept_find(m, id);
    if (k) {
        json_decref(k->docs);
        k->docs = docs;
        return 0;
    }
    size_t i = kept_pos(m, id);
    if (dtab_open((void **)&m->kept, &m->nkept, &m->keptcap, &m->kept_off, sizeof(*m->kept), i)
        < 0) {
        json_decref(docs);
        return -1;
    }
    m->kept[i] = (struct kept){id, docs};
    return 0;
}

/* The number of jobspecs kept in k, and the i-th. */
static size_t kept_count(const struct kept *k)
{
    return json_is_array(k->docs) ? json_array_size(k->docs) : 1;
}

static json_t *kept_doc(const struct kept *k, size_t i)
{
    return json_is_array(k->docs) ? json_array_get(k->docs, i) : k->docs;
}

/* Keep js (its document: a reference, not a copy) as the request of job id,
 * or as one more grow of it.  0 or -1 (ENOMEM: the job keeps what it had). */
int grovep_match_keep_request(grove_matcher_t *m, grove_jobid_t id, const grove_jobspec_t *js)
{
    json_t *doc = (json_t *)(uintptr_t)grove_jobspec_json(js);
    struct kept *k = kept_find(m, id);
    if (!k)
        return kept_put(m, id, json_incref(doc));
    if (json_is_array(k->docs)) {
        if (json_array_append(k->docs, doc) == 0)
            return 0;
    } else {
        json_t *docs = json_pack("[OO]", k->docs, doc); /* the first grow */
        if (docs)
            return kept_put(m, id, docs);
    }
    errno = ENOMEM;
    return -1;
}

char *grove_matcher_request(const grove_matcher_t *m, grove_jobid_t id)
{
    const struct kept *k = kept_find(m, id);
    if (!k || grovep_match_job_index(m, id) < 0) {
        errno = ENOENT;
        return NULL;
    }
    /* always an array of jobspecs, as grove_matcher_set_request takes it */
    json_t *docs = json_is_array(k->docs) ? json_incref(k->docs) : json_pack("[O]", k->docs);
    char *text = docs ? json_dumps(docs, JSON_COMPACT) : NULL;
    json_decref(docs);
    return grovep_or_errno(text, ENOMEM);
}

/* The documents of a request text, each checked as a jobspec (new), or
 * NULL with EINVAL (err says why) or ENOMEM. */
static json_t *request_docs(const char *text, grove_error_t *err)
{
    json_error_t je;
    json_t *docs = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!docs) {
        grovep_errorf(err, grovep_json_load_errno(&je),
                      "request: not JSON: %s (line %d, column %d)", je.text, je.line, je.column);
        return NULL;
    }
    if (!json_is_array(docs) || json_array_size(docs) == 0) {
        json_decref(docs);
        grovep_errorf(err, EINVAL, "request: not a non-empty array of jobspecs");
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(docs); i++) {
        grove_error_t e = {0};
        grove_jobspec_t *js = grove_jobspec_from_json(json_array_get(docs, i), NULL, &e);
        if (!js) {
            int saved = errno;
            json_decref(docs);
            grovep_errorf(err, saved == ENOMEM ? ENOMEM : EINVAL,
                          "request: jobspec %zu: %s", i + 1, e.text);
            return NULL;
        }
        grove_jobspec_destroy(js);
    }
    return docs;
}

int grove_matcher_set_request(grove_matcher_t *m, grove_jobid_t id, const char *text,
                              grove_error_t *err)
{
    grove_error_clear(err);
    if (grovep_match_job_index(m, id) < 0)
        return grovep_errorf(err, ENOENT, "request: no job %llu", (unsigned long long)id);
    if (!text)
        return grovep_errorf(err, EINVAL, "request: no text");
    json_t *docs = request_docs(text, err);
    if (!docs)
        return -1;
    if (kept_put(m, id, docs) < 0)
        return grovep_errorf(err, ENOMEM, "out of memory");
    return 0;
}

/* The kept requests of a job parsed again (new; caller destroys each and
 * frees the array), *n of them; NULL with *n 0 when none are kept, or
 * NULL with ENOMEM/EINVAL. */
static grove_jobspec_t **kept_specs(const grove_matcher_t *m, grove_jobid_t id, size_t *n,
                                    grove_error_t *err)
{
    const struct kept *k = kept_find(m, id);
    *n = 0;
    if (!k)
        return NULL;
    size_t c = kept_count(k);
    grove_jobspec_t **v = calloc(c ? c : 1, sizeof(*v));
    if (!v) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < c; i++) {
        if (!(v[i] = grove_jobspec_from_json(kept_doc(k, i), NULL, err))) {
            while (i-- > 0)
                grove_jobspec_destroy(v[i]);
            free(v);
            return NULL;
        }
    }
    *n = c;
    return v;
}

/* Take job i out of the table without freeing it (its records stay); the
 * table gives back room it no longer needs. */
static grove_job_t *job_detach(grove_matcher_t *m, size_t i)
{
    grove_job_t *j = m->jobs[i];
    grovep_match_use_forget(m, j);
    dtab_close((void **)&m->jobs, &m->njobs, &m->jobcap, &m->jobs_off, sizeof(*m->jobs), i);
    m->holder->njobs = m->njobs;
    return j;
}

/* Match the kept requests of job id anew (the job out of the table): 1
 * placed, 0 fits nowhere (nothing recorded), -1 error (nothing recorded). */
static int replace(grove_matcher_t *m, grove_jobid_t id, grove_jobspec_t **specs, size_t n,
                   const grove_job_t **out, grove_error_t *err)
{
    int rc = grove_match(m, specs[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, id, out, err);
    for (size_t i = 1; i < n && rc == 0; i++)
        rc = grove_match_grow(m, specs[i], id, out, err);
    if (rc == 0)
        return 1;
    int saved = errno;
    if (grovep_match_job_index(m, id) >= 0)
        grove_matcher_cancel(m, id); /* a grow did not fit with the rest */
    errno = saved;
    return errno == EBUSY || errno == ENODEV ? 0 : -1;
}

int grove_matcher_replan(grove_matcher_t *m, grove_jobid_t id, const grove_job_t **out,
                         grove_error_t *err)
{
    if (out)
        *out = NULL;
    long i = grovep_match_job_index(m, id);
    if (i < 0)
        return grovep_errorf(err, ENOENT, "replan: no job %llu", (unsigned long long)id);
    size_t n;
    grove_jobspec_t **specs = kept_specs(m, id, &n, err);
    if (!specs && n == 0 && kept_find(m, id))
        return -1;
    if (!specs) { /* restored from saved state: its request is not known */
        grove_matcher_cancel(m, id);
        return 0;
    }
    json_t *docs = json_incref(kept_find(m, id)->docs);
    grove_job_t *old = job_detach(m, (size_t)i);
    grovep_match_unrecord(m->g, id, old->start, old->end, old->picks, old->npicks);
    kept_forget(m, id);
    int rc = replace(m, id, specs, n, out, err);
    int saved = errno;
    if (rc < 0 && grove_matcher_restore(m, old) == 0) {
        kept_put(m, id, json_incref(docs)); /* as it was, request included */
    } else if (rc < 0) {
        /* not even put back (restore leaves all as it found it: the job
         * out, none of its records): removed, said as a job that fits
         * nowhere is, so that the caller plans it again (DROPPED) */
        rc = 0;
        saved = 0;
    }
    json_decref(docs);
    grovep_match_job_free(old);
    for (size_t k = 0; k < n; k++)
        grove_jobspec_destroy(specs[k]);
    free(specs);
    errno = saved;
    return rc;
}

/* ---- the clock -------------------------------------------------------------------- */

void grove_matcher_set_overdue(grove_matcher_t *m, grove_overdue_t o)
{
    m->overdue = o;
}

static int event_push(grove_matcher_t *m, grove_job_event_kind_t kind, grove_jobid_t id,
                      int64_t at)
{
    if (grovep_grow((void **)&m->events, &m->evcap, m->nevents + 1, sizeof(*m->events)) < 0)
        return -1;
    m->events[m->nevents++] = (grove_job_event_t){kind, id, at};
    return 0;
}

/* Time order; at one instant ends before starts (what ends frees what
 * starts), then by job id. */
static int cmp_event(const void *a, const void *b)
{
    const grove_job_event_t *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    int kx = x->kind == GROVE_EVENT_START, ky = y->kind == GROVE_EVENT_START;
    if (kx != ky)
        return kx - ky;
    return (x->id > y->id) - (x->id < y->id);
}

static bool not_up(const grove_graph_t *g, grove_vid_t v)
{
    return g->v[v].status != GROVE_STATUS_UP;
}

/* Does a pick of j lie on or below a vertex that is not up, or (a compact
 * job) above one, below a vertex it holds whole? */
static bool lost_resources(const grove_matcher_t *m, const grove_job_t *j)
{
    const grove_graph_t *g = m->g;
    for (size_t i = 0; i < j->npicks; i++)
        for (grove_vid_t u = j->picks[i].v; u < g->nv; u = g->parent[u])
            if (not_up(g, u))
                return true;
    return grovep_match_job_below_any(g, j, not_up);
}

/* The reservations on vertices that are no longer up (v:set_status, a
 * drain) are planned again as acquisition plans those on the targets it
 * takes away (grove_matcher_replan): moved (REPLANNED at the new start,
 * and START when that is now) or, fitting nowhere, removed (DROPPED).  A
 * re-plan that fails (ENOMEM, or a Lua policy's hook outside a match)
 * keeps the job as it was and is tried again at the next catch-up.  0 or
 * -1 (ENOMEM). */
static int replan_lost(grove_matcher_t *m)
{
    uint64_t gen = m->g->status_gen;
    bool again = false;
    int rc = 0;
    m->status_seen = gen; /* the re-plans' own matches must not come here */
    for (size_t i = 0; i < m->njobs && rc == 0;) {
        grove_job_t *j = m->jobs[i];
        if (j->state != GROVE_JOB_RESERVED || !lost_resources(m, j)) {
            i++;
            continue;
        }
        grove_jobid_t id = j->id;
        const grove_job_t *moved = NULL;
        int r = grove_matcher_replan(m, id, &moved, NULL);
        if (r < 0) {
            again = true;
            rc = errno == ENOMEM ? -1 : 0;
            i++;
        } else if (r == 0) {
            rc = event_push(m, GROVE_EVENT_DROPPED, id, m->g->now); /* i: the next job */
        } else {
            rc = event_push(m, GROVE_EVENT_REPLANNED, id, moved->start);
            if (rc == 0 && moved->state == GROVE_JOB_ALLOCATED)
                rc = event_push(m, GROVE_EVENT_START, id, moved->start);
            i++;
        }
    }
    if (again || rc < 0)
        m->status_seen = gen - 1;
    return rc;
}

long grove_matcher_catch_up(grove_matcher_t *m)
{
    int64_t now = m->g->now, was = m->clock;
    size_t first = m->nevents;
    m->clock = now;
    int rc = m->g->status_gen != m->status_seen ? replan_lost(m) : 0;
    if (now <= was) {
        /* back in time: nothing starts again or un-ends */
        if (m->nevents - first > 1)
            qsort(m->events + first, m->nevents - first, sizeof(*m->events), cmp_event);
        return rc < 0 ? -1 : (long)(m->nevents - first);
    }
    for (size_t i = 0; i < m->njobs && rc == 0;) {
        grove_job_t *j = m->jobs[i];
        if (j->state == GROVE_JOB_RESERVED && j->start <= now) {
            j->state = GROVE_JOB_ALLOCATED;
            rc = event_push(m, GROVE_EVENT_START, j->id, j->start);
        }
        if (rc == 0 && j->end <= now && j->end > was) {
            if (m->overdue == GROVE_OVERDUE_REPORT) {
                rc = event_push(m, GROVE_EVENT_OVERDUE, j->id, j->end);
            } else {
                if ((rc = event_push(m, GROVE_EVENT_END, j->id, j->end)) == 0) {
                    grove_matcher_cancel(m, j->id);
                    continue; /* the next job moved to i */
                }
            }
        }
        i++;
    }
    if (m->nevents - first > 1)
        qsort(m->events + first, m->nevents - first, sizeof(*m->events), cmp_event);
    return rc < 0 ? -1 : (long)(m->nevents - first);
}

long grove_matcher_set_now(grove_matcher_t *m, int64_t t)
{
    if (t < 0) {
        errno = EINVAL;
        return -1;
    }
    grove_graph_set_now(m->g, t);
    return grove_matcher_catch_up(m);
}

size_t grove_matcher_event_count(const grove_matcher_t *m)
{
    return m->nevents;
}

const grove_job_event_t *grove_matcher_event_at(const grove_matcher_t *m, size_t i)
{
    return i < m->nevents ? &m->events[i] : NULL;
}

void grove_matcher_events_clear(grove_matcher_t *m)
{
    m->nevents = 0;
}
