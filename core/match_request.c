/* match_request.c: the request tree compiled from a jobspec.
 *
 * Workload: once per match, on requests of a few levels.  The jobspec's
 * resources become struct req (types interned, exclusivity as RFC 14
 * implies, the low-type units each level needs for pruning), or-slots are
 * grouped, channeled requests are put last, and xor slots are unfolded
 * into the variants a match tries in order.
 *
 * This file must not look at the graph's use or records: what it makes
 * depends on the jobspec and the graph's types only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* ---- the request tree --------------------------------------------------------- */

/* A channeled leaf (see grovep_match_channel_match)? */
static bool channeled_req(const grove_matcher_t *m, const struct req *r)
{
    return !r->slot && !r->child && r->type != GROVE_SYM_NONE
           && grovep_match_channeled_type(m, r->type);
}

/* Reorder the list starting at first so that its channeled leaves come
 * last, the others keeping their order: at the top of a jobspec a
 * channeled request prefers the vertices its siblings picked
 * (grovep_match_channel_match), so it is matched after them.  Returns the
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
    grove_sym_t node = grove_intern_lookup(g->strings, "node");
    for (size_t i = n; i-- > 0;) {
        struct req *r = &rs[i];
        {
            /* nodes wholly idle: a node written exclusive is one (its
             * take asks that no record touch it), and what its children
             * need below it */
            int64_t below = 0;
            for (const struct req *c = r->child; c; c = c->next)
                if (__builtin_add_overflow(below, c->idle_tot, &below))
                    below = INT64_MAX;
            int64_t own = !r->slot && r->excl && node != GROVE_SYM_NONE && r->type == node;
            r->idle1 = below == INT64_MAX ? INT64_MAX : own + below;
            uint64_t mult = r->count->min ? r->count->min : 1;
            if (__builtin_mul_overflow((int64_t)(mult > (uint64_t)INT32_MAX ? INT32_MAX : mult),
                                       r->idle1, &r->idle_tot))
                r->idle_tot = INT64_MAX;
            for (const struct req *a = r->alt; a; a = a->alt) {
                if (a->idle1 < r->idle1)
                    r->idle1 = a->idle1;
                if (a->idle_tot < r->idle_tot)
                    r->idle_tot = a->idle_tot;
            }
        }
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
struct req *grovep_match_compile(grove_matcher_t *m, const grove_jobspec_t *js, struct req ***tops,
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
        if (!(*tops = malloc(sizeof(**tops))))
            return GROVEP_NULL_AFTER(free, base, ENOMEM);
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
