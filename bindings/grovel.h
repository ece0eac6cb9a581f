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

#include <lauxlib.h>
#include <lua.h>

#define GROVEL_MODULE(name) int grovel_open_##name(lua_State *L);
#include "modules.h"
#undef GROVEL_MODULE

/* Push nil, msg, code and return 3 (for "return grovel_fail(...)"). */
int grovel_fail(lua_State *L, const char *msg, const char *code);

/* As grovel_fail with code = the symbolic name of errnum ("EINVAL", ...),
 * and msg = the given text or strerror(errnum) when msg is NULL. */
int grovel_fail_errno(lua_State *L, int errnum, const char *msg);

/* The symbolic name of an errno value from Grove's vocabulary, or "EIO". */
const char *grovel_errno_name(int errnum);

/* Create metatable tname with methods (reachable through __index) and
 * metamethods; leaves nothing on the stack. */
void grovel_newclass(lua_State *L, const char *tname, const luaL_Reg *methods,
                     const luaL_Reg *meta);

/* Set module[name] = f on the table at the top of the stack. */
void grovel_setfunc(lua_State *L, const char *name, lua_CFunction f);

#endif
