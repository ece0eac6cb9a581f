/* lpolicy.h: what the matcher binding (l_match.c) needs from the Lua policy
 * binding (l_policy.c) and its vertex views (l_view.c), and what those two
 * files share.  Nothing here is used outside bindings/.
 *
 * A Lua policy is a userdata holding a grove_policy_t whose hooks are
 * trampolines (or declarative C code) and whose arg is the policy itself.
 * Before a match that may call Lua, the caller runs grovel_policy_begin,
 * which pushes what the trampolines need onto the stack and then installs
 * the sandbox limits (instruction budget, memory cap, the sandbox's string
 * metatable); after grove_match returns it runs grovel_policy_end, which
 * removes them and pops the stack back.  Between the two nothing may raise
 * a Lua error: the trampolines call Lua with lua_pcall and report failures
 * to the matcher as -1.
 *
 * Hooks see vertices through read-only views ("grove.policy.vertex", made
 * in l_view.c), one per vertex and matcher, kept in a cache table the
 * matcher owns (made by grovel_policy_new_cache).  A view answers only
 * while its matcher runs a match, so nothing a policy keeps can outlive or
 * change the graph.
 */
#ifndef GROVEL_LPOLICY_H
#define GROVEL_LPOLICY_H

#include <stdbool.h>

#include "grovel.h"
#include "policy.h"

#define GROVEL_POLICY "grove.policy"
#define GROVEL_PVERTEX "grove.policy.vertex"

struct grovel_policy;

/* The graph as the views of one matcher see it: g is set only while a
 * match runs (by grovel_policy_begin) and NULL otherwise.  Embedded in the
 * matcher userdata.  Views are made on first use and cached; making one
 * does not count against the policy's memory cap. */
struct grovel_view {
    grove_graph_t *g;
    struct grovel_policy *running; /* the policy whose match is running, or NULL */
};

/* The policy userdata at idx, or NULL if it is something else. */
struct grovel_policy *grovel_test_policy(lua_State *L, int idx);

/* The open policy userdata at idx; raises on misuse or a closed policy. */
struct grovel_policy *grovel_check_policy(lua_State *L, int idx);

/* False once the policy was closed (its hooks must not run any more). */
bool grovel_policy_is_open(const struct grovel_policy *p);

/* The hooks to hand to grove_matcher_set_policy (borrowed: valid while the
 * policy userdata lives and is open). */
const grove_policy_t *grovel_policy_hooks(const struct grovel_policy *p);

/* True when a match under p may call Lua (some hook is a Lua function):
 * only then are begin/end needed. */
bool grovel_policy_needs_lua(const struct grovel_policy *p);

/* Add delta (+1 or -1) to p's exemption count: while it is above zero, Lua
 * heap growth is not counted against p's memory cap (l_view.c brackets the
 * making of a view with it: views belong to the matcher's cache, not to the
 * policy).  The count is reset after every hook. */
void grovel_policy_exempt(struct grovel_policy *p, int delta);

/* ---- views (l_view.c) ---------------------------------------------------- */

/* Push a new, empty view cache for the matcher userdata at owner_idx (the
 * cache keeps the owner, and so its view, alive). */
void grovel_policy_new_cache(lua_State *L, int owner_idx);

/* Push the view of v through the view cache at cache_idx (made there on
 * first use). */
void grovel_push_view(lua_State *L, int cache_idx, struct grovel_view *view, grove_vid_t v);

/* The vertex of the value at idx if it is a view of view, else
 * GROVE_VID_NONE. */
grove_vid_t grovel_test_view(lua_State *L, int idx, const struct grovel_view *view);

/* Prepare a match under the policy userdata at pidx, whose views are given
 * by view (with cache the view cache at cache_idx) on graph g.  May raise
 * before anything is installed.  Leaves values on the stack that
 * grovel_policy_end pops. */
void grovel_policy_begin(lua_State *L, int pidx, struct grovel_view *view, int cache_idx,
                         grove_graph_t *g);

/* Undo grovel_policy_begin; never raises.  The stack is back where begin
 * found it. */
void grovel_policy_end(lua_State *L, struct grovel_policy *p);

/* The message of the last hook failure ("policy NAME: HOOK hook:
 * FILE:LINE: reason"), or NULL when the last match had none (borrowed). */
const char *grovel_policy_error(const struct grovel_policy *p);

#endif
