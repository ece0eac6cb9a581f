/* l_query.c: the per-job path of `grove query`'s command loop, in C.
 *
 *   core.query_run(session, file)   run the command lines of file (an open
 *       Lua file) in session, a grove.query session, until the input ends
 *       or a command quits
 *
 * Workload: streams of thousands of `match allocate JOBSPEC` lines naming
 * a few jobspec files again and again, where the match itself costs a few
 * microseconds: reading a line, reading the file, parsing the jobspec and
 * printing the result through Lua would cost more than the match.  So the
 * lines `match MODE JOBSPEC` (MODE allocate or allocate_orelse_reserve)
 * whose file reads as a jobspec seen before, matched under a built-in
 * policy, are done here: the file's text is compared with the text the
 * jobspec was parsed from (parsed once per distinct text, through the
 * session's parse_jobspec), the match runs in C and its result is written
 * straight to the session's output.  Everything else (other commands, a
 * jobspec not seen yet and any of its errors, a policy in Lua, a match
 * that finds nothing) is the session's: the line goes to session:execute,
 * a jobspec to session:parse_jobspec, a failed match to
 * session:match_outcome; grove.query stays the one definition of the
 * command language, and the bytes written are the same either way.
 *
 * Output is flushed when the input has no whole line buffered (before the
 * loop could wait for more), not after every command: a stream piped in
 * pays no write per job, a person or a program waiting on each answer
 * still sees it at once.
 *
 * A jobspec file is looked at (a stat, or a read when its times cannot
 * be trusted) once per batch of lines, not once per line: a batch is the
 * lines taken from one read of the input (the lines that came together,
 * a few kB of a file or a pipe).  Whoever wrote a line wrote it after
 * any change to the file it meant the line to see, and the look comes
 * after the read that brought the line, so it sees that change; a file
 * changed between batches is read again.  A line that may need a read of
 * its own (no whole line buffered before it) starts a batch, as does a
 * command handed to the session (it could write the file) and every run.
 *
 * This file holds only the loop; the commands are grove.query's, the
 * matcher's table l_match.c's, the writer's formats core/writers.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lgraph.h"
#include "limit.h"
#include "match.h"
#include "writers.h"

/* The steps of a job stay out of line so that profiles name them
 * (bench/profile_query.sh): a call a job, nothing to save by inlining. */
#define STEP __attribute__((noinline))

/* Jobspecs kept parsed (a stream names a handful of files). */
#define QCACHE 16

/* The most types a shape names (as l_writer.c's shapes). */
#define QSHAPE 64

/* The separator line of the session's blocks (grove.query_select). */
#define SEP "INFO: ============================="

/* One jobspec kept parsed: its path and text (Lua strings in the cache
 * table, the session's jobspec_cache, entry i at 3i+1 and 3i+2, the
 * jobspec userdata at 3i+3) and the shape its selections are printed by.
 * The entries themselves are a userdata of that table ("entries"), so a
 * session keeps its jobspecs from one run to the next. */
struct qentry {
    const char *path; /* NULL: a free entry */
    const char *text;
    size_t len;
    struct stat st; /* the file when its text was last read */
    bool settled;   /* st was more than a second old then (see same_file) */
    uint64_t seen;  /* the batch in which the file was last found to hold
                     * text (a regular file's), 0: none */
    const grove_jobspec_t *js;
    grove_wshape_t shape;
    grove_sym_t expand[QSHAPE];
    grove_sym_t prefer[QSHAPE][2];
};

struct qcache {
    struct qentry e[QCACHE];
    size_t next;    /* the entry the next parse replaces */
    uint64_t batch; /* the batch of input lines being run (see the top) */
};

/* Is c a space as Lua's %s means it (the C locale's isspace)? */
static int is_space(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Does f hold anything buffered (so the next read will not wait)?
 * Without glibc's buffer fields: never, so output is flushed after every
 * command. */
static int input_pending(FILE *f)
{
#ifdef __GLIBC__
    return f->_IO_read_ptr < f->_IO_read_end;
#else
    (void)f;
    return 0;
#endif
}

/* Does f hold a whole line buffered, so that the next getline takes it
 * without a read of its own?  Without glibc's buffer fields: never, so
 * every line is a batch of its own. */
static int line_buffered(FILE *f)
{
#ifdef __GLIBC__
    return f->_IO_read_ptr < f->_IO_read_end &&
           memchr(f->_IO_read_ptr, '\n', (size_t)(f->_IO_read_end - f->_IO_read_ptr)) != NULL;
#else
    (void)f;
    return 0;
#endif
}

static double wall_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- shapes ----------------------------------------------------------------- */

static void add_sym(grove_sym_t *set, size_t *n, grove_sym_t t)
{
    for (size_t i = 0; i < *n; i++)
        if (set[i] == t)
            return;
    if (*n < QSHAPE)
        set[(*n)++] = t;
}

static void add_pair(struct qentry *q, grove_sym_t c, grove_sym_t p)
{
    for (size_t i = 0; i < q->shape.nprefer; i++)
        if (q->prefer[i][0] == c && q->prefer[i][1] == p)
            return;
    if (q->shape.nprefer < QSHAPE) {
        q->prefer[q->shape.nprefer][0] = c;
        q->prefer[q->shape.nprefer][1] = p;
        q->shape.nprefer++;
    }
}

/* The shape of the resources from r on (grove.query_select's request): the
 * types marked exclusive explicitly, and for each type the types above it
 * (a slot stands for its parent, parent); types the graph does not know
 * are left out. */
static void shape_of(const grove_graph_t *g, struct qentry *q, const grove_jobspec_resource_t *r,
                     grove_sym_t parent)
{
    for (; r; r = grove_jobspec_resource_next(r)) {
        grove_sym_t t = grove_graph_sym_lookup(g, grove_jobspec_resource_type(r));
        if (grove_jobspec_resource_exclusive_raw(r) == 1 && t != GROVE_SYM_NONE)
            add_sym(q->expand, &q->shape.nexpand, t);
        if (grove_jobspec_resource_is_slot(r)) {
            shape_of(g, q, grove_jobspec_resource_child(r), parent);
            continue;
        }
        if (parent != GROVE_SYM_NONE && t != GROVE_SYM_NONE)
            add_pair(q, t, parent);
        shape_of(g, q, grove_jobspec_resource_child(r), t);
    }
}

/* ---- the loop ---------------------------------------------------------------- */

/* Stack slots of l_query_run. */
enum {
    S_SESSION = 1,
    S_INPUT,
    S_CACHE, /* the cache's Lua strings and jobspecs */
    S_LINE,  /* box: the line buffer */
    S_TEXT,  /* box: the jobspec file's text */
    S_QC,    /* struct qcache */
    S_MATCHER,
    S_WRITER,
    S_OUT,
    S_INFO,
    S_ERR,
    S_TOP
};

struct loop {
    lua_State *L;
    FILE *in, *out, *info, *err;
    grove_matcher_t *m;
    grove_writer_t *w;
    const grove_graph_t *g;
    grove_wfmt_t fmt;
    const char *fmt_name;
    bool elapsed;
    lua_Integer next_id, lineno;
    uint64_t limit;    /* bytes of an input file */
    struct qcache *qc;
    struct grovel_box *text;
    size_t text_cap;
};

static FILE *file_field(lua_State *L, const char *name)
{
    lua_getfield(L, S_SESSION, name);
    luaL_Stream *p = luaL_testudata(L, -1, LUA_FILEHANDLE);
    if (!p || !p->closef)
        luaL_error(L, "query_run: session.%s is not an open file", name);
    return p->f;
}

static lua_Integer int_field(lua_State *L, const char *name, lua_Integer dflt)
{
    lua_getfield(L, S_SESSION, name);
    lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : dflt;
    lua_pop(L, 1);
    return n;
}


/* The session's state as the loop left it, so that its Lua commands see
 * it. */
static void sync_out(struct loop *lp)
{
    lua_State *L = lp->L;
    lua_pushinteger(L, lp->next_id);
    lua_setfield(L, S_SESSION, "next_id");
    lua_pushinteger(L, lp->lineno);
    lua_setfield(L, S_SESSION, "lineno");
}

/* Forget every kept jobspec. */
static void cache_clear(struct loop *lp)
{
    for (size_t i = 0; i < QCACHE; i++) {
        lp->qc->e[i].path = NULL;
        for (int k = 1; k <= 3; k++) {
            lua_pushnil(lp->L);
            lua_rawseti(lp->L, S_CACHE, (lua_Integer)(3 * i) + k);
        }
    }
}

/* Jobspecs are read with the resource types the graph knows (the
 * session's types, a table made again when the graph changes): when the
 * table is not the one the kept jobspecs were read with, forget them.  The
 * cache table holds the types table it was filled with, so that its
 * address is not reused while compared. */
static void check_types(struct loop *lp)
{
    lua_State *L = lp->L;
    lua_getfield(L, S_SESSION, "types");
    lua_getfield(L, S_CACHE, "types");
    if (!lua_rawequal(L, -1, -2)) {
        cache_clear(lp);
        lua_pushvalue(L, -2);
        lua_setfield(L, S_CACHE, "types");
    }
    lua_pop(L, 2);
}

/* Line (len bytes) run by session:execute.  false after quit. */
static bool fallback(struct loop *lp, const char *line, size_t len)
{
    lua_State *L = lp->L;
    sync_out(lp);
    lua_pushinteger(L, lp->lineno - 1); /* execute counts the line */
    lua_setfield(L, S_SESSION, "lineno");
    lua_getfield(L, S_SESSION, "execute");
    lua_pushvalue(L, S_SESSION);
    lua_pushlstring(L, line, len);
    lua_call(L, 2, 1);
    bool go_on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lp->qc->batch++; /* the command may have written a jobspec file */
    lp->next_id = int_field(L, "next_id", lp->next_id);
    lp->lineno = int_field(L, "lineno", lp->lineno);
    check_types(lp);
    return go_on;
}

/* The text of the file at path in the text box (*len bytes), or -1 when it
 * cannot be read whole as text under the input limit (the session's Lua
 * says why). */
STEP static int read_text(struct loop *lp, const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    for (;;) {
        if (n == lp->text_cap) {
            size_t cap = lp->text_cap ? 2 * lp->text_cap : 4096;
            char *p = realloc(lp->text->p, cap);
            if (!p) {
                close(fd);
                return -1;
            }
            lp->text->p = p;
            lp->text_cap = cap;
        }
        ssize_t r = read(fd, (char *)lp->text->p + n, lp->text_cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        if (memchr((char *)lp->text->p + n, 0, (size_t)r)) {
            close(fd);
            return -1;
        }
        n += (size_t)r;
        if (n > lp->limit) {
            close(fd);
            return -1;
        }
    }
    close(fd);
    *len = n;
    return 0;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Is the file st the one q's text was read from, unchanged?  Only when q
 * was settled: its file's last change (mtime and ctime) more than a second
 * before the read.  A later write then stamps a time after the read, so
 * it shows in mtime or ctime, whatever the file system's granularity (a
 * second at worst); a file written just before it was read is read again
 * each time, as Git treats a racily clean index entry. */
static bool same_file(const struct qentry *q, const struct stat *st)
{
    return q->settled && q->st.st_dev == st->st_dev && q->st.st_ino == st->st_ino &&
           q->st.st_size == st->st_size && same_time(&q->st.st_mtim, &st->st_mtim) &&
           same_time(&q->st.st_ctim, &st->st_ctim);
}

/* Record that q's text is that of the file st, read at the time now. */
static void settle(struct qentry *q, const struct stat *st, const struct timespec *now)
{
    q->st = *st;
    const struct timespec *m = &st->st_mtim, *c = &st->st_ctim;
    const struct timespec *last = (c->tv_sec > m->tv_sec ||
                                   (c->tv_sec == m->tv_sec && c->tv_nsec > m->tv_nsec)) ? c : m;
    q->settled = now->tv_sec > last->tv_sec + 1;
}

/* Mark q's file as looked at in this batch when it is a regular file
 * (a fifo or a device may say something else at each read); i. */
static int seen(struct loop *lp, int i, bool regular)
{
    lp->qc->e[i].seen = regular ? lp->qc->batch : 0;
    return i;
}

/* The kept jobspec of the file at path, parsed now by
 * session:parse_jobspec when none is kept for its text; its entry's
 * index, or -1 when the file cannot be read or its text is not a
 * jobspec (the session's Lua says why).  A file looked at in this batch
 * is not looked at again (see the top); else a settled file that did
 * not change is not read again (one stat). */
STEP static int jobspec_for(struct loop *lp, const char *path)
{
    for (int i = 0; i < QCACHE; i++) {
        const struct qentry *q = &lp->qc->e[i];
        if (q->path && q->seen == lp->qc->batch && strcmp(q->path, path) == 0)
            return i;
    }
    struct stat st;
    bool have_st = stat(path, &st) == 0;
    if (have_st && S_ISREG(st.st_mode)) {
        for (int i = 0; i < QCACHE; i++) {
            struct qentry *q = &lp->qc->e[i];
            if (q->path && same_file(q, &st) && strcmp(q->path, path) == 0)
                return seen(lp, i, true);
        }
    } else {
        have_st = false;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    size_t len;
    if (read_text(lp, path, &len) < 0)
        return -1;
    const char *text = lp->text->p;
    for (int i = 0; i < QCACHE; i++) {
        struct qentry *q = &lp->qc->e[i];
        if (q->path && q->len == len && strcmp(q->path, path) == 0 &&
            memcmp(q->text, text, len) == 0) {
            if (have_st)
                settle(q, &st, &now);
            else
                q->settled = false;
            return seen(lp, i, have_st);
        }
    }
    lua_State *L = lp->L;
    lua_getfield(L, S_SESSION, "parse_jobspec");
    lua_pushvalue(L, S_SESSION);
    lua_pushstring(L, path);
    lua_pushlstring(L, text, len);
    lua_call(L, 3, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return -1;
    }
    const grove_jobspec_t *js = grovel_check_jobspec(L, -1);
    check_types(lp); /* the parse may have asked for them afresh */
    int i = (int)lp->qc->next;
    lp->qc->next = (lp->qc->next + 1) % QCACHE;
    struct qentry *q = &lp->qc->e[i];
    lua_rawseti(L, S_CACHE, 3 * i + 3);
    lua_pushstring(L, path);
    q->path = lua_tostring(L, -1);
    lua_rawseti(L, S_CACHE, 3 * i + 1);
    lua_pushlstring(L, text, len);
    q->text = lua_tostring(L, -1);
    lua_rawseti(L, S_CACHE, 3 * i + 2);
    q->len = len;
    q->js = js;
    if (have_st)
        settle(q, &st, &now);
    else
        q->settled = false;
    memset(&q->shape, 0, sizeof(q->shape));
    q->shape.expand = q->expand;
    q->shape.prefer = (const grove_sym_t(*)[2])q->prefer;
    shape_of(lp->g, q, grove_jobspec_resource_first(js), GROVE_SYM_NONE);
    return seen(lp, i, have_st);
}

static const char *const state_names[] = {"ALLOCATED", "RESERVED", "MATCHED"};

/* Append s (n bytes) at p; the end. */
static char *put(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* Append v in decimal at p; the end. */
static char *put_int(char *p, long long v)
{
    char d[24];
    size_t n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        d[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = d[--n];
    return p;
}

#define PUT(p, lit) put(p, lit, sizeof(lit) - 1)

/* The job's selection and its block, as grove.query_select.print_match
 * writes them (the block made by hand: printf's formats cost as much as
 * the rest of the loop). */
STEP static void print_match(struct loop *lp, const grove_job_t *job, const struct qentry *q,
                             double t0)
{
    grove_error_t err = {{0}, 0};
    if (grove_writer_print_job(lp->w, job, &q->shape, lp->fmt, lp->out, &err) < 0) {
        int e = errno;
        fflush(lp->out);
        fprintf(lp->err, "ERROR: cannot write %s output: %s\n", lp->fmt_name,
                err.text[0] ? err.text : strerror(e));
    }
    char buf[256], *p = buf;
    p = PUT(p, SEP "\nINFO: JOBID=");
    p = put_int(p, (long long)job->id);
    p = PUT(p, "\nINFO: RESOURCES=");
    p = put(p, state_names[job->state], strlen(state_names[job->state]));
    p = PUT(p, "\nINFO: SCHEDULED AT=");
    if (job->start == grove_graph_now(lp->g))
        p = PUT(p, "Now");
    else
        p = put_int(p, (long long)job->start);
    *p++ = '\n';
    if (lp->elapsed) {
        /* %.6f of a time: seconds and microseconds */
        double d = wall_clock() - t0;
        long long us = (long long)(d * 1e6 + 0.5);
        p = PUT(p, "INFO: ELAPSED=");
        if (d < 0) { /* a clock never runs back; the format if it did */
            p += snprintf(p, 40, "%.6f", d);
        } else {
            p = put_int(p, us / 1000000);
            *p++ = '.';
            char frac[6];
            long long f = us % 1000000;
            for (int k = 5; k >= 0; k--, f /= 10)
                frac[k] = (char)('0' + f % 10);
            p = put(p, frac, 6);
        }
        *p++ = '\n';
    }
    p = PUT(p, SEP "\n");
    fwrite(buf, 1, (size_t)(p - buf), lp->out);
}

/* A failed match, told by session:match_outcome. */
static void match_failed(struct loop *lp, const char *mode, lua_Integer id, int i,
                         const grove_error_t *err, int e, double t0)
{
    lua_State *L = lp->L;
    sync_out(lp);
    lua_getfield(L, S_SESSION, "match_outcome");
    lua_pushvalue(L, S_SESSION);
    lua_pushstring(L, mode);
    lua_pushinteger(L, id);
    lua_rawgeti(L, S_CACHE, 3 * i + 3);
    lua_pushnil(L);
    lua_pushstring(L, err->text[0] ? err->text : strerror(e));
    lua_pushstring(L, grovel_errno_name(e));
    if (lp->elapsed)
        lua_pushnumber(L, t0);
    else
        lua_pushnil(L);
    lua_call(L, 8, 0);
}

/* The words of line (len bytes, no NUL) in word[], at most max; their
 * number, or max + 1 when there are more. */
static size_t split(char *line, size_t len, char **word, size_t max)
{
    size_t n = 0;
    char *p = line, *end = line + len;
    while (p < end) {
        while (p < end && is_space((unsigned char)*p))
            p++;
        if (p == end)
            break;
        if (n == max)
            return max + 1;
        word[n++] = p;
        while (p < end && !is_space((unsigned char)*p))
            p++;
        if (p < end)
            *p++ = '\0';
    }
    *end = '\0';
    return n;
}

/* One line: done here, or handed to the session.  false after quit. */
STEP static bool run_line(struct loop *lp, char *line, size_t len)
{
    const char *p = line, *end = line + len;
    while (p < end && is_space((unsigned char)*p))
        p++;
    if (p == end || *p == '#')
        return true;
    if (memchr(line, '\0', len))
        return fallback(lp, line, len);
    char *copy = line + len + 1; /* the line buffer holds twice the line */
    memcpy(copy, line, len + 1);
    char *word[4];
    size_t n = split(copy, len, word, 3);
    if (n != 3 || (strcmp(word[0], "match") != 0 && strcmp(word[0], "m") != 0))
        return fallback(lp, line, len);
    const char *mode = word[1], *path = word[2];
    grove_match_mode_t mm;
    if (strcmp(mode, "allocate") == 0)
        mm = GROVE_MATCH_ALLOCATE;
    else if (strcmp(mode, "allocate_orelse_reserve") == 0)
        mm = GROVE_MATCH_ALLOCATE_ORELSE_RESERVE;
    else
        return fallback(lp, line, len);
    double t0 = lp->elapsed ? wall_clock() : 0;
    int i = jobspec_for(lp, path);
    if (i < 0)
        return fallback(lp, line, len);
    const struct qentry *q = &lp->qc->e[i];
    lua_Integer id = lp->next_id;
    const grove_job_t *job = NULL;
    grove_error_t err = {{0}, 0};
    int rc = grovel_match_builtin(lp->L, S_MATCHER, q->js, mm, (grove_jobid_t)id, &job, &err);
    if (rc == 1)
        return fallback(lp, line, len);
    lp->next_id = id + 1;
    if (rc < 0)
        match_failed(lp, mode, id, i, &err, errno, t0);
    else
        print_match(lp, job, q, t0);
    if (!input_pending(lp->in)) {
        fflush(lp->out);
        fflush(lp->info);
    }
    return true;
}

static int l_query_run(lua_State *L)
{
    luaL_checktype(L, S_SESSION, LUA_TTABLE);
    luaL_Stream *in = luaL_checkudata(L, S_INPUT, LUA_FILEHANDLE);
    if (!in->closef)
        luaL_argerror(L, S_INPUT, "attempt to use a closed file");
    lua_settop(L, S_INPUT);
    /* S_CACHE: the session's jobspec_cache, made at its first run */
    if (lua_getfield(L, S_SESSION, "jobspec_cache") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 3 * QCACHE, 2);
        lua_pushvalue(L, -1);
        lua_setfield(L, S_SESSION, "jobspec_cache");
    }
    struct grovel_box *linebox = grovel_box_new(L, free); /* S_LINE */
    struct loop lp = {.L = L, .in = in->f};
    lp.text = grovel_box_new(L, free); /* S_TEXT */
    if (lua_getfield(L, S_CACHE, "entries") != LUA_TUSERDATA) { /* S_QC */
        lua_pop(L, 1);
        lp.qc = lua_newuserdatauv(L, sizeof(*lp.qc), 0);
        memset(lp.qc, 0, sizeof(*lp.qc));
        lua_pushvalue(L, -1);
        lua_setfield(L, S_CACHE, "entries");
    }
    lp.qc = lua_touserdata(L, S_QC);
    lua_getfield(L, S_SESSION, "matcher"); /* S_MATCHER */
    lp.m = grovel_check_matcher(L, S_MATCHER);
    lp.g = grove_matcher_graph(lp.m);
    lua_getfield(L, S_SESSION, "writer"); /* S_WRITER */
    lp.w = grovel_check_writer(L, S_WRITER);
    lp.out = file_field(L, "out");   /* S_OUT */
    lp.info = file_field(L, "info"); /* S_INFO */
    lp.err = file_field(L, "err");   /* S_ERR */
    lua_getfield(L, S_SESSION, "format");
    lp.fmt_name = lua_tostring(L, -1); /* the session keeps it */
    int f = lp.fmt_name ? grove_wfmt_parse(lp.fmt_name) : -1;
    if (f < 0)
        return luaL_error(L, "query_run: session.format is not a format");
    lp.fmt = (grove_wfmt_t)f;
    lua_pop(L, 1);
    lua_getfield(L, S_SESSION, "elapsed");
    lp.elapsed = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lp.next_id = int_field(L, "next_id", 1);
    lp.lineno = int_field(L, "lineno", 0);
    check_types(&lp);
    grove_limits_t lim;
    grove_limits_get(&lim);
    lp.limit = lim.input;
    size_t cap = 0;
    lp.qc->batch++;
    for (;;) {
        if (!input_pending(lp.in)) {
            fflush(lp.out);
            fflush(lp.info);
        }
        bool same_batch = line_buffered(lp.in);
        char *line = linebox->p;
        ssize_t n = getline(&line, &cap, lp.in);
        linebox->p = line;
        if (n < 0)
            break;
        if (!same_batch)
            lp.qc->batch++;
        lp.lineno++;
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        /* room for the copy split() cuts up */
        if (cap < 2 * len + 2) {
            char *p = realloc(line, 2 * len + 2);
            if (!p)
                return luaL_error(L, "query_run: out of memory");
            linebox->p = line = p;
            cap = 2 * len + 2;
        }
        if (!run_line(&lp, line, len))
            break;
    }
    sync_out(&lp);
    fflush(lp.out);
    fflush(lp.info);
    return 0;
}

#include "api_query.h"
