/* aggregate_private.h: what the parts of the aggregates share
 * (aggregate.c, the free units below each aggregate and the pools'
 * planners; aggregate_busy.c, the nodes in use over time).
 *
 * It holds the map from a vertex to its aggregate and the end of a
 * record as the planners keep it, which both parts read, and the calls
 * one part makes of the other.  The aggregates' representation itself is
 * in graph_private.h; the API is aggregate.h.
 */
#ifndef GROVE_AGGREGATE_PRIVATE_H
#define GROVE_AGGREGATE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "graph_private.h"
#include "planner.h"

/* The set bits of each byte (aggregate.c). */
extern const uint8_t grovep_popcount8[256];

/* The value s maps v to, or UINT32_MAX when v has none. */
static inline uint32_t grovep_sparse_get(const grovep_sparse_t *s, grove_vid_t v)
{
    size_t b = v >> 3;
    if (b >= s->nblk)
        return UINT32_MAX;
    unsigned m = s->bits[b], bit = 1u << (v & 7);
    if (!(m & bit))
        return UINT32_MAX;
    return s->val[s->base[b] + grovep_popcount8[m & (bit - 1)]];
}

/* The aggregate of v (grovep_agg_of) and of v's block (grovep_blk_of), or
 * NULL, to change: inline for the loops of both parts that ask at every
 * ancestor. */
static inline grovep_agg_t *grovep_agg_at(grove_graph_t *g, grove_vid_t v)
{
    if (!g->naggs)
        return NULL;
    uint32_t i = grovep_sparse_get(&g->agg_of, v);
    return i == UINT32_MAX ? NULL : &g->aggs[i];
}

static inline grovep_agg_t *grovep_blk_at(grove_graph_t *g, grove_vid_t v)
{
    if (g->naggs == g->nvaggs)
        return NULL;
    uint32_t i = grovep_sparse_get(&g->blk_of, v);
    return i == UINT32_MAX ? NULL : &g->aggs[i];
}

/* The map of the n distinct vertices key(i) to val(i) (i itself when val
 * is NULL), over vertices below nv; key(i) is the vertex at byte offset
 * i * stride of keys: 0, or -1 (ENOMEM) with *s empty. */
int grovep_sparse_build(grovep_sparse_t *s, size_t nv, const void *keys, size_t stride,
                        const uint32_t *vals, size_t n);
void grovep_sparse_free(grovep_sparse_t *s);

/* A record's end as the planners hold it: at most GROVE_PLANNER_TIME_MAX. */
static inline int64_t grovep_plan_end(int64_t end)
{
    return end > GROVE_PLANNER_TIME_MAX ? GROVE_PLANNER_TIME_MAX : end;
}

/* The tallies' pending changes (aggregate_busy.c) dropped, with the
 * aggregates they name; and their memory freed. */
void grovep_busy_batch_clear(struct grovep_busybatch *b);
void grovep_busy_batch_free(struct grovep_busybatch *b);

#endif
