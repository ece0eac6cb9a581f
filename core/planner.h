/* planner.h: availability of one quantity (a pool's units) over integer time.
 *
 * A planner covers the horizon [start, end) in whole seconds and holds spans
 * (start, duration, amount): amount units in use during [start, start +
 * duration).  At no instant does the sum of spans exceed the total: add
 * refuses a span that does not fit.  Every interval is half-open, so a
 * zero-duration span or window holds no instant: it always fits (if its
 * amount is at most the total) and takes nothing.
 *
 * Time points: the times at which usage changes.  They are the candidate
 * start times a scheduler iterates over: grove_planner_earliest gives the
 * first fitting time >= t0, grove_planner_next_fit the next fitting time
 * point after it (between time points nothing new becomes free).
 *
 * Errors (errno): EINVAL negative duration/amount/total, ERANGE time or
 * window outside the horizon, ENOENT unknown span id, ENODEV amount exceeds
 * the total (can never fit), EBUSY not enough free units (or no fitting time
 * left in the horizon), EOVERFLOW a limit below, ENOMEM.
 *
 * Cost: every update and query is O(log n) in the number of spans, except
 * earliest/next_fit which are O((1 + g) log n), g the number of free gaps too
 * short for the request that lie before the answer (see planner.c).
 */
#ifndef GROVE_PLANNER_H
#define GROVE_PLANNER_H

#include <stddef.h>
#include <stdint.h>

typedef struct grove_planner grove_planner_t;

#define GROVE_PLANNER_TOTAL_MAX (INT64_MAX / 4) /* largest total */
#define GROVE_PLANNER_TIME_MAX (INT64_MAX / 2)  /* largest end of horizon */

/* A planner of total units over [start, start + horizon).
 * start >= 0, horizon >= 1, total >= 0.  Returns a new planner (caller
 * destroys), or NULL with errno EINVAL, EOVERFLOW (total above
 * GROVE_PLANNER_TOTAL_MAX or end above GROVE_PLANNER_TIME_MAX), ENOMEM. */
grove_planner_t *grove_planner_create(int64_t total, int64_t start, int64_t horizon);

/* Free p; NULL is a no-op. */
void grove_planner_destroy(grove_planner_t *p);

/* A deep copy (spans, ids and the next id included); caller destroys.
 * NULL with errno ENOMEM. */
grove_planner_t *grove_planner_copy(const grove_planner_t *p);

/* Accessors: total units, first second of the horizon, end of the horizon
 * (exclusive), number of spans. */
int64_t grove_planner_total(const grove_planner_t *p);
int64_t grove_planner_start(const grove_planner_t *p);
int64_t grove_planner_end(const grove_planner_t *p);
size_t grove_planner_span_count(const grove_planner_t *p);

/* Add a span: amount units during [start, start + duration).  Returns its id
 * (>= 1, never reused by this planner; a copy goes on from the same next id),
 * or -1:
 * EINVAL duration or amount < 0; ERANGE start < plan start or the window
 * ends after the horizon; ENODEV amount > total; EBUSY fewer than amount
 * units free at some instant of the window; ENOMEM; EOVERFLOW. */
int64_t grove_planner_add(grove_planner_t *p, int64_t start, int64_t duration,
                          int64_t amount);

/* Remove span id.  0, or -1 ENOENT.  Never allocates. */
int grove_planner_remove(grove_planner_t *p, int64_t id);

/* Release amount units of span id over its whole window (partial release).
 * The span stays, possibly holding 0 units, until removed.  Returns the
 * units it still holds, or -1: ENOENT; EINVAL amount < 0 or more than the
 * span holds.  Never allocates. */
int64_t grove_planner_reduce(grove_planner_t *p, int64_t id, int64_t amount);

/* Look up span id: fills the non-NULL out-arguments.  0, or -1 ENOENT. */
int grove_planner_span(const grove_planner_t *p, int64_t id, int64_t *start,
                       int64_t *duration, int64_t *amount);

/* The span stored at index i in [0, span_count) (order unspecified and
 * changed by remove), for iterating over all spans.  0, or -1 ENOENT. */
int grove_planner_span_at(const grove_planner_t *p, size_t i, int64_t *id,
                          int64_t *start, int64_t *duration, int64_t *amount);

/* Units free at instant t, start <= t < end.  -1 with ERANGE otherwise. */
int64_t grove_planner_avail_at(const grove_planner_t *p, int64_t t);

/* Least units free at any instant of [t, t + d); the total when d == 0.
 * -1 with EINVAL d < 0; ERANGE window not inside [start, end]. */
int64_t grove_planner_avail_during(const grove_planner_t *p, int64_t t, int64_t d);

/* Whether amount units are free throughout [t, t + d): 1 yes, 0 no (also
 * when amount > total), -1 with EINVAL (d or amount < 0) or ERANGE (window
 * outside the horizon). */
int grove_planner_fits(const grove_planner_t *p, int64_t t, int64_t d, int64_t amount);

/* The earliest t >= t0 with amount units free throughout [t, t + d) and
 * t + d <= end.  Returns t, or -1: EINVAL d or amount < 0; ERANGE t0 outside
 * [start, end] or d > end - start; ENODEV amount > total; EBUSY no such t. */
int64_t grove_planner_earliest(const grove_planner_t *p, int64_t amount, int64_t d,
                               int64_t t0);

/* The next candidate after `after`: the smallest time point t > after (a time
 * at which usage changes) where amount fits for d.  Iterate with
 * t = earliest(...); then t = next_fit(..., t) until -1/EBUSY.  Returns t,
 * or -1 with errno as earliest (ERANGE when after is outside [start, end]). */
int64_t grove_planner_next_fit(const grove_planner_t *p, int64_t amount, int64_t d,
                               int64_t after);

/* The first time point > after, or -1 with ENOENT if there is none. */
int64_t grove_planner_next_change(const grove_planner_t *p, int64_t after);

/* The most units in use at any instant of the horizon (0 when idle). */
int64_t grove_planner_max_used(const grove_planner_t *p);

/* Set the total (a pool grows or shrinks).  0, or -1 with nothing changed:
 * EINVAL total < 0; EOVERFLOW total > GROVE_PLANNER_TOTAL_MAX; EBUSY total
 * below grove_planner_max_used(p). */
int grove_planner_resize(grove_planner_t *p, int64_t total);

/* A tally: a count over time that intervals raise by one and lower by
 * one, each lowering exactly an earlier raising of the same interval
 * (the nodes in use below an aggregate, a maximal interval of a node's
 * use each).  Times are those of a planner's horizon. */
typedef struct grove_tally grove_tally_t;

/* An empty tally, or NULL (ENOMEM). */
grove_tally_t *grove_tally_create(void);
void grove_tally_destroy(grove_tally_t *t);
/* One more over [s, e) (s < e): 0, or -1 (ENOMEM) with t unchanged. */
int grove_tally_raise(grove_tally_t *t, int64_t s, int64_t e);
/* One less over [s, e), an interval raised before and not lowered since. */
void grove_tally_lower(grove_tally_t *t, int64_t s, int64_t e);
/* What raisings and lowerings summed by time leave at key: the count
 * changed by dv from key on, and the intervals that begin or end at key
 * changed by dends (the net of a batch of raisings and lowerings, each of
 * which adds its +1 or -1 at its start and the opposite at its end, and
 * one to the ends of both, or takes one away when lowered).  0, or -1
 * (ENOMEM) with t unchanged. */
int grove_tally_apply(grove_tally_t *t, int64_t key, int64_t dv, int dends);
/* The points the tally holds (where the count changes or a raised
 * interval begins or ends): 0 once every raising has been lowered. */
size_t grove_tally_points(const grove_tally_t *t);
/* The most the count reaches during [s, e) (s < e). */
int64_t grove_tally_max(const grove_tally_t *t, int64_t s, int64_t e);
/* The earliest t in [t0, last] at which the count stays <= lim throughout
 * [t, t + d) (d >= 1, last + d no overflow), or -1 when there is none. */
int64_t grove_tally_earliest(const grove_tally_t *t, int64_t lim, int64_t d, int64_t t0,
                             int64_t last);

#endif
