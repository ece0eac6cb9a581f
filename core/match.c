/* match.c: request-guided matching of jobspecs against the graph.
 *
 * Workload: one match per scheduling attempt, thousands per second, on
 * graphs of up to a million vertices.  The matcher walks the containment
 * tree guided by the request tree: for a request of type T and count c
 * below a vertex u it enumerates the T-typed vertices below u (levels the
 * request omits are walked through), in the order the policy gives, skipping
 * subtrees that are down, held exclusively, or pruned by the policy; for
 * each candidate that is available it recurses into the request's children
 * below the candidate, and keeps the candidate when they all fit.  With
 * GROVE_SELECT_FIRST it stops at the c-th fitting candidate.
 *
 * What this match has taken so far lives in per-vertex scratch arrays
 * stamped with a generation number (reset by bumping it, never by
 * clearing), with an undo log so a failed branch is rolled back in time
 * proportional to what it took.  The candidate walks use two LIFO arenas
 * (frames and child lists) shared by all nesting levels: nothing is
 * allocated per visited vertex.
 *
 * Records are written only once a whole request fits: exclusive picks get
 * one record at the top-most exclusive vertex (what lies below is implied),
 * leaf pools get their units, shared containers get annotations through
 * their descendants' records.
 *
 * The walk follows containment, or another subsystem chosen as the
 * dominant one (power distribution): then parents come from an array made
 * for the match and aggregates are not consulted.  Types only an auxiliary
 * subsystem holds are channeled pools, taken along their conduit path.
 *
 * Time: a window [start, start + duration).  "Allocate" tries now;
 * "reserve" then tries each later instant at which some job or record
 * ends, in order, and takes the first that fits.
 *
 * This file must not hold placement preferences (policy.c), the pools'
 * records (pool.c) or the R format: it walks, asks the policy, and records.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error_private.h"
#include "util.h"
#include "graph_private.h"
#include "match.h"

/* per-vertex match flags */
#define M_EXCL 0x01  /* taken exclusively by this match */
#define M_TOUCH 0x02 /* this match took it, or something below it */
#define M_PICK 0x04  /* picked by this match */
#define M_WHOLE 0x08 /* asked for exclusively: everything below it is the job's */
#define M_CLEAN 0x10 /* taken exclusively, and no record of any job on it or below
                      * it (containment tree) overlaps the window */
#define M_IKNOWN 0x20 /* match_complete: whether it is implied is known */
#define M_IMPL 0x40   /* with M_IKNOWN: it is, an exclusive pick lies above */
#define M_POOL 0x80   /* all of the pool is taken (its size), which the taken
                       * array does not hold (set_whole) */

struct req {
    const grove_jobspec_resource_t *js;
    grove_sym_t type; /* GROVE_SYM_NONE: no such type in the graph */
    bool slot;
    bool xor_; /* an xor_slot: a slot that is one of its list's alternatives */
    bool excl; /* exclusive as written or as RFC 14 implies */
    bool not_excl; /* written `exclusive: false` */
    const grove_count_t *count;
    struct req *child, *next;
    struct req *alt; /* or-slots (grove_match_config_t): the group's next
                      * alternative; the first stays in its list, the others
                      * hang from it in order */
    const grove_count_t *ocount; /* a group's first: the count of its last
                                  * alternative, how many slots it takes */
    bool free_span; /* slot: asks for nodes itself, so may span nodes */
    const struct req *sibs; /* the first request of r's list (r's siblings) */
    bool whole;     /* written exclusive with children: the job gets all below */
    int64_t need1[GROVEP_MAX_LOW]; /* low-type units one candidate (or one
                                    * slot) needs at least, for pruning */
    int64_t tot[GROVEP_MAX_LOW];   /* the same for the whole count */
};

/* What set_state found at v: its taken units and flags when this match
 * had set them (live), else nothing (rolled back, v is unstamped: stamp 0
 * is never a generation).  16 bytes: a whole machine logs a million. */
struct undo {
    int64_t taken;
    grove_vid_t v;
    uint16_t flags; /* the flags, with UNDO_LIVE */
};
#define UNDO_LIVE 0x100

struct frame {
    grove_vid_t v;
    uint32_t kids; /* offset in the kid arena */
    uint32_t nkids, next;
};

struct iter {
    size_t frame_base, kid_base; /* arena tops when the walk began */
    uint64_t need;               /* still needed at this level (for ctx) */
    grove_vid_t root;
    bool root_pending; /* the root itself is a candidate not yet returned */
    bool started;
};

struct cand {
    grove_vid_t v;
    double score;
    size_t pos; /* visiting order, to keep equal scores stable */
    bool sure;  /* verified by a trial take, not only admitted (take_best) */
};

/* What exploring by use knows of one vertex (grove_matcher.uslot). */
struct useslot {
    uint64_t rank; /* UINT64_MAX: no job went through it */
    int64_t held;  /* units of its ranking type the running jobs asked for
                    * below it */
    int64_t at;    /* scratch: the same at another instant (zero) */
    uint32_t ord;  /* its children's kept order in uord, or UINT32_MAX */
    bool dirty;    /* a child's rank changed since that order was sorted */
};

struct grove_matcher {
    grove_graph_t *g;
    grove_policy_t pol;
    char *pol_name;
    /* Policies that explore by use (grove_policy_t.explore_by_use): the
     * vertices a job went through or below (and the parents whose order of
     * children is kept) have a slot; the others rank UINT64_MAX.  Slots
     * by vertex id through useof, so the figures cost a few bytes for each
     * vertex the jobs reached, not 24 for every vertex of the graph. */
    grovep_dense_t useof; /* vertex -> index in uslot */
    struct useslot *uslot;
    size_t nuslot, uslotcap;
    /* the kept orders of containment's children (push_frame): a copy of
     * each such parent's span of the tree's child arrays, sorted again
     * only when a child's rank changed; valid for the tree of uord_tree */
    grove_vid_t *uord;
    size_t nuord, uordcap;
    size_t uord_tree[3]; /* the graph's tk_nv, tk_ne, tk_live then */
    /* the ranking type of a vertex type (use_type), worked out once per
     * type: a few types, looked up for every pick and ancestor of a whole
     * machine; direct-mapped by symbol, valid for the aggregate
     * specification utype_spec (the graph's agg_spec_gen + 1; 0: empty) */
    struct {
        grove_sym_t type;
        int8_t k;
    } utype[32];
    uint32_t utype_spec;
    grove_match_config_t cfg;
    struct orplan *orplan; /* or-slot choice scratch, made on first use */
    char *constraint_type;

    grove_job_t **jobs; /* sorted by id; jobs_off slots into its allocation
                         * (see dtab_open) */
    size_t njobs, jobcap, jobs_off;
    grove_jobid_t next_id;
    grove_job_t result; /* MATCHED results */
    grove_match_stats_t stats;

    /* per-match scratch, indexed by vertex id */
    uint32_t gen;
    uint32_t *stamp;
    int64_t *taken;
    uint8_t *mflags;
    size_t scap;
    struct undo *log;
    size_t nlog, logcap;
    grove_pick_t *sel;
    size_t nsel, selcap;
    struct frame *frames;
    size_t nframes, framecap;
    grove_vid_t *kids;
    size_t nkids, kidcap;
    struct cand *cands;
    size_t ncands, candcap;

    /* the match being made */
    int64_t start, end;
    bool sat;  /* satisfiability: ignore records and status */
    bool sat_up; /* with sat: still leave out the vertices that are not up */
    const grove_constraint_t *constraint;
    grove_sym_t ctype, node_sym;
    grove_error_t *err;
    int hook_failed;

    /* the rest of the model (the end of this file) */
    struct kept {
        grove_jobid_t id;
        json_t *docs; /* the job's jobspec (an object, shared with the jobspec
                       * it came from), or an array of it and then of each
                       * grow: most jobs never grow, and an array of one
                       * would cost them about 100 bytes each */
    } *kept;          /* sorted by id: the requests, to plan jobs again;
                       * kept_off entries into its allocation */
    size_t nkept, keptcap, kept_off;
    grove_job_event_t *events; /* queued, in time order */
    size_t nevents, evcap;
    int64_t clock;             /* the graph time the job states are at */
    grove_overdue_t overdue;
    grove_sym_t dominant;      /* the subsystem the walk follows (NONE: containment) */
    uint8_t dom_sub;           /* its index in g->subsys, set for each match */
    const grove_vid_t *par;    /* parents in it: g->parent, or dpar */
    const grove_vid_t *tk;     /* children in it when they are all the tree's
                                * (grovep_tree_kids), else NULL: edge lists */
    const uint32_t *tkoff;
    grove_vid_t *dpar;         /* parents in another dominant subsystem */
    size_t dparcap;
    grove_policy_request_t preq; /* the request as hooks see it */
};

/* ---- small helpers --------------------------------------------------------- */

/* The subsystem the walk follows. */
static grove_sym_t dom_sym(const grove_matcher_t *m)
{
    return m->dominant == GROVE_SYM_NONE ? m->g->sym_containment : m->dominant;
}

/* Make ready the parents of the dominant subsystem for this match: the
 * graph's own array for containment, else each vertex's first parent
 * there (GROVEP_NONE outside it), made anew since the graph may have
 * changed (a walk of the edges, paid only with another subsystem).  0, or
 * -1 (ENOMEM). */
static int dominant_prepare(grove_matcher_t *m)
{
    grove_graph_t *g = m->g;
    m->par = g->parent;
    m->dom_sub = g->containment;
    m->tk = NULL;
    if (m->dominant == GROVE_SYM_NONE || m->dominant == g->sym_containment) {
        m->tk = grovep_tree_kids(g, &m->tkoff);
        if (m->tk && !g->tk_all)
            m->tk = NULL;
        return 0;
    }
    int sub = grovep_subsys_find(g, m->dominant);
    if (sub < 0)
        return 0; /* it has no root either: the match says ENODEV */
    if (grovep_grow((void **)&m->dpar, &m->dparcap, g->nv ? g->nv : 1, sizeof(*m->dpar)) < 0)
        return -1;
    for (grove_vid_t v = 0; v < g->nv; v++)
        m->dpar[v] = grovep_alive(g, v) ? grove_vertex_parent(g, v, m->dominant) : GROVEP_NONE;
    m->par = m->dpar;
    m->dom_sub = (uint8_t)sub;
    return 0;
}


static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- life ------------------------------------------------------------------ */

grove_matcher_t *grove_matcher_create(grove_graph_t *g, const grove_match_config_t *cfg)
{
    if (!g) {
        errno = EINVAL;
        return NULL;
    }
    grove_matcher_t *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->g = g;
    m->next_id = 1;
    if (cfg)
        m->cfg = *cfg;
    m->constraint_type = strdup(cfg && cfg->constraint_type ? cfg->constraint_type : "node");
    if (!m->constraint_type || grove_matcher_set_policy(m, NULL) < 0) {
        grove_matcher_destroy(m);
        errno = ENOMEM;
        return NULL;
    }
    m->cfg.constraint_type = m->constraint_type;
    m->stats.min_s = 0;
    m->clock = g->now;
    m->dominant = GROVE_SYM_NONE;
    m->dom_sub = g->containment;
    m->par = g->parent;
    return m;
}

static void kept_free(grove_matcher_t *m);
static void kept_forget(grove_matcher_t *m, grove_jobid_t id);
static int keep_request(grove_matcher_t *m, grove_jobid_t id, const grove_jobspec_t *js);

static void job_free(grove_job_t *j)
{
    if (j) {
        free(j->picks);
        free(j);
    }
}

/* The allocation of table a (NULL for none), for free (see dtab_open below). */
static void *dtab_base(void *a, size_t off, size_t elem)
{
    return a ? (char *)a - off * elem : NULL;
}

void grove_matcher_destroy(grove_matcher_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->njobs; i++)
        job_free(m->jobs[i]);
    free(dtab_base(m->jobs, m->jobs_off, sizeof(*m->jobs)));
    free(m->result.picks);
    free(m->pol_name);
    free(m->constraint_type);
    grovep_dense_free(&m->useof);
    free(m->uslot);
    free(m->uord);
    free(m->stamp);
    free(m->taken);
    free(m->mflags);
    free(m->log);
    free(m->sel);
    free(m->frames);
    free(m->kids);
    free(m->cands);
    free(m->dpar);
    free(m->orplan);
    kept_free(m);
    free(m);
}

grove_graph_t *grove_matcher_graph(const grove_matcher_t *m)
{
    return m->g;
}

int grove_matcher_set_policy(grove_matcher_t *m, const grove_policy_t *p)
{
    if (!p)
        p = grove_policy_builtin("first");
    if (!p) {
        errno = EINVAL;
        return -1;
    }
    char *name = strdup(p->name ? p->name : "custom");
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    free(m->pol_name);
    m->pol = *p;
    m->pol_name = name;
    m->pol.name = name;
    return 0;
}

const grove_policy_t *grove_matcher_policy(const grove_matcher_t *m)
{
    return &m->pol;
}

/* ---- job table ------------------------------------------------------------ */

/* The job table and the kept requests are arrays sorted by id, of *n
 * elements of elem bytes starting *off elements into an allocation of
 * *cap.  Jobs come with growing ids, so a new one is appended; one that
 * goes moves the entries on its nearer side by one, the front ones moving
 * up into room kept in front (off), so that the oldest or the newest goes
 * in O(1): cancelling every job, oldest first, moved the whole table at
 * each cancel.  The room in front is taken back by one slide once it is
 * half the table, or when the table is shrunk: amortised O(1). */
static void dtab_slide(void **a, size_t n, size_t *off, size_t elem)
{
    if (!*off)
        return;
    char *base = (char *)*a - *off * elem;
    memmove(base, *a, n * elem);
    *a = base;
    *off = 0;
}

/* Open position i (the entries from i move back by one); *n grows.  0 or
 * -1 (ENOMEM), the table unchanged. */
static int dtab_open(void **a, size_t *n, size_t *cap, size_t *off, size_t elem, size_t i)
{
    if (*off + *n == *cap) {
        if (*off > *n / 2) {
            dtab_slide(a, *n, off, elem);
        } else {
            void *base = dtab_base(*a, *off, elem);
            size_t c = *cap;
            if (grovep_grow(&base, &c, *off + *n + 1, elem) < 0)
                return -1;
            *a = (char *)base + *off * elem;
            *cap = c;
        }
    }
    char *p = *a;
    memmove(p + (i + 1) * elem, p + i * elem, (*n - i) * elem);
    (*n)++;
    return 0;
}

/* Close position i; the table gives back room it no longer needs. */
static void dtab_close(void **a, size_t *n, size_t *cap, size_t *off, size_t elem, size_t i)
{
    char *p = *a;
    if (i < *n / 2) {
        memmove(p + elem, p, i * elem);
        *a = p + elem;
        (*off)++;
    } else {
        memmove(p + i * elem, p + (i + 1) * elem, (*n - i - 1) * elem);
    }
    (*n)--;
    if (*n * 4 <= *cap) {
        dtab_slide(a, *n, off, elem); /* O(n), once per halving of the room */
        grovep_shrink(a, cap, *n, elem);
    }
}

static size_t job_pos(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, m->njobs, mid, m->jobs[mid]->id < id);
    return lo;
}

/* The position of job id in the table, or -1 (ENOENT). */
static long job_index(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t i = job_pos(m, id);
    if (i < m->njobs && m->jobs[i]->id == id)
        return (long)i;
    errno = ENOENT;
    return -1;
}

const grove_job_t *grove_matcher_job(const grove_matcher_t *m, grove_jobid_t id)
{
    long i = job_index(m, id);
    return i < 0 ? NULL : m->jobs[i];
}

static int scratch_reserve(grove_matcher_t *m);

int grove_matcher_prepare(grove_matcher_t *m)
{
    if (m->g->agg_dirty && grovep_agg_refresh(m->g) < 0)
        return -1;
    /* the tree's child arrays, which a whole machine's expansion reads
     * (without them, it walks the edge lists) */
    const uint32_t *off;
    (void)grovep_tree_kids(m->g, &off);
    return scratch_reserve(m);
}

const grove_job_t *grove_matcher_result(const grove_matcher_t *m)
{
    return m->result.picks ? &m->result : NULL;
}

const grove_job_t *grove_matcher_job_at(const grove_matcher_t *m, size_t i)
{
    return i < m->njobs ? m->jobs[i] : NULL;
}

size_t grove_matcher_job_count(const grove_matcher_t *m)
{
    return m->njobs;
}

grove_jobid_t grove_matcher_next_id(const grove_matcher_t *m)
{
    return m->next_id;
}

int grove_matcher_set_next_id(grove_matcher_t *m, grove_jobid_t id)
{
    if (id == 0 || (m->njobs && id <= m->jobs[m->njobs - 1]->id)) {
        errno = EINVAL;
        return -1;
    }
    m->next_id = id;
    return 0;
}

static int job_insert(grove_matcher_t *m, grove_job_t *j)
{
    size_t i = job_pos(m, j->id);
    if (dtab_open((void **)&m->jobs, &m->njobs, &m->jobcap, &m->jobs_off, sizeof(*m->jobs), i)
        < 0)
        return -1;
    m->jobs[i] = j;
    if (j->id >= m->next_id)
        m->next_id = j->id + 1;
    return 0;
}

static void use_forget(grove_matcher_t *m, grove_job_t *j);
static grove_job_t *job_detach(grove_matcher_t *m, size_t i);

static void job_remove_at(grove_matcher_t *m, size_t i)
{
    kept_forget(m, m->jobs[i]->id);
    job_free(job_detach(m, i)); /* what it asked for stops counting there */
}

/* ---- scratch state --------------------------------------------------------- */

static int scratch_reserve(grove_matcher_t *m)
{
    size_t n = m->g->nv, old = m->scap, oldsel = m->selcap, oldlog = m->logcap;
    size_t c1 = old, c2 = old, c3 = old; /* parallel arrays: all grow alike */
    if (grovep_grow((void **)&m->stamp, &c1, n, sizeof(*m->stamp)) < 0
        || grovep_grow((void **)&m->taken, &c2, n, sizeof(*m->taken)) < 0
        || grovep_grow((void **)&m->mflags, &c3, n, sizeof(*m->mflags)) < 0)
        return -1;
    /* Only the stamps are written here, on huge pages.  taken and mflags
     * are read only where the stamp is current: a page of them becomes
     * resident where a match first writes, on small pages (a 2 MB one
     * would hold 5,000 nodes' state for a job on one; writing them all
     * now would be 8 MB more at 16,384 nodes).  Dense arrays, not state
     * kept in the undo log: a whole machine asks a vertex's state several
     * times, and an array read is one load where the log is two dependent
     * ones (a quarter of such a match's time, measured) */
    if (c1 != old)
        grovep_huge(m->stamp, c1 * sizeof(*m->stamp));
    memset(m->stamp + old, 0, (c1 - old) * sizeof(*m->stamp));
    m->scap = c1;
    /* a whole machine's selection and undo log hold about one entry a
     * vertex: room for that is taken at once (address space, until used)
     * so that they never grow by copying what a large match wrote */
    if (grovep_grow((void **)&m->sel, &m->selcap, n, sizeof(*m->sel)) < 0
        || grovep_grow((void **)&m->log, &m->logcap, n, sizeof(*m->log)) < 0)
        return -1;
    if (m->selcap != oldsel)
        grovep_huge(m->sel, m->selcap * sizeof(*m->sel));
    if (m->logcap != oldlog)
        grovep_huge(m->log, m->logcap * sizeof(*m->log));
    return 0;
}

static void new_generation(grove_matcher_t *m)
{
    if (++m->gen == 0) {
        memset(m->stamp, 0, m->scap * sizeof(*m->stamp));
        m->gen = 1;
    }
    m->nlog = 0;
    m->nsel = 0;
    m->nframes = 0;
    m->nkids = 0;
    m->ncands = 0;
    grove_policy_request_reset(&m->preq);
}

static inline int64_t taken_of(const grove_matcher_t *m, grove_vid_t v)
{
    if (m->stamp[v] != m->gen)
        return 0;
    return (m->mflags[v] & M_POOL) ? m->g->v[v].size : m->taken[v];
}

static inline uint8_t flags_of(const grove_matcher_t *m, grove_vid_t v)
{
    return m->stamp[v] == m->gen ? m->mflags[v] : 0;
}

/* Log v's state as it is (its units taken as taken_of says, so the log
 * never holds M_POOL) and make it current.  0 or -1 (ENOMEM). */
static inline int log_state(grove_matcher_t *m, grove_vid_t v)
{
    if (grovep_grow((void **)&m->log, &m->logcap, m->nlog + 1, sizeof(*m->log)) < 0)
        return -1;
    m->log[m->nlog++] =
        m->stamp[v] == m->gen
            ? (struct undo){taken_of(m, v), v, (uint16_t)((m->mflags[v] & ~M_POOL) | UNDO_LIVE)}
            : (struct undo){0, v, 0};
    m->stamp[v] = m->gen;
    return 0;
}

static inline int set_state(grove_matcher_t *m, grove_vid_t v, int64_t taken, uint8_t flags)
{
    if (log_state(m, v) < 0)
        return -1;
    m->taken[v] = taken;
    m->mflags[v] = (uint8_t)(flags & ~M_POOL);
    return 0;
}

/* set_state with all of v's pool taken, without writing the taken array:
 * a whole machine takes a million cores whole, and their 8 bytes each
 * would be as many fresh pages to fault in as the selection's. */
static inline int set_whole(grove_matcher_t *m, grove_vid_t v, uint8_t flags)
{
    if (log_state(m, v) < 0)
        return -1;
    m->mflags[v] = (uint8_t)(flags | M_POOL);
    return 0;
}

struct checkpoint {
    size_t nlog, nsel;
};

static struct checkpoint checkpoint(const grove_matcher_t *m)
{
    return (struct checkpoint){m->nlog, m->nsel};
}

static void rollback(grove_matcher_t *m, struct checkpoint cp)
{
    while (m->nlog > cp.nlog) {
        struct undo *u = &m->log[--m->nlog];
        if (!(u->flags & UNDO_LIVE)) {
            m->stamp[u->v] = 0;
            continue;
        }
        m->taken[u->v] = u->taken;
        m->mflags[u->v] = (uint8_t)u->flags;
    }
    for (size_t i = cp.nsel; i < m->nsel; i++)
        grove_policy_request_found(&m->preq, m->g->v[m->sel[i].v].type, -m->sel[i].amount);
    m->nsel = cp.nsel;
}

static inline int add_pick(grove_matcher_t *m, grove_vid_t v, int64_t amount, bool excl,
                           bool leaf)
{
    if (grovep_grow((void **)&m->sel, &m->selcap, m->nsel + 1, sizeof(*m->sel)) < 0)
        return -1;
    m->sel[m->nsel++] = (grove_pick_t){.v = v, .amount = amount, .exclusive = excl, .leaf = leaf};
    grove_policy_request_found(&m->preq, m->g->v[v].type, amount);
    return 0;
}

/* ---- availability ----------------------------------------------------------- */

static bool up(const grove_matcher_t *m, grove_vid_t v)
{
    /* a staged lock is like a record: a satisfiability check ignores it */
    return (m->sat && !m->sat_up)
           || (m->g->v[v].status == GROVE_STATUS_UP
               && (m->sat || !(m->g->v[v].flags & GROVEP_V_STAGED)));
}

/* An exclusive ALLOC record of any job overlapping the window? */
static bool held_excl(const grove_matcher_t *m, grove_vid_t v)
{
    return !m->sat && grovep_excl_any(m->g, v, m->start, m->end);
}

/* Any record (held or shared) overlapping the window?  The job being
 * matched holds nothing yet, so every record is another job's. */
static bool touched(const grove_matcher_t *m, grove_vid_t v)
{
    return !m->sat && grovep_touched_any(m->g, v, m->start, m->end);
}

/* Can the walk go through v?  Under a node-exclusive policy a node must
 * also be untouched by other jobs, since it will be taken whole. */
static bool constraint_ok(const grove_matcher_t *m, grove_vid_t v);

static bool enterable(const grove_matcher_t *m, grove_vid_t v)
{
    if (!up(m, v) || (flags_of(m, v) & M_EXCL) || held_excl(m, v))
        return false;
    /* constraints name execution targets: what lies below a target that
     * fails them is out of reach too, whatever the request asks for */
    if (!constraint_ok(m, v))
        return false;
    if (m->pol.node_exclusive && m->g->v[v].type == m->node_sym && touched(m, v))
        return false;
    return true;
}

/* Units of v still free for this match during the window. */
static int64_t free_units(const grove_matcher_t *m, grove_vid_t v)
{
    int64_t avail = m->sat ? m->g->v[v].size
                           : grovep_own_available(m->g, v, m->start, m->end);
    avail -= taken_of(m, v);
    return avail > 0 ? avail : 0;
}

/* Can the subtree of v hold need (units per low type) in the window?  True
 * when v keeps no aggregate: aggregates only prune. */
static bool agg_fits(const grove_matcher_t *m, grove_vid_t v, const int64_t *need)
{
    const grove_graph_t *g = m->g;
    if (!g->naggs || m->dom_sub != g->containment)
        return true; /* aggregates summarize containment subtrees */
    const grovep_agg_t *a = grovep_agg_of(g, v);
    if (!a)
        return true;
    if (m->sat) {
        for (size_t i = 0; i < g->nlow; i++)
            if ((a->mask & (1u << i)) && need[i] > a->total[i])
                return false;
        return true;
    }
    return grovep_agg_fits(g, a, m->start, m->end, need);
}

static bool has_prop(const char *name, void *arg)
{
    const grove_matcher_t *m = ((const void **)arg)[0];
    grove_vid_t v = *(const grove_vid_t *)((const void **)arg)[1];
    return grove_vertex_property(m->g, v, name) != NULL;
}

static bool constraint_check(const grove_matcher_t *m, grove_vid_t v)
{
    const void *ctx[2] = {m, &v};
    grove_constraint_subject_t subj = {
        .has_property = has_prop,
        .arg = ctx,
        .hostname = grove_vertex_name(m->g, v),
        .rank = m->g->v[v].rank,
    };
    return grove_constraint_match(m->constraint, &subj) == 1;
}

/* Does v meet the job's constraint?  Only its execution targets are asked
 * (constraint_check); every other vertex of a whole machine passes here
 * in a step. */
static inline bool constraint_ok(const grove_matcher_t *m, grove_vid_t v)
{
    return !m->constraint || m->g->v[v].type != m->ctype || constraint_check(m, v);
}

/* ---- candidate walk --------------------------------------------------------- */

/* ---- exploring by use ------------------------------------------------------- */

/* Parents with at least this many children in containment's tree keep
 * their order between matches (use_kept_order); fewer are sorted anew at
 * each walk, which costs less than keeping them. */
#define USE_ORD_MIN 16

/* The slot of v, or NULL when it has none (it ranks UINT64_MAX, nothing is
 * counted below it and it keeps no order). */
static struct useslot *use_slot(const grove_matcher_t *m, grove_vid_t v)
{
    uint32_t i = grovep_dense_get(&m->useof, v);
    return i == UINT32_MAX ? NULL : &m->uslot[i];
}

/* The slot of v, made if it has none (earlier slot pointers may move).
 * NULL with ENOMEM: the slots as they were. */
static struct useslot *use_slot_make(grove_matcher_t *m, grove_vid_t v)
{
    struct useslot *u = use_slot(m, v);
    if (u)
        return u;
    if (m->nuslot >= UINT32_MAX - 1
        || grovep_grow((void **)&m->uslot, &m->uslotcap, m->nuslot + 1, sizeof(*m->uslot)) < 0
        || grovep_dense_set(&m->useof, v, (uint32_t)m->nuslot) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    u = &m->uslot[m->nuslot++];
    *u = (struct useslot){.rank = UINT64_MAX, .ord = UINT32_MAX};
    return u;
}

static uint64_t use_of(const grove_matcher_t *m, grove_vid_t v)
{
    const struct useslot *u = use_slot(m, v);
    return u ? u->rank : UINT64_MAX;
}

/* The children kids[0..n) in the order of exploring by use: highest rank
 * first (see use_update), then highest vertex id (insertion sort: a
 * vertex has few children, or children mostly in order, as a kept order
 * is: each child whose rank changed moves as far as it must, the others
 * are only compared once). */
static void order_by_use(const grove_matcher_t *m, grove_vid_t *kids, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        grove_vid_t k = kids[i];
        uint64_t w = use_of(m, k);
        size_t j = i;
        while (j > 0) {
            uint64_t wj = use_of(m, kids[j - 1]);
            if (wj > w || (wj == w && kids[j - 1] > k))
                break;
            kids[j] = kids[j - 1];
            j--;
        }
        kids[j] = k;
    }
}

/* The n (at least USE_ORD_MIN) children of v in containment's tree in the
 * order of exploring by use, kept from one match to the next: made at v's
 * first walk, sorted again only when the rank of one of them changed
 * since (use_update marks v), which is the same order as sorting anew
 * (ranks and ids order the children strictly) for O(n) plus the moves of
 * the children whose rank changed, where sorting anew costs O(n^2) with a
 * root of hundreds of racks.  Kept orders are dropped when the tree's
 * child arrays were made again (the graph changed).  The order lives in
 * m->uord until the next call; NULL with ENOMEM. */
static const grove_vid_t *use_kept_order(grove_matcher_t *m, grove_vid_t v, uint32_t n)
{
    const grove_graph_t *g = m->g;
    if (m->uord_tree[0] != g->tk_nv || m->uord_tree[1] != g->tk_ne
        || m->uord_tree[2] != g->tk_live) {
        for (size_t i = 0; i < m->nuslot; i++)
            m->uslot[i].ord = UINT32_MAX;
        m->nuord = 0;
        m->uord_tree[0] = g->tk_nv;
        m->uord_tree[1] = g->tk_ne;
        m->uord_tree[2] = g->tk_live;
    }
    struct useslot *u = use_slot_make(m, v);
    if (!u)
        return NULL;
    if (u->ord == UINT32_MAX) {
        if (m->nuord + n >= UINT32_MAX
            || grovep_grow((void **)&m->uord, &m->uordcap, m->nuord + n, sizeof(*m->uord)) < 0) {
            errno = ENOMEM;
            return NULL;
        }
        /* backwards: children not gone through rank alike, highest id
         * first, and the tree lists them by rising id */
        const grove_vid_t *tk = m->tk + m->tkoff[v];
        for (uint32_t i = 0; i < n; i++)
            m->uord[m->nuord + i] = tk[n - 1 - i];
        u->ord = (uint32_t)m->nuord;
        u->dirty = true;
        m->nuord += n;
    }
    grove_vid_t *kids = m->uord + u->ord;
    if (u->dirty) {
        order_by_use(m, kids, n);
        u->dirty = false;
    }
    return kids;
}

/* The index of the aggregate type whose free units rank a vertex of type
 * t once a job went through it: the last of the types the aggregate
 * specification names for t, those given for t first, then the "ALL:"
 * ones other than t itself, each in the order written (the reference engine's order of a
 * vertex's pruning types: with its "ALL:core,ALL:node", nodes rank by
 * cores and everything else by nodes); -1 when none applies. */
static int use_type_of(const grove_graph_t *g, grove_sym_t t)
{
    int last = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < g->npairs; i++) {
            grove_sym_t high = g->agg_pair[i].high, low = g->agg_low[g->agg_pair[i].low];
            if (pass == 0 ? high == t : (high == GROVE_SYM_NONE && low != t))
                last = g->agg_pair[i].low;
        }
    }
    return last;
}

/* use_type_of for v's type, through the matcher's cache of it. */
static int use_type(grove_matcher_t *m, grove_vid_t v)
{
    const grove_graph_t *g = m->g;
    grove_sym_t t = g->v[v].type;
    if (m->utype_spec != g->agg_spec_gen + 1) {
        for (size_t i = 0; i < sizeof(m->utype) / sizeof(m->utype[0]); i++)
            m->utype[i].type = GROVE_SYM_NONE;
        m->utype_spec = g->agg_spec_gen + 1;
    }
    size_t i = t % (sizeof(m->utype) / sizeof(m->utype[0]));
    if (m->utype[i].type != t || t == GROVE_SYM_NONE) {
        m->utype[i].type = t;
        m->utype[i].k = (int8_t)use_type_of(g, t);
    }
    return m->utype[i].k;
}

/* What use_count_all does at the ancestors it counts in. */
enum use_op {
    USE_MAKE, /* give them a slot */
    USE_HELD, /* count in their held figure */
    USE_AT    /* count in their at figure */
};

/* Count (sign 1) or stop counting (-1) the units pick p of a job asks for
 * in the held or at figures (op) of its ancestors whose ranking type is
 * p's type; USE_MAKE gives those ancestors a slot first, so that counting
 * cannot fail (0, or -1 with ENOMEM; the other ops return 0, and skip an
 * ancestor with no slot: nothing was counted in it). */
/* Add sign * units to the figure op names (or make its slot, USE_MAKE) on
 * every ancestor above parent a that ranks by type t.  0, or -1 with
 * ENOMEM (USE_MAKE). */
static int use_add_above(grove_matcher_t *m, enum use_op op, grove_vid_t a, grove_sym_t t,
                         int64_t units)
{
    const grove_graph_t *g = m->g;
    for (; a != GROVEP_NONE; a = m->par[a]) {
        int k = use_type(m, a);
        if (k < 0 || g->agg_low[k] != t)
            continue;
        struct useslot *u = op == USE_MAKE ? use_slot_make(m, a) : use_slot(m, a);
        if (!u && op == USE_MAKE)
            return -1;
        if (u && op != USE_MAKE)
            *(op == USE_HELD ? &u->held : &u->at) += units;
    }
    return 0;
}

/* What pick p asked of a pool, or a vertex held whole (a node taken
 * exclusively counts one node; one shared counts none); 0 for a shared
 * container, which counts nothing. */
static int64_t use_units(const grove_graph_t *g, const grove_pick_t *p)
{
    if (!(p->leaf || p->exclusive))
        return 0;
    return p->leaf ? p->amount : g->v[p->v].size;
}

/* Count what picks[0..n) asked for in the figure op names at their
 * ancestors (use_add_above; USE_MAKE: make their slots).  A run of picks
 * of one type under one parent (the cores of a socket: picks are sorted
 * by vertex) walks the ancestors once with the run's sum, so a whole
 * machine's selection costs a walk a parent, not one a core. */
static int use_count_all(grove_matcher_t *m, enum use_op op, const grove_pick_t *picks, size_t n,
                         int64_t sign)
{
    const grove_graph_t *g = m->g;
    for (size_t i = 0; i < n;) {
        const grove_pick_t *p = &picks[i++];
        if (!(p->leaf || p->exclusive))
            continue;
        grove_vid_t a = m->par[p->v];
        grove_sym_t t = g->v[p->v].type;
        int64_t units = use_units(g, p);
        for (; i < n && m->par[picks[i].v] == a && g->v[picks[i].v].type == t; i++)
            units += use_units(g, &picks[i]);
        if (use_add_above(m, op, a, t, sign * units) < 0)
            return -1;
    }
    return 0;
}

/* Fill (sign 1) or clear (-1) the at figures (op USE_AT), or make their
 * slots (USE_MAKE), with what the jobs of the table other than skip that
 * overlap instant t asked for (a reservation's rank reads the instant it
 * starts at; O(jobs), on that path only).  0, or -1 with ENOMEM. */
static int use_at_fill(grove_matcher_t *m, int64_t t, const grove_job_t *skip, enum use_op op,
                       int64_t sign)
{
    for (size_t i = 0; i < m->njobs; i++) {
        const grove_job_t *o = m->jobs[i];
        if (o == skip || o->start > t || o->end <= t)
            continue;
        if (use_count_all(m, op, o->picks, o->npicks, sign) < 0)
            return -1;
    }
    return 0;
}

/* Job j leaves the table (or is taken out to be placed again): what it
 * asked for no longer counts. */
static void use_forget(grove_matcher_t *m, grove_job_t *j)
{
    if (j->use_held)
        (void)use_count_all(m, USE_HELD, j->picks, j->npicks, -1);
    j->use_held = false;
}

/* Is pick p a vertex use_update ranks? */
static inline bool use_ranked(grove_matcher_t *m, const grove_pick_t *p)
{
    grove_vid_t v = p->v;
    if (m->tk && m->tkoff[v + 1] == m->tkoff[v])
        return false; /* a leaf of containment keeps no aggregate: the cores
                       * of a whole machine are told apart in a step */
    return m->par[v] != GROVEP_NONE && use_type(m, v) >= 0 && grovep_agg_of(m->g, v);
}

/* Make the slots use_update(m, j, now) counts and ranks in, before j is
 * recorded, so that ranking it cannot fail: 0, or -1 with ENOMEM (the
 * slots made stay, holding nothing). */
static int use_reserve(grove_matcher_t *m, const grove_job_t *j, int64_t now)
{
    bool runs = j->start <= now && now < j->end;
    if (!runs && use_at_fill(m, j->start, j, USE_MAKE, 0) < 0)
        return -1;
    /* every ancestor of a pick is a pick (add_ancestors), so the ranked
     * picks and the root are the vertices counted in: no walk up the tree
     * from each run of picks is needed to find them */
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        bool root = m->par[p->v] == GROVEP_NONE && use_type(m, p->v) >= 0;
        if ((root || use_ranked(m, p)) && !use_slot_make(m, p->v))
            return -1;
    }
    return 0;
}

/* After job j was recorded: rank again every vertex below the root on its
 * way, so the next job explores elsewhere first.  A vertex ranks by the
 * units of its ranking type (use_type) below it that the jobs overlapping
 * j's start, j included, did not ask for (units held whole beyond what was
 * asked count as free; a vertex with none of that type below ranks 0).
 * Allocations read the running jobs' counts, kept as jobs come and go; a
 * reservation counts the jobs at its start.  Then j's units count, if it
 * runs now.  Vertices that keep no aggregate (leaves) keep their rank.
 * A parent whose rank of a child changed sorts its kept order again.
 * The slots were made by use_reserve.
 * This is the reference engine's weight per edge, as its sources and a
 * build of it with the weights printed show (docs/conformance.md). */
static void use_update(grove_matcher_t *m, grove_job_t *j, int64_t now)
{
    const grove_graph_t *g = m->g;
    bool runs = j->start <= now && now < j->end;
    enum use_op op = runs ? USE_HELD : USE_AT;
    if (!runs)
        (void)use_at_fill(m, j->start, j, USE_AT, 1);
    (void)use_count_all(m, op, j->picks, j->npicks, 1);
    for (size_t i = 0; i < j->npicks; i++) {
        grove_vid_t v = j->picks[i].v;
        struct useslot *u = use_ranked(m, &j->picks[i]) ? use_slot(m, v) : NULL;
        if (!u)
            continue;
        const grovep_agg_t *a = grovep_agg_of(g, v);
        int k = use_type(m, v);
        int64_t left = ((a->mask & (1u << k)) ? a->total[k] : 0) - (runs ? u->held : u->at);
        uint64_t rank = left < 0 ? 0 : (uint64_t)left;
        if (rank == u->rank)
            continue;
        u->rank = rank;
        struct useslot *pu = g->parent[v] != GROVEP_NONE ? use_slot(m, g->parent[v]) : NULL;
        if (pu)
            pu->dirty = true;
    }
    if (runs) {
        j->use_held = true;
    } else { /* back to zero */
        (void)use_count_all(m, USE_AT, j->picks, j->npicks, -1);
        (void)use_at_fill(m, j->start, j, USE_AT, -1);
    }
}

static int push_frame(grove_matcher_t *m, grove_vid_t v)
{
    const grove_graph_t *g = m->g;
    int sub = m->dom_sub;
    bool kept = false; /* the children are in a kept order already */
    if (grovep_grow((void **)&m->frames, &m->framecap, m->nframes + 1, sizeof(*m->frames)) < 0)
        return -1;
    struct frame *f = &m->frames[m->nframes++];
    f->v = v;
    f->kids = (uint32_t)m->nkids;
    f->nkids = 0;
    f->next = 0;
    if (m->tk) { /* containment's tree: its children listed in sequence */
        uint32_t n = m->tkoff[v + 1] - m->tkoff[v];
        if (grovep_grow((void **)&m->kids, &m->kidcap, m->nkids + n, sizeof(*m->kids)) < 0)
            return -1;
        const grove_vid_t *src = m->tk + m->tkoff[v];
        if (m->pol.explore_by_use && n >= USE_ORD_MIN) {
            if (!(src = use_kept_order(m, v, n)))
                return -1;
            kept = true;
        }
        memcpy(m->kids + m->nkids, src, n * sizeof(*m->kids));
        m->nkids += n;
        f->nkids = n;
    }
    for (grove_eid_t e = m->tk ? GROVEP_NONE : g->first_out[v]; e != GROVEP_NONE;
         e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        if (ed->sub != sub || (ed->flags & GROVEP_E_UP))
            continue;
        if (grovep_grow((void **)&m->kids, &m->kidcap, m->nkids + 1, sizeof(*m->kids)) < 0)
            return -1;
        m->kids[m->nkids++] = ed->dst;
        m->frames[m->nframes - 1].nkids++;
    }
    f = &m->frames[m->nframes - 1];
    if (f->nkids > 1 && m->pol.explore_by_use) {
        if (!kept)
            order_by_use(m, m->kids + f->kids, f->nkids);
    } else if (f->nkids > 1 && m->pol.order
               && m->pol.order(m->pol.arg, g, v, m->kids + f->kids, f->nkids) < 0) {
        m->hook_failed = 1;
        return -1;
    }
    return 0;
}

static int iter_begin(grove_matcher_t *m, struct iter *it, grove_vid_t root, bool include_root)
{
    it->frame_base = m->nframes;
    it->kid_base = m->nkids;
    it->root = root;
    it->root_pending = include_root;
    it->started = false;
    it->need = 0;
    return 0;
}

static void iter_end(grove_matcher_t *m, const struct iter *it)
{
    m->nframes = it->frame_base;
    m->nkids = it->kid_base;
}

/* Is t the type of another request of r's list?  A vertex of that type
 * is that request's candidate: the search for r does not walk through it
 * (a slot of power and a node takes its power beside the node, not the
 * node's own). */
static bool sibling_type(const struct req *r, grove_sym_t t)
{
    for (const struct req *q = r->sibs; q; q = q->next)
        if (q != r && !q->slot && q->type == t)
            return true;
    return false;
}

/* Next vertex of the requested type below the root (or the root itself),
 * GROVE_VID_NONE at the end, or GROVE_VID_NONE with *failed set. */
static grove_vid_t iter_next(grove_matcher_t *m, struct iter *it, const struct req *r,
                             int *failed)
{
    const grove_graph_t *g = m->g;
    if (!it->started) {
        it->started = true;
        if (it->root_pending) {
            /* the top of the graph: a candidate itself, or walked through */
            it->root_pending = false;
            if (g->v[it->root].type == r->type)
                return it->root;
            if (!enterable(m, it->root) || !agg_fits(m, it->root, r->need1))
                return GROVE_VID_NONE;
        }
        /* below a candidate that take() already vetted (and may hold
         * exclusively: its inside is ours to search) */
        if (push_frame(m, it->root) < 0)
            goto fail;
    }
    while (m->nframes > it->frame_base) {
        struct frame *f = &m->frames[m->nframes - 1];
        if (f->next >= f->nkids) {
            m->nkids = f->kids;
            m->nframes--;
            continue;
        }
        grove_vid_t k = m->kids[f->kids + f->next++];
        if (g->v[k].type == r->type)
            return k;
        if (sibling_type(r, g->v[k].type) || !enterable(m, k) || !agg_fits(m, k, r->need1))
            continue;
        if (m->pol.prune && grove_policy_applies(g, m->pol.prune_types, g->v[k].type)) {
            grove_policy_ctx_t ctx = {r->type, it->need, m->start, m->end, &m->preq, r->js};
            int p = m->pol.prune(m->pol.arg, g, k, &ctx);
            if (p < 0) {
                m->hook_failed = 1;
                goto fail;
            }
            if (p > 0)
                continue;
        }
        if (push_frame(m, k) < 0)
            goto fail;
    }
    return GROVE_VID_NONE;
fail:
    *failed = 1;
    return GROVE_VID_NONE;
}

/* iter_next when the next child in the current frame is a candidate (the
 * cores of a socket, one after the other): no call, no walk. */
static inline grove_vid_t iter_step(grove_matcher_t *m, struct iter *it, const struct req *r,
                                    int *failed)
{
    if (it->started && m->nframes > it->frame_base) {
        struct frame *f = &m->frames[m->nframes - 1];
        if (f->next < f->nkids) {
            grove_vid_t k = m->kids[f->kids + f->next];
            if (m->g->v[k].type == r->type) {
                f->next++;
                return k;
            }
        }
    }
    return iter_next(m, it, r, failed);
}

/* ---- matching ---------------------------------------------------------------- */

static int match_list(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top);

/* Mark v's ancestors touched by this match (touch_up). */
static int touch_above(grove_matcher_t *m, grove_vid_t v)
{
    for (grove_vid_t a = m->par[v]; a != GROVEP_NONE; a = m->par[a]) {
        uint8_t f = flags_of(m, a);
        if (f & M_TOUCH)
            break; /* everything above is already marked */
        if (set_state(m, a, taken_of(m, a), f | M_TOUCH) < 0)
            return -1;
    }
    return 0;
}

/* Mark v and its ancestors touched by this match: the cores of a socket
 * find their parent marked already, in a step. */
static inline int touch_up(grove_matcher_t *m, grove_vid_t v)
{
    grove_vid_t a = m->par[v];
    if (a == GROVEP_NONE || (flags_of(m, a) & M_TOUCH))
        return 0;
    return touch_above(m, v);
}

/* What take() checks before it takes anything: c's own state, its
 * aggregate, the policy's prune, this match's flags and other jobs'
 * exclusive holds; nothing below c is walked.  1 passes, 0 not, -1 error
 * (hook).  *excl: c would be taken exclusively; *clean_out (may be NULL):
 * nothing below c has records, so its inside need not be asked about. */
static int take_check(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                      uint64_t need, bool *excl_out, bool *clean_out)
{
    const grove_graph_t *g = m->g;
    /* written `exclusive: false` (inside a slot too): only the units asked
     * for; what lies below still inherits the slot's exclusivity */
    bool inherit = r->excl || pexcl;
    bool excl = inherit && !r->not_excl;
    bool nodex = m->pol.node_exclusive && g->v[c].type == m->node_sym;
    if (nodex)
        excl = true;
    *excl_out = excl;
    /* the aggregate of a candidate matters for what lies below it; a leaf
     * request is decided by the candidate's own records */
    if (!up(m, c) || !constraint_ok(m, c) || (r->child && !agg_fits(m, c, r->need1)))
        return 0;
    if (m->pol.prune && grove_policy_applies(g, m->pol.prune_types, g->v[c].type)) {
        /* the policy may rule out a candidate as it rules out a subtree */
        grove_policy_ctx_t ctx = {r->type, need, m->start, m->end, &m->preq, r->js};
        int p = m->pol.prune(m->pol.arg, g, c, &ctx);
        if (p < 0) {
            m->hook_failed = 1;
            return -1;
        }
        if (p > 0)
            return 0;
    }
    uint8_t f = flags_of(m, c);
    if (f & M_EXCL)
        return 0;
    /* a record below a vertex annotates it (the containment tree), so
     * below a clean exclusive pick nothing has records: its inside is not
     * asked about again, vertex by vertex (a whole node of 53 vertices is
     * one question) */
    grove_vid_t tp = g->parent[c];
    bool clean = excl && tp != GROVEP_NONE && (flags_of(m, tp) & M_CLEAN);
    if (excl) {
        if (f || taken_of(m, c) || (!clean && touched(m, c)))
            return 0;
        clean = true; /* untouched: nothing below it is either */
    } else if (held_excl(m, c)) {
        return 0;
    }
    if (clean_out)
        *clean_out = clean;
    return 1;
}

/* Try to take candidate c for request r (children included): at most
 * remaining units of a leaf pool; need is what the level still needs (what
 * prune is told).  Returns the units it counts for (> 0), 0 when it does
 * not fit, -1 on error. */
static int64_t take(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                    uint64_t remaining, uint64_t need)
{
    const grove_graph_t *g = m->g;
    bool inherit = r->excl || pexcl, excl, clean;
    int ok = take_check(m, r, c, pexcl, need, &excl, &clean);
    if (ok <= 0)
        return ok;
    uint8_t f = flags_of(m, c);
    struct checkpoint cp = checkpoint(m);
    int64_t units;
    if (!r->child) {
        if (excl) {
            /* untouched by others (checked above) and by this match: the
             * whole pool is free, no need to ask its planner again */
            if (g->v[c].size == 0)
                return 0;
            units = g->v[c].size;
        } else {
            int64_t avail = free_units(m, c);
            if (avail <= 0)
                return 0;
            units = (uint64_t)avail < remaining ? avail : (int64_t)remaining;
        }
        if (set_state(m, c, taken_of(m, c) + units,
                      f | M_TOUCH | M_PICK | (excl ? M_EXCL : 0) | (clean ? M_CLEAN : 0))
                < 0
            || add_pick(m, c, units, excl, true) < 0 || touch_up(m, c) < 0)
            return -1;
        return units;
    }
    uint8_t nf = f | M_TOUCH | M_PICK | (excl ? M_EXCL : 0) | (r->whole ? M_WHOLE : 0)
                 | (clean ? M_CLEAN : 0);
    if (set_state(m, c, taken_of(m, c), nf) < 0 || add_pick(m, c, 1, excl, false) < 0
        || touch_up(m, c) < 0)
        return -1;
    for (const struct req *ch = r->child; ch; ch = ch->next) {
        int rc = match_list(m, ch, c, excl || inherit, false);
        if (rc <= 0) {
            rollback(m, cp);
            return rc;
        }
    }
    return 1;
}

static bool at_or_below_node(const grove_matcher_t *m, grove_vid_t w)
{
    if (m->node_sym == GROVE_SYM_NONE)
        return true; /* a graph without nodes: no such limit */
    for (grove_vid_t a = w; a != GROVEP_NONE; a = m->par[a])
        if (m->g->v[a].type == m->node_sym)
            return true;
    return false;
}

/* The requests of slot r below w, all or nothing: 1, 0 (nothing of them
 * stays taken), -1. */
static int slot_children(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl)
{
    struct checkpoint cp = checkpoint(m);
    for (const struct req *ch = r->child; ch; ch = ch->next) {
        int rc = match_list(m, ch, w, excl, false);
        if (rc <= 0) {
            rollback(m, cp);
            return rc;
        }
    }
    return 1;
}

/* Has w a child in the walked subsystem? */
static bool has_kids(const grove_matcher_t *m, grove_vid_t w)
{
    const grove_graph_t *g = m->g;
    if (m->tk)
        return m->tkoff[w + 1] > m->tkoff[w];
    for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out)
        if (g->e[e].sub == m->dom_sub && !(g->e[e].flags & GROVEP_E_UP))
            return true;
    return false;
}

/* The children of w in the walk's order, pushed as a frame: m->kids[first
 * .. first + n); kids_end pops it. */
struct kids {
    size_t fbase, kbase;
    uint32_t first, n;
};

static int kids_begin(grove_matcher_t *m, grove_vid_t w, struct kids *k)
{
    k->fbase = m->nframes;
    k->kbase = m->nkids;
    if (push_frame(m, w) < 0)
        return -1;
    k->first = m->frames[k->fbase].kids;
    k->n = m->frames[k->fbase].nkids;
    return 0;
}

static void kids_end(grove_matcher_t *m, const struct kids *k)
{
    m->nframes = k->fbase;
    m->nkids = k->kbase;
}

/* Place one slot below u: the slot's resources all come from one subtree,
 * the deepest that can hold them (post-order: children before parents), so
 * a slot of cores and memory lands in one socket when one socket has
 * enough.  1 placed, 0 not, -1 error. */
static int slot_home(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl,
                     bool is_root)
{
    if ((!is_root && !enterable(m, w)) || !agg_fits(m, w, r->need1))
        return 0;
    if (!is_root && m->pol.prune
        && grove_policy_applies(m->g, m->pol.prune_types, m->g->v[w].type)) {
        grove_policy_ctx_t ctx = {GROVE_SYM_NONE, 0, m->start, m->end, &m->preq, r->js};
        int p = m->pol.prune(m->pol.arg, m->g, w, &ctx);
        if (p < 0) {
            m->hook_failed = 1;
            return -1;
        }
        if (p > 0)
            return 0;
    }
    size_t fbase = m->nframes, kbase = m->nkids;
    if (push_frame(m, w) < 0)
        return -1;
    uint32_t first = m->frames[fbase].kids, n = m->frames[fbase].nkids;
    for (uint32_t i = 0; i < n; i++) {
        grove_vid_t k = m->kids[first + i];
        /* a leaf holds no slot: unless a prune hook is to be asked about
         * it (and may fail), its answer is 0 without a look at it (a
         * whole machine has a million leaves below its sockets) */
        if (!has_kids(m, k)
            && !(m->pol.prune && grove_policy_applies(m->g, m->pol.prune_types, m->g->v[k].type)))
            continue;
        int rc = slot_home(m, r, k, excl, false);
        if (rc != 0) {
            m->nframes = fbase;
            m->nkids = kbase;
            return rc;
        }
    }
    m->nframes = fbase;
    m->nkids = kbase;
    if (n == 0)
        return 0; /* a leaf holds nothing below it */
    /* a slot is where one task runs: it stays within one node unless it
     * asks for nodes itself */
    if (!r->free_span && !at_or_below_node(m, w))
        return 0;
    return slot_children(m, r, w, excl);
}

/* Take up to `want` slots below u, each placed anew.  Returns how many were
 * taken, or -1.  per[i] (when given) records the checkpoint after i slots. */
static int64_t take_slots(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                          uint64_t want, struct checkpoint *per, size_t nper)
{
    bool excl = r->excl || pexcl;
    int64_t got = 0;
    while ((uint64_t)got < want) {
        int rc = slot_home(m, r, u, excl, true);
        if (rc < 0)
            return -1;
        if (rc == 0)
            break;
        got++;
        if (per && (size_t)got < nper)
            per[got] = checkpoint(m);
    }
    return got;
}

/* ---- slots compared by their ids ------------------------------------------------- */

/* Under a policy that orders by id (low, high and their node variants), a
 * fixed number of slots is chosen as the reference engine chooses them:
 * every vertex below u that has a direct child of each type the slot asks
 * for is a home; each home places as many slots as fit, each scored by the
 * ids (+ 1) of the vertices it took directly below the home; the best
 * scores win, across homes (the lowest sums under low, the highest under
 * high; ties in graph order).  So under low a second job of one slot of
 * cores goes to core0 of the next node, not to core8 of the first, and in
 * power distribution jobs spread over homes whose ids start again (power
 * units numbered per pdu).  A node-centric policy (lonode, hinode) adds to
 * each vertex taken the id of its node, weighted above any sum of ids
 * (NODE_WEIGHT), so a job keeps to the lowest (highest) nodes first. */

/* How many homes (sockets, say) slots are chosen by id among in
 * containment; with more, they are placed depth-first (see
 * take_slots_by_id).  The corpus's machines have at most 16. */
#define SLOT_HOMES_MAX 64

/* How many direct children the homes may have in all for every slot of
 * every home to be listed and ranked as the reference engine ranks them
 * (listing them costs a placement each); with more, each lists as many as
 * the request asks for.  The corpus's machines have at most 320. */
#define SLOT_LIST_MAX 512

/* The reference engine's weight of a node's id in a node-centric score:
 * (id + 2) * 10000 per vertex taken below the node. */
#define NODE_WEIGHT 10000.0

struct slotc {
    double score;
    size_t home, k; /* the k-th slot of homes[home] */
    grove_vid_t hv; /* that home: slots are listed in graph order, by vertex
                     * id, as the reference engine explores in graph order
                     * whatever the policy */
};

/* +1 when the policy puts lower ids first, -1 higher, 0 when it does not
 * order by id: asked of its order hook on two vertices of one type with
 * different ids (a, b with id(a) < id(b)). */
static int id_direction(grove_matcher_t *m, grove_vid_t a, grove_vid_t b)
{
    if (!m->pol.order)
        return 0;
    grove_vid_t k[2] = {b, a};
    if (m->pol.order(m->pol.arg, m->g, grove_vertex_parent(m->g, a, dom_sym(m)), k, 2) < 0) {
        m->hook_failed = 1;
        return -2;
    }
    return k[0] == a ? 1 : -1;
}

/* Does w have a direct child (walked subsystem) of each type slot r asks
 * for (of one of its alternatives, for or-slots)? */
static bool slot_home_of(const grove_matcher_t *m, const struct req *r, grove_vid_t w)
{
    const grove_graph_t *g = m->g;
    for (const struct req *a = r; a; a = a->alt) {
        bool all = true;
        for (const struct req *c = a->child; c && all; c = c->next) {
            bool found = false;
            for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE && !found && !c->slot;
                 e = g->e[e].next_out)
                found = g->e[e].sub == m->dom_sub
                        && !(g->e[e].flags & (GROVEP_E_UP | GROVEP_E_DEAD))
                        && g->v[g->e[e].dst].type == c->type;
            all = found;
        }
        if (all)
            return true;
    }
    return false;
}

/* ---- or-slots ------------------------------------------------------------------- */

/* At one home the or-slots are chosen as the reference engine chooses
 * them: from the free units of each type among the home's direct
 * children, each next slot takes the first alternative that lets the most
 * slots in all be placed (at most the want still missing).  The types an
 * or-group may ask for directly below a home, at most OR_TYPES. */
#define OR_TYPES 8
#define OR_MEMO 4096
#define OR_DEPTH 64

struct orplan {
    size_t nalt, nt;
    const struct req *alt[OR_TYPES];   /* the alternatives, at most OR_TYPES */
    grove_sym_t type[OR_TYPES];
    int64_t need[OR_TYPES][OR_TYPES]; /* [alternative][type] units */
    struct {
        int64_t c[OR_TYPES];
        int64_t depth, best;
        int first;
    } memo[OR_MEMO];
    size_t nmemo;
};

/* The most slots (at most depth) counts c let be placed; *first the
 * alternative that starts such a choice, the first on ties (-1: none). */
static int64_t or_best(struct orplan *p, const int64_t *c, int64_t depth, int *first)
{
    *first = -1;
    if (depth == 0)
        return 0;
    for (size_t i = 0; i < p->nmemo; i++)
        if (p->memo[i].depth == depth && !memcmp(p->memo[i].c, c, sizeof(p->memo[i].c))) {
            *first = p->memo[i].first;
            return p->memo[i].best;
        }
    int64_t best = 0;
    for (size_t a = 0; a < p->nalt; a++) {
        int64_t next[OR_TYPES];
        bool fits = true;
        for (size_t t = 0; t < OR_TYPES; t++) {
            next[t] = c[t] - (t < p->nt ? p->need[a][t] : 0);
            fits = fits && next[t] >= 0;
        }
        if (!fits)
            continue;
        int dummy;
        int64_t got = 1 + or_best(p, next, depth - 1, &dummy);
        if (got > best) {
            best = got;
            *first = (int)a;
        }
    }
    if (p->nmemo < OR_MEMO) {
        memcpy(p->memo[p->nmemo].c, c, sizeof(p->memo[p->nmemo].c));
        p->memo[p->nmemo].depth = depth;
        p->memo[p->nmemo].best = best;
        p->memo[p->nmemo++].first = *first;
    }
    return best;
}

/* The alternatives of the slots of or-group r that home w holds, in the
 * order they are placed, at most limit, into *seq (*cap grown as needed,
 * *nseq of them): the reference engine plans the most slots the home's
 * free units allow, whatever the request's count.  0; 1 when the plan
 * cannot hold r (more alternatives or types than OR_TYPES, nested slots);
 * -1 (ENOMEM). */
static int or_sequence(grove_matcher_t *m, const struct req *r, grove_vid_t w, size_t limit,
                       const struct req ***seq, size_t *cap, size_t *nseq)
{
    if (!m->orplan && !(m->orplan = calloc(1, sizeof(*m->orplan))))
        return -1;
    struct orplan *p = m->orplan;
    *nseq = 0;
    p->nalt = p->nt = 0;
    p->nmemo = 0;
    memset(p->need, 0, sizeof(p->need));
    for (const struct req *a = r; a; a = a->alt) {
        if (p->nalt == OR_TYPES)
            return 1;
        for (const struct req *c = a->child; c; c = c->next) {
            if (c->slot)
                return 1;
            size_t t = 0;
            while (t < p->nt && p->type[t] != c->type)
                t++;
            if (t == p->nt) {
                if (p->nt == OR_TYPES)
                    return 1;
                p->type[p->nt++] = c->type;
            }
            p->need[p->nalt][t] += (int64_t)c->count->min;
        }
        p->alt[p->nalt++] = a;
    }
    int64_t c[OR_TYPES] = {0};
    const grove_graph_t *g = m->g;
    for (grove_eid_t e = g->first_out[w]; e != GROVEP_NONE; e = g->e[e].next_out) {
        grove_vid_t v = g->e[e].dst;
        if (g->e[e].sub != m->dom_sub || (g->e[e].flags & (GROVEP_E_UP | GROVEP_E_DEAD))
            || !enterable(m, v))
            continue;
        for (size_t t = 0; t < p->nt; t++)
            if (g->v[v].type == p->type[t])
                c[t] += free_units(m, v);
    }
    for (size_t t = 0; t < p->nt; t++)
        if (p->type[t] == GROVE_SYM_NONE)
            c[t] = 0; /* a type the graph lacks: no alternative asking for it fits */
    while (*nseq < limit) {
        int a;
        /* the lookahead stops at OR_DEPTH slots: ties beyond it go to the
         * first alternative */
        if (or_best(p, c, OR_DEPTH, &a) == 0 || a < 0)
            break;
        if (grovep_grow((void **)seq, cap, *nseq + 1, sizeof(**seq)) < 0)
            return -1;
        (*seq)[(*nseq)++] = p->alt[a];
        for (size_t t = 0; t < p->nt; t++)
            c[t] -= p->need[a][t];
    }
    return 0;
}

/* The homes below u (u included), in visiting order, into *hv (*nh; the
 * caller frees); a home is not searched below.  0, -1, or 1 when there are
 * more than max (0: no limit; the walk stops there). */
static int slot_homes(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool top,
                      grove_vid_t **hv, size_t *nh, size_t *cap, size_t max)
{
    if (!top && !enterable(m, w))
        return 0;
    if (slot_home_of(m, r, w)) {
        if (max && *nh == max)
            return 1;
        if (grovep_grow((void **)hv, cap, *nh + 1, sizeof(**hv)) < 0)
            return -1;
        (*hv)[(*nh)++] = w;
        return 0;
    }
    struct kids k;
    if (kids_begin(m, w, &k) < 0)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < k.n && rc == 0; i++)
        rc = slot_homes(m, r, m->kids[k.first + i], false, hv, nh, cap, max);
    kids_end(m, &k);
    return rc;
}

/* One slot of r at home w: 1 placed (its score in *score), 0 not, -1.
 * The score is the reference engine's: each vertex taken directly below
 * the home counts its id + 2 (its own score, id + 1, above the score of
 * a met match, 1), so of two or-slot shapes the one of more vertices
 * ranks higher on equal ids. */
static int slot_at(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl,
                   double *score)
{
    size_t first = m->nsel;
    int rc = slot_children(m, r, w, excl);
    if (rc <= 0)
        return rc;
    double node = 0;
    if (m->pol.node_centric && m->node_sym != GROVE_SYM_NONE)
        for (grove_vid_t a = w; a != GROVEP_NONE; a = m->par[a])
            if (m->g->v[a].type == m->node_sym) {
                node = ((double)grove_vertex_id(m->g, a) + 2) * NODE_WEIGHT;
                break;
            }
    *score = 0;
    for (size_t i = first; i < m->nsel; i++)
        if (m->par[m->sel[i].v] == w)
            *score += (double)grove_vertex_id(m->g, m->sel[i].v) + 2 + node;
    return 1;
}

/* Homes in graph order (by vertex id): the order in which the reference
 * engine's depth-first walk lists their slots before ranking them. */
struct homeo {
    grove_vid_t v;
    size_t h;
};

static int cmp_home(const void *a, const void *b)
{
    grove_vid_t x = ((const struct homeo *)a)->v, y = ((const struct homeo *)b)->v;
    return (x > y) - (x < y);
}

/* The plan of at most limit slots of r at home w: for or-slots their
 * alternatives (or_sequence) into *seq (*cap), *nseq of them; for a plain
 * slot r every time, *nseq limit.  0, 1 (or-slots it cannot plan), -1. */
static int home_shapes(grove_matcher_t *m, const struct req *r, grove_vid_t w, size_t limit,
                       const struct req ***seq, size_t *cap, size_t *nseq)
{
    *nseq = 0;
    if (r->alt)
        return or_sequence(m, r, w, limit, seq, cap, nseq);
    *nseq = limit;
    return 0;
}

/* The shape of the k-th slot of a home planned by home_shapes, or NULL. */
static const struct req *home_shape(const struct req *r, const struct req **seq, size_t nseq,
                                    size_t k)
{
    return k >= nseq ? NULL : !r->alt ? r : seq[k];
}

static bool channeled_type(const grove_matcher_t *m, grove_sym_t t);

/* The node weight of the vertices taken directly below home w (slot_at). */
static double home_node_weight(const grove_matcher_t *m, grove_vid_t w)
{
    if (m->pol.node_centric && m->node_sym != GROVE_SYM_NONE)
        for (grove_vid_t a = w; a != GROVEP_NONE; a = m->par[a])
            if (m->g->v[a].type == m->node_sym)
                return ((double)grove_vertex_id(m->g, a) + 2) * NODE_WEIGHT;
    return 0;
}

/* The slots of plain slot r at home w, scored as slot_at would score them
 * one after the other, without placing them, when that can be told from
 * w's children alone: r asks only for fixed counts of leaves taken whole
 * (exclusively), w's children are all leaves, and no prune hook or
 * channeled pool is involved.  Each slot then takes, for each request,
 * the next free children of its type in the walk's order until it has the
 * count, as take_first does.  Appended to *cv (*cap) as home h, at most
 * limit: 1; 0 when it cannot be told so (nothing appended); -1. */
static int home_slots_quick(grove_matcher_t *m, const struct req *r, grove_vid_t w, size_t h,
                            bool excl, int dir, size_t limit, struct slotc **cv, size_t *nc,
                            size_t *cap)
{
    enum { QUICK_REQS = 8 };
    const grove_graph_t *g = m->g;
    const struct req *cr[QUICK_REQS];
    size_t nr = 0;
    if (r->alt || m->pol.prune)
        return 0;
    for (const struct req *c = r->child; c; c = c->next) {
        if (nr == QUICK_REQS || c->child || c->slot || c->type == GROVE_SYM_NONE
            || c->count->kind != GROVE_COUNT_FIXED || channeled_type(m, c->type))
            return 0;
        for (size_t i = 0; i < nr; i++)
            if (cr[i]->type == c->type)
                return 0; /* two requests share the children of a type */
        cr[nr++] = c;
    }
    if (nr == 0)
        return 0;
    struct kids kk;
    if (kids_begin(m, w, &kk) < 0)
        return -1;
    uint32_t first = kk.first, n = kk.n;
    int rc = 1;
    /* the free children of each request's type, in the walk's order:
     * pos[i] the next unused of request i */
    size_t pos[QUICK_REQS] = {0};
    for (uint32_t i = 0; i < n && rc == 1; i++) {
        grove_vid_t k = m->kids[first + i];
        if (has_kids(m, k))
            rc = 0;
    }
    double node = home_node_weight(m, w);
    for (size_t k = 0; rc == 1 && k < limit; k++) {
        double sc = 0;
        bool fits = true;
        for (size_t i = 0; i < nr && fits && rc == 1; i++) {
            int64_t got = 0, want = (int64_t)cr[i]->count->min;
            while (got < want && pos[i] < n) {
                grove_vid_t v = m->kids[first + pos[i]++];
                if (g->v[v].type != cr[i]->type)
                    continue;
                bool ex;
                int ok = take_check(m, cr[i], v, excl, (uint64_t)(want - got), &ex, NULL);
                if (ok < 0 || (ok == 1 && !ex)) {
                    rc = ok < 0 ? -1 : 0; /* units shared: not told this way */
                    break;
                }
                if (ok == 0 || flags_of(m, v) || taken_of(m, v) || g->v[v].size == 0)
                    continue;
                got += g->v[v].size;
                sc += (double)grove_vertex_id(g, v) + 2 + node;
            }
            fits = got >= want;
        }
        if (rc != 1 || !fits)
            break;
        if (grovep_grow((void **)cv, cap, *nc + 1, sizeof(**cv)) < 0) {
            rc = -1;
            break;
        }
        (*cv)[(*nc)++] = (struct slotc){dir * sc, h, k, w};
    }
    kids_end(m, &kk);
    return rc;
}

/* The slots each home can hold, at most limit a home (the reference
 * engine lists as many as fit, whatever the count asked for), scored,
 * homes in graph order (what was taken rolled back).  0, 1 (or-slots it
 * cannot plan), -1. */
static int slot_candidates(grove_matcher_t *m, const struct req *r, const grove_vid_t *hv,
                           size_t nh, bool excl, int dir, size_t limit, struct slotc **cv,
                           size_t *nc, const struct req ***seq, size_t *seqcap)
{
    size_t cap = 0;
    struct homeo *order = malloc(nh * sizeof(*order));
    if (!order)
        return -1;
    for (size_t h = 0; h < nh; h++)
        order[h] = (struct homeo){hv[h], h};
    qsort(order, nh, sizeof(*order), cmp_home);
    int rc = 0;
    for (size_t i = 0; i < nh && rc >= 0; i++) {
        size_t h = order[i].h;
        struct checkpoint cp = checkpoint(m);
        double sc;
        size_t nseq, nc0 = *nc;
        const struct req *shape;
        if ((rc = home_slots_quick(m, r, hv[h], h, excl, dir, limit, cv, nc, &cap)) != 0) {
            rc = rc < 0 ? -1 : 0;
            continue;
        }
        *nc = nc0;
        if ((rc = home_shapes(m, r, hv[h], limit, seq, seqcap, &nseq)) != 0)
            break;
        for (size_t k = 0; (shape = home_shape(r, *seq, nseq, k))
                           && (rc = slot_at(m, shape, hv[h], excl, &sc)) == 1;
             k++) {
            if (grovep_grow((void **)cv, &cap, *nc + 1, sizeof(**cv)) < 0) {
                rc = -1;
                break;
            }
            (*cv)[(*nc)++] = (struct slotc){dir * sc, h, k, hv[h]};
        }
        if (rc == 1)
            rc = 0; /* the plan ran out, or-slots */
        rollback(m, cp);
    }
    free(order);
    return rc < 0 ? -1 : rc;
}

/* What one slot changed at a vertex: units taken and flags added. */
struct slot_change {
    grove_vid_t v;
    int64_t taken;
    uint8_t flags;
};

/* Place at home w the slots whose positions in the home's plan are marked
 * in pick[0..kmax] (not a prefix: under or-slots a later slot of another
 * shape may rank above an earlier one).  A slot's resources depend on the
 * slots before it in the plan (each takes the next best children), so all
 * of them up to kmax are placed, what the marked ones changed is noted,
 * the lot rolled back and the noted changes made again: the others'
 * resources stay free, as in the reference engine, whose slots are fixed
 * groups of children of which it keeps the ranked ones.  1, 0 (nothing
 * stays taken), -1. */
static int place_marked(grove_matcher_t *m, const struct req *r, grove_vid_t w, bool excl,
                        const struct req **seq, size_t nseq, const bool *pick, size_t kmax)
{
    struct checkpoint cp = checkpoint(m);
    struct slot_change *ch = NULL;
    grove_pick_t *pk = NULL;
    size_t nch = 0, chcap = 0, npk = 0, pkcap = 0;
    int rc = 1;
    for (size_t k = 0; k <= kmax && rc == 1; k++) {
        const struct req *shape = home_shape(r, seq, nseq, k);
        size_t l0 = m->nlog, s0 = m->nsel, c0 = nch;
        double sc;
        rc = shape ? slot_at(m, shape, w, excl, &sc) : 0;
        if (rc != 1 || !pick[k])
            continue;
        for (size_t i = l0; i < m->nlog && rc == 1; i++) {
            const struct undo *u = &m->log[i];
            bool seen = false; /* the first entry of a vertex has its state before */
            for (size_t j = c0; j < nch && !seen; j++)
                seen = ch[j].v == u->v;
            if (seen)
                continue;
            if (grovep_grow((void **)&ch, &chcap, nch + 1, sizeof(*ch)) < 0) {
                rc = -1;
                break;
            }
            bool cur = (u->flags & UNDO_LIVE) != 0;
            int64_t t0 = cur ? u->taken : 0;
            uint8_t f0 = cur ? (uint8_t)u->flags : 0;
            ch[nch++] = (struct slot_change){u->v, taken_of(m, u->v) - t0,
                                             (uint8_t)(flags_of(m, u->v) & ~f0)};
        }
        for (size_t i = s0; i < m->nsel && rc == 1; i++) {
            if (grovep_grow((void **)&pk, &pkcap, npk + 1, sizeof(*pk)) < 0)
                rc = -1;
            else
                pk[npk++] = m->sel[i];
        }
    }
    rollback(m, cp);
    for (size_t j = 0; j < nch && rc == 1; j++)
        if (set_state(m, ch[j].v, taken_of(m, ch[j].v) + ch[j].taken,
                      flags_of(m, ch[j].v) | ch[j].flags)
            < 0)
            rc = -1;
    for (size_t i = 0; i < npk && rc == 1; i++)
        if (add_pick(m, pk[i].v, pk[i].amount, pk[i].exclusive, pk[i].leaf) < 0
            || touch_up(m, pk[i].v) < 0)
            rc = -1;
    if (rc != 1)
        rollback(m, cp);
    free(ch);
    free(pk);
    return rc;
}

/* Slots by score, then graph order (cv lists them in graph order). */
static int cmp_slot_idx(const void *a, const void *b, void *arg)
{
    const struct slotc *cv = arg, *x = &cv[*(const size_t *)a], *y = &cv[*(const size_t *)b];
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* How many times the reference engine ranks the slots of r: once for each
 * slot request of the list (the alternatives of an or-group), each on the
 * order the one before left. */
static size_t slot_rankings(const struct req *r)
{
    size_t n = 0;
    for (const struct req *a = r; a; a = a->alt)
        n++;
    return n;
}

/* The direction the policy gives ids among the homes hv (two of them with
 * different ids), or with one home and an or-group, among two of its
 * children of one type: as id_direction, 0 when nothing tells. */
static int homes_direction(grove_matcher_t *m, const struct req *r, const grove_vid_t *hv,
                           size_t nh)
{
    int dir = 0;
    for (size_t h = 0; h + 1 < nh && dir == 0; h++)
        if (grove_vertex_id(m->g, hv[h]) != grove_vertex_id(m->g, hv[h + 1]))
            dir = grove_vertex_id(m->g, hv[h]) < grove_vertex_id(m->g, hv[h + 1])
                      ? id_direction(m, hv[h], hv[h + 1])
                      : id_direction(m, hv[h + 1], hv[h]);
    /* one home: or-slot shapes are still ranked (the policy's direction
     * read off two of its children) */
    for (grove_eid_t e = nh == 1 && r->alt ? m->g->first_out[hv[0]] : GROVEP_NONE, f;
         e != GROVEP_NONE && dir == 0; e = m->g->e[e].next_out)
        for (f = m->g->e[e].next_out; f != GROVEP_NONE && dir == 0; f = m->g->e[f].next_out) {
            grove_vid_t a = m->g->e[e].dst, b = m->g->e[f].dst;
            int64_t ia = grove_vertex_id(m->g, a), ib = grove_vertex_id(m->g, b);
            if (m->g->e[e].sub == m->dom_sub && m->g->e[f].sub == m->dom_sub
                && !((m->g->e[e].flags | m->g->e[f].flags) & GROVEP_E_UP)
                && m->g->v[a].type == m->g->v[b].type && ia != ib)
                dir = ia < ib ? id_direction(m, a, b) : id_direction(m, b, a);
        }
    return dir;
}

/* Place the first want slots of the ranking idx (over the candidates cv of
 * the homes hv, planned with limit): each home places its chosen slots in
 * visiting order.  1 placed, 0 not (nothing taken), -1 error.  seq is the
 * caller's plan buffer. */
static int place_chosen(grove_matcher_t *m, const struct req *r, const grove_vid_t *hv, size_t nh,
                        bool excl, size_t limit, const struct slotc *cv, const size_t *idx,
                        uint64_t want, const struct req ***seq, size_t *seqcap)
{
    /* per[h] slots of home h, the last at position kmax[h] of its plan */
    size_t *per = calloc(nh, sizeof(*per)), *kmax = calloc(nh, sizeof(*kmax));
    if (!per || !kmax) {
        free(per);
        free(kmax);
        return -1;
    }
    for (size_t i = 0; i < want; i++) {
        const struct slotc *c = &cv[idx[i]];
        per[c->home]++;
        kmax[c->home] = c->k > kmax[c->home] ? c->k : kmax[c->home];
    }
    struct checkpoint cp = checkpoint(m);
    bool *pick = NULL;
    size_t pickcap = 0;
    int rc = 1;
    for (size_t h = 0; h < nh && rc == 1; h++) {
        double sc;
        size_t nseq = 0;
        const struct req *shape;
        if (!per[h])
            continue;
        /* the same plan as for the candidates */
        if (home_shapes(m, r, hv[h], limit, seq, seqcap, &nseq) != 0) {
            rc = -1; /* it planned this home before */
            break;
        }
        if (kmax[h] + 1 == per[h]) { /* its first ones */
            for (size_t k = 0; k < per[h] && rc == 1; k++)
                rc = (shape = home_shape(r, *seq, nseq, k)) ? slot_at(m, shape, hv[h], excl, &sc)
                                                           : 0;
            continue;
        }
        if (grovep_grow((void **)&pick, &pickcap, kmax[h] + 1, sizeof(*pick)) < 0) {
            rc = -1;
            break;
        }
        memset(pick, 0, (kmax[h] + 1) * sizeof(*pick));
        for (size_t i = 0; i < want; i++)
            if (cv[idx[i]].home == h)
                pick[cv[idx[i]].k] = true;
        rc = place_marked(m, r, hv[h], excl, *seq, nseq, pick, kmax[h]);
    }
    if (rc == 0)
        rollback(m, cp);
    free(per);
    free(kmax);
    free(pick);
    return rc;
}

/* want slots of r below u chosen by their ids (see above): 1 placed, 0
 * not (nothing taken), -1 error; 2 when the policy does not order by id or
 * nothing tells (the caller places them in visiting order). */
static int take_slots_by_id(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                            uint64_t want)
{
    grove_vid_t *hv = NULL;
    struct slotc *cv = NULL;
    const struct req **seq = NULL;
    size_t *idx = NULL;
    double *key = NULL;
    size_t nh = 0, hcap = 0, nc = 0, seqcap = 0;
    bool excl = r->excl || pexcl;
    int rc = -1, dir;
    if (!m->pol.order || !r->child) {
        rc = 2;
        goto out;
    }
    /* in containment, beyond SLOT_HOMES_MAX homes the slots keep the
     * depth-first placement: choosing by id looks at every home, the cost
     * of a walk of the machine per match */
    int hrc = slot_homes(m, r, u, true, &hv, &nh, &hcap,
                         m->dom_sub == m->g->containment ? SLOT_HOMES_MAX : 0);
    if (hrc < 0)
        goto out;
    if (hrc > 0) {
        rc = 2;
        goto out;
    }
    dir = homes_direction(m, r, hv, nh);
    if (dir == -2)
        goto out;
    if (dir == 0 || (nh < 2 && !r->alt)) {
        rc = 2;
        goto out;
    }
    /* every slot of every home when the homes are few and small, else
     * want of each (a home's first slots are its best: a plain slot takes
     * the next best children each time), ties then in graph order */
    size_t kids = 0;
    for (size_t h = 0; h < nh && kids <= SLOT_LIST_MAX; h++)
        for (grove_eid_t e = m->g->first_out[hv[h]]; e != GROVEP_NONE; e = m->g->e[e].next_out)
            kids += m->g->e[e].sub == m->dom_sub && !(m->g->e[e].flags & GROVEP_E_UP);
    bool every = kids <= SLOT_LIST_MAX;
    size_t limit = every ? SIZE_MAX : (size_t)want;
    /* the reference's flexible traverser plans a lone slot (no or-group)
     * up to its count at each home, not as many as fit */
    if (m->cfg.or_slots && !r->alt)
        limit = (size_t)want;
    int sc_rc = slot_candidates(m, r, hv, nh, excl, dir, limit, &cv, &nc, &seq, &seqcap);
    if (sc_rc != 0) {
        rc = sc_rc < 0 ? -1 : 2;
        goto out;
    }
    if (nc < want) {
        /* in containment a slot may still span the homes' children (cores
         * of two sockets of a node, docs/conformance.md): placed in
         * visiting order */
        rc = m->dom_sub == m->g->containment ? 2 : 0;
        goto out;
    }
    /* ranked as the reference engine ranks them, ties included (its sort
     * is not stable past 16 slots): with every slot listed, the same
     * order; else ties in graph order */
    if (!(idx = malloc(nc * sizeof(*idx))) || !(key = malloc(nc * sizeof(*key))))
        goto out;
    for (size_t i = 0; i < nc; i++) {
        idx[i] = i;
        key[i] = cv[i].score;
    }
    for (size_t n = every ? slot_rankings(r) : 0; n > 0; n--)
        grove_policy_ref_sort(idx, nc, key);
    if (!every)
        qsort_r(idx, nc, sizeof(*idx), cmp_slot_idx, cv);
    rc = place_chosen(m, r, hv, nh, excl, limit, cv, idx, want, &seq, &seqcap);
out:
    GROVEP_FREE_ALL(hv, cv, seq, idx, key);
    return rc;
}

/* ---- the top of a request ranked by id -------------------------------------------
 *
 * A request whose first level lies below the graph's root (sockets asked
 * for at the top, the levels above left out) is matched by the reference
 * engine against every vertex of that type in the graph: each that fits
 * is scored by its own id (+ 1, and under lonode/hinode the weight of its
 * node), the lot ranked by its sort, and the best taken.  The ids of the
 * levels walked through count for nothing: under high, of the sockets
 * numbered 0 and 1 in every node, node0's socket1 comes first (t3038:19),
 * where a walk that orders each level by id would reach node7's first. */

static int admit(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want, bool *sure);
static int trial(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want);

/* How many candidates the top level is ranked among in containment; with
 * more, the walk that orders each level by id places it.  The corpus's
 * largest machine has 8,640 sockets. */
#define TOP_RANK_MAX 16384

/* A candidate of the top level: its vertex, its key (lower first), and
 * whether a trial take verified it (admit). */
struct topc {
    grove_vid_t v;
    double key;
    bool sure;
};

static int cmp_topc_vid(const void *a, const void *b)
{
    grove_vid_t x = ((const struct topc *)a)->v, y = ((const struct topc *)b)->v;
    return (x > y) - (x < y);
}

/* The key of top-level candidate c under direction dir (see slot_at). */
static double top_key(const grove_matcher_t *m, grove_vid_t c, int dir)
{
    double node = 0;
    if (m->pol.node_centric && m->node_sym != GROVE_SYM_NONE)
        for (grove_vid_t a = m->par[c]; a != GROVEP_NONE; a = m->par[a])
            if (m->g->v[a].type == m->node_sym) {
                node = ((double)grove_vertex_id(m->g, a) + 2) * NODE_WEIGHT;
                break;
            }
    return dir * ((double)grove_vertex_id(m->g, c) + 1 + node);
}

/* Rank the n candidates cv (graph order) into idx, take the first want
 * of them: 1 taken, 0 not (nothing taken), 2 an admitted candidate did not
 * fit (nothing taken), -1. */
static int top_take_ranked(grove_matcher_t *m, const struct req *r, bool pexcl, uint64_t want,
                           const struct topc *cv, size_t n, size_t *idx, double *key)
{
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        key[i] = cv[i].key;
    }
    grove_policy_ref_sort(idx, n, key);
    struct checkpoint cp = checkpoint(m);
    uint64_t got = 0;
    int rc = 1;
    for (size_t i = 0; i < n && got < want && rc == 1; i++) {
        size_t fsave = m->nframes, ksave = m->nkids;
        int64_t t = take(m, r, cv[idx[i]].v, pexcl, 1, want - got);
        m->nframes = fsave;
        m->nkids = ksave;
        if (t < 0)
            rc = -1;
        else if (t == 0 && !cv[idx[i]].sure)
            rc = 2;
        got += t > 0 ? (uint64_t)t : 0;
    }
    if (rc == 1 && got < want)
        rc = 0;
    if (rc != 1)
        rollback(m, cp);
    return rc;
}

/* want vertices of top-level request r below u, ranked as above: 1 taken,
 * 0 not (nothing taken), -1 error; 2 when the walk that orders each level
 * by id gives the same (the candidates' keys already ascend in visiting
 * order, or they are u's own children), when the policy does not order by
 * id, for nodes (their ids do not repeat across a machine: the walk's
 * order is the ranking, and a node request, the usual one, pays no more),
 * or beyond TOP_RANK_MAX candidates in containment.  Candidates are
 * admitted on their aggregates (admit); when one of those ranked first
 * does not fit, all are verified by a trial take and ranked again, so the
 * ranking is among those that fit, as the reference engine's. */
static int take_top_by_id(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                          uint64_t want)
{
    struct topc *cv = NULL;
    size_t nc = 0, cap = 0, *idx = NULL;
    double *key = NULL;
    int rc = 2, failed = 0;
    size_t max = m->dom_sub == m->g->containment ? TOP_RANK_MAX : 0;
    bool below = false; /* a candidate lies below a level walked through */
    if (r->type == m->node_sym)
        return 2;
    struct iter it;
    iter_begin(m, &it, u, true);
    it.need = want;
    grove_vid_t c;
    while ((c = iter_next(m, &it, r, &failed)) != GROVE_VID_NONE) {
        if (max && nc == max) {
            iter_end(m, &it);
            goto out;
        }
        if (grovep_grow((void **)&cv, &cap, nc + 1, sizeof(*cv)) < 0) {
            failed = 1;
            break;
        }
        cv[nc++] = (struct topc){c, 0, false};
        below = below || (c != u && m->par[c] != u);
    }
    iter_end(m, &it);
    if (failed) {
        rc = -1;
        goto out;
    }
    if (!below || nc < 2)
        goto out;
    int dir = 0;
    for (size_t i = 0; i + 1 < nc && dir == 0; i++) {
        int64_t a = grove_vertex_id(m->g, cv[i].v), b = grove_vertex_id(m->g, cv[i + 1].v);
        if (a != b)
            dir = a < b ? id_direction(m, cv[i].v, cv[i + 1].v)
                        : id_direction(m, cv[i + 1].v, cv[i].v);
    }
    if (dir == -2) {
        rc = -1;
        goto out;
    }
    bool ascending = true;
    for (size_t i = 0; i < nc; i++) {
        cv[i].key = top_key(m, cv[i].v, dir ? dir : 1);
        ascending = ascending && (i == 0 || cv[i - 1].key < cv[i].key);
    }
    if (ascending || dir == 0)
        goto out; /* the walk's order is the ranking (all equal: not ordered by id) */
    /* those admitted, in graph order, ranked */
    size_t n = 0;
    for (size_t i = 0; i < nc; i++) {
        int ok = admit(m, r, cv[i].v, pexcl, want, &cv[i].sure);
        if (ok < 0) {
            rc = -1;
            goto out;
        }
        if (ok)
            cv[n++] = cv[i];
    }
    qsort(cv, n, sizeof(*cv), cmp_topc_vid);
    if (!(idx = malloc((n ? n : 1) * sizeof(*idx))) || !(key = malloc((n ? n : 1) * sizeof(*key)))) {
        rc = -1;
        goto out;
    }
    rc = top_take_ranked(m, r, pexcl, want, cv, n, idx, key);
    if (rc == 2) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            int ok = cv[i].sure ? 1 : trial(m, r, cv[i].v, pexcl, want);
            if (ok < 0) {
                rc = -1;
                goto out;
            }
            if (ok) {
                cv[k] = cv[i];
                cv[k++].sure = true;
            }
        }
        rc = top_take_ranked(m, r, pexcl, want, cv, k, idx, key);
    }
out:
    GROVEP_FREE_ALL(cv, idx, key);
    return rc;
}

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The commonest candidates of a whole machine are taken in a few steps: a
 * pool asked for by a leaf request held exclusively, with no prune hook
 * (clean_leaf_request), below a clean exclusive pick (the cores of a slot
 * in a node held whole; take_clean_leaf). */
static inline bool clean_leaf_request(const grove_matcher_t *m, const struct req *r, bool pexcl)
{
    return !r->child && (r->excl || pexcl) && !r->not_excl && !m->pol.prune;
}

/* take() of candidate c of a request that passed clean_leaf_request: what
 * take_check and take would find: the units taken (> 0), 0 when it does
 * not fit, -1 on error; -2 when c's parent is not a clean pick (take()
 * decides). */
static inline int64_t take_clean_leaf(grove_matcher_t *m, grove_vid_t c)
{
    const grove_graph_t *g = m->g;
    grove_vid_t tp = g->parent[c];
    if (tp == GROVEP_NONE || !(flags_of(m, tp) & M_CLEAN))
        return -2;
    if (!up(m, c) || !constraint_ok(m, c))
        return 0;
    /* below a clean pick no other job has records: only this match's own
     * state and the pool's size decide */
    int64_t units = g->v[c].size;
    if (flags_of(m, c) || taken_of(m, c) || units == 0)
        return 0;
    if (set_whole(m, c, M_TOUCH | M_PICK | M_EXCL | M_CLEAN) < 0
        || add_pick(m, c, units, true, true) < 0 || touch_up(m, c) < 0)
        return -1;
    return units;
}

/* Take candidates in visiting order until `want` is reached (units for
 * leaf pools, vertices otherwise).  *got receives what was taken.  0, or
 * -1 on error (what was taken stays: the caller rolls back). */
static int take_first(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top, uint64_t want, uint64_t *got)
{
    struct iter it;
    iter_begin(m, &it, u, top);
    int failed = 0;
    bool leaf = r->child == NULL, clean_leaf = clean_leaf_request(m, r, pexcl);
    grove_vid_t c;
    *got = 0;
    while (*got < want && ((it.need = want - *got), (c = iter_step(m, &it, r, &failed)))
                              != GROVE_VID_NONE) {
        size_t fsave = m->nframes, ksave = m->nkids;
        int64_t n = clean_leaf ? take_clean_leaf(m, c) : -2;
        if (n == -2)
            n = take(m, r, c, pexcl, leaf ? want - *got : 1, want - *got);
        /* take() walks below c with iterators of its own, ended by now */
        m->nframes = fsave;
        m->nkids = ksave;
        if (n < 0) {
            failed = 1;
            break;
        }
        *got += (uint64_t)n;
    }
    iter_end(m, &it);
    return failed ? -1 : 0;
}

/* ---- select-best ------------------------------------------------------------
 *
 * take_best finds every candidate of a level that fits, lets the policy
 * score and choose among them, and takes the chosen.  Finding out whether
 * a candidate fits by taking it (and its children) and rolling back costs
 * a walk of its subtree: at 4,096 nodes, 4,096 such walks a match.  So a
 * candidate whose aggregate speaks for its subtree is admitted on what
 * take_check sees without walking (its status, constraint, aggregate for
 * the window, prune, holds), and only the chosen ones are verified, by
 * taking them.  When a chosen candidate admitted that way does not fit
 * (what the aggregates do not count: a socket too few, a down core, units
 * free at different times), the policy must not have chosen among
 * candidates that do not fit: every admitted candidate is then verified
 * and the policy asked again, as if all had been verified from the start.
 */

/* Trial take of c (undone at once): 1 fits, 0 not, -1 error. */
static int trial(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want)
{
    struct checkpoint cp = checkpoint(m);
    size_t fsave = m->nframes, ksave = m->nkids;
    int64_t n = take(m, r, c, pexcl, r->child ? 1 : UINT64_MAX, want);
    /* take() walks below c with iterators of its own, ended by now */
    m->nframes = fsave;
    m->nkids = ksave;
    if (n < 0)
        return -1;
    rollback(m, cp);
    return n > 0;
}

/* Does c fit r, as far as can be told without walking below it?  1 yes
 * (*sure when verified by a trial take), 0 no, -1 error.  Only a fixed
 * count may leave candidates unverified: a range takes as many as fit, so
 * it needs their number. */
static int admit(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                 uint64_t want, bool *sure)
{
    const grove_graph_t *g = m->g;
    /* the aggregates count other jobs' records only: below a vertex this
     * match already took from, only a trial tells */
    if (r->child && r->count->kind == GROVE_COUNT_FIXED && g->naggs
        && m->dom_sub == g->containment && grovep_agg_of(g, c) && !(flags_of(m, c) & M_TOUCH)) {
        bool excl;
        *sure = false;
        return take_check(m, r, c, pexcl, want, &excl, NULL);
    }
    *sure = true;
    return trial(m, r, c, pexcl, want);
}

/* Units of leaf request r below u in visiting order, until want: what
 * take_best does for a leaf when no score orders the candidates (they
 * keep visiting order, and choose is not asked about units), without a
 * trial take of each.  1 enough, 0 not, -1 error (the caller rolls back). */
static int take_units(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top, uint64_t want)
{
    const grove_count_t *cnt = r->count;
    struct iter it;
    iter_begin(m, &it, u, top);
    it.need = want;
    int failed = 0;
    uint64_t got = 0;
    grove_vid_t c;
    while (got < want && (c = iter_next(m, &it, r, &failed)) != GROVE_VID_NONE) {
        size_t fsave = m->nframes, ksave = m->nkids;
        int64_t n = take(m, r, c, pexcl, want - got, want);
        m->nframes = fsave;
        m->nkids = ksave;
        if (n < 0) {
            failed = 1;
            break;
        }
        got += (uint64_t)n;
    }
    iter_end(m, &it);
    if (failed)
        return -1;
    return got >= (cnt->kind == GROVE_COUNT_FIXED ? want : cnt->min);
}

/* The scores hook: the n candidates gathered from cbase scored in one
 * call, their scores written into m->cands.  0 or -1. */
static int score_level(grove_matcher_t *m, const grove_policy_ctx_t *ctx, size_t cbase, size_t n)
{
    grove_vid_t *vs = malloc(n * sizeof(*vs));
    double *sc = malloc(n * sizeof(*sc));
    int rc = -1;
    if (!vs || !sc) {
        errno = ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        vs[i] = m->cands[cbase + i].v;
    if (m->pol.scores(m->pol.arg, m->g, vs, n, ctx, sc) < 0) {
        m->hook_failed = 1;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        m->cands[cbase + i].score = sc[i];
    rc = 0;
out:
    free(vs);
    free(sc);
    return rc;
}

/* Gather the candidates of r below u that fit (or are admitted, see
 * admit), scored, into m->cands from cbase, best first.  0 or -1. */
static int gather(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl, bool top,
                  uint64_t want, size_t cbase)
{
    grove_policy_ctx_t ctx = {r->type, want, m->start, m->end, &m->preq, r->js};
    struct iter it;
    iter_begin(m, &it, u, top);
    it.need = want;
    int failed = 0;
    grove_vid_t c;
    while ((c = iter_next(m, &it, r, &failed)) != GROVE_VID_NONE) {
        bool sure;
        int ok = admit(m, r, c, pexcl, want, &sure);
        if (ok < 0) {
            failed = 1;
            break;
        }
        if (ok == 0)
            continue;
        double score = 0;
        if (m->pol.score && !m->pol.scores
            && m->pol.score(m->pol.arg, m->g, c, &ctx, &score) < 0) {
            m->hook_failed = 1;
            failed = 1;
            break;
        }
        if (grovep_grow((void **)&m->cands, &m->candcap, m->ncands + 1, sizeof(*m->cands)) < 0) {
            failed = 1;
            break;
        }
        m->cands[m->ncands] = (struct cand){c, score, m->ncands - cbase, sure};
        m->ncands++;
    }
    iter_end(m, &it);
    if (failed)
        return -1;
    size_t n = m->ncands - cbase;
    if (n && m->pol.scores && score_level(m, &ctx, cbase, n) < 0)
        return -1;
    /* without a score every score is 0: visiting order is already best
     * first (m->cands may still be NULL when n is 0) */
    if (n > 1 && (m->pol.score || m->pol.scores))
        qsort(m->cands + cbase, n, sizeof(*m->cands), cmp_cand);
    return 0;
}

/* Verify by a trial take every candidate from cbase not verified yet,
 * dropping those that do not fit (the order stays).  0 or -1. */
static int verify_all(grove_matcher_t *m, const struct req *r, bool pexcl, uint64_t want,
                      size_t cbase)
{
    size_t j = cbase;
    for (size_t i = cbase; i < m->ncands; i++) {
        struct cand c = m->cands[i];
        if (!c.sure) {
            /* a trial's own take_best gathers above m->ncands: ours stay */
            int ok = trial(m, r, c.v, pexcl, want);
            if (ok < 0)
                return -1;
            if (ok == 0)
                continue;
            c.sure = true;
        }
        m->cands[j++] = c;
    }
    m->ncands = j;
    return 0;
}

/* How many of the n gathered candidates to take: *k.  false when the
 * count cannot be met. */
static bool best_count(const struct req *r, uint64_t want, size_t n, size_t *k)
{
    const grove_count_t *cnt = r->count;
    if (!r->child) {
        *k = n; /* units: take in score order until enough */
        return true;
    }
    if (cnt->kind == GROVE_COUNT_FIXED) {
        *k = (size_t)want;
    } else {
        uint64_t fit;
        if (!grove_count_fit(cnt, n, &fit))
            return false;
        *k = (size_t)fit;
    }
    return n >= *k;
}

/* Let the policy choose k of the n candidates from cbase (k positions
 * into pick[k]; the first k, best first, without a choose hook or for
 * units).  0 or -1. */
static int best_choose(grove_matcher_t *m, const struct req *r, size_t cbase, size_t n,
                       size_t k, size_t *pick)
{
    if (!m->pol.choose || !r->child) {
        for (size_t i = 0; i < k; i++)
            pick[i] = i;
        return 0;
    }
    grove_vid_t *vs = malloc((n ? n : 1) * sizeof(*vs));
    double *sc = malloc((n ? n : 1) * sizeof(*sc));
    int rc = -1;
    if (!vs || !sc) {
        errno = ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        vs[i] = m->cands[cbase + i].v;
        sc[i] = m->cands[cbase + i].score;
    }
    if (m->pol.choose(m->pol.arg, m->g, vs, sc, n, k, pick) < 0) {
        m->hook_failed = 1;
        goto out;
    }
    for (size_t i = 0; i < k; i++) {
        if (pick[i] >= n) {
            m->hook_failed = 1;
            errno = ERANGE;
            goto out;
        }
    }
    rc = 0;
out:
    free(vs);
    free(sc);
    return rc;
}

/* Take the candidates chosen among those gathered from cbase.  1 fits, 0
 * not, 2 a candidate the policy chose that was only admitted does not fit
 * (nothing of it stays taken; the caller rolls back the rest), -1 error. */
static int take_chosen(grove_matcher_t *m, const struct req *r, bool pexcl, uint64_t want,
                       size_t cbase)
{
    const grove_count_t *cnt = r->count;
    bool leaf = r->child == NULL;
    size_t n = m->ncands - cbase, k;
    if (!best_count(r, want, n, &k))
        return 0;
    size_t *pick = malloc((k ? k : 1) * sizeof(*pick));
    if (!pick) {
        errno = ENOMEM;
        return -1;
    }
    int rc = -1;
    if (best_choose(m, r, cbase, n, k, pick) < 0)
        goto out;
    /* in score order (no choose), a candidate admitted in vain only gives
     * its turn to the next, as it would not have been gathered at all */
    bool chosen = m->pol.choose && !leaf;
    uint64_t got = 0;
    size_t taken = 0; /* candidates counted against k */
    for (size_t i = 0; i < (chosen ? k : n) && taken < k && got < want; i++) {
        struct cand c = m->cands[cbase + (chosen ? pick[i] : i)];
        int64_t t = take(m, r, c.v, pexcl, leaf ? want - got : 1, want - got);
        if (t < 0)
            goto out;
        if (t == 0 && !c.sure) {
            if (!chosen)
                continue;
            rc = 2;
            goto out;
        }
        taken++;
        got += (uint64_t)t;
    }
    rc = leaf ? (got >= (cnt->kind == GROVE_COUNT_FIXED ? want : cnt->min)) : (got == k);
out:
    free(pick);
    return rc;
}

/* Score every fitting candidate, let the policy choose, take the chosen.
 * 1 fits, 0 not, -1 error (the caller rolls back). */
static int take_best(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                     bool top, uint64_t want)
{
    /* a prune hook is told what this match has found so far, which taking
     * units as they come would change under it */
    if (!r->child && !m->pol.score && !m->pol.scores && !m->pol.prune)
        return take_units(m, r, u, pexcl, top, want);
    size_t cbase = m->ncands;
    int rc = gather(m, r, u, pexcl, top, want, cbase);
    if (rc == 0) {
        struct checkpoint cp = checkpoint(m);
        rc = take_chosen(m, r, pexcl, want, cbase);
        if (rc == 2) {
            rollback(m, cp);
            rc = verify_all(m, r, pexcl, want, cbase);
            if (rc == 0)
                rc = take_chosen(m, r, pexcl, want, cbase);
        }
    }
    m->ncands = cbase;
    return rc;
}

/* ---- channeled pools --------------------------------------------------------------- */

/* A channeled pool (RFC 4) is a type that only an auxiliary subsystem
 * holds: the bandwidth of a node in an I/O subsystem, the power a node
 * draws.  A request for it below a candidate takes its units from the pool
 * the candidate (or its nearest ancestor that has one) feeds in that
 * subsystem, and the same units from every distribution unit on the way up
 * to the subsystem's root: the unit itself when its pool has the same unit
 * of measure (a switch of 200 GB/s), else the pools of that type it feeds
 * directly (a pdu's power).  "Auxiliary" means other than the walked
 * subsystem (containment, or the one grove_matcher_set_dominant chose). */

/* Is t a type that no vertex of the dominant subsystem has? */
static bool channeled_type(const grove_matcher_t *m, grove_sym_t t)
{
    const grove_graph_t *g = m->g;
    grove_vid_t v = grove_graph_first_by_type(g, t);
    if (v == GROVE_VID_NONE || m->par[v] != GROVEP_NONE)
        return false;
    for (grove_eid_t e = g->first_in[v]; e != GROVEP_NONE; e = g->e[e].next_in)
        if (g->e[e].sub != m->dom_sub && !(g->e[e].flags & GROVEP_E_UP))
            return true; /* fed in another subsystem, and no parent in the walked one */
    return false;
}

/* The first downward edge out of v in a subsystem other than the walked
 * one to a vertex of type t, or GROVEP_NONE. */
static grove_eid_t channel_edge(const grove_matcher_t *m, grove_vid_t v, grove_sym_t t)
{
    const grove_graph_t *g = m->g;
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        if (ed->sub != m->dom_sub && !(ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD))
            && g->v[ed->dst].type == t)
            return e;
    }
    return GROVEP_NONE;
}

/* Take want units of pools of type t fed by v in subsystem sub (v itself
 * when self): first fit, each pick a leaf of its units.  1 taken, 0 not
 * enough (the caller rolls back), -1 error. */
static int channel_take(grove_matcher_t *m, grove_vid_t v, uint8_t sub, grove_sym_t t, bool self,
                        int64_t want)
{
    const grove_graph_t *g = m->g;
    if (self) {
        if (!up(m, v) || held_excl(m, v) || (flags_of(m, v) & M_EXCL) || free_units(m, v) < want)
            return 0;
        return set_state(m, v, taken_of(m, v) + want, flags_of(m, v) | M_TOUCH | M_PICK) < 0
                       || add_pick(m, v, want, false, true) < 0
                   ? -1
                   : 1;
    }
    for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE && want > 0; e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        grove_vid_t c = ed->dst;
        if (ed->sub != sub || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD)) || g->v[c].type != t
            || !up(m, c) || held_excl(m, c) || (flags_of(m, c) & M_EXCL))
            continue;
        int64_t n = free_units(m, c);
        n = n < want ? n : want;
        if (n <= 0)
            continue;
        if (set_state(m, c, taken_of(m, c) + n, flags_of(m, c) | M_TOUCH | M_PICK) < 0
            || add_pick(m, c, n, false, true) < 0)
            return -1;
        want -= n;
    }
    return want == 0;
}

/* Take want units of type t along the conduit path from the feeder a (a
 * vertex with a channel edge e to a pool of type t): the pools a feeds, then
 * every distribution unit above a in e's subsystem.  1, 0 (nothing of it
 * stays taken), -1. */
static int channel_path(grove_matcher_t *m, grove_vid_t a, grove_eid_t e, grove_sym_t t,
                        int64_t want)
{
    const grove_graph_t *g = m->g;
    uint8_t sub = g->e[e].sub;
    grove_sym_t unit = g->v[g->e[e].dst].unit;
    struct checkpoint cp = checkpoint(m);
    int rc = channel_take(m, a, sub, t, false, want);
    for (grove_vid_t p = grove_vertex_parent(g, a, g->subsys[sub]); rc == 1 && p != GROVE_VID_NONE;
         p = grove_vertex_parent(g, p, g->subsys[sub])) {
        if (channel_edge(m, p, t) != GROVEP_NONE)
            rc = channel_take(m, p, sub, t, false, want);
        else if (unit != GROVE_SYM_NONE && g->v[p].unit == unit
                 && grove_graph_str(g, unit)[0] != '\0')
            rc = channel_take(m, p, sub, t, true, want);
    }
    if (rc <= 0)
        rollback(m, cp);
    return rc;
}

/* The walk for a feeder: what it looks for, and what it found. */
struct feedwalk {
    grove_matcher_t *m;
    grove_sym_t t;
    int64_t want;
    int rc; /* channel_path's answer at the last feeder tried */
};

static int feeder_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    (void)depth;
    struct feedwalk *w = arg;
    if (!up(w->m, v) || held_excl(w->m, v))
        return GROVE_WALK_SKIP; /* its flow is not this job's to take */
    grove_eid_t e;
    if ((e = channel_edge(w->m, v, w->t)) == GROVEP_NONE)
        return GROVE_WALK_CONTINUE;
    w->rc = channel_path(w->m, v, e, w->t, w->want);
    return w->rc == 0 ? GROVE_WALK_CONTINUE : GROVE_WALK_STOP;
}

/* Match the channeled leaf request r below u (top: r is at the top of
 * the jobspec, u the root).  RFC 4 lets a job take the flow on every
 * distribution unit along its path; the units come from the pools fed by
 * one vertex, all along its path:
 *   - below a candidate, the candidate's own flow: the pools u feeds, else
 *     those of its nearest ancestor that feeds one (a slot placed in a
 *     socket takes its node's bandwidth);
 *   - at the top of the jobspec, RFC 14's "composite resource request for
 *     the program": the flow of a vertex the job holds (a vertex this match
 *     picked, or one holding a pick: the job's own nodes, which is why such
 *     requests are matched after their siblings), else of any vertex, in
 *     walk order, that no other job holds exclusively; the first whose
 *     path carries the units.
 * The feeder is not made part of the job: only the units are.  1, 0
 * (nothing of it stays taken), -1. */
static int channel_match(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool top)
{
    int64_t want = (int64_t)r->count->min; /* units: a range takes its least */
    if (want <= 0)
        return 0;
    grove_eid_t e = GROVEP_NONE;
    if (!top) {
        grove_vid_t a = u;
        while (a != GROVEP_NONE && (e = channel_edge(m, a, r->type)) == GROVEP_NONE)
            a = m->par[a];
        return e == GROVEP_NONE ? 0 : channel_path(m, a, e, r->type, want);
    }
    /* each pick, else its nearest ancestor that feeds; a pick with the
     * parent of the one before (the cores of a socket) has had its
     * ancestors tried */
    grove_vid_t seen = GROVEP_NONE;
    for (size_t i = 0; i < m->nsel; i++) {
        grove_vid_t v = m->sel[i].v, p = m->par[v];
        e = channel_edge(m, v, r->type);
        if (e == GROVEP_NONE && p != seen)
            for (v = p; v != GROVEP_NONE && (e = channel_edge(m, v, r->type)) == GROVEP_NONE;)
                v = m->par[v];
        seen = p;
        int rc = e == GROVEP_NONE ? 0 : channel_path(m, v, e, r->type, want);
        if (rc != 0)
            return rc;
    }
    struct feedwalk w = {m, r->type, want, 0};
    grove_walk_hooks_t h = {.pre = feeder_pre, .arg = &w};
    if (grove_graph_walk(m->g, u, dom_sym(m), &h, NULL) < 0)
        return -1;
    return w.rc;
}

/* A selection may take units of one pool several times (two nodes behind
 * one switch): one pick per vertex, the units added up.  p is sorted. */
static void merge_channel_picks(grove_matcher_t *m)
{
    size_t k = 0;
    for (size_t i = 0; i < m->nsel; i++) {
        grove_pick_t *q = &m->sel[i];
        if (k > 0 && m->sel[k - 1].v == q->v && q->leaf && !q->exclusive && m->sel[k - 1].leaf
            && !m->sel[k - 1].exclusive) {
            m->sel[k - 1].amount += q->amount;
            continue;
        }
        m->sel[k++] = *q;
    }
    m->nsel = k;
}

static int cmp_vid_desc(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Policies that explore by use, a moldable count: of the candidates of r
 * taken since start (more than the count accepts), keep the fit newest
 * vertices (the reference engine keeps the best scores of what it found,
 * its newest unique ids).  1 taken, 0 not (nothing of r stays taken), -1
 * error, 2 when they cannot be taken again alone (the caller decides). */
static int take_highest(grove_matcher_t *m, const struct req *r, bool pexcl,
                        struct checkpoint start, uint64_t fit)
{
    size_t n = 0;
    grove_vid_t *cs = malloc((m->nsel - start.nsel + 1) * sizeof(*cs));
    if (!cs) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = start.nsel; i < m->nsel; i++)
        if (m->g->v[m->sel[i].v].type == r->type)
            cs[n++] = m->sel[i].v;
    qsort(cs, n, sizeof(*cs), cmp_vid_desc);
    rollback(m, start);
    uint64_t got = 0;
    for (size_t i = 0; i < n && got < fit; i++) {
        int64_t t = take(m, r, cs[i], pexcl, 1, fit - got);
        if (t < 0) {
            free(cs);
            return -1;
        }
        got += t > 0 ? 1 : 0;
    }
    free(cs);
    if (got == fit)
        return 1;
    rollback(m, start);
    return 2;
}

/* Match one request (with its count) below u.  1 fits, 0 does not, -1
 * error.  On 0 nothing of this request stays taken. */
static int match_list(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top)
{
    const grove_count_t *cnt = r->ocount ? r->ocount : r->count;
    bool fixed = cnt->kind == GROVE_COUNT_FIXED;
    uint64_t want = fixed ? cnt->min : cnt->max, most;
    /* exploring by use stops at the largest count the range accepts, as
     * the reference engine does (it explores until that many are found) */
    if (!fixed && m->pol.explore_by_use && grove_count_fit(cnt, want, &most))
        want = most;
    struct checkpoint start = checkpoint(m);

    if (r->slot) {
        int by_id = fixed ? take_slots_by_id(m, r, u, pexcl, want) : 2;
        if (by_id != 2)
            return by_id;
        if (r->alt) {
            /* or-slots not chosen by id: the first alternative of which
             * want slots fit, all of one shape */
            for (const struct req *a = r; a; a = a->alt) {
                int64_t got = take_slots(m, a, u, pexcl, want, NULL, 0);
                if (got < 0)
                    return -1;
                if ((uint64_t)got >= want)
                    return 1;
                rollback(m, start);
            }
            return 0;
        }
        if (fixed) {
            int64_t got = take_slots(m, r, u, pexcl, want, NULL, 0);
            if (got < 0)
                return -1;
            if ((uint64_t)got == want)
                return 1;
            rollback(m, start);
            return 0;
        }
        /* moldable: as many as fit, then trim to an acceptable count */
        size_t nper = 4096;
        struct checkpoint *per = malloc(nper * sizeof(*per));
        if (!per) {
            errno = ENOMEM;
            return -1;
        }
        per[0] = start;
        int64_t got = take_slots(m, r, u, pexcl, want, per, nper);
        uint64_t fit;
        int rc = 0;
        if (got >= 0 && grove_count_fit(cnt, (uint64_t)got, &fit)) {
            if (fit < (uint64_t)got && fit < nper)
                rollback(m, per[fit]);
            rc = 1;
        } else if (got >= 0) {
            rollback(m, start);
        } else {
            rc = -1;
        }
        free(per);
        return rc;
    }
    if (r->type == GROVE_SYM_NONE) {
        return 0; /* no vertex of this type exists */
    }
    if (!r->child && channeled_type(m, r->type))
        return channel_match(m, r, u, top);

    if (top && fixed && r->child && m->pol.order && !m->pol.explore_by_use
        && m->pol.select != GROVE_SELECT_BEST) {
        int rc = take_top_by_id(m, r, u, pexcl, want);
        if (rc != 2) {
            if (rc <= 0)
                rollback(m, start);
            return rc;
        }
    }
    if (m->pol.select == GROVE_SELECT_BEST && (m->pol.score || m->pol.scores || m->pol.choose)
        && grove_policy_applies(m->g, m->pol.score_types, r->type)) {
        int rc = take_best(m, r, u, pexcl, top, want);
        if (rc <= 0)
            rollback(m, start);
        return rc;
    }
    uint64_t got;
    if (take_first(m, r, u, pexcl, top, want, &got) < 0) {
        rollback(m, start);
        return -1;
    }
    if (fixed) {
        if (got >= want)
            return 1;
        rollback(m, start);
        return 0;
    }
    uint64_t fit;
    if (!grove_count_fit(cnt, got, &fit)) {
        rollback(m, start);
        return 0;
    }
    if (fit < got && r->child && m->pol.explore_by_use) {
        int rc = take_highest(m, r, pexcl, start, fit);
        if (rc != 2)
            return rc;
    }
    if (fit < got && r->child) {
        /* more fitted than the count accepts: take exactly the fit */
        rollback(m, start);
        if (take_first(m, r, u, pexcl, top, fit, &got) < 0 || got != fit) {
            rollback(m, start);
            return got != fit ? 0 : -1;
        }
    }
    return 1;
}

/* ---- the request tree --------------------------------------------------------- */

/* A channeled leaf (see channel_match)? */
static bool channeled_req(const grove_matcher_t *m, const struct req *r)
{
    return !r->slot && !r->child && r->type != GROVE_SYM_NONE && channeled_type(m, r->type);
}

/* Reorder the list starting at first so that its channeled leaves come
 * last, the others keeping their order: at the top of a jobspec a
 * channeled request prefers the vertices its siblings picked
 * (channel_match), so it is matched after them.  Returns the
 * new first request; every member's sibs follows. */
static struct req *channeled_last(const grove_matcher_t *m, struct req *first)
{
    struct req *head = NULL, **tail = &head, *ch = NULL, **ctail = &ch;
    for (struct req *r = first, *nx; r; r = nx) {
        nx = r->next;
        r->next = NULL;
        if (channeled_req(m, r)) {
            *ctail = r;
            ctail = &r->next;
        } else {
            *tail = r;
            tail = &r->next;
        }
    }
    *tail = ch;
    for (struct req *r = head; r; r = r->next)
        r->sibs = head;
    return head;
}

/* Read the request tree of js into rs[n] (linked as written). */
static void read_request(grove_matcher_t *m, const grove_jobspec_t *js, struct req *rs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const grove_jobspec_resource_t *r = grove_jobspec_resource_at(js, i);
        rs[i].js = r;
        rs[i].slot = grove_jobspec_resource_is_slot(r);
        rs[i].xor_ = rs[i].slot && !strcmp(grove_jobspec_resource_type(r), "xor_slot");
        rs[i].type = rs[i].slot ? GROVE_SYM_NONE
                                : grove_graph_sym_lookup(m->g, grove_jobspec_resource_type(r));
        rs[i].excl = grove_jobspec_resource_exclusive(r);
        rs[i].not_excl = grove_jobspec_resource_exclusive_raw(r) == 0;
        rs[i].count = grove_jobspec_resource_count(r);
        const grove_jobspec_resource_t *c = grove_jobspec_resource_child(r);
        rs[i].whole = c && !rs[i].slot && grove_jobspec_resource_exclusive_raw(r) == 1;
        rs[i].child = c ? &rs[grove_jobspec_resource_index(c)] : NULL;
        const grove_jobspec_resource_t *nx = grove_jobspec_resource_next(r);
        rs[i].next = nx ? &rs[grove_jobspec_resource_index(nx)] : NULL;
        const grove_jobspec_resource_t *up = grove_jobspec_resource_parent(r);
        const grove_jobspec_resource_t *s0 =
            up ? grove_jobspec_resource_child(up) : grove_jobspec_resource_first(js);
        rs[i].sibs = &rs[grove_jobspec_resource_index(s0)];
    }
}

/* With or-slots, the slots of each list of rs (and of the top list *top)
 * become one group: the first stays in the list, the others hang from it
 * (alt) in order, and the group takes as many slots as the last asks for
 * (ocount; the reference engine's reading). */
static void group_or_slots(struct req *rs, size_t n, struct req **top)
{
    for (size_t i = 0; i <= n; i++) {
        struct req **link = i < n ? &rs[i].child : top;
        struct req *first = NULL, *last = NULL;
        while (*link) {
            struct req *r = *link;
            if (!r->slot || !first) {
                if (r->slot)
                    first = last = r;
                link = &r->next;
                continue;
            }
            *link = r->next; /* r leaves the list for the group */
            r->next = NULL;
            last->alt = r;
            last = r;
        }
        if (first && last != first)
            first->ocount = last->count;
    }
}

/* What compile derives once the tree is linked: which slots may span
 * nodes and the pruning needs.  on[i] (NULL: all) marks the requests of
 * the variant rs holds. */
static void derive(const grove_graph_t *g, struct req *rs, size_t n, const uint8_t *on)
{
    /* a slot may span nodes only if it asks for nodes (pre-order: the
     * subtree of i is i+1 .. the next vertex at depth <= depth(i)) */
    for (size_t i = 0; i < n; i++) {
        if (!rs[i].slot)
            continue;
        unsigned d = grove_jobspec_resource_depth(rs[i].js);
        for (size_t k = i + 1; k < n && grove_jobspec_resource_depth(rs[k].js) > d; k++)
            if ((!on || on[k]) && !strcmp(grove_jobspec_resource_type(rs[k].js), "node"))
                rs[i].free_span = true;
    }
    /* pruning needs, children first (pre-order reversed) */
    for (size_t i = n; i-- > 0;) {
        struct req *r = &rs[i];
        for (size_t l = 0; l < g->nlow; l++) {
            int64_t own = !r->slot && r->type == g->agg_low[l] ? 1 : 0;
            int64_t below = 0;
            /* saturate: a need past the int64 range is one no graph meets */
            for (const struct req *c = r->child; c; c = c->next)
                if (__builtin_add_overflow(below, c->tot[l], &below))
                    below = INT64_MAX;
            r->need1[l] = below == INT64_MAX ? INT64_MAX : own + below;
            uint64_t mult = r->count->min ? r->count->min : 1;
            if (__builtin_mul_overflow((int64_t)(mult > (uint64_t)INT32_MAX ? INT32_MAX : mult),
                                       r->need1[l], &r->tot[l]))
                r->tot[l] = INT64_MAX;
            /* or-slots: what the least demanding alternative needs (they
             * come later in pre-order, so theirs are known) */
            for (const struct req *a = r->alt; a; a = a->alt) {
                if (a->need1[l] < r->need1[l])
                    r->need1[l] = a->need1[l];
                if (a->tot[l] < r->tot[l])
                    r->tot[l] = a->tot[l];
            }
        }
    }
}

/* ---- xor slots ------------------------------------------------------------------ */

/* xor_slot siblings are alternatives (the reference engine's flexible
 * traverser): a request with them stands for several plain requests, its
 * variants, tried in turn at each instant until one fits.  In a list, the
 * other siblings are all required (their own variants crossed, earlier
 * siblings varying slowest) and exactly one xor option is added to each
 * such combination (options in the order written, each xor_slot's own
 * variants in turn), the combinations varying slowest; the chosen
 * xor_slot is a plain slot.  A variant is a row of n flags, one per
 * request, marking those it keeps. */

/* At most this many variants (the reference engine's limit). */
#define MAX_VARIANTS 1000

struct rows {
    uint8_t *v; /* nrows x n flags */
    size_t nrows, cap;
};

/* Append the union of rows a and b (either NULL: none) plus request k
 * (n: none) to *out.  0 or -1 (ENOMEM, EOVERFLOW past MAX_VARIANTS). */
static int row_add(struct rows *out, size_t n, const uint8_t *a, const uint8_t *b, size_t k)
{
    if (out->nrows >= MAX_VARIANTS) {
        errno = EOVERFLOW;
        return -1;
    }
    if (grovep_grow((void **)&out->v, &out->cap, (out->nrows + 1) * n, 1) < 0)
        return -1;
    uint8_t *row = out->v + out->nrows++ * n;
    for (size_t i = 0; i < n; i++)
        row[i] = (a && a[i]) || (b && b[i]);
    if (k < n)
        row[k] = 1;
    return 0;
}

/* The variants of the list that starts at first, into *out.  0 or -1. */
static int list_variants(const struct req *rs, size_t n, const struct req *first,
                         struct rows *out)
{
    struct rows base = {0}, opts = {0}, next = {0}, sub = {0};
    int rc = -1;
    if (row_add(&base, n, NULL, NULL, n) < 0)
        goto out;
    for (const struct req *r = first; r; r = r->next) {
        size_t k = (size_t)(r - rs);
        sub.nrows = 0;
        if (r->child ? list_variants(rs, n, r->child, &sub) < 0
                     : row_add(&sub, n, NULL, NULL, n) < 0)
            goto out;
        if (r->xor_) {
            for (size_t j = 0; j < sub.nrows; j++)
                if (row_add(&opts, n, sub.v + j * n, NULL, k) < 0)
                    goto out;
            continue;
        }
        next.nrows = 0;
        for (size_t b = 0; b < base.nrows; b++)
            for (size_t j = 0; j < sub.nrows; j++)
                if (row_add(&next, n, base.v + b * n, sub.v + j * n, k) < 0)
                    goto out;
        struct rows t = base;
        base = next;
        next = t;
    }
    for (size_t b = 0; b < base.nrows; b++) {
        if (!opts.nrows && row_add(out, n, base.v + b * n, NULL, n) < 0)
            goto out;
        for (size_t o = 0; o < opts.nrows; o++)
            if (row_add(out, n, base.v + b * n, opts.v + o * n, n) < 0)
                goto out;
    }
    rc = 0;
out:
    free(base.v);
    free(opts.v);
    free(next.v);
    free(sub.v);
    return rc;
}

/* The first request of the list from r on that variant on keeps, in dst
 * (base and dst are parallel arrays), or NULL. */
static struct req *kept(struct req *dst, const struct req *base, const struct req *r,
                        const uint8_t *on)
{
    for (; r; r = r->next)
        if (on[r - base])
            return dst + (r - base);
    return NULL;
}

/* Compile the request of js: *nvar variants (1 without xor slots), each n
 * requests in one block (returned; the caller frees it), their top lists
 * in *tops (a new array).  NULL on error (ENOMEM, or EOVERFLOW when the
 * xor slots make too many variants). */
static struct req *compile(grove_matcher_t *m, const grove_jobspec_t *js, struct req ***tops,
                           size_t *nvar)
{
    size_t n = grove_jobspec_resource_total(js);
    struct req *base = calloc(n ? n : 1, sizeof(*base)), *rs = NULL;
    struct rows vars = {0};
    *tops = NULL;
    if (!base) {
        errno = ENOMEM;
        return NULL;
    }
    read_request(m, js, base, n);
    const grove_jobspec_resource_t *f = grove_jobspec_resource_first(js);
    /* channeled leaves of the top list last (channeled_last) */
    struct req *top = f ? channeled_last(m, &base[grove_jobspec_resource_index(f)]) : NULL;
    bool any_xor = false;
    for (size_t i = 0; i < n; i++)
        any_xor = any_xor || base[i].xor_;
    if (!any_xor) {
        if (!(*tops = malloc(sizeof(**tops)))) {
            free(base);
            errno = ENOMEM;
            return NULL;
        }
        if (m->cfg.or_slots)
            group_or_slots(base, n, &top);
        derive(m->g, base, n, NULL);
        (*tops)[0] = top;
        *nvar = 1;
        return base;
    }
    if (list_variants(base, n, top, &vars) < 0 || vars.nrows == 0
        || !(rs = calloc(vars.nrows * n, sizeof(*rs)))
        || !(*tops = malloc(vars.nrows * sizeof(**tops)))) {
        if (errno != EOVERFLOW)
            errno = ENOMEM;
        free(rs);
        rs = NULL;
        goto out;
    }
    for (size_t v = 0; v < vars.nrows; v++) {
        struct req *dst = rs + v * n;
        const uint8_t *on = vars.v + v * n;
        for (size_t i = 0; i < n; i++) {
            dst[i] = base[i]; /* a kept xor_slot is a plain slot */
            dst[i].child = kept(dst, base, base[i].child, on);
            dst[i].next = kept(dst, base, base[i].next, on);
            dst[i].sibs = kept(dst, base, base[i].sibs, on);
        }
        (*tops)[v] = kept(dst, base, top, on);
        if (m->cfg.or_slots)
            group_or_slots(dst, n, &(*tops)[v]);
        derive(m->g, dst, n, on);
    }
    *nvar = vars.nrows;
out:
    free(vars.v);
    free(base);
    return rs;
}

/* ---- one attempt ---------------------------------------------------------------- */

/* The end of a window of d seconds from t, GROVE_TIME_MAX past the end of
 * time. */
static int64_t window_end(int64_t t, int64_t d)
{
    return d >= GROVE_TIME_MAX - t ? GROVE_TIME_MAX : t + d;
}

/* Try the whole request in the window starting at t.  1 fits (the picks are
 * in m->sel), 0 not, -1 error. */
static int attempt(grove_matcher_t *m, const struct req *top, grove_vid_t root, int64_t t,
                   int64_t d)
{
    new_generation(m);
    m->start = t;
    m->end = window_end(t, d);
    if (!up(m, root))
        return 0; /* nothing below a root that is not up is available */
    /* what the root's aggregates already rule out (one more single-core
     * slot than the machine has cores) is answered here, not after a
     * search of every way to place the part that fits */
    int64_t need[GROVEP_MAX_LOW] = {0};
    for (const struct req *r = top; r; r = r->next)
        for (size_t l = 0; l < m->g->nlow; l++)
            if (__builtin_add_overflow(need[l], r->tot[l], &need[l]))
                need[l] = INT64_MAX;
    if (!agg_fits(m, root, need))
        return 0;
    for (const struct req *r = top; r; r = r->next) {
        int rc = match_list(m, r, root, false, true);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

static int cmp_pick(const void *a, const void *b)
{
    const grove_pick_t *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* Below this many picks a comparison sort is as fast as two passes over
 * 64 Ki buckets. */
#define RADIX_MIN 4096

/* Sort n picks by vertex id in two stable passes of 16 bits (a whole
 * machine's million picks: linear, where a comparison sort was a fifth of
 * the match).  The second buffer is scratch (scratch_bytes of it) when
 * that is large enough, else one of its own.  0 or -1 (ENOMEM). */
static int radix_picks(grove_pick_t *p, size_t n, void *scratch, size_t scratch_bytes)
{
    grove_pick_t *own = scratch_bytes >= n * sizeof(*own) ? NULL : malloc(n * sizeof(*own));
    grove_pick_t *tmp = own ? own : scratch;
    size_t *count = malloc(65536 * sizeof(*count));
    if ((!own && scratch_bytes < n * sizeof(*own)) || !count) {
        free(own);
        free(count);
        errno = ENOMEM;
        return -1;
    }
    grove_pick_t *from = p, *to = tmp;
    for (int shift = 0; shift < 32; shift += 16) {
        memset(count, 0, 65536 * sizeof(*count));
        for (size_t i = 0; i < n; i++)
            count[(from[i].v >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t b = 0; b < 65536; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i].v >> shift) & 0xffff]++] = from[i];
        grove_pick_t *t = from;
        from = to;
        to = t;
    }
    /* two passes: the sorted picks are back in p */
    free(own);
    free(count);
    return 0;
}

/* Sort picks by vertex id.  They come mostly in graph order (the walk
 * follows it), with the ancestors appended at the end: sort only what
 * breaks the order and merge it back.  scratch: as radix_picks.  0 or -1
 * (ENOMEM). */
static int sort_picks(grove_pick_t *p, size_t n, void *scratch, size_t scratch_bytes)
{
    size_t k = 1;
    while (k < n && p[k - 1].v < p[k].v)
        k++;
    if (k >= n)
        return 0;
    if (n - k > k / 8) { /* far from sorted: sort everything */
        if (n >= RADIX_MIN)
            return radix_picks(p, n, scratch, scratch_bytes);
        qsort(p, n, sizeof(*p), cmp_pick);
        return 0;
    }
    qsort(p + k, n - k, sizeof(*p), cmp_pick);
    grove_pick_t *tail = malloc((n - k) * sizeof(*tail));
    if (!tail) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(tail, p + k, (n - k) * sizeof(*tail));
    /* merge from the back: the sorted prefix p[0..k) and the tail */
    size_t i = k, j = n - k, o = n;
    while (j > 0) {
        if (i > 0 && p[i - 1].v > tail[j - 1].v)
            p[--o] = p[--i];
        else
            p[--o] = tail[--j];
    }
    free(tail);
    return 0;
}

/* Add v, unless picked already, held exclusively. */
static inline int add_held(grove_matcher_t *m, grove_vid_t v)
{
    uint8_t f = flags_of(m, v);
    if (f & M_PICK)
        return 0;
    const grove_graph_t *g = m->g;
    if (set_state(m, v, taken_of(m, v), f | M_PICK | M_EXCL | M_TOUCH) < 0
        || add_pick(m, v, g->v[v].size, true, g->first_out[v] == GROVEP_NONE) < 0)
        return -1;
    return 0;
}

/* add every unpicked vertex below the walk's start (arg: the matcher),
 * held exclusively */
static int nodex_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    if (depth == 0)
        return GROVE_WALK_CONTINUE;
    return add_held(arg, v) < 0 ? -1 : GROVE_WALK_CONTINUE;
}

/* Add every unpicked vertex below top, held exclusively, in the walked
 * subsystem.  Containment is a tree: its tree edges are followed with a
 * stack in the kid arena (free once the search is over), a few loads a
 * vertex; another subsystem may join or loop, and goes through the
 * graph's walker, which visits a vertex once.  0 or -1 (ENOMEM). */
static int add_below(grove_matcher_t *m, grove_vid_t top)
{
    const grove_graph_t *g = m->g;
    if (m->dom_sub != g->containment) {
        grove_walk_hooks_t h = {.pre = nodex_pre, .arg = m};
        return grove_graph_walk(m->g, top, dom_sym(m), &h, NULL) < 0 ? -1 : 0;
    }
    size_t base = m->nkids, sp = base;
    int rc = 0;
    if (grovep_grow((void **)&m->kids, &m->kidcap, sp + 1, sizeof(*m->kids)) < 0)
        return -1;
    m->kids[sp++] = top;
    const uint32_t *off;
    const grove_vid_t *tk = grovep_tree_kids(g, &off);
    while (tk && sp > base && rc == 0) { /* the tree's child arrays: read in sequence */
        grove_vid_t u = m->kids[--sp];
        for (uint32_t i = off[u]; i < off[u + 1] && rc == 0; i++) {
            grove_vid_t c = tk[i];
            if (add_held(m, c) < 0)
                rc = -1;
            else if (off[c + 1] == off[c])
                continue; /* a leaf: nothing below to walk */
            else if (grovep_grow((void **)&m->kids, &m->kidcap, sp + 1, sizeof(*m->kids)) < 0)
                rc = -1;
            else
                m->kids[sp++] = c;
        }
    }
    while (sp > base && rc == 0) { /* no memory for them: the edge lists */
        grove_vid_t u = m->kids[--sp];
        for (grove_eid_t e = g->first_out[u]; e != GROVEP_NONE && rc == 0;
             e = g->e[e].next_out) {
            const grovep_edge_t *ed = &g->e[e];
            /* the tree edges, as the walker follows containment */
            if (ed->sub != g->containment || (ed->flags & GROVEP_E_UP) || g->parent[ed->dst] != u)
                continue;
            if (add_held(m, ed->dst) < 0
                || grovep_grow((void **)&m->kids, &m->kidcap, sp + 1, sizeof(*m->kids)) < 0)
                rc = -1;
            else
                m->kids[sp++] = ed->dst;
        }
    }
    m->nkids = base;
    return rc;
}

/* A vertex asked for exclusively holds everything below it: add what the
 * request did not name, so the selection (and R) lists all the job has. */
static int expand_whole(grove_matcher_t *m)
{
    size_t n = m->nsel;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = m->sel[i].v;
        if ((flags_of(m, v) & M_WHOLE) && add_below(m, v) < 0)
            return -1;
    }
    return 0;
}

static int expand_nodex(grove_matcher_t *m)
{
    size_t n = m->nsel;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = m->sel[i].v;
        if (m->g->v[v].type == m->node_sym && add_below(m, v) < 0)
            return -1;
    }
    /* everything at or below a node is now held exclusively */
    for (size_t i = 0; i < m->nsel; i++) {
        grove_vid_t v = m->sel[i].v;
        if (m->sel[i].exclusive || !at_or_below_node(m, v) || m->node_sym == GROVE_SYM_NONE)
            continue;
        m->sel[i].exclusive = true;
        m->sel[i].amount = m->g->v[v].size > 0 ? m->g->v[v].size : 1;
        if (set_state(m, v, taken_of(m, v), flags_of(m, v) | M_EXCL) < 0)
            return -1;
    }
    return 0;
}

/* The ancestors of every pick up to the root are part of the selection, as
 * shared containers (a request may omit levels: nodes found below racks
 * still place the job in those racks). */
static int add_ancestors(grove_matcher_t *m)
{
    size_t n = m->nsel;
    for (size_t i = 0; i < n; i++) {
        for (grove_vid_t a = m->par[m->sel[i].v]; a != GROVEP_NONE; a = m->par[a]) {
            uint8_t f = flags_of(m, a);
            if (f & M_PICK)
                break;
            if (set_state(m, a, taken_of(m, a), f | M_PICK | M_TOUCH) < 0
                || add_pick(m, a, 1, false, false) < 0)
                return -1;
        }
    }
    return 0;
}

/* True when an ancestor of v is an exclusive pick of this match.  Once the
 * search is over (match_complete), the answer is kept in the ancestors'
 * flags as it is found, so a whole machine's picks cost a step each, not
 * a walk to the root each: every ancestor of a pick is a pick, stamped. */
static bool implied(grove_matcher_t *m, grove_vid_t v)
{
    bool r = false;
    grove_vid_t a;
    for (a = m->par[v]; a != GROVEP_NONE; a = m->par[a]) {
        uint8_t f = flags_of(m, a);
        if ((f & (M_PICK | M_EXCL)) == (M_PICK | M_EXCL)) {
            r = true;
            break;
        }
        if (f & M_IKNOWN) {
            r = (f & M_IMPL) != 0;
            break;
        }
    }
    for (grove_vid_t b = m->par[v]; b != a; b = m->par[b])
        if (m->stamp[b] == m->gen)
            m->mflags[b] |= (uint8_t)(M_IKNOWN | (r ? M_IMPL : 0));
    return r;
}

/* Drop every record of a job's picks (one batch). */
static void unrecord(grove_graph_t *g, grove_jobid_t id, int64_t start, int64_t end,
                     grove_pick_t *p, size_t n)
{
    grove_vid_t *vs = malloc((n ? n : 1) * sizeof(*vs));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].recorded)
            continue;
        if (vs)
            vs[k++] = p[i].v;
        else
            grove_vertex_free(g, p[i].v, id, -1); /* no memory for a batch */
        p[i].recorded = false;
    }
    if (vs)
        grovep_job_release(g, id, start, end, vs, k);
    free(vs);
}

/* Write the records of picks for job id over [start, end): one record at
 * each top-most exclusive pick and each leaf pool; shared containers are
 * annotated through what lies below.  0 or -1, nothing recorded on
 * failure. */
static int record(grove_graph_t *g, grove_jobid_t id, grove_pick_t *p, size_t n, int64_t start,
                  int64_t end, const uint8_t *is_implied)
{
    /* the picks that hold a record: a whole machine's 800,000 picks are
     * 16,384 nodes held whole, so the arrays are sized by a first count */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        p[i].recorded = !is_implied[i] && (p[i].exclusive ? g->v[p[i].v].size != 0 : p[i].leaf);
        k += p[i].recorded;
    }
    grove_vid_t *vs = calloc(k ? k : 1, sizeof(*vs));
    int64_t *amount = calloc(k ? k : 1, sizeof(*amount));
    bool *excl = calloc(k ? k : 1, sizeof(*excl));
    int rc = -1;
    if (!vs || !amount || !excl) { /* nothing recorded */
        for (size_t i = 0; i < n; i++)
            p[i].recorded = false;
        errno = ENOMEM;
        goto out;
    }
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].recorded)
            continue; /* implied, a shared container or an empty pool */
        vs[k] = p[i].v;
        amount[k] = p[i].exclusive ? g->v[p[i].v].size : p[i].amount;
        excl[k] = p[i].exclusive;
        k++;
    }
    rc = grovep_job_record(g, id, start, end, vs, amount, excl, k);
    if (rc < 0)
        for (size_t i = 0; i < n; i++)
            p[i].recorded = false;
out:
    GROVEP_FREE_ALL(vs, amount, excl);
    return rc;
}

static int64_t duration_of(const grove_matcher_t *m, const grove_jobspec_t *js)
{
    double d = grove_jobspec_duration(js);
    if (d <= 0)
        return m->cfg.default_duration > 0 ? m->cfg.default_duration : GROVE_TIME_MAX;
    if (d >= 9.0e18)
        return GROVE_TIME_MAX;
    int64_t s = (int64_t)d;
    return (double)s < d ? s + 1 : s;
}

/* ---- grove_match, step by step --------------------------------------------------- */

/* One call of grove_match: what each step leaves for the next. */
struct matching {
    grove_match_mode_t mode;
    grove_jobid_t id;
    struct req *reqs, *top; /* the compiled request (reqs owns it): the
                             * variant tried last */
    struct req **tops;      /* [nvar] the variants' top lists (see compile) */
    size_t nvar;
    grove_vid_t root;       /* of the containment tree */
    int64_t now, d;         /* the graph's clock, the job's duration */
    int64_t at;             /* where the selection fits */
    uint8_t *imp;           /* per pick: implied by an exclusive ancestor */
};

/* Try each variant of the request (see compile) in the window starting at
 * t, in order, until one fits: 1 (x->top is the one), 0, -1. */
static int attempt_x(grove_matcher_t *m, struct matching *x, int64_t t, int64_t d)
{
    for (size_t v = 0; v < x->nvar; v++) {
        x->top = x->tops[v];
        int rc = attempt(m, x->top, x->root, t, d);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Check the arguments; 0, or -1 with EINVAL or EEXIST and a message.  Picks
 * the job id when id is 0. */
static int match_check(const grove_matcher_t *m, const grove_jobspec_t *js,
                       struct matching *x, grove_error_t *err)
{
    if (!js || (unsigned)x->mode > GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE) {
        grove_error_set(err, NULL, 0, "match: no jobspec or unknown mode");
        errno = EINVAL;
        return -1;
    }
    if (x->id == 0)
        x->id = m->next_id;
    if (x->mode != GROVE_MATCH_SATISFIABILITY && grove_matcher_job(m, x->id)) {
        grove_error_set(err, NULL, 0, "match: job %llu exists", (unsigned long long)x->id);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

/* Compile the request and make ready what every attempt needs; 0 or -1. */
static int match_prepare(grove_matcher_t *m, const grove_jobspec_t *js, struct matching *x,
                         grove_error_t *err)
{
    grove_graph_t *g = m->g;
    if (dominant_prepare(m) < 0)
        return -1;
    x->root = grove_graph_root(g, dom_sym(m), 0);
    if (x->root == GROVE_VID_NONE) {
        grove_error_set(err, NULL, 0, "match: the graph has no %s root",
                        grove_graph_str(g, dom_sym(m)));
        errno = ENODEV;
        return -1;
    }
    if (g->agg_dirty && grovep_agg_refresh(g) < 0)
        return -1;
    if (!(x->reqs = compile(m, js, &x->tops, &x->nvar)) || scratch_reserve(m) < 0)
        return -1;
    x->top = x->tops[0];
    m->constraint = grove_jobspec_constraint(js);
    m->ctype = grove_graph_sym_lookup(g, m->constraint_type);
    m->node_sym = grove_graph_sym_lookup(g, "node");
    if (m->node_sym != GROVE_SYM_NONE && grove_graph_count_type(g, m->node_sym) == 0)
        m->node_sym = GROVE_SYM_NONE; /* the name is known, but no vertex has the type */
    x->d = duration_of(m, js);
    x->now = g->now;
    return grove_policy_request_init(&m->preq, g, js, x->id, x->d);
}

/* The instants after now at which something ends, ascending and distinct:
 * the ends of the graph's records (the table's jobs and allocations made on
 * vertices directly alike: a job holding no record frees nothing when it
 * ends), from the graph's index of record ends: the cost follows the
 * number of instants, not of vertices.  A new array (*n entries), or NULL
 * (ENOMEM). */
static int64_t *later_times(const grove_matcher_t *m, int64_t now, size_t *n)
{
    const grove_graph_t *g = m->g;
    size_t first = grovep_rec_ends_after(g, now), k = 0;
    int64_t *t = malloc((g->nrec_ends - first + 1) * sizeof(*t));
    if (!t) {
        errno = ENOMEM;
        return NULL;
    }
    /* a copy: match_later owns and frees what it walks */
    for (size_t i = first; i < g->nrec_ends; i++)
        t[k++] = g->rec_ends[i].t;
    *n = k;
    return t;
}

/* Try later instants, those at which some job ends, in order, skipping
 * those at which the whole machine lacks room.  1 fits (at x->at), 0 not,
 * -1 error. */
static int match_later(grove_matcher_t *m, struct matching *x)
{
    const grove_graph_t *g = m->g;
    size_t nt;
    int64_t *times = later_times(m, x->now, &nt);
    if (!times)
        return -1;
    if (nt && times[nt - 1] == GROVE_TIME_MAX)
        nt--; /* a job that never ends frees nothing */
    /* what the least demanding variant needs */
    int64_t need[GROVEP_MAX_LOW];
    for (size_t l = 0; l < g->nlow; l++)
        need[l] = INT64_MAX;
    for (size_t v = 0; v < x->nvar; v++)
        for (size_t l = 0; l < g->nlow; l++) {
            int64_t sum = 0;
            for (const struct req *r = x->tops[v]; r; r = r->next)
                if (__builtin_add_overflow(sum, r->tot[l], &sum))
                    sum = INT64_MAX; /* saturate, as the needs themselves */
            if (sum < need[l])
                need[l] = sum;
        }
    int found = 0;
    for (size_t i = 0; i < nt && found == 0; i++) {
        m->start = times[i];
        m->end = window_end(times[i], x->d);
        if (!agg_fits(m, x->root, need))
            continue;
        found = attempt_x(m, x, times[i], x->d);
        x->at = times[i];
    }
    free(times);
    return found;
}

/* Find where the request fits: now, or in the modes that look ahead, the
 * earliest later instant.  1 fits (at x->at), 0 not, -1 error. */
static int match_search(grove_matcher_t *m, struct matching *x)
{
    m->sat = x->mode == GROVE_MATCH_SATISFIABILITY;
    x->at = x->now;
    int found = attempt_x(m, x, x->now, x->d);
    if (found == 0 && (x->mode == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
                       || x->mode == GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE))
        found = match_later(m, x);
    return found;
}

/* The search found nothing (found 0) or failed (-1): say why, in errno
 * and the message.  EBUSY (not now) or ENODEV (never; the modes that ask
 * look again ignoring use and status), ECANCELED when a hook failed.
 * Always -1. */
static int match_failed(grove_matcher_t *m, struct matching *x, int found,
                        grove_error_t *err)
{
    if (found < 0) {
        if (m->hook_failed) {
            if (!err || !err->text[0])
                grove_error_set(err, NULL, 0, "policy %s: a hook failed: %s", m->pol.name,
                                strerror(errno));
            errno = ECANCELED;
        }
        return -1;
    }
    if (x->mode == GROVE_MATCH_SATISFIABILITY) {
        grove_error_set(err, NULL, 0, "unsatisfiable request");
        errno = ENODEV;
        return -1;
    }
    int never = 0;
    if (x->mode == GROVE_MATCH_ALLOCATE_WITH_SAT || x->mode == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
        || x->mode == GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE) {
        m->sat = true;
        int s = attempt_x(m, x, x->now, x->d);
        m->sat = false;
        if (s < 0)
            return -1;
        never = s == 0;
    }
    grove_error_set(err, NULL, 0, never ? "unsatisfiable request" : "no matching resources");
    errno = never ? ENODEV : EBUSY;
    return -1;
}

/* Complete the selection in m->sel: ancestors, what exclusive picks imply,
 * sorted by vertex id, and x->imp marking the picks an exclusive ancestor
 * implies.  0 or -1. */
static int match_complete(grove_matcher_t *m, struct matching *x)
{
    if (add_ancestors(m) < 0)
        return -1;
    if (!m->sat && expand_whole(m) < 0)
        return -1;
    if (m->pol.node_exclusive && !m->sat && expand_nodex(m) < 0)
        return -1;
    /* the search is over and nothing is rolled back from here: the undo
     * log's room (written already, as large as a whole machine's picks)
     * is the sort's scratch */
    m->nlog = 0;
    if (sort_picks(m->sel, m->nsel, m->log, m->logcap * sizeof(*m->log)) < 0)
        return -1;
    merge_channel_picks(m);
    if (!(x->imp = malloc(m->nsel ? m->nsel : 1))) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < m->nsel; i++) {
        x->imp[i] = implied(m, m->sel[i].v);
        /* below a vertex held whole, everything is held whole too */
        if (x->imp[i] && !m->sel[i].exclusive) {
            m->sel[i].exclusive = true;
            if (m->sel[i].leaf)
                m->sel[i].amount = m->g->v[m->sel[i].v].size;
        }
    }
    return 0;
}

/* From this many picks on, a job takes the matcher's selection array
 * itself rather than a copy. */
#define HANDOVER_MIN 4096

/* Make the selection a job: recorded in the graph and the table in the
 * modes that allocate, else the matcher's one result.  The job (borrowed)
 * or NULL (errno; nothing recorded). */
static const grove_job_t *match_commit(grove_matcher_t *m, const struct matching *x,
                                       grove_error_t *err)
{
    bool keep = x->mode == GROVE_MATCH_ALLOCATE || x->mode == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
                || x->mode == GROVE_MATCH_ALLOCATE_WITH_SAT;
    grove_job_t *job = NULL, *dst;
    if (keep) {
        if (!(job = calloc(1, sizeof(*job))))
            return NULL;
        dst = job;
    } else {
        free(m->result.picks);
        memset(&m->result, 0, sizeof(m->result));
        dst = &m->result;
    }
    if (m->nsel >= HANDOVER_MIN) {
        /* a large selection is handed over, not copied (a whole machine's
         * is 20 MB); the matcher grows a new one at its next match */
        grove_pick_t *p = realloc(m->sel, m->nsel * sizeof(*p)); /* shrinks in place */
        dst->picks = p ? p : m->sel;
        m->sel = NULL;
        m->selcap = 0;
    } else {
        dst->picks = malloc((m->nsel ? m->nsel : 1) * sizeof(*dst->picks));
        if (!dst->picks) {
            errno = ENOMEM;
            goto fail;
        }
        if (m->nsel) /* an empty match has no selection array at all */
            memcpy(dst->picks, m->sel, m->nsel * sizeof(*dst->picks));
    }
    dst->npicks = m->nsel;
    if (!m->sel)
        m->nsel = 0; /* handed over */
    dst->id = x->id;
    dst->start = x->at;
    dst->end = window_end(x->at, x->d);
    dst->state = keep ? (x->at == x->now ? GROVE_JOB_ALLOCATED : GROVE_JOB_RESERVED)
                      : GROVE_JOB_MATCHED;
    if (!keep)
        return dst;
    if (m->pol.explore_by_use && use_reserve(m, dst, x->now) < 0) {
        grove_error_set(err, NULL, 0, "match: could not rank the allocation's vertices: %s",
                        strerror(errno));
        goto fail;
    }
    if (record(m->g, x->id, dst->picks, dst->npicks, dst->start, dst->end, x->imp) < 0) {
        grove_error_set(err, NULL, 0, "match: could not record the allocation: %s",
                        strerror(errno));
        goto fail;
    }
    if (job_insert(m, job) < 0) {
        unrecord(m->g, x->id, dst->start, dst->end, dst->picks, dst->npicks);
        goto fail;
    }
    if (m->pol.explore_by_use)
        use_update(m, job, x->now);
    return dst;
fail:;
    int saved = errno;
    if (job)
        job_free(job);
    errno = saved;
    return NULL;
}

/* Count the time of one match in the statistics. */
static void match_timed(grove_matcher_t *m, double t0)
{
    double dt = now_s() - t0;
    if (m->stats.matches == 1 || dt < m->stats.min_s)
        m->stats.min_s = dt;
    if (dt > m->stats.max_s)
        m->stats.max_s = dt;
    m->stats.sum_s += dt;
}

/* The end of a match: free what x holds, hand the job out, keep its
 * request (ENOMEM: it cannot be re-planned), count.  0 with a job, else
 * -1 with errno as it was. */
static int match_done(grove_matcher_t *m, struct matching *x, const grove_jobspec_t *js,
                      const grove_job_t *job, const grove_job_t **out, double t0)
{
    int saved = errno;
    free(x->imp);
    free(x->reqs);
    free(x->tops);
    grove_policy_request_fini(&m->preq);
    m->sat = false;
    m->constraint = NULL;
    if (job) {
        if (out)
            *out = job;
        m->stats.succeeded++;
        if (job->state != GROVE_JOB_MATCHED)
            keep_request(m, job->id, js);
    }
    match_timed(m, t0);
    errno = saved;
    return job ? 0 : -1;
}

int grove_match(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                grove_jobid_t id, const grove_job_t **out, grove_error_t *err)
{
    double t0 = now_s();
    struct matching x = {.mode = mode, .id = id};
    const grove_job_t *job = NULL;
    if (out)
        *out = NULL;
    if (m->g->now != m->clock)
        grove_matcher_catch_up(m); /* ENOMEM: the states catch up next time */
    if (match_check(m, js, &x, err) < 0)
        return -1;
    m->stats.matches++;
    if (mode != GROVE_MATCH_SATISFIABILITY && x.id >= m->next_id)
        m->next_id = x.id + 1;
    m->err = err;
    m->hook_failed = 0;
    grove_error_clear(err);
    int found = -1;
    if (match_prepare(m, js, &x, err) == 0)
        found = match_search(m, &x);
    if (found <= 0)
        match_failed(m, &x, found, err);
    else if (match_complete(m, &x) == 0)
        job = match_commit(m, &x, err);
    return match_done(m, &x, js, job, out, t0);
}

/* Satisfiability on the vertices that are up: a SATISFIABILITY match with
 * m->sat_up set, under policy p (NULL: the matcher's), that leaves the
 * statistics and the last MATCHED result as they were. */
int grove_match_fits_idle(grove_matcher_t *m, const grove_jobspec_t *js,
                          const grove_policy_t *p, grove_error_t *err)
{
    grove_match_stats_t stats = m->stats;
    grove_job_t result = m->result;
    grove_policy_t pol = m->pol;
    memset(&m->result, 0, sizeof(m->result));
    if (p)
        m->pol = *p;
    m->sat_up = true;
    int rc = grove_match(m, js, GROVE_MATCH_SATISFIABILITY, 0, NULL, err);
    int e = errno;
    m->sat_up = false;
    m->pol = pol;
    free(m->result.picks);
    m->result = result;
    m->stats = stats;
    if (rc == 0)
        return 1;
    errno = e;
    return e == ENODEV ? 0 : -1;
}

/* ---- cancel and release ------------------------------------------------------------ */

int grove_matcher_cancel(grove_matcher_t *m, grove_jobid_t id)
{
    long i = job_index(m, id);
    if (i < 0)
        return -1;
    grove_job_t *j = m->jobs[i];
    unrecord(m->g, id, j->start, j->end, j->picks, j->npicks);
    job_remove_at(m, (size_t)i);
    return 0;
}

static int64_t rank_of(const grove_graph_t *g, grove_vid_t v)
{
    for (grove_vid_t a = v; a != GROVEP_NONE; a = g->parent[a])
        if (g->v[a].rank >= 0)
            return g->v[a].rank;
    return -1;
}

/* Index of pick v in a job's picks (sorted by vertex id), or -1. */
static long pick_index(const grove_job_t *j, grove_vid_t v)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, j->npicks, mid, j->picks[mid].v < v);
    return lo < j->npicks && j->picks[lo].v == v ? (long)lo : -1;
}

/* The index of v among job j's channel units (a pool or distribution unit
 * channel_take recorded: shared units, no exclusivity), or -1. */
static long channel_pick(const grove_job_t *j, grove_vid_t v)
{
    long x = pick_index(j, v);
    if (x < 0)
        return -1;
    const grove_pick_t *p = &j->picks[x];
    return p->leaf && !p->exclusive && p->recorded && p->amount > 0 ? x : -1;
}

/* Give back n of the units pick x holds (all: the pick leaves the job,
 * marked in rel).  1 when it left, else 0. */
static int channel_give(grove_matcher_t *m, grove_job_t *j, long x, int64_t n, uint8_t *rel)
{
    grove_pick_t *p = &j->picks[x];
    if (n >= p->amount) {
        grove_vertex_free(m->g, p->v, j->id, -1);
        p->recorded = false;
        rel[x] = 1;
        return 1;
    }
    grove_vertex_free(m->g, p->v, j->id, n);
    p->amount -= n;
    return 0;
}

/* The pool c left job j with its n units of type t, fed by d in
 * subsystem sub: give the same units back on every distribution unit
 * above d, as channel_path took them (the pools a unit feeds, first
 * first, else the unit itself).  Returns how many picks left. */
static long channel_unwind(grove_matcher_t *m, grove_job_t *j, grove_vid_t d, uint8_t sub,
                           grove_vid_t c, int64_t n, uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    grove_sym_t t = g->v[c].type, s = g->subsys[sub];
    long left = 0;
    for (grove_vid_t p = grove_vertex_parent(g, d, s); p != GROVE_VID_NONE;
         p = grove_vertex_parent(g, p, s)) {
        int64_t want = n;
        bool feeds = false;
        for (grove_eid_t e = g->first_out[p]; e != GROVEP_NONE && want > 0; e = g->e[e].next_out) {
            const grovep_edge_t *ed = &g->e[e];
            if (ed->sub != sub || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD))
                || g->v[ed->dst].type != t)
                continue;
            feeds = true;
            long x = channel_pick(j, ed->dst);
            if (x < 0)
                continue;
            int64_t k = j->picks[x].amount < want ? j->picks[x].amount : want;
            left += channel_give(m, j, x, k, rel);
            want -= k;
        }
        long x;
        if (!feeds && (x = channel_pick(j, p)) >= 0 && g->v[p].unit == g->v[c].unit)
            left += channel_give(m, j, x, want, rel);
    }
    return left;
}

/* The channel units fed by d (a vertex leaving job j) leave with it: the
 * pools d feeds outside containment that the job holds, and their units
 * on the path above (channel_match took them for d; units taken for a
 * request with no feeder among the job's vertices stay until the job
 * goes).  Returns how many picks left. */
static long channel_release(grove_matcher_t *m, grove_job_t *j, grove_vid_t d, uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    long left = 0;
    for (grove_eid_t e = g->first_out[d]; e != GROVEP_NONE; e = g->e[e].next_out) {
        const grovep_edge_t *ed = &g->e[e];
        long x;
        if (ed->sub == g->containment || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD))
            || g->parent[ed->dst] != GROVEP_NONE || (x = channel_pick(j, ed->dst)) < 0)
            continue;
        int64_t n = j->picks[x].amount;
        left += channel_give(m, j, x, n, rel);
        left += channel_unwind(m, j, d, ed->sub, ed->dst, n, rel);
    }
    return left;
}

/* Pick x of job j, a channel pool released by name, gives its units back
 * on the path above its feeder too.  Returns how many other picks left. */
static long channel_pool_release(grove_matcher_t *m, grove_job_t *j, long x, uint8_t *rel)
{
    const grove_graph_t *g = m->g;
    grove_vid_t c = j->picks[x].v;
    if (g->parent[c] != GROVEP_NONE || channel_pick(j, c) < 0)
        return 0;
    for (grove_eid_t e = g->first_in[c]; e != GROVEP_NONE; e = g->e[e].next_in) {
        const grovep_edge_t *ed = &g->e[e];
        if (ed->sub == g->containment || (ed->flags & (GROVEP_E_UP | GROVEP_E_DEAD)))
            continue;
        int64_t n = j->picks[x].amount;
        channel_give(m, j, x, n, rel);
        return channel_unwind(m, j, ed->src, ed->sub, c, n, rel);
    }
    return 0;
}

/* Which picks of job j stay when those marked in rel go: its remaining
 * records, what they imply below them, and the containers above them. */
static void release_keep(const grove_matcher_t *m, const grove_job_t *j, const uint8_t *rel,
                         uint8_t *keep)
{
    const grove_graph_t *g = m->g;
    for (size_t p = 0; p < j->npicks; p++)
        keep[p] = !rel[p] && j->picks[p].recorded;
    for (size_t p = 0; p < j->npicks; p++) {
        if (rel[p] || keep[p])
            continue;
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE; a = g->parent[a]) {
            long x = pick_index(j, a);
            if (x >= 0 && keep[x] && j->picks[x].exclusive && j->picks[x].recorded) {
                keep[p] = 1;
                break;
            }
        }
    }
    for (size_t p = 0; p < j->npicks; p++) {
        if (!keep[p] || rel[p])
            continue;
        for (grove_vid_t a = g->parent[j->picks[p].v]; a != GROVEP_NONE; a = g->parent[a]) {
            long x = pick_index(j, a);
            if (x < 0 || keep[x])
                break;
            if (!rel[x])
                keep[x] = 1;
        }
    }
}

/* Release the picks of job i marked in rel[] (marks are added for the
 * channel units that go with them).  What stays is what release_keep
 * says; shared containers left with nothing below go too, and so do the
 * channel units of every vertex that goes.  The job goes when it holds
 * nothing. */
static long release_marked(grove_matcher_t *m, size_t i, uint8_t *rel, bool *removed)
{
    grove_job_t *j = m->jobs[i];
    long n = 0;
    uint8_t *keep = calloc(j->npicks ? j->npicks : 1, 1);
    uint8_t *fed = calloc(j->npicks ? j->npicks : 1, 1); /* channel units given back */
    if (!keep || !fed) {
        free(keep);
        free(fed);
        errno = ENOMEM;
        return -1;
    }
    /* what the caller named (channel units given back below mark more) */
    memcpy(keep, rel, j->npicks);
    for (size_t p = 0; p < j->npicks; p++) {
        if (keep[p]) {
            n += channel_pool_release(m, j, (long)p, rel);
            if (j->picks[p].recorded)
                grove_vertex_free(m->g, j->picks[p].v, j->id, -1);
            j->picks[p].recorded = false;
            n++;
        }
    }
    /* a vertex going gives back its channel units; that may leave a
     * container (a switch's rack) with nothing below: until nothing moves */
    long gave;
    do {
        release_keep(m, j, rel, keep);
        gave = 0;
        for (size_t p = 0; p < j->npicks; p++) {
            if (keep[p] || fed[p])
                continue;
            fed[p] = 1;
            gave += channel_release(m, j, j->picks[p].v, rel);
        }
        n += gave;
    } while (gave > 0);
    size_t k = 0;
    bool held = false;
    for (size_t p = 0; p < j->npicks; p++) {
        if (!keep[p]) {
            if (!rel[p])
                n++; /* a container left with nothing below: released too */
            if (j->use_held)
                (void)use_count_all(m, USE_HELD, &j->picks[p], 1, -1);
            continue;
        }
        held |= j->picks[p].recorded;
        j->picks[k++] = j->picks[p];
    }
    j->npicks = k;
    free(keep);
    free(fed);
    if (!held) {
        unrecord(m->g, j->id, j->start, j->end, j->picks, j->npicks);
        job_remove_at(m, i);
    }
    if (removed)
        *removed = !held;
    return n;
}

/* A zeroed release mark per pick of job id (new: caller frees), its place
 * in the table in *i; NULL with ENOENT or ENOMEM. */
static uint8_t *release_marks(const grove_matcher_t *m, grove_jobid_t id, size_t *i)
{
    long k = job_index(m, id);
    if (k < 0)
        return NULL;
    *i = (size_t)k;
    size_t n = m->jobs[k]->npicks;
    uint8_t *rel = calloc(n ? n : 1, 1);
    if (!rel)
        errno = ENOMEM;
    return rel;
}

long grove_matcher_release_ranks(grove_matcher_t *m, grove_jobid_t id,
                                 const grove_idset_t *ranks, bool *removed)
{
    size_t i;
    uint8_t *rel = release_marks(m, id, &i);
    if (!rel)
        return -1;
    const grove_job_t *j = m->jobs[i];
    for (size_t p = 0; p < j->npicks; p++) {
        int64_t r = rank_of(m->g, j->picks[p].v);
        rel[p] = r >= 0 && r < (int64_t)UINT32_MAX && grove_idset_test(ranks, (unsigned)r);
    }
    long n = release_marked(m, i, rel, removed);
    free(rel);
    return n;
}

long grove_matcher_release_vertices(grove_matcher_t *m, grove_jobid_t id,
                                    const grove_vid_t *vs, size_t n, bool *removed)
{
    size_t i;
    uint8_t *rel = release_marks(m, id, &i);
    if (!rel)
        return -1;
    for (size_t k = 0; k < n; k++) {
        long x = pick_index(m->jobs[i], vs[k]);
        if (x < 0) {
            free(rel);
            errno = EINVAL;
            return -1;
        }
        rel[x] = 1;
    }
    long r = release_marked(m, i, rel, removed);
    free(rel);
    return r;
}

void grove_matcher_stats(const grove_matcher_t *m, grove_match_stats_t *st)
{
    *st = m->stats;
}

void grove_matcher_stats_reset(grove_matcher_t *m)
{
    memset(&m->stats, 0, sizeof(m->stats));
}

int grove_matcher_restore(grove_matcher_t *m, const grove_job_t *src)
{
    if (!src || src->id == 0 || src->end <= src->start) {
        errno = EINVAL;
        return -1;
    }
    if (grove_matcher_job(m, src->id)) {
        errno = EEXIST;
        return -1;
    }
    grove_job_t *j = calloc(1, sizeof(*j));
    uint8_t *imp = calloc(src->npicks ? src->npicks : 1, 1);
    grove_pick_t *pk = malloc((src->npicks ? src->npicks : 1) * sizeof(*pk));
    if (!j || !imp || !pk) {
        free(imp);
        free(pk);
        job_free(j);
        errno = ENOMEM;
        return -1;
    }
    *j = *src;
    j->picks = pk;
    memcpy(j->picks, src->picks, src->npicks * sizeof(*j->picks));
    qsort(j->picks, j->npicks, sizeof(*j->picks), cmp_pick);
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        /* a saved job is recorded without the matcher's checks: a unit
         * count its vertex cannot hold is refused here */
        if (!grove_graph_has_vertex(m->g, p->v)
            || (p->leaf && !p->exclusive
                && (p->amount <= 0 || p->amount > m->g->v[p->v].size))) {
            free(imp);
            job_free(j);
            errno = EINVAL;
            return -1;
        }
    }
    /* which picks carry records: as the job says when it says (a saved job:
     * its walk may have followed another subsystem, its channeled pools
     * lie outside containment), else those without an exclusive
     * containment ancestor among the picks */
    bool said = false;
    for (size_t i = 0; i < j->npicks && !said; i++)
        said = j->picks[i].recorded;
    for (size_t i = 0; said && i < j->npicks; i++)
        imp[i] = !j->picks[i].recorded;
    for (size_t i = 0; !said && i < j->npicks; i++) {
        for (grove_vid_t a = m->g->parent[j->picks[i].v]; a != GROVEP_NONE && !imp[i];
             a = m->g->parent[a]) {
            size_t lo;
            GROVEP_LOWER_BOUND(lo, j->npicks, mid, j->picks[mid].v < a);
            if (lo < j->npicks && j->picks[lo].v == a && j->picks[lo].exclusive)
                imp[i] = 1;
        }
    }
    int rc = record(m->g, j->id, j->picks, j->npicks, j->start, j->end, imp);
    free(imp);
    if (rc < 0 || job_insert(m, j) < 0) {
        int saved = errno;
        if (rc == 0)
            unrecord(m->g, j->id, j->start, j->end, j->picks, j->npicks);
        job_free(j);
        errno = saved;
        return -1;
    }
    return 0;
}

/* ---- the rest of the model: requests kept, chosen windows, grow, re-plan,
 * a clock that moves ------------------------------------------------------------ */

static size_t kept_pos(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, m->nkept, mid, m->kept[mid].id < id);
    return lo;
}

static struct kept *kept_find(const grove_matcher_t *m, grove_jobid_t id)
{
    size_t i = kept_pos(m, id);
    return i < m->nkept && m->kept[i].id == id ? &m->kept[i] : NULL;
}

static void kept_free(grove_matcher_t *m)
{
    for (size_t i = 0; i < m->nkept; i++)
        json_decref(m->kept[i].docs);
    free(dtab_base(m->kept, m->kept_off, sizeof(*m->kept)));
    free(m->events);
}

static void kept_forget(grove_matcher_t *m, grove_jobid_t id)
{
    size_t i = kept_pos(m, id);
    if (i < m->nkept && m->kept[i].id == id) {
        json_decref(m->kept[i].docs);
        dtab_close((void **)&m->kept, &m->nkept, &m->keptcap, &m->kept_off, sizeof(*m->kept),
                   i);
    }
}

/* Make docs (taken: a reference the table now owns) the request of job id,
 * replacing what it had.  0 or -1 (ENOMEM; docs released). */
static int kept_put(grove_matcher_t *m, grove_jobid_t id, json_t *docs)
{
    struct kept *k = kept_find(m, id);
    if (k) {
        json_decref(k->docs);
        k->docs = docs;
        return 0;
    }
    size_t i = kept_pos(m, id);
    if (dtab_open((void **)&m->kept, &m->nkept, &m->keptcap, &m->kept_off, sizeof(*m->kept), i)
        < 0) {
        json_decref(docs);
        return -1;
    }
    m->kept[i] = (struct kept){id, docs};
    return 0;
}

/* The number of jobspecs kept in k, and the i-th. */
static size_t kept_count(const struct kept *k)
{
    return json_is_array(k->docs) ? json_array_size(k->docs) : 1;
}

static json_t *kept_doc(const struct kept *k, size_t i)
{
    return json_is_array(k->docs) ? json_array_get(k->docs, i) : k->docs;
}

/* Keep js (its document: a reference, not a copy) as the request of job id,
 * or as one more grow of it.  0 or -1 (ENOMEM: the job keeps what it had). */
static int keep_request(grove_matcher_t *m, grove_jobid_t id, const grove_jobspec_t *js)
{
    json_t *doc = (json_t *)(uintptr_t)grove_jobspec_json(js);
    struct kept *k = kept_find(m, id);
    if (!k)
        return kept_put(m, id, json_incref(doc));
    if (json_is_array(k->docs)) {
        if (json_array_append(k->docs, doc) == 0)
            return 0;
    } else {
        json_t *docs = json_pack("[OO]", k->docs, doc); /* the first grow */
        if (docs)
            return kept_put(m, id, docs);
    }
    errno = ENOMEM;
    return -1;
}

char *grove_matcher_request(const grove_matcher_t *m, grove_jobid_t id)
{
    const struct kept *k = kept_find(m, id);
    if (!k || !grove_matcher_job(m, id)) {
        errno = ENOENT;
        return NULL;
    }
    /* always an array of jobspecs, as grove_matcher_set_request takes it */
    json_t *docs = json_is_array(k->docs) ? json_incref(k->docs) : json_pack("[O]", k->docs);
    char *text = docs ? json_dumps(docs, JSON_COMPACT) : NULL;
    json_decref(docs);
    if (!text)
        errno = ENOMEM;
    return text;
}

/* The documents of a request text, each checked as a jobspec (new), or
 * NULL with EINVAL (err says why) or ENOMEM. */
static json_t *request_docs(const char *text, grove_error_t *err)
{
    json_error_t je;
    json_t *docs = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!docs) {
        grovep_errorf(err, EINVAL, "request: not JSON: %s (line %d, column %d)", je.text,
                      je.line, je.column);
        return NULL;
    }
    if (!json_is_array(docs) || json_array_size(docs) == 0) {
        json_decref(docs);
        grovep_errorf(err, EINVAL, "request: not a non-empty array of jobspecs");
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(docs); i++) {
        grove_error_t e = {0};
        grove_jobspec_t *js = grove_jobspec_from_json(json_array_get(docs, i), NULL, &e);
        if (!js) {
            int saved = errno;
            json_decref(docs);
            grovep_errorf(err, saved == ENOMEM ? ENOMEM : EINVAL,
                          "request: jobspec %zu: %s", i + 1, e.text);
            return NULL;
        }
        grove_jobspec_destroy(js);
    }
    return docs;
}

int grove_matcher_set_request(grove_matcher_t *m, grove_jobid_t id, const char *text,
                              grove_error_t *err)
{
    grove_error_clear(err);
    if (!grove_matcher_job(m, id))
        return grovep_errorf(err, ENOENT, "request: no job %llu", (unsigned long long)id);
    if (!text)
        return grovep_errorf(err, EINVAL, "request: no text");
    json_t *docs = request_docs(text, err);
    if (!docs)
        return -1;
    if (kept_put(m, id, docs) < 0)
        return grovep_errorf(err, ENOMEM, "out of memory");
    return 0;
}

/* Merge the selection m->sel (recorded for job j) into j's picks: one
 * pick per vertex, units of a pool the job held already added up.  The
 * merged array is made by the caller beforehand (so nothing can fail
 * after the records are written): out has room for both lists. */
static void merge_picks(grove_job_t *j, const grove_pick_t *add, size_t n, grove_pick_t *out)
{
    size_t a = 0, b = 0, k = 0;
    while (a < j->npicks || b < n) {
        if (b == n || (a < j->npicks && j->picks[a].v < add[b].v)) {
            out[k++] = j->picks[a++];
        } else if (a == j->npicks || add[b].v < j->picks[a].v) {
            out[k++] = add[b++];
        } else {
            grove_pick_t p = j->picks[a++];
            const grove_pick_t *q = &add[b++];
            if (q->recorded) {
                p.amount = p.recorded && p.leaf ? p.amount + q->amount : q->amount;
                p.exclusive = p.exclusive || q->exclusive;
                p.leaf = q->leaf;
                p.recorded = true;
            }
            out[k++] = p;
        }
    }
    j->npicks = k;
}

/* Record the completed selection as more of job j (over j's window). */
static const grove_job_t *grow_commit(grove_matcher_t *m, const struct matching *x, grove_job_t *j,
                                      grove_error_t *err)
{
    grove_pick_t *merged = malloc((j->npicks + m->nsel + 1) * sizeof(*merged));
    if (!merged) {
        errno = ENOMEM;
        return NULL;
    }
    if (record(m->g, j->id, m->sel, m->nsel, j->start, j->end, x->imp) < 0) {
        grove_error_set(err, NULL, 0, "grow: could not record the allocation: %s",
                        strerror(errno));
        free(merged);
        return NULL;
    }
    merge_picks(j, m->sel, m->nsel, merged);
    free(j->picks);
    j->picks = merged;
    return j;
}

/* One match in a fixed window [start, end) (end 0: start plus the
 * duration), as a new job, or as more of job grow (its window).  The body
 * of grove_match_window and grove_match_grow. */
static int match_fixed(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                       grove_jobid_t id, int64_t start, int64_t end, grove_job_t *grow,
                       const grove_job_t **out, grove_error_t *err)
{
    double t0 = now_s();
    struct matching x = {.mode = mode, .id = id};
    const grove_job_t *job = NULL;
    if (grow) {
        x.id = grow->id;
    } else if (match_check(m, js, &x, err) < 0) {
        return -1;
    }
    m->stats.matches++;
    if (!grow && mode != GROVE_MATCH_WITHOUT_ALLOCATING && x.id >= m->next_id)
        m->next_id = x.id + 1;
    m->err = err;
    m->hook_failed = 0;
    int found = -1;
    if (match_prepare(m, js, &x, err) == 0) {
        if (end == 0)
            end = window_end(start, x.d);
        x.d = end - start;
        x.at = start;
        found = attempt_x(m, &x, start, x.d);
    }
    if (found <= 0) {
        /* the satisfiability check of match_failed looks from now */
        x.now = m->g->now;
        match_failed(m, &x, found, err);
    } else if (match_complete(m, &x) == 0) {
        job = grow ? grow_commit(m, &x, grow, err) : match_commit(m, &x, err);
    }
    return match_done(m, &x, js, job, out, t0);
}

int grove_match_window(grove_matcher_t *m, const grove_jobspec_t *js, grove_match_mode_t mode,
                       grove_jobid_t id, int64_t start, int64_t end, const grove_job_t **out,
                       grove_error_t *err)
{
    if (out)
        *out = NULL;
    grove_error_clear(err);
    if (m->g->now != m->clock)
        grove_matcher_catch_up(m);
    if (!js)
        return grovep_errorf(err, EINVAL, "match: no jobspec");
    if (mode != GROVE_MATCH_ALLOCATE && mode != GROVE_MATCH_ALLOCATE_WITH_SAT
        && mode != GROVE_MATCH_WITHOUT_ALLOCATING)
        return grovep_errorf(err, EINVAL,
                             "match: a chosen window takes the modes allocate, "
                             "allocate_with_satisfiability and without_allocating");
    if (start < m->g->now)
        return grovep_errorf(err, EINVAL, "match: the window starts at %lld, before now (%lld)",
                      (long long)start, (long long)m->g->now);
    if (end != 0 && end <= start)
        return grovep_errorf(err, EINVAL, "match: the window ends at %lld, not after its start (%lld)",
                      (long long)end, (long long)start);
    return match_fixed(m, js, mode, id, start, end, NULL, out, err);
}

int grove_match_grow(grove_matcher_t *m, const grove_jobspec_t *js, grove_jobid_t id,
                     const grove_job_t **out, grove_error_t *err)
{
    if (out)
        *out = NULL;
    grove_error_clear(err);
    if (m->g->now != m->clock)
        grove_matcher_catch_up(m);
    if (!js)
        return grovep_errorf(err, EINVAL, "grow: no jobspec");
    long i = job_index(m, id);
    if (i < 0)
        return grovep_errorf(err, ENOENT, "grow: no job %llu", (unsigned long long)id);
    grove_job_t *j = m->jobs[i];
    return match_fixed(m, js, GROVE_MATCH_ALLOCATE_WITH_SAT, id, j->start, j->end, j, out, err);
}

/* The kept requests of a job parsed again (new; caller destroys each and
 * frees the array), *n of them; NULL with *n 0 when none are kept, or
 * NULL with ENOMEM/EINVAL. */
static grove_jobspec_t **kept_specs(const grove_matcher_t *m, grove_jobid_t id, size_t *n,
                                    grove_error_t *err)
{
    const struct kept *k = kept_find(m, id);
    *n = 0;
    if (!k)
        return NULL;
    size_t c = kept_count(k);
    grove_jobspec_t **v = calloc(c ? c : 1, sizeof(*v));
    if (!v) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < c; i++) {
        if (!(v[i] = grove_jobspec_from_json(kept_doc(k, i), NULL, err))) {
            while (i-- > 0)
                grove_jobspec_destroy(v[i]);
            free(v);
            return NULL;
        }
    }
    *n = c;
    return v;
}

/* Take job i out of the table without freeing it (its records stay); the
 * table gives back room it no longer needs. */
static grove_job_t *job_detach(grove_matcher_t *m, size_t i)
{
    grove_job_t *j = m->jobs[i];
    use_forget(m, j);
    dtab_close((void **)&m->jobs, &m->njobs, &m->jobcap, &m->jobs_off, sizeof(*m->jobs), i);
    return j;
}

/* Match the kept requests of job id anew (the job out of the table): 1
 * placed, 0 fits nowhere (nothing recorded), -1 error (nothing recorded). */
static int replace(grove_matcher_t *m, grove_jobid_t id, grove_jobspec_t **specs, size_t n,
                   const grove_job_t **out, grove_error_t *err)
{
    int rc = grove_match(m, specs[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, id, out, err);
    for (size_t i = 1; i < n && rc == 0; i++)
        rc = grove_match_grow(m, specs[i], id, out, err);
    if (rc == 0)
        return 1;
    int saved = errno;
    if (grove_matcher_job(m, id))
        grove_matcher_cancel(m, id); /* a grow did not fit with the rest */
    errno = saved;
    return errno == EBUSY || errno == ENODEV ? 0 : -1;
}

int grove_matcher_replan(grove_matcher_t *m, grove_jobid_t id, const grove_job_t **out,
                         grove_error_t *err)
{
    if (out)
        *out = NULL;
    long i = job_index(m, id);
    if (i < 0)
        return grovep_errorf(err, ENOENT, "replan: no job %llu", (unsigned long long)id);
    size_t n;
    grove_jobspec_t **specs = kept_specs(m, id, &n, err);
    if (!specs && n == 0 && kept_find(m, id))
        return -1;
    if (!specs) { /* restored from saved state: its request is not known */
        grove_matcher_cancel(m, id);
        return 0;
    }
    json_t *docs = json_incref(kept_find(m, id)->docs);
    grove_job_t *old = job_detach(m, (size_t)i);
    unrecord(m->g, id, old->start, old->end, old->picks, old->npicks);
    kept_forget(m, id);
    int rc = replace(m, id, specs, n, out, err);
    int saved = errno;
    if (rc < 0 && grove_matcher_restore(m, old) == 0)
        kept_put(m, id, json_incref(docs)); /* as it was, request included */
    json_decref(docs);
    job_free(old);
    for (size_t k = 0; k < n; k++)
        grove_jobspec_destroy(specs[k]);
    free(specs);
    errno = saved;
    return rc;
}

/* ---- the dominant subsystem ------------------------------------------------------- */

int grove_matcher_set_dominant(grove_matcher_t *m, const char *subsystem)
{
    if (!subsystem || !strcmp(subsystem, GROVE_CONTAINMENT)) {
        m->dominant = GROVE_SYM_NONE;
        return 0;
    }
    grove_sym_t s = grove_graph_sym(m->g, subsystem);
    if (s == GROVE_SYM_NONE)
        return -1;
    m->dominant = s;
    return 0;
}

const char *grove_matcher_dominant(const grove_matcher_t *m)
{
    return grove_graph_str(m->g, dom_sym(m));
}

/* ---- the clock -------------------------------------------------------------------- */

void grove_matcher_set_overdue(grove_matcher_t *m, grove_overdue_t o)
{
    m->overdue = o;
}

static int event_push(grove_matcher_t *m, grove_job_event_kind_t kind, grove_jobid_t id,
                      int64_t at)
{
    if (grovep_grow((void **)&m->events, &m->evcap, m->nevents + 1, sizeof(*m->events)) < 0)
        return -1;
    m->events[m->nevents++] = (grove_job_event_t){kind, id, at};
    return 0;
}

/* Time order; at one instant ends before starts (what ends frees what
 * starts), then by job id. */
static int cmp_event(const void *a, const void *b)
{
    const grove_job_event_t *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    int kx = x->kind == GROVE_EVENT_START, ky = y->kind == GROVE_EVENT_START;
    if (kx != ky)
        return kx - ky;
    return (x->id > y->id) - (x->id < y->id);
}

long grove_matcher_catch_up(grove_matcher_t *m)
{
    int64_t now = m->g->now, was = m->clock;
    size_t first = m->nevents;
    m->clock = now;
    if (now <= was)
        return 0; /* back in time: nothing starts again or un-ends */
    int rc = 0;
    for (size_t i = 0; i < m->njobs && rc == 0;) {
        grove_job_t *j = m->jobs[i];
        if (j->state == GROVE_JOB_RESERVED && j->start <= now) {
            j->state = GROVE_JOB_ALLOCATED;
            rc = event_push(m, GROVE_EVENT_START, j->id, j->start);
        }
        if (rc == 0 && j->end <= now && j->end > was) {
            if (m->overdue == GROVE_OVERDUE_REPORT) {
                rc = event_push(m, GROVE_EVENT_OVERDUE, j->id, j->end);
            } else {
                if ((rc = event_push(m, GROVE_EVENT_END, j->id, j->end)) == 0) {
                    grove_matcher_cancel(m, j->id);
                    continue; /* the next job moved to i */
                }
            }
        }
        i++;
    }
    if (m->nevents - first > 1)
        qsort(m->events + first, m->nevents - first, sizeof(*m->events), cmp_event);
    return rc < 0 ? -1 : (long)(m->nevents - first);
}

long grove_matcher_set_now(grove_matcher_t *m, int64_t t)
{
    if (t < 0) {
        errno = EINVAL;
        return -1;
    }
    grove_graph_set_now(m->g, t);
    return grove_matcher_catch_up(m);
}

size_t grove_matcher_event_count(const grove_matcher_t *m)
{
    return m->nevents;
}

const grove_job_event_t *grove_matcher_event_at(const grove_matcher_t *m, size_t i)
{
    return i < m->nevents ? &m->events[i] : NULL;
}

void grove_matcher_events_clear(grove_matcher_t *m)
{
    m->nevents = 0;
}
