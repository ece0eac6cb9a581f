/* planner_private.h: the pieces planner.c shares with mplanner.c and tests.
 *
 * A timeline is the usage of one quantity over time, kept as its difference
 * array in an augmented B+-tree (see the header comment of planner.c).  A
 * span table maps span ids to (start, duration, k amounts).  Neither knows
 * about totals or horizons: grove_planner_t and grove_mplanner_t validate
 * their arguments and then call these.
 *
 * A point lives while some span with an amount in that timeline starts or
 * ends at it (a count per point), not merely while its delta is nonzero:
 * then removing or reducing a span never creates a point (its endpoints
 * are there), so removal never allocates, and adding reserves room for
 * the points there are plus two, not for two per span (jobs that share a
 * window, as a stream of jobs started together does, share its points).
 *
 * It must not hold anything the rest of libgrove should call: that goes
 * through planner.h and mplanner.h.
 */
#ifndef GROVE_PLANNER_PRIVATE_H
#define GROVE_PLANNER_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

/* The timeline is a B+-tree of time points (see planner.c).  Every node
 * holds up to GROVEP_TL_F entries; every node but the root at least half.
 * Index 0 of each pool is unused, so 0 means "none". */
#define GROVEP_TL_F 16

typedef struct grovep_tlleaf {
    _Alignas(64) int32_t n;         /* entries in use (a node fills whole cache lines) */
    uint32_t next;                  /* free-list link while unused */
    int64_t key[GROVEP_TL_F];       /* time points, increasing */
    int64_t delta[GROVEP_TL_F];     /* U(key) - U(key - 1); 0 only where spans
                                     * ending and starting there cancel out */
    uint32_t ends[GROVEP_TL_F];     /* spans starting or ending at key, >= 1 */
} grovep_tlleaf_t;

typedef struct grovep_tlinner {
    _Alignas(64) int32_t n;         /* children in use */
    uint32_t next;                  /* free-list link while unused */
    int64_t key[GROVEP_TL_F];       /* smallest time point below child[i] */
    int64_t sum[GROVEP_TL_F];       /* sum of the deltas below child[i] */
    int64_t mx[GROVEP_TL_F];        /* max over points k below child[i] of the
                                     * sum of its deltas at points <= k */
    int64_t mn[GROVEP_TL_F];        /* min of the same prefix sums */
    uint32_t child[GROVEP_TL_F];    /* leaves when one level above them */
} grovep_tlinner_t;

typedef struct grovep_timeline {
    grovep_tlleaf_t *leaf;    /* leaf pool, 64-byte aligned */
    grovep_tlinner_t *inner;  /* inner-node pool, 64-byte aligned */
    uint32_t leaf_cap, leaf_hi, leaf_free;    /* slots, handed out [1, hi), free list */
    uint32_t inner_cap, inner_hi, inner_free;
    uint32_t root;            /* a leaf when height == 1, else an inner node */
    int32_t height;           /* levels, 0 when there is no point */
    uint32_t count;           /* time points */
} grovep_timeline_t;

/* Empty timeline; allocates nothing. */
void grovep_tl_init(grovep_timeline_t *tl);
void grovep_tl_fini(grovep_timeline_t *tl);
/* dst = a deep copy of src (dst uninitialised).  0, or -1 ENOMEM. */
int grovep_tl_copy(grovep_timeline_t *dst, const grovep_timeline_t *src);
/* Make room for npoints live points so that grovep_tl_add cannot fail while
 * the timeline holds at most npoints.  0, or -1 ENOMEM / EOVERFLOW. */
int grovep_tl_reserve(grovep_timeline_t *tl, size_t npoints);
/* Make room for one more span: the points there are plus two.  0, or -1
 * ENOMEM / EOVERFLOW. */
int grovep_tl_reserve_span(grovep_timeline_t *tl);
/* Usage += v on [s, e) for a span that comes (ends = 1: after
 * grovep_tl_reserve_span, v != 0), goes (ends = -1: v is minus what it
 * held, != 0) or changes its amount (ends = 0: the span keeps a nonzero
 * amount here).  A span is counted at its endpoints exactly while its
 * amount in this timeline is nonzero.  Only a coming span can allocate a
 * point, so only it needs the reserve. */
void grovep_tl_add(grovep_timeline_t *tl, int64_t s, int64_t e, int64_t v, int ends);
/* Usage at time t. */
int64_t grovep_tl_used_at(const grovep_timeline_t *tl, int64_t t);
/* Max usage over [s, e), s < e. */
int64_t grovep_tl_max_used(const grovep_timeline_t *tl, int64_t s, int64_t e);
/* Whether usage <= lim on all of [t, t + d) (d >= 1, t + d no overflow). */
int grovep_tl_fits(const grovep_timeline_t *tl, int64_t t, int64_t d, int64_t lim);
/* Max usage over all time (0 when empty). */
int64_t grovep_tl_max_all(const grovep_timeline_t *tl);
/* Earliest t in [t0, last] with usage <= lim on all of [t, t + d), d >= 1,
 * lim >= 0, last + d must not overflow.  Returns t, or -1 if none. */
int64_t grovep_tl_earliest(const grovep_timeline_t *tl, int64_t lim, int64_t d,
                           int64_t t0, int64_t last);
/* Whether usage changes at t (t is a point with a nonzero delta). */
int grovep_tl_has_point(const grovep_timeline_t *tl, int64_t t);
/* The first point > x where usage changes in *t: 1, or 0 if none. */
int grovep_tl_next_point(const grovep_timeline_t *tl, int64_t x, int64_t *t);
/* Check every invariant (order, fill, summaries, free lists).
 * 1 if sound, else 0 (for tests). */
int grovep_tl_check(const grovep_timeline_t *tl);

/* Span records: id, start, duration and k amounts, stored densely; a hash
 * maps id -> index.  Ids are handed out 1, 2, 3, ... and never reused. */
typedef struct grovep_spantab {
    size_t k;         /* amounts per span */
    size_t n;         /* live spans, stored in rec[0 .. n) */
    size_t cap;       /* spans rec can hold */
    int64_t *rec;     /* n records of (3 + k) int64: id, start, duration, amounts */
    uint32_t *hash;   /* hcap slots: record index + 1, 0 = empty; linear probing */
    size_t hcap;      /* power of two >= 2 * cap, or 0 */
    int64_t next_id;  /* the id the next insert returns */
} grovep_spantab_t;

#define GROVEP_SPAN_ID(st, i) ((st)->rec[(i) * (3 + (st)->k)])
#define GROVEP_SPAN_START(st, i) ((st)->rec[(i) * (3 + (st)->k) + 1])
#define GROVEP_SPAN_DUR(st, i) ((st)->rec[(i) * (3 + (st)->k) + 2])
#define GROVEP_SPAN_AMT(st, i) (&(st)->rec[(i) * (3 + (st)->k) + 3])

void grovep_st_init(grovep_spantab_t *st, size_t k);
void grovep_st_fini(grovep_spantab_t *st);
/* dst = a deep copy of src (dst uninitialised).  0, or -1 ENOMEM. */
int grovep_st_copy(grovep_spantab_t *dst, const grovep_spantab_t *src);
/* Room for one more span so that grovep_st_insert cannot fail.
 * 0, or -1 ENOMEM / EOVERFLOW. */
int grovep_st_reserve1(grovep_spantab_t *st);
/* Store a span (after reserve1); returns its new id. */
int64_t grovep_st_insert(grovep_spantab_t *st, int64_t start, int64_t dur,
                         const int64_t *amt);
/* Index of span id, or -1 if unknown. */
ptrdiff_t grovep_st_find(const grovep_spantab_t *st, int64_t id);
/* Forget the span at index i; the last record moves into its place. */
void grovep_st_remove_at(grovep_spantab_t *st, size_t i);

/* Look up the span at index i (grovep_st_get) or with id (grovep_st_lookup)
 * and fill the non-NULL out-arguments (amt: k slots).  0, or -1 ENOENT. */
int grovep_st_get(const grovep_spantab_t *st, size_t i, int64_t *id, int64_t *start,
                  int64_t *dur, int64_t *amt);
int grovep_st_lookup(const grovep_spantab_t *st, int64_t id, int64_t *start, int64_t *dur,
                     int64_t *amt);

/* Remove span id from st and its amounts from the ntl timelines tl[0..ntl)
 * (one per amount of the span): 0, or -1 with ENOENT. */
int grovep_span_remove(grovep_spantab_t *st, grovep_timeline_t *tl, size_t ntl, int64_t id);

/* The horizon [start, end) a planner or multi-planner covers, and the
 * argument checks every query makes against it, in one place so that both
 * report the same errno in the same order. */
typedef struct grovep_horizon {
    int64_t start; /* first second, >= 0 */
    int64_t end;   /* exclusive, start < end <= GROVE_PLANNER_TIME_MAX */
} grovep_horizon_t;

/* hz = [start, start + horizon).  0, or -1: EINVAL start < 0 or horizon
 * < 1; EOVERFLOW the end above GROVE_PLANNER_TIME_MAX. */
int grovep_hz_init(grovep_horizon_t *hz, int64_t start, int64_t horizon);
/* The window [t, t + d) lies in the horizon.  0, or -1: EINVAL d < 0;
 * ERANGE. */
int grovep_hz_window(const grovep_horizon_t *hz, int64_t t, int64_t d);
/* A request of duration d can fit in the horizon at all.  0, or -1: EINVAL
 * d < 0; ERANGE d longer than the horizon. */
int grovep_hz_duration(const grovep_horizon_t *hz, int64_t d);
/* t is in [start, end] (a search may start at the end).  0, or -1 ERANGE. */
int grovep_hz_time(const grovep_horizon_t *hz, int64_t t);

/* Whole-object invariant checks for tests: 1 if sound, else 0. */
struct grove_planner;
struct grove_mplanner;
int grovep_planner_check(const struct grove_planner *p);
int grovep_mplanner_check(const struct grove_mplanner *mp);
/* Levels of the planner's timeline (0 when empty), for tests. */
int grovep_planner_height(const struct grove_planner *p);

#endif
