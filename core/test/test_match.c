/* test_match.c: the matcher against the outcomes of the shared corpus on
 * the tiny graph (built in C by grovetest.h, the shape of
 * grugs/tiny.graphml), plus
 * unit rows for modes, cancel and release, the horizon (the graph's
 * expiration) in every mode, and a policy scoring a level in one call (the
 * scores hook) against the same score per candidate.
 *
 * It must not build graphs vertex by vertex (grovetest.h does) nor test
 * the jobspec reader's own messages (test_jobspec.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "match.h"
#include "idset.h"
#include "rv1.h"
#include "match_private.h"
#include "tap.h"
#include "corpus.h"
#include "grovetest.h"
#include "rng.h"

/* tiny0 > rack0 > node0-1 > socket0-1 > core x18 (ids per node), gpu x1,
 * memory x4 (2 GB) */
static grove_graph_t *tiny(void)
{
    return test_cluster(&(test_shape_t){ .basename = "tiny", .nodes = 2, .per_rack = 2,
                                         .sockets = 2, .cores = 18, .gpus = 1, .mems = 4,
                                         .mem_size = 2, .mem_unit = "GB" });
}

/* "cluster=1,core=1,node=1" style summary of a job's picks (types sorted). */
static void summarize(const grove_graph_t *g, const grove_job_t *j, bool excl_only, char *out,
                      size_t len)
{
    const char *types[32];
    long long sums[32];
    size_t nt = 0;
    for (size_t i = 0; i < j->npicks; i++) {
        if (excl_only && !j->picks[i].exclusive)
            continue;
        const char *t = grove_vertex_type(g, j->picks[i].v);
        size_t k;
        for (k = 0; k < nt; k++)
            if (!strcmp(types[k], t))
                break;
        if (k == nt && nt < 32) {
            types[nt] = t;
            sums[nt++] = 0;
        }
        if (k < nt)
            sums[k] += j->picks[i].amount;
    }
    for (size_t a = 0; a < nt; a++)
        for (size_t b = a + 1; b < nt; b++)
            if (strcmp(types[a], types[b]) > 0) {
                const char *t = types[a];
                types[a] = types[b];
                types[b] = t;
                long long s = sums[a];
                sums[a] = sums[b];
                sums[b] = s;
            }
    out[0] = '\0';
    for (size_t k = 0; k < nt; k++) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s=%lld", k ? "," : "", types[k], sums[k]);
    }
    if (!out[0])
        snprintf(out, len, "-");
}

struct outcome {
    char test[32];
    char kind[32];
    char at[32];
    char res[256];
    char excl[256];
};

static struct outcome *outcomes;
static size_t noutcomes;

static void outcome_row(int lineno, char **fld)
{
    (void)lineno;
    outcomes = realloc(outcomes, (noutcomes + 1) * sizeof(*outcomes));
    struct outcome *o = &outcomes[noutcomes++];
    snprintf(o->test, sizeof(o->test), "%s", fld[0]);
    snprintf(o->kind, sizeof(o->kind), "%s", fld[4]);
    snprintf(o->at, sizeof(o->at), "%s", fld[5]);
    snprintf(o->res, sizeof(o->res), "%s", fld[6]);
    snprintf(o->excl, sizeof(o->excl), "%s", fld[7]);
}

/* Run one corpus test on tiny: returns the number of mismatches. */
static int run_test(const char *id, const char *policy, const char *cmds)
{
    grove_graph_t *g = tiny();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_matcher_set_policy(m, grove_policy_builtin(policy));
    char path[4096];
    snprintf(path, sizeof(path), "%s", tap_conformance("fluxion/"));
    char cpath[512];
    snprintf(cpath, sizeof(cpath), "fluxion/%s", cmds);
    FILE *f = fopen(tap_conformance(cpath), "r");
    size_t oi = 0;
    while (oi < noutcomes && strcmp(outcomes[oi].test, id))
        oi++;
    int bad = 0, seq = 0;
    char line[1024];
    while (f && fgets(line, sizeof(line), f)) {
        char verb[64], mode[64], file[512];
        if (sscanf(line, "%63s %63s %511s", verb, mode, file) < 2 || verb[0] == '#')
            continue;
        if (!strcmp(verb, "cancel")) {
            grove_matcher_cancel(m, strtoull(mode, NULL, 10));
            continue;
        }
        if (strcmp(verb, "match"))
            continue;
        const char *rel = strstr(file, "data/resource/");
        char jpath[8192];
        snprintf(jpath, sizeof(jpath), "%s%s", path, rel ? rel + strlen("data/resource/") : file);
        grove_match_mode_t md = !strcmp(mode, "allocate") ? GROVE_MATCH_ALLOCATE
                                : !strcmp(mode, "allocate_orelse_reserve")
                                    ? GROVE_MATCH_ALLOCATE_ORELSE_RESERVE
                                : !strcmp(mode, "allocate_with_satisfiability")
                                    ? GROVE_MATCH_ALLOCATE_WITH_SAT
                                : !strcmp(mode, "satisfiability") ? GROVE_MATCH_SATISFIABILITY
                                                                  : GROVE_MATCH_WITHOUT_ALLOCATING;
        grove_error_t err;
        grove_jobspec_t *js = grove_jobspec_load(jpath, NULL, &err);
        char kind[32] = "ERROR", at[32] = "-", res[256] = "-", ex[256] = "-";
        if (js) {
            const grove_job_t *j;
            int rc = grove_match(m, js, md, 0, &j, &err);
            if (rc == 0 && md == GROVE_MATCH_SATISFIABILITY) {
                snprintf(kind, sizeof(kind), "SATISFIABLE");
            } else if (rc == 0) {
                snprintf(kind, sizeof(kind), "%s",
                         j->state == GROVE_JOB_ALLOCATED  ? "ALLOCATED"
                         : j->state == GROVE_JOB_RESERVED ? "RESERVED"
                                                          : "MATCHED");
                snprintf(at, sizeof(at), "%lld", (long long)j->start);
                summarize(g, j, false, res, sizeof(res));
                summarize(g, j, true, ex, sizeof(ex));
            } else if (md == GROVE_MATCH_SATISFIABILITY) {
                snprintf(kind, sizeof(kind), "UNSATISFIABLE");
            } else {
                snprintf(kind, sizeof(kind), "%s",
                         errno == ENODEV && md != GROVE_MATCH_ALLOCATE ? "NOMATCH_UNSAT"
                                                                        : "NOMATCH");
            }
            grove_jobspec_destroy(js);
        }
        seq++;
        if (oi >= noutcomes || strcmp(outcomes[oi].test, id)) {
            diag("%s: no expected outcome for match %d", id, seq);
            bad++;
            continue;
        }
        struct outcome *o = &outcomes[oi++];
        bool same = !strcmp(o->kind, kind) && !strcmp(o->at, at) && !strcmp(o->res, res)
                    && !strcmp(o->excl, ex);
        if (!same) {
            diag("%s #%d: want %s at %s %s [%s]", id, seq, o->kind, o->at, o->res, o->excl);
            diag("%s #%d: got  %s at %s %s [%s]", id, seq, kind, at, res, ex);
            bad++;
        }
    }
    if (f)
        fclose(f);
    if (oi < noutcomes && !strcmp(outcomes[oi].test, id)) {
        diag("%s: expected more matches", id);
        bad++;
    }
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
    return bad;
}

/* One row of the corpus's tests.tsv: run when it is a basics or granule
 * case on tiny.graphml with the simple writer. */
static void tiny_row(int lineno, char **fld)
{
    (void)lineno;
    if (strcmp(fld[3], "grugs/tiny.graphml") || strcmp(fld[9], "-") || strcmp(fld[10], "simple"))
        return;
    if (strcmp(fld[2], "basics") && strcmp(fld[2], "granule"))
        return;
    int bad = run_test(fld[0], fld[7], fld[11]);
    ok(bad == 0, "%s %s %s (%s): outcomes as expected", fld[0], fld[2], fld[7], fld[11]);
}

static void test_corpus_tiny(void)
{
    corpus_run("fluxion/outcomes.tsv", 8, outcome_row);
    ok(noutcomes > 0, "corpus outcomes.tsv has rows");
    corpus_run("fluxion/tests.tsv", 12, tiny_row);
    free(outcomes);
}

/* A jobspec of the resources (YAML lines; a slot labelled s) for 60 s. */
static grove_jobspec_t *js_of(const char *resources)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "version: 9999\nresources:\n%s"
             "tasks: [{command: [x], slot: s, count: {per_slot: 1}}]\n"
             "attributes: {system: {duration: 60}}\n",
             resources);
    return grove_jobspec_parse(y, strlen(y), NULL, NULL);
}

static void test_next_id(void)
{
    grove_graph_t *g = tiny();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *js = js_of("- type: slot\n  count: 1\n  label: s\n"
                                "  with:\n  - type: core\n    count: 1\n");
    ok(js != NULL, "jobspec parses");
    const grove_job_t *j = NULL;
    ok(grove_matcher_set_next_id(m, 0) < 0 && errno == EINVAL, "next id 0 refused");
    ok(grove_matcher_set_next_id(m, 40) == 0 && grove_matcher_next_id(m) == 40, "next id set");
    ok(grove_match(m, js, GROVE_MATCH_ALLOCATE, 0, &j, NULL) == 0 && j->id == 40,
       "the next match takes it");
    ok(grove_matcher_set_next_id(m, 40) < 0 && errno == EINVAL,
       "an id not above the table's refused");
    ok(grove_matcher_set_next_id(m, 41) == 0, "the id after the last job is fine");
    grove_jobspec_destroy(js);
    grove_matcher_cancel(m, 40);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* A jobspec of n nodes with one core each (exclusive: the nodes whole),
 * for 60 s. */
static grove_jobspec_t *nodes_excl_js(int n, bool exclusive)
{
    char r[256];
    snprintf(r, sizeof(r),
             "- type: node\n  count: %d\n%s  with:\n"
             "  - type: slot\n    count: 1\n    label: s\n    with:\n"
             "    - type: core\n      count: 1\n",
             n, exclusive ? "  exclusive: true\n" : "");
    return js_of(r);
}

/* A jobspec of n nodes with one core each, for 60 s. */
static grove_jobspec_t *nodes_js(int n)
{
    return nodes_excl_js(n, false);
}

static void test_fits_idle(void)
{
    grove_graph_t *g = tiny();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *two = nodes_js(2), *three = nodes_js(3);
    const grove_job_t *j = NULL;
    ok(two && three && grove_match(m, two, GROVE_MATCH_WITHOUT_ALLOCATING, 0, &j, NULL) == 0,
       "a MATCHED result to keep");
    const grove_job_t *res = grove_matcher_result(m);
    size_t npicks = res ? res->npicks : 0;
    for (int i = 0; i < 36; i++)
        grove_match(m, two, GROVE_MATCH_ALLOCATE, 0, NULL, NULL);
    ok(grove_match(m, two, GROVE_MATCH_ALLOCATE, 0, NULL, NULL) < 0 && errno == EBUSY,
       "every core is held");
    grove_match_stats_t before, after;
    grove_matcher_stats(m, &before);
    is_int(grove_match_fits_idle(m, two, NULL, NULL), 1, "fits when idle: records ignored");
    is_int(grove_match_fits_idle(m, three, NULL, NULL), 0, "three nodes never fit");
    grove_matcher_stats(m, &after);
    ok(after.matches == before.matches && after.succeeded == before.succeeded,
       "the statistics do not count it");
    ok(grove_matcher_result(m) == res && res->npicks == npicks,
       "the last MATCHED result is kept");
    grove_vid_t n1 = grove_graph_first_by_name(g, grove_graph_sym(g, "node1"));
    ok(grove_vertex_set_status(g, n1, GROVE_STATUS_DOWN) == 0, "node1 down");
    is_int(grove_match_fits_idle(m, two, NULL, NULL), 0, "a node down: two no longer fit");
    ok(grove_match(m, two, GROVE_MATCH_SATISFIABILITY, 0, NULL, NULL) == 0,
       "satisfiability itself still counts the node that is down");
    is_int(grove_match_fits_idle(m, two, grove_policy_builtin("high"), NULL), 0,
           "under another policy too");
    ok(!strcmp(grove_matcher_policy(m)->name, "first"), "the matcher's policy is back");
    grove_jobspec_destroy(two);
    grove_jobspec_destroy(three);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* The node of the first node pick of j, or GROVE_VID_NONE. */
static grove_vid_t node_of(const grove_graph_t *g, const grove_job_t *j)
{
    for (size_t i = 0; i < j->npicks; i++)
        if (!strcmp(grove_vertex_type(g, j->picks[i].v), "node"))
            return j->picks[i].v;
    return GROVE_VID_NONE;
}

/* Whole nodes taken exclusively: what lies below a node is asked about
 * once, at the node (a record below annotates it), so a core held in the
 * window keeps its node out and a core held outside the window does not. */
/* Never is ENODEV in every mode, with the level the graph cannot meet;
 * not now is EBUSY. */
static void test_never(void)
{
    static const grove_match_mode_t modes[] = {
        GROVE_MATCH_ALLOCATE, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, GROVE_MATCH_ALLOCATE_WITH_SAT,
        GROVE_MATCH_SATISFIABILITY, GROVE_MATCH_WITHOUT_ALLOCATING,
        GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE};
    grove_graph_t *g = tiny();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *two = nodes_excl_js(2, true), *three = nodes_js(3);
    grove_jobspec_t *big = js_of("- type: node\n  count: 1\n  with:\n"
                                 "  - type: slot\n    count: 1\n    label: s\n    with:\n"
                                 "    - type: core\n      count: 37\n");
    for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
        grove_error_t err = {{0}, 0};
        errno = 0;
        ok(grove_match(m, three, modes[i], 0, NULL, &err) < 0 && errno == ENODEV,
           "mode %zu: three nodes of two: ENODEV", i);
        is_str(err.text, "3 nodes requested: the graph has 2", "mode %zu: the level named", i);
        errno = 0;
        ok(grove_match(m, big, modes[i], 0, NULL, &err) < 0 && errno == ENODEV,
           "mode %zu: 37 cores on a node of 36: ENODEV", i);
        is_str(err.text, "no node with 37 cores: largest has 36", "mode %zu: the level named", i);
    }
    grove_error_t err = {{0}, 0};
    ok(grove_match(m, two, GROVE_MATCH_ALLOCATE, 0, NULL, NULL) == 0, "both nodes held whole");
    errno = 0;
    ok(grove_match(m, two, GROVE_MATCH_ALLOCATE, 0, NULL, &err) < 0 && errno == EBUSY,
       "then two nodes are busy, not never");
    is_str(err.text, "no matching resources", "busy: the plain message");
    /* told not to look for never: a failed match is EBUSY in the modes
     * that place or reserve, whatever the request; the modes whose answer
     * is never still say it; and the default comes back */
    grove_matcher_set_tell_never(m, false);
    for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
        bool asks = modes[i] == GROVE_MATCH_SATISFIABILITY
                    || modes[i] == GROVE_MATCH_ALLOCATE_WITH_SAT;
        errno = 0;
        err.text[0] = 0;
        ok(grove_match(m, three, modes[i], 0, NULL, &err) < 0 && errno == (asks ? ENODEV : EBUSY),
           "mode %zu, never not told: three nodes of two: %s", i, asks ? "ENODEV" : "EBUSY");
        if (!asks)
            is_str(err.text, "no matching resources", "mode %zu: the plain message", i);
    }
    errno = 0;
    ok(grove_match(m, two, GROVE_MATCH_ALLOCATE, 0, NULL, &err) < 0 && errno == EBUSY,
       "never not told: two nodes still busy");
    grove_matcher_set_tell_never(m, true);
    errno = 0;
    ok(grove_match(m, three, GROVE_MATCH_ALLOCATE, 0, NULL, &err) < 0 && errno == ENODEV,
       "told again: ENODEV");
    grove_jobspec_destroy(two);
    grove_jobspec_destroy(three);
    grove_jobspec_destroy(big);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

static void test_whole_nodes(void)
{
    grove_graph_t *g = tiny();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *whole = js_of("- type: node\n  count: 1\n  exclusive: true\n  with:\n"
                                   "  - type: socket\n    count: 2\n    with:\n"
                                   "    - type: slot\n      count: 1\n      label: s\n"
                                   "      with:\n      - type: core\n        count: 18\n");
    grove_jobspec_t *one = nodes_js(1);
    grove_vid_t n0 = grove_graph_first_by_name(g, grove_graph_sym(g, "node0"));
    grove_vid_t n1 = grove_graph_first_by_name(g, grove_graph_sym(g, "node1"));
    const grove_job_t *j = NULL;
    ok(whole && one, "jobspecs parse");
    /* a core of node0 held from 100 to 160: node0 is free now */
    ok(grove_match_window(m, one, GROVE_MATCH_ALLOCATE, 1, 100, 160, &j, NULL) == 0
           && node_of(g, j) == n0, "a core of node0 from 100");
    ok(grove_match(m, whole, GROVE_MATCH_WITHOUT_ALLOCATING, 0, &j, NULL) == 0
           && node_of(g, j) == n0, "now, node0 is whole and free");
    size_t below = 0;
    for (size_t i = 0; j && i < j->npicks; i++)
        below += j->picks[i].exclusive;
    is_int((long)below, 1 + 2 * (1 + 18 + 1 + 4), "the node and all below it, exclusive");
    ok(grove_match_window(m, whole, GROVE_MATCH_WITHOUT_ALLOCATING, 0, 90, 150, &j, NULL) == 0
           && node_of(g, j) == n1, "over the core's window, node1");
    /* a core of each node held now: neither node is whole now */
    grove_jobspec_destroy(one);
    one = nodes_js(2);
    ok(grove_match_window(m, one, GROVE_MATCH_ALLOCATE, 2, 0, 60, &j, NULL) == 0,
       "a core of each node now");
    ok(grove_match(m, whole, GROVE_MATCH_ALLOCATE, 3, &j, NULL) < 0 && errno == EBUSY,
       "no node is whole now");
    grove_jobspec_destroy(whole);
    grove_jobspec_destroy(one);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* A whole machine of nodes (49 vertices each), taken, refused, given back
 * and taken again: the job's picks are a copy of the matcher's selection
 * below 262,144 picks, the matcher's selection itself from there on
 * (the matcher then grows a selection of its own again). */
static void large_selection(int nodes)
{
    grove_graph_t *g = test_cluster(&(test_shape_t){ .nodes = nodes, .per_rack = 32, .sockets = 2,
                                                     .cores = 18, .gpus = 1, .mems = 4,
                                                     .mem_size = 2 });
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *js = nodes_excl_js(nodes, true);
    const grove_job_t *j = NULL;
    ok(js && grove_match(m, js, GROVE_MATCH_ALLOCATE, 1, &j, NULL) == 0, "the whole machine");
    size_t n = j ? j->npicks : 0;
    grove_vid_t *first = malloc((n ? n : 1) * sizeof(*first));
    bool sorted = true;
    for (size_t i = 0; first && i < n; i++) {
        first[i] = j->picks[i].v;
        sorted = sorted && (i == 0 || first[i - 1] < first[i]);
    }
    is_int((long)n, (long)grove_graph_vertex_count(g), "every vertex is picked");
    ok(sorted, "in vertex id order");
    ok(grove_match(m, js, GROVE_MATCH_ALLOCATE, 2, NULL, NULL) < 0 && errno == EBUSY,
       "nothing left");
    ok(grove_matcher_cancel(m, 1) == 0, "cancelled");
    bool same = grove_match(m, js, GROVE_MATCH_ALLOCATE, 3, &j, NULL) == 0 && j->npicks == n;
    for (size_t i = 0; same && first && i < n; i++)
        same = j->picks[i].v == first[i];
    ok(same, "taken again: the same picks");
    ok(grove_matcher_job(m, 3) == j && grove_matcher_job(m, 3)->npicks == n, "held as job 3");
    free(first);
    grove_jobspec_destroy(js);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

static void test_large_selection(void)
{
    large_selection(128);  /* 6,277 picks: copied */
    large_selection(5400); /* 264,770 picks: handed over */
}

/* ---- the scores hook: one call per level, the order score gives -------- */

/* What the hooks below were asked: calls and candidates scored. */
struct hookcount {
    size_t score_calls, scores_calls, scored;
    int fail; /* scores fails (-1, EPERM) when set */
};

/* A score with ties (five classes by vertex index) and the same score
 * given to each candidate through the scores hook. */
static double class_of(grove_vid_t v)
{
    return (double)((v * 7) % 5);
}

static int score_one(void *arg, const grove_graph_t *g, grove_vid_t v,
                     const grove_policy_ctx_t *ctx, double *score)
{
    (void)g, (void)ctx;
    ((struct hookcount *)arg)->score_calls++;
    *score = class_of(v);
    return 0;
}

static int score_all(void *arg, const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                     const grove_policy_ctx_t *ctx, double *out)
{
    struct hookcount *hc = arg;
    (void)ctx;
    hc->scores_calls++;
    hc->scored += n;
    if (hc->fail) {
        errno = EPERM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        /* in visiting order: node vertices, each after the one before */
        if (i && vs[i] < vs[i - 1]) {
            errno = EDOM;
            return -1;
        }
        out[i] = strcmp(grove_vertex_type(g, vs[i]), "node") ? -1 : class_of(vs[i]);
    }
    return 0;
}

static const char *const nodes_only[] = {"node", NULL};

/* The same stream under score and under scores gives the same picks, job
 * for job; scores is asked once per level (nodes only here), and score is
 * not asked when scores is given. */
static void test_scores_hook(void)
{
    grove_graph_t *g[2];
    grove_matcher_t *m[2];
    struct hookcount hc[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        g[k] = test_cluster(&(test_shape_t){ .nodes = 16, .per_rack = 4, .sockets = 2,
                                             .cores = 4, .gpus = 1, .mems = 1, .mem_size = 2 });
        m[k] = grove_matcher_create(g[k], NULL);
        grove_policy_t p = {.name = k ? "batch" : "each", .select = GROVE_SELECT_BEST,
                            .score = score_one, .scores = k ? score_all : NULL,
                            .score_types = nodes_only, .arg = &hc[k]};
        ok(grove_matcher_set_policy(m[k], &p) == 0, "policy %s set", p.name);
    }
    grove_jobspec_t *js[3] = {nodes_js(3), nodes_js(2), nodes_excl_js(2, true)};
    bool same = js[0] && js[1] && js[2];
    int matched = 0;
    for (int i = 0; same && i < 24; i++) {
        const grove_job_t *j[2] = {NULL, NULL};
        int rc[2];
        for (int k = 0; k < 2; k++)
            rc[k] = grove_match(m[k], js[i % 3], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE,
                                (grove_jobid_t)i + 1, &j[k], NULL);
        same = rc[0] == rc[1] && (rc[0] < 0 || (j[0]->npicks == j[1]->npicks
                                                && j[0]->start == j[1]->start));
        for (size_t q = 0; same && rc[0] == 0 && q < j[0]->npicks; q++)
            same = j[0]->picks[q].v == j[1]->picks[q].v
                   && j[0]->picks[q].amount == j[1]->picks[q].amount;
        matched += rc[0] == 0;
    }
    ok(same, "score and scores give the same picks, job for job");
    is_int(matched, 24, "every job matched or reserved");
    is_int((long)hc[1].score_calls, 0, "score is not asked when scores is given");
    ok(hc[1].scores_calls > 0 && hc[1].scores_calls < hc[1].scored,
       "scores: one call per level (%zu calls, %zu candidates)", hc[1].scores_calls,
       hc[1].scored);
    is_int((long)hc[1].scored, (long)hc[0].score_calls, "the same candidates scored");
    hc[1].fail = 1;
    const grove_job_t *j = NULL;
    ok(grove_match(m[1], js[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 100, &j, NULL) < 0
           && errno == ECANCELED, "a failing scores hook: ECANCELED");
    ok(grove_matcher_job(m[1], 100) == NULL, "and no job");
    for (int k = 0; k < 3; k++)
        grove_jobspec_destroy(js[k]);
    for (int k = 0; k < 2; k++) {
        grove_matcher_destroy(m[k]);
        grove_graph_destroy(g[k]);
    }
}

/* An order hook that puts the highest vertex id first and counts its
 * calls per parent, and those of one window. */
struct ordcount {
    unsigned *calls; /* by parent vertex */
    size_t total;
};

static int order_count(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                       size_t n)
{
    (void)g;
    struct ordcount *oc = arg;
    oc->calls[parent]++;
    oc->total++;
    for (size_t i = 0; i < n / 2; i++) {
        grove_vid_t t = kids[i];
        kids[i] = kids[n - 1 - i];
        kids[n - 1 - i] = t;
    }
    return 0;
}

/* The policy's order of a vertex's children is asked once per window
 * tried: the walk enters a node and its sockets several times in one (a
 * slot of two sockets: trial, then take) and keeps the order; a match
 * that tries a later window asks again. */
static void test_order_kept(void)
{
    grove_graph_t *g = test_cluster(&(test_shape_t){ .nodes = 2, .per_rack = 2, .sockets = 2,
                                                     .cores = 2, .mems = 0 });
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    size_t nv = grove_graph_vertex_count(g);
    struct ordcount oc = {calloc(nv, sizeof(unsigned)), 0};
    grove_policy_t p = {.name = "counted", .order = order_count, .arg = &oc};
    ok(oc.calls && grove_matcher_set_policy(m, &p) == 0, "policy set");
    grove_jobspec_t *js = js_of("- type: node\n  count: 2\n  with:\n"
                                "  - type: slot\n    count: 1\n    label: s\n    with:\n"
                                "    - type: socket\n      count: 2\n      with:\n"
                                "      - type: core\n        count: 1\n");
    const grove_job_t *j = NULL;
    ok(js && grove_match(m, js, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 1, &j, NULL) == 0
           && j->start == 0, "placed now");
    unsigned most = 0, parents = 0;
    for (size_t v = 0; oc.calls && v < nv; v++) {
        most = oc.calls[v] > most ? oc.calls[v] : most;
        parents += oc.calls[v] > 0;
    }
    is_int((long)most, 1, "each parent ordered once in the window");
    /* the rack, its two nodes and their four sockets (the cluster has one
     * child: no order to ask) */
    is_int((long)parents, 7, "every parent walked through with children was ordered");
    size_t before = oc.total;
    for (size_t v = 0; oc.calls && v < nv; v++)
        oc.calls[v] = 0;
    ok(grove_match(m, js, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 2, &j, NULL) == 0 && j->start > 0,
       "the next reserved in a later window");
    most = 0;
    for (size_t v = 0; oc.calls && v < nv; v++)
        most = oc.calls[v] > most ? oc.calls[v] : most;
    ok(oc.total > before && most >= 1, "asked again for the later window");
    grove_jobspec_destroy(js);
    free(oc.calls);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* An order hook that leaves every list as it is, and checks that each
 * list it is handed is all the children of its parent (never two vertices
 * picked to learn something of the policy). */
struct ordsame {
    size_t calls, partial; /* lists handed; those not all the parent's children */
};

static int order_same(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                      size_t n)
{
    struct ordsame *os = arg;
    grove_sym_t sub = grove_graph_sym_lookup(g, "containment");
    grove_eid_t cur = GROVE_EID_NONE;
    size_t i = 0;
    bool all = true;
    for (grove_vid_t c = grove_vertex_first_child(g, parent, sub, &cur); c != GROVE_VID_NONE;
         c = grove_vertex_next_child(g, sub, &cur))
        all = all && i < n && kids[i++] == c;
    os->calls++;
    os->partial += !all || i != n;
    return 0;
}

/* The ids of the cores job j took, in pick order, into buf. */
static void core_ids(const grove_graph_t *g, const grove_job_t *j, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t q = 0; j && q < j->npicks && at < len; q++)
        if (!strcmp(grove_vertex_type(g, j->picks[q].v), "core"))
            at += (size_t)snprintf(buf + at, len - at, "%s%lld", at ? " " : "",
                                   (long long)grove_vertex_id(g, j->picks[q].v));
}

/* An order hook that leaves its lists as they are places as first does,
 * whatever the request: the matcher never asks it about two vertices to
 * guess a direction of ids (such a probe read "left as given" as "highest
 * first").  A policy that declares its ids descending (id_order) has its
 * slots ranked by id, whatever the hook does. */
static void test_order_not_probed(void)
{
    static const char *const reqs[] = {
        "- type: slot\n  count: 1\n  label: s\n  with:\n  - type: core\n    count: 1\n",
        "- type: slot\n  count: 1\n  label: s\n  with:\n  - type: core\n    count: 3\n",
        "- type: socket\n  count: 1\n  with:\n  - type: slot\n    count: 1\n    label: s\n"
        "    with:\n    - type: core\n      count: 1\n",
        "- type: node\n  count: 1\n  with:\n  - type: slot\n    count: 1\n    label: s\n"
        "    with:\n    - type: core\n      count: 1\n",
    };
    const test_shape_t shape = {.nodes = 4, .per_rack = 2, .sockets = 2, .cores = 4};
    grove_graph_t *g[3];
    grove_matcher_t *m[3];
    struct ordsame os[2] = {{0, 0}, {0, 0}};
    grove_policy_t same = {.name = "same", .order = order_same, .arg = &os[0]};
    grove_policy_t high = {.name = "declared", .order = order_same, .arg = &os[1],
                           .id_order = GROVE_ID_ORDER_DESCENDING};
    const grove_policy_t *pol[3] = {NULL, &same, &high};
    for (int k = 0; k < 3; k++) {
        g[k] = test_cluster(&shape);
        m[k] = grove_matcher_create(g[k], NULL);
        ok(grove_matcher_set_policy(m[k], pol[k]) == 0, "policy %d set", k);
    }
    bool alike = true;
    int placed = 0;
    for (size_t r = 0; r < sizeof(reqs) / sizeof(*reqs); r++) {
        grove_jobspec_t *js = js_of(reqs[r]);
        for (int i = 0; js && i < 3; i++) {
            const grove_job_t *j[2] = {NULL, NULL};
            int rc[2];
            grove_jobid_t id = (grove_jobid_t)(r * 3 + (size_t)i) + 1;
            for (int k = 0; k < 2; k++)
                rc[k] = grove_match(m[k], js, GROVE_MATCH_ALLOCATE, id, &j[k], NULL);
            bool ok1 = rc[0] == 0 && rc[1] == 0 && j[0]->npicks == j[1]->npicks;
            for (size_t q = 0; ok1 && q < j[0]->npicks; q++)
                ok1 = j[0]->picks[q].v == j[1]->picks[q].v;
            alike = alike && ok1;
            placed += rc[0] == 0;
        }
        grove_jobspec_destroy(js);
    }
    ok(alike, "an order that leaves its lists as they are places as first");
    is_int(placed, 12, "every job placed");
    ok(os[0].calls > 0, "the hook was asked (%zu lists)", os[0].calls);
    is_int((long)os[0].partial, 0, "every list it was handed was all of a parent's children");
    /* declared: the one-core slot goes to the highest sum of core ids, a
     * core7 (ties in graph order: node0's) */
    grove_jobspec_t *one = js_of(reqs[0]);
    const grove_job_t *j = NULL;
    char got[64] = "";
    ok(one && grove_match(m[2], one, GROVE_MATCH_ALLOCATE, 1, &j, NULL) == 0, "declared placed");
    core_ids(g[2], j, got, sizeof(got));
    is_str(got, "7", "declared descending: the slot of the highest core id");
    is_int((long)os[1].partial, 0, "and its hook handed whole lists only");
    grove_jobspec_destroy(one);
    for (int k = 0; k < 3; k++) {
        grove_matcher_destroy(m[k]);
        grove_graph_destroy(g[k]);
    }
}

/* An order of nodes, highest id first (other lists as they are), that
 * notes the longest list of nodes it was handed. */
struct nodeord {
    size_t most;
};

static int order_nodes_high(void *arg, const grove_graph_t *g, grove_vid_t parent,
                            grove_vid_t *kids, size_t n)
{
    (void)parent;
    struct nodeord *no = arg;
    if (n == 0 || strcmp(grove_vertex_type(g, kids[0]), "node"))
        return 0;
    no->most = n > no->most ? n : no->most;
    for (size_t i = 1; i < n; i++) /* insertion: n is small */
        for (size_t j = i; j > 0 && grove_vertex_id(g, kids[j]) > grove_vertex_id(g, kids[j - 1]);
             j--) {
            grove_vid_t t = kids[j];
            kids[j] = kids[j - 1];
            kids[j - 1] = t;
        }
    return 0;
}

/* An order that names its types (order_types) sorts the nodes of the
 * whole machine as one list: a one-core job and a one-node job go to the
 * highest node of the machine (node5 of the second rack), not of the
 * first rack; without order_types the racks come in graph order. */
static void test_order_types(void)
{
    static const char *const node_only[] = {"node", NULL};
    const test_shape_t shape = {.nodes = 6, .per_rack = 3, .sockets = 2, .cores = 2};
    const char *reqs[] = {
        "- type: slot\n  count: 1\n  label: s\n  with:\n  - type: core\n    count: 1\n",
        "- type: node\n  count: 1\n  with:\n  - type: slot\n    count: 1\n    label: s\n"
        "    with:\n    - type: core\n      count: 1\n"};
    for (int typed = 0; typed < 2; typed++) {
        grove_graph_t *g = test_cluster(&shape);
        grove_matcher_t *m = grove_matcher_create(g, NULL);
        struct nodeord no = {0};
        grove_policy_t p = {.name = "nodes", .order = order_nodes_high, .arg = &no,
                            .order_types = typed ? node_only : NULL};
        ok(grove_matcher_set_policy(m, &p) == 0, "policy set (order_types %d)", typed);
        for (size_t r = 0; r < 2; r++) {
            grove_jobspec_t *js = js_of(reqs[r]);
            const grove_job_t *j = NULL;
            long node = -1;
            if (js && grove_match(m, js, GROVE_MATCH_ALLOCATE, (grove_jobid_t)r + 1, &j, NULL) == 0)
                for (size_t q = 0; q < j->npicks; q++)
                    if (!strcmp(grove_vertex_type(g, j->picks[q].v), "node"))
                        node = (long)grove_vertex_id(g, j->picks[q].v);
            is_int(node, typed ? 5 : 2, "request %zu: the highest node of the %s", r,
                   typed ? "machine" : "first rack");
            grove_jobspec_destroy(js);
        }
        is_int((long)no.most, typed ? 6 : 3, "the longest list of nodes ordered at once");
        grove_matcher_destroy(m);
        grove_graph_destroy(g);
    }
}

/* The job table and the kept requests, with jobs going oldest first,
 * newest first and from the middle, and coming again: every job left is
 * found by id, in id order, with its request. */
static void test_job_table(void)
{
    grove_graph_t *g = test_cluster(&(test_shape_t){.nodes = 16, .per_rack = 8, .sockets = 2,
                                                    .cores = 22});
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *js = js_of("- type: slot\n  count: 1\n  label: s\n"
                                "  with:\n  - type: core\n    count: 1\n");
    const grove_job_t *j;
    bool held[601] = {false};
    int bad = 0;
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 300; k++)
            if (grove_match(m, js, GROVE_MATCH_ALLOCATE, 0, &j, NULL) == 0 && j->id <= 600)
                held[j->id] = true;
            else
                bad++;
        /* 100 oldest first, 50 newest first, then every third of the rest */
        int gone = 0;
        for (grove_jobid_t id = 1; id <= 600 && gone < 100; id++)
            if (held[id] && grove_matcher_cancel(m, id) == 0 && !(held[id] = false))
                gone++;
        for (grove_jobid_t id = 600; id >= 1 && gone < 150; id--)
            if (held[id] && grove_matcher_cancel(m, id) == 0 && !(held[id] = false))
                gone++;
        for (grove_jobid_t id = 1, n = 0; id <= 600; id++)
            if (held[id] && n++ % 3 == 0 && grove_matcher_cancel(m, id) == 0)
                held[id] = false;
        size_t live = 0;
        grove_jobid_t last = 0;
        for (grove_jobid_t id = 1; id <= 600; id++) {
            live += held[id];
            const grove_job_t *x = grove_matcher_job(m, id);
            if (!!x != held[id] || (x && x->id != id))
                bad++;
        }
        for (size_t i = 0; (j = grove_matcher_job_at(m, i)); i++) {
            if (j->id <= last || !held[j->id])
                bad++;
            last = j->id;
        }
        if (grove_matcher_job_count(m) != live)
            bad++;
    }
    ok(bad == 0, "jobs going from both ends and the middle: the table stays whole (%d off)",
       bad);
    /* a job's request is kept with it: grow (which reads it) still works */
    for (grove_jobid_t id = 600; id >= 1; id--)
        if (held[id]) {
            ok(grove_match_grow(m, js, id, &j, NULL) == 0, "job %llu grows",
               (unsigned long long)id);
            break;
        }
    for (grove_jobid_t id = 1; id <= 600; id++)
        if (held[id])
            grove_matcher_cancel(m, id);
    is_int(grove_matcher_job_count(m), 0, "and all of them go");
    grove_jobspec_destroy(js);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* Both nodes whole for d seconds (0: no duration, RFC 14's "unlimited"). */
static grove_jobspec_t *both_nodes_for(long d)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "version: 9999\nresources:\n- type: node\n  count: 2\n  exclusive: true\n"
             "  with:\n  - type: slot\n    count: 1\n    label: s\n    with:\n"
             "    - type: core\n      count: 1\n"
             "tasks: [{command: [x], slot: s, count: {per_slot: 1}}]\n");
    size_t n = strlen(y);
    snprintf(y + n, sizeof(y) - n, "attributes: {system: {duration: %ld}}\n", d);
    return grove_jobspec_parse(y, strlen(y), NULL, NULL);
}

/* The horizon: with the clock at 100 and both nodes held until 160, each
 * row sets the graph's expiration and matches both nodes for d seconds. */
static void test_horizon(void)
{
    static const struct {
        int64_t exp;
        grove_match_mode_t mode;
        long d;        /* 0: no duration */
        int err;       /* 0: a job */
        int64_t start, end;
        const char *why;
    } rows[] = {
        {0, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 60, 0, 160, 220, "no horizon: reserved at 160"},
        {220, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 60, 0, 160, 220, "ending at the horizon fits"},
        {219, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 60, EBUSY, 0, 0,
         "a reservation ending past the horizon is not made"},
        {150, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 60, ENODEV, 0, 0,
         "longer than what is left from now: never"},
        {150, GROVE_MATCH_ALLOCATE, 60, ENODEV, 0, 0, "allocate: never"},
        {0, GROVE_MATCH_ALLOCATE, 60, EBUSY, 0, 0, "allocate with no horizon: busy"},
        {300, GROVE_MATCH_ALLOCATE, 60, EBUSY, 0, 0, "allocate within the horizon: busy"},
        {150, GROVE_MATCH_ALLOCATE_WITH_SAT, 60, ENODEV, 0, 0, "allocate_with_sat: never"},
        {150, GROVE_MATCH_SATISFIABILITY, 60, ENODEV, 0, 0, "satisfiability: never"},
        {160, GROVE_MATCH_SATISFIABILITY, 60, 0, 100, 160, "satisfiability within it"},
        {150, GROVE_MATCH_WITHOUT_ALLOCATING, 60, ENODEV, 0, 0, "without_allocating: never"},
        {219, GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE, 60, EBUSY, 0, 0,
         "without_allocating_future stops at the horizon"},
        {300, GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE, 60, 0, 160, 220,
         "without_allocating_future within it"},
        {300, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 0, 0, 160, 300,
         "no duration: until the horizon"},
        {160, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 0, EBUSY, 0, 0,
         "no duration, nothing free before the horizon"},
        {100, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 0, ENODEV, 0, 0, "expired: never"},
        {90, GROVE_MATCH_SATISFIABILITY, 10, ENODEV, 0, 0, "expired before now: never"},
    };
    grove_graph_t *g = tiny();
    grove_graph_set_now(g, 100);
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *busy = both_nodes_for(60);
    const grove_job_t *j = NULL;
    ok(grove_match(m, busy, GROVE_MATCH_ALLOCATE, 1, &j, NULL) == 0 && j->end == 160,
       "both nodes held until 160");
    ok(grove_graph_set_expiration(g, -1) < 0 && errno == EINVAL, "a negative expiration refused");
    is_int(grove_graph_expiration(g), 0, "and nothing changed");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_jobspec_t *js = both_nodes_for(rows[i].d);
        grove_error_t err;
        ok(grove_graph_set_expiration(g, rows[i].exp) == 0, "expiration set");
        j = NULL;
        errno = 0;
        int rc = grove_match(m, js, rows[i].mode, 2, &j, &err);
        if (rows[i].err) {
            ok(rc < 0 && errno == rows[i].err, "%s (errno %d)", rows[i].why, errno);
        } else {
            ok(rc == 0 && j && j->start == rows[i].start && j->end == rows[i].end,
               "%s (%lld-%lld)", rows[i].why, j ? (long long)j->start : -1LL,
               j ? (long long)j->end : -1LL);
        }
        if (rows[i].err == ENODEV && rows[i].d > 0 && rows[i].exp > 100)
            ok(strstr(err.text, "exceeds the resource set's expiration") != NULL,
               "the reason names the expiration: %s", err.text);
        grove_matcher_cancel(m, 2);
        grove_jobspec_destroy(js);
    }
    /* a chosen window */
    grove_jobspec_t *js = both_nodes_for(60);
    grove_graph_set_expiration(g, 200);
    ok(grove_match_window(m, js, GROVE_MATCH_WITHOUT_ALLOCATING, 0, 160, 0, &j, NULL) < 0
           && errno == ENODEV,
       "a chosen window ending past the horizon: never");
    grove_graph_set_expiration(g, 220);
    ok(grove_match_window(m, js, GROVE_MATCH_WITHOUT_ALLOCATING, 0, 160, 0, &j, NULL) == 0
           && j->end == 220,
       "a chosen window ending at the horizon fits");
    grove_jobspec_destroy(js);
    grove_jobspec_destroy(busy);
    grove_matcher_cancel(m, 1);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* The matcher's scratch stamps wrap after 255 generations and are cleared
 * then.  A match on node1 stamps its cores; after d one-core matches on
 * node0 (a generation each) the same match on node1 again must pick the
 * same: for some d the generation has come back to the value node1's
 * cores were stamped with, and only the clearing at the wrap keeps their
 * old state (taken) from being read as this match's.  On a graph of
 * several thousand vertices the state lies in several blocks lent
 * anew at every generation (node1's cores straddle two), whose lending
 * the wrap resets as well. */
static void picks_of(const grove_job_t *j, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < j->npicks; i++) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%u:%lld", i ? "," : "", (unsigned)j->picks[i].v,
                 (long long)j->picks[i].amount);
    }
}

static void stamp_wrap(grove_graph_t *g, int cores, const char *what)
{
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_jobspec_t *core = js_of("- type: slot\n  count: 1\n  label: s\n"
                                  "  with:\n  - type: core\n    count: 1\n");
    char text[256];
    snprintf(text, sizeof(text),
             "- type: node\n  count: 1\n  with:\n"
             "  - type: slot\n    count: 1\n    label: s\n    with:\n"
             "    - type: core\n      count: %d\n",
             cores);
    grove_jobspec_t *node = js_of(text);
    char want[1024], got[1024];
    bool same = true;
    int d;
    for (d = 200; d < 300 && same; d++) {
        const grove_job_t *j = NULL;
        grove_jobid_t hold, id;
        /* a core of node0 held: 36 cores on one node are node1's */
        if (grove_match(m, core, GROVE_MATCH_ALLOCATE, 0, &j, NULL) < 0)
            break;
        hold = j->id;
        if (grove_match(m, node, GROVE_MATCH_ALLOCATE, 0, &j, NULL) < 0)
            break;
        picks_of(j, want, sizeof(want));
        grove_matcher_cancel(m, j->id);
        for (int i = 0; i < d; i++) {
            if (grove_match(m, core, GROVE_MATCH_ALLOCATE, 0, &j, NULL) < 0)
                break;
            grove_matcher_cancel(m, j->id);
        }
        if (grove_match(m, node, GROVE_MATCH_ALLOCATE, 0, &j, NULL) < 0) {
            same = false;
            break;
        }
        picks_of(j, got, sizeof(got));
        same = !strcmp(want, got);
        id = j->id;
        grove_matcher_cancel(m, id);
        grove_matcher_cancel(m, hold);
    }
    ok(same && d == 300,
       "%s: node1 picked alike after 200 to 299 matches between (stopped at %d)", what, d);
    grove_jobspec_destroy(core);
    grove_jobspec_destroy(node);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

static void test_stamp_wrap(void)
{
    stamp_wrap(tiny(), 36, "tiny");
    /* 2 x 1,211 vertices a node: three blocks of state */
    stamp_wrap(test_cluster(&(test_shape_t){.basename = "wide", .nodes = 2, .per_rack = 2,
                                            .sockets = 2, .cores = 600, .gpus = 1, .mems = 4,
                                            .mem_size = 2, .mem_unit = "GB"}),
               1200, "2 nodes of 1,200 cores");
}

/* At the wrap the blocks' generations (bgen) are cleared with the stamps:
 * a block last lent at generation k of one cycle and not since would
 * otherwise, at generation k of the next, be taken as lent already, its
 * pointer naming a pool block lent meanwhile to another block, whose
 * vertices at the same places it would then share.  Driven through the
 * scratch helpers: block 1 lent the pool's first block at a generation,
 * then block 0 alone stamped until the generation comes back, then a
 * vertex of block 0 (lent the pool's first) and one at the same place in
 * block 1 stamped. */
static void test_block_wrap(void)
{
    grove_graph_t *g = test_cluster(&(test_shape_t){
        .basename = "wide", .nodes = 2, .per_rack = 2, .sockets = 2, .cores = 600, .gpus = 1,
        .mems = 4, .mem_size = 2, .mem_unit = "GB"});
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    bool okay = grovep_match_scratch_reserve(m) == 0 && grove_graph_vertex_count(g) > 2 * SBLK_N;
    grove_vid_t a = 5, b = SBLK_N + 5; /* the same place in blocks 0 and 1 */
    grovep_match_new_generation(m);
    uint8_t first = m->gen;
    okay = okay && set_state(m, b, 3, 0) == 0; /* block 1 lent the pool's first */
    int n = 0;
    while (okay && n < 300) {
        grovep_match_new_generation(m);
        n++;
        if (m->gen == first) {
            /* block 1, stamped at this generation's value a cycle ago
             * and not lent since, was cleared at the wrap */
            okay = taken_of(m, b) == 0 && flags_of(m, b) == 0;
            break;
        }
        okay = set_state(m, a, 1, 0) == 0; /* block 0 alone */
    }
    okay = okay && n == 255 && set_state(m, a, 5, M_TOUCH) == 0
           && set_state(m, b, 7, M_EXCL) == 0;
    ok(okay && taken_of(m, a) == 5 && flags_of(m, a) == M_TOUCH && taken_of(m, b) == 7
           && flags_of(m, b) == M_EXCL,
       "after the wrap, two blocks stamped at the same place keep their own state "
       "(taken %lld, %lld)",
       (long long)taken_of(m, a), (long long)taken_of(m, b));
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* The nodes below aggregate a in use at t, counted one by one: those with
 * a record of their own or below them over t (what an exclusive take asks). */
static int64_t busy_brute(const grove_graph_t *g, const grovep_agg_t *a, bool block, int64_t t)
{
    int64_t n = 0;
    grove_sym_t node = grove_intern_lookup(g->strings, "node");
    for (grove_vid_t v = 0; v < g->nv; v++) {
        if (!grovep_alive(g, v) || g->v[v].type != node)
            continue;
        bool below = false;
        if (block) {
            below = grovep_blk_of(g, v) == a;
        } else {
            for (grove_vid_t p = g->parent[v]; p != GROVEP_NONE && !below; p = g->parent[p])
                below = p == a->v;
        }
        if (!below || !grovep_touched_any(g, v, t, t + 1))
            continue;
        /* a node of more windows than busy_cap is not counted */
        uint32_t nw = 0;
        for (uint32_t i = grovep_recs_head(g, v); i != GROVEP_NONE; i = g->recs[i].next)
            nw += g->recs[i].kind == GROVE_RECORD_ALLOC && g->recs[i].start < g->recs[i].end;
        for (uint32_t i = grovep_shared_head(g, v); i != GROVEP_NONE; i = g->recs[i].next)
            nw += g->recs[i].start < g->recs[i].end;
        n += nw <= g->busy_cap;
    }
    return n;
}

/* Do the idle bounds of every aggregate that counts nodes equal the
 * brute-force count, over windows [s, s + d) of the first 120 s? */
static bool busy_agrees(const grove_graph_t *g, const char **why)
{
    static char msg[160];
    for (size_t i = 0; i < g->naggs; i++) {
        const grovep_agg_t *a = &g->aggs[i];
        if (!(a->mask & (1u << g->busy_low)))
            continue;
        bool block = i >= g->nvaggs;
        if (!block && g->v[a->v].type == grove_intern_lookup(g->strings, "node"))
            continue; /* a node's own aggregate: the nodes below it, none */
        int64_t total = grovep_agg_total(g, a)[g->busy_low], at[121];
        for (int64_t t = 0; t <= 120; t++)
            at[t] = busy_brute(g, a, block, t);
        for (int64_t s = 0; s < 120; s += 7)
            for (int64_t d = 1; s + d <= 120; d += 13) {
                int64_t mx = 0;
                for (int64_t t = s; t < s + d; t++)
                    mx = at[t] > mx ? at[t] : mx;
                int64_t got = grovep_agg_idle(g, a, s, s + d);
                if (got != total - mx) {
                    snprintf(msg, sizeof(msg), "aggregate %zu (%s) over [%lld, %lld): %lld, not %lld",
                             i, block ? "block" : "vertex", (long long)s, (long long)(s + d),
                             (long long)got, (long long)(total - mx));
                    *why = msg;
                    return false;
                }
            }
    }
    /* the blocks' bounds summed, for each vertex with blocks: what
     * grovep_blk_idle_enough answers, and never below the nodes idle */
    grove_sym_t node = grove_intern_lookup(g->strings, "node");
    for (size_t i = 0; i < g->nvaggs; i++) {
        grove_vid_t w = g->aggs[i].v;
        bool has = false;
        for (size_t b = g->nvaggs; b < g->naggs; b++)
            has = has || g->aggs[b].v == w;
        if (!has)
            continue;
        for (int64_t s = 0; s < 120; s += 7)
            for (int64_t d = 1; s + d <= 120; d += 13) {
                int64_t sum = 0, idle = 0;
                for (size_t b = g->nvaggs; b < g->naggs; b++) {
                    if (g->aggs[b].v != w)
                        continue;
                    int64_t mx = 0;
                    for (int64_t t = s; t < s + d; t++) {
                        int64_t n = busy_brute(g, &g->aggs[b], true, t);
                        mx = n > mx ? n : mx;
                    }
                    sum += grovep_agg_total(g, &g->aggs[b])[g->busy_low] - mx;
                }
                for (grove_vid_t v = 0; v < g->nv; v++)
                    if (grovep_alive(g, v) && g->v[v].type == node && g->parent[v] == w
                        && !grovep_touched_any(g, v, s, s + d))
                        idle++;
                if (!grovep_blk_idle_enough(g, w, sum, s, s + d)
                    || grovep_blk_idle_enough(g, w, sum + 1, s, s + d)
                    || !grovep_blk_idle_enough(g, w, idle, s, s + d)) {
                    snprintf(msg, sizeof(msg), "blocks of %u over [%lld, %lld): not %lld (%lld idle)",
                             (unsigned)w, (long long)s, (long long)(s + d), (long long)sum,
                             (long long)idle);
                    *why = msg;
                    return false;
                }
            }
    }
    return true;
}

/* Every tally of g without a point, and the aggregates clean? */
static bool tallies_empty(const grove_graph_t *g)
{
    for (size_t i = 0; i < g->naggs; i++)
        if (g->aggs[i].busy && grove_tally_points(g->aggs[i].busy) != 0)
            return false;
    return !g->agg_dirty;
}

/* steps random allocations, reservations, cancellations and partial
 * releases on m (jobs live[0, *nlive)), with the idle bounds checked
 * against the brute count every ten steps: whether they agreed. */
static bool busy_stream(grove_graph_t *g, grove_matcher_t *m, grove_jobspec_t *const js[4],
                        grove_jobid_t *live, size_t *nlive, int from, int steps, const char **why)
{
    bool agree = true;
    for (int step = from; step < from + steps && agree; step++) {
        int op = (int)rnd(0, 9);
        if (op < 6 && *nlive < 64) {
            int64_t s = rnd(0, 100), e = s + rnd(1, 20);
            grove_jobid_t id = 1000 + step;
            if (grove_match_window(m, js[rnd(0, 3)], GROVE_MATCH_ALLOCATE, id, s, e, NULL, NULL)
                == 0)
                live[(*nlive)++] = id;
        } else if (op < 8 && *nlive) {
            size_t k = (size_t)rnd(0, (int64_t)*nlive - 1);
            grove_matcher_cancel(m, live[k]);
            live[k] = live[--*nlive];
        } else if (*nlive) {
            char r[16];
            snprintf(r, sizeof(r), "%d", (int)rnd(0, 47));
            grove_idset_t *ids = grove_idset_decode(r, NULL);
            grove_matcher_release_ranks(m, live[rnd(0, (int64_t)*nlive - 1)], ids, NULL);
            grove_idset_destroy(ids);
        }
        if (step % 10 == 9)
            agree = busy_agrees(g, why);
    }
    return agree;
}

/* The nodes in use over time (aggregate.c, grovep_busy_change) follow allocations, reservations,
 * cancellations and partial releases, and equal a count node by node; every job cancelled, the
 * tallies hold nothing (what was lowered is what was raised). */
static void test_busy(void)
{
    for (int shape = 0; shape < 3; shape++) {
        /* 48 nodes under the cluster, or 2 racks of 24: blocks of 4; the
         * third counts no node of more than 3 windows */
        grove_graph_t *g = test_cluster(&(test_shape_t){.nodes = 48, .per_rack = shape ? 24 : 0,
                                                        .cores = 4});
        ok(grove_graph_set_aggregates(g, "ALL:core,ALL:node,blocks=4", NULL) == 0,
           "aggregates with blocks of 4");
        if (shape == 2)
            g->busy_cap = 3;
        grove_matcher_t *m = grove_matcher_create(g, NULL);
        grove_jobspec_t *js[4] = {nodes_js(1), nodes_excl_js(1, true), nodes_js(3),
                                  nodes_excl_js(5, true)};
        grove_jobid_t live[64];
        size_t nlive = 0;
        const char *why = "";
        rng_state = 7 + (uint64_t)shape;
        static const char *const name[] = {"flat", "racks", "racks, 3 windows a node"};
        ok(busy_stream(g, m, js, live, &nlive, 0, 300, &why),
           "%s: the idle bounds follow the records (%s)", name[shape], why);
        while (nlive)
            grove_matcher_cancel(m, live[--nlive]);
        ok(tallies_empty(g), "%s: every job cancelled, no point left in a tally", name[shape]);
        /* rebuilt from the records: the same, and followed from there */
        bool agree = busy_stream(g, m, js, live, &nlive, 300, 150, &why);
        g->agg_dirty = true;
        ok(agree && grovep_agg_refresh(g) == 0 && busy_agrees(g, &why),
           "%s: and after a rebuild (%s)", name[shape], why);
        ok(busy_stream(g, m, js, live, &nlive, 450, 150, &why), "%s: and on from it (%s)",
           name[shape], why);
        while (nlive)
            grove_matcher_cancel(m, live[--nlive]);
        ok(tallies_empty(g), "%s: every job cancelled again, no point left", name[shape]);
        for (int i = 0; i < 4; i++)
            grove_jobspec_destroy(js[i]);
        grove_matcher_destroy(m);
        grove_graph_destroy(g);
    }
}

/* grovep_match_sort_picks against qsort: selections of a few runs in
 * order (merged), of many (the radix sort, in two passes or, with ids
 * past 2^22, three), with too little scratch for a merge, nearly sorted,
 * and of every size from a handful to 20,000. */
static void test_sort_picks(void)
{
    rng_state = 11;
    bool all = true;
    int trials = 0;
    for (int t = 0; t < 60; t++) {
        size_t n = (size_t)(t % 2 ? rnd(4096, 20000) : rnd(2, 4096)), runs = (size_t)rnd(1, 14);
        /* ids of up to 16 bits, or up to 31 */
        size_t stride = t % 4 == 3 ? 104729 : 3;
        grove_pick_t *p = calloc(n, sizeof(*p)), *want = calloc(n, sizeof(*want));
        grove_pick_t *scratch = calloc(n, sizeof(*scratch));
        if (!p || !want || !scratch) {
            free(p), free(want), free(scratch);
            continue;
        }
        /* distinct ids shuffled, then each of `runs` pieces put in order */
        for (size_t i = 0; i < n; i++)
            p[i] = (grove_pick_t){ .v = (grove_vid_t)(i * stride + 1), .amount = (int64_t)i };
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)rnd(0, (int64_t)i);
            grove_pick_t x = p[i];
            p[i] = p[j];
            p[j] = x;
        }
        size_t at = 0;
        for (size_t r = 0; r < runs; r++) {
            size_t len = r + 1 == runs ? n - at : (size_t)rnd(0, (int64_t)((n - at) / 2));
            qsort(p + at, len, sizeof(*p), grovep_match_cmp_pick);
            at += len;
        }
        if (t % 5 == 4) /* one out of place in a sorted whole */
            qsort(p, n - 1, sizeof(*p), grovep_match_cmp_pick);
        memcpy(want, p, n * sizeof(*p));
        qsort(want, n, sizeof(*want), grovep_match_cmp_pick);
        size_t room = t % 3 == 2 ? (n - 1) * sizeof(*scratch) : n * sizeof(*scratch);
        if (grovep_match_sort_picks(p, n, scratch, room) < 0
            || memcmp(p, want, n * sizeof(*p)) != 0)
            all = false;
        trials++;
        free(p), free(want), free(scratch);
    }
    ok(all && trials == 60, "sort_picks: %d selections of 1-14 runs, 2 to 20,000 picks, sorted as qsort sorts them",
       trials);
}

/* ---- compact reservations ---------------------------------------------------- */

/* Do the two tables hold the same jobs, pick for pick (read through the
 * accessors, which list a compact job whole)?  why: the first difference. */
static bool tables_agree(const grove_matcher_t *a, const grove_matcher_t *b, char *why,
                         size_t len)
{
    size_t n = grove_matcher_job_count(a);
    if (n != grove_matcher_job_count(b)) {
        snprintf(why, len, "%zu jobs against %zu", n, grove_matcher_job_count(b));
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const grove_job_t *x = grove_matcher_job_at(a, i), *y = grove_matcher_job_at(b, i);
        if (!x || !y || x->id != y->id || x->state != y->state || x->start != y->start
            || x->end != y->end || x->npicks != y->npicks || y->compact) {
            snprintf(why, len, "job %zu: id, state, window or count of picks differ", i);
            return false;
        }
        for (size_t k = 0; k < x->npicks; k++) {
            const grove_pick_t *p = &x->picks[k], *q = &y->picks[k];
            if (p->v != q->v || p->exclusive != q->exclusive || p->leaf != q->leaf
                || p->recorded != q->recorded || p->amount != q->amount || p->whole != q->whole) {
                snprintf(why, len, "job %llu, pick %zu (vertex %u against %u)",
                         (unsigned long long)x->id, k, (unsigned)p->v, (unsigned)q->v);
                return false;
            }
        }
    }
    return true;
}

/* R of a job as text, with its scheduling graph, or NULL. */
static char *job_r(const grove_graph_t *g, const grove_job_t *j)
{
    grove_rv1_t *R = grove_rv1_from_job(g, j, GROVE_RV1_WITH_GRAPH, NULL);
    char *text = R ? grove_rv1_encode(R, 0) : NULL;
    grove_rv1_destroy(R);
    return text;
}

static int count_below(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    (void)g;
    (void)v;
    (*(size_t *)arg)++;
    return 0;
}

/* Job id as a kept (read for its head and its R, not listed: compact in
 * b when it was made so) and as listed whole (in a): the same R, and its
 * picks and the vertices grove_job_each_below_whole gives as many as the
 * listed job's picks. */
static bool kept_agrees(const grove_matcher_t *a, const grove_matcher_t *b, grove_jobid_t id,
                        char *why, size_t len)
{
    const grove_job_t *y = grove_matcher_job_kept(b, id), *x = grove_matcher_job(a, id);
    if (!x || !y || x->id != y->id || x->start != y->start || x->state != y->state) {
        snprintf(why, len, "job %llu: not kept alike", (unsigned long long)id);
        return false;
    }
    size_t below = 0;
    if (grove_job_each_below_whole(grove_matcher_graph(b), y, GROVE_SYM_NONE, count_below, &below) != 0
        || y->npicks + below != x->npicks) {
        snprintf(why, len, "job %llu: %zu picks and %zu below, %zu listed",
                 (unsigned long long)id, y->npicks, below, x->npicks);
        return false;
    }
    char *ra = job_r(grove_matcher_graph(a), x), *rb = job_r(grove_matcher_graph(b), y);
    bool same = ra && rb && !strcmp(ra, rb);
    if (!same)
        snprintf(why, len, "job %llu: R differs (compact %d)", (unsigned long long)id,
                 (int)y->compact);
    free(ra);
    free(rb);
    return same;
}

/* The requests of the compact tests: whole nodes, a whole rack with its
 * nodes named below it (held whole twice), a socket in a slot (held, not
 * whole: its other cores are not the job's), a whole socket, cores and a
 * gpu. */
static const char *const compact_shapes[] = {
    ("- type: node\n  count: 2\n  exclusive: true\n  with:\n"
     "  - type: slot\n    count: 1\n    label: s\n    with:\n"
     "    - type: core\n      count: 1\n"),
    ("- type: rack\n  count: 1\n  exclusive: true\n  with:\n"
     "  - type: node\n    count: 2\n    exclusive: true\n    with:\n"
     "    - type: slot\n      count: 1\n      label: s\n      with:\n"
     "      - type: core\n        count: 2\n"),
    ("- type: node\n  count: 1\n  with:\n"
     "  - type: slot\n    count: 1\n    label: s\n    with:\n"
     "    - type: socket\n      count: 1\n      with:\n"
     "      - type: core\n        count: 2\n"),
    ("- type: socket\n  count: 1\n  exclusive: true\n  with:\n"
     "  - type: slot\n    count: 1\n    label: s\n    with:\n"
     "    - type: core\n      count: 1\n"),
    ("- type: slot\n  count: 3\n  label: s\n  with:\n"
     "  - type: core\n    count: 2\n  - type: gpu\n    count: 1\n"),
};
enum { NSHAPES = sizeof(compact_shapes) / sizeof(compact_shapes[0]) };

static bool compact_specs(grove_jobspec_t *js[NSHAPES])
{
    bool parsed = true;
    for (int s = 0; s < NSHAPES; s++)
        parsed = (js[s] = js_of(compact_shapes[s])) != NULL && parsed;
    return parsed;
}

static const test_shape_t compact_shape = {.nodes = 12, .per_rack = 4, .sockets = 2, .cores = 4,
                                           .gpus = 1, .mems = 2, .mem_size = 2};

/* The same stream of requests on two copies of a graph, one matcher
 * keeping its reservations compact: the same answers to every match,
 * cancel, partial release and grow, and every job read the same, pick for
 * pick, every 20 steps (a read lists a compact job whole: between reads
 * the compact ones start as the clock moves, lose cores that go down, are
 * released in part, grown, cancelled, and are counted by a policy that
 * explores by use, set halfway between two reads). */
static void test_compact_stream(void)
{
    grove_graph_t *ga = test_cluster(&compact_shape), *gb = test_cluster(&compact_shape);
    grove_matcher_t *ma = grove_matcher_create(ga, NULL), *mb = grove_matcher_create(gb, NULL);
    grove_matcher_set_compact(mb, true);
    grove_jobspec_t *js[NSHAPES];
    bool parsed = compact_specs(js);
    ok(parsed, "compact: jobspecs parse");
    rng_state = 20261127;
    int64_t now = 0;
    grove_jobid_t next = 1;
    size_t compact = 0, started = 0, ops = 0;
    bool same = parsed;
    char why[160] = "";
    for (int step = 0; step < 400 && same; step++) {
        int64_t r = rnd(0, 11);
        grove_jobid_t id = 0;
        if (r >= 6 && r <= 8 && grove_matcher_job_count(ma) > 0) {
            /* a job of the table: its id read in ma only (mb's stays unread) */
            size_t i = (size_t)rnd(0, (int64_t)grove_matcher_job_count(ma) - 1);
            id = grove_matcher_job_at(ma, i)->id;
        }
        if (step == 210) {
            /* it counts what each job holds: none stays compact */
            same = grove_matcher_set_policy(ma, grove_policy_builtin("fresh")) == 0
                   && grove_matcher_set_policy(mb, grove_policy_builtin("fresh")) == 0;
            for (size_t i = 0; same && i < mb->njobs; i++)
                same = !mb->jobs[i]->compact;
        }
        if (r <= 5) {
            int s = (int)rnd(0, NSHAPES - 1);
            const grove_job_t *x = NULL, *y = NULL;
            int ra = grove_match(ma, js[s], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, next, &x, NULL);
            int ea = errno;
            int rb = grove_match(mb, js[s], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, next, &y, NULL);
            if (ra != rb || (ra < 0 && ea != errno)
                || (ra == 0 && (x->start != y->start || x->state != y->state))) {
                snprintf(why, sizeof(why), "step %d: the matches differ", step);
                same = false;
            }
            if (ra == 0) {
                compact += y->compact;
                started += y->compact && y->state == GROVE_JOB_ALLOCATED;
                /* only a job of a vertex held whole */
                if (y->compact && (s == 2 || s == 4)) {
                    snprintf(why, sizeof(why), "step %d: a compact job of shape %d", step, s);
                    same = false;
                } else if (same && !kept_agrees(ma, mb, next, why, sizeof(why))) {
                    same = false;
                }
                next++;
            }
        } else if (r == 6 && id) {
            same = grove_matcher_cancel(ma, id) == 0 && grove_matcher_cancel(mb, id) == 0;
        } else if (r == 7 && id) {
            grove_idset_t *ranks = grove_idset_create();
            bool ga_gone = false, gb_gone = false;
            same = ranks && grove_idset_set(ranks, (unsigned)rnd(0, compact_shape.nodes - 1)) == 0
                   && grove_matcher_release_ranks(ma, id, ranks, &ga_gone)
                          == grove_matcher_release_ranks(mb, id, ranks, &gb_gone)
                   && ga_gone == gb_gone;
            grove_idset_destroy(ranks);
        } else if (r == 8 && id) {
            int ra = grove_match_grow(ma, js[4], id, NULL, NULL);
            int rb = grove_match_grow(mb, js[4], id, NULL, NULL);
            same = ra == rb;
        } else if (r == 9) {
            now += rnd(1, 70);
            same = grove_matcher_set_now(ma, now) == grove_matcher_set_now(mb, now);
        } else if (r >= 10) {
            /* a core of some node down, or up again: what a reservation
             * holds below a node it holds whole is planned again */
            grove_vid_t v = (grove_vid_t)rnd(0, (int64_t)grove_graph_vertex_count(ga) - 1);
            if (strcmp(grove_graph_str(ga, grove_vertex_type_sym(ga, v)), "core") != 0)
                continue;
            grove_status_t st = grove_vertex_status(ga, v) == GROVE_STATUS_UP
                                    ? GROVE_STATUS_DOWN : GROVE_STATUS_UP;
            same = grove_vertex_set_status(ga, v, st) == 0
                   && grove_vertex_set_status(gb, v, st) == 0
                   && grove_matcher_catch_up(ma) == grove_matcher_catch_up(mb);
        }
        ops++;
        if (same && (step % 20 == 19 || step == 399) && !tables_agree(ma, mb, why, sizeof(why)))
            same = false;
        if (!same && !why[0])
            snprintf(why, sizeof(why), "step %d (op %lld) answered differently", step,
                     (long long)r);
    }
    ok(same, "compact: the tables agree after every one of %zu steps%s%s", ops, same ? "" : ": ",
       why);
    ok(compact > started && started > 10,
       "compact: %zu jobs were kept compact, %zu of them allocations", compact, started);
    grove_matcher_destroy(ma);
    grove_matcher_destroy(mb);
    grove_graph_destroy(ga);
    grove_graph_destroy(gb);
    for (int s = 0; s < NSHAPES; s++)
        grove_jobspec_destroy(js[s]);
}

/* A core down below a node a compact reservation holds whole (not one of
 * its picks until it is read): planned again, as it is when whole. */
static void test_compact_lost(void)
{
    grove_graph_t *ga = test_cluster(&compact_shape), *gb = test_cluster(&compact_shape);
    grove_matcher_t *ma = grove_matcher_create(ga, NULL), *mb = grove_matcher_create(gb, NULL);
    grove_matcher_set_compact(mb, true);
    grove_jobspec_t *js[NSHAPES];
    char why[160] = "";
    grove_jobspec_t *all = nodes_excl_js(compact_shape.nodes - 2, true);
    const grove_job_t *y = NULL;
    bool set = compact_specs(js) && all
               && grove_match(ma, all, GROVE_MATCH_ALLOCATE, 1, NULL, NULL) == 0
               && grove_match(mb, all, GROVE_MATCH_ALLOCATE, 1, NULL, NULL) == 0
               && grove_match(ma, js[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 2, NULL, NULL) == 0
               && grove_match(ma, js[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 3, NULL, NULL) == 0
               && grove_match(mb, js[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 2, NULL, NULL) == 0
               && grove_match(mb, js[0], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 3, &y, NULL) == 0
               && y->compact && y->state == GROVE_JOB_RESERVED;
    ok(set, "compact: two reservations of whole nodes behind a full machine, one compact");
    /* a core job 3 holds that its compact list leaves out (the whole list
     * read from the other matcher; mb's table looked at, not read) */
    const grove_job_t *x = grove_matcher_job(ma, 3);
    long bi = grovep_match_job_index(mb, 3);
    const grove_job_t *raw = bi >= 0 ? mb->jobs[bi] : NULL;
    grove_vid_t core = GROVEP_NONE;
    for (size_t k = 0; x && raw && k < x->npicks && core == GROVEP_NONE; k++) {
        grove_vid_t v = x->picks[k].v;
        bool listed = false;
        for (size_t q = 0; q < raw->npicks; q++)
            listed = listed || raw->picks[q].v == v;
        if (!listed && !strcmp(grove_graph_str(ga, grove_vertex_type_sym(ga, v)), "core"))
            core = v;
    }
    set = set && core != GROVEP_NONE && grove_vertex_set_status(ga, core, GROVE_STATUS_DOWN) == 0
          && grove_vertex_set_status(gb, core, GROVE_STATUS_DOWN) == 0;
    long ea = grove_matcher_catch_up(ma), eb = grove_matcher_catch_up(mb);
    bool replanned = false;
    for (size_t k = 0; k < grove_matcher_event_count(mb); k++) {
        const grove_job_event_t *ev = grove_matcher_event_at(mb, k);
        replanned = replanned || (ev->id == 3 && ev->kind == GROVE_EVENT_REPLANNED);
    }
    ok(set && ea == eb && ea > 0 && replanned && tables_agree(ma, mb, why, sizeof(why)),
       "compact: a core down below its node: job 3 planned again in both (%ld and %ld "
       "events)%s%s", ea, eb, why[0] ? ": " : "", why);
    grove_jobspec_destroy(all);
    for (int s = 0; s < NSHAPES; s++)
        grove_jobspec_destroy(js[s]);
    grove_matcher_destroy(ma);
    grove_matcher_destroy(mb);
    grove_graph_destroy(ga);
    grove_graph_destroy(gb);
}

int main(void)
{
    test_corpus_tiny();
    test_next_id();
    test_job_table();
    test_fits_idle();
    test_horizon();
    test_never();
    test_whole_nodes();
    test_large_selection();
    test_scores_hook();
    test_order_kept();
    test_order_not_probed();
    test_order_types();
    test_stamp_wrap();
    test_block_wrap();
    test_busy();
    test_sort_picks();
    test_compact_stream();
    test_compact_lost();
    return done_testing();
}
