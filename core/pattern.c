/* pattern.c: Lua 5.4 string patterns with a bounded cost.
 *
 * A backtracking matcher over the pattern language of Lua 5.4 (the same
 * classes, sets, quantifiers, anchors, captures, back-references, %b and
 * %f, with the same answers), written so that its cost can be bounded:
 * every attempt of a single-character match and every recursive call is a
 * step, and every GROVE_PATTERN_TICK steps the caller's tick decides
 * whether the match may go on.  Nesting is bounded by GROVE_PATTERN_DEPTH
 * ("pattern too complex").  Workload: the short patterns a placement
 * policy uses on property values and names, and the hostile ones a
 * sandbox must survive.
 *
 * This file must not hold anything of Lua or of the sandbox's limits: it
 * matches bytes and counts steps.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "pattern.h"

#define ESC '%'
#define SPECIALS "^$*+?.([%-"

/* Where a match attempt failed for good (not "no match here"). */
#define FAIL ((const char *)0)
#define ERRPTR ((const char *)1)

static int bad(grove_pattern_t *ps, const char *msg)
{
    snprintf(ps->msg, sizeof(ps->msg), "%s", msg);
    return -1;
}

/* One step; 0, or -1 when the tick stopped the match. */
static int step(grove_pattern_t *ps)
{
    if (++ps->steps < ps->next_tick)
        return 0;
    ps->next_tick = ps->steps + GROVE_PATTERN_TICK;
    if (ps->tick && ps->tick(ps->arg, ps->steps)) {
        ps->stopped = true;
        snprintf(ps->msg, sizeof(ps->msg), "stopped");
        return -1;
    }
    return 0;
}

static const char *pend(const grove_pattern_t *ps)
{
    return ps->pat + ps->patlen;
}

/* The end of the single-character class at p (p < pend), or ERRPTR. */
static const char *class_end(grove_pattern_t *ps, const char *p)
{
    const char *e = pend(ps);
    if (*p++ == ESC) {
        if (p >= e) {
            bad(ps, "malformed pattern (ends with '%')");
            return ERRPTR;
        }
        return p + 1;
    }
    if (p[-1] == '[') {
        if (p < e && *p == '^')
            p++;
        for (;;) { /* look for a ']' (the first byte of the set is never it) */
            if (p >= e) {
                bad(ps, "malformed pattern (missing ']')");
                return ERRPTR;
            }
            if (*(p++) == ESC && p < e)
                p++; /* skip escapes such as '%]' */
            if (p < e && *p == ']')
                return p + 1;
        }
    }
    return p;
}

static bool class_match(int c, int cl)
{
    bool res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'g': res = isgraph(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    case 'z': res = c == 0; break; /* deprecated, still accepted by Lua 5.4 */
    default: return cl == c;
    }
    return isupper(cl) ? !res : res;
}

/* c against the set [p .. ec] (p at '[', ec at its ']'). */
static bool set_match(int c, const char *p, const char *ec)
{
    bool sig = true;
    if (*(p + 1) == '^') {
        sig = false;
        p++;
    }
    while (++p < ec) {
        if (*p == ESC) {
            p++;
            if (class_match(c, (unsigned char)*p))
                return sig;
        } else if (*(p + 1) == '-' && p + 2 < ec) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p)
                return sig;
        } else if ((unsigned char)*p == c) {
            return sig;
        }
    }
    return !sig;
}

/* Does the subject byte at s match the class p .. ep? */
static bool single_match(const grove_pattern_t *ps, const char *s, const char *p, const char *ep)
{
    if (s >= ps->src + ps->srclen)
        return false;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return true;
    case ESC: return class_match(c, (unsigned char)*(p + 1));
    case '[': return set_match(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *do_match(grove_pattern_t *ps, const char *s, const char *p);

static const char *match_balance(grove_pattern_t *ps, const char *s, const char *p)
{
    if (p + 1 >= pend(ps)) {
        bad(ps, "malformed pattern (missing arguments to '%b')");
        return ERRPTR;
    }
    const char *e = ps->src + ps->srclen;
    if (s >= e || *s != *p)
        return FAIL;
    int b = *p, en = *(p + 1), cont = 1;
    while (++s < e) {
        if (step(ps) < 0)
            return ERRPTR;
        if (*s == en) {
            if (--cont == 0)
                return s + 1;
        } else if (*s == b) {
            cont++;
        }
    }
    return FAIL;
}

static const char *max_expand(grove_pattern_t *ps, const char *s, const char *p, const char *ep)
{
    ptrdiff_t i = 0;
    while (single_match(ps, s + i, p, ep)) {
        if (step(ps) < 0)
            return ERRPTR;
        i++;
    }
    /* try with the most repetitions, then fewer */
    while (i >= 0) {
        const char *res = do_match(ps, s + i, ep + 1);
        if (res != FAIL)
            return res;
        i--;
    }
    return FAIL;
}

static const char *min_expand(grove_pattern_t *ps, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *res = do_match(ps, s, ep + 1);
        if (res != FAIL)
            return res;
        if (step(ps) < 0)
            return ERRPTR;
        if (!single_match(ps, s, p, ep))
            return FAIL;
        s++;
    }
}

static const char *start_capture(grove_pattern_t *ps, const char *s, const char *p, size_t what)
{
    if (ps->level >= GROVE_PATTERN_MAXCAPTURES) {
        bad(ps, "too many captures");
        return ERRPTR;
    }
    ps->cap[ps->level].start = (size_t)(s - ps->src);
    ps->cap[ps->level].len = what;
    ps->level++;
    const char *res = do_match(ps, s, p);
    if (res == FAIL)
        ps->level--; /* undo the capture */
    return res;
}

static int capture_to_close(grove_pattern_t *ps)
{
    for (int level = ps->level - 1; level >= 0; level--)
        if (ps->cap[level].len == GROVE_PATTERN_OPEN)
            return level;
    return bad(ps, "invalid pattern capture");
}

static const char *end_capture(grove_pattern_t *ps, const char *s, const char *p)
{
    int l = capture_to_close(ps);
    if (l < 0)
        return ERRPTR;
    ps->cap[l].len = (size_t)(s - ps->src) - ps->cap[l].start;
    const char *res = do_match(ps, s, p);
    if (res == FAIL)
        ps->cap[l].len = GROVE_PATTERN_OPEN;
    return res;
}

static const char *match_capture(grove_pattern_t *ps, const char *s, int l)
{
    l -= '1';
    if (l < 0 || l >= ps->level || ps->cap[l].len == GROVE_PATTERN_OPEN) {
        snprintf(ps->msg, sizeof(ps->msg), "invalid capture index %%%d", l + 1);
        return ERRPTR;
    }
    size_t len = ps->cap[l].len;
    if (len != GROVE_PATTERN_POSITION && (size_t)(ps->src + ps->srclen - s) >= len
        && memcmp(ps->src + ps->cap[l].start, s, len) == 0) {
        /* comparing costs its length */
        for (size_t i = 0; i < len; i += 64)
            if (step(ps) < 0)
                return ERRPTR;
        return s + len;
    }
    return FAIL;
}

/* The frontier pattern %f[set] at p (just past "%f"): s when it holds
 * there (*next the pattern after the set), FAIL or ERRPTR. */
static const char *match_frontier(grove_pattern_t *ps, const char *s, const char *p,
                                  const char **next)
{
    if (p >= pend(ps) || *p != '[') {
        bad(ps, "missing '[' after '%f' in pattern");
        return ERRPTR;
    }
    const char *ep = class_end(ps, p);
    if (ep == ERRPTR)
        return ERRPTR;
    int prev = s == ps->src ? '\0' : (unsigned char)*(s - 1);
    int cur = s < ps->src + ps->srclen ? (unsigned char)*s : '\0';
    *next = ep;
    return !set_match(prev, p, ep - 1) && set_match(cur, p, ep - 1) ? s : FAIL;
}

/* Match the pattern from p against the subject from s: the end of the
 * match, FAIL, or ERRPTR.  Items that need no backtracking loop here (as a
 * tail call would); only captures, quantifiers and '?' recurse, so the
 * depth limit counts nesting, not the pattern's length. */
static const char *do_match(grove_pattern_t *ps, const char *s, const char *p)
{
    if (ps->depth >= GROVE_PATTERN_DEPTH) {
        bad(ps, "pattern too complex");
        return ERRPTR;
    }
    ps->depth++;
    const char *e = pend(ps), *r, *ep = NULL;
    for (;;) {
        if (step(ps) < 0) {
            r = ERRPTR;
            break;
        }
        if (p >= e) {
            r = s;
            break;
        }
        if (*p == '(') {
            if (p + 1 < e && *(p + 1) == ')')
                r = start_capture(ps, s, p + 2, GROVE_PATTERN_POSITION);
            else
                r = start_capture(ps, s, p + 1, GROVE_PATTERN_OPEN);
            break;
        }
        if (*p == ')') {
            r = end_capture(ps, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == e) {
            r = s == ps->src + ps->srclen ? s : FAIL;
            break;
        }
        if (*p == ESC && p + 1 < e && (p[1] == 'b' || p[1] == 'f' || isdigit((unsigned char)p[1]))) {
            if (p[1] == 'b')
                r = match_balance(ps, s, p + 2);
            else if (p[1] == 'f')
                r = match_frontier(ps, s, p + 2, &ep);
            else
                r = match_capture(ps, s, (unsigned char)p[1]);
            if (r == FAIL || r == ERRPTR)
                break;
            s = r;
            p = p[1] == 'b' ? p + 4 : p[1] == 'f' ? ep : p + 2;
            continue;
        }
        if ((ep = class_end(ps, p)) == ERRPTR) {
            r = ERRPTR;
            break;
        }
        char q = ep < e ? *ep : '\0';
        if (!single_match(ps, s, p, ep)) {
            if (q == '*' || q == '?' || q == '-') {
                p = ep + 1; /* accept empty */
                continue;
            }
            r = FAIL;
            break;
        }
        if (q == '?') {
            r = do_match(ps, s + 1, ep + 1);
            if (r != FAIL)
                break;
            p = ep + 1;
            continue;
        }
        if (q == '+' || q == '*') {
            r = max_expand(ps, q == '+' ? s + 1 : s, p, ep);
            break;
        }
        if (q == '-') {
            r = min_expand(ps, s, p, ep);
            break;
        }
        s++;
        p = ep;
    }
    ps->depth--;
    return r;
}

void grove_pattern_init(grove_pattern_t *ps, const char *s, size_t ls, const char *p, size_t lp,
                        bool anchor, grove_pattern_tick_f tick, void *arg)
{
    memset(ps, 0, sizeof(*ps));
    ps->src = s;
    ps->srclen = ls;
    ps->anchored = anchor && lp > 0 && *p == '^';
    ps->pat = ps->anchored ? p + 1 : p;
    ps->patlen = ps->anchored ? lp - 1 : lp;
    ps->next_tick = GROVE_PATTERN_TICK;
    ps->tick = tick;
    ps->arg = arg;
}

int grove_pattern_at(grove_pattern_t *ps, size_t pos, size_t *end)
{
    ps->level = 0;
    ps->depth = 0;
    ps->msg[0] = '\0';
    const char *r = do_match(ps, ps->src + pos, ps->pat);
    if (r == ERRPTR)
        return -1;
    if (r == FAIL)
        return 0;
    for (int i = 0; i < ps->level; i++)
        if (ps->cap[i].len == GROVE_PATTERN_OPEN)
            return bad(ps, "unfinished capture");
    *end = (size_t)(r - ps->src);
    return 1;
}

int grove_pattern_find(grove_pattern_t *ps, size_t init, size_t *start, size_t *end)
{
    for (size_t pos = init; pos <= ps->srclen; pos++) {
        int rc = grove_pattern_at(ps, pos, end);
        if (rc != 0) {
            *start = pos;
            return rc;
        }
        if (ps->anchored)
            break;
    }
    return 0;
}

bool grove_pattern_is_plain(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (strchr(SPECIALS, p[i]) && p[i])
            return false;
    return true;
}
