/* planner.c: availability of one quantity over integer time.
 *
 * Problem.  A pool of `total` units is used by spans (start, duration,
 * amount).  The matcher asks, for many pools and many candidate times: is
 * `amount` free throughout [t, t + d)?  how much is free at t, or at least
 * during [t, t + d)?  what is the earliest t >= t0 at which `amount` is free
 * for d, and the next candidate after it?  Spans come and go as jobs are
 * allocated, reserved, shrunk and freed.  Expected workload: from a handful
 * to ~10^5 spans per planner, queries outnumbering updates by 10 or more.
 *
 * Structure.  The usage U(t) is a step function.  We keep its difference
 * array: one node per time point p where usage changes, with delta = U(p) -
 * U(p - 1) != 0, in an AVL tree ordered by time.  Then:
 *
 *  - A span is +amount at its start and -amount at its end: two point
 *    updates, O(log n) each, however many other points its window covers.
 *    (Storing U itself per point would cost O(points in the window) per
 *    update, or lazy propagation; differences avoid both.)
 *  - Each node carries, for its subtree, the sum of deltas and the maximum
 *    and minimum over its keys k of the prefix sum "deltas of the subtree at
 *    keys <= k".  These are functions of the node and its two children only,
 *    so an AVL rotation restores them in O(1) and every update stays
 *    O(log n) with the tree height <= 1.44 log2(n + 2).
 *  - U(t) is the sum of deltas at keys <= t: one descent adding left sums.
 *  - max U over [t, t + d) is U(t) together with the maximum prefix over the
 *    keys in (t, t + d): a descent to the split node, then one path down each
 *    boundary, taking whole subtrees from their maxpre: O(log n).  Free =
 *    total - used, so min free is total - max used and changing the total
 *    touches no node.
 *  - "the first point after x where U > L" (resp. U <= L) is a descent that
 *    skips every subtree whose maxpre (resp. minpre), offset by the sum to
 *    its left, rules it out: O(log n).
 *
 * Earliest fit.  With L = total - amount, the answer is the earliest t >= t0
 * with U <= L on all of [t, t + d).  Loop: if some instant of [t, t + d) has
 * U > L, let b be the first one (U(t) or the "first point after t with
 * U > L" descent), and jump t to the first point after b with U <= L (the
 * other descent); else t is the answer.  Each round costs O(log n) and jumps
 * over a whole busy run and a whole free gap too short for d, never over
 * points one by one.  So earliest is O((1 + g) log n) where g is the number
 * of free gaps shorter than d (for this amount) between t0 and the answer.
 * g is 0 or small in practice (see bench/RESULTS.md), but a comb of short
 * gaps makes it O(n): a summary that answers for every (amount, d) at once
 * would have to store, per subtree, the gap lengths for every threshold, so
 * we accept the per-gap bound and say so.
 *
 * next_fit.  Between two points U is constant, so a time that did not fit
 * can only start to fit at a point: after `after`, the next candidate is the
 * smallest point t > after at which the request fits.  It is earliest(after
 * + 1) when that lands on a point (or later: a fitting start preceded by a
 * non-fitting one is always a point), else earliest(next point).
 *
 * Memory.  Nodes live in one array (index 0 is the null sentinel) with a free
 * list; indices rather than pointers make a copy one memcpy.  Every point is
 * the start or the end of a span, so the array keeps room for 2 * spans + 2
 * points: add grows it (doubling) before touching anything, so an add fails
 * cleanly with ENOMEM, and remove and reduce never allocate.  Span records
 * sit in a dense array with an open-addressing hash from id to index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "planner_private.h"

#define N(i) (tl->node[(i)])

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- timeline: the augmented AVL tree ---------------------------------- */

void grovep_tl_init(grovep_timeline_t *tl)
{
    memset(tl, 0, sizeof(*tl));
}

void grovep_tl_fini(grovep_timeline_t *tl)
{
    if (tl) {
        free(tl->node);
        memset(tl, 0, sizeof(*tl));
    }
}

int grovep_tl_copy(grovep_timeline_t *dst, const grovep_timeline_t *src)
{
    *dst = *src;
    dst->node = NULL;
    if (src->cap) {
        dst->node = malloc(sizeof(*dst->node) * src->cap);
        if (!dst->node)
            return -1;
        memcpy(dst->node, src->node, sizeof(*dst->node) * src->hiwater);
    }
    return 0;
}

int grovep_tl_reserve(grovep_timeline_t *tl, size_t npoints)
{
    if (npoints + 1 <= tl->cap)
        return 0;
    if (npoints > UINT32_MAX - 2) {
        errno = EOVERFLOW;
        return -1;
    }
    size_t cap = tl->cap ? tl->cap : 16;
    while (cap < npoints + 1)
        cap *= 2;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    grovep_tlnode_t *node = realloc(tl->node, sizeof(*node) * cap);
    if (!node) {
        errno = ENOMEM;
        return -1;
    }
    if (tl->cap == 0) {
        memset(&node[0], 0, sizeof(node[0]));
        tl->hiwater = 1;
    }
    tl->node = node;
    tl->cap = (uint32_t)cap;
    return 0;
}

static uint32_t tl_alloc(grovep_timeline_t *tl, int64_t key, int64_t delta)
{
    uint32_t n = tl->freelist;
    if (n)
        tl->freelist = N(n).left;
    else
        n = tl->hiwater++; /* capacity was reserved by the caller */
    N(n).key = key;
    N(n).delta = delta;
    N(n).sum = N(n).maxpre = N(n).minpre = delta;
    N(n).left = N(n).right = 0;
    N(n).height = 1;
    tl->count++;
    return n;
}

static void tl_release(grovep_timeline_t *tl, uint32_t n)
{
    N(n).left = tl->freelist;
    N(n).right = 0;
    N(n).height = 0;
    tl->freelist = n;
    tl->count--;
}

/* Recompute n's height and augmentations from its children. */
static void tl_pull(grovep_timeline_t *tl, uint32_t n)
{
    uint32_t l = N(n).left, r = N(n).right;
    int64_t cur = N(l).sum + N(n).delta; /* N(0).sum == 0 */
    int64_t mx = cur, mn = cur;
    if (l) {
        mx = max64(mx, N(l).maxpre);
        mn = min64(mn, N(l).minpre);
    }
    if (r) {
        mx = max64(mx, cur + N(r).maxpre);
        mn = min64(mn, cur + N(r).minpre);
    }
    N(n).sum = cur + N(r).sum;
    N(n).maxpre = mx;
    N(n).minpre = mn;
    int32_t hl = N(l).height, hr = N(r).height;
    N(n).height = 1 + (hl > hr ? hl : hr);
}

static uint32_t tl_rot_right(grovep_timeline_t *tl, uint32_t n)
{
    uint32_t l = N(n).left;
    N(n).left = N(l).right;
    N(l).right = n;
    tl_pull(tl, n);
    tl_pull(tl, l);
    return l;
}

static uint32_t tl_rot_left(grovep_timeline_t *tl, uint32_t n)
{
    uint32_t r = N(n).right;
    N(n).right = N(r).left;
    N(r).left = n;
    tl_pull(tl, n);
    tl_pull(tl, r);
    return r;
}

/* Restore the AVL property at n (children already balanced); returns the
 * new root of the subtree. */
static uint32_t tl_balance(grovep_timeline_t *tl, uint32_t n)
{
    tl_pull(tl, n);
    uint32_t l = N(n).left, r = N(n).right;
    int32_t bf = N(l).height - N(r).height;
    if (bf > 1) {
        if (N(N(l).left).height < N(N(l).right).height)
            N(n).left = tl_rot_left(tl, l);
        return tl_rot_right(tl, n);
    }
    if (bf < -1) {
        if (N(N(r).right).height < N(N(r).left).height)
            N(n).right = tl_rot_right(tl, r);
        return tl_rot_left(tl, n);
    }
    return n;
}

/* Detach the leftmost node of subtree n into *min; returns the new subtree. */
static uint32_t tl_detach_min(grovep_timeline_t *tl, uint32_t n, uint32_t *min)
{
    if (!N(n).left) {
        *min = n;
        return N(n).right;
    }
    N(n).left = tl_detach_min(tl, N(n).left, min);
    return tl_balance(tl, n);
}

/* Add v to the delta at key (creating or deleting the point as needed). */
static uint32_t tl_apply(grovep_timeline_t *tl, uint32_t n, int64_t key, int64_t v)
{
    if (!n)
        return tl_alloc(tl, key, v);
    if (key < N(n).key) {
        N(n).left = tl_apply(tl, N(n).left, key, v);
    } else if (key > N(n).key) {
        N(n).right = tl_apply(tl, N(n).right, key, v);
    } else {
        N(n).delta += v;
        if (N(n).delta == 0) {
            uint32_t l = N(n).left, r = N(n).right, m;
            tl_release(tl, n);
            if (!l)
                return r;
            if (!r)
                return l;
            r = tl_detach_min(tl, r, &m);
            N(m).left = l;
            N(m).right = r;
            return tl_balance(tl, m);
        }
    }
    return tl_balance(tl, n);
}

void grovep_tl_add(grovep_timeline_t *tl, int64_t s, int64_t e, int64_t v)
{
    if (v == 0 || s >= e)
        return;
    tl->root = tl_apply(tl, tl->root, s, v);
    tl->root = tl_apply(tl, tl->root, e, -v);
}

int64_t grovep_tl_used_at(const grovep_timeline_t *tl, int64_t t)
{
    int64_t off = 0;
    uint32_t n = tl->root;
    while (n) {
        if (N(n).key <= t) {
            off += N(N(n).left).sum + N(n).delta;
            n = N(n).right;
        } else {
            n = N(n).left;
        }
    }
    return off;
}

int64_t grovep_tl_max_used(const grovep_timeline_t *tl, int64_t s, int64_t e)
{
    int64_t best = grovep_tl_used_at(tl, s);
    int64_t off = 0;
    uint32_t n = tl->root;
    /* Find the split node: the first node on the path with s < key < e. */
    while (n) {
        if (N(n).key <= s) {
            off += N(N(n).left).sum + N(n).delta;
            n = N(n).right;
        } else if (N(n).key >= e) {
            n = N(n).left;
        } else {
            break;
        }
    }
    if (!n)
        return best;
    int64_t self = off + N(N(n).left).sum + N(n).delta;
    best = max64(best, self);
    /* Left boundary: keys > s in the left subtree (all are < e). */
    uint32_t m = N(n).left;
    int64_t o = off;
    while (m) {
        if (N(m).key <= s) {
            o += N(N(m).left).sum + N(m).delta;
            m = N(m).right;
        } else {
            int64_t here = o + N(N(m).left).sum + N(m).delta;
            best = max64(best, here);
            if (N(m).right)
                best = max64(best, here + N(N(m).right).maxpre);
            m = N(m).left;
        }
    }
    /* Right boundary: keys < e in the right subtree (all are > s). */
    m = N(n).right;
    o = self;
    while (m) {
        if (N(m).key >= e) {
            m = N(m).left;
        } else {
            if (N(m).left)
                best = max64(best, o + N(N(m).left).maxpre);
            o += N(N(m).left).sum + N(m).delta;
            best = max64(best, o);
            m = N(m).right;
        }
    }
    return best;
}

int64_t grovep_tl_max_all(const grovep_timeline_t *tl)
{
    return tl->root ? max64(0, N(tl->root).maxpre) : 0;
}

/* First node of subtree n (every key eligible) whose prefix, offset by off,
 * is > lim (above != 0) or <= lim (above == 0); 0 if none.  Only descends
 * into a subtree known to hold the answer, so it is one path. */
static uint32_t tl_first_in(const grovep_timeline_t *tl, uint32_t n, int64_t off,
                            int64_t lim, int above)
{
    while (n) {
        if (above ? off + N(n).maxpre <= lim : off + N(n).minpre > lim)
            return 0;
        uint32_t l = N(n).left;
        if (l && (above ? off + N(l).maxpre > lim : off + N(l).minpre <= lim)) {
            n = l;
            continue;
        }
        off += N(l).sum + N(n).delta;
        if (above ? off > lim : off <= lim)
            return n;
        n = N(n).right;
    }
    return 0;
}

/* First node with key > x whose usage is > lim (above) or <= lim; 0 if none.
 * Walks the path towards x; on the way back, each candidate subtree to the
 * right of the path is tested in O(1) and entered only if it holds the
 * answer, so the whole search is O(height). */
static uint32_t tl_first_after(const grovep_timeline_t *tl, uint32_t n, int64_t off,
                               int64_t x, int64_t lim, int above)
{
    while (n && N(n).key <= x) {
        off += N(N(n).left).sum + N(n).delta;
        n = N(n).right;
    }
    if (!n)
        return 0;
    uint32_t r = tl_first_after(tl, N(n).left, off, x, lim, above);
    if (r)
        return r;
    off += N(N(n).left).sum + N(n).delta;
    if (above ? off > lim : off <= lim)
        return n;
    return tl_first_in(tl, N(n).right, off, lim, above);
}

int64_t grovep_tl_earliest(const grovep_timeline_t *tl, int64_t lim, int64_t d,
                           int64_t t0, int64_t last)
{
    int64_t t = t0;
    int known_ok = 0; /* U(t) <= lim already established */
    while (t <= last) {
        int64_t bad;
        if (!known_ok && grovep_tl_used_at(tl, t) > lim) {
            bad = t;
        } else {
            uint32_t b = tl_first_after(tl, tl->root, 0, t, lim, 1);
            if (!b || N(b).key >= t + d)
                return t;
            bad = N(b).key;
        }
        uint32_t g = tl_first_after(tl, tl->root, 0, bad, lim, 0);
        if (!g)
            return -1;
        t = N(g).key;
        known_ok = 1;
    }
    return -1;
}

int grovep_tl_has_point(const grovep_timeline_t *tl, int64_t t)
{
    uint32_t n = tl->root;
    while (n) {
        if (t == N(n).key)
            return 1;
        n = t < N(n).key ? N(n).left : N(n).right;
    }
    return 0;
}

int grovep_tl_next_point(const grovep_timeline_t *tl, int64_t x, int64_t *t)
{
    uint32_t n = tl->root, best = 0;
    while (n) {
        if (N(n).key > x) {
            best = n;
            n = N(n).left;
        } else {
            n = N(n).right;
        }
    }
    if (!best)
        return 0;
    *t = N(best).key;
    return 1;
}

/* Recursive check of subtree n with keys in (lo, hi); counts nodes. */
static int tl_check_node(const grovep_timeline_t *tl, uint32_t n, int64_t lo, int lo_set,
                         int64_t hi, int hi_set, uint32_t *count)
{
    if (!n)
        return 1;
    if (n >= tl->hiwater)
        return 0;
    (*count)++;
    const grovep_tlnode_t *x = &N(n);
    if ((lo_set && x->key <= lo) || (hi_set && x->key >= hi) || x->delta == 0)
        return 0;
    if (!tl_check_node(tl, x->left, lo, lo_set, x->key, 1, count)
        || !tl_check_node(tl, x->right, x->key, 1, hi, hi_set, count))
        return 0;
    int32_t hl = N(x->left).height, hr = N(x->right).height;
    if (hl - hr > 1 || hr - hl > 1 || x->height != 1 + (hl > hr ? hl : hr))
        return 0;
    int64_t cur = N(x->left).sum + x->delta, mx = cur, mn = cur;
    if (x->left) {
        mx = max64(mx, N(x->left).maxpre);
        mn = min64(mn, N(x->left).minpre);
    }
    if (x->right) {
        mx = max64(mx, cur + N(x->right).maxpre);
        mn = min64(mn, cur + N(x->right).minpre);
    }
    return x->sum == cur + N(x->right).sum && x->maxpre == mx && x->minpre == mn;
}

int grovep_tl_check(const grovep_timeline_t *tl)
{
    if (tl->cap == 0)
        return tl->root == 0 && tl->count == 0;
    const grovep_tlnode_t *z = &N(0);
    if (z->sum || z->height || z->left || z->right)
        return 0;
    uint32_t count = 0, nfree = 0;
    if (!tl_check_node(tl, tl->root, 0, 0, 0, 0, &count) || count != tl->count)
        return 0;
    for (uint32_t f = tl->freelist; f; f = N(f).left) {
        if (f >= tl->hiwater || ++nfree > tl->hiwater)
            return 0;
    }
    if (count + nfree + 1 != tl->hiwater)
        return 0;
    /* The total of all deltas is 0: usage returns to 0 after the last span. */
    return !tl->root || N(tl->root).sum == 0;
}

/* ---- span table: dense records, hash from id to index ---------------- */

static size_t st_home(const grovep_spantab_t *st, int64_t id)
{
    return (size_t)(((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (st->hcap - 1);
}

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
    size_t cap = st->cap ? st->cap * 2 : 8;
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

/* ---- the planner ------------------------------------------------------ */

struct grove_planner {
    int64_t total;         /* units, 0 <= total <= GROVE_PLANNER_TOTAL_MAX */
    int64_t start;         /* first second of the horizon, >= 0 */
    int64_t end;           /* end of the horizon (exclusive), > start */
    grovep_timeline_t tl;  /* usage over time */
    grovep_spantab_t st;   /* span records, k = 1 */
};

grove_planner_t *grove_planner_create(int64_t total, int64_t start, int64_t horizon)
{
    if (total < 0 || start < 0 || horizon < 1) {
        errno = EINVAL;
        return NULL;
    }
    if (total > GROVE_PLANNER_TOTAL_MAX || horizon > GROVE_PLANNER_TIME_MAX - start) {
        errno = EOVERFLOW;
        return NULL;
    }
    grove_planner_t *p = calloc(1, sizeof(*p));
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    p->total = total;
    p->start = start;
    p->end = start + horizon;
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
    if (grovep_tl_copy(&c->tl, &p->tl) < 0) {
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    if (grovep_st_copy(&c->st, &p->st) < 0) {
        grovep_tl_fini(&c->tl);
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    return c;
}

int64_t grove_planner_total(const grove_planner_t *p)
{
    return p->total;
}

int64_t grove_planner_start(const grove_planner_t *p)
{
    return p->start;
}

int64_t grove_planner_end(const grove_planner_t *p)
{
    return p->end;
}

size_t grove_planner_span_count(const grove_planner_t *p)
{
    return p->st.n;
}

/* Validate the window [t, t + d): 0, or -1 with EINVAL / ERANGE. */
static int check_window(const grove_planner_t *p, int64_t t, int64_t d)
{
    if (d < 0) {
        errno = EINVAL;
        return -1;
    }
    if (t < p->start || t > p->end || d > p->end - t) {
        errno = ERANGE;
        return -1;
    }
    return 0;
}

int64_t grove_planner_add(grove_planner_t *p, int64_t start, int64_t duration,
                          int64_t amount)
{
    if (amount < 0) {
        errno = EINVAL;
        return -1;
    }
    if (check_window(p, start, duration) < 0)
        return -1;
    if (amount > p->total) {
        errno = ENODEV;
        return -1;
    }
    if (duration > 0 && amount > 0
        && grovep_tl_max_used(&p->tl, start, start + duration) > p->total - amount) {
        errno = EBUSY;
        return -1;
    }
    if (grovep_st_reserve1(&p->st) < 0
        || grovep_tl_reserve(&p->tl, 2 * (p->st.n + 1) + 2) < 0)
        return -1;
    grovep_tl_add(&p->tl, start, start + duration, amount);
    return grovep_st_insert(&p->st, start, duration, &amount);
}

int grove_planner_remove(grove_planner_t *p, int64_t id)
{
    ptrdiff_t i = grovep_st_find(&p->st, id);
    if (i < 0) {
        errno = ENOENT;
        return -1;
    }
    int64_t s = GROVEP_SPAN_START(&p->st, i), d = GROVEP_SPAN_DUR(&p->st, i);
    grovep_tl_add(&p->tl, s, s + d, -GROVEP_SPAN_AMT(&p->st, i)[0]);
    grovep_st_remove_at(&p->st, (size_t)i);
    return 0;
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
    grovep_tl_add(&p->tl, s, s + d, -amount);
    held[0] -= amount;
    return held[0];
}

int grove_planner_span(const grove_planner_t *p, int64_t id, int64_t *start,
                       int64_t *duration, int64_t *amount)
{
    ptrdiff_t i = grovep_st_find(&p->st, id);
    if (i < 0) {
        errno = ENOENT;
        return -1;
    }
    if (start)
        *start = GROVEP_SPAN_START(&p->st, i);
    if (duration)
        *duration = GROVEP_SPAN_DUR(&p->st, i);
    if (amount)
        *amount = GROVEP_SPAN_AMT(&p->st, i)[0];
    return 0;
}

int grove_planner_span_at(const grove_planner_t *p, size_t i, int64_t *id,
                          int64_t *start, int64_t *duration, int64_t *amount)
{
    if (i >= p->st.n) {
        errno = ENOENT;
        return -1;
    }
    if (id)
        *id = GROVEP_SPAN_ID(&p->st, i);
    if (start)
        *start = GROVEP_SPAN_START(&p->st, i);
    if (duration)
        *duration = GROVEP_SPAN_DUR(&p->st, i);
    if (amount)
        *amount = GROVEP_SPAN_AMT(&p->st, i)[0];
    return 0;
}

int64_t grove_planner_avail_at(const grove_planner_t *p, int64_t t)
{
    if (t < p->start || t >= p->end) {
        errno = ERANGE;
        return -1;
    }
    return p->total - grovep_tl_used_at(&p->tl, t);
}

int64_t grove_planner_avail_during(const grove_planner_t *p, int64_t t, int64_t d)
{
    if (check_window(p, t, d) < 0)
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
    if (check_window(p, t, d) < 0)
        return -1;
    if (amount > p->total)
        return 0;
    if (d == 0 || amount == 0)
        return 1;
    return grovep_tl_max_used(&p->tl, t, t + d) <= p->total - amount;
}

/* Common checks of earliest/next_fit: 0, or -1 with errno. */
static int check_request(const grove_planner_t *p, int64_t amount, int64_t d)
{
    if (amount < 0 || d < 0) {
        errno = EINVAL;
        return -1;
    }
    if (d > p->end - p->start) {
        errno = ERANGE;
        return -1;
    }
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
    int64_t last = p->end - d, t = -1;
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
    if (check_request(p, amount, d) < 0)
        return -1;
    if (t0 < p->start || t0 > p->end) {
        errno = ERANGE;
        return -1;
    }
    return earliest_from(p, amount, d, t0);
}

int64_t grove_planner_next_fit(const grove_planner_t *p, int64_t amount, int64_t d,
                               int64_t after)
{
    if (check_request(p, amount, d) < 0)
        return -1;
    if (after < p->start || after > p->end) {
        errno = ERANGE;
        return -1;
    }
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

int grovep_planner_check(const grove_planner_t *p)
{
    if (!grovep_tl_check(&p->tl) || p->total < grovep_tl_max_all(&p->tl))
        return 0;
    /* Every span lies in the horizon and is found again through the hash. */
    for (size_t i = 0; i < p->st.n; i++) {
        int64_t s = GROVEP_SPAN_START(&p->st, i), d = GROVEP_SPAN_DUR(&p->st, i);
        if (s < p->start || d < 0 || d > p->end - s || GROVEP_SPAN_AMT(&p->st, i)[0] < 0
            || grovep_st_find(&p->st, GROVEP_SPAN_ID(&p->st, i)) != (ptrdiff_t)i)
            return 0;
    }
    return p->tl.count <= 2 * p->st.n && (p->tl.cap == 0 || p->tl.cap >= 2 * p->st.n + 1);
}
