/* match_slot.c: slots, their homes and their ranking, and or-slots.
 *
 * Workload: every request with a slot (most jobs); the whole machine asks
 * for one slot per node.  A slot groups the resources of one task; its
 * count is placed on homes (a vertex below which a whole slot fits), taken
 * one home after the other, or, for the policies that declare an order by
 * id, gathered, ranked and placed as the reference engine does.  Or-slots
 * (grove_match_config_t) choose among alternatives by the cheapest
 * sequence that covers the count.
 *
 * This file must not hold the candidate walk or taking one candidate
 * (match_walk.c): it calls grovep_match_list for what a slot holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* ---- slots and their homes ------------------------------------------------ */

bool grovep_match_at_or_below_node(const grove_matcher_t *m, grove_vid_t w)
{
    if (m->node_sym == GROVE_SYM_NONE)
        return true; /* a graph without nodes: no such limit */
    for (grove_vid_t a = w; a != GROVEP_NONE; a = m->par[a])
        if (m->g->v[a].type == m->node_sym)
            return true;
    return false;
}

/* Does every pool the slot took beside its nodes (the selections from
 * `from` on that are neither a node nor inside one: the ssds of a rabbit's
 * chassis) come from a container of all its nodes (its parent above each
 * of them)?  So a node's near-node storage is its own chassis's, and a
 * node no rabbit serves gets none, whatever home the slot found. */
static bool near_its_nodes(const grove_matcher_t *m, size_t from)
{
    for (size_t i = from; i < m->nsel; i++) {
        grove_vid_t p = m->sel[i].v;
        if (grovep_match_at_or_below_node(m, p))
            continue;
        for (size_t j = from; j < m->nsel; j++) {
            grove_vid_t n = m->sel[j].v;
            if (m->g->v[n].type != m->node_sym)
                continue;
            grove_vid_t a = m->par[n];
            while (a != GROVEP_NONE && a != m->par[p])
                a = m->par[a];
            if (a == GROVEP_NONE)
                return false;
        }
    }
    return true;
}

/* The requests of slot r below w, all or nothing: 1, 0 (nothing of them
 * stays taken), -1. */
static int slot_children(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl)
{
    struct checkpoint cp = checkpoint(m);
    bool nodes = false;
    for (const struct req *ch = r->child; ch; ch = ch->next) {
        int rc = grovep_match_list(m, ch, w, excl, false);
        if (rc <= 0) {
            rollback(m, cp);
            return rc;
        }
        nodes |= m->node_sym != GROVE_SYM_NONE && ch->type == m->node_sym;
    }
    if (nodes && !near_its_nodes(m, cp.nsel)) {
        rollback(m, cp);
        return 0;
    }
    return 1;
}

/* Has w a child in the walked subsystem? */
static bool has_kids(const grove_matcher_t *m, grove_vid_t w)
{
    const grove_graph_t *g = m->g;
    if (m->tk)
        return m->tkoff[w + 1] > m->tkoff[w];
    for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].sub == m->dom_sub && !(g->e[e].flags & GROVEP_E_UP))
            return true;
    return false;
}

/* The children of w in the walk's order, pushed as a frame (kid_at reads
 * them); kids_end pops it. */
struct kids {
    size_t fbase, kbase;
    uint32_t n;
};

static int kids_begin(grove_matcher_t *m, grove_vid_t w, const struct req *r, struct kids *k)
{
    k->fbase = m->nframes;
    k->kbase = m->nkids;
    if (grovep_match_push_frame(m, w, r) < 0)
        return -1;
    k->n = m->frames[k->fbase].nkids;
    return 0;
}

/* The i-th child of k's frame (read anew: a push may move the arena). */
static inline grove_vid_t kid_at(const grove_matcher_t *m, const struct kids *k, uint32_t i)
{
    return grovep_frame_kids(m, &m->frames[k->fbase])[i];
}

static void kids_end(grove_matcher_t *m, const struct kids *k)
{
    m->nframes = k->fbase;
    m->nkids = k->kbase;
}

/* Place one slot below u: the slot's resources all come from one subtree,
 * the deepest that can hold them (post-order: children before parents), so
 * a slot of cores and memory lands in one socket when one socket has
 * enough.  1 placed, 0 not, -1 error. */
/* Does the policy's prune skip w (below a slot's root)?  1, 0, or -1. */
static int slot_pruned(grove_matcher_t *m, const struct req *r, grove_vid_t w)
{
    if (!m->pol.prune || !grove_policy_applies(m->g, m->pol.prune_types, m->g->v[w].type))
        return 0;
    grove_policy_ctx_t ctx = {GROVE_SYM_NONE, 0, m->start, m->end, &m->preq, r->js};
    return prune_asked(m, w, &ctx);
}

/* The locality domain of v: the vertex of type dom_sym at or above it,
 * looked for up to its node; GROVE_VID_NONE when none. */
static grove_vid_t domain_of(const grove_matcher_t *m, grove_vid_t v)
{
    const grove_graph_t *g = m->g;
    for (grove_vid_t a = v; a != GROVEP_NONE; a = g->parent[a]) {
        if (g->v[a].type == m->dom_sym)
            return a;
        if (g->v[a].type == m->node_sym)
            break;
    }
    return GROVE_VID_NONE;
}

/* Do the picks from `from` on, a slot just placed below home w, lie in
 * more than one locality domain?  Never when the graph has none, or when
 * w is itself in one (all below it is). */
static bool spans_domains(const grove_matcher_t *m, grove_vid_t w, size_t from)
{
    if (m->dom_sym == GROVE_SYM_NONE || domain_of(m, w) != GROVE_VID_NONE)
        return false;
    grove_vid_t seen = GROVE_VID_NONE;
    for (size_t i = from; i < m->nsel; i++) {
        grove_vid_t d = domain_of(m, m->sel[i].v);
        if (d == GROVE_VID_NONE)
            continue; /* outside every domain (a GPU of no package) */
        if (seen == GROVE_VID_NONE)
            seen = d;
        else if (d != seen)
            return true;
    }
    return false;
}

/* Place the slot at w itself, none of w's children holding it: 1, 0 (w
 * marked as holding none), -1. */
static int slot_here(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl)
{
    /* a slot is where one task runs: it stays within one node unless it
     * asks for nodes itself */
    int rc = 0;
    if (r->free_span || grovep_match_at_or_below_node(m, w)) {
        struct checkpoint cp = checkpoint(m);
        rc = slot_children(m, r, w, excl);
        if (rc > 0 && spans_domains(m, w, cp.nsel)) {
            if (m->slot_local) {
                /* kept local in this attempt: not here */
                rollback(m, cp);
                m->local_refused = true;
                rc = 0;
            } else {
                m->nspread++;
            }
        }
        if (rc > 0)
            m->slot_last = w;
    }
    if (rc == 0 && !m->pol.prune)
        m->slot_dead[w] = m->slot_cur;
    return rc;
}

static int slot_home(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl,
                     bool is_root)
{
    if (!is_root && m->slot_dead[w] == m->slot_cur)
        return 0; /* no slot fitted below w earlier in this call */
    /* a prune that answers alike whenever it is asked (prune_static: its
     * answers are kept) is asked before the aggregates are read: a kept
     * ranking by free units (spread) lists the nodes no job touches
     * first, and those are the ones a prune by property skips every time */
    bool early = !is_root && m->pol.prune_static;
    int p = early ? slot_pruned(m, r, w) : 0;
    if (p != 0)
        return p < 0 ? -1 : 0;
    if (is_root ? !agg_fits(m, w, r->need1) : !enter_fits(m, w, r->need1))
        return 0;
    if (!is_root && !early && (p = slot_pruned(m, r, w)) != 0)
        return p < 0 ? -1 : 0;
    size_t fbase = m->nframes, kbase = m->nkids;
    if (grovep_match_push_frame(m, w, r) < 0)
        return -1;
    uint32_t n = m->frames[fbase].nkids;
    /* children in the graph's order: a block found without room is passed
     * by whole, not child by child (each a look at its list of children
     * and at its block's map: a third of a conservative queue's replanning
     * at 16,384 nodes, one-core slots walked over full blocks) */
    uint32_t blk = m->frames[fbase].graph_order ? m->g->agg_blk : 0;
    /* Each slot of a call walks w's children from the first again (the
     * walk's order may change as slots are taken).  When the call wants
     * more than one, a child already found to hold none is passed by on
     * its mark, before a look at its block, and a child of a block with no
     * room is marked too: over a machine's 16,384 nodes, eight slots
     * walked the nodes the earlier ones had passed eight times, each with
     * a look at its block.  A call of one slot marks nothing there: the
     * marks are a word a vertex, each node's on its own cache line, and
     * such a call would pay a store on every node of a full machine for
     * nothing.  Leaves are never marked: a node's cores are passed by at
     * each of its visits. */
    bool mark = m->slot_multi;
    /* what w's children are, when they are its own in the tree: all
     * leaves, none of which holds a slot (nothing to look at without a
     * prune hook to ask), or none a leaf (no child's list to look at) */
    uint8_t kind = m->frames[fbase].in_tree ? m->tkkind[w] : GROVEP_TK_LEAF | GROVEP_TK_INNER;
    uint32_t walked = !(kind & GROVEP_TK_INNER) && !m->pol.prune ? 0 : n;
    for (uint32_t i = 0; i < walked; i++) {
        grove_vid_t k = grovep_frame_kids(m, &m->frames[fbase])[i];
        /* a ranked list leaves out the levels between (match_walk.c) */
        if (m->rank_on && m->par[k] != w) {
            int failed = 0;
            if (!grovep_match_path_ok(m, r, w, k, &failed)) {
                if (!failed)
                    continue;
                m->nframes = fbase;
                m->nkids = kbase;
                return -1;
            }
        }
        if (blk && m->constraint) {
            /* no child of k's block meets the job's constraint */
            uint32_t at = cblk_pass(m, grovep_frame_kids(m, &m->frames[fbase]), n, i);
            if (at != i) {
                i = at - 1;
                continue;
            }
        }
        /* a leaf holds no slot: unless a prune hook is to be asked about
         * it (and may fail), its answer is 0 without a look at it (a
         * whole machine has a million leaves below its sockets) */
        if ((kind & GROVEP_TK_LEAF) && !has_kids(m, k)
            && !(m->pol.prune && grove_policy_applies(m->g, m->pol.prune_types, m->g->v[k].type)))
            continue;
        if (mark && m->slot_dead[k] == m->slot_cur)
            continue; /* no slot fitted below k earlier in this call */
        if (!blk_fits(m, k, r->need1, r->idle1)) {
            /* no room for a slot in k's block of w's children: nor will
             * there be for the next slots (taking only lessens it) */
            if (mark)
                m->slot_dead[k] = m->slot_cur;
            if (blk) {
                /* nor in the rest of the block: each would be passed by
                 * here (its answer is the block's) and counted so */
                uint32_t end = (i / blk + 1) * blk;
                if (end > n)
                    end = n;
                m->stats.blocks_passed += end - i - 1;
                i = end - 1;
            }
            continue;
        }
        int rc = slot_home(m, r, k, excl, false);
        if (rc != 0) {
            m->nframes = fbase;
            m->nkids = kbase;
            return rc;
        }
    }
    m->nframes = fbase;
    m->nkids = kbase;
    if (n == 0)
        return 0; /* a leaf holds nothing below it */
    return slot_here(m, r, w, excl);
}

/* The deepest containment path slot_resume follows. */
#define RESUME_DEPTH 32

/* Place the next slot of a call on the home of its last one, h, when the
 * walk from u would reach h first.  Within one call the aggregates do not
 * change and what is taken only grows, so every vertex the last slot's
 * walk passed before h (each fitted no slot) fits none now either, and,
 * in containment's own order (no policy order, ranking or prune), the
 * next walk passes the same ones to arrive at h, asking each of h's
 * ancestors what it asked on the way down: u's aggregates, each other's
 * mark, block and entry.  Those are asked here in the same order; h
 * itself is slot_home's.  A slot of one core of a socket's four, eight
 * 4-core slots of a 44-core node: the walk from the machine's root, over
 * every full node before h, is made once for the call, not once a slot.
 * 1 placed (on h), 0 not (the caller walks from u: h is marked, passed at
 * once), -1 error. */
static int slot_resume(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool excl)
{
    grove_vid_t path[RESUME_DEPTH];
    size_t n = 0;
    for (grove_vid_t a = m->slot_last; a != u; a = m->par[a]) {
        if (a == GROVEP_NONE || n == RESUME_DEPTH)
            return 0; /* not below u (or too deep to follow): the walk */
        path[n++] = a;
    }
    if (n == 0)
        return 0;
    if (m->tkkind[path[0]] == GROVEP_TK_LEAF) {
        /* h's children are leaves, none of which holds a slot: its walk
         * goes to its own requests at once.  What was asked of u, of h
         * and of each between on the way to the last slot (aggregates,
         * blocks, marks) answers alike during the call; only whether each
         * may still be entered can change (a node taken whole, or touched
         * under a node-exclusive policy): asked again, and h's requests
         * tried without the rest (a one-core slot of a million cores) */
        size_t i = 0;
        while (i < n && enterable(m, path[i]))
            i++;
        if (i < n)
            return 0;
        int rc = slot_here(m, r, path[0], excl);
        if (rc > 0)
            m->stats.slots_resumed++;
        return rc;
    }
    if (!agg_fits(m, u, r->need1))
        return 0;
    for (size_t i = n; i-- > 0;) {
        grove_vid_t a = path[i];
        if (m->slot_dead[a] == m->slot_cur || !blk_fits(m, a, r->need1, r->idle1))
            return 0;
        if (i > 0 && !enter_fits(m, a, r->need1))
            return 0;
    }
    int rc = slot_home(m, r, path[0], excl, false);
    if (rc > 0)
        m->stats.slots_resumed++;
    return rc;
}

/* Number a new call of grovep_match_take_slots (its marks of dead
 * vertices); the number of the call it interrupts, or 0 on ENOMEM. */
static uint32_t slot_marks_begin(grove_matcher_t *m)
{
    size_t n = m->g->nv, old = m->slot_dead_cap;
    if (n > old && !m->slot_dead) {
        /* a word a vertex, made at the first match: on huge pages, not a
         * first-touch fault every 4 kB of it */
        size_t bytes = n * sizeof(*m->slot_dead);
        if (n > SIZE_MAX / sizeof(*m->slot_dead)
            || !(m->slot_dead = grovep_alloc_huge(&bytes)))
            return 0;
        m->slot_dead_cap = bytes / sizeof(*m->slot_dead);
        memset(m->slot_dead, 0, m->slot_dead_cap * sizeof(*m->slot_dead));
    } else if (n > old) {
        if (grovep_grow((void **)&m->slot_dead, &m->slot_dead_cap, n, sizeof(*m->slot_dead)) < 0)
            return 0;
        memset(m->slot_dead + old, 0, (m->slot_dead_cap - old) * sizeof(*m->slot_dead));
    }
    if (++m->slot_gen == 0) {
        memset(m->slot_dead, 0, m->slot_dead_cap * sizeof(*m->slot_dead));
        m->slot_gen = 1;
    }
    uint32_t outer = m->slot_cur;
    m->slot_cur = m->slot_gen;
    return outer ? outer : UINT32_MAX;
}

/* Take up to `want` slots below u, each placed anew.  Returns how many were
 * taken, or -1.  per[i] (when given) records the checkpoint after i slots. */
int64_t grovep_match_take_slots(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                                uint64_t want, struct checkpoint *per, size_t nper)
{
    bool excl = r->excl || pexcl;
    int64_t got = 0;
    /* Taking only ever lessens what is free during the call (a failed
     * attempt is rolled back to where it began), so a vertex below which
     * no slot fitted cannot hold the next one either: slot_home marks it
     * and the next slots pass it by, instead of walking again the
     * subtrees the earlier slots filled.  Not under a prune hook, whose
     * answers need not last. */
    uint32_t outer = slot_marks_begin(m);
    if (!outer)
        return -1;
    bool outer_multi = m->slot_multi;
    grove_vid_t outer_last = m->slot_last;
    m->slot_multi = want > 1 && !m->pol.prune;
    m->slot_last = GROVE_VID_NONE;
    /* in containment's own order every walk is the one before it up to
     * the last home: resumed there (slot_resume) */
    bool resume = m->slot_multi && m->tk && !m->rank_on && !m->pol.order
                  && !m->pol.explore_by_use;
    while ((uint64_t)got < want) {
        int rc = 0;
        if (resume && m->slot_last != GROVE_VID_NONE)
            rc = slot_resume(m, r, u, excl);
        if (rc == 0)
            rc = slot_home(m, r, u, excl, true);
        if (rc < 0) {
            got = -1;
            break;
        }
        if (rc == 0)
            break;
        got++;
        if (per && (size_t)got < nper)
            per[got] = checkpoint(m);
    }
    m->slot_cur = outer == UINT32_MAX ? 0 : outer;
    m->slot_multi = outer_multi;
    m->slot_last = outer_last;
    return got;
}

/* ---- slots compared by their ids ------------------------------------------------- */

/* Under a policy that declares its order by id (grove_policy_t.id_order:
 * low, high and their node variants, and the Lua policies that say so), a
 * fixed number of slots is chosen as the reference engine chooses them:
 * every vertex below u that has a direct child of each type the slot asks
 * for is a home; each home places as many slots as fit, each scored by the
 * ids (+ 1) of the vertices it took directly below the home; the best
 * scores win, across homes (the lowest sums under low, the highest under
 * high; ties in graph order).  So under low a second job of one slot of
 * cores goes to core0 of the next node, not to core8 of the first, and in
 * power distribution jobs spread over homes whose ids start again (power
 * units numbered per pdu).  A node-centric policy (lonode, hinode) adds to
 * each vertex taken the id of its node, weighted above any sum of ids
 * (NODE_WEIGHT), so a job keeps to the lowest (highest) nodes first. */

/* How many homes (sockets, say) slots are chosen by id among in
 * containment; with more, they are placed depth-first (see
 * grovep_match_take_slots_by_id).  The corpus's machines have at most 16. */
#define SLOT_HOMES_MAX 64

/* How many direct children the homes may have in all for every slot of
 * every home to be listed and ranked as the reference engine ranks them
 * (listing them costs a placement each); with more, each lists as many as
 * the request asks for.  The corpus's machines have at most 320. */
#define SLOT_LIST_MAX 512


struct slotc {
    double score;
    size_t home, k; /* the k-th slot of homes[home] */
    grove_vid_t hv; /* that home: slots are listed in graph order, by vertex
                     * id, as the reference engine explores in graph order
                     * whatever the policy */
};

/* Does w have a direct child (walked subsystem) of each type slot r asks
 * for (of one of its alternatives, for or-slots)? */
static bool slot_home_of(const grove_matcher_t *m, const struct req *r, grove_vid_t w)
{
    const grove_graph_t *g = m->g;
    for (const struct req *a = r; a; a = a->alt) {
        bool all = true;
        for (const struct req *c = a->child; c && all; c = c->next) {
            bool found = false;
            for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE && !found && !c->slot;
                 e = g->e[e].next_out)
                found = g->e[e].sub == m->dom_sub
                        && !(g->e[e].flags & (GROVEP_E_UP | GROVEP_E_DEAD))
                        && g->v[g->e[e].dst].type == c->type;
            all = found;
        }
        if (all)
            return true;
    }
    return false;
}

/* ---- or-slots ------------------------------------------------------------------- */

/* At one home the or-slots are chosen as the reference engine chooses
 * them: from the free units of each type among the home's direct
 * children, each next slot takes the first alternative that lets the most
 * slots in all be placed (at most the want still missing).  The types an
 * or-group may ask for directly below a home, at most OR_TYPES. */
#define OR_TYPES 8
#define OR_MEMO 4096
#define OR_DEPTH 64

struct orplan {
    size_t nalt, nt;
    const struct req *alt[OR_TYPES];   /* the alternatives, at most OR_TYPES */
    grove_sym_t type[OR_TYPES];
    int64_t need[OR_TYPES][OR_TYPES]; /* [alternative][type] units */
    struct {
        int64_t c[OR_TYPES];
        int64_t depth, best;
        int first;
    } memo[OR_MEMO];
    size_t nmemo;
};

/* The most slots (at most depth) counts c let be placed; *first the
 * alternative that starts such a choice, the first on ties (-1: none). */
static int64_t or_best(struct orplan *p, const int64_t *c, int64_t depth, int *first)
{
    *first = -1;
    if (depth == 0)
        return 0;
    for (size_t i = 0; i < p->nmemo; i++)
        if (p->memo[i].depth == depth && !memcmp(p->memo[i].c, c, sizeof(p->memo[i].c))) {
            *first = p->memo[i].first;
            return p->memo[i].best;
        }
    int64_t best = 0;
    for (size_t a = 0; a < p->nalt; a++) {
        int64_t next[OR_TYPES];
        bool fits = true;
        for (size_t t = 0; t < OR_TYPES; t++) {
            next[t] = c[t] - (t < p->nt ? p->need[a][t] : 0);
            fits = fits && next[t] >= 0;
        }
        if (!fits)
            continue;
        int dummy;
        int64_t got = 1 + or_best(p, next, depth - 1, &dummy);
        if (got > best) {
            best = got;
            *first = (int)a;
        }
    }
    if (p->nmemo < OR_MEMO) {
        memcpy(p->memo[p->nmemo].c, c, sizeof(p->memo[p->nmemo].c));
        p->memo[p->nmemo].depth = depth;
        p->memo[p->nmemo].best = best;
        p->memo[p->nmemo++].first = *first;
    }
    return best;
}

/* The alternatives of the slots of or-group r that home w holds, in the
 * order they are placed, at most limit, into *seq (*cap grown as needed,
 * *nseq of them): the reference engine plans the most slots the home's
 * free units allow, whatever the request's count.  0; 1 when the plan
 * cannot hold r (more alternatives or types than OR_TYPES, nested slots);
 * -1 (ENOMEM). */
static int or_sequence(grove_matcher_t *m, const struct req *r, grove_vid_t w, size_t limit,
                       const struct req ***seq, size_t *cap, size_t *nseq)
{
    if (!m->orplan && !(m->orplan = calloc(1, sizeof(*m->orplan))))
        return -1;
    struct orplan *p = m->orplan;
    *nseq = 0;
    p->nalt = p->nt = 0;
    p->nmemo = 0;
    memset(p->need, 0, sizeof(p->need));
    for (const struct req *a = r; a; a = a->alt) {
        if (p->nalt == OR_TYPES)
            return 1;
        for (const struct req *c = a->child; c; c = c->next) {
            if (c->slot)
                return 1;
            size_t t = 0;
            while (t < p->nt && p->type[t] != c->type)
                t++;
            if (t == p->nt) {
                if (p->nt == OR_TYPES)
                    return 1;
                p->type[p->nt++] = c->type;
            }
            p->need[p->nalt][t] += (int64_t)c->count->min;
        }
        p->alt[p->nalt++] = a;
    }
    int64_t c[OR_TYPES] = {0};
    const grove_graph_t *g = m->g;
    for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out) {
        grove_vid_t v = g->e[e].dst;
        if (g->e[e].sub != m->dom_sub || (g->e[e].flags & (GROVEP_E_UP | GROVEP_E_DEAD))
            || !enterable(m, v))
            continue;
        for (size_t t = 0; t < p->nt; t++)
            if (g->v[v].type == p->type[t])
                c[t] += free_units(m, v);
    }
    for (size_t t = 0; t < p->nt; t++)
        if (p->type[t] == GROVE_SYM_NONE)
            c[t] = 0; /* a type the graph lacks: no alternative asking for it fits */
    while (*nseq < limit) {
        int a;
        /* the lookahead stops at OR_DEPTH slots: ties beyond it go to the
         * first alternative */
        if (or_best(p, c, OR_DEPTH, &a) == 0 || a < 0)
            break;
        if (grovep_grow((void **)seq, cap, *nseq + 1, sizeof(**seq)) < 0)
            return -1;
        (*seq)[(*nseq)++] = p->alt[a];
        for (size_t t = 0; t < p->nt; t++)
            c[t] -= p->need[a][t];
    }
    return 0;
}

/* The homes below u (u included), in visiting order, into *hv (*nh; the
 * caller frees); a home is not searched below.  0, -1, or 1 when there are
 * more than max (0: no limit; the walk stops there). */
static int slot_homes(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool top,
                      grove_vid_t **hv, size_t *nh, size_t *cap, size_t max)
{
    if (!top && !enterable(m, w))
        return 0;
    if (slot_home_of(m, r, w)) {
        if (max && *nh == max)
            return 1;
        if (grovep_grow((void **)hv, cap, *nh + 1, sizeof(**hv)) < 0)
            return -1;
        (*hv)[(*nh)++] = w;
        return 0;
    }
    struct kids k;
    if (kids_begin(m, w, r, &k) < 0)
        return -1;
    int rc = 0;
    if (!m->rank_on) {
        for (uint32_t i = 0; i < k.n && rc == 0; i++)
            rc = slot_homes(m, r, kid_at(m, &k, i), false, hv, nh, cap, max);
    } else {
        /* a ranked list leaves out the levels between (match_walk.c):
         * each enterable, as the walk down to c would have found it */
        for (uint32_t i = 0; i < k.n && rc == 0; i++) {
            grove_vid_t c = kid_at(m, &k, i);
            int failed = 0;
            if (m->par[c] == w || grovep_match_path_ok(m, NULL, w, c, &failed))
                rc = slot_homes(m, r, c, false, hv, nh, cap, max);
        }
    }
    kids_end(m, &k);
    return rc;
}

/* One slot of r at home w: 1 placed (its score in *score), 0 not, -1.
 * The score is the reference engine's: each vertex taken directly below
 * the home counts its id + 2 (its own score, id + 1, above the score of
 * a met match, 1), so of two or-slot shapes the one of more vertices
 * ranks higher on equal ids. */
static int slot_at(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl,
                   double *score)
{
    size_t first = m->nsel;
    int rc = slot_children(m, r, w, excl);
    if (rc <= 0)
        return rc;
    double node = 0;
    if (m->pol.node_centric && m->node_sym != GROVE_SYM_NONE)
        for (grove_vid_t a = w; a != GROVEP_NONE; a = m->par[a])
            if (m->g->v[a].type == m->node_sym) {
                node = ((double)grove_vertex_id(m->g, a) + 2) * NODE_WEIGHT;
                break;
            }
    *score = 0;
    for (size_t i = first; i < m->nsel; i++)
        if (m->par[m->sel[i].v] == w)
            *score += (double)grove_vertex_id(m->g, m->sel[i].v) + 2 + node;
    return 1;
}

/* Homes in graph order (by vertex id): the order in which the reference
 * engine's depth-first walk lists their slots before ranking them. */
struct homeo {
    grove_vid_t v;
    size_t h;
};

static int cmp_home(const void *a, const void *b)
{
    grove_vid_t x = ((const struct homeo *)a)->v, y = ((const struct homeo *)b)->v;
    return (x > y) - (x < y);
}

/* The plan of at most limit slots of r at home w: for or-slots their
 * alternatives (or_sequence) into *seq (*cap), *nseq of them; for a plain
 * slot r every time, *nseq limit.  0, 1 (or-slots it cannot plan), -1. */
static int home_shapes(grove_matcher_t *m, const struct req *r, grove_vid_t w, size_t limit,
                       const struct req ***seq, size_t *cap, size_t *nseq)
{
    *nseq = 0;
    if (r->alt)
        return or_sequence(m, r, w, limit, seq, cap, nseq);
    *nseq = limit;
    return 0;
}

/* The shape of the k-th slot of a home planned by home_shapes, or NULL. */
static const struct req *home_shape(const struct req *r, const struct req **seq, size_t nseq,
                                    size_t k)
{
    return k >= nseq ? NULL : !r->alt ? r : seq[k];
}

/* The node weight of the vertices taken directly below home w (slot_at). */
static double home_node_weight(const grove_matcher_t *m, grove_vid_t w)
{
    if (m->pol.node_centric && m->node_sym != GROVE_SYM_NONE)
        for (grove_vid_t a = w; a != GROVEP_NONE; a = m->par[a])
            if (m->g->v[a].type == m->node_sym)
                return ((double)grove_vertex_id(m->g, a) + 2) * NODE_WEIGHT;
    return 0;
}

/* The slots of plain slot r at home w, scored as slot_at would score them
 * one after the other, without placing them, when that can be told from
 * w's children alone: r asks only for fixed counts of leaves taken whole
 * (exclusively), w's children are all leaves, and no prune hook or
 * channeled pool is involved.  Each slot then takes, for each request,
 * the next free children of its type in the walk's order until it has the
 * count, as take_first does.  Appended to *cv (*cap) as home h, at most
 * limit: 1; 0 when it cannot be told so (nothing appended); -1. */
static int home_slots_quick(grove_matcher_t *m, const struct req *r, grove_vid_t w, size_t h,
                            bool excl, int dir, size_t limit, struct slotc **cv, size_t *nc,
                            size_t *cap)
{
    enum { QUICK_REQS = 8 };
    const grove_graph_t *g = m->g;
    const struct req *cr[QUICK_REQS];
    size_t nr = 0;
    if (r->alt || m->pol.prune)
        return 0;
    for (const struct req *c = r->child; c; c = c->next) {
        if (nr == QUICK_REQS || c->child || c->slot || c->type == GROVE_SYM_NONE
            || c->count->kind != GROVE_COUNT_FIXED || grovep_match_channeled_type(m, c->type))
            return 0;
        for (size_t i = 0; i < nr; i++)
            if (cr[i]->type == c->type)
                return 0; /* two requests share the children of a type */
        cr[nr++] = c;
    }
    if (nr == 0)
        return 0;
    struct kids kk;
    if (kids_begin(m, w, r, &kk) < 0)
        return -1;
    /* nothing below pushes a frame: the list stays where it is */
    const grove_vid_t *kids = grovep_frame_kids(m, &m->frames[kk.fbase]);
    uint32_t n = kk.n;
    int rc = 1;
    /* the free children of each request's type, in the walk's order:
     * pos[i] the next unused of request i */
    size_t pos[QUICK_REQS] = {0};
    for (uint32_t i = 0; i < n && rc == 1; i++) {
        grove_vid_t k = kids[i];
        if (has_kids(m, k))
            rc = 0;
    }
    double node = home_node_weight(m, w);
    for (size_t k = 0; rc == 1 && k < limit; k++) {
        double sc = 0;
        bool fits = true;
        for (size_t i = 0; i < nr && fits && rc == 1; i++) {
            int64_t got = 0, want = (int64_t)cr[i]->count->min;
            while (got < want && pos[i] < n) {
                grove_vid_t v = kids[pos[i]++];
                if (g->v[v].type != cr[i]->type)
                    continue;
                bool ex;
                int ok = grovep_match_take_check(m, cr[i], v, excl, (uint64_t)(want - got), &ex,
                                                 NULL);
                if (ok < 0 || (ok == 1 && !ex)) {
                    rc = ok < 0 ? -1 : 0; /* units shared: not told this way */
                    break;
                }
                if (ok == 0 || flags_of(m, v) || taken_of(m, v) || grovep_vertex_size(g, v) == 0)
                    continue;
                got += grovep_vertex_size(g, v);
                sc += (double)grove_vertex_id(g, v) + 2 + node;
            }
            fits = got >= want;
        }
        if (rc != 1 || !fits)
            break;
        if (grovep_grow((void **)cv, cap, *nc + 1, sizeof(**cv)) < 0) {
            rc = -1;
            break;
        }
        (*cv)[(*nc)++] = (struct slotc){dir * sc, h, k, w};
    }
    kids_end(m, &kk);
    return rc;
}

/* The slots each home can hold, at most limit a home (the reference
 * engine lists as many as fit, whatever the count asked for), scored,
 * homes in graph order (what was taken rolled back).  0, 1 (or-slots it
 * cannot plan), -1. */
static int slot_candidates(grove_matcher_t *m, const struct req *r, const grove_vid_t *hv,
                           size_t nh, bool excl, int dir, size_t limit, struct slotc **cv,
                           size_t *nc, const struct req ***seq, size_t *seqcap)
{
    size_t cap = 0;
    struct homeo *order = malloc(nh * sizeof(*order));
    if (!order)
        return -1;
    for (size_t h = 0; h < nh; h++)
        order[h] = (struct homeo){hv[h], h};
    qsort(order, nh, sizeof(*order), cmp_home);
    int rc = 0;
    for (size_t i = 0; i < nh && rc >= 0; i++) {
        size_t h = order[i].h;
        struct checkpoint cp = checkpoint(m);
        double sc;
        size_t nseq, nc0 = *nc;
        const struct req *shape;
        if ((rc = home_slots_quick(m, r, hv[h], h, excl, dir, limit, cv, nc, &cap)) != 0) {
            rc = rc < 0 ? -1 : 0;
            continue;
        }
        *nc = nc0;
        if ((rc = home_shapes(m, r, hv[h], limit, seq, seqcap, &nseq)) != 0)
            break;
        for (size_t k = 0; (shape = home_shape(r, *seq, nseq, k)); k++) {
            size_t s0 = m->nsel;
            if ((rc = slot_at(m, shape, hv[h], excl, &sc)) != 1)
                break;
            if (m->slot_local && spans_domains(m, hv[h], s0)) {
                /* kept local in this attempt: no more slots at this
                 * home (each takes the next children) */
                m->local_refused = true;
                break;
            }
            if (grovep_grow((void **)cv, &cap, *nc + 1, sizeof(**cv)) < 0) {
                rc = -1;
                break;
            }
            (*cv)[(*nc)++] = (struct slotc){dir * sc, h, k, hv[h]};
        }
        if (rc == 1)
            rc = 0; /* the plan ran out, or-slots */
        rollback(m, cp);
    }
    free(order);
    return rc < 0 ? -1 : rc;
}

/* What one slot changed at a vertex: units taken and flags added. */
struct slot_change {
    grove_vid_t v;
    int64_t taken;
    uint8_t flags;
};

/* Place at home w the slots whose positions in the home's plan are marked
 * in pick[0..kmax] (not a prefix: under or-slots a later slot of another
 * shape may rank above an earlier one).  A slot's resources depend on the
 * slots before it in the plan (each takes the next best children), so all
 * of them up to kmax are placed, what the marked ones changed is noted,
 * the lot rolled back and the noted changes made again: the others'
 * resources stay free, as in the reference engine, whose slots are fixed
 * groups of children of which it keeps the ranked ones.  1, 0 (nothing
 * stays taken), -1. */
static int place_marked(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl,
                        const struct req **seq, size_t nseq, const bool *pick, size_t kmax)
{
    struct checkpoint cp = checkpoint(m);
    struct slot_change *ch = NULL;
    grove_pick_t *pk = NULL;
    size_t nch = 0, chcap = 0, npk = 0, pkcap = 0;
    uint32_t nsp = 0;
    int rc = 1;
    for (size_t k = 0; k <= kmax && rc == 1; k++) {
        const struct req *shape = home_shape(r, seq, nseq, k);
        size_t l0 = m->nlog, s0 = m->nsel, c0 = nch;
        double sc;
        rc = shape ? slot_at(m, shape, w, excl, &sc) : 0;
        if (rc != 1 || !pick[k])
            continue;
        if (spans_domains(m, w, s0))
            nsp++; /* (counted once the changes are made again) */
        for (size_t i = l0; i < m->nlog && rc == 1; i++) {
            const struct undo *u = &m->log[i];
            bool seen = false; /* the first entry of a vertex has its state before */
            for (size_t j = c0; j < nch && !seen; j++)
                seen = ch[j].v == u->v;
            if (seen)
                continue;
            if (grovep_grow((void **)&ch, &chcap, nch + 1, sizeof(*ch)) < 0) {
                rc = -1;
                break;
            }
            bool cur = (u->flags & UNDO_LIVE) != 0;
            int64_t t0 = cur ? u->taken : 0;
            uint8_t f0 = cur ? (uint8_t)u->flags : 0;
            ch[nch++] = (struct slot_change){u->v, taken_of(m, u->v) - t0,
                                             (uint8_t)(flags_of(m, u->v) & ~f0)};
        }
        for (size_t i = s0; i < m->nsel && rc == 1; i++) {
            if (grovep_grow((void **)&pk, &pkcap, npk + 1, sizeof(*pk)) < 0)
                rc = -1;
            else
                pk[npk++] = m->sel[i];
        }
    }
    rollback(m, cp);
    for (size_t j = 0; j < nch && rc == 1; j++)
        if (set_state(m, ch[j].v, taken_of(m, ch[j].v) + ch[j].taken,
                      flags_of(m, ch[j].v) | ch[j].flags)
            < 0)
            rc = -1;
    for (size_t i = 0; i < npk && rc == 1; i++)
        if (add_pick(m, pk[i].v, pk[i].amount, pk[i].exclusive, pk[i].leaf) < 0
            || touch_up(m, pk[i].v) < 0)
            rc = -1;
    if (rc != 1)
        rollback(m, cp);
    else
        m->nspread += nsp;
    free(ch);
    free(pk);
    return rc;
}

/* Slots by score, then graph order (cv lists them in graph order). */
static int cmp_slot_idx(const void *a, const void *b, void *arg)
{
    const struct slotc *cv = arg, *x = &cv[*(const size_t *)a], *y = &cv[*(const size_t *)b];
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* How many times the reference engine ranks the slots of r: once for each
 * slot request of the list (the alternatives of an or-group), each on the
 * order the one before left. */
static size_t slot_rankings(const struct req *r)
{
    size_t n = 0;
    for (const struct req *a = r; a; a = a->alt)
        n++;
    return n;
}

/* Is there something to rank by id among the homes hv: two homes of
 * different ids, or with one home and an or-group, two of its children of
 * one type (the or-slot shapes are still ranked)?  When every home has the
 * same id the slots are placed in the walk's order, which the policy's
 * order already puts by id. */
static bool homes_differ(const grove_matcher_t *m, const struct req *r, const grove_vid_t *hv,
                         size_t nh)
{
    for (size_t h = 0; h + 1 < nh; h++)
        if (grove_vertex_id(m->g, hv[h]) != grove_vertex_id(m->g, hv[h + 1]))
            return true;
    for (grove_eid_t e = nh == 1 && r->alt ? m->g->first_out[hv[0]] : GROVEP_NONE, f;
         e != GROVEP_NONE; e = m->g->e[e].next_out)
        for (f = m->g->e[e].next_out; f != GROVEP_NONE; f = m->g->e[f].next_out) {
            grove_vid_t a = m->g->e[e].dst, b = m->g->e[f].dst;
            if (m->g->e[e].sub == m->dom_sub && m->g->e[f].sub == m->dom_sub
                && !((m->g->e[e].flags | m->g->e[f].flags) & GROVEP_E_UP)
                && m->g->v[a].type == m->g->v[b].type
                && grove_vertex_id(m->g, a) != grove_vertex_id(m->g, b))
                return true;
        }
    return false;
}

/* Place the first want slots of the ranking idx (over the candidates cv of
 * the homes hv, planned with limit): each home places its chosen slots in
 * visiting order.  1 placed, 0 not (nothing taken), -1 error.  seq is the
 * caller's plan buffer. */
static int place_chosen(grove_matcher_t *m, const struct req *r, const grove_vid_t *hv, size_t nh,
                        bool excl, size_t limit, const struct slotc *cv, const size_t *idx,
                        uint64_t want, const struct req ***seq, size_t *seqcap)
{
    /* per[h] slots of home h, the last at position kmax[h] of its plan */
    size_t *per = calloc(nh, sizeof(*per)), *kmax = calloc(nh, sizeof(*kmax));
    if (!per || !kmax) {
        free(per);
        free(kmax);
        return -1;
    }
    for (size_t i = 0; i < want; i++) {
        const struct slotc *c = &cv[idx[i]];
        per[c->home]++;
        kmax[c->home] = c->k > kmax[c->home] ? c->k : kmax[c->home];
    }
    struct checkpoint cp = checkpoint(m);
    bool *pick = NULL;
    size_t pickcap = 0;
    int rc = 1;
    for (size_t h = 0; h < nh && rc == 1; h++) {
        double sc;
        size_t nseq = 0;
        const struct req *shape;
        if (!per[h])
            continue;
        /* the same plan as for the candidates */
        if (home_shapes(m, r, hv[h], limit, seq, seqcap, &nseq) != 0) {
            rc = -1; /* it planned this home before */
            break;
        }
        if (kmax[h] + 1 == per[h]) { /* its first ones */
            for (size_t k = 0; k < per[h] && rc == 1; k++) {
                size_t s0 = m->nsel;
                rc = (shape = home_shape(r, *seq, nseq, k)) ? slot_at(m, shape, hv[h], excl, &sc)
                                                           : 0;
                if (rc == 1 && spans_domains(m, hv[h], s0))
                    m->nspread++;
            }
            continue;
        }
        if (grovep_grow((void **)&pick, &pickcap, kmax[h] + 1, sizeof(*pick)) < 0) {
            rc = -1;
            break;
        }
        memset(pick, 0, (kmax[h] + 1) * sizeof(*pick));
        for (size_t i = 0; i < want; i++)
            if (cv[idx[i]].home == h)
                pick[cv[idx[i]].k] = true;
        rc = place_marked(m, r, hv[h], excl, *seq, nseq, pick, kmax[h]);
    }
    if (rc == 0)
        rollback(m, cp);
    free(per);
    free(kmax);
    free(pick);
    return rc;
}

/* want slots of r below u chosen by their ids (see above): 1 placed, 0
 * not (nothing taken), -1 error; 2 when the policy declares no id order
 * (grove_policy_t.id_order) or the homes give nothing to rank by (the
 * caller places them in visiting order). */
int grovep_match_take_slots_by_id(grove_matcher_t *m, const struct req *r, grove_vid_t u,
                                  bool pexcl, uint64_t want)
{
    grove_vid_t *hv = NULL;
    struct slotc *cv = NULL;
    const struct req **seq = NULL;
    size_t *idx = NULL;
    double *key = NULL;
    size_t nh = 0, hcap = 0, nc = 0, seqcap = 0;
    bool excl = r->excl || pexcl;
    int rc = -1, dir = id_dir(m);
    if (!dir || !r->child) {
        rc = 2;
        goto out;
    }
    /* in containment, beyond SLOT_HOMES_MAX homes the slots keep the
     * depth-first placement: choosing by id looks at every home, the cost
     * of a walk of the machine per match */
    int hrc = slot_homes(m, r, u, true, &hv, &nh, &hcap,
                         m->dom_sub == m->g->containment ? SLOT_HOMES_MAX : 0);
    if (hrc < 0)
        goto out;
    if (hrc > 0) {
        rc = 2;
        goto out;
    }
    if ((nh < 2 && !r->alt) || !homes_differ(m, r, hv, nh)) {
        rc = 2;
        goto out;
    }
    /* the walk down to the homes asked the order for the lists above
     * them; the homes' own children are ranked as they come in the graph,
     * so an order whose id_order is checked is asked for them too: one it
     * moved out of id order leaves the slots in the walk's order */
    for (size_t h = 0; h < nh && id_dir(m); h++)
        if (grovep_match_order_check(m, hv[h]) < 0) {
            m->hook_failed = 1;
            goto out;
        }
    if (!id_dir(m)) {
        rc = 2;
        goto out;
    }
    /* every slot of every home when the homes are few and small, else
     * want of each (a home's first slots are its best: a plain slot takes
     * the next best children each time), ties then in graph order */
    size_t kids = 0;
    for (size_t h = 0; h < nh && kids <= SLOT_LIST_MAX; h++)
        for (grove_eid_t e = m->g->first_out[hv[h]]; e != GROVEP_NONE; e = m->g->e[e].next_out)
            kids += m->g->e[e].sub == m->dom_sub && !(m->g->e[e].flags & GROVEP_E_UP);
    bool every = kids <= SLOT_LIST_MAX;
    size_t limit = every ? SIZE_MAX : (size_t)want;
    /* the reference's flexible traverser plans a lone slot (no or-group)
     * up to its count at each home, not as many as fit */
    if (m->cfg.or_slots && !r->alt)
        limit = (size_t)want;
    int sc_rc = slot_candidates(m, r, hv, nh, excl, dir, limit, &cv, &nc, &seq, &seqcap);
    if (sc_rc != 0) {
        rc = sc_rc < 0 ? -1 : 2;
        goto out;
    }
    if (nc < want) {
        /* in containment a slot may still span the homes' children (cores
         * of two sockets of a node, docs/conformance.md): placed in
         * visiting order */
        rc = m->dom_sub == m->g->containment ? 2 : 0;
        goto out;
    }
    /* ranked as the reference engine ranks them, ties included (its sort
     * is not stable past 16 slots): with every slot listed, the same
     * order; else ties in graph order */
    if (!(idx = malloc(nc * sizeof(*idx))) || !(key = malloc(nc * sizeof(*key))))
        goto out;
    for (size_t i = 0; i < nc; i++) {
        idx[i] = i;
        key[i] = cv[i].score;
    }
    for (size_t n = every ? slot_rankings(r) : 0; n > 0; n--)
        grove_policy_ref_sort(idx, nc, key);
    if (!every)
        qsort_r(idx, nc, sizeof(*idx), cmp_slot_idx, cv);
    rc = place_chosen(m, r, hv, nh, excl, limit, cv, idx, want, &seq, &seqcap);
out:
    GROVEP_FREE_ALL(hv, cv, seq, idx, key);
    return rc;
}
