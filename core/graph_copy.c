/* graph_copy.c: the deep copy of the bare graph (grovep_graph_copy): every
 * per-vertex array, the edges, strings, indexes and the record and kv
 * pools, so that the copy shares nothing with the original.  graph_life.c
 * makes it the API's grove_graph_duplicate by rebuilding the aggregates
 * and the record index beside it.
 *
 * It must not hold anything a copy does not need (making or editing a
 * graph: graph.c, graph_edge.c), nor start the floors above the graph
 * (aggregates, planners: graph_life.c).
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

/* Copy the n elements of elem bytes at src into the array *dst (of *cap
 * elements), growing it first.  0, or -1 with ENOMEM. */
static int copy_grown(void **dst, size_t *cap, const void *src, size_t n, size_t elem)
{
    if (!n)
        return 0;
    if (grovep_grow(dst, cap, n, elem) < 0)
        return -1;
    memcpy(*dst, src, n * elem);
    return 0;
}

/* c is a shallow copy of a graph: forget every array and table it shares
 * with the original (each is copied, or rebuilt when used), so that
 * grovep_graph_free may free c at any step of the copy. */
static void forget_shared(grove_graph_t *c)
{
    c->strings = NULL;
    c->v = NULL;
    c->first_out = c->parent = NULL;
    c->uin_first = c->uin_next = NULL;
    c->uin_src = NULL;
    c->uin_nv = c->uin_ne = 0;
    c->tails = NULL;
    c->ntails = c->tailcap = 0;
    c->next_type = c->next_name = c->next_rank = NULL;
    c->e = NULL;
    c->kv = NULL;
    c->kvh = NULL;
    c->recs = NULL;
    c->heads = NULL;
    c->by_type = c->by_name = NULL;
    memset(&c->by_rank, 0, sizeof(c->by_rank));
    memset(&c->big_ids, 0, sizeof(c->big_ids));
    c->units = NULL;
    /* the recent strings point into g's own table of strings: the copy
     * makes its own as it goes.  The names' tables (symbols, the same in
     * the copy's table) are copied below: the names of the vertices not
     * flagged GROVEP_V_NAMED are read there */
    c->idnames = NULL;
    c->nidnames = c->idnames_len = 0;
    c->names = NULL;
    c->pnames = NULL;
    memset(c->recent, 0, sizeof(c->recent));
    c->uuidx = NULL;
    c->chg_ring = NULL; /* a matcher of the copy starts its own */
    /* containment's child arrays, a cache the copy makes again when read
     * (shared, both graphs freed them) */
    c->tk_off = NULL;
    c->tk_kid = NULL;
    c->tk_kind = NULL;
    c->tk_cap = c->tk_nv = c->tk_ne = c->tk_live = 0;
    memset(&c->rec_idx, 0, sizeof(c->rec_idx));
    /* derived state is rebuilt, not shared */
    c->agg_spec = NULL;
    c->aggs = NULL;
    c->aggv = NULL;
    c->naggs = c->aggcap = c->aggvcap = 0;
    c->agg_sum = NULL;
    c->agg_touch = NULL;
    c->agg_seen = NULL;
    memset(&c->agg_of, 0, sizeof(c->agg_of));
    memset(&c->blk_of, 0, sizeof(c->blk_of));
    memset(&c->busy_of, 0, sizeof(c->busy_of));
    c->busy_nw = NULL;
    memset(&c->busy_batch, 0, sizeof(c->busy_batch));
    c->nvaggs = 0;
    memset(&c->aggwin, 0, sizeof(c->aggwin));
    c->planners = NULL;
    c->planner_vid = NULL;
    c->nplanners = c->plcap = c->nspare = 0;
    memset(&c->planner_of, 0, sizeof(c->planner_of));
    c->rec_ends = NULL;
    c->nrec_ends = c->rec_endcap = 0;
    c->rec_starts = NULL;
    c->nrec_starts = c->rec_startcap = 0;
}

#define CP(field, n)                                                            \
    if (n)                                                                      \
    memcpy(c->field, g->field, (n) * sizeof(*g->field))

/* The per-vertex arrays (c's are reserved): records, names, kv heads,
 * the names' tables, out-lists, parents, the in-lists of edges with no
 * opposite and the index chains that g made.  0, or -1 (ENOMEM). */
static int copy_vertex_arrays(grove_graph_t *c, const grove_graph_t *g)
{
    CP(v, g->nv);
    if (g->names) {
        if (!(c->names = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->names))))
            return -1;
        CP(names, g->nv);
    }
    if (g->pnames) {
        if (!(c->pnames = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->pnames))))
            return -1;
        CP(pnames, g->nv);
    }
    if (g->kvh) {
        if (!(c->kvh = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->kvh))))
            return -1;
        memset(c->kvh, 0xff, c->vcap * sizeof(*c->kvh)); /* GROVEP_NONE */
        CP(kvh, g->nv);
    }
    if (g->nidnames) {
        if (!(c->idnames = calloc(g->nidnames, sizeof(*c->idnames))))
            return -1;
        c->nidnames = g->nidnames;
        for (size_t i = 0; i < g->nidnames; i++) {
            const grovep_idnames_t *t = &g->idnames[i];
            if (!t->len)
                continue;
            if (!(c->idnames[i].at = malloc(t->len * sizeof(*t->at))))
                return -1;
            memcpy(c->idnames[i].at, t->at, t->len * sizeof(*t->at));
            c->idnames[i].len = t->len;
        }
        c->idnames_len = g->idnames_len;
    }
    CP(first_out, g->nv);
    CP(parent, g->nv);
    if (g->uin_first) { /* both cover at least one slot when made */
        if (!(c->uin_first = malloc(g->uin_nv * sizeof(*c->uin_first)))
            || !(c->uin_next = malloc(g->uin_ne * sizeof(*c->uin_next)))
            || !(c->uin_src = malloc(g->uin_ne * sizeof(*c->uin_src))))
            return -1;
        memcpy(c->uin_first, g->uin_first, g->uin_nv * sizeof(*c->uin_first));
        memcpy(c->uin_next, g->uin_next, g->uin_ne * sizeof(*c->uin_next));
        memcpy(c->uin_src, g->uin_src, g->uin_ne * sizeof(*c->uin_src));
        c->uin_nv = g->uin_nv;
        c->uin_ne = g->uin_ne;
    }
    /* the index chains that g made */
    const grove_vid_t *glinks[] = {g->next_type, g->next_name, g->next_rank};
    grove_vid_t **clinks[] = {&c->next_type, &c->next_name, &c->next_rank};
    for (size_t i = 0; i < sizeof(glinks) / sizeof(glinks[0]); i++) {
        if (!glinks[i])
            continue;
        if (!(*clinks[i] = malloc((c->vcap ? c->vcap : 1) * sizeof(grove_vid_t))))
            return -1;
        if (g->nv)
            memcpy(*clinks[i], glinks[i], g->nv * sizeof(grove_vid_t));
    }
    return 0;
}

/* The edges, kv and record pools, the index heads, the tails, the maps,
 * units and the stored uuids.  0, or -1 (ENOMEM). */
static int copy_edges_and_pools(grove_graph_t *c, const grove_graph_t *g)
{
    if (copy_grown((void **)&c->e, &c->ecap, g->e, g->ne, sizeof(*c->e)) < 0 ||
        copy_grown((void **)&c->kv, &c->kvcap, g->kv, g->nkv, sizeof(*c->kv)) < 0 ||
        copy_grown((void **)&c->recs, &c->reccap, g->recs, g->nrec, sizeof(*c->recs)) < 0)
        return -1;
    c->headcap = 0;
    if (g->headcap && (grovep_grow((void **)&c->heads, &c->headcap, g->headcap,
                                   sizeof(*c->heads)) < 0))
        return -1;
    if (g->nheads)
        memcpy(c->heads, g->heads, g->nheads * sizeof(*c->heads));
    if (g->chain_cap) {
        c->by_type = malloc(g->chain_cap * sizeof(*c->by_type));
        c->by_name = malloc(g->chain_cap * sizeof(*c->by_name));
        if (!c->by_type || !c->by_name)
            return -1;
        c->chain_cap = g->chain_cap;
        CP(by_type, g->chain_cap);
        CP(by_name, g->chain_cap);
    }
    if (g->tailcap) {
        if (!(c->tails = malloc(g->tailcap * sizeof(*c->tails))))
            return -1;
        memcpy(c->tails, g->tails, g->tailcap * sizeof(*c->tails));
        c->ntails = g->ntails;
        c->tailcap = g->tailcap;
    }
    if (grovep_map_copy(&c->by_rank, &g->by_rank) < 0 || grovep_map_copy(&c->big_ids, &g->big_ids) < 0
        || !(c->units = malloc(g->unitcap * sizeof(*c->units))))
        return -1;
    memcpy(c->units, g->units, g->nunits * sizeof(*c->units));
    if (g->uuidx->u) {
        if (!(c->uuidx->u = malloc((c->vcap ? c->vcap : 1) * sizeof(*c->uuidx->u))))
            return -1;
        memcpy(c->uuidx->u, g->uuidx->u, g->nv * sizeof(*c->uuidx->u));
    }
    return 0;
}
#undef CP

grove_graph_t *grovep_graph_copy(const grove_graph_t *g)
{
    grove_graph_t *c = grovep_zalloc(sizeof(*c));
    if (!c)
        return NULL;
    *c = *g;
    /* the copy holds no matcher's jobs, but their records: a matcher on
     * it numbers its jobs after them */
    c->holder = NULL;
    if (g->holder && !(c->holder = calloc(1, sizeof(*c->holder)))) {
        free(c);
        return NULL;
    }
    if (g->holder)
        *c->holder = (struct grovep_holder){.refs = 1, .next_id = g->holder->next_id};
    forget_shared(c);
    if (!(c->uuidx = calloc(1, sizeof(*c->uuidx)))) /* its index: built when used */
        goto fail;
    memcpy(c->uuidx->key, g->uuidx->key, sizeof(c->uuidx->key));
    memcpy(c->uuidx->rng, g->uuidx->rng, sizeof(c->uuidx->rng));
    c->vcap = c->ecap = c->kvcap = c->reccap = c->chain_cap = 0;
    if (!(c->strings = grove_intern_copy(g->strings)))
        goto fail;
    if (g->nv && grovep_reserve_vertices(c, g->nv) < 0)
        goto fail;
    if (copy_vertex_arrays(c, g) < 0 || copy_edges_and_pools(c, g) < 0)
        goto fail;
    return c;
fail:
    return GROVEP_NULL_AFTER(grovep_graph_free, c, ENOMEM);
}
