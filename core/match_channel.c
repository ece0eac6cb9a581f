/* match_channel.c: channeled pools, taken and given back along conduits.
 *
 * Workload: jobs that ask for a type only an auxiliary subsystem holds
 * (bandwidth to a file system, power): the units are taken on every
 * conduit on the path from the job's feeders up to the pool, so a match
 * costs the length of those paths, not a walk of the subsystem.
 *
 * This file must not walk the dominant subsystem (match_walk.c) or know
 * the job table (match_job.c): release hands it a job and a pick.
 */


#include "match_private.h"

/* ---- channeled pools --------------------------------------------------------------- */

/* A channeled pool (RFC 4) is a type that only an auxiliary subsystem
 * holds: the bandwidth of a node in an I/O subsystem, the power a node
 * draws.  A request for it below a candidate takes its units from the pool
 * the candidate (or its nearest ancestor that has one) feeds in that
 * subsystem, and the same units from every distribution unit on the way up
 * to the subsystem's root: the unit itself when its pool has the same unit
 * of measure (a switch of 200 GB/s), else the pools of that type it feeds
 * directly (a pdu's power).  "Auxiliary" means other than the walked
 * subsystem (containment, or the one grove_matcher_set_dominant chose). */

/* Is t a type that no vertex of the dominant subsystem has? */
bool grovep_match_channeled_type(const grove_matcher_t *m, grove_sym_t t)
{
    const grove_graph_t *g = m->g;
    grove_vid_t v = grove_graph_first_by_type(g, t);
    if (v == GROVE_VID_NONE || m->par[v] != GROVEP_NONE)
        return false;
    for (grove_eid_t e = grovep_in_first(g, v); e != GROVEP_NONE; e = grovep_in_next(g, e))
        if (g->e[e].sub != m->dom_sub && !(g->e[e].flags & GROVEP_E_UP))
            return true; /* fed in another subsystem, and no parent in the walked one */
    return false;
}

/* The first downward edge out of v in a subsystem other than the walked
 * one to a vertex of type t, or GROVEP_NONE. */
static grove_eid_t channel_edge(const grove_matcher_t *m, grove_vid_t v, grove_sym_t t)
{
    const grove_graph_t *g = m->g;
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        if (ed->sub != m->dom_sub && !(ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD))
            && g->v[ed->dst].type == t)
            return e;
    }
    return GROVEP_NONE;
}

/* Take want units of pools of type t fed by v in subsystem sub (v itself
 * when self): first fit, each pick a leaf of its units.  1 taken, 0 not
 * enough (the caller rolls back), -1 error. */
static int channel_take(grove_matcher_t *m, grove_vid_t v, uint8_t sub, grove_sym_t t, bool self,
                        int64_t want)
{
    const grove_graph_t *g = m->g;
    if (self) {
        if (!up(m, v) || held_excl(m, v) || (flags_of(m, v) & M_EXCL) || free_units(m, v) < want)
            return 0;
        return set_state(m, v, taken_of(m, v) + want, flags_of(m, v) | M_TOUCH | M_PICK) < 0
                       || add_pick(m, v, want, false, true) < 0
                   ? -1
                   : 1;
    }
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE && want > 0; e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        grove_vid_t c = ed->dst;
        if (ed->sub != sub || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD)) || g->v[c].type != t
            || !up(m, c) || held_excl(m, c) || (flags_of(m, c) & M_EXCL))
            continue;
        int64_t n = free_units(m, c);
        n = n < want ? n : want;
        if (n <= 0)
            continue;
        if (set_state(m, c, taken_of(m, c) + n, flags_of(m, c) | M_TOUCH | M_PICK) < 0
            || add_pick(m, c, n, false, true) < 0)
            return -1;
        want -= n;
    }
    return want == 0;
}

/* Take want units of type t along the conduit path from the feeder a (a
 * vertex with a channel edge e to a pool of type t): the pools a feeds, then
 * every distribution unit above a in e's subsystem.  1, 0 (nothing of it
 * stays taken), -1. */
static int channel_path(grove_matcher_t *m, grove_vid_t a, grove_eid_t e, grove_sym_t t,
                        int64_t want)
{
    const grove_graph_t *g = m->g;
    uint8_t sub = g->e[e].sub;
    grove_sym_t unit = grovep_vertex_unit(g, g->e[e].dst);
    struct checkpoint cp = checkpoint(m);
    int rc = channel_take(m, a, sub, t, false, want);
    for (grove_vid_t p = grove_vertex_parent(g, a, g->subsys[sub]); rc == 1 && p != GROVE_VID_NONE;
         p = grove_vertex_parent(g, p, g->subsys[sub])) {
        if (channel_edge(m, p, t) != GROVEP_NONE)
            rc = channel_take(m, p, sub, t, false, want);
        else if (unit != GROVE_SYM_NONE && grovep_vertex_unit(g, p) == unit
                 && grove_graph_str(g, unit)[0] != '\0')
            rc = channel_take(m, p, sub, t, true, want);
    }
    if (rc <= 0)
        rollback(m, cp);
    return rc;
}

/* The walk for a feeder: what it looks for, and what it found. */
struct feedwalk {
    grove_matcher_t *m;
    grove_sym_t t;
    int64_t want;
    int rc; /* channel_path's answer at the last feeder tried */
};

static int feeder_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    (void)depth;
    struct feedwalk *w = arg;
    if (!up(w->m, v) || held_excl(w->m, v))
        return GROVE_WALK_SKIP; /* its flow is not this job's to take */
    grove_eid_t e;
    if ((e = channel_edge(w->m, v, w->t)) == GROVEP_NONE)
        return GROVE_WALK_CONTINUE;
    w->rc = channel_path(w->m, v, e, w->t, w->want);
    return w->rc == 0 ? GROVE_WALK_CONTINUE : GROVE_WALK_STOP;
}

/* Match the channeled leaf request r below u (top: r is at the top of
 * the jobspec, u the root).  RFC 4 lets a job take the flow on every
 * distribution unit along its path; the units come from the pools fed by
 * one vertex, all along its path:
 *   - below a candidate, the candidate's own flow: the pools u feeds, else
 *     those of its nearest ancestor that feeds one (a slot placed in a
 *     socket takes its node's bandwidth);
 *   - at the top of the jobspec, RFC 14's "composite resource request for
 *     the program": the flow of a vertex the job holds (a vertex this match
 *     picked, or one holding a pick: the job's own nodes, which is why such
 *     requests are matched after their siblings), else of any vertex, in
 *     walk order, that no other job holds exclusively; the first whose
 *     path carries the units.
 * The feeder is not made part of the job: only the units are.  1, 0
 * (nothing of it stays taken), -1. */
int grovep_match_channel_match(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool top)
{
    int64_t want = (int64_t)r->count->min; /* units: a range takes its least */
    if (want <= 0)
        return 0;
    grove_eid_t e = GROVEP_NONE;
    if (!top) {
        grove_vid_t a = u;
        while (a != GROVEP_NONE && (e = channel_edge(m, a, r->type)) == GROVEP_NONE)
            a = m->par[a];
        return e == GROVEP_NONE ? 0 : channel_path(m, a, e, r->type, want);
    }
    /* each pick, else its nearest ancestor that feeds; a pick with the
     * parent of the one before (the cores of a socket) has had its
     * ancestors tried */
    grove_vid_t seen = GROVEP_NONE;
    for (size_t i = 0; i < m->nsel; i++) {
        grove_vid_t v = m->sel[i].v, p = m->par[v];
        e = channel_edge(m, v, r->type);
        if (e == GROVEP_NONE && p != seen)
            for (v = p; v != GROVEP_NONE && (e = channel_edge(m, v, r->type)) == GROVEP_NONE;)
                v = m->par[v];
        seen = p;
        int rc = e == GROVEP_NONE ? 0 : channel_path(m, v, e, r->type, want);
        if (rc != 0)
            return rc;
    }
    struct feedwalk w = {m, r->type, want, 0};
    grove_walk_hooks_t h = {.pre = feeder_pre, .arg = &w};
    if (grove_graph_walk(m->g, u, dom_sym(m), &h, NULL) < 0)
        return -1;
    return w.rc;
}

/* A selection may take units of one pool several times (two nodes behind
 * one switch): one pick per vertex, the units added up.  p is sorted. */
void grovep_match_merge_channel_picks(grove_matcher_t *m)
{
    /* the picks before the first vertex picked twice stay where they are
     * (most selections have none: nothing is moved) */
    size_t n = m->nsel, i = 1;
    while (i < n && m->sel[i - 1].v != m->sel[i].v)
        i++;
    if (i >= n)
        return;
    size_t k = i;
    for (; i < n; i++) {
        grove_pick_t *q = &m->sel[i];
        if (k > 0 && m->sel[k - 1].v == q->v && q->leaf && !q->exclusive && m->sel[k - 1].leaf
            && !m->sel[k - 1].exclusive) {
            m->sel[k - 1].amount += q->amount;
            continue;
        }
        m->sel[k++] = *q;
    }
    m->nsel = k;
}

/* The index of v among job j's channel units (a pool or distribution unit
 * channel_take recorded: shared units, no exclusivity), or -1. */
static long channel_pick(const grove_job_t *j, grove_vid_t v)
{
    long x = pick_index(j, v);
    if (x < 0)
        return -1;
    const grove_pick_t *p = &j->picks[x];
    return p->leaf && !p->exclusive && p->recorded && p->amount > 0 ? x : -1;
}

/* Give back n of the units pick x holds (all: the pick leaves the job,
 * marked in rel).  1 when it left, else 0. */
static int channel_give(grove_matcher_t *m, grove_job_t *j, long x, int64_t n, uint8_t *rel)
{
    grove_pick_t *p = &j->picks[x];
    if (n >= p->amount) {
        grove_vertex_free(m->g, p->v, j->id, -1);
        p->recorded = false;
        rel[x] = 1;
        return 1;
    }
    grove_vertex_free(m->g, p->v, j->id, n);
    p->amount -= n;
    return 0;
}

/* The pool c left job j with its n units of type t, fed by d in
 * subsystem sub: give the same units back on every distribution unit
 * above d, as channel_path took them (the pools a unit feeds, first
 * first, else the unit itself).  Returns how many picks left. */
static long channel_unwind(grove_matcher_t *m, grove_job_t *j, grove_vid_t d, uint8_t sub,
                           grove_vid_t c, int64_t n, uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    grove_sym_t t = g->v[c].type, s = g->subsys[sub];
    long left = 0;
    for (grove_vid_t p = grove_vertex_parent(g, d, s); p != GROVE_VID_NONE;
         p = grove_vertex_parent(g, p, s)) {
        int64_t want = n;
        bool feeds = false;
        for (grove_eid_t e = g->first_out[p]; e != GROVEP_NONE && want > 0; e = g->e[e].next_out) {
            const grovep_edge_t *ed = &g->e[e];
            if (ed->sub != sub || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD))
                || g->v[ed->dst].type != t)
                continue;
            feeds = true;
            long x = channel_pick(j, ed->dst);
            if (x < 0)
                continue;
            int64_t k = j->picks[x].amount < want ? j->picks[x].amount : want;
            left += channel_give(m, j, x, k, rel);
            want -= k;
        }
        long x;
        if (!feeds && (x = channel_pick(j, p)) >= 0 && grovep_vertex_unit(g, p) == grovep_vertex_unit(g, c))
            left += channel_give(m, j, x, want, rel);
    }
    return left;
}

/* The channel units fed by d (a vertex leaving job j) leave with it: the
 * pools d feeds outside containment that the job holds, and their units
 * on the path above (channel_match took them for d; units taken for a
 * request with no feeder among the job's vertices stay until the job
 * goes).  Returns how many picks left. */
long grovep_match_channel_release(grove_matcher_t *m, grove_job_t *j, grove_vid_t d, uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    long left = 0;
    for (grove_eid_t e = g->first_out[d]; e != GROVEP_NONE; e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        long x;
        if (ed->sub == g->containment || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD))
            || g->parent[ed->dst] != GROVEP_NONE || (x = channel_pick(j, ed->dst)) < 0)
            continue;
        int64_t n = j->picks[x].amount;
        left += channel_give(m, j, x, n, rel);
        left += channel_unwind(m, j, d, ed->sub, ed->dst, n, rel);
    }
    return left;
}

/* Pick x of job j, a channel pool released by name, gives its units back
 * on the path above its feeder too.  Returns how many other picks left. */
long grovep_match_channel_pool_release(grove_matcher_t *m, grove_job_t *j, long x, uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    grove_vid_t c = j->picks[x].v;
    if (g->parent[c] != GROVEP_NONE || channel_pick(j, c) < 0)
        return 0;
    for (grove_eid_t e = grovep_in_first(g, c); e != GROVEP_NONE; e = grovep_in_next(g, e)) {
        const grovep_edge_t *ed = &g->e[e];
        if (ed->sub == g->containment || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD)))
            continue;
        int64_t n = j->picks[x].amount;
        channel_give(m, j, x, n, rel);
        return channel_unwind(m, j, grovep_edge_src(g, e), ed->sub, c, n, rel);
    }
    return 0;
}
