/* match_walk.c: the matcher's walk below one vertex for one request.
 *
 * Workload: the inner loop of every match; a whole machine visits a
 * million vertices.  Here are the per-match scratch arrays (stamped by
 * generation, reset by bumping it), the candidate iteration over the
 * dominant subsystem with its two LIFO arenas (frames and child lists,
 * shared by every nesting level: nothing allocated per visited vertex),
 * taking a candidate (take_check, take), the selection rules (first, best
 * by score, highest, the top level ranked by id) with the whole-machine
 * fast path (take_clean_leaf), and grovep_match_list, which picks one of
 * them for a request list and recurses into the children.
 *
 * The hottest loops (iter_step, take_clean_leaf, take) stay in this one
 * file, with the small state helpers static inline in match_private.h, so
 * that nothing they inlined became a call across files.
 *
 * This file must not hold slot placement (match_slot.c), the ranking by
 * use (match_use.c), channeled pools (match_channel.c), the time search
 * (match_time.c) or records (match_record.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* ---- scratch state --------------------------------------------------------- */

int grovep_match_scratch_reserve(grove_matcher_t *m)
{
    size_t n = m->g->nv, old = m->scap, oldsel = m->selcap, oldlog = m->logcap;
    /* parallel arrays: the stamps (scap), the blocks' (scap / SBLK_N) */
    size_t c1 = old, c2 = old / SBLK_N, c3 = old / SBLK_N;
    if (grovep_grow((void **)&m->blk, &c2, (n + SBLK_N - 1) / SBLK_N, sizeof(*m->blk)) < 0
        || grovep_grow((void **)&m->bgen, &c3, c2, sizeof(*m->bgen)) < 0
        || grovep_grow((void **)&m->stamp, &c1, c2 * SBLK_N, sizeof(*m->stamp)) < 0)
        return -1;
    c1 = c2 * SBLK_N; /* the stamps' room may be larger: scap is what is used */
    /* The stamps are cleared here, on huge pages, at the load: left to
     * come zeroed from the system they became resident a page at a time
     * under the first matches, a fault inside each of the first jobs on
     * untouched racks (a one-core job at 16,384 nodes 33 -> 59 us, -e
     * median, measured).  The state of the stamped vertices is in the
     * blocks lent from the pool (grovep_match_sblk_lend), not in arrays
     * indexed by vertex id, for the same reason */
    if (c1 != old) {
        grovep_huge(m->stamp, c1 * sizeof(*m->stamp));
        memset(m->stamp + old, 0, (c1 - old) * sizeof(*m->stamp));
        memset(m->bgen + old / SBLK_N, 0, (c2 - old / SBLK_N) * sizeof(*m->bgen));
    }
    m->scap = c1;
    /* a whole machine's selection and undo log hold about one entry a
     * vertex: room for that is taken at once (address space, until used)
     * so that they never grow by copying what a large match wrote */
    if (grovep_grow((void **)&m->sel, &m->selcap, n, sizeof(*m->sel)) < 0
        || grovep_grow((void **)&m->log, &m->logcap, n, sizeof(*m->log)) < 0)
        return -1;
    if (m->selcap != oldsel)
        grovep_huge(m->sel, m->selcap * sizeof(*m->sel));
    if (m->logcap != oldlog)
        grovep_huge(m->log, m->logcap * sizeof(*m->log));
    return 0;
}

/* A match that has stamped fewer vertices than this when it is lent a
 * block not resident yet writes every page of the block at once: the block
 * is lent again to later matches, which then find it resident wherever
 * they write.  A larger match (a whole machine) leaves its blocks' pages
 * to become resident as written: it may write their flags alone. */
#define SBLK_TOUCH_MAX 4096

int grovep_match_sblk_lend(grove_matcher_t *m, size_t i)
{
    if (m->nlent == m->npool) {
        size_t cap = m->npool; /* the pool's room is its count: grown by one */
        if (grovep_grow((void **)&m->pool, &cap, m->npool + 1, sizeof(*m->pool)) < 0)
            return -1;
        struct sblk *b = malloc(sizeof(*b));
        if (!b) {
            errno = ENOMEM;
            return -1;
        }
        b->resident = false;
        m->pool[m->npool++] = b;
    }
    struct sblk *b = m->pool[m->nlent++];
    if (!b->resident && m->nlog < SBLK_TOUCH_MAX) {
        memset(b, 0, sizeof(*b));
        b->resident = true;
    }
    m->blk[i] = b;
    m->bgen[i] = m->gen;
    return 0;
}

/* Free the scratch arrays and the walk's arenas (for
 * grove_matcher_destroy). */
void grovep_match_scratch_free(grove_matcher_t *m)
{
    free(m->stamp);
    GROVEP_FREE_ARRAY(m->pool, m->npool);
    free(m->blk);
    free(m->bgen);
    free(m->sel);
    free(m->log);
    free(m->frames);
    free(m->kids);
    free(m->cands);
    free(m->oslot);
    free(m->okids);
    free(m->rents);
    free(m->rlist);
    grovep_match_keep_clear(m);
    grovep_match_order_clear(m);
}

void grovep_match_new_generation(grove_matcher_t *m)
{
    m->blk_last = NULL; /* a new window, or records changed since */
    /* a generation nothing was stamped with is used again (an empty undo
     * log: every stamp is logged, and a rollback to nothing unstamps), so
     * that attempts ruled out at the root do not bring the wrap closer;
     * its lent blocks stay lent */
    if (m->nlog != 0 || m->gen_kept || m->gen == 0) {
        if (++m->gen == 0) {
            /* a stamp is set only in a block lent for its generation
             * (log_state), so the blocks with a generation since the last
             * wrap are the only ones holding stamps: a stream of small
             * jobs clears a few kB here, not a byte of every vertex */
            size_t nb = m->scap / SBLK_N;
            for (size_t i = 0; i < nb; i++) {
                if (m->bgen[i]) {
                    memset(m->stamp + i * SBLK_N, 0, SBLK_N * sizeof(*m->stamp));
                    m->bgen[i] = 0;
                }
            }
            m->gen = 1;
        }
        m->nlent = 0; /* every block is back in the pool */
    }
    m->gen_kept = false;
    m->nlog = 0;
    m->nsel = 0;
    m->nspread = 0;
    m->nframes = 0;
    m->nkids = 0;
    m->ncands = 0;
    grove_policy_request_reset(&m->preq);
}

/* ---- the policy's orders, kept for an attempt ------------------------------ */

/* Forget the orders kept: a new window is tried (an order may read what is
 * free during it). */
void grovep_match_order_forget(grove_matcher_t *m)
{
    m->noslot = 0;
    m->nokids = 0;
    if (++m->oepoch == 0) { /* a wrap: no slot may look live */
        if (m->oslot)
            memset(m->oslot, 0, m->oslotcap * sizeof(*m->oslot));
        m->oepoch = 1;
    }
}

static size_t oslot_home(const grove_matcher_t *m, grove_vid_t v)
{
    return (size_t)((v * 0x9e3779b1u) >> 7) & (m->oslotcap - 1);
}

/* The slot keeping v's order (children listed in subsystem sub), or the
 * free slot it would take; NULL when the table has none. */
static struct oslot *oslot_find(const grove_matcher_t *m, grove_vid_t v, uint8_t sub)
{
    if (!m->oslotcap)
        return NULL;
    for (size_t i = oslot_home(m, v);; i = (i + 1) & (m->oslotcap - 1)) {
        struct oslot *o = &m->oslot[i];
        if (o->epoch != m->oepoch || (o->v == v && o->sub == sub))
            return o;
    }
}

/* Keep the order of v's n children (sub: the subsystem, or it with
 * RANK_SUB for a ranked list): nothing is kept when memory runs out (the
 * policy is asked again). */
static void order_keep(grove_matcher_t *m, grove_vid_t v, uint8_t sub, const grove_vid_t *kids,
                       uint32_t n)
{
    if ((m->noslot + 1) * 2 > m->oslotcap) {
        size_t cap = m->oslotcap ? m->oslotcap * 2 : 64;
        struct oslot *old = m->oslot, *t = calloc(cap, sizeof(*t));
        if (!t)
            return;
        size_t oldcap = m->oslotcap;
        m->oslot = t;
        m->oslotcap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].epoch == m->oepoch)
                *oslot_find(m, old[i].v, old[i].sub) = old[i];
        free(old);
    }
    if (m->nokids + n > UINT32_MAX
        || grovep_grow((void **)&m->okids, &m->okidcap, m->nokids + n, sizeof(*m->okids)) < 0)
        return;
    struct oslot *o = oslot_find(m, v, sub);
    if (o->epoch != m->oepoch)
        m->noslot++;
    *o = (struct oslot){v, m->oepoch, (uint32_t)m->nokids, n, sub};
    memcpy(m->okids + m->nokids, kids, n * sizeof(*kids));
    m->nokids += n;
}

static grove_vid_t *rank_children(grove_matcher_t *m, grove_vid_t v, uint32_t *n);

/* Put v's n children at kids in the policy's order: the one kept for the
 * attempt, else the order hook's (kept).  0, or -1 when the hook failed. */
static int order_kids(grove_matcher_t *m, grove_vid_t v, grove_vid_t *kids, uint32_t n)
{
    const struct oslot *o = oslot_find(m, v, m->dom_sub);
    if (o && o->epoch == m->oepoch && o->n == n) {
        memcpy(kids, m->okids + o->at, n * sizeof(*kids));
        return grovep_match_order_check_list(m, v, kids, n);
    }
    if (m->pol.order(m->pol.arg, m->g, v, kids, n) < 0)
        return -1;
    order_keep(m, v, m->dom_sub, kids, n);
    return grovep_match_order_check_list(m, v, kids, n);
}

int grovep_match_order_check(grove_matcher_t *m, grove_vid_t v)
{
    if (m->pol.id_check == GROVE_ID_CHECK_NONE || m->id_moved || !m->pol.order)
        return 0;
    uint32_t n;
    grove_vid_t *kids = rank_children(m, v, &n);
    if (!kids && n)
        return -1;
    free(kids);
    return 0;
}
/* ---- ranking at the levels the request does not name -----------------------
 *
 * A request of cores alone names no node, yet the walk passes through
 * nodes to reach its cores, and a policy that scores nodes (spread, gpu)
 * must still decide which nodes the cores come from.  So when the policy
 * scores or chooses (select best), the walk lists below each vertex it
 * enters not its children but the nearest vertices the policy ranks (the
 * types its score_types name, every type without them, leaving out the
 * types the request names, whose candidates the request's own level
 * scores), ranked best first (score, then choose asked to order all of
 * them: k = n), the vertices between them left out and the others in
 * their place.  Below the root of a machine of racks that is every node
 * at once, so a one-core job of spread goes to the emptiest node of the
 * machine, not of the first rack.  Whoever takes a vertex from such a list
 * checks the levels left out between it and the vertex listed from
 * (grovep_match_path_ok).  Each list is made once per window tried and
 * kept with the policy's orders (RANK_SUB), as the walk enters a vertex
 * more than once (a trial, then the take; each slot's homes).  A policy
 * whose order sorts vertices of order_types (a declarative order limited
 * with when) has them listed the same way, named or not, and put in the
 * order one call of its order hook gives the lot: a node order is one
 * order of the machine's nodes, so a one-core job goes to the first node
 * of that order, not of the first rack.  A policy that does neither pays
 * one test per vertex entered. */

void grovep_match_rank_setup(grove_matcher_t *m)
{
    m->rank_score = m->pol.select == GROVE_SELECT_BEST
                    && (m->pol.score || m->pol.scores || m->pol.choose) && !m->pol.explore_by_use;
    m->rank_order = m->pol.order && m->pol.order_types && !m->pol.explore_by_use;
    m->rank_on = m->rank_score || m->rank_order;
    m->nrank_memo = 0;
}

/* Does the request name type t (anywhere in it)? */
static bool rank_named(const grove_matcher_t *m, grove_sym_t t)
{
    for (size_t k = 0; k < m->preq.ntypes; k++)
        if (m->preq.types[k] == t)
            return true;
    return false;
}

/* How the vertices of type t are ranked in this match (RANK_BY_*, 0: not
 * ranked): by score at a level the request does not name, of the types
 * score_types lists; by order, of the types order_types lists, named or
 * not. */
static uint8_t rank_how(grove_matcher_t *m, grove_sym_t t)
{
    for (size_t i = 0; i < m->nrank_memo; i++)
        if (m->rank_memo[i].type == t)
            return m->rank_memo[i].how;
    uint8_t how = 0;
    if (t != GROVE_SYM_NONE && m->rank_score && !rank_named(m, t)
        && grove_policy_applies(m->g, m->pol.score_types, t))
        how |= RANK_BY_SCORE;
    if (t != GROVE_SYM_NONE && m->rank_order && grove_policy_applies(m->g, m->pol.order_types, t))
        how |= RANK_BY_ORDER;
    if (m->nrank_memo < RANK_MEMO_N)
        m->rank_memo[m->nrank_memo++] = (struct rank_memo){t, how};
    return how;
}

/* Are the vertices of type t ranked in this match? */
static bool rank_type(grove_matcher_t *m, grove_sym_t t)
{
    return rank_how(m, t) != 0;
}

static int rlist_push(grove_matcher_t *m, grove_vid_t v)
{
    if (grovep_grow((void **)&m->rlist, &m->rlistcap, m->nrlist + 1, sizeof(*m->rlist)) < 0)
        return -1;
    m->rlist[m->nrlist++] = v;
    return 0;
}

/* The children of v in the policy's order, into a new array (*n of them;
 * NULL with *n 0 for none), or NULL with *n set on error. */
static grove_vid_t *rank_children(grove_matcher_t *m, grove_vid_t v, uint32_t *n)
{
    const grove_graph_t *g = m->g;
    uint32_t c = 0;
    if (m->tk) {
        c = m->tkoff[v + 1] - m->tkoff[v];
    } else {
        for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out)
            c += g->e[e].sub == m->dom_sub && !(g->e[e].flags & GROVEP_E_UP);
    }
    *n = c;
    if (c == 0)
        return NULL;
    grove_vid_t *kids = malloc(c * sizeof(*kids));
    if (!kids) {
        errno = ENOMEM;
        return NULL;
    }
    if (m->tk) {
        memcpy(kids, m->tk + m->tkoff[v], c * sizeof(*kids));
    } else {
        c = 0;
        for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out)
            if (g->e[e].sub == m->dom_sub && !(g->e[e].flags & GROVEP_E_UP))
                kids[c++] = g->e[e].dst;
    }
    if (c > 1 && m->pol.order && order_kids(m, v, kids, c) < 0) {
        m->hook_failed = 1;
        free(kids);
        return NULL;
    }
    return kids;
}

/* Has v children in the walked subsystem (is it walked through)? */
static bool rank_inner(const grove_matcher_t *m, grove_vid_t v)
{
    if (m->tk)
        return m->tkoff[v + 1] > m->tkoff[v];
    for (grove_eid_t e = m->g->first_out[v]; e != GROVEP_NONE; e = m->g->e[e].next_out)
        if (m->g->e[e].sub == m->dom_sub && !(m->g->e[e].flags & GROVEP_E_UP))
            return true;
    return false;
}

/* List k into m->rlist: itself when it is ranked, of a type the request
 * names (and the order does not rank) or holds nothing ranked below it;
 * else what it holds, in the same way.  A leaf is never ranked: no walk
 * passes through it (the memory beside a request's cores).  1 when
 * something ranked was listed, 0 not, -1 error. */
static int rank_collect(grove_matcher_t *m, grove_vid_t k)
{
    grove_sym_t t = m->g->v[k].type;
    if (rlist_push(m, k) < 0)
        return -1;
    if (!rank_inner(m, k))
        return 0;
    if (rank_type(m, t))
        return 1;
    if (rank_named(m, t))
        return 0;
    size_t mark = m->nrlist; /* k is at mark - 1 */
    uint32_t n;
    grove_vid_t *kids = rank_children(m, k, &n);
    if (!kids && n)
        return -1;
    int found = 0;
    for (uint32_t i = 0; i < n && found >= 0; i++) {
        int rc = rank_collect(m, kids[i]);
        found = rc < 0 ? rc : found | rc;
    }
    free(kids);
    if (found <= 0) {
        m->nrlist = mark; /* k stands for what it holds */
        return found;
    }
    memmove(m->rlist + mark - 1, m->rlist + mark, (m->nrlist - mark) * sizeof(*m->rlist));
    m->nrlist--;
    return 1;
}

static int cmp_rent(const void *a, const void *b)
{
    const struct rent *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The scores of a ranked level often take a few values (the free cores
 * of nodes mostly full or empty): with no more than this many, they are
 * sorted by a pass per value instead of a comparison sort (16,384 nodes
 * of spread: one pass, not 230,000 comparisons). */
#define RANK_FEW 8

/* Sort the n entries e (in list order) best first, equal scores in list
 * order.  0 or -1 (ENOMEM). */
static int rank_sort(struct rent *e, size_t n)
{
    double val[RANK_FEW];
    size_t nval = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nval && val[k] != e[i].score)
            k++;
        if (k < nval)
            continue;
        if (nval == RANK_FEW || e[i].score != e[i].score) { /* many, or a NaN */
            qsort(e, n, sizeof(*e), cmp_rent);
            return 0;
        }
        /* kept descending: insertion */
        while (k > 0 && val[k - 1] < e[i].score) {
            val[k] = val[k - 1];
            k--;
        }
        val[k] = e[i].score;
        nval++;
    }
    if (nval < 2)
        return 0;
    struct rent *tmp = malloc(n * sizeof(*tmp));
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    size_t j = 0;
    for (size_t k = 0; k < nval; k++)
        for (size_t i = 0; i < n; i++)
            if (e[i].score == val[k])
                tmp[j++] = e[i];
    memcpy(e, tmp, n * sizeof(*e));
    free(tmp);
    return 0;
}

/* Allocate *vs and *sc for n vertices and their scores (room for one at
 * least).  0, or -1 with errno ENOMEM and nothing allocated. */
static int alloc_scored(size_t n, grove_vid_t **vs, double **sc)
{
    *vs = malloc((n ? n : 1) * sizeof(**vs));
    *sc = malloc((n ? n : 1) * sizeof(**sc));
    if (*vs && *sc)
        return 0;
    free(*vs);
    free(*sc);
    errno = ENOMEM;
    return -1;
}

/* Put in vs the vertices of the n entries of m->rents and in sc their
 * scores under ctx c by the score hook (0 each when there is none).  0,
 * or -1 with m->hook_failed set when the hook failed. */
static int score_rents(grove_matcher_t *m, const grove_policy_ctx_t *c, grove_vid_t *vs,
                       double *sc, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        vs[i] = m->rents[i].v;
        sc[i] = 0;
    }
    grovep_match_observe(m); /* what came before is not these scores' */
    if (m->pol.scores) {
        if (m->pol.scores(m->pol.arg, m->g, vs, n, c, sc) < 0)
            goto hook;
    } else if (m->pol.score) {
        for (size_t i = 0; i < n; i++)
            if (m->pol.score(m->pol.arg, m->g, vs[i], c, &sc[i]) < 0)
                goto hook;
    }
    m->obs = grovep_match_observe(m);
    return 0;
hook:
    m->hook_failed = 1;
    return -1;
}

/* Rank the n entries in m->rents (their vertices of one type, in list
 * order) best first: the score hook's order, then choose's of all of
 * them.  0, or -1 (m->hook_failed set when a hook failed). */
static int rank_group(grove_matcher_t *m, const struct req *r, size_t n)
{
    grove_policy_ctx_t ctx = {r && !r->slot ? r->type : GROVE_SYM_NONE,
                              r && !r->slot ? m->rank_need : 0, m->start, m->end, &m->preq,
                              r ? r->js : NULL};
    grove_vid_t *vs;
    double *sc;
    size_t *pick = NULL;
    struct rent *tmp = NULL;
    int rc = -1;
    if (alloc_scored(n, &vs, &sc) < 0)
        return -1;
    if (score_rents(m, &ctx, vs, sc, n) < 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        m->rents[i].score = sc[i];
    if ((m->pol.score || m->pol.scores) && rank_sort(m->rents, n) < 0)
        goto out;
    if (m->pol.choose && n > 1) {
        if (!(pick = malloc(n * sizeof(*pick))) || !(tmp = malloc(n * sizeof(*tmp)))) {
            errno = ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            vs[i] = m->rents[i].v;
            sc[i] = m->rents[i].score;
            tmp[i] = m->rents[i];
            tmp[i].score = 0; /* marks a position not picked yet */
        }
        if (m->pol.choose(m->pol.arg, m->g, vs, sc, n, n, pick) < 0)
            goto hook;
        for (size_t i = 0; i < n; i++) {
            /* every position once: an order of them all */
            if (pick[i] >= n || tmp[pick[i]].score != 0) {
                errno = ERANGE;
                goto hook;
            }
            tmp[pick[i]].score = 1;
            m->rents[i] = tmp[pick[i]];
        }
    }
    rc = 0;
    goto out;
hook:
    m->hook_failed = 1;
out:
    GROVEP_FREE_ALL(vs, sc, pick, tmp);
    return rc;
}

/* Put the n entries in m->rents (their vertices of one type below v, in
 * list order; at[] their places in the list, ascending) in the order one
 * call of the order hook gives them, each then at the next of those
 * places (a later sort by score keeps that order among equals).  0, or -1
 * (m->hook_failed set when the hook failed). */
static int rank_order_group(grove_matcher_t *m, grove_vid_t v, const size_t *at, size_t n)
{
    grove_vid_t *vs = malloc(n * sizeof(*vs));
    if (!vs) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        vs[i] = m->rents[i].v;
    if (m->pol.order(m->pol.arg, m->g, v, vs, n) < 0 || grovep_match_order_check_list(m, v, vs, n) < 0) {
        m->hook_failed = 1;
        free(vs);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        m->rents[i] = (struct rent){vs[i], (uint32_t)at[i], 0};
    free(vs);
    return 0;
}

/* Rank the entries of m->rlist (what lies below v) of the types ranked,
 * each type among its own places in the list.  0 or -1. */
static int rank_list(grove_matcher_t *m, grove_vid_t v, const struct req *r)
{
    size_t n = m->nrlist;
    if (grovep_grow((void **)&m->rents, &m->rentcap, n ? n : 1, sizeof(*m->rents)) < 0)
        return -1;
    grove_sym_t done[RANK_MEMO_N];
    size_t ndone = 0;
    for (size_t i = 0; i < n; i++) {
        grove_sym_t t = m->g->v[m->rlist[i]].type;
        bool seen = false;
        for (size_t d = 0; d < ndone && !seen; d++)
            seen = done[d] == t;
        if (seen || !rank_type(m, t) || !rank_inner(m, m->rlist[i]))
            continue;
        size_t c = 0;
        for (size_t j = i; j < n; j++)
            if (m->g->v[m->rlist[j]].type == t && rank_inner(m, m->rlist[j]))
                m->rents[c++] = (struct rent){m->rlist[j], (uint32_t)j, 0};
        uint8_t how = rank_how(m, t);
        bool scored = (how & RANK_BY_SCORE) != 0;
        if (c > 1 || (scored && (m->pol.score || m->pol.scores))) {
            /* a score is asked even of a lone vertex: it may fail */
            size_t *at = malloc(c * sizeof(*at));
            if (!at) {
                errno = ENOMEM;
                return -1;
            }
            for (size_t j = 0; j < c; j++)
                at[j] = m->rents[j].pos;
            int rc = 0;
            if ((how & RANK_BY_ORDER) && c > 1)
                rc = rank_order_group(m, v, at, c);
            if (rc == 0 && scored)
                rc = rank_group(m, r, c);
            for (size_t j = 0; rc == 0 && j < c; j++)
                m->rlist[at[j]] = m->rents[j].v;
            free(at);
            if (rc < 0)
                return -1;
        }
        if (ndone < RANK_MEMO_N)
            done[ndone++] = t;
    }
    return 0;
}

/* Is m->rlist one group of a ranked type (the nodes of a machine), whose
 * ranking a later match may mend (match_keep.c)?  rank_list then leaves
 * it in m->rents, best first. */
static bool rank_one_group(grove_matcher_t *m)
{
    if (!m->nrlist || !grovep_match_keep_wanted(m))
        return false;
    grove_sym_t t = m->g->v[m->rlist[0]].type;
    if (!rank_type(m, t))
        return false;
    for (size_t i = 0; i < m->nrlist; i++)
        if (m->g->v[m->rlist[i]].type != t || !rank_inner(m, m->rlist[i]))
            return false;
    return true;
}

/* Put in frame fi (the last, of vertex v, its children listed) the ranked
 * list of what lies below v: kept for the window, else made and kept.
 * 0 or -1. */
static int rank_kids(grove_matcher_t *m, grove_vid_t v, size_t fi, const struct req *r)
{
    uint8_t sub = RANK_SUB | m->dom_sub;
    const grove_vid_t *list;
    uint32_t n;
    size_t nkept;
    int kept;
    const struct oslot *o = oslot_find(m, v, sub);
    if (o && o->epoch == m->oepoch) {
        list = m->okids + o->at;
        n = o->n;
    } else if (grovep_match_order_keeps(m) && (list = grovep_match_order_find(m, v, &n))) {
        /* a static order's list, as an earlier match made it */
        order_keep(m, v, sub, list, n);
        m->stats.ranks_kept++;
    } else if ((kept = grovep_match_keep_find(m, v, r, &list, &nkept)) != 0) {
        /* a score's ranking kept from an earlier match, mended */
        if (kept < 0)
            return -1;
        if (nkept > UINT32_MAX) {
            errno = EOVERFLOW;
            return -1;
        }
        n = (uint32_t)nkept;
        order_keep(m, v, sub, list, n);
    } else {
        struct frame *f = &m->frames[fi];
        m->nrlist = 0;
        int found = 0;
        for (uint32_t i = 0; i < f->nkids && found >= 0; i++) {
            int rc = rank_collect(m, grovep_frame_kids(m, f)[i]);
            found = rc < 0 ? rc : found | rc;
        }
        if (found < 0)
            return -1;
        if (found) {
            bool one = rank_one_group(m);
            if (rank_list(m, v, r) < 0)
                return -1;
            if (one)
                grovep_match_keep_store(m, v, r, m->nrlist);
        }
        if (!found) {
            /* nothing ranked below v: its children, as listed */
            m->nrlist = 0;
            for (uint32_t i = 0; i < f->nkids; i++)
                if (rlist_push(m, grovep_frame_kids(m, f)[i]) < 0)
                    return -1;
        }
        if (m->nrlist > UINT32_MAX) {
            errno = EOVERFLOW;
            return -1;
        }
        n = (uint32_t)m->nrlist;
        order_keep(m, v, sub, m->rlist, n);
        list = m->rlist;
        if (found && grovep_match_order_keeps(m))
            grovep_match_order_store(m, v, list, n);
    }
    grovep_match_rank_check(m, list, n);
    struct frame *f = &m->frames[fi];
    if (grovep_grow((void **)&m->kids, &m->kidcap, (size_t)f->kids + n, sizeof(*m->kids)) < 0)
        return -1;
    /* list may lie in okids or a kept list, never in kids */
    memcpy(m->kids + f->kids, list, n * sizeof(*m->kids));
    f->nkids = n;
    m->nkids = (size_t)f->kids + n;
    return 0;
}

bool grovep_match_path_ok(grove_matcher_t *m, const struct req *r, grove_vid_t top, grove_vid_t k,
                          int *failed)
{
    const grove_graph_t *g = m->g;
    for (grove_vid_t a = m->par[k]; a != top && a != GROVEP_NONE; a = m->par[a]) {
        if (r ? !enter_fits(m, a, r->need1) : !enterable(m, a))
            return false;
        if (r && m->pol.prune && grove_policy_applies(g, m->pol.prune_types, g->v[a].type)) {
            grove_policy_ctx_t ctx = {r->slot ? GROVE_SYM_NONE : r->type, 0, m->start, m->end,
                                      &m->preq, r->js};
            int p = prune_asked(m, a, &ctx);
            if (p < 0) {
                *failed = 1;
                return false;
            }
            if (p > 0)
                return false;
        }
    }
    return true;
}


/* ---- candidate walk ------------------------------------------------------- */

int grovep_match_push_frame(grove_matcher_t *m, grove_vid_t v, const struct req *r)
{
    const grove_graph_t *g = m->g;
    int sub = m->dom_sub;
    bool kept = false; /* the children are in a kept order already */
    if (grovep_grow((void **)&m->frames, &m->framecap, m->nframes + 1, sizeof(*m->frames)) < 0)
        return -1;
    struct frame *f = &m->frames[m->nframes++];
    f->v = v;
    f->kids = f->top = (uint32_t)m->nkids;
    f->nkids = 0;
    f->next = 0;
    f->graph_order = false;
    f->in_tree = false;
    if (m->tk) { /* containment's tree: its children listed in sequence */
        uint32_t n = m->tkoff[v + 1] - m->tkoff[v];
        if (!m->pol.explore_by_use && !m->rank_on && (n < 2 || !m->pol.order)) {
            /* in the tree's order, as they are: read there, not copied (a
             * slot of cores looks at the 16,384 nodes of a machine's root
             * at each of its slots) */
            f->kids = m->tkoff[v];
            f->nkids = n;
            f->in_tree = f->graph_order = true;
            return 0;
        }
        if (grovep_grow((void **)&m->kids, &m->kidcap, m->nkids + n, sizeof(*m->kids)) < 0)
            return -1;
        const grove_vid_t *src = m->tk + m->tkoff[v];
        if (m->pol.explore_by_use && n >= USE_ORD_MIN) {
            if (!(src = grovep_match_use_kept_order(m, v, n)))
                return -1;
            kept = true;
        }
        if (n) /* a leaf: m->kids may not exist yet */
            memcpy(m->kids + m->nkids, src, n * sizeof(*m->kids));
        m->nkids += n;
        f->nkids = n;
    }
    for (grove_eid_t e = m->tk ? GROVEP_NONE : g->first_out[v]; e != GROVEP_NONE;
         e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        if (ed->sub != sub || (ed->flags & GROVEP_E_UP))
            continue;
        if (grovep_grow((void **)&m->kids, &m->kidcap, m->nkids + 1, sizeof(*m->kids)) < 0)
            return -1;
        m->kids[m->nkids++] = ed->dst;
        m->frames[m->nframes - 1].nkids++;
    }
    f = &m->frames[m->nframes - 1];
    bool reordered = kept;
    if (f->nkids > 1 && m->pol.explore_by_use) {
        if (!kept)
            grovep_match_order_by_use(m, m->kids + f->kids, f->nkids);
        reordered = true;
    } else if (f->nkids > 1 && m->pol.order) {
        if (order_kids(m, v, m->kids + f->kids, f->nkids) < 0) {
            m->hook_failed = 1;
            return -1;
        }
        reordered = true;
    }
    if (m->rank_on && f->nkids > 0) {
        if (rank_kids(m, v, m->nframes - 1, r) < 0)
            return -1;
        f = &m->frames[m->nframes - 1];
        reordered = true;
    }
    f->graph_order = m->tk && !reordered;
    return 0;
}

static int iter_begin(grove_matcher_t *m, struct iter *it, grove_vid_t root, bool include_root)
{
    it->frame_base = m->nframes;
    it->kid_base = m->nkids;
    it->root = root;
    it->root_pending = include_root;
    it->started = false;
    it->need = 0;
    return 0;
}

static void iter_end(grove_matcher_t *m, const struct iter *it)
{
    m->nframes = it->frame_base;
    m->nkids = it->kid_base;
}

/* Is t the type of another request of r's list?  A vertex of that type
 * is that request's candidate: the search for r does not walk through it
 * (a slot of power and a node takes its power beside the node, not the
 * node's own). */
static bool sibling_type(const struct req *r, grove_sym_t t)
{
    for (const struct req *q = r->sibs; q; q = q->next)
        if (q != r && !q->slot && q->type == t)
            return true;
    return false;
}

/* Next vertex of the requested type below the root (or the root itself),
 * GROVE_VID_NONE at the end, or GROVE_VID_NONE with *failed set. */
static grove_vid_t iter_next(grove_matcher_t *m, struct iter *it, const struct req *r,
                             int *failed)
{
    const grove_graph_t *g = m->g;
    if (!it->started) {
        it->started = true;
        if (it->root_pending) {
            /* the top of the graph: a candidate itself, or walked through */
            it->root_pending = false;
            if (g->v[it->root].type == r->type)
                return it->root;
            if (!enter_fits(m, it->root, r->need1))
                return GROVE_VID_NONE;
        }
        /* below a candidate that take() already vetted (and may hold
         * exclusively: its inside is ours to search) */
        m->rank_need = it->need;
        if (grovep_match_push_frame(m, it->root, r) < 0)
            goto fail;
    }
    while (m->nframes > it->frame_base) {
        struct frame *f = &m->frames[m->nframes - 1];
        if (f->next >= f->nkids) {
            m->nkids = f->top;
            m->nframes--;
            continue;
        }
        grove_vid_t k = grovep_frame_kids(m, f)[f->next++];
        /* a ranked list leaves out the levels between (rank_kids) */
        if (m->rank_on && m->par[k] != f->v) {
            int pf = 0;
            if (!grovep_match_path_ok(m, r, f->v, k, &pf)) {
                if (pf)
                    goto fail;
                continue;
            }
        }
        uint32_t blk = f->graph_order ? g->agg_blk : 0;
        if (blk && m->constraint) {
            /* no child of k's block meets the job's constraint */
            uint32_t at = cblk_pass(m, grovep_frame_kids(m, f), f->nkids, f->next - 1);
            if (at != f->next - 1) {
                f->next = at;
                continue;
            }
        }
        if (!blk_fits(m, k, r->need1, r->idle1)) {
            /* k's block of its parent's children cannot hold one: in the
             * graph's order, the rest of the block is passed by with it
             * (each would be, its answer the block's), counted so */
            if (blk) {
                uint32_t i = f->next - 1, end = (i / blk + 1) * blk;
                if (end > f->nkids)
                    end = f->nkids;
                m->stats.blocks_passed += end - f->next;
                f->next = end;
            }
            continue;
        }
        if (g->v[k].type == r->type)
            return k;
        if (sibling_type(r, g->v[k].type) || !enter_fits(m, k, r->need1))
            continue;
        if (m->pol.prune && grove_policy_applies(g, m->pol.prune_types, g->v[k].type)) {
            grove_policy_ctx_t ctx = {r->type, it->need, m->start, m->end, &m->preq, r->js};
            int p = prune_asked(m, k, &ctx);
            if (p < 0)
                goto fail;
            if (p > 0)
                continue;
        }
        m->rank_need = it->need;
        if (grovep_match_push_frame(m, k, r) < 0)
            goto fail;
    }
    return GROVE_VID_NONE;
fail:
    *failed = 1;
    return GROVE_VID_NONE;
}

/* Are f's children those of a wide vertex in blocks (blocks_build), taken
 * in the graph's order: does iter_next pass whole blocks of them? */
static inline bool frame_in_blocks(const grove_matcher_t *m, const struct frame *f)
{
    uint32_t blk = m->g->agg_blk;
    return f->graph_order && blk && f->nkids >= (uint64_t)blk * GROVEP_BLK_WIDE;
}

/* iter_next when the next child in the current frame is a candidate (the
 * cores of a socket, one after the other): no call, no walk.  Not for the
 * children of a wide vertex: iter_next passes a block of them none of
 * which can be a candidate (its aggregate, its idle nodes, the job's
 * constraint) with one look, where this would hand out each in turn (the
 * 16,384 nodes of a machine's root, every one of them asked whether it is
 * free in the window). */
static inline grove_vid_t iter_step(grove_matcher_t *m, struct iter *it, const struct req *r,
                                    int *failed)
{
    if (it->started && m->nframes > it->frame_base) {
        struct frame *f = &m->frames[m->nframes - 1];
        if (f->next < f->nkids && !frame_in_blocks(m, f)) {
            grove_vid_t k = grovep_frame_kids(m, f)[f->next];
            if (m->g->v[k].type == r->type && (!m->rank_on || m->par[k] == f->v)) {
                f->next++;
                return k;
            }
        }
    }
    return iter_next(m, it, r, failed);
}

/* ---- taking a candidate --------------------------------------------------- */

/* What take() checks before it takes anything: c's own state, its
 * aggregate, the policy's prune, this match's flags and other jobs'
 * exclusive holds; nothing below c is walked.  1 passes, 0 not, -1 error
 * (hook).  *excl: c would be taken exclusively; *clean_out (may be NULL):
 * nothing below c has records, so its inside need not be asked about. */
int grovep_match_take_check(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                            uint64_t need, bool *excl_out, bool *clean_out)
{
    const grove_graph_t *g = m->g;
    /* written `exclusive: false` (inside a slot too): only the units asked
     * for; what lies below still inherits the slot's exclusivity */
    bool inherit = r->excl || pexcl;
    bool excl = inherit && !r->not_excl;
    bool nodex = m->pol.node_exclusive && g->v[c].type == m->node_sym;
    if (nodex)
        excl = true;
    *excl_out = excl;
    if (!up(m, c) || !constraint_ok(m, c))
        return 0;
    bool hook = m->pol.prune && grove_policy_applies(g, m->pol.prune_types, g->v[c].type);
    /* the aggregate of a candidate matters for what lies below it; a leaf
     * request is decided by the candidate's own records.  Without a prune
     * hook to ask next (it is asked about the candidates the aggregate
     * admits, as before), each planner query is made once: an exclusive
     * candidate is refused below when anything touches it in the window,
     * and one nothing touches has its aggregate's totals free, so its
     * totals answer; another is asked here whether it is held whole, not
     * by its aggregate and again below. */
    enum agg_how how = AGG_WINDOW;
    bool unheld = false;
    if (!hook && excl) {
        how = AGG_TOTALS;
    } else if (!hook) {
        if (held_excl(m, c))
            return 0;
        unheld = true;
        how = AGG_UNHELD;
    }
    if (r->child && !agg_fits_at(m, c, r->need1, how))
        return 0;
    if (hook) {
        /* the policy may rule out a candidate as it rules out a subtree */
        grove_policy_ctx_t ctx = {r->type, need, m->start, m->end, &m->preq, r->js};
        int p = prune_asked(m, c, &ctx);
        if (p < 0)
            return -1;
        if (p > 0)
            return 0;
    }
    uint8_t f = flags_of(m, c);
    if (f & M_EXCL)
        return 0;
    /* a record below a vertex annotates it (the containment tree), so
     * below a clean exclusive pick nothing has records: its inside is not
     * asked about again, vertex by vertex (a whole node of 53 vertices is
     * one question) */
    grove_vid_t tp = g->parent[c];
    bool clean = excl && tp != GROVEP_NONE && (flags_of(m, tp) & M_CLEAN);
    if (excl) {
        if (f || taken_of(m, c) || (!clean && touched(m, c)))
            return 0;
        clean = true; /* untouched: nothing below it is either */
    } else if (!unheld && held_excl(m, c)) {
        return 0;
    }
    if (clean_out)
        *clean_out = clean;
    return 1;
}

/* Try to take candidate c for request r (children included): at most
 * remaining units of a leaf pool; need is what the level still needs (what
 * prune is told).  Returns the units it counts for (> 0), 0 when it does
 * not fit, -1 on error. */
static int64_t take(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                    uint64_t remaining, uint64_t need)
{
    const grove_graph_t *g = m->g;
    bool inherit = r->excl || pexcl, excl, clean;
    int ok = grovep_match_take_check(m, r, c, pexcl, need, &excl, &clean);
    if (ok <= 0)
        return ok;
    uint8_t f = flags_of(m, c);
    struct checkpoint cp = checkpoint(m);
    int64_t units;
    if (!r->child) {
        if (excl) {
            /* untouched by others (checked above) and by this match: the
             * whole pool is free, no need to ask its planner again */
            if (grovep_vertex_size(g, c) == 0)
                return 0;
            units = grovep_vertex_size(g, c);
        } else {
            int64_t avail = free_units(m, c);
            if (avail <= 0)
                return 0;
            units = (uint64_t)avail < remaining ? avail : (int64_t)remaining;
        }
        if (set_state(m, c, taken_of(m, c) + units,
                      f | M_TOUCH | M_PICK | (excl ? M_EXCL : 0) | (clean ? M_CLEAN : 0))
                < 0
            || add_pick(m, c, units, excl, true) < 0 || touch_up(m, c) < 0)
            return -1;
        return units;
    }
    uint8_t nf = f | M_TOUCH | M_PICK | (excl ? M_EXCL : 0) | (r->whole ? M_WHOLE : 0)
                 | (clean ? M_CLEAN : 0);
    if (set_state(m, c, taken_of(m, c), nf) < 0 || add_pick(m, c, 1, excl, false) < 0
        || touch_up(m, c) < 0)
        return -1;
    for (const struct req *ch = r->child; ch; ch = ch->next) {
        int rc = grovep_match_list(m, ch, c, excl || inherit, false);
        if (rc <= 0) {
            rollback(m, cp);
            return rc;
        }
    }
    return 1;
}

/* ---- the top of a request ranked by id -------------------------------------------
 *
 * A request whose first level lies below the graph's root (sockets asked
 * for at the top, the levels above left out) is matched by the reference
 * engine against every vertex of that type in the graph: each that fits
 * is scored by its own id (+ 1, and under lonode/hinode the weight of its
 * node), the lot ranked by its sort, and the best taken.  The ids of the
 * levels walked through count for nothing: under high, of the sockets
 * numbered 0 and 1 in every node, node0's socket1 comes first (t3038:19),
 * where a walk that orders each level by id would reach node7's first.
 * Only under a policy that declares its order by id (id_order); any other
 * order is the walk's. */

static int admit(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want, bool *sure);
static int trial(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want);

/* How many candidates the top level is ranked among in containment; with
 * more, the walk that orders each level by id places it.  The corpus's
 * largest machine has 8,640 sockets. */
#define TOP_RANK_MAX 16384

/* A candidate of the top level: its vertex, its key (lower first), and
 * whether a trial take verified it (admit). */
struct topc {
    grove_vid_t v;
    double key;
    bool sure;
};

static int cmp_topc_vid(const void *a, const void *b)
{
    grove_vid_t x = ((const struct topc *)a)->v, y = ((const struct topc *)b)->v;
    return (x > y) - (x < y);
}

/* The key of top-level candidate c under direction dir (see slot_at). */
static double top_key(const grove_matcher_t *m, grove_vid_t c, int dir)
{
    double node = 0;
    if (m->pol.node_centric && m->node_sym != GROVE_SYM_NONE)
        for (grove_vid_t a = m->par[c]; a != GROVEP_NONE; a = m->par[a])
            if (m->g->v[a].type == m->node_sym) {
                node = ((double)grove_vertex_id(m->g, a) + 2) * NODE_WEIGHT;
                break;
            }
    return dir * ((double)grove_vertex_id(m->g, c) + 1 + node);
}

/* Rank the n candidates cv (graph order) into idx, take the first want
 * of them: 1 taken, 0 not (nothing taken), 2 an admitted candidate did not
 * fit (nothing taken), -1. */
static int top_take_ranked(grove_matcher_t *m, const struct req *r, bool pexcl, uint64_t want,
                           const struct topc *cv, size_t n, size_t *idx, double *key)
{
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        key[i] = cv[i].key;
    }
    grove_policy_ref_sort(idx, n, key);
    struct checkpoint cp = checkpoint(m);
    uint64_t got = 0;
    int rc = 1;
    for (size_t i = 0; i < n && got < want && rc == 1; i++) {
        size_t fsave = m->nframes, ksave = m->nkids;
        int64_t t = take(m, r, cv[idx[i]].v, pexcl, 1, want - got);
        m->nframes = fsave;
        m->nkids = ksave;
        if (t < 0)
            rc = -1;
        else if (t == 0 && !cv[idx[i]].sure)
            rc = 2;
        got += t > 0 ? (uint64_t)t : 0;
    }
    if (rc == 1 && got < want)
        rc = 0;
    if (rc != 1)
        rollback(m, cp);
    return rc;
}

/* want vertices of top-level request r below u, ranked as above (the
 * caller checked that the policy declares an order by id, id_dir): 1
 * taken, 0 not (nothing taken), -1 error; 2 when the walk that orders each
 * level by id gives the same (the candidates' keys already ascend in
 * visiting order, or they are u's own children), when their ids are all
 * equal, for nodes (their ids do not repeat across a machine: the walk's
 * order is the ranking, and a node request, the usual one, pays no more),
 * or beyond TOP_RANK_MAX candidates in containment.  Candidates are
 * admitted on their aggregates (admit); when one of those ranked first
 * does not fit, all are verified by a trial take and ranked again, so the
 * ranking is among those that fit, as the reference engine's. */
static int take_top_by_id(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                          uint64_t want)
{
    struct topc *cv = NULL;
    size_t nc = 0, cap = 0, *idx = NULL;
    double *key = NULL;
    int rc = 2, failed = 0;
    size_t max = m->dom_sub == m->g->containment ? TOP_RANK_MAX : 0;
    bool below = false; /* a candidate lies below a level walked through */
    if (r->type == m->node_sym)
        return 2;
    struct iter it;
    iter_begin(m, &it, u, true);
    it.need = want;
    grove_vid_t c;
    while ((c = iter_next(m, &it, r, &failed)) != GROVE_VID_NONE) {
        if (max && nc == max) {
            iter_end(m, &it);
            goto out;
        }
        if (grovep_grow((void **)&cv, &cap, nc + 1, sizeof(*cv)) < 0) {
            failed = 1;
            break;
        }
        cv[nc++] = (struct topc){c, 0, false};
        below = below || (c != u && m->par[c] != u);
    }
    iter_end(m, &it);
    if (failed) {
        rc = -1;
        goto out;
    }
    if (!below || nc < 2)
        goto out;
    /* the walk to the candidates asked the order for every list on the
     * way: one it moved out of id order leaves them in the walk's order */
    int dir = id_dir(m);
    if (!dir)
        goto out;
    bool differ = false; /* two candidates of different ids */
    for (size_t i = 0; i + 1 < nc && !differ; i++)
        differ = grove_vertex_id(m->g, cv[i].v) != grove_vertex_id(m->g, cv[i + 1].v);
    bool ascending = true;
    for (size_t i = 0; i < nc; i++) {
        cv[i].key = top_key(m, cv[i].v, dir);
        ascending = ascending && (i == 0 || cv[i - 1].key < cv[i].key);
    }
    if (ascending || !differ)
        goto out; /* the walk's order is the ranking (all ids equal: nothing to rank by) */
    /* those admitted, in graph order, ranked */
    size_t n = 0;
    for (size_t i = 0; i < nc; i++) {
        int ok = admit(m, r, cv[i].v, pexcl, want, &cv[i].sure);
        if (ok < 0) {
            rc = -1;
            goto out;
        }
        if (ok)
            cv[n++] = cv[i];
    }
    qsort(cv, n, sizeof(*cv), cmp_topc_vid);
    if (!(idx = malloc((n ? n : 1) * sizeof(*idx))) || !(key = malloc((n ? n : 1) * sizeof(*key)))) {
        rc = -1;
        goto out;
    }
    rc = top_take_ranked(m, r, pexcl, want, cv, n, idx, key);
    if (rc == 2) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            int ok = cv[i].sure ? 1 : trial(m, r, cv[i].v, pexcl, want);
            if (ok < 0) {
                rc = -1;
                goto out;
            }
            if (ok) {
                cv[k] = cv[i];
                cv[k++].sure = true;
            }
        }
        rc = top_take_ranked(m, r, pexcl, want, cv, k, idx, key);
    }
out:
    GROVEP_FREE_ALL(cv, idx, key);
    return rc;
}

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The commonest candidates of a whole machine are taken in a few steps: a
 * pool asked for by a leaf request held exclusively, with no prune hook
 * (clean_leaf_request), below a clean exclusive pick (the cores of a slot
 * in a node held whole; take_clean_leaf). */
static inline bool clean_leaf_request(const grove_matcher_t *m, const struct req *r, bool pexcl)
{
    return !r->child && (r->excl || pexcl) && !r->not_excl && !m->pol.prune;
}

/* take() of candidate c of a request that passed clean_leaf_request: what
 * take_check and take would find: the units taken (> 0), 0 when it does
 * not fit, -1 on error; -2 when c's parent is not a clean pick (take()
 * decides). */
static inline int64_t take_clean_leaf(grove_matcher_t *m, grove_vid_t c)
{
    const grove_graph_t *g = m->g;
    grove_vid_t tp = g->parent[c];
    if (tp == GROVEP_NONE || !(flags_of(m, tp) & M_CLEAN))
        return -2;
    if (!up(m, c) || !constraint_ok(m, c))
        return 0;
    /* below a clean pick no other job has records: only this match's own
     * state and the pool's size decide */
    int64_t units = grovep_vertex_size(g, c);
    if (flags_of(m, c) || taken_of(m, c) || units == 0)
        return 0;
    /* a clean pick is touched: touch_up has nothing to do when tp is c's
     * parent in the subsystem walked too */
    if (set_whole(m, c, M_TOUCH | M_PICK | M_EXCL | M_CLEAN) < 0
        || add_pick(m, c, units, true, true) < 0 || (m->par[c] != tp && touch_up(m, c) < 0))
        return -1;
    return units;
}

/* Take candidates in visiting order until `want` is reached (units for
 * leaf pools, vertices otherwise).  *got receives what was taken.  0, or
 * -1 on error (what was taken stays: the caller rolls back). */
static int take_first(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top, uint64_t want, uint64_t *got)
{
    struct iter it;
    iter_begin(m, &it, u, top);
    int failed = 0;
    bool leaf = r->child == NULL, clean_leaf = clean_leaf_request(m, r, pexcl);
    grove_vid_t c;
    *got = 0;
    while (*got < want && ((it.need = want - *got), (c = iter_step(m, &it, r, &failed)))
                              != GROVE_VID_NONE) {
        size_t fsave = m->nframes, ksave = m->nkids;
        int64_t n = clean_leaf ? take_clean_leaf(m, c) : -2;
        if (n == -2)
            n = take(m, r, c, pexcl, leaf ? want - *got : 1, want - *got);
        /* take() walks below c with iterators of its own, ended by now */
        m->nframes = fsave;
        m->nkids = ksave;
        if (n < 0) {
            failed = 1;
            break;
        }
        *got += (uint64_t)n;
    }
    iter_end(m, &it);
    return failed ? -1 : 0;
}

/* ---- select-best ------------------------------------------------------------
 *
 * take_best finds every candidate of a level that fits, lets the policy
 * score and choose among them, and takes the chosen.  Finding out whether
 * a candidate fits by taking it (and its children) and rolling back costs
 * a walk of its subtree: at 4,096 nodes, 4,096 such walks a match.  So a
 * candidate whose aggregate speaks for its subtree is admitted on what
 * take_check sees without walking (its status, constraint, aggregate for
 * the window, prune, holds), and only the chosen ones are verified, by
 * taking them.  When a chosen candidate admitted that way does not fit
 * (what the aggregates do not count: a socket too few, a down core, units
 * free at different times), the policy must not have chosen among
 * candidates that do not fit: every admitted candidate is then verified
 * and the policy asked again, as if all had been verified from the start.
 */

/* Trial take of c (undone at once): 1 fits, 0 not, -1 error. */
static int trial(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want)
{
    struct checkpoint cp = checkpoint(m);
    size_t fsave = m->nframes, ksave = m->nkids;
    int64_t n = take(m, r, c, pexcl, r->child ? 1 : UINT64_MAX, want);
    /* take() walks below c with iterators of its own, ended by now */
    m->nframes = fsave;
    m->nkids = ksave;
    if (n < 0)
        return -1;
    rollback(m, cp);
    return n > 0;
}

/* Does c fit r, as far as can be told without walking below it?  1 yes
 * (*sure when verified by a trial take), 0 no, -1 error.  Only a fixed
 * count may leave candidates unverified: a range takes as many as fit, so
 * it needs their number. */
static int admit(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want, bool *sure)
{
    const grove_graph_t *g = m->g;
    /* the aggregates count other jobs' records only: below a vertex this
     * match already took from, only a trial tells */
    if (r->child && r->count->kind == GROVE_COUNT_FIXED && g->naggs
        && m->dom_sub == g->containment && grovep_agg_of(g, c) && !(flags_of(m, c) & M_TOUCH)) {
        bool excl;
        *sure = false;
        return grovep_match_take_check(m, r, c, pexcl, want, &excl, NULL);
    }
    *sure = true;
    return trial(m, r, c, pexcl, want);
}

/* Units of leaf request r below u in visiting order, until want: what
 * take_best does for a leaf when no score orders the candidates (they
 * keep visiting order, and choose is not asked about units), without a
 * trial take of each.  1 enough, 0 not, -1 error (the caller rolls back). */
static int take_units(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top, uint64_t want)
{
    const grove_count_t *cnt = r->count;
    struct iter it;
    iter_begin(m, &it, u, top);
    it.need = want;
    int failed = 0;
    uint64_t got = 0;
    grove_vid_t c;
    while (got < want && (c = iter_next(m, &it, r, &failed)) != GROVE_VID_NONE) {
        size_t fsave = m->nframes, ksave = m->nkids;
        int64_t n = take(m, r, c, pexcl, want - got, want);
        m->nframes = fsave;
        m->nkids = ksave;
        if (n < 0) {
            failed = 1;
            break;
        }
        got += (uint64_t)n;
    }
    iter_end(m, &it);
    if (failed)
        return -1;
    return got >= (cnt->kind == GROVE_COUNT_FIXED ? want : cnt->min);
}

/* The scores hook: the n candidates gathered from cbase scored in one
 * call, their scores written into m->cands.  0 or -1. */
static int score_level(grove_matcher_t *m, const grove_policy_ctx_t *ctx, size_t cbase, size_t n)
{
    grove_vid_t *vs;
    double *sc;
    int rc = -1;
    if (alloc_scored(n, &vs, &sc) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        vs[i] = m->cands[cbase + i].v;
    if (m->pol.scores(m->pol.arg, m->g, vs, n, ctx, sc) < 0) {
        m->hook_failed = 1;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        m->cands[cbase + i].score = sc[i];
    rc = 0;
out:
    free(vs);
    free(sc);
    return rc;
}

/* Gather the candidates of r below u that fit (or are admitted, see
 * admit), scored, into m->cands from cbase, best first.  0 or -1. */
static int gather(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl, bool top,
                  uint64_t want, size_t cbase)
{
    grove_policy_ctx_t ctx = {r->type, want, m->start, m->end, &m->preq, r->js};
    struct iter it;
    iter_begin(m, &it, u, top);
    it.need = want;
    int failed = 0;
    grove_vid_t c;
    while ((c = iter_next(m, &it, r, &failed)) != GROVE_VID_NONE) {
        bool sure;
        int ok = admit(m, r, c, pexcl, want, &sure);
        if (ok < 0) {
            failed = 1;
            break;
        }
        if (ok == 0)
            continue;
        double score = 0;
        if (m->pol.score && !m->pol.scores
            && m->pol.score(m->pol.arg, m->g, c, &ctx, &score) < 0) {
            m->hook_failed = 1;
            failed = 1;
            break;
        }
        if (grovep_grow((void **)&m->cands, &m->candcap, m->ncands + 1, sizeof(*m->cands)) < 0) {
            failed = 1;
            break;
        }
        m->cands[m->ncands] = (struct cand){c, score, m->ncands - cbase, sure};
        m->ncands++;
    }
    iter_end(m, &it);
    if (failed)
        return -1;
    size_t n = m->ncands - cbase;
    if (n && m->pol.scores && score_level(m, &ctx, cbase, n) < 0)
        return -1;
    /* without a score every score is 0: visiting order is already best
     * first (m->cands may still be NULL when n is 0) */
    if (n > 1 && (m->pol.score || m->pol.scores))
        qsort(m->cands + cbase, n, sizeof(*m->cands), cmp_cand);
    return 0;
}

/* ---- the candidates of a level kept between matches ----------------------
 *
 * A request that names the nodes (one node exclusively, four nodes) has
 * every node of the machine gathered and scored at that level for each
 * job.  When the policy's scores are local (match_keep.c), the level's
 * candidates are kept ranked instead: every vertex of the request's type
 * the walk below u can reach, scored, best first, mended from the change
 * ring at the next match of the same shape and window.  Each is then
 * served as gather would have found it: the levels between checked as the
 * walk checks them (grovep_match_path_ok), admitted, in the same order,
 * a fixed count only as far as it needs (take_best asks for the rest when
 * those do not do).  Only when the walk's order below u is the graph's
 * (nothing between ranked, no order hook) and a prune hook, if any, answers
 * alike whoever asks it and when (grove_policy_t.prune_static): the walk
 * asks it about every candidate, this only about those it serves. */

/* A kept level being served: its entries (a copy), the next to serve. */
struct lserve {
    const struct rent *e; /* a kept ranking's, pinned, or own */
    struct rent *own;     /* a copy, when the ranking was not kept */
    size_t n, at;
};

/* List into m->rents, from *n, the vertices of r's type below v in the
 * walk's order.  1 listed, 0 when the walk's order is not the graph's,
 * -1 on error. */
static int level_list(grove_matcher_t *m, const struct req *r, grove_vid_t v, size_t *n)
{
    const grove_graph_t *g = m->g;
    uint32_t nk;
    grove_vid_t *kids = rank_children(m, v, &nk);
    if (!kids && nk)
        return -1;
    int rc = 1;
    for (uint32_t i = 0; i < nk && rc > 0; i++) {
        grove_vid_t k = kids[i];
        grove_sym_t t = g->v[k].type;
        if (t == r->type) {
            if (*n >= UINT32_MAX) {
                rc = 0;
            } else if (grovep_grow((void **)&m->rents, &m->rentcap, *n + 1, sizeof(*m->rents))
                       < 0) {
                rc = -1;
            } else {
                m->rents[*n] = (struct rent){k, (uint32_t)*n, 0};
                (*n)++;
            }
        } else if (!sibling_type(r, t)) {
            if (m->rank_on && rank_inner(m, k) && rank_type(m, t))
                rc = 0; /* a ranked level between: the walk's order changes */
            else
                rc = level_list(m, r, k, n);
        }
    }
    free(kids);
    return rc;
}

/* Score the n entries of m->rents with ctx c and rank them best first.
 * 1, 0 when a score is no number (not kept), -1 on error (m->hook_failed
 * set when the hook failed). */
static int level_rank(grove_matcher_t *m, const grove_policy_ctx_t *c, size_t n)
{
    grove_vid_t *vs;
    double *sc;
    int rc = -1;
    if (alloc_scored(n, &vs, &sc) < 0)
        return -1;
    if (score_rents(m, c, vs, sc, n) < 0)
        goto out;
    rc = 1;
    for (size_t i = 0; i < n && rc; i++) {
        m->rents[i].score = sc[i];
        rc = sc[i] == sc[i];
    }
    if (rc && rank_sort(m->rents, n) < 0)
        rc = -1;
out:
    free(vs);
    free(sc);
    return rc;
}

/* Serve s's entries into m->cands until upto of them (from cbase) are
 * admitted or s ends.  0 or -1. */
static int level_serve(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                       uint64_t want, size_t cbase, struct lserve *s, size_t upto)
{
    while (s->at < s->n && m->ncands - cbase < upto) {
        struct rent e = s->e[s->at++];
        int pf = 0;
        if (!grovep_match_path_ok(m, r, u, e.v, &pf)) {
            if (pf)
                return -1;
            continue;
        }
        bool sure;
        int ok = admit(m, r, e.v, pexcl, want, &sure);
        if (ok < 0)
            return -1;
        if (ok == 0)
            continue;
        if (grovep_grow((void **)&m->cands, &m->candcap, m->ncands + 1, sizeof(*m->cands)) < 0)
            return -1;
        m->cands[m->ncands++] = (struct cand){e.v, e.score, e.pos, sure};
    }
    return 0;
}

/* gather from the level's kept ranking (made and kept when there is none
 * yet): 1 gathered (as far as s says), 0 when it does not apply (gather
 * as ever), -1 on error. */
static int gather_kept(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                       bool top, uint64_t want, size_t cbase, struct lserve *s)
{
    const grove_graph_t *g = m->g;
    if (!grovep_match_keep_wanted(m) || (m->pol.prune && !m->pol.prune_static)
        || (top && g->v[u].type == r->type))
        return 0;
    grove_policy_ctx_t ctx = {r->type, want, m->start, m->end, &m->preq, r->js};
    const struct rent *ke;
    size_t kn = 0;
    int rc = grovep_match_keep_level(m, u, &ctx, &ke, &kn);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if ((rc = level_list(m, r, u, &kn)) <= 0 || (rc = level_rank(m, &ctx, kn)) <= 0)
            return rc;
        ke = grovep_match_keep_store_level(m, u, &ctx, kn);
    }
    if (ke) {
        s->e = ke; /* pinned: served in place */
    } else {
        /* a copy: what the walk takes below may rank in m->rents */
        if (!(s->own = malloc((kn ? kn : 1) * sizeof(*s->own)))) {
            errno = ENOMEM;
            return -1;
        }
        memcpy(s->own, m->rents, kn * sizeof(*s->own));
        s->e = s->own;
    }
    s->n = kn;
    s->at = top && !enter_fits(m, u, r->need1) ? kn : 0;
    size_t upto = r->child && r->count->kind == GROVE_COUNT_FIXED && want < SIZE_MAX
                      ? (size_t)want
                      : SIZE_MAX;
    return level_serve(m, r, u, pexcl, want, cbase, s, upto) < 0 ? -1 : 1;
}

/* Verify by a trial take every candidate from cbase not verified yet,
 * dropping those that do not fit (the order stays).  0 or -1. */
static int verify_all(grove_matcher_t *m, const struct req *r, bool pexcl, uint64_t want,
                      size_t cbase)
{
    size_t j = cbase;
    for (size_t i = cbase; i < m->ncands; i++) {
        struct cand c = m->cands[i];
        if (!c.sure) {
            /* a trial's own take_best gathers above m->ncands: ours stay */
            int ok = trial(m, r, c.v, pexcl, want);
            if (ok < 0)
                return -1;
            if (ok == 0)
                continue;
            c.sure = true;
        }
        m->cands[j++] = c;
    }
    m->ncands = j;
    return 0;
}

/* How many of the n gathered candidates to take: *k.  false when the
 * count cannot be met. */
static bool best_count(const struct req *r, uint64_t want, size_t n, size_t *k)
{
    const grove_count_t *cnt = r->count;
    if (!r->child) {
        *k = n; /* units: take in score order until enough */
        return true;
    }
    if (cnt->kind == GROVE_COUNT_FIXED) {
        *k = (size_t)want;
    } else {
        uint64_t fit;
        if (!grove_count_fit(cnt, n, &fit))
            return false;
        *k = (size_t)fit;
    }
    return n >= *k;
}

/* Let the policy choose k of the n candidates from cbase (k positions
 * into pick[k]; the first k, best first, without a choose hook or for
 * units).  0 or -1. */
static int best_choose(grove_matcher_t *m, const struct req *r, size_t cbase, size_t n,
                       size_t k, size_t *pick)
{
    if (!m->pol.choose || !r->child) {
        for (size_t i = 0; i < k; i++)
            pick[i] = i;
        return 0;
    }
    grove_vid_t *vs;
    double *sc;
    int rc = -1;
    if (alloc_scored(n, &vs, &sc) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        vs[i] = m->cands[cbase + i].v;
        sc[i] = m->cands[cbase + i].score;
    }
    if (m->pol.choose(m->pol.arg, m->g, vs, sc, n, k, pick) < 0) {
        m->hook_failed = 1;
        goto out;
    }
    for (size_t i = 0; i < k; i++) {
        if (pick[i] >= n) {
            m->hook_failed = 1;
            errno = ERANGE;
            goto out;
        }
    }
    rc = 0;
out:
    free(vs);
    free(sc);
    return rc;
}

/* Take the candidates chosen among those gathered from cbase.  1 fits, 0
 * not, 2 a candidate the policy chose that was only admitted does not fit
 * (nothing of it stays taken; the caller rolls back the rest), -1 error. */
static int take_chosen(grove_matcher_t *m, const struct req *r, bool pexcl, uint64_t want,
                       size_t cbase)
{
    const grove_count_t *cnt = r->count;
    bool leaf = r->child == NULL;
    size_t n = m->ncands - cbase, k;
    if (!best_count(r, want, n, &k))
        return 0;
    size_t *pick = malloc((k ? k : 1) * sizeof(*pick));
    if (!pick) {
        errno = ENOMEM;
        return -1;
    }
    int rc = -1;
    if (best_choose(m, r, cbase, n, k, pick) < 0)
        goto out;
    /* in score order (no choose), a candidate admitted in vain only gives
     * its turn to the next, as it would not have been gathered at all */
    bool chosen = m->pol.choose && !leaf;
    uint64_t got = 0;
    size_t taken = 0; /* candidates counted against k */
    for (size_t i = 0; i < (chosen ? k : n) && taken < k && got < want; i++) {
        struct cand c = m->cands[cbase + (chosen ? pick[i] : i)];
        int64_t t = take(m, r, c.v, pexcl, leaf ? want - got : 1, want - got);
        if (t < 0)
            goto out;
        if (t == 0 && !c.sure) {
            if (!chosen)
                continue;
            rc = 2;
            goto out;
        }
        taken++;
        got += (uint64_t)t;
    }
    rc = leaf ? (got >= (cnt->kind == GROVE_COUNT_FIXED ? want : cnt->min)) : (got == k);
out:
    free(pick);
    return rc;
}

/* Score every fitting candidate, let the policy choose, take the chosen.
 * 1 fits, 0 not, -1 error (the caller rolls back). */
static int take_best(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                     bool top, uint64_t want)
{
    /* a prune hook is told what this match has found so far, which taking
     * units as they come would change under it (not one that reads only
     * the graph's content) */
    if (!r->child && !m->pol.score && !m->pol.scores && (!m->pol.prune || m->pol.prune_static))
        return take_units(m, r, u, pexcl, top, want);
    size_t cbase = m->ncands;
    struct lserve s = {NULL, NULL, 0, 0};
    int rc = gather_kept(m, r, u, pexcl, top, want, cbase, &s);
    rc = rc == 0 ? gather(m, r, u, pexcl, top, want, cbase) : rc < 0 ? -1 : 0;
    /* Served in part and not enough: more of what gather would have
     * found in full, tried again from the start.  With no choose hook and
     * a fixed count, the candidates are taken in the ranking's order, the
     * first that fit, so a longer part gives what the whole would: the
     * part served grows twofold (a kept ranking of a machine's nodes,
     * whose first few admitted by their aggregates do not all fit once
     * taken, is not admitted whole at each match); else the whole. */
    size_t part = !m->pol.choose && r->child && r->count->kind == GROVE_COUNT_FIXED
                          && want < SIZE_MAX
                      ? (size_t)want
                      : 0;
    while (rc == 0) {
        struct checkpoint cp = checkpoint(m);
        rc = take_chosen(m, r, pexcl, want, cbase);
        if ((rc == 0 || rc == 2) && s.at < s.n) {
            rollback(m, cp);
            size_t upto = SIZE_MAX;
            if (part && (m->ncands - cbase) < SIZE_MAX / 4 - part)
                upto = 2 * (m->ncands - cbase) + part;
            rc = level_serve(m, r, u, pexcl, want, cbase, &s, upto) < 0 ? -1 : 0;
            continue;
        }
        if (rc == 2) {
            rollback(m, cp);
            rc = verify_all(m, r, pexcl, want, cbase);
            if (rc == 0)
                rc = take_chosen(m, r, pexcl, want, cbase);
        }
        break;
    }
    if (s.own)
        free(s.own);
    else if (s.e)
        grovep_match_keep_unpin(m, s.e);
    m->ncands = cbase;
    return rc;
}

static int cmp_vid_desc(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Policies that explore by use, a moldable count: of the candidates of r
 * taken since start (more than the count accepts), keep the fit newest
 * vertices (the reference engine keeps the best scores of what it found,
 * its newest unique ids).  1 taken, 0 not (nothing of r stays taken), -1
 * error, 2 when they cannot be taken again alone (the caller decides). */
static int take_highest(grove_matcher_t *m, const struct req *r, bool pexcl,
                        struct checkpoint start, uint64_t fit)
{
    size_t n = 0;
    grove_vid_t *cs = malloc((m->nsel - start.nsel + 1) * sizeof(*cs));
    if (!cs) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = start.nsel; i < m->nsel; i++)
        if (m->g->v[m->sel[i].v].type == r->type)
            cs[n++] = m->sel[i].v;
    qsort(cs, n, sizeof(*cs), cmp_vid_desc);
    rollback(m, start);
    uint64_t got = 0;
    for (size_t i = 0; i < n && got < fit; i++) {
        int64_t t = take(m, r, cs[i], pexcl, 1, fit - got);
        if (t < 0) {
            free(cs);
            return -1;
        }
        got += t > 0 ? 1 : 0;
    }
    free(cs);
    if (got == fit)
        return 1;
    rollback(m, start);
    return 2;
}

/* Match one request (with its count) below u.  1 fits, 0 does not, -1
 * error.  On 0 nothing of this request stays taken. */
int grovep_match_list(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top)
{
    const grove_count_t *cnt = r->ocount ? r->ocount : r->count;
    bool fixed = cnt->kind == GROVE_COUNT_FIXED;
    uint64_t want = fixed ? cnt->min : cnt->max, most;
    /* exploring by use stops at the largest count the range accepts, as
     * the reference engine does (it explores until that many are found) */
    if (!fixed && m->pol.explore_by_use && grove_count_fit(cnt, want, &most))
        want = most;
    struct checkpoint start = checkpoint(m);

    if (r->slot) {
        int by_id = fixed ? grovep_match_take_slots_by_id(m, r, u, pexcl, want) : 2;
        if (by_id != 2)
            return by_id;
        if (r->alt) {
            /* or-slots not chosen by id: the first alternative of which
             * want slots fit, all of one shape */
            for (const struct req *a = r; a; a = a->alt) {
                int64_t got = grovep_match_take_slots(m, a, u, pexcl, want, NULL, 0);
                if (got < 0)
                    return -1;
                if ((uint64_t)got >= want)
                    return 1;
                rollback(m, start);
            }
            return 0;
        }
        if (fixed) {
            int64_t got = grovep_match_take_slots(m, r, u, pexcl, want, NULL, 0);
            if (got < 0)
                return -1;
            if ((uint64_t)got == want)
                return 1;
            rollback(m, start);
            return 0;
        }
        /* moldable: as many as fit, then trim to an acceptable count */
        size_t nper = 4096;
        struct checkpoint *per = malloc(nper * sizeof(*per));
        if (!per) {
            errno = ENOMEM;
            return -1;
        }
        per[0] = start;
        int64_t got = grovep_match_take_slots(m, r, u, pexcl, want, per, nper);
        uint64_t fit;
        int rc = 0;
        if (got >= 0 && grove_count_fit(cnt, (uint64_t)got, &fit)) {
            if (fit < (uint64_t)got && fit < nper)
                rollback(m, per[fit]);
            rc = 1;
        } else if (got >= 0) {
            rollback(m, start);
        } else {
            rc = -1;
        }
        free(per);
        return rc;
    }
    if (r->type == GROVE_SYM_NONE) {
        return 0; /* no vertex of this type exists */
    }
    if (!r->child && grovep_match_channeled_type(m, r->type))
        return grovep_match_channel_match(m, r, u, top);

    if (top && fixed && r->child && id_dir(m) && m->pol.select != GROVE_SELECT_BEST) {
        int rc = take_top_by_id(m, r, u, pexcl, want);
        if (rc != 2) {
            if (rc <= 0)
                rollback(m, start);
            return rc;
        }
    }
    if (m->pol.select == GROVE_SELECT_BEST && (m->pol.score || m->pol.scores || m->pol.choose)
        && grove_policy_applies(m->g, m->pol.score_types, r->type)) {
        int rc = take_best(m, r, u, pexcl, top, want);
        if (rc <= 0)
            rollback(m, start);
        return rc;
    }
    uint64_t got;
    if (take_first(m, r, u, pexcl, top, want, &got) < 0) {
        rollback(m, start);
        return -1;
    }
    if (fixed) {
        if (got >= want)
            return 1;
        rollback(m, start);
        return 0;
    }
    uint64_t fit;
    if (!grove_count_fit(cnt, got, &fit)) {
        rollback(m, start);
        return 0;
    }
    if (fit < got && r->child && m->pol.explore_by_use) {
        int rc = take_highest(m, r, pexcl, start, fit);
        if (rc != 2)
            return rc;
    }
    if (fit < got && r->child) {
        /* more fitted than the count accepts: take exactly the fit */
        rollback(m, start);
        if (take_first(m, r, u, pexcl, top, fit, &got) < 0 || got != fit) {
            rollback(m, start);
            return got != fit ? 0 : -1;
        }
    }
    return 1;
}
