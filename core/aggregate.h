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
/* The same for the type's symbol in the graph (grove_graph_sym_lookup):
 * for a caller asking about one type for many vertices, which looks the
 * name up once.  -1 with ENOENT also for GROVE_SYM_NONE. */
int64_t grove_vertex_aggregate_avail_sym(const grove_graph_t *g, grove_vid_t v, grove_sym_t type,
                                         int64_t start, int64_t end);

/* The same for n types at once (symbols), from one query of v's
 * aggregate: out[k] the free units of types[k], -1 for a type v keeps
 * none of.  For a caller asking about several types of many vertices.
 * 0, or -1 with EINVAL (no such vertex, an empty window) or ENOMEM. */
int grove_vertex_aggregate_avail_syms(const grove_graph_t *g, grove_vid_t v,
                                      const grove_sym_t *types, size_t n, int64_t start,
                                      int64_t end, int64_t *out);

/* Free units by type in the containment subtree of v (v included)
 * throughout [start, end), as cb(type, units, arg) for each type with
 * some (grove_window_f has the shape of walker.h's grove_aggregate_f).
 * When v keeps a pruning aggregate the answer is the aggregate's (the
 * types it tracks, one query, no walk: what the matcher prunes with);
 * otherwise the subtree is walked and every type reported.  Nothing is
 * free below an ancestor that is not up or is held exclusively during the
 * window.  0, or -1 with EINVAL (no such vertex, an empty window) or
 * ENOMEM. */
typedef void (*grove_window_f)(const char *type, int64_t units, void *arg);
int grove_vertex_aggregate_window(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                  int64_t end, grove_window_f cb, void *arg);

#endif
