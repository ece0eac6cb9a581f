/* jgf_write.c: the JSON Graph Format writer (see jgf.h for what is
 * written).
 *
 * Workload: the same as the reader's, from an allocation's scheduling
 * graph (a few vertices, on every R written) to a whole machine (a million
 * vertices, hundreds of megabytes).  Text is printed directly into one
 * growable buffer, sized up front from the vertex count; nothing is
 * allocated per vertex.  The jansson variant parses that text, so both
 * outputs are the same document.
 *
 * Paths.  A vertex's path is its parent's path and its own name, so each
 * subsystem keeps the escaped path of the vertices on one root-to-vertex
 * chain (a stack, with each vertex's place on it): a vertex whose parent
 * is on the stack costs its own name, and writing a graph in the order
 * its readers create vertices (depth first) builds each name once.  What
 * is written is still every vertex's whole path, which Fluxion's reader
 * requires, so a chain of depth d writes d^2 / 2 names: the only part
 * that grows faster than the graph is that output, copied with memcpy.
 * GROVE_JGF_NO_PATHS leaves "paths" out (RFC 20 and RFC 40 do not require
 * it; Grove's reader derives paths from the edges), for a writer linear in
 * the graph whatever its depth.
 *
 * This file holds writing only: reading is jgf.c's, JSON syntax for
 * reading json.c's.
 *
 * This file must not hold the JGF reader (jgf.c) or anything of R beyond the
 * JGF object: R documents are written by the R module.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"
#include "json_private.h"
#include "util.h"

typedef struct writer {
    grovep_buf_t b;         /* the text; b.failed on any allocation failure */
    const grove_graph_t *g; /* the graph written */
    bool pretty;            /* indented (else compact) */
    bool state;             /* with tags, records and "now" */
    int depth;              /* open containers */
    bool first[32];         /* per open container: no member written yet */
    bool paths;             /* write "paths" */
    bool brief;             /* GROVE_JGF_SHORT: defaults left out, ids renumbered */
    const uint32_t *place;  /* brief, with vertices given: 1 + a vertex's place in the
                             * list written, 0: not written */
    grove_vid_t *chain;     /* [chaincap] scratch for paths: v, its parent, ... */
    size_t chaincap;
    struct pstack *ps;      /* [GROVEP_MAX_SMALL] by subsystem index: its path stack */
    uint32_t *mark;         /* [GROVEP_MAX_SMALL] stamp of the subsystems of a vertex */
    uint32_t stamp;         /* the current vertex's stamp in mark */
} writer_t;

/* In a brief list's places: the vertex's edges are written. */
#define PLACE_DONE 0x80000000u

/* One subsystem's last written path, as a stack of vertices from a root. */
struct pstack {
    uint32_t *at;       /* [nv] 1 + the vertex's place on the stack, 0: not on it; NULL: unused */
    grove_vid_t *v;     /* [cap] the stack, root first */
    size_t *len;        /* [cap] bytes of path up to and including v[i] */
    size_t n, cap;
    grovep_buf_t path;  /* the escaped path of v[n - 1] (no quotes) */
};

static void w_raw(writer_t *w, const char *s, size_t n)
{
    grovep_buf_put(&w->b, s, n);
}

#define W_LIT(w, s) w_raw((w), (s), sizeof(s) - 1)
#define W_LIT1(w, c) grovep_buf_put(&(w)->b, &(char){c}, 1)

static void w_nl(writer_t *w)
{
    if (!w->pretty)
        return;
    if (!grovep_buf_room(&w->b, (size_t)w->depth * 2 + 1))
        return;
    w->b.p[w->b.len++] = '\n';
    memset(w->b.p + w->b.len, ' ', (size_t)w->depth * 2);
    w->b.len += (size_t)w->depth * 2;
}

/* Append s (n bytes) to b as the inside of a JSON string, escaped. */
static void esc_put(grovep_buf_t *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t plain = grovep_json_plain_run(s, 0, n, false);
    if (!grovep_buf_room(b, plain == n ? n : n * 6))
        return;
    char *o = b->p + b->len;
    memcpy(o, s, plain);
    o += plain;
    for (size_t i = plain; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\n': *o++ = 'n'; break;
        case '\t': *o++ = 't'; break;
        case '\r': *o++ = 'r'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    b->len = (size_t)(o - b->p);
}

static void w_str(writer_t *w, const char *s)
{
    W_LIT1(w, '"');
    esc_put(&w->b, s, strlen(s));
    W_LIT1(w, '"');
}

static void w_int(writer_t *w, int64_t x)
{
    char tmp[24];
    char *e = tmp + sizeof(tmp), *p = e;
    uint64_t m = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    do {
        *--p = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (x < 0)
        *--p = '-';
    w_raw(w, p, (size_t)(e - p));
}

static void w_open(writer_t *w, char c)
{
    w_raw(w, &c, 1);
    w->first[++w->depth] = true;
}

static void w_close(writer_t *w, char c)
{
    bool empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        w_nl(w);
    w_raw(w, &c, 1);
}

/* Start an array element. */
static void w_elem(writer_t *w)
{
    if (!w->first[w->depth])
        W_LIT(w, ",");
    w->first[w->depth] = false;
    w_nl(w);
}

/* Start an object member: ,"key": (a key from the data, escaped) */
static void w_key(writer_t *w, const char *k)
{
    w_elem(w);
    w_str(w, k);
    if (w->pretty)
        W_LIT(w, ": ");
    else
        W_LIT(w, ":");
}

/* The same for one of our own keys, which need no escaping. */
#define W_KEY(w, k)                                                             \
    do {                                                                        \
        w_elem(w);                                                              \
        if ((w)->pretty)                                                        \
            W_LIT(w, "\"" k "\": ");                                             \
        else                                                                    \
            W_LIT(w, "\"" k "\":");                                              \
    } while (0)

static void w_bool(writer_t *w, bool b)
{
    if (b)
        W_LIT(w, "true");
    else
        W_LIT(w, "false");
}

/* A vertex id as a JSON string. */
static void w_idstr(writer_t *w, uint32_t v)
{
    W_LIT(w, "\"");
    w_int(w, v);
    W_LIT(w, "\"");
}

/* The path of v in the subsystem of index s: the stack of s cut back to
 * the nearest ancestor of v on it, then v's ancestors below that pushed. */
static void w_path(writer_t *w, grove_vid_t v, size_t s)
{
    const grove_graph_t *g = w->g;
    grove_sym_t sub = g->subsys[s];
    struct pstack *ps = &w->ps[s];
    if (!ps->at && !(ps->at = calloc(g->nv ? g->nv : 1, sizeof(*ps->at)))) {
        w->b.failed = true;
        return;
    }
    size_t n = 0;
    grove_vid_t p = v;
    for (; p != GROVE_VID_NONE && !ps->at[p]; p = grove_vertex_parent(g, p, sub)) {
        if (n > g->nv)
            break; /* a cycle in a non-tree subsystem: cut it there */
        if (grovep_grow((void **)&w->chain, &w->chaincap, n + 1, sizeof(*w->chain)) < 0) {
            w->b.failed = true;
            return;
        }
        w->chain[n++] = p;
    }
    size_t keep = p != GROVE_VID_NONE && ps->at[p] ? ps->at[p] : 0;
    while (ps->n > keep)
        ps->at[ps->v[--ps->n]] = 0;
    ps->path.len = keep ? ps->len[keep - 1] : 0;
    size_t cap = ps->cap;
    if (grovep_grow((void **)&ps->v, &cap, ps->n + n, sizeof(*ps->v)) < 0) {
        w->b.failed = true;
        return;
    }
    if (cap != ps->cap) {
        size_t *len = realloc(ps->len, cap * sizeof(*len));
        if (!len) {
            w->b.failed = true;
            return;
        }
        ps->len = len;
        ps->cap = cap;
    }
    for (size_t i = n; i-- > 0;) {
        const char *name = grove_intern_str(g->strings, grovep_vertex_pathname(g, w->chain[i]));
        grovep_buf_put(&ps->path, "/", 1);
        esc_put(&ps->path, name, strlen(name));
        if (ps->at[w->chain[i]])
            continue; /* met again on a cycle: on the stack once */
        ps->v[ps->n] = w->chain[i];
        ps->len[ps->n] = ps->path.len;
        ps->at[w->chain[i]] = (uint32_t)++ps->n;
    }
    if (ps->path.failed) {
        w->b.failed = true;
        return;
    }
    W_LIT1(w, '"');
    w_raw(w, ps->path.p, ps->path.len);
    W_LIT1(w, '"');
}

/* "paths": {subsystem: path} for every subsystem v takes part in. */
static void w_paths(writer_t *w, grove_vid_t v)
{
    const grove_graph_t *g = w->g;
    if (++w->stamp == 0) {
        memset(w->mark, 0, GROVEP_MAX_SMALL * sizeof(*w->mark));
        w->stamp = 1;
    }
    bool any = false;
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
        w->mark[g->e[e].sub] = w->stamp;
        any = true;
    }
    for (grove_eid_t e = grovep_in_first(g, v); e != GROVEP_NONE; e = grovep_in_next(g, e)) {
        w->mark[g->e[e].sub] = w->stamp;
        any = true;
    }
    W_KEY(w, "paths");
    w_open(w, '{');
    if (!any && g->nlive == 1) {
        w_key(w, GROVE_CONTAINMENT);
        W_LIT1(w, '"');
        W_LIT1(w, '/');
        esc_put(&w->b, grove_intern_str(g->strings, grovep_vertex_name(g, v)),
                strlen(grove_intern_str(g->strings, grovep_vertex_name(g, v))));
        W_LIT1(w, '"');
    }
    for (size_t s = 0; any && s < g->nsubsys; s++) {
        if (w->mark[s] != w->stamp)
            continue;
        w_key(w, grove_intern_str(g->strings, g->subsys[s]));
        w_path(w, v, s);
    }
    w_close(w, '}');
}

/* "records": the allocation records of v (nrec of them), oldest first:
 * restoring prepends, so the order survives. */
static void w_records(writer_t *w, grove_vid_t v, size_t nrec)
{
    const grove_graph_t *g = w->g;
    const grovep_rec_t **list = malloc(nrec * sizeof(*list));
    if (!list) {
        w->b.failed = true;
        return;
    }
    size_t k = nrec;
    for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = g->recs[i].next)
        if (g->recs[i].kind == GROVE_RECORD_ALLOC)
            list[--k] = &g->recs[i];
    W_KEY(w, "records");
    w_open(w, '[');
    for (k = 0; k < nrec; k++) {
        const grovep_rec_t *rc = list[k];
        w_elem(w);
        w_open(w, '{');
        W_KEY(w, "job");
        w_int(w, (int64_t)rc->job);
        W_KEY(w, "amount");
        w_int(w, rc->amount);
        W_KEY(w, "start");
        w_int(w, rc->start);
        W_KEY(w, "end");
        w_int(w, rc->end);
        W_KEY(w, "exclusive");
        w_bool(w, rc->asked);
        w_close(w, '}');
    }
    w_close(w, ']');
    free(list);
}

/* "grove": {"tags", "records"} of v, when it has either. */
static void w_state(writer_t *w, grove_vid_t v)
{
    const grove_graph_t *g = w->g;
    size_t nrec = 0;
    for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = g->recs[i].next)
        if (g->recs[i].kind == GROVE_RECORD_ALLOC)
            nrec++;
    bool tags = grove_vertex_tag_count(g, v) > 0;
    if (!tags && !nrec)
        return;
    W_KEY(w, "grove");
    w_open(w, '{');
    if (tags) {
        W_KEY(w, "tags");
        w_open(w, '{');
        for (uint32_t i = grovep_kv_head(g, v); i != GROVEP_NONE; i = g->kv[i].next) {
            if (!(g->kv[i].key & GROVEP_KV_TAG))
                continue;
            w_key(w, grove_intern_str(g->strings, g->kv[i].key & ~GROVEP_KV_TAG));
            if (g->kv[i].val == GROVE_SYM_NONE)
                W_LIT(w, "null");
            else
                w_str(w, grove_intern_str(g->strings, g->kv[i].val));
        }
        w_close(w, '}');
    }
    if (nrec)
        w_records(w, v, nrec);
    w_close(w, '}');
}

/* The end of node v's metadata, and of the node: its properties (tags
 * left out; with empty, "properties": {} when it has none, else no key),
 * its paths and state when the writer asks for them. */
static void w_node_end(writer_t *w, grove_vid_t v, bool empty)
{
    const grove_graph_t *g = w->g;
    const grove_intern_t *st = g->strings;
    bool props = false;
    for (uint32_t i = grovep_kv_head(g, v); i != GROVEP_NONE; i = g->kv[i].next) {
        if (g->kv[i].key & GROVEP_KV_TAG)
            continue;
        if (!props) {
            W_KEY(w, "properties");
            w_open(w, '{');
            props = true;
        }
        w_key(w, grove_intern_str(st, g->kv[i].key));
        w_str(w, grove_intern_str(st, g->kv[i].val));
    }
    if (!props && empty) {
        W_KEY(w, "properties");
        w_open(w, '{');
        props = true;
    }
    if (props)
        w_close(w, '}');
    if (w->paths)
        w_paths(w, v);
    if (w->state)
        w_state(w, v);
    w_close(w, '}');
    w_close(w, '}');
}

static void w_node(writer_t *w, grove_vid_t v)
{
    const grove_graph_t *g = w->g;
    const grovep_vertex_t *x = &g->v[v];
    const grove_intern_t *st = g->strings;
    w_elem(w);
    w_open(w, '{');
    W_KEY(w, "id");
    w_idstr(w, v);
    W_KEY(w, "metadata");
    w_open(w, '{');
    W_KEY(w, "type");
    w_str(w, grove_intern_str(st, x->type));
    W_KEY(w, "basename");
    w_str(w, grove_intern_str(st, x->basename));
    W_KEY(w, "name");
    w_str(w, grove_intern_str(st, grovep_vertex_name(g, v)));
    W_KEY(w, "id");
    w_int(w, grovep_vertex_id(g, v));
    W_KEY(w, "uniq_id");
    w_int(w, v);
    W_KEY(w, "rank");
    w_int(w, x->rank);
    W_KEY(w, "exclusive");
    w_bool(w, g->nrec && grove_vertex_held_exclusively(g, v, g->now, NULL));
    W_KEY(w, "unit");
    w_str(w, grove_intern_str(st, grovep_vertex_unit(g, v)));
    W_KEY(w, "size");
    w_int(w, grovep_vertex_size(g, v));
    W_KEY(w, "uuid");
    char uuid[37];
    grove_vertex_uuid(g, v, uuid);
    w_str(w, uuid);
    W_KEY(w, "status");
    if (x->status == GROVE_STATUS_UP || x->status == GROVE_STATUS_DOWN)
        w_int(w, x->status);
    else
        w_str(w, grove_status_name((grove_status_t)x->status));
    w_node_end(w, v, true);
}

/* GROVE_JGF_SHORT's node: what no reader defaults (jgf.h). */
static void w_node_brief(writer_t *w, grove_vid_t v)
{
    const grove_graph_t *g = w->g;
    const grovep_vertex_t *x = &g->v[v];
    const grove_intern_t *st = g->strings;
    const char *type = grove_intern_str(st, x->type);
    const char *base = grove_intern_str(st, x->basename);
    const char *name = grove_intern_str(st, grovep_vertex_name(g, v));
    int64_t id = grovep_vertex_id(g, v), size = grovep_vertex_size(g, v);
    const char *unit = grove_intern_str(st, grovep_vertex_unit(g, v));
    w_elem(w);
    w_open(w, '{');
    W_KEY(w, "id");
    w_idstr(w, w->place ? (w->place[v] & ~PLACE_DONE) - 1 : v);
    W_KEY(w, "metadata");
    w_open(w, '{');
    W_KEY(w, "type");
    w_str(w, type);
    if (strcmp(base, type) != 0) {
        W_KEY(w, "basename");
        w_str(w, base);
    }
    /* the name readers make of basename and id */
    size_t bl = strlen(base);
    char num[24];
    snprintf(num, sizeof(num), "%lld", (long long)id);
    if (id < 0 || strncmp(name, base, bl) != 0 || strcmp(name + bl, num) != 0) {
        W_KEY(w, "name");
        w_str(w, name);
    }
    if (id >= 0) {
        W_KEY(w, "id");
        w_int(w, id);
    }
    if (x->rank >= 0) {
        W_KEY(w, "rank");
        w_int(w, x->rank);
    }
    /* the top of what is held exclusively: what is below it is implied */
    if (g->nrec && grove_vertex_held_exclusively(g, v, g->now, NULL)) {
        grove_vid_t p = g->sym_containment == GROVE_SYM_NONE
                            ? GROVE_VID_NONE
                            : grove_vertex_parent(g, v, g->sym_containment);
        if (p == GROVE_VID_NONE || !grove_vertex_held_exclusively(g, p, g->now, NULL)) {
            W_KEY(w, "exclusive");
            w_bool(w, true);
        }
    }
    if (*unit) {
        W_KEY(w, "unit");
        w_str(w, unit);
    }
    if (size != 1) {
        W_KEY(w, "size");
        w_int(w, size);
    }
    if (x->status != GROVE_STATUS_UP) {
        W_KEY(w, "status");
        if (x->status == GROVE_STATUS_DOWN)
            w_int(w, x->status);
        else
            w_str(w, grove_status_name((grove_status_t)x->status));
    }
    w_node_end(w, v, false);
}

static void w_edge(writer_t *w, grove_eid_t e)
{
    const grove_graph_t *g = w->g;
    const grovep_edge_t *x = &g->e[e];
    grove_vid_t src = grovep_edge_src(g, e), dst = x->dst;
    w_elem(w);
    w_open(w, '{');
    W_KEY(w, "source");
    w_idstr(w, w->place ? (w->place[src] & ~PLACE_DONE) - 1 : src);
    W_KEY(w, "target");
    w_idstr(w, w->place ? (w->place[dst] & ~PLACE_DONE) - 1 : dst);
    if (w->brief && g->subsys[x->sub] == g->sym_containment && !(x->flags & GROVEP_E_UP)) {
        w_close(w, '}'); /* a containment link: "contains", its "in" implied */
        return;
    }
    W_KEY(w, "metadata");
    w_open(w, '{');
    W_KEY(w, "subsystem");
    w_str(w, grove_intern_str(g->strings, g->subsys[x->sub]));
    W_KEY(w, "relationship");
    w_str(w, grove_intern_str(g->strings, g->rels[x->rel]));
    w_close(w, '}');
    w_close(w, '}');
}

/* The document: {"graph": {["metadata"], "nodes", "edges"}}.  sel: the
 * vertices listed (vids, n), or NULL for all. */
/* The edges of the vertices listed (sel), brief: each listed vertex's own,
 * in the order the vertices were written, so that the cost follows the
 * list and not the graph (an R's graph on every match). */
static void w_edges_of(writer_t *w, const grove_vid_t *vids, size_t n, uint32_t *sel)
{
    const grove_graph_t *g = w->g;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = vids[i];
        /* each vertex once: the first time it is listed (then flagged) */
        if (!grovep_alive(g, v) || !sel[v] || (sel[v] & PLACE_DONE))
            continue;
        sel[v] |= PLACE_DONE;
        for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
            const grovep_edge_t *x = &g->e[e];
            if ((x->flags & GROVEP_E_DEAD) || !sel[x->dst])
                continue;
            if (g->subsys[x->sub] == g->sym_containment && (x->flags & GROVEP_E_UP)
                && g->rels[x->rel] == g->sym_in)
                continue; /* implied by its "contains" */
            w_edge(w, e);
        }
    }
}

static void w_doc(writer_t *w, const grove_vid_t *vids, size_t n, uint32_t *sel)
{
    const grove_graph_t *g = w->g;
    w_open(w, '{');
    W_KEY(w, "graph");
    w_open(w, '{');
    if (w->state) {
        W_KEY(w, "metadata");
        w_open(w, '{');
        W_KEY(w, "grove");
        w_open(w, '{');
        W_KEY(w, "now");
        w_int(w, g->now);
        if (g->expiration > 0) {
            W_KEY(w, "expiration");
            w_int(w, g->expiration);
        }
        w_close(w, '}');
        w_close(w, '}');
    }
    W_KEY(w, "nodes");
    w_open(w, '[');
    if (sel && w->brief)
        w->place = sel; /* ids: places in the list */
    if (sel) {
        uint32_t k = 0;
        for (size_t i = 0; i < n; i++) {
            grove_vid_t v = vids[i];
            if (!grovep_alive(g, v) || sel[v])
                continue;
            sel[v] = ++k;
            if (w->brief)
                w_node_brief(w, v);
            else
                w_node(w, v);
        }
    } else {
        for (grove_vid_t v = 0; v < g->nv; v++) {
            GROVE_PROGRESS("writing JGF", v, v, (uint64_t)g->nv + g->ne);
            if (grovep_alive(g, v)) {
                if (w->brief)
                    w_node_brief(w, v);
                else
                    w_node(w, v);
            }
        }
    }
    w_close(w, ']');
    W_KEY(w, "edges");
    w_open(w, '[');
    if (sel && w->brief) {
        w_edges_of(w, vids, n, sel);
        n = 0;
        goto edges_done;
    }
    /* a pair whose upward edge is not an "in" is written downward edge
     * first, its upward edge right after: a reader tells the direction of
     * a relationship it does not know by that order (jgf.c); other edges
     * keep their order */
    for (grove_eid_t e = 0; e < g->ne; e++) {
        const grovep_edge_t *x = &g->e[e];
        if (!sel)
            GROVE_PROGRESS("writing JGF", e, (uint64_t)g->nv + e, (uint64_t)g->nv + g->ne);
        if (x->flags & GROVEP_E_DEAD)
            continue;
        if (sel && (!sel[grovep_edge_src(g, e)] || !sel[x->dst]))
            continue;
        if (w->brief && g->subsys[x->sub] == g->sym_containment && (x->flags & GROVEP_E_UP)
            && g->rels[x->rel] == g->sym_in)
            continue; /* implied by its "contains" */
        grove_eid_t oe = grovep_edge_opposite(g, e);
        const grovep_edge_t *o = oe != GROVEP_NONE ? &g->e[oe] : NULL;
        bool paired = o && !!(x->flags & GROVEP_E_UP) != !!(o->flags & GROVEP_E_UP)
                      && g->rels[(x->flags & GROVEP_E_UP) ? x->rel : o->rel] != g->sym_in;
        if (paired && (x->flags & GROVEP_E_UP))
            continue; /* written with its downward edge */
        w_edge(w, e);
        if (paired)
            w_edge(w, oe);
    }
edges_done:
    w_close(w, ']');
    w_close(w, '}');
    w_close(w, '}');
    if (w->pretty)
        W_LIT(w, "\n");
}

static char *write_text(const grove_graph_t *g, const grove_vid_t *vids, size_t n, int flags,
                        size_t *lenp)
{
    writer_t w = {.g = g, .pretty = !(flags & GROVE_JGF_COMPACT),
                  .state = !!(flags & GROVE_JGF_WITH_STATE),
                  .paths = !(flags & GROVE_JGF_NO_PATHS), .brief = !!(flags & GROVE_JGF_SHORT)};
    uint32_t *sel = vids ? calloc(g->nv ? g->nv : 1, sizeof(*sel)) : NULL;
    w.mark = calloc(GROVEP_MAX_SMALL, sizeof(*w.mark));
    w.ps = calloc(GROVEP_MAX_SMALL, sizeof(*w.ps));
    /* rough size: 300 bytes a vertex, 100 an edge */
    if (!w.mark || !w.ps || (vids && !sel)
        || !grovep_buf_room(&w.b, (vids ? n : g->nlive) * 300 + 4096))
        w.b.failed = true;
    else
        w_doc(&w, vids, n, sel);
    if (!vids)
        grove_progress_end("writing JGF");
    free(sel);
    free(w.mark);
    free(w.chain);
    for (size_t s = 0; w.ps && s < GROVEP_MAX_SMALL; s++) {
        free(w.ps[s].at);
        free(w.ps[s].v);
        free(w.ps[s].len);
        free(w.ps[s].path.p);
    }
    free(w.ps);
    char *text = grovep_buf_finish(&w.b);
    if (text && lenp)
        *lenp = w.b.len;
    return text;
}

char *grove_jgf_write(const grove_graph_t *g, int flags)
{
    return write_text(g, NULL, 0, flags, NULL);
}

char *grove_jgf_write_vertices(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                               int flags)
{
    static const grove_vid_t none = GROVE_VID_NONE;
    return write_text(g, vids ? vids : &none, vids ? n : 0, flags, NULL);
}

struct json_t *grove_jgf_write_json(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                                    int flags)
{
    size_t len;
    char *text = write_text(g, vids, n, flags | GROVE_JGF_COMPACT, &len);
    if (!text)
        return NULL;
    json_error_t jerr;
    json_t *j = json_loadb(text, len, 0, &jerr);
    free(text);
    return grovep_or_errno(j, ENOMEM);
}
