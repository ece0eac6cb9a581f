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

void grove_register_opts_init(grove_register_opts_t *opts)
{
    opts->start = -1;
    opts->end = 0;
    opts->request = NULL;
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

/* The picks of the vertices R names (vs, sorted) and of their ancestors
 * (shared containers): a new array of *np (NULL with ENOMEM). */
static grove_pick_t *reg_picks(const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                               size_t *np)
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
        p[k++] = (grove_pick_t){.v = v, .amount = grovep_vertex_size(g, v), .exclusive = true, .leaf = leaf};
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
    free(p);
    errno = ENOMEM;
    return NULL;
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
    if (grove_rv1_to_vertices(g, R, &vs, &n, err) < 0)
        return -1;
    if (n == 0)
        return grovep_errorf(err, EINVAL, "register: job %llu: R names nothing of the graph",
                             (unsigned long long)id);
    job.picks = reg_picks(g, vs, n, &job.npicks);
    free(vs);
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
