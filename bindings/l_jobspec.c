/* l_jobspec.c: jobspecs and RFC 31 constraints for Lua.
 *
 *   core.jobspec_parse(text [, opts])   a grove.jobspec, or nil, message, code
 *   core.jobspec_load(path [, opts])    the same from a file (source = path)
 *   core.jobspec_from_table(t [, opts]) validate a Lua table as a jobspec
 *       opts: v1 = true (RFC 25 rules), source = "name" (for messages),
 *             format = "yaml" | "json", unique_labels = true,
 *             types = {"node", "core", ...} (refuse other resource types,
 *             offering the closest of these: grovel_hint),
 *             duration = seconds (> 0: the jobspec's duration in place of
 *             the document's, as a scheduler's estimate)
 *   js:version()  js:duration()  js:warnings()
 *   js:resources()   the request tree as plain tables: {type=, count=,
 *                    label=, unit=, id=, exclusive=, with={...}}, where
 *                    count is an integer, a range {min=, max= (nil when
 *                    unbounded), operator=, operand=} or an idset string
 *   js:tasks()       {command={...}, slot=, count={per_slot=n} | {total=n}
 *                    | {per_resource={type=, count=}}, distribution=,
 *                    attributes=}
 *   js:constraints() attributes.system.constraints as a table, or nil
 *   js:to_table()    the whole document;  js:to_json() as compact JSON
 *   js:constraint_match{properties = {...}, hostname = "...", rank = n}
 *   js:request_key()   resources, constraints and duration as one text
 *   js:close(), <close>, tostring(js)
 *   core.constraint(spec)  spec: a table or JSON/YAML text; a
 *       grove.constraint with c:match{...}, c:to_table(), tostring(c) (JSON)
 *   core.null        the value JSON null becomes (a light userdata)
 *
 * Tables to JSON: a table with keys 1..n is an array; an empty table is an
 * array under keys that hold lists (with, command, resources, tasks,
 * properties, hostlist, ranks, and, or, not, dependencies) and in list
 * position an object; otherwise an object.  core.null becomes null.
 *
 * This file holds the jobspec and constraint classes and the Lua -> JSON
 * conversion their readers need.  Both are generic handles (grovel.h):
 * nothing here creates, checks or closes a userdata another way.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grove.h"
#include "grovel.h"
#include "jobspec.h"

static void jobspec_describe(lua_State *L, void *p);
static void constraint_describe(lua_State *L, void *p);

static const grovel_class_t jobspec_class, constraint_class; /* defined by api.tsv */

/* ---- JSON <-> Lua ------------------------------------------------------ */

static bool list_key(const char *k)
{
    static const char *const keys[] = {"with", "command", "resources", "tasks", "properties",
                                       "hostlist", "ranks", "and", "or", "not",
                                       "dependencies", NULL};
    for (int i = 0; k && keys[i]; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}

/* Length n if the table at idx has exactly the keys 1..n (n >= 1), else 0. */
static lua_Integer array_length(lua_State *L, int idx)
{
    lua_Integer n = 0, max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1)) {
            lua_pop(L, 1);
            return 0;
        }
        lua_Integer k = lua_tointeger(L, -1);
        if (k < 1) {
            lua_pop(L, 1);
            return 0;
        }
        if (k > max)
            max = k;
        n++;
    }
    return n == max ? n : 0;
}

/* The Lua value at idx as JSON (new reference), or NULL with *why set.
 * parent_key: the key holding this value (NULL in a list or at the top);
 * in_list: the value is a list element. */
static json_t *to_json(lua_State *L, int idx, const char *parent_key, bool in_list, int depth,
                       const char **why)
{
    idx = lua_absindex(L, idx);
    if (depth >= GROVE_NEST_MAX) {
        *why = "table nested too deep (a cycle?)";
        return NULL;
    }
    luaL_checkstack(L, 4, "table too deep");
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return json_null();
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL)
            return json_null();
        *why = "cannot convert a light userdata";
        return NULL;
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            return json_integer((json_int_t)lua_tointeger(L, idx));
        if (!isfinite(lua_tonumber(L, idx))) {
            *why = "cannot convert a non-finite number";
            return NULL;
        }
        return json_real(lua_tonumber(L, idx));
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        json_t *j = json_stringn(s, len);
        if (!j)
            *why = "string is not valid UTF-8";
        return j;
    }
    case LUA_TTABLE: {
        lua_Integer n = array_length(L, idx);
        bool empty = false;
        if (n == 0) {
            lua_pushnil(L);
            if (lua_next(L, idx) == 0)
                empty = true;
            else
                lua_pop(L, 2);
        }
        if (n > 0 || (empty && !in_list && list_key(parent_key))) {
            json_t *a = json_array();
            for (lua_Integer i = 1; a && i <= n; i++) {
                lua_rawgeti(L, idx, i);
                json_t *v = to_json(L, -1, NULL, true, depth + 1, why);
                lua_pop(L, 1);
                if (!v || json_array_append_new(a, v) < 0) {
                    json_decref(a);
                    return NULL;
                }
            }
            return a;
        }
        json_t *o = json_object();
        lua_pushnil(L);
        while (o && lua_next(L, idx)) {
            if (lua_type(L, -2) != LUA_TSTRING) {
                lua_pop(L, 2);
                json_decref(o);
                *why = "object keys must be strings";
                return NULL;
            }
            const char *k = lua_tostring(L, -2);
            json_t *v = to_json(L, -1, k, false, depth + 1, why);
            lua_pop(L, 1);
            if (!v || json_object_set_new(o, k, v) < 0) {
                lua_pop(L, 1);
                json_decref(o);
                return NULL;
            }
        }
        return o;
    }
    default:
        *why = "cannot convert a function, thread or userdata";
        return NULL;
    }
}

/* ---- subjects ---------------------------------------------------------- */

typedef struct {
    lua_State *L;
    int idx; /* absolute index of the properties table */
} propset;

/* properties may be a list of names or a set {name = true}. */
static bool lua_has_property(const char *name, void *arg)
{
    propset *p = arg;
    lua_State *L = p->L;
    bool found = false;
    if (lua_getfield(L, p->idx, name) != LUA_TNIL)
        found = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (found)
        return true;
    lua_Integer n = (lua_Integer)lua_rawlen(L, p->idx);
    for (lua_Integer i = 1; i <= n && !found; i++) {
        if (lua_rawgeti(L, p->idx, i) == LUA_TSTRING)
            found = strcmp(lua_tostring(L, -1), name) == 0;
        lua_pop(L, 1);
    }
    return found;
}

/* Fill s from the subject table at arg (properties, hostname, rank); any
 * other field raises. */
static void check_subject(lua_State *L, int arg, grove_constraint_subject_t *s, propset *p)
{
    static const char *const fields[] = {"properties", "hostname", "rank", NULL};
    luaL_checktype(L, arg, LUA_TTABLE);
    grovel_check_keys(L, arg, fields, arg, "unknown field '%s'");
    memset(s, 0, sizeof(*s));
    s->rank = -1;
    if (lua_getfield(L, arg, "properties") != LUA_TNIL) {
        luaL_argexpected(L, lua_istable(L, -1), arg, "properties as a table");
        p->L = L;
        p->idx = lua_gettop(L);
        s->has_property = lua_has_property;
        s->arg = p;
    }
    else
        lua_pop(L, 1);
    if (lua_getfield(L, arg, "hostname") != LUA_TNIL) {
        luaL_argexpected(L, lua_type(L, -1) == LUA_TSTRING, arg, "hostname as a string");
        s->hostname = lua_tostring(L, -1); /* kept alive on the stack */
    }
    if (lua_getfield(L, arg, "rank") != LUA_TNIL) {
        luaL_argexpected(L, lua_isinteger(L, -1), arg, "rank as an integer");
        s->rank = (int64_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
}

/* ---- jobspec userdata -------------------------------------------------- */

static grove_jobspec_t *check_jobspec(lua_State *L, int i)
{
    return grovel_handle_check(L, i, &jobspec_class);
}

const grove_jobspec_t *grovel_check_jobspec(lua_State *L, int idx)
{
    return check_jobspec(L, idx);
}

/* The offer for a type no graph type names (grove_jobspec_hint_f): Grove's
 * one edit distance (grovel_hint), asked of the state L the parse runs
 * in. */
static void type_hint(void *arg, const char *name, const char *const *known, char *buf,
                      size_t len)
{
    grovel_hint(arg, name, known, NULL, buf, len);
}

/* Read opts at arg into o (any option but these raises).  The source name
 * and the type names are copied into a userdata left on the stack, so they
 * live until the call returns. */
static void check_opts(lua_State *L, int arg, grove_jobspec_opts_t *o)
{
    static const char *const options[] = {"v1", "unique_labels", "format", "duration",
                                          "source", "types", NULL};
    memset(o, 0, sizeof(*o));
    o->hint = type_hint;
    o->hint_arg = L;
    if (lua_isnoneornil(L, arg))
        return;
    luaL_checktype(L, arg, LUA_TTABLE);
    grovel_check_keys(L, arg, options, arg, "unknown option '%s'");
    if (lua_getfield(L, arg, "v1") != LUA_TNIL && lua_toboolean(L, -1))
        o->flags |= GROVE_JOBSPEC_V1;
    lua_pop(L, 1);
    if (lua_getfield(L, arg, "unique_labels") != LUA_TNIL && lua_toboolean(L, -1))
        o->flags |= GROVE_JOBSPEC_UNIQUE_LABELS;
    lua_pop(L, 1);
    if (lua_getfield(L, arg, "format") != LUA_TNIL) {
        const char *f = lua_tostring(L, -1);
        if (f && strcmp(f, "yaml") == 0)
            o->flags |= GROVE_JOBSPEC_YAML;
        else if (f && strcmp(f, "json") == 0)
            o->flags |= GROVE_JOBSPEC_JSON;
        else
            luaL_argerror(L, arg, "format must be \"yaml\" or \"json\"");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, arg, "duration") != LUA_TNIL) {
        int isnum = 0;
        o->duration = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(o->duration > 0) || o->duration > GROVE_JOBSPEC_DURATION_MAX)
            luaL_argerror(L, arg, "duration must be a number of seconds > 0");
    }
    lua_pop(L, 1);
    /* One buffer: [types pointers, NULL] then the strings. */
    size_t ntypes = 0, bytes = 0, slen;
    if (lua_getfield(L, arg, "source") != LUA_TNIL) {
        luaL_argexpected(L, lua_type(L, -1) == LUA_TSTRING, arg, "source as a string");
        lua_tolstring(L, -1, &slen);
        bytes += slen + 1;
    }
    if (lua_getfield(L, arg, "types") != LUA_TNIL) {
        luaL_argexpected(L, lua_istable(L, -1), arg, "types as a list of strings");
        ntypes = lua_rawlen(L, -1);
        for (size_t i = 1; i <= ntypes; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TSTRING)
                luaL_argerror(L, arg, "types must be strings");
            lua_tolstring(L, -1, &slen);
            bytes += slen + 1;
            lua_pop(L, 1);
        }
    }
    char **ptrs = lua_newuserdatauv(L, (ntypes + 1) * sizeof(char *) + bytes, 0);
    char *p = (char *)(ptrs + ntypes + 1);
    for (size_t i = 1; i <= ntypes; i++) {
        const char *t;
        lua_rawgeti(L, -2, (lua_Integer)i);
        t = lua_tolstring(L, -1, &slen);
        memcpy(p, t, slen + 1);
        ptrs[i - 1] = p;
        p += slen + 1;
        lua_pop(L, 1);
    }
    ptrs[ntypes] = NULL;
    if (!lua_isnil(L, -3)) {
        const char *src = lua_tolstring(L, -3, &slen);
        memcpy(p, src, slen + 1);
        o->source = p;
    }
    if (!lua_isnil(L, -2))
        o->known_types = (const char *const *)ptrs;
    /* source, types and the buffer stay on the stack until the call ends. */
}

static int push_jobspec(lua_State *L, grove_jobspec_t *js, const grove_error_t *err)
{
    if (!js)
        return grovel_fail_err(L, errno, err);
    grovel_handle_new(L, &jobspec_class)->p = js;
    return 1;
}

static int l_jobspec_parse(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    grove_jobspec_opts_t o;
    grove_error_t err = {{0}, 0};
    check_opts(L, 2, &o);
    return push_jobspec(L, grove_jobspec_parse(text, len, &o, &err), &err);
}

static int l_jobspec_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    grove_jobspec_opts_t o;
    grove_error_t err = {{0}, 0};
    check_opts(L, 2, &o);
    return push_jobspec(L, grove_jobspec_load(path, &o, &err), &err);
}

static int l_jobspec_from_table(lua_State *L)
{
    grove_jobspec_opts_t o;
    grove_error_t err = {{0}, 0};
    const char *why = NULL;
    luaL_checktype(L, 1, LUA_TTABLE);
    check_opts(L, 2, &o);
    json_t *doc = to_json(L, 1, NULL, false, 0, &why);
    if (!doc)
        return grovel_fail(L, why ? why : "out of memory", why ? "EINVAL" : "ENOMEM");
    grove_jobspec_t *js = grove_jobspec_from_json(doc, &o, &err);
    int saved = errno;
    json_decref(doc);
    errno = saved;
    return push_jobspec(L, js, &err);
}

/* js:version() (arg 0) and js:duration() (arg 1). */
static int l_number(lua_State *L)
{
    const grove_jobspec_t *js = check_jobspec(L, 1);
    if (grovel_uparg(L))
        lua_pushnumber(L, grove_jobspec_duration(js));
    else
        lua_pushinteger(L, grove_jobspec_version(js));
    return 1;
}

static const char *warning_at(const void *js, size_t i)
{
    return grove_jobspec_warning(js, i);
}

static int l_warnings(lua_State *L)
{
    const grove_jobspec_t *js = check_jobspec(L, 1);
    grovel_push_strings(L, js, grove_jobspec_warning_count(js), warning_at);
    return 1;
}

static void push_count(lua_State *L, const grove_count_t *c)
{
    char *s;
    switch (c->kind) {
    case GROVE_COUNT_FIXED:
        lua_pushinteger(L, (lua_Integer)c->min);
        return;
    case GROVE_COUNT_RANGE:
        lua_createtable(L, 0, 4);
        grovel_set_integer(L, "min", (lua_Integer)c->min);
        if (c->max != GROVE_COUNT_INF) {
            grovel_set_integer(L, "max", (lua_Integer)c->max);
        }
        lua_pushlstring(L, &c->op, 1);
        lua_setfield(L, -2, "operator");
        grovel_set_integer(L, "operand", (lua_Integer)c->operand);
        return;
    case GROVE_COUNT_IDSET:
        if (!(s = grove_count_encode(c)))
            luaL_error(L, "out of memory");
        lua_pushstring(L, s);
        free(s);
        return;
    }
}

/* Push the list of vertices starting at r (and their subtrees). */
static void push_vertices(lua_State *L, const grove_jobspec_resource_t *r)
{
    luaL_checkstack(L, 6, "jobspec too deep");
    lua_newtable(L);
    for (lua_Integer i = 1; r; r = grove_jobspec_resource_next(r), i++) {
        lua_createtable(L, 0, 7);
        grovel_set_string(L, "type", grove_jobspec_resource_type(r));
        push_count(L, grove_jobspec_resource_count(r));
        lua_setfield(L, -2, "count");
        grovel_set_string(L, "label", grove_jobspec_resource_label(r));
        grovel_set_string(L, "unit", grove_jobspec_resource_unit(r));
        grovel_set_string(L, "id", grove_jobspec_resource_id(r));
        int x = grove_jobspec_resource_exclusive_raw(r);
        if (x >= 0) {
            grovel_set_boolean(L, "exclusive", x);
        }
        if (grove_jobspec_resource_child(r)) {
            push_vertices(L, grove_jobspec_resource_child(r));
            lua_setfield(L, -2, "with");
        }
        lua_rawseti(L, -2, i);
    }
}

static int l_resources(lua_State *L)
{
    push_vertices(L, grove_jobspec_resource_first(check_jobspec(L, 1)));
    return 1;
}

static const char *task_arg_at(const void *t, size_t k)
{
    return grove_jobspec_task_arg(t, k);
}

static int l_tasks(lua_State *L)
{
    grove_jobspec_t *js = check_jobspec(L, 1);
    size_t n = grove_jobspec_task_count(js);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const grove_jobspec_task_t *t = grove_jobspec_task(js, i);
        uint64_t num;
        const char *type;
        lua_createtable(L, 0, 5);
        grovel_push_strings(L, t, grove_jobspec_task_argc(t), task_arg_at);
        lua_setfield(L, -2, "command");
        grovel_set_string(L, "slot", grove_jobspec_task_slot(t));
        lua_createtable(L, 0, 1);
        switch (grove_jobspec_task_count_kind(t, &num, &type)) {
        case GROVE_TASK_PER_SLOT:
            grovel_set_integer(L, "per_slot", (lua_Integer)num);
            break;
        case GROVE_TASK_TOTAL:
            grovel_set_integer(L, "total", (lua_Integer)num);
            break;
        case GROVE_TASK_PER_RESOURCE:
            lua_createtable(L, 0, 2);
            grovel_set_string(L, "type", type);
            grovel_set_integer(L, "count", (lua_Integer)num);
            lua_setfield(L, -2, "per_resource");
            break;
        }
        lua_setfield(L, -2, "count");
        grovel_set_string(L, "distribution", grove_jobspec_task_distribution(t));
        if (grove_jobspec_task_attributes(t)) {
            grovel_push_json(L, grove_jobspec_task_attributes(t), true);
            lua_setfield(L, -2, "attributes");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int l_constraints(lua_State *L)
{
    grove_jobspec_t *js = check_jobspec(L, 1);
    const json_t *sys = grove_jobspec_system(js);
    const json_t *c = sys ? json_object_get(sys, "constraints") : NULL;
    if (!c)
        lua_pushnil(L);
    else
        grovel_push_json(L, c, true);
    return 1;
}

/* What the request asks, as one compact text: the resources, the
 * constraints and the duration.  Two jobspecs with the same key are one
 * request to the matcher (tasks, environment and the rest of the
 * attributes do not enter a match), so a loop can answer the second from
 * the first. */
static int l_request_key(lua_State *L)
{
    const grove_jobspec_t *js = check_jobspec(L, 1);
    const json_t *doc = grove_jobspec_json(js);
    const json_t *sys = grove_jobspec_system(js);
    const json_t *c = sys ? json_object_get(sys, "constraints") : NULL;
    json_t *k = json_pack("[OOf]", json_object_get(doc, "resources"), c ? c : json_null(),
                          grove_jobspec_duration(js));
    char *text = k ? json_dumps(k, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_decref(k);
    return grovel_return_string(L, text, ENOMEM, "out of memory");
}

static int l_to_table(lua_State *L)
{
    grovel_push_json(L, grove_jobspec_json(check_jobspec(L, 1)), true);
    return 1;
}

static int l_to_json(lua_State *L)
{
    char *s = json_dumps(grove_jobspec_json(check_jobspec(L, 1)),
                         JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    return grovel_return_string(L, s, ENOMEM, "out of memory");
}

static int l_constraint_match(lua_State *L)
{
    grove_jobspec_t *js = check_jobspec(L, 1);
    grove_constraint_subject_t s;
    propset p;
    check_subject(L, 2, &s, &p);
    lua_pushboolean(L, grove_constraint_match(grove_jobspec_constraint(js), &s));
    return 1;
}

static void jobspec_describe(lua_State *L, void *p)
{
    lua_pushfstring(L, "grove.jobspec (version %d, %d resources, %d tasks)",
                    grove_jobspec_version(p), (int)grove_jobspec_resource_total(p),
                    (int)grove_jobspec_task_count(p));
}

/* ---- constraint userdata ----------------------------------------------- */

static int l_constraint_new(lua_State *L)
{
    grove_error_t err = {{0}, 0};
    grove_constraint_t *c;
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TTABLE || t == LUA_TSTRING, 1, "table or string");
    if (t == LUA_TSTRING)
        c = grove_constraint_parse(lua_tostring(L, 1), &err);
    else {
        const char *why = NULL;
        json_t *o = to_json(L, 1, NULL, false, 0, &why);
        if (!o)
            return grovel_fail(L, why ? why : "out of memory", why ? "EINVAL" : "ENOMEM");
        c = grove_constraint_from_json(o, NULL, &err);
        int saved = errno;
        json_decref(o);
        errno = saved;
    }
    if (!c)
        return grovel_fail_err(L, errno, &err);
    grovel_handle_new(L, &constraint_class)->p = c;
    return 1;
}

struct grove_constraint *grovel_check_constraint(lua_State *L, int idx)
{
    return grovel_handle_check(L, idx, &constraint_class);
}

static int l_c_match(lua_State *L)
{
    grove_constraint_t *c = grovel_handle_check(L, 1, &constraint_class);
    grove_constraint_subject_t s;
    propset p;
    check_subject(L, 2, &s, &p);
    lua_pushboolean(L, grove_constraint_match(c, &s));
    return 1;
}

static int l_c_to_table(lua_State *L)
{
    json_t *o = grove_constraint_to_json(grovel_handle_check(L, 1, &constraint_class));
    if (!o)
        return grovel_fail(L, "out of memory", "ENOMEM");
    grovel_push_json(L, o, true);
    json_decref(o);
    return 1;
}

static void constraint_describe(lua_State *L, void *p)
{
    json_t *o = grove_constraint_to_json(p);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    grovel_push_free(L, s, NULL);
}

/* core.null, JSON null in tables (api.tsv: pushed once, when the module
 * opens). */
static int l_null(lua_State *L)
{
    lua_pushlightuserdata(L, NULL);
    return 1;
}

#include "api_jobspec.h"
