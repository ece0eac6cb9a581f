/* rv1_topo.h: the graph of an R whose ranks have hwloc topologies.
 *
 * R_lite names a rank's cores and GPUs and nothing of where they are.  A
 * scheduler that knows each node's hwloc topology (one per class of
 * alike nodes: the instance's own, or an XML a site names) builds each
 * rank's node in the topology's locality form instead (topo.h): its
 * sockets, its NUMA domains, and R's cores and GPUs each in the domain
 * hwloc makes it local to.  The ids stay R's (a core's logical index, a
 * GPU's number as flux-core gives it), so an R written from the graph
 * names what the graph chose in the numbering flux-core's job shell binds
 * by.
 *
 * A rank whose topology disagrees with R (R names a core or GPU the
 * topology lacks, or a type it does not hold), or, in an R whose
 * scheduling key holds a graph (JGF), whose vertices disagree with R_lite
 * (other cores or GPUs), is built flat from R_lite, and the difference is
 * kept as a note: the graph is built either way.
 *
 * A map is made, given its classes, and handed to the builds below (and
 * to an acquisition state, acquire.h); each build replaces the map's
 * report of the last one: the ranks built with a topology, and the notes,
 * one per distinct difference, each with its ranks.
 */
#ifndef GROVE_RV1_TOPO_H
#define GROVE_RV1_TOPO_H

#include <stddef.h>

#include "error.h"
#include "graph.h"
#include "idset.h"
#include "rv1.h"
#include "topo.h"

typedef struct grove_rtopo grove_rtopo_t;

/* Most notes a report keeps; the ranks of further differences are only
 * counted (grove_rtopo_report's more). */
#define GROVE_RTOPO_NOTES_MAX 32

/* A new map that gives no rank a topology.  NULL with ENOMEM. */
grove_rtopo_t *grove_rtopo_create(void);

/* Free rt and its topologies.  NULL is a no-op. */
void grove_rtopo_destroy(grove_rtopo_t *rt);

/* Give the ranks of ranks topology t (taken, even on failure); a rank a
 * class already holds keeps that one.  0, or -1 with EINVAL (NULL
 * arguments) or ENOMEM. */
int grove_rtopo_add_take(grove_rtopo_t *rt, const grove_idset_t *ranks, grove_topo_t *t);

/* Number of classes; the i-th's ranks and topology (borrowed), or -1 with
 * ERANGE past the last. */
size_t grove_rtopo_count(const grove_rtopo_t *rt);
int grove_rtopo_class(const grove_rtopo_t *rt, size_t i, const grove_idset_t **ranks,
                      const grove_topo_t **t);

/* The last build's report: the ranks built with a topology (borrowed),
 * its number of notes, and how many ranks differed past the last note
 * kept (*more, may be NULL). */
const grove_idset_t *grove_rtopo_placed(const grove_rtopo_t *rt);
size_t grove_rtopo_notes(const grove_rtopo_t *rt, size_t *more);

/* The i-th note: the ranks it is about and what differed there (both
 * borrowed until the next build), or -1 with ERANGE. */
int grove_rtopo_note(const grove_rtopo_t *rt, size_t i, const grove_idset_t **ranks,
                     const char **why);

/* Build R into the empty graph g as grove_rv1_build does, each rank rt
 * gives a topology in its locality form when the topology agrees with R.
 * 0, or -1 with errno (EINVAL and err, ENOMEM), g as it was. */
int grove_rv1_build_topo(grove_graph_t *g, const grove_rv1_t *R, grove_rtopo_t *rt,
                         grove_error_t *err);

/* The graph of R (grove_rv1_to_graph), with the topologies of rt (an R
 * without a readable scheduling graph), or with each rank whose vertices
 * in the scheduling graph disagree with R_lite rebuilt flat.  New graph
 * (caller destroys), or NULL with errno and err. */
grove_graph_t *grove_rv1_to_graph_topo(const grove_rv1_t *R, grove_rtopo_t *rt,
                                       grove_error_t *err);

#endif
