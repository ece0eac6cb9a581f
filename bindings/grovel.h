/* grovel.h: helpers shared by the Lua bindings of Grove (bindings/l_*.c).
 *
 * Conventions (STYLE.md): misuse raises (luaL_argerror, luaL_checkudata);
 * operational failures return nil, message, code through grovel_fail.  Each
 * bindings/l_NAME.c has grovel_open_NAME(L), which is called with the
 * module table on top of the stack and adds its functions and metatables to
 * it; the Makefile generates the list from the file names.
 *
 * The Lua API is registered from data: bindings/api.tsv lists every
 * method and module function (class, name, C function, arg) and the class
 * descriptors; scripts/gen-api.lua turns it into one header a binding file,
 * api_NAME.h (in the build's gen/ directory), holding the file's method
 * tables and its grovel_open_NAME.  The file includes it after its static
 * functions.  A file with nothing in api.tsv writes its own opener.
 *
 * This header must not hold anything of one userdata type: what a class
 * adds lives in its own l_*.c file (and a header only it and its partner
 * share).
 */
#ifndef GROVEL_H
#define GROVEL_H

#include <stdbool.h>

#include <lauxlib.h>
#include <lua.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jobspec.h"
#include "match.h"

#define GROVEL_MODULE(name) int grovel_open_##name(lua_State *L);
#include "modules.h"
#undef GROVEL_MODULE

/* Hand the log lines of policies that wait for the host's log function
 * (core.set_log) to it, in L (l_log.c); a binding calls it when a call
 * into a policy has returned.  Never raises. */
void grovel_log_flush(lua_State *L);

/* Around a call into core that may report progress (core/progress.h):
 * enter notes L as the state a script's progress function runs in and
 * returns the one noted before, which leave restores (l_progress.c). */
lua_State *grovel_progress_enter(lua_State *L);
void grovel_progress_leave(lua_State *prev);

/* ---- unknown names (grovel.c; core.set_suggest binds it: l_names.c) ------ */

/* Keep the function at index 1 (or nil: none) as the offer of a closest
 * name (core.set_suggest). */
int grovel_set_suggest(lua_State *L);

/* Push what a message about the unknown name appends to offer the
 * closest of names (the table at index names: an array of strings, or
 * strings as keys): " (did you mean 'X'?)", or "" when nothing is close
 * or no offer is set (core.set_suggest).  Never raises. */
void grovel_push_hint(lua_State *L, const char *name, int names);

/* The offer for name among names (NULL-ended) and, when extra is not
 * NULL, the extra names too (NULL-ended), asked of L in a protected call
 * and written into out (len bytes): " (did you mean 'X'?)", or "" when
 * nothing is close, no offer is set, or L is NULL.  Leaves L's stack as
 * it was; never raises.  For a C caller holding a list of names (a
 * writer's formats, a match's modes, a policy's fields) or a state other
 * than L (a sandbox, whose host L is). */
void grovel_hint(lua_State *L, const char *name, const char *const *names,
                 const char *const *extra, char *out, size_t len);

/* Push "WHAT 'NAME' (did you mean 'X'?); the WHATs are A, B, C": an unknown
 * name among names (NULL-ended), with the offer of grovel_hint. */
const char *grovel_push_unknown(lua_State *L, const char *what, const char *name,
                                const char *const *names);

/* grovel_push_unknown on L with the offer asked of host (a sandbox's
 * host; NULL: no offer). */
const char *grovel_push_unknown_on(lua_State *L, lua_State *host, const char *what,
                                   const char *name, const char *const *names);

/* The __index of a class's methods table (grovel_class_open): raises
 * "TNAME has no method 'KEY'" and the offer for a string key, TNAME its
 * upvalue 1; any other key reads nil. */
int grovel_no_method(lua_State *L);

/* Keep the function at index 1 (or nil: none) in the registry under key:
 * the body of a core.set_NAME(fn | nil) that Lua code calls to hand the
 * bindings a function of a higher floor (grove.suggest's offer, grove.policy's
 * finder).  Raises on anything else.  Returns 0. */
int grovel_set_function(lua_State *L, const void *key);

/* Raise when the argument at arg is nil followed by a message and an error
 * code: a failure (nil, message, code) handed on as if it were a value
 * (m:set_policy(grove.policy.load("lowx"))).  The error names the argument
 * and keeps the message: "bad argument #1 to 'set_policy' (got nil from a
 * call that failed: MESSAGE)". */
void grovel_refuse_failure(lua_State *L, int arg);

/* Push nil, msg, code and return 3 (for "return grovel_fail(...)"). */
int grovel_fail(lua_State *L, const char *msg, const char *code);

/* As grovel_fail with code = the symbolic name of errnum ("EINVAL", ...),
 * and msg = the given text or strerror(errnum) when msg is NULL. */
int grovel_fail_errno(lua_State *L, int errnum, const char *msg);

/* The symbolic name of errnum as grove_errno_name() gives it (a code of
 * Grove's vocabulary, or a system error named as it is); "EIO" only for
 * an errnum with no name (0: a failure that set no errno). */
const char *grovel_errno_name(int errnum);

/* ---- classes and handles (grovel.c) ------------------------------------ */

/* A method or metamethod of a class.  One C function may serve several
 * methods: each gets its own arg (read with grovel_uparg). */
typedef struct grovel_reg {
    const char *name;
    lua_CFunction fn;
    int arg;
} grovel_reg_t;

/* A handle: a userdata that owns (or, for a walker, refers to) one object,
 * NULL once closed.  A class whose userdata holds more begins it with a
 * grovel_handle_t (or a union of one with its typed pointer). */
typedef struct grovel_handle {
    void *p;
} grovel_handle_t;

/* A class of userdata.  Every class is registered through
 * grovel_class_open; the fields below label are for handles only. */
typedef struct grovel_class {
    const char *tname; /* metatable name: "grove.idset" */
    /* What the class adds to the generic functions (each may be NULL):
     * __tostring of an open handle (p its object) or of any userdata of a
     * class that is no handle (p the userdata), at stack index 1; */
    void (*describe)(lua_State *L, void *p);
    /* __eq, and equal() of a handle: two objects, or two userdata of a
     * class that is no handle. */
    bool (*equal)(const void *a, const void *b);
    const char *label;  /* a handle's name in messages ("idset is closed");
                         * NULL: the class is no handle */
    const char *closed; /* tostring once closed; NULL: "TNAME (closed)" */
    size_t size;        /* bytes of the userdata (0: a grovel_handle_t) */
    int nuv;            /* user values (dropped on close) */
    void (*destroy)(void *p); /* free the object (NULL: not owned) */
    /* Raise when the handle ud (at index 1) cannot be closed now. */
    void (*closable)(lua_State *L, void *ud);
    void *(*copy)(const void *p); /* copy() of a handle */
    /* A string-coded set's reader and its empty set (lhandle.h). */
    void *(*decode)(const char *s, size_t len, grove_error_t *err);
    void *(*create)(void);
    /* __index for objects that also answer keys that are no method (h[i]):
     * called with the object and the key, the methods table as upvalue 1
     * (NULL: __index is the methods table). */
    lua_CFunction index;
} grovel_class_t;

/* Register class c in a grovel_open_NAME function (the module table on
 * top of the stack), creating its metatable (with __name and an __index
 * table) or adding to it, so binding files may extend a class whatever
 * order they are opened in.  Every function gets three upvalues: c, the
 * row's arg and the module table.  The class's generic functions come
 * first: __tostring (a handle, or describe), __eq (equal), and for a
 * handle close, __gc, __close, copy() (copy) and equal() (equal); then
 * regs (may be NULL), which may replace them: metamethods ("__...") go to
 * the metatable, methods to __index.  c must outlive the Lua state (a
 * static).  Leaves the stack as it found it. */
void grovel_class_open(lua_State *L, const grovel_class_t *c, const grovel_reg_t *regs);

/* One entry of a binding file's opener (generated from bindings/api.tsv):
 * the methods regs of class c, or with c NULL, functions of the module
 * table.  A list of them ends with {NULL, NULL}. */
typedef struct grovel_api {
    const grovel_class_t *c;
    const grovel_reg_t *regs;
} grovel_api_t;

/* Register every entry of api in order, the module table on top of the
 * stack: a class's through grovel_class_open, a module function as
 * module[name] with the same upvalues (no class, its arg, the module).
 * Returns 0 (for "return grovel_api_open(L, api)"). */
int grovel_api_open(lua_State *L, const grovel_api_t *api);

/* Define static void NAME(void *p) that calls FN(p): a core type's destroy
 * as a grovel_class_t's destroy or a box's free function. */
#define GROVEL_FREER(NAME, FN)                                                  \
    static void NAME(void *p)                                                   \
    {                                                                           \
        FN(p);                                                                  \
    }

/* In a function registered by grovel_class_open: its class, its arg, and
 * the stack index of the module table. */
const grovel_class_t *grovel_upclass(lua_State *L);
int grovel_uparg(lua_State *L);
#define GROVEL_UPMODULE lua_upvalueindex(3)

/* Push a new, closed handle of class c (c->nuv user values, every byte
 * zero): store the object in its p and the handle owns it.  Creating the
 * handle before the object means a Lua memory error cannot leak it. */
grovel_handle_t *grovel_handle_new(lua_State *L, const grovel_class_t *c);

/* The object of the handle at idx; raises on another type ("c->tname
 * expected") or a closed handle ("LABEL is closed"). */
void *grovel_handle_check(lua_State *L, int idx, const grovel_class_t *c);

/* The object of the value at idx if it is an open handle of class c, else
 * NULL; never raises. */
void *grovel_handle_test(lua_State *L, int idx, const grovel_class_t *c);

/* For an iterator over the handle h: its object, or raises "LABEL closed
 * during iteration". */
void *grovel_handle_alive(lua_State *L, const grovel_handle_t *h, const grovel_class_t *c);

/* ---- option tables ----------------------------------------------------- */

/* The index of s in names (NULL-ended), or -1 when it is not there (or s
 * is NULL). */
int grovel_name_index(const char *s, const char *const *names);

/* Raise unless every key of the table at t is one of names (NULL-ended):
 * the message is fmt with the key (as tostring gives it) and the offer of
 * the closest name (grovel_hint), raised through luaL_argerror on
 * argument arg, or as it is when arg is 0. */
void grovel_check_keys(lua_State *L, int t, const char *const *names, int arg, const char *fmt);

/* The key at idx of a table being walked, as an error names it: the string
 * itself, or what tostring gives for another value (then pushed: for a
 * message raised next). */
const char *grovel_key_name(lua_State *L, int idx);

/* luaL_checkoption with the closest name offered: the index in names
 * (NULL-ended) of the string at arg (def when it is absent and def is not
 * NULL); raises "bad argument #N to 'F' (unknown WHAT 'x' (did you mean
 * 'X'?); the WHATs are A, B, C)" on any other string. */
int grovel_check_option(lua_State *L, int arg, const char *def, const char *const *names,
                        const char *what);

/* grovel_check_option for the value of option key, on top of the stack,
 * of the options table at arg: the index in names (NULL-ended) of that
 * string; raises "bad argument #N to 'F' (KEY: unknown WHAT 'x' (did you
 * mean 'X'?); the WHATs are A, B, C)" on any other string, and "KEY must
 * be a string" on any other value. */
int grovel_check_option_value(lua_State *L, int arg, const char *key, const char *const *names,
                              const char *what);

/* The Lua source text at 1 (its length in *len) and its name at 2, which
 * must not be empty, of policy_parse and script_load; the stack is then
 * set to 3 values (the options at 3, or nil).  Raises on misuse. */
const char *grovel_check_source(lua_State *L, size_t *len, const char **name);

/* Walk the options table at arg: false when there is nothing or nil at
 * arg (no options), else true, with the walk begun; raises on anything
 * but a table.  Then grovel_next_option gives the index in names
 * (NULL-ended) of each key in turn, its value on top of the stack (pop it
 * before the next call), and -1 at the end; it raises on a key not in
 * names: "unknown option 'k' (did you mean 'K'?); the options are NAME,
 * NAME, ..." (grovel_push_unknown).  For
 *     if (grovel_options(L, 2))
 *         for (int o; (o = grovel_next_option(L, 2, names)) >= 0; lua_pop(L, 1))
 *             ... */
bool grovel_options(lua_State *L, int arg);
int grovel_next_option(lua_State *L, int arg, const char *const *names);

/* ---- results ---------------------------------------------------------- */

/* Push s, or nil when s is NULL. */
void grovel_push_string(lua_State *L, const char *s);

/* Set field k of the table on top of the stack to v, one line a field of
 * a result table (as luaposix's pushintegerfield).  grovel_set_string
 * with s NULL leaves the field as it is. */
void grovel_set_integer(lua_State *L, const char *k, lua_Integer v);
void grovel_set_number(lua_State *L, const char *k, lua_Number v);
void grovel_set_boolean(lua_State *L, const char *k, bool v);
void grovel_set_string(lua_State *L, const char *k, const char *s);

/* Push the malloc'd string s and free it; raise "out of memory" (prefix
 * what, when not NULL: "what: out of memory") when s is NULL. */
void grovel_push_free(lua_State *L, char *s, const char *what);

/* Return the malloc'd string s as the one result and free it; s NULL:
 * the failure for errno e instead, with message msg (NULL: strerror(e)). */
int grovel_return_string(lua_State *L, char *s, int e, const char *msg);

/* nil, message, code for a failure with errno e, the message from err
 * when it has one (err may be NULL). */
int grovel_fail_err(lua_State *L, int e, const grove_error_t *err);

/* true (for "return grovel_ok(L)"). */
int grovel_ok(lua_State *L);

/* The result of a core call that returns 0, or -1 with errno and err set:
 * true, or nil, message, code (grovel_fail_err); rc < 0 is the failure.
 * For "return grovel_result(L, grove_x(..., &err), &err)". */
int grovel_result(lua_State *L, int rc, const grove_error_t *err);

/* Push a JSON value as Lua values (objects and arrays as tables).  JSON
 * null becomes grove.core.null (a NULL light userdata) when keep_null,
 * else it is left out of objects and nil in arrays.  Raises past
 * GROVE_NEST_MAX levels of nesting. */
struct json_t;
void grovel_push_json(lua_State *L, const struct json_t *v, bool keep_null);

/* Push a new list of strings: at(o, i) for i = 0, 1, ... while i < n and
 * the string is not NULL (n SIZE_MAX: up to the first NULL).  at NULL:
 * o is an array of strings (const char *const *). */
void grovel_push_strings(lua_State *L, const void *o, size_t n,
                         const char *(*at)(const void *o, size_t i));

/* ---- graph and vertex handles (defined in l_graph.c) ----------------- */

#define GROVEL_GRAPH "grove.graph"
#define GROVEL_VERTEX "grove.vertex"
#define GROVEL_EDGE "grove.edge"

/* Push a new graph userdata that owns g (g is destroyed with it; on a Lua
 * memory error g is destroyed before the error is raised). */
void grovel_push_graph(lua_State *L, grove_graph_t *g);

/* The result of a reader that made the graph g: a new graph userdata that
 * owns it (returns 1), or nil, message, code when g is NULL (errno and err
 * say why). */
int grovel_return_graph(lua_State *L, grove_graph_t *g, const grove_error_t *err);

/* The graph of the graph userdata at idx; raises on misuse or a closed
 * graph. */
grove_graph_t *grovel_check_graph(lua_State *L, int idx);

/* Push a vertex handle for v of the graph userdata at graph_idx (the
 * handle keeps the graph alive). */
void grovel_push_vertex(lua_State *L, int graph_idx, grove_vid_t v);

/* Push a new list of vertex handles for vids[0..n) of the graph userdata
 * at graph_idx. */
void grovel_push_vertices(lua_State *L, int graph_idx, const grove_vid_t *vids, size_t n);

/* The vertex of the vertex handle at idx (raises on misuse, a closed graph
 * or a dead vertex); *g (if not NULL) receives its graph. */
grove_vid_t grovel_check_vertex(lua_State *L, int idx, grove_graph_t **g);

/* Push the graph userdata that the vertex handle at idx belongs to. */
void grovel_vertex_graph(lua_State *L, int idx);

/* ---- jobspecs (defined in l_jobspec.c) ------------------------------- */

/* The jobspec of the jobspec userdata at idx (borrowed: valid while the
 * userdata lives); raises on misuse or a closed jobspec. */
const grove_jobspec_t *grovel_check_jobspec(lua_State *L, int idx);

/* ---- matchers (defined in l_match.c) --------------------------------- */

#define GROVEL_MATCHER "grove.matcher"

/* The option keys of core.matcher, in the order it reads them: the
 * restore of a state (st:load, state_read) takes them too and passes them
 * on to the matcher it makes, as they are not saved. */
#define GROVEL_MATCHER_OPTIONS "default_duration", "constraint_type", "or_slots"

/* The matcher of the matcher userdata at idx (borrowed: valid while the
 * userdata lives and is not closed); raises on misuse, a closed matcher or
 * one running a match.  Push its graph userdata with m:graph(). */
grove_matcher_t *grovel_check_matcher(lua_State *L, int idx);

/* The match m:match makes (mode one of its modes: grove_match_mode_t's
 * values, or grow; win: the window [win[0], win[1]) or NULL; after: not
 * before *after, or NULL; limit: the search's time limit in seconds, or
 * 0, see grove_matcher_set_search_limit, for this match alone; flags:
 * GROVEL_MATCH_COMPACT, a reservation it makes is kept compact, see
 * grove_matcher_set_compact, for a caller that reads none of its picks;
 * GROVEL_MATCH_BUSY, a failed match answers EBUSY without looking
 * whether it could ever fit, see grove_matcher_set_tell_never) by the
 * matcher at idx, in its Lua policy's sandbox when it has one.  0, or -1
 * with errno and *why (the reason: the policy's message when it failed,
 * ECANCELED; else err's text, or NULL); *why lives until the next match.
 * Raises on misuse, like grovel_check_matcher, and when the matcher's
 * policy was closed. */
#define GROVEL_MATCH_COMPACT 1u
#define GROVEL_MATCH_BUSY 2u
int grovel_match_guarded(lua_State *L, int idx, const grove_jobspec_t *js, int mode,
                         grove_jobid_t id, const int64_t *win, const int64_t *after,
                         double limit, unsigned flags, const grove_job_t **job,
                         grove_error_t *err, const char **why);

/* grovel_fail_errno for a match that failed with errno e; after one whose
 * search ran out of its time (ETIMEDOUT), also the instant it goes on
 * from (grove_matcher_resume_at). */
int grovel_fail_resume(lua_State *L, const grove_matcher_t *m, int e, const char *why);

/* grove_match by the matcher at idx, as m:match does it without a window,
 * when the matcher's policy is a built-in one (no Lua runs); 1 with
 * nothing done when its policy is Lua's (match through m:match then).  0,
 * or -1 with errno and err as grove_match.  Raises on misuse, like
 * grovel_check_matcher. */
int grovel_match_builtin(lua_State *L, int idx, const grove_jobspec_t *js,
                         grove_match_mode_t mode, grove_jobid_t id, const grove_job_t **job,
                         grove_error_t *err);

/* ---- writers (defined in l_writer.c) ---------------------------------- */

/* The writer of the writer userdata at idx (borrowed: valid while the
 * userdata lives and is not closed); raises on misuse or a closed one. */
struct grove_writer *grovel_check_writer(lua_State *L, int idx);

/* ---- constraints (defined in l_jobspec.c) ------------------------------- */

/* The constraint of the grove.constraint userdata at idx (borrowed: valid
 * while the userdata lives and is not closed); raises on anything else. */
struct grove_constraint *grovel_check_constraint(lua_State *L, int idx);

/* ---- R (defined in l_rv1.c) ------------------------------------------- */

/* Push an empty (closed) R handle: store an R in its p and the handle owns
 * it.  The handle exists before the R is made, so a Lua memory error
 * cannot leak it. */
grovel_handle_t *grovel_new_rv1(lua_State *L);

/* ---- search path (defined in paths.c) --------------------------------- */

/* Set package.path of an embedded interpreter and preload grove.core: first
 * lua_dir when not NULL, else DIR/rel when file (not NULL) is DIR/NAME and
 * DIR/rel is a directory (the source tree's lua/ seen from a build
 * directory), then the installed library, then the path Lua had. */
void grovel_set_paths(lua_State *L, const char *lua_dir, const char *file, const char *rel);

#endif
