/* test_acquire.c: the RFC 28 acquisition state machine.  Scripted sessions
 * (version 1 and current protocol) run as tables of steps: each step
 * applies a response or a command and checks the outcome (errno and the
 * exact message of a refusal), the target sets afterwards, the events, the
 * status of the rank roots and the size of the graph.  Every refusal row
 * also checks that nothing changed (sets, graph, statuses).  Then the
 * state as JSON, child resources, and misuse.
 *
 * It must not build graphs or draw random numbers of its own: those
 * come from grovetest.h and rng.h.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acquire.h"
#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"
#include "jobspec.h"
#include "match.h"
#include "rv1.h"
#include "tap.h"
#include "corpus.h"
#include "grovetest.h"

/* R of ranks `ranks` with cores 0-3 on each, hosts node<rank>. */
#define R4(ranks, hosts)                                                                     \
    "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"" ranks "\",\"children\":"      \
    "{\"core\":\"0-3\"}}],\"nodelist\":[\"" hosts "\"],\"starttime\":0,\"expiration\":0}}"

enum op {
    MSG,        /* apply arg */
    DRAIN,      /* drain arg */
    UNDRAIN,
    EXCLUDE,
    INCLUDE,
    ALLOC,      /* allocate arg cores on one node; want = job id or -errno */
    RESERVE,    /* allocate or else reserve arg cores on one node for 100 s */
    CANCEL,     /* cancel job arg */
    UPDATE,     /* grove_acquire_update */
    DISCONNECT, /* grove_acquire_disconnect */
    SAT,        /* satisfiability of arg cores on one node: want 0 or -ENODEV */
    STATUS,     /* rank root statuses: sets is "r=status ..." ("-": no vertices) */
    END
};

struct step {
    enum op op;
    const char *arg;
    long want;          /* MSG/commands: 0 or an errno; ALLOC: job id or -errno */
    const char *msg;    /* exact refusal message, or NULL */
    const char *sets;   /* "acquired=.. up=.. down=.. drained=.. excluded=.. shrunk=.. pending=..", or NULL */
    const char *events; /* JSON the events must equal (keys given only), or NULL */
};

static const grove_acquire_set_t shown[] = {
    GROVE_TARGETS_ACQUIRED, GROVE_TARGETS_UP,     GROVE_TARGETS_DOWN,    GROVE_TARGETS_DRAINED,
    GROVE_TARGETS_EXCLUDED, GROVE_TARGETS_SHRUNK, GROVE_TARGETS_PENDING,
};

static void sets_text(const grove_acquire_t *a, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
        char *t = grove_idset_encode(grove_acquire_targets(a, shown[i]), GROVE_IDSET_FLAG_RANGE);
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "",
                              grove_acquire_set_name(shown[i]), t ? t : "?");
        free(t);
    }
}

static const char *cores_head = "version: 9999\n"
                                "resources:\n"
                                "  - type: node\n"
                                "    count: 1\n"
                                "    with:\n"
                                "      - type: slot\n"
                                "        count: 1\n"
                                "        label: default\n"
                                "        with:\n"
                                "          - type: core\n"
                                "            count: ";
static const char *cores_tail = "\n"
                                "tasks:\n"
                                "  - command: [app]\n"
                                "    slot: default\n"
                                "    count: {per_slot: 1}\n"
                                "attributes: {system: {duration: 100}}\n";

static int match_cores(grove_matcher_t *m, const char *n, grove_match_mode_t mode)
{
    char text[1024];
    snprintf(text, sizeof(text), "%s%s%s", cores_head, n, cores_tail);
    grove_jobspec_t *js = grove_jobspec_parse(text, strlen(text), NULL, NULL);
    if (!js)
        return -EINVAL;
    const grove_job_t *job = NULL;
    int rc = grove_match(m, js, mode, 0, &job, NULL);
    int e = errno;
    grove_jobspec_destroy(js);
    if (rc < 0)
        return -e;
    return mode == GROVE_MATCH_SATISFIABILITY ? 0 : (int)job->id;
}

/* Do the events JSON hold every key of want with an equal value? */
static bool events_match(const char *got, const char *want)
{
    json_t *g = got ? json_loads(got, 0, NULL) : NULL;
    json_t *w = json_loads(want, 0, NULL);
    bool same = g && w;
    const char *k;
    json_t *v;
    if (same)
        json_object_foreach(w, k, v) {
            if (!json_equal(json_object_get(g, k), v))
                same = false;
        }
    json_decref(g);
    json_decref(w);
    return same;
}

static bool status_match(const grove_graph_t *g, const char *spec)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", spec);
    bool okay = true;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        unsigned r = (unsigned)strtoul(tok, NULL, 10);
        const char *want = strchr(tok, '=') + 1;
        grove_vid_t roots[4];
        size_t n = grove_acquire_rank_roots(g, r, roots, 4);
        if (!strcmp(want, "-")) {
            if (n != 0) {
                diag("rank %u: %zu rank roots, want none", r, n);
                okay = false;
            }
            continue;
        }
        if (n != 1 || strcmp(grove_status_name(grove_vertex_status(g, roots[0])), want) != 0) {
            diag("rank %u: %zu roots, status %s, want %s", r, n,
                 n ? grove_status_name(grove_vertex_status(g, roots[0])) : "-", want);
            okay = false;
        }
    }
    return okay;
}

/* A session being run: its objects and its name in test lines. */
struct session {
    const char *name;
    grove_graph_t *g;
    grove_matcher_t *m;
    grove_acquire_t *a;
};

/* The session the rows of its file are run on (the table reader passes
 * no context). */
static struct session *session_now;

/* Run step s (line i of the session's file) and judge what it did. */
static void run_step(struct session *S, const struct step *s, int i)
{
    grove_graph_t *g = S->g;
    grove_matcher_t *m = S->m;
    grove_acquire_t *a = S->a;
    char before[512], after[512];
    sets_text(a, before, sizeof(before));
    char *gbefore = test_state_text(g);
    grove_error_t err = {{0}, 0};
    char *events = NULL;
    int rc = 0, e = 0;
    grove_idset_t *ids = NULL;
    switch (s->op) {
    case MSG:
        rc = grove_acquire_apply(a, s->arg, strlen(s->arg), &events, &err);
        break;
    case DRAIN:
    case UNDRAIN:
    case EXCLUDE:
    case INCLUDE:
        ids = grove_idset_decode(s->arg, NULL);
        rc = s->op == DRAIN || s->op == UNDRAIN
                 ? grove_acquire_drain(a, ids, s->op == DRAIN, &err)
                 : grove_acquire_exclude(a, ids, s->op == EXCLUDE, &err);
        break;
    case ALLOC:
    case RESERVE:
    case SAT: {
        grove_match_mode_t mode = s->op == ALLOC     ? GROVE_MATCH_ALLOCATE
                                  : s->op == RESERVE ? GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
                                                     : GROVE_MATCH_SATISFIABILITY;
        int id = match_cores(m, s->arg, mode);
        is_int(id, s->want, "%s line %d: match %s cores -> %ld", S->name, i, s->arg, s->want);
        break;
    }
    case CANCEL:
        rc = grove_matcher_cancel(m, (grove_jobid_t)strtoull(s->arg, NULL, 10));
        break;
    case UPDATE:
        rc = grove_acquire_update(a, &events);
        break;
    case DISCONNECT:
        rc = grove_acquire_disconnect(a);
        break;
    case STATUS:
        ok(status_match(g, s->sets), "%s line %d: statuses %s", S->name, i, s->sets);
        break;
    case END:
        break;
    }
    e = rc < 0 ? errno : 0;
    grove_idset_destroy(ids);
    if (s->op == STATUS || s->op == ALLOC || s->op == RESERVE || s->op == SAT) {
        free(gbefore);
        return;
    }
    if (s->want) {
        ok(rc < 0 && e == s->want, "%s line %d: refused with %s (got rc %d, %s)", S->name, i,
           strerror((int)s->want), rc, strerror(e));
        if (s->msg)
            is_str(err.text, s->msg, "%s line %d: message", S->name, i);
        sets_text(a, after, sizeof(after));
        char *gafter = test_state_text(g);
        ok(!strcmp(before, after) && gbefore && gafter && !strcmp(gbefore, gafter),
           "%s line %d: nothing changed", S->name, i);
        free(gafter);
    } else {
        if (!ok(rc == 0, "%s line %d: accepted", S->name, i))
            diag("refused: %s (%s)", err.text, strerror(e));
    }
    if (s->sets) {
        sets_text(a, after, sizeof(after));
        is_str(after, s->sets, "%s line %d: sets", S->name, i);
    }
    if (s->events && !ok(events_match(events, s->events), "%s line %d: events %s", S->name, i,
                         s->events))
        diag("got %s", events ? events : "(none)");
    free(events);
    free(gbefore);
}

/* The step a row of a session file names: op, arg, want, message, sets,
 * events. */
static void step_row(int lineno, char **f)
{
    static const char *const ops[] = {"MSG",     "DRAIN",  "UNDRAIN", "EXCLUDE",
                                      "INCLUDE", "ALLOC",  "RESERVE", "CANCEL",
                                      "UPDATE",  "DISCONNECT", "SAT", "STATUS"};
    struct step s = {END, corpus_field(f[1]), 0, corpus_field(f[3]), corpus_field(f[4]),
                     corpus_field(f[5])};
    for (int k = 0; k < (int)(sizeof(ops) / sizeof(ops[0])); k++)
        if (strcmp(f[0], ops[k]) == 0)
            s.op = (enum op)k;
    if (s.op == END) {
        ok(0, "%s line %d: unknown op %s", session_now->name, lineno, f[0]);
        return;
    }
    s.want = f[2][0] == '-' ? -corpus_errno(f[2] + 1) : corpus_errno(f[2]);
    run_step(session_now, &s, lineno);
}

/* Run the session of core/test/vectors/acquire_NAME.tsv on an empty graph
 * under proto. */
static void run(const char *name, grove_acquire_protocol_t proto)
{
    struct session S = {name, grove_graph_create(), NULL, NULL};
    S.m = grove_matcher_create(S.g, NULL);
    S.a = grove_acquire_create(S.g, S.m, NULL, proto);
    char file[128];
    snprintf(file, sizeof(file), "acquire_%s.tsv", name);
    session_now = &S;
    ok(vectors_run(file, 6, step_row) > 0, "%s: steps run", name);
    session_now = NULL;
    /* ending: cancel every job, then the pending targets go */
    grove_acquire_destroy(S.a);
    grove_matcher_destroy(S.m);
    grove_graph_destroy(S.g);
}

/* ---- version 1 ------------------------------------------------------------------ */


/* Shrink, exceptions and release requests in detail on a fresh session. */

/* A pending target grown back is restored: no release for it. */

/* ---- current protocol ------------------------------------------------------------------ */


/* ---- a graph loaded from configuration ------------------------------------------------------ */

static void config_graph(void)
{
    /* big0 > rack0 > node0-3 (ranks 0-3, their sockets and cores too) >
     * socket0 > core0-1 */
    grove_graph_t *g = test_cluster(&(test_shape_t){ .basename = "big", .nodes = 4,
                                                     .per_rack = 4, .sockets = 1, .cores = 2,
                                                     .rank_below = 1 });
    size_t before = grove_graph_vertex_count(g);
    grove_acquire_t *a = grove_acquire_create(g, NULL, "batch", GROVE_ACQUIRE_AUTO);
    const char *first = "{\"resources\":" R4("1-2,4", "node[1-2,4]") ",\"up\":\"1-2,4\"}";
    char *ev = NULL;
    grove_error_t err;
    ok(grove_acquire_apply(a, first, strlen(first), &ev, &err) == 0, "config: first response");
    /* ranks 0 and 3 were never acquired: gone; 1-2 kept with their sockets;
     * 4 added from R_lite under the graph's root */
    is_int(grove_graph_vertex_count(g), before - 8 + 5, "config: 2 nodes gone, 1 added");
    grove_vid_t roots[2];
    ok(grove_acquire_rank_roots(g, 0, roots, 2) == 0 && grove_acquire_rank_roots(g, 3, roots, 2) == 0,
       "config: ranks 0 and 3 unlinked");
    ok(grove_acquire_rank_roots(g, 1, roots, 2) == 1
           && grove_vertex_size(g, roots[0]) == 1
           && grove_vertex_first_child(g, roots[0], grove_graph_sym_lookup(g, "containment"), &(grove_eid_t){0})
                  != GROVE_VID_NONE
           && !strcmp(grove_vertex_type(g, grove_vertex_first_child(
                                                g, roots[0],
                                                grove_graph_sym_lookup(g, "containment"),
                                                &(grove_eid_t){0})),
                      "socket"),
       "config: rank 1 keeps its socket");
    ok(grove_acquire_rank_roots(g, 4, roots, 2) == 1, "config: rank 4 added");
    char path[128];
    grove_vertex_path(g, roots[0], grove_graph_sym_lookup(g, "containment"), path, sizeof(path));
    is_str(path, "/big0/node4", "config: rank 4 under the graph's root (renamed)");
    free(ev);
    /* group in release requests; jobs found from records (no matcher) */
    ok(grove_vertex_allocate(g, roots[0], 42, 1, 0, 100, true) == 0, "config: job 42 on rank 4");
    const char *sh = "{\"shrink\":\"4\",\"down\":\"4\"}";
    ok(grove_acquire_apply(a, sh, strlen(sh), &ev, &err) == 0, "config: shrink 4");
    free(ev);
    grove_jobid_t *jobs;
    size_t n;
    grove_idset_t *four = grove_idset_decode("4", NULL);
    ok(grove_acquire_jobs_on(a, four, &jobs, &n) == 0 && n == 1 && jobs[0] == 42,
       "config: jobs_on finds job 42 from the records");
    free(jobs);
    grove_graph_free_job(g, 42);
    ok(grove_acquire_update(a, &ev) == 0 && strstr(ev, "\"removed\":\"4\"")
           && strstr(ev, "\"release\":[]"),
       "config: removed, no release under the current protocol");
    free(ev);
    grove_idset_destroy(four);
    grove_acquire_destroy(a);
    /* version 1 with a group */
    a = grove_acquire_create(g, NULL, "batch", GROVE_ACQUIRE_V1);
    is_str(grove_acquire_group(a), "batch", "group kept");
    const char *g1 = "{\"type\":\"grow\",\"resources\":" R4("1-2", "node[1-2]")
                     ",\"online\":\"1-2\",\"offline\":\"\"}";
    ok(grove_acquire_apply(a, g1, strlen(g1), NULL, &err) == 0, "v1 on a config graph");
    const char *s1 = "{\"type\":\"shrink\",\"targets\":\"2\"}";
    ok(grove_acquire_apply(a, s1, strlen(s1), &ev, &err) == 0
           && strstr(ev, "{\"group\":\"batch\",\"targets\":\"2\"}"),
       "release request names the group");
    free(ev);
    const char *c1 = "{\"resources\":" R4("1", "node1") ",\"up\":\"1\"}";
    ok(grove_acquire_apply(a, c1, strlen(c1), NULL, &err) < 0 && errno == EINVAL,
       "a fixed protocol refuses the other one");
    grove_acquire_destroy(a);
    grove_graph_destroy(g);
}

/* ---- state as JSON, misuse ------------------------------------------------------------------ */

/* The acquisition a row of vectors/acquire_bad_states.tsv is read into. */
static grove_acquire_t *bad_target;

/* One row of vectors/acquire_bad_states.tsv: the state is refused with
 * EINVAL and the message (when the row has one). */
static void bad_state_row(int lineno, char **f)
{
    grove_error_t err = {{0}, 0};
    const char *msg = corpus_field(f[1]);
    json_t *d = json_loads(f[0], 0, NULL);
    ok(d && grove_acquire_from_json(bad_target, d, &err) < 0 && errno == EINVAL,
       "bad state, line %d refused", lineno);
    if (msg)
        is_str(err.text, msg, "bad state, line %d message", lineno);
    json_decref(d);
}

static void state_json(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_acquire_t *a = grove_acquire_create(g, NULL, NULL, GROVE_ACQUIRE_AUTO);
    const char *first = "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]")
                        ",\"online\":\"0-2\",\"offline\":\"3\"}";
    grove_error_t err;
    grove_acquire_apply(a, first, strlen(first), NULL, &err);
    grove_idset_t *one = grove_idset_decode("1", NULL);
    grove_acquire_drain(a, one, true, &err);
    json_t *st = grove_acquire_to_json(a);
    char *text = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
    is_str(text,
           "{\"acquired\":\"0-3\",\"down\":\"3\",\"drained\":\"1\",\"excluded\":\"\","
           "\"expiration\":0.0,\"failure\":null,\"group\":\"default\",\"pending\":\"\","
           "\"protocol\":\"v1\",\"quiet\":\"\",\"reacquire\":false,\"shrunk\":\"\","
           "\"started\":true,\"up\":\"0-2\"}",
           "to_json");
    grove_acquire_t *b = grove_acquire_create(g, NULL, NULL, GROVE_ACQUIRE_AUTO);
    ok(grove_acquire_from_json(b, st, &err) == 0, "from_json");
    json_t *st2 = grove_acquire_to_json(b);
    ok(json_equal(st, st2), "to_json . from_json is the identity");
    char *u = grove_idset_encode(grove_acquire_targets(b, GROVE_TARGETS_USABLE), GROVE_IDSET_FLAG_RANGE);
    is_str(u, "0,2", "usable derived on load");
    free(u);
    json_decref(st2);
    /* bad states */
    bad_target = b;
    ok(vectors_run("acquire_bad_states.tsv", 2, bad_state_row) >= 8, "bad state vectors");
    bad_target = NULL;
    json_t *st3 = grove_acquire_to_json(b);
    ok(json_equal(st, st3), "bad states changed nothing");
    json_decref(st3);
    json_decref(st);
    free(text);
    grove_idset_destroy(one);
    grove_acquire_destroy(b);
    /* names */
    is_str(grove_acquire_set_name(GROVE_TARGETS_PENDING), "pending", "set name");
    ok(grove_acquire_set_name(GROVE_TARGETS_COUNT) == NULL, "no such set");
    is_int(grove_acquire_set_parse("usable"), GROVE_TARGETS_USABLE, "set parse");
    is_int(grove_acquire_set_parse("nope"), -1, "set parse: unknown");
    is_str(grove_acquire_protocol_name(GROVE_ACQUIRE_CURRENT), "current", "protocol name");
    is_int(grove_acquire_protocol_parse("v1"), GROVE_ACQUIRE_V1, "protocol parse");
    is_int(grove_acquire_protocol_parse("v2"), -1, "protocol parse: unknown");
    /* misuse */
    grove_matcher_t *m2 = grove_matcher_create(grove_graph_create(), NULL);
    ok(grove_acquire_create(NULL, NULL, NULL, 0) == NULL && errno == EINVAL, "create: no graph");
    ok(grove_acquire_create(g, m2, NULL, 0) == NULL && errno == EINVAL,
       "create: matcher of another graph");
    ok(grove_acquire_create(g, NULL, "", 0) == NULL && errno == EINVAL, "create: empty group");
    ok(grove_acquire_create(g, NULL, NULL, 7) == NULL && errno == EINVAL, "create: protocol");
    grove_graph_t *g2 = grove_matcher_graph(m2);
    grove_matcher_destroy(m2);
    grove_graph_destroy(g2);
    ok(grove_acquire_apply(a, NULL, 0, NULL, &err) < 0 && errno == EINVAL, "apply: no text");
    ok(grove_acquire_drain(a, NULL, true, &err) < 0 && errno == EINVAL, "drain: no targets");
    ok_destroy_null(grove_acquire_destroy);
    grove_acquire_destroy(a);
    grove_graph_destroy(g);
}

/* ---- child resources ----------------------------------------------------------------------- */

static void child(void)
{
    /* node with 4 cores and a 16-unit memory pool; the job takes 2 cores, 4
     * units */
    grove_graph_t *g = test_cluster(&(test_shape_t){.nodes = 1, .cores = 4, .node_mem = 16});
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    const char *js = "{\"version\":9999,\"resources\":[{\"type\":\"node\",\"count\":1,\"with\":"
                     "[{\"type\":\"slot\",\"count\":1,\"label\":\"s\",\"with\":[{\"type\":"
                     "\"core\",\"count\":2}]},{\"type\":\"memory\",\"count\":4,\"exclusive\":"
                     "false}]}],\"tasks\":"
                     "[{\"command\":[\"a\"],\"slot\":\"s\",\"count\":{\"per_slot\":1}}],"
                     "\"attributes\":{\"system\":{\"duration\":60}}}";
    grove_jobspec_t *spec = grove_jobspec_parse(js, strlen(js), NULL, NULL);
    const grove_job_t *job = NULL;
    ok(spec && grove_match(m, spec, GROVE_MATCH_ALLOCATE, 0, &job, NULL) == 0, "child: parent job");
    grove_error_t err;
    grove_rv1_t *R = grove_acquire_child_resources(g, job, &err);
    ok(R != NULL, "child: resources");
    char *first = grove_acquire_first_response(R);
    grove_graph_t *cg = grove_graph_create();
    grove_matcher_t *cm = grove_matcher_create(cg, NULL);
    grove_acquire_t *ca = grove_acquire_create(cg, cm, NULL, GROVE_ACQUIRE_AUTO);
    ok(first && grove_acquire_apply(ca, first, strlen(first), NULL, &err) == 0,
       "child: first response applied");
    grove_sym_t mem = grove_graph_sym_lookup(cg, "memory");
    grove_vid_t mv = grove_graph_first_by_type(cg, mem);
    is_int(mv != GROVE_VID_NONE ? grove_vertex_size(cg, mv) : -1, 4,
           "child: the memory pool has the job's 4 units");
    is_int(grove_graph_count_type(cg, grove_graph_sym_lookup(cg, "core")), 2,
           "child: the job's 2 cores");
    /* the child's jobs stay inside */
    const char *js2 = "{\"version\":9999,\"resources\":[{\"type\":\"node\",\"count\":1,"
                      "\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"s\",\"with\":"
                      "[{\"type\":\"core\",\"count\":1}]},{\"type\":\"memory\",\"count\":3,"
                      "\"exclusive\":false}]}],\"tasks\":[{\"command\":[\"a\"],\"slot\":"
                      "\"s\",\"count\":{\"per_slot\":1}}],\"attributes\":{\"system\":"
                      "{\"duration\":60}}}";
    grove_jobspec_t *s2 = grove_jobspec_parse(js2, strlen(js2), NULL, NULL);
    ok(grove_match(cm, s2, GROVE_MATCH_ALLOCATE, 0, NULL, NULL) == 0, "child: a job fits");
    ok(grove_match(cm, s2, GROVE_MATCH_ALLOCATE, 0, NULL, NULL) < 0 && errno == EBUSY,
       "child: the second does not (4 units of memory)");
    free(first);
    grove_jobspec_destroy(s2);
    grove_jobspec_destroy(spec);
    grove_rv1_destroy(R);
    grove_acquire_destroy(ca);
    grove_matcher_destroy(cm);
    grove_graph_destroy(cg);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

int main(void)
{
    run("v1_session", GROVE_ACQUIRE_AUTO);
    run("v1_release", GROVE_ACQUIRE_V1);
    run("v1_regrow", GROVE_ACQUIRE_AUTO);
    run("cur_session", GROVE_ACQUIRE_AUTO);
    config_graph();
    state_json();
    child();
    done_testing();
}
