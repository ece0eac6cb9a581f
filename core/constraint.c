/* constraint.c: RFC 31 job constraints, compiled once and evaluated against
 * many execution targets.
 *
 * A constraint arrives as a small JSON tree ({"and": [{"properties":
 * ["ssd"]}, {"not": [{"hostlist": ["node[0-3]"]}]}]}).  The matcher asks
 * "does this vertex satisfy it?" for every candidate it visits, so the tree
 * is compiled into flat arrays: nodes, their child indices, the property
 * names (with the negation split off), decoded hostlists and one rank idset
 * per "ranks" node (the union of its operands).  Evaluation allocates
 * nothing; property lookup is a linear scan of the subject's names (targets
 * carry a handful) or the subject's own callback.
 *
 * Empty operands (RFC 31 leaves most to the operator): {}, {"and": []},
 * {"or": []} and {"properties": []} match everything; {"not": []} matches
 * nothing (not of an empty and); {"hostlist": []} and {"ranks": []} name no
 * host or rank and match nothing.  "not" with several operands negates
 * their conjunction.
 *
 * This file must not hold the reading of jobspec text or other jobspec
 * validation (jobspec.c), nor any knowledge of graphs: a subject is seen
 * only through the evaluation interface.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_private.h"
#include "hostlist.h"
#include "idset.h"
#include "jobspec.h"
#include "constraint_private.h"
#include "doc_private.h"
#include "util.h"

typedef enum { C_TRUE, C_PROPS, C_HOSTLIST, C_RANKS, C_AND, C_OR, C_NOT } ckind_t;

typedef struct cnode {
    ckind_t kind;
    size_t first;         /* into kids (and/or/not), props, hosts */
    size_t count;         /* number of kids / props / hostlists */
    grove_idset_t *ranks; /* C_RANKS: union of the operands */
} cnode_t;

typedef struct cprop {
    char *name;  /* without the leading '^' */
    bool negate; /* written as "^name" */
} cprop_t;

struct grove_constraint {
    cnode_t *nodes; /* nodes[0] is the root */
    size_t nnodes, nodes_cap;
    size_t *kids;   /* child node indices, contiguous per node */
    size_t nkids, kids_cap;
    cprop_t *props;
    size_t nprops, props_cap;
    grove_hostlist_t **hosts;
    size_t nhosts, hosts_cap;
    json_t *json;   /* the source object */
    char *key;      /* json as compact text, keys sorted */
};

typedef struct cctx {
    grove_constraint_t *c;
    grovep_path_t *path;
    const char *source;
    grove_error_t *err;
} cctx_t;

static int cfail(cctx_t *x, const json_t *sh, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cfail(cctx_t *x, const json_t *sh, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, x->err, EINVAL, x->source, grovep_line(sh), x->path->buf,
                        GROVEP_REASON_MAX);
}

static int cnomem(cctx_t *x)
{
    return grovep_error_nomem(x->err, x->source);
}

/* Make room for n more elements of size sz in *arr (length *len, capacity
 * *cap). */
static int grow(void **arr, size_t *cap, size_t len, size_t n, size_t sz)
{
    return grovep_grow(arr, cap, len + n, sz);
}

static int node_new(cctx_t *x, ckind_t kind, size_t *idx)
{
    grove_constraint_t *c = x->c;
    if (grow((void **)&c->nodes, &c->nodes_cap, c->nnodes, 1, sizeof(*c->nodes)) < 0)
        return cnomem(x);
    *idx = c->nnodes++;
    c->nodes[*idx] = (cnode_t){kind, 0, 0, NULL};
    return 0;
}

static int compile(cctx_t *x, const json_t *o, const json_t *sh, size_t *out);

/* Compile operand i of node idx: v, whose place in the text is vsh.  One
 * per kind; compile_operands has reserved what the operands need. */
typedef int (*operand_fn)(cctx_t *x, const json_t *v, const json_t *vsh, size_t idx, size_t i);

static int prop_operand(cctx_t *x, const json_t *v, const json_t *vsh, size_t idx, size_t i)
{
    static const char bad[] = "!&'\"^`|()";
    grove_constraint_t *c = x->c;
    (void)i;
    if (!json_is_string(v))
        return cfail(x, vsh, "a property must be a string (got %s)", grovep_typename(v));
    const char *s = json_string_value(v);
    bool negate = s[0] == '^';
    const char *name = negate ? s + 1 : s;
    if (name[0] == '\0')
        return cfail(x, vsh, "empty property name");
    size_t bad_at = strcspn(name, bad);
    if (name[bad_at] != '\0')
        return cfail(x, vsh, "invalid character '%c' in property '%s'", name[bad_at], s);
    char *dup = strdup(name);
    if (!dup)
        return cnomem(x);
    c->props[c->nprops++] = (cprop_t){dup, negate};
    c->nodes[idx].count++;
    return 0;
}

static int host_operand(cctx_t *x, const json_t *v, const json_t *vsh, size_t idx, size_t i)
{
    grove_constraint_t *c = x->c;
    grove_error_t e;
    (void)i;
    if (!json_is_string(v))
        return cfail(x, vsh, "a hostlist must be a string (got %s)", grovep_typename(v));
    grove_hostlist_t *hl = grove_hostlist_decode(json_string_value(v), &e);
    if (!hl) {
        if (errno == ENOMEM)
            return cnomem(x);
        return cfail(x, vsh, "%s", e.text);
    }
    c->hosts[c->nhosts++] = hl;
    c->nodes[idx].count++;
    return 0;
}

static int rank_operand(cctx_t *x, const json_t *v, const json_t *vsh, size_t idx, size_t i)
{
    grove_idset_t *ids = x->c->nodes[idx].ranks;
    (void)i;
    if (json_is_integer(v)) {
        json_int_t r = json_integer_value(v);
        if (r < 0 || r > (json_int_t)GROVE_IDSET_MAX_ID)
            return cfail(x, vsh, "rank %lld is out of range", (long long)r);
        if (grove_idset_set(ids, (unsigned)r) < 0)
            return cnomem(x);
    }
    else if (json_is_string(v)) {
        grove_error_t e;
        grove_idset_t *one = grove_idset_decode(json_string_value(v), &e);
        if (!one) {
            if (errno == ENOMEM)
                return cnomem(x);
            return cfail(x, vsh, "%s", e.text);
        }
        int rc = grove_idset_add(ids, one);
        grove_idset_destroy(one);
        if (rc < 0)
            return cnomem(x);
    }
    else
        return cfail(x, vsh, "ranks must be idset strings or integers (got %s)",
                     grovep_typename(v));
    return 0;
}

static int kid_operand(cctx_t *x, const json_t *v, const json_t *vsh, size_t idx, size_t i)
{
    size_t kid;
    if (compile(x, v, vsh, &kid) < 0)
        return -1;
    x->c->kids[x->c->nodes[idx].first + i] = kid;
    return 0;
}

/* The operands vals (at sh) of node idx, of the given kind: reserve what
 * they need, then compile each with the path at its index. */
static int compile_operands(cctx_t *x, ckind_t kind, const json_t *vals, const json_t *sh,
                            size_t idx)
{
    grove_constraint_t *c = x->c;
    size_t n = json_array_size(vals), i;
    const json_t *v;
    operand_fn each;
    int rc;

    switch (kind) {
    case C_PROPS:
        rc = grow((void **)&c->props, &c->props_cap, c->nprops, n, sizeof(*c->props));
        c->nodes[idx].first = c->nprops;
        each = prop_operand;
        break;
    case C_HOSTLIST:
        rc = grow((void **)&c->hosts, &c->hosts_cap, c->nhosts, n, sizeof(*c->hosts));
        c->nodes[idx].first = c->nhosts;
        each = host_operand;
        break;
    case C_RANKS:
        rc = (c->nodes[idx].ranks = grove_idset_create()) ? 0 : -1;
        each = rank_operand;
        break;
    default:
        /* Reserve the child slots now: children compiled below add their own. */
        rc = grow((void **)&c->kids, &c->kids_cap, c->nkids, n, sizeof(*c->kids));
        each = kid_operand;
        if (rc < 0)
            break;
        c->nodes[idx].first = c->nkids;
        c->nodes[idx].count = n;
        c->nkids += n;
        break;
    }
    if (rc < 0)
        return cnomem(x);
    json_array_foreach((json_t *)(uintptr_t)vals, i, v) {
        size_t old = grovep_path_index(x->path, i);
        if (each(x, v, grovep_shadow_index(sh, i), idx, i) < 0)
            return -1;
        grovep_path_pop(x->path, old);
    }
    return 0;
}

static int compile(cctx_t *x, const json_t *o, const json_t *sh, size_t *out)
{
    static const struct {
        const char *name;
        ckind_t kind;
    } ops[] = {{"properties", C_PROPS}, {"hostlist", C_HOSTLIST}, {"ranks", C_RANKS},
               {"and", C_AND},          {"or", C_OR},             {"not", C_NOT}};
    const char *key;
    const json_t *vals;
    size_t idx = 0; /* set for the one operator below */

    if (!json_is_object(o))
        return cfail(x, sh, "a constraint must be a mapping (got %s)", grovep_typename(o));
    if (json_object_size(o) == 0)
        return node_new(x, C_TRUE, out);
    if (json_object_size(o) > 1)
        return cfail(x, sh, "a constraint has exactly one operator (got %zu keys)",
                     json_object_size(o));
    json_object_foreach((json_t *)(uintptr_t)o, key, vals) {
        const json_t *vsh = grovep_shadow_key(sh, key);
        size_t old = grovep_path_key(x->path, key);
        ckind_t kind = C_TRUE;
        bool found = false;
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
            if (strcmp(ops[i].name, key) == 0) {
                kind = ops[i].kind;
                found = true;
            }
        }
        if (!found)
            return cfail(x, vsh,
                         "unknown constraint operator (expected properties, hostlist, ranks, "
                         "and, or, not)");
        if (!json_is_array(vals))
            return cfail(x, vsh, "operands must be a list (got %s)", grovep_typename(vals));
        if (node_new(x, kind, &idx) < 0)
            return -1;
        if (compile_operands(x, kind, vals, vsh, idx) < 0)
            return -1;
        grovep_path_pop(x->path, old);
    }
    *out = idx;
    return 0;
}

grove_constraint_t *grovep_constraint_compile(const json_t *o, const json_t *sh,
                                              grovep_path_t *p, const char *source,
                                              grove_error_t *err)
{
    grove_constraint_t *c = calloc(1, sizeof(*c));
    cctx_t x = {c, p, source, err};
    size_t root;

    if (!c) {
        cnomem(&x);
        return NULL;
    }
    if (!(c->json = json_deep_copy(o))
        || !(c->key = json_dumps(c->json, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY))) {
        grove_constraint_destroy(c);
        cnomem(&x);
        return NULL;
    }
    if (compile(&x, o, sh, &root) < 0) {
        int saved = errno;
        grove_constraint_destroy(c);
        errno = saved;
        return NULL;
    }
    return c;
}

grove_constraint_t *grove_constraint_from_json(const json_t *o, const char *path,
                                               grove_error_t *err)
{
    grovep_path_t p = {.len = 0};
    p.buf[0] = '\0';
    grove_error_clear(err);
    if (path)
        grovep_path_key(&p, path);
    if (!o) {
        grovep_errorf(err, EINVAL, "no constraint");
        return NULL;
    }
    return grovep_constraint_compile(o, NULL, &p, NULL, err);
}

grove_constraint_t *grove_constraint_parse(const char *text, grove_error_t *err)
{
    json_t *doc, *lines;
    grovep_path_t p = {.len = 0};
    p.buf[0] = '\0';

    grove_error_clear(err);
    if (!text) {
        grovep_errorf(err, EINVAL, "no constraint");
        return NULL;
    }
    if (grovep_doc_read(text, strlen(text), 0, NULL, &doc, &lines, err) < 0)
        return NULL;
    grove_constraint_t *c = grovep_constraint_compile(doc, lines, &p, NULL, err);
    int saved = errno;
    json_decref(doc);
    json_decref(lines);
    errno = saved;
    return c;
}

void grove_constraint_destroy(grove_constraint_t *c)
{
    if (!c)
        return;
    int saved = errno;
    for (size_t i = 0; i < c->nnodes; i++)
        grove_idset_destroy(c->nodes[i].ranks);
    for (size_t i = 0; i < c->nprops; i++)
        free(c->props[i].name);
    for (size_t i = 0; i < c->nhosts; i++)
        grove_hostlist_destroy(c->hosts[i]);
    GROVEP_FREE_ALL(c->nodes, c->kids, c->props, c->hosts);
    json_decref(c->json);
    free(c->key);
    free(c);
    errno = saved;
}

const char *grove_constraint_key(const grove_constraint_t *c)
{
    return c ? c->key : NULL;
}

/* A target's hostname counts as one of its properties, as flux-core
 * applies RFC 31 ({"properties": ["foo0"]} selects foo0, "^foo0" leaves it
 * out). */
static bool has_prop(const grove_constraint_subject_t *s, const char *name)
{
    if (s->hostname && strcmp(s->hostname, name) == 0)
        return true;
    if (s->has_property)
        return s->has_property(name, s->arg);
    for (size_t i = 0; i < s->nproperties; i++)
        if (s->properties[i] && strcmp(s->properties[i], name) == 0)
            return true;
    return false;
}

static int eval(const grove_constraint_t *c, size_t idx, const grove_constraint_subject_t *s)
{
    const cnode_t *n = &c->nodes[idx];
    size_t i;

    switch (n->kind) {
    case C_TRUE:
        return 1;
    case C_PROPS:
        for (i = 0; i < n->count; i++) {
            const cprop_t *p = &c->props[n->first + i];
            if (has_prop(s, p->name) == p->negate)
                return 0;
        }
        return 1;
    case C_HOSTLIST:
        if (!s->hostname)
            return 0;
        for (i = 0; i < n->count; i++) {
            int saved = errno;
            int found = grove_hostlist_find(c->hosts[n->first + i], s->hostname);
            errno = saved;
            if (found >= 0)
                return 1;
        }
        return 0;
    case C_RANKS:
        return s->rank >= 0 && s->rank <= (int64_t)GROVE_IDSET_MAX_ID
               && grove_idset_test(n->ranks, (unsigned)s->rank);
    case C_AND:
    case C_NOT:
        for (i = 0; i < n->count; i++)
            if (!eval(c, c->kids[n->first + i], s))
                return n->kind == C_NOT ? 1 : 0;
        return n->kind == C_NOT ? 0 : 1;
    case C_OR:
        if (n->count == 0)
            return 1;
        for (i = 0; i < n->count; i++)
            if (eval(c, c->kids[n->first + i], s))
                return 1;
        return 0;
    }
    return 0;
}

int grove_constraint_match(const grove_constraint_t *c, const grove_constraint_subject_t *subj)
{
    static const grove_constraint_subject_t nobody = {NULL, 0, NULL, NULL, NULL, -1};
    if (!c || c->nnodes == 0)
        return 1;
    return eval(c, 0, subj ? subj : &nobody);
}

json_t *grove_constraint_to_json(const grove_constraint_t *c)
{
    json_t *o = c ? json_deep_copy(c->json) : json_object();
    return grovep_or_errno(o, ENOMEM);
}
