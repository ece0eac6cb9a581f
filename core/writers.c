/* writers.c: the selections `grove query` prints and their text formats
 * (see writers.h).
 *
 * Workload: one selection per match, from a single core (five entries) to
 * a whole machine (a million entries, tens of megabytes of text), thousands
 * of times a second.  Entries live in one array; a vertex finds its entry
 * through a slot array indexed by vertex id, valid when the entry it
 * names is one of the selection's and names the vertex back (a sparse
 * set), so starting a selection clears nothing, and a selection writes
 * only its own vertices' slots: no second array over the graph whose
 * pages a stream of small jobs spread over a machine would all touch.  The
 * tree is linked once (home, first kid, next sibling) and walked with an
 * explicit stack; text goes into one growing buffer.  A simple line is a
 * few moves of fixed length: the writer keeps each printed name ready in
 * a cell of its own (see NAME_CELL).
 *
 * Two facts about the graph decide how the tree is linked, and both are
 * learnt by one pass over the edges, repeated only when the edges change
 * (the pair edge slots / live edges moves on every addition and removal):
 * whether any vertex has a second containment parent (if none, a vertex's
 * home is its tree parent, one load), and whether every child list is in
 * vertex id order (if so, children sorted by id are in graph order and no
 * child list is read).
 *
 * This file must not match, record or release (match.c and its group),
 * nor know the command language; it must not hold R's own rules (rv1.c
 * writes R).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "graph_private.h"
#include "aggregate.h"
#include "walker.h"
#include "compose.h"
#include "pool.h"
#include "rv1.h"
#include "util.h"
#include "writers.h"

#define NONE UINT32_MAX

/* per entry, beside the public part */
struct link {
    uint32_t home;  /* entry printed above it, or NONE (a root) */
    uint32_t kid;   /* first kid, or NONE */
    uint32_t next;  /* next sibling, or NONE */
    uint32_t depth; /* as printed */
    bool keep;      /* printed */
    bool needed;    /* something kept lies below it */
};

struct grove_writer {
    const grove_graph_t *g;
    uint32_t *slot;    /* [vcap] entry of the vertex, when it names it back */
    const grove_pick_t *picks; /* grove_writer_print_job: slots are indexes
                                * in these, not entries */
    size_t npicks;
    size_t vcap;
    grove_wentry_t *ents;
    struct link *lk;
    size_t n, cap;
    grove_wentry_t *out; /* the kept entries, for grove_writer_entries */
    size_t outcap;
    uint32_t *ord; /* entries in print order */
    size_t nord, ordcap;
    bool ord_post;   /* ord is the post-order of the kept entries, depths set */
    uint32_t *stack; /* walk stack, cursor pairs */
    size_t stackcap;
    size_t seen_ne, seen_live; /* edges when the two facts were learnt */
    bool known;                /* the facts are learnt */
    bool second;               /* some vertex has two containment parents */
    bool ordered;              /* child lists are in vertex id order */
    grove_sym_t sub;           /* the subsystem printed along (NONE: containment) */
    grovep_buf_t spool;        /* text on its way to a stream (grove_writer_print) */
    char *names;               /* [nnames * NAME_CELL]: names as printed, by symbol */
    size_t nnames;
    struct wframe *frames;     /* walk of grove_writer_print_job */
    size_t framecap;
    uint32_t *pkid;            /* [npicks] grove_writer_print_job: the first pick below
                                * a vertex's first pick, NONE: none (child lists
                                * in id order only) */
    uint32_t *pnext;           /* [npicks] the next pick of the same parent, NONE: last */
    size_t pkcap;              /* of pkid and pnext alike */
};

/* A name as put_line prints it, "name[", at the start of a cell of
 * NAME_CELL bytes, its length in the cell's last byte (0: not made yet,
 * NAME_LONG: too long for a cell): a line copies the cell whole, one wide
 * move of fixed length.  Interned strings never change, so a cell, once
 * made, holds as long as the writer's graph; the cells are bounded by the
 * graph's strings and made only for names printed. */
#define NAME_CELL 32
#define NAME_LONG 0xff

/* One vertex on the path of grove_writer_print_job's walk. */
struct wframe {
    grove_vid_t v;
    uint32_t cur;   /* next child to look at: an index in the tree's child array */
    uint32_t end;   /* past v's last child there */
    uint32_t pick;  /* its (first) pick, or NONE: below an expanded pick */
    uint32_t depth; /* as printed */
    bool whole;     /* everything below it is printed (expanded) */
    bool needed;    /* something printed lies below it */
    bool bypick;    /* its children are the picks below it: cur is the next
                     * (a pnext list), NONE past the last; end unused */
};

/* indexed by grove_wfmt_t */
static const char *const fmt_names[] = {"simple", "pretty_simple", "jgf", "rlite", "rv1",
                                        "rv1_nosched", NULL};

int grove_wfmt_parse(const char *name)
{
    for (size_t i = 0; name && fmt_names[i]; i++)
        if (!strcmp(name, fmt_names[i]))
            return (int)i;
    errno = EINVAL;
    return -1;
}

const char *grove_wfmt_name(size_t i)
{
    return i <= GROVE_WFMT_RV1_NOSCHED ? fmt_names[i] : NULL;
}

static int begin(grove_writer_t *w);
static void learn_graph(grove_writer_t *w);

/* The subsystem printed along. */
static grove_sym_t wsub(const grove_writer_t *w)
{
    return w->sub == GROVE_SYM_NONE ? w->g->sym_containment : w->sub;
}

/* The parent of v there (one load in containment). */
static grove_vid_t wparent(const grove_writer_t *w, grove_vid_t v)
{
    return w->sub == GROVE_SYM_NONE ? w->g->parent[v] : grove_vertex_parent(w->g, v, w->sub);
}

int grove_writer_set_subsystem(grove_writer_t *w, const char *subsystem)
{
    grove_sym_t s = GROVE_SYM_NONE;
    if (subsystem && strcmp(subsystem, GROVE_CONTAINMENT)) {
        s = grove_graph_sym_lookup(w->g, subsystem);
        if (s == GROVE_SYM_NONE || grovep_subsys_find(w->g, s) < 0) {
            errno = ENOENT;
            return -1;
        }
    }
    w->sub = s;
    w->known = false; /* the two facts are the subsystem's */
    return 0;
}

grove_writer_t *grove_writer_create(const grove_graph_t *g)
{
    grove_writer_t *w = grovep_zalloc(sizeof(*w));
    if (!w)
        return NULL;
    w->g = g;
    w->sub = GROVE_SYM_NONE;
    /* what the first selection would do, done now: scratch and the graph's
     * two facts */
    if (begin(w) < 0) {
        grove_writer_destroy(w);
        return NULL;
    }
    learn_graph(w);
    return w;
}

void grove_writer_destroy(grove_writer_t *w)
{
    if (!w)
        return;
    GROVEP_FREE_ALL(w->slot, w->ents, w->lk, w->out, w->ord, w->stack, w->spool.p, w->frames,
                    w->names, w->pkid, w->pnext);
    free(w);
}

/* ---- the selection ------------------------------------------------------- */

/* Start a selection: room for the graph's vertex ids, nothing selected. */
static int begin(grove_writer_t *w)
{
    size_t nv = w->g->nv;
    if (nv > w->vcap) {
        uint32_t *sl = realloc(w->slot, nv * sizeof(*sl));
        if (!sl) {
            errno = ENOMEM;
            return -1;
        }
        w->slot = sl;
        grovep_huge(w->slot, nv * sizeof(*sl));
        /* any value reads as absent (see present); zero, so that nothing
         * reads memory never written */
        memset(w->slot + w->vcap, 0, (nv - w->vcap) * sizeof(*sl));
        w->vcap = nv;
    }
    w->picks = NULL;
    w->npicks = 0;
    w->n = 0;
    w->ord_post = false;
    return 0;
}

/* grove_writer_print_job: the slot of v (a vertex of the graph), the
 * index of its first pick, or NONE when v is not among the picks. */
static inline uint32_t pick_slot(const grove_writer_t *w, grove_vid_t v)
{
    uint32_t s = w->slot[v];
    return s < w->npicks && w->picks[s].v == v ? s : NONE;
}

/* The slot of v, or NONE when v is not in the selection (the general
 * way: grove_writer_print_job's walk asks pick_slot). */
static inline uint32_t slot_of(const grove_writer_t *w, grove_vid_t v)
{
    if (v >= w->vcap)
        return NONE;
    uint32_t s = w->slot[v];
    return s < w->n && w->ents[s].v == v ? s : NONE;
}

static inline bool present(const grove_writer_t *w, grove_vid_t v)
{
    return slot_of(w, v) != NONE;
}

/* Room for n entries in all (the entry and link arrays grow alike).  0
 * or -1 (ENOMEM). */
static int ents_room(grove_writer_t *w, size_t n)
{
    size_t ecap = w->cap, lcap = w->cap;
    if (grovep_grow((void **)&w->ents, &ecap, n, sizeof(*w->ents)) < 0 ||
        grovep_grow((void **)&w->lk, &lcap, n, sizeof(*w->lk)) < 0)
        return -1;
    w->cap = ecap;
    return 0;
}

/* Add v (not present yet).  0 or -1 (ENOMEM). */
static inline int add(grove_writer_t *w, grove_vid_t v, int64_t amount, bool x, bool alloc)
{
    if (w->n == w->cap && ents_room(w, w->n + 1) < 0)
        return -1;
    w->ents[w->n] = (grove_wentry_t){v, amount, x, alloc};
    w->slot[v] = (uint32_t)w->n++;
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const grove_wentry_t *x = a, *y = b;
    return GROVEP_CMP(x->v, y->v);
}

/* Entries in vertex id order (they mostly are already). */
static void sort_entries(grove_writer_t *w)
{
    size_t i = 1;
    while (i < w->n && w->ents[i - 1].v < w->ents[i].v)
        i++;
    if (i >= w->n)
        return;
    qsort(w->ents, w->n, sizeof(*w->ents), cmp_entry);
    for (size_t k = 0; k < w->n; k++)
        w->slot[w->ents[k].v] = (uint32_t)k;
}

static int stack_room(grove_writer_t *w, size_t need)
{
    return grovep_grow((void **)&w->stack, &w->stackcap, need, sizeof(*w->stack));
}

/* A downward edge of the subsystem printed along? */
static inline bool down_containment(const grove_writer_t *w, grove_eid_t e)
{
    const grove_graph_t *g = w->g;
    if (g->e[e].flags & GROVEP_E_UP)
        return false;
    return w->sub == GROVE_SYM_NONE ? g->e[e].sub == g->containment
                                    : g->subsys[g->e[e].sub] == w->sub;
}

/* Add what lies below v, whole and held (entries present stay as they
 * are; their subtrees are still walked, once).  The edge lists are read
 * here rather than through the graph's child cursor: a whole machine's
 * million vertices pass through this loop. */
static int add_subtree(grove_writer_t *w, grove_vid_t top)
{
    const grove_graph_t *g = w->g;
    size_t sp = 0;
    if (stack_room(w, 1) < 0)
        return -1;
    w->stack[sp++] = top;
    while (sp > 0) {
        grove_vid_t v = w->stack[--sp];
        for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
            if (!down_containment(w, e))
                continue;
            grove_vid_t c = g->e[e].dst;
            if (!present(w, c) && add(w, c, grovep_vertex_size(g, c), true, true) < 0)
                return -1;
            if (sp + 1 > w->stackcap && stack_room(w, sp + 1) < 0)
                return -1;
            w->stack[sp++] = c;
        }
    }
    return 0;
}

static bool sym_in(grove_sym_t s, const grove_sym_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == s)
            return true;
    return false;
}

/* ---- the tree -------------------------------------------------------------- */

/* Learn whether some vertex has a second containment parent and whether
 * child lists are in id order (once per change of the edges). */
static void learn_graph(grove_writer_t *w)
{
    const grove_graph_t *g = w->g;
    if (w->known && w->seen_ne == g->ne && w->seen_live == g->nlive_e)
        return;
    w->second = false;
    w->ordered = true;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v))
            continue;
        grove_vid_t prev = 0;
        bool first = true;
        for (grove_eid_t e = g->first_out[v]; e != GROVEP_NONE; e = g->e[e].next_out) {
            if (!down_containment(w, e))
                continue;
            grove_vid_t d = g->e[e].dst;
            if (wparent(w, d) != v)
                w->second = true;
            if (!first && d <= prev)
                w->ordered = false;
            prev = d;
            first = false;
        }
    }
    w->known = true;
    w->seen_ne = g->ne;
    w->seen_live = g->nlive_e;
}

/* The home of entry i when the graph has second containment links: its
 * selected parent whose type the shape prefers, else its tree parent,
 * else the first. */
static uint32_t home_among(const grove_writer_t *w, uint32_t i, const grove_wshape_t *shape)
{
    const grove_graph_t *g = w->g;
    grove_vid_t c = w->ents[i].v;
    grove_sym_t ct = g->v[c].type;
    uint32_t first = NONE, tree = NONE, want = NONE;
    for (grove_eid_t e = grovep_in_first(g, c); e != GROVEP_NONE; e = grovep_in_next(g, e)) {
        grove_vid_t p = grovep_edge_src(g, e);
        uint32_t h;
        if (!down_containment(w, e) || (h = slot_of(w, p)) == NONE)
            continue;
        if (first == NONE)
            first = h;
        if (p == wparent(w, c))
            tree = h;
        for (size_t k = 0; shape && want == NONE && k < shape->nprefer; k++)
            if (shape->prefer[k][0] == ct && shape->prefer[k][1] == g->v[p].type)
                want = h;
    }
    return want != NONE ? want : tree != NONE ? tree : first;
}

/* Kids of entry i in graph order, read from its child list (a kid is
 * marked unlinked by pointing at itself until it is placed). */
static void kids_in_graph_order(grove_writer_t *w, uint32_t i)
{
    const grove_graph_t *g = w->g;
    for (uint32_t k = w->lk[i].kid, next; k != NONE; k = next) {
        next = w->lk[k].next;
        w->lk[k].next = k;
    }
    uint32_t last = NONE;
    w->lk[i].kid = NONE;
    for (grove_eid_t e = g->first_out[w->ents[i].v]; e != GROVEP_NONE; e = g->e[e].next_out) {
        grove_vid_t d = g->e[e].dst;
        if (!down_containment(w, e) || !present(w, d))
            continue;
        uint32_t k = w->slot[d];
        if (w->lk[k].home != i || w->lk[k].next != k)
            continue; /* printed elsewhere, or placed already */
        w->lk[k].next = NONE;
        if (last == NONE)
            w->lk[i].kid = k;
        else
            w->lk[last].next = k;
        last = k;
    }
}

/* Link the entries (in id order) into trees. */
static void link_tree(grove_writer_t *w, const grove_wshape_t *shape)
{
    learn_graph(w);
    uint32_t *tail = w->ord; /* last kid of each entry so far (ord is free now) */
    for (uint32_t i = 0; i < w->n; i++) {
        w->lk[i] = (struct link){NONE, NONE, NONE, 0, true, false};
        tail[i] = NONE;
    }
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t h;
        if (w->second) {
            h = home_among(w, i, shape);
        } else {
            grove_vid_t p = wparent(w, w->ents[i].v);
            h = p != GROVEP_NONE ? slot_of(w, p) : NONE;
        }
        w->lk[i].home = h;
        if (h == NONE)
            continue;
        if (tail[h] == NONE)
            w->lk[h].kid = i;
        else
            w->lk[tail[h]].next = i;
        tail[h] = i;
    }
    if (!w->ordered)
        for (uint32_t i = 0; i < w->n; i++)
            if (w->lk[i].kid != NONE && w->lk[w->lk[i].kid].next != NONE)
                kids_in_graph_order(w, i);
}

/* ord = the kept entries, each tree from its root in vertex id order, in
 * pre- or post-order; depths set on the way.  0 or -1 (ENOMEM). */
static int order(grove_writer_t *w, bool pre)
{
    w->nord = 0;
    w->ord_post = false;
    for (uint32_t r = 0; r < w->n; r++) {
        if (w->lk[r].home != NONE || !w->lk[r].keep)
            continue;
        int d = grove_vertex_depth(w->g, w->ents[r].v, wsub(w));
        w->lk[r].depth = d > 0 ? (uint32_t)d : 0;
        size_t sp = 0;
        if (stack_room(w, 2) < 0)
            return -1;
        w->stack[sp++] = r;
        w->stack[sp++] = w->lk[r].kid;
        if (pre)
            w->ord[w->nord++] = r;
        while (sp > 0) {
            uint32_t top = w->stack[sp - 2], k = w->stack[sp - 1];
            while (k != NONE && !w->lk[k].keep)
                k = w->lk[k].next;
            if (k == NONE) {
                sp -= 2;
                if (!pre)
                    w->ord[w->nord++] = top;
                continue;
            }
            w->stack[sp - 1] = w->lk[k].next;
            w->lk[k].depth = w->lk[top].depth + 1;
            if (pre)
                w->ord[w->nord++] = k;
            if (stack_room(w, sp + 2) < 0)
                return -1;
            w->stack[sp++] = k;
            w->stack[sp++] = w->lk[k].kid;
        }
    }
    w->ord_post = !pre;
    return 0;
}

/* Sort, link and make room for the print order. */
static int finish_selection(grove_writer_t *w, const grove_wshape_t *shape)
{
    sort_entries(w);
    if (grovep_grow((void **)&w->ord, &w->ordcap, w->n + 1, sizeof(*w->ord)) < 0)
        return -1;
    link_tree(w, shape);
    return 0;
}

int grove_writer_job(grove_writer_t *w, const grove_job_t *job, const grove_wshape_t *shape)
{
    const grove_graph_t *g = w->g;
    if (begin(w) < 0 || ents_room(w, job->npicks) < 0)
        return -1;
    for (size_t i = 0; i < job->npicks; i++) {
        const grove_pick_t *p = &job->picks[i];
        if (!present(w, p->v)
            && add(w, p->v, p->amount, p->exclusive, p->exclusive || p->recorded) < 0)
            return -1;
    }
    for (size_t i = 0; shape && shape->nexpand && i < job->npicks; i++) {
        const grove_pick_t *p = &job->picks[i];
        if (p->exclusive && sym_in(g->v[p->v].type, shape->expand, shape->nexpand)
            && add_subtree(w, p->v) < 0)
            return -1;
    }
    if (finish_selection(w, shape) < 0 || order(w, false) < 0)
        return -1;
    /* a shared container with nothing of the job kept below it goes */
    for (size_t k = 0; k < w->nord; k++) {
        uint32_t i = w->ord[k];
        struct link *l = &w->lk[i];
        l->keep = w->ents[i].alloc || w->ents[i].x || l->needed;
        if (l->keep && l->home != NONE)
            w->lk[l->home].needed = true;
        else if (!l->keep)
            w->ord_post = false; /* ord lists it: post-order text needs a new one */
    }
    return 0;
}

int grove_writer_vertices(grove_writer_t *w, const grove_vid_t *vs, size_t n)
{
    const grove_graph_t *g = w->g;
    for (size_t i = 0; i < n; i++) {
        if (!grovep_alive(g, vs[i])) {
            errno = EINVAL;
            return -1;
        }
    }
    if (begin(w) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (grove_vid_t v = vs[i]; v != GROVEP_NONE && !present(w, v); v = g->parent[v])
            if (add(w, v, grovep_vertex_size(g, v), true, true) < 0)
                return -1;
    return finish_selection(w, NULL);
}

const grove_wentry_t *grove_writer_entries(grove_writer_t *w, size_t *n)
{
    size_t k = 0;
    if (grovep_grow((void **)&w->out, &w->outcap, w->n + 1, sizeof(*w->out)) < 0)
        return NULL;
    for (size_t i = 0; i < w->n; i++)
        if (w->lk[i].keep)
            w->out[k++] = w->ents[i];
    *n = k;
    return w->out;
}

/* ---- text ------------------------------------------------------------------ */

/* Where text goes: a buffer that is the whole text (f NULL), or a spool
 * emptied into the stream f whenever it holds SPOOL bytes, so a whole
 * machine's tens of megabytes never sit in memory at once. */
struct sink {
    grovep_buf_t *b;
    FILE *f;
    bool ioerr; /* a write to f failed (errno kept in err) */
    int err;
};

#define SPOOL 65536

/* Empty the spool into the stream (all of it when force, else once it
 * holds SPOOL bytes). */
static void spill(struct sink *s, bool force)
{
    if (!s->f || s->ioerr || (!force && s->b->len < SPOOL) || s->b->len == 0)
        return;
    errno = 0;
    if (fwrite(s->b->p, 1, s->b->len, s->f) != s->b->len) {
        s->ioerr = true;
        s->err = errno ? errno : EIO;
    }
    s->b->len = 0;
}

static void put(grovep_buf_t *b, const char *s, size_t n)
{
    grovep_buf_put(b, s, n);
}

static void puts_(grovep_buf_t *b, const char *s)
{
    grovep_buf_put(b, s, strlen(s));
}

static char *fmt_int(char tmp[24], int64_t x);

/* name_cell's way when the cell is not made yet (or sym is past the
 * cells): make it, growing the cells to the graph's strings. */
static const char *name_cell_make(grove_writer_t *w, grove_sym_t sym)
{
    if (sym >= w->nnames) {
        size_t n = grove_intern_count(w->g->strings);
        char *c = sym < n && n <= SIZE_MAX / NAME_CELL ? realloc(w->names, n * NAME_CELL) : NULL;
        if (!c)
            return NULL;
        memset(c + w->nnames * NAME_CELL, 0, (n - w->nnames) * NAME_CELL);
        w->names = c;
        w->nnames = n;
    }
    char *c = w->names + (size_t)sym * NAME_CELL;
    if (!c[NAME_CELL - 1]) {
        const char *name = grove_intern_str(w->g->strings, sym);
        size_t nl = strlen(name);
        if (nl + 1 < NAME_CELL) {
            memcpy(c, name, nl);
            c[nl] = '[';
            c[NAME_CELL - 1] = (char)(nl + 1);
        } else {
            c[NAME_CELL - 1] = (char)NAME_LONG;
        }
    }
    return (unsigned char)c[NAME_CELL - 1] == NAME_LONG ? NULL : c;
}

/* The cell of the name sym (see NAME_CELL), or NULL when the name does not
 * fit one or its room cannot be had (put_line then copies the string). */
static inline const char *name_cell(grove_writer_t *w, grove_sym_t sym)
{
    if (sym < w->nnames) {
        const char *c = w->names + (size_t)sym * NAME_CELL;
        unsigned char n = (unsigned char)c[NAME_CELL - 1];
        if (n && n != NAME_LONG)
            return c;
    }
    return name_cell_make(w, sym);
}

static void put_int(grovep_buf_t *b, int64_t x)
{
    char tmp[24], *p = fmt_int(tmp, x);
    put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* A JSON string: controls as \b \f \n \r \t or \u00XX, quote and backslash
 * escaped, other bytes as they are. */
static void put_jstring(grovep_buf_t *b, const char *s)
{
    put(b, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\')
            continue;
        put(b, run, (size_t)(s - run));
        run = s + 1;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t" : NULL;
        if (esc) {
            puts_(b, esc);
        } else {
            char u[8];
            snprintf(u, sizeof(u), "\\u%04x", c);
            puts_(b, u);
        }
    }
    put(b, run, (size_t)(s - run));
    put(b, "\"", 1);
}

/* The decimal digits of x at the end of a 24-byte tmp: where they start. */
static char *fmt_int(char tmp[24], int64_t x)
{
    char *p = tmp + 24;
    uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (x < 0)
        *--p = '-';
    return p;
}

/* simple and pretty_simple: one line a vertex, "      " + "---" per level
 * + name[units:x|s].  A whole machine has a million: a line is laid out
 * in the buffer at once, in a few wide moves of fixed length (the lead,
 * the name's cell, the tail), then cut to length; a libc call per string
 * was a third of its cost.  What does not fit that (a deep line, a long
 * name, a negative amount, a spool without room) takes put_line_slow. */
static const char lead[] = "      ------------------------------------------------"
                           "------------------------------------------------";
static const char tails[4][16] = {":s]\n", ":x]\n", ":shared]\n", ":exclusive]\n"};
static const size_t tlen[4] = {4, 4, 9, 12};

/* room a line asks for on the fast path: lead and cell moved whole, the
 * digits, the tail moved whole */
#define LINE_FAST (2 * NAME_CELL + 24 + sizeof(tails[0]))

/* A line in pieces: deeper than the lead, a name without a cell, a
 * negative amount. */
static void put_line_pieces(const grove_writer_t *w, grovep_buf_t *b, int t, size_t ind,
                            grove_vid_t v, int64_t amount)
{
    const char *name = grove_vertex_name(w->g, v);
    if (ind >= sizeof(lead)) { /* deeper than the lead: in pieces */
        put(b, lead, 6);
        for (size_t d = ind - 6; d > 0;) {
            size_t m = d < sizeof(lead) - 7 ? d : sizeof(lead) - 7;
            put(b, lead + 6, m);
            d -= m;
        }
        ind = 0;
    }
    put(b, lead, ind);
    puts_(b, name ? name : "");
    put(b, "[", 1);
    put_int(b, amount);
    put(b, tails[t], tlen[t]);
}

/* put_line's way for what is not a single digit in a spool with room. */
static void put_line_slow(grove_writer_t *w, struct sink *s, int t, size_t ind, grove_vid_t v,
                          int64_t amount)
{
    grovep_buf_t *b = s->b;
    const char *cell = name_cell(w, grovep_vertex_name(w->g, v));
    if (!cell || ind > NAME_CELL || amount < 0 || !grovep_buf_room(b, LINE_FAST)) {
        put_line_pieces(w, b, t, ind, v, amount);
    } else {
        char *o = b->p + b->len;
        memcpy(o, lead, NAME_CELL); /* what lies past ind is overwritten */
        o += ind;
        memcpy(o, cell, NAME_CELL);
        o += (unsigned char)cell[NAME_CELL - 1];
        uint64_t u = (uint64_t)amount;
        size_t il = 1;
        for (uint64_t q = u; q >= 10; q /= 10)
            il++;
        o += il;
        for (char *d = o; d > o - il; u /= 10)
            *--d = (char)('0' + u % 10);
        memcpy(o, tails[t], sizeof(tails[t]));
        b->len = (size_t)(o - b->p) + tlen[t];
    }
    if (b->len >= SPOOL)
        spill(s, false);
}

/* Inline, the way of nearly every line of a machine: a name with its
 * cell made, an amount of one digit, room in the spool. */
static inline void put_line(grove_writer_t *w, struct sink *s, bool pretty, uint32_t depth,
                            grove_vid_t v, int64_t amount, bool x)
{
    grovep_buf_t *b = s->b;
    int t = (pretty ? 2 : 0) + (x ? 1 : 0);
    size_t ind = 6 + 3 * ((size_t)depth + 1);
    grove_sym_t sym = grovep_vertex_name(w->g, v);
    const char *cell = NULL;
    unsigned n = 0; /* the cell's length: 0 (none yet) or NAME_LONG take the slow way */
    if (sym < w->nnames) {
        cell = w->names + (size_t)sym * NAME_CELL;
        n = (unsigned char)cell[NAME_CELL - 1];
    }
    if (n == 0 || n == NAME_LONG || ind > NAME_CELL || (uint64_t)amount >= 10 || b->failed
        || b->cap - b->len <= LINE_FAST) {
        put_line_slow(w, s, t, ind, v, amount);
        return;
    }
    char *o = b->p + b->len;
    memcpy(o, lead, NAME_CELL); /* what lies past ind is overwritten */
    memcpy(o + ind, cell, NAME_CELL);
    o += ind + n;
    *o++ = (char)('0' + amount);
    memcpy(o, tails[t], sizeof(tails[t]));
    b->len = (size_t)(o - b->p) + tlen[t];
    if (b->len >= SPOOL)
        spill(s, false);
}

static void write_tree(grove_writer_t *w, bool pretty, struct sink *s)
{
    for (size_t k = 0; k < w->nord && !s->b->failed; k++) {
        uint32_t i = w->ord[k];
        const grove_wentry_t *e = &w->ents[i];
        put_line(w, s, pretty, w->lk[i].depth, e->v, e->amount, e->x);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A vertex's properties as a JSON object, keys sorted.  0 or -1 (ENOMEM). */
static int put_properties(const grove_graph_t *g, grove_vid_t v, size_t n, grovep_buf_t *b)
{
    const char **kv = malloc(2 * n * sizeof(*kv));
    if (!kv) {
        b->failed = true;
        errno = ENOMEM;
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (grove_vertex_property_at(g, v, i, &kv[2 * m], &kv[2 * m + 1]) == 0 && kv[2 * m + 1])
            m++;
    qsort(kv, m, 2 * sizeof(*kv), cmp_str);
    put(b, "{", 1);
    for (size_t i = 0; i < m; i++) {
        if (i)
            put(b, ", ", 2);
        put_jstring(b, kv[2 * i]);
        put(b, ": ", 2);
        put_jstring(b, kv[2 * i + 1]);
    }
    put(b, "}", 1);
    free(kv);
    return 0;
}

/* One JGF node. */
static void put_jgf_node(const grove_writer_t *w, uint32_t i, grove_wextra_fn extra, void *arg,
                         grovep_buf_t *b)
{
    const grove_graph_t *g = w->g;
    const grove_wentry_t *e = &w->ents[i];
    grove_vid_t v = e->v;
    put(b, "{\"id\": \"", 8);
    put_int(b, v);
    put(b, "\", \"metadata\": {\"type\": ", 24);
    put_jstring(b, grove_vertex_type(g, v));
    if (strcmp(grove_vertex_basename(g, v), grove_vertex_type(g, v))) {
        put(b, ", \"basename\": ", 14);
        put_jstring(b, grove_vertex_basename(g, v));
    }
    int64_t id = grove_vertex_id(g, v), rank = grove_vertex_rank(g, v);
    put(b, ", \"id\": ", 8);
    put_int(b, id == GROVE_ID_NONE ? -1 : id);
    put(b, ", \"rank\": ", 10);
    put_int(b, rank == GROVE_ID_NONE ? -1 : rank);
    if (e->x)
        puts_(b, ", \"exclusive\": true");
    if (e->amount != 1) {
        put(b, ", \"size\": ", 10);
        put_int(b, e->amount);
    }
    size_t np = grove_vertex_property_count(g, v);
    if (np) {
        put(b, ", \"properties\": ", 16);
        put_properties(g, v, np, b);
    }
    int len = grove_vertex_path(g, v, g->sym_containment, NULL, 0);
    char *path = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (path)
        grove_vertex_path(g, v, g->sym_containment, path, (size_t)len + 1);
    else if (len >= 0)
        b->failed = true;
    puts_(b, ", \"paths\": {\"containment\": ");
    put_jstring(b, path ? path : "");
    put(b, "}", 1);
    free(path);
    const char *more = extra ? extra(v, arg) : NULL;
    if (more) {
        put(b, ", \"agfilter\": ", 14);
        puts_(b, more);
    }
    put(b, "}}", 2);
}

static void write_jgf(const grove_writer_t *w, grove_wextra_fn extra, void *arg,
                      struct sink *s)
{
    grovep_buf_t *b = s->b;
    puts_(b, "{\"graph\": {\"nodes\": [");
    for (size_t k = 0; k < w->nord; k++) {
        if (k)
            put(b, ", ", 2);
        put_jgf_node(w, w->ord[k], extra, arg, b);
        spill(s, false);
    }
    puts_(b, "], \"edges\": [");
    bool first = true;
    for (size_t k = 0; k < w->nord; k++) {
        uint32_t i = w->ord[k];
        if (w->lk[i].home == NONE)
            continue;
        if (!first)
            put(b, ", ", 2);
        first = false;
        put(b, "{\"source\": \"", 12);
        put_int(b, w->ents[w->lk[i].home].v);
        put(b, "\", \"target\": \"", 14);
        put_int(b, w->ents[i].v);
        put(b, "\"}", 2);
        spill(s, false);
    }
    puts_(b, "]}}\n");
}

/* Rank of an R_lite child type: core, gpu, then the rest by name. */
static int child_rank(const char *k)
{
    return !strcmp(k, "core") ? 1 : !strcmp(k, "gpu") ? 2 : 3;
}

static int cmp_child(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int rx = child_rank(x), ry = child_rank(y);
    return rx != ry ? rx - ry : strcmp(x, y);
}

/* R_lite alone: [{"rank": "...", "children": {"core": "...", ...}}, ...]. */
static int write_rlite(const grove_rv1_t *R, grovep_buf_t *b)
{
    json_t *doc = grove_rv1_to_json(R, 0);
    if (!doc)
        return -1;
    json_t *rl = json_object_get(json_object_get(doc, "execution"), "R_lite");
    put(b, "[", 1);
    for (size_t i = 0; i < json_array_size(rl); i++) {
        json_t *ent = json_array_get(rl, i), *ch = json_object_get(ent, "children");
        size_t nk = json_object_size(ch), k = 0;
        const char **keys = malloc((nk ? nk : 1) * sizeof(*keys));
        if (!keys) {
            json_decref(doc);
            errno = ENOMEM;
            return -1;
        }
        const char *key;
        json_t *val;
        json_object_foreach(ch, key, val) keys[k++] = key;
        qsort(keys, nk, sizeof(*keys), cmp_child);
        if (i)
            put(b, ", ", 2);
        put(b, "{\"rank\": ", 9);
        put_jstring(b, json_string_value(json_object_get(ent, "rank")));
        put(b, ", \"children\": {", 15);
        for (k = 0; k < nk; k++) {
            if (k)
                put(b, ", ", 2);
            put_jstring(b, keys[k]);
            put(b, ": ", 2);
            put_jstring(b, json_string_value(json_object_get(ch, keys[k])));
        }
        put(b, "}}", 2);
        free(keys);
    }
    put(b, "]\n", 2);
    json_decref(doc);
    return 0;
}

/* The R formats. */
static int write_r(const grove_writer_t *w, grove_wfmt_t fmt, int64_t start, int64_t end,
                   grovep_buf_t *b, grove_error_t *err)
{
    grove_vid_t *vs = malloc((w->nord ? w->nord : 1) * sizeof(*vs));
    if (!vs) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t k = 0; k < w->nord; k++)
        vs[k] = w->ents[w->ord[k]].v;
    bool graph = fmt == GROVE_WFMT_RV1;
    grove_rv1_t *R = grove_rv1_from_vertices(w->g, vs, w->nord, start, end,
                                             graph ? GROVE_RV1_WITH_GRAPH : 0, err);
    free(vs);
    if (!R)
        return -1;
    int rc = 0;
    if (fmt == GROVE_WFMT_RLITE) {
        rc = write_rlite(R, b);
    } else {
        char *s = grove_rv1_encode(R, graph ? GROVE_RV1_WITH_GRAPH : GROVE_RV1_NO_SCHEDULING);
        if (s) {
            puts_(b, s);
            put(b, "\n", 1);
            free(s);
        } else {
            rc = -1;
        }
    }
    int saved = errno;
    grove_rv1_destroy(R);
    errno = saved;
    return rc;
}

/* The selection's text in fmt into s (see grove_writer_write).  0 or -1
 * with errno (and err for EINVAL). */
static int write_text(grove_writer_t *w, grove_wfmt_t fmt, int64_t start, int64_t end,
                      grove_wextra_fn extra, void *arg, struct sink *s, grove_error_t *err)
{
    if ((unsigned)fmt > GROVE_WFMT_RV1_NOSCHED) {
        grove_error_set(err, NULL, 0, "unknown output format %d", (int)fmt);
        errno = EINVAL;
        return -1;
    }
    bool pre = fmt == GROVE_WFMT_PRETTY_SIMPLE;
    /* the post-order grove_writer_job made serves when it kept everything */
    if (!grovep_buf_room(s->b, 64) || ((pre || !w->ord_post) && order(w, pre) < 0))
        return -1;
    int rc = 0;
    if (w->nord == 0)
        ; /* nothing selected, nothing written */
    else if (fmt == GROVE_WFMT_SIMPLE || fmt == GROVE_WFMT_PRETTY_SIMPLE)
        write_tree(w, fmt == GROVE_WFMT_PRETTY_SIMPLE, s);
    else if (fmt == GROVE_WFMT_JGF)
        write_jgf(w, extra, arg, s);
    else
        rc = write_r(w, fmt, start, end, s->b, err);
    if (rc == 0 && s->b->failed) {
        errno = ENOMEM;
        rc = -1;
    }
    return rc;
}

char *grove_writer_write(grove_writer_t *w, grove_wfmt_t fmt, int64_t start, int64_t end,
                         grove_wextra_fn extra, void *arg, size_t *len, grove_error_t *err)
{
    grovep_buf_t b = {0};
    struct sink s = {&b, NULL, false, 0};
    if (write_text(w, fmt, start, end, extra, arg, &s, err) < 0) {
        int saved = errno;
        free(b.p);
        errno = saved;
        return NULL;
    }
    *len = b.len;
    return grovep_buf_finish(&b);
}

int grove_writer_print(grove_writer_t *w, grove_wfmt_t fmt, int64_t start, int64_t end,
                       grove_wextra_fn extra, void *arg, FILE *f, grove_error_t *err)
{
    grovep_buf_t *b = &w->spool;
    struct sink s = {b, f, false, 0};
    b->len = 0;
    b->failed = false;
    int rc = write_text(w, fmt, start, end, extra, arg, &s, err);
    if (rc == 0)
        spill(&s, true);
    b->len = 0;
    b->failed = false;
    if (b->cap > 4 * SPOOL) { /* an R document went through whole: do not keep its room */
        free(b->p);
        *b = (grovep_buf_t){0};
    }
    if (rc == 0 && s.ioerr) {
        grove_error_set(err, NULL, 0, "cannot write the output: %s", strerror(s.err));
        errno = s.err;
        return -1;
    }
    return rc;
}

/* ---- a job's simple text, straight from the graph ------------------------------ */

/* What grove_writer_print_job's walk reads besides the writer. */
struct walk {
    const grove_job_t *job;     /* picks sorted by vertex id (duplicates adjacent) */
    const grove_wshape_t *shape; /* or NULL */
    const grove_vid_t *tk;      /* the tree's child arrays (grovep_tree_kids) */
    const uint32_t *off;
    grove_sym_t last;           /* the type whole_pick asked last (picks come in runs) */
    bool last_whole;            /* and its answer */
    int lists;                  /* the lists of picks below picks (pkid, pnext): 0 not
                                 * made yet, 1 made, -1 not to be made (child lists
                                 * out of id order, or no room) */
};

/* Is the pick i (the first of its vertex) printed whole: exclusive (any
 * pick of its vertex) and of an expand type?  Asked only of picks with
 * something below them, not of the million cores of a whole machine. */
static bool whole_pick(const grove_graph_t *g, struct walk *k, uint32_t i)
{
    const grove_job_t *job = k->job;
    if (!k->shape || !k->shape->nexpand)
        return false;
    bool x = false;
    grove_vid_t v = job->picks[i].v;
    for (size_t j = i; j < job->npicks && job->picks[j].v == v && !x; j++)
        x = job->picks[j].exclusive;
    if (!x)
        return false;
    grove_sym_t t = g->v[v].type;
    if (t != k->last) {
        k->last = t;
        k->last_whole = sym_in(t, k->shape->expand, k->shape->nexpand);
    }
    return k->last_whole;
}

static bool pick_lists(grove_writer_t *w, const grove_job_t *job);

/* Push the frame of v (pick: its first pick, or NONE) at depth, inside
 * an expanded pick or not.  A frame not printed whole prints only picks
 * below it; when v has more children than the job has picks (a one-core
 * job's root has hundreds of racks, one of them the job's), it reads
 * them from its pick's list, whose making for all the picks costs less
 * than looking at each child.  0 or -1. */
static inline int frame_push(grove_writer_t *w, struct walk *k, size_t *sp, grove_vid_t v,
                             uint32_t pick, uint32_t depth, bool inside)
{
    if (grovep_grow((void **)&w->frames, &w->framecap, *sp + 1, sizeof(*w->frames)) < 0)
        return -1;
    bool whole = inside || (pick != NONE && whole_pick(w->g, k, pick));
    /* a frame not whole is a pick's: only picks are met outside a whole one */
    bool bypick = !whole && k->off[v + 1] - k->off[v] > k->job->npicks && k->lists >= 0;
    if (bypick && k->lists == 0) {
        k->lists = pick_lists(w, k->job) ? 1 : -1;
        bypick = k->lists > 0;
    }
    w->frames[(*sp)++] = (struct wframe){v, bypick ? w->pkid[pick] : k->off[v], k->off[v + 1],
                                         pick, depth, whole, false, bypick};
    return 0;
}

/* present() for a vertex of the graph while grove_writer_print_job marks
 * its picks (v < nv <= vcap). */
static inline bool marked(const grove_writer_t *w, grove_vid_t v)
{
    return pick_slot(w, v) != NONE;
}

/* Is an ancestor of v (in containment) a pick printed whole?  Then v hangs
 * below what that pick's expansion adds. */
static bool below_whole(grove_writer_t *w, struct walk *k, grove_vid_t v)
{
    for (grove_vid_t a = w->g->parent[v]; a != GROVEP_NONE; a = w->g->parent[a])
        if (marked(w, a) && whole_pick(w->g, k, w->slot[a]))
            return true;
    return false;
}

/* Print v (pick: its first pick, or NONE: below an expanded pick, whole
 * and held) at depth, unless it is a shared container with nothing of
 * the job printed below it (needed).  Whether it was printed. */
static inline bool print_done(grove_writer_t *w, const grove_job_t *job, struct sink *s,
                              grove_vid_t v, uint32_t pick, uint32_t depth, bool needed)
{
    int64_t amount;
    bool x = true, alloc = true;
    if (pick != NONE) {
        const grove_pick_t *p = &job->picks[pick];
        amount = p->amount;
        x = p->exclusive;
        alloc = p->exclusive || p->recorded;
    } else {
        amount = grovep_vertex_size(w->g, v);
    }
    if (!(alloc || x || needed))
        return false;
    put_line(w, s, false, depth, v, amount, x);
    return true;
}

/* The child c of f (pick: its first pick, or NONE below an expanded
 * pick): its frame pushed, f to resume at resume once it is done (1), or
 * printed now, a leaf (0); -1 when no room.  off is k->off, kept in a
 * register by the caller (the text written may alias anything). */
static inline int walk_child(grove_writer_t *w, struct walk *k, const uint32_t *off, size_t *sp,
                             struct sink *s, struct wframe *f, grove_vid_t c, uint32_t pick,
                             uint32_t resume)
{
    if (off[c] != off[c + 1]) {
        f->cur = resume;
        return frame_push(w, k, sp, c, pick, f->depth + 1, f->whole) < 0 ? -1 : 1;
    }
    if (print_done(w, k->job, s, c, pick, f->depth + 1, false))
        f->needed = true;
    return 0;
}

/* The simple text of the tree below the root pick r (post-order, as
 * order() and write_tree make it): the walk follows the tree's child
 * arrays, so children come in graph order, and a vertex is printed when
 * all below it is (a shared container only when something below it
 * was).  A leaf is printed as it is met, without a frame: most of a
 * machine's vertices are cores. */
static int walk_simple(grove_writer_t *w, struct walk *k, grove_vid_t r, struct sink *s)
{
    const grove_vid_t *tk = k->tk;
    const uint32_t *off = k->off;
    int d = grove_vertex_depth(w->g, r, w->g->sym_containment);
    size_t sp = 0;
    if (frame_push(w, k, &sp, r, w->slot[r], d > 0 ? (uint32_t)d : 0, false) < 0)
        return -1;
    while (sp > 0 && !s->b->failed) {
        struct wframe *f = &w->frames[sp - 1];
        int pushed = 0;
        if (f->bypick) {
            for (uint32_t i = f->cur; i != NONE && !pushed;) {
                uint32_t pick = i;
                i = w->pnext[i];
                pushed = walk_child(w, k, off, &sp, s, f, k->job->picks[pick].v, pick, i);
            }
        } else {
            for (uint32_t i = f->cur, end = f->end; i < end && !pushed;) {
                grove_vid_t c = tk[i++];
                uint32_t pick = NONE;
                if (marked(w, c))
                    pick = w->slot[c];
                else if (!f->whole)
                    continue; /* not the job's */
                pushed = walk_child(w, k, off, &sp, s, f, c, pick, i);
            }
        }
        if (pushed < 0)
            return -1;
        if (pushed)
            continue;
        /* all below f is printed: f itself, unless nothing of the job is */
        sp--;
        if (print_done(w, k->job, s, f->v, f->pick, f->depth, f->needed) && sp > 0)
            w->frames[sp - 1].needed = true;
    }
    return 0;
}

/* The picks below each vertex's first pick of job (its slots set), in
 * vertex id order (pkid, pnext): graph order, when child lists are in id
 * order.  Whether they are made (false: no room). */
static bool pick_lists(grove_writer_t *w, const grove_job_t *job)
{
    size_t n = job->npicks, kcap = w->pkcap, ncap = w->pkcap;
    if (grovep_grow((void **)&w->pkid, &kcap, n, sizeof(*w->pkid)) < 0
        || grovep_grow((void **)&w->pnext, &ncap, n, sizeof(*w->pnext)) < 0)
        return false; /* the room of both is still at least pkcap */
    w->pkcap = kcap < ncap ? kcap : ncap;
    const grove_pick_t *pk = job->picks;
    for (size_t i = 0; i < n; i++)
        w->pkid[i] = NONE;
    /* from the last, each put first in its parent's list: lists in id order */
    for (size_t i = n; i-- > 0;) {
        grove_vid_t v = pk[i].v, p = w->g->parent[v];
        if ((i > 0 && pk[i - 1].v == v) || p == GROVEP_NONE || !marked(w, p))
            continue;
        uint32_t ps = w->slot[p];
        w->pnext[i] = w->pkid[ps];
        w->pkid[ps] = (uint32_t)i;
    }
    return true;
}

int grove_writer_print_job(grove_writer_t *w, const grove_job_t *job, const grove_wshape_t *shape,
                           grove_wfmt_t fmt, FILE *f, grove_error_t *err)
{
    const grove_graph_t *g = w->g;
    learn_graph(w);
    /* the walk needs one home per vertex (the tree parent), the tree's
     * child arrays, and picks in id order (roots are printed in that
     * order, duplicates are adjacent; checked while they are marked);
     * else the general way */
    struct walk k = {job, shape, NULL, NULL, GROVE_SYM_NONE, false, w->ordered ? 0 : -1};
    bool direct = fmt == GROVE_WFMT_SIMPLE && w->sub == GROVE_SYM_NONE && !w->second
                  && job->npicks < NONE && (k.tk = grovep_tree_kids(g, &k.off, NULL)) != NULL
                  && begin(w) == 0;
    if (direct) { /* the slots name the first pick of each vertex */
        w->picks = job->picks;
        w->npicks = job->npicks;
    }
    for (size_t i = 0; direct && i < job->npicks; i++) {
        grove_vid_t v = job->picks[i].v;
        if (i > 0 && job->picks[i - 1].v >= v) {
            direct = job->picks[i - 1].v == v; /* a duplicate: the first pick stands for it */
            continue;
        }
        w->slot[v] = (uint32_t)i;
    }
    if (!direct) {
        if (grove_writer_job(w, job, shape) < 0)
            return -1;
        return grove_writer_print(w, fmt, job->start, job->end, NULL, NULL, f, err);
    }
    grovep_buf_t *b = &w->spool;
    struct sink s = {b, f, false, 0};
    b->len = 0;
    b->failed = false;
    int rc = grovep_buf_room(b, 64) ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < job->npicks && !b->failed; i++) {
        grove_vid_t v = job->picks[i].v, p = g->parent[v];
        if ((p != GROVEP_NONE && marked(w, p)) || (i > 0 && job->picks[i - 1].v == v))
            continue; /* printed below its parent, or a duplicate */
        if (!below_whole(w, &k, v))
            rc = walk_simple(w, &k, v, &s);
    }
    if (rc == 0 && b->failed) {
        errno = ENOMEM;
        rc = -1;
    }
    if (rc == 0)
        spill(&s, true);
    b->len = 0;
    b->failed = false;
    /* the slots were the walk's: the writer is left with an
     * empty selection (begin cannot fail now, the room is made) */
    int saved = errno;
    (void)begin(w);
    errno = saved;
    if (rc == 0 && s.ioerr) {
        grove_error_set(err, NULL, 0, "cannot write the output: %s", strerror(s.err));
        errno = s.err;
        return -1;
    }
    return rc;
}
