/* acquire.h: RFC 28 resource acquisition: the set of execution targets a
 * scheduler may use, their availability, grow and shrink.
 *
 * An acquisition state is bound to a graph (borrowed) and optionally to the
 * matcher that schedules on it (borrowed; both must outlive the state).  It
 * consumes the responses of a `resource.acquire` stream as JSON text and
 * keeps, per execution target (a broker rank of R_lite), which targets are
 * acquired, up, down, drained, excluded and shrunk.  Two protocols are
 * understood, chosen by the first response (or fixed at creation):
 *
 *   version 1   {"type": "grow", "resources": R, "online": ids,
 *                "offline": ids}, {"type": "shrink" | "online" | "offline",
 *                "targets": ids}, {"type": "error", ["errnum": n],
 *                ["errstr": text]}
 *   current     first {"resources": R, "up": ids [, "down": ids]
 *                [, "expiration": t]}; then objects with one or more of
 *                "up", "down", "shrink" (ids), "property-add" and
 *                "property-remove" ({name: ids}), "expiration" (number)
 *
 * An error response in either protocol may also be written {"errnum": n,
 * "errstr": text} (flux-core's resource module answers an error with
 * flux_respond_error: an errno and a text), {"error": {"errnum": n,
 * "errstr": text}} or {"error": text}.  After an error response the
 * stream is over: every
 * further response is refused until grove_acquire_disconnect().
 *
 * Targets and the graph.  A target's vertices are the rank roots of its
 * rank (the top-most vertices with that rank: the node) and everything
 * below them.  A grow or first response adds the vertices of targets the
 * graph lacks (from R's scheduling graph when it has one, else from R_lite)
 * and keeps those it already has (a graph loaded from configuration); the
 * first response also removes the rank roots of ranks the graph has but R
 * does not name (never acquired).  Status is written on the rank roots and
 * is derived, in this order: shrunk or excluded -> "excluded", down ->
 * "down", drained -> "drained", else "up".  The matcher never chooses a
 * vertex under a rank root that is not up, but its satisfiability mode
 * ignores status, so down, drained and excluded targets still count toward
 * satisfiability.
 *
 * Shrink.  Shrunk targets are taken out of the instance at once (status
 * excluded, so never chosen again) and their vertices are unlinked from
 * the graph as soon as no job holds anything on them (then they no longer
 * count toward satisfiability either).  Until then they are "pending".
 * Under version 1, jobs allocated on newly shrunk targets are reported for
 * a fatal exception, and a release request {"group", "targets"} is produced
 * for shrunk targets exactly when they become free (in the response that
 * shrinks them, or later through grove_acquire_update), never for other
 * targets; a grow that names a pending target restores it (no release).
 * The current protocol raises no exceptions (the jobs running on newly
 * shrunk targets are listed as "affected") and has no release request:
 * shrunk targets are unlinked when free, silently.  Under both, jobs with
 * a reservation on newly shrunk targets are reported so the scheduler can
 * reserve again.  Offline/down targets never cause an exception.
 *
 * Events.  Each accepted response (and grove_acquire_update) yields a JSON
 * object:
 *     {"release": [{"group": g, "targets": ids}],      version 1 only
 *      "exceptions": [{"id": job, "targets": ids, "note": text}],
 *      "reservations": [{"id": job, "targets": ids [, "start": t]
 *                        [, "dropped": true]}],
 *      "affected": [{"id": job, "targets": ids}],   current protocol: jobs
 *                             running on removed targets (no exception)
 *      "removed": ids,        targets whose vertices were unlinked now
 *      "reevaluate": bool,    the resource set changed: re-check the
 *                             satisfiability of queued jobs
 *      "error": text}         only for an error response
 *
 * Invalid responses (not JSON, not an object, an unknown type or key, a
 * bad idset, a target never acquired or already removed, a response before
 * the first one, a response of the other protocol, a bad R) are refused
 * with EINVAL or ENOENT (never acquired) or EEXIST (grow of a target
 * already acquired), a message in err, and no change at all.
 *
 * Drain and exclude are administrative commands on acquired targets.
 * A drained target is kept out of new allocations and still counts toward
 * satisfiability; an excluded target is kept out of allocations too (the
 * administrative, reversible form of removal; satisfiability still counts
 * it while its vertices exist).  Neither affects running jobs.
 *
 * Workload: a handful of responses per minute on up to tens of thousands
 * of targets; each response costs O(targets named + vertices of the
 * targets it adds or removes).
 *
 * This header must not hold the acquisition's internals or the R format
 * (rv1.h): only the public API of acquire.c and child.c.
 */
#ifndef GROVE_ACQUIRE_H
#define GROVE_ACQUIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "graph.h"
#include "idset.h"
#include "match.h"
#include "rv1.h"
#include "rv1_topo.h"

struct json_t; /* jansson's */

typedef struct grove_acquire grove_acquire_t;

typedef enum grove_acquire_protocol {
    GROVE_ACQUIRE_AUTO = 0,   /* decided by the first response */
    GROVE_ACQUIRE_V1 = 1,     /* grow, shrink, online, offline, error */
    GROVE_ACQUIRE_CURRENT = 2 /* resources + up, then up/down/shrink/... */
} grove_acquire_protocol_t;

/* Target sets (see the header comment). */
typedef enum grove_acquire_set {
    GROVE_TARGETS_ACQUIRED = 0, /* in the instance: granted, not shrunk */
    GROVE_TARGETS_UP,           /* acquired and online */
    GROVE_TARGETS_DOWN,         /* acquired and offline */
    GROVE_TARGETS_DRAINED,      /* acquired and drained by command */
    GROVE_TARGETS_EXCLUDED,     /* acquired and excluded by command */
    GROVE_TARGETS_SHRUNK,       /* removed by shrink (and not grown back) */
    GROVE_TARGETS_PENDING,      /* shrunk, still held: not yet released */
    GROVE_TARGETS_USABLE,       /* up, not drained, not excluded */
    GROVE_TARGETS_COUNT
} grove_acquire_set_t;

/* "acquired", "up", ... for a set; NULL for an invalid value. */
const char *grove_acquire_set_name(grove_acquire_set_t s);
/* The set named s, or -1 (EINVAL). */
int grove_acquire_set_parse(const char *s);

/* "auto", "v1", "current"; NULL for an invalid value. */
const char *grove_acquire_protocol_name(grove_acquire_protocol_t p);
/* The protocol named s, or -1 (EINVAL). */
int grove_acquire_protocol_parse(const char *s);

/* A new acquisition state over g (borrowed) and m (borrowed, may be NULL:
 * jobs are then found from the graph's records alone).  group names the
 * resource group of release requests (NULL: "default").  NULL with EINVAL
 * (g NULL, m of another graph, bad protocol) or ENOMEM. */
grove_acquire_t *grove_acquire_create(grove_graph_t *g, grove_matcher_t *m, const char *group,
                                      grove_acquire_protocol_t proto);

/* Free the state (the graph keeps its vertices and statuses).  NULL is a
 * no-op. */
void grove_acquire_destroy(grove_acquire_t *a);

/* Build the nodes of the targets responses add with the topologies of
 * rt (borrowed; it must outlive a's use of it; NULL: none): each rank rt
 * gives one in its locality form, and the ranks of a scheduling graph
 * that disagree with R_lite flat (rv1_topo.h).  rt's report is the last
 * response's that added targets. */
void grove_acquire_set_topology(grove_acquire_t *a, grove_rtopo_t *rt);

/* The graph and the matcher (may be NULL) the state is bound to. */
grove_graph_t *grove_acquire_graph(const grove_acquire_t *a);
grove_matcher_t *grove_acquire_matcher(const grove_acquire_t *a);

/* ---- responses and commands ---------------------------------------------- */

/* Apply one response: the len bytes of JSON at text.  On success returns 0
 * and, if events is not NULL, *events = the events as compact JSON text
 * (caller frees).  On failure returns -1 with errno EINVAL, ENOENT, EEXIST
 * (see the header comment) or ENOMEM, err says why, and nothing changed. */
int grove_acquire_apply(grove_acquire_t *a, const char *text, size_t len, char **events,
                        grove_error_t *err);

/* A response's text as JSON (new: caller decrefs).  A comma right before a
 * closing bracket or brace is forgiven, since it has one meaning (RFC 28's
 * own grow example has one); anything else that is not JSON is refused.
 * NULL with EINVAL (err says where) or ENOMEM. */
struct json_t *grove_acquire_parse(const char *text, size_t len, grove_error_t *err);

/* As grove_acquire_apply for a parsed response (borrowed); *events (if
 * events is not NULL) is a new jansson object (caller decrefs). */
int grove_acquire_apply_json(grove_acquire_t *a, const struct json_t *msg,
                             struct json_t **events, grove_error_t *err);

/* Look at the pending shrunk targets: unlink those no job holds any more
 * and (version 1) produce their release request.  Call after jobs are
 * cancelled or released.  0 with *events as for apply (text), or -1 with
 * ENOMEM. */
int grove_acquire_update(grove_acquire_t *a, char **events);
int grove_acquire_update_json(grove_acquire_t *a, struct json_t **events);

/* Drain (on) or undrain (off) the targets.  0, or -1 with ENOENT (a target
 * not acquired; err says which, nothing changed), EINVAL (before the first
 * response) or ENOMEM. */
int grove_acquire_drain(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                        grove_error_t *err);
/* Exclude (on) or include again (off) the targets.  As grove_acquire_drain. */
int grove_acquire_exclude(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                          grove_error_t *err);

/* As grove_acquire_drain and grove_acquire_exclude, with events (a new
 * jansson object, caller decrefs; NULL on failure): the response events
 * plus "running": [{"id", "targets"}], the jobs that keep running on the
 * targets until they end.  Reservations on drained or excluded targets
 * are planned again as for a shrink (see "Jobs that lose resources"). */
int grove_acquire_drain_json(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                             struct json_t **events, grove_error_t *err);
int grove_acquire_exclude_json(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                               struct json_t **events, grove_error_t *err);

/* The stream was cancelled (the scheduler restarts or reconnects): the
 * next response must again be a first one.  Its targets that are already
 * acquired are kept with their vertices and jobs; acquired targets it does
 * not name are shrunk without exception or release; an error state is
 * cleared.  The protocol stays as it was unless the state was created with
 * GROVE_ACQUIRE_AUTO and nothing was applied since.  0 always. */
int grove_acquire_disconnect(grove_acquire_t *a);

/* ---- state ------------------------------------------------------------- */

/* A target set (borrowed, valid until the state changes). */
const grove_idset_t *grove_acquire_targets(const grove_acquire_t *a, grove_acquire_set_t which);

/* The protocol in use (AUTO before the first response). */
grove_acquire_protocol_t grove_acquire_protocol(const grove_acquire_t *a);
/* The resource group (borrowed). */
const char *grove_acquire_group(const grove_acquire_t *a);
/* True once a first response was applied (and not disconnected since). */
bool grove_acquire_started(const grove_acquire_t *a);
/* The expiration of the resource set (seconds since the epoch; 0 unset).
 * Each response that sets it (the first response's R, an `expiration`
 * update) also sets the graph's expiration, the matcher's horizon
 * (grove_graph_set_expiration), rounded down; a restored state leaves the
 * graph's as it was saved with the graph. */
double grove_acquire_expiration(const grove_acquire_t *a);
/* The text of the error response that ended the stream, or NULL. */
const char *grove_acquire_failure(const grove_acquire_t *a);

/* The jobs holding anything (allocated or reserved, any time) on the
 * vertices of the targets, as a new sorted array *jobs (caller frees; NULL
 * when *n is 0) of *n ids.  0, or -1 with ENOMEM. */
int grove_acquire_jobs_on(const grove_acquire_t *a, const grove_idset_t *targets,
                          grove_jobid_t **jobs, size_t *n);

/* The rank roots of target on g (at most max written to out); returns how
 * many there are (may exceed max). */
size_t grove_acquire_rank_roots(const grove_graph_t *g, unsigned target, grove_vid_t *out,
                                size_t max);

/* The whole state as a new JSON object (caller decrefs):
 *   {"protocol", "group", "started", "reacquire", "failure" (null or text),
 *    "expiration", and one idset per set: "acquired", "up", "down",
 *    "drained", "excluded", "shrunk", "pending"}
 * NULL with ENOMEM. */
struct json_t *grove_acquire_to_json(const grove_acquire_t *a);

/* Replace the state with one written by grove_acquire_to_json (the graph's
 * statuses are not touched: they are saved with the graph).  0, or -1
 * with EINVAL (err says which key is wrong; nothing changed) or ENOMEM. */
int grove_acquire_from_json(grove_acquire_t *a, const struct json_t *state, grove_error_t *err);

/* ---- child instances --------------------------------------------------- */

/* The R a child instance running inside job of g acquires: R of the job
 * with its scheduling graph, in which every pool the job holds in part
 * (memory units, say) has the size the job holds.  A new R (caller
 * destroys), or NULL with EINVAL (err says why) or ENOMEM. */
grove_rv1_t *grove_acquire_child_resources(const grove_graph_t *g, const grove_job_t *job,
                                           grove_error_t *err);

/* The first response (current protocol) that gives a child instance the
 * resources R, every target up: {"resources": R, "up": ranks}.  New text
 * (caller frees), or NULL with ENOMEM. */
char *grove_acquire_first_response(const grove_rv1_t *R);

#endif
