/* lpolicy.h: what the matcher binding (l_match.c) needs from the Lua policy
 * binding (l_policy.c, l_policy_dispatch.c, l_policy_views.c), and what
 * those files share with the vertex views (l_view.c).  Nothing here is
 * used outside bindings/.
 *
 * A Lua policy is a userdata holding a grove_policy_t whose hooks are
 * trampolines (or declarative C code) and whose arg is the policy itself,
 * and a sandbox (lsandbox.h): a Lua state of its own in which all of the
 * policy's code runs.  Before a match that may call Lua, the caller runs
 * grovel_policy_begin, which starts a sandbox run (budget and clock anew)
 * and tells the views which graph they show; after grove_match returns it
 * runs grovel_policy_end.  Between the two nothing may raise a Lua error
 * in the host's state: the trampolines call the policy's functions in the
 * sandbox under lua_pcall and report failures to the matcher as -1.
 *
 * Hooks see vertices through read-only views ("grove.policy.vertex", made
 * in l_view.c) that answer only while their policy runs a match.
 */
#ifndef GROVEL_LPOLICY_H
#define GROVEL_LPOLICY_H

#include <stdbool.h>

#include "grovel.h"
#include "policy.h"

#define GROVEL_POLICY "grove.policy"
#define GROVEL_PVERTEX "grove.policy.vertex"

struct grovel_policy;

/* What a policy's views show: set by grovel_policy_begin, cleared by
 * grovel_policy_end.  Lives in the policy; the sandbox's registry points at
 * it. */
struct grovel_views {
    grove_graph_t *g;   /* the graph of the match running, or NULL */
    uint32_t epoch;     /* changes with the matcher or graph: older views raise */
    int64_t start, end; /* the window being tried (end <= start: none yet) */
    lua_State *host;    /* the state running the match, which offers a close
                         * name for a misspelt type (grovel_type_hint) */
    /* aggregate(type)'s last type name (a copy; tlen 0: none) and its
     * symbol in g, so that a policy asking every candidate about one type
     * looks the name up once a match; forgotten when a match begins */
    size_t tlen;
    grove_sym_t tsym;
    char tname[24];
    /* What the hook running reads (GROVE_READ_* of policy.h and
     * GROVEL_READ_RECORDS), noted while watch is set by the views'
     * methods (l_view.c), ctx and the sandbox's hidden inputs
     * (l_policy_views.c): a score or prune call is watched; the policy
     * binding reads and clears it around each call. */
    bool watch;
    unsigned rd;
    uint64_t totals;          /* ctx.total's types read (bit k: the request's k-th) */
    unsigned deny;            /* bits whose read raises (a promise it breaks) */
    const char *denied;       /* why such a read raises, for the message */
    grove_vid_t cand;         /* the candidate a score call scores, or
                               * GROVE_VID_NONE: a scores call's, marked */
    const uint32_t *cmark;    /* [ncmark] cgen where a vertex is a candidate of
                               * the scores call running */
    size_t ncmark;
    uint32_t cgen;
    bool scores;              /* a scores call: its candidates lead to one another */
    /* while watched: the views' methods called (and the views printed),
     * and of those the reads of a view's own properties and tags */
    unsigned checks, kvreads;
    grove_sym_t contain;      /* containment in g */
};

/* Records a hook read: of the candidate (and what lies below it), or, for
 * a prune, of any vertex. */
#define GROVEL_READ_RECORDS 32

/* Note that the hook running read bits (GROVE_READ_* and
 * GROVEL_READ_RECORDS) through what (of vertex v, or GROVE_VID_NONE);
 * raise, naming it, when the policy declared it would not (vs->deny).
 * Nothing when no hook is watched. */
void grovel_views_note(lua_State *S, struct grovel_views *vs, unsigned bits, const char *what,
                       grove_vid_t v);

/* Load the Lua policy spec names (m:set_policy's string that is no
 * built-in): a path when it holds a '/' or ends in ".lua", else the file
 * the finder (core.set_policy_finder: grove.policy's, which searches the
 * policy directories) gives for the name.  Pushes the policy and returns
 * 1, or pushes nil, message, code and returns 3, or pushes nothing and
 * returns 0 for a name when no finder is set.  Raises only as the finder
 * does on misuse. */
int grovel_policy_named(lua_State *L, const char *spec);

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

/* Prepare a match under the policy userdata at pidx, run by owner (the
 * matcher: views made under another owner or graph stop working) on graph
 * g.  May raise before anything is installed; leaves the host's stack as
 * it was. */
void grovel_policy_begin(lua_State *L, int pidx, const void *owner, grove_graph_t *g);

/* Undo grovel_policy_begin; never raises. */
void grovel_policy_end(lua_State *L, struct grovel_policy *p);

/* The message of the last hook failure ("policy NAME: HOOK hook:
 * FILE:LINE: reason"), or NULL when the last match had none (borrowed). */
const char *grovel_policy_error(const struct grovel_policy *p);

/* Check the type names p gives (prune_types, score_types, order's when,
 * score_reads' total.TYPE) against the types a request on g may name
 * (grovel_type_known): true, or false with "FILE:LINE: FIELD: unknown
 * resource type 'NAME' (did you mean 'X'?): the graph has ..." pushed on
 * L. */
bool grovel_policy_check_types(lua_State *L, const struct grovel_policy *p,
                               const grove_graph_t *g);

/* ---- views (l_view.c), in the sandbox state S ---------------------------- */

/* Register the view class in S, showing what vs says (vs must outlive S). */
void grovel_views_open(lua_State *S, struct grovel_views *vs);

/* Push the view of v. */
void grovel_push_view(lua_State *S, const struct grovel_views *vs, grove_vid_t v);

/* The vertex of the value at idx if it is a current view, else
 * GROVE_VID_NONE. */
grove_vid_t grovel_test_view(lua_State *S, int idx, const struct grovel_views *vs);

#endif
