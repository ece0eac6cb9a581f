/* refplan.h: the naive reference of Grove's planner tests, for any number
 * of resource types (test_planner.c uses one, test_mplanner.c up to
 * REF_TYPES_MAX), and the tally of their random comparisons.
 *
 * The reference keeps one per-second usage array per type over a small
 * horizon and answers every question by scanning it, so it is slow and
 * obviously right.  The tally counts, per kind of call, the comparisons,
 * their outcomes and the differences, and prints the first few of those.
 * Header-only, like tap.h (include tap.h and rng.h first).  It must not
 * call the planners under test nor hold test rows: those stay in the tests.
 */
#ifndef GROVE_TEST_REFPLAN_H
#define GROVE_TEST_REFPLAN_H

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REF_TYPES_MAX 4

typedef struct {
    int64_t id, start, dur;  /* span id, first second, seconds */
    int64_t c[REF_TYPES_MAX]; /* units held of each type */
} rspan_t;

typedef struct {
    size_t k;                      /* resource types, 1 .. REF_TYPES_MAX */
    int64_t total[REF_TYPES_MAX];  /* units of each type */
    int64_t start, end;            /* the horizon [start, end) */
    int64_t *used[REF_TYPES_MAX];  /* used[i][t - start] for t in [start, end) */
    rspan_t *span;                 /* live spans, in no order */
    size_t n, cap;
    int64_t next_id;               /* ids count from 1 and are never reused */
} ref_t;

static inline void ref_init(ref_t *r, size_t k, const int64_t *total, int64_t start,
                            int64_t horizon)
{
    memset(r, 0, sizeof(*r));
    r->k = k;
    r->start = start;
    r->end = start + horizon;
    r->next_id = 1;
    for (size_t i = 0; i < k; i++) {
        r->total[i] = total[i];
        r->used[i] = calloc((size_t)horizon, sizeof(int64_t));
    }
}

static inline void ref_fini(ref_t *r)
{
    for (size_t i = 0; i < r->k; i++)
        free(r->used[i]);
    free(r->span);
}

/* Units of type i in use at t (0 outside the horizon). */
static inline int64_t ref_u(const ref_t *r, size_t i, int64_t t)
{
    return (t < r->start || t >= r->end) ? 0 : r->used[i][t - r->start];
}

/* Most units of type i in use over [t, t + d). */
static inline int64_t ref_maxu(const ref_t *r, size_t i, int64_t t, int64_t d)
{
    int64_t m = 0;
    for (int64_t x = t; x < t + d; x++)
        if (ref_u(r, i, x) > m)
            m = ref_u(r, i, x);
    return m;
}

/* Most units of type i in use over the whole horizon. */
static inline int64_t ref_max_all(const ref_t *r, size_t i)
{
    return ref_maxu(r, i, r->start, r->end - r->start);
}

/* The errno a window [t, t + d) earns, or 0 when it lies in the horizon. */
static inline int ref_window_bad(const ref_t *r, int64_t t, int64_t d)
{
    if (d < 0)
        return EINVAL;
    if (t < r->start || t > r->end || t + d > r->end)
        return ERANGE;
    return 0;
}

static inline int ref_neg(const ref_t *r, const int64_t *c)
{
    for (size_t i = 0; i < r->k; i++)
        if (c[i] < 0)
            return 1;
    return 0;
}

static inline int ref_over(const ref_t *r, const int64_t *c)
{
    for (size_t i = 0; i < r->k; i++)
        if (c[i] > r->total[i])
            return 1;
    return 0;
}

/* Whether counts c fit over [t, t + d). */
static inline int ref_fits(const ref_t *r, int64_t t, int64_t d, const int64_t *c)
{
    for (size_t i = 0; i < r->k; i++)
        if (c[i] > r->total[i] || ref_maxu(r, i, t, d) > r->total[i] - c[i])
            return 0;
    return 1;
}

/* Whether the use of some type changes at t. */
static inline int ref_point(const ref_t *r, int64_t t)
{
    for (size_t i = 0; i < r->k; i++)
        if (ref_u(r, i, t) != ref_u(r, i, t - 1))
            return 1;
    return 0;
}

static inline ptrdiff_t ref_find(const ref_t *r, int64_t id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->span[i].id == id)
            return (ptrdiff_t)i;
    return -1;
}

static inline void ref_apply(ref_t *r, int64_t s, int64_t d, const int64_t *c, int sign)
{
    for (size_t i = 0; i < r->k; i++)
        for (int64_t x = s; x < s + d; x++)
            r->used[i][x - r->start] += sign * c[i];
}

/* Expected result of add: the new span's id, or -1 with *err. */
static inline int64_t ref_add(ref_t *r, int64_t t, int64_t d, const int64_t *c, int *err)
{
    *err = ref_neg(r, c) ? EINVAL : ref_window_bad(r, t, d);
    if (!*err && ref_over(r, c))
        *err = ENODEV;
    if (!*err && !ref_fits(r, t, d, c))
        *err = EBUSY;
    if (*err)
        return -1;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->span = realloc(r->span, r->cap * sizeof(*r->span));
    }
    rspan_t *s = &r->span[r->n++];
    s->id = r->next_id;
    s->start = t;
    s->dur = d;
    memcpy(s->c, c, r->k * sizeof(int64_t));
    ref_apply(r, t, d, c, 1);
    return r->next_id++;
}

/* Remove span i (an index from ref_find). */
static inline void ref_remove(ref_t *r, size_t i)
{
    ref_apply(r, r->span[i].start, r->span[i].dur, r->span[i].c, -1);
    r->span[i] = r->span[--r->n];
}

/* Take counts c (each at most what span i holds) from span i. */
static inline void ref_reduce(ref_t *r, size_t i, const int64_t *c)
{
    ref_apply(r, r->span[i].start, r->span[i].dur, c, -1);
    for (size_t k = 0; k < r->k; k++)
        r->span[i].c[k] -= c[k];
}

/* Expected earliest (next == 0, from t0) or next_fit (next == 1, after
 * t0): a time or -1 with *err. */
static inline int64_t ref_search(const ref_t *r, const int64_t *c, int64_t d, int64_t t0,
                                 int next, int *err)
{
    *err = 0;
    if (ref_neg(r, c) || d < 0)
        *err = EINVAL;
    else if (d > r->end - r->start)
        *err = ERANGE;
    else if (ref_over(r, c))
        *err = ENODEV;
    else if (t0 < r->start || t0 > r->end)
        *err = ERANGE;
    if (*err)
        return -1;
    for (int64_t t = t0 + next; t + d <= r->end; t++)
        if (ref_fits(r, t, d, c) && (!next || ref_point(r, t)))
            return t;
    *err = EBUSY;
    return -1;
}

/* A random time around the horizon, sometimes outside it. */
static inline int64_t ref_rnd_time(const ref_t *r)
{
    if (rnd(0, 30) == 0)
        return rnd(0, 1) ? r->start - rnd(1, 3) : r->end + rnd(1, 3);
    return rnd(r->start, r->end);
}

/* ---- the tally ------------------------------------------------------------ */

#define CMP_KINDS_MAX 16
static const char *const *cmp_name; /* the test's kinds of call, by number */
static int cmp_nkinds;
static long cmp_ran[CMP_KINDS_MAX], cmp_bad[CMP_KINDS_MAX];
static long cmp_okres[CMP_KINDS_MAX], cmp_errres[CMP_KINDS_MAX];

/* Seed the generator from GROVE_SEED, name the test's nkinds kinds of
 * call for the tally (names[k] for kind k) and return the number of random
 * operations from the environment variable ops_env (default dflt). */
static inline long ref_begin(const char *ops_env, long dflt, const char *const *names,
                             int nkinds)
{
    const char *s = getenv("GROVE_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : UINT64_C(20240611);
    const char *o = getenv(ops_env);
    long ops = o ? strtol(o, NULL, 0) : dflt;
    diag("seed %" PRIu64 " (set GROVE_SEED to change), %ld random operations", seed, ops);
    rng_state = seed;
    cmp_name = names;
    cmp_nkinds = nkinds;
    return ops;
}


/* Compare a result and errno (errno only when the result says failure)
 * of a call of kind with arguments a1, a2, a3. */
static inline void cmp(int kind, int64_t got, int got_err, int64_t want, int want_err,
                       const char *what, int64_t a1, int64_t a2, int64_t a3)
{
    cmp_ran[kind]++;
    int fail = want < 0;
    if (fail)
        cmp_errres[kind]++;
    else
        cmp_okres[kind]++;
    if (got == want && (!fail || got_err == want_err))
        return;
    if (cmp_bad[kind]++ < 5)
        diag("mismatch %s(%" PRId64 ", %" PRId64 ", %" PRId64 "): got %" PRId64
             " (%s), want %" PRId64 " (%s) [%s]",
             cmp_name[kind], a1, a2, a3, got, got < 0 ? strerror(got_err) : "-", want,
             fail ? strerror(want_err) : "-", what);
}

/* One ok line per kind (compared, never differed), then one per kind in
 * both[] (saw successes and failures).  Returns the comparisons made. */
static inline long cmp_report(const int *both, size_t nboth)
{
    long all = 0;
    for (int k = 0; k < cmp_nkinds; k++) {
        all += cmp_ran[k];
        ok(cmp_bad[k] == 0 && cmp_ran[k] > 0,
           "random %s: %ld compared (%ld ok, %ld errors), %ld differ", cmp_name[k], cmp_ran[k],
           cmp_okres[k], cmp_errres[k], cmp_bad[k]);
    }
    for (size_t i = 0; i < nboth; i++)
        ok(cmp_okres[both[i]] > 0 && cmp_errres[both[i]] > 0,
           "random %s saw successes and failures", cmp_name[both[i]]);
    return all;
}

#endif
