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
#include "jgf.h"
#include "jobspec.h"
#include "match.h"
#include "rv1.h"
#include "tap.h"
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

static void run(const char *name, grove_acquire_protocol_t proto, const struct step *steps)
{
    grove_graph_t *g = grove_graph_create();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_acquire_t *a = grove_acquire_create(g, m, NULL, proto);
    for (size_t i = 0; steps[i].op != END; i++) {
        const struct step *s = &steps[i];
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
            is_int(id, s->want, "%s %zu: match %s cores -> %ld", name, i, s->arg, s->want);
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
            ok(status_match(g, s->sets), "%s %zu: statuses %s", name, i, s->sets);
            break;
        case END:
            break;
        }
        e = rc < 0 ? errno : 0;
        grove_idset_destroy(ids);
        if (s->op == STATUS || s->op == ALLOC || s->op == RESERVE || s->op == SAT) {
            free(gbefore);
            continue;
        }
        if (s->want) {
            ok(rc < 0 && e == s->want, "%s %zu: refused with %s (got rc %d, %s)", name, i,
               strerror((int)s->want), rc, strerror(e));
            if (s->msg)
                is_str(err.text, s->msg, "%s %zu: message", name, i);
            sets_text(a, after, sizeof(after));
            char *gafter = test_state_text(g);
            ok(!strcmp(before, after) && gbefore && gafter && !strcmp(gbefore, gafter),
               "%s %zu: nothing changed", name, i);
            free(gafter);
        } else {
            if (!ok(rc == 0, "%s %zu: accepted", name, i))
                diag("refused: %s (%s)", err.text, strerror(e));
        }
        if (s->sets) {
            sets_text(a, after, sizeof(after));
            is_str(after, s->sets, "%s %zu: sets", name, i);
        }
        if (s->events && !ok(events_match(events, s->events), "%s %zu: events %s", name, i,
                             s->events))
            diag("got %s", events ? events : "(none)");
        free(events);
        free(gbefore);
    }
    /* ending: cancel every job, then the pending targets go */
    grove_acquire_destroy(a);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* ---- version 1 ------------------------------------------------------------------ */

static const struct step v1_session[] = {
    /* before the first grow */
    {MSG, "{\"type\":\"online\",\"targets\":\"0\"}", EINVAL,
     "online: no resources acquired yet (the first response must be a grow)", NULL, NULL},
    {MSG, "{\"type\":\"shrink\",\"targets\":\"0\"}", EINVAL,
     "shrink: no resources acquired yet (the first response must be a grow)", NULL, NULL},
    {DRAIN, "0", EINVAL, "drain: no resources acquired yet", NULL, NULL},
    /* bad grows */
    {MSG, "{\"type\":\"grow\",\"online\":\"0\",\"offline\":\"\"}", EINVAL,
     "grow: missing key 'resources'", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":[],\"online\":\"0\",\"offline\":\"\"}", EINVAL,
     "grow: resources: expected an R object, got an array", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":{\"version\":2},\"online\":\"\",\"offline\":\"\"}",
     EINVAL, NULL, NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"offline\":\"\"}",
     EINVAL, "grow: missing key 'online'", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":3,"
          "\"offline\":\"\"}",
     EINVAL, "grow: online: expected an idset string, got a number", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"3-1\","
          "\"offline\":\"\"}",
     EINVAL, NULL, NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"0-4\","
          "\"offline\":\"\"}",
     EINVAL, "grow: online: target 4 is not in resources", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"0\","
          "\"offline\":\"7\"}",
     EINVAL, "grow: offline: target 7 is not in resources", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"0-1\","
          "\"offline\":\"1-3\"}",
     EINVAL, "grow: target 1 is both online and offline", NULL, NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"0-1\","
          "\"offline\":\"2-3\",\"colour\":1}",
     EINVAL, "grow: unknown key 'colour' (expected type, resources, online, offline)", NULL,
     NULL},
    /* not JSON, not an object, an unknown type, a bad type */
    {MSG, "{\"type\":", EINVAL, NULL, NULL, NULL},
    {MSG, "[1,2]", EINVAL, "response: expected a JSON object, got an array", NULL, NULL},
    {MSG, "{\"type\":\"expand\",\"targets\":\"0\"}", EINVAL,
     "response: unknown type 'expand' (expected grow, shrink, online, offline or error)", NULL,
     NULL},
    {MSG, "{\"type\":7}", EINVAL, "response: type: expected a string, got a number", NULL,
     NULL},
    {MSG, "{\"type\":\"grow\",\"type\":\"shrink\"}", EINVAL, NULL, NULL, NULL},
    /* the first grow: targets 0-3, 0-1 online */
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"0-1\","
          "\"offline\":\"2-3\"}",
     0, NULL,
     "acquired=0-3 up=0-1 down=2-3 drained= excluded= shrunk= pending=",
     "{\"release\":[],\"exceptions\":[],\"reservations\":[],\"removed\":\"\","
     "\"reevaluate\":true}"},
    {STATUS, NULL, 0, NULL, "0=up 1=up 2=down 3=down 4=-", NULL},
    /* a current-protocol response in a version 1 session */
    {MSG, "{\"up\":\"2\"}", EINVAL,
     "response: no type: a current-protocol response in a session that uses version 1",
     NULL, NULL},
    /* grow of an acquired target */
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("3-4", "node[3-4]") ",\"online\":\"3-4\","
          "\"offline\":\"\"}",
     EEXIST, "grow: target 3 is already acquired", NULL, NULL},
    /* online/offline: bad targets */
    {MSG, "{\"type\":\"online\",\"targets\":\"2,9\"}", ENOENT,
     "online: targets: target 9 was never acquired", NULL, NULL},
    {MSG, "{\"type\":\"online\"}", EINVAL, "online: missing key 'targets'", NULL, NULL},
    {MSG, "{\"type\":\"offline\",\"targets\":\"x\"}", EINVAL, NULL, NULL, NULL},
    {MSG, "{\"type\":\"online\",\"targets\":\"2\",\"online\":\"3\"}", EINVAL,
     "online: unknown key 'online' (expected type, targets)", NULL, NULL},
    {MSG, "{\"type\":\"online\",\"targets\":\"2\"}", 0, NULL,
     "acquired=0-3 up=0-2 down=3 drained= excluded= shrunk= pending=",
     "{\"reevaluate\":false}"},
    {MSG, "{\"type\":\"online\",\"targets\":\"2\"}", 0, NULL,
     "acquired=0-3 up=0-2 down=3 drained= excluded= shrunk= pending=", NULL},
    /* down targets are never chosen, but count for satisfiability */
    {ALLOC, "4", 1, NULL, NULL, NULL},
    {ALLOC, "4", 2, NULL, NULL, NULL},
    {ALLOC, "2", 3, NULL, NULL, NULL},
    {ALLOC, "2", 4, NULL, NULL, NULL},
    {ALLOC, "1", -EBUSY, NULL, NULL, NULL},
    {SAT, "4", 0, NULL, NULL, NULL},
    {SAT, "5", -ENODEV, NULL, NULL, NULL},
    /* offline with a job: no exception */
    {MSG, "{\"type\":\"offline\",\"targets\":\"0\"}", 0, NULL,
     "acquired=0-3 up=1-2 down=0,3 drained= excluded= shrunk= pending=",
     "{\"exceptions\":[],\"release\":[]}"},
    {STATUS, NULL, 0, NULL, "0=down 1=up 2=up 3=down", NULL},
    /* drain / exclude */
    {DRAIN, "1,7", ENOENT, "drain: targets: target 7 was never acquired", NULL, NULL},
    {DRAIN, "1", 0, NULL, "acquired=0-3 up=1-2 down=0,3 drained=1 excluded= shrunk= pending=",
     NULL},
    {EXCLUDE, "3", 0, NULL,
     "acquired=0-3 up=1-2 down=0,3 drained=1 excluded=3 shrunk= pending=", NULL},
    {STATUS, NULL, 0, NULL, "0=down 1=drained 2=up 3=excluded", NULL},
    {MSG, "{\"type\":\"online\",\"targets\":\"0,3\"}", 0, NULL,
     "acquired=0-3 up=0-3 down= drained=1 excluded=3 shrunk= pending=", NULL},
    {STATUS, NULL, 0, NULL, "0=up 1=drained 2=up 3=excluded", NULL},
    {CANCEL, "2", 0, NULL, NULL, NULL},
    {ALLOC, "1", -EBUSY, NULL, NULL, NULL}, /* 0 and 2 full, 1 drained, 3 excluded */
    {UNDRAIN, "1", 0, NULL, "acquired=0-3 up=0-3 down= drained= excluded=3 shrunk= pending=",
     NULL},
    {ALLOC, "4", 7, NULL, NULL, NULL}, /* node1 (failed matches use up ids 5, 6) */
    {INCLUDE, "3", 0, NULL, "acquired=0-3 up=0-3 down= drained= excluded= shrunk= pending=",
     NULL},
    {STATUS, NULL, 0, NULL, "0=up 1=up 2=up 3=up", NULL},
    {ALLOC, "4", 8, NULL, NULL, NULL},   /* node3 */
    {RESERVE, "4", 9, NULL, NULL, NULL}, /* node0 at t=100 */
    /* shrink 2-3: jobs 3 and 4 (node2) and 8 (node3) get exceptions */
    {MSG, "{\"type\":\"shrink\",\"targets\":\"5\"}", ENOENT,
     "shrink: targets: target 5 was never acquired", NULL, NULL},
    {MSG, "{\"type\":\"shrink\",\"targets\":\"2-3\"}", 0, NULL,
     "acquired=0-1 up=0-1 down= drained= excluded= shrunk=2-3 pending=2-3",
     "{\"release\":[],\"removed\":\"\",\"reevaluate\":true,\"reservations\":[],"
     "\"exceptions\":[{\"id\":3,\"targets\":\"2\",\"note\":\"resources removed from the "
     "instance (shrink 2)\"},{\"id\":4,\"targets\":\"2\",\"note\":\"resources removed from "
     "the instance (shrink 2)\"},{\"id\":8,\"targets\":\"3\",\"note\":\"resources removed "
     "from the instance (shrink 3)\"}]}"},
    {STATUS, NULL, 0, NULL, "0=up 1=up 2=excluded 3=excluded", NULL},
    {MSG, "{\"type\":\"shrink\",\"targets\":\"3\"}", ENOENT,
     "shrink: targets: target 3 was removed by shrink", NULL, NULL},
    {MSG, "{\"type\":\"online\",\"targets\":\"2\"}", ENOENT,
     "online: targets: target 2 was removed by shrink", NULL, NULL},
    {DRAIN, "3", ENOENT, "drain: targets: target 3 was removed by shrink", NULL, NULL},
    {END, NULL, 0, NULL, NULL, NULL},
};

/* Shrink, exceptions and release requests in detail on a fresh session. */
static const struct step v1_release[] = {
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-3", "node[0-3]") ",\"online\":\"0-3\","
          "\"offline\":\"\"}",
     0, NULL, "acquired=0-3 up=0-3 down= drained= excluded= shrunk= pending=", NULL},
    {ALLOC, "4", 1, NULL, NULL, NULL},   /* node0 */
    {ALLOC, "3", 2, NULL, NULL, NULL},   /* node1 */
    {ALLOC, "1", 3, NULL, NULL, NULL},   /* node1 */
    {ALLOC, "4", 4, NULL, NULL, NULL},   /* node2 */
    {ALLOC, "4", 5, NULL, NULL, NULL},   /* node3 */
    {RESERVE, "4", 6, NULL, NULL, NULL}, /* node0 at t=100 */
    {RESERVE, "4", 7, NULL, NULL, NULL}, /* node1 at t=100 */
    /* shrink 1: jobs 2 and 3 get exceptions, reserved job 7 is planned
     * again (node2 at t=100), so it does not hold node1 back */
    {MSG, "{\"type\":\"shrink\",\"targets\":\"1\"}", 0, NULL,
     "acquired=0,2-3 up=0,2-3 down= drained= excluded= shrunk=1 pending=1",
     "{\"release\":[],\"removed\":\"\",\"reservations\":[{\"id\":7,\"targets\":\"1\","
     "\"start\":100}],"
     "\"affected\":[],"
     "\"exceptions\":[{\"id\":2,\"targets\":\"1\",\"note\":\"resources removed from the "
     "instance (shrink 1)\"},{\"id\":3,\"targets\":\"1\",\"note\":\"resources removed from "
     "the instance (shrink 1)\"}]}"},
    {UPDATE, NULL, 0, NULL, NULL, "{\"release\":[],\"removed\":\"\"}"},
    {CANCEL, "2", 0, NULL, NULL, NULL},
    {CANCEL, "3", 0, NULL, NULL, NULL},
    /* the reservation moved away: node1 is released as soon as the jobs
     * running there are gone */
    {UPDATE, NULL, 0, NULL, "acquired=0,2-3 up=0,2-3 down= drained= excluded= shrunk=1 pending=",
     "{\"release\":[{\"group\":\"default\",\"targets\":\"1\"}],\"removed\":\"1\"}"},
    {CANCEL, "7", 0, NULL, NULL, NULL},
    {UPDATE, NULL, 0, NULL, "acquired=0,2-3 up=0,2-3 down= drained= excluded= shrunk=1 pending=",
     "{\"release\":[],\"removed\":\"\"}"},
    {STATUS, NULL, 0, NULL, "0=up 1=- 2=up 3=up", NULL},
    /* never twice */
    {UPDATE, NULL, 0, NULL, NULL, "{\"release\":[],\"removed\":\"\"}"},
    /* offline then shrunk: exceptions all the same */
    /* down: the running job is affected (no exception), the reservation on
     * node0 moves to node2 at t=100 */
    {MSG, "{\"type\":\"offline\",\"targets\":\"0\"}", 0, NULL, NULL,
     "{\"exceptions\":[],\"reservations\":[{\"id\":6,\"targets\":\"0\",\"start\":100}],"
     "\"affected\":[{\"id\":1,\"targets\":\"0\",\"note\":\"targets down\"}]}"},
    {MSG, "{\"type\":\"shrink\",\"targets\":\"0,3\"}", 0, NULL,
     "acquired=2 up=2 down= drained= excluded= shrunk=0-1,3 pending=0,3",
     "{\"release\":[],\"exceptions\":[{\"id\":1,\"targets\":\"0\",\"note\":\"resources "
     "removed from the instance (shrink 0)\"},{\"id\":5,\"targets\":\"3\",\"note\":"
     "\"resources removed from the instance (shrink 3)\"}],\"reservations\":[]}"},
    {CANCEL, "5", 0, NULL, NULL, NULL},
    {UPDATE, NULL, 0, NULL, NULL,
     "{\"release\":[{\"group\":\"default\",\"targets\":\"3\"}],\"removed\":\"3\"}"},
    {CANCEL, "6", 0, NULL, NULL, NULL},
    {CANCEL, "1", 0, NULL, NULL, NULL},
    {UPDATE, NULL, 0, NULL, "acquired=2 up=2 down= drained= excluded= shrunk=0-1,3 pending=",
     "{\"release\":[{\"group\":\"default\",\"targets\":\"0\"}],\"removed\":\"0\"}"},
    /* satisfiability no longer counts removed targets */
    {SAT, "4", 0, NULL, NULL, NULL},
    {MSG, "{\"type\":\"shrink\",\"targets\":\"2\"}", 0, NULL,
     "acquired= up= down= drained= excluded= shrunk=0-3 pending=2",
     "{\"release\":[],\"exceptions\":[{\"id\":4,\"targets\":\"2\",\"note\":\"resources "
     "removed from the instance (shrink 2)\"}]}"},
    {SAT, "4", 0, NULL, NULL, NULL}, /* node2 is still there while job 4 holds it */
    {CANCEL, "4", 0, NULL, NULL, NULL},
    {UPDATE, NULL, 0, NULL, NULL,
     "{\"release\":[{\"group\":\"default\",\"targets\":\"2\"}],\"removed\":\"2\"}"},
    {SAT, "1", -ENODEV, NULL, NULL, NULL},
    /* grow them back: vertices come from R again */
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("1-2", "node[1-2]") ",\"online\":\"1\","
          "\"offline\":\"2\"}",
     0, NULL, "acquired=1-2 up=1 down=2 drained= excluded= shrunk=0,3 pending=", NULL},
    {STATUS, NULL, 0, NULL, "0=- 1=up 2=down 3=-", NULL},
    {ALLOC, "4", 8, NULL, NULL, NULL},
    {ALLOC, "1", -EBUSY, NULL, NULL, NULL},
    /* an error response ends the stream */
    {MSG, "{\"type\":\"error\",\"errnum\":\"x\"}", EINVAL,
     "error: errnum: expected an integer, got a string", NULL, NULL},
    {MSG, "{\"type\":\"error\",\"errstr\":[]}", EINVAL,
     "error: errstr: expected a string, got an array", NULL, NULL},
    {MSG, "{\"type\":\"error\",\"errstr\":\"x\",\"why\":1}", EINVAL,
     "error: unknown key 'why' (expected type, errnum, errstr)", NULL, NULL},
    {MSG, "{\"type\":\"error\",\"errnum\":71,\"errstr\":\"protocol error\"}", 0, NULL, NULL,
     "{\"error\":\"protocol error (errno 71)\"}"},
    {MSG, "{\"type\":\"online\",\"targets\":\"2\"}", EINVAL,
     "the acquisition ended with an error response (protocol error (errno 71)): no response "
     "is accepted until it is restarted",
     NULL, NULL},
    {END, NULL, 0, NULL, NULL, NULL},
};

/* A pending target grown back is restored: no release for it. */
static const struct step v1_regrow[] = {
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0-1", "node[0-1]") ",\"online\":\"0-1\","
          "\"offline\":\"\"}",
     0, NULL, NULL, NULL},
    {ALLOC, "4", 1, NULL, NULL, NULL},
    {MSG, "{\"type\":\"shrink\",\"targets\":\"0\"}", 0, NULL,
     "acquired=1 up=1 down= drained= excluded= shrunk=0 pending=0", NULL},
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("0", "node0") ",\"online\":\"0\","
          "\"offline\":\"\"}",
     0, NULL, "acquired=0-1 up=0-1 down= drained= excluded= shrunk= pending=",
     "{\"release\":[],\"removed\":\"\"}"},
    {CANCEL, "1", 0, NULL, NULL, NULL},
    {UPDATE, NULL, 0, NULL, NULL, "{\"release\":[],\"removed\":\"\"}"},
    {STATUS, NULL, 0, NULL, "0=up 1=up", NULL},
    /* a grow whose R would put a new target where the graph has another */
    {MSG, "{\"type\":\"grow\",\"resources\":" R4("5", "node1") ",\"online\":\"5\","
          "\"offline\":\"\"}",
     EEXIST,
     "grow: resources: target 5 would go at /cluster0/node1, where the graph already has "
     "node1 (rank 1)",
     NULL, NULL},
    {END, NULL, 0, NULL, NULL, NULL},
};

/* ---- current protocol ------------------------------------------------------------------ */

static const struct step cur_session[] = {
    {MSG, "{\"up\":\"0\"}", EINVAL,
     "response: no resources acquired yet (the first response must have resources and up)",
     NULL, NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") "}", EINVAL,
     "first response: missing key 'up'", NULL, NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-6\"}", EINVAL,
     "first response: up: target 6 is not in resources", NULL, NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-2\",\"down\":\"2-5\"}", EINVAL,
     "first response: target 2 is both up and down", NULL, NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-2\",\"down\":\"9\"}", EINVAL,
     "first response: down: target 9 is not in resources", NULL, NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-2\",\"shrink\":\"1\"}", EINVAL,
     "first response: unknown key 'shrink' (expected resources, up, down, expiration)", NULL,
     NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-2\",\"expiration\":-1}",
     EINVAL, "first response: expiration: must be a number >= 0, got -1", NULL, NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-2\"}", 0, NULL,
     "acquired=0-5 up=0-2 down=3-5 drained= excluded= shrunk= pending=",
     "{\"reevaluate\":true,\"release\":[]}"},
    {STATUS, NULL, 0, NULL, "0=up 2=up 3=down 5=down 6=-", NULL},
    {MSG, "{\"resources\":" R4("0-5", "node[0-5]") ",\"up\":\"0-2\"}", EEXIST,
     "response: resources were already acquired (only the first response has resources)",
     NULL, NULL},
    {MSG, "{\"type\":\"online\",\"targets\":\"3\"}", EINVAL,
     "online: a version 1 response in a session that uses the current protocol", NULL, NULL},
    {MSG, "{}", EINVAL,
     "response: empty: expected one or more of up, down, shrink, property-add, "
     "property-remove, expiration",
     NULL, NULL},
    {MSG, "{\"shink\":\"6\"}", EINVAL,
     "response: unknown key 'shink' (expected up, down, shrink, property-add, "
     "property-remove, expiration)",
     NULL, NULL},
    {MSG, "{\"up\":\"3,8\"}", ENOENT, "response: up: target 8 was never acquired", NULL, NULL},
    {MSG, "{\"up\":\"3\",\"down\":\"1-\"}", EINVAL, NULL, NULL, NULL},
    {MSG, "{\"down\":\"0\",\"shrink\":\"7\"}", ENOENT,
     "response: shrink: target 7 was never acquired", NULL, NULL},
    {MSG, "{\"property-add\":{\"fo(o\":\"0\"}}", EINVAL,
     "property-add: invalid property name 'fo(o'", NULL, NULL},
    {MSG, "{\"property-add\":{\"foo\":\"0,9\"}}", ENOENT,
     "property-add: foo: target 9 was never acquired", NULL, NULL},
    {MSG, "{\"property-add\":{\"foo\":1}}", EINVAL,
     "property-add: foo: expected an idset string, got a number", NULL, NULL},
    {MSG, "{\"property-add\":\"foo\"}", EINVAL,
     "property-add: expected an object of properties, got a string", NULL, NULL},
    {MSG, "{\"expiration\":\"soon\"}", EINVAL,
     "response: expiration: expected a number, got a string", NULL, NULL},
    {MSG, "{\"up\":\"3\",\"property-add\":{\"foo\":\"0,9\"}}", ENOENT,
     "property-add: foo: target 9 was never acquired", NULL, NULL},
    /* the spec's example (with shrink spelled right) */
    {MSG, "{\"up\":\"3-5\",\"down\":\"2,5\",\"shrink\":\"5\",\"property-add\":{\"foo\":"
          "\"0-1\"},\"property-remove\":{\"bar\":\"3\"}}",
     0, NULL, "acquired=0-4 up=0-1,3-4 down=2 drained= excluded= shrunk=5 pending=",
     "{\"release\":[],\"exceptions\":[],\"removed\":\"5\",\"reevaluate\":true}"},
    {STATUS, NULL, 0, NULL, "0=up 1=up 2=down 3=up 4=up 5=-", NULL},
    {ALLOC, "4", 1, NULL, NULL, NULL}, /* node0 */
    {ALLOC, "4", 2, NULL, NULL, NULL}, /* node1 */
    /* no exception under the current protocol, no release request */
    {MSG, "{\"down\":\"0\",\"shrink\":\"0\"}", 0, NULL,
     "acquired=1-4 up=1,3-4 down=2 drained= excluded= shrunk=0,5 pending=0",
     "{\"release\":[],\"exceptions\":[],\"removed\":\"\",\"affected\":[{\"id\":1,"
     "\"targets\":\"0\"}]}"},
    {CANCEL, "1", 0, NULL, NULL, NULL},
    {UPDATE, NULL, 0, NULL, "acquired=1-4 up=1,3-4 down=2 drained= excluded= shrunk=0,5 pending=",
     "{\"release\":[],\"removed\":\"0\"}"},
    {MSG, "{\"expiration\":12345.5}", 0, NULL, NULL, "{\"reevaluate\":true}"},
    {MSG, "{\"property-remove\":{\"foo\":\"1\"}}", 0, NULL, NULL, NULL},
    {MSG, "{\"errnum\":5}", 0, NULL, NULL, "{\"error\":\"error 5\"}"},
    {MSG, "{\"up\":\"2\"}", EINVAL,
     "the acquisition ended with an error response (error 5): no response is accepted until "
     "it is restarted",
     NULL, NULL},
    /* reconnect: the first response again; acquired targets it names are
     * kept with their jobs, the others leave quietly */
    {DISCONNECT, NULL, 0, NULL, NULL, NULL},
    {MSG, "{\"resources\":" R4("1-3,6", "node[1-3,6]") ",\"up\":\"1-3,6\"}", 0, NULL,
     "acquired=1-3,6 up=1-3,6 down= drained= excluded= shrunk=0,4-5 pending=", NULL},
    {STATUS, NULL, 0, NULL, "0=- 1=up 2=up 3=up 4=- 6=up", NULL},
    {ALLOC, "1", 3, NULL, NULL, NULL}, /* node1 is still job 2's: next free is node2 */
    {END, NULL, 0, NULL, NULL, NULL},
};

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
    struct {
        const char *doc, *msg;
    } bad[] = {
        {"[]", "acquisition state: expected an object"},
        {"{\"protocol\":\"v9\"}", "acquisition state: protocol: expected auto, v1 or current"},
        {"{\"protocol\":\"v1\",\"group\":\"\"}", "acquisition state: group: expected a non-empty string"},
        {"{\"protocol\":\"v1\",\"group\":\"g\",\"started\":1}",
         "acquisition state: started/reacquire: expected booleans"},
        {"{\"protocol\":\"v1\",\"group\":\"g\",\"started\":true,\"failure\":3}",
         "acquisition state: failure: expected null or a string"},
        {"{\"protocol\":\"v1\",\"group\":\"g\",\"started\":true,\"expiration\":-2}",
         "acquisition state: expiration: expected a number >= 0"},
        {"{\"protocol\":\"v1\",\"group\":\"g\",\"started\":true,\"expiration\":0}",
         "acquisition state: missing key 'acquired'"},
        {"{\"protocol\":\"v1\",\"group\":\"g\",\"started\":true,\"expiration\":0,\"acquired\":\"1-0\"}",
         NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *d = json_loads(bad[i].doc, 0, NULL);
        ok(grove_acquire_from_json(b, d, &err) < 0 && errno == EINVAL, "bad state %zu refused",
           i);
        if (bad[i].msg)
            is_str(err.text, bad[i].msg, "bad state %zu message", i);
        json_decref(d);
    }
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
    grove_acquire_destroy(NULL);
    grove_acquire_destroy(a);
    grove_graph_destroy(g);
}

/* ---- child resources ----------------------------------------------------------------------- */

static void child(void)
{
    /* node with 4 cores and a 16-unit memory pool; the job takes 2 cores, 4
     * units */
    grove_graph_t *g = grove_graph_create();
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "cluster";
    info.id = 0;
    grove_vid_t c = grove_graph_add_vertex(g, &info);
    info.type = "node";
    info.rank = 0;
    info.name = "n0";
    grove_vid_t n = grove_graph_add_vertex(g, &info);
    grove_graph_add_child(g, c, n, NULL, NULL);
    info.name = NULL;
    info.rank = GROVE_ID_NONE;
    for (int k = 0; k < 4; k++) {
        info.type = "core";
        info.id = k;
        grove_graph_add_child(g, n, grove_graph_add_vertex(g, &info), NULL, NULL);
    }
    info.type = "memory";
    info.id = 0;
    info.size = 16;
    grove_graph_add_child(g, n, grove_graph_add_vertex(g, &info), NULL, NULL);
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
    run("v1", GROVE_ACQUIRE_AUTO, v1_session);
    run("v1-release", GROVE_ACQUIRE_V1, v1_release);
    run("v1-regrow", GROVE_ACQUIRE_AUTO, v1_regrow);
    run("current", GROVE_ACQUIRE_AUTO, cur_session);
    config_graph();
    state_json();
    child();
    done_testing();
}
