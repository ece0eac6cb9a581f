/* aggregate.c: time-aware availability for pools and subtrees.
 *
 * Two derived structures follow the allocation records of pool.c:
 *
 *   - a pool planner per vertex that holds ALLOC records: its size over
 *     time minus one span per record, so the free units of a pool during a
 *     window is one O(log n) query however many jobs share it;
 *   - pruning aggregates: chosen high-level vertices (by default every
 *     vertex that contains cores, nodes or gpus) keep a multi-planner of the
 *     free units of chosen low-level types in their subtree, so "does this
 *     rack have 4 free nodes during [t, t + d)?" is one query and the
 *     matcher skips a subtree before it descends.
 *
 * An aggregate keeps one span per window: what every record below it
 * over exactly [start, end) takes, summed (grovep_aggwin_t), so jobs of one
 * window share a span and a held job costs no span of its own.  A
 * record's contribution to the types below it: an exclusive record takes
 * every unit of its subtree; another record takes its amount of its own
 * type; adding or dropping a record adds it to or takes it from the span
 * of its window in every aggregate above it (an exclusive record on the
 * vertex itself is not counted in the vertex's own aggregate: queries ask
 * the vertex's records first).  Totals depend on the structure, so any change of the
 * containment tree or of a size marks the aggregates dirty, and they are
 * rebuilt from the records before their next use (O(V + R log R)).
 *
 * Configuration follows the HL:LL syntax: "ALL:core,ALL:node,rack:gpu"
 * (HL a type or ALL, LL a type).
 *
 * Whether a pool is held exclusively during a window is answered here too
 * (grovep_excl_any, grovep_excl_record), from its planner and its records.
 *
 * The tallies of the nodes in use over time below each aggregate (what
 * bounds the nodes wholly idle during a window) are aggregate_busy.c's:
 * this file calls it at each record added or removed and at a rebuild.
 *
 * This file must not hold the allocation records themselves (pool.c, the
 * floor above, which tells this file of every record it adds or removes)
 * or the matcher's use of the aggregates (match_walk.c): it only keeps
 * derived counts in step with the records, reading them from the graph's
 * arrays, and never calls pool.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"
#include "aggregate.h"
#include "aggregate_private.h"
#include "util.h"

#define DEFAULT_SPEC "ALL:core,ALL:node,ALL:gpu"

/* Sums of sizes over a subtree saturate at the int64 range instead of
 * wrapping (pools near 2^63 are refused by the readers, GROVE_MAX_SIZE,
 * but a graph built through the API may still hold them): a saturated
 * total only ever overstates what is free by nothing a request can use. */
static inline int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* The length of [start, end), saturated (times read from a file may lie
 * anywhere in the int64 range). */
static inline int64_t span_of(int64_t start, int64_t end)
{
    int64_t r;
    if (__builtin_sub_overflow(end, start, &r))
        return end > start ? INT64_MAX : 0;
    return r;
}

int grovep_dense_set(grovep_dense_t *d, grove_vid_t v, uint32_t i)
{
    if (v >= d->len) {
        size_t len = d->len ? d->len : 1024;
        while (len <= v)
            len *= 2;
        uint32_t *at = realloc(d->at, len * sizeof(*at));
        if (!at) {
            errno = ENOMEM;
            return -1;
        }
        memset(at + d->len, 0xff, (len - d->len) * sizeof(*at));
        d->at = at;
        d->len = len;
    }
    d->at[v] = i;
    return 0;
}

void grovep_dense_free(grovep_dense_t *d)
{
    free(d->at);
    d->at = NULL;
    d->len = 0;
}

/* The set bits of each byte. */
const uint8_t grovep_popcount8[256] = {
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7, 4, 5, 5, 6, 5, 6, 6, 7, 5, 6, 6, 7, 6, 7, 7, 8};

void grovep_sparse_free(grovep_sparse_t *s)
{
    GROVEP_FREE_ALL(s->bits, s->base, s->val);
    *s = (grovep_sparse_t){0};
}

/* The map of the n distinct vertices key(i) to val(i) (i itself when val
 * is NULL), over vertices below nv; key(i) is the vertex at byte offset
 * i * stride of keys: 0, or -1 (ENOMEM) with *s empty. */
int grovep_sparse_build(grovep_sparse_t *s, size_t nv, const void *keys, size_t stride,
                        const uint32_t *vals, size_t n)
{
    grovep_sparse_free(s);
    size_t nblk = (nv + 7) / 8;
    if (!nblk)
        return 0;
    s->bits = calloc(nblk, 1);
    s->base = malloc(nblk * sizeof(*s->base));
    s->val = malloc((n ? n : 1) * sizeof(*s->val));
    if (!s->bits || !s->base || !s->val) {
        grovep_sparse_free(s);
        errno = ENOMEM;
        return -1;
    }
    s->nblk = nblk;
#define KEY(i) (*(const grove_vid_t *)(const void *)((const char *)keys + (i) * stride))
    for (size_t i = 0; i < n; i++)
        s->bits[KEY(i) >> 3] |= (uint8_t)(1u << (KEY(i) & 7));
    uint32_t c = 0;
    for (size_t b = 0; b < nblk; b++) {
        s->base[b] = c;
        c += grovep_popcount8[s->bits[b]];
    }
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = KEY(i);
        unsigned bit = 1u << (v & 7);
        s->val[s->base[v >> 3] + grovep_popcount8[s->bits[v >> 3] & (bit - 1)]] =
            vals ? vals[i] : (uint32_t)i;
    }
#undef KEY
    return 0;
}

/* ---- configuration ------------------------------------------------------------ */

static int parse_spec(grove_graph_t *g, const char *spec, grove_error_t *err)
{
    grove_sym_t low[GROVEP_MAX_LOW];
    size_t nlow = 0, npairs = 0;
    struct {
        grove_sym_t high;
        uint8_t low;
    } pairs[GROVEP_MAX_SMALL];
    char *copy = strdup(spec);
    if (!copy) {
        errno = ENOMEM;
        return -1;
    }
    char *save = NULL;
    uint32_t blk = GROVEP_BLK_N;
    bool idle = true;
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (!strncmp(tok, "idle=", 5)) {
            /* count the nodes in use over time (grovep_busy_change), 1 or 0 */
            if (strcmp(tok + 5, "0") && strcmp(tok + 5, "1")) {
                grove_error_set(err, NULL, 0, "aggregates: '%s' is not idle=0 or idle=1", tok);
                free(copy);
                errno = EINVAL;
                return -1;
            }
            idle = tok[5] == '1';
            continue;
        }
        if (!strncmp(tok, "blocks=", 7)) {
            /* children a block of a wide vertex's (blk_of), 0 for none */
            char *end = NULL;
            errno = 0;
            unsigned long n = strtoul(tok + 7, &end, 10);
            if (!isdigit((unsigned char)tok[7]) || *end || errno || n == 1 || n > 65536) {
                grove_error_set(err, NULL, 0,
                                "aggregates: '%s' is not blocks=N (children a block: 0 for "
                                "none, or 2 to 65536)",
                                tok);
                free(copy);
                errno = EINVAL;
                return -1;
            }
            blk = (uint32_t)n;
            continue;
        }
        char *colon = strchr(tok, ':');
        if (!colon || colon == tok || !colon[1] || strchr(colon + 1, ':')) {
            grove_error_set(err, NULL, 0,
                            "aggregates: '%s' is not HL:LL (a type or ALL, a colon, a type)",
                            tok);
            free(copy);
            errno = EINVAL;
            return -1;
        }
        *colon = '\0';
        const char *hl = tok, *ll = colon + 1;
        grove_sym_t ls = grove_intern(g->strings, ll);
        grove_sym_t hs = strcmp(hl, "ALL") ? grove_intern(g->strings, hl) : GROVE_SYM_NONE;
        if (ls == GROVE_SYM_NONE || (strcmp(hl, "ALL") && hs == GROVE_SYM_NONE)) {
            free(copy);
            return -1;
        }
        size_t i;
        for (i = 0; i < nlow && low[i] != ls; i++)
            ;
        if (i == nlow) {
            if (nlow == GROVEP_MAX_LOW) {
                grove_error_set(err, NULL, 0, "aggregates: at most %d low-level types",
                                GROVEP_MAX_LOW);
                free(copy);
                errno = EOVERFLOW;
                return -1;
            }
            low[nlow++] = ls;
        }
        if (npairs == GROVEP_MAX_SMALL) {
            grove_error_set(err, NULL, 0, "aggregates: at most %d pairs", GROVEP_MAX_SMALL);
            free(copy);
            errno = EOVERFLOW;
            return -1;
        }
        pairs[npairs].high = hs;
        pairs[npairs].low = (uint8_t)i;
        npairs++;
    }
    free(copy);
    if (nlow == 0) {
        grove_error_set(err, NULL, 0, "aggregates: empty specification");
        errno = EINVAL;
        return -1;
    }
    char *keep = strdup(spec);
    if (!keep) {
        errno = ENOMEM;
        return -1;
    }
    free(g->agg_spec);
    g->agg_spec = keep;
    memcpy(g->agg_low, low, nlow * sizeof(*low));
    g->nlow = nlow;
    for (size_t i = 0; i < npairs; i++) {
        g->agg_pair[i].high = pairs[i].high;
        g->agg_pair[i].low = pairs[i].low;
    }
    g->npairs = npairs;
    g->agg_blk = blk;
    g->agg_idle = idle;
    g->busy_cap = GROVEP_BUSY_CAP;
    g->busy_low = UINT8_MAX;
    grove_sym_t node = grove_intern_lookup(g->strings, "node");
    for (size_t i = 0; i < nlow; i++)
        if (node != GROVE_SYM_NONE && low[i] == node)
            g->busy_low = (uint8_t)i;
    g->agg_spec_gen++;
    g->chg_gen++;
    g->agg_dirty = true;
    return 0;
}

int grovep_agg_init(grove_graph_t *g)
{
    return parse_spec(g, DEFAULT_SPEC, NULL);
}

static void drop_aggs(grove_graph_t *g)
{
    grovep_busy_batch_clear(&g->busy_batch);
    for (size_t i = 0; i < g->naggs; i++) {
        grove_mplanner_destroy(g->aggs[i].mp);
        grovep_busy_free(&g->aggs[i]);
    }
    free(g->aggwin.e);
    g->aggwin = (grovep_winmap_t){0};
    g->naggs = g->nvaggs = 0;
    grovep_sparse_free(&g->agg_of);
    grovep_sparse_free(&g->blk_of);
    grovep_sparse_free(&g->busy_of);
    free(g->busy_nw);
    g->busy_nw = NULL;
    free(g->agg_sum);
    free(g->agg_touch);
    free(g->agg_seen);
    g->agg_sum = NULL;
    g->agg_touch = NULL;
    g->agg_seen = NULL;
}

void grovep_agg_fini(grove_graph_t *g)
{
    drop_aggs(g);
    grovep_busy_batch_free(&g->busy_batch);
    free(g->aggs);
    free(g->aggv);
    g->aggs = NULL;
    g->aggv = NULL;
    g->aggcap = g->aggvcap = 0;
    for (size_t i = 0; i < g->nplanners + g->nspare; i++)
        grove_planner_destroy(g->planners[i]);
    free(g->planners);
    free(g->planner_vid);
    g->planners = NULL;
    g->planner_vid = NULL;
    g->nplanners = g->plcap = g->nspare = 0;
    grovep_dense_free(&g->planner_of);
    free(g->rec_ends);
    g->rec_ends = NULL;
    g->nrec_ends = g->rec_endcap = 0;
    free(g->rec_starts);
    g->rec_starts = NULL;
    g->nrec_starts = g->rec_startcap = 0;
    free(g->agg_spec);
    g->agg_spec = NULL;
}

int grove_graph_set_aggregates(grove_graph_t *g, const char *spec, grove_error_t *err)
{
    if (!spec) {
        errno = EINVAL;
        return -1;
    }
    if (parse_spec(g, spec, err) < 0)
        return -1;
    return grovep_agg_refresh(g);
}

const char *grove_graph_aggregates(const grove_graph_t *g)
{
    return g->agg_spec;
}

/* ---- record ends and starts ------------------------------------------------- */

/* Every record with a pool planner span counts once at its end, so that a
 * reservation search takes its candidate instants from here in time
 * proportional to the instants after now, not to the graph; and once at
 * its start, so that a kept ranking knows whether another window meets
 * the same records (grovep_recs_same). */

/* The position of the first instant > t (after) or >= t (!after) in the
 * n instants at. */
static size_t inst_pos(const grovep_endcount_t *at, size_t n, int64_t t, bool after)
{
    size_t lo;
    if (after)
        GROVEP_LOWER_BOUND(lo, n, mid, at[mid].t <= t);
    else
        GROVEP_LOWER_BOUND(lo, n, mid, at[mid].t < t);
    return lo;
}

size_t grovep_rec_ends_after(const grove_graph_t *g, int64_t t)
{
    return inst_pos(g->rec_ends, g->nrec_ends, t, true);
}

static int inst_add(grovep_endcount_t **at, size_t *n, size_t *cap, int64_t t)
{
    size_t i = inst_pos(*at, *n, t, false);
    if (i < *n && (*at)[i].t == t) {
        (*at)[i].n++;
        return 0;
    }
    if (grovep_grow((void **)at, cap, *n + 1, sizeof(**at)) < 0)
        return -1;
    memmove(*at + i + 1, *at + i, (*n - i) * sizeof(**at));
    (*at)[i] = (grovep_endcount_t){t, 1};
    (*n)++;
    return 0;
}

static void inst_del(grovep_endcount_t *at, size_t *n, int64_t t)
{
    size_t i = inst_pos(at, *n, t, false);
    if (i < *n && at[i].t == t && --at[i].n == 0) {
        memmove(at + i, at + i + 1, (*n - i - 1) * sizeof(*at));
        (*n)--;
    }
}

/* Count record r's start and end: 0, or -1 (ENOMEM, nothing counted). */
static int rec_inst_add(grove_graph_t *g, const grovep_rec_t *r)
{
    if (inst_add(&g->rec_ends, &g->nrec_ends, &g->rec_endcap, r->end) < 0)
        return -1;
    if (inst_add(&g->rec_starts, &g->nrec_starts, &g->rec_startcap, r->start) < 0) {
        inst_del(g->rec_ends, &g->nrec_ends, r->end);
        return -1;
    }
    return 0;
}

static void rec_inst_del(grove_graph_t *g, const grovep_rec_t *r)
{
    inst_del(g->rec_ends, &g->nrec_ends, r->end);
    inst_del(g->rec_starts, &g->nrec_starts, r->start);
}

/* Is some instant of at in (lo, hi] (after) or [lo, hi) (!after)? */
static bool inst_in(const grovep_endcount_t *at, size_t n, int64_t lo, int64_t hi, bool after)
{
    if (lo == hi)
        return false;
    size_t i = inst_pos(at, n, lo, after);
    return i < n && (after ? at[i].t <= hi : at[i].t < hi);
}

bool grovep_recs_same(const grove_graph_t *g, int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
    int64_t slo = s1 < s2 ? s1 : s2, shi = s1 < s2 ? s2 : s1;
    int64_t elo = e1 < e2 ? e1 : e2, ehi = e1 < e2 ? e2 : e1;
    return !inst_in(g->rec_ends, g->nrec_ends, slo, shi, true)
           && !inst_in(g->rec_starts, g->nrec_starts, elo, ehi, false);
}

/* ---- pool planners ----------------------------------------------------------- */

/* A pool held by one record at a time (a core, a GPU, a node's memory held
 * by one job: nearly every pool) has no planner: its use over time is that
 * record's window, read from the record itself (pspan = SOLO_SPAN).  The
 * planner is made when a second record arrives, and dropped when one is
 * left, so holding a core costs its record, not a planner (about 600 bytes
 * with its span table and its leaf). */
#define SOLO_SPAN (-1)

/* The one record of v counted in its use over time with no planner
 * (pspan == SOLO_SPAN), or GROVEP_NONE. */
static uint32_t solo_rec(const grove_graph_t *g, grove_vid_t v)
{
    for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = g->recs[i].next)
        if (g->recs[i].pspan == SOLO_SPAN)
            return i;
    return GROVEP_NONE;
}

/* Put record ri, counted with no planner so far, in planner p: 0 or -1. */
static int solo_to_planner(grove_graph_t *g, grove_planner_t *p, uint32_t ri)
{
    grovep_rec_t *r = &g->recs[ri];
    int64_t end = grovep_plan_end(r->end);
    int64_t id = grove_planner_add(p, r->start, span_of(r->start, end), r->amount);
    if (id < 0)
        return -1;
    r->pspan = id;
    return 0;
}

static grove_planner_t *pool_planner(const grove_graph_t *g, grove_vid_t v)
{
    uint32_t i = grovep_dense_get(&g->planner_of, v);
    return i == UINT32_MAX ? NULL : g->planners[i];
}

/* Spare planners: a planner whose last span goes is kept, empty, in
 * planners[nplanners .. nplanners + nspare), and the next vertex that needs
 * one takes it, so a workload that keeps allocating and freeing whole nodes
 * does not create and destroy a planner per node and job.  Spares are
 * kept up to as many as there are live planners (and at least
 * SPARE_MIN): enough for a workload that swings by half, while cancelling
 * 100,000 jobs does not leave 100,000 empty planners behind, scattered
 * over the heap where they would pin its pages. */
#define SPARE_MIN 64

/* A planner for a vertex that has none, to be stored at
 * planners[nplanners]: a spare (*spare set) or a new one.  NULL on failure
 * (errno). */
static grove_planner_t *pool_planner_new(grove_graph_t *g, grove_vid_t v, bool *spare)
{
    *spare = g->nspare > 0;
    if (!*spare)
        return grove_planner_create(grovep_vertex_size(g, v), 0, GROVE_PLANNER_TIME_MAX);
    grove_planner_t *p = g->planners[g->nplanners];
    if (grove_planner_resize(p, grovep_vertex_size(g, v)) < 0) /* empty: cannot fail */
        return NULL;
    g->nspare--; /* the others stay contiguous once planners[nplanners] is live */
    return p;
}

static grove_planner_t *pool_planner_make(grove_graph_t *g, grove_vid_t v)
{
    grove_planner_t *p = pool_planner(g, v);
    if (p)
        return p;
    if (g->nplanners == g->plcap) {
        size_t cap = g->plcap ? g->plcap * 2 : 64;
        grove_planner_t **n = realloc(g->planners, cap * sizeof(*n));
        if (!n) {
            errno = ENOMEM;
            return NULL;
        }
        g->planners = n;
        grove_vid_t *pv = realloc(g->planner_vid, cap * sizeof(*pv));
        if (!pv) {
            errno = ENOMEM;
            return NULL;
        }
        g->planner_vid = pv;
        g->plcap = cap;
    }
    bool spare;
    p = pool_planner_new(g, v, &spare);
    if (!p)
        return NULL;
    if (grovep_dense_set(&g->planner_of, v, (uint32_t)g->nplanners) < 0) {
        if (spare) {
            g->nspare++; /* still at planners[nplanners]: a spare again */
        } else {
            grove_planner_destroy(p);
        }
        return NULL;
    }
    g->planner_vid[g->nplanners] = v;
    g->planners[g->nplanners++] = p;
    return p;
}

static void pool_planner_drop(grove_graph_t *g, grove_vid_t v)
{
    uint32_t i = grovep_dense_get(&g->planner_of, v);
    if (i == UINT32_MAX)
        return;
    grove_planner_t *p = g->planners[i];
    g->planner_of.at[v] = UINT32_MAX;
    /* move the last planner into the hole, and this one, empty, to the
     * first of the spares (only what an empty planner keeps: its memory) */
    size_t last = g->nplanners - 1;
    if (i != last) {
        g->planners[i] = g->planners[last];
        g->planner_vid[i] = g->planner_vid[last];
        g->planner_of.at[g->planner_vid[i]] = i;
    }
    g->nplanners--;
    if (grove_planner_span_count(p) == 0 && g->nspare < SPARE_MIN + g->nplanners) {
        g->planners[last] = p;
        g->nspare++;
    } else {
        /* the spares start at planners[last] now: the farthest one moves
         * there, so that they stay contiguous */
        if (g->nspare)
            g->planners[last] = g->planners[last + g->nspare];
        grove_planner_destroy(p);
    }
}

int grovep_pool_resize(grove_graph_t *g, grove_vid_t v, int64_t size)
{
    grove_planner_t *p = pool_planner(g, v);
    return p ? grove_planner_resize(p, size) : 0;
}

int64_t grovep_pool_peak(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    grove_planner_t *p = pool_planner(g, v);
    end = grovep_plan_end(end);
    if (start >= end)
        return 0;
    if (!p) {
        /* at most one record counts: its amount if the windows meet */
        uint32_t i = solo_rec(g, v);
        if (i == GROVEP_NONE)
            return 0;
        const grovep_rec_t *r = &g->recs[i];
        return r->start < end && start < grovep_plan_end(r->end) ? r->amount : 0;
    }
    int64_t avail = grove_planner_avail_during(p, start, span_of(start, end));
    if (avail < 0)
        return -1;
    return grove_planner_total(p) - avail;
}

uint32_t grovep_excl_record(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                            bool any_job, grove_jobid_t except)
{
    if (!(g->v[v].flags & GROVEP_V_EXCL))
        return GROVEP_NONE;
    /* a pool whose planner shows no use in the window has no record there */
    if (grovep_pool_peak(g, v, start, end) == 0)
        return GROVEP_NONE;
    for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = g->recs[i].next) {
        const grovep_rec_t *r = &g->recs[i];
        if (r->excl && r->start < end && start < r->end && (any_job || r->job != except))
            return i;
    }
    return GROVEP_NONE;
}

bool grovep_excl_any(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end)
{
    if (!(g->v[v].flags & GROVEP_V_EXCL))
        return false;
    /* a unit pool: every record takes all of it, so use means exclusive use */
    if (grovep_vertex_size(g, v) == 1) {
        int64_t peak = grovep_pool_peak(g, v, start, end);
        if (peak >= 0)
            return peak > 0;
    }
    return grovep_excl_record(g, v, start, end, true, 0) != GROVEP_NONE;
}

/* ---- aggregates ----------------------------------------------------------------- */

/* Which low types a vertex of this type tracks (bit i for agg_low[i]). */
static uint8_t tracked(const grove_graph_t *g, grove_sym_t type)
{
    uint8_t m = 0;
    for (size_t i = 0; i < g->npairs; i++)
        if (g->agg_pair[i].high == GROVE_SYM_NONE || g->agg_pair[i].high == type)
            m |= (uint8_t)(1u << g->agg_pair[i].low);
    return m;
}

const grovep_agg_t *grovep_agg_of(const grove_graph_t *g, grove_vid_t v)
{
    if (!g->naggs)
        return NULL;
    uint32_t i = grovep_sparse_get(&g->agg_of, v);
    return i == UINT32_MAX ? NULL : &g->aggs[i];
}

const grovep_agg_t *grovep_blk_of(const grove_graph_t *g, grove_vid_t v)
{
    if (g->naggs == g->nvaggs)
        return NULL;
    uint32_t i = grovep_sparse_get(&g->blk_of, v);
    return i == UINT32_MAX ? NULL : &g->aggs[i];
}


static grove_mplanner_t *agg_mp(grove_graph_t *g, grovep_agg_t *a)
{
    if (a->mp)
        return a->mp;
    const char *names[GROVEP_MAX_LOW];
    int64_t totals[GROVEP_MAX_LOW];
    for (size_t i = 0; i < g->nlow; i++) {
        names[i] = grove_intern_str(g->strings, g->agg_low[i]);
        totals[i] = (a->mask & (1u << i)) ? grovep_agg_total(g, a)[i] : 0;
    }
    a->mp = grove_mplanner_create(names, totals, g->nlow, 0, GROVE_PLANNER_TIME_MAX);
    return a->mp;
}

/* ---- windows: (aggregate, window) -> span -------------------------------
 *
 * Linear probing, at most 7/10 full, halved when under an eighth, removal
 * shifting back the entries that follow (no tombstones). */

static size_t win_home(const grovep_winmap_t *w, uint32_t agg, int64_t start, int64_t end)
{
    uint64_t k = (uint64_t)agg * 0x9e3779b97f4a7c15ULL ^ (uint64_t)start;
    k ^= k >> 31;
    k = (k + (uint64_t)end) * 0xbf58476d1ce4e5b9ULL;
    k ^= k >> 29;
    k *= 0x94d049bb133111ebULL;
    k ^= k >> 32;
    return (size_t)k & (w->cap - 1);
}

/* The entry of aggregate agg's window [start, end), or NULL. */
static grovep_aggwin_t *win_find(const grovep_winmap_t *w, uint32_t agg, int64_t start,
                                 int64_t end)
{
    if (!w->cap)
        return NULL;
    for (size_t h = win_home(w, agg, start, end); w->e[h].agg != UINT32_MAX;
         h = (h + 1) & (w->cap - 1))
        if (w->e[h].agg == agg && w->e[h].start == start && w->e[h].end == end)
            return &w->e[h];
    return NULL;
}

static int win_rehash(grovep_winmap_t *w, size_t cap)
{
    grovep_aggwin_t *e = malloc(cap * sizeof(*e));
    if (!e) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        e[i].agg = UINT32_MAX;
    grovep_winmap_t n = {e, w->count, cap};
    for (size_t i = 0; i < w->cap; i++) {
        if (w->e[i].agg == UINT32_MAX)
            continue;
        size_t h = win_home(&n, w->e[i].agg, w->e[i].start, w->e[i].end);
        while (e[h].agg != UINT32_MAX)
            h = (h + 1) & (cap - 1);
        e[h] = w->e[i];
    }
    free(w->e);
    *w = n;
    return 0;
}

/* Room for one more window: 0 or -1 (ENOMEM), the map unchanged. */
static int win_reserve(grovep_winmap_t *w)
{
    if ((w->count + 1) * 10 <= w->cap * 7)
        return 0;
    return win_rehash(w, w->cap ? 2 * w->cap : 64);
}

/* Add a window (after win_reserve; not there yet). */
static void win_put(grovep_winmap_t *w, grovep_aggwin_t x)
{
    size_t h = win_home(w, x.agg, x.start, x.end);
    while (w->e[h].agg != UINT32_MAX)
        h = (h + 1) & (w->cap - 1);
    w->e[h] = x;
    w->count++;
}

/* Take out the entry at x (a pointer into w->e). */
static void win_del(grovep_winmap_t *w, grovep_aggwin_t *x)
{
    size_t mask = w->cap - 1, i = (size_t)(x - w->e);
    for (size_t j = (i + 1) & mask; w->e[j].agg != UINT32_MAX; j = (j + 1) & mask) {
        size_t h = win_home(w, w->e[j].agg, w->e[j].start, w->e[j].end);
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (!stays) {
            w->e[i] = w->e[j];
            i = j;
        }
    }
    w->e[i].agg = UINT32_MAX;
    w->count--;
    if (w->count == 0) {
        free(w->e);
        *w = (grovep_winmap_t){0};
    } else if (w->cap > 64 && w->count * 8 < w->cap) {
        (void)win_rehash(w, w->cap / 2); /* a failed rehash keeps the larger map */
    }
}

/* Take window x (its span) out of aggregate a; the multi-planner goes with
 * the last one (made again at the next use), so that the thousands an
 * allocation burst made do not outlive its jobs, scattered over the heap. */
static void agg_win_remove(grove_graph_t *g, grovep_agg_t *a, grovep_aggwin_t *x)
{
    a->cache_end = -1; /* the multi-planner changes, or the one window goes */
    if (a->mp)
        grove_mplanner_remove(a->mp, x->span);
    win_del(&g->aggwin, x);
    if (--a->nwin == 0) {
        grove_mplanner_destroy(a->mp);
        a->mp = NULL;
    }
}

/* Does a keep its one window itself (no multi-planner)? */
static inline bool agg_solo(const grovep_agg_t *a)
{
    return !a->mp && a->nwin == 1;
}

/* Does a's one window meet [start, end) (end already within the
 * planners' horizon)? */
static inline bool solo_meets(const grovep_agg_t *a, int64_t start, int64_t end)
{
    return a->cache_start < end && start < grovep_plan_end(a->cache_end);
}

/* The units of a's tracked low types its one window holds (out[nlow]). */
static void solo_held(const grove_graph_t *g, const grovep_agg_t *a, int64_t *out)
{
    for (size_t i = 0; i < g->nlow; i++)
        out[i] = ((a->mask & (1u << i)) ? grovep_agg_total(g, a)[i] : 0) - grovep_agg_cache(g, a)[i];
}

/* A second window comes to a, which kept its first itself: a
 * multi-planner counts them from now on, the first made a span of it.
 * 0, or -1 (ENOMEM) with a as it was. */
static int solo_to_mp(grove_graph_t *g, grovep_agg_t *a)
{
    grovep_aggwin_t *x = win_find(&g->aggwin, (uint32_t)(a - g->aggs), a->cache_start,
                                  a->cache_end);
    int64_t held[GROVEP_MAX_LOW];
    solo_held(g, a, held);
    grove_mplanner_t *mp = agg_mp(g, a);
    int64_t id = !x || !mp ? -1
                           : grove_mplanner_add(mp, a->cache_start,
                                                span_of(a->cache_start, grovep_plan_end(a->cache_end)),
                                                held);
    if (id < 0) {
        grove_mplanner_destroy(a->mp);
        a->mp = NULL;
        errno = ENOMEM;
        return -1;
    }
    x->span = id;
    a->cache_end = -1; /* a cache of mp's answers now */
    return 0;
}

bool grovep_agg_avail(const grove_graph_t *g, const grovep_agg_t *a, int64_t start,
                      int64_t end, int64_t *out)
{
    if (!a)
        return false;
    if (grovep_excl_any(g, a->v, start, end)) {
        /* held whole in the window: nothing below it is free */
        memset(out, 0, g->nlow * sizeof(*out));
        return true;
    }
    end = grovep_plan_end(end);
    if (a->mp && start < end
        && grove_mplanner_avail_during(a->mp, start, span_of(start, end), out) == 0)
        return true;
    bool used = agg_solo(a) && start < end && solo_meets(a, start, end);
    for (size_t i = 0; i < g->nlow; i++)
        out[i] = used ? grovep_agg_cache(g, a)[i] : (a->mask & (1u << i)) ? grovep_agg_total(g, a)[i] : 0;
    return true;
}

bool grovep_agg_fits(const grove_graph_t *g, const grovep_agg_t *a, int64_t start, int64_t end,
                     const int64_t *need, bool unheld)
{
    int64_t c[GROVEP_MAX_LOW];
    bool any = false;
    const int64_t *total = grovep_agg_total(g, a);
    size_t nl = g->nlow;
    for (size_t i = 0; i < nl; i++) {
        c[i] = (a->mask & (1u << i)) ? need[i] : 0;
        if (c[i] > total[i])
            return false;
        any |= c[i] > 0;
    }
    if (!any)
        return true;
    if (!unheld && grovep_excl_any(g, a->v, start, end))
        return false; /* held whole in the window */
    end = grovep_plan_end(end);
    if (start >= end)
        return true;
    if (!a->mp) {
        if (!agg_solo(a) || !solo_meets(a, start, end))
            return true; /* nothing held then */
        const int64_t *free_now = total + nl;
        for (size_t i = 0; i < nl; i++)
            if (c[i] > free_now[i])
                return false;
        return true;
    }
    /* the aggregate is a cache already: keeping the last window's answer
     * in it is logically const */
    grovep_agg_t *m = (grovep_agg_t *)(uintptr_t)a;
    if (m->cache_start != start || m->cache_end != end) {
        if (grove_mplanner_avail_during(m->mp, start, span_of(start, end), grovep_agg_cache(g, m))
            < 0)
            return true; /* an error only prunes less */
        m->cache_start = start;
        m->cache_end = end;
    }
    const int64_t *free_now = total + nl;
    for (size_t i = 0; i < nl; i++)
        if (c[i] > free_now[i])
            return false;
    return true;
}

int64_t grovep_agg_fits_from(const grove_graph_t *g, const grovep_agg_t *a, const int64_t *need,
                             int64_t d, int64_t t0)
{
    if (!a->mp || d <= 0 || t0 < 0 || d > GROVE_PLANNER_TIME_MAX
        || t0 > GROVE_PLANNER_TIME_MAX - d)
        return t0;
    int64_t c[GROVEP_MAX_LOW];
    bool any = false;
    for (size_t i = 0; i < g->nlow; i++) {
        c[i] = (a->mask & (1u << i)) ? need[i] : 0;
        any |= c[i] > 0;
    }
    if (!any)
        return t0;
    /* before t, some type lacks room in every window of length d that the
     * planner holds whole: grovep_agg_fits, which asks the same planner
     * over the same window (and whether the vertex is held whole, which
     * only refuses more), refuses each */
    int64_t t = grove_mplanner_earliest(a->mp, c, d, t0);
    if (t >= t0)
        return t;
    return errno == EBUSY || errno == ENODEV ? -1 : t0;
}

/* Units of each low type in the subtree of v (v included). */
static void subtree_units(const grove_graph_t *g, grove_vid_t v, int64_t *out)
{
    memset(out, 0, g->nlow * sizeof(*out));
    const grovep_agg_t *a = grovep_agg_of(g, v);
    if (a) {
        memcpy(out, grovep_agg_total(g, a), g->nlow * sizeof(*out));
        return;
    }
    /* a small subtree (no aggregate kept): walk it with an explicit stack */
    grove_vid_t stackbuf[256];
    grove_vid_t *stack = stackbuf;
    size_t n = 0, cap = 256;
    stack[n++] = v;
    int sub = g->containment;
    while (n) {
        grove_vid_t w = stack[--n];
        for (size_t i = 0; i < g->nlow; i++)
            if (g->v[w].type == g->agg_low[i])
                out[i] = sat_add(out[i], grovep_vertex_size(g, w));
        for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out) {
            if (g->e[e].sub != sub || (g->e[e].flags & GROVEP_E_UP)
                || g->parent[g->e[e].dst] != w)
                continue;
            if (grovep_vstack_room(&stack, &cap, n, stackbuf) < 0)
                goto out; /* undercount: aggregates only prune, never decide */
            stack[n++] = g->e[e].dst;
        }
    }
out:
    if (stack != stackbuf)
        free(stack);
}

/* What record r of v takes from the low types below (and at) v. */
static bool contribution(const grove_graph_t *g, grove_vid_t v, const grovep_rec_t *r,
                         int64_t *out)
{
    memset(out, 0, g->nlow * sizeof(*out));
    if (r->kind != GROVE_RECORD_ALLOC)
        return false;
    if (r->excl) {
        subtree_units(g, v, out);
    } else {
        for (size_t i = 0; i < g->nlow; i++)
            if (g->v[v].type == g->agg_low[i])
                out[i] = r->amount;
    }
    for (size_t i = 0; i < g->nlow; i++)
        if (out[i])
            return true;
    return false;
}

/* Add (sign 1) or take away (sign -1) c, what records over [start, end)
 * take below a, in the span of that window.  0 or -1 (the aggregate then
 * counts less than is held, which only prunes less; the caller marks it
 * for a rebuild). */
static int adjust_win(grove_graph_t *g, grovep_agg_t *a, int64_t start, int64_t end,
                      const int64_t *c, int sign)
{
    int64_t d[GROVEP_MAX_LOW] = {0};
    bool any = false;
    for (size_t i = 0; i < g->nlow; i++) {
        if (a->mask & (1u << i))
            d[i] = c[i];
        any |= d[i] > 0;
    }
    if (!any || start >= grovep_plan_end(end))
        return 0;
    uint32_t ai = (uint32_t)(a - g->aggs);
    int64_t *total = grovep_agg_total(g, a), *cache = total + g->nlow;
    grovep_aggwin_t *x = win_find(&g->aggwin, ai, start, end);
    if (sign < 0) {
        int64_t held[GROVEP_MAX_LOW] = {0};
        if (!x)
            return 0;
        if (!a->mp)
            solo_held(g, a, held); /* x is its one window */
        else if (grove_mplanner_span(a->mp, x->span, NULL, NULL, held) < 0)
            return 0;
        bool left = false;
        for (size_t i = 0; i < g->nlow; i++) {
            if (d[i] > held[i])
                d[i] = held[i]; /* never below nothing */
            left |= held[i] > d[i];
        }
        if (!left) {
            agg_win_remove(g, a, x);
        } else if (!a->mp) {
            for (size_t i = 0; i < g->nlow; i++)
                cache[i] += d[i];
        } else {
            a->cache_end = -1; /* the multi-planner changes */
            grove_mplanner_reduce(a->mp, x->span, d, NULL);
        }
        return 0;
    }
    if (!a->mp && (a->nwin == 0 || x)) {
        /* the first window, or more over it: kept in the aggregate (what
         * the multi-planner would refuse, it refuses: more than is free) */
        int64_t base[GROVEP_MAX_LOW];
        for (size_t i = 0; i < g->nlow; i++) {
            base[i] = x ? cache[i] : (a->mask & (1u << i)) ? total[i] : 0;
            if (d[i] > base[i]) {
                errno = ERANGE;
                return -1;
            }
        }
        if (!x) {
            if (win_reserve(&g->aggwin) < 0)
                return -1;
            win_put(&g->aggwin, (grovep_aggwin_t){ai, start, end, 0});
            a->nwin = 1;
            a->cache_start = start;
            a->cache_end = end;
        }
        for (size_t i = 0; i < g->nlow; i++)
            cache[i] = base[i] - d[i];
        return 0;
    }
    if (!a->mp && solo_to_mp(g, a) < 0)
        return -1;
    a->cache_end = -1; /* the multi-planner changes */
    grove_mplanner_t *mp = agg_mp(g, a);
    if (!mp)
        return -1;
    if (x)
        return grove_mplanner_grow(mp, x->span, d);
    /* a new window: room first, so that a span is never unlisted */
    if (win_reserve(&g->aggwin) < 0)
        return -1;
    int64_t id = grove_mplanner_add(mp, start, span_of(start, grovep_plan_end(end)), d);
    if (id < 0)
        return -1; /* should not happen: the records never over-allocate */
    win_put(&g->aggwin, (grovep_aggwin_t){ai, start, end, id});
    a->nwin++;
    return 0;
}

static void agg_apply(grove_graph_t *g, grove_vid_t v, uint32_t ri, int sign)
{
    grovep_rec_t *r = &g->recs[ri];
    int64_t c[GROVEP_MAX_LOW];
    if (!g->naggs || !contribution(g, v, r, c))
        return;
    int64_t start = r->start, end = r->end;
    /* an exclusive record on v itself is not a span of v's own aggregate:
     * queries ask v's records first (see grovep_agg_avail), which saves a
     * multi-planner update per exclusively held node */
    for (grove_vid_t k = v, a = g->parent[v]; a != GROVEP_NONE; k = a, a = g->parent[a]) {
        grovep_agg_t *ag = grovep_agg_at(g, a);
        if (ag && adjust_win(g, ag, start, end, c, sign) < 0)
            g->agg_dirty = true; /* rebuilt from the records at the next use */
        /* the block of a's children k lies in (v's own record included:
         * the block is below a) */
        uint32_t bi = g->naggs > g->nvaggs ? grovep_sparse_get(&g->blk_of, k) : UINT32_MAX;
        if (bi != UINT32_MAX && adjust_win(g, &g->aggs[bi], start, end, c, sign) < 0)
            g->agg_dirty = true;
    }
}

static int pool_add(grove_graph_t *g, grove_vid_t v, uint32_t ri);

int grovep_pool_add(grove_graph_t *g, grove_vid_t v, uint32_t ri)
{
    if (pool_add(g, v, ri) < 0)
        return -1;
    grovep_busy_change(g, v, ri, 1);
    return 0;
}

static int pool_add(grove_graph_t *g, grove_vid_t v, uint32_t ri)
{
    grovep_rec_t *r = &g->recs[ri];
    int64_t end = grovep_plan_end(r->end);
    r->pspan = 0;
    if (r->start >= end)
        return 0; /* an empty window holds nothing */
    if (rec_inst_add(g, r) < 0)
        return -1;
    grove_planner_t *p = pool_planner(g, v);
    uint32_t solo = GROVEP_NONE;
    if (!p) {
        solo = solo_rec(g, v);
        if (solo == GROVEP_NONE) {
            g->recs[ri].pspan = SOLO_SPAN;
            return 0;
        }
        /* a second record: from now on a planner counts them */
        if (!(p = pool_planner_make(g, v)) || solo_to_planner(g, p, solo) < 0)
            goto fail;
    }
    int64_t id = grove_planner_add(p, r->start, span_of(r->start, end), r->amount);
    if (id < 0)
        goto fail;
    g->recs[ri].pspan = id;
    return 0;
fail:
    if (solo != GROVEP_NONE) {
        /* back as it was: the other record alone, with no planner */
        if (p && g->recs[solo].pspan > 0)
            grove_planner_remove(p, g->recs[solo].pspan);
        g->recs[solo].pspan = SOLO_SPAN;
        if (p)
            pool_planner_drop(g, v);
    }
    rec_inst_del(g, r);
    return -1;
}

void grovep_pool_remove(grove_graph_t *g, grove_vid_t v, uint32_t ri)
{
    grovep_busy_change(g, v, ri, -1);
    grovep_rec_t *r = &g->recs[ri];
    grove_planner_t *p = pool_planner(g, v);
    if (r->pspan == SOLO_SPAN || (p && r->pspan > 0)) {
        if (r->pspan > 0)
            grove_planner_remove(p, r->pspan);
        rec_inst_del(g, r);
    }
    r->pspan = 0;
    if (!p || grove_planner_span_count(p) > 1)
        return;
    /* one record left (or none): it is counted alone again */
    for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = g->recs[i].next) {
        if (g->recs[i].pspan > 0) {
            grove_planner_remove(p, g->recs[i].pspan);
            g->recs[i].pspan = SOLO_SPAN;
        }
    }
    pool_planner_drop(g, v);
}

/* Add (sign 1) or take away (sign -1) what n records of one window take
 * (vs[k] holds recs[k]; GROVEP_NONE skipped), one span update per
 * aggregate above them, with sums in scratch arrays made by the refresh
 * and left zeroed after each batch.  0 or -1 (then marked dirty). */
static int agg_batch(grove_graph_t *g, const grove_vid_t *vs, const uint32_t *recs, size_t n,
                     int sign)
{
    int64_t *sum = g->agg_sum;
    uint32_t *touched = g->agg_touch;
    uint8_t *seen = g->agg_seen;
    if (!sum || !touched || !seen) {
        g->agg_dirty = true; /* rebuilt at the next use */
        errno = ENOMEM;
        return -1;
    }
    size_t nt = 0;
    const grovep_rec_t *any = NULL;
    for (size_t k = 0; k < n; k++) {
        grove_vid_t v = vs[k];
        if (recs[k] == GROVEP_NONE)
            continue;
        grovep_rec_t *r = &g->recs[recs[k]];
        int64_t c[GROVEP_MAX_LOW];
        if (!contribution(g, v, r, c))
            continue;
        any = r;
        bool blocks = g->naggs > g->nvaggs;
        for (grove_vid_t u = v, a = g->parent[v]; a != GROVEP_NONE; u = a, a = g->parent[a]) {
            /* a's aggregate, and that of the block of a's children u lies in */
            uint32_t pair[2] = {grovep_sparse_get(&g->agg_of, a),
                                blocks ? grovep_sparse_get(&g->blk_of, u) : UINT32_MAX};
            for (int j = 0; j < 2; j++) {
                uint32_t ai = pair[j];
                if (ai == UINT32_MAX)
                    continue;
                if (!seen[ai]) {
                    seen[ai] = 1;
                    touched[nt++] = ai;
                }
                for (size_t i = 0; i < g->nlow; i++)
                    sum[ai * g->nlow + i] = sat_add(sum[ai * g->nlow + i], c[i]);
            }
        }
    }
    int rc = 0;
    for (size_t k = 0; k < nt; k++) {
        uint32_t ai = touched[k];
        if (adjust_win(g, &g->aggs[ai], any->start, any->end, &sum[ai * g->nlow], sign) < 0)
            rc = -1;
        memset(&sum[ai * g->nlow], 0, g->nlow * sizeof(*sum));
        seen[ai] = 0;
    }
    if (rc < 0)
        g->agg_dirty = true;
    return rc;
}

int grovep_agg_add_job(grove_graph_t *g, const grove_vid_t *vs, const uint32_t *recs, size_t n)
{
    if (g->agg_dirty)
        return grovep_agg_refresh(g); /* rebuilt from every record, these included */
    if (!g->naggs || n == 0)
        return 0;
    return agg_batch(g, vs, recs, n, 1);
}

void grovep_agg_drop_job(grove_graph_t *g, const grove_vid_t *vs, const uint32_t *recs,
                         size_t n)
{
    if (!g->naggs || g->agg_dirty || n == 0)
        return; /* a dirty aggregate is rebuilt without them */
    agg_batch(g, vs, recs, n, -1);
}

int grovep_rec_added(grove_graph_t *g, grove_vid_t v, uint32_t ri)
{
    grovep_rec_t *r = &g->recs[ri];
    grovep_chg_vertex(g, v);
    if (r->kind != GROVE_RECORD_ALLOC)
        return 0;
    if (grovep_pool_add(g, v, ri) < 0)
        return -1;
    /* a dirty aggregate is rebuilt from every record, this one included */
    if (g->agg_dirty)
        grovep_agg_refresh(g);
    else
        agg_apply(g, v, ri, 1);
    return 0;
}

void grovep_rec_removing(grove_graph_t *g, grove_vid_t v, uint32_t ri)
{
    grovep_rec_t *r = &g->recs[ri];
    if (r->kind == GROVE_RECORD_SHARED) {
        /* an annotation counts no units (the records below it do), but
         * the node it is on may fall idle */
        grovep_busy_change(g, v, ri, -1);
        return;
    }
    if (g->agg_dirty)
        grovep_agg_refresh(g); /* if this fails the spans are rebuilt later */
    agg_apply(g, v, ri, -1);
    grovep_pool_remove(g, v, ri);
}

/* Add w's own size to out[i] when its type is the low type i. */
static void add_own_units(const grove_graph_t *g, grove_vid_t w, int64_t *out)
{
    for (size_t i = 0; i < g->nlow; i++)
        if (g->v[w].type == g->agg_low[i])
            out[i] = sat_add(out[i], grovep_vertex_size(g, w));
}

/* Append the aggregate of w (tracked low types mask, totals wt of nl
 * low types) to g->aggs, its totals and an empty cache to g->aggv.  0,
 * or -1 (ENOMEM) with nothing appended. */
static int agg_append(grove_graph_t *g, grove_vid_t w, uint8_t mask, const int64_t *wt, size_t nl)
{
    if (g->naggs == g->aggcap) {
        size_t cap = g->aggcap ? g->aggcap * 2 : 64;
        grovep_agg_t *na = realloc(g->aggs, cap * sizeof(*na));
        if (!na)
            return -1;
        g->aggs = na;
        g->aggcap = cap;
    }
    /* by its own room: a specification of more low types reuses the
     * arrays of one of fewer */
    if (grovep_grow((void **)&g->aggv, &g->aggvcap, (g->naggs + 1) * 2 * nl,
                    sizeof(*g->aggv)) < 0)
        return -1;
    if ((g->naggs + 1) * 2 * nl > UINT32_MAX) { /* past a's 32-bit offset */
        errno = ENOMEM;
        return -1;
    }
    grovep_agg_t *a = &g->aggs[g->naggs++];
    memset(a, 0, sizeof(*a));
    a->v = w;
    a->at = (uint32_t)((g->naggs - 1) * 2 * nl);
    a->cache_end = -1;
    a->mask = mask;
    memcpy(grovep_agg_total(g, a), wt, nl * sizeof(int64_t));
    memset(grovep_agg_cache(g, a), 0, nl * sizeof(int64_t));
    return 0;
}

/* The blocks of the wide vertices' children (see blk_of in graph_private.h):
 * an aggregate appended for each agg_blk children in turn of a vertex with
 * an aggregate and GROVEP_BLK_WIDE blocks of children or more, tracking what the
 * vertex tracks, its totals the children's (tot at slot[c] for a child c
 * with children, else its own size), and blk_of mapping each such child to
 * its block's aggregate.  After the vertices' aggregates; 0, or -1 (ENOMEM). */
static int blocks_build(grove_graph_t *g, const uint32_t *slot, const int64_t *tot)
{
    if (!g->agg_blk)
        return 0; /* blocks=0 */
    int sub = g->containment;
    size_t nl = g->nlow, nk = 0, kcap = 0, vcap = 0;
    grove_vid_t *kids = NULL;
    uint32_t *vals = NULL;
    int rc = 0;
    for (size_t i = 0; i < g->nvaggs && rc == 0; i++) {
        grove_vid_t w = g->aggs[i].v;
        uint8_t mask = g->aggs[i].mask;
        size_t first = nk;
        for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out) {
            grove_vid_t c = g->e[e].dst;
            if (g->e[e].sub != sub || (g->e[e].flags & GROVEP_E_UP) || g->parent[c] != w)
                continue;
            if (grovep_grow((void **)&kids, &kcap, nk + 1, sizeof(*kids)) < 0
                || grovep_grow((void **)&vals, &vcap, nk + 1, sizeof(*vals)) < 0) {
                rc = -1;
                break;
            }
            kids[nk++] = c;
        }
        if (rc < 0 || nk - first < (size_t)g->agg_blk * GROVEP_BLK_WIDE) {
            nk = first; /* not wide: its children stay out of the map */
            continue;
        }
        for (size_t b = first; b < nk && rc == 0; b += g->agg_blk) {
            int64_t bt[GROVEP_MAX_LOW] = {0};
            size_t end = b + g->agg_blk < nk ? b + g->agg_blk : nk;
            for (size_t k = b; k < end; k++) {
                int64_t own[GROVEP_MAX_LOW] = {0};
                const int64_t *ct = own;
                if (slot[kids[k]] == UINT32_MAX)
                    add_own_units(g, kids[k], own);
                else
                    ct = &tot[(size_t)slot[kids[k]] * nl];
                for (size_t l = 0; l < nl; l++)
                    bt[l] = sat_add(bt[l], ct[l]);
                vals[k] = (uint32_t)g->naggs;
            }
            if (g->naggs >= UINT32_MAX || agg_append(g, w, mask, bt, nl) < 0)
                rc = -1;
        }
    }
    if (rc == 0 && nk
        && grovep_sparse_build(&g->blk_of, g->nv, kids, sizeof(*kids), vals, nk) < 0)
        rc = -1;
    free(kids);
    free(vals);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

/* Rebuild: totals by one post-order pass, then spans from every record. */
int grovep_agg_refresh(grove_graph_t *g)
{
    drop_aggs(g);
    g->agg_dirty = false;
    if (g->nv == 0 || g->containment == 0xff)
        return 0;
    int sub = g->containment;
    /* Totals tot[slot[v] * nlow + i], computed children-first.  Only
     * vertices with children get a slot (49k of 852k at 16,384 nodes): a
     * leaf adds its size straight to its parent's, so the transient
     * arrays cost 8 bytes a vertex, not 8 per low type and vertex (24 MB
     * at 16,384 nodes, above what the graph itself needs once loaded). */
    size_t nl = g->nlow;
    grove_vid_t *order = malloc(g->nv * sizeof(*order));
    uint32_t *slot = malloc(g->nv * sizeof(*slot));
    int64_t *tot = NULL;
    if (!order || !slot)
        goto nomem;
    /* pre-order of every containment tree; reversed it is children-first */
    size_t n = 0, head = 0, nslots = 0;
    for (grove_vid_t v = 0; v < g->nv; v++)
        if (grovep_alive(g, v) && g->parent[v] == GROVEP_NONE)
            order[n++] = v;
    /* breadth-first is enough: a vertex comes after its parent */
    while (head < n) {
        grove_vid_t w = order[head++];
        slot[w] = UINT32_MAX;
        for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out)
            if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP)
                && g->parent[g->e[e].dst] == w && n < g->nv) {
                order[n++] = g->e[e].dst;
                if (slot[w] == UINT32_MAX)
                    slot[w] = (uint32_t)nslots++;
            }
    }
    if (!(tot = calloc(nslots ? nslots * nl : 1, sizeof(*tot))))
        goto nomem;
    for (size_t k = n; k-- > 0;) {
        grove_vid_t w = order[k];
        int64_t own[GROVEP_MAX_LOW] = {0};
        int64_t *wt = slot[w] == UINT32_MAX ? own : &tot[(size_t)slot[w] * nl];
        add_own_units(g, w, wt);
        grove_vid_t p = g->parent[w];
        if (p != GROVEP_NONE && slot[p] != UINT32_MAX)
            for (size_t i = 0; i < nl; i++)
                tot[(size_t)slot[p] * nl + i] = sat_add(tot[(size_t)slot[p] * nl + i], wt[i]);
    }
    int rc = 0;
    for (size_t k = 0; k < n; k++) {
        grove_vid_t w = order[k];
        uint8_t mask = tracked(g, g->v[w].type);
        bool leaf = true;
        for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE && leaf; e = g->e[e].next_out)
            if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP))
                leaf = false;
        if (leaf || !mask)
            continue;
        /* with no slot (no child has it as parent): its own size only */
        int64_t own[GROVEP_MAX_LOW] = {0};
        if (slot[w] == UINT32_MAX)
            add_own_units(g, w, own);
        const int64_t *wt = slot[w] == UINT32_MAX ? own : &tot[(size_t)slot[w] * nl];
        bool any = false;
        for (size_t i = 0; i < nl; i++)
            if (mask & (1u << i))
                any |= wt[i] > 0;
        if (!any)
            continue;
        if (agg_append(g, w, mask, wt, nl) < 0) {
            rc = -1;
            break;
        }
    }
    g->nvaggs = g->naggs;
    if (rc == 0 && g->naggs
        && grovep_sparse_build(&g->agg_of, g->nv, g->aggs, sizeof(*g->aggs), NULL, g->naggs) < 0)
        rc = -1;
    if (rc == 0)
        rc = blocks_build(g, slot, tot);
    free(tot);
    free(slot);
    free(order);
    if (rc == 0 && g->naggs) {
        g->agg_sum = calloc(g->naggs * nl, sizeof(*g->agg_sum));
        g->agg_touch = malloc(g->naggs * sizeof(*g->agg_touch));
        g->agg_seen = calloc(g->naggs, 1);
        if (!g->agg_sum || !g->agg_touch || !g->agg_seen)
            rc = -1;
    }
    if (rc < 0) {
        drop_aggs(g);
        goto fail;
    }
    /* spans from the records */
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v))
            continue;
        for (uint32_t r = grovep_recs_head(g, v); r != GROVEP_NONE; r = g->recs[r].next)
            if (g->recs[r].kind == GROVE_RECORD_ALLOC)
                agg_apply(g, v, r, 1);
    }
    if (grovep_busy_build(g) < 0) {
        drop_aggs(g);
        goto fail;
    }
    return 0;
nomem:
    free(order);
    free(slot);
fail:
    g->agg_dirty = true;
    errno = ENOMEM;
    return -1;
}

int grovep_agg_respan(grove_graph_t *g)
{
    if (g->agg_dirty || !g->naggs)
        return g->agg_dirty ? grovep_agg_refresh(g) : 0;
    /* what the records put in: every window, multi-planner and tally */
    for (size_t i = 0; i < g->naggs; i++) {
        grovep_agg_t *a = &g->aggs[i];
        grove_mplanner_destroy(a->mp);
        a->mp = NULL;
        a->nwin = 0;
        a->cache_start = 0;
        a->cache_end = -1;
        memset(grovep_agg_cache(g, a), 0, g->nlow * sizeof(int64_t));
        grovep_busy_free(a);
    }
    free(g->aggwin.e);
    g->aggwin = (grovep_winmap_t){0};
    grovep_sparse_free(&g->busy_of);
    free(g->busy_nw);
    g->busy_nw = NULL;
    /* put in again from the records, as grovep_agg_refresh does */
    for (grove_vid_t v = 0; v < g->nv && !g->agg_dirty; v++) {
        if (!grovep_alive(g, v))
            continue;
        for (uint32_t r = grovep_recs_head(g, v); r != GROVEP_NONE; r = g->recs[r].next)
            if (g->recs[r].kind == GROVE_RECORD_ALLOC)
                agg_apply(g, v, r, 1);
    }
    if (g->agg_dirty || grovep_busy_build(g) < 0) {
        g->agg_dirty = true; /* rebuilt whole at the next use */
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Pool planners from the records (after a clone that copied records). */
int grovep_planners_rebuild(grove_graph_t *g)
{
    for (size_t i = 0; i < g->nplanners + g->nspare; i++)
        grove_planner_destroy(g->planners[i]);
    g->nplanners = g->nspare = 0;
    grovep_dense_free(&g->planner_of);
    g->nrec_ends = g->nrec_starts = 0;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v))
            continue;
        /* what was copied refers to the source's planners: forget it first */
        for (uint32_t r = grovep_recs_head(g, v); r != GROVEP_NONE; r = g->recs[r].next)
            g->recs[r].pspan = 0;
        for (uint32_t r = grovep_recs_head(g, v); r != GROVEP_NONE; r = g->recs[r].next)
            if (g->recs[r].kind == GROVE_RECORD_ALLOC && grovep_pool_add(g, v, r) < 0)
                return -1;
    }
    g->agg_dirty = true;
    return 0;
}

/* What grove_vertex_aggregate_avail answers, its arguments checked. */
static inline int64_t avail_of(const grove_graph_t *g, grove_vid_t v, grove_sym_t t,
                               int64_t start, int64_t end)
{
    if (g->agg_dirty) {
        /* a cache: refreshing it does not change what the graph holds */
        if (grovep_agg_refresh((grove_graph_t *)(uintptr_t)g) < 0)
            return -1;
    }
    size_t i;
    for (i = 0; i < g->nlow && g->agg_low[i] != t; i++)
        ;
    const grovep_agg_t *a = grovep_agg_of(g, v);
    if (t == GROVE_SYM_NONE || i == g->nlow || !a || !(a->mask & (1u << i))) {
        errno = ENOENT;
        return -1;
    }
    int64_t out[GROVEP_MAX_LOW];
    grovep_agg_avail(g, a, start, end, out);
    return out[i];
}

int64_t grove_vertex_aggregate_avail(const grove_graph_t *g, grove_vid_t v, const char *type,
                                     int64_t start, int64_t end)
{
    if (!grovep_alive(g, v) || !type || end <= start) {
        errno = EINVAL;
        return -1;
    }
    return avail_of(g, v, grove_intern_lookup(g->strings, type), start, end);
}

int grove_vertex_aggregate_avail_syms(const grove_graph_t *g, grove_vid_t v,
                                      const grove_sym_t *types, size_t n, int64_t start,
                                      int64_t end, int64_t *out)
{
    if (!grovep_alive(g, v) || end <= start) {
        errno = EINVAL;
        return -1;
    }
    if (g->agg_dirty && grovep_agg_refresh((grove_graph_t *)(uintptr_t)g) < 0)
        return -1;
    const grovep_agg_t *a = grovep_agg_of(g, v);
    int64_t all[GROVEP_MAX_LOW];
    if (a)
        grovep_agg_avail(g, a, start, end, all);
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < g->nlow && g->agg_low[i] != types[k])
            i++;
        out[k] = a && types[k] != GROVE_SYM_NONE && i < g->nlow && (a->mask & (1u << i))
                     ? all[i]
                     : -1;
    }
    return 0;
}

int64_t grove_vertex_aggregate_avail_sym(const grove_graph_t *g, grove_vid_t v, grove_sym_t t,
                                         int64_t start, int64_t end)
{
    if (!grovep_alive(g, v) || end <= start) {
        errno = EINVAL;
        return -1;
    }
    return avail_of(g, v, t, start, end);
}
