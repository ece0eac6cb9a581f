/* l_hostlist.c: the grove.hostlist userdata (RFC 29 hostlists) for Lua.
 *
 *   core.hostlist([s])     s: nil (empty), an RFC 29 string, or a table of
 *                          such strings; a bad string returns nil, message,
 *                          code ("EINVAL", or "ERANGE" for a range too large)
 *   h:append(x)            x a string or a hostlist; returns the number of
 *                          hosts appended, or nil, message, code
 *   h:delete(x)            remove the first occurrence of each host of x;
 *                          returns the number removed, or nil, message, code
 *   h:count()  #h          number of hosts
 *   h:nth(i)  h[i]         host i, counting from 1 like Lua tables; nth
 *                          returns nil, message, "ENOENT" out of range, h[i]
 *                          just nil
 *   h:find(host)           index (from 1) of the first occurrence, or nil;
 *                          nil, message, "EINVAL" if host is not a host name
 *   h:contains(host)       boolean
 *   h:first()  h:last()    a host, or nil when empty
 *   h:sort()  h:uniq()     in place; return h
 *   h:encode()  tostring(h)   the compressed string
 *   h:copy()  h:equal(o)  h == o
 *   for host in h:hosts() do ... end
 *   h:close(), and <close> variables.
 *
 * This file holds the hostlist class: its methods, h[i] and the hosts()
 * iterator.  The handle itself (copy, equal, close, ==) is the generic one
 * of grovel.h; nothing of another userdata belongs here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "hostlist.h"
#include "lhandle.h"

#define ITER_MT "grove.hostlist.iter"

static void describe(lua_State *L, void *p);
static int l_index(lua_State *L);

GROVEL_SET_CLASS(hostlist_class, grove_hostlist, "grove.hostlist", "hostlist", describe, l_index);

static grove_hostlist_t *check_hostlist(lua_State *L, int i)
{
    return grovel_handle_check(L, i, &hostlist_class);
}

/* Append the string at index i (or fail with nil, msg, code): returns the
 * number appended or -1 with the failure pushed. */
static int append_string(lua_State *L, grove_hostlist_t *h, int i)
{
    void *tmp;
    if (grovel_handle_decode(L, i, &hostlist_class, &tmp) < 0)
        return -1;
    int n = grove_hostlist_append_list(h, tmp);
    int saved = errno;
    grove_hostlist_destroy(tmp);
    if (n < 0)
        grovel_fail_errno(L, saved, NULL);
    return n;
}

/* Element i of core.hostlist's table, on top of the stack: a string. */
static int add_element(lua_State *L, void *h, lua_Integer i)
{
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_argerror(L, 1, lua_pushfstring(L, "element %I is not a string",
                                                   (LUAI_UACINT)i));
    return append_string(L, h, -1) < 0 ? -1 : 0;
}

static int l_hostlist_new(lua_State *L)
{
    return grovel_set_new(L, &hostlist_class, add_element);
}

/* h:append(x) and h:delete(x) (arg 1). */
static int l_append(lua_State *L)
{
    bool del = grovel_uparg(L);
    grove_hostlist_t *h = check_hostlist(L, 1);
    void *tmp;
    const grove_hostlist_t *o = grovel_handle_operand(L, 2, &hostlist_class, &tmp);
    if (!o)
        return 3;
    int n = del ? grove_hostlist_delete_list(h, o) : grove_hostlist_append_list(h, o);
    int saved = errno;
    grove_hostlist_destroy(tmp);
    if (n < 0)
        return grovel_fail_errno(L, saved, NULL);
    lua_pushinteger(L, n);
    return 1;
}

static int l_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)grove_hostlist_count(check_hostlist(L, 1)));
    return 1;
}

/* Push host i (1-based) or return 0 with errno set. */
static int push_nth(lua_State *L, const grove_hostlist_t *h, lua_Integer i)
{
    if (i < 1 || (lua_Unsigned)i > grove_hostlist_count(h)) {
        errno = ENOENT;
        return 0;
    }
    char *s = grove_hostlist_nth(h, (size_t)(i - 1));
    if (!s)
        return 0;
    lua_pushstring(L, s);
    free(s);
    return 1;
}

static int l_nth(lua_State *L)
{
    grove_hostlist_t *h = check_hostlist(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (push_nth(L, h, i))
        return 1;
    return grovel_fail_errno(L, errno, errno == ENOENT ? "index out of range" : NULL);
}

/* h:first() (arg 0) and h:last() (arg 1): a host name, nil when h is
 * empty. */
static int l_end(lua_State *L)
{
    grove_hostlist_t *h = check_hostlist(L, 1);
    if (!push_nth(L, h, grovel_uparg(L) ? (lua_Integer)grove_hostlist_count(h) : 1))
        lua_pushnil(L);
    return 1;
}

/* h:find(host) (arg 0): its position from 1, nil when absent, or nil,
 * message, "EINVAL" for an invalid name; h:contains(host) (arg 1): whether
 * it is there (false for an invalid name). */
static int l_find(lua_State *L)
{
    bool contains = grovel_uparg(L);
    grove_hostlist_t *h = check_hostlist(L, 1);
    size_t len;
    const char *host = luaL_checklstring(L, 2, &len);
    int i = strlen(host) == len ? grove_hostlist_find(h, host) : (errno = EINVAL, -1);
    if (contains)
        lua_pushboolean(L, i >= 0);
    else if (i >= 0)
        lua_pushinteger(L, (lua_Integer)i + 1);
    else if (errno == EINVAL)
        return grovel_fail(L, lua_pushfstring(L, "invalid host name \"%s\"", host), "EINVAL");
    else
        lua_pushnil(L);
    return 1;
}

/* h:sort() and h:uniq() (arg 1). */
static int l_sort(lua_State *L)
{
    bool uniq = grovel_uparg(L);
    grove_hostlist_t *h = check_hostlist(L, 1);
    if ((uniq ? grove_hostlist_uniq(h) : grove_hostlist_sort(h)) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_settop(L, 1);
    return 1;
}

static int l_encode(lua_State *L)
{
    char *e = grove_hostlist_encode(check_hostlist(L, 1));
    return grovel_return_string(L, e, errno, NULL);
}

static void describe(lua_State *L, void *p)
{
    grovel_push_free(L, grove_hostlist_encode(p), "hostlist");
}

/* __index: integer keys are hosts (nil out of range), others are methods
 * (the methods table is upvalue 1). */
static int l_index(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TNUMBER && lua_isinteger(L, 2)) {
        grove_hostlist_t *h = check_hostlist(L, 1);
        if (!push_nth(L, h, lua_tointeger(L, 2)))
            lua_pushnil(L);
        return 1;
    }
    lua_pushvalue(L, 2);
    if (lua_type(L, 2) == LUA_TSTRING)
        lua_gettable(L, lua_upvalueindex(1)); /* no such method: raises */
    else
        lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

/* hosts() iterator: upvalue 1 the hostlist, upvalue 2 a userdata holding
 * the C iterator (its __gc frees the buffer). */
static int hosts_step(lua_State *L)
{
    grove_hostlist_t *h = grovel_handle_alive(L, lua_touserdata(L, lua_upvalueindex(1)),
                                              &hostlist_class);
    grove_hostlist_iter_t *it = lua_touserdata(L, lua_upvalueindex(2));
    const char *host = grove_hostlist_iter_next(h, it);
    if (!host && errno != 0)
        return luaL_error(L, "hostlist: out of memory");
    grovel_push_string(L, host);
    return 1;
}

static int iter_gc(lua_State *L)
{
    grove_hostlist_iter_fini(luaL_checkudata(L, 1, ITER_MT));
    return 0;
}

static const grovel_class_t iter_class = {.tname = ITER_MT};

static int l_hosts(lua_State *L)
{
    check_hostlist(L, 1);
    lua_settop(L, 1);
    grove_hostlist_iter_t *it = lua_newuserdatauv(L, sizeof(*it), 0);
    *it = (grove_hostlist_iter_t)GROVE_HOSTLIST_ITER_INIT;
    luaL_setmetatable(L, ITER_MT);
    lua_pushcclosure(L, hosts_step, 2);
    return 1;
}

#include "api_hostlist.h"
