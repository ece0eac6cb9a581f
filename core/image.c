/* image.c: the state of a Grove instance read back (an image), and the
 * state as one JSON file.
 *
 * An image holds what a store (store.c) or a state file saved: the graph
 * with its vertex ids, every saved record, the job table, the policy name
 * and the acquisition state, with the hashes they must have.  Restoring
 * puts the records back in the order they were made (a topological order
 * over every vertex's record list), then the statuses, then checks every
 * vertex and job against its saved hash.
 *
 * The state file is a JGF document (jgf.c writes the graph with its state)
 * with a "grove" member for the jobs, next id, policy and acquisition.
 *
 * Workload: one image per start-up or check, of up to millions of
 * vertices; linear in the records plus a heap over the jobs.
 *
 * This file must not hold anything of SQLite (store.c) nor compute row
 * hashes itself (store_hash.c).
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error_private.h"
#include "json_private.h"
#include "util.h"
#include "jgf.h"
#include "store_private.h"

/* ---- images -------------------------------------------------------------------- */

void grove_image_destroy(grove_image_t *im)
{
    if (!im)
        return;
    if (!im->taken)
        grove_graph_destroy(im->g);
    GROVEP_FREE_ALL(im->status, im->hbase, im->hrec, im->recs);
    for (size_t i = 0; i < im->njobs; i++) {
        free(im->jobs[i].job.picks);
        free(im->jobs[i].request);
    }
    free(im->jobs);
    free(im->policy);
    json_decref(im->acquire);
    free(im->source);
    free(im);
}

grove_graph_t *grove_image_graph(const grove_image_t *im)
{
    return im->taken ? NULL : im->g;
}

grove_graph_t *grove_image_take_graph(grove_image_t *im)
{
    if (im->taken)
        return NULL;
    im->taken = true;
    return im->g;
}

GROVEP_GETTER(bool, grove_image_has_jobs, grove_image_t, has_jobs)

bool grove_image_has_acquire(const grove_image_t *im)
{
    return im->acquire != NULL;
}

GROVEP_GETTER(const char *, grove_image_policy, grove_image_t, policy)

grove_image_t *grovep_image_new(size_t slots)
{
    grove_image_t *im = grovep_zalloc(sizeof(*im));
    if (!im)
        return NULL;
    im->slots = slots;
    im->next_id = 1;
    if (!(im->g = grove_graph_create()) || !(im->status = calloc(slots ? slots : 1, 1))
        || !(im->hrec = calloc(slots ? slots : 1, sizeof(*im->hrec)))) {
        grove_image_destroy(im);
        return NULL;
    }
    return im;
}

int grovep_image_add_rec(grove_image_t *im, const struct srec *r)
{
    if (grovep_grow((void **)&im->recs, &im->reccap, im->nrecs + 1, sizeof(*im->recs)) < 0)
        return -1;
    im->recs[im->nrecs++] = *r;
    return 0;
}

struct sjob *grovep_image_add_job(grove_image_t *im)
{
    if (grovep_grow((void **)&im->jobs, &im->jobcap, im->njobs + 1, sizeof(*im->jobs)) < 0)
        return NULL;
    struct sjob *j = &im->jobs[im->njobs++];
    memset(j, 0, sizeof(*j));
    return j;
}

struct sjob *grovep_image_job(const grove_image_t *im, grove_jobid_t id)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, im->njobs, mid, im->jobs[mid].job.id < id);
    return lo < im->njobs && im->jobs[lo].job.id == id ? &im->jobs[lo] : NULL;
}

/* ---- restoring jobs and records in the order they were made ---------------- */

/* A min-heap of unit numbers. */
struct heap {
    uint32_t *a;
    size_t n;
};

static void heap_push(struct heap *h, uint32_t x)
{
    size_t i = h->n++;
    h->a[i] = x;
    while (i > 0 && h->a[(i - 1) / 2] > h->a[i]) {
        uint32_t t = h->a[i];
        h->a[i] = h->a[(i - 1) / 2];
        h->a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static uint32_t heap_pop(struct heap *h)
{
    uint32_t top = h->a[0];
    h->a[0] = h->a[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->a[l] < h->a[m])
            m = l;
        if (r < h->n && h->a[r] < h->a[m])
            m = r;
        if (m == i)
            break;
        uint32_t t = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = t;
        i = m;
    }
    return top;
}

/* The order to insert units in: units 0..njobs-1 are the saved jobs,
 * njobs + k the k-th record of a job outside the table.  Every vertex's
 * saved record list (oldest first) says which unit came before which.
 * *order gets every unit (ties and cycles broken by unit number). */
static int unit_order(const grove_image_t *im, const uint32_t *unit_of, size_t nunits,
                      uint32_t **order)
{
    size_t ne = 0;
    uint32_t *from = NULL, *to = NULL, *indeg = NULL, *start = NULL, *adj = NULL;
    struct heap h = {NULL, 0};
    uint8_t *done = NULL;
    int rc = -1;
    *order = NULL;
    if (!(from = malloc((im->nrecs + 1) * sizeof(*from)))
        || !(to = malloc((im->nrecs + 1) * sizeof(*to)))
        || !(indeg = calloc(nunits + 1, sizeof(*indeg)))
        || !(start = calloc(nunits + 2, sizeof(*start)))
        || !(h.a = malloc((nunits + 1) * sizeof(*h.a))) || !(done = calloc(nunits + 1, 1))
        || !(*order = malloc((nunits + 1) * sizeof(**order))))
        goto out;
    for (size_t i = 1; i < im->nrecs; i++) {
        if (im->recs[i].v != im->recs[i - 1].v || unit_of[i] == unit_of[i - 1])
            continue;
        from[ne] = unit_of[i - 1];
        to[ne] = unit_of[i];
        indeg[to[ne]]++;
        start[from[ne] + 1]++;
        ne++;
    }
    for (size_t u = 0; u < nunits; u++)
        start[u + 1] += start[u];
    if (!(adj = malloc((ne + 1) * sizeof(*adj))))
        goto out;
    {
        uint32_t *fill = calloc(nunits + 1, sizeof(*fill));
        if (!fill)
            goto out;
        for (size_t e = 0; e < ne; e++)
            adj[start[from[e]] + fill[from[e]]++] = to[e];
        free(fill);
    }
    for (uint32_t u = 0; u < nunits; u++)
        if (indeg[u] == 0)
            heap_push(&h, u);
    size_t n = 0;
    while (n < nunits) {
        if (h.n == 0) {
            /* a cycle: take the smallest unit left */
            for (uint32_t u = 0; u < nunits; u++)
                if (!done[u]) {
                    indeg[u] = 0;
                    heap_push(&h, u);
                    break;
                }
        }
        uint32_t u = heap_pop(&h);
        if (done[u])
            continue;
        done[u] = 1;
        (*order)[n++] = u;
        for (uint32_t k = start[u]; k < start[u + 1]; k++)
            if (!done[adj[k]] && indeg[adj[k]] > 0 && --indeg[adj[k]] == 0)
                heap_push(&h, adj[k]);
    }
    rc = 0;
out:
    if (rc < 0) {
        free(*order);
        *order = NULL;
        errno = ENOMEM;
    }
    free(from);
    free(to);
    free(indeg);
    free(start);
    free(adj);
    free(h.a);
    free(done);
    return rc;
}

/* Move the matcher's next id forward to what was saved. */
static void bump_next_id(grove_matcher_t *m, grove_jobid_t next)
{
    if (next > grove_matcher_next_id(m))
        grove_matcher_set_next_id(m, next);
}

/* Refuse a restore: err says "SOURCE: PLACE: reason", with the line of
 * PLACE when the image came from a state file that still reads (the text
 * was let go after reading; a refusal is rare enough to read it again).
 * place is a path into a state file ("grove.jobs[2]"); store images name
 * rows by vertex and job in the reason instead.  -1 with errno e. */
static int restore_fail(const grove_image_t *im, grove_error_t *err, int e, const char *place,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int restore_fail(const grove_image_t *im, grove_error_t *err, int e, const char *place,
                        const char *fmt, ...)
{
    char reason[sizeof(((grove_error_t *)NULL)->text)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    const char *src = im->source ? im->source : "restore";
    if (im->source_is_file && place) {
        grovep_errorf(err, e, "%s: %s: %s", src, place, reason);
        size_t len;
        grove_error_t scratch;
        char *text = grovep_read_file(im->source, NULL, &len, &scratch);
        grovep_json_place_line(err, im->source, text, text ? len : 0);
        free(text);
    } else {
        grovep_errorf(err, e, "%s: %s", src, reason);
    }
    errno = e;
    return -1;
}

/* The saved requests back to their jobs, so that re-planning works as it
 * did before the restart.  0 or -1 (EINVAL naming the job, ENOMEM). */
static int restore_requests(const grove_image_t *im, grove_matcher_t *m, grove_error_t *err)
{
    for (size_t i = 0; i < im->njobs; i++) {
        const struct sjob *j = &im->jobs[i];
        grove_error_t e = {0};
        if (j->request && grove_matcher_set_request(m, j->job.id, j->request, &e) < 0) {
            int code = errno == ENOMEM ? ENOMEM : EINVAL;
            char place[48];
            snprintf(place, sizeof(place), "grove.jobs[%u].request", j->at);
            return restore_fail(im, err, code, place, "job %llu: %s",
                                (unsigned long long)j->job.id, e.text);
        }
    }
    return 0;
}

int grove_image_restore_jobs(grove_image_t *im, grove_matcher_t *m, grove_error_t *err)
{
    grove_error_clear(err);
    if (im->restored)
        return grovep_errorf(err, EINVAL, "restore: the jobs were already restored");
    grove_graph_t *g = im->g;
    if (m && (grove_matcher_graph(m) != g || grove_matcher_job_count(m) != 0))
        return grovep_errorf(err, EINVAL,
                             "restore: the matcher must be empty and over the image's graph");
    grove_matcher_t *mm = m ? m : grove_matcher_create(g, NULL);
    if (!mm)
        return grovep_errorf(err, ENOMEM, "out of memory");
    uint32_t *unit_of = malloc((im->nrecs + 1) * sizeof(*unit_of));
    uint32_t *order = NULL;
    size_t ndirect = 0;
    int rc = -1;
    if (!unit_of) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < im->nrecs; i++) {
        const struct sjob *j = grovep_image_job(im, im->recs[i].job);
        unit_of[i] = j ? (uint32_t)(j - im->jobs) : (uint32_t)(im->njobs + ndirect++);
    }
    size_t nunits = im->njobs + ndirect;
    /* the record of each direct unit */
    size_t *direct = malloc((ndirect + 1) * sizeof(*direct));
    if (!direct || unit_order(im, unit_of, nunits, &order) < 0) {
        free(direct);
        grovep_errorf(err, ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < im->nrecs; i++)
        if (unit_of[i] >= im->njobs)
            direct[unit_of[i] - im->njobs] = i;
    for (size_t k = 0; k < nunits; k++) {
        uint32_t u = order[k];
        if (u < im->njobs) {
            const grove_job_t *j = &im->jobs[u].job;
            if (grove_matcher_restore(mm, j) < 0) {
                int e = errno;
                char place[32];
                snprintf(place, sizeof(place), "grove.jobs[%u]", im->jobs[u].at);
                restore_fail(im, err, e == ENOMEM ? ENOMEM : EINVAL, place,
                             "job %llu does not fit the graph (%s)", (unsigned long long)j->id,
                             strerror(e));
                free(direct);
                goto out;
            }
        } else {
            const struct srec *r = &im->recs[direct[u - im->njobs]];
            if (grove_vertex_allocate(g, r->v, r->job, r->amount, r->start, r->end, r->asked)
                < 0) {
                int e = errno;
                char place[64];
                snprintf(place, sizeof(place), "nodes[%u].metadata.grove.records[%u]", r->v,
                         r->at);
                restore_fail(im, err, e == ENOMEM ? ENOMEM : EINVAL, place,
                             "vertex %u: the record of job %llu does not fit (%s)", r->v,
                             (unsigned long long)r->job, strerror(e));
                free(direct);
                goto out;
            }
        }
    }
    free(direct);
    /* statuses last: allocation refuses vertices that are not up */
    for (size_t v = 0; v < im->slots; v++)
        if (grove_graph_has_vertex(g, (grove_vid_t)v))
            grove_vertex_set_status(g, (grove_vid_t)v, (grove_status_t)im->status[v]);
    /* check every vertex and job against what was saved */
    for (size_t v = 0; v < im->slots; v++) {
        if (!grove_graph_has_vertex(g, (grove_vid_t)v))
            continue;
        const char *why = NULL;
        if (grovep_store_recs_hash(g, (grove_vid_t)v) != im->hrec[v])
            why = "its records differ from the saved ones";
        else if (im->hbase
                 && grovep_store_base_hash(g, (grove_vid_t)v,
                                           (int)grove_vertex_status(g, (grove_vid_t)v))
                        != im->hbase[v])
            why = "it differs from its saved row";
        if (why) {
            char place[32];
            snprintf(place, sizeof(place), "nodes[%zu]", v);
            restore_fail(im, err, EINVAL, place, "vertex %zu: %s", v, why);
            goto out;
        }
    }
    for (size_t i = 0; i < im->njobs; i++) {
        const grove_job_t *j = grove_matcher_job(mm, im->jobs[i].job.id);
        if (!j || grovep_store_job_hash(j) != im->jobs[i].hash) {
            char place[32];
            snprintf(place, sizeof(place), "grove.jobs[%u]", im->jobs[i].at);
            restore_fail(im, err, EINVAL, place, "job %llu differs from its saved row",
                         (unsigned long long)im->jobs[i].job.id);
            goto out;
        }
    }
    if (m && restore_requests(im, m, err) < 0)
        goto out;
    if (m)
        bump_next_id(m, im->next_id);
    rc = 0;
out:
    if (!m)
        grove_matcher_destroy(mm); /* the records stay in the graph */
    free(unit_of);
    free(order);
    im->restored = true;
    return rc;
}

int grove_image_restore_acquire(grove_image_t *im, grove_acquire_t *a, grove_error_t *err)
{
    grove_error_clear(err);
    if (!im->acquire)
        return grovep_errorf(err, ENOENT, "restore: no acquisition state was saved");
    if (grove_acquire_graph(a) != im->g)
        return grovep_errorf(err, EINVAL, "restore: the acquisition state is over another graph");
    return grove_acquire_from_json(a, im->acquire, err);
}

/* ---- files ------------------------------------------------------------------------ */

static const char *const state_names[] = {"allocated", "reserved", "matched"};

static json_t *jobs_json(const grove_matcher_t *m)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < grove_matcher_job_count(m); i++) {
        const grove_job_t *j = grove_matcher_job_at(m, i);
        json_t *picks = json_array();
        for (size_t k = 0; picks && k < j->npicks; k++) {
            const grove_pick_t *p = &j->picks[k];
            char id[16];
            snprintf(id, sizeof(id), "%u", p->v);
            json_array_append_new(picks, json_pack("[s,I,b,b,b]", id, (json_int_t)p->amount,
                                                   p->exclusive, p->leaf, p->recorded));
        }
        json_t *o = json_pack("{s:I,s:s,s:I,s:o,s:o}", "id", (json_int_t)j->id, "state",
                              state_names[j->state <= GROVE_JOB_MATCHED ? j->state : 2], "start",
                              (json_int_t)j->start, "end",
                              j->end == GROVE_TIME_MAX ? json_null()
                                                       : json_integer((json_int_t)j->end),
                              "picks", picks ? picks : json_array());
        char *req = o ? grove_matcher_request(m, j->id) : NULL;
        json_t *rq = req ? json_loads(req, 0, NULL) : NULL;
        free(req);
        if (rq && json_object_set_new(o, "request", rq) < 0) {
            json_decref(o);
            o = NULL;
        }
        if (!o || json_array_append_new(arr, o) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

char *grovep_state_text(const grove_graph_t *g, const grove_matcher_t *m,
                        const grove_acquire_t *a, grove_error_t *err)
{
    json_t *gr = json_object();
    if (!gr) {
        grovep_errorf(err, ENOMEM, "out of memory");
        return NULL;
    }
    json_object_set_new(gr, "format", json_integer(GROVE_STORE_FORMAT));
    if (m) {
        json_object_set_new(gr, "jobs", jobs_json(m));
        json_object_set_new(gr, "next_id", json_integer((json_int_t)grove_matcher_next_id(m)));
        json_object_set_new(gr, "policy", json_string(grove_matcher_policy(m)->name));
    }
    json_object_set_new(gr, "acquire", a ? grove_acquire_to_json(a) : json_null());
    /* the graph through the JGF text writer, the "grove" member spliced in
     * before its closing brace: a JSON tree of a graph of 350,000 vertices
     * took 50 times as long to build and dump */
    char *gtext = json_dumps(gr, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(gr);
    char *jgf = gtext ? grove_jgf_write(g, GROVE_JGF_WITH_STATE | GROVE_JGF_COMPACT) : NULL;
    size_t jl = jgf ? strlen(jgf) : 0, gl = gtext ? strlen(gtext) : 0;
    char *text = jl > 0 && jgf[jl - 1] == '}' ? malloc(jl + gl + 16) : NULL;
    if (text)
        snprintf(text, jl + gl + 16, "%.*s,\"grove\":%s}", (int)(jl - 1), jgf, gtext);
    free(jgf);
    free(gtext);
    if (!text)
        grovep_errorf(err, ENOMEM, "out of memory");
    return text;
}

int grovep_write_atomic(const char *path, const char *what, const char *text, size_t n,
                        grove_error_t *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return grovep_errorf(err, ENOMEM, "out of memory");
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    int rc = -1;
    if (fd < 0) {
        grovep_errorf(err, errno, "%s %s: %s", what, path, strerror(errno));
        goto out;
    }
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, text + off, n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        off += (size_t)w;
    }
    if (off < n || write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        grovep_errorf(err, e, "%s %s: %s", what, path, strerror(e));
        goto out;
    }
    fchmod(fd, 0644);
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        grovep_errorf(err, e, "%s %s: %s", what, path, strerror(e));
        goto out;
    }
    rc = 0;
out:
    free(tmp);
    return rc;
}

int grove_store_write_file(const char *path, const grove_graph_t *g, const grove_matcher_t *m,
                           const grove_acquire_t *a, grove_error_t *err)
{
    grove_error_clear(err);
    if (!path || !g || (m && grove_matcher_graph(m) != g) || (a && grove_acquire_graph(a) != g))
        return grovep_errorf(err, EINVAL, "state file: bad arguments");
    char *text = grovep_state_text(g, m, a, err);
    if (!text)
        return -1;
    int rc = grovep_write_atomic(path, "state file", text, strlen(text), err);
    free(text);
    return rc;
}

/* Move the records out of the nodes of doc into im (they are restored
 * with the jobs), mapping node ids to their index. */
static int take_file_records(json_t *nodes, grove_image_t *im, grove_error_t *err,
                             const char *path)
{
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) {
        json_t *gm = json_object_get(json_object_get(node, "metadata"), "grove");
        json_t *recs = json_object_get(gm, "records");
        if (!recs)
            continue;
        if (!json_is_array(recs))
            return grovep_errorf(err, EINVAL,
                                 "%s: nodes[%zu].metadata.grove.records: expected a list", path, i);
        size_t k;
        json_t *r;
        json_array_foreach(recs, k, r) {
            json_int_t job = 0, amount = 0, start = 0, end = 0;
            int asked = 0;
            if (json_unpack(r, "{s:I,s:I,s:I,s:I,s:b}", "job", &job, "amount", &amount, "start",
                            &start, "end", &end, "exclusive", &asked)
                    < 0
                || job < 0)
                return grovep_errorf(err, EINVAL,
                                     "%s: nodes[%zu].metadata.grove.records[%zu]: expected "
                                     "{job, amount, start, end, exclusive}",
                                     path, i, k);
            if (!grovep_window_ok(start, end))
                return grovep_errorf(err, EINVAL,
                                     "%s: nodes[%zu].metadata.grove.records[%zu]: the window "
                                     "[%lld, %lld) is not one within [0, forever)",
                                     path, i, k, (long long)start, (long long)end);
            struct srec sr = {(grove_vid_t)i, (grove_jobid_t)job, amount, start, end, asked,
                              (uint32_t)k};
            if (grovep_image_add_rec(im, &sr) < 0)
                return grovep_errorf(err, ENOMEM, "out of memory");
        }
        json_object_del(gm, "records");
    }
    return 0;
}

/* The expected record hash of each vertex of im, from its saved records. */
static int file_record_hashes(grove_image_t *im, grove_error_t *err)
{
    size_t slots = im->slots;
    uint64_t *sum = calloc(slots ? slots : 1, sizeof(*sum));
    size_t *cnt = calloc(slots ? slots : 1, sizeof(*cnt));
    if (!sum || !cnt) {
        free(sum);
        free(cnt);
        return grovep_errorf(err, ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < im->nrecs; k++) {
        const struct srec *r = &im->recs[k];
        sum[r->v] += grovep_store_rec_hash(r->job, r->amount, r->start, r->end, r->asked);
        cnt[r->v]++;
    }
    for (size_t v = 0; v < slots; v++)
        im->hrec[v] = grovep_store_recs_fin(sum[v], cnt[v]);
    free(sum);
    free(cnt);
    return 0;
}

/* The picks of grove.jobs[i] into sj, node ids mapped to vertices by ids. */
static int file_picks(struct sjob *sj, const json_t *picks, const json_t *ids, size_t i,
                      grove_error_t *err, const char *path)
{
    sj->job.picks = malloc((json_array_size(picks) + 1) * sizeof(*sj->job.picks));
    if (!sj->job.picks)
        return grovep_errorf(err, ENOMEM, "out of memory");
    size_t k;
    const json_t *p;
    json_array_foreach(picks, k, p) {
        const char *vid = NULL;
        json_int_t amount = 0;
        int excl = 0, leaf = 0, rec = 0;
        const json_t *v = NULL;
        if (json_unpack((json_t *)(uintptr_t)p, "[s,I,b,b,b]", &vid, &amount, &excl, &leaf, &rec)
                < 0
            || !(v = json_object_get(ids, vid)))
            return grovep_errorf(err, EINVAL,
                                 "%s: grove.jobs[%zu].picks[%zu]: expected [node id, amount, "
                                 "exclusive, leaf, recorded] naming a node",
                                 path, i, k);
        sj->job.picks[sj->job.npicks++] = (grove_pick_t){
            .v = (grove_vid_t)json_integer_value(v), .amount = amount, .exclusive = excl,
            .leaf = leaf, .recorded = rec};
    }
    /* the matcher sorts picks by vertex; the hash is of that order */
    for (size_t x = 1; x < sj->job.npicks; x++)
        for (size_t y = x; y > 0 && sj->job.picks[y - 1].v > sj->job.picks[y].v; y--) {
            grove_pick_t t = sj->job.picks[y];
            sj->job.picks[y] = sj->job.picks[y - 1];
            sj->job.picks[y - 1] = t;
        }
    return 0;
}

/* The jobs of grove.jobs into im, node ids mapped to vertices by ids. */
static int file_jobs(grove_image_t *im, const json_t *jobs, const json_t *ids,
                     grove_error_t *err, const char *path)
{
    size_t i;
    const json_t *node;
    json_array_foreach(jobs, i, node) {
        json_int_t id = 0, start = 0;
        const char *state = NULL;
        json_t *end = NULL, *picks = NULL;
        if (json_unpack((json_t *)(uintptr_t)node, "{s:I,s:s,s:I,s:o,s:o}", "id", &id, "state",
                        &state, "start", &start, "end", &end, "picks", &picks)
                < 0
            || id <= 0 || (!json_is_null(end) && !json_is_integer(end)) || !json_is_array(picks)
            || (strcmp(state, "allocated") && strcmp(state, "reserved")))
            return grovep_errorf(err, EINVAL,
                                 "%s: grove.jobs[%zu]: expected {id, state, start, end, "
                                 "picks}",
                                 path, i);
        struct sjob *sj = grovep_image_add_job(im);
        if (!sj)
            return grovep_errorf(err, ENOMEM, "out of memory");
        sj->job.id = (grove_jobid_t)id;
        sj->at = (uint32_t)i;
        sj->job.state = strcmp(state, "reserved") ? GROVE_JOB_ALLOCATED : GROVE_JOB_RESERVED;
        sj->job.start = start;
        sj->job.end = json_is_null(end) ? GROVE_TIME_MAX : json_integer_value(end);
        if (!grovep_window_ok(sj->job.start, sj->job.end))
            return grovep_errorf(err, EINVAL,
                                 "%s: grove.jobs[%zu]: the window [%lld, %lld) is not one within "
                                 "[0, forever)",
                                 path, i, (long long)sj->job.start, (long long)sj->job.end);
        if (file_picks(sj, picks, ids, i, err, path) < 0)
            return -1;
        const json_t *rq = json_object_get(node, "request");
        if (rq && !json_is_array(rq))
            return grovep_errorf(err, EINVAL, "%s: grove.jobs[%zu].request: expected an array",
                                 path, i);
        if (rq && !(sj->request = json_dumps(rq, JSON_COMPACT)))
            return grovep_errorf(err, ENOMEM, "out of memory");
        if (im->njobs > 1 && im->jobs[im->njobs - 2].job.id >= sj->job.id)
            return grovep_errorf(err, EINVAL, "%s: grove.jobs[%zu]: ids must ascend", path, i);
        sj->hash = grovep_store_job_hash(&sj->job);
    }
    return 0;
}

/* The "grove" member of a state file: jobs, next id, policy, acquisition. */
static int file_grove(grove_image_t *im, const json_t *nodes, const json_t *gr,
                      grove_error_t *err, const char *path)
{
    if (gr && !json_is_object(gr))
        return grovep_errorf(err, EINVAL, "%s: grove: expected an object, got %s", path,
                             grovep_json_type_name(gr));
    const json_t *fmt = json_object_get(gr, "format"), *next = json_object_get(gr, "next_id");
    const json_t *pol = json_object_get(gr, "policy");
    json_t *acq = json_object_get(gr, "acquire");
    if (fmt && (!json_is_integer(fmt) || json_integer_value(fmt) < 1
                || json_integer_value(fmt) > GROVE_STORE_FORMAT))
        return grovep_errorf(err, EINVAL, "%s: grove.format: expected a format from 1 to %d",
                             path, GROVE_STORE_FORMAT);
    if (next && (!json_is_integer(next) || json_integer_value(next) < 1))
        return grovep_errorf(err, EINVAL, "%s: grove.next_id: expected a positive integer",
                             path);
    if (pol && !json_is_string(pol))
        return grovep_errorf(err, EINVAL, "%s: grove.policy: expected a string, got %s", path,
                             grovep_json_type_name(pol));
    if (acq && !json_is_object(acq) && !json_is_null(acq))
        return grovep_errorf(err, EINVAL, "%s: grove.acquire: expected an object or null, got %s",
                             path, grovep_json_type_name(acq));
    /* node ids to vertices */
    json_t *ids = json_object();
    size_t i;
    const json_t *node;
    json_array_foreach(nodes, i, node) {
        const json_t *id = json_object_get(node, "id");
        if (ids && json_is_string(id))
            json_object_set_new(ids, json_string_value(id), json_integer((json_int_t)i));
    }
    const json_t *jobs = json_object_get(gr, "jobs");
    im->has_jobs = json_is_array(jobs);
    int rc = file_jobs(im, jobs, ids, err, path);
    json_decref(ids);
    if (rc < 0)
        return -1;
    if (next)
        im->next_id = (grove_jobid_t)json_integer_value(next);
    if (pol && !(im->policy = strdup(json_string_value(pol))))
        return grovep_errorf(err, ENOMEM, "out of memory");
    if (json_is_object(acq))
        im->acquire = json_incref(acq);
    return 0;
}

grove_image_t *grove_image_read_file(const char *path, grove_error_t *err)
{
    grove_error_clear(err);
    json_error_t je;
    size_t len;
    char *text = grovep_read_file(path, NULL, &len, err);
    if (!text)
        return NULL;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        free(text);
        grovep_errorf(err, EINVAL, "%s:%d: %s", path, je.line, je.text);
        return NULL;
    }
    grove_image_t *im = NULL;
    json_t *nodes = json_object_get(json_object_get(doc, "graph"), "nodes");
    size_t slots = json_array_size(nodes);
    if (!(im = grovep_image_new(slots))) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto fail;
    }
    if (!(im->source = strdup(path))) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto fail;
    }
    im->source_is_file = true;
    if (take_file_records(nodes, im, err, path) < 0)
        goto fail;
    grove_graph_destroy(im->g);
    if (!(im->g = grove_jgf_read_json(doc, path, err)))
        goto fail;
    if (grove_graph_vertex_slots(im->g) != slots) {
        grovep_errorf(err, EINVAL, "%s: not a JGF graph document", path);
        goto fail;
    }
    for (size_t v = 0; v < slots; v++) {
        im->status[v] = (uint8_t)grove_vertex_status(im->g, (grove_vid_t)v);
        grove_vertex_set_status(im->g, (grove_vid_t)v, GROVE_STATUS_UP);
    }
    if (file_record_hashes(im, err) < 0
        || file_grove(im, nodes, json_object_get(doc, "grove"), err, path) < 0)
        goto fail;
    json_decref(doc);
    free(text);
    return im;
fail:;
    int saved = errno;
    json_decref(doc);
    grove_image_destroy(im);
    grovep_json_place_line(err, path, text, len);
    free(text);
    errno = saved;
    return NULL;
}
