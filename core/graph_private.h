/* graph_private.h: the layout of grove_graph_t, shared by graph.c (vertices,
 * edges, indexes), aggregate.c (availability over time), pool.c (pool data
 * and allocation records), graph_life.c (the graph's life), walker.c
 * (traversal, aggregate, find) and compose.c (copy, duplicate, merge,
 * unlink, extract), and by readers/writers in core/ that need speed.
 * Nothing here is public API.
 */
#ifndef GROVE_GRAPH_PRIVATE_H
#define GROVE_GRAPH_PRIVATE_H

#include "graph.h"
#include "mplanner.h"
#include "planner.h"

#define GROVEP_NONE UINT32_MAX /* end of an index-linked list */
#define GROVEP_MAX_SMALL 255   /* subsystems / relationships per graph */
#define GROVEP_MAX_LOW 8       /* low-level types tracked by aggregates */
#define GROVEP_BLK_N 64        /* children of a wide vertex an aggregate's block, by
                                * default (the aggregates' blocks=N) */
#define GROVEP_BUSY_CAP 64     /* windows on a node past which its use is not
                                * counted (aggregate.c, the idle bound) */
#define GROVEP_BLK_WIDE 4      /* a vertex with this many blocks of children or more is
                                * wide */
#define GROVEP_TAIL_WALK 8     /* out-lists this long keep their tail in g->tails */
#define GROVEP_IDNAMES_MIN 4096 /* entries of g->idnames allowed beyond nv / 2 */

/* Vertex flags. */
#define GROVEP_V_DEAD 0x01  /* removed by unlink; id kept */
#define GROVEP_V_EXCL 0x02  /* has an exclusive ALLOC record (some window) */
#define GROVEP_V_ALLOC 0x04 /* has an ALLOC record (some window) */
#define GROVEP_V_STAGED 0x08 /* RFC 4's staged: locked while considered for a job */
#define GROVEP_V_TAIL 0x10  /* keeps the tail of its out-list in g->tails (graph.c) */
#define GROVEP_V_PATHNAMED 0x40 /* its paths name it g->pnames[v], not by its
                                 * name (a JGF vertex named by default,
                                 * basename + id, whose file paths call it
                                 * otherwise: Fluxion keeps such paths) */
#define GROVEP_V_NAMED 0x20 /* its name is g->names[v], not its default one
                             * (basename + id, from g->idnames) */

/* One vertex: base data and list heads.  28 bytes: read the id, the
 * size, the unit and the name through grovep_vertex_id,
 * grovep_vertex_size, grovep_vertex_unit and grovep_vertex_name, the heads
 * of its records' lists through grovep_recs_head and grovep_shared_head,
 * its properties and tags through grovep_kv_head. */
#define GROVEP_RANK_MAX INT32_MAX
#define GROVEP_ID_BIG INT32_MIN  /* the id is past 31 bits: in g->big_ids */
#define GROVEP_SIZE_BIG (-1)     /* the size is past 31 bits: in g->big_ids */
#define GROVEP_BIG_SIZE_KEY ((uint64_t)1 << 32) /* g->big_ids' key of a size:
                                                  * this + the vertex */
#define GROVEP_MAX_UNITS 65535   /* distinct units of measure per graph */
#define GROVEP_KV_TAG 0x80000000u /* in a kv entry's key: a tag, not a property */
typedef struct grovep_vertex {
    int32_t size;   /* units in the pool, >= 0, or GROVEP_SIZE_BIG */
    grove_sym_t type, basename; /* its name: grovep_vertex_name */
    int32_t id;     /* GROVE_ID_NONE when not assigned, or GROVEP_ID_BIG */
    int32_t rank;   /* GROVE_ID_NONE when none; ranks fit 31 bits */
    uint32_t held;  /* the heads of its lists of records in g->heads, or
                     * GROVEP_NONE while it has none (most vertices: read
                     * them with grovep_recs_head, grovep_shared_head) */
    uint16_t unit;  /* its unit of measure: index into g->units */
    uint8_t status; /* grove_status_t */
    uint8_t flags;  /* GROVEP_V_* */
} grovep_vertex_t;

/* Edge flags. */
#define GROVEP_E_UP 0x01   /* upward (an "in", or the second of a pair) */
#define GROVEP_E_DEAD 0x02 /* removed */

/* One edge: 12 bytes.  Subsystem and relationship are small indexes into
 * g->subsys / g->rels so the edge stays compact.  The opposite edge is
 * kept as its distance: readers and the graph's own add_child make a
 * pair's two edges one after the other (read it with
 * grovep_edge_opposite).  An edge is in the out-list of its source; its
 * place among the in-edges of its destination is not kept for an edge
 * with an opposite (the in-edges of v are first the opposites of v's
 * out-edges that have one, in the out-list's order), and for one without
 * it is g->pend or a link of g->uin_first / g->uin_next (grovep_in_first,
 * grovep_in_next).  Its source is not kept either: it is its opposite's
 * destination, g->pend_src or g->uin_src[edge] for an edge with none, and
 * next_out for a dead edge (grovep_edge_src). */
#define GROVEP_OPP_FAR INT8_MIN /* opp: the opposite edge is in g->big_ids */
#define GROVEP_FAR_OPP_KEY ((uint64_t)2 << 32) /* g->big_ids' key of a far
                                                 * opposite: this + the edge */
typedef struct grovep_edge {
    grove_vid_t dst;
    grove_eid_t next_out; /* next out-edge of its source, or GROVEP_NONE;
                           * its source once it is dead */
    uint8_t sub;          /* index into g->subsys */
    uint8_t rel;          /* index into g->rels */
    uint8_t flags;        /* GROVEP_E_* */
    int8_t opp;           /* the opposite edge is this edge + opp; 0: it
                           * has none; GROVEP_OPP_FAR: farther than 127 */
} grovep_edge_t;

/* A property or tag: key and value symbols, index-linked.  A tag's key
 * carries GROVEP_KV_TAG; a tag with no value has val == GROVE_SYM_NONE. */
typedef struct grovep_kv {
    grove_sym_t key, val;
    uint32_t next;
} grovep_kv_t;

/* An allocation record or a shared annotation.  56 bytes. */
typedef struct grovep_rec {
    grove_jobid_t job;
    int64_t amount; /* units (ALLOC) or descendant-record count (SHARED) */
    int64_t start, end;
    int64_t pspan;  /* ALLOC: span in the vertex's pool planner, or 0 */
    uint32_t next;  /* next record in the same list, or GROVEP_NONE */
    uint32_t prev;  /* previous record in the same list, or GROVEP_NONE */
    grove_vid_t v;  /* the vertex whose list holds it (its index key) */
    uint8_t kind;   /* grove_record_kind_t */
    uint8_t excl;   /* held exclusively */
    uint8_t asked;  /* exclusivity was asked for (not only implied) */
} grovep_rec_t;

/* The heads of a vertex's two lists of records, for the vertices that
 * have records (only those a job holds, and their ancestors): a slot of
 * g->heads each, taken at the first record pushed and given back when
 * both lists are empty.  A free slot is threaded through recs. */
typedef struct grovep_heads {
    uint32_t recs;   /* first ALLOC record in g->recs, or GROVEP_NONE */
    uint32_t shared; /* first SHARED annotation (one per window of the
                      * records below) in g->recs, or GROVEP_NONE */
} grovep_heads_t;

/* The record index: open addressing over 8-byte slots, each the upper
 * 32 bits of a record's key and the record's index + 1 (0: empty); the
 * record holds the parts of its key, so a slot needs nothing more. */
typedef struct grovep_recidx {
    uint64_t *slot;
    size_t count, cap; /* cap: 0 or a power of two */
    uint64_t gen;      /* changes whenever a record comes or goes */
    struct grovep_shlist *list; /* the annotations by job of the vertex
                                 * last listed, while gen holds (pool.c) */
} grovep_recidx_t;

/* The default names (basename + id) of one basename, by id: the symbol of
 * each made so far, GROVE_SYM_NONE where none is.  A reader names most
 * vertices so ("core0" .. "core43" under every socket): a load instead of
 * a string formatted, hashed and looked up. */
typedef struct grovep_idnames {
    grove_sym_t *at; /* [len] */
    uint32_t len;
} grovep_idnames_t;

/* A string add_vertex interned last for one of its fields, and its
 * symbol: vertices come in runs of one type, and comparing with the last
 * string costs less than hashing it and probing the table. */
typedef struct grovep_recent {
    const char *s; /* the table's own copy (stable), or NULL */
    grove_sym_t sym;
} grovep_recent_t;

/* An index chain: first and last vertex of a type / name / rank. */
typedef struct grovep_chain {
    grove_vid_t head, tail;
    uint32_t count; /* live vertices in the chain */
} grovep_chain_t;

/* Open-addressing map from a 64-bit key to a chain (rank index) or a
 * vertex (uuid index). */
typedef struct grovep_map {
    uint64_t *keys;
    grovep_chain_t *vals;
    uint8_t *used;
    size_t count, cap; /* cap: power of two */
} grovep_map_t;

/* A dense map from vertex id to a small index (GROVEP_NONE when unset):
 * 4 bytes a vertex, one load per look-up on the match path. */
typedef struct grovep_dense {
    uint32_t *at;
    size_t len;
} grovep_dense_t;

static inline uint32_t grovep_dense_get(const grovep_dense_t *d, grove_vid_t v)
{
    return v < d->len ? d->at[v] : UINT32_MAX;
}

/* Set d[v] = i, growing it; 0 or -1 (ENOMEM). */
int grovep_dense_set(grovep_dense_t *d, grove_vid_t v, uint32_t i);
void grovep_dense_free(grovep_dense_t *d);

/* A map from vertex id to a small index for a few vertices in many (the
 * vertices with a pruning aggregate: 1 in 17 of a machine): a bit a vertex
 * in blocks of 8, each block with the count of entries before it, and the
 * values in vertex order.  5/8 byte a vertex and 4 an entry, where a dense
 * map is 4 a vertex; a look-up is a test of one byte, and for a vertex
 * that has an entry two loads more (aggregate.c). */
typedef struct grovep_sparse {
    uint8_t *bits;  /* [nblk] bit v & 7 of bits[v >> 3]: v has an entry */
    uint32_t *base; /* [nblk] the entries of the blocks before */
    uint32_t *val;  /* [the entries] */
    size_t nblk;
} grovep_sparse_t;

/* One window of an aggregate's use: every record below the vertex over
 * exactly [start, end) is counted in one span of its multi-planner, so a
 * stream of jobs over the same window costs one span per aggregate, not
 * one per job.  Kept in a hash of the graph (aggregate.c), so that finding,
 * adding and dropping a window costs O(1) however many there are. */
typedef struct grovep_aggwin {
    uint32_t agg;       /* index in g->aggs; UINT32_MAX: an empty slot */
    int64_t start, end; /* the records' window (end as recorded) */
    int64_t span;       /* the span in the multi-planner */
} grovep_aggwin_t;

typedef struct grovep_winmap {
    grovep_aggwin_t *e;
    size_t count, cap; /* cap: 0 or a power of two */
} grovep_winmap_t;

/* A pruning aggregate: the free units of the low-level types in the
 * containment subtree of one vertex, over time. */
typedef struct grovep_agg {
    grove_vid_t v;
    uint32_t nwin;                 /* its windows in g->aggwin */
    uint32_t at;                   /* its totals in g->aggv: at .. at + nlow,
                                    * then its cached free units */
    uint8_t mask;                  /* bit i: tracks low type i */
    grove_mplanner_t *mp;          /* created at a second window below: with
                                    * one (a stream of jobs all over one
                                    * window) the window is kept here */
    /* With mp: the last window asked (end < 0: none) and what mp said is
     * free then: a full rack asked again and again during a fill costs a
     * comparison.  Without mp and with one window (nwin == 1): that window
     * (end as recorded) and what is free during it, the aggregate's whole
     * use, which a multi-planner of a few hundred bytes would hold else. */
    int64_t cache_start, cache_end;
    /* The nodes below in use over time (grovep_busy_change), made at the first: NULL
     * while none is, or the aggregates do not count them */
    grove_tally_t *busy;
    /* Its units of each low type in the subtree (grovep_agg_total) and
     * what is free of them in the cached window (grovep_agg_cache): g->nlow
     * each, in g->aggv, so that an aggregate costs what the types tracked
     * take, not GROVEP_MAX_LOW of each. */
} grovep_agg_t;

/* An instant at which n allocation records end. */
typedef struct grovep_endcount {
    int64_t t;
    uint64_t n;
} grovep_endcount_t;

/* The matcher that keeps jobs on a graph, as the graph and the matcher
 * both see it (match.c): a graph holds the jobs of one matcher at a time,
 * so that a state written as the graph's records and one matcher's job
 * table reads back (two matchers would each number their jobs from 1).
 * The graph and the matcher each hold a reference; destroying the matcher
 * marks it dead without touching the graph. */
struct grovep_holder {
    unsigned refs;    /* the graph's and the matcher's */
    bool alive;       /* the matcher is not destroyed */
    size_t njobs;     /* the jobs it holds */
    uint64_t next_id; /* its next job id once it has kept one: where the
                       * next holder's ids start after it is destroyed (its
                       * records may remain), and a copy's */
};

/* Drop one reference to h (NULL: nothing). */
void grovep_holder_release(struct grovep_holder *h);

struct grove_graph {
    grove_intern_t *strings;

    grovep_vertex_t *v;    /* [vcap] */
    grove_eid_t *first_out; /* [vcap] */
    uint64_t *tails;       /* the tails of long out-lists (graph.c) */
    size_t ntails, tailcap;
    size_t tail_hit;       /* the slot of tails found last (a cache) */
    grove_vid_t *parent;   /* [vcap] containment parent or GROVEP_NONE */
    grove_vid_t *next_type, *next_name, *next_rank; /* [vcap] index chains'
                                                     * links, NULL until the
                                                     * first look-up (graph.c) */
    size_t nv, vcap;       /* slots used / allocated */
    size_t nlive;          /* live vertices */
    uint64_t status_gen;   /* counts the status changes of vertices (a matcher
                            * plans again the reservations they touch) */
    /* What the rankings a matcher keeps between matches (match_keep.c)
     * must know.  chg_gen counts the changes that may change the score of
     * any vertex: structure, sizes, names, ranks, properties, status, the
     * aggregates' specification.  chg_ring holds the last GROVEP_CHG_RING
     * vertices whose records came, went or changed (grovep_chg_vertex);
     * chg_head counts all pushed, stored or not (the ring is NULL until a
     * matcher keeps a ranking). */
    uint64_t chg_gen;
    uint64_t chg_head;
    grove_vid_t *chg_ring;

    grovep_edge_t *e;
    size_t ne, ecap, nlive_e;
    /* The live edges with no opposite, as in-lists: one of them, the
     * last made or left so (a pair's first edge until its second comes),
     * is g->pend; the others are in the list of their destination, from
     * uin_first[dst] through uin_next[edge].  The arrays are NULL until
     * a second such edge is (a graph of pairs has none), then cover
     * vertices < uin_nv and edges < uin_ne (graph.c). */
    grove_eid_t pend;        /* an edge with no opposite, or GROVEP_NONE */
    grove_vid_t pend_src;    /* its source */
    grove_eid_t *uin_first;  /* [uin_nv] */
    grove_eid_t *uin_next;   /* [uin_ne] */
    grove_vid_t *uin_src;    /* [uin_ne] the source of each listed edge */
    size_t uin_nv, uin_ne;
    /* containment's tree as child arrays (grovep_tree_kids), made on demand */
    uint32_t *tk_off;             /* [tk_nv + 1], NULL until made */
    grove_vid_t *tk_kid;          /* [tk_cap] */
    size_t tk_cap;
    size_t tk_nv, tk_ne, tk_live; /* nv, ne and nlive_e when they were made */
    bool tk_all; /* every edge down containment is in them (no vertex has a
                  * second containment parent) */
    uint8_t *tk_kind; /* [tk_nv] what each vertex's children in them are:
                       * GROVEP_TK_LEAF, GROVEP_TK_INNER, both, 0 for none */

    grovep_kv_t *kv;
    size_t nkv, kvcap;
    uint32_t *kvh;    /* [vcap] each vertex's first property or tag in kv
                       * (one list, each kind in the order set), or
                       * GROVEP_NONE; NULL until one is set (most graphs
                       * have none: grovep_kv_head) */
    uint32_t kv_free; /* free list of kv entries */

    struct grovep_holder *holder; /* the matcher keeping jobs here, or NULL */

    grovep_rec_t *recs;
    size_t nrec, reccap;
    uint32_t rec_free;        /* free list of records */
    size_t nrec_live;         /* records in use: at 0 the array is released */
    grovep_heads_t *heads;    /* [headcap] the vertices' list heads (see
                               * grovep_heads_t): headcap >= nrec_live, so
                               * that a record made can always be pushed */
    size_t nheads, headcap;
    uint32_t head_free;       /* free list of heads */
    grovep_recidx_t rec_idx;  /* (vertex, job, window, kind) -> record, so an
                               * ancestor shared by thousands of jobs is
                               * annotated in O(1) (pool.c) */

    grove_sym_t subsys[GROVEP_MAX_SMALL]; /* subsystem symbols in use */
    size_t nsubsys;
    grove_sym_t rels[GROVEP_MAX_SMALL]; /* relationship symbols in use */
    size_t nrels;
    uint8_t containment; /* index of "containment" in subsys, or 0xff */
    grove_sym_t sym_containment, sym_contains, sym_in;

    grovep_chain_t *by_type, *by_name; /* [chain_cap], indexed by symbol */
    size_t chain_cap;
    grovep_map_t by_rank; /* rank -> chain */
    grovep_map_t big_ids; /* vertex -> its id past 31 bits, and
                           * GROVEP_BIG_SIZE_KEY + vertex -> its size past
                           * 31 bits (head: the low 32 bits, tail: the high
                           * ones); GROVEP_FAR_OPP_KEY + edge -> its far
                           * opposite (head) */
    grove_sym_t *units;   /* [nunits] the units of measure; units[0] is "" */
    size_t nunits, unitcap;
    size_t last_unit;     /* index of the unit add_vertex found last */
    grove_sym_t *names;   /* [vcap] the names of the vertices flagged
                           * GROVEP_V_NAMED, NULL until one is: a vertex
                           * named basename + id (most) keeps no symbol of
                           * its own (grovep_vertex_name) */
    grove_sym_t *pnames;  /* [vcap] the path names of the vertices flagged
                           * GROVEP_V_PATHNAMED, NULL until one is */
    grovep_idnames_t *idnames; /* [nidnames] by basename symbol */
    size_t nidnames;
    size_t idnames_len;        /* entries in all of them: at most
                                * GROVEP_IDNAMES_MIN + nv / 2 */
    grovep_recent_t recent[2]; /* add_vertex's last type and basename */
    struct grovep_uuidx *uuidx;  /* uuids and their index (graph.c), stored at the first use */

    /* pruning aggregates (aggregate.c) */
    char *agg_spec;                        /* "ALL:core,rack:node", as configured */
    grove_sym_t agg_low[GROVEP_MAX_LOW];   /* tracked low-level types */
    size_t nlow;
    struct {
        grove_sym_t high; /* a type, or GROVE_SYM_NONE for ALL */
        uint8_t low;      /* index in agg_low */
    } agg_pair[GROVEP_MAX_SMALL]; /* the HL:LL pairs */
    size_t npairs;
    uint32_t agg_blk;      /* children a block of a wide vertex's (blocks=N; 0: none) */
    bool agg_idle;         /* the nodes in use over time are counted (idle=1, grovep_agg_idle) */
    uint8_t busy_low;      /* the index in agg_low of "node", or UINT8_MAX */
    uint32_t busy_cap;     /* GROVEP_BUSY_CAP (tests set fewer) */
    grovep_sparse_t busy_of; /* counted node -> index in busy_nw */
    uint32_t *busy_nw;       /* windows on each counted node (aggregate.c) */
    /* The tallies' changes while a job's records come or go, summed by
     * aggregate and time and put in once at the end (grovep_busy_begin):
     * a reservation of 1,024 whole nodes raises the tally above them at
     * its start and its end once, not once for each node */
    struct grovep_busybatch {
        struct grovep_tallyop {
            int64_t key, dv;
            uint32_t agg;  /* index in aggs */
            int32_t dends;
            uint32_t pos;  /* its place in slot */
        } *op;
        uint32_t *slot;    /* [nslot] open addressing by (agg, key): an index in op */
        size_t n, cap, nslot;
        int depth;         /* grovep_busy_begin's not yet ended */
    } busy_batch;
    uint32_t agg_spec_gen; /* counts the specifications set: what was
                            * worked out from the pairs holds while it
                            * stays */
    bool agg_dirty;  /* structure or sizes changed: rebuild before use */
    grovep_agg_t *aggs;
    size_t naggs, aggcap;
    size_t aggvcap;        /* elements of aggv */
    int64_t *aggv;         /* [naggs * 2 * nlow]: for each aggregate its
                            * totals, then its cached free units.  Aggregates
                            * exist only as built with the current nlow (a
                            * new specification rebuilds or drops them) */
    grovep_sparse_t agg_of; /* vertex -> index in aggs (the first nvaggs) */
    /* Blocks of a wide vertex's children (GROVEP_BLK_WIDE blocks or more,
     * as the cluster of a machine read from R: 16,384 nodes below one
     * vertex), agg_blk consecutive children each, keep an aggregate too: the
     * aggregates after the first nvaggs, their v the wide vertex.  A walk
     * over the children passes by a block that cannot hold one candidate
     * with one query, where each child would cost a look at its own
     * records (a reservation over a machine of held nodes visited every
     * one of them). */
    size_t nvaggs;
    grovep_sparse_t blk_of; /* child of a wide vertex -> its block's index in aggs */
    grovep_winmap_t aggwin; /* (aggregate, window) -> span */
    int64_t *agg_sum;      /* [naggs * nlow] scratch of grovep_agg_add_job, kept 0 */
    uint32_t *agg_touch;   /* [naggs] scratch: aggregates touched by one batch */
    uint8_t *agg_seen;     /* [naggs] scratch, kept 0 */

    /* pool planners (aggregate.c): vertex -> planner, while it has records */
    grovep_dense_t planner_of; /* vertex -> index in planners */
    grove_planner_t **planners;
    grove_vid_t *planner_vid; /* the vertex of each planner */
    size_t nplanners, plcap;
    size_t nspare; /* emptied planners kept for reuse, after the live ones */
    /* ends of the records with a planner span, ascending and distinct, each
     * with how many records end then (aggregate.c): the instants at which
     * a reservation may start, without a walk over every vertex */
    grovep_endcount_t *rec_ends;
    size_t nrec_ends, rec_endcap;
    /* their starts, in the same way: with the ends, whether every record
     * that meets one window meets another (grovep_recs_same) */
    grovep_endcount_t *rec_starts;
    size_t nrec_starts, rec_startcap;

    int64_t now;     /* simulated current time */
    int64_t expiration; /* the horizon: no job's window ends past it; 0 none */
};

/* The children of every vertex in containment's tree (an edge of
 * containment down from v to a vertex whose tree parent is v), in the
 * order of v's out-edges: those of v are kids[off[v] .. off[v + 1]).
 * Walks of whole subtrees (a whole machine's million vertices) read them
 * in sequence where the edge lists would be a chase of links through the
 * edge array.  Made at the first call after the edges or the vertices
 * changed (the graph itself is not changed: a cache), in one pass over
 * the edges.  Borrowed (valid until the graph changes), or NULL with
 * ENOMEM: walk the edges then.  g->tk_all says whether they are all of
 * containment's downward edges.  *kind (when kind is not NULL): what each
 * vertex's children are (GROVEP_TK_LEAF, GROVEP_TK_INNER). */
const grove_vid_t *grovep_tree_kids(const grove_graph_t *g, const uint32_t **off,
                                    const uint8_t **kind);
/* *kind of grovep_tree_kids: of each vertex, whether one of its children
 * is a leaf (has none itself), whether one has children */
#define GROVEP_TK_LEAF 1u
#define GROVEP_TK_INNER 2u

/* Index of a subsystem symbol, or -1 if the graph has no such subsystem. */
int grovep_subsys_find(const grove_graph_t *g, grove_sym_t sym);

/* kv pool. */
uint32_t grovep_kv_new(grove_graph_t *g);
void grovep_kv_release(grove_graph_t *g, uint32_t i);
/* record pool. */
uint32_t grovep_rec_new(grove_graph_t *g);
void grovep_rec_release(grove_graph_t *g, uint32_t i);

/* The first property or tag of v (< g->nv) in g->kv, or GROVEP_NONE. */
static inline uint32_t grovep_kv_head(const grove_graph_t *g, grove_vid_t v)
{
    return g->kvh ? g->kvh[v] : GROVEP_NONE;
}

/* The first ALLOC record / SHARED annotation of v, or GROVEP_NONE. */
static inline uint32_t grovep_recs_head(const grove_graph_t *g, grove_vid_t v)
{
    uint32_t h = g->v[v].held;
    return h == GROVEP_NONE ? GROVEP_NONE : g->heads[h].recs;
}

static inline uint32_t grovep_shared_head(const grove_graph_t *g, grove_vid_t v)
{
    uint32_t h = g->v[v].held;
    return h == GROVEP_NONE ? GROVEP_NONE : g->heads[h].shared;
}

/* The head of v's list of ALLOC records (shared false) or of SHARED
 * annotations (true), to push onto or take from: v's slot of g->heads,
 * taken now if it has none.  Never fails while a record made by
 * grovep_rec_new is not in a list yet (there is room for a slot a live
 * record). */
uint32_t *grovep_head_ref(grove_graph_t *g, grove_vid_t v, bool shared);
/* Give v's slot back once both its lists are empty. */
void grovep_heads_tidy(grove_graph_t *g, grove_vid_t v);

/* grove_graph_add_vertex with the type, basename and unit given as symbols
 * g has (info's strings for them are not read; the caller interned them,
 * in that order, as grove_graph_add_vertex would): a reader that makes
 * many vertices from one template interns its strings once.  The same
 * errors. */
grove_vid_t grovep_add_vertex_sym(grove_graph_t *g, const grove_vertex_info_t *info,
                                  grove_sym_t type, grove_sym_t basename, grove_sym_t unit);

/* grove_graph_add_edge with the direction given: up_flag 1 upward, 0
 * downward, -1 decided by the relationship ("in" is upward). */
grove_eid_t grovep_add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                            const char *subsystem, const char *rel, int up_flag,
                            grove_error_t *err);

/* grovep_add_edge with the subsystem and relationship given as symbols g
 * has.  The same errors. */
grove_eid_t grovep_add_edge_sym(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                                grove_sym_t ssym, grove_sym_t rsym, int up_flag,
                                grove_error_t *err);

/* Drop every record held in the listed vertices (the containment subtree
 * of top, top included) and the annotations they put above top. */
void grovep_release_subtree(grove_graph_t *g, const grove_vid_t *vs, size_t n, grove_vid_t top);

/* Rebuild the record index from the lists (after copying records). */
int grovep_shared_reindex(grove_graph_t *g);
/* Free the record index. */
void grovep_rec_index_free(grove_graph_t *g);

/* Room for one more vertex on a stack of n of *cap that starts in the
 * caller's buffer buf and moves to the heap (twice the room) when full:
 * 0, or -1 (ENOMEM) with the stack unchanged.  The caller frees *stack
 * when it is not buf. */
int grovep_vstack_room(grove_vid_t **stack, size_t *cap, size_t n, grove_vid_t *buf);

/* Any record of any job on v overlapping [start, end)? */
bool grovep_touched_any(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end);

/* True if any of the listed vertices has a record. */
bool grovep_any_records(const grove_graph_t *g, const grove_vid_t *vs, size_t n);

/* Remove edge e and its opposite, if it has one, from their lists and
 * mark them dead: no edge is left without its opposite, so that nothing
 * is allocated. */
void grovep_edge_remove(grove_graph_t *g, grove_eid_t e);

/* Walk the containment subtree of v (walker.c), calling visit for every
 * vertex with units available now, with their number, and skipping the
 * subtree below a vertex with none.  What grove_graph_walk returns. */
typedef void (*grovep_avail_visit_f)(const grove_graph_t *g, grove_vid_t v, int64_t avail,
                                     void *arg);
int grovep_walk_available(const grove_graph_t *g, grove_vid_t v, grovep_avail_visit_f visit,
                          void *arg);
/* The same throughout [start, end) instead of now. */
int grovep_walk_available_during(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                 int64_t end, grovep_avail_visit_f visit, void *arg);
/* Free units by type below v throughout [start, end), walked (ancestors
 * not looked at), as cb(type, units, arg) in first-seen order; 0 or -1. */
int grovep_count_available(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                           void (*cb)(const char *type, int64_t count, void *arg),
                           void *arg);

/* Own availability of v during [start, end): size minus the peak of its own
 * records, 0 when not up or held exclusively; ancestors are not looked at. */
int64_t grovep_own_available(const grove_graph_t *g, grove_vid_t v, int64_t start,
                             int64_t end);


/* Mark v dead and drop it from the indexes (its edges must be gone). */
void grovep_vertex_kill(grove_graph_t *g, grove_vid_t v);

/* The bare graph (graph.c): made with no aggregates and no record index,
 * freed without looking at them, copied array by array with the derived
 * state of the floors above left empty.  graph_life.c adds those floors. */
grove_graph_t *grovep_graph_new(void);
void grovep_graph_free(grove_graph_t *g);
grove_graph_t *grovep_graph_copy(const grove_graph_t *g);

/* ---- graph_life.c ---- */

/* Deep copy of every array, aggregates and pool planners rebuilt from the
 * records (grove_graph_duplicate). */
grove_graph_t *grovep_graph_clone(const grove_graph_t *g);


/* ---- aggregate.c ---- */

/* Set up the default aggregates of a new graph.  0 or -1 (ENOMEM). */
int grovep_agg_init(grove_graph_t *g);
/* Free aggregates and pool planners. */
void grovep_agg_fini(grove_graph_t *g);
/* Rebuild totals and spans when the structure changed.  0 or -1. */
int grovep_agg_refresh(grove_graph_t *g);
/* Rebuild the spans and busy tallies alone from the records, the
 * structure kept (a refresh when it is dirty): after many records went
 * while agg_dirty was set to skip their upkeep (grove_matcher_cancel_many).
 * 0, or -1 (ENOMEM: left dirty, rebuilt whole at the next use). */
int grovep_agg_respan(grove_graph_t *g);
/* Keep planners and aggregates in step with record r of v, which was just
 * added (or grew), or is about to be removed (or shrink).  0 or -1; added
 * undoes itself on failure. */
int grovep_rec_added(grove_graph_t *g, grove_vid_t v, uint32_t r);
void grovep_rec_removing(grove_graph_t *g, grove_vid_t v, uint32_t r);
/* Resize the pool planner of v (if any).  0 or -1 (EBUSY). */
int grovep_pool_resize(grove_graph_t *g, grove_vid_t v, int64_t size);
/* Pool planners rebuilt from the records (after copying records).  0/-1. */
int grovep_planners_rebuild(grove_graph_t *g);
/* Count ALLOC record ri of v in the pool's use over time (its planner,
 * made at the second record, or the record alone): add (0 or -1, nothing
 * changed) / remove. */
int grovep_pool_add(grove_graph_t *g, grove_vid_t v, uint32_t ri);
void grovep_pool_remove(grove_graph_t *g, grove_vid_t v, uint32_t ri);
/* An exclusive ALLOC record of any job on v overlapping [start, end)? */
bool grovep_excl_any(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end);
/* An ALLOC record on v held exclusively during [start, end) by a job other
 * than `except` (any job with any_job): the record's index or GROVEP_NONE. */
uint32_t grovep_excl_record(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end,
                            bool any_job, grove_jobid_t except);
/* The position in g->rec_ends of the first instant after t. */
size_t grovep_rec_ends_after(const grove_graph_t *g, int64_t t);

/* Does every record with a planner span that meets [s1, e1) meet [s2, e2)
 * too, and the other way round?  True when no such record ends after the
 * earlier start and at or before the later one, and none starts at or
 * after the earlier end and before the later one; the use of every pool
 * over the two windows then has the same peak (what starts inside one
 * window and not the other is running at the other's edge). */
bool grovep_recs_same(const grove_graph_t *g, int64_t s1, int64_t e1, int64_t s2, int64_t e2);
/* Aggregates for n new records of one job and window (vs[k] holds
 * recs[k]), one update per aggregate above them.  0 or -1 (then marked
 * dirty and rebuilt at the next use). */
int grovep_agg_add_job(grove_graph_t *g, const grove_vid_t *vs, const uint32_t *recs, size_t n);
/* Before dropping n records of one job and window (vs[k] holds recs[k],
 * GROVEP_NONE skipped): take what they count out of the aggregates above
 * them, one update per aggregate. */
void grovep_agg_drop_job(grove_graph_t *g, const grove_vid_t *vs, const uint32_t *recs,
                         size_t n);
/* Record a whole selection for a job over [start, end) without checking
 * availability (the matcher just did, on the same state): picks k with
 * take[k] get an ALLOC record of amount[k] (exclusive when excl[k]).  All or
 * nothing: 0, or -1 with nothing recorded. */
int grovep_job_record(grove_graph_t *g, grove_jobid_t job, int64_t start, int64_t end,
                      const grove_vid_t *vs, const int64_t *amount, const bool *excl, size_t n);
/* Drop the job's ALLOC records on vs[] for [start, end) (and the
 * annotations they made), as one batch. */
void grovep_job_release(grove_graph_t *g, grove_jobid_t job, int64_t start, int64_t end,
                        const grove_vid_t *vs, size_t n);
/* Peak units held on v during [start, end): from its pool planner, or
 * from its one record when it has none (a pool held by one record at a
 * time keeps no planner); 0 with no record.  Never fails; the int64_t
 * return is the planner's. */
int64_t grovep_pool_peak(const grove_graph_t *g, grove_vid_t v, int64_t start, int64_t end);
/* The aggregate of v, or NULL. */
const grovep_agg_t *grovep_agg_of(const grove_graph_t *g, grove_vid_t v);
/* The aggregate of the block of its parent's children v lies in, or NULL
 * (its parent is not wide, see grove_graph's blk_of). */
const grovep_agg_t *grovep_blk_of(const grove_graph_t *g, grove_vid_t v);
/* aggregate.c: record ri (listed on v or not) comes (sign 1) or goes (-1):
 * the nodes in use over time above v follow (nothing while the aggregates
 * are dirty: their rebuild counts them).  Never fails: on ENOMEM the
 * aggregates are marked dirty. */
void grovep_busy_change(grove_graph_t *g, grove_vid_t v, uint32_t ri, int sign);
/* From grovep_busy_begin to its grovep_busy_end, what grovep_busy_change
 * does to the tallies is summed by aggregate and time and put in at the
 * end, once for each (nested: at the outermost end).  Nothing between
 * them may ask the tallies (grovep_agg_idle and its kin): a job's records
 * made or taken out, no search.  Never fails: on ENOMEM the aggregates
 * are marked dirty. */
void grovep_busy_begin(grove_graph_t *g);
void grovep_busy_end(grove_graph_t *g);
/* The nodes in use over time from every record, into the aggregates just
 * rebuilt.  0, or -1 (ENOMEM). */
int grovep_busy_build(grove_graph_t *g);
/* At most how many nodes below a are wholly idle during [start, end)
 * (no record of any job on them or below): INT64_MAX when a does not
 * count them. */
int64_t grovep_agg_idle(const grove_graph_t *g, const grovep_agg_t *a, int64_t start,
                        int64_t end);
/* The earliest t >= t0 at which grovep_agg_idle over [t, t + d) may reach
 * need: t0 when nothing is counted, -1 when never. */
int64_t grovep_agg_idle_from(const grove_graph_t *g, const grovep_agg_t *a, int64_t need,
                             int64_t d, int64_t t0);
/* May the blocks of w's children (a wide vertex) hold need nodes wholly
 * idle during [start, end)?  Their bounds summed (each block's nodes less
 * the most of them in use during the window): never more than the bound
 * of w's own aggregate, which is asked first, and far less when the nodes
 * are in use at different times of a long window.  True when w has no
 * blocks or nothing is counted. */
bool grovep_blk_idle_enough(const grove_graph_t *g, grove_vid_t w, int64_t need, int64_t start,
                            int64_t end);
void grovep_busy_free(grovep_agg_t *a);
/* Free units of each low type during [start, end) below v (out[nlow]);
 * false when v keeps no aggregate. */
bool grovep_agg_avail(const grove_graph_t *g, const grovep_agg_t *a, int64_t start,
                      int64_t end, int64_t *out);
/* Can the subtree of a's vertex hold need[] (per low type; untracked types
 * ignored) throughout [start, end)?  unheld: the caller found the vertex
 * not held whole in the window (grovep_excl_any), not asked again. */
bool grovep_agg_fits(const grove_graph_t *g, const grovep_agg_t *a, int64_t start, int64_t end,
                     const int64_t *need, bool unheld);
/* The earliest t >= t0 at which grovep_agg_fits over [t, t + d) may hold
 * need: one query of a's multi-planner (grove_mplanner_earliest), so that
 * a search for a later start jumps over every instant before it rather
 * than asking each.  t0 when a keeps no planner or cannot tell (d <= 0, a
 * window past the planners' horizon); -1 when never within it. */
int64_t grovep_agg_fits_from(const grove_graph_t *g, const grovep_agg_t *a, const int64_t *need,
                             int64_t d, int64_t t0);
/* Map functions shared with aggregate.c. */
grovep_chain_t *grovep_map_get(const grovep_map_t *m, uint64_t key);
grovep_chain_t *grovep_map_put(grovep_map_t *m, uint64_t key);
void grovep_map_del(grovep_map_t *m, uint64_t key);
void grovep_map_free(grovep_map_t *m);

/* The id of vertex v (< g->nv), past 31 bits or not. */
int64_t grovep_big_id(const grove_graph_t *g, grove_vid_t v);
static inline int64_t grovep_vertex_id(const grove_graph_t *g, grove_vid_t v)
{
    int32_t id = g->v[v].id;
    return id != GROVEP_ID_BIG ? id : grovep_big_id(g, v);
}

/* The size of vertex v (< g->nv), past 31 bits or not. */
int64_t grovep_big_size(const grove_graph_t *g, grove_vid_t v);
static inline int64_t grovep_vertex_size(const grove_graph_t *g, grove_vid_t v)
{
    int32_t size = g->v[v].size;
    return size != GROVEP_SIZE_BIG ? size : grovep_big_size(g, v);
}

/* Set the size of vertex v (< g->nv) to size >= 0: 0 or -1 (ENOMEM), the
 * size unchanged. */
int grovep_vertex_size_set(grove_graph_t *g, grove_vid_t v, int64_t size);

/* Aggregate a's (in g->aggs) units of each low type in its subtree, and
 * what is free of them in its cached window: g->nlow each. */
static inline int64_t *grovep_agg_total(const grove_graph_t *g, const grovep_agg_t *a)
{
    return g->aggv + a->at;
}

static inline int64_t *grovep_agg_cache(const grove_graph_t *g, const grovep_agg_t *a)
{
    return grovep_agg_total(g, a) + g->nlow;
}

/* The opposite of edge e (< g->ne), or GROVEP_NONE. */
grove_eid_t grovep_far_opposite(const grove_graph_t *g, grove_eid_t e);
static inline grove_eid_t grovep_edge_opposite(const grove_graph_t *g, grove_eid_t e)
{
    int8_t d = g->e[e].opp;
    return d == 0                ? GROVEP_NONE
           : d != GROVEP_OPP_FAR ? (grove_eid_t)((int64_t)e + d)
                                 : grovep_far_opposite(g, e);
}

/* The source of edge e (< g->ne). */
static inline grove_vid_t grovep_edge_src(const grove_graph_t *g, grove_eid_t e)
{
    const grovep_edge_t *x = &g->e[e];
    if (x->opp != 0)
        return g->e[grovep_edge_opposite(g, e)].dst;
    if (x->flags & GROVEP_E_DEAD)
        return x->next_out;
    return e == g->pend ? g->pend_src : g->uin_src[e];
}

/* The first edge with no opposite into v (< g->nv), or GROVEP_NONE. */
static inline grove_eid_t grovep_uin_head(const grove_graph_t *g, grove_vid_t v)
{
    grove_eid_t h = v < g->uin_nv ? g->uin_first[v] : GROVEP_NONE;
    if (h == GROVEP_NONE && g->pend != GROVEP_NONE && g->e[g->pend].dst == v)
        h = g->pend;
    return h;
}

/* The first edge into v (< g->nv) from the out-list of v on from edge x
 * (GROVEP_NONE: none there): the opposite of the first there that has
 * one, else the first with no opposite. */
static inline grove_eid_t grovep_in_from(const grove_graph_t *g, grove_vid_t v, grove_eid_t x)
{
    for (; x != GROVEP_NONE; x = g->e[x].next_out)
        if (g->e[x].opp != 0)
            return grovep_edge_opposite(g, x);
    return grovep_uin_head(g, v);
}

/* The first in-edge of v (< g->nv), or GROVEP_NONE: the in-edges with an
 * opposite come first, in the order of their opposites in v's out-list,
 * then those with none. */
static inline grove_eid_t grovep_in_first(const grove_graph_t *g, grove_vid_t v)
{
    return grovep_in_from(g, v, g->first_out[v]);
}

/* The in-edge of the same destination after live edge x, or GROVEP_NONE. */
static inline grove_eid_t grovep_in_next(const grove_graph_t *g, grove_eid_t x)
{
    grove_vid_t v = g->e[x].dst;
    if (g->e[x].opp != 0)
        return grovep_in_from(g, v, g->e[grovep_edge_opposite(g, x)].next_out);
    if (x == g->pend)
        return GROVEP_NONE;
    grove_eid_t n = g->uin_next[x];
    if (n == GROVEP_NONE && g->pend != GROVEP_NONE && g->e[g->pend].dst == v)
        n = g->pend;
    return n;
}

/* The name of vertex v (< g->nv): its own, or its default one (basename
 * + id; the basename when it has no id), which g->idnames holds for every
 * vertex not flagged GROVEP_V_NAMED. */
static inline grove_sym_t grovep_vertex_name(const grove_graph_t *g, grove_vid_t v)
{
    const grovep_vertex_t *x = &g->v[v];
    if (x->flags & GROVEP_V_NAMED)
        return g->names[v];
    return x->id < 0 ? x->basename : g->idnames[x->basename].at[x->id];
}

/* The name vertex v (< g->nv) has in paths: its path name when it has
 * one (GROVEP_V_PATHNAMED), else its name. */
static inline grove_sym_t grovep_vertex_pathname(const grove_graph_t *g, grove_vid_t v)
{
    if (g->v[v].flags & GROVEP_V_PATHNAMED)
        return g->pnames[v];
    return grovep_vertex_name(g, v);
}

/* Make s the name vertex v (< g->nv) has in paths (its name again when s
 * is its name or GROVE_SYM_NONE): 0, or -1 (ENOMEM) with it unchanged.
 * The caller keeps paths unique among siblings. */
int grovep_vertex_pathname_set(grove_graph_t *g, grove_vid_t v, grove_sym_t s);

/* Make s the name of vertex v (< g->nv; its chains are the caller's): 0,
 * or -1 (ENOMEM) with the name unchanged. */
int grovep_vertex_name_set(grove_graph_t *g, grove_vid_t v, grove_sym_t s);

/* The unit of measure of vertex v (< g->nv). */
static inline grove_sym_t grovep_vertex_unit(const grove_graph_t *g, grove_vid_t v)
{
    return g->units[g->v[v].unit];
}

static inline bool grovep_alive(const grove_graph_t *g, grove_vid_t v)
{
    return v < g->nv && !(g->v[v].flags & GROVEP_V_DEAD);
}

/* In a function of the vertex API: unless v is a live vertex of g, set
 * errno EINVAL and return ret. */
#define GROVEP_VCHECK(g, v, ret)                                                \
    do {                                                                        \
        if (!grovep_alive(g, v)) {                                              \
            errno = EINVAL;                                                     \
            return ret;                                                         \
        }                                                                       \
    } while (0)

/* The vertices of g's change ring (struct grove_graph, chg_ring). */
#define GROVEP_CHG_RING 4096

/* The records of v came, went or changed: one more change in the ring. */
static inline void grovep_chg_vertex(grove_graph_t *g, grove_vid_t v)
{
    if (g->chg_ring)
        g->chg_ring[g->chg_head & (GROVEP_CHG_RING - 1)] = v;
    g->chg_head++;
}

#endif
