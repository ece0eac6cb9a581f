/* test_store.c: saving and loading the whole state in SQLite and in a
 * file.  Round trips compare the graph as JGF with state (byte for byte),
 * the job table and the acquisition state; incremental saves are checked
 * to write only what changed; every refusal (missing file, not a store, a
 * newer format, read-only, rows that do not match their hashes) has a row.
 * Then a crash test: a child process runs allocate/cancel/drain/save
 * operations and reports each state before and after its save commits;
 * the parent kills it with SIGKILL at random instants (20 times, the state
 * carrying over), reloads, and checks the database (integrity_check, every
 * row against its hash) and that the state is the last acknowledged one
 * or the one whose save was under way.  And creation: a child creates
 * store after store until it is killed (20 times); each name it used
 * holds a complete store or nothing.
 *
 * It must not build graphs of its own (grovetest.h) nor test the JGF
 * format itself (test_jgf.c).
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acquire.h"
#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"
#include "jobspec.h"
#include "match.h"
#include "store.h"
#include "tap.h"
#include "corpus.h"
#include "grovetest.h"

static char dir[256];

/* cluster0 > node0..n-1 (ranks) > core0-3, memory0 (16) */
static grove_graph_t *cluster(int nodes)
{
    return test_cluster(&(test_shape_t){ .nodes = nodes, .cores = 4, .mems = 1, .mem_size = 16 });
}

static grove_jobspec_t *cores_js(int n, int duration)
{
    char text[1024];
    snprintf(text, sizeof(text),
             "{\"version\":9999,\"resources\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":"
             "\"slot\",\"count\":1,\"label\":\"s\",\"with\":[{\"type\":\"core\",\"count\":%d}]},"
             "{\"type\":\"memory\",\"count\":2,\"exclusive\":false}]}],\"tasks\":[{\"command\":"
             "[\"a\"],\"slot\":\"s\",\"count\":{\"per_slot\":1}}],\"attributes\":{\"system\":"
             "{\"duration\":%d}}}",
             n, duration);
    return grove_jobspec_parse(text, strlen(text), NULL, NULL);
}

static int alloc(grove_matcher_t *m, int n, int duration, grove_match_mode_t mode)
{
    grove_jobspec_t *js = cores_js(n, duration);
    const grove_job_t *j = NULL;
    int rc = grove_match(m, js, mode, 0, &j, NULL);
    grove_jobspec_destroy(js);
    return rc < 0 ? -1 : (int)j->id;
}

/* The job table as text: id state start end [v:amount:flags ...]; next id. */
static char *jobs_text(const grove_matcher_t *m)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    buf[0] = '\0';
    for (size_t i = 0; m && i < grove_matcher_job_count(m); i++) {
        const grove_job_t *j = grove_matcher_job_at(m, i);
        if (cap - n < 256 + j->npicks * 64) {
            cap = cap * 2 + j->npicks * 64;
            buf = realloc(buf, cap);
        }
        n += (size_t)snprintf(buf + n, cap - n, "%llu %d %lld %lld [", (unsigned long long)j->id,
                              j->state, (long long)j->start, (long long)j->end);
        for (size_t k = 0; k < j->npicks; k++)
            n += (size_t)snprintf(buf + n, cap - n, " %u:%lld:%d%d%d", j->picks[k].v,
                                  (long long)j->picks[k].amount, j->picks[k].exclusive,
                                  j->picks[k].leaf, j->picks[k].recorded);
        n += (size_t)snprintf(buf + n, cap - n, "]\n");
    }
    if (m)
        snprintf(buf + n, cap - n, "next %llu policy %s\n",
                 (unsigned long long)grove_matcher_next_id(m), grove_matcher_policy(m)->name);
    return buf;
}

static char *acq_text(const grove_acquire_t *a)
{
    if (!a)
        return strdup("-");
    json_t *j = grove_acquire_to_json(a);
    char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    return t;
}

struct state {
    grove_graph_t *g;
    grove_matcher_t *m;
    grove_acquire_t *a;
};

static void state_free(struct state *s)
{
    grove_acquire_destroy(s->a);
    grove_matcher_destroy(s->m);
    grove_graph_destroy(s->g);
    memset(s, 0, sizeof(*s));
}

/* Are the two states the same (graph as JGF, jobs, acquisition)? */
static bool same(const struct state *x, const struct state *y, const char *what)
{
    char *a = test_state_text(x->g), *b = test_state_text(y->g);
    char *ja = jobs_text(x->m), *jb = jobs_text(y->m);
    char *aa = acq_text(x->a), *ab = acq_text(y->a);
    bool eq = !strcmp(a, b) && !strcmp(ja, jb) && !strcmp(aa, ab);
    if (!eq) {
        diag("%s: differ", what);
        if (strcmp(a, b)) {
            size_t i = 0;
            while (a[i] && a[i] == b[i])
                i++;
            diag("JGF at byte %zu: ...%.80s vs ...%.80s", i, a + (i > 20 ? i - 20 : 0),
                 b + (i > 20 ? i - 20 : 0));
        }
        if (strcmp(ja, jb))
            diag("jobs:\n%s---\n%s", ja, jb);
        if (strcmp(aa, ab))
            diag("acquire: %s vs %s", aa, ab);
    }
    free(a);
    free(b);
    free(ja);
    free(jb);
    free(aa);
    free(ab);
    return eq;
}

/* A rich state: ranks, statuses, tags, properties, allocations,
 * reservations, records outside the job table, a dead slot, an
 * acquisition state. */
static void rich(struct state *s, bool dead)
{
    s->g = cluster(4);
    grove_graph_t *g = s->g;
    s->m = grove_matcher_create(g, NULL);
    grove_matcher_set_policy(s->m, grove_policy_builtin("high"));
    s->a = grove_acquire_create(g, s->m, "batch", GROVE_ACQUIRE_AUTO);
    const char *first = "{\"resources\":{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                        "\"0-3\",\"children\":{\"core\":\"0-3\"}}]}},\"up\":\"0-2\"}";
    grove_error_t err;
    if (grove_acquire_apply(s->a, first, strlen(first), NULL, &err) < 0)
        diag("rich: %s", err.text);
    grove_vertex_tag(g, 1, "owner", "alice");
    grove_vertex_tag(g, 1, "flag", NULL);
    grove_vertex_set_property(g, 7, "speed", "fast");
    grove_vertex_set_property(g, 7, "ssd", "");
    grove_graph_set_now(g, 10);
    alloc(s->m, 2, 100, GROVE_MATCH_ALLOCATE);
    alloc(s->m, 4, 50, GROVE_MATCH_ALLOCATE);
    alloc(s->m, 1, 30, GROVE_MATCH_ALLOCATE);
    grove_vertex_allocate(g, 5, 900, 1, 20, 80, false); /* outside the table */
    grove_vertex_allocate(g, 6, 901, 1, 0, GROVE_TIME_MAX, true);
    alloc(s->m, 4, 100, GROVE_MATCH_ALLOCATE);
    alloc(s->m, 4, 100, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE); /* reserved */
    grove_matcher_cancel(s->m, 3);
    alloc(s->m, 4, 10, GROVE_MATCH_ALLOCATE_WITH_SAT); /* fails: next id moves */
    grove_idset_t *two = grove_idset_decode("2", NULL);
    grove_acquire_drain(s->a, two, true, &err);
    grove_idset_destroy(two);
    /* a dead slot: a vertex added and unlinked */
    if (dead) {
        grove_vid_t x = test_vertex(g, "scratch", 0, 1, 0);
        grove_graph_unlink(g, x, false);
    }
    grove_graph_set_aggregates(g, "ALL:core,ALL:node,ALL:memory", NULL);
}

static int load(grove_store_t *st, struct state *s, grove_error_t *err)
{
    memset(s, 0, sizeof(*s));
    return grove_store_load(st, NULL, &s->g, &s->m, &s->a, err);
}

/* ---- round trips ------------------------------------------------------------ */

static void image_steps(grove_store_t *st, const struct state *s0);
static void file_round_trips(void);
static void damaged_files(void);
static void one_writer(void);
static unsigned long long digest(const grove_graph_t *g, const grove_matcher_t *m,
                                 const grove_acquire_t *a);

static void round_trips(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/rt.db", dir);
    grove_error_t err;
    grove_store_t *st = grove_store_open(path, GROVE_STORE_CREATE, &err);
    ok(st != NULL, "open a new store");
    is_int(grove_store_generation(st), 0, "nothing saved yet");
    ok(grove_store_read(st, &err) == NULL && errno == EINVAL, "read: nothing saved");
    ok(strstr(err.text, "rt.db: nothing was saved") != NULL, "message: %s", err.text);
    struct state s0, s1;
    int rc;
    rich(&s0, true);
    grove_store_stats_t stats;
    ok(grove_store_save(st, s0.g, s0.m, s0.a, 0, &stats, &err) == 0, "first save");
    is_int(stats.generation, 1, "generation 1");
    is_int(stats.vertices, grove_graph_vertex_slots(s0.g), "every vertex row written");
    is_int(stats.jobs, grove_matcher_job_count(s0.m), "every job row written");
    ok(load(st, &s1, &err) == 0, "load");
    if (!s1.g)
        diag("%s", err.text);
    ok(s1.g && same(&s0, &s1, "after load"), "load restores the state exactly");
    is_str(grove_matcher_policy(s1.m)->name, "high", "policy restored");
    is_int(grove_matcher_next_id(s1.m), grove_matcher_next_id(s0.m), "next id restored");
    ok(grove_graph_vertex_slots(s1.g) == grove_graph_vertex_slots(s0.g)
           && !grove_graph_has_vertex(s1.g, (grove_vid_t)grove_graph_vertex_slots(s1.g) - 1),
       "dead slot kept dead");
    is_str(grove_graph_aggregates(s1.g), "ALL:core,ALL:node,ALL:memory", "aggregates restored");
    /* the loaded state schedules the same way */
    int a0 = alloc(s0.m, 3, 40, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE);
    int a1 = alloc(s1.m, 3, 40, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE);
    ok(a0 == a1 && a0 > 0 && same(&s0, &s1, "after one more match"),
       "the loaded state makes the same next decision");
    /* nothing changed: an incremental save writes nothing */
    rc = grove_store_save(st, s0.g, s0.m, s0.a, 0, &stats, &err);
    ok(rc == 0, "save after one match");
    ok(stats.jobs == 1 && stats.vertices > 0 && stats.vertices < 10 && stats.edges == 0,
       "incremental: 1 job row and the few vertices it touched (%zu)", stats.vertices);
    ok(grove_store_save(st, s0.g, s0.m, s0.a, 0, &stats, &err) == 0 && stats.jobs == 0
           && stats.vertices == 0 && stats.edges == 0 && stats.deleted == 0,
       "incremental with no change writes nothing");
    grove_matcher_cancel(s0.m, 1);
    ok(grove_store_save(st, s0.g, s0.m, s0.a, 0, &stats, &err) == 0 && stats.deleted == 1
           && stats.jobs == 0,
       "a cancel deletes one job row");
    /* the change log */
    char *ch = grove_store_changes(st, 2, &err);
    json_t *cj = ch ? json_loads(ch, 0, NULL) : NULL;
    ok(cj && json_integer_value(json_object_get(cj, "generation")) == 4
           && !json_is_true(json_object_get(cj, "full"))
           && json_integer_value(json_array_get(json_object_get(json_object_get(cj, "deleted"),
                                                                "jobs"),
                                                0))
                  == 1,
       "changes since 2: job 1 deleted (%s)", ch ? ch : "-");
    json_decref(cj);
    free(ch);
    ch = grove_store_changes(st, 0, &err);
    ok(ch && strstr(ch, "\"full\":false") && strstr(ch, "\"vertices\":[0,1,2,"),
       "changes since 0: every row, from the log (%.60s)", ch ? ch : "-");
    free(ch);
    /* graph changes: a status, a tag, an unlinked subtree, a new vertex */
    grove_vertex_set_status(s0.g, 3, GROVE_STATUS_DOWN);
    grove_vertex_untag(s0.g, 1, "flag");
    grove_vid_t node3 = grove_graph_first_by_rank(s0.g, 3);
    grove_graph_unlink(s0.g, node3, true);
    test_vertex(s0.g, "gpu", 0, 1, 1);
    rc = grove_store_save(st, s0.g, s0.m, s0.a, 0, &stats, &err);
    ok(rc == 0 && stats.edges == 2 && stats.deleted == 12,
       "unlink and add: 2 edge rows written, 12 deleted (%zu, %zu)", stats.edges,
       stats.deleted);
    state_free(&s1);
    ok(load(st, &s1, &err) == 0 && same(&s0, &s1, "after incremental saves"),
       "incremental saves load back exactly");
    ok(grove_store_check(st, &err) == 0, "check: ok");
    grove_store_close(st);
    /* reopen and load, as a restarted scheduler does: saves stay incremental */
    st = grove_store_open(path, 0, &err);
    state_free(&s1);
    ok(st && load(st, &s1, &err) == 0 && same(&s0, &s1, "after reopen"), "reopen and load");
    grove_matcher_cancel(s0.m, 2);
    grove_matcher_cancel(s1.m, 2);
    rc = grove_store_save(st, s1.g, s1.m, s1.a, 0, &stats, &err);
    ok(rc == 0 && stats.deleted == 1 && stats.edges == 0 && stats.vertices <= 6,
       "after reopening and loading, a save is incremental (%zu vertices, %zu deleted)",
       stats.vertices, stats.deleted);
    state_free(&s1);
    ok(load(st, &s1, &err) == 0 && same(&s0, &s1, "after reopen"), "and loads back");
    /* a full save of another state replaces everything */
    struct state s2 = {cluster(2), NULL, NULL};
    ok(grove_store_save(st, s2.g, NULL, NULL, GROVE_STORE_FULL, &stats, &err) == 0 && stats.full,
       "full save of a bare graph");
    ch = grove_store_changes(st, 1, &err);
    ok(ch && strstr(ch, "\"full\":true"), "changes across a full save: read everything");
    free(ch);
    state_free(&s1);
    ok(load(st, &s1, &err) == 0 && s1.m == NULL && s1.a == NULL && same(&s2, &s1, "bare"),
       "a bare graph loads without matcher or acquisition state");
    /* incremental save of a different graph: still exact */
    ok(grove_store_save(st, s0.g, s0.m, s0.a, 0, &stats, &err) == 0, "save another graph");
    state_free(&s1);
    ok(load(st, &s1, &err) == 0 && same(&s0, &s1, "other graph"),
       "an incremental save over another graph is exact");
    image_steps(st, &s0);
    state_free(&s1);
    state_free(&s2);
    state_free(&s0);
    grove_store_close(st);
    file_round_trips();
}

/* Reading an image of st (saved from s0) step by step. */
static void image_steps(grove_store_t *st, const struct state *s0)
{
    grove_error_t err;
    grove_image_t *im = grove_store_read(st, &err);
    ok(im && grove_image_has_jobs(im) && grove_image_has_acquire(im)
           && !strcmp(grove_image_policy(im), "high"),
       "image: jobs, acquisition, policy");
    grove_graph_t *ig = grove_image_take_graph(im);
    ok(grove_image_take_graph(im) == NULL && grove_image_graph(im) == NULL, "graph taken once");
    grove_graph_t *og = grove_graph_create();
    grove_matcher_t *other = og ? grove_matcher_create(og, NULL) : NULL;
    ok(other && grove_image_restore_jobs(im, other, &err) < 0 && errno == EINVAL,
       "restore into a matcher of another graph: EINVAL");
    is_str(err.text, "restore: the matcher must be empty and over the image's graph", "message");
    grove_matcher_destroy(other);
    grove_graph_destroy(og);
    ok(grove_image_restore_jobs(im, NULL, &err) == 0, "restore records without a matcher");
    ok(grove_image_restore_jobs(im, NULL, &err) < 0 && errno == EINVAL, "only once");
    char *j0 = test_state_text(s0->g), *j1 = test_state_text(ig);
    is_str(j1, j0, "records restored without a matcher");
    free(j0);
    free(j1);
    grove_acquire_t *ia = grove_acquire_create(ig, NULL, NULL, 0);
    ok(grove_image_restore_acquire(im, ia, &err) == 0, "restore acquisition");
    grove_acquire_destroy(ia);
    grove_image_destroy(im);
    grove_graph_destroy(ig);
    ok_destroy_null(grove_image_destroy);
}

/* State files.  Vertex ids are renumbered when the graph has dead slots,
 * so compare a state without them. */
static void file_round_trips(void)
{
    grove_error_t err;
    struct state s0, s1;
    rich(&s0, false);
    char fpath[512];
    snprintf(fpath, sizeof(fpath), "%s/state.json", dir);
    ok(grove_store_write_file(fpath, s0.g, s0.m, s0.a, &err) == 0, "write a state file");
    grove_image_t *im = grove_image_read_file(fpath, &err);
    ok(im != NULL, "read it back");
    if (im) {
        s1.g = grove_image_take_graph(im);
        s1.m = grove_matcher_create(s1.g, NULL);
        grove_matcher_set_policy(s1.m, grove_policy_builtin(grove_image_policy(im)));
        s1.a = grove_acquire_create(s1.g, s1.m, NULL, 0);
        ok(grove_image_restore_jobs(im, s1.m, &err) == 0
               && grove_image_restore_acquire(im, s1.a, &err) == 0,
           "restore from the file");
        ok(same(&s0, &s1, "file"), "the file restores the state exactly");
        grove_image_destroy(im);
        state_free(&s1);
    }
    /* a plain JGF file: a graph, no jobs */
    snprintf(fpath, sizeof(fpath), "%s/plain.json", dir);
    FILE *f = fopen(fpath, "w");
    char *plain = grove_jgf_write(s0.g, GROVE_JGF_WITH_STATE);
    fputs(plain, f);
    fclose(f);
    im = grove_image_read_file(fpath, &err);
    ok(im && !grove_image_has_jobs(im) && grove_image_restore_jobs(im, NULL, &err) == 0,
       "a plain JGF file with records");
    if (im) {
        char *t = test_state_text(grove_image_graph(im));
        char *want = test_state_text(s0.g);
        is_str(t, want, "its records come back");
        free(t);
        free(want);
    }
    grove_image_destroy(im);
    free(plain);
    state_free(&s0);
}

/* ---- kept requests -------------------------------------------------------------- */

/* Two nodes busy until 100 and 200, a third job reserved on node0 at 100;
 * then node0 goes down and the reservation is planned again.  It moves to
 * node1 at 200 only if its request came back with it. */
static void replan_after(struct state *s, const char *what)
{
    grove_vid_t node0 = grove_graph_first_by_type(s->g, grove_graph_sym_lookup(s->g, "node"));
    grove_vertex_set_status(s->g, node0, GROVE_STATUS_DOWN);
    const grove_job_t *j = NULL;
    grove_error_t err;
    int rc = grove_matcher_replan(s->m, 3, &j, &err);
    ok(rc == 1 && j && j->start == 200 && j->state == GROVE_JOB_RESERVED,
       "%s: the restored reservation is planned again at 200 (rc %d)", what, rc);
}

static void requests_kept(void)
{
    grove_error_t err;
    struct state s0, s1;
    memset(&s0, 0, sizeof(s0));
    s0.g = cluster(2);
    s0.m = grove_matcher_create(s0.g, NULL);
    ok(alloc(s0.m, 4, 100, GROVE_MATCH_ALLOCATE) == 1
           && alloc(s0.m, 4, 200, GROVE_MATCH_ALLOCATE) == 2
           && alloc(s0.m, 4, 50, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE) == 3,
       "two running jobs and a reservation");
    char *want = grove_matcher_request(s0.m, 3);
    ok(want && want[0] == '[', "the reservation's request is kept");
    char path[512];
    snprintf(path, sizeof(path), "%s/requests.db", dir);
    grove_store_t *st = grove_store_open(path, GROVE_STORE_CREATE, &err);
    ok(st && grove_store_save(st, s0.g, s0.m, NULL, 0, NULL, &err) == 0, "saved");
    grove_store_close(st);
    st = grove_store_open(path, 0, &err);
    ok(st && load(st, &s1, &err) == 0, "loaded");
    grove_store_close(st);
    char *got = s1.m ? grove_matcher_request(s1.m, 3) : NULL;
    is_str(got, want, "the store gives the request back");
    free(got);
    if (s1.m)
        replan_after(&s1, "store");
    state_free(&s1);

    snprintf(path, sizeof(path), "%s/requests.json", dir);
    ok(grove_store_write_file(path, s0.g, s0.m, NULL, &err) == 0, "written to a state file");
    grove_image_t *im = grove_image_read_file(path, &err);
    ok(im != NULL, "read back");
    if (im) {
        s1.g = grove_image_take_graph(im);
        s1.m = grove_matcher_create(s1.g, NULL);
        s1.a = NULL;
        ok(grove_image_restore_jobs(im, s1.m, &err) == 0, "restored from the file");
        got = grove_matcher_request(s1.m, 3);
        is_str(got, want, "the file gives the request back");
        free(got);
        replan_after(&s1, "file");
        grove_image_destroy(im);
        state_free(&s1);
    }

    /* refusals: the job keeps its request */
    static const struct {
        grove_jobid_t id;
        const char *text;
        int err;
        const char *msg;
    } bad[] = {
        {9, "[]", ENOENT, "request: no job 9"},
        {3, "[", EINVAL, "request: not JSON"},
        {3, "{}", EINVAL, "request: not a non-empty array of jobspecs"},
        {3, "[]", EINVAL, "request: not a non-empty array of jobspecs"},
        {3, "[{\"version\": 1}]", EINVAL, "request: jobspec 1: "},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        int rc = grove_matcher_set_request(s0.m, bad[i].id, bad[i].text, &err);
        ok(rc == -1 && errno == bad[i].err && !strncmp(err.text, bad[i].msg, strlen(bad[i].msg)),
           "set_request %s refused: %s", bad[i].text, err.text);
    }
    got = grove_matcher_request(s0.m, 3);
    is_str(got, want, "the request is unchanged after the refusals");
    free(got);
    errno = 0;
    ok(grove_matcher_request(s0.m, 9) == NULL && errno == ENOENT, "no request for a missing job");

    /* a request row changed behind the store's back */
    snprintf(path, sizeof(path), "%s/requests.db", dir);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "UPDATE request SET doc = '[]' WHERE job = 3", NULL, NULL, NULL);
    sqlite3_close(db);
    st = grove_store_open(path, 0, &err);
    ok(st && load(st, &s1, &err) == -1 && errno == EINVAL
           && strstr(err.text, "the request of job 3 does not match its hash"),
       "a changed request row is refused: %s", err.text);
    grove_store_close(st);
    free(want);
    state_free(&s0);
}

/* ---- refusals ---------------------------------------------------------------- */

static void save_refusals(const char *p2);
static void corrupt_rows(void);
static void file_refusals(void);

static void refusals(void)
{
    char path[512], p2[512];
    grove_error_t err;
    snprintf(path, sizeof(path), "%s/missing.db", dir);
    ok(grove_store_open(path, 0, &err) == NULL && errno == ENOENT, "open: missing file");
    is_str(err.text, strstr(err.text, "no such file") ? err.text : "-", "message names it");
    ok(grove_store_open(NULL, 0, &err) == NULL && errno == EINVAL, "open: no path");
    ok(grove_store_open(path, GROVE_STORE_CREATE | GROVE_STORE_READONLY, &err) == NULL
           && errno == EINVAL,
       "open: create and read-only");
    ok(grove_store_open(path, 0x80, &err) == NULL && errno == EINVAL, "open: unknown flag");
    snprintf(p2, sizeof(p2), "%s/text.db", dir);
    FILE *f = fopen(p2, "w");
    fputs("this is not a database, but long enough to look like one's header........", f);
    fclose(f);
    ok(grove_store_open(p2, 0, &err) == NULL && errno == EINVAL, "open: not a database");
    is_str(err.text, strstr(err.text, "not a database") ? err.text : "-", "message");
    snprintf(p2, sizeof(p2), "%s/other.db", dir);
    sqlite3 *db;
    sqlite3_open(p2, &db);
    sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL);
    sqlite3_close(db);
    ok(grove_store_open(p2, GROVE_STORE_CREATE, &err) == NULL && errno == EINVAL,
       "open: another application's database");
    snprintf(p2, sizeof(p2), "%s/newer.db", dir);
    grove_store_t *st = grove_store_open(p2, GROVE_STORE_CREATE, &err);
    grove_store_close(st);
    sqlite3_open(p2, &db);
    sqlite3_exec(db, "UPDATE meta SET value = 99 WHERE key = 'format'", NULL, NULL, NULL);
    sqlite3_close(db);
    ok(grove_store_open(p2, 0, &err) == NULL && errno == EINVAL, "open: a newer format");
    is_str(err.text, strstr(err.text, "format 99 is newer") ? err.text : "-", "message");
    /* read-only */
    snprintf(p2, sizeof(p2), "%s/ro.db", dir);
    st = grove_store_open(p2, GROVE_STORE_CREATE, &err);
    grove_graph_t *g = cluster(1);
    grove_store_save(st, g, NULL, NULL, 0, NULL, &err);
    grove_store_close(st);
    st = grove_store_open(p2, GROVE_STORE_READONLY, &err);
    ok(st && grove_store_save(st, g, NULL, NULL, 0, NULL, &err) < 0 && errno == EINVAL,
       "save on a read-only store: EINVAL");
    grove_image_t *im = st ? grove_store_read(st, &err) : NULL;
    ok(im != NULL, "read-only stores read");
    grove_image_destroy(im);
    grove_store_close(st);
    grove_graph_destroy(g);
    save_refusals(p2);
    corrupt_rows();
    damaged_files();
    file_refusals();
    one_writer();
}

/* A store at path holding a rich state, then damaged by sql. */
static void saved_then(const char *path, const char *sql)
{
    grove_error_t err;
    struct state s;
    rich(&s, true);
    grove_store_t *st = grove_store_open(path, GROVE_STORE_CREATE, &err);
    grove_store_save(st, s.g, s.m, s.a, 0, NULL, &err);
    grove_store_close(st);
    state_free(&s);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
}

/* Saves with bad arguments, on the store at p2. */
static void save_refusals(const char *p2)
{
    grove_error_t err;
    grove_graph_t *g = cluster(1);
    grove_store_t *st;
    /* bad arguments */
    st = grove_store_open(p2, 0, &err);
    grove_graph_t *g2 = cluster(1);
    grove_matcher_t *m2 = grove_matcher_create(g2, NULL);
    ok(grove_store_save(st, g, m2, NULL, 0, NULL, &err) < 0 && errno == EINVAL,
       "save: matcher of another graph");
    ok(grove_store_save(st, g, NULL, NULL, 0x10, NULL, &err) < 0 && errno == EINVAL,
       "save: unknown flag");
    grove_matcher_destroy(m2);
    grove_graph_destroy(g2);
    grove_store_close(st);
    grove_graph_destroy(g);
}

/* One row of vectors/store_corruptions.tsv: a saved store damaged by the
 * SQL is refused at load with the words given, and by check (unless the
 * words start with 'n': damage check cannot see). */
static void corrupt_row(int lineno, char **f)
{
    const char *sql = f[0], *what = f[1];
    char p2[512];
    grove_error_t err;
    snprintf(p2, sizeof(p2), "%s/bad%d.db", dir, lineno);
    saved_then(p2, sql);
    grove_store_t *st = grove_store_open(p2, 0, &err);
    struct state l;
    int rc = load(st, &l, &err);
    ok(rc < 0 && errno == EINVAL && strstr(err.text, what), "corrupt line %d refused: %s", lineno,
       err.text);
    ok(grove_store_check(st, &err) < 0 || what[0] == 'n', "check finds corrupt line %d", lineno);
    grove_store_close(st);
}

/* Damaged rows are found at load and by check. */
static void corrupt_rows(void)
{
    char p2[512];
    grove_error_t err;
    grove_store_t *st;
    ok(vectors_run("store_corruptions.tsv", 2, corrupt_row) >= 11, "store corruption vectors");
    /* a record that no longer fits (a changed size) is found by restore */
    snprintf(p2, sizeof(p2), "%s/badsize.db", dir);
    {
        /* job rows rewritten consistently but naming a vertex without room */
        saved_then(p2, "DELETE FROM job; DELETE FROM pick; DELETE FROM request;");
        st = grove_store_open(p2, 0, &err);
        struct state l;
        ok(load(st, &l, &err) < 0 && errno == EINVAL && strstr(err.text, "job rows do not match"),
           "jobs missing: found (%s)", err.text);
        grove_store_close(st);
    }
}

/* Copy the file from to to, truncated to len bytes (SIZE_MAX: whole) and
 * with the bytes of page `page` (0: none) inverted. */
static void damaged_copy(const char *from, const char *to, size_t len, long page, long psize)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n, at = 0;
    while (in && out && at < len && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
        if (n > len - at)
            n = len - at;
        for (size_t i = 0; i < n; i++)
            if (page > 0 && (long)((at + i) / (size_t)psize) == page - 1)
                buf[i] = (char)~buf[i];
        fwrite(buf, 1, n, out);
        at += n;
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

/* Truncated files and flipped pages: every one is refused with a message
 * saying the file is damaged, or (a page the state does not use) loads
 * the very state that was saved; none is half-read or crashes. */
static void damaged_files(void)
{
    char path[512], p2[512];
    grove_error_t err;
    snprintf(path, sizeof(path), "%s/whole.db", dir);
    saved_then(path, "");
    struct state s0 = {0};
    grove_store_t *st = grove_store_open(path, GROVE_STORE_READONLY, &err);
    ok(st && load(st, &s0, &err) == 0, "the undamaged store loads");
    grove_store_close(st);
    unsigned long long want = s0.g ? digest(s0.g, s0.m, s0.a) : 0;
    state_free(&s0);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    long psize = 4096, pages = size / psize;
    int refused = 0, same_state = 0, bad = 0, trials = 0;
    snprintf(p2, sizeof(p2), "%s/damaged.db", dir);
    for (long k = -4; k <= pages; k++) {
        /* k < 0: truncations; k >= 1: page k inverted (page 1 holds the header) */
        size_t len = k == -4 ? (size_t)size / 2 : k == -3 ? (size_t)psize + 100
                   : k == -2 ? (size_t)size - (size_t)psize : k == -1 ? 50 : SIZE_MAX;
        if (k == 0)
            continue;
        damaged_copy(path, p2, len, k > 0 ? k : 0, psize);
        trials++;
        st = grove_store_open(p2, GROVE_STORE_READONLY, &err);
        struct state l = {0};
        int rc = st ? load(st, &l, &err) : -1;
        if (rc == 0 && digest(l.g, l.m, l.a) == want) {
            same_state++;
        } else if (rc < 0 && errno == EINVAL
                   && (strstr(err.text, "damaged") || strstr(err.text, "not a database")
                       || strstr(err.text, "not a Grove store") || strstr(err.text, "match"))) {
            refused++;
        } else {
            bad++;
            diag("damage %ld: rc %d errno %d: %s", k, rc, errno, err.text);
        }
        state_free(&l);
        grove_store_close(st);
    }
    ok(bad == 0 && refused > trials / 2,
       "damaged files (%d: 4 truncations, %ld flipped pages): %d refused as damaged, %d unused "
       "pages harmless, %d wrong",
       trials, pages, refused, same_state, bad);
    damaged_copy(path, p2, (size_t)size / 2, 0, psize);
    st = grove_store_open(p2, GROVE_STORE_READONLY, &err);
    struct state l = {0};
    ok((st == NULL || load(st, &l, &err) < 0) && errno == EINVAL && strstr(err.text, p2)
           && strstr(err.text, "damaged"),
       "a truncated store: %s", err.text);
    state_free(&l);
    grove_store_close(st);
}

/* One writer per store file, in this process and across processes; read-
 * only opens are not refused while a writer works. */
static void one_writer(void)
{
    char path[512];
    grove_error_t err;
    snprintf(path, sizeof(path), "%s/writer.db", dir);
    grove_store_t *a = grove_store_open(path, GROVE_STORE_CREATE, &err);
    ok(a != NULL, "first writer opens");
    grove_graph_t *g = cluster(2);
    ok(grove_store_save(a, g, NULL, NULL, 0, NULL, &err) == 0, "first writer saves");
    grove_store_t *b = grove_store_open(path, 0, &err);
    ok(b == NULL && errno == EBUSY && strstr(err.text, path)
           && strstr(err.text, "another writer has it open"),
       "a second writer in the same process is refused: %s", err.text);
    grove_store_close(b);
    /* another process: refused while a is open, a reader is not */
    int fds[2];
    if (pipe(fds) < 0) {
        ok(0, "pipe");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        grove_error_t e2;
        grove_store_t *w = grove_store_open(path, GROVE_STORE_CREATE, &e2);
        int werr = errno;
        grove_store_t *r = grove_store_open(path, GROVE_STORE_READONLY, &e2);
        grove_image_t *im = r ? grove_store_read(r, &e2) : NULL;
        char line[64];
        int n = snprintf(line, sizeof(line), "%d %d %d", w != NULL, werr == EBUSY, im != NULL);
        grove_image_destroy(im);
        grove_store_close(r);
        grove_store_close(w);
        if (write(fds[1], line, (size_t)n) != n)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    char got[600] = {0};
    ssize_t r = read(fds[0], got, sizeof(got) - 1);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    is_str(r > 0 ? got : "-", "0 1 1", "another process: its writer is refused (EBUSY), its reader reads");
    /* the other process's save after a closes: saved, not lost */
    ok(grove_store_save(a, g, NULL, NULL, 0, NULL, &err) == 0, "the first writer still saves");
    grove_store_close(a);
    pid = fork();
    if (pid == 0) {
        grove_error_t e2;
        grove_store_t *w = grove_store_open(path, 0, &e2);
        grove_graph_t *g3 = cluster(3);
        int rc = w && grove_store_save(w, g3, NULL, NULL, 0, NULL, &e2) == 0 ? 0 : 1;
        grove_graph_destroy(g3);
        grove_store_close(w);
        _exit(rc);
    }
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "once the first writer closed, another process opens and saves");
    b = grove_store_open(path, 0, &err);
    grove_image_t *im = b ? grove_store_read(b, &err) : NULL;
    grove_graph_t *g3 = cluster(3);
    ok(b && grove_store_generation(b) == 3 && im
           && grove_graph_vertex_count(grove_image_graph(im)) == grove_graph_vertex_count(g3),
       "and its save is what the store holds (generation 3)");
    grove_graph_destroy(g3);
    grove_image_destroy(im);
    grove_store_close(b);
    grove_graph_destroy(g);
}

static void file_refusals(void)
{
    char p2[512];
    grove_error_t err;
    grove_graph_t *g = cluster(1);
    /* file errors */
    snprintf(p2, sizeof(p2), "%s/nofile.json", dir);
    ok(grove_image_read_file(p2, &err) == NULL && errno == ENOENT, "file: missing");
    snprintf(p2, sizeof(p2), "%s/badjobs.json", dir);
    FILE *f = fopen(p2, "w");
    fputs("{\"graph\":{\"nodes\":[{\"id\":\"0\",\"metadata\":{\"type\":\"node\"}}],\"edges\":[]},"
          "\"grove\":{\"jobs\":[{\"id\":1,\"state\":\"allocated\",\"start\":0,\"end\":null,"
          "\"picks\":[[\"9\",1,true,true,true]]}]}}",
          f);
    fclose(f);
    ok(grove_image_read_file(p2, &err) == NULL && errno == EINVAL
           && strstr(err.text, "grove.jobs[0].picks[0]"),
       "file: a pick naming no node (%s)", err.text);
    f = fopen(p2, "w");
    fputs("{\"graph\":{\"nodes\":[]}", f);
    fclose(f);
    ok(grove_image_read_file(p2, &err) == NULL && errno == EINVAL, "file: bad JSON");
    snprintf(p2, sizeof(p2), "%s/no/such/dir/x.json", dir);
    ok(grove_store_write_file(p2, g, NULL, NULL, &err) < 0 && errno == ENOENT,
       "write into a missing directory");
    grove_graph_destroy(g);
}

/* ---- crash test --------------------------------------------------------------- */

/* The default suite kills 20 children; GROVE_LONG=1 (the long mode) 120. */
static int kills(void)
{
    const char *l = getenv("GROVE_LONG");
    return l && *l && strcmp(l, "0") ? 120 : 20;
}

/* A digest of the whole state, to compare what a child acknowledged with
 * what is loaded. */
static unsigned long long digest(const grove_graph_t *g, const grove_matcher_t *m,
                                 const grove_acquire_t *a)
{
    char *t = test_state_text(g), *j = jobs_text(m), *q = acq_text(a);
    unsigned long long h = 1469598103934665603ULL;
    for (char *p = t; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    for (char *p = j; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    for (char *p = q; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    free(t);
    free(j);
    free(q);
    return h;
}

static void say(int fd, const char *what, unsigned long long a, unsigned long long b)
{
    char line[128];
    int n = snprintf(line, sizeof(line), "%s %llu %llu\n", what, a, b);
    if (write(fd, line, (size_t)n) != n)
        _exit(3);
}

/* The child: load (or start), then operate and save until killed.  Before
 * each save it writes "intent GEN DIGEST", after it "ack GEN DIGEST". */
static void child(const char *path, int fd, unsigned seed)
{
    grove_error_t err;
    grove_store_t *st = grove_store_open(path, GROVE_STORE_CREATE, &err);
    if (!st)
        _exit(2);
    struct state s;
    if (grove_store_generation(st) == 0) {
        s.g = cluster(6);
        s.m = grove_matcher_create(s.g, NULL);
        s.a = grove_acquire_create(s.g, s.m, NULL, 0);
        const char *first = "{\"type\":\"grow\",\"resources\":{\"version\":1,\"execution\":"
                            "{\"R_lite\":[{\"rank\":\"0-5\",\"children\":{\"core\":\"0-3\"}}]}},"
                            "\"online\":\"0-5\",\"offline\":\"\"}";
        grove_acquire_apply(s.a, first, strlen(first), NULL, &err);
    } else if (load(st, &s, &err) < 0) {
        _exit(4);
    }
    srand(seed);
    for (unsigned k = 0;; k++) {
        int op = rand() % 10;
        if (op < 5) {
            alloc(s.m, 1 + rand() % 4, 10 + rand() % 100,
                  op == 0 ? GROVE_MATCH_ALLOCATE_ORELSE_RESERVE : GROVE_MATCH_ALLOCATE);
        } else if (op < 8) {
            size_t n = grove_matcher_job_count(s.m);
            if (n)
                grove_matcher_cancel(s.m, grove_matcher_job_at(s.m, (size_t)rand() % n)->id);
        } else {
            char t[8];
            snprintf(t, sizeof(t), "%d", rand() % 6);
            grove_idset_t *ids = grove_idset_decode(t, NULL);
            grove_acquire_drain(s.a, ids, op == 8, &err);
            grove_idset_destroy(ids);
        }
        unsigned long long d = digest(s.g, s.m, s.a);
        long long gen = grove_store_generation(st) + 1;
        say(fd, "intent", (unsigned long long)gen, d);
        if (grove_store_save(st, s.g, s.m, s.a, k % 7 == 6 ? GROVE_STORE_FULL : 0, NULL, &err)
            < 0)
            _exit(5);
        say(fd, "ack", (unsigned long long)gen, d);
    }
}

/* What a child said, parsed line by line as it arrives. */
struct said {
    char part[128]; /* an incomplete line */
    size_t n;
    int acks;
    unsigned long long ack_gen, ack_d, int_gen, int_d;
    bool have_int; /* an intent after the last ack */
};

static void said_feed(struct said *s, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (s->n < sizeof(s->part) - 1)
                s->part[s->n++] = data[i];
            continue;
        }
        s->part[s->n] = '\0';
        s->n = 0;
        unsigned long long a, b;
        if (sscanf(s->part, "ack %llu %llu", &a, &b) == 2) {
            s->ack_gen = a;
            s->ack_d = b;
            s->acks++;
            s->have_int = false;
        } else if (sscanf(s->part, "intent %llu %llu", &a, &b) == 2) {
            s->int_gen = a;
            s->int_d = b;
            s->have_int = true;
        }
    }
}

static void crash_test(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/crash.db", dir);
    unsigned seed = 12345;
    int good = 0, acked_total = 0;
    int nkills = kills();
    for (int round = 0; round < nkills; round++) {
        int fds[2];
        if (pipe(fds) < 0)
            break;
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            child(path, fds[1], seed + (unsigned)round);
            _exit(0);
        }
        close(fds[1]);
        /* Let it work: most rounds wait for its first acknowledged save
         * (slow under valgrind), then a random 0-30 ms; every fourth round
         * kills it at a random early instant (loading, first save). */
        struct said said = {0};
        long wait_ms = round % 4 == 3 ? (long)(rand_r(&seed) % 15) : 10000;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        bool waiting_first = round % 4 != 3;
        for (;;) {
            struct timespec t1;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
            if (el >= wait_ms)
                break;
            struct pollfd pf = {fds[0], POLLIN, 0};
            if (poll(&pf, 1, (int)(wait_ms - el)) <= 0)
                continue;
            char buf[4096];
            ssize_t r = read(fds[0], buf, sizeof(buf));
            if (r <= 0)
                break;
            said_feed(&said, buf, (size_t)r);
            if (waiting_first && said.acks > 0) {
                waiting_first = false;
                wait_ms = el + (long)(rand_r(&seed) % 31);
            }
        }
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        char buf[4096];
        ssize_t r;
        while ((r = read(fds[0], buf, sizeof(buf))) > 0)
            said_feed(&said, buf, (size_t)r);
        close(fds[0]);
        unsigned long long ack_gen = said.ack_gen, ack_d = said.ack_d, int_gen = said.int_gen,
                           int_d = said.int_d;
        bool have_ack = said.acks > 0, have_int = said.have_int;
        int acks = said.acks;
        acked_total += acks;
        bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
        grove_error_t err;
        grove_store_t *st = grove_store_open(path, 0, &err);
        if (!st) {
            /* killed before the store existed (possible only at once) */
            good += !have_ack;
            continue;
        }
        int chk = grove_store_check(st, &err);
        struct state s = {0};
        int lrc = grove_store_generation(st) > 0 ? load(st, &s, &err) : 0;
        unsigned long long gen = (unsigned long long)grove_store_generation(st);
        unsigned long long d = s.g ? digest(s.g, s.m, s.a) : 0;
        bool state_ok;
        if (have_int && gen == int_gen)
            state_ok = d == int_d; /* the save under way had committed */
        else if (have_ack)
            state_ok = gen == ack_gen && d == ack_d;
        else
            state_ok = true; /* nothing acknowledged in this round: an earlier state */
        bool pass = killed && chk == 0 && lrc == 0 && state_ok;
        if (!pass)
            diag("round %d: killed %d check %d (%s) load %d gen %llu ack %llu/%d intent %llu/%d",
                 round, killed, chk, chk ? err.text : "", lrc, gen, ack_gen, have_ack, int_gen,
                 have_int);
        good += pass;
        state_free(&s);
        grove_store_close(st);
    }
    is_int(good, nkills, "crash test: %d kills, every acknowledged save there, nothing corrupt",
           nkills);
    ok(acked_total >= nkills / 2, "crash test: the children acknowledged %d saves", acked_total);
}

/* Creation is atomic: a child creates fresh stores c<round>-<k>.db one
 * after another until it is killed at a random instant (it is nearly
 * always in the middle of one); every name then holds a complete store
 * (opened read-only, checked) or none.  The child tells each store it
 * finished through a pipe, and is killed a random 0-30 ms after its
 * first: however slow the machine, every round creates a store and cuts
 * the next one short. */
static void crash_create_test(void)
{
    unsigned seed = 777;
    int good = 0, total = 0, stores = 0;
    int nkills = kills();
    for (int round = 0; round < nkills; round++) {
        int fds[2];
        if (pipe(fds) < 0) {
            perror("pipe");
            exit(2);
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            for (int k = 0;; k++) {
                char p[512];
                grove_error_t e;
                snprintf(p, sizeof(p), "%s/c%d-%d.db", dir, round, k);
                grove_store_close(grove_store_open(p, GROVE_STORE_CREATE, &e));
                if (write(fds[1], "c", 1) < 0)
                    _exit(1);
            }
        }
        close(fds[1]);
        char c;
        struct pollfd pf = {fds[0], POLLIN, 0};
        if (poll(&pf, 1, 120000) > 0 && read(fds[0], &c, 1) == 1) {
            struct timespec ts = {0, (long)(rand_r(&seed) % 31) * 1000000L};
            nanosleep(&ts, NULL);
        }
        kill(pid, SIGKILL);
        close(fds[0]);
        waitpid(pid, NULL, 0);
        for (int k = 0;; k++) {
            char p[512];
            grove_error_t err;
            snprintf(p, sizeof(p), "%s/c%d-%d.db", dir, round, k);
            if (access(p, F_OK) < 0) {
                good += errno == ENOENT;
                break;
            }
            total++;
            grove_store_t *st = grove_store_open(p, GROVE_STORE_READONLY, &err);
            bool pass = st && grove_store_check(st, &err) == 0;
            if (!pass)
                diag("round %d, store %d: %s", round, k, err.text);
            stores += pass;
            grove_store_close(st);
        }
    }
    is_int(good, nkills, "crash at creation: %d kills, each left names that hold nothing after "
                         "the last store", nkills);
    ok(total >= nkills, "crash at creation: the children created %d stores", total);
    is_int(stores, total, "crash at creation: all %d stores created are complete", total);
}

int main(void)
{
    snprintf(dir, sizeof(dir), "%s/grove-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    round_trips();
    requests_kept();
    refusals();
    crash_test();
    crash_create_test();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
