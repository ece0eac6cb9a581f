/* mplanner.h: availability of several resource types over integer time.
 *
 * A multi-planner is a vector of resource types (names such as "core",
 * "gpu", "memory", "node"), each with its own total, over one horizon
 * [start, end).  A span carries one count per type and occupies every type
 * over the same window.  The queries are those of planner.h on count
 * vectors: a request fits when every type fits.  This is what the graph's
 * pruning aggregates keep for a subtree ("4 free nodes and 8 gpus during
 * [t, t + d)?" is one call).
 *
 * Count vectors are arrays of ntypes int64_t, in the order the types were
 * given at creation; grove_mplanner_type_index maps a name to its slot.
 * Time points are the times at which the usage of any type changes.
 * Semantics and errno are those of planner.h, applied per type: a count
 * vector is refused with ENODEV when some count exceeds its type's total,
 * with EBUSY when some type lacks free units, etc.
 *
 * This header must not hold the one-quantity planner (planner.h) or the
 * shared timeline (planner_private.h).
 */
#ifndef GROVE_MPLANNER_H
#define GROVE_MPLANNER_H

#include <stddef.h>
#include <stdint.h>

typedef struct grove_mplanner grove_mplanner_t;

/* A multi-planner of ntypes types over [start, start + horizon).  types are
 * distinct non-empty names (copied), totals[i] >= 0 each.  ntypes >= 1.
 * Returns a new multi-planner (caller destroys), or NULL: EINVAL (bad
 * argument, NULL or empty name), EEXIST (duplicate name), EOVERFLOW,
 * ENOMEM. */
grove_mplanner_t *grove_mplanner_create(const char *const *types, const int64_t *totals,
                                        size_t ntypes, int64_t start, int64_t horizon);

/* Free mp; NULL is a no-op. */
void grove_mplanner_destroy(grove_mplanner_t *mp);

/* A deep copy; caller destroys.  NULL with ENOMEM. */
grove_mplanner_t *grove_mplanner_copy(const grove_mplanner_t *mp);

/* Accessors.  type_name returns a borrowed string valid while mp lives, NULL
 * for i out of range.  type_index returns the slot of name, or -1 ENOENT. */
size_t grove_mplanner_ntypes(const grove_mplanner_t *mp);
const char *grove_mplanner_type_name(const grove_mplanner_t *mp, size_t i);
int grove_mplanner_type_index(const grove_mplanner_t *mp, const char *name);
int64_t grove_mplanner_total(const grove_mplanner_t *mp, size_t i);
int64_t grove_mplanner_start(const grove_mplanner_t *mp);
int64_t grove_mplanner_end(const grove_mplanner_t *mp);
size_t grove_mplanner_span_count(const grove_mplanner_t *mp);

/* Add a span holding counts[i] of each type during [start, start + d).
 * Returns its id (>= 1), or -1: EINVAL (negative d or count), ERANGE,
 * ENODEV (a count exceeds its total), EBUSY (some type lacks room), ENOMEM,
 * EOVERFLOW.  Nothing changes on failure. */
int64_t grove_mplanner_add(grove_mplanner_t *mp, int64_t start, int64_t d,
                           const int64_t *counts);

/* Remove span id.  0, or -1 ENOENT.  Never allocates. */
int grove_mplanner_remove(grove_mplanner_t *mp, int64_t id);

/* Release counts[i] units of each type from span id (partial release); the
 * span stays until removed.  If remaining is not NULL it receives what the
 * span still holds.  0, or -1 with nothing changed: ENOENT; EINVAL a count
 * is negative or more than the span holds of that type. */
int grove_mplanner_reduce(grove_mplanner_t *mp, int64_t id, const int64_t *counts,
                          int64_t *remaining);

/* Add counts[i] units of each type to span id over its window: what
 * several holders of one window share costs one span, not one each.  0,
 * or -1 with nothing changed: ENOENT; EINVAL a negative count; ENODEV the
 * span would hold more than a total; EBUSY some type lacks room in the
 * window; ENOMEM. */
int grove_mplanner_grow(grove_mplanner_t *mp, int64_t id, const int64_t *counts);
/* Look up span id; fills the non-NULL out-arguments (counts: ntypes
 * slots).  0, or -1 ENOENT. */
int grove_mplanner_span(const grove_mplanner_t *mp, int64_t id, int64_t *start,
                        int64_t *d, int64_t *counts);

/* The span at index i in [0, span_count) (order unspecified, changed by
 * remove).  0, or -1 ENOENT. */
int grove_mplanner_span_at(const grove_mplanner_t *mp, size_t i, int64_t *id,
                           int64_t *start, int64_t *d, int64_t *counts);

/* Free units of every type at instant t into out[ntypes].  0, or -1 ERANGE. */
int grove_mplanner_avail_at(const grove_mplanner_t *mp, int64_t t, int64_t *out);

/* Least free units of every type during [t, t + d) into out[ntypes] (the
 * totals when d == 0).  0, or -1 EINVAL / ERANGE. */
int grove_mplanner_avail_during(const grove_mplanner_t *mp, int64_t t, int64_t d,
                                int64_t *out);

/* Whether every counts[i] is free throughout [t, t + d): 1, 0, or -1 with
 * EINVAL / ERANGE. */
int grove_mplanner_fits(const grove_mplanner_t *mp, int64_t t, int64_t d,
                        const int64_t *counts);

/* The earliest t >= t0 at which every type fits for d (t + d <= end).
 * Returns t, or -1: EINVAL; ERANGE (t0 outside [start, end], d longer than
 * the horizon); ENODEV (a count exceeds its total); EBUSY (no such t).
 * Cost: rounds of one earliest query per type until all agree; each round
 * moves t forward to a time point. */
int64_t grove_mplanner_earliest(const grove_mplanner_t *mp, const int64_t *counts,
                                int64_t d, int64_t t0);

/* The smallest time point t > after (usage of any type changes at t) at
 * which every type fits for d.  Returns t, or -1 as earliest (ERANGE when
 * after is outside [start, end]). */
int64_t grove_mplanner_next_fit(const grove_mplanner_t *mp, const int64_t *counts,
                                int64_t d, int64_t after);

/* Most units of type i in use at any instant (0 when idle), -1 EINVAL for i
 * out of range. */
int64_t grove_mplanner_max_used(const grove_mplanner_t *mp, size_t i);

/* Set every type's total at once.  0, or -1 with nothing changed: EINVAL
 * (negative), EOVERFLOW, EBUSY (some total below that type's max use). */
int grove_mplanner_resize(grove_mplanner_t *mp, const int64_t *totals);

#endif
