/* policy.c: the built-in placement policies, as C fast paths.
 *
 * Each has a readable Lua twin in policies/NAME.lua that gives the same
 * placements (a test compares them).  What they prefer:
 *
 *   first       the first resources found in graph order; stops early.
 *   low, high   lowest / highest vertex id first at every level.
 *   lonode,     lowest / highest id first among nodes; other levels in
 *   hinode      graph order.
 *   lonodex,    as lonode / hinode / first, and every selected node is
 *   hinodex,    taken whole (exclusive, with all it contains).
 *   firstnodex
 *   locality    the candidates forming the tightest run of ids (fewest
 *               gaps), so jobs land on neighbouring nodes.
 *   variation   candidates whose `perf_class` properties vary least, so a
 *               job's nodes perform alike (lower class first on ties).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static bool id_before(const grove_graph_t *g, grove_vid_t x, grove_vid_t y, bool desc)
{
    int64_t xi = grove_vertex_id(g, x), yi = grove_vertex_id(g, y);
    return desc ? (xi > yi || (xi == yi && x > y)) : (xi < yi || (xi == yi && x < y));
}

static const grove_graph_t *sort_graph;
static bool sort_desc;

static int cmp_id(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return id_before(sort_graph, x, y, sort_desc) ? -1 : id_before(sort_graph, y, x, sort_desc);
}

/* Sort kids by id (then vertex id), ascending or descending.  Sibling lists
 * usually come sorted one way already: that is found in one pass (and a
 * reversed list reversed), the rest sorted in full. */
static void sort_by_id(const grove_graph_t *g, grove_vid_t *kids, size_t n, bool desc)
{
    bool in_order = true, reversed = true;
    for (size_t i = 1; i < n && (in_order || reversed); i++) {
        if (!id_before(g, kids[i - 1], kids[i], desc))
            in_order = false;
        if (!id_before(g, kids[i], kids[i - 1], desc))
            reversed = false;
    }
    if (in_order)
        return;
    if (reversed) {
        for (size_t i = 0; i < n / 2; i++) {
            grove_vid_t t = kids[i];
            kids[i] = kids[n - 1 - i];
            kids[n - 1 - i] = t;
        }
        return;
    }
    /* the matcher calls policies from one thread at a time */
    sort_graph = g;
    sort_desc = desc;
    qsort(kids, n, sizeof(*kids), cmp_id);
}

static int order_low(void *arg, const grove_graph_t *g, grove_vid_t p, grove_vid_t *k, size_t n)
{
    (void)arg;
    (void)p;
    sort_by_id(g, k, n, false);
    return 0;
}

static int order_high(void *arg, const grove_graph_t *g, grove_vid_t p, grove_vid_t *k, size_t n)
{
    (void)arg;
    (void)p;
    sort_by_id(g, k, n, true);
    return 0;
}

/* Only when the children are nodes. */
static bool children_are_nodes(const grove_graph_t *g, const grove_vid_t *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(grove_vertex_type(g, k[i]), "node"))
            return true;
    return false;
}

static int order_lonode(void *arg, const grove_graph_t *g, grove_vid_t p, grove_vid_t *k,
                        size_t n)
{
    (void)arg;
    (void)p;
    if (children_are_nodes(g, k, n))
        sort_by_id(g, k, n, false);
    return 0;
}

static int order_hinode(void *arg, const grove_graph_t *g, grove_vid_t p, grove_vid_t *k,
                        size_t n)
{
    (void)arg;
    (void)p;
    if (children_are_nodes(g, k, n))
        sort_by_id(g, k, n, true);
    return 0;
}

/* locality: the k candidates (taken in id order) with the smallest spread
 * of ids; the earliest such run on ties. */
static int choose_locality(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                           const double *scores, size_t n, size_t k, size_t *pick)
{
    (void)arg;
    (void)scores;
    if (k == 0)
        return 0;
    size_t *idx = malloc(n * sizeof(*idx));
    if (!idx) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    /* sort positions by vertex id */
    for (size_t i = 1; i < n; i++) {
        size_t x = idx[i], j = i;
        while (j > 0 && vs[idx[j - 1]] > vs[x]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
    size_t best = 0;
    int64_t spread = INT64_MAX;
    for (size_t s = 0; s + k <= n; s++) {
        int64_t sp = grove_vertex_id(g, vs[idx[s + k - 1]]) - grove_vertex_id(g, vs[idx[s]]);
        if (sp < spread) {
            spread = sp;
            best = s;
        }
    }
    for (size_t i = 0; i < k; i++)
        pick[i] = idx[best + i];
    free(idx);
    return 0;
}

static double perf_class(const grove_graph_t *g, grove_vid_t v)
{
    const char *p = grove_vertex_property(g, v, "perf_class");
    if (!p)
        return 0;
    char *end;
    double d = strtod(p, &end);
    return end == p ? 0 : d;
}

/* variation: sort by perf_class (then graph order), take the window of k
 * with the smallest max - min; the first on ties. */
static int choose_variation(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                            const double *scores, size_t n, size_t k, size_t *pick)
{
    (void)arg;
    (void)scores;
    if (k == 0)
        return 0;
    size_t *idx = malloc(n * sizeof(*idx));
    double *pc = malloc(n * sizeof(*pc));
    if (!idx || !pc) {
        free(idx);
        free(pc);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        pc[i] = perf_class(g, vs[i]);
    }
    for (size_t i = 1; i < n; i++) {
        size_t x = idx[i], j = i;
        while (j > 0 && (pc[idx[j - 1]] > pc[x] || (pc[idx[j - 1]] == pc[x] && idx[j - 1] > x))) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
    size_t best = 0;
    double spread = 0;
    for (size_t s = 0; s + k <= n; s++) {
        double sp = pc[idx[s + k - 1]] - pc[idx[s]];
        if (s == 0 || sp < spread) {
            spread = sp;
            best = s;
        }
    }
    for (size_t i = 0; i < k; i++)
        pick[i] = idx[best + i];
    free(idx);
    free(pc);
    return 0;
}

static const grove_policy_t builtins[] = {
    {.name = "first"},
    {.name = "low", .order = order_low},
    {.name = "high", .order = order_high},
    {.name = "lonode", .order = order_lonode},
    {.name = "hinode", .order = order_hinode},
    {.name = "lonodex", .order = order_lonode, .node_exclusive = true},
    {.name = "hinodex", .order = order_hinode, .node_exclusive = true},
    {.name = "firstnodex", .node_exclusive = true},
    {.name = "locality", .choose = choose_locality, .select = GROVE_SELECT_BEST},
    {.name = "variation", .choose = choose_variation, .select = GROVE_SELECT_BEST},
};

const grove_policy_t *grove_policy_builtin(const char *name)
{
    for (size_t i = 0; name && i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
    errno = ENOENT;
    return NULL;
}

const char *grove_policy_builtin_name(size_t i)
{
    return i < sizeof(builtins) / sizeof(builtins[0]) ? builtins[i].name : NULL;
}
