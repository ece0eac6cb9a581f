/* bench_planner.c: cost of planner updates and queries at 100,000 spans.
 *
 * Workload: one pool of 8192 units over a 30-day horizon, filled by a
 * scheduler-like stream: each span (amount 1-64, duration 1 min - 1 day,
 * both log-uniform) is placed at its wanted start if it fits, else at the
 * earliest time it fits from there, until 100,000 spans are held.  Then
 * 1,000,000 mixed queries with random arguments, timed per kind, and
 * add+remove pairs at the earliest fitting time.  A second part does the
 * same for a multi-planner of three types (node, core, gpu).
 *
 *   build/bench/bench_planner            (GROVE_SEED, GROVE_BENCH_SPANS,
 *                                         GROVE_BENCH_QUERIES override)
 *
 * It must not hold a generator of its own (rng.h) nor assert like a
 * test: it measures and reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mplanner.h"
#include "planner.h"
#include "rng.h"

#define HORIZON (30 * 86400)

/* Log-uniform in [lo, hi]. */
static int64_t rnd_log(int64_t lo, int64_t hi)
{
    double u = (double)(rng_next() >> 11) / 9007199254740992.0;
    return (int64_t)floor(exp(log((double)lo) + u * (log((double)hi + 1) - log((double)lo))));
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct {
    int64_t t, d, a;
} q_t;

static volatile int64_t sink; /* keeps results alive */

static void report(const char *what, long n, double ns, long hits)
{
    printf("  %-28s %9ld ops %9.1f ns/op", what, n, ns / (double)n);
    if (hits >= 0)
        printf("   (%ld found/true)", hits);
    printf("\n");
}

/* The fill of both benchmarks: id = a span of amt for d seconds at s, or
 * at the earliest time from s when s is busy (pre is grove_planner or
 * grove_mplanner; amt an amount, or the amounts of each type).  A macro,
 * so the timed loop calls the planner as directly as before. */
#define ADD_OR_EARLIEST(id, pre, p, s, d, amt)                     \
    do {                                                           \
        (id) = pre##_add((p), (s), (d), (amt));                    \
        if ((id) < 0 && errno == EBUSY) {                          \
            int64_t t_ = pre##_earliest((p), (amt), (d), (s));     \
            if (t_ >= 0)                                           \
                (id) = pre##_add((p), t_, (d), (amt));             \
        }                                                          \
    } while (0)

static void bench_single(long nspans, long nqueries)
{
    grove_planner_t *p = grove_planner_create(8192, 0, HORIZON);
    int64_t *ids = malloc(sizeof(int64_t) * (size_t)nspans);
    long held = 0, tries = 0;
    double t0 = now_ns();
    while (held < nspans && tries < 2 * nspans) {
        tries++;
        int64_t a = rnd_log(1, 64), d = rnd_log(60, 86400);
        int64_t s = rnd(0, HORIZON - d);
        int64_t id;
        ADD_OR_EARLIEST(id, grove_planner, p, s, d, a);
        if (id > 0)
            ids[held++] = id;
    }
    double fill = now_ns() - t0;
    printf("planner: total 8192, horizon %d s, %ld spans placed (%ld tries, %.1f ms)\n",
           HORIZON, held, tries, fill / 1e6);
    printf("  busiest use %" PRId64 ", time points %s\n", grove_planner_max_used(p),
           "~2 per span");

    /* Queries: 1,000,000 split over six kinds, then the same number again
     * with the kinds interleaved; arguments drawn up front. */
    long per = nqueries / 6;
    q_t *q = malloc(sizeof(q_t) * (size_t)per);
    for (long i = 0; i < per; i++) {
        q[i].a = rnd_log(1, 64);
        q[i].d = rnd_log(60, 86400);
        q[i].t = rnd(0, HORIZON - q[i].d);
    }
    long hits;
    double t;

    hits = 0, t = now_ns();
    for (long i = 0; i < per; i++)
        sink = grove_planner_avail_at(p, q[i].t);
    report("avail_at", per, now_ns() - t, -1);

    t = now_ns();
    for (long i = 0; i < per; i++)
        sink = grove_planner_avail_during(p, q[i].t, q[i].d);
    report("avail_during", per, now_ns() - t, -1);

    hits = 0, t = now_ns();
    for (long i = 0; i < per; i++)
        hits += grove_planner_fits(p, q[i].t, q[i].d, q[i].a) == 1;
    report("fits", per, now_ns() - t, hits);

    hits = 0, t = now_ns();
    for (long i = 0; i < per; i++) {
        int64_t r = grove_planner_earliest(p, q[i].a, q[i].d, q[i].t);
        hits += r >= 0;
        sink = r;
    }
    report("earliest", per, now_ns() - t, hits);

    /* next_fit: continue from each query's earliest answer. */
    int64_t *from = malloc(sizeof(int64_t) * (size_t)per);
    for (long i = 0; i < per; i++) {
        from[i] = grove_planner_earliest(p, q[i].a, q[i].d, q[i].t);
        if (from[i] < 0)
            from[i] = q[i].t;
    }
    hits = 0, t = now_ns();
    for (long i = 0; i < per; i++) {
        int64_t r = grove_planner_next_fit(p, q[i].a, q[i].d, from[i]);
        hits += r >= 0;
        sink = r;
    }
    report("next_fit", per, now_ns() - t, hits);

    hits = 0, t = now_ns();
    for (long i = 0; i < per; i++) {
        int64_t s, d, a;
        hits += grove_planner_span(p, ids[rng_next() % (uint64_t)held], &s, &d, &a) == 0;
    }
    report("span lookup", per, now_ns() - t, hits);

    /* All kinds interleaved, as a matcher would mix them. */
    hits = 0, t = now_ns();
    for (long i = 0; i < nqueries; i++) {
        const q_t *x = &q[i % per];
        switch (i % 5) {
        case 0: sink = grove_planner_avail_at(p, x->t); break;
        case 1: sink = grove_planner_avail_during(p, x->t, x->d); break;
        case 2: hits += grove_planner_fits(p, x->t, x->d, x->a) == 1; break;
        case 3: sink = grove_planner_earliest(p, x->a, x->d, x->t); break;
        default: sink = grove_planner_next_fit(p, x->a, x->d, from[i % per]); break;
        }
    }
    report("mixed (the five interleaved)", nqueries, now_ns() - t, -1);

    /* Earliest from the start of the horizon: the busiest case, every
     * request must pass over the whole loaded part. */
    long few = per / 10;
    hits = 0, t = now_ns();
    for (long i = 0; i < few; i++) {
        int64_t r = grove_planner_earliest(p, q[i].a, q[i].d, 0);
        hits += r >= 0;
        sink = r;
    }
    report("earliest from t=0", few, now_ns() - t, hits);

    /* Updates, timed in blocks (a clock read costs more than an update):
     * remove 1,000 random spans, then add the same 1,000 back.  The adds
     * check the fit and reuse the room the removes left: no allocation. */
    long nup = per / 2, block = 1000;
    double tadd = 0, trem = 0;
    long added = 0, removed = 0;
    size_t *pick = malloc(sizeof(size_t) * (size_t)block);
    q_t *back = malloc(sizeof(q_t) * (size_t)block);
    for (long done = 0; done + block <= nup; done += block) {
        for (long k = 0; k < block; k++) {
            pick[k] = (size_t)(rng_next() % (uint64_t)held);
            for (long m = 0; m < k; m++)
                if (pick[m] == pick[k]) {
                    pick[k] = (size_t)(rng_next() % (uint64_t)held);
                    m = -1;
                }
            grove_planner_span(p, ids[pick[k]], &back[k].t, &back[k].d, &back[k].a);
        }
        t = now_ns();
        for (long k = 0; k < block; k++)
            removed += grove_planner_remove(p, ids[pick[k]]) == 0;
        trem += now_ns() - t;
        t = now_ns();
        for (long k = 0; k < block; k++) {
            int64_t id = grove_planner_add(p, back[k].t, back[k].d, back[k].a);
            added += id > 0;
            ids[pick[k]] = id;
        }
        tadd += now_ns() - t;
    }
    report("remove", removed, trem, -1);
    report("add (fit check included)", added, tadd, -1);
    free(pick);
    free(back);

    t = now_ns();
    grove_planner_t *c = grove_planner_copy(p);
    report("copy (whole planner)", 1, now_ns() - t, -1);
    grove_planner_destroy(c);

    free(from);
    free(q);
    free(ids);
    grove_planner_destroy(p);
}

/* The bad case of earliest, measured on purpose: a planner packed from t=0
 * the way a conservative-backfill queue fills it (every job at its earliest
 * time), then requests from t=0, which must pass every free gap too short
 * for them.  Cost grows with those gaps (O(g log n), see planner.c). */
static void bench_packed(long nspans, long nqueries)
{
    grove_planner_t *p = grove_planner_create(1024, 0, HORIZON * 4);
    long held = 0;
    double t = now_ns();
    for (long i = 0; i < nspans; i++) {
        int64_t a = rnd_log(1, 64), d = rnd_log(60, 86400);
        int64_t at = grove_planner_earliest(p, a, d, 0);
        held += at >= 0 && grove_planner_add(p, at, d, a) > 0;
    }
    int64_t last = grove_planner_next_change(p, 0), x;
    while ((x = grove_planner_next_change(p, last)) >= 0)
        last = x;
    printf("packed planner: total 1024, %ld spans each placed at its earliest time from 0\n"
           "  (%.1f ms); loaded up to t=%" PRId64 " s\n", held, (now_ns() - t) / 1e6, last);
    long hits = 0;
    t = now_ns();
    for (long i = 0; i < nqueries; i++) {
        int64_t a = rnd_log(1, 64), d = rnd_log(60, 86400);
        int64_t r = grove_planner_earliest(p, a, d, 0);
        hits += r >= 0;
        sink = r;
    }
    report("earliest from t=0 (packed)", nqueries, now_ns() - t, hits);
    grove_planner_destroy(p);
}

static void bench_multi(long nspans, long nqueries)
{
    const char *types[] = { "node", "core", "gpu" };
    int64_t totals[] = { 1024, 1024 * 32, 1024 * 4 };
    grove_mplanner_t *mp = grove_mplanner_create(types, totals, 3, 0, HORIZON);
    long held = 0, tries = 0;
    double t0 = now_ns();
    while (held < nspans && tries < 2 * nspans) {
        tries++;
        int64_t n = rnd_log(1, 4), d = rnd_log(60, 86400);
        int64_t c[3] = { n, n * rnd(1, 32), rnd(0, 3) ? 0 : n * rnd(1, 4) };
        int64_t s = rnd(0, HORIZON - d);
        int64_t id;
        ADD_OR_EARLIEST(id, grove_mplanner, mp, s, d, c);
        held += id > 0;
    }
    printf("mplanner: node/core/gpu = 1024/32768/4096, %ld spans placed (%ld tries, %.1f ms)\n",
           held, tries, (now_ns() - t0) / 1e6);
    printf("  busiest use: %" PRId64 " nodes, %" PRId64 " cores, %" PRId64 " gpus\n",
           grove_mplanner_max_used(mp, 0), grove_mplanner_max_used(mp, 1),
           grove_mplanner_max_used(mp, 2));
    long per = nqueries / 3;
    int64_t (*qc)[3] = malloc(sizeof(*qc) * (size_t)per);
    q_t *q = malloc(sizeof(q_t) * (size_t)per);
    for (long i = 0; i < per; i++) {
        int64_t n = rnd_log(1, 4);
        qc[i][0] = n;
        qc[i][1] = n * rnd(1, 32);
        qc[i][2] = rnd(0, 3) ? 0 : n * rnd(1, 4);
        q[i].d = rnd_log(60, 86400);
        q[i].t = rnd(0, HORIZON - q[i].d);
    }
    int64_t out[3];
    double t = now_ns();
    for (long i = 0; i < per; i++)
        sink = grove_mplanner_avail_during(mp, q[i].t, q[i].d, out);
    report("avail_during (3 types)", per, now_ns() - t, -1);
    long hits = 0;
    t = now_ns();
    for (long i = 0; i < per; i++)
        hits += grove_mplanner_fits(mp, q[i].t, q[i].d, qc[i]) == 1;
    report("fits (3 types)", per, now_ns() - t, hits);
    hits = 0;
    t = now_ns();
    for (long i = 0; i < per; i++) {
        int64_t r = grove_mplanner_earliest(mp, qc[i], q[i].d, q[i].t);
        hits += r >= 0;
        sink = r;
    }
    report("earliest (3 types)", per, now_ns() - t, hits);
    free(q);
    free(qc);
    grove_mplanner_destroy(mp);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *s = getenv("GROVE_SEED");
    rng_state = s ? strtoull(s, NULL, 0) : UINT64_C(20240611);
    const char *ns = getenv("GROVE_BENCH_SPANS"), *nq = getenv("GROVE_BENCH_QUERIES");
    long nspans = ns ? strtol(ns, NULL, 0) : 100000;
    long nqueries = nq ? strtol(nq, NULL, 0) : 1000000;
    bench_single(nspans, nqueries);
    bench_multi(nspans, nqueries / 2);
    bench_packed(nspans / 10, 1000);
    return 0;
}
