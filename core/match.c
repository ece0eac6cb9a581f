/* match.c: request-guided matching of jobspecs against the graph: the
 * matcher's life and grove_match step by step.
 *
 * Workload: one match per scheduling attempt, thousands per second, on
 * graphs of up to a million vertices.  The matcher walks the containment
 * tree guided by the request tree: for a request of type T and count c
 * below a vertex u it enumerates the T-typed vertices below u (levels the
 * request omits are walked through), in the order the policy gives, skipping
 * subtrees that are down, held exclusively, or pruned by the policy; for
 * each candidate that is available it recurses into the request's children
 * below the candidate, and keeps the candidate when they all fit.  With
 * GROVE_SELECT_FIRST it stops at the c-th fitting candidate.
 *
 * What this match has taken so far lives in per-vertex scratch arrays
 * stamped with a generation number (reset by bumping it, never by
 * clearing), with an undo log so a failed branch is rolled back in time
 * proportional to what it took.  The candidate walks use two LIFO arenas
 * (frames and child lists) shared by all nesting levels: nothing is
 * allocated per visited vertex.
 *
 * Records are written only once a whole request fits: exclusive picks get
 * one record at the top-most exclusive vertex (what lies below is implied),
 * leaf pools get their units, shared containers get annotations through
 * their descendants' records.
 *
 * The walk follows containment, or another subsystem chosen as the
 * dominant one (power distribution): then parents come from an array made
 * for the match and aggregates are not consulted.  Types only an auxiliary
 * subsystem holds are channeled pools, taken along their conduit path.
 *
 * Time: a window [start, start + duration).  "Allocate" tries now;
 * "reserve" then tries each later instant at which some job or record
 * ends, in order, and takes the first that fits.  The graph's expiration
 * is the horizon: a job whose window from now already ends past it can
 * never run (ENODEV, whatever the mode), and the search for a later
 * instant stops where the window would; a job that asks no duration runs
 * until the horizon.
 *
 * The matcher is one group of files sharing match_private.h, split along
 * those steps:
 *   match.c          this file: create and destroy, grove_match from the
 *                    arguments to the committed job (and the satisfiability
 *                    check), matching in a chosen window, grow
 *   match_walk.c     the walk: scratch state, candidate iteration and its
 *                    arenas, taking a candidate, the selection rules, the
 *                    whole-machine fast path (take_clean_leaf)
 *   match_slot.c     slots and their ranking, or-slots
 *   match_use.c      exploring by use: ranks, counts and kept orders
 *   match_channel.c  channeled pools along conduits, taken and given back
 *   match_request.c  the request tree compiled from the jobspec, xor slots
 *   match_time.c     one attempt in a window, the search for a later one
 *   match_never.c    why a request can never fit, named from the graph's sizes
 *   match_record.c   a fitting selection made into records, and undone
 *   match_job.c      the job table, kept requests, cancel, release,
 *                    restore, re-plan, the clock
 *
 * This file must not hold placement preferences (policy.c), the pools'
 * records (pool.c) or the R format, nor the steps the files above hold: it
 * calls them in order and keeps the matcher's state between matches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "match_private.h"

/* Make ready the parents of the dominant subsystem for this match: the
 * graph's own array for containment, else each vertex's first parent
 * there (GROVEP_NONE outside it), made anew since the graph may have
 * changed (a walk of the edges, paid only with another subsystem).  0, or
 * -1 (ENOMEM). */
static int dominant_prepare(grove_matcher_t *m)
{
    grove_graph_t *g = m->g;
    m->par = g->parent;
    m->dom_sub = g->containment;
    m->tk = NULL;
    if (m->dominant == GROVE_SYM_NONE || m->dominant == g->sym_containment) {
        m->tk = grovep_tree_kids(g, &m->tkoff, &m->tkkind);
        if (m->tk && !g->tk_all)
            m->tk = NULL;
        return 0;
    }
    int sub = grovep_subsys_find(g, m->dominant);
    if (sub < 0)
        return 0; /* it has no root either: the match says ENODEV */
    if (grovep_grow((void **)&m->dpar, &m->dparcap, g->nv ? g->nv : 1, sizeof(*m->dpar)) < 0)
        return -1;
    for (grove_vid_t v = 0; v < g->nv; v++)
        m->dpar[v] = grovep_alive(g, v) ? grove_vertex_parent(g, v, m->dominant) : GROVEP_NONE;
    m->par = m->dpar;
    m->dom_sub = (uint8_t)sub;
    return 0;
}

/* ---- life ------------------------------------------------------------------ */

grove_matcher_t *grove_matcher_create(grove_graph_t *g, const grove_match_config_t *cfg)
{
    if (!g) {
        errno = EINVAL;
        return NULL;
    }
    grove_matcher_t *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->g = g;
    m->next_id = 1;
    if (cfg)
        m->cfg = *cfg;
    m->constraint_type = strdup(cfg && cfg->constraint_type ? cfg->constraint_type : "node");
    m->holder = calloc(1, sizeof(*m->holder));
    if (m->holder) /* the matcher's reference: destroy below gives it back */
        *m->holder = (struct grovep_holder){.refs = 1, .alive = true};
    if (!m->constraint_type || !m->holder || grove_matcher_set_policy(m, NULL) < 0)
        return GROVEP_NULL_AFTER(grove_matcher_destroy, m, ENOMEM);
    if (grovep_match_hold(m, NULL) < 0)
        return GROVEP_NULL_AFTER(grove_matcher_destroy, m, EBUSY);
    m->cfg.constraint_type = m->constraint_type;
    m->stats.min_s = 0;
    m->clock = g->now;
    m->dominant = GROVE_SYM_NONE;
    m->dom_sub = g->containment;
    m->par = g->parent;
    return m;
}

int grovep_match_hold(grove_matcher_t *m, grove_error_t *err)
{
    grove_graph_t *g = m->g;
    struct grovep_holder *h = g->holder;
    if (h == m->holder)
        return 0;
    if (h && h->alive && h->njobs > 0) {
        grove_error_set(err, NULL, 0,
                        "match: another matcher holds %zu job%s on the graph (a graph keeps the "
                        "jobs of one matcher at a time)",
                        h->njobs, h->njobs == 1 ? "" : "s");
        errno = EBUSY;
        return -1;
    }
    if (h && !h->alive && h->next_id > m->next_id)
        m->next_id = h->next_id;
    grovep_holder_release(h);
    m->holder->refs++;
    g->holder = m->holder;
    return 0;
}

void grove_matcher_destroy(grove_matcher_t *m)
{
    if (!m)
        return;
    if (m->holder) { /* the graph may be gone: only the shared part is touched */
        m->holder->alive = false;
        m->holder->next_id = m->next_id;
        grovep_holder_release(m->holder);
    }
    for (size_t i = 0; i < m->njobs; i++)
        grovep_match_job_free(m->jobs[i]);
    free(grovep_match_dtab_base(m->jobs, m->jobs_off, sizeof(*m->jobs)));
    free(m->result.picks);
    free(m->pol_name);
    free(m->constraint_type);
    grovep_dense_free(&m->useof);
    free(m->uslot);
    free(m->uord);
    free(m->uordh);
    grovep_match_scratch_free(m);
    free(m->slot_dead);
    free(m->dpar);
    free(m->orplan);
    grovep_match_kept_free(m);
    free(m->pmemo);
    for (size_t i = 0; i < GROVEP_CV_SLOTS; i++) {
        free(m->cv[i].key);
        free(m->cv[i].v);
    }
    free(m);
}

grove_graph_t *grove_matcher_graph(const grove_matcher_t *m)
{
    return m->g;
}

int grove_matcher_set_policy(grove_matcher_t *m, const grove_policy_t *p)
{
    if (!p)
        p = grove_policy_builtin("first");
    if (!p) {
        errno = EINVAL;
        return -1;
    }
    /* a policy that explores by use counts what every job holds (its
     * ranks): no job stays compact under it (none is made so) */
    for (size_t i = 0; p->explore_by_use && i < m->njobs; i++)
        if (grovep_match_job_fill(m->g, m->jobs[i]) < 0)
            return -1;
    char *name = strdup(p->name ? p->name : "custom");
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    free(m->pol_name);
    grovep_match_keep_clear(m);
    grovep_match_order_clear(m);
    if (m->pmemo) /* another policy's answers */
        memset(m->pmemo, 0, m->pmemocap);
    m->pol = *p;
    m->pol_name = name;
    m->pol.name = name;
    return 0;
}

/* Make room in m->pmemo for v's answer, the answers kept forgotten when
 * the graph changed since they were given: 0, or -1 (ENOMEM: the answer
 * is not kept). */
int grovep_match_prune_memo(grove_matcher_t *m, grove_vid_t v)
{
    if (m->pmemo_gen != m->g->chg_gen) {
        if (m->pmemo)
            memset(m->pmemo, 0, m->pmemocap);
        m->pmemo_gen = m->g->chg_gen;
    }
    if (v < m->pmemocap)
        return 0;
    size_t cap = m->g->nv > v ? m->g->nv : (size_t)v + 1;
    uint8_t *t = realloc(m->pmemo, cap);
    if (!t)
        return -1;
    memset(t + m->pmemocap, 0, cap - m->pmemocap);
    m->pmemo = t;
    m->pmemocap = cap;
    return 0;
}

const grove_policy_t *grove_matcher_policy(const grove_matcher_t *m)
{
    return &m->pol;
}

/* ---- grove_match, step by step -------------------------------------------- */

static int64_t duration_of(const grove_matcher_t *m, const grove_jobspec_t *js)
{
    double d = grove_jobspec_duration(js);
    if (d <= 0)
        return m->cfg.default_duration > 0 ? m->cfg.default_duration : GROVE_TIME_MAX;
    if (d >= 9.0e18)
        return GROVE_TIME_MAX;
    int64_t s = (int64_t)d;
    return (double)s < d ? s + 1 : s;
}

/* Check the arguments; 0, or -1 with EINVAL or EEXIST and a message.  Picks
 * the job id when id is 0. */
static int match_check(grove_matcher_t *m, const grove_jobspec_t *js, struct matching *x,
                       grove_error_t *err)
{
    if (!js || (unsigned)x->mode > GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE) {
        grove_error_set(err, NULL, 0, "match: no jobspec or unknown mode");
        errno = EINVAL;
        return -1;
    }
    if ((x->mode == GROVE_MATCH_ALLOCATE || x->mode == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
         || x->mode == GROVE_MATCH_ALLOCATE_WITH_SAT)
        && grovep_match_hold(m, err) < 0)
        return -1;
    if (x->id == 0)
        x->id = m->next_id;
    if (x->mode != GROVE_MATCH_SATISFIABILITY && grovep_match_job_index(m, x->id) >= 0) {
        grove_error_set(err, NULL, 0, "match: job %llu exists", (unsigned long long)x->id);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

/* Compile the request and make ready what every attempt needs; 0 or -1. */
/* A deep queue holds many jobs of one constraint (a property, a
 * hostlist), each matched again at every pass: the verdict on each
 * execution target is kept by the constraint's text, so that a target is
 * asked once while the graph's content holds, not once a match (a
 * hostlist's look-up of the target's name, a property's). */
uint8_t *grovep_match_verdicts(grove_matcher_t *m)
{
    const char *key = grove_constraint_key(m->constraint);
    if (!key)
        return NULL;
    size_t n = grove_graph_vertex_slots(m->g);
    struct grovep_verdicts *pick = NULL, *oldest = &m->cv[0];
    for (size_t i = 0; i < GROVEP_CV_SLOTS && !pick; i++) {
        if (m->cv[i].key && !strcmp(m->cv[i].key, key))
            pick = &m->cv[i];
        else if (m->cv[i].used < oldest->used)
            oldest = &m->cv[i];
    }
    bool fresh = !pick;
    if (!pick) {
        char *k = strdup(key);
        if (!k)
            return NULL;
        pick = oldest;
        free(pick->key);
        pick->key = k;
    }
    if (pick->cap < n) {
        uint8_t *v = realloc(pick->v, n);
        if (!v) {
            free(pick->key);
            pick->key = NULL;
            return NULL;
        }
        pick->v = v;
        pick->cap = n;
        fresh = true;
    }
    if (fresh || pick->gen != m->g->chg_gen) {
        memset(pick->v, 0, pick->cap);
        pick->gen = m->g->chg_gen;
    }
    pick->used = ++m->cv_tick;
    return pick->v;
}

static int match_prepare(grove_matcher_t *m, const grove_jobspec_t *js, struct matching *x,
                         grove_error_t *err)
{
    grove_graph_t *g = m->g;
    if (dominant_prepare(m) < 0)
        return -1;
    x->root = grove_graph_root(g, dom_sym(m), 0);
    if (x->root == GROVE_VID_NONE) {
        grove_error_set(err, NULL, 0, "match: the graph has no %s root",
                        grove_graph_str(g, dom_sym(m)));
        errno = ENODEV;
        return -1;
    }
    if (g->agg_dirty && grovep_agg_refresh(g) < 0)
        return -1;
    if (!(x->reqs = grovep_match_compile(m, js, &x->tops, &x->nvar))
        || grovep_match_scratch_reserve(m) < 0)
        return -1;
    x->top = x->tops[0];
    m->constraint = grove_jobspec_constraint(js);
    m->cv_cur = m->constraint ? grovep_match_verdicts(m) : NULL;
    m->ctype = grove_graph_sym_lookup(g, m->constraint_type);
    m->node_sym = grove_graph_sym_lookup(g, "node");
    if (m->node_sym != GROVE_SYM_NONE && grove_graph_count_type(g, m->node_sym) == 0)
        m->node_sym = GROVE_SYM_NONE; /* the name is known, but no vertex has the type */
    m->dom_sym = grove_graph_sym_lookup(g, GROVE_DOMAIN_TYPE);
    if (m->dom_sym != GROVE_SYM_NONE && grove_graph_count_type(g, m->dom_sym) == 0)
        m->dom_sym = GROVE_SYM_NONE;
    x->d = duration_of(m, js);
    x->now = g->now;
    if (x->from < x->now)
        x->from = x->now;
    x->horizon = g->expiration > 0 ? g->expiration : GROVE_TIME_MAX;
    x->till_horizon = x->d == GROVE_TIME_MAX && x->horizon != GROVE_TIME_MAX;
    if (x->till_horizon && x->horizon > x->now)
        x->d = x->horizon - x->now;
    if (grove_policy_request_init(&m->preq, g, js, x->id, x->d) < 0)
        return -1;
    grovep_match_rank_setup(m);
    return 0;
}

/* Does a window starting at t (of x's duration) end by the horizon?  0, or
 * -1 with ENODEV and the reason: the earliest start is t, every later
 * window ends later still, so the job can never run here. */
static int horizon_check(const struct matching *x, int64_t t, grove_error_t *err)
{
    if (x->horizon == GROVE_TIME_MAX)
        return 0;
    if (t >= x->horizon)
        return grovep_errorf(err, ENODEV,
                             "the resource set's expiration (%lld) is not after the job's "
                             "earliest start (%lld)",
                             (long long)x->horizon, (long long)t);
    if (grove_time_end(t, x->d) > x->horizon)
        return grovep_errorf(err, ENODEV,
                             "job duration (%llds) exceeds the resource set's expiration "
                             "(%lld, %llds after the earliest start %lld)",
                             (long long)x->d, (long long)x->horizon,
                             (long long)(x->horizon - t), (long long)t);
    return 0;
}

/* The search found nothing (found 0) or failed (-1): say why, in errno
 * and the message.  EBUSY (not now) or ENODEV (never; the modes that ask
 * look again ignoring use and status), ECANCELED when a hook failed.
 * Always -1. */
static int match_failed(grove_matcher_t *m, struct matching *x, int found,
                        grove_error_t *err)
{
    if (found < 0) {
        if (m->hook_failed) {
            if (!err || !err->text[0])
                grove_error_set(err, NULL, 0, "policy %s: a hook failed: %s", m->pol.name,
                                strerror(errno));
            errno = ECANCELED;
        }
        return -1;
    }
    /* every mode tells never from not now: look again ignoring use and
     * status (a satisfiability match has), unless the caller asked only
     * whether it fits (grove_matcher_set_tell_never) */
    bool never = x->mode == GROVE_MATCH_SATISFIABILITY;
    if (!never && m->busy_only && x->mode != GROVE_MATCH_ALLOCATE_WITH_SAT) {
        grove_error_set(err, NULL, 0, "no matching resources");
        errno = EBUSY;
        return -1;
    }
    if (!never) {
        m->sat = true;
        int s = grovep_match_attempt_x(m, x, x->now, x->d);
        m->sat = false;
        if (s < 0)
            return match_failed(m, x, -1, err);
        never = s == 0;
    }
    if (!never) {
        grove_error_set(err, NULL, 0, "no matching resources");
        errno = EBUSY;
        return -1;
    }
    /* name the level the graph cannot meet (not for fits_idle, which
     * also leaves out what is not up and reads no message) */
    if (m->sat_up || grovep_match_explain_never(m, x->root, x->tops[0], err) <= 0)
        grove_error_set(err, NULL, 0, "unsatisfiable request");
    errno = ENODEV;
    return -1;
}

/* May the selection of x be kept compact: a job the match keeps (an
 * allocation or a reservation) of the containment tree, with nothing that
 * reads its every vertex as it is recorded (policies that explore by use,
 * or that hold whole nodes)?  Most reservations of a deep queue are
 * dropped and planned again before they start (a conservative queue's
 * compression), and a job that starts is read for its R and its counts,
 * which its whole vertices give without a list of what lies below them
 * (50,000 picks for a job of 1,024 nodes, sorted and merged): that is
 * listed when the job is read whole (grove_matcher_job). */
static bool compact_ok(const grove_matcher_t *m, const struct matching *x)
{
    if (!m->compact
        || (x->mode != GROVE_MATCH_ALLOCATE_ORELSE_RESERVE && x->mode != GROVE_MATCH_ALLOCATE)
        || m->sat || m->pol.explore_by_use || m->pol.node_exclusive
        || m->dom_sub != m->g->containment)
        return false;
    /* and something to leave out: a vertex held whole (the selection is
     * still the request's own picks and their ancestors) */
    for (size_t i = 0; i < m->nsel; i++)
        if (flags_of(m, m->sel[i].v) & M_WHOLE)
            return true;
    return false;
}

/* Complete the selection in m->sel: ancestors, what exclusive picks imply
 * (not for a compact reservation: compact_ok), sorted by vertex id, and
 * x->imp marking the picks an exclusive ancestor implies.  0 or -1. */
static int match_complete(grove_matcher_t *m, struct matching *x)
{
    if (grovep_match_add_ancestors(m) < 0)
        return -1;
    x->compact = compact_ok(m, x);
    if (!m->sat && !x->compact && grovep_match_expand_whole(m) < 0)
        return -1;
    if (m->pol.node_exclusive && !m->sat && grovep_match_expand_nodex(m) < 0)
        return -1;
    /* the search is over and nothing is rolled back from here: the undo
     * log's room (written already, as large as a whole machine's picks)
     * is the sort's scratch; the stamps stay those of this generation */
    m->gen_kept = true;
    m->nlog = 0;
    if (grovep_match_sort_picks(m->sel, m->nsel, m->log, m->logcap * sizeof(*m->log)) < 0)
        return -1;
    grovep_match_merge_channel_picks(m);
    if (!(x->imp = malloc(m->nsel ? m->nsel : 1))) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < m->nsel; i++) {
        x->imp[i] = grovep_match_implied(m, m->sel[i].v);
        /* what a compact job's listing follows (not asked of other picks:
         * a whole machine's are a million) */
        if (x->compact)
            m->sel[i].whole = (flags_of(m, m->sel[i].v) & M_WHOLE) != 0;
        /* below a vertex held whole, everything is held whole too */
        if (x->imp[i] && !m->sel[i].exclusive) {
            m->sel[i].exclusive = true;
            if (m->sel[i].leaf)
                m->sel[i].amount = grovep_vertex_size(m->g, m->sel[i].v);
        }
    }
    return 0;
}

/* From this many picks on (4 MB of them), a job takes the matcher's
 * selection array itself rather than a copy: a whole machine of 16,384
 * nodes is 13 MB of picks.  Below it the job gets a copy and the matcher
 * keeps its array, whose pages are written already: a selection grown
 * afresh at each match (and a job's array given back to the system at
 * its end) cost a page fault every 4 kB, more than half of the match of
 * a job of 1,024 whole nodes (50,000 picks: 5.9-7.8 ms of CPU with the
 * hand-over, 2.0-2.3 ms with the copy, bench/RESULTS.md). */
#define HANDOVER_MIN (1u << 18)

/* Make the selection a job: recorded in the graph and the table in the
 * modes that allocate, else the matcher's one result.  The job (borrowed)
 * or NULL (errno; nothing recorded). */
static const grove_job_t *match_commit(grove_matcher_t *m, const struct matching *x,
                                       grove_error_t *err)
{
    bool keep = x->mode == GROVE_MATCH_ALLOCATE || x->mode == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
                || x->mode == GROVE_MATCH_ALLOCATE_WITH_SAT;
    grove_job_t *job = NULL, *dst;
    if (keep) {
        if (!(job = calloc(1, sizeof(*job))))
            return NULL;
        dst = job;
    } else {
        free(m->result.picks);
        memset(&m->result, 0, sizeof(m->result));
        dst = &m->result;
    }
    if (m->nsel >= HANDOVER_MIN) {
        /* a large selection is handed over, not copied; the matcher
         * grows a new one at its next match */
        grove_pick_t *p = realloc(m->sel, m->nsel * sizeof(*p)); /* shrinks in place */
        dst->picks = p ? p : m->sel;
        m->sel = NULL;
        m->selcap = 0;
    } else {
        dst->picks = malloc((m->nsel ? m->nsel : 1) * sizeof(*dst->picks));
        if (!dst->picks) {
            errno = ENOMEM;
            goto fail;
        }
        if (m->nsel) /* an empty match has no selection array at all */
            memcpy(dst->picks, m->sel, m->nsel * sizeof(*dst->picks));
    }
    dst->npicks = m->nsel;
    dst->spread = m->nspread;
    if (!m->sel)
        m->nsel = 0; /* handed over */
    dst->id = x->id;
    dst->start = x->at;
    dst->end = grove_time_end(x->at, x->d);
    dst->state = keep ? (x->at == x->now ? GROVE_JOB_ALLOCATED : GROVE_JOB_RESERVED)
                      : GROVE_JOB_MATCHED;
    dst->compact = keep && x->compact;
    if (!keep)
        return dst;
    if (m->pol.explore_by_use && grovep_match_use_reserve(m, dst, x->now) < 0) {
        grove_error_set(err, NULL, 0, "match: could not rank the allocation's vertices: %s",
                        strerror(errno));
        goto fail;
    }
    if (grovep_match_record(m->g, x->id, dst->picks, dst->npicks, dst->start, dst->end, x->imp)
        < 0) {
        grove_error_set(err, NULL, 0, "match: could not record the allocation: %s",
                        strerror(errno));
        goto fail;
    }
    if (grovep_match_job_insert(m, job) < 0) {
        grovep_match_unrecord(m->g, x->id, dst->start, dst->end, dst->picks, dst->npicks);
        goto fail;
    }
    if (m->pol.explore_by_use)
        grovep_match_use_update(m, job, x->now);
    return dst;
fail:;
    int saved = errno;
    if (job)
        grovep_match_job_free(job);
    errno = saved;
    return NULL;
}

/* Count the time of one match in the statistics. */
static void match_timed(grove_matcher_t *m, double t0)
{
    double dt = grovep_match_now_s() - t0;
    if (m->stats.matches == 1 || dt < m->stats.min_s)
        m->stats.min_s = dt;
    if (dt > m->stats.max_s)
        m->stats.max_s = dt;
    m->stats.sum_s += dt;
}

/* The end of a match: free what x holds, hand the job out, keep its
 * request (ENOMEM: it cannot be re-planned), count.  0 with a job, else
 * -1 with errno as it was. */
static int match_done(grove_matcher_t *m, struct matching *x, const grove_jobspec_t *js,
                      const grove_job_t *job, const grove_job_t **out, double t0)
{
    int saved = errno;
    free(x->imp);
    free(x->reqs);
    free(x->tops);
    grove_policy_request_fini(&m->preq);
    m->sat = false;
    m->constraint = NULL;
    m->cv_cur = NULL;
    if (job) {
        if (out)
            *out = job;
        m->stats.succeeded++;
        if (job->state != GROVE_JOB_MATCHED)
            grovep_match_keep_request(m, job->id, js);
    }
    match_timed(m, t0);
    errno = saved;
    return job ? 0 : -1;
}

/* grove_match, with no window starting before from (0: now). */
static int match_from(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                      grove_jobid_t id, int64_t from, const grove_job_t **out,
                      grove_error_t *err)
{
    double t0 = grovep_match_now_s();
    struct matching x = {.mode = mode, .id = id, .from = from,
                         .deadline = m->search_limit_s > 0 ? t0 + m->search_limit_s : 0};
    const grove_job_t *job = NULL;
    if (out)
        *out = NULL;
    if (behind(m))
        grove_matcher_catch_up(m); /* ENOMEM: the states catch up next time */
    if (match_check(m, js, &x, err) < 0)
        return -1;
    m->stats.matches++;
    if (mode != GROVE_MATCH_SATISFIABILITY && x.id >= m->next_id)
        m->next_id = x.id + 1;
    m->err = err;
    m->hook_failed = 0;
    m->id_moved = false;
    grove_error_clear(err);
    int found = -1;
    if (match_prepare(m, js, &x, err) == 0 && horizon_check(&x, x.from, err) == 0)
        found = grovep_match_search(m, &x);
    if (found <= 0)
        match_failed(m, &x, found, err);
    else if (match_complete(m, &x) == 0)
        job = match_commit(m, &x, err);
    return match_done(m, &x, js, job, out, t0);
}

int grove_match(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                grove_jobid_t id, const grove_job_t **out, grove_error_t *err)
{
    return match_from(m, js, mode, id, 0, out, err);
}

int grove_match_after(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                      grove_jobid_t id, int64_t not_before, const grove_job_t **out,
                      grove_error_t *err)
{
    if (out)
        *out = NULL;
    if (mode != GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
        && mode != GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE)
        return grovep_errorf(err, EINVAL,
                             "match: a start not before a given time takes the modes "
                             "allocate_orelse_reserve and without_allocating_future");
    return match_from(m, js, mode, id, not_before, out, err);
}

void grove_matcher_set_search_limit(grove_matcher_t *m, double limit_s)
{
    m->search_limit_s = limit_s > 0 ? limit_s : 0;
}

int64_t grove_matcher_resume_at(const grove_matcher_t *m)
{
    return m->resume_at;
}

/* Satisfiability on the vertices that are up: a SATISFIABILITY match with
 * m->sat_up set, under policy p (NULL: the matcher's), that leaves the
 * statistics and the last MATCHED result as they were. */
int grove_match_fits_idle(grove_matcher_t *m, const grove_jobspec_t *js,
                          const grove_policy_t *p, grove_error_t *err)
{
    grove_match_stats_t stats = m->stats;
    grove_job_t result = m->result;
    grove_policy_t pol = m->pol;
    struct grovep_keep *keep = m->keep;
    struct grovep_okeep *okeep = m->okeep;
    memset(&m->result, 0, sizeof(m->result));
    if (p) {
        m->pol = *p;
        m->keep = NULL; /* the rankings and lists kept are the matcher's policy's */
        m->okeep = NULL;
    }
    m->sat_up = true;
    int rc = grove_match(m, js, GROVE_MATCH_SATISFIABILITY, 0, NULL, err);
    int e = errno;
    m->sat_up = false;
    if (p) {
        grovep_match_keep_clear(m);
        grovep_match_order_clear(m);
        m->keep = keep;
        m->okeep = okeep;
    }
    m->pol = pol;
    free(m->result.picks);
    m->result = result;
    m->stats = stats;
    if (rc == 0)
        return 1;
    errno = e;
    return e == ENODEV ? 0 : -1;
}

/* ---- chosen windows and grow ---------------------------------------------- */

/* Merge the selection m->sel (recorded for job j) into j's picks: one
 * pick per vertex, units of a pool the job held already added up.  The
 * merged array is made by the caller beforehand (so nothing can fail
 * after the records are written): out has room for both lists. */
static void merge_picks(grove_job_t *j, const grove_pick_t *add, size_t n, grove_pick_t *out)
{
    size_t a = 0, b = 0, k = 0;
    while (a < j->npicks || b < n) {
        if (b == n || (a < j->npicks && j->picks[a].v < add[b].v)) {
            out[k++] = j->picks[a++];
        } else if (a == j->npicks || add[b].v < j->picks[a].v) {
            out[k++] = add[b++];
        } else {
            grove_pick_t p = j->picks[a++];
            const grove_pick_t *q = &add[b++];
            if (q->recorded) {
                p.amount = p.recorded && p.leaf ? p.amount + q->amount : q->amount;
                p.exclusive = p.exclusive || q->exclusive;
                p.leaf = q->leaf;
                p.recorded = true;
            }
            out[k++] = p;
        }
    }
    j->npicks = k;
}

/* Record the completed selection as more of job j (over j's window). */
static const grove_job_t *grow_commit(grove_matcher_t *m, const struct matching *x, grove_job_t *j,
                                      grove_error_t *err)
{
    grove_pick_t *merged = malloc((j->npicks + m->nsel + 1) * sizeof(*merged));
    if (!merged) {
        errno = ENOMEM;
        return NULL;
    }
    if (grovep_match_record(m->g, j->id, m->sel, m->nsel, j->start, j->end, x->imp) < 0) {
        grove_error_set(err, NULL, 0, "grow: could not record the allocation: %s",
                        strerror(errno));
        free(merged);
        return NULL;
    }
    merge_picks(j, m->sel, m->nsel, merged);
    free(j->picks);
    j->picks = merged;
    return j;
}

/* What grove_match_window and grove_match_grow (what names which, for
 * the message) do first: clear what they return, bring the job states up
 * to the clock, and refuse a missing jobspec.  0, or -1 EINVAL. */
static int fixed_begin(grove_matcher_t *m, const grove_jobspec_t *js, const char *what,
                       const grove_job_t **out, grove_error_t *err)
{
    if (out)
        *out = NULL;
    grove_error_clear(err);
    if (behind(m))
        grove_matcher_catch_up(m);
    if (!js)
        return grovep_errorf(err, EINVAL, "%s: no jobspec", what);
    return 0;
}

/* One match in a fixed window [start, end) (end 0: start plus the
 * duration), as a new job, or as more of job grow (its window).  The body
 * of grove_match_window and grove_match_grow. */
static int match_fixed(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                       grove_jobid_t id, int64_t start, int64_t end, grove_job_t *grow,
                       const grove_job_t **out, grove_error_t *err)
{
    double t0 = grovep_match_now_s();
    struct matching x = {.mode = mode, .id = id};
    const grove_job_t *job = NULL;
    if (grow) {
        x.id = grow->id;
    } else if (match_check(m, js, &x, err) < 0) {
        return -1;
    }
    m->stats.matches++;
    if (!grow && mode != GROVE_MATCH_WITHOUT_ALLOCATING && x.id >= m->next_id)
        m->next_id = x.id + 1;
    m->err = err;
    m->hook_failed = 0;
    m->id_moved = false;
    int found = -1;
    if (match_prepare(m, js, &x, err) == 0) {
        if (end == 0)
            end = x.till_horizon && start < x.horizon ? x.horizon : grove_time_end(start, x.d);
        x.d = end - start;
        x.at = start;
        /* a job grown keeps its window: the horizon bounds new jobs */
        if (grow || horizon_check(&x, start, err) == 0)
            found = grovep_match_attempt_x(m, &x, start, x.d);
    }
    if (found <= 0) {
        /* the satisfiability check of match_failed looks from now */
        x.now = m->g->now;
        match_failed(m, &x, found, err);
    } else if (match_complete(m, &x) == 0) {
        job = grow ? grow_commit(m, &x, grow, err) : match_commit(m, &x, err);
    }
    return match_done(m, &x, js, job, out, t0);
}

int grove_match_window(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                       grove_jobid_t id, int64_t start, int64_t end, const grove_job_t **out,
                       grove_error_t *err)
{
    if (fixed_begin(m, js, "match", out, err) < 0)
        return -1;
    if (mode != GROVE_MATCH_ALLOCATE && mode != GROVE_MATCH_ALLOCATE_WITH_SAT
        && mode != GROVE_MATCH_WITHOUT_ALLOCATING)
        return grovep_errorf(err, EINVAL,
                             "match: a chosen window takes the modes allocate, "
                             "allocate_with_satisfiability and without_allocating");
    if (start < m->g->now)
        return grovep_errorf(err, EINVAL, "match: the window starts at %lld, before now (%lld)",
                      (long long)start, (long long)m->g->now);
    if (end != 0 && end <= start)
        return grovep_errorf(err, EINVAL, "match: the window ends at %lld, not after its start (%lld)",
                      (long long)end, (long long)start);
    return match_fixed(m, js, mode, id, start, end, NULL, out, err);
}

int grove_match_grow(grove_matcher_t *m, const grove_jobspec_t *js, grove_jobid_t id,
                     const grove_job_t **out, grove_error_t *err)
{
    if (fixed_begin(m, js, "grow", out, err) < 0)
        return -1;
    long i = grovep_match_job_index(m, id);
    if (i < 0)
        return grovep_errorf(err, ENOENT, "grow: no job %llu", (unsigned long long)id);
    grove_job_t *j = m->jobs[i];
    /* (a compact job stays so: what it grows by joins its list, which is
     * made whole below its vertices held whole when it is read) */
    return match_fixed(m, js, GROVE_MATCH_ALLOCATE_WITH_SAT, id, j->start, j->end, j, out, err);
}

/* ---- the dominant subsystem ------------------------------------------------------- */

int grove_matcher_set_dominant(grove_matcher_t *m, const char *subsystem)
{
    if (!subsystem || !strcmp(subsystem, GROVE_CONTAINMENT)) {
        m->dominant = GROVE_SYM_NONE;
        return 0;
    }
    grove_sym_t s = grove_graph_sym(m->g, subsystem);
    if (s == GROVE_SYM_NONE)
        return -1;
    m->dominant = s;
    return 0;
}

const char *grove_matcher_dominant(const grove_matcher_t *m)
{
    return grove_graph_str(m->g, dom_sym(m));
}
