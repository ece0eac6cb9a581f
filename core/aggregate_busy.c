/* aggregate_busy.c: the nodes in use over time, for a bound on the nodes
 * wholly idle (one part of the aggregates: aggregate.c keeps the free units
 * and calls this part at each record added or removed).
 *
 * The aggregates count free units of each type (aggregate.c), and a node
 * on which a job holds one core of 44 still counts as a free node there:
 * only an exclusive record takes a node whole.  A request for nodes
 * written exclusive needs nodes no job touches during its window, and
 * with thousands of small jobs spread over a machine the aggregates let
 * every instant through, so that the matcher asked every node of the
 * machine at each instant a reservation of 1,024 exclusive nodes tried.
 *
 * Here each aggregate that tracks nodes keeps a tally (planner.h) of how
 * many nodes below it are in use at each time: a node is in use while a
 * record of its own or an annotation of a record below it (pool.c) covers
 * the time.
 * The use of node v is the union of those windows, kept as its maximal
 * intervals (overlapping or touching windows merged: windows kept apart
 * where they only touch would leave a point in the tallies at every
 * boundary, and a machine reserved back to back again and again would
 * make every tally as long as its runs), and each maximal interval is one
 * span (+1) in the tallies of the aggregates above v and of v's block
 * (blk_of).  A window that comes or goes on v changes only the maximal
 * interval around it: the ones it merges are taken out and their hull put
 * in, or the reverse, so that what is taken out is always exactly what
 * was put in; a window that overlaps or touches no other is its own,
 * found with one look at v's lists.  Then the nodes below an aggregate
 * wholly idle during [s, e) are at most its nodes less the most in use at
 * any time of the window: a bound, not a count (two nodes in use in two
 * halves of the window leave one fewer idle than it says), which only
 * ever lets a window through that then fails node by node.
 *
 * A node with more than 64 windows (a machine reserved whole again and
 * again) is not counted at all: its use would cost a sort of them at each
 * change, and a node left out only lets windows through.  It is counted
 * again when it has 64 or fewer.
 *
 * The tallies follow the records while the aggregates are clean; a
 * dirty graph rebuilds them from the records with the aggregates
 * (grovep_busy_build).  "idle=0" in the aggregates' specification turns
 * them off (for comparisons: they only ever prune).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"
#include "aggregate_private.h"
#include "planner.h"
#include "util.h"

struct ival {
    int64_t s, e;
};

/* Is v of the low type whose use is counted (the aggregates' "node")? */
static inline bool counted(const grove_graph_t *g, grove_vid_t v)
{
    return g->busy_low < g->nlow && g->v[v].type == g->agg_low[g->busy_low];
}

/* Is record r, in list 0 (v's own) or 1 (annotations of records below
 * v), a window of v's use? */
static inline bool is_window(const grovep_rec_t *r, int list)
{
    return (list || r->kind == GROVE_RECORD_ALLOC) && r->start < grovep_plan_end(r->end);
}

/* Sort w[0, n) by start.  A vertex's lists hold the newest record first,
 * so a run is most often in decreasing order (a machine reserved again
 * and again): that one is reversed, one in order is left, and any other
 * is sorted by insertion (n <= GROVEP_BUSY_CAP). */
static void sort_run(struct ival *w, size_t n)
{
    size_t i = 1;
    while (i < n && w[i].s <= w[i - 1].s)
        i++;
    if (i == n) {
        for (size_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
            struct ival t = w[a];
            w[a] = w[b];
            w[b] = t;
        }
        return;
    }
    for (i = 1; i < n; i++) {
        struct ival x = w[i];
        size_t j = i;
        for (; j > 0 && w[j - 1].s > x.s; j--)
            w[j] = w[j - 1];
        w[j] = x;
    }
}

/* Append [x.s, x.e) to the maximal intervals w[0, *k), which are sorted
 * and come before it by start (merged with the last when it overlaps or
 * touches it). */
static inline void coalesce(struct ival *w, size_t *k, struct ival x)
{
    if (*k && x.s <= w[*k - 1].e) {
        if (x.e > w[*k - 1].e)
            w[*k - 1].e = x.e;
    } else {
        w[(*k)++] = x;
    }
}

/* The maximal intervals of v's windows (is_window), record skip left
 * out, into w (room for GROVEP_BUSY_CAP): their count.  Only for a node
 * of at most g->busy_cap windows besides skip's (the callers count them:
 * g->busy_nw); past that, 0. */
static size_t merged(const grove_graph_t *g, grove_vid_t v, uint32_t skip, struct ival *w)
{
    size_t n = 0, cap = g->busy_cap, n0 = 0;
    for (int list = 0; list < 2; list++) {
        n0 = n; /* where the second list's windows begin */
        uint32_t i = list ? grovep_shared_head(g, v) : grovep_recs_head(g, v);
        for (; i != GROVEP_NONE; i = g->recs[i].next) {
            const grovep_rec_t *r = &g->recs[i];
            if (i == skip || !is_window(r, list))
                continue;
            if (n == cap)
                return 0;
            w[n++] = (struct ival){r->start, grovep_plan_end(r->end)};
        }
    }
    /* each list's windows sorted apart, then merged and joined */
    sort_run(w, n0);
    sort_run(w + n0, n - n0);
    if (n0 == 0 || n0 == n) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            coalesce(w, &k, w[i]); /* k <= i: read before written */
        return k;
    }
    struct ival a[GROVEP_BUSY_CAP];
    size_t nb = n - n0, k = 0, i = 0, j = 0;
    memcpy(a, w, n * sizeof(*a));
    const struct ival *b = a + n0;
    while (i < n0 || j < nb)
        coalesce(w, &k, j == nb || (i < n0 && a[i].s <= b[j].s) ? a[i++] : b[j++]);
    return k;
}

/* Does a window of v other than record skip's overlap or touch [s, e)? */
static bool overlapped(const grove_graph_t *g, grove_vid_t v, uint32_t skip, int64_t s,
                       int64_t e)
{
    for (int list = 0; list < 2; list++) {
        uint32_t i = list ? grovep_shared_head(g, v) : grovep_recs_head(g, v);
        for (; i != GROVEP_NONE; i = g->recs[i].next) {
            const grovep_rec_t *r = &g->recs[i];
            if (i != skip && is_window(r, list) && r->start <= e && s <= grovep_plan_end(r->end))
                return true;
        }
    }
    return false;
}

/* One more (sign 1) or one less (-1) node in use over [s, e) in the tally
 * of a (made at its first).  0, or -1 (ENOMEM). */
static int tally_put(grovep_agg_t *a, int64_t s, int64_t e, int sign)
{
    if (!a->busy) {
        if (sign < 0)
            return 0; /* never put in: the tallies were rebuilt since */
        if (!(a->busy = grove_tally_create()))
            return -1;
    }
    if (sign > 0)
        return grove_tally_raise(a->busy, s, e);
    grove_tally_lower(a->busy, s, e);
    return 0;
}

/* ---- the tallies' changes of a job's records, summed ---------------------------- *
 *
 * Each raising or lowering of [s, e) in a tally is two changes of its
 * points: at s the count by sign and the intervals ending there by sign,
 * at e the count by -sign and the intervals by sign.  These add up in any
 * order, so from grovep_busy_begin to grovep_busy_end they are summed by
 * aggregate and time, and each (aggregate, time) is put in once: the
 * nodes of a reservation of many whole nodes raise the tallies above them
 * at the reservation's start and end, and a window merged with the one
 * before it (taken out, and their hull put in) changes nothing at the
 * hull's start.  The tallies then hold what the changes one by one would
 * have left, point for point. */

#define BATCH_EMPTY UINT32_MAX
/* Past this many changes (a job of thousands of whole nodes) the batch's
 * memory is given back at its end rather than kept for the next. */
#define BATCH_KEEP 16384

static inline size_t batch_hash(uint32_t agg, int64_t key, size_t mask)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15u ^ ((uint64_t)agg + 1) * 0xc2b2ae3d27d4eb4fu;
    return (size_t)(h ^ (h >> 29)) & mask;
}

/* Room for one more change: the table of slots kept at most half full.
 * 0, or -1 (ENOMEM) with the batch as it was. */
static int batch_room(struct grovep_busybatch *b)
{
    if (b->n < b->cap && 2 * (b->n + 1) <= b->nslot)
        return 0;
    size_t cap = b->cap ? 2 * b->cap : 64, nslot = 2 * cap;
    struct grovep_tallyop *op = realloc(b->op, cap * sizeof(*op));
    if (!op)
        return -1;
    b->op = op;
    uint32_t *slot = malloc(nslot * sizeof(*slot));
    if (!slot)
        return -1; /* op grown, the table as it was: still sound */
    for (size_t i = 0; i < nslot; i++)
        slot[i] = BATCH_EMPTY;
    for (size_t i = 0; i < b->n; i++) {
        size_t h = batch_hash(op[i].agg, op[i].key, nslot - 1);
        while (slot[h] != BATCH_EMPTY)
            h = (h + 1) & (nslot - 1);
        slot[h] = (uint32_t)i;
        op[i].pos = (uint32_t)h;
    }
    free(b->slot);
    b->slot = slot;
    b->cap = cap;
    b->nslot = nslot;
    return 0;
}

/* Add dv to the count of aggregate agg from key on and dends to the
 * intervals ending at key.  0, or -1 (ENOMEM). */
static int batch_add(struct grovep_busybatch *b, uint32_t agg, int64_t key, int64_t dv,
                     int dends)
{
    if (batch_room(b) < 0)
        return -1;
    size_t mask = b->nslot - 1, h = batch_hash(agg, key, mask);
    for (; b->slot[h] != BATCH_EMPTY; h = (h + 1) & mask) {
        struct grovep_tallyop *o = &b->op[b->slot[h]];
        if (o->agg == agg && o->key == key) {
            o->dv += dv;
            o->dends += dends;
            return 0;
        }
    }
    b->slot[h] = (uint32_t)b->n;
    b->op[b->n++] = (struct grovep_tallyop){.key = key, .dv = dv, .agg = agg, .dends = dends,
                                            .pos = (uint32_t)h};
    return 0;
}

/* Forget the changes summed so far (the tallies were rebuilt from the
 * records, or will be). */
void grovep_busy_batch_clear(struct grovep_busybatch *b)
{
    for (size_t i = 0; i < b->n; i++)
        b->slot[b->op[i].pos] = BATCH_EMPTY;
    b->n = 0;
}

/* Put the summed changes in, each (aggregate, time) once, and start over. */
static void batch_flush(grove_graph_t *g)
{
    struct grovep_busybatch *b = &g->busy_batch;
    for (size_t i = 0; i < b->n && !g->agg_dirty; i++) {
        const struct grovep_tallyop *o = &b->op[i];
        if ((o->dv == 0 && o->dends == 0) || o->agg >= g->naggs)
            continue;
        grovep_agg_t *a = &g->aggs[o->agg];
        if (!a->busy) {
            if (o->dends <= 0)
                continue; /* never put in: the tallies were rebuilt since */
            if (!(a->busy = grove_tally_create())) {
                g->agg_dirty = true;
                break;
            }
        }
        if (grove_tally_apply(a->busy, o->key, o->dv, o->dends) < 0)
            g->agg_dirty = true; /* rebuilt from the records at the next use */
    }
    if (b->cap > BATCH_KEEP)
        grovep_busy_batch_free(b);
    else
        grovep_busy_batch_clear(b);
}

void grovep_busy_begin(grove_graph_t *g)
{
    g->busy_batch.depth++;
}

void grovep_busy_end(grove_graph_t *g)
{
    if (g->busy_batch.depth > 0 && --g->busy_batch.depth == 0)
        batch_flush(g);
}

void grovep_busy_batch_free(struct grovep_busybatch *b)
{
    free(b->op);
    free(b->slot);
    *b = (struct grovep_busybatch){.depth = b->depth};
}

/* The interval [s, e) of node v in use (sign 1) or no more (-1), in every
 * aggregate above v that tracks nodes and in v's block's: at once, or
 * summed in the batch while one is open.  0, or -1. */
static int put_up(grove_graph_t *g, grove_vid_t v, int64_t s, int64_t e, int sign)
{
    uint8_t bit = (uint8_t)(1u << g->busy_low);
    struct grovep_busybatch *b = &g->busy_batch;
    for (grove_vid_t k = v, a = g->parent[v]; a != GROVEP_NONE; k = a, a = g->parent[a]) {
        grovep_agg_t *x[2] = {grovep_agg_at(g, a), grovep_blk_at(g, k)};
        for (int j = 0; j < 2; j++) {
            if (!x[j] || !(x[j]->mask & bit))
                continue;
            if (b->depth == 0) {
                if (tally_put(x[j], s, e, sign) < 0)
                    return -1;
                continue;
            }
            uint32_t ai = (uint32_t)(x[j] - g->aggs);
            if (batch_add(b, ai, s, sign, sign) < 0 || batch_add(b, ai, e, -sign, sign) < 0)
                return -1;
        }
    }
    return 0;
}

void grovep_busy_change(grove_graph_t *g, grove_vid_t v, uint32_t ri, int sign)
{
    if (g->agg_dirty || !g->naggs || !g->agg_idle || !counted(g, v))
        return;
    const grovep_rec_t *r = &g->recs[ri];
    int64_t s = r->start, e = grovep_plan_end(r->end);
    uint32_t ni = grovep_sparse_get(&g->busy_of, v);
    if (s >= e || ni == UINT32_MAX)
        return;
    /* the windows on v without ri's: kept a node, so that a node of many
     * is passed by without a look at its lists */
    uint32_t without = sign > 0 ? g->busy_nw[ni]++ : --g->busy_nw[ni];
    if (without > g->busy_cap)
        return; /* not counted with it or without it */
    if (without < g->busy_cap && !overlapped(g, v, ri, s, e)) {
        /* its own maximal interval, with it and without it */
        if (put_up(g, v, s, e, sign) < 0)
            g->agg_dirty = true;
        return;
    }
    struct ival L[GROVEP_BUSY_CAP];
    ptrdiff_t n = (ptrdiff_t)merged(g, v, ri, L);
    int rc = 0;
    if (without == g->busy_cap) {
        /* counted on one side only: without ri's window (busy_cap
         * windows), not with it (one more) */
        for (ptrdiff_t i = 0; i < n && rc == 0; i++)
            rc = put_up(g, v, L[i].s, L[i].e, -sign);
        if (rc < 0)
            g->agg_dirty = true;
        return;
    }
    /* the maximal intervals [s, e) merges: those it overlaps or touches */
    ptrdiff_t lo = 0;
    while (lo < n && L[lo].e < s)
        lo++;
    ptrdiff_t hi = lo;
    while (hi < n && L[hi].s <= e)
        hi++;
    if (hi - lo == 1 && L[lo].s <= s && e <= L[lo].e)
        return; /* within one already: no node more or less in use */
    struct ival h = {s, e};
    if (hi > lo) {
        h.s = L[lo].s < s ? L[lo].s : s;
        h.e = L[hi - 1].e > e ? L[hi - 1].e : e;
    }
    if (sign > 0) {
        for (ptrdiff_t i = lo; i < hi && rc == 0; i++)
            rc = put_up(g, v, L[i].s, L[i].e, -1);
        if (rc == 0)
            rc = put_up(g, v, h.s, h.e, 1);
    } else {
        rc = put_up(g, v, h.s, h.e, -1);
        for (ptrdiff_t i = lo; i < hi && rc == 0; i++)
            rc = put_up(g, v, L[i].s, L[i].e, 1);
    }
    if (rc < 0)
        g->agg_dirty = true;
}

int grovep_busy_build(grove_graph_t *g)
{
    /* what a batch summed before is counted from the records below */
    grovep_busy_batch_clear(&g->busy_batch);
    if (!g->agg_idle || g->busy_low >= g->nlow)
        return 0;
    /* the counted nodes, each with the number of its windows */
    size_t nn = 0, cap = 0;
    grove_vid_t *nodes = NULL;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v) || !counted(g, v))
            continue;
        if (grovep_grow((void **)&nodes, &cap, nn + 1, sizeof(*nodes)) < 0) {
            free(nodes);
            return -1;
        }
        nodes[nn++] = v;
    }
    if (nn && (grovep_sparse_build(&g->busy_of, g->nv, nodes, sizeof(*nodes), NULL, nn) < 0
               || !(g->busy_nw = calloc(nn, sizeof(*g->busy_nw))))) {
        free(nodes);
        return -1;
    }
    struct ival L[GROVEP_BUSY_CAP];
    int rc = 0;
    grovep_busy_begin(g);
    for (size_t k = 0; k < nn && rc == 0; k++) {
        grove_vid_t v = nodes[k];
        uint32_t n = 0;
        for (int list = 0; list < 2; list++) {
            uint32_t i = list ? grovep_shared_head(g, v) : grovep_recs_head(g, v);
            for (; i != GROVEP_NONE; i = g->recs[i].next)
                n += is_window(&g->recs[i], list);
        }
        g->busy_nw[k] = n;
        if (n == 0 || n > g->busy_cap)
            continue;
        size_t m = merged(g, v, GROVEP_NONE, L);
        for (size_t i = 0; i < m && rc == 0; i++)
            rc = put_up(g, v, L[i].s, L[i].e, 1);
    }
    if (rc < 0)
        g->agg_dirty = true; /* the caller's too: nothing summed is put in */
    grovep_busy_end(g);
    free(nodes);
    return rc;
}

int64_t grovep_agg_idle(const grove_graph_t *g, const grovep_agg_t *a, int64_t start,
                        int64_t end)
{
    if (!g->agg_idle || g->busy_low >= g->nlow || !(a->mask & (1u << g->busy_low)))
        return INT64_MAX;
    if (grovep_excl_any(g, a->v, start, end))
        return 0; /* held whole in the window */
    int64_t total = grovep_agg_total(g, a)[g->busy_low];
    end = grovep_plan_end(end);
    if (!a->busy || start >= end)
        return total;
    return total - grove_tally_max(a->busy, start, end);
}

int64_t grovep_agg_idle_from(const grove_graph_t *g, const grovep_agg_t *a, int64_t need,
                             int64_t d, int64_t t0)
{
    if (!g->agg_idle || g->busy_low >= g->nlow || !(a->mask & (1u << g->busy_low)) || !a->busy
        || d <= 0 || need <= 0 || d > GROVE_PLANNER_TIME_MAX || t0 > GROVE_PLANNER_TIME_MAX - d)
        return t0;
    int64_t total = grovep_agg_total(g, a)[g->busy_low];
    if (need > total)
        return -1;
    return grove_tally_earliest(a->busy, total - need, d, t0, GROVE_PLANNER_TIME_MAX - d);
}

bool grovep_blk_idle_enough(const grove_graph_t *g, grove_vid_t w, int64_t need, int64_t start,
                            int64_t end)
{
    if (g->naggs == g->nvaggs || need <= 0 || !g->agg_idle || g->busy_low >= g->nlow)
        return true;
    end = grovep_plan_end(end);
    if (start >= end)
        return true;
    /* w's blocks follow one another in g->aggs from its first child's
     * (blocks_build); the sum stops as soon as it reaches need (a request
     * of a few nodes asks one or two) */
    uint32_t first = UINT32_MAX;
    for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out) {
        grove_vid_t c = g->e[e].dst;
        if (g->e[e].sub == g->containment && !(g->e[e].flags & GROVEP_E_UP) && g->parent[c] == w) {
            first = grovep_sparse_get(&g->blk_of, c);
            break;
        }
    }
    if (first == UINT32_MAX)
        return true; /* w has no blocks */
    int64_t sum = 0;
    for (size_t i = first; i < g->naggs && g->aggs[i].v == w; i++) {
        const grovep_agg_t *b = &g->aggs[i];
        if (!(b->mask & (1u << g->busy_low)))
            return true;
        int64_t n = grovep_agg_total(g, b)[g->busy_low];
        if (b->busy)
            n -= grove_tally_max(b->busy, start, end);
        sum += n;
        if (sum >= need)
            return true;
    }
    return false;
}

void grovep_busy_free(grovep_agg_t *a)
{
    grove_tally_destroy(a->busy);
    a->busy = NULL;
}
