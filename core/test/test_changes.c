/* test_changes.c: saves of the entire resource set or only what changed
 * (changes.h) to JGF, state files and a child's R, applied back; and the
 * other RFC 16 draft and RFC 31 / RFC 28 calls of the model in C: the
 * allocated and available sets in one call each, a host name matched as
 * a property, the current protocol's error response.
 *
 * It must not hold the store's round trips (test_store.c) nor the
 * matcher's corpus (test_match.c); graphs come from grovetest.h.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acquire.h"
#include "changes.h"
#include "jgf.h"
#include "match.h"
#include "pool.h"
#include "rv1.h"
#include "tap.h"
#include "grovetest.h"

/* cluster0 > node0-3 (ranks 0-3) > core0-3 */
static grove_graph_t *four(void)
{
    return test_cluster(&(test_shape_t){.nodes = 4, .cores = 4});
}

/* Match text (a jobspec) in mode; the job, or NULL with errno. */
static const grove_job_t *match(grove_matcher_t *m, const char *text, grove_match_mode_t mode)
{
    grove_jobspec_t *js = grove_jobspec_parse(text, strlen(text), NULL, NULL);
    if (!js) {
        fprintf(stderr, "jobspec: %s\n", strerror(errno));
        exit(2);
    }
    const grove_job_t *j = NULL;
    int rc = grove_match(m, js, mode, 0, &j, NULL);
    grove_jobspec_destroy(js);
    return rc < 0 ? NULL : j;
}

/* A jobspec of one node with c cores, constraint (JSON, or NULL). */
static const char *one_node(int c, const char *constraint, char *buf, size_t n)
{
    snprintf(buf, n,
             "{\"version\":1,\"resources\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":"
             "\"slot\",\"count\":1,\"label\":\"s\",\"with\":[{\"type\":\"core\",\"count\":%d}]}]}"
             "],\"tasks\":[{\"command\":[\"a\"],\"slot\":\"s\",\"count\":{\"per_slot\":1}}],"
             "\"attributes\":{\"system\":{\"duration\":100%s%s}}}",
             c, constraint ? ",\"constraints\":" : "", constraint ? constraint : "");
    return buf;
}

/* The contents of the file at path (caller frees), its length in *len. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *t = calloc(1, 1 << 20);
    *len = f && t ? fread(t, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    return t;
}

/* The number of members of the array at key path a.b in the JSON text. */
static long count(const char *text, const char *a, const char *b)
{
    json_t *doc = json_loads(text, 0, NULL);
    json_t *x = json_object_get(json_object_get(doc, a), b);
    long n = json_is_array(x) ? (long)json_array_size(x) : -1;
    json_decref(doc);
    return n;
}

static void jgf_changes(grove_graph_t *g, grove_matcher_t *m)
{
    grove_mark_t *mk = grove_mark_create();
    grove_error_t err;
    char buf[640];
    ok(!grove_jgf_save(g, 0, GROVE_SAVE_CHANGED, NULL, &err) && errno == EINVAL,
       "changed without a mark: EINVAL (%s)", err.text);
    char *full0 = grove_jgf_save(g, GROVE_JGF_WITH_STATE, 0, mk, &err);
    is_int(grove_mark_generation(mk), 1, "an entire save moves the mark");
    is_str(grove_mark_kind(mk), "jgf", "its kind");
    const grove_job_t *j = match(m, one_node(2, NULL, buf, sizeof(buf)), GROVE_MATCH_ALLOCATE);
    ok(j != NULL, "a job of two cores");
    char *ch = grove_jgf_save(g, GROVE_JGF_WITH_STATE, GROVE_SAVE_CHANGED, mk, &err);
    char *full1 = grove_jgf_write(g, GROVE_JGF_WITH_STATE);
    is_int(count(ch, "graph", "nodes"), 2, "the changes hold the two cores the job holds");
    is_int(count(ch, "graph", "edges"), 0, "and no edge");
    char *applied = grove_changes_apply(full0, strlen(full0), ch, strlen(ch), NULL, &err);
    ok(applied && test_same_json(applied, full1),
       "applied to the entire save, the entire next one");
    ok(!grove_changes_apply(full1, strlen(full1), ch, strlen(ch), NULL, &err) && errno == EINVAL
           && strstr(err.text, "another save"),
       "applied to another save: EINVAL (%s)", err.text);
    ok(!grove_jgf_save(g, 0, GROVE_SAVE_CHANGED, mk, &err) && errno == EINVAL
           && grove_mark_generation(mk) == 2,
       "other JGF options through the mark: EINVAL, the mark unchanged (%s)", err.text);
    grove_mark_destroy(NULL);
    free(full0);
    free(full1);
    free(ch);
    free(applied);
    grove_mark_destroy(mk);
}

static void state_and_child(grove_graph_t *g, grove_matcher_t *m)
{
    grove_mark_t *ms = grove_mark_create(), *mr = grove_mark_create();
    grove_error_t err;
    char buf[640], path[64], path2[64];
    snprintf(path, sizeof(path), "/tmp/grove-changes-%d.json", (int)getpid());
    snprintf(path2, sizeof(path2), "/tmp/grove-changes-%d.full.json", (int)getpid());
    ok(grove_state_save(path, g, m, NULL, 0, ms, &err) == 0, "an entire state file");
    size_t l0;
    char *s0 = read_file(path, &l0);
    const grove_job_t *j = match(m, one_node(4, NULL, buf, sizeof(buf)), GROVE_MATCH_ALLOCATE);
    grove_jobid_t id = j ? j->id : 0;
    ok(j && grove_child_save(g, j, GROVE_SAVE_CHANGED, NULL, &err) == NULL && errno == EINVAL,
       "a child's changed R without a mark: EINVAL");
    char *r0 = j ? grove_child_save(g, j, 0, mr, &err) : NULL;
    ok(r0 != NULL, "a child's entire R");
    ok(grove_state_save(path, g, m, NULL, GROVE_SAVE_CHANGED, ms, &err) == 0
           && grove_state_save(path2, g, m, NULL, 0, NULL, &err) == 0,
       "the changes, and the entire state beside");
    size_t l1, lf;
    char *s1 = read_file(path, &l1), *sf = read_file(path2, &lf);
    is_int(count(s1, "grove", "jobs"), 1, "the changes hold the one new job");
    is_int(count(s1, "graph", "nodes"), 4, "and the vertices it holds: the node's four cores");
    char *ap = grove_changes_apply(s0, l0, s1, l1, "delta", &err);
    ok(ap && test_same_json(ap, sf), "applied to the first save: the entire state");
    /* a grow by a second node: the child's changes add that node's part */
    grove_jobspec_t *js = grove_jobspec_parse(one_node(1, NULL, buf, sizeof(buf)), strlen(buf),
                                              NULL, NULL);
    const grove_job_t *gj = NULL;
    ok(js && grove_match_grow(m, js, id, &gj, NULL) == 0, "the job grows");
    grove_jobspec_destroy(js);
    j = grove_matcher_job(m, id);
    char *rc = grove_child_save(g, j, GROVE_SAVE_CHANGED, mr, &err);
    char *r1 = grove_child_save(g, j, 0, NULL, &err);
    json_t *doc = rc ? json_loads(rc, 0, NULL) : NULL;
    grove_rv1_t *added = grove_rv1_from_json(json_object_get(doc, "added"), "added", &err);
    ok(added && grove_rv1_count(added, "core") == 1 && json_is_null(json_object_get(doc, "removed")),
       "the child's changes: one core added, nothing removed");
    char *ra = rc ? grove_changes_apply(r0, strlen(r0), rc, strlen(rc), NULL, &err) : NULL;
    ok(ra && test_same_json(ra, r1), "applied to the first R: the entire R");
    grove_rv1_destroy(added);
    json_decref(doc);
    unlink(path);
    unlink(path2);
    free(s0);
    free(s1);
    free(sf);
    free(ap);
    free(r0);
    free(r1);
    free(rc);
    free(ra);
    grove_mark_destroy(ms);
    grove_mark_destroy(mr);
}

/* RFC 16's Allocated and Available, a host name as a property (RFC 31 as
 * flux-core applies it): each one call. */
static void model_calls(grove_graph_t *g, grove_matcher_t *m)
{
    char buf[640];
    const grove_job_t *j = match(m, one_node(4, "{\"properties\":[\"node2\"]}", buf, sizeof(buf)),
                                 GROVE_MATCH_ALLOCATE);
    grove_vid_t host = GROVE_VID_NONE;
    for (size_t i = 0; j && i < j->npicks; i++)
        if (!strcmp(grove_vertex_type(g, j->picks[i].v), "node"))
            host = j->picks[i].v;
    is_str(host != GROVE_VID_NONE ? grove_vertex_name(g, host) : "none", "node2",
           "properties [node2]: placed on node2");
    int others = 0;
    for (int k = 0; k < 3; k++) {
        const grove_job_t *o =
            match(m, one_node(4, "{\"properties\":[\"^node2\"]}", buf, sizeof(buf)),
                  GROVE_MATCH_ALLOCATE);
        others += o != NULL;
    }
    ok(others == 3
           && !match(m, one_node(1, "{\"properties\":[\"^node2\"]}", buf, sizeof(buf)),
                     GROVE_MATCH_ALLOCATE),
       "^node2: the three other nodes, then nothing");
    grove_vid_t *vids = NULL;
    size_t n = 0;
    ok(grove_graph_allocated_at(g, 0, &vids, &n) == 0 && n == 16,
       "allocated now, one call: the 16 cores");
    free(vids);
    vids = NULL;
    ok(grove_graph_available_during(g, 100, 200, &vids, &n) == 0 && n == 21,
       "available after the jobs end, one call: all 21 vertices");
    free(vids);
    ok(grove_graph_available_during(g, 200, 100, &vids, &n) < 0 && errno == EINVAL,
       "an end before the start: EINVAL");
}

/* RFC 28's current error response, in each of its forms: the stream's
 * failure. */
static void error_responses(void)
{
    static const char *const errors[] = {
        "{\"errnum\":71,\"errstr\":\"lost\"}",
        "{\"error\":{\"errnum\":71,\"errstr\":\"lost\"}}",
        "{\"error\":\"lost\"}",
    };
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        grove_graph_t *g2 = grove_graph_create();
        grove_acquire_t *a = grove_acquire_create(g2, NULL, NULL, GROVE_ACQUIRE_CURRENT);
        static const char first[] =
            "{\"resources\":{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\","
            "\"children\":{\"core\":\"0\"}}],\"starttime\":0,\"expiration\":0,\"nodelist\":"
            "[\"x0\"]}},\"up\":\"0\"}";
        grove_error_t err;
        ok(a && grove_acquire_apply(a, first, strlen(first), NULL, &err) == 0
               && grove_acquire_apply(a, errors[i], strlen(errors[i]), NULL, &err) == 0
               && grove_acquire_failure(a) && strstr(grove_acquire_failure(a), "lost"),
           "current protocol error response %s: accepted, the stream's failure", errors[i]);
        grove_acquire_destroy(a);
        grove_graph_destroy(g2);
    }
}

/* Run test on a fresh four() and a matcher over it, then destroy both. */
static void with_four(void (*test)(grove_graph_t *g, grove_matcher_t *m))
{
    grove_graph_t *g = four();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    test(g, m);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

int main(void)
{
    with_four(jgf_changes);
    with_four(state_and_child);
    with_four(model_calls);
    error_responses();
    return done_testing();
}
