/* paths.c: the Lua search path of an embedded Grove interpreter, shared by
 * the grove executable (bindings/main.c) and the Flux module
 * (bindings/flux/sched_grove.c).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lua.h>

#include "grovel.h"
#include "prefix.h"

int luaopen_grove_core(lua_State *L);

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void grovel_set_paths(lua_State *L, const char *lua_dir, const char *file, const char *rel)
{
    char dir[PATH_MAX + 32], real[PATH_MAX];
    int parts = 0;
    if (lua_dir) {
        lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", lua_dir, lua_dir);
        parts++;
    } else if (file) {
        char base[PATH_MAX];
        snprintf(base, sizeof(base), "%s", file);
        char *slash = strrchr(base, '/');
        if (slash) {
            *slash = '\0';
            snprintf(dir, sizeof(dir), "%s/%s", base, rel);
            if (is_dir(dir) && realpath(dir, real)) {
                lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", real, real);
                parts++;
            }
        }
    }
    lua_pushliteral(L, GROVE_LUA_DIR "/?.lua;" GROVE_LUA_DIR "/?/init.lua;");
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    lua_remove(L, -2);
    lua_concat(L, parts + 2);
    lua_getglobal(L, "package");
    lua_insert(L, -2);
    lua_setfield(L, -2, "path");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_grove_core);
    lua_setfield(L, -2, "grove.core");
    lua_pop(L, 2);
}
