/* l_match.c: the matcher in Lua.
 *
 *   core.matcher(graph [, {default_duration = s, constraint_type = "node", or_slots = bool}])
 *   m:match(jobspec [, mode [, jobid [, {start =, ["end"] =, picks =, after =,
 *           limit =}]]])
 *       a job table, or nil, message, code [, resume]
 *       jobspec: a grove.jobspec, YAML or JSON text, or a table in canonical
 *       form; mode: "allocate" (default), "allocate_orelse_reserve",
 *       "allocate_with_satisfiability", "satisfiability",
 *       "without_allocating", "without_allocating_future", "grow" (more
 *       resources for job jobid over its window); a window (allocate,
 *       allocate_with_satisfiability, without_allocating) places the job
 *       there or fails;
 *       codes: EBUSY (not now), ENODEV (never), ECANCELED (the policy
 *       failed), EINVAL (a bad jobspec), EEXIST (the job id is in use),
 *       ETIMEDOUT (limit = seconds given: the search for a later start
 *       stopped at its time limit; it goes on with after = resume)
 *   job table: {id =, state = "allocated" | "reserved" | "matched",
 *               start =, ["end"] = (absent: forever),
 *               spread = (slots placed across locality domains, absent
 *               when none: no node had room for them within one),
 *               picks = {{vertex =, amount =, exclusive =}, ...}}
 *       (option picks = false: the table without its picks, for callers
 *       that read them in C, such as a writer, or not at all: the job is
 *       kept compact, what lies below the vertices it holds whole listed
 *       when it is read whole; start and end: the window)
 *   m:set_policy(name | policy)  m:policy()  m:graph()
 *       (a policy naming a type the graph does not know in prune_types,
 *       score_types, order's when or score_reads is refused: nil,
 *       "FILE:LINE: FIELD: unknown resource type 'NAME' (did you mean
 *       'X'?): the graph has ...", EINVAL; the policy in use stays)
 *   m:known_types()  the resource types a jobspec matched here may name (the
 *       graph's and the standard ones); text and tables given to m:match
 *       and m:fits_idle are read with this list, so a type no graph has
 *       (fpga) is refused as it is read: nil, "PATH: unknown resource type
 *       'fpga'", EINVAL
 *   m:prepare()  builds now what the first match would (true, or nil, msg,
 *       code)
 *   m:fits_idle(jobspec)  would it fit now if no job held anything, on the
 *       vertices that are up: true or false, or nil, message, code (one
 *       match that ignores records, not a copy of the graph; under a Lua
 *       policy the built-in "first" decides, so no hook runs)
 *   m:cancel(id)  m:cancel({id...}) (at once: the number cancelled)
 *   m:release_ranks(id, idset)  m:release_vertices(id, {v...})
 *   m:job(id [, picks])  m:jobs([picks])  m:info(id)  m:stats()  m:reset_stats()  m:next_id()
 *       (stats: {matches =, succeeded =, min =, max =, mean = (seconds),
 *       held = the jobs held now, ranks_kept = the rankings mended from
 *       a kept one (grove_policy_t.score_local) or a static order's
 *       list across levels given again, blocks_passed = the
 *       children of wide vertices passed by their block's aggregate or
 *       constraint verdict,
 *       idle_pruned = windows ruled out for too few nodes wholly idle,
 *       slots_resumed = slots placed on the home of the slot before them
 *       without a walk from the root)})
 *   m:replan(id)  m:set_now(t)  m:events([{clear = true}])
 *   m:register(R, id [, {start =, ["end"] =, request =, free =}])   a running job
 *       placed again from its R (a grove.rv1 or JSON text; see register.h):
 *       the job table, or nil, message, code (EBUSY: not free)
 *   m:request(id)   the job's request as JSON text, or nil, message, code
 *   m:set_dominant(subsystem | nil)  m:dominant()   the subsystem the walk
 *       follows (default containment)
 *   m:set_overdue("end" | "report")   (the clock: see match.h)
 *   m:close(), <close>, tostring(m)
 *   core.trim_memory()   true: the allocator's free pages go back to the
 *       system (at a quiet point, such as a session's last job gone)
 *
 * Workload: one m:match per scheduling attempt from scenario scripts and
 * the REPL.  The C matcher does the work; this file converts arguments and
 * results, and wraps a match under a Lua policy in the policy's sandbox
 * (see l_policy.c): between grovel_policy_begin and grovel_policy_end
 * nothing here may raise.
 *
 * The matcher keeps its graph alive (user value 1) and its Lua policy (user
 * value 2).  Closing the matcher keeps the graph's records (cancel jobs first to
 * clear them), as grove_matcher_destroy does.
 *
 * This file holds the matcher class (a generic handle of grovel.h) and the
 * conversion of jobs to tables; the policy, its views and the jobspec
 * userdata belong to their own files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "idset.h"
#include "limit.h"
#include "lgraph.h"
#include "lpolicy.h"
#include "match.h"
#include "register.h"
#include "rv1.h"

struct lmatcher {
    union {
        grovel_handle_t h; /* the generic handle's view of m */
        grove_matcher_t *m; /* NULL once closed */
    };
    bool lua_policy;         /* user value 2 holds the policy in use */
    bool running;            /* a match is in progress */
};

static const char *const modes[] = {"allocate",
                                    "allocate_orelse_reserve",
                                    "allocate_with_satisfiability",
                                    "satisfiability",
                                    "without_allocating",
                                    "without_allocating_future",
                                    "grow",
                                    NULL};
#define MODE_GROW 6 /* "grow": not a grove_match mode (grove_match_grow) */

static const char *const states[] = {"allocated", "reserved", "matched"};

/* The graph userdata of the matcher at idx (raises when it was closed). */
static struct grovel_graph *matcher_graph(lua_State *L, int idx)
{
    return grovel_owner_graph(L, idx, "matcher");
}

static void describe(lua_State *L, void *p);
static void closable(lua_State *L, void *ud);

static const grovel_class_t matcher_class; /* defined by api.tsv */

static struct lmatcher *check_matcher(lua_State *L, int idx)
{
    grovel_handle_check(L, idx, &matcher_class);
    struct lmatcher *lm = lua_touserdata(L, idx);
    if (lm->running)
        luaL_argerror(L, idx, "matcher is running a match");
    matcher_graph(L, idx);
    return lm;
}

grove_matcher_t *grovel_check_matcher(lua_State *L, int idx)
{
    return check_matcher(L, idx)->m;
}

static int l_matcher_new(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    grove_match_config_t cfg = {0, NULL, false};
    static const char *const options[] = {GROVEL_MATCHER_OPTIONS, NULL};
    if (grovel_options(L, 2))
        for (int o; (o = grovel_next_option(L, 2, options)) >= 0; lua_pop(L, 1)) {
            if (o == 0) {
                int isint;
                lua_Integer d = lua_tointegerx(L, -1, &isint);
                luaL_argcheck(L, isint && d >= 0, 2,
                              "default_duration must be a non-negative integer (seconds)");
                cfg.default_duration = d;
            } else if (o == 1) {
                luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 2,
                              "constraint_type must be a type name");
                cfg.constraint_type = lua_tostring(L, -1); /* anchored in the table */
            } else {
                luaL_argcheck(L, lua_type(L, -1) == LUA_TBOOLEAN, 2, "or_slots must be a boolean");
                cfg.or_slots = lua_toboolean(L, -1);
            }
        }
    struct lmatcher *lm = (struct lmatcher *)grovel_handle_new(L, &matcher_class);
    int ud = lua_gettop(L);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, ud, 1);
    lm->m = grove_matcher_create(gr->g, &cfg);
    if (!lm->m && errno == EBUSY)
        return grovel_fail_errno(L, EBUSY,
                                 "cannot create a matcher: another matcher holds jobs on the "
                                 "graph (a graph keeps the jobs of one matcher at a time)");
    if (!lm->m)
        return grovel_fail_errno(L, ENOMEM, "cannot create a matcher: out of memory");
    return 1;
}

/* ---- results -------------------------------------------------------------------- */

/* Push the table of j's id, state, start and end (absent: for ever). */
static void push_job_head(lua_State *L, const grove_job_t *j)
{
    lua_createtable(L, 0, 5);
    grovel_set_integer(L, "id", (lua_Integer)j->id);
    grovel_set_string(L, "state",
                       states[j->state <= GROVE_JOB_MATCHED ? j->state : GROVE_JOB_MATCHED]);
    grovel_set_integer(L, "start", (lua_Integer)j->start);
    if (j->end != GROVE_TIME_MAX) {
        grovel_set_integer(L, "end", (lua_Integer)j->end);
    }
    if (j->spread)
        grovel_set_integer(L, "spread", (lua_Integer)j->spread);
}

/* Push the job as a table; graph_idx is the graph userdata, 0 for no
 * picks. */
static void push_job(lua_State *L, const grove_job_t *j, int graph_idx)
{
    push_job_head(L, j);
    if (!graph_idx)
        return;
    lua_createtable(L, (int)j->npicks, 0);
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        lua_createtable(L, 0, 3);
        grovel_push_vertex(L, graph_idx, p->v);
        lua_setfield(L, -2, "vertex");
        grovel_set_integer(L, "amount", (lua_Integer)p->amount);
        grovel_set_boolean(L, "exclusive", p->exclusive);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "picks");
}

/* Push the resource types a jobspec matched on g may name as a list
 * (grovel_type_known says which). */
static void push_known_types(lua_State *L, const grove_graph_t *g)
{
    const char *const *standard = grovel_standard_types;
    lua_newtable(L);
    lua_Integer n = 0;
    for (int i = 0; standard[i]; i++) {
        lua_pushstring(L, standard[i]);
        lua_rawseti(L, -2, ++n);
    }
    const char *s;
    for (grove_sym_t sym = 0; (s = grove_graph_str(g, sym)); sym++) {
        if (grove_graph_count_type(g, sym) == 0)
            continue;
        lua_pushstring(L, s);
        lua_rawseti(L, -2, ++n);
    }
}

/* m:known_types() -> the list push_known_types makes, for readers of
 * jobspecs (grove.query, grove.sim) */
static int m_known_types(lua_State *L)
{
    push_known_types(L, grove_matcher_graph(grovel_check_matcher(L, 1)));
    return 1;
}

/* The jobspec argument at idx: a jobspec userdata, or text or a table
 * converted through the module's jobspec_parse / jobspec_from_table, with
 * the resource types the matcher at 1 knows (the new userdata replaces
 * the argument, so it lives until the call returns).  NULL with nil,
 * message, code pushed when the text or table is not a valid jobspec or
 * names a type unknown to the graph. */
static const grove_jobspec_t *to_jobspec(lua_State *L, int idx)
{
    int t = lua_type(L, idx);
    if (t == LUA_TUSERDATA)
        return grovel_check_jobspec(L, idx);
    if (t != LUA_TSTRING && t != LUA_TTABLE)
        luaL_typeerror(L, idx, "jobspec, YAML or JSON text, or table");
    const char *fn = t == LUA_TSTRING ? "jobspec_parse" : "jobspec_from_table";
    if (lua_getfield(L, GROVEL_UPMODULE, fn) != LUA_TFUNCTION)
        luaL_error(L, "grove.core has no %s", fn);
    lua_pushvalue(L, idx);
    lua_createtable(L, 0, 1);
    push_known_types(L, grove_matcher_graph(grovel_check_matcher(L, 1)));
    lua_setfield(L, -2, "types");
    lua_call(L, 2, 3);
    if (lua_isnil(L, -3))
        return NULL;
    lua_pop(L, 2);
    lua_replace(L, idx);
    return grovel_check_jobspec(L, idx);
}

/* A window {start =, ["end"] =} at idx (none: nil), in *start and *end
 * (end 0 when absent: the jobspec's duration).  Raises on misuse. */
/* The options of m:match at idx (nil, or a table): a window (start, and
 * end or 0 for the default duration; true when given) and whether the
 * result carries its picks (*picks, left as it is when not said). */
static bool check_window(lua_State *L, int idx, int64_t *start, int64_t *end, bool *picks)
{
    if (lua_isnoneornil(L, idx))
        return false;
    luaL_checktype(L, idx, LUA_TTABLE);
    static const char *const options[] = {"start", "end", "after", "picks", "limit", "busy",
                                          NULL};
    grovel_check_keys(L, idx, options, idx, "unknown option '%s'");
    if (lua_getfield(L, idx, "picks") != LUA_TNIL)
        *picks = lua_toboolean(L, -1);
    int ts = lua_getfield(L, idx, "start");
    int te = lua_getfield(L, idx, "end");
    if (ts == LUA_TNIL && te == LUA_TNIL) {
        lua_pop(L, 3);
        return false;
    }
    if (ts != LUA_TNUMBER || !lua_isinteger(L, -2))
        luaL_argerror(L, idx, "window: start must be an integer");
    if (te != LUA_TNIL && (te != LUA_TNUMBER || !lua_isinteger(L, -1)))
        luaL_argerror(L, idx, "window: end must be an integer");
    *start = (int64_t)lua_tointeger(L, -2);
    *end = te == LUA_TNIL ? 0 : (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 3);
    return true;
}

/* The option after = t of m:match's options at idx: true with *after set
 * when given.  Raises on misuse. */
static bool check_after(lua_State *L, int idx, int64_t *after)
{
    if (lua_isnoneornil(L, idx))
        return false;
    int ty = lua_getfield(L, idx, "after");
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (ty != LUA_TNUMBER || !lua_isinteger(L, -1))
        luaL_argerror(L, idx, "after: an integer time expected");
    *after = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return true;
}

/* The option busy = true of m:match's options at idx: a failed match
 * answers EBUSY without looking whether it could ever fit
 * (grove_matcher_set_tell_never).  Raises on misuse. */
static bool check_busy(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx))
        return false;
    int ty = lua_getfield(L, idx, "busy");
    if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
        luaL_argerror(L, idx, "busy: a boolean expected");
    bool busy = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return busy;
}

/* The option limit = seconds of m:match's options at idx (0: none).
 * Raises on misuse. */
static double check_limit(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx))
        return 0;
    int ty = lua_getfield(L, idx, "limit");
    double limit = 0;
    if (ty != LUA_TNIL && ty != LUA_TNUMBER)
        luaL_argerror(L, idx, "limit: a number of seconds expected");
    if (ty == LUA_TNUMBER)
        limit = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return limit;
}

int grovel_fail_resume(lua_State *L, const grove_matcher_t *m, int e, const char *why)
{
    int n = grovel_fail_errno(L, e, why);
    if (e != ETIMEDOUT)
        return n;
    lua_pushinteger(L, (lua_Integer)grove_matcher_resume_at(m));
    return n + 1;
}

/* The match m:match asks for: grove_match, in a chosen window, not before
 * a time, or a grow. */
static int run_match(grove_matcher_t *m, const grove_jobspec_t *js, int mode, grove_jobid_t id,
                     const int64_t *win, const int64_t *after, const grove_job_t **job,
                     grove_error_t *err)
{
    if (mode == MODE_GROW)
        return grove_match_grow(m, js, id, job, err);
    if (win)
        return grove_match_window(m, js, (grove_match_mode_t)mode, id, win[0], win[1], job, err);
    if (after)
        return grove_match_after(m, js, (grove_match_mode_t)mode, id, *after, job, err);
    return grove_match(m, js, (grove_match_mode_t)mode, id, job, err);
}

static int m_match(lua_State *L)
{
    (void)check_matcher(L, 1);
    grovel_refuse_failure(L, 2); /* m:match(core.jobspec_load(missing)) */
    int mode = grovel_check_option(L, 3, "allocate", modes, "mode");
    grove_jobid_t id = lua_isnoneornil(L, 4) ? 0 : grovel_check_job(L, 4);
    if (mode == MODE_GROW && id == 0)
        luaL_argerror(L, 4, "grow: the id of the job to grow expected");
    int64_t win[2];
    bool picks = true;
    bool windowed = check_window(L, 5, &win[0], &win[1], &picks);
    if (windowed && mode == MODE_GROW)
        luaL_argerror(L, 5, "grow: the window is the job's own");
    int64_t after = 0;
    bool has_after = check_after(L, 5, &after);
    if (has_after && (windowed || mode == MODE_GROW))
        luaL_argerror(L, 5, "after: not with a window or a grow");
    double limit = check_limit(L, 5);
    /* a job whose picks are not read here is kept compact: what lies
     * below the vertices it holds whole is listed when it is read whole
     * (m:job, m:jobs), not at every match (an estimate's reservation of
     * 512 whole nodes, made and dropped at each pass) */
    unsigned flags = (check_busy(L, 5) ? GROVEL_MATCH_BUSY : 0)
                     | (picks ? 0 : GROVEL_MATCH_COMPACT);
    lua_settop(L, 4);
    const grove_jobspec_t *js = to_jobspec(L, 2);
    if (!js) {
        const char *code = lua_tostring(L, -1);
        return grovel_fail(L, lua_tostring(L, -2), code ? code : "EINVAL");
    }
    lua_settop(L, 4);
    lua_getiuservalue(L, 1, 1); /* 5: graph */
    grove_error_t err = {{0}, 0};
    const grove_job_t *job = NULL;
    const char *why = NULL;
    int rc = grovel_match_guarded(L, 1, js, mode, id, windowed ? win : NULL,
                                  has_after ? &after : NULL, limit, flags, &job, &err, &why);
    if (rc < 0)
        return grovel_fail_resume(L, check_matcher(L, 1)->m, errno, why);
    push_job(L, job, picks ? 5 : 0);
    return 1;
}

/* When js names a type no request on g may name (grovel_type_known, a
 * misspelt "cores"), fill err as the jobspec reader does for a text read
 * with the graph's types ("SOURCE:LINE: resources[0].with[1].type: unknown
 * resource type 'cores' (did you mean 'core'?)") and return true: a
 * jobspec read without them (core.jobspec_parse(text), then m:match(js))
 * is told what a text or table handed to m:match is, not "no cores in
 * the graph".  Asked only of a match that found the request never
 * satisfiable, so a request of known types pays nothing for it. */
static bool unknown_type(lua_State *L, const grove_graph_t *g, const grove_jobspec_t *js,
                         grove_error_t *err)
{
    size_t n = grove_jobspec_resource_total(js);
    for (size_t i = 0; i < n; i++) {
        const grove_jobspec_resource_t *r = grove_jobspec_resource_at(js, i);
        const char *type = grove_jobspec_resource_type(r);
        if (grove_jobspec_resource_is_slot(r) || grovel_type_known(g, type))
            continue;
        /* where it is, as the reader names it: resources[i].with[j]... */
        const grove_jobspec_resource_t *chain[GROVE_NEST_MAX];
        size_t depth = 0;
        for (const grove_jobspec_resource_t *a = r; a && depth < GROVE_NEST_MAX;
             a = grove_jobspec_resource_parent(a))
            chain[depth++] = a;
        char path[512];
        size_t len = 0;
        for (size_t d = depth; d-- > 0 && len < sizeof(path);) {
            const grove_jobspec_resource_t *up = grove_jobspec_resource_parent(chain[d]);
            const grove_jobspec_resource_t *sib = up ? grove_jobspec_resource_child(up)
                                                     : grove_jobspec_resource_first(js);
            size_t k = 0;
            for (; sib && sib != chain[d]; sib = grove_jobspec_resource_next(sib))
                k++;
            int w = snprintf(path + len, sizeof(path) - len, "%s[%zu]",
                             up ? ".with" : "resources", k);
            len = w < 0 ? sizeof(path) : len + (size_t)w;
        }
        char hint[128];
        grovel_type_hint(L, L, g, type, hint, sizeof(hint));
        grove_error_set(err, grove_jobspec_source(js), grove_jobspec_resource_line(r),
                        "%s.type: unknown resource type '%s'%s", path, type, hint);
        return true;
    }
    return false;
}

int grovel_match_guarded(lua_State *L, int idx, const grove_jobspec_t *js, int mode,
                         grove_jobid_t id, const int64_t *win, const int64_t *after,
                         double limit, unsigned flags, const grove_job_t **job,
                         grove_error_t *err, const char **why)
{
    idx = lua_absindex(L, idx);
    struct lmatcher *lm = check_matcher(L, idx);
    struct grovel_graph *gr = matcher_graph(L, idx);
    lua_getiuservalue(L, idx, 2); /* the policy or nil */
    int pidx = lua_gettop(L);
    struct grovel_policy *p = lm->lua_policy ? grovel_test_policy(L, pidx) : NULL;
    if (lm->lua_policy && (!p || !grovel_policy_is_open(p)))
        return luaL_error(L, "the matcher's policy was closed: set another one");
    bool sandboxed = p && grovel_policy_needs_lua(p);
    if (sandboxed)
        grovel_policy_begin(L, pidx, lm, gr->g);
    /* nothing may raise from here to grovel_policy_end */
    lm->running = true;
    gr->busy++;
    grove_matcher_set_search_limit(lm->m, limit);
    grove_matcher_set_compact(lm->m, flags & GROVEL_MATCH_COMPACT);
    grove_matcher_set_tell_never(lm->m, !(flags & GROVEL_MATCH_BUSY));
    int rc = run_match(lm->m, js, mode, id, win, after, job, err);
    int e = errno;
    grove_matcher_set_tell_never(lm->m, true);
    grove_matcher_set_compact(lm->m, false);
    grove_matcher_set_search_limit(lm->m, 0);
    gr->busy--;
    lm->running = false;
    if (sandboxed) {
        grovel_policy_end(L, p);
        grovel_log_flush(L); /* the policy's log lines, to the host's function */
    }
    *why = NULL;
    if (rc < 0 && e == ENODEV && unknown_type(L, gr->g, js, err))
        e = EINVAL;
    if (rc < 0) {
        *why = err->text[0] ? err->text : NULL;
        if (e == ECANCELED) /* the policy's message lives as long as the policy */
            *why = p && grovel_policy_error(p) ? grovel_policy_error(p)
                                               : *why ? *why : "the policy failed";
    }
    lua_pop(L, 1);
    errno = e;
    return rc;
}

int grovel_match_builtin(lua_State *L, int idx, const grove_jobspec_t *js,
                         grove_match_mode_t mode, grove_jobid_t id, const grove_job_t **job,
                         grove_error_t *err)
{
    struct lmatcher *lm = check_matcher(L, idx);
    if (lm->lua_policy)
        return 1;
    struct grovel_graph *gr = matcher_graph(L, idx);
    lm->running = true;
    gr->busy++;
    int rc = grove_match(lm->m, js, mode, id, job, err);
    int e = errno;
    gr->busy--;
    lm->running = false;
    errno = e;
    return rc;
}

static int m_fits_idle(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    struct grovel_graph *gr = matcher_graph(L, 1);
    lua_settop(L, 2);
    const grove_jobspec_t *js = to_jobspec(L, 2);
    if (!js) {
        const char *code = lua_tostring(L, -1);
        return grovel_fail(L, lua_tostring(L, -2), code ? code : "EINVAL");
    }
    grove_error_t err = {{0}, 0};
    lm->running = true;
    gr->busy++;
    int rc = grove_match_fits_idle(lm->m, js, lm->lua_policy ? grove_policy_builtin("first") : NULL,
                                   &err);
    int e = errno;
    gr->busy--;
    lm->running = false;
    if (rc < 0)
        return grovel_fail_errno(L, e, err.text[0] ? err.text : NULL);
    lua_pushboolean(L, rc);
    return 1;
}

/* ---- the job table ----------------------------------------------------------------- */

/* nil, message, code for job id, which the table does not give: none
 * with that id, or (ENOMEM) a compact reservation not listed whole. */
static int no_job(lua_State *L, grove_jobid_t id)
{
    if (errno == ENOMEM)
        return grovel_fail_errno(L, ENOMEM, lua_pushfstring(L, "job %I: out of memory listing "
                                                               "its picks", (lua_Integer)id));
    return grovel_fail_errno(L, ENOENT, lua_pushfstring(L, "no job %I", (lua_Integer)id));
}

/* The job of the matcher at 1 whose id is argument 2, or NULL with nil,
 * message, "ENOENT" pushed. */
/* The job of argument 2, listed whole unless only its head is read
 * (whole false: grove_matcher_job_kept), or NULL with nil, msg, code
 * pushed. */
static const grove_job_t *check_job_arg(lua_State *L, bool whole)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    grove_matcher_catch_up(lm->m); /* the graph's clock may have moved */
    const grove_job_t *j = whole ? grove_matcher_job(lm->m, id) : grove_matcher_job_kept(lm->m, id);
    if (!j)
        no_job(L, id);
    return j;
}

static int m_job(lua_State *L)
{
    bool picks = lua_isnoneornil(L, 3) || lua_toboolean(L, 3);
    const grove_job_t *j = check_job_arg(L, picks);
    if (!j)
        return 3;
    lua_getiuservalue(L, 1, 1);
    push_job(L, j, picks ? lua_gettop(L) : 0);
    return 1;
}

/* m:rv1(id [, {graph = true}]) -> the job's R (an R object), or nil, msg, code */
static int m_rv1(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    int flags = 0;
    double exp = -1; /* the job's end, unless the caller gives another */
    if (!lua_isnoneornil(L, 3)) {
        static const char *const options[] = {"graph", "expiration", NULL};
        luaL_checktype(L, 3, LUA_TTABLE);
        grovel_check_keys(L, 3, options, 3, "unknown option '%s'");
        if (lua_getfield(L, 3, "graph") != LUA_TNIL && lua_toboolean(L, -1))
            flags |= GROVE_RV1_WITH_GRAPH;
        if (lua_getfield(L, 3, "expiration") != LUA_TNIL) {
            int isnum = 0;
            exp = lua_tonumberx(L, -1, &isnum);
            if (!isnum || !(exp >= 0))
                return luaL_error(L, "bad option 'expiration' (a number >= 0 expected)");
        }
        lua_pop(L, 2);
    }
    /* a compact job's R is written from the vertices it holds whole: not
     * listed for it */
    const grove_job_t *j = grove_matcher_job_kept(lm->m, id);
    if (!j)
        return no_job(L, id);
    grovel_handle_t *R = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    R->p = grove_rv1_from_job(grove_matcher_graph(lm->m), j, flags, &err);
    if (!R->p)
        return grovel_fail_err(L, errno, &err);
    /* 0: no expiration written (a job with no end of its own) */
    if (exp >= 0 && grove_rv1_set_times(R->p, grove_rv1_starttime(R->p), exp) < 0)
        return grovel_fail_errno(L, errno, "expiration is not after the job's start");
    return 1;
}

/* m:jobs([picks]) -> the held jobs, an array in id order, with their picks unless picks
 * is false (then only their heads: what a listing needs). */
static int m_jobs(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    bool picks = lua_isnoneornil(L, 2) || lua_toboolean(L, 2);
    grove_matcher_catch_up(lm->m); /* the graph's clock may have moved */
    lua_getiuservalue(L, 1, 1);
    int graph = picks ? lua_gettop(L) : 0;
    size_t n = grove_matcher_job_count(lm->m);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        push_job(L, grove_matcher_job_at(lm->m, i), graph);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* info(id) -> {id =, state =, start =, ["end"] =, counts = {type = units}}:
 * units summed over the picks (whole vertices count 1, pools their units). */
static int m_info(lua_State *L)
{
    const grove_job_t *j = check_job_arg(L, true);
    if (!j)
        return 3;
    const grove_graph_t *g = grove_matcher_graph(grovel_check_matcher(L, 1));
    bool counts = lua_isnoneornil(L, 3) || lua_toboolean(L, 3);
    push_job_head(L, j);
    grovel_set_integer(L, "picks", (lua_Integer)j->npicks);
    if (!counts)
        return 1;
    lua_newtable(L);
    for (size_t i = 0; i < j->npicks; i++) {
        const char *type = grove_vertex_type(g, j->picks[i].v);
        lua_Integer n = lua_getfield(L, -1, type) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        grovel_set_integer(L, type, n + (lua_Integer)j->picks[i].amount);
    }
    lua_setfield(L, -2, "counts");
    return 1;
}

/* m:cancel(id) -> true, or m:cancel({id, ...}) -> the number cancelled
 * (at once; ids that are no job passed over) */
static int m_cancel(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    if (lua_type(L, 2) != LUA_TTABLE) {
        grove_jobid_t id = grovel_check_job(L, 2);
        if (grove_matcher_cancel(lm->m, id) < 0)
            return no_job(L, id);
        return grovel_ok(L);
    }
    lua_Integer n = luaL_len(L, 2);
    grove_jobid_t *ids = n > 0 ? lua_newuserdatauv(L, (size_t)n * sizeof(*ids), 0) : NULL;
    for (lua_Integer k = 1; k <= n; k++) {
        int isnum;
        lua_geti(L, 2, k);
        lua_Integer id = lua_tointegerx(L, -1, &isnum);
        if (!isnum || id < 0)
            return luaL_error(L, "bad argument #1 to 'cancel' (entry %I: a job id expected)", k);
        ids[k - 1] = (grove_jobid_t)id;
        lua_pop(L, 1);
    }
    long done = grove_matcher_cancel_many(lm->m, ids, (size_t)n);
    if (done < 0)
        return grovel_fail_errno(L, ENOMEM, "out of memory");
    lua_pushinteger(L, done);
    return 1;
}

/* release_ranks(id, idset) -> released, removed */
static int m_release_ranks(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    const char *text = lua_type(L, 3) == LUA_TUSERDATA ? luaL_tolstring(L, 3, NULL)
                                                       : luaL_checkstring(L, 3);
    grove_error_t err = {{0}, 0};
    grove_idset_t *ranks = grove_idset_decode(text, &err);
    if (!ranks)
        return grovel_fail_errno(L, errno == ENOMEM ? ENOMEM : EINVAL,
                                 err.text[0] ? err.text : NULL);
    bool removed = false;
    long n = grove_matcher_release_ranks(lm->m, id, ranks, &removed);
    grove_idset_destroy(ranks);
    if (n < 0)
        return errno == ENOENT ? no_job(L, id) : grovel_fail_errno(L, errno, NULL);
    lua_pushinteger(L, n);
    lua_pushboolean(L, removed);
    return 2;
}

/* release_vertices(id, {v, ...}) -> released, removed */
static int m_release_vertices(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    struct grovel_graph *gr = matcher_graph(L, 1);
    size_t n = lua_rawlen(L, 3);
    grove_vid_t *vs = lua_newuserdatauv(L, (n ? n : 1) * sizeof(*vs), 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 3, (lua_Integer)i + 1);
        struct grovel_vertex *h = luaL_testudata(L, -1, GROVEL_VERTEX);
        if (!h || h->gr != gr)
            return luaL_argerror(L, 3, lua_pushfstring(L, "element %I is not a vertex of the "
                                                          "matcher's graph", (lua_Integer)i + 1));
        vs[i] = h->v;
        lua_pop(L, 1);
    }
    bool removed = false;
    long r = grove_matcher_release_vertices(lm->m, id, vs, n, &removed);
    if (r < 0) {
        if (errno == ENOENT)
            return no_job(L, id);
        return grovel_fail_errno(L, errno, lua_pushfstring(L, "job %I does not hold all of "
                                                              "these vertices", (lua_Integer)id));
    }
    lua_pushinteger(L, r);
    lua_pushboolean(L, removed);
    return 2;
}

static int m_prepare(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    if (grove_matcher_prepare(lm->m) < 0)
        return grovel_fail_errno(L, errno, NULL);
    return grovel_ok(L);
}

static int m_next_id(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    lua_pushinteger(L, (lua_Integer)grove_matcher_next_id(lm->m));
    return 1;
}

static int m_stats(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_match_stats_t st;
    grove_matcher_stats(lm->m, &st);
    grove_matcher_catch_up(lm->m); /* held: as m:jobs() counts them */
    lua_createtable(L, 0, 10);
    grovel_set_integer(L, "matches", (lua_Integer)st.matches);
    grovel_set_integer(L, "ranks_kept", (lua_Integer)st.ranks_kept);
    grovel_set_integer(L, "blocks_passed", (lua_Integer)st.blocks_passed);
    grovel_set_integer(L, "idle_pruned", (lua_Integer)st.idle_pruned);
    grovel_set_integer(L, "slots_resumed", (lua_Integer)st.slots_resumed);
    grovel_set_integer(L, "held", (lua_Integer)grove_matcher_job_count(lm->m));
    grovel_set_integer(L, "succeeded", (lua_Integer)st.succeeded);
    grovel_set_number(L, "min", st.min_s);
    grovel_set_number(L, "max", st.max_s);
    grovel_set_number(L, "mean", st.matches ? st.sum_s / (double)st.matches : 0);
    return 1;
}

static int m_reset_stats(lua_State *L)
{
    grove_matcher_stats_reset(check_matcher(L, 1)->m);
    return 0;
}

/* ---- policy ---------------------------------------------------------------------------- */

/* nil, "unknown policy 'NAME' (did you mean ...) (built-ins: ...)", ENOENT:
 * a name neither built in nor found (no finder is set: grove.core alone). */
static int unknown_policy(lua_State *L, const char *name)
{
    lua_newtable(L);
    const char *s;
    for (size_t i = 0; (s = grove_policy_builtin_name(i)); i++) {
        lua_pushstring(L, s);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    grovel_push_hint(L, name, -1);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    lua_pushfstring(L, "unknown policy '%s'%s (built-ins:", name, lua_tostring(L, -2));
    luaL_addvalue(&buf);
    for (size_t i = 0; (s = grove_policy_builtin_name(i)); i++) {
        luaL_addstring(&buf, i ? ", " : " ");
        luaL_addstring(&buf, s);
    }
    luaL_addstring(&buf, "; or a policy from grove.core.policy_load)");
    luaL_pushresult(&buf);
    return grovel_fail(L, lua_tostring(L, -1), "ENOENT");
}

/* Set the Lua policy at 2. */
static int set_lua_policy(lua_State *L, struct lmatcher *lm)
{
    struct grovel_policy *p = grovel_check_policy(L, 2);
    /* a policy loaded without a graph has its type names checked here */
    if (!grovel_policy_check_types(L, p, grove_matcher_graph(lm->m)))
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    if (grove_matcher_set_policy(lm->m, grovel_policy_hooks(p)) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 1, 2);
    lm->lua_policy = true;
    return grovel_ok(L);
}

/* m:set_policy(name | path | policy): a built-in's C hooks, or a Lua
 * policy, loaded here from a path or a name (grovel_policy_named). */
static int m_set_policy(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grovel_refuse_failure(L, 2);
    lua_settop(L, 2);
    if (lua_type(L, 2) == LUA_TSTRING) {
        const char *name = lua_tostring(L, 2);
        const grove_policy_t *b = grove_policy_builtin(name);
        if (!b) {
            int r = grovel_policy_named(L, name);
            if (r == 0)
                return unknown_policy(L, name);
            if (r == 3)
                return 3;
            lua_replace(L, 2);
            return set_lua_policy(L, lm);
        }
        if (grove_matcher_set_policy(lm->m, b) < 0)
            return grovel_fail_errno(L, errno, NULL);
        lua_pushnil(L);
        lua_setiuservalue(L, 1, 2);
        lm->lua_policy = false;
        return grovel_ok(L);
    }
    if (grovel_test_policy(L, 2))
        return set_lua_policy(L, lm);
    return luaL_typeerror(L, 2, "policy name, path or grove.policy");
}

static int m_policy(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    lua_pushstring(L, grove_matcher_policy(lm->m)->name);
    return 1;
}

static int m_graph(lua_State *L)
{
    check_matcher(L, 1);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

/* ---- life ------------------------------------------------------------------------------- */

/* ---- re-planning and the clock ------------------------------------------------------ */

/* m:replan(id) -> the job placed again, or false (it fits nowhere and was
 * removed), or nil, message, code */
static int m_replan(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    grove_error_t err = {{0}, 0};
    const grove_job_t *j = NULL;
    struct grovel_graph *gr = matcher_graph(L, 1);
    gr->busy++;
    int rc = grove_matcher_replan(lm->m, id, &j, &err);
    int e = errno;
    gr->busy--;
    if (rc < 0)
        return grovel_fail_err(L, e, &err);
    if (rc == 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_getiuservalue(L, 1, 1);
    push_job(L, j, lua_gettop(L));
    return 1;
}

/* The R argument at idx: a grove.rv1 (borrowed) or JSON text (decoded
 * into *own, which the caller destroys); NULL with err filled. */
static const grove_rv1_t *register_rv1(lua_State *L, int idx, grove_rv1_t **own,
                                       grove_error_t *err)
{
    *own = NULL;
    const grovel_handle_t *h = luaL_testudata(L, idx, "grove.rv1");
    if (h) {
        if (!h->p)
            luaL_argerror(L, idx, "the R is closed");
        return h->p;
    }
    size_t len;
    const char *text = lua_tolstring(L, idx, &len);
    if (!text)
        luaL_typeerror(L, idx, "grove.rv1 or JSON text");
    return *own = grove_rv1_decode(text, len, "R", err);
}

/* m:register(R, id [, {start =, ["end"] =, request =, free =}]) -> job, or nil,
 * message, code */
static int m_register(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 3);
    grove_register_opts_t o;
    grove_register_opts_init(&o);
    if (!lua_isnoneornil(L, 4)) {
        static const char *const options[] = {"start", "end", "request", "free", NULL};
        luaL_checktype(L, 4, LUA_TTABLE);
        grovel_check_keys(L, 4, options, 4, "unknown option '%s'");
        if (lua_getfield(L, 4, "start") != LUA_TNIL)
            o.start = (int64_t)luaL_checkinteger(L, -1);
        if (lua_getfield(L, 4, "end") != LUA_TNIL)
            o.end = (int64_t)luaL_checkinteger(L, -1);
        if (lua_getfield(L, 4, "request") != LUA_TNIL)
            o.request = luaL_checkstring(L, -1); /* stays on the stack */
        if (o.start < -1 || o.end < 0)
            luaL_argerror(L, 4, "start and end must be >= 0");
    }
    grove_error_t err = {{0}, 0};
    grove_idset_t *freed = NULL;
    if (!lua_isnoneornil(L, 4) && lua_getfield(L, 4, "free") != LUA_TNIL) {
        const char *text = luaL_checkstring(L, -1);
        if (!(freed = grove_idset_decode(text, &err))) {
            grove_error_prefix(&err, "free");
            return grovel_fail_err(L, errno == ENOMEM ? ENOMEM : EINVAL, &err);
        }
        o.free = freed;
    }
    grove_rv1_t *own;
    const grove_rv1_t *R = register_rv1(L, 2, &own, &err);
    if (!R) {
        grove_idset_destroy(freed);
        return grovel_fail_err(L, errno == ENOMEM ? ENOMEM : EINVAL, &err);
    }
    const grove_job_t *j = NULL;
    int rc = grove_matcher_register(lm->m, R, id, &o, &j, &err);
    int e = errno;
    grove_rv1_destroy(own);
    grove_idset_destroy(freed);
    if (rc < 0)
        return grovel_fail_err(L, e, &err);
    lua_getiuservalue(L, 1, 1);
    push_job(L, j, lua_gettop(L));
    return 1;
}

/* m:request(id) -> the job's request as JSON text, or nil, message, code */
static int m_request(lua_State *L)
{
    const grove_job_t *j = check_job_arg(L, false);
    if (!j)
        return 3;
    char *text = grove_matcher_request(check_matcher(L, 1)->m, j->id);
    return grovel_return_string(L, text, errno,
                                errno == ENOENT ? "the job's request is not known" : NULL);
}

/* m:set_dominant(subsystem | nil) -> true */
static int m_set_dominant(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    const char *s = luaL_optstring(L, 2, NULL);
    luaL_argcheck(L, !s || s[0], 2, "empty subsystem name");
    if (grove_matcher_set_dominant(lm->m, s) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_pushboolean(L, 1);
    return 1;
}

static int m_dominant(lua_State *L)
{
    lua_pushstring(L, grove_matcher_dominant(check_matcher(L, 1)->m));
    return 1;
}

static const char *const event_names[] = {"start", "end", "overdue", "replanned", "dropped"};

/* Push the queued events from the first-th on as a list of {event =, id =,
 * at =}. */
static void push_events(lua_State *L, const grove_matcher_t *m, size_t first)
{
    size_t n = grove_matcher_event_count(m);
    lua_createtable(L, (int)(n - first), 0);
    for (size_t i = first; i < n; i++) {
        const grove_job_event_t *ev = grove_matcher_event_at(m, i);
        lua_createtable(L, 0, 3);
        grovel_set_string(L, "event", event_names[ev->kind]);
        grovel_set_integer(L, "id", (lua_Integer)ev->id);
        grovel_set_integer(L, "at", (lua_Integer)ev->at);
        lua_rawseti(L, -2, (lua_Integer)(i - first) + 1);
    }
}

/* m:set_now(t) -> the events this move caused (also queued), or nil,
 * message, code */
static int m_set_now(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    lua_Integer t = luaL_checkinteger(L, 2);
    luaL_argcheck(L, t >= 0, 2, "time must be >= 0");
    size_t first = grove_matcher_event_count(lm->m);
    if (grove_matcher_set_now(lm->m, (int64_t)t) < 0)
        return grovel_fail_errno(L, errno, NULL);
    push_events(L, lm->m, first);
    return 1;
}

/* m:events([{clear = true}]) -> the queued events (after catching up with
 * the graph's clock); clear empties the queue. */
static int m_events(lua_State *L)
{
    struct lmatcher *lm = check_matcher(L, 1);
    bool clear = false;
    if (!lua_isnoneornil(L, 2)) {
        static const char *const options[] = {"clear", NULL};
        luaL_checktype(L, 2, LUA_TTABLE);
        grovel_check_keys(L, 2, options, 2, "unknown option '%s'");
        clear = lua_getfield(L, 2, "clear") != LUA_TNIL && lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (grove_matcher_catch_up(lm->m) < 0)
        return grovel_fail_errno(L, errno, NULL);
    push_events(L, lm->m, 0);
    if (clear)
        grove_matcher_events_clear(lm->m);
    return 1;
}

/* m:set_overdue("end" | "report"): what a running job past its end does. */
static int m_set_overdue(lua_State *L)
{
    static const char *const how[] = {"end", "report", NULL};
    struct lmatcher *lm = check_matcher(L, 1);
    grove_matcher_set_overdue(lm->m, (grove_overdue_t)grovel_check_option(L, 2, NULL, how, "way"));
    return grovel_ok(L);
}

/* core.trim_memory() -> true: the allocator's free pages go back to the
 * system (glibc: malloc_trim; elsewhere nothing).  For a quiet point of a
 * long session, such as the moment its last job went: freed records,
 * spans and the session's garbage share pages with memory still in use,
 * which the allocator keeps otherwise.  Costs a walk of the free lists
 * (13 ms after 100,000 one-core jobs at 16,384 nodes). */
static int l_trim_memory(lua_State *L)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    lua_pushboolean(L, 1);
    return 1;
}

static void closable(lua_State *L, void *ud)
{
    if (((struct lmatcher *)ud)->running)
        luaL_argerror(L, 1, "matcher is running a match");
}

static void describe(lua_State *L, void *p)
{
    lua_pushfstring(L, "grove.matcher (policy %s, %I jobs)", grove_matcher_policy(p)->name,
                    (lua_Integer)grove_matcher_job_count(p));
}

#include "api_match.h"
