/* l_log.c: the log of policies.  A placement policy or a queue policy has
 * no print (its sandbox has no io); it has log(level, fmt, ...), which
 * formats with the sandbox's own string.format and hands the line to the
 * host:
 *
 *   core.set_log(fn [, level])   fn(line, level) receives every
 *                                message at level or above ("error",
 *                                "warn", "info", "debug"; default
 *                                "debug": all); set_log(nil) goes back to
 *                                stderr
 *   core.log_level()             the level a message needs to be kept
 *
 * A line reads "SOURCE:LINE: LEVEL: message" (the policy's file and the
 * line that called log).  Without fn, lines go to stderr as they are
 * written.  With fn, they wait in a queue (C memory, outside every
 * sandbox) until the host's call into the policy returns (m:match,
 * script:call), and fn runs then, in the host's state: no host code ever
 * runs inside a sandbox, and a policy's run is never interrupted by one.
 *
 * Budget: a run of a sandbox (one match, one queue policy pass) keeps at
 * most GROVEL_LOG_RUN messages of at most GROVEL_LOG_LEN bytes; the rest
 * are counted and reported once, at the end of the run, as "N log
 * messages dropped".  Formatting is charged to the run's instruction
 * budget like any string.format.
 *
 * This file holds the log and its sink only; the sandbox (l_sandbox.c)
 * puts log into each policy's environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "lsandbox.h"

#define GROVEL_LOG_QUEUE 1024 /* lines waiting for the host's fn, at most */

static const char *const levels[] = {"error", "warn", "info", "debug", NULL};

static const char SINK_KEY = 's'; /* registry key of the host's fn */

/* The sink: whether a host fn is set, the lowest level kept (index in
 * levels), and the lines waiting for fn. */
static struct {
    bool host;                         /* set_log(fn) was called: queue */
    int keep;                          /* levels[0..keep] are kept */
    int n;                             /* lines in queue */
    unsigned lost;                     /* lines dropped: the queue was full */
    struct pending {
        char *line;                    /* malloc'd */
        int level;                     /* index in levels */
    } queue[GROVEL_LOG_QUEUE];
} sink = {false, 3, 0, 0, {{NULL, 0}}};

/* Hand a line to the sink (never raises). */
static void emit(const char *line, int level)
{
    if (level > sink.keep)
        return;
    if (!sink.host) {
        fprintf(stderr, "%s\n", line);
        fflush(stderr);
        return;
    }
    char *copy = sink.n < GROVEL_LOG_QUEUE ? strdup(line) : NULL;
    if (!copy) {
        sink.lost++;
        return;
    }
    sink.queue[sink.n].line = copy;
    sink.queue[sink.n].level = level;
    sink.n++;
}

int grovel_log_lua(lua_State *S)
{
    grovel_sandbox_t *sb = grovel_sandbox_of(S);
    int level = grovel_check_option(S, 1, NULL, levels, "level");
    luaL_checkstring(S, 2);
    if (sb->logged >= GROVEL_LOG_RUN) {
        sb->dropped++;
        return 0;
    }
    sb->logged++;
    /* string.format(fmt, ...): the sandbox's own, metered */
    int n = lua_gettop(S);
    lua_pushvalue(S, lua_upvalueindex(1));
    for (int i = 2; i <= n; i++)
        lua_pushvalue(S, i);
    lua_call(S, n - 1, 1);
    size_t len;
    const char *msg = lua_tolstring(S, -1, &len);
    lua_Debug ar;
    char where[LUA_IDSIZE + 24] = "?";
    if (lua_getstack(S, 1, &ar) && lua_getinfo(S, "Sl", &ar))
        snprintf(where, sizeof(where), "%s:%d", ar.short_src, ar.currentline);
    char line[GROVEL_LOG_LEN + LUA_IDSIZE + 64];
    snprintf(line, sizeof(line), "%s: %s: %.*s%s", where, levels[level],
             (int)(len > GROVEL_LOG_LEN ? GROVEL_LOG_LEN : len), msg ? msg : "",
             len > GROVEL_LOG_LEN ? "..." : "");
    emit(line, level);
    return 0;
}

void grovel_log_run_end(grovel_sandbox_t *sb)
{
    if (sb->dropped > 0) {
        char line[LUA_IDSIZE + 64];
        snprintf(line, sizeof(line), "%s: warn: %u log messages dropped (at most %d a run)",
                 sb->src, sb->dropped, GROVEL_LOG_RUN);
        emit(line, 1);
    }
    sb->logged = 0;
    sb->dropped = 0;
}

/* Call the host's fn on each waiting line, oldest first; an fn that fails
 * has its error written to stderr and the next line goes on. */
void grovel_log_flush(lua_State *L)
{
    if (sink.n == 0 && sink.lost == 0)
        return;
    int n = sink.n;
    unsigned lost = sink.lost;
    struct pending q[GROVEL_LOG_QUEUE];
    memcpy(q, sink.queue, sizeof(q[0]) * (size_t)n);
    sink.n = 0;
    sink.lost = 0;
    int top = lua_gettop(L);
    for (int i = 0; i < n; i++) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &SINK_KEY);
        if (lua_isfunction(L, -1)) {
            lua_pushstring(L, q[i].line);
            lua_pushstring(L, levels[q[i].level]);
            if (lua_pcall(L, 2, 0, 0) != LUA_OK)
                fprintf(stderr, "log: the log function failed: %s\n", lua_tostring(L, -1));
        } else {
            fprintf(stderr, "%s\n", q[i].line);
        }
        lua_settop(L, top);
        free(q[i].line);
    }
    if (lost)
        fprintf(stderr, "log: %u messages dropped (the host did not read them)\n", lost);
}

/* core.set_log(fn | nil [, level]) */
static int l_set_log(lua_State *L)
{
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TFUNCTION);
    int keep = grovel_check_option(L, 2, "debug", levels, "level");
    grovel_log_flush(L);
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &SINK_KEY);
    sink.host = !lua_isnoneornil(L, 1);
    sink.keep = keep;
    return 0;
}

/* core.log_level() */
static int l_log_level(lua_State *L)
{
    lua_pushstring(L, levels[sink.keep]);
    return 1;
}

#include "api_log.h"
