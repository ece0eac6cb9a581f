/* test_mplanner.c: the multi-planner against a naive reference, plus rows.
 *
 * The reference keeps one per-second usage array per type and answers by
 * scanning.  Seeded random operations (GROVE_SEED, GROVE_MPLANNER_OPS) drive
 * both; every answer, output vector and errno is compared.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mplanner.h"
#include "planner.h"
#include "planner_private.h"
#include "rng.h"
#include "tap.h"

#define KMAX 4

/* ---- reference ------------------------------------------------------------ */

typedef struct {
    int64_t id, start, dur, c[KMAX];
} rspan_t;

typedef struct {
    size_t k;
    int64_t total[KMAX], start, end;
    int64_t *used[KMAX];
    rspan_t span[4096];
    size_t n;
    int64_t next_id;
} ref_t;

static int64_t ref_u(const ref_t *r, size_t i, int64_t t)
{
    return (t < r->start || t >= r->end) ? 0 : r->used[i][t - r->start];
}

static int64_t ref_maxu(const ref_t *r, size_t i, int64_t t, int64_t d)
{
    int64_t m = 0;
    for (int64_t x = t; x < t + d; x++)
        if (ref_u(r, i, x) > m)
            m = ref_u(r, i, x);
    return m;
}

static int ref_fits(const ref_t *r, int64_t t, int64_t d, const int64_t *c)
{
    for (size_t i = 0; i < r->k; i++)
        if (c[i] > r->total[i] || ref_maxu(r, i, t, d) > r->total[i] - c[i])
            return 0;
    return 1;
}

static int ref_point(const ref_t *r, int64_t t)
{
    for (size_t i = 0; i < r->k; i++)
        if (ref_u(r, i, t) != ref_u(r, i, t - 1))
            return 1;
    return 0;
}

static int ref_window_bad(const ref_t *r, int64_t t, int64_t d)
{
    if (d < 0)
        return EINVAL;
    if (t < r->start || t > r->end || t + d > r->end)
        return ERANGE;
    return 0;
}

static int neg(const ref_t *r, const int64_t *c)
{
    for (size_t i = 0; i < r->k; i++)
        if (c[i] < 0)
            return 1;
    return 0;
}

static int over(const ref_t *r, const int64_t *c)
{
    for (size_t i = 0; i < r->k; i++)
        if (c[i] > r->total[i])
            return 1;
    return 0;
}

static void ref_apply(ref_t *r, int64_t s, int64_t d, const int64_t *c, int sign)
{
    for (size_t i = 0; i < r->k; i++)
        for (int64_t x = s; x < s + d; x++)
            r->used[i][x - r->start] += sign * c[i];
}

static ptrdiff_t ref_find(const ref_t *r, int64_t id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->span[i].id == id)
            return (ptrdiff_t)i;
    return -1;
}

/* earliest (next == 0) or next_fit (next == 1) */
static int64_t ref_search(const ref_t *r, const int64_t *c, int64_t d, int64_t t0, int next,
                          int *err)
{
    *err = 0;
    if (neg(r, c) || d < 0)
        *err = EINVAL;
    else if (d > r->end - r->start)
        *err = ERANGE;
    else if (over(r, c))
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

/* ---- comparing ----------------------------------------------------------- */

enum {
    K_ADD, K_REMOVE, K_REDUCE, K_SPAN, K_AT, K_DURING, K_FITS, K_EARLIEST, K_NEXT,
    K_RESIZE, K_COPY, K_MAXUSED, K_CHECK, K_NKINDS
};
static const char *kind_name[K_NKINDS] = {
    "add", "remove", "reduce", "span", "avail_at", "avail_during", "fits", "earliest",
    "next_fit", "resize", "copy", "max_used", "invariants"
};
static long ran[K_NKINDS], bad[K_NKINDS], okres[K_NKINDS], errres[K_NKINDS];

static void cmp(int kind, int64_t got, int got_err, int64_t want, int want_err, int64_t a1,
                int64_t a2)
{
    ran[kind]++;
    if (want < 0)
        errres[kind]++;
    else
        okres[kind]++;
    if (got == want && (want >= 0 || got_err == want_err))
        return;
    if (bad[kind]++ < 5)
        diag("mismatch %s(%" PRId64 ", %" PRId64 "): got %" PRId64 " (%s), want %" PRId64
             " (%s)",
             kind_name[kind], a1, a2, got, got < 0 ? strerror(got_err) : "-", want,
             want < 0 ? strerror(want_err) : "-");
}

static int64_t rnd_time(const ref_t *r)
{
    if (rnd(0, 30) == 0)
        return rnd(0, 1) ? r->start - rnd(1, 3) : r->end + rnd(1, 3);
    return rnd(r->start, r->end);
}

static int64_t rnd_dur(const ref_t *r)
{
    int64_t h = r->end - r->start;
    switch (rnd(0, 20)) {
    case 0: return -1;
    case 1: return 0;
    case 2: return rnd(h - 1, h + 1);
    default: return rnd(1, h / 5 + 1);
    }
}

static void rnd_counts(const ref_t *r, int64_t *c)
{
    int mode = (int)rnd(0, 25);
    for (size_t i = 0; i < r->k; i++) {
        c[i] = rnd(0, 2) == 0 ? 0 : rnd(0, r->total[i] / 2 + 1);
        if (mode == 0 && i == r->k - 1)
            c[i] = -1;
        if (mode == 1 && i == 0)
            c[i] = r->total[i] + 1;
    }
}

static int64_t rnd_id(const ref_t *r)
{
    if (r->n && rnd(0, 5))
        return r->span[rnd(0, (int64_t)r->n - 1)].id;
    return rnd(-2, r->next_id + 2);
}

static const char *type_names[KMAX] = { "node", "core", "gpu", "memory" };

static void session(long nops)
{
    ref_t *r = calloc(1, sizeof(*r));
    r->k = (size_t)rnd(1, KMAX);
    r->start = rnd(0, 1) ? 0 : rnd(1, 5000);
    r->end = r->start + rnd(10, 80);
    r->next_id = 1;
    for (size_t i = 0; i < r->k; i++) {
        r->total[i] = rnd(0, 10) == 0 ? 0 : rnd(1, 30);
        r->used[i] = calloc((size_t)(r->end - r->start), sizeof(int64_t));
    }
    grove_mplanner_t *mp = grove_mplanner_create(type_names, r->total, r->k, r->start,
                                                 r->end - r->start);
    if (!mp) {
        perror("grove_mplanner_create");
        exit(2);
    }
    int64_t c[KMAX], out[KMAX], want, got, t, d, id;
    int e;
    for (long op = 0; op < nops; op++) {
        int pick = (int)rnd(0, 99);
        if (pick < 25) {
            t = rnd_time(r), d = rnd_dur(r);
            rnd_counts(r, c);
            if (rnd(0, 2) == 0) {
                int64_t at = ref_search(r, c, d, r->start, 0, &e);
                if (at >= 0)
                    t = at;
            }
            e = neg(r, c) ? EINVAL : ref_window_bad(r, t, d);
            if (!e && over(r, c))
                e = ENODEV;
            if (!e && !ref_fits(r, t, d, c))
                e = EBUSY;
            want = -1;
            if (!e && r->n < 4096) {
                rspan_t *s = &r->span[r->n++];
                s->id = want = r->next_id++;
                s->start = t;
                s->dur = d;
                memcpy(s->c, c, sizeof(c));
                ref_apply(r, t, d, c, 1);
            } else if (!e) {
                continue;
            }
            errno = 0;
            got = grove_mplanner_add(mp, t, d, c);
            cmp(K_ADD, got, errno, want, e, t, d);
        } else if (pick < 33) {
            id = rnd_id(r);
            ptrdiff_t i = ref_find(r, id);
            if (i >= 0) {
                ref_apply(r, r->span[i].start, r->span[i].dur, r->span[i].c, -1);
                r->span[i] = r->span[--r->n];
            }
            errno = 0;
            got = grove_mplanner_remove(mp, id);
            cmp(K_REMOVE, got, errno, i < 0 ? -1 : 0, ENOENT, id, 0);
        } else if (pick < 39) {
            id = rnd_id(r);
            ptrdiff_t i = ref_find(r, id);
            for (size_t k = 0; k < r->k; k++)
                c[k] = i < 0 ? 0 : rnd(i % 7 == 0 ? -1 : 0, r->span[i].c[k] + (rnd(0, 5) == 0));
            e = i < 0 ? ENOENT : 0;
            for (size_t k = 0; !e && k < r->k; k++)
                if (c[k] < 0 || c[k] > r->span[i].c[k])
                    e = EINVAL;
            if (!e) {
                ref_apply(r, r->span[i].start, r->span[i].dur, c, -1);
                for (size_t k = 0; k < r->k; k++)
                    r->span[i].c[k] -= c[k];
            }
            errno = 0;
            got = grove_mplanner_reduce(mp, id, c, out);
            if (got == 0 && !e && memcmp(out, r->span[i].c, r->k * sizeof(int64_t)))
                got = 99;
            cmp(K_REDUCE, got, errno, e ? -1 : 0, e, id, 0);
        } else if (pick < 43) {
            id = rnd_id(r);
            ptrdiff_t i = ref_find(r, id);
            int64_t s, dd;
            errno = 0;
            got = grove_mplanner_span(mp, id, &s, &dd, out);
            if (got == 0 && i >= 0
                && (s != r->span[i].start || dd != r->span[i].dur
                    || memcmp(out, r->span[i].c, r->k * sizeof(int64_t))))
                got = 98;
            cmp(K_SPAN, got, errno, i < 0 ? -1 : 0, ENOENT, id, 0);
        } else if (pick < 50) {
            t = rnd_time(r);
            want = (t < r->start || t >= r->end) ? -1 : 0;
            errno = 0;
            got = grove_mplanner_avail_at(mp, t, out);
            for (size_t k = 0; got == 0 && want == 0 && k < r->k; k++)
                if (out[k] != r->total[k] - ref_u(r, k, t))
                    got = 97;
            cmp(K_AT, got, errno, want, ERANGE, t, 0);
        } else if (pick < 58) {
            t = rnd_time(r), d = rnd_dur(r);
            e = ref_window_bad(r, t, d);
            errno = 0;
            got = grove_mplanner_avail_during(mp, t, d, out);
            for (size_t k = 0; got == 0 && !e && k < r->k; k++)
                if (out[k] != r->total[k] - ref_maxu(r, k, t, d))
                    got = 96;
            cmp(K_DURING, got, errno, e ? -1 : 0, e, t, d);
        } else if (pick < 66) {
            t = rnd_time(r), d = rnd_dur(r);
            rnd_counts(r, c);
            e = neg(r, c) ? EINVAL : ref_window_bad(r, t, d);
            errno = 0;
            got = grove_mplanner_fits(mp, t, d, c);
            cmp(K_FITS, got, errno, e ? -1 : ref_fits(r, t, d, c), e, t, d);
        } else if (pick < 78) {
            t = rnd_time(r), d = rnd_dur(r);
            rnd_counts(r, c);
            want = ref_search(r, c, d, t, 0, &e);
            errno = 0;
            got = grove_mplanner_earliest(mp, c, d, t);
            cmp(K_EARLIEST, got, errno, want, e, t, d);
        } else if (pick < 88) {
            t = rnd_time(r), d = rnd_dur(r);
            rnd_counts(r, c);
            /* Follow the iteration a few steps. */
            for (int step = 0; step < 4; step++) {
                want = ref_search(r, c, d, t, 1, &e);
                errno = 0;
                got = grove_mplanner_next_fit(mp, c, d, t);
                cmp(K_NEXT, got, errno, want, e, t, d);
                if (got < 0)
                    break;
                t = got;
            }
        } else if (pick < 92) {
            int64_t m[KMAX];
            e = 0;
            for (size_t k = 0; k < r->k; k++) {
                m[k] = ref_maxu(r, k, r->start, r->end - r->start);
                c[k] = rnd(m[k] > 2 ? m[k] - 2 : 0, m[k] + 5);
                if (c[k] < m[k])
                    e = EBUSY;
            }
            if (rnd(0, 10) == 0)
                c[0] = -1, e = EINVAL;
            errno = 0;
            got = grove_mplanner_resize(mp, c);
            if (!e)
                memcpy(r->total, c, sizeof(c));
            for (size_t k = 0; k < r->k; k++)
                if (grove_mplanner_total(mp, k) != r->total[k])
                    got = 95;
            cmp(K_RESIZE, got, errno, e ? -1 : 0, e, c[0], 0);
        } else if (pick < 94) {
            grove_mplanner_t *cp = grove_mplanner_copy(mp);
            got = cp ? 0 : -1;
            if (cp && rnd(0, 1)) {
                grove_mplanner_destroy(mp);
                mp = cp;
            } else if (cp) {
                size_t n = grove_mplanner_span_count(mp);
                memset(c, 0, sizeof(c));
                c[0] = r->total[0] - ref_maxu(r, 0, r->start, r->end - r->start);
                if (grove_mplanner_add(cp, r->start, r->end - r->start, c) < 0
                    || grove_mplanner_span_count(mp) != n
                    || grove_mplanner_max_used(mp, 0) != ref_maxu(r, 0, r->start,
                                                                  r->end - r->start)
                    || strcmp(grove_mplanner_type_name(cp, r->k - 1), type_names[r->k - 1]))
                    got = 94;
                grove_mplanner_destroy(cp);
            }
            cmp(K_COPY, got, errno, 0, 0, 0, 0);
        } else if (pick < 97) {
            size_t k = (size_t)rnd(0, (int64_t)r->k - 1);
            cmp(K_MAXUSED, grove_mplanner_max_used(mp, k), 0,
                ref_maxu(r, k, r->start, r->end - r->start), 0, (int64_t)k, 0);
        } else {
            cmp(K_CHECK, grovep_mplanner_check(mp) ? 0 : 93, 0, 0, 0, 0, 0);
        }
    }
    cmp(K_CHECK, grovep_mplanner_check(mp) ? 0 : 93, 0, 0, 0, 0, 0);
    grove_mplanner_destroy(mp);
    for (size_t i = 0; i < r->k; i++)
        free(r->used[i]);
    free(r);
}

/* ---- rows ------------------------------------------------------------------ */

static void create_rows(void)
{
    const char *two[] = { "core", "gpu" };
    const char *dup[] = { "core", "core" };
    const char *empty[] = { "core", "" };
    const char *null[] = { "core", NULL };
    int64_t tot[] = { 44, 4 }, negt[] = { 44, -1 }, huge[] = { 1, GROVE_PLANNER_TOTAL_MAX + 1 };
    struct {
        const char *what;
        const char *const *types;
        const int64_t *totals;
        size_t n;
        int64_t start, horizon;
        int err;
    } rows[] = {
        { "two types", two, tot, 2, 0, 100, 0 },
        { "no types", two, tot, 0, 0, 100, EINVAL },
        { "NULL types", NULL, tot, 2, 0, 100, EINVAL },
        { "NULL totals", two, NULL, 2, 0, 100, EINVAL },
        { "duplicate name", dup, tot, 2, 0, 100, EEXIST },
        { "empty name", empty, tot, 2, 0, 100, EINVAL },
        { "NULL name", null, tot, 2, 0, 100, EINVAL },
        { "negative total", two, negt, 2, 0, 100, EINVAL },
        { "total above the limit", two, huge, 2, 0, 100, EOVERFLOW },
        { "negative start", two, tot, 2, -1, 100, EINVAL },
        { "zero horizon", two, tot, 2, 0, 0, EINVAL },
        { "end above the limit", two, tot, 2, 5, GROVE_PLANNER_TIME_MAX, EOVERFLOW },
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        errno = 0;
        grove_mplanner_t *mp = grove_mplanner_create(rows[i].types, rows[i].totals, rows[i].n,
                                                     rows[i].start, rows[i].horizon);
        if (rows[i].err)
            ok(!mp && errno == rows[i].err, "create, %s: %s", rows[i].what,
               strerror(rows[i].err));
        else
            ok(mp != NULL, "create, %s: succeeds", rows[i].what);
        grove_mplanner_destroy(mp);
    }
    errno = 12345;
    grove_mplanner_destroy(NULL);
    ok(errno == 12345, "destroy(NULL) is a no-op (errno untouched)");
}

static void scenario_rows(void)
{
    const char *types[] = { "node", "core", "gpu" };
    int64_t tot[] = { 2, 88, 8 };
    grove_mplanner_t *mp = grove_mplanner_create(types, tot, 3, 0, 3600);
    int64_t out[3], s, d;
    is_int(grove_mplanner_ntypes(mp), 3, "three types");
    is_int(grove_mplanner_type_index(mp, "gpu"), 2, "gpu is slot 2");
    errno = 0;
    ok(grove_mplanner_type_index(mp, "fpga") == -1 && errno == ENOENT, "fpga: ENOENT");
    ok(grove_mplanner_type_name(mp, 3) == NULL, "type_name out of range: NULL");
    is_str(grove_mplanner_type_name(mp, 1), "core", "type_name 1");
    is_int(grove_mplanner_total(mp, 1), 88, "core total");
    is_int(grove_mplanner_start(mp), 0, "start");
    is_int(grove_mplanner_end(mp), 3600, "end");

    int64_t job1[] = { 1, 44, 4 }, job2[] = { 1, 44, 0 }, job3[] = { 1, 10, 1 };
    is_int(grove_mplanner_add(mp, 0, 600, job1), 1, "job 1: a node, 44 cores, 4 gpus for 600s");
    is_int(grove_mplanner_add(mp, 0, 1200, job2), 2, "job 2: the other node for 1200s");
    errno = 0;
    ok(grove_mplanner_add(mp, 0, 10, job3) == -1 && errno == EBUSY, "job 3 now: EBUSY");
    is_int(grove_mplanner_earliest(mp, job3, 100, 0), 600, "job 3 earliest: 600");
    is_int(grove_mplanner_next_fit(mp, job3, 100, 600), 1200, "job 3 next candidate: 1200");
    errno = 0;
    ok(grove_mplanner_next_fit(mp, job3, 100, 1200) == -1 && errno == EBUSY,
       "no candidate after 1200");
    is_int(grove_mplanner_add(mp, 600, 100, job3), 3, "job 3 reserved at 600");
    ok(grove_mplanner_avail_at(mp, 650, out) == 0 && out[0] == 0 && out[1] == 34
           && out[2] == 7, "free at 650: 0 nodes, 34 cores, 7 gpus");
    ok(grove_mplanner_avail_during(mp, 0, 3600, out) == 0 && out[0] == 0 && out[1] == 0
           && out[2] == 4, "least free over the hour: 0, 0, 4");
    ok(grove_mplanner_avail_during(mp, 5, 0, out) == 0 && out[1] == 88,
       "zero-duration window: the totals");
    int64_t gpus4[] = { 0, 0, 4 };
    is_int(grove_mplanner_fits(mp, 0, 3600, gpus4), 1, "4 gpus fit all hour");
    gpus4[2] = 5;
    is_int(grove_mplanner_fits(mp, 0, 3600, gpus4), 0, "5 gpus do not");
    gpus4[2] = 9;
    is_int(grove_mplanner_fits(mp, 0, 1, gpus4), 0, "9 gpus never (fits says 0)");
    errno = 0;
    ok(grove_mplanner_earliest(mp, gpus4, 1, 0) == -1 && errno == ENODEV,
       "9 gpus: earliest ENODEV");
    int64_t rel[] = { 0, 4, 4 }, left[3];
    ok(grove_mplanner_reduce(mp, 1, rel, left) == 0 && left[0] == 1 && left[1] == 40
           && left[2] == 0, "job 1 releases 4 cores and its gpus");
    int64_t toomuch[] = { 0, 0, 1 };
    errno = 0;
    ok(grove_mplanner_reduce(mp, 1, toomuch, left) == -1 && errno == EINVAL,
       "releasing a gpu it no longer holds: EINVAL");
    ok(grove_mplanner_span(mp, 1, &s, &d, out) == 0 && s == 0 && d == 600 && out[2] == 0,
       "job 1 unchanged by the refused release");
    errno = 0;
    ok(grove_mplanner_reduce(mp, 9, rel, left) == -1 && errno == ENOENT, "reduce unknown");
    int64_t shrink[] = { 2, 88, 6 };
    is_int(grove_mplanner_resize(mp, shrink), 0, "shrink gpus to 6 (1 in use)");
    int64_t shrink2[] = { 1, 88, 6 };
    errno = 0;
    ok(grove_mplanner_resize(mp, shrink2) == -1 && errno == EBUSY
           && grove_mplanner_total(mp, 0) == 2 && grove_mplanner_total(mp, 2) == 6,
       "shrink nodes below use: EBUSY, nothing changed");
    is_int(grove_mplanner_max_used(mp, 1), 84, "max cores used");
    errno = 0;
    ok(grove_mplanner_max_used(mp, 3) == -1 && errno == EINVAL, "max_used bad slot");
    is_int(grove_mplanner_remove(mp, 2), 0, "job 2 ends");
    errno = 0;
    ok(grove_mplanner_remove(mp, 2) == -1 && errno == ENOENT, "job 2 again: ENOENT");
    is_int(grove_mplanner_span_count(mp), 2, "two spans");
    int64_t id;
    ok(grove_mplanner_span_at(mp, 1, &id, NULL, NULL, NULL) == 0 && (id == 1 || id == 3),
       "span_at");
    errno = 0;
    ok(grove_mplanner_span_at(mp, 2, &id, NULL, NULL, NULL) == -1 && errno == ENOENT,
       "span_at past the end");
    int64_t negc[] = { 0, -1, 0 };
    errno = 0;
    ok(grove_mplanner_add(mp, 0, 1, negc) == -1 && errno == EINVAL, "negative count: EINVAL");
    errno = 0;
    ok(grove_mplanner_add(mp, 3500, 101, job3) == -1 && errno == ERANGE, "past the horizon");
    errno = 0;
    ok(grove_mplanner_avail_at(mp, 3600, out) == -1 && errno == ERANGE, "avail_at the end");
    ok(grovep_mplanner_check(mp), "invariants");
    grove_mplanner_destroy(mp);
}

int main(void)
{
    const char *s = getenv("GROVE_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : UINT64_C(20240611);
    const char *o = getenv("GROVE_MPLANNER_OPS");
    long total_ops = o ? strtol(o, NULL, 0) : 40000;
    diag("seed %" PRIu64 " (set GROVE_SEED to change), %ld random operations", seed, total_ops);
    rng_state = seed;

    create_rows();
    scenario_rows();

    long done = 0;
    while (done < total_ops) {
        long n = rnd(100, 2000);
        if (n > total_ops - done)
            n = total_ops - done;
        session(n);
        done += n;
    }
    for (int k = 0; k < K_NKINDS; k++)
        ok(bad[k] == 0 && ran[k] > 0, "random %s: %ld compared (%ld ok, %ld errors), %ld differ",
           kind_name[k], ran[k], okres[k], errres[k], bad[k]);
    int kinds[] = { K_ADD, K_REMOVE, K_REDUCE, K_AT, K_DURING, K_FITS, K_EARLIEST, K_NEXT,
                    K_RESIZE };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        ok(okres[kinds[i]] > 0 && errres[kinds[i]] > 0, "random %s saw successes and failures",
           kind_name[kinds[i]]);
    return done_testing();
}
