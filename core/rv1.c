/* rv1.c: R version 1 (RFC 20) read, write and set algebra (see rv1.h for
 * the rules).
 *
 * Workload: an R per allocation, written once per successful match and read
 * back on release; from a single core to a whole machine of 16,384 ranks.
 * Instance R (the whole machine, with a scheduling graph of a million
 * vertices) is read once at start.
 *
 * Representation (rv1_private.h): one entry per rank, sorted by rank, each
 * with its host name and a short array of (type, idset) children sorted by
 * type index; type names are kept once per R.  Coalescing happens only when
 * writing: ranks are sorted by their children and grouped, so equal
 * children across any number of ranks become one R_lite entry in
 * O(n log n).  Set algebra is a merge of the two sorted rank arrays with
 * idset algebra per type.
 *
 * The scheduling key and unknown keys are kept as jansson values, never
 * interpreted here.  This file must not hold anything that reads or builds
 * a graph: R from vertices, R to a graph and shards onto vertices are in
 * rv1_graph.c.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_private.h"
#include "jobspec.h"
#include "json_private.h"
#include "limit.h"
#include "util.h"
#include "rv1_private.h"

static const char bad_prop_chars[] = "!&'\"^`|()";

/* ---- small helpers ---------------------------------------------------- */

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    return grovep_or_errno(d, ENOMEM);
}

/* Canonical order of child type names: core, gpu, then by name. */
static int type_order(const char *a, const char *b)
{
    int ra = strcmp(a, "core") == 0 ? 0 : strcmp(a, "gpu") == 0 ? 1 : 2;
    int rb = strcmp(b, "core") == 0 ? 0 : strcmp(b, "gpu") == 0 ? 1 : 2;
    if (ra != rb)
        return ra - rb;
    return strcmp(a, b);
}

bool grovep_rv1_valid_prop_name(const char *s)
{
    return s[0] != '\0' && s[strcspn(s, bad_prop_chars)] == '\0';
}

/* Order two idsets by their runs (any total order consistent with
 * equality will do). */
static int idset_cmp(const grove_idset_t *a, const grove_idset_t *b)
{
    size_t na = grove_idset_run_count(a), nb = grove_idset_run_count(b);
    for (size_t i = 0; i < na && i < nb; i++) {
        unsigned alo, ahi, blo, bhi;
        grove_idset_run(a, i, &alo, &ahi);
        grove_idset_run(b, i, &blo, &bhi);
        int c = GROVEP_CMP(alo, blo);
        if (c || (c = GROVEP_CMP(ahi, bhi)))
            return c;
    }
    return GROVEP_CMP(na, nb);
}

/* ---- life ------------------------------------------------------------- */

static void rank_fini(struct rv1_rank *rk)
{
    for (uint32_t i = 0; i < rk->nkids; i++)
        grove_idset_destroy(rk->kids[i].ids);
    free(rk->kids);
    free(rk->host);
}

grove_rv1_t *grove_rv1_create(void)
{
    grove_rv1_t *R = grovep_zalloc(sizeof(*R));
    if (!R)
        return NULL;
    R->nslots = -1;
    R->has_execution = true;
    R->has_nodelist = true;
    R->rlite_over = SIZE_MAX;
    return R;
}

void grove_rv1_destroy(grove_rv1_t *R)
{
    if (!R)
        return;
    int saved = errno; /* failure paths destroy after setting errno */
    for (size_t i = 0; i < R->n; i++)
        rank_fini(&R->r[i]);
    free(R->r);
    GROVEP_FREE_ARRAY(R->types, R->ntypes);
    for (size_t i = 0; i < R->nprops; i++) {
        free(R->props[i].name);
        grove_idset_destroy(R->props[i].ranks);
    }
    free(R->props);
    GROVEP_EACH(json_decref, json_t, R->nodelist_as_read, R->scheduling, R->extra, R->exec_extra);
    free(R->sched_text);
    free(R);
    errno = saved;
}

static long type_lookup(const grove_rv1_t *R, const char *name)
{
    for (size_t i = 0; i < R->ntypes; i++)
        if (strcmp(R->types[i], name) == 0)
            return (long)i;
    return -1;
}

long grovep_rv1_type_index(grove_rv1_t *R, const char *name)
{
    long t = type_lookup(R, name);
    if (t >= 0)
        return t;
    if (grovep_grow((void **)&R->types, &R->typecap, R->ntypes + 1, sizeof(*R->types)) < 0)
        return -1;
    if (!(R->types[R->ntypes] = xstrdup(name)))
        return -1;
    return (long)R->ntypes++;
}

/* R's type indices ordered by cmp of their names, in a new array (an
 * insertion sort: a handful of types); NULL with ENOMEM. */
static uint32_t *types_by(const grove_rv1_t *R, int (*cmp)(const char *, const char *))
{
    uint32_t *o = malloc((R->ntypes ? R->ntypes : 1) * sizeof(*o));
    if (!o) {
        errno = ENOMEM;
        return NULL;
    }
    for (uint32_t i = 0; i < R->ntypes; i++) {
        uint32_t j = i;
        while (j > 0 && cmp(R->types[o[j - 1]], R->types[i]) > 0) {
            o[j] = o[j - 1];
            j--;
        }
        o[j] = i;
    }
    return o;
}

uint32_t *grovep_rv1_canonical_types(const grove_rv1_t *R)
{
    return types_by(R, type_order);
}

/* Position of rank in R->r, or where it would go (*found false). */
static size_t rank_pos(const grove_rv1_t *R, unsigned rank, bool *found)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, R->n, mid, R->r[mid].rank < rank);
    *found = lo < R->n && R->r[lo].rank == rank;
    return lo;
}

struct rv1_rank *grovep_rv1_rank_find(const grove_rv1_t *R, unsigned rank)
{
    bool found;
    size_t i = rank_pos(R, rank, &found);
    return found ? &R->r[i] : NULL;
}

/* A zeroed entry for rank at position i of R->r (later entries move up);
 * NULL with ENOMEM. */
static struct rv1_rank *rank_insert(grove_rv1_t *R, size_t i, unsigned rank)
{
    if (grovep_grow((void **)&R->r, &R->cap, R->n + 1, sizeof(*R->r)) < 0)
        return NULL;
    memmove(&R->r[i + 1], &R->r[i], (R->n - i) * sizeof(*R->r));
    memset(&R->r[i], 0, sizeof(*R->r));
    R->r[i].rank = rank;
    R->n++;
    return &R->r[i];
}

/* The entry of rank, created (in order) if new; NULL with ENOMEM/EINVAL. */
static struct rv1_rank *rank_get(grove_rv1_t *R, unsigned rank)
{
    if (rank > GROVE_IDSET_MAX_ID) {
        errno = EINVAL;
        return NULL;
    }
    bool found;
    size_t i = rank_pos(R, rank, &found);
    return found ? &R->r[i] : rank_insert(R, i, rank);
}

/* The fast path for ordered building. */
struct rv1_rank *grovep_rv1_rank_append(grove_rv1_t *R, unsigned rank)
{
    return rank_insert(R, R->n, rank);
}

struct rv1_kid *grovep_rv1_kid_find(const struct rv1_rank *rk, uint32_t t)
{
    for (uint32_t i = 0; i < rk->nkids; i++)
        if (rk->kids[i].type == t)
            return &rk->kids[i];
    return NULL;
}

int grovep_rv1_kid_take(struct rv1_rank *rk, uint32_t t, grove_idset_t *ids)
{
    size_t cap = rk->kidcap;
    if (grovep_grow((void **)&rk->kids, &cap, rk->nkids + 1, sizeof(*rk->kids)) < 0) {
        grove_idset_destroy(ids);
        return -1;
    }
    rk->kidcap = (uint32_t)cap;
    struct rv1_kid *kk = rk->kids;
    uint32_t i = rk->nkids;
    while (i > 0 && kk[i - 1].type > t) {
        kk[i] = kk[i - 1];
        i--;
    }
    kk[i] = (struct rv1_kid){t, ids};
    rk->nkids++;
    return 0;
}

/* Add a copy of ids to child type t of rk.  Returns 0, 1 when some id was
 * already there (added anyway), or -1 (ENOMEM). */
static int kid_add(struct rv1_rank *rk, uint32_t t, const grove_idset_t *ids)
{
    if (grove_idset_empty(ids))
        return 0;
    struct rv1_kid *k = grovep_rv1_kid_find(rk, t);
    if (!k) {
        grove_idset_t *c = grove_idset_copy(ids);
        return c ? grovep_rv1_kid_take(rk, t, c) : -1;
    }
    grove_idset_t *both = grove_idset_intersect(k->ids, ids);
    if (!both)
        return -1;
    bool overlap = !grove_idset_empty(both);
    grove_idset_destroy(both);
    if (grove_idset_add(k->ids, ids) < 0)
        return -1;
    return overlap ? 1 : 0;
}

static void forget_nodelist(grove_rv1_t *R)
{
    json_decref(R->nodelist_as_read);
    R->nodelist_as_read = NULL;
}

static struct rv1_prop *prop_find(const grove_rv1_t *R, const char *name)
{
    for (size_t i = 0; i < R->nprops; i++)
        if (strcmp(R->props[i].name, name) == 0)
            return &R->props[i];
    return NULL;
}

struct rv1_prop *grovep_rv1_prop_get(grove_rv1_t *R, const char *name)
{
    struct rv1_prop *p = prop_find(R, name);
    if (p)
        return p;
    if (grovep_grow((void **)&R->props, &R->propcap, R->nprops + 1, sizeof(*R->props)) < 0)
        return NULL;
    p = &R->props[R->nprops];
    p->name = xstrdup(name);
    p->ranks = grove_idset_create();
    if (!p->name || !p->ranks) {
        free(p->name);
        return GROVEP_NULL_AFTER(grove_idset_destroy, p->ranks, ENOMEM);
    }
    R->nprops++;
    return p;
}

/* Add the ranks keep (taken; NULL: ENOMEM) to property name of R, unless
 * keep is empty.  0 or -1 with ENOMEM. */
static int prop_add_take(grove_rv1_t *R, const char *name, grove_idset_t *keep)
{
    if (!keep)
        return -1;
    int rc = 0;
    if (!grove_idset_empty(keep)) {
        struct rv1_prop *p = grovep_rv1_prop_get(R, name);
        rc = p ? grove_idset_add(p->ranks, keep) : -1;
    }
    grove_idset_destroy(keep);
    return rc;
}

/* Give R the properties of src restricted to the ranks that are (in) or
 * are not (!in) in ranks.  0 or -1 with ENOMEM. */
static int copy_props(grove_rv1_t *R, const grove_rv1_t *src, const grove_idset_t *ranks,
                      bool in)
{
    for (size_t k = 0; k < src->nprops; k++) {
        const grove_idset_t *pr = src->props[k].ranks;
        grove_idset_t *keep = in ? grove_idset_intersect(pr, ranks)
                                 : grove_idset_difference(pr, ranks);
        if (prop_add_take(R, src->props[k].name, keep) < 0)
            return -1;
    }
    return 0;
}

/* Copy everything but the ranks, properties and kept keys. */
static grove_rv1_t *new_like(const grove_rv1_t *src)
{
    grove_rv1_t *R = grove_rv1_create();
    if (!R)
        return NULL;
    R->start = src->start;
    R->expiration = src->expiration;
    R->has_start = src->has_start;
    R->has_expiration = src->has_expiration;
    R->start_real = src->start_real;
    R->exp_real = src->exp_real;
    return R;
}

/* Copy rank entry s of src into R (appended: ranks must come in order),
 * mapping type indexes by name. */
static int copy_rank(grove_rv1_t *R, const grove_rv1_t *src, const struct rv1_rank *s)
{
    struct rv1_rank *d = grovep_rv1_rank_append(R, s->rank);
    if (!d)
        return -1;
    if (s->host && !(d->host = xstrdup(s->host)))
        return -1;
    for (uint32_t i = 0; i < s->nkids; i++) {
        long t = grovep_rv1_type_index(R, src->types[s->kids[i].type]);
        if (t < 0 || kid_add(d, (uint32_t)t, s->kids[i].ids) < 0)
            return -1;
    }
    return 0;
}

/* A copy of R's scheduling text (NUL-terminated), or NULL (ENOMEM). */
static char *sched_text_copy(const grove_rv1_t *R)
{
    char *t = malloc(R->sched_len + 1);
    if (t)
        memcpy(t, R->sched_text, R->sched_len + 1);
    return t;
}

grove_rv1_t *grove_rv1_copy(const grove_rv1_t *R)
{
    if (!R) {
        errno = EINVAL;
        return NULL;
    }
    grove_rv1_t *C = new_like(R);
    if (!C)
        return NULL;
    C->nslots = R->nslots;
    C->has_execution = R->has_execution;
    C->has_nodelist = R->has_nodelist;
    for (size_t i = 0; i < R->ntypes; i++)
        if (grovep_rv1_type_index(C, R->types[i]) < 0)
            goto fail;
    for (size_t i = 0; i < R->n; i++)
        if (copy_rank(C, R, &R->r[i]) < 0)
            goto fail;
    for (size_t i = 0; i < R->nprops; i++) {
        struct rv1_prop *p = grovep_rv1_prop_get(C, R->props[i].name);
        if (!p || grove_idset_add(p->ranks, R->props[i].ranks) < 0)
            goto fail;
    }
    if ((R->nodelist_as_read && !(C->nodelist_as_read = json_deep_copy(R->nodelist_as_read)))
        || (R->scheduling && !(C->scheduling = json_deep_copy(R->scheduling)))
        || (R->sched_text && !(C->sched_text = sched_text_copy(R)))
        || (R->extra && !(C->extra = json_deep_copy(R->extra)))
        || (R->exec_extra && !(C->exec_extra = json_deep_copy(R->exec_extra)))) {
        errno = ENOMEM;
        goto fail;
    }
    C->sched_len = R->sched_len;
    return C;
fail:
    grove_rv1_destroy(C);
    return NULL;
}

/* ---- reading ------------------------------------------------------------ */

struct pctx {
    const char *source;
    grove_error_t *err;
};

static int pfail(struct pctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pfail(struct pctx *x, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, x->err, EINVAL, x->source, 0, NULL, sizeof(x->err->text));
}

static int pnomem(void)
{
    errno = ENOMEM;
    return -1;
}

/* R's messages say "a real" where other readers say "a real number". */
static const char *jtype(const json_t *v)
{
    return json_is_real(v) ? "a real" : grovep_json_type_name(v);
}

/* Decode an idset string at v (path for messages). */
static grove_idset_t *pidset(struct pctx *x, const json_t *v, const char *path)
{
    if (!json_is_string(v)) {
        pfail(x, "%s: expected an idset string, got %s", path, jtype(v));
        return NULL;
    }
    grove_error_t e = {{0}, 0};
    grove_idset_t *s = grove_idset_decode_len(json_string_value(v), json_string_length(v), &e);
    if (!s && errno == EINVAL)
        pfail(x, "%s: %s", path, e.text);
    return s;
}

static int cmp_rank_entry(const void *a, const void *b)
{
    const struct rv1_rank *x = a, *y = b;
    return GROVEP_CMP(x->rank, y->rank);
}

/* Ranks were appended out of order: sort (stable enough: equal ranks are
 * merged, and merging is commutative) and merge duplicates. */
static int sort_merge_ranks(grove_rv1_t *R, struct pctx *x)
{
    qsort(R->r, R->n, sizeof(*R->r), cmp_rank_entry);
    size_t k = 0, i;
    int rc = 0;
    for (i = 0; i < R->n && rc == 0; i++) {
        if (k > 0 && R->r[k - 1].rank == R->r[i].rank) {
            struct rv1_rank *d = &R->r[k - 1], *s = &R->r[i];
            for (uint32_t j = 0; j < s->nkids && rc == 0; j++) {
                const struct rv1_kid *dk = grovep_rv1_kid_find(d, s->kids[j].type);
                if (dk) {
                    grove_idset_t *both = grove_idset_intersect(dk->ids, s->kids[j].ids);
                    unsigned id = both ? grove_idset_first(both) : GROVE_IDSET_INVALID;
                    grove_idset_destroy(both);
                    if (!both)
                        rc = -1;
                    else if (id != GROVE_IDSET_INVALID)
                        rc = pfail(x, "execution.R_lite: rank %u lists %s %u twice", s->rank,
                                   R->types[s->kids[j].type], id);
                }
                if (rc == 0 && kid_add(d, s->kids[j].type, s->kids[j].ids) < 0)
                    rc = -1;
            }
            rank_fini(s);
        } else {
            R->r[k++] = R->r[i];
        }
    }
    /* on a failure the ranks not reached yet stay, once each, for the
     * caller's destroy (a merged rank is gone, a moved one is counted once) */
    for (; i < R->n; i++)
        R->r[k++] = R->r[i];
    R->n = k;
    return rc;
}

static int parse_rlite_list(grove_rv1_t *R, struct pctx *x, const json_t *rl);

/* R_lite is a list of entries; a single entry written as an object (RFC 28
 * prints one so) has one meaning and is read as a list of it. */
static int parse_rlite(grove_rv1_t *R, struct pctx *x, const json_t *rl)
{
    if (!json_is_object(rl) || !json_object_get(rl, "rank"))
        return parse_rlite_list(R, x, rl);
    json_t *one = json_array();
    if (!one || json_array_append(one, (json_t *)(uintptr_t)rl) < 0) {
        json_decref(one);
        errno = ENOMEM;
        return -1;
    }
    int rc = parse_rlite_list(R, x, one);
    json_decref(one);
    return rc;
}

static int parse_rlite_list(grove_rv1_t *R, struct pctx *x, const json_t *rl)
{
    if (!json_is_array(rl))
        return pfail(x, "execution.R_lite: expected an array, got %s", jtype(rl));
    bool sorted = true;
    char path[96];
    size_t i;
    const json_t *e;
    grove_limits_t lim;
    grove_limits_get(&lim);
    uint64_t named = 0; /* resources the entries so far name, saturating */
    json_array_foreach(rl, i, e) {
        if (!json_is_object(e))
            return pfail(x, "execution.R_lite[%zu]: expected an object, got %s", i, jtype(e));
        const json_t *jr = json_object_get(e, "rank");
        const json_t *jc = json_object_get(e, "children");
        if (!jr)
            return pfail(x, "execution.R_lite[%zu]: missing \"rank\"", i);
        if (!jc)
            return pfail(x, "execution.R_lite[%zu]: missing \"children\"", i);
        if (!json_is_object(jc))
            return pfail(x, "execution.R_lite[%zu].children: expected an object, got %s", i,
                         jtype(jc));
        snprintf(path, sizeof(path), "execution.R_lite[%zu].rank", i);
        grove_idset_t *ranks = pidset(x, jr, path);
        if (!ranks)
            return -1;
        if (grove_idset_empty(ranks)) {
            grove_idset_destroy(ranks);
            return pfail(x, "%s: no rank", path);
        }
        /* children of this entry, as (type, idset) */
        size_t nk = json_object_size(jc), k = 0;
        struct rv1_kid *kids = calloc(nk ? nk : 1, sizeof(*kids));
        if (!kids) {
            grove_idset_destroy(ranks);
            return pnomem();
        }
        const char *key;
        const json_t *v;
        int rc = 0;
        json_object_foreach((json_t *)(uintptr_t)jc, key, v) {
            if (key[0] == '\0') {
                rc = pfail(x, "execution.R_lite[%zu].children: empty type name", i);
                break;
            }
            snprintf(path, sizeof(path), "execution.R_lite[%zu].children.%s", i, key);
            long t = grovep_rv1_type_index(R, key);
            grove_idset_t *ids = t < 0 ? NULL : pidset(x, v, path);
            if (!ids) {
                rc = -1;
                break;
            }
            if (grove_idset_empty(ids)) {
                grove_idset_destroy(ids);
                continue;
            }
            kids[k++] = (struct rv1_kid){(uint32_t)t, ids};
        }
        uint64_t each = 1;
        for (size_t j = 0; j < k; j++)
            each += grove_idset_count(kids[j].ids);
        uint64_t nr = grove_idset_count(ranks);
        named = each > (UINT64_MAX - named) / nr ? UINT64_MAX : named + each * nr;
        if (named > lim.members && R->rlite_over == SIZE_MAX)
            R->rlite_over = i;
        for (unsigned r = grove_idset_first(ranks); rc == 0 && r != GROVE_IDSET_INVALID;
             r = grove_idset_next(ranks, r)) {
            if (R->n > 0 && R->r[R->n - 1].rank >= r)
                sorted = false;
            struct rv1_rank *rk = grovep_rv1_rank_append(R, r);
            for (size_t j = 0; rk && j < k; j++)
                if (kid_add(rk, kids[j].type, kids[j].ids) < 0)
                    rk = NULL;
            if (!rk)
                rc = -1;
        }
        for (size_t j = 0; j < k; j++)
            grove_idset_destroy(kids[j].ids);
        free(kids);
        grove_idset_destroy(ranks);
        if (rc < 0)
            return -1;
    }
    return sorted ? 0 : sort_merge_ranks(R, x);
}

static int parse_nodelist(grove_rv1_t *R, struct pctx *x, const json_t *nl)
{
    if (!json_is_array(nl))
        return pfail(x, "execution.nodelist: expected an array, got %s", jtype(nl));
    grove_hostlist_t *h = grove_hostlist_create();
    if (!h)
        return -1;
    size_t i;
    const json_t *e;
    json_array_foreach(nl, i, e) {
        if (!json_is_string(e)) {
            grove_hostlist_destroy(h);
            return pfail(x, "execution.nodelist[%zu]: expected a string, got %s", i, jtype(e));
        }
        grove_error_t he = {{0}, 0};
        grove_hostlist_t *one = grove_hostlist_decode_len(json_string_value(e),
                                                          json_string_length(e), &he);
        if (!one || grove_hostlist_append_list(h, one) < 0) {
            int saved = errno;
            grove_hostlist_destroy(one);
            grove_hostlist_destroy(h);
            if (saved == ENOMEM)
                return pnomem();
            return pfail(x, "execution.nodelist[%zu]: %s", i,
                         he.text[0] ? he.text : strerror(saved));
        }
        grove_hostlist_destroy(one);
    }
    if (grove_hostlist_count(h) != R->n) {
        size_t c = grove_hostlist_count(h);
        grove_hostlist_destroy(h);
        return pfail(x, "execution.nodelist: %zu host%s for %zu rank%s", c, c == 1 ? "" : "s",
                     R->n, R->n == 1 ? "" : "s");
    }
    grove_hostlist_iter_t it = GROVE_HOSTLIST_ITER_INIT;
    int rc = 0;
    for (size_t k = 0; k < R->n; k++) {
        const char *host = grove_hostlist_iter_next(h, &it);
        if (!host || !(R->r[k].host = xstrdup(host))) {
            rc = pnomem();
            break;
        }
    }
    grove_hostlist_iter_fini(&it);
    grove_hostlist_destroy(h);
    return rc;
}

static int parse_properties(grove_rv1_t *R, struct pctx *x, const json_t *pr)
{
    if (!json_is_object(pr))
        return pfail(x, "execution.properties: expected an object, got %s", jtype(pr));
    const char *key;
    const json_t *v;
    char path[320];
    json_object_foreach((json_t *)(uintptr_t)pr, key, v) {
        if (key[0] == '\0')
            return pfail(x, "execution.properties: empty property name");
        size_t bad = strcspn(key, bad_prop_chars);
        if (key[bad] != '\0')
            return pfail(x, "execution.properties: invalid character '%c' in property name \"%.200s\"",
                         key[bad], key);
        snprintf(path, sizeof(path), "execution.properties.%.200s", key);
        grove_idset_t *ranks = pidset(x, v, path);
        if (!ranks)
            return -1;
        for (unsigned r = grove_idset_first(ranks); r != GROVE_IDSET_INVALID;
             r = grove_idset_next(ranks, r)) {
            if (!grovep_rv1_rank_find(R, r)) {
                grove_idset_destroy(ranks);
                return pfail(x, "%s: rank %u is not in R_lite", path, r);
            }
        }
        struct rv1_prop *p = grovep_rv1_prop_get(R, key);
        int rc = p ? grove_idset_add(p->ranks, ranks) : -1;
        grove_idset_destroy(ranks);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int parse_time(struct pctx *x, const json_t *v, const char *key, double *out, bool *real)
{
    if (!json_is_number(v))
        return pfail(x, "execution.%s: expected a number, got %s", key, jtype(v));
    double t = json_number_value(v);
    if (!isfinite(t) || t < 0)
        return pfail(x, "execution.%s: must be >= 0 (got %g)", key, t);
    if (t > GROVE_TIME_REAL_MAX)
        return pfail(x, "execution.%s: is too large (%g > 2^53 seconds)", key, t);
    *out = t;
    *real = json_is_real(v);
    return 0;
}

static bool is_exec_key(const char *k)
{
    static const char *const keys[] = {"R_lite", "nodelist", "properties", "starttime",
                                       "expiration", "nslots", NULL};
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}

/* Keep value v under key in *obj (created on demand). */
static int keep(json_t **obj, const char *key, const json_t *v, bool copy)
{
    if (!*obj && !(*obj = json_object()))
        return pnomem();
    json_t *c = copy ? json_deep_copy(v) : json_incref((json_t *)(uintptr_t)v);
    if (!c || json_object_set_new(*obj, key, c) < 0)
        return pnomem();
    return 0;
}

static int parse_execution(grove_rv1_t *R, struct pctx *x, const json_t *ex, bool copy)
{
    if (!json_is_object(ex))
        return pfail(x, "execution: expected an object, got %s", jtype(ex));
    const json_t *rl = json_object_get(ex, "R_lite");
    if (!rl)
        return pfail(x, "execution: missing \"R_lite\"");
    if (parse_rlite(R, x, rl) < 0)
        return -1;
    const json_t *v;
    if ((v = json_object_get(ex, "nodelist"))) {
        if (parse_nodelist(R, x, v) < 0)
            return -1;
        if (!(R->nodelist_as_read = copy ? json_deep_copy(v) : json_incref((json_t *)(uintptr_t)v)))
            return pnomem();
    } else {
        R->has_nodelist = false;
    }
    if ((v = json_object_get(ex, "properties")) && parse_properties(R, x, v) < 0)
        return -1;
    if ((v = json_object_get(ex, "starttime"))) {
        if (parse_time(x, v, "starttime", &R->start, &R->start_real) < 0)
            return -1;
        R->has_start = true;
    }
    if ((v = json_object_get(ex, "expiration"))) {
        if (parse_time(x, v, "expiration", &R->expiration, &R->exp_real) < 0)
            return -1;
        R->has_expiration = true;
    }
    if (R->start > 0 && R->expiration > 0 && R->expiration <= R->start)
        return pfail(x, "execution.expiration: %.17g is not after starttime %.17g", R->expiration,
                     R->start);
    if ((v = json_object_get(ex, "nslots"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return pfail(x, "execution.nslots: expected an integer >= 0, got %s",
                         json_is_integer(v) ? "a negative integer" : jtype(v));
        R->nslots = json_integer_value(v);
    }
    const char *key;
    json_object_foreach((json_t *)(uintptr_t)ex, key, v) {
        if (!is_exec_key(key) && keep(&R->exec_extra, key, v, copy) < 0)
            return -1;
    }
    return 0;
}

static grove_rv1_t *parse_doc(const json_t *doc, const char *source, grove_error_t *err,
                              bool copy)
{
    struct pctx x = {source, err};
    if (!doc || !json_is_object(doc)) {
        pfail(&x, "top level: expected an object, got %s", doc ? jtype(doc) : "nothing");
        return NULL;
    }
    const json_t *ver = json_object_get(doc, "version");
    if (!ver) {
        pfail(&x, "version: missing (an R version 1 document has \"version\": 1)");
        return NULL;
    }
    if (!json_is_integer(ver) || json_integer_value(ver) != 1) {
        if (json_is_integer(ver))
            pfail(&x, "version: only version 1 is supported (got %lld)",
                  (long long)json_integer_value(ver));
        else
            pfail(&x, "version: expected the integer 1, got %s", jtype(ver));
        return NULL;
    }
    const json_t *ex = json_object_get(doc, "execution");
    const json_t *sc = json_object_get(doc, "scheduling");
    const json_t *at = json_object_get(doc, "attributes");
    if (!ex && !sc) {
        pfail(&x, "top level: needs \"execution\" or \"scheduling\" (or both)");
        return NULL;
    }
    if (sc && !json_is_object(sc)) {
        pfail(&x, "scheduling: expected an object, got %s", jtype(sc));
        return NULL;
    }
    if (at && !json_is_object(at)) {
        pfail(&x, "attributes: expected an object, got %s", jtype(at));
        return NULL;
    }
    grove_rv1_t *R = grove_rv1_create();
    if (!R)
        return NULL;
    if (ex) {
        if (parse_execution(R, &x, ex, copy) < 0)
            goto fail;
    } else {
        R->has_execution = false;
        R->has_nodelist = false;
    }
    if (sc && !(R->scheduling = copy ? json_deep_copy(sc) : json_incref((json_t *)(uintptr_t)sc))) {
        errno = ENOMEM;
        goto fail;
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)(uintptr_t)doc, key, v) {
        if (strcmp(key, "version") && strcmp(key, "execution") && strcmp(key, "scheduling")
            && keep(&R->extra, key, v, copy) < 0)
            goto fail;
    }
    return R;
fail:
    grove_rv1_destroy(R);
    return NULL;
}

grove_rv1_t *grove_rv1_from_json(const json_t *doc, const char *source, grove_error_t *err)
{
    return parse_doc(doc, source, err, true);
}

grove_rv1_t *grove_rv1_decode(const char *text, size_t len, const char *source,
                              grove_error_t *err)
{
    if (!text) {
        grovep_error_fail(err, EINVAL, source, 0, "no document");
        return NULL;
    }
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        grove_error_set(err, source, je.line > 0 ? je.line : 0, "%s", je.text);
        errno = grovep_json_load_errno(&je);
        return NULL;
    }
    grove_rv1_t *R = parse_doc(doc, source, err, false);
    int saved = errno;
    json_decref(doc);
    if (!R)
        grovep_json_place_line(err, source, text, len);
    errno = saved;
    return R;
}

GROVEP_TEXT_READER(read_text, grove_rv1_decode)

grove_rv1_t *grove_rv1_load(const char *path, grove_error_t *err)
{
    return grovep_load_file(path, NULL, read_text, NULL, err);
}

/* ---- writing ------------------------------------------------------------- */

static int cmp_kids(const struct rv1_rank *a, const struct rv1_rank *b)
{
    int c = GROVEP_CMP(a->nkids, b->nkids);
    for (uint32_t i = 0; !c && i < a->nkids; i++)
        if (!(c = GROVEP_CMP(a->kids[i].type, b->kids[i].type)))
            c = idset_cmp(a->kids[i].ids, b->kids[i].ids);
    return c;
}

/* A run of R's entries (in rank order) with the same children. */
struct run {
    const struct rv1_rank *head;
    size_t len;
};

static int cmp_run_kids(const void *pa, const void *pb)
{
    const struct run *a = pa, *b = pb;
    int c = cmp_kids(a->head, b->head);
    return c ? c : GROVEP_CMP(a->head->rank, b->head->rank);
}

struct group {
    const struct rv1_rank *first; /* lowest rank of the group (its children) */
    grove_idset_t *ranks;
};

static int cmp_group(const void *pa, const void *pb)
{
    const struct group *a = pa, *b = pb;
    return GROVEP_CMP(a->first->rank, b->first->rank);
}

/* The children object of one rank, its types in the canonical order
 * (grovep_rv1_canonical_types). */
static json_t *kids_json(const grove_rv1_t *R, const struct rv1_rank *rk, const uint32_t *order)
{
    json_t *o = json_object();
    for (size_t t = 0; o && t < R->ntypes; t++) {
        const struct rv1_kid *k = grovep_rv1_kid_find(rk, order[t]);
        if (k && json_object_set_new(o, R->types[k->type], grovep_json_idset(k->ids)) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* R's ranks in groups of ranks with the same children, ordered by their
 * lowest rank (R_lite's entries), in a new array (caller frees it with
 * free_groups), their number in *ng; NULL with ENOMEM.  Neighbouring
 * ranks mostly have the same children (a whole machine's R is often one
 * run): the runs of them are sorted by their children, not the ranks
 * one by one (16,384 ranks of one kind took 6 ms to sort). */
static struct group *rank_groups(const grove_rv1_t *R, size_t *ng)
{
    struct run *runs = malloc((R->n ? R->n : 1) * sizeof(*runs));
    struct group *gs = NULL;
    size_t nr = 0, n = 0;
    if (!runs)
        goto fail;
    for (size_t i = 0; i < R->n; i++) {
        if (nr > 0 && cmp_kids(runs[nr - 1].head, &R->r[i]) == 0)
            runs[nr - 1].len++;
        else
            runs[nr++] = (struct run){&R->r[i], 1};
    }
    if (!(gs = malloc((nr ? nr : 1) * sizeof(*gs))))
        goto fail;
    qsort(runs, nr, sizeof(*runs), cmp_run_kids);
    for (size_t i = 0; i < nr; i++) {
        if (n == 0 || cmp_kids(gs[n - 1].first, runs[i].head) != 0) {
            gs[n].first = runs[i].head;
            if (!(gs[n].ranks = grove_idset_create()))
                goto fail;
            n++;
        }
        /* a group's runs come in rank order: each rank is appended */
        for (size_t k = 0; k < runs[i].len; k++)
            if (grove_idset_set(gs[n - 1].ranks, runs[i].head[k].rank) < 0)
                goto fail;
    }
    qsort(gs, n, sizeof(*gs), cmp_group);
    free(runs);
    *ng = n;
    return gs;
fail:
    for (size_t i = 0; i < n; i++)
        grove_idset_destroy(gs[i].ranks);
    free(gs);
    return GROVEP_NULL_AFTER(free, runs, ENOMEM);
}

static void free_groups(struct group *gs, size_t ng)
{
    for (size_t i = 0; gs && i < ng; i++)
        grove_idset_destroy(gs[i].ranks);
    free(gs);
}

static json_t *rlite_json(const grove_rv1_t *R)
{
    json_t *arr = json_array();
    size_t ng = 0;
    struct group *gs = rank_groups(R, &ng);
    uint32_t *order = grovep_rv1_canonical_types(R);
    if (!arr || !gs || !order)
        goto fail;
    for (size_t i = 0; i < ng; i++) {
        json_t *e = json_object();
        if (!e || json_array_append_new(arr, e) < 0
            || json_object_set_new(e, "rank", grovep_json_idset(gs[i].ranks)) < 0
            || json_object_set_new(e, "children", kids_json(R, gs[i].first, order)) < 0)
            goto fail;
    }
    goto out;
fail:
    json_decref(arr);
    arr = NULL;
    errno = ENOMEM;
out:
    free_groups(gs, ng);
    free(order);
    return arr;
}

static bool all_hosts(const grove_rv1_t *R)
{
    for (size_t i = 0; i < R->n; i++)
        if (!R->r[i].host)
            return false;
    return true;
}

grove_hostlist_t *grove_rv1_nodelist(const grove_rv1_t *R)
{
    if (!all_hosts(R)) {
        errno = ENOENT;
        return NULL;
    }
    grove_hostlist_t *h = grove_hostlist_create();
    if (!h)
        return NULL;
    for (size_t i = 0; i < R->n; i++) {
        if (grove_hostlist_append(h, R->r[i].host) != 1)
            return GROVEP_NULL_AFTER(grove_hostlist_destroy, h, ENOMEM);
    }
    return h;
}

static json_t *nodelist_json(const grove_rv1_t *R)
{
    if (R->nodelist_as_read)
        return json_deep_copy(R->nodelist_as_read);
    json_t *arr = json_array();
    if (!arr || R->n == 0)
        return arr;
    grove_hostlist_t *h = grove_rv1_nodelist(R);
    char *s = h ? grove_hostlist_encode(h) : NULL;
    grove_hostlist_destroy(h);
    if (!s || json_array_append_new(arr, json_string(s)) < 0) {
        free(s);
        json_decref(arr);
        return NULL;
    }
    free(s);
    return arr;
}

static json_t *time_json(double t, bool real)
{
    if (!real && t == floor(t) && fabs(t) < 9007199254740992.0)
        return json_integer((json_int_t)t);
    return json_real(t);
}

static int put(json_t *o, const char *key, json_t *v)
{
    if (!v || json_object_set_new(o, key, v) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Append every key of src (a copy of its value) to dst. */
static int put_all(json_t *dst, const json_t *src)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)src, key, v) {
        if (put(dst, key, json_deep_copy(v)) < 0)
            return -1;
    }
    return 0;
}

json_t *grovep_rv1_to_json(const grove_rv1_t *R, int flags, grovep_rv1_scheduling_f scheduling)
{
    if (!R) {
        errno = EINVAL;
        return NULL;
    }
    json_t *doc = json_object();
    if (!doc || put(doc, "version", json_integer(1)) < 0)
        goto fail;
    if (R->has_execution) {
        json_t *ex = json_object();
        if (put(doc, "execution", ex) < 0 || put(ex, "R_lite", rlite_json(R)) < 0)
            goto fail;
        if ((R->n > 0 ? all_hosts(R) : R->has_nodelist) && put(ex, "nodelist", nodelist_json(R)) < 0)
            goto fail;
        if (R->nprops > 0) {
            json_t *pr = json_object();
            if (put(ex, "properties", pr) < 0)
                goto fail;
            for (size_t i = 0; i < R->nprops; i++)
                if (put(pr, R->props[i].name, grovep_json_idset(R->props[i].ranks)) < 0)
                    goto fail;
        }
        if (R->has_start && put(ex, "starttime", time_json(R->start, R->start_real)) < 0)
            goto fail;
        if (R->has_expiration
            && put(ex, "expiration", time_json(R->expiration, R->exp_real)) < 0)
            goto fail;
        if (R->nslots >= 0 && put(ex, "nslots", json_integer(R->nslots)) < 0)
            goto fail;
        if (R->exec_extra && put_all(ex, R->exec_extra) < 0)
            goto fail;
    }
    if (!(flags & GROVE_RV1_NO_SCHEDULING)) {
        if (R->scheduling || R->sched_text) {
            json_t *sc = grovep_rv1_sched(R);
            if (!sc || put(doc, "scheduling", json_deep_copy(sc)) < 0)
                goto fail;
        } else if (flags & GROVE_RV1_WITH_GRAPH) {
            if (put(doc, "scheduling", scheduling(R)) < 0)
                goto fail;
        }
    }
    if (R->extra && put_all(doc, R->extra) < 0)
        goto fail;
    return doc;
fail:
    return GROVEP_NULL_AFTER(json_decref, doc, ENOMEM);
}

/* ---- compact text without a tree ---------------------------------------------- */

/* Is s written by json_dumps as itself between quotes (printable ASCII,
 * no quote or backslash)? */
static bool plain(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
            return false;
    }
    return true;
}

/* A literal into b. */
#define PUTL(b, lit) grovep_buf_put(b, lit, sizeof(lit) - 1)

/* "s" (a plain string) into b. */
static void put_str(grovep_buf_t *b, const char *s)
{
    grovep_buf_put(b, "\"", 1);
    grovep_buf_put(b, s, strlen(s));
    grovep_buf_put(b, "\"", 1);
}

/* An idset's text between quotes; 0 or -1 with ENOMEM. */
static int put_idset(grovep_buf_t *b, const grove_idset_t *ids)
{
    char *t = grove_idset_encode(ids, GROVE_IDSET_FLAG_RANGE);
    if (!t) {
        b->failed = true;
        return -1;
    }
    put_str(b, t);
    free(t);
    return 0;
}

/* An idset's text, unquoted, in brackets when it has two ids or more
 * (librlist's form: "0", "[0-3,7]"); 0 or -1 with ENOMEM. */
static int put_ids(grovep_buf_t *b, const grove_idset_t *ids)
{
    char *t = grove_idset_encode(ids, GROVE_IDSET_FLAG_RANGE | GROVE_IDSET_FLAG_BRACKETS);
    if (!t) {
        b->failed = true;
        return -1;
    }
    grovep_buf_put(b, t, strlen(t));
    free(t);
    return 0;
}

/* The children of rank r (its group's first rank), their types in the
 * order given, comma-separated: as R_lite's "TYPE":"IDS" members (json)
 * or as the summary's TYPE[IDS] (librlist's form). */
static void put_children(grovep_buf_t *b, const grove_rv1_t *R, const struct rv1_rank *r,
                         const uint32_t *order, bool json)
{
    bool first = true;
    for (size_t t = 0; t < R->ntypes; t++) {
        const struct rv1_kid *k = grovep_rv1_kid_find(r, order[t]);
        if (!k)
            continue;
        if (!first)
            PUTL(b, ",");
        first = false;
        const char *type = R->types[k->type];
        if (json) {
            put_str(b, type);
            PUTL(b, ":");
            put_idset(b, k->ids);
        } else {
            grovep_buf_put(b, type, strlen(type));
            put_ids(b, k->ids);
        }
    }
}

static void put_int(grovep_buf_t *b, long long v)
{
    char t[24];
    int n = snprintf(t, sizeof(t), "%lld", v);
    grovep_buf_put(b, t, (size_t)n);
}

/* A time json_dumps writes as an integer (see time_json). */
static bool int_time(double t, bool real)
{
    return !real && t == floor(t) && fabs(t) < 9007199254740992.0;
}

/* R as compact JSON written straight into b: the bytes json_dumps makes of
 * grovep_rv1_to_json's tree (jansson keeps keys in insertion order), for
 * the R an engine writes per job (R_lite, nodelist, properties, times).
 * 1 when written, 0 when R holds what only the tree writes (parts kept as
 * read, other keys, a scheduling key, a real time, a name json_dumps would
 * escape), -1 with ENOMEM. */
static int encode_direct(const grove_rv1_t *R, int flags, grovep_buf_t *b)
{
    if ((flags & GROVE_RV1_PRETTY) || !R->has_execution || R->extra || R->exec_extra
        || R->nodelist_as_read
        || (!(flags & GROVE_RV1_NO_SCHEDULING)
            && (R->scheduling || R->sched_text || (flags & GROVE_RV1_WITH_GRAPH)))
        || (R->has_start && !int_time(R->start, R->start_real))
        || (R->has_expiration && !int_time(R->expiration, R->exp_real)))
        return 0;
    for (size_t i = 0; i < R->ntypes; i++)
        if (!plain(R->types[i]))
            return 0;
    for (size_t i = 0; i < R->nprops; i++)
        if (!plain(R->props[i].name))
            return 0;
    char *hosts = NULL;
    bool nodelist = R->n > 0 ? all_hosts(R) : R->has_nodelist;
    if (nodelist && R->n > 0) {
        grove_hostlist_t *h = grove_rv1_nodelist(R);
        hosts = h ? grove_hostlist_encode(h) : NULL;
        grove_hostlist_destroy(h);
        if (!hosts)
            return -1;
        if (!plain(hosts)) {
            free(hosts);
            return 0;
        }
    }
    size_t ng = 0;
    struct group *gs = rank_groups(R, &ng);
    uint32_t *order = grovep_rv1_canonical_types(R);
    if (!gs || !order) {
        free_groups(gs, ng);
        free(order);
        free(hosts);
        return -1;
    }
    PUTL(b, "{\"version\":1,\"execution\":{\"R_lite\":[");
    for (size_t i = 0; i < ng; i++) {
        if (i)
            PUTL(b, ",");
        PUTL(b, "{\"rank\":");
        put_idset(b, gs[i].ranks);
        PUTL(b, ",\"children\":{");
        put_children(b, R, gs[i].first, order, true);
        PUTL(b, "}}");
    }
    PUTL(b, "]");
    free_groups(gs, ng);
    free(order);
    if (nodelist) {
        PUTL(b, ",\"nodelist\":[");
        if (hosts)
            put_str(b, hosts);
        PUTL(b, "]");
    }
    free(hosts);
    if (R->nprops > 0) {
        PUTL(b, ",\"properties\":{");
        for (size_t i = 0; i < R->nprops; i++) {
            if (i)
                PUTL(b, ",");
            put_str(b, R->props[i].name);
            PUTL(b, ":");
            put_idset(b, R->props[i].ranks);
        }
        PUTL(b, "}");
    }
    if (R->has_start) {
        PUTL(b, ",\"starttime\":");
        put_int(b, (long long)R->start);
    }
    if (R->has_expiration) {
        PUTL(b, ",\"expiration\":");
        put_int(b, (long long)R->expiration);
    }
    if (R->nslots >= 0) {
        PUTL(b, ",\"nslots\":");
        put_int(b, (long long)R->nslots);
    }
    PUTL(b, "}}");
    return b->failed ? -1 : 1;
}

char *grove_rv1_summary(const grove_rv1_t *R)
{
    if (!R) {
        errno = EINVAL;
        return NULL;
    }
    size_t ng = 0;
    struct group *gs = rank_groups(R, &ng);
    uint32_t *byname = types_by(R, strcmp);
    if (!gs || !byname) {
        free_groups(gs, ng);
        return GROVEP_NULL_AFTER(free, byname, ENOMEM);
    }
    grovep_buf_t b = {0};
    for (size_t i = 0; i < ng; i++) {
        if (i)
            PUTL(&b, " ");
        PUTL(&b, "rank");
        put_ids(&b, gs[i].ranks);
        PUTL(&b, "/");
        put_children(&b, R, gs[i].first, byname, false);
    }
    free_groups(gs, ng);
    free(byname);
    return grovep_buf_finish(&b);
}

/* s (compact JSON of an object, malloc'd) with R's scheduling text as its
 * last key, "scheduling", where json_dumps puts it when R holds no other
 * keys after it (R->extra); s is freed.  NULL with ENOMEM. */
static char *with_sched_text(char *s, const grove_rv1_t *R)
{
    static const char key[] = ",\"scheduling\":";
    size_t n = s ? strlen(s) : 0, k = sizeof(key) - 1;
    char *t = n > 1 ? realloc(s, n + k + R->sched_len + 1) : NULL;
    if (!t)
        return GROVEP_NULL_AFTER(free, s, ENOMEM);
    /* {...} -> {...,"scheduling":TEXT} */
    memcpy(t + n - 1, key, k);
    memcpy(t + n - 1 + k, R->sched_text, R->sched_len);
    memcpy(t + n - 1 + k + R->sched_len, "}", 2);
    return t;
}

char *grovep_rv1_encode(const grove_rv1_t *R, int flags, grovep_rv1_scheduling_f scheduling)
{
    if (!R) {
        errno = EINVAL;
        return NULL;
    }
    /* a scheduling key kept as text is written as it is, after the rest
     * (compact, and no key after it) */
    bool splice = R->sched_text && !R->extra
                  && !(flags & (GROVE_RV1_NO_SCHEDULING | GROVE_RV1_PRETTY));
    if (splice)
        flags |= GROVE_RV1_NO_SCHEDULING;
    grovep_buf_t b = {0};
    int rc = encode_direct(R, flags, &b);
    if (rc != 0) {
        if (rc > 0)
            return splice ? with_sched_text(grovep_buf_finish(&b), R) : grovep_buf_finish(&b);
        return GROVEP_NULL_AFTER(free, b.p, ENOMEM);
    }
    free(b.p);
    json_t *doc = grovep_rv1_to_json(R, flags, scheduling);
    if (!doc)
        return NULL;
    size_t jf = (flags & GROVE_RV1_PRETTY ? JSON_INDENT(2) : JSON_COMPACT)
                | JSON_REAL_PRECISION(16);
    char *s = json_dumps(doc, jf);
    json_decref(doc);
    if (splice)
        return with_sched_text(s, R);
    return grovep_or_errno(s, ENOMEM);
}

/* ---- contents ------------------------------------------------------------- */

size_t grove_rv1_rank_count(const grove_rv1_t *R)
{
    return R ? R->n : 0;
}

grove_idset_t *grove_rv1_ranks(const grove_rv1_t *R)
{
    grove_idset_t *s = grove_idset_create();
    for (size_t i = 0; s && R && i < R->n; i++) {
        if (grove_idset_set(s, R->r[i].rank) < 0) {
            grove_idset_destroy(s);
            return NULL;
        }
    }
    return s;
}

bool grove_rv1_has_rank(const grove_rv1_t *R, unsigned rank)
{
    return R && grovep_rv1_rank_find(R, rank) != NULL;
}

const char *grove_rv1_hostname(const grove_rv1_t *R, unsigned rank)
{
    const struct rv1_rank *rk = R ? grovep_rv1_rank_find(R, rank) : NULL;
    if (!rk) {
        errno = ENOENT;
        return NULL;
    }
    errno = 0;
    return rk->host;
}

/* Types in canonical order: the i-th of those used by some rank. */
const char *grove_rv1_type_at(const grove_rv1_t *R, size_t i)
{
    if (!R || i >= R->ntypes)
        return NULL;
    /* small: selection by counting how many names sort before each */
    for (size_t k = 0; k < R->ntypes; k++) {
        size_t before = 0;
        for (size_t j = 0; j < R->ntypes; j++)
            if (type_order(R->types[j], R->types[k]) < 0)
                before++;
        if (before == i)
            return R->types[k];
    }
    return NULL;
}

const grove_idset_t *grove_rv1_children(const grove_rv1_t *R, unsigned rank, const char *type)
{
    const struct rv1_rank *rk = R && type ? grovep_rv1_rank_find(R, rank) : NULL;
    long t = rk ? type_lookup(R, type) : -1;
    const struct rv1_kid *k = t >= 0 ? grovep_rv1_kid_find(rk, (uint32_t)t) : NULL;
    return k ? k->ids : NULL;
}

size_t grove_rv1_count(const grove_rv1_t *R, const char *type)
{
    long t = R && type ? type_lookup(R, type) : -1;
    size_t n = 0;
    for (size_t i = 0; t >= 0 && i < R->n; i++) {
        const struct rv1_kid *k = grovep_rv1_kid_find(&R->r[i], (uint32_t)t);
        if (k)
            n += grove_idset_count(k->ids);
    }
    return n;
}

int grove_rv1_property_at(const grove_rv1_t *R, size_t i, const char **name,
                          const grove_idset_t **ranks)
{
    if (!R || i >= R->nprops) {
        errno = ENOENT;
        return -1;
    }
    if (name)
        *name = R->props[i].name;
    if (ranks)
        *ranks = R->props[i].ranks;
    return 0;
}

double grove_rv1_starttime(const grove_rv1_t *R)
{
    return R ? R->start : 0;
}

double grove_rv1_expiration(const grove_rv1_t *R)
{
    return R ? R->expiration : 0;
}

int64_t grove_rv1_nslots(const grove_rv1_t *R)
{
    return R ? R->nslots : -1;
}

json_t *grovep_rv1_sched(const grove_rv1_t *R)
{
    if (!R)
        return NULL;
    if (!R->scheduling && R->sched_text) {
        /* parsed once and kept: the tree is a cache of the text, which
         * stays what R writes (R does not change as its readers see it) */
        json_t *sc = json_loadb(R->sched_text, R->sched_len, 0, NULL);
        if (!sc) {
            errno = ENOMEM;
            return NULL;
        }
        ((grove_rv1_t *)(uintptr_t)R)->scheduling = sc;
    }
    return R->scheduling;
}

void grovep_rv1_set_sched_text(grove_rv1_t *R, char *text, size_t len)
{
    json_decref(R->scheduling);
    R->scheduling = NULL;
    free(R->sched_text);
    R->sched_text = text;
    R->sched_len = len;
}

const json_t *grove_rv1_scheduling(const grove_rv1_t *R)
{
    return grovep_rv1_sched(R);
}

/* ---- building ---------------------------------------------------------------- */

int grove_rv1_add(grove_rv1_t *R, unsigned rank, const char *type, const grove_idset_t *ids)
{
    if (!R || rank > GROVE_IDSET_MAX_ID || (type && type[0] == '\0')) {
        errno = EINVAL;
        return -1;
    }
    long t = 0;
    if (type && !grove_idset_empty(ids) && (t = grovep_rv1_type_index(R, type)) < 0)
        return -1;
    bool existed = grovep_rv1_rank_find(R, rank) != NULL;
    struct rv1_rank *rk = rank_get(R, rank);
    if (!rk)
        return -1;
    if (!existed)
        forget_nodelist(R);
    R->has_execution = true;
    if (type && !grove_idset_empty(ids) && kid_add(rk, (uint32_t)t, ids) < 0)
        return -1;
    return 0;
}

int grove_rv1_set_hostname(grove_rv1_t *R, unsigned rank, const char *host)
{
    struct rv1_rank *rk = R ? grovep_rv1_rank_find(R, rank) : NULL;
    if (!rk) {
        errno = ENOENT;
        return -1;
    }
    grove_hostname_t hn;
    if (host && grove_hostname_parse(host, &hn) < 0) {
        errno = EINVAL;
        return -1;
    }
    char *d = NULL;
    if (host && !(d = xstrdup(host)))
        return -1;
    free(rk->host);
    rk->host = d;
    forget_nodelist(R);
    return 0;
}

int grove_rv1_add_property(grove_rv1_t *R, const char *name, const grove_idset_t *ranks)
{
    if (!R || !name || !ranks || !grovep_rv1_valid_prop_name(name)) {
        errno = EINVAL;
        return -1;
    }
    for (unsigned r = grove_idset_first(ranks); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(ranks, r)) {
        if (!grovep_rv1_rank_find(R, r)) {
            errno = EINVAL;
            return -1;
        }
    }
    struct rv1_prop *p = grovep_rv1_prop_get(R, name);
    return p ? grove_idset_add(p->ranks, ranks) : -1;
}

int grove_rv1_set_times(grove_rv1_t *R, double starttime, double expiration)
{
    if (!R || !isfinite(starttime) || !isfinite(expiration) || starttime < 0 || expiration < 0
        || starttime > GROVE_TIME_REAL_MAX || expiration > GROVE_TIME_REAL_MAX
        || (starttime > 0 && expiration > 0 && expiration <= starttime)) {
        errno = EINVAL;
        return -1;
    }
    R->start = starttime;
    R->expiration = expiration;
    R->has_start = R->has_expiration = true;
    R->start_real = R->exp_real = false;
    return 0;
}

int grove_rv1_set_nslots(grove_rv1_t *R, int64_t nslots)
{
    if (!R || nslots < -1) {
        errno = EINVAL;
        return -1;
    }
    R->nslots = nslots;
    return 0;
}

int grove_rv1_set_scheduling_take(grove_rv1_t *R, json_t *sched)
{
    if (!R || (sched && !json_is_object(sched))) {
        json_decref(sched);
        errno = EINVAL;
        return -1;
    }
    json_decref(R->scheduling);
    R->scheduling = sched;
    free(R->sched_text); /* what was kept as text is replaced */
    R->sched_text = NULL;
    R->sched_len = 0;
    return 0;
}

/* ---- set algebra ----------------------------------------------------------------- */

enum setop { OP_UNION, OP_DIFF, OP_INTER };

/* The host of a rank in a result: either side's; EINVAL if they differ. */
static int merge_host(struct rv1_rank *d, const struct rv1_rank *a, const struct rv1_rank *b,
                      grove_error_t *err)
{
    const char *ha = a ? a->host : NULL, *hb = b ? b->host : NULL;
    if (ha && hb && strcmp(ha, hb) != 0) {
        grove_error_set(err, NULL, 0, "rank %u is %s in one R and %s in the other", d->rank, ha,
                        hb);
        errno = EINVAL;
        return -1;
    }
    const char *h = ha ? ha : hb;
    if (h && !(d->host = xstrdup(h)))
        return -1;
    return 0;
}

/* Result children of one rank present in a (may be NULL) and b (may be
 * NULL) under op, into d (appended to R). */
static int merge_kids(grove_rv1_t *R, struct rv1_rank *d, const grove_rv1_t *A,
                      const struct rv1_rank *a, const grove_rv1_t *B, const struct rv1_rank *b,
                      enum setop op)
{
    /* every type of a, then the types of b not in a */
    for (int side = 0; side < 2; side++) {
        const grove_rv1_t *S = side ? B : A, *O = side ? A : B;
        const struct rv1_rank *s = side ? b : a, *o = side ? a : b;
        for (uint32_t i = 0; s && i < s->nkids; i++) {
            const char *name = S->types[s->kids[i].type];
            long ot = o ? type_lookup(O, name) : -1;
            const struct rv1_kid *ok = ot >= 0 ? grovep_rv1_kid_find(o, (uint32_t)ot) : NULL;
            if (side == 1 && ok)
                continue; /* done from a's side */
            grove_idset_t *res;
            if (side == 0) {
                if (op == OP_UNION)
                    res = ok ? grove_idset_union(s->kids[i].ids, ok->ids)
                             : grove_idset_copy(s->kids[i].ids);
                else if (op == OP_DIFF)
                    res = ok ? grove_idset_difference(s->kids[i].ids, ok->ids)
                             : grove_idset_copy(s->kids[i].ids);
                else
                    res = ok ? grove_idset_intersect(s->kids[i].ids, ok->ids)
                             : grove_idset_create();
            } else {
                res = op == OP_UNION ? grove_idset_copy(s->kids[i].ids) : grove_idset_create();
            }
            if (!res)
                return -1;
            if (grove_idset_empty(res)) {
                grove_idset_destroy(res);
                continue;
            }
            long t = grovep_rv1_type_index(R, name);
            if (t < 0) {
                grove_idset_destroy(res);
                return -1;
            }
            if (grovep_rv1_kid_take(d, (uint32_t)t, res) < 0)
                return -1;
        }
    }
    return 0;
}

static grove_rv1_t *setop(const grove_rv1_t *A, const grove_rv1_t *B, enum setop op,
                          grove_error_t *err)
{
    if (!A || !B) {
        errno = EINVAL;
        return NULL;
    }
    grove_rv1_t *R = new_like(A);
    if (!R)
        return NULL;
    if (!R->has_start && B->has_start) {
        R->has_start = true;
        R->start = B->start;
        R->start_real = B->start_real;
    }
    if (!R->has_expiration && B->has_expiration) {
        R->has_expiration = true;
        R->expiration = B->expiration;
        R->exp_real = B->exp_real;
    }
    size_t i = 0, j = 0;
    while (i < A->n || j < B->n) {
        const struct rv1_rank *a = i < A->n ? &A->r[i] : NULL;
        const struct rv1_rank *b = j < B->n ? &B->r[j] : NULL;
        if (a && b && a->rank != b->rank) {
            if (a->rank < b->rank)
                b = NULL;
            else
                a = NULL;
        }
        if (a)
            i++;
        if (b)
            j++;
        if (!a && op != OP_UNION)
            continue; /* only b has it: not in a - b nor a & b */
        if (op == OP_INTER && !b)
            continue;
        struct rv1_rank *d = grovep_rv1_rank_append(R, a ? a->rank : b->rank);
        if (!d || merge_host(d, a, b, err) < 0 || merge_kids(R, d, A, a, B, b, op) < 0)
            goto fail;
        bool keep;
        if (op == OP_UNION)
            keep = true;
        else if (op == OP_DIFF)
            keep = !b || d->nkids > 0; /* a bare rank goes when b has it */
        else
            keep = d->nkids > 0 || a->nkids == 0 || b->nkids == 0; /* bare: the node */
        if (!keep) {
            rank_fini(d);
            R->n--;
        }
    }
    grove_idset_t *kept = grove_rv1_ranks(R);
    int rc = kept ? 0 : -1;
    for (int side = 0; rc == 0 && side < (op == OP_UNION ? 2 : 1); side++)
        rc = copy_props(R, side ? B : A, kept, true);
    grove_idset_destroy(kept);
    if (rc == 0)
        return R;
fail:
    grove_rv1_destroy(R);
    return NULL;
}

grove_rv1_t *grove_rv1_union(const grove_rv1_t *a, const grove_rv1_t *b, grove_error_t *err)
{
    return setop(a, b, OP_UNION, err);
}

grove_rv1_t *grove_rv1_difference(const grove_rv1_t *a, const grove_rv1_t *b,
                                  grove_error_t *err)
{
    return setop(a, b, OP_DIFF, err);
}

grove_rv1_t *grove_rv1_intersect(const grove_rv1_t *a, const grove_rv1_t *b,
                                 grove_error_t *err)
{
    return setop(a, b, OP_INTER, err);
}

static bool same_host(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_kids(const grove_rv1_t *A, const struct rv1_rank *a, const grove_rv1_t *B,
                      const struct rv1_rank *b)
{
    if (a->nkids != b->nkids)
        return false;
    for (uint32_t i = 0; i < a->nkids; i++) {
        long t = type_lookup(B, A->types[a->kids[i].type]);
        const struct rv1_kid *k = t >= 0 ? grovep_rv1_kid_find(b, (uint32_t)t) : NULL;
        if (!k || !grove_idset_equal(k->ids, a->kids[i].ids))
            return false;
    }
    return true;
}

static size_t nonempty_props(const grove_rv1_t *R)
{
    size_t n = 0;
    for (size_t i = 0; i < R->nprops; i++)
        n += !grove_idset_empty(R->props[i].ranks);
    return n;
}

bool grove_rv1_equal(const grove_rv1_t *a, const grove_rv1_t *b)
{
    if (!a || !b)
        return a == b;
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (a->r[i].rank != b->r[i].rank || !same_host(a->r[i].host, b->r[i].host)
            || !same_kids(a, &a->r[i], b, &b->r[i]))
            return false;
    }
    if (nonempty_props(a) != nonempty_props(b))
        return false;
    for (size_t i = 0; i < a->nprops; i++) {
        if (grove_idset_empty(a->props[i].ranks))
            continue;
        const struct rv1_prop *p = prop_find(b, a->props[i].name);
        if (!p || !grove_idset_equal(p->ranks, a->props[i].ranks))
            return false;
    }
    return true;
}

static grove_rv1_t *select_ranks(const grove_rv1_t *R, const grove_idset_t *ranks, bool in)
{
    if (!R || !ranks) {
        errno = EINVAL;
        return NULL;
    }
    grove_rv1_t *C = new_like(R);
    if (!C)
        return NULL;
    for (size_t i = 0; i < R->n; i++)
        if (grove_idset_test(ranks, R->r[i].rank) == in && copy_rank(C, R, &R->r[i]) < 0)
            goto fail;
    if (copy_props(C, R, ranks, in) < 0)
        goto fail;
    return C;
fail:
    grove_rv1_destroy(C);
    return NULL;
}

grove_rv1_t *grove_rv1_restrict(const grove_rv1_t *R, const grove_idset_t *ranks)
{
    return select_ranks(R, ranks, true);
}

grove_rv1_t *grove_rv1_exclude(const grove_rv1_t *R, const grove_idset_t *ranks)
{
    return select_ranks(R, ranks, false);
}

grove_idset_t *grove_rv1_hosts_to_ranks(const grove_rv1_t *R, const char *hosts,
                                        grove_error_t *err)
{
    grove_error_clear(err);
    if (!R || !hosts) {
        grovep_errorf(err, EINVAL, "hosts to ranks: no R or no hosts");
        return NULL;
    }
    grove_error_t e = {{0}, 0};
    grove_hostlist_t *hl = grove_hostlist_decode(hosts, &e);
    if (!hl) {
        grovep_errorf(err, errno == ENOMEM ? ENOMEM : EINVAL, "hosts \"%s\": %s", hosts, e.text);
        return NULL;
    }
    size_t nh = grove_hostlist_count(hl);
    uint8_t *found = calloc(nh ? nh : 1, 1);
    grove_idset_t *ids = grove_idset_create();
    grove_hostlist_t *missing = grove_hostlist_create();
    char *text = NULL;
    if (!found || !ids || !missing)
        goto oom;
    for (size_t i = 0; i < R->n; i++) {
        if (!R->r[i].host)
            continue;
        int saved = errno;
        int at = grove_hostlist_find(hl, R->r[i].host);
        errno = saved;
        if (at < 0)
            continue;
        found[at] = 1;
        if (grove_idset_set(ids, R->r[i].rank) < 0)
            goto oom;
    }
    for (size_t k = 0; k < nh; k++) {
        char *h = grove_hostlist_nth(hl, k);
        if (!h)
            goto oom;
        int at = grove_hostlist_find(hl, h); /* a host named twice: its first place */
        int rc = at >= 0 && found[at] ? 0 : grove_hostlist_append(missing, h);
        free(h);
        if (rc < 0)
            goto oom;
    }
    if (grove_hostlist_count(missing) > 0) {
        if (!(text = grove_hostlist_encode(missing)))
            goto oom;
        grovep_errorf(err, EINVAL, "invalid hosts: %s", text);
        free(text);
        grove_idset_destroy(ids);
        ids = NULL;
    }
    free(found);
    grove_hostlist_destroy(hl);
    grove_hostlist_destroy(missing);
    return grovep_or_errno(ids, EINVAL);
oom:
    free(found);
    grove_idset_destroy(ids);
    grove_hostlist_destroy(hl);
    grove_hostlist_destroy(missing);
    grovep_errorf(err, ENOMEM, "out of memory");
    return NULL;
}

/* The properties of one rank of R, for a constraint. */
struct rank_subject {
    const grove_rv1_t *R;
    unsigned rank;
};

static bool rank_has_property(const char *name, void *arg)
{
    const struct rank_subject *s = arg;
    for (size_t i = 0; i < s->R->nprops; i++)
        if (!strcmp(s->R->props[i].name, name))
            return grove_idset_test(s->R->props[i].ranks, s->rank);
    return false;
}

grove_rv1_t *grove_rv1_filter(const grove_rv1_t *R, const grove_constraint_t *c)
{
    if (!R) {
        errno = EINVAL;
        return NULL;
    }
    grove_idset_t *keep = grove_idset_create();
    if (!keep)
        return NULL;
    for (size_t i = 0; i < R->n; i++) {
        struct rank_subject rs = {R, R->r[i].rank};
        grove_constraint_subject_t subj = {
            .has_property = rank_has_property,
            .arg = &rs,
            .hostname = R->r[i].host,
            .rank = R->r[i].rank,
        };
        if (grove_constraint_match(c, &subj) == 1 && grove_idset_set(keep, R->r[i].rank) < 0)
            return GROVEP_NULL_AFTER(grove_idset_destroy, keep, ENOMEM);
    }
    grove_rv1_t *out = select_ranks(R, keep, true);
    grove_idset_destroy(keep);
    return out;
}

