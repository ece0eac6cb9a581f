/* l_script.c: scripts the host calls into and that call back into the
 * host, each in a sandbox of its own (lsandbox.h).  Queue policies run in
 * them (lua/grove/sim/queue.lua).
 *
 *   core.script_load(text, name [, opts])   a grove.script, or nil, msg, code
 *       runs text (Lua source only) as the chunk "@name" in a new sandbox,
 *       under its limits, and keeps the value it returns;
 *       opts: budget, memory, time (as core.policy_parse)
 *   s:types()           {KEY = type name} of the returned table's fields, or
 *                       nil, type name when the chunk returned no table
 *   s:get(key)          a copy of the returned table's field key
 *   s:api(t)            give the script an API object whose functions call
 *                       the functions of the host table t
 *   s:share(key, t)     mirror the host table t in the sandbox (below)
 *   s:share_field(key, name, value)
 *                       set one scalar field of that mirror (after the host
 *                       set it in t), without copying t again
 *   s:unshare(key)
 *   s:bound(name, field, limit [, unless])
 *                       answer a call of the API function name at once,
 *                       false, without reaching the host, when its one
 *                       argument is a table the host shares (s:share) that
 *                       has no field unless and a number above limit at
 *                       field; limit nil: no such answer.  The host states
 *                       a refusal it would give anyway (a start that asks
 *                       more than is free), so a script that offers it
 *                       every item crosses only for those that may pass
 *   s:call(name, ...)   true and the results of returned[name](...), or
 *                       false, a message ("FILE:LINE: reason") and
 *                       "ECANCELED" (the script raised, or went past a
 *                       limit: budget, time, memory; as a placement
 *                       policy's failed match)
 *   s:heap()            bytes the sandbox holds beyond the empty sandbox
 *
 * Values cross between the host's state and the sandbox as copies made in
 * C: nil, booleans, numbers, strings, and tables of them (deep, at most
 * GROVE_NEST_MAX levels: a table that holds itself is refused, and a table
 * met twice is copied twice).  Functions and userdata never cross.
 * Two kinds of table keep their identity instead of being copied:
 *   - the host table given to s:api stands for the script's API object, and
 *     that object for it: s:call("schedule", t) hands the script its ctx,
 *     and ctx:start(job) gives the host function t as self;
 *   - a shared table (s:share(key, t)) is copied once into a table the
 *     sandbox keeps under key, refreshed by each s:share of it, and that
 *     table is t again when it goes back to the host.  The simulator shares
 *     the waiting jobs and the queue, which a pass reads many times and
 *     which change rarely.
 *
 * Limits: a call runs under the sandbox's budget and clock, started by the
 * outermost call (a call the host makes while the script runs, a priority
 * asked for while the queue is built, shares its run).  The clock runs on
 * while the host works in an API call: the script asked for that work, so
 * a loop of API calls that never ends is stopped by the time limit even
 * when the script's own instructions are few (each call is also charged
 * one instruction).  What the script copies out (each element of the
 * tables it passes) is charged to its budget; what the host copies in
 * counts against its memory cap, like everything the sandbox holds.
 *
 * Two states, one C stack: an error raised in one state must never unwind
 * the other's frames.  So whatever may raise runs inside a protected call
 * of its own state (the host: host_dispatch under lua_pcall; the sandbox:
 * call_prepare, copy_in, share_body, api_body under lua_pcall), and from
 * there the other state is only read, or pushed onto stack space checked
 * beforehand, with operations that cannot raise (type tests, raw reads,
 * lua_next).  After each protected call the other state's stack top is put
 * back where it was.
 *
 * This file holds the script handle only: the sandbox is l_sandbox.c,
 * placement policies l_policy.c; nothing here knows of queues or jobs.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "grove.h"
#include "lsandbox.h"

#define GROVEL_SCRIPT "grove.script"

/* Sandbox registry keys. */
static const char RET_KEY = 'r'; /* what the chunk returned */
static const char API_KEY = 'a'; /* the API object (a table) */
static const char OBJ_KEY = 'o'; /* {key = the mirror of a shared table} */
static const char REV_KEY = 'v'; /* {mirror = key} */

/* User values of the handle, in the host's state. */
enum { UV_API = 1, UV_MAP, UV_BYKEY, UV_COUNT = UV_BYKEY };

struct xfer;

#define GROVEL_SCRIPT_BOUNDS 4  /* API functions with a bound (s:bound) */
#define GROVEL_BOUND_NAME 32    /* bytes of a name in a bound, NUL included */

/* A refusal the sandbox answers for the host (s:bound). */
struct bound {
    char name[GROVEL_BOUND_NAME];   /* the API function */
    char field[GROVEL_BOUND_NAME];  /* the argument's number compared */
    char unless[GROVEL_BOUND_NAME]; /* a field that lets the call through; "" none */
    lua_Number limit;               /* refused above it */
};

struct grovel_script {
    grovel_handle_t h;     /* h.p: the script itself while open */
    grovel_sandbox_t sb;   /* its own Lua state and limits */
    struct xfer *x;        /* the innermost call under way, or NULL */
    int depth;             /* calls under way (nested by host code) */
    char short_src[LUA_IDSIZE]; /* the chunk's name as Lua prints it */
    struct bound bounds[GROVEL_SCRIPT_BOUNDS];
    int nbounds;
};

/* One crossing: the states and where each side's tables sit on them. */
struct xfer {
    struct grovel_script *s;
    lua_State *L, *S;     /* the host's state, the sandbox's */
    int lapi, lmap, lbykey; /* L: the user values (UV_*) */
    int sapi, srev, sobj; /* S: the API object, {mirror = key}, {key = mirror} */
    int first, n;         /* the values to copy (in the state they are in) */
    lua_Integer copied;   /* elements copied out of the sandbox */
    const char *name;     /* the function called */
};

static struct grovel_script *script_of(grovel_sandbox_t *sb)
{
    return (struct grovel_script *)(void *)((char *)sb - offsetof(struct grovel_script, sb));
}

/* ---- copies ------------------------------------------------------------------ */

/* Push the key (an integer or a string) at index i of from onto to. */
static void push_key(lua_State *to, lua_State *from, int i)
{
    if (lua_type(from, i) == LUA_TNUMBER) {
        lua_pushinteger(to, lua_tointeger(from, i));
    } else {
        size_t n;
        const char *k = lua_tolstring(from, i, &n); /* a string: no conversion */
        lua_pushlstring(to, k, n);
    }
}

/* Push a scalar of from at i onto to: 1, or 0 when it is no scalar. */
static int push_scalar(lua_State *to, lua_State *from, int i)
{
    switch (lua_type(from, i)) {
    case LUA_TNIL:
        lua_pushnil(to);
        return 1;
    case LUA_TBOOLEAN:
        lua_pushboolean(to, lua_toboolean(from, i));
        return 1;
    case LUA_TNUMBER:
        if (lua_isinteger(from, i))
            lua_pushinteger(to, lua_tointeger(from, i));
        else
            lua_pushnumber(to, lua_tonumber(from, i));
        return 1;
    case LUA_TSTRING: {
        size_t n;
        const char *p = lua_tolstring(from, i, &n);
        lua_pushlstring(to, p, n);
        return 1;
    }
    default:
        return 0;
    }
}

/* Push what crosses as it is, into the sandbox (in) or out of it, from
 * index i of the state it leaves: a scalar, or the API object as the other
 * side's: 1; 0 for a table, which is copied.  Raises in the receiving
 * state (the one running the copy) on anything else. */
static int push_plain(struct xfer *x, bool in, int i)
{
    lua_State *from = in ? x->L : x->S, *to = in ? x->S : x->L;
    if (push_scalar(to, from, i))
        return 1;
    if (lua_type(from, i) != LUA_TTABLE)
        luaL_error(to, in ? "a %s cannot go into the sandbox" : "a %s cannot leave the sandbox",
                   luaL_typename(from, i));
    if (!lua_rawequal(from, i, in ? x->lapi : x->sapi))
        return 0;
    lua_pushvalue(to, in ? x->sapi : x->lapi);
    return 1;
}

static void to_sandbox(struct xfer *x, int li, int depth);

/* Copy the fields of the host table at li into the sandbox table at st.
 * Runs in the sandbox (may raise there); reads the host only. */
static void copy_fields_in(struct xfer *x, int li, int st, int depth)
{
    lua_State *L = x->L, *S = x->S;
    if (depth >= GROVE_NEST_MAX)
        luaL_error(S, "a table nested more than %d levels cannot go into the sandbox",
                   GROVE_NEST_MAX);
    if (!lua_checkstack(L, 3))
        luaL_error(S, "the host's stack is full");
    luaL_checkstack(S, 4, "copying into the sandbox");
    lua_pushnil(L);
    while (lua_next(L, li)) {
        int top = lua_gettop(L);
        to_sandbox(x, top - 1, depth + 1);
        to_sandbox(x, top, depth + 1);
        lua_rawset(S, st);
        lua_pop(L, 1);
    }
}

/* Push onto the sandbox a copy of the host's value at li (absolute). */
static void to_sandbox(struct xfer *x, int li, int depth)
{
    lua_State *L = x->L, *S = x->S;
    if (push_plain(x, true, li))
        return;
    if (!lua_checkstack(L, 2))
        luaL_error(S, "the host's stack is full");
    lua_pushvalue(L, li);
    if (lua_rawget(L, x->lmap) != LUA_TNIL) { /* shared: its mirror */
        push_key(S, L, -1);
        lua_pop(L, 1);
        lua_rawget(S, x->sobj);
        return;
    }
    lua_pop(L, 1);
    lua_createtable(S, (int)(lua_rawlen(L, li) & 0x3fffffff), 0);
    copy_fields_in(x, li, lua_gettop(S), depth);
}

/* Count one element copied out; past the budget, the run is over.  In the
 * host's state. */
static void count_out(struct xfer *x)
{
    grovel_sandbox_t *sb = &x->s->sb;
    if (++x->copied + sb->used >= sb->budget) {
        if (!sb->fatal)
            sb->fatal = GROVEL_SB_BUDGET_OUT;
        luaL_error(x->L, "instruction budget of %I exceeded copying out of the sandbox",
                   (lua_Integer)sb->budget);
    }
}

/* Push onto the host a copy of the sandbox's value at si (absolute).  Runs
 * in the host (may raise there); reads the sandbox only. */
static void to_host(struct xfer *x, int si, int depth)
{
    lua_State *L = x->L, *S = x->S;
    if (push_plain(x, false, si))
        return;
    if (!lua_checkstack(S, 3) || !lua_checkstack(L, 4))
        luaL_error(L, "stack overflow copying out of the sandbox");
    lua_pushvalue(S, si);
    if (lua_rawget(S, x->srev) != LUA_TNIL) { /* a mirror: the host's table */
        push_key(L, S, -1);
        lua_pop(S, 1);
        lua_rawget(L, x->lbykey);
        return;
    }
    lua_pop(S, 1);
    if (depth >= GROVE_NEST_MAX)
        luaL_error(L, "a table nested more than %d levels cannot leave the sandbox",
                   GROVE_NEST_MAX);
    count_out(x);
    lua_createtable(L, (int)(lua_rawlen(S, si) & 0x3fffffff), 0);
    int lt = lua_gettop(L);
    lua_pushnil(S);
    while (lua_next(S, si)) {
        int top = lua_gettop(S);
        count_out(x);
        to_host(x, top - 1, depth + 1);
        to_host(x, top, depth + 1);
        lua_rawset(L, lt);
        lua_pop(S, 1);
    }
}

/* Push the sandbox's API object, {mirror = key} and {key = mirror} onto S
 * and note where (never raises: stack space is checked by the caller). */
static void sandbox_tables(struct xfer *x)
{
    lua_rawgetp(x->S, LUA_REGISTRYINDEX, &API_KEY);
    x->sapi = lua_gettop(x->S);
    lua_rawgetp(x->S, LUA_REGISTRYINDEX, &REV_KEY);
    x->srev = lua_gettop(x->S);
    lua_rawgetp(x->S, LUA_REGISTRYINDEX, &OBJ_KEY);
    x->sobj = lua_gettop(x->S);
}

/* Push the handle's user values (the handle at 1) onto L. */
static void host_tables(lua_State *L, struct xfer *x)
{
    luaL_checkstack(L, UV_COUNT + 1, NULL);
    lua_getiuservalue(L, 1, UV_API);
    x->lapi = lua_gettop(L);
    lua_getiuservalue(L, 1, UV_MAP);
    x->lmap = lua_gettop(L);
    lua_getiuservalue(L, 1, UV_BYKEY);
    x->lbykey = lua_gettop(L);
}

/* ---- the host's API, called from the sandbox ---------------------------------- */

/* The user values, passed to a protected call in the host as arguments 2
 * to 4 (so their indices hold in its frame). */
static void host_frame(lua_State *L, struct xfer *x)
{
    x->lapi = 2;
    x->lmap = 3;
    x->lbykey = 4;
    lua_settop(L, 4);
}

/* In the host, protected: copy a call's results out of the sandbox. */
static int copy_out(lua_State *L)
{
    struct xfer x = *(struct xfer *)lua_touserdata(L, 1);
    host_frame(L, &x);
    luaL_checkstack(L, x.n + 4, "too many results");
    for (int i = 0; i < x.n; i++)
        to_host(&x, x.first + i, 0);
    return x.n;
}

/* In the host, protected: the API function x->name with the sandbox's
 * arguments.  Arguments: the crossing, then the user values (so their
 * indices hold in this frame). */
static int host_dispatch(lua_State *L)
{
    struct xfer x = *(struct xfer *)lua_touserdata(L, 1);
    host_frame(L, &x);
    lua_pushstring(L, x.name);
    if (lua_rawget(L, x.lapi) != LUA_TFUNCTION)
        return luaL_error(L, "the host has no function '%s'", x.name);
    luaL_checkstack(L, x.n + 4, "too many arguments");
    for (int i = 0; i < x.n; i++)
        to_host(&x, x.first + i, 0);
    ((struct xfer *)lua_touserdata(L, 1))->copied = x.copied;
    lua_call(L, x.n, LUA_MULTRET);
    return lua_gettop(L) - 4;
}

/* In the sandbox, protected: copy the host's results in. */
static int copy_in(lua_State *S)
{
    struct xfer *x = lua_touserdata(S, 1);
    x->S = S;
    sandbox_tables(x);
    luaL_checkstack(S, x->n + 4, "too many results");
    for (int i = 0; i < x->n; i++)
        to_sandbox(x, x->first + i, 0);
    return x->n;
}

/* Push the host's results (x->n values from x->first on L) onto S when
 * each crosses without allocating: nil, a boolean, a number, the API
 * object, or a table shared under an integer key (its mirror): true.
 * Otherwise nothing is pushed and false: copy_in copies them, protected.
 * Never raises (S's tables are on its stack: sandbox_tables).  The common
 * answers (a start's boolean, the next job) need no protected call. */
static bool quick_in(struct xfer *x)
{
    lua_State *L = x->L, *S = x->S;
    if (!lua_checkstack(S, x->n + 1) || !lua_checkstack(L, 1))
        return false;
    int top = lua_gettop(S);
    for (int i = 0; i < x->n; i++) {
        int li = x->first + i;
        int t = lua_type(L, li);
        if (t == LUA_TNIL || t == LUA_TBOOLEAN || t == LUA_TNUMBER) {
            push_scalar(S, L, li);
            continue;
        }
        if (t == LUA_TTABLE && lua_rawequal(L, li, x->lapi)) {
            lua_pushvalue(S, x->sapi);
            continue;
        }
        if (t == LUA_TTABLE) {
            lua_pushvalue(L, li);
            int kt = lua_rawget(L, x->lmap);
            lua_Integer k = lua_tointeger(L, -1);
            bool integer = kt == LUA_TNUMBER && lua_isinteger(L, -1);
            lua_pop(L, 1);
            if (integer) {
                lua_rawgeti(S, x->sobj, k);
                continue;
            }
        }
        lua_settop(S, top);
        return false;
    }
    return true;
}

/* Whether the call of the API function name under way in S (its
 * arguments on S's stack) is one a bound of s refuses: one argument, a
 * table the host shares, without the bound's unless field, with a number
 * above the limit at its field.  Reads S raw: the script's metatables run
 * no code here. */
static bool refused(lua_State *S, const struct grovel_script *s, const char *name)
{
    const struct bound *b = NULL;
    for (int i = 0; i < s->nbounds && !b; i++)
        if (s->bounds[i].name[0] == name[0] && !strcmp(s->bounds[i].name, name))
            b = &s->bounds[i];
    if (!b || lua_gettop(S) != 2 || lua_type(S, 2) != LUA_TTABLE)
        return false;
    luaL_checkstack(S, 3, NULL);
    lua_rawgetp(S, LUA_REGISTRYINDEX, &REV_KEY);
    lua_pushvalue(S, 2);
    bool shared = lua_rawget(S, -2) != LUA_TNIL;
    lua_settop(S, 2);
    if (!shared)
        return false;
    if (b->unless[0]) {
        lua_pushstring(S, b->unless);
        bool through = lua_rawget(S, 2) != LUA_TNIL;
        lua_settop(S, 2);
        if (through)
            return false;
    }
    lua_pushstring(S, b->field);
    bool above = lua_rawget(S, 2) == LUA_TNUMBER && lua_tonumber(S, -1) > b->limit;
    lua_settop(S, 2);
    return above;
}

/* An API function in the sandbox (upvalue 1: its name): copy the arguments
 * out, call the host's function, copy the results in (the script's clock
 * runs on: the host works for it).  A host error is raised here with the
 * caller's place.  A call a bound refuses returns false at once. */
static int host_call(lua_State *S)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    struct grovel_script *s = script_of(sb);
    if (!s->x)
        return luaL_error(S, "the host's functions can be called only while the host calls "
                             "the script");
    grovel_sandbox_charge_call(S); /* also: raise when the clock is out */
    if (s->nbounds && refused(S, s, lua_tostring(S, lua_upvalueindex(1)))) {
        lua_pushboolean(S, 0);
        return 1;
    }
    struct xfer x = *s->x;
    lua_State *L = x.L;
    int n = lua_gettop(S);
    luaL_checkstack(S, 8, NULL);
    x.S = S;
    sandbox_tables(&x);
    x.first = 1;
    x.n = n;
    x.copied = 0;
    x.name = lua_tostring(S, lua_upvalueindex(1));
    if (!lua_checkstack(L, UV_COUNT + 4))
        return luaL_error(S, "the host's stack is full");
    int ltop = lua_gettop(L);
    lua_pushcfunction(L, host_dispatch);
    lua_pushlightuserdata(L, &x);
    lua_pushvalue(L, x.lapi);
    lua_pushvalue(L, x.lmap);
    lua_pushvalue(L, x.lbykey);
    int st = lua_pcall(L, 4, LUA_MULTRET, 0);
    lua_settop(S, n + 3); /* what a call the host made into S left */
    lua_Integer copied = x.copied;
    if (st != LUA_OK) {
        char msg[1024];
        if (lua_type(L, -1) == LUA_TSTRING)
            snprintf(msg, sizeof(msg), "%s", lua_tostring(L, -1));
        else
            snprintf(msg, sizeof(msg), "%s: (error object is a %s value)", x.name,
                     luaL_typename(L, -1));
        lua_settop(L, ltop);
        if (sb->fatal)
            return grovel_sandbox_raise(S);
        grovel_sandbox_charge(S, copied);
        luaL_where(S, 1);
        lua_pushstring(S, msg);
        lua_concat(S, 2);
        return lua_error(S);
    }
    x.first = ltop + 1;
    x.n = lua_gettop(L) - ltop;
    int nres = x.n;
    if (quick_in(&x)) {
        lua_settop(L, ltop);
        grovel_sandbox_charge(S, copied);
        return nres;
    }
    lua_pushcfunction(S, copy_in);
    lua_pushlightuserdata(S, &x);
    st = lua_pcall(S, 1, LUA_MULTRET, 0);
    lua_settop(L, ltop);
    if (st == LUA_ERRMEM && sb->running) {
        if (!sb->fatal)
            sb->fatal = GROVEL_SB_MEMORY_OUT;
        return grovel_sandbox_raise(S);
    }
    if (st != LUA_OK)
        return lua_error(S);
    grovel_sandbox_charge(S, copied);
    return nres;
}

/* ---- the handle ------------------------------------------------------------------- */

static void script_free(void *arg)
{
    grovel_sandbox_close(&((struct grovel_script *)arg)->sb);
}

static void script_closable(lua_State *L, void *ud)
{
    if (((struct grovel_script *)ud)->depth > 0)
        luaL_error(L, "script is running");
}

static void script_describe(lua_State *L, void *arg)
{
    const struct grovel_script *s = arg;
    lua_pushfstring(L, "grove.script (%s)", s->short_src);
}

static const grovel_class_t script_class; /* defined by api.tsv */

/* The message of a failed run (status st, the error value on top of S):
 * the limit that stopped it, or the error's text without its traceback. */
static void push_failure(lua_State *L, struct grovel_script *s, int st)
{
    lua_State *S = s->sb.S;
    char lim[512];
    const char *why = grovel_sandbox_limit_message(&s->sb, st, s->short_src, lim, sizeof(lim));
    if (why) {
        lua_pushstring(L, why);
    } else if (lua_type(S, -1) == LUA_TSTRING) {
        const char *msg = lua_tostring(S, -1);
        const char *tb = strstr(msg, "\nstack traceback:");
        lua_pushlstring(L, msg, tb ? (size_t)(tb - msg) : strlen(msg));
    } else {
        lua_pushfstring(L, "%s: (error object is a %s value)", s->short_src,
                        grovel_sandbox_typename(S, -1));
    }
}

struct loading {
    struct grovel_script *s;
    const char *text, *chunkname;
    size_t len;
    int status; /* of the chunk's run */
};

/* In the sandbox, protected: the registry's tables, then the chunk, loaded
 * and run; its value is kept.  Returns nothing, or the error value. */
static int load_body(lua_State *S)
{
    struct loading *l = lua_touserdata(S, 1);
    lua_newtable(S);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &OBJ_KEY);
    lua_newtable(S);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &REV_KEY);
    lua_newtable(S);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &API_KEY);
    l->status = luaL_loadbufferx(S, l->text, l->len, l->chunkname, "t");
    if (l->status != LUA_OK)
        return 1;
    lua_Debug ar;
    lua_pushvalue(S, -1);
    lua_getinfo(S, ">S", &ar);
    memcpy(l->s->short_src, ar.short_src, sizeof(l->s->short_src));
    grovel_sandbox_push_env(&l->s->sb);
    lua_setupvalue(S, -2, 1); /* _ENV */
    l->status = grovel_sandbox_pcall(&l->s->sb, 0, 1);
    if (l->status != LUA_OK)
        return 1;
    lua_rawsetp(S, LUA_REGISTRYINDEX, &RET_KEY);
    return 0;
}

static int l_script_load(lua_State *L)
{
    size_t len;
    const char *name;
    const char *text = grovel_check_source(L, &len, &name);
    grovel_sandbox_t limits;
    grovel_sandbox_check_limits(L, 3, &limits, NULL);
    const char *chunkname = lua_pushfstring(L, "@%s", name);    /* 4 */
    struct grovel_script *s = (struct grovel_script *)grovel_handle_new(L, &script_class);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setiuservalue(L, 5, UV_MAP);
    lua_newtable(L);
    lua_setiuservalue(L, 5, UV_BYKEY);
    s->sb = limits;
    snprintf(s->short_src, sizeof(s->short_src), "%s", name);
    if (grovel_sandbox_open(&s->sb, name) < 0)
        return grovel_fail(L, "cannot create the script's sandbox: out of memory", "ENOMEM");
    s->h.p = s;
    lua_State *S = s->sb.S;
    struct loading l = {s, text, chunkname, len, LUA_OK};
    grovel_sandbox_start(&s->sb);
    lua_pushcfunction(S, load_body);
    lua_pushlightuserdata(S, &l);
    int st = lua_pcall(S, 1, 1, 0);
    grovel_sandbox_stop(&s->sb);
    if (st == LUA_OK && l.status != LUA_OK)
        st = l.status;
    if (st != LUA_OK) {
        push_failure(L, s, st);
        const char *code = st == LUA_ERRMEM && !s->sb.fatal ? "ENOMEM" : "EINVAL";
        lua_settop(S, 0);
        return grovel_fail(L, lua_tostring(L, -1), code);
    }
    lua_settop(S, 0);
    return 1;
}

/* Begin a crossing from the host (the handle at 1): both sides' tables. */
static struct grovel_script *open_xfer(lua_State *L, struct xfer *x)
{
    struct grovel_script *s = grovel_handle_check(L, 1, &script_class);
    memset(x, 0, sizeof(*x));
    x->s = s;
    x->L = L;
    x->S = s->sb.S;
    host_tables(L, x);
    if (!lua_checkstack(x->S, 8))
        luaL_error(L, "the script's stack is full");
    return s;
}

static int l_script_types(lua_State *L)
{
    struct xfer x;
    open_xfer(L, &x);
    lua_State *S = x.S;
    int top = lua_gettop(S);
    if (lua_rawgetp(S, LUA_REGISTRYINDEX, &RET_KEY) != LUA_TTABLE) {
        lua_pushnil(L);
        lua_pushstring(L, luaL_typename(S, -1));
        lua_settop(S, top);
        return 2;
    }
    int t = lua_gettop(S);
    lua_newtable(L);
    lua_pushnil(S);
    while (lua_next(S, t)) {
        if (lua_type(S, -2) == LUA_TSTRING)
            push_key(L, S, -2);
        else
            lua_pushfstring(L, "(a %s key)", luaL_typename(S, -2));
        lua_pushstring(L, luaL_typename(S, -1));
        lua_rawset(L, -3);
        lua_pop(S, 1);
    }
    lua_settop(S, top);
    return 1;
}

static int l_script_get(lua_State *L)
{
    struct xfer x;
    open_xfer(L, &x);
    size_t n;
    const char *k = luaL_checklstring(L, 2, &n);
    lua_State *S = x.S;
    int top = lua_gettop(S);
    sandbox_tables(&x);
    if (lua_rawgetp(S, LUA_REGISTRYINDEX, &RET_KEY) != LUA_TTABLE) {
        lua_settop(S, top);
        return 0;
    }
    /* find k without allocating in the sandbox */
    int t = lua_gettop(S);
    lua_pushnil(S);
    while (lua_next(S, t)) {
        size_t kn;
        if (lua_type(S, -2) == LUA_TSTRING) {
            const char *kk = lua_tolstring(S, -2, &kn);
            if (kn == n && !memcmp(kk, k, n)) {
                if (lua_type(S, -1) == LUA_TFUNCTION) {
                    lua_settop(S, top);
                    return luaL_error(L, "%s: field '%s' is a function", x.s->short_src, k);
                }
                to_host(&x, lua_gettop(S), 0);
                lua_settop(S, top);
                return 1;
            }
        }
        lua_pop(S, 1);
    }
    lua_settop(S, top);
    return 0;
}

/* In the sandbox, protected: the API object, a closure per function of the
 * host's table. */
static int api_body(lua_State *S)
{
    struct xfer *x = lua_touserdata(S, 1);
    lua_State *L = x->L;
    lua_newtable(S);
    lua_pushnil(L);
    while (lua_next(L, x->first)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
            push_key(S, L, -2);
            lua_pushvalue(S, -1);
            lua_pushcclosure(S, host_call, 1);
            lua_rawset(S, -3);
        }
        lua_pop(L, 1);
    }
    lua_rawsetp(S, LUA_REGISTRYINDEX, &API_KEY);
    return 0;
}

/* Run f on the sandbox, protected, with x; raise its failure on the host. */
static void sandbox_run(lua_State *L, struct xfer *x, lua_CFunction f)
{
    lua_State *S = x->S;
    int top = lua_gettop(S);
    int ltop = lua_gettop(L);
    lua_pushcfunction(S, f);
    lua_pushlightuserdata(S, x);
    int st = lua_pcall(S, 1, 0, 0);
    lua_settop(L, ltop);
    if (st != LUA_OK) {
        grovel_sandbox_t *sb = &x->s->sb;
        if (st == LUA_ERRMEM && sb->running && !sb->fatal)
            sb->fatal = GROVEL_SB_MEMORY_OUT;
        push_failure(L, x->s, st);
        lua_settop(S, top);
        lua_error(L);
    }
    lua_settop(S, top);
}

static int l_script_api(lua_State *L)
{
    struct xfer x;
    struct grovel_script *s = open_xfer(L, &x);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (s->depth > 0)
        return luaL_error(L, "script is running");
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 1, UV_API);
    x.first = 2;
    sandbox_run(L, &x, api_body);
    return 0;
}

/* In the sandbox, protected: the mirror of the shared table x->first
 * under the key at x->first - 1, made or refreshed. */
static int share_body(lua_State *S)
{
    struct xfer *x = lua_touserdata(S, 1);
    lua_State *L = x->L;
    sandbox_tables(x);
    push_key(S, L, x->first - 1);
    int k = lua_gettop(S);
    lua_pushvalue(S, k);
    if (lua_rawget(S, x->sobj) == LUA_TTABLE) {
        int m = lua_gettop(S);
        lua_pushnil(S);
        while (lua_next(S, m)) { /* clear: the host may have removed fields */
            lua_pop(S, 1);
            lua_pushvalue(S, -1);
            lua_pushnil(S);
            lua_rawset(S, m);
        }
    } else {
        lua_pop(S, 1);
        lua_createtable(S, (int)(lua_rawlen(L, x->first) & 0x3fffffff), 0);
        lua_pushvalue(S, k);
        lua_pushvalue(S, -2);
        lua_rawset(S, x->sobj);
        lua_pushvalue(S, -1);
        lua_pushvalue(S, k);
        lua_rawset(S, x->srev);
    }
    copy_fields_in(x, x->first, lua_gettop(S), 0);
    return 0;
}

/* s:share(key, t) and s:unshare(key): the key at 2 (raises unless an
 * integer or a string). */
static void check_share_key(lua_State *L)
{
    luaL_argexpected(L, lua_isinteger(L, 2) || lua_type(L, 2) == LUA_TSTRING, 2,
                     "integer or string");
}

/* share and unshare: the host's side first (the key at 2 names the table
 * at t from now on, or nothing when t is 0; a table it named before is no
 * longer shared), then body in the sandbox, x->first the last argument. */
static int rekey(lua_State *L, struct xfer *x, int t, lua_CFunction body)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, x->lbykey) != LUA_TNIL && !(t && lua_rawequal(L, -1, t))) {
        lua_pushnil(L); /* the key named another table */
        lua_rawset(L, x->lmap);
    } else {
        lua_pop(L, 1);
    }
    if (t) {
        lua_pushvalue(L, t);
        lua_pushvalue(L, 2);
        lua_rawset(L, x->lmap);
    }
    lua_pushvalue(L, 2);
    if (t)
        lua_pushvalue(L, t);
    else
        lua_pushnil(L);
    lua_rawset(L, x->lbykey);
    x->first = t ? t : 2;
    sandbox_run(L, x, body);
    return 0;
}

static int l_script_share(lua_State *L)
{
    struct xfer x;
    open_xfer(L, &x);
    check_share_key(L);
    luaL_checktype(L, 3, LUA_TTABLE);
    /* the host's side first: the table shared is its own mirror's origin */
    return rekey(L, &x, 3, share_body);
}

/* In the sandbox, protected: the field x->name of the mirror under the key
 * at 2 set to the scalar at x->first (none shared: nothing). */
static int share_field_body(lua_State *S)
{
    struct xfer *x = lua_touserdata(S, 1);
    sandbox_tables(x);
    push_key(S, x->L, 2);
    if (lua_rawget(S, x->sobj) == LUA_TTABLE) {
        lua_pushstring(S, x->name);
        push_scalar(S, x->L, x->first);
        lua_rawset(S, -3);
    }
    return 0;
}

/* s:share_field(key, name, value): what s:share(key, t) gives after
 * t[name] = value, for a scalar value, without copying t again (a pass
 * over a deep queue changes one field of each job twice). */
static int l_script_share_field(lua_State *L)
{
    check_share_key(L);
    const char *name = luaL_checkstring(L, 3);
    int t = lua_type(L, 4);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TNONE || t == LUA_TBOOLEAN
                     || t == LUA_TNUMBER || t == LUA_TSTRING, 4, "nil, boolean, number or string");
    lua_settop(L, 4);
    struct xfer x;
    open_xfer(L, &x);
    x.name = name;
    x.first = 4;
    sandbox_run(L, &x, share_field_body);
    return 0;
}

/* In the sandbox, protected: forget the mirror under the key at x->first. */
static int unshare_body(lua_State *S)
{
    struct xfer *x = lua_touserdata(S, 1);
    sandbox_tables(x);
    push_key(S, x->L, x->first);
    lua_pushvalue(S, -1);
    if (lua_rawget(S, x->sobj) == LUA_TTABLE) {
        lua_pushnil(S);
        lua_rawset(S, x->srev);
        lua_pushnil(S);
        lua_rawset(S, x->sobj);
    }
    return 0;
}

static int l_script_unshare(lua_State *L)
{
    struct xfer x;
    open_xfer(L, &x);
    check_share_key(L);
    return rekey(L, &x, 0, unshare_body);
}

/* In the sandbox, protected: the function x->name of the chunk's table and
 * the arguments, copied in. */
static int call_prepare(lua_State *S)
{
    struct xfer *x = lua_touserdata(S, 1);
    x->S = S;
    sandbox_tables(x);
    if (lua_rawgetp(S, LUA_REGISTRYINDEX, &RET_KEY) != LUA_TTABLE)
        return luaL_error(S, "%s returned no table", x->s->short_src);
    lua_pushstring(S, x->name);
    if (lua_rawget(S, -2) != LUA_TFUNCTION)
        return luaL_error(S, "%s: no function '%s'", x->s->short_src, x->name);
    luaL_checkstack(S, x->n + 4, "too many arguments");
    for (int i = 0; i < x->n; i++)
        to_sandbox(x, x->first + i, 0);
    return x->n + 1;
}

static int script_call(lua_State *L)
{
    struct xfer x;
    struct grovel_script *s = open_xfer(L, &x);
    x.name = luaL_checkstring(L, 2);
    x.first = 3;
    x.n = x.lapi - 3; /* the arguments sit below the user values */
    lua_State *S = x.S;
    if (s->depth == 0) {
        lua_settop(S, 0);
        grovel_sandbox_start(&s->sb);
    }
    int stop = lua_gettop(S);
    struct xfer *prev = s->x;
    s->x = &x;
    s->depth++;
    lua_pushcfunction(S, call_prepare);
    lua_pushlightuserdata(S, &x);
    int st = lua_pcall(S, 1, LUA_MULTRET, 0);
    if (st == LUA_OK)
        st = grovel_sandbox_pcall(&s->sb, lua_gettop(S) - stop - 1, LUA_MULTRET);
    s->depth--;
    s->x = prev;
    if (s->depth == 0)
        grovel_sandbox_stop(&s->sb);
    if (st != LUA_OK) {
        lua_pushboolean(L, 0);
        push_failure(L, s, st);
        lua_settop(S, stop);
        lua_pushliteral(L, "ECANCELED");
        return 3;
    }
    int nres = lua_gettop(S) - stop;
    luaL_checkstack(L, nres + 1, "too many results");
    if (!lua_checkstack(S, 4)) {
        lua_settop(S, stop);
        return luaL_error(L, "the script's stack is full");
    }
    sandbox_tables(&x);
    x.first = stop + 1;
    x.n = nres;
    lua_pushcfunction(L, copy_out);
    lua_pushlightuserdata(L, &x);
    lua_pushvalue(L, x.lapi);
    lua_pushvalue(L, x.lmap);
    lua_pushvalue(L, x.lbykey);
    st = lua_pcall(L, 4, LUA_MULTRET, 0);
    lua_settop(S, stop);
    if (st != LUA_OK) { /* a result that cannot leave: the call failed */
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        lua_pushliteral(L, "ECANCELED");
        return 3;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -nres - 1);
    return nres + 1;
}

/* s:call(name, ...): the call, then the log lines it wrote to the host's
 * log function (l_log.c), once the script's run is over. */
static int l_script_call(lua_State *L)
{
    int n = script_call(L);
    grovel_log_flush(L);
    return n;
}

/* s:bound(name, field, limit | nil [, unless]) */
static int l_script_bound(lua_State *L)
{
    struct grovel_script *s = grovel_handle_check(L, 1, &script_class);
    size_t ln, lf, lu = 0;
    const char *name = luaL_checklstring(L, 2, &ln);
    const char *field = luaL_checklstring(L, 3, &lf);
    const char *unless = luaL_optlstring(L, 5, "", &lu);
    luaL_argcheck(L, ln < GROVEL_BOUND_NAME, 2, "name too long");
    luaL_argcheck(L, lf < GROVEL_BOUND_NAME, 3, "name too long");
    luaL_argcheck(L, lu < GROVEL_BOUND_NAME, 5, "name too long");
    int i = 0;
    while (i < s->nbounds && strcmp(s->bounds[i].name, name))
        i++;
    if (lua_isnoneornil(L, 4)) { /* no bound: the last one takes its place */
        if (i < s->nbounds)
            s->bounds[i] = s->bounds[--s->nbounds];
        return 0;
    }
    lua_Number limit = luaL_checknumber(L, 4);
    if (i == s->nbounds) {
        luaL_argcheck(L, i < GROVEL_SCRIPT_BOUNDS, 2, "too many bounds");
        s->nbounds++;
    }
    struct bound *b = &s->bounds[i];
    memcpy(b->name, name, ln + 1);
    memcpy(b->field, field, lf + 1);
    memcpy(b->unless, unless, lu + 1);
    b->limit = limit;
    return 0;
}

static int l_script_heap(lua_State *L)
{
    struct grovel_script *s = grovel_handle_check(L, 1, &script_class);
    lua_pushinteger(L, (lua_Integer)(s->sb.heap - s->sb.base));
    return 1;
}

#include "api_script.h"
