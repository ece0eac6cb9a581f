/* policy.c: the built-in placement policies, as C fast paths.
 *
 * Each has a readable Lua twin in policies/NAME.lua that gives the same
 * placements (a test compares them).  What they prefer:
 *
 *   first       the first resources found in graph order; stops early.
 *   low, high   lowest / highest vertex id first at every level; slots
 *               of a fixed count are compared by the sum of their ids,
 *               across nodes (the reference engine's slot scores).
 *   lonode,     lowest / highest node id first, and lowest / highest id
 *   hinode      at every other level inside a node (the reference
 *               engine's meaning; in a walk that visits nodes in id
 *               order this is the order of low / high; slots weigh
 *               their node's id first: node_centric).
 *   lonodex,    as lonode / hinode / first, and every selected node is
 *   hinodex,    taken whole (exclusive, with all it contains).
 *   firstnodex
 *   fresh,      what no earlier job went through first (highest id first
 *   freshnodex  among those), then what jobs went through, larger first;
 *               stops early.  The reference engine's `first` and
 *               `firstnodex` (grove query maps those names to these).
 *               freshnodex takes every selected node whole.
 *   locality    the candidates forming the tightest run of ids (fewest
 *               gaps), so jobs land on neighbouring nodes.
 *   variation   the candidates of the best `perf_class` (lowest; none
 *               or a bad one is the worst, 9999), as a job runs at the
 *               pace of its slowest node (candidate order on ties).
 *   spread      nodes with the most free cores during the window first,
 *               so jobs spread over the machine (scores nodes only).
 *   gpu         jobs that ask for GPUs get the nodes with the most free
 *               GPUs; other jobs the nodes with the fewest, keeping GPU
 *               nodes for GPU jobs (scores nodes only).
 *
 * This file holds the built-in hooks and their table only: no state (the
 * hooks may run in several matchers at once, one per thread), nothing
 * about how the matcher calls them (match.c) or about Lua policies
 * (bindings/l_policy.c).
 *
 * It also holds the request summary the matcher hands to every hook (the
 * types a request names, how many of each it asks in all, how many the
 * attempt has found).
 *
 * This file must not hold the matcher's walk (match.c) or anything of Lua: a
 * policy answers the matcher's questions and nothing more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "util.h"

/* Whether x comes before y by id (then vertex id), ascending or descending:
 * a total order on distinct vertices. */
static bool id_before(const grove_graph_t *g, grove_vid_t x, grove_vid_t y, bool desc)
{
    int64_t xi = grove_vertex_id(g, x), yi = grove_vertex_id(g, y);
    return desc ? (xi > yi || (xi == yi && x > y)) : (xi < yi || (xi == yi && x < y));
}

/* What cmp_id compares by: passed through qsort_r, never kept in a global,
 * so matchers in different threads sort independently. */
struct id_order {
    const grove_graph_t *g;
    bool desc;
};

static int cmp_id(const void *a, const void *b, void *arg)
{
    const struct id_order *o = arg;
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return id_before(o->g, x, y, o->desc) ? -1 : id_before(o->g, y, x, o->desc);
}

/* Sort kids by id (then vertex id), ascending or descending.  Sibling lists usually come
 * sorted one way already: that is found in one pass (and a reversed list
 * reversed), the rest sorted in full.  Always 0. */
static int order_by_id(const grove_graph_t *g, grove_vid_t *kids, size_t n, bool desc)
{
    bool in_order = true, reversed = true;
    for (size_t i = 1; i < n && (in_order || reversed); i++) {
        if (!id_before(g, kids[i - 1], kids[i], desc))
            in_order = false;
        if (!id_before(g, kids[i], kids[i - 1], desc))
            reversed = false;
    }
    if (in_order)
        return 0;
    if (reversed) {
        for (size_t i = 0; i < n / 2; i++) {
            grove_vid_t t = kids[i];
            kids[i] = kids[n - 1 - i];
            kids[n - 1 - i] = t;
        }
        return 0;
    }
    struct id_order o = {g, desc};
    qsort_r(kids, n, sizeof(*kids), cmp_id, &o);
    return 0;
}

/* The order hooks of low, high, lonode and hinode (and their x variants).
 * Their arg is not theirs (a Lua policy based on one passes its own), so
 * the direction is in the function, not in arg. */
static int order_low(void *arg, const grove_graph_t *g, grove_vid_t p, grove_vid_t *k,
                     size_t n)
{
    return (void)arg, (void)p, order_by_id(g, k, n, false);
}

static int order_high(void *arg, const grove_graph_t *g, grove_vid_t p, grove_vid_t *k,
                      size_t n)
{
    return (void)arg, (void)p, order_by_id(g, k, n, true);
}

/* The class a node with no usable perf_class gets: the worst, as the
 * reference engine ranks it. */
#define PERF_CLASS_WORST 9999

/* v's performance class: the integer its perf_class property starts with
 * (after blanks), from 0 (best) to PERF_CLASS_WORST; a missing property,
 * one that does not start with an integer, and one out of that range give
 * PERF_CLASS_WORST, so nodes nobody classified are used last. */
double grove_policy_perf_class(const grove_graph_t *g, grove_vid_t v)
{
    const char *p = grove_vertex_property(g, v, "perf_class");
    if (!p)
        return PERF_CLASS_WORST;
    char *end;
    errno = 0;
    long c = strtol(p, &end, 10);
    if (end == p || errno == ERANGE || c < 0 || c > PERF_CLASS_WORST)
        return PERF_CLASS_WORST;
    return (double)c;
}

/* locality and variation: sort the n candidates (stably) by a key, then
 * take k consecutive ones.  locality sorts by vertex id and takes the
 * window with the smallest spread of ids, the first on ties (jobs land on
 * neighbouring nodes); variation (by_class) sorts by perf_class and takes
 * the first k, the best classes (a job runs at the pace of its slowest
 * node; the reference engine's choice). */
static int choose_window(const grove_graph_t *g, const grove_vid_t *vs, size_t n, size_t k,
                         size_t *pick, bool by_class)
{
    if (k == 0)
        return 0;
    size_t *idx = malloc(n * sizeof(*idx));
    double *key = malloc(n * sizeof(*key));
    if (!idx || !key) {
        free(idx);
        free(key);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        key[i] = by_class ? grove_policy_perf_class(g, vs[i]) : (double)vs[i];
        size_t j = i; /* insertion sort: stable, and n is small */
        while (j > 0 && key[idx[j - 1]] > key[i]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    size_t best = 0;
    int64_t ibest = 0;
    for (size_t s = 0; !by_class && s + k <= n; s++) {
        size_t lo = idx[s], hi = idx[s + k - 1];
        int64_t isp = grove_vertex_id(g, vs[hi]) - grove_vertex_id(g, vs[lo]);
        if (s == 0 || isp < ibest) {
            ibest = isp;
            best = s;
        }
    }
    for (size_t i = 0; i < k; i++)
        pick[i] = idx[best + i];
    free(idx);
    free(key);
    return 0;
}

static int choose_locality(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                           const double *scores, size_t n, size_t k, size_t *pick)
{
    return (void)arg, (void)scores, choose_window(g, vs, n, k, pick, false);
}

static int choose_variation(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                            const double *scores, size_t n, size_t k, size_t *pick)
{
    return (void)arg, (void)scores, choose_window(g, vs, n, k, pick, true);
}

/* Free units of type below v during the window, from v's aggregate (0
 * when it keeps none). */
static double free_in_window(const grove_graph_t *g, grove_vid_t v, const char *type,
                             const grove_policy_ctx_t *ctx)
{
    int64_t n = grove_vertex_aggregate_avail(g, v, type, ctx->start, ctx->end);
    return n < 0 ? 0 : (double)n;
}

static int score_spread(void *arg, const grove_graph_t *g, grove_vid_t v,
                        const grove_policy_ctx_t *ctx, double *score)
{
    (void)arg;
    *score = free_in_window(g, v, "core", ctx);
    return 0;
}

/* Does the request ask for some units of type? */
static bool asks_for(const grove_policy_ctx_t *ctx, const char *type)
{
    const grove_policy_request_t *r = ctx->req;
    for (size_t k = 0; r && k < r->ntypes; k++)
        if (!strcmp(r->names[k], type) && r->total[k] > 0)
            return true;
    return false;
}

static int score_gpu(void *arg, const grove_graph_t *g, grove_vid_t v,
                     const grove_policy_ctx_t *ctx, double *score)
{
    (void)arg;
    double n = free_in_window(g, v, "gpu", ctx);
    *score = asks_for(ctx, "gpu") ? n : -n;
    return 0;
}

static const char *const nodes_only[] = {"node", NULL};

static const grove_policy_t builtins[] = {
    {.name = "first"},
    {.name = "low", .order = order_low},
    {.name = "high", .order = order_high},
    {.name = "lonode", .order = order_low, .node_centric = true},
    {.name = "hinode", .order = order_high, .node_centric = true},
    {.name = "lonodex", .order = order_low, .node_exclusive = true, .node_centric = true},
    {.name = "hinodex", .order = order_high, .node_exclusive = true, .node_centric = true},
    {.name = "firstnodex", .node_exclusive = true},
    {.name = "fresh", .explore_by_use = true},
    {.name = "freshnodex", .node_exclusive = true, .explore_by_use = true},
    {.name = "locality", .choose = choose_locality, .select = GROVE_SELECT_BEST},
    {.name = "variation", .choose = choose_variation, .select = GROVE_SELECT_BEST},
    {.name = "spread", .score = score_spread, .select = GROVE_SELECT_BEST,
     .score_types = nodes_only},
    {.name = "gpu", .score = score_gpu, .select = GROVE_SELECT_BEST, .score_types = nodes_only},
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

/* ---- the request as hooks see it ------------------------------------------ */

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The minimum count of r times those of its ancestors. */
static uint64_t path_count(const grove_jobspec_resource_t *r)
{
    uint64_t n = 1;
    for (; r; r = grove_jobspec_resource_parent(r)) {
        const grove_count_t *c = grove_jobspec_resource_count(r);
        n = mul_sat(n, c->min);
    }
    return n;
}

int grove_policy_request_init(grove_policy_request_t *r, const grove_graph_t *g,
                              const grove_jobspec_t *js, grove_jobid_t id, int64_t duration)
{
    memset(r, 0, sizeof(*r));
    r->jobspec = js;
    r->job = id;
    r->duration = duration;
    size_t n = grove_jobspec_resource_total(js);
    r->names = malloc((n ? n : 1) * sizeof(*r->names));
    r->types = malloc((n ? n : 1) * sizeof(*r->types));
    r->total = calloc(n ? n : 1, sizeof(*r->total));
    r->found = calloc(n ? n : 1, sizeof(*r->found));
    if (!r->names || !r->types || !r->total || !r->found) {
        grove_policy_request_fini(r);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const grove_jobspec_resource_t *x = grove_jobspec_resource_at(js, i);
        if (grove_jobspec_resource_is_slot(x))
            continue;
        const char *type = grove_jobspec_resource_type(x);
        size_t k = 0;
        while (k < r->ntypes && strcmp(r->names[k], type))
            k++;
        if (k == r->ntypes) {
            r->names[k] = type;
            r->types[k] = grove_graph_sym_lookup(g, type);
            r->ntypes++;
        }
        uint64_t t = r->total[k] + path_count(x);
        r->total[k] = t < r->total[k] ? UINT64_MAX : t;
    }
    return 0;
}

void grove_policy_request_fini(grove_policy_request_t *r)
{
    GROVEP_FREE_ALL(r->names, r->types, r->total, r->found);
    memset(r, 0, sizeof(*r));
}

void grove_policy_request_found(grove_policy_request_t *r, grove_sym_t type, int64_t delta)
{
    for (size_t k = 0; k < r->ntypes; k++) {
        if (r->types[k] != type || type == GROVE_SYM_NONE)
            continue;
        r->found[k] += (uint64_t)delta; /* modular: a give-back follows its take */
        r->serial++;
        return;
    }
}

void grove_policy_request_reset(grove_policy_request_t *r)
{
    if (r->ntypes)
        memset(r->found, 0, r->ntypes * sizeof(*r->found));
    r->serial++;
}

bool grove_policy_applies(const grove_graph_t *g, const char *const *types, grove_sym_t t)
{
    if (!types)
        return true;
    const char *name = grove_graph_str(g, t);
    for (size_t i = 0; types[i]; i++)
        if (name && !strcmp(types[i], name))
            return true;
    return false;
}
