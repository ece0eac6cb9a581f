/* register.c: a job placed again from its R (see register.h).
 *
 * Workload: one call per running job when a scheduler restarts, each
 * linear in the vertices its R names plus their ancestors.
 *
 * This file must not search for resources (match.c) nor read R's text
 * (rv1.c): it maps an R through rv1_graph.c, checks that what it names is
 * free, and hands the job to the matcher's table (grove_matcher_restore).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_private.h"
#include "util.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "register.h"
#include "rv1.h"

void grove_register_opts_init(grove_register_opts_t *opts)
{
    opts->start = -1;
    opts->end = 0;
    opts->request = NULL;
    opts->free = NULL;
}

/* The job's window from R, else opts; 0 or -1 (EINVAL with a message). */
static int reg_window(const grove_graph_t *g, const grove_rv1_t *R,
                      const grove_register_opts_t *o, grove_jobid_t id, int64_t *start,
                      int64_t *end, grove_error_t *err)
{
    double st = grove_rv1_starttime(R), ex = grove_rv1_expiration(R);
    *start = st > 0 ? (int64_t)floor(st) : o->start >= 0 ? o->start : g->now;
    *end = ex > 0 ? (ex >= 9.0e18 ? GROVE_TIME_MAX : (int64_t)ceil(ex))
                  : o->end > 0 ? o->end : GROVE_TIME_MAX;
    if (*end <= g->now)
        return grovep_errorf(err, EINVAL, "register: job %llu: its window ended at %lld (now %lld)",
                             (unsigned long long)id, (long long)*end, (long long)g->now);
    if (*end <= *start)
        return grovep_errorf(err, EINVAL, "register: job %llu: the window [%lld, %lld) is empty",
                             (unsigned long long)id, (long long)*start, (long long)*end);
    return 0;
}

/* The picks of the vertices R names (vs, sorted; each held whole, or amt[i]
 * units of it when amt and amt[i] > 0) and of their ancestors (shared
 * containers): a new array of *np (NULL with ENOMEM). */
static grove_pick_t *reg_picks(const grove_graph_t *g, const grove_vid_t *vs, const int64_t *amt,
                               size_t n, size_t *np)
{
    uint8_t *mark = calloc(g->nv ? g->nv : 1, 1);
    size_t cap = n + 16, k = 0;
    grove_pick_t *p = malloc(cap * sizeof(*p));
    if (!mark || !p)
        goto fail;
    for (size_t i = 0; i < n; i++)
        mark[vs[i]] = 1;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = vs[i];
        grove_eid_t cur;
        bool leaf = grove_vertex_first_child(g, v, g->sym_containment, &cur) == GROVE_VID_NONE;
        bool part = amt && amt[i] > 0;
        /* the ancestors of the vertices before may have taken the room
         * left for this one */
        if (grovep_grow((void **)&p, &cap, k + 1, sizeof(*p)) < 0)
            goto fail;
        p[k++] = (grove_pick_t){.v = v,
                                .amount = part ? amt[i] : grovep_vertex_size(g, v),
                                .exclusive = !part,
                                .leaf = leaf || part};
        for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE && !mark[a]; a = g->parent[a]) {
            mark[a] = 2;
            if (grovep_grow((void **)&p, &cap, k + 1, sizeof(*p)) < 0)
                goto fail;
            p[k++] = (grove_pick_t){.v = a, .amount = 1};
        }
    }
    free(mark);
    *np = k;
    return p;
fail:
    free(mark);
    return GROVEP_NULL_AFTER(free, p, ENOMEM);
}

struct vamt {
    grove_vid_t v;
    int64_t amt; /* units taken, 0: whole */
};

static int cmp_vamt(const void *a, const void *b)
{
    const struct vamt *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Add to *vs (sorted, *n of them) the vertices without a broker rank that
 * R's scheduling graph says the job holds: the leaves of that graph that
 * no rank covers (a rabbit's ssds, which R_lite cannot name), found in g
 * by their paths; *amt (new, parallel to *vs, or left NULL when none is
 * added) the units of each taken in part (the size R's graph gives it,
 * below the vertex's own), 0 for whole.  0, or -1 (ENOENT naming the
 * path g does not have, EINVAL for an unreadable graph, ENOMEM). */
static int reg_rankless(const grove_graph_t *g, const grove_rv1_t *R, grove_jobid_t id,
                        grove_vid_t **vs, size_t *n, int64_t **amt, grove_error_t *err)
{
    *amt = NULL;
    const json_t *sc = grove_rv1_scheduling(R);
    if (!sc || !json_is_object(json_object_get(sc, "graph")))
        return 0;
    grove_error_t e = {{0}, 0};
    grove_graph_t *t = grove_rv1_to_graph(R, &e);
    if (!t)
        return errno == ENOMEM ? grovep_errorf(err, ENOMEM, "out of memory")
                               : grovep_errorf(err, EINVAL, "register: job %llu: R: %s",
                                               (unsigned long long)id, e.text);
    grove_sym_t tc = grove_graph_sym_lookup(t, "containment");
    struct vamt *all = NULL;
    size_t k = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; i < *n; i++) {
        if (grovep_grow((void **)&all, &cap, k + 1, sizeof(*all)) < 0)
            goto nomem;
        all[k++] = (struct vamt){(*vs)[i], 0};
    }
    size_t before = k;
    size_t slots = grove_graph_vertex_slots(t);
    for (grove_vid_t u = 0; tc != GROVE_SYM_NONE && u < slots; u++) {
        grove_eid_t cur;
        if (!grove_graph_has_vertex(t, u) || grove_vertex_rank(t, u) >= 0
            || grove_vertex_first_child(t, u, tc, &cur) != GROVE_VID_NONE)
            continue;
        bool ranked = false; /* below a rank: R_lite's to name */
        for (grove_vid_t a = grove_vertex_parent(t, u, tc); a != GROVE_VID_NONE && !ranked;
             a = grove_vertex_parent(t, a, tc))
            ranked = grove_vertex_rank(t, a) >= 0;
        if (ranked)
            continue;
        char path[1024];
        int len = grove_vertex_path(t, u, tc, path, sizeof(path));
        grove_vid_t v = len > 0 && (size_t)len < sizeof(path)
                            ? grove_graph_find_path(g, g->sym_containment, path)
                            : GROVE_VID_NONE;
        if (v == GROVE_VID_NONE) {
            rc = grovep_errorf(err, ENOENT,
                               "register: job %llu: R's scheduling graph names %s, which the "
                               "graph does not have",
                               (unsigned long long)id, len > 0 ? path : "a vertex");
            goto out;
        }
        int64_t size = grove_vertex_size(t, u), whole = grovep_vertex_size(g, v);
        if (grovep_grow((void **)&all, &cap, k + 1, sizeof(*all)) < 0)
            goto nomem;
        all[k++] = (struct vamt){v, size > 0 && size < whole ? size : 0};
    }
    if (k == before)
        goto out;
    qsort(all, k, sizeof(*all), cmp_vamt);
    grove_vid_t *nv = malloc(k * sizeof(*nv));
    int64_t *na = malloc(k * sizeof(*na));
    if (!nv || !na) {
        free(nv);
        free(na);
        goto nomem;
    }
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m > 0 && nv[m - 1] == all[i].v) {
            if (all[i].amt == 0)
                na[m - 1] = 0; /* named whole by R_lite too */
            continue;
        }
        nv[m] = all[i].v;
        na[m++] = all[i].amt;
    }
    free(*vs);
    *vs = nv;
    *n = m;
    *amt = na;
    goto out;
nomem:
    rc = grovep_errorf(err, ENOMEM, "out of memory");
out:
    free(all);
    grove_graph_destroy(t);
    return rc;
}

/* Is every exclusive pick free during [start, end): nothing of another job
 * on it, nothing held exclusively above it?  0, or -1 (EBUSY naming the
 * first vertex that is not). */
static int reg_free(const grove_graph_t *g, const grove_pick_t *p, size_t n, grove_jobid_t id,
                    int64_t start, int64_t end, grove_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        if (!p[i].exclusive)
            continue;
        grove_vid_t v = p[i].v, bad = GROVE_VID_NONE;
        if (grovep_touched_any(g, v, start, end))
            bad = v;
        for (grove_vid_t a = g->parent[v]; a != GROVEP_NONE && bad == GROVE_VID_NONE;
             a = g->parent[a])
            if (grovep_excl_any(g, a, start, end))
                bad = a;
        if (bad == GROVE_VID_NONE)
            continue;
        char path[512];
        if (grove_vertex_path(g, bad, g->sym_containment, path, sizeof(path)) < 0)
            snprintf(path, sizeof(path), "%s", grove_vertex_name(g, bad));
        return grovep_errorf(err, EBUSY,
                             "register: job %llu: %s is in use during [%lld, %lld)",
                             (unsigned long long)id, path, (long long)start, (long long)end);
    }
    return 0;
}

int grove_matcher_register(grove_matcher_t *m, const grove_rv1_t *R, grove_jobid_t id,
                           const grove_register_opts_t *opts, const grove_job_t **out,
                           grove_error_t *err)
{
    grove_error_clear(err);
    if (out)
        *out = NULL;
    grove_register_opts_t dflt;
    grove_register_opts_init(&dflt);
    const grove_register_opts_t *o = opts ? opts : &dflt;
    if (!m || !R || id == 0)
        return grovep_errorf(err, EINVAL, "register: no matcher, no R or job id 0");
    grove_graph_t *g = grove_matcher_graph(m);
    if (grove_matcher_job(m, id))
        return grovep_errorf(err, EEXIST, "register: job %llu exists", (unsigned long long)id);
    grove_job_t job = {.id = id};
    if (reg_window(g, R, o, id, &job.start, &job.end, err) < 0)
        return -1;
    job.state = job.start <= g->now ? GROVE_JOB_ALLOCATED : GROVE_JOB_RESERVED;
    grove_vid_t *vs = NULL;
    size_t n = 0;
    int64_t *amt = NULL;
    if (grove_rv1_to_vertices(g, R, &vs, &n, err) < 0)
        return -1;
    if (o->free) {
        /* leave out what lies on the ranks released already */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t r = -1;
            for (grove_vid_t a = vs[i]; a != GROVEP_NONE && r < 0; a = g->parent[a])
                r = g->v[a].rank;
            if (r < 0 || r > (int64_t)GROVE_IDSET_MAX_ID || !grove_idset_test(o->free, (unsigned)r))
                vs[k++] = vs[i];
        }
        n = k;
    }
    if (reg_rankless(g, R, id, &vs, &n, &amt, err) < 0) {
        free(vs);
        return -1;
    }
    if (n == 0)
        return grovep_errorf(err, EINVAL, "register: job %llu: R names nothing of the graph",
                             (unsigned long long)id);
    job.picks = reg_picks(g, vs, amt, n, &job.npicks);
    free(vs);
    free(amt);
    if (!job.picks)
        return grovep_errorf(err, ENOMEM, "out of memory");
    int rc = reg_free(g, job.picks, job.npicks, id, job.start, job.end, err);
    if (rc == 0 && grove_matcher_restore(m, &job) < 0)
        rc = grovep_errorf(err, errno, "register: job %llu: %s", (unsigned long long)id,
                           strerror(errno));
    free(job.picks);
    if (rc == 0 && o->request && grove_matcher_set_request(m, id, o->request, err) < 0) {
        int saved = errno;
        grove_matcher_cancel(m, id);
        errno = saved;
        return -1;
    }
    if (rc == 0 && out)
        *out = grove_matcher_job(m, id);
    return rc;
}
