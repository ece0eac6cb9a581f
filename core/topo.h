/* topo.h: node topologies from hwloc, and clusters built from them.
 *
 * A topology is read once (this machine's live topology, an hwloc XML file
 * or buffer -- hwloc 1.x and 2.x XML both load --, or a synthetic
 * description such as "pack:2 core:22 pu:2") and kept as a flat list of the
 * objects Grove maps; it can then be stamped into a graph any number of
 * times, one node per host.
 *
 * Mapping (hwloc object -> Grove type, basename, id, size, unit):
 *   Machine          -> node     the host name split into basename + id
 *                                ("corona116": corona, 116; no digits: no
 *                                id), named by the full host name
 *   Package          -> socket   logical index
 *   Group            -> group    logical index
 *   L1..L5 caches    -> cache    basename "L<n>cache" (instruction caches
 *                                "L<n>icache"), size in KB, unit "KB"
 *   NUMANode         -> memory   size = local memory in GiB (floor), unit
 *                                "GB"
 *   Core             -> core     logical index
 *   PU               -> pu       logical index
 *   OS device, co-processor (CUDA, OpenCL, ...) or a GPU named rsmi*
 *                    -> gpu      the device number from its name (cuda3: 3,
 *                                opencl0d2: 2, rsmi1: 1), else the
 *                                logical index
 *   OS device, block -> storage  size = the "Size" info (kB) / 10^6, i.e.
 *                                GB, unit "GB"; property LinuxDeviceID
 *                                (from the info of that name, "-1" if
 *                                absent); logical index
 * Everything else (bridges, PCI devices, other OS devices, misc, dies,
 * memory-side caches) is passed through: its children attach to the
 * nearest mapped ancestor.  Children come in hwloc order: normal children,
 * then memory, then I/O, then misc (so a drive attached to a NUMA group
 * comes after that group's cores).
 *
 * Type filter: a NULL-terminated list of names.  An object is kept when its
 * type or its basename is listed ("cache" keeps every cache, "L3cache" only
 * those); "all" keeps everything; "numanode" asks for the locality form
 * (below) instead.
 * Objects left out are skipped and their children attach to the nearest
 * kept ancestor (the cluster when even the node is left out).  NULL means
 * the default list GROVE_TOPO_DEFAULT_TYPES: node, socket, core, pu, gpu,
 * memory and storage (no groups or caches).
 *
 * The locality form (a filter that lists "numanode"; and what a scheduler
 * of R uses, grove_topo_attach_inside): below the node, the sockets, the
 * NUMA domains, the cores and the GPUs, nothing else, each below the
 * smallest of them whose processors include it, so that a NUMA domain
 * holds the cores and GPUs hwloc makes local to it whatever the shape of
 * hwloc's own tree (a NUMA node above its package in hwloc 1.x XML, a
 * Group between them, GPUs behind PCI bridges of a package):
 *   Package          -> socket   logical index
 *   NUMANode         -> numanode logical index; only one with processors,
 *                                and one per set of processors (memory of
 *                                no processor's, a second NUMA node of the
 *                                same processors: none)
 *   Core             -> core     logical index (what flux-core's R and job
 *                                shell number cores by)
 *   GPU              -> gpu      numbered as flux-core numbers GPUs
 *                                (librlist's rhwloc.c): the OS devices of
 *                                backend CUDA, NVML, OpenCL or RSMI in
 *                                hwloc's order, one per PCI device shown
 *                                under several backends, every one a device
 *                                shows under one backend (the partitions
 *                                of an MI300A in CPX mode), none when the
 *                                topology has no PCI device; placed by the
 *                                processors of its nearest ancestor that is
 *                                not I/O
 * A socket and a NUMA domain of the same processors nest with the domain
 * below; a domain larger than a socket holds the socket.  Siblings come
 * in order of their first processor (containers), logical index (cores),
 * GPU number (GPUs), containers first.  Only the kinds listed are made
 * (NULL: all four); one left out hands its children to its parent.
 *
 * A cluster is a "cluster" vertex (named as given, default "cluster0",
 * split into basename + id like host names) with one node per host of an
 * RFC 29 hostlist; node i and everything below it get rank first_rank + i;
 * the cluster has no rank.  Vertex ids of the graph follow pre-order.
 *
 * XML is checked before hwloc sees it (well-formed, a <topology> root,
 * known object types, bitmaps, numbers and nesting as hwloc's export
 * format has them: errors name the line) and is then loaded by hwloc in a
 * child process, so that an input hwloc aborts or crashes on fails that
 * load and nothing else ("FILE: the topology library crashed reading it").
 *
 * Errors: EINVAL with the reason in err ("FILE:LINE: not well-formed XML:
 * ...", "synthetic \"x\": invalid description", a bad hostlist, a
 * block device without a Size when storage is kept), ENOENT and the like
 * for files that cannot be read, ENOMEM.  Nothing is left half-built.
 *
 * This header must not hold hwloc types: callers never see hwloc.
 */
#ifndef GROVE_TOPO_H
#define GROVE_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "graph.h"
#include "idset.h"

typedef struct grove_topo grove_topo_t;

/* The types kept when no filter is given (NULL-terminated). */
extern const char *const GROVE_TOPO_DEFAULT_TYPES[];

/* This machine's topology.  NULL with errno and err set on failure. */
grove_topo_t *grove_topo_load_live(grove_error_t *err);

/* The topology in the hwloc XML file at path (also the source name). */
grove_topo_t *grove_topo_load_xml(const char *path, grove_error_t *err);

/* The topology in len bytes of hwloc XML at text; source names it in
 * errors (NULL: "XML").  In a process of one thread hwloc reads it in a
 * child process, so that a text that crashes hwloc fails this call and
 * nothing else; in a process of several (where a child may not allocate)
 * it reads it in place. */
grove_topo_t *grove_topo_read_xml(const char *text, size_t len, const char *source,
                                  grove_error_t *err);

/* A synthetic topology ("pack:2 core:4 pu:2"; hwloc's syntax).  A
 * description whose last level is not PUs gets one PU per object of that
 * level, so "pack:2 core:4" is accepted. */
grove_topo_t *grove_topo_load_synthetic(const char *desc, grove_error_t *err);

/* Free t.  NULL is a no-op. */
void grove_topo_destroy(grove_topo_t *t);

/* The host name recorded in the topology (the Machine's HostName info), or
 * NULL (synthetic topologies have none).  Borrowed from t. */
const char *grove_topo_hostname(const grove_topo_t *t);

/* Number of objects of one node that map to Grove type (or basename)
 * type: "core", "gpu", "L3cache", ...  Unfiltered.  "numanode" counts the
 * NUMA domains of the locality form. */
size_t grove_topo_count(const grove_topo_t *t, const char *type);

/* What the topology was read from ("FILE", "synthetic \"...\"", "live
 * topology", or the source given grove_topo_read_xml).  Borrowed. */
const char *grove_topo_source(const grove_topo_t *t);

/* The ids the locality form gives one type ("socket", "numanode",
 * "core", "gpu"): a new set (caller destroys), or NULL with EINVAL (another
 * type) or ENOMEM. */
grove_idset_t *grove_topo_ids(const grove_topo_t *t, const char *type);

/* Add the inside of one node of topology t in the locality form below
 * node (GROVE_VID_NONE: as roots), every vertex with rank rank: only the
 * cores whose ids are in cores and the GPUs in gpus (NULL: all), and the
 * sockets and domains that hold one of them; of the kinds types lists
 * (NULL: all four).  0, or -1 with errno (EINVAL, ENOMEM) and err, the
 * vertices it added removed again. */
int grove_topo_attach_inside(grove_graph_t *g, grove_vid_t node, const grove_topo_t *t,
                             int64_t rank, const grove_idset_t *cores, const grove_idset_t *gpus,
                             const char *const *types, grove_error_t *err);

/* Add one node of topology t to g below parent (GROVE_VID_NONE: as a new
 * root), named hostname (NULL: the topology's host name, else "node" +
 * rank, or "node" without a rank), every vertex with rank rank (may be
 * GROVE_ID_NONE), keeping the types listed (NULL: the default list).
 * Returns the node vertex -- or, when "node" is filtered out, parent --
 * or GROVE_VID_NONE with errno (EINVAL, ENOMEM) and err; on failure the
 * vertices already added are removed again. */
grove_vid_t grove_topo_attach(grove_graph_t *g, grove_vid_t parent, const grove_topo_t *t,
                              const char *hostname, int64_t rank, const char *const *types,
                              grove_error_t *err);

/* A new graph: a cluster vertex named cluster (NULL: "cluster0") and one
 * copy of t per host of the RFC 29 hostlist hosts (NULL: a single node
 * named as in grove_topo_attach), ranked from first_rank on (-1: no
 * ranks), filtered by types.  Caller destroys the graph.  NULL with errno
 * EINVAL (a bad hostlist or cluster name, first_rank below -1, see
 * attach), EOVERFLOW (ranks past INT64_MAX), ENOMEM. */
grove_graph_t *grove_topo_cluster(const char *cluster, const grove_topo_t *t, const char *hosts,
                                  int64_t first_rank, const char *const *types,
                                  grove_error_t *err);

#endif
