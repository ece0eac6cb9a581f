/* match_order.c: the lists an order sorts across levels (order_types),
 * kept from one match to the next.
 *
 * A policy whose order sorts the nodes of a whole machine as one list (a
 * declarative order limited with `when`: grove_policy_t.order_types) has
 * the walk gather and sort every node below the vertex it enters, at each
 * match (match_walk.c, rank_kids): 4,096 nodes listed and sorted for a
 * job that takes one of them.  When the policy declares its order static
 * (grove_policy_t.order_static: the order of a list depends on nothing but
 * the list and what the graph's change count counts, its structure,
 * sizes, names, ranks, properties and statuses), the list made is kept
 * here and given to the next match that would make it again: the same
 * vertex and subsystem, the same request types (they decide which levels
 * the gathering stops at) and the same change count.  The list is what a
 * list made anew gives; the walk still checks the vertices on it as it
 * takes them (the levels left out, their records in the window).
 *
 * This file holds the kept lists, and the checks of an order's lists
 * against a policy's declared id order (grove_policy_t.id_check): how the
 * lists are made is match_walk.c's (rank_kids, order_kids), and nothing
 * here calls a hook.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* How many lists a matcher keeps (the least recently used goes first):
 * below the root of a machine one is made a match; a request of another
 * shape stops at other levels. */
#define OKEEP_N 4

struct okept {
    bool live;
    grove_vid_t v;     /* the vertex entered */
    uint8_t sub;       /* the subsystem walked */
    uint64_t gen;      /* the graph's change count when made */
    uint64_t used;     /* when last given (the matcher's okeep tick) */
    size_t ntypes;
    grove_sym_t *types; /* [ntypes] the request's types, in order */
    grove_vid_t *list; /* [n] the list */
    uint32_t n;
};

struct grovep_okeep {
    struct okept k[OKEEP_N];
    uint64_t tick;
};

static void okept_drop(struct okept *k)
{
    free(k->types);
    free(k->list);
    memset(k, 0, sizeof(*k));
}

void grovep_match_order_clear(grove_matcher_t *m)
{
    struct grovep_okeep *ok = m->okeep;
    if (!ok)
        return;
    for (size_t i = 0; i < OKEEP_N; i++)
        okept_drop(&ok->k[i]);
    free(ok);
    m->okeep = NULL;
}

bool grovep_match_order_keeps(const grove_matcher_t *m)
{
    return m->rank_order && !m->rank_score && m->pol.order_static;
}

/* Does k hold a list of v for this match's request types, made at any
 * change count? */
static bool okept_same(const grove_matcher_t *m, const struct okept *k, grove_vid_t v)
{
    return k->live && k->v == v && k->sub == m->dom_sub && k->ntypes == m->preq.ntypes
           && (!k->ntypes || !memcmp(k->types, m->preq.types, k->ntypes * sizeof(*k->types)));
}

/* Does k hold the list of v for this match's request? */
static bool okept_fits(const grove_matcher_t *m, const struct okept *k, grove_vid_t v)
{
    return okept_same(m, k, v) && k->gen == grove_graph_changes(m->g);
}

const grove_vid_t *grovep_match_order_find(grove_matcher_t *m, grove_vid_t v, uint32_t *n)
{
    struct grovep_okeep *ok = m->okeep;
    for (size_t i = 0; ok && i < OKEEP_N; i++)
        if (okept_fits(m, &ok->k[i], v)) {
            ok->k[i].used = ++ok->tick;
            *n = ok->k[i].n;
            return ok->k[i].list;
        }
    return NULL;
}

void grovep_match_order_store(grove_matcher_t *m, grove_vid_t v, const grove_vid_t *list,
                              uint32_t n)
{
    if (!m->okeep && !(m->okeep = calloc(1, sizeof(*m->okeep))))
        return; /* nothing kept: the next match makes it again */
    struct grovep_okeep *ok = m->okeep;
    struct okept *k = &ok->k[0];
    for (size_t i = 0; i < OKEEP_N; i++) {
        struct okept *c = &ok->k[i];
        if (!c->live || okept_same(m, c, v)) {
            /* a free slot, or the older list of this vertex for these
             * request types (another shape's list of the same vertex
             * stays: a stream of shapes in turn would make each anew) */
            k = c;
            break;
        }
        if (c->used < k->used)
            k = c;
    }
    okept_drop(k);
    size_t nt = m->preq.ntypes;
    k->types = malloc((nt ? nt : 1) * sizeof(*k->types));
    k->list = malloc((n ? n : 1) * sizeof(*k->list));
    if (!k->types || !k->list) {
        okept_drop(k);
        return;
    }
    if (nt)
        memcpy(k->types, m->preq.types, nt * sizeof(*k->types));
    if (n)
        memcpy(k->list, list, n * sizeof(*list));
    k->ntypes = nt;
    k->n = n;
    k->v = v;
    k->sub = m->dom_sub;
    k->gen = grove_graph_changes(m->g);
    k->used = ++ok->tick;
    k->live = true;
}

/* ---- an order's lists checked against the declared id order (id_check) ---- */

/* Under a policy whose id_order is checked (grove_policy_t.id_check),
 * note whether the n vertices the order gave for v are in id order, the
 * declared direction (equal ids in any order): the first list that is not
 * turns the ranking by id off for the rest of the match (id_dir), or,
 * under GROVE_ID_CHECK_RAISE, fails the match naming the two vertices.
 * Only lists the match asks for are looked at, never lists of the
 * matcher's own making.  0, or -1 (errno EINVAL, m->err set). */
int grovep_match_order_check_list(grove_matcher_t *m, grove_vid_t v, const grove_vid_t *kids,
                                  size_t n)
{
    if (m->pol.id_check == GROVE_ID_CHECK_NONE || m->id_moved || !m->pol.id_order)
        return 0;
    int64_t dir = (int64_t)m->pol.id_order;
    for (size_t i = 1; i < n; i++) {
        int64_t a = grove_vertex_id(m->g, kids[i - 1]), b = grove_vertex_id(m->g, kids[i]);
        if ((b - a) * dir >= 0)
            continue;
        if (m->pol.id_check == GROVE_ID_CHECK_RAISE) {
            grove_error_set(m->err, NULL, 0,
                            "policy %s: id_order = \"%s\", but its order put %s%lld before "
                            "%s%lld below %s",
                            m->pol.name, dir > 0 ? "ascending" : "descending",
                            grove_vertex_type(m->g, kids[i - 1]), (long long)a,
                            grove_vertex_type(m->g, kids[i]), (long long)b,
                            grove_vertex_name(m->g, v));
            errno = EINVAL;
            return -1;
        }
        m->id_moved = true;
        return 0;
    }
    return 0;
}

/* Under GROVE_ID_CHECK_FOLLOW, note whether a ranked list (made now, kept
 * for the window or from an earlier match) has each type's vertices in id
 * order (id_moved): a list of the machine's nodes sorted by the policy's
 * order or score, where the walk goes next, takes the ranking by id away
 * when it is not. */
void grovep_match_rank_check(grove_matcher_t *m, const grove_vid_t *list, uint32_t n)
{
    if (m->pol.id_check != GROVE_ID_CHECK_FOLLOW || m->id_moved || !m->pol.id_order)
        return;
    struct {
        grove_sym_t t;
        int64_t id;
    } last[RANK_MEMO_N];
    size_t nl = 0;
    int64_t dir = (int64_t)m->pol.id_order;
    for (uint32_t i = 0; i < n; i++) {
        grove_sym_t t = m->g->v[list[i]].type;
        int64_t id = grove_vertex_id(m->g, list[i]);
        size_t k = 0;
        while (k < nl && last[k].t != t)
            k++;
        if (k == nl) {
            if (nl == RANK_MEMO_N)
                continue; /* more types than kept: those past it go unchecked */
            last[nl++].t = t;
        } else if ((id - last[k].id) * dir < 0) {
            m->id_moved = true;
            return;
        }
        last[k].id = id;
    }
}
