/* test_mplanner.c: the multi-planner against the naive reference, plus rows.
 *
 * The reference (refplan.h, the planner test's too) keeps one per-second
 * usage array per type and answers by scanning.  Seeded random operations
 * (GROVE_SEED, GROVE_MPLANNER_OPS) drive both; every answer, output vector
 * and errno is compared.  It holds no reference of its own.
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
#include "refplan.h"

#define KMAX REF_TYPES_MAX

/* ---- comparing ----------------------------------------------------------- */

enum {
    K_ADD, K_REMOVE, K_REDUCE, K_GROW, K_SPAN, K_AT, K_DURING, K_FITS, K_EARLIEST, K_NEXT,
    K_RESIZE, K_COPY, K_MAXUSED, K_CHECK, K_NKINDS
};
static const char *const kind_name[K_NKINDS] = {
    "add", "remove", "reduce", "grow", "span", "avail_at", "avail_during", "fits", "earliest",
    "next_fit", "resize", "copy", "max_used", "invariants"
};

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

/* One random update or span lookup (pick < 43) on the multi-planner mp
 * and the reference r. */
static void random_update(ref_t *r, grove_mplanner_t *mp, int pick)
{
    int64_t c[KMAX], out[KMAX], want, got, t, d, id;
    int e;
    if (pick < 25) {
        t = ref_rnd_time(r), d = rnd_dur(r);
        rnd_counts(r, c);
        if (rnd(0, 2) == 0) {
            int64_t at = ref_search(r, c, d, r->start, 0, &e);
            if (at >= 0)
                t = at;
        }
        want = ref_add(r, t, d, c, &e);
        errno = 0;
        got = grove_mplanner_add(mp, t, d, c);
        cmp(K_ADD, got, errno, want, e, "", t, d, 0);
    } else if (pick < 33) {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        if (i >= 0)
            ref_remove(r, (size_t)i);
        errno = 0;
        got = grove_mplanner_remove(mp, id);
        cmp(K_REMOVE, got, errno, i < 0 ? -1 : 0, ENOENT, "", id, 0, 0);
    } else if (pick < 36) {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        rnd_counts(r, c);
        e = i < 0 ? ENOENT : ref_neg(r, c) ? EINVAL : 0;
        for (size_t k = 0; !e && k < r->k; k++)
            if (c[k] > r->total[k] - r->span[i].c[k])
                e = ENODEV;
        if (!e && !ref_fits(r, r->span[i].start, r->span[i].dur, c))
            e = EBUSY;
        if (!e) {
            ref_apply(r, r->span[i].start, r->span[i].dur, c, 1);
            for (size_t k = 0; k < r->k; k++)
                r->span[i].c[k] += c[k];
        }
        errno = 0;
        got = grove_mplanner_grow(mp, id, c);
        if (got == 0 && !e && (grove_mplanner_span(mp, id, NULL, NULL, out) < 0
                               || memcmp(out, r->span[i].c, r->k * sizeof(int64_t))))
            got = 99;
        cmp(K_GROW, got, errno, e ? -1 : 0, e, "held", id, 0, 0);
    } else if (pick < 39) {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        for (size_t k = 0; k < r->k; k++)
            c[k] = i < 0 ? 0 : rnd(i % 7 == 0 ? -1 : 0, r->span[i].c[k] + (rnd(0, 5) == 0));
        e = i < 0 ? ENOENT : 0;
        for (size_t k = 0; !e && k < r->k; k++)
            if (c[k] < 0 || c[k] > r->span[i].c[k])
                e = EINVAL;
        if (!e)
            ref_reduce(r, (size_t)i, c);
        errno = 0;
        got = grove_mplanner_reduce(mp, id, c, out);
        if (got == 0 && !e && memcmp(out, r->span[i].c, r->k * sizeof(int64_t)))
            got = 99;
        cmp(K_REDUCE, got, errno, e ? -1 : 0, e, "left", id, 0, 0);
    } else {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        int64_t s, dd;
        errno = 0;
        got = grove_mplanner_span(mp, id, &s, &dd, out);
        if (got == 0 && i >= 0
            && (s != r->span[i].start || dd != r->span[i].dur
                || memcmp(out, r->span[i].c, r->k * sizeof(int64_t))))
            got = 98;
        cmp(K_SPAN, got, errno, i < 0 ? -1 : 0, ENOENT, "fields", id, 0, 0);
    }
}

/* One random query (43 <= pick < 88). */
static void random_query(ref_t *r, grove_mplanner_t *mp, int pick)
{
    int64_t c[KMAX], out[KMAX], want, got, t, d;
    int e;
    if (pick < 50) {
        t = ref_rnd_time(r);
        want = (t < r->start || t >= r->end) ? -1 : 0;
        errno = 0;
        got = grove_mplanner_avail_at(mp, t, out);
        for (size_t k = 0; got == 0 && want == 0 && k < r->k; k++)
            if (out[k] != r->total[k] - ref_u(r, k, t))
                got = 97;
        cmp(K_AT, got, errno, want, ERANGE, "free", t, 0, 0);
    } else if (pick < 58) {
        t = ref_rnd_time(r), d = rnd_dur(r);
        e = ref_window_bad(r, t, d);
        errno = 0;
        got = grove_mplanner_avail_during(mp, t, d, out);
        for (size_t k = 0; got == 0 && !e && k < r->k; k++)
            if (out[k] != r->total[k] - ref_maxu(r, k, t, d))
                got = 96;
        cmp(K_DURING, got, errno, e ? -1 : 0, e, "least free", t, d, 0);
    } else if (pick < 66) {
        t = ref_rnd_time(r), d = rnd_dur(r);
        rnd_counts(r, c);
        e = ref_neg(r, c) ? EINVAL : ref_window_bad(r, t, d);
        errno = 0;
        got = grove_mplanner_fits(mp, t, d, c);
        cmp(K_FITS, got, errno, e ? -1 : ref_fits(r, t, d, c), e, "", t, d, 0);
    } else if (pick < 78) {
        t = ref_rnd_time(r), d = rnd_dur(r);
        rnd_counts(r, c);
        want = ref_search(r, c, d, t, 0, &e);
        errno = 0;
        got = grove_mplanner_earliest(mp, c, d, t);
        cmp(K_EARLIEST, got, errno, want, e, "", t, d, 0);
    } else {
        t = ref_rnd_time(r), d = rnd_dur(r);
        rnd_counts(r, c);
        /* Follow the iteration a few steps. */
        for (int step = 0; step < 4; step++) {
            want = ref_search(r, c, d, t, 1, &e);
            errno = 0;
            got = grove_mplanner_next_fit(mp, c, d, t);
            cmp(K_NEXT, got, errno, want, e, "", t, d, 0);
            if (got < 0)
                break;
            t = got;
        }
    }
}

/* One random resize, copy, max_used or check (pick >= 88). */
static void random_whole(ref_t *r, grove_mplanner_t **mpp, int pick)
{
    int64_t c[KMAX], got;
    int e;
    if (pick < 92) {
        int64_t m[KMAX];
        e = 0;
        for (size_t k = 0; k < r->k; k++) {
            m[k] = ref_max_all(r, k);
            c[k] = rnd(m[k] > 2 ? m[k] - 2 : 0, m[k] + 5);
            if (c[k] < m[k])
                e = EBUSY;
        }
        if (rnd(0, 10) == 0)
            c[0] = -1, e = EINVAL;
        errno = 0;
        got = grove_mplanner_resize(*mpp, c);
        if (!e)
            memcpy(r->total, c, sizeof(c));
        for (size_t k = 0; k < r->k; k++)
            if (grove_mplanner_total(*mpp, k) != r->total[k])
                got = 95;
        cmp(K_RESIZE, got, errno, e ? -1 : 0, e, "totals after", c[0], 0, 0);
    } else if (pick < 94) {
        /* Either swap in a copy, or check that a copy is independent. */
        grove_mplanner_t *cp = grove_mplanner_copy(*mpp);
        got = cp ? 0 : -1;
        if (cp && rnd(0, 1)) {
            grove_mplanner_destroy(*mpp);
            *mpp = cp;
        } else if (cp) {
            size_t n = grove_mplanner_span_count(*mpp);
            memset(c, 0, sizeof(c));
            c[0] = r->total[0] - ref_max_all(r, 0);
            if (grove_mplanner_add(cp, r->start, r->end - r->start, c) < 0
                || grove_mplanner_span_count(*mpp) != n
                || grove_mplanner_max_used(*mpp, 0) != ref_max_all(r, 0)
                || strcmp(grove_mplanner_type_name(cp, r->k - 1), type_names[r->k - 1]))
                got = 94;
            grove_mplanner_destroy(cp);
        }
        cmp(K_COPY, got, errno, 0, 0, "copy independent", 0, 0, 0);
    } else if (pick < 97) {
        size_t k = (size_t)rnd(0, (int64_t)r->k - 1);
        cmp(K_MAXUSED, grove_mplanner_max_used(*mpp, k), 0, ref_max_all(r, k), 0, "",
            (int64_t)k, 0, 0);
    } else {
        cmp(K_CHECK, grovep_mplanner_check(*mpp) ? 0 : 93, 0, 0, 0, "tree invariants", 0, 0, 0);
    }
}

/* One random session: a new multi-planner of 1 to KMAX types and its
 * reference, nops operations. */
static void session(long nops)
{
    ref_t r;
    int64_t total[KMAX];
    size_t k = (size_t)rnd(1, KMAX);
    int64_t start = rnd(0, 1) ? 0 : rnd(1, 5000);
    int64_t horizon = rnd(10, 80);
    for (size_t i = 0; i < k; i++)
        total[i] = rnd(0, 10) == 0 ? 0 : rnd(1, 30);
    ref_init(&r, k, total, start, horizon);
    grove_mplanner_t *mp = grove_mplanner_create(type_names, total, k, start, horizon);
    if (!mp) {
        perror("grove_mplanner_create");
        exit(2);
    }
    for (long op = 0; op < nops; op++) {
        int pick = (int)rnd(0, 99);
        if (pick < 43)
            random_update(&r, mp, pick);
        else if (pick < 88)
            random_query(&r, mp, pick);
        else
            random_whole(&r, &mp, pick);
    }
    cmp(K_CHECK, grovep_mplanner_check(mp) ? 0 : 93, 0, 0, 0, "tree invariants", 0, 0, 0);
    grove_mplanner_destroy(mp);
    ref_fini(&r);
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
        is_made(mp, rows[i].err, rows[i].what);
        grove_mplanner_destroy(mp);
    }
    ok_destroy_null(grove_mplanner_destroy);
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
    long total_ops = ref_begin("GROVE_MPLANNER_OPS", 40000, kind_name, K_NKINDS);

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
    /* The generator must reach both outcomes of the interesting calls. */
    static const int both[] = { K_ADD, K_REMOVE, K_REDUCE, K_GROW, K_AT, K_DURING, K_FITS, K_EARLIEST,
                                K_NEXT, K_RESIZE };
    cmp_report(both, sizeof(both) / sizeof(both[0]));
    return done_testing();
}
