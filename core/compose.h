/* compose.h: the RFC 4 methods that make or reshape hierarchies
 * (compose.c): copy, duplicate, merge, unlink, extract.
 *
 * Holds the public API of compose.c only; graph.h includes it.
 *
 * It must not hold walks (walker.h) or anything of the graph's internals
 * (graph_private.h).
 */
#ifndef GROVE_COMPOSE_H
#define GROVE_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* ---- RFC 4 composite methods ----------------------------------------- */

/* Copy: a new graph of the containment subtree of v with only what is
 * available now: pools with nothing available are dropped with their
 * children, sizes set to available, records cleared; the ancestors of v up
 * to the root are kept.  Edges of other subsystems between copied vertices
 * are kept.  NULL with ENOMEM. */
grove_graph_t *grove_graph_copy(const grove_graph_t *g, grove_vid_t v);

/* Duplicate: an exact copy of the whole graph (vertex ids preserved). */
grove_graph_t *grove_graph_duplicate(const grove_graph_t *g);

/* Merge: add the containment hierarchy of src into g.  With at == NULL, the
 * two roots must have the same name (the hierarchies meet at their common
 * ancestor): vertices of src whose containment path exists in g are the
 * same pool and keep g's data; the rest are added below their parent.  With
 * at set, src's root is attached as a child of the vertex at that path of
 * g.  Base data, status, properties and tags are copied; records are not.
 * Edges of other subsystems are merged too.  Fails with EINVAL (no common
 * root, path not found, a vertex at the same path with another type) with
 * the reason in err; g is unchanged on failure.  Returns the number of
 * vertices added. */
long grove_graph_merge(grove_graph_t *g, const grove_graph_t *src, const char *at,
                       grove_error_t *err);

/* Unlink: remove v and its containment subtree from the graph (every edge
 * touching them in every subsystem; the vertices die).  Refused with EBUSY
 * when any of them holds records, unless force is set, in which case the
 * jobs' records in the subtree (and their annotations above) are dropped.
 * EINVAL for a dead vertex. */
int grove_graph_unlink(grove_graph_t *g, grove_vid_t v, bool force);

/* Extract: a new graph with exactly the listed vertices (ids need not be
 * sorted; duplicates ignored) and every edge between two of them, with all
 * their data and records.  New ids follow the order of the list after
 * sorting.  NULL with ENOMEM or EINVAL (a dead id). */
grove_graph_t *grove_graph_extract(const grove_graph_t *g, const grove_vid_t *vids, size_t n);

#endif
