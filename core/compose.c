/* compose.c: the RFC 4 methods that make or reshape hierarchies: copy (only
 * what is available, for a child instance), duplicate, extract (a subgraph
 * by vertex list, as R's scheduling graph needs), merge (grow a hierarchy
 * at the common ancestor or at a path) and unlink (shrink it).
 *
 * Workload: occasional whole-graph operations (a copy for a child instance,
 * a grow or shrink of a few nodes), so clarity wins over speed here, but
 * every method is linear in the vertices it touches plus their edges.
 * Each method checks everything before it changes anything.
 *
 * This file must not hold the graph's own primitives (vertices, edges,
 * records: graph.c, pool.c) nor know any file format; it composes graphs
 * through graph_private.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"

/* Clone vertex v of src into dst with its base data, status, properties and
 * tags (and records when with_records); size_override < 0 keeps the size.
 * Returns the new id or GROVE_VID_NONE (errno). */
static grove_vid_t clone_vertex(grove_graph_t *dst, const grove_graph_t *src, grove_vid_t v,
                                int64_t size_override, bool with_records)
{
    const grovep_vertex_t *x = &src->v[v];
    char uuid[37];
    grove_vertex_uuid(src, v, uuid);
    grove_vertex_info_t info = {
        .type = grove_intern_str(src->strings, x->type),
        .basename = grove_intern_str(src->strings, x->basename),
        .name = grove_intern_str(src->strings, grovep_vertex_name(src, v)),
        .id = grovep_vertex_id(src, v),
        .rank = x->rank,
        .size = size_override >= 0 ? size_override : grovep_vertex_size(src, v),
        .unit = grove_intern_str(src->strings, grovep_vertex_unit(src, v)),
        .uuid = uuid,
    };
    grove_vid_t n = grove_graph_add_vertex(dst, &info);
    if (n == GROVE_VID_NONE)
        return n;
    dst->v[n].status = x->status;
    if ((x->flags & GROVEP_V_PATHNAMED)
        && grovep_vertex_pathname_set(
               dst, n, grove_intern(dst->strings, grove_intern_str(src->strings, src->pnames[v])))
               < 0)
        goto fail;
    if (with_records)
        dst->v[n].flags |= (uint8_t)(x->flags & (GROVEP_V_EXCL | GROVEP_V_ALLOC));
    const char *k, *val;
    for (size_t i = 0; grove_vertex_property_at(src, v, i, &k, &val) == 0; i++)
        if (grove_vertex_set_property(dst, n, k, val) < 0)
            goto fail;
    for (size_t i = 0; grove_vertex_tag_at(src, v, i, &k, &val) == 0; i++)
        if (grove_vertex_tag(dst, n, k, val) < 0)
            goto fail;
    if (with_records) {
        /* both lists, in their source order; the caller rebuilds the
         * planners and the annotation index */
        for (int list = 0; list < 2; list++) {
            uint32_t last = GROVEP_NONE;
            uint32_t head = list ? grovep_shared_head(src, v) : grovep_recs_head(src, v);
            for (uint32_t i = head; i != GROVEP_NONE; i = src->recs[i].next) {
                uint32_t r = grovep_rec_new(dst);
                if (r == GROVEP_NONE)
                    goto fail;
                dst->recs[r] = src->recs[i];
                dst->recs[r].next = GROVEP_NONE;
                dst->recs[r].prev = last;
                if (last == GROVEP_NONE) {
                    *grovep_head_ref(dst, n, list != 0) = r;
                } else {
                    dst->recs[last].next = r;
                }
                last = r;
            }
        }
    }
    return n;
fail:
    /* the vertex is the last one added: it has no edges yet */
    grovep_vertex_kill(dst, n);
    return GROVE_VID_NONE;
}

/* Copy the edges of src whose two ends are mapped (map[v] != NONE), in edge
 * order, keeping subsystem, relationship and direction. */
/* Copy src's live edges between mapped vertices into dst.  With
 * skip_existing, an edge dst already has is not added again; fresh (or
 * NULL) marks the vertices of src new to dst, whose edges cannot be there
 * yet: only an edge between two vertices dst had is looked for (a root
 * with 16,384 children would otherwise scan its child list per child). */
static int copy_edges(grove_graph_t *dst, const grove_graph_t *src, const grove_vid_t *map,
                      bool skip_existing, const uint8_t *fresh, grove_error_t *err)
{
    for (grove_eid_t e = 0; e < src->ne; e++) {
        const grovep_edge_t *ed = &src->e[e];
        if (ed->flags & GROVEP_E_DEAD)
            continue;
        grove_vid_t es = grovep_edge_src(src, e);
        grove_vid_t s = map[es], d = map[ed->dst];
        if (s == GROVEP_NONE || d == GROVEP_NONE)
            continue;
        const char *sub = grove_intern_str(src->strings, src->subsys[ed->sub]);
        const char *rel = grove_intern_str(src->strings, src->rels[ed->rel]);
        bool up = ed->flags & GROVEP_E_UP;
        if (skip_existing && !(fresh && (fresh[es] || fresh[ed->dst]))) {
            int di = grovep_subsys_find(dst, grove_intern_lookup(dst->strings, sub));
            grove_sym_t rs = grove_intern_lookup(dst->strings, rel);
            bool exists = false;
            for (grove_eid_t x = di < 0 ? GROVEP_NONE : dst->first_out[s]; x != GROVEP_NONE;
                 x = dst->e[x].next_out)
                if (dst->e[x].dst == d && dst->e[x].sub == di && dst->rels[dst->e[x].rel] == rs
                    && !!(dst->e[x].flags & GROVEP_E_UP) == up)
                    exists = true;
            if (exists)
                continue;
        }
        if (grovep_add_edge(dst, s, d, sub, rel, up ? 1 : 0, err) == GROVE_EID_NONE)
            return -1;
    }
    return 0;
}

/* Build a graph of the marked vertices of g (keep[v] != 0), in id order. */
static grove_graph_t *build_from(const grove_graph_t *g, const uint8_t *keep,
                                 const int64_t *sizes, bool with_records)
{
    grove_graph_t *n = grove_graph_create();
    grove_vid_t *map = malloc((g->nv ? g->nv : 1) * sizeof(*map));
    if (!n || !map)
        goto fail;
    n->now = g->now;
    n->expiration = g->expiration;
    if (grove_graph_set_aggregates(n, g->agg_spec, NULL) < 0)
        goto fail;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        map[v] = GROVEP_NONE;
        if (!keep[v] || !grovep_alive(g, v))
            continue;
        map[v] = clone_vertex(n, g, v, sizes ? sizes[v] : -1, with_records);
        if (map[v] == GROVE_VID_NONE)
            goto fail;
    }
    if (copy_edges(n, g, map, false, NULL, NULL) < 0)
        goto fail;
    if (with_records && (grovep_planners_rebuild(n) < 0 || grovep_shared_reindex(n) < 0))
        goto fail;
    free(map);
    return n;
fail:
    free(map);
    return GROVEP_NULL_AFTER(grove_graph_destroy, n, ENOMEM);
}

/* ---- copy ------------------------------------------------------------------ */

struct copyctx {
    uint8_t *keep;
    int64_t *size;
};

static void copy_visit(const grove_graph_t *g, grove_vid_t v, int64_t avail, void *arg)
{
    (void)g;
    struct copyctx *c = arg;
    c->keep[v] = 1;
    c->size[v] = avail;
}

grove_graph_t *grove_graph_copy(const grove_graph_t *g, grove_vid_t v)
{
    if (!grovep_alive(g, v)) {
        errno = EINVAL;
        return NULL;
    }
    struct copyctx c = {
        .keep = calloc(g->nv, 1),
        .size = malloc(g->nv * sizeof(int64_t)),
    };
    grove_graph_t *n = NULL;
    if (!c.keep || !c.size) {
        errno = ENOMEM;
        goto out;
    }
    bool blocked = false;
    for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE; a = g->parent[a]) {
        c.keep[a] = 1;
        int64_t avail = grovep_own_available(g, a, g->now, g->now + 1);
        if (g->v[a].status != GROVE_STATUS_UP
            || grove_vertex_held_exclusively(g, a, g->now, NULL))
            blocked = true;
        c.size[a] = avail;
    }
    if (!blocked && grovep_walk_available(g, v, copy_visit, &c) < 0)
        goto out;
    n = build_from(g, c.keep, c.size, false);
out:
    free(c.keep);
    free(c.size);
    return n;
}

grove_graph_t *grove_graph_duplicate(const grove_graph_t *g)
{
    return grovep_graph_clone(g);
}

grove_graph_t *grove_graph_extract(const grove_graph_t *g, const grove_vid_t *vids, size_t n)
{
    uint8_t *keep = calloc(g->nv ? g->nv : 1, 1);
    if (!keep) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!grovep_alive(g, vids[i]))
            return GROVEP_NULL_AFTER(free, keep, EINVAL);
        keep[vids[i]] = 1;
    }
    grove_graph_t *r = build_from(g, keep, NULL, true);
    free(keep);
    return r;
}

/* ---- merge ------------------------------------------------------------------- */

/* The path of v in subsystem sub, malloc'd with an optional prefix. */
static char *path_of(const grove_graph_t *g, grove_vid_t v, grove_sym_t sub, const char *prefix)
{
    int need = grove_vertex_path(g, v, sub, NULL, 0);
    if (need < 0)
        return NULL;
    size_t pl = prefix ? strlen(prefix) : 0;
    char *p = malloc(pl + (size_t)need + 1);
    if (!p)
        return NULL;
    if (pl)
        memcpy(p, prefix, pl);
    grove_vertex_path(g, v, sub, p + pl, (size_t)need + 1);
    return p;
}

/* Match v of src to a vertex of g with the same path (and type). */
static int match_vertex(grove_graph_t *g, const grove_graph_t *src, grove_vid_t v,
                        const char *prefix, grove_vid_t *out, grove_error_t *err)
{
    *out = GROVEP_NONE;
    for (size_t i = 0; i < src->nsubsys; i++) {
        grove_sym_t ssub = src->subsys[i];
        const char *sname = grove_intern_str(src->strings, ssub);
        bool cont = ssub == src->sym_containment;
        char *p = path_of(src, v, ssub, cont ? prefix : NULL);
        if (!p)
            continue;
        grove_sym_t gsub = grove_intern_lookup(g->strings, sname);
        grove_vid_t m = gsub == GROVE_SYM_NONE ? GROVE_VID_NONE
                                                : grove_graph_find_path(g, gsub, p);
        if (m != GROVE_VID_NONE) {
            if (strcmp(grove_vertex_type(g, m), grove_vertex_type(src, v)) != 0) {
                grove_error_set(err, NULL, 0,
                                "merge: %s is a %s here but a %s in the merged graph", p,
                                grove_vertex_type(g, m), grove_vertex_type(src, v));
                free(p);
                errno = EINVAL;
                return -1;
            }
            *out = m;
        }
        free(p);
        return 0; /* the first subsystem with a path decides */
    }
    (void)g;
    return 0;
}

long grove_graph_merge(grove_graph_t *g, const grove_graph_t *src, const char *at,
                       grove_error_t *err)
{
    grove_vid_t atv = GROVE_VID_NONE;
    char *prefix = NULL;
    long added = 0;
    grove_vid_t *map = malloc((src->nv ? src->nv : 1) * sizeof(*map));
    uint8_t *fresh = calloc(src->nv ? src->nv : 1, 1);
    if (!map || !fresh) {
        errno = ENOMEM;
        goto fail;
    }
    if (at) {
        atv = grove_graph_find_path(g, g->sym_containment, at);
        if (atv == GROVE_VID_NONE) {
            grove_error_set(err, NULL, 0, "merge: no vertex at path %s", at);
            errno = EINVAL;
            goto fail;
        }
        prefix = path_of(g, atv, g->sym_containment, NULL);
        if (!prefix) {
            errno = ENOMEM;
            goto fail;
        }
    }
    grove_vid_t sroot = grove_graph_root(src, src->sym_containment, 0);
    if (sroot == GROVE_VID_NONE) {
        grove_error_set(err, NULL, 0, "merge: the merged graph has no containment root");
        errno = EINVAL;
        goto fail;
    }
    if (grove_graph_root(src, src->sym_containment, 1) != GROVE_VID_NONE) {
        grove_error_set(err, NULL, 0, "merge: the merged graph has several containment roots");
        errno = EINVAL;
        goto fail;
    }
    /* pass 1: decide, for every vertex of src, which vertex of g it is */
    for (grove_vid_t v = 0; v < src->nv; v++) {
        map[v] = GROVEP_NONE;
        if (!grovep_alive(src, v))
            continue;
        if (match_vertex(g, src, v, prefix, &map[v], err) < 0)
            goto fail;
        if (map[v] == GROVEP_NONE) {
            fresh[v] = 1;
            char uuid[37];
            grove_vertex_uuid(src, v, uuid);
            grove_vid_t clash = grove_graph_find_uuid(g, uuid);
            if (clash != GROVE_VID_NONE) {
                char *p = path_of(g, clash, g->sym_containment, NULL);
                grove_error_set(err, NULL, 0,
                                "merge: %s (uuid %s) is already in the graph at %s",
                                grove_vertex_name(src, v), uuid, p ? p : "?");
                free(p);
                errno = EEXIST;
                goto fail;
            }
        }
    }
    if (!at && !fresh[sroot] && map[sroot] == GROVEP_NONE) {
        errno = EINVAL;
        goto fail;
    }
    if (!at && fresh[sroot]) {
        grove_vid_t groot = grove_graph_root(g, g->sym_containment, 0);
        grove_error_set(err, NULL, 0,
                        "merge: no common ancestor: the merged root is %s, this graph's is %s",
                        grove_vertex_name(src, sroot),
                        groot == GROVE_VID_NONE ? "(none)" : grove_vertex_name(g, groot));
        errno = EINVAL;
        goto fail;
    }
    /* pass 2: apply */
    for (grove_vid_t v = 0; v < src->nv; v++) {
        if (!fresh[v])
            continue;
        map[v] = clone_vertex(g, src, v, -1, false);
        if (map[v] == GROVE_VID_NONE)
            goto fail;
        added++;
    }
    if (at && fresh[sroot]
        && grove_graph_add_child(g, atv, map[sroot], GROVE_CONTAINMENT, err) < 0)
        goto fail;
    if (copy_edges(g, src, map, true, fresh, err) < 0)
        goto fail;
    free(map);
    free(fresh);
    free(prefix);
    return added;
fail:
    free(map);
    free(fresh);
    free(prefix);
    return -1;
}

/* ---- unlink -------------------------------------------------------------------- */

struct collect {
    grove_vid_t *v;
    size_t n, cap;
};

static int collect_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    (void)depth;
    struct collect *c = arg;
    if (grovep_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
        return -1;
    c->v[c->n++] = v;
    return GROVE_WALK_CONTINUE;
}

int grove_graph_unlink(grove_graph_t *g, grove_vid_t v, bool force)
{
    if (!grovep_alive(g, v)) {
        errno = EINVAL;
        return -1;
    }
    struct collect c = {0};
    grove_walk_hooks_t hooks = {.pre = collect_pre, .arg = &c};
    if (grove_graph_walk(g, v, g->sym_containment, &hooks, NULL) < 0) {
        free(c.v);
        return -1;
    }
    if (grovep_any_records(g, c.v, c.n)) {
        if (!force) {
            free(c.v);
            errno = EBUSY;
            return -1;
        }
        grovep_release_subtree(g, c.v, c.n, v);
    }
    for (size_t i = 0; i < c.n; i++) {
        grove_vid_t x = c.v[i];
        while (g->first_out[x] != GROVEP_NONE)
            grovep_edge_remove(g, g->first_out[x]);
        while (grovep_in_first(g, x) != GROVEP_NONE)
            grovep_edge_remove(g, grovep_in_first(g, x));
    }
    for (size_t i = 0; i < c.n; i++)
        grovep_vertex_kill(g, c.v[i]);
    free(c.v);
    return 0;
}
