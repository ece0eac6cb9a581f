/* l_policy.c: placement policies written in Lua, and the sandbox they run
 * in.
 *
 *   core.policy_load(path [, opts])        a grove.policy, or nil, msg, code
 *   core.policy_parse(text, name [, opts]) the same from text (name is used
 *                                          as the file name in messages)
 *       opts: budget = instructions per match (default 10,000,000),
 *             memory = bytes a match may add to the Lua heap (64 MiB)
 *   p:name()  p:description()  p:source()  p:hooks()  p:budget()
 *   p:memory()  p:traceback()  p:close()  tostring(p)
 *
 * A policy file returns a table; every field is optional:
 *   name, description         strings (name defaults to the file's base name)
 *   base = "lonode"           start from a built-in policy's C hooks
 *   prune(v, ctx) -> bool     true: do not look inside v
 *   order(parent, children)   sort the array in place, or return a new one
 *   order = {key = "id" | "rank" | "vid" | "size" | "property:NAME" |
 *            function(v) -> number, descending = bool, when = "TYPE"}
 *                             declarative: sorted in C by (key, vertex),
 *                             only lists holding a TYPE vertex when `when`
 *                             is given; a key function is called at most
 *                             once per vertex and match
 *   score(v, ctx) -> number   higher is better
 *   choose(candidates, k, scores) -> {i1, ..., ik}   positions (1-based)
 *   select = "first" | "best" ("best" when score or choose is given)
 *   node_exclusive = bool
 * ctx = {type =, count =, start =, ["end"] =} describes the request level
 * being matched (one table, reused: copy what you keep).  Hooks see
 * vertices as read-only views (grove.policy.vertex) with the read methods
 * of grove.vertex.
 *
 * The sandbox.  A policy is loaded as text only, into an environment built
 * from an allow-list: assert error ipairs next pairs pcall xpcall select
 * tonumber tostring type rawequal rawlen rawget rawset getmetatable
 * setmetatable, and private copies of math, string (without dump), table
 * and utf8.  Reading an unknown global or writing any global raises.
 * getmetatable sees only tables; setmetatable refuses __gc (a finalizer
 * would run outside the sandbox, at any time).  While a policy runs (its
 * chunk at load time, its hooks during a match) three limits hold: an
 * instruction budget (a count hook every STEP instructions), a cap on how
 * much the Lua heap may grow (an allocator wrapper that refuses), and the
 * string metatable points at the policy's own string table.  pcall and
 * xpcall cannot catch the budget or memory errors.  Work done inside one C
 * library call (a pattern match) is not counted by the budget.
 *
 * Calling Lua from the matcher: one trampoline per hook kind fills a small
 * call record and runs hook_body under lua_pcall with a traceback handler;
 * a failure is stored as text and reported to the matcher as -1, which
 * unwinds its own C state and reports ECANCELED.  No Lua error ever
 * crosses the matcher's frames.
 *
 * Workload: one hook call per visited vertex (prune), per child list
 * (order), per fitting candidate (score), per request level (choose), with
 * vertex views cached per matcher so a match allocates only what the
 * policy itself allocates.
 *
 * This file holds the policy userdata, its sandbox and its hooks.  The
 * vertex views the hooks are handed live in l_view.c and their methods in
 * l_vertex.c; nothing here may reach inside a view.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "lgraph.h"
#include "lpolicy.h"

#define DEFAULT_BUDGET 10000000
#define DEFAULT_MEMORY (64 * 1024 * 1024)
#define STEP 1000 /* instructions between two budget checks */

enum hook_kind { H_PRUNE, H_ORDER, H_SCORE, H_CHOOSE, H_KEY, H_CHUNK, H_COUNT };

static const char *const hook_names[H_COUNT] = {"prune",     "order", "score", "choose",
                                                "order key", "chunk"};

enum key_kind { K_NONE, K_ID, K_RANK, K_VID, K_SIZE, K_PROPERTY, K_FUNCTION };

enum fatal { F_NONE, F_BUDGET, F_MEMORY };

/* Stack slots that grovel_policy_begin pushes (offsets from base). */
enum slot {
    S_PRUNE = 1, /* the Lua functions, by hook kind (nil when absent) */
    S_ORDER,
    S_SCORE,
    S_CHOOSE,
    S_KEY,
    S_CACHE,   /* the view cache */
    S_CTX,     /* the ctx table handed to prune and score */
    S_POLICY,  /* the policy userdata */
    S_STRMT,   /* the string metatable to restore (or nil) */
    S_EMPTY,   /* a string, to set the string metatable through */
    S_SANDMT,  /* the sandbox's string metatable */
    S_COUNT = S_SANDMT
};

struct sortkey {
    double k;
    grove_vid_t v;
};

struct grovel_policy {
    grovel_handle_t h;    /* a generic handle (grovel.h) whose object is the
                           * policy itself while it is open */
    grove_policy_t hooks; /* handed to the matcher; arg = this */
    char *name, *description, *source; /* malloc'd; source: the file name */
    char short_src[LUA_IDSIZE];        /* the chunk's name as Lua prints it */
    char where[H_COUNT][LUA_IDSIZE + 24]; /* "file:line" of each Lua hook */
    bool lua[H_COUNT];                    /* which hooks are Lua functions */

    /* declarative order (hooks.order == decl_order) */
    int key;        /* enum key_kind */
    bool desc;      /* descending */
    char *key_prop; /* K_PROPERTY: the property name */
    char *when;     /* sort only lists holding a vertex of this type */

    /* limits */
    lua_Integer budget; /* instructions per match */
    size_t memcap;      /* bytes the heap may grow per match */

    /* the run in progress (between sandbox_enter and sandbox_leave) */
    lua_State *L;
    int base; /* stack slots: see enum slot */
    bool active;
    struct grovel_view *view;
    lua_Integer used; /* instructions so far */
    int fatal;        /* enum fatal */
    long long mem;    /* heap growth so far, bytes (may be negative) */
    int exempt;       /* > 0: allocations are ours (vertex views), not counted */
    lua_Alloc orig_alloc;
    void *orig_ud;
    lua_Hook orig_hook;
    int orig_mask, orig_count;
    char last_src[LUA_IDSIZE]; /* where the budget hook last saw the policy */
    int last_line;
    char *err, *traceback; /* the last failure (malloc'd) */

    /* scratch, reused across calls */
    struct sortkey *sk;
    size_t skcap;
    grove_vid_t *vb;
    size_t vbcap;
    double *kval; /* key function values by vertex, valid where kstamp == kgen */
    uint32_t *kstamp;
    size_t kcap;
    uint32_t kgen;
};

/* The policy whose sandbox is installed, found by the count hook. */
static const char HOOK_KEY = 'p';

/* ---- small helpers -------------------------------------------------------- */

static char *dupstr(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void set_text(char **dst, const char *s)
{
    free(*dst);
    *dst = dupstr(s);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* "file:line" of the function at idx (or "file" when unknown). */
static void func_where(lua_State *L, int idx, char *buf, size_t len)
{
    lua_Debug ar;
    lua_pushvalue(L, idx);
    lua_getinfo(L, ">S", &ar);
    if (ar.linedefined > 0)
        snprintf(buf, len, "%s:%d", ar.short_src, ar.linedefined);
    else
        snprintf(buf, len, "%s", ar.short_src);
}

/* ---- limits: memory cap and instruction budget -------------------------- */

/* The allocator while a policy runs: refuses to let the heap grow past the
 * cap (Lua then collects garbage in an emergency and tries once more, and
 * raises a memory error if that fails too). */
static void *cap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct grovel_policy *p = ud;
    size_t old = ptr ? osize : 0;
    if (p->exempt)
        return p->orig_alloc(p->orig_ud, ptr, osize, nsize);
    if (nsize > old && p->mem + (long long)(nsize - old) > (long long)p->memcap)
        return NULL;
    void *q = p->orig_alloc(p->orig_ud, ptr, osize, nsize);
    if (q || nsize == 0)
        p->mem += (long long)nsize - (long long)old;
    return q;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &HOOK_KEY);
    struct grovel_policy *p = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!p || !p->active)
        return;
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) {
        memcpy(p->last_src, ar->short_src, sizeof(p->last_src));
        p->last_line = ar->currentline;
    }
    p->used += p->budget < STEP ? p->budget : STEP;
    if (p->used >= p->budget || p->fatal) {
        if (!p->fatal)
            p->fatal = F_BUDGET;
        lua_pushfstring(L, "%s:%d: instruction budget of %I exceeded", p->last_src,
                        p->last_line, (lua_Integer)p->budget);
        lua_error(L);
    }
}

/* Push the values sandbox_enter needs (the string metatable to restore, a
 * string, the sandbox's string metatable) at the top; may raise.  pidx is
 * the policy userdata. */
static void sandbox_prepare(lua_State *L, int pidx)
{
    lua_pushvalue(L, pidx);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &HOOK_KEY);
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1))
        lua_pushnil(L);
    lua_replace(L, -2);
    lua_pushliteral(L, "");
    lua_getiuservalue(L, pidx, 1);
    lua_getfield(L, -1, "strmt");
    lua_replace(L, -2);
}

/* Install the limits; slot is the first of the three prepared values.
 * Never raises. */
static void sandbox_enter(lua_State *L, struct grovel_policy *p, int slot)
{
    lua_pushvalue(L, slot + 2);
    lua_setmetatable(L, slot + 1);
    p->L = L;
    p->used = 0;
    p->fatal = F_NONE;
    p->mem = 0;
    p->last_line = 0;
    snprintf(p->last_src, sizeof(p->last_src), "%s", p->short_src);
    p->orig_alloc = lua_getallocf(L, &p->orig_ud);
    lua_setallocf(L, cap_alloc, p);
    p->orig_hook = lua_gethook(L);
    p->orig_mask = lua_gethookmask(L);
    p->orig_count = lua_gethookcount(L);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, p->budget < STEP ? (int)p->budget : STEP);
    p->active = true;
}

/* Remove the limits (never raises). */
static void sandbox_leave(lua_State *L, struct grovel_policy *p, int slot)
{
    p->active = false;
    lua_sethook(L, p->orig_hook, p->orig_mask, p->orig_count);
    lua_setallocf(L, p->orig_alloc, p->orig_ud);
    lua_pushvalue(L, slot);
    lua_setmetatable(L, slot + 1);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &HOOK_KEY);
}

/* ---- errors ----------------------------------------------------------------- */

/* The type of the value at idx, by its metatable's __name if it has one
 * (read raw: no policy code runs). */
static const char *type_name(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    int t = luaL_getmetafield(L, idx, "__name");
    const char *s = t == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx);
    if (t != LUA_TNIL)
        lua_pop(L, 1); /* a __name string stays anchored in the metatable */
    return s;
}

static int msgh(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) /* no __tostring: that would run policy code here */
        msg = lua_pushfstring(L, "(error object is a %s value)", type_name(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Record the failure of a run of hook kind (status from lua_pcall, the
 * error value on top).  The message names the policy, the hook, and the
 * file and line. */
static void record_error(struct grovel_policy *p, lua_State *L, int kind, int status)
{
    char text[1024];
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    const char *where = p->where[kind][0] ? p->where[kind] : p->short_src;
    if (status == LUA_ERRMEM || p->fatal == F_MEMORY) {
        if (p->last_line > 0)
            snprintf(text, sizeof(text), "%s:%d: memory limit of %zu bytes exceeded",
                     p->last_src, p->last_line, p->memcap);
        else
            snprintf(text, sizeof(text), "%s: memory limit of %zu bytes exceeded", where,
                     p->memcap);
        msg = NULL;
    } else if (status == LUA_ERRERR && p->fatal != F_BUDGET) {
        snprintf(text, sizeof(text), "%s: error while handling an error", where);
        msg = NULL;
    } else if (msg) {
        const char *tb = strstr(msg, "\nstack traceback:");
        int n = tb ? (int)(tb - msg) : (int)strlen(msg);
        size_t sl = strlen(p->short_src);
        bool located = !strncmp(msg, p->short_src, sl) && msg[sl] == ':';
        if (located)
            snprintf(text, sizeof(text), "%.*s", n, msg);
        else
            snprintf(text, sizeof(text), "%s: %.*s", where, n, msg);
    } else {
        snprintf(text, sizeof(text), "%s: (error object is a %s value)", where,
                 type_name(L, -1));
    }
    set_text(&p->traceback, msg ? msg : text);
    free(p->err);
    p->err = NULL;
    if (kind == H_CHUNK) {
        p->err = dupstr(text);
    } else {
        size_t len = strlen(p->name) + strlen(text) + 64;
        p->err = malloc(len);
        if (p->err)
            snprintf(p->err, len, "policy %s: %s hook: %s", p->name, hook_names[kind], text);
    }
}

/* ---- the environment ---------------------------------------------------------- */

static struct grovel_policy *upvalue_policy(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

/* pcall and xpcall that cannot catch the budget and memory errors. */
static int finish_pcall(lua_State *L, int status, int first)
{
    struct grovel_policy *p = upvalue_policy(L);
    if (status != LUA_OK) {
        if (status == LUA_ERRMEM && !p->fatal)
            p->fatal = F_MEMORY;
        if (p->fatal)
            return lua_error(L);
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, first);
    return lua_gettop(L) - first + 1;
}

static int sb_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    return finish_pcall(L, lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0), 1);
}

static int sb_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 1);
    lua_copy(L, 2, 1);
    lua_replace(L, 2); /* handler, f, args... */
    return finish_pcall(L, lua_pcall(L, n - 2, LUA_MULTRET, 1), 2);
}

static int sb_getmetatable(lua_State *L)
{
    luaL_checkany(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1))
        return 0;
    if (lua_getfield(L, -1, "__metatable") != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    return 1;
}

static int sb_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "__gc metamethods are not allowed in a policy");
        lua_pop(L, 1);
    }
    if (lua_getmetatable(L, 1)) {
        lua_pushliteral(L, "__metatable");
        if (lua_rawget(L, -2) != LUA_TNIL)
            return luaL_error(L, "cannot change a protected metatable");
        lua_pop(L, 2);
    }
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

static int sb_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_getiuservalue(L, lua_upvalueindex(1), 1);
    lua_getfield(L, -1, "env");
    if (lua_rawequal(L, 1, -1))
        return luaL_error(L, "cannot rawset the policy's environment");
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int env_index(lua_State *L)
{
    const char *k = lua_tostring(L, 2);
    return luaL_error(L, "undefined global '%s'", k ? k : luaL_typename(L, 2));
}

static int env_newindex(lua_State *L)
{
    const char *k = lua_tostring(L, 2);
    return luaL_error(L, "assignment to global '%s' (a policy cannot write globals: use local)",
                      k ? k : luaL_typename(L, 2));
}

/* A fresh copy of a standard library, by its open function. */
static void push_lib(lua_State *L, lua_CFunction open)
{
    lua_pushcfunction(L, open);
    lua_call(L, 0, 1);
}

/* Build the policy's environment and its string metatable into the user
 * value table of the policy at pidx; leaves the environment on top. */
static void build_env(lua_State *L, int pidx)
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
    lua_getiuservalue(L, pidx, 1);
    int uv = lua_gettop(L);
    lua_createtable(L, 0, 24);
    int env = uv + 1;
    lua_pushglobaltable(L);
    for (int i = 0; base[i]; i++) {
        lua_getfield(L, -1, base[i]);
        lua_setfield(L, env, base[i]);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, pidx);
    luaL_setfuncs(L, wrapped, 1);
    lua_pushliteral(L, LUA_VERSION);
    lua_setfield(L, env, "_VERSION");
    push_lib(L, luaopen_math);
    lua_setfield(L, env, "math");
    push_lib(L, luaopen_table);
    lua_setfield(L, env, "table");
    push_lib(L, luaopen_utf8);
    lua_setfield(L, env, "utf8");
    /* luaopen_string installs a new string metatable (its __index the new
     * library): keep that one for the sandbox, put the old one back */
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1))
        lua_pushnil(L);
    push_lib(L, luaopen_string);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_setfield(L, env, "string");
    lua_pushvalue(L, -2);
    lua_getmetatable(L, -1);
    lua_setfield(L, uv, "strmt");
    lua_pop(L, 1);
    lua_setmetatable(L, -2); /* the old one (nil: none) */
    lua_pop(L, 1);
    /* strict: unknown globals raise, writes raise */
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, env_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, env_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, env);
    lua_pushvalue(L, env);
    lua_setfield(L, uv, "env");
    lua_remove(L, uv);
}

/* ---- trampolines ----------------------------------------------------------------- */

/* One hook call: what the trampoline hands to hook_body and gets back. */
struct call {
    struct grovel_policy *p;
    int kind;
    grove_vid_t v; /* prune, score, key: the vertex; order: the parent */
    const grove_policy_ctx_t *ctx;
    grove_vid_t *kids; /* order: n children, rewritten in the new order */
    const grove_vid_t *vs; /* choose: n candidates, their scores, k to pick */
    const double *scores;
    size_t n, k;
    size_t *pick;
    int result;   /* prune */
    double value; /* score, key */
};

static int bad_return(lua_State *L, const struct call *c, const char *expected, int idx)
{
    const struct grovel_policy *p = c->p;
    lua_pushfstring(L, "%s: %s hook returned %s (expected %s)", p->where[c->kind],
                    hook_names[c->kind], luaL_typename(L, idx), expected);
    return lua_error(L);
}

static int hook_fail(lua_State *L, const struct call *c, const char *why)
{
    lua_pushfstring(L, "%s: %s hook %s", c->p->where[c->kind], hook_names[c->kind], why);
    return lua_error(L);
}

/* t[k] = the value on top (popped), raw: a metatable the policy set on
 * the table is not consulted. */
static void rawsetfield(lua_State *L, int t, const char *k)
{
    lua_pushstring(L, k);
    lua_insert(L, -2);
    lua_rawset(L, t);
}

static void push_ctx(lua_State *L, int ctx, const struct call *c)
{
    const grove_graph_t *g = c->p->view->g;
    const grove_policy_ctx_t *x = c->ctx;
    if (x->type != GROVE_SYM_NONE)
        lua_pushstring(L, grove_graph_str(g, x->type));
    else
        lua_pushnil(L);
    rawsetfield(L, ctx, "type");
    lua_pushinteger(L, (lua_Integer)x->count);
    rawsetfield(L, ctx, "count");
    lua_pushinteger(L, (lua_Integer)x->start);
    rawsetfield(L, ctx, "start");
    if (x->end == GROVE_TIME_MAX)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)x->end);
    rawsetfield(L, ctx, "end");
    lua_pushvalue(L, ctx);
}

static int cmp_vid(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return (x > y) - (x < y);
}

/* order: the result (at idx) must be a permutation of the children. */
static void take_order(lua_State *L, struct call *c, int idx)
{
    struct grovel_policy *p = c->p;
    size_t n = c->n;
    if (lua_rawlen(L, idx) != n)
        hook_fail(L, c, lua_pushfstring(L, "returned %I vertices for %I children",
                                        (lua_Integer)lua_rawlen(L, idx), (lua_Integer)n));
    if (grow((void **)&p->vb, &p->vbcap, 3 * n, sizeof(*p->vb)) < 0)
        luaL_error(L, "out of memory");
    grove_vid_t *got = p->vb, *want = p->vb + n, *tmp = p->vb + 2 * n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        got[i] = grovel_test_view(L, -1, p->view);
        if (got[i] == GROVE_VID_NONE)
            hook_fail(L, c, lua_pushfstring(L, "returned a %s at position %I (expected a vertex)",
                                            luaL_typename(L, -1), (lua_Integer)i + 1));
        lua_pop(L, 1);
    }
    memcpy(want, c->kids, n * sizeof(*want));
    qsort(want, n, sizeof(*want), cmp_vid);
    /* compare as sorted multisets, keeping the order of got */
    memcpy(tmp, got, n * sizeof(*tmp));
    qsort(tmp, n, sizeof(*tmp), cmp_vid);
    if (memcmp(tmp, want, n * sizeof(*tmp)) != 0)
        hook_fail(L, c, "returned vertices that are not a permutation of the children");
    memcpy(c->kids, got, n * sizeof(*got));
}

/* choose: the result (at idx) must hold k distinct positions in 1..n. */
static void take_choice(lua_State *L, struct call *c, int idx)
{
    struct grovel_policy *p = c->p;
    if (lua_rawlen(L, idx) != c->k)
        hook_fail(L, c, lua_pushfstring(L, "returned %I positions (expected %I)",
                                        (lua_Integer)lua_rawlen(L, idx), (lua_Integer)c->k));
    if (grow((void **)&p->vb, &p->vbcap, c->n, sizeof(*p->vb)) < 0)
        luaL_error(L, "out of memory");
    memset(p->vb, 0, c->n * sizeof(*p->vb));
    for (size_t i = 0; i < c->k; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        int isint;
        lua_Integer x = lua_tointegerx(L, -1, &isint);
        if (!isint || lua_type(L, -1) != LUA_TNUMBER)
            hook_fail(L, c, lua_pushfstring(L, "returned a %s at position %I (expected an "
                                               "integer)", luaL_typename(L, -1),
                                            (lua_Integer)i + 1));
        if (x < 1 || (size_t)x > c->n)
            hook_fail(L, c, lua_pushfstring(L, "returned %I, out of range 1..%I", x,
                                            (lua_Integer)c->n));
        if (p->vb[x - 1])
            hook_fail(L, c, lua_pushfstring(L, "returned %I twice", x));
        p->vb[x - 1] = 1;
        c->pick[i] = (size_t)x - 1;
        lua_pop(L, 1);
    }
}

/* The protected body of a hook call.  Arguments: the call record, the Lua
 * function, the view cache, the ctx table. */
static int hook_body(lua_State *L)
{
    struct call *c = lua_touserdata(L, 1);
    struct grovel_view *view = c->p->view;
    int t;
    switch (c->kind) {
    case H_PRUNE:
        lua_pushvalue(L, 2);
        grovel_push_view(L, 3, view, c->v);
        push_ctx(L, 4, c);
        lua_call(L, 2, 1);
        t = lua_type(L, -1);
        if (t != LUA_TNIL && t != LUA_TBOOLEAN)
            bad_return(L, c, "a boolean", -1);
        c->result = lua_toboolean(L, -1);
        break;
    case H_SCORE:
    case H_KEY:
        lua_pushvalue(L, 2);
        grovel_push_view(L, 3, view, c->v);
        if (c->kind == H_SCORE)
            push_ctx(L, 4, c);
        lua_call(L, c->kind == H_SCORE ? 2 : 1, 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            bad_return(L, c, "a number", -1);
        c->value = lua_tonumber(L, -1);
        if (isnan(c->value))
            hook_fail(L, c, "returned NaN");
        break;
    case H_ORDER: {
        lua_createtable(L, (int)c->n, 0);
        int arr = lua_gettop(L);
        for (size_t i = 0; i < c->n; i++) {
            grovel_push_view(L, 3, view, c->kids[i]);
            lua_rawseti(L, arr, (lua_Integer)i + 1);
        }
        lua_pushvalue(L, 2);
        grovel_push_view(L, 3, view, c->v);
        lua_pushvalue(L, arr);
        lua_call(L, 2, 1);
        t = lua_type(L, -1);
        if (t == LUA_TNIL)
            take_order(L, c, arr);
        else if (t == LUA_TTABLE)
            take_order(L, c, lua_gettop(L));
        else
            bad_return(L, c, "nil or an array of the children", -1);
        break;
    }
    case H_CHOOSE: {
        lua_pushvalue(L, 2);
        lua_createtable(L, (int)c->n, 0);
        lua_createtable(L, (int)c->n, 0);
        int cands = lua_gettop(L) - 1, scores = cands + 1;
        for (size_t i = 0; i < c->n; i++) {
            grovel_push_view(L, 3, view, c->vs[i]);
            lua_rawseti(L, cands, (lua_Integer)i + 1);
            lua_pushnumber(L, c->scores[i]);
            lua_rawseti(L, scores, (lua_Integer)i + 1);
        }
        lua_pushinteger(L, (lua_Integer)c->k);
        lua_insert(L, scores);
        lua_call(L, 3, 1);
        if (lua_type(L, -1) != LUA_TTABLE)
            bad_return(L, c, "an array of positions", -1);
        take_choice(L, c, lua_gettop(L));
        break;
    }
    default:
        break;
    }
    return 0;
}

/* Run one hook call under lua_pcall.  0, or -1 with the error recorded. */
static int run_hook(struct call *c)
{
    struct grovel_policy *p = c->p;
    lua_State *L = p->L;
    if (!p->active || !L) {
        errno = EINVAL;
        return -1;
    }
    if (p->err) {
        errno = ECANCELED;
        return -1; /* already failed in this match */
    }
    if (!lua_checkstack(L, 8)) {
        set_text(&p->err, "policy: Lua stack overflow");
        errno = ECANCELED;
        return -1;
    }
    int top = lua_gettop(L);
    lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, hook_body);
    lua_pushlightuserdata(L, c);
    lua_pushvalue(L, p->base + S_PRUNE + c->kind);
    lua_pushvalue(L, p->base + S_CACHE);
    lua_pushvalue(L, p->base + S_CTX);
    int st = lua_pcall(L, 4, 0, top + 1);
    p->exempt = 0;
    if (st != LUA_OK) {
        record_error(p, L, c->kind, st);
        lua_settop(L, top);
        errno = ECANCELED;
        return -1;
    }
    lua_settop(L, top);
    return 0;
}

static int tramp_prune(void *arg, const grove_graph_t *g, grove_vid_t v,
                       const grove_policy_ctx_t *ctx)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_PRUNE, .v = v, .ctx = ctx};
    return run_hook(&c) < 0 ? -1 : c.result;
}

static int tramp_score(void *arg, const grove_graph_t *g, grove_vid_t v,
                       const grove_policy_ctx_t *ctx, double *score)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_SCORE, .v = v, .ctx = ctx};
    if (run_hook(&c) < 0)
        return -1;
    *score = c.value;
    return 0;
}

static int tramp_order(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                       size_t n)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_ORDER, .v = parent, .kids = kids, .n = n};
    return run_hook(&c);
}

static int tramp_choose(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                        const double *scores, size_t n, size_t k, size_t *pick)
{
    (void)g;
    struct call c = {
        .p = arg, .kind = H_CHOOSE, .vs = vs, .scores = scores, .n = n, .k = k, .pick = pick};
    return run_hook(&c);
}

/* ---- declarative order ------------------------------------------------------------ */

static double prop_number(const grove_graph_t *g, grove_vid_t v, const char *name)
{
    const char *s = grove_vertex_property(g, v, name);
    if (!s)
        return 0;
    char *end;
    double d = strtod(s, &end);
    return end == s ? 0 : d;
}

static int key_of(struct grovel_policy *p, const grove_graph_t *g, grove_vid_t v, double *k)
{
    switch (p->key) {
    case K_ID: *k = (double)grove_vertex_id(g, v); return 0;
    case K_RANK: *k = (double)grove_vertex_rank(g, v); return 0;
    case K_VID: *k = (double)v; return 0;
    case K_SIZE: *k = (double)grove_vertex_size(g, v); return 0;
    case K_PROPERTY: *k = prop_number(g, v, p->key_prop); return 0;
    default: break;
    }
    if (v < p->kcap && p->kstamp[v] == p->kgen) {
        *k = p->kval[v];
        return 0;
    }
    struct call c = {.p = p, .kind = H_KEY, .v = v};
    if (run_hook(&c) < 0)
        return -1;
    if (v < p->kcap) {
        p->kval[v] = c.value;
        p->kstamp[v] = p->kgen;
    }
    *k = c.value;
    return 0;
}

static int cmp_asc(const void *a, const void *b)
{
    const struct sortkey *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int cmp_desc(const void *a, const void *b)
{
    return cmp_asc(b, a);
}

static int decl_order(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                      size_t n)
{
    struct grovel_policy *p = arg;
    (void)parent;
    if (p->when) {
        size_t i = 0;
        while (i < n && strcmp(grove_vertex_type(g, kids[i]), p->when))
            i++;
        if (i == n)
            return 0;
    }
    if (grow((void **)&p->sk, &p->skcap, n, sizeof(*p->sk)) < 0) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        p->sk[i].v = kids[i];
        if (key_of(p, g, kids[i], &p->sk[i].k) < 0)
            return -1;
    }
    qsort(p->sk, n, sizeof(*p->sk), p->desc ? cmp_desc : cmp_asc);
    for (size_t i = 0; i < n; i++)
        kids[i] = p->sk[i].v;
    return 0;
}

/* ---- the policy table ------------------------------------------------------------------ */

/* Raise-free validation: on a bad table, push a message and return -1. */
static int spec_error(lua_State *L, struct grovel_policy *p, const char *fmt, const char *a)
{
    lua_pushfstring(L, "%s: ", p->short_src);
    lua_pushfstring(L, fmt, a);
    lua_concat(L, 2);
    return -1;
}

static int parse_order_table(lua_State *L, struct grovel_policy *p, int t, int uv)
{
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return spec_error(L, p, "order: keys must be strings (%s)", "key, descending, when");
        const char *k = lua_tostring(L, -2);
        int vt = lua_type(L, -1);
        if (!strcmp(k, "key")) {
            if (vt == LUA_TFUNCTION) {
                p->key = K_FUNCTION;
                lua_pushvalue(L, -1);
                lua_setfield(L, uv, "key");
                p->lua[H_KEY] = true;
                func_where(L, -1, p->where[H_KEY], sizeof(p->where[H_KEY]));
            } else if (vt == LUA_TSTRING) {
                const char *s = lua_tostring(L, -1);
                if (!strcmp(s, "id"))
                    p->key = K_ID;
                else if (!strcmp(s, "rank"))
                    p->key = K_RANK;
                else if (!strcmp(s, "vid"))
                    p->key = K_VID;
                else if (!strcmp(s, "size"))
                    p->key = K_SIZE;
                else if (!strncmp(s, "property:", 9) && s[9]) {
                    p->key = K_PROPERTY;
                    if (!(p->key_prop = strdup(s + 9)))
                        return spec_error(L, p, "%s", "out of memory");
                } else
                    return spec_error(L, p,
                                      "order: unknown key '%s' (id, rank, vid, size, "
                                      "property:NAME or a function)", s);
            } else {
                return spec_error(L, p, "order: key must be a string or a function, not %s",
                                  luaL_typename(L, -1));
            }
        } else if (!strcmp(k, "descending")) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(L, p, "order: descending must be a boolean, not %s",
                                  luaL_typename(L, -1));
            p->desc = lua_toboolean(L, -1);
        } else if (!strcmp(k, "when")) {
            if (vt != LUA_TSTRING)
                return spec_error(L, p, "order: when must be a type name, not %s",
                                  luaL_typename(L, -1));
            if (!(p->when = strdup(lua_tostring(L, -1))))
                return spec_error(L, p, "%s", "out of memory");
        } else {
            return spec_error(L, p, "order: unknown field '%s' (key, descending, when)", k);
        }
        lua_pop(L, 1);
    }
    if (p->key == K_NONE)
        return spec_error(L, p, "order: %s", "a declarative order needs a key");
    return 0;
}

/* Read the policy table at t into p (functions go into the user value
 * table uv).  0, or -1 with a message pushed. */
static int parse_spec(lua_State *L, struct grovel_policy *p, int t, int uv, const char *dflt)
{
    static const char *const fnames[] = {"prune", "order", "score", "choose"};
    const grove_policy_t *base = NULL;
    int select = -1, nodex = -1;
    bool given[H_COUNT] = {false};
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return spec_error(L, p, "the policy table has a %s key (fields are named)",
                              luaL_typename(L, -2));
        const char *k = lua_tostring(L, -2);
        int vt = lua_type(L, -1);
        int hook = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(k, fnames[i]))
                hook = i;
        if (k[0] == '_') {
            /* private fields of the policy: ignored */
        } else if (!strcmp(k, "name") || !strcmp(k, "description")) {
            if (vt != LUA_TSTRING)
                return spec_error(L, p, "field '%s' must be a string", k);
            char *s = strdup(lua_tostring(L, -1));
            if (!s)
                return spec_error(L, p, "%s", "out of memory");
            char **dst = k[0] == 'n' ? &p->name : &p->description;
            free(*dst);
            *dst = s;
        } else if (!strcmp(k, "base")) {
            if (vt != LUA_TSTRING || !(base = grove_policy_builtin(lua_tostring(L, -1))))
                return spec_error(L, p, "base must name a built-in policy ('%s' is not one)",
                                  vt == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
        } else if (!strcmp(k, "select")) {
            const char *s = vt == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (!strcmp(s, "first"))
                select = GROVE_SELECT_FIRST;
            else if (!strcmp(s, "best"))
                select = GROVE_SELECT_BEST;
            else
                return spec_error(L, p, "select must be \"first\" or \"best\", not %s",
                                  vt == LUA_TSTRING ? s : luaL_typename(L, -1));
        } else if (!strcmp(k, "node_exclusive")) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(L, p, "node_exclusive must be a boolean, not %s",
                                  luaL_typename(L, -1));
            nodex = lua_toboolean(L, -1);
        } else if (hook == H_ORDER && vt == LUA_TTABLE) {
            if (parse_order_table(L, p, lua_gettop(L), uv) < 0)
                return -1;
            given[H_ORDER] = true;
        } else if (hook >= 0) {
            if (vt != LUA_TFUNCTION)
                return spec_error(L, p, hook == H_ORDER
                                            ? "order must be a function or a table, not %s"
                                            : "a hook must be a function, not %s",
                                  luaL_typename(L, -1));
            lua_pushvalue(L, -1);
            lua_setfield(L, uv, k);
            p->lua[hook] = true;
            given[hook] = true;
            func_where(L, -1, p->where[hook], sizeof(p->where[hook]));
        } else {
            return spec_error(L, p,
                              "unknown field '%s' (name, description, base, prune, order, "
                              "score, choose, select, node_exclusive)", k);
        }
        lua_pop(L, 1);
    }
    if (!p->name && !(p->name = strdup(dflt)))
        return spec_error(L, p, "%s", "out of memory");
    grove_policy_t h = {0};
    if (base)
        h = *base;
    h.name = p->name;
    h.arg = p;
    if (p->lua[H_PRUNE])
        h.prune = tramp_prune;
    if (p->lua[H_ORDER])
        h.order = tramp_order;
    else if (given[H_ORDER])
        h.order = decl_order;
    if (p->lua[H_SCORE])
        h.score = tramp_score;
    if (p->lua[H_CHOOSE])
        h.choose = tramp_choose;
    if (select >= 0)
        h.select = (grove_select_t)select;
    else if (given[H_SCORE] || given[H_CHOOSE])
        h.select = GROVE_SELECT_BEST;
    if (nodex >= 0)
        h.node_exclusive = nodex;
    p->hooks = h;
    return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */

/* The handle's destroy: free what the policy holds (the handle then
 * clears every byte, which closes it). */
static void policy_free(void *arg)
{
    struct grovel_policy *p = arg;
    free(p->name);
    free(p->description);
    free(p->source);
    free(p->key_prop);
    free(p->when);
    free(p->err);
    free(p->traceback);
    free(p->sk);
    free(p->vb);
    free(p->kval);
    free(p->kstamp);
}

static void policy_closable(lua_State *L, void *ud)
{
    if (((struct grovel_policy *)ud)->active)
        luaL_error(L, "policy is running a match");
}

static void policy_describe(lua_State *L, void *arg)
{
    const struct grovel_policy *p = arg;
    lua_pushfstring(L, "grove.policy (%s, %s)", p->name, p->source);
}

static const grovel_class_t policy_class = {
    .tname = GROVEL_POLICY,
    .describe = policy_describe,
    .label = "policy",
    .closed = "grove.policy (closed)",
    .size = sizeof(struct grovel_policy),
    .nuv = 1,
    .destroy = policy_free,
    .closable = policy_closable,
};

static void check_limits(lua_State *L, int arg, lua_Integer *budget, size_t *memcap)
{
    *budget = DEFAULT_BUDGET;
    *memcap = DEFAULT_MEMORY;
    if (lua_isnoneornil(L, arg))
        return;
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        int isint;
        lua_Integer v = lua_tointegerx(L, -1, &isint);
        if (!strcmp(k, "budget")) {
            luaL_argcheck(L, isint && v > 0, arg, "budget must be a positive integer");
            *budget = v;
        } else if (!strcmp(k, "memory")) {
            luaL_argcheck(L, isint && v > 0, arg, "memory must be a positive integer (bytes)");
            *memcap = (size_t)v;
        } else {
            luaL_argerror(L, arg, lua_pushfstring(L, "unknown option '%s' (budget, memory)", k));
        }
        lua_pop(L, 1);
    }
}

/* The base name of path without its directory and ".lua". */
static void push_basename(lua_State *L, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".lua"))
        n -= 4;
    lua_pushlstring(L, b, n);
}

/* Make a policy from text; source names it in messages.  Returns 1 (the
 * policy) or 3 (nil, message, code). */
static int make_policy(lua_State *L, const char *text, size_t len, const char *source,
                       const char *dflt, int optarg)
{
    lua_Integer budget;
    size_t memcap;
    check_limits(L, optarg, &budget, &memcap);
    struct grovel_policy *p = (struct grovel_policy *)grovel_handle_new(L, &policy_class);
    p->h.p = p;
    int pidx = lua_gettop(L);
    p->budget = budget;
    p->memcap = memcap;
    p->kgen = 1;
    lua_createtable(L, 0, 8);
    lua_setiuservalue(L, pidx, 1);
    if (!(p->source = strdup(source)))
        return luaL_error(L, "out of memory");
    build_env(L, pidx);
    int env = lua_gettop(L);
    lua_pushfstring(L, "@%s", source);
    int st = luaL_loadbufferx(L, text, len, lua_tostring(L, -1), "t");
    lua_remove(L, -2);
    if (st != LUA_OK)
        return grovel_fail(L, lua_tostring(L, -1), st == LUA_ERRMEM ? "ENOMEM" : "EINVAL");
    int fn = lua_gettop(L);
    lua_Debug ar;
    lua_pushvalue(L, fn);
    lua_getinfo(L, ">S", &ar);
    memcpy(p->short_src, ar.short_src, sizeof(p->short_src));
    snprintf(p->where[H_CHUNK], sizeof(p->where[H_CHUNK]), "%s", p->short_src);
    lua_pushvalue(L, env);
    lua_setupvalue(L, fn, 1); /* _ENV */

    /* run the chunk in the sandbox */
    sandbox_prepare(L, pidx);
    lua_pushcfunction(L, msgh);
    lua_pushvalue(L, fn);
    sandbox_enter(L, p, fn + 1);
    st = lua_pcall(L, 0, 1, fn + 4);
    sandbox_leave(L, p, fn + 1);
    if (st != LUA_OK) {
        record_error(p, L, H_CHUNK, st);
        return grovel_fail(L, p->err ? p->err : "policy failed to load", "EINVAL");
    }
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pushfstring(L, "%s: a policy must return a table (got %s)", p->short_src,
                        luaL_typename(L, -1));
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    }
    int t = lua_gettop(L);
    lua_getiuservalue(L, pidx, 1);
    push_basename(L, dflt);
    if (parse_spec(L, p, t, t + 1, lua_tostring(L, -1)) < 0)
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    lua_pushvalue(L, pidx);
    return 1;
}

static void close_file(void *f)
{
    fclose(f);
}

static int l_policy_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 2); /* the options stay at 2 */
    struct grovel_box *box = grovel_box_new(L, close_file); /* owns the FILE */
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return grovel_fail_errno(L, e == ENOENT ? ENOENT : EINVAL,
                                 lua_pushfstring(L, "%s: %s", path, strerror(e)));
    }
    box->p = f;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t n;
    do {
        char *dst = luaL_prepbuffer(&b);
        n = fread(dst, 1, LUAL_BUFFERSIZE, f);
        luaL_addsize(&b, n);
    } while (n == LUAL_BUFFERSIZE);
    luaL_pushresult(&b);
    int bad = ferror(f);
    box->p = NULL;
    fclose(f);
    if (bad)
        return grovel_fail_errno(L, EINVAL, lua_pushfstring(L, "%s: read error", path));
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    return make_policy(L, text, len, path, path, 2);
}

static int l_policy_parse(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_checkstring(L, 2);
    luaL_argcheck(L, name[0], 2, "name must not be empty");
    lua_settop(L, 3);
    return make_policy(L, text, len, name, name, 3);
}

/* ---- policy methods ------------------------------------------------------------------------ */

struct grovel_policy *grovel_test_policy(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, GROVEL_POLICY);
}

struct grovel_policy *grovel_check_policy(lua_State *L, int idx)
{
    return grovel_handle_check(L, idx, &policy_class);
}

bool grovel_policy_is_open(const struct grovel_policy *p)
{
    return p->h.p != NULL;
}

const grove_policy_t *grovel_policy_hooks(const struct grovel_policy *p)
{
    return &p->hooks;
}

bool grovel_policy_needs_lua(const struct grovel_policy *p)
{
    return p->lua[H_PRUNE] || p->lua[H_ORDER] || p->lua[H_SCORE] || p->lua[H_CHOOSE]
           || (p->hooks.order == decl_order && p->key == K_FUNCTION);
}

const char *grovel_policy_error(const struct grovel_policy *p)
{
    return p->err;
}

void grovel_policy_exempt(struct grovel_policy *p, int delta)
{
    p->exempt += delta;
}

void grovel_policy_begin(lua_State *L, int pidx, struct grovel_view *view, int cache_idx,
                         grove_graph_t *g)
{
    pidx = lua_absindex(L, pidx);
    cache_idx = lua_absindex(L, cache_idx);
    struct grovel_policy *p = grovel_check_policy(L, pidx);
    if (p->active)
        luaL_error(L, "policy %s is already running a match", p->name);
    /* everything that may raise comes first */
    if (p->key == K_FUNCTION) {
        size_t n = grove_graph_vertex_slots(g), cap = p->kcap;
        if (n > cap) {
            if (grow((void **)&p->kval, &cap, n, sizeof(*p->kval)) < 0)
                luaL_error(L, "out of memory");
            cap = p->kcap;
            if (grow((void **)&p->kstamp, &cap, n, sizeof(*p->kstamp)) < 0)
                luaL_error(L, "out of memory");
            memset(p->kstamp + p->kcap, 0, (cap - p->kcap) * sizeof(*p->kstamp));
            p->kcap = cap;
        }
        if (++p->kgen == 0) {
            memset(p->kstamp, 0, p->kcap * sizeof(*p->kstamp));
            p->kgen = 1;
        }
    }
    luaL_checkstack(L, S_COUNT + 8, "policy");
    p->base = lua_gettop(L);
    lua_getiuservalue(L, pidx, 1);
    int uv = lua_gettop(L);
    static const char *const fields[] = {"prune", "order", "score", "choose", "key"};
    for (int i = 0; i < 5; i++)
        lua_getfield(L, uv, fields[i]);
    lua_remove(L, uv);
    lua_pushvalue(L, cache_idx);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, pidx);
    sandbox_prepare(L, pidx);
    free(p->err);
    free(p->traceback);
    p->err = p->traceback = NULL;
    p->view = view;
    view->g = g;
    view->running = p;
    p->exempt = 0;
    sandbox_enter(L, p, p->base + S_STRMT);
}

void grovel_policy_end(lua_State *L, struct grovel_policy *p)
{
    sandbox_leave(L, p, p->base + S_STRMT);
    if (p->view) {
        p->view->g = NULL;
        p->view->running = NULL;
    }
    p->L = NULL;
    lua_settop(L, p->base);
}

static int p_name(lua_State *L)
{
    lua_pushstring(L, grovel_check_policy(L, 1)->name);
    return 1;
}

enum { P_DESCRIPTION, P_TRACEBACK };

/* description() and traceback(): the text the arg names, or nothing. */
static int p_text(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    const char *s = grovel_uparg(L) == P_DESCRIPTION ? p->description : p->traceback;
    if (!s)
        return 0;
    lua_pushstring(L, s);
    return 1;
}

static int p_source(lua_State *L)
{
    lua_pushstring(L, grovel_check_policy(L, 1)->source);
    return 1;
}

/* hooks() -> {prune = "lua" | "c", order = ..., score = ..., choose = ...,
 *             select = "first" | "best", node_exclusive = bool} */
static int p_hooks(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    const grove_policy_t *h = &p->hooks;
    bool has[4] = {h->prune != NULL, h->order != NULL, h->score != NULL, h->choose != NULL};
    lua_createtable(L, 0, 6);
    for (int i = 0; i < 4; i++) {
        if (!has[i])
            continue;
        bool lua = p->lua[i] || (i == H_ORDER && h->order == decl_order && p->key == K_FUNCTION);
        lua_pushstring(L, lua ? "lua" : "c");
        lua_setfield(L, -2, hook_names[i]);
    }
    lua_pushstring(L, h->select == GROVE_SELECT_BEST ? "best" : "first");
    lua_setfield(L, -2, "select");
    lua_pushboolean(L, h->node_exclusive);
    lua_setfield(L, -2, "node_exclusive");
    return 1;
}

static int p_budget(lua_State *L)
{
    lua_pushinteger(L, grovel_check_policy(L, 1)->budget);
    return 1;
}

static int p_memory(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)grovel_check_policy(L, 1)->memcap);
    return 1;
}

static const grovel_reg_t methods[] = {
    {"name", p_name, 0},
    {"description", p_text, P_DESCRIPTION},
    {"source", p_source, 0},
    {"hooks", p_hooks, 0},
    {"budget", p_budget, 0},
    {"memory", p_memory, 0},
    {"traceback", p_text, P_TRACEBACK},
    {NULL, NULL, 0},
};

int grovel_open_policy(lua_State *L)
{
    grovel_class_open(L, &policy_class, methods);
    grovel_setfunc(L, "policy_load", l_policy_load);
    grovel_setfunc(L, "policy_parse", l_policy_parse);
    return 0;
}
