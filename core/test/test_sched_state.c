/* test_sched_state.c: the state of a scheduling loop (core/sched_state.h).
 *
 * 1. scripted steps, one table: each row applies an operation, checks its
 *    result and errno, then the queue's order as a string of ids (refused
 *    rows also check that the order did not change);
 * 2. the queue against a naive reference (an array sorted from scratch
 *    after every change) under random adds, removes, reprioritizations
 *    (the driver's and the queue policy's), starts and requeues (fixed
 *    seed), with 64-bit ids;
 * 3. the clock, the counters, misuse.
 *
 * It must not draw random numbers of its own: rng.h has the generator.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_state.h"
#include "tap.h"
#include "rng.h"

/* The queue as "id id id" (ids in order), in a static buffer. */
static const char *order(const grove_sched_t *s)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    for (const grove_sched_job_t *j = grove_sched_first(s); j; j = grove_sched_next(s, j))
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%llu", n ? " " : "",
                              (unsigned long long)j->id);
    return buf;
}

enum op { ADD, ADDRUN, REMOVE, PRIO, PPRIO, RESERVE, START, REQUEUE, NOW };

struct step {
    enum op op;
    grove_jobid_t id;
    int64_t a;      /* priority; reserve time; the clock */
    double submit;  /* ADD, ADDRUN: t_submit; PPRIO: the policy's priority */
    int err;        /* expected errno, 0: success */
    const char *queue; /* the order afterwards */
};

static const struct step steps[] = {
    {ADD, 1, 16, 10.0, 0, "1"},
    {ADD, 2, 16, 5.0, 0, "2 1"},           /* earlier submit first */
    {ADD, 3, 20, 30.0, 0, "3 2 1"},        /* higher priority first */
    {ADD, 4, 16, 5.0, 0, "3 2 4 1"},       /* same priority and submit: by id */
    {ADD, 2, 0, 0.0, EEXIST, "3 2 4 1"},   /* an id in the table */
    {PRIO, 1, 31, 0, 0, "1 3 2 4"},
    {PRIO, 9, 31, 0, ENOENT, "1 3 2 4"},
    {RESERVE, 3, 100, 0, 0, "1 3 2 4"},    /* a reservation keeps the order */
    {NOW, 0, 50, 0, 0, "1 3 2 4"},
    {START, 1, 0, 0, 0, "3 2 4"},
    {START, 1, 0, 0, EINVAL, "3 2 4"},     /* runs already */
    {RESERVE, 1, 60, 0, EINVAL, "3 2 4"},  /* runs: no reservation */
    {REQUEUE, 2, 0, 0, EINVAL, "3 2 4"},   /* waits: nothing to requeue */
    {REQUEUE, 1, 0, 0, 0, "1 3 2 4"},      /* back in its place */
    {NOW, 0, 40, 0, EINVAL, "1 3 2 4"},    /* the clock never goes back */
    {REMOVE, 3, 0, 0, 0, "1 2 4"},
    {REMOVE, 3, 0, 0, ENOENT, "1 2 4"},
    {ADDRUN, 7, 0, 1.0, 0, "1 2 4"},       /* running: not in the queue */
    {ADDRUN, 8, -1, 1.0, EINVAL, "1 2 4"}, /* a start before 0 */
    {REQUEUE, 7, 0, 0, 0, "1 2 4 7"},
    {PRIO, 7, 100, 0, 0, "7 1 2 4"},
    {REMOVE, 7, 0, 0, 0, "1 2 4"},
    {ADD, 5, 16, 1.0 / 0.0, EINVAL, "1 2 4"}, /* t_submit not finite */
    {PPRIO, 4, 0, 0.5, 0, "4 1 2"},        /* the policy's priority comes first */
    {PRIO, 1, 99, 0, 0, "4 1 2"},          /* the driver's only breaks its ties */
    {PPRIO, 2, 0, 0.5, 0, "2 4 1"},        /* equal: submit time (5 before 5, id 2 < 4) */
    {PPRIO, 2, 0, -1e300, 0, "4 1 2"},     /* below every 0 */
    {PPRIO, 1, 0, 0.0 / 0.0, EINVAL, "4 1 2"}, /* NaN has no place */
    {PPRIO, 9, 0, 1.0, ENOENT, "4 1 2"},
    {START, 4, 0, 0, 0, "1 2"},
    {PPRIO, 4, 0, -2.0, 0, "1 2"},         /* a running job keeps it for the record */
    {REQUEUE, 4, 0, 0, 0, "1 4 2"},        /* and goes back by it */
};

static int apply(grove_sched_t *s, const struct step *st)
{
    switch (st->op) {
    case ADD:
        return grove_sched_add(s, st->id, st->a, 0, st->submit, 0);
    case ADDRUN:
        return grove_sched_add_running(s, st->id, 0, 0, st->submit, 10, st->a);
    case REMOVE:
        return grove_sched_remove(s, st->id);
    case PRIO:
        return grove_sched_prioritize(s, st->id, st->a);
    case PPRIO:
        return grove_sched_set_policy_priority(s, st->id, st->submit);
    case RESERVE:
        return grove_sched_reserve(s, st->id, st->a);
    case START:
        return grove_sched_start(s, st->id);
    case REQUEUE:
        return grove_sched_requeue(s, st->id);
    case NOW:
        return grove_sched_set_now(s, st->a);
    }
    return -1;
}

static void scripted(void)
{
    grove_sched_t *s = grove_sched_create();
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const struct step *st = &steps[i];
        errno = 0;
        int rc = apply(s, st);
        int e = errno;
        if (st->err)
            ok(rc == -1 && e == st->err, "step %zu: fails with %s (got rc %d, %s)", i + 1,
               strerror(st->err), rc, strerror(e));
        else
            ok(rc == 0, "step %zu: succeeds (%s)", i + 1, rc ? strerror(e) : "");
        is_str(order(s), st->queue, "step %zu: the queue", i + 1);
    }
    const grove_sched_job_t *j = grove_sched_job(s, 1);
    ok(j && j->state == GROVE_SCHED_PENDING && j->start == -1, "a requeued job waits again");
    is_int(grove_sched_position(s, 4), 2, "job 4 is second");
    is_int(grove_sched_position(s, 99), 0, "an unknown job has no place");
    is_int(grove_sched_queue_length(s), 3, "three wait");
    ok(grove_sched_job(s, 4)->policy_priority == -2.0, "job 4 keeps the policy's priority");
    ok(grove_sched_job(s, 3) == NULL && errno == ENOENT, "a removed job is gone (ENOENT)");
    grove_sched_destroy(s);
}

/* ---- against a reference ---------------------------------------------------------- */

struct ref {
    grove_jobid_t id;
    double pprio; /* the policy's priority */
    int64_t prio;
    double submit;
    int waiting; /* 1 waits, 0 runs */
};

static int ref_cmp(const void *pa, const void *pb)
{
    const struct ref *a = pa, *b = pb;
    if (a->pprio != b->pprio)
        return a->pprio > b->pprio ? -1 : 1;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    if (a->submit != b->submit)
        return a->submit < b->submit ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static void against_reference(void)
{
    enum { N = 600, OPS = 20000 };
    struct ref *refs = calloc(N, sizeof *refs);
    int n = 0, bad = 0;
    rng_state = 24;
    grove_sched_t *s = grove_sched_create();
    uint64_t version = grove_sched_version(s);
    for (int k = 0; k < OPS && !bad; k++) { /* bad: which check failed */
        int what = (int)rnd(0, 9);
        int moves = 1; /* whether the step changes the queue */
        if (n == 0 || (what < 4 && n < N)) {
            /* 64-bit ids, with collisions in the low bits */
            grove_jobid_t id = ((uint64_t)rng_next() << 20) | (uint64_t)rnd(0, 3);
            struct ref r = {id, 0, rnd(0, 4), (double)rnd(0, 50), 1};
            if (grove_sched_add(s, id, r.prio, 0, r.submit, 0) < 0)
                continue; /* the same id drawn twice: EEXIST */
            refs[n++] = r;
        } else {
            int i = (int)rnd(0, n - 1);
            struct ref *r = &refs[i];
            int rc = 0;
            moves = r->waiting || what >= 8;
            if (what < 6) {
                rc = grove_sched_remove(s, r->id);
                refs[i] = refs[--n];
            } else if (what < 7) {
                int64_t p = rnd(0, 4);
                moves = moves && p != r->prio;
                r->prio = p;
                rc = grove_sched_prioritize(s, r->id, r->prio);
            } else if (what < 8) {
                double p = (double)rnd(0, 6) / 4 - 0.5; /* few values: ties */
                moves = moves && p != r->pprio;
                r->pprio = p;
                rc = grove_sched_set_policy_priority(s, r->id, p);
            } else if (r->waiting) {
                rc = grove_sched_start(s, r->id);
                r->waiting = 0;
            } else {
                rc = grove_sched_requeue(s, r->id);
                r->waiting = 1;
            }
            if (rc < 0)
                bad = 1;
        }
        uint64_t v = grove_sched_version(s);
        if ((v != version) != moves)
            bad = 2; /* the version moved without a change, or not with one */
        version = v;
        /* compare the whole order every 50 steps */
        if (k % 50 == 0) {
            struct ref *w = malloc((size_t)(n ? n : 1) * sizeof *w);
            int m = 0;
            for (int i = 0; i < n; i++)
                if (refs[i].waiting)
                    w[m++] = refs[i];
            qsort(w, (size_t)m, sizeof *w, ref_cmp);
            const grove_sched_job_t *j = grove_sched_first(s);
            for (int i = 0; i < m && !bad; i++, j = grove_sched_next(s, j))
                if (!j || j->id != w[i].id)
                    bad = 3;
            if (j && !bad)
                bad = 4;
            if ((size_t)m != grove_sched_queue_length(s))
                bad = 5;
            free(w);
        }
    }
    is_int(bad, 0, "%d random operations keep the order of a naive sort (0: no mismatch)",
           OPS);
    grove_sched_stats_t st;
    grove_sched_stats(s, &st);
    is_int(st.jobs, n, "the table holds every job left");
    grove_sched_destroy(s);
    free(refs);
}

/* ---- clock, counters, misuse ------------------------------------------------------ */

static void counters(void)
{
    grove_sched_t *s = grove_sched_create();
    grove_sched_stats_t st;
    grove_sched_stats(s, &st);
    ok(st.matched == 0 && st.match_min == 0 && st.match_avg == 0, "no match yet");
    grove_sched_count_match(s, true, 0.002);
    grove_sched_count_match(s, true, 0.004);
    grove_sched_count_match(s, false, 0.006);
    grove_sched_count_match(s, false, -1); /* counted, not timed */
    grove_sched_stats(s, &st);
    is_int(st.matched, 2, "two placed");
    is_int(st.failed, 2, "two not");
    ok(st.match_min == 0.002 && st.match_max == 0.006, "min and max of the timed ones");
    ok(st.match_avg > 0.00399 && st.match_avg < 0.00401, "the average of the timed ones");
    is_int(grove_sched_now(s), 0, "the clock starts at 0");
    ok(grove_sched_set_now(s, 30) == 0 && grove_sched_now(s) == 30, "the clock moves on");
    grove_sched_destroy(s);
}

int main(void)
{
    scripted();
    against_reference();
    counters();
    ok_destroy_null(grove_sched_destroy);
    errno = 0;
    ok(grove_sched_add(NULL, 1, 0, 0, 0, 0) == -1 && errno == EINVAL, "add to NULL: EINVAL");
    grove_sched_t *s = grove_sched_create();
    ok(grove_sched_add(s, 1, 0, 0, 0, -1) == -1 && errno == EINVAL,
       "a negative duration: EINVAL");
    ok(grove_sched_set_duration(s, 1, 5) == -1 && errno == ENOENT, "no job 1: ENOENT");
    grove_sched_destroy(s);
    return done_testing();
}
