/* match_private.h: what the matcher's files (match.c, match_walk.c,
 * match_slot.c, match_use.c, match_channel.c, match_request.c,
 * match_time.c, match_never.c, match_record.c, match_job.c) share, and no other file may
 * include: the matcher's struct, the compiled request, the per-match
 * scratch state with its small helpers, and the functions one of them
 * calls in another.
 *
 * The scratch and availability helpers are static inline here because the
 * hottest loops (a whole machine takes a million vertices) call them for
 * every vertex: they must stay inlined in every file that uses them.
 */
#ifndef GROVE_MATCH_PRIVATE_H
#define GROVE_MATCH_PRIVATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "error_private.h"
#include "util.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "match.h"

/* per-vertex match flags */
/* constraints whose verdicts a matcher keeps (struct grovep_verdicts) */
#define GROVEP_CV_SLOTS 4

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
    int64_t idle1, idle_tot; /* nodes wholly idle one candidate (or one slot)
                              * needs at least (nodes written exclusive), and
                              * the whole count: pruned by grovep_agg_idle's bound */
};

/* How many types a match remembers whether it ranks (rank_memo): graphs
 * have a handful; a type past these is asked again at each use. */
#define RANK_MEMO_N 16

/* How the vertices of a type are ranked (rank_memo.how): by the policy's
 * scores (and choose), by its order, or both (the order first, the scores
 * then sorting with ties in its order). */
#define RANK_BY_SCORE 1
#define RANK_BY_ORDER 2

/* The subsystem tag of the kept rankings in the order table (oslot.sub):
 * apart from the kept orders of the same vertex's children. */
#define RANK_SUB 0x80

/* A block of per-match vertex state (see blk in the matcher). */
#define SBLK_SHIFT 10
#define SBLK_N ((grove_vid_t)1 << SBLK_SHIFT)
struct sblk {
    int64_t taken[SBLK_N];
    uint8_t mflags[SBLK_N];
    bool resident; /* every page of it written once (grovep_match_sblk_lend) */
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
    uint32_t kids; /* offset in the kid arena, or in the tree's list (in_tree) */
    uint32_t top;  /* the kid arena's top when the frame was pushed */
    uint32_t nkids, next;
    /* the children are all of v's, in the graph's order (the tree's list,
     * none reordered): the i-th lies in block i / agg_blk of a wide v */
    bool graph_order;
    /* the children are read from containment's tree itself (m->tk), not
     * copied: nothing reorders them */
    bool in_tree;
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
    uint32_t ord;  /* its children's kept order (an index in uordh), or
                    * UINT32_MAX */
    bool dirty;    /* the kept order must be sorted again: more than one
                    * child's rank changed since it was (see uorder) */
};

/* A kept order of a parent's children (grovep_match_use_kept_order): its
 * span in uord, sorted, and the one child whose rank changed since, if
 * only one did, which moves to its place without sorting the others. */
struct uorder {
    uint32_t at;         /* first child in uord */
    grove_vid_t moved;   /* the child whose rank changed, or GROVEP_NONE */
    uint64_t moved_rank; /* its rank when the order was sorted */
};

struct grove_matcher {
    grove_graph_t *g;
    struct grovep_holder *holder; /* shared with g while this matcher keeps jobs there */
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
    /* the kept orders of containment's children (grovep_match_push_frame): a copy of
     * each such parent's span of the tree's child arrays, sorted again
     * only when a child's rank changed; valid for the tree of uord_tree */
    grove_vid_t *uord;
    size_t nuord, uordcap;
    struct uorder *uordh; /* one for each kept order, in the order made */
    size_t nuordh, uordhcap;
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
    /* grove_matcher_set_search_limit's limit (0: none), and where the last
     * search it stopped would go on */
    double search_limit_s;
    int64_t resume_at;
    /* grove_matcher_set_compact: a reservation's selection is kept without
     * what lies below the vertices it holds whole, until it is read */
    bool compact;
    /* grove_matcher_set_tell_never off: a failed match answers EBUSY
     * without looking whether it could ever fit */
    bool busy_only;
    /* the last block asked of (blk_fits), for which need, and its answer:
     * the children of a block listed in turn ask once.  Forgotten at each
     * attempt (grovep_match_new_generation): the aggregates do not change
     * within one */
    const struct grovep_agg *blk_last;
    const int64_t *blk_need;
    bool blk_ok;

    /* per-match scratch, indexed by vertex id */
    /* vertices below which no slot of the current grovep_match_take_slots
     * call fits: slot_dead[v] == slot_cur (slot_gen numbers the calls) */
    uint32_t *slot_dead;
    size_t slot_dead_cap;
    uint32_t slot_gen, slot_cur;
    bool slot_multi; /* the call wants more than one slot: its walks mark
                      * the children of blocks with no room (match_slot.c) */
    /* the home the current call's last slot was placed on (its
     * slot_children), where the next slot's walk is resumed
     * (match_slot.c, slot_resume); GROVE_VID_NONE for none */
    grove_vid_t slot_last;
    /* a vertex's scratch state (taken, mflags) is current when its stamp
     * is gen.  One byte a vertex slot: the generation wraps every 255
     * attempts that stamped something, and the stamps are cleared then
     * (grovep_match_new_generation) */
    uint8_t gen;
    bool gen_kept; /* the stamps of gen outlive an emptied undo log
                    * (match_complete): the next generation is a new one */
    uint8_t *stamp;
    size_t scap;
    /* the state of the current vertices (taken, mflags) lives in blocks of
     * SBLK_N vertex slots: block i of the slots is blk[i] when bgen[i] is
     * gen, lent from a pool at its first stamp of the generation and given
     * back to the pool with it.  A one-core job writes the state of a few
     * vertices on a rack no job went to yet: in arrays indexed by vertex
     * id those were fresh pages, a fault each inside the job (~1.5 a job,
     * ~25 us each on a virtual machine), where the pool's few blocks stay
     * resident from one match to the next */
    struct sblk **blk; /* [scap / SBLK_N] */
    uint8_t *bgen;     /* [scap / SBLK_N] */
    struct sblk **pool;
    size_t npool, nlent;
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
    /* the policy's order of each vertex's children, kept for the attempt
     * (one window tried, see grovep_match_order_forget): the walk enters a
     * vertex more than once in an attempt (a trial, then the take; a
     * slot's homes), and an order depends on nothing that changes in
     * one.  An open-addressed table of slots, live when they carry the
     * attempt's epoch, and the orders in okids. */
    struct oslot {
        grove_vid_t v;
        uint32_t epoch;
        uint32_t at, n; /* the order: okids[at .. at + n) */
        uint8_t sub;    /* the subsystem its children were listed in */
    } *oslot;
    size_t noslot, oslotcap; /* oslotcap: 0 or a power of two */
    uint32_t oepoch;
    grove_vid_t *okids;
    size_t nokids, okidcap;

    /* the match being made */
    int64_t start, end;
    bool sat;  /* satisfiability: ignore records and status */
    bool sat_up; /* with sat: still leave out the vertices that are not up */
    const grove_constraint_t *constraint;
    grove_sym_t ctype, node_sym;
    /* Slots kept within one locality domain (GROVE_DOMAIN_TYPE; dom_sym
     * NONE: the graph has none, and nothing here applies).  An attempt
     * is made first with slot_local set: a slot whose home lies above a
     * domain and whose picks span two is refused there (local_refused
     * says one was); only when that attempt fails for it is it made
     * again with slot_local clear, and each slot then placed across
     * domains counts in nspread (rolled back with the selection). */
    grove_sym_t dom_sym;
    bool slot_local, local_refused;
    uint32_t nspread;
    /* The verdicts of a few constraints on the execution targets, kept
     * between matches (grovep_match_verdicts): each constraint by its key
     * (grove_constraint_key), a byte a vertex slot (0 not yet asked, 1
     * meets it, 2 does not; CV_BLK_* above them on a block's first child,
     * cblk_pass), valid while the graph's content holds (chg_gen: names,
     * ranks, properties).  cv_cur: this match's, or NULL (no constraint,
     * or no memory for one). */
    struct grovep_verdicts {
        char *key;
        uint64_t gen, used;
        uint8_t *v;
        size_t cap;
    } cv[GROVEP_CV_SLOTS];
    uint8_t *cv_cur;
    uint64_t cv_tick;
    grove_error_t *err;
    int hook_failed;
    /* a prune_static policy's answers by vertex (0 not asked, 1 looked
     * into, 2 skipped), valid while the graph's chg_gen is pmemo_gen:
     * such a prune answers alike whenever it is asked, so a kept ranking
     * that lists the same skipped nodes first at every match (spread's
     * emptiest) pays a load a node, as a constraint's verdict does */
    uint8_t *pmemo;
    size_t pmemocap;
    uint64_t pmemo_gen;
    /* the order hook moved a list out of id order in this match (a policy
     * whose id_order is checked, grove_policy_t.id_check): slots and the
     * top level are then taken in the walk's order (id_dir) */
    bool id_moved;

    /* the rest of the model (match_job.c) */
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
    uint64_t status_seen;      /* the graph's status_gen the reservations were
                                * checked at (grove_matcher_catch_up) */
    grove_overdue_t overdue;
    grove_sym_t dominant;      /* the subsystem the walk follows (NONE: containment) */
    uint8_t dom_sub;           /* its index in g->subsys, set for each match */
    const grove_vid_t *par;    /* parents in it: g->parent, or dpar */
    const grove_vid_t *tk;     /* children in it when they are all the tree's
                                * (grovep_tree_kids), else NULL: edge lists */
    const uint32_t *tkoff;
    const uint8_t *tkkind;     /* what each vertex's children are (GROVEP_TK_*) */
    grove_vid_t *dpar;         /* parents in another dominant subsystem */
    size_t dparcap;
    grove_policy_request_t preq; /* the request as hooks see it */
    /* Ranking at the levels the request does not name (match_walk.c,
     * rank_kids): set for each match by grovep_match_rank_setup. */
    bool rank_on;               /* rank_score or rank_order */
    bool rank_score;            /* the policy scores or chooses (select best) */
    bool rank_order;            /* its order sorts order_types across levels */
    uint64_t rank_need;         /* what the level walked for still needs (ctx.count) */
    struct rank_memo {          /* whether vertices of a type are ranked */
        grove_sym_t type;
        uint8_t how;            /* RANK_BY_*: 0 not ranked */
    } rank_memo[RANK_MEMO_N];
    size_t nrank_memo;
    struct rent {               /* an entry of a list being ranked */
        grove_vid_t v;
        uint32_t pos;           /* its place in the list */
        double score;
    } *rents;
    size_t rentcap;
    grove_vid_t *rlist;         /* the list being built (rank_kids) */
    size_t nrlist, rlistcap;
    struct grovep_okeep *okeep; /* static orders' lists kept between matches
                                 * (match_order.c), NULL until one is */
    struct grovep_keep *keep;   /* rankings kept between matches (match_keep.c),
                                 * NULL until one is */
    grove_policy_reads_t obs;   /* what the last scores made for a ranking read
                                 * (grovep_match_observe; all of it when the
                                 * policy cannot tell) */
};

/* The reference engine's weight of a node's id in a node-centric score:
 * (id + 2) * 10000 per vertex taken below the node (match_slot.c, and the
 * top level ranked by id in match_walk.c). */
#define NODE_WEIGHT 10000.0

/* Parents with at least this many children in containment's tree keep
 * their order between matches (grovep_match_use_kept_order); fewer are
 * sorted anew at each walk, which costs less than keeping them. */
#define USE_ORD_MIN 16

/* What grovep_match_use_count_all does at the ancestors it counts in. */
enum use_op {
    USE_MAKE, /* give them a slot */
    USE_HELD, /* count in their held figure */
    USE_AT    /* count in their at figure */
};

/* One call of grove_match: what each step leaves for the next. */
struct matching {
    grove_match_mode_t mode;
    grove_jobid_t id;
    struct req *reqs, *top; /* the compiled request (reqs owns it): the
                             * variant tried last */
    struct req **tops;      /* [nvar] the variants' top lists (see grovep_match_compile) */
    size_t nvar;
    grove_vid_t root;       /* of the containment tree */
    int64_t now, d;         /* the graph's clock, the job's duration */
    int64_t at;             /* where the selection fits */
    int64_t from;           /* no window starts before it: now, or a later
                             * instant the caller asked for (grove_match_after) */
    int64_t horizon;        /* the graph's expiration (GROVE_TIME_MAX: none):
                             * no window ends past it */
    bool till_horizon;      /* no duration asked: each window ends at the
                             * horizon (d is that of the window at x->now) */
    double deadline;        /* the search for a later instant stops past it
                             * (grove_matcher_set_search_limit; 0: never) */
    uint8_t *imp;           /* per pick: implied by an exclusive ancestor */
    bool compact;           /* the selection is a reservation kept compact
                             * (match_complete): nothing below its vertices
                             * held whole is listed */
};

/* ---- small helpers --------------------------------------------------------- */

/* Wall-clock seconds (monotonic): matches are timed by it, and a search's
 * limit (grove_matcher_set_search_limit) is kept by it. */
static inline double grovep_match_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* f's children, in the walk's order.  A pointer into the kid arena moves
 * when the arena grows (a frame pushed): taken anew after any push. */
static inline const grove_vid_t *grovep_frame_kids(const grove_matcher_t *m,
                                                   const struct frame *f)
{
    return (f->in_tree ? m->tk : m->kids) + f->kids;
}

/* Must the job states catch up (grove_matcher_catch_up) before a match:
 * has the graph's clock moved, or a vertex's status changed? */
static inline bool behind(const grove_matcher_t *m)
{
    return m->g->now != m->clock || m->g->status_gen != m->status_seen;
}

/* The subsystem the walk follows. */
static inline grove_sym_t dom_sym(const grove_matcher_t *m)
{
    return m->dominant == GROVE_SYM_NONE ? m->g->sym_containment : m->dominant;
}

/* The direction in which slots and a top level below the nodes are
 * ranked by id: the policy's declared id_order (+1 ascending, -1
 * descending), 0 when it declares none, its order is not used, or its
 * order hook, checked, moved a list out of id order in this match. */
static inline int id_dir(const grove_matcher_t *m)
{
    return m->pol.order && !m->pol.explore_by_use && !m->id_moved ? (int)m->pol.id_order : 0;
}

int grovep_match_prune_memo(grove_matcher_t *m, grove_vid_t v);

/* The policy's prune asked about v (the caller checked that it has one
 * and that it applies to v's type): 1 skip, 0 look inside, -1 error
 * (hook_failed set).  A prune_static policy's answers are kept by vertex
 * until the graph changes (pmemo). */
static inline int prune_asked(grove_matcher_t *m, grove_vid_t v, const grove_policy_ctx_t *ctx)
{
    if (m->pol.prune_static && m->pmemo_gen == m->g->chg_gen && v < m->pmemocap && m->pmemo[v])
        return m->pmemo[v] - 1;
    int p = m->pol.prune(m->pol.arg, m->g, v, ctx);
    if (p < 0) {
        m->hook_failed = 1;
        return -1;
    }
    p = p > 0;
    if (m->pol.prune_static && grovep_match_prune_memo(m, v) == 0)
        m->pmemo[v] = (uint8_t)(p + 1);
    return p;
}

/* The state block of current vertex v, and v's place in it. */
static inline struct sblk *sblk_of(const grove_matcher_t *m, grove_vid_t v)
{
    return m->blk[v >> SBLK_SHIFT];
}
#define SBLK_AT(v) ((v) & (SBLK_N - 1))

static inline int64_t taken_of(const grove_matcher_t *m, grove_vid_t v)
{
    if (m->stamp[v] != m->gen)
        return 0;
    const struct sblk *b = sblk_of(m, v);
    return (b->mflags[SBLK_AT(v)] & M_POOL) ? m->g->v[v].size : b->taken[SBLK_AT(v)];
}

static inline uint8_t flags_of(const grove_matcher_t *m, grove_vid_t v)
{
    return m->stamp[v] == m->gen ? sblk_of(m, v)->mflags[SBLK_AT(v)] : 0;
}

/* match_walk.c: lend block i of the vertex slots a state block for this
 * generation.  0 or -1 (ENOMEM). */
int grovep_match_sblk_lend(grove_matcher_t *m, size_t i);

/* Log v's state as it is (its units taken as taken_of says, so the log
 * never holds M_POOL) and make it current.  v's state block, or NULL
 * (ENOMEM). */
static inline struct sblk *log_state(grove_matcher_t *m, grove_vid_t v)
{
    if (grovep_grow((void **)&m->log, &m->logcap, m->nlog + 1, sizeof(*m->log)) < 0)
        return NULL;
    size_t i = v >> SBLK_SHIFT;
    if (m->stamp[v] != m->gen) {
        if (m->bgen[i] != m->gen && grovep_match_sblk_lend(m, i) < 0)
            return NULL;
        m->log[m->nlog++] = (struct undo){0, v, 0};
        m->stamp[v] = m->gen;
        return m->blk[i];
    }
    struct sblk *b = m->blk[i];
    uint8_t f = b->mflags[SBLK_AT(v)];
    m->log[m->nlog++] = (struct undo){(f & M_POOL) ? m->g->v[v].size : b->taken[SBLK_AT(v)], v,
                                      (uint16_t)((f & ~M_POOL) | UNDO_LIVE)};
    return b;
}

static inline int set_state(grove_matcher_t *m, grove_vid_t v, int64_t taken, uint8_t flags)
{
    struct sblk *b = log_state(m, v);
    if (!b)
        return -1;
    b->taken[SBLK_AT(v)] = taken;
    b->mflags[SBLK_AT(v)] = (uint8_t)(flags & ~M_POOL);
    return 0;
}

/* set_state with all of v's pool taken, without writing taken: a whole
 * machine takes a million cores whole, and their 8 bytes each would be as
 * many fresh pages to fault in as the selection's. */
static inline int set_whole(grove_matcher_t *m, grove_vid_t v, uint8_t flags)
{
    struct sblk *b = log_state(m, v);
    if (!b)
        return -1;
    b->mflags[SBLK_AT(v)] = (uint8_t)(flags | M_POOL);
    return 0;
}

struct checkpoint {
    size_t nlog, nsel;
    uint32_t nspread;
};

static inline struct checkpoint checkpoint(const grove_matcher_t *m)
{
    return (struct checkpoint){m->nlog, m->nsel, m->nspread};
}

static inline void rollback(grove_matcher_t *m, struct checkpoint cp)
{
    while (m->nlog > cp.nlog) {
        struct undo *u = &m->log[--m->nlog];
        if (!(u->flags & UNDO_LIVE)) {
            m->stamp[u->v] = 0;
            continue;
        }
        struct sblk *b = sblk_of(m, u->v);
        b->taken[SBLK_AT(u->v)] = u->taken;
        b->mflags[SBLK_AT(u->v)] = (uint8_t)u->flags;
    }
    for (size_t i = cp.nsel; i < m->nsel; i++)
        grove_policy_request_found(&m->preq, m->g->v[m->sel[i].v].type, -m->sel[i].amount);
    m->nsel = cp.nsel;
    m->nspread = cp.nspread;
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

static inline bool up(const grove_matcher_t *m, grove_vid_t v)
{
    /* a staged lock is like a record: a satisfiability check ignores it;
     * it ignores status too (a down or drained vertex may come back), but
     * not EXCLUDED: a vertex taken out of the instance (excluded, or shrunk
     * while a job still held it) never comes back */
    return (m->sat && !m->sat_up && m->g->v[v].status != GROVE_STATUS_EXCLUDED)
           || (m->g->v[v].status == GROVE_STATUS_UP
               && (m->sat || !(m->g->v[v].flags & GROVEP_V_STAGED)));
}

/* An exclusive ALLOC record of any job overlapping the window? */
static inline bool held_excl(const grove_matcher_t *m, grove_vid_t v)
{
    return !m->sat && grovep_excl_any(m->g, v, m->start, m->end);
}

/* Any grovep_match_record (held or shared) overlapping the window?  The job being
 * matched holds nothing yet, so every record is another job's. */
static inline bool touched(const grove_matcher_t *m, grove_vid_t v)
{
    return !m->sat && grovep_touched_any(m->g, v, m->start, m->end);
}

/* Can the walk go through v?  Under a node-exclusive policy a node must
 * also be untouched by other jobs, since it will be taken whole. */
static bool constraint_ok(const grove_matcher_t *m, grove_vid_t v);

static inline bool enterable(const grove_matcher_t *m, grove_vid_t v)
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
static inline int64_t free_units(const grove_matcher_t *m, grove_vid_t v)
{
    int64_t avail = m->sat ? m->g->v[v].size
                           : grovep_own_available(m->g, v, m->start, m->end);
    avail -= taken_of(m, v);
    return avail > 0 ? avail : 0;
}

/* How agg_fits_at asks: over the window; over the window, the caller
 * having found v not held whole in it (held_excl: not asked again); or
 * by the totals alone (what the window shows when nothing touches v). */
enum agg_how { AGG_WINDOW, AGG_UNHELD, AGG_TOTALS };

/* Can the subtree of v hold need (units per low type) in the window?  True
 * when v keeps no aggregate: aggregates only prune. */
static inline bool agg_fits_at(const grove_matcher_t *m, grove_vid_t v, const int64_t *need,
                               enum agg_how how)
{
    const grove_graph_t *g = m->g;
    if (!g->naggs || m->dom_sub != g->containment)
        return true; /* aggregates summarize containment subtrees */
    const grovep_agg_t *a = grovep_agg_of(g, v);
    if (!a)
        return true;
    if (how == AGG_TOTALS || m->sat) {
        const int64_t *total = grovep_agg_total(g, a);
        for (size_t i = 0; i < g->nlow; i++)
            if ((a->mask & (1u << i)) && need[i] > total[i])
                return false;
        return true;
    }
    return grovep_agg_fits(g, a, m->start, m->end, need, how == AGG_UNHELD);
}

static inline bool agg_fits(const grove_matcher_t *m, grove_vid_t v, const int64_t *need)
{
    return agg_fits_at(m, v, need, AGG_WINDOW);
}

/* Can the walk go through v (enterable), and can its subtree hold need in
 * the window?  Whether v is held whole is asked once, by enterable. */
static inline bool enter_fits(const grove_matcher_t *m, grove_vid_t v, const int64_t *need)
{
    return enterable(m, v) && agg_fits_at(m, v, need, AGG_UNHELD);
}

/* Can the block of its parent's children k lies in hold need during the
 * window (see blk_of in graph_private.h), and idle nodes wholly idle (the
 * request's idle1; need and idle are one request's, need its identity)?
 * True when k is in no block.  A
 * walk over a wide vertex's children asks it of each child before its own
 * look (the block's answer is cached in its aggregate for the window, so
 * the children of a block cost one query). */
static inline bool blk_fits(grove_matcher_t *m, grove_vid_t k, const int64_t *need, int64_t idle)
{
    const grove_graph_t *g = m->g;
    if (g->naggs == g->nvaggs || m->sat || m->dom_sub != g->containment)
        return true;
    const grovep_agg_t *b = grovep_blk_of(g, k);
    if (!b)
        return true;
    if (b != m->blk_last || need != m->blk_need) {
        m->blk_last = b;
        m->blk_need = need;
        m->blk_ok = grovep_agg_fits(g, b, m->start, m->end, need, false)
                    && (idle <= 0 || grovep_agg_idle(g, b, m->start, m->end) >= idle);
    }
    if (!m->blk_ok)
        m->stats.blocks_passed++;
    return m->blk_ok;
}

static inline bool has_prop(const char *name, void *arg)
{
    const grove_matcher_t *m = ((const void **)arg)[0];
    grove_vid_t v = *(const grove_vid_t *)((const void **)arg)[1];
    return grove_vertex_property(m->g, v, name) != NULL;
}

static inline bool constraint_check(const grove_matcher_t *m, grove_vid_t v)
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
    if (!m->constraint || m->g->v[v].type != m->ctype)
        return true;
    uint8_t *cv = m->cv_cur;
    if (!cv)
        return constraint_check(m, v);
    uint8_t c = cv[v] & 3;
    if (!c) {
        c = constraint_check(m, v) ? 1 : 2;
        cv[v] = (uint8_t)((cv[v] & ~3) | c);
    }
    return c == 1;
}

/* A block's verdict, kept in its first child's byte: known, and none of
 * its children meets the constraint. */
#define CV_BLK_KNOWN 4
#define CV_BLK_NONE 8

/* Where a walk in the graph's order over kids[0..n) goes on from
 * position b: past b's block of agg_blk children when b begins one and
 * none of its children meets the job's constraint (counted as passed),
 * else b itself.  Such children are neither candidates nor walked through
 * (take_check and enterable refuse each, before any hook is asked): a
 * job of a hostlist of 256 nodes walked the 16,384 nodes of a machine one
 * by one, asking each.  A block's verdict is kept in its first child's
 * byte, asked once a constraint while the graph's content holds; none
 * without a constraint, or when a child is not an execution target (it
 * passes, constraint_ok). */
static inline uint32_t cblk_pass(grove_matcher_t *m, const grove_vid_t *kids, uint32_t n,
                                 uint32_t b)
{
    uint32_t blk = m->g->agg_blk;
    uint8_t *cv = m->cv_cur;
    if (!cv || !blk || b % blk != 0 || b >= n)
        return b;
    uint32_t end = b + blk < n ? b + blk : n;
    uint8_t *first = &cv[kids[b]];
    if (!(*first & CV_BLK_KNOWN)) {
        bool none = true;
        for (uint32_t i = b; i < end && none; i++)
            none = !constraint_ok(m, kids[i]);
        *first |= (uint8_t)(CV_BLK_KNOWN | (none ? CV_BLK_NONE : 0));
    }
    if (!(*first & CV_BLK_NONE))
        return b;
    m->stats.blocks_passed += end - b;
    return end;
}

/* ---- touched ancestors ---------------------------------------------------- */

/* Mark v's ancestors touched by this match (touch_up). */
static inline int touch_above(grove_matcher_t *m, grove_vid_t v)
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

/* ---- windows and picks ---------------------------------------------------- */

/* Index of pick v in a job's picks (sorted by vertex id), or -1. */
static inline long pick_index(const grove_job_t *j, grove_vid_t v)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, j->npicks, mid, j->picks[mid].v < v);
    return lo < j->npicks && j->picks[lo].v == v ? (long)lo : -1;
}

/* ---- across the files ------------------------------------------------------- */

/* What one file of the group calls in another: each is described where it
 * is defined. */

/* match_job.c: the job table and the kept requests */
void grovep_match_job_free(grove_job_t *j);
void *grovep_match_dtab_base(void *a, size_t off, size_t elem);
long grovep_match_job_index(const grove_matcher_t *m, grove_jobid_t id);
int grovep_match_job_insert(grove_matcher_t *m, grove_job_t *j);
void grovep_match_kept_free(grove_matcher_t *m);
int grovep_match_keep_request(grove_matcher_t *m, grove_jobid_t id, const grove_jobspec_t *js);

/* match.c: the kept verdicts of the current match's constraint (its slot
 * found or made, emptied when the graph's content changed), or NULL with
 * ENOMEM (the match then asks the constraint each time). */
uint8_t *grovep_match_verdicts(grove_matcher_t *m);

/* match_walk.c: scratch state, the candidate walk, taking, a request list matched */
int grovep_match_scratch_reserve(grove_matcher_t *m);
void grovep_match_scratch_free(grove_matcher_t *m);
void grovep_match_new_generation(grove_matcher_t *m);
void grovep_match_order_forget(grove_matcher_t *m);
/* Under a policy whose id_order is checked (grove_policy_t.id_check):
 * ask the order for v's children as the walk would (the order is kept for
 * the attempt), and note whether it left them in id order (id_moved).
 * 0, or -1 when the hook failed or a declared id_order was contradicted. */
int grovep_match_order_check(grove_matcher_t *m, grove_vid_t v);
/* match_order.c: whether the n vertices the order gave for v (or a ranked
 * list of several types) keep the declared id order; see there. */
int grovep_match_order_check_list(grove_matcher_t *m, grove_vid_t v, const grove_vid_t *kids,
                                  size_t n);
void grovep_match_rank_check(grove_matcher_t *m, const grove_vid_t *list, uint32_t n);
int grovep_match_push_frame(grove_matcher_t *m, grove_vid_t v, const struct req *r);
void grovep_match_rank_setup(grove_matcher_t *m);
bool grovep_match_path_ok(grove_matcher_t *m, const struct req *r, grove_vid_t top, grove_vid_t k,
                          int *failed);

/* match.c: may m keep jobs on its graph?  It may when it holds them
 * already, or when no other living matcher holds jobs there (m then takes
 * the graph's holder slot, and numbers its jobs after a destroyed
 * holder's, whose records may remain).  0, or -1 with EBUSY and err
 * (NULL: none) saying why. */
int grovep_match_hold(grove_matcher_t *m, grove_error_t *err);
int grovep_match_take_check(grove_matcher_t *m, const struct req *r, grove_vid_t c, bool pexcl,
                            uint64_t need, bool *excl_out, bool *clean_out);
int grovep_match_list(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                      bool top);

/* match_keep.c: the rankings kept between matches.  find: 1 when *list
 * points at v's ranked list (*n vertices, best first), mended from a
 * kept ranking (valid until the next find, store or clear); 0 when none
 * applies; -1 on error (m->hook_failed set when a hook failed).  store:
 * keep the ranking of v's list just made (its n entries in m->rents,
 * best first, pos their places in the list; one ranked type) if the
 * policy allows; wanted: may it?  clear: forget them all (a new policy).
 * level and store_level: the same for the candidates of a level the
 * request names, scored with ctx c (below v, every vertex of the level
 * the walk can reach): level points *e at the n kept entries, best
 * first; store_level returns the entries kept (NULL when not kept).
 * Entries either hands over are pinned, neither mended nor replaced,
 * until unpin(e): the walk serves from them in place while what it
 * takes below keeps rankings of its own. */
int grovep_match_keep_find(grove_matcher_t *m, grove_vid_t v, const struct req *r,
                           const grove_vid_t **list, size_t *n);
bool grovep_match_keep_wanted(grove_matcher_t *m);
void grovep_match_keep_store(grove_matcher_t *m, grove_vid_t v, const struct req *r, size_t n);
int grovep_match_keep_level(grove_matcher_t *m, grove_vid_t v, const grove_policy_ctx_t *c,
                            const struct rent **e, size_t *n);
const struct rent *grovep_match_keep_store_level(grove_matcher_t *m, grove_vid_t v,
                                                 const grove_policy_ctx_t *c, size_t n);
void grovep_match_keep_unpin(grove_matcher_t *m, const struct rent *e);
void grovep_match_keep_clear(grove_matcher_t *m);
/* What the score calls made since the last call read: as the policy
 * watched them (grove_policy_t.observe), else as it declares
 * (score_local, score_reads; GROVE_READ_OTHER when it does not declare
 * its score local).  Called once before scoring, to forget what came
 * before, and once after. */
grove_policy_reads_t grovep_match_observe(grove_matcher_t *m);

/* match_use.c: exploring by use: the orders it gives, the counts the jobs change */
void grovep_match_order_by_use(const grove_matcher_t *m, grove_vid_t *kids, size_t n);
const grove_vid_t *grovep_match_use_kept_order(grove_matcher_t *m, grove_vid_t v, uint32_t n);
int grovep_match_use_count_all(grove_matcher_t *m, enum use_op op, const grove_pick_t *picks,
                               size_t n, int64_t sign);
void grovep_match_use_forget(grove_matcher_t *m, grove_job_t *j);
int grovep_match_use_reserve(grove_matcher_t *m, const grove_job_t *j, int64_t now);
void grovep_match_use_update(grove_matcher_t *m, grove_job_t *j, int64_t now);

/* match_order.c: the lists of a static order kept between matches */
bool grovep_match_order_keeps(const grove_matcher_t *m);
const grove_vid_t *grovep_match_order_find(grove_matcher_t *m, grove_vid_t v, uint32_t *n);
void grovep_match_order_store(grove_matcher_t *m, grove_vid_t v, const grove_vid_t *list,
                              uint32_t n);
void grovep_match_order_clear(grove_matcher_t *m);

/* match_slot.c: slots */
bool grovep_match_at_or_below_node(const grove_matcher_t *m, grove_vid_t w);
int64_t grovep_match_take_slots(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool pexcl,
                                uint64_t want, struct checkpoint *per, size_t nper);
int grovep_match_take_slots_by_id(grove_matcher_t *m, const struct req *r, grove_vid_t u,
                                  bool pexcl, uint64_t want);

/* match_channel.c: channeled pools, taken and given back */
bool grovep_match_channeled_type(const grove_matcher_t *m, grove_sym_t t);
int grovep_match_channel_match(grove_matcher_t *m, const struct req *r, grove_vid_t u, bool top);
void grovep_match_merge_channel_picks(grove_matcher_t *m);
long grovep_match_channel_release(grove_matcher_t *m, grove_job_t *j, grove_vid_t d, uint8_t *rel);
long grovep_match_channel_pool_release(grove_matcher_t *m, grove_job_t *j, long x, uint8_t *rel);

/* match_request.c: the request tree */
struct req *grovep_match_compile(grove_matcher_t *m, const grove_jobspec_t *js, struct req ***tops,
                                 size_t *nvar);

/* match_time.c: attempts, now and later */
int grovep_match_attempt_x(grove_matcher_t *m, struct matching *x, int64_t t, int64_t d);
int grovep_match_search(grove_matcher_t *m, struct matching *x);

/* match_never.c: the first level of a request that can never fit below
 * root, named in err from the graph's sizes ("no node with 40 cores:
 * largest has 36"); 1 when one is named, 0 when the sizes allow every
 * level, -1 (ENOMEM) */
int grovep_match_explain_never(grove_matcher_t *m, grove_vid_t root, const struct req *top,
                               grove_error_t *err);

/* match_record.c: picks sorted, expanded and made into records, and undone */
int grovep_match_cmp_pick(const void *a, const void *b);
int grovep_match_sort_picks(grove_pick_t *p, size_t n, void *scratch, size_t scratch_bytes);
int grovep_match_expand_whole(grove_matcher_t *m);
int grovep_match_expand_nodex(grove_matcher_t *m);
int grovep_match_add_ancestors(grove_matcher_t *m);
bool grovep_match_implied(grove_matcher_t *m, grove_vid_t v);
/* List what lies below the vertices a compact job (grove_job_t.compact)
 * holds whole, as a match lists them: j is whole after.  0, or -1 ENOMEM
 * (j as it was). */
int grovep_match_job_fill(const grove_graph_t *g, grove_job_t *j);
/* Does a vertex below one a compact job holds whole satisfy bad (a status
 * check)? */
bool grovep_match_job_below_any(const grove_graph_t *g, const grove_job_t *j,
                                bool (*bad)(const grove_graph_t *g, grove_vid_t v));
void grovep_match_unrecord(grove_graph_t *g, grove_jobid_t id, int64_t start, int64_t end,
                           grove_pick_t *p, size_t n);
int grovep_match_record(grove_graph_t *g, grove_jobid_t id, grove_pick_t *p, size_t n,
                        int64_t start, int64_t end, const uint8_t *is_implied);

#endif
