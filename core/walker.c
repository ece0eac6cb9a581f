/* walker.c: depth-first traversal of one subsystem with RFC 4 filters, the
 * score-sorted accumulator, and the methods built on walks (aggregate,
 * find).
 *
 * Workload: walks over whole subtrees of graphs with up to millions of
 * vertices, called for every match.  The walk keeps an explicit stack (no
 * recursion, so depth is bounded only by memory) and one growing buffer of
 * child ids shared by all frames, so a walk allocates O(depth + fan-out)
 * memory once and nothing per visited vertex.
 *
 * Every vertex is visited at most once per walk.  Containment is a tree and
 * the walk follows each vertex's parent link, so it needs no marks; any
 * other subsystem may hold cycles and shared children (RFC 4 allows two
 * edges of one relation in opposite directions), so a walk there keeps one
 * bit per vertex and enters a vertex only the first time it reaches it.
 *
 * This file must not hold the matcher's request-guided walk (match_walk.c) or
 * anything that changes the graph: its walks only read it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"

/* ---- accumulator ---------------------------------------------------------- */

struct grove_accum {
    grove_vid_t *v;
    double *score;
    size_t n, cap;
    size_t limit; /* keep at most this many (0: all) */
};

grove_accum_t *grove_accum_create(size_t limit)
{
    grove_accum_t *a = grovep_zalloc(sizeof(*a));
    if (!a)
        return NULL;
    a->limit = limit;
    return a;
}

void grove_accum_destroy(grove_accum_t *a)
{
    if (!a)
        return;
    GROVEP_FREE_ALL(a->v, a->score);
    free(a);
}

void grove_accum_reset(grove_accum_t *a)
{
    a->n = 0;
}

int grove_accum_push(grove_accum_t *a, grove_vid_t v, double score)
{
    /* position after every entry with score >= this one (stable) */
    size_t lo;
    GROVEP_LOWER_BOUND(lo, a->n, mid, a->score[mid] >= score);
    if (a->limit && lo >= a->limit)
        return 0; /* not among the best k */
    size_t vcap = a->cap, scap = a->cap; /* parallel arrays: both grow alike */
    if (grovep_grow((void **)&a->v, &vcap, a->n + 1, sizeof(*a->v)) < 0
        || grovep_grow((void **)&a->score, &scap, a->n + 1, sizeof(*a->score)) < 0)
        return -1;
    a->cap = vcap;
    memmove(a->v + lo + 1, a->v + lo, (a->n - lo) * sizeof(*a->v));
    memmove(a->score + lo + 1, a->score + lo, (a->n - lo) * sizeof(*a->score));
    a->v[lo] = v;
    a->score[lo] = score;
    a->n++;
    if (a->limit && a->n > a->limit)
        a->n = a->limit;
    return 0;
}

GROVEP_GETTER(size_t, grove_accum_count, grove_accum_t, n)

grove_vid_t grove_accum_at(const grove_accum_t *a, size_t i, double *score)
{
    if (i >= a->n)
        return GROVE_VID_NONE;
    if (score)
        *score = a->score[i];
    return a->v[i];
}

/* ---- walk ------------------------------------------------------------------ */

struct frame {
    grove_vid_t v;
    int depth;
    size_t first, n, next; /* children in kids[first .. first+n), next to visit */
};

struct walkbuf {
    struct frame *f;
    size_t nf, fcap;
    grove_vid_t *kids;
    size_t nk, kcap;
    uint8_t *seen; /* non-tree subsystems: one bit per vertex, NULL in containment */
};

/* Mark v seen; false when it was already (a cycle or a shared child). */
static bool first_visit(struct walkbuf *w, grove_vid_t v)
{
    if (!w->seen)
        return true;
    uint8_t bit = (uint8_t)(1u << (v & 7));
    if (w->seen[v >> 3] & bit)
        return false;
    w->seen[v >> 3] |= bit;
    return true;
}

static int push_frame(struct walkbuf *w, grove_vid_t v, int depth)
{
    if (grovep_grow((void **)&w->f, &w->fcap, w->nf + 1, sizeof(*w->f)) < 0)
        return -1;
    w->f[w->nf++] = (struct frame){v, depth, w->nk, 0, 0};
    return 0;
}

static int push_kid(struct walkbuf *w, grove_vid_t v)
{
    if (grovep_grow((void **)&w->kids, &w->kcap, w->nk + 1, sizeof(*w->kids)) < 0)
        return -1;
    w->kids[w->nk++] = v;
    return 0;
}

int grove_graph_walk(grove_graph_t *g, grove_vid_t start, grove_sym_t subsystem,
                     const grove_walk_hooks_t *hooks, grove_accum_t *acc)
{
    static const grove_walk_hooks_t none;
    if (!hooks)
        hooks = &none;
    if (!grovep_alive(g, start)) {
        errno = EINVAL;
        return -1;
    }
    int sub = grovep_subsys_find(g, subsystem);
    struct walkbuf w = {0};
    int rc = 0;
    if (sub >= 0 && sub != g->containment) {
        w.seen = calloc(g->nv / 8 + 1, 1);
        if (!w.seen) {
            errno = ENOMEM;
            return -1;
        }
        first_visit(&w, start);
    }
    if (push_frame(&w, start, 0) < 0) {
        free(w.seen);
        return -1;
    }
    bool entered = false; /* the top frame's pre-order step is done */
    while (w.nf) {
        struct frame *f = &w.f[w.nf - 1];
        if (!entered) {
            int act = hooks->pre ? hooks->pre(g, f->v, f->depth, hooks->arg)
                                 : GROVE_WALK_CONTINUE;
            if (act < 0) {
                rc = -1;
                break;
            }
            if (act == GROVE_WALK_STOP) {
                rc = 1;
                break;
            }
            f->first = w.nk;
            f->n = 0;
            f->next = 0;
            if (act == GROVE_WALK_CONTINUE && sub >= 0) {
                for (grove_eid_t e = g->first_out[f->v]; e != GROVEP_NONE;
                     e = g->e[e].next_out) {
                    const grovep_edge_t *ed = &g->e[e];
                    if (ed->sub != sub || (ed->flags & GROVEP_E_UP))
                        continue;
                    /* containment walks follow the tree, once per vertex */
                    if (sub == g->containment && g->parent[ed->dst] != f->v)
                        continue;
                    if (!first_visit(&w, ed->dst))
                        continue;
                    if (push_kid(&w, ed->dst) < 0) {
                        rc = -1;
                        goto out;
                    }
                    f->n++;
                }
                if (f->n > 1 && hooks->order
                    && hooks->order(g, f->v, w.kids + f->first, f->n, hooks->arg) < 0) {
                    rc = -1;
                    break;
                }
            }
            entered = true;
        }
        if (f->next < f->n) {
            grove_vid_t c = w.kids[f->first + f->next++];
            if (push_frame(&w, c, f->depth + 1) < 0) {
                rc = -1;
                break;
            }
            entered = false;
            continue;
        }
        /* post-order */
        if (hooks->post) {
            double score = 0;
            int r = hooks->post(g, f->v, f->depth, &score, hooks->arg);
            if (r < 0) {
                rc = -1;
                break;
            }
            if ((r == 1 || r == 2) && acc && grove_accum_push(acc, f->v, score) < 0) {
                rc = -1;
                break;
            }
            if (r == 2 || r == 3) {
                rc = 1;
                break;
            }
        }
        w.nk = f->first;
        w.nf--;
        /* entered stays true: the parent's pre-order step is done */
    }
out:;
    int saved = errno;
    free(w.f);
    free(w.kids);
    free(w.seen);
    errno = saved;
    return rc;
}

/* ---- what is available now ---------------------------------------------- */

struct avail_walk {
    int64_t start, end;
    grovep_avail_visit_f visit;
    void *arg;
};

static int avail_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)depth;
    struct avail_walk *w = arg;
    int64_t avail = grovep_own_available(g, v, w->start, w->end);
    if (avail <= 0)
        return GROVE_WALK_SKIP;
    w->visit(g, v, avail, w->arg);
    return GROVE_WALK_CONTINUE;
}

int grovep_walk_available_during(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                 int64_t end, grovep_avail_visit_f visit, void *arg)
{
    struct avail_walk w = {start, end, visit, arg};
    grove_walk_hooks_t hooks = {.pre = avail_pre, .arg = &w};
    /* the walk does not modify the graph; the hooks take it non-const */
    return grove_graph_walk((grove_graph_t *)(uintptr_t)g, v, g->sym_containment, &hooks, NULL);
}

int grovep_walk_available(const grove_graph_t *g, grove_vid_t v, grovep_avail_visit_f visit,
                          void *arg)
{
    return grovep_walk_available_during(g, v, g->now, g->now + 1, visit, arg);
}

/* ---- aggregate ------------------------------------------------------------- */

/* The free units by type of one walk.  A subtree holds a few types, so
 * the first AGG_FEW are kept in a small array searched in order; only a
 * subtree of more types pays for arrays indexed by symbol, sized to every
 * string the graph interns (thousands: names too), which a walk of one
 * core must not clear. */
#define AGG_FEW 8

struct agg {
    size_t norder;              /* types seen, in the order first seen */
    grove_sym_t few[AGG_FEW];   /* while norder <= AGG_FEW: those types */
    int64_t fewcount[AGG_FEW];  /* and their units */
    size_t ntypes;              /* symbols the graph interns */
    int64_t *count;             /* past AGG_FEW: [ntypes] by symbol, else NULL */
    uint8_t *seen;              /* [ntypes] the type is in order[] */
    grove_sym_t *order;         /* [ntypes] */
    bool failed;                /* out of memory moving to the arrays */
};

/* saturate: pools near 2^63 must not wrap the sum */
static void agg_add(int64_t *sum, int64_t avail)
{
    if (__builtin_add_overflow(*sum, avail, sum))
        *sum = avail > 0 ? INT64_MAX : INT64_MIN;
}

/* Move the few types into arrays by symbol: 0, or -1 out of memory. */
static int agg_spill(struct agg *a)
{
    a->count = calloc(a->ntypes, sizeof(int64_t));
    a->order = malloc(a->ntypes * sizeof(grove_sym_t));
    a->seen = calloc(a->ntypes, 1);
    if (!a->count || !a->order || !a->seen)
        return -1;
    for (size_t i = 0; i < a->norder; i++) {
        a->order[i] = a->few[i];
        a->seen[a->few[i]] = 1;
        a->count[a->few[i]] = a->fewcount[i];
    }
    return 0;
}

static void agg_visit(const grove_graph_t *g, grove_vid_t v, int64_t avail, void *arg)
{
    struct agg *a = arg;
    grove_sym_t t = g->v[v].type;
    if (a->failed)
        return;
    if (!a->count) {
        size_t i = 0;
        while (i < a->norder && a->few[i] != t)
            i++;
        if (i < a->norder) {
            agg_add(&a->fewcount[i], avail);
            return;
        }
        if (i < AGG_FEW) {
            a->few[i] = t;
            a->fewcount[i] = avail;
            a->norder++;
            return;
        }
        if (agg_spill(a) < 0) {
            a->failed = true;
            return;
        }
    }
    if (!a->seen[t]) {
        a->seen[t] = 1;
        a->order[a->norder++] = t;
    }
    agg_add(&a->count[t], avail);
}

int grovep_count_available(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                           grove_aggregate_f cb, void *arg)
{
    struct agg a = {.ntypes = grove_intern_count(g->strings)};
    int rc = grovep_walk_available_during(g, v, start, end, agg_visit, &a);
    if (rc >= 0 && a.failed) {
        errno = ENOMEM;
        rc = -1;
    }
    if (rc >= 0)
        for (size_t i = 0; i < a.norder; i++) {
            grove_sym_t t = a.count ? a.order[i] : a.few[i];
            cb(grove_intern_str(g->strings, t), a.count ? a.count[t] : a.fewcount[i], arg);
        }
    free(a.count);
    free(a.order);
    free(a.seen);
    return rc < 0 ? -1 : 0;
}

int grove_graph_aggregate(const grove_graph_t *g, grove_vid_t v, grove_aggregate_f cb,
                          void *arg)
{
    if (!grovep_alive(g, v)) {
        errno = EINVAL;
        return -1;
    }
    /* an unavailable ancestor makes the whole subtree unavailable */
    grove_vid_t p = g->parent[v];
    if (p != GROVEP_NONE && (grove_vertex_held_exclusively(g, p, g->now, NULL)))
        return 0;
    for (; p != GROVEP_NONE; p = g->parent[p])
        if (g->v[p].status != GROVE_STATUS_UP)
            return 0;
    return grovep_count_available(g, v, g->now, g->now + 1, cb, arg);
}

/* ---- find -------------------------------------------------------------------- */

struct findctx {
    grove_pred_f pred;
    void *arg;
    uint8_t *mark; /* [nv]: 0 out, 1 an ancestor of a match, 2 a match or below one */
};

static int find_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)depth;
    struct findctx *c = arg;
    /* a descendant of a match is in the result whatever pred says */
    grove_vid_t p = g->parent[v];
    if (p != GROVEP_NONE && c->mark[p] == 2) {
        c->mark[v] = 2;
        return GROVE_WALK_CONTINUE;
    }
    int r = c->pred(g, v, c->arg);
    if (r < 0)
        return -1;
    if (r > 0) {
        c->mark[v] = 2;
        for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE && !c->mark[a]; a = g->parent[a])
            c->mark[a] = 1;
    }
    return GROVE_WALK_CONTINUE;
}

int grove_graph_find(const grove_graph_t *g, grove_vid_t start, grove_pred_f pred, void *arg,
                     grove_vid_t **out, size_t *n)
{
    if (!grovep_alive(g, start) || !pred || !out || !n) {
        errno = EINVAL;
        return -1;
    }
    struct findctx c = {.pred = pred, .arg = arg, .mark = calloc(g->nv ? g->nv : 1, 1)};
    if (!c.mark) {
        errno = ENOMEM;
        return -1;
    }
    grove_walk_hooks_t hooks = {.pre = find_pre, .arg = &c};
    /* the walk's hooks only read the graph */
    int rc = grove_graph_walk((grove_graph_t *)(uintptr_t)g, start, g->sym_containment, &hooks,
                              NULL);
    if (rc < 0) {
        int saved = errno;
        free(c.mark);
        errno = saved;
        return -1;
    }
    /* ancestors above start, when anything matched */
    size_t count = 0;
    for (size_t v = 0; v < g->nv; v++)
        count += c.mark[v] != 0;
    if (count)
        for (grove_vid_t a = g->parent[start]; a != GROVEP_NONE; a = g->parent[a])
            if (!c.mark[a]) {
                c.mark[a] = 1;
                count++;
            }
    grove_vid_t *res = malloc((count ? count : 1) * sizeof(*res));
    if (!res) {
        free(c.mark);
        errno = ENOMEM;
        return -1;
    }
    size_t k = 0;
    for (size_t v = 0; v < g->nv; v++)
        if (c.mark[v])
            res[k++] = (grove_vid_t)v;
    free(c.mark);
    *out = res;
    *n = k;
    return 0;
}

/* ---- a subtree's free units during a window ------------------------------ */

/* From the aggregates when v keeps some, else by a walk of the subtree:
 * here, above both, so that aggregate.c never calls the walker. */
int grove_vertex_aggregate_window(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                  int64_t end, grove_window_f cb, void *arg)
{
    if (!grovep_alive(g, v) || end <= start || !cb) {
        errno = EINVAL;
        return -1;
    }
    if (g->agg_dirty && grovep_agg_refresh((grove_graph_t *)(uintptr_t)g) < 0)
        return -1; /* a cache: refreshing it does not change what the graph holds */
    /* a subtree below a vertex that is down or held whole is not free */
    for (grove_vid_t p = g->parent[v]; p != GROVEP_NONE; p = g->parent[p])
        if (g->v[p].status != GROVE_STATUS_UP || grovep_excl_any(g, p, start, end))
            return 0;
    const grovep_agg_t *a = grovep_agg_of(g, v);
    if (!a)
        return grovep_count_available(g, v, start, end, cb, arg);
    int64_t out[GROVEP_MAX_LOW];
    grovep_agg_avail(g, a, start, end, out);
    for (size_t i = 0; i < g->nlow; i++)
        if ((a->mask & (1u << i)) && out[i] > 0)
            cb(grove_intern_str(g->strings, g->agg_low[i]), out[i], arg);
    return 0;
}
