/* acquire.c: RFC 28 resource acquisition (version 1 and current protocol).
 *
 * Problem: a scheduler's resources change under it.  The resource service
 * streams responses that grow or shrink the instance and mark execution
 * targets (broker ranks) up or down; administrators drain and exclude
 * targets.  This file keeps the per-target state as a handful of idsets,
 * writes the derived status onto the rank roots of the graph (so the
 * matcher, which skips vertices under a rank root that is not up, follows
 * it), adds the vertices of new targets, and unlinks the vertices of
 * shrunk targets once no job holds them, producing the release requests
 * and the list of jobs to raise exceptions on (see acquire.h).
 *
 * Every response is validated completely into a plan (new copies of the
 * sets, the graph of the vertices to add, property changes) before anything
 * is touched; the plan is then committed in steps that cannot fail except
 * for ENOMEM, and the ones that can are undone.  So a refused response
 * leaves the state and the graph exactly as they were.
 *
 * Workload: responses are rare (minutes apart) but may name tens of
 * thousands of targets; costs are linear in the targets named and in the
 * vertices added or removed.  Rank roots are found through the graph's
 * by-rank chains; the jobs on a target through the records of its rank
 * roots (which carry a `shared` annotation for every job holding anything
 * below) and the exclusive records of their ancestors.
 *
 * This file must not hold what a child instance is given (child.c).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_private.h"
#include "json_private.h"
#include "util.h"
#include "acquire.h"
#include "compose.h"
#include "pool.h"

/* The tag on rank roots naming the resource group that owns the target. */
#define GROUP_TAG "acquire-group"

struct grove_acquire {
    grove_graph_t *g;                 /* borrowed */
    grove_matcher_t *m;               /* borrowed; NULL: jobs from records */
    char *group;                      /* resource group of release requests */
    grove_acquire_protocol_t fixed;   /* as created (AUTO: first response decides) */
    grove_acquire_protocol_t proto;   /* in use; AUTO before the first response */
    bool started;                     /* a first response was applied */
    bool reacquire;                   /* disconnected: the next first response reconciles */
    char *failure;                    /* error response text, NULL while healthy */
    double expiration;                /* seconds since the epoch, 0 unset */
    grove_idset_t *s[GROVE_TARGETS_COUNT]; /* USABLE derived from the others */
    grove_idset_t *quiet;             /* pending targets released without a request
                                       * (dropped at a reconnect, not shrunk) */
    grove_rtopo_t *rt;                /* borrowed: the nodes' topologies, or NULL */
};

void grove_acquire_set_topology(grove_acquire_t *a, grove_rtopo_t *rt)
{
    if (a)
        a->rt = rt;
}

static const char *const set_names[GROVE_TARGETS_COUNT] = {
    "acquired", "up", "down", "drained", "excluded", "shrunk", "pending", "usable",
};

static const char *const proto_names[] = {"auto", "v1", "current"};

const char *grove_acquire_set_name(grove_acquire_set_t s)
{
    return grovep_name_of(set_names, GROVE_TARGETS_COUNT, s);
}

int grove_acquire_set_parse(const char *s)
{
    return grovep_name_index(set_names, GROVE_TARGETS_COUNT, s);
}

const char *grove_acquire_protocol_name(grove_acquire_protocol_t p)
{
    return grovep_name_of(proto_names, GROVE_ACQUIRE_CURRENT + 1, p);
}

int grove_acquire_protocol_parse(const char *s)
{
    return grovep_name_index(proto_names, GROVE_ACQUIRE_CURRENT + 1, s);
}

/* ---- life -------------------------------------------------------------------- */

grove_acquire_t *grove_acquire_create(grove_graph_t *g, grove_matcher_t *m, const char *group,
                                      grove_acquire_protocol_t proto)
{
    if (!g || (m && grove_matcher_graph(m) != g) || (unsigned)proto > GROVE_ACQUIRE_CURRENT
        || (group && !*group)) {
        errno = EINVAL;
        return NULL;
    }
    grove_acquire_t *a = grovep_zalloc(sizeof(*a));
    if (!a)
        return NULL;
    a->g = g;
    a->m = m;
    a->fixed = a->proto = proto;
    a->group = strdup(group ? group : "default");
    bool fail = !a->group;
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++)
        if (!(a->s[i] = grove_idset_create()))
            fail = true;
    if (!(a->quiet = grove_idset_create()))
        fail = true;
    if (fail)
        return GROVEP_NULL_AFTER(grove_acquire_destroy, a, ENOMEM);
    return a;
}

void grove_acquire_destroy(grove_acquire_t *a)
{
    if (!a)
        return;
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++)
        grove_idset_destroy(a->s[i]);
    grove_idset_destroy(a->quiet);
    free(a->group);
    free(a->failure);
    free(a);
}

GROVEP_GETTER(grove_graph_t *, grove_acquire_graph, grove_acquire_t, g)
GROVEP_GETTER(grove_matcher_t *, grove_acquire_matcher, grove_acquire_t, m)

const grove_idset_t *grove_acquire_targets(const grove_acquire_t *a, grove_acquire_set_t which)
{
    return (unsigned)which < GROVE_TARGETS_COUNT ? a->s[which] : NULL;
}

GROVEP_GETTER(grove_acquire_protocol_t, grove_acquire_protocol, grove_acquire_t, proto)
GROVEP_GETTER(const char *, grove_acquire_group, grove_acquire_t, group)
GROVEP_GETTER(bool, grove_acquire_started, grove_acquire_t, started)
GROVEP_GETTER(double, grove_acquire_expiration, grove_acquire_t, expiration)
GROVEP_GETTER(const char *, grove_acquire_failure, grove_acquire_t, failure)

/* ---- targets on the graph ------------------------------------------------------- */

static grove_sym_t containment(const grove_graph_t *g)
{
    return grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
}

/* Is v a rank root of rank r (its containment parent has another rank)? */
static bool is_rank_root(const grove_graph_t *g, grove_sym_t cont, grove_vid_t v, int64_t r)
{
    grove_vid_t p = cont == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_vertex_parent(g, v, cont);
    return p == GROVE_VID_NONE || grove_vertex_rank(g, p) != r;
}

size_t grove_acquire_rank_roots(const grove_graph_t *g, unsigned target, grove_vid_t *out,
                                size_t max)
{
    grove_sym_t cont = containment(g);
    size_t n = 0;
    for (grove_vid_t v = grove_graph_first_by_rank(g, target); v != GROVE_VID_NONE;
         v = grove_vertex_next_same_rank(g, v)) {
        if (!grove_graph_has_vertex(g, v) || !is_rank_root(g, cont, v, target))
            continue;
        if (n < max)
            out[n] = v;
        n++;
    }
    return n;
}

/* The rank roots of r as a new array (*n entries; NULL when none). */
static grove_vid_t *roots_of(const grove_graph_t *g, unsigned r, size_t *n)
{
    *n = grove_acquire_rank_roots(g, r, NULL, 0);
    if (*n == 0)
        return NULL;
    grove_vid_t *v = malloc(*n * sizeof(*v));
    if (v)
        grove_acquire_rank_roots(g, r, v, *n);
    else
        *n = 0;
    return v;
}

static bool has_vertices(const grove_graph_t *g, unsigned r)
{
    return grove_acquire_rank_roots(g, r, NULL, 0) > 0;
}

/* A growable list of job ids with the targets each holds. */
struct holder {
    grove_jobid_t id;
    grove_idset_t *targets;
};

struct holders {
    struct holder *h;
    size_t n, cap;
};

static void holders_free(struct holders *hs)
{
    for (size_t i = 0; i < hs->n; i++)
        grove_idset_destroy(hs->h[i].targets);
    free(hs->h);
    hs->h = NULL;
    hs->n = hs->cap = 0;
}

static int holders_add(struct holders *hs, grove_jobid_t id, unsigned target)
{
    size_t lo;
    GROVEP_LOWER_BOUND(lo, hs->n, mid, hs->h[mid].id < id);
    if (lo == hs->n || hs->h[lo].id != id) {
        if (grovep_grow((void **)&hs->h, &hs->cap, hs->n + 1, sizeof(*hs->h)) < 0)
            return -1;
        grove_idset_t *t = grove_idset_create();
        if (!t)
            return -1;
        memmove(hs->h + lo + 1, hs->h + lo, (hs->n - lo) * sizeof(*hs->h));
        hs->h[lo] = (struct holder){id, t};
        hs->n++;
    }
    return grove_idset_set(hs->h[lo].targets, target);
}

/* Add the jobs holding anything on target r to hs. */
static int jobs_of_target(const grove_graph_t *g, unsigned r, struct holders *hs)
{
    grove_sym_t cont = containment(g);
    size_t n;
    grove_vid_t *roots = roots_of(g, r, &n);
    if (n && !roots)
        return -1;
    int rc = 0;
    grove_record_t rec;
    for (size_t i = 0; i < n && rc == 0; i++) {
        for (size_t k = 0; rc == 0 && grove_vertex_record_at(g, roots[i], k, &rec) == 0; k++)
            rc = holders_add(hs, rec.job, r);
        grove_vid_t p = cont == GROVE_SYM_NONE ? GROVE_VID_NONE
                                               : grove_vertex_parent(g, roots[i], cont);
        for (; rc == 0 && p != GROVE_VID_NONE; p = grove_vertex_parent(g, p, cont))
            for (size_t k = 0; rc == 0 && grove_vertex_record_at(g, p, k, &rec) == 0; k++)
                if (rec.kind == GROVE_RECORD_ALLOC && rec.exclusive)
                    rc = holders_add(hs, rec.job, r);
    }
    free(roots);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

int grove_acquire_jobs_on(const grove_acquire_t *a, const grove_idset_t *targets,
                          grove_jobid_t **jobs, size_t *n)
{
    struct holders hs = {0};
    *jobs = NULL;
    *n = 0;
    for (unsigned r = grove_idset_first(targets); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(targets, r))
        if (jobs_of_target(a->g, r, &hs) < 0) {
            holders_free(&hs);
            errno = ENOMEM;
            return -1;
        }
    if (hs.n) {
        if (!(*jobs = malloc(hs.n * sizeof(**jobs)))) {
            holders_free(&hs);
            errno = ENOMEM;
            return -1;
        }
        for (size_t i = 0; i < hs.n; i++)
            (*jobs)[i] = hs.h[i].id;
        *n = hs.n;
    }
    holders_free(&hs);
    return 0;
}

/* The graph's expiration, the matcher's horizon, follows the resource
 * set's (whole seconds: a window ending within the last fraction would
 * end past it; 0 none). */
static void set_horizon(grove_acquire_t *a)
{
    double e = a->expiration;
    grove_graph_set_expiration(a->g, e > 0 && e < 9.0e18 ? (int64_t)floor(e) : 0);
}

/* Is job id reserved (starts later) rather than allocated? */
static bool job_reserved(const grove_acquire_t *a, grove_jobid_t id, const grove_idset_t *t)
{
    if (a->m) {
        const grove_job_t *j = grove_matcher_job(a->m, id);
        if (j)
            return j->state == GROVE_JOB_RESERVED;
    }
    /* no job table entry: from the records on the first target */
    int64_t now = grove_graph_now(a->g);
    size_t n;
    grove_vid_t *roots = roots_of(a->g, grove_idset_first(t), &n);
    bool later = n > 0;
    grove_record_t rec;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; grove_vertex_record_at(a->g, roots[i], k, &rec) == 0; k++)
            if (rec.job == id && rec.start <= now)
                later = false;
    free(roots);
    return later;
}

/* The status a target's rank roots should have. */
static grove_status_t target_status(const grove_acquire_t *a, unsigned r)
{
    if (grove_idset_test(a->s[GROVE_TARGETS_SHRUNK], r)
        || !grove_idset_test(a->s[GROVE_TARGETS_ACQUIRED], r)
        || grove_idset_test(a->s[GROVE_TARGETS_EXCLUDED], r))
        return GROVE_STATUS_EXCLUDED;
    if (grove_idset_test(a->s[GROVE_TARGETS_DOWN], r))
        return GROVE_STATUS_DOWN;
    if (grove_idset_test(a->s[GROVE_TARGETS_DRAINED], r))
        return GROVE_STATUS_DRAINED;
    return GROVE_STATUS_UP;
}

static void write_status(grove_acquire_t *a, const grove_idset_t *targets)
{
    for (unsigned r = grove_idset_first(targets); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(targets, r)) {
        grove_status_t s = target_status(a, r);
        size_t n;
        grove_vid_t *roots = roots_of(a->g, r, &n);
        for (size_t i = 0; i < n; i++)
            grove_vertex_set_status(a->g, roots[i], s);
        free(roots);
    }
}

/* USABLE = UP - DRAINED - EXCLUDED; -1 with ENOMEM (USABLE unchanged). */
static int derive(grove_idset_t **s)
{
    grove_idset_t *u = grove_idset_difference(s[GROVE_TARGETS_UP], s[GROVE_TARGETS_DRAINED]);
    if (!u || grove_idset_subtract(u, s[GROVE_TARGETS_EXCLUDED]) < 0) {
        grove_idset_destroy(u);
        errno = ENOMEM;
        return -1;
    }
    grove_idset_destroy(s[GROVE_TARGETS_USABLE]);
    s[GROVE_TARGETS_USABLE] = u;
    return 0;
}

/* ---- events ------------------------------------------------------------------------ */

static json_t *events_new(void)
{
    json_t *ev = json_object();
    if (!ev || json_object_set_new(ev, "release", json_array()) < 0
        || json_object_set_new(ev, "exceptions", json_array()) < 0
        || json_object_set_new(ev, "reservations", json_array()) < 0
        || json_object_set_new(ev, "affected", json_array()) < 0
        || json_object_set_new(ev, "removed", json_string("")) < 0
        || json_object_set_new(ev, "reevaluate", json_false()) < 0)
        return GROVEP_NULL_AFTER(json_decref, ev, ENOMEM);
    return ev;
}

/* Add {"id", "targets"[, "note"]} to events[key]. */
static int event_job(json_t *ev, const char *key, grove_jobid_t id, const grove_idset_t *t,
                     const char *note)
{
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "id", json_integer((json_int_t)id)) < 0
        || json_object_set_new(o, "targets", grovep_json_idset(t)) < 0
        || (note && json_object_set_new(o, "note", json_string(note)) < 0)
        || json_array_append_new(json_object_get(ev, key), o) < 0) {
        if (o && !json_object_get(o, "id"))
            json_decref(o);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Unlink the vertices of pending targets that no job holds; add them to
 * events.removed and (version 1) a release request.  Errors are ENOMEM
 * only; targets not handled stay pending. */
static int release_free(grove_acquire_t *a, json_t *ev)
{
    grove_idset_t *freed = grove_idset_create();
    if (!freed)
        return -1;
    const grove_idset_t *pend = a->s[GROVE_TARGETS_PENDING];
    int rc = 0;
    for (unsigned r = grove_idset_first(pend); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(pend, r)) {
        struct holders hs = {0};
        if (jobs_of_target(a->g, r, &hs) < 0) {
            rc = -1;
            break;
        }
        size_t held = hs.n;
        holders_free(&hs);
        if (held)
            continue;
        size_t n;
        grove_vid_t *roots = roots_of(a->g, r, &n);
        if (n && !roots) {
            rc = -1;
            break;
        }
        bool all = true;
        for (size_t i = 0; i < n; i++)
            if (grove_graph_has_vertex(a->g, roots[i]) && grove_graph_unlink(a->g, roots[i], false) < 0)
                all = false;
        free(roots);
        if (all && grove_idset_set(freed, r) < 0) {
            rc = -1;
            break;
        }
    }
    grove_idset_t *req_ids = NULL;
    if (!grove_idset_empty(freed)) {
        grove_idset_subtract(a->s[GROVE_TARGETS_PENDING], freed);
        json_t *ids = grovep_json_idset(freed);
        if (!ids || json_object_set_new(ev, "removed", ids) < 0)
            rc = -1;
        req_ids = grove_idset_difference(freed, a->quiet);
        if (!req_ids)
            rc = -1;
        grove_idset_subtract(a->quiet, freed);
        if (req_ids && !grove_idset_empty(req_ids) && a->proto == GROVE_ACQUIRE_V1) {
            json_t *req = json_object();
            if (!req || json_object_set_new(req, "group", json_string(a->group)) < 0
                || json_object_set_new(req, "targets", grovep_json_idset(req_ids)) < 0
                || json_array_append_new(json_object_get(ev, "release"), req) < 0)
                rc = -1;
        }
    }
    grove_idset_destroy(req_ids);
    grove_idset_destroy(freed);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

int grove_acquire_update_json(grove_acquire_t *a, json_t **events)
{
    json_t *ev = events_new();
    if (!ev)
        return -1;
    if (release_free(a, ev) < 0) {
        json_decref(ev);
        errno = ENOMEM;
        return -1;
    }
    if (events)
        *events = ev;
    else
        json_decref(ev);
    return 0;
}

static char *dump(json_t *ev)
{
    char *t = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
    return grovep_or_errno(t, ENOMEM);
}

int grove_acquire_update(grove_acquire_t *a, char **events)
{
    json_t *ev = NULL;
    if (grove_acquire_update_json(a, &ev) < 0)
        return -1;
    int rc = 0;
    if (events && !(*events = dump(ev)))
        rc = -1;
    json_decref(ev);
    return rc;
}

/* ---- the plan of a response ----------------------------------------------------------- */

struct propop {
    grove_vid_t v;
    const char *name; /* borrowed from the message */
    bool add;
    bool had;     /* for undo: the key was there before */
    char *old;    /* its old value */
};

struct plan {
    grove_idset_t *s[GROVE_TARGETS_COUNT]; /* the sets after the response */
    grove_idset_t *quiet;                  /* a->quiet after it */
    grove_acquire_protocol_t proto;        /* the protocol after it */
    bool start;                            /* a first response */
    grove_rv1_t *R;                        /* resources of a grow/first response */
    grove_idset_t *add;                    /* targets whose vertices come from R */
    grove_graph_t *tmp;                    /* R's graph, only the targets in add */
    const char *direct;                    /* R built in place into the empty graph
                                            * at commit (no tmp): the response's
                                            * name for errors; else NULL */
    grove_idset_t *shrunk;                 /* targets removed by this response */
    bool raise;                            /* exceptions on jobs of shrunk targets */
    grove_idset_t *touched;                /* targets whose status is rewritten */
    grove_idset_t *drop;                   /* never acquired: unlink at a first response */
    grove_idset_t *own;                    /* targets of a grow: tagged with the group */
    grove_idset_t *lost;                   /* targets newly down */
    struct propop *props;
    size_t nprops, propcap;
    bool set_exp;
    double exp;
    bool reevaluate;
    bool is_error;       /* an error response */
    char error[300];     /* its text */
};

static void plan_free(struct plan *p)
{
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++)
        grove_idset_destroy(p->s[i]);
    grove_rv1_destroy(p->R);
    grove_graph_destroy(p->tmp);
    GROVEP_EACH(grove_idset_destroy, grove_idset_t, p->quiet, p->add, p->shrunk, p->touched,
                p->drop, p->own, p->lost);
    for (size_t i = 0; i < p->nprops; i++)
        free(p->props[i].old);
    free(p->props);
}

static int plan_init(struct plan *p, const grove_acquire_t *a)
{
    memset(p, 0, sizeof(*p));
    p->proto = a->proto;
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++)
        if (!(p->s[i] = grove_idset_copy(a->s[i])))
            return -1;
    if (!(p->quiet = grove_idset_copy(a->quiet)))
        return -1;
    if (!(p->shrunk = grove_idset_create()) || !(p->touched = grove_idset_create())
        || !(p->lost = grove_idset_create()))
        return -1;
    return 0;
}

/* Acquisition messages do not tell integers from reals: "a number". */
static const char *jtype(const json_t *j)
{
    return json_is_number(j) ? "a number" : grovep_json_type_name(j);
}

/* The idset at msg[key] into *out (NULL when absent and optional). */
static int get_ids(const json_t *msg, const char *ctx, const char *key, bool required,
                   grove_idset_t **out, grove_error_t *err)
{
    *out = NULL;
    const json_t *v = json_object_get(msg, key);
    if (!v) {
        if (required)
            return grovep_errorf(err, EINVAL, "%s: missing key '%s'", ctx, key);
        return 0;
    }
    if (!json_is_string(v))
        return grovep_errorf(err, EINVAL, "%s: %s: expected an idset string, got %s", ctx, key,
                             jtype(v));
    grove_error_t e = {{0}, 0};
    if (!(*out = grove_idset_decode_len(json_string_value(v), json_string_length(v), &e))) {
        if (errno == ENOMEM)
            return grovep_errorf(err, ENOMEM, "%s: out of memory", ctx);
        return grovep_errorf(err, EINVAL, "%s: %s: invalid idset \"%s\": %s", ctx, key,
                             json_string_value(v), e.text);
    }
    return 0;
}

/* The first id of a that b lacks (inside false) or has (inside true), or
 * GROVE_IDSET_INVALID. */
static unsigned first_in(const grove_idset_t *a, const grove_idset_t *b, bool inside)
{
    for (unsigned r = grove_idset_first(a); r != GROVE_IDSET_INVALID; r = grove_idset_next(a, r))
        if (grove_idset_test(b, r) == inside)
            return r;
    return GROVE_IDSET_INVALID;
}

/* Every target of t must be acquired (in the plan's view). */
static int check_acquired(const struct plan *p, const grove_idset_t *t, const char *ctx,
                          const char *key, grove_error_t *err)
{
    for (unsigned r = grove_idset_first(t); r != GROVE_IDSET_INVALID; r = grove_idset_next(t, r)) {
        if (grove_idset_test(p->s[GROVE_TARGETS_ACQUIRED], r))
            continue;
        if (grove_idset_test(p->s[GROVE_TARGETS_SHRUNK], r))
            return grovep_errorf(err, ENOENT, "%s: %s: target %u was removed by shrink", ctx, key,
                                 r);
        return grovep_errorf(err, ENOENT, "%s: %s: target %u was never acquired", ctx, key, r);
    }
    return 0;
}

/* Only the keys listed (NULL-terminated) may appear in msg. */
static int check_keys(const json_t *msg, const char *ctx, const char *const *keys,
                      grove_error_t *err)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)msg, k, v) {
        bool known = false;
        for (size_t i = 0; keys[i]; i++)
            if (!strcmp(k, keys[i]))
                known = true;
        if (!known) {
            char list[256] = "";
            size_t n = 0;
            for (size_t i = 0; keys[i] && n < sizeof(list); i++)
                n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
                                      keys[i]);
            return grovep_errorf(err, EINVAL, "%s: unknown key '%s' (expected %s)", ctx, k, list);
        }
    }
    return 0;
}

/* Move ids into or out of a set of the plan. */
static int put(struct plan *p, grove_acquire_set_t s, const grove_idset_t *ids)
{
    return grove_idset_add(p->s[s], ids);
}

static int take(struct plan *p, grove_acquire_set_t s, const grove_idset_t *ids)
{
    return grove_idset_subtract(p->s[s], ids);
}

/* Mark targets shrunk in the plan: out of every set, into SHRUNK and
 * PENDING. */
static int plan_shrink(struct plan *p, const grove_idset_t *t)
{
    static const grove_acquire_set_t out[] = {GROVE_TARGETS_ACQUIRED, GROVE_TARGETS_UP,
                                              GROVE_TARGETS_DOWN, GROVE_TARGETS_DRAINED,
                                              GROVE_TARGETS_EXCLUDED};
    for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
        if (take(p, out[i], t) < 0)
            return -1;
    if (put(p, GROVE_TARGETS_SHRUNK, t) < 0 || put(p, GROVE_TARGETS_PENDING, t) < 0
        || grove_idset_add(p->shrunk, t) < 0 || grove_idset_add(p->touched, t) < 0)
        return -1;
    p->reevaluate = true;
    return 0;
}

/* Set the availability of acquired targets: up ones up, down ones down. */
static int plan_mark(struct plan *p, const grove_idset_t *t, bool up)
{
    if (!up) {
        grove_idset_t *fresh = grove_idset_difference(t, p->s[GROVE_TARGETS_DOWN]);
        int rc = fresh ? grove_idset_add(p->lost, fresh) : -1;
        grove_idset_destroy(fresh);
        if (rc < 0)
            return -1;
    }
    if (put(p, up ? GROVE_TARGETS_UP : GROVE_TARGETS_DOWN, t) < 0
        || take(p, up ? GROVE_TARGETS_DOWN : GROVE_TARGETS_UP, t) < 0
        || grove_idset_add(p->touched, t) < 0)
        return -1;
    return 0;
}

static int oom(grove_error_t *err)
{
    return grovep_errorf(err, ENOMEM, "acquire: out of memory");
}

/* ---- resources: R to the vertices to add ------------------------------------------------- */

/* Decode resources into p->R and its ranks; check online/up-like sets
 * against them in the callers. */
static int plan_resources(struct plan *p, const json_t *msg, const char *ctx,
                          grove_idset_t **ranks, grove_error_t *err)
{
    const json_t *res = json_object_get(msg, "resources");
    if (!res)
        return grovep_errorf(err, EINVAL, "%s: missing key 'resources'", ctx);
    if (!json_is_object(res))
        return grovep_errorf(err, EINVAL, "%s: resources: expected an R object, got %s", ctx,
                             jtype(res));
    grove_error_t e = {{0}, 0};
    if (!(p->R = grove_rv1_from_json(res, NULL, &e)))
        return errno == ENOMEM ? oom(err)
                               : grovep_errorf(err, EINVAL, "%s: resources: %s", ctx, e.text);
    if (!(*ranks = grove_rv1_ranks(p->R)))
        return oom(err);
    return 0;
}

/* The containment path of v in g (new string), or NULL. */
static char *path_of(const grove_graph_t *g, grove_vid_t v, grove_sym_t cont)
{
    int n = grove_vertex_path(g, v, cont, NULL, 0);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        grove_vertex_path(g, v, cont, s, (size_t)n + 1);
    return s;
}

/* Build p->tmp: R's graph with only the targets of p->add, its root named
 * as the graph's when both are of one type.  Checks that every target to
 * add has vertices there and that none of their rank roots sits at a path
 * the graph already uses. */
/* Leave out of t, the graph of an R, the ranks its scheduling graph gives
 * vertices but its R_lite does not hold: flux-core's resource module
 * takes the ranks of resource.exclude out of R_lite and leaves the
 * scheduling key whole.  0, or -1 (ENOMEM). */
static int leave_out_unheld(grove_graph_t *t, const grove_idset_t *ranks)
{
    grove_idset_t *extra = grove_idset_create();
    if (!extra)
        return -1;
    size_t slots = grove_graph_vertex_slots(t);
    for (grove_vid_t v = 0; v < slots; v++) {
        if (!grove_graph_has_vertex(t, v))
            continue;
        int64_t r = grove_vertex_rank(t, v);
        if (r < 0 || r > (int64_t)GROVE_IDSET_MAX_ID || grove_idset_test(ranks, (unsigned)r))
            continue;
        if (grove_idset_set(extra, (unsigned)r) < 0) {
            grove_idset_destroy(extra);
            return -1;
        }
    }
    for (unsigned r = grove_idset_first(extra); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(extra, r)) {
        size_t n;
        grove_vid_t *roots = roots_of(t, r, &n);
        if (n && !roots) {
            grove_idset_destroy(extra);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            if (grove_graph_has_vertex(t, roots[i]))
                grove_graph_unlink(t, roots[i], true);
        free(roots);
    }
    grove_idset_destroy(extra);
    return 0;
}

static int plan_graph(struct plan *p, const grove_acquire_t *a, const grove_idset_t *ranks,
                      const char *ctx, grove_error_t *err)
{
    if (grove_idset_empty(p->add))
        return 0;
    if (grove_graph_vertex_count(a->g) == 0 && grove_rv1_builds_in_place(p->R)) {
        /* the first resource set of an empty graph: every target of R is
         * added and nothing can clash, so R is built once, into the graph
         * itself, at commit (a graph of R merged in would make every
         * vertex twice) */
        p->direct = ctx;
        return 0;
    }
    grove_error_t e = {{0}, 0};
    if (!(p->tmp = grove_rv1_to_graph_topo(p->R, a->rt, &e)))
        return errno == ENOMEM ? oom(err)
                               : grovep_errorf(err, EINVAL, "%s: resources: %s", ctx, e.text);
    grove_graph_t *t = p->tmp;
    if (leave_out_unheld(t, ranks) < 0)
        return oom(err);
    for (unsigned r = grove_idset_first(ranks); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(ranks, r)) {
        size_t n;
        grove_vid_t *roots = roots_of(t, r, &n);
        if (n && !roots)
            return oom(err);
        if (grove_idset_test(p->add, r)) {
            free(roots);
            if (n == 0)
                return grovep_errorf(err, EINVAL, "%s: resources: target %u has no vertices", ctx,
                                     r);
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (grove_graph_has_vertex(t, roots[i]))
                grove_graph_unlink(t, roots[i], true);
        free(roots);
    }
    grove_sym_t gc = containment(a->g), tc = containment(t);
    grove_vid_t groot = gc == GROVE_SYM_NONE && grove_graph_vertex_count(a->g) == 0
                            ? GROVE_VID_NONE
                            : grove_graph_root(a->g, gc, 0);
    grove_vid_t troot = grove_graph_root(t, tc, 0);
    if (troot == GROVE_VID_NONE)
        return grovep_errorf(err, EINVAL, "%s: resources: the graph of R has no root", ctx);
    if (groot != GROVE_VID_NONE
        && !strcmp(grove_vertex_type(a->g, groot), grove_vertex_type(t, troot))
        && strcmp(grove_vertex_name(a->g, groot), grove_vertex_name(t, troot)) != 0
        && grove_vertex_set_name(t, troot, grove_vertex_name(a->g, groot)) < 0)
        return oom(err);
    if (groot == GROVE_VID_NONE)
        return 0;
    bool same_root = !strcmp(grove_vertex_name(a->g, groot), grove_vertex_name(t, troot))
                     && !strcmp(grove_vertex_type(a->g, groot), grove_vertex_type(t, troot));
    char *gpath = same_root ? NULL : path_of(a->g, groot, gc);
    if (!same_root && !gpath)
        return oom(err);
    for (unsigned r = grove_idset_first(p->add); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(p->add, r)) {
        size_t n;
        grove_vid_t *roots = roots_of(t, r, &n);
        for (size_t i = 0; i < n; i++) {
            char *tp = path_of(t, roots[i], tc);
            char *full = NULL;
            if (tp && gpath && asprintf(&full, "%s%s", gpath, tp) < 0)
                full = NULL;
            const char *look = gpath ? full : tp;
            grove_vid_t clash = look && gc != GROVE_SYM_NONE
                                    ? grove_graph_find_path(a->g, gc, look)
                                    : GROVE_VID_NONE;
            if (clash != GROVE_VID_NONE) {
                grovep_errorf(
                    err, EEXIST,
                    "%s: resources: target %u would go at %s, where the graph already has "
                    "%s (rank %lld)",
                    ctx, r, look, grove_vertex_name(a->g, clash),
                    (long long)grove_vertex_rank(a->g, clash));
                free(tp);
                free(full);
                free(roots);
                free(gpath);
                return -1;
            }
            free(tp);
            free(full);
        }
        free(roots);
    }
    free(gpath);
    return 0;
}

/* The group that owns target r on g (the tag on its rank roots, borrowed),
 * or NULL when no acquisition state has taken it.  Several states may
 * share one graph, one per resource group: each owns the targets it was
 * granted and leaves the others' alone. */
static const char *owner_of(const grove_graph_t *g, unsigned r)
{
    size_t n;
    grove_vid_t *roots = roots_of(g, r, &n);
    const char *who = NULL;
    for (size_t i = 0; i < n && !who; i++)
        if (!grove_vertex_has_tag(g, roots[i], GROUP_TAG, &who))
            who = NULL;
    free(roots);
    return who;
}

/* Is target r owned by another group than a's? */
static bool foreign(const grove_acquire_t *a, unsigned r)
{
    const char *who = owner_of(a->g, r);
    return who && strcmp(who, a->group) != 0;
}

/* Tag the rank roots of the targets with a's group.  0 or -1 (ENOMEM;
 * the tags are a mark of ownership only, the state is complete). */
static int tag_owned(grove_acquire_t *a, const grove_idset_t *t)
{
    int rc = 0;
    for (unsigned r = grove_idset_first(t); r != GROVE_IDSET_INVALID; r = grove_idset_next(t, r)) {
        size_t n;
        grove_vid_t *roots = roots_of(a->g, r, &n);
        for (size_t i = 0; i < n; i++)
            if (grove_vertex_tag(a->g, roots[i], GROUP_TAG, a->group) < 0)
                rc = -1;
        free(roots);
    }
    return rc;
}

/* The targets of ranks that need vertices from R: those the graph lacks. */
static int plan_additions(struct plan *p, const grove_acquire_t *a, const grove_idset_t *ranks)
{
    if (!(p->add = grove_idset_create()))
        return -1;
    for (unsigned r = grove_idset_first(ranks); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(ranks, r))
        if (!has_vertices(a->g, r) && grove_idset_set(p->add, r) < 0)
            return -1;
    return 0;
}

/* At a first response: ranks of the graph that R does not name. */
static int plan_drop(struct plan *p, const grove_acquire_t *a, const grove_idset_t *ranks)
{
    if (!(p->drop = grove_idset_create()))
        return -1;
    size_t slots = grove_graph_vertex_slots(a->g);
    for (grove_vid_t v = 0; v < slots; v++) {
        if (!grove_graph_has_vertex(a->g, v))
            continue;
        int64_t r = grove_vertex_rank(a->g, v);
        if (r < 0 || r > (int64_t)GROVE_IDSET_MAX_ID || grove_idset_test(ranks, (unsigned)r))
            continue;
        if (grove_idset_test(p->s[GROVE_TARGETS_ACQUIRED], (unsigned)r)
            || grove_idset_test(p->s[GROVE_TARGETS_SHRUNK], (unsigned)r))
            continue; /* reconciled as shrunk by the caller */
        if (foreign(a, (unsigned)r))
            continue; /* another group's */
        if (grove_idset_set(p->drop, (unsigned)r) < 0)
            return -1;
    }
    return 0;
}

/* A first response or grow over ranks, with online/up targets `up`: the
 * sets and the graph work of it. */
static int plan_acquire(struct plan *p, const grove_acquire_t *a, const grove_idset_t *ranks,
                        const grove_idset_t *up, bool first, const char *ctx, grove_error_t *err)
{
    if (first && a->reacquire) {
        /* reconnect: acquired targets not named any more leave quietly */
        grove_idset_t *gone = grove_idset_difference(p->s[GROVE_TARGETS_ACQUIRED], ranks);
        if (!gone || plan_shrink(p, gone) < 0 || grove_idset_add(p->quiet, gone) < 0) {
            grove_idset_destroy(gone);
            return oom(err);
        }
        grove_idset_destroy(gone);
        /* what is named and was acquired is kept as it is */
    } else {
        for (unsigned r = grove_idset_first(ranks); r != GROVE_IDSET_INVALID;
             r = grove_idset_next(ranks, r))
            if (grove_idset_test(p->s[GROVE_TARGETS_ACQUIRED], r))
                return grovep_errorf(err, EEXIST, "%s: target %u is already acquired", ctx, r);
    }
    for (unsigned r = grove_idset_first(ranks); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(ranks, r))
        if (foreign(a, r))
            return grovep_errorf(err, EEXIST, "%s: target %u belongs to resource group '%s'",
                                 ctx, r, owner_of(a->g, r));
    if (!(p->own = grove_idset_copy(ranks)))
        return oom(err);
    if (first && plan_drop(p, a, ranks) < 0)
        return oom(err);
    if (plan_additions(p, a, ranks) < 0)
        return oom(err);
    if (plan_graph(p, a, ranks, ctx, err) < 0)
        return -1;
    grove_idset_t *down = grove_idset_difference(ranks, up);
    if (!down)
        return oom(err);
    int rc = 0;
    if (take(p, GROVE_TARGETS_SHRUNK, ranks) < 0 || take(p, GROVE_TARGETS_PENDING, ranks) < 0
        || grove_idset_subtract(p->quiet, ranks) < 0 || grove_idset_subtract(p->shrunk, ranks) < 0
        || put(p, GROVE_TARGETS_ACQUIRED, ranks) < 0 || plan_mark(p, up, true) < 0
        || plan_mark(p, down, false) < 0)
        rc = oom(err);
    grove_idset_destroy(down);
    double exp = grove_rv1_expiration(p->R);
    if (exp > 0) {
        p->set_exp = true;
        p->exp = exp;
    }
    p->reevaluate = true;
    p->start = p->start || first;
    return rc;
}

/* ---- version 1 --------------------------------------------------------------------------- */

static int v1_grow(struct plan *p, const grove_acquire_t *a, const json_t *msg,
                   grove_error_t *err)
{
    static const char *const keys[] = {"type", "resources", "online", "offline", NULL};
    grove_idset_t *ranks = NULL, *on = NULL, *off = NULL;
    int rc = -1;
    unsigned bad;
    if (check_keys(msg, "grow", keys, err) < 0 || plan_resources(p, msg, "grow", &ranks, err) < 0
        || get_ids(msg, "grow", "online", true, &on, err) < 0
        || get_ids(msg, "grow", "offline", true, &off, err) < 0)
        goto out;
    if ((bad = first_in(on, ranks, false)) != GROVE_IDSET_INVALID)
        grovep_errorf(err, EINVAL, "grow: online: target %u is not in resources", bad);
    else if ((bad = first_in(off, ranks, false)) != GROVE_IDSET_INVALID)
        grovep_errorf(err, EINVAL, "grow: offline: target %u is not in resources", bad);
    else if ((bad = first_in(on, off, true)) != GROVE_IDSET_INVALID)
        grovep_errorf(err, EINVAL, "grow: target %u is both online and offline", bad);
    else
        rc = plan_acquire(p, a, ranks, on, !a->started, "grow", err);
out:
    grove_idset_destroy(ranks);
    grove_idset_destroy(on);
    grove_idset_destroy(off);
    return rc;
}

/* shrink, online, offline: {"type", "targets"} */
static int v1_targets(struct plan *p, const json_t *msg, const char *type, grove_error_t *err)
{
    static const char *const keys[] = {"type", "targets", NULL};
    grove_idset_t *t = NULL;
    int rc = -1;
    if (check_keys(msg, type, keys, err) < 0 || get_ids(msg, type, "targets", true, &t, err) < 0
        || check_acquired(p, t, type, "targets", err) < 0)
        goto out;
    if (!strcmp(type, "shrink")) {
        p->raise = true;
        rc = plan_shrink(p, t);
    } else {
        rc = plan_mark(p, t, !strcmp(type, "online"));
    }
    if (rc < 0)
        oom(err);
out:
    grove_idset_destroy(t);
    return rc;
}

/* ---- errors ------------------------------------------------------------------------------ */

/* An error response: version 1's {type: "error", errnum, errstr}; today's
 * the error of the request's response as flux-core's resource module
 * gives it (flux_respond_error: an errno and an optional text), decoded as
 * {errnum, errstr}, or wrapped as {error: {errnum, errstr}} or {error:
 * TEXT}.  Both members are optional. */
static int plan_error(struct plan *p, const json_t *msg, const char *ctx, bool typed,
                      grove_error_t *err)
{
    static const char *const tkeys[] = {"type", "errnum", "errstr", NULL};
    static const char *const keys[] = {"errnum", "errstr", NULL};
    static const char *const wrapped[] = {"error", NULL};
    const json_t *inner = typed ? NULL : json_object_get(msg, "error");
    if (inner) {
        if (check_keys(msg, ctx, wrapped, err) < 0)
            return -1;
        if (json_is_string(inner)) {
            p->is_error = true;
            snprintf(p->error, sizeof(p->error), "%s", json_string_value(inner));
            return 0;
        }
        if (!json_is_object(inner))
            return grovep_errorf(err, EINVAL,
                                 "%s: expected a text or an object of errnum and errstr, got %s",
                                 ctx, jtype(inner));
        msg = inner;
    }
    if (check_keys(msg, ctx, typed ? tkeys : keys, err) < 0)
        return -1;
    const json_t *num = json_object_get(msg, "errnum");
    const json_t *str = json_object_get(msg, "errstr");
    if (num && !json_is_integer(num))
        return grovep_errorf(err, EINVAL, "%s: errnum: expected an integer, got %s", ctx,
                             jtype(num));
    if (str && !json_is_string(str))
        return grovep_errorf(err, EINVAL, "%s: errstr: expected a string, got %s", ctx, jtype(str));
    char *text = p->error;
    p->is_error = true;
    if (str && num)
        snprintf(text, sizeof(p->error), "%s (errno %lld)", json_string_value(str),
                 (long long)json_integer_value(num));
    else if (str)
        snprintf(text, sizeof(p->error), "%s", json_string_value(str));
    else if (num)
        snprintf(text, sizeof(p->error), "error %lld", (long long)json_integer_value(num));
    else
        snprintf(text, sizeof(p->error), "unspecified error");
    return 0;
}

/* ---- current protocol ---------------------------------------------------------------------- */

static bool valid_property(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (strchr("!&'\"^`|()", *s))
            return false;
    return true;
}

static int plan_props(struct plan *p, const grove_acquire_t *a, const json_t *msg,
                      const char *key, bool add, grove_error_t *err)
{
    const json_t *obj = json_object_get(msg, key);
    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return grovep_errorf(err, EINVAL, "%s: expected an object of properties, got %s", key,
                             jtype(obj));
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, name, v) {
        if (!valid_property(name))
            return grovep_errorf(err, EINVAL, "%s: invalid property name '%s'", key, name);
        grove_idset_t *t = NULL;
        char ctx[300];
        snprintf(ctx, sizeof(ctx), "%s", key);
        if (get_ids(obj, ctx, name, true, &t, err) < 0)
            return -1;
        if (check_acquired(p, t, key, name, err) < 0) {
            grove_idset_destroy(t);
            return -1;
        }
        for (unsigned r = grove_idset_first(t); r != GROVE_IDSET_INVALID;
             r = grove_idset_next(t, r)) {
            size_t n;
            grove_vid_t *roots = roots_of(a->g, r, &n);
            if (n && !roots) {
                grove_idset_destroy(t);
                return oom(err);
            }
            for (size_t i = 0; i < n; i++) {
                if (grovep_grow((void **)&p->props, &p->propcap, p->nprops + 1,
                                sizeof(*p->props))
                    < 0) {
                    free(roots);
                    grove_idset_destroy(t);
                    return oom(err);
                }
                p->props[p->nprops++] = (struct propop){roots[i], name, add, false, NULL};
            }
            free(roots);
        }
        grove_idset_destroy(t);
        p->reevaluate = true;
    }
    return 0;
}

static int plan_expiration(struct plan *p, const json_t *msg, const char *ctx,
                           grove_error_t *err)
{
    const json_t *e = json_object_get(msg, "expiration");
    if (!e)
        return 0;
    if (!json_is_number(e))
        return grovep_errorf(err, EINVAL, "%s: expiration: expected a number, got %s", ctx,
                             jtype(e));
    double t = json_number_value(e);
    if (!isfinite(t) || t < 0 || t > GROVE_TIME_REAL_MAX)
        return grovep_errorf(err, EINVAL,
                             "%s: expiration: must be a number from 0 to 2^53 seconds, got %g", ctx,
                             t);
    p->set_exp = true;
    p->exp = t;
    p->reevaluate = true;
    return 0;
}

static int cur_first(struct plan *p, const grove_acquire_t *a, const json_t *msg,
                     grove_error_t *err)
{
    static const char *const keys[] = {"resources", "up", "down", "expiration", NULL};
    const char *ctx = "first response";
    grove_idset_t *ranks = NULL, *up = NULL, *down = NULL;
    int rc = -1;
    unsigned bad;
    if (check_keys(msg, ctx, keys, err) < 0 || plan_resources(p, msg, ctx, &ranks, err) < 0
        || get_ids(msg, ctx, "up", true, &up, err) < 0
        || get_ids(msg, ctx, "down", false, &down, err) < 0)
        goto out;
    if ((bad = first_in(up, ranks, false)) != GROVE_IDSET_INVALID)
        grovep_errorf(err, EINVAL, "%s: up: target %u is not in resources", ctx, bad);
    else if (down && (bad = first_in(down, ranks, false)) != GROVE_IDSET_INVALID)
        grovep_errorf(err, EINVAL, "%s: down: target %u is not in resources", ctx, bad);
    else if (down && (bad = first_in(up, down, true)) != GROVE_IDSET_INVALID)
        grovep_errorf(err, EINVAL, "%s: target %u is both up and down", ctx, bad);
    else if (plan_acquire(p, a, ranks, up, true, ctx, err) == 0)
        rc = plan_expiration(p, msg, ctx, err);
out:
    grove_idset_destroy(ranks);
    grove_idset_destroy(up);
    grove_idset_destroy(down);
    return rc;
}

static int cur_update(struct plan *p, const grove_acquire_t *a, const json_t *msg,
                      grove_error_t *err)
{
    static const char *const keys[] = {"up",          "down",            "shrink",
                                       "property-add", "property-remove", "expiration",
                                       NULL};
    const char *ctx = "response";
    grove_idset_t *up = NULL, *down = NULL, *shrink = NULL;
    int rc = -1;
    if (json_object_size(msg) == 0) {
        grovep_errorf(err, EINVAL,
                      "response: empty: expected one or more of up, down, shrink, "
                      "property-add, property-remove, expiration");
        goto out;
    }
    if (check_keys(msg, ctx, keys, err) < 0 || get_ids(msg, ctx, "up", false, &up, err) < 0
        || get_ids(msg, ctx, "down", false, &down, err) < 0
        || get_ids(msg, ctx, "shrink", false, &shrink, err) < 0
        || (up && check_acquired(p, up, ctx, "up", err) < 0)
        || (down && check_acquired(p, down, ctx, "down", err) < 0)
        || (shrink && check_acquired(p, shrink, ctx, "shrink", err) < 0))
        goto out;
    /* properties name acquired targets, checked before shrink takes any */
    if (plan_props(p, a, msg, "property-add", true, err) < 0
        || plan_props(p, a, msg, "property-remove", false, err) < 0
        || plan_expiration(p, msg, ctx, err) < 0)
        goto out;
    /* up, then down (down wins where both name a target), then shrink,
     * which takes precedence over both */
    if ((up && plan_mark(p, up, true) < 0) || (down && plan_mark(p, down, false) < 0)
        || (shrink && plan_shrink(p, shrink) < 0)) {
        oom(err);
        goto out;
    }
    rc = 0;
out:
    grove_idset_destroy(up);
    grove_idset_destroy(down);
    grove_idset_destroy(shrink);
    return rc;
}

/* ---- commit ------------------------------------------------------------------------------- */

/* Add the vertices of p->tmp to the graph, or build R into it (p->direct).
 * 0, or -1 (ENOMEM, or EINVAL for an R refused in the build; the graph
 * keeps at most unused dead slots). */
static int commit_graph(grove_acquire_t *a, struct plan *p, grove_error_t *err)
{
    if (p->direct) {
        grove_error_t e = {{0}, 0};
        if (grove_rv1_build_topo(a->g, p->R, a->rt, &e) == 0)
            return 0;
        return errno == ENOMEM ? oom(err)
                               : grovep_errorf(err, EINVAL, "%s: resources: %s", p->direct, e.text);
    }
    if (!p->tmp)
        return 0;
    grove_graph_t *g = a->g, *t = p->tmp;
    grove_sym_t tc = containment(t);
    grove_vid_t troot = grove_graph_root(t, tc, 0);
    grove_vid_t made = GROVE_VID_NONE;
    const char *at = NULL;
    char *gpath = NULL;
    if (grove_graph_vertex_count(g) == 0) {
        /* an empty graph: plant R's root so the two hierarchies meet */
        grove_vertex_info_t info;
        grove_vertex_info_init(&info);
        char uuid[37];
        grove_vertex_uuid(t, troot, uuid);
        info.type = grove_vertex_type(t, troot);
        info.basename = grove_vertex_basename(t, troot);
        info.name = grove_vertex_name(t, troot);
        info.id = grove_vertex_id(t, troot);
        info.rank = grove_vertex_rank(t, troot);
        info.size = grove_vertex_size(t, troot);
        info.unit = grove_vertex_unit(t, troot);
        info.uuid = uuid;
        if (grove_graph_sym(g, GROVE_CONTAINMENT) == GROVE_SYM_NONE
            || (made = grove_graph_add_vertex(g, &info)) == GROVE_VID_NONE)
            return oom(err);
        const char *k, *v;
        for (size_t i = 0; grove_vertex_property_at(t, troot, i, &k, &v) == 0; i++)
            if (grove_vertex_set_property(g, made, k, v) < 0)
                goto fail;
    } else {
        grove_sym_t gc = containment(g);
        grove_vid_t groot = grove_graph_root(g, gc, 0);
        if (groot != GROVE_VID_NONE
            && (strcmp(grove_vertex_name(g, groot), grove_vertex_name(t, troot)) != 0
                || strcmp(grove_vertex_type(g, groot), grove_vertex_type(t, troot)) != 0)) {
            if (!(gpath = path_of(g, groot, gc)))
                return oom(err);
            at = gpath;
        }
    }
    grove_error_t e = {{0}, 0};
    long added = grove_graph_merge(g, t, at, &e);
    free(gpath);
    if (added < 0) {
        if (errno != ENOMEM)
            grovep_errorf(err, errno, "resources: %s", e.text);
        else
            oom(err);
        goto fail_keep_errno;
    }
    return 0;
fail:
    oom(err);
fail_keep_errno:;
    int saved = errno;
    if (made != GROVE_VID_NONE)
        grove_graph_unlink(g, made, true);
    errno = saved;
    return -1;
}

static void undo_props(grove_acquire_t *a, struct plan *p, size_t upto)
{
    while (upto-- > 0) {
        struct propop *o = &p->props[upto];
        if (o->had)
            grove_vertex_set_property(a->g, o->v, o->name, o->old ? o->old : "");
        else
            grove_vertex_remove_property(a->g, o->v, o->name);
    }
}

static int commit_props(grove_acquire_t *a, struct plan *p)
{
    for (size_t i = 0; i < p->nprops; i++) {
        struct propop *o = &p->props[i];
        const char *old = grove_vertex_property(a->g, o->v, o->name);
        o->had = old != NULL;
        if (old && !(o->old = strdup(old)))
            goto fail;
        if (o->add) {
            if (!old && grove_vertex_set_property(a->g, o->v, o->name, "") < 0)
                goto fail;
        } else if (old) {
            grove_vertex_remove_property(a->g, o->v, o->name);
        }
        continue;
    fail:
        undo_props(a, p, i);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* A reservation that lost resources (targets t): planned again by the
 * matcher when the state has one (moved: {"id", "targets", "start"}; fits
 * nowhere: removed, {"id", "targets", "dropped": true}), else only
 * reported for the caller to plan again.  0 or -1 (ENOMEM). */
static int replan_reservation(grove_acquire_t *a, grove_jobid_t id, const grove_idset_t *t,
                              json_t *ev)
{
    if (event_job(ev, "reservations", id, t, NULL) < 0)
        return -1;
    if (!a->m)
        return 0;
    const grove_job_t *j = NULL;
    int rc = grove_matcher_replan(a->m, id, &j, NULL);
    json_t *arr = json_object_get(ev, "reservations");
    json_t *o = json_array_get(arr, json_array_size(arr) - 1);
    if (rc < 0)
        return errno == ENOMEM ? -1 : 0; /* kept as it was: the caller decides */
    if (rc == 0)
        return json_object_set_new(o, "dropped", json_true());
    return json_object_set_new(o, "start", json_integer((json_int_t)j->start));
}

/* The jobs on targets (reservations included), as holders. */
static int holders_of(const grove_acquire_t *a, const grove_idset_t *t, struct holders *hs)
{
    for (unsigned r = grove_idset_first(t); r != GROVE_IDSET_INVALID; r = grove_idset_next(t, r))
        if (jobs_of_target(a->g, r, hs) < 0)
            return -1;
    return 0;
}

/* Every job that lost resources: on newly shrunk targets, exceptions
 * (version 1; "affected" under the current protocol, which raises none);
 * on newly down targets, "affected" (no exception); reservations on either
 * are planned again (replan_reservation). */
static int report_jobs(grove_acquire_t *a, struct plan *p, json_t *ev)
{
    struct holders hs = {0};
    grove_idset_t *all = grove_idset_union(p->shrunk, p->lost);
    int rc = all ? holders_of(a, all, &hs) : -1;
    for (size_t i = 0; i < hs.n && rc == 0; i++) {
        const struct holder *h = &hs.h[i];
        grove_idset_t *gone = grove_idset_intersect(h->targets, p->shrunk);
        if (!gone) {
            rc = -1;
        } else if (job_reserved(a, h->id, h->targets)) {
            rc = replan_reservation(a, h->id, h->targets, ev);
        } else if (p->raise && !grove_idset_empty(gone)) {
            char note[128];
            char *t = grove_idset_encode(gone, GROVE_IDSET_FLAG_RANGE);
            snprintf(note, sizeof(note), "resources removed from the instance (shrink %s)",
                     t ? t : "?");
            free(t);
            rc = event_job(ev, "exceptions", h->id, h->targets, note);
        } else {
            rc = event_job(ev, "affected", h->id, h->targets,
                           grove_idset_empty(gone) ? "targets down" : NULL);
        }
        grove_idset_destroy(gone);
    }
    holders_free(&hs);
    grove_idset_destroy(all);
    return rc;
}

/* Drop never-acquired ranks of the graph (first response). */
static void commit_drop(grove_acquire_t *a, struct plan *p)
{
    if (!p->drop)
        return;
    for (unsigned r = grove_idset_first(p->drop); r != GROVE_IDSET_INVALID;
         r = grove_idset_next(p->drop, r)) {
        size_t n;
        grove_vid_t *roots = roots_of(a->g, r, &n);
        for (size_t i = 0; i < n; i++)
            if (grove_graph_has_vertex(a->g, roots[i])
                && grove_graph_unlink(a->g, roots[i], false) < 0)
                grove_vertex_set_status(a->g, roots[i], GROVE_STATUS_EXCLUDED);
        free(roots);
    }
}

static int commit(grove_acquire_t *a, struct plan *p, json_t *ev, grove_error_t *err)
{
    if (p->is_error) {
        char *f = strdup(p->error);
        json_t *s = json_string(p->error);
        if (!f || !s || json_object_set_new(ev, "error", s) < 0) {
            free(f);
            return oom(err);
        }
        free(a->failure);
        a->failure = f;
        return 0;
    }
    if (derive(p->s) < 0)
        return oom(err);
    if (commit_graph(a, p, err) < 0)
        return -1;
    if (commit_props(a, p) < 0)
        return oom(err); /* the added vertices stay: unused targets' vertices, harmless */
    /* nothing below fails but for events (ENOMEM on the event list only) */
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++) {
        grove_idset_t *t = a->s[i];
        a->s[i] = p->s[i];
        p->s[i] = t;
    }
    grove_idset_t *q = a->quiet;
    a->quiet = p->quiet;
    p->quiet = q;
    a->proto = p->proto;
    if (p->start) {
        a->started = true;
        a->reacquire = false;
    }
    if (p->set_exp) {
        a->expiration = p->exp;
        set_horizon(a);
    }
    if (p->add)
        grove_idset_add(p->touched, p->add);
    write_status(a, p->touched);
    commit_drop(a, p);
    int rc = p->own ? tag_owned(a, p->own) : 0;
    if (p->reevaluate && json_object_set_new(ev, "reevaluate", json_true()) < 0)
        rc = -1;
    if (report_jobs(a, p, ev) < 0 || release_free(a, ev) < 0)
        rc = -1;
    if (rc < 0)
        oom(err); /* the state changed; the event list may be short */
    return 0;
}

/* ---- apply -------------------------------------------------------------------------------- */

int grove_acquire_apply_json(grove_acquire_t *a, const json_t *msg, json_t **events,
                             grove_error_t *err)
{
    grove_error_clear(err);
    if (events)
        *events = NULL;
    if (!msg || !json_is_object(msg))
        return grovep_errorf(err, EINVAL, "response: expected a JSON object, got %s",
                             msg ? jtype(msg) : "nothing");
    if (a->failure)
        return grovep_errorf(err, EINVAL,
                             "the acquisition ended with an error response (%s): no response is "
                             "accepted until it is restarted",
                             a->failure);
    struct plan p;
    json_t *ev = NULL;
    int rc = -1;
    if (plan_init(&p, a) < 0 || !(ev = events_new())) {
        oom(err);
        goto out;
    }
    const json_t *type = json_object_get(msg, "type");
    bool is_error = !type
                    && (json_object_get(msg, "errnum") || json_object_get(msg, "errstr")
                        || json_object_get(msg, "error"));
    if (is_error) {
        rc = plan_error(&p, msg, "error", false, err);
    } else if (type) {
        /* version 1 */
        if (!json_is_string(type)) {
            grovep_errorf(err, EINVAL, "response: type: expected a string, got %s", jtype(type));
            goto out;
        }
        const char *t = json_string_value(type);
        bool known = !strcmp(t, "grow") || !strcmp(t, "shrink") || !strcmp(t, "online")
                     || !strcmp(t, "offline") || !strcmp(t, "error");
        if (!known) {
            grovep_errorf(err, EINVAL,
                          "response: unknown type '%s' (expected grow, shrink, online, offline or "
                          "error)",
                          t);
            goto out;
        }
        if (a->proto == GROVE_ACQUIRE_CURRENT) {
            grovep_errorf(err, EINVAL,
                          "%s: a version 1 response in a session that uses the current protocol",
                          t);
            goto out;
        }
        if (!strcmp(t, "error")) {
            rc = plan_error(&p, msg, "error", true, err);
        } else {
            if (strcmp(t, "grow") != 0 && !a->started) {
                grovep_errorf(err, EINVAL,
                              "%s: no resources acquired yet (the first response must be "
                              "a grow)",
                              t);
                goto out;
            }
            p.proto = GROVE_ACQUIRE_V1;
            rc = !strcmp(t, "grow") ? v1_grow(&p, a, msg, err) : v1_targets(&p, msg, t, err);
        }
    } else {
        /* current */
        if (a->proto == GROVE_ACQUIRE_V1) {
            grovep_errorf(err, EINVAL,
                          "response: no type: a current-protocol response in a session "
                          "that uses version 1");
            goto out;
        }
        p.proto = GROVE_ACQUIRE_CURRENT;
        if (!a->started) {
            if (!json_object_get(msg, "resources")) {
                grovep_errorf(err, EINVAL,
                              "response: no resources acquired yet (the first response "
                              "must have resources and up)");
                goto out;
            }
            rc = cur_first(&p, a, msg, err);
        } else if (json_object_get(msg, "resources")) {
            grovep_errorf(err, EEXIST,
                          "response: resources were already acquired (only the first "
                          "response has resources)");
            goto out;
        } else {
            rc = cur_update(&p, a, msg, err);
        }
    }
    if (rc == 0)
        rc = commit(a, &p, ev, err);
out:;
    int saved = errno;
    plan_free(&p);
    if (rc == 0 && events)
        *events = ev;
    else
        json_decref(ev);
    errno = saved;
    return rc;
}

/* text without the commas that stand right before a closing bracket or
 * brace (blanks between), outside strings: a new string (*outlen bytes),
 * or NULL when it has none (or with ENOMEM).  Such a comma has one
 * meaning, so a response printed with one (RFC 28's grow example) is read
 * as meant; anything else that is not JSON stays refused. */
static char *drop_trailing_commas(const char *text, size_t len, size_t *outlen)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t k = 0, dropped = 0;
    bool str = false, esc = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (str) {
            if (c == '"' && !esc)
                str = false;
            esc = !esc && c == '\\';
        } else if (c == '"') {
            str = true;
        } else if (c == ',') {
            size_t j = i + 1;
            while (j < len && strchr(" \t\r\n", text[j]))
                j++;
            if (j < len && (text[j] == '}' || text[j] == ']')) {
                dropped++;
                continue;
            }
        }
        out[k++] = c;
    }
    out[k] = '\0';
    if (!dropped) {
        free(out);
        return NULL;
    }
    *outlen = k;
    return out;
}

json_t *grove_acquire_parse(const char *text, size_t len, grove_error_t *err)
{
    if (!text) {
        grovep_errorf(err, EINVAL, "response: no text");
        return NULL;
    }
    json_error_t je;
    json_t *msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (msg)
        return msg;
    size_t n;
    char *fixed = drop_trailing_commas(text, len, &n);
    if (fixed) {
        json_error_t je2;
        msg = json_loadb(fixed, n, JSON_REJECT_DUPLICATES, &je2);
        free(fixed);
        if (msg)
            return msg;
    }
    grovep_errorf(err, EINVAL, "response: invalid JSON at line %d, column %d: %s", je.line,
                  je.column, je.text);
    return NULL;
}

int grove_acquire_apply(grove_acquire_t *a, const char *text, size_t len, char **events,
                        grove_error_t *err)
{
    if (events)
        *events = NULL;
    if (!text)
        return grovep_errorf(err, EINVAL, "response: no text");
    json_t *msg = grove_acquire_parse(text, len, err);
    if (!msg)
        return -1;
    json_t *ev = NULL;
    int rc = grove_acquire_apply_json(a, msg, events ? &ev : NULL, err);
    int saved = errno;
    json_decref(msg);
    if (rc == 0 && events && !(*events = dump(ev))) {
        json_decref(ev);
        return oom(err); /* applied, but the events are lost */
    }
    json_decref(ev);
    errno = saved;
    return rc;
}

/* ---- commands ---------------------------------------------------------------------------- */

/* After drain or exclude of t: reservations there are planned again, the
 * jobs running there listed under "running" (they keep what they hold
 * until they end).  A new events object, or NULL (ENOMEM). */
static json_t *admin_events(grove_acquire_t *a, const grove_idset_t *t)
{
    json_t *ev = events_new();
    struct holders hs = {0};
    int rc = ev && json_object_set_new(ev, "running", json_array()) == 0 ? holders_of(a, t, &hs)
                                                                        : -1;
    for (size_t i = 0; i < hs.n && rc == 0; i++) {
        const struct holder *h = &hs.h[i];
        rc = job_reserved(a, h->id, h->targets) ? replan_reservation(a, h->id, h->targets, ev)
                                                : event_job(ev, "running", h->id, h->targets, NULL);
    }
    holders_free(&hs);
    if (rc < 0)
        return GROVEP_NULL_AFTER(json_decref, ev, ENOMEM);
    return ev;
}

static int admin(grove_acquire_t *a, const grove_idset_t *t, bool on, grove_acquire_set_t which,
                 const char *what, json_t **events, grove_error_t *err)
{
    grove_error_clear(err);
    if (!a->started)
        return grovep_errorf(err, EINVAL, "%s: no resources acquired yet", what);
    if (!t)
        return grovep_errorf(err, EINVAL, "%s: no targets", what);
    struct plan p;
    if (plan_init(&p, a) < 0) {
        plan_free(&p);
        return oom(err);
    }
    int rc = check_acquired(&p, t, what, "targets", err);
    if (rc == 0) {
        rc = on ? put(&p, which, t) : take(&p, which, t);
        if (rc == 0)
            rc = derive(p.s);
        if (rc < 0)
            oom(err);
    }
    if (rc == 0) {
        grove_idset_t *tmp = a->s[which];
        a->s[which] = p.s[which];
        p.s[which] = tmp;
        tmp = a->s[GROVE_TARGETS_USABLE];
        a->s[GROVE_TARGETS_USABLE] = p.s[GROVE_TARGETS_USABLE];
        p.s[GROVE_TARGETS_USABLE] = tmp;
        write_status(a, t);
        if (events && !(*events = on ? admin_events(a, t) : events_new()))
            rc = oom(err); /* done, but the events are lost */
    }
    int saved = errno;
    plan_free(&p);
    errno = saved;
    return rc;
}

int grove_acquire_drain(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                        grove_error_t *err)
{
    return admin(a, targets, on, GROVE_TARGETS_DRAINED, on ? "drain" : "undrain", NULL, err);
}

int grove_acquire_exclude(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                          grove_error_t *err)
{
    return admin(a, targets, on, GROVE_TARGETS_EXCLUDED, on ? "exclude" : "include", NULL, err);
}

int grove_acquire_drain_json(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                             json_t **events, grove_error_t *err)
{
    *events = NULL;
    return admin(a, targets, on, GROVE_TARGETS_DRAINED, on ? "drain" : "undrain", events, err);
}

int grove_acquire_exclude_json(grove_acquire_t *a, const grove_idset_t *targets, bool on,
                               json_t **events, grove_error_t *err)
{
    *events = NULL;
    return admin(a, targets, on, GROVE_TARGETS_EXCLUDED, on ? "exclude" : "include", events,
                 err);
}

int grove_acquire_disconnect(grove_acquire_t *a)
{
    free(a->failure);
    a->failure = NULL;
    if (a->started)
        a->reacquire = true;
    a->started = false;
    if (a->fixed == GROVE_ACQUIRE_AUTO && grove_idset_empty(a->s[GROVE_TARGETS_ACQUIRED])
        && grove_idset_empty(a->s[GROVE_TARGETS_SHRUNK]))
        a->proto = GROVE_ACQUIRE_AUTO;
    return 0;
}

/* ---- state as JSON ----------------------------------------------------------------------- */

json_t *grove_acquire_to_json(const grove_acquire_t *a)
{
    json_t *o = json_object();
    if (!o)
        goto fail;
    if (json_object_set_new(o, "protocol", json_string(proto_names[a->proto])) < 0
        || json_object_set_new(o, "group", json_string(a->group)) < 0
        || json_object_set_new(o, "started", json_boolean(a->started)) < 0
        || json_object_set_new(o, "reacquire", json_boolean(a->reacquire)) < 0
        || json_object_set_new(o, "failure", a->failure ? json_string(a->failure) : json_null())
               < 0
        || json_object_set_new(o, "expiration", json_real(a->expiration)) < 0)
        goto fail;
    for (int i = 0; i < GROVE_TARGETS_USABLE; i++)
        if (json_object_set_new(o, set_names[i], grovep_json_idset(a->s[i])) < 0)
            goto fail;
    if (json_object_set_new(o, "quiet", grovep_json_idset(a->quiet)) < 0)
        goto fail;
    return o;
fail:
    return GROVEP_NULL_AFTER(json_decref, o, ENOMEM);
}

int grove_acquire_from_json(grove_acquire_t *a, const json_t *st, grove_error_t *err)
{
    grove_error_clear(err);
    if (!st || !json_is_object(st))
        return grovep_errorf(err, EINVAL, "acquisition state: expected an object");
    const char *ctx = "acquisition state";
    const json_t *proto = json_object_get(st, "protocol");
    const json_t *group = json_object_get(st, "group");
    const json_t *started = json_object_get(st, "started");
    const json_t *reacq = json_object_get(st, "reacquire");
    const json_t *failure = json_object_get(st, "failure");
    const json_t *exp = json_object_get(st, "expiration");
    int pr = proto && json_is_string(proto) ? grove_acquire_protocol_parse(json_string_value(proto))
                                            : -1;
    if (pr < 0)
        return grovep_errorf(err, EINVAL, "%s: protocol: expected auto, v1 or current", ctx);
    if (!group || !json_is_string(group) || !json_string_length(group))
        return grovep_errorf(err, EINVAL, "%s: group: expected a non-empty string", ctx);
    if (!started || !json_is_boolean(started) || (reacq && !json_is_boolean(reacq)))
        return grovep_errorf(err, EINVAL, "%s: started/reacquire: expected booleans", ctx);
    if (failure && !json_is_null(failure) && !json_is_string(failure))
        return grovep_errorf(err, EINVAL, "%s: failure: expected null or a string", ctx);
    if (!exp || !json_is_number(exp) || !(json_number_value(exp) >= 0)
        || !(json_number_value(exp) <= GROVE_TIME_REAL_MAX))
        return grovep_errorf(err, EINVAL, "%s: expiration: expected a number from 0 to 2^53", ctx);
    grove_idset_t *s[GROVE_TARGETS_COUNT] = {0}, *quiet = NULL;
    char *g = strdup(json_string_value(group));
    char *f = failure && json_is_string(failure) ? strdup(json_string_value(failure)) : NULL;
    int rc = -1;
    if (!g || (failure && json_is_string(failure) && !f)) {
        oom(err);
        goto out;
    }
    for (int i = 0; i < GROVE_TARGETS_USABLE; i++)
        if (get_ids(st, ctx, set_names[i], true, &s[i], err) < 0)
            goto out;
    if (get_ids(st, ctx, "quiet", false, &quiet, err) < 0)
        goto out;
    if ((!quiet && !(quiet = grove_idset_create())) || !(s[GROVE_TARGETS_USABLE] = grove_idset_create()) || derive(s) < 0) {
        oom(err);
        goto out;
    }
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++) {
        grove_idset_t *t = a->s[i];
        a->s[i] = s[i];
        s[i] = t;
    }
    grove_idset_t *q = a->quiet;
    a->quiet = quiet;
    quiet = q;
    free(a->group);
    a->group = g;
    g = NULL;
    free(a->failure);
    a->failure = f;
    f = NULL;
    a->proto = (grove_acquire_protocol_t)pr;
    a->started = json_is_true(started);
    a->reacquire = reacq && json_is_true(reacq);
    a->expiration = json_number_value(exp); /* the graph keeps its own, saved with it */
    rc = 0;
out:
    for (int i = 0; i < GROVE_TARGETS_COUNT; i++)
        grove_idset_destroy(s[i]);
    grove_idset_destroy(quiet);
    free(g);
    free(f);
    return rc;
}
