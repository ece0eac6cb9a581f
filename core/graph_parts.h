/* graph_parts.h: what the files of the graph share among themselves and
 * with nothing else: graph.c (life, subsystems, vertices and their names),
 * graph_edge.c (edges), graph_index.c (look-up indexes), graph_path.c
 * (trees and paths) and graph_copy.c (the deep copy).
 *
 * The floors above the graph use graph.h and graph_private.h; this header
 * must not be included outside core/graph*.c (graph_life.c, on the pools'
 * floor, included), and holds no type of its own.
 */
#ifndef GROVE_GRAPH_PARTS_H
#define GROVE_GRAPH_PARTS_H

#include "graph_private.h"

/* ---- small helpers -------------------------------------------------------- */

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static inline uint64_t rng_next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* ---- uuids and their index (graph_index.c) ------------------------------- */

struct grovep_uuidx {
    uint64_t *slots;
    size_t count, cap; /* cap: 0 or a power of two, at least 2 * count */
    bool built;        /* every live vertex is indexed */
    uint8_t (*u)[16];  /* [vcap] the uuids once stored (built implies it), or NULL */
    uint64_t key[2];   /* the uuid of vertex v until stored: uuid_keyed */
    uint64_t rng[4];   /* generator state of new uuids */
};

/* uuid_keyed reads key; rng makes the uuids of new vertices once they are
 * stored (see graph_index.c). */

/* The uuid of v (stored, or its keyed mix while none is). */
void grovep_uuid_get(const grove_graph_t *g, grove_vid_t v, uint8_t u[16]);
/* A fresh random (version 4) uuid, not used yet in the graph when its
 * index is built. */
void grovep_uuid_generate(const grove_graph_t *g, uint8_t u[16]);
/* The vertex of uuid u in the index (built or not) or GROVE_VID_NONE; *at
 * gets its slot, or the empty slot where it would go (when it has room). */
grove_vid_t grovep_uuid_probe(const grove_graph_t *g, const uint8_t u[16], size_t *at);
/* Room for `more` uuids.  0 or -1 (ENOMEM). */
int grovep_uuid_reserve(struct grovep_uuidx *x, size_t more);
/* Index u as the uuid of v (after grovep_uuid_reserve; u not indexed yet). */
void grovep_uuid_insert(const grove_graph_t *g, const uint8_t u[16], grove_vid_t v);
/* Index every live vertex, once.  0 or -1 (ENOMEM, the index left empty). */
int grovep_uuid_build(const grove_graph_t *g);
/* Drop the uuid of v from the index (backward-shift deletion keeps
 * probing correct). */
void grovep_uuid_del(grove_graph_t *g, grove_vid_t v);
void grovep_uuid_index_free(struct grovep_uuidx *x);
/* The 16-byte uuid from its 36-char text form; 0 or -1 (EINVAL). */
int grovep_uuid_parse(const char *text, uint8_t out[16]);
/* Its text form (36 characters and a NUL). */
void grovep_uuid_format(const uint8_t u[16], char buf[37]);

/* ---- maps and id chains (graph_index.c) ------------------------------------ */

/* Grow the map to cap slots (a power of two).  0 or -1 (ENOMEM). */
int grovep_map_rehash(grovep_map_t *m, size_t cap);
/* Remove key (backward-shift deletion keeps probing correct); unlike
 * grovep_map_del, the table is never shrunk. */
void grovep_map_remove(grovep_map_t *m, uint64_t key);
/* dst (empty) becomes a copy of src.  0 or -1 (ENOMEM). */
int grovep_map_copy(grovep_map_t *dst, const grovep_map_t *src);
/* Room in the type and name chains for symbol sym.  0 or -1 (ENOMEM). */
int grovep_reserve_chains(grove_graph_t *g, grove_sym_t sym);
/* Insert v into a chain kept in ascending id order, or remove it. */
void grovep_chain_insert(grovep_chain_t *c, grove_vid_t *next, grove_vid_t v);
void grovep_chain_remove(grovep_chain_t *c, grove_vid_t *next, grove_vid_t v);

/* ---- vertices (graph.c) and edges (graph_edge.c) ---------------------------- */

/* Room for need vertices in every per-vertex array.  0 or -1 (ENOMEM). */
int grovep_reserve_vertices(grove_graph_t *g, size_t need);
/* The downward in-edge of v in subsystem index sub, or GROVEP_NONE. */
grove_eid_t grovep_down_in_edge(const grove_graph_t *g, grove_vid_t v, int sub);

#endif
