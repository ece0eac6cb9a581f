/* l_writer.c: the text `grove query` prints, in Lua (see core/writers.h).
 *
 *   core.writer(graph)                      a writer for the graph
 *   w:job(matcher, id, fmt [, shape [, file]])
 *       the text of job id (nil: the matcher's last result of a mode that
 *       records nothing) in format fmt, or nil, message, code; shape =
 *       {expand = {type = true, ...}, prefer = {type = {parent_type =
 *       true, ...}, ...}} (see writers.h); given an open file, the text is
 *       written to it as it is made and w:job returns true
 *   w:entries(matcher, id [, shape])        what the job's text shows:
 *       {{vid =, type =, amount =, x =, alloc =}, ...} in vertex id order
 *   w:vertices(fmt, {vertex, ...} [, agfilter [, file]])
 *       the text of the vertices and their ancestors, each whole and
 *       exclusive; agfilter = {[vid] = JSON object text} adds JGF metadata;
 *       file as for w:job
 *   w:set_subsystem(name | nil)             print along that subsystem
 *       (default containment), or nil, message, "ENOENT"
 *   core.writer_formats                     the format names
 *   core.wall_clock()                       seconds on a monotonic clock,
 *       to time a command end to end (os.clock counts CPU time only)
 *   core.thread_clock()                     the calling thread's CPU
 *       seconds (os.clock sums every thread of the process: a broker's)
 *   core.real_clock()                       seconds since the epoch, with
 *       their fraction (os.time's are whole)
 *
 * Workload: one w:job per match of a query session, from a core to a whole
 * machine: nothing here is per vertex; a whole machine's text goes to the
 * file as it is made rather than through a Lua string.
 *
 * The writer keeps its graph alive (user value 1).  This file holds only
 * the conversion of arguments and results; selections and formats belong
 * to core/writers.c, the matcher's table to l_match.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lgraph.h"
#include "match.h"
#include "writers.h"

#define GROVEL_WRITER "grove.writer"

/* The most types a shape may name (a jobspec names a handful). */
#define MAX_SHAPE 64

struct lwriter {
    union {
        grovel_handle_t h;
        grove_writer_t *w; /* NULL once closed */
    };
    const grove_graph_t *g; /* the graph it was made for */
};

static const grovel_class_t writer_class; /* defined by api.tsv */

/* The writer at idx, its graph still open. */
static struct lwriter *check_writer(lua_State *L, int idx)
{
    grovel_handle_check(L, idx, &writer_class);
    struct lwriter *lw = lua_touserdata(L, idx);
    grovel_owner_graph(L, idx, "writer");
    return lw;
}

grove_writer_t *grovel_check_writer(lua_State *L, int idx)
{
    return check_writer(L, idx)->w;
}

static int l_writer_new(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    struct lwriter *lw = (struct lwriter *)grovel_handle_new(L, &writer_class);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    lw->g = gr->g;
    lw->w = grove_writer_create(gr->g);
    if (!lw->w)
        return grovel_fail_errno(L, ENOMEM, "cannot create a writer: out of memory");
    return 1;
}

/* A shape read from the table at idx (may be nil) into storage the caller
 * gives; types the graph does not know cannot match a vertex and are left
 * out. */
struct shape {
    grove_wshape_t s;
    grove_sym_t expand[MAX_SHAPE];
    grove_sym_t prefer[MAX_SHAPE][2];
};

static void read_shape(lua_State *L, int idx, const grove_graph_t *g, struct shape *sh)
{
    memset(sh, 0, sizeof(*sh));
    sh->s.expand = sh->expand;
    sh->s.prefer = (const grove_sym_t(*)[2])sh->prefer;
    if (lua_isnoneornil(L, idx))
        return;
    static const char *const fields[] = {"expand", "prefer", NULL};
    luaL_checktype(L, idx, LUA_TTABLE);
    grovel_check_keys(L, idx, fields, idx, "unknown field '%s'");
    if (lua_getfield(L, idx, "expand") == LUA_TTABLE) {
        for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
            grove_sym_t t = lua_type(L, -2) == LUA_TSTRING
                                ? grove_graph_sym_lookup(g, lua_tostring(L, -2))
                                : GROVE_SYM_NONE;
            if (t != GROVE_SYM_NONE && lua_toboolean(L, -1) && sh->s.nexpand < MAX_SHAPE)
                sh->expand[sh->s.nexpand++] = t;
        }
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "prefer") == LUA_TTABLE) {
        for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
            grove_sym_t c = lua_type(L, -2) == LUA_TSTRING
                                ? grove_graph_sym_lookup(g, lua_tostring(L, -2))
                                : GROVE_SYM_NONE;
            if (c == GROVE_SYM_NONE || lua_type(L, -1) != LUA_TTABLE)
                continue;
            for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
                grove_sym_t p = lua_type(L, -2) == LUA_TSTRING
                                    ? grove_graph_sym_lookup(g, lua_tostring(L, -2))
                                    : GROVE_SYM_NONE;
                if (p != GROVE_SYM_NONE && lua_toboolean(L, -1) && sh->s.nprefer < MAX_SHAPE) {
                    sh->prefer[sh->s.nprefer][0] = c;
                    sh->prefer[sh->s.nprefer][1] = p;
                    sh->s.nprefer++;
                }
            }
        }
    }
    lua_pop(L, 1);
}

/* The job of w:job / w:entries: the matcher at 2 (of the writer's graph),
 * id at 3 or nil for its last result; NULL with nil, message, code
 * pushed. */
static const grove_job_t *job_arg(lua_State *L, const struct lwriter *lw)
{
    grove_matcher_t *m = grovel_check_matcher(L, 2);
    luaL_argcheck(L, grove_matcher_graph(m) == lw->g, 2, "a matcher of another graph");
    const grove_job_t *j;
    if (lua_isnoneornil(L, 3)) {
        if (!(j = grove_matcher_result(m)))
            grovel_fail_errno(L, ENOENT, "no match result");
        return j;
    }
    lua_Integer id = luaL_checkinteger(L, 3);
    if (!(j = grove_matcher_job(m, (grove_jobid_t)id)))
        grovel_fail_errno(L, ENOENT, lua_pushfstring(L, "no job %I", id));
    return j;
}

static grove_wfmt_t check_fmt(lua_State *L, int idx)
{
    const char *name = luaL_checkstring(L, idx);
    int f = grove_wfmt_parse(name);
    if (f < 0) {
        const char *names[16];
        size_t n = 0;
        for (const char *w; n + 1 < sizeof(names) / sizeof(*names) && (w = grove_wfmt_name(n));)
            names[n++] = w;
        names[n] = NULL;
        luaL_argerror(L, idx, grovel_push_unknown(L, "format", name, names));
    }
    return (grove_wfmt_t)f;
}

/* The open file at idx, NULL when none is given there. */
static FILE *opt_file(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx))
        return NULL;
    luaL_Stream *p = luaL_checkudata(L, idx, LUA_FILEHANDLE);
    if (!p->closef)
        luaL_argerror(L, idx, "attempt to use a closed file");
    return p->f;
}

/* Push the selection's text in fmt, or write it to f (when not NULL) and
 * push true; nil, message, code on failure. */
static int push_text(lua_State *L, grove_writer_t *w, grove_wfmt_t fmt, int64_t start,
                     int64_t end, grove_wextra_fn extra, void *arg, FILE *f)
{
    grove_error_t err = {{0}, 0};
    size_t len = 0;
    if (f) {
        return grovel_result(L, grove_writer_print(w, fmt, start, end, extra, arg, f, &err), &err);
    }
    struct grovel_box *box = grovel_box_new(L, free);
    char *text = grove_writer_write(w, fmt, start, end, extra, arg, &len, &err);
    if (!text)
        return grovel_fail_err(L, errno, &err);
    box->p = text;
    lua_pushlstring(L, text, len);
    return 1;
}

static int w_job(lua_State *L)
{
    struct lwriter *lw = check_writer(L, 1);
    grove_wfmt_t fmt = check_fmt(L, 4);
    struct shape sh;
    read_shape(L, 5, lw->g, &sh);
    FILE *f = opt_file(L, 6);
    const grove_job_t *j = job_arg(L, lw);
    if (!j)
        return 3;
    if (f) {
        grove_error_t err = {{0}, 0};
        return grovel_result(L, grove_writer_print_job(lw->w, j, &sh.s, fmt, f, &err), &err);
    }
    if (grove_writer_job(lw->w, j, &sh.s) < 0)
        return grovel_fail_errno(L, errno, NULL);
    return push_text(L, lw->w, fmt, j->start, j->end, NULL, NULL, f);
}

/* w:set_subsystem(name | nil) -> true, or nil, message, code */
static int w_set_subsystem(lua_State *L)
{
    struct lwriter *lw = check_writer(L, 1);
    const char *s = luaL_optstring(L, 2, NULL);
    if (grove_writer_set_subsystem(lw->w, s) < 0)
        return grovel_fail_errno(L, errno, lua_pushfstring(L, "the graph has no %s subsystem", s));
    return grovel_ok(L);
}

static int w_entries(lua_State *L)
{
    struct lwriter *lw = check_writer(L, 1);
    struct shape sh;
    read_shape(L, 4, lw->g, &sh);
    const grove_job_t *j = job_arg(L, lw);
    if (!j)
        return 3;
    size_t n = 0;
    const grove_wentry_t *e = NULL;
    if (grove_writer_job(lw->w, j, &sh.s) < 0 || !(e = grove_writer_entries(lw->w, &n)))
        return grovel_fail_errno(L, errno, NULL);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 5);
        lua_pushinteger(L, (lua_Integer)e[i].v);
        lua_setfield(L, -2, "vid");
        lua_pushstring(L, grove_vertex_type(lw->g, e[i].v));
        lua_setfield(L, -2, "type");
        lua_pushinteger(L, (lua_Integer)e[i].amount);
        lua_setfield(L, -2, "amount");
        lua_pushboolean(L, e[i].x);
        lua_setfield(L, -2, "x");
        lua_pushboolean(L, e[i].alloc);
        lua_setfield(L, -2, "alloc");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* JGF metadata from the table at the stack index arg points to. */
struct extra {
    lua_State *L;
    int idx;
};

static const char *agfilter_of(grove_vid_t v, void *arg)
{
    struct extra *x = arg;
    lua_rawgeti(x->L, x->idx, (lua_Integer)v);
    const char *s = lua_type(x->L, -1) == LUA_TSTRING ? lua_tostring(x->L, -1) : NULL;
    lua_pop(x->L, 1); /* s stays valid: the table holds the string */
    return s;
}

static int w_vertices(lua_State *L)
{
    struct lwriter *lw = check_writer(L, 1);
    grove_wfmt_t fmt = check_fmt(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    bool extra = !lua_isnoneornil(L, 4);
    if (extra)
        luaL_checktype(L, 4, LUA_TTABLE);
    FILE *f = opt_file(L, 5);
    lua_getiuservalue(L, 1, 1);
    struct grovel_graph *gr = lua_touserdata(L, -1);
    lua_pop(L, 1);
    size_t n = lua_rawlen(L, 3);
    grove_vid_t *vs = lua_newuserdatauv(L, (n ? n : 1) * sizeof(*vs), 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 3, (lua_Integer)i + 1);
        struct grovel_vertex *h = luaL_testudata(L, -1, GROVEL_VERTEX);
        if (!h || h->gr != gr || !grove_graph_has_vertex(lw->g, h->v))
            return luaL_argerror(L, 3, lua_pushfstring(L, "element %I is not a vertex of the "
                                                          "writer's graph", (lua_Integer)i + 1));
        vs[i] = h->v;
        lua_pop(L, 1);
    }
    if (grove_writer_vertices(lw->w, vs, n) < 0)
        return grovel_fail_errno(L, errno, NULL);
    struct extra x = {L, 4};
    return push_text(L, lw->w, fmt, 0, GROVE_TIME_MAX, extra ? agfilter_of : NULL, &x, f);
}

static int push_clock(lua_State *L, clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) < 0)
        return luaL_error(L, "clock_gettime: %s", strerror(errno));
    lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
    return 1;
}

static int l_wall_clock(lua_State *L)
{
    return push_clock(L, CLOCK_MONOTONIC);
}

static int l_thread_clock(lua_State *L)
{
    return push_clock(L, CLOCK_THREAD_CPUTIME_ID);
}

static int l_real_clock(lua_State *L)
{
    return push_clock(L, CLOCK_REALTIME);
}

static const char *format_at(const void *o, size_t i)
{
    (void)o;
    return grove_wfmt_name(i);
}

/* core.writer_formats (api.tsv: called once, when the module opens). */
static int l_writer_formats(lua_State *L)
{
    grovel_push_strings(L, NULL, SIZE_MAX, format_at);
    return 1;
}

#include "api_writer.h"
