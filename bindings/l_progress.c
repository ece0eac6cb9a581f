/* l_progress.c: progress of long steps (core/progress.h) at a terminal or
 * in a script.
 *
 *   core.set_progress(fn | false | nil)  fn(step, done, total, seconds,
 *                            finished): a script's own display, called
 *                            about 10 times a second while a step runs and
 *                            once when it is over (finished true); false:
 *                            nothing at all; nil: the default, a line on
 *                            stderr when it is a terminal
 *   core.progress(step, done [, total [, detail]])  report a step of Lua
 *                            code (the cluster DSL, the simulator) the same
 *                            way; detail, a line of text, replaces the
 *                            figures on the terminal and is the function's
 *                            sixth argument
 *   core.progress_end(step)  that step is over
 *
 * The default line ("reading JGF: 41% (310 MB of 730 MB), 6.2 s") appears
 * only once a step has run past GROVEL_PROGRESS_QUIET seconds, and only
 * when stderr is a terminal; it is redrawn at most 10 times a second and
 * erased when the step ends, so output piped or redirected never holds it.
 *
 * A script's function runs in the Lua state that started the step (the
 * binding that called into core notes it with grovel_progress_enter), in
 * a protected call: an error there is written to stderr once and the
 * function is not called again during that step.  While no script function
 * is set and stderr is no terminal, core's hook is unset: a report costs a
 * pointer test.
 *
 * This file holds the progress display and its Lua functions only.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grovel.h"
#include "progress.h"

#define GROVEL_PROGRESS_QUIET 1.0 /* seconds a step runs before it is shown */
#define GROVEL_PROGRESS_EVERY 0.1 /* seconds between two redraws */

static const char FN_KEY = 'p'; /* registry key of the script's function */

static struct {
    int mode;            /* 0 default (terminal), 1 a script's function, 2 off */
    lua_State *L;        /* the state running the current step, or NULL */
    const char *step;    /* the step being timed, or NULL */
    double start, last;  /* when it began, when it was last shown */
    bool shown;          /* a line is on the terminal */
    bool failed;         /* the script's function failed in this step */
    const char *detail;  /* the detail of the report being handled (a Lua
                          * step's), or NULL */
} pr;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "310 MB" for byte counts (steps that read or write text), else the
 * number. */
static void amount(char *buf, size_t len, const char *step, uint64_t n)
{
    bool bytes = strstr(step, "reading") != NULL;
    if (bytes && n >= 10u << 20)
        snprintf(buf, len, "%llu MB", (unsigned long long)(n >> 20));
    else if (bytes)
        snprintf(buf, len, "%llu kB", (unsigned long long)(n >> 10));
    else
        snprintf(buf, len, "%llu", (unsigned long long)n);
}

static void draw(uint64_t done, uint64_t total, double secs)
{
    char d[32], t[32];
    amount(d, sizeof(d), pr.step, done);
    if (pr.detail) {
        fprintf(stderr, "\r\033[K%s: %s, %.1f s", pr.step, pr.detail, secs);
    } else if (total) {
        amount(t, sizeof(t), pr.step, total);
        fprintf(stderr, "\r\033[K%s: %d%% (%s of %s), %.1f s", pr.step,
                (int)(100.0 * (double)done / (double)total), d, t, secs);
    } else {
        fprintf(stderr, "\r\033[K%s: %s so far, %.1f s", pr.step, d, secs);
    }
    fflush(stderr);
    pr.shown = true;
}

static void call_fn(uint64_t done, uint64_t total, double secs, bool end)
{
    lua_State *L = pr.L;
    if (!L || pr.failed)
        return;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 7))
        return;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &FN_KEY);
    lua_pushstring(L, pr.step);
    lua_pushinteger(L, (lua_Integer)done);
    lua_pushinteger(L, (lua_Integer)total);
    lua_pushnumber(L, secs);
    lua_pushboolean(L, end);
    if (pr.detail)
        lua_pushstring(L, pr.detail);
    else
        lua_pushnil(L);
    if (lua_pcall(L, 6, 0, 0) != LUA_OK) {
        fprintf(stderr, "progress: the progress function failed: %s\n", lua_tostring(L, -1));
        pr.failed = true;
    }
    lua_settop(L, top);
}

static void hook(void *arg, const char *step, uint64_t done, uint64_t total, bool end)
{
    (void)arg;
    double t = now();
    if (end) {
        if (pr.step && !strcmp(pr.step, step)) {
            if (pr.shown) {
                fputs("\r\033[K", stderr);
                fflush(stderr);
            }
            if (pr.mode == 1)
                call_fn(0, 0, t - pr.start, true);
        }
        pr.step = NULL;
        pr.shown = pr.failed = false;
        return;
    }
    if (!pr.step || strcmp(pr.step, step) != 0) {
        if (pr.shown)
            fputs("\r\033[K", stderr);
        pr.step = step;
        pr.start = t;
        pr.last = 0;
        pr.shown = pr.failed = false;
    }
    if (t - pr.last < GROVEL_PROGRESS_EVERY)
        return;
    if (pr.mode == 1) {
        pr.last = t;
        call_fn(done, total, t - pr.start, false);
    } else if (t - pr.start >= GROVEL_PROGRESS_QUIET) {
        pr.last = t;
        draw(done, total, t - pr.start);
    }
}

/* Set core's hook for the current mode. */
static void install(void)
{
    bool on = pr.mode == 1 || (pr.mode == 0 && isatty(2));
    grove_progress_set(on ? hook : NULL, NULL);
}

lua_State *grovel_progress_enter(lua_State *L)
{
    static bool installed; /* the default mode's hook is set */
    if (!installed)
        install();
    installed = true;
    lua_State *prev = pr.L;
    pr.L = L;
    return prev;
}

void grovel_progress_leave(lua_State *prev)
{
    pr.L = prev;
}

/* core.set_progress(fn | false | nil) */
static int l_set_progress(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        pr.mode = 0;
    } else if (lua_isboolean(L, 1) && !lua_toboolean(L, 1)) {
        pr.mode = 2;
    } else {
        luaL_checktype(L, 1, LUA_TFUNCTION);
        pr.mode = 1;
    }
    lua_settop(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &FN_KEY);
    install();
    return 0;
}

/* The step name of Lua code, kept alive in the registry (core keeps a
 * pointer to it while the step runs). */
static const char *step_name(lua_State *L)
{
    const char *s = luaL_checkstring(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "grove.progress.steps");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "grove.progress.steps");
    }
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 1);
        lua_rawset(L, -3);
        lua_pushvalue(L, 1);
        lua_rawget(L, -2);
    }
    s = lua_tostring(L, -1); /* the interned copy the table keeps */
    lua_pop(L, 2);
    return s;
}

/* core.progress(step, done [, total [, detail]]) */
static int l_progress(lua_State *L)
{
    const char *step = step_name(L);
    lua_Integer done = luaL_checkinteger(L, 2);
    lua_Integer total = luaL_optinteger(L, 3, 0);
    const char *detail = luaL_optstring(L, 4, NULL);
    luaL_argcheck(L, done >= 0, 2, "must be 0 or more");
    luaL_argcheck(L, total >= 0, 3, "must be 0 or more");
    lua_State *prev = grovel_progress_enter(L);
    pr.detail = detail; /* lives on L's stack during the report */
    grove_progress_report(step, (uint64_t)done, (uint64_t)total);
    pr.detail = NULL;
    grovel_progress_leave(prev);
    return 0;
}

/* core.progress_end(step) */
static int l_progress_end(lua_State *L)
{
    const char *step = step_name(L);
    lua_State *prev = grovel_progress_enter(L);
    grove_progress_end(step);
    grovel_progress_leave(prev);
    return 0;
}

#include "api_progress.h"
