/* grovel.c: the helpers every binding file shares (grovel.h, lhandle.h):
 * failures as nil, message, code, the one way to register a class and the
 * generic handle (new, check, close, tostring, ==, copy), options and
 * their keys, and JSON values pushed as Lua values.
 *
 * This is the bindings' lowest file: every l_*.c calls it and it calls none
 * of them.  It must not hold a binding of its own (a userdata type or a
 * function of grove.core: l_*.c) nor the module's entry point (module.c,
 * which calls each binding file's open function).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "grove.h"
#include "grovel.h"

int grovel_fail(lua_State *L, const char *msg, const char *code)
{
    lua_pushnil(L);
    lua_pushstring(L, msg);
    lua_pushstring(L, code);
    return 3;
}

int grovel_set_function(lua_State *L, const void *key)
{
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
    return 0;
}

void grovel_refuse_failure(lua_State *L, int arg)
{
    const char *code = lua_type(L, arg + 2) == LUA_TSTRING ? lua_tostring(L, arg + 2) : "";
    /* the code is a word of the error vocabulary: EINVAL, ENOENT, ... */
    if (!lua_isnil(L, arg) || lua_type(L, arg + 1) != LUA_TSTRING || code[0] != 'E' || !code[1]
        || code[strspn(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")])
        return;
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "got nil from a call that failed: %s", lua_tostring(L, arg + 1)));
}

const char *grovel_errno_name(int errnum)
{
    const char *name = grove_errno_name(errnum);
    return name ? name : "EIO"; /* errno 0: a failure that set none */
}

int grovel_fail_errno(lua_State *L, int errnum, const char *msg)
{
    return grovel_fail(L, msg ? msg : strerror(errnum), grovel_errno_name(errnum));
}

int grovel_fail_err(lua_State *L, int e, const grove_error_t *err)
{
    return grovel_fail_errno(L, e, err && err->text[0] ? err->text : NULL);
}

int grovel_return_string(lua_State *L, char *s, int e, const char *msg)
{
    if (!s)
        return grovel_fail_errno(L, e, msg);
    lua_pushstring(L, s);
    free(s);
    return 1;
}

int grovel_ok(lua_State *L)
{
    lua_pushboolean(L, 1);
    return 1;
}

int grovel_result(lua_State *L, int rc, const grove_error_t *err)
{
    return rc < 0 ? grovel_fail_err(L, errno, err) : grovel_ok(L);
}

void grovel_push_string(lua_State *L, const char *s)
{
    if (s)
        lua_pushstring(L, s);
    else
        lua_pushnil(L);
}

void grovel_set_integer(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

void grovel_set_number(lua_State *L, const char *k, lua_Number v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

void grovel_set_boolean(lua_State *L, const char *k, bool v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, k);
}

void grovel_set_string(lua_State *L, const char *k, const char *s)
{
    if (s) {
        lua_pushstring(L, s);
        lua_setfield(L, -2, k);
    }
}

void grovel_push_free(lua_State *L, char *s, const char *what)
{
    if (!s) {
        if (what)
            luaL_error(L, "%s: out of memory", what);
        luaL_error(L, "out of memory");
    }
    lua_pushstring(L, s);
    free(s);
}

int grovel_name_index(const char *s, const char *const *names)
{
    for (int i = 0; s && names[i]; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

void grovel_check_keys(lua_State *L, int t, const char *const *names, int arg, const char *fmt)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (grovel_name_index(k, names) >= 0)
            continue;
        char hint[128];
        grovel_hint(L, k, names, NULL, hint, sizeof(hint));
        lua_pushfstring(L, fmt, luaL_tolstring(L, -1, NULL));
        lua_pushstring(L, hint);
        lua_concat(L, 2);
        if (arg)
            luaL_argerror(L, arg, lua_tostring(L, -1));
        lua_error(L);
    }
}

const char *grovel_key_name(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TSTRING)
        return lua_tostring(L, idx);
    return luaL_tolstring(L, idx, NULL);
}

const char *grovel_check_source(lua_State *L, size_t *len, const char **name)
{
    const char *text = luaL_checklstring(L, 1, len);
    *name = luaL_checkstring(L, 2);
    luaL_argcheck(L, (*name)[0], 2, "name must not be empty");
    lua_settop(L, 3);
    return text;
}

int grovel_check_option(lua_State *L, int arg, const char *def, const char *const *names,
                        const char *what)
{
    const char *name = def ? luaL_optstring(L, arg, def) : luaL_checkstring(L, arg);
    int i = grovel_name_index(name, names);
    if (i < 0)
        luaL_argerror(L, arg, grovel_push_unknown(L, what, name, names));
    return i;
}

int grovel_check_option_value(lua_State *L, int arg, const char *key, const char *const *names,
                              const char *what)
{
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a string", key));
    const char *name = lua_tostring(L, -1);
    int i = grovel_name_index(name, names);
    if (i < 0) {
        lua_pushfstring(L, "%s: ", key);
        grovel_push_unknown(L, what, name, names);
        lua_concat(L, 2);
        luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    return i;
}

bool grovel_options(lua_State *L, int arg)
{
    if (lua_isnoneornil(L, arg))
        return false;
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_pushnil(L);
    return true;
}

int grovel_next_option(lua_State *L, int arg, const char *const *names)
{
    if (!lua_next(L, arg))
        return -1;
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
    int i = grovel_name_index(k, names);
    if (i < 0)
        luaL_argerror(L, arg, grovel_push_unknown(L, "option", grovel_key_name(L, -2), names));
    return i;
}

/* ---- classes and handles ------------------------------------------------ */

const grovel_class_t *grovel_upclass(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

int grovel_uparg(lua_State *L)
{
    return (int)lua_tointeger(L, lua_upvalueindex(2));
}

static size_t handle_size(const grovel_class_t *c)
{
    return c->size ? c->size : sizeof(grovel_handle_t);
}

grovel_handle_t *grovel_handle_new(lua_State *L, const grovel_class_t *c)
{
    grovel_handle_t *h = lua_newuserdatauv(L, handle_size(c), c->nuv);
    memset(h, 0, handle_size(c));
    luaL_setmetatable(L, c->tname);
    return h;
}

void *grovel_handle_check(lua_State *L, int idx, const grovel_class_t *c)
{
    grovel_handle_t *h = luaL_checkudata(L, idx, c->tname);
    if (!h->p)
        luaL_argerror(L, idx, lua_pushfstring(L, "%s is closed", c->label));
    return h->p;
}

void *grovel_handle_test(lua_State *L, int idx, const grovel_class_t *c)
{
    grovel_handle_t *h = luaL_testudata(L, idx, c->tname);
    return h ? h->p : NULL;
}

void *grovel_handle_alive(lua_State *L, const grovel_handle_t *h, const grovel_class_t *c)
{
    if (!h->p)
        luaL_error(L, "%s closed during iteration", c->label);
    return h->p;
}

/* __gc, __close and close(): idempotent; drops the user values too. */
static int handle_close(lua_State *L)
{
    const grovel_class_t *c = grovel_upclass(L);
    grovel_handle_t *h = luaL_checkudata(L, 1, c->tname);
    if (c->closable)
        c->closable(L, h);
    if (h->p && c->destroy)
        c->destroy(h->p);
    memset(h, 0, handle_size(c));
    for (int i = 1; i <= c->nuv; i++) {
        lua_pushnil(L);
        lua_setiuservalue(L, 1, i);
    }
    return 0;
}

static int class_tostring(lua_State *L)
{
    const grovel_class_t *c = grovel_upclass(L);
    void *ud = luaL_checkudata(L, 1, c->tname);
    if (c->label)
        ud = ((grovel_handle_t *)ud)->p;
    if (!c->label || ud)
        c->describe(L, ud);
    else if (c->closed)
        lua_pushstring(L, c->closed);
    else
        lua_pushfstring(L, "%s (closed)", c->tname);
    return 1;
}

/* The object (or, for a class that is no handle, the userdata) at idx,
 * NULL for anything else or a closed handle. */
static void *test_object(lua_State *L, int idx, const grovel_class_t *c)
{
    return c->label ? grovel_handle_test(L, idx, c) : luaL_testudata(L, idx, c->tname);
}

/* __eq: false for anything else, never raises. */
static int class_eq(lua_State *L)
{
    const grovel_class_t *c = grovel_upclass(L);
    void *a = test_object(L, 1, c), *b = test_object(L, 2, c);
    lua_pushboolean(L, a && b && c->equal(a, b));
    return 1;
}

/* h:equal(o): h must be an open handle; false for anything else as o. */
static int handle_equal(lua_State *L)
{
    const grovel_class_t *c = grovel_upclass(L);
    void *a = grovel_handle_check(L, 1, c);
    void *b = grovel_handle_test(L, 2, c);
    lua_pushboolean(L, b && c->equal(a, b));
    return 1;
}

static int handle_copy(lua_State *L)
{
    const grovel_class_t *c = grovel_upclass(L);
    void *p = grovel_handle_check(L, 1, c);
    grovel_handle_t *h = grovel_handle_new(L, c);
    if (!(h->p = c->copy(p)))
        return grovel_fail_errno(L, errno, NULL);
    return 1;
}

/* Set the functions of regs (name NULL ends it), each with the upvalues of
 * grovel_class_open: metamethods ("__...") on the metatable at mt, methods
 * on the table at index; a name "=NAME" sets NAME to the value the
 * function returns, called once now (a constant of the module table). */
static void set_regs(lua_State *L, int mt, int index, const grovel_class_t *c, int module,
                     const grovel_reg_t *regs)
{
    for (; regs && regs->name; regs++) {
        if (!regs->fn)
            continue; /* a generic function the class does not have */
        int t = strncmp(regs->name, "__", 2) ? index : mt;
        lua_pushlightuserdata(L, (void *)(uintptr_t)c); /* read only */
        lua_pushinteger(L, regs->arg);
        lua_pushvalue(L, module);
        lua_pushcclosure(L, regs->fn, 3);
        if (regs->name[0] == '=')
            lua_call(L, 0, 1);
        lua_setfield(L, t, regs->name + (regs->name[0] == '='));
    }
}

void grovel_class_open(lua_State *L, const grovel_class_t *c, const grovel_reg_t *regs)
{
    bool handle = c->label != NULL;
    const grovel_reg_t generic[] = {
        {"__tostring", handle || c->describe ? class_tostring : NULL, 0},
        {"__eq", c->equal ? class_eq : NULL, 0},
        {"__gc", handle ? handle_close : NULL, 0},
        {"__close", handle ? handle_close : NULL, 0},
        {"close", handle ? handle_close : NULL, 0},
        {"copy", handle && c->copy ? handle_copy : NULL, 0},
        {"equal", handle && c->equal ? handle_equal : NULL, 0},
        {NULL, NULL, 0},
    };
    int module = lua_gettop(L);
    luaL_newmetatable(L, c->tname); /* the existing one if already made */
    int t = lua_getfield(L, -1, "__index");
    if (t == LUA_TFUNCTION) { /* c->index: the methods table is its upvalue */
        lua_getupvalue(L, -1, 1);
        lua_remove(L, -2);
    } else if (t != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        /* a key that is no method raises, naming the class (l_names.c) */
        lua_createtable(L, 0, 1);
        lua_pushstring(L, c->tname);
        lua_pushcclosure(L, grovel_no_method, 1);
        lua_setfield(L, -2, "__index");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, "__index");
    }
    set_regs(L, module + 1, module + 2, c, module, generic);
    set_regs(L, module + 1, module + 2, c, module, regs);
    if (c->index) {
        lua_pushvalue(L, module + 2);
        lua_pushcclosure(L, c->index, 1);
        lua_setfield(L, module + 1, "__index");
    }
    lua_settop(L, module);
}

int grovel_api_open(lua_State *L, const grovel_api_t *api)
{
    int module = lua_gettop(L);
    for (; api->c || api->regs; api++)
        if (api->c)
            grovel_class_open(L, api->c, api->regs);
        else
            set_regs(L, module, module, NULL, module, api->regs);
    return 0;
}

void grovel_push_strings(lua_State *L, const void *o, size_t n,
                         const char *(*at)(const void *o, size_t i))
{
    lua_createtable(L, n == SIZE_MAX ? 0 : (int)n, 0);
    const char *s;
    for (size_t i = 0; i < n && (s = at ? at(o, i) : ((const char *const *)o)[i]); i++) {
        lua_pushstring(L, s);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_json(lua_State *L, const json_t *v, bool keep_null, int depth)
{
    luaL_checkstack(L, 4, "JSON nested too deeply");
    if (depth >= GROVE_NEST_MAX)
        luaL_error(L, "JSON nested deeper than %d levels", GROVE_NEST_MAX);
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        lua_createtable(L, 0, (int)json_object_size(v));
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)(uintptr_t)v, k, x) {
            if (json_is_null(x) && !keep_null)
                continue;
            push_json(L, x, keep_null, depth + 1);
            lua_setfield(L, -2, k);
        }
        break;
    }
    case JSON_ARRAY: {
        lua_createtable(L, (int)json_array_size(v), 0);
        size_t i;
        json_t *x;
        json_array_foreach((json_t *)(uintptr_t)v, i, x) {
            push_json(L, x, keep_null, depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    }
    case JSON_STRING:
        lua_pushlstring(L, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        lua_pushinteger(L, (lua_Integer)json_integer_value(v));
        break;
    case JSON_REAL:
        lua_pushnumber(L, json_real_value(v));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        lua_pushboolean(L, json_is_true(v));
        break;
    default: /* null */
        if (keep_null)
            lua_pushlightuserdata(L, NULL);
        else
            lua_pushnil(L);
        break;
    }
}

void grovel_push_json(lua_State *L, const json_t *v, bool keep_null)
{
    push_json(L, v, keep_null, 0);
}

/* ---- unknown names: the offer of the closest known one (l_names.c) ------ */

static const char SUGGEST_KEY = 's'; /* registry key of the function */

/* core.set_suggest(fn | nil): l_names.c */
int grovel_set_suggest(lua_State *L)
{
    return grovel_set_function(L, &SUGGEST_KEY);
}

void grovel_push_hint(lua_State *L, const char *name, int names)
{
    names = lua_absindex(L, names);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &SUGGEST_KEY) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
        return;
    }
    lua_pushstring(L, name);
    lua_pushvalue(L, names);
    /* an offer that fails is no offer: the message it would add to stands */
    if (lua_pcall(L, 2, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
}

/* What grovel_hint hands its protected body. */
struct hint {
    const char *name;
    const char *const *lists[2];
    char *out;
    size_t len;
};

/* The longest name an offer is asked for: a name longer than any known
 * one is close to none, and the offer's cost stays small whatever the
 * caller was handed. */
#define HINT_NAME_MAX 64

static int hint_body(lua_State *L)
{
    struct hint *h = lua_touserdata(L, 1);
    lua_newtable(L);
    lua_Integer n = 0;
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; h->lists[l] && h->lists[l][i]; i++) {
            lua_pushstring(L, h->lists[l][i]);
            lua_rawseti(L, -2, ++n);
        }
    grovel_push_hint(L, h->name, -1);
    snprintf(h->out, h->len, "%s", lua_tostring(L, -1));
    return 0;
}

void grovel_hint(lua_State *L, const char *name, const char *const *names,
                 const char *const *extra, char *out, size_t len)
{
    if (len == 0)
        return;
    out[0] = '\0';
    if (!L || !name || strlen(name) > HINT_NAME_MAX || !lua_checkstack(L, 4))
        return;
    struct hint h = {name, {names, extra}, out, len};
    lua_pushcfunction(L, hint_body);
    lua_pushlightuserdata(L, &h);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        lua_pop(L, 1);
        out[0] = '\0';
    }
}

const char *grovel_push_unknown(lua_State *L, const char *what, const char *name,
                                const char *const *names)
{
    return grovel_push_unknown_on(L, L, what, name, names);
}

const char *grovel_push_unknown_on(lua_State *L, lua_State *host, const char *what,
                                   const char *name, const char *const *names)
{
    char hint[128];
    grovel_hint(host, name, names, NULL, hint, sizeof(hint));
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "unknown %s '%s'%s; the %ss are ", what, name, hint, what);
    luaL_addvalue(&b);
    for (size_t i = 0; names[i]; i++) {
        if (i)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

int grovel_no_method(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    const char *key = lua_tostring(L, 2);
    /* the methods table holds the methods only (metamethods are on the
     * metatable): its keys are the names to offer */
    grovel_push_hint(L, key, 1);
    luaL_where(L, 1);
    if (!lua_tostring(L, -1)[0]) { /* read by a C function (a class's own __index) */
        lua_pop(L, 1);
        luaL_where(L, 2);
    }
    lua_pushfstring(L, "%s has no method '%s'%s", lua_tostring(L, lua_upvalueindex(1)), key,
                    lua_tostring(L, -2));
    lua_concat(L, 2);
    return lua_error(L);
}
