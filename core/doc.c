/* doc.c: reading a YAML or JSON request document with the lines its nodes
 * started on, and the messages that name them.
 *
 * Workload: one read per submitted jobspec or constraint text, documents
 * of a few hundred bytes to a few kilobytes.  Input is hostile: it comes
 * from users, so every malformed document must produce one clear message
 * and no crash, however deep, wide, aliased or mis-typed it is.
 *
 * YAML (libyaml events) or JSON (jansson) becomes one jansson document
 * plus a "line shadow" recording where each YAML node started (see
 * doc_private.h).  Plain YAML scalars are resolved as YAML 1.1 does (what
 * the jobspec RFCs cite): null, booleans (true/yes/on...), integers
 * (decimal, 0x, 0o/0 octal, 0b) and reals; quoted scalars are strings.
 * Duplicate keys, multiple documents, nesting deeper than GROVE_NEST_MAX
 * and alias expansions beyond GROVE_YAML_MAX_NODES are refused.  Key paths
 * ("resources[0].with[1].count") and "SOURCE:LINE: PATH: reason" messages
 * are built here too.
 *
 * This file must not validate what a document means (jobspec.c for
 * jobspecs, constraint.c for RFC 31 constraints): both read through it, so
 * the constraint parser does not depend on the jobspec reader.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "limit.h" /* GROVE_NEST_MAX */
#include "error_private.h"
#include "json_private.h"
#include "util.h"
#include "doc_private.h"

#define GROVE_YAML_MAX_ANCHORS 4096
#define GROVE_YAML_MAX_NODES (1 << 20) /* nodes after alias expansion */

/* ==================================================================== */
/* Paths and messages                                                    */
/* ==================================================================== */

static void path_append(grovep_path_t *p, const char *s, size_t n)
{
    size_t room = sizeof(p->buf) - 1 - p->len;
    if (n > room) {
        /* Keep what fits and mark the cut. */
        memcpy(p->buf + p->len, s, room);
        p->len += room;
        p->buf[p->len] = '\0';
        if (p->len >= 3)
            memcpy(p->buf + p->len - 3, "...", 3);
        return;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    p->buf[p->len] = '\0';
}

size_t grovep_path_key(grovep_path_t *p, const char *key)
{
    size_t old = p->len;
    if (p->len > 0)
        path_append(p, ".", 1);
    path_append(p, key, strlen(key));
    return old;
}

size_t grovep_path_index(grovep_path_t *p, size_t i)
{
    char b[32];
    size_t old = p->len;
    int n = snprintf(b, sizeof(b), "[%zu]", i);
    path_append(p, b, (size_t)n);
    return old;
}

void grovep_path_pop(grovep_path_t *p, size_t len)
{
    if (len <= p->len) {
        p->len = len;
        p->buf[len] = '\0';
    }
}

const char *grovep_typename(const json_t *v)
{
    /* a jobspec may be YAML: its containers are mappings and lists */
    if (json_is_object(v))
        return "a mapping";
    if (json_is_array(v))
        return "a list";
    return grovep_json_type_name(v);
}

/* ==================================================================== */
/* Line shadows                                                          */
/* ==================================================================== */

int grovep_line(const json_t *sh)
{
    if (!sh)
        return 0;
    if (json_is_integer(sh))
        return (int)json_integer_value(sh);
    if (json_is_array(sh))
        return (int)json_integer_value(json_array_get(sh, 0));
    return 0;
}

const json_t *grovep_shadow_key(const json_t *sh, const char *key)
{
    if (!sh || !json_is_array(sh))
        return NULL;
    return json_object_get(json_array_get(sh, 1), key);
}

const json_t *grovep_shadow_index(const json_t *sh, size_t i)
{
    if (!sh || !json_is_array(sh))
        return NULL;
    return json_array_get(sh, i + 1);
}

/* ==================================================================== */
/* Reading YAML                                                          */
/* ==================================================================== */

typedef struct yframe {
    json_t *node;   /* object or array being filled */
    json_t *shadow; /* its shadow */
    char *key;      /* mapping: the pending key, NULL when a key is expected */
    int key_line;   /* line of the pending key */
    char *anchor;   /* registered when the node is complete */
    size_t weight;  /* expanded size of the subtree so far */
} yframe_t;

typedef struct yanchor {
    char *name;
    json_t *node, *shadow;
    size_t weight;
} yanchor_t;

typedef struct yreader {
    yframe_t stack[GROVE_NEST_MAX];
    int depth;
    yanchor_t *anchors;
    size_t nanchors, anchor_cap;
    json_t *root, *root_shadow;
    size_t total; /* nodes so far, aliases expanded */
    const char *source;
    grove_error_t *err;
} yreader_t;

static int yfail(yreader_t *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int yfail(yreader_t *r, int line, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, r->err, EINVAL, r->source, line, NULL, GROVEP_REASON_MAX);
}

static int ynomem(yreader_t *r)
{
    return grovep_error_nomem(r->err, r->source);
}

static char *ystrdup(const unsigned char *s)
{
    return s ? strdup((const char *)s) : NULL;
}

static int yanchor_add(yreader_t *r, char *name, json_t *node, json_t *shadow, size_t weight,
                       int line)
{
    for (size_t i = 0; i < r->nanchors; i++) {
        if (strcmp(r->anchors[i].name, name) == 0) {
            /* YAML allows redefinition: the later one wins. */
            json_decref(r->anchors[i].node);
            json_decref(r->anchors[i].shadow);
            free(r->anchors[i].name);
            r->anchors[i] = (yanchor_t){name, json_incref(node), json_incref(shadow), weight};
            return 0;
        }
    }
    if (r->nanchors >= GROVE_YAML_MAX_ANCHORS) {
        free(name);
        return yfail(r, line, "more than %d YAML anchors", GROVE_YAML_MAX_ANCHORS);
    }
    if (grovep_grow((void **)&r->anchors, &r->anchor_cap, r->nanchors + 1, sizeof(*r->anchors))
        < 0) {
        free(name);
        return ynomem(r);
    }
    r->anchors[r->nanchors++] = (yanchor_t){name, json_incref(node), json_incref(shadow), weight};
    return 0;
}

/* Attach value and shadow (both stolen) to the open container or make them
 * the root. */
static int yattach(yreader_t *r, json_t *value, json_t *shadow, size_t weight, int line)
{
    if (!value || !shadow) {
        json_decref(value);
        json_decref(shadow);
        return ynomem(r);
    }
    if (r->depth == 0) {
        r->root = value;
        r->root_shadow = shadow;
        return 0;
    }
    yframe_t *f = &r->stack[r->depth - 1];
    f->weight += weight;
    if (json_is_array(f->node)) {
        if (json_array_append_new(f->node, value) < 0) {
            json_decref(shadow);
            return ynomem(r);
        }
        if (json_array_append_new(f->shadow, shadow) < 0)
            return ynomem(r);
        return 0;
    }
    if (!f->key) {
        json_decref(value);
        json_decref(shadow);
        return yfail(r, line, "mapping keys must be scalars");
    }
    if (json_object_get(f->node, f->key)) {
        int kl = f->key_line;
        json_decref(value);
        json_decref(shadow);
        return yfail(r, kl, "duplicate key '%s'", f->key);
    }
    if (json_object_set_new(f->node, f->key, value) < 0) {
        json_decref(shadow);
        return ynomem(r);
    }
    if (json_object_set_new(json_array_get(f->shadow, 1), f->key, shadow) < 0)
        return ynomem(r);
    free(f->key);
    f->key = NULL;
    return 0;
}

bool grovep_str_in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* Parse an integer per YAML 1.1 (sign, _ separators, 0x, 0o, 0b, leading-0
 * octal).  Returns 1 if s is an integer (*out set), 0 if it is not one,
 * -1 if it is one but out of range. */
static int yaml_int(const char *s, long long *out)
{
    bool neg = false;
    unsigned base = 10;
    unsigned long long v = 0, limit;
    const char *p = s;
    bool digits = false;

    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        base = 16, p += 2;
    else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
        base = 8, p += 2;
    else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        base = 2, p += 2;
    else if (p[0] == '0' && p[1] != '\0')
        base = 8, p += 1;
    if (*p == '\0')
        return base == 8 && p[-1] == '0' && p - s == 1 ? (*out = 0, 1) : 0;
    limit = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    bool overflow = false;
    for (; *p; p++) {
        unsigned d;
        if (*p == '_' && digits)
            continue;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (*p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return 0;
        if (d >= base)
            return 0;
        digits = true;
        if (v > (limit - d) / base)
            overflow = true;
        else
            v = v * base + d;
    }
    if (!digits)
        return 0;
    if (overflow)
        return -1;
    *out = neg ? (long long)(0 - v) : (long long)v;
    return 1;
}

/* A YAML 1.1/1.2 float: [-+]? (digits [. digits?] | . digits) ([eE][-+]?digits)?
 * with at least a '.' or an exponent.  Returns 1 with *out, 0 if not a
 * float, -1 for .inf/.nan (which a jobspec cannot use). */
static int yaml_float(const char *s, double *out)
{
    static const char *const special[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf",
                                          "+.INF", "-.inf", "-.Inf", "-.INF", ".nan",
                                          ".NaN", ".NAN", NULL};
    char buf[128];
    size_t n = 0;
    const char *p = s;
    bool digits = false, dot = false, exp = false;

    if (grovep_str_in(s, special))
        return -1;
    if (*p == '-' || *p == '+')
        buf[n++] = *p++;
    for (; *p; p++) {
        if (n >= sizeof(buf) - 1)
            return 0;
        if (*p >= '0' && *p <= '9') {
            digits = true;
            buf[n++] = *p;
        }
        else if (*p == '_' && digits && !exp)
            continue;
        else if (*p == '.' && !dot && !exp) {
            dot = true;
            buf[n++] = *p;
        }
        else if ((*p == 'e' || *p == 'E') && digits && !exp) {
            exp = true;
            buf[n++] = *p;
            if (p[1] == '+' || p[1] == '-')
                buf[n++] = *++p;
            if (!(p[1] >= '0' && p[1] <= '9'))
                return 0;
        }
        else
            return 0;
    }
    if (!digits || (!dot && !exp))
        return 0;
    buf[n] = '\0';
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (*end != '\0' || !isfinite(d))
        return -1;
    *out = d;
    return 1;
}

/* The JSON value of a plain or quoted YAML scalar (new reference), or NULL
 * with the error filled. */
static json_t *yscalar(yreader_t *r, const yaml_event_t *ev, int line)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                        "on", "On", "ON", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", "no", "No", "NO",
                                         "off", "Off", "OFF", NULL};
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    json_t *v;

    if (strlen(s) != len) {
        yfail(r, line, "NUL character in a string");
        return NULL;
    }
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (tag && (strcmp(tag, "tag:yaml.org,2002:str") == 0 || strcmp(tag, "!") == 0))
        plain = false;
    if (plain) {
        long long i;
        double d;
        int rc;
        if (grovep_str_in(s, nulls))
            return json_null();
        if (grovep_str_in(s, trues))
            return json_true();
        if (grovep_str_in(s, falses))
            return json_false();
        if ((rc = yaml_int(s, &i)) == 1)
            return json_integer(i);
        if (rc < 0) {
            yfail(r, line, "integer %s is out of range", s);
            return NULL;
        }
        if ((rc = yaml_float(s, &d)) == 1)
            return json_real(d);
        if (rc < 0) {
            yfail(r, line, "number %s is not finite or out of range", s);
            return NULL;
        }
    }
    if (!(v = json_stringn(s, len))) {
        if (grovep_utf8_valid(s, len))
            ynomem(r); /* jansson's refusal was for want of memory */
        else
            yfail(r, line, "invalid UTF-8 in a string");
    }
    return v;
}

static void yreader_free(yreader_t *r)
{
    for (int i = 0; i < r->depth; i++) {
        json_decref(r->stack[i].node);
        json_decref(r->stack[i].shadow);
        free(r->stack[i].key);
        free(r->stack[i].anchor);
    }
    r->depth = 0;
    for (size_t i = 0; i < r->nanchors; i++) {
        free(r->anchors[i].name);
        json_decref(r->anchors[i].node);
        json_decref(r->anchors[i].shadow);
    }
    free(r->anchors);
    r->anchors = NULL;
    r->nanchors = 0;
}

static int ycount(yreader_t *r, size_t w, int line)
{
    if (w > GROVE_YAML_MAX_NODES || r->total > GROVE_YAML_MAX_NODES - w)
        return yfail(r, line, "document too large (more than %d nodes after alias expansion)",
                     GROVE_YAML_MAX_NODES);
    r->total += w;
    return 0;
}

static int yaml_event(yreader_t *r, yaml_event_t *ev, int *ndocs)
{
    int line = (int)ev->start_mark.line + 1;
    yframe_t *top = r->depth > 0 ? &r->stack[r->depth - 1] : NULL;

    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++*ndocs > 1)
            return yfail(r, line, "more than one YAML document");
        return 0;
    case YAML_SCALAR_EVENT: {
        if (ycount(r, 1, line) < 0)
            return -1;
        if (top && json_is_object(top->node) && !top->key) {
            const char *s = (const char *)ev->data.scalar.value;
            if (strlen(s) != ev->data.scalar.length)
                return yfail(r, line, "NUL character in a key");
            if (!(top->key = strdup(s)))
                return ynomem(r);
            top->key_line = line;
            return 0;
        }
        json_t *v = yscalar(r, ev, line);
        if (!v)
            return -1;
        json_t *sh = json_integer(line);
        if (ev->data.scalar.anchor) {
            char *name = sh ? ystrdup(ev->data.scalar.anchor) : NULL;
            if (!name) {
                json_decref(v);
                json_decref(sh);
                return ynomem(r);
            }
            if (yanchor_add(r, name, v, sh, 1, line) < 0) {
                json_decref(v);
                json_decref(sh);
                return -1;
            }
        }
        return yattach(r, v, sh, 1, line);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool map = ev->type == YAML_MAPPING_START_EVENT;
        const unsigned char *anchor = map ? ev->data.mapping_start.anchor
                                          : ev->data.sequence_start.anchor;
        if (top && json_is_object(top->node) && !top->key)
            return yfail(r, line, "mapping keys must be scalars");
        if (r->depth >= GROVE_NEST_MAX)
            return yfail(r, line, "nesting deeper than %d levels", GROVE_NEST_MAX);
        if (ycount(r, 1, line) < 0)
            return -1;
        yframe_t *f = &r->stack[r->depth];
        memset(f, 0, sizeof(*f));
        f->node = map ? json_object() : json_array();
        f->shadow = json_array();
        f->weight = 1;
        if (!f->node || !f->shadow || json_array_append_new(f->shadow, json_integer(line)) < 0
            || (map && json_array_append_new(f->shadow, json_object()) < 0)
            || json_array_size(f->shadow) != (map ? 2u : 1u)) {
            json_decref(f->node);
            json_decref(f->shadow);
            return ynomem(r);
        }
        if (anchor && !(f->anchor = ystrdup(anchor))) {
            json_decref(f->node);
            json_decref(f->shadow);
            return ynomem(r);
        }
        r->depth++;
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        if (!top)
            return yfail(r, line, "unbalanced YAML events");
        yframe_t f = *top;
        r->depth--;
        free(f.key); /* cannot be pending: libyaml emits a null value */
        if (f.anchor && yanchor_add(r, f.anchor, f.node, f.shadow, f.weight, line) < 0) {
            json_decref(f.node);
            json_decref(f.shadow);
            return -1;
        }
        return yattach(r, f.node, f.shadow, f.weight,
                       (int)json_integer_value(json_array_get(f.shadow, 0)));
    }
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        if (top && json_is_object(top->node) && !top->key)
            return yfail(r, line, "aliases cannot be mapping keys");
        for (size_t i = r->nanchors; i-- > 0;) {
            yanchor_t *a = &r->anchors[i];
            if (strcmp(a->name, name) == 0) {
                if (ycount(r, a->weight, line) < 0)
                    return -1;
                return yattach(r, json_incref(a->node), json_incref(a->shadow), a->weight,
                               line);
            }
        }
        return yfail(r, line, "unknown YAML anchor '%s'", name);
    }
    default:
        return 0;
    }
}

static int read_yaml(const char *text, size_t len, const char *source, json_t **doc,
                     json_t **lines, grove_error_t *err)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    yreader_t *r;
    int ndocs = 0, rc = -1;

    if (!(r = grovep_zalloc(sizeof(*r))))
        return grovep_error_nomem(err, source);
    r->source = source;
    r->err = err;
    if (!yaml_parser_initialize(&parser)) {
        free(r);
        return grovep_error_nomem(err, source);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (;;) {
        if (!yaml_parser_parse(&parser, &ev)) {
            if (parser.error == YAML_MEMORY_ERROR) {
                ynomem(r);
                goto done;
            }
            const char *problem = parser.problem ? parser.problem : "malformed YAML";
            int line = (int)parser.problem_mark.line + 1;
            if (parser.context)
                yfail(r, line, "YAML syntax error: %s %s", parser.context, problem);
            else
                yfail(r, line, "YAML syntax error: %s", problem);
            goto done;
        }
        bool end = ev.type == YAML_STREAM_END_EVENT;
        int erc = yaml_event(r, &ev, &ndocs);
        yaml_event_delete(&ev);
        if (erc < 0)
            goto done;
        if (end)
            break;
    }
    if (!r->root) {
        yfail(r, 0, "empty document");
        goto done;
    }
    *doc = r->root;
    *lines = r->root_shadow;
    r->root = r->root_shadow = NULL;
    rc = 0;
done:
    json_decref(r->root);
    json_decref(r->root_shadow);
    yreader_free(r);
    free(r);
    yaml_parser_delete(&parser);
    return rc;
}

static int read_json(const char *text, size_t len, const char *source, json_t **doc,
                     grove_error_t *err)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!o) {
        grove_error_set(err, source, jerr.line > 0 ? jerr.line : 0, "JSON syntax error: %s",
                        jerr.text);
        errno = EINVAL;
        return -1;
    }
    *doc = o;
    return 0;
}

int grovep_doc_read(const char *text, size_t len, unsigned flags, const char *source,
                    json_t **doc, json_t **lines, grove_error_t *err)
{
    *doc = *lines = NULL;
    if (!text)
        return grovep_error_fail(err, EINVAL, source, 0, "no input");
    if (flags & GROVE_JOBSPEC_JSON)
        return read_json(text, len, source, doc, err);
    if (flags & GROVE_JOBSPEC_YAML)
        return read_yaml(text, len, source, doc, lines, err);
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i < len && (text[i] == '{' || text[i] == '[')) {
        grove_error_t jerr;
        if (read_json(text, len, source, doc, &jerr) == 0)
            return 0;
        if (errno == ENOMEM || read_yaml(text, len, source, doc, lines, NULL) < 0) {
            if (err)
                *err = jerr;
            errno = errno == ENOMEM ? ENOMEM : EINVAL;
            return -1;
        }
        return 0;
    }
    return read_yaml(text, len, source, doc, lines, err);
}
