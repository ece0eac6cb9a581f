/* test_jgf.c: JSON Graph Format read and write.
 *
 * - every graph of the conformance corpus loads, loses nothing (each key
 *   the file gives is written back with the same value, every edge with
 *   its endpoints, subsystem and relationship) and round-trips to the same
 *   bytes; R documents without a scheduling graph are refused;
 * - RFC 4 defaults and relationship inference on a small document;
 * - malformed input: one row per error, asserting the whole message;
 * - state (tags, allocation records, statuses, now) round trip;
 * - subgraphs, the jansson variants, files that do not exist.
 *
 * It must not hold a vertex builder of its own (grovetest.h has it) nor
 * tests of R or the store, which read JGF too.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jgf.h"
#include "tap.h"
#include "corpus.h"
#include "grovetest.h"

/* ---- corpus ------------------------------------------------------------- */

static const json_t *graph_of(const json_t *doc)
{
    const json_t *g = json_object_get(doc, "graph");
    if (!g)
        g = json_object_get(json_object_get(doc, "scheduling"), "graph");
    return g;
}

/* Index of the node whose "id" is id in the original nodes array. */
static long node_index(const json_t *nodes, const char *id)
{
    for (size_t i = 0; i < json_array_size(nodes); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(nodes, i), "id")), id))
            return (long)i;
    return -1;
}

/* Every key the original gives (but uniq_id and exclusive, which are not
 * pool data) is written with the same value; edges keep their endpoints,
 * subsystem and relationship.  Paths of a fragment (an allocation's graph)
 * are written relative to its root: then the original ends with them. */
/* How many '/' s holds. */
static size_t depth(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '/';
    return n;
}

/* Was path a (of a vertex the file names by path only, om) written as b
 * because the vertex is named by default, basename + id (RFC 4), and its
 * ancestors may be too?  The same depth, ending with the written name. */
static bool renamed(const json_t *om, const json_t *wm, const char *a, const char *b)
{
    const char *wname = json_string_value(json_object_get(wm, "name"));
    char dflt[256];
    if (!wname) { /* written only when it is not the default */
        const char *base = json_string_value(json_object_get(wm, "basename"));
        if (!base)
            base = json_string_value(json_object_get(wm, "type"));
        snprintf(dflt, sizeof(dflt), "%s%lld", base ? base : "",
                 (long long)json_integer_value(json_object_get(wm, "id")));
        wname = dflt;
    }
    size_t bl = strlen(b), nl = strlen(wname);
    return !json_object_get(om, "name") && depth(a) == depth(b) && bl > nl
           && b[bl - nl - 1] == '/' && !strcmp(b + bl - nl, wname);
}

static int lossless(const char *name, const json_t *orig, const json_t *out, int *relative)
{
    const json_t *on = json_object_get(orig, "nodes"), *wn = json_object_get(out, "nodes");
    const json_t *oe = json_object_get(orig, "edges"), *we = json_object_get(out, "edges");
    if (json_array_size(on) != json_array_size(wn) || json_array_size(oe) != json_array_size(we)) {
        diag("%s: counts differ", name);
        return 0;
    }
    for (size_t i = 0; i < json_array_size(on); i++) {
        const json_t *om = json_object_get(json_array_get(on, i), "metadata");
        const json_t *wm = json_object_get(json_array_get(wn, i), "metadata");
        const char *key;
        const json_t *val;
        json_object_foreach((json_t *)(uintptr_t)om, key, val) {
            if (!strcmp(key, "uniq_id") || !strcmp(key, "exclusive"))
                continue;
            const json_t *w = json_object_get(wm, key);
            if (!strcmp(key, "paths")) {
                const char *sub;
                const json_t *p;
                json_object_foreach((json_t *)(uintptr_t)val, sub, p) {
                    const char *a = json_string_value(p);
                    const char *b = json_string_value(json_object_get(w, sub));
                    if (a && b && !strcmp(a, b))
                        continue;
                    if (a && b && strlen(a) > strlen(b) && !strcmp(a + strlen(a) - strlen(b), b)
                        && a[strlen(a) - strlen(b) - 1] != '/' && b[0] == '/') {
                        (*relative)++;
                        continue;
                    }
                    if (a && b && renamed(om, wm, a, b)) {
                        (*relative)++;
                        continue;
                    }
                    diag("%s: nodes[%zu].metadata.paths.%s: %s became %s", name, i, sub,
                         a ? a : "?", b ? b : "(none)");
                    return 0;
                }
                continue;
            }
            if (!w || !json_equal((json_t *)(uintptr_t)val, (json_t *)(uintptr_t)w)) {
                char *a = json_dumps(val, JSON_ENCODE_ANY), *b = w ? json_dumps(w, JSON_ENCODE_ANY) : NULL;
                diag("%s: nodes[%zu].metadata.%s: %s became %s", name, i, key, a,
                     b ? b : "(none)");
                free(a);
                free(b);
                return 0;
            }
        }
    }
    for (size_t i = 0; i < json_array_size(oe); i++) {
        const json_t *o = json_array_get(oe, i), *w = json_array_get(we, i);
        long s = node_index(on, json_string_value(json_object_get(o, "source")));
        long t = node_index(on, json_string_value(json_object_get(o, "target")));
        char buf[32];
        snprintf(buf, sizeof(buf), "%ld", s);
        bool ok1 = !strcmp(buf, json_string_value(json_object_get(w, "source")));
        snprintf(buf, sizeof(buf), "%ld", t);
        ok1 = ok1 && !strcmp(buf, json_string_value(json_object_get(w, "target")));
        const json_t *omd = json_object_get(o, "metadata");
        const json_t *wmd = json_object_get(w, "metadata");
        const char *osub = json_string_value(json_object_get(omd, "subsystem"));
        const char *orel = json_string_value(json_object_get(omd, "relationship"));
        ok1 = ok1 && !strcmp(osub ? osub : "containment",
                             json_string_value(json_object_get(wmd, "subsystem")));
        const char *wrel = json_string_value(json_object_get(wmd, "relationship"));
        ok1 = ok1 && wrel && (orel ? !strcmp(orel, wrel)
                                   : (!strcmp(wrel, "contains") || !strcmp(wrel, "in")));
        if (!ok1) {
            diag("%s: edges[%zu] changed", name, i);
            return 0;
        }
    }
    return 1;
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void corpus_file(const char *rel)
{
    const char *path = tap_conformance(rel);
    grove_error_t err;
    grove_graph_t *g = grove_jgf_load(path, &err);
    if (!ok(g != NULL, "%s loads", rel)) {
        diag("%s", err.text);
        return;
    }
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    const json_t *orig = graph_of(doc);
    is_int(grove_graph_vertex_count(g), json_array_size(json_object_get(orig, "nodes")),
           "%s: a vertex per node", rel);
    is_int(grove_graph_edge_count(g), json_array_size(json_object_get(orig, "edges")),
           "%s: an edge per edge", rel);

    /* the original document through the jansson reader: the same shape */
    grove_graph_t *gj = grove_jgf_read_json(doc, rel, &err);
    ok(gj && grove_graph_vertex_count(gj) == grove_graph_vertex_count(g)
           && grove_graph_edge_count(gj) == grove_graph_edge_count(g),
       "%s: the parsed document reads the same", rel);
    grove_graph_destroy(gj);

    for (int compact = 0; compact < 2; compact++) {
        int flags = compact ? GROVE_JGF_COMPACT : 0;
        char *t1 = grove_jgf_write(g, flags);
        grove_graph_t *g2 = t1 ? grove_jgf_read(t1, strlen(t1), "first write", &err) : NULL;
        if (!g2)
            diag("%s", err.text);
        char *t2 = g2 ? grove_jgf_write(g2, flags) : NULL;
        ok(t1 && t2 && !strcmp(t1, t2), "%s: read, write, read, write: same bytes%s", rel,
           compact ? " (compact)" : "");
        if (!compact) {
            json_t *out = json_loads(t1, 0, &jerr);
            int relative = 0;
            ok(out && lossless(rel, orig, graph_of(out), &relative), "%s: nothing lost", rel);
            if (relative)
                diag("%s: %d paths written relative to the fragment's root", rel, relative);
            /* the jansson reader gives the same graph */
            grove_graph_t *g3 = grove_jgf_read_json(out, rel, &err);
            char *t3 = g3 ? grove_jgf_write(g3, 0) : NULL;
            ok(t3 && !strcmp(t1, t3), "%s: read from a json_t: same graph", rel);
            free(t3);
            grove_graph_destroy(g3);
            json_decref(out);
        }
        free(t1);
        free(t2);
        grove_graph_destroy(g2);
    }
    json_decref(doc);
    grove_graph_destroy(g);
}

static void test_corpus(void)
{
    static const char *const dirs[] = {"fluxion/jgfs", "fluxion/jgfs/elastic"};
    int files = 0;
    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        struct dirent **list;
        int n = scandir(tap_conformance(dirs[d]), &list, NULL, cmp_names);
        if (!ok(n > 0, "%s is readable", dirs[d]))
            continue;
        for (int i = 0; i < n; i++) {
            const char *nm = list[i]->d_name;
            size_t l = strlen(nm);
            if (l > 5 && !strcmp(nm + l - 5, ".json")) {
                char rel[512];
                snprintf(rel, sizeof(rel), "%s/%s", dirs[d], nm);
                corpus_file(rel);
                files++;
            }
            free(list[i]);
        }
        free(list);
    }
    is_int(files, 17, "the corpus has 17 JGF files, all tested");

    /* R documents without a scheduling graph are not graphs */
    grove_error_t err;
    char want[1024];
    const char *rel = "fluxion/rv1exec/tiny_rv1exec.json";
    grove_graph_t *g = grove_jgf_load(tap_conformance(rel), &err);
    snprintf(want, sizeof(want), "%s: top level: no \"graph\" (nor \"scheduling\".\"graph\")",
             tap_conformance(rel));
    ok(g == NULL && errno == EINVAL, "%s: refused, it has no graph", rel);
    is_str(err.text, want, "%s: the message says so", rel);
}

/* ---- defaults ------------------------------------------------------------ */

/* A document that leaves most keys to their defaults. */
static const char *const defaults_doc =
        "{\"graph\": {\"nodes\": ["
        "{\"id\": \"a\", \"metadata\": {\"type\": \"cluster\", \"name\": \"c\","
        " \"paths\": {\"containment\": \"/c\"}}},"
        "{\"id\": \"b\", \"metadata\": {\"type\": \"rack\", \"id\": 3,"
        " \"paths\": {\"containment\": \"/c/rack3\"}}},"
        "{\"id\": \"x\", \"metadata\": {\"type\": \"ssd\", \"size\": 10, \"unit\": \"GiB\","
        " \"paths\": {\"containment\": \"/c/rack3/ssd0\"}}},"
        "{\"id\": \"n\", \"metadata\": {\"type\": \"node\", \"basename\": \"host\", \"id\": 7,"
        " \"rank\": 2, \"status\": \"drained\", \"properties\": {\"arch\": \"x86\"},"
        " \"uuid\": \"0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0\"}},"
        "{\"id\": \"p\", \"metadata\": {\"type\": \"pdu\", \"properties\": [\"fast\"],"
        " \"status\": 1, \"paths\": {\"power\": \"/pdu\"}}}"
        "], \"edges\": ["
        "{\"source\": \"a\", \"target\": \"b\"},"
        "{\"source\": \"b\", \"target\": \"a\"},"
        "{\"source\": \"b\", \"target\": \"x\", \"metadata\": {\"subsystem\": \"containment\"}},"
        "{\"source\": \"b\", \"target\": \"n\","
        " \"metadata\": {\"name\": {\"containment\": \"contains\"}}},"
        "{\"source\": \"p\", \"target\": \"n\", \"relation\": \"supplies\","
        " \"metadata\": {\"subsystem\": \"power\"}}"
        "]}}";

static void defaults_written(const grove_graph_t *g);

/* What the reader fills in for the keys a document leaves out. */
static void test_defaults(void)
{
    grove_error_t err;
    grove_graph_t *g = grove_jgf_read(defaults_doc, strlen(defaults_doc), "defaults", &err);
    if (!ok(g != NULL, "defaults: the document loads")) {
        diag("%s", err.text);
        return;
    }
    struct {
        const char *type, *basename, *name, *unit;
        int64_t id, rank, size;
        grove_status_t status;
        const char *path;
    } want[] = {
        {"cluster", "cluster", "c", "", -1, -1, 1, GROVE_STATUS_UP, "/c"},
        {"rack", "rack", "rack3", "", 3, -1, 1, GROVE_STATUS_UP, "/c/rack3"},
        {"ssd", "ssd", "ssd0", "GiB", -1, -1, 10, GROVE_STATUS_UP, "/c/rack3/ssd0"},
        {"node", "host", "host7", "", 7, 2, 1, GROVE_STATUS_DRAINED, "/c/rack3/host7"},
        {"pdu", "pdu", "pdu", "", -1, -1, 1, GROVE_STATUS_DOWN, NULL},
    };
    grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
    for (grove_vid_t v = 0; v < 5; v++) {
        char path[256] = "";
        grove_vertex_path(g, v, cont, path, sizeof(path));
        ok(!strcmp(grove_vertex_type(g, v), want[v].type)
               && !strcmp(grove_vertex_basename(g, v), want[v].basename)
               && !strcmp(grove_vertex_name(g, v), want[v].name)
               && !strcmp(grove_vertex_unit(g, v), want[v].unit)
               && grove_vertex_id(g, v) == want[v].id && grove_vertex_rank(g, v) == want[v].rank
               && grove_vertex_size(g, v) == want[v].size
               && grove_vertex_status(g, v) == want[v].status
               && (!want[v].path || !strcmp(path, want[v].path)),
           "defaults: vertex %u is %s %s", v, want[v].type, want[v].name);
    }
    is_str(grove_vertex_property(g, 3, "arch"), "x86", "defaults: properties as an object");
    is_str(grove_vertex_property(g, 4, "fast"), "", "defaults: properties as a list of names");
    char uuid[37];
    grove_vertex_uuid(g, 3, uuid);
    is_str(uuid, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", "defaults: the uuid is kept");
    struct {
        const char *sub, *rel;
        bool up;
    } edges[] = {
        {"containment", "contains", false}, /* no metadata */
        {"containment", "in", true},        /* target is the path-parent of the source */
        {"containment", "contains", false}, /* no relationship, parent -> child */
        {"containment", "contains", false}, /* the older metadata.name form */
        {"power", "supplies", false},       /* the edge's JGF "relation" */
    };
    for (grove_eid_t e = 0; e < 5; e++)
        ok(!strcmp(grove_graph_str(g, grove_edge_subsystem(g, e)), edges[e].sub)
               && !strcmp(grove_graph_str(g, grove_edge_relation(g, e)), edges[e].rel)
               && grove_edge_is_up(g, e) == edges[e].up,
           "defaults: edge %u is %s %s", e, edges[e].sub, edges[e].rel);
    is_int(grove_edge_opposite(g, 0), 1, "defaults: the in edge pairs with its contains edge");
    is_int(grove_vertex_parent(g, 3, cont), 1, "defaults: containment parent from the edges");
    char path[64];
    grove_vertex_path(g, 3, grove_graph_sym(g, "power"), path, sizeof(path));
    is_str(path, "/pdu/host7", "defaults: paths in another subsystem");
    defaults_written(g);
    grove_graph_destroy(g);
}

/* The defaults document written back: every key, node ids as vertex ids. */
static void defaults_written(const grove_graph_t *g)
{
    char *t = grove_jgf_write(g, GROVE_JGF_COMPACT);
    const char *node3 =
        "{\"id\":\"3\",\"metadata\":{\"type\":\"node\",\"basename\":\"host\",\"name\":\"host7\","
        "\"id\":7,\"uniq_id\":3,\"rank\":2,\"exclusive\":false,\"unit\":\"\",\"size\":1,"
        "\"uuid\":\"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\",\"status\":\"drained\","
        "\"properties\":{\"arch\":\"x86\"},"
        "\"paths\":{\"containment\":\"/c/rack3/host7\",\"power\":\"/pdu/host7\"}}}";
    ok(t && strstr(t, node3), "defaults: a node is written with every key");
    ok(t && strstr(t, "{\"source\":\"1\",\"target\":\"0\",\"metadata\":{\"subsystem\":"
                      "\"containment\",\"relationship\":\"in\"}}"),
       "defaults: an edge is written with subsystem and relationship");
    ok(t && strstr(t, "\"status\":1,\"properties\":{\"fast\":\"\"}"),
       "defaults: down is written as 1");
    ok(t && !strstr(t, "\"grove\""), "defaults: no state without GROVE_JGF_WITH_STATE");
    free(t);
}

/* Edges before nodes, a lone vertex, an empty graph and other shapes of
 * document: they load and round-trip. */
static void test_shapes(void)
{
    grove_error_t err;
    struct {
        const char *name, *doc;
        size_t nv, ne;
    } rows[] = {
        {"edges first",
         "{\"graph\":{\"edges\":[{\"source\":\"1\",\"target\":\"0\",\"metadata\":"
         "{\"relationship\":\"in\"}}],\"nodes\":[{\"id\":\"0\",\"metadata\":{\"type\":\"a\"}},"
         "{\"id\":\"1\",\"metadata\":{\"type\":\"b\"}}]}}",
         2, 1},
        {"no edges key", "{\"graph\":{\"nodes\":[{\"id\":\"0\",\"metadata\":{\"type\":\"a\"}}]}}",
         1, 0},
        {"empty graph", "{\"graph\":{\"nodes\":[],\"edges\":[]}}", 0, 0},
        {"R document", "{\"version\":1,\"scheduling\":{\"writer\":\"fluxion:jgf\",\"graph\":"
                       "{\"nodes\":[{\"id\":\"k\",\"metadata\":{\"type\":\"a\"}}]}}}",
         1, 0},
        {"escapes and unicode",
         "{\"graph\":{\"nodes\":[{\"id\":\"\\u00e9\\ud83d\\ude00\",\"metadata\":{\"type\":"
         "\"n\\\"q\",\"name\":\"\xc3\xa9t\\u00e9\",\"properties\":{\"k\\tx\":\"v\\n\"}}}]}}",
         1, 0},
        {"unknown keys", "{\"x\":[1,2.5e3,{\"y\":null}],\"graph\":{\"label\":\"l\",\"nodes\":"
                         "[{\"id\":\"0\",\"label\":true,\"metadata\":{\"type\":\"a\","
                         "\"color\":{\"r\":-1}}}],\"directed\":false}}",
         1, 0},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_graph_t *g = grove_jgf_read(rows[i].doc, strlen(rows[i].doc), rows[i].name, &err);
        if (!g)
            diag("%s", err.text);
        ok(g && grove_graph_vertex_count(g) == rows[i].nv
               && grove_graph_edge_count(g) == rows[i].ne,
           "%s: %zu vertices, %zu edges", rows[i].name, rows[i].nv, rows[i].ne);
        char *t1 = g ? grove_jgf_write(g, 0) : NULL;
        grove_graph_t *g2 = t1 ? grove_jgf_read(t1, strlen(t1), "w", &err) : NULL;
        char *t2 = g2 ? grove_jgf_write(g2, 0) : NULL;
        ok(t1 && t2 && !strcmp(t1, t2), "%s: round trip", rows[i].name);
        if (i == 4 && g) {
            is_str(grove_vertex_type(g, 0), "n\"q", "escapes: type");
            is_str(grove_vertex_name(g, 0), "\xc3\xa9t\xc3\xa9", "escapes: name");
            is_str(grove_vertex_property(g, 0, "k\tx"), "v\n", "escapes: property");
        }
        if (i == 1 && t1)
            ok(strstr(t1, "\"containment\": \"/a0\"") != NULL,
               "a lone vertex has a path (named basename + its inferred id)");
        free(t1);
        free(t2);
        grove_graph_destroy(g);
        grove_graph_destroy(g2);
    }
}

/* ---- malformed input ------------------------------------------------------ */

#define N0 "{\"id\":\"0\",\"metadata\":{\"type\":\"rack\",\"paths\":{\"containment\":\"/rack\"}}}"
#define N1 "{\"id\":\"1\",\"metadata\":{\"type\":\"node\",\"id\":1}}"
#define DOC(nodes, edges) "{\"graph\":{\"nodes\":[" nodes "],\"edges\":[" edges "]}}"
#define META(m) DOC(N0 ",{\"id\":\"1\",\"metadata\":{" m "}}", "")
#define EDGE(e) DOC(N0 "," N1, e)
#define E01 "{\"source\":\"0\",\"target\":\"1\"}"
#define U1 "\"uuid\":\"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\""

/* Documents the reader refuses, with the message it gives.  Rows named
 * "text only: ..." are not tried through jansson, which keeps the last of
 * duplicate keys. */
/* A row of core/test/vectors/jgf_errors.tsv: a document the reader must
 * refuse with the message; the same document as a json_t gives the message
 * without its position. */
static void error_row(int lineno, char **f)
{
    const char *name = f[0], *doc = f[1], *msg = f[2];
    grove_error_t err;
    errno = 0;
    grove_graph_t *g = grove_jgf_read(doc, strlen(doc), "t.json", &err);
    ok(g == NULL && errno == EINVAL, "line %d refused: %s", lineno, name);
    is_str(err.text, msg, "message: %s", name);
    grove_graph_destroy(g);
    json_error_t jerr;
    bool text_only = !strncmp(name, "text only:", 10);
    json_t *j = text_only ? NULL : json_loads(doc, 0, &jerr);
    if (j) {
        g = grove_jgf_read_json(j, "t.json", &err);
        const char *want = strchr(msg, ' ');
        char *got = strchr(err.text, ' ');
        ok(g == NULL && errno == EINVAL && want && got && !strcmp(want, got),
           "refused from a json_t: %s", name);
        if (!(want && got && !strcmp(want, got)))
            diag("got '%s'", err.text);
        grove_graph_destroy(g);
        json_decref(j);
    }
}

static void test_errors(void)
{
    ok(vectors_run("jgf_errors.tsv", 3, error_row) >= 87, "JGF error vectors");
    /* no source name */
    grove_error_t err;
    grove_graph_t *g = grove_jgf_read("[]", 2, NULL, &err);
    is_str(err.text, "top level: expected an object, got an array", "no source: no prefix");
    grove_graph_destroy(g);
    /* a file that does not exist */
    g = grove_jgf_load("/nonexistent/grove.json", &err);
    ok(g == NULL && errno == ENOENT, "load: ENOENT for a missing file");
    is_str(err.text, "/nonexistent/grove.json: No such file or directory", "load: message");
    /* NULL json */
    g = grove_jgf_read_json(NULL, "x", &err);
    ok(g == NULL && errno == EINVAL, "read_json(NULL): EINVAL");
}

/* ---- state ---------------------------------------------------------------- */

static void test_state(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t c = test_vertex(g, "cluster", 0, 1, GROVE_VID_NONE);
    grove_vid_t n0 = test_vertex(g, "node", 0, 1, c), n1 = test_vertex(g, "node", 1, 1, c);
    grove_vid_t cores[4], mem = test_vertex(g, "memory", 0, 64, n1);
    for (int i = 0; i < 4; i++)
        cores[i] = test_vertex(g, "core", i, 1, i < 2 ? n0 : n1);
    grove_vertex_tag(g, n0, "drain-reason", "bad dimm");
    grove_vertex_tag(g, n0, "checked", NULL);
    grove_vertex_set_property(g, n1, "arch", "arm");
    grove_graph_set_now(g, 100);
    ok(grove_vertex_allocate(g, n0, 7, 1, 100, 200, true) == 0, "state: job 7 holds node0");
    ok(grove_vertex_allocate(g, cores[2], 8, 1, 100, GROVE_TIME_MAX, false) == 0,
       "state: job 8 holds core2, open-ended");
    ok(grove_vertex_allocate(g, mem, 8, 16, 100, 300, false) == 0, "state: job 8 memory");
    ok(grove_vertex_allocate(g, mem, 9, 32, 300, 400, false) == 0, "state: job 9 reserves");
    ok(grove_vertex_allocate(g, mem, 10, 8, 400, 500, true) == 0, "state: job 10 asks x");
    grove_vertex_set_status(g, cores[3], GROVE_STATUS_DOWN);
    grove_vertex_set_status(g, n0, GROVE_STATUS_EXCLUDED);

    char *t1 = grove_jgf_write(g, GROVE_JGF_WITH_STATE);
    grove_error_t err;
    grove_graph_t *g2 = t1 ? grove_jgf_read(t1, strlen(t1), "state", &err) : NULL;
    if (!ok(g2 != NULL, "state: reads back"))
        diag("%s", err.text);
    char *t2 = g2 ? grove_jgf_write(g2, GROVE_JGF_WITH_STATE) : NULL;
    ok(t1 && t2 && !strcmp(t1, t2), "state: read, write: same bytes");
    ok(t1 && strstr(t1, "\"now\": 100"), "state: now is written");
    ok(t1 && strstr(t1, "\"records\": [\n"), "state: records are written");
    if (g2) {
        is_int(grove_graph_now(g2), 100, "state: now restored");
        const char *val = NULL;
        ok(grove_vertex_has_tag(g2, n0, "drain-reason", &val) && val && !strcmp(val, "bad dimm"),
           "state: tag with a value");
        ok(grove_vertex_has_tag(g2, n0, "checked", &val) && val == NULL,
           "state: tag without a value");
        is_int(grove_vertex_status(g2, n0), GROVE_STATUS_EXCLUDED, "state: status excluded");
        is_int(grove_vertex_status(g2, cores[3]), GROVE_STATUS_DOWN, "state: status down");
        grove_jobid_t job = 0;
        ok(grove_vertex_held_exclusively(g2, cores[0], 100, &job) && job == 7,
           "state: node0 held exclusively by 7 (its cores implied)");
        is_int(grove_vertex_allocated_at(g2, mem, 160), 16, "state: memory at 160");
        ok(grove_vertex_available_during(g2, mem, 400, 500) == 0
               && grove_vertex_available_during(g2, mem, 300, 400) == 32,
           "state: asked exclusivity restored");
        is_int(grove_vertex_allocated_at(g2, mem, 350), 32, "state: memory at 350");
        is_int(grove_vertex_allocated_at(g2, cores[2], 1000000), 1, "state: open-ended record");
        is_int(grove_vertex_record_count(g2, n1), grove_vertex_record_count(g, n1),
               "state: shared annotations rebuilt");
        size_t same = 0, n = grove_vertex_record_count(g, mem);
        for (size_t i = 0; i < n; i++) {
            grove_record_t a, b;
            grove_vertex_record_at(g, mem, i, &a);
            grove_vertex_record_at(g2, mem, i, &b);
            same += a.job == b.job && a.amount == b.amount && a.start == b.start
                    && a.end == b.end && a.exclusive == b.exclusive && a.kind == b.kind;
        }
        is_int(same, n, "state: records restored in order");
    }
    /* without the flag, exclusive says what is held exclusively now */
    char *t3 = grove_jgf_write(g, GROVE_JGF_COMPACT);
    ok(t3 && !strstr(t3, "\"grove\"") && !strstr(t3, "records"), "no state: no grove key");
    ok(t3 && strstr(t3, "\"name\":\"core0\",\"id\":0,\"uniq_id\":4,\"rank\":-1,\"exclusive\":true"),
       "no state: an implied core is exclusive");
    ok(t3 && strstr(t3, "\"name\":\"core2\",\"id\":2,\"uniq_id\":6,\"rank\":-1,\"exclusive\":true"),
       "no state: a core all taken is exclusive");
    ok(t3 && strstr(t3, "\"name\":\"memory0\",\"id\":0,\"uniq_id\":3,\"rank\":-1,\"exclusive\":false"),
       "no state: memory partly taken is not exclusive");
    free(t1);
    free(t2);
    free(t3);
    grove_graph_destroy(g2);

    /* a subgraph: nodes in the order given, edges between them */
    grove_vid_t pick[] = {cores[0], n0, n0, 999, c};
    char *s = grove_jgf_write_vertices(g, pick, 5, GROVE_JGF_COMPACT);
    json_error_t jerr;
    json_t *j = s ? json_loads(s, 0, &jerr) : NULL;
    const json_t *nodes = json_object_get(json_object_get(j, "graph"), "nodes");
    const json_t *edges = json_object_get(json_object_get(j, "graph"), "edges");
    is_int(json_array_size(nodes), 3, "subgraph: three nodes (duplicates and bad ids skipped)");
    is_str(json_string_value(json_object_get(json_array_get(nodes, 0), "id")), "4",
           "subgraph: in the order given");
    is_int(json_array_size(edges), 4, "subgraph: the edges between them");
    ok(s && strstr(s, "\"paths\":{\"containment\":\"/cluster0/node0/core0\"}"),
       "subgraph: full paths");
    json_decref(j);
    grove_graph_t *gs = s ? grove_jgf_read(s, strlen(s), "sub", &err) : NULL;
    ok(gs && grove_graph_vertex_count(gs) == 3, "subgraph: reads back");
    grove_graph_destroy(gs);
    free(s);

    j = grove_jgf_write_json(g, NULL, 0, 0);
    nodes = json_object_get(json_object_get(j, "graph"), "nodes");
    is_int(json_array_size(nodes), 8, "write_json: every vertex");
    grove_graph_t *gj = grove_jgf_read_json(j, "json", &err);
    ok(gj && grove_graph_vertex_count(gj) == 8 && grove_graph_edge_count(gj) == 14,
       "write_json: reads back");
    grove_graph_destroy(gj);
    json_decref(j);
    j = grove_jgf_write_json(g, pick, 2, 0);
    is_int(json_array_size(json_object_get(json_object_get(j, "graph"), "nodes")), 2,
           "write_json: a subgraph");
    json_decref(j);
    grove_graph_destroy(g);
}

/* Inputs that would cost far more than their size: /dev/zero (refused at
 * its first byte), a chain deeper than GROVE_MAX_DEPTH, a pool larger than
 * GROVE_MAX_SIZE. */
static void test_limits(void)
{
    grove_error_t err;
    grove_graph_t *g = grove_jgf_load("/dev/zero", &err);
    ok(!g && errno == EINVAL, "/dev/zero: refused");
    is_str(err.text, "/dev/zero: byte 0 is NUL: not a text file", "/dev/zero: message");
    char text[4096];
    int n = snprintf(text, sizeof(text), "{\"graph\":{\"nodes\":[");
    for (int i = 0; i < 4; i++)
        n += snprintf(text + n, sizeof(text) - (size_t)n,
                      "%s{\"id\":\"%d\",\"metadata\":{\"type\":\"t\",\"name\":\"t%d\"}}",
                      i ? "," : "", i, i);
    n += snprintf(text + n, sizeof(text) - (size_t)n, "],\"edges\":[");
    for (int i = 1; i < 4; i++)
        n += snprintf(text + n, sizeof(text) - (size_t)n,
                      "%s{\"source\":\"%d\",\"target\":\"%d\"}", i > 1 ? "," : "", i - 1, i);
    snprintf(text + n, sizeof(text) - (size_t)n, "]}}");
    setenv("GROVE_MAX_DEPTH", "3", 1);
    g = grove_jgf_read(text, strlen(text), "chain.json", &err);
    ok(!g && errno == EOVERFLOW, "GROVE_MAX_DEPTH=3: a chain of 4 refused");
    is_str(err.text,
           "chain.json: a containment chain deeper than 3 vertices (the limit: GROVE_MAX_DEPTH)",
           "depth: message");
    setenv("GROVE_MAX_DEPTH", "4", 1);
    g = grove_jgf_read(text, strlen(text), "chain.json", &err);
    ok(g != NULL, "GROVE_MAX_DEPTH=4: accepted");
    grove_graph_destroy(g);
    unsetenv("GROVE_MAX_DEPTH");
    static const char big[] = "{\"graph\":{\"nodes\":[{\"id\":\"0\",\"metadata\":{\"type\":"
                              "\"memory\",\"size\":9223372036854775807}}]}}";
    g = grove_jgf_read(big, strlen(big), "big.json", &err);
    ok(!g && errno == EOVERFLOW && strstr(err.text, "big.json:1:")
           && strstr(err.text, "nodes[0].metadata.size: 9223372036854775807 is larger than the "
                               "pool size limit 9007199254740992 (GROVE_MAX_SIZE)"),
       "a pool near 2^63 refused: %s", err.text);
}

/* The paths a vertex's ancestors were written with serve it: a vertex met
 * before its parent (ids out of depth-first order), siblings, and a chain
 * of 500 written and read back with whole paths; then a chain of 100,000
 * (inside GROVE_MAX_DEPTH) without paths, linear in the graph, read back
 * with the same depth and written again to the same bytes. */
static void test_deep(void)
{
    grove_error_t err;
    grove_graph_t *g = grove_graph_create();
    grove_vid_t root = test_vertex(g, "root", 0, 1, GROVE_VID_NONE);
    grove_vid_t x = test_vertex(g, "x", 0, 1, GROVE_VID_NONE);
    grove_vid_t y = test_vertex(g, "y", 0, 1, GROVE_VID_NONE);
    test_vertex(g, "z", 0, 1, root);
    ok(grove_graph_add_child(g, root, y, NULL, &err) == 0
           && grove_graph_add_child(g, y, x, NULL, &err) == 0,
       "paths: x linked below y, which is linked below the root");
    char *text = grove_jgf_write(g, GROVE_JGF_COMPACT);
    ok(text && strstr(text, "\"paths\":{\"containment\":\"/root0/y0/x0\"}")
           && strstr(text, "\"paths\":{\"containment\":\"/root0/y0\"}")
           && strstr(text, "\"paths\":{\"containment\":\"/root0/z0\"}"),
       "paths: a child written before its parent, then the parent, then a sibling");
    free(text);
    grove_graph_destroy(g);

    /* a chain of 500 with whole paths */
    g = grove_graph_create();
    grove_vid_t v = GROVE_VID_NONE;
    for (int i = 0; i < 500; i++)
        v = test_vertex(g, "box", i, 1, v);
    text = grove_jgf_write(g, GROVE_JGF_COMPACT);
    grove_graph_t *g2 = text ? grove_jgf_read(text, strlen(text), "chain500", &err) : NULL;
    char *again = g2 ? grove_jgf_write(g2, GROVE_JGF_COMPACT) : NULL;
    ok(again && !strcmp(text, again), "a chain of 500: whole paths read back, the same bytes");
    ok(text && strstr(text, "/box497/box498/box499\"}"), "a chain of 500: the deepest path");
    free(text);
    free(again);
    grove_graph_destroy(g2);
    grove_graph_destroy(g);

    /* a chain of 100,000 without paths */
    enum { DEEP = 100000 };
    g = grove_graph_create();
    v = GROVE_VID_NONE;
    for (int i = 0; i < DEEP; i++)
        v = test_vertex(g, "box", i, 1, v);
    size_t len = 0;
    text = grove_jgf_write(g, GROVE_JGF_COMPACT | GROVE_JGF_NO_PATHS);
    len = text ? strlen(text) : 0;
    ok(text && !strstr(text, "\"paths\"") && len < (size_t)DEEP * 1000,
       "a chain of 100,000 without paths: %zu bytes, under 1,000 a vertex", len);
    g2 = text ? grove_jgf_read(text, len, "chain100k", &err) : NULL;
    ok(g2 != NULL, "a chain of 100,000: read back (%s)", g2 ? "" : err.text);
    size_t depth = 0;
    grove_sym_t cont = g2 ? grove_graph_sym_lookup(g2, GROVE_CONTAINMENT) : GROVE_SYM_NONE;
    for (grove_vid_t p = g2 ? (grove_vid_t)(DEEP - 1) : GROVE_VID_NONE; p != GROVE_VID_NONE;
         p = grove_vertex_parent(g2, p, cont))
        depth++;
    is_int((long long)depth, DEEP, "a chain of 100,000: the deepest vertex under all the others");
    again = g2 ? grove_jgf_write(g2, GROVE_JGF_COMPACT | GROVE_JGF_NO_PATHS) : NULL;
    ok(again && !strcmp(text, again), "a chain of 100,000: written again, the same bytes");
    free(text);
    free(again);
    grove_graph_destroy(g2);
    grove_graph_destroy(g);
}

/* Short (GROVE_JGF_SHORT): the defaults left out, one edge a containment
 * link, ids the places in the list; read back to the same vertices (type,
 * name, id, rank, size, unit, properties, status, paths), and written
 * again the same. */
static void test_short(void)
{
    grove_error_t err;
    grove_graph_t *g = grove_graph_create();
    grove_vid_t c = test_vertex(g, "cluster", 0, 1, GROVE_VID_NONE);
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "node";
    info.basename = "tuo";
    info.id = 7;
    info.rank = 3;
    grove_vid_t n = grove_graph_add_vertex(g, &info);
    grove_graph_add_child(g, c, n, NULL, &err);
    grove_vid_t s = test_vertex(g, "socket", 0, 1, n);
    grove_vid_t k0 = test_vertex(g, "core", 0, 1, s), k1 = test_vertex(g, "core", 1, 1, s);
    grove_vertex_info_init(&info);
    info.type = "memory";
    info.id = 0;
    info.size = 16;
    info.unit = "GB";
    grove_vid_t m = grove_graph_add_vertex(g, &info);
    grove_graph_add_child(g, s, m, NULL, &err);
    grove_vertex_set_property(g, k1, "fast", "");
    grove_vertex_set_status(g, k1, GROVE_STATUS_DOWN);
    grove_vertex_set_rank(g, s, 3);
    grove_vertex_set_rank(g, k0, 3);
    grove_vertex_set_rank(g, k1, 3);
    /* the node, the socket, core1 and the memory; core0 left out */
    grove_vid_t list[] = {c, n, s, k1, m};
    char *text = grove_jgf_write_vertices(g, list, 5, GROVE_JGF_COMPACT | GROVE_JGF_SHORT);
    is_str(text,
           "{\"graph\":{\"nodes\":["
           "{\"id\":\"0\",\"metadata\":{\"type\":\"cluster\",\"id\":0,\"paths\":"
           "{\"containment\":\"/cluster0\"}}},"
           "{\"id\":\"1\",\"metadata\":{\"type\":\"node\",\"basename\":\"tuo\",\"id\":7,"
           "\"rank\":3,\"paths\":{\"containment\":\"/cluster0/tuo7\"}}},"
           "{\"id\":\"2\",\"metadata\":{\"type\":\"socket\",\"id\":0,\"rank\":3,\"paths\":"
           "{\"containment\":\"/cluster0/tuo7/socket0\"}}},"
           "{\"id\":\"3\",\"metadata\":{\"type\":\"core\",\"id\":1,\"rank\":3,\"status\":1,"
           "\"properties\":{\"fast\":\"\"},\"paths\":{\"containment\":"
           "\"/cluster0/tuo7/socket0/core1\"}}},"
           "{\"id\":\"4\",\"metadata\":{\"type\":\"memory\",\"id\":0,\"unit\":\"GB\","
           "\"size\":16,\"paths\":{\"containment\":\"/cluster0/tuo7/socket0/memory0\"}}}],"
           "\"edges\":[{\"source\":\"0\",\"target\":\"1\"},{\"source\":\"1\",\"target\":\"2\"},"
           "{\"source\":\"2\",\"target\":\"3\"},{\"source\":\"2\",\"target\":\"4\"}]}}",
           "short: defaults left out, one edge a link, ids the places in the list");
    grove_graph_t *g2 = text ? grove_jgf_read(text, strlen(text), "short", &err) : NULL;
    if (ok(g2 != NULL, "short: read back")) {
        grove_vid_t core1 = grove_graph_find_path(g2, grove_graph_sym_lookup(g2, GROVE_CONTAINMENT),
                                                  "/cluster0/tuo7/socket0/core1");
        ok(core1 != GROVE_VID_NONE && grove_vertex_rank(g2, core1) == 3
               && grove_vertex_status(g2, core1) == GROVE_STATUS_DOWN
               && grove_vertex_property(g2, core1, "fast") != NULL,
           "short: core1's rank, status and property");
        ok(!strcmp(grove_vertex_name(g2, 1), "tuo7") && grove_vertex_id(g2, 1) == 7,
           "short: the node's name and id");
        char *again = grove_jgf_write(g2, GROVE_JGF_COMPACT | GROVE_JGF_SHORT);
        is_str(again ? again : "", text, "short: the graph read back writes the same");
        free(again);
    }
    grove_graph_destroy(g2);
    free(text);
    grove_graph_destroy(g);
}

/* The vertices named name in g (the first in *first), by the index. */
static size_t by_name(const grove_graph_t *g, const char *name, grove_vid_t *first)
{
    grove_sym_t s = grove_graph_sym_lookup(g, name);
    size_t n = 0;
    if (s == GROVE_SYM_NONE)
        return 0;
    for (grove_vid_t v = grove_graph_first_by_name(g, s); v != GROVE_VID_NONE;
         v = grove_vertex_next_same_name(g, v))
        if (n++ == 0 && first)
            *first = v;
    return n;
}

/* Names: most vertices keep none of their own (basename + id is read from
 * the graph's tables); one given that differs, one set later, one set back
 * to the default, one past 31 bits of id and one with no id each read back
 * as set, in a duplicate, and through a JGF written and read again. */
static void test_names(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t c = test_vertex(g, "cluster", 0, 1, GROVE_VID_NONE);
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "node";
    info.id = 2;
    info.name = "node7"; /* not node2 */
    grove_vid_t n[7];
    n[0] = test_vertex(g, "node", 0, 1, c);
    n[1] = test_vertex(g, "node", 1, 1, c);
    n[2] = test_vertex_add(g, &info, c);
    n[3] = test_vertex(g, "node", 3, 1, c);
    n[4] = test_vertex(g, "node", 5000000000LL, 1, c);
    info.id = GROVE_ID_NONE;
    info.name = NULL;
    n[5] = test_vertex_add(g, &info, c);
    info.id = 6;
    info.name = "node6"; /* the default, spelt out */
    n[6] = test_vertex_add(g, &info, c);
    ok(grove_vertex_set_name(g, n[1], "login") == 0, "names: set one");
    ok(grove_vertex_set_name(g, n[3], "other") == 0 && grove_vertex_set_name(g, n[3], "node3") == 0,
       "names: set one and back to its default");
    const char *want[7] = {"node0", "login", "node7", "node3", "node5000000000", "node", "node6"};
    bool same = true;
    for (int i = 0; i < 7; i++)
        same = same && !strcmp(grove_vertex_name(g, n[i]), want[i]);
    ok(same, "names: as given and set");
    ok(by_name(g, "login", NULL) == 1 && by_name(g, "node1", NULL) == 0
           && by_name(g, "node3", NULL) == 1 && by_name(g, "other", NULL) == 0,
       "names: found by the names they have");
    grove_graph_t *d = grove_graph_duplicate(g);
    same = d != NULL;
    for (int i = 0; same && i < 7; i++)
        same = !strcmp(grove_vertex_name(d, n[i]), want[i]);
    ok(same, "names: the same in a duplicate");
    char *t1 = grove_jgf_write(g, 0);
    grove_error_t err;
    grove_graph_t *g2 = t1 ? grove_jgf_read(t1, strlen(t1), "names", &err) : NULL;
    char *t2 = g2 ? grove_jgf_write(g2, 0) : NULL;
    ok(t1 && t2 && !strcmp(t1, t2), "names: a JGF written, read and written again is the same");
    same = g2 && grove_graph_vertex_count(g2) == 8;
    for (int i = 0; same && i < 7; i++) {
        grove_vid_t v = GROVE_VID_NONE;
        same = by_name(g2, want[i], &v) == 1 && grove_vertex_id(g2, v) == grove_vertex_id(g, n[i]);
    }
    ok(same, "names: each read back with its id");
    free(t1);
    free(t2);
    grove_graph_destroy(g2);
    grove_graph_destroy(d);
    grove_graph_destroy(g);
}

/* Paths kept as a file gives them: ssd vertices with neither name nor id
 * (as flux-coral2's dws2jgf writes them) are named basename + id from
 * their node ids, as the reference engine names them, and keep the paths
 * the file gives (ssd0, ssd1), by which they are found; a JGF written
 * names them so beside those paths and reads back the same, in a
 * duplicate too. */
static void test_path_names(void)
{
    const char *text =
        "{\"graph\": {\"nodes\": ["
        "{\"id\": \"0\", \"metadata\": {\"type\": \"cluster\", \"name\": \"c\","
        " \"paths\": {\"containment\": \"/c\"}}},"
        "{\"id\": \"1\", \"metadata\": {\"type\": \"chassis\", \"id\": 0,"
        " \"paths\": {\"containment\": \"/c/chassis0\"}}},"
        "{\"id\": \"2\", \"metadata\": {\"type\": \"ssd\", \"size\": 8, \"unit\": \"GiB\","
        " \"status\": 1, \"paths\": {\"containment\": \"/c/chassis0/ssd0\"}}},"
        "{\"id\": \"3\", \"metadata\": {\"type\": \"ssd\", \"size\": 8, \"unit\": \"GiB\","
        " \"paths\": {\"containment\": \"/c/chassis0/ssd1\"}}}],"
        " \"edges\": [{\"source\": \"0\", \"target\": \"1\"},"
        " {\"source\": \"1\", \"target\": \"2\"}, {\"source\": \"1\", \"target\": \"3\"}]}}";
    grove_error_t err;
    grove_graph_t *g = grove_jgf_read(text, strlen(text), "t.json", &err);
    ok(g != NULL, "path names: read (%s)", g ? "" : err.text);
    if (!g)
        return;
    grove_sym_t cont = grove_graph_sym(g, "containment");
    grove_vid_t s0 = grove_graph_find_path(g, cont, "/c/chassis0/ssd0");
    grove_vid_t s1 = grove_graph_find_path(g, cont, "/c/chassis0/ssd1");
    ok(s0 == 2 && s1 == 3, "path names: found by the file's paths");
    ok(grove_graph_find_path(g, cont, "/c/chassis0/ssd2") == GROVE_VID_NONE,
       "path names: not by their names");
    ok(s0 == 2 && !strcmp(grove_vertex_name(g, s0), "ssd2")
           && grove_vertex_status(g, s0) == GROVE_STATUS_DOWN,
       "path names: named basename + node id, status as given");
    char path[64] = "";
    grove_vertex_path(g, s1, cont, path, sizeof(path));
    is_str(path, "/c/chassis0/ssd1", "path names: the path given is the file's");
    grove_graph_t *d = grove_graph_duplicate(g);
    ok(d && grove_graph_find_path(d, cont, "/c/chassis0/ssd1") == 3, "path names: in a duplicate");
    char *t1 = grove_jgf_write(g, 0);
    ok(t1 && strstr(t1, "\"ssd3\"") && !strstr(t1, "chassis0/ssd3") && strstr(t1, "\"/c/chassis0/ssd1\""),
       "path names: written with their names and the file's paths");
    grove_graph_t *g2 = t1 ? grove_jgf_read(t1, strlen(t1), "w.json", &err) : NULL;
    char *t2 = g2 ? grove_jgf_write(g2, 0) : NULL;
    ok(t1 && t2 && !strcmp(t1, t2), "path names: written, read and written again the same");
    ok(g2 && grove_graph_find_path(g2, cont, "/c/chassis0/ssd0") == 2,
       "path names: read back by the file's paths");
    free(t1);
    free(t2);
    grove_graph_destroy(g2);
    grove_graph_destroy(d);
    grove_graph_destroy(g);
}

int main(void)
{
    test_short();
    test_path_names();
    test_deep();
    test_limits();
    test_corpus();
    test_defaults();
    test_shapes();
    test_errors();
    test_state();
    test_names();
    return done_testing();
}
