/* grovel.h: helpers shared by the Lua bindings of Grove (bindings/l_*.c).
 *
 * Conventions (STYLE.md): misuse raises (luaL_argerror, luaL_checkudata);
 * operational failures return nil, message, code through grovel_fail.  Each
 * bindings/l_NAME.c defines grovel_open_NAME(L), which is called with the
 * module table on top of the stack and adds its functions and metatables to
 * it; the Makefile generates the list from the file names.
 */
#ifndef GROVEL_H
#define GROVEL_H

#include <stdbool.h>

#include <lauxlib.h>
#include <lua.h>

#include "graph.h"
#include "jobspec.h"
#include "match.h"

#define GROVEL_MODULE(name) int grovel_open_##name(lua_State *L);
#include "modules.h"
#undef GROVEL_MODULE

/* Push nil, msg, code and return 3 (for "return grovel_fail(...)"). */
int grovel_fail(lua_State *L, const char *msg, const char *code);

/* As grovel_fail with code = the symbolic name of errnum ("EINVAL", ...),
 * and msg = the given text or strerror(errnum) when msg is NULL. */
int grovel_fail_errno(lua_State *L, int errnum, const char *msg);

/* The symbolic name of errnum as grove_errno_name() gives it (a code of
 * Grove's vocabulary, or a system error named as it is); "EIO" only for
 * an errnum with no name (0: a failure that set no errno). */
const char *grovel_errno_name(int errnum);

/* Create metatable tname with methods (reachable through __index) and
 * metamethods; leaves nothing on the stack. */
void grovel_newclass(lua_State *L, const char *tname, const luaL_Reg *methods,
                     const luaL_Reg *meta);

/* Push a JSON value as Lua values (objects and arrays as tables).  JSON
 * null becomes grove.core.null (a NULL light userdata) when keep_null,
 * else it is left out of objects and nil in arrays.  Raises past
 * GROVE_NEST_MAX levels of nesting. */
struct json_t;
void grovel_push_json(lua_State *L, const struct json_t *v, bool keep_null);

/* Set module[name] = f on the table at the top of the stack. */
void grovel_setfunc(lua_State *L, const char *name, lua_CFunction f);

/* ---- graph and vertex handles (defined in l_graph.c) ----------------- */

#define GROVEL_GRAPH "grove.graph"
#define GROVEL_VERTEX "grove.vertex"
#define GROVEL_EDGE "grove.edge"

/* Push a new graph userdata that owns g (g is destroyed with it; on a Lua
 * memory error g is destroyed before the error is raised). */
void grovel_push_graph(lua_State *L, grove_graph_t *g);

/* The graph of the graph userdata at idx; raises on misuse or a closed
 * graph. */
grove_graph_t *grovel_check_graph(lua_State *L, int idx);

/* Push a vertex handle for v of the graph userdata at graph_idx (the
 * handle keeps the graph alive). */
void grovel_push_vertex(lua_State *L, int graph_idx, grove_vid_t v);

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

/* The matcher of the matcher userdata at idx (borrowed: valid while the
 * userdata lives and is not closed); raises on misuse, a closed matcher or
 * one running a match.  Push its graph userdata with m:graph(). */
grove_matcher_t *grovel_check_matcher(lua_State *L, int idx);

/* ---- R (defined in l_rv1.c) ------------------------------------------- */

struct grove_rv1;
/* Push an empty (closed) R userdata and return its slot: store an R there
 * and the userdata owns it.  The userdata exists before the R is made, so
 * a Lua memory error cannot leak it. */
struct grove_rv1 **grovel_new_rv1(lua_State *L);

#endif
