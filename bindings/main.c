/* main.c: the grove executable.
 *
 * Embeds Lua 5.4 with grove.core preloaded and the pure-Lua library on the
 * search path (the source tree when run from build/, the installed copy
 * otherwise).  Usage:
 *
 *   grove                      interactive prompt (grove.repl)
 *   grove SCRIPT.lua [ARGS]    run a script; ARGS in the global arg table
 *   grove run SCRIPT [ARGS]    the same
 *   grove -e CODE [ARGS]       run a chunk of Lua
 *   grove NAME [ARGS]          a subcommand: grove.cmd.NAME's main(args)
 *
 * This file holds only the executable's start-up: the Lua state, the
 * search path, the arguments and the dispatch above.  It must not hold any
 * of grove.core (bindings/l_*.c, module.c) nor what a command does (the
 * Lua modules under lua/grove/cmd/, help included).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "grovel.h"
#include "prefix.h"


static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static int report(lua_State *L, int status)
{
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "grove: %s\n", msg ? msg : "(error)");
        lua_pop(L, 1);
    }
    return status;
}

/* Put the pure-Lua library on package.path: the source tree's lua/ when the
 * executable sits in a build directory of it, then the installed copy. */
static void set_paths(lua_State *L)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0)
        exe[n] = '\0';
    grovel_set_paths(L, NULL, n > 0 ? exe : NULL, "../lua");
}

/* arg table: arg[0] = script, arg[1..] = the rest. */
static void set_args(lua_State *L, char **argv, int argc, int script)
{
    lua_createtable(L, argc - script - 1, script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
}

static int docall(lua_State *L, int narg, int nres)
{
    int base = lua_gettop(L) - narg;
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    int status = lua_pcall(L, narg, nres, base);
    lua_remove(L, base);
    return status;
}

static int run_file(lua_State *L, char **argv, int argc, int script)
{
    set_args(L, argv, argc, script);
    int status = luaL_loadfile(L, argv[script]);
    if (status == LUA_OK) {
        int nargs = argc - script - 1;
        luaL_checkstack(L, nargs, "too many arguments");
        for (int i = script + 1; i < argc; i++)
            lua_pushstring(L, argv[i]);
        status = docall(L, nargs, 0);
    }
    return report(L, status);
}

/* grove NAME ARGS: require("grove.cmd.NAME").main({ARGS}) -> exit status. */
static int run_command(lua_State *L, const char *module, char **argv, int argc, int first)
{
    set_args(L, argv, argc, first - 1);
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    int status = docall(L, 1, 1);
    if (status != LUA_OK)
        return report(L, status) ? 1 : 0;
    lua_getfield(L, -1, "main");
    lua_createtable(L, argc - first, 0);
    for (int i = first; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - first + 1);
    }
    status = docall(L, 1, 1);
    if (status != LUA_OK) {
        report(L, status);
        return 1;
    }
    int code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 2);
    return code;
}

static int has_module(lua_State *L, const char *name)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, -3, "path");
    lua_call(L, 2, 1);
    int found = !lua_isnil(L, -1);
    lua_pop(L, 2);
    return found;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: grove                     interactive prompt\n"
            "       grove SCRIPT.lua [ARGS]   run a Lua script\n"
            "       grove run SCRIPT [ARGS]   the same\n"
            "       grove -e CODE [ARGS]      run a chunk of Lua\n"
            "       grove COMMAND [ARGS]      run a Grove command (grove help)\n"
            "       grove --version           print the version\n");
}

/* "grove run --help", "grove -e --help": the command's usage. */
static int asks_help(int argc, char **argv)
{
    return argc >= 3 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"));
}

int main(int argc, char **argv)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "grove: cannot create Lua state: out of memory\n");
        return 1;
    }
    luaL_openlibs(L);
    set_paths(L);
    int rc = 0;
    char modname[256];

    if (argc < 2)
        rc = run_command(L, "grove.repl", argv, argc, 1);
    else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        /* the same text as `grove help` */
        if (has_module(L, "grove.cmd.help"))
            rc = run_command(L, "grove.cmd.help", argv, 2, 2);
        else
            usage(stdout);
    } else if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("grove %s (%s)\n", GROVE_VERSION, LUA_RELEASE);
    } else if ((!strcmp(argv[1], "-e") || !strcmp(argv[1], "run")) && asks_help(argc, argv)) {
        rc = run_command(L, "grove.cmd.help", argv, 2, 1);
    } else if (!strcmp(argv[1], "-e")) {
        if (argc < 3) {
            usage(stderr);
            rc = 2;
        } else {
            set_args(L, argv, argc, 2);
            int status = luaL_loadbuffer(L, argv[2], strlen(argv[2]), "=(command line)");
            if (status == LUA_OK)
                status = docall(L, 0, 0);
            rc = report(L, status) ? 1 : 0;
        }
    } else if (!strcmp(argv[1], "run")) {
        if (argc < 3) {
            usage(stderr);
            rc = 2;
        } else
            rc = run_file(L, argv, argc, 2) ? 1 : 0;
    } else if (access(argv[1], F_OK) == 0 || strchr(argv[1], '/')
               || strstr(argv[1], ".lua")) {
        rc = run_file(L, argv, argc, 1) ? 1 : 0;
    } else {
        snprintf(modname, sizeof(modname), "grove.cmd.%s", argv[1]);
        if (strlen(argv[1]) < 64 && has_module(L, modname))
            rc = run_command(L, modname, argv, argc, 2);
        else {
            fprintf(stderr, "grove: unknown command or file '%s'\n", argv[1]);
            usage(stderr);
            rc = 2;
        }
    }
    lua_close(L);
    return rc;
}
