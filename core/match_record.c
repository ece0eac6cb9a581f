/* match_record.c: a selection that fits, made into records, and undone.
 *
 * Workload: once per successful match, in time proportional to what the
 * job took (a whole machine: a million picks, sorted by a radix sort).
 * Exclusive picks are expanded (whole requests and node-exclusive
 * policies take everything below), ancestors are annotated, and each pick
 * becomes a record: one at the top-most exclusive vertex (what lies below
 * is implied), units on leaf pools.  unrecord takes them back.
 *
 * This file must not search (match_walk.c, match_time.c) or keep the job
 * table (match_job.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

int grovep_match_cmp_pick(const void *a, const void *b)
{
    const grove_pick_t *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* Below this many picks a comparison sort is as fast as the passes of a
 * radix sort over its buckets. */
#define RADIX_MIN 256
/* The widest digit of the radix sort: 2,048 buckets (16 kB of counts). */
#define RADIX_BITS 11

/* Sort n picks by vertex id in stable passes of at most RADIX_BITS bits,
 * as many as the largest id needs (two of 8 bits for a graph of 50,000
 * vertices; a whole machine's million picks: linear, where a comparison
 * sort was a fifth of the match, and where two passes over 65,536 buckets
 * cleared a megabyte of counts for a job of 64 nodes).  The second buffer
 * is scratch (scratch_bytes of it) when that is large enough, else one of
 * its own.  0 or -1 (ENOMEM). */
static int radix_picks(grove_pick_t *p, size_t n, void *scratch, size_t scratch_bytes)
{
    grove_vid_t hi = 0;
    for (size_t i = 0; i < n; i++)
        hi |= p[i].v;
    int bits = 0;
    while (bits < 32 && (hi >> bits) != 0)
        bits++;
    int passes = bits ? (bits + RADIX_BITS - 1) / RADIX_BITS : 1;
    int width = (bits + passes - 1) / passes;
    if (width == 0)
        width = 1;
    size_t nb = (size_t)1 << width, mask = nb - 1;
    grove_pick_t *own = scratch_bytes >= n * sizeof(*own) ? NULL : malloc(n * sizeof(*own));
    if (!own && scratch_bytes < n * sizeof(*own)) {
        errno = ENOMEM;
        return -1;
    }
    size_t count[(size_t)1 << RADIX_BITS];
    grove_pick_t *from = p, *to = own ? own : scratch;
    for (int k = 0, shift = 0; k < passes; k++, shift += width) {
        memset(count, 0, nb * sizeof(*count));
        for (size_t i = 0; i < n; i++)
            count[(from[i].v >> shift) & mask]++;
        size_t sum = 0;
        for (size_t b = 0; b < nb; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i].v >> shift) & mask]++] = from[i];
        grove_pick_t *t = from;
        from = to;
        to = t;
    }
    /* an odd number of passes leaves the sorted picks in the other buffer */
    if (from != p)
        memcpy(p, from, n * sizeof(*p));
    free(own);
    return 0;
}

/* Above this many ascending runs, a merge of the runs costs more passes
 * than the radix sort's two. */
#define RUNS_MAX 8

/* Merge the ascending runs of p[0..n) (at most RUNS_MAX, their ends in
 * ends[0..nr)) pairwise, through tmp (room for n), until one is left in
 * p.  A selection of whole nodes is three runs: the walk's picks, the
 * ancestors, and what lies below the nodes, appended node after node. */
static void merge_runs(grove_pick_t *p, size_t n, grove_pick_t *tmp, size_t *ends, size_t nr)
{
    grove_pick_t *from = p, *to = tmp;
    while (nr > 1) {
        size_t out = 0, b = 0, w = 0;
        for (size_t r = 0; r < nr; r += 2) {
            size_t mid = ends[r], e = r + 1 < nr ? ends[r + 1] : mid;
            size_t i = b, j = mid;
            while (i < mid && j < e)
                to[out++] = from[j].v < from[i].v ? from[j++] : from[i++];
            while (i < mid)
                to[out++] = from[i++];
            while (j < e)
                to[out++] = from[j++];
            ends[w++] = e;
            b = e;
        }
        nr = w;
        grove_pick_t *t = from;
        from = to;
        to = t;
    }
    if (from != p)
        memcpy(p, from, n * sizeof(*p));
}

/* Sort picks by vertex id.  They come mostly in graph order (the walk
 * follows it), with the ancestors and what lies below whole vertices
 * appended: a large selection of a few runs in order is merged through
 * scratch (as radix_picks) when it has room; else only what breaks the
 * order is sorted and merged back, or everything when that is much.  0 or
 * -1 (ENOMEM). */
int grovep_match_sort_picks(grove_pick_t *p, size_t n, void *scratch, size_t scratch_bytes)
{
    size_t k = 1;
    while (k < n && p[k - 1].v < p[k].v)
        k++;
    if (k >= n)
        return 0;
    if (n >= RADIX_MIN && scratch_bytes >= n * sizeof(*p)) {
        /* a few runs, each in order, are merged */
        size_t ends[RUNS_MAX], nr = 0;
        for (size_t i = 1; i <= n && nr < RUNS_MAX; i++)
            if (i == n || p[i].v < p[i - 1].v)
                ends[nr++] = i;
        if (ends[nr - 1] == n) {
            merge_runs(p, n, scratch, ends, nr);
            return 0;
        }
    }
    if (n - k > k / 8) { /* far from sorted: sort everything */
        if (n >= RADIX_MIN)
            return radix_picks(p, n, scratch, scratch_bytes);
        qsort(p, n, sizeof(*p), grovep_match_cmp_pick);
        return 0;
    }
    qsort(p + k, n - k, sizeof(*p), grovep_match_cmp_pick);
    grove_pick_t *tail = malloc((n - k) * sizeof(*tail));
    if (!tail) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(tail, p + k, (n - k) * sizeof(*tail));
    /* merge from the back: the sorted prefix p[0..k) and the tail */
    size_t i = k, j = n - k, o = n;
    while (j > 0) {
        if (i > 0 && p[i - 1].v > tail[j - 1].v)
            p[--o] = p[--i];
        else
            p[--o] = tail[--j];
    }
    free(tail);
    return 0;
}

/* Add v, unless picked already, held exclusively. */
static inline int add_held(grove_matcher_t *m, grove_vid_t v)
{
    uint8_t f = flags_of(m, v);
    if (f & M_PICK)
        return 0;
    const grove_graph_t *g = m->g;
    if (set_state(m, v, taken_of(m, v), f | M_PICK | M_EXCL | M_TOUCH) < 0
        || add_pick(m, v, grovep_vertex_size(g, v), true, g->first_out[v] == GROVEP_NONE) < 0)
        return -1;
    return 0;
}

/* add every unpicked vertex below the walk's start (arg: the matcher),
 * held exclusively */
static int nodex_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    if (depth == 0)
        return GROVE_WALK_CONTINUE;
    return add_held(arg, v) < 0 ? -1 : GROVE_WALK_CONTINUE;
}

/* Call fn(g, v, arg) for every vertex below top in containment's tree
 * (its child arrays, read in sequence, else its edge lists), until one
 * returns other than 0: 0, or what that call returned, or -1 ENOMEM.  The
 * walk's stack is *st (*cap entries, grown as needed) from entry base on:
 * the matcher's kid arena during a match, free once the search is over. */
static int walk_below(const grove_graph_t *g, grove_vid_t top,
                      int (*fn)(const grove_graph_t *g, grove_vid_t v, void *arg), void *arg,
                      grove_vid_t **st, size_t *cap, size_t base)
{
    size_t n = base;
    if (grovep_grow((void **)st, cap, n + 1, sizeof(**st)) < 0)
        return -1;
    (*st)[n++] = top;
    const uint32_t *off;
    const grove_vid_t *tk = grovep_tree_kids(g, &off, NULL);
    int rc = 0;
    while (n > base && rc == 0) {
        grove_vid_t u = (*st)[--n];
        if (tk) {
            for (uint32_t i = off[u]; i < off[u + 1] && rc == 0; i++) {
                grove_vid_t c = tk[i];
                if ((rc = fn(g, c, arg)) != 0 || off[c + 1] == off[c])
                    continue; /* a leaf: nothing below to walk */
                if (grovep_grow((void **)st, cap, n + 1, sizeof(**st)) < 0)
                    rc = -1;
                else
                    (*st)[n++] = c;
            }
            continue;
        }
        /* no memory for the child arrays: the tree edges, as the walker
         * follows containment */
        for (grove_eid_t e = g->first_out[u]; e != GROVEP_NONE && rc == 0; e = g->e[e].next_out) {
            const grovep_edge_t *ed = &g->e[e];
            if (ed->sub != g->containment || (ed->flags & GROVEP_E_UP) || g->parent[ed->dst] != u)
                continue;
            if ((rc = fn(g, ed->dst, arg)) != 0)
                continue;
            if (grovep_grow((void **)st, cap, n + 1, sizeof(**st)) < 0)
                rc = -1;
            else
                (*st)[n++] = ed->dst;
        }
    }
    return rc;
}

/* walk_below's fn for add_below: arg is the matcher. */
static int held_below(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    (void)g;
    return add_held(arg, v);
}

/* Add every unpicked vertex below top, held exclusively, in the walked
 * subsystem.  Containment is a tree: walk_below, a few loads a vertex, its
 * stack in the kid arena; another subsystem may join or loop, and goes
 * through the graph's walker, which visits a vertex once.  0 or -1
 * (ENOMEM). */
static int add_below(grove_matcher_t *m, grove_vid_t top)
{
    if (m->dom_sub != m->g->containment) {
        grove_walk_hooks_t h = {.pre = nodex_pre, .arg = m};
        return grove_graph_walk(m->g, top, dom_sym(m), &h, NULL) < 0 ? -1 : 0;
    }
    return walk_below(m->g, top, held_below, m, &m->kids, &m->kidcap, m->nkids) < 0 ? -1 : 0;
}

/* A vertex asked for exclusively holds everything below it: add what the
 * request did not name, so the selection (and R) lists all the job has. */
int grovep_match_expand_whole(grove_matcher_t *m)
{
    size_t n = m->nsel;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = m->sel[i].v;
        if ((flags_of(m, v) & M_WHOLE) && add_below(m, v) < 0)
            return -1;
    }
    return 0;
}

int grovep_match_expand_nodex(grove_matcher_t *m)
{
    size_t n = m->nsel;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = m->sel[i].v;
        if (m->g->v[v].type == m->node_sym && add_below(m, v) < 0)
            return -1;
    }
    /* everything at or below a node is now held exclusively */
    for (size_t i = 0; i < m->nsel; i++) {
        grove_vid_t v = m->sel[i].v;
        if (m->sel[i].exclusive || !grovep_match_at_or_below_node(m, v)
            || m->node_sym == GROVE_SYM_NONE)
            continue;
        m->sel[i].exclusive = true;
        m->sel[i].amount = grovep_vertex_size(m->g, v) > 0 ? grovep_vertex_size(m->g, v) : 1;
        if (set_state(m, v, taken_of(m, v), flags_of(m, v) | M_EXCL) < 0)
            return -1;
    }
    return 0;
}

/* The ancestors of every pick up to the root are part of the selection, as
 * shared containers (a request may omit levels: nodes found below racks
 * still place the job in those racks). */
int grovep_match_add_ancestors(grove_matcher_t *m)
{
    size_t n = m->nsel;
    for (size_t i = 0; i < n; i++) {
        for (grove_vid_t a = m->par[m->sel[i].v]; a != GROVEP_NONE; a = m->par[a]) {
            uint8_t f = flags_of(m, a);
            if (f & M_PICK)
                break;
            if (set_state(m, a, taken_of(m, a), f | M_PICK | M_TOUCH) < 0
                || add_pick(m, a, 1, false, false) < 0)
                return -1;
        }
    }
    return 0;
}

/* True when an ancestor of v is an exclusive pick of this match.  Once the
 * search is over (match_complete), the answer is kept in the ancestors'
 * flags as it is found, so a whole machine's picks cost a step each, not
 * a walk to the root each: every ancestor of a pick is a pick, stamped. */
bool grovep_match_implied(grove_matcher_t *m, grove_vid_t v)
{
    bool r = false;
    grove_vid_t a;
    for (a = m->par[v]; a != GROVEP_NONE; a = m->par[a]) {
        uint8_t f = flags_of(m, a);
        if ((f & (M_PICK | M_EXCL)) == (M_PICK | M_EXCL)) {
            r = true;
            break;
        }
        if (f & M_IKNOWN) {
            r = (f & M_IMPL) != 0;
            break;
        }
    }
    for (grove_vid_t b = m->par[v]; b != a; b = m->par[b])
        if (m->stamp[b] == m->gen)
            sblk_of(m, b)->mflags[SBLK_AT(b)] |= (uint8_t)(M_IKNOWN | (r ? M_IMPL : 0));
    return r;
}

/* ---- compact reservations --------------------------------------------------- */

/* Is pick i of j held whole with no ancestor held whole (the vertices
 * below it are those a compact job leaves out)?  Every ancestor of a pick
 * is a pick. */
static bool top_whole(const grove_graph_t *g, const grove_job_t *j, size_t i)
{
    if (!j->picks[i].whole)
        return false;
    for (grove_vid_t a = g->parent[j->picks[i].v]; a != GROVEP_NONE; a = g->parent[a]) {
        size_t lo;
        GROVEP_LOWER_BOUND(lo, j->npicks, mid, j->picks[mid].v < a);
        if (lo < j->npicks && j->picks[lo].v == a && j->picks[lo].whole)
            return false;
    }
    return true;
}

struct fill {
    grove_pick_t *add;
    size_t n, cap;
    grove_vid_t *stack; /* walk_below's */
    size_t scap;
};

/* A vertex below one held whole, as add_held lists it. */
static int fill_put(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    struct fill *f = arg;
    if (grovep_grow((void **)&f->add, &f->cap, f->n + 1, sizeof(*f->add)) < 0)
        return -1;
    f->add[f->n++] = (grove_pick_t){.v = v, .amount = grovep_vertex_size(g, v),
                                    .exclusive = true, .leaf = g->first_out[v] == GROVEP_NONE};
    return 0;
}

int grovep_match_job_fill(const grove_graph_t *g, grove_job_t *j)
{
    if (!j->compact)
        return 0;
    struct fill f = {0};
    for (size_t i = 0; i < j->npicks; i++)
        if (top_whole(g, j, i)
            && walk_below(g, j->picks[i].v, fill_put, &f, &f.stack, &f.scap, 0) < 0) {
            free(f.stack);
            free(f.add);
            errno = ENOMEM;
            return -1;
        }
    free(f.stack);
    /* the merged list's room is the sort's scratch */
    size_t room = (j->npicks + f.n + 1) * sizeof(grove_pick_t);
    grove_pick_t *out = malloc(room);
    if (!out || grovep_match_sort_picks(f.add, f.n, out, room) < 0) {
        free(out);
        free(f.add);
        errno = ENOMEM;
        return -1;
    }
    /* one pick a vertex: the job's own (the request named it), or the
     * first of those below (a child reached by two edges is met twice) */
    size_t a = 0, b = 0, k = 0;
    while (a < j->npicks || b < f.n) {
        if (b == f.n || (a < j->npicks && j->picks[a].v <= f.add[b].v)) {
            grove_vid_t v = j->picks[a].v;
            out[k++] = j->picks[a++];
            while (b < f.n && f.add[b].v == v)
                b++;
        } else {
            grove_vid_t v = f.add[b].v;
            out[k++] = f.add[b++];
            while (b < f.n && f.add[b].v == v)
                b++;
        }
    }
    free(f.add);
    free(j->picks);
    for (size_t i = 0; i < k; i++)
        out[i].whole = false; /* listed: as a job never compact */
    j->picks = out;
    j->npicks = k;
    j->compact = false;
    return 0;
}

struct below_any {
    bool (*bad)(const grove_graph_t *g, grove_vid_t v);
    grove_vid_t *stack; /* walk_below's */
    size_t scap;
};

static int below_bad(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    const struct below_any *b = arg;
    return b->bad(g, v) ? 1 : 0;
}

bool grovep_match_job_below_any(const grove_graph_t *g, const grove_job_t *j,
                                bool (*bad)(const grove_graph_t *g, grove_vid_t v))
{
    struct below_any b = {bad, NULL, 0};
    bool any = false;
    for (size_t i = 0; j->compact && i < j->npicks && !any; i++)
        /* the first stops the walk; without memory for it, "maybe" */
        any = top_whole(g, j, i)
              && walk_below(g, j->picks[i].v, below_bad, &b, &b.stack, &b.scap, 0) != 0;
    free(b.stack);
    return any;
}

struct below_each {
    const grove_job_t *j;
    grove_sym_t type;
    int (*fn)(const grove_graph_t *g, grove_vid_t v, void *arg);
    void *arg;
    grove_vid_t *stack; /* walk_below's */
    size_t scap;
};

/* A vertex below one held whole: to fn when of the type asked for,
 * unless the job names it itself (looked for only then: a node of
 * sierra's has 230 vertices, 44 of them cores). */
static int below_each(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    const struct below_each *b = arg;
    if (b->type != GROVE_SYM_NONE && g->v[v].type != b->type)
        return 0;
    size_t lo;
    GROVEP_LOWER_BOUND(lo, b->j->npicks, mid, b->j->picks[mid].v < v);
    if (lo < b->j->npicks && b->j->picks[lo].v == v)
        return 0;
    return b->fn(g, v, b->arg);
}

int grove_job_each_below_whole(const grove_graph_t *g, const grove_job_t *j, grove_sym_t type,
                               int (*fn)(const grove_graph_t *g, grove_vid_t v, void *arg),
                               void *arg)
{
    if (!g || !j || !fn || (j->npicks > 0 && !j->picks)) {
        errno = EINVAL;
        return -1;
    }
    struct below_each b = {j, type, fn, arg, NULL, 0};
    int rc = 0;
    for (size_t i = 0; j->compact && i < j->npicks && rc == 0; i++)
        if (top_whole(g, j, i))
            rc = walk_below(g, j->picks[i].v, below_each, &b, &b.stack, &b.scap, 0);
    free(b.stack);
    return rc;
}

/* Drop every record of a job's picks (one batch). */
void grovep_match_unrecord(grove_graph_t *g, grove_jobid_t id, int64_t start, int64_t end,
                           grove_pick_t *p, size_t n)
{
    /* the records are few (a node held whole is one, however many
     * vertices lie below it): most jobs' fit on the stack, and a job's
     * end allocates nothing */
    size_t nrec = 0;
    for (size_t i = 0; i < n; i++)
        nrec += p[i].recorded;
    grove_vid_t small[256] = {0};
    grove_vid_t *vs = nrec <= 256 ? small : malloc(nrec * sizeof(*vs));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].recorded)
            continue;
        if (vs)
            vs[k++] = p[i].v;
        else
            grove_vertex_free(g, p[i].v, id, -1); /* no memory for a batch */
        p[i].recorded = false;
    }
    if (vs)
        grovep_job_release(g, id, start, end, vs, k);
    if (vs != small)
        free(vs);
}

/* Write the records of picks for job id over [start, end): one record at
 * each top-most exclusive pick and each leaf pool; shared containers are
 * annotated through what lies below.  0 or -1, nothing recorded on
 * failure. */
int grovep_match_record(grove_graph_t *g, grove_jobid_t id, grove_pick_t *p, size_t n,
                        int64_t start, int64_t end, const uint8_t *is_implied)
{
    /* the picks that hold a record: a whole machine's 800,000 picks are
     * 16,384 nodes held whole, so the arrays are sized by a first count */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        p[i].recorded = !is_implied[i] && (p[i].exclusive ? grovep_vertex_size(g, p[i].v) != 0 : p[i].leaf);
        k += p[i].recorded;
    }
    grove_vid_t *vs = calloc(k ? k : 1, sizeof(*vs));
    int64_t *amount = calloc(k ? k : 1, sizeof(*amount));
    bool *excl = calloc(k ? k : 1, sizeof(*excl));
    int rc = -1;
    if (!vs || !amount || !excl) { /* nothing recorded */
        for (size_t i = 0; i < n; i++)
            p[i].recorded = false;
        errno = ENOMEM;
        goto out;
    }
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].recorded)
            continue; /* grovep_match_implied, a shared container or an empty pool */
        vs[k] = p[i].v;
        amount[k] = p[i].exclusive ? grovep_vertex_size(g, p[i].v) : p[i].amount;
        excl[k] = p[i].exclusive;
        k++;
    }
    rc = grovep_job_record(g, id, start, end, vs, amount, excl, k);
    if (rc < 0)
        for (size_t i = 0; i < n; i++)
            p[i].recorded = false;
out:
    GROVEP_FREE_ALL(vs, amount, excl);
    return rc;
}
