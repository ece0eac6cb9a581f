/* match.h: request-guided matching, allocation, reservation and release.
 *
 * A matcher holds a graph (borrowed: it must outlive the matcher), a
 * policy, and the job table.  grove_match() walks the graph's containment
 * subsystem (or the one grove_matcher_set_dominant chose) guided by a
 * jobspec's resource tree, asks the policy how to order and choose
 * candidates, and, depending on the mode, records the
 * selection as an allocation now, as a reservation at the earliest time it
 * fits, or not at all.
 *
 * Answers: 0 with a result; or -1 with errno EBUSY (not now: the resources
 * exist but are in use, down or drained), ENODEV (never: the graph could not
 * satisfy the request even empty and up), EINVAL (a bad request, with a
 * message), ENOMEM, or ECANCELED when a policy hook failed (the policy's
 * message is in the error buffer).  A failed match leaves the graph and the
 * job table exactly as they were.
 *
 * The horizon: the graph's expiration (grove_graph_set_expiration, 0
 * none).  In every mode no job's window ends past it: a job whose window
 * from now (a chosen window: from its start) ends past it can never run
 * (ENODEV, the message names the expiration), a reservation is searched
 * for only up to it (EBUSY when none fits by then), and a job that asks no
 * duration (and no default applies) runs until it.  Grow keeps the job's
 * window as it is.
 *
 * This header must not hold the policies (policy.h) or the layout of the job
 * table.
 */
#ifndef GROVE_MATCH_H
#define GROVE_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "graph.h"
#include "idset.h"
#include "job.h"
#include "jobspec.h"
#include "policy.h"

typedef struct grove_matcher grove_matcher_t;

typedef enum grove_match_mode {
    GROVE_MATCH_ALLOCATE = 0,            /* now, or EBUSY */
    GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, /* now, or reserve at the earliest time */
    GROVE_MATCH_ALLOCATE_WITH_SAT,       /* now; on EBUSY say ENODEV if never */
    GROVE_MATCH_SATISFIABILITY,          /* could it ever run here? nothing recorded */
    GROVE_MATCH_WITHOUT_ALLOCATING,      /* match now, record nothing */
    GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE /* earliest time, record nothing */
} grove_match_mode_t;

typedef struct grove_match_config {
    /* Default duration (seconds) of a jobspec without one; 0: until the
     * end of time. */
    int64_t default_duration;
    /* Type whose vertices RFC 31 constraints are evaluated on ("node"). */
    const char *constraint_type;
    /* Sibling slots of one list are alternatives, the reference engine's
     * or-slots (its flexible traverser): the count of the last one is how
     * many slots are taken, each of any of their shapes.  false: they are
     * all required, as RFC 14 reads (its Use Case 2.4). */
    bool or_slots;
} grove_match_config_t;

typedef struct grove_match_stats {
    uint64_t matches;   /* calls to grove_match */
    uint64_t succeeded; /* of which found resources */
    double min_s, max_s, sum_s; /* match times, seconds */
    uint64_t ranks_kept; /* rankings of a level mended from the one kept
                          * since an earlier match, not made anew
                          * (grove_policy_t.score_local), and lists of a
                          * static order across levels given again
                          * (order_types, match_order.c) */
    uint64_t blocks_passed; /* children of wide vertices passed by their
                             * block's aggregate (or because none of the
                             * block meets the job's constraint), not
                             * looked at one by one
                             * (grove_graph_set_aggregates' blocks=N) */
    uint64_t idle_pruned;   /* windows ruled out for too few nodes wholly
                             * idle (the aggregates' idle=1) */
    uint64_t slots_resumed; /* slots placed on the home of the slot before
                             * them without a walk from the request's root
                             * (in containment's order the walk would
                             * reach it first) */
} grove_match_stats_t;

/* A matcher over g (borrowed) with the "first" policy.  cfg may be NULL.
 * A graph keeps the jobs of one matcher at a time (a state file holds the
 * graph's records and one job table): while another matcher holds jobs on
 * g, NULL with EBUSY, and a matcher created earlier is refused (EBUSY) the
 * modes that keep a job.  The jobs of a destroyed matcher leave their
 * records; the next matcher numbers its jobs after them.  NULL with
 * ENOMEM. */
grove_matcher_t *grove_matcher_create(grove_graph_t *g, const grove_match_config_t *cfg);

/* Free the matcher and its job table (the graph keeps its records: cancel
 * jobs first to clear them).  NULL is a no-op. */
void grove_matcher_destroy(grove_matcher_t *m);

/* The graph. */
grove_graph_t *grove_matcher_graph(const grove_matcher_t *m);

/* Use policy p (copied; NULL: "first").  0 or -1 (EINVAL). */
int grove_matcher_set_policy(grove_matcher_t *m, const grove_policy_t *p);
const grove_policy_t *grove_matcher_policy(const grove_matcher_t *m);

/* Match js in mode as job id (0: the next free id, counting from 1).
 * *out (may be NULL) receives the job (borrowed: valid until the next call
 * that changes the table; for MATCHED results, until the next match).  See
 * the header comment for errors; err (may be NULL) gets a message. */
int grove_match(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                grove_jobid_t id, const grove_job_t **out, grove_error_t *err);

/* As grove_match in the modes that look ahead (ALLOCATE_ORELSE_RESERVE,
 * WITHOUT_ALLOCATING_FUTURE), with no window starting before not_before
 * (a time before now is now): the earliest start at or after it.  A
 * queue that starts its jobs in order forecasts each after the one
 * before this way.  0 as grove_match; -1 with EINVAL (another mode) or as
 * grove_match. */
int grove_match_after(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                      grove_jobid_t id, int64_t not_before, const grove_job_t **out,
                      grove_error_t *err);

/* A limit on the search for a later start (the modes that look ahead),
 * for a caller with other work to do meanwhile: a Flux module answers
 * its read-only requests between two steps of a pass, and the search for
 * a reservation behind thousands of others (or for one that finds none
 * before the horizon) tries tens of instants.  Once a match has run
 * limit_s seconds (wall clock) and tried at least one later instant, it
 * stops before the next: -1 with ETIMEDOUT, nothing recorded, and
 * grove_matcher_resume_at gives the instant to go on from
 * (grove_match_after's not_before): as long as nothing changed between,
 * the search continued there finds what the whole search would have.
 * 0 (the default): no limit.  Each match counts in the statistics. */
void grove_matcher_set_search_limit(grove_matcher_t *m, double limit_s);
int64_t grove_matcher_resume_at(const grove_matcher_t *m);

/* Could js fit now if no job held anything, on the vertices that are up
 * (GROVE_MATCH_SATISFIABILITY also counts those that are not)?  Records
 * are ignored rather than removed: the cost is one match, not a copy of
 * the graph.  Under policy p (NULL: the matcher's own; a policy whose
 * hooks cannot run here is replaced by a built-in one).  Nothing is
 * recorded; the statistics and grove_matcher_result are left as they
 * were.  1 yes, 0 no, -1 with errno (EINVAL a bad request, ENOMEM,
 * ECANCELED a hook failed; err gets a message). */
int grove_match_fits_idle(grove_matcher_t *m, const grove_jobspec_t *js,
                          const grove_policy_t *p, grove_error_t *err);

/* Build now what the next match would build first when the graph changed
 * (its pruning aggregates), so that the first match costs what the others
 * do.  0, or -1 with ENOMEM. */
int grove_matcher_prepare(grove_matcher_t *m);

/* The last MATCHED result (a match in a mode that records nothing), or
 * NULL before any (borrowed: valid until the next match). */
const grove_job_t *grove_matcher_result(const grove_matcher_t *m);

/* The job with this id, or NULL (ENOENT).  A compact reservation
 * (grove_matcher_set_compact) is listed whole first: NULL with ENOMEM when
 * it cannot be. */
const grove_job_t *grove_matcher_job(const grove_matcher_t *m, grove_jobid_t id);

/* Jobs in the table: the i-th in id order, or NULL past the end (or
 * ENOMEM, as grove_matcher_job). */
const grove_job_t *grove_matcher_job_at(const grove_matcher_t *m, size_t i);

/* The job with this id as the table keeps it, or NULL (ENOENT): a
 * compact job (grove_job_t.compact) is not listed whole, for a reader of
 * its head, of its R (grove_rv1_from_job writes the same R from it) or of
 * its vertices through grove_job_each_below_whole. */
const grove_job_t *grove_matcher_job_kept(const grove_matcher_t *m, grove_jobid_t id);

/* Keep the jobs of the next matches compact (on) or not (off, the
 * default): a job made by grove_match in the mode allocate or
 * allocate_orelse_reserve, of the containment tree, under a policy that
 * neither explores by use nor holds whole nodes, lists the vertices it
 * holds whole but not what lies below them (grove_job_t.compact), which
 * are recorded through them all the same.  A scheduler that plans every
 * waiting job again at each early end (conservative backfilling) drops
 * most reservations unread, and reads of a job that starts its R and its
 * counts: a job of 1,024 whole nodes is 50,000 picks listed, 2,000
 * compact.  The job a match hands out is as it was made;
 * grove_matcher_job, grove_matcher_job_at, a partial release and a
 * policy that explores by use (grove_matcher_set_policy) list the rest
 * first. */
void grove_matcher_set_compact(grove_matcher_t *m, bool on);

/* Call fn(g, v, arg) for every vertex of type (any, with GROVE_SYM_NONE)
 * a compact job j leaves out of its picks (below the vertices it holds
 * whole, and not a pick itself), in no set order, until a call returns
 * other than 0; each is held exclusively, its units its size.  0 (none
 * for a job not compact), what that call returned, or -1 (ENOMEM). */
int grove_job_each_below_whole(const grove_graph_t *g, const grove_job_t *j, grove_sym_t type,
                               int (*fn)(const grove_graph_t *g, grove_vid_t v, void *arg),
                               void *arg);

/* Tell never from not now at the next matches (on, the default): a match
 * in a mode that places or reserves that finds nothing looks again,
 * ignoring use and status, to answer ENODEV (never) rather than EBUSY:
 * one more match.  Off, it answers EBUSY at the cost of the failed match
 * alone, whether or not the request could ever fit: for a loop that
 * learned when a job arrived whether it could ever be placed and asks
 * again itself when the machine changes, while its passes try each
 * waiting job again and again.  The modes whose answer is that question
 * (satisfiability, allocate_with_satisfiability) always look. */
void grove_matcher_set_tell_never(grove_matcher_t *m, bool on);

/* The jobs in the table. */
size_t grove_matcher_job_count(const grove_matcher_t *m);

/* The id the next grove_match(..., 0, ...) will use. */
grove_jobid_t grove_matcher_next_id(const grove_matcher_t *m);

/* Set that id (when restoring state).  0, or -1 with EINVAL for 0 or an id
 * not above every job in the table. */
int grove_matcher_set_next_id(grove_matcher_t *m, grove_jobid_t id);

/* Cancel a job: free its records and remove it.  0, or -1 with ENOENT. */
int grove_matcher_cancel(grove_matcher_t *m, grove_jobid_t id);

/* Cancel the jobs of ids at once (a pass that drops every reservation):
 * what a call of grove_matcher_cancel for each does, the aggregates'
 * spans rebuilt once rather than kept up record by record when many
 * records go.  An id that is no job (one that ended, or was released
 * whole) and a repeated one are passed over.  The number of jobs
 * cancelled, or -1 (ENOMEM) with none. */
long grove_matcher_cancel_many(grove_matcher_t *m, const grove_jobid_t *ids, size_t n);

/* Release the part of a job on the given ranks (vertices whose rank, or
 * whose nearest ranked ancestor's rank, is in the set).  A job left with
 * nothing is removed.  Returns the number of picks released (0 if none),
 * or -1 with ENOENT (no such job). *removed (may be NULL) tells if the job
 * is gone. */
long grove_matcher_release_ranks(grove_matcher_t *m, grove_jobid_t id,
                                 const grove_idset_t *ranks, bool *removed);

/* Release the listed vertices of a job (an R shard mapped to vertices).
 * Vertices the job does not hold are refused with EINVAL, nothing
 * released.  Returns the number released or -1. */
long grove_matcher_release_vertices(grove_matcher_t *m, grove_jobid_t id,
                                    const grove_vid_t *vs, size_t n, bool *removed);

/* Counters since creation. */
void grove_matcher_stats(const grove_matcher_t *m, grove_match_stats_t *st);
void grove_matcher_stats_reset(grove_matcher_t *m);

/* Add a finished job to the table directly (used when loading saved state):
 * records are created from picks.  0, -1 with EEXIST (id in use) or EBUSY
 * (the picks do not fit the graph). */
int grove_matcher_restore(grove_matcher_t *m, const grove_job_t *job);

/* ---- the rest of the model (RFC 16 draft): chosen windows, grow, re-plan,
 * a clock that moves ---------------------------------------------------- */

/* Match js in the window [start, end) the caller chose (end 0: start plus
 * the jobspec's duration) and nowhere else.  mode is ALLOCATE (record the
 * job: running when start is now, else reserved), ALLOCATE_WITH_SAT (the
 * same, ENODEV when it could never fit) or WITHOUT_ALLOCATING (record
 * nothing).  0 with *out as grove_match; -1 with EINVAL (start before now,
 * end not after start, another mode), EEXIST, EBUSY, ENODEV, ENOMEM. */
int grove_match_window(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                       grove_jobid_t id, int64_t start, int64_t end, const grove_job_t **out,
                       grove_error_t *err);

/* Grow job id by the resources js asks for, over the job's own window:
 * the new picks join the job (released with it, listed in its R).  0 with
 * *out the whole job (borrowed); -1 with ENOENT (no such job), EBUSY (not
 * there in that window), ENODEV (never), EINVAL, ENOMEM.  The job and the
 * graph are unchanged on failure. */
int grove_match_grow(grove_matcher_t *m, const grove_jobspec_t *js, grove_jobid_t id,
                     const grove_job_t **out, grove_error_t *err);

/* Plan job id again from its request (a reservation that lost resources):
 * it is taken out and matched anew, now or at the earliest later time.
 * Returns 1 when it is placed again (*out the job), 0 when it fits nowhere
 * or its request is not known (a job restored from a state saved without
 * it, or placed by grove_matcher_restore alone): it is then removed; -1
 * with ENOENT or ENOMEM (the job is as it was).  When memory runs short
 * after the job was taken out and again as it is put back, it stays out
 * and 0 says so (removed, every record of it gone), as for a job that
 * fits nowhere: its caller plans it again rather than losing it without
 * a word. */
int grove_matcher_replan(grove_matcher_t *m, grove_jobid_t id, const grove_job_t **out,
                         grove_error_t *err);

/* The request of job id as JSON text (new: caller frees): an array of the
 * jobspec documents it was matched with, then grown by.  NULL with ENOENT
 * (no such job, or its request is not known) or ENOMEM. */
char *grove_matcher_request(const grove_matcher_t *m, grove_jobid_t id);

/* Give job id the request text (as grove_matcher_request wrote it: a store
 * keeps it so that a restarted scheduler plans the job again the same
 * way); it replaces what the job had.  0, or -1 with ENOENT (no such job),
 * EINVAL (not a non-empty array of valid jobspecs; err says which and
 * why; the job keeps what it had) or ENOMEM. */
int grove_matcher_set_request(grove_matcher_t *m, grove_jobid_t id, const char *text,
                              grove_error_t *err);

/* Walk subsystem instead of containment (NULL or "containment": back to
 * it): candidates are found, slots placed and ancestors shared along that
 * subsystem's tree (a vertex's first parent there), as when power
 * distribution is the hierarchy a request describes.  Pruning aggregates
 * summarize containment subtrees and are not used then.  A graph without
 * that subsystem makes each match fail with ENODEV.  0, or -1 (ENOMEM). */
int grove_matcher_set_dominant(grove_matcher_t *m, const char *subsystem);

/* The subsystem the walk follows (borrowed). */
const char *grove_matcher_dominant(const grove_matcher_t *m);

/* What happens to a running job whose end has passed. */
typedef enum grove_overdue {
    GROVE_OVERDUE_END = 0, /* it ends: removed, its resources freed */
    GROVE_OVERDUE_REPORT   /* it stays; an OVERDUE event says so, once */
} grove_overdue_t;
void grove_matcher_set_overdue(grove_matcher_t *m, grove_overdue_t o);

typedef enum grove_job_event_kind {
    GROVE_EVENT_START = 0, /* a reservation reached its start: now running */
    GROVE_EVENT_END,       /* a job reached its end and was removed */
    GROVE_EVENT_OVERDUE,   /* a job reached its end and was kept */
    GROVE_EVENT_REPLANNED, /* a reservation on a vertex that went down or was
                            * drained was planned again (at: its new start) */
    GROVE_EVENT_DROPPED    /* such a reservation fits nowhere: removed (at: now) */
} grove_job_event_kind_t;

typedef struct grove_job_event {
    grove_job_event_kind_t kind;
    grove_jobid_t id;
    int64_t at; /* the job's start (START) or end (END, OVERDUE) */
} grove_job_event_t;

/* Bring the job states up to the graph's clock (grove_graph_set_now may
 * have moved it; grove_match does this first): reservations on a vertex
 * whose status is no longer up (or below one) are planned again with
 * grove_matcher_replan (REPLANNED, or DROPPED when they fit nowhere),
 * reservations whose start has come run, running jobs whose end has
 * passed end or are reported.  Events are queued in time order.  Returns how many were queued, or -1
 * (ENOMEM; what was done stays done). */
long grove_matcher_catch_up(grove_matcher_t *m);

/* Move the graph's clock to t (>= 0) and catch up.  As catch_up; -1 with
 * EINVAL for a negative t. */
long grove_matcher_set_now(grove_matcher_t *m, int64_t t);

/* The queued events: the i-th, or NULL past the end; clear empties the
 * queue. */
size_t grove_matcher_event_count(const grove_matcher_t *m);
const grove_job_event_t *grove_matcher_event_at(const grove_matcher_t *m, size_t i);
void grove_matcher_events_clear(grove_matcher_t *m);

#endif
