/* jobspec.c: reading and validating job requests (RFC 14 canonical jobspec,
 * RFC 25 jobspec V1) into the request tree the matcher walks.
 *
 * Workload: one parse per submitted job, documents of a few hundred bytes to
 * a few kilobytes, read once and then walked many times by the matcher (the
 * walk only reads the arrays built here).  Input is hostile: it comes from
 * users, so every malformed document must produce one clear message and no
 * crash, however deep, wide, aliased or mis-typed it is.
 *
 * Two steps.  (1) Reading (doc.c): YAML (libyaml events) or JSON (jansson) becomes
 * one jansson document plus a "line shadow" recording where each YAML node
 * started (see doc.c), so validation can name lines.  Plain YAML
 * scalars are resolved as YAML 1.1 does (what the jobspec RFCs cite): null,
 * booleans (true/yes/on...), integers (decimal, 0x, 0o/0 octal, 0b) and
 * reals; quoted scalars are strings.  Duplicate keys, multiple documents,
 * nesting deeper than GROVE_NEST_MAX and alias expansions beyond
 * GROVE_YAML_MAX_NODES are refused.  (2) Validation walks the document once,
 * builds the vertex and task arrays and collects warnings.
 *
 * Where the references disagree, the choices are:
 *   - attributes: null is accepted (as empty) for canonical versions > 1 (the
 *     RFC 14 schema allows it and the scheduler corpus relies on it) but
 *     refused for version 1, whose RFC 25 rules require attributes.system;
 *   - count {min, max, operator, operand}: max, operator and operand come all
 *     together or not at all (the RFC 14 schema's dependencies);
 *   - an integer count may be 0 except for node, slot and core (gpu: 0 is a
 *     valid V1 request);
 *   - labels should be unique (RFC 14) but the flexible-slot requests reuse
 *     "default" for alternative slots, so a duplicate is a warning unless
 *     GROVE_JOBSPEC_UNIQUE_LABELS is given;
 *   - a task's slot that names no slot label is a warning (the corpus has
 *     valid jobspecs doing it);
 *   - unknown task keys are warnings (canonical), errors (V1);
 *   - V1 per_slot must be 1 (RFC 25 text and schema); node and slot may
 *     carry exclusive; slot children are exactly one core and at most one
 *     gpu (core >= 1, gpu >= 0).
 *
 * This file must not hold the reading of YAML or JSON text (doc.c),
 * constraint compilation (constraint.c), count
 * parsing (range.c) or anything of the matcher: it builds the request tree
 * and stops there.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limit.h" /* GROVE_NEST_MAX */
#include "error_private.h"
#include "json_private.h"
#include "util.h"
#include "jobspec.h"
#include "constraint_private.h"
#include "doc_private.h"

#define NONE ((size_t)-1)

struct grove_jobspec_resource {
    char *type;                 /* never NULL */
    char *label, *unit, *id;    /* NULL when absent */
    grove_count_t count;
    int exclusive;              /* -1 unset, 0, 1 */
    bool is_slot;               /* type == "slot" or "xor_slot" */
    bool in_slot;               /* an ancestor is a slot */
    unsigned depth;             /* 0 for top level */
    int line;                   /* 0 if unknown */
    size_t index;               /* pre-order position */
    size_t nchildren;
    size_t parent_i, child_i, next_i; /* indices while building, NONE */
    const grove_jobspec_resource_t *parent, *child, *next; /* fixed at the end */
};

struct grove_jobspec_task {
    char **argv;                /* argc strings */
    size_t argc;
    char *slot;
    grove_task_count_kind_t kind;
    uint64_t n;                 /* per_slot / per_resource count / total */
    char *type;                 /* per_resource type, else NULL */
    char *distribution;         /* NULL when absent */
    const json_t *attributes;   /* borrowed from doc, NULL when absent */
};

struct grove_jobspec {
    json_t *doc;                /* the validated document (owned) */
    int version;
    double duration;            /* seconds, 0 unset */
    grove_jobspec_resource_t *res; /* pre-order */
    size_t nres, res_cap;
    grove_jobspec_task_t *tasks;
    size_t ntasks;
    grove_constraint_t *constraint; /* NULL when none */
    const json_t *user, *system;    /* borrowed from doc */
    char *source;                   /* the name messages give it, or NULL */
    char **warnings;
    size_t nwarn, warn_cap;
};


/* ==================================================================== */
/* Validation                                                            */
/* ==================================================================== */

/* Labels seen so far: open addressing on FNV-1a, so duplicate and slot
 * lookups stay O(1) however many (alias-expanded) vertices a document has. */
typedef struct label_ent {
    const char *label; /* borrowed from the vertex; NULL = empty slot */
    bool slot;         /* some vertex of type slot carries this label */
} label_ent_t;

typedef struct vctx {
    grove_jobspec_t *js;
    const char *source;
    unsigned flags;
    const char *const *known_types;
    grove_jobspec_hint_f hint; /* the offer for a type not in known_types */
    void *hint_arg;
    grove_error_t *err;
    grovep_path_t path;
    label_ent_t *labels; /* capacity nlabels_cap (a power of two) */
    size_t nlabels, nlabels_cap;
    size_t dropped;      /* warnings beyond GROVE_JOBSPEC_MAX_WARNINGS */
} vctx_t;

#define GROVE_JOBSPEC_MAX_WARNINGS 64

static size_t label_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

/* The entry for label (existing, or the empty slot where it belongs). */
static label_ent_t *label_find(const vctx_t *c, const char *label)
{
    size_t mask = c->nlabels_cap - 1;
    for (size_t i = label_hash(label) & mask;; i = (i + 1) & mask) {
        label_ent_t *e = &c->labels[i];
        if (!e->label || strcmp(e->label, label) == 0)
            return e;
    }
}

/* Record label; *dup is set when it was already there.  -1 on ENOMEM. */
static int label_add(vctx_t *c, const char *label, bool slot, bool *dup)
{
    if (2 * (c->nlabels + 1) > c->nlabels_cap) {
        size_t cap = c->nlabels_cap ? 2 * c->nlabels_cap : 16;
        label_ent_t *old = c->labels;
        size_t oldcap = c->nlabels_cap;
        if (!(c->labels = calloc(cap, sizeof(*c->labels)))) {
            c->labels = old;
            return -1;
        }
        c->nlabels_cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].label)
                *label_find(c, old[i].label) = old[i];
        free(old);
    }
    label_ent_t *e = label_find(c, label);
    *dup = e->label != NULL;
    if (!e->label) {
        e->label = label;
        c->nlabels++;
    }
    e->slot = e->slot || slot;
    return 0;
}

#define V1(c) (((c)->flags & GROVE_JOBSPEC_V1) != 0)

static int vfail(vctx_t *c, const json_t *sh, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int vfail(vctx_t *c, const json_t *sh, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, c->err, EINVAL, c->source, grovep_line(sh), c->path.buf,
                        GROVEP_REASON_MAX);
}

static int vnomem(vctx_t *c)
{
    return grovep_error_nomem(c->err, c->source);
}

static int warn(vctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(vctx_t *c, const char *fmt, ...)
{
    grove_jobspec_t *js = c->js;
    char text[512];
    int n = 0;
    va_list ap;
    if (js->nwarn >= GROVE_JOBSPEC_MAX_WARNINGS) {
        c->dropped++;
        return 0;
    }
    if (c->path.len > 0)
        n = snprintf(text, sizeof(text), "%s: ", c->path.buf);
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
    va_end(ap);
    if (grovep_grow((void **)&js->warnings, &js->warn_cap, js->nwarn + 1, sizeof(*js->warnings))
            < 0
        || !(js->warnings[js->nwarn] = strdup(text)))
        return vnomem(c);
    js->nwarn++;
    return 0;
}

/* Every key of object o must be in allowed (NULL-terminated); report the
 * first that is not. */
static int check_keys(vctx_t *c, const json_t *o, const json_t *sh, const char *const *allowed,
                      const char *what)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)(uintptr_t)o, key, v) {
        if (!grovep_str_in(key, allowed)) {
            grovep_path_key(&c->path, key);
            return vfail(c, grovep_shadow_key(sh, key), "unknown key (%s)", what);
        }
    }
    return 0;
}

/* o[key] or NULL; when required and missing, fail naming the key. */
static const json_t *member(vctx_t *c, const json_t *o, const json_t *sh, const char *key,
                            bool required, const char *why)
{
    const json_t *v = json_object_get(o, key);
    if (!v && required) {
        size_t old = grovep_path_key(&c->path, key);
        vfail(c, sh, "required key is missing%s%s", why ? " " : "", why ? why : "");
        grovep_path_pop(&c->path, old);
    }
    return v;
}

static int need_string(vctx_t *c, const json_t *v, const json_t *sh)
{
    if (!json_is_string(v))
        return vfail(c, sh, "must be a string (got %s)", grovep_typename(v));
    return 0;
}

static char *dup_string(vctx_t *c, const json_t *v)
{
    char *s = strdup(json_string_value(v));
    if (!s)
        vnomem(c);
    return s;
}

/* A copy of the string v (shadow sh) in *out (caller frees).  0, or -1
 * after a failure (not a string, or ENOMEM). */
static int copy_string(vctx_t *c, const json_t *v, const json_t *sh, char **out)
{
    if (need_string(c, v, sh) < 0 || !(*out = dup_string(c, v)))
        return -1;
    return 0;
}

/* A positive integer (>= min) at v. */
static int need_int(vctx_t *c, const json_t *v, const json_t *sh, long long min,
                    long long *out)
{
    if (!json_is_integer(v))
        return vfail(c, sh, "must be an integer (got %s)", grovep_typename(v));
    long long n = json_integer_value(v);
    if (n < min)
        return vfail(c, sh, "must be at least %lld (got %lld)", min, n);
    *out = n;
    return 0;
}

/* ---- counts ---- */

static int count_dict(vctx_t *c, const json_t *o, const json_t *sh, grove_count_t *out)
{
    static const char *const keys[] = {"min", "max", "operator", "operand", NULL};
    const json_t *vmin, *vmax, *vop, *vopd;
    long long min, max = 0, operand = 1;
    char op = '+';
    size_t old;

    if (check_keys(c, o, sh, keys, "a count has min, max, operator and operand") < 0)
        return -1;
    if (!(vmin = member(c, o, sh, "min", true, NULL)))
        return -1;
    vmax = json_object_get(o, "max");
    vop = json_object_get(o, "operator");
    vopd = json_object_get(o, "operand");

    old = grovep_path_key(&c->path, "min");
    if (need_int(c, vmin, grovep_shadow_key(sh, "min"), 1, &min) < 0)
        return -1;
    grovep_path_pop(&c->path, old);

    if ((vmax || vop || vopd) && !(vmax && vop && vopd)) {
        const char *missing = !vmax ? "max" : !vop ? "operator" : "operand";
        old = grovep_path_key(&c->path, missing);
        return vfail(c, sh, "required key is missing (max, operator and operand go together)");
    }
    if (vmax) {
        old = grovep_path_key(&c->path, "max");
        if (need_int(c, vmax, grovep_shadow_key(sh, "max"), 1, &max) < 0)
            return -1;
        if (max < min)
            return vfail(c, grovep_shadow_key(sh, "max"),
                         "must be greater than or equal to min (%lld < %lld)", max, min);
        grovep_path_pop(&c->path, old);

        old = grovep_path_key(&c->path, "operator");
        const json_t *osh = grovep_shadow_key(sh, "operator");
        if (!json_is_string(vop))
            return vfail(c, osh, "must be a one-character string (got %s)",
                         grovep_typename(vop));
        const char *ops = json_string_value(vop);
        if (strlen(ops) != 1 || !strchr("+*^", ops[0]))
            return vfail(c, osh, "must be one of '+', '*', '^' (got '%s')", ops);
        op = ops[0];
        grovep_path_pop(&c->path, old);

        old = grovep_path_key(&c->path, "operand");
        const json_t *dsh = grovep_shadow_key(sh, "operand");
        if (need_int(c, vopd, dsh, 1, &operand) < 0)
            return -1;
        if (op != '+' && operand < 2)
            return vfail(c, dsh, "must be at least 2 for operator '%c' (got %lld)", op,
                         operand);
        grovep_path_pop(&c->path, old);
        if (op == '^' && min < 2) {
            old = grovep_path_key(&c->path, "min");
            return vfail(c, grovep_shadow_key(sh, "min"),
                         "must be at least 2 for operator '^' (got %lld)", min);
        }
    }
    grove_error_t e;
    if (grove_count_set_range(out, (uint64_t)min, vmax ? (uint64_t)max : GROVE_COUNT_INF, op,
                              (uint64_t)operand, &e) < 0)
        return vfail(c, sh, "%s", e.text);
    return 0;
}

static int count_value(vctx_t *c, const json_t *v, const json_t *sh, const char *type,
                       grove_count_t *out)
{
    size_t old = grovep_path_key(&c->path, "count");
    grove_count_set_fixed(out, 0);
    if (json_is_integer(v)) {
        long long n = json_integer_value(v);
        if (n < 0)
            return vfail(c, sh, "must not be negative (got %lld)", n);
        if (n == 0 && (strcmp(type, "node") == 0 || strcmp(type, "slot") == 0
                       || strcmp(type, "core") == 0))
            return vfail(c, sh, "must be at least 1 for a %s (got 0)", type);
        grove_count_set_fixed(out, (uint64_t)n);
    }
    else if (json_is_string(v)) {
        grove_error_t e;
        if (grove_count_parse(out, json_string_value(v), &e) < 0) {
            if (errno == ENOMEM)
                return vnomem(c);
            return vfail(c, sh, "%s", e.text);
        }
    }
    else if (json_is_object(v)) {
        if (count_dict(c, v, sh, out) < 0)
            return -1;
    }
    else
        return vfail(c, sh,
                     "must be an integer, an RFC 45 range or RFC 22 idset string, "
                     "or a mapping with min (got %s)",
                     grovep_typename(v));
    grovep_path_pop(&c->path, old);
    return 0;
}

/* ---- resources ---- */

static int vertex_new(vctx_t *c, size_t *idx)
{
    grove_jobspec_t *js = c->js;
    *idx = NONE;
    if (grovep_grow((void **)&js->res, &js->res_cap, js->nres + 1, sizeof(*js->res)) < 0)
        return vnomem(c);
    *idx = js->nres++;
    grove_jobspec_resource_t *r = &js->res[*idx];
    memset(r, 0, sizeof(*r));
    grove_count_set_fixed(&r->count, 0);
    r->exclusive = -1;
    r->index = *idx;
    r->parent_i = r->child_i = r->next_i = NONE;
    return 0;
}

static int resource_list(vctx_t *c, const json_t *list, const json_t *sh, size_t parent,
                         unsigned depth, bool in_slot);

static int resource_vertex(vctx_t *c, const json_t *v, const json_t *sh, size_t parent,
                           unsigned depth, bool in_slot, size_t *out)
{
    static const char *const keys[] = {"type", "count", "unit", "exclusive",
                                       "with", "label", "id", NULL};
    grove_jobspec_t *js = c->js;
    const json_t *t, *cnt, *x;
    size_t idx = NONE, old;

    if (!json_is_object(v))
        return vfail(c, sh, "a resource vertex must be a mapping (got %s)", grovep_typename(v));
    if (check_keys(c, v, sh, keys,
                   "a resource vertex has type, count, unit, exclusive, with, label, id")
        < 0)
        return -1;
    if (!(t = member(c, v, sh, "type", true, NULL)))
        return -1;
    old = grovep_path_key(&c->path, "type");
    if (need_string(c, t, grovep_shadow_key(sh, "type")) < 0)
        return -1;
    const char *type = json_string_value(t);
    if (type[0] == '\0')
        return vfail(c, grovep_shadow_key(sh, "type"), "must not be empty");
    bool slot = strcmp(type, "slot") == 0 || strcmp(type, "xor_slot") == 0;
    if (c->known_types && !slot && !grovep_str_in(type, c->known_types)) {
        char hint[128] = "";
        if (c->hint)
            c->hint(c->hint_arg, type, c->known_types, hint, sizeof(hint));
        hint[sizeof(hint) - 1] = '\0';
        return vfail(c, grovep_shadow_key(sh, "type"), "unknown resource type '%s'%s", type,
                     hint);
    }
    grovep_path_pop(&c->path, old);
    if (!(cnt = member(c, v, sh, "count", true, NULL)))
        return -1;

    if (vertex_new(c, &idx) < 0)
        return -1;
    grove_jobspec_resource_t *r = &js->res[idx];
    r->depth = depth;
    r->line = grovep_line(sh);
    r->parent_i = parent;
    r->in_slot = in_slot;
    /* an xor_slot is a slot that is one of its list's alternatives (the
     * reference engine's flexible jobspecs; the matcher tries each) */
    r->is_slot = slot;
    if (!(r->type = dup_string(c, t)))
        return -1;
    if (count_value(c, cnt, grovep_shadow_key(sh, "count"), type, &js->res[idx].count) < 0)
        return -1;

    static const char *const strkeys[] = {"unit", "label", "id"};
    for (int i = 0; i < 3; i++) {
        if (!(x = json_object_get(v, strkeys[i])))
            continue;
        old = grovep_path_key(&c->path, strkeys[i]);
        char *s;
        if (copy_string(c, x, grovep_shadow_key(sh, strkeys[i]), &s) < 0)
            return -1;
        r = &js->res[idx];
        if (i == 0)
            r->unit = s;
        else if (i == 1)
            r->label = s;
        else
            r->id = s;
        grovep_path_pop(&c->path, old);
    }
    r = &js->res[idx];
    if (r->is_slot && !r->label) {
        old = grovep_path_key(&c->path, "label");
        return vfail(c, sh, "required key is missing (every slot needs a label)");
    }
    if (r->label) {
        bool dup;
        if (label_add(c, r->label, r->is_slot, &dup) < 0)
            return vnomem(c);
        if (dup) {
            old = grovep_path_key(&c->path, "label");
            if (c->flags & GROVE_JOBSPEC_UNIQUE_LABELS)
                return vfail(c, grovep_shadow_key(sh, "label"),
                             "duplicate label '%s' (labels must be unique)", r->label);
            if (warn(c, "duplicate label '%s'", r->label) < 0)
                return -1;
            grovep_path_pop(&c->path, old);
        }
    }
    if ((x = json_object_get(v, "exclusive"))) {
        old = grovep_path_key(&c->path, "exclusive");
        if (!json_is_boolean(x))
            return vfail(c, grovep_shadow_key(sh, "exclusive"),
                         "must be true or false (got %s)", grovep_typename(x));
        r->exclusive = json_is_true(x) ? 1 : 0;
        grovep_path_pop(&c->path, old);
    }
    x = json_object_get(v, "with");
    if (!x && r->is_slot) {
        old = grovep_path_key(&c->path, "with");
        return vfail(c, sh, "required key is missing (a slot needs at least one resource)");
    }
    bool child_in_slot = in_slot || r->is_slot;
    if (x) {
        old = grovep_path_key(&c->path, "with");
        if (resource_list(c, x, grovep_shadow_key(sh, "with"), idx, depth + 1, child_in_slot)
            < 0)
            return -1;
        grovep_path_pop(&c->path, old);
    }
    *out = idx;
    return 0;
}

static int resource_list(vctx_t *c, const json_t *list, const json_t *sh, size_t parent,
                         unsigned depth, bool in_slot)
{
    grove_jobspec_t *js = c->js;
    size_t i, prev = NONE;
    const json_t *v;

    if (!json_is_array(list))
        return vfail(c, sh, "must be a list of resource vertices (got %s)",
                     grovep_typename(list));
    if (json_array_size(list) == 0)
        return vfail(c, sh, "must contain at least one resource vertex");
    json_array_foreach((json_t *)(uintptr_t)list, i, v) {
        size_t idx = NONE, old = grovep_path_index(&c->path, i);
        if (resource_vertex(c, v, grovep_shadow_index(sh, i), parent, depth, in_slot, &idx)
            < 0)
            return -1;
        grovep_path_pop(&c->path, old);
        if (prev != NONE)
            js->res[prev].next_i = idx;
        else if (parent != NONE)
            js->res[parent].child_i = idx;
        if (parent != NONE)
            js->res[parent].nchildren++;
        prev = idx;
    }
    return 0;
}

/* RFC 25: node>slot>core[,gpu] or slot>core[,gpu], integer counts. */
static int v1_slot(vctx_t *c, const json_t *slot, const json_t *sh)
{
    static const char *const keys[] = {"type", "count", "unit", "label",
                                       "with", "exclusive", NULL};
    static const char *const leafkeys[] = {"type", "count", "unit", NULL};
    const json_t *with, *v;
    size_t i, old, ncore = 0, ngpu = 0;

    if (check_keys(c, slot, sh, keys, "V1 allows type, count, unit, label, with, exclusive "
                                      "in a slot")
        < 0)
        return -1;
    old = grovep_path_key(&c->path, "count");
    if (!json_is_integer(json_object_get(slot, "count")))
        return vfail(c, grovep_shadow_key(sh, "count"), "must be an integer in V1");
    grovep_path_pop(&c->path, old);
    with = json_object_get(slot, "with");
    const json_t *wsh = grovep_shadow_key(sh, "with");
    grovep_path_key(&c->path, "with");
    if (json_array_size(with) > 2)
        return vfail(c, wsh, "V1 allows at most two resources in a slot (got %zu)",
                     json_array_size(with));
    json_array_foreach((json_t *)(uintptr_t)with, i, v) {
        const json_t *vsh = grovep_shadow_index(wsh, i);
        size_t o2 = grovep_path_index(&c->path, i);
        const char *type = json_string_value(json_object_get(v, "type"));
        if (strcmp(type, "core") == 0)
            ncore++;
        else if (strcmp(type, "gpu") == 0)
            ngpu++;
        else {
            grovep_path_key(&c->path, "type");
            return vfail(c, grovep_shadow_key(vsh, "type"),
                         "V1 allows only core and gpu in a slot (got '%s')", type);
        }
        if (ncore > 1 || ngpu > 1)
            return vfail(c, vsh, "V1 allows one core and at most one gpu in a slot");
        if (check_keys(c, v, vsh, leafkeys, "V1 allows type, count, unit in a core or gpu")
            < 0)
            return -1;
        grovep_path_key(&c->path, "count");
        const json_t *n = json_object_get(v, "count");
        if (!json_is_integer(n))
            return vfail(c, grovep_shadow_key(vsh, "count"), "must be an integer in V1");
        grovep_path_pop(&c->path, o2);
    }
    if (ncore == 0)
        return vfail(c, wsh, "V1 requires a core in every slot");
    grovep_path_pop(&c->path, old);
    return 0;
}

/* The one element of the array list (at shadow sh), which V1 requires,
 * entered in the path, its shadow in *esh; what (and unit, after the
 * size) say in the message what the array must hold.  NULL after a
 * failure. */
static const json_t *v1_only(vctx_t *c, const json_t *list, const json_t *sh, const char *what,
                             const char *unit, const json_t **esh)
{
    if (json_array_size(list) != 1) {
        vfail(c, sh, "V1 allows exactly %s (got %zu%s)", what, json_array_size(list), unit);
        return NULL;
    }
    *esh = grovep_shadow_index(sh, 0);
    grovep_path_index(&c->path, 0);
    return json_array_get(list, 0);
}

static int v1_resources(vctx_t *c, const json_t *res, const json_t *sh)
{
    static const char *const nodekeys[] = {"type", "count", "unit", "with", "exclusive", NULL};
    size_t old = grovep_path_key(&c->path, "resources");
    const json_t *tsh, *top = v1_only(c, res, sh, "one top-level resource", "", &tsh);
    if (!top)
        return -1;
    const char *type = json_string_value(json_object_get(top, "type"));
    if (strcmp(type, "slot") == 0) {
        if (v1_slot(c, top, tsh) < 0)
            return -1;
    }
    else if (strcmp(type, "node") == 0) {
        if (check_keys(c, top, tsh, nodekeys,
                       "V1 allows type, count, unit, with, exclusive in a node")
            < 0)
            return -1;
        size_t o2 = grovep_path_key(&c->path, "count");
        if (!json_is_integer(json_object_get(top, "count")))
            return vfail(c, grovep_shadow_key(tsh, "count"), "must be an integer in V1");
        grovep_path_pop(&c->path, o2);
        const json_t *with = json_object_get(top, "with");
        const json_t *wsh = grovep_shadow_key(tsh, "with");
        grovep_path_key(&c->path, "with");
        if (!with)
            return vfail(c, tsh, "required key is missing (a V1 node holds one slot)");
        const json_t *ssh, *slot = v1_only(c, with, wsh, "one slot in a node", " resources", &ssh);
        if (!slot)
            return -1;
        const char *st = json_string_value(json_object_get(slot, "type"));
        if (strcmp(st, "slot") != 0) {
            grovep_path_key(&c->path, "type");
            return vfail(c, grovep_shadow_key(ssh, "type"),
                         "V1 allows only a slot in a node (got '%s')", st);
        }
        if (v1_slot(c, slot, ssh) < 0)
            return -1;
    }
    else {
        grovep_path_key(&c->path, "type");
        return vfail(c, grovep_shadow_key(tsh, "type"),
                     "V1 allows only node or slot at the top level (got '%s')", type);
    }
    grovep_path_pop(&c->path, old);
    return 0;
}

/* ---- tasks ---- */

static int task_count(vctx_t *c, const json_t *o, const json_t *sh, grove_jobspec_task_t *t)
{
    static const char *const kinds[] = {"per_slot", "per_resource", "total", NULL};
    const char *key;
    const json_t *v;
    long long n;

    if (!json_is_object(o))
        return vfail(c, sh, "must be a mapping with one of per_slot, per_resource, total "
                            "(got %s)",
                     grovep_typename(o));
    if (json_object_size(o) != 1)
        return vfail(c, sh, "must have exactly one of per_slot, per_resource, total (got %zu keys)",
                     json_object_size(o));
    if (check_keys(c, o, sh, kinds, "a task count is per_slot, per_resource or total") < 0)
        return -1;
    json_object_foreach((json_t *)(uintptr_t)o, key, v) {
        const json_t *vsh = grovep_shadow_key(sh, key);
        size_t old = grovep_path_key(&c->path, key);
        if (strcmp(key, "per_resource") == 0) {
            static const char *const prkeys[] = {"type", "count", NULL};
            const json_t *pt, *pc;
            if (V1(c))
                return vfail(c, vsh, "per_resource is not allowed in V1");
            if (!json_is_object(v))
                return vfail(c, vsh, "must be a mapping with type and count (got %s)",
                             grovep_typename(v));
            if (check_keys(c, v, vsh, prkeys, "per_resource has type and count") < 0)
                return -1;
            if (!(pt = member(c, v, vsh, "type", true, NULL))
                || !(pc = member(c, v, vsh, "count", true, NULL)))
                return -1;
            size_t o2 = grovep_path_key(&c->path, "type");
            if (need_string(c, pt, grovep_shadow_key(vsh, "type")) < 0)
                return -1;
            grovep_path_pop(&c->path, o2);
            grovep_path_key(&c->path, "count");
            if (need_int(c, pc, grovep_shadow_key(vsh, "count"), 1, &n) < 0)
                return -1;
            grovep_path_pop(&c->path, o2);
            t->kind = GROVE_TASK_PER_RESOURCE;
            if (!(t->type = dup_string(c, pt)))
                return -1;
        }
        else {
            if (need_int(c, v, vsh, 1, &n) < 0)
                return -1;
            if (strcmp(key, "per_slot") == 0) {
                if (V1(c) && n != 1)
                    return vfail(c, vsh, "must be 1 in V1 (got %lld)", n);
                t->kind = GROVE_TASK_PER_SLOT;
            }
            else
                t->kind = GROVE_TASK_TOTAL;
        }
        t->n = (uint64_t)n;
        grovep_path_pop(&c->path, old);
    }
    return 0;
}

static int task_one(vctx_t *c, const json_t *o, const json_t *sh, grove_jobspec_task_t *t)
{
    static const char *const known[] = {"command", "slot", "count", "distribution",
                                        "attributes", NULL};
    static const char *const v1keys[] = {"command", "slot", "count", NULL};
    const json_t *cmd, *slot, *cnt, *x, *w;
    const char *key;
    size_t i, old;

    if (!json_is_object(o))
        return vfail(c, sh, "a task must be a mapping (got %s)", grovep_typename(o));
    if (V1(c)) {
        if (check_keys(c, o, sh, v1keys, "a V1 task has command, slot, count") < 0)
            return -1;
    }
    else {
        json_object_foreach((json_t *)(uintptr_t)o, key, x) {
            if (!grovep_str_in(key, known)) {
                old = grovep_path_key(&c->path, key);
                if (warn(c, "unknown task key (kept)") < 0)
                    return -1;
                grovep_path_pop(&c->path, old);
            }
        }
    }
    if (!(cmd = member(c, o, sh, "command", true, NULL))
        || !(slot = member(c, o, sh, "slot", true, NULL))
        || !(cnt = member(c, o, sh, "count", true, NULL)))
        return -1;

    old = grovep_path_key(&c->path, "command");
    const json_t *csh = grovep_shadow_key(sh, "command");
    if (!json_is_array(cmd))
        return vfail(c, csh, "must be a list of strings (got %s)", grovep_typename(cmd));
    if (json_array_size(cmd) == 0)
        return vfail(c, csh, "must not be empty");
    if (!(t->argv = calloc(json_array_size(cmd), sizeof(*t->argv))))
        return vnomem(c);
    json_array_foreach((json_t *)(uintptr_t)cmd, i, w) {
        size_t o2 = grovep_path_index(&c->path, i);
        if (copy_string(c, w, grovep_shadow_index(csh, i), &t->argv[i]) < 0)
            return -1;
        t->argc++;
        grovep_path_pop(&c->path, o2);
    }
    grovep_path_pop(&c->path, old);

    old = grovep_path_key(&c->path, "slot");
    if (copy_string(c, slot, grovep_shadow_key(sh, "slot"), &t->slot) < 0)
        return -1;
    grovep_path_pop(&c->path, old);

    old = grovep_path_key(&c->path, "count");
    if (task_count(c, cnt, grovep_shadow_key(sh, "count"), t) < 0)
        return -1;
    grovep_path_pop(&c->path, old);

    if ((x = json_object_get(o, "distribution"))) {
        old = grovep_path_key(&c->path, "distribution");
        if (copy_string(c, x, grovep_shadow_key(sh, "distribution"), &t->distribution) < 0)
            return -1;
        grovep_path_pop(&c->path, old);
    }
    if ((x = json_object_get(o, "attributes"))) {
        old = grovep_path_key(&c->path, "attributes");
        const json_t *ash = grovep_shadow_key(sh, "attributes");
        if (!json_is_object(x))
            return vfail(c, ash, "must be a mapping (got %s)", grovep_typename(x));
        const json_t *env = json_object_get(x, "environment");
        if (env && !json_is_object(env)) {
            grovep_path_key(&c->path, "environment");
            return vfail(c, grovep_shadow_key(ash, "environment"), "must be a mapping (got %s)",
                         grovep_typename(env));
        }
        t->attributes = x;
        grovep_path_pop(&c->path, old);
    }
    return 0;
}

static int tasks(vctx_t *c, const json_t *list, const json_t *sh)
{
    grove_jobspec_t *js = c->js;
    const json_t *v;
    size_t i, old = grovep_path_key(&c->path, "tasks");

    if (!json_is_array(list))
        return vfail(c, sh, "must be a list of tasks (got %s)", grovep_typename(list));
    if (json_array_size(list) == 0)
        return vfail(c, sh, "must contain at least one task");
    if (V1(c) && json_array_size(list) != 1)
        return vfail(c, sh, "V1 allows exactly one task (got %zu)", json_array_size(list));
    if (!(js->tasks = calloc(json_array_size(list), sizeof(*js->tasks))))
        return vnomem(c);
    json_array_foreach((json_t *)(uintptr_t)list, i, v) {
        size_t o2 = grovep_path_index(&c->path, i);
        js->ntasks++;
        if (task_one(c, v, grovep_shadow_index(sh, i), &js->tasks[i]) < 0)
            return -1;
        grovep_path_pop(&c->path, o2);
    }
    /* A task's slot should name a slot. */
    for (i = 0; i < js->ntasks; i++) {
        const label_ent_t *le = c->nlabels_cap ? label_find(c, js->tasks[i].slot) : NULL;
        if (!le || !le->label || !le->slot) {
            size_t o2 = grovep_path_index(&c->path, i);
            grovep_path_key(&c->path, "slot");
            if (warn(c, "no slot is labelled '%s'", js->tasks[i].slot) < 0)
                return -1;
            grovep_path_pop(&c->path, o2);
        }
    }
    grovep_path_pop(&c->path, old);
    return 0;
}

/* ---- attributes ---- */

static int nonneg_number(vctx_t *c, const json_t *v, const json_t *sh, double *out)
{
    if (!json_is_number(v))
        return vfail(c, sh, "must be a number of seconds (got %s)", grovep_typename(v));
    double d = json_number_value(v);
    if (isnan(d) || d < 0)
        return vfail(c, sh, "must not be negative (got %g)", d);
    if (d > GROVE_JOBSPEC_DURATION_MAX)
        return vfail(c, sh, "is too large (%g > 2^53 seconds)", d);
    *out = d;
    return 0;
}

static int system_attrs(vctx_t *c, const json_t *o, const json_t *sh)
{
    static const char *const strings[] = {"cwd", "queue", "bank", "project", NULL};
    static const char *const maps[] = {"environment", "job", "shell", "files", NULL};
    const char *key;
    const json_t *v;
    bool has_duration = false;

    json_object_foreach((json_t *)(uintptr_t)o, key, v) {
        const json_t *vsh = grovep_shadow_key(sh, key);
        size_t old = grovep_path_key(&c->path, key);
        double d;
        if (strcmp(key, "duration") == 0) {
            if (nonneg_number(c, v, vsh, &d) < 0)
                return -1;
            c->js->duration = d;
            has_duration = true;
        }
        else if (strcmp(key, "preemptible-after") == 0) {
            if (nonneg_number(c, v, vsh, &d) < 0)
                return -1;
        }
        else if (grovep_str_in(key, strings)) {
            if (need_string(c, v, vsh) < 0)
                return -1;
        }
        else if (grovep_str_in(key, maps)) {
            if (!json_is_object(v))
                return vfail(c, vsh, "must be a mapping (got %s)", grovep_typename(v));
            const json_t *opt = json_object_get(v, "options");
            if (strcmp(key, "shell") == 0 && opt && !json_is_object(opt)) {
                grovep_path_key(&c->path, "options");
                return vfail(c, grovep_shadow_key(vsh, "options"), "must be a mapping (got %s)",
                             grovep_typename(opt));
            }
        }
        else if (strcmp(key, "dependencies") == 0) {
            size_t i;
            const json_t *dep;
            if (!json_is_array(v))
                return vfail(c, vsh, "must be a list (got %s)", grovep_typename(v));
            json_array_foreach((json_t *)(uintptr_t)v, i, dep) {
                const json_t *dsh = grovep_shadow_index(vsh, i);
                size_t o2 = grovep_path_index(&c->path, i);
                if (!json_is_object(dep))
                    return vfail(c, dsh, "must be a mapping with scheme and value (got %s)",
                                 grovep_typename(dep));
                static const char *const dk[] = {"scheme", "value"};
                for (int k = 0; k < 2; k++) {
                    const json_t *s = member(c, dep, dsh, dk[k], true, NULL);
                    if (!s)
                        return -1;
                    size_t o3 = grovep_path_key(&c->path, dk[k]);
                    if (need_string(c, s, grovep_shadow_key(dsh, dk[k])) < 0)
                        return -1;
                    grovep_path_pop(&c->path, o3);
                }
                grovep_path_pop(&c->path, o2);
            }
        }
        else if (strcmp(key, "constraints") == 0) {
            if (!json_is_object(v))
                return vfail(c, vsh, "must be a mapping (got %s)", grovep_typename(v));
            c->js->constraint = grovep_constraint_compile(v, vsh, &c->path, c->source, c->err);
            if (!c->js->constraint)
                return -1;
        }
        else if (warn(c, "unknown system attribute (kept)") < 0)
            return -1;
        grovep_path_pop(&c->path, old);
    }
    if (V1(c) && !has_duration) {
        grovep_path_key(&c->path, "duration");
        return vfail(c, sh, "required key is missing (V1 requires a duration)");
    }
    return 0;
}

static int attributes(vctx_t *c, const json_t *o, const json_t *sh)
{
    static const char *const keys[] = {"user", "system", NULL};
    const json_t *user, *sys;
    size_t old = grovep_path_key(&c->path, "attributes");

    if (json_is_null(o) && c->js->version != 1 && !V1(c)) {
        grovep_path_pop(&c->path, old);
        return 0;
    }
    if (!json_is_object(o))
        return vfail(c, sh, "must be a mapping (got %s)", grovep_typename(o));
    if (check_keys(c, o, sh, keys, "attributes has only user and system") < 0)
        return -1;
    if ((user = json_object_get(o, "user"))) {
        size_t o2 = grovep_path_key(&c->path, "user");
        const json_t *ush = grovep_shadow_key(sh, "user");
        if (!json_is_object(user))
            return vfail(c, ush, "must be a mapping (got %s)", grovep_typename(user));
        if (V1(c) && json_object_size(user) == 0)
            return vfail(c, ush, "must not be empty in V1");
        c->js->user = user;
        grovep_path_pop(&c->path, o2);
    }
    sys = member(c, o, sh, "system", V1(c), "(V1 requires attributes.system.duration)");
    if (!sys && V1(c))
        return -1;
    if (sys) {
        size_t o2 = grovep_path_key(&c->path, "system");
        const json_t *ssh = grovep_shadow_key(sh, "system");
        if (!json_is_object(sys))
            return vfail(c, ssh, "must be a mapping (got %s)", grovep_typename(sys));
        if (system_attrs(c, sys, ssh) < 0)
            return -1;
        c->js->system = sys;
        grovep_path_pop(&c->path, o2);
    }
    grovep_path_pop(&c->path, old);
    return 0;
}

/* ---- the document ---- */

static int validate(vctx_t *c, const json_t *doc, const json_t *sh)
{
    static const char *const keys[] = {"version", "resources", "tasks", "attributes", NULL};
    grove_jobspec_t *js = c->js;
    const json_t *ver, *res, *tsk, *att;
    long long version;

    if (!json_is_object(doc))
        return vfail(c, sh, "a jobspec must be a mapping (got %s)", grovep_typename(doc));
    if (check_keys(c, doc, sh, keys, "a jobspec has version, resources, tasks, attributes") < 0)
        return -1;
    if (!(ver = member(c, doc, sh, "version", true, NULL))
        || !(res = member(c, doc, sh, "resources", true, NULL))
        || !(tsk = member(c, doc, sh, "tasks", true, NULL))
        || !(att = member(c, doc, sh, "attributes", true, NULL)))
        return -1;

    size_t old = grovep_path_key(&c->path, "version");
    const json_t *vsh = grovep_shadow_key(sh, "version");
    if (!json_is_integer(ver))
        return vfail(c, vsh, "must be an integer (got %s)", grovep_typename(ver));
    version = json_integer_value(ver);
    if (version < 1 || version > 9999)
        return vfail(c, vsh, "must be between 1 and 9999 (got %lld)", version);
    if (V1(c) && version != 1)
        return vfail(c, vsh, "must be 1 for a V1 jobspec (got %lld)", version);
    js->version = (int)version;
    grovep_path_pop(&c->path, old);

    old = grovep_path_key(&c->path, "resources");
    const json_t *rsh = grovep_shadow_key(sh, "resources");
    if (resource_list(c, res, rsh, NONE, 0, false) < 0)
        return -1;
    grovep_path_pop(&c->path, old);

    if (tasks(c, tsk, grovep_shadow_key(sh, "tasks")) < 0)
        return -1;
    if (attributes(c, att, grovep_shadow_key(sh, "attributes")) < 0)
        return -1;
    if (V1(c) && v1_resources(c, res, rsh) < 0)
        return -1;
    return 0;
}

static void fixup(grove_jobspec_t *js)
{
    for (size_t i = 0; i < js->nres; i++) {
        grove_jobspec_resource_t *r = &js->res[i];
        r->parent = r->parent_i == NONE ? NULL : &js->res[r->parent_i];
        r->child = r->child_i == NONE ? NULL : &js->res[r->child_i];
        r->next = r->next_i == NONE ? NULL : &js->res[r->next_i];
    }
}


/* Give js the duration d (seconds, > 0) in place of its document's: the
 * value read and attributes.system.duration in the document, so that the
 * text written again (grove_jobspec_to_json, a matcher's stored request)
 * says the same.  0, or -1 (ENOMEM, err filled). */
static int set_duration(vctx_t *c, double d)
{
    json_t *doc = c->js->doc;
    json_t *attrs = json_object_get(doc, "attributes");
    if (!json_is_object(attrs)) {
        attrs = json_object();
        if (!attrs || json_object_set_new(doc, "attributes", attrs) < 0)
            return vnomem(c);
    }
    json_t *sys = json_object_get(attrs, "system");
    if (!json_is_object(sys)) {
        sys = json_object();
        if (!sys || json_object_set_new(attrs, "system", sys) < 0)
            return vnomem(c);
    }
    json_t *v = d == (double)(json_int_t)d ? json_integer((json_int_t)d) : json_real(d);
    if (!v || json_object_set_new(sys, "duration", v) < 0)
        return vnomem(c);
    c->js->duration = d;
    return 0;
}

/* Validate doc (stolen) with line shadow sh (borrowed, may be NULL). */
static grove_jobspec_t *jobspec_build(json_t *doc, const json_t *sh,
                                      const grove_jobspec_opts_t *opts, const char *source,
                                      grove_error_t *err)
{
    grove_jobspec_t *js = calloc(1, sizeof(*js));
    vctx_t c;

    if (!js) {
        json_decref(doc);
        grovep_error_nomem(err, source);
        return NULL;
    }
    js->doc = doc;
    if (source && !(js->source = strdup(source))) {
        grove_jobspec_destroy(js);
        grovep_error_nomem(err, source);
        return NULL;
    }
    memset(&c, 0, sizeof(c));
    c.js = js;
    c.source = source;
    c.flags = opts ? opts->flags : 0;
    c.known_types = opts ? opts->known_types : NULL;
    c.hint = opts ? opts->hint : NULL;
    c.hint_arg = opts ? opts->hint_arg : NULL;
    c.err = err;
    int rc = validate(&c, doc, sh);
    free(c.labels);
    if (rc == 0 && c.dropped > 0) {
        char text[96];
        snprintf(text, sizeof(text), "%zu more warnings not shown", c.dropped);
        if (grovep_grow((void **)&js->warnings, &js->warn_cap, js->nwarn + 1,
                        sizeof(*js->warnings))
                < 0
            || !(js->warnings[js->nwarn] = strdup(text)))
            rc = vnomem(&c);
        else
            js->nwarn++;
    }
    if (rc == 0 && opts && opts->duration > 0)
        rc = set_duration(&c, opts->duration);
    if (rc < 0) {
        int saved = errno;
        grove_jobspec_destroy(js);
        errno = saved;
        return NULL;
    }
    fixup(js);
    return js;
}

grove_jobspec_t *grove_jobspec_parse(const char *text, size_t len,
                                     const grove_jobspec_opts_t *opts, grove_error_t *err)
{
    const char *source = opts ? opts->source : NULL;
    json_t *doc, *lines;
    grove_jobspec_t *js;

    grove_error_clear(err);
    if (grovep_doc_read(text, len, opts ? opts->flags : 0, source, &doc, &lines, err) < 0)
        return NULL;
    js = jobspec_build(doc, lines, opts, source, err);
    json_decref(lines);
    return js;
}

/* The loader's parser: opts already names the source. */
static void *read_text(const char *text, size_t len, const char *source, const void *opts,
                       grove_error_t *err)
{
    (void)source;
    return grove_jobspec_parse(text, len, opts, err);
}

grove_jobspec_t *grove_jobspec_load(const char *path, const grove_jobspec_opts_t *opts,
                                    grove_error_t *err)
{
    grove_jobspec_opts_t o = {0};

    grove_error_clear(err);
    if (!path) {
        grovep_errorf(err, EINVAL, "no path");
        return NULL;
    }
    if (opts)
        o = *opts;
    if (!o.source)
        o.source = path;
    return grovep_load_file(path, o.source, read_text, &o, err);
}

grove_jobspec_t *grove_jobspec_from_json(const json_t *doc, const grove_jobspec_opts_t *opts,
                                         grove_error_t *err)
{
    const char *source = opts ? opts->source : NULL;
    json_t *copy;

    grove_error_clear(err);
    if (!doc) {
        grovep_error_fail(err, EINVAL, source, 0, "no document");
        return NULL;
    }
    if (!(copy = json_deep_copy(doc))) {
        grovep_error_nomem(err, source);
        return NULL;
    }
    return jobspec_build(copy, NULL, opts, source, err);
}

void grove_jobspec_destroy(grove_jobspec_t *js)
{
    if (!js)
        return;
    int saved = errno;
    for (size_t i = 0; i < js->nres; i++) {
        grove_jobspec_resource_t *r = &js->res[i];
        GROVEP_FREE_ALL(r->type, r->label, r->unit, r->id);
        grove_count_clear(&r->count);
    }
    free(js->res);
    for (size_t i = 0; i < js->ntasks; i++) {
        grove_jobspec_task_t *t = &js->tasks[i];
        GROVEP_FREE_ARRAY(t->argv, t->argc);
        GROVEP_FREE_ALL(t->slot, t->type, t->distribution);
    }
    free(js->tasks);
    GROVEP_FREE_ARRAY(js->warnings, js->nwarn);
    grove_constraint_destroy(js->constraint);
    json_decref(js->doc);
    free(js->source);
    free(js);
    errno = saved;
}

const char *grove_jobspec_source(const grove_jobspec_t *js)
{
    return js->source;
}

/* ==================================================================== */
/* Accessors                                                             */
/* ==================================================================== */

GROVEP_GETTER(int, grove_jobspec_version, grove_jobspec_t, version)
GROVEP_GETTER(double, grove_jobspec_duration, grove_jobspec_t, duration)
GROVEP_GETTER(const json_t *, grove_jobspec_json, grove_jobspec_t, doc)
GROVEP_GETTER(const json_t *, grove_jobspec_user, grove_jobspec_t, user)
GROVEP_GETTER(const json_t *, grove_jobspec_system, grove_jobspec_t, system)
GROVEP_GETTER(const grove_constraint_t *, grove_jobspec_constraint, grove_jobspec_t, constraint)
GROVEP_GETTER(size_t, grove_jobspec_warning_count, grove_jobspec_t, nwarn)

const char *grove_jobspec_warning(const grove_jobspec_t *js, size_t i)
{
    return i < js->nwarn ? js->warnings[i] : NULL;
}

GROVEP_GETTER(size_t, grove_jobspec_resource_total, grove_jobspec_t, nres)

const grove_jobspec_resource_t *grove_jobspec_resource_at(const grove_jobspec_t *js, size_t i)
{
    return i < js->nres ? &js->res[i] : NULL;
}

const grove_jobspec_resource_t *grove_jobspec_resource_first(const grove_jobspec_t *js)
{
    return js->nres > 0 ? &js->res[0] : NULL;
}

GROVEP_GETTER(const grove_jobspec_resource_t *, grove_jobspec_resource_next,
              grove_jobspec_resource_t, next)
GROVEP_GETTER(const grove_jobspec_resource_t *, grove_jobspec_resource_child,
              grove_jobspec_resource_t, child)
GROVEP_GETTER(const grove_jobspec_resource_t *, grove_jobspec_resource_parent,
              grove_jobspec_resource_t, parent)
GROVEP_GETTER(size_t, grove_jobspec_resource_index, grove_jobspec_resource_t, index)
GROVEP_GETTER(unsigned, grove_jobspec_resource_depth, grove_jobspec_resource_t, depth)
GROVEP_GETTER(size_t, grove_jobspec_resource_nchildren, grove_jobspec_resource_t, nchildren)
GROVEP_GETTER(const char *, grove_jobspec_resource_type, grove_jobspec_resource_t, type)
GROVEP_GETTER(const char *, grove_jobspec_resource_label, grove_jobspec_resource_t, label)
GROVEP_GETTER(const char *, grove_jobspec_resource_unit, grove_jobspec_resource_t, unit)
GROVEP_GETTER(const char *, grove_jobspec_resource_id, grove_jobspec_resource_t, id)

const grove_count_t *grove_jobspec_resource_count(const grove_jobspec_resource_t *r)
{
    return &r->count;
}

GROVEP_GETTER(int, grove_jobspec_resource_exclusive_raw, grove_jobspec_resource_t, exclusive)

bool grove_jobspec_resource_exclusive(const grove_jobspec_resource_t *r)
{
    if (r->exclusive >= 0)
        return r->exclusive == 1;
    return r->is_slot || r->in_slot;
}

GROVEP_GETTER(bool, grove_jobspec_resource_is_slot, grove_jobspec_resource_t, is_slot)
GROVEP_GETTER(bool, grove_jobspec_resource_in_slot, grove_jobspec_resource_t, in_slot)
GROVEP_GETTER(int, grove_jobspec_resource_line, grove_jobspec_resource_t, line)
GROVEP_GETTER(size_t, grove_jobspec_task_count, grove_jobspec_t, ntasks)

const grove_jobspec_task_t *grove_jobspec_task(const grove_jobspec_t *js, size_t i)
{
    return i < js->ntasks ? &js->tasks[i] : NULL;
}

GROVEP_GETTER(size_t, grove_jobspec_task_argc, grove_jobspec_task_t, argc)

const char *grove_jobspec_task_arg(const grove_jobspec_task_t *t, size_t i)
{
    return i < t->argc ? t->argv[i] : NULL;
}

GROVEP_GETTER(const char *, grove_jobspec_task_slot, grove_jobspec_task_t, slot)

grove_task_count_kind_t grove_jobspec_task_count_kind(const grove_jobspec_task_t *t,
                                                      uint64_t *n, const char **type)
{
    if (n)
        *n = t->n;
    if (type)
        *type = t->type;
    return t->kind;
}

GROVEP_GETTER(const char *, grove_jobspec_task_distribution, grove_jobspec_task_t, distribution)
GROVEP_GETTER(const json_t *, grove_jobspec_task_attributes, grove_jobspec_task_t, attributes)
