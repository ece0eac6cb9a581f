/* l_changes.c: saves of only what changed, in Lua (core/changes.h).
 *
 *   core.mark()                 a save mark: what the last save to one
 *                               destination wrote (one mark a destination)
 *   mk:generation()             saves made through it (0: none)
 *   mk:kind()                   "jgf", "state", "R", or nil before the first
 *   core.child_save(matcher, jobid [, {mark =, changed =}])
 *                               the R a child instance inside the job
 *                               acquires, as text; with changed = true the
 *                               changes since the mark's last save
 *   core.changes_apply(base, changes [, source])
 *                               the entire save a changes document makes of
 *                               the save it follows (text; "" for none)
 *   and the options {mark = mk, changed = bool} of g:to_jgf and
 *   core.state_write (l_jgf.c, l_store.c), read by grovel_save_options.
 *
 * Misuse raises (changed = true without a mark, a mark that is not one);
 * a mark of another kind or job, and changes that do not follow their
 * base, return nil, message, code (EINVAL) and change nothing.
 *
 * This file holds the mark class and these functions; the writers they
 * choose between are the core's.
 */
#include <errno.h>
#include <stdlib.h>

#include "changes.h"
#include "lgraph.h"

static void describe(lua_State *L, void *p)
{
    const char *k = grove_mark_kind(p);
    lua_pushfstring(L, "grove.mark (%s, generation %I)", k ? k : "no save yet",
                    (lua_Integer)grove_mark_generation(p));
}

static const grovel_class_t mark_class; /* defined by api.tsv */

static int l_mark_new(lua_State *L)
{
    grovel_handle_t *h = grovel_handle_new(L, &mark_class);
    if (!(h->p = grove_mark_create()))
        return grovel_fail_errno(L, errno, NULL);
    return 1;
}

static int l_generation(lua_State *L)
{
    lua_pushinteger(L, grove_mark_generation(grovel_handle_check(L, 1, &mark_class)));
    return 1;
}

static int l_kind(lua_State *L)
{
    grovel_push_string(L, grove_mark_kind(grovel_handle_check(L, 1, &mark_class)));
    return 1;
}

void grovel_save_option(lua_State *L, int key, int arg, grove_mark_t **mk, int *flags)
{
    if (key == 0) {
        if (!(*mk = grovel_handle_test(L, -1, &mark_class)))
            luaL_argerror(L, arg, "mark must be an open grove.mark (grove.core.mark())");
    } else {
        luaL_argcheck(L, lua_isboolean(L, -1), arg, "changed must be a boolean");
        *flags = lua_toboolean(L, -1) ? *flags | GROVE_SAVE_CHANGED : *flags & ~GROVE_SAVE_CHANGED;
    }
}

void grovel_save_check(lua_State *L, int arg, const grove_mark_t *mk, int flags)
{
    luaL_argcheck(L, mk || !(flags & GROVE_SAVE_CHANGED), arg,
                  "changed = true needs a mark (grove.core.mark())");
}

static int l_child_save(lua_State *L)
{
    grove_matcher_t *m = grovel_check_matcher(L, 1);
    grove_jobid_t id = grovel_check_job(L, 2);
    grove_mark_t *mk = NULL;
    int flags = 0;
    if (grovel_options(L, 3))
        for (int o; (o = grovel_next_option(L, 3, GROVEL_SAVE_OPTIONS)) >= 0; lua_pop(L, 1))
            grovel_save_option(L, o, 3, &mk, &flags);
    grovel_save_check(L, 3, mk, flags);
    const grove_job_t *job = grove_matcher_job(m, id);
    if (!job)
        return grovel_fail_errno(L, ENOENT, lua_pushfstring(L, "no job %I", (lua_Integer)id));
    grove_error_t err = {{0}, 0};
    struct grovel_box *b = grovel_box_new(L, free);
    if (!(b->p = grove_child_save(grove_matcher_graph(m), job, flags, mk, &err)))
        return grovel_fail_err(L, errno, &err);
    lua_pushstring(L, b->p);
    free(b->p);
    b->p = NULL;
    return 1;
}

static int l_changes_apply(lua_State *L)
{
    size_t bl, cl;
    const char *base = luaL_checklstring(L, 1, &bl);
    const char *ch = luaL_checklstring(L, 2, &cl);
    const char *source = luaL_optstring(L, 3, NULL);
    grove_error_t err = {{0}, 0};
    struct grovel_box *b = grovel_box_new(L, free);
    if (!(b->p = grove_changes_apply(base, bl, ch, cl, source, &err)))
        return grovel_fail_err(L, errno, &err);
    lua_pushstring(L, b->p);
    free(b->p);
    b->p = NULL;
    return 1;
}

#include "api_changes.h"
