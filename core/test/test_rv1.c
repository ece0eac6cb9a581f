/* test_rv1.c: R version 1: validation rows (one per rule), canonical
 * writing (coalescing, compression), reading both ways (R_lite and the
 * scheduling graph), set algebra against a naive reference on random R
 * with a fixed seed, R from jobs and shards back onto the graph with the
 * matcher, and round trips of the corpus documents.
 *
 * It must not build graphs or draw random numbers of its own:
 * grovetest.h and rng.h have them.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"
#include "jobspec.h"
#include "match.h"
#include "rv1.h"
#include "rng.h"
#include "tap.h"
#include "corpus.h"
#include "grovetest.h"

static grove_rv1_t *dec(const char *s, grove_error_t *err)
{
    return grove_rv1_decode(s, strlen(s), "t.json", err);
}

static grove_idset_t *ids(const char *s)
{
    return grove_idset_decode(s, NULL);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* ---- validation ----------------------------------------------------------- */

#define EX(s) "{\"version\":1,\"execution\":{" s "}}"

/* One row of core/test/vectors/rv1_documents.tsv: a document, the errno
 * its reading must give (0: accepted) and a fragment of the message. */
static void validation_row(int lineno, char **f)
{
    int want = strcmp(f[1], "EINVAL") == 0 ? EINVAL : atoi(f[1]);
    grove_error_t err = {{0}, 0};
    errno = 0;
    grove_rv1_t *R = dec(f[0], &err);
    if (want == 0) {
        ok(R != NULL, "valid, line %d: %s", lineno, R ? "accepted" : err.text);
    } else {
        bool good = !R && errno == want && strstr(err.text, f[2])
                    && strncmp(err.text, "t.json", 6) == 0;
        ok(good, "invalid, line %d: %s", lineno, f[2]);
        if (!good)
            diag("got: %s (errno %d)", R ? "accepted" : err.text, errno);
    }
    grove_rv1_destroy(R);
}

static void test_validation(void)
{
    ok(vectors_run("rv1_documents.tsv", 3, validation_row) >= 62, "rv1 document vectors");
}

/* ---- writing ----------------------------------------------------------------- */

/* Documents in, canonical text out, and that text is a fixed point. */
static void test_writing(void)
{
    static const struct {
        const char *in, *out;
    } rows[] = {
        /* the RFC example, key order canonical */
        {"{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"19-22\",\"children\":"
         "{\"core\":\"0-47\",\"gpu\":\"0-7\"}}],\"nodelist\":[\"node[186-189]\"],\"nslots\":32,"
         "\"starttime\":1676560542,\"expiration\":1676562342}}",
         "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"19-22\",\"children\":"
         "{\"core\":\"0-47\",\"gpu\":\"0-7\"}}],\"nodelist\":[\"node[186-189]\"],"
         "\"starttime\":1676560542,\"expiration\":1676562342,\"nslots\":32}}"},
        /* split entries with equal children coalesce, types ordered, ranges */
        {EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"gpu\":\"0,1\",\"core\":\"0,1,2,3\"}},"
            "{\"rank\":\"1\",\"children\":{\"core\":\"0-3\",\"gpu\":\"0-1\"}},"
            "{\"rank\":\"2\",\"children\":{\"core\":\"0-1\"}},"
            "{\"rank\":\"3\",\"children\":{\"gpu\":\"[0-1]\",\"core\":\"0-3\"}}]"),
         EX("\"R_lite\":[{\"rank\":\"0-1,3\",\"children\":{\"core\":\"0-3\",\"gpu\":\"0-1\"}},"
            "{\"rank\":\"2\",\"children\":{\"core\":\"0-1\"}}]")},
        /* other child types after core and gpu, by name */
        {EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"ssd\":\"0\",\"memory\":\"0-7\","
            "\"gpu\":\"1\",\"core\":\"5\"}}]"),
         EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"5\",\"gpu\":\"1\","
            "\"memory\":\"0-7\",\"ssd\":\"0\"}}]")},
        /* a rank repeated in two entries is merged */
        {EX("\"R_lite\":[{\"rank\":\"1\",\"children\":{\"core\":\"0-1\"}},"
            "{\"rank\":\"0-1\",\"children\":{\"core\":\"2-3\"}}]"),
         EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"2-3\"}},"
            "{\"rank\":\"1\",\"children\":{\"core\":\"0-3\"}}]")},
        /* empty child sets vanish; reals stay reals; unknown keys kept */
        {"{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0\","
         "\"gpu\":\"\"}}],\"starttime\":0.0,\"expiration\":12.5,\"future\":[1]},"
         "\"attributes\":{\"system\":{\"scheduler\":{\"queue\":\"batch\"}}}}",
         "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0\"}}],"
         "\"starttime\":0.0,\"expiration\":12.5,\"future\":[1]},"
         "\"attributes\":{\"system\":{\"scheduler\":{\"queue\":\"batch\"}}}}"},
        /* properties and a nodelist kept as given */
        {EX("\"R_lite\":[{\"rank\":\"0-1\",\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"a\",\"a\"],"
            "\"properties\":{\"fast\":\"1\",\"amd-mi50@gpu\":\"0-1\"}"),
         EX("\"R_lite\":[{\"rank\":\"0-1\",\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"a\",\"a\"],"
            "\"properties\":{\"fast\":\"1\",\"amd-mi50@gpu\":\"0-1\"}")},
        /* a scheduling-only document */
        {"{\"version\":1,\"scheduling\":{\"writer\":\"x\"}}",
         "{\"version\":1,\"scheduling\":{\"writer\":\"x\"}}"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_error_t err = {{0}, 0};
        grove_rv1_t *R = dec(rows[i].in, &err);
        char *s = R ? grove_rv1_encode(R, 0) : NULL;
        is_str(s, rows[i].out, "write %zu%s%s", i, R ? "" : ": ", R ? "" : err.text);
        /* and the canonical text reads back to the same text */
        grove_rv1_t *R2 = s ? dec(s, NULL) : NULL;
        char *s2 = R2 ? grove_rv1_encode(R2, 0) : NULL;
        is_str(s2, rows[i].out, "write %zu is a fixed point", i);
        ok(R2 && grove_rv1_equal(R, R2), "write %zu reads back equal", i);
        free(s);
        free(s2);
        grove_rv1_destroy(R);
        grove_rv1_destroy(R2);
    }
}

/* Building R by hand: hosts compress in rank order; then an empty R. */
static void test_building(void)
{
    grove_rv1_t *R = grove_rv1_create();
    grove_idset_t *c = ids("0-47"), *gp = ids("0-7"), *r = ids("19-22");
    for (unsigned k = 22; k >= 19; k--) {
        char host[16];
        snprintf(host, sizeof(host), "node%u", 167 + k);
        grove_rv1_add(R, k, "core", c);
        grove_rv1_add(R, k, "gpu", gp);
        grove_rv1_set_hostname(R, k, host);
    }
    grove_rv1_add(R, 30, NULL, NULL);
    grove_rv1_set_hostname(R, 30, "login1");
    ok(grove_rv1_add_property(R, "fast", r) == 0, "add_property");
    grove_idset_t *bad = ids("3");
    ok(grove_rv1_add_property(R, "slow", bad) < 0 && errno == EINVAL, "property outside R: EINVAL");
    ok(grove_rv1_add_property(R, "a|b", r) < 0 && errno == EINVAL, "bad property name: EINVAL");
    ok(grove_rv1_set_hostname(R, 5, "x") < 0 && errno == ENOENT, "hostname of no rank: ENOENT");
    ok(grove_rv1_set_hostname(R, 19, "a[1]") < 0 && errno == EINVAL, "bad host name: EINVAL");
    ok(grove_rv1_set_times(R, 10, 10) < 0 && errno == EINVAL, "expiration == start: EINVAL");
    ok(grove_rv1_set_times(R, -1, 0) < 0 && errno == EINVAL, "negative start: EINVAL");
    ok(grove_rv1_set_times(R, 100, 200) == 0, "set_times");
    ok(grove_rv1_set_nslots(R, 4) == 0 && grove_rv1_set_nslots(R, -2) < 0, "set_nslots");
    char *s = grove_rv1_encode(R, 0);
    is_str(s,
           "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"19-22\",\"children\":"
           "{\"core\":\"0-47\",\"gpu\":\"0-7\"}},{\"rank\":\"30\",\"children\":{}}],"
           "\"nodelist\":[\"node[186-189],login1\"],\"properties\":{\"fast\":\"19-22\"},"
           "\"starttime\":100,\"expiration\":200,\"nslots\":4}}",
           "built R writes canonically");
    free(s);
    is_int(grove_rv1_count(R, "core"), 192, "count core");
    is_int(grove_rv1_count(R, "gpu"), 32, "count gpu");
    is_int(grove_rv1_count(R, "ssd"), 0, "count of an absent type");
    is_str(grove_rv1_type_at(R, 0), "core", "type_at 0");
    is_str(grove_rv1_type_at(R, 1), "gpu", "type_at 1");
    ok(grove_rv1_type_at(R, 2) == NULL, "type_at past the end");
    is_str(grove_rv1_hostname(R, 30), "login1", "hostname");
    ok(grove_rv1_hostname(R, 31) == NULL && errno == ENOENT, "hostname of no rank");
    grove_hostlist_t *hl = grove_rv1_nodelist(R);
    char *hs = grove_hostlist_encode(hl);
    is_str(hs, "node[186-189],login1", "nodelist");
    free(hs);
    grove_hostlist_destroy(hl);
    grove_rv1_add(R, 31, NULL, NULL);
    ok(grove_rv1_nodelist(R) == NULL && errno == ENOENT, "nodelist with an unnamed rank: ENOENT");
    s = grove_rv1_encode(R, 0);
    ok(s && !strstr(s, "nodelist"), "no nodelist written when a rank has no host");
    free(s);
    s = grove_rv1_encode(R, GROVE_RV1_PRETTY);
    ok(s && strstr(s, "\n  \"execution\": {"), "pretty output is indented");
    free(s);
    grove_rv1_destroy(R);
    grove_idset_destroy(c);
    grove_idset_destroy(gp);
    grove_idset_destroy(r);
    grove_idset_destroy(bad);

    /* an empty R */
    R = grove_rv1_create();
    s = grove_rv1_encode(R, 0);
    is_str(s, "{\"version\":1,\"execution\":{\"R_lite\":[],\"nodelist\":[]}}", "empty R");
    free(s);
    grove_rv1_destroy(R);
}

/* ---- reading into graphs ------------------------------------------------------- */

static void test_to_graph(void)
{
    grove_error_t err = {{0}, 0};
    grove_rv1_t *R =
        dec(EX("\"R_lite\":[{\"rank\":\"0-1\",\"children\":{\"core\":\"0-3\",\"gpu\":\"0\"}},"
               "{\"rank\":\"5\",\"children\":{\"memory\":\"2\"}}],"
               "\"nodelist\":[\"node[0-1]\",\"login\"],\"properties\":{\"fast\":\"1,5\"}"),
            &err);
    ok(R != NULL, "decode for to_graph");
    grove_graph_t *g = grove_rv1_to_graph(R, &err);
    ok(g != NULL, "to_graph from R_lite");
    is_int(grove_graph_vertex_count(g), 1 + 3 + 10 + 1, "vertex count: cluster, 3 nodes, 11 children");
    grove_sym_t cont = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    grove_vid_t root = grove_graph_root(g, cont, 0);
    is_str(grove_vertex_name(g, root), "cluster0", "cluster vertex is cluster0");
    is_str(grove_vertex_basename(g, root), "cluster", "cluster basename");
    is_int(grove_vertex_id(g, root), 0, "cluster id");
    grove_vid_t n1 = grove_graph_find_path(g, cont, "/cluster0/node1");
    ok(n1 != GROVE_VID_NONE, "node1 below cluster0");
    is_int(grove_vertex_rank(g, n1), 1, "node1 rank");
    is_str(grove_vertex_basename(g, n1), "node", "node1 basename");
    is_int(grove_vertex_id(g, n1), 1, "node1 id");
    ok(grove_vertex_property(g, n1, "fast") != NULL, "node1 has property fast");
    grove_vid_t lg = grove_graph_find_path(g, cont, "/cluster0/login");
    ok(lg != GROVE_VID_NONE && grove_vertex_rank(g, lg) == 5 && grove_vertex_id(g, lg) == 5,
       "login: rank 5, id = rank (no number in the name)");
    grove_vid_t c3 = grove_graph_find_path(g, cont, "/cluster0/node0/core3");
    ok(c3 != GROVE_VID_NONE && grove_vertex_rank(g, c3) == 0, "core3 below node0, rank 0");
    ok(grove_graph_find_path(g, cont, "/cluster0/login/memory2") != GROVE_VID_NONE, "memory2");
    ok(grove_vertex_property(g, grove_graph_find_path(g, cont, "/cluster0/node0"), "fast") == NULL,
       "node0 lacks fast");
    /* and back */
    grove_rv1_t *B = grove_rv1_from_graph(g, 0, &err);
    ok(B && grove_rv1_equal(R, B), "R -> graph -> R is equal");
    grove_rv1_destroy(B);
    grove_graph_destroy(g);
    grove_rv1_destroy(R);

    /* without nodelist: node<rank> */
    R = dec(EX("\"R_lite\":[{\"rank\":\"7\",\"children\":{\"core\":\"0\"}}]"), NULL);
    g = grove_rv1_to_graph(R, NULL);
    cont = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    ok(g && grove_graph_find_path(g, cont, "/cluster0/node7/core0") != GROVE_VID_NONE,
       "no nodelist: node<rank>");
    B = grove_rv1_from_graph(g, 0, NULL);
    is_str(grove_rv1_hostname(B, 7), "node7", "its host name comes back as node7");
    grove_rv1_destroy(B);
    grove_graph_destroy(g);
    grove_rv1_destroy(R);

    /* corpus R documents with a scheduling graph: lossless */
    static const char *const sched_docs[] = {
        "fluxion/jgfs/issue1284.json",
        "fluxion/jgfs/elastic/add-remove-node-test.json",
    };
    for (size_t i = 0; i < 2; i++) {
        grove_rv1_t *A = grove_rv1_load(tap_conformance(sched_docs[i]), &err);
        ok(A != NULL, "%s loads%s%s", sched_docs[i], A ? "" : ": ", A ? "" : err.text);
        if (!A)
            continue;
        ok(grove_rv1_scheduling(A) != NULL, "%s keeps scheduling", sched_docs[i]);
        g = grove_rv1_to_graph(A, &err);
        ok(g != NULL, "%s: to_graph from scheduling.graph", sched_docs[i]);
        const json_t *sg = json_object_get(grove_rv1_scheduling(A), "graph");
        is_int(grove_graph_vertex_count(g), json_array_size(json_object_get(sg, "nodes")),
               "%s: every JGF node is a vertex", sched_docs[i]);
        B = grove_rv1_from_graph(g, GROVE_RV1_WITH_GRAPH, &err);
        ok(B && grove_rv1_equal(A, B), "%s: R -> graph -> R", sched_docs[i]);
        /* the graph written back reads to the same JGF */
        grove_graph_t *g2 = B ? grove_rv1_to_graph(B, &err) : NULL;
        char *j1 = grove_jgf_write(g, 0), *j2 = g2 ? grove_jgf_write(g2, 0) : NULL;
        ok(j1 && j2 && strcmp(j1, j2) == 0, "%s: scheduling graph round trip", sched_docs[i]);
        free(j1);
        free(j2);
        grove_graph_destroy(g2);
        grove_rv1_destroy(B);
        grove_graph_destroy(g);
        grove_rv1_destroy(A);
    }

    /* a broken scheduling graph is an error that says where */
    R = dec("{\"version\":1,\"scheduling\":{\"graph\":{\"nodes\":[{\"id\":\"0\",\"metadata\":"
            "{\"type\":\"node\",\"size\":-1}}],\"edges\":[]}}}",
            NULL);
    g = R ? grove_rv1_to_graph(R, &err) : NULL;
    ok(R && !g && errno == EINVAL && strstr(err.text, "scheduling.graph")
           && strstr(err.text, "nodes[0].metadata.size"),
       "bad scheduling graph: %s", err.text);
    grove_rv1_destroy(R);
    /* an unknown writer's graph is ignored: R_lite is used */
    R = dec("{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0\"}}]},"
            "\"scheduling\":{\"writer\":\"other:v2\",\"graph\":{\"nodes\":5}}}",
            NULL);
    g = grove_rv1_to_graph(R, &err);
    ok(g && grove_graph_vertex_count(g) == 3, "a graph of another format is not read");
    grove_graph_destroy(g);
    /* encode WITH_GRAPH adds a graph built from R_lite; NO_SCHEDULING drops it */
    char *s = grove_rv1_encode(R, GROVE_RV1_NO_SCHEDULING);
    ok(s && !strstr(s, "scheduling"), "NO_SCHEDULING");
    free(s);
    grove_rv1_destroy(R);
    R = dec(EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0-1\"}}],\"nodelist\":[\"n0\"]"),
            NULL);
    s = grove_rv1_encode(R, GROVE_RV1_WITH_GRAPH);
    B = s ? dec(s, NULL) : NULL;
    g = B ? grove_rv1_to_graph(B, NULL) : NULL;
    ok(g && grove_graph_vertex_count(g) == 4 && strstr(s, "\"writer\":\"grove\""),
       "WITH_GRAPH writes a readable scheduling graph");
    grove_graph_destroy(g);
    free(s);
    grove_rv1_destroy(B);
    grove_rv1_destroy(R);
}

/* ---- corpus round trips -------------------------------------------------------- */

static void test_corpus(void)
{
    static const char *const files[] = {
        "rfc/spec_20/example1.json",
        "fluxion/rv1exec/tiny_rv1exec.json",
        "fluxion/rv1exec/tiny_rv1exec_2-1.json",
        "fluxion/rv1exec/tiny_rv1exec_2-1_split.json",
        "fluxion/rv1exec/cancel/rank0_cancel-jgfgraph.json",
        "fluxion/rv1exec/cancel/rank0_cancel_nonexcl.json",
        "fluxion/rv1exec/cancel/rank1_cancel.json",
        "fluxion/rv1exec/cancel/rank1_cancel_nonexcl.json",
        "fluxion/rv1exec/cancel/ranks_cancel_crossracks.json",
        "fluxion/rv1exec/cancel/ranks_cancel_crossracks_simple.json",
        "fluxion/jgfs/issue1284.json",
        "fluxion/jgfs/elastic/add-remove-node-test.json",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *text = slurp(tap_conformance(files[i]));
        ok(text != NULL, "read %s", files[i]);
        if (!text)
            continue;
        grove_error_t err = {{0}, 0};
        grove_rv1_t *R = grove_rv1_decode(text, strlen(text), files[i], &err);
        ok(R != NULL, "%s decodes%s%s", files[i], R ? "" : ": ", R ? "" : err.text);
        char *out = R ? grove_rv1_encode(R, 0) : NULL;
        ok(out && test_same_json(text, out), "%s writes back equal", files[i]);
        /* R -> graph -> R keeps the resources */
        grove_graph_t *g = R ? grove_rv1_to_graph(R, &err) : NULL;
        grove_rv1_t *B = g ? grove_rv1_from_graph(g, 0, &err) : NULL;
        ok(B && grove_rv1_equal(R, B), "%s: R -> graph -> R", files[i]);
        /* an R built (not read) is written without a JSON tree: the same
         * bytes as the tree's compact text, with and without scheduling */
        for (int f = 0; B && f <= GROVE_RV1_NO_SCHEDULING; f += GROVE_RV1_NO_SCHEDULING) {
            char *direct = grove_rv1_encode(B, f);
            json_t *tree = grove_rv1_to_json(B, f);
            char *viatree = tree ? json_dumps(tree, JSON_COMPACT | JSON_REAL_PRECISION(16)) : NULL;
            is_str(direct, viatree, "%s: built R written directly as through a tree (flags %d)",
                   files[i], f);
            free(direct);
            free(viatree);
            json_decref(tree);
        }
        if (B && !grove_rv1_equal(R, B)) {
            char *t = grove_rv1_encode(B, 0);
            diag("got %s", t);
            free(t);
        }
        grove_rv1_destroy(B);
        grove_graph_destroy(g);
        free(out);
        grove_rv1_destroy(R);
        free(text);
    }
    grove_error_t err = {{0}, 0};
    const char *inv = "fluxion/rv1exec/cancel/rank1_cancel_invalid.json";
    grove_rv1_t *R = grove_rv1_load(tap_conformance(inv), &err);
    ok(!R && errno == EINVAL && strstr(err.text, "rank1_cancel_invalid.json:1: execution.R_lite[0].rank"),
       "invalid rank -1 rejected: %s", err.text);
    R = grove_rv1_load("/nonexistent/r.json", &err);
    ok(!R && errno == ENOENT && strstr(err.text, "/nonexistent/r.json"), "load of a missing file");

    /* a document parsed from json_t keeps its own copies */
    json_t *doc = json_pack("{s:i s:{s:[{s:s s:{s:s}}]} s:{s:s}}", "version", 1, "execution",
                            "R_lite", "rank", "0", "children", "core", "0", "scheduling", "writer",
                            "w");
    R = grove_rv1_from_json(doc, NULL, NULL);
    json_object_set_new(json_object_get(doc, "scheduling"), "writer", json_string("changed"));
    char *s = R ? grove_rv1_encode(R, 0) : NULL;
    ok(s && strstr(s, "\"writer\":\"w\""), "from_json copies what it keeps");
    free(s);
    grove_rv1_t *C = grove_rv1_copy(R);
    s = C ? grove_rv1_encode(C, 0) : NULL;
    char *s0 = R ? grove_rv1_encode(R, 0) : NULL;
    ok(s && s0 && strcmp(s, s0) == 0, "copy writes the same text");
    free(s);
    free(s0);
    grove_rv1_destroy(C);
    grove_rv1_destroy(R);
    json_decref(doc);
}

/* ---- set algebra against a naive reference -------------------------------------- */

#define NR 12
#define NT 3
#define NI 10
static const char *const tnames[NT] = {"core", "gpu", "memory"};
static const char *const pnames[2] = {"fast", "big"};

struct naive {
    bool rank[NR];
    bool kid[NR][NT][NI];
    bool prop[2][NR];
};

static void naive_random(struct naive *a)
{
    memset(a, 0, sizeof(*a));
    for (int r = 0; r < NR; r++) {
        if (rnd(0, 9) < 4)
            continue;
        a->rank[r] = true;
        for (int t = 0; t < NT; t++)
            if (rnd(0, 9) < 6)
                for (int i = 0; i < NI; i++)
                    a->kid[r][t][i] = rnd(0, 1);
        for (int p = 0; p < 2; p++)
            a->prop[p][r] = rnd(0, 2) == 0;
    }
}

static bool naive_any(const struct naive *a, int r)
{
    for (int t = 0; t < NT; t++)
        for (int i = 0; i < NI; i++)
            if (a->kid[r][t][i])
                return true;
    return false;
}

static void naive_op(const struct naive *a, const struct naive *b, int op, struct naive *o)
{
    memset(o, 0, sizeof(*o));
    for (int r = 0; r < NR; r++) {
        for (int t = 0; t < NT; t++)
            for (int i = 0; i < NI; i++) {
                bool x = a->kid[r][t][i], y = b->kid[r][t][i];
                o->kid[r][t][i] = op == 0 ? (x || y) : op == 1 ? (x && !y) : (x && y);
            }
        if (op == 0)
            o->rank[r] = a->rank[r] || b->rank[r];
        else if (op == 1)
            o->rank[r] = a->rank[r] && (!b->rank[r] || naive_any(o, r));
        else
            o->rank[r] = a->rank[r] && b->rank[r]
                         && (naive_any(o, r) || !naive_any(a, r) || !naive_any(b, r));
        for (int p = 0; p < 2; p++)
            o->prop[p][r] = o->rank[r] && (a->prop[p][r] || (op == 0 && b->prop[p][r]));
    }
}

static grove_rv1_t *naive_build(const struct naive *a)
{
    grove_rv1_t *R = grove_rv1_create();
    for (int r = 0; r < NR; r++) {
        if (!a->rank[r])
            continue;
        grove_rv1_add(R, (unsigned)r, NULL, NULL);
        char host[16];
        snprintf(host, sizeof(host), "n%d", r);
        grove_rv1_set_hostname(R, (unsigned)r, host);
        for (int t = 0; t < NT; t++) {
            grove_idset_t *s = grove_idset_create();
            for (int i = 0; i < NI; i++)
                if (a->kid[r][t][i])
                    grove_idset_set(s, (unsigned)i);
            grove_rv1_add(R, (unsigned)r, tnames[t], s);
            grove_idset_destroy(s);
        }
    }
    for (int p = 0; p < 2; p++) {
        grove_idset_t *s = grove_idset_create();
        for (int r = 0; r < NR; r++)
            if (a->prop[p][r])
                grove_idset_set(s, (unsigned)r);
        if (!grove_idset_empty(s))
            grove_rv1_add_property(R, pnames[p], s);
        grove_idset_destroy(s);
    }
    return R;
}

/* The ranks of R kept by constraint text c, as an idset string (freed by
 * the next call). */
static const char *filtered(const grove_rv1_t *R, const char *c)
{
    static char *last;
    free(last);
    last = NULL;
    grove_error_t err;
    grove_constraint_t *k = grove_constraint_parse(c, &err);
    grove_rv1_t *F = k ? grove_rv1_filter(R, k) : NULL;
    grove_idset_t *ids = F ? grove_rv1_ranks(F) : NULL;
    last = ids ? grove_idset_encode(ids, GROVE_IDSET_FLAG_RANGE) : NULL;
    grove_idset_destroy(ids);
    grove_rv1_destroy(F);
    grove_constraint_destroy(k);
    return last;
}

/* R filtered by a constraint, a hostname counting as a property, and hosts
 * to ranks (flux-core's rlist_copy_constraint and rlist_hosts_to_ranks). */
static void test_constraint_filter(void)
{
    const char *text = "{\"version\": 1, \"execution\": {\"R_lite\": [{\"rank\": \"0-3\", "
                       "\"children\": {\"core\": \"0-1\"}}], \"nodelist\": [\"foo[0-3]\"], "
                       "\"properties\": {\"ssd\": \"1-2\"}}}";
    grove_error_t err;
    grove_rv1_t *R = grove_rv1_decode(text, strlen(text), "r.json", &err);
    ok(R != NULL, "filter: R");
    is_str(filtered(R, "{\"properties\": [\"foo0\"]}"), "0", "a hostname is a property");
    is_str(filtered(R, "{\"properties\": [\"^foo1\"]}"), "0,2-3", "and ^ leaves it out");
    is_str(filtered(R, "{\"properties\": [\"ssd\", \"^foo2\"]}"), "1", "with other properties");
    is_str(filtered(R, "{\"hostlist\": [\"foo[2-9]\"]}"), "2-3", "hostlist");
    is_str(filtered(R, "{\"not\": [{\"ranks\": [\"0-2\"]}]}"), "3", "ranks");
    is_str(filtered(R, "{\"properties\": [\"none\"]}"), "", "nothing kept");
    grove_rv1_t *all = grove_rv1_filter(R, NULL);
    ok(all && grove_rv1_equal(all, R), "no constraint keeps everything");
    grove_rv1_destroy(all);
    grove_idset_t *ids = grove_rv1_hosts_to_ranks(R, "foo[3,1,1]", &err);
    char *s = ids ? grove_idset_encode(ids, GROVE_IDSET_FLAG_RANGE) : NULL;
    is_str(s, "1,3", "hosts to ranks");
    free(s);
    grove_idset_destroy(ids);
    errno = 0;
    ok(!grove_rv1_hosts_to_ranks(R, "foo[2,7-8]", &err) && errno == EINVAL,
       "a host R lacks: EINVAL");
    is_str(err.text, "invalid hosts: foo[7-8]", "its message names the hosts");
    ok(!grove_rv1_hosts_to_ranks(R, "foo[", &err) && errno == EINVAL, "a bad hostlist: EINVAL");
    grove_rv1_destroy(R);
    filtered(NULL, "{}");
}

static void test_algebra(void)
{
    rng_state = 42; /* the same random sets on every run */
    int bad[3] = {0, 0, 0}, rt_bad = 0, neq_bad = 0;
    const int rounds = 300;
    for (int n = 0; n < rounds; n++) {
        struct naive a, b, o;
        naive_random(&a);
        naive_random(&b);
        grove_rv1_t *A = naive_build(&a), *B = naive_build(&b);
        for (int op = 0; op < 3; op++) {
            naive_op(&a, &b, op, &o);
            grove_rv1_t *want = naive_build(&o);
            grove_rv1_t *got = op == 0   ? grove_rv1_union(A, B, NULL)
                               : op == 1 ? grove_rv1_difference(A, B, NULL)
                                         : grove_rv1_intersect(A, B, NULL);
            if (!got || !grove_rv1_equal(got, want)) {
                if (bad[op]++ == 0) {
                    char *x = grove_rv1_encode(got, 0), *y = grove_rv1_encode(want, 0);
                    diag("op %d round %d:\n#  got  %s\n#  want %s", op, n, x, y);
                    free(x);
                    free(y);
                }
            }
            /* canonical text round trip of the result */
            char *s = got ? grove_rv1_encode(got, 0) : NULL;
            grove_rv1_t *back = s ? dec(s, NULL) : NULL;
            if (!back || !grove_rv1_equal(back, got))
                rt_bad++;
            free(s);
            grove_rv1_destroy(back);
            grove_rv1_destroy(got);
            grove_rv1_destroy(want);
        }
        /* equality is not trivially true */
        if (grove_rv1_equal(A, B) != (memcmp(&a, &b, sizeof(a)) == 0))
            neq_bad++;
        grove_rv1_destroy(A);
        grove_rv1_destroy(B);
    }
    is_int(bad[0], 0, "union matches the reference (%d rounds)", rounds);
    is_int(bad[1], 0, "difference matches the reference");
    is_int(bad[2], 0, "intersection matches the reference");
    is_int(rt_bad, 0, "results round-trip through text");
    is_int(neq_bad, 0, "equal() agrees with the reference");

    /* (A - B) | (A & B) == A, and releasing shards adds up to the whole */
    struct naive a, b;
    naive_random(&a);
    naive_random(&b);
    grove_rv1_t *A = naive_build(&a), *B = naive_build(&b);
    grove_rv1_t *d = grove_rv1_difference(A, B, NULL), *i = grove_rv1_intersect(A, B, NULL);
    grove_rv1_t *u = grove_rv1_union(d, i, NULL);
    ok(grove_rv1_equal(u, A), "(A - B) | (A & B) == A");
    grove_rv1_destroy(d);
    grove_rv1_destroy(i);
    grove_rv1_destroy(u);

    /* host conflicts */
    grove_rv1_t *X = dec(EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"a\"]"), NULL);
    grove_rv1_t *Y = dec(EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"1\"}}],\"nodelist\":[\"b\"]"), NULL);
    grove_error_t err = {{0}, 0};
    ok(!grove_rv1_union(X, Y, &err) && errno == EINVAL
           && strstr(err.text, "rank 0 is a in one R and b in the other"),
       "union with conflicting hosts: %s", err.text);
    grove_rv1_destroy(X);
    grove_rv1_destroy(Y);

    /* restrict / exclude */
    grove_idset_t *r = ids("0-5");
    grove_rv1_t *in = grove_rv1_restrict(A, r), *out = grove_rv1_exclude(A, r);
    grove_idset_t *ri = grove_rv1_ranks(in), *ro = grove_rv1_ranks(out), *ra = grove_rv1_ranks(A);
    grove_idset_t *want_in = grove_idset_intersect(ra, r), *want_out = grove_idset_difference(ra, r);
    ok(grove_idset_equal(ri, want_in) && grove_idset_equal(ro, want_out), "restrict/exclude ranks");
    grove_rv1_t *whole = grove_rv1_union(in, out, NULL);
    ok(grove_rv1_equal(whole, A), "restrict | exclude == R");
    grove_idset_destroy(r);
    grove_idset_destroy(ri);
    grove_idset_destroy(ro);
    grove_idset_destroy(ra);
    grove_idset_destroy(want_in);
    grove_idset_destroy(want_out);
    grove_rv1_destroy(in);
    grove_rv1_destroy(out);
    grove_rv1_destroy(whole);
    grove_rv1_destroy(A);
    grove_rv1_destroy(B);
}

/* ---- jobs and shards ------------------------------------------------------------ */

/* cluster0 > rack0 > node0-1 (ranks 0-1; node1 "fast", both perf_class 3)
 * > socket0-1 > core x4, gpu x1, memory x2 (size 4) */
static grove_graph_t *small_graph(void)
{
    grove_graph_t *g = test_cluster(&(test_shape_t){ .nodes = 2, .per_rack = 2, .sockets = 2,
                                                     .cores = 4, .gpus = 1, .mems = 2,
                                                     .mem_size = 4 });
    for (int n = 0; n < 2; n++) {
        grove_vid_t node = grove_graph_first_by_rank(g, n);
        if (n == 1)
            grove_vertex_set_property(g, node, "fast", "");
        grove_vertex_set_property(g, node, "perf_class", "3");
    }
    return g;
}

static grove_jobspec_t *js(const char *yaml)
{
    grove_error_t err;
    grove_jobspec_t *j = grove_jobspec_parse(yaml, strlen(yaml), NULL, &err);
    if (!j)
        diag("jobspec: %s", err.text);
    return j;
}

#define JS_HEAD "version: 9999\nresources:\n"
#define JS_TAIL \
    "attributes:\n  system:\n    duration: 3600\ntasks:\n  - command: [app]\n    slot: s\n" \
    "    count:\n      per_slot: 1\n"

/* Two whole nodes, exclusively (the cores are implied, not picked): R of
 * the job, its scheduling graph, and the shard of rank 1 released. */
static void job_exclusive(grove_graph_t *g, grove_matcher_t *m)
{
    grove_error_t err = {{0}, 0};
    grove_jobspec_t *j1 = js(JS_HEAD "  - type: node\n    count: 2\n    exclusive: true\n"
                                     "    with:\n      - type: slot\n        label: s\n"
                                     "        count: 1\n        with:\n"
                                     "          - type: core\n            count: 1\n" JS_TAIL);
    const grove_job_t *job = NULL;
    ok(j1 && grove_match(m, j1, GROVE_MATCH_ALLOCATE, 0, &job, &err) == 0, "match two nodes%s%s",
       job ? "" : ": ", job ? "" : err.text);
    grove_jobid_t id1 = job ? job->id : 0;
    grove_rv1_t *R = job ? grove_rv1_from_job(g, job, 0, &err) : NULL;
    char *s = R ? grove_rv1_encode(R, 0) : NULL;
    is_str(s,
           "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-1\",\"children\":"
           "{\"core\":\"0-7\",\"gpu\":\"0-1\",\"memory\":\"0-3\"}}],\"nodelist\":[\"node[0-1]\"],"
           "\"properties\":{\"perf_class\":\"0-1\",\"fast\":\"1\"},"
           "\"starttime\":0,\"expiration\":3600}}",
           "R of an exclusive two-node job lists what the nodes imply");
    free(s);

    /* with the graph: exactly the job's vertices and what they imply */
    grove_rv1_t *RG = job ? grove_rv1_from_job(g, job, GROVE_RV1_WITH_GRAPH, &err) : NULL;
    const json_t *sc = RG ? grove_rv1_scheduling(RG) : NULL;
    is_int(json_array_size(json_object_get(json_object_get(sc, "graph"), "nodes")),
           2 + 2 * (1 + 2 * (1 + 4 + 1 + 2)), "scheduling graph: cluster, rack and the two nodes");
    is_str(json_string_value(json_object_get(sc, "writer")), "grove", "writer is grove");
    grove_graph_t *gg = RG ? grove_rv1_to_graph(RG, &err) : NULL;
    grove_rv1_t *back = gg ? grove_rv1_from_graph(gg, 0, &err) : NULL;
    ok(back && grove_rv1_equal(back, R), "its scheduling graph reads back to the same R");
    grove_rv1_destroy(back);
    grove_graph_destroy(gg);
    /* the graph is kept as the writer made it and written as it is: the
     * same text as the tree's (json_dumps), a copy's and a pretty one's
     * the same document; a key set anew replaces it */
    grove_rv1_t *RG2 = job ? grove_rv1_from_job(g, job, GROVE_RV1_WITH_GRAPH, &err) : NULL;
    char *kept = RG2 ? grove_rv1_encode(RG2, 0) : NULL;
    json_t *tree = RG ? grove_rv1_to_json(RG, 0) : NULL;
    char *dumped = tree ? json_dumps(tree, JSON_COMPACT | JSON_REAL_PRECISION(16)) : NULL;
    is_str(kept, dumped, "R with its graph written from the text is the tree's text");
    grove_rv1_t *C = RG2 ? grove_rv1_copy(RG2) : NULL;
    char *copied = C ? grove_rv1_encode(C, 0) : NULL;
    is_str(copied, dumped, "and a copy's");
    char *pretty = RG2 ? grove_rv1_encode(RG2, GROVE_RV1_PRETTY) : NULL;
    json_t *pj = pretty ? json_loads(pretty, 0, NULL) : NULL;
    ok(pj && json_equal(pj, tree), "written pretty, the same document");
    ok(C && grove_rv1_set_scheduling_take(C, json_pack("{s:s}", "writer", "other")) == 0,
       "a scheduling key set anew");
    char *other = C ? grove_rv1_encode(C, 0) : NULL;
    ok(other && strstr(other, "\"scheduling\":{\"writer\":\"other\"}")
           && !strstr(other, "nodes"),
       "replaces the kept text");
    free(kept);
    free(dumped);
    free(copied);
    free(pretty);
    free(other);
    json_decref(tree);
    json_decref(pj);
    grove_rv1_destroy(C);
    grove_rv1_destroy(RG2);
    grove_rv1_destroy(RG);

    /* the shard of rank 1 onto the graph, and onto the job */
    grove_idset_t *one = ids("1");
    grove_rv1_t *shard = grove_rv1_restrict(R, one);
    grove_vid_t *vs = NULL;
    size_t nv = 0;
    ok(grove_rv1_to_vertices(g, shard, &vs, &nv, &err) == 0, "to_vertices of rank 1");
    is_int(nv, 1 + 2 * (1 + 4 + 1 + 2), "the whole of node1 (node, sockets, cores, gpus, memory)");
    free(vs);
    ok(grove_rv1_job_vertices(g, job, shard, &vs, &nv, &err) == 0, "job_vertices of rank 1");
    is_int(nv, 1 + 2 * (1 + 4 + 1 + 2),
           "the job's picks on rank 1: the whole of node1, asked for exclusively");
    bool removed = true;
    ok(grove_matcher_release_vertices(m, id1, vs, nv, &removed) == (long)nv && !removed,
       "release rank 1: the job stays");
    free(vs);
    job = grove_matcher_job(m, id1);
    grove_rv1_t *left = job ? grove_rv1_from_job(g, job, 0, &err) : NULL;
    grove_idset_t *zero = ids("0");
    grove_rv1_t *want = grove_rv1_restrict(R, zero);
    ok(left && grove_rv1_equal(left, want), "what is left is the shard of rank 0");
    grove_rv1_t *diff = grove_rv1_difference(R, shard, NULL);
    ok(diff && grove_rv1_equal(diff, left), "and equals R - shard");
    ok(grove_rv1_job_vertices(g, job, shard, &vs, &nv, &err) < 0 && errno == EINVAL
           && strstr(err.text, "rank 1: job 1 holds nothing there"),
       "a rank released twice: %s", err.text);
    ok(grove_rv1_job_vertices(g, job, left, &vs, &nv, &err) == 0
           && grove_matcher_release_vertices(m, id1, vs, nv, &removed) >= 1 && removed,
       "releasing the rest removes the job");
    free(vs);
    grove_rv1_destroy(diff);
    grove_rv1_destroy(want);
    grove_rv1_destroy(left);
    grove_rv1_destroy(shard);
    grove_rv1_destroy(R);
    grove_idset_destroy(one);
    grove_idset_destroy(zero);
    grove_jobspec_destroy(j1);
}

/* A shared job of 2 cores on one node, released core by core. */
static void job_shared(grove_graph_t *g, grove_matcher_t *m)
{
    grove_error_t err = {{0}, 0};
    const grove_job_t *job = NULL;
    grove_vid_t *vs = NULL;
    size_t nv = 0;
    bool removed = true;
    grove_jobspec_t *j2 = js(JS_HEAD "  - type: node\n    count: 1\n"
                                     "    with:\n      - type: slot\n        label: s\n"
                                     "        count: 1\n        with:\n"
                                     "          - type: core\n            count: 2\n" JS_TAIL);
    ok(j2 && grove_match(m, j2, GROVE_MATCH_ALLOCATE, 0, &job, &err) == 0, "match two cores");
    grove_jobid_t id2 = job ? job->id : 0;
    grove_rv1_t *R = job ? grove_rv1_from_job(g, job, 0, &err) : NULL;
    char *s = R ? grove_rv1_encode(R, 0) : NULL;
    ok(s && strstr(s, "\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0-1\"}}]"),
       "R of a two-core job: %s", s ? s : err.text);
    free(s);
    /* a core the job does not hold */
    grove_rv1_t *other = dec(EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"5\"}}]"), NULL);
    ok(grove_rv1_job_vertices(g, job, other, &vs, &nv, &err) < 0 && errno == EINVAL
           && strstr(err.text, "rank 0: job 2 does not hold core 5"),
       "shard of a core the job lacks: %s", err.text);
    grove_rv1_destroy(other);
    other = dec(EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"99\"}}]"), NULL);
    ok(grove_rv1_to_vertices(g, other, &vs, &nv, &err) < 0 && errno == ENOENT
           && strstr(err.text, "rank 0: no core 99 in the graph"),
       "shard of a core the graph lacks: %s", err.text);
    grove_rv1_destroy(other);
    other = dec(EX("\"R_lite\":[{\"rank\":\"9\",\"children\":{\"core\":\"0\"}}]"), NULL);
    ok(grove_rv1_to_vertices(g, other, &vs, &nv, &err) < 0 && errno == ENOENT
           && strstr(err.text, "rank 9: no vertex of the graph has this rank"),
       "shard of a rank the graph lacks: %s", err.text);
    grove_rv1_destroy(other);
    /* half of it: core 0 only; then the rest */
    other = dec(EX("\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0\"}}]"), NULL);
    ok(grove_rv1_to_vertices(g, other, &vs, &nv, &err) == 0 && nv == 1, "to_vertices of core 0");
    free(vs);
    ok(grove_rv1_job_vertices(g, job, other, &vs, &nv, &err) == 0 && nv == 1,
       "job_vertices of core 0: the core alone");
    ok(grove_matcher_release_vertices(m, id2, vs, nv, &removed) == 1 && !removed,
       "release core 0: the job stays");
    free(vs);
    job = grove_matcher_job(m, id2);
    grove_rv1_t *rest = grove_rv1_from_job(g, job, 0, &err);
    s = rest ? grove_rv1_encode(rest, 0) : NULL;
    ok(s && strstr(s, "\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"1\"}}]"),
       "left: core 1");
    free(s);
    ok(grove_rv1_job_vertices(g, job, rest, &vs, &nv, &err) == 0, "job_vertices of the rest");
    ok(grove_matcher_release_vertices(m, id2, vs, nv, &removed) >= 1 && removed,
       "releasing the rest (node and socket too) removes the job");
    free(vs);
    is_int(grove_matcher_job_count(m), 0, "no jobs left");
    grove_rv1_destroy(rest);
    grove_rv1_destroy(other);
    grove_rv1_destroy(R);
    grove_jobspec_destroy(j2);
}

/* R of a list of vertices: a node and a core, a bare node, errors. */
static void from_vertices(grove_graph_t *g)
{
    grove_error_t err = {{0}, 0};
    grove_vid_t *vs = NULL;
    size_t nv = 0;
    grove_sym_t cont = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    grove_vid_t n0 = grove_graph_find_path(g, cont, "/cluster0/rack0/node0");
    grove_vid_t c6 = grove_graph_find_path(g, cont, "/cluster0/rack0/node0/socket1/core6");
    grove_vid_t list[2] = {n0, c6};
    grove_rv1_t *R = grove_rv1_from_vertices(g, list, 2, 10, GROVE_TIME_MAX, 0, &err);
    char *s = R ? grove_rv1_encode(R, 0) : NULL;
    is_str(s,
           "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"6\"}}],"
           "\"nodelist\":[\"node0\"],\"properties\":{\"perf_class\":\"0\"},"
           "\"starttime\":10,\"expiration\":0}}",
           "from_vertices: node0 and core6, open-ended");
    free(s);
    grove_rv1_destroy(R);
    R = grove_rv1_from_vertices(g, &n0, 1, 0, 5, 0, &err);
    s = R ? grove_rv1_encode(R, 0) : NULL;
    ok(s && strstr(s, "\"R_lite\":[{\"rank\":\"0\",\"children\":{}}]"), "a bare node: %s", s);
    free(s);
    /* a bare rank shard takes the whole node */
    ok(grove_rv1_to_vertices(g, R, &vs, &nv, &err) == 0 && nv == 1 + 2 * (1 + 4 + 1 + 2),
       "a bare rank shard is the whole node");
    free(vs);
    grove_rv1_destroy(R);
    grove_vid_t dead = (grove_vid_t)grove_graph_vertex_slots(g) + 5;
    ok(!grove_rv1_from_vertices(g, &dead, 1, 0, 5, 0, &err) && errno == EINVAL,
       "from_vertices of a dead vertex");
    ok(!grove_rv1_from_vertices(g, &n0, 1, 5, 5, 0, &err) && errno == EINVAL,
       "from_vertices with an empty window");
    grove_vid_t n1 = grove_graph_find_path(g, cont, "/cluster0/rack0/node1");
    grove_vertex_set_rank(g, n1, 0);
    grove_vid_t both[2] = {n0, n1};
    ok(!grove_rv1_from_vertices(g, both, 2, 0, 5, 0, &err) && errno == EINVAL
           && strstr(err.text, "rank 0 is on two vertices named node0 and node1"),
       "one rank on two nodes: %s", err.text);
}

/* Jobs to R and back, shards of them released, R of vertices. */
static void test_jobs(void)
{
    grove_graph_t *g = small_graph();
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    job_exclusive(g, m);
    job_shared(g, m);
    from_vertices(g);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* An R naming billions of resources decodes (its idsets are ranges) but
 * is refused before a graph of it is built: GROVE_MAX_MEMBERS. */
static void test_expansion_limit(void)
{
    static const char text[] =
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":"
        "{\"core\":\"0-4294967294\"}}],\"starttime\":0,\"expiration\":0}}";
    grove_error_t err;
    grove_rv1_t *R = grove_rv1_decode(text, strlen(text), "huge.json", &err);
    ok(R != NULL, "an R of 4294967295 cores decodes");
    grove_graph_t *g = R ? grove_rv1_to_graph(R, &err) : NULL;
    ok(!g && errno == EOVERFLOW, "its graph is refused (EOVERFLOW)");
    is_str(err.text,
           "execution.R_lite[0]: with this entry the R_lite names more than 16777216 resources "
           "(the limit: GROVE_MAX_MEMBERS)",
           "message names the limit");
    setenv("GROVE_MAX_MEMBERS", "3", 1);
    static const char small[] =
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":"
        "{\"core\":\"0-2\"}}],\"starttime\":0,\"expiration\":0}}";
    grove_rv1_t *R2 = grove_rv1_decode(small, strlen(small), "small.json", &err);
    g = grove_rv1_to_graph(R2, &err);
    ok(!g && errno == EOVERFLOW, "GROVE_MAX_MEMBERS=3: a node and 3 cores are 4, refused");
    unsetenv("GROVE_MAX_MEMBERS");
    g = grove_rv1_to_graph(R2, &err);
    ok(g && grove_graph_vertex_count(g) == 5, "unset: built (cluster, node, 3 cores)");
    grove_graph_destroy(g);
    grove_rv1_destroy(R2);
    grove_rv1_destroy(R);
}

int main(void)
{
    unsetenv("GROVE_MAX_MEMBERS");
    test_expansion_limit();
    test_validation();
    test_writing();
    test_building();
    test_to_graph();
    test_corpus();
    test_algebra();
    test_constraint_filter();
    test_jobs();
    return done_testing();
}
