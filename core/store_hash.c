/* store_hash.c: the content hash of every kind of row the store writes
 * (see store.c): a save writes the hash next to the row and skips rows
 * whose hash did not change; a load, and the restore of an image, check
 * what they rebuilt against it.
 *
 * The hash is FNV-1a over the fields with a final mix; it finds changes
 * and damage, it is no defence against a forger.  This file must not hold
 * anything that reads or writes rows: only what a row's content hashes to.
 */
#include <string.h>

#include "store_private.h"

#define H0 0xcbf29ce484222325ULL

static uint64_t h_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t h_i64(uint64_t h, int64_t v)
{
    return h_bytes(h, &v, sizeof(v));
}

static uint64_t h_str(uint64_t h, const char *s)
{
    if (!s)
        return h_i64(h, -1);
    size_t n = strlen(s);
    return h_bytes(h_i64(h, (int64_t)n), s, n);
}

/* Final mix (a row hash is never 0: 0 means "no row"). */
static uint64_t h_fin(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h ? h : 1;
}

uint64_t grovep_store_dead_hash(void)
{
    return h_fin(h_i64(H0, 0));
}

uint64_t grovep_store_empty_hash(void)
{
    return h_fin(H0);
}

uint64_t grovep_store_text_hash(const char *text)
{
    return h_fin(h_str(H0, text));
}

uint64_t grovep_store_base_hash(const grove_graph_t *g, grove_vid_t v, int status)
{
    if (!grove_graph_has_vertex(g, v))
        return grovep_store_dead_hash();
    char uuid[37];
    grove_vertex_uuid(g, v, uuid);
    uint64_t h = h_i64(H0, 1);
    h = h_str(h, grove_vertex_type(g, v));
    h = h_str(h, grove_vertex_basename(g, v));
    h = h_str(h, grove_vertex_name(g, v));
    h = h_i64(h, grove_vertex_id(g, v));
    h = h_i64(h, grove_vertex_rank(g, v));
    h = h_i64(h, grove_vertex_size(g, v));
    h = h_str(h, grove_vertex_unit(g, v));
    h = h_str(h, uuid);
    h = h_i64(h, status);
    return h_fin(h);
}

/* The hash of a vertex's key-value list (properties or tags). */
static uint64_t kv_hash(const grove_graph_t *g, grove_vid_t v,
                        int (*at)(const grove_graph_t *, grove_vid_t, size_t, const char **,
                                  const char **))
{
    uint64_t h = H0;
    const char *k, *val;
    size_t i = 0;
    for (; at(g, v, i, &k, &val) == 0; i++)
        h = h_str(h_str(h, k), val);
    return h_fin(h_i64(h, (int64_t)i));
}

uint64_t grovep_store_props_hash(const grove_graph_t *g, grove_vid_t v)
{
    return kv_hash(g, v, grove_vertex_property_at);
}

uint64_t grovep_store_tags_hash(const grove_graph_t *g, grove_vid_t v)
{
    return kv_hash(g, v, grove_vertex_tag_at);
}

uint64_t grovep_store_rec_hash(grove_jobid_t job, int64_t amount, int64_t start, int64_t end,
                               bool asked)
{
    uint64_t h = h_i64(H0, (int64_t)job);
    h = h_i64(h, amount);
    h = h_i64(h, start);
    h = h_i64(h, end);
    return h_fin(h_i64(h, asked));
}

uint64_t grovep_store_recs_fin(uint64_t sum, size_t n)
{
    return h_fin(h_i64(h_i64(H0, (int64_t)sum), (int64_t)n));
}

uint64_t grovep_store_recs_hash(const grove_graph_t *g, grove_vid_t v)
{
    uint64_t sum = 0;
    size_t n = 0;
    grove_record_t r;
    for (size_t i = 0; grove_vertex_record_at(g, v, i, &r) == 0; i++) {
        if (r.kind != GROVE_RECORD_ALLOC)
            break;
        sum += grovep_store_rec_hash(r.job, r.amount, r.start, r.end, r.asked);
        n++;
    }
    return grovep_store_recs_fin(sum, n);
}

uint64_t grovep_store_edge_hash(int64_t src, int64_t dst, const char *sub, const char *rel,
                                bool up, int64_t opp)
{
    uint64_t h = h_i64(H0, src);
    h = h_i64(h, dst);
    h = h_str(h, sub);
    h = h_str(h, rel);
    h = h_i64(h, up);
    return h_fin(h_i64(h, opp));
}

uint64_t grovep_store_job_hash(const grove_job_t *j)
{
    uint64_t h = h_i64(H0, (int64_t)j->id);
    h = h_i64(h, j->state);
    h = h_i64(h, j->start);
    h = h_i64(h, j->end);
    h = h_i64(h, (int64_t)j->npicks);
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        h = h_i64(h, p->v);
        h = h_i64(h, p->amount);
        h = h_i64(h, (p->exclusive ? 1 : 0) | (p->leaf ? 2 : 0) | (p->recorded ? 4 : 0));
    }
    return h_fin(h);
}
