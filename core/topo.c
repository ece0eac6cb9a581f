/* topo.c: node topologies from hwloc, stamped into graphs.
 *
 * Problem: a cluster's nodes are usually alike, and hwloc describes one of
 * them (live, from XML, or synthetic).  Grove needs that node as vertices
 * (socket, core, gpu, memory, storage, ...) once per host, with host names
 * and ranks, filtered to the types a user cares about.
 *
 * Workload and approach: hwloc is asked once per topology; the objects
 * Grove maps are flattened in pre-order into a small array (a few hundred
 * entries: the object's kind, nearest mapped ancestor, id, size), and the
 * hwloc topology is dropped.  Building a cluster then walks that array once
 * per host, with no hwloc calls and one small scratch array per node, so
 * thousands of nodes cost only the graph's own work.  The mapping is in
 * topo.h.
 *
 * This file must not hold graph formats or R: it turns hwloc objects into
 * vertices of a graph and nothing more.
 */
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <sys/single_threaded.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include "error_private.h"
#include "util.h"
#include "hostlist.h"
#include "limit.h"
#include "progress.h"
#include "topo.h"
#include "topo_private.h"
#include "compose.h"
#include "pool.h"

#define TOPO_STEP "building hosts from hwloc" /* the step progress reports name */

#define NONE UINT32_MAX

enum kind {
    K_NODE, K_SOCKET, K_GROUP, K_CACHE, K_MEMORY, K_CORE, K_PU, K_GPU, K_STORAGE,
    K_NUMA, /* a NUMA domain: the locality form only */
    K_COUNT
};

static const char *const kind_type[K_COUNT] = {"node", "socket", "group",   "cache",
                                               "memory", "core", "pu",      "gpu",
                                               "storage", "numanode"};
static const char *const kind_unit[K_COUNT] = {"", "", "", "KB", "GB", "", "", "", "GB", ""};

const char *const GROVE_TOPO_DEFAULT_TYPES[] = {"node", "socket", "core",    "pu",
                                                "gpu",  "memory", "storage", NULL};

/* One mapped hwloc object. */
typedef struct tobj {
    uint8_t kind;       /* enum kind */
    uint8_t nosize;     /* storage: 1 no Size info, 2 an unusable one */
    uint32_t parent;    /* nearest mapped ancestor, NONE for the machine */
    int64_t id;         /* logical index or device number, -1 none */
    int64_t size;       /* units of the pool */
    char basename[16];  /* the type, or "L3cache" and the like */
    char *devid;        /* storage: LinuxDeviceID, else NULL */
    char *devname;      /* storage: the OS device name, for errors */
} tobj_t;

/* One vertex of the locality form below the node (see topo.h). */
typedef struct lobj {
    uint8_t kind;    /* K_SOCKET, K_NUMA, K_CORE or K_GPU */
    uint32_t parent; /* index in l[], NONE for the node */
    int64_t id;      /* logical index; a GPU's number as flux-core gives it */
} lobj_t;

struct grove_topo {
    tobj_t *o;      /* pre-order; o[0] is the machine */
    size_t n, cap;
    lobj_t *l;      /* the locality form, pre-order (parents first) */
    size_t nl;
    char *hostname; /* HostName info or NULL */
    char *source;   /* "FILE", "synthetic \"...\"" or "live topology" */
};

static int fail(grove_error_t *err, const char *source, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(grove_error_t *err, const char *source, int errnum, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, err, errnum, source, 0, NULL, GROVEP_REASON_MAX);
}

void grove_topo_destroy(grove_topo_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->o[i].devid);
        free(t->o[i].devname);
    }
    free(t->o);
    free(t->l);
    free(t->hostname);
    free(t->source);
    free(t);
}

const char *grove_topo_hostname(const grove_topo_t *t)
{
    return t ? t->hostname : NULL;
}

/* ---- flattening ------------------------------------------------------------ */

/* The device number in an OS device name: cuda3 -> 3, rsmi1 -> 1,
 * opencl0d2 -> 2; -1 when the name says nothing. */
static int64_t device_number(const char *name)
{
    const char *p = NULL;
    if (!name)
        return -1;
    if (!strncmp(name, "cuda", 4) || !strncmp(name, "rsmi", 4))
        p = name + 4;
    else if (!strncmp(name, "opencl", 6) && (p = strchr(name + 6, 'd')))
        p++;
    if (!p || *p < '0' || *p > '9')
        return -1;
    return strtoll(p, NULL, 10);
}

/* The object types that map to a kind of size 1 with nothing more. */
static const struct {
    hwloc_obj_type_t type;
    enum kind kind;
} plain_kinds[] = {
    {HWLOC_OBJ_MACHINE, K_NODE}, {HWLOC_OBJ_PACKAGE, K_SOCKET}, {HWLOC_OBJ_GROUP, K_GROUP},
    {HWLOC_OBJ_CORE, K_CORE},    {HWLOC_OBJ_PU, K_PU},
};

/* Map obj: its kind and fields into o; false when Grove does not map it. */
static bool map_object(hwloc_obj_t obj, tobj_t *o)
{
    memset(o, 0, sizeof(*o));
    o->id = obj->logical_index;
    o->size = 1;
    for (size_t i = 0; i < sizeof(plain_kinds) / sizeof(plain_kinds[0]); i++)
        if (obj->type == plain_kinds[i].type) {
            o->kind = plain_kinds[i].kind;
            snprintf(o->basename, sizeof(o->basename), "%s", kind_type[o->kind]);
            return true;
        }
    switch (obj->type) {
    case HWLOC_OBJ_NUMANODE:
        o->kind = K_MEMORY;
        o->size = (int64_t)(obj->attr->numanode.local_memory >> 30);
        break;
    case HWLOC_OBJ_L1CACHE:
    case HWLOC_OBJ_L2CACHE:
    case HWLOC_OBJ_L3CACHE:
    case HWLOC_OBJ_L4CACHE:
    case HWLOC_OBJ_L5CACHE:
    case HWLOC_OBJ_L1ICACHE:
    case HWLOC_OBJ_L2ICACHE:
    case HWLOC_OBJ_L3ICACHE:
        o->kind = K_CACHE;
        o->size = (int64_t)(obj->attr->cache.size / 1024);
        snprintf(o->basename, sizeof(o->basename), "L%u%scache", obj->attr->cache.depth,
                 obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "i" : "");
        return true;
    case HWLOC_OBJ_OS_DEVICE:
        if (obj->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC
            || (obj->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU && obj->name
                && !strncmp(obj->name, "rsmi", 4))) {
            o->kind = K_GPU;
            int64_t d = device_number(obj->name);
            if (d >= 0)
                o->id = d;
            break;
        }
        if (obj->attr->osdev.type == HWLOC_OBJ_OSDEV_BLOCK) {
            o->kind = K_STORAGE;
            const char *sz = hwloc_obj_get_info_by_name(obj, "Size");
            if (!sz) {
                o->nosize = 1;
            } else {
                char *end;
                errno = 0;
                long long kb = strtoll(sz, &end, 10);
                if (errno || end == sz || *end || kb <= 0)
                    o->nosize = 2;
                else
                    o->size = kb / 1000000;
            }
            break;
        }
        return false;
    default:
        return false;
    }
    snprintf(o->basename, sizeof(o->basename), "%s", kind_type[o->kind]);
    return true;
}

static int flatten(grove_topo_t *t, hwloc_topology_t topo, hwloc_obj_t obj, uint32_t parent)
{
    tobj_t o;
    if (map_object(obj, &o)) {
        if (o.kind == K_STORAGE) {
            const char *id = hwloc_obj_get_info_by_name(obj, "LinuxDeviceID");
            o.devid = strdup(id ? id : "-1");
            o.devname = strdup(obj->name ? obj->name : "?");
            if (!o.devid || !o.devname) {
                free(o.devid);
                free(o.devname);
                return -1;
            }
        }
        if (grovep_grow((void **)&t->o, &t->cap, t->n + 1, sizeof(*t->o)) < 0) {
            free(o.devid);
            free(o.devname);
            return -1;
        }
        o.parent = parent;
        parent = (uint32_t)t->n;
        t->o[t->n++] = o;
    }
    hwloc_obj_t c = NULL;
    while ((c = hwloc_get_next_child(topo, obj, c)))
        if (flatten(t, topo, c, parent) < 0)
            return -1;
    return 0;
}

/* ---- the locality form ---------------------------------------------------- */

/* The backends whose OS devices flux-core counts as GPUs (librlist's
 * rhwloc.c, backend_is_coproc). */
static bool gpu_backend(const char *b)
{
    return b
           && (!strcmp(b, "CUDA") || !strcmp(b, "NVML") || !strcmp(b, "OpenCL")
               || !strcmp(b, "RSMI"));
}

static hwloc_obj_t pci_of(hwloc_obj_t o)
{
    hwloc_obj_t p = o->parent;
    while (p && p->type != HWLOC_OBJ_PCI_DEVICE)
        p = p->parent;
    return p;
}

/* A container of the locality form while it is computed: a package, or
 * a NUMA node with processors. */
struct lcont {
    hwloc_const_cpuset_t set;
    int weight;      /* processors in set */
    int first;       /* its first processor: siblings in that order */
    uint8_t kind;    /* K_SOCKET or K_NUMA */
    int64_t id;      /* logical index */
    uint32_t parent; /* index among the containers, NONE: the node */
};

/* Where what covers set goes: the smallest container whose processors
 * include set, the NUMA domain of a socket and domain alike (it sits
 * below the socket); NONE for the node.  self: the container being
 * placed (never its own holder, nor one of its equal set below it), or
 * NONE. */
static uint32_t holder(const struct lcont *c, size_t nc, hwloc_const_cpuset_t set, uint32_t self)
{
    uint32_t best = NONE;
    if (!set || hwloc_bitmap_iszero(set))
        return NONE;
    for (uint32_t i = 0; i < nc; i++) {
        if (i == self || !hwloc_bitmap_isincluded(set, c[i].set))
            continue;
        if (self != NONE && hwloc_bitmap_isequal(set, c[i].set)
            && !(c[i].kind == K_SOCKET && c[self].kind == K_NUMA))
            continue;
        if (best == NONE || c[i].weight < c[best].weight
            || (c[i].weight == c[best].weight && c[i].kind == K_NUMA))
            best = i;
    }
    return best;
}

struct lbuild {
    grove_topo_t *t;
    struct lcont *c;
    size_t nc;
    uint32_t *core_at, *gpu_at; /* each core's, each GPU's container */
    size_t ncore, ngpu;
};

static int lpush(grove_topo_t *t, size_t *cap, uint8_t kind, uint32_t parent, int64_t id)
{
    if (grovep_grow((void **)&t->l, cap, t->nl + 1, sizeof(*t->l)) < 0)
        return -1;
    t->l[t->nl++] = (lobj_t){kind, parent, id};
    return 0;
}

/* Emit in pre-order what container `in` (NONE: the node) holds, below
 * the entry `at` of l[]: its containers by first processor, then its
 * cores, then its GPUs. */
static int lemit(struct lbuild *b, size_t *cap, uint32_t in, uint32_t at)
{
    for (;;) {
        uint32_t next = NONE;
        for (uint32_t i = 0; i < b->nc; i++)
            if (b->c[i].parent == in && b->c[i].weight >= 0
                && (next == NONE || b->c[i].first < b->c[next].first
                    || (b->c[i].first == b->c[next].first && b->c[i].kind < b->c[next].kind)))
                next = i;
        if (next == NONE)
            break;
        b->c[next].weight = -1 - b->c[next].weight; /* emitted */
        uint32_t me = (uint32_t)b->t->nl;
        if (lpush(b->t, cap, b->c[next].kind, at, b->c[next].id) < 0
            || lemit(b, cap, next, me) < 0)
            return -1;
    }
    for (size_t i = 0; i < b->ncore; i++)
        if (b->core_at[i] == in && lpush(b->t, cap, K_CORE, at, (int64_t)i) < 0)
            return -1;
    for (size_t i = 0; i < b->ngpu; i++)
        if (b->gpu_at[i] == in && lpush(b->t, cap, K_GPU, at, (int64_t)i) < 0)
            return -1;
    return 0;
}

/* The locality form of topo into t->l: packages, NUMA domains (the NUMA
 * nodes with processors, one per set of processors), cores and GPUs,
 * each below the smallest of them that holds it by processors.  GPUs are
 * numbered as flux-core numbers them: hwloc's OS devices in order, those
 * of a GPU backend, one per PCI device seen under several backends (CUDA,
 * OpenCL, NVML), every one a device shows under one backend (the
 * partitions of a GPU), and none without a PCI device in the topology;
 * each is placed by the processors of its nearest ancestor that is not
 * I/O.  0, or -1 (ENOMEM). */
static int localize(grove_topo_t *t, hwloc_topology_t topo)
{
    struct lbuild b = {.t = t};
    size_t ccap = 0, gcap = 0, scap = 0, lcap = 0, nseen = 0;
    struct seen {
        hwloc_obj_t pci;
        const char *backend;
    } *seen = NULL;
    int rc = -1;
    const hwloc_obj_type_t ctypes[2] = {HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE};
    for (int k = 0; k < 2; k++) {
        int n = hwloc_get_nbobjs_by_type(topo, ctypes[k]);
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, ctypes[k], (unsigned)i);
            if (!o || !o->cpuset || hwloc_bitmap_iszero(o->cpuset))
                continue;
            bool twin = false; /* a second NUMA node of the same processors */
            for (size_t j = 0; j < b.nc && k == 1; j++)
                twin |= b.c[j].kind == K_NUMA && hwloc_bitmap_isequal(b.c[j].set, o->cpuset);
            if (twin)
                continue;
            if (grovep_grow((void **)&b.c, &ccap, b.nc + 1, sizeof(*b.c)) < 0)
                goto out;
            b.c[b.nc++] = (struct lcont){o->cpuset, hwloc_bitmap_weight(o->cpuset),
                                         hwloc_bitmap_first(o->cpuset),
                                         k ? K_NUMA : K_SOCKET, o->logical_index, NONE};
        }
    }
    for (uint32_t i = 0; i < b.nc; i++)
        b.c[i].parent = holder(b.c, b.nc, b.c[i].set, i);
    int ncore = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    b.ncore = ncore > 0 ? (size_t)ncore : 0;
    if (!(b.core_at = malloc((b.ncore ? b.ncore : 1) * sizeof(*b.core_at))))
        goto out;
    for (size_t i = 0; i < b.ncore; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)i);
        b.core_at[i] = holder(b.c, b.nc, o ? o->cpuset : NULL, NONE);
    }
    hwloc_obj_t o = NULL;
    bool any_pci = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PCI_DEVICE) > 0;
    while (any_pci && (o = hwloc_get_next_osdev(topo, o))) {
        const char *be = hwloc_obj_get_info_by_name(o, "Backend");
        if (!gpu_backend(be))
            continue;
        hwloc_obj_t pci = pci_of(o);
        bool twin = false;
        for (size_t j = 0; j < nseen && pci; j++)
            twin |= seen[j].pci == pci && strcmp(seen[j].backend, be) != 0;
        if (twin)
            continue;
        if (grovep_grow((void **)&seen, &scap, nseen + 1, sizeof(*seen)) < 0
            || grovep_grow((void **)&b.gpu_at, &gcap, b.ngpu + 1, sizeof(*b.gpu_at)) < 0)
            goto out;
        seen[nseen++] = (struct seen){pci, be};
        hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(topo, o);
        b.gpu_at[b.ngpu++] = holder(b.c, b.nc, a ? a->cpuset : NULL, NONE);
    }
    rc = lemit(&b, &lcap, NONE, NONE);
out:
    GROVEP_FREE_ALL(b.c, b.core_at, b.gpu_at, seen);
    return rc;
}

enum how { LIVE, XMLBUF, SYNTH };

/* Load a topology from hwloc; arg is the XML text (NUL-terminated, len
 * bytes) or the synthetic description. */
static grove_topo_t *load(enum how how, const char *arg, size_t len, const char *source,
                          grove_error_t *err)
{
    grove_topo_t *t = calloc(1, sizeof(*t));
    if (!t || !(t->source = strdup(source))) {
        free(t);
        fail(err, NULL, ENOMEM, "out of memory");
        return NULL;
    }
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0) {
        grove_topo_destroy(t);
        fail(err, source, ENOMEM, "cannot initialise hwloc");
        return NULL;
    }
    int rc = 0;
    /* The live topology's PCI devices come from sysfs: hwloc's libpciaccess
     * component would find the same devices but leaks at every load.  It
     * may not be loaded at all (plugins need libhwloc loaded globally),
     * hence no error check. */
    if (how == LIVE)
        (void)hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                            "pci");
    if (hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0
        || hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_STRUCTURE) < 0
        || hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_STRUCTURE) < 0)
        rc = fail(err, source, EINVAL, "cannot set hwloc filters");
    else if (how == XMLBUF && (len >= INT_MAX || hwloc_topology_set_xmlbuffer(topo, arg, (int)len + 1) < 0))
        rc = fail(err, source, EINVAL, "not a valid hwloc XML topology");
    else if (how == SYNTH && hwloc_topology_set_synthetic(topo, arg) < 0)
        rc = fail(err, NULL, EINVAL, "%s: invalid description", source);
    if (rc == 0 && hwloc_topology_load(topo) < 0) {
        if (how == XMLBUF)
            rc = fail(err, source, EINVAL, "not a valid hwloc XML topology");
        else
            rc = fail(err, source, errno ? errno : EINVAL, "hwloc cannot load the topology");
    }
    if (rc == 0) {
        hwloc_obj_t root = hwloc_get_root_obj(topo);
        const char *hn = hwloc_obj_get_info_by_name(root, "HostName");
        if ((hn && !(t->hostname = strdup(hn))) || flatten(t, topo, root, NONE) < 0
            || localize(t, topo) < 0)
            rc = fail(err, NULL, ENOMEM, "out of memory");
        else if (t->n == 0 || t->o[0].kind != K_NODE)
            rc = fail(err, source, EINVAL, "the topology's root is not a machine");
    }
    hwloc_topology_destroy(topo);
    if (rc < 0) {
        int e = errno;
        grove_topo_destroy(t);
        errno = e;
        return NULL;
    }
    return t;
}

grove_topo_t *grove_topo_load_live(grove_error_t *err)
{
    grove_error_clear(err);
    return load(LIVE, NULL, 0, "live topology", err);
}

/* ---- XML in a child process ----------------------------------------------- */

/* The flattened topology as bytes: count, host name, then each object
 * with its two strings; strings are a length (UINT32_MAX: NULL) and the
 * bytes. */
static void put_str(grovep_buf_t *b, const char *str)
{
    uint32_t n = str ? (uint32_t)strlen(str) : UINT32_MAX;
    grovep_buf_put(b, (const char *)&n, sizeof(n));
    if (str)
        grovep_buf_put(b, str, n);
}

static void put_topo(grovep_buf_t *b, const grove_topo_t *t)
{
    uint64_t n = t->n;
    grovep_buf_put(b, "T", 1);
    grovep_buf_put(b, (const char *)&n, sizeof(n));
    put_str(b, t->hostname);
    for (size_t i = 0; i < t->n; i++) {
        tobj_t o = t->o[i];
        o.devid = o.devname = NULL;
        grovep_buf_put(b, (const char *)&o, sizeof(o));
        put_str(b, t->o[i].devid);
        put_str(b, t->o[i].devname);
    }
    uint64_t nl = t->nl;
    grovep_buf_put(b, (const char *)&nl, sizeof(nl));
    grovep_buf_put(b, (const char *)t->l, t->nl * sizeof(*t->l));
}

struct cursor {
    const char *p, *end;
};

static int take(struct cursor *c, void *out, size_t n)
{
    if ((size_t)(c->end - c->p) < n)
        return -1;
    memcpy(out, c->p, n);
    c->p += n;
    return 0;
}

static int take_str(struct cursor *c, char **out)
{
    uint32_t n;
    *out = NULL;
    if (take(c, &n, sizeof(n)) < 0)
        return -1;
    if (n == UINT32_MAX)
        return 0;
    if ((size_t)(c->end - c->p) < n || !(*out = malloc((size_t)n + 1)))
        return -1;
    memcpy(*out, c->p, n);
    (*out)[n] = '\0';
    c->p += n;
    return 0;
}

static grove_topo_t *get_topo(struct cursor *c, const char *source)
{
    uint64_t n;
    grove_topo_t *t = calloc(1, sizeof(*t));
    if (!t || !(t->source = strdup(source)) || take(c, &n, sizeof(n)) < 0 || n > SIZE_MAX / sizeof(tobj_t)
        || take_str(c, &t->hostname) < 0
        || grovep_grow((void **)&t->o, &t->cap, (size_t)n, sizeof(*t->o)) < 0)
        goto fail;
    for (; t->n < n; t->n++) {
        tobj_t *o = &t->o[t->n];
        if (take(c, o, sizeof(*o)) < 0) {
            o->devid = o->devname = NULL;
            goto fail;
        }
        o->devid = o->devname = NULL;
        if (take_str(c, &o->devid) < 0 || take_str(c, &o->devname) < 0) {
            t->n++;
            goto fail;
        }
    }
    uint64_t nl;
    size_t lcap = 0;
    if (take(c, &nl, sizeof(nl)) < 0 || nl > SIZE_MAX / sizeof(lobj_t)
        || grovep_grow((void **)&t->l, &lcap, nl ? (size_t)nl : 1, sizeof(*t->l)) < 0
        || take(c, t->l, (size_t)nl * sizeof(*t->l)) < 0)
        goto fail;
    t->nl = (size_t)nl;
    return t;
fail:
    return GROVEP_NULL_AFTER(grove_topo_destroy, t, ENOMEM);
}

/* The child: load the topology, write it (or the error) to fd, exit. */
static void __attribute__((noreturn)) xml_child(int fd, const char *copy, size_t len,
                                                const char *source)
{
    grove_error_t err;
    grovep_buf_t b = {0};
    /* The library says why it refuses a topology only on its standard
     * error, and only with HWLOC_XML_VERBOSE set; it names no line.  In
     * this child both go to a scratch file, whose first line joins the
     * message (its libxml2 reader first notes that the text has no DTD,
     * which is no reason). */
    FILE *says = tmpfile();
    if (says && dup2(fileno(says), STDERR_FILENO) >= 0)
        setenv("HWLOC_XML_VERBOSE", "1", 1);
    grove_topo_t *t = load(XMLBUF, copy, len, source, &err);
    char why[200];
    bool have = !t && errno == EINVAL && says
                && strstr(err.text, "not a valid hwloc XML topology")
                && fseek(says, 0, SEEK_SET) == 0;
    while (have && (have = fgets(why, sizeof(why), says) != NULL)
           && strstr(why, "XML topology without DTD"))
        continue;
    if (have) {
        why[strcspn(why, "\n")] = '\0';
        /* the library names the text "xmlbuffer" */
        const char *w = !strncmp(why, "xmlbuffer: ", 11) ? why + 11 : why;
        if (*w)
            fail(&err, source, EINVAL,
                 "not a valid hwloc XML topology (the topology library says: %s)", w);
    }
    if (t) {
        put_topo(&b, t);
    } else {
        int e = errno;
        grovep_buf_put(&b, "E", 1);
        grovep_buf_put(&b, (const char *)&e, sizeof(e));
        grovep_buf_put(&b, (const char *)&err, sizeof(err));
    }
    for (size_t off = 0; !b.failed && off < b.len;) {
        ssize_t k = write(fd, b.p + off, b.len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            _exit(2);
        off += (size_t)k;
    }
    _exit(b.failed ? 2 : 0);
}

/* Whether a load may run in a child: only in a process of one thread.
 * After a fork in a process of several, the child may call only what is
 * async-signal-safe, and hwloc allocates: a lock another thread held at
 * the fork (an allocator's, a library's) is held for ever in the child,
 * which then waits for ever (seen under AddressSanitizer's allocator:
 * test_topo's loads from four threads at once hung).  A Flux broker runs
 * every module in a thread of its own, so sched-grove's loads are made in
 * place, as flux-core's resource module loads the same XML with the same
 * hwloc in the same broker. */
static bool may_fork(void)
{
#ifdef __GLIBC__
    return __libc_single_threaded != 0;
#else
    return false;
#endif
}

/* Load the XML in a child process, so that an input that makes the
 * topology library abort or crash fails this load and nothing else. */
static grove_topo_t *load_xml_isolated(const char *copy, size_t len, const char *source,
                                       grove_error_t *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        fail(err, source, errno, "cannot read the topology: %s", strerror(errno));
        return NULL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        fail(err, source, e, "cannot read the topology: %s", strerror(e));
        return NULL;
    }
    if (pid == 0) {
        close(fds[0]);
        xml_child(fds[1], copy, len, source);
    }
    close(fds[1]);
    grovep_buf_t b = {0};
    for (;;) {
        char *room = grovep_buf_room(&b, 65536);
        if (!room)
            break;
        ssize_t k = read(fds[0], room, 65536);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        b.len += (size_t)k;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    grove_topo_t *t = NULL;
    struct cursor c = {b.p, b.p + b.len};
    if (WIFSIGNALED(status)) {
        fail(err, source, EINVAL,
             "the topology library crashed reading it (signal %d); it is not a topology Grove "
             "can use",
             WTERMSIG(status));
    } else if (b.failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || b.len < 1) {
        fail(err, source, ENOMEM, "cannot read the topology (out of memory)");
    } else if (b.p[0] == 'E') {
        int e = EINVAL;
        c.p++;
        if (take(&c, &e, sizeof(e)) < 0 || take(&c, err ? (void *)err : &(grove_error_t){0}, sizeof(*err)) < 0)
            fail(err, source, EINVAL, "not a valid hwloc XML topology");
        errno = e;
    } else {
        c.p++;
        if (!(t = get_topo(&c, source)))
            fail(err, NULL, ENOMEM, "out of memory");
    }
    int e = errno;
    free(b.p);
    errno = e;
    return t;
}

grove_topo_t *grove_topo_read_xml(const char *text, size_t len, const char *source,
                                  grove_error_t *err)
{
    grove_error_clear(err);
    if (!source)
        source = "XML";
    if (!text || !len) {
        fail(err, source, EINVAL, "an empty text is not an hwloc XML topology");
        return NULL;
    }
    if (grovep_topo_xml_check(text, len, source, err) < 0)
        return NULL;
    /* hwloc wants the text NUL-terminated and counted with the NUL */
    char *copy = len < SIZE_MAX ? malloc(len + 1) : NULL;
    if (!copy) {
        fail(err, NULL, ENOMEM, "out of memory");
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    grove_topo_t *t = may_fork() ? load_xml_isolated(copy, strlen(copy), source, err)
                                 : load(XMLBUF, copy, strlen(copy), source, err);
    int e = errno;
    free(copy);
    errno = e;
    return t;
}

GROVEP_TEXT_READER(read_text, grove_topo_read_xml)

grove_topo_t *grove_topo_load_xml(const char *path, grove_error_t *err)
{
    grove_error_clear(err);
    if (!path) {
        fail(err, NULL, EINVAL, "no topology path");
        return NULL;
    }
    return grovep_load_file(path, NULL, read_text, NULL, err);
}

/* True if the last level of a synthetic description is PUs. */
static bool ends_with_pu(const char *desc)
{
    const char *last = desc, *p = desc;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p)
            last = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    return !strncasecmp(last, "pu", 2);
}

grove_topo_t *grove_topo_load_synthetic(const char *desc, grove_error_t *err)
{
    grove_error_clear(err);
    if (!desc) {
        fail(err, NULL, EINVAL, "no synthetic description");
        return NULL;
    }
    size_t n = strlen(desc);
    char *src = malloc(n + 16), *full = malloc(n + 8);
    if (!src || !full) {
        free(src);
        free(full);
        fail(err, NULL, ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(src, n + 16, "synthetic \"%s\"", desc);
    snprintf(full, n + 8, "%s pu:1", desc);
    grove_topo_t *t = NULL;
    if (ends_with_pu(desc) || strspn(desc, " \t") == n)
        t = load(SYNTH, desc, 0, src, err);
    else if (!(t = load(SYNTH, full, 0, src, err)) && errno == EINVAL)
        t = load(SYNTH, desc, 0, src, err);
    int e = errno;
    free(src);
    free(full);
    errno = e;
    return t;
}

/* ---- counting and filtering --------------------------------------------------- */

static bool listed(const char *const *types, const char *name)
{
    for (const char *const *p = types; *p; p++)
        if (!strcmp(*p, name))
            return true;
    return false;
}

static bool keep(const tobj_t *o, const char *const *types)
{
    if (!types)
        types = GROVE_TOPO_DEFAULT_TYPES;
    return listed(types, "all") || listed(types, kind_type[o->kind])
           || listed(types, o->basename);
}

size_t grove_topo_count(const grove_topo_t *t, const char *type)
{
    size_t n = 0;
    if (!t || !type)
        return 0;
    if (!strcmp(type, kind_type[K_NUMA])) {
        for (size_t i = 0; i < t->nl; i++)
            n += t->l[i].kind == K_NUMA;
        return n;
    }
    for (size_t i = 0; i < t->n; i++)
        n += !strcmp(kind_type[t->o[i].kind], type) || !strcmp(t->o[i].basename, type);
    return n;
}

const char *grove_topo_source(const grove_topo_t *t)
{
    return t ? t->source : NULL;
}

/* The kind of the locality form a type name is, or K_COUNT. */
static enum kind local_kind(const char *type)
{
    static const enum kind kinds[] = {K_SOCKET, K_NUMA, K_CORE, K_GPU};
    for (size_t i = 0; type && i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(type, kind_type[kinds[i]]))
            return kinds[i];
    return K_COUNT;
}

grove_idset_t *grove_topo_ids(const grove_topo_t *t, const char *type)
{
    enum kind k = local_kind(type);
    if (!t || k == K_COUNT) {
        errno = EINVAL;
        return NULL;
    }
    grove_idset_t *ids = grove_idset_create();
    for (size_t i = 0; ids && i < t->nl; i++)
        if (t->l[i].kind == k && grove_idset_set(ids, (unsigned)t->l[i].id) < 0)
            return GROVEP_NULL_AFTER(grove_idset_destroy, ids, ENOMEM);
    return grovep_or_errno(ids, ENOMEM);
}

/* ---- stamping ----------------------------------------------------------------- */

/* Split a name into a NUL-terminated basename (caller frees) and id (-1
 * when it has no numeric suffix).  NULL with EINVAL or ENOMEM. */
static char *split_name(const char *name, int64_t *id)
{
    grove_hostname_t hn;
    if (grove_hostname_parse(name, &hn) < 0)
        return NULL;
    *id = hn.width ? (int64_t)hn.num : GROVE_ID_NONE;
    size_t n = hn.width ? hn.prefix_len : hn.len;
    if (n == 0) { /* all digits: the name is its own basename */
        n = hn.len;
        *id = GROVE_ID_NONE;
    }
    char *b = strndup(name, n);
    return grovep_or_errno(b, ENOMEM);
}

/* Remove the vertices from first on (a failed attach). */
static void undo(grove_graph_t *g, size_t first)
{
    for (size_t v = grove_graph_vertex_slots(g); v-- > first;)
        if (grove_graph_has_vertex(g, (grove_vid_t)v))
            grove_graph_unlink(g, (grove_vid_t)v, true);
}

grove_vid_t grove_topo_attach(grove_graph_t *g, grove_vid_t parent, const grove_topo_t *t,
                              const char *hostname, int64_t rank, const char *const *types,
                              grove_error_t *err)
{
    grove_error_clear(err);
    if (!g || !t || rank < GROVE_ID_NONE
        || (parent != GROVE_VID_NONE && !grove_graph_has_vertex(g, parent))) {
        fail(err, NULL, EINVAL, "invalid arguments");
        return GROVE_VID_NONE;
    }
    bool local = types && listed(types, kind_type[K_NUMA]);
    for (size_t i = 0; i < t->n && !local; i++)
        if (t->o[i].kind == K_STORAGE && t->o[i].nosize && keep(&t->o[i], types)) {
            fail(err, t->source, EINVAL, "storage device %s has %s", t->o[i].devname,
                 t->o[i].nosize == 1 ? "no Size" : "an unusable Size");
            return GROVE_VID_NONE;
        }
    char defname[32];
    if (!hostname)
        hostname = t->hostname;
    if (!hostname) {
        if (rank >= 0)
            snprintf(defname, sizeof(defname), "node%lld", (long long)rank);
        else
            snprintf(defname, sizeof(defname), "node");
        hostname = defname;
    }
    int64_t node_id;
    char *node_base = split_name(hostname, &node_id);
    if (!node_base) {
        if (errno == ENOMEM)
            fail(err, NULL, ENOMEM, "out of memory");
        else
            fail(err, NULL, EINVAL, "invalid host name \"%s\"", hostname);
        return GROVE_VID_NONE;
    }
    grove_vid_t *kp = malloc(t->n * sizeof(*kp));
    size_t first = grove_graph_vertex_slots(g);
    grove_vid_t result = GROVE_VID_NONE;
    if (!kp) {
        fail(err, NULL, ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < t->n; i++) {
        const tobj_t *o = &t->o[i];
        grove_vid_t up = o->parent == NONE ? parent : kp[o->parent];
        if (!keep(o, types) || (local && o->kind != K_NODE)) {
            kp[i] = up;
            continue;
        }
        grove_vertex_info_t info;
        grove_vertex_info_init(&info);
        info.type = kind_type[o->kind];
        info.basename = o->basename;
        info.id = o->id;
        info.size = o->size;
        info.unit = kind_unit[o->kind];
        info.rank = rank;
        if (o->kind == K_NODE) {
            info.basename = node_base;
            info.name = hostname;
            info.id = node_id;
        }
        grove_vid_t v = grove_graph_add_vertex(g, &info);
        if (v == GROVE_VID_NONE
            || (o->devid && grove_vertex_set_property(g, v, "LinuxDeviceID", o->devid) < 0)) {
            fail(err, NULL, errno == ENOMEM ? ENOMEM : EINVAL, "cannot add %s %s: %s",
                 info.type, info.name ? info.name : info.basename, strerror(errno));
            goto done;
        }
        if (up != GROVE_VID_NONE && grove_graph_add_child(g, up, v, NULL, err) < 0)
            goto done;
        kp[i] = v;
    }
    if (local && grove_topo_attach_inside(g, kp[0], t, rank, NULL, NULL, types, err) < 0)
        goto done;
    result = kp[0];
done:
    if (result == GROVE_VID_NONE) {
        int e = errno;
        undo(g, first);
        errno = e;
    }
    free(kp);
    free(node_base);
    return result;
}

/* Is kind made in the locality form under types (NULL: all of it)? */
static bool local_kept(const char *const *types, enum kind k)
{
    return !types || listed(types, "all") || listed(types, kind_type[k]);
}

int grove_topo_attach_inside(grove_graph_t *g, grove_vid_t node, const grove_topo_t *t,
                             int64_t rank, const grove_idset_t *cores, const grove_idset_t *gpus,
                             const char *const *types, grove_error_t *err)
{
    if (!g || !t || rank < GROVE_ID_NONE
        || (node != GROVE_VID_NONE && !grove_graph_has_vertex(g, node)))
        return fail(err, NULL, EINVAL, "invalid arguments");
    size_t nl = t->nl, first = grove_graph_vertex_slots(g);
    grove_vid_t *at = malloc((nl ? nl : 1) * sizeof(*at));
    uint32_t *held = calloc(nl ? nl : 1, sizeof(*held)); /* cores and GPUs kept below */
    int rc = -1;
    if (!at || !held) {
        fail(err, NULL, ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = nl; i-- > 0;) {
        const lobj_t *o = &t->l[i];
        if (o->kind == K_CORE)
            held[i] = !cores || grove_idset_test(cores, (unsigned)o->id);
        else if (o->kind == K_GPU)
            held[i] = !gpus || grove_idset_test(gpus, (unsigned)o->id);
        if (o->parent != NONE)
            held[o->parent] += held[i];
    }
    for (size_t i = 0; i < nl; i++) {
        const lobj_t *o = &t->l[i];
        grove_vid_t up = o->parent == NONE ? node : at[o->parent];
        at[i] = up;
        if (!held[i] || !local_kept(types, (enum kind)o->kind))
            continue;
        grove_vertex_info_t info;
        grove_vertex_info_init(&info);
        info.type = info.basename = kind_type[o->kind];
        info.id = o->id;
        info.rank = rank;
        grove_vid_t v = grove_graph_add_vertex(g, &info);
        if (v == GROVE_VID_NONE) {
            fail(err, NULL, errno == ENOMEM ? ENOMEM : EINVAL, "cannot add %s%lld: %s",
                 info.type, (long long)o->id, strerror(errno));
            goto out;
        }
        if (up != GROVE_VID_NONE && grove_graph_add_child(g, up, v, NULL, err) < 0)
            goto out;
        at[i] = v;
    }
    rc = 0;
out:
    if (rc < 0) {
        int e = errno;
        undo(g, first);
        errno = e;
    }
    GROVEP_FREE_ALL(at, held);
    return rc;
}

grove_graph_t *grove_topo_cluster(const char *cluster, const grove_topo_t *t, const char *hosts,
                                  int64_t first_rank, const char *const *types,
                                  grove_error_t *err)
{
    grove_error_clear(err);
    if (!t || first_rank < GROVE_ID_NONE) {
        fail(err, NULL, EINVAL, !t ? "no topology" : "invalid first rank %lld",
             (long long)first_rank);
        return NULL;
    }
    if (!cluster)
        cluster = "cluster0";
    grove_hostlist_t *hl = NULL;
    size_t nhosts = 1;
    if (hosts) {
        grove_error_t herr;
        hl = grove_hostlist_decode(hosts, &herr);
        if (!hl) {
            int e = errno;
            fail(err, NULL, e, "hostlist \"%s\": %s", hosts, herr.text);
            return NULL;
        }
        nhosts = grove_hostlist_count(hl);
        if (nhosts == 0) {
            grove_hostlist_destroy(hl);
            fail(err, NULL, EINVAL, "hostlist \"%s\" has no hosts", hosts);
            return NULL;
        }
        grove_limits_t lim;
        grove_limits_get(&lim);
        if (nhosts > lim.members || nhosts * (t->n ? t->n : 1) > lim.members) {
            grove_hostlist_destroy(hl);
            fail(err, NULL, EOVERFLOW,
                 "hostlist \"%.60s\": %zu hosts of %zu vertices each is more than %llu (the "
                 "limit: GROVE_MAX_MEMBERS)",
                 hosts, nhosts, t->n, (unsigned long long)lim.members);
            return NULL;
        }
    }
    if (first_rank >= 0 && (uint64_t)(INT64_MAX - first_rank) < nhosts - 1) {
        grove_hostlist_destroy(hl);
        fail(err, NULL, EOVERFLOW, "ranks from %lld overflow", (long long)first_rank);
        return NULL;
    }
    grove_graph_t *g = grove_graph_create();
    int64_t cid;
    char *cbase = g ? split_name(cluster, &cid) : NULL;
    grove_vid_t root = GROVE_VID_NONE;
    if (!g || !cbase) {
        if (!g || errno == ENOMEM)
            fail(err, NULL, ENOMEM, "out of memory");
        else
            fail(err, NULL, EINVAL, "invalid cluster name \"%s\"", cluster);
        goto fail;
    }
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "cluster";
    info.basename = cbase;
    info.name = cluster;
    info.id = cid;
    root = grove_graph_add_vertex(g, &info);
    if (root == GROVE_VID_NONE) {
        fail(err, NULL, errno, "cannot add the cluster vertex");
        goto fail;
    }
    grove_hostlist_iter_t it = GROVE_HOSTLIST_ITER_INIT;
    for (size_t i = 0; i < nhosts; i++) {
        const char *host = hl ? grove_hostlist_iter_next(hl, &it) : NULL;
        if (hl && !host) {
            grove_hostlist_iter_fini(&it);
            fail(err, NULL, errno ? errno : ENOMEM, "cannot expand the hostlist");
            goto fail;
        }
        int64_t rank = first_rank < 0 ? GROVE_ID_NONE : first_rank + (int64_t)i;
        if (grove_topo_attach(g, root, t, host, rank, types, err) == GROVE_VID_NONE) {
            grove_hostlist_iter_fini(&it);
            goto fail;
        }
        grove_progress_report(TOPO_STEP, i + 1, nhosts); /* a host is hundreds of vertices */
    }
    grove_hostlist_iter_fini(&it);
    free(cbase);
    grove_hostlist_destroy(hl);
    grove_progress_end(TOPO_STEP);
    return g;
fail:
    GROVEP_FREE_ALL(cbase); /* the three keep errno */
    grove_hostlist_destroy(hl);
    grove_graph_destroy(g);
    int e = errno;
    grove_progress_end(TOPO_STEP);
    errno = e;
    return NULL;
}
