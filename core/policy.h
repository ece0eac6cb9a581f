/* policy.h: placement policies — the decision points of the matcher.
 *
 * The matcher walks the dominant subsystem guided by the request and asks
 * the policy, at each point, what to do:
 *   - prune:  at a vertex, before descending: skip this subtree?
 *   - order:  the order in which to visit the children of a vertex;
 *   - score:  a score for a candidate that fits (post-order);
 *   - select: take the first k candidates that fit in visiting order
 *             (GROVE_SELECT_FIRST, fast: the walk stops early), or score
 *             every candidate that fits and take the best k
 *             (GROVE_SELECT_BEST);
 *   - options: node-exclusive (every selected node is taken whole).
 * Every hook is optional; a NULL hook falls back to the C default (visit in
 * graph order, no pruning beyond availability, score 0).  The built-in
 * policies are C fast paths of the Lua files in policies/; a Lua policy is
 * turned into this struct by the bindings, whose trampolines call Lua.
 *
 * This header must not hold the built-in policies' code (policy.c) or the
 * matcher's walk (match.c).
 */
#ifndef GROVE_POLICY_H
#define GROVE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.h"

typedef enum grove_select {
    GROVE_SELECT_FIRST = 0, /* the first k that fit, in visiting order */
    GROVE_SELECT_BEST = 1   /* every fitting candidate scored; best k */
} grove_select_t;

/* What the hooks are told about the request being matched. */
typedef struct grove_policy_ctx {
    grove_sym_t type; /* the requested type at this level */
    uint64_t count;   /* how many are needed at this level */
    int64_t start;    /* the window being tried */
    int64_t end;
} grove_policy_ctx_t;

typedef struct grove_policy {
    const char *name;
    /* 1 to skip the subtree of v, 0 to look inside, -1 on error (errno). */
    int (*prune)(void *arg, const grove_graph_t *g, grove_vid_t v,
                 const grove_policy_ctx_t *ctx);
    /* Reorder the n children of parent in place; 0 or -1. */
    int (*order)(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                 size_t n);
    /* Score a fitting candidate (higher is better): 0 or -1. */
    int (*score)(void *arg, const grove_graph_t *g, grove_vid_t v,
                 const grove_policy_ctx_t *ctx, double *score);
    /* Choose k of the n fitting candidates (vs[], scores[] best first as
     * scored) by writing their positions into pick[0..k): 0, or -1.  NULL:
     * the first k. */
    int (*choose)(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                  const double *scores, size_t n, size_t k, size_t *pick);
    grove_select_t select;
    bool node_exclusive; /* every selected node is taken whole */
    void *arg;           /* passed to every hook */
} grove_policy_t;

/* The built-in policy called name ("first", "low", "high", "lonode",
 * "hinode", "lonodex", "hinodex", "firstnodex", "locality", "variation"),
 * or NULL (ENOENT).  The result is static: do not modify it. */
const grove_policy_t *grove_policy_builtin(const char *name);

/* The i-th built-in policy name, or NULL past the end. */
const char *grove_policy_builtin_name(size_t i);

#endif
