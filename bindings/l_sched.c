/* l_sched.c: the state of a scheduling loop (core/sched_state.h) for the loop
 * in Lua (lua/grove/sched.lua): which jobs wait in which order, the
 * clock, the counters.
 *
 *   core.sched()                        a new, empty grove.sched
 *   s:add(id, priority, t_submit [, userid [, duration]])   true, or nil, msg, code
 *   s:add_running(id, priority, t_submit, userid, duration, start)
 *   s:remove(id)  s:prioritize(id, priority)  s:set_duration(id, d)
 *   s:set_policy_priority(id, p)   the queue policy's priority (a number,
 *                                  not NaN), which orders before priority
 *   s:reserve(id, t | nil)  s:start(id)  s:requeue(id)
 *                                       true, or nil, msg, code (ENOENT,
 *                                       EEXIST, EINVAL as core/sched_state.h)
 *   s:job(id)      {id, policy_priority, priority, userid, t_submit, duration, state =
 *                  "pending" | "reserved" | "running", reserved, start}, or nil
 *   s:ids([t])     the waiting jobs' ids in queue order, into t (cleared
 *                  past the end) or a new table; and their count
 *   s:position(id) its 1-based place in the queue, or nil
 *   s:next([id [, fit]])   the id of the first waiting job, or of the one
 *                  after waiting job id; nil at the end (or id not
 *                  waiting).  O(1) a step: a pass that looks at the head
 *                  only costs what it looks at, not the queue's length.
 *                  With fit, the first such whose size (s:set_size) is
 *                  unknown or at most fit
 *   s:set_size(id, units | nil)   the units a job asks for (nil: unknown)
 *   s:version()    moves on every change of the queue's members or order
 *   s:length()     jobs waiting
 *   s:now()  s:set_now(t)
 *   s:count_match(placed [, seconds])
 *   s:stats()      {matched, failed, match_min, match_avg, match_max,
 *                  recent, recent_p50, recent_p99, recent_max (the last
 *                  GROVE_SCHED_RECENT timed matches), queue_length,
 *                  running, jobs}
 *   core.sched_units(g, type)  the units of type g holds: the sizes of its
 *                  live vertices of that type summed (a loop's total, read
 *                  once a resource change without a Lua call a vertex)
 *
 * Job ids are Lua integers >= 0 (Flux's 64-bit ids fit: they stay below
 * 2^63).  Nothing here decides anything: the loop's policy is Lua's.
 */
#include <errno.h>
#include <math.h>

#include "grovel.h"
#include "lgraph.h"
#include "sched_state.h"

static const grovel_class_t sched_class; /* defined by api.tsv */

static void describe(lua_State *L, void *p)
{
    grove_sched_stats_t st;
    grove_sched_stats(p, &st);
    lua_pushfstring(L, "grove.sched (%I waiting, %I running, clock %I)",
                    (lua_Integer)st.queue_length, (lua_Integer)st.running,
                    (lua_Integer)grove_sched_now(p));
}

static grove_sched_t *check_sched(lua_State *L)
{
    return grovel_handle_check(L, 1, &sched_class);
}

static grove_jobid_t check_id(lua_State *L, int i)
{
    lua_Integer id = luaL_checkinteger(L, i);
    luaL_argcheck(L, id >= 0, i, "job id must be >= 0");
    return (grove_jobid_t)id;
}

static int done(lua_State *L, int rc, grove_jobid_t id)
{
    if (rc == 0)
        return grovel_ok(L);
    int e = errno;
    const char *why = e == ENOENT   ? "no job %I"
                      : e == EEXIST ? "job %I is known already"
                                    : "job %I: not in a state for that";
    lua_pushfstring(L, why, (lua_Integer)id);
    return grovel_fail_errno(L, e, lua_tostring(L, -1));
}

static int l_sched_new(lua_State *L)
{
    grovel_handle_t *h = grovel_handle_new(L, &sched_class);
    h->p = grove_sched_create();
    if (!h->p)
        return luaL_error(L, "out of memory");
    return 1;
}

static int l_add(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    grove_jobid_t id = check_id(L, 2);
    lua_Integer prio = luaL_checkinteger(L, 3);
    double submit = luaL_checknumber(L, 4);
    lua_Integer user = luaL_optinteger(L, 5, 0);
    lua_Integer duration = luaL_optinteger(L, 6, 0);
    luaL_argcheck(L, isfinite(submit), 4, "t_submit must be finite");
    luaL_argcheck(L, user >= 0 && user <= UINT32_MAX, 5, "userid out of range");
    luaL_argcheck(L, duration >= 0, 6, "duration must be >= 0");
    if (grovel_uparg(L)) {
        lua_Integer start = luaL_checkinteger(L, 7);
        luaL_argcheck(L, start >= 0, 7, "start must be >= 0");
        return done(L, grove_sched_add_running(s, id, prio, (uint32_t)user, submit, duration,
                                               start), id);
    }
    return done(L, grove_sched_add(s, id, prio, (uint32_t)user, submit, duration), id);
}

enum { OP_REMOVE, OP_PRIORITIZE, OP_POLICY_PRIORITY, OP_DURATION, OP_SIZE, OP_RESERVE, OP_START,
       OP_REQUEUE };

static int l_change(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    grove_jobid_t id = check_id(L, 2);
    int rc = -1;
    switch (grovel_uparg(L)) {
    case OP_REMOVE:
        rc = grove_sched_remove(s, id);
        break;
    case OP_PRIORITIZE:
        rc = grove_sched_prioritize(s, id, luaL_checkinteger(L, 3));
        break;
    case OP_POLICY_PRIORITY: {
        lua_Number p = luaL_checknumber(L, 3);
        luaL_argcheck(L, !isnan(p), 3, "a priority must not be NaN");
        rc = grove_sched_set_policy_priority(s, id, p);
        break;
    }
    case OP_DURATION: {
        lua_Integer d = luaL_checkinteger(L, 3);
        luaL_argcheck(L, d >= 0, 3, "duration must be >= 0");
        rc = grove_sched_set_duration(s, id, d);
        break;
    }
    case OP_SIZE:
        rc = grove_sched_set_size(s, id, lua_isnoneornil(L, 3) ? -1 : luaL_checkinteger(L, 3));
        break;
    case OP_RESERVE: {
        lua_Integer t = luaL_optinteger(L, 3, -1);
        luaL_argcheck(L, lua_isnoneornil(L, 3) || t >= 0, 3, "a start >= 0 or nil");
        rc = grove_sched_reserve(s, id, t);
        break;
    }
    case OP_START:
        rc = grove_sched_start(s, id);
        break;
    case OP_REQUEUE:
        rc = grove_sched_requeue(s, id);
        break;
    }
    return done(L, rc, id);
}

static const char *const state_names[] = {"pending", "reserved", "running"};

static int l_job(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    const grove_sched_job_t *j = grove_sched_job(s, check_id(L, 2));
    if (!j) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 9);
    grovel_set_integer(L, "id", (lua_Integer)j->id);
    grovel_set_number(L, "policy_priority", j->policy_priority);
    grovel_set_integer(L, "priority", (lua_Integer)j->priority);
    grovel_set_integer(L, "userid", (lua_Integer)j->userid);
    grovel_set_number(L, "t_submit", j->t_submit);
    grovel_set_integer(L, "duration", (lua_Integer)j->duration);
    grovel_set_string(L, "state", state_names[j->state]);
    if (j->reserved >= 0)
        grovel_set_integer(L, "reserved", (lua_Integer)j->reserved);
    if (j->start >= 0)
        grovel_set_integer(L, "start", (lua_Integer)j->start);
    return 1;
}

static int l_ids(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    size_t len = grove_sched_queue_length(s);
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_createtable(L, (int)(len & 0x3fffffff), 0);
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_settop(L, 2);
    }
    lua_Integer n = 0;
    for (const grove_sched_job_t *j = grove_sched_first(s); j; j = grove_sched_next(s, j)) {
        lua_pushinteger(L, (lua_Integer)j->id);
        lua_rawseti(L, 2, ++n);
    }
    /* clear what a longer list left in t */
    for (lua_Integer k = n + 1; lua_rawgeti(L, 2, k) != LUA_TNIL; k++) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, 2, k);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, n);
    return 2;
}

static int l_position(lua_State *L)
{
    size_t pos = grove_sched_position(check_sched(L), check_id(L, 2));
    if (pos)
        lua_pushinteger(L, (lua_Integer)pos);
    else
        lua_pushnil(L);
    return 1;
}

static int l_next(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    const grove_sched_job_t *j = NULL;
    bool fit = !lua_isnoneornil(L, 3);
    lua_Number units = fit ? luaL_checknumber(L, 3) : 0;
    if (!lua_isnoneornil(L, 2)) {
        j = grove_sched_job(s, check_id(L, 2));
        if (!j || j->state == GROVE_SCHED_RUNNING) {
            lua_pushnil(L);
            return 1;
        }
    }
    if (fit)
        j = grove_sched_next_fit(s, j, units);
    else
        j = j ? grove_sched_next(s, j) : grove_sched_first(s);
    if (j)
        lua_pushinteger(L, (lua_Integer)j->id);
    else
        lua_pushnil(L);
    return 1;
}

enum { N_VERSION, N_LENGTH, N_NOW };

static int l_number(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    switch (grovel_uparg(L)) {
    case N_VERSION:
        lua_pushinteger(L, (lua_Integer)grove_sched_version(s));
        break;
    case N_LENGTH:
        lua_pushinteger(L, (lua_Integer)grove_sched_queue_length(s));
        break;
    default:
        lua_pushinteger(L, (lua_Integer)grove_sched_now(s));
        break;
    }
    return 1;
}

static int l_set_now(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    lua_Integer t = luaL_checkinteger(L, 2);
    if (grove_sched_set_now(s, t) < 0)
        return luaL_argerror(L, 2, "the clock cannot go back");
    return grovel_ok(L);
}

static int l_count_match(lua_State *L)
{
    grove_sched_t *s = check_sched(L);
    grove_sched_count_match(s, lua_toboolean(L, 2), luaL_optnumber(L, 3, -1));
    return 0;
}

static int l_stats(lua_State *L)
{
    grove_sched_stats_t st;
    grove_sched_stats(check_sched(L), &st);
    lua_createtable(L, 0, 12);
    grovel_set_integer(L, "matched", (lua_Integer)st.matched);
    grovel_set_integer(L, "failed", (lua_Integer)st.failed);
    grovel_set_number(L, "match_min", st.match_min);
    grovel_set_number(L, "match_avg", st.match_avg);
    grovel_set_number(L, "match_max", st.match_max);
    grovel_set_integer(L, "recent", (lua_Integer)st.recent);
    grovel_set_number(L, "recent_p50", st.recent_p50);
    grovel_set_number(L, "recent_p99", st.recent_p99);
    grovel_set_number(L, "recent_max", st.recent_max);
    grovel_set_integer(L, "queue_length", (lua_Integer)st.queue_length);
    grovel_set_integer(L, "running", (lua_Integer)st.running);
    grovel_set_integer(L, "jobs", (lua_Integer)st.jobs);
    return 1;
}

static int l_sched_units(lua_State *L)
{
    const grove_graph_t *g = grovel_check_graph(L, 1);
    grove_sym_t t = grove_graph_sym_lookup(g, luaL_checkstring(L, 2));
    lua_Integer total = 0;
    if (t != GROVE_SYM_NONE)
        for (grove_vid_t v = grove_graph_first_by_type(g, t); v != GROVE_VID_NONE;
             v = grove_vertex_next_same_type(g, v))
            total += (lua_Integer)grove_vertex_size(g, v);
    lua_pushinteger(L, total);
    return 1;
}

#include "api_sched.h"
