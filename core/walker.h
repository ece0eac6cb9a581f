/* walker.h: depth-first traversal of one subsystem with RFC 4 filters,
 * the score-sorted accumulator, and the methods built on walks (aggregate,
 * find), all in walker.c.
 *
 * Holds the public API of walker.c only; graph.h includes it.  The
 * matcher's own walk is in match_walk.c, not here.
 *
 * It must not hold anything of the graph's internals (graph_private.h).
 */
#ifndef GROVE_WALKER_H
#define GROVE_WALKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* ---- traversal -------------------------------------------------------- */

typedef enum grove_walk_action {
    GROVE_WALK_CONTINUE = 0, /* descend */
    GROVE_WALK_SKIP = 1,     /* do not descend below this vertex */
    GROVE_WALK_STOP = 2      /* end the walk now */
} grove_walk_action_t;

/* Hooks for grove_graph_walk.  Any may be NULL.  A hook returning -1 stops
 * the walk, which then returns -1 with the hook's errno. */
typedef struct grove_walk_hooks {
    /* pre-order: CONTINUE, SKIP, STOP or -1. */
    int (*pre)(grove_graph_t *g, grove_vid_t v, int depth, void *arg);
    /* order the n children of parent in place; 0 or -1. */
    int (*order)(grove_graph_t *g, grove_vid_t parent, grove_vid_t *children, size_t n,
                 void *arg);
    /* post-order: 1 to push v into the accumulator with *score, 0 not to,
     * 2 to push and stop, 3 to stop without pushing, -1 on error. */
    int (*post)(grove_graph_t *g, grove_vid_t v, int depth, double *score, void *arg);
    void *arg;
} grove_walk_hooks_t;

/* Accumulator: vertices kept in descending score order (stable: equal
 * scores in push order), optionally bounded to the best k. */
typedef struct grove_accum grove_accum_t;
grove_accum_t *grove_accum_create(size_t limit); /* limit 0: unbounded */
void grove_accum_destroy(grove_accum_t *a);
void grove_accum_reset(grove_accum_t *a);
int grove_accum_push(grove_accum_t *a, grove_vid_t v, double score);
size_t grove_accum_count(const grove_accum_t *a);
/* The i-th best: vertex, and *score if given. */
grove_vid_t grove_accum_at(const grove_accum_t *a, size_t i, double *score);

/* Depth-first walk of subsystem from start (pre-order hook, child order,
 * post-order hook feeding acc, which may be NULL).  Each vertex is visited
 * at most once per walk, so a walk ends on any graph: in a subsystem with
 * cycles or shared children a vertex reached again is not a child the
 * second time (the order hook never sees it).  Returns 0, 1 when a hook
 * stopped the walk, or -1 (a hook failed, or ENOMEM). */
int grove_graph_walk(grove_graph_t *g, grove_vid_t start, grove_sym_t subsystem,
                     const grove_walk_hooks_t *hooks, grove_accum_t *acc);

/* ---- methods built on walks ------------------------------------------ */

/* Aggregate: available units by type in the containment subtree of v, at
 * the graph's current time.  Subtrees of unavailable vertices (down,
 * drained, excluded, held exclusively, or with nothing available) are
 * skipped; zero counts are omitted.  The callback is called once per type
 * in first-seen (pre-order) order; returns 0 or -1 with ENOMEM. */
typedef void (*grove_aggregate_f)(const char *type, int64_t count, void *arg);
int grove_graph_aggregate(const grove_graph_t *g, grove_vid_t v, grove_aggregate_f cb,
                          void *arg);

/* Find: vertices of the containment subtree of start for which pred is
 * true, plus their descendants and their ancestors up to the root, as a
 * sorted array of ids (*out, caller frees) of *n entries.  pred returns 1,
 * 0 or -1 (error: stops, returned).  0 or -1. */
typedef int (*grove_pred_f)(const grove_graph_t *g, grove_vid_t v, void *arg);
int grove_graph_find(const grove_graph_t *g, grove_vid_t start, grove_pred_f pred, void *arg,
                     grove_vid_t **out, size_t *n);

#endif
