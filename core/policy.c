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
 *   spread      nodes with the most free cores during the window first
 *               (then the most free GPUs; flux-core's worst-fit), so jobs
 *               spread over the machine (scores nodes only, named or not:
 *               a request of cores takes them from the emptiest nodes).
 *   gpu         jobs that ask for GPUs get the nodes with the most free
 *               GPUs; other jobs the nodes with the fewest, keeping GPU
 *               nodes for GPU jobs (scores nodes only).
 *
 * This file holds the built-in hooks and their table only: no state (the
 * hooks may run in several matchers at once, one per thread), nothing
 * about how the matcher calls them (match.c and its group) or about Lua policies
 * (bindings/l_policy.c).
 *
 * It also holds the request summary the matcher hands to every hook (the
 * types a request names, how many of each it asks in all, how many the
 * attempt has found).
 *
 * This file must not hold the matcher's walk (match_walk.c) or anything of Lua: a
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

/* spread's tie-break: free GPUs weigh less than one free core, as long
 * as a node has fewer than this many (exact in a double up to 2^33 free
 * cores). */
#define SPREAD_GPU_WEIGHT 1048576.0

/* Free cores first, then free GPUs: the order of flux-core's worst-fit
 * (Rv1Pool), which sorts nodes by (free cores, free GPUs) descending, ties
 * in rank order (the matcher keeps visiting order on equal scores). */
static double spread_key(double cores, double gpus)
{
    if (gpus > SPREAD_GPU_WEIGHT - 1)
        gpus = SPREAD_GPU_WEIGHT - 1;
    return cores * SPREAD_GPU_WEIGHT + gpus;
}

static int score_spread(void *arg, const grove_graph_t *g, grove_vid_t v,
                        const grove_policy_ctx_t *ctx, double *score)
{
    (void)arg;
    *score = spread_key(free_in_window(g, v, "core", ctx), free_in_window(g, v, "gpu", ctx));
    return 0;
}

/* The free cores and GPUs of each of the n vertices during the window,
 * from one query of each one's aggregate, the types looked up once (a
 * level of 16,384 nodes: the names were half of score's cost). */
static void free_cores_gpus(const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                            const grove_policy_ctx_t *ctx, double *cores, double *gpus)
{
    grove_sym_t t[2] = {grove_graph_sym_lookup(g, "core"), grove_graph_sym_lookup(g, "gpu")};
    for (size_t i = 0; i < n; i++) {
        int64_t u[2];
        if (grove_vertex_aggregate_avail_syms(g, vs[i], t, 2, ctx->start, ctx->end, u) < 0)
            u[0] = u[1] = 0;
        cores[i] = u[0] < 0 ? 0 : (double)u[0];
        gpus[i] = u[1] < 0 ? 0 : (double)u[1];
    }
}

/* score_spread for a level at once (out: n scores). */
static int scores_spread(void *arg, const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                         const grove_policy_ctx_t *ctx, double *out)
{
    (void)arg;
    double *gpus = malloc((n ? n : 1) * sizeof(*gpus));
    if (!gpus) {
        errno = ENOMEM;
        return -1;
    }
    free_cores_gpus(g, vs, n, ctx, out, gpus);
    for (size_t i = 0; i < n; i++)
        out[i] = spread_key(out[i], gpus[i]);
    free(gpus);
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
/* What of ctx the scores read: spread nothing (the free units of the
 * window come from the records during it), gpu whether the request asks
 * for GPUs. */
static const char *const reads_none[] = {NULL};
static const char *const reads_gpu_total[] = {"total.gpu", NULL};

static const grove_policy_t builtins[] = {
    {.name = "first"},
    {.name = "low", .order = order_low, .id_order = GROVE_ID_ORDER_ASCENDING},
    {.name = "high", .order = order_high, .id_order = GROVE_ID_ORDER_DESCENDING},
    {.name = "lonode", .order = order_low, .id_order = GROVE_ID_ORDER_ASCENDING,
     .node_centric = true},
    {.name = "hinode", .order = order_high, .id_order = GROVE_ID_ORDER_DESCENDING,
     .node_centric = true},
    {.name = "lonodex", .order = order_low, .id_order = GROVE_ID_ORDER_ASCENDING,
     .node_exclusive = true, .node_centric = true},
    {.name = "hinodex", .order = order_high, .id_order = GROVE_ID_ORDER_DESCENDING,
     .node_exclusive = true, .node_centric = true},
    {.name = "firstnodex", .node_exclusive = true},
    {.name = "fresh", .explore_by_use = true},
    {.name = "freshnodex", .node_exclusive = true, .explore_by_use = true},
    {.name = "locality", .choose = choose_locality, .select = GROVE_SELECT_BEST},
    {.name = "variation", .choose = choose_variation, .select = GROVE_SELECT_BEST},
    {.name = "spread", .score = score_spread, .scores = scores_spread,
     .select = GROVE_SELECT_BEST, .score_local = true, .score_reads = reads_none,
     .score_types = nodes_only},
    {.name = "gpu", .score = score_gpu, .select = GROVE_SELECT_BEST, .score_local = true,
     .score_reads = reads_gpu_total, .score_types = nodes_only},
};

const grove_policy_t *grove_policy_builtin(const char *name)
{
    for (size_t i = 0; name && i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
    errno = ENOENT;
    return NULL;
}

bool grove_policy_read_known(const char *field)
{
    static const char *const known[] = {"type", "count", "total", "start", "end", "duration"};
    if (!field)
        return false;
    if (!strncmp(field, "total.", 6))
        return field[6] != '\0';
    for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
        if (!strcmp(field, known[i]))
            return true;
    return false;
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

/* ---- the reference engine's sort ------------------------------------------
 *
 * The reference engine ranks the candidates of a request level with its
 * C++ library's std::sort (an introsort: median-of-three quicksort down to
 * runs of 16, heapsort past a depth of 2 log2 n, then one insertion sort),
 * which is not stable: among more than 16 candidates equal scores come out
 * in an order fixed by the algorithm's steps.  These functions take the
 * same steps on an index array, comparing key[idx[a]] < key[idx[b]], so
 * ties come out where the reference puts them. */

struct rsort {
    size_t *v;
    const double *key;
};

static bool rs_less(const struct rsort *s, size_t a, size_t b)
{
    return s->key[a] < s->key[b];
}

static void rs_swap(size_t *v, size_t i, size_t j)
{
    size_t t = v[i];
    v[i] = v[j];
    v[j] = t;
}

/* The heap steps of the heapsort fallback: base is the heap's first
 * element, positions are relative to it. */
static void rs_push_heap(struct rsort *s, size_t base, size_t hole, size_t top, size_t val)
{
    size_t parent = (hole - 1) / 2;
    while (hole > top && rs_less(s, s->v[base + parent], val)) {
        s->v[base + hole] = s->v[base + parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    s->v[base + hole] = val;
}

static void rs_adjust_heap(struct rsort *s, size_t base, size_t hole, size_t len, size_t val)
{
    size_t top = hole, child = hole;
    while (len > 0 && child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (rs_less(s, s->v[base + child], s->v[base + child - 1]))
            child--;
        s->v[base + hole] = s->v[base + child];
        hole = child;
    }
    if ((len & 1) == 0 && len >= 2 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        s->v[base + hole] = s->v[base + child - 1];
        hole = child - 1;
    }
    rs_push_heap(s, base, hole, top, val);
}

static void rs_heap_sort(struct rsort *s, size_t first, size_t last)
{
    size_t len = last - first;
    if (len >= 2)
        for (size_t parent = (len - 2) / 2;; parent--) {
            rs_adjust_heap(s, first, parent, len, s->v[first + parent]);
            if (parent == 0)
                break;
        }
    while (last - first > 1) {
        last--;
        size_t val = s->v[last];
        s->v[last] = s->v[first];
        rs_adjust_heap(s, first, 0, last - first, val);
    }
}

static void rs_median_to_first(struct rsort *s, size_t result, size_t a, size_t b, size_t c)
{
    size_t *v = s->v;
    if (rs_less(s, v[a], v[b])) {
        if (rs_less(s, v[b], v[c]))
            rs_swap(v, result, b);
        else if (rs_less(s, v[a], v[c]))
            rs_swap(v, result, c);
        else
            rs_swap(v, result, a);
    } else if (rs_less(s, v[a], v[c])) {
        rs_swap(v, result, a);
    } else if (rs_less(s, v[b], v[c])) {
        rs_swap(v, result, c);
    } else {
        rs_swap(v, result, b);
    }
}

static size_t rs_partition(struct rsort *s, size_t first, size_t last, size_t pivot)
{
    for (;;) {
        while (rs_less(s, s->v[first], s->v[pivot]))
            first++;
        last--;
        while (rs_less(s, s->v[pivot], s->v[last]))
            last--;
        if (!(first < last))
            return first;
        rs_swap(s->v, first, last);
        first++;
    }
}

static void rs_introsort(struct rsort *s, size_t first, size_t last, unsigned depth)
{
    while (last - first > 16) {
        if (depth == 0) {
            rs_heap_sort(s, first, last);
            return;
        }
        depth--;
        size_t mid = first + (last - first) / 2;
        rs_median_to_first(s, first, first + 1, mid, last - 1);
        size_t cut = rs_partition(s, first + 1, last, first);
        rs_introsort(s, cut, last, depth);
        last = cut;
    }
}

/* Insert v[i] into the sorted run before it; unguarded: something not
 * greater lies before it (the run's first element), except when the caller
 * checked v[i] against v[first] itself. */
static void rs_linear_insert(struct rsort *s, size_t i)
{
    size_t val = s->v[i];
    while (rs_less(s, val, s->v[i - 1])) {
        s->v[i] = s->v[i - 1];
        i--;
    }
    s->v[i] = val;
}

static void rs_insertion_sort(struct rsort *s, size_t first, size_t last)
{
    for (size_t i = first + 1; i < last; i++) {
        if (rs_less(s, s->v[i], s->v[first])) {
            size_t val = s->v[i];
            memmove(s->v + first + 1, s->v + first, (i - first) * sizeof(*s->v));
            s->v[first] = val;
        } else {
            rs_linear_insert(s, i);
        }
    }
}

void grove_policy_ref_sort(size_t *idx, size_t n, const double *key)
{
    if (n < 2)
        return;
    struct rsort s = {idx, key};
    unsigned lg = 0;
    for (size_t x = n; x > 1; x >>= 1)
        lg++;
    rs_introsort(&s, 0, n, 2 * lg);
    if (n > 16) {
        rs_insertion_sort(&s, 0, 16);
        for (size_t i = 16; i < n; i++)
            rs_linear_insert(&s, i);
    } else {
        rs_insertion_sort(&s, 0, n);
    }
}
