/* match_keep.c: the rankings of a level the request does not name, and
 * the candidates of a level it names (match_walk.c, gather_kept), kept
 * from one match to the next.
 *
 * A request of cores alone under spread ranks every node of the machine
 * for each job (match_walk.c, rank_kids): 16,384 scores and a sort, where
 * the job before changed one node.  When the policy declares its scores
 * local (grove_policy_t.score_local: a candidate's score depends on it,
 * the records below it during the window and the request's shape, nothing
 * else), the ranking made is kept here with each candidate's score, and
 * the next match that would rank the same list for the same request
 * shape and window mends it instead: the candidates below a vertex whose
 * records came, went or changed since (the graph's change ring,
 * grovep_chg_vertex) are scored again, and each whose score changed moves
 * to its place.  The list is what a ranking made anew gives: best score
 * first, equal scores in list order.
 *
 * A ranking serves another request shape or window when the policy says
 * its score does not read what differs (grove_policy_t.score_reads): the
 * request's totals and count when they are not read (the types it names
 * always match: they decide which vertices are listed), and the window
 * when none of start, end and duration is read and every record that
 * meets one window meets the other (grovep_recs_same).  Then each
 * candidate has the free units, and so the score, it had: a stream of
 * jobs of many sizes, each at a later time (a simulation, a live
 * instance), mends one ranking instead of making one a job.
 *
 * What a score reads is known to the matcher one of two ways.  A policy
 * whose hooks are watched as they run (grove_policy_t.observe: a Lua
 * policy, whose ctx and views are Grove's own and whose code is checked
 * for state of its own when it loads) says what the scores that made a
 * ranking read: the ranking is kept when they read nothing but the
 * candidates and ctx's type, count, totals and window, and serves the
 * requests and windows that differ only in what was not read; the calls
 * that mend it are watched too, and a ranking whose mend read more is
 * made anew.  A policy that is not watched (the C built-ins) declares it
 * (score_local, score_reads), and is taken at its word.
 *
 * A kept ranking holds while the graph's chg_gen stays (structure, sizes,
 * names, ranks, properties, status, the aggregates' specification) and
 * the ring still holds every change since (GROVEP_CHG_RING); a new policy
 * forgets them all (grovep_match_keep_clear).  Only a list that is one
 * ranked type is kept (the nodes of a machine), and only with no order or
 * choose hook: those could depend on more than the scores.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* How many rankings a matcher keeps (different windows or request shapes
 * of the same level; the least recently used goes first). */
#define RKEEP_N 4

/* Up to this many candidates scored again move one by one (each a
 * memmove of the entries between its old and new place); more are taken
 * out and merged back in one pass over the list. */
#define KEEP_MOVES 4

struct rkeep {
    bool live;
    /* served from in place by a walk under way (grovep_match_keep_level
     * until grovep_match_keep_unpin): neither mended, dropped nor
     * replaced meanwhile */
    unsigned pins;
    bool named;    /* the candidates of a level the request names */
    grove_vid_t v; /* the level vertex */
    uint8_t sub;   /* the subsystem walked */
    /* the request shape and window the scores were made for */
    grove_sym_t rtype;
    uint64_t count;
    int64_t start, end, duration;
    unsigned reads;  /* GROVE_READ_* the scores read (never OTHER) */
    uint64_t treads; /* the totals they read, by type (bit k: types[k]) */
    size_t ntypes;
    grove_sym_t *types;
    uint64_t *total;
    uint64_t gen;  /* the graph's chg_gen */
    uint64_t mark; /* the graph's chg_head: the scores are as of then */
    uint64_t used; /* for replacement */
    size_t n;
    grove_sym_t vtype; /* the type of every vertex listed */
    struct rent *e;    /* [n] best first; pos: the place in the list made */
    grove_vid_t *ev;   /* [n] e's vertices, in e's order: the list served */
    double *sc;        /* [n] the score of each place */
    grove_vid_t *lv;   /* [n] the vertex of each place */
    uint8_t *mk;       /* [n] scratch, kept 0: the places scored again */
    bool lv_sorted;    /* lv ascends: it is its own index */
    struct vpos {
        grove_vid_t v;
        uint32_t pos;
    } *byv;            /* [n] by vertex, when lv does not ascend */
};

struct grovep_keep {
    struct rkeep k[RKEEP_N];
    uint64_t tick;
    uint32_t *dirty; /* scratch: places to score again */
    size_t ndirty, dirtycap;
    grove_vid_t *vs; /* scratch: their vertices */
    double *out;     /* scratch: their new scores */
    size_t scap;
    struct rent *mrg; /* scratch of a merge: the list, then the moved */
    size_t mrgcap;
};

static void rkeep_drop(struct rkeep *k)
{
    GROVEP_FREE_ALL(k->types, k->total, k->e, k->ev, k->sc, k->lv, k->mk, k->byv);
    memset(k, 0, sizeof(*k));
}

void grovep_match_keep_clear(grove_matcher_t *m)
{
    struct grovep_keep *kp = m->keep;
    if (!kp)
        return;
    for (size_t i = 0; i < RKEEP_N; i++)
        rkeep_drop(&kp->k[i]);
    GROVEP_FREE_ALL(kp->dirty, kp->vs, kp->out, kp->mrg);
    free(kp);
    m->keep = NULL;
}

/* May this match keep or use a kept ranking at all? */
static bool keep_on(const grove_matcher_t *m)
{
    const grove_policy_t *p = &m->pol;
    return (p->score_local || p->observe) && (p->score || p->scores) && !p->choose && !p->order
           && !p->explore_by_use && m->dom_sub == m->g->containment;
}

/* The ctx the level's scores are asked with (as rank_group's). */
static grove_policy_ctx_t keep_ctx(const grove_matcher_t *m, const struct req *r)
{
    return (grove_policy_ctx_t){r && !r->slot ? r->type : GROVE_SYM_NONE,
                                r && !r->slot ? m->rank_need : 0, m->start, m->end, &m->preq,
                                r ? r->js : NULL};
}

enum { READ_ALL = GROVE_READ_TYPE | GROVE_READ_COUNT | GROVE_READ_TOTAL | GROVE_READ_WINDOW };

/* What of ctx the policy's declaration says its score reads
 * (grove_policy_t.score_reads) for the request q: every field when it
 * names none, and GROVE_READ_OTHER when it does not declare its score
 * local. */
static grove_policy_reads_t declared_reads(const grove_policy_t *p, const grove_policy_request_t *q)
{
    grove_policy_reads_t r = {0, 0};
    if (!p->score_local)
        return (grove_policy_reads_t){GROVE_READ_OTHER | READ_ALL, ~(uint64_t)0};
    if (!p->score_reads)
        return (grove_policy_reads_t){READ_ALL, ~(uint64_t)0};
    for (const char *const *f = p->score_reads; *f; f++) {
        if (!strcmp(*f, "type"))
            r.what |= GROVE_READ_TYPE;
        else if (!strcmp(*f, "count"))
            r.what |= GROVE_READ_COUNT;
        else if (!strcmp(*f, "total"))
            r.what |= GROVE_READ_TOTAL;
        else if (!strcmp(*f, "start") || !strcmp(*f, "end") || !strcmp(*f, "duration"))
            r.what |= GROVE_READ_WINDOW;
        else if (!strncmp(*f, "total.", 6)) {
            /* one type's: the request's types of that name (past the 64th: all) */
            for (size_t i = 0; i < q->ntypes; i++) {
                if (!q->names || strcmp(*f + 6, q->names[i]))
                    continue;
                if (i < 64)
                    r.totals |= (uint64_t)1 << i;
                else
                    r.what |= GROVE_READ_TOTAL;
            }
        } else {
            return (grove_policy_reads_t){READ_ALL, ~(uint64_t)0}; /* not one known */
        }
    }
    return r;
}

grove_policy_reads_t grovep_match_observe(grove_matcher_t *m)
{
    const grove_policy_t *p = &m->pol;
    if (!p->observe)
        return declared_reads(p, &m->preq);
    grove_policy_reads_t r = {0, 0};
    p->observe(p->arg, &r);
    return r;
}

/* Was k made for v and a request shape and window that give the scores
 * they would give now, on the graph as it is?  0 no, 1 the same window, 2
 * another window whose records must be checked (grovep_recs_same). */
static int keep_same(const grove_matcher_t *m, const struct rkeep *k, grove_vid_t v, bool named,
                     const grove_policy_ctx_t *c)
{
    const grove_policy_request_t *q = &m->preq;
    unsigned reads = k->reads;
    /* a named level's list holds the vertices of its type: the type is
     * compared whether the score reads it or not */
    if (!k->live || k->pins || k->named != named || k->v != v || k->sub != m->dom_sub || k->gen != m->g->chg_gen
        || k->ntypes != q->ntypes || ((named || (reads & GROVE_READ_TYPE)) && k->rtype != c->type)
        || ((reads & GROVE_READ_COUNT) && k->count != c->count))
        return 0;
    for (size_t i = 0; i < q->ntypes; i++)
        if (k->types[i] != q->types[i]
            || (k->total[i] != q->total[i]
                && ((reads & GROVE_READ_TOTAL) || (i < 64 && (k->treads >> i & 1)))))
            return 0;
    if (k->start == c->start && k->end == c->end && k->duration == q->duration)
        return 1;
    return reads & GROVE_READ_WINDOW ? 0 : 2;
}

/* The place of vertex a in k's list, or -1. */
static long keep_place(const struct rkeep *k, grove_vid_t a)
{
    size_t lo;
    if (k->lv_sorted) {
        GROVEP_LOWER_BOUND(lo, k->n, mid, k->lv[mid] < a);
        return lo < k->n && k->lv[lo] == a ? (long)lo : -1;
    }
    GROVEP_LOWER_BOUND(lo, k->n, mid, k->byv[mid].v < a);
    return lo < k->n && k->byv[lo].v == a ? (long)k->byv[lo].pos : -1;
}

/* Does an entry of score s at place p come before one of score t at q? */
static inline bool before(double s, uint32_t p, double t, uint32_t q)
{
    return s > t || (s == t && p < q);
}

/* Move the entry of place p from score old to score now in k->e.  False
 * when it is not where its score puts it (never: e holds every place
 * once, in order). */
static bool keep_move(struct rkeep *k, uint32_t p, double old, double now)
{
    struct rent *e = k->e;
    size_t i, lo;
    GROVEP_LOWER_BOUND(i, k->n, mid, before(e[mid].score, e[mid].pos, old, p));
    if (i >= k->n || e[i].pos != p)
        return false;
    struct rent x = e[i];
    x.score = now;
    GROVEP_LOWER_BOUND(lo, k->n, mid, before(e[mid].score, e[mid].pos, now, p));
    grove_vid_t *ev = k->ev;
    if (lo > i) { /* down: the entries between move up one */
        memmove(e + i, e + i + 1, (lo - 1 - i) * sizeof(*e));
        memmove(ev + i, ev + i + 1, (lo - 1 - i) * sizeof(*ev));
        e[lo - 1] = x;
        ev[lo - 1] = x.v;
    } else {
        memmove(e + lo + 1, e + lo, (i - lo) * sizeof(*e));
        memmove(ev + lo + 1, ev + lo, (i - lo) * sizeof(*ev));
        e[lo] = x;
        ev[lo] = x.v;
    }
    k->sc[p] = now;
    return true;
}

static int cmp_rent_before(const void *a, const void *b)
{
    const struct rent *x = a, *y = b;
    if (x->pos == y->pos)
        return 0;
    return before(x->score, x->pos, y->score, y->pos) ? -1 : 1;
}

/* Give the nd places dirty[] their scores out[] in k->e: take them out,
 * sort them, merge them back.  0 or -1 (ENOMEM). */
static int keep_merge(struct grovep_keep *kp, struct rkeep *k, size_t nd)
{
    if (grovep_grow((void **)&kp->mrg, &kp->mrgcap, k->n + nd, sizeof(*kp->mrg)) < 0)
        return -1;
    struct rent *e = k->e, *moved = kp->mrg + k->n;
    for (size_t i = 0; i < nd; i++) {
        uint32_t p = kp->dirty[i];
        k->mk[p] = 1;
        k->sc[p] = kp->out[i];
        moved[i] = (struct rent){k->lv[p], p, kp->out[i]};
    }
    qsort(moved, nd, sizeof(*moved), cmp_rent_before);
    size_t w = 0;
    for (size_t i = 0; i < k->n; i++)
        if (!k->mk[e[i].pos])
            kp->mrg[w++] = e[i];
    /* the others, in order, in mrg[0, w); merged into e */
    size_t a = 0, b = 0, o = 0;
    while (a < w || b < nd) {
        if (b == nd || (a < w && before(kp->mrg[a].score, kp->mrg[a].pos, moved[b].score,
                                         moved[b].pos)))
            e[o] = kp->mrg[a++];
        else
            e[o] = moved[b++];
        k->ev[o] = e[o].v;
        o++;
    }
    for (size_t i = 0; i < nd; i++)
        k->mk[kp->dirty[i]] = 0;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Mend k to the graph as it is: score again the places below the vertices
 * changed since k->mark.  1 mended, 0 when k cannot be (dropped: the ring
 * lost changes, or a score is no number), -1 when a hook failed
 * (m->hook_failed set) or ENOMEM. */
static int keep_mend(grove_matcher_t *m, struct rkeep *k, const grove_policy_ctx_t *c)
{
    grove_graph_t *g = m->g;
    struct grovep_keep *kp = m->keep;
    if (!g->chg_ring || g->chg_head - k->mark > GROVEP_CHG_RING)
        return 0;
    kp->ndirty = 0;
    /* the last vertex listed that was found: a job's records come and go
     * in runs below one node (its sockets, cores, GPUs), each a change */
    grove_vid_t seen = GROVEP_NONE;
    for (uint64_t i = k->mark; i < g->chg_head; i++) {
        grove_vid_t u = g->chg_ring[i & (GROVEP_CHG_RING - 1)];
        /* the place at or above u, below the level: only a vertex of the
         * listed type can have one */
        for (grove_vid_t a = u; a != GROVEP_NONE && a != k->v; a = m->par[a]) {
            if (g->v[a].type != k->vtype)
                continue;
            if (a == seen)
                break;
            long p = keep_place(k, a);
            if (p < 0)
                continue;
            seen = a;
            if (grovep_grow((void **)&kp->dirty, &kp->dirtycap, kp->ndirty + 1,
                            sizeof(*kp->dirty))
                < 0)
                return -1;
            kp->dirty[kp->ndirty++] = (uint32_t)p;
            break;
        }
    }
    size_t nd = 0;
    if (kp->ndirty) {
        qsort(kp->dirty, kp->ndirty, sizeof(*kp->dirty), cmp_u32);
        for (size_t i = 0; i < kp->ndirty; i++)
            if (!nd || kp->dirty[nd - 1] != kp->dirty[i])
                kp->dirty[nd++] = kp->dirty[i];
    }
    if (nd) {
        if (nd > kp->scap) {
            grove_vid_t *vs = realloc(kp->vs, nd * sizeof(*vs));
            if (vs)
                kp->vs = vs;
            double *out = realloc(kp->out, nd * sizeof(*out));
            if (out)
                kp->out = out;
            if (!vs || !out) {
                errno = ENOMEM;
                return -1;
            }
            kp->scap = nd;
        }
        /* in list order, as a ranking made anew hands them over */
        for (size_t i = 0; i < nd; i++) {
            kp->vs[i] = k->lv[kp->dirty[i]];
            kp->out[i] = 0;
        }
        grovep_match_observe(m); /* what came before is not these scores' */
        if (m->pol.scores) {
            if (m->pol.scores(m->pol.arg, g, kp->vs, nd, c, kp->out) < 0)
                goto hook;
        } else {
            for (size_t i = 0; i < nd; i++)
                if (m->pol.score(m->pol.arg, g, kp->vs[i], c, &kp->out[i]) < 0)
                    goto hook;
        }
        for (size_t i = 0; i < nd; i++)
            if (kp->out[i] != kp->out[i]) { /* a NaN: ranked anew, as ever */
                rkeep_drop(k);
                return 0;
            }
        /* these scores may read what the others did not: the ranking
         * serves from now on only what none of them read; a score that
         * read anything else is not local, and the ranking is made anew */
        grove_policy_reads_t o = grovep_match_observe(m);
        if (o.what & GROVE_READ_OTHER) {
            rkeep_drop(k);
            return 0;
        }
        k->reads |= o.what;
        k->treads |= o.totals;
        /* only the places whose score changed move (a score that reads
         * what a job does not change, a property, leaves them all) */
        size_t nc = 0;
        for (size_t i = 0; i < nd; i++)
            if (kp->out[i] != k->sc[kp->dirty[i]]) {
                kp->dirty[nc] = kp->dirty[i];
                kp->out[nc++] = kp->out[i];
            }
        nd = nc;
        if (nd > KEEP_MOVES) {
            if (keep_merge(kp, k, nd) < 0)
                return -1;
        } else {
            for (size_t i = 0; i < nd; i++) {
                uint32_t p = kp->dirty[i];
                if (!keep_move(k, p, k->sc[p], kp->out[i])) {
                    rkeep_drop(k);
                    return 0;
                }
            }
        }
    }
    k->mark = g->chg_head;
    return 1;
hook:
    m->hook_failed = 1;
    rkeep_drop(k);
    return -1;
}

/* The kept ranking of v (named or not) for ctx c, mended: NULL when
 * there is none (*rc 0) or on error (*rc -1). */
static struct rkeep *keep_get(grove_matcher_t *m, grove_vid_t v, bool named,
                              const grove_policy_ctx_t *c, int *rc)
{
    struct grovep_keep *kp = m->keep;
    *rc = 0;
    if (!kp || !keep_on(m))
        return NULL;
    /* one made for this window first; else one whose window meets the
     * same records, the most recently used */
    struct rkeep *k = NULL;
    for (size_t i = 0; i < RKEEP_N && !k; i++)
        if (keep_same(m, &kp->k[i], v, named, c) == 1)
            k = &kp->k[i];
    struct rkeep *carry = NULL;
    for (size_t i = 0; i < RKEEP_N && !k; i++) {
        struct rkeep *o = &kp->k[i];
        if ((!carry || o->used > carry->used) && keep_same(m, o, v, named, c) == 2
            && grovep_recs_same(m->g, o->start, o->end, c->start, c->end))
            carry = o;
    }
    if (!k && !(k = carry))
        return NULL;
    *rc = keep_mend(m, k, c);
    if (*rc <= 0) {
        rkeep_drop(k); /* stale, or left half mended */
        return NULL;
    }
    /* what the scores were made for now: the records of the new window
     * are those of the old, and a field of the request no score read may
     * be the new one's (those the mend scored read the new one's) */
    k->start = c->start;
    k->end = c->end;
    k->duration = m->preq.duration;
    k->rtype = c->type;
    k->count = c->count;
    if (m->preq.ntypes)
        memcpy(k->total, m->preq.total, m->preq.ntypes * sizeof(*k->total));
    k->used = ++kp->tick;
    m->stats.ranks_kept++;
    return k;
}

int grovep_match_keep_find(grove_matcher_t *m, grove_vid_t v, const struct req *r,
                           const grove_vid_t **list, size_t *n)
{
    grove_policy_ctx_t c = keep_ctx(m, r);
    int rc;
    struct rkeep *k = keep_get(m, v, false, &c, &rc);
    if (!k)
        return rc;
    *list = k->ev;
    *n = k->n;
    return 1;
}

int grovep_match_keep_level(grove_matcher_t *m, grove_vid_t v, const grove_policy_ctx_t *c,
                            const struct rent **e, size_t *n)
{
    int rc;
    struct rkeep *k = keep_get(m, v, true, c, &rc);
    if (!k)
        return rc;
    *e = k->e;
    *n = k->n;
    k->pins++;
    return 1;
}

bool grovep_match_keep_wanted(grove_matcher_t *m)
{
    return keep_on(m);
}

static int cmp_vpos(const void *a, const void *b)
{
    const struct vpos *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* Keep the ranking of v's list just made (m->rents[n]): the ranking
 * kept, or NULL when it is not (not allowed, or no memory). */
static struct rkeep *keep_store(grove_matcher_t *m, grove_vid_t v, bool named,
                                const grove_policy_ctx_t *cp, size_t n)
{
    if (!keep_on(m) || n == 0 || n > UINT32_MAX || (m->obs.what & GROVE_READ_OTHER))
        return NULL;
    grove_graph_t *g = m->g;
    for (size_t i = 0; i < n; i++)
        if (m->rents[i].score != m->rents[i].score)
            return NULL; /* a NaN: its order is the sort's own */
    if (!g->chg_ring && !(g->chg_ring = malloc(GROVEP_CHG_RING * sizeof(*g->chg_ring))))
        return NULL;
    if (!m->keep && !(m->keep = calloc(1, sizeof(*m->keep))))
        return NULL;
    struct grovep_keep *kp = m->keep;
    grove_policy_ctx_t c = *cp;
    /* the slot of the same key (made stale), else an empty one, else the
     * least recently used.  The key holds the request's types: a level
     * that jobs of two shapes name (one node, four nodes of sockets and
     * GPUs) keeps a ranking for each, which would otherwise replace one
     * another at every job of a mixed stream. */
    const grove_policy_request_t *q = &m->preq;
    struct rkeep *k = NULL;
    for (size_t i = 0; i < RKEEP_N && !k; i++) {
        struct rkeep *o = &kp->k[i];
        if (o->live && !o->pins && o->named == named && o->v == v && o->start == c.start && o->end == c.end
            && o->rtype == c.type && o->ntypes == q->ntypes
            && (!q->ntypes || !memcmp(o->types, q->types, q->ntypes * sizeof(*q->types))))
            k = o;
    }
    for (size_t i = 0; i < RKEEP_N && !k; i++)
        if (!kp->k[i].live)
            k = &kp->k[i];
    /* else the least recently used of those no walk serves from */
    if (!k) {
        for (size_t i = 0; i < RKEEP_N; i++)
            if (!kp->k[i].pins && (!k || kp->k[i].used < k->used))
                k = &kp->k[i];
        if (!k)
            return NULL; /* every one served from by the walks under way */
    }
    rkeep_drop(k);
    size_t nt = q->ntypes ? q->ntypes : 1;
    k->types = malloc(nt * sizeof(*k->types));
    k->total = malloc(nt * sizeof(*k->total));
    k->e = malloc(n * sizeof(*k->e));
    k->ev = malloc(n * sizeof(*k->ev));
    k->sc = malloc(n * sizeof(*k->sc));
    k->lv = malloc(n * sizeof(*k->lv));
    k->mk = calloc(n, sizeof(*k->mk));
    if (!k->types || !k->total || !k->e || !k->ev || !k->sc || !k->lv || !k->mk) {
        rkeep_drop(k);
        return NULL;
    }
    memcpy(k->e, m->rents, n * sizeof(*k->e));
    k->lv_sorted = true;
    for (size_t i = 0; i < n; i++) {
        k->sc[k->e[i].pos] = k->e[i].score;
        k->lv[k->e[i].pos] = k->e[i].v;
        k->ev[i] = k->e[i].v;
    }
    k->vtype = g->v[k->e[0].v].type;
    for (size_t i = 1; i < n && k->lv_sorted; i++)
        k->lv_sorted = k->lv[i - 1] < k->lv[i];
    if (!k->lv_sorted) {
        if (!(k->byv = malloc(n * sizeof(*k->byv)))) {
            rkeep_drop(k);
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            k->byv[i] = (struct vpos){k->lv[i], (uint32_t)i};
        qsort(k->byv, n, sizeof(*k->byv), cmp_vpos);
    }
    if (q->ntypes) {
        memcpy(k->types, q->types, q->ntypes * sizeof(*k->types));
        memcpy(k->total, q->total, q->ntypes * sizeof(*k->total));
    }
    k->ntypes = q->ntypes;
    k->reads = m->obs.what;
    k->treads = m->obs.totals;
    k->v = v;
    k->named = named;
    k->sub = m->dom_sub;
    k->rtype = c.type;
    k->count = c.count;
    k->start = c.start;
    k->end = c.end;
    k->duration = q->duration;
    k->gen = g->chg_gen;
    k->mark = g->chg_head;
    k->n = n;
    k->used = ++kp->tick;
    k->live = true;
    return k;
}

void grovep_match_keep_store(grove_matcher_t *m, grove_vid_t v, const struct req *r, size_t n)
{
    grove_policy_ctx_t c = keep_ctx(m, r);
    keep_store(m, v, false, &c, n);
}

const struct rent *grovep_match_keep_store_level(grove_matcher_t *m, grove_vid_t v,
                                                 const grove_policy_ctx_t *c, size_t n)
{
    struct rkeep *k = keep_store(m, v, true, c, n);
    if (!k)
        return NULL;
    k->pins++;
    return k->e;
}

void grovep_match_keep_unpin(grove_matcher_t *m, const struct rent *e)
{
    struct grovep_keep *kp = m->keep;
    for (size_t i = 0; kp && i < RKEEP_N; i++)
        if (kp->k[i].pins && kp->k[i].e == e) {
            kp->k[i].pins--;
            return;
        }
}
