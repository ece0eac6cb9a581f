/* match_never.c: why a request can never fit, in words.
 *
 * When the satisfiability check (a match that ignores records and status)
 * finds no place for a request, the matcher answers ENODEV; this file
 * names the first level of the request the graph cannot meet, read from
 * the graph's sizes alone: "no node with 40 cores: largest has 36",
 * "8 gpus requested: the graph has 4", "only 2 nodes with 30 cores:
 * 4 requested", "no node holds a slot of 20 memory: largest has 16".  Levels are visited top
 * down in the order written; at each one, the units of every type the
 * level asks for below one candidate are compared with what each vertex
 * of the level's type holds below it (levels the request omits are walked
 * through, as the match does).  When no level alone fails, the whole
 * request's count of each type is compared with what the graph holds of
 * it ("the job asks for 6 nodes, the machine has 4").
 *
 * Workload: only failed matches that can never fit come here, a handful
 * per job at most; each level costs a pass over the vertices of the types
 * it names and their ancestors, and an array of one int64_t per vertex.
 * The answer is a reading of sizes: a request that fails only through
 * what sizes do not show (exclusivity, slots that may not span nodes, a
 * dominant subsystem's shape) gets no level named, and the caller keeps
 * its plain message.
 *
 * This file must not walk the request tree against the graph the way the
 * matcher does (match_walk.c): it reads totals only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

/* At most this many types below one level are compared. */
#define MAX_BELOW 16

/* What one candidate of a level needs below it: units of each type. */
struct below {
    grove_sym_t type[MAX_BELOW];
    int64_t units[MAX_BELOW];
    size_t n;
};

static int64_t mul_sat(int64_t a, uint64_t b)
{
    int64_t r;
    if (b > (uint64_t)INT64_MAX || __builtin_mul_overflow(a, (int64_t)b, &r))
        return INT64_MAX;
    return r;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Add the needs of the requests in list r (each mult times) to b. */
static void collect(const struct req *r, int64_t mult, struct below *b)
{
    for (; r; r = r->next) {
        int64_t k = mul_sat(mult, r->count->min ? r->count->min : 1);
        if (!r->slot && r->type != GROVE_SYM_NONE) {
            size_t i = 0;
            while (i < b->n && b->type[i] != r->type)
                i++;
            if (i == b->n && b->n < MAX_BELOW) {
                b->type[b->n] = r->type;
                b->units[b->n++] = 0;
            }
            if (i < b->n)
                b->units[i] = add_sat(b->units[i], k);
        }
        collect(r->child, k, b);
    }
}

/* A type name with its count: "1 node", "40 cores", "2 memory". */
static void counted(char *buf, size_t len, int64_t n, const char *type)
{
    size_t tl = strlen(type);
    const char *s = n == 1 || (tl && (type[tl - 1] == 's' || type[tl - 1] == 'y')) ? "" : "s";
    snprintf(buf, len, "%lld %s%s", (long long)n, type, s);
}

/* Say in err that want units of type were asked where have is the most
 * there is: "<before><want type>s<between><have>".  1. */
static int short_of(const grove_graph_t *g, grove_error_t *err, const char *before,
                    int64_t want, grove_sym_t type, const char *between, int64_t have)
{
    char a[96];
    counted(a, sizeof(a), want, grove_graph_str(g, type));
    grove_error_set(err, NULL, 0, "%s%s%s%lld", before, a, between, (long long)have);
    return 1;
}

/* Units of type t in the dominant subsystem's tree (below root), and
 * below (and at) each vertex along its parents into sums[] (nv entries,
 * zeroed here); -1 when no vertex of t is in that tree: a channeled pool
 * (match_channel.c), taken along conduits, which sizes below a vertex do
 * not describe. */
static int64_t units_below(const grove_matcher_t *m, grove_vid_t root, grove_sym_t t,
                           int64_t *sums)
{
    const grove_graph_t *g = m->g;
    int64_t total = 0;
    bool in_tree = false;
    memset(sums, 0, g->nv * sizeof(*sums));
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v) || g->v[v].type != t || (v != root && m->par[v] == GROVEP_NONE))
            continue;
        in_tree = true;
        int64_t s = grovep_vertex_size(g, v);
        total = add_sat(total, s);
        for (grove_vid_t u = v; u != GROVEP_NONE && u < g->nv; u = m->par[u])
            sums[u] = add_sat(sums[u], s);
    }
    return in_tree ? total : -1;
}

/* Check the level r (wanted in all: want) and what lies below it; 1 with
 * the reason in err when it cannot be met, 0 when the sizes allow it, -1
 * (ENOMEM). */
static int check_level(grove_matcher_t *m, grove_vid_t root, const struct req *r, int64_t want,
                       int64_t *sums, bool *ok, grove_error_t *err)
{
    const grove_graph_t *g = m->g;
    const char *tname = grove_graph_str(g, r->type);
    char a[96], b[96];
    if (r->type == GROVE_SYM_NONE || grove_graph_count_type(g, r->type) == 0) {
        grove_error_set(err, NULL, 0, "no %s in the graph",
                        tname ? tname : grove_jobspec_resource_type(r->js));
        return 1;
    }
    int64_t total = units_below(m, root, r->type, sums);
    if (total < 0)
        return 0; /* channeled: not judged here */
    if (total < want) {
        counted(a, sizeof(a), want, tname);
        grove_error_set(err, NULL, 0, "%s requested: the graph has %lld", a, (long long)total);
        return 1;
    }
    bool constrained = m->constraint && r->type == m->ctype;
    struct below bl = {.n = 0};
    collect(r->child, 1, &bl);
    if (bl.n == 0 && !constrained)
        return 0;
    /* candidates of the level: those that meet the constraint (when the
     * level is of its type), then every need below, one type at a time */
    int64_t fit = 0;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        ok[v] = grovep_alive(g, v) && g->v[v].type == r->type && constraint_ok(m, v);
        fit += ok[v];
    }
    if (fit == 0) {
        grove_error_set(err, NULL, 0, "no %s meets the constraint", tname);
        return 1;
    }
    int len = 0;
    for (size_t i = 0; i < bl.n; i++) {
        if (units_below(m, root, bl.type[i], sums) < 0)
            continue; /* channeled */
        int64_t best = 0;
        fit = 0;
        for (grove_vid_t v = 0; v < g->nv; v++) {
            if (!ok[v])
                continue;
            if (sums[v] > best)
                best = sums[v];
            ok[v] = sums[v] >= bl.units[i];
            fit += ok[v];
        }
        counted(a, sizeof(a), bl.units[i], grove_graph_str(g, bl.type[i]));
        if (best < bl.units[i]) {
            grove_error_set(err, NULL, 0, "no %s%s with %s: largest has %lld", tname,
                            constrained ? " that meets the constraint" : "", a,
                            (long long)best);
            return 1;
        }
        if (len < (int)sizeof(b))
            len += snprintf(b + len, sizeof(b) - (size_t)len, "%s%s", i ? ", " : "", a);
    }
    if (fit < want) {
        char c[96];
        counted(c, sizeof(c), fit, tname);
        grove_error_set(err, NULL, 0, "only %s%s%s%s: %lld requested", c,
                        !constrained ? "" : fit == 1 ? " that meets the constraint"
                                                     : " that meet the constraint",
                        len ? " with " : "",
                        len ? b : "", (long long)want);
        return 1;
    }
    return 0;
}

/* A slot that asks for no nodes is placed within one node: what one slot
 * asks below must fit in some node (that meets the constraint).  1 with
 * the reason in err, 0 when it does or nodes are not what the graph
 * holds. */
static int check_slot(grove_matcher_t *m, grove_vid_t root, const struct req *r, int64_t *sums,
                      grove_error_t *err)
{
    const grove_graph_t *g = m->g;
    if (r->free_span || m->node_sym == GROVE_SYM_NONE)
        return 0;
    struct below bl = {.n = 0};
    collect(r->child, 1, &bl);
    for (size_t i = 0; i < bl.n; i++) {
        if (units_below(m, root, bl.type[i], sums) < 0)
            continue; /* channeled */
        int64_t best = 0;
        for (grove_vid_t v = 0; v < g->nv; v++)
            if (grovep_alive(g, v) && g->v[v].type == m->node_sym && constraint_ok(m, v)
                && sums[v] > best)
                best = sums[v];
        if (best < bl.units[i])
            return short_of(g, err, "no node holds a slot of ", bl.units[i], bl.type[i],
                            ": largest has ", best);
    }
    return 0;
}

/* The levels of list r, each wanted mult times its count, top down. */
static int check_list(grove_matcher_t *m, grove_vid_t root, const struct req *r, int64_t mult,
                      int64_t *sums, bool *ok, grove_error_t *err)
{
    for (; r; r = r->next) {
        int64_t want = mul_sat(mult, r->count->min ? r->count->min : 1);
        int rc = r->slot ? check_slot(m, root, r, sums, err)
                         : check_level(m, root, r, want, sums, ok, err);
        if (rc == 0)
            rc = check_list(m, root, r->child, want, sums, ok, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The whole request, each type counted over every level that asks for it
 * (a level's count times those above it), against the units of that
 * type the graph holds (its vertices' sizes summed, wherever they are):
 * the first type asked more of in all than the machine has ("the job asks
 * for 6 nodes, the machine has 4": two levels of 3 nodes, each of which
 * alone fits).  1 with the reason in err, or 0. */
static int check_totals(const grove_matcher_t *m, const struct req *top, grove_error_t *err)
{
    const grove_graph_t *g = m->g;
    struct below bl = {.n = 0};
    collect(top, 1, &bl);
    for (size_t i = 0; i < bl.n; i++) {
        int64_t have = 0;
        for (grove_vid_t v = 0; v < g->nv; v++)
            if (grovep_alive(g, v) && g->v[v].type == bl.type[i])
                have = add_sat(have, grovep_vertex_size(g, v));
        if (bl.units[i] > have)
            return short_of(g, err, "the job asks for ", bl.units[i], bl.type[i],
                            ", the machine has ", have);
    }
    return 0;
}

int grovep_match_explain_never(grove_matcher_t *m, grove_vid_t root, const struct req *top,
                               grove_error_t *err)
{
    size_t nv = m->g->nv ? m->g->nv : 1;
    int64_t *sums = malloc(nv * sizeof(*sums));
    bool *ok = malloc(nv * sizeof(*ok));
    int rc = -1;
    if (sums && ok)
        rc = check_list(m, root, top, 1, sums, ok, err);
    else
        errno = ENOMEM;
    if (rc == 0)
        rc = check_totals(m, top, err);
    free(sums);
    free(ok);
    return rc;
}
