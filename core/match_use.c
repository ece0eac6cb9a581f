/* match_use.c: exploring by use (grove_policy_t.explore_by_use).
 *
 * Workload: policies such as first, whose order of children is the order
 * in which jobs went through them.  Each vertex a job went through or
 * below has a slot (its rank and the units of its ranking type the
 * running jobs hold below it), found by vertex id through a dense map, so
 * the figures cost a few bytes for each vertex the jobs reached; parents
 * with many children keep their sorted order between matches, brought up
 * to date only when a child's rank changed: the one child that changed
 * moves to its place by binary search (a root of 512 racks, one of which
 * a job went through), more than one sort again.
 *
 * This file must not walk or take (match_walk.c): the walk asks it for
 * an order (grovep_match_order_by_use, grovep_match_use_kept_order); the
 * commit and the release tell it what a job took or gave back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* ---- exploring by use ------------------------------------------------------- */

/* The slot of v, or NULL when it has none (it ranks UINT64_MAX, nothing is
 * counted below it and it keeps no order). */
static struct useslot *use_slot(const grove_matcher_t *m, grove_vid_t v)
{
    uint32_t i = grovep_dense_get(&m->useof, v);
    return i == UINT32_MAX ? NULL : &m->uslot[i];
}

/* The slot of v, made if it has none (earlier slot pointers may move).
 * NULL with ENOMEM: the slots as they were. */
static struct useslot *use_slot_make(grove_matcher_t *m, grove_vid_t v)
{
    struct useslot *u = use_slot(m, v);
    if (u)
        return u;
    if (m->nuslot >= UINT32_MAX - 1
        || grovep_grow((void **)&m->uslot, &m->uslotcap, m->nuslot + 1, sizeof(*m->uslot)) < 0
        || grovep_dense_set(&m->useof, v, (uint32_t)m->nuslot) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    u = &m->uslot[m->nuslot++];
    *u = (struct useslot){.rank = UINT64_MAX, .ord = UINT32_MAX};
    return u;
}

static uint64_t use_of(const grove_matcher_t *m, grove_vid_t v)
{
    const struct useslot *u = use_slot(m, v);
    return u ? u->rank : UINT64_MAX;
}

/* The children kids[0..n) in the order of exploring by use: highest rank
 * first (see grovep_match_use_update), then highest vertex id (insertion sort: a
 * vertex has few children, or children mostly in order, as a kept order
 * is: each child whose rank changed moves as far as it must, the others
 * are only compared once). */
void grovep_match_order_by_use(const grove_matcher_t *m, grove_vid_t *kids, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        grove_vid_t k = kids[i];
        uint64_t w = use_of(m, k);
        size_t j = i;
        while (j > 0) {
            uint64_t wj = use_of(m, kids[j - 1]);
            if (wj > w || (wj == w && kids[j - 1] > k))
                break;
            kids[j] = kids[j - 1];
            j--;
        }
        kids[j] = k;
    }
}

/* Does child a of rank ra come before child b of rank rb in the order of
 * exploring by use?  Highest rank first, then highest vertex id. */
static inline bool use_before(uint64_t ra, grove_vid_t a, uint64_t rb, grove_vid_t b)
{
    return ra > rb || (ra == rb && a > b);
}

/* The first of kids[lo..hi) that does not come before child c of rank r
 * (kids[lo..hi) sorted, c itself counting as not before: its own rank may
 * have changed). */
static size_t use_bound(const grove_matcher_t *m, const grove_vid_t *kids, size_t lo, size_t hi,
                        uint64_t r, grove_vid_t c)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        grove_vid_t x = kids[mid];
        if (x != c && use_before(use_of(m, x), x, r, c))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Move child c, whose rank was old when kids[0..n) was sorted and the only
 * one that changed since, to its place: two binary searches and one
 * memmove, where sorting again compares every child.  The order is the
 * one sorting gives (ranks and ids order the children strictly).  0, or
 * -1 when c is not where its old rank puts it (nothing moved). */
static int use_move_one(const grove_matcher_t *m, grove_vid_t *kids, size_t n, grove_vid_t c,
                        uint64_t old)
{
    size_t p = use_bound(m, kids, 0, n, old, c);
    if (p >= n || kids[p] != c)
        return -1;
    uint64_t r = use_of(m, c);
    if (use_before(r, c, old, c)) { /* up: before kids[q..p) */
        size_t q = use_bound(m, kids, 0, p, r, c);
        memmove(kids + q + 1, kids + q, (p - q) * sizeof(*kids));
        kids[q] = c;
    } else if (r != old) { /* down: after kids(p..q] */
        size_t q = use_bound(m, kids, p + 1, n, r, c) - 1;
        memmove(kids + p, kids + p + 1, (q - p) * sizeof(*kids));
        kids[q] = c;
    }
    return 0;
}

/* The n (at least USE_ORD_MIN) children of v in containment's tree in the
 * order of exploring by use, kept from one match to the next: made at v's
 * first walk and sorted, then brought up to date only when the rank of
 * one of them changed since (use_update tells v's kept order): the one
 * child that changed, the common case (a job's way down goes through one
 * child of each vertex), moves to its place (use_move_one: O(log n)
 * comparisons, where sorting a root of hundreds of racks costs O(n) even
 * with one child out of place); more than one, sorted again by insertion
 * (O(n) plus the moves of those children).  Either gives the same order as
 * sorting anew.  Kept orders are dropped when the tree's child arrays were
 * made again (the graph changed).  The order lives in m->uord until the
 * next call; NULL with ENOMEM. */
const grove_vid_t *grovep_match_use_kept_order(grove_matcher_t *m, grove_vid_t v, uint32_t n)
{
    const grove_graph_t *g = m->g;
    if (m->uord_tree[0] != g->tk_nv || m->uord_tree[1] != g->tk_ne
        || m->uord_tree[2] != g->tk_live) {
        for (size_t i = 0; i < m->nuslot; i++)
            m->uslot[i].ord = UINT32_MAX;
        m->nuord = 0;
        m->nuordh = 0;
        m->uord_tree[0] = g->tk_nv;
        m->uord_tree[1] = g->tk_ne;
        m->uord_tree[2] = g->tk_live;
    }
    struct useslot *u = use_slot_make(m, v);
    if (!u)
        return NULL;
    if (u->ord == UINT32_MAX) {
        if (m->nuord + n >= UINT32_MAX || m->nuordh >= UINT32_MAX - 1
            || grovep_grow((void **)&m->uord, &m->uordcap, m->nuord + n, sizeof(*m->uord)) < 0
            || grovep_grow((void **)&m->uordh, &m->uordhcap, m->nuordh + 1, sizeof(*m->uordh))
                   < 0) {
            errno = ENOMEM;
            return NULL;
        }
        /* backwards: children not gone through rank alike, highest id
         * first, and the tree lists them by rising id */
        const grove_vid_t *tk = m->tk + m->tkoff[v];
        for (uint32_t i = 0; i < n; i++)
            m->uord[m->nuord + i] = tk[n - 1 - i];
        m->uordh[m->nuordh] = (struct uorder){.at = (uint32_t)m->nuord, .moved = GROVEP_NONE};
        u->ord = (uint32_t)m->nuordh++;
        u->dirty = true;
        m->nuord += n;
    }
    struct uorder *o = &m->uordh[u->ord];
    grove_vid_t *kids = m->uord + o->at;
    if (!u->dirty && o->moved != GROVEP_NONE
        && use_move_one(m, kids, n, o->moved, o->moved_rank) < 0)
        u->dirty = true; /* not where it was: sort them all */
    if (u->dirty) {
        grovep_match_order_by_use(m, kids, n);
        u->dirty = false;
    }
    o->moved = GROVEP_NONE;
    return kids;
}

/* The rank of child v of parent slot pu changed from old: tell pu's kept
 * order (the first child that changed since it was sorted is remembered,
 * with the rank it was sorted by; a second, or a parent with no kept
 * order yet, sorts again). */
static void use_changed(grove_matcher_t *m, struct useslot *pu, grove_vid_t v, uint64_t old)
{
    if (pu->dirty)
        return;
    struct uorder *o = pu->ord != UINT32_MAX ? &m->uordh[pu->ord] : NULL;
    if (o && o->moved == GROVEP_NONE) {
        o->moved = v;
        o->moved_rank = old;
    } else if (!o || o->moved != v) {
        pu->dirty = true;
    }
}

/* The index of the aggregate type whose free units rank a vertex of type
 * t once a job went through it: the last of the types the aggregate
 * specification names for t, those given for t first, then the "ALL:"
 * ones other than t itself, each in the order written (the reference engine's order of a
 * vertex's pruning types: with its "ALL:core,ALL:node", nodes rank by
 * cores and everything else by nodes); -1 when none applies. */
static int use_type_of(const grove_graph_t *g, grove_sym_t t)
{
    int last = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < g->npairs; i++) {
            grove_sym_t high = g->agg_pair[i].high, low = g->agg_low[g->agg_pair[i].low];
            if (pass == 0 ? high == t : (high == GROVE_SYM_NONE && low != t))
                last = g->agg_pair[i].low;
        }
    }
    return last;
}

/* use_type_of for v's type, through the matcher's cache of it. */
static int use_type(grove_matcher_t *m, grove_vid_t v)
{
    const grove_graph_t *g = m->g;
    grove_sym_t t = g->v[v].type;
    if (m->utype_spec != g->agg_spec_gen + 1) {
        for (size_t i = 0; i < sizeof(m->utype) / sizeof(m->utype[0]); i++)
            m->utype[i].type = GROVE_SYM_NONE;
        m->utype_spec = g->agg_spec_gen + 1;
    }
    size_t i = t % (sizeof(m->utype) / sizeof(m->utype[0]));
    if (m->utype[i].type != t || t == GROVE_SYM_NONE) {
        m->utype[i].type = t;
        m->utype[i].k = (int8_t)use_type_of(g, t);
    }
    return m->utype[i].k;
}

/* Count (sign 1) or stop counting (-1) the units pick p of a job asks for
 * in the held or at figures (op) of its ancestors whose ranking type is
 * p's type; USE_MAKE gives those ancestors a slot first, so that counting
 * cannot fail (0, or -1 with ENOMEM; the other ops return 0, and skip an
 * ancestor with no slot: nothing was counted in it). */
/* Add sign * units to the figure op names (or make its slot, USE_MAKE) on
 * every ancestor above parent a that ranks by type t.  0, or -1 with
 * ENOMEM (USE_MAKE). */
static int use_add_above(grove_matcher_t *m, enum use_op op, grove_vid_t a, grove_sym_t t,
                         int64_t units)
{
    const grove_graph_t *g = m->g;
    for (; a != GROVEP_NONE; a = m->par[a]) {
        int k = use_type(m, a);
        if (k < 0 || g->agg_low[k] != t)
            continue;
        struct useslot *u = op == USE_MAKE ? use_slot_make(m, a) : use_slot(m, a);
        if (!u && op == USE_MAKE)
            return -1;
        if (u && op != USE_MAKE)
            *(op == USE_HELD ? &u->held : &u->at) += units;
    }
    return 0;
}

/* What pick p asked of a pool, or a vertex held whole (a node taken
 * exclusively counts one node; one shared counts none); 0 for a shared
 * container, which counts nothing. */
static int64_t use_units(const grove_graph_t *g, const grove_pick_t *p)
{
    if (!(p->leaf || p->exclusive))
        return 0;
    return p->leaf ? p->amount : grovep_vertex_size(g, p->v);
}

/* Count what picks[0..n) asked for in the figure op names at their
 * ancestors (use_add_above; USE_MAKE: make their slots).  A run of picks
 * of one type under one parent (the cores of a socket: picks are sorted
 * by vertex) walks the ancestors once with the run's sum, so a whole
 * machine's selection costs a walk a parent, not one a core. */
int grovep_match_use_count_all(grove_matcher_t *m, enum use_op op, const grove_pick_t *picks,
                               size_t n, int64_t sign)
{
    const grove_graph_t *g = m->g;
    for (size_t i = 0; i < n;) {
        const grove_pick_t *p = &picks[i++];
        if (!(p->leaf || p->exclusive))
            continue;
        grove_vid_t a = m->par[p->v];
        grove_sym_t t = g->v[p->v].type;
        int64_t units = use_units(g, p);
        for (; i < n && m->par[picks[i].v] == a && g->v[picks[i].v].type == t; i++)
            units += use_units(g, &picks[i]);
        if (use_add_above(m, op, a, t, sign * units) < 0)
            return -1;
    }
    return 0;
}

/* Fill (sign 1) or clear (-1) the at figures (op USE_AT), or make their
 * slots (USE_MAKE), with what the jobs of the table other than skip that
 * overlap instant t asked for (a reservation's rank reads the instant it
 * starts at; O(jobs), on that path only).  0, or -1 with ENOMEM. */
static int use_at_fill(grove_matcher_t *m, int64_t t, const grove_job_t *skip, enum use_op op,
                       int64_t sign)
{
    for (size_t i = 0; i < m->njobs; i++) {
        const grove_job_t *o = m->jobs[i];
        if (o == skip || o->start > t || o->end <= t)
            continue;
        if (grovep_match_use_count_all(m, op, o->picks, o->npicks, sign) < 0)
            return -1;
    }
    return 0;
}

/* Job j leaves the table (or is taken out to be placed again): what it
 * asked for no longer counts. */
void grovep_match_use_forget(grove_matcher_t *m, grove_job_t *j)
{
    if (j->use_held)
        (void)grovep_match_use_count_all(m, USE_HELD, j->picks, j->npicks, -1);
    j->use_held = false;
}

/* Is pick p a vertex use_update ranks? */
static inline bool use_ranked(grove_matcher_t *m, const grove_pick_t *p)
{
    grove_vid_t v = p->v;
    if (m->tk && m->tkoff[v + 1] == m->tkoff[v])
        return false; /* a leaf of containment keeps no aggregate: the cores
                       * of a whole machine are told apart in a step */
    return m->par[v] != GROVEP_NONE && use_type(m, v) >= 0 && grovep_agg_of(m->g, v);
}

/* Make the slots grovep_match_use_update(m, j, now) counts and ranks in, before j is
 * recorded, so that ranking it cannot fail: 0, or -1 with ENOMEM (the
 * slots made stay, holding nothing). */
int grovep_match_use_reserve(grove_matcher_t *m, const grove_job_t *j, int64_t now)
{
    bool runs = j->start <= now && now < j->end;
    if (!runs && use_at_fill(m, j->start, j, USE_MAKE, 0) < 0)
        return -1;
    /* every ancestor of a pick is a pick (grovep_match_add_ancestors), so the ranked
     * picks and the root are the vertices counted in: no walk up the tree
     * from each run of picks is needed to find them */
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        bool root = m->par[p->v] == GROVEP_NONE && use_type(m, p->v) >= 0;
        if ((root || use_ranked(m, p)) && !use_slot_make(m, p->v))
            return -1;
    }
    return 0;
}

/* After job j was recorded: rank again every vertex below the root on its
 * way, so the next job explores elsewhere first.  A vertex ranks by the
 * units of its ranking type (use_type) below it that the jobs overlapping
 * j's start, j included, did not ask for (units held whole beyond what was
 * asked count as free; a vertex with none of that type below ranks 0).
 * Allocations read the running jobs' counts, kept as jobs come and go; a
 * reservation counts the jobs at its start.  Then j's units count, if it
 * runs now.  Vertices that keep no aggregate (leaves) keep their rank.
 * A parent whose rank of a child changed brings its kept order up to date
 * at its next walk (use_changed).
 * The slots were made by use_reserve.
 * This is the reference engine's weight per edge, as its sources and a
 * build of it with the weights printed show (docs/conformance.md). */
void grovep_match_use_update(grove_matcher_t *m, grove_job_t *j, int64_t now)
{
    const grove_graph_t *g = m->g;
    bool runs = j->start <= now && now < j->end;
    enum use_op op = runs ? USE_HELD : USE_AT;
    if (!runs)
        (void)use_at_fill(m, j->start, j, USE_AT, 1);
    (void)grovep_match_use_count_all(m, op, j->picks, j->npicks, 1);
    for (size_t i = 0; i < j->npicks; i++) {
        grove_vid_t v = j->picks[i].v;
        struct useslot *u = use_ranked(m, &j->picks[i]) ? use_slot(m, v) : NULL;
        if (!u)
            continue;
        const grovep_agg_t *a = grovep_agg_of(g, v);
        int k = use_type(m, v);
        int64_t left = ((a->mask & (1u << k)) ? grovep_agg_total(g, a)[k] : 0) - (runs ? u->held : u->at);
        uint64_t rank = left < 0 ? 0 : (uint64_t)left;
        if (rank == u->rank)
            continue;
        uint64_t old = u->rank;
        u->rank = rank;
        struct useslot *pu = g->parent[v] != GROVEP_NONE ? use_slot(m, g->parent[v]) : NULL;
        if (pu)
            use_changed(m, pu, v, old);
    }
    if (runs) {
        j->use_held = true;
    } else { /* back to zero */
        (void)grovep_match_use_count_all(m, USE_AT, j->picks, j->npicks, -1);
        (void)use_at_fill(m, j->start, j, USE_AT, -1);
    }
}
