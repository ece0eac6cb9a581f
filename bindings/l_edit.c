/* l_edit.c: line editing for the REPL, a small binding of libedit's
 * readline interface.
 *
 *   core.edit.readline(prompt)     the line typed (no newline); nil at end of
 *                                  input (Ctrl-D); false when Ctrl-C
 *                                  abandoned the line; Ctrl-L clears the
 *                                  screen (whatever ~/.editrc binds)
 *   core.edit.add_history(line)    append a line to the history (Up recalls)
 *   core.edit.read_history(path)   true, or nil, message, code
 *   core.edit.write_history(path [, max])  write the history, keeping the
 *                                  last max lines (default 1000); true or
 *                                  nil, message, code
 *   core.edit.set_completer(fn | nil)  Tab calls fn(word, line, start, stop):
 *                                  word is line:sub(start + 1, stop), the
 *                                  word before the cursor; fn returns a list
 *                                  of replacements for word, or nil to let
 *                                  the editor complete file names
 *   core.edit.isatty(fd)           whether fd (0, 1, 2) is a terminal
 *   core.edit.catch_interrupt(on)  while on, Ctrl-C raises "interrupted!" in
 *                                  the running Lua code (a second Ctrl-C
 *                                  before it is seen ends the process); off
 *                                  restores the default
 *
 * Workload: one person typing.  Everything here is global state of the
 * editing library (one terminal per process), so the completer is one
 * registry reference and the lua_State it was set from.  The completion
 * callback runs inside readline(): a Lua error there is caught with
 * lua_pcall and only means "no matches", it never unwinds through the
 * editing library.
 *
 * The module is linked with -ledit (both core.so and the grove executable);
 * loaded into an interpreter that already carries a readline library, the
 * names bind to that one, which offers the same interface.
 *
 * This file holds only the grove.core.edit functions and the editing
 * library's global state; it defines no userdata.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "grovel.h"

#define EDIT_HISTORY_MAX 1000

static lua_State *completer_L; /* the thread inside readline(), or NULL */
static int completer_ref = LUA_NOREF; /* in the registry of the one Lua state */
static char **cands;          /* the candidates of the current completion */
static size_t ncands, candpos; /* how many, and the generator's position */
static volatile sig_atomic_t interrupted;
static lua_State *interrupt_L; /* the thread catch_interrupt(true) came from */
static bool keys_bound;        /* our key bindings are made (after ~/.editrc) */
static bool lib_ready;         /* a history call has initialized the library */

static void free_cands(void)
{
    for (size_t i = 0; i < ncands; i++)
        free(cands[i]);
    free(cands);
    cands = NULL;
    ncands = candpos = 0;
}

/* The generator rl_completion_matches calls: each candidate in turn, as a
 * malloc'd copy the library frees. */
static char *next_cand(const char *text, int state)
{
    (void)text;
    if (state == 0)
        candpos = 0;
    while (candpos < ncands) {
        char *c = cands[candpos++];
        if (c)
            return strdup(c);
    }
    return NULL;
}

/* Call the Lua completer; collect its strings into cands.  Returns 1 when
 * it gave a list (possibly empty), 0 when it gave nil or failed. */
static int call_completer(const char *text, int start, int stop)
{
    lua_State *L = completer_L;
    if (!L || completer_ref == LUA_NOREF)
        return 0;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8))
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, completer_ref);
    lua_pushstring(L, text);
    lua_pushstring(L, rl_line_buffer ? rl_line_buffer : "");
    lua_pushinteger(L, start);
    lua_pushinteger(L, stop);
    int given = 0;
    if (lua_pcall(L, 4, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TTABLE) {
        lua_Integer n = luaL_len(L, -1);
        given = 1;
        if (n > 0 && (size_t)n < SIZE_MAX / sizeof(char *))
            cands = calloc((size_t)n, sizeof(char *));
        for (lua_Integer i = 1; cands && i <= n; i++) {
            if (lua_rawgeti(L, -1, i) == LUA_TSTRING)
                cands[ncands] = strdup(lua_tostring(L, -1));
            if (cands[ncands])
                ncands++;
            lua_pop(L, 1);
        }
    }
    lua_settop(L, top);
    return given;
}

static char **attempt_completion(const char *text, int start, int stop)
{
    free_cands();
    if (!call_completer(text, start, stop))
        return NULL; /* the library completes file names */
    rl_attempted_completion_over = 1;
    char **matches = ncands ? rl_completion_matches(text, next_cand) : NULL;
    free_cands();
    return matches;
}

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int e_readline(lua_State *L)
{
    const char *prompt = luaL_optstring(L, 1, "");
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    rl_readline_name = "grove";
    if (!keys_bound) {
        /* Ctrl-L clears the screen in every keymap: ~/.editrc may choose
         * vi bindings, whose insert mode would type ^L into the line.  (The
         * library initializes itself, reading ~/.editrc, at the first
         * history call; initializing it again would drop the history.) */
        if (!lib_ready)
            rl_initialize();
        lib_ready = true;
        rl_parse_and_bind("bind ^L ed-clear-screen");
        keys_bound = true;
    }
    sigaction(SIGINT, &sa, &old);
    completer_L = L;
    char *line = readline(prompt);
    completer_L = NULL;
    sigaction(SIGINT, &old, NULL);
    if (line) {
        lua_pushstring(L, line);
        free(line);
    } else if (interrupted) {
        lua_pushboolean(L, 0);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int e_add_history(lua_State *L)
{
    lib_ready = true;
    add_history(luaL_checkstring(L, 1));
    return 0;
}

/* true, or nil, "PATH: reason", code for a history call on path that
 * returned rc (an errno when positive; else errno, else dflt). */
static int history_result(lua_State *L, const char *path, int rc, int dflt)
{
    if (rc == 0)
        return grovel_ok(L);
    int e = rc > 0 ? rc : errno ? errno : dflt;
    return grovel_fail_errno(L, e, lua_pushfstring(L, "%s: %s", path, strerror(e)));
}

static int e_read_history(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    errno = 0;
    lib_ready = true;
    return history_result(L, path, read_history(path), ENOENT);
}

static int e_write_history(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_Integer max = luaL_optinteger(L, 2, EDIT_HISTORY_MAX);
    luaL_argcheck(L, max > 0 && max <= 1000000, 2, "must be in 1..1000000");
    stifle_history((int)max);
    errno = 0;
    return history_result(L, path, write_history(path), EIO);
}

static int e_set_completer(lua_State *L)
{
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TFUNCTION);
    if (completer_ref != LUA_NOREF)
        luaL_unref(L, LUA_REGISTRYINDEX, completer_ref);
    completer_ref = LUA_NOREF;
    rl_attempted_completion_function = NULL;
    if (lua_isfunction(L, 1)) {
        lua_pushvalue(L, 1);
        completer_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        rl_attempted_completion_function = attempt_completion;
        /* Lua words: names joined by '.' and ':' stay one word; so do
         * paths (the completer splits "a-b.c" itself). */
        rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,)}[]+*%^#";
        rl_completion_append_character = '\0';
    }
    return 0;
}

/* The hook a caught Ctrl-C installs: raise at the next call, return or
 * instruction of the interrupted code. */
static void stop_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted!");
}

static void on_sigint_eval(int sig)
{
    (void)sig;
    signal(SIGINT, SIG_DFL);
    /* lua_sethook is safe in a signal handler (lua.c relies on it too). */
    lua_sethook(interrupt_L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static int e_catch_interrupt(lua_State *L)
{
    if (lua_toboolean(L, 1)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigint_eval;
        sigemptyset(&sa.sa_mask);
        interrupt_L = L;
        sigaction(SIGINT, &sa, NULL);
    } else {
        signal(SIGINT, SIG_DFL);
        if (lua_gethook(L) == stop_hook)
            lua_sethook(L, NULL, 0, 0);
        interrupt_L = NULL;
    }
    return 0;
}

static int e_isatty(lua_State *L)
{
    lua_Integer fd = luaL_checkinteger(L, 1);
    luaL_argcheck(L, fd >= 0 && fd <= 2, 1, "must be 0, 1 or 2");
    lua_pushboolean(L, isatty((int)fd));
    return 1;
}

int grovel_open_edit(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"readline", e_readline},
        {"add_history", e_add_history},
        {"read_history", e_read_history},
        {"write_history", e_write_history},
        {"set_completer", e_set_completer},
        {"isatty", e_isatty},
        {"catch_interrupt", e_catch_interrupt},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "edit");
    return 0;
}
