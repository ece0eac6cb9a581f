/* match_time.c: one attempt in a window, and the search for a later one.
 *
 * Workload: "allocate" tries now; "reserve" then tries each later instant
 * at which some job or record ends, in order, skipping those at which the
 * root's aggregates say the machine lacks room, and takes the first that
 * fits.  The instants come from the graph's index of record ends: the cost
 * follows the number of instants, not of vertices.  The search stops at
 * the graph's expiration (the horizon): no window ends past it.
 *
 * A caller may limit the search's time (grove_matcher_set_search_limit):
 * it then stops between two instants and says where to go on.
 *
 * This file must not walk (match_walk.c) or record (match_record.c): an
 * attempt starts a generation and hands each request list to the walk.
 */
#include <errno.h>
#include <stdlib.h>

#include "match_private.h"

/* The nodes wholly idle a request list needs at least (grovep_agg_idle). */
static int64_t idle_need(const struct req *top)
{
    int64_t n = 0;
    for (const struct req *r = top; r; r = r->next)
        if (__builtin_add_overflow(n, r->idle_tot, &n))
            return INT64_MAX;
    return n;
}

/* The aggregate of the root whose idle nodes bound the window's, or NULL. */
static const grovep_agg_t *idle_agg(const grove_matcher_t *m, grove_vid_t root)
{
    const grove_graph_t *g = m->g;
    if (m->sat || !g->naggs || m->dom_sub != g->containment)
        return NULL;
    return grovep_agg_of(g, root);
}

/* May the subtree of root hold n nodes wholly idle in the window? */
static bool idle_fits(grove_matcher_t *m, grove_vid_t root, int64_t n)
{
    const grovep_agg_t *a = n > 0 ? idle_agg(m, root) : NULL;
    if (!a || (grovep_agg_idle(m->g, a, m->start, m->end) >= n
               && grovep_blk_idle_enough(m->g, root, n, m->start, m->end)))
        return true;
    m->stats.idle_pruned++;
    return false;
}

/* The first instant >= t0 at which the aggregate of root may hold need for
 * d (grovep_agg_fits_from): agg_fits refuses every window that starts
 * before it.  t0 when the aggregates cannot tell, -1 when never. */
static int64_t agg_fits_from(const grove_matcher_t *m, grove_vid_t root, const int64_t *need,
                             int64_t d, int64_t t0)
{
    const grove_graph_t *g = m->g;
    if (m->sat || !g->naggs || m->dom_sub != g->containment)
        return t0;
    const grovep_agg_t *a = grovep_agg_of(g, root);
    return a ? grovep_agg_fits_from(g, a, need, d, t0) : t0;
}

/* The index in the graph's record ends of the last instant before t at or
 * after i (a search that skips to t goes on from the one after it). */
static size_t skip_to(const grove_graph_t *g, size_t i, int64_t t)
{
    size_t k = grovep_rec_ends_after(g, t - 1); /* the first instant >= t */
    return k > i + 1 ? k - 1 : i;
}

/* Try the whole request in the window starting at t, its slots kept local
 * or not (m->slot_local).  1 fits (the picks are in m->sel), 0 not, -1
 * error. */
static int attempt_once(grove_matcher_t *m, const struct req *top, grove_vid_t root, int64_t t,
                        int64_t d)
{
    grovep_match_new_generation(m);
    grovep_match_order_forget(m);
    m->start = t;
    m->end = grove_time_end(t, d);
    if (!up(m, root))
        return 0; /* nothing below a root that is not up is available */
    /* what the root's aggregates already rule out (one more single-core
     * slot than the machine has cores) is answered here, not after a
     * search of every way to place the part that fits */
    int64_t need[GROVEP_MAX_LOW] = {0};
    for (const struct req *r = top; r; r = r->next)
        for (size_t l = 0; l < m->g->nlow; l++)
            if (__builtin_add_overflow(need[l], r->tot[l], &need[l]))
                need[l] = INT64_MAX;
    if (!agg_fits(m, root, need) || !idle_fits(m, root, idle_need(top)))
        return 0;
    for (const struct req *r = top; r; r = r->next) {
        int rc = grovep_match_list(m, r, root, false, true);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

/* Try the whole request in the window starting at t: on a graph with
 * locality domains, first with every slot within one domain; only when
 * that fails because some slot had no domain's room (m->local_refused)
 * again with slots allowed across domains (m->nspread counts them).  So a
 * slot spreads only when no node has room for it in one domain, whatever
 * the policy's order of the nodes.  1, 0, -1 as attempt_once. */
static int attempt(grove_matcher_t *m, const struct req *top, grove_vid_t root, int64_t t,
                   int64_t d)
{
    m->slot_local = m->dom_sym != GROVE_SYM_NONE;
    m->local_refused = false;
    int rc = attempt_once(m, top, root, t, d);
    if (rc == 0 && m->local_refused) {
        m->slot_local = false;
        rc = attempt_once(m, top, root, t, d);
    }
    m->slot_local = false;
    return rc;
}

/* Try each variant of the request (see grovep_match_compile) in the window starting at
 * t, in order, until one fits: 1 (x->top is the one), 0, -1. */
int grovep_match_attempt_x(grove_matcher_t *m, struct matching *x, int64_t t, int64_t d)
{
    for (size_t v = 0; v < x->nvar; v++) {
        x->top = x->tops[v];
        int rc = attempt(m, x->top, x->root, t, d);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Try later instants, those at which some job ends, in order, skipping
 * those at which the whole machine lacks room, up to the last at which the
 * window still ends by the horizon.  1 fits (at x->at, with its duration
 * in x->d), 0 not, -1 error. */
static int match_later(grove_matcher_t *m, struct matching *x)
{
    const grove_graph_t *g = m->g;
    /* The instants after from at which something ends, ascending and
     * distinct: the ends of the graph's records (the table's jobs and
     * allocations made on vertices directly alike: a job holding no record
     * frees nothing when it ends), read in place from the graph's index of
     * record ends, which an attempt does not change (it records nothing):
     * the cost follows the instants tried, not those there are. */
    const grovep_endcount_t *ends = g->rec_ends;
    size_t nt = g->nrec_ends;
    if (nt && ends[nt - 1].t == GROVE_TIME_MAX)
        nt--; /* a job that never ends frees nothing */
#define times(i) (ends[i].t)
    /* what the least demanding variant needs */
    int64_t need[GROVEP_MAX_LOW];
    for (size_t l = 0; l < g->nlow; l++)
        need[l] = INT64_MAX;
    for (size_t v = 0; v < x->nvar; v++)
        for (size_t l = 0; l < g->nlow; l++) {
            int64_t sum = 0;
            for (const struct req *r = x->tops[v]; r; r = r->next)
                if (__builtin_add_overflow(sum, r->tot[l], &sum))
                    sum = INT64_MAX; /* saturate, as the needs themselves */
            if (sum < need[l])
                need[l] = sum;
        }
    /* the nodes wholly idle the least demanding variant needs, and where
     * their count is kept */
    int64_t idle = INT64_MAX;
    for (size_t v = 0; v < x->nvar; v++) {
        int64_t n = idle_need(x->tops[v]);
        if (n < idle)
            idle = n;
    }
    const grovep_agg_t *ia = idle > 0 ? idle_agg(m, x->root) : NULL;
    int found = 0;
    bool tried = false;
    for (size_t i = grovep_rec_ends_after(g, x->from); i < nt && found == 0; i++) {
        /* the instants ascend: once a window ends past the horizon, so do
         * all the later ones */
        int64_t d = x->till_horizon ? x->horizon - times(i) : x->d;
        if (d <= 0 || grove_time_end(times(i), d) > x->horizon)
            break;
        /* out of time (grove_matcher_set_search_limit): the caller goes
         * on from this instant; one try at least, so that it moves on */
        if (tried && x->deadline > 0 && grovep_match_now_s() >= x->deadline) {
            m->resume_at = times(i);
            found = grovep_errorf(m->err, ETIMEDOUT,
                                  "match: the search for a start ran out of its time; "
                                  "it goes on from %lld",
                                  (long long)times(i));
            break;
        }
        m->start = times(i);
        m->end = grove_time_end(times(i), d);
        if (!agg_fits(m, x->root, need)) {
            /* no room in the whole machine then: on to the first instant at
             * which its aggregate may hold the request, one query of its
             * planner rather than a look at each instant before it */
            if (!x->till_horizon) {
                int64_t t = agg_fits_from(m, x->root, need, d, times(i));
                if (t < 0)
                    break;
                i = skip_to(g, i, t);
            }
            continue;
        }
        if (ia && grovep_agg_idle(g, ia, m->start, m->end) < idle) {
            m->stats.idle_pruned++;
            /* too few nodes idle then: on to the first instant from which
             * a window of the same length may find them (a window's
             * length changes with its start only up to the horizon) */
            if (!x->till_horizon) {
                int64_t t = grovep_agg_idle_from(g, ia, idle, d, times(i));
                if (t < 0)
                    break;
                i = skip_to(g, i, t);
            }
            continue;
        }
        found = grovep_match_attempt_x(m, x, times(i), d);
        tried = true;
        x->at = times(i);
        if (found > 0)
            x->d = d;
    }
#undef times
    return found;
}

/* Find where the request fits: at x->from (now unless a later instant was
 * asked), or in the modes that look ahead, the earliest later instant.  1
 * fits (at x->at), 0 not, -1 error. */
int grovep_match_search(grove_matcher_t *m, struct matching *x)
{
    m->sat = x->mode == GROVE_MATCH_SATISFIABILITY;
    x->at = x->from;
    int64_t d = x->d;
    if (x->till_horizon && x->from > x->now)
        d = x->horizon - x->from; /* the window at from ends at the horizon too */
    int found = d > 0 ? grovep_match_attempt_x(m, x, x->from, d) : 0;
    if (found > 0)
        x->d = d;
    if (found == 0 && (x->mode == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
                       || x->mode == GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE))
        found = match_later(m, x);
    return found;
}
