/* test_planner.c: the planner against the naive reference, plus edge rows.
 *
 * The reference (refplan.h, one resource type) keeps per-second usage over
 * a small horizon and answers every query by scanning it.  A seeded random
 * stream of operations (seed from GROVE_SEED, count from GROVE_PLANNER_OPS)
 * drives both and compares every answer and every errno; the tree's
 * invariants are checked as it goes.  The edge rows pin down the documented
 * corner cases.  It holds no reference of its own: the one reference serves
 * the multi-planner test too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "planner_private.h"
#include "rng.h"
#include "tap.h"
#include "refplan.h"

/* ---- comparing ---------------------------------------------------------- */

enum {
    K_ADD, K_REMOVE, K_REDUCE, K_SPAN, K_AT, K_DURING, K_FITS, K_EARLIEST, K_NEXT,
    K_CHANGE, K_RESIZE, K_COPY, K_MAXUSED, K_SPANS, K_CHECK, K_NKINDS
};
static const char *const kind_name[K_NKINDS] = {
    "add", "remove", "reduce", "span", "avail_at", "avail_during", "fits", "earliest",
    "next_fit", "next_change", "resize", "copy", "max_used", "span_at", "invariants"
};

static int64_t max_short; /* typical duration bound of this session */
static int max_height;    /* deepest timeline seen */

/* A random duration, mostly short, sometimes negative or too long. */
static int64_t rnd_dur(const ref_t *r)
{
    int64_t h = r->end - r->start;
    switch (rnd(0, 20)) {
    case 0: return -rnd(1, 2);
    case 1: return 0;
    case 2: return rnd(h - 2, h + 2);
    case 3: return rnd(0, h);
    default: return rnd(1, max_short);
    }
}

static int64_t rnd_amount(const ref_t *r)
{
    switch (rnd(0, 25)) {
    case 0: return -1;
    case 1: return r->total[0] + rnd(1, 2);
    case 2: return 0;
    case 3: return r->total[0];
    default: return rnd(0, r->total[0] / 3 + 1) / (r->end - r->start > 500 ? 8 : 1);
    }
}

static int64_t rnd_id(const ref_t *r)
{
    if (r->n && rnd(0, 5))
        return r->span[rnd(0, (int64_t)r->n - 1)].id;
    switch (rnd(0, 3)) {
    case 0: return 0;
    case 1: return -rnd(1, 100);
    case 2: return r->next_id + rnd(0, 3);
    default: return rnd(1, r->next_id); /* often a removed span */
    }
}

static grove_planner_t *mk(int64_t total, int64_t start, int64_t horizon)
{
    grove_planner_t *p = grove_planner_create(total, start, horizon);
    if (!p) {
        perror("grove_planner_create");
        exit(2);
    }
    return p;
}

/* One random update or span lookup (pick < 40) on the planner *pp and
 * the reference r. */
static void random_update(ref_t *r, grove_planner_t **pp, int pick)
{
    int e;
    int64_t want, got, t, d, a, id;
    if (pick < 22) {
        t = ref_rnd_time(r), d = rnd_dur(r), a = rnd_amount(r);
        if (rnd(0, 2) == 0) { /* aim at a place that fits */
            int e2;
            int64_t at = ref_search(r, &a, d, r->start, 0, &e2);
            if (at >= 0)
                t = at;
        }
        want = ref_add(r, t, d, &a, &e);
        errno = 0;
        got = grove_planner_add(*pp, t, d, a);
        cmp(K_ADD, got, errno, want, e, "", t, d, a);
    } else if (pick < 30) {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        want = i < 0 ? -1 : 0;
        if (i >= 0)
            ref_remove(r, (size_t)i);
        errno = 0;
        got = grove_planner_remove(*pp, id);
        cmp(K_REMOVE, got, errno, want, ENOENT, "", id, 0, 0);
    } else if (pick < 36) {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        a = i < 0 ? rnd(0, 3) : rnd(-1, r->span[i].c[0] + 1);
        e = ENOENT;
        want = -1;
        if (i >= 0) {
            e = EINVAL;
            if (a >= 0 && a <= r->span[i].c[0]) {
                ref_reduce(r, (size_t)i, &a);
                want = r->span[i].c[0];
            }
        }
        errno = 0;
        got = grove_planner_reduce(*pp, id, a);
        cmp(K_REDUCE, got, errno, want, e, "", id, a, 0);
    } else if (pick < 40) {
        id = rnd_id(r);
        ptrdiff_t i = ref_find(r, id);
        int64_t s = -7, dd = -7, aa = -7;
        errno = 0;
        got = grove_planner_span(*pp, id, &s, &dd, &aa);
        if (got == 0 && i >= 0 && (s != r->span[i].start || dd != r->span[i].dur
                                   || aa != r->span[i].c[0]))
            got = 99;
        cmp(K_SPAN, got, errno, i < 0 ? -1 : 0, ENOENT, "fields", id, 0, 0);
    }
}

/* One random query, resize, copy or check (pick >= 40); *fit_iter is the
 * last next_fit answer, to iterate from. */
static void random_query(ref_t *r, grove_planner_t **pp, int pick, int64_t *fit_iter)
{
    int e;
    int64_t want, got, t, d, a;
    if (pick < 47) {
        t = ref_rnd_time(r);
        want = (t < r->start || t >= r->end) ? -1 : r->total[0] - ref_u(r, 0, t);
        errno = 0;
        got = grove_planner_avail_at(*pp, t);
        cmp(K_AT, got, errno, want, ERANGE, "", t, 0, 0);
    } else if (pick < 55) {
        t = ref_rnd_time(r), d = rnd_dur(r);
        e = ref_window_bad(r, t, d);
        want = e ? -1 : r->total[0] - ref_maxu(r, 0, t, d);
        errno = 0;
        got = grove_planner_avail_during(*pp, t, d);
        cmp(K_DURING, got, errno, want, e, "", t, d, 0);
    } else if (pick < 63) {
        t = ref_rnd_time(r), d = rnd_dur(r), a = rnd_amount(r);
        e = a < 0 ? EINVAL : ref_window_bad(r, t, d);
        want = e ? -1 : ref_fits(r, t, d, &a);
        errno = 0;
        got = grove_planner_fits(*pp, t, d, a);
        cmp(K_FITS, got, errno, want, e, "", t, d, a);
    } else if (pick < 75) {
        t = ref_rnd_time(r), d = rnd_dur(r), a = rnd_amount(r);
        want = ref_search(r, &a, d, t, 0, &e);
        errno = 0;
        got = grove_planner_earliest(*pp, a, d, t);
        cmp(K_EARLIEST, got, errno, want, e, "", a, d, t);
    } else if (pick < 85) {
        /* Iterate: follow the candidates of one request for a while. */
        static int64_t it_a, it_d;
        if (*fit_iter < 0 || rnd(0, 4) == 0) {
            it_a = rnd_amount(r), it_d = rnd_dur(r);
            t = ref_rnd_time(r);
        } else {
            t = *fit_iter;
        }
        want = ref_search(r, &it_a, it_d, t, 1, &e);
        errno = 0;
        got = grove_planner_next_fit(*pp, it_a, it_d, t);
        cmp(K_NEXT, got, errno, want, e, "", it_a, it_d, t);
        *fit_iter = got;
    } else if (pick < 89) {
        t = ref_rnd_time(r);
        want = -1;
        for (int64_t x = t + 1; x <= r->end; x++) {
            if (x >= r->start && ref_point(r, x)) {
                want = x;
                break;
            }
        }
        errno = 0;
        got = grove_planner_next_change(*pp, t);
        cmp(K_CHANGE, got, errno, want, ENOENT, "", t, 0, 0);
    } else if (pick < 93) {
        int64_t m = ref_max_all(r, 0);
        a = rnd(0, 8) == 0 ? -1 : rnd(m > 3 ? m - 3 : 0, m + 6);
        want = a < 0 || a < m ? -1 : 0;
        e = a < 0 ? EINVAL : EBUSY;
        errno = 0;
        got = grove_planner_resize(*pp, a);
        if (want == 0)
            r->total[0] = a;
        if (grove_planner_total(*pp) != r->total[0])
            got = 99;
        cmp(K_RESIZE, got, errno, want, e, "total after", a, m, 0);
    } else if (pick < 95) {
        /* Either swap in a copy, or check that a copy is independent. */
        grove_planner_t *c = grove_planner_copy(*pp);
        got = c ? 0 : -1;
        if (c && rnd(0, 1)) {
            grove_planner_destroy(*pp);
            *pp = c;
        } else if (c) {
            int64_t before = grove_planner_avail_at(*pp, r->start);
            if (grove_planner_add(c, r->start, 1, grove_planner_avail_at(c, r->start)) < 0
                || (r->total[0] > 0 && grove_planner_avail_at(c, r->start) != 0)
                || grove_planner_avail_at(*pp, r->start) != before
                || grove_planner_span_count(c) != grove_planner_span_count(*pp) + 1)
                got = 98;
            grove_planner_destroy(c);
        }
        cmp(K_COPY, got, errno, 0, 0, "copy independent", 0, 0, 0);
    } else if (pick < 97) {
        cmp(K_MAXUSED, grove_planner_max_used(*pp), 0, ref_max_all(r, 0), 0, "", 0, 0, 0);
    } else if (pick < 98) {
        /* span_at visits every span exactly once. */
        size_t n = grove_planner_span_count(*pp), seen = 0;
        got = n == r->n ? 0 : 97;
        for (size_t i = 0; i < n && got == 0; i++) {
            int64_t sid, s, dd, aa;
            ptrdiff_t k;
            if (grove_planner_span_at(*pp, i, &sid, &s, &dd, &aa) < 0
                || (k = ref_find(r, sid)) < 0 || r->span[k].start != s
                || r->span[k].dur != dd || r->span[k].c[0] != aa)
                got = 96;
            else
                seen++;
        }
        errno = 0;
        if (got == 0 && (grove_planner_span_at(*pp, n, NULL, NULL, NULL, NULL) != -1
                         || errno != ENOENT))
            got = 95;
        cmp(K_SPANS, got, 0, 0, 0, "span_at", (int64_t)seen, 0, 0);
    } else {
        cmp(K_CHECK, grovep_planner_check(*pp) ? 0 : 94, 0, 0, 0, "tree invariants", 0, 0, 0);
    }
}

/* One random session: a new planner and reference, nops operations.  A big
 * session (long horizon, short spans) grows a timeline several levels deep,
 * so splits, borrows and merges of inner nodes meet the reference too. */
static void session(long nops, int big)
{
    int64_t start = rnd(0, 3) ? rnd(0, 3) * rnd(0, 1000) : 0;
    int64_t horizon = rnd(1, 8) == 1 ? rnd(1, 6) : rnd(20, 120);
    int64_t total = rnd(0, 12) == 0 ? rnd(0, 2) : rnd(3, 40);
    max_short = horizon / 6 + 1;
    if (big) {
        horizon = rnd(1500, 3000);
        total = rnd(100, 400);
        max_short = 40;
    }
    ref_t r;
    ref_init(&r, 1, &total, start, horizon);
    grove_planner_t *p = mk(total, start, horizon);
    int64_t fit_iter = -1; /* last next_fit answer, to iterate from */

    for (long op = 0; op < nops; op++) {
        int pick = (int)rnd(0, 99);
        if (pick < 40)
            random_update(&r, &p, pick);
        else
            random_query(&r, &p, pick, &fit_iter);
        if (grovep_planner_height(p) > max_height)
            max_height = grovep_planner_height(p);
    }
    cmp(K_CHECK, grovep_planner_check(p) ? 0 : 94, 0, 0, 0, "tree invariants", 0, 0, 0);
    grove_planner_destroy(p);
    ref_fini(&r);
}

/* ---- edge rows ----------------------------------------------------------- */

typedef struct {
    const char *what;
    char op;       /* a add, r remove, d reduce, t avail_at, w avail_during,
                      f fits, e earliest, n next_fit, c next_change, z resize,
                      s span (returns amount); P a new planner of total x,
                      start y, horizon z for the rows after it; k a comb:
                      x units in [t + 3, t + 10) for t from y, every 10 s,
                      up to z (returns the spans added) */
    int64_t x, y, z;
    int64_t want;  /* result */
    int err;       /* errno when want == -1 */
} row_t;

static int64_t run_row(grove_planner_t *p, const row_t *w)
{
    int64_t amt, n = 0;
    switch (w->op) {
    case 'k':
        for (int64_t t = w->y; t < w->z; t += 10)
            n += grove_planner_add(p, t + 3, 7, w->x) > 0;
        return n;
    case 'a': return grove_planner_add(p, w->x, w->y, w->z);
    case 'r': return grove_planner_remove(p, w->x);
    case 'd': return grove_planner_reduce(p, w->x, w->y);
    case 't': return grove_planner_avail_at(p, w->x);
    case 'w': return grove_planner_avail_during(p, w->x, w->y);
    case 'f': return grove_planner_fits(p, w->x, w->y, w->z);
    case 'e': return grove_planner_earliest(p, w->x, w->y, w->z);
    case 'n': return grove_planner_next_fit(p, w->x, w->y, w->z);
    case 'c': return grove_planner_next_change(p, w->x);
    case 'z': return grove_planner_resize(p, w->x) < 0 ? -1 : grove_planner_total(p);
    case 's': return grove_planner_span(p, w->x, NULL, NULL, &amt) < 0 ? -1 : amt;
    }
    return -2;
}

/* Run the rows on *pp (a 'P' row replaces it), then check its invariants
 * (and those of every planner a 'P' row replaced). */
static void run_rows(grove_planner_t **pp, const row_t *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const row_t *w = &rows[i];
        if (w->op == 'P') {
            if (*pp)
                ok(grovep_planner_check(*pp), "invariants hold before %s", w->what);
            grove_planner_destroy(*pp);
            *pp = mk(w->x, w->y, w->z);
            continue;
        }
        grove_planner_t *p = *pp;
        errno = 0;
        int64_t got = run_row(p, w);
        int e = errno;
        if (w->want == -1)
            ok(got == -1 && e == w->err, "%s: fails with %s (got %" PRId64 ", %s)", w->what,
               strerror(w->err), got, strerror(e));
        else
            ok(got == w->want, "%s: %" PRId64 " (got %" PRId64 ", %s)", w->what, w->want, got,
               got == -1 ? strerror(e) : "-");
    }
    ok(grovep_planner_check(*pp), "invariants hold after the rows");
}

/* Creation and destruction. */
static void create_rows(void)
{
    struct { const char *what; int64_t total, start, horizon; int err; } mk_rows[] = {
        { "negative total", -1, 0, 10, EINVAL },
        { "negative start", 5, -1, 10, EINVAL },
        { "zero horizon", 5, 0, 0, EINVAL },
        { "negative horizon", 5, 0, -3, EINVAL },
        { "total above the limit", GROVE_PLANNER_TOTAL_MAX + 1, 0, 10, EOVERFLOW },
        { "end above the limit", 5, 1, GROVE_PLANNER_TIME_MAX, EOVERFLOW },
        { "largest horizon", 5, 0, GROVE_PLANNER_TIME_MAX, 0 },
        { "zero total", 0, 0, 10, 0 },
    };
    for (size_t i = 0; i < sizeof(mk_rows) / sizeof(mk_rows[0]); i++) {
        errno = 0;
        grove_planner_t *p = grove_planner_create(mk_rows[i].total, mk_rows[i].start,
                                                  mk_rows[i].horizon);
        is_made(p, mk_rows[i].err, mk_rows[i].what);
        grove_planner_destroy(p);
    }
    ok_destroy_null(grove_planner_destroy);
}

/* Every call on a planner of total 10 over [0, 100), in turn. */
static void edge_rows(void)
{
    /* Span ids count from 1. */
    grove_planner_t *p = mk(10, 0, 100);
    static const row_t rows[] = {
        { "empty: all free at time 0", 't', 0, 0, 0, 10, 0 },
        { "empty: earliest from 0 is 0", 'e', 10, 100, 0, 0, 0 },
        { "empty: no change point", 'c', 0, 0, 0, -1, ENOENT },
        { "empty: next_fit has no point", 'n', 1, 5, 0, -1, EBUSY },
        { "zero-duration span at 0", 'a', 0, 0, 10, 1, 0 },
        { "it takes nothing", 't', 0, 0, 0, 10, 0 },
        { "zero-duration span at the horizon end", 'a', 100, 0, 10, 2, 0 },
        { "zero-duration span past the end", 'a', 101, 0, 1, -1, ERANGE },
        { "span over the whole horizon", 'a', 0, 100, 3, 3, 0 },
        { "span on the last second", 'a', 99, 1, 7, 4, 0 },
        { "the last second is full", 't', 99, 0, 0, 0, 0 },
        { "the end itself is outside", 't', 100, 0, 0, -1, ERANGE },
        { "before the start is outside", 't', -1, 0, 0, -1, ERANGE },
        { "span past the horizon", 'a', 99, 2, 1, -1, ERANGE },
        { "span before the start", 'a', -1, 1, 1, -1, ERANGE },
        { "negative duration", 'a', 0, -1, 1, -1, EINVAL },
        { "negative amount", 'a', 0, 1, -1, -1, EINVAL },
        { "amount above the total", 'a', 0, 1, 11, -1, ENODEV },
        { "not enough free at the end", 'a', 98, 2, 1, -1, EBUSY },
        { "exactly what is free", 'a', 98, 1, 7, 5, 0 },
        { "min free over [90, 100)", 'w', 90, 10, 0, 0, 0 },
        { "min free over [0, 98)", 'w', 0, 98, 0, 7, 0 },
        { "zero-duration window is the total", 'w', 99, 0, 0, 10, 0 },
        { "zero-duration window at the end", 'w', 100, 0, 0, 10, 0 },
        { "window past the end", 'w', 99, 2, 0, -1, ERANGE },
        { "negative window", 'w', 5, -1, 0, -1, EINVAL },
        { "fits: full second", 'f', 99, 1, 1, 0, 0 },
        { "fits: zero amount always", 'f', 99, 1, 0, 1, 0 },
        { "fits: zero duration always", 'f', 99, 0, 10, 1, 0 },
        { "fits: over the total never", 'f', 0, 0, 11, 0, 0 },
        { "fits: negative amount", 'f', 0, 1, -1, -1, EINVAL },
        { "fits: outside", 'f', 100, 1, 1, -1, ERANGE },
        { "earliest 7 for 3s", 'e', 7, 3, 0, 0, 0 },
        { "earliest 8 for 1s", 'e', 8, 1, 0, -1, EBUSY },
        { "earliest 7 for 2s from 97 has no room", 'e', 7, 2, 97, -1, EBUSY },
        { "earliest zero-duration at the end", 'e', 10, 0, 100, 100, 0 },
        { "earliest 1 for 1s at the end", 'e', 1, 1, 100, -1, EBUSY },
        { "earliest past the end", 'e', 1, 0, 101, -1, ERANGE },
        { "earliest before the start", 'e', 1, 0, -1, -1, ERANGE },
        { "earliest longer than the horizon", 'e', 1, 101, 0, -1, ERANGE },
        { "earliest above the total", 'e', 11, 1, 0, -1, ENODEV },
        { "earliest negative amount", 'e', -1, 1, 0, -1, EINVAL },
        { "earliest negative duration", 'e', 1, -1, 0, -1, EINVAL },
        { "next change after 0", 'c', 0, 0, 0, 98, 0 },
        { "no change at 99 (one span ends as another starts)", 'c', 98, 0, 0, 100, 0 },
        { "next change after 99", 'c', 99, 0, 0, 100, 0 },
        { "next change after the end", 'c', 100, 0, 0, -1, ENOENT },
        { "next_fit of 1 zero-duration after 0", 'n', 1, 0, 0, 98, 0 },
        { "next_fit of 1 zero-duration after 99", 'n', 1, 0, 99, 100, 0 },
        { "next_fit after the end", 'n', 1, 0, 100, -1, EBUSY },
        { "next_fit of 1 for 1s after 0", 'n', 1, 1, 0, -1, EBUSY },
        { "next_fit outside", 'n', 1, 1, 101, -1, ERANGE },
        { "reduce more than held", 'd', 4, 8, 0, -1, EINVAL },
        { "reduce negative", 'd', 4, -1, 0, -1, EINVAL },
        { "reduce unknown", 'd', 42, 1, 0, -1, ENOENT },
        { "reduce part", 'd', 4, 3, 0, 4, 0 },
        { "the last second has 3 free", 't', 99, 0, 0, 3, 0 },
        { "reduce all of it", 'd', 4, 4, 0, 0, 0 },
        { "the span stays with 0", 's', 4, 0, 0, 0, 0 },
        { "shrink below use refused", 'z', 6, 0, 0, -1, EBUSY },
        { "negative total refused", 'z', -1, 0, 0, -1, EINVAL },
        { "huge total refused", 'z', GROVE_PLANNER_TOTAL_MAX + 1, 0, 0, -1, EOVERFLOW },
        { "total unchanged after refusals", 't', 50, 0, 0, 7, 0 },
        { "shrink to the busiest use", 'z', 10, 0, 0, 10, 0 },
        { "grow", 'z', 20, 0, 0, 20, 0 },
        { "more free after growing", 't', 98, 0, 0, 10, 0 },
        { "remove unknown", 'r', 42, 0, 0, -1, ENOENT },
        { "remove id 0", 'r', 0, 0, 0, -1, ENOENT },
        { "remove a negative id", 'r', -3, 0, 0, -1, ENOENT },
        { "remove the whole-horizon span", 'r', 3, 0, 0, 0, 0 },
        { "remove it twice", 'r', 3, 0, 0, -1, ENOENT },
        { "look it up", 's', 3, 0, 0, -1, ENOENT },
        { "ids are not reused", 'a', 0, 1, 1, 6, 0 },
        { "shrink to 7 now", 'z', 7, 0, 0, 7, 0 },
        { "shrink to 6 refused", 'z', 6, 0, 0, -1, EBUSY },
    };
    run_rows(&p, rows, sizeof(rows) / sizeof(rows[0]));
    is_int(grove_planner_span_count(p), 5, "five spans remain");
    is_int(grove_planner_max_used(p), 7, "max used is 7");
    grove_planner_destroy(p);
}

/* Short gaps, a zero total, and times near the largest horizon. */
static void corner_rows(void)
{
#define E GROVE_PLANNER_TIME_MAX
    static const row_t rows[] = {
        /* Short gaps: earliest must skip every gap shorter than d. */
        { "a planner of 4 over [1000, 1200)", 'P', 4, 1000, 200, 0, 0 },
        { "a comb: free only [t, t+3) in each 10s up to 1190", 'k', 4, 1000, 1190, 19, 0 },
        { "3s fits at the start", 'e', 4, 3, 1000, 1000, 0 },
        { "3s from 1001 fits at the next gap", 'e', 4, 3, 1001, 1010, 0 },
        { "4s fits only after the comb", 'e', 4, 4, 1000, 1190, 0 },
        { "10s fits at 1190", 'e', 1, 10, 1000, 1190, 0 },
        { "11s never fits", 'e', 1, 11, 1000, -1, EBUSY },
        { "next_fit after 1000 for 3s", 'n', 4, 3, 1000, 1010, 0 },
        { "next_fit after 1185 for 3s", 'n', 4, 3, 1185, 1190, 0 },
        { "avail during a busy part", 'w', 1003, 7, 0, 0, 0 },
        { "zero amount fits anywhere", 'e', 0, 5, 1004, 1004, 0 },
        /* A planner of total 0: only zero amounts. */
        { "a planner of total 0", 'P', 0, 0, 10, 0, 0 },
        { "zero total: zero amount fits", 'a', 0, 10, 0, 1, 0 },
        { "zero total: one unit never", 'a', 0, 1, 1, -1, ENODEV },
        { "zero total: earliest of 0", 'e', 0, 10, 0, 0, 0 },
        { "zero total: avail 0", 't', 9, 0, 0, 0, 0 },
        { "zero total: grow", 'z', 2, 0, 0, 2, 0 },
        { "zero total: now one unit", 'a', 9, 1, 1, 2, 0 },
        /* Time near the largest horizon: no overflow in t + d. */
        { "a planner over the largest horizon", 'P', 3, 0, E, 0, 0 },
        { "huge: span to the end", 'a', E - 5, 5, 2, 1, 0 },
        { "huge: earliest 2 for the whole horizon", 'e', 2, E, 0, -1, EBUSY },
        { "huge: earliest 1 for the whole horizon", 'e', 1, E, 0, 0, 0 },
        { "huge: earliest 2 for 10s from E-9", 'e', 2, 10, E - 9, -1, EBUSY },
        { "huge: next change", 'c', 0, 0, 0, E - 5, 0 },
        { "huge: duration past the end", 'a', E - 1, INT64_MAX, 1, -1, ERANGE },
        { "huge: window past the end", 'w', E, INT64_MAX, 0, -1, ERANGE },
    };
#undef E
    grove_planner_t *p = NULL;
    run_rows(&p, rows, sizeof(rows) / sizeof(rows[0]));
    grove_planner_destroy(p);
}

/* Remove the spans ids[first], ids[first + 2], ... of ids[0..n), passing
 * over the ids that are not positive (adds that failed).  How many
 * removals failed. */
static int remove_alternate(grove_planner_t *p, const int64_t *ids, int n, int first)
{
    int fails = 0;
    for (int i = first; i < n; i += 2)
        if (ids[i] > 0 && grove_planner_remove(p, ids[i]) < 0)
            fails++;
    return fails;
}

/* Many spans at once: the tree stays balanced and ids stay findable across
 * growth of both arrays; everything removed leaves an empty timeline. */
static void bulk(void)
{
    grove_planner_t *p = mk(1000, 0, 1000000);
    int64_t *ids = malloc(sizeof(int64_t) * 20000);
    int fails = 0;
    for (int i = 0; i < 20000; i++) {
        int64_t s = rnd(0, 999000), d = rnd(1, 1000);
        int64_t t = grove_planner_earliest(p, 1, d, s);
        ids[i] = t < 0 ? -1 : grove_planner_add(p, t, d, 1);
        if (ids[i] < 0 && t >= 0)
            fails++;
    }
    ok(fails == 0 && grovep_planner_check(p), "20000 adds at their earliest time all succeed");
    fails += remove_alternate(p, ids, 20000, 0);
    ok(fails == 0 && grovep_planner_check(p), "removing every other span");
    fails += remove_alternate(p, ids, 20000, 1);
    ok(fails == 0 && grovep_planner_check(p) && grove_planner_span_count(p) == 0
           && grove_planner_max_used(p) == 0 && grove_planner_next_change(p, -1) == -1,
       "removing the rest leaves nothing");
    free(ids);
    grove_planner_destroy(p);
}

/* Spans laid end to end with one amount: their deltas cancel where one ends
 * and the next starts, so usage changes only at the two ends, yet removing
 * a span in the middle makes usage change at its ends.  Removal must not
 * need memory (the points stay while a span ends there) and the changes
 * seen must be the real ones. */
static void refill(void);

static void tiled(void)
{
    grove_planner_t *p = mk(4, 0, 100000);
    int64_t ids[1000];
    int fails = 0;
    for (int i = 0; i < 1000; i++)
        if ((ids[i] = grove_planner_add(p, 10 * i, 10, 2)) < 0)
            fails++;
    ok(fails == 0 && grovep_planner_check(p) && grove_planner_next_change(p, -1) == 0
           && grove_planner_next_change(p, 0) == 10000,
       "1000 spans end to end: usage changes at 0 and 10000 only");
    ok(grove_planner_next_fit(p, 3, 5, 0) == 10000,
       "tiled: next fit of 3 units passes over the joints");
    fails += remove_alternate(p, ids, 1000, 1);
    ok(fails == 0 && grovep_planner_check(p) && grove_planner_next_change(p, 0) == 10
           && grove_planner_next_change(p, 10) == 20 && grove_planner_avail_at(p, 15) == 4
           && grove_planner_avail_at(p, 25) == 2,
       "every other span removed: usage changes at each joint");
    ok(grove_planner_reduce(p, ids[0], 2) == 0 && grove_planner_next_change(p, -1) == 20
           && grovep_planner_check(p),
       "a span reduced to nothing no longer marks its ends");
    fails += remove_alternate(p, ids, 1000, 0);
    ok(fails == 0 && grovep_planner_check(p) && grove_planner_next_change(p, -1) == -1,
       "all removed: no change of usage left");
    grove_planner_destroy(p);
}

/* A tally against a count kept by hand over [0, 64): random intervals
 * raised and lowered again (each lowering an earlier raising), the max
 * over windows and the earliest window under a limit. */
static void tally(void)
{
    enum { T = 64, N = 300 };
    grove_tally_t *t = grove_tally_create();
    int64_t cnt[T] = {0}, live[N][2];
    int nlive = 0;
    int same = t != NULL;
    for (int step = 0; step < 2000 && same; step++) {
        if (nlive < N && (nlive == 0 || rnd(0, 2))) {
            int64_t s = rnd(0, T - 2), e = rnd(s + 1, T - 1);
            same = grove_tally_raise(t, s, e) == 0;
            for (int64_t k = s; k < e; k++)
                cnt[k]++;
            live[nlive][0] = s;
            live[nlive++][1] = e;
        } else {
            int i = (int)rnd(0, nlive - 1);
            grove_tally_lower(t, live[i][0], live[i][1]);
            for (int64_t k = live[i][0]; k < live[i][1]; k++)
                cnt[k]--;
            live[i][0] = live[nlive - 1][0];
            live[i][1] = live[--nlive][1];
        }
        int64_t s = rnd(0, T - 2), e = rnd(s + 1, T - 1), mx = 0;
        for (int64_t k = s; k < e; k++)
            mx = cnt[k] > mx ? cnt[k] : mx;
        same = same && grove_tally_max(t, s, e) == mx;
        int64_t lim = rnd(0, 6), d = rnd(1, 8), want = -1;
        for (int64_t a = s; a + d <= T && want < 0; a++) {
            int64_t m = 0;
            for (int64_t k = a; k < a + d; k++)
                m = cnt[k] > m ? cnt[k] : m;
            if (m <= lim)
                want = a;
        }
        int64_t got = grove_tally_earliest(t, lim, d, s, T - d);
        same = same && got == want;
    }
    ok(same, "a tally keeps the count of its intervals, its max and earliest");
    grove_tally_destroy(t);
}

/* The same raisings and lowerings put in one by one and, in a second
 * tally, summed by time in batches of up to 40 (grove_tally_apply, as the
 * aggregates' batch does): the same points, max and earliest after each
 * batch, and no point left once everything is lowered. */
static void tally_batched(void)
{
    enum { T = 64, N = 300 };
    grove_tally_t *t = grove_tally_create(), *u = grove_tally_create();
    int64_t live[N][2], dv[T], dends[T];
    int nlive = 0;
    int same = t && u;
    for (int batch = 0; batch < 400 && same; batch++) {
        memset(dv, 0, sizeof(dv));
        memset(dends, 0, sizeof(dends));
        /* the last batch lowers what is left */
        int last = batch == 399, steps = last ? nlive : (int)rnd(1, 40);
        for (int step = 0; step < steps && same; step++) {
            if (!last && nlive < N && (nlive == 0 || rnd(0, 2))) {
                int64_t s = rnd(0, T - 2), e = rnd(s + 1, T - 1);
                same = grove_tally_raise(t, s, e) == 0;
                dv[s]++, dv[e]--, dends[s]++, dends[e]++;
                live[nlive][0] = s;
                live[nlive++][1] = e;
            } else {
                int i = last ? nlive - 1 : (int)rnd(0, nlive - 1);
                int64_t s = live[i][0], e = live[i][1];
                grove_tally_lower(t, s, e);
                dv[s]--, dv[e]++, dends[s]--, dends[e]--;
                live[i][0] = live[nlive - 1][0];
                live[i][1] = live[--nlive][1];
            }
        }
        for (int64_t k = 0; k < T && same; k++)
            same = grove_tally_apply(u, k, dv[k], (int)dends[k]) == 0;
        same = same && grove_tally_points(u) == grove_tally_points(t);
        for (int q = 0; q < 8 && same; q++) {
            int64_t s = rnd(0, T - 2), e = rnd(s + 1, T - 1), lim = rnd(0, 6), d = rnd(1, 8);
            same = grove_tally_max(u, s, e) == grove_tally_max(t, s, e)
                   && grove_tally_earliest(u, lim, d, s, T - d)
                          == grove_tally_earliest(t, lim, d, s, T - d);
        }
    }
    ok(same && nlive == 0 && grove_tally_points(u) == 0,
       "changes summed by time leave the tally the one by one leave, and nothing at the end");
    grove_tally_destroy(t);
    grove_tally_destroy(u);
}

/* A planner emptied and filled again, as a queue that plans its
 * reservations again empties and fills its pools' planners at every
 * pass: a small one keeps its memory, a large one gives it back, and
 * either answers afterwards as a new planner given the same spans. */
static void refill(void)
{
    static const int sizes[] = {3, 12, 40, 400};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
        int n = sizes[s];
        grove_planner_t *p = grove_planner_create(8, 0, 100000);
        for (int round = 0; round < 3; round++) {
            int64_t *ids = calloc((size_t)n, sizeof(*ids));
            for (int i = 0; i < n; i++)
                ids[i] = grove_planner_add(p, 10 * i + round, 7, 1 + (i + round) % 8);
            grove_planner_t *fresh = grove_planner_create(8, 0, 100000);
            for (int i = 0; i < n; i++)
                (void)grove_planner_add(fresh, 10 * i + round, 7, 1 + (i + round) % 8);
            int same = grovep_planner_check(p);
            for (int64_t t = 0; t < 10 * n + 20 && same; t += 3) {
                same = grove_planner_avail_at(p, t) == grove_planner_avail_at(fresh, t)
                       && grove_planner_avail_during(p, t, 11)
                              == grove_planner_avail_during(fresh, t, 11)
                       && grove_planner_earliest(p, 6, 9, t) == grove_planner_earliest(fresh, 6, 9, t);
            }
            ok(same, "%d spans, filled %s: answers as a new planner", n,
               round ? "again after emptied" : "first");
            int removed = 0;
            for (int i = n; i-- > 0;)
                removed += grove_planner_remove(p, ids[i]) == 0;
            ok(removed == n && grove_planner_span_count(p) == 0
                   && grove_planner_avail_during(p, 0, 100000) == 8 && grovep_planner_check(p),
               "%d spans removed: empty, all free, sound", n);
            grove_planner_destroy(fresh);
            free(ids);
        }
        grove_planner_destroy(p);
    }
}

int main(void)
{
    long total_ops = ref_begin("GROVE_PLANNER_OPS", 150000, kind_name, K_NKINDS);
    tally();
    tally_batched();

    create_rows();
    edge_rows();
    corner_rows();
    bulk();
    tiled();
    refill();

    long done = 0, big = 0;
    while (done < total_ops) {
        int is_big = rnd(0, 4) == 0;
        long n = is_big ? rnd(4000, 12000) : rnd(200, 3000);
        if (n > total_ops - done)
            n = total_ops - done;
        session(n, is_big);
        big += is_big;
        done += n;
    }
    ok(max_height >= 3, "%ld big sessions grew timelines %d levels deep", big, max_height);
    /* The generator must reach both outcomes of the interesting calls. */
    static const int both[] = { K_ADD, K_REMOVE, K_REDUCE, K_AT, K_DURING, K_FITS, K_EARLIEST,
                                K_NEXT, K_CHANGE, K_RESIZE };
    long all = cmp_report(both, sizeof(both) / sizeof(both[0]));
    ok(all >= total_ops, "%ld comparisons for %ld operations", all, total_ops);
    return done_testing();
}
