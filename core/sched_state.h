/* sched_state.h: the state of a scheduling loop: the jobs a scheduler knows,
 * the queue of those waiting in order, the clock and the counters.
 *
 * A scheduler (grove sim with its virtual clock, the Flux module with the
 * broker's messages) keeps one of these beside its matcher.  The queue
 * policy (Lua) decides which waiting job starts when; this state answers
 * "which jobs wait, in which order" without sorting per pass: the queue
 * is kept ordered as jobs come, go and change priority.
 *
 * Order: the queue policy's priority (a number its Lua hook gave, 0 when
 * it gives none), highest first; then the driver's priority (Flux's),
 * highest first; then submit time, earliest first; then job id, smallest
 * first (Flux's order in the job manager and sched-simple, and grove
 * sim's with every priority equal).  A policy's priority is asked once a
 * change (docs/sim.md) and kept here, so the queue stays ordered in C
 * however often a pass reads it.  A version counter moves on every
 * change of the queue's members or order, so a caller can keep a copy of
 * the order and know when it is stale.
 *
 * Job ids are 64-bit (Flux ids).  A job is in one state: pending (in the
 * queue), reserved (in the queue, with a planned start), or running (out
 * of the queue).  A finished job leaves the table.
 *
 * What this state does not hold: the jobspec and the allocation.  Those
 * live where they are used: the matcher holds allocations and
 * reservations by job id, and the loop's Lua side holds each job's
 * jobspec handle (grove sim shares one handle between jobs of the same
 * shape; a copy here would double memory and nothing in C reads it).
 *
 * Workload: up to a few hundred thousand jobs in the table, tens of
 * thousands waiting; add, remove and reorder are O(log n) (a skip list
 * over the queue, a hash on the ids), iteration in order O(1) a step.
 *
 * Errors: EINVAL (bad argument), ENOENT (no such job), EEXIST (the id is
 * in the table), ENOMEM.
 *
 * (Not sched.h: core/ is on the include path, and a sched.h there would
 * stand in for the system's <sched.h>, which <pthread.h> includes.)
 */
#ifndef GROVE_SCHED_STATE_H
#define GROVE_SCHED_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

typedef struct grove_sched grove_sched_t;

typedef enum {
    GROVE_SCHED_PENDING = 0, /* waiting, no planned start */
    GROVE_SCHED_RESERVED,    /* waiting, with a planned start (reserved) */
    GROVE_SCHED_RUNNING,     /* started: out of the queue */
} grove_sched_state_t;

/* A job as the loop knows it.  Read-only to callers: change it through
 * the functions below, which keep the queue ordered. */
typedef struct grove_sched_job {
    grove_jobid_t id;          /* the job's id (Flux: 64 bits) */
    double policy_priority;    /* the queue policy's, higher first; never NaN */
    int64_t priority;          /* the driver's, higher first (after policy_priority) */
    uint32_t userid;           /* the owner (Flux userid; the simulator's user index) */
    double t_submit;           /* submit time, seconds (Flux: a float) */
    int64_t duration;          /* the estimate, seconds; 0: none given */
    grove_sched_state_t state; /* pending, reserved or running */
    int64_t reserved;          /* the planned start while RESERVED, else -1 */
    int64_t start;             /* when it started while RUNNING, else -1 */
    int64_t size;              /* the units it asks for (the loop's count), -1 unknown */
    bool changed;              /* annotations to send (set by the caller, cleared by it) */
} grove_sched_job_t;

/* How many of the last timed matches the percentiles of the stats cover. */
#define GROVE_SCHED_RECENT 4096

/* The counters, in the shape of `flux module stats`. */
typedef struct grove_sched_stats {
    uint64_t matched;     /* matches that placed a job (allocated or reserved) */
    uint64_t failed;      /* matches that did not */
    double match_min;     /* seconds per match, over every match timed; 0 when none */
    double match_max;
    double match_avg;
    size_t recent;        /* timed matches of the last GROVE_SCHED_RECENT: */
    double recent_p50;    /* their median, 99th percentile and max, seconds */
    double recent_p99;
    double recent_max;
    size_t queue_length;  /* jobs waiting (pending or reserved) */
    size_t running;       /* jobs running */
    size_t jobs;          /* jobs in the table */
} grove_sched_stats_t;

/* A new empty loop state, clock 0.  NULL with ENOMEM.  Caller destroys. */
grove_sched_t *grove_sched_create(void);

/* Free s.  NULL is a no-op. */
void grove_sched_destroy(grove_sched_t *s);

/* Add a pending job.  0, or -1 with EEXIST (the id is in the table),
 * EINVAL (t_submit not finite, duration < 0), ENOMEM. */
int grove_sched_add(grove_sched_t *s, grove_jobid_t id, int64_t priority, uint32_t userid,
                    double t_submit, int64_t duration);

/* Add a job that is already running (a job a restarted scheduler finds
 * allocated), started at start.  0, or -1 as grove_sched_add. */
int grove_sched_add_running(grove_sched_t *s, grove_jobid_t id, int64_t priority,
                            uint32_t userid, double t_submit, int64_t duration, int64_t start);

/* Remove the job whatever its state (finished, cancelled, denied).  0, or
 * -1 with ENOENT. */
int grove_sched_remove(grove_sched_t *s, grove_jobid_t id);

/* Change a job's priority (a waiting job moves in the queue; a running
 * one keeps it for the record).  0, or -1 with ENOENT. */
int grove_sched_prioritize(grove_sched_t *s, grove_jobid_t id, int64_t priority);

/* Change a job's queue policy priority (a waiting job moves in the
 * queue).  0, or -1 with ENOENT, EINVAL (p is NaN). */
int grove_sched_set_policy_priority(grove_sched_t *s, grove_jobid_t id, double p);

/* Change a job's duration (its estimate).  0, or -1 with ENOENT, EINVAL
 * (duration < 0). */
int grove_sched_set_duration(grove_sched_t *s, grove_jobid_t id, int64_t duration);
/* Set a job's size (size < 0: unknown, as a job is added), which
 * grove_sched_next_fit reads.  0, or -1 ENOENT. */
int grove_sched_set_size(grove_sched_t *s, grove_jobid_t id, int64_t size);

/* A waiting job's planned start: t >= 0 makes it RESERVED at t, t < 0
 * makes it PENDING again.  The queue's order does not change.  0, or -1
 * with ENOENT, EINVAL (the job runs). */
int grove_sched_reserve(grove_sched_t *s, grove_jobid_t id, int64_t t);

/* A waiting job starts at the clock's time: RUNNING, out of the queue.
 * 0, or -1 with ENOENT, EINVAL (it runs already). */
int grove_sched_start(grove_sched_t *s, grove_jobid_t id);

/* A running job goes back to the queue, PENDING, in its place by
 * (priority, t_submit, id).  0, or -1 with ENOENT, EINVAL (it waits). */
int grove_sched_requeue(grove_sched_t *s, grove_jobid_t id);

/* The job with id, or NULL (ENOENT).  Borrowed: valid until the next
 * add, remove or requeue on s. */
const grove_sched_job_t *grove_sched_job(const grove_sched_t *s, grove_jobid_t id);

/* The waiting jobs in queue order: first, then next until NULL.
 * Borrowed as grove_sched_job; the iteration is valid while the queue
 * does not change (grove_sched_version). */
const grove_sched_job_t *grove_sched_first(const grove_sched_t *s);
const grove_sched_job_t *grove_sched_next(const grove_sched_t *s, const grove_sched_job_t *j);
/* The first waiting job after j (j NULL: of the queue) whose size is
 * unknown or at most fit, or NULL: a pass looking for what fits in the
 * units left passes the larger ones here, one pointer a job. */
const grove_sched_job_t *grove_sched_next_fit(const grove_sched_t *s, const grove_sched_job_t *j,
                                              double fit);

/* The 1-based place of a waiting job in the queue, 0 when it is not
 * waiting or unknown.  O(n). */
size_t grove_sched_position(const grove_sched_t *s, grove_jobid_t id);

/* Moves on every change of the queue's members or order (not on
 * reservations). */
uint64_t grove_sched_version(const grove_sched_t *s);

/* The number of jobs waiting (pending or reserved). */
size_t grove_sched_queue_length(const grove_sched_t *s);

/* The clock (the graph's now, seconds), and setting it (never
 * backwards: EINVAL). */
int64_t grove_sched_now(const grove_sched_t *s);
int grove_sched_set_now(grove_sched_t *s, int64_t now);

/* Count one match: placed or not, and the seconds it took (< 0: not
 * timed, counted only). */
void grove_sched_count_match(grove_sched_t *s, bool placed, double seconds);

/* The counters into *out. */
void grove_sched_stats(const grove_sched_t *s, grove_sched_stats_t *out);

#endif
