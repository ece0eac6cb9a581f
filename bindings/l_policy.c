/* l_policy.c: placement policies written in Lua.
 *
 *   core.policy_load(path [, opts])        a grove.policy, or nil, msg, code
 *   core.policy_parse(text, name [, opts]) the same from text (name is used
 *                                          as the file name in messages)
 *       opts: budget = instructions per match (default 10,000,000),
 *             memory = bytes the policy may hold (64 MiB),
 *             time = wall-clock seconds per match (1),
 *             graph = a grove.graph: the type names the policy gives
 *             (prune_types, score_types, order's when, score_reads'
 *             total.TYPE) are checked against the types a request on it
 *             may name, and a policy naming another ("nodes") is refused:
 *             nil, "FILE:LINE: FIELD: unknown resource type 'nodes' (did
 *             you mean 'node'?): the graph has ...", EINVAL.
 *             Without it, m:set_policy checks them against the matcher's
 *             graph.
 *   p:name()  p:description()  p:source()  p:hooks()  p:budget()
 *   p:memory()  p:time()  p:heap()  p:traceback()  p:close()  tostring(p)
 *
 * A policy file returns a table; every field is optional:
 *   name, description         strings (name defaults to the file's base name)
 *   base = "lonode"           start from a built-in policy's C hooks
 *   prune(v, ctx) -> bool     true: do not look inside v
 *   order(parent, children)   sort the array in place, or return a new one
 *   order = {key = "id" | "rank" | "vid" | "size" | "property:NAME" |
 *            function(v) -> number, descending = bool, when = "TYPE"}
 *                             declarative: sorted in C by (key, vertex),
 *                             only lists holding a TYPE vertex when `when`
 *                             is given (the others in the base's order),
 *                             the TYPE vertices below the levels between
 *                             as one list (grove_policy_t.order_types); a
 *                             key function is called at most once per
 *                             vertex and match
 *   score(v, ctx) -> number   higher is better
 *   scores(candidates, ctx, keys) -> {s1, ..., sn}   the same for all the
 *                             candidates of a level in one call (instead
 *                             of score); keys as choose's, and also
 *                             keys["free:TYPE"]: units of TYPE free below
 *                             each candidate in the window being tried
 *   choose(candidates, k, scores, keys) -> {i1, ..., ik}   positions (1-based);
 *                             keys[KEY] (KEY as a declarative order's, not a
 *                             function) is the array of the candidates'
 *                             keys, made in C at its first use in the call
 *   select = "first" | "best" ("best" when score or choose is given)
 *   node_exclusive = bool
 *   explore_by_use = bool    children untouched by earlier jobs first (see
 *                             grove_policy_t); the order hook is not used
 *   node_centric = bool       slots compared by id weigh their node's id
 *                             first (see grove_policy_t)
 *   id_order = "ascending" | "descending" | "none"   the order puts ids
 *                             this way at every level, so slots are ranked
 *                             by their ids as the reference engine ranks
 *                             them (grove_policy_t.id_order); default: what
 *                             order = {key = "id"} without when says, else
 *                             the base's: kept under an order function, a
 *                             key function or an order with when, checked
 *                             on each list the order gives (id_check); a
 *                             declared direction no key states is checked
 *                             and a list out of it fails the match
 *   score_local = bool        the score of a candidate depends on nothing
 *                             but it, the records below it during the
 *                             window and ctx's type, count, start, end,
 *                             duration and total (see grove_policy_t): a
 *                             ranking may be kept between matches
 *   score_reads = {"FIELD", ...}  with score_local: the fields of ctx the
 *                             score reads ("type", "count", "total",
 *                             "total.TYPE", "start", "end", "duration"; {}
 *                             none; default all): a kept ranking serves
 *                             requests and windows that differ elsewhere
 *   prune_types, score_types = "TYPE" or {"TYPE", ...}: the types whose
 *                             vertices prune (score and choose) are asked
 *                             about; others are walked through (matched
 *                             first-fit)
 * ctx describes the whole request at the level being matched (see
 * push_ctx; one table, reused: copy what you keep).  Hooks see vertices as
 * read-only views (grove.policy.vertex, l_view.c).
 *
 * Every policy runs in a sandbox of its own (lsandbox.h, l_sandbox.c): a
 * separate Lua state with an allow-listed environment, a memory cap on
 * everything it holds, an instruction budget and a wall-clock limit per
 * match.  Nothing mutable is shared with the host's Lua state: values
 * cross as C data only (numbers, copied strings, vertex ids), so no host
 * table, function or metatable can reach policy code, and no policy code
 * can run in the host's state.
 *
 * This file loads policies (reads the policy table, checks it, installs
 * the hooks), gives the policy userdata its methods, and starts and ends
 * the Lua side of a match (grovel_policy_begin, grovel_policy_end).  The
 * hooks' calls are in l_policy_dispatch.c, what they are handed (ctx,
 * candidates, keys) in l_policy_views.c; the three share
 * lpolicy_private.h.  The sandbox lives in l_sandbox.c, the views in
 * l_view.c (their shared methods in l_vertex.c); nothing here may reach
 * inside a view or change the sandbox's limits.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lpolicy_private.h"

/* The registry fields of the sandbox holding the hooks, by kind. */
static const char *const hook_fields[] = {"prune", "order", "score", "choose", "key", "scores"};

static const char HOOKS_KEY = 'h'; /* sandbox registry: {prune =, order =, ...} */
static const char CTX_KEY = 'c';   /* sandbox registry: the ctx table */

/* "file:line" of the function at idx (or "file" when unknown). */
static void func_where(lua_State *S, int idx, char *buf, size_t len)
{
    lua_Debug ar;
    lua_pushvalue(S, idx);
    lua_getinfo(S, ">S", &ar);
    if (ar.linedefined > 0)
        snprintf(buf, len, "%s:%d", ar.short_src, ar.linedefined);
    else
        snprintf(buf, len, "%s", ar.short_src);
}

/* ---- the policy table ------------------------------------------------------------------ */

/* What load_body is given and answers. */
struct loading {
    struct grovel_policy *p;
    const char *text, *chunkname, *dflt;
    size_t len;
    const char *code; /* on failure: "EINVAL" or "ENOMEM" */
    lua_State *host;  /* what offers a close name for a misspelt one (grovel_hint) */
};

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The line of the policy's text at q. */
static int line_at(const struct loading *l, const char *q)
{
    int line = 1;
    for (const char *c = l->text; c < q; c++)
        line += *c == '\n';
    return line;
}

/* Where the policy's text first writes `field =` (the '='), or NULL. */
static const char *field_at(const struct loading *l, const char *field)
{
    const char *t = l->text, *end = l->text + l->len;
    size_t fl = strlen(field);
    for (const char *f = t; f + fl <= end; f++) {
        if (memcmp(f, field, fl) || (f > t && word_char(f[-1])) || (f + fl < end && word_char(f[fl])))
            continue;
        const char *q = f + fl;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
            q++;
        if (q < end && *q == '=' && (q + 1 == end || q[1] != '='))
            return q;
    }
    return NULL;
}

/* The line of the policy's text on which the string literal name ("node"
 * or 'node') is written: the first after `field =`, else the first
 * anywhere; 0 when the text holds none (a name the chunk computed). */
static int literal_line(const struct loading *l, const char *field, const char *name)
{
    const char *t = l->text, *end = l->text + l->len, *from = field_at(l, field);
    size_t nl = strlen(name);
    for (int pass = from ? 0 : 1; pass < 2; pass++) {
        for (const char *q = pass ? t : from; q + nl + 2 <= end; q++) {
            if ((*q != '"' && *q != '\'') || memcmp(q + 1, name, nl) || q[nl + 1] != *q)
                continue;
            return line_at(l, q);
        }
    }
    return 0;
}

/* Push "FILE[:LINE]: " for field as the policy's text writes it
 * (`field =`; the file alone when the text does not: a computed key). */
static void push_field_where(lua_State *S, const struct grovel_policy *p,
                             const struct loading *l, const char *field)
{
    const char *q = field_at(l, field);
    if (q)
        lua_pushfstring(S, "%s:%d: ", p->short_src, line_at(l, q));
    else
        lua_pushfstring(S, "%s: ", p->short_src);
}

/* Push the failure of an unknown name (a field, or the value of field):
 * "FILE:LINE: PREFIXunknown WHAT 'NAME' (did you mean 'X'?); the WHATs
 * are A, B, C" with the line `field =` is written on and the offer asked
 * of the host.  Returns -1, as spec_error does. */
static int unknown_name(lua_State *S, const struct grovel_policy *p, const struct loading *l,
                        const char *field, const char *prefix, const char *what,
                        const char *name, const char *const *names)
{
    push_field_where(S, p, l, field);
    lua_pushstring(S, prefix);
    grovel_push_unknown_on(S, l->host, what, name, names);
    lua_concat(S, 3);
    return -1;
}

/* A NULL-ended list of n names and its n lines, zeroed, in *list and
 * *lines: false, both NULL, when memory is short. */
static bool new_lists(size_t n, char ***list, int **lines)
{
    *list = calloc(n + 1, sizeof(**list));
    *lines = calloc(n + 1, sizeof(**lines));
    if (*list && *lines)
        return true;
    free(*list);
    free(*lines);
    *list = NULL;
    *lines = NULL;
    return false;
}

/* Raise-free validation: on a bad table, push a message and return -1. */
static int spec_error(lua_State *S, struct grovel_policy *p, const char *fmt, const char *a)
{
    lua_pushfstring(S, "%s: ", p->short_src);
    lua_pushfstring(S, fmt, a);
    lua_concat(S, 2);
    return -1;
}

/* prune_types or score_types (which: 0 or 1) = "TYPE" or {"TYPE", ...}
 * at idx. */
static int parse_types(lua_State *S, struct grovel_policy *p, const struct loading *l, int which,
                       int idx, const char *k)
{
    int vt = lua_type(S, idx);
    size_t n = vt == LUA_TSTRING ? 1 : vt == LUA_TTABLE ? lua_rawlen(S, idx) : 0;
    if (n == 0)
        return spec_error(S, p, "%s must be a type name or a non-empty array of them", k);
    char **list;
    int *lines;
    if (!new_lists(n, &list, &lines))
        return spec_error(S, p, "%s", "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (vt == LUA_TTABLE)
            lua_rawgeti(S, idx, (lua_Integer)i + 1);
        else
            lua_pushvalue(S, idx);
        if (lua_type(S, -1) != LUA_TSTRING || !lua_tostring(S, -1)[0]
            || !(list[i] = strdup(lua_tostring(S, -1)))) {
            for (size_t j = 0; j < i; j++)
                free(list[j]);
            free(list);
            free(lines);
            return spec_error(S, p, "%s must hold type names (strings)", k);
        }
        lines[i] = literal_line(l, k, list[i]);
        lua_pop(S, 1);
    }
    p->types[which] = list;
    p->type_lines[which] = lines;
    return 0;
}

/* score_reads = {"FIELD", ...} at idx (may be empty: the score reads
 * nothing of ctx). */
static int parse_reads(lua_State *S, struct grovel_policy *p, const struct loading *l, int idx)
{
    static const char *const what =
        "score_reads must be an array of ctx fields (type, count, total, total.TYPE, start, "
        "end, duration)";
    if (lua_type(S, idx) != LUA_TTABLE)
        return spec_error(S, p, "%s", what);
    size_t n = lua_rawlen(S, idx);
    char **list;
    int *lines;
    if (!new_lists(n, &list, &lines))
        return spec_error(S, p, "%s", "out of memory");
    p->reads = list; /* freed with the policy, whatever happens below */
    p->read_lines = lines;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(S, idx, (lua_Integer)i + 1);
        const char *f = lua_type(S, -1) == LUA_TSTRING ? lua_tostring(S, -1) : NULL;
        if (!f)
            return spec_error(S, p, "%s", what);
        if (!grove_policy_read_known(f)) {
            lua_pushfstring(S, "score_reads: '%s' is not a field of ctx a local score may read "
                               "(type, count, total, total.TYPE, start, end, duration)", f);
            return spec_error(S, p, "%s", lua_tostring(S, -1));
        }
        if (!(list[i] = strdup(f)))
            return spec_error(S, p, "%s", "out of memory");
        lines[i] = literal_line(l, "score_reads", f);
        lua_pop(S, 1);
    }
    return 0;
}

static int parse_order_table(lua_State *S, struct grovel_policy *p, const struct loading *l,
                             int t, int uv)
{
    lua_pushnil(S);
    while (lua_next(S, t)) {
        if (lua_type(S, -2) != LUA_TSTRING)
            return spec_error(S, p, "order: keys must be strings (%s)", "key, descending, when");
        const char *k = lua_tostring(S, -2);
        int vt = lua_type(S, -1);
        if (!strcmp(k, "key")) {
            if (vt == LUA_TFUNCTION) {
                p->key = K_FUNCTION;
                lua_pushvalue(S, -1);
                lua_setfield(S, uv, "key");
                p->lua[H_KEY] = true;
                func_where(S, -1, p->where[H_KEY], sizeof(p->where[H_KEY]));
            } else if (vt == LUA_TSTRING) {
                const char *s = lua_tostring(S, -1), *prop;
                p->key = grovelp_policy_key_named(s, &prop);
                if (p->key == K_NONE) {
                    static const char *const keys[] = {"id", "rank", "vid", "size", "perf_class",
                                                       "property:NAME", "function(v)", NULL};
                    return unknown_name(S, p, l, "key", "order: ", "key", s, keys);
                }
                if (p->key == K_FREE)
                    return spec_error(S, p,
                                      "order: key '%s' needs the window being tried, which "
                                      "order is not told (score or scores are)", s);
                if (prop && !(p->key_prop = strdup(prop)))
                    return spec_error(S, p, "%s", "out of memory");
            } else {
                return spec_error(S, p, "order: key must be a string or a function, not %s",
                                  luaL_typename(S, -1));
            }
        } else if (!strcmp(k, "descending")) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(S, p, "order: descending must be a boolean, not %s",
                                  luaL_typename(S, -1));
            p->desc = lua_toboolean(S, -1);
        } else if (!strcmp(k, "when")) {
            if (vt != LUA_TSTRING)
                return spec_error(S, p, "order: when must be a type name, not %s",
                                  luaL_typename(S, -1));
            if (!(p->when = strdup(lua_tostring(S, -1))))
                return spec_error(S, p, "%s", "out of memory");
            p->when_line = literal_line(l, "when", p->when);
        } else {
            static const char *const fields[] = {"key", "descending", "when", NULL};
            return unknown_name(S, p, l, k, "order: ", "field", k, fields);
        }
        lua_pop(S, 1);
    }
    if (p->key == K_NONE)
        return spec_error(S, p, "order: %s", "a declarative order needs a key");
    return 0;
}

/* The boolean fields of a policy table, and what a value of another type
 * is told. */
enum { F_NODEX, F_BY_USE, F_NODEC, F_LOCAL };
static const char *const flag_names[] = {"node_exclusive", "explore_by_use", "node_centric",
                                         "score_local"};
static const char *const flag_errors[] = {
    "node_exclusive must be a boolean, not %s", "explore_by_use must be a boolean, not %s",
    "node_centric must be a boolean, not %s", "score_local must be a boolean, not %s"};

/* The index of boolean field k in flag_names, or -1. */
static int flag_index(const char *k)
{
    for (int i = 0; i < (int)(sizeof(flag_names) / sizeof(*flag_names)); i++)
        if (!strcmp(k, flag_names[i]))
            return i;
    return -1;
}

/* The values of id_order, as grove_id_order_t. */
static const char *const id_order_names[] = {"none", "ascending", "descending"};
static const grove_id_order_t id_order_values[] = {
    GROVE_ID_ORDER_NONE, GROVE_ID_ORDER_ASCENDING, GROVE_ID_ORDER_DESCENDING};
#define ID_ORDER_UNSET 2 /* no id_order field */

/* The id order a policy declares (declared: ID_ORDER_UNSET or a
 * grove_id_order_t) or its order = {key = "id"} says, and how far the
 * matcher takes it on trust, without looking at any hook: 0 with *out and
 * *check set, or -1 with a message pushed.  An order of the file's own on
 * a base that ranks by id (a function, a key function, an order limited
 * with when) keeps the base's ranking, checked on every list the hook
 * gives (GROVE_ID_CHECK_FOLLOW): a hook that leaves the lists as the base
 * had them places as the base; one that moves them places in its own
 * order.  A declared direction the order does not state by itself is
 * checked the same way and a list out of it fails the match
 * (GROVE_ID_CHECK_RAISE). */
static int spec_id_order(lua_State *S, struct grovel_policy *p, const grove_policy_t *base,
                         const grove_policy_t *h, int declared, const bool *given,
                         grove_id_order_t *out, grove_id_check_t *check)
{
    grove_id_order_t dir = base ? base->id_order : GROVE_ID_ORDER_NONE;
    grove_id_check_t chk = base ? base->id_check : GROVE_ID_CHECK_NONE;
    grove_id_order_t by_key = GROVE_ID_ORDER_NONE; /* what a declarative order by id says */
    bool decl_key = given[H_ORDER] && !p->lua[H_ORDER] && p->key != K_FUNCTION;
    if (decl_key && p->key == K_ID)
        by_key = p->desc ? GROVE_ID_ORDER_DESCENDING : GROVE_ID_ORDER_ASCENDING;
    if (given[H_ORDER]) { /* the file's order replaces the base's */
        if (decl_key && !p->when) {
            dir = by_key; /* by id, or by a key that is not the id: no ranking */
            chk = GROVE_ID_CHECK_NONE;
        } else if (dir != GROVE_ID_ORDER_NONE) {
            chk = GROVE_ID_CHECK_FOLLOW;
        }
    }
    if (declared != ID_ORDER_UNSET) {
        if (by_key != GROVE_ID_ORDER_NONE && !p->when && declared != GROVE_ID_ORDER_NONE
            && declared != (int)by_key)
            return spec_error(S, p, "%s",
                              declared > 0 ? "id_order = \"ascending\" contradicts order = "
                                             "{key = \"id\", descending = true}"
                                           : "id_order = \"descending\" contradicts order = "
                                             "{key = \"id\"} (ascending)");
        if (!given[H_ORDER] && base && base->id_order != GROVE_ID_ORDER_NONE
            && declared != GROVE_ID_ORDER_NONE && declared != (int)base->id_order)
            return spec_error(S, p, "%s",
                              declared > 0 ? "id_order = \"ascending\" contradicts the base's "
                                             "order (descending)"
                                           : "id_order = \"descending\" contradicts the base's "
                                             "order (ascending)");
        if (declared == GROVE_ID_ORDER_NONE)
            chk = GROVE_ID_CHECK_NONE;
        else if (given[H_ORDER] && !(decl_key && !p->when && by_key != GROVE_ID_ORDER_NONE))
            chk = GROVE_ID_CHECK_RAISE;
        else if (!given[H_ORDER] && (!base || base->id_order == GROVE_ID_ORDER_NONE))
            chk = GROVE_ID_CHECK_RAISE; /* a base that orders, not by id */
        dir = (grove_id_order_t)declared;
    }
    if (dir != GROVE_ID_ORDER_NONE && !h->order)
        return spec_error(S, p, "%s",
                          "id_order describes an order: it needs order (or a base that orders)");
    if (dir != GROVE_ID_ORDER_NONE && h->explore_by_use)
        return spec_error(S, p, "%s",
                          "id_order describes an order, which explore_by_use does not use");
    *out = dir;
    *check = dir == GROVE_ID_ORDER_NONE ? GROVE_ID_CHECK_NONE : chk;
    return 0;
}

/* p->hooks from what the policy table gave (parse_spec): the base's,
 * then the file's own.  0, or -1 with a message pushed. */
static int spec_hooks(lua_State *S, struct grovel_policy *p, const grove_policy_t *base,
                      int select, const int *flags, const bool *given, int id_order)
{
    grove_policy_t h = {0};
    if (base)
        h = *base;
    h.name = p->name;
    h.arg = p;
    p->base_order = base ? base->order : NULL;
    if (p->lua[H_PRUNE])
        h.prune = grovelp_policy_tramp_prune;
    if (p->lua[H_ORDER]) {
        h.order = grovelp_policy_tramp_order;
    } else if (given[H_ORDER]) {
        h.order = grovelp_policy_decl_order;
        /* a list of `when` vertices is one across the levels between */
        p->when_types[0] = p->when;
        h.order_types = p->when ? p->when_types : NULL;
        /* a key read from the graph: the same list sorts the same way
         * until the graph changes (and so does the base's order by id) */
        h.order_static = p->key != K_FUNCTION;
    }
    if (p->lua[H_SCORE]) {
        h.score = grovelp_policy_tramp_score;      /* what hooks() and the matcher test */
        h.scores = grovelp_policy_tramp_score_all; /* what the matcher calls: a level at once */
    }
    if (p->lua[H_SCORES]) {
        h.scores = grovelp_policy_tramp_scores;
        h.score = NULL;
    }
    if (p->lua[H_CHOOSE])
        h.choose = grovelp_policy_tramp_choose;
    if (select >= 0)
        h.select = (grove_select_t)select;
    else if (given[H_SCORE] || given[H_SCORES] || given[H_CHOOSE])
        h.select = GROVE_SELECT_BEST;
    if (flags[F_NODEX] >= 0)
        h.node_exclusive = flags[F_NODEX];
    if (flags[F_BY_USE] >= 0)
        h.explore_by_use = flags[F_BY_USE];
    if (flags[F_NODEC] >= 0)
        h.node_centric = flags[F_NODEC];
    /* a base's promise is about its own scores, not the file's */
    if (flags[F_LOCAL] >= 0)
        h.score_local = flags[F_LOCAL];
    else if (p->lua[H_SCORE] || p->lua[H_SCORES])
        h.score_local = false;
    if (p->reads)
        h.score_reads = (const char *const *)p->reads;
    else if (p->lua[H_SCORE] || p->lua[H_SCORES])
        h.score_reads = NULL;
    if (p->reads && !h.score_local)
        return spec_error(S, p, "%s",
                          "score_reads is a promise of a local score: it needs score_local = true");
    /* the types a base's hooks are limited to go with them: a file that
     * gives no prune (no score, scores or choose) of its own keeps its
     * base's prune_types (score_types), as it keeps the hooks */
    if (p->types[0] || p->lua[H_PRUNE])
        h.prune_types = (const char *const *)p->types[0];
    if (p->types[1] || given[H_SCORE] || given[H_SCORES] || given[H_CHOOSE])
        h.score_types = (const char *const *)p->types[1];
    if (spec_id_order(S, p, base, &h, id_order, given, &h.id_order, &h.id_check) < 0)
        return -1;
    p->hooks = h;
    return 0;
}

/* Read the policy table at t into p (functions go into the user value
 * table uv).  0, or -1 with a message pushed. */
static int parse_spec(lua_State *S, struct grovel_policy *p, const struct loading *l, int t,
                      int uv, const char *dflt)
{
    /* the hooks a policy table names, by kind (the order key is order's) */
    static const char *const fnames[] = {"prune", "order", "score", "choose", NULL, "scores"};
    const grove_policy_t *base = NULL;
    int select = -1, flag, flags[] = {-1, -1, -1, -1}, id_order = ID_ORDER_UNSET;
    bool given[H_COUNT] = {false};
    lua_pushnil(S);
    while (lua_next(S, t)) {
        if (lua_type(S, -2) != LUA_TSTRING)
            return spec_error(S, p, "the policy table has a %s key (fields are named)",
                              luaL_typename(S, -2));
        const char *k = lua_tostring(S, -2);
        int vt = lua_type(S, -1);
        int hook = -1;
        for (int i = 0; i < (int)(sizeof(fnames) / sizeof(*fnames)); i++)
            if (fnames[i] && !strcmp(k, fnames[i]))
                hook = i;
        if (k[0] == '_') {
            /* private fields of the policy: ignored */
        } else if (!strcmp(k, "name") || !strcmp(k, "description")) {
            if (vt != LUA_TSTRING)
                return spec_error(S, p, "field '%s' must be a string", k);
            char *s = strdup(lua_tostring(S, -1));
            if (!s)
                return spec_error(S, p, "%s", "out of memory");
            char **dst = k[0] == 'n' ? &p->name : &p->description;
            free(*dst);
            *dst = s;
        } else if (!strcmp(k, "base")) {
            if (vt != LUA_TSTRING)
                return spec_error(S, p, "base must name a built-in policy ('%s' is not one)",
                                  luaL_typename(S, -1));
            if (!(base = grove_policy_builtin(lua_tostring(S, -1)))) {
                const char *names[32];
                size_t n = 0;
                for (const char *b; n + 1 < sizeof(names) / sizeof(*names)
                                    && (b = grove_policy_builtin_name(n));)
                    names[n++] = b;
                names[n] = NULL;
                return unknown_name(S, p, l, "base", "base: ", "built-in", lua_tostring(S, -1),
                                    names);
            }
        } else if (!strcmp(k, "select")) {
            const char *s = vt == LUA_TSTRING ? lua_tostring(S, -1) : "";
            if (!strcmp(s, "first"))
                select = GROVE_SELECT_FIRST;
            else if (!strcmp(s, "best"))
                select = GROVE_SELECT_BEST;
            else
                return spec_error(S, p, "select must be \"first\" or \"best\", not %s",
                                  vt == LUA_TSTRING ? s : luaL_typename(S, -1));
        } else if (!strcmp(k, "id_order")) {
            const char *v = vt == LUA_TSTRING ? lua_tostring(S, -1) : "";
            size_t i = 0;
            while (i < sizeof(id_order_names) / sizeof(*id_order_names)
                   && strcmp(v, id_order_names[i]))
                i++;
            if (i == sizeof(id_order_names) / sizeof(*id_order_names))
                return spec_error(S, p,
                                  "id_order must be \"ascending\", \"descending\" or "
                                  "\"none\", not %s",
                                  vt == LUA_TSTRING ? v : luaL_typename(S, -1));
            id_order = (int)id_order_values[i];
        } else if ((flag = flag_index(k)) >= 0) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(S, p, flag_errors[flag], luaL_typename(S, -1));
            flags[flag] = lua_toboolean(S, -1);
        } else if (!strcmp(k, "score_reads")) {
            if (parse_reads(S, p, l, lua_gettop(S)) < 0)
                return -1;
        } else if (!strcmp(k, "prune_types") || !strcmp(k, "score_types")) {
            if (parse_types(S, p, l, k[0] == 's', lua_gettop(S), k) < 0)
                return -1;
        } else if (hook == H_ORDER && vt == LUA_TTABLE) {
            if (parse_order_table(S, p, l, lua_gettop(S), uv) < 0)
                return -1;
            given[H_ORDER] = true;
        } else if (hook >= 0) {
            if (vt != LUA_TFUNCTION)
                return spec_error(S, p, hook == H_ORDER
                                            ? "order must be a function or a table, not %s"
                                            : "a hook must be a function, not %s",
                                  luaL_typename(S, -1));
            lua_pushvalue(S, -1);
            lua_setfield(S, uv, k);
            p->lua[hook] = true;
            given[hook] = true;
            func_where(S, -1, p->where[hook], sizeof(p->where[hook]));
        } else {
            static const char *const fields[] = {
                "name", "description", "base", "prune", "order", "score", "scores", "choose",
                "select", "node_exclusive", "node_centric", "id_order", "explore_by_use",
                "score_local", "score_reads", "prune_types", "score_types", NULL};
            return unknown_name(S, p, l, k, "", "field", k, fields);
        }
        lua_pop(S, 1);
    }
    if (given[H_SCORE] && given[H_SCORES])
        return spec_error(S, p, "%s", "score and scores both given (scores replaces score)");
    if (!p->name && !(p->name = strdup(dflt)))
        return spec_error(S, p, "%s", "out of memory");
    return spec_hooks(S, p, base, select, flags, given, id_order);
}

/* ---- what the hooks read ------------------------------------------------------------------- */

/* The fields of ctx score_reads may name, and their bits. */
static unsigned reads_named(const struct grovel_policy *p)
{
    unsigned r = 0;
    for (size_t i = 0; p->reads && p->reads[i]; i++) {
        const char *f = p->reads[i];
        if (!strcmp(f, "type"))
            r |= GROVE_READ_TYPE;
        else if (!strcmp(f, "count"))
            r |= GROVE_READ_COUNT;
        else if (!strcmp(f, "total"))
            r |= GROVE_READ_TOTAL;
        else if (!strcmp(f, "start") || !strcmp(f, "end") || !strcmp(f, "duration"))
            r |= GROVE_READ_WINDOW;
    }
    return r;
}

/* What the proofs (l_policy_proof.c) give the hooks: a score of the
 * policy's own is watched (observe), and what it declares (score_local,
 * score_reads) is checked: against its code now (a declaration the code
 * cannot back is refused), against what each call reads as it runs (a
 * read the declaration leaves out raises there); a prune whose code reads
 * only the graph's content is taken as such (prune_static), and a call
 * that reads anything else raises.  0, or -1 with a message pushed. */
static int settle_proofs(lua_State *S, struct grovel_policy *p, const struct loading *l)
{
    grove_policy_t *h = &p->hooks;
    int kind = p->lua[H_SCORES] ? H_SCORES : p->lua[H_SCORE] ? H_SCORE : -1;
    p->score_deny = 0;
    p->score_denied[0] = '\0';
    if (kind >= 0) {
        const struct proof *pr = &p->proof[kind];
        h->observe = grovelp_policy_observe;
        if (h->score_local && (!pr->pure || (kind == H_SCORES && !pr->apart))) {
            push_field_where(S, p, l, "score_local");
            lua_pushfstring(S, "score_local: the %s hook's code does not show that each score "
                               "is local: %s (leave score_local out: the engine keeps a ranking "
                               "only for what it can check)",
                            hook_names[kind], pr->why);
            lua_concat(S, 2);
            return -1;
        }
        if (h->score_local) {
            unsigned named = reads_named(p);
            p->score_deny = GROVE_READ_OTHER;
            if (p->reads)
                p->score_deny |= (GROVE_READ_TYPE | GROVE_READ_COUNT | GROVE_READ_TOTAL
                                  | GROVE_READ_WINDOW) & ~named;
            char *d = p->score_denied;
            size_t cap = sizeof(p->score_denied), at = 0;
            if (!p->reads) {
                snprintf(d, cap, "not what a local score reads (its candidate, the records below "
                                 "it during the window, ctx's type, count, total, start, end, "
                                 "duration), and the policy declares score_local = true");
            } else {
                at = (size_t)snprintf(d, cap, "the policy's score_reads names only {");
                for (size_t i = 0; p->reads[i] && at < cap; i++)
                    at += (size_t)snprintf(d + at, cap - at, "%s%s", i ? ", " : "", p->reads[i]);
                if (at < cap)
                    snprintf(d + at, cap - at, "}");
            }
        }
    }
    h->prune_static = p->lua[H_PRUNE] && p->proof[H_PRUNE].pure && p->proof[H_PRUNE].blind;
    p->prune_deny = h->prune_static ? ~(unsigned)0 : 0;
    p->prune_denied = "not the graph's content, which alone this prune's code was found to "
                      "read when the policy loaded";
    return 0;
}

/* The sandbox's hidden inputs (math.random, an address) in a hook: no
 * candidate's, and read like state of the policy's own. */
static void note_hidden(lua_State *S, void *arg, const char *what)
{
    struct grovel_policy *p = arg;
    grovel_views_note(S, &p->views, GROVE_READ_OTHER, what, GROVE_VID_NONE);
}

/* ---- loading ------------------------------------------------------------------------------ */

static void free_types(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

/* The handle's destroy: free what the policy holds (the handle then
 * clears every byte, which closes it). */
static void policy_free(void *arg)
{
    struct grovel_policy *p = arg;
    grovel_sandbox_close(&p->sb);
    free(p->name);
    free(p->description);
    free(p->source);
    free(p->key_prop);
    free(p->when);
    free(p->err);
    free(p->traceback);
    free(p->sk);
    free(p->vb);
    free(p->kval);
    free(p->kstamp);
    free(p->ostamp);
    free(p->pval);
    free(p->pbout);
    free(p->pstamp);
    free(p->cmark);
    free(p->cx.below);
    free(p->cx.below_done);
    free_types(p->types[0]);
    free_types(p->types[1]);
    free_types(p->reads);
    free(p->read_lines);
    free(p->type_lines[0]);
    free(p->type_lines[1]);
}

static void policy_closable(lua_State *L, void *ud)
{
    if (((struct grovel_policy *)ud)->active)
        luaL_error(L, "policy is running a match");
}

static void policy_describe(lua_State *L, void *arg)
{
    const struct grovel_policy *p = arg;
    lua_pushfstring(L, "grove.policy (%s, %s)", p->name, p->source);
}

static const grovel_class_t policy_class; /* defined by api.tsv */

/* The base name of path without its directory and ".lua". */
static const char *base_name(const char *path, size_t *len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".lua"))
        n -= 4;
    *len = n;
    return b;
}

/* In the sandbox, protected: load the chunk, run it, read its table.  0,
 * or 1 with the message on top and l->code set. */
static int load_body(lua_State *S)
{
    struct loading *l = lua_touserdata(S, 1);
    struct grovel_policy *p = l->p;
    grovel_views_open(S, &p->views);
    lua_createtable(S, 0, 5);
    int hooks = lua_gettop(S);
    lua_pushvalue(S, hooks);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &HOOKS_KEY);
    lua_createtable(S, 0, 16);
    grovelp_policy_ctx_open(S, p);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &CTX_KEY);
    int st = luaL_loadbufferx(S, l->text, l->len, l->chunkname, "t");
    if (st != LUA_OK) {
        l->code = st == LUA_ERRMEM ? "ENOMEM" : "EINVAL";
        return 1;
    }
    int fn = lua_gettop(S);
    lua_Debug ar;
    lua_pushvalue(S, fn);
    lua_getinfo(S, ">S", &ar);
    memcpy(p->short_src, ar.short_src, sizeof(p->short_src));
    snprintf(p->where[H_CHUNK], sizeof(p->where[H_CHUNK]), "%s", p->short_src);
    grovel_sandbox_push_env(&p->sb);
    lua_setupvalue(S, fn, 1); /* _ENV */
    st = grovel_sandbox_pcall(&p->sb, 0, 1);
    l->code = "EINVAL";
    if (st != LUA_OK) {
        grovelp_policy_record_error(p, H_CHUNK, st);
        lua_pushstring(S, p->err ? p->err : "policy failed to load");
        return 1;
    }
    if (lua_type(S, -1) != LUA_TTABLE) {
        lua_pushfstring(S, "%s: a policy must return a table (got %s)", p->short_src,
                        luaL_typename(S, -1));
        return 1;
    }
    int t = lua_gettop(S);
    size_t n;
    const char *b = base_name(l->dflt, &n);
    lua_pushlstring(S, b, n);
    if (parse_spec(S, p, l, t, hooks, lua_tostring(S, -1)) < 0)
        return 1;
    /* the chunk has run: from now on the libraries are constants, and
     * the hooks' code is read for what it may read */
    grovel_sandbox_freeze(&p->sb);
    grovelp_policy_prove(S, p, hooks);
    return settle_proofs(S, p, l) < 0;
}

/* Make a policy from text; source names it in messages.  Returns 1 (the
 * policy) or 3 (nil, message, code). */
static int make_policy(lua_State *L, const char *text, size_t len, const char *source,
                       const char *dflt, int optarg)
{
    /* the options of policy_load and policy_parse: the sandbox's limits
     * and the graph whose types the policy's type names are checked against */
    static const char *const options[] = {"budget", "memory", "time", "graph", NULL};
    grovel_sandbox_t limits;
    grovel_sandbox_check_limits(L, optarg, &limits, options);
    const grove_graph_t *tg = NULL;
    if (lua_type(L, optarg) == LUA_TTABLE) {
        /* the graph stays alive in the options table at optarg */
        if (lua_getfield(L, optarg, "graph") != LUA_TNIL
            && !(tg = grovel_handle_test(L, -1, &grovel_graph_class)))
            luaL_argerror(L, optarg, "graph must be an open grove.graph");
        lua_pop(L, 1);
    }
    struct grovel_policy *p = (struct grovel_policy *)grovel_handle_new(L, &policy_class);
    p->h.p = p;
    p->sb = limits;
    p->kgen = 1;
    p->views.epoch = 1;
    if (!(p->source = strdup(source)))
        return luaL_error(L, "out of memory");
    const char *chunkname = lua_pushfstring(L, "@%s", source);
    if (grovel_sandbox_open(&p->sb, source) < 0)
        return grovel_fail(L, "cannot create the policy's sandbox: out of memory", "ENOMEM");
    lua_State *S = p->sb.S;
    p->sb.hidden = note_hidden;
    p->sb.hidden_arg = p;
    struct loading l = {p, text, chunkname, dflt, len, "EINVAL", L};
    grovel_sandbox_start(&p->sb);
    lua_pushcfunction(S, load_body);
    lua_pushlightuserdata(S, &l);
    int st = lua_pcall(S, 1, 1, 0);
    grovel_sandbox_stop(&p->sb);
    if (st != LUA_OK || lua_toboolean(S, -1)) {
        /* the message is on top of the sandbox's stack: a string */
        const char *msg = lua_tostring(S, -1);
        if (st != LUA_OK) {
            char lim[512];
            const char *why = grovel_sandbox_limit_message(&p->sb, st, p->short_src, lim,
                                                           sizeof(lim));
            msg = why ? why : msg;
            l.code = st == LUA_ERRMEM && !why ? "ENOMEM" : "EINVAL";
        }
        lua_pushstring(L, msg ? msg : "policy failed to load");
        lua_settop(S, 0);
        return grovel_fail(L, lua_tostring(L, -1), l.code);
    }
    lua_settop(S, 0);
    lua_pop(L, 1);
    if (tg && !grovel_policy_check_types(L, p, tg))
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    return 1;
}

static void close_file(void *f)
{
    fclose(f);
}

static int l_policy_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 2); /* the options stay at 2 */
    struct grovel_box *box = grovel_box_new(L, close_file); /* owns the FILE */
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return grovel_fail_errno(L, e == ENOENT ? ENOENT : EINVAL,
                                 lua_pushfstring(L, "%s: %s", path, strerror(e)));
    }
    box->p = f;
    grove_limits_t lim;
    grove_limits_get(&lim);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t n, total = 0;
    const char *nul = NULL;
    do {
        char *dst = luaL_prepbuffer(&b);
        n = fread(dst, 1, LUAL_BUFFERSIZE, f);
        /* policy source is text: stop at the first NUL or past the input
         * limit rather than read a device that never ends (/dev/zero) */
        nul = memchr(dst, '\0', n);
        if (nul)
            n = (size_t)(nul - dst);
        luaL_addsize(&b, n);
        total += n;
    } while (!nul && n == LUAL_BUFFERSIZE && total <= lim.input);
    luaL_pushresult(&b);
    int bad = ferror(f) ? (errno ? errno : EIO) : 0; /* EISDIR for a directory */
    box->p = NULL;
    fclose(f);
    if (bad)
        return grovel_fail_errno(L, bad, lua_pushfstring(L, "%s: %s", path, strerror(bad)));
    if (nul)
        return grovel_fail_errno(L, EINVAL,
                                 lua_pushfstring(L, "%s: byte %I is NUL: not a text file", path,
                                                 (lua_Integer)total));
    if (total > lim.input)
        return grovel_fail_errno(
            L, EOVERFLOW,
            lua_pushfstring(L, "%s: larger than the input limit of %I bytes (GROVE_MAX_INPUT)",
                            path, (lua_Integer)lim.input));
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    return make_policy(L, text, len, path, path, 2);
}

/* ---- by name ------------------------------------------------------------------------ */

static const char FINDER_KEY = 'f'; /* registry key of the finder of names */

/* core.set_policy_finder(fn | nil) */
static int l_set_policy_finder(lua_State *L)
{
    return grovel_set_function(L, &FINDER_KEY);
}

int grovel_policy_named(lua_State *L, const char *spec)
{
    size_t n = strlen(spec);
    bool path = strchr(spec, '/') || (n > 4 && !strcmp(spec + n - 4, ".lua"));
    int top = lua_gettop(L);
    if (!path) {
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &FINDER_KEY) != LUA_TFUNCTION) {
            lua_settop(L, top);
            return 0;
        }
        lua_pushstring(L, spec);
        lua_call(L, 1, 3); /* path, or nil, message, code */
        if (lua_type(L, top + 1) != LUA_TSTRING) {
            if (lua_isnil(L, top + 3)) {
                lua_pushliteral(L, "ENOENT");
                lua_replace(L, top + 3);
            }
            return 3;
        }
        lua_settop(L, top + 1);
        spec = lua_tostring(L, top + 1);
    }
    lua_pushcfunction(L, l_policy_load);
    lua_pushstring(L, spec);
    lua_call(L, 1, 3);
    int base = lua_gettop(L) - 3, results = lua_isnil(L, base + 1) ? 3 : 1;
    for (int i = 1; i <= results; i++) { /* over the finder's path, if any */
        lua_pushvalue(L, base + i);
        lua_replace(L, top + i);
    }
    lua_settop(L, top + results);
    return results;
}

static int l_policy_parse(lua_State *L)
{
    size_t len;
    const char *name;
    const char *text = grovel_check_source(L, &len, &name);
    return make_policy(L, text, len, name, name, 3);
}

/* ---- type names ------------------------------------------------------------------------ */

/* Push the failure of name (field, written on line) for check_types:
 * where, the name, the closest type and the graph's types sorted by name. */
static void push_unknown_type(lua_State *L, const struct grovel_policy *p, const char *field,
                              const char *name, int line, const grove_graph_t *g)
{
    if (line > 0)
        lua_pushfstring(L, "%s:%d: %s: ", p->short_src, line, field);
    else
        lua_pushfstring(L, "%s: %s: ", p->short_src, field);
    grovel_push_unknown_type(L, L, g, name);
    lua_concat(L, 2);
}

bool grovel_policy_check_types(lua_State *L, const struct grovel_policy *p,
                               const grove_graph_t *g)
{
    static const char *const fields[] = {"prune_types", "score_types"};
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; p->types[w] && p->types[w][i]; i++)
            if (!grovel_type_known(g, p->types[w][i])) {
                push_unknown_type(L, p, fields[w], p->types[w][i], p->type_lines[w][i], g);
                return false;
            }
    if (p->when && !grovel_type_known(g, p->when)) {
        push_unknown_type(L, p, "order.when", p->when, p->when_line, g);
        return false;
    }
    for (size_t i = 0; p->reads && p->reads[i]; i++)
        if (!strncmp(p->reads[i], "total.", 6) && !grovel_type_known(g, p->reads[i] + 6)) {
            push_unknown_type(L, p, "score_reads", p->reads[i] + 6, p->read_lines[i], g);
            return false;
        }
    return true;
}

/* ---- matches ------------------------------------------------------------------------------ */

struct grovel_policy *grovel_test_policy(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, GROVEL_POLICY);
}

struct grovel_policy *grovel_check_policy(lua_State *L, int idx)
{
    return grovel_handle_check(L, idx, &policy_class);
}

bool grovel_policy_is_open(const struct grovel_policy *p)
{
    return p->h.p != NULL;
}

const grove_policy_t *grovel_policy_hooks(const struct grovel_policy *p)
{
    return &p->hooks;
}

bool grovel_policy_needs_lua(const struct grovel_policy *p)
{
    return p->lua[H_PRUNE] || p->lua[H_ORDER] || p->lua[H_SCORE] || p->lua[H_CHOOSE]
           || p->lua[H_SCORES]
           || (p->hooks.order == grovelp_policy_decl_order && p->key == K_FUNCTION);
}

const char *grovel_policy_error(const struct grovel_policy *p)
{
    return p->err;
}

/* In the sandbox, protected: push the hook functions and the ctx table. */
static int begin_body(lua_State *S)
{
    lua_settop(S, 0);
    lua_rawgetp(S, LUA_REGISTRYINDEX, &HOOKS_KEY);
    for (size_t i = 0; i < sizeof(hook_fields) / sizeof(*hook_fields); i++)
        lua_getfield(S, 1, hook_fields[i]);
    lua_remove(S, 1);
    lua_rawgetp(S, LUA_REGISTRYINDEX, &CTX_KEY);
    return S_COUNT;
}

/* Room for the per-match caches (key values by vertex, types below each
 * request vertex); raises on the host when memory is short. */
static void reserve_caches(lua_State *L, struct grovel_policy *p, const grove_graph_t *g)
{
    if (p->key == K_FUNCTION) {
        size_t n = grove_graph_vertex_slots(g), cap = p->kcap;
        if (n > cap) {
            if (grow((void **)&p->kval, &cap, n, sizeof(*p->kval)) < 0)
                luaL_error(L, "out of memory");
            cap = p->kcap;
            if (grow((void **)&p->kstamp, &cap, n, sizeof(*p->kstamp)) < 0)
                luaL_error(L, "out of memory");
            memset(p->kstamp + p->kcap, 0, (cap - p->kcap) * sizeof(*p->kstamp));
            p->kcap = cap;
        }
        if (++p->kgen == 0) {
            memset(p->kstamp, 0, p->kcap * sizeof(*p->kstamp));
            p->kgen = 1;
        }
    }
    if (p->lua[H_ORDER]) { /* without room, is_permutation sorts instead */
        size_t n = grove_graph_vertex_slots(g), cap = p->ocap;
        if (n > cap && grow((void **)&p->ostamp, &cap, n, sizeof(*p->ostamp)) == 0) {
            memset(p->ostamp + p->ocap, 0, (cap - p->ocap) * sizeof(*p->ostamp));
            p->ocap = cap;
        }
    }
    if (p->cx.nbelow)
        memset(p->cx.below_done, 0, p->cx.nbelow * sizeof(*p->cx.below_done));
    size_t n = grove_graph_vertex_slots(g);
    if (p->lua[H_PRUNE] && p->proof[H_PRUNE].pure && n > p->pcap) {
        /* without room, prune's answers are not kept */
        size_t cap = p->pcap, cap2 = p->pcap;
        if (grow((void **)&p->pval, &cap, n, sizeof(*p->pval)) == 0
            && grow((void **)&p->pstamp, &cap2, n, sizeof(*p->pstamp)) == 0) {
            memset(p->pstamp + p->pcap, 0, (cap2 - p->pcap) * sizeof(*p->pstamp));
            p->pcap = cap < cap2 ? cap : cap2;
        }
    }
    if (p->lua[H_SCORES] && n > p->cmcap) { /* without room, a scores call reads as not local */
        size_t cap = p->cmcap;
        if (grow((void **)&p->cmark, &cap, n, sizeof(*p->cmark)) == 0) {
            memset(p->cmark + p->cmcap, 0, (cap - p->cmcap) * sizeof(*p->cmark));
            p->cmcap = cap;
        }
    }
}

void grovel_policy_begin(lua_State *L, int pidx, const void *owner, grove_graph_t *g)
{
    struct grovel_policy *p = grovel_check_policy(L, pidx);
    if (p->active)
        luaL_error(L, "policy %s is already running a match", p->name);
    reserve_caches(L, p, g);
    lua_State *S = p->sb.S;
    if (!lua_checkstack(S, S_COUNT + 8))
        luaL_error(L, "policy %s: out of memory", p->name);
    p->base = lua_gettop(S);
    lua_pushcfunction(S, begin_body);
    if (lua_pcall(S, 0, S_COUNT, 0) != LUA_OK) {
        lua_settop(S, p->base);
        luaL_error(L, "policy %s: out of memory", p->name);
    }
    free(p->err);
    free(p->traceback);
    p->err = p->traceback = NULL;
    if (owner != p->owner || g != p->last_g) {
        p->views.epoch++; /* views of another matcher or graph stop working */
        if (p->views.epoch == 0)
            p->views.epoch = 1;
        p->owner = owner;
        p->last_g = g;
    }
    p->views.g = g;
    p->views.start = p->views.end = 0;
    p->views.tlen = 0;
    p->views.watch = false;
    p->views.contain = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    p->acc = (grove_policy_reads_t){0, 0};
    p->cx.valid = false;
    p->active = true;
    p->host = L;
    p->views.host = L;
    grovel_sandbox_start(&p->sb);
}

void grovel_policy_end(lua_State *L, struct grovel_policy *p)
{
    (void)L;
    grovel_sandbox_stop(&p->sb);
    p->active = false;
    p->host = NULL;
    p->views.host = NULL;
    p->views.g = NULL;
    lua_settop(p->sb.S, p->base);
}

/* ---- policy methods ------------------------------------------------------------------------ */

static int p_name(lua_State *L)
{
    lua_pushstring(L, grovel_check_policy(L, 1)->name);
    return 1;
}

enum { P_DESCRIPTION, P_TRACEBACK };

/* description() and traceback(): the text the arg names, or nothing. */
static int p_text(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    const char *s = grovel_uparg(L) == P_DESCRIPTION ? p->description : p->traceback;
    if (!s)
        return 0;
    lua_pushstring(L, s);
    return 1;
}

static int p_source(lua_State *L)
{
    lua_pushstring(L, grovel_check_policy(L, 1)->source);
    return 1;
}

static void push_types(lua_State *L, const char *const *list, const char *field)
{
    if (!list)
        return;
    grovel_push_strings(L, list, SIZE_MAX, NULL);
    lua_setfield(L, -2, field);
}

/* hooks() -> {prune = "lua" | "c", order = ..., score = ..., scores = ..., choose = ...,
 *             select = "first" | "best", node_exclusive = bool, node_centric = bool,
 *             id_order = "ascending" | "descending" (only when set),
 *             id_check = "follow" | "raise" (only when the matcher checks
 *                        id_order against the lists the order gives),
 *             explore_by_use = true, score_local = true (only when set),
 *             score_reads = {...} (with score_local, when not all),
 *             prune_types = {...},
 *             score_types = {...}} */
static int p_hooks(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    const grove_policy_t *h = &p->hooks;
    bool has[H_CHUNK] = {h->prune != NULL, h->order != NULL, h->score != NULL,
                         h->choose != NULL, false,
                         /* a Lua score is called through the scores hook */
                         h->scores != NULL && h->scores != grovelp_policy_tramp_score_all};
    lua_createtable(L, 0, 8);
    for (int i = 0; i < H_CHUNK; i++) {
        if (!has[i])
            continue;
        bool lua = p->lua[i]
                   || (i == H_ORDER && h->order == grovelp_policy_decl_order
                       && p->key == K_FUNCTION);
        grovel_set_string(L, hook_names[i], lua ? "lua" : "c");
    }
    grovel_set_string(L, "select", h->select == GROVE_SELECT_BEST ? "best" : "first");
    grovel_set_boolean(L, "node_exclusive", h->node_exclusive);
    grovel_set_boolean(L, "node_centric", h->node_centric);
    if (h->id_order != GROVE_ID_ORDER_NONE)
        grovel_set_string(L, "id_order",
                          h->id_order == GROVE_ID_ORDER_ASCENDING ? "ascending" : "descending");
    if (h->id_check != GROVE_ID_CHECK_NONE)
        grovel_set_string(L, "id_check", h->id_check == GROVE_ID_CHECK_FOLLOW ? "follow" : "raise");
    if (h->explore_by_use) {
        grovel_set_boolean(L, "explore_by_use", true);
    }
    if (h->score_local)
        grovel_set_boolean(L, "score_local", true);
    if (h->score_local && h->score_reads)
        push_types(L, h->score_reads, "score_reads");
    push_types(L, (const char *const *)p->types[0], "prune_types");
    push_types(L, (const char *const *)p->types[1], "score_types");
    return 1;
}

/* proofs() -> {score = true | "why not", prune = true | "why not"}: what
 * the hooks' code showed when the policy loaded (l_policy_proof.c): the
 * score (score or scores) local, its rankings kept while what it reads
 * is unchanged; the prune reading the graph's content alone.  Only for
 * the Lua hooks the policy has. */
static int p_proofs(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    lua_createtable(L, 0, 2);
    int kind = p->lua[H_SCORES] ? H_SCORES : p->lua[H_SCORE] ? H_SCORE : -1;
    if (kind >= 0) {
        const struct proof *pr = &p->proof[kind];
        if (pr->pure && (kind == H_SCORE || pr->apart))
            lua_pushboolean(L, 1);
        else
            lua_pushstring(L, pr->why);
        lua_setfield(L, -2, "score");
    }
    if (p->lua[H_PRUNE]) {
        if (p->hooks.prune_static)
            lua_pushboolean(L, 1);
        else
            lua_pushstring(L, p->proof[H_PRUNE].why);
        lua_setfield(L, -2, "prune");
    }
    return 1;
}

enum { P_BUDGET, P_MEMORY, P_TIME, P_HEAP };

/* budget(), memory(), time(): the limits; heap(): bytes the policy holds
 * now (what the memory cap counts). */
static int p_limit(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    switch (grovel_uparg(L)) {
    case P_BUDGET: lua_pushinteger(L, p->sb.budget); break;
    case P_MEMORY: lua_pushinteger(L, (lua_Integer)p->sb.memcap); break;
    case P_TIME: lua_pushnumber(L, p->sb.time); break;
    default: lua_pushinteger(L, (lua_Integer)(p->sb.heap - p->sb.base)); break;
    }
    return 1;
}

#include "api_policy.h"
