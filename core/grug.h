/* grug.h: GraphML generation recipes ("GRUG") expanded into a graph.
 *
 * A recipe is a GraphML document whose nodes are vertex *templates* and
 * whose edges say how to generate vertices from them.  Template properties
 * (GraphML <data> on <node>): type (required), basename (default: the
 * type), size (default 1), unit (default ""), subsystem (default
 * "containment") and root (1 marks the root of its subsystem).  Edge
 * properties: gen_method (MULTIPLY, ASSOCIATE_IN or ASSOCIATE_BY_PATH_IN),
 * multi_scale, e_subsystem, relation / rrelation (the downward and upward
 * relationships, default "contains" / "in"), id_scope, id_start,
 * id_stride, as_tgt_subsystem, as_tgt_uplvl and as_src_uplvl.  Defaults
 * come from the GraphML <key> declarations; every property is referred to
 * by its attr.name.
 *
 * Expansion is a depth-first walk of the recipe (templates in document
 * order, each template's edges in document order; edges that do not lead
 * to an unvisited template are ignored).  A root template gives one vertex
 * (id 0) the first time it is met; two roots of one subsystem share it.
 * On each edge of the walk:
 * - MULTIPLY creates multi_scale children of the target template under
 *   every vertex made from the source template, and joins each pair with
 *   relation / rrelation edges in e_subsystem.  Ids: with id_scope 0 the
 *   i-th child of a parent gets id_start + i; with id_scope k > 0 ids run
 *   on across the parents below the k-th ancestor level
 *   (id_start + ((j mod W) * multi_scale + i) * id_stride, where j counts
 *   the parents and W is the product of the multi_scale of the k enclosing
 *   MULTIPLY levels); with a negative id_scope the vertex has no id and its
 *   name is the bare basename.  So in a rack -> node[2] -> socket[2] ->
 *   core[18] recipe with id_scope 1 on the core edge, cores are core0 ..
 *   core35 in every node.
 * - ASSOCIATE_IN links every vertex made from the source template to every
 *   existing vertex of the target template's type (any subsystem), in
 *   e_subsystem; ASSOCIATE_BY_PATH_IN does the same only for pairs whose
 *   paths in as_tgt_subsystem agree once as_tgt_uplvl / as_src_uplvl
 *   trailing components are dropped.  No vertex is created.
 * Vertex names are basename + id; vertex ids follow creation order.
 *
 * Grove's containment subsystem is a tree.  An association in containment
 * that would give a vertex a second containment parent (the shared SSD
 * units of multi-tier storage recipes) cannot be represented: by default it
 * is left out and counted (grove_grug_opts_t.dropped), with
 * GROVE_GRUG_STRICT it is an error.
 *
 * Ranks: the recipe format has none.  By default every vertex of type
 * "node" gets the next rank (0, 1, ... in creation order) and the others
 * have none; GROVE_GRUG_RANK_SUBTREE also gives each vertex below a node
 * the node's rank, GROVE_GRUG_RANK_NONE assigns no rank at all.
 *
 * A type filter keeps only the listed types: a vertex whose type is left
 * out is not created, its children attach to the nearest kept ancestor,
 * and associations that touch it are left out.
 *
 * Errors (EINVAL) name the source, the line of the offending element and
 * the reason: malformed XML, a root element that is not <graphml>, a
 * <data> whose key is not declared, a property Grove does not know, a
 * missing type, an unknown gen_method, a value that is not an integer
 * where one is needed (or a negative size or multi_scale), an edge that
 * names an undeclared node.  EOVERFLOW when the recipe would generate more
 * than the vertex limit.  Nothing is left behind on failure.
 *
 * This header must not hold the expander's internals or any other graph
 * format.
 */
#ifndef GROVE_GRUG_H
#define GROVE_GRUG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "graph.h"

/* Rank assignment (grove_grug_opts_t.ranks). */
#define GROVE_GRUG_RANK_NODES 0   /* nodes get 0, 1, ...; others none */
#define GROVE_GRUG_RANK_SUBTREE 1 /* as NODES, and below a node its rank */
#define GROVE_GRUG_RANK_NONE 2    /* no ranks */

/* Flags (grove_grug_opts_t.flags). */
#define GROVE_GRUG_STRICT 0x01 /* an association the graph cannot hold fails */

/* The most the default limit on generated vertices can be; the default
 * itself is GROVE_MAX_VERTICES (limit.h), sized to physical memory. */
#define GROVE_GRUG_MAX_VERTICES 50000000u

typedef struct grove_grug_opts {
    const char *const *types; /* NULL-terminated types to keep; NULL: all */
    int ranks;                /* GROVE_GRUG_RANK_* */
    int flags;                /* GROVE_GRUG_* */
    size_t max_vertices;      /* 0: GROVE_MAX_VERTICES (limit.h); counts every
                               * generated vertex, kept or not */
    size_t *dropped;          /* out (optional): associations left out
                               * because the graph could not hold them */
} grove_grug_opts_t;

/* Expand the recipe in the file at path (also the source name in errors)
 * into a new graph.  opts may be NULL (all types, node ranks, not strict).
 * Returns the graph (caller destroys) or NULL with errno: EINVAL (err says
 * where and why), EOVERFLOW, ENOMEM, or the errno of opening or reading
 * the file (e.g. ENOENT). */
grove_graph_t *grove_grug_load(const char *path, const grove_grug_opts_t *opts,
                               grove_error_t *err);

/* As grove_grug_load for len bytes of recipe text at text (need not be
 * NUL-terminated); source names it in errors (NULL: none). */
grove_graph_t *grove_grug_read(const char *text, size_t len, const char *source,
                               const grove_grug_opts_t *opts, grove_error_t *err);

#endif
