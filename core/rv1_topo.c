/* rv1_topo.c: the graph of an R whose ranks have hwloc topologies (see
 * rv1_topo.h): each rank's node in its topology's locality form, checked
 * against R first; and the ranks of a scheduling graph that disagree with
 * R_lite rebuilt flat.
 *
 * Workload: one build per instance R (16,384 ranks and more, a few
 * classes of alike nodes), and one per grow.  A class's ids are read from
 * its topology once; each rank costs a look at its R_lite children and
 * the vertices of its node, nothing per vertex of the topology that R
 * does not name.
 *
 * This file must not read hwloc (topo.c does) nor R's text (rv1.c): it
 * joins the two through rv1_private.h and topo.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose.h"
#include "error_private.h"
#include "rv1_private.h"
#include "rv1_topo.h"
#include "util.h"

struct rclass {
    grove_idset_t *ranks;
    grove_topo_t *t;
    grove_idset_t *cores, *gpus; /* the ids the topology has */
};

struct rnote {
    char *why;
    grove_idset_t *ranks;
};

struct grove_rtopo {
    struct rclass *c;
    size_t nc, ccap;
    grove_idset_t *placed; /* the last build's ranks with a topology */
    struct rnote *notes;
    size_t nnotes, ncap;
    size_t more; /* ranks that differed past the last note kept */
};

grove_rtopo_t *grove_rtopo_create(void)
{
    grove_rtopo_t *rt = calloc(1, sizeof(*rt));
    if (!rt || !(rt->placed = grove_idset_create())) {
        free(rt);
        errno = ENOMEM;
        return NULL;
    }
    return rt;
}

static void notes_clear(grove_rtopo_t *rt)
{
    for (size_t i = 0; i < rt->nnotes; i++) {
        free(rt->notes[i].why);
        grove_idset_destroy(rt->notes[i].ranks);
    }
    rt->nnotes = 0;
    rt->more = 0;
}

void grove_rtopo_destroy(grove_rtopo_t *rt)
{
    if (!rt)
        return;
    int e = errno;
    for (size_t i = 0; i < rt->nc; i++) {
        grove_idset_destroy(rt->c[i].ranks);
        grove_idset_destroy(rt->c[i].cores);
        grove_idset_destroy(rt->c[i].gpus);
        grove_topo_destroy(rt->c[i].t);
    }
    free(rt->c);
    notes_clear(rt);
    free(rt->notes);
    grove_idset_destroy(rt->placed);
    free(rt);
    errno = e;
}

int grove_rtopo_add_take(grove_rtopo_t *rt, const grove_idset_t *ranks, grove_topo_t *t)
{
    if (!rt || !ranks || !t) {
        grove_topo_destroy(t);
        errno = EINVAL;
        return -1;
    }
    struct rclass c = {grove_idset_copy(ranks), t, grove_topo_ids(t, "core"),
                       grove_topo_ids(t, "gpu")};
    if (!c.ranks || !c.cores || !c.gpus
        || grovep_grow((void **)&rt->c, &rt->ccap, rt->nc + 1, sizeof(*rt->c)) < 0) {
        grove_idset_destroy(c.ranks);
        grove_idset_destroy(c.cores);
        grove_idset_destroy(c.gpus);
        grove_topo_destroy(t);
        errno = ENOMEM;
        return -1;
    }
    rt->c[rt->nc++] = c;
    return 0;
}

size_t grove_rtopo_count(const grove_rtopo_t *rt)
{
    return rt ? rt->nc : 0;
}

int grove_rtopo_class(const grove_rtopo_t *rt, size_t i, const grove_idset_t **ranks,
                      const grove_topo_t **t)
{
    if (!rt || i >= rt->nc) {
        errno = ERANGE;
        return -1;
    }
    if (ranks)
        *ranks = rt->c[i].ranks;
    if (t)
        *t = rt->c[i].t;
    return 0;
}

const grove_idset_t *grove_rtopo_placed(const grove_rtopo_t *rt)
{
    return rt ? rt->placed : NULL;
}

size_t grove_rtopo_notes(const grove_rtopo_t *rt, size_t *more)
{
    if (more)
        *more = rt ? rt->more : 0;
    return rt ? rt->nnotes : 0;
}

int grove_rtopo_note(const grove_rtopo_t *rt, size_t i, const grove_idset_t **ranks,
                     const char **why)
{
    if (!rt || i >= rt->nnotes) {
        errno = ERANGE;
        return -1;
    }
    if (ranks)
        *ranks = rt->notes[i].ranks;
    if (why)
        *why = rt->notes[i].why;
    return 0;
}

/* A new build: the last one's report dropped. */
static int report_reset(grove_rtopo_t *rt)
{
    notes_clear(rt);
    grove_idset_destroy(rt->placed);
    return (rt->placed = grove_idset_create()) ? 0 : -1;
}

/* Note that rank differed: why (a difference, not naming the rank) joins
 * the note of the same text.  0, or -1 (ENOMEM). */
static int note(grove_rtopo_t *rt, unsigned rank, const char *why)
{
    for (size_t i = 0; i < rt->nnotes; i++)
        if (!strcmp(rt->notes[i].why, why))
            return grove_idset_set(rt->notes[i].ranks, rank);
    if (rt->nnotes == GROVE_RTOPO_NOTES_MAX) {
        rt->more++;
        return 0;
    }
    struct rnote n = {strdup(why), grove_idset_create()};
    if (!n.why || !n.ranks || grove_idset_set(n.ranks, rank) < 0
        || grovep_grow((void **)&rt->notes, &rt->ncap, rt->nnotes + 1, sizeof(*rt->notes)) < 0) {
        free(n.why);
        grove_idset_destroy(n.ranks);
        errno = ENOMEM;
        return -1;
    }
    rt->notes[rt->nnotes++] = n;
    return 0;
}

/* "cores 0-95" into buf: a type's ids, or "no cores". */
static void ids_text(char *buf, size_t len, const char *what, const grove_idset_t *ids)
{
    char *s = ids && !grove_idset_empty(ids) ? grove_idset_encode(ids, GROVE_IDSET_FLAG_RANGE)
                                             : NULL;
    if (s && strlen(s) > 64)
        snprintf(buf, len, "%zu %s", grove_idset_count(ids), what);
    else if (s)
        snprintf(buf, len, "%s %s", what, s);
    else
        snprintf(buf, len, "no %s", what);
    free(s);
}

/* R's ids of type name on rk, or NULL when it names none. */
static const grove_idset_t *r_ids(const grove_rv1_t *R, const struct rv1_rank *rk,
                                  const char *name)
{
    for (uint32_t k = 0; k < rk->nkids; k++)
        if (!strcmp(R->types[rk->kids[k].type], name))
            return rk->kids[k].ids;
    return NULL;
}

/* Does a hold every id of b (NULL: none)?  *first the first it lacks. */
static bool holds(const grove_idset_t *a, const grove_idset_t *b, unsigned *first)
{
    for (unsigned id = b ? grove_idset_first(b) : GROVE_IDSET_INVALID; id != GROVE_IDSET_INVALID;
         id = grove_idset_next(b, id))
        if (!grove_idset_test(a, id)) {
            *first = id;
            return false;
        }
    return true;
}

/* The class of rank r, or NULL. */
static const struct rclass *class_of(const grove_rtopo_t *rt, unsigned r)
{
    for (size_t i = 0; i < rt->nc; i++)
        if (grove_idset_test(rt->c[i].ranks, r))
            return &rt->c[i];
    return NULL;
}

/* grovep_rv1_inside_f: rank rk's node in its class's locality form, when
 * the topology holds what R gives the rank; else a note and 0 (flat). */
static int inside(void *arg, grove_graph_t *g, grove_vid_t node, const grove_rv1_t *R,
                  const struct rv1_rank *rk, grove_error_t *err)
{
    grove_rtopo_t *rt = arg;
    const struct rclass *c = class_of(rt, rk->rank);
    if (!c)
        return 0;
    const grove_idset_t *cores = r_ids(R, rk, "core"), *gpus = r_ids(R, rk, "gpu");
    const char *src = grove_topo_source(c->t);
    char why[512], has[420], a[100], b[100];
    unsigned miss = 0;
    ids_text(a, sizeof(a), "cores", c->cores);
    ids_text(b, sizeof(b), "gpus", c->gpus);
    snprintf(has, sizeof(has), "%.200s has %s and %s", src, a, b);
    const char *other = NULL;
    for (uint32_t k = 0; k < rk->nkids && !other; k++) {
        const char *tn = R->types[rk->kids[k].type];
        if (strcmp(tn, "core") != 0 && strcmp(tn, "gpu") != 0)
            other = tn;
    }
    if (other)
        snprintf(why, sizeof(why), "R gives it %.40s, which a topology does not place (%s)",
                 other, has);
    else if (!holds(c->cores, cores, &miss))
        snprintf(why, sizeof(why), "R gives it core %u, not in the topology (%s)", miss, has);
    else if (!holds(c->gpus, gpus, &miss))
        snprintf(why, sizeof(why), "R gives it gpu %u, not in the topology (%s)", miss, has);
    else {
        /* R's cores and GPUs only: none R leaves out is made */
        grove_idset_t *empty = NULL;
        if ((!cores || !gpus) && !(empty = grove_idset_create()))
            return -1;
        int rc = grove_topo_attach_inside(g, node, c->t, rk->rank, cores ? cores : empty,
                                          gpus ? gpus : empty, NULL, err);
        grove_idset_destroy(empty);
        if (rc < 0)
            return -1;
        return grove_idset_set(rt->placed, rk->rank) < 0 ? -1 : 1;
    }
    return note(rt, rk->rank, why) < 0 ? -1 : 0;
}

int grove_rv1_build_topo(grove_graph_t *g, const grove_rv1_t *R, grove_rtopo_t *rt,
                         grove_error_t *err)
{
    if (!rt)
        return grove_rv1_build(g, R, err);
    if (report_reset(rt) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return grovep_rv1_build_with(g, R, inside, rt, err);
}

/* ---- a scheduling graph against R_lite ------------------------------------- */

/* The cores and GPUs of rank r in g (into cores, gpus) and how many
 * vertices have the rank. */
static size_t graph_ids(const grove_graph_t *g, unsigned r, grove_idset_t *cores,
                        grove_idset_t *gpus, int *rc)
{
    grove_sym_t cs = grove_graph_sym_lookup(g, "core"), gs = grove_graph_sym_lookup(g, "gpu");
    size_t n = 0;
    *rc = 0;
    for (grove_vid_t v = grove_graph_first_by_rank(g, r); v != GROVE_VID_NONE;
         v = grove_vertex_next_same_rank(g, v)) {
        n++;
        grove_sym_t t = grove_vertex_type_sym(g, v);
        int64_t id = grove_vertex_id(g, v);
        if (id < 0 || id > (int64_t)GROVE_IDSET_MAX_ID || t == GROVE_SYM_NONE)
            continue;
        if ((t == cs && grove_idset_set(cores, (unsigned)id) < 0)
            || (t == gs && grove_idset_set(gpus, (unsigned)id) < 0))
            *rc = -1;
    }
    return n;
}

static bool same(const grove_idset_t *a, const grove_idset_t *b)
{
    if (!b)
        return grove_idset_empty(a);
    return grove_idset_equal(a, b);
}

/* Rank rk's vertices in g replaced by a flat node (R_lite's) below the
 * parent of its first rank root. */
static int rebuild_flat(grove_graph_t *g, const grove_rv1_t *R, const struct rv1_rank *rk,
                        const uint32_t *order, grove_error_t *err)
{
    grove_sym_t cont = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    grove_vid_t parent = GROVE_VID_NONE, *roots = NULL;
    size_t n = 0, cap = 0;
    for (grove_vid_t v = grove_graph_first_by_rank(g, rk->rank); v != GROVE_VID_NONE;
         v = grove_vertex_next_same_rank(g, v)) {
        grove_vid_t p = cont == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_vertex_parent(g, v, cont);
        if (p != GROVE_VID_NONE && grove_vertex_rank(g, p) == (int64_t)rk->rank)
            continue;
        if (n == 0)
            parent = p;
        if (grovep_grow((void **)&roots, &cap, n + 1, sizeof(*roots)) < 0) {
            free(roots);
            errno = ENOMEM;
            return -1;
        }
        roots[n++] = v;
    }
    for (size_t i = 0; i < n; i++)
        if (grove_graph_has_vertex(g, roots[i]))
            grove_graph_unlink(g, roots[i], true);
    free(roots);
    return grovep_rv1_add_rank(g, parent, R, rk, order, NULL, NULL, err);
}

/* Each rank of R whose cores and GPUs in g (read from R's scheduling
 * graph) are not R_lite's: rebuilt flat, with a note. */
static int check_graph(grove_graph_t *g, const grove_rv1_t *R, grove_rtopo_t *rt,
                       grove_error_t *err)
{
    uint32_t *order = grovep_rv1_canonical_types(R);
    grove_idset_t *gc = NULL, *gg = NULL;
    int rc = -1;
    if (!order)
        goto out;
    for (size_t i = 0; i < R->n; i++) {
        const struct rv1_rank *rk = &R->r[i];
        grove_idset_destroy(gc);
        grove_idset_destroy(gg);
        gg = NULL;
        if (!(gc = grove_idset_create()) || !(gg = grove_idset_create()))
            goto out;
        int e;
        size_t n = graph_ids(g, rk->rank, gc, gg, &e);
        if (e < 0)
            goto out;
        const grove_idset_t *rc_ = r_ids(R, rk, "core"), *rg = r_ids(R, rk, "gpu");
        if (n == 0 || (same(gc, rc_) && same(gg, rg)))
            continue;
        char why[512], a[100], b[100], c[100], d[100];
        ids_text(a, sizeof(a), "cores", gc);
        ids_text(b, sizeof(b), "gpus", gg);
        ids_text(c, sizeof(c), "cores", rc_);
        ids_text(d, sizeof(d), "gpus", rg);
        snprintf(why, sizeof(why),
                 "the scheduling graph gives it %s and %s, R_lite %s and %s", a, b, c, d);
        if (note(rt, rk->rank, why) < 0 || rebuild_flat(g, R, rk, order, err) < 0)
            goto out;
    }
    rc = 0;
out:
    if (rc < 0 && errno != EINVAL)
        errno = ENOMEM;
    int e = errno;
    free(order);
    grove_idset_destroy(gc);
    grove_idset_destroy(gg);
    errno = e;
    return rc;
}

grove_graph_t *grove_rv1_to_graph_topo(const grove_rv1_t *R, grove_rtopo_t *rt,
                                       grove_error_t *err)
{
    if (!rt)
        return grove_rv1_to_graph(R, err);
    if (report_reset(rt) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    grove_graph_t *g = grovep_rv1_to_graph_with(R, inside, rt, err);
    if (g && !grove_rv1_builds_in_place(R) && check_graph(g, R, rt, err) < 0) {
        int e = errno;
        grove_graph_destroy(g);
        errno = e;
        return NULL;
    }
    return g;
}
