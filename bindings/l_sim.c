/* l_sim.c: the one call the batch-queue simulator (grove.sim) makes per
 * scheduling attempt, without the cost of a full job table.
 *
 *   core.sim_match(m, jobspec, mode, id [, type [, count [, after [, limit [, busy]]]]])
 *       -> state, start, end, {vid, ...} [, units]   or nil, message, code
 *          [, resume]
 *   core.sim_nodes(vids, of) -> {node, ...}
 *   core.sim_distinct(list, of) -> n
 *   core.sim_intervals(list, of) -> "0-63 65 70-71"
 *   core.sim_free(g, vids, type) -> units   or nil when a vertex keeps no
 *       aggregate of type
 *
 * The same match as m:match(jobspec, mode, id) with mode "allocate" or
 * "allocate_orelse_reserve" (EBUSY, ENODEV, EINVAL, EEXIST, ECANCELED as
 * there), made the same way (grovel_match_guarded: a Lua policy's hooks
 * run in its sandbox).  Instead of a table per pick holding a vertex handle it returns
 * the vertex ids of the picks, only those of the given type when type is
 * given, none when type is false (for a driver that reads none: a job of
 * 512 whole nodes has 25,000); a reserved job's list is empty (its picks
 * are read when it starts, m:job); end is nil for a job without one.  With count (a type name), also
 * the units of that type the job holds (its picks' amounts summed: what
 * m:info(id).counts[count] says, without the table).  With after (an
 * integer time, allocate_orelse_reserve only), no start before it, as
 * m:match's after option.  With limit (seconds), the search for a later
 * start stops once it has run that long (grove_matcher_set_search_limit):
 * nil, message, "ETIMEDOUT", resume: the caller goes on with after =
 * resume when it has done what it stopped for.  With busy true, a failed
 * match answers EBUSY without looking whether the request could ever fit
 * (grove_matcher_set_tell_never): a pass tries each waiting job again and
 * again, and the loop asked that once, when the job arrived.
 *
 * sim_nodes: the nodes a job holds, of[vid] for each vertex id of vids that of
 * knows, each once, in increasing order (of maps a vertex id to its node's
 * number).  The picks of a job of whole nodes number hundreds; reading
 * them in Lua a start at a time was a quarter of the simulator's Lua work.
 *
 * sim_distinct and sim_intervals read a started job's placement: how many
 * distinct of[x] its list holds (the locality domains of its cores, the
 * racks of its nodes), and the ids of[x] as an interval set written as
 * Batsim and evalys write them (ascending, runs as "a-b", separated by one
 * space).  sim_free sums what the pruning aggregates of the vertices vids
 * say is free of type now: the cores left free on a job's nodes.  Each is
 * asked once a job start; in Lua each was a loop over the job's picks.
 *
 * Workload: a simulation of 100,000 jobs on 4,096 nodes makes a few
 * hundred thousand matches of up to thousands of picks each; building a
 * handle and a table per pick cost more than the match itself.
 *
 * It must not hold any scheduling logic of the simulator (grove.sim, in
 * Lua) or a second way to match: it calls the same grove_match.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "aggregate.h"
#include "grovel.h"
#include "lgraph.h"
#include "match.h"

/* What a compact job's picks leave out, as sim_match reads it: the
 * vertex ids of a type (or all, with no type) and the units of another. */
struct below_read {
    grove_sym_t type_sym, count_sym;
    bool vids, all;
    grove_vid_t *v;
    size_t n, cap;
    lua_Integer units;
};

static int below_put(struct below_read *b, grove_vid_t v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        grove_vid_t *p = realloc(b->v, cap * sizeof(*p));
        if (!p) {
            errno = ENOMEM;
            return -1;
        }
        b->v = p;
        b->cap = cap;
    }
    b->v[b->n++] = v;
    return 0;
}

static int below_read(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    struct below_read *b = arg;
    grove_sym_t vt = grove_vertex_type_sym(g, v);
    if (b->count_sym != GROVE_SYM_NONE && vt == b->count_sym)
        b->units += (lua_Integer)grove_vertex_size(g, v);
    if (b->vids && (b->all || (vt == b->type_sym && vt != GROVE_SYM_NONE)))
        return below_put(b, v);
    return 0;
}

static int cmp_vid(const void *pa, const void *pb)
{
    grove_vid_t a = *(const grove_vid_t *)pa, b = *(const grove_vid_t *)pb;
    return (a > b) - (a < b);
}

/* sim_match's list and units of a started job kept compact (its R and
 * its counts come from the vertices it holds whole, not from a list of
 * what lies below them): what the job listed whole would give, the ids
 * ascending.  type NULL with vids: every vertex; count NULL: no units. */
static int compact_started(lua_State *L, grove_matcher_t *m, const grove_job_t *job, bool vids,
                           const char *type, grove_sym_t type_sym, const char *count,
                           grove_sym_t count_sym)
{
    const grove_graph_t *g = grove_matcher_graph(m);
    /* the list's memory, in a box made before it (freed if a push
     * raises); no Lua call is made while it grows */
    struct grovel_box *box = grovel_box_new(L, free);
    int bidx = lua_gettop(L);
    struct below_read b = {type_sym, count ? count_sym : GROVE_SYM_NONE, vids, !type, NULL, 0,
                           0, 0};
    int rc = 0;
    for (size_t i = 0; i < job->npicks && rc == 0; i++) {
        grove_vid_t v = job->picks[i].v;
        grove_sym_t vt = grove_vertex_type_sym(g, v);
        if (count && vt == count_sym && vt != GROVE_SYM_NONE)
            b.units += (lua_Integer)job->picks[i].amount;
        if (vids && (!type || (vt == type_sym && vt != GROVE_SYM_NONE)))
            rc = below_put(&b, v);
    }
    size_t own = b.n;
    /* one type asked for (the ids' and the units', or either alone):
     * only its vertices are looked at below the whole ones */
    grove_sym_t only = GROVE_SYM_NONE;
    if (!vids)
        only = count_sym;
    else if (type && (!count || count_sym == type_sym))
        only = type_sym;
    if (rc == 0 && (vids || count))
        rc = grove_job_each_below_whole(g, job, only, below_read, &b);
    box->p = b.v;
    if (rc < 0) {
        /* not read: not started either (the matcher as it was) */
        int e = errno;
        grove_matcher_cancel(m, job->id);
        return grovel_fail_errno(L, e, "sim_match: could not read the job's vertices");
    }
    if (b.n > own)
        qsort(b.v, b.n, sizeof(*b.v), cmp_vid);
    lua_createtable(L, (int)b.n, 0);
    for (size_t i = 0; i < b.n; i++) {
        lua_pushinteger(L, (lua_Integer)b.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    if (count)
        lua_pushinteger(L, b.units);
    free(box->p);
    box->p = NULL;
    lua_remove(L, bidx);
    return count ? 5 : 4;
}

static int l_sim_match(lua_State *L)
{
    static const char *const modes[] = {"allocate", "allocate_orelse_reserve", NULL};
    static const grove_match_mode_t mode_of[] = {GROVE_MATCH_ALLOCATE,
                                                 GROVE_MATCH_ALLOCATE_ORELSE_RESERVE};
    const grove_matcher_t *m = grovel_check_matcher(L, 1);
    const grove_jobspec_t *js = grovel_check_jobspec(L, 2);
    int mode = grovel_check_option(L, 3, NULL, modes, "mode");
    lua_Integer id = luaL_checkinteger(L, 4);
    luaL_argcheck(L, id > 0, 4, "job id must be > 0");
    bool no_vids = lua_isboolean(L, 5) && !lua_toboolean(L, 5);
    const char *type = no_vids ? NULL : luaL_optstring(L, 5, NULL);
    const char *count = luaL_optstring(L, 6, NULL);
    int64_t after = 0;
    bool has_after = !lua_isnoneornil(L, 7);
    if (has_after) {
        after = (int64_t)luaL_checkinteger(L, 7);
        luaL_argcheck(L, mode_of[mode] == GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 7,
                      "after: only with allocate_orelse_reserve");
    }
    double limit = luaL_optnumber(L, 8, 0);
    if (!lua_isnoneornil(L, 9))
        luaL_checktype(L, 9, LUA_TBOOLEAN);
    unsigned flags = GROVEL_MATCH_COMPACT | (lua_toboolean(L, 9) ? GROVEL_MATCH_BUSY : 0);
    grove_error_t err = {{0}, 0};
    const grove_job_t *job = NULL;
    const char *why = NULL;
    /* a reservation's picks are not read here: kept compact until they are
     * (grove_matcher_set_compact) */
    int rc = grovel_match_guarded(L, 1, js, (int)mode_of[mode], (grove_jobid_t)id, NULL,
                                  has_after ? &after : NULL, limit, flags, &job, &err, &why);
    if (rc < 0)
        return grovel_fail_resume(L, m, errno, why);
    const grove_graph_t *g = grove_matcher_graph(m);
    lua_pushstring(L, job->state == GROVE_JOB_ALLOCATED ? "allocated" : "reserved");
    lua_pushinteger(L, (lua_Integer)job->start);
    if (job->end != GROVE_TIME_MAX)
        lua_pushinteger(L, (lua_Integer)job->end);
    else
        lua_pushnil(L);
    if (job->state != GROVE_JOB_ALLOCATED) {
        /* a reservation's picks are read when it starts (m:job), not here:
         * the 50,000 of a job of 1,024 whole nodes, replanned at every
         * compression of a conservative queue, are not even listed */
        lua_createtable(L, 0, 0);
        if (!count)
            return 4;
        lua_pushnil(L);
        return 5;
    }
    /* the types by symbol, looked up once (a job of whole nodes has tens
     * of thousands of picks); a type the graph has no name for has no
     * vertex either */
    grove_sym_t type_sym = type ? grove_graph_sym_lookup(g, type) : GROVE_SYM_NONE;
    grove_sym_t count_sym = count ? grove_graph_sym_lookup(g, count) : GROVE_SYM_NONE;
    if (job->compact)
        return compact_started(L, grovel_check_matcher(L, 1), job, !no_vids, type, type_sym,
                               count, count_sym);
    lua_createtable(L, type || no_vids ? 0 : (int)job->npicks, 0);
    lua_Integer n = 0, units = 0;
    /* (nothing to read of the picks without vids or a count) */
    for (size_t i = 0; i < job->npicks && (count || !no_vids); i++) {
        grove_vid_t v = job->picks[i].v;
        grove_sym_t vt = type || count ? grove_vertex_type_sym(g, v) : GROVE_SYM_NONE;
        if (count && vt == count_sym && vt != GROVE_SYM_NONE)
            units += (lua_Integer)job->picks[i].amount;
        if (no_vids || (type && (vt != type_sym || vt == GROVE_SYM_NONE)))
            continue;
        lua_pushinteger(L, (lua_Integer)v);
        lua_rawseti(L, -2, ++n);
    }
    if (!count)
        return 4;
    lua_pushinteger(L, units);
    return 5;
}

static int cmp_integer(const void *a, const void *b)
{
    lua_Integer x = *(const lua_Integer *)a, y = *(const lua_Integer *)b;
    return (x > y) - (x < y);
}

/* The values of[x] for each x of the array at index 1 that of (index 2)
 * knows, in a new buffer (a userdata left on the stack), sorted, each once:
 * their number in *np.  fname names the caller in errors.  With ids (the
 * array holds vertex ids, of gives node numbers: sim_nodes) each x is read
 * as an integer, else it must be a number and is looked up as it is. */
static lua_Integer *mapped_sorted(lua_State *L, const char *fname, bool ids, lua_Integer *np)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    lua_Integer *out = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(*out), 0);
    lua_Integer k = 0;
    bool sorted = true;
    for (lua_Integer i = 1; i <= n; i++) {
        int isnum = 0;
        if (ids) {
            lua_rawgeti(L, 1, i);
            lua_Integer v = lua_tointegerx(L, -1, &isnum);
            lua_pop(L, 1);
            if (!isnum)
                luaL_error(L, "bad argument #1 to '%s' (vertex ids expected)", fname);
            lua_pushinteger(L, v);
        } else if (lua_rawgeti(L, 1, i) != LUA_TNUMBER) {
            luaL_error(L, "bad argument #1 to '%s' (numbers expected)", fname);
        }
        if (lua_rawget(L, 2) == LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        lua_Integer x = lua_tointegerx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum)
            luaL_error(L, "bad argument #2 to '%s' (%s expected)", fname,
                       ids ? "node numbers" : "integers");
        /* the list comes in order as a rule (a job's picks in vertex
         * order, a node's own vertices together): a value repeats only
         * right after itself */
        if (k > 0 && out[k - 1] == x)
            continue;
        if (k > 0 && out[k - 1] > x)
            sorted = false;
        out[k++] = x;
    }
    if (!sorted) {
        qsort(out, (size_t)k, sizeof(*out), cmp_integer);
        lua_Integer u = 0;
        for (lua_Integer i = 0; i < k; i++)
            if (u == 0 || out[u - 1] != out[i])
                out[u++] = out[i];
        k = u;
    }
    *np = k;
    return out;
}

static int l_sim_nodes(lua_State *L)
{
    lua_Integer k;
    const lua_Integer *out = mapped_sorted(L, "sim_nodes", true, &k);
    lua_createtable(L, (int)k, 0);
    for (lua_Integer i = 0; i < k; i++) {
        lua_pushinteger(L, out[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_sim_distinct(lua_State *L)
{
    lua_Integer n;
    mapped_sorted(L, "sim_distinct", false, &n);
    lua_pushinteger(L, n);
    return 1;
}

static int l_sim_intervals(lua_State *L)
{
    lua_Integer n;
    const lua_Integer *ids = mapped_sorted(L, "sim_intervals", false, &n);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (lua_Integer i = 0; i < n;) {
        lua_Integer j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        if (i > 0)
            luaL_addchar(&b, ' ');
        if (j > i)
            lua_pushfstring(L, "%I-%I", ids[i], ids[j]);
        else
            lua_pushfstring(L, "%I", ids[i]);
        luaL_addvalue(&b);
        i = j + 1;
    }
    luaL_pushresult(&b);
    return 1;
}

static int l_sim_free(lua_State *L)
{
    const grove_graph_t *g = grovel_check_graph(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *type = luaL_checkstring(L, 3);
    grove_sym_t sym = grove_graph_sym_lookup(g, type);
    int64_t now = grove_graph_now(g);
    lua_Integer n = luaL_len(L, 2), sum = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        int isnum = 0;
        lua_rawgeti(L, 2, i);
        lua_Integer v = lua_tointegerx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum || v < 0 || (uint64_t)v >= (uint64_t)grove_graph_vertex_count(g))
            return luaL_error(L, "bad argument #2 to 'sim_free' (vertex ids expected)");
        int64_t f = sym == GROVE_SYM_NONE
                        ? -1
                        : grove_vertex_aggregate_avail_sym(g, (grove_vid_t)v, sym, now, now + 1);
        if (f < 0) {
            lua_pushnil(L);
            return 1;
        }
        sum += (lua_Integer)f;
    }
    lua_pushinteger(L, sum);
    return 1;
}

#include "api_sim.h"
