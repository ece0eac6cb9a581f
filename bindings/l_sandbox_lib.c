/* l_sandbox_lib.c: the library functions of the policy sandbox whose work
 * grows with their arguments, metered (lsandbox.h; the sandbox itself is
 * l_sandbox.c).
 *
 * The count hook meters a policy's own instructions, but a library call is
 * one instruction however much it does: table.move({}, 1, 2^40, 1) visits
 * 2^40 elements, ("").rep("", 2^62) loops 2^62 times, and an element read
 * or written through a metamethod that is a C function (__index = rawlen)
 * runs no instruction at all.  So every function of the allow-list whose
 * work is not bounded by a constant is charged here, before it works, by
 * the work its arguments say it will do (in instructions of the budget):
 *
 *   table.move, insert, remove,   one per element the call will visit: the
 *   concat, unpack                range given as integers, or the table's
 *                                 length (its __len included); concat also
 *                                 one per 16 bytes it joins
 *   table.sort                    n log2 n comparisons
 *   table.pack, string.char,      one per argument
 *   utf8.char
 *   string.rep                    count x (length + separator) / 16: the
 *                                 bytes it writes; a count of copies of ""
 *                                 costs nothing, being ""
 *   string.pack, unpack,          one per byte of the format
 *   packsize
 *   string.byte, utf8.codepoint   one per value it returns
 *   every other metered one       one per 16 bytes of its string arguments
 *                                 (format, lower, upper, reverse, sub,
 *                                 utf8.len, offset, tonumber, tostring),
 *                                 and of its results after the call
 *
 * Charging first stops a call the budget cannot pay for before it starts.
 * A call the budget can pay for may still outlast the wall clock, so the
 * calls that loop run in pieces: the table functions read the clock every
 * GROVEL_SB_PIECE elements, string.rep every mebibyte it writes, and
 * table.sort every GROVEL_SB_PIECE elements it moves and comparisons it
 * makes, charging comparisons beyond n log2 n (an inconsistent order
 * function can make Lua's quicksort, which runs above MERGE_MAX
 * elements, quadratic).  The
 * other calls do work bounded by the bytes of their arguments, which the
 * memory cap bounds.  The table functions are Grove's own, with the
 * standard library's arguments, results and error messages; table.sort is
 * a natural merge sort (below), stable, adaptive to the order its input
 * already has.
 *
 * Workload: the calls policies make, on a few thousand elements; a piece
 * costs one clock read.
 */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "lsandbox.h"

#define REP_PIECE (1 << 20) /* bytes string.rep writes between two clock reads */

/* a + b, saturated at LUA_MAXINTEGER (both non-negative) */
static lua_Integer sat_add(lua_Integer a, lua_Integer b)
{
    return a > LUA_MAXINTEGER - b ? LUA_MAXINTEGER : a + b;
}

/* Charge n elements (an unsigned count, saturated) before visiting them. */
static void prepay(lua_State *S, lua_Unsigned n)
{
    grovel_sandbox_charge(S, n > (lua_Unsigned)LUA_MAXINTEGER ? LUA_MAXINTEGER : (lua_Integer)n);
}

/* Read the clock when visits (counted from 0) completes a piece. */
static void piece(lua_State *S, lua_Unsigned visits)
{
    if ((visits + 1) % GROVEL_SB_PIECE == 0)
        grovel_sandbox_charge(S, 0);
}

/* ---- tables ------------------------------------------------------------------ */

enum { T_READ = 1, T_WRITE = 2, T_LEN = 4, T_ALL = 7 };

static bool has_meta(lua_State *S, const char *k)
{
    lua_pushstring(S, k);
    bool r = lua_rawget(S, -2) != LUA_TNIL;
    lua_pop(S, 1);
    return r;
}

/* The value at arg is a table, or has the metamethods what asks for. */
static void check_table(lua_State *S, int arg, int what)
{
    if (lua_type(S, arg) == LUA_TTABLE)
        return;
    bool ok = false;
    if (lua_getmetatable(S, arg)) {
        ok = (!(what & T_READ) || has_meta(S, "__index"))
             && (!(what & T_WRITE) || has_meta(S, "__newindex"))
             && (!(what & T_LEN) || has_meta(S, "__len"));
        lua_pop(S, 1);
    }
    if (!ok)
        luaL_checktype(S, arg, LUA_TTABLE);
}

static int sb_tmove(lua_State *S)
{
    lua_Integer f = luaL_checkinteger(S, 2);
    lua_Integer e = luaL_checkinteger(S, 3);
    lua_Integer t = luaL_checkinteger(S, 4);
    int tt = lua_isnoneornil(S, 5) ? 1 : 5; /* the destination table */
    check_table(S, 1, T_READ);
    check_table(S, tt, T_WRITE);
    if (e >= f) {
        luaL_argcheck(S, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(S, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        prepay(S, (lua_Unsigned)n);
        /* backwards when the destination overlaps the source's end */
        bool forward = t > e || t <= f || (tt != 1 && !lua_compare(S, 1, tt, LUA_OPEQ));
        for (lua_Integer i = 0; i < n; i++) {
            lua_Integer k = forward ? i : n - 1 - i;
            lua_geti(S, 1, f + k);
            lua_seti(S, tt, t + k);
            piece(S, (lua_Unsigned)i);
        }
    }
    lua_pushvalue(S, tt);
    return 1;
}

static int sb_tinsert(lua_State *S)
{
    check_table(S, 1, T_ALL);
    lua_Integer e = luaL_intop(+, luaL_len(S, 1), 1); /* the first empty slot */
    lua_Integer pos;
    switch (lua_gettop(S)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(S, 2);
        luaL_argcheck(S, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        if (e > pos)
            prepay(S, (lua_Unsigned)e - (lua_Unsigned)pos);
        for (lua_Integer i = e; i > pos; i--) {
            lua_geti(S, 1, i - 1);
            lua_seti(S, 1, i);
            piece(S, (lua_Unsigned)(e - i));
        }
        break;
    default:
        return luaL_error(S, "wrong number of arguments to 'insert'");
    }
    lua_seti(S, 1, pos);
    return 0;
}

static int sb_tremove(lua_State *S)
{
    check_table(S, 1, T_ALL);
    lua_Integer size = luaL_len(S, 1);
    lua_Integer pos = luaL_optinteger(S, 2, size);
    if (pos != size) /* argument 1, as the standard library of Lua 5.4.4 says */
        luaL_argcheck(S, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 1,
                      "position out of bounds");
    lua_geti(S, 1, pos); /* the result */
    if (size > pos)
        prepay(S, (lua_Unsigned)size - (lua_Unsigned)pos);
    for (lua_Unsigned k = 0; pos < size; pos++, k++) {
        lua_geti(S, 1, pos + 1);
        lua_seti(S, 1, pos);
        piece(S, k);
    }
    lua_pushnil(S);
    lua_seti(S, 1, pos);
    return 1;
}

static int sb_tconcat(lua_State *S)
{
    check_table(S, 1, T_READ | T_LEN);
    lua_Integer last = luaL_len(S, 1);
    size_t lsep;
    const char *sep = luaL_optlstring(S, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(S, 3, 1);
    last = luaL_optinteger(S, 4, last);
    luaL_Buffer b;
    luaL_buffinit(S, &b);
    if (i <= last) {
        prepay(S, (lua_Unsigned)last - (lua_Unsigned)i + 1u);
        size_t bytes = 0; /* joined since the last piece */
        for (lua_Unsigned k = 0;; i++, k++) {
            lua_geti(S, 1, i);
            size_t l;
            if (!lua_isstring(S, -1))
                return luaL_error(S, "invalid value (%s) at index %I in table for 'concat'",
                                  luaL_typename(S, -1), (LUAI_UACINT)i);
            lua_tolstring(S, -1, &l);
            luaL_addvalue(&b);
            bytes += l + lsep;
            if (i == last)
                break;
            luaL_addlstring(&b, sep, lsep);
            if ((k + 1) % GROVEL_SB_PIECE == 0 || bytes >= REP_PIECE) {
                grovel_sandbox_charge(S, (lua_Integer)(bytes / 16));
                bytes = 0;
            }
        }
        grovel_sandbox_charge(S, (lua_Integer)(bytes / 16));
    }
    luaL_pushresult(&b);
    return 1;
}

static int sb_tunpack(lua_State *S)
{
    lua_Integer i = luaL_optinteger(S, 2, 1);
    lua_Integer e = lua_isnoneornil(S, 3) ? luaL_len(S, 1) : luaL_checkinteger(S, 3);
    if (i > e)
        return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i; /* one less than the count */
    if (n >= (lua_Unsigned)INT_MAX || !lua_checkstack(S, (int)++n))
        return luaL_error(S, "too many results to unpack");
    prepay(S, n);
    for (lua_Unsigned k = 0; i < e; i++, k++) {
        lua_geti(S, 1, i);
        piece(S, k);
    }
    lua_geti(S, 1, e);
    return (int)n;
}

/* ---- table.sort: a natural merge sort -------------------------------------------
 *
 * Policies sort child lists and candidates that mostly arrive in some
 * order already (graph order: ascending ids), ascending or descending:
 * an `order` hook sorting nodes highest id first gets them lowest first.
 * Lua's quicksort makes about n log2 n comparisons whatever the input,
 * and each is a call of the policy's function; this sort finds the runs
 * the input already holds (a descending one is reversed), so such a list
 * costs n - 1 comparisons, and merges the runs otherwise (at most about
 * n log2 n).  It is stable: equal elements keep their order.
 *
 * The elements are read once onto the stack (A, then a buffer B as large:
 * at most MERGE_MAX elements, beyond which Lua's own sort runs), sorted
 * there, and written back once, with lua_geti and lua_seti as Lua's sort
 * reads and writes them (metamethods included).
 */

#define MERGE_MAX 65536 /* elements sorted on the stack; more: Lua's sort */
#define MIN_RUN 8       /* a shorter run is extended by binary insertion */

struct msort {
    bool fn;                 /* a comparison function at stack slot 2 */
    lua_Integer paid, made;  /* comparisons paid for, made */
};

/* stack[x] < stack[y] by the policy's function (or <). */
static bool ms_less(lua_State *S, struct msort *m, int x, int y)
{
    if (++m->made % GROVEL_SB_PIECE == 0)
        grovel_sandbox_charge(S, m->made > m->paid ? GROVEL_SB_PIECE : 0);
    if (!m->fn)
        return lua_compare(S, x, y, LUA_OPLT);
    lua_pushvalue(S, 2);
    lua_pushvalue(S, x);
    lua_pushvalue(S, y);
    lua_call(S, 2, 1);
    bool r = lua_toboolean(S, -1);
    lua_pop(S, 1);
    return r;
}

static void ms_swap(lua_State *S, int x, int y)
{
    lua_pushvalue(S, x);
    lua_copy(S, y, x);
    lua_replace(S, y);
}

/* Sort the n elements at stack slots a .. a + n - 1, with n more slots at
 * b as the buffer and runs (n + 1 ints) for the run bounds; the result is
 * left at a. */
static void ms_sort(lua_State *S, struct msort *m, int a, int b, int n, int *runs)
{
    int nr = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        if (j < n) {
            if (ms_less(S, m, a + j, a + j - 1)) { /* strictly descending: reverse */
                while (j + 1 < n && ms_less(S, m, a + j + 1, a + j))
                    j++;
                for (int lo = i, hi = j; lo < hi; lo++, hi--)
                    ms_swap(S, a + lo, a + hi);
            } else {
                while (j + 1 < n && !ms_less(S, m, a + j + 1, a + j))
                    j++;
            }
            j++;
        }
        for (int end = n - i < MIN_RUN ? n : i + MIN_RUN; j < end; j++) {
            int lo = i, hi = j; /* insert after the equal ones: stable */
            while (lo < hi) {
                int mid = lo + (hi - lo) / 2;
                if (ms_less(S, m, a + j, a + mid))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            if (lo < j) {
                lua_pushvalue(S, a + j);
                for (int k = j; k > lo; k--)
                    lua_copy(S, a + k - 1, a + k);
                lua_replace(S, a + lo);
            }
        }
        runs[nr++] = i;
        i = j;
    }
    runs[nr] = n;
    int src = a, dst = b;
    while (nr > 1) {
        int out = 0;
        for (int r = 0; r < nr; r += 2) {
            int lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nr ? runs[r + 2] : mid;
            int p = lo, q = mid, k = lo;
            if (q < hi && !ms_less(S, m, src + q, src + q - 1))
                p = q = hi; /* already in order: copied below */
            while (p < mid && q < hi) {
                if (ms_less(S, m, src + q, src + p))
                    lua_copy(S, src + q++, dst + k++);
                else
                    lua_copy(S, src + p++, dst + k++);
            }
            if (p == hi) /* in order */
                for (int x = lo; x < hi; x++)
                    lua_copy(S, src + x, dst + x);
            for (; p < mid; p++)
                lua_copy(S, src + p, dst + k++);
            for (; q < hi; q++)
                lua_copy(S, src + q, dst + k++);
            runs[out++] = lo;
        }
        runs[out] = n;
        nr = out;
        int t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        for (int x = 0; x < n; x++)
            lua_copy(S, src + x, a + x);
}

/* The comparator Lua's sort runs through for a sort too large for the
 * stack: upvalue 1 the policy's order function (or nil: <), 2 the
 * comparisons paid for, 3 the comparisons made. */
static int counted_less(lua_State *S)
{
    lua_Integer paid = lua_tointeger(S, lua_upvalueindex(2));
    lua_Integer made = lua_tointeger(S, lua_upvalueindex(3)) + 1;
    lua_pushinteger(S, made);
    lua_replace(S, lua_upvalueindex(3));
    if (made % GROVEL_SB_PIECE == 0)
        grovel_sandbox_charge(S, made > paid ? GROVEL_SB_PIECE : 0);
    if (lua_isnil(S, lua_upvalueindex(1))) {
        lua_pushboolean(S, lua_compare(S, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, 2, 1);
    return 1;
}

/* table.sort: charged n log2 n first, then the merge sort above; a sort
 * larger than MERGE_MAX runs Lua's own (upvalue 1) through counted_less. */
static int sb_tsort(lua_State *S)
{
    check_table(S, 1, T_ALL);
    lua_Integer n = luaL_len(S, 1);
    if (!lua_isnoneornil(S, 2))
        luaL_checktype(S, 2, LUA_TFUNCTION);
    lua_settop(S, 2);
    lua_Integer cost = 1;
    if (n > 1) {
        lua_Integer lg = 0;
        for (lua_Unsigned m = (lua_Unsigned)n; m > 1; m >>= 1)
            lg++;
        cost = n > LUA_MAXINTEGER / (lg + 1) ? LUA_MAXINTEGER : n * (lg + 1);
    }
    grovel_sandbox_charge(S, cost);
    if (n < 2)
        return 0;
    if (n <= MERGE_MAX && lua_checkstack(S, 2 * (int)n + 8)) {
        struct msort m = {!lua_isnil(S, 2), cost, 0};
        int *runs = lua_newuserdatauv(S, ((size_t)n + 1) * sizeof(*runs), 0);
        int a = lua_gettop(S) + 1, b = a + (int)n;
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(S, 1, i);
            piece(S, (lua_Unsigned)i - 1);
        }
        lua_settop(S, b + (int)n - 1);
        ms_sort(S, &m, a, b, (int)n, runs);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_pushvalue(S, a + (int)i - 1);
            lua_seti(S, 1, i);
            piece(S, (lua_Unsigned)i - 1);
        }
        return 0;
    }
    lua_pushvalue(S, 2);
    lua_pushinteger(S, cost);
    lua_pushinteger(S, 0);
    lua_pushcclosure(S, counted_less, 3);
    lua_replace(S, 2);
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, 2, 0);
    return 0;
}

/* ---- strings ----------------------------------------------------------------- */

static int sb_rep(lua_State *S)
{
    size_t l, lsep;
    const char *s = luaL_checklstring(S, 1, &l);
    lua_Integer n = luaL_checkinteger(S, 2);
    const char *sep = luaL_optlstring(S, 3, "", &lsep);
    size_t unit = l + lsep; /* one copy and its separator */
    if (n <= 0 || unit == 0) {
        grovel_sandbox_charge(S, 1);
        lua_pushliteral(S, "");
        return 1;
    }
    if (unit < l || unit > (size_t)LUA_MAXINTEGER / (size_t)n)
        return luaL_error(S, "resulting string too large");
    size_t want = (size_t)n * unit; /* n units; the last separator is dropped */
    luaL_Buffer b; /* first, so that a block past the memory cap is refused as such */
    char *p = luaL_buffinitsize(S, &b, want);
    grovel_sandbox_charge(S, sat_add(1, (lua_Integer)(want / 16)));
    memcpy(p, s, l);
    if (lsep)
        memcpy(p + l, sep, lsep);
    /* double what is written, a whole number of units at a time, at most
     * about REP_PIECE bytes before each clock read */
    size_t step = REP_PIECE < unit ? unit : REP_PIECE - REP_PIECE % unit;
    for (size_t done = unit; done < want;) {
        size_t k = want - done < done ? want - done : done;
        if (k > step)
            k = step;
        memcpy(p + done, p, k);
        done += k;
        grovel_sandbox_charge(S, 0);
    }
    luaL_pushresultsize(&b, want - lsep);
    return 1;
}

/* ---- the generic meter ---------------------------------------------------------- */

/* The work a value stands for: a string's bytes / 16, a table's length. */
static lua_Integer work_of(lua_State *S, int i)
{
    switch (lua_type(S, i)) {
    case LUA_TSTRING: return (lua_Integer)(lua_rawlen(S, i) / 16);
    case LUA_TTABLE: return (lua_Integer)lua_rawlen(S, i);
    default: return 0;
    }
}

/* How metered charges beyond its arguments' sizes (upvalue 2). */
enum { BY_SIZE, BY_FORMAT, BY_RANGE };

/* An integer argument, or dflt when it is absent or no integer (the call
 * itself then refuses it). */
static lua_Integer int_arg(lua_State *S, int i, lua_Integer dflt)
{
    int isint;
    lua_Integer v = lua_tointegerx(S, i, &isint);
    return isint ? v : dflt;
}

/* For string.byte and utf8.codepoint: the values s:byte(i, j) returns, at
 * most the string's bytes. */
static lua_Integer range_of(lua_State *S)
{
    if (lua_type(S, 1) != LUA_TSTRING)
        return 0;
    lua_Integer l = (lua_Integer)lua_rawlen(S, 1);
    lua_Integer i = int_arg(S, 2, 1), j = int_arg(S, 3, i);
    i = i > 0 ? i : i == 0 || i < -l ? 1 : l + i + 1;
    j = j > l ? l : j >= 0 ? j : j < -l ? 0 : l + j + 1;
    return j >= i ? j - i + 1 : 0;
}

/* The library function in upvalue 1, charged before the call for its
 * arguments (one each, one per 16 bytes of a string, one per element of
 * a table; a format's bytes one each; string.byte's values), and after it
 * for its results. */
static int metered(lua_State *S)
{
    int n = lua_gettop(S);
    /* tostring and string.format show a table's address, which no match
     * gives (a light userdata is a view, shown by its name) */
    if (lua_tointeger(S, lua_upvalueindex(3))) {
        bool format = lua_tointeger(S, lua_upvalueindex(3)) == 2;
        for (int i = format ? 2 : 1; i <= (format ? n : 1); i++) {
            int t = lua_type(S, i);
            if ((t == LUA_TTABLE || t == LUA_TFUNCTION || t == LUA_TUSERDATA || t == LUA_TTHREAD)
                && luaL_getmetafield(S, i, "__tostring") == LUA_TNIL) {
                grovel_sandbox_hidden(S, format ? "string.format of a table's address"
                                                : "tostring of a table's address");
                break;
            } else if (t == LUA_TTABLE || t == LUA_TFUNCTION || t == LUA_TUSERDATA
                       || t == LUA_TTHREAD) {
                lua_pop(S, 1);
            }
        }
        if (format && lua_type(S, 1) == LUA_TSTRING && strstr(lua_tostring(S, 1), "%p"))
            grovel_sandbox_hidden(S, "string.format of an address (%p)");
    }
    lua_Integer work = 1 + n;
    for (int i = 1; i <= n; i++)
        work = sat_add(work, work_of(S, i));
    switch (lua_tointeger(S, lua_upvalueindex(2))) {
    case BY_FORMAT:
        if (lua_type(S, 1) == LUA_TSTRING)
            work = sat_add(work, (lua_Integer)lua_rawlen(S, 1));
        break;
    case BY_RANGE:
        work = sat_add(work, range_of(S));
        break;
    }
    grovel_sandbox_charge(S, work);
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, n, LUA_MULTRET);
    int r = lua_gettop(S);
    work = r;
    for (int i = 1; i <= r && i <= 8; i++)
        work = sat_add(work, work_of(S, i));
    grovel_sandbox_charge(S, work);
    return r;
}

/* Wrap the functions names (NULL-ended) of the library table on top. */
static void meter(lua_State *S, const char *const *names, int how)
{
    for (int i = 0; names[i]; i++) {
        if (lua_getfield(S, -1, names[i]) != LUA_TFUNCTION) {
            lua_pop(S, 1);
            continue;
        }
        lua_pushinteger(S, how);
        /* what shows an address (sb->hidden): tostring 1, format 2 */
        lua_pushinteger(S, !strcmp(names[i], "tostring") ? 1 : !strcmp(names[i], "format") ? 2 : 0);
        lua_pushcclosure(S, metered, 3);
        lua_setfield(S, -2, names[i]);
    }
}

void grovel_sandbox_meter(lua_State *S, const char *lib)
{
    static const char *const base[] = {"tonumber", "tostring", NULL};
    static const char *const tsize[] = {"pack", NULL};
    static const char *const ssize[] = {"char", "format", "lower", "reverse", "sub", "upper",
                                        NULL};
    static const char *const sformat[] = {"pack", "packsize", "unpack", NULL};
    static const char *const range[] = {"byte", NULL};
    static const char *const usize[] = {"char", "len", "offset", NULL};
    static const char *const urange[] = {"codepoint", NULL};
    static const luaL_Reg table[] = {
        {"concat", sb_tconcat}, {"insert", sb_tinsert}, {"move", sb_tmove},
        {"remove", sb_tremove}, {"unpack", sb_tunpack}, {NULL, NULL},
    };
    if (!strcmp(lib, "_G")) {
        meter(S, base, BY_SIZE);
    } else if (!strcmp(lib, "table")) {
        luaL_setfuncs(S, table, 0);
        lua_getfield(S, -1, "sort");
        lua_pushcclosure(S, sb_tsort, 1);
        lua_setfield(S, -2, "sort");
        meter(S, tsize, BY_SIZE);
    } else if (!strcmp(lib, "string")) {
        lua_pushcfunction(S, sb_rep);
        lua_setfield(S, -2, "rep");
        meter(S, ssize, BY_SIZE);
        meter(S, sformat, BY_FORMAT);
        meter(S, range, BY_RANGE);
    } else if (!strcmp(lib, "utf8")) {
        meter(S, usize, BY_SIZE);
        meter(S, urange, BY_RANGE);
    }
}

/* Nothing of this file is in grove.core: these functions live only in
 * sandboxes. */
int grovel_open_sandbox_lib(lua_State *L)
{
    (void)L;
    return 0;
}
