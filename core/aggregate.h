/* aggregate.h: pruning aggregates (aggregate.c): which vertices keep a
 * count over time of which types below them, and what they say.
 *
 * Holds the public API of aggregate.c only; graph.h includes it.
 *
 * It must not hold the aggregates' representation (graph_private.h) or the
 * pool planners' records (pool.h).
 */
#ifndef GROVE_AGGREGATE_H
#define GROVE_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Choose which vertices keep aggregates of which types below them:
 * "HL:LL,..." with HL a type or ALL and LL a type, e.g. the default
 * "ALL:core,ALL:node,ALL:gpu".  EINVAL (with err) on a bad spec. */
int grove_graph_set_aggregates(grove_graph_t *g, const char *spec, grove_error_t *err);
/* The current specification (borrowed). */
const char *grove_graph_aggregates(const grove_graph_t *g);
/* Free units of type below v (v included) throughout [start, end), from
 * v's aggregate; -1 with ENOENT when v keeps none for that type. */
int64_t grove_vertex_aggregate_avail(const grove_graph_t *g, grove_vid_t v, const char *type,
                                     int64_t start, int64_t end);

#endif
