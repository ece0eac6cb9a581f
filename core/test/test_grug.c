/* test_grug.c: GraphML generation recipes.
 *
 * 1. every recipe of the shared corpus (grugs/, grugs/mt-storage/) expands,
 *    with the vertex count of every type worked out by hand from the
 *    recipe (the MANIFEST shapes table) and a few paths that pin the id
 *    rules;
 * 2. tiny against its JGF equivalent jgfs/tiny.json, vertex by vertex:
 *    creation order, type, basename, name, id, rank, size, unit and
 *    containment path; and power (with subtree ranks) against
 *    jgfs/power.json, including the power subsystem paths and edges;
 * 3. sierra: 350,473 vertices, nodes ranked in order (the time it took is
 *    printed, not asserted: a test asserts no time);
 * 4. options: the type filter, the rank modes, the vertex limit, the
 *    associations the containment tree cannot hold (mtl3), strict mode;
 * 5. recipes of our own from memory: id_start/id_stride/negative scope,
 *    ASSOCIATE_BY_PATH_IN levels, a root without edges; and error rows with
 *    their exact messages.
 *
 * It must not hold tests of JGF or of the matcher, nor a vertex builder
 * of its own (grovetest.h has the one).
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <valgrind/valgrind.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "grug.h"
#include "tap.h"
#include "corpus.h"

/* ---- helpers ---------------------------------------------------------------- */

static const char *grug_path(const char *name)
{
    static char rel[256];
    snprintf(rel, sizeof(rel), "fluxion/grugs/%s", name);
    return tap_conformance(rel);
}

static grove_graph_t *load(const char *name, const grove_grug_opts_t *o)
{
    grove_error_t err;
    grove_graph_t *g = grove_grug_load(grug_path(name), o, &err);
    if (!g)
        diag("%s: %s", name, err.text);
    return g;
}

static size_t count_type(const grove_graph_t *g, const char *type)
{
    grove_sym_t s = grove_graph_sym_lookup(g, type);
    return s == GROVE_SYM_NONE ? 0 : grove_graph_count_type(g, s);
}

static const char *path_of(const grove_graph_t *g, grove_vid_t v, const char *sub)
{
    static char buf[512];
    grove_sym_t s = grove_graph_sym_lookup(g, sub);
    if (s == GROVE_SYM_NONE || grove_vertex_path(g, v, s, buf, sizeof(buf)) < 0)
        return NULL;
    return buf;
}

static bool has_path(const grove_graph_t *g, const char *sub, const char *path)
{
    grove_sym_t s = grove_graph_sym_lookup(g, sub);
    return s != GROVE_SYM_NONE && grove_graph_find_path(g, s, path) != GROVE_VID_NONE;
}

/* ---- 1. every corpus recipe ------------------------------------------------------ */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* sierra: the time limit and node ranks. */
static void check_sierra(const grove_graph_t *g, double secs)
{
    diag("sierra expanded in %.3f s", secs);
    grove_vid_t n = grove_graph_first_by_type(g, grove_graph_sym_lookup(g, "node"));
    size_t seen = 0;
    bool inorder = true;
    for (; n != GROVE_VID_NONE; n = grove_vertex_next_same_type(g, n))
        inorder &= grove_vertex_rank(g, n) == (int64_t)seen++;
    ok(inorder && seen == 4320, "sierra: nodes ranked 0..4319 in order");
}

/* One row of vectors/grug_recipes.tsv: the recipe expands to the vertices
 * it lists per type, a tree with the paths given, in time. */
static void recipe_row(int lineno, char **f)
{
    const char *file = f[0];
    size_t total = strtoul(f[1], NULL, 10), dropped_want = strtoul(f[4], NULL, 10);
    if (total > 100000 && RUNNING_ON_VALGRIND) {
        diag("%s skipped under valgrind", file);
        return;
    }
    size_t dropped = 99;
    grove_grug_opts_t o = {.dropped = &dropped};
    double t0 = now_s();
    grove_graph_t *g = load(file, &o);
    double secs = now_s() - t0;
    if (!ok(g != NULL, "line %d: %s expands", lineno, file))
        return;
    is_int(grove_graph_vertex_count(g), total, "%s: %zu vertices", file, total);
    /* "type=n ..." as the row lists them, counted in the graph */
    size_t sum = 0;
    char got[1024] = "", types[1024];
    snprintf(types, sizeof(types), "%s", f[2]);
    for (char *save, *tc = strtok_r(types, " ", &save); tc; tc = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tc, '=');
        if (!eq) {
            ok(0, "line %d: '%s' is not TYPE=N", lineno, tc);
            continue;
        }
        *eq = '\0';
        sum += strtoul(eq + 1, NULL, 10);
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s=%zu", got[0] ? " " : "", tc,
                 count_type(g, tc));
    }
    is_str(got, f[2], "%s: vertices per type", file);
    is_int(sum, total, "%s: the types cover every vertex", file);
    diag("%s: %s", file, got);
    char paths[2048];
    snprintf(paths, sizeof(paths), "%s", f[3]);
    for (char *save, *path = strtok_r(paths, " ", &save); path; path = strtok_r(NULL, " ", &save))
        ok(has_path(g, GROVE_CONTAINMENT, path), "%s: %s exists", file, path);
    is_int(dropped, dropped_want, "%s: %zu associations left out", file, dropped_want);
    /* every non-root vertex has one containment parent: a tree */
    grove_sym_t cs = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    size_t roots = 0;
    for (grove_vid_t v = 0; v < grove_graph_vertex_slots(g); v++)
        roots += grove_vertex_parent(g, v, cs) == GROVE_VID_NONE && grove_vertex_depth(g, v, cs) == 0
                 && grove_vertex_first_child(g, v, cs, &(grove_eid_t){0}) != GROVE_VID_NONE;
    is_int(roots, 1, "%s: one containment root", file);
    if (!strcmp(file, "sierra.graphml"))
        check_sierra(g, secs);
    grove_graph_destroy(g);
}

static void test_recipes(void)
{
    ok(vectors_run("grug_recipes.tsv", 5, recipe_row) >= 13, "GRUG recipe vectors");
}

/* ---- 2. tiny and power against their JGF equivalents ------------------------ */

static void compare_jgf(const char *grug, const char *jgf, int ranks)
{
    grove_grug_opts_t o = {.ranks = ranks};
    grove_graph_t *g = load(grug, &o);
    json_error_t je;
    json_t *doc = json_load_file(tap_conformance(jgf), 0, &je);
    if (!ok(g && doc, "%s and %s load", grug, jgf)) {
        grove_graph_destroy(g);
        json_decref(doc);
        return;
    }
    json_t *nodes = json_object_get(json_object_get(doc, "graph"), "nodes");
    json_t *edges = json_object_get(json_object_get(doc, "graph"), "edges");
    is_int(grove_graph_vertex_count(g), json_array_size(nodes), "%s: as many vertices as %s",
           grug, jgf);
    size_t bad = 0, checked = 0;
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        json_t *m = json_object_get(json_array_get(nodes, i), "metadata");
        grove_vid_t v = (grove_vid_t)json_integer_value(json_object_get(m, "uniq_id"));
        char why[600] = "";
        if (v != i)
            snprintf(why, sizeof(why), "uniq_id %u at position %zu", v, i);
        else if (strcmp(grove_vertex_type(g, v), json_string_value(json_object_get(m, "type"))))
            snprintf(why, sizeof(why), "type %s", grove_vertex_type(g, v));
        else if (strcmp(grove_vertex_basename(g, v),
                        json_string_value(json_object_get(m, "basename"))))
            snprintf(why, sizeof(why), "basename %s", grove_vertex_basename(g, v));
        else if (strcmp(grove_vertex_name(g, v), json_string_value(json_object_get(m, "name"))))
            snprintf(why, sizeof(why), "name %s", grove_vertex_name(g, v));
        else if (grove_vertex_id(g, v) != json_integer_value(json_object_get(m, "id")))
            snprintf(why, sizeof(why), "id %lld", (long long)grove_vertex_id(g, v));
        else if (grove_vertex_rank(g, v) != json_integer_value(json_object_get(m, "rank")))
            snprintf(why, sizeof(why), "rank %lld", (long long)grove_vertex_rank(g, v));
        else if (grove_vertex_size(g, v) != json_integer_value(json_object_get(m, "size")))
            snprintf(why, sizeof(why), "size %lld", (long long)grove_vertex_size(g, v));
        else if (strcmp(grove_vertex_unit(g, v), json_string_value(json_object_get(m, "unit"))))
            snprintf(why, sizeof(why), "unit %s", grove_vertex_unit(g, v));
        else {
            const char *sub;
            json_t *p;
            json_object_foreach(json_object_get(m, "paths"), sub, p)
            {
                const char *mine = path_of(g, v, sub);
                if (!mine || strcmp(mine, json_string_value(p))) {
                    snprintf(why, sizeof(why), "%s path %s, want %s", sub, mine ? mine : "none",
                             json_string_value(p));
                    break;
                }
            }
        }
        checked++;
        if (why[0] && bad++ < 5)
            diag("%s vertex %zu (%s): %s", grug, i,
                 json_string_value(json_object_get(m, "name")), why);
    }
    is_int(bad, 0, "%s: all %zu vertices agree with %s (order, type, basename, name, id, "
           "rank, size, unit, paths)", grug, checked, jgf);
    /* edges: one JGF edge per joined pair and subsystem; Grove stores both
     * directions */
    size_t missing = 0;
    for (size_t i = 0; i < json_array_size(edges); i++) {
        json_t *e = json_array_get(edges, i);
        grove_vid_t s = (grove_vid_t)atoi(json_string_value(json_object_get(e, "source")));
        grove_vid_t d = (grove_vid_t)atoi(json_string_value(json_object_get(e, "target")));
        const char *sub = json_string_value(
            json_object_get(json_object_get(e, "metadata"), "subsystem"));
        grove_sym_t ss = grove_graph_sym_lookup(g, sub);
        bool found = false;
        for (grove_eid_t x = grove_vertex_first_out(g, s); x != GROVE_EID_NONE && !found;
             x = grove_edge_next_out(g, x))
            found = grove_edge_dst(g, x) == d && grove_edge_subsystem(g, x) == ss
                    && !grove_edge_is_up(g, x) && grove_edge_opposite(g, x) != GROVE_EID_NONE;
        if (!found && missing++ < 5)
            diag("%s: no %s edge %u -> %u", grug, sub, s, d);
    }
    is_int(missing, 0, "%s: every edge of %s is there with its opposite", grug, jgf);
    is_int(grove_graph_edge_count(g), 2 * json_array_size(edges),
           "%s: no other edges (2 x %zu)", grug, json_array_size(edges));
    json_decref(doc);
    grove_graph_destroy(g);
}

static void test_power_relations(void)
{
    grove_graph_t *g = load("power.graphml", NULL);
    if (!ok(g != NULL, "power loads"))
        return;
    grove_sym_t ps = grove_graph_sym_lookup(g, "power");
    grove_vid_t pdu = grove_graph_find_path(g, ps, "/powerpanel0/pdu2");
    grove_vid_t node = grove_graph_find_path(g, ps, "/powerpanel0/pdu2/node40");
    ok(pdu != GROVE_VID_NONE && node != GROVE_VID_NONE, "power: pdu2 supplies node40");
    is_str(path_of(g, node, GROVE_CONTAINMENT), "/power0/rack2/node40",
           "power: node40 is the containment vertex");
    const char *rel = NULL, *rrel = NULL;
    for (grove_eid_t x = grove_vertex_first_out(g, pdu); x != GROVE_EID_NONE;
         x = grove_edge_next_out(g, x))
        if (grove_edge_dst(g, x) == node && grove_edge_subsystem(g, x) == ps) {
            rel = grove_graph_str(g, grove_edge_relation(g, x));
            grove_eid_t o = grove_edge_opposite(g, x);
            rrel = o == GROVE_EID_NONE ? NULL : grove_graph_str(g, grove_edge_relation(g, o));
            ok(o != GROVE_EID_NONE && grove_edge_is_up(g, o) && !grove_edge_is_up(g, x),
               "power: draws_from is the upward edge");
        }
    is_str(rel, "supplies_to", "power: relation");
    is_str(rrel, "draws_from", "power: reverse relation");
    /* per node: 2 power pools of 10 KW; pdu 40; powerpanel 200 */
    grove_vid_t pp = grove_graph_find_path(g, ps, "/powerpanel0/power199");
    ok(pp != GROVE_VID_NONE && grove_vertex_size(g, pp) == 10
           && !strcmp(grove_vertex_unit(g, pp), "KW"),
       "power: /powerpanel0/power199 is 10 KW");
    ok(has_path(g, "power", "/powerpanel0/pdu3/power39"), "power: pdu3 has power39");
    ok(has_path(g, "power", "/powerpanel0/pdu3/node71/power1"), "power: node71 has power1");
    ok(!has_path(g, "power", "/powerpanel0/pdu0/node18"), "power: rack1 nodes not on pdu0");
    grove_graph_destroy(g);
}

/* ---- 4. options ------------------------------------------------------------------- */

static void test_options(void)
{
    /* type filter: sockets and memory dropped, cores move up to the node */
    const char *keep[] = {"cluster", "rack", "node", "core", "gpu", NULL};
    grove_grug_opts_t o = {.types = keep};
    grove_graph_t *g = load("tiny.graphml", &o);
    if (ok(g != NULL, "filter: tiny loads")) {
        is_int(grove_graph_vertex_count(g), 1 + 1 + 2 + 72 + 4, "filter: 80 vertices");
        is_int(count_type(g, "socket") + count_type(g, "memory"), 0, "filter: none dropped kept");
        ok(has_path(g, GROVE_CONTAINMENT, "/tiny0/rack0/node1/core35"),
           "filter: /tiny0/rack0/node1/core35");
        ok(has_path(g, GROVE_CONTAINMENT, "/tiny0/rack0/node0/gpu1"),
           "filter: /tiny0/rack0/node0/gpu1");
        is_int(grove_vertex_id(g, 4), 0, "filter: ids kept (core0 first after nodes)");
        is_str(grove_vertex_name(g, 4), "core0", "filter: vertex 4 is core0");
        grove_graph_destroy(g);
    }
    const char *nonode[] = {"cluster", "core", NULL};
    o.types = nonode;
    g = load("tiny.graphml", &o);
    if (ok(g != NULL, "filter: cluster and core only")) {
        is_int(grove_graph_vertex_count(g), 73, "filter: 73 vertices");
        grove_sym_t cs = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
        size_t kids = 0;
        grove_eid_t cur;
        for (grove_vid_t c = grove_vertex_first_child(g, 0, cs, &cur); c != GROVE_VID_NONE;
             c = grove_vertex_next_child(g, cs, &cur))
            kids++;
        is_int(kids, 72, "filter: every core under the cluster");
        is_int(grove_vertex_rank(g, 1), -1, "filter: no node, no rank");
        grove_graph_destroy(g);
    }
    const char *none[] = {NULL};
    o.types = none;
    grove_error_t err;
    g = grove_grug_load(grug_path("tiny.graphml"), &o, &err);
    ok(g && grove_graph_vertex_count(g) == 0, "filter: empty list keeps nothing");
    grove_graph_destroy(g);

    /* rank modes */
    static const struct {
        int mode;
        int64_t node1, socket2, cluster;
    } rk[] = {
        {GROVE_GRUG_RANK_NODES, 1, -1, -1},
        {GROVE_GRUG_RANK_SUBTREE, 1, 1, -1},
        {GROVE_GRUG_RANK_NONE, -1, -1, -1},
    };
    for (size_t i = 0; i < 3; i++) {
        grove_grug_opts_t ro = {.ranks = rk[i].mode};
        g = load("tiny.graphml", &ro);
        ok(g && grove_vertex_rank(g, 3) == rk[i].node1 && grove_vertex_rank(g, 6) == rk[i].socket2
               && grove_vertex_rank(g, 0) == rk[i].cluster,
           "ranks mode %d: node1 %lld, its socket0 %lld, cluster %lld", rk[i].mode,
           (long long)rk[i].node1, (long long)rk[i].socket2, (long long)rk[i].cluster);
        grove_graph_destroy(g);
    }

    /* the vertex limit */
    grove_grug_opts_t lo = {.max_vertices = 99};
    errno = 0;
    g = grove_grug_load(grug_path("tiny.graphml"), &lo, &err);
    ok(!g && errno == EOVERFLOW, "limit: 99 vertices refused (EOVERFLOW)");
    ok(strstr(err.text, "tiny.graphml:") && strstr(err.text, "generates more than 99 vertices"),
       "limit: message names the file (%s)", err.text);
    lo.max_vertices = 100;
    g = grove_grug_load(grug_path("tiny.graphml"), &lo, &err);
    ok(g != NULL, "limit: exactly 100 allowed");
    grove_graph_destroy(g);

    /* mtl3: the associations are second links, kept even in strict mode */
    grove_grug_opts_t so = {.flags = GROVE_GRUG_STRICT};
    g = grove_grug_load(grug_path("mt-storage/mtl3.graphml"), &so, &err);
    ok(g != NULL, "strict: mtl3 loads");
    if (g) {
        grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
        grove_vid_t u2 = grove_graph_find_path(g, cont, "/mtl3-test0/mtl2unit0");
        int incl = 0, kids = 0;
        for (grove_eid_t e = grove_vertex_first_out(g, u2); e != GROVE_EID_NONE;
             e = grove_edge_next_out(g, e))
            if (!strcmp(grove_graph_str(g, grove_edge_relation(g, e)), GROVE_INCLUDES))
                incl++;
        grove_eid_t cur;
        for (grove_vid_t c = grove_vertex_first_child(g, u2, cont, &cur); c != GROVE_VID_NONE;
             c = grove_vertex_next_child(g, cont, &cur))
            kids++;
        is_int(incl, 2, "mtl3: mtl2unit0 includes both mtl1units");
        is_int(kids, 2, "mtl3: they are its children in containment");
        grove_vid_t u1 = grove_graph_find_path(g, cont, "/mtl3-test0/rack1/mtl1unit1");
        ok(grove_vertex_parent(g, u1, cont) == grove_graph_find_path(g, cont, "/mtl3-test0/rack1"),
           "mtl3: an mtl1unit's parent stays its rack");
        grove_graph_destroy(g);
    }
}

/* ---- 5. recipes of our own --------------------------------------------------------- */

/* Standard key declarations, all on line 2. */
#define HEAD                                                                              \
    "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">" \
    "<key id=\"root\" for=\"node\" attr.name=\"root\" attr.type=\"int\"><default>0</default></key>" \
    "<key id=\"type\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>"            \
    "<key id=\"basename\" for=\"node\" attr.name=\"basename\" attr.type=\"string\"/>"    \
    "<key id=\"size\" for=\"node\" attr.name=\"size\" attr.type=\"long\"/>"              \
    "<key id=\"unit\" for=\"node\" attr.name=\"unit\" attr.type=\"string\"/>"            \
    "<key id=\"subsystem\" for=\"node\" attr.name=\"subsystem\" attr.type=\"string\"/>"  \
    "<key id=\"e_subsystem\" for=\"edge\" attr.name=\"e_subsystem\"/>"                   \
    "<key id=\"relation\" for=\"edge\" attr.name=\"relation\"/>"                         \
    "<key id=\"rrelation\" for=\"edge\" attr.name=\"rrelation\"/>"                       \
    "<key id=\"id_scope\" for=\"edge\" attr.name=\"id_scope\" attr.type=\"int\"/>"       \
    "<key id=\"id_start\" for=\"edge\" attr.name=\"id_start\" attr.type=\"int\"/>"       \
    "<key id=\"id_stride\" for=\"edge\" attr.name=\"id_stride\" attr.type=\"int\"/>"     \
    "<key id=\"gen_method\" for=\"edge\" attr.name=\"gen_method\"/>"                     \
    "<key id=\"multi_scale\" for=\"edge\" attr.name=\"multi_scale\" attr.type=\"int\"/>" \
    "<key id=\"as_tgt_subsystem\" for=\"edge\" attr.name=\"as_tgt_subsystem\"/>"         \
    "<key id=\"as_tgt_uplvl\" for=\"edge\" attr.name=\"as_tgt_uplvl\"/>"                 \
    "<key id=\"as_src_uplvl\" for=\"edge\" attr.name=\"as_src_uplvl\"/>"                 \
    "<key id=\"colour\" for=\"node\" attr.name=\"colour\"/>\n<graph id=\"t\">\n"
#define TAIL "</graph></graphml>\n"
#define NODE(id, type) "<node id=\"" id "\"><data key=\"type\">" type "</data></node>\n"
#define ROOT(id, type) \
    "<node id=\"" id "\"><data key=\"root\">1</data><data key=\"type\">" type "</data></node>\n"
#define EDGE(s, t, data) "<edge source=\"" s "\" target=\"" t "\">" data "</edge>\n"
#define D(k, v) "<data key=\"" k "\">" v "</data>"
/* A cluster c over the nodes n generates, by one edge carrying data. */
#define ONE_EDGE(data) HEAD ROOT("c", "cluster") NODE("n", "node") EDGE("c", "n", data) TAIL

static grove_graph_t *read_str(const char *text, const grove_grug_opts_t *o, grove_error_t *err)
{
    return grove_grug_read(text, strlen(text), "mem.graphml", o, err);
}

/* The names of every vertex in id order, space-separated. */
static const char *names(const grove_graph_t *g)
{
    static char buf[2048];
    buf[0] = '\0';
    for (grove_vid_t v = 0; v < grove_graph_vertex_slots(g); v++)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", v ? " " : "",
                 grove_vertex_name(g, v));
    return buf;
}


/* Racks of switches and nodes, with a network of one switch per rack over
 * the nodes, associated by path; extra: more data on that association
 * edge (the levels to compare). */
#define BY_PATH(extra)                                                                       \
    HEAD ROOT("c", "cluster") NODE("r", "rack") NODE("s", "switch") NODE("n", "node")          \
    "<node id=\"net\"><data key=\"root\">1</data><data key=\"type\">net</data>"                \
    "<data key=\"subsystem\">network</data></node>\n"                                          \
    "<node id=\"sw\"><data key=\"type\">switch</data>"                                          \
    "<data key=\"subsystem\">network</data></node>\n"                                          \
    "<node id=\"nn\"><data key=\"type\">node</data>"                                            \
    "<data key=\"subsystem\">network</data></node>\n"                                          \
    EDGE("c", "r", D("multi_scale", "2")) EDGE("r", "s", D("id_scope", "1"))                   \
    EDGE("r", "n", D("multi_scale", "2") D("id_scope", "1"))                                   \
    EDGE("net", "sw", D("gen_method", "ASSOCIATE_IN") D("e_subsystem", "network"))             \
    EDGE("sw", "nn", D("gen_method", "ASSOCIATE_BY_PATH_IN") D("e_subsystem", "network") extra) \
    TAIL

static const struct own_row {
    const char *what;
    const char *text;
    const char *names; /* expected vertex names in order */
    const char *path;  /* a containment path that must exist, or NULL */
} own[] = {
    {"id_start and id_stride",
     ONE_EDGE(D("multi_scale", "3") D("id_start", "10") D("id_stride", "5")),
     "cluster0 node10 node11 node12", "/cluster0/node12"},
    {"stride applies with a scope",
     HEAD ROOT("c", "cluster") NODE("r", "rack") NODE("n", "node")
         EDGE("c", "r", D("multi_scale", "2"))
             EDGE("r", "n", D("multi_scale", "2") D("id_scope", "1") D("id_start", "100")
                                D("id_stride", "10")) TAIL,
     "cluster0 rack0 rack1 node100 node110 node120 node130", "/cluster0/rack1/node130"},
    {"scope deeper than the recipe is clamped",
     HEAD ROOT("c", "cluster") NODE("r", "rack") NODE("n", "node")
         EDGE("c", "r", D("multi_scale", "2"))
             EDGE("r", "n", D("multi_scale", "2") D("id_scope", "7")) TAIL,
     "cluster0 rack0 rack1 node0 node1 node2 node3", NULL},
    {"negative scope: no id",
     HEAD ROOT("c", "cluster") NODE("x", "switch") EDGE("c", "x", D("id_scope", "-1")) TAIL,
     "cluster0 switch", "/cluster0/switch"},
    {"root given as true",
     HEAD "<node id=\"c\">" D("root", "true") D("type", "cluster") "</node>\n" NODE("n", "node")
         EDGE("c", "n", "") TAIL,
     "cluster0 node0", "/cluster0/node0"},
    {"a root without edges",
     HEAD ROOT("c", "cluster") NODE("x", "unused") TAIL, "cluster0", "/cluster0"},
    {"basename and unit",
     HEAD "<node id=\"c\"><data key=\"root\">1</data><data key=\"type\">cluster</data>"
          "<data key=\"basename\">big</data></node>\n"
          "<node id=\"m\"><data key=\"type\">memory</data><data key=\"size\">64</data>"
          "<data key=\"unit\">GB</data></node>\n" EDGE("c", "m", D("multi_scale", "2")) TAIL,
     "big0 memory0 memory1", "/big0/memory1"},
    {"edges before nodes, multiplying twice from one parent",
     HEAD EDGE("c", "a", "") EDGE("c", "b", D("multi_scale", "2")) ROOT("c", "cluster")
         NODE("a", "a") NODE("b", "b") TAIL,
     "cluster0 a0 b0 b1", "/cluster0/b1"},
    {"a second path to a template is ignored",
     HEAD ROOT("c", "cluster") NODE("a", "a") NODE("b", "b") EDGE("c", "a", "")
         EDGE("a", "b", D("multi_scale", "2")) EDGE("c", "b", D("multi_scale", "5")) TAIL,
     "cluster0 a0 b0 b1", "/cluster0/a0/b1"},
    {"associate by path, uplvl 1 and 2",
     BY_PATH(""),
     "cluster0 rack0 rack1 switch0 switch1 node0 node1 node2 node3 net0", NULL},
};

static void test_own(void)
{
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
        grove_error_t err;
        grove_graph_t *g = read_str(own[i].text, NULL, &err);
        if (!ok(g != NULL, "own: %s", own[i].what)) {
            diag("%s", err.text);
            continue;
        }
        is_str(names(g), own[i].names, "own: %s: vertices", own[i].what);
        if (own[i].path)
            ok(has_path(g, GROVE_CONTAINMENT, own[i].path), "own: %s: %s", own[i].what,
               own[i].path);
        grove_graph_destroy(g);
    }
    /* the network association: each switch reaches the nodes of its rack */
    grove_error_t err;
    const char *bypath = NULL;
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (!strncmp(own[i].what, "associate by path", 17))
            bypath = own[i].text;
    grove_graph_t *g = bypath ? read_str(bypath, NULL, &err) : NULL;
    ok(g != NULL, "by path: the recipe is there");
    if (g) {
        ok(has_path(g, "network", "/net0/switch1/node3"), "by path: switch1 -> node3");
        ok(has_path(g, "network", "/net0/switch0/node1"), "by path: switch0 -> node1");
        ok(!has_path(g, "network", "/net0/switch0/node2"), "by path: not switch0 -> node2");
        grove_graph_destroy(g);
    }
    /* uplvl 2 compares the cluster: every switch reaches every node, and a
     * node's path follows its first switch */
    static const char *up2 = BY_PATH(D("as_tgt_uplvl", "2") D("as_src_uplvl", "2"));
    g = read_str(up2, NULL, &err);
    if (ok(g != NULL, "by path uplvl 2 loads")) {
        grove_sym_t ns = grove_graph_sym_lookup(g, "network");
        size_t links = 0;
        for (grove_eid_t e = 0; e < grove_graph_edge_slots(g); e++)
            links += grove_graph_has_edge(g, e) && grove_edge_subsystem(g, e) == ns
                     && !grove_edge_is_up(g, e);
        is_int(links, 2 + 2 * 4, "by path uplvl 2: 2 net links and 8 switch-node links");
        grove_graph_destroy(g);
    }
}

static const struct err_row {
    const char *what;
    const char *text;
    int errnum;
    const char *msg;
} errs[] = {
    {"empty input", "", EINVAL, "mem.graphml:1: malformed XML: Document is empty"},
    {"bad XML", "<graphml>\n<graph>\n<node id=\"a\">\n</graph></graphml>", EINVAL,
     "mem.graphml:4: malformed XML: Opening and ending tag mismatch: node line 3 and graph"},
    {"not graphml", "<?xml version=\"1.0\"?>\n<topology/>", EINVAL,
     "mem.graphml:2: root element is <topology>, not <graphml>"},
    {"no graph", "<graphml>\n</graphml>", EINVAL, "mem.graphml:1: no <graph> in <graphml>"},
    {"two graphs", "<graphml>\n<graph/>\n<graph/></graphml>", EINVAL,
     "mem.graphml:3: more than one <graph> (the first is at line 2)"},
    {"undeclared key",
     HEAD "<node id=\"c\">\n<data key=\"root\">1</data><data key=\"kind\">x</data></node>" TAIL,
     EINVAL, "mem.graphml:5: node \"c\": key \"kind\" is not declared"},
    {"unknown property", HEAD ROOT("c", "cluster") "<node id=\"x\">" D("colour", "red") "</node>" TAIL,
     EINVAL, "mem.graphml:5: node \"x\": unknown property \"colour\" (key \"colour\")"},
    {"edge property on a node", HEAD "<node id=\"x\">" D("multi_scale", "2") "</node>" TAIL, EINVAL,
     "mem.graphml:4: node \"x\": property multi_scale does not apply to nodes"},
    {"missing type", HEAD ROOT("c", "cluster") "<node id=\"x\">" D("basename", "b") "</node>" TAIL,
     EINVAL, "mem.graphml:5: node \"x\" has no type"},
    {"unknown gen_method",
     ONE_EDGE(D("gen_method", "DIVIDE")),
     EINVAL,
     "mem.graphml:6: edge c -> n: unknown gen_method \"DIVIDE\" (MULTIPLY, ASSOCIATE_IN or "
     "ASSOCIATE_BY_PATH_IN)"},
    {"multi_scale not a number",
     ONE_EDGE(D("multi_scale", "two")),
     EINVAL, "mem.graphml:6: edge c -> n: multi_scale \"two\" is not an integer"},
    {"multi_scale with junk",
     ONE_EDGE(D("multi_scale", "3x")),
     EINVAL, "mem.graphml:6: edge c -> n: multi_scale \"3x\" is not an integer"},
    {"multi_scale too large",
     ONE_EDGE(D("multi_scale", "99999999999999999999")),
     EINVAL, "mem.graphml:6: edge c -> n: multi_scale \"99999999999999999999\" is not an integer"},
    {"negative size", HEAD ROOT("c", "cluster") "<node id=\"m\">" D("type", "memory") D("size", "-2") "</node>" TAIL,
     EINVAL, "mem.graphml:5: node \"m\": size -2 is negative"},
    {"multi_scale true",
     ONE_EDGE(D("multi_scale", "true")),
     EINVAL, "mem.graphml:6: edge c -> n: multi_scale \"true\" is not an integer"},
    {"negative multi_scale",
     ONE_EDGE(D("multi_scale", "-1")),
     EINVAL, "mem.graphml:6: edge c -> n: multi_scale -1 is negative"},
    {"bad default",
     "<graphml><key id=\"size\" for=\"node\" attr.name=\"size\">\n<default>big</default></key>"
     "<graph/></graphml>",
     EINVAL, "mem.graphml:2: default of key \"size\": size \"big\" is not an integer"},
    {"key without attr.name", "<graphml>\n<key id=\"k\" for=\"node\"/><graph/></graphml>", EINVAL,
     "mem.graphml:2: key \"k\" has no attr.name"},
    {"key declared twice",
     "<graphml><key id=\"k\" attr.name=\"type\"/>\n<key id=\"k\" attr.name=\"type\"/>"
     "<graph/></graphml>",
     EINVAL, "mem.graphml:2: key \"k\" is declared twice"},
    {"edge to an undeclared node", HEAD ROOT("c", "cluster") EDGE("c", "ghost", "") TAIL, EINVAL,
     "mem.graphml:5: edge names node \"ghost\", which is not declared"},
    {"edge without target", HEAD ROOT("c", "cluster") "<edge source=\"c\"/>" TAIL, EINVAL,
     "mem.graphml:5: <edge> without a target"},
    {"duplicate node", HEAD ROOT("c", "cluster") NODE("c", "rack") TAIL, EINVAL,
     "mem.graphml:5: node \"c\" is declared twice"},
    {"nested graph", HEAD "<node id=\"c\"><graph/></node>" TAIL, EINVAL,
     "mem.graphml:4: node \"c\": unsupported element <graph>"},
    {"hyperedge", HEAD ROOT("c", "cluster") "<hyperedge/>" TAIL, EINVAL,
     "mem.graphml:5: unsupported element <hyperedge> in <graph>"},
    {"no root", HEAD NODE("c", "cluster") NODE("n", "node") EDGE("c", "n", "") TAIL, EINVAL,
     "mem.graphml: the recipe generates no vertices (no node has root=1)"},
    {"no nodes", HEAD TAIL, EINVAL, "mem.graphml:3: the recipe has no nodes"},
    {"negative id",
     ONE_EDGE(D("id_start", "-3")),
     EINVAL, "mem.graphml:6: MULTIPLY edge: generated id -3 is negative"},
    {"id overflow",
     ONE_EDGE(D("multi_scale", "2") D("id_start", "9223372036854775807")),
     EOVERFLOW, "mem.graphml:6: MULTIPLY edge: generated id overflows"},
    {"too many vertices",
     HEAD ROOT("c", "cluster") NODE("a", "a") NODE("b", "b")
         EDGE("c", "a", D("multi_scale", "100000")) EDGE("a", "b", D("multi_scale", "100000")) TAIL,
     EOVERFLOW, "mem.graphml:8: the recipe generates more than 50000000 vertices (the limit: "
                "GROVE_MAX_VERTICES or the max_vertices option)"},
};

static void test_errors(void)
{
    for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
        grove_error_t err;
        errno = 0;
        grove_graph_t *g = read_str(errs[i].text, NULL, &err);
        ok(g == NULL && errno == errs[i].errnum, "error: %s (errno %d)", errs[i].what, errno);
        is_str(err.text, errs[i].msg, "error: %s: message", errs[i].what);
        grove_graph_destroy(g);
    }
    grove_error_t err;
    errno = 0;
    grove_graph_t *g = grove_grug_load("/nonexistent/x.graphml", NULL, &err);
    ok(!g && errno == ENOENT, "error: missing file is ENOENT");
    is_str(err.text, "/nonexistent/x.graphml: No such file or directory", "error: missing file");
    errno = 0;
    g = grove_grug_load(tap_conformance("fluxion/jgfs/tiny.json"), NULL, &err);
    ok(!g && errno == EINVAL && strstr(err.text, "tiny.json:1: malformed XML"),
       "error: a JSON file is not a recipe (%s)", err.text);
    g = grove_grug_read(NULL, 0, NULL, NULL, &err);
    ok(!g && !strcmp(err.text, "malformed XML: Document is empty"), "error: no source name");
}

/* The same text read from memory gives the same graph as the file. */
static void test_memory(void)
{
    FILE *f = fopen(grug_path("power.graphml"), "rb");
    char *buf = malloc(1 << 16);
    size_t n = f ? fread(buf, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    grove_error_t err;
    grove_graph_t *a = grove_grug_read(buf, n, "power", NULL, &err);
    grove_graph_t *b = load("power.graphml", NULL);
    bool same = a && b && grove_graph_vertex_count(a) == grove_graph_vertex_count(b)
                && grove_graph_edge_count(a) == grove_graph_edge_count(b);
    for (grove_vid_t v = 0; same && v < grove_graph_vertex_slots(a); v++)
        same = !strcmp(grove_vertex_name(a, v), grove_vertex_name(b, v));
    ok(same, "memory: power read from a buffer equals the file");
    /* not NUL-terminated: trailing garbage past len is never read */
    if (n > 10) {
        buf[n] = '<';
        grove_graph_t *c = grove_grug_read(buf, n, "power", NULL, &err);
        ok(c != NULL, "memory: length is respected");
        grove_graph_destroy(c);
    }
    grove_graph_destroy(a);
    grove_graph_destroy(b);
    free(buf);
}

/* The default vertex limit comes from GROVE_MAX_VERTICES (else memory). */
static void test_limit_env(void)
{
    static const char recipe[] =
        HEAD ROOT("c", "cluster") NODE("a", "a") EDGE("c", "a", D("multi_scale", "100")) TAIL;
    grove_error_t err;
    setenv("GROVE_MAX_VERTICES", "60", 1);
    grove_graph_t *g = grove_grug_read(recipe, strlen(recipe), "mem.graphml", NULL, &err);
    ok(!g && errno == EOVERFLOW
           && strstr(err.text, "mem.graphml:6: the recipe generates more than 60 vertices"),
       "GROVE_MAX_VERTICES=60 refuses 101 vertices: %s", err.text);
    setenv("GROVE_MAX_VERTICES", "1K", 1);
    g = grove_grug_read(recipe, strlen(recipe), "mem.graphml", NULL, &err);
    ok(g && grove_graph_vertex_count(g) == 101, "GROVE_MAX_VERTICES=1K accepts them");
    grove_graph_destroy(g);
    setenv("GROVE_MAX_VERTICES", "50000000", 1);
}

int main(void)
{
    /* the rows below name the limit: the same on every machine */
    setenv("GROVE_MAX_VERTICES", "50000000", 1);
    test_limit_env();
    test_recipes();
    compare_jgf("tiny.graphml", "fluxion/jgfs/tiny.json", GROVE_GRUG_RANK_NODES);
    compare_jgf("power.graphml", "fluxion/jgfs/power.json", GROVE_GRUG_RANK_SUBTREE);
    test_power_relations();
    test_options();
    test_own();
    test_errors();
    test_memory();
    return done_testing();
}
