/* test_nomem.c: every allocation of an operation refused in turn, and the
 * promise of grove.h checked at each: the call succeeds, or fails with
 * ENOMEM (the documented failure return) leaving its objects exactly as
 * they were, and the same call made again with memory to spare does what
 * it does on a fresh object.  Nothing leaks either way: the sanitizer
 * builds see that, and the test counts the blocks live around each trial.
 *
 * The program is linked with -Wl,--wrap for each allocator libgrove calls
 * (the Makefile's rule for it), so that the calls of libgrove.a reach the
 * __wrap_ functions below; jansson's own allocations go through the same
 * count (json_set_alloc_funcs).  libxml2's, libyaml's and SQLite's are not
 * counted.
 *
 * Each case is run twice: with only the Nth allocation refused (what a
 * passing shortage looks like), and with the Nth and every one after it
 * refused (memory gone for good, which reaches the unwinding of every
 * step that follows the first refusal).  A case whose contract allows
 * another outcome when memory is gone for good names it (nm_case_t.gone:
 * a replan that cannot put its job back removes it and says so), and
 * that outcome is checked as exactly as the others.
 *
 * One failure is allowed that is not ENOMEM: EINVAL when the allocation
 * refused was one jansson made while it lexed a text, which it reports
 * as a bad token, no different from one (nm_json_first).
 *
 * GROVE_NOMEM_VERBOSE=1 in the environment prints, for each finding, where
 * the two digests part.
 *
 * It must not test what an operation answers when memory is at hand
 * (the tests of each module do).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "grove.h"
#include "tap.h"
#include "grovetest.h"

/* ---- the blocks live --------------------------------------------------- *
 *
 * Every block the wrappers hand out is kept in a table until it is freed
 * (free is wrapped too, and jansson frees through nm_json_free), so that a
 * trial that ends with more blocks live than it began with leaked: a
 * check of the plain build, beside LeakSanitizer's in the sanitizer one.
 * A block freed here that the wrappers did not hand out (one libc made)
 * is passed over. */

#define LIVE_SLOTS (1u << 18)
#define LIVE_GONE ((void *)1) /* a slot freed: probes go on past it */
static void *live[LIVE_SLOTS];
static long live_count;

static size_t live_hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 40) & (LIVE_SLOTS - 1);
}

static void live_add(void *p)
{
    if (!p)
        return;
    size_t h = live_hash(p);
    for (size_t k = 0; k < LIVE_SLOTS; k++, h = (h + 1) & (LIVE_SLOTS - 1))
        if (!live[h] || live[h] == LIVE_GONE) {
            live[h] = p;
            live_count++;
            return;
        }
    fprintf(stderr, "test_nomem: more than %u blocks live\n", LIVE_SLOTS);
    abort();
}

static void live_drop(void *p)
{
    if (!p)
        return;
    size_t h = live_hash(p);
    for (size_t k = 0; k < LIVE_SLOTS && live[h]; k++, h = (h + 1) & (LIVE_SLOTS - 1))
        if (live[h] == p) {
            live[h] = LIVE_GONE;
            live_count--;
            return;
        }
}

/* ---- the allocators, refused on demand -------------------------------- */

/* The linker's names for an allocator (-Wl,--wrap): the library's own
 * (__real_) and the one every call in the test goes to (__wrap_). */
#define NM_DECL(TYPE, NAME, PARAMS)                                             \
    TYPE __real_##NAME PARAMS;                                                  \
    TYPE __wrap_##NAME PARAMS;
NM_DECL(void *, malloc, (size_t n))
NM_DECL(void, free, (void *p))
NM_DECL(void *, calloc, (size_t k, size_t n))
NM_DECL(void *, realloc, (void *p, size_t n))
NM_DECL(char *, strdup, (const char *s))
NM_DECL(char *, strndup, (const char *s, size_t n))
NM_DECL(int, posix_memalign, (void **p, size_t align, size_t n))
NM_DECL(void *, aligned_alloc, (size_t align, size_t n))
int __wrap_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static long nm_count;  /* allocations since nm_arm */
static long nm_at;     /* the first refused; 0: none */
static bool nm_sticky; /* every one after nm_at refused too */
static long nm_refused; /* how many were refused since nm_arm */
static bool nm_json_first; /* the first of them was jansson's, in its lexer */
static int nm_in_load;     /* inside json_loadb or json_loads */

static void nm_arm(long at, bool sticky)
{
    nm_count = 0;
    nm_at = at;
    nm_sticky = sticky;
    nm_refused = 0;
    nm_json_first = false;
}

static void nm_disarm(void)
{
    nm_at = 0;
}

/* Count one allocation; whether to refuse it. */
static bool nm_refuse(void)
{
    nm_count++;
    if (!nm_at || nm_count < nm_at || (nm_count > nm_at && !nm_sticky))
        return false;
    nm_refused++;
    return true;
}

/* An allocator returning its block (NULL refused, with ENOMEM), counted
 * and refused as nm_arm says, its blocks kept track of. */
#define NM_WRAP(TYPE, NAME, PARAMS, ARGS)                                       \
    TYPE __wrap_##NAME PARAMS                                                   \
    {                                                                           \
        if (nm_refuse()) {                                                      \
            errno = ENOMEM;                                                     \
            return NULL;                                                        \
        }                                                                       \
        TYPE p = __real_##NAME ARGS;                                            \
        live_add(p);                                                            \
        return p;                                                               \
    }
NM_WRAP(void *, malloc, (size_t n), (n))
NM_WRAP(void *, calloc, (size_t k, size_t n), (k, n))
NM_WRAP(char *, strdup, (const char *s), (s))
NM_WRAP(char *, strndup, (const char *s, size_t n), (s, n))
NM_WRAP(void *, aligned_alloc, (size_t align, size_t n), (align, n))

void __wrap_free(void *p)
{
    live_drop(p);
    __real_free(p);
}

void *__wrap_realloc(void *p, size_t n)
{
    if (nm_refuse()) {
        errno = ENOMEM;
        return NULL;
    }
    void *q = __real_realloc(p, n);
    if (q || n == 0)
        live_drop(p);
    live_add(q);
    return q;
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
    if (nm_refuse())
        return ENOMEM;
    int rc = __real_posix_memalign(p, align, n);
    if (rc == 0)
        live_add(*p);
    return rc;
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
    if (nm_refuse()) {
        errno = ENOMEM;
        return -1; /* *out undefined, as glibc leaves it */
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(out, fmt, ap);
    va_end(ap);
    if (n >= 0)
        live_add(*out);
    return n;
}

/* jansson's allocations, counted and refused with the rest. */
static void *nm_json_malloc(size_t n)
{
    long before = nm_refused;
    void *p = __wrap_malloc(n);
    if (before == 0 && nm_refused > 0 && nm_in_load)
        nm_json_first = true;
    return p;
}

static void nm_json_free(void *p)
{
    __wrap_free(p);
}

/* jansson's loads, wrapped to know when an allocation is theirs. */
json_t *__real_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *e);
json_t *__real_json_loads(const char *s, size_t flags, json_error_t *e);
json_t *__wrap_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *e);
json_t *__wrap_json_loads(const char *s, size_t flags, json_error_t *e);

/* After a load: a failure for want of memory that jansson did tell (its
 * code, or its text left empty: grovep_json_load_errno) is the reader's
 * to report as ENOMEM, so the allowance of nm_json_first is withdrawn. */
static json_t *nm_loaded(json_t *j, const json_error_t *e)
{
    nm_in_load--;
    if (!j && nm_json_first
        && (e->text[0] == '\0' || json_error_code(e) == json_error_out_of_memory))
        nm_json_first = false;
    return j;
}

json_t *__wrap_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *e)
{
    json_error_t mine;
    nm_in_load++;
    return nm_loaded(__real_json_loadb(buf, len, flags, e ? e : &mine), e ? e : &mine);
}

json_t *__wrap_json_loads(const char *s, size_t flags, json_error_t *e)
{
    json_error_t mine;
    nm_in_load++;
    return nm_loaded(__real_json_loads(s, flags, e ? e : &mine), e ? e : &mine);
}

/* The ranks op_release_ranks releases (made before anything is armed). */
static grove_idset_t *ranks12;

/* ---- fixtures --------------------------------------------------------- */

/* What one case works on: any of these, made by its setup, read by the
 * digest, freed by fx_free. */
typedef struct fx {
    grove_graph_t *g;       /* a graph the case changes */
    grove_matcher_t *m;     /* its matcher */
    grove_planner_t *p;     /* a planner */
    grove_jobspec_t *js[4]; /* requests, parsed beforehand */
    grove_graph_t *made;    /* what the operation made: a graph */
    grove_matcher_t *made_m; /* a matcher */
    grove_rv1_t *R;         /* an R: the input of the case, or what it made */
    char *text;             /* the input text of the case */
    char *out;              /* text the operation returned */
    const grove_job_t *job; /* the job the operation handed out (borrowed) */
    grove_jobspec_t *made_js; /* a jobspec */
    grove_job_t saved;      /* a job taken out of the table (picks owned) */
    long n;                 /* a number the operation returned */
    grove_vid_t v;          /* a vertex the operation made */
} fx_t;

static void fx_free(fx_t *f)
{
    grove_matcher_destroy(f->made_m);
    grove_matcher_destroy(f->m);
    grove_graph_destroy(f->g);
    grove_graph_destroy(f->made);
    grove_planner_destroy(f->p);
    grove_rv1_destroy(f->R);
    grove_jobspec_destroy(f->made_js);
    free(f->saved.picks);
    for (size_t i = 0; i < sizeof(f->js) / sizeof(f->js[0]); i++)
        grove_jobspec_destroy(f->js[i]);
    free(f->text);
    free(f->out);
    memset(f, 0, sizeof(*f));
}

/* 4 nodes in 2 racks, 2 sockets each of 4 cores, a gpu and a memory pool. */
static grove_graph_t *small_cluster(void)
{
    return test_cluster(&(test_shape_t){.basename = "small", .nodes = 4, .per_rack = 2,
                                        .sockets = 2, .cores = 4, .gpus = 1, .mems = 1,
                                        .mem_size = 16, .mem_unit = "GB"});
}

/* A jobspec of resources (YAML lines; one slot labelled s) for d seconds. */
static grove_jobspec_t *request(const char *resources, int d)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "version: 9999\nresources:\n%s"
             "tasks: [{command: [x], slot: s, count: {per_slot: 1}}]\n"
             "attributes: {system: {duration: %d}}\n",
             resources, d);
    grove_error_t err;
    grove_jobspec_t *js = grove_jobspec_parse(y, strlen(y), NULL, &err);
    if (!js) {
        fprintf(stderr, "request: %s\n", err.text);
        exit(2);
    }
    return js;
}

/* The requests of the cases: two cores; n nodes whole; a node's gpu and
 * half its memory. */
static grove_jobspec_t *two_cores(void)
{
    return request("- type: slot\n  count: 1\n  label: s\n"
                   "  with:\n  - type: core\n    count: 2\n", 600);
}

static grove_jobspec_t *whole_nodes(int n, int d)
{
    char r[512];
    snprintf(r, sizeof(r),
             "- type: node\n  count: %d\n  exclusive: true\n  with:\n"
             "  - type: slot\n    count: 1\n    label: s\n    with:\n"
             "    - type: core\n      count: 1\n", n);
    return request(r, d);
}

static grove_jobspec_t *gpu_and_memory(void)
{
    return request("- type: node\n  count: 1\n  with:\n"
                   "  - type: slot\n    count: 1\n    label: s\n    with:\n"
                   "    - type: gpu\n      count: 1\n"
                   "    - type: memory\n      count: 8\n", 300);
}

/* Match or stop: a fixture the cases rely on. */
static void must_match(fx_t *f, grove_jobspec_t *js, grove_match_mode_t mode)
{
    grove_error_t err;
    if (grove_match(f->m, js, mode, 0, NULL, &err) < 0) {
        fprintf(stderr, "fixture match: %s\n", err.text);
        exit(2);
    }
}

/* The small cluster, its matcher, and the requests of the cases. */
static void setup_matcher(fx_t *f)
{
    f->g = small_cluster();
    f->m = grove_matcher_create(f->g, NULL);
    if (!f->m) {
        perror("grove_matcher_create");
        exit(2);
    }
    f->js[0] = two_cores();
    f->js[1] = whole_nodes(2, 900);
    f->js[2] = gpu_and_memory();
    f->js[3] = whole_nodes(4, 1200);
}

/* ... with jobs running: 1 a node whole, 2 two cores, 3 a gpu and memory. */
static void setup_busy(fx_t *f)
{
    setup_matcher(f);
    grove_jobspec_t *one = whole_nodes(1, 900);
    must_match(f, one, GROVE_MATCH_ALLOCATE);
    grove_jobspec_destroy(one);
    must_match(f, f->js[0], GROVE_MATCH_ALLOCATE);
    must_match(f, f->js[2], GROVE_MATCH_ALLOCATE);
}

/* ... and reservations behind them: 4 and 5 of every node, 6 of two. */
static void setup_reserved(fx_t *f)
{
    setup_busy(f);
    must_match(f, f->js[3], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE);
    must_match(f, f->js[3], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE);
    must_match(f, f->js[1], GROVE_MATCH_ALLOCATE_ORELSE_RESERVE);
}

/* A file of the shared corpus as text, or stop. */
static char *corpus_text(const char *rel)
{
    FILE *fp = fopen(tap_conformance(rel), "rb");
    if (!fp) {
        perror(tap_conformance(rel));
        exit(2);
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    if (!t || fread(t, 1, (size_t)n, fp) != (size_t)n) {
        perror(rel);
        exit(2);
    }
    t[n] = '\0';
    fclose(fp);
    return t;
}

static void setup_none(fx_t *f)
{
    (void)f;
}

static void setup_graph(fx_t *f)
{
    f->g = small_cluster();
}

/* The node "extra7" (rank 7) added to g, not linked to the rest. */
static grove_vid_t add_extra(grove_graph_t *g)
{
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "node";
    info.basename = "extra";
    info.id = 7;
    info.rank = 7;
    return grove_graph_add_vertex(g, &info);
}

/* ... with a node not yet linked to the rest (f->v). */
static void setup_extra(fx_t *f)
{
    setup_graph(f);
    f->v = add_extra(f->g);
    if (f->v == GROVE_VID_NONE)
        exit(2);
}

/* 72 nodes of a core each, held whole by job 1 (more records than a
 * release finds room for on the stack: pool.c, grovep_job_release). */
static void setup_wide(fx_t *f)
{
    f->g = test_cluster(&(test_shape_t){.basename = "wide", .nodes = 72, .cores = 1});
    f->m = grove_matcher_create(f->g, NULL);
    if (!f->m)
        exit(2);
    f->js[0] = whole_nodes(72, 600);
    must_match(f, f->js[0], GROVE_MATCH_ALLOCATE);
}

/* setup_busy with job 2 taken out, kept in f->saved to be restored. */
static void setup_taken(fx_t *f)
{
    setup_busy(f);
    const grove_job_t *j = grove_matcher_job(f->m, 2);
    f->saved = *j;
    f->saved.picks = malloc(j->npicks * sizeof(*j->picks));
    if (!f->saved.picks)
        exit(2);
    memcpy(f->saved.picks, j->picks, j->npicks * sizeof(*j->picks));
    if (grove_matcher_cancel(f->m, 2) < 0)
        exit(2);
}

/* setup_busy with the request of job 3 as text (f->text). */
static void setup_request(fx_t *f)
{
    setup_busy(f);
    if (!(f->text = grove_matcher_request(f->m, 3)))
        exit(2);
}

static void setup_yaml(fx_t *f)
{
    f->text = corpus_text("fluxion/jobspecs/basics/test001.yaml");
}

/* test001.yaml as JSON */
static void setup_json(fx_t *f)
{
    setup_yaml(f);
    grove_jobspec_t *js = grove_jobspec_parse(f->text, strlen(f->text), NULL, NULL);
    free(f->text);
    f->text = js ? json_dumps(grove_jobspec_json(js), JSON_COMPACT) : NULL;
    grove_jobspec_destroy(js);
    if (!f->text)
        exit(2);
}

/* setup_reserved after job 1 ended early: reservation 6 can move. */
static void setup_replan(fx_t *f)
{
    setup_reserved(f);
    if (grove_matcher_cancel(f->m, 1) < 0)
        exit(2);
}

static void setup_jgf(fx_t *f)
{
    f->text = corpus_text("fluxion/jgfs/tiny.json");
}

static void setup_grug(fx_t *f)
{
    f->text = corpus_text("fluxion/grugs/tiny.graphml");
}

static void setup_rv1_text(fx_t *f)
{
    f->text = corpus_text("fluxion/rv1exec/tiny_rv1exec.json");
}

static void setup_rv1(fx_t *f)
{
    setup_rv1_text(f);
    grove_error_t err;
    f->R = grove_rv1_decode(f->text, strlen(f->text), "tiny_rv1exec.json", &err);
    if (!f->R) {
        fprintf(stderr, "tiny_rv1exec.json: %s\n", err.text);
        exit(2);
    }
}

/* A planner of 16 units over [0, 10000) with spans 1 to 3. */
static void setup_planner(fx_t *f)
{
    f->p = grove_planner_create(16, 0, 10000);
    if (!f->p || grove_planner_add(f->p, 0, 100, 4) < 0 || grove_planner_add(f->p, 50, 200, 8) < 0
        || grove_planner_add(f->p, 300, 50, 16) < 0) {
        perror("planner fixture");
        exit(2);
    }
}

/* ... with 16 spans: the next one grows the planner's tables. */
static void setup_planner_full(fx_t *f)
{
    setup_planner(f);
    for (int k = 0; k < 13; k++)
        if (grove_planner_add(f->p, 1000 + 100 * k, 50 + k, 1 + k) < 0)
            exit(2);
}

/* ---- what the public API says of a fixture ----------------------------- */

static void dump_job(FILE *o, const char *what, const grove_job_t *j)
{
    if (!j) {
        fprintf(o, "%s: none\n", what);
        return;
    }
    fprintf(o, "%s %llu: state %d [%lld, %lld) spread %u picks", what,
            (unsigned long long)j->id, (int)j->state, (long long)j->start, (long long)j->end,
            (unsigned)j->spread);
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *k = &j->picks[i];
        fprintf(o, " %llu%s%s%s/%lld", (unsigned long long)k->v, k->exclusive ? "x" : "",
                k->leaf ? "l" : "", k->recorded ? "r" : "", (long long)k->amount);
    }
    fprintf(o, "\n");
}

/* The matcher's table, and where the aggregates and the busy tallies
 * have a say: the earliest start of each request of the fixture, looked
 * for and not kept (a tally left wrong by a failure shows there). */
static void dump_matcher(FILE *o, grove_matcher_t *m, grove_jobspec_t *const *js, size_t njs)
{
    fprintf(o, "matcher: %zu jobs, %zu events\n", grove_matcher_job_count(m),
            grove_matcher_event_count(m));
    for (size_t i = 0;; i++) {
        const grove_job_t *j = grove_matcher_job_at(m, i);
        if (!j)
            break;
        dump_job(o, "job", j);
        char *req = grove_matcher_request(m, j->id);
        fprintf(o, "request: %s\n", req ? req : "-");
        free(req);
    }
    grove_jobid_t next = grove_matcher_next_id(m); /* a result takes an id: given back */
    for (size_t i = 0; i < njs && js[i]; i++) {
        const grove_job_t *j = NULL;
        int rc = grove_match(m, js[i], GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE, 100 + i, &j,
                             NULL);
        fprintf(o, "probe %zu: %d (%s)\n", i, rc, rc < 0 ? strerror(errno) : "found");
        dump_job(o, "probe", rc < 0 ? NULL : j);
    }
    if (njs && js[0] && grove_matcher_set_next_id(m, next) < 0)
        exit(2);
}

/* Cut the values of "uuid" out of JGF text t: a graph draws new ones each
 * time it is made. */
static void strip_uuids(char *t)
{
    static const char key[] = "\"uuid\":\"";
    char *o = t;
    while (*t) {
        if (strncmp(t, key, sizeof(key) - 1) == 0) {
            char *end = strchr(t + sizeof(key) - 1, '"');
            if (end) {
                t = end + 1;
                continue;
            }
        }
        *o++ = *t++;
    }
    *o = '\0';
}

static void dump_graph(FILE *o, const char *what, const grove_graph_t *g)
{
    char *t = test_state_text(g);
    if (t)
        strip_uuids(t);
    fprintf(o, "%s: %zu slots, %zu vertices, %zu edges\n%s\n", what, grove_graph_vertex_slots(g),
            grove_graph_vertex_count(g), grove_graph_edge_count(g), t ? t : "(no text)");
    free(t);
}

static int cmp_span(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static void dump_planner(FILE *o, const grove_planner_t *p)
{
    size_t n = grove_planner_span_count(p);
    int64_t (*s)[4] = calloc(n ? n : 1, sizeof(*s));
    if (!s)
        exit(2);
    for (size_t i = 0; i < n; i++)
        grove_planner_span_at(p, i, &s[i][0], &s[i][1], &s[i][2], &s[i][3]);
    qsort(s, n, sizeof(*s), cmp_span); /* their order is not the planner's promise */
    fprintf(o, "planner: total %lld [%lld, %lld), %zu spans, most used %lld\n",
            (long long)grove_planner_total(p), (long long)grove_planner_start(p),
            (long long)grove_planner_end(p), n, (long long)grove_planner_max_used(p));
    for (size_t i = 0; i < n; i++)
        fprintf(o, "span %lld: %lld+%lld x%lld\n", (long long)s[i][0], (long long)s[i][1],
                (long long)s[i][2], (long long)s[i][3]);
    free(s);
    for (int64_t t = 0; t >= 0; t = grove_planner_next_change(p, t))
        fprintf(o, "at %lld: %lld free\n", (long long)t, (long long)grove_planner_avail_at(p, t));
    fprintf(o, "earliest 12 for 100: %lld\n", (long long)grove_planner_earliest(p, 12, 100, 0));
}

/* Everything the public API tells of f, as one text (caller frees). */
static char *digest(fx_t *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    if (!o)
        exit(2);
    if (f->g)
        dump_graph(o, "graph", f->g);
    dump_job(o, "handed out", f->job); /* before the probes: valid until the next match */
    f->job = NULL;
    if (f->m)
        dump_matcher(o, f->m, f->js, sizeof(f->js) / sizeof(f->js[0]));
    if (f->p)
        dump_planner(o, f->p);
    if (f->made)
        dump_graph(o, "made", f->made);
    if (f->made_m)
        dump_matcher(o, f->made_m, f->js, sizeof(f->js) / sizeof(f->js[0]));
    if (f->R) {
        char *t = grove_rv1_encode(f->R, 0);
        fprintf(o, "R: %s\n", t ? t : "(no text)");
        free(t);
    }
    if (f->made_js) {
        char *t = json_dumps(grove_jobspec_json(f->made_js), JSON_COMPACT | JSON_SORT_KEYS);
        fprintf(o, "jobspec: %s, %zu resources, %zu tasks, duration %g\n", t ? t : "-",
                grove_jobspec_resource_total(f->made_js), grove_jobspec_task_count(f->made_js),
                grove_jobspec_duration(f->made_js));
        free(t);
    }
    if (f->out)
        strip_uuids(f->out);
    fprintf(o, "out: %s\nn: %ld\nv: %lld\n", f->out ? f->out : "-", f->n, (long long)f->v);
    fclose(o);
    return buf;
}

/* ---- the operations ---------------------------------------------------- *
 *
 * Each makes one call of the API (or the few a caller makes as one step,
 * each undone by the next on failure) and keeps what it returned in f:
 * 0, or -1 with errno as the call left it. */

/* Keep n, what a call returned, in f: 0, or -1 when it failed (n < 0; f
 * as it was, errno untouched). */
static int kept_n(fx_t *f, long n)
{
    if (n < 0)
        return -1;
    f->n = n;
    return 0;
}

/* A graph built vertex by vertex: a cluster, a node, two cores. */
static int op_build(fx_t *f)
{
    grove_graph_t *g = grove_graph_create();
    if (!g)
        return -1;
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    const char *types[] = {"cluster", "node", "core", "core"};
    grove_vid_t parent[] = {GROVE_VID_NONE, 0, 1, 1}, v[4];
    for (int i = 0; i < 4; i++) {
        info.type = types[i];
        info.id = i < 2 ? 0 : i - 2;
        v[i] = grove_graph_add_vertex(g, &info);
        if (v[i] == GROVE_VID_NONE
            || (parent[i] != GROVE_VID_NONE
                && grove_graph_add_child(g, v[parent[i]], v[i], NULL, NULL) < 0)) {
            int saved = errno;
            grove_graph_destroy(g);
            errno = saved;
            return -1;
        }
    }
    f->made = g;
    return 0;
}

/* One more node in a graph of many. */
static int op_add_vertex(fx_t *f)
{
    grove_vid_t v = add_extra(f->g);
    if (v == GROVE_VID_NONE)
        return -1;
    f->v = v;
    return 0;
}

/* That node (made by setup_extra) under the first rack, vertex 1. */
static int op_add_child(fx_t *f)
{
    return grove_graph_add_child(f->g, 1, f->v, NULL, NULL);
}

static int op_jgf_read(fx_t *f)
{
    f->made = grove_jgf_read(f->text, strlen(f->text), "tiny.json", NULL);
    return f->made ? 0 : -1;
}

static int op_grug_read(fx_t *f)
{
    f->made = grove_grug_read(f->text, strlen(f->text), "tiny.graphml", NULL, NULL);
    return f->made ? 0 : -1;
}

static int op_rv1_decode(fx_t *f)
{
    f->R = grove_rv1_decode(f->text, strlen(f->text), "tiny_rv1exec.json", NULL);
    return f->R ? 0 : -1;
}

static int op_rv1_to_graph(fx_t *f)
{
    f->made = grove_rv1_to_graph(f->R, NULL);
    return f->made ? 0 : -1;
}

static int op_jgf_write(fx_t *f)
{
    f->out = grove_jgf_write(f->g, GROVE_JGF_WITH_STATE | GROVE_JGF_COMPACT);
    return f->out ? 0 : -1;
}

static int op_matcher_create(fx_t *f)
{
    f->made_m = grove_matcher_create(f->g, NULL);
    return f->made_m ? 0 : -1;
}

/* Every match takes an id, failed or not (match.c: the id of a failed
 * match is not given out again), so that a match with id 0 after a
 * failed one is another job: the cases name theirs, 10, and the digest
 * leaves grove_matcher_next_id out. */
#define CASE_JOB 10

static int match_as(fx_t *f, int js, grove_match_mode_t mode)
{
    return grove_match(f->m, f->js[js], mode, CASE_JOB, &f->job, NULL);
}

/* The matches of the trials: a fixture request (f->js[JS]) in a mode. */
#define MATCH_OP(NAME, JS, MODE)                                                \
    static int NAME(fx_t *f)                                                    \
    {                                                                           \
        return match_as(f, JS, MODE);                                           \
    }
MATCH_OP(op_allocate, 0, GROVE_MATCH_ALLOCATE)
MATCH_OP(op_allocate_nodes, 1, GROVE_MATCH_ALLOCATE)
MATCH_OP(op_allocate_gpu, 2, GROVE_MATCH_ALLOCATE)
MATCH_OP(op_reserve, 3, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE)
MATCH_OP(op_allocate_sat, 1, GROVE_MATCH_ALLOCATE_WITH_SAT)
MATCH_OP(op_satisfiability, 3, GROVE_MATCH_SATISFIABILITY)
MATCH_OP(op_without, 1, GROVE_MATCH_WITHOUT_ALLOCATING)
MATCH_OP(op_future, 3, GROVE_MATCH_WITHOUT_ALLOCATING_FUTURE)

/* Whole nodes in a window of the caller's, from 1000 on. */
static int op_window(fx_t *f)
{
    return grove_match_window(f->m, f->js[1], GROVE_MATCH_ALLOCATE, CASE_JOB, 1000, 0, &f->job,
                              NULL);
}

static int op_restore(fx_t *f)
{
    return grove_matcher_restore(f->m, &f->saved);
}

/* Job 2 given job 3's request. */
static int op_set_request(fx_t *f)
{
    return grove_matcher_set_request(f->m, 2, f->text, NULL);
}

/* Other aggregates asked for, and built at once with the busy tallies
 * from the records (grove_matcher_prepare): the two calls a caller makes
 * to change them.  Between the two the graph answers as before (the
 * aggregates only prune, and are built at the next use), so the digest,
 * which leaves the specification out, is the same after either fails. */
static int op_respec(fx_t *f)
{
    if (grove_graph_set_aggregates(f->g, "ALL:core,ALL:node,ALL:gpu,ALL:socket", NULL) < 0)
        return -1;
    return grove_matcher_prepare(f->m);
}

static int op_jobspec_parse(fx_t *f)
{
    f->made_js = grove_jobspec_parse(f->text, strlen(f->text), NULL, NULL);
    return f->made_js ? 0 : -1;
}

/* Job 2 (two cores) grown by two more. */
static int op_grow(fx_t *f)
{
    return grove_match_grow(f->m, f->js[0], 2, &f->job, NULL);
}

/* Reservation 6 planned again after job 1's end came early. */
static int op_replan(fx_t *f)
{
    return kept_n(f, grove_matcher_replan(f->m, 6, &f->job, NULL));
}

/* A replan that could not put its job back: the job removed, every record
 * of it gone, and 0 said (as for a job that fits nowhere). */
static int replan_gone(fx_t *f)
{
    if (grove_matcher_cancel(f->m, 6) < 0)
        return -1;
    return kept_n(f, 0);
}

static int op_cancel_running(fx_t *f)
{
    return grove_matcher_cancel(f->m, 1);
}

static int op_cancel_reserved(fx_t *f)
{
    return grove_matcher_cancel(f->m, 4);
}

/* Every reservation at once (the bulk path: most of the records go). */
static int op_cancel_many(fx_t *f)
{
    static const grove_jobid_t ids[] = {6, 4, 5, 4, 99};
    return kept_n(f, grove_matcher_cancel_many(f->m, ids, sizeof(ids) / sizeof(ids[0])));
}

/* One job of many (records kept up one by one). */
static int op_cancel_few(fx_t *f)
{
    static const grove_jobid_t ids[] = {2};
    return kept_n(f, grove_matcher_cancel_many(f->m, ids, 1));
}

/* Ranks 1 and 2 of reservation 4 (every node) released. */
static int op_release_ranks(fx_t *f)
{
    bool removed = false;
    return kept_n(f, grove_matcher_release_ranks(f->m, 4, ranks12, &removed));
}

/* R of job 1 (a node whole), as text: the two calls of a writer of R. */
static int op_rv1_write(fx_t *f)
{
    grove_rv1_t *R = grove_rv1_from_job(f->g, grove_matcher_job(f->m, 1),
                                        GROVE_RV1_WITH_GRAPH, NULL);
    if (!R)
        return -1;
    f->out = grove_rv1_encode(R, 0);
    int saved = errno;
    grove_rv1_destroy(R);
    errno = saved;
    return f->out ? 0 : -1;
}

static int op_planner_add(fx_t *f)
{
    return kept_n(f, grove_planner_add(f->p, 360, 500, 4));
}

static int op_planner_remove(fx_t *f)
{
    return grove_planner_remove(f->p, 2);
}

static int op_planner_reduce(fx_t *f)
{
    return kept_n(f, grove_planner_reduce(f->p, 2, 3));
}

static int op_planner_copy(fx_t *f)
{
    grove_planner_t *c = grove_planner_copy(f->p);
    if (!c)
        return -1;
    grove_planner_destroy(f->p);
    f->p = c;
    return 0;
}

/* ---- the trials --------------------------------------------------------- */

typedef struct nm_case {
    const char *name;
    void (*setup)(fx_t *f);
    int (*op)(fx_t *f);
    bool never_fails; /* documented without ENOMEM: succeeds whatever is refused */
    int (*gone)(fx_t *f); /* with every allocation after one refused, the
                           * call may also succeed leaving the objects as
                           * this leaves the fixture (NULL: it may not) */
} nm_case_t;

/* What the trials of one case found. */
typedef struct nm_found {
    long points;  /* trials in which an allocation was refused */
    long failed;  /* of which the operation failed */
    long bad_rc;  /* failed other than with ENOMEM, or where it may not */
    long changed; /* left the objects other than as they were, or
                   * succeeded other than as with memory at hand */
    long gone;    /* succeeded as nm_case_t.gone leaves the objects */
    long retry;   /* the same call again, memory at hand, did otherwise */
    long leaked;  /* blocks were left live */
    long lexer;   /* failed with EINVAL, jansson's lexer refused (allowed) */
    long shown;   /* diagnostics printed */
} nm_found_t;

static long points_total;

/* A diagnostic for the first few findings of a case; with
 * GROVE_NOMEM_VERBOSE set, the two texts that differ (when given). */
static void nm_note(nm_found_t *r, const nm_case_t *c, long at, const char *what,
                    const char *got, const char *want)
{
    if (r->shown++ >= 4)
        return;
    diag("%s: allocation %ld refused: %s", c->name, at, what);
    if (!got || !want || !getenv("GROVE_NOMEM_VERBOSE"))
        return;
    /* where they part: the line, and its first 200 bytes from 100 before */
    size_t i = 0, line = 0;
    for (; got[i] && got[i] == want[i]; i++)
        if (got[i] == '\n')
            line = i + 1;
    size_t from = i - line > 100 ? i - 100 : line;
    printf("# got:  %.200s\n# want: %.200s\n", got + from, want + from);
}

/* Are digests a and b the same but for the requests kept ("request: "
 * lines)?  A match that succeeds keeps the request of its job, or of its
 * grow, only when memory allows (match.c, match_done: the job then cannot
 * be planned again from it), which is no failure of the match. */
static bool same_but_requests(const char *a, const char *b)
{
    static const char key[] = "request: ";
    for (;;) {
        while (strncmp(a, key, sizeof(key) - 1) == 0)
            a += strcspn(a, "\n") + (a[strcspn(a, "\n")] != '\0');
        while (strncmp(b, key, sizeof(key) - 1) == 0)
            b += strcspn(b, "\n") + (b[strcspn(b, "\n")] != '\0');
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || strncmp(a, b, la) != 0)
            return false;
        if (!a[la])
            return !b[lb];
        a += la + 1;
        b += lb + 1;
    }
}

/* One trial: c's operation with allocation at (and, sticky, every later
 * one) refused; want what it leaves with memory at hand.  Whether an
 * allocation was refused (false: the operation made fewer than at). */
static bool nm_trial(const nm_case_t *c, long at, bool sticky, const char *want,
                     const char *gone, nm_found_t *r)
{
    fx_t f = {0};
    long live0 = live_count;
    c->setup(&f);
    char *before = digest(&f), *after;
    nm_arm(at, sticky);
    errno = 0;
    int rc = c->op(&f);
    int e = errno;
    nm_disarm();
    bool refused = nm_refused > 0;
    after = digest(&f);
    if (!refused || rc == 0) {
        bool as_gone = rc == 0 && refused && gone && strcmp(after, gone) == 0;
        bool same = rc == 0 && (strcmp(after, want) == 0
                                || (refused && same_but_requests(after, want)) || as_gone);
        r->gone += as_gone;
        if (rc != 0)
            nm_note(r, c, at, "fails with nothing refused", NULL, NULL);
        else if (!same)
            nm_note(r, c, at, "succeeds, but not as with memory at hand", after, want);
        r->changed += !same;
    } else {
        r->failed++;
        if (e == EINVAL && nm_json_first && !c->never_fails) {
            /* jansson's lexer takes an allocation it could not make for a
             * bad token: no reader on top of it can tell */
            r->lexer++;
        } else if (c->never_fails || e != ENOMEM) {
            r->bad_rc++;
            nm_note(r, c, at, c->never_fails ? "fails, and may not" : strerror(e), NULL, NULL);
        }
        if (strcmp(after, before) != 0) {
            r->changed++;
            nm_note(r, c, at, "fails, the objects changed", after, before);
        }
        free(after);
        rc = c->op(&f);
        after = digest(&f);
        if (rc != 0 || strcmp(after, want) != 0) {
            r->retry++;
            nm_note(r, c, at, "the call again does otherwise than on a fresh fixture", after, want);
        }
    }
    fx_free(&f);
    free(before);
    free(after);
    if (live_count != live0) {
        r->leaked++;
        nm_note(r, c, at, "blocks left live", NULL, NULL);
    }
    r->points += refused;
    return refused;
}

/* Run c with each of its allocations refused in turn, until a trial
 * refuses none. */
static void nm_run(const nm_case_t *c, bool sticky)
{
    fx_t f = {0};
    c->setup(&f);
    free(digest(&f)); /* as the trials do: the digest's probes come first */
    nm_arm(0, false);
    int rc = c->op(&f);
    long total = nm_count;
    char *want = digest(&f);
    fx_free(&f);
    if (!ok(rc == 0, "%s: succeeds with memory at hand", c->name)) {
        free(want);
        return;
    }
    nm_found_t r = {0};
    char *gone = NULL;
    if (sticky && c->gone) {
        fx_t g = {0};
        c->setup(&g);
        free(digest(&g));
        int grc = c->gone(&g);
        gone = digest(&g);
        fx_free(&g);
        if (grc != 0)
            exit(2);
    }
    for (long at = 1; nm_trial(c, at, sticky, want, gone, &r); at++)
        if (at > 4 * total + 1000) {
            nm_note(&r, c, at, "the allocations do not come to an end", NULL, NULL);
            r.changed++;
            break;
        }
    free(want);
    free(gone);
    points_total += r.points;
    const char *how = sticky ? "the rest with it" : "alone";
    if (r.points == 0)
        diag("%s: makes no allocation here", c->name);
    if (r.lexer)
        diag("%s: %ld failures with EINVAL: an allocation of jansson's lexer refused", c->name,
             r.lexer);
    bool clean = r.bad_rc == 0 && r.changed == 0 && r.retry == 0 && r.leaked == 0;
    if (r.gone)
        diag("%s: %ld times the call's other outcome with memory gone", c->name, r.gone);
    ok(clean,
       "%s: each of %ld allocations refused (%s): %ld failures with ENOMEM, objects as "
       "they were, the call again as on a fresh object, nothing leaked",
       c->name, r.points, how, r.failed - r.lexer);
}

static const nm_case_t cases[] = {
    {"graph built vertex by vertex", setup_none, op_build, false, NULL},
    {"graph: add a vertex", setup_graph, op_add_vertex, false, NULL},
    {"graph: add an edge", setup_extra, op_add_child, false, NULL},
    {"JGF read (tiny.json)", setup_jgf, op_jgf_read, false, NULL},
    {"GRUG read (tiny.graphml)", setup_grug, op_grug_read, false, NULL},
    {"jobspec parse: YAML", setup_yaml, op_jobspec_parse, false, NULL},
    {"jobspec parse: JSON", setup_json, op_jobspec_parse, false, NULL},
    {"R decode (tiny_rv1exec.json)", setup_rv1_text, op_rv1_decode, false, NULL},
    {"R to graph", setup_rv1, op_rv1_to_graph, false, NULL},
    {"JGF write with state", setup_busy, op_jgf_write, false, NULL},
    {"matcher create", setup_graph, op_matcher_create, false, NULL},
    {"match allocate: whole nodes, the first job", setup_matcher, op_allocate_nodes, false, NULL},
    {"match allocate: cores", setup_busy, op_allocate, false, NULL},
    {"match allocate: whole nodes", setup_busy, op_allocate_nodes, false, NULL},
    {"match allocate: gpu and memory", setup_busy, op_allocate_gpu, false, NULL},
    {"match allocate or else reserve", setup_busy, op_reserve, false, NULL},
    {"match allocate or else reserve, behind reservations", setup_reserved, op_reserve, false,
     NULL},
    {"match allocate with satisfiability", setup_busy, op_allocate_sat, false, NULL},
    {"match satisfiability", setup_reserved, op_satisfiability, false, NULL},
    {"match without allocating", setup_busy, op_without, false, NULL},
    {"match without allocating, future", setup_reserved, op_future, false, NULL},
    {"match in a chosen window", setup_busy, op_window, false, NULL},
    {"match grow", setup_busy, op_grow, false, NULL},
    {"matcher restore", setup_taken, op_restore, false, NULL},
    {"matcher set request", setup_request, op_set_request, false, NULL},
    {"aggregates asked anew and built (prepare)", setup_reserved, op_respec, false, NULL},
    {"matcher replan", setup_replan, op_replan, false, replan_gone},
    {"matcher cancel: running", setup_reserved, op_cancel_running, true, NULL},
    {"matcher cancel: reserved", setup_reserved, op_cancel_reserved, true, NULL},
    {"matcher cancel: 72 nodes", setup_wide, op_cancel_running, true, NULL},
    {"matcher cancel many: every reservation", setup_reserved, op_cancel_many, false, NULL},
    {"matcher cancel many: one job", setup_reserved, op_cancel_few, false, NULL},
    {"matcher release ranks", setup_reserved, op_release_ranks, false, NULL},
    {"R of a job, written", setup_busy, op_rv1_write, false, NULL},
    {"planner add", setup_planner, op_planner_add, false, NULL},
    {"planner add, its tables grown", setup_planner_full, op_planner_add, false, NULL},
    {"planner remove", setup_planner, op_planner_remove, true, NULL},
    {"planner reduce", setup_planner, op_planner_reduce, true, NULL},
    {"planner copy", setup_planner, op_planner_copy, false, NULL},
};

int main(void)
{
    json_set_alloc_funcs(nm_json_malloc, nm_json_free);
    ranks12 = grove_idset_decode("1-2", NULL);
    if (!ranks12)
        return 2;
    for (int sticky = 0; sticky < 2; sticky++)
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            nm_run(&cases[i], sticky);
    diag("%ld allocations refused in all", points_total);
    grove_idset_destroy(ranks12);
    return done_testing();
}
