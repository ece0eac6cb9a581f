/* rv1_private.h: the representation of an R, shared by the files of the R
 * module: rv1.c (the format and its set algebra) and rv1_graph.c (the
 * bridge to the graph).
 *
 * It holds the struct layouts and the few helpers both files need to build
 * an R entry by entry, and what rv1_topo.c (a graph of an R whose ranks
 * have hwloc topologies) takes from the bridge.  It must not hold anything
 * the rest of libgrove should call: that goes through rv1.h.
 */
#ifndef GROVE_RV1_PRIVATE_H
#define GROVE_RV1_PRIVATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rv1.h"

struct rv1_kid {
    uint32_t type;      /* index into R->types */
    grove_idset_t *ids; /* never empty */
};

struct rv1_rank {
    unsigned rank;
    char *host;           /* NULL: unknown */
    struct rv1_kid *kids; /* sorted by type index */
    uint32_t nkids, kidcap;
};

struct rv1_prop {
    char *name;
    grove_idset_t *ranks; /* subset of the R's ranks */
};

struct grove_rv1 {
    struct rv1_rank *r; /* sorted by rank, distinct */
    size_t n, cap;
    char **types; /* child type names, in order of first use */
    size_t ntypes, typecap;
    struct rv1_prop *props; /* in order of first use */
    size_t nprops, propcap;
    double start, expiration; /* seconds; 0: unset */
    bool has_start, has_expiration; /* write the key */
    bool start_real, exp_real;      /* write as a JSON real (read as one) */
    int64_t nslots;                 /* -1: unknown */
    bool has_execution;             /* false only for a scheduling-only R */
    bool has_nodelist;              /* an R with no ranks writes nodelist [] */
    json_t *nodelist_as_read;       /* the array read, while hosts are unchanged */
    json_t *scheduling;             /* NULL if none (or not parsed yet: sched_text) */
    /* The scheduling key as the JGF writer made it, compact JSON text,
     * for a job's R with its graph (rv1_graph.c): written into R's text as
     * it is, and parsed into scheduling only when something reads it as a
     * tree (grovep_rv1_sched).  A 40-node job of El Capitan's shape has a
     * graph of 0.8 MB, which the tree made, copied, wrote and freed again
     * in 60 ms. */
    char *sched_text;
    size_t sched_len;
    json_t *extra;                  /* other top-level keys, or NULL */
    json_t *exec_extra;             /* other execution keys, or NULL */
    /* As read from text: the first R_lite entry at which the entries so far
     * name more resources (ranks times one plus their children) than the
     * members limit allows in a graph, so that building the graph can name
     * the place it refuses; SIZE_MAX when none does or R was not read. */
    size_t rlite_over;
};

/* ---- in rv1.c ---------------------------------------------------------- */

/* True if s may name a property (not empty, none of ! & ' " ^ ` | ( )). */
bool grovep_rv1_valid_prop_name(const char *s);

/* Index of type name in R->types, adding it if new; -1 with ENOMEM. */
long grovep_rv1_type_index(grove_rv1_t *R, const char *name);

/* The type indexes of R in canonical order (core, gpu, then by name), as a
 * new array of R->ntypes entries (caller frees); NULL with ENOMEM. */
uint32_t *grovep_rv1_canonical_types(const grove_rv1_t *R);

/* The entry of rank (borrowed), or NULL. */
struct rv1_rank *grovep_rv1_rank_find(const grove_rv1_t *R, unsigned rank);

/* Append an entry for rank, larger than every rank in R; NULL with
 * ENOMEM. */
struct rv1_rank *grovep_rv1_rank_append(grove_rv1_t *R, unsigned rank);

/* The child entry of type index t on rk, or NULL. */
struct rv1_kid *grovep_rv1_kid_find(const struct rv1_rank *rk, uint32_t t);

/* Give rk the ids (taken, even on failure; non-empty) of type index t,
 * which rk must not have yet.  0, or -1 with ENOMEM. */
int grovep_rv1_kid_take(struct rv1_rank *rk, uint32_t t, grove_idset_t *ids);

/* The property name, created empty if new; NULL with ENOMEM. */
struct rv1_prop *grovep_rv1_prop_get(grove_rv1_t *R, const char *name);

/* What builds the inside of rank rk's node (the vertex node of g) in
 * place of R_lite's flat children: 1 built, 0 to have them built flat, -1
 * an error (errno, err). */
typedef int (*grovep_rv1_inside_f)(void *arg, grove_graph_t *g, grove_vid_t node,
                                   const grove_rv1_t *R, const struct rv1_rank *rk,
                                   grove_error_t *err);

/* Add rank rk's node to g below parent (GROVE_VID_NONE: a root), named
 * by its host, with R's properties of the rank, and its children: what
 * inside builds (NULL, or when it answers 0: R_lite's, flat, in the order
 * of grovep_rv1_canonical_types, order).  0, or -1 with errno (EINVAL with
 * err, ENOMEM); what it added stays for the caller to take away. */
int grovep_rv1_add_rank(grove_graph_t *g, grove_vid_t parent, const grove_rv1_t *R,
                        const struct rv1_rank *rk, const uint32_t *order,
                        grovep_rv1_inside_f inside, void *arg, grove_error_t *err);

/* Build R's R_lite into the empty graph g (grove_rv1_build), each rank's
 * inside made by inside when it answers 1.  0, or -1 with errno and err,
 * g as it was. */
int grovep_rv1_build_with(grove_graph_t *g, const grove_rv1_t *R, grovep_rv1_inside_f inside,
                          void *arg, grove_error_t *err);

/* grove_rv1_to_graph, each rank's inside made by inside when it answers
 * 1 (R_lite's ranks; a scheduling graph is read as it is). */
grove_graph_t *grovep_rv1_to_graph_with(const grove_rv1_t *R, grovep_rv1_inside_f inside,
                                        void *arg, grove_error_t *err);

/* The scheduling value of R's R_lite, asked for by GROVE_RV1_WITH_GRAPH:
 * the writers below are given it by rv1_graph.c, which alone knows the
 * graph (rv1.c must not), so the R format does not call its bridge. */
typedef json_t *(*grovep_rv1_scheduling_f)(const grove_rv1_t *R);

/* grove_rv1_to_json and grove_rv1_encode (rv1.h), with the function that
 * makes the scheduling value for GROVE_RV1_WITH_GRAPH: the public ones (in
 * rv1_graph.c) pass grovep_rv1_scheduling_of_rlite. */
json_t *grovep_rv1_to_json(const grove_rv1_t *R, int flags, grovep_rv1_scheduling_f scheduling);
/* R's scheduling key as a tree (parsed from sched_text at the first
 * call, and kept), or NULL: none, or ENOMEM. */
json_t *grovep_rv1_sched(const grove_rv1_t *R);
/* Take text (len bytes, compact JSON of an object, malloc'd) as R's
 * scheduling key; the tree, if any, is dropped. */
void grovep_rv1_set_sched_text(grove_rv1_t *R, char *text, size_t len);
char *grovep_rv1_encode(const grove_rv1_t *R, int flags, grovep_rv1_scheduling_f scheduling);

/* ---- in rv1_graph.c ---------------------------------------------------- */

/* The scheduling value {graph, writer} of a graph built from R's R_lite
 * (grove_rv1_to_json with GROVE_RV1_WITH_GRAPH), new; NULL with EINVAL or
 * ENOMEM. */
json_t *grovep_rv1_scheduling_of_rlite(const grove_rv1_t *R);

#endif
