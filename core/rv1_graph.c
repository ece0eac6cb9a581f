/* rv1_graph.c: the bridge between R version 1 and the graph (see rv1.h,
 * "Graphs" and "Mapping an R"): R of a set of vertices, of a job or of a
 * whole graph; a graph of an R; and the vertices a shard of R names.
 *
 * Workload: an R per successful match (from a job's picks), a shard per
 * partial release, a graph per instance R read at start.  Each is linear
 * in the vertices it touches; per-vertex marks are arrays indexed by
 * vertex id.
 *
 * This file must not read or write R's text (rv1.c does) nor know R's set
 * algebra; it builds and reads an R only through rv1_private.h.  The
 * public writers (grove_rv1_to_json, grove_rv1_encode) are here only to
 * hand rv1.c the scheduling graph it must not build itself.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limit.h"
#include "error_private.h"
#include "json_private.h"
#include "util.h"
#include "jgf.h"
#include "rv1_private.h"
#include "compose.h"
#include "pool.h"
#include "graph_private.h"

struct gctx {
    const grove_graph_t *g;
    grove_sym_t cont, core, gpu; /* GROVE_SYM_NONE when the graph lacks them */
};

static void gctx_init(struct gctx *c, const grove_graph_t *g)
{
    c->g = g;
    c->cont = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    c->core = grove_graph_sym_lookup(g, "core");
    c->gpu = grove_graph_sym_lookup(g, "gpu");
}

static grove_vid_t gparent(const struct gctx *c, grove_vid_t v)
{
    return c->cont == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_vertex_parent(c->g, v, c->cont);
}

static bool is_core_gpu(const struct gctx *c, grove_vid_t v)
{
    grove_sym_t t = grove_vertex_type_sym(c->g, v);
    return t != GROVE_SYM_NONE && (t == c->core || t == c->gpu);
}

static bool is_leaf(const struct gctx *c, grove_vid_t v)
{
    grove_eid_t cur;
    return c->cont == GROVE_SYM_NONE
           || grove_vertex_first_child(c->g, v, c->cont, &cur) == GROVE_VID_NONE;
}

/* The rank root of v (see rv1.h) and its rank, or GROVE_VID_NONE when no
 * vertex on v's path has a rank. */
static grove_vid_t rank_root(const struct gctx *c, grove_vid_t v, int64_t *rank)
{
    grove_vid_t a = v;
    while (a != GROVE_VID_NONE && grove_vertex_rank(c->g, a) < 0)
        a = gparent(c, a);
    if (a == GROVE_VID_NONE)
        return GROVE_VID_NONE;
    int64_t r = grove_vertex_rank(c->g, a);
    for (grove_vid_t p = gparent(c, a); p != GROVE_VID_NONE && grove_vertex_rank(c->g, p) == r;
         p = gparent(c, p))
        a = p;
    *rank = r;
    return a;
}

/* Does v count as a child of its rank in R_lite? */
static bool listable(const struct gctx *c, grove_vid_t v, grove_vid_t root)
{
    if (v == root || grove_vertex_id(c->g, v) < 0)
        return false;
    if (is_core_gpu(c, v))
        return true;
    if (!is_leaf(c, v))
        return false;
    for (grove_vid_t a = gparent(c, v); a != GROVE_VID_NONE && a != root; a = gparent(c, a))
        if (is_core_gpu(c, a))
            return false;
    return true;
}

static void vlabel(const grove_graph_t *g, grove_sym_t cont, grove_vid_t v, char *buf, size_t len)
{
    if (cont == GROVE_SYM_NONE || grove_vertex_path(g, v, cont, buf, len) < 0)
        snprintf(buf, len, "%s", grove_vertex_name(g, v));
}

struct rrec {
    unsigned rank;
    grove_vid_t root;
};

struct crec {
    unsigned rank;
    grove_sym_t type;
    unsigned id;
};

static int cmp_rrec(const void *pa, const void *pb)
{
    const struct rrec *a = pa, *b = pb;
    int c = GROVEP_CMP(a->rank, b->rank);
    return c ? c : GROVEP_CMP(a->root, b->root);
}

static int cmp_crec(const void *pa, const void *pb)
{
    const struct crec *a = pa, *b = pb;
    int c = GROVEP_CMP(a->rank, b->rank);
    if (!c)
        c = GROVEP_CMP(a->type, b->type);
    return c ? c : GROVEP_CMP(a->id, b->id);
}

/* The scheduling value of the vertices vids (n; NULL: the whole graph).
 * A list (a job's R, written on every match) is written short (jgf.h); a
 * whole graph whole, uuids and all, so that graph -> R -> graph loses
 * nothing. */
static json_t *scheduling_of_graph(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                                   bool whole)
{
    json_t *doc = grove_jgf_write_json(g, vids, n, vids && !whole ? GROVE_JGF_SHORT : 0);
    json_t *gr = doc ? json_object_get(doc, "graph") : NULL;
    json_t *sc = json_object();
    if (!gr || !sc || json_object_set(sc, "graph", gr) < 0
        || json_object_set_new(sc, "writer", json_string(GROVE_RV1_WRITER)) < 0) {
        json_decref(doc);
        return GROVEP_NULL_AFTER(json_decref, sc, ENOMEM);
    }
    json_decref(doc);
    return sc;
}

/* The same as text, taken as R's scheduling key (kept as it is written:
 * grovep_rv1_set_sched_text).  0 or -1 (ENOMEM). */
static int sched_text_of_graph(grove_rv1_t *R, const grove_graph_t *g, const grove_vid_t *vids,
                               size_t n, bool whole)
{
    int flags = GROVE_JGF_COMPACT | (vids && !whole ? GROVE_JGF_SHORT : 0);
    char *doc = vids ? grove_jgf_write_vertices(g, vids, n, flags) : grove_jgf_write(g, flags);
    /* {"graph":{...}} -> {"graph":{...},"writer":"grove"} */
    static const char writer[] = ",\"writer\":\"" GROVE_RV1_WRITER "\"}";
    size_t len = doc ? strlen(doc) : 0;
    char *t = len > 1 ? realloc(doc, len + sizeof(writer)) : NULL;
    if (!t) {
        free(doc);
        errno = ENOMEM;
        return -1;
    }
    memcpy(t + len - 1, writer, sizeof(writer));
    grovep_rv1_set_sched_text(R, t, len - 1 + sizeof(writer) - 1);
    return 0;
}

json_t *grovep_rv1_scheduling_of_rlite(const grove_rv1_t *R)
{
    grove_graph_t *g = grove_rv1_to_graph(R, NULL);
    json_t *sc = g ? scheduling_of_graph(g, NULL, 0, true) : NULL;
    grove_graph_destroy(g);
    return sc;
}

/* The writers of R (rv1.c writes the text) given the graph they need for
 * GROVE_RV1_WITH_GRAPH: here, so that rv1.c never calls this file. */
json_t *grove_rv1_to_json(const grove_rv1_t *R, int flags)
{
    return grovep_rv1_to_json(R, flags, grovep_rv1_scheduling_of_rlite);
}

char *grove_rv1_encode(const grove_rv1_t *R, int flags)
{
    return grovep_rv1_encode(R, flags, grovep_rv1_scheduling_of_rlite);
}

/* What from_marked gathers from the marked vertices before building R. */
struct gather {
    struct gctx c;
    struct rrec *rr; /* a rank root per rank entry, in vertex order */
    size_t nrr, rrcap;
    struct crec *cr; /* a listable child per entry */
    size_t ncr, crcap;
    grove_vid_t *vids; /* every marked vertex (WITH_GRAPH only) */
    size_t nv, vcap;
    grove_vid_t memo_p, memo_root; /* rank_root_memo's last parent, its root */
    int64_t memo_rank;
    grove_error_t *err;
};

/* Free x's arrays; errno kept. */
static void gather_fini(struct gather *x)
{
    GROVEP_FREE_ALL(x->rr, x->cr, x->vids);
}

/* A vertex's rank or id must fit an idset; EINVAL naming v if not. */
static int fits_r(struct gather *x, grove_vid_t v, int64_t n, const char *what)
{
    if (n <= (int64_t)GROVE_IDSET_MAX_ID)
        return 0;
    char label[256];
    vlabel(x->c.g, x->c.cont, v, label, sizeof(label));
    return grovep_errorf(x->err, EINVAL, "%s: %s %lld is too large for R", label, what,
                         (long long)n);
}

/* Whether the n elements of size sz at a are in cmp's order. */
static bool in_order(const void *a, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
    const char *p = a;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * sz, p + i * sz) > 0)
            return false;
    return true;
}

/* Distinct types a rank's run may hold for sort_crecs's scatter (a node
 * of hwloc's shape lists cores and GPUs: two). */
#define CREC_TYPES 8

/* Sort n records by (rank, type, id), cmp_crec's order.  In vertex order
 * the ranks ascend and, within a rank, each type's ids ascend, its types
 * interleaved (a node of sockets lists socket 0's cores and GPUs, then
 * socket 1's): each rank's run is scattered by type, stably, and a type's
 * ids are sorted only when they are not in order.  Records of any other
 * order are sorted by qsort (a comparison sort of every core of a 512-node
 * job was a twentieth of the Flux module's CPU); without memory for the
 * scatter, everything by qsort. */
static void sort_crecs(struct crec *cr, size_t n)
{
    bool ranks_up = true;
    for (size_t i = 1; i < n && ranks_up; i++)
        ranks_up = cr[i - 1].rank <= cr[i].rank;
    struct crec *tmp = ranks_up ? malloc(n * sizeof(*tmp)) : NULL;
    if (!tmp) {
        qsort(cr, n, sizeof(*cr), cmp_crec);
        return;
    }
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b + 1; e < n && cr[e].rank == cr[b].rank; e++)
            ;
        if (in_order(cr + b, e - b, sizeof(*cr), cmp_crec))
            continue;
        grove_sym_t ty[CREC_TYPES];
        size_t cnt[CREC_TYPES] = {0}, nt = 0, i;
        for (i = b; i < e; i++) {
            size_t t = 0;
            while (t < nt && ty[t] != cr[i].type)
                t++;
            if (t == nt && nt == CREC_TYPES)
                break;
            if (t == nt)
                ty[nt++] = cr[i].type;
            cnt[t]++;
        }
        if (i < e) { /* more types than the scatter keeps */
            qsort(cr + b, e - b, sizeof(*cr), cmp_crec);
            continue;
        }
        /* the types in ascending order, each its place in tmp */
        size_t ord[CREC_TYPES], at[CREC_TYPES];
        for (size_t t = 0; t < nt; t++) {
            size_t k = t;
            while (k > 0 && ty[ord[k - 1]] > ty[t]) {
                ord[k] = ord[k - 1];
                k--;
            }
            ord[k] = t;
        }
        for (size_t k = 0, pos = b; k < nt; k++) {
            at[ord[k]] = pos;
            pos += cnt[ord[k]];
        }
        for (i = b; i < e; i++) {
            size_t t = 0;
            while (ty[t] != cr[i].type)
                t++;
            tmp[at[t]++] = cr[i];
        }
        memcpy(cr + b, tmp + b, (e - b) * sizeof(*cr));
        for (size_t k = 0, pos = b; k < nt; k++) {
            size_t c = cnt[ord[k]];
            if (!in_order(cr + pos, c, sizeof(*cr), cmp_crec))
                qsort(cr + pos, c, sizeof(*cr), cmp_crec);
            pos += c;
        }
    }
    free(tmp);
}

/* rank_root of v through x's memo of the last parent asked: a vertex whose
 * own rank is none or its parent's has its parent's rank root (the cores
 * of one domain, met one after the other, ask their parent's once). */
static grove_vid_t rank_root_memo(struct gather *x, grove_vid_t v, int64_t *rank)
{
    const grove_graph_t *g = x->c.g;
    grove_vid_t p = gparent(&x->c, v);
    int64_t vr = grove_vertex_rank(g, v);
    if (p == GROVE_VID_NONE || (vr >= 0 && grove_vertex_rank(g, p) != vr))
        return rank_root(&x->c, v, rank);
    if (p != x->memo_p) {
        x->memo_p = p;
        x->memo_root = rank_root(&x->c, p, &x->memo_rank);
    }
    *rank = x->memo_rank;
    return x->memo_root;
}

/* Fill x from the vertices marked in mark[], then sort its records. */
/* The vertices are those marked in mark[], or, when mark is NULL, the n
 * of list (ascending, no repeats): a job's R reads only its own vertices,
 * not a mask over the whole graph. */
static int gather_marked(struct gather *x, const uint8_t *mark, const grove_vid_t *list,
                         size_t n, int flags)
{
    const grove_graph_t *g = x->c.g;
    size_t slots = mark ? grove_graph_vertex_slots(g) : n;
    grove_vid_t last_root = GROVE_VID_NONE;
    for (size_t i = 0; i < slots; i++) {
        grove_vid_t v = mark ? (grove_vid_t)i : list[i];
        if (mark && !mark[v])
            continue;
        if (flags & GROVE_RV1_WITH_GRAPH) {
            if (grovep_grow((void **)&x->vids, &x->vcap, x->nv + 1, sizeof(*x->vids)) < 0)
                return -1;
            x->vids[x->nv++] = v;
        }
        int64_t rank;
        grove_vid_t root = rank_root_memo(x, v, &rank);
        if (root == GROVE_VID_NONE)
            continue;
        if (fits_r(x, root, rank, "rank") < 0)
            return -1;
        if (root != last_root) {
            if (grovep_grow((void **)&x->rr, &x->rrcap, x->nrr + 1, sizeof(*x->rr)) < 0)
                return -1;
            x->rr[x->nrr++] = (struct rrec){(unsigned)rank, root};
            last_root = root;
        }
        if (listable(&x->c, v, root)) {
            int64_t id = grove_vertex_id(g, v);
            if (fits_r(x, v, id, "id") < 0
                || grovep_grow((void **)&x->cr, &x->crcap, x->ncr + 1, sizeof(*x->cr)) < 0)
                return -1;
            x->cr[x->ncr++] = (struct crec){(unsigned)rank, grove_vertex_type_sym(g, v),
                                            (unsigned)id};
        }
    }
    /* vertices in order are mostly ranks in order: sorted only when not */
    if (!in_order(x->rr, x->nrr, sizeof(*x->rr), cmp_rrec))
        qsort(x->rr, x->nrr, sizeof(*x->rr), cmp_rrec);
    if (!in_order(x->cr, x->ncr, sizeof(*x->cr), cmp_crec))
        sort_crecs(x->cr, x->ncr);
    return 0;
}

/* A rank entry of R per distinct rank root of x, with its host name and
 * properties. */
static int add_rank_roots(grove_rv1_t *R, const struct gather *x)
{
    const grove_graph_t *g = x->c.g;
    const struct rrec *rr = x->rr;
    for (size_t i = 0; i < x->nrr; i++) {
        if (i > 0 && rr[i].rank == rr[i - 1].rank) {
            if (rr[i].root == rr[i - 1].root)
                continue;
            const char *n1 = grove_vertex_name(g, rr[i - 1].root);
            const char *n2 = grove_vertex_name(g, rr[i].root);
            if (strcmp(n1, n2) != 0)
                return grovep_errorf(x->err, EINVAL, "rank %u is on two vertices named %s and %s",
                                     rr[i].rank, n1, n2);
        } else {
            const char *host = grove_vertex_name(g, rr[i].root);
            grove_hostname_t hn;
            if (grove_hostname_parse(host, &hn) < 0) {
                char label[256];
                vlabel(g, x->c.cont, rr[i].root, label, sizeof(label));
                return grovep_errorf(x->err, EINVAL, "%s: the name of rank %u is not a host name",
                                     label, rr[i].rank);
            }
            struct rv1_rank *rk = grovep_rv1_rank_append(R, rr[i].rank);
            if (!rk || !(rk->host = strdup(host)))
                return -1;
        }
        const char *key, *val;
        for (size_t k = 0; grove_vertex_property_at(g, rr[i].root, k, &key, &val) == 0; k++) {
            if (!grovep_rv1_valid_prop_name(key))
                continue;
            struct rv1_prop *p = grovep_rv1_prop_get(R, key);
            if (!p || grove_idset_set(p->ranks, rr[i].rank) < 0)
                return -1;
        }
    }
    return 0;
}

/* The children of R's ranks: one idset per run of x's child records of
 * one rank and type. */
static int add_children(grove_rv1_t *R, const struct gather *x)
{
    const struct crec *cr = x->cr;
    for (size_t i = 0, j; i < x->ncr; i = j) {
        grove_idset_t *ids = grove_idset_create();
        if (!ids)
            return -1;
        for (j = i; j < x->ncr && cr[j].rank == cr[i].rank && cr[j].type == cr[i].type; j++)
            if (grove_idset_set(ids, cr[j].id) < 0) {
                grove_idset_destroy(ids);
                return -1;
            }
        long t = grovep_rv1_type_index(R, grove_graph_str(x->c.g, cr[i].type));
        struct rv1_rank *rk = grovep_rv1_rank_find(R, cr[i].rank);
        if (t < 0 || !rk) {
            grove_idset_destroy(ids);
            return -1;
        }
        if (grovep_rv1_kid_take(rk, (uint32_t)t, ids) < 0)
            return -1;
    }
    return 0;
}

/* R of the vertices marked in mark[] (indexed by vertex id). */
static grove_rv1_t *from_marked(const grove_graph_t *g, const uint8_t *mark,
                                const grove_vid_t *list, size_t n, int64_t start, int64_t end,
                                int flags, grove_error_t *err)
{
    if (start < 0 || end <= start) {
        grovep_errorf(err, EINVAL, "bad window [%lld, %lld)", (long long)start, (long long)end);
        return NULL;
    }
    struct gather x = {.err = err, .memo_p = GROVE_VID_NONE};
    gctx_init(&x.c, g);
    grove_rv1_t *R = NULL;
    if (gather_marked(&x, mark, list, n, flags) < 0 || !(R = grove_rv1_create())
        || add_rank_roots(R, &x) < 0 || add_children(R, &x) < 0)
        goto fail;
    R->start = (double)start;
    R->expiration = end == GROVE_TIME_MAX ? 0 : (double)end;
    R->has_start = R->has_expiration = true;
    /* (marked: the whole graph's R, whose graph is written whole) */
    if ((flags & GROVE_RV1_WITH_GRAPH)
        && sched_text_of_graph(R, g, mark ? NULL : x.vids, mark ? 0 : x.nv,
                               flags & GROVE_RV1_GRAPH_WHOLE)
               < 0)
        goto fail;
    gather_fini(&x);
    return R;
fail:
    if (errno != EINVAL)
        errno = ENOMEM;
    grove_rv1_destroy(R); /* both keep errno */
    gather_fini(&x);
    return NULL;
}

/* Mark every vertex below v (not v) with value val where still unmarked.
 * 0 or -1 (ENOMEM). */
static int mark_below(const struct gctx *c, grove_vid_t v, uint8_t *mark, uint8_t val)
{
    if (c->cont == GROVE_SYM_NONE)
        return 0;
    grove_vid_t *stack = NULL;
    size_t n = 0, cap = 0;
    if (grovep_grow((void **)&stack, &cap, 1, sizeof(*stack)) < 0)
        return -1;
    stack[n++] = v;
    while (n > 0) {
        grove_vid_t u = stack[--n];
        grove_eid_t cur;
        for (grove_vid_t k = grove_vertex_first_child(c->g, u, c->cont, &cur); k != GROVE_VID_NONE;
             k = grove_vertex_next_child(c->g, c->cont, &cur)) {
            if (!mark[k])
                mark[k] = val;
            if (grovep_grow((void **)&stack, &cap, n + 1, sizeof(*stack)) < 0) {
                free(stack);
                return -1;
            }
            stack[n++] = k;
        }
    }
    free(stack);
    return 0;
}

/* A zeroed mark per vertex slot of g (caller frees); NULL with ENOMEM. */
static uint8_t *new_mask(const grove_graph_t *g)
{
    size_t slots = grove_graph_vertex_slots(g);
    uint8_t *mark = calloc(slots ? slots : 1, 1);
    return grovep_or_errno(mark, ENOMEM);
}

static int cmp_vid(const void *pa, const void *pb);

/* The listed vertices sorted, without repeats: R reads only them, never a
 * mask over every vertex slot (a one-core job's R swept the whole graph:
 * 850k slots at 16,384 nodes, thirty times the match). */
grove_rv1_t *grove_rv1_from_vertices(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                                     int64_t start, int64_t end, int flags, grove_error_t *err)
{
    if (!g || (n > 0 && !vids)) {
        errno = EINVAL;
        return NULL;
    }
    grove_vid_t *list = malloc((n ? n : 1) * sizeof(*list));
    if (!list) {
        errno = ENOMEM;
        return NULL;
    }
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        if (!grove_graph_has_vertex(g, vids[i])) {
            free(list);
            grovep_errorf(err, EINVAL, "vertex %u is not in the graph", (unsigned)vids[i]);
            return NULL;
        }
        list[i] = vids[i];
        if (i > 0 && list[i] <= list[i - 1])
            sorted = false;
    }
    size_t m = n;
    if (!sorted) {
        qsort(list, n, sizeof(*list), cmp_vid);
        m = 0;
        for (size_t i = 0; i < n; i++)
            if (m == 0 || list[i] != list[m - 1])
                list[m++] = list[i];
    }
    grove_rv1_t *R = from_marked(g, NULL, list, m, start, end, flags, err);
    int e = errno;
    free(list);
    errno = e;
    return R;
}

/* held[v]: 1 for a pick of the job, 2 for what its exclusive picks imply. */
static uint8_t *job_mask(const struct gctx *c, const grove_job_t *job, grove_error_t *err)
{
    uint8_t *mark = new_mask(c->g);
    if (!mark)
        return NULL;
    for (size_t i = 0; i < job->npicks; i++) {
        if (!grove_graph_has_vertex(c->g, job->picks[i].v)) {
            free(mark);
            grovep_errorf(err, EINVAL, "job %llu: vertex %u is not in the graph",
                          (unsigned long long)job->id, (unsigned)job->picks[i].v);
            return NULL;
        }
        mark[job->picks[i].v] = 1;
    }
    for (size_t i = 0; i < job->npicks; i++) {
        if (job->picks[i].exclusive && mark_below(c, job->picks[i].v, mark, 2) < 0)
            return GROVEP_NULL_AFTER(free, mark, ENOMEM);
    }
    return mark;
}

static int vid_order(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return (x > y) - (x < y);
}

/* Put the n vertices of v (n > 1) in ascending order without repeats:
 * their number, or (size_t)-1 with ENOMEM.  A job of many whole nodes
 * lists tens of thousands of vertices, a sizeable part of the graph's:
 * then a mask over the graph's slots, read in order, costs less than a
 * sort (49,000 vertices of 1,000 nodes: most of the 8 ms its R took). */
static size_t ascending_unique(const grove_graph_t *g, grove_vid_t *v, size_t n)
{
    size_t slots = grove_graph_vertex_slots(g);
    if (n * 64 < slots) {
        qsort(v, n, sizeof(*v), vid_order);
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            if (u == 0 || v[u - 1] != v[i])
                v[u++] = v[i];
        return u;
    }
    size_t nw = (slots + 63) / 64;
    uint64_t *w = calloc(nw ? nw : 1, sizeof(*w));
    if (!w)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++)
        w[v[i] / 64] |= UINT64_C(1) << (v[i] % 64);
    size_t u = 0;
    for (size_t k = 0; k < nw; k++)
        for (uint64_t b = w[k]; b; b &= b - 1)
            v[u++] = (grove_vid_t)(k * 64 + (size_t)__builtin_ctzll(b));
    free(w);
    return u;
}

/* The vertices of a job: its picks and everything below its exclusive
 * picks, ascending and without repeats, in *out (caller frees).  The
 * cost follows the job's size, not the graph's.  0, or -1 (EINVAL with
 * err, ENOMEM). */
static int job_vertices(const struct gctx *c, const grove_job_t *job, grove_vid_t **out,
                        size_t *nout, grove_error_t *err)
{
    grove_vid_t *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < job->npicks; i++) {
        if (!grove_graph_has_vertex(c->g, job->picks[i].v)) {
            free(v);
            grovep_errorf(err, EINVAL, "job %llu: vertex %u is not in the graph",
                          (unsigned long long)job->id, (unsigned)job->picks[i].v);
            return -1;
        }
        if (grovep_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0)
            goto oom;
        v[n++] = job->picks[i].v;
    }
    /* below the exclusive picks, with a stack of its own; containment's
     * child arrays when they hold all of its edges down (a load a child,
     * where the edge lists cost a call each) */
    grove_vid_t *stack = NULL;
    size_t top = 0, scap = 0;
    const uint32_t *off = NULL;
    const grove_vid_t *tk = c->cont != GROVE_SYM_NONE ? grovep_tree_kids(c->g, &off, NULL) : NULL;
    if (tk && !c->g->tk_all)
        tk = NULL;
    for (size_t i = 0; i < job->npicks && c->cont != GROVE_SYM_NONE; i++) {
        if (!job->picks[i].exclusive)
            continue;
        if (grovep_grow((void **)&stack, &scap, top + 1, sizeof(*stack)) < 0)
            goto oom_stack;
        stack[top++] = job->picks[i].v;
        while (top > 0) {
            grove_vid_t u = stack[--top];
            grove_eid_t cur;
            uint32_t ti = tk ? off[u] : 0;
            for (grove_vid_t k = tk ? (ti < off[u + 1] ? tk[ti] : GROVE_VID_NONE)
                                    : grove_vertex_first_child(c->g, u, c->cont, &cur);
                 k != GROVE_VID_NONE;
                 k = tk ? (++ti < off[u + 1] ? tk[ti] : GROVE_VID_NONE)
                        : grove_vertex_next_child(c->g, c->cont, &cur)) {
                if (grovep_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0
                    || grovep_grow((void **)&stack, &scap, top + 1, sizeof(*stack)) < 0)
                    goto oom_stack;
                v[n++] = k;
                stack[top++] = k;
            }
        }
    }
    free(stack);
    size_t u = n > 1 ? ascending_unique(c->g, v, n) : n;
    if (u == (size_t)-1)
        goto oom;
    *out = v;
    *nout = u;
    return 0;
oom_stack:
    free(stack);
oom:
    free(v);
    errno = ENOMEM;
    return -1;
}

grove_rv1_t *grove_rv1_from_job(const grove_graph_t *g, const grove_job_t *job, int flags,
                                grove_error_t *err)
{
    if (!g || !job || (job->npicks > 0 && !job->picks)) {
        errno = EINVAL;
        return NULL;
    }
    struct gctx c;
    gctx_init(&c, g);
    grove_vid_t *list = NULL;
    size_t n = 0;
    if (job_vertices(&c, job, &list, &n, err) < 0)
        return NULL;
    grove_rv1_t *R = from_marked(g, NULL, list, n, job->start, job->end, flags, err);
    free(list);
    return R;
}

grove_rv1_t *grove_rv1_from_graph(const grove_graph_t *g, int flags, grove_error_t *err)
{
    if (!g) {
        errno = EINVAL;
        return NULL;
    }
    uint8_t *mark = new_mask(g);
    if (!mark)
        return NULL;
    size_t slots = grove_graph_vertex_slots(g);
    for (grove_vid_t v = 0; v < slots; v++)
        mark[v] = grove_graph_has_vertex(g, v);
    grove_rv1_t *R = from_marked(g, mark, NULL, 0, 0, GROVE_TIME_MAX, flags, err);
    free(mark);
    if (R)
        R->has_start = R->has_expiration = false;
    return R;
}

/* Is the scheduling value a graph Grove can read (JGF, by RFC 40's writer
 * convention: no writer, or a writer whose path, if any, is "jgf")? */
static const json_t *readable_graph(const json_t *sc)
{
    const json_t *gr = sc ? json_object_get(sc, "graph") : NULL;
    if (!gr || !json_is_object(gr))
        return NULL;
    const json_t *w = json_object_get(sc, "writer");
    if (w) {
        if (!json_is_string(w))
            return NULL;
        const char *colon = strchr(json_string_value(w), ':');
        if (colon && strcmp(colon + 1, "jgf") != 0)
            return NULL;
    }
    return gr;
}

/* Give the rank of R to the vertex that R_lite names by host, where the
 * scheduling graph left it without one. */
static int fill_ranks(grove_graph_t *g, const grove_rv1_t *R)
{
    grove_sym_t node = grove_graph_sym_lookup(g, "node");
    for (size_t i = 0; i < R->n; i++) {
        const struct rv1_rank *rk = &R->r[i];
        if (!rk->host || grove_graph_first_by_rank(g, rk->rank) != GROVE_VID_NONE)
            continue;
        grove_sym_t name = grove_graph_sym_lookup(g, rk->host);
        if (name == GROVE_SYM_NONE)
            continue;
        grove_vid_t any = GROVE_VID_NONE, nod = GROVE_VID_NONE;
        size_t nany = 0, nnod = 0;
        for (grove_vid_t v = grove_graph_first_by_name(g, name); v != GROVE_VID_NONE;
             v = grove_vertex_next_same_name(g, v)) {
            if (grove_vertex_rank(g, v) >= 0)
                continue;
            any = v;
            nany++;
            if (grove_vertex_type_sym(g, v) == node) {
                nod = v;
                nnod++;
            }
        }
        grove_vid_t pick = nnod == 1 ? nod : nnod == 0 && nany == 1 ? any : GROVE_VID_NONE;
        if (pick != GROVE_VID_NONE && grove_vertex_set_rank(g, pick, rk->rank) < 0)
            return -1;
    }
    return 0;
}

static grove_graph_t *graph_of_scheduling(const grove_rv1_t *R, grove_error_t *err)
{
    json_t *tmp = json_object();
    if (!tmp || json_object_set(tmp, "scheduling", grovep_rv1_sched(R)) < 0)
        return GROVEP_NULL_AFTER(json_decref, tmp, ENOMEM);
    grove_graph_t *g = grove_jgf_read_json(tmp, NULL, err);
    int saved = errno;
    json_decref(tmp);
    if (!g) {
        if (err && strncmp(err->text, "scheduling", 10) != 0)
            grove_error_prefix(err, "scheduling.graph");
        errno = saved;
        return NULL;
    }
    if (fill_ranks(g, R) < 0)
        return GROVEP_NULL_AFTER(grove_graph_destroy, g, ENOMEM);
    return g;
}

static grove_vid_t add_vertex(grove_graph_t *g, grove_vid_t parent, const grove_vertex_info_t *info,
                              grove_error_t *err)
{
    grove_vid_t v = grove_graph_add_vertex(g, info);
    if (v == GROVE_VID_NONE)
        return v;
    if (parent != GROVE_VID_NONE && grove_graph_add_child(g, parent, v, NULL, err) < 0)
        return GROVE_VID_NONE;
    return v;
}

/* Refuse an R whose R_lite would expand to more vertices than the
 * members limit, before any is built: a 151-byte R can name four billion
 * cores.  The message names the R_lite entry at which the entries as read
 * passed the limit (they count a rank named twice twice, so they pass it
 * whenever the merged ranks do), so that a reader of the text can give
 * its line. */
static int rlite_within_limit(const grove_rv1_t *R, uint64_t *count, grove_error_t *err)
{
    grove_limits_t lim;
    grove_limits_get(&lim);
    uint64_t n = R->n;
    for (size_t i = 0; i < R->n && n <= lim.members; i++)
        for (uint32_t t = 0; t < R->ntypes; t++) {
            const struct rv1_kid *kd = grovep_rv1_kid_find(&R->r[i], t);
            if (kd)
                n += grove_idset_count(kd->ids);
        }
    if (n <= lim.members) {
        *count = n;
        return 0;
    }
    char place[48] = "execution.R_lite";
    if (R->rlite_over != SIZE_MAX)
        snprintf(place, sizeof(place), "execution.R_lite[%zu]", R->rlite_over);
    return grovep_errorf(err, EOVERFLOW,
                         "%s: with this entry the R_lite names more than %llu resources "
                         "(the limit: GROVE_MAX_MEMBERS)",
                         place, (unsigned long long)lim.members);
}

int grovep_rv1_add_rank(grove_graph_t *g, grove_vid_t parent, const grove_rv1_t *R,
                        const struct rv1_rank *rk, const uint32_t *order,
                        grovep_rv1_inside_f inside, void *arg, grove_error_t *err)
{
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "node";
    info.rank = rk->rank;
    info.id = rk->rank;
    info.basename = "node";
    char *base = NULL;
    grove_hostname_t hn;
    if (rk->host && grove_hostname_parse(rk->host, &hn) == 0) {
        info.name = rk->host;
        if (hn.width > 0 && hn.prefix_len > 0) {
            if (!(base = strndup(rk->host, hn.prefix_len)))
                return -1;
            info.basename = base;
            if (hn.num <= (uint64_t)INT64_MAX)
                info.id = (int64_t)hn.num;
        } else if (hn.width == 0) {
            info.basename = rk->host;
        }
    }
    grove_vid_t nv = add_vertex(g, parent, &info, err);
    free(base);
    if (nv == GROVE_VID_NONE)
        return -1;
    for (size_t k = 0; k < R->nprops; k++)
        if (grove_idset_test(R->props[k].ranks, rk->rank)
            && grove_vertex_set_property(g, nv, R->props[k].name, "") < 0)
            return -1;
    int in = inside ? inside(arg, g, nv, R, rk, err) : 0;
    if (in != 0)
        return in < 0 ? -1 : 0;
    for (size_t t = 0; t < R->ntypes; t++) {
        const struct rv1_kid *kd = grovep_rv1_kid_find(rk, order[t]);
        if (!kd)
            continue;
        for (unsigned id = grove_idset_first(kd->ids); id != GROVE_IDSET_INVALID;
             id = grove_idset_next(kd->ids, id)) {
            grove_vertex_info_init(&info);
            info.type = R->types[kd->type];
            info.id = id;
            info.rank = rk->rank;
            if (add_vertex(g, nv, &info, err) == GROVE_VID_NONE)
                return -1;
        }
    }
    return 0;
}

/* Add the vertices R_lite names to g: a cluster above a node a rank,
 * each node's children below it (or what inside builds there).  0, or -1
 * with errno (EINVAL, EOVERFLOW: err says why; ENOMEM) and *top the root
 * made so far (GROVE_VID_NONE when none), for the caller to take away. */
static int build_rlite(grove_graph_t *g, const grove_rv1_t *R, grovep_rv1_inside_f inside,
                       void *arg, grove_vid_t *top_out, grove_error_t *err)
{
    *top_out = GROVE_VID_NONE;
    uint64_t n = 0;
    if (rlite_within_limit(R, &n, err) < 0)
        return -1;
    /* a vertex a node and a child, the cluster; two edges below each but
     * the cluster: room made once */
    if (grove_graph_reserve(g, (size_t)n + 1, 2 * (size_t)n) < 0)
        return -1;
    uint32_t *order = grovep_rv1_canonical_types(R);
    if (!order)
        goto fail;
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "cluster";
    info.basename = "cluster";
    info.id = 0;
    grove_vid_t top = add_vertex(g, GROVE_VID_NONE, &info, err);
    if (top == GROVE_VID_NONE)
        goto fail;
    *top_out = top;
    for (size_t i = 0; i < R->n; i++)
        if (grovep_rv1_add_rank(g, top, R, &R->r[i], order, inside, arg, err) < 0)
            goto fail;
    free(order);
    return 0;
fail:
    if (errno != EINVAL && errno != EOVERFLOW)
        errno = ENOMEM;
    free(order); /* keeps errno */
    return -1;
}

static grove_graph_t *graph_of_rlite(const grove_rv1_t *R, grovep_rv1_inside_f inside, void *arg,
                                     grove_error_t *err)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t top;
    if (!g) {
        errno = ENOMEM;
        return NULL;
    }
    if (build_rlite(g, R, inside, arg, &top, err) < 0) {
        int saved = errno;
        grove_graph_destroy(g);
        errno = saved;
        return NULL;
    }
    return g;
}

bool grove_rv1_builds_in_place(const grove_rv1_t *R)
{
    return R && !readable_graph(grovep_rv1_sched(R));
}

int grove_rv1_build(grove_graph_t *g, const grove_rv1_t *R, grove_error_t *err)
{
    return grovep_rv1_build_with(g, R, NULL, NULL, err);
}

int grovep_rv1_build_with(grove_graph_t *g, const grove_rv1_t *R, grovep_rv1_inside_f inside,
                          void *arg, grove_error_t *err)
{
    if (!g || !grove_rv1_builds_in_place(R) || grove_graph_vertex_count(g) != 0) {
        errno = EINVAL;
        return -1;
    }
    grove_vid_t top;
    if (build_rlite(g, R, inside, arg, &top, err) == 0)
        return 0;
    int saved = errno;
    if (top != GROVE_VID_NONE)
        grove_graph_unlink(g, top, true);
    errno = saved;
    return -1;
}

grove_graph_t *grove_rv1_to_graph(const grove_rv1_t *R, grove_error_t *err)
{
    return grovep_rv1_to_graph_with(R, NULL, NULL, err);
}

grove_graph_t *grovep_rv1_to_graph_with(const grove_rv1_t *R, grovep_rv1_inside_f inside,
                                        void *arg, grove_error_t *err)
{
    if (!R) {
        errno = EINVAL;
        return NULL;
    }
    grove_graph_t *g = readable_graph(grovep_rv1_sched(R)) ? graph_of_scheduling(R, err)
                                                     : graph_of_rlite(R, inside, arg, err);
    /* the resource set is valid over [starttime, expiration): the clock
     * starts at its start, the matcher's horizon is its end (whole
     * seconds: a window ending within the last fraction would end past it) */
    if (g && R->start > 0)
        grove_graph_set_now(g, (int64_t)ceil(R->start));
    if (g && R->expiration > 0)
        grove_graph_set_expiration(g, (int64_t)floor(R->expiration));
    return g;
}

static void *graph_of_text(const char *text, size_t len, const char *source, const void *arg,
                           grove_error_t *err)
{
    (void)arg;
    grove_rv1_t *R = grove_rv1_decode(text, len, source, err);
    if (!R)
        return NULL;
    grove_graph_t *g = grove_rv1_to_graph(R, err);
    int saved = errno;
    grove_rv1_destroy(R);
    if (!g && err && err->line == 0) {
        /* the text is still here: give the place its line */
        grove_error_prefix(err, source);
        grovep_json_place_line(err, source, text, len);
    }
    errno = saved;
    return g;
}

grove_graph_t *grove_rv1_graph_load(const char *path, grove_error_t *err)
{
    return grovep_load_file(path, NULL, graph_of_text, NULL, err);
}

/* ---- shards onto vertices ------------------------------------------------------- */

struct sitem {
    grove_vid_t v;
    size_t parent; /* index in the list, SIZE_MAX for a root */
    uint32_t tc;   /* listable-type vertices held in the subtree */
    uint32_t unc;  /* of which R does not list */
    bool rt;       /* of a type R could list (core, gpu, or one R names) */
    bool listed;   /* R lists it (and, for a job, the job holds it) */
    bool inc;      /* taken */
};

struct spair {
    grove_vid_t v;
    size_t parent;
};

struct shard {
    struct gctx c;
    const grove_rv1_t *R;
    const uint8_t *held; /* NULL: the graph alone */
    const grove_job_t *job;
    grove_sym_t *tsym;   /* graph symbol of each R type (NONE if unknown) */
    struct sitem *it;
    size_t nit, itcap;
    struct spair *stack;
    size_t stcap;
    grove_vid_t *out;
    size_t nout, outcap;
    grove_error_t *err;
};

static bool is_rtype(const struct shard *s, grove_vid_t v)
{
    if (is_core_gpu(&s->c, v))
        return true;
    grove_sym_t t = grove_vertex_type_sym(s->c.g, v);
    for (size_t i = 0; i < s->R->ntypes; i++)
        if (s->tsym[i] == t)
            return true;
    return false;
}

/* Append the subtree of root on rank r to s->it, every vertex after its
 * parent. */
static int collect(struct shard *s, grove_vid_t root, int64_t r)
{
    size_t n = 0;
    if (grovep_grow((void **)&s->stack, &s->stcap, 1, sizeof(*s->stack)) < 0)
        return -1;
    s->stack[n++] = (struct spair){root, SIZE_MAX};
    while (n > 0) {
        struct spair top = s->stack[--n];
        if (grovep_grow((void **)&s->it, &s->itcap, s->nit + 1, sizeof(*s->it)) < 0)
            return -1;
        size_t me = s->nit++;
        s->it[me] = (struct sitem){top.v, top.parent, 0, 0, false, false, false};
        if (s->c.cont == GROVE_SYM_NONE)
            continue;
        grove_eid_t cur;
        for (grove_vid_t k = grove_vertex_first_child(s->c.g, top.v, s->c.cont, &cur);
             k != GROVE_VID_NONE; k = grove_vertex_next_child(s->c.g, s->c.cont, &cur)) {
            int64_t kr = grove_vertex_rank(s->c.g, k);
            if (kr >= 0 && kr != r)
                continue; /* another rank below: not ours */
            if (grovep_grow((void **)&s->stack, &s->stcap, n + 1, sizeof(*s->stack)) < 0)
                return -1;
            s->stack[n++] = (struct spair){k, me};
        }
    }
    return 0;
}

static int cmp_vid(const void *pa, const void *pb)
{
    return GROVEP_CMP(*(const grove_vid_t *)pa, *(const grove_vid_t *)pb);
}

/* The first id of want missing from have, or GROVE_IDSET_INVALID. */
static unsigned first_missing(const grove_idset_t *want, const grove_idset_t *have)
{
    grove_idset_t *d = grove_idset_difference(want, have);
    unsigned id = d ? grove_idset_first(d) : GROVE_IDSET_INVALID;
    grove_idset_destroy(d);
    return id;
}

static int shard_rank(struct shard *s, const struct rv1_rank *rk)
{
    const grove_graph_t *g = s->c.g;
    const int64_t r = rk->rank;
    const unsigned long long jobid = s->job ? (unsigned long long)s->job->id : 0;
    s->nit = 0;
    size_t nroots = 0;
    for (grove_vid_t v = grove_graph_first_by_rank(g, r); v != GROVE_VID_NONE;
         v = grove_vertex_next_same_rank(g, v)) {
        grove_vid_t p = gparent(&s->c, v);
        if (p != GROVE_VID_NONE && grove_vertex_rank(g, p) == r)
            continue;
        if (collect(s, v, r) < 0)
            return -1;
        nroots++;
    }
    if (nroots == 0)
        return grovep_errorf(s->err, ENOENT, "rank %u: no vertex of the graph has this rank",
                             rk->rank);

    int rc = -1;
    grove_idset_t **exist = calloc(rk->nkids ? rk->nkids : 1, sizeof(*exist));
    grove_idset_t **have = calloc(rk->nkids ? rk->nkids : 1, sizeof(*have));
    if (!exist || !have)
        goto out;
    for (uint32_t k = 0; k < rk->nkids; k++)
        if (!(exist[k] = grove_idset_create()) || !(have[k] = grove_idset_create()))
            goto out;
    bool any_held = false;
    for (size_t i = 0; i < s->nit; i++) {
        struct sitem *it = &s->it[i];
        uint8_t h = s->held ? s->held[it->v] : 1;
        grove_sym_t t = grove_vertex_type_sym(g, it->v);
        int64_t id = grove_vertex_id(g, it->v);
        for (uint32_t k = 0; k < rk->nkids; k++) {
            if (s->tsym[rk->kids[k].type] != t || id < 0 || id > (int64_t)GROVE_IDSET_MAX_ID
                || !grove_idset_test(rk->kids[k].ids, (unsigned)id))
                continue;
            if (grove_idset_set(exist[k], (unsigned)id) < 0)
                goto out;
            if (h && grove_idset_set(have[k], (unsigned)id) < 0)
                goto out;
            it->listed = h != 0;
        }
        any_held |= h != 0;
        it->rt = is_rtype(s, it->v);
        if (h && it->rt) {
            it->tc = 1;
            it->unc = !it->listed;
        }
    }
    if (!any_held) {
        grovep_errorf(s->err, EINVAL, "rank %u: job %llu holds nothing there", rk->rank, jobid);
        goto out;
    }
    for (uint32_t k = 0; k < rk->nkids; k++) {
        const char *tn = s->R->types[rk->kids[k].type];
        unsigned id = first_missing(rk->kids[k].ids, exist[k]);
        if (id != GROVE_IDSET_INVALID) {
            grovep_errorf(s->err, ENOENT, "rank %u: no %s %u in the graph", rk->rank, tn, id);
            goto out;
        }
        if ((id = first_missing(rk->kids[k].ids, have[k])) != GROVE_IDSET_INVALID) {
            grovep_errorf(s->err, EINVAL, "rank %u: job %llu does not hold %s %u", rk->rank, jobid,
                          tn, id);
            goto out;
        }
    }
    for (size_t i = s->nit; i-- > 0;) {
        size_t p = s->it[i].parent;
        if (p != SIZE_MAX) {
            s->it[p].tc += s->it[i].tc;
            s->it[p].unc += s->it[i].unc;
        }
    }
    for (size_t i = 0; i < s->nit; i++) {
        struct sitem *it = &s->it[i];
        bool root = it->parent == SIZE_MAX;
        it->inc = (!root && s->it[it->parent].inc) || it->listed
                  || (!it->rt && it->tc > 0 && it->unc == 0)
                  || (root && (rk->nkids == 0 || it->tc == 0));
        if (!it->inc || (s->held && s->held[it->v] != 1))
            continue;
        if (grovep_grow((void **)&s->out, &s->outcap, s->nout + 1, sizeof(*s->out)) < 0)
            goto out;
        s->out[s->nout++] = it->v;
    }
    rc = 0;
out:
    if (rc < 0 && errno != EINVAL && errno != ENOENT)
        errno = ENOMEM;
    int saved = errno;
    for (uint32_t k = 0; k < rk->nkids; k++) {
        if (exist)
            grove_idset_destroy(exist[k]);
        if (have)
            grove_idset_destroy(have[k]);
    }
    free(exist);
    free(have);
    errno = saved;
    return rc;
}

static int shard_run(const grove_graph_t *g, const grove_rv1_t *R, const uint8_t *held,
                     const grove_job_t *job, grove_vid_t **vids, size_t *n, grove_error_t *err)
{
    struct shard s = {.R = R, .held = held, .job = job, .err = err};
    gctx_init(&s.c, g);
    int rc = -1;
    if (!(s.tsym = malloc((R->ntypes ? R->ntypes : 1) * sizeof(*s.tsym)))) {
        errno = ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < R->ntypes; i++)
        s.tsym[i] = grove_graph_sym_lookup(g, R->types[i]);
    for (size_t i = 0; i < R->n; i++)
        if (shard_rank(&s, &R->r[i]) < 0)
            goto out;
    if (s.nout > 1)
        qsort(s.out, s.nout, sizeof(*s.out), cmp_vid);
    size_t k = 0;
    for (size_t i = 0; i < s.nout; i++)
        if (k == 0 || s.out[k - 1] != s.out[i])
            s.out[k++] = s.out[i];
    s.nout = k;
    *vids = s.nout ? s.out : NULL;
    *n = s.nout;
    if (!s.nout)
        free(s.out);
    s.out = NULL;
    rc = 0;
out:
    {
        int saved = errno;
        GROVEP_FREE_ALL(s.tsym, s.it, s.stack, s.out);
        errno = saved;
    }
    return rc;
}

int grove_rv1_to_vertices(const grove_graph_t *g, const grove_rv1_t *R, grove_vid_t **vids,
                          size_t *n, grove_error_t *err)
{
    if (!g || !R || !vids || !n) {
        errno = EINVAL;
        return -1;
    }
    *vids = NULL;
    *n = 0;
    return shard_run(g, R, NULL, NULL, vids, n, err);
}

int grove_rv1_job_vertices(const grove_graph_t *g, const grove_job_t *job, const grove_rv1_t *R,
                           grove_vid_t **vids, size_t *n, grove_error_t *err)
{
    if (!g || !job || !R || !vids || !n || (job->npicks > 0 && !job->picks)) {
        errno = EINVAL;
        return -1;
    }
    *vids = NULL;
    *n = 0;
    struct gctx c;
    gctx_init(&c, g);
    uint8_t *held = job_mask(&c, job, err);
    if (!held)
        return -1;
    int rc = shard_run(g, R, held, job, vids, n, err);
    int saved = errno;
    free(held);
    errno = saved;
    return rc;
}
