/* l_acquire.c: RFC 28 acquisition in Lua (the grove.acquire userdata).
 *
 *   core.acquire(graph [, matcher] [, {group = "default",
 *                protocol = "auto" | "v1" | "current"}])
 *   a:apply(response)     response: JSON text or a Lua table; returns the
 *                         events table, or nil, message, code (EINVAL,
 *                         ENOENT: a target never acquired, EEXIST)
 *       events: {release = {{group =, targets =}, ...},
 *                exceptions = {{id =, targets =, note =}, ...},
 *                reservations = {{id =, targets =}, ...},
 *                affected = {{id =, targets =}, ...},  (current protocol)
 *                removed = "idset", reevaluate = bool, error = text|nil}
 *   a:update()            release what became free: events
 *   a:drain(ids)  a:undrain(ids)  a:exclude(ids)  a:include(ids)
 *       -> true, events (reservations planned again, jobs still running)
 *                         true, or nil, message, code
 *   a:targets(set)        "acquired", "up", "down", "drained", "excluded",
 *                         "shrunk", "pending", "usable": an idset string
 *   a:state()             {protocol =, group =, started =, reacquire =,
 *                          failure =, expiration =, acquired = "0-3", ...}
 *   a:set_state(t)        restore a state table (as a:state() gives)
 *   a:jobs_on(ids)        the ids of the jobs holding anything there
 *   a:disconnect()        the next response must be a first one again
 *   a:protocol()  a:group()  a:started()  a:expiration()  a:failure()
 *   a:set_topology(t)     build the nodes of the targets responses add
 *                         with the topologies of t (core.topologies(),
 *                         l_topo.c; nil: none); a:topology() gives it
 *   a:graph()  a:matcher()  a:close(), <close>, tostring(a)
 *   core.child_resources(matcher, jobid)
 *                         the R (a grove.rv1) a child instance inside the
 *                         job acquires: the job's R with its scheduling
 *                         graph, pools held in part sized to the part; or
 *                         nil, message, code
 *   core.acquire_first_response(R)
 *                         R (a grove.rv1 or JSON text) as the first
 *                         response {"resources": R, "up": ranks}, as text
 *
 * Workload: a few calls per protocol response; the conversions here are
 * small.  The userdata keeps its graph (user value 1) and matcher (user
 * value 2) alive.
 *
 * This file holds the acquisition class (a generic handle of grovel.h) and
 * the Lua -> JSON conversion it and the store share (lacquire.h); it must
 * not hold the matcher's, R's or the graph's userdata.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acquire.h"
#include "grove.h"
#include "lacquire.h"
#include "lgraph.h"
#include "rv1.h"

static void describe(lua_State *L, void *p);

static const grovel_class_t acquire_class; /* defined by api.tsv */

/* ---- JSON <-> Lua ------------------------------------------------------------ */

/* A table is an array when its keys are exactly 1..n, n >= 1. */
static size_t array_len(lua_State *L, int idx)
{
    size_t n = 0, max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1) {
            lua_pop(L, 1);
            return 0;
        }
        size_t k = (size_t)lua_tointeger(L, -1);
        if (k > max)
            max = k;
        n++;
    }
    return n == max ? n : 0;
}

static json_t *to_json(lua_State *L, int idx, char *why, size_t len, int depth)
{
    idx = lua_absindex(L, idx);
    if (depth > GROVE_NEST_MAX || !lua_checkstack(L, 4)) {
        snprintf(why, len, "nested too deeply");
        return NULL;
    }
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        json_t *j = json_stringn(s, n);
        if (!j)
            snprintf(why, len, "a string that is not UTF-8");
        return j;
    }
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            return json_integer((json_int_t)lua_tointeger(L, idx));
        if (!isfinite(lua_tonumber(L, idx))) {
            snprintf(why, len, "a number that is not finite");
            return NULL;
        }
        return json_real(lua_tonumber(L, idx));
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL)
            return json_null();
        break;
    case LUA_TTABLE: {
        size_t n = array_len(L, idx);
        json_t *out = n ? json_array() : json_object();
        if (!out) {
            snprintf(why, len, "out of memory");
            return NULL;
        }
        if (n) {
            for (size_t i = 1; i <= n; i++) {
                lua_rawgeti(L, idx, (lua_Integer)i);
                json_t *x = to_json(L, -1, why, len, depth + 1);
                lua_pop(L, 1);
                if (!x || json_array_append_new(out, x) < 0) {
                    json_decref(out);
                    return NULL;
                }
            }
            return out;
        }
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            if (lua_type(L, -2) != LUA_TSTRING) {
                snprintf(why, len, "a table key that is not a string");
                lua_pop(L, 2);
                json_decref(out);
                return NULL;
            }
            json_t *x = to_json(L, -1, why, len, depth + 1);
            if (!x || json_object_set_new(out, lua_tostring(L, -2), x) < 0) {
                lua_pop(L, 2);
                json_decref(out);
                return NULL;
            }
            lua_pop(L, 1);
        }
        return out;
    }
    default:
        break;
    }
    snprintf(why, len, "a %s value", luaL_typename(L, idx));
    return NULL;
}

json_t *grovel_to_json(lua_State *L, int idx, char *why, size_t len)
{
    return to_json(L, idx, why, len, 0);
}

/* ---- the userdata ------------------------------------------------------------- */

static int probe_matcher(lua_State *L)
{
    grovel_check_matcher(L, 1);
    return 0;
}

grove_acquire_t *grovel_check_acquire(lua_State *L, int idx)
{
    grove_acquire_t *a = grovel_handle_check(L, idx, &acquire_class);
    grovel_owner_graph(L, idx, "acquisition state");
    if (grove_acquire_matcher(a)) {
        lua_pushcfunction(L, probe_matcher);
        lua_getiuservalue(L, idx, 2);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK)
            luaL_error(L, "the acquisition state's matcher is closed or busy");
    }
    return a;
}

grovel_handle_t *grovel_new_acquire(lua_State *L, int graph_idx, int matcher_idx)
{
    graph_idx = lua_absindex(L, graph_idx);
    if (matcher_idx)
        matcher_idx = lua_absindex(L, matcher_idx);
    grovel_handle_t *h = grovel_handle_new(L, &acquire_class);
    lua_pushvalue(L, graph_idx);
    lua_setiuservalue(L, -2, 1);
    if (matcher_idx) {
        lua_pushvalue(L, matcher_idx);
        lua_setiuservalue(L, -2, 2);
    }
    return h;
}

/* true, or the failure (rc < 0) with errno e and the message in err. */
static int done(lua_State *L, int rc, int e, const grove_error_t *err)
{
    if (rc < 0)
        return grovel_fail_err(L, e, err);
    return grovel_ok(L);
}

static const char *const proto_opts[] = {"auto", "v1", "current", NULL};

/* core.acquire(graph [, matcher] [, opts]) */
static int l_acquire_new(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    int mi = 0, oi = 0;
    grove_matcher_t *m = NULL;
    if (lua_type(L, 2) == LUA_TUSERDATA) {
        m = grovel_check_matcher(L, 2);
        if (grove_matcher_graph(m) != gr->g)
            return luaL_argerror(L, 2, "the matcher schedules another graph");
        mi = 2;
        oi = 3;
    } else if (!lua_isnoneornil(L, 2)) {
        oi = 2;
    }
    const char *group = NULL;
    grove_acquire_protocol_t proto = GROVE_ACQUIRE_AUTO;
    if (oi && !lua_isnoneornil(L, oi)) {
        luaL_checktype(L, oi, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, oi)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            if (!strcmp(k, "group")) {
                luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) > 0, oi,
                              "group must be a non-empty string");
                group = lua_tostring(L, -1); /* anchored in the table */
            } else if (!strcmp(k, "protocol")) {
                proto = (grove_acquire_protocol_t)grovel_check_option_value(L, oi, "protocol",
                                                                            proto_opts, "protocol");
            } else {
                static const char *const options[] = {"group", "protocol", NULL};
                return luaL_argerror(
                    L, oi, grovel_push_unknown(L, "option", grovel_key_name(L, -2), options));
            }
            lua_pop(L, 1);
        }
    }
    grovel_handle_t *h = grovel_new_acquire(L, 1, mi);
    if (!(h->p = grove_acquire_create(gr->g, m, group, proto)))
        return grovel_fail_errno(L, errno, "cannot create an acquisition state");
    return 1;
}

/* Push the events object (or raise nothing: ev may be NULL). */
static int push_events(lua_State *L, json_t *ev)
{
    if (!ev)
        return grovel_fail_errno(L, ENOMEM, NULL);
    grovel_push_json(L, ev, false);
    json_decref(ev);
    return 1;
}

/* a:set_topology(t | nil) */
static int l_set_topology(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    grove_rtopo_t *rt = lua_isnoneornil(L, 2) ? NULL : grovel_check_topologies(L, 2);
    lua_settop(L, 2);
    lua_setiuservalue(L, 1, 3); /* kept alive with the state */
    grove_acquire_set_topology(a, rt);
    return grovel_ok(L);
}

static int l_apply(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    if (lua_getiuservalue(L, 1, 3) != LUA_TNIL)
        grovel_check_topologies(L, -1); /* closed since: raises */
    lua_pop(L, 1);
    grove_error_t err = {{0}, 0};
    json_t *ev = NULL;
    int rc;
    if (lua_type(L, 2) == LUA_TSTRING) {
        size_t n;
        const char *text = lua_tolstring(L, 2, &n);
        json_t *msg = grove_acquire_parse(text, n, &err);
        if (!msg)
            return grovel_fail_err(L, errno, &err);
        rc = grove_acquire_apply_json(a, msg, &ev, &err);
        json_decref(msg);
    } else if (lua_type(L, 2) == LUA_TTABLE) {
        char why[128];
        json_t *msg = grovel_to_json(L, 2, why, sizeof(why));
        if (!msg)
            return luaL_argerror(L, 2, lua_pushfstring(L, "cannot be written as JSON: %s", why));
        rc = grove_acquire_apply_json(a, msg, &ev, &err);
        json_decref(msg);
    } else {
        return luaL_typeerror(L, 2, "JSON text or table");
    }
    if (rc < 0)
        return grovel_fail_err(L, errno, &err);
    return push_events(L, ev);
}

static int l_update(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    json_t *ev = NULL;
    if (grove_acquire_update_json(a, &ev) < 0)
        return grovel_fail_errno(L, errno, NULL);
    return push_events(L, ev);
}

/* An idset argument: an idset userdata (its text) or a string.  The set
 * (new: the caller destroys it), or NULL after pushing nil, message, code
 * (3 results) for a bad one. */
static grove_idset_t *check_ids(lua_State *L, int idx)
{
    const char *text = lua_type(L, idx) == LUA_TUSERDATA ? luaL_tolstring(L, idx, NULL)
                                                         : luaL_checkstring(L, idx);
    grove_error_t err = {{0}, 0};
    grove_idset_t *t = grove_idset_decode(text, &err);
    if (!t)
        grovel_fail_err(L, errno == ENOMEM ? ENOMEM : EINVAL, &err);
    return t;
}

enum { ADMIN_ON = 1, ADMIN_DRAIN = 2 };

/* drain, undrain, exclude, include: the arg says which (ADMIN_*). */
static int l_admin(lua_State *L)
{
    bool drain = grovel_uparg(L) & ADMIN_DRAIN, on = grovel_uparg(L) & ADMIN_ON;
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    grove_idset_t *t = check_ids(L, 2);
    if (!t)
        return 3;
    grove_error_t err = {{0}, 0};
    json_t *ev = NULL;
    int rc = drain ? grove_acquire_drain_json(a, t, on, &ev, &err)
                   : grove_acquire_exclude_json(a, t, on, &ev, &err);
    int e = errno;
    grove_idset_destroy(t);
    if (rc < 0)
        return done(L, rc, e, &err);
    lua_pushboolean(L, 1);
    grovel_push_json(L, ev, false);
    json_decref(ev);
    return 2;
}

static const char *const set_opts[] = {"acquired", "up",      "down",    "drained", "excluded",
                                       "shrunk",   "pending", "usable",  NULL};

static int l_targets(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    int s = grovel_check_option(L, 2, NULL, set_opts, "set");
    grovel_push_free(L, grove_idset_encode(grove_acquire_targets(a, (grove_acquire_set_t)s),
                                           GROVE_IDSET_FLAG_RANGE),
                     NULL);
    return 1;
}

static int l_state(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    json_t *st = grove_acquire_to_json(a);
    if (!st)
        return luaL_error(L, "out of memory");
    grovel_push_json(L, st, false);
    json_decref(st);
    return 1;
}

static int l_set_state(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    char why[128];
    json_t *st = grovel_to_json(L, 2, why, sizeof(why));
    if (!st)
        return luaL_argerror(L, 2, lua_pushfstring(L, "cannot be written as JSON: %s", why));
    /* a:state() leaves failure out when it is null */
    if (!json_object_get(st, "failure"))
        json_object_set_new(st, "failure", json_null());
    grove_error_t err = {{0}, 0};
    int rc = grove_acquire_from_json(a, st, &err);
    int e = errno;
    json_decref(st);
    return done(L, rc, e, &err);
}

static int l_jobs_on(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    grove_idset_t *t = check_ids(L, 2);
    if (!t)
        return 3;
    grove_jobid_t *jobs = NULL;
    size_t n = 0;
    int rc = grove_acquire_jobs_on(a, t, &jobs, &n);
    grove_idset_destroy(t);
    if (rc < 0)
        return grovel_fail_errno(L, ENOMEM, NULL);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)jobs[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(jobs);
    return 1;
}

static int l_disconnect(lua_State *L)
{
    grove_acquire_disconnect(grovel_check_acquire(L, 1));
    return grovel_ok(L);
}

enum { F_PROTOCOL, F_GROUP, F_STARTED, F_EXPIRATION, F_FAILURE };

/* protocol(), group(), started(), expiration(), failure(): the arg says
 * which (F_*). */
static int l_field(lua_State *L)
{
    grove_acquire_t *a = grovel_check_acquire(L, 1);
    switch (grovel_uparg(L)) {
    case F_PROTOCOL:
        lua_pushstring(L, grove_acquire_protocol_name(grove_acquire_protocol(a)));
        break;
    case F_GROUP:
        lua_pushstring(L, grove_acquire_group(a));
        break;
    case F_STARTED:
        lua_pushboolean(L, grove_acquire_started(a));
        break;
    case F_EXPIRATION:
        lua_pushnumber(L, grove_acquire_expiration(a));
        break;
    default:
        grovel_push_string(L, grove_acquire_failure(a));
        break;
    }
    return 1;
}

/* graph() and matcher(): the user value the arg names. */
static int l_uservalue(lua_State *L)
{
    grovel_check_acquire(L, 1);
    lua_getiuservalue(L, 1, grovel_uparg(L));
    return 1;
}

static void describe(lua_State *L, void *p)
{
    char *acq = grove_idset_encode(grove_acquire_targets(p, GROVE_TARGETS_ACQUIRED),
                                   GROVE_IDSET_FLAG_RANGE);
    char *up = grove_idset_encode(grove_acquire_targets(p, GROVE_TARGETS_USABLE),
                                  GROVE_IDSET_FLAG_RANGE);
    lua_pushfstring(L, "grove.acquire (%s, targets %s, usable %s)",
                    grove_acquire_protocol_name(grove_acquire_protocol(p)), acq ? acq : "?",
                    up ? up : "?");
    free(acq);
    free(up);
}

/* ---- child instances --------------------------------------------------------------- */

static int l_child_resources(lua_State *L)
{
    grove_matcher_t *m = grovel_check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    const grove_job_t *job = grove_matcher_job(m, id);
    if (!job)
        return grovel_fail_errno(L, ENOENT, lua_pushfstring(L, "no job %I", (lua_Integer)id));
    grovel_handle_t *h = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    if (!(h->p = grove_acquire_child_resources(grove_matcher_graph(m), job, &err)))
        return grovel_fail_err(L, errno, &err);
    return 1;
}

static int l_first_response(lua_State *L)
{
    size_t n;
    const char *text = lua_type(L, 1) == LUA_TUSERDATA ? luaL_tolstring(L, 1, &n)
                                                       : luaL_checklstring(L, 1, &n);
    grove_error_t err = {{0}, 0};
    grove_rv1_t *R = grove_rv1_decode(text, n, "R", &err);
    if (!R)
        return grovel_fail_err(L, errno, &err);
    char *resp = grove_acquire_first_response(R);
    grove_rv1_destroy(R);
    return grovel_return_string(L, resp, ENOMEM, NULL);
}

#include "api_acquire.h"
