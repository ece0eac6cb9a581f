/* topo_xml.c: hwloc XML checked before the topology library sees it.
 *
 * Problem: the library that builds topologies from XML trusts its input.
 * A malformed cpuset trips an assertion that aborts the process, an object
 * index in the billions makes it set a bit four billion places out, and
 * its errors say only that the text is "not a valid hwloc XML topology".
 * Grove reads XML from users (files, `grove query` options), so no such
 * text may reach it.
 *
 * Approach: the text is parsed with libxml2 (no network, no entity
 * substitution, no DTD loading) and every element and attribute the
 * topology library interprets is checked against the grammar of its
 * export format: the root element, object types, bitmaps ("0x" and up to
 * eight hex digits per comma-separated 32-bit group, an optional infinite
 * "0xf...f" head), decimal numbers and their ranges, nesting depth.  A
 * refusal names the source, the line and the reason.  What passes is
 * structurally what the library itself writes; topo.c still loads it in a
 * child process (see there), so an input that gets past this file and
 * still crashes the library fails one load, not the engine.
 *
 * Workload: one check per topology file, a few hundred elements; linear in
 * the text.
 *
 * This file must not hold the mapping of objects to vertices or call the
 * topology library (topo.c).
 */
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_private.h"
#include "topo_private.h"
#include "xml_init.h"

/* Deepest element nesting accepted (a machine is about ten levels deep). */
#define MAX_DEPTH 64

/* Most 32-bit groups in a bitmap: 1024 x 32 = 32768 processors. */
#define MAX_GROUPS 1024

/* Largest os_index of a PU or NUMA node (its bit is set in a bitmap). */
#define MAX_SET_INDEX (1u << 20)

/* The object types of the export format, versions 1 and 2. */
static const char *const object_types[] = {
    "System",  "Machine", "Misc",     "Group",    "NUMANode", "Node",     "MemCache", "Package",
    "Socket",  "Die",     "Cache",    "L1Cache",  "L2Cache",  "L3Cache",  "L4Cache",  "L5Cache",
    "L1iCache", "L2iCache", "L3iCache", "Core",   "PU",       "Bridge",   "PCIDev",   "OSDev",
    NULL};

/* Attributes holding bitmaps. */
static const char *const bitmap_attrs[] = {
    "cpuset",   "complete_cpuset",  "online_cpuset",   "allowed_cpuset",
    "nodeset",  "complete_nodeset", "allowed_nodeset", NULL};

/* Attributes holding unsigned decimal numbers, with their largest value. */
static const struct {
    const char *name;
    unsigned long long max;
} number_attrs[] = {
    {"os_index", UINT_MAX},        {"gp_index", (1ull << 48)},
    {"depth", 64},                 {"cache_size", (1ull << 48)},
    {"cache_linesize", 1u << 20},  {"cache_type", 8},
    {"local_memory", (1ull << 60)}, {"memory_size", (1ull << 60)},
    {"bridge_depth", 64},
    {"osdev_type", 16},            {"dont_merge", 1},
    {"kind", UINT_MAX},            {"subkind", UINT_MAX},
    {"nbobjs", 1u << 16},          {"size", (1ull << 60)},
    {"count", (1ull << 60)},       {"relative_depth", 64},
};

struct check {
    const char *source;
    grove_error_t *err;
};

static int refuse(struct check *c, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(struct check *c, const xmlNode *n, const char *fmt, ...)
{
    long line = n ? xmlGetLineNo(n) : 0;
    GROVEP_VFAIL_RETURN(fmt, c->err, EINVAL, c->source, line > 0 && line < INT_MAX ? (int)line : 0,
                        NULL, GROVEP_REASON_MAX);
}

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

static bool is_hex(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A bitmap in the export format: "0x" + 1..8 hex digits per group, groups
 * separated by commas (a group after the first may be empty: all zero),
 * at most MAX_GROUPS of them; or "0xf...f" followed by such groups (an
 * infinite head). */
static bool valid_bitmap(const char *s)
{
    size_t groups = 0;
    if (!strncmp(s, "0xf...f", 7)) {
        s += 7;
        if (!*s)
            return true;
        if (*s++ != ',')
            return false;
    }
    for (;;) {
        if (groups > 0 && (*s == ',' || !*s)) {
            if (++groups > MAX_GROUPS)
                return false;
            if (!*s)
                return true;
            s++;
            continue;
        }
        if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
            return false;
        s += 2;
        size_t d = 0;
        while (is_hex(s[d]))
            d++;
        if (d == 0 || d > 8 || ++groups > MAX_GROUPS)
            return false;
        s += d;
        if (!*s)
            return true;
        if (*s++ != ',')
            return false;
    }
}

/* An unsigned decimal number no larger than max ("-1" too where the
 * format uses it for "none"). */
static bool valid_number(const char *s, unsigned long long max)
{
    if (!strcmp(s, "-1"))
        return true;
    unsigned long long v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        if (v > (max - (unsigned long long)(*s - '0')) / 10)
            return false;
        v = v * 10 + (unsigned long long)(*s - '0');
    }
    return v <= max;
}

static int check_attrs(struct check *c, const xmlNode *n, const char *type)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        const char *name = (const char *)a->name;
        xmlChar *val = xmlNodeListGetString(n->doc, a->children, 1);
        const char *v = val ? (const char *)val : "";
        int rc = 0;
        if (in_list(bitmap_attrs, name) && !valid_bitmap(v)) {
            rc = refuse(c, n, "%s=\"%.40s\": not a bitmap (0x followed by up to 8 hex digits per "
                        "comma-separated group, at most %d groups)",
                        name, v, MAX_GROUPS);
        } else {
            for (size_t i = 0; i < sizeof(number_attrs) / sizeof(number_attrs[0]); i++) {
                if (strcmp(name, number_attrs[i].name))
                    continue;
                unsigned long long max = number_attrs[i].max;
                if (!strcmp(name, "os_index") && type
                    && (!strcmp(type, "PU") || !strcmp(type, "NUMANode") || !strcmp(type, "Node")))
                    max = MAX_SET_INDEX;
                if (!valid_number(v, max))
                    rc = refuse(c, n, "%s=\"%.40s\": expected a number from 0 to %llu", name, v,
                                max);
                break;
            }
        }
        xmlFree(val);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Check n and the elements below it; depth counts from the root. */
static int check_element(struct check *c, const xmlNode *n, int depth)
{
    if (depth > MAX_DEPTH)
        return refuse(c, n, "elements nested deeper than %d", MAX_DEPTH);
    const char *name = (const char *)n->name;
    const char *type = NULL;
    xmlChar *t = NULL;
    if (!strcmp(name, "object")) {
        t = xmlGetProp(n, (const xmlChar *)"type");
        type = (const char *)t;
        if (!type)
            return refuse(c, n, "an object without a type");
        if (!in_list(object_types, type)) {
            int rc = refuse(c, n, "unknown object type \"%.40s\"", type);
            xmlFree(t);
            return rc;
        }
    }
    int rc = check_attrs(c, n, type);
    xmlFree(t);
    for (const xmlNode *k = n->children; rc == 0 && k; k = k->next)
        if (k->type == XML_ELEMENT_NODE)
            rc = check_element(c, k, depth + 1);
    return rc;
}

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_setup(void)
{
    xmlInitParser();
}

void grovep_xml_init(void)
{
    (void)pthread_once(&xml_once, xml_setup);
}

int grovep_topo_xml_check(const char *text, size_t len, const char *source, grove_error_t *err)
{
    grovep_xml_init();
    struct check c = {source, err};
    if (len > INT_MAX)
        return refuse(&c, NULL, "the text is larger than 2 GB");
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return grovep_error_nomem(err, source);
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, text, (int)len, NULL, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int rc = 0;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        char msg[200];
        snprintf(msg, sizeof(msg), "%s", e && e->message ? e->message : "not XML");
        msg[strcspn(msg, "\n")] = '\0';
        rc = grovep_error_fail(err, EINVAL, source, e && e->line > 0 ? e->line : 0,
                               "not well-formed XML: %s", msg);
    } else {
        const xmlNode *root = xmlDocGetRootElement(doc);
        if (!root || strcmp((const char *)root->name, "topology"))
            rc = refuse(&c, root, "the root element is <%s>, not <topology>",
                        root ? (const char *)root->name : "");
        else if (!root->children)
            rc = refuse(&c, root, "an empty topology");
        else
            rc = check_element(&c, root, 0);
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    return rc;
}
