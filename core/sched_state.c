/* sched_state.c: the state of a scheduling loop (sched_state.h): a table of jobs by
 * 64-bit id, the queue of waiting jobs kept in order, the clock, counters.
 *
 * The queue is a skip list threaded through the job array (links are
 * array indexes, so growing the array moves no link), with a back link
 * on the lowest level for removal without a search of the list.  A
 * skip list rather than a sorted array: under overload tens of thousands
 * wait and every start removes one from near the front; a sorted array
 * would move the rest each time.  Levels come from a fixed-seed
 * generator, so a run is reproducible.
 *
 * Ids map to array slots through an open-addressed hash table (linear
 * probing, deletion by backward shift: no tombstones to clean up after a
 * long run).  Freed slots are reused from a free list.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_state.h"
#include "util.h"

#define LEVELS 16            /* 4^16 jobs before the list degrades */
#define NIL UINT32_MAX       /* no node */
#define HEAD 0               /* the sentinel node's slot */

struct node {
    grove_sched_job_t job;
    uint32_t fwd[LEVELS];    /* next node at each level (NIL: none) */
    uint32_t back;           /* previous node on level 0 (HEAD for the first) */
    uint8_t level;           /* levels this node is linked at (0: not in the queue) */
    bool used;               /* holds a job (else on the free list through fwd[0]) */
};

struct grove_sched {
    struct node *nodes;      /* slot 0: the head sentinel */
    size_t nnodes, cap;      /* slots in use (free ones included), allocated */
    uint32_t free;           /* first free slot, or NIL */
    uint32_t *hash;          /* slot + 1 by id hash, 0: empty */
    size_t hcap;             /* a power of two, >= 2 * jobs */
    size_t jobs;             /* jobs in the table */
    size_t waiting, running;
    uint8_t top;             /* highest level in use, >= 1 */
    uint64_t rng;            /* level generator state (fixed seed) */
    uint64_t version;        /* moves on each queue change */
    int64_t now;             /* the clock, seconds */
    uint64_t matched, failed, timed;
    double tmin, tmax, tsum; /* seconds per timed match */
    double recent[GROVE_SCHED_RECENT]; /* the last timed matches, a ring */
};

/* ---- ids -------------------------------------------------------------------- */

static size_t hash_of(grove_jobid_t id, size_t cap)
{
    uint64_t x = id + 0x9e3779b97f4a7c15ull; /* splitmix64's finalizer */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (size_t)(x ^ (x >> 31)) & (cap - 1);
}

/* The slot of id, or NIL. */
static uint32_t find(const grove_sched_t *s, grove_jobid_t id)
{
    if (!s->hcap)
        return NIL;
    for (size_t h = hash_of(id, s->hcap);; h = (h + 1) & (s->hcap - 1)) {
        uint32_t e = s->hash[h];
        if (!e)
            return NIL;
        if (s->nodes[e - 1].job.id == id)
            return e - 1;
    }
}

static void hash_put(uint32_t *tab, size_t cap, grove_jobid_t id, uint32_t slot)
{
    size_t h = hash_of(id, cap);
    while (tab[h])
        h = (h + 1) & (cap - 1);
    tab[h] = slot + 1;
}

/* Room in the hash for one more id (load <= 1/2).  0 or -1 ENOMEM. */
static int hash_room(grove_sched_t *s)
{
    if (2 * (s->jobs + 1) <= s->hcap)
        return 0;
    size_t cap = s->hcap ? 2 * s->hcap : 64;
    uint32_t *tab = calloc(cap, sizeof *tab);
    if (!tab) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < s->hcap; i++)
        if (s->hash[i])
            hash_put(tab, cap, s->nodes[s->hash[i] - 1].job.id, s->hash[i] - 1);
    free(s->hash);
    s->hash = tab;
    s->hcap = cap;
    return 0;
}

static void hash_del(grove_sched_t *s, grove_jobid_t id)
{
    size_t mask = s->hcap - 1, h = hash_of(id, s->hcap);
    while (s->nodes[s->hash[h] - 1].job.id != id)
        h = (h + 1) & mask;
    /* backward shift: move later entries of the run into the hole when
     * their home is at or before it */
    size_t hole = h;
    for (size_t j = (hole + 1) & mask; s->hash[j]; j = (j + 1) & mask) {
        size_t home = hash_of(s->nodes[s->hash[j] - 1].job.id, s->hcap);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            s->hash[hole] = s->hash[j];
            hole = j;
        }
    }
    s->hash[hole] = 0;
}

/* ---- the queue ---------------------------------------------------------------- */

/* Whether a comes before b in the queue. */
static bool before(const grove_sched_job_t *a, const grove_sched_job_t *b)
{
    if (a->policy_priority != b->policy_priority)
        return a->policy_priority > b->policy_priority;
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->t_submit != b->t_submit)
        return a->t_submit < b->t_submit;
    return a->id < b->id;
}

static uint8_t random_level(grove_sched_t *s)
{
    s->rng ^= s->rng << 13; /* xorshift64 */
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    uint8_t l = 1;
    for (uint64_t r = s->rng; l < LEVELS && (r & 3) == 0; r >>= 2)
        l++;
    return l;
}

/* The last node before x at each level (x need not be linked). */
static void predecessors(const grove_sched_t *s, uint32_t x, uint32_t *pred)
{
    const struct node *n = s->nodes;
    uint32_t p = HEAD;
    for (int l = s->top - 1; l >= 0; l--) {
        while (n[p].fwd[l] != NIL && before(&n[n[p].fwd[l]].job, &n[x].job))
            p = n[p].fwd[l];
        pred[l] = p;
    }
}

static void link_node(grove_sched_t *s, uint32_t x)
{
    struct node *n = s->nodes;
    uint8_t lv = random_level(s);
    while (s->top < lv)
        n[HEAD].fwd[s->top++] = NIL;
    uint32_t pred[LEVELS];
    predecessors(s, x, pred);
    for (int l = 0; l < lv; l++) {
        n[x].fwd[l] = n[pred[l]].fwd[l];
        n[pred[l]].fwd[l] = x;
    }
    n[x].back = pred[0];
    if (n[x].fwd[0] != NIL)
        n[n[x].fwd[0]].back = x;
    n[x].level = lv;
    s->waiting++;
    s->version++;
}

static void unlink_node(grove_sched_t *s, uint32_t x)
{
    struct node *n = s->nodes;
    uint32_t pred[LEVELS];
    predecessors(s, x, pred);
    for (int l = 0; l < n[x].level; l++)
        if (n[pred[l]].fwd[l] == x)
            n[pred[l]].fwd[l] = n[x].fwd[l];
    if (n[x].fwd[0] != NIL)
        n[n[x].fwd[0]].back = n[x].back;
    n[x].level = 0;
    s->waiting--;
    s->version++;
}

/* ---- life ---------------------------------------------------------------------- */

grove_sched_t *grove_sched_create(void)
{
    grove_sched_t *s = grovep_zalloc(sizeof *s);
    if (!s)
        return NULL;
    if (grovep_grow((void **)&s->nodes, &s->cap, 1, sizeof *s->nodes) < 0) {
        free(s);
        return NULL;
    }
    memset(&s->nodes[HEAD], 0, sizeof s->nodes[HEAD]);
    for (int l = 0; l < LEVELS; l++)
        s->nodes[HEAD].fwd[l] = NIL;
    s->nnodes = 1;
    s->free = NIL;
    s->top = 1;
    s->rng = 0x2545f4914f6cdd1dull;
    return s;
}

void grove_sched_destroy(grove_sched_t *s)
{
    if (!s)
        return;
    free(s->nodes);
    free(s->hash);
    free(s);
}

static int add_job(grove_sched_t *s, grove_jobid_t id, int64_t priority, uint32_t userid,
                   double t_submit, int64_t duration, int64_t start)
{
    if (!s || !isfinite(t_submit) || duration < 0) {
        errno = EINVAL;
        return -1;
    }
    if (find(s, id) != NIL) {
        errno = EEXIST;
        return -1;
    }
    if (hash_room(s) < 0)
        return -1;
    uint32_t x = s->free;
    if (x == NIL) {
        if (s->nnodes >= NIL - 1) {
            errno = ENOMEM;
            return -1;
        }
        if (grovep_grow((void **)&s->nodes, &s->cap, s->nnodes + 1, sizeof *s->nodes) < 0)
            return -1;
        x = (uint32_t)s->nnodes++;
    } else {
        s->free = s->nodes[x].fwd[0];
    }
    struct node *n = &s->nodes[x];
    memset(n, 0, sizeof *n);
    n->used = true;
    n->job = (grove_sched_job_t){.id = id, .priority = priority, .userid = userid,
                                 .t_submit = t_submit, .duration = duration,
                                 .state = start < 0 ? GROVE_SCHED_PENDING : GROVE_SCHED_RUNNING,
                                 .reserved = -1, .start = start, .size = -1};
    hash_put(s->hash, s->hcap, id, x);
    s->jobs++;
    if (start < 0)
        link_node(s, x);
    else
        s->running++;
    return 0;
}

int grove_sched_add(grove_sched_t *s, grove_jobid_t id, int64_t priority, uint32_t userid,
                    double t_submit, int64_t duration)
{
    return add_job(s, id, priority, userid, t_submit, duration, -1);
}

int grove_sched_add_running(grove_sched_t *s, grove_jobid_t id, int64_t priority,
                            uint32_t userid, double t_submit, int64_t duration, int64_t start)
{
    if (start < 0) {
        errno = EINVAL;
        return -1;
    }
    return add_job(s, id, priority, userid, t_submit, duration, start);
}

/* The slot of id, or NIL with ENOENT (s NULL: EINVAL). */
static uint32_t slot_of(const grove_sched_t *s, grove_jobid_t id)
{
    if (!s) {
        errno = EINVAL;
        return NIL;
    }
    uint32_t x = find(s, id);
    if (x == NIL)
        errno = ENOENT;
    return x;
}

int grove_sched_remove(grove_sched_t *s, grove_jobid_t id)
{
    uint32_t x = slot_of(s, id);
    if (x == NIL)
        return -1;
    struct node *n = &s->nodes[x];
    if (n->level)
        unlink_node(s, x);
    else
        s->running--;
    hash_del(s, id);
    n->used = false;
    n->fwd[0] = s->free;
    s->free = x;
    s->jobs--;
    return 0;
}

/* Set one of job id's keys of order (what set does to the job) when that
 * changes it, and move the job to its new place when it waits: unlink,
 * change, link.  0, or -1 with ENOENT. */
static int reorder(grove_sched_t *s, grove_jobid_t id,
                   void (*set)(grove_sched_job_t *, const void *), const void *arg)
{
    uint32_t x = slot_of(s, id);
    if (x == NIL)
        return -1;
    struct node *n = &s->nodes[x];
    grove_sched_job_t j = n->job;
    set(&j, arg);
    if (!before(&j, &n->job) && !before(&n->job, &j))
        return 0; /* the same keys: the same place */
    if (!n->level) {
        n->job = j;
        return 0;
    }
    unlink_node(s, x);
    n->job = j;
    link_node(s, x);
    return 0;
}

static void set_priority(grove_sched_job_t *j, const void *arg)
{
    j->priority = *(const int64_t *)arg;
}

static void set_policy_priority(grove_sched_job_t *j, const void *arg)
{
    j->policy_priority = *(const double *)arg;
}

int grove_sched_prioritize(grove_sched_t *s, grove_jobid_t id, int64_t priority)
{
    return reorder(s, id, set_priority, &priority);
}

int grove_sched_set_policy_priority(grove_sched_t *s, grove_jobid_t id, double p)
{
    if (isnan(p)) {
        errno = EINVAL;
        return -1;
    }
    return reorder(s, id, set_policy_priority, &p);
}

int grove_sched_set_duration(grove_sched_t *s, grove_jobid_t id, int64_t duration)
{
    uint32_t x = slot_of(s, id);
    if (x == NIL)
        return -1;
    if (duration < 0) {
        errno = EINVAL;
        return -1;
    }
    s->nodes[x].job.duration = duration;
    return 0;
}

int grove_sched_set_size(grove_sched_t *s, grove_jobid_t id, int64_t size)
{
    uint32_t x = slot_of(s, id);
    if (x == NIL)
        return -1;
    s->nodes[x].job.size = size < 0 ? -1 : size;
    return 0;
}

/* The job id when it is running (running true) or waiting (false), its
 * slot in *x; else NULL with ENOENT (unknown) or EINVAL (the other state;
 * s NULL). */
static grove_sched_job_t *job_in(grove_sched_t *s, grove_jobid_t id, bool running, uint32_t *x)
{
    *x = slot_of(s, id);
    if (*x == NIL)
        return NULL;
    grove_sched_job_t *j = &s->nodes[*x].job;
    if ((j->state == GROVE_SCHED_RUNNING) != running) {
        errno = EINVAL;
        return NULL;
    }
    return j;
}

int grove_sched_reserve(grove_sched_t *s, grove_jobid_t id, int64_t t)
{
    uint32_t x;
    grove_sched_job_t *j = job_in(s, id, false, &x);
    if (!j)
        return -1;
    j->state = t < 0 ? GROVE_SCHED_PENDING : GROVE_SCHED_RESERVED;
    j->reserved = t < 0 ? -1 : t;
    return 0;
}

/* Move job id between the waiting queue and the running set: out of the
 * queue, started now (run), or back into it from running (!run). */
static int set_running(grove_sched_t *s, grove_jobid_t id, bool run)
{
    uint32_t x;
    grove_sched_job_t *j = job_in(s, id, !run, &x);
    if (!j)
        return -1;
    if (run) {
        unlink_node(s, x);
        s->running++;
    } else {
        s->running--;
        link_node(s, x);
    }
    j->state = run ? GROVE_SCHED_RUNNING : GROVE_SCHED_PENDING;
    j->reserved = -1;
    j->start = run ? s->now : -1;
    return 0;
}

int grove_sched_start(grove_sched_t *s, grove_jobid_t id)
{
    return set_running(s, id, true);
}

int grove_sched_requeue(grove_sched_t *s, grove_jobid_t id)
{
    return set_running(s, id, false);
}

/* ---- reading ------------------------------------------------------------------- */

const grove_sched_job_t *grove_sched_job(const grove_sched_t *s, grove_jobid_t id)
{
    uint32_t x = slot_of(s, id);
    return x == NIL ? NULL : &s->nodes[x].job;
}

const grove_sched_job_t *grove_sched_first(const grove_sched_t *s)
{
    if (!s)
        return NULL;
    uint32_t x = s->nodes[HEAD].fwd[0];
    return x == NIL ? NULL : &s->nodes[x].job;
}

const grove_sched_job_t *grove_sched_next(const grove_sched_t *s, const grove_sched_job_t *j)
{
    if (!s || !j)
        return NULL;
    /* job is the node's first member: the node is where the job is */
    const struct node *n = (const struct node *)(const void *)j;
    if (!n->level)
        return NULL;
    uint32_t x = n->fwd[0];
    return x == NIL ? NULL : &s->nodes[x].job;
}

const grove_sched_job_t *grove_sched_next_fit(const grove_sched_t *s, const grove_sched_job_t *j,
                                              double fit)
{
    for (j = j ? grove_sched_next(s, j) : grove_sched_first(s); j; j = grove_sched_next(s, j))
        if (j->size < 0 || (double)j->size <= fit)
            return j;
    return NULL;
}

size_t grove_sched_position(const grove_sched_t *s, grove_jobid_t id)
{
    uint32_t x = s ? find(s, id) : NIL;
    if (x == NIL || !s->nodes[x].level)
        return 0;
    size_t pos = 1;
    for (uint32_t y = s->nodes[x].back; y != HEAD; y = s->nodes[y].back)
        pos++;
    return pos;
}

uint64_t grove_sched_version(const grove_sched_t *s)
{
    return s ? s->version : 0;
}

size_t grove_sched_queue_length(const grove_sched_t *s)
{
    return s ? s->waiting : 0;
}

int64_t grove_sched_now(const grove_sched_t *s)
{
    return s ? s->now : 0;
}

int grove_sched_set_now(grove_sched_t *s, int64_t now)
{
    if (!s || now < s->now) {
        errno = EINVAL;
        return -1;
    }
    s->now = now;
    return 0;
}

/* ---- counters ------------------------------------------------------------------- */

void grove_sched_count_match(grove_sched_t *s, bool placed, double seconds)
{
    if (!s)
        return;
    if (placed)
        s->matched++;
    else
        s->failed++;
    if (!(seconds >= 0))
        return;
    if (!s->timed || seconds < s->tmin)
        s->tmin = seconds;
    if (!s->timed || seconds > s->tmax)
        s->tmax = seconds;
    s->tsum += seconds;
    s->recent[s->timed % GROVE_SCHED_RECENT] = seconds;
    s->timed++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void grove_sched_stats(const grove_sched_t *s, grove_sched_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    out->matched = s->matched;
    out->failed = s->failed;
    out->match_min = s->tmin;
    out->match_max = s->tmax;
    out->match_avg = s->timed ? s->tsum / (double)s->timed : 0;
    size_t n = s->timed < GROVE_SCHED_RECENT ? (size_t)s->timed : GROVE_SCHED_RECENT;
    if (n) {
        double v[GROVE_SCHED_RECENT];
        memcpy(v, s->recent, n * sizeof *v);
        qsort(v, n, sizeof *v, cmp_double);
        out->recent = n;
        out->recent_p50 = v[n / 2];
        out->recent_p99 = v[(n * 99) / 100];
        out->recent_max = v[n - 1];
    }
    out->queue_length = s->waiting;
    out->running = s->running;
    out->jobs = s->jobs;
}
