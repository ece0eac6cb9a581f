/* mplanner.c: availability of several resource types over integer time.
 *
 * Problem.  The graph's pruning aggregates keep, for a high-level pool (a
 * rack, a node), the free count of each chosen low-level type (core, gpu,
 * memory, node) below it over time, so the matcher can skip a subtree that
 * cannot hold a request before it descends.  Every allocation and release
 * updates the aggregates on the path to the root, and every visited subtree
 * is asked "does this count vector fit during [t, t + d)?".  Expected
 * workload: 2-8 types, up to ~10^5 spans at the root, many more queries than
 * updates.
 *
 * Structure.  One timeline (the B+-tree of time points of planner.c) per type and
 * one span table whose records carry the count vector.  Updates and
 * point/window queries are one O(log n) operation per type.  The earliest
 * time all types fit is a fixpoint: ask each type in turn for its earliest
 * fit from the current t; whenever one answers later, t moves there and the
 * others are asked again; stop when ntypes answers in a row agree.  t only
 * moves forward and each move lands on a time point of the type that moved
 * it, so the rounds are bounded by the points crossed; in the usual case
 * (one or two types constrain) it is one or two rounds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mplanner.h"
#include "planner.h"
#include "planner_private.h"
#include "util.h"

struct grove_mplanner {
    size_t ntypes;          /* number of types, >= 1 */
    char **names;           /* ntypes names, in one allocation after the pointers */
    int64_t *total;         /* ntypes totals, each in [0, GROVE_PLANNER_TOTAL_MAX] */
    grovep_horizon_t hz;    /* the horizon */
    grovep_timeline_t *tl;  /* ntypes timelines */
    grovep_spantab_t st;    /* span records, k = ntypes */
};

static void mp_free(grove_mplanner_t *mp)
{
    if (mp->tl) {
        for (size_t i = 0; i < mp->ntypes; i++)
            grovep_tl_fini(&mp->tl[i]);
    }
    grovep_st_fini(&mp->st);
    free(mp->tl);
    free(mp->total);
    free(mp->names);
    free(mp);
}

/* A multi-planner over hz with copies of the ntypes names (validated) and
 * totals, and empty timelines and span table; NULL with ENOMEM. */
static grove_mplanner_t *mp_new(const char *const *types, const int64_t *totals, size_t ntypes,
                                const grovep_horizon_t *hz)
{
    size_t bytes = 0;
    for (size_t i = 0; i < ntypes; i++)
        bytes += strlen(types[i]) + 1;
    grove_mplanner_t *mp = calloc(1, sizeof(*mp));
    if (!mp) {
        errno = ENOMEM;
        return NULL;
    }
    mp->ntypes = ntypes;
    mp->hz = *hz;
    grovep_st_init(&mp->st, ntypes);
    mp->names = malloc(ntypes * sizeof(char *) + bytes);
    mp->total = malloc(ntypes * sizeof(int64_t));
    mp->tl = calloc(ntypes, sizeof(*mp->tl));
    if (!mp->names || !mp->total || !mp->tl)
        return GROVEP_NULL_AFTER(mp_free, mp, ENOMEM);
    char *s = (char *)(mp->names + ntypes);
    for (size_t i = 0; i < ntypes; i++) {
        size_t len = strlen(types[i]) + 1;
        memcpy(s, types[i], len);
        mp->names[i] = s;
        s += len;
        mp->total[i] = totals[i];
        grovep_tl_init(&mp->tl[i]);
    }
    return mp;
}

grove_mplanner_t *grove_mplanner_create(const char *const *types, const int64_t *totals,
                                        size_t ntypes, int64_t start, int64_t horizon)
{
    grovep_horizon_t hz;
    if (!types || !totals || ntypes < 1 || ntypes > 1024) {
        errno = EINVAL;
        return NULL;
    }
    if (grovep_hz_init(&hz, start, horizon) < 0)
        return NULL;
    for (size_t i = 0; i < ntypes; i++) {
        if (!types[i] || !types[i][0] || totals[i] < 0) {
            errno = EINVAL;
            return NULL;
        }
        if (totals[i] > GROVE_PLANNER_TOTAL_MAX) {
            errno = EOVERFLOW;
            return NULL;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(types[i], types[j]) == 0) {
                errno = EEXIST;
                return NULL;
            }
        }
    }
    return mp_new(types, totals, ntypes, &hz);
}

void grove_mplanner_destroy(grove_mplanner_t *mp)
{
    if (mp)
        mp_free(mp);
}

grove_mplanner_t *grove_mplanner_copy(const grove_mplanner_t *mp)
{
    grove_mplanner_t *c =
        mp_new((const char *const *)mp->names, mp->total, mp->ntypes, &mp->hz);
    if (!c)
        return NULL;
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (grovep_tl_copy(&c->tl[i], &mp->tl[i]) < 0) {
            grovep_tl_init(&c->tl[i]);
            return GROVEP_NULL_AFTER(mp_free, c, ENOMEM);
        }
    }
    grovep_st_fini(&c->st);
    if (grovep_st_copy(&c->st, &mp->st) < 0) {
        grovep_st_init(&c->st, mp->ntypes);
        return GROVEP_NULL_AFTER(mp_free, c, ENOMEM);
    }
    return c;
}

size_t grove_mplanner_ntypes(const grove_mplanner_t *mp)
{
    return mp->ntypes;
}

const char *grove_mplanner_type_name(const grove_mplanner_t *mp, size_t i)
{
    return i < mp->ntypes ? mp->names[i] : NULL;
}

int grove_mplanner_type_index(const grove_mplanner_t *mp, const char *name)
{
    for (size_t i = 0; name && i < mp->ntypes; i++) {
        if (strcmp(mp->names[i], name) == 0)
            return (int)i;
    }
    errno = ENOENT;
    return -1;
}

int64_t grove_mplanner_total(const grove_mplanner_t *mp, size_t i)
{
    if (i >= mp->ntypes) {
        errno = EINVAL;
        return -1;
    }
    return mp->total[i];
}

GROVEP_GETTER(int64_t, grove_mplanner_start, grove_mplanner_t, hz.start)
GROVEP_GETTER(int64_t, grove_mplanner_end, grove_mplanner_t, hz.end)
GROVEP_GETTER(size_t, grove_mplanner_span_count, grove_mplanner_t, st.n)

/* Counts all >= 0: 0, or -1 EINVAL. */
static int check_counts(const grove_mplanner_t *mp, const int64_t *counts)
{
    if (!counts) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] < 0) {
            errno = EINVAL;
            return -1;
        }
    }
    return 0;
}

/* Some count above its total? */
static int exceeds_total(const grove_mplanner_t *mp, const int64_t *counts)
{
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] > mp->total[i])
            return 1;
    }
    return 0;
}

/* Every type fits on [t, t + d) (validated window, counts <= totals). */
static int fits_all(const grove_mplanner_t *mp, int64_t t, int64_t d, const int64_t *counts)
{
    if (d == 0)
        return 1;
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] > 0 && !grovep_tl_fits(&mp->tl[i], t, d, mp->total[i] - counts[i]))
            return 0;
    }
    return 1;
}

int64_t grove_mplanner_add(grove_mplanner_t *mp, int64_t start, int64_t d,
                           const int64_t *counts)
{
    if (check_counts(mp, counts) < 0 || grovep_hz_window(&mp->hz, start, d) < 0)
        return -1;
    if (exceeds_total(mp, counts)) {
        errno = ENODEV;
        return -1;
    }
    if (!fits_all(mp, start, d, counts)) {
        errno = EBUSY;
        return -1;
    }
    if (grovep_st_reserve1(&mp->st) < 0)
        return -1;
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] && grovep_tl_reserve_span(&mp->tl[i]) < 0)
            return -1;
    }
    for (size_t i = 0; i < mp->ntypes; i++)
        grovep_tl_add(&mp->tl[i], start, start + d, counts[i], counts[i] != 0);
    return grovep_st_insert(&mp->st, start, d, counts);
}

int grove_mplanner_remove(grove_mplanner_t *mp, int64_t id)
{
    return grovep_span_remove(&mp->st, mp->tl, mp->ntypes, id);
}

int grove_mplanner_reduce(grove_mplanner_t *mp, int64_t id, const int64_t *counts,
                          int64_t *remaining)
{
    ptrdiff_t k = grovep_st_find(&mp->st, id);
    if (k < 0) {
        errno = ENOENT;
        return -1;
    }
    int64_t *held = GROVEP_SPAN_AMT(&mp->st, k);
    if (check_counts(mp, counts) < 0)
        return -1;
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] > held[i]) {
            errno = EINVAL;
            return -1;
        }
    }
    int64_t s = GROVEP_SPAN_START(&mp->st, k), d = GROVEP_SPAN_DUR(&mp->st, k);
    for (size_t i = 0; i < mp->ntypes; i++) {
        /* reduced to nothing, the span no longer counts at its endpoints */
        grovep_tl_add(&mp->tl[i], s, s + d, -counts[i],
                      -(counts[i] != 0 && counts[i] == held[i]));
        held[i] -= counts[i];
    }
    if (remaining)
        memcpy(remaining, held, sizeof(int64_t) * mp->ntypes);
    return 0;
}

int grove_mplanner_grow(grove_mplanner_t *mp, int64_t id, const int64_t *counts)
{
    ptrdiff_t k = grovep_st_find(&mp->st, id);
    if (k < 0) {
        errno = ENOENT;
        return -1;
    }
    if (check_counts(mp, counts) < 0)
        return -1;
    int64_t *held = GROVEP_SPAN_AMT(&mp->st, k);
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] > mp->total[i] - held[i]) { /* held <= total: no overflow */
            errno = ENODEV;
            return -1;
        }
    }
    int64_t s = GROVEP_SPAN_START(&mp->st, k), d = GROVEP_SPAN_DUR(&mp->st, k);
    if (!fits_all(mp, s, d, counts)) {
        errno = EBUSY;
        return -1;
    }
    /* a type the span did not count yet gets its endpoints there: room
     * first, so that nothing changes unless every timeline has it */
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i] && !held[i] && grovep_tl_reserve_span(&mp->tl[i]) < 0)
            return -1;
    }
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (counts[i]) {
            grovep_tl_add(&mp->tl[i], s, s + d, counts[i], held[i] == 0);
            held[i] += counts[i];
        }
    }
    return 0;
}

int grove_mplanner_span(const grove_mplanner_t *mp, int64_t id, int64_t *start,
                        int64_t *d, int64_t *counts)
{
    return grovep_st_lookup(&mp->st, id, start, d, counts);
}

int grove_mplanner_span_at(const grove_mplanner_t *mp, size_t i, int64_t *id,
                           int64_t *start, int64_t *d, int64_t *counts)
{
    return grovep_st_get(&mp->st, i, id, start, d, counts);
}

int grove_mplanner_avail_at(const grove_mplanner_t *mp, int64_t t, int64_t *out)
{
    if (!out) {
        errno = EINVAL;
        return -1;
    }
    if (t < mp->hz.start || t >= mp->hz.end) {
        errno = ERANGE;
        return -1;
    }
    for (size_t i = 0; i < mp->ntypes; i++)
        out[i] = mp->total[i] - grovep_tl_used_at(&mp->tl[i], t);
    return 0;
}

int grove_mplanner_avail_during(const grove_mplanner_t *mp, int64_t t, int64_t d,
                                int64_t *out)
{
    if (!out) {
        errno = EINVAL;
        return -1;
    }
    if (grovep_hz_window(&mp->hz, t, d) < 0)
        return -1;
    for (size_t i = 0; i < mp->ntypes; i++)
        out[i] = mp->total[i] - (d ? grovep_tl_max_used(&mp->tl[i], t, t + d) : 0);
    return 0;
}

int grove_mplanner_fits(const grove_mplanner_t *mp, int64_t t, int64_t d,
                        const int64_t *counts)
{
    if (check_counts(mp, counts) < 0 || grovep_hz_window(&mp->hz, t, d) < 0)
        return -1;
    if (exceeds_total(mp, counts))
        return 0;
    return fits_all(mp, t, d, counts);
}

/* Validation shared by earliest and next_fit. */
static int check_request(const grove_mplanner_t *mp, const int64_t *counts, int64_t d)
{
    if (check_counts(mp, counts) < 0 || grovep_hz_duration(&mp->hz, d) < 0)
        return -1;
    if (exceeds_total(mp, counts)) {
        errno = ENODEV;
        return -1;
    }
    return 0;
}

/* The fixpoint of the per-type earliest queries from t0 (validated). */
static int64_t earliest_from(const grove_mplanner_t *mp, const int64_t *counts, int64_t d,
                             int64_t t0)
{
    int64_t last = mp->hz.end - d, t = t0;
    if (t > last) {
        errno = EBUSY;
        return -1;
    }
    if (d == 0)
        return t;
    size_t agree = 0, i = 0;
    while (agree < mp->ntypes) {
        int64_t ti = t;
        if (counts[i] > 0) {
            ti = grovep_tl_earliest(&mp->tl[i], mp->total[i] - counts[i], d, t, last);
            if (ti < 0) {
                errno = EBUSY;
                return -1;
            }
        }
        if (ti != t) {
            t = ti;
            agree = 1;
        } else {
            agree++;
        }
        i = (i + 1) % mp->ntypes;
    }
    return t;
}

int64_t grove_mplanner_earliest(const grove_mplanner_t *mp, const int64_t *counts,
                                int64_t d, int64_t t0)
{
    if (check_request(mp, counts, d) < 0 || grovep_hz_time(&mp->hz, t0) < 0)
        return -1;
    return earliest_from(mp, counts, d, t0);
}

int64_t grove_mplanner_next_fit(const grove_mplanner_t *mp, const int64_t *counts,
                                int64_t d, int64_t after)
{
    if (check_request(mp, counts, d) < 0 || grovep_hz_time(&mp->hz, after) < 0)
        return -1;
    int64_t t = earliest_from(mp, counts, d, after + 1);
    if (t < 0)
        return -1;
    int found = 0;
    int64_t c = 0;
    for (size_t i = 0; i < mp->ntypes; i++) {
        int64_t ci;
        if (grovep_tl_has_point(&mp->tl[i], t))
            return t;
        if (grovep_tl_next_point(&mp->tl[i], t, &ci) && (!found || ci < c)) {
            c = ci;
            found = 1;
        }
    }
    /* t fits but is no time point, so t == after + 1 (a fitting time whose
     * predecessor does not fit is a point of the type that blocked it): the
     * candidate is the first fit from the next point on, itself a point. */
    if (!found) {
        errno = EBUSY;
        return -1;
    }
    return earliest_from(mp, counts, d, c);
}

int64_t grove_mplanner_max_used(const grove_mplanner_t *mp, size_t i)
{
    if (i >= mp->ntypes) {
        errno = EINVAL;
        return -1;
    }
    return grovep_tl_max_all(&mp->tl[i]);
}

int grove_mplanner_resize(grove_mplanner_t *mp, const int64_t *totals)
{
    if (check_counts(mp, totals) < 0)
        return -1;
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (totals[i] > GROVE_PLANNER_TOTAL_MAX) {
            errno = EOVERFLOW;
            return -1;
        }
    }
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (totals[i] < grovep_tl_max_all(&mp->tl[i])) {
            errno = EBUSY;
            return -1;
        }
    }
    memcpy(mp->total, totals, sizeof(int64_t) * mp->ntypes);
    return 0;
}

int grovep_mplanner_check(const grove_mplanner_t *mp)
{
    for (size_t i = 0; i < mp->ntypes; i++) {
        if (!grovep_tl_check(&mp->tl[i]) || mp->total[i] < grovep_tl_max_all(&mp->tl[i])
            || mp->tl[i].count > 2 * mp->st.n)
            return 0;
    }
    for (size_t k = 0; k < mp->st.n; k++) {
        if (grovep_st_find(&mp->st, GROVEP_SPAN_ID(&mp->st, k)) != (ptrdiff_t)k)
            return 0;
    }
    return 1;
}
