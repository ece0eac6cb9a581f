/* graph_edge.c: the graph's edges.
 *
 * Holds adding edges (grove_graph_add_edge, grove_graph_add_child, the
 * readers' grovep_add_edge*), pairing opposites, removing edges, the
 * out-lists and their tails, the in-lists of edges with no opposite, and
 * the edge accessors and iterators.  Edges are 24-byte records chained per
 * vertex (graph_private.h); in containment a "contains" edge and its "in"
 * opposite are one pair.
 *
 * It must not hold vertices' data, names or indexes (graph.c,
 * graph_index.c), paths (graph_path.c), the copy (graph_copy.c) or
 * anything of the floors above the graph.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "graph_private.h"
#include "graph_parts.h"

grove_eid_t grovep_far_opposite(const grove_graph_t *g, grove_eid_t e)
{
    const grovep_chain_t *b = grovep_map_get(&g->big_ids, GROVEP_FAR_OPP_KEY + e);
    return b ? b->head : GROVEP_NONE;
}

static int small_index(grove_sym_t *arr, size_t *n, grove_sym_t sym)
{
    for (size_t i = 0; i < *n; i++)
        if (arr[i] == sym)
            return (int)i;
    if (*n >= GROVEP_MAX_SMALL) {
        errno = EOVERFLOW;
        return -1;
    }
    arr[*n] = sym;
    return (int)(*n)++;
}

/* Subsystem / relationship index of a symbol, adding it if new; -1 with
 * EOVERFLOW past GROVEP_MAX_SMALL. */
static int subsys_index(grove_graph_t *g, grove_sym_t sym)
{
    int i = small_index(g->subsys, &g->nsubsys, sym);
    if (i >= 0 && sym == g->sym_containment)
        g->containment = (uint8_t)i;
    return i;
}

static int rel_index(grove_graph_t *g, grove_sym_t sym)
{
    return small_index(g->rels, &g->nrels, sym);
}

/* Room in g->big_ids for two more entries (the far opposites of a pair):
 * 0, or -1 (ENOMEM) with nothing changed. */
static int opp_room(grove_graph_t *g)
{
    grovep_map_t *m = &g->big_ids;
    size_t cap = m->cap ? m->cap : 64;
    while ((m->count + 2) * 2 > cap)
        cap *= 2;
    return cap == m->cap ? 0 : grovep_map_rehash(m, cap);
}

/* Make o the opposite of edge e (GROVEP_NONE: none).  A far one needs a
 * slot of g->big_ids: opp_room first. */
static void opp_set(grove_graph_t *g, grove_eid_t e, grove_eid_t o)
{
    if (g->e[e].opp == GROVEP_OPP_FAR)
        grovep_map_remove(&g->big_ids, GROVEP_FAR_OPP_KEY + e);
    int64_t d = o == GROVEP_NONE ? 0 : (int64_t)o - (int64_t)e;
    if (d > GROVEP_OPP_FAR && d <= INT8_MAX) {
        g->e[e].opp = (int8_t)d;
        return;
    }
    grovep_chain_t *b = grovep_map_put(&g->big_ids, GROVEP_FAR_OPP_KEY + e); /* room made */
    b->head = o;
    g->e[e].opp = GROVEP_OPP_FAR;
}

/* Leave e and its opposite o with none. */
static void unpair(grove_graph_t *g, grove_eid_t e, grove_eid_t o)
{
    opp_set(g, o, GROVEP_NONE);
    opp_set(g, e, GROVEP_NONE);
}

/* Would o as the opposite of e take a slot of g->big_ids? */
static inline bool opp_far(grove_eid_t e, grove_eid_t o)
{
    int64_t d = (int64_t)o - (int64_t)e;
    return o != GROVEP_NONE && (d <= GROVEP_OPP_FAR || d > INT8_MAX);
}

/* ---- edges --------------------------------------------------------------- */

/* The tails of long out-lists.  Edges are appended to a vertex's
 * out-list; a list shorter than GROVEP_TAIL_WALK is walked to its tail
 * (a core's, a node's), and a vertex whose list grows to that length (a
 * socket, a rack) keeps its tail in g->tails: open addressing on 8-byte
 * slots, (vertex + 1) << 32 | tail edge (GROVEP_NONE once the list is
 * empty again), 0 when empty, at most half full; the vertex's flag
 * GROVEP_V_TAIL says it has one.  A slot is never dropped.  In place of a tail per vertex: 4 bytes a vertex. */

static uint64_t tail_key(grove_vid_t v)
{
    return (uint64_t)(v + 1) << 32;
}

static uint64_t *tails_find(const grove_graph_t *cg, grove_vid_t v)
{
    if (!(cg->v[v].flags & GROVEP_V_TAIL))
        return NULL;
    /* the slot found last, tried first (a socket's cores come in a run):
     * a cache, so the graph as its functions show it does not change */
    grove_graph_t *g = (grove_graph_t *)(uintptr_t)cg;
    size_t mask = g->tailcap - 1;
    if ((g->tails[g->tail_hit & mask] >> 32) == (uint64_t)v + 1)
        return &g->tails[g->tail_hit & mask];
    for (size_t j = mix64(v) & mask; g->tails[j]; j = (j + 1) & mask)
        if ((g->tails[j] >> 32) == (uint64_t)v + 1) {
            g->tail_hit = j;
            return &g->tails[j];
        }
    return NULL;
}

/* Room for one more slot.  0 or -1 (ENOMEM), the table unchanged. */
static int tails_room(grove_graph_t *g)
{
    if ((g->ntails + 1) * 2 <= g->tailcap)
        return 0;
    size_t cap = g->tailcap ? 2 * g->tailcap : 256;
    uint64_t *t = calloc(cap, sizeof(*t));
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < g->tailcap; i++) {
        uint64_t s = g->tails[i];
        if (!s)
            continue;
        size_t j = mix64((s >> 32) - 1) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = s;
    }
    free(g->tails);
    g->tails = t;
    g->tailcap = cap;
    return 0;
}

/* Keep e as the tail of v, which has no slot yet (after tails_room). */
static void tails_put(grove_graph_t *g, grove_vid_t v, grove_eid_t e)
{
    size_t mask = g->tailcap - 1, j = mix64(v) & mask;
    while (g->tails[j])
        j = (j + 1) & mask;
    g->tails[j] = tail_key(v) | e;
    g->ntails++;
    g->v[v].flags |= GROVEP_V_TAIL;
}

/* The last edge of v's out-list, or GROVEP_NONE; *slot (if asked) gets
 * v's slot in g->tails or NULL, and *n (if asked) the length of the list
 * when it was walked (0 with a slot). */
static grove_eid_t out_last(const grove_graph_t *g, grove_vid_t v, uint64_t **slot, size_t *n)
{
    uint64_t *ts = tails_find(g, v);
    if (slot)
        *slot = ts;
    if (n)
        *n = 0;
    if (ts)
        return (grove_eid_t)*ts;
    grove_eid_t last = GROVEP_NONE;
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
        last = e;
        if (n)
            ++*n;
    }
    return last;
}

static bool rel_is_up(const grove_graph_t *g, grove_sym_t rel)
{
    return rel == g->sym_in;
}

/* The downward in-edge of v in subsystem index sub, or GROVEP_NONE. */
grove_eid_t grovep_down_in_edge(const grove_graph_t *g, grove_vid_t v, int sub)
{
    for (grove_eid_t e = grovep_in_first(g, v); e != GROVEP_NONE; e = grovep_in_next(g, e))
        if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP))
            return e;
    return GROVEP_NONE;
}

/* An edge src -> dst in subsystem sub, not up/down as asked, or NONE. */
static grove_eid_t find_edge(const grove_graph_t *g, grove_vid_t src, grove_vid_t dst, int sub,
                             int want_up)
{
    /* In containment at most one unpaired downward edge joins two vertices
     * (a vertex has one parent), and when it exists it is usually the last
     * edge added from src (add_child, or a JGF file listing each "in" edge
     * after its "contains" edge): look there before scanning every child
     * of src.  A vertex just made (a "contains" edge's child) has no
     * edge out at all. */
    if (g->first_out[src] == GROVEP_NONE)
        return GROVEP_NONE;
    grove_eid_t last = out_last(g, src, NULL, NULL);
    if (!want_up && last != GROVEP_NONE && g->subsys[sub] == g->sym_containment
        && g->e[last].dst == dst && g->e[last].sub == sub
        && !(g->e[last].flags & GROVEP_E_UP) && g->e[last].opp == 0)
        return last;
    for (grove_eid_t e = g->first_out[src]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].dst == dst && g->e[e].sub == sub
            && !!(g->e[e].flags & GROVEP_E_UP) == want_up
            && g->e[e].opp == 0)
            return e;
    return GROVEP_NONE;
}

static grove_eid_t add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                            grove_error_t *err);

static void edge_kill(grove_graph_t *g, grove_eid_t e, grove_vid_t src);

/* ---- the in-lists of the edges with no opposite (g->pend, g->uin_*) ---- */

/* Make g->uin_first cover vertex v and g->uin_next, g->uin_src edge x:
 * 0, or -1 (ENOMEM) with nothing changed. */
static int uin_cover(grove_graph_t *g, grove_vid_t v, grove_eid_t x)
{
    size_t cap = g->uin_nv;
    if (v >= cap) {
        if (grovep_grow((void **)&g->uin_first, &cap, (size_t)v + 1, sizeof(*g->uin_first)) < 0)
            return -1;
        for (size_t i = g->uin_nv; i < cap; i++)
            g->uin_first[i] = GROVEP_NONE;
        g->uin_nv = cap;
    }
    cap = g->uin_ne;
    if (x >= cap) {
        size_t scap = g->uin_ne;
        if (grovep_grow((void **)&g->uin_src, &scap, (size_t)x + 1, sizeof(*g->uin_src)) < 0
            || grovep_grow((void **)&g->uin_next, &cap, scap, sizeof(*g->uin_next)) < 0)
            return -1; /* uin_src larger, harmless */
        for (size_t i = g->uin_ne; i < scap; i++)
            g->uin_next[i] = g->uin_src[i] = GROVEP_NONE;
        g->uin_ne = scap;
    }
    return 0;
}

/* Room for one more edge with no opposite: g->pend moved to the head of
 * its destination's list.  0, or -1 (ENOMEM) with nothing changed. */
static int uin_room_slow(grove_graph_t *g)
{
    grove_eid_t x = g->pend;
    grove_vid_t v = g->e[x].dst;
    if (uin_cover(g, v, x) < 0)
        return -1;
    g->uin_next[x] = g->uin_first[v];
    g->uin_first[v] = x;
    g->uin_src[x] = g->pend_src;
    g->pend = GROVEP_NONE;
    return 0;
}

static inline int uin_room(grove_graph_t *g)
{
    return g->pend == GROVEP_NONE ? 0 : uin_room_slow(g);
}

/* Live edge x, from src, has no opposite now: it becomes g->pend
 * (uin_room first). */
static inline void uin_add(grove_graph_t *g, grove_eid_t x, grove_vid_t src)
{
    g->pend = x;
    g->pend_src = src;
}

/* Take live edge x, with no opposite, out of g->pend or its list: it is
 * about to have one, or to go. */
static void uin_take_slow(grove_graph_t *g, grove_eid_t x)
{
    grove_eid_t *p = &g->uin_first[g->e[x].dst];
    while (*p != x)
        p = &g->uin_next[*p];
    *p = g->uin_next[x];
}

static inline void uin_take(grove_graph_t *g, grove_eid_t x)
{
    if (x == g->pend)
        g->pend = GROVEP_NONE;
    else
        uin_take_slow(g, x);
}

grove_eid_t grove_graph_add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                                 const char *subsystem, const char *rel, grove_error_t *err)
{
    return grovep_add_edge(g, src, dst, subsystem, rel, -1, err);
}

/* Are src and dst two live vertices, not one?  Else false with EINVAL and
 * err filled. */
static bool ends_ok(const grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                    grove_error_t *err)
{
    if (!grovep_alive(g, src) || !grovep_alive(g, dst)) {
        grove_error_set(err, NULL, 0, "edge %u -> %u: no such vertex", src, dst);
        errno = EINVAL;
        return false;
    }
    if (src == dst) {
        grove_error_set(err, NULL, 0, "edge %u -> %u: a vertex cannot be its own neighbour",
                        src, dst);
        errno = EINVAL;
        return false;
    }
    return true;
}

grove_eid_t grovep_add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            const char *subsystem, const char *rel, int up_flag,
                            grove_error_t *err)
{
    if (!ends_ok(g, src, dst, err))
        return GROVE_EID_NONE;
    /* the well-known names without hashing them */
    grove_sym_t ssym = !subsystem || !strcmp(subsystem, GROVE_CONTAINMENT)
                           ? g->sym_containment
                           : grove_intern(g->strings, subsystem);
    grove_sym_t rsym = !rel || !strcmp(rel, GROVE_CONTAINS) ? g->sym_contains
                       : !strcmp(rel, GROVE_IN)             ? g->sym_in
                                                            : grove_intern(g->strings, rel);
    if (ssym == GROVE_SYM_NONE || rsym == GROVE_SYM_NONE)
        return GROVE_EID_NONE;
    return add_edge(g, src, dst, ssym, rsym, up_flag, err);
}

grove_eid_t grovep_add_edge_sym(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                                grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                                grove_error_t *err)
{
    if (!ends_ok(g, src, dst, err))
        return GROVE_EID_NONE;
    return add_edge(g, src, dst, ssym, rsym, up_flag, err);
}

/* The rest of an edge's making, once its ends are checked and its names
 * are symbols. */
static grove_eid_t add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                            grove_error_t *err)
{
    g->chg_gen++;
    bool up = up_flag < 0 ? rel_is_up(g, rsym) : up_flag > 0;
    size_t nsub_before = g->nsubsys, nrel_before = g->nrels;
    int sub = ssym == g->sym_containment && g->containment != 0xff ? g->containment
                                                                    : subsys_index(g, ssym);
    int ri = sub < 0 ? -1 : rel_index(g, rsym);
    if (sub < 0 || ri < 0) {
        grove_error_set(err, NULL, 0, "too many subsystems or relationships (at most %d)",
                        GROVEP_MAX_SMALL);
        g->nsubsys = nsub_before;
        g->nrels = nrel_before;
        return GROVE_EID_NONE;
    }
    /* containment is a tree of "contains" edges; a downward containment edge
     * of another relationship links a vertex into a second hierarchy (a
     * storage unit shared by two levels) without making it its parent */
    bool primary = ssym == g->sym_containment && !up && rsym == g->sym_contains;
    if (ssym == g->sym_containment && !up) {
        if (primary && g->parent[dst] != GROVEP_NONE) {
            grove_error_set(err, NULL, 0,
                            "vertex %s (%u) would have two containment parents (%s and %s)",
                            grove_vertex_name(g, dst), dst,
                            grove_vertex_name(g, g->parent[dst]), grove_vertex_name(g, src));
            errno = EINVAL;
            goto undo;
        }
        /* dst with no edge out has no child: it cannot be above src (so
         * building a tree top-down never walks up a deep chain) */
        for (grove_vid_t a = g->first_out[dst] == GROVEP_NONE ? GROVEP_NONE : src;
             a != GROVEP_NONE; a = g->parent[a]) {
            if (a == dst) {
                grove_error_set(err, NULL, 0,
                                "edge %s (%u) -> %s (%u) would make a containment cycle",
                                grove_vertex_name(g, src), src, grove_vertex_name(g, dst),
                                dst);
                errno = EINVAL;
                goto undo;
            }
        }
    }
    /* the tail of src's out-list, and room to keep it once the list is
     * long; an unpaired edge in the other direction to pair with (it has
     * none: nothing of it to drop from g->big_ids), or room to keep the
     * new edge with no opposite */
    size_t nout;
    uint64_t *ts;
    grove_eid_t last = out_last(g, src, &ts, &nout);
    bool track = !ts && nout + 1 >= GROVEP_TAIL_WALK;
    /* a pair's second edge: its first is g->pend and the last edge made,
     * so the last of dst's out-list, where find_edge would look first */
    grove_eid_t o = g->pend;
    if (!(up && o != GROVEP_NONE && (size_t)o + 1 == g->ne && g->pend_src == dst
          && g->e[o].dst == src && g->e[o].sub == sub && !(g->e[o].flags & GROVEP_E_UP)
          && g->subsys[sub] == g->sym_containment))
        o = find_edge(g, dst, src, sub, !up);
    if ((track && tails_room(g) < 0)
        || (o == GROVEP_NONE ? uin_room(g) : opp_far((grove_eid_t)g->ne, o) ? opp_room(g) : 0)
               < 0
        || grovep_grow((void **)&g->e, &g->ecap, g->ne + 1, sizeof(*g->e)) < 0)
        goto undo;
    grove_eid_t e = (grove_eid_t)g->ne++;
    g->e[e] = (grovep_edge_t){
        .dst = dst,
        .next_out = GROVEP_NONE,
        .sub = (uint8_t)sub,
        .rel = (uint8_t)ri,
        .flags = up ? GROVEP_E_UP : 0,
        .opp = 0,
    };
    if (last == GROVEP_NONE)
        g->first_out[src] = e;
    else
        g->e[last].next_out = e;
    if (ts)
        *ts = tail_key(src) | e;
    else if (track)
        tails_put(g, src, e);
    g->nlive_e++;
    if (primary) {
        g->parent[dst] = src;
        g->agg_dirty = true;
    }
    if (o == GROVEP_NONE) {
        uin_add(g, e, src);
    } else {
        uin_take(g, o);
        if (!opp_far(e, o)) {
            g->e[o].opp = (int8_t)((int64_t)e - (int64_t)o);
            g->e[e].opp = (int8_t)((int64_t)o - (int64_t)e);
        } else { /* room made */
            opp_set(g, o, e);
            opp_set(g, e, o);
        }
    }
    return e;
undo:
    g->nsubsys = nsub_before;
    g->nrels = nrel_before;
    if (g->containment >= g->nsubsys)
        g->containment = 0xff;
    return GROVE_EID_NONE;
}

int grove_graph_add_child(grove_graph_t *g, grove_vid_t parent, grove_vid_t child,
                          const char *subsystem, grove_error_t *err)
{
    /* d may pair with an "in" edge made before, which is left with no
     * opposite again if u cannot be made: g->pend empty to take it */
    if (uin_room(g) < 0)
        return -1;
    grove_eid_t d = grove_graph_add_edge(g, parent, child, subsystem, GROVE_CONTAINS, err);
    if (d == GROVE_EID_NONE)
        return -1;
    grove_eid_t u = grove_graph_add_edge(g, child, parent, subsystem, GROVE_IN, err);
    if (u == GROVE_EID_NONE) {
        grove_eid_t o = grovep_edge_opposite(g, d);
        if (o == GROVEP_NONE) {
            grovep_edge_remove(g, d);
        } else {
            unpair(g, d, o);
            edge_kill(g, d, parent);
            uin_add(g, o, child); /* g->pend: d's making left it empty */
        }
        return -1;
    }
    return 0;
}

int grove_graph_set_opposite(grove_graph_t *g, grove_eid_t a, grove_eid_t b)
{
    g->chg_gen++;
    if (!grove_graph_has_edge(g, a) || !grove_graph_has_edge(g, b) || a == b
        || grovep_edge_src(g, a) != g->e[b].dst || g->e[a].dst != grovep_edge_src(g, b)
        || g->e[a].sub != g->e[b].sub) {
        errno = EINVAL;
        return -1;
    }
    grove_eid_t oa = grovep_edge_opposite(g, a), ob = grovep_edge_opposite(g, b);
    /* a's and b's opposites of now, if not each other, are left with
     * none: room in the in-lists for both, when there is no pend */
    bool lose_a = oa != GROVEP_NONE && oa != b, lose_b = ob != GROVEP_NONE && ob != a;
    if ((opp_far(a, b) && opp_room(g) < 0)
        || ((lose_a || lose_b)
            && (uin_cover(g, (grove_vid_t)g->nv - 1, (grove_eid_t)g->ne - 1) < 0
                || uin_room(g) < 0)))
        return -1;
    grove_eid_t upe = g->rels[g->e[a].rel] == g->sym_in ? a : b;
    g->agg_dirty = true;
    grove_eid_t down = upe == a ? b : a;
    if (oa == GROVEP_NONE)
        uin_take(g, a);
    if (ob == GROVEP_NONE)
        uin_take(g, b);
    if (oa != GROVEP_NONE)
        opp_set(g, oa, GROVEP_NONE);
    if (ob != GROVEP_NONE)
        opp_set(g, ob, GROVEP_NONE);
    opp_set(g, a, b);
    opp_set(g, b, a);
    /* the arrays cover every vertex and edge: the first left with none is
     * g->pend (empty now), the second goes to its list */
    if (lose_a)
        uin_add(g, oa, g->e[a].dst);
    if (lose_b) {
        if (lose_a)
            (void)uin_room(g); /* covered: cannot fail */
        uin_add(g, ob, g->e[b].dst);
    }
    bool containment = g->subsys[g->e[a].sub] == g->sym_containment;
    if (!(g->e[upe].flags & GROVEP_E_UP)) {
        g->e[upe].flags |= GROVEP_E_UP;
        if (containment && g->parent[g->e[upe].dst] == g->e[down].dst)
            g->parent[g->e[upe].dst] = GROVEP_NONE;
    }
    if (g->e[down].flags & GROVEP_E_UP) {
        g->e[down].flags &= (uint8_t)~GROVEP_E_UP;
        if (containment)
            g->parent[g->e[down].dst] = g->e[upe].dst;
    }
    return 0;
}

/* Take e out of the out-list starting at *head.  The edge before it, or
 * GROVEP_NONE when e was first. */
static grove_eid_t list_unlink(grove_graph_t *g, grove_eid_t *head, grove_eid_t e)
{
    grove_eid_t prev = GROVEP_NONE;
    for (grove_eid_t x = *head; x != GROVEP_NONE; prev = x, x = g->e[x].next_out)
        if (x == e) {
            *(prev == GROVEP_NONE ? head : &g->e[prev].next_out) = g->e[e].next_out;
            break;
        }
    return prev;
}

/* Remove live edge e, whose opposite is gone or going too. */
/* Remove live edge e from src, with no opposite now (or its opposite is
 * going too); it keeps its source in next_out. */
static void edge_kill(grove_graph_t *g, grove_eid_t e, grove_vid_t src)
{
    g->chg_gen++;
    grovep_edge_t *ed = &g->e[e];
    grove_eid_t prev = list_unlink(g, &g->first_out[src], e);
    uint64_t *ts = tails_find(g, src);
    if (ts && (grove_eid_t)*ts == e)
        *ts = tail_key(src) | prev;
    if (g->subsys[ed->sub] == g->sym_containment && !(ed->flags & GROVEP_E_UP)
        && g->parent[ed->dst] == src) {
        g->parent[ed->dst] = GROVEP_NONE;
        g->agg_dirty = true;
    }
    ed->flags |= GROVEP_E_DEAD;
    ed->next_out = src;
    g->nlive_e--;
}

void grovep_edge_remove(grove_graph_t *g, grove_eid_t e)
{
    if (g->e[e].flags & GROVEP_E_DEAD)
        return;
    grove_eid_t o = grovep_edge_opposite(g, e);
    grove_vid_t src = grovep_edge_src(g, e);
    if (o == GROVEP_NONE) {
        uin_take(g, e);
    } else {
        unpair(g, e, o);
        edge_kill(g, o, g->e[e].dst);
    }
    edge_kill(g, e, src);
}

grove_vid_t grove_edge_src(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? grovep_edge_src(g, e) : GROVE_VID_NONE;
}

grove_vid_t grove_edge_dst(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? g->e[e].dst : GROVE_VID_NONE;
}

grove_sym_t grove_edge_subsystem(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? g->subsys[g->e[e].sub] : GROVE_SYM_NONE;
}

grove_sym_t grove_edge_relation(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? g->rels[g->e[e].rel] : GROVE_SYM_NONE;
}

grove_eid_t grove_edge_opposite(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne ? grovep_edge_opposite(g, e) : GROVE_EID_NONE;
}

bool grove_edge_is_up(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && (g->e[e].flags & GROVEP_E_UP);
}

grove_eid_t grove_vertex_first_out(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? g->first_out[v] : GROVE_EID_NONE;
}

grove_eid_t grove_edge_next_out(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && !(g->e[e].flags & GROVEP_E_DEAD) ? g->e[e].next_out : GROVE_EID_NONE;
}

grove_eid_t grove_vertex_first_in(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv ? grovep_in_first(g, v) : GROVE_EID_NONE;
}

grove_eid_t grove_edge_next_in(const grove_graph_t *g, grove_eid_t e)
{
    return e < g->ne && !(g->e[e].flags & GROVEP_E_DEAD) ? grovep_in_next(g, e) : GROVE_EID_NONE;
}
