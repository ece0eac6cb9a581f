/* changes.c: saves of only what changed since the last save, to state
 * files, JGF and a child instance's R (changes.h), and applying them.
 *
 * Problem: the RFC 16 draft asks every save method for a choice between
 * the entire resource set and only what changed since the last save.  The
 * store does it with row hashes in the database; a file or an R has no
 * database, so the one who saves keeps a mark: the hash of every entry of
 * the last save it made.
 *
 * Design: every save is built whole (the writers of jgf_write.c, image.c
 * and child.c), parsed, and compared entry by entry with the mark.  The
 * entries are the members of three lists (graph nodes keyed by id, graph
 * edges keyed by their text and how many equal ones came before, jobs
 * keyed by id), each hashed as canonical JSON text.  A list's changes are
 * worked out so that "drop what is removed, replace what changed in
 * place, append what is new" rebuilds it in order: the survivors keep
 * their place up to the first entry out of order; from there on every
 * entry is written as new (and removed from where it was).  Everything
 * else in a document is small and written whole.  An R's resources are
 * not a list of entries: its changes are the two R differences (added,
 * removed) of the set algebra, its scheduling graph a list pair as above.
 *
 * Workload: one save after a scheduling decision or a batch of them; the
 * building and hashing are linear in the graph, what is written is not.
 *
 * This file must not hold a format's writer or reader; it diffs and
 * patches their JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"
#include "error_private.h"
#include "jgf.h"
#include "json_private.h"
#include "rv1.h"
#include "store_private.h"
#include "util.h"

enum { K_NONE, K_JGF, K_STATE, K_R };
static const char *const kind_names[] = {NULL, "jgf", "state", "R"};

enum { L_NODES, L_EDGES, L_JOBS, L_COUNT };
static const char *const list_names[] = {"nodes", "edges", "jobs"};

/* One entry of a saved list. */
struct ment {
    char *key;     /* node id, job id in decimal, or an edge's text + "#n" */
    uint64_t hash; /* FNV-1a of its canonical text */
};

struct mlist {
    struct ment *e;
    size_t n;
};

struct grove_mark {
    int kind;                  /* K_*: fixed by the first save */
    int jflags;                /* K_JGF: the GROVE_JGF_* flags that change content */
    grove_jobid_t job;         /* K_R: the job */
    int64_t gen;               /* saves made */
    uint64_t fp;               /* fingerprint of the last save */
    struct mlist l[L_COUNT];   /* the entries of the last save */
    grove_rv1_t *R;            /* K_R: the last R saved */
};

/* ---- hashing ----------------------------------------------------------------- */

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

#define FNV0 0xcbf29ce484222325ull

/* Canonical text of v (keys sorted, no whitespace); caller frees; NULL:
 * ENOMEM. */
static char *canon(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static int fingerprint(const json_t *doc, uint64_t *fp)
{
    char *t = canon(doc);
    if (!t)
        return -1;
    *fp = fnv(t, FNV0);
    free(t);
    return 0;
}

static void fp_text(uint64_t fp, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, fp);
}

/* Is doc the save whose fingerprint is want (its text)?  0 when it is; 1
 * when not, doc's fingerprint in have; -1 with ENOMEM in err. */
static int fp_compare(const json_t *doc, const char *want, char have[17], grove_error_t *err)
{
    uint64_t fp;
    if (fingerprint(doc, &fp) < 0)
        return grovep_errorf(err, ENOMEM, "out of memory");
    fp_text(fp, have);
    return strcmp(have, want) != 0;
}

/* A new object with v's members (the members shared); NULL: ENOMEM (or
 * v NULL). */
static json_t *shallow(const json_t *v)
{
    return v ? json_copy((json_t *)(uintptr_t)v) : NULL;
}

/* ---- lists -------------------------------------------------------------------- */

static void mlist_free(struct mlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].key);
    free(l->e);
    l->e = NULL;
    l->n = 0;
}

/* The key of entry v of list kind; new text, NULL with ENOMEM.  text is
 * v's canonical text; seen counts equal edges (an object of counts). */
static char *entry_key(int kind, const json_t *v, const char *text, json_t *seen)
{
    char buf[32];
    if (kind == L_NODES) {
        const json_t *id = json_object_get(v, "id");
        if (json_is_string(id))
            return strdup(json_string_value(id));
        if (json_is_integer(id)) {
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(id));
            return strdup(buf);
        }
        return strdup(text); /* no id: the node is its own key */
    }
    if (kind == L_JOBS) {
        const json_t *id = json_object_get(v, "id");
        if (json_is_integer(id)) {
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(id));
            return strdup(buf);
        }
        return strdup(text);
    }
    json_int_t n = json_integer_value(json_object_get(seen, text));
    if (json_object_set_new(seen, text, json_integer(n + 1)) < 0)
        return NULL;
    size_t len = strlen(text) + 32;
    char *k = malloc(len);
    if (k)
        snprintf(k, len, "%s#%" JSON_INTEGER_FORMAT, text, n);
    return k;
}

/* The entries of arr (a list of kind; NULL or not an array: none) into
 * *l.  0, or -1 with ENOMEM. */
static int mlist_of(int kind, const json_t *arr, struct mlist *l)
{
    l->e = NULL;
    l->n = 0;
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    json_t *seen = json_object();
    if (!seen || !(l->e = calloc(n ? n : 1, sizeof(*l->e)))) {
        json_decref(seen);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(arr, i);
        char *t = canon(v);
        char *k = t ? entry_key(kind, v, t, seen) : NULL;
        if (!k) {
            free(t);
            json_decref(seen);
            mlist_free(l);
            return -1;
        }
        l->e[i].hash = fnv(t, FNV0);
        l->e[i].key = k;
        l->n = i + 1;
        free(t);
    }
    json_decref(seen);
    return 0;
}

/* The changes of list kind from old to new (entries nl of the array arr):
 * *out the entries to write (changed, then new, in arr's order), and what
 * is removed appended to rm (node ids, edge indexes in old, job ids).
 * 0, or -1 with ENOMEM. */
static int list_diff(int kind, const struct mlist *old, const struct mlist *nl, const json_t *arr,
                     json_t **out, json_t *rm)
{
    json_t *oldk = json_object(), *newk = json_object(), *o = json_array();
    int rc = -1;
    if (!oldk || !newk || !o)
        goto done;
    for (size_t i = 0; i < old->n; i++)
        if (json_object_set_new(oldk, old->e[i].key, json_integer((json_int_t)i)) < 0)
            goto done;
    for (size_t i = 0; i < nl->n; i++)
        if (json_object_set_new(newk, nl->e[i].key, json_integer((json_int_t)i)) < 0)
            goto done;
    /* survivors in their old order, matched against the new order up to
     * the first that is out of place */
    char *keep = calloc(old->n ? old->n : 1, 1); /* old entries kept in place */
    if (!keep)
        goto done;
    size_t p = 0, j = 0;
    for (; j < nl->n; j++) {
        while (p < old->n && !json_object_get(newk, old->e[p].key))
            p++;
        if (p >= old->n || strcmp(old->e[p].key, nl->e[j].key) != 0)
            break;
        keep[p] = 1;
        if (old->e[p].hash != nl->e[j].hash
            && json_array_append(o, json_array_get(arr, j)) < 0) {
            free(keep);
            goto done;
        }
        p++;
    }
    for (; j < nl->n; j++)
        if (json_array_append(o, json_array_get(arr, j)) < 0) {
            free(keep);
            goto done;
        }
    for (size_t i = 0; i < old->n; i++) {
        if (keep[i])
            continue;
        json_t *r = kind == L_EDGES  ? json_integer((json_int_t)i)
                    : kind == L_JOBS ? json_integer(strtoll(old->e[i].key, NULL, 10))
                                     : json_string(old->e[i].key);
        if (json_array_append_new(rm, r) < 0) {
            free(keep);
            goto done;
        }
    }
    free(keep);
    *out = o;
    o = NULL;
    rc = 0;
done:
    json_decref(oldk);
    json_decref(newk);
    json_decref(o);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

/* Apply to the list base (an array, or NULL: none) the removals rm and
 * the entries ch; a new array into *out.  0, or -1 with EINVAL (err says
 * which entry is missing) or ENOMEM. */
static int list_apply(int kind, const json_t *base, const json_t *rm, const json_t *ch,
                      const char *what, json_t **out, grove_error_t *err)
{
    struct mlist bl, cl;
    if (mlist_of(kind, base, &bl) < 0)
        return grovep_errorf(err, ENOMEM, "out of memory");
    if (mlist_of(kind, ch, &cl) < 0) {
        mlist_free(&bl);
        return grovep_errorf(err, ENOMEM, "out of memory");
    }
    json_t *gone = json_object(), *chk = json_object(), *o = json_array();
    char *used = calloc(cl.n ? cl.n : 1, 1);
    int rc = -1;
    if (!gone || !chk || !o || !used) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto done;
    }
    size_t i;
    const json_t *r;
    json_array_foreach(rm, i, r) {
        char buf[32];
        const char *k = NULL;
        if (kind == L_EDGES && json_is_integer(r) && json_integer_value(r) >= 0
            && (size_t)json_integer_value(r) < bl.n)
            k = bl.e[json_integer_value(r)].key;
        else if (kind == L_NODES && json_is_string(r))
            k = json_string_value(r);
        else if (kind == L_JOBS && json_is_integer(r)) {
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(r));
            k = buf;
        }
        bool found = false;
        for (size_t b = 0; k && !found && b < bl.n; b++)
            found = !strcmp(bl.e[b].key, k);
        if (!found) {
            char *t = canon(r);
            grovep_errorf(err, EINVAL, "%s: changes.removed.%s[%zu]: %s is not in the base",
                          what, list_names[kind], i, t ? t : "?");
            free(t);
            goto done;
        }
        json_object_set_new(gone, k, json_true());
    }
    for (i = 0; i < cl.n; i++)
        json_object_set_new(chk, cl.e[i].key, json_integer((json_int_t)i));
    for (size_t b = 0; b < bl.n; b++) {
        if (json_object_get(gone, bl.e[b].key))
            continue;
        const json_t *c = json_object_get(chk, bl.e[b].key);
        size_t ci = c ? (size_t)json_integer_value(c) : 0;
        if (c)
            used[ci] = 1;
        if (json_array_append(o, c ? json_array_get(ch, ci) : json_array_get(base, b)) < 0) {
            grovep_errorf(err, ENOMEM, "out of memory");
            goto done;
        }
    }
    for (i = 0; i < cl.n; i++)
        if (!used[i] && json_array_append(o, json_array_get(ch, i)) < 0) {
            grovep_errorf(err, ENOMEM, "out of memory");
            goto done;
        }
    *out = o;
    o = NULL;
    rc = 0;
done:
    mlist_free(&bl);
    mlist_free(&cl);
    json_decref(gone);
    json_decref(chk);
    json_decref(o);
    free(used);
    return rc;
}

/* ---- marks -------------------------------------------------------------------- */

grove_mark_t *grove_mark_create(void)
{
    grove_mark_t *mk = calloc(1, sizeof(*mk));
    return grovep_or_errno(mk, ENOMEM);
}

void grove_mark_destroy(grove_mark_t *mk)
{
    if (!mk)
        return;
    for (int k = 0; k < L_COUNT; k++)
        mlist_free(&mk->l[k]);
    grove_rv1_destroy(mk->R);
    free(mk);
}

int64_t grove_mark_generation(const grove_mark_t *mk)
{
    return mk ? mk->gen : 0;
}

const char *grove_mark_kind(const grove_mark_t *mk)
{
    return mk ? kind_names[mk->kind] : NULL;
}

/* May mk take a save of kind (jflags, job)?  0, or -1 with EINVAL. */
static int mark_fits(const grove_mark_t *mk, int kind, int jflags, grove_jobid_t job, int flags,
                     grove_error_t *err)
{
    if ((flags & ~GROVE_SAVE_CHANGED) != 0)
        return grovep_errorf(err, EINVAL, "unknown save flags 0x%x", flags);
    if (!mk)
        return (flags & GROVE_SAVE_CHANGED)
                   ? grovep_errorf(err, EINVAL, "a save of what changed needs a save mark")
                   : 0;
    if (mk->kind != K_NONE && mk->kind != kind)
        return grovep_errorf(err, EINVAL,
                             "the save mark follows saves of %s, not %s (one mark a destination)",
                             kind_names[mk->kind], kind_names[kind]);
    if (mk->kind == K_JGF && mk->jflags != jflags)
        return grovep_errorf(err, EINVAL,
                             "the save mark follows JGF saves %s state and %s paths: "
                             "saves through one mark keep their options",
                             (mk->jflags & GROVE_JGF_WITH_STATE) ? "with" : "without",
                             (mk->jflags & GROVE_JGF_NO_PATHS) ? "without" : "with");
    if (mk->kind == K_R && mk->job != job)
        return grovep_errorf(err, EINVAL, "the save mark follows the R of job %" PRIu64
                                          ", not of job %" PRIu64,
                             (uint64_t)mk->job, (uint64_t)job);
    return 0;
}

/* The lists of a document of kind: nodes and edges of its graph (the
 * scheduling graph for R), jobs of its "grove". */
static void doc_lists(int kind, const json_t *doc, const json_t *lists[L_COUNT])
{
    const json_t *gr = kind == K_R ? json_object_get(json_object_get(doc, "scheduling"), "graph")
                                   : json_object_get(doc, "graph");
    lists[L_NODES] = json_object_get(gr, "nodes");
    lists[L_EDGES] = json_object_get(gr, "edges");
    lists[L_JOBS] = kind == K_STATE ? json_object_get(json_object_get(doc, "grove"), "jobs")
                                    : NULL;
}

/* The pending move of a mark: its new lists and fingerprint. */
struct pending {
    struct mlist l[L_COUNT];
    uint64_t fp;
    grove_rv1_t *R;
};

static void pending_free(struct pending *pd)
{
    for (int k = 0; k < L_COUNT; k++)
        mlist_free(&pd->l[k]);
    grove_rv1_destroy(pd->R);
}

/* Move mk to the save pd describes (pd is emptied). */
static void mark_move(grove_mark_t *mk, int kind, int jflags, grove_jobid_t job,
                      struct pending *pd)
{
    for (int k = 0; k < L_COUNT; k++) {
        mlist_free(&mk->l[k]);
        mk->l[k] = pd->l[k];
        pd->l[k] = (struct mlist){NULL, 0};
    }
    grove_rv1_destroy(mk->R);
    mk->R = pd->R;
    pd->R = NULL;
    mk->kind = kind;
    mk->jflags = jflags;
    mk->job = job;
    mk->fp = pd->fp;
    mk->gen++;
}

/* The entries and fingerprint of doc into pd.  0, or -1 with ENOMEM. */
static int pending_of(int kind, const json_t *doc, struct pending *pd)
{
    const json_t *lists[L_COUNT];
    doc_lists(kind, doc, lists);
    for (int k = 0; k < L_COUNT; k++)
        if (mlist_of(k, lists[k], &pd->l[k]) < 0)
            return -1;
    return fingerprint(doc, &pd->fp);
}

/* The "changes" header of a save after mk (generation, fingerprints,
 * removed: an object of arrays the diff fills). */
static json_t *header(const grove_mark_t *mk, int kind, const struct pending *pd, json_t *rm)
{
    char b[17], r[17];
    fp_text(mk->gen ? mk->fp : 0, b);
    fp_text(pd->fp, r);
    return json_pack("{s:i,s:s,s:I,s:s,s:s,s:O}", "format", 1, "kind", kind_names[kind],
                     "generation", (json_int_t)mk->gen + 1, "base", b, "result", r, "removed",
                     rm);
}

/* The changes of the lists of doc against mk, as a copy of graph (the
 * object holding nodes and edges; NULL: none) with only the changed
 * entries, and of jobs; removals into rm. */
static int diff_lists(const grove_mark_t *mk, int kind, const json_t *doc,
                      const struct pending *pd, json_t *rm, json_t **graph, json_t **jobs)
{
    const json_t *lists[L_COUNT];
    doc_lists(kind, doc, lists);
    const json_t *gr = kind == K_R ? json_object_get(json_object_get(doc, "scheduling"), "graph")
                                   : json_object_get(doc, "graph");
    static const struct mlist none = {NULL, 0};
    json_t *out[L_COUNT] = {NULL, NULL, NULL};
    for (int k = 0; k < L_COUNT; k++) {
        json_t *r = json_array();
        if (!r || json_object_set_new(rm, list_names[k], r) < 0
            || list_diff(k, mk->kind == kind ? &mk->l[k] : &none, &pd->l[k], lists[k], &out[k],
                         r) < 0) {
            for (int x = 0; x < L_COUNT; x++)
                json_decref(out[x]);
            return -1;
        }
    }
    *graph = gr ? shallow(gr) : NULL;
    if (*graph) {
        json_object_set_new(*graph, "nodes", out[L_NODES]);
        json_object_set_new(*graph, "edges", out[L_EDGES]);
    } else {
        json_decref(out[L_NODES]);
        json_decref(out[L_EDGES]);
    }
    *jobs = out[L_JOBS];
    return (gr && !*graph) ? -1 : 0;
}

/* ---- JGF and state files ------------------------------------------------------- */

/* The changes document of doc (kind K_JGF or K_STATE) against mk. */
static json_t *doc_changes(const grove_mark_t *mk, int kind, const json_t *doc,
                           const struct pending *pd)
{
    json_t *rm = json_object(), *graph = NULL, *jobs = NULL, *out = NULL;
    if (!rm || diff_lists(mk, kind, doc, pd, rm, &graph, &jobs) < 0)
        goto done;
    out = json_object();
    json_t *h = header(mk, kind, pd, rm);
    if (!out || !h || json_object_set_new(out, "changes", h) < 0
        || json_object_set_new(out, "graph", graph ? graph : json_object()) < 0) {
        graph = NULL;
        goto fail;
    }
    graph = NULL;
    const json_t *gv = json_object_get(doc, "grove");
    if (kind == K_STATE && gv) {
        json_t *g2 = shallow(gv);
        if (!g2 || (jobs && json_object_set(g2, "jobs", jobs) < 0)
            || json_object_set_new(out, "grove", g2) < 0)
            goto fail;
    }
    goto done;
fail:
    json_decref(out);
    out = NULL;
done:
    json_decref(rm);
    json_decref(graph);
    json_decref(jobs);
    return grovep_or_errno(out, ENOMEM);
}

/* Text of a whole document (full) or its changes against mk; on success
 * *pd holds the mark's move (when mk).  NULL with errno, err filled. */
static char *save_text(int kind, char *full, int jflags, int flags, const grove_mark_t *mk,
                       struct pending *pd, grove_error_t *err)
{
    if (!mk)
        return full;
    json_error_t je;
    json_t *doc = json_loads(full, 0, &je);
    json_t *ch = NULL;
    char *text = NULL;
    if (!doc || pending_of(kind, doc, pd) < 0)
        goto fail;
    if (!(flags & GROVE_SAVE_CHANGED)) {
        json_decref(doc);
        return full;
    }
    if (!(ch = doc_changes(mk, kind, doc, pd)))
        goto fail;
    text = json_dumps(ch, JSON_PRESERVE_ORDER
                              | ((jflags & GROVE_JGF_COMPACT) ? JSON_COMPACT : JSON_INDENT(1)));
    if (!text)
        goto fail;
    json_decref(ch);
    json_decref(doc);
    free(full);
    return text;
fail:
    json_decref(ch);
    json_decref(doc);
    free(full);
    grovep_errorf(err, ENOMEM, "out of memory");
    return NULL;
}

char *grove_jgf_save(const grove_graph_t *g, int jgf_flags, int flags, grove_mark_t *mk,
                     grove_error_t *err)
{
    grove_error_clear(err);
    int content = jgf_flags & (GROVE_JGF_WITH_STATE | GROVE_JGF_NO_PATHS);
    if (!g) {
        grovep_errorf(err, EINVAL, "JGF save: no graph");
        return NULL;
    }
    if (mark_fits(mk, K_JGF, content, 0, flags, err) < 0)
        return NULL;
    char *full = grove_jgf_write(g, jgf_flags);
    if (!full) {
        grovep_errorf(err, ENOMEM, "out of memory");
        return NULL;
    }
    struct pending pd = {0};
    char *text = save_text(K_JGF, full, jgf_flags, flags, mk, &pd, err);
    if (text && mk)
        mark_move(mk, K_JGF, content, 0, &pd);
    pending_free(&pd);
    return text;
}

int grove_state_save(const char *path, const grove_graph_t *g, const grove_matcher_t *m,
                     const grove_acquire_t *a, int flags, grove_mark_t *mk, grove_error_t *err)
{
    grove_error_clear(err);
    if (!path || !g || (m && grove_matcher_graph(m) != g) || (a && grove_acquire_graph(a) != g))
        return grovep_errorf(err, EINVAL, "state file: bad arguments");
    if (mark_fits(mk, K_STATE, 0, 0, flags, err) < 0)
        return -1;
    char *full = grovep_state_text(g, m, a, err);
    if (!full)
        return -1;
    struct pending pd = {0};
    char *text = save_text(K_STATE, full, GROVE_JGF_COMPACT, flags, mk, &pd, err);
    int rc = text ? grovep_write_atomic(path, "state file", text, strlen(text), err) : -1;
    if (rc == 0 && mk)
        mark_move(mk, K_STATE, 0, 0, &pd);
    pending_free(&pd);
    free(text);
    return rc;
}

/* ---- a child's R ------------------------------------------------------------------ */

/* R (or NULL) as JSON, null when it has no ranks. */
static json_t *r_or_null(const grove_rv1_t *R)
{
    if (!R || grove_rv1_rank_count(R) == 0)
        return json_null();
    return grove_rv1_to_json(R, GROVE_RV1_NO_SCHEDULING);
}

static json_t *r_changes(const grove_mark_t *mk, const json_t *doc, const grove_rv1_t *R,
                         const struct pending *pd, grove_error_t *err)
{
    grove_rv1_t *add = NULL, *del = NULL;
    if (mk->R && (!(add = grove_rv1_difference(R, mk->R, err))
                  || !(del = grove_rv1_difference(mk->R, R, err)))) {
        grove_rv1_destroy(add);
        return NULL;
    }
    json_t *rm = json_object(), *graph = NULL, *jobs = NULL, *out = NULL;
    if (!rm || diff_lists(mk, K_R, doc, pd, rm, &graph, &jobs) < 0)
        goto nomem;
    json_t *h = header(mk, K_R, pd, rm);
    if (h)
        json_object_set_new(h, "job", json_integer((json_int_t)mk->job));
    const json_t *ex = json_object_get(doc, "execution");
    out = json_pack("{s:o,s:o,s:o,s:O,s:O}", "changes", h, "added",
                    r_or_null(mk->R ? add : R), "removed", r_or_null(del), "starttime",
                    json_object_get(ex, "starttime"), "expiration",
                    json_object_get(ex, "expiration"));
    if (!out)
        goto nomem;
    /* the scheduling key as the new R has it, its graph's lists only
     * the changes */
    json_t *sc = graph ? shallow(json_object_get(doc, "scheduling")) : json_null();
    if (sc && graph && json_object_set_new(sc, "graph", graph) < 0)
        sc = NULL;
    graph = NULL;
    if (!sc || json_object_set_new(out, "scheduling", sc) < 0)
        goto nomem;
    goto done;
nomem:
    json_decref(out);
    out = NULL;
    grovep_errorf(err, ENOMEM, "out of memory");
done:
    json_decref(rm);
    json_decref(graph);
    json_decref(jobs);
    grove_rv1_destroy(add);
    grove_rv1_destroy(del);
    return out;
}

char *grove_child_save(const grove_graph_t *g, const grove_job_t *job, int flags,
                       grove_mark_t *mk, grove_error_t *err)
{
    grove_error_clear(err);
    if (!g || !job) {
        grovep_errorf(err, EINVAL, "child R save: no graph or job");
        return NULL;
    }
    if (mark_fits(mk, K_R, 0, job->id, flags, err) < 0)
        return NULL;
    grove_rv1_t *R = grove_acquire_child_resources(g, job, err);
    if (!R)
        return NULL;
    char *text = NULL;
    json_t *doc = grove_rv1_to_json(R, 0), *ch = NULL;
    struct pending pd = {0};
    if (!doc || (mk && (pending_of(K_R, doc, &pd) < 0 || !(pd.R = grove_rv1_copy(R))))) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto done;
    }
    if (mk && (flags & GROVE_SAVE_CHANGED)) {
        grove_mark_t at = *mk; /* the mark as it is, with this job */
        at.job = job->id;
        if (!(ch = r_changes(&at, doc, R, &pd, err)))
            goto done;
        text = json_dumps(ch, JSON_COMPACT | JSON_PRESERVE_ORDER);
    } else {
        text = grove_rv1_encode(R, 0);
    }
    if (!text) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto done;
    }
    if (mk)
        mark_move(mk, K_R, 0, job->id, &pd);
done:
    pending_free(&pd);
    json_decref(ch);
    json_decref(doc);
    grove_rv1_destroy(R);
    return text;
}

/* ---- applying ------------------------------------------------------------------ */

/* Check the header of a changes document: *kind, and the base's
 * fingerprint text.  0, or -1 with EINVAL. */
static int check_header(const json_t *ch, const char *what, int *kind, const char **base,
                        const char **result, grove_error_t *err)
{
    const json_t *h = json_object_get(ch, "changes");
    if (!json_is_object(h))
        return grovep_errorf(err, EINVAL, "%s: not a changes document (no \"changes\" object)",
                             what);
    const json_t *f = json_object_get(h, "format"), *k = json_object_get(h, "kind");
    const json_t *b = json_object_get(h, "base"), *r = json_object_get(h, "result");
    const json_t *rm = json_object_get(h, "removed");
    if (!json_is_integer(f) || json_integer_value(f) != 1)
        return grovep_errorf(err, EINVAL, "%s: changes.format: expected 1", what);
    *kind = json_is_string(k) ? grovep_name_index(kind_names + 1, 3, json_string_value(k)) + 1 : 0;
    if (*kind <= K_NONE)
        return grovep_errorf(err, EINVAL, "%s: changes.kind: expected \"jgf\", \"state\" or \"R\"",
                             what);
    if (!json_is_string(b) || strlen(json_string_value(b)) != 16 || !json_is_string(r)
        || strlen(json_string_value(r)) != 16)
        return grovep_errorf(err, EINVAL,
                             "%s: changes.base and changes.result: expected 16 hex digits", what);
    if (!json_is_object(rm))
        return grovep_errorf(err, EINVAL, "%s: changes.removed: expected an object", what);
    for (int l = 0; l < L_COUNT; l++) {
        const json_t *a = json_object_get(rm, list_names[l]);
        if (a && !json_is_array(a))
            return grovep_errorf(err, EINVAL, "%s: changes.removed.%s: expected an array", what,
                                 list_names[l]);
    }
    *base = json_string_value(b);
    *result = json_string_value(r);
    return 0;
}

/* The graph object of doc with its lists patched by ch's (graph object
 * gch, removals rm): a new object into *out. */
static int graph_apply(const json_t *gbase, const json_t *gch, const json_t *rm, const char *what,
                       json_t **out, grove_error_t *err)
{
    if (gch && !json_is_object(gch))
        return grovep_errorf(err, EINVAL, "%s: graph: expected an object", what);
    json_t *nodes = NULL, *edges = NULL;
    const json_t *cn = json_object_get(gch, "nodes"), *ce = json_object_get(gch, "edges");
    if ((cn && !json_is_array(cn)) || (ce && !json_is_array(ce)))
        return grovep_errorf(err, EINVAL, "%s: graph.nodes and graph.edges: expected arrays",
                             what);
    if (list_apply(L_NODES, json_object_get(gbase, "nodes"), json_object_get(rm, "nodes"), cn,
                   what, &nodes, err) < 0)
        return -1;
    if (list_apply(L_EDGES, json_object_get(gbase, "edges"), json_object_get(rm, "edges"), ce,
                   what, &edges, err) < 0) {
        json_decref(nodes);
        return -1;
    }
    json_t *g = gch ? shallow(gch) : json_object();
    if (!g || json_object_set_new(g, "nodes", nodes) < 0
        || json_object_set_new(g, "edges", edges) < 0) {
        json_decref(g);
        return grovep_errorf(err, ENOMEM, "out of memory");
    }
    *out = g;
    return 0;
}

/* A set operation of rv1.h (grove_rv1_union, grove_rv1_difference). */
typedef grove_rv1_t *rv1_setop_fn(const grove_rv1_t *a, const grove_rv1_t *b, grove_error_t *err);

/* R with the R at key of ch, when there is one, added or taken away by op:
 * the new R, R itself when key holds none, or NULL (err set).  R is
 * consumed; NULL stays NULL. */
static grove_rv1_t *r_change(grove_rv1_t *R, const json_t *ch, const char *key, rv1_setop_fn *op,
                             grove_error_t *err)
{
    const json_t *part = json_object_get(ch, key);
    if (!R || !json_is_object(part))
        return R;
    grove_rv1_t *p = grove_rv1_from_json(part, key, err);
    grove_rv1_t *t = p ? op(R, p, err) : NULL;
    grove_rv1_destroy(p);
    grove_rv1_destroy(R);
    return t;
}

/* The R a changes document of kind R makes of base. */
static json_t *r_apply(const json_t *base, const json_t *ch, const json_t *rm, const char *what,
                       grove_error_t *err)
{
    grove_rv1_t *R = grove_rv1_from_json(base, "base", err);
    json_t *out = NULL;
    R = r_change(R, ch, "removed", grove_rv1_difference, err);
    R = r_change(R, ch, "added", grove_rv1_union, err);
    if (!R)
        return NULL;
    const json_t *st = json_object_get(ch, "starttime"), *ex = json_object_get(ch, "expiration");
    grove_rv1_set_times(R, json_is_number(st) ? json_number_value(st) : 0,
                        json_is_number(ex) ? json_number_value(ex) : 0);
    const json_t *sc = json_object_get(ch, "scheduling");
    if (json_is_object(sc)) {
        json_t *g = NULL;
        const json_t *bs = json_object_get(json_object_get(base, "scheduling"), "graph");
        if (graph_apply(bs, json_object_get(sc, "graph"), rm, what, &g, err) < 0) {
            grove_rv1_destroy(R);
            return NULL;
        }
        json_t *s2 = shallow(sc);
        int rc = s2 ? json_object_set_new(s2, "graph", g) : (json_decref(g), -1);
        if (rc < 0)
            json_decref(s2);
        if (rc < 0 || grove_rv1_set_scheduling_take(R, s2) < 0) {
            grove_rv1_destroy(R);
            grovep_errorf(err, ENOMEM, "out of memory");
            return NULL;
        }
    }
    out = grove_rv1_to_json(R, 0);
    grove_rv1_destroy(R);
    if (!out)
        grovep_errorf(err, ENOMEM, "out of memory");
    return out;
}

char *grove_changes_apply(const char *base, size_t blen, const char *changes, size_t clen,
                          const char *source, grove_error_t *err)
{
    grove_error_clear(err);
    const char *what = source ? source : "changes";
    json_error_t je;
    json_t *ch = json_loadb(changes, clen, 0, &je), *b = NULL, *out = NULL;
    char *text = NULL;
    int kind = K_NONE;
    const char *bfp = NULL, *rfp = NULL;
    if (!ch) {
        grovep_errorf(err, EINVAL, "%s:%d: %s", what, je.line, je.text);
        return NULL;
    }
    if (check_header(ch, what, &kind, &bfp, &rfp, err) < 0)
        goto done;
    const json_t *rm = json_object_get(json_object_get(ch, "changes"), "removed");
    bool empty = blen == 0;
    if (empty) {
        if (strcmp(bfp, "0000000000000000") != 0) {
            grovep_errorf(err, EINVAL, "%s: the changes follow save %s, not an empty base", what,
                          bfp);
            goto done;
        }
        b = kind == K_R ? json_pack("{s:i,s:{s:[]}}", "version", 1, "execution", "R_lite")
                        : json_pack("{s:{s:[],s:[]}}", "graph", "nodes", "edges");
    } else if (!(b = json_loadb(base, blen, 0, &je))) {
        grovep_errorf(err, EINVAL, "base:%d: %s", je.line, je.text);
        goto done;
    } else if (json_object_get(b, "changes")) {
        grovep_errorf(err, EINVAL, "base: a changes document, not an entire save (apply it to "
                                   "its own base first)");
        goto done;
    } else {
        char have[17];
        int rc = fp_compare(b, bfp, have, err);
        if (rc > 0)
            grovep_errorf(err, EINVAL,
                          "%s: the changes follow save %s; the base is save %s (another save)",
                          what, bfp, have);
        if (rc != 0)
            goto done;
    }
    if (!b) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto done;
    }
    if (kind == K_R) {
        if (!(out = r_apply(b, ch, rm, what, err)))
            goto done;
    } else {
        json_t *g = NULL;
        if (graph_apply(json_object_get(b, "graph"), json_object_get(ch, "graph"), rm, what, &g,
                        err) < 0)
            goto done;
        out = json_object();
        if (!out || json_object_set_new(out, "graph", g) < 0) {
            grovep_errorf(err, ENOMEM, "out of memory");
            goto done;
        }
        const json_t *gv = json_object_get(ch, "grove");
        if (kind == K_STATE && gv) {
            json_t *jobs = NULL;
            if (!json_is_object(gv)) {
                grovep_errorf(err, EINVAL, "%s: grove: expected an object", what);
                goto done;
            }
            const json_t *cj = json_object_get(gv, "jobs");
            if (cj && !json_is_array(cj)) {
                grovep_errorf(err, EINVAL, "%s: grove.jobs: expected an array", what);
                goto done;
            }
            json_t *g2 = shallow(gv);
            if (!g2 || json_object_set_new(out, "grove", g2) < 0) {
                grovep_errorf(err, ENOMEM, "out of memory");
                goto done;
            }
            if (cj) {
                if (list_apply(L_JOBS, json_object_get(json_object_get(b, "grove"), "jobs"),
                               json_object_get(rm, "jobs"), cj, what, &jobs, err) < 0)
                    goto done;
                json_object_set_new(g2, "jobs", jobs);
            }
        }
    }
    char got[17];
    int rc = fp_compare(out, rfp, got, err);
    if (rc > 0)
        grovep_errorf(err, EINVAL, "%s: applied to its base, the changes make save %s, not %s",
                      what, got, rfp);
    if (rc != 0)
        goto done;
    if (!(text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER)))
        grovep_errorf(err, ENOMEM, "out of memory");
done:
    json_decref(ch);
    json_decref(b);
    json_decref(out);
    return text;
}
