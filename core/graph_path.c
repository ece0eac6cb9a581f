/* graph_path.c: the trees of the graph read as trees: parents, children,
 * roots, depth, paths and URIs (grove_vertex_path, grove_graph_find_path,
 * grove_vertex_uri, grove_graph_find_uri).  Containment's parent comes from
 * g->parent; other subsystems follow a vertex's first parent.
 *
 * Read-only: it must not add, change or remove vertices or edges (graph.c,
 * graph_edge.c), nor hold indexes (graph_index.c) or walks (walker.c).
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

grove_vid_t grove_vertex_parent(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem)
{
    if (!grovep_alive(g, v))
        return GROVE_VID_NONE;
    if (subsystem == g->sym_containment)
        return g->parent[v];
    int sub = grovep_subsys_find(g, subsystem);
    if (sub < 0)
        return GROVE_VID_NONE;
    grove_eid_t e = grovep_down_in_edge(g, v, sub);
    return e == GROVEP_NONE ? GROVE_VID_NONE : grovep_edge_src(g, e);
}

static grove_vid_t next_child_from(const grove_graph_t *g, int sub, grove_eid_t e,
                                   grove_eid_t *cursor)
{
    for (; e != GROVEP_NONE; e = g->e[e].next_out) {
        if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP)) {
            *cursor = e;
            return g->e[e].dst;
        }
    }
    *cursor = GROVEP_NONE;
    return GROVE_VID_NONE;
}

grove_vid_t grove_vertex_first_child(const grove_graph_t *g, grove_vid_t v,
                                     grove_sym_t subsystem, grove_eid_t *cursor)
{
    int sub = grovep_subsys_find(g, subsystem);
    if (sub < 0 || !grovep_alive(g, v)) {
        *cursor = GROVEP_NONE;
        return GROVE_VID_NONE;
    }
    return next_child_from(g, sub, g->first_out[v], cursor);
}

grove_vid_t grove_vertex_next_child(const grove_graph_t *g, grove_sym_t subsystem,
                                    grove_eid_t *cursor)
{
    (void)subsystem; /* the cursor's edge already names it */
    if (*cursor == GROVEP_NONE || *cursor >= g->ne)
        return GROVE_VID_NONE;
    return next_child_from(g, g->e[*cursor].sub, g->e[*cursor].next_out, cursor);
}

static bool has_down_out(const grove_graph_t *g, grove_vid_t v, int sub)
{
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].sub == sub && !(g->e[e].flags & GROVEP_E_UP))
            return true;
    return false;
}

grove_vid_t grove_graph_root(const grove_graph_t *g, grove_sym_t subsystem, size_t i)
{
    int sub = grovep_subsys_find(g, subsystem);
    bool containment = subsystem == g->sym_containment;
    if (sub < 0) {
        /* no edges at all: a lone vertex is the containment root */
        if (containment || subsystem == grove_intern_lookup(g->strings, GROVE_CONTAINMENT)) {
            for (grove_vid_t v = 0; v < g->nv; v++)
                if (grovep_alive(g, v) && i-- == 0)
                    return v;
        }
        return GROVE_VID_NONE;
    }
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v))
            continue;
        bool root;
        if (containment)
            root = g->parent[v] == GROVEP_NONE
                   && (has_down_out(g, v, sub) || g->nlive == 1);
        else
            root = grovep_down_in_edge(g, v, sub) == GROVEP_NONE && has_down_out(g, v, sub);
        if (root && i-- == 0)
            return v;
    }
    return GROVE_VID_NONE;
}

grove_vid_t grove_vertex_domain(const grove_graph_t *g, grove_vid_t v)
{
    grove_sym_t dom = grove_graph_sym_lookup(g, GROVE_DOMAIN_TYPE);
    grove_sym_t node = grove_graph_sym_lookup(g, "node");
    if (dom == GROVE_SYM_NONE)
        return GROVE_VID_NONE;
    for (grove_vid_t a = grovep_alive(g, v) ? v : GROVE_VID_NONE; a != GROVE_VID_NONE;
         a = g->parent[a]) {
        if (g->v[a].type == dom)
            return a;
        if (g->v[a].type == node)
            break;
    }
    return GROVE_VID_NONE;
}

int grove_vertex_depth(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem)
{
    int d = 0;
    for (grove_vid_t p = grove_vertex_parent(g, v, subsystem); p != GROVE_VID_NONE;
         p = grove_vertex_parent(g, p, subsystem)) {
        if (++d > (int)g->nv)
            return -1; /* a cycle in a non-tree subsystem */
    }
    return d;
}

/* Is v part of subsystem at all (has an edge of it)? */
static bool in_subsystem(const grove_graph_t *g, grove_vid_t v, int sub)
{
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].sub == sub)
            return true;
    for (grove_eid_t e = grovep_in_first(g, v); e != GROVEP_NONE; e = grovep_in_next(g, e))
        if (g->e[e].sub == sub)
            return true;
    return false;
}

int grove_vertex_path(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                      size_t len)
{
    if (!grovep_alive(g, v)) {
        errno = ENOENT;
        return -1;
    }
    int sub = grovep_subsys_find(g, subsystem);
    bool lone = subsystem == g->sym_containment && g->nlive == 1;
    if (!lone && (sub < 0 || !in_subsystem(g, v, sub))) {
        errno = ENOENT;
        return -1;
    }
    /* collect the chain root..v, bounded against cycles */
    grove_vid_t stackbuf[64];
    grove_vid_t *chain = stackbuf;
    size_t n = 0, cap = 64;
    for (grove_vid_t p = v; p != GROVE_VID_NONE; p = grove_vertex_parent(g, p, subsystem)) {
        if (n == cap) {
            if (n > g->nv)
                break;
            grove_vid_t *bigger = malloc(cap * 2 * sizeof(*bigger));
            if (!bigger) {
                if (chain != stackbuf)
                    free(chain);
                errno = ENOMEM;
                return -1;
            }
            memcpy(bigger, chain, n * sizeof(*chain));
            if (chain != stackbuf)
                free(chain);
            chain = bigger;
            cap *= 2;
        }
        chain[n++] = p;
    }
    size_t need = 0;
    for (size_t i = n; i-- > 0;) {
        const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, chain[i]));
        size_t l = strlen(name);
        if (buf && need + 1 < len) {
            buf[need] = '/';
            size_t room = len - need - 2;
            memcpy(buf + need + 1, name, l < room ? l : room);
        }
        need += 1 + l;
    }
    if (buf && len)
        buf[need < len ? need : len - 1] = '\0';
    if (chain != stackbuf)
        free(chain);
    return (int)need;
}

/* ---- look-ups -------------------------------------------------------------- */

grove_vid_t grove_graph_find_path(const grove_graph_t *g, grove_sym_t subsystem,
                                  const char *path)
{
    if (!path || path[0] != '/') {
        errno = ENOENT;
        return GROVE_VID_NONE;
    }
    const char *p = path + 1;
    const char *slash = strchr(p, '/');
    size_t l = slash ? (size_t)(slash - p) : strlen(p);
    grove_vid_t cur = GROVE_VID_NONE;
    for (size_t i = 0;; i++) {
        grove_vid_t r = grove_graph_root(g, subsystem, i);
        if (r == GROVE_VID_NONE)
            break;
        const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, r));
        if (strlen(name) == l && !memcmp(name, p, l)) {
            cur = r;
            break;
        }
    }
    while (cur != GROVE_VID_NONE && slash) {
        p = slash + 1;
        slash = strchr(p, '/');
        l = slash ? (size_t)(slash - p) : strlen(p);
        if (l == 0 && !slash)
            break; /* trailing slash */
        grove_eid_t cursor;
        grove_vid_t c = grove_vertex_first_child(g, cur, subsystem, &cursor);
        cur = GROVE_VID_NONE;
        for (; c != GROVE_VID_NONE; c = grove_vertex_next_child(g, subsystem, &cursor)) {
            const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, c));
            if (strlen(name) == l && !memcmp(name, p, l)) {
                cur = c;
                break;
            }
        }
    }
    if (cur == GROVE_VID_NONE)
        errno = ENOENT;
    return cur;
}

int grove_vertex_uri(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                     size_t len)
{
    const char *name = grove_intern_str(g->strings, subsystem);
    size_t l = strlen(name);
    if (buf && len)
        snprintf(buf, len, "%s:", name);
    int n = grove_vertex_path(g, v, subsystem, buf && len > l + 1 ? buf + l + 1 : NULL,
                              buf && len > l + 1 ? len - l - 1 : 0);
    return n < 0 ? -1 : n + (int)l + 1;
}

grove_vid_t grove_graph_find_uri(const grove_graph_t *g, const char *uri)
{
    const char *colon = uri ? strstr(uri, ":/") : NULL;
    if (!colon || colon == uri) {
        errno = EINVAL;
        return GROVE_VID_NONE;
    }
    char name[256];
    size_t l = (size_t)(colon - uri);
    grove_sym_t sub = GROVE_SYM_NONE;
    if (l < sizeof(name)) {
        memcpy(name, uri, l);
        name[l] = '\0';
        sub = grove_graph_sym_lookup(g, name);
    }
    if (sub == GROVE_SYM_NONE || grovep_subsys_find(g, sub) < 0) {
        errno = ENOENT;
        return GROVE_VID_NONE;
    }
    return grove_graph_find_path(g, sub, colon + 1);
}
