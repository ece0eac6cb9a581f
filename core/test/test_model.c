/* test_model.c: the rest of the resource model in C: matches in a chosen
 * window, grow of a job, jobs planned again from their request, and the
 * clock that moves job states (match.h, "the rest of the model"), and the
 * channel units a partial release gives back.
 *
 * It must not hold the corpus rows of the matcher (test_match.c) nor the
 * store's round trips (test_store.c); graphs come from grovetest.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "aggregate.h"
#include "walker.h"
#include "compose.h"
#include "idset.h"
#include "match.h"
#include "pool.h"
#include "tap.h"
#include "grovetest.h"

/* cluster0 > node0-3 (ranks) > core0-3 */
static grove_graph_t *four(void)
{
    return test_cluster(&(test_shape_t){.nodes = 4, .cores = 4});
}

/* n nodes, each a slot of 4 cores and what beside (a JSON list's further
 * entries, "" for nothing), for d seconds. */
/* four() and a matcher on it; the graph through *g. */
static grove_matcher_t *on_four(grove_graph_t **g)
{
    *g = four();
    return grove_matcher_create(*g, NULL);
}

/* Free a test's matcher and graph. */
static void drop(grove_matcher_t *m, grove_graph_t *g)
{
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

static grove_jobspec_t *nodes_with_js(int n, int d, const char *beside)
{
    char text[640];
    snprintf(text, sizeof(text),
             "{\"version\":9999,\"resources\":[{\"type\":\"node\",\"count\":%d,\"with\":[{\"type\":"
             "\"slot\",\"count\":1,\"label\":\"s\",\"with\":[{\"type\":\"core\",\"count\":4}]}%s]}],"
             "\"tasks\":[{\"command\":[\"a\"],\"slot\":\"s\",\"count\":{\"per_slot\":1}}],"
             "\"attributes\":{\"system\":{\"duration\":%d}}}",
             n, beside, d);
    grove_jobspec_t *js = grove_jobspec_parse(text, strlen(text), NULL, NULL);
    if (!js) {
        fprintf(stderr, "nodes_with_js: %s\n", strerror(errno));
        exit(2);
    }
    return js;
}

/* n nodes, each a slot of 4 cores, for d seconds. */
static grove_jobspec_t *nodes_js(int n, int d)
{
    return nodes_with_js(n, d, "");
}

/* Match n nodes for d seconds in mode as job id (0: the next); the job id
 * or -errno. */
static long run(grove_matcher_t *m, int n, int d, grove_match_mode_t mode, grove_jobid_t id)
{
    grove_jobspec_t *js = nodes_js(n, d);
    const grove_job_t *j = NULL;
    int rc = grove_match(m, js, mode, id, &j, NULL);
    grove_jobspec_destroy(js);
    return rc < 0 ? -errno : (long)j->id;
}

/* Number of nodes of job j. */
static int nodes_of(const grove_graph_t *g, const grove_job_t *j)
{
    int n = 0;
    for (size_t i = 0; i < j->npicks; i++)
        n += !strcmp(grove_vertex_type(g, j->picks[i].v), "node");
    return n;
}

/* The index of v among job j's picks, or -1. */
static long pick_at(const grove_job_t *j, grove_vid_t v)
{
    for (size_t i = 0; i < j->npicks; i++)
        if (j->picks[i].v == v)
            return (long)i;
    return -1;
}

/* The vertex of node k. */
static grove_vid_t node(const grove_graph_t *g, int k)
{
    char path[64];
    snprintf(path, sizeof(path), "/cluster0/node%d", k);
    return grove_graph_find_path(g, grove_graph_sym_lookup(g, GROVE_CONTAINMENT), path);
}

/* ---- chosen windows ------------------------------------------------------------- */

static void windows(void)
{
    static const struct {
        const char *what;
        int nodes;
        int64_t start, end;
        grove_match_mode_t mode;
        int err;                 /* 0: succeeds */
        grove_job_state_t state; /* when it succeeds */
        int64_t want_start, want_end;
    } rows[] = {
        {"later, whole machine", 4, 100, 0, GROVE_MATCH_ALLOCATE, 0, GROVE_JOB_RESERVED, 100, 200},
        {"overlapping it", 1, 150, 250, GROVE_MATCH_ALLOCATE, EBUSY, 0, 0, 0},
        {"overlapping it, never asked", 5, 150, 250, GROVE_MATCH_ALLOCATE_WITH_SAT, ENODEV, 0, 0,
         0},
        {"right after it", 4, 200, 300, GROVE_MATCH_ALLOCATE, 0, GROVE_JOB_RESERVED, 200, 300},
        {"now, before it", 2, 10, 100, GROVE_MATCH_ALLOCATE, 0, GROVE_JOB_ALLOCATED, 10, 100},
        {"a look only", 2, 10, 100, GROVE_MATCH_WITHOUT_ALLOCATING, 0, GROVE_JOB_MATCHED, 10, 100},
        {"a look that overlaps", 2, 10, 0, GROVE_MATCH_WITHOUT_ALLOCATING, EBUSY, 0, 0, 0},
        {"before now", 1, 5, 0, GROVE_MATCH_ALLOCATE, EINVAL, 0, 0, 0},
        {"ends at its start", 1, 500, 500, GROVE_MATCH_ALLOCATE, EINVAL, 0, 0, 0},
        {"a mode that searches", 1, 500, 0, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, EINVAL, 0, 0, 0},
    };
    grove_graph_t *g;
    grove_matcher_t *m = on_four(&g);
    grove_matcher_set_now(m, 10);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_jobspec_t *js = nodes_js(rows[i].nodes, 100);
        const grove_job_t *j = NULL;
        grove_error_t err;
        size_t before = grove_matcher_job_count(m);
        errno = 0;
        int rc = grove_match_window(m, js, rows[i].mode, 0, rows[i].start, rows[i].end, &j, &err);
        if (rows[i].err) {
            ok(rc == -1 && errno == rows[i].err && grove_matcher_job_count(m) == before,
               "window %s: refused (errno %d: %s)", rows[i].what, errno, err.text);
        } else {
            ok(rc == 0 && j && j->state == rows[i].state && j->start == rows[i].want_start
                   && j->end == rows[i].want_end && nodes_of(g, j) == rows[i].nodes,
               "window %s: placed there", rows[i].what);
            ok(grove_matcher_job_count(m) == before + (rows[i].state != GROVE_JOB_MATCHED),
               "window %s: the table counts it when it allocates", rows[i].what);
        }
        grove_jobspec_destroy(js);
    }
    const grove_job_t *j = grove_matcher_job(m, 1);
    grove_error_t err;
    errno = 0;
    ok(grove_match_window(m, NULL, GROVE_MATCH_ALLOCATE, 0, 500, 0, &j, &err) == -1
           && errno == EINVAL && !j && !strcmp(err.text, "match: no jobspec"),
       "window without a jobspec: EINVAL, and no job");
    drop(m, g);
}

/* ---- grow --------------------------------------------------------------------------- */

static void grow(void)
{
    grove_graph_t *g;
    grove_matcher_t *m = on_four(&g);
    ok(run(m, 1, 100, GROVE_MATCH_ALLOCATE, 0) == 1 && run(m, 1, 50, GROVE_MATCH_ALLOCATE, 0) == 2,
       "two jobs of one node");
    grove_jobspec_t *two = nodes_js(2, 999), *three = nodes_js(3, 1);
    const grove_job_t *j = NULL;
    grove_error_t err;
    ok(grove_match_grow(m, two, 1, &j, &err) == 0 && j && j->id == 1 && nodes_of(g, j) == 3
           && j->start == 0 && j->end == 100,
       "job 1 grows by two nodes over its own window");
    size_t npicks = j ? j->npicks : 0;
    errno = 0;
    ok(grove_match_grow(m, two, 1, &j, &err) == -1 && errno == EBUSY, "no room for more: EBUSY");
    errno = 0;
    ok(grove_match_grow(m, three, 2, &j, &err) == -1 && errno == EBUSY,
       "job 2 cannot take three more: EBUSY");
    j = grove_matcher_job(m, 1);
    ok(j && j->npicks == npicks && nodes_of(g, j) == 3, "job 1 is as it was after the refusals");
    errno = 0;
    ok(grove_match_grow(m, two, 9, &j, &err) == -1 && errno == ENOENT, "no job 9: ENOENT");
    j = grove_matcher_job(m, 1);
    errno = 0;
    ok(grove_match_grow(m, NULL, 1, &j, &err) == -1 && errno == EINVAL && !j
           && !strcmp(err.text, "grow: no jobspec"),
       "grow without a jobspec: EINVAL, and no job");
    ok(grove_matcher_cancel(m, 1) == 0 && grove_vertex_allocated(g, node(g, 0)) == 0
           && grove_vertex_allocated(g, node(g, 2)) == 0,
       "a cancel frees what the grow added");
    ok(run(m, 3, 10, GROVE_MATCH_ALLOCATE, 0) == 3, "so three nodes fit now");
    grove_jobspec_destroy(two);
    grove_jobspec_destroy(three);
    drop(m, g);
}

/* ---- re-planning ----------------------------------------------------------------------- */

/* A matcher on four nodes: nodes 0-1 busy until 100 (job 1), 2-3 until
 * 200 (job 2), and job 3, of two nodes for 10s, reserved at 100. */
static grove_matcher_t *job_3_reserved(grove_graph_t **g)
{
    grove_matcher_t *m = on_four(g);
    ok(run(m, 2, 100, GROVE_MATCH_ALLOCATE, 0) == 1 && run(m, 2, 200, GROVE_MATCH_ALLOCATE, 0) == 2
           && run(m, 2, 10, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 0) == 3,
       "nodes 0-1 busy until 100, 2-3 until 200, job 3 reserved");
    return m;
}

static void replan(void)
{
    grove_graph_t *g;
    grove_matcher_t *m = job_3_reserved(&g);
    const grove_job_t *j = grove_matcher_job(m, 3);
    ok(j && j->state == GROVE_JOB_RESERVED && j->start == 100, "job 3 waits for job 1");
    grove_vertex_set_status(g, node(g, 0), GROVE_STATUS_DOWN);
    grove_error_t err;
    int rc = grove_matcher_replan(m, 3, &j, &err);
    ok(rc == 1 && j && j->start == 200 && j->state == GROVE_JOB_RESERVED,
       "node0 down: job 3 moves to 200 (rc %d)", rc);
    grove_vertex_set_status(g, node(g, 2), GROVE_STATUS_DOWN);
    grove_vertex_set_status(g, node(g, 3), GROVE_STATUS_DOWN);
    rc = grove_matcher_replan(m, 3, &j, &err);
    ok(rc == 0 && grove_matcher_job(m, 3) == NULL, "three nodes down: job 3 fits nowhere, removed");
    errno = 0;
    ok(grove_matcher_replan(m, 3, &j, &err) == -1 && errno == ENOENT, "no job 3 now: ENOENT");
    /* a job put in the table without a request cannot be planned again */
    grove_job_t copy = *grove_matcher_job(m, 2);
    grove_pick_t *picks = malloc(copy.npicks * sizeof(*picks));
    memcpy(picks, copy.picks, copy.npicks * sizeof(*picks));
    copy.picks = picks;
    copy.id = 7;
    ok(grove_matcher_cancel(m, 2) == 0 && grove_matcher_restore(m, &copy) == 0,
       "job 2 restored as job 7, without a request");
    ok(grove_matcher_replan(m, 7, &j, &err) == 0 && grove_matcher_job(m, 7) == NULL,
       "planning it again removes it");
    free(picks);
    drop(m, g);
}

/* ---- the clock --------------------------------------------------------------------------- */

static bool event_is(const grove_matcher_t *m, size_t i, grove_job_event_kind_t kind,
                     grove_jobid_t id, int64_t at)
{
    const grove_job_event_t *e = grove_matcher_event_at(m, i);
    return e && e->kind == kind && e->id == id && e->at == at;
}

static void clock_moves(void)
{
    grove_graph_t *g;
    grove_matcher_t *m = on_four(&g);
    ok(run(m, 4, 100, GROVE_MATCH_ALLOCATE, 0) == 1
           && run(m, 4, 100, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 0) == 2,
       "job 1 until 100, job 2 reserved from 100 to 200");
    ok(grove_matcher_set_now(m, 99) == 0 && grove_matcher_event_count(m) == 0,
       "at 99 nothing happens");
    ok(grove_matcher_set_now(m, 100) == 2, "at 100 two events");
    ok(event_is(m, 0, GROVE_EVENT_END, 1, 100) && event_is(m, 1, GROVE_EVENT_START, 2, 100),
       "job 1 ends before job 2 starts");
    const grove_job_t *j = grove_matcher_job(m, 2);
    ok(!grove_matcher_job(m, 1) && j && j->state == GROVE_JOB_ALLOCATED,
       "job 1 is gone, job 2 runs");
    grove_matcher_events_clear(m);
    grove_matcher_set_overdue(m, GROVE_OVERDUE_REPORT);
    ok(grove_matcher_set_now(m, 250) == 1 && event_is(m, 0, GROVE_EVENT_OVERDUE, 2, 200),
       "reported overdue at its end");
    j = grove_matcher_job(m, 2);
    ok(j && j->state == GROVE_JOB_ALLOCATED && j->end == 200,
       "it stays in the table as it was: the caller decides");
    ok(grove_matcher_set_now(m, 300) == 0 && grove_matcher_event_count(m) == 1,
       "an overdue job is reported once");
    errno = 0;
    ok(grove_matcher_set_now(m, -1) == -1 && errno == EINVAL, "a negative time: EINVAL");
    ok(grove_matcher_set_now(m, 120) == 0 && grove_matcher_job(m, 2) != NULL,
       "back in time: nothing starts again or un-ends");
    grove_matcher_events_clear(m);
    ok(grove_matcher_event_count(m) == 0 && grove_matcher_event_at(m, 0) == NULL,
       "cleared");
    drop(m, g);
}

/* ---- channeled pools released in part ----------------------------------------------- */

/* cluster0 > node0-1 (ranks) > core0-3, and pfs0 (100 GB/s) under the
 * cluster; in subsystem "io", pfs0 -> each node -> its bandwidth0 (25
 * GB/s, in no other subsystem).  The vertices in v: pfs0, bw0, bw1. */
static grove_graph_t *io_cluster(grove_vid_t v[3])
{
    grove_graph_t *g = test_cluster(&(test_shape_t){.nodes = 2, .cores = 4});
    grove_vid_t root = grove_graph_root(g, grove_graph_sym_lookup(g, GROVE_CONTAINMENT), 0);
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "pfs";
    info.id = 0;
    info.size = 100;
    info.unit = "GB/s";
    v[0] = test_vertex_add(g, &info, root);
    info.type = "bandwidth";
    info.size = 25;
    grove_error_t err;
    for (int k = 0; k < 2; k++) {
        v[1 + k] = grove_graph_add_vertex(g, &info);
        if (v[1 + k] == GROVE_VID_NONE || grove_graph_add_child(g, v[0], node(g, k), "io", &err) < 0
            || grove_graph_add_child(g, node(g, k), v[1 + k], "io", &err) < 0) {
            fprintf(stderr, "io_cluster: %s\n", strerror(errno));
            exit(2);
        }
    }
    return g;
}

/* What each of the three pools has free over [0, 100) and after it. */
static bool pools_free(const grove_graph_t *g, const grove_vid_t v[3], int64_t pfs, int64_t bw0,
                       int64_t bw1)
{
    return grove_vertex_available_during(g, v[0], 0, 100) == pfs
           && grove_vertex_available_during(g, v[1], 0, 100) == bw0
           && grove_vertex_available_during(g, v[2], 0, 100) == bw1
           && grove_vertex_available_during(g, v[0], 100, 200) == 100
           && grove_vertex_available_during(g, v[1], 100, 200) == 25;
}

static void channel_release(void)
{
    grove_vid_t v[3];
    grove_graph_t *g = io_cluster(v);
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *js = nodes_with_js(2, 100, ",{\"type\":\"bandwidth\",\"count\":10}");
    const grove_job_t *j = NULL;
    ok(js && grove_match(m, js, GROVE_MATCH_ALLOCATE, 0, &j, NULL) == 0 && j,
       "two nodes with 10 GB/s each");
    ok(pools_free(g, v, 80, 15, 15), "pfs0 carries 20, each link 10, over [0, 100)");
    grove_idset_t *r = grove_idset_decode("0", NULL);
    bool removed = true;
    long n = grove_matcher_release_ranks(m, 1, r, &removed);
    ok(n == 6 && !removed, "rank 0: node0, its four cores and its link (%ld picks)", n);
    ok(pools_free(g, v, 90, 25, 15), "pfs0 carries 10 now, node0's link nothing");
    j = grove_matcher_job(m, 1);
    long x = j ? pick_at(j, v[0]) : -1;
    ok(x >= 0 && j->picks[x].amount == 10 && pick_at(j, v[1]) < 0, "the job says so");
    grove_idset_destroy(r);
    r = grove_idset_decode("1", NULL);
    n = grove_matcher_release_ranks(m, 1, r, &removed);
    ok(removed && !grove_matcher_job(m, 1), "rank 1 takes the rest: the job goes");
    ok(pools_free(g, v, 100, 25, 25), "every conduit free again");
    grove_idset_destroy(r);
    grove_jobspec_destroy(js);
    drop(m, g);
}

/* A reservation on a vertex that leaves up is planned again at the next
 * catch-up (a match, or the clock): it never starts there. */
static void status_replans(void)
{
    grove_graph_t *g;
    grove_matcher_t *m = job_3_reserved(&g);
    grove_vertex_set_status(g, node(g, 0), GROVE_STATUS_DRAINED);
    ok(grove_matcher_catch_up(m) == 1 && event_is(m, 0, GROVE_EVENT_REPLANNED, 3, 200),
       "node0 drained: job 3 planned again, at 200");
    const grove_job_t *j = grove_matcher_job(m, 3);
    ok(j && j->start == 200 && j->state == GROVE_JOB_RESERVED, "job 3 waits for job 2");
    grove_matcher_events_clear(m);
    ok(grove_matcher_catch_up(m) == 0, "nothing changed since: nothing planned");
    grove_vertex_set_status(g, node(g, 3), GROVE_STATUS_DOWN);
    grove_vertex_set_status(g, node(g, 2), GROVE_STATUS_DOWN);
    ok(grove_matcher_set_now(m, 200) == 3 && event_is(m, 0, GROVE_EVENT_END, 1, 100)
           && event_is(m, 1, GROVE_EVENT_END, 2, 200) && event_is(m, 2, GROVE_EVENT_DROPPED, 3, 200)
           && grove_matcher_job(m, 3) == NULL,
       "two more down: job 3 fits nowhere, dropped, never started");
    drop(m, g);
}

int main(void)
{
    windows();
    grow();
    replan();
    status_replans();
    clock_moves();
    channel_release();
    return done_testing();
}
