/* l_sandbox_run.c: the limits of a sandbox's run (see lsandbox.h): the
 * allocator that caps memory, the count hook and the charges that keep the
 * instruction budget, the clock of the time limit, the errors the limits
 * raise and the protected call that runs the policy's code.
 *
 * This is the sandbox's lowest file: the log (l_log.c) and the metered
 * libraries (l_sandbox_lib.c) charge their work here, and the sandbox
 * (l_sandbox.c), which builds the state and its environment over them,
 * installs the allocator and the hook.  It must not hold anything of the
 * environment (what a policy may call: l_sandbox.c, l_sandbox_lib.c,
 * l_log.c), and calls none of those files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lsandbox.h"

grovel_sandbox_t *grovel_sandbox_of(lua_State *S)
{
    return *(grovel_sandbox_t **)lua_getextraspace(S);
}

/* The code running used a value no match gives: tell sb->hidden (the
 * metered libraries' tostring and string.format, the sandbox's
 * math.random). */
void grovel_sandbox_hidden(lua_State *S, const char *what)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    if (sb->hidden)
        sb->hidden(S, sb->hidden_arg, what);
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool grovel_sandbox_out_of_time(grovel_sandbox_t *sb)
{
    if (!sb->running)
        return false;
    int64_t spent = sb->spent + (sb->entered ? mono_ns() - sb->entered : 0);
    if (sb->fatal == GROVEL_SB_TIME_OUT || spent > sb->limit_ns) {
        sb->fatal = GROVEL_SB_TIME_OUT;
        return true;
    }
    return false;
}

/* ---- limits ---------------------------------------------------------------- */

void *grovel_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    grovel_sandbox_t *sb = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        sb->heap -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t more = nsize - old;
        if (sb->capped && sb->heap + more > sb->base + sb->memcap)
            return NULL; /* Lua collects in an emergency and tries once more */
        if (sb->running && (more >= 4096 || ++sb->ticks >= 256)) {
            sb->ticks = 0;
            if (grovel_sandbox_out_of_time(sb))
                return NULL;
        }
    }
    void *q = realloc(ptr, nsize);
    if (!q)
        return NULL;
    sb->heap = sb->heap - old + nsize;
    return q;
}

/* Remember where the policy's code is running: the innermost Lua function
 * on the stack (a library call counts where it was called from). */
static void note_where(lua_State *S, grovel_sandbox_t *sb)
{
    lua_Debug ar;
    for (int level = 0; lua_getstack(S, level, &ar); level++) {
        if (lua_getinfo(S, "Sl", &ar) && ar.currentline > 0) {
            memcpy(sb->src, ar.short_src, sizeof(sb->src));
            sb->line = ar.currentline;
            return;
        }
    }
}

/* Raise the error of the limit that stopped the run (fatal is set). */
int grovel_sandbox_raise(lua_State *S)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    char buf[256];
    note_where(S, sb);
    lua_pushstring(S, grovel_sandbox_limit_message(sb, LUA_ERRRUN, sb->src, buf, sizeof(buf)));
    return lua_error(S);
}

/* Charge work instructions to the run; raise when a limit is past. */
static void charge(lua_State *S, lua_Integer work)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    if (!sb->running)
        return;
    if (work >= sb->budget - sb->used) { /* saturates: work may be near 2^63 */
        sb->used = sb->budget;
        if (!sb->fatal)
            sb->fatal = GROVEL_SB_BUDGET_OUT;
    } else {
        sb->used += work;
    }
    if (sb->fatal || grovel_sandbox_out_of_time(sb))
        grovel_sandbox_raise(S);
}

void grovel_sandbox_charge(lua_State *S, lua_Integer work)
{
    charge(S, work);
}

void grovel_sandbox_charge_call(lua_State *S)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    if (sb->running && !sb->fatal && ++sb->calls < GROVEL_SB_CALLS && sb->budget - sb->used > 1) {
        sb->used++;
        return;
    }
    sb->calls = 0;
    charge(S, 1);
}

void grovel_sandbox_count_hook(lua_State *S, lua_Debug *ar)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    if (!sb->running)
        return;
    if (lua_getinfo(S, "Sl", ar) && ar->currentline > 0) {
        memcpy(sb->src, ar->short_src, sizeof(sb->src));
        sb->line = ar->currentline;
    }
    charge(S, sb->budget < GROVEL_SB_STEP ? sb->budget : GROVEL_SB_STEP);
}

void grovel_sandbox_start(grovel_sandbox_t *sb)
{
    sb->used = 0;
    sb->fatal = GROVEL_SB_OK;
    sb->ticks = 0;
    sb->calls = 0;
    sb->spent = 0;
    sb->entered = 0;
    sb->limit_ns = (int64_t)(sb->time * 1e9);
    sb->running = true;
}

const char *grovel_sandbox_limit_message(const grovel_sandbox_t *sb, int status,
                                         const char *where, char *buf, size_t len)
{
    char at[LUA_IDSIZE + 24];
    if (sb->line > 0)
        snprintf(at, sizeof(at), "%s:%d", sb->src, sb->line);
    else
        snprintf(at, sizeof(at), "%s", where);
    if (sb->fatal == GROVEL_SB_TIME_OUT)
        snprintf(buf, len, "%s: wall-clock limit of %g s exceeded", at, sb->time);
    else if (sb->fatal == GROVEL_SB_BUDGET_OUT)
        snprintf(buf, len, "%s: instruction budget of %lld exceeded", at,
                 (long long)sb->budget);
    else if (sb->fatal == GROVEL_SB_MEMORY_OUT || status == LUA_ERRMEM)
        snprintf(buf, len, "%s: memory limit of %zu bytes exceeded", at, sb->memcap);
    else
        return NULL;
    return buf;
}

/* ---- errors ------------------------------------------------------------------ */

const char *grovel_sandbox_typename(lua_State *S, int idx)
{
    idx = lua_absindex(S, idx);
    const char *s = luaL_typename(S, idx);
    if (lua_getmetatable(S, idx)) {
        lua_pushliteral(S, "__name");
        if (lua_rawget(S, -2) == LUA_TSTRING)
            s = lua_tostring(S, -1); /* anchored in the metatable */
        lua_pop(S, 2);
    }
    return s;
}

static int msgh(lua_State *S)
{
    const char *msg = lua_tostring(S, 1);
    if (!msg) /* no __tostring: that would run policy code here */
        msg = lua_pushfstring(S, "(error object is a %s value)", grovel_sandbox_typename(S, 1));
    luaL_traceback(S, S, msg, 1);
    return 1;
}

int grovel_sandbox_pcall(grovel_sandbox_t *sb, int nargs, int nresults)
{
    lua_State *S = sb->S;
    int fn = lua_gettop(S) - nargs;
    lua_pushcfunction(S, msgh);
    lua_insert(S, fn);
    bool outer = sb->entered == 0; /* the clock runs while policy code does */
    if (outer)
        sb->entered = mono_ns();
    int st = lua_pcall(S, nargs, nresults, fn);
    if (outer) {
        sb->spent += mono_ns() - sb->entered;
        sb->entered = 0;
    }
    lua_remove(S, fn);
    return st;
}

/* Nothing of this file is in grove.core: the limits serve sandboxes. */
int grovel_open_sandbox_run(lua_State *L)
{
    (void)L;
    return 0;
}
