/* alloc_stamps.h: the alloc latencies a Flux scheduler module measures on
 * itself, shared by sched-grove (bindings/flux/sched_grove.c) and the
 * benchmark's do-nothing scheduler (bench/flux/sched_ceiling.c), so that
 * both count the same span the same way.
 *
 * An alloc is stamped three times: at the handler's entry, before
 * anything of the request is read ("in"); when its R is handed to the
 * KVS commit ("handed": the module's own work is over); when the success
 * response is sent, after the commit ("out").  Kept for every alloc
 * answered with R, in rings of the last ALLOC_STAMPS_MAX:
 *   alloc_latency  in to out, wall clock: what the job manager waits
 *   alloc_handed   in to handed, wall clock
 *   alloc_cpu      in to handed, this thread's CPU time (a loaded machine
 *                  stretches the wall clock by whatever else runs, this
 *                  only by what the module does; the commit's wait is not
 *                  the module's CPU, and other messages run during it)
 * `flux module stats` shows each as {n, p50_us, p99_us, max_us}, and the
 * module thread's CPU time in all as cpu_s.
 *
 * Header-only (static functions): each module is one shared object.
 */
#ifndef GROVE_FLUX_ALLOC_STAMPS_H
#define GROVE_FLUX_ALLOC_STAMPS_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#define ALLOC_STAMPS_MAX 65536

/* One alloc's stamps (seconds: CLOCK_MONOTONIC, and this thread's CPU). */
struct alloc_stamp {
    double t_in, cpu_in;     /* the handler's entry */
    double t_hand, cpu_hand; /* R handed to the commit */
};

/* The rings (calloc'd; all NULL when the memory was not there: then
 * nothing is kept). */
struct alloc_stamps {
    double *out, *hand, *cpu;
    size_t n; /* allocs stamped (the rings hold the last ALLOC_STAMPS_MAX) */
};

static inline double alloc_stamps_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void alloc_stamp_in(struct alloc_stamp *s)
{
    s->t_in = alloc_stamps_clock(CLOCK_MONOTONIC);
    s->cpu_in = alloc_stamps_clock(CLOCK_THREAD_CPUTIME_ID);
    s->t_hand = s->cpu_hand = 0.;
}

static inline void alloc_stamp_handed(struct alloc_stamp *s)
{
    s->t_hand = alloc_stamps_clock(CLOCK_MONOTONIC);
    s->cpu_hand = alloc_stamps_clock(CLOCK_THREAD_CPUTIME_ID);
}

static inline void alloc_stamps_init(struct alloc_stamps *st)
{
    st->n = 0;
    st->out = calloc(ALLOC_STAMPS_MAX, sizeof(double));
    st->hand = calloc(ALLOC_STAMPS_MAX, sizeof(double));
    st->cpu = calloc(ALLOC_STAMPS_MAX, sizeof(double));
    if (!st->out || !st->hand || !st->cpu) {
        free(st->out), free(st->hand), free(st->cpu);
        st->out = st->hand = st->cpu = NULL;
    }
}

static inline void alloc_stamps_fini(struct alloc_stamps *st)
{
    free(st->out), free(st->hand), free(st->cpu);
    st->out = st->hand = st->cpu = NULL;
}

/* The response of the alloc stamped s is out now. */
static inline void alloc_stamps_add(struct alloc_stamps *st, const struct alloc_stamp *s)
{
    if (!st->out)
        return;
    size_t i = st->n++ % ALLOC_STAMPS_MAX;
    st->out[i] = alloc_stamps_clock(CLOCK_MONOTONIC) - s->t_in;
    st->hand[i] = s->t_hand - s->t_in;
    st->cpu[i] = s->cpu_hand - s->cpu_in;
}

static inline int alloc_stamps_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One ring as {n, p50_us, p99_us, max_us}, or NULL. */
static inline json_t *alloc_stamps_ring(const struct alloc_stamps *st, const double *ring)
{
    size_t n = st->n < ALLOC_STAMPS_MAX ? st->n : ALLOC_STAMPS_MAX;
    if (n == 0 || !ring)
        return json_pack("{s:I}", "n", (json_int_t)st->n);
    double *v = malloc(n * sizeof(*v));
    if (!v)
        return NULL;
    memcpy(v, ring, n * sizeof(*v));
    qsort(v, n, sizeof(*v), alloc_stamps_cmp);
    json_t *o = json_pack("{s:I s:f s:f s:f}", "n", (json_int_t)st->n, "p50_us",
                          v[n / 2] * 1e6, "p99_us", v[(n * 99) / 100] * 1e6, "max_us",
                          v[n - 1] * 1e6);
    free(v);
    return o;
}

/* A ring of the last ALLOC_STAMPS_MAX durations of one kind of request
 * (seconds), for the latencies of requests other than alloc
 * (feasibility.check); v NULL when the memory was not there. */
struct time_ring {
    double *v;
    size_t n; /* durations added (the ring holds the last ALLOC_STAMPS_MAX) */
};

static inline void time_ring_init(struct time_ring *r)
{
    r->n = 0;
    r->v = calloc(ALLOC_STAMPS_MAX, sizeof(double));
}

static inline void time_ring_fini(struct time_ring *r)
{
    free(r->v);
    r->v = NULL;
}

static inline void time_ring_add(struct time_ring *r, double seconds)
{
    if (r->v)
        r->v[r->n++ % ALLOC_STAMPS_MAX] = seconds;
}

/* The ring as {n, p50_us, p99_us, max_us} (alloc_stamps_ring's shape). */
static inline json_t *time_ring_report(const struct time_ring *r)
{
    struct alloc_stamps st = {.n = r->n};
    return alloc_stamps_ring(&st, r->v);
}

/* Set alloc_latency, alloc_handed and alloc_cpu in the object o, and
 * cpu_s: the CPU time (user and system) of the calling thread, the
 * module's, since it started: what the scheduler cost the machine. */
static inline void alloc_stamps_report(const struct alloc_stamps *st, json_t *o)
{
    json_object_set_new(o, "cpu_s", json_real(alloc_stamps_clock(CLOCK_THREAD_CPUTIME_ID)));
    json_object_set_new(o, "alloc_latency", alloc_stamps_ring(st, st->out));
    json_object_set_new(o, "alloc_handed", alloc_stamps_ring(st, st->hand));
    json_object_set_new(o, "alloc_cpu", alloc_stamps_ring(st, st->cpu));
}

#endif
