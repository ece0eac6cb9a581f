/* l_sandbox.c: the sandbox Lua policies run in (see lsandbox.h).
 *
 *   core.policy_limits() -> {budget =, memory =, time =}   the defaults
 *
 * Each policy gets a Lua state of its own.  Its environment is built from
 * an allow-list: assert error ipairs next pairs pcall xpcall select
 * tonumber tostring type rawequal rawlen rawget rawset getmetatable
 * setmetatable _VERSION, log (l_log.c), and the state's own math, string
 * (without dump), table and utf8.  Reading an unknown global or writing any global raises;
 * getmetatable sees only tables; setmetatable refuses __gc (a finalizer
 * would run at any time, outside every run); rawset refuses the
 * environment.
 *
 * The limits (lsandbox.h) are enforced in four places: the allocator (the
 * memory cap on everything the state holds beyond the empty sandbox, and
 * a clock check at large or every 256th allocation), a count hook every
 * GROVEL_SB_STEP instructions (budget and clock), the pattern functions
 * (string.find, match, gmatch and gsub are Grove's own bounded matcher,
 * core/pattern.c, which counts its steps against the budget; gsub also
 * pays for what its replacements write as it goes), and the library
 * functions whose work grows with their arguments (l_sandbox_lib.c), each
 * charged before it works for what its arguments say it will do, and the
 * ones that loop run in pieces with the clock read between them.
 * pcall and xpcall rethrow these errors, and xpcall's message handler is
 * not called for them (it would run inside the count hook, where hooks are
 * off).
 *
 * Workload: one state per policy, a few dozen kilobytes empty; its limits
 * cost a clock read per thousand instructions.
 *
 * This file builds the state and its environment over the run's limits
 * (l_sandbox_run.c: the allocator, the count hook, the charges, the clock)
 * and the log and metered libraries it puts in the environment (l_log.c,
 * l_sandbox_lib.c), which call only l_sandbox_run.c.  It holds the sandbox
 * only: nothing of policies, hooks or views (l_policy.c, l_view.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lualib.h>

#include "lsandbox.h"
#include "pattern.h"

static const char ENV_KEY = 'e'; /* registry key of the environment */
static const char ARRAY_KEY = 'a'; /* registry key of the array constructor */

void grovel_sandbox_stop(grovel_sandbox_t *sb)
{
    sb->running = false;
    grovel_log_run_end(sb);
}

/* ---- the environment ----------------------------------------------------------- */

/* pcall and xpcall that cannot catch the limits' errors. */
static int finish_pcall(lua_State *S, int status, int first)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    if (status != LUA_OK) {
        if (status == LUA_ERRMEM && !sb->fatal && sb->running)
            sb->fatal = GROVEL_SB_MEMORY_OUT;
        if (sb->fatal)
            return grovel_sandbox_raise(S);
        lua_pushboolean(S, 0);
        lua_insert(S, -2);
        return 2;
    }
    lua_pushboolean(S, 1);
    lua_insert(S, first);
    return lua_gettop(S) - first + 1;
}

static int sb_pcall(lua_State *S)
{
    luaL_checkany(S, 1);
    return finish_pcall(S, lua_pcall(S, lua_gettop(S) - 1, LUA_MULTRET, 0), 1);
}

/* xpcall's handler, wrapped: the policy's handler (upvalue 1) runs only for
 * errors of its own, where the count hook is on; a limit's error passes
 * through untouched. */
static int xpcall_handler(lua_State *S)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    if (sb->fatal)
        return 1;
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, lua_gettop(S) - 1, 1);
    return 1;
}

static int sb_xpcall(lua_State *S)
{
    int n = lua_gettop(S);
    luaL_checktype(S, 2, LUA_TFUNCTION);
    lua_pushvalue(S, 2);
    lua_pushcclosure(S, xpcall_handler, 1);
    lua_replace(S, 2);
    lua_pushvalue(S, 1);
    lua_copy(S, 2, 1);
    lua_replace(S, 2); /* handler, f, args... */
    return finish_pcall(S, lua_pcall(S, n - 2, LUA_MULTRET, 1), 2);
}

static int sb_getmetatable(lua_State *S)
{
    luaL_checkany(S, 1);
    if (lua_type(S, 1) != LUA_TTABLE || !lua_getmetatable(S, 1))
        return 0;
    lua_pushliteral(S, "__metatable");
    if (lua_rawget(S, -2) != LUA_TNIL)
        return 1;
    lua_pop(S, 1);
    return 1;
}

static int sb_setmetatable(lua_State *S)
{
    int t = lua_type(S, 2);
    luaL_checktype(S, 1, LUA_TTABLE);
    luaL_argexpected(S, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(S, "__gc");
        if (lua_rawget(S, 2) != LUA_TNIL)
            return luaL_error(S, "__gc metamethods are not allowed in a policy");
        lua_pop(S, 1);
    }
    if (lua_getmetatable(S, 1)) {
        lua_pushliteral(S, "__metatable");
        if (lua_rawget(S, -2) != LUA_TNIL)
            return luaL_error(S, "cannot change a protected metatable");
        lua_pop(S, 2);
    }
    lua_settop(S, 2);
    lua_setmetatable(S, 1);
    return 1;
}

static int frozen_newindex(lua_State *S);

bool grovel_sandbox_frozen(lua_State *S, int idx)
{
    if (!lua_getmetatable(S, idx))
        return false;
    lua_pushliteral(S, "__newindex");
    lua_rawget(S, -2);
    bool frozen = lua_tocfunction(S, -1) == frozen_newindex;
    lua_pop(S, 2);
    return frozen;
}

static int sb_rawset(lua_State *S)
{
    luaL_checktype(S, 1, LUA_TTABLE);
    luaL_checkany(S, 2);
    luaL_checkany(S, 3);
    lua_rawgetp(S, LUA_REGISTRYINDEX, &ENV_KEY);
    if (lua_rawequal(S, 1, -1))
        return luaL_error(S, "cannot rawset the policy's environment");
    if (grovel_sandbox_frozen(S, 1))
        return luaL_error(S, "cannot rawset a library: the policy's libraries are read-only "
                             "once it is loaded");
    lua_settop(S, 3);
    lua_rawset(S, 1);
    return 1;
}

/* ---- libraries read-only once loaded ----------------------------------------------- */

/* A library made read-only keeps its functions in a table of its own,
 * reached through its metatable: the library itself is empty, so every
 * write reaches __newindex. */
static int frozen_newindex(lua_State *S)
{
    const char *k = lua_tostring(S, 2);
    return luaL_error(S, "cannot set '%s' in a library: the policy's libraries are read-only "
                         "once it is loaded", k ? k : luaL_typename(S, 2));
}

static int frozen_next(lua_State *S)
{
    lua_settop(S, 2);
    return lua_next(S, 1) ? 2 : 0;
}

/* __pairs of a library: its functions (upvalue 1). */
static int frozen_pairs(lua_State *S)
{
    lua_pushcfunction(S, frozen_next);
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_pushnil(S);
    return 3;
}

void grovel_sandbox_freeze(grovel_sandbox_t *sb)
{
    static const char *const libs[] = {"math", "string", "table", "utf8"};
    lua_State *S = sb->S;
    grovel_sandbox_push_env(sb);
    for (size_t i = 0; i < sizeof(libs) / sizeof(*libs); i++) {
        lua_pushstring(S, libs[i]);
        if (lua_rawget(S, -2) != LUA_TTABLE || grovel_sandbox_frozen(S, -1)) {
            lua_pop(S, 1);
            continue;
        }
        int lib = lua_gettop(S);
        lua_createtable(S, 0, 32);
        int own = lua_gettop(S);
        lua_pushnil(S);
        while (lua_next(S, lib)) {
            lua_pushvalue(S, -2);
            lua_insert(S, -2);
            lua_rawset(S, own);
        }
        lua_pushnil(S);
        while (lua_next(S, own)) {
            lua_pop(S, 1);
            lua_pushvalue(S, -1);
            lua_pushnil(S);
            lua_rawset(S, lib);
        }
        lua_createtable(S, 0, 4);
        lua_pushvalue(S, own);
        lua_setfield(S, -2, "__index");
        lua_pushcfunction(S, frozen_newindex);
        lua_setfield(S, -2, "__newindex");
        lua_pushvalue(S, own);
        lua_pushcclosure(S, frozen_pairs, 1);
        lua_setfield(S, -2, "__pairs");
        grovel_set_boolean(S, "__metatable", false);
        lua_setmetatable(S, lib);
        lua_settop(S, lib - 1);
    }
    lua_pop(S, 1);
}

/* ---- inputs no match gives -------------------------------------------------------- */

/* A function whose result no match gives (upvalue 1; upvalue 2 its
 * name): math.random, math.randomseed. */
static int sb_hidden_fn(lua_State *S)
{
    grovel_sandbox_hidden(S, lua_tostring(S, lua_upvalueindex(2)));
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, lua_gettop(S) - 1, LUA_MULTRET);
    return lua_gettop(S);
}

static int env_index(lua_State *S)
{
    const char *k = lua_tostring(S, 2);
    return luaL_error(S, "undefined global '%s'", k ? k : luaL_typename(S, 2));
}

static int env_newindex(lua_State *S)
{
    const char *k = lua_tostring(S, 2);
    return luaL_error(S, "assignment to global '%s' (a policy cannot write globals: use local)",
                      k ? k : luaL_typename(S, 2));
}

/* ---- patterns -------------------------------------------------------------------- */

static int pattern_tick(void *arg, uint64_t steps)
{
    (void)steps;
    grovel_sandbox_t *sb = arg;
    if (!sb->running)
        return 0;
    sb->used += GROVE_PATTERN_TICK;
    if (sb->used >= sb->budget && !sb->fatal)
        sb->fatal = GROVEL_SB_BUDGET_OUT;
    return sb->fatal || grovel_sandbox_out_of_time(sb);
}

/* Charge what the matcher did since its last tick; raise on a failure
 * (a limit, or a malformed pattern). */
static void pattern_done(lua_State *S, grove_pattern_t *ps, int rc)
{
    if (rc < 0 && ps->stopped)
        grovel_sandbox_raise(S);
    if (rc < 0)
        luaL_error(S, "%s", ps->msg);
    grovel_sandbox_charge(S, (lua_Integer)(ps->steps % GROVE_PATTERN_TICK));
}

static void pattern_init(lua_State *S, grove_pattern_t *ps, const char *s, size_t ls,
                         const char *p, size_t lp, bool anchor)
{
    grove_pattern_init(ps, s, ls, p, lp, anchor, pattern_tick, grovel_sandbox_of(S));
}

/* Capture i of the last match at [s, e), or the whole match when the
 * pattern has no captures and i is 0. */
static void push_capture(lua_State *S, const grove_pattern_t *ps, int i, size_t s, size_t e)
{
    if (i >= ps->level) {
        if (i != 0)
            luaL_error(S, "invalid capture index %%%d", i + 1);
        lua_pushlstring(S, ps->src + s, e - s);
        return;
    }
    const grove_pattern_cap_t *c = &ps->cap[i];
    if (c->len == GROVE_PATTERN_POSITION)
        lua_pushinteger(S, (lua_Integer)c->start + 1);
    else
        lua_pushlstring(S, ps->src + c->start, c->len);
}

static int push_captures(lua_State *S, const grove_pattern_t *ps, size_t s, size_t e, bool whole)
{
    int n = ps->level == 0 && whole ? 1 : ps->level;
    luaL_checkstack(S, n, "too many captures");
    for (int i = 0; i < n; i++)
        push_capture(S, ps, i, s, e);
    return n;
}

/* A 1-based init argument as an offset (may be past the end). */
static size_t init_offset(lua_State *S, int arg, size_t len)
{
    lua_Integer i = luaL_optinteger(S, arg, 1);
    if (i > 0)
        return (size_t)i - 1;
    if (i == 0)
        return 0;
    if ((size_t)-i > len)
        return 0;
    return len - (size_t)-i;
}

static int find_aux(lua_State *S, bool find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(S, 1, &ls);
    const char *p = luaL_checklstring(S, 2, &lp);
    size_t init = init_offset(S, 3, ls);
    if (init > ls) {
        luaL_pushfail(S);
        return 1;
    }
    if (find && (lua_toboolean(S, 4) || grove_pattern_is_plain(p, lp))) {
        grovel_sandbox_charge(S, (lua_Integer)((ls - init) / 16));
        const char *hit = lp == 0 ? s + init : memmem(s + init, ls - init, p, lp);
        if (!hit) {
            luaL_pushfail(S);
            return 1;
        }
        lua_pushinteger(S, (lua_Integer)(hit - s) + 1);
        lua_pushinteger(S, (lua_Integer)(hit - s) + (lua_Integer)lp);
        return 2;
    }
    grove_pattern_t ps;
    pattern_init(S, &ps, s, ls, p, lp, true);
    size_t ms, me;
    int rc = grove_pattern_find(&ps, init, &ms, &me);
    pattern_done(S, &ps, rc);
    if (rc == 0) {
        luaL_pushfail(S);
        return 1;
    }
    if (find) {
        lua_pushinteger(S, (lua_Integer)ms + 1);
        lua_pushinteger(S, (lua_Integer)me);
        return push_captures(S, &ps, ms, me, false) + 2;
    }
    return push_captures(S, &ps, ms, me, true);
}

static int sb_find(lua_State *S)
{
    return find_aux(S, true);
}

static int sb_match(lua_State *S)
{
    return find_aux(S, false);
}

/* gmatch's iterator: upvalues subject, pattern, next offset, end of the
 * last match (-1: none). */
static int gmatch_aux(lua_State *S)
{
    size_t ls, lp;
    const char *s = lua_tolstring(S, lua_upvalueindex(1), &ls);
    const char *p = lua_tolstring(S, lua_upvalueindex(2), &lp);
    size_t pos = (size_t)lua_tointeger(S, lua_upvalueindex(3));
    lua_Integer last = lua_tointeger(S, lua_upvalueindex(4));
    grove_pattern_t ps;
    pattern_init(S, &ps, s, ls, p, lp, false);
    for (; pos <= ls; pos++) {
        size_t e;
        int rc = grove_pattern_at(&ps, pos, &e);
        if (rc < 0)
            pattern_done(S, &ps, rc);
        if (rc == 1 && (lua_Integer)e != last) {
            pattern_done(S, &ps, rc);
            lua_pushinteger(S, (lua_Integer)e);
            lua_copy(S, -1, lua_upvalueindex(3));
            lua_replace(S, lua_upvalueindex(4));
            return push_captures(S, &ps, pos, e, true);
        }
    }
    pattern_done(S, &ps, 0);
    lua_pushinteger(S, (lua_Integer)ls + 1);
    lua_replace(S, lua_upvalueindex(3));
    return 0;
}

static int sb_gmatch(lua_State *S)
{
    size_t ls;
    luaL_checklstring(S, 1, &ls);
    luaL_checkstring(S, 2);
    size_t init = init_offset(S, 3, ls);
    lua_settop(S, 2);
    lua_pushinteger(S, (lua_Integer)(init > ls ? ls + 1 : init));
    lua_pushinteger(S, -1);
    lua_pushcclosure(S, gmatch_aux, 4);
    return 1;
}

/* gsub: add the replacement of the match [s, e) to b. */
static void add_value(lua_State *S, luaL_Buffer *b, const grove_pattern_t *ps, size_t s,
                      size_t e, int tr)
{
    if (tr == LUA_TSTRING || tr == LUA_TNUMBER) {
        size_t l;
        const char *r = lua_tolstring(S, 3, &l);
        for (size_t i = 0; i < l; i++) {
            if (r[i] != '%') {
                luaL_addchar(b, r[i]);
            } else if (++i >= l) {
                luaL_error(S, "invalid use of '%%' in replacement string");
            } else if (r[i] == '%') {
                luaL_addchar(b, '%');
            } else if (r[i] == '0') {
                luaL_addlstring(b, ps->src + s, e - s);
            } else if (r[i] >= '1' && r[i] <= '9') {
                push_capture(S, ps, r[i] - '1', s, e);
                luaL_tolstring(S, -1, NULL);
                lua_remove(S, -2);
                luaL_addvalue(b);
            } else {
                luaL_error(S, "invalid use of '%%' in replacement string");
            }
        }
        return;
    }
    if (tr == LUA_TFUNCTION) {
        lua_pushvalue(S, 3);
        int n = push_captures(S, ps, s, e, true);
        lua_call(S, n, 1);
    } else { /* a table */
        push_capture(S, ps, 0, s, e);
        lua_gettable(S, 3);
    }
    if (!lua_toboolean(S, -1)) {
        lua_pop(S, 1);
        luaL_addlstring(b, ps->src + s, e - s); /* keep the original text */
    } else if (!lua_isstring(S, -1)) {
        luaL_error(S, "invalid replacement value (a %s)", luaL_typename(S, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int sb_gsub(lua_State *S)
{
    size_t ls, lp;
    const char *src = luaL_checklstring(S, 1, &ls);
    const char *p = luaL_checklstring(S, 2, &lp);
    int tr = lua_type(S, 3);
    lua_Integer max = luaL_optinteger(S, 4, (lua_Integer)ls + 1);
    luaL_argexpected(S, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION
                            || tr == LUA_TTABLE, 3, "string/function/table");
    luaL_Buffer b;
    luaL_buffinit(S, &b);
    grove_pattern_t ps;
    pattern_init(S, &ps, src, ls, p, lp, true);
    size_t pos = 0, charged = 0;
    lua_Integer n = 0;
    long long last = -1;
    while (n < max) {
        size_t e;
        int rc = grove_pattern_at(&ps, pos, &e);
        if (rc < 0)
            pattern_done(S, &ps, rc);
        if (rc == 1 && (long long)e != last) {
            n++;
            add_value(S, &b, &ps, pos, e, tr);
            if (luaL_bufflen(&b) - charged >= 4096) { /* what replacements write */
                grovel_sandbox_charge(S, (lua_Integer)((luaL_bufflen(&b) - charged) / 16));
                charged = luaL_bufflen(&b);
            }
            pos = e;
            last = (long long)e;
        } else if (pos < ls) {
            luaL_addchar(&b, src[pos++]);
        } else {
            break;
        }
        if (ps.anchored)
            break;
    }
    pattern_done(S, &ps, 0);
    luaL_addlstring(&b, src + pos, ls - pos);
    luaL_pushresult(&b);
    lua_pushinteger(S, n);
    grovel_sandbox_charge(S, (lua_Integer)(ls / 16));
    return 2;
}

/* ---- building the state ----------------------------------------------------------- */

static void push_lib(lua_State *S, const char *name, lua_CFunction open)
{
    luaL_requiref(S, name, open, 0);
}

struct dumped {
    size_t n;
    char buf[512];
};

static int dump_writer(lua_State *S, const void *p, size_t sz, void *ud)
{
    struct dumped *d = ud;
    (void)S;
    if (sz > sizeof(d->buf) - d->n)
        return 1;
    memcpy(d->buf + d->n, p, sz);
    d->n += sz;
    return 0;
}

static int build(lua_State *S)
{
    static const char *const base[] = {"assert", "error",  "ipairs",   "next",
                                       "pairs",  "select", "tonumber", "tostring",
                                       "type",   "rawequal", "rawlen", "rawget", NULL};
    static const luaL_Reg wrapped[] = {
        {"pcall", sb_pcall},
        {"xpcall", sb_xpcall},
        {"getmetatable", sb_getmetatable},
        {"setmetatable", sb_setmetatable},
        {"rawset", sb_rawset},
        {NULL, NULL},
    };
    static const luaL_Reg patterns[] = {
        {"find", sb_find}, {"match", sb_match}, {"gmatch", sb_gmatch}, {"gsub", sb_gsub},
        {NULL, NULL},
    };
    lua_createtable(S, 0, 24);
    int env = lua_gettop(S);
    push_lib(S, LUA_GNAME, luaopen_base);
    for (int i = 0; base[i]; i++) {
        lua_getfield(S, -1, base[i]);
        lua_setfield(S, env, base[i]);
    }
    lua_pop(S, 1);
    luaL_setfuncs(S, wrapped, 0);
    lua_pushvalue(S, env);
    grovel_sandbox_meter(S, "_G");
    lua_pop(S, 1);
    lua_pushliteral(S, LUA_VERSION);
    lua_setfield(S, env, "_VERSION");
    push_lib(S, LUA_MATHLIBNAME, luaopen_math);
    for (int i = 0; i < 2; i++) {
        static const char *const fns[] = {"random", "randomseed"};
        static const char *const names[] = {"math.random", "math.randomseed"};
        lua_getfield(S, -1, fns[i]);
        lua_pushstring(S, names[i]);
        lua_pushcclosure(S, sb_hidden_fn, 2);
        lua_setfield(S, -2, fns[i]);
    }
    lua_setfield(S, env, "math");
    push_lib(S, LUA_TABLIBNAME, luaopen_table);
    grovel_sandbox_meter(S, "table");
    lua_setfield(S, env, "table");
    push_lib(S, LUA_UTF8LIBNAME, luaopen_utf8);
    grovel_sandbox_meter(S, "utf8");
    lua_setfield(S, env, "utf8");
    push_lib(S, LUA_STRLIBNAME, luaopen_string); /* the state's own string metatable */
    lua_pushnil(S);
    lua_setfield(S, -2, "dump");
    luaL_setfuncs(S, patterns, 0);
    grovel_sandbox_meter(S, "string");
    lua_getfield(S, -1, "format"); /* log(level, fmt, ...): l_log.c */
    lua_pushcclosure(S, grovel_log_lua, 1);
    lua_setfield(S, env, "log");
    lua_setfield(S, env, "string");
    /* strict: unknown globals raise, writes raise */
    lua_createtable(S, 0, 3);
    lua_pushcfunction(S, env_index);
    lua_setfield(S, -2, "__index");
    lua_pushcfunction(S, env_newindex);
    lua_setfield(S, -2, "__newindex");
    lua_pushboolean(S, 0);
    lua_setfield(S, -2, "__metatable");
    lua_setmetatable(S, env);
    lua_pushvalue(S, env);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &ENV_KEY);
    /* grovel_sandbox_push_array_maker's function: Lua's table constructor,
     * which stores the values straight into the array part.  Loaded
     * stripped of its lines, so that a limit or an error met while it runs
     * is placed at the policy's line, not at a line of Grove's own. */
    static const char maker[] = "return function(...) return {...} end";
    struct dumped d = {0, {0}};
    if (luaL_loadbufferx(S, maker, sizeof(maker) - 1, "=array", "t") != LUA_OK)
        return lua_error(S);
    if (lua_dump(S, dump_writer, &d, 1) != 0)
        return luaL_error(S, "array maker: dump failed");
    lua_pop(S, 1);
    if (luaL_loadbufferx(S, d.buf, d.n, "=array", "b") != LUA_OK)
        return lua_error(S);
    lua_call(S, 0, 1);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &ARRAY_KEY);
    return 0;
}

int grovel_sandbox_open(grovel_sandbox_t *sb, const char *chunk)
{
    sb->heap = 0;
    sb->capped = false;
    sb->running = false;
    sb->fatal = GROVEL_SB_OK;
    sb->line = 0;
    sb->logged = sb->dropped = 0;
    sb->views = NULL;
    snprintf(sb->src, sizeof(sb->src), "%s", chunk);
    lua_State *S = lua_newstate(grovel_sandbox_alloc, sb);
    if (!S) {
        errno = ENOMEM;
        return -1;
    }
    *(grovel_sandbox_t **)lua_getextraspace(S) = sb;
    lua_pushcfunction(S, build);
    if (lua_pcall(S, 0, 0, 0) != LUA_OK) {
        lua_close(S);
        errno = ENOMEM;
        return -1;
    }
    lua_gc(S, LUA_GCCOLLECT);
    sb->S = S;
    sb->base = sb->heap;
    sb->capped = true;
    lua_sethook(S, grovel_sandbox_count_hook, LUA_MASKCOUNT,
                sb->budget < GROVEL_SB_STEP ? (int)sb->budget : GROVEL_SB_STEP);
    return 0;
}

void grovel_sandbox_close(grovel_sandbox_t *sb)
{
    if (!sb->S)
        return;
    lua_close(sb->S);
    sb->S = NULL;
}

void grovel_sandbox_push_array_maker(lua_State *S)
{
    lua_rawgetp(S, LUA_REGISTRYINDEX, &ARRAY_KEY);
}

void grovel_sandbox_push_env(grovel_sandbox_t *sb)
{
    lua_rawgetp(sb->S, LUA_REGISTRYINDEX, &ENV_KEY);
}

/* ---- options -------------------------------------------------------------------- */

void grovel_sandbox_check_limits(lua_State *L, int arg, grovel_sandbox_t *sb,
                                 const char *const *names)
{
    static const char *const limits[] = {"budget", "memory", "time", NULL};
    sb->budget = GROVEL_SB_BUDGET;
    sb->memcap = GROVEL_SB_MEMORY;
    sb->time = GROVEL_SB_TIME;
    if (!grovel_options(L, arg))
        return;
    for (; grovel_next_option(L, arg, names ? names : limits) >= 0; lua_pop(L, 1)) {
        /* the key is a string: one of names */
        int o = grovel_name_index(lua_tostring(L, -2), limits);
        int isint;
        lua_Integer v = lua_tointegerx(L, -1, &isint);
        if (o == 0) {
            luaL_argcheck(L, isint && v > 0, arg, "budget must be a positive integer");
            sb->budget = v;
        } else if (o == 1) {
            luaL_argcheck(L, isint && v > 0, arg, "memory must be a positive integer (bytes)");
            sb->memcap = (size_t)v;
        } else if (o == 2) {
            double t = lua_tonumber(L, -1);
            luaL_argcheck(L, lua_type(L, -1) == LUA_TNUMBER && t > 0 && t <= 1e6, arg,
                          "time must be a number of seconds in (0, 1e6]");
            sb->time = t;
        }
    }
}

static int l_policy_limits(lua_State *L)
{
    lua_createtable(L, 0, 3);
    grovel_set_integer(L, "budget", GROVEL_SB_BUDGET);
    grovel_set_integer(L, "memory", GROVEL_SB_MEMORY);
    grovel_set_number(L, "time", GROVEL_SB_TIME);
    return 1;
}

#include "api_sandbox.h"
