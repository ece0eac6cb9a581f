/* graph_life.c: a graph's life with what the floors above the graph keep
 * beside it: grove_graph_create, grove_graph_destroy and the deep copy.
 *
 * graph.c makes, frees and copies the bare graph (vertices, edges,
 * subsystems, indexes) and knows nothing of the floors above it; a graph
 * as the API hands it out also carries its aggregates and pool planners
 * (aggregate.c) and its record index (pool.c).  This file, above all three,
 * starts them with the graph, ends them with it and rebuilds them in a
 * copy, so that no lower file calls a higher one (docs/architecture.md).
 *
 * This file must not hold anything else: the graph's data belongs to
 * graph.c, the derived counts to aggregate.c, the records to pool.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"
#include "util.h"

grove_graph_t *grove_graph_create(void)
{
    grove_graph_t *g = grovep_graph_new();
    if (!g)
        return NULL;
    if (grovep_agg_init(g) < 0)
        return GROVEP_NULL_AFTER(grove_graph_destroy, g, ENOMEM);
    return g;
}

void grove_graph_destroy(grove_graph_t *g)
{
    if (!g)
        return;
    int saved = errno;
    grovep_agg_fini(g);
    grovep_rec_index_free(g);
    grovep_graph_free(g);
    errno = saved;
}

grove_graph_t *grovep_graph_clone(const grove_graph_t *g)
{
    grove_graph_t *c = grovep_graph_copy(g);
    if (!c)
        return NULL;
    /* the aggregates' specification is copied; their state and the pool
     * planners are rebuilt from the copied records, never shared */
    if (!(c->agg_spec = strdup(g->agg_spec)) || grovep_planners_rebuild(c) < 0
        || grovep_shared_reindex(c) < 0)
        return GROVEP_NULL_AFTER(grove_graph_destroy, c, ENOMEM);
    return c;
}
