/* grug.c: expand GraphML generation recipes into a graph.
 *
 * Problem: test and simulation clusters are described by small recipes
 * (a few dozen templates) that expand to anything from a hundred vertices
 * to a few hundred thousand (sierra: 350,473) or more.  The expansion rules
 * are summarised in grug.h; they must be followed to the letter, since
 * vertex names, ids and creation order are what scheduling outputs print.
 *
 * Workload and approach: the recipe is parsed with libxml2 into template
 * and edge tables (cheap), validated, then walked depth first.  Each
 * generated vertex is recorded in a compact array (template, generating
 * parent, id, graph vertex) and, unless filtered out, created in the graph
 * at once with its edges, so a large recipe costs one pass and no
 * per-vertex allocation beyond the graph's own.  Paths are kept only as
 * (parent path, vertex) pairs in an append-only table, so a path that an
 * association later rewrites does not change the paths already derived
 * from it; path strings are built only for ASSOCIATE_BY_PATH_IN.
 *
 * This file must not hold graph internals beyond the building calls of
 * graph_private.h, nor any other graph format: it reads recipes and expands
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "limit.h"
#include "error_private.h"
#include "util.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "grug.h"
#include "intern.h"
#include "progress.h"
#include "xml_init.h"

#define NONE UINT32_MAX
#define GRUG_STEP "expanding GRUG recipe" /* the step progress reports name */

/* ---- recipe properties --------------------------------------------------- */

enum { DOM_NODE = 1, DOM_EDGE = 2, DOM_ALL = 3, DOM_GRAPH = 4 };
enum { KIND_INT, KIND_STR };

enum prop {
    P_ROOT,
    P_TYPE,
    P_BASENAME,
    P_SIZE,
    P_UNIT,
    P_SUBSYSTEM,
    P_E_SUBSYSTEM,
    P_RELATION,
    P_RRELATION,
    P_GEN_METHOD,
    P_ID_SCOPE,
    P_ID_START,
    P_ID_STRIDE,
    P_MULTI_SCALE,
    P_AS_TGT_SUBSYSTEM,
    P_AS_TGT_UPLVL,
    P_AS_SRC_UPLVL,
    P_COUNT
};

static const struct {
    const char *name;
    int domain; /* DOM_NODE or DOM_EDGE */
    int kind;
} props[P_COUNT] = {
    [P_ROOT] = {"root", DOM_NODE, KIND_INT},
    [P_TYPE] = {"type", DOM_NODE, KIND_STR},
    [P_BASENAME] = {"basename", DOM_NODE, KIND_STR},
    [P_SIZE] = {"size", DOM_NODE, KIND_INT},
    [P_UNIT] = {"unit", DOM_NODE, KIND_STR},
    [P_SUBSYSTEM] = {"subsystem", DOM_NODE, KIND_STR},
    [P_E_SUBSYSTEM] = {"e_subsystem", DOM_EDGE, KIND_STR},
    [P_RELATION] = {"relation", DOM_EDGE, KIND_STR},
    [P_RRELATION] = {"rrelation", DOM_EDGE, KIND_STR},
    [P_GEN_METHOD] = {"gen_method", DOM_EDGE, KIND_STR},
    [P_ID_SCOPE] = {"id_scope", DOM_EDGE, KIND_INT},
    [P_ID_START] = {"id_start", DOM_EDGE, KIND_INT},
    [P_ID_STRIDE] = {"id_stride", DOM_EDGE, KIND_INT},
    [P_MULTI_SCALE] = {"multi_scale", DOM_EDGE, KIND_INT},
    [P_AS_TGT_SUBSYSTEM] = {"as_tgt_subsystem", DOM_EDGE, KIND_STR},
    [P_AS_TGT_UPLVL] = {"as_tgt_uplvl", DOM_EDGE, KIND_INT},
    [P_AS_SRC_UPLVL] = {"as_src_uplvl", DOM_EDGE, KIND_INT},
};

enum gen { GEN_MULTIPLY, GEN_ASSOCIATE_IN, GEN_ASSOCIATE_BY_PATH_IN };
static const char *const gen_names[] = {"MULTIPLY", "ASSOCIATE_IN", "ASSOCIATE_BY_PATH_IN"};

/* A value as given: a string symbol and, for integer properties, its
 * value. */
typedef struct pval {
    bool set;
    grove_sym_t str;
    int64_t num;
} pval_t;

/* A declared <key>. */
typedef struct key {
    grove_sym_t id;
    int prop;   /* enum prop, or -1: unknown attr.name */
    grove_sym_t name;
    int domain; /* DOM_* */
    bool has_default;
    grove_sym_t def;
    int line;
} key_t_;

/* A vertex template (GraphML node). */
typedef struct tmpl {
    grove_sym_t xml_id;
    pval_t p[P_COUNT]; /* node properties (others unused) */
    int line;          /* of the <node>, or of the first edge naming it */
    bool defined;      /* a <node> element was seen */
    uint32_t first, nout; /* out-edges: eorder[first .. first+nout) */
    grove_sym_t gsym[3];  /* type, basename, unit in the graph's strings,
                           * interned at the first vertex made (gsyms) */
    bool gsyms;
} tmpl_t;

/* A generation edge (GraphML edge). */
typedef struct redge {
    uint32_t src, dst;
    pval_t p[P_COUNT]; /* edge properties */
    int gen;           /* enum gen */
    int line;
    grove_sym_t gsym[3]; /* subsystem, relation, reverse relation in the
                          * graph's strings, each interned at its first
                          * use (bit i of gmade) */
    uint8_t gmade;
} redge_t;

/* A generated vertex: what its children take from it. */
typedef struct ev {
    grove_vid_t gv; /* its graph vertex, NONE when filtered out */
    grove_vid_t kgv; /* nearest kept graph vertex: itself or an ancestor */
    int64_t rank;   /* node rank inherited through containment, or -1 */
} ev_t;

/* What names a generated vertex in a path (kept with associations only). */
typedef struct evname {
    int64_t id;
    uint32_t tmpl; /* template it was made from */
} evname_t;

/* A path: parent path node (NONE: top) and the vertex named last. */
typedef struct pnode {
    uint32_t parent;
    uint32_t ev;
} pnode_t;

typedef struct u32vec {
    uint32_t *a;
    size_t n, cap;
} u32vec_t;

typedef struct grug {
    const char *source;
    grove_error_t *err;
    const grove_grug_opts_t *opts;
    grove_intern_t *s; /* recipe strings */

    key_t_ *keys;
    size_t nkeys, keycap;
    pval_t node_def[P_COUNT], edge_def[P_COUNT]; /* defaults after <key>s */

    tmpl_t *t;
    size_t nt, tcap;
    redge_t *e;
    size_t ne, ecap;
    uint32_t *eorder; /* edges grouped by source template, document order */
    uint32_t *tmpl_of_sym; /* xml id symbol -> template, NONE */
    size_t tmpl_of_cap;

    /* expansion */
    grove_graph_t *g;
    ev_t *ev;
    size_t nev, evcap;
    evname_t *evn;         /* [evcap] with assoc, else NULL */
    size_t max_ev;
    uint64_t max_size;     /* largest pool size (GROVE_MAX_SIZE) */
    uint64_t *count;       /* [nt], counting pass: vertices from each template */
    uint64_t counted;      /* counting pass: vertices so far (saturating) */
    uint64_t total;        /* building pass: the vertices the counting pass found */
    bool *root_counted;    /* [nsub], counting pass: the subsystem's root */
    pnode_t *pn;
    size_t npn, pncap;
    grove_sym_t *subsys;   /* distinct subsystem symbols (recipe strings) */
    bool assoc;            /* the recipe has association edges: only then are
                            * evn, pn, pathof and by_type kept (a recipe of
                            * multiplications alone would spend 32 bytes a
                            * generated vertex on them, 27 MB at 852k) */
    uint32_t **pathof;     /* [nsub][evcap]: path node of each vertex or NONE */
    size_t nsub;
    u32vec_t *gen;         /* [nt]: vertices generated from each template */
    u32vec_t *by_type;     /* [symbol count]: vertices of each type */
    size_t ntypesyms;
    uint32_t *roots;       /* [nsub]: root vertex of each subsystem or NONE */
    int64_t *hier;         /* multi_scale stack; top = most recent */
    size_t nhier, hiercap;
    bool *keep_type;       /* [symbol count]: type kept by the filter */
    grove_sym_t sym_node, sym_containment;
    int64_t next_rank;
    size_t dropped;
    char *pbuf;            /* path building */
    size_t pbufcap;
    const xmlNode *graph;  /* the document's <graph> element, once seen */
} grug_t;

/* ---- small helpers -------------------------------------------------------- */


static int vec_push(u32vec_t *v, uint32_t x)
{
    if (v->n == v->cap && grovep_grow((void **)&v->a, &v->cap, v->n + 1, sizeof(*v->a)) < 0)
        return -1;
    v->a[v->n++] = x;
    return 0;
}

static int fail(grug_t *r, int line, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(grug_t *r, int line, int errnum, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, r->err, errnum, r->source, line, NULL, GROVEP_REASON_MAX);
}

static int nomem(grug_t *r)
{
    return fail(r, 0, ENOMEM, "out of memory");
}

static const char *S(const grug_t *r, grove_sym_t sym)
{
    return grove_intern_str(r->s, sym);
}

/* Intern s with leading and trailing ASCII whitespace removed. */
static grove_sym_t intern_trim(grug_t *r, const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return grove_intern_n(r->s, s, n);
}

static int line_of(const xmlNode *n)
{
    long l = xmlGetLineNo(n);
    return l > 0 && l < INT_MAX ? (int)l : 0;
}

static bool is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* An attribute's value interned, or GROVE_SYM_NONE when absent (errno 0)
 * or on ENOMEM (errno set). */
static grove_sym_t attr(grug_t *r, const xmlNode *n, const char *name)
{
    errno = 0;
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return GROVE_SYM_NONE;
    grove_sym_t s = intern_trim(r, (const char *)v);
    xmlFree(v);
    return s;
}

/* Parse a whole decimal integer (already trimmed); "true" and "false" too
 * when boolean (root). */
static bool parse_int(const char *s, bool boolean, int64_t *out)
{
    if (boolean && (!strcmp(s, "true") || !strcmp(s, "false"))) {
        *out = s[0] == 't';
        return true;
    }
    if (!*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s)
        return false;
    *out = v;
    return true;
}

/* Store a textual value for property p into vals, checking its form. */
static int set_value(grug_t *r, pval_t *vals, int p, grove_sym_t str, int line, const char *what)
{
    const char *s = S(r, str);
    pval_t v = {.set = true, .str = str, .num = 0};
    if (props[p].kind == KIND_INT) {
        if (!parse_int(s, p == P_ROOT, &v.num))
            return fail(r, line, EINVAL, "%s: %s \"%s\" is not an integer", what,
                        props[p].name, s);
        if ((p == P_SIZE || p == P_MULTI_SCALE) && v.num < 0)
            return fail(r, line, EINVAL, "%s: %s %lld is negative", what, props[p].name,
                        (long long)v.num);
        if (p == P_SIZE && (uint64_t)v.num > r->max_size)
            return fail(r, line, EOVERFLOW,
                        "%s: size %lld is larger than the pool size limit %llu (GROVE_MAX_SIZE)",
                        what, (long long)v.num, (unsigned long long)r->max_size);
    } else if (p == P_GEN_METHOD) {
        int g = grovep_name_index(gen_names, 3, s);
        if (g < 0)
            return fail(r, line, EINVAL,
                        "%s: unknown gen_method \"%s\" (MULTIPLY, ASSOCIATE_IN or "
                        "ASSOCIATE_BY_PATH_IN)",
                        what, s);
        v.num = g;
    } else if (p != P_UNIT && p != P_BASENAME && !*s) {
        return fail(r, line, EINVAL, "%s: %s is empty", what, props[p].name);
    }
    vals[p] = v;
    return 0;
}

/* ---- parsing ----------------------------------------------------------------- */

static int prop_index(const char *name)
{
    for (int i = 0; i < P_COUNT; i++)
        if (!strcmp(props[i].name, name))
            return i;
    return -1;
}

static const key_t_ *find_key(const grug_t *r, grove_sym_t id)
{
    for (size_t i = 0; i < r->nkeys; i++)
        if (r->keys[i].id == id)
            return &r->keys[i];
    return NULL;
}

static int parse_key(grug_t *r, const xmlNode *n)
{
    int line = line_of(n);
    grove_sym_t id = attr(r, n, "id");
    if (id == GROVE_SYM_NONE)
        return errno ? nomem(r) : fail(r, line, EINVAL, "<key> without an id");
    if (find_key(r, id))
        return fail(r, line, EINVAL, "key \"%s\" is declared twice", S(r, id));
    grove_sym_t name = attr(r, n, "attr.name");
    if (name == GROVE_SYM_NONE)
        return errno ? nomem(r)
                     : fail(r, line, EINVAL, "key \"%s\" has no attr.name", S(r, id));
    grove_sym_t f = attr(r, n, "for");
    if (f == GROVE_SYM_NONE && errno)
        return nomem(r);
    int domain = DOM_ALL;
    if (f != GROVE_SYM_NONE) {
        const char *fs = S(r, f);
        if (!strcmp(fs, "node"))
            domain = DOM_NODE;
        else if (!strcmp(fs, "edge"))
            domain = DOM_EDGE;
        else if (!strcmp(fs, "all"))
            domain = DOM_ALL;
        else if (!strcmp(fs, "graph") || !strcmp(fs, "graphml"))
            domain = DOM_GRAPH;
        else
            return fail(r, line, EINVAL, "key \"%s\": unsupported for=\"%s\"", S(r, id), fs);
    }
    key_t_ k = {.id = id,
                .name = name,
                .domain = domain,
                .prop = domain == DOM_GRAPH ? -1 : prop_index(S(r, name)),
                .line = line};
    if (k.prop >= 0 && !(domain & props[k.prop].domain))
        return fail(r, line, EINVAL, "key \"%s\": property %s applies to %ss, not to %ss",
                    S(r, id), props[k.prop].name,
                    props[k.prop].domain == DOM_NODE ? "node" : "edge",
                    domain == DOM_NODE ? "node" : "edge");
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!is_elem(c, "default"))
            continue;
        xmlChar *txt = xmlNodeGetContent(c);
        if (!txt)
            return nomem(r);
        k.def = intern_trim(r, (const char *)txt);
        xmlFree(txt);
        if (k.def == GROVE_SYM_NONE)
            return nomem(r);
        k.has_default = true;
        if (domain == DOM_GRAPH)
            continue;
        if (k.prop < 0)
            return fail(r, line_of(c), EINVAL, "key \"%s\": unknown property \"%s\"",
                        S(r, id), S(r, name));
        char what[160];
        snprintf(what, sizeof(what), "default of key \"%s\"", S(r, id));
        pval_t *vals = props[k.prop].domain == DOM_NODE ? r->node_def : r->edge_def;
        if (set_value(r, vals, k.prop, k.def, line_of(c), what) < 0)
            return -1;
    }
    if (grovep_grow((void **)&r->keys, &r->keycap, r->nkeys + 1, sizeof(*r->keys)) < 0)
        return nomem(r);
    r->keys[r->nkeys++] = k;
    return 0;
}

/* Apply the <data> children of a <node> or <edge> to vals. */
static int parse_data(grug_t *r, const xmlNode *n, int domain, pval_t *vals, const char *what)
{
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || is_elem(c, "desc"))
            continue;
        int line = line_of(c);
        if (!is_elem(c, "data"))
            return fail(r, line, EINVAL, "%s: unsupported element <%s>", what,
                        (const char *)c->name);
        grove_sym_t kid = attr(r, c, "key");
        if (kid == GROVE_SYM_NONE)
            return errno ? nomem(r) : fail(r, line, EINVAL, "%s: <data> without a key", what);
        const key_t_ *k = find_key(r, kid);
        if (!k)
            return fail(r, line, EINVAL, "%s: key \"%s\" is not declared", what, S(r, kid));
        if (k->prop < 0)
            return fail(r, line, EINVAL, "%s: unknown property \"%s\" (key \"%s\")", what,
                        S(r, k->name), S(r, kid));
        if (!(props[k->prop].domain & domain) || !(k->domain & domain))
            return fail(r, line, EINVAL, "%s: property %s does not apply to %ss", what,
                        props[k->prop].name, domain == DOM_NODE ? "node" : "edge");
        xmlChar *txt = xmlNodeGetContent(c);
        if (!txt)
            return nomem(r);
        grove_sym_t v = intern_trim(r, (const char *)txt);
        xmlFree(txt);
        if (v == GROVE_SYM_NONE)
            return nomem(r);
        if (set_value(r, vals, k->prop, v, line, what) < 0)
            return -1;
    }
    return 0;
}

/* The template named by xml id sym, created (undefined) if new. */
static uint32_t tmpl_get(grug_t *r, grove_sym_t sym, int line)
{
    size_t need = (size_t)sym + 1;
    if (need > r->tmpl_of_cap) {
        size_t old = r->tmpl_of_cap;
        if (grovep_grow((void **)&r->tmpl_of_sym, &r->tmpl_of_cap, need, sizeof(uint32_t)) < 0)
            return NONE;
        for (size_t i = old; i < r->tmpl_of_cap; i++)
            r->tmpl_of_sym[i] = NONE;
    }
    if (r->tmpl_of_sym[sym] != NONE)
        return r->tmpl_of_sym[sym];
    if (r->nt >= NONE - 1 || grovep_grow((void **)&r->t, &r->tcap, r->nt + 1, sizeof(*r->t)) < 0)
        return NONE;
    tmpl_t *t = &r->t[r->nt];
    memset(t, 0, sizeof(*t));
    t->xml_id = sym;
    t->line = line;
    memcpy(t->p, r->node_def, sizeof(t->p));
    r->tmpl_of_sym[sym] = (uint32_t)r->nt;
    return (uint32_t)r->nt++;
}

static int parse_node(grug_t *r, const xmlNode *n)
{
    int line = line_of(n);
    grove_sym_t id = attr(r, n, "id");
    if (id == GROVE_SYM_NONE)
        return errno ? nomem(r) : fail(r, line, EINVAL, "<node> without an id");
    uint32_t ti = tmpl_get(r, id, line);
    if (ti == NONE)
        return nomem(r);
    tmpl_t *t = &r->t[ti];
    if (t->defined)
        return fail(r, line, EINVAL, "node \"%s\" is declared twice", S(r, id));
    t->defined = true;
    t->line = line;
    char what[160];
    snprintf(what, sizeof(what), "node \"%s\"", S(r, id));
    if (parse_data(r, n, DOM_NODE, t->p, what) < 0)
        return -1;
    t = &r->t[ti];
    if (!t->p[P_TYPE].set || !*S(r, t->p[P_TYPE].str))
        return fail(r, line, EINVAL, "node \"%s\" has no type", S(r, id));
    if (!t->p[P_BASENAME].set || !*S(r, t->p[P_BASENAME].str))
        t->p[P_BASENAME] = t->p[P_TYPE];
    if (strchr(S(r, t->p[P_BASENAME].str), '/'))
        return fail(r, line, EINVAL, "node \"%s\": basename \"%s\" contains '/' (names make up paths)",
                    S(r, id), S(r, t->p[P_BASENAME].str));
    return 0;
}

static int parse_edge(grug_t *r, const xmlNode *n)
{
    int line = line_of(n);
    grove_sym_t src = attr(r, n, "source");
    if (src == GROVE_SYM_NONE && errno)
        return nomem(r);
    grove_sym_t dst = attr(r, n, "target");
    if (dst == GROVE_SYM_NONE && errno)
        return nomem(r);
    if (src == GROVE_SYM_NONE || dst == GROVE_SYM_NONE)
        return fail(r, line, EINVAL, "<edge> without a %s", src == GROVE_SYM_NONE ? "source" : "target");
    uint32_t s = tmpl_get(r, src, line), d = s == NONE ? NONE : tmpl_get(r, dst, line);
    if (d == NONE)
        return nomem(r);
    if (r->ne >= NONE - 1 || grovep_grow((void **)&r->e, &r->ecap, r->ne + 1, sizeof(*r->e)) < 0)
        return nomem(r);
    redge_t *e = &r->e[r->ne];
    memset(e, 0, sizeof(*e));
    e->src = s;
    e->dst = d;
    e->line = line;
    memcpy(e->p, r->edge_def, sizeof(e->p));
    grove_sym_t eid = attr(r, n, "id");
    if (eid == GROVE_SYM_NONE && errno)
        return nomem(r);
    char what[200];
    if (eid != GROVE_SYM_NONE)
        snprintf(what, sizeof(what), "edge \"%s\"", S(r, eid));
    else
        snprintf(what, sizeof(what), "edge %s -> %s", S(r, src), S(r, dst));
    if (parse_data(r, n, DOM_EDGE, e->p, what) < 0)
        return -1;
    e->gen = (int)e->p[P_GEN_METHOD].num;
    r->ne++;
    return 0;
}

/* Built-in defaults, used when no <key> declares one. */
static int builtin_defaults(grug_t *r)
{
    static const struct {
        int p;
        const char *v;
    } d[] = {
        {P_ROOT, "0"},
        {P_SIZE, "1"},
        {P_UNIT, ""},
        {P_SUBSYSTEM, GROVE_CONTAINMENT},
        {P_E_SUBSYSTEM, GROVE_CONTAINMENT},
        {P_RELATION, GROVE_CONTAINS},
        {P_RRELATION, GROVE_IN},
        {P_GEN_METHOD, "MULTIPLY"},
        {P_ID_SCOPE, "0"},
        {P_ID_START, "0"},
        {P_ID_STRIDE, "1"},
        {P_MULTI_SCALE, "1"},
        {P_AS_TGT_SUBSYSTEM, GROVE_CONTAINMENT},
        {P_AS_TGT_UPLVL, "1"},
        {P_AS_SRC_UPLVL, "1"},
    };
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
        grove_sym_t s = grove_intern(r->s, d[i].v);
        if (s == GROVE_SYM_NONE)
            return nomem(r);
        pval_t *vals = props[d[i].p].domain == DOM_NODE ? r->node_def : r->edge_def;
        if (set_value(r, vals, d[i].p, s, 0, "built-in default") < 0)
            return -1;
    }
    return 0;
}

/* An element a parent may hold, and what reads it. */
typedef struct child_kind {
    const char *name;
    int (*parse)(grug_t *r, const xmlNode *n);
} child_kind_t;

/* Read the element children of parent in document order, each with the
 * entry of kinds[0..n) of its name; <desc> and <data> are skipped, any
 * other element is an error.  0, or -1 with errno and r's error set. */
static int parse_children(grug_t *r, const xmlNode *parent, const child_kind_t *kinds, size_t n)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || is_elem(c, "desc") || is_elem(c, "data"))
            continue;
        size_t k = 0;
        while (k < n && !is_elem(c, kinds[k].name))
            k++;
        if (k == n)
            return fail(r, line_of(c), EINVAL, "unsupported element <%s> in <%s>",
                        (const char *)c->name, (const char *)parent->name);
        if (kinds[k].parse(r, c) < 0)
            return -1;
    }
    return 0;
}

/* The <graph> of <graphml>: kept for the second pass, only one allowed. */
static int take_graph(grug_t *r, const xmlNode *n)
{
    if (r->graph)
        return fail(r, line_of(n), EINVAL, "more than one <graph> (the first is at line %d)",
                    line_of(r->graph));
    r->graph = n;
    return 0;
}

static int parse_doc(grug_t *r, const xmlDoc *doc)
{
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root)
        return fail(r, 0, EINVAL, "empty document");
    if (!is_elem(root, "graphml"))
        return fail(r, line_of(root), EINVAL, "root element is <%s>, not <graphml>",
                    (const char *)root->name);
    if (builtin_defaults(r) < 0)
        return -1;
    static const child_kind_t in_graphml[] = {{"key", parse_key}, {"graph", take_graph}};
    static const child_kind_t in_graph[] = {{"node", parse_node}, {"edge", parse_edge}};
    if (parse_children(r, root, in_graphml, 2) < 0)
        return -1;
    const xmlNode *graph = r->graph;
    if (!graph)
        return fail(r, line_of(root), EINVAL, "no <graph> in <graphml>");
    if (parse_children(r, graph, in_graph, 2) < 0)
        return -1;
    for (size_t i = 0; i < r->ne; i++) {
        const redge_t *e = &r->e[i];
        uint32_t bad = !r->t[e->src].defined ? e->src : !r->t[e->dst].defined ? e->dst : NONE;
        if (bad != NONE)
            return fail(r, e->line, EINVAL, "edge names node \"%s\", which is not declared",
                        S(r, r->t[bad].xml_id));
    }
    if (r->nt == 0)
        return fail(r, line_of(graph), EINVAL, "the recipe has no nodes");
    /* out-edges grouped by source, document order kept (counting sort) */
    r->eorder = malloc((r->ne ? r->ne : 1) * sizeof(*r->eorder));
    if (!r->eorder)
        return nomem(r);
    for (size_t i = 0; i < r->ne; i++)
        r->t[r->e[i].src].nout++;
    uint32_t pos = 0;
    for (size_t i = 0; i < r->nt; i++) {
        r->t[i].first = pos;
        pos += r->t[i].nout;
        r->t[i].nout = 0;
    }
    for (size_t i = 0; i < r->ne; i++) {
        tmpl_t *t = &r->t[r->e[i].src];
        r->eorder[t->first + t->nout++] = (uint32_t)i;
    }
    return 0;
}

/* ---- expansion ---------------------------------------------------------------- */

static int sub_index(grug_t *r, grove_sym_t sym)
{
    for (size_t i = 0; i < r->nsub; i++)
        if (r->subsys[i] == sym)
            return (int)i;
    return -1;
}

static int add_sub(grug_t *r, grove_sym_t sym)
{
    if (sub_index(r, sym) >= 0)
        return 0;
    size_t n = r->nsub + 1;
    grove_sym_t *s = realloc(r->subsys, n * sizeof(*s));
    if (!s)
        return nomem(r);
    r->subsys = s;
    uint32_t **p = realloc(r->pathof, n * sizeof(*p));
    if (!p)
        return nomem(r);
    r->pathof = p;
    uint32_t *ro = realloc(r->roots, n * sizeof(*ro));
    if (!ro)
        return nomem(r);
    r->roots = ro;
    r->subsys[r->nsub] = sym;
    r->pathof[r->nsub] = NULL;
    r->roots[r->nsub] = NONE;
    r->nsub = n;
    return 0;
}

/* The graph rank of a vertex with inherited node rank rank and type t. */
static int64_t graph_rank(const grug_t *r, grove_sym_t type, int64_t rank)
{
    int mode = r->opts ? r->opts->ranks : GROVE_GRUG_RANK_NODES;
    if (mode == GROVE_GRUG_RANK_NONE)
        return GROVE_ID_NONE;
    if (mode == GROVE_GRUG_RANK_SUBTREE || type == r->sym_node)
        return rank;
    return GROVE_ID_NONE;
}

/* Join graph vertices a (above) and b in the edge's subsystem with its
 * relation and reverse relation.  For associations, an edge already there
 * is not repeated, and one the graph refuses (a second containment parent,
 * a cycle, a self-loop) is dropped, or fails in strict mode. */
/* The graph's symbol of property k (0 subsystem, 1 relation, 2 reverse
 * relation) of recipe edge e, interned at its first use: the edges of a
 * recipe make millions of pairs from a few names.  GROVE_SYM_NONE with
 * ENOMEM. */
static grove_sym_t edge_sym(grug_t *r, const redge_t *e, int k)
{
    static const int prop[3] = {P_E_SUBSYSTEM, P_RELATION, P_RRELATION};
    redge_t *me = &r->e[e - r->e];
    if (!(me->gmade & (1u << k))) {
        me->gsym[k] = grove_graph_sym(r->g, S(r, e->p[prop[k]].str));
        if (me->gsym[k] == GROVE_SYM_NONE)
            return GROVE_SYM_NONE;
        me->gmade |= (uint8_t)(1u << k);
    }
    return me->gsym[k];
}

static int add_pair(grug_t *r, grove_vid_t a, grove_vid_t b, const redge_t *e)
{
    const char *sub = S(r, e->p[P_E_SUBSYSTEM].str);
    bool assoc = e->gen != GEN_MULTIPLY;
    grove_error_t tmp;
    grove_error_clear(&tmp);
    if (assoc) {
        grove_sym_t ssym = grove_graph_sym_lookup(r->g, sub);
        if (ssym != GROVE_SYM_NONE)
            for (grove_eid_t x = grove_vertex_first_in(r->g, b); x != GROVE_EID_NONE;
                 x = grove_edge_next_in(r->g, x))
                if (grove_edge_src(r->g, x) == a && grove_edge_subsystem(r->g, x) == ssym
                    && !grove_edge_is_up(r->g, x))
                    return 0;
    }
    grove_eid_t down = GROVE_EID_NONE;
    bool included = false; /* linked by "includes" below a second parent */
    const char *rel = S(r, e->p[P_RELATION].str), *rrel = S(r, e->p[P_RRELATION].str);
    if (a == b) {
        errno = EINVAL;
        grove_error_set(&tmp, NULL, 0, "%s would be linked to itself", grove_vertex_name(r->g, a));
    } else {
        grove_sym_t ssym = e->gmade & 1 ? e->gsym[0] : edge_sym(r, e, 0);
        grove_sym_t rsym = e->gmade & 2 ? e->gsym[1] : edge_sym(r, e, 1);
        down = ssym == GROVE_SYM_NONE || rsym == GROVE_SYM_NONE
                   ? GROVE_EID_NONE
                   : grovep_add_edge_sym(r->g, a, b, ssym, rsym, 0, &tmp);
        if (down == GROVE_EID_NONE && assoc && errno == EINVAL
            && grove_vertex_parent(r->g, b, grove_graph_sym(r->g, sub)) != GROVE_VID_NONE) {
            /* b already has its parent: an association links it below a
             * second vertex without changing its place in the tree */
            rel = GROVE_INCLUDES;
            rrel = GROVE_INCLUDED_IN;
            included = true;
            down = grovep_add_edge(r->g, a, b, sub, rel, 0, &tmp);
        }
    }
    if (down == GROVE_EID_NONE) {
        if (errno == ENOMEM)
            return nomem(r);
        if (assoc && !(r->opts && (r->opts->flags & GROVE_GRUG_STRICT))) {
            r->dropped++;
            return 0;
        }
        return fail(r, e->line, EINVAL, "%s edge: %s", gen_names[e->gen], tmp.text);
    }
    grove_sym_t rrsym = included ? GROVE_SYM_NONE : e->gmade & 4 ? e->gsym[2] : edge_sym(r, e, 2);
    if ((rrsym == GROVE_SYM_NONE ? grovep_add_edge(r->g, b, a, sub, rrel, 1, &tmp)
                                 : grovep_add_edge_sym(r->g, b, a, e->gsym[0], rrsym, 1, &tmp))
        == GROVE_EID_NONE) {
        int saved = errno;
        grovep_edge_remove(r->g, down);
        if (saved == ENOMEM)
            return nomem(r);
        return fail(r, e->line, EINVAL, "%s edge: %s", gen_names[e->gen], tmp.text);
    }
    return 0;
}

static uint32_t new_pn(grug_t *r, uint32_t parent, uint32_t ev)
{
    if (r->npn >= NONE - 1 || grovep_grow((void **)&r->pn, &r->pncap, r->npn + 1, sizeof(*r->pn)) < 0) {
        nomem(r);
        return NONE;
    }
    r->pn[r->npn] = (pnode_t){.parent = parent, .ev = ev};
    return (uint32_t)r->npn++;
}

/* A new generated vertex from template ti under epar (NONE: a root) by
 * edge e (NULL for a root).  Returns its index or NONE (error set). */
static uint32_t new_ev(grug_t *r, uint32_t ti, uint32_t epar, int64_t id, const redge_t *e)
{
    if (r->nev >= r->max_ev) {
        fail(r, e ? e->line : r->t[ti].line, EOVERFLOW,
             "the recipe generates more than %zu vertices", r->max_ev);
        return NONE;
    }
    if (r->nev == r->evcap) {
        size_t cap = r->evcap;
        if (grovep_grow((void **)&r->ev, &cap, r->nev + 1, sizeof(*r->ev)) < 0) {
            nomem(r);
            return NONE;
        }
        if (r->assoc) {
            evname_t *n = realloc(r->evn, cap * sizeof(*n));
            if (!n) {
                nomem(r);
                return NONE;
            }
            r->evn = n;
        }
        for (size_t s = 0; s < r->nsub && r->assoc; s++) {
            uint32_t *p = realloc(r->pathof[s], cap * sizeof(*p));
            if (!p) {
                nomem(r);
                return NONE;
            }
            for (size_t i = r->evcap; i < cap; i++)
                p[i] = NONE;
            r->pathof[s] = p;
        }
        r->evcap = cap;
    }
    const tmpl_t *t = &r->t[ti];
    grove_sym_t type = t->p[P_TYPE].str;
    bool kept = !r->keep_type || r->keep_type[type];
    uint32_t v = (uint32_t)r->nev;
    ev_t *x = &r->ev[v];
    if (r->assoc)
        r->evn[v] = (evname_t){id, ti};
    x->gv = GROVE_VID_NONE;
    x->rank = -1;
    if (type == r->sym_node && kept)
        x->rank = r->next_rank++;
    else if (epar != NONE && e && e->p[P_E_SUBSYSTEM].str == r->sym_containment)
        x->rank = r->ev[epar].rank;
    if (kept) {
        tmpl_t *mt = &r->t[ti];
        if (!mt->gsyms) {
            /* the order add_vertex interns them in */
            static const int prop[3] = {P_TYPE, P_BASENAME, P_UNIT};
            for (int k = 0; k < 3; k++)
                if ((mt->gsym[k] = grove_graph_sym(r->g, S(r, t->p[prop[k]].str)))
                    == GROVE_SYM_NONE) {
                    nomem(r);
                    return NONE;
                }
            mt->gsyms = true;
        }
        grove_vertex_info_t info;
        grove_vertex_info_init(&info);
        info.id = id;
        info.rank = graph_rank(r, type, x->rank);
        info.size = t->p[P_SIZE].num;
        x->gv = grovep_add_vertex_sym(r->g, &info, mt->gsym[0], mt->gsym[1], mt->gsym[2]);
        if (x->gv == GROVE_VID_NONE) {
            if (errno == ENOMEM)
                nomem(r);
            else
                fail(r, t->line, errno, "node \"%s\": cannot create a vertex",
                     S(r, t->xml_id));
            return NONE;
        }
    }
    x->kgv = kept ? x->gv : epar != NONE ? r->ev[epar].kgv : GROVE_VID_NONE;
    r->nev++;
    GROVE_PROGRESS(GRUG_STEP, r->nev, r->nev, r->total);
    if (r->assoc) {
        int ss = sub_index(r, t->p[P_SUBSYSTEM].str);
        uint32_t ppn = epar != NONE ? r->pathof[ss][epar] : NONE;
        uint32_t pn = new_pn(r, ppn, v);
        if (pn == NONE)
            return NONE;
        r->pathof[ss][v] = pn;
        if (vec_push(&r->by_type[type], v) < 0) {
            nomem(r);
            return NONE;
        }
    }
    if (kept && epar != NONE && r->ev[epar].kgv != GROVE_VID_NONE
        && add_pair(r, r->ev[epar].kgv, x->gv, e) < 0)
        return NONE;
    return v;
}

/* The root vertex of template ti's subsystem, made on first use. */
static uint32_t root_ev(grug_t *r, uint32_t ti)
{
    int ss = sub_index(r, r->t[ti].p[P_SUBSYSTEM].str);
    if (r->roots[ss] == NONE)
        r->roots[ss] = new_ev(r, ti, NONE, 0, NULL);
    return r->roots[ss];
}

/* Id of the i-th of sz children of the j-th parent (see grug.h). */
static int gen_id(grug_t *r, const redge_t *e, int64_t i, int64_t sz, int64_t j, int64_t *out)
{
    int64_t scope = e->p[P_ID_SCOPE].num, start = e->p[P_ID_START].num;
    int64_t stride = e->p[P_ID_STRIDE].num, v, a, b;
    if (scope < 0) {
        *out = GROVE_ID_NONE;
        return 0;
    }
    if (scope == 0) {
        if (__builtin_add_overflow(start, i, &v))
            goto overflow;
    } else {
        if ((uint64_t)scope > r->nhier)
            scope = (int64_t)r->nhier;
        int64_t wrap = 1;
        for (int64_t h = 0; h < scope; h++)
            if (__builtin_mul_overflow(wrap, r->hier[r->nhier - 1 - (size_t)h], &wrap))
                goto overflow;
        int64_t jj = wrap > 0 ? j % wrap : 0;
        if (__builtin_mul_overflow(jj, sz, &a) || __builtin_mul_overflow(a, stride, &a)
            || __builtin_mul_overflow(i, stride, &b) || __builtin_add_overflow(start, a, &v)
            || __builtin_add_overflow(v, b, &v))
            goto overflow;
    }
    if (v < 0)
        return fail(r, e->line, EINVAL, "%s edge: generated id %lld is negative",
                    gen_names[e->gen], (long long)v);
    *out = v;
    return 0;
overflow:
    return fail(r, e->line, EOVERFLOW, "%s edge: generated id overflows", gen_names[e->gen]);
}

/* Link s to t by association edge e: t's path in e_subsystem now runs
 * through s, the graph gets the edges, t joins the target's list. */
static int associate(grug_t *r, uint32_t s, uint32_t t, const redge_t *e)
{
    int es = sub_index(r, e->p[P_E_SUBSYSTEM].str);
    uint32_t pn = new_pn(r, r->pathof[es][s], t);
    if (pn == NONE)
        return -1;
    r->pathof[es][t] = pn;
    if (r->ev[s].gv != GROVE_VID_NONE && r->ev[t].gv != GROVE_VID_NONE
        && add_pair(r, r->ev[s].gv, r->ev[t].gv, e) < 0)
        return -1;
    if (vec_push(&r->gen[e->dst], t) < 0)
        return nomem(r);
    return 0;
}

/* Append text to r->pbuf at *len, growing it. */
static int pbuf_put(grug_t *r, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pbuf_put(grug_t *r, size_t *len, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->pbuf ? r->pbuf + *len : NULL, r->pbuf ? r->pbufcap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if (r->pbuf && *len + (size_t)n < r->pbufcap) {
            *len += (size_t)n;
            return 0;
        }
        if (grovep_grow((void **)&r->pbuf, &r->pbufcap, *len + (size_t)n + 1, 1) < 0)
            return -1;
    }
}

/* The path string of path node pn into r->pbuf ("" when pn is NONE), or
 * NULL (ENOMEM). */
static const char *path_str(grug_t *r, uint32_t pn)
{
    size_t depth = 0, len = 0;
    for (uint32_t p = pn; p != NONE; p = r->pn[p].parent)
        depth++;
    uint32_t *chain = malloc((depth ? depth : 1) * sizeof(*chain));
    if (!chain)
        return NULL;
    size_t i = depth;
    for (uint32_t p = pn; p != NONE; p = r->pn[p].parent)
        chain[--i] = r->pn[p].ev;
    int rc = pbuf_put(r, &len, "%s", "");
    for (i = 0; i < depth && rc == 0; i++) {
        const evname_t *x = &r->evn[chain[i]];
        const char *b = S(r, r->t[x->tmpl].p[P_BASENAME].str);
        rc = x->id >= 0 ? pbuf_put(r, &len, "/%s%lld", b, (long long)x->id)
                        : pbuf_put(r, &len, "/%s", b);
    }
    free(chain);
    return rc == 0 ? r->pbuf : NULL;
}

/* The comparison key of a path for ASSOCIATE_BY_PATH_IN: the path with its
 * last uplvl components dropped and a trailing '/', or "" when the path has
 * no more than uplvl components.  An uplvl below 1 drops one component. */
static grove_sym_t path_key(grug_t *r, uint32_t pn, int64_t uplvl)
{
    const char *p = path_str(r, pn);
    if (!p)
        return GROVE_SYM_NONE;
    int64_t slashes = 0;
    for (const char *c = p; *c; c++)
        slashes += *c == '/';
    if (uplvl >= slashes)
        return GROVE_SYM_EMPTY;
    int64_t want = slashes - uplvl + 1, seen = 0;
    size_t pos = 0;
    while (seen != want) {
        const char *q = strchr(p + pos, '/');
        if (!q)
            break;
        pos = (size_t)(q - p) + 1;
        seen++;
    }
    if (pos > 0 && p[pos - 1] == '/')
        return grove_intern_n(r->s, p, pos);
    /* an empty prefix becomes "/" */
    char *k = malloc(pos + 2);
    if (!k)
        return GROVE_SYM_NONE;
    memcpy(k, p, pos);
    k[pos] = '/';
    grove_sym_t s = grove_intern_n(r->s, k, pos + 1);
    free(k);
    return s;
}

typedef struct keyed {
    grove_sym_t key;
    uint32_t pos;
} keyed_t;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    int c = GROVEP_CMP(x->key, y->key);
    return c ? c : GROVEP_CMP(x->pos, y->pos);
}

static int associate_by_path(grug_t *r, const redge_t *e)
{
    int in = sub_index(r, e->p[P_AS_TGT_SUBSYSTEM].str);
    const u32vec_t *tl = &r->by_type[r->t[e->dst].p[P_TYPE].str];
    size_t nt = tl->n;
    keyed_t *k = malloc((nt ? nt : 1) * sizeof(*k));
    if (!k)
        return nomem(r);
    for (size_t i = 0; i < nt; i++) {
        k[i].pos = (uint32_t)i;
        k[i].key = path_key(r, r->pathof[in][tl->a[i]], e->p[P_AS_TGT_UPLVL].num);
        if (k[i].key == GROVE_SYM_NONE) {
            free(k);
            return nomem(r);
        }
    }
    qsort(k, nt, sizeof(*k), keyed_cmp);
    int rc = 0;
    const u32vec_t *sl = &r->gen[e->src];
    for (size_t j = 0; j < sl->n && rc == 0; j++) {
        uint32_t s = sl->a[j];
        grove_sym_t ks = path_key(r, r->pathof[in][s], e->p[P_AS_SRC_UPLVL].num);
        if (ks == GROVE_SYM_NONE) {
            rc = nomem(r);
            break;
        }
        size_t lo;
        GROVEP_LOWER_BOUND(lo, nt, mid, k[mid].key < ks);
        for (size_t i = lo; i < nt && k[i].key == ks && rc == 0; i++)
            rc = associate(r, s, tl->a[k[i].pos], e);
    }
    free(k);
    return rc;
}

static int tree_edge(grug_t *r, uint32_t ei)
{
    const redge_t *e = &r->e[ei];
    if (r->t[e->src].p[P_ROOT].num && r->gen[e->src].n == 0) {
        uint32_t v = root_ev(r, e->src);
        if (v == NONE || vec_push(&r->gen[e->src], v) < 0)
            return v == NONE ? -1 : nomem(r);
    }
    r->gen[e->dst].n = 0;
    const u32vec_t *src = &r->gen[e->src];
    switch (e->gen) {
    case GEN_MULTIPLY: {
        int64_t sz = e->p[P_MULTI_SCALE].num; /* the counting pass kept it in the limit */
        for (size_t j = 0; j < src->n; j++) {
            for (int64_t i = 0; i < sz; i++) {
                int64_t id = 0;
                if (gen_id(r, e, i, sz, (int64_t)j, &id) < 0)
                    return -1;
                uint32_t v = new_ev(r, e->dst, src->a[j], id, e);
                if (v == NONE)
                    return -1;
                if (vec_push(&r->gen[e->dst], v) < 0)
                    return nomem(r);
            }
        }
        if (grovep_grow((void **)&r->hier, &r->hiercap, r->nhier + 1, sizeof(*r->hier)) < 0)
            return nomem(r);
        r->hier[r->nhier++] = sz;
        return 0;
    }
    case GEN_ASSOCIATE_IN: {
        const u32vec_t *tl = &r->by_type[r->t[e->dst].p[P_TYPE].str];
        size_t nt = tl->n;
        for (size_t j = 0; j < src->n; j++)
            for (size_t i = 0; i < nt; i++)
                if (associate(r, src->a[j], tl->a[i], e) < 0)
                    return -1;
        return 0;
    }
    default:
        return associate_by_path(r, e);
    }
}

static int finish_tmpl(grug_t *r, uint32_t ti)
{
    if (r->nhier)
        r->nhier--;
    if (r->t[ti].p[P_ROOT].num && r->gen[ti].n == 0) {
        uint32_t v = root_ev(r, ti);
        if (v == NONE)
            return -1;
    }
    /* the walk never comes back to a finished template (its edges are
     * done and it is never entered again): its list goes now, not at the
     * end, when the lists of all templates would be held at once */
    free(r->gen[ti].a);
    r->gen[ti] = (u32vec_t){0};
    return 0;
}

/* ---- the size of the expansion, before it is built ----------------------- */

/* The counting pass walks the recipe as the building pass will, with the
 * number of vertices each template generates instead of the vertices:
 * a recipe whose multipliers reach billions is refused at the edge that
 * passes the limit in microseconds, before any vertex is made, instead of
 * after its memory has run out. */
static void count_root(grug_t *r, uint32_t ti)
{
    int ss = sub_index(r, r->t[ti].p[P_SUBSYSTEM].str);
    if (!r->root_counted[ss]) {
        r->root_counted[ss] = true;
        r->counted++;
    }
    r->count[ti] = 1; /* the subsystem's one root, as root_ev gives it */
}

static int count_edge(grug_t *r, uint32_t ei)
{
    const redge_t *e = &r->e[ei];
    if (r->t[e->src].p[P_ROOT].num && r->count[e->src] == 0)
        count_root(r, e->src);
    r->count[e->dst] = 0;
    if (e->gen != GEN_MULTIPLY)
        return 0; /* associations make edges only */
    uint64_t n;
    if (__builtin_mul_overflow(r->count[e->src], (uint64_t)e->p[P_MULTI_SCALE].num, &n))
        n = UINT64_MAX;
    r->count[e->dst] = n;
    if (__builtin_add_overflow(r->counted, n, &r->counted))
        r->counted = UINT64_MAX;
    if (r->counted > r->max_ev)
        return fail(r, e->line, EOVERFLOW,
                    "the recipe generates more than %zu vertices (the limit: "
                    "GROVE_MAX_VERTICES or the max_vertices option)",
                    r->max_ev);
    return 0;
}

static int count_finish(grug_t *r, uint32_t ti)
{
    if (r->t[ti].p[P_ROOT].num && r->count[ti] == 0)
        count_root(r, ti);
    return 0;
}

/* Depth-first walk of the recipe, templates in order, edges in order;
 * counting (r->count set) or building. */
static int walk(grug_t *r)
{
    uint8_t *color = calloc(r->nt, 1);
    struct frame {
        uint32_t t, k;
    } *stack = malloc(r->nt * sizeof(*stack));
    int rc = 0;
    if (!color || !stack) {
        rc = nomem(r);
        goto done;
    }
    for (uint32_t s = 0; s < r->nt && rc == 0; s++) {
        if (color[s])
            continue;
        size_t top = 0;
        color[s] = 1;
        stack[top++] = (struct frame){s, 0};
        while (top && rc == 0) {
            struct frame *f = &stack[top - 1];
            const tmpl_t *t = &r->t[f->t];
            if (f->k < t->nout) {
                uint32_t ei = r->eorder[t->first + f->k++];
                uint32_t d = r->e[ei].dst;
                if (color[d])
                    continue;
                rc = r->count ? count_edge(r, ei) : tree_edge(r, ei);
                color[d] = 1;
                stack[top++] = (struct frame){d, 0};
            } else {
                rc = r->count ? count_finish(r, f->t) : finish_tmpl(r, f->t);
                color[f->t] = 2;
                top--;
            }
        }
    }
done:
    free(color);
    free(stack);
    return rc;
}

static int expand(grug_t *r)
{
    for (size_t i = 0; i < r->ne; i++)
        if (r->e[i].gen != GEN_MULTIPLY)
            r->assoc = true;
    for (size_t i = 0; i < r->nt; i++)
        if (add_sub(r, r->t[i].p[P_SUBSYSTEM].str) < 0)
            return -1;
    for (size_t i = 0; i < r->ne; i++)
        if (add_sub(r, r->e[i].p[P_E_SUBSYSTEM].str) < 0
            || add_sub(r, r->e[i].p[P_AS_TGT_SUBSYSTEM].str) < 0)
            return -1;
    r->ntypesyms = grove_intern_count(r->s);
    r->by_type = calloc(r->ntypesyms, sizeof(*r->by_type));
    r->gen = calloc(r->nt, sizeof(*r->gen));
    if (!r->by_type || !r->gen)
        return nomem(r);
    r->sym_node = grove_intern_lookup(r->s, "node");
    r->sym_containment = grove_intern_lookup(r->s, GROVE_CONTAINMENT);
    if (r->opts && r->opts->types) {
        r->keep_type = calloc(r->ntypesyms, sizeof(*r->keep_type));
        if (!r->keep_type)
            return nomem(r);
        for (const char *const *ty = r->opts->types; *ty; ty++) {
            grove_sym_t s = grove_intern_lookup(r->s, *ty);
            if (s != GROVE_SYM_NONE && s < r->ntypesyms)
                r->keep_type[s] = true;
        }
    }
    grove_limits_t lim;
    grove_limits_get(&lim);
    r->max_ev = r->opts && r->opts->max_vertices ? r->opts->max_vertices
                : lim.vertices < SIZE_MAX             ? (size_t)lim.vertices
                                                      : SIZE_MAX;
    r->count = calloc(r->nt ? r->nt : 1, sizeof(*r->count));
    r->root_counted = calloc(r->nsub ? r->nsub : 1, sizeof(*r->root_counted));
    if (!r->count || !r->root_counted)
        return nomem(r);
    int rc = walk(r);
    r->total = r->counted;
    free(r->count);
    r->count = NULL;
    if (rc < 0)
        return -1;
    r->g = grove_graph_create();
    if (!r->g)
        return nomem(r);
    if (walk(r) < 0)
        return -1;
    if (r->nev == 0)
        return fail(r, 0, EINVAL, "the recipe generates no vertices (no node has root=1)");
    return 0;
}

/* ---- public ------------------------------------------------------------------- */

static void grug_fini(grug_t *r)
{
    grove_intern_destroy(r->s);
    GROVEP_FREE_ALL(r->keys, r->t, r->e, r->eorder, r->tmpl_of_sym, r->ev, r->evn, r->pn);
    GROVEP_FREE_ARRAY(r->pathof, r->nsub);
    GROVEP_FREE_ALL(r->subsys, r->roots);
    if (r->gen)
        for (size_t i = 0; i < r->nt; i++)
            free(r->gen[i].a);
    free(r->gen);
    if (r->by_type)
        for (size_t i = 0; i < r->ntypesyms; i++)
            free(r->by_type[i].a);
    GROVEP_FREE_ALL(r->by_type, r->hier, r->keep_type, r->pbuf, r->count, r->root_counted);
}

/* The first error libxml2 reports (later ones are often consequences). */
typedef struct xml_first {
    bool set;
    int line;
    char msg[300];
} xml_first_t;

#if LIBXML_VERSION >= 21200
static void xml_error(void *data, const xmlError *e)
#else
static void xml_error(void *data, xmlErrorPtr e)
#endif
{
#if LIBXML_VERSION >= 21300
    xml_first_t *f = data;
#else
    xml_first_t *f = ((xmlParserCtxtPtr)data)->_private;
#endif
    if (f->set || !e || e->level < XML_ERR_ERROR)
        return;
    f->set = true;
    f->line = e->line;
    snprintf(f->msg, sizeof(f->msg), "%s", e->message ? e->message : "unknown error");
    size_t n = strlen(f->msg);
    while (n && (f->msg[n - 1] == '\n' || f->msg[n - 1] == ' '))
        f->msg[--n] = '\0';
}

grove_graph_t *grove_grug_read(const char *text, size_t len, const char *source,
                               const grove_grug_opts_t *opts, grove_error_t *err)
{
    grove_error_clear(err);
    grug_t r = {.source = source, .err = err, .opts = opts};
    grove_limits_t lim;
    grove_limits_get(&lim);
    r.max_size = lim.size;
    if (!text && len) {
        fail(&r, 0, EINVAL, "no recipe text");
        return NULL;
    }
    if (len > INT_MAX) {
        fail(&r, 0, EOVERFLOW, "recipe too large (%zu bytes)", len);
        return NULL;
    }
    grovep_xml_init();
    r.s = grove_intern_create();
    xmlParserCtxtPtr ctxt = r.s ? xmlNewParserCtxt() : NULL;
    if (!ctxt) {
        grove_intern_destroy(r.s);
        nomem(&r);
        return NULL;
    }
    xml_first_t first = {0};
#if LIBXML_VERSION >= 21300
    xmlCtxtSetErrorHandler(ctxt, xml_error, &first);
#else
    ctxt->sax->serror = xml_error; /* called with the context as data */
    ctxt->_private = &first;
#endif
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, text ? text : "", (int)len, source, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR
                                          | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    grove_graph_t *g = NULL;
    if (!doc || first.set) {
        if (!first.set) {
            const xmlError *xe = xmlCtxtGetLastError(ctxt);
            first.line = xe ? xe->line : 0;
            snprintf(first.msg, sizeof(first.msg), "%s",
                     xe && xe->message ? xe->message : "unknown error");
            size_t n = strlen(first.msg);
            while (n && (first.msg[n - 1] == '\n' || first.msg[n - 1] == ' '))
                first.msg[--n] = '\0';
        }
        fail(&r, first.line, EINVAL, "malformed XML: %s", first.msg);
    } else if (parse_doc(&r, doc) == 0 && expand(&r) == 0) {
        g = r.g;
        r.g = NULL;
        if (opts && opts->dropped)
            *opts->dropped = r.dropped;
    }
    int saved = errno;
    grove_progress_end(GRUG_STEP);
    if (doc)
        xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    grove_graph_destroy(r.g);
    grug_fini(&r);
    errno = saved;
    return g;
}

static void *read_text(const char *text, size_t len, const char *source, const void *opts,
                       grove_error_t *err)
{
    return grove_grug_read(text, len, source, opts, err);
}

grove_graph_t *grove_grug_load(const char *path, const grove_grug_opts_t *opts,
                               grove_error_t *err)
{
    grove_error_clear(err);
    if (!path) {
        grovep_errorf(err, EINVAL, "no recipe path");
        return NULL;
    }
    return grovep_load_file(path, NULL, read_text, opts, err);
}
