/* jgf.c: the JSON Graph Format reader (see jgf.h for the format); the
 * writer is in jgf_write.c.
 *
 * Workload: from a handful of vertices (an allocation's scheduling graph in
 * an R document) to a whole machine of about a million vertices and two
 * million edges, i.e. hundreds of megabytes of text, which must load in a
 * few seconds.  A generic JSON tree of that size costs several gigabytes and
 * most of the time, so text is read by the streaming JSON reader (json.c)
 * that builds the graph as it goes and keeps only what it must check at the
 * end (the file's node ids, its paths, and the allocation records and
 * statuses to apply once the tree is complete).  An already parsed jansson
 * value (an R document) goes through the same code: every value is reached
 * through the reader's accessors (grovep_json_string, grovep_json_object,
 * ...), which work either on the text cursor or on a json_t.
 *
 * Failure leaves nothing behind: the graph being built is destroyed.
 *
 * This file knows what JGF keys mean; it must not hold JSON syntax (that
 * is json.c's) nor writing.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "error_private.h"
#include "limit.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"
#include "json_private.h"
#include "util.h"

#define NOOFF SIZE_MAX /* string absent */

/* Room for one more element of a growable array (*n used of *cap): a
 * pointer to it, counted in *n; NULL with ENOMEM. */
static void *vec_push(void **p, size_t *n, size_t *cap, size_t elem)
{
    if (grovep_grow(p, cap, *n + 1, elem) < 0)
        return NULL;
    return (char *)*p + (*n)++ * elem;
}

#define VPUSH(arr, n, cap) vec_push((void **)&(arr), &(n), &(cap), sizeof(*(arr)))

/* Node metadata keys we know. */
enum {
    K_TYPE, K_BASENAME, K_NAME, K_UNIT, K_UUID, /* strings: keep first */
    K_ID, K_RANK, K_SIZE, K_UNIQ, K_EXCL, K_STATUS, K_PROPS, K_PATHS, K_GROVE, K_COUNT
};
#define K_NSTR 5
static const char *const meta_names[K_COUNT] = {
    "type", "basename", "name", "unit", "uuid", "id", "rank",
    "size", "uniq_id", "exclusive", "status", "properties", "paths", "grove",
};

/* A key/value pair collected from a node (offsets into the scratch). */
typedef struct kref {
    size_t k, kl; /* key */
    size_t v, vl; /* value; v == NOOFF: no value (null / name-only) */
    size_t pos;
} kref_t;

/* An allocation record to restore once the tree is complete. */
typedef struct drec {
    grove_vid_t v;
    size_t node, idx; /* nodes[node].metadata.grove.records[idx] */
    size_t pos;
    int64_t job, amount, start, end;
    bool asked;
} drec_t;

/* A path given by the file, checked once the edges are in.  To keep a
 * million of them cheap, a path without escapes in the text is not copied:
 * it is read again from the text at pos + 1 up to the closing quote. */
typedef struct fpath {
    grove_sym_t sub;
    uint32_t next; /* next path of the same vertex, or GROVEP_NONE */
    size_t pos;    /* of the string in the text, or GROVEP_JSON_NOPOS */
    size_t off;    /* NUL-terminated copy in r->parena, or NOOFF: in the text */
} fpath_t;

/* One node being read. */
typedef struct nrec {
    size_t idx, pos, meta_pos;
    bool has_fid, has_meta;
    size_t fid, fidl, fid_pos;
    size_t soff[K_NSTR], slen[K_NSTR];
    int64_t id, rank, size;
    int64_t uniq;    /* metadata.uniq_id, -1 when absent */
    int status_kind; /* 0 none, GROVEP_J_INT or GROVEP_J_STRING */
    int64_t status_int;
    size_t status_off;
    unsigned seen;         /* bit per K_* */
    size_t kpos[K_COUNT];  /* position of each key's value */
    unsigned gseen;        /* grove: 1 tags, 2 records */
} nrec_t;

/* One edge being read. */
typedef struct erec {
    size_t idx, pos;
    size_t src, srcl, dst, dstl; /* NOOFF when absent */
    size_t sub, subl, rel, rell; /* NOOFF when absent */
    size_t rel2, rel2l;          /* the edge's JGF "relation", NOOFF when absent */
    size_t src_pos, dst_pos;
    unsigned seen;
} erec_t;

/* The state of one read.  js comes first: the JSON callbacks get &r->js
 * and find the reader again with reader_of(). */
typedef struct reader {
    grovep_json_t js; /* the cursor; js.sc holds the strings of the current
                         node or edge (cut back after each) */
    grove_graph_t *g;

    /* file node ids: fids holds them NUL-terminated, fid[] locates them.  Ids
     * that are small canonical integers ("0", "17") go in num instead. */
    uint32_t *num; /* [numcap] vid + 1, 0 none */
    size_t numcap;
    grovep_buf_t fids;
    struct {
        size_t off;      /* of the i-th hashed id in fids */
        uint32_t hash;   /* its hash */
        grove_vid_t vid; /* its vertex */
    } *fid;              /* [nfid] */
    size_t nfid, fidcap;
    uint32_t *slots; /* vid + 1, 0 empty */
    size_t nslots;

    /* current node's collections */
    kref_t *props, *tags, *cpaths;
    size_t nprops, propcap, ntags, tagcap, ncpaths, cpathcap;

    /* deferred */
    drec_t *recs;
    size_t nrecs, reccap;
    fpath_t *paths;
    size_t npaths, pathcap;
    uint32_t *vpath; /* [vid] first path, GROVEP_NONE */
    size_t vpathcap;
    grove_sym_t *pname; /* [vid] the name the file's paths give a vertex
                         * named by default (basename + id) when that
                         * differs, else GROVE_SYM_NONE */
    size_t pnamecap;
    grovep_buf_t parena;
    struct {
        grove_vid_t v;
        uint8_t status;
    } *stats;
    size_t nstats, statcap;

    /* containment trees as a union-find forest (by vid): up[v] leads to
     * the root of v's tree, so "would this edge close a cycle?" costs
     * near O(1) instead of a walk up a chain that may be 100,000 deep */
    grove_vid_t *up;
    size_t upcap;
    grove_limits_t lim; /* read once per document */

    size_t nnodes, nedges;
    bool have_nodes, have_graph, have_now, have_exp;
    int64_t now, exp;
} reader_t;

/* Check an accessor's result: on 0 report the type error at the place. */
#define WANT(call, what, ...)                                                   \
    do {                                                                        \
        int rc_ = (call);                                                       \
        if (rc_ < 0)                                                            \
            return -1;                                                          \
        if (rc_ == 0)                                                           \
            return grovep_json_type_fail(js, v, what, __VA_ARGS__);             \
    } while (0)

#define KEYIS(k, l, lit) ((l) == sizeof(lit) - 1 && !memcmp((k), lit, sizeof(lit) - 1))

static reader_t *reader_of(grovep_json_t *js)
{
    return (reader_t *)(void *)js;
}

/* The string at offset off of the strings read. */
static const char *S(const reader_t *r, size_t off)
{
    return r->js.sc.p + off;
}

/* ---- file node ids -------------------------------------------------------- */

static uint32_t hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

/* The value of a canonical decimal id of at most 9 digits, or -1. */
static long canon_num(const char *s, size_t n)
{
    if (n == 0 || n > 9 || (s[0] == '0' && n > 1))
        return -1;
    long k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        k = k * 10 + (s[i] - '0');
    }
    return k;
}

/* The hashed vertex whose file id is s, or GROVE_VID_NONE; *slot gets the
 * free slot where it would go. */
static grove_vid_t fid_hfind(const reader_t *r, const char *s, size_t n, uint32_t h,
                             size_t *slot)
{
    if (!r->nslots)
        return GROVE_VID_NONE;
    size_t mask = r->nslots - 1, j = h & mask;
    while (r->slots[j]) {
        size_t i = r->slots[j] - 1;
        const char *t = r->fids.p + r->fid[i].off;
        if (r->fid[i].hash == h && !memcmp(t, s, n) && t[n] == '\0')
            return r->fid[i].vid;
        j = (j + 1) & mask;
    }
    if (slot)
        *slot = j;
    return GROVE_VID_NONE;
}

/* The vertex whose file id is s (n bytes), or GROVE_VID_NONE. */
static grove_vid_t fid_find(const reader_t *r, const char *s, size_t n)
{
    long k = canon_num(s, n);
    if (k >= 0 && (size_t)k < r->numcap && r->num[k])
        return r->num[k] - 1;
    return fid_hfind(r, s, n, hash_str(s, n), NULL);
}

static int fid_grow(reader_t *r)
{
    size_t n = r->nslots ? r->nslots * 2 : 1024;
    return grovep_slots_rebuild(&r->slots, &r->nslots, n, r->nfid ? &r->fid[0].hash : NULL,
                                r->nfid, sizeof(*r->fid));
}

/* Record s as the file id of vertex v (not yet known). */
static int fid_add(reader_t *r, const char *s, size_t n, grove_vid_t v)
{
    long k = canon_num(s, n);
    if (k >= 0 && (size_t)k >= r->numcap && (size_t)k < 4 * ((size_t)v + 1) + 65536) {
        size_t old = r->numcap;
        if (grovep_grow((void **)&r->num, &r->numcap, (size_t)k + 1, sizeof(*r->num)) < 0)
            return -1;
        memset(r->num + old, 0, (r->numcap - old) * sizeof(*r->num));
    }
    if (k >= 0 && (size_t)k < r->numcap) {
        r->num[k] = v + 1;
        return 0;
    }
    uint32_t h = hash_str(s, n);
    if ((r->nfid + 1) * 2 > r->nslots && fid_grow(r) < 0)
        return -1;
    if (grovep_grow((void **)&r->fid, &r->fidcap, r->nfid + 1, sizeof(*r->fid)) < 0)
        return -1;
    size_t off = grovep_buf_putz(&r->fids, s, n);
    if (off == (size_t)-1)
        return -1;
    size_t slot;
    fid_hfind(r, s, n, h, &slot);
    r->fid[r->nfid].off = off;
    r->fid[r->nfid].hash = h;
    r->fid[r->nfid].vid = v;
    r->slots[slot] = (uint32_t)r->nfid + 1;
    r->nfid++;
    return 0;
}

/* The file id of v (for messages: a linear search) into buf. */
static const char *fid_of(const reader_t *r, grove_vid_t v, char *buf, size_t len)
{
    for (size_t k = 0; k < r->numcap; k++)
        if (r->num[k] == v + 1) {
            snprintf(buf, len, "%zu", k);
            return buf;
        }
    for (size_t i = 0; i < r->nfid; i++)
        if (r->fid[i].vid == v)
            return r->fids.p + r->fid[i].off;
    return "?";
}

/* ---- nodes ----------------------------------------------------------------- */

static int push_kref(reader_t *r, kref_t **arr, size_t *n, size_t *cap, kref_t k)
{
    kref_t *p = vec_push((void **)arr, n, cap, sizeof(**arr));
    if (!p)
        return grovep_json_sysfail(&r->js, "reading a node");
    *p = k;
    return 0;
}

typedef struct kvctx {
    nrec_t *n;
    int which; /* K_PROPS, K_PATHS, or -1 for tags */
} kvctx_t;

static int kv_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v, void *arg)
{
    reader_t *r = reader_of(js);
    kvctx_t *c = arg;
    size_t ko = grovep_buf_putz(&r->js.sc, k, kl); /* keep the key */
    if (ko == (size_t)-1)
        return grovep_json_sysfail(js, "reading a node");
    size_t pos = grovep_json_pos(js);
    kref_t kr = {.k = ko, .kl = kl, .v = NOOFF, .vl = 0, .pos = pos};
    if (c->which == K_PROPS) {
        WANT(grovep_json_string(js, v, &kr.v, &kr.vl), "a string",
             "nodes[%zu].metadata.properties.%s", c->n->idx, S(r, ko));
        return push_kref(r, &r->props, &r->nprops, &r->propcap, kr);
    }
    if (c->which == K_PATHS) {
        WANT(grovep_json_string(js, v, &kr.v, &kr.vl), "a string", "nodes[%zu].metadata.paths.%s",
             c->n->idx, S(r, ko));
        return push_kref(r, &r->cpaths, &r->ncpaths, &r->cpathcap, kr);
    }
    int rc = grovep_json_null(js, v);
    if (rc == 0)
        WANT(grovep_json_string(js, v, &kr.v, &kr.vl), "a string or null",
             "nodes[%zu].metadata.grove.tags.%s", c->n->idx, S(r, ko));
    return push_kref(r, &r->tags, &r->ntags, &r->tagcap, kr);
}

static int prop_elem(grovep_json_t *js, size_t i, const grovep_jval_t *v, void *arg)
{
    reader_t *r = reader_of(js);
    nrec_t *n = arg;
    kref_t k = {.v = NOOFF, .pos = grovep_json_pos(js)};
    WANT(grovep_json_string(js, v, &k.k, &k.kl), "a string", "nodes[%zu].metadata.properties[%zu]",
         n->idx, i);
    return push_kref(r, &r->props, &r->nprops, &r->propcap, k);
}

typedef struct recctx {
    nrec_t *n;
    size_t idx;
    drec_t d;
    unsigned seen;
} recctx_t;

static int rec_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                      void *arg)
{
    recctx_t *c = arg;
    int64_t *dst = NULL;
    unsigned bit = 0;
    if (KEYIS(k, kl, "job"))
        dst = &c->d.job, bit = 1;
    else if (KEYIS(k, kl, "amount"))
        dst = &c->d.amount, bit = 2;
    else if (KEYIS(k, kl, "start"))
        dst = &c->d.start, bit = 4;
    else if (KEYIS(k, kl, "end"))
        dst = &c->d.end, bit = 8;
    else if (KEYIS(k, kl, "exclusive")) {
        WANT(grovep_json_bool(js, v, &c->d.asked), "a boolean",
             "nodes[%zu].metadata.grove.records[%zu].exclusive", c->n->idx, c->idx);
        return 0;
    } else
        return 0;
    WANT(grovep_json_int(js, v, dst), "an integer", "nodes[%zu].metadata.grove.records[%zu].%.*s",
         c->n->idx, c->idx, (int)kl, k);
    c->seen |= bit;
    return 0;
}

static int rec_elem(grovep_json_t *js, size_t i, const grovep_jval_t *v, void *arg)
{
    reader_t *r = reader_of(js);
    nrec_t *n = arg;
    recctx_t c = {.n = n, .idx = i};
    c.d.end = GROVE_TIME_MAX;
    c.d.pos = grovep_json_pos(js);
    c.d.node = n->idx;
    c.d.idx = i;
    WANT(grovep_json_object(js, v, rec_member, &c), "an object",
         "nodes[%zu].metadata.grove.records[%zu]", n->idx, i);
    static const char *const need[] = {"job", "amount", "start"};
    for (int b = 0; b < 3; b++)
        if (!(c.seen & (1u << b)))
            return grovep_json_fail(js, c.d.pos,
                                    "nodes[%zu].metadata.grove.records[%zu]: missing \"%s\"",
                                    n->idx, i, need[b]);
    if (c.d.job < 0)
        return grovep_json_fail(
            js, c.d.pos, "nodes[%zu].metadata.grove.records[%zu].job: negative job id", n->idx, i);
    if (!grove_time_ok(c.d.start) || c.d.end <= c.d.start)
        return grovep_json_fail(js, c.d.pos,
                                "nodes[%zu].metadata.grove.records[%zu]: the window [%lld, %lld) "
                                "is not one within [0, forever)",
                                n->idx, i, (long long)c.d.start, (long long)c.d.end);
    drec_t *d = VPUSH(r->recs, r->nrecs, r->reccap);
    if (!d)
        return grovep_json_sysfail(js, "reading records");
    c.d.v = (grove_vid_t)n->idx;
    *d = c.d;
    return 0;
}

static int grove_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                        void *arg)
{
    nrec_t *n = arg;
    if (KEYIS(k, kl, "tags")) {
        kvctx_t c = {n, -1};
        WANT(grovep_json_object(js, v, kv_member, &c), "an object",
             "nodes[%zu].metadata.grove.tags", n->idx);
    } else if (KEYIS(k, kl, "records")) {
        WANT(grovep_json_array(js, v, rec_elem, n), "an array", "nodes[%zu].metadata.grove.records",
             n->idx);
    }
    return 0;
}

/* The K_* of a metadata key, or -1: a candidate by length and first
 * letters, then one comparison. */
static int meta_key(const char *k, size_t kl)
{
    int i = -1;
    switch (kl) {
    case 2: i = K_ID; break;
    case 4:
        switch (k[0]) {
        case 't': i = K_TYPE; break;
        case 'n': i = K_NAME; break;
        case 'r': i = K_RANK; break;
        case 's': i = K_SIZE; break;
        case 'u': i = k[1] == 'u' ? K_UUID : K_UNIT; break;
        default: break;
        }
        break;
    case 5: i = k[0] == 'p' ? K_PATHS : K_GROVE; break;
    case 6: i = K_STATUS; break;
    case 7: i = K_UNIQ; break;
    case 8: i = K_BASENAME; break;
    case 9: i = K_EXCL; break;
    case 10: i = K_PROPS; break;
    default: break;
    }
    return i >= 0 && !memcmp(meta_names[i], k, kl) ? i : -1;
}

static int meta_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                       void *arg)
{
    nrec_t *n = arg;
    int key = meta_key(k, kl);
    if (key < 0)
        return 0;
    size_t pos = grovep_json_pos(js);
    const char *name = meta_names[key];
    if (n->seen & (1u << key))
        return grovep_json_fail(js, pos, "nodes[%zu].metadata: duplicate key \"%s\"", n->idx, name);
    n->seen |= 1u << key;
    n->kpos[key] = pos;
    switch (key) {
    case K_TYPE:
    case K_BASENAME:
    case K_NAME:
    case K_UNIT:
    case K_UUID:
        WANT(grovep_json_string(js, v, &n->soff[key], &n->slen[key]), "a string",
             "nodes[%zu].metadata.%s", n->idx, name);
        break;
    case K_ID:
    case K_RANK:
    case K_SIZE:
    case K_UNIQ: {
        int64_t x;
        WANT(grovep_json_int(js, v, &x), "an integer", "nodes[%zu].metadata.%s", n->idx, name);
        if (key == K_ID)
            n->id = x;
        else if (key == K_RANK)
            n->rank = x;
        else if (key == K_SIZE)
            n->size = x;
        else
            n->uniq = x;
        break;
    }
    case K_EXCL: {
        bool b;
        WANT(grovep_json_bool(js, v, &b), "a boolean", "nodes[%zu].metadata.exclusive", n->idx);
        break;
    }
    case K_STATUS: {
        size_t l;
        int rc = grovep_json_int(js, v, &n->status_int);
        if (rc < 0)
            return -1;
        if (rc) {
            n->status_kind = GROVEP_J_INT;
            break;
        }
        WANT(grovep_json_string(js, v, &n->status_off, &l), "an integer or a string",
             "nodes[%zu].metadata.status", n->idx);
        n->status_kind = GROVEP_J_STRING;
        break;
    }
    case K_PROPS: {
        kvctx_t c = {n, K_PROPS};
        int rc = grovep_json_object(js, v, kv_member, &c);
        if (rc < 0)
            return -1;
        if (rc == 0)
            WANT(grovep_json_array(js, v, prop_elem, n), "an object or an array",
                 "nodes[%zu].metadata.properties", n->idx);
        break;
    }
    case K_PATHS: {
        kvctx_t c = {n, K_PATHS};
        WANT(grovep_json_object(js, v, kv_member, &c), "an object", "nodes[%zu].metadata.paths",
             n->idx);
        break;
    }
    case K_GROVE:
        WANT(grovep_json_object(js, v, grove_member, n), "an object", "nodes[%zu].metadata.grove",
             n->idx);
        break;
    }
    return 0;
}

static int node_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                       void *arg)
{
    nrec_t *n = arg;
    if (KEYIS(k, kl, "id")) {
        if (n->has_fid)
            return grovep_json_fail(js, grovep_json_pos(js), "nodes[%zu]: duplicate key \"id\"",
                                    n->idx);
        n->fid_pos = grovep_json_pos(js);
        WANT(grovep_json_string(js, v, &n->fid, &n->fidl), "a string", "nodes[%zu].id", n->idx);
        n->has_fid = true;
    } else if (KEYIS(k, kl, "metadata")) {
        if (n->has_meta)
            return grovep_json_fail(js, grovep_json_pos(js),
                                    "nodes[%zu]: duplicate key \"metadata\"", n->idx);
        n->meta_pos = grovep_json_pos(js);
        WANT(grovep_json_object(js, v, meta_member, n), "an object", "nodes[%zu].metadata", n->idx);
        n->has_meta = true;
    }
    return 0;
}

/* The last component of a path, or NULL/0 when it has none. */
static const char *last_component(const char *p, size_t n, size_t *len)
{
    const char *s = memrchr(p, '/', n);
    s = s ? s + 1 : p;
    *len = (size_t)(p + n - s);
    return *len ? s : NULL;
}

/* Check what node n gives before anything is built; its status in
 * *status. */
static int check_node(reader_t *r, const nrec_t *n, int *status)
{
    grovep_json_t *js = &r->js;
    size_t i = n->idx;
    if (!n->has_fid)
        return grovep_json_fail(js, n->pos, "nodes[%zu]: missing \"id\"", i);
    if (!n->has_meta)
        return grovep_json_fail(js, n->pos, "nodes[%zu]: missing \"metadata\"", i);
    if (n->soff[K_TYPE] == NOOFF)
        return grovep_json_fail(js, n->meta_pos, "nodes[%zu].metadata: missing \"type\"", i);
    if (n->slen[K_TYPE] == 0)
        return grovep_json_fail(js, n->kpos[K_TYPE], "nodes[%zu].metadata.type: empty type", i);
    for (int k = K_BASENAME; k <= K_NAME; k++) /* they make up paths */
        if (n->soff[k] != NOOFF && memchr(S(r, n->soff[k]), '/', n->slen[k]))
            return grovep_json_fail(js, n->kpos[k], "nodes[%zu].metadata.%s: \"%s\" contains '/'",
                                    i, meta_names[k], S(r, n->soff[k]));
    if (n->size < 0)
        return grovep_json_fail(js, n->kpos[K_SIZE], "nodes[%zu].metadata.size: negative size %lld",
                                i, (long long)n->size);
    if ((uint64_t)n->size > r->lim.size) {
        grovep_json_fail(js, n->kpos[K_SIZE],
                         "nodes[%zu].metadata.size: %lld is larger than the pool size limit %llu "
                         "(GROVE_MAX_SIZE)",
                         i, (long long)n->size, (unsigned long long)r->lim.size);
        errno = EOVERFLOW;
        return -1;
    }
    if (n->id < -1)
        return grovep_json_fail(js, n->kpos[K_ID], "nodes[%zu].metadata.id: invalid id %lld", i,
                                (long long)n->id);
    if (n->rank < -1)
        return grovep_json_fail(js, n->kpos[K_RANK], "nodes[%zu].metadata.rank: invalid rank %lld",
                                i, (long long)n->rank);
    *status = GROVE_STATUS_UP;
    if (n->status_kind == GROVEP_J_INT) {
        if (n->status_int < 0 || n->status_int >= GROVE_STATUS_COUNT)
            return grovep_json_fail(js, n->kpos[K_STATUS],
                                    "nodes[%zu].metadata.status: unknown status %lld", i,
                                    (long long)n->status_int);
        *status = (int)n->status_int;
    } else if (n->status_kind == GROVEP_J_STRING) {
        *status = grove_status_parse(S(r, n->status_off));
        if (*status < 0)
            return grovep_json_fail(js, n->kpos[K_STATUS],
                                    "nodes[%zu].metadata.status: unknown status \"%s\"", i,
                                    S(r, n->status_off));
    }
    const char *fid = S(r, n->fid);
    grove_vid_t dup = fid_find(r, fid, n->fidl);
    if (dup != GROVE_VID_NONE)
        return grovep_json_fail(js, n->fid_pos,
                                "nodes[%zu].id: duplicate node id \"%s\" (also nodes[%u])", i, fid,
                                dup);
    for (size_t p = 0; p < r->ncpaths; p++) {
        kref_t *k = &r->cpaths[p];
        if (k->vl == 0 || S(r, k->v)[0] != '/')
            return grovep_json_fail(js, k->pos,
                                    "nodes[%zu].metadata.paths.%s: \"%s\" does not start with '/'",
                                    i, S(r, k->k), S(r, k->v));
    }
    return 0;
}

/* A decimal integer of at most 18 digits at the end of s (n bytes), or -1. */
static int64_t digits_at_end(const char *s, size_t n)
{
    size_t k = n;
    while (k > 0 && k + 18 > n && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k == n || (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9'))
        return -1;
    int64_t x = 0;
    for (; k < n; k++)
        x = x * 10 + (s[k] - '0');
    return x;
}

/* The id of node n when its metadata gives none, as the reference engine
 * infers it: a node's from the digits ending its name, else the node's
 * uniq_id, else the file's id of the node when that is an integer; -1
 * when nothing gives one. */
static int64_t inferred_id(const reader_t *r, const nrec_t *n)
{
    if (n->soff[K_NAME] != NOOFF && n->slen[K_TYPE] == 4
        && !memcmp(S(r, n->soff[K_TYPE]), "node", 4)) {
        int64_t x = digits_at_end(S(r, n->soff[K_NAME]), n->slen[K_NAME]);
        if (x >= 0)
            return x;
    }
    if (n->uniq >= 0)
        return n->uniq;
    const char *f = S(r, n->fid);
    for (size_t k = 0; k < n->fidl; k++)
        if (f[k] < '0' || f[k] > '9')
            return -1;
    return digits_at_end(f, n->fidl);
}

/* The vertex of node n (checked), or GROVE_VID_NONE with the failure
 * reported.  Its id: given, or inferred (inferred_id).  Its name: given;
 * else RFC 4's default, basename + id, when it has an id; else the last
 * component of its containment path (else of its first path), else the
 * basename.  *pname: the last component of its path when the path names
 * it otherwise than its name (the reference engine names a vertex with
 * neither name nor id ssd21 and keeps its path /mini/chassis1/ssd2, and
 * an R it wrote names it so beside that path), else GROVE_SYM_NONE. */
static grove_vid_t add_vertex(reader_t *r, const nrec_t *n, grove_sym_t *pname)
{
    grovep_json_t *js = &r->js;
    size_t i = n->idx;
    char namebuf[256];
    char *heapname = NULL;
    const char *name = n->soff[K_NAME] != NOOFF ? S(r, n->soff[K_NAME]) : NULL;
    int64_t id = (n->seen & (1u << K_ID)) ? n->id : inferred_id(r, n);
    bool by_path = !name && id < 0;
    *pname = GROVE_SYM_NONE;
    if (r->ncpaths) {
        const kref_t *pk = &r->cpaths[0];
        for (size_t p = 0; p < r->ncpaths; p++)
            if (KEYIS(S(r, r->cpaths[p].k), r->cpaths[p].kl, GROVE_CONTAINMENT))
                pk = &r->cpaths[p];
        size_t l;
        const char *c = last_component(S(r, pk->v), pk->vl, &l);
        if (c && !by_path) {
            *pname = grove_intern_n(r->g->strings, c, l);
            if (*pname == GROVE_SYM_NONE) {
                grovep_json_sysfail(js, "reading a node");
                return GROVE_VID_NONE;
            }
        } else if (c) {
            char *dst = namebuf;
            if (l >= sizeof(namebuf) && !(dst = heapname = malloc(l + 1))) {
                grovep_json_sysfail(js, "reading a node");
                return GROVE_VID_NONE;
            }
            memcpy(dst, c, l);
            dst[l] = '\0';
            name = dst;
        }
    }
    const char *uuid = n->soff[K_UUID] != NOOFF ? S(r, n->soff[K_UUID]) : NULL;
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = S(r, n->soff[K_TYPE]);
    info.basename = n->soff[K_BASENAME] != NOOFF ? S(r, n->soff[K_BASENAME]) : NULL;
    info.name = name;
    info.id = id;
    info.rank = n->rank;
    info.size = n->size;
    info.unit = n->soff[K_UNIT] != NOOFF ? S(r, n->soff[K_UNIT]) : NULL;
    info.uuid = uuid;
    grove_vid_t v = grove_graph_add_vertex(r->g, &info);
    free(heapname);
    if (v != GROVE_VID_NONE)
        return v;
    /* the rest was checked: the uuid is malformed or taken */
    if (errno == EINVAL && uuid)
        grovep_json_fail(js, n->kpos[K_UUID], "nodes[%zu].metadata.uuid: malformed uuid \"%s\"",
                         i, uuid);
    else if (errno == EEXIST && uuid)
        grovep_json_fail(js, n->kpos[K_UUID],
                         "nodes[%zu].metadata.uuid: duplicate uuid \"%s\" (also nodes[%u])", i,
                         uuid, grove_graph_find_uuid(r->g, uuid));
    else if (errno == EINVAL || errno == EEXIST)
        grovep_json_fail(js, n->pos, "nodes[%zu]: cannot add the vertex: %s", i,
                         strerror(errno));
    else
        grovep_json_sysfail(js, "adding a vertex");
    return GROVE_VID_NONE;
}

/* File the paths of the current node for vertex v, linked per vertex in
 * file order, to be checked once the edges are in. */
static int file_paths(reader_t *r, grove_vid_t v)
{
    grovep_json_t *js = &r->js;
    if (grovep_grow((void **)&r->vpath, &r->vpathcap, (size_t)v + 1, sizeof(*r->vpath)) < 0)
        return grovep_json_sysfail(js, "reading paths");
    r->vpath[v] = GROVEP_NONE;
    uint32_t prev = GROVEP_NONE; /* (indexes: the array may move) */
    for (size_t p = 0; p < r->ncpaths; p++) {
        const kref_t *k = &r->cpaths[p];
        grove_sym_t sub = grove_graph_sym(r->g, S(r, k->k));
        if (sub == GROVE_SYM_NONE)
            return grovep_json_sysfail(js, "reading paths");
        if (r->npaths >= GROVEP_NONE - 1) {
            errno = EOVERFLOW;
            return grovep_json_sysfail(js, "reading paths");
        }
        fpath_t *fp = VPUSH(r->paths, r->npaths, r->pathcap);
        if (!fp)
            return grovep_json_sysfail(js, "reading paths");
        *fp = (fpath_t){.sub = sub, .next = GROVEP_NONE, .pos = k->pos, .off = NOOFF};
        /* in the text without escapes: no copy */
        bool plain = !js->json && k->pos + k->vl + 1 < js->len && js->text[k->pos] == '"'
                     && js->text[k->pos + 1 + k->vl] == '"'
                     && !memchr(js->text + k->pos + 1, '\\', k->vl);
        if (!plain) {
            fp->off = grovep_buf_putz(&r->parena, S(r, k->v), k->vl);
            if (fp->off == (size_t)-1)
                return grovep_json_sysfail(js, "reading paths");
        }
        uint32_t idx = (uint32_t)(r->npaths - 1);
        if (prev == GROVEP_NONE)
            r->vpath[v] = idx;
        else
            r->paths[prev].next = idx;
        prev = idx;
    }
    return 0;
}

/* Make the vertex of node n and file everything deferred. */
static int commit_node(reader_t *r, nrec_t *n)
{
    grovep_json_t *js = &r->js;
    int status = GROVE_STATUS_UP;
    if (check_node(r, n, &status) < 0)
        return -1;
    grove_sym_t pname;
    grove_vid_t v = add_vertex(r, n, &pname);
    if (v == GROVE_VID_NONE)
        return -1;
    if (grovep_grow((void **)&r->pname, &r->pnamecap, (size_t)v + 1, sizeof(*r->pname)) < 0)
        return grovep_json_sysfail(js, "reading a node");
    r->pname[v] = pname == grovep_vertex_name(r->g, v) ? GROVE_SYM_NONE : pname;
    if (fid_add(r, S(r, n->fid), n->fidl, v) < 0)
        return grovep_json_sysfail(js, "reading node ids");
    for (size_t p = 0; p < r->nprops; p++) {
        const kref_t *k = &r->props[p];
        if (grove_vertex_set_property(r->g, v, S(r, k->k), k->v == NOOFF ? "" : S(r, k->v)) < 0)
            return grovep_json_sysfail(js, "setting a property");
    }
    for (size_t p = 0; p < r->ntags; p++) {
        const kref_t *k = &r->tags[p];
        if (grove_vertex_tag(r->g, v, S(r, k->k), k->v == NOOFF ? NULL : S(r, k->v)) < 0)
            return grovep_json_sysfail(js, "setting a tag");
    }
    if (status != GROVE_STATUS_UP) {
        if (!VPUSH(r->stats, r->nstats, r->statcap))
            return grovep_json_sysfail(js, "reading a node");
        r->stats[r->nstats - 1].v = v;
        r->stats[r->nstats - 1].status = (uint8_t)status;
    }
    return file_paths(r, v);
}

/* The end of a node or edge element, committed with result rc: drop the
 * strings it read (back to mark) and count it in *count. */
static int elem_done(reader_t *r, size_t mark, size_t *count, int rc)
{
    r->js.sc.len = mark;
    (*count)++;
    return rc;
}

/* The start of node or edge element i: report the read's progress
 * (bytes of the text read, or elements of a decoded document, total
 * unknown) and set *mark to where the element's strings begin, for
 * elem_done.  The reader. */
static reader_t *elem_begin(grovep_json_t *js, size_t i, size_t *mark)
{
    reader_t *r = reader_of(js);
    if (js->json)
        GROVE_PROGRESS("reading JGF", i, i, 0);
    else
        GROVE_PROGRESS("reading JGF", i, grovep_json_pos(js), js->len);
    *mark = r->js.sc.len;
    return r;
}

static int node_elem(grovep_json_t *js, size_t i, const grovep_jval_t *v, void *arg)
{
    size_t mark;
    reader_t *r = elem_begin(js, i, &mark);
    (void)arg;
    nrec_t n = {.idx = i,
                .pos = grovep_json_pos(js),
                .id = GROVE_ID_NONE,
                .rank = GROVE_ID_NONE,
                .uniq = -1,
                .size = 1};
    for (int k = 0; k < K_NSTR; k++)
        n.soff[k] = NOOFF;
    for (int k = 0; k < K_COUNT; k++)
        n.kpos[k] = n.pos;
    n.meta_pos = n.pos;
    r->nprops = r->ntags = r->ncpaths = 0;
    WANT(grovep_json_object(js, v, node_member, &n), "an object", "nodes[%zu]", i);
    return elem_done(r, mark, &r->nnodes, commit_node(r, &n));
}

/* ---- edges ----------------------------------------------------------------- */

static int name_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                       void *arg)
{
    reader_t *r = reader_of(js);
    erec_t *e = arg;
    if (e->seen & 0x100)
        return 0; /* only the first {subsystem: relationship} */
    e->seen |= 0x100;
    size_t ko = grovep_buf_putz(&r->js.sc, k, kl), rel, rell;
    if (ko == (size_t)-1)
        return grovep_json_sysfail(js, "reading an edge");
    WANT(grovep_json_string(js, v, &rel, &rell), "a string", "edges[%zu].metadata.name.%s", e->idx,
         S(r, ko));
    if (e->sub == NOOFF) {
        e->sub = ko;
        e->subl = kl;
    }
    if (e->rel == NOOFF) {
        e->rel = rel;
        e->rell = rell;
    }
    return 0;
}

static int emeta_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                        void *arg)
{
    erec_t *e = arg;
    if (KEYIS(k, kl, "subsystem")) {
        WANT(grovep_json_string(js, v, &e->sub, &e->subl), "a string",
             "edges[%zu].metadata.subsystem", e->idx);
        e->seen |= 0x10;
    } else if (KEYIS(k, kl, "relationship")) {
        WANT(grovep_json_string(js, v, &e->rel, &e->rell), "a string",
             "edges[%zu].metadata.relationship", e->idx);
        e->seen |= 0x20;
    } else if (KEYIS(k, kl, "name")) {
        WANT(grovep_json_object(js, v, name_member, e), "an object", "edges[%zu].metadata.name",
             e->idx);
    }
    return 0;
}

static int edge_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                       void *arg)
{
    erec_t *e = arg;
    if (KEYIS(k, kl, "source")) {
        e->src_pos = grovep_json_pos(js);
        WANT(grovep_json_string(js, v, &e->src, &e->srcl), "a string", "edges[%zu].source", e->idx);
    } else if (KEYIS(k, kl, "target")) {
        e->dst_pos = grovep_json_pos(js);
        WANT(grovep_json_string(js, v, &e->dst, &e->dstl), "a string", "edges[%zu].target", e->idx);
    } else if (KEYIS(k, kl, "metadata")) {
        WANT(grovep_json_object(js, v, emeta_member, e), "an object", "edges[%zu].metadata",
             e->idx);
    } else if (KEYIS(k, kl, "relation")) {
        size_t o, l;
        WANT(grovep_json_string(js, v, &o, &l), "a string", "edges[%zu].relation", e->idx);
        if (!(e->seen & 0x40)) {
            e->seen |= 0x40;
            e->rel2 = o;
            e->rel2l = l;
        }
    }
    return 0;
}

/* The text of a file path (not NUL-terminated when in the text). */
static const char *fp_str(const reader_t *r, const fpath_t *fp, size_t *len)
{
    if (fp->off != NOOFF) {
        *len = strlen(r->parena.p + fp->off);
        return r->parena.p + fp->off;
    }
    const char *s = r->js.text + fp->pos + 1;
    *len = (size_t)((const char *)memchr(s, '"', r->js.len - fp->pos - 1) - s);
    return s;
}

/* The path the file gives v in subsystem sub, or NULL. */
static const char *file_path(const reader_t *r, grove_vid_t v, grove_sym_t sub, size_t *len)
{
    for (uint32_t p = r->vpath[v]; p != GROVEP_NONE; p = r->paths[p].next)
        if (r->paths[p].sub == sub)
            return fp_str(r, &r->paths[p], len);
    return NULL;
}

/* Is the path c (length cl) a direct child of p (length pl)? */
static bool path_child(const char *p, size_t pl, const char *c, size_t cl)
{
    if (cl <= pl + 1 || memcmp(c, p, pl) || c[pl] != '/')
        return false;
    return !memchr(c + pl + 1, '/', cl - pl - 1) && !(pl == 1 && p[0] == '/');
}

/* The root of v's containment tree (union-find with path halving over
 * r->up, made on first use for every vertex of the graph). */
static grove_vid_t tree_root(reader_t *r, grove_vid_t v)
{
    size_t n = grove_graph_vertex_slots(r->g);
    if (r->upcap < n) {
        grove_vid_t *up = realloc(r->up, n * sizeof(*up));
        if (!up)
            return v; /* no forest: the graph's own check still runs */
        for (size_t k = r->upcap; k < n; k++)
            up[k] = r->g->parent[k] == GROVEP_NONE ? (grove_vid_t)k : r->g->parent[k];
        r->up = up;
        r->upcap = n;
    }
    if (v >= r->upcap)
        return v;
    while (r->up[v] != v) {
        r->up[v] = r->up[r->up[v]];
        v = r->up[v];
    }
    return v;
}

/* Is an edge s -> t in subsystem sub upward?  Its relationship does not
 * say ("supplies_to", "includes", or none given): up when the file's paths
 * put s right below t, down when they put t right below s.  Else, when
 * pairs count (a relationship was given), up when it is the second of a
 * pair: the edge read just before it is an unpaired downward t -> s (the
 * writer lists each pair downward edge first, one after the other). */
static int edge_up(reader_t *r, grove_vid_t s, grove_vid_t t, const char *sub, bool pairs)
{
    const grove_graph_t *g = r->g;
    grove_sym_t sym = grove_graph_sym_lookup(g, sub);
    if (sym == GROVE_SYM_NONE)
        return 0; /* no edge in that subsystem yet, no path in it */
    size_t sl = 0, tl = 0;
    const char *sp = file_path(r, s, sym, &sl), *tp = file_path(r, t, sym, &tl);
    if (sp && tp && path_child(tp, tl, sp, sl))
        return 1;
    if ((sp && tp && path_child(sp, sl, tp, tl)) || !pairs || g->ne == 0)
        return 0;
    const grovep_edge_t *last = &g->e[g->ne - 1];
    return grovep_edge_src(g, (grove_eid_t)g->ne - 1) == t && last->dst == s && g->subsys[last->sub] == sym
           && !(last->flags & (GROVEP_E_UP | GROVEP_E_DEAD)) && last->opp == 0;
}

static int commit_edge(reader_t *r, erec_t *e)
{
    size_t i = e->idx;
    if (e->src == NOOFF)
        return grovep_json_fail(&r->js, e->pos, "edges[%zu]: missing \"source\"", i);
    if (e->dst == NOOFF)
        return grovep_json_fail(&r->js, e->pos, "edges[%zu]: missing \"target\"", i);
    const char *ss = S(r, e->src), *ds = S(r, e->dst);
    grove_vid_t s = fid_find(r, ss, e->srcl);
    if (s == GROVE_VID_NONE)
        return grovep_json_fail(&r->js, e->src_pos, "edges[%zu].source: unknown node id \"%s\"", i,
                                ss);
    grove_vid_t t = fid_find(r, ds, e->dstl);
    if (t == GROVE_VID_NONE)
        return grovep_json_fail(&r->js, e->dst_pos, "edges[%zu].target: unknown node id \"%s\"", i,
                                ds);
    if (s == t)
        return grovep_json_fail(&r->js, e->pos,
                                "edges[%zu]: node \"%s\" cannot be its own neighbour", i, ss);
    const char *sub = e->sub != NOOFF ? S(r, e->sub) : GROVE_CONTAINMENT;
    if (e->sub != NOOFF && e->subl == 0)
        return grovep_json_fail(&r->js, e->pos, "edges[%zu].metadata.subsystem: empty subsystem",
                                i);
    const char *rel = e->rel != NOOFF ? S(r, e->rel) : e->rel2 != NOOFF ? S(r, e->rel2) : NULL;
    if (rel && !rel[0])
        return grovep_json_fail(&r->js, e->pos,
                                "edges[%zu].metadata.relationship: empty relationship", i);
    int up = !rel ? edge_up(r, s, t, sub, false) : !strcmp(rel, GROVE_IN) ? 1
             : !strcmp(rel, GROVE_CONTAINS)                                 ? 0
                                                                            : edge_up(r, s, t, sub, true);
    if (!rel)
        rel = up ? GROVE_IN : GROVE_CONTAINS;
    bool primary = !strcmp(sub, GROVE_CONTAINMENT) && !strcmp(rel, GROVE_CONTAINS);
    if (primary) {
        grove_graph_t *g = r->g;
        if (g->parent[t] != GROVEP_NONE) {
            char buf[32];
            return grovep_json_fail(&r->js, e->pos,
                                    "edges[%zu]: node \"%s\" would have two containment parents, "
                                    "\"%s\" and \"%s\"",
                                    i, ds, fid_of(r, g->parent[t], buf, sizeof(buf)), ss);
        }
        if (tree_root(r, s) == t)
            return grovep_json_fail(
                &r->js, e->pos,
                "edges[%zu]: containment cycle: node \"%s\" is an ancestor of "
                "node \"%s\"",
                i, ds, ss);
        if (r->up)
            r->up[t] = tree_root(r, s); /* t's tree now hangs below s's root */
    }
    grove_error_t e2;
    grove_error_clear(&e2);
    if (grovep_add_edge(r->g, s, t, sub, rel, up, &e2) == GROVE_EID_NONE) {
        if (errno == EINVAL || errno == EOVERFLOW) {
            int saved = errno;
            grovep_json_fail(&r->js, e->pos, "edges[%zu]: %s", i,
                             e2.text[0] ? e2.text : strerror(saved));
            errno = saved;
            return -1;
        }
        return grovep_json_sysfail(&r->js, "adding an edge");
    }
    return 0;
}

static int edge_elem(grovep_json_t *js, size_t i, const grovep_jval_t *v, void *arg)
{
    size_t mark;
    reader_t *r = elem_begin(js, i, &mark);
    (void)arg;
    erec_t e = {.idx = i,
                .pos = grovep_json_pos(js),
                .src = NOOFF,
                .dst = NOOFF,
                .sub = NOOFF,
                .rel = NOOFF,
                .rel2 = NOOFF};
    e.src_pos = e.dst_pos = e.pos;
    WANT(grovep_json_object(js, v, edge_member, &e), "an object", "edges[%zu]", i);
    return elem_done(r, mark, &r->nedges, commit_edge(r, &e));
}

/* ---- the graph object ------------------------------------------------------ */

static int gmeta_grove_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                              void *arg)
{
    reader_t *r = reader_of(js);
    (void)arg;
    if (KEYIS(k, kl, "now")) {
        WANT(grovep_json_int(js, v, &r->now), "an integer", "graph.metadata.grove.now");
        if (!grove_time_ok(r->now))
            return grovep_json_fail(js, grovep_json_pos(js),
                                    "graph.metadata.grove.now: %lld is not a time (0 to %lld "
                                    "seconds)",
                                    (long long)r->now, (long long)GROVE_TIME_MAX - 1);
        r->have_now = true;
    } else if (KEYIS(k, kl, "expiration")) {
        WANT(grovep_json_int(js, v, &r->exp), "an integer >= 0",
             "graph.metadata.grove.expiration");
        if (r->exp < 0)
            return grovep_json_type_fail(js, v, "an integer >= 0",
                                         "graph.metadata.grove.expiration");
        r->have_exp = true;
    }
    return 0;
}

static int gmeta_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                        void *arg)
{
    (void)arg;
    if (KEYIS(k, kl, "grove"))
        WANT(grovep_json_object(js, v, gmeta_grove_member, NULL), "an object",
             "graph.metadata.grove");
    return 0;
}

typedef struct gctx {
    bool nodes, edges, meta;
    size_t edges_at; /* text position of edges seen before nodes */
    const json_t *edges_json;
} gctx_t;

static int graph_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                        void *arg)
{
    reader_t *r = reader_of(js);
    gctx_t *c = arg;
    if (KEYIS(k, kl, "nodes")) {
        if (c->nodes)
            return grovep_json_fail(js, grovep_json_pos(js), "graph: duplicate key \"nodes\"");
        c->nodes = true;
        WANT(grovep_json_array(js, v, node_elem, NULL), "an array", "graph.nodes");
        r->have_nodes = true;
    } else if (KEYIS(k, kl, "edges")) {
        if (c->edges)
            return grovep_json_fail(js, grovep_json_pos(js), "graph: duplicate key \"edges\"");
        c->edges = true;
        if (!c->nodes) {
            /* come back once the nodes are known */
            int kind = grovep_json_kind(js, v);
            if (kind != GROVEP_J_ARRAY)
                return grovep_json_type_fail(js, v, "an array", "graph.edges");
            if (r->js.json) {
                c->edges_json = v->j;
            } else {
                c->edges_at = r->js.cur;
                if (grovep_json_skip(js, 1) < 0)
                    return -1;
            }
            return 0;
        }
        WANT(grovep_json_array(js, v, edge_elem, NULL), "an array", "graph.edges");
    } else if (KEYIS(k, kl, "metadata")) {
        if (c->meta)
            return grovep_json_fail(js, grovep_json_pos(js), "graph: duplicate key \"metadata\"");
        c->meta = true;
        WANT(grovep_json_object(js, v, gmeta_member, NULL), "an object", "graph.metadata");
    }
    return 0;
}

/* Does path[0, end) end with "/name"? */
static bool ends_with_name(const char *path, size_t end, const char *name, size_t nl)
{
    return end >= nl + 1 && path[end - nl - 1] == '/' && !memcmp(path + end - nl, name, nl);
}

/* The name v has in the file's paths: its own, or the one its path gives
 * when it is named by default (pname). */
static const char *path_name(const reader_t *r, grove_vid_t v)
{
    grove_sym_t s = r->pname[v] != GROVE_SYM_NONE ? r->pname[v] : grovep_vertex_name(r->g, v);
    return grove_intern_str(r->g->strings, s);
}

/* The path the edges give v in subsystem sub, by path names, into buf
 * (truncated to len, NUL-terminated). */
static void edges_path(const reader_t *r, grove_vid_t v, grove_sym_t sub, char *buf, size_t len)
{
    const grove_graph_t *g = r->g;
    size_t at = len - 1, steps = 0;
    buf[at] = '\0';
    for (grove_vid_t c = v; c != GROVE_VID_NONE && steps++ <= g->nv;
         c = grove_vertex_parent(g, c, sub)) {
        const char *name = path_name(r, c);
        size_t nl = strlen(name);
        if (nl + 1 > at)
            break;
        at -= nl + 1;
        buf[at] = '/';
        memcpy(buf + at + 1, name, nl);
    }
    memmove(buf, buf + at, len - at);
}

/* Check the file's paths against the tree the edges made.  A path is
 * read from the vertex up: each component must be the path name of the
 * vertex at that level (path_name).  What remains above the root of the vertex's tree must be
 * empty, or be the prefix the root's own path has: a fragment of a larger
 * graph (an allocation's scheduling graph) keeps its full paths, which
 * start above its roots. */
static int check_paths(reader_t *r)
{
    const grove_graph_t *g = r->g;
    for (grove_vid_t v = 0; v < g->nv; v++) {
        for (uint32_t p = r->vpath[v]; p != GROVEP_NONE; p = r->paths[p].next) {
            const fpath_t *fp = &r->paths[p];
            size_t plen;
            const char *path = fp_str(r, fp, &plen);
            size_t end = plen, steps = 0;
            bool good = true;
            grove_vid_t cur = v;
            for (;;) {
                const char *name = path_name(r, cur);
                size_t nl = strlen(name);
                if (!ends_with_name(path, end, name, nl)) {
                    good = false;
                    break;
                }
                end -= nl + 1;
                grove_vid_t parent = grove_vertex_parent(g, cur, fp->sub);
                if (parent == GROVE_VID_NONE)
                    break;
                if (end == 0 || ++steps > g->nv) {
                    good = false;
                    break;
                }
                cur = parent;
            }
            if (good && end > 0) {
                /* cur is the root: its own path must carry the same prefix */
                size_t rl = 0;
                const char *rp = file_path(r, cur, fp->sub, &rl);
                const char *name = path_name(r, cur);
                size_t nl = strlen(name);
                good = rp && ends_with_name(rp, rl, name, nl) && rl - nl - 1 == end
                       && !memcmp(rp, path, end);
            }
            if (good)
                continue;
            const char *sname = grove_intern_str(g->strings, fp->sub);
            const char *vname = path_name(r, v);
            size_t vl = strlen(vname);
            if (!ends_with_name(path, plen, vname, vl))
                return grovep_json_fail(
                    &r->js, fp->pos,
                    "nodes[%u].metadata.paths.%s: \"%.*s\" does not end with the "
                    "vertex's name \"%s\"",
                    v, sname, (int)plen, path, vname);
            /* what the edges give, under the prefix of the root's own path */
            grove_vid_t root = v;
            for (size_t k = 0; k <= g->nv; k++) {
                grove_vid_t up = grove_vertex_parent(g, root, fp->sub);
                if (up == GROVE_VID_NONE)
                    break;
                root = up;
            }
            size_t rl = 0, pre = 0;
            const char *rp = file_path(r, root, fp->sub, &rl);
            const char *rname = path_name(r, root);
            if (rp && ends_with_name(rp, rl, rname, strlen(rname)))
                pre = rl - strlen(rname) - 1;
            char buf[512];
            edges_path(r, v, fp->sub, buf, sizeof(buf));
            return grovep_json_fail(
                &r->js, fp->pos,
                "nodes[%u].metadata.paths.%s: \"%.*s\" disagrees with the edges, "
                "which give \"%.*s%s\"",
                v, sname, (int)plen, path, (int)pre, rp ? rp : "", buf);
        }
    }
    return 0;
}

struct pn {
    grove_sym_t s;
    grove_vid_t v;
};

static int cmp_pn(const void *a, const void *b)
{
    const struct pn *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Two vertices beside each other (children of up in sub, or roots when up
 * is GROVE_VID_NONE) that paths name alike: 1 with them in *a < *b, 0
 * when none, -1 (ENOMEM).  One sort of the siblings' path names, so a
 * parent of many costs n log n, not n squared. */
static int siblings_alike(const grove_graph_t *g, grove_vid_t up, grove_sym_t sub, grove_vid_t *a,
                          grove_vid_t *b)
{
    struct pn *l = NULL;
    size_t n = 0, cap = 0;
    grove_eid_t cursor;
    grove_vid_t w = up == GROVE_VID_NONE ? grove_graph_root(g, sub, 0)
                                         : grove_vertex_first_child(g, up, sub, &cursor);
    for (size_t i = 1; w != GROVE_VID_NONE; i++) {
        if (grovep_grow((void **)&l, &cap, n + 1, sizeof(*l)) < 0) {
            free(l);
            return -1;
        }
        l[n++] = (struct pn){grovep_vertex_pathname(g, w), w};
        w = up == GROVE_VID_NONE ? grove_graph_root(g, sub, i)
                                 : grove_vertex_next_child(g, sub, &cursor);
    }
    if (n > 1)
        qsort(l, n, sizeof(*l), cmp_pn);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++)
        if (l[i].s == l[i - 1].s) {
            *a = l[i - 1].v;
            *b = l[i].v;
            rc = 1;
        }
    free(l);
    return rc;
}

/* After nodes and edges: paths, records, statuses, now. */
static int finish(reader_t *r)
{
    if (check_paths(r) < 0)
        return -1;
    /* a vertex the paths name otherwise than its name keeps the file's
     * paths, as Fluxion does: they are how a site names it (flux-coral2
     * sets a rabbit's ssd up or down by /cluster/chassis0/ssd3) */
    for (grove_vid_t v = 0; r->pname && v < r->g->nv; v++)
        if (r->pname[v] != GROVE_SYM_NONE && grovep_vertex_pathname_set(r->g, v, r->pname[v]) < 0)
            return grovep_json_sysfail(&r->js, "keeping paths");
    /* ... and no two siblings then answer to one path (each parent of a
     * vertex so named looked at once) */
    uint8_t *seen = NULL;
    for (grove_vid_t v = 0; r->pname && v < r->g->nv; v++) {
        if (r->pname[v] == GROVE_SYM_NONE)
            continue;
        if (!seen && !(seen = calloc(r->g->nv + 1, 1)))
            return grovep_json_sysfail(&r->js, "keeping paths");
        for (uint32_t p = r->vpath[v]; p != GROVEP_NONE; p = r->paths[p].next) {
            const fpath_t *fp = &r->paths[p];
            grove_vid_t up = grove_vertex_parent(r->g, v, fp->sub);
            size_t at = up == GROVE_VID_NONE ? r->g->nv : up;
            if (fp->sub == r->g->sym_containment && seen[at])
                continue;
            if (fp->sub == r->g->sym_containment)
                seen[at] = 1;
            grove_vid_t x, y;
            int alike = siblings_alike(r->g, up, fp->sub, &x, &y);
            if (alike < 0) {
                free(seen);
                return grovep_json_sysfail(&r->js, "keeping paths");
            }
            if (alike == 0)
                continue;
            /* the one of them named by its path, against the other */
            grove_vid_t named = r->pname[y] != GROVE_SYM_NONE ? y : x, other = named == y ? x : y;
            const fpath_t *np = fp;
            for (uint32_t q = r->vpath[named]; q != GROVEP_NONE; q = r->paths[q].next)
                if (r->paths[q].sub == fp->sub)
                    np = &r->paths[q];
            size_t plen;
            const char *path = fp_str(r, np, &plen);
            free(seen);
            return grovep_json_fail(&r->js, np->pos,
                                    "nodes[%u].metadata.paths.%s: \"%.*s\" is the path of "
                                    "nodes[%u] too",
                                    named, grove_intern_str(r->g->strings, fp->sub), (int)plen,
                                    path, other);
        }
    }
    free(seen);
    if (r->have_now)
        (void)grove_graph_set_now(r->g, r->now); /* checked as it was read */
    if (r->have_exp)
        grove_graph_set_expiration(r->g, r->exp);
    for (size_t i = 0; i < r->nrecs; i++) {
        const drec_t *d = &r->recs[i];
        if (grove_vertex_allocate(r->g, d->v, (grove_jobid_t)d->job, d->amount, d->start,
                                  d->end, d->asked)
            < 0) {
            if (errno != EINVAL && errno != EBUSY)
                return grovep_json_sysfail(&r->js, "restoring records");
            return grovep_json_fail(
                &r->js, d->pos,
                "nodes[%zu].metadata.grove.records[%zu]: cannot restore the record of "
                "job %lld: %s",
                d->node, d->idx, (long long)d->job,
                errno == EBUSY ? "the units are taken or held exclusively"
                               : "invalid amount or time window");
        }
    }
    for (size_t i = 0; i < r->nstats; i++)
        grove_vertex_set_status(r->g, r->stats[i].v, (grove_status_t)r->stats[i].status);
    return 0;
}

static int parse_graph(reader_t *r, const grovep_jval_t *v, const char *place)
{
    grovep_json_t *js = &r->js;
    if (r->have_graph)
        return grovep_json_fail(js, grovep_json_pos(js),
                                "top level: both \"graph\" and \"scheduling\".\"graph\"");
    r->have_graph = true;
    size_t pos = grovep_json_pos(js);
    gctx_t c = {.edges_at = GROVEP_JSON_NOPOS};
    WANT(grovep_json_object(js, v, graph_member, &c), "an object", "%s", place);
    if (!c.nodes)
        return grovep_json_fail(js, pos, "%s: missing \"nodes\"", place);
    if (c.edges_json) {
        grovep_jval_t ev = {c.edges_json};
        if (grovep_json_array(js, &ev, edge_elem, NULL) < 0)
            return -1;
    } else if (c.edges_at != GROVEP_JSON_NOPOS) {
        size_t save = r->js.cur;
        r->js.cur = c.edges_at;
        grovep_jval_t ev = {NULL};
        if (grovep_json_array(js, &ev, edge_elem, NULL) < 0)
            return -1;
        r->js.cur = save;
    }
    return finish(r);
}

static int sched_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                        void *arg)
{
    reader_t *r = reader_of(js);
    (void)arg;
    if (KEYIS(k, kl, "graph"))
        return parse_graph(r, v, "scheduling.graph");
    return 0;
}

static int top_member(grovep_json_t *js, const char *k, size_t kl, const grovep_jval_t *v,
                      void *arg)
{
    reader_t *r = reader_of(js);
    (void)arg;
    if (KEYIS(k, kl, "graph"))
        return parse_graph(r, v, "graph");
    if (KEYIS(k, kl, "changes")) /* changes.h: a part of a graph, not one */
        return grovep_json_fail(js, GROVEP_JSON_NOPOS,
                                "a changes document, not an entire graph: apply it to the "
                                "save it follows first");
    if (KEYIS(k, kl, "scheduling")) {
        WANT(grovep_json_object(js, v, sched_member, NULL), "an object", "scheduling");
    }
    return 0;
}

static void reader_free(reader_t *r)
{
    grovep_json_free(&r->js);
    GROVEP_FREE_ALL(r->fids.p, r->fid, r->num, r->slots, r->props, r->tags, r->cpaths, r->recs,
                    r->paths, r->vpath, r->pname, r->parena.p, r->stats, r->up);
}

/* Refuse a containment chain deeper than GROVE_MAX_DEPTH: every vertex's
 * depth, each computed once (a vertex's parent is finished first by
 * walking up to the nearest known depth), so O(vertices). */
static int check_depth(reader_t *r)
{
    grove_graph_t *g = r->g;
    size_t n = grove_graph_vertex_slots(g);
    grove_limits_t lim = r->lim;
    if (n <= lim.depth)
        return 0; /* no chain can be longer than the vertices */
    uint32_t *d = calloc(n, sizeof(*d)); /* depth + 1, 0 not yet known */
    grove_vid_t *stack = malloc(n * sizeof(*stack));
    int rc = 0;
    if (!d || !stack)
        rc = grovep_json_sysfail(&r->js, "checking the containment depth");
    for (size_t v = 0; rc == 0 && v < n; v++) {
        size_t top = 0;
        grove_vid_t a = (grove_vid_t)v;
        while (a != GROVEP_NONE && !d[a]) {
            stack[top++] = a;
            a = g->parent[a];
        }
        uint64_t base = a == GROVEP_NONE ? 0 : d[a];
        while (top > 0) {
            grove_vid_t w = stack[--top];
            d[w] = (uint32_t)++base;
        }
        if (base > lim.depth)
            rc = grovep_json_fail(&r->js, GROVEP_JSON_NOPOS,
                                  "a containment chain deeper than %llu vertices (the limit: "
                                  "GROVE_MAX_DEPTH)",
                                  (unsigned long long)lim.depth);
    }
    if (rc < 0 && errno != ENOMEM)
        errno = EOVERFLOW;
    free(d);
    free(stack);
    return rc;
}

static grove_graph_t *run(reader_t *r, const grovep_jval_t *top)
{
    grovep_json_t *js = &r->js;
    int saved;
    grove_limits_get(&r->lim);
    r->g = grove_graph_create();
    if (!r->g) {
        grovep_json_sysfail(&r->js, "creating the graph");
        return NULL;
    }
    int k = grovep_json_kind(js, top);
    if (k == GROVEP_J_BAD) {
        if (!js->json && grovep_json_at_end(js)) {
            grovep_json_syntax(js, js->cur, "empty document");
            goto fail;
        }
        grovep_json_skip(js, 0);
        goto fail;
    }
    if (k != GROVEP_J_OBJECT) {
        grovep_json_type_fail(js, top, "an object", "top level");
        goto fail;
    }
    if (js->json && json_object_get(top->j, "nodes")) {
        if (parse_graph(r, top, "graph") < 0)
            goto fail;
    } else if (grovep_json_object(js, top, top_member, NULL) < 0) {
        goto fail;
    }
    if (!js->json && !grovep_json_at_end(js)) {
        grovep_json_syntax(js, js->cur, "text after the end of the document");
        goto fail;
    }
    if (!r->have_graph) {
        grovep_json_fail(js, GROVEP_JSON_NOPOS,
                         "top level: no \"graph\" (nor \"scheduling\".\"graph\")");
        goto fail;
    }
    if (check_depth(r) < 0)
        goto fail;
    reader_free(r);
    grove_progress_end("reading JGF");
    return r->g;
fail:
    grove_progress_end("reading JGF");
    saved = errno;
    grove_graph_destroy(r->g);
    reader_free(r);
    errno = saved ? saved : EINVAL;
    return NULL;
}

grove_graph_t *grove_jgf_read(const char *text, size_t len, const char *source,
                              grove_error_t *err)
{
    grove_error_clear(err);
    reader_t r = {
        .js = {.source = source, .err = err, .text = text ? text : "", .len = text ? len : 0}};
    grovep_jval_t top = {NULL};
    return run(&r, &top);
}

grove_graph_t *grove_jgf_read_json(const struct json_t *json, const char *source,
                                   grove_error_t *err)
{
    grove_error_clear(err);
    if (!json) {
        grovep_error_fail(err, EINVAL, source, 0, "no document");
        return NULL;
    }
    reader_t r = {.js = {.source = source, .err = err, .json = true}};
    grovep_jval_t top = {json};
    return run(&r, &top);
}

GROVEP_TEXT_READER(read_text, grove_jgf_read)

grove_graph_t *grove_jgf_load(const char *path, grove_error_t *err)
{
    return grovep_load_file(path, NULL, read_text, NULL, err);
}
