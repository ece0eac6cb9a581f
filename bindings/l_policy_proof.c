/* l_policy_proof.c: what the engine can prove of a Lua policy's hooks
 * from their code, once, when the policy loads.
 *
 * A kept ranking (core/match_keep.c) is right only if each candidate's
 * score depends on nothing the engine does not see.  What a hook reads
 * through ctx and the views is Grove's own and is watched as it runs
 * (l_policy_views.c, l_view.c); what it reads of its own cannot be: its
 * upvalues, tables it keeps, one candidate's values in another's score.
 * So the hooks' code is read (lua_dump of each function, the bytecode of
 * Lua 5.4 as its own compiler makes it from text: a policy is never
 * loaded from a binary chunk) and three things are proved or not:
 *
 *   pure   the hook and every function it may call read no state of the
 *          policy's own: each upvalue it reaches holds a number, string,
 *          boolean, nil, a function (itself pure), the environment or a
 *          library (read-only once the policy loaded: l_sandbox.c), and no
 *          function the policy holds assigns any of them.  What is left
 *          that the code cannot show (math.random, a table's address) is
 *          watched as it runs (the sandbox's hidden inputs).
 *   apart  (scores) the score of each candidate comes from its own values
 *          only: the candidates, keys[...] arrays and the arrays written
 *          at a loop's index are read and written at the index of a
 *          numeric for loop that carries nothing from one candidate to the
 *          next (writes no local declared before it, writes no table but
 *          those arrays at its index and tables it makes, calls nothing
 *          that may write what it was handed), #array only bounds such a
 *          loop, and the arrays go nowhere else (returned, at most).
 *   blind  (prune) reads nothing of ctx (its second parameter is never
 *          read) and no records (it names none of the methods that read
 *          them, and indexes nothing by a computed key).
 *
 * Each proof is conservative: code it does not recognise proves nothing,
 * and the engine then keeps nothing (the default is safe).  A policy that
 * declares what a proof would have to back (score_local) and whose code
 * does not back it is refused with the reason (l_policy.c).
 *
 * Workload: once per policy load, over the functions its hooks reach:
 * microseconds for the policies of a file or two.
 *
 * This file must not call hooks (l_policy_dispatch.c) nor hand them
 * anything (l_policy_views.c); it reads the sandbox's values and code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpolicy_private.h"

#if LUA_VERSION_NUM != 504
#error "the proofs read Lua 5.4's bytecode"
#endif

/* ---- Lua 5.4's bytecode -------------------------------------------------------------- */

/* The opcodes of Lua 5.4 (lopcodes.h), in their order. */
enum {
    OP_MOVE, OP_LOADI, OP_LOADF, OP_LOADK, OP_LOADKX, OP_LOADFALSE, OP_LFALSESKIP, OP_LOADTRUE,
    OP_LOADNIL, OP_GETUPVAL, OP_SETUPVAL, OP_GETTABUP, OP_GETTABLE, OP_GETI, OP_GETFIELD,
    OP_SETTABUP, OP_SETTABLE, OP_SETI, OP_SETFIELD, OP_NEWTABLE, OP_SELF, OP_ADDI, OP_ADDK,
    OP_SUBK, OP_MULK, OP_MODK, OP_POWK, OP_DIVK, OP_IDIVK, OP_BANDK, OP_BORK, OP_BXORK, OP_SHRI,
    OP_SHLI, OP_ADD, OP_SUB, OP_MUL, OP_MOD, OP_POW, OP_DIV, OP_IDIV, OP_BAND, OP_BOR, OP_BXOR,
    OP_SHL, OP_SHR, OP_MMBIN, OP_MMBINI, OP_MMBINK, OP_UNM, OP_BNOT, OP_NOT, OP_LEN, OP_CONCAT,
    OP_CLOSE, OP_TBC, OP_JMP, OP_EQ, OP_LT, OP_LE, OP_EQK, OP_EQI, OP_LTI, OP_LEI, OP_GTI,
    OP_GEI, OP_TEST, OP_TESTSET, OP_CALL, OP_TAILCALL, OP_RETURN, OP_RETURN0, OP_RETURN1,
    OP_FORLOOP, OP_FORPREP, OP_TFORPREP, OP_TFORCALL, OP_TFORLOOP, OP_SETLIST, OP_CLOSURE,
    OP_VARARG, OP_VARARGPREP, OP_EXTRAARG, OP_N
};

#define OPC(i) ((int)((i) & 0x7f))
#define ARG_A(i) ((int)(((i) >> 7) & 0xff))
#define ARG_K(i) ((int)(((i) >> 15) & 1))
#define ARG_B(i) ((int)(((i) >> 16) & 0xff))
#define ARG_C(i) ((int)(((i) >> 24) & 0xff))
#define ARG_BX(i) ((int)((i) >> 15))

/* Constant tags of a dump (lobject.h's variants). */
enum { K_NIL = 0, K_FALSE = 1, K_TRUE = 17, K_INT = 3, K_FLT = 19, K_SHRSTR = 4, K_LNGSTR = 20 };

struct kst {
    const char *s; /* a string constant (not NUL-ended), or NULL */
    size_t len;
};

struct updesc {
    uint8_t instack, idx;
    struct kst name; /* "_ENV", ... */
};

/* One function's prototype, read from a dump. */
struct proto {
    const unsigned char *code; /* ncode instructions, little-endian words */
    size_t ncode;
    int nparams, vararg, maxstack, linedefined;
    struct kst *k;
    size_t nk;
    struct updesc *up;
    size_t nup;
    struct proto *kids; /* the functions it makes (CLOSURE) */
    size_t nkids;
    struct proto *parent;
    const signed char *lineinfo; /* nline deltas */
    size_t nline;
    int *abspc, *absline; /* nabs */
    size_t nabs;
};

static uint32_t ins_at(const struct proto *f, size_t pc)
{
    const unsigned char *c = f->code + 4 * pc;
    return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

/* The source line of instruction pc (luaG_getfuncline), 0 when unknown. */
static int line_of(const struct proto *f, size_t pc)
{
    if (!f->lineinfo || pc >= f->nline)
        return f->linedefined;
    size_t i = 0, base;
    int line;
    if (f->nabs == 0 || (int)pc < f->abspc[0]) {
        base = (size_t)-1;
        line = f->linedefined;
    } else {
        while (i + 1 < f->nabs && (int)pc >= f->abspc[i + 1])
            i++;
        base = (size_t)f->abspc[i];
        line = f->absline[i];
    }
    while (base + 1 <= pc) {
        base++;
        line += f->lineinfo[base];
    }
    return line;
}

/* Reading a dump: its bytes, where we are, and what it allocated. */
struct reader {
    const unsigned char *b;
    size_t n, at;
    bool bad;
    void **blocks; /* every allocation, freed with the reader */
    size_t nblocks, capblocks;
};

static void *r_alloc(struct reader *r, size_t n)
{
    if (r->bad || grow((void **)&r->blocks, &r->capblocks, r->nblocks + 1, sizeof(void *)) < 0) {
        r->bad = true;
        return NULL;
    }
    void *p = calloc(n ? n : 1, 1);
    if (!p)
        r->bad = true;
    else
        r->blocks[r->nblocks++] = p;
    return p;
}

static void r_free(struct reader *r)
{
    for (size_t i = 0; i < r->nblocks; i++)
        free(r->blocks[i]);
    free(r->blocks);
    r->blocks = NULL;
    r->nblocks = r->capblocks = 0;
}

static int r_byte(struct reader *r)
{
    if (r->at >= r->n) {
        r->bad = true;
        return 0;
    }
    return r->b[r->at++];
}

static const unsigned char *r_bytes(struct reader *r, size_t n)
{
    if (r->bad || n > r->n - r->at) {
        r->bad = true;
        return NULL;
    }
    const unsigned char *p = r->b + r->at;
    r->at += n;
    return p;
}

/* A size (ldump.c's dumpSize: seven bits a byte, the last marked). */
static size_t r_size(struct reader *r)
{
    size_t x = 0;
    int b;
    do {
        b = r_byte(r);
        if (x > ((size_t)-1 >> 8)) {
            r->bad = true;
            return 0;
        }
        x = (x << 7) | (size_t)(b & 0x7f);
    } while (!r->bad && !(b & 0x80));
    return x;
}

/* A count of n elements of at least min bytes each: no more than the
 * dump can hold. */
static size_t r_count(struct reader *r, size_t min)
{
    size_t n = r_size(r);
    if (min && n > (r->n - r->at) / min)
        r->bad = true;
    return r->bad ? 0 : n;
}

static struct kst r_string(struct reader *r)
{
    size_t n = r_size(r);
    struct kst s = {NULL, 0};
    if (n == 0 || r->bad)
        return s;
    s.s = (const char *)r_bytes(r, n - 1);
    s.len = s.s ? n - 1 : 0;
    return s;
}

static void r_function(struct reader *r, struct proto *f, int depth)
{
    if (depth > 200) { /* the compiler's own limit is lower */
        r->bad = true;
        return;
    }
    r_string(r); /* source */
    f->linedefined = (int)r_size(r);
    r_size(r); /* lastlinedefined */
    f->nparams = r_byte(r);
    f->vararg = r_byte(r);
    f->maxstack = r_byte(r);
    f->ncode = r_count(r, 4);
    f->code = r_bytes(r, 4 * f->ncode);
    f->nk = r_count(r, 1);
    f->k = r_alloc(r, f->nk * sizeof(*f->k));
    for (size_t i = 0; i < f->nk && !r->bad; i++) {
        int t = r_byte(r);
        if (t == K_INT || t == K_FLT)
            r_bytes(r, 8);
        else if (t == K_SHRSTR || t == K_LNGSTR)
            f->k[i] = r_string(r);
        else if (t != K_NIL && t != K_FALSE && t != K_TRUE)
            r->bad = true;
    }
    f->nup = r_count(r, 3);
    f->up = r_alloc(r, f->nup * sizeof(*f->up));
    for (size_t i = 0; i < f->nup && !r->bad; i++) {
        f->up[i].instack = (uint8_t)r_byte(r);
        f->up[i].idx = (uint8_t)r_byte(r);
        r_byte(r); /* kind */
    }
    f->nkids = r_count(r, 1);
    f->kids = r_alloc(r, f->nkids * sizeof(*f->kids));
    for (size_t i = 0; i < f->nkids && !r->bad; i++) {
        f->kids[i].parent = f;
        r_function(r, &f->kids[i], depth + 1);
    }
    f->nline = r_count(r, 1);
    f->lineinfo = (const signed char *)r_bytes(r, f->nline);
    f->nabs = r_count(r, 2);
    f->abspc = r_alloc(r, f->nabs * sizeof(int));
    f->absline = r_alloc(r, f->nabs * sizeof(int));
    for (size_t i = 0; i < f->nabs && !r->bad; i++) {
        f->abspc[i] = (int)r_size(r);
        f->absline[i] = (int)r_size(r);
    }
    size_t nloc = r_count(r, 3);
    for (size_t i = 0; i < nloc && !r->bad; i++) {
        r_string(r);
        r_size(r);
        r_size(r);
    }
    size_t nname = r_count(r, 1);
    for (size_t i = 0; i < nname && !r->bad; i++) {
        struct kst name = r_string(r);
        if (i < f->nup)
            f->up[i].name = name;
    }
    if (f->code == NULL && f->ncode)
        r->bad = true;
}

/* The header of a dump of this Lua (ldump.c's dumpHeader). */
static bool r_header(struct reader *r)
{
    static const unsigned char sig[] = "\x1bLua\x54\x00\x19\x93\r\n\x1a\n";
    const unsigned char *h = r_bytes(r, sizeof(sig) - 1);
    if (!h || memcmp(h, sig, sizeof(sig) - 1))
        return false;
    if (r_byte(r) != 4 || r_byte(r) != sizeof(lua_Integer) || r_byte(r) != sizeof(lua_Number))
        return false;
    r_bytes(r, sizeof(lua_Integer) + sizeof(lua_Number));
    r_byte(r); /* the main function's upvalues */
    return !r->bad;
}

struct dumpbuf {
    unsigned char *b;
    size_t n, cap;
    bool bad;
};

static int dump_writer(lua_State *S, const void *p, size_t sz, void *ud)
{
    struct dumpbuf *d = ud;
    (void)S;
    if (grow((void **)&d->b, &d->cap, d->n + sz, 1) < 0) {
        d->bad = true;
        return 1;
    }
    memcpy(d->b + d->n, p, sz);
    d->n += sz;
    return 0;
}

/* The prototype of the Lua function at idx, read into *f (its memory
 * the reader's and the buffer's).  false when it cannot be read. */
static bool read_function(lua_State *S, int idx, struct dumpbuf *d, struct reader *r,
                          struct proto *f)
{
    memset(f, 0, sizeof(*f));
    d->n = 0;
    lua_pushvalue(S, idx);
    int st = lua_dump(S, dump_writer, d, 0);
    lua_pop(S, 1);
    if (st != 0 || d->bad)
        return false;
    *r = (struct reader){d->b, d->n, 0, false, NULL, 0, 0};
    if (!r_header(r))
        return false;
    r_function(r, f, 0);
    return !r->bad;
}

/* ---- registers an instruction reads and writes ------------------------------------ */

/* A range of registers [lo, hi] (hi < lo: none). */
struct range {
    int lo, hi;
};

/* What instruction i of f reads and writes: up to 3 read ranges and one
 * written (a range "to the top" ends at the function's last register). */
struct regs {
    struct range rd[3];
    int nrd;
    struct range wr;
};

static void rd(struct regs *x, int lo, int hi)
{
    if (x->nrd < 3)
        x->rd[x->nrd++] = (struct range){lo, hi};
}

static struct regs regs_of(const struct proto *f, uint32_t i)
{
    int a = ARG_A(i), b = ARG_B(i), c = ARG_C(i), k = ARG_K(i), top = f->maxstack - 1;
    struct regs x = {{{0, -1}}, 0, {0, -1}};
    switch (OPC(i)) {
    case OP_MOVE: x.wr = (struct range){a, a}; rd(&x, b, b); break;
    case OP_LOADI: case OP_LOADF: case OP_LOADK: case OP_LOADKX: case OP_LOADFALSE:
    case OP_LFALSESKIP: case OP_LOADTRUE: case OP_GETUPVAL: case OP_GETTABUP: case OP_NEWTABLE:
    case OP_CLOSURE:
        x.wr = (struct range){a, a};
        break;
    case OP_LOADNIL: x.wr = (struct range){a, a + b}; break;
    case OP_SETUPVAL: case OP_TBC: case OP_TEST: case OP_RETURN1: case OP_EQK: case OP_EQI:
    case OP_LTI: case OP_LEI: case OP_GTI: case OP_GEI: case OP_MMBINI: case OP_MMBINK:
        rd(&x, a, a);
        break;
    case OP_GETTABLE: x.wr = (struct range){a, a}; rd(&x, b, b); rd(&x, c, c); break;
    case OP_GETI: case OP_GETFIELD: case OP_ADDI: case OP_ADDK: case OP_SUBK: case OP_MULK:
    case OP_MODK: case OP_POWK: case OP_DIVK: case OP_IDIVK: case OP_BANDK: case OP_BORK:
    case OP_BXORK: case OP_SHRI: case OP_SHLI: case OP_UNM: case OP_BNOT: case OP_NOT:
    case OP_LEN:
        x.wr = (struct range){a, a};
        rd(&x, b, b);
        break;
    case OP_SETTABUP: if (!k) rd(&x, c, c); break;
    case OP_SETTABLE: rd(&x, a, a); rd(&x, b, b); if (!k) rd(&x, c, c); break;
    case OP_SETI: case OP_SETFIELD: rd(&x, a, a); if (!k) rd(&x, c, c); break;
    case OP_SELF: x.wr = (struct range){a, a + 1}; rd(&x, b, b); if (!k) rd(&x, c, c); break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MOD: case OP_POW: case OP_DIV: case OP_IDIV:
    case OP_BAND: case OP_BOR: case OP_BXOR: case OP_SHL: case OP_SHR:
        x.wr = (struct range){a, a};
        rd(&x, b, b);
        rd(&x, c, c);
        break;
    case OP_MMBIN: case OP_EQ: case OP_LT: case OP_LE: rd(&x, a, a); rd(&x, b, b); break;
    case OP_CONCAT: x.wr = (struct range){a, a}; rd(&x, a, a + b - 1); break;
    case OP_TESTSET: x.wr = (struct range){a, a}; rd(&x, b, b); break;
    case OP_CALL:
        rd(&x, a, b ? a + b - 1 : top);
        x.wr = (struct range){a, c ? a + c - 2 : top};
        break;
    case OP_TAILCALL: rd(&x, a, b ? a + b - 1 : top); break;
    case OP_RETURN: rd(&x, a, b ? a + b - 2 : top); break;
    case OP_FORLOOP: case OP_FORPREP: rd(&x, a, a + 2); x.wr = (struct range){a, a + 3}; break;
    case OP_TFORPREP: rd(&x, a, a + 3); break;
    case OP_TFORCALL: rd(&x, a, a + 3); x.wr = (struct range){a + 4, a + 3 + c}; break;
    case OP_TFORLOOP: rd(&x, a + 4, a + 4); x.wr = (struct range){a + 2, a + 2}; break;
    case OP_SETLIST: rd(&x, a, b ? a + b : top); break;
    case OP_VARARG: x.wr = (struct range){a, c ? a + c - 2 : top}; break;
    default: break; /* CLOSE, JMP, RETURN0, VARARGPREP, EXTRAARG */
    }
    return x;
}

static bool in(struct range r, int reg)
{
    return reg >= r.lo && reg <= r.hi;
}

/* Does instruction i read register reg (a register a function made at
 * pc captures counts as read)? */
static bool reads_reg(const struct proto *f, uint32_t i, int reg)
{
    struct regs x = regs_of(f, i);
    for (int j = 0; j < x.nrd; j++)
        if (in(x.rd[j], reg))
            return true;
    if (OPC(i) == OP_CLOSURE && (size_t)ARG_BX(i) < f->nkids) {
        const struct proto *kid = &f->kids[ARG_BX(i)];
        for (size_t u = 0; u < kid->nup; u++)
            if (kid->up[u].instack && kid->up[u].idx == reg)
                return true;
    }
    return false;
}

static bool kstr_is(const struct proto *f, int k, const char *s)
{
    return k >= 0 && (size_t)k < f->nk && f->k[k].s && f->k[k].len == strlen(s)
           && !memcmp(f->k[k].s, s, f->k[k].len);
}

/* ---- what the hooks reach ------------------------------------------------------------ */

/* A set of pointers (open addressing; never shrinks). */
struct pset {
    const void **slot;
    size_t cap, n;
};

static bool pset_has(const struct pset *s, const void *p)
{
    if (!s->cap)
        return false;
    for (size_t h = ((uintptr_t)p >> 4) & (s->cap - 1);; h = (h + 1) & (s->cap - 1)) {
        if (s->slot[h] == p)
            return true;
        if (!s->slot[h])
            return false;
    }
}

/* Add p: 1 added, 0 there already, -1 out of memory. */
static int pset_add(struct pset *s, const void *p)
{
    if (pset_has(s, p))
        return 0;
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        const void **slot = calloc(cap, sizeof(*slot));
        if (!slot)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t h = ((uintptr_t)s->slot[i] >> 4) & (cap - 1);
            while (slot[h])
                h = (h + 1) & (cap - 1);
            slot[h] = s->slot[i];
        }
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    size_t h = ((uintptr_t)p >> 4) & (s->cap - 1);
    while (s->slot[h])
        h = (h + 1) & (s->cap - 1);
    s->slot[h] = p;
    s->n++;
    return 1;
}

/* The values a policy's functions can reach are at most this many; past
 * it nothing is proved. */
#define REACH_MAX 200000

/* What a proof needs of the sandbox: every Lua function the hooks can
 * reach (in the table at `live`, an array), the upvalues any of them
 * assigns (by lua_upvalueid) and where, the environment, the libraries'
 * own metatable. */
struct world {
    lua_State *S;
    int live, env; /* stack slots */
    size_t nlive;  /* live[1..nlive]: the Lua functions reached */
    size_t nenv;   /* live[1..nenv]: those the environment reaches (a
                    * library function the policy put there) */
    struct pset seen, written;
    struct pset lib;    /* the functions the environment reaches */
    bool in_env;        /* reaching from the environment */
    const char *wname;  /* the first assigned upvalue found, and where */
    char wwhere[LUA_IDSIZE + 16];
    struct dumpbuf d;
    bool bad;           /* too large or out of memory: nothing is proved */
    const char *src;    /* the policy's file, for messages */
};

/* Visit the value on top (popped): what it holds, and the Lua functions
 * it leads to into w->live. */
static void reach(struct world *w, int depth)
{
    lua_State *S = w->S;
    int t = lua_type(S, -1);
    if (w->bad || (t != LUA_TFUNCTION && t != LUA_TTABLE && t != LUA_TUSERDATA)) {
        lua_pop(S, 1);
        return;
    }
    int added = pset_add(&w->seen, lua_topointer(S, -1));
    if (added <= 0 || w->seen.n > REACH_MAX || depth > 100 || !lua_checkstack(S, 8)) {
        w->bad = w->bad || added < 0 || w->seen.n > REACH_MAX || depth > 100;
        lua_pop(S, 1);
        return;
    }
    int v = lua_gettop(S);
    if (t == LUA_TFUNCTION) {
        if (w->in_env && pset_add(&w->lib, lua_topointer(S, v)) < 0)
            w->bad = true;
        if (!lua_iscfunction(S, v)) {
            lua_pushvalue(S, v);
            lua_rawseti(S, w->live, (lua_Integer)++w->nlive);
        }
        for (int i = 1; lua_getupvalue(S, v, i); i++)
            reach(w, depth + 1);
    } else if (t == LUA_TTABLE) {
        if (lua_getmetatable(S, v))
            reach(w, depth + 1);
        lua_pushnil(S);
        while (!w->bad && lua_next(S, v)) {
            lua_pushvalue(S, -2);
            reach(w, depth + 1); /* the key */
            reach(w, depth + 1); /* the value */
        }
    } else {
        if (lua_getmetatable(S, v))
            reach(w, depth + 1);
        for (int i = 1; lua_getiuservalue(S, v, i) != LUA_TNONE; i++)
            reach(w, depth + 1);
        lua_pop(S, 1);
    }
    lua_settop(S, v - 1);
}

/* The upvalue of closure fn that upvalue u of f (a function fn's code
 * makes, or fn's own) stands for: its index (1-based), or 0 when it is a
 * local of a call (made anew each time). */
static int cell_of(const struct proto *root, const struct proto *f, int u)
{
    while (f != root) {
        if ((size_t)u >= f->nup || f->up[u].instack)
            return 0;
        u = f->up[u].idx;
        f = f->parent;
    }
    return u + 1;
}

/* Note the upvalues f's code (and what it makes) assigns, f a part of the
 * code of the closure at fn. */
static void note_writes(struct world *w, int fn, const struct proto *root, const struct proto *f)
{
    for (size_t pc = 0; pc < f->ncode && !w->bad; pc++) {
        uint32_t i = ins_at(f, pc);
        if (OPC(i) != OP_SETUPVAL)
            continue;
        int cell = cell_of(root, f, ARG_B(i));
        if (!cell)
            continue;
        if (pset_add(&w->written, lua_upvalueid(w->S, fn, cell)) < 0) {
            w->bad = true;
            return;
        }
        if (!w->wname) {
            w->wname = lua_getupvalue(w->S, fn, cell);
            if (w->wname)
                lua_pop(w->S, 1);
            snprintf(w->wwhere, sizeof(w->wwhere), "line %d", line_of(f, pc));
        }
    }
    for (size_t k = 0; k < f->nkids && !w->bad; k++)
        note_writes(w, fn, root, &f->kids[k]);
}

/* ---- pure -------------------------------------------------------------------------- */

/* Is the table at idx the environment or a library made read-only? */
static bool read_only(struct world *w, int idx)
{
    lua_State *S = w->S;
    if (lua_rawequal(S, idx, w->env))
        return true;
    return grovel_sandbox_frozen(S, idx);
}

/* Is the closure at fn (and what it reaches through its upvalues) pure?
 * false with why filled when not.  visited: the functions looked at. */
static bool pure_at(struct world *w, int fn, struct pset *visited, char *why, size_t len,
                    int depth)
{
    lua_State *S = w->S;
    int added = pset_add(visited, lua_topointer(S, fn));
    if (added == 0)
        return true;
    if (added < 0 || depth > 100 || !lua_checkstack(S, 4)) {
        snprintf(why, len, "its functions are too many to check");
        return false;
    }
    lua_Debug ar;
    lua_pushvalue(S, fn);
    lua_getinfo(S, ">S", &ar);
    for (int i = 1;; i++) {
        const char *name = lua_getupvalue(S, fn, i);
        if (!name)
            break;
        int v = lua_gettop(S), t = lua_type(S, v);
        bool ok = true;
        if (pset_has(&w->written, lua_upvalueid(S, fn, i))) {
            snprintf(why, len, "%s:%d: the function reads upvalue '%s', which the policy assigns",
                     ar.short_src, ar.linedefined, name);
            ok = false;
        } else if (t == LUA_TFUNCTION && lua_iscfunction(S, v)) {
            /* a C function with values of its own (an iterator gmatch
             * made) may keep state: only the libraries' are known */
            ok = pset_has(&w->lib, lua_topointer(S, v)) || !lua_getupvalue(S, v, 1);
            if (!ok)
                snprintf(why, len, "%s:%d: the function reads upvalue '%s', a C function "
                                   "with state of its own (an iterator?)",
                         ar.short_src, ar.linedefined, name);
        } else if (t == LUA_TFUNCTION) {
            ok = pure_at(w, v, visited, why, len, depth + 1);
        } else if (t == LUA_TTABLE) {
            if (!read_only(w, v)) {
                snprintf(why, len, "%s:%d: the function reads upvalue '%s', a table the policy "
                                   "keeps (state the engine does not see)",
                         ar.short_src, ar.linedefined, name);
                ok = false;
            }
        } else if (t == LUA_TUSERDATA || t == LUA_TTHREAD) {
            snprintf(why, len, "%s:%d: the function reads upvalue '%s', a %s",
                     ar.short_src, ar.linedefined, name, lua_typename(S, t));
            ok = false;
        }
        lua_settop(S, v - 1);
        if (!ok)
            return false;
    }
    return true;
}

/* ---- apart (scores) ------------------------------------------------------------------ */

/* A numeric for loop of f: FORPREP at prep, its body [prep + 1, end),
 * FORLOOP at end; a its base register (its index is a + 3). */
struct loop {
    size_t prep, end;
    int a;
};

/* Registers by class, in one function of at most 256 registers. */
struct cls {
    bool keys[256], col[256];
};

/* The numeric for loops of f (at most n, into l). */
static size_t find_loops(const struct proto *f, struct loop *l, size_t n)
{
    size_t got = 0;
    for (size_t pc = 0; pc < f->ncode && got < n; pc++) {
        uint32_t i = ins_at(f, pc);
        if (OPC(i) != OP_FORPREP)
            continue;
        size_t end = pc + 1 + (size_t)ARG_BX(i);
        if (end >= f->ncode || OPC(ins_at(f, end)) != OP_FORLOOP || ARG_A(ins_at(f, end)) != ARG_A(i))
            continue;
        l[got++] = (struct loop){pc, end, ARG_A(i)};
    }
    return got;
}

/* The innermost loop whose body holds pc and whose index is reg, or NULL. */
static const struct loop *index_loop(const struct loop *l, size_t n, size_t pc, int reg)
{
    const struct loop *best = NULL;
    for (size_t j = 0; j < n; j++)
        if (pc > l[j].prep && pc < l[j].end && l[j].a + 3 == reg
            && (!best || l[j].prep > best->prep))
            best = &l[j];
    return best;
}

/* Is every write of register reg in f a NEWTABLE? */
static bool fresh_only(const struct proto *f, int reg)
{
    bool any = false;
    for (size_t pc = 0; pc < f->ncode; pc++) {
        uint32_t i = ins_at(f, pc);
        struct regs x = regs_of(f, i);
        if (!in(x.wr, reg))
            continue;
        if (OPC(i) != OP_NEWTABLE)
            return false;
        any = true;
    }
    return any;
}

/* Is upvalue u of f the environment? */
static bool env_up(const struct proto *f, int u)
{
    return u >= 0 && (size_t)u < f->nup && f->up[u].name.len == 4
           && !memcmp(f->up[u].name.s, "_ENV", 4);
}

/* The function a call at pc of f calls (register reg): is it one of the
 * library's that write no table they are handed?  (math, string and
 * utf8's functions; tostring, tonumber, type, select, the raw reads,
 * assert, error, log.)  Read from the instruction that loaded it: the
 * last before pc that writes reg (the arguments are evaluated in the
 * registers above it). */
static bool safe_callee(const struct proto *f, size_t pc, int reg)
{
    static const char *const libs[] = {"math", "string", "utf8", NULL};
    static const char *const base[] = {"tostring", "tonumber", "type",  "select", "rawequal",
                                       "rawlen",   "rawget",   "assert", "error", "log", NULL};
    size_t q = pc;
    while (q-- > 0 && !in(regs_of(f, ins_at(f, q)).wr, reg))
        ;
    if (q == (size_t)-1)
        return false;
    uint32_t i = ins_at(f, q);
    if (OPC(i) == OP_GETTABUP && ARG_A(i) == reg && env_up(f, ARG_B(i))) {
        for (int b = 0; base[b]; b++)
            if (kstr_is(f, ARG_C(i), base[b]))
                return true;
        return false;
    }
    /* lib.name, the library just loaded from _ENV */
    if (OPC(i) != OP_GETFIELD || ARG_A(i) != reg || q == 0)
        return false;
    uint32_t j = ins_at(f, q - 1);
    if (OPC(j) != OP_GETTABUP || ARG_A(j) != ARG_B(i) || !env_up(f, ARG_B(j)))
        return false;
    for (int b = 0; libs[b]; b++)
        if (kstr_is(f, ARG_C(j), libs[b]))
            return true;
    return false;
}

/* Taint of loop l's body: registers that may hold what was made before
 * the loop (a table a call could write).  t[reg] for reg >= l->a + 4. */
static void taint(const struct proto *f, const struct cls *c, const struct loop *l, bool *t)
{
    memset(t, 0, 256 * sizeof(*t));
    int base = l->a + 4;
    for (bool more = true; more;) {
        more = false;
        for (size_t pc = l->prep + 1; pc < l->end; pc++) {
            uint32_t i = ins_at(f, pc);
            int op = OPC(i), b = ARG_B(i);
            bool src = false;
            if (op == OP_MOVE)
                src = (b < base && b != l->a + 3) || t[b];
            else if (op == OP_GETFIELD || op == OP_GETI || op == OP_SELF)
                src = (b < base && !c->col[b]) || t[b];
            else if (op == OP_GETTABLE) /* a column at the index: an element */
                src = (b < base && !c->col[b]) || t[b];
            else if (op == OP_CALL || op == OP_TFORCALL) {
                /* what a call returns may be what it was handed */
                struct regs x = regs_of(f, i);
                for (int r = x.rd[0].lo; r <= x.rd[0].hi && r < 256 && !src; r++)
                    src = r >= base ? t[r] : r != l->a + 3;
            }
            if (!src)
                continue;
            struct regs x = regs_of(f, i);
            for (int r = x.wr.lo; r <= x.wr.hi && r < 256; r++)
                if (r >= base && !t[r])
                    t[r] = more = true;
        }
    }
}

/* Does loop l carry nothing from one candidate to the next?  false with
 * why filled when it may. */
static bool loop_apart(const struct proto *f, const struct cls *c, const struct loop *l,
                       const char *src, char *why, size_t len)
{
    bool t[256];
    taint(f, c, l, t);
    int base = l->a + 4;
    for (size_t pc = l->prep + 1; pc < l->end; pc++) {
        uint32_t i = ins_at(f, pc);
        int op = OPC(i), a = ARG_A(i);
        struct regs x = regs_of(f, i);
        int line = line_of(f, pc);
        if (x.wr.hi >= x.wr.lo && x.wr.lo < base) {
            snprintf(why, len, "%s:%d: the loop over the candidates assigns a local declared "
                               "before it (what one candidate's score carries to the next)",
                     src, line);
            return false;
        }
        if (op == OP_SETTABUP) {
            snprintf(why, len, "%s:%d: the loop over the candidates writes an upvalue's table",
                     src, line);
            return false;
        }
        if ((op == OP_SETTABLE || op == OP_SETI || op == OP_SETFIELD || op == OP_SETLIST)
            && !c->col[a] && (a < base || t[a] || !fresh_only(f, a))) {
            snprintf(why, len, "%s:%d: the loop over the candidates writes a table it did not "
                               "make in the same turn",
                     src, line);
            return false;
        }
        if (op == OP_CALL || op == OP_TAILCALL || op == OP_TFORCALL) {
            if (op != OP_TFORCALL && safe_callee(f, pc, a))
                continue;
            /* a method of one of the candidates' views or of a string
             * (SELF on an element), or a function of the policy's: it
             * may write only what it is handed */
            for (int r = x.rd[0].lo + 1; r <= x.rd[0].hi && r < 256; r++)
                if (r < base || t[r]) {
                    snprintf(why, len, "%s:%d: the loop over the candidates hands a value made "
                                       "before it to a function, which may keep what it is told",
                             src, line);
                    return false;
                }
        }
    }
    return true;
}

/* Is scores' main function f apart?  false with why filled when it may
 * not be. */
static bool apart(const struct proto *f, const char *src, char *why, size_t len)
{
    enum { LOOPS = 64 };
    struct loop l[LOOPS];
    struct cls c;
    memset(&c, 0, sizeof(c));
    int line = f->linedefined;
    if (f->vararg) {
        snprintf(why, len, "%s:%d: scores takes '...'", src, line);
        return false;
    }
    if (f->nkids) {
        snprintf(why, len, "%s:%d: scores makes a function", src, line);
        return false;
    }
    if (f->maxstack > 256)
        return false;
    size_t nl = find_loops(f, l, LOOPS);
    if (f->nparams >= 1)
        c.col[0] = true;
    if (f->nparams >= 3)
        c.keys[2] = true;
    /* classes: keys and the arrays, by what each register is loaded
     * from (over the whole function: a register used for both is both) */
    for (bool more = true; more;) {
        more = false;
        for (size_t pc = 0; pc < f->ncode; pc++) {
            uint32_t i = ins_at(f, pc);
            int op = OPC(i), a = ARG_A(i), b = ARG_B(i);
            bool *to = NULL;
            if (op == OP_MOVE && c.keys[b])
                to = &c.keys[a];
            else if (op == OP_MOVE && c.col[b])
                to = &c.col[a];
            else if ((op == OP_GETFIELD || op == OP_GETTABLE || op == OP_GETI) && c.keys[b])
                to = &c.col[a];
            else if (op == OP_SETTABLE && index_loop(l, nl, pc, b))
                to = &c.col[a]; /* an array written at a loop's index */
            if (to && !*to)
                *to = more = true;
        }
    }
    /* what loads them, and where they are read */
    for (size_t pc = 0; pc < f->ncode; pc++) {
        uint32_t i = ins_at(f, pc);
        int op = OPC(i), a = ARG_A(i), b = ARG_B(i), cc = ARG_C(i);
        struct regs x = regs_of(f, i);
        int ln = line_of(f, pc);
        for (int r = x.wr.lo; r <= x.wr.hi && r < 256; r++) {
            bool ok = true;
            if (c.keys[r])
                ok = op == OP_MOVE && c.keys[b];
            if (c.col[r] && ok)
                ok = op == OP_NEWTABLE || (op == OP_MOVE && (c.col[b] || c.keys[b]))
                     || ((op == OP_GETFIELD || op == OP_GETTABLE || op == OP_GETI) && c.keys[b]);
            if (!ok) {
                snprintf(why, len, "%s:%d: a register that holds keys or an array of the "
                                   "candidates is loaded with something else",
                         src, ln);
                return false;
            }
        }
        for (int j = 0; j < x.nrd; j++)
            for (int r = x.rd[j].lo; r <= x.rd[j].hi && r < 256; r++) {
                if (!c.keys[r] && !c.col[r])
                    continue;
                const struct loop *at = NULL;
                bool ok = false;
                if (c.keys[r])
                    ok = (op == OP_MOVE && b == r)
                         || ((op == OP_GETFIELD || op == OP_GETTABLE || op == OP_GETI) && b == r
                             && (op != OP_GETTABLE || (!c.keys[cc] && !c.col[cc])));
                if (c.col[r] && !ok) {
                    if (op == OP_MOVE && b == r)
                        ok = true;
                    else if (op == OP_GETTABLE && b == r && cc != r)
                        ok = (at = index_loop(l, nl, pc, cc)) != NULL;
                    else if (op == OP_SETTABLE && a == r && b != r
                             && (ARG_K(i) || (cc != r && !c.col[cc] && !c.keys[cc])))
                        ok = (at = index_loop(l, nl, pc, b)) != NULL;
                    else if (op == OP_RETURN1 || (op == OP_RETURN && b == 2))
                        ok = a == r;
                    else if (op == OP_LEN && b == r) {
                        /* only the bound of the loop that follows */
                        for (size_t q = pc + 1; q < f->ncode && !ok; q++) {
                            uint32_t n = ins_at(f, q);
                            if (OPC(n) == OP_FORPREP) {
                                ok = ARG_A(n) + 1 == a;
                                break;
                            }
                            if (reads_reg(f, n, a) || OPC(n) == OP_JMP)
                                break;
                        }
                    }
                }
                if (!ok) {
                    snprintf(why, len, "%s:%d: keys or an array of the candidates used other "
                                       "than at the index of a numeric for loop (one "
                                       "candidate's values would reach another's score)",
                             src, ln);
                    return false;
                }
                if (at && !loop_apart(f, &c, at, src, why, len))
                    return false;
            }
    }
    return true;
}

/* ---- blind (prune) ------------------------------------------------------------------- */

/* Does f (or what it makes) name a method that reads records, index by a
 * computed key (which could name one), or name what gives hidden inputs? */
static bool sees_records(const struct proto *f, const char *src, char *why, size_t len)
{
    static const char *const names[] = {"available", "allocated", "aggregate",
                                        "held_exclusively", "records", "random", "randomseed",
                                        NULL};
    for (size_t k = 0; k < f->nk; k++) {
        for (int n = 0; names[n]; n++)
            if (kstr_is(f, (int)k, names[n])) {
                snprintf(why, len, "%s:%d: the prune names '%s'", src, f->linedefined,
                         names[n]);
                return true;
            }
        if (f->k[k].s && memchr(f->k[k].s, '%', f->k[k].len)) {
            for (size_t j = 0; j + 1 < f->k[k].len; j++)
                if (f->k[k].s[j] == '%' && f->k[k].s[j + 1] == 'p') {
                    snprintf(why, len, "%s:%d: the prune formats an address", src,
                             f->linedefined);
                    return true;
                }
        }
    }
    for (size_t pc = 0; pc < f->ncode; pc++) {
        uint32_t i = ins_at(f, pc);
        if (OPC(i) == OP_GETTABLE || (OPC(i) == OP_SELF && !ARG_K(i))) {
            snprintf(why, len, "%s:%d: the prune indexes by a computed key", src,
                     line_of(f, pc));
            return true;
        }
    }
    for (size_t k = 0; k < f->nkids; k++)
        if (sees_records(&f->kids[k], src, why, len))
            return true;
    return false;
}

/* Does f (or a function it defines) name log or print? */
static bool names_log(const struct proto *f)
{
    for (size_t k = 0; k < f->nk; k++)
        if (kstr_is(f, (int)k, "log") || kstr_is(f, (int)k, "print"))
            return true;
    for (size_t k = 0; k < f->nkids; k++)
        if (names_log(&f->kids[k]))
            return true;
    return false;
}

/* Is the prune whose main function is f (a closure at fn) blind?  And
 * (*quiet) does no function it may call name log or print? */
static bool blind(struct world *w, int fn, const struct proto *f, char *why, size_t len,
                  bool *quiet)
{
    lua_State *S = w->S;
    *quiet = true;
    if (f->vararg) {
        snprintf(why, len, "%s:%d: the prune takes '...'", w->src, f->linedefined);
        return false;
    }
    for (size_t pc = 0; f->nparams >= 2 && pc < f->ncode; pc++)
        if (reads_reg(f, ins_at(f, pc), 1)) {
            snprintf(why, len, "%s:%d: the prune reads ctx", w->src, line_of(f, pc));
            return false;
        }
    /* and every function it may call: its upvalues', transitively */
    struct pset seen = {NULL, 0, 0};
    bool ok = true;
    int top = lua_gettop(S);
    lua_pushvalue(S, fn);
    while (ok && lua_gettop(S) > top) {
        int v = lua_gettop(S);
        int added = pset_add(&seen, lua_topointer(S, v));
        if (added <= 0) {
            ok = added == 0;
            lua_pop(S, 1);
            continue;
        }
        struct reader r = {0};
        struct proto p;
        if (!read_function(S, v, &w->d, &r, &p)) {
            snprintf(why, len, "%s: the prune's code could not be read", w->src);
            ok = false;
        } else {
            ok = !sees_records(&p, w->src, why, len);
            *quiet = *quiet && !names_log(&p);
        }
        r_free(&r);
        /* the Lua functions among its upvalues, to be looked at in turn */
        for (int i = 1; ok && lua_checkstack(S, 2) && lua_getupvalue(S, v, i); i++)
            if (lua_type(S, -1) != LUA_TFUNCTION || lua_iscfunction(S, -1))
                lua_pop(S, 1);
        lua_remove(S, v);
    }
    lua_settop(S, top);
    free(seen.slot);
    return ok;
}

/* ---- the proofs ---------------------------------------------------------------------- */

/* Prove what can be of the hook kind at fn (a Lua function): into pr. */
static void prove(struct world *w, int kind, int fn, struct proof *pr)
{
    lua_State *S = w->S;
    struct pset visited = {NULL, 0, 0};
    memset(pr, 0, sizeof(*pr));
    if (w->bad) {
        snprintf(pr->why, sizeof(pr->why), "%s: the policy holds too much to be checked", w->src);
        return;
    }
    pr->pure = pure_at(w, fn, &visited, pr->why, sizeof(pr->why), 0);
    /* the functions the libraries hold that the policy put there: any
     * hook may call them */
    for (size_t i = 1; pr->pure && i <= w->nenv; i++) {
        lua_rawgeti(S, w->live, (lua_Integer)i);
        pr->pure = pure_at(w, lua_gettop(S), &visited, pr->why, sizeof(pr->why), 0);
        lua_pop(S, 1);
    }
    free(visited.slot);
    if (!pr->pure || (kind != H_SCORES && kind != H_PRUNE))
        return;
    struct reader r = {0};
    struct proto f;
    if (!read_function(S, fn, &w->d, &r, &f)) {
        snprintf(pr->why, sizeof(pr->why), "%s: the hook's code could not be read", w->src);
    } else if (kind == H_SCORES) {
        pr->apart = apart(&f, w->src, pr->why, sizeof(pr->why));
    } else {
        pr->blind = blind(w, fn, &f, pr->why, sizeof(pr->why), &pr->quiet);
        /* a function of the policy's own in the libraries may be called
         * by its name: any of them that names log makes the prune loud */
        for (size_t i = 1; pr->quiet && i <= w->nenv; i++) {
            lua_rawgeti(S, w->live, (lua_Integer)i);
            struct reader r2 = {0};
            struct proto g;
            if (lua_type(S, -1) == LUA_TFUNCTION && !lua_iscfunction(S, -1)
                && (!read_function(S, lua_gettop(S), &w->d, &r2, &g) || names_log(&g)))
                pr->quiet = false;
            r_free(&r2);
            lua_pop(S, 1);
        }
    }
    r_free(&r);
}

void grovelp_policy_prove(lua_State *S, struct grovel_policy *p, int hooks)
{
    struct world w;
    memset(&w, 0, sizeof(w));
    w.S = S;
    w.src = p->short_src;
    int top = lua_gettop(S);
    lua_createtable(S, 16, 0);
    w.live = lua_gettop(S);
    grovel_sandbox_push_env(&p->sb);
    w.env = lua_gettop(S);
    /* everything the environment and the hooks reach */
    w.in_env = true;
    lua_pushvalue(S, w.env);
    reach(&w, 0);
    w.in_env = false;
    w.nenv = w.nlive;
    lua_pushvalue(S, hooks);
    reach(&w, 0);
    /* the upvalues any of those functions assigns */
    for (size_t i = 1; i <= w.nlive && !w.bad; i++) {
        lua_rawgeti(S, w.live, (lua_Integer)i);
        int fn = lua_gettop(S);
        struct reader r = {0};
        struct proto f;
        if (!read_function(S, fn, &w.d, &r, &f))
            w.bad = true;
        else
            note_writes(&w, fn, &f, &f);
        r_free(&r);
        lua_settop(S, fn - 1);
    }
    static const char *const fields[H_COUNT] = {"prune", "order", "score", "choose", "key",
                                                "scores", NULL};
    for (int k = 0; k < H_COUNT; k++) {
        memset(&p->proof[k], 0, sizeof(p->proof[k]));
        if (!fields[k] || lua_getfield(S, hooks, fields[k]) != LUA_TFUNCTION) {
            lua_pop(S, 1);
            continue;
        }
        prove(&w, k, lua_gettop(S), &p->proof[k]);
        lua_pop(S, 1);
    }
    free(w.seen.slot);
    free(w.written.slot);
    free(w.lib.slot);
    free(w.d.b);
    lua_settop(S, top);
}

/* Nothing of this file is registered in grove.core (bindings/api.tsv). */
int grovel_open_policy_proof(lua_State *L)
{
    (void)L;
    return 0;
}
