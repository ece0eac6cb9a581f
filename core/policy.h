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
 * matcher's walk (match_walk.c).
 */
#ifndef GROVE_POLICY_H
#define GROVE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "job.h"
#include "jobspec.h"

typedef enum grove_select {
    GROVE_SELECT_FIRST = 0, /* the first k that fit, in visiting order */
    GROVE_SELECT_BEST = 1   /* every fitting candidate scored; best k */
} grove_select_t;

/* How a policy's order puts vertex ids, as the policy declares it: the
 * matcher never asks the order hook to find out (a hook that leaves a list
 * as it is says nothing of ids). */
typedef enum grove_id_order {
    GROVE_ID_ORDER_NONE = 0,       /* not by id at every level (or no order) */
    GROVE_ID_ORDER_ASCENDING = 1,  /* lowest id first at every level (low, lonode) */
    GROVE_ID_ORDER_DESCENDING = -1 /* highest id first at every level (high, hinode) */
} grove_id_order_t;

/* Whether the matcher may take a policy's id_order on trust or looks at
 * the lists its order hook gives (grove_policy_t.id_check): never by
 * handing the hook lists of its own, only the lists a match asks for. */
typedef enum grove_id_check {
    GROVE_ID_CHECK_NONE = 0,   /* the order puts ids that way (a C order by id) */
    GROVE_ID_CHECK_FOLLOW = 1, /* the ranking by id holds while the hook leaves every
                                * list of the match in id order; once it moves one,
                                * the match takes the walk's order, the hook's */
    GROVE_ID_CHECK_RAISE = 2   /* the same, and a moved list fails the match: the
                                * policy said its order was by id */
} grove_id_check_t;

/* The whole request as the hooks see it, the same for every hook call of
 * one match (the matcher builds it once per match, grove_policy_request_*
 * below).  Types are those the request names, slots left out. */
typedef struct grove_policy_request {
    const grove_jobspec_t *jobspec; /* borrowed: slot shape, attributes */
    grove_jobid_t job;              /* the id the job gets */
    int64_t duration;               /* seconds; GROVE_TIME_MAX: no end */
    size_t ntypes;
    const char **names;             /* [ntypes] the types, first use first */
    grove_sym_t *types;             /* [ntypes] GROVE_SYM_NONE: not in the graph */
    uint64_t *total;                /* [ntypes] units asked in all (minimum counts,
                                     * multiplied down the tree; saturating) */
    uint64_t *found;                /* [ntypes] units the attempt holds so far */
    uint64_t serial;                /* changes whenever found changes */
} grove_policy_request_t;

/* What the score hooks of a policy read, as the provider of its hooks
 * watched them run (grove_policy_t.observe): bits of GROVE_READ_*, and
 * the totals of which of the request's types (bit k: the k-th of
 * grove_policy_request_t.types, the first 64). */
enum {
    GROVE_READ_TYPE = 1,   /* ctx's type */
    GROVE_READ_COUNT = 2,  /* ctx's count */
    GROVE_READ_TOTAL = 4,  /* every type's total (the table walked) */
    GROVE_READ_WINDOW = 8, /* the window's bounds or the job's duration, or
                            * records at times of the hook's own */
    GROVE_READ_OTHER = 16  /* anything else: what the match found so far,
                            * the job, another vertex's records, state the
                            * provider cannot see; the scores are not local */
};

typedef struct grove_policy_reads {
    unsigned what;   /* GROVE_READ_* */
    uint64_t totals; /* bit k: the total of the request's k-th type */
} grove_policy_reads_t;

/* What the hooks are told about the request being matched. */
typedef struct grove_policy_ctx {
    grove_sym_t type; /* the requested type at this level (NONE in a slot) */
    uint64_t count;   /* how many of it are still needed at this level */
    int64_t start;    /* the window being tried */
    int64_t end;
    const grove_policy_request_t *req;    /* the whole request, or NULL */
    const grove_jobspec_resource_t *level; /* the request vertex being matched,
                                            * or NULL */
} grove_policy_ctx_t;

typedef struct grove_policy {
    const char *name;
    /* 1 to skip the subtree of v, 0 to look inside, -1 on error (errno). */
    int (*prune)(void *arg, const grove_graph_t *g, grove_vid_t v,
                 const grove_policy_ctx_t *ctx);
    /* Reorder the n children of parent in place; 0 or -1.  Asked once
     * per parent for each window a match tries: the walk keeps the order
     * for its later visits of the parent in that window (a trial, then
     * the take), so it must depend on nothing but the parent, its
     * children and the graph's state during the window. */
    int (*order)(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                 size_t n);
    /* Score a candidate (higher is better): 0 or -1.  Under
     * GROVE_SELECT_BEST the candidates of a request level with children
     * are those their aggregates admit (the matcher verifies only the
     * chosen by taking them), so a candidate that turns out not to fit may
     * be scored too. */
    int (*score)(void *arg, const grove_graph_t *g, grove_vid_t v,
                 const grove_policy_ctx_t *ctx, double *score);
    /* Score the n candidates of one request level at once (out[i] for
     * vs[i], vs in visiting order; the same candidates score would be
     * asked about, after all of them were found): 0 or -1.  When set,
     * score is not called; the order that results is the same (best
     * first, equal scores in visiting order).  One call per level instead
     * of one per candidate: what a policy in another language needs when
     * a call costs more than the score. */
    int (*scores)(void *arg, const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                  const grove_policy_ctx_t *ctx, double *out);
    /* Choose k of the n fitting candidates (vs[], scores[] best first as
     * scored) by writing their positions into pick[0..k): 0, or -1.  When
     * a chosen candidate only admitted by its aggregate does not fit, the
     * matcher verifies every candidate and asks again with those that fit,
     * so choose may run twice for one level.  NULL:
     * the first k. */
    int (*choose)(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                  const double *scores, size_t n, size_t k, size_t *pick);
    grove_select_t select;
    bool node_exclusive; /* every selected node is taken whole */
    /* Children are visited untouched first: those no job of this matcher
     * went through yet, highest vertex id first; then the others by a rank
     * each job sets on the vertices it goes through (the units free at the
     * job's start of the last type the aggregates name for the vertex),
     * highest rank first, then highest id.  Cancelling a job changes no
     * rank.  The order hook is then not used (match_use.c,
     * grovep_match_use_update). */
    bool explore_by_use;
    /* The order hook puts ids this way at every level (low, high, lonode,
     * hinode and their x variants declare it).  Then a fixed number of
     * slots, and a request whose top level lies below the nodes, are
     * chosen as the reference engine chooses them: ranked by the ids of
     * what they take, across the homes (match_slot.c, match_walk.c's
     * take_top_by_id), not taken in the walk's order.  NONE (an order by
     * anything else, or by id at some levels only): slots and candidates
     * in the walk's order, the order hook's.  Only with an order hook and
     * without explore_by_use. */
    grove_id_order_t id_order;
    /* Whether id_order is taken on trust (NONE: a C order by id) or
     * checked against each list the order hook gives in a match
     * (grove_id_check_t): an order of a policy's own on a base that ranks
     * by id keeps that ranking exactly while it leaves the lists as the
     * base had them. */
    grove_id_check_t id_check;
    /* Slots compared by their ids weigh the id of the node they lie in
     * first (the reference engine's node_centric): lonode and hinode keep a
     * job on the lowest / highest node, where low and high compare the
     * slots' own ids across nodes. */
    bool node_centric;
    /* The score (score or scores) of a candidate depends on nothing but
     * the candidate itself (its type, id, rank, size, name, properties,
     * status), the records of it and of the vertices below it in
     * containment during the window, and ctx's type, count, start, end
     * and the request's types and totals (not what was found so far, not
     * the job's id or attributes, not the level; no other vertex, no
     * clock, no state of the policy's own).  The matcher may then keep a
     * ranking of a level the request does not name between matches and
     * score again only the candidates whose records changed since
     * (match_keep.c); the placements are those of a ranking made anew.
     * Only with score or scores and no order or choose hook. */
    bool score_local;
    /* With score_local: the fields of ctx the score reads, NULL-ended:
     * "type", "count", "total" (every type's), "total.TYPE" (one type's),
     * "start", "end", "duration"; NULL: every one of them.  A kept ranking
     * serves a request or window that differs from the one it was made
     * for only in fields the score does not read.  A score that reads none
     * of start, end and duration depends on the window only through the
     * records during it (the free units of a candidate in the window), so
     * its ranking serves another window while every record that meets
     * either window meets both (match_keep.c): as the clock moves in a
     * simulation or a live instance, from one job's window to the next. */
    const char *const *score_reads;
    /* What the score or scores calls made since the last observe read
     * (into *out, and forgotten), as the provider of the hooks saw them
     * run; NULL when it cannot tell.  When given, it replaces score_local
     * and score_reads: the matcher keeps a ranking (match_keep.c) whose
     * calls read nothing GROVE_READ_OTHER, for the requests and windows
     * that differ from the one it was made for only in what they did not
     * read, and mends it only while the calls that score again read
     * nothing GROVE_READ_OTHER either.  The provider must see every input
     * of a score: a call that may depend on anything it cannot see reads
     * GROVE_READ_OTHER. */
    void (*observe)(void *arg, grove_policy_reads_t *out);
    /* prune's answer for a vertex depends on the graph's content alone
     * (structure, names, ids, ranks, sizes, properties, tags, status): not
     * on ctx, on records (what is allocated or free) nor on state of the
     * policy's own.  Asked at any level, in any order, any number of
     * times, before or after a match takes anything, it answers alike.
     * The matcher may then take a level's candidates from a kept ranking
     * (asking prune only about the candidates it serves) and a leaf
     * request's units as they come. */
    bool prune_static;
    void *arg;           /* passed to every hook */
    /* The types whose vertices prune and score are asked about: NULL-ended
     * lists of type names, NULL for every type.  The matcher walks through
     * other vertices without asking prune, and matches a request level of
     * another type as under GROVE_SELECT_FIRST (no score, no choose), so a
     * node-level score runs once per node and never on cores. */
    const char *const *prune_types;
    const char *const *score_types;
    /* The types whose vertices order sorts as one list across the levels
     * between (NULL-ended names; NULL: none, order sorts each vertex's
     * children, one parent at a time).  A vertex the walk enters lists, in
     * place of its children, the nearest vertices of these types below it
     * that lie below another level (below a cluster of racks, with
     * "node": every node of the machine), in the order one call of order
     * gives them (parent: that vertex; the children handed are not its
     * own), the levels between checked as the walk checks those it passes
     * through; so a node order is one order of the machine's nodes, not
     * rack by rack.  Order is still asked about every other list.  Only
     * with order and without explore_by_use. */
    const char *const *order_types;
    /* The order of a list depends on nothing but the vertices handed and
     * what grove_graph_changes counts (structure, sizes, names, ranks,
     * properties, statuses): not on records, the window, the request or
     * any state of the hook's own.  The lists sorted as one (order_types)
     * are then kept from one match to the next while the graph does not
     * change so (match_order.c).  A declarative order by a string key is
     * static; one by a key function is not. */
    bool order_static;
} grove_policy_t;

/* The built-in policy called name ("first", "low", "high", "lonode",
 * "hinode", "lonodex", "hinodex", "firstnodex", "fresh", "freshnodex",
 * "locality", "variation", "spread", "gpu"),
 * or NULL (ENOENT).  The result is static: do not modify it. */
const grove_policy_t *grove_policy_builtin(const char *name);

/* v's performance class as variation reads it: the integer its
 * perf_class property starts with, 0 (best) to 9999; 9999 when it has none
 * or another value. */
double grove_policy_perf_class(const grove_graph_t *g, grove_vid_t v);

/* Sort the n indices idx[] so that key[idx[]] ascends, taking exactly
 * the steps of the reference engine's std::sort (an unstable introsort),
 * so that equal keys end in the order it leaves them.  Never fails. */
void grove_policy_ref_sort(size_t *idx, size_t n, const double *key);

/* Is field one that grove_policy_t.score_reads may name? */
bool grove_policy_read_known(const char *field);

/* The i-th built-in policy name, or NULL past the end. */
const char *grove_policy_builtin_name(size_t i);

/* Fill r for a match of js as job id lasting duration seconds on g: the
 * types the request names and their totals, nothing found yet.  0, or -1
 * with ENOMEM (r is then empty).  Free with grove_policy_request_fini. */
int grove_policy_request_init(grove_policy_request_t *r, const grove_graph_t *g,
                              const grove_jobspec_t *js, grove_jobid_t id, int64_t duration);

/* Free what r holds (r may be empty: zeroed). */
void grove_policy_request_fini(grove_policy_request_t *r);

/* The attempt took (delta > 0) or gave back (delta < 0) units of type. */
void grove_policy_request_found(grove_policy_request_t *r, grove_sym_t type, int64_t delta);

/* Forget everything found (a new attempt). */
void grove_policy_request_reset(grove_policy_request_t *r);

/* True when a hook limited to types (NULL-ended names, NULL: all) applies
 * to a vertex of type t of g. */
bool grove_policy_applies(const grove_graph_t *g, const char *const *types, grove_sym_t t);

#endif
