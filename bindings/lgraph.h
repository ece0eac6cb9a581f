/* lgraph.h: what the graph binding files (l_graph.c, l_vertex.c,
 * l_view.c, l_walker.c) share: the layout of the graph, vertex and edge userdata, the
 * search spec used by g:vertices{} and g:find{}, the box that lets Lua's
 * collector own C memory, and the method helpers both the graph and the
 * vertex classes expose.  Nothing here is used outside bindings/, and
 * nothing here belongs to another userdata (R, matcher, policy, ...).
 *
 * Handles are (graph, id) pairs: a vertex or edge handle holds a pointer to
 * its graph userdata (kept alive by the handle's first user value) and an
 * id, never a pointer into the graph's arrays, which move as it grows.
 */
#ifndef GROVEL_LGRAPH_H
#define GROVEL_LGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "grovel.h"

#define GROVEL_BOX "grove.box"       /* C memory owned by a userdata */
#define GROVEL_SPEC "grove.spec"     /* a parsed search spec */
#define GROVEL_WALKER "grove.walker" /* a configured walk (l_walker.c) */

/* The graph userdata, a generic handle (grovel.h).  g is NULL once
 * closed. */
struct grovel_graph {
    union {
        grovel_handle_t h; /* the generic handle's view of g */
        grove_graph_t *g;
    };
    int busy; /* walks or finds running Lua hooks on this graph */
};

/* The graph class (l_graph.c), which other files extend with methods. */
extern const grovel_class_t grovel_graph_class;

/* A vertex handle; user value 1 is the graph userdata. */
struct grovel_vertex {
    struct grovel_graph *gr;
    grove_vid_t v;
};

/* An edge handle; user value 1 is the graph userdata. */
struct grovel_edge {
    struct grovel_graph *gr;
    grove_eid_t e;
};

/* ---- vertex classes ----------------------------------------------------- */

/* A class of handles on one vertex: the graph's own vertex handles
 * (grove.vertex, l_vertex.c) and the read-only views policy hooks see
 * (grove.policy.vertex, l_view.c).  Both classes share one implementation
 * of each read method (l_vertex.c); a method finds its class as its
 * upvalue, so each class adds only its own checks and its errors name it. */
struct grovel_vclass {
    grovel_class_t c; /* first: a method's class is its vertex class */
    /* The graph and (in *v) the vertex of the handle at idx; raises when
     * the handle cannot be used (closed graph, a view outside its match,
     * a removed vertex). */
    grove_graph_t *(*check)(lua_State *L, int idx, grove_vid_t *v);
    /* Push a handle of this class on v, a sibling of the handle at idx
     * whose first user value is at uv (0: a handle without one). */
    void (*push_kin)(lua_State *L, int idx, int uv, grove_vid_t v);
    /* A policy's view: keys may be empty, and path() in a subsystem the
     * vertex is not in answers nothing instead of nil, msg, code. */
    bool view;
    /* Told, when not NULL, that the method what of the handle on v reads
     * how (GROVEL_VREAD_*) before it answers: a policy's views note what
     * the hook running reads (l_view.c); may raise. */
    void (*read)(lua_State *L, grove_vid_t v, int how, const char *what);
};

/* What a vertex method reads beyond the graph's content (names, ids,
 * properties, status, structure), told to its class's read. */
enum grovel_vread {
    GROVEL_VREAD_WINDOW, /* records during the window being tried */
    GROVEL_VREAD_TIMES,  /* records at times the caller gave (or all) */
    GROVEL_VREAD_CLOCK,  /* records now: the graph's clock */
    GROVEL_VREAD_KIN,    /* leads to other vertices (parent, children) */
    GROVEL_VREAD_KV      /* its own properties or tags */
};

/* Register class c (grovel_class_open): the shared read methods, then
 * more (may be NULL) (c must outlive the Lua state: a static). */
void grovel_vclass_open(lua_State *L, const struct grovel_vclass *c, const grovel_reg_t *more);

/* ---- boxes ----------------------------------------------------------- */

/* A userdata owning p (freed with fn when collected or closed).  Create the
 * box before the C memory, store the pointer right after it exists, and no
 * Lua error can leak it. */
struct grovel_box {
    void *p;
    void (*fn)(void *);
};

/* Push a new empty box that will free its pointer with fn. */
struct grovel_box *grovel_box_new(lua_State *L, void (*fn)(void *));

/* ---- save marks (l_changes.c) ------------------------------------------ */

struct grove_mark;

/* The option names of a save: "mark" (a grove.mark) and "changed" (a
 * boolean), in that order (the index grovel_next_option gives). */
#define GROVEL_SAVE_OPTIONS ((const char *const[]){"mark", "changed", NULL})

/* Read the save option with index key (0 mark, 1 changed) from the top of
 * the stack into *mk or *flags (GROVE_SAVE_CHANGED); raises on argument arg
 * for a value of the wrong type. */
void grovel_save_option(lua_State *L, int key, int arg, struct grove_mark **mk, int *flags);

/* Raise on argument arg when flags ask for a changed-only save without a
 * mark. */
void grovel_save_check(lua_State *L, int arg, const struct grove_mark *mk, int flags);

/* ---- graph and handles ------------------------------------------------- */

/* The open graph userdata at idx (raises on misuse or a closed graph). */
struct grovel_graph *grovel_check_graph_ud(lua_State *L, int idx);

/* The resource types a request matched on g may name: the standard ones
 * (grovel_standard_types: slot, xor_slot, cluster, rack, node, socket,
 * core, gpu, ssd, storage_node) and those of g's vertices.  A gpu asked of
 * a machine without one is found nowhere; a type no graph has (fpga,
 * "nodes") is a mistake, refused as the request or policy is read. */
extern const char *const grovel_standard_types[];
bool grovel_type_known(const grove_graph_t *g, const char *type);

/* Push a userdata holding g's types that have vertices, sorted by name,
 * as a NULL-ended array (returned; valid while the userdata lives); *n
 * their number. */
const char **grovel_push_graph_types(lua_State *L, const grove_graph_t *g, size_t *n);

/* The offer for a type name that is no type of g (grovel_type_known),
 * among g's types and the standard ones, asked of host (grovel_hint; no
 * offer when host is NULL), written into out (len bytes).  L is the state
 * the caller runs in (host, or a policy's sandbox): a little of its stack
 * is used.  Never raises. */
void grovel_type_hint(lua_State *host, lua_State *L, const grove_graph_t *g, const char *name,
                      char *out, size_t len);

/* Push on L "unknown resource type 'NAME' (did you mean 'X'?): the graph
 * has A, B, C" (g's types, sorted; "no vertices" for an empty graph), the
 * offer asked of host as grovel_type_hint does.  Returns the message. */
const char *grovel_push_unknown_type(lua_State *L, lua_State *host, const grove_graph_t *g,
                                     const char *name);

/* As grovel_check_graph_ud, and raises if a walk or find with Lua hooks is
 * running on the graph (its structure must not change under the walk). */
struct grovel_graph *grovel_check_mutable(lua_State *L, int idx);

/* The graph userdata kept in user value 1 of the userdata at idx (a
 * matcher's, a writer's, an acquisition state's: owner names it); raises
 * "the OWNER's graph is closed" when it was closed. */
struct grovel_graph *grovel_owner_graph(lua_State *L, int idx, const char *owner);

/* A new graph userdata holding no graph yet: create it first, then build
 * the graph and store it, so a Lua error cannot leak the graph. */
struct grovel_graph *grovel_new_graph_ud(lua_State *L);

/* The vertex handle at idx (raises on misuse, a closed graph or a removed
 * vertex). */
struct grovel_vertex *grovel_check_vertex_ud(lua_State *L, int idx);

/* The vertex of the handle at idx, which must belong to graph gr. */
grove_vid_t grovel_check_vertex_in(lua_State *L, int idx, const struct grovel_graph *gr);

/* Push an edge handle for e of the graph userdata at graph_idx. */
void grovel_push_edge(lua_State *L, int graph_idx, grove_eid_t e);

/* A job id argument: a non-negative integer. */
grove_jobid_t grovel_check_job(lua_State *L, int idx);

/* Push a readable label for v (its containment path, else its name). */
const char *grovel_push_label(lua_State *L, const grove_graph_t *g, grove_vid_t v);

/* The symbol of an optional subsystem name argument (default
 * containment); GROVE_SYM_NONE when the graph has never seen the name. */
grove_sym_t grovel_opt_subsystem(lua_State *L, int idx, const grove_graph_t *g,
                                 const char **name);

/* ---- methods shared by graph and vertex (arguments from arg on) --------- */

/* allocate(amount, job [, opts]) on v: true, or nil, msg, code. */
int grovel_allocate(lua_State *L, grove_graph_t *g, grove_vid_t v, int arg);
/* free(job [, amount]) on v: true, or nil, msg, code. */
int grovel_free(lua_State *L, grove_graph_t *g, grove_vid_t v, int arg);
/* aggregate of v's subtree as a table {type = count}. */
int grovel_aggregate(lua_State *L, const grove_graph_t *g, grove_vid_t v);
/* copy of v's subtree as a new graph userdata, or nil, msg, code. */
int grovel_copy(lua_State *L, const grove_graph_t *g, grove_vid_t v);

/* ---- search specs -------------------------------------------------------- */

struct grovel_kv {
    const char *k;
    const char *v; /* NULL: any value */
};

/* {type=, basename=, name=, unit=, status=, rank=, id=, property=, tag=}:
 * strings are anchored in the spec userdata's user value. */
struct grovel_spec {
    const char *type, *basename, *name, *unit;
    int status; /* -1: any */
    bool has_rank, has_id;
    int64_t rank, id;
    bool has_size, has_job; /* size =: units in the pool; job =: a record or
                             * annotation of that job on the vertex */
    int64_t size, job;
    size_t nprop, ntag;
    struct grovel_kv kv[]; /* nprop properties, then ntag tags */
};

/* Parse the spec table at idx and push it as a userdata; raises on an
 * unknown field or a field of the wrong type. */
struct grovel_spec *grovel_push_spec(lua_State *L, int idx);

/* True if v satisfies every field of s. */
bool grovel_spec_match(const grove_graph_t *g, grove_vid_t v, const struct grovel_spec *s);

#endif
