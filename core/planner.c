/* planner.c: availability of one quantity over integer time.
 *
 * Problem.  A pool of `total` units is used by spans (start, duration,
 * amount).  The matcher asks, for many pools and many candidate times: is
 * `amount` free throughout [t, t + d)?  how much is free at t, or at least
 * during [t, t + d)?  what is the earliest t >= t0 at which `amount` is free
 * for d, and the next candidate after it?  Spans come and go as jobs are
 * allocated, reserved, shrunk and freed.  Expected workload: from a handful
 * to ~10^5 spans per planner (the root aggregates), queries outnumbering
 * updates by 10 or more.
 *
 * Structure.  The usage U(t) is a step function.  We keep its difference
 * array: one entry per time point p where usage changes, with delta =
 * U(p) - U(p - 1) != 0, in a B+-tree ordered by time (GROVEP_TL_F = 16
 * entries per node, at least half full, all leaves at one depth, so the
 * height is O(log n)).  Then:
 *
 *  - A span is +amount at its start and -amount at its end: two point
 *    updates, each one root-to-leaf path, however many other points its
 *    window covers.  (Storing U itself per point would cost O(points in the
 *    window) per update, or lazy propagation; differences avoid both.)
 *  - Each entry of an inner node carries the summary of its child: the sum
 *    of the deltas below it, and the max and min over its points k of the
 *    prefix sum "deltas below the child at points <= k".  A summary is a
 *    function of the child's entries only, so a split, merge or borrow
 *    recomputes the two or three entries it touches; every update stays
 *    O(F log_F n).
 *  - U(t) is the sum of the deltas at points <= t: one descent adding the
 *    sums of the entries left of the path.  Free = total - used, so changing
 *    the total touches nothing and min free is total - max used.
 *  - max U over [t, t + d) is U(t) with the max prefix over the points in
 *    (t, t + d): entries wholly inside are taken from their summary, only
 *    the two children straddling t and t + d are entered: O(F log_F n).
 *  - "the first point after x (and before a bound) where U > L", or
 *    "U <= L": a cursor keeps the root path of x; it scans forward in the
 *    leaf, climbs only as high as the first entry whose summary (max or
 *    min, offset by the usage before it) admits a match, and descends into
 *    it, never into a subtree that starts at or after the bound.  Cost
 *    O(F log_F n), and O(F) when the answer is nearby.
 *
 * Why a B+-tree rather than a binary tree: the queries are descents, and at
 * 10^5 spans a binary tree is ~18 levels of nodes scattered over memory, of
 * which the lower 5-6 miss the cache.  With 16 entries per node the inner
 * levels (~1/12 of the nodes, under 1 MB at 10^5 spans) stay cached and a
 * descent misses about once, at its leaf.  A node is whole cache lines.
 *
 * Earliest fit.  With L = total - amount, the answer is the earliest t >= t0
 * with U <= L on all of [t, t + d).  From t: if U(t) <= L and the cursor
 * finds no point with U > L before t + d, t is the answer; else the cursor
 * moves on to the next point with U <= L, which becomes t.  Each round
 * jumps over a whole busy run and a whole free gap too short for d, never
 * over points one at a time; the cursor makes a round O(F) when the next
 * gap is near and O(F log_F n) at worst.  So earliest is O((1 + g) log n)
 * where g is the number of free gaps shorter than d (for this amount)
 * between t0 and the answer.  g is 0 or small in most schedules (see
 * bench/RESULTS.md), but a schedule packed with short gaps makes it O(n):
 * telling, per subtree, whether it holds a gap of length >= d at level L
 * for every (L, d) at once would need per-threshold gap lengths in every
 * summary, so we accept the per-gap bound and say so.
 *
 * next_fit.  Between two points U is constant, so a time that did not fit
 * can only start to fit at a point: after `after`, the next candidate is the
 * smallest point t > after at which the request fits.  It is earliest(after
 * + 1) when that lands on a point (a fitting start preceded by a non-fitting
 * one always is), else earliest(the next point).
 *
 * Memory.  Leaves and inner nodes live in two pools (arrays with free
 * lists), addressed by index: a copy is a memcpy of each.  A point lives
 * while some span (with an amount there) starts or ends at it: each leaf
 * entry counts them.  So a span's endpoints are points for as long as the
 * span lives, even where deltas cancel (one span ending where another of
 * the same amount starts): removing or reducing a span never creates a
 * point and never allocates, and add reserves room for the points there
 * are plus two before touching anything (an add fails cleanly with ENOMEM;
 * the pools grow by doubling).  Reserving by points rather than by spans
 * matters: 100,000 jobs started together at the root's aggregates are two
 * points, not 200,000.  Points whose deltas cancel are not changes of
 * usage: has_point and next_point skip them, and no search can stop at
 * one (usage there equals usage just before).  A planner with at most 16
 * points is one leaf.  Span records sit in a dense array with an
 * open-addressing hash from id to index.
 *
 * This file must not hold the several-type planner (mplanner.c) or any
 * knowledge of graphs or jobs: both build on the timeline and span table
 * kept here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "planner_private.h"
#include "util.h"

/* ---- timeline: a B+-tree of time points --------------------------------- */

#define F GROVEP_TL_F
#define FMIN (GROVEP_TL_F / 2)
#define TL_MAXH 24 /* a tree of < 2^32 points with half-full nodes is shallower */
/* Slot i of a pool is element i - 1 of its array: index 0 means "none"
 * and takes no room (a one-span planner is one leaf, not two). */
#define LF(i) (tl->leaf[(i) - 1])
#define IN(i) (tl->inner[(i) - 1])

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

void grovep_tl_init(grovep_timeline_t *tl)
{
    memset(tl, 0, sizeof(*tl));
}

void grovep_tl_fini(grovep_timeline_t *tl)
{
    if (tl) {
        free(tl->leaf);
        free(tl->inner);
        memset(tl, 0, sizeof(*tl));
    }
}

/* A 64-byte aligned copy of the first n elements of src (size bytes each)
 * in room for cap; NULL on ENOMEM. */
static void *pool_dup(const void *src, size_t size, size_t n, size_t cap)
{
    void *p = aligned_alloc(64, size * cap);
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    if (n)
        memcpy(p, src, size * n);
    return p;
}

int grovep_tl_copy(grovep_timeline_t *dst, const grovep_timeline_t *src)
{
    *dst = *src;
    dst->leaf = NULL;
    dst->inner = NULL;
    if (src->leaf_cap
        && !(dst->leaf = pool_dup(src->leaf, sizeof(*src->leaf), src->leaf_hi - 1,
                                  src->leaf_cap - 1)))
        goto fail;
    if (src->inner_cap
        && !(dst->inner = pool_dup(src->inner, sizeof(*src->inner), src->inner_hi - 1,
                                   src->inner_cap - 1)))
        goto fail;
    return 0;
fail:
    free(dst->leaf);
    grovep_tl_init(dst);
    errno = ENOMEM;
    return -1;
}

/* Grow a pool to hold at least want slots (slot 0 included, which has no
 * element): exactly want the first time (most planners stay small),
 * doubling after that. */
static int pool_grow(void **pool, size_t size, uint32_t *cap, uint32_t *hi, size_t want)
{
    if (want <= *cap)
        return 0;
    size_t c = *cap ? *cap : want;
    while (c < want)
        c *= 2;
    if (c > UINT32_MAX) {
        errno = EOVERFLOW;
        return -1;
    }
    void *p = pool_dup(*pool, size, *cap ? *hi - 1 : 0, c - 1);
    if (!p)
        return -1;
    if (!*cap)
        *hi = 1; /* slot 0 is never handed out */
    free(*pool);
    *pool = p;
    *cap = (uint32_t)c;
    return 0;
}

int grovep_tl_reserve(grovep_timeline_t *tl, size_t npoints)
{
    if (npoints > UINT32_MAX / 2) {
        errno = EOVERFLOW;
        return -1;
    }
    /* Up to F points fit in the root leaf.  Beyond, every leaf but the root
     * holds >= FMIN points and every inner node but the root >= FMIN
     * children, and a tree of height h holds >= 2 FMIN^(h-1) points. */
    size_t leaves = 1, inners = 0;
    if (npoints > F) {
        size_t h = 2, least = 2 * FMIN;
        while (least <= npoints) {
            least *= FMIN;
            h++;
        }
        leaves = npoints / FMIN + 2;
        inners = leaves / (FMIN - 1) + h;
    }
    void *leaf = tl->leaf, *inner = tl->inner;
    int rc = pool_grow(&leaf, sizeof(grovep_tlleaf_t), &tl->leaf_cap, &tl->leaf_hi,
                       leaves + 1);
    tl->leaf = leaf;
    if (rc == 0 && inners)
        rc = pool_grow(&inner, sizeof(grovep_tlinner_t), &tl->inner_cap, &tl->inner_hi,
                       inners + 1);
    tl->inner = inner;
    return rc;
}

int grovep_tl_reserve_span(grovep_timeline_t *tl)
{
    return grovep_tl_reserve(tl, (size_t)tl->count + 2);
}

/* The pools of leaves and of inner nodes are kept alike: slots handed
 * out [1, kind_hi), the freed ones chained from kind_free through .next,
 * with .n -1.  POOL_OPS(kind, NODE), NODE the slot macro (LF or IN),
 * defines kind_new (a freed slot, else the next one, which the caller
 * reserved), kind_free, and for the check kind_slot_ok (x is a slot
 * handed out, with lo to F entries) and kind_pool_ok (the free list is
 * sound and, with the used slots the tree holds, accounts for every slot
 * handed out). */
#define POOL_OPS(kind, NODE)                                                    \
    static uint32_t kind##_new(grovep_timeline_t *tl)                           \
    {                                                                           \
        uint32_t n = tl->kind##_free;                                           \
        if (n)                                                                  \
            tl->kind##_free = NODE(n).next;                                     \
        else                                                                    \
            n = tl->kind##_hi++; /* reserved by the caller */                   \
        NODE(n).n = 0;                                                          \
        NODE(n).next = 0;                                                       \
        return n;                                                               \
    }                                                                           \
                                                                                \
    static void kind##_free(grovep_timeline_t *tl, uint32_t n)                  \
    {                                                                           \
        NODE(n).n = -1;                                                         \
        NODE(n).next = tl->kind##_free;                                         \
        tl->kind##_free = n;                                                    \
    }                                                                           \
                                                                                \
    static int kind##_slot_ok(const grovep_timeline_t *tl, uint32_t x, int lo)  \
    {                                                                           \
        return x != 0 && x < tl->kind##_hi && NODE(x).n >= lo                   \
               && NODE(x).n <= F;                                               \
    }                                                                           \
                                                                                \
    static int kind##_pool_ok(const grovep_timeline_t *tl, uint32_t used)       \
    {                                                                           \
        uint32_t nfree = 0;                                                     \
        for (uint32_t f = tl->kind##_free; f; f = NODE(f).next)                 \
            if (f >= tl->kind##_hi || ++nfree > tl->kind##_hi)                  \
                return 0;                                                       \
        return !tl->kind##_cap || used + nfree + 1 == tl->kind##_hi;            \
    }

POOL_OPS(leaf, LF)
POOL_OPS(inner, IN)

/* Refresh entry i of inner node p from its child (a leaf if leafkids):
 * smallest key, sum, max and min prefix. */
static void entry_pull(grovep_timeline_t *tl, uint32_t p, int i, int leafkids)
{
    grovep_tlinner_t *in = &IN(p);
    uint32_t c = in->child[i];
    int64_t o = 0, mx = INT64_MIN, mn = INT64_MAX;
    if (leafkids) {
        const grovep_tlleaf_t *l = &LF(c);
        for (int j = 0; j < l->n; j++) {
            o += l->delta[j];
            mx = max64(mx, o);
            mn = min64(mn, o);
        }
        in->key[i] = l->key[0];
    } else {
        const grovep_tlinner_t *k = &IN(c);
        for (int j = 0; j < k->n; j++) {
            mx = max64(mx, o + k->mx[j]);
            mn = min64(mn, o + k->mn[j]);
            o += k->sum[j];
        }
        in->key[i] = k->key[0];
    }
    in->sum[i] = o;
    in->mx[i] = mx;
    in->mn[i] = mn;
}

/* Index of the child of inner node in whose range t falls: the last with
 * key <= t, or 0 when t precedes them all. */
static int route(const grovep_tlinner_t *in, int64_t t)
{
    int i = 1;
    while (i < in->n && in->key[i] <= t)
        i++;
    return i - 1;
}

/* Move entries between inner nodes / leaves. */
static void leaf_move(grovep_tlleaf_t *dst, int di, const grovep_tlleaf_t *src, int si, int n)
{
    memmove(&dst->key[di], &src->key[si], sizeof(int64_t) * (size_t)n);
    memmove(&dst->delta[di], &src->delta[si], sizeof(int64_t) * (size_t)n);
    memmove(&dst->ends[di], &src->ends[si], sizeof(uint32_t) * (size_t)n);
}

static void inner_move(grovep_tlinner_t *dst, int di, const grovep_tlinner_t *src, int si, int n)
{
    memmove(&dst->key[di], &src->key[si], sizeof(int64_t) * (size_t)n);
    memmove(&dst->sum[di], &src->sum[si], sizeof(int64_t) * (size_t)n);
    memmove(&dst->mx[di], &src->mx[si], sizeof(int64_t) * (size_t)n);
    memmove(&dst->mn[di], &src->mn[si], sizeof(int64_t) * (size_t)n);
    memmove(&dst->child[di], &src->child[si], sizeof(uint32_t) * (size_t)n);
}

/* fix_underflow's step on siblings l and r (in slot rc), two nodes of
 * one kind, moved by move and freed by release: merge r into l when both
 * fit in one node (merged set to 1), else move one entry from the fuller
 * to the other.  The same for leaves and inner nodes. */
#define REBALANCE(tl, l, r, rc, move, release, merged)                          \
    do {                                                                        \
        if ((l)->n + (r)->n <= F) {                                             \
            move(l, (l)->n, r, 0, (r)->n);                                      \
            (l)->n += (r)->n;                                                   \
            release(tl, rc);                                                    \
            (merged) = 1;                                                       \
        } else if ((l)->n < (r)->n) { /* the right one gives its first */       \
            move(l, (l)->n, r, 0, 1);                                           \
            (l)->n++;                                                           \
            (r)->n--;                                                           \
            move(r, 0, r, 1, (r)->n);                                           \
        } else { /* the left one gives its last */                              \
            move(r, 1, r, 0, (r)->n);                                           \
            (r)->n++;                                                           \
            (l)->n--;                                                           \
            move(r, 0, l, (l)->n, 1);                                           \
        }                                                                       \
    } while (0)

/* Child i of inner node p has fallen below FMIN entries: merge it with a
 * neighbour when both fit in one node, else take one entry from the
 * neighbour (which then has more than FMIN to spare). */
static void fix_underflow(grovep_timeline_t *tl, uint32_t p, int i, int leafkids)
{
    grovep_tlinner_t *in = &IN(p);
    int a = i + 1 < in->n ? i : i - 1; /* the pair is children a, a + 1 */
    uint32_t lc = in->child[a], rc = in->child[a + 1];
    int merged = 0;
    if (leafkids) {
        grovep_tlleaf_t *l = &LF(lc), *r = &LF(rc);
        REBALANCE(tl, l, r, rc, leaf_move, leaf_free, merged);
    } else {
        grovep_tlinner_t *l = &IN(lc), *r = &IN(rc);
        REBALANCE(tl, l, r, rc, inner_move, inner_free, merged);
    }
    if (merged) {
        inner_move(in, a + 1, in, a + 2, in->n - a - 2);
        in->n--;
    } else {
        entry_pull(tl, p, a + 1, leafkids);
    }
    entry_pull(tl, p, a, leafkids);
}

/* Add v at key, and ends to the spans ending there, in the subtree of node
 * (a leaf at depth height - 1).  If the node had to split, *split receives
 * the new right sibling. */
static void apply_rec(grovep_timeline_t *tl, uint32_t node, int depth, int64_t key, int64_t v,
                      int ends, uint32_t *split)
{
    *split = 0;
    if (depth == tl->height - 1) {
        grovep_tlleaf_t *l = &LF(node);
        int j = 0;
        while (j < l->n && l->key[j] < key)
            j++;
        if (j < l->n && l->key[j] == key) {
            l->delta[j] += v;
            l->ends[j] = (uint32_t)((int64_t)l->ends[j] + ends);
            if (l->ends[j] == 0) { /* no span starts or ends here: delta is 0 */
                leaf_move(l, j, l, j + 1, l->n - j - 1);
                l->n--;
                tl->count--;
            }
            return;
        }
        if (l->n == F) { /* split, then insert into the half it belongs to */
            uint32_t rn = leaf_new(tl);
            l = &LF(node);
            grovep_tlleaf_t *r = &LF(rn);
            leaf_move(r, 0, l, FMIN, F - FMIN);
            r->n = F - FMIN;
            l->n = FMIN;
            *split = rn;
            if (j > FMIN) {
                l = r;
                j -= FMIN;
            }
        }
        leaf_move(l, j + 1, l, j, l->n - j);
        l->key[j] = key;
        l->delta[j] = v;
        /* only coming spans reach here: one from tl_add, as many as
         * begin or end here from a tally's batch (grove_tally_apply) */
        l->ends[j] = ends > 1 ? (uint32_t)ends : 1;
        l->n++;
        tl->count++;
        return;
    }
    int leafkids = depth + 1 == tl->height - 1;
    int i = route(&IN(node), key);
    uint32_t csplit;
    apply_rec(tl, IN(node).child[i], depth + 1, key, v, ends, &csplit);
    entry_pull(tl, node, i, leafkids);
    if (csplit) {
        uint32_t target = node;
        int at = i + 1;
        if (IN(node).n == F) {
            uint32_t rn = inner_new(tl);
            inner_move(&IN(rn), 0, &IN(node), FMIN, F - FMIN);
            IN(rn).n = F - FMIN;
            IN(node).n = FMIN;
            *split = rn;
            if (at > FMIN) {
                target = rn;
                at -= FMIN;
            }
        }
        grovep_tlinner_t *in = &IN(target);
        inner_move(in, at + 1, in, at, in->n - at);
        in->child[at] = csplit;
        in->n++;
        entry_pull(tl, target, at, leafkids);
        return;
    }
    int cn = leafkids ? LF(IN(node).child[i]).n : IN(IN(node).child[i]).n;
    if (cn < FMIN)
        fix_underflow(tl, node, i, leafkids);
}

/* Add v to the delta at key and ends to its count of spans, creating or
 * deleting the point. */
static void tl_apply(grovep_timeline_t *tl, int64_t key, int64_t v, int ends)
{
    if (tl->height == 0) {
        uint32_t l = leaf_new(tl);
        LF(l).key[0] = key;
        LF(l).delta[0] = v;
        LF(l).ends[0] = ends > 1 ? (uint32_t)ends : 1;
        LF(l).n = 1;
        tl->root = l;
        tl->height = 1;
        tl->count = 1;
        return;
    }
    uint32_t split;
    apply_rec(tl, tl->root, 0, key, v, ends, &split);
    if (split) {
        uint32_t r = inner_new(tl);
        IN(r).child[0] = tl->root;
        IN(r).child[1] = split;
        IN(r).n = 2;
        tl->root = r;
        tl->height++;
        entry_pull(tl, r, 0, tl->height == 2);
        entry_pull(tl, r, 1, tl->height == 2);
    } else if (tl->height == 1 && LF(tl->root).n == 0) {
        leaf_free(tl, tl->root);
        tl->root = 0;
        tl->height = 0;
    } else if (tl->height > 1 && IN(tl->root).n == 1) {
        uint32_t old = tl->root;
        tl->root = IN(old).child[0];
        tl->height--;
        inner_free(tl, old);
    }
}

void grovep_tl_add(grovep_timeline_t *tl, int64_t s, int64_t e, int64_t v, int ends)
{
    if ((v == 0 && ends == 0) || s >= e)
        return;
    tl_apply(tl, s, v, ends);
    tl_apply(tl, e, -v, ends);
}

int64_t grovep_tl_used_at(const grovep_timeline_t *tl, int64_t t)
{
    int64_t off = 0;
    uint32_t node = tl->root;
    for (int d = 0; d < tl->height - 1; d++) {
        const grovep_tlinner_t *in = &IN(node);
        int i = 0;
        while (i + 1 < in->n && in->key[i + 1] <= t)
            off += in->sum[i++];
        node = in->child[i];
    }
    if (tl->height) {
        const grovep_tlleaf_t *l = &LF(node);
        for (int j = 0; j < l->n && l->key[j] <= t; j++)
            off += l->delta[j];
    }
    return off;
}

/* One descent for the max of usage over [s, e): raise *best to the max of
 * off + prefix over the points k of the subtree with s < k < e, and set
 * *us to U(s), the usage in effect at s, where the walk first passes s
 * (*us_set).  Only the (at most two) children straddling s or e are
 * entered; the others are taken whole from their entry or skipped.  The
 * walk to U(s) is the walk to s's side of the window: asked apart, the
 * descent to s was made twice for every window (the nodes' timelines
 * asked over a window are a fifth of a conservative queue's replanning
 * at 16,384 nodes). */
static int64_t range_max(const grovep_timeline_t *tl, uint32_t node, int depth, int64_t off,
                         int64_t s, int64_t e, int64_t *best, int64_t *us, bool *us_set)
{
    if (depth == tl->height - 1) {
        const grovep_tlleaf_t *l = &LF(node);
        for (int j = 0; j < l->n; j++) {
            if (l->key[j] > s) {
                if (!*us_set) {
                    *us = off;
                    *us_set = true;
                }
                if (l->key[j] >= e)
                    break;
                off += l->delta[j];
                *best = max64(*best, off);
            } else {
                off += l->delta[j];
            }
        }
        return off;
    }
    const grovep_tlinner_t *in = &IN(node);
    for (int i = 0; i < in->n; i++) {
        int64_t next = i + 1 < in->n ? in->key[i + 1] : INT64_MAX; /* keys < next */
        if (next <= s + 1) {
            off += in->sum[i]; /* every key <= s */
            continue;
        }
        if (in->key[i] > s) {
            /* every key > s: U(s) is the usage before them */
            if (!*us_set) {
                *us = off;
                *us_set = true;
            }
            if (in->key[i] >= e)
                break;
            if (next <= e)
                *best = max64(*best, off + in->mx[i]);
            else
                range_max(tl, in->child[i], depth + 1, off, s, e, best, us, us_set);
        } else {
            range_max(tl, in->child[i], depth + 1, off, s, e, best, us, us_set);
        }
        off += in->sum[i];
    }
    return off;
}

int64_t grovep_tl_max_used(const grovep_timeline_t *tl, int64_t s, int64_t e)
{
    if (!tl->height)
        return 0;
    int64_t best = INT64_MIN, us = 0;
    bool us_set = false;
    int64_t off = range_max(tl, tl->root, 0, 0, s, e, &best, &us, &us_set);
    /* no point after s was met before e (or the end): every point walked
     * is <= s, and U(s) is their sum */
    if (!us_set)
        us = off;
    return max64(best, us);
}

int64_t grovep_tl_max_all(const grovep_timeline_t *tl)
{
    int64_t best = 0, o = 0;
    if (tl->height == 1) {
        const grovep_tlleaf_t *l = &LF(tl->root);
        for (int j = 0; j < l->n; j++)
            best = max64(best, o += l->delta[j]);
    } else if (tl->height > 1) {
        const grovep_tlinner_t *in = &IN(tl->root);
        for (int i = 0; i < in->n; i++) {
            best = max64(best, o + in->mx[i]);
            o += in->sum[i];
        }
    }
    return best;
}

/* A cursor is a position in time with the root path leading to it, so "the
 * next point after here where usage is > lim (or <= lim)" scans forward in
 * the current leaf, climbs only as far as the first entry whose summary
 * admits a match, and descends into it: a forward scan never visits the
 * subtrees it skips, and nearby answers cost no descent from the root. */
typedef struct cursor {
    int h;                   /* tree height */
    uint32_t node[TL_MAXH];  /* node at each depth, the root at 0 */
    int idx[TL_MAXH];        /* inner: the child on the path; leaf: next entry */
    int64_t off[TL_MAXH];    /* usage before entry idx (in the leaf: U here) */
} cursor_t;

#define MATCH(v, lim, above) ((above) ? (v) > (lim) : (v) <= (lim))
#define MAY(o, mx, mn, lim, above) ((above) ? (o) + (mx) > (lim) : (o) + (mn) <= (lim))

/* Position c just after time t; returns U(t). */
static int64_t cur_seek(const grovep_timeline_t *tl, cursor_t *c, int64_t t)
{
    int64_t off = 0;
    uint32_t node = tl->root;
    c->h = tl->height;
    for (int d = 0; d < c->h - 1; d++) {
        const grovep_tlinner_t *in = &IN(node);
        int i = 0;
        while (i + 1 < in->n && in->key[i + 1] <= t)
            off += in->sum[i++];
        c->node[d] = node;
        c->idx[d] = i;
        c->off[d] = off;
        node = in->child[i];
    }
    if (c->h) {
        const grovep_tlleaf_t *l = &LF(node);
        int j = 0;
        for (; j < l->n && l->key[j] <= t; j++)
            off += l->delta[j];
        c->node[c->h - 1] = node;
        c->idx[c->h - 1] = j;
        c->off[c->h - 1] = off;
    }
    return off;
}

/* Scan leaf entries from c's leaf position for a match before bound; 1 and
 * *key on a match. */
static int cur_leaf_scan(const grovep_timeline_t *tl, cursor_t *c, int64_t lim, int above,
                         int64_t bound, int64_t *key)
{
    int d = c->h - 1;
    const grovep_tlleaf_t *l = &LF(c->node[d]);
    int64_t o = c->off[d];
    for (int j = c->idx[d]; j < l->n && l->key[j] < bound; j++) {
        o += l->delta[j];
        if (MATCH(o, lim, above)) {
            c->idx[d] = j + 1;
            c->off[d] = o;
            *key = l->key[j];
            return 1;
        }
    }
    c->h = 0; /* spent: callers stop at the first miss */
    return 0;
}

/* Move c to the first point after it, and before bound, where usage is
 * > lim (above) or <= lim: 1 and its time in *key, or 0 (c is then spent).
 * Subtrees that start at or after bound are never entered. */
static int cur_next(const grovep_timeline_t *tl, cursor_t *c, int64_t lim, int above,
                    int64_t bound, int64_t *key)
{
    if (c->h == 0)
        return 0;
    int leafd = c->h - 1;
    {
        /* The rest of the current leaf first. */
        const grovep_tlleaf_t *l = &LF(c->node[leafd]);
        int64_t o = c->off[leafd];
        for (int j = c->idx[leafd]; j < l->n; j++) {
            if (l->key[j] >= bound)
                goto spent;
            o += l->delta[j];
            if (MATCH(o, lim, above)) {
                c->idx[leafd] = j + 1;
                c->off[leafd] = o;
                *key = l->key[j];
                return 1;
            }
        }
    }
    for (int d = leafd - 1; d >= 0; d--) {
        const grovep_tlinner_t *in = &IN(c->node[d]);
        int i = c->idx[d];
        int64_t o = c->off[d] + in->sum[i];
        for (i++; i < in->n; i++) {
            if (in->key[i] >= bound)
                goto spent;
            if (MAY(o, in->mx[i], in->mn[i], lim, above)) {
                c->idx[d] = i;
                c->off[d] = o;
                /* Descend to the first entry that admits a match, level by
                 * level; the summary guarantees one exists. */
                uint32_t node = in->child[i];
                for (d++; d < leafd; d++) {
                    const grovep_tlinner_t *k = &IN(node);
                    int j = 0;
                    while (!MAY(o, k->mx[j], k->mn[j], lim, above))
                        o += k->sum[j++];
                    if (k->key[j] >= bound)
                        goto spent;
                    c->node[d] = node;
                    c->idx[d] = j;
                    c->off[d] = o;
                    node = k->child[j];
                }
                c->node[d] = node;
                c->idx[d] = 0;
                c->off[d] = o;
                return cur_leaf_scan(tl, c, lim, above, bound, key);
            }
            o += in->sum[i];
        }
    }
spent:
    c->h = 0;
    return 0;
}

int grovep_tl_fits(const grovep_timeline_t *tl, int64_t t, int64_t d, int64_t lim)
{
    cursor_t c;
    int64_t b;
    return cur_seek(tl, &c, t) <= lim && !cur_next(tl, &c, lim, 1, t + d, &b);
}

int64_t grovep_tl_earliest(const grovep_timeline_t *tl, int64_t lim, int64_t d,
                           int64_t t0, int64_t last)
{
    cursor_t c;
    int64_t t = t0, b, g;
    if (t > last)
        return -1;
    int64_t u = cur_seek(tl, &c, t);
    for (;;) {
        /* t is free enough unless U(t) > lim; then it is the answer unless
         * usage rises above lim before t + d. */
        if (u <= lim && !cur_next(tl, &c, lim, 1, t + d, &b))
            return t;
        /* Skip the busy run: the next start is where usage drops back. */
        if (!cur_next(tl, &c, lim, 0, last + 1, &g))
            return -1;
        t = g;
        u = lim;
    }
}

int grovep_tl_has_point(const grovep_timeline_t *tl, int64_t t)
{
    uint32_t node = tl->root;
    for (int d = 0; d < tl->height - 1; d++)
        node = IN(node).child[route(&IN(node), t)];
    if (tl->height) {
        const grovep_tlleaf_t *l = &LF(node);
        for (int j = 0; j < l->n && l->key[j] <= t; j++)
            if (l->key[j] == t)
                return l->delta[j] != 0;
    }
    return 0;
}

int grovep_tl_next_point(const grovep_timeline_t *tl, int64_t x, int64_t *t)
{
    cursor_t c;
    cur_seek(tl, &c, x);
    /* With lim = INT64_MAX every point matches "usage <= lim"; points
     * where deltas cancel out are passed over (rare: a span ending exactly
     * where another of the same amount starts). */
    while (cur_next(tl, &c, INT64_MAX, 0, INT64_MAX, t)) {
        const grovep_tlleaf_t *l = &LF(c.node[c.h - 1]);
        if (l->delta[c.idx[c.h - 1] - 1] != 0)
            return 1;
    }
    return 0;
}

/* Walk the subtree of node: check fill, order (through *last), deltas and
 * every entry's summary; count nodes; return the summary in *sum/mx/mn. */
static int check_rec(const grovep_timeline_t *tl, uint32_t node, int depth, int64_t *last,
                     int *seen, uint32_t *leaves, uint32_t *inners, uint32_t *points,
                     int64_t *sum, int64_t *mx, int64_t *mn)
{
    int lo = node == tl->root ? (depth == tl->height - 1 ? 1 : 2) : FMIN;
    int64_t o = 0, hi = INT64_MIN, low = INT64_MAX;
    if (depth == tl->height - 1) {
        if (!leaf_slot_ok(tl, node, lo))
            return 0;
        const grovep_tlleaf_t *l = &LF(node);
        (*leaves)++;
        for (int j = 0; j < l->n; j++) {
            if ((*seen && l->key[j] <= *last) || l->ends[j] == 0)
                return 0;
            *last = l->key[j];
            *seen = 1;
            (*points)++;
            o += l->delta[j];
            hi = max64(hi, o);
            low = min64(low, o);
        }
    } else {
        if (!inner_slot_ok(tl, node, lo))
            return 0;
        const grovep_tlinner_t *in = &IN(node);
        (*inners)++;
        for (int i = 0; i < in->n; i++) {
            int64_t first = *last, s, x, m;
            int had = *seen;
            if (!check_rec(tl, in->child[i], depth + 1, last, seen, leaves, inners, points, &s,
                           &x, &m))
                return 0;
            /* key[i] is the first point below child i: the one after first */
            int64_t k = depth + 1 == tl->height - 1 ? LF(in->child[i]).key[0]
                                                    : IN(in->child[i]).key[0];
            if (in->key[i] != k || (had && k <= first) || in->sum[i] != s || in->mx[i] != x
                || in->mn[i] != m)
                return 0;
            hi = max64(hi, o + x);
            low = min64(low, o + m);
            o += s;
        }
    }
    *sum = o;
    *mx = hi;
    *mn = low;
    return 1;
}

int grovep_tl_check(const grovep_timeline_t *tl)
{
    if (sizeof(grovep_tlleaf_t) % 64 || sizeof(grovep_tlinner_t) % 64
        || ((uintptr_t)tl->leaf & 63) || ((uintptr_t)tl->inner & 63))
        return 0;
    uint32_t leaves = 0, inners = 0, points = 0;
    int64_t last = 0, sum = 0, mx, mn;
    int seen = 0;
    if (tl->height < 0 || tl->height > TL_MAXH || (tl->height == 0) != (tl->root == 0))
        return 0;
    if (tl->height && !check_rec(tl, tl->root, 0, &last, &seen, &leaves, &inners, &points,
                                 &sum, &mx, &mn))
        return 0;
    if (points != tl->count || sum != 0)
        return 0;
    return leaf_pool_ok(tl, leaves) && inner_pool_ok(tl, inners);
}

/* ---- span table: dense records, hash from id to index ---------------- */

static size_t st_home(const grovep_spantab_t *st, int64_t id)
{
    return (size_t)(((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (st->hcap - 1);
}

/* What an emptied planner keeps of its memory (grovep_span_remove): a
 * span table of at most KEEP_SPANS spans, a timeline of at most
 * KEEP_LEAVES leaves and KEEP_INNERS inner nodes (pool slots, the unused
 * slot 0 counted), some 3 KB at most. */
#define KEEP_SPANS 16
#define KEEP_LEAVES 4
#define KEEP_INNERS 2

void grovep_st_init(grovep_spantab_t *st, size_t k)
{
    memset(st, 0, sizeof(*st));
    st->k = k;
    st->next_id = 1;
}

void grovep_st_fini(grovep_spantab_t *st)
{
    if (st) {
        free(st->rec);
        free(st->hash);
        st->rec = NULL;
        st->hash = NULL;
        st->n = st->cap = st->hcap = 0;
    }
}

int grovep_st_copy(grovep_spantab_t *dst, const grovep_spantab_t *src)
{
    *dst = *src;
    dst->rec = NULL;
    dst->hash = NULL;
    if (src->cap) {
        size_t rs = sizeof(int64_t) * (3 + src->k);
        dst->rec = malloc(rs * src->cap);
        dst->hash = malloc(sizeof(uint32_t) * src->hcap);
        if (!dst->rec || !dst->hash) {
            free(dst->rec);
            free(dst->hash);
            dst->rec = NULL;
            dst->hash = NULL;
            errno = ENOMEM;
            return -1;
        }
        memcpy(dst->rec, src->rec, rs * src->n);
        memcpy(dst->hash, src->hash, sizeof(uint32_t) * src->hcap);
    }
    return 0;
}

static void st_hash_put(grovep_spantab_t *st, size_t i)
{
    size_t mask = st->hcap - 1, h = st_home(st, GROVEP_SPAN_ID(st, i));
    while (st->hash[h])
        h = (h + 1) & mask;
    st->hash[h] = (uint32_t)(i + 1);
}

int grovep_st_reserve1(grovep_spantab_t *st)
{
    if (st->n < st->cap)
        return 0;
    /* from one: most planners hold a span or two (a pool held by one job) */
    size_t cap = st->cap ? st->cap * 2 : 1;
    if (cap > UINT32_MAX / 4 || st->next_id == INT64_MAX) {
        errno = EOVERFLOW;
        return -1;
    }
    int64_t *rec = realloc(st->rec, sizeof(int64_t) * (3 + st->k) * cap);
    if (!rec) {
        errno = ENOMEM;
        return -1;
    }
    st->rec = rec;
    uint32_t *hash = calloc(cap * 2, sizeof(uint32_t));
    if (!hash) {
        errno = ENOMEM;
        return -1; /* rec grew but cap is unchanged: still consistent */
    }
    free(st->hash);
    st->hash = hash;
    st->hcap = cap * 2;
    st->cap = cap;
    for (size_t i = 0; i < st->n; i++)
        st_hash_put(st, i);
    return 0;
}

int64_t grovep_st_insert(grovep_spantab_t *st, int64_t start, int64_t dur,
                         const int64_t *amt)
{
    size_t i = st->n++;
    int64_t id = st->next_id++;
    GROVEP_SPAN_ID(st, i) = id;
    GROVEP_SPAN_START(st, i) = start;
    GROVEP_SPAN_DUR(st, i) = dur;
    memcpy(GROVEP_SPAN_AMT(st, i), amt, sizeof(int64_t) * st->k);
    st_hash_put(st, i);
    return id;
}

/* Hash slot holding span id, or hcap if absent. */
static size_t st_slot(const grovep_spantab_t *st, int64_t id)
{
    if (!st->hcap)
        return 0;
    size_t mask = st->hcap - 1, h = st_home(st, id);
    while (st->hash[h]) {
        if (GROVEP_SPAN_ID(st, st->hash[h] - 1) == id)
            return h;
        h = (h + 1) & mask;
    }
    return st->hcap;
}

ptrdiff_t grovep_st_find(const grovep_spantab_t *st, int64_t id)
{
    size_t h = st_slot(st, id);
    if (h >= st->hcap)
        return -1;
    return (ptrdiff_t)st->hash[h] - 1;
}

/* Empty slot h, shifting later entries of the probe run back (no tombstones). */
static void st_hash_del(grovep_spantab_t *st, size_t h)
{
    size_t mask = st->hcap - 1, i = h, j = h;
    st->hash[i] = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!st->hash[j])
            return;
        size_t home = st_home(st, GROVEP_SPAN_ID(st, st->hash[j] - 1));
        /* The entry at j may move to i unless its home lies in (i, j]. */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            st->hash[i] = st->hash[j];
            st->hash[j] = 0;
            i = j;
        }
    }
}

void grovep_st_remove_at(grovep_spantab_t *st, size_t i)
{
    size_t last = st->n - 1;
    st_hash_del(st, st_slot(st, GROVEP_SPAN_ID(st, i)));
    if (i != last) {
        size_t h = st_slot(st, GROVEP_SPAN_ID(st, last));
        size_t rs = 3 + st->k;
        memcpy(&st->rec[i * rs], &st->rec[last * rs], sizeof(int64_t) * rs);
        st->hash[h] = (uint32_t)(i + 1);
    }
    st->n--;
}

int grovep_st_get(const grovep_spantab_t *st, size_t i, int64_t *id, int64_t *start,
                  int64_t *dur, int64_t *amt)
{
    if (i >= st->n) {
        errno = ENOENT;
        return -1;
    }
    if (id)
        *id = GROVEP_SPAN_ID(st, i);
    if (start)
        *start = GROVEP_SPAN_START(st, i);
    if (dur)
        *dur = GROVEP_SPAN_DUR(st, i);
    if (amt)
        memcpy(amt, GROVEP_SPAN_AMT(st, i), sizeof(int64_t) * st->k);
    return 0;
}

int grovep_st_lookup(const grovep_spantab_t *st, int64_t id, int64_t *start, int64_t *dur,
                     int64_t *amt)
{
    ptrdiff_t i = grovep_st_find(st, id);
    if (i < 0) {
        errno = ENOENT;
        return -1;
    }
    return grovep_st_get(st, (size_t)i, NULL, start, dur, amt);
}

/* ---- the horizon ------------------------------------------------------ */

int grovep_hz_init(grovep_horizon_t *hz, int64_t start, int64_t horizon)
{
    if (start < 0 || horizon < 1) {
        errno = EINVAL;
        return -1;
    }
    if (horizon > GROVE_PLANNER_TIME_MAX - start) {
        errno = EOVERFLOW;
        return -1;
    }
    hz->start = start;
    hz->end = start + horizon;
    return 0;
}

int grovep_hz_window(const grovep_horizon_t *hz, int64_t t, int64_t d)
{
    if (d < 0) {
        errno = EINVAL;
        return -1;
    }
    if (t < hz->start || t > hz->end || d > hz->end - t) {
        errno = ERANGE;
        return -1;
    }
    return 0;
}

int grovep_hz_duration(const grovep_horizon_t *hz, int64_t d)
{
    if (d < 0) {
        errno = EINVAL;
        return -1;
    }
    if (d > hz->end - hz->start) {
        errno = ERANGE;
        return -1;
    }
    return 0;
}

int grovep_hz_time(const grovep_horizon_t *hz, int64_t t)
{
    if (t < hz->start || t > hz->end) {
        errno = ERANGE;
        return -1;
    }
    return 0;
}

/* ---- the planner ------------------------------------------------------ */

struct grove_planner {
    int64_t total;         /* units, 0 <= total <= GROVE_PLANNER_TOTAL_MAX */
    grovep_horizon_t hz;   /* the horizon */
    grovep_timeline_t tl;  /* usage over time */
    grovep_spantab_t st;   /* span records, k = 1 */
};

grove_planner_t *grove_planner_create(int64_t total, int64_t start, int64_t horizon)
{
    grovep_horizon_t hz;
    if (total < 0) {
        errno = EINVAL;
        return NULL;
    }
    if (grovep_hz_init(&hz, start, horizon) < 0)
        return NULL;
    if (total > GROVE_PLANNER_TOTAL_MAX) {
        errno = EOVERFLOW;
        return NULL;
    }
    grove_planner_t *p = calloc(1, sizeof(*p));
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    p->total = total;
    p->hz = hz;
    grovep_tl_init(&p->tl);
    grovep_st_init(&p->st, 1);
    return p;
}

void grove_planner_destroy(grove_planner_t *p)
{
    if (!p)
        return;
    grovep_tl_fini(&p->tl);
    grovep_st_fini(&p->st);
    free(p);
}

grove_planner_t *grove_planner_copy(const grove_planner_t *p)
{
    grove_planner_t *c = malloc(sizeof(*c));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    *c = *p;
    if (grovep_tl_copy(&c->tl, &p->tl) < 0)
        return GROVEP_NULL_AFTER(free, c, ENOMEM);
    if (grovep_st_copy(&c->st, &p->st) < 0) {
        grovep_tl_fini(&c->tl);
        return GROVEP_NULL_AFTER(free, c, ENOMEM);
    }
    return c;
}

GROVEP_GETTER(int64_t, grove_planner_total, grove_planner_t, total)
GROVEP_GETTER(int64_t, grove_planner_start, grove_planner_t, hz.start)
GROVEP_GETTER(int64_t, grove_planner_end, grove_planner_t, hz.end)
GROVEP_GETTER(size_t, grove_planner_span_count, grove_planner_t, st.n)

int64_t grove_planner_add(grove_planner_t *p, int64_t start, int64_t duration,
                          int64_t amount)
{
    if (amount < 0) {
        errno = EINVAL;
        return -1;
    }
    if (grovep_hz_window(&p->hz, start, duration) < 0)
        return -1;
    if (amount > p->total) {
        errno = ENODEV;
        return -1;
    }
    if (duration > 0 && amount > 0
        && !grovep_tl_fits(&p->tl, start, duration, p->total - amount)) {
        errno = EBUSY;
        return -1;
    }
    if (grovep_st_reserve1(&p->st) < 0 || grovep_tl_reserve_span(&p->tl) < 0)
        return -1;
    grovep_tl_add(&p->tl, start, start + duration, amount, amount != 0);
    return grovep_st_insert(&p->st, start, duration, &amount);
}

int grovep_span_remove(grovep_spantab_t *st, grovep_timeline_t *tl, size_t ntl, int64_t id)
{
    ptrdiff_t k = grovep_st_find(st, id);
    if (k < 0) {
        errno = ENOENT;
        return -1;
    }
    int64_t s = GROVEP_SPAN_START(st, k), d = GROVEP_SPAN_DUR(st, k);
    const int64_t *held = GROVEP_SPAN_AMT(st, k);
    for (size_t i = 0; i < ntl; i++)
        grovep_tl_add(&tl[i], s, s + d, -held[i], -(held[i] != 0));
    grovep_st_remove_at(st, (size_t)k);
    if (st->n == 0) {
        /* the last span is gone: give the memory back when there is much
         * of it (a planner that held 100,000 jobs keeps no node pools for
         * them once they all ended).  A little is kept: a pool's planner
         * empties and fills again at every pass of a queue that plans its
         * reservations again (a conservative queue's compression), and
         * with the memory given back each time, half of the spans added
         * grew a table again.  Ids are never reused, so next_id stays. */
        for (size_t i = 0; i < ntl; i++)
            if (tl[i].count == 0
                && (tl[i].leaf_cap > KEEP_LEAVES || tl[i].inner_cap > KEEP_INNERS))
                grovep_tl_fini(&tl[i]);
        if (st->cap > KEEP_SPANS) {
            free(st->rec);
            free(st->hash);
            st->rec = NULL;
            st->hash = NULL;
            st->cap = st->hcap = 0;
        }
    }
    return 0;
}

int grove_planner_remove(grove_planner_t *p, int64_t id)
{
    return grovep_span_remove(&p->st, &p->tl, 1, id);
}

int64_t grove_planner_reduce(grove_planner_t *p, int64_t id, int64_t amount)
{
    ptrdiff_t i = grovep_st_find(&p->st, id);
    if (i < 0) {
        errno = ENOENT;
        return -1;
    }
    int64_t *held = GROVEP_SPAN_AMT(&p->st, i);
    if (amount < 0 || amount > held[0]) {
        errno = EINVAL;
        return -1;
    }
    int64_t s = GROVEP_SPAN_START(&p->st, i), d = GROVEP_SPAN_DUR(&p->st, i);
    /* reduced to nothing, the span no longer counts at its endpoints */
    grovep_tl_add(&p->tl, s, s + d, -amount, -(amount != 0 && amount == held[0]));
    held[0] -= amount;
    return held[0];
}

int grove_planner_span(const grove_planner_t *p, int64_t id, int64_t *start,
                       int64_t *duration, int64_t *amount)
{
    return grovep_st_lookup(&p->st, id, start, duration, amount);
}

int grove_planner_span_at(const grove_planner_t *p, size_t i, int64_t *id,
                          int64_t *start, int64_t *duration, int64_t *amount)
{
    return grovep_st_get(&p->st, i, id, start, duration, amount);
}

int64_t grove_planner_avail_at(const grove_planner_t *p, int64_t t)
{
    if (t < p->hz.start || t >= p->hz.end) {
        errno = ERANGE;
        return -1;
    }
    return p->total - grovep_tl_used_at(&p->tl, t);
}

int64_t grove_planner_avail_during(const grove_planner_t *p, int64_t t, int64_t d)
{
    if (grovep_hz_window(&p->hz, t, d) < 0)
        return -1;
    if (d == 0)
        return p->total;
    return p->total - grovep_tl_max_used(&p->tl, t, t + d);
}

int grove_planner_fits(const grove_planner_t *p, int64_t t, int64_t d, int64_t amount)
{
    if (amount < 0) {
        errno = EINVAL;
        return -1;
    }
    if (grovep_hz_window(&p->hz, t, d) < 0)
        return -1;
    if (amount > p->total)
        return 0;
    if (d == 0 || amount == 0)
        return 1;
    return grovep_tl_fits(&p->tl, t, d, p->total - amount);
}

/* Common checks of earliest/next_fit: 0, or -1 with errno. */
static int check_request(const grove_planner_t *p, int64_t amount, int64_t d)
{
    if (amount < 0) {
        errno = EINVAL;
        return -1;
    }
    if (grovep_hz_duration(&p->hz, d) < 0)
        return -1;
    if (amount > p->total) {
        errno = ENODEV;
        return -1;
    }
    return 0;
}

/* earliest() after validation; t0 may exceed the last start (EBUSY). */
static int64_t earliest_from(const grove_planner_t *p, int64_t amount, int64_t d,
                             int64_t t0)
{
    int64_t last = p->hz.end - d, t = -1;
    if (t0 <= last) {
        if (d == 0 || amount == 0)
            t = t0;
        else
            t = grovep_tl_earliest(&p->tl, p->total - amount, d, t0, last);
    }
    if (t < 0)
        errno = EBUSY;
    return t;
}

int64_t grove_planner_earliest(const grove_planner_t *p, int64_t amount, int64_t d,
                               int64_t t0)
{
    if (check_request(p, amount, d) < 0 || grovep_hz_time(&p->hz, t0) < 0)
        return -1;
    return earliest_from(p, amount, d, t0);
}

int64_t grove_planner_next_fit(const grove_planner_t *p, int64_t amount, int64_t d,
                               int64_t after)
{
    if (check_request(p, amount, d) < 0 || grovep_hz_time(&p->hz, after) < 0)
        return -1;
    int64_t t = earliest_from(p, amount, d, after + 1);
    if (t < 0 || grovep_tl_has_point(&p->tl, t))
        return t;
    /* t fits but is no time point (then t == after + 1): the next candidate
     * is the first fitting time from the next point on, itself a point. */
    int64_t c;
    if (!grovep_tl_next_point(&p->tl, t, &c)) {
        errno = EBUSY;
        return -1;
    }
    return earliest_from(p, amount, d, c);
}

int64_t grove_planner_next_change(const grove_planner_t *p, int64_t after)
{
    int64_t t;
    if (!grovep_tl_next_point(&p->tl, after, &t)) {
        errno = ENOENT;
        return -1;
    }
    return t;
}

int64_t grove_planner_max_used(const grove_planner_t *p)
{
    return grovep_tl_max_all(&p->tl);
}

int grove_planner_resize(grove_planner_t *p, int64_t total)
{
    if (total < 0) {
        errno = EINVAL;
        return -1;
    }
    if (total > GROVE_PLANNER_TOTAL_MAX) {
        errno = EOVERFLOW;
        return -1;
    }
    if (total < grovep_tl_max_all(&p->tl)) {
        errno = EBUSY;
        return -1;
    }
    p->total = total;
    return 0;
}

int grovep_planner_height(const grove_planner_t *p)
{
    return p->tl.height;
}

int grovep_planner_check(const grove_planner_t *p)
{
    if (!grovep_tl_check(&p->tl) || p->total < grovep_tl_max_all(&p->tl))
        return 0;
    /* Every span lies in the horizon and is found again through the hash. */
    for (size_t i = 0; i < p->st.n; i++) {
        int64_t s = GROVEP_SPAN_START(&p->st, i), d = GROVEP_SPAN_DUR(&p->st, i);
        if (s < p->hz.start || d < 0 || d > p->hz.end - s || GROVEP_SPAN_AMT(&p->st, i)[0] < 0
            || grovep_st_find(&p->st, GROVEP_SPAN_ID(&p->st, i)) != (ptrdiff_t)i)
            return 0;
    }
    return p->tl.count <= 2 * p->st.n;
}

/* ---- tallies ------------------------------------------------------------------ */

struct grove_tally {
    grovep_timeline_t tl;
};

grove_tally_t *grove_tally_create(void)
{
    grove_tally_t *t = malloc(sizeof(*t));
    if (!t) {
        errno = ENOMEM;
        return NULL;
    }
    grovep_tl_init(&t->tl);
    return t;
}

void grove_tally_destroy(grove_tally_t *t)
{
    if (t) {
        grovep_tl_fini(&t->tl);
        free(t);
    }
}

int grove_tally_raise(grove_tally_t *t, int64_t s, int64_t e)
{
    if (grovep_tl_reserve_span(&t->tl) < 0)
        return -1;
    grovep_tl_add(&t->tl, s, e, 1, 1);
    return 0;
}

void grove_tally_lower(grove_tally_t *t, int64_t s, int64_t e)
{
    grovep_tl_add(&t->tl, s, e, -1, -1);
}

int grove_tally_apply(grove_tally_t *t, int64_t key, int64_t dv, int dends)
{
    if (dv == 0 && dends == 0)
        return 0;
    if (grovep_tl_reserve(&t->tl, (size_t)t->tl.count + 1) < 0)
        return -1;
    tl_apply(&t->tl, key, dv, dends);
    return 0;
}

size_t grove_tally_points(const grove_tally_t *t)
{
    return t->tl.count;
}

int64_t grove_tally_max(const grove_tally_t *t, int64_t s, int64_t e)
{
    return grovep_tl_max_used(&t->tl, s, e);
}

int64_t grove_tally_earliest(const grove_tally_t *t, int64_t lim, int64_t d, int64_t t0,
                             int64_t last)
{
    return grovep_tl_earliest(&t->tl, lim, d, t0, last);
}
