/* pattern.h: Lua 5.4 string patterns with a bounded cost (pattern.c).
 *
 * The policy sandbox gives policies string.find, match, gmatch and gsub
 * built on this matcher instead of the standard one, because a pattern
 * such as ("a?"):rep(30) .. ("a"):rep(30) backtracks exponentially inside
 * one library call, where no instruction count can stop it.  This matcher
 * accepts the same patterns with the same meaning (character classes,
 * sets, the four quantifiers, anchors, captures, position captures,
 * back-references, %b and %f), counts every step it takes, and calls a
 * tick function every GROVE_PATTERN_TICK steps; the tick may stop the
 * match (its caller turns that into an instruction budget or wall-clock
 * error).
 *
 * This header must not hold anything of Lua (the bindings turn captures
 * into Lua values) or of the sandbox's limits (l_sandbox.c).
 */
#ifndef GROVE_PATTERN_H
#define GROVE_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GROVE_PATTERN_MAXCAPTURES 32
#define GROVE_PATTERN_TICK 1024  /* steps between two calls of the tick */
#define GROVE_PATTERN_DEPTH 200  /* nesting of the matcher (as Lua's MAXCCALLS) */
#define GROVE_PATTERN_POSITION ((size_t)-2) /* len of a position capture "()" */
#define GROVE_PATTERN_OPEN ((size_t)-1)     /* len of a capture not closed yet */

/* Called every GROVE_PATTERN_TICK steps with the steps taken so far: 0 to
 * go on, non-zero to stop the match (grove_pattern_at then returns -1
 * with stopped set). */
typedef int (*grove_pattern_tick_f)(void *arg, uint64_t steps);

typedef struct grove_pattern_cap {
    size_t start; /* offset in the subject */
    size_t len;   /* bytes, GROVE_PATTERN_POSITION or GROVE_PATTERN_OPEN */
} grove_pattern_cap_t;

/* One pattern against one subject.  Fill with grove_pattern_init; the
 * fields below are read by the caller after a match. */
typedef struct grove_pattern {
    const char *src; /* the subject, srclen bytes (borrowed) */
    size_t srclen;
    const char *pat; /* the pattern, patlen bytes (borrowed) */
    size_t patlen;
    bool anchored;   /* the pattern began with '^' (pat skips it) */
    int level;       /* captures of the last match */
    grove_pattern_cap_t cap[GROVE_PATTERN_MAXCAPTURES];
    uint64_t steps;  /* steps taken in every call so far */
    uint64_t next_tick;
    grove_pattern_tick_f tick;
    void *arg;
    int depth;
    bool stopped;    /* the tick stopped the match */
    char msg[80];    /* why the last call failed (malformed pattern) */
} grove_pattern_t;

/* Prepare a match of pattern p (lp bytes) against subject s (ls bytes);
 * with anchor, a leading '^' anchors the match (string.gmatch passes false:
 * there it is an ordinary byte); tick (may be NULL) and arg as above.
 * Never fails. */
void grove_pattern_init(grove_pattern_t *ps, const char *s, size_t ls, const char *p, size_t lp,
                        bool anchor, grove_pattern_tick_f tick, void *arg);

/* Try the pattern at subject offset pos only: 1 with *end the offset just
 * past the match and the captures in ps->cap[0 .. ps->level), 0 when it
 * does not match there, -1 on a malformed pattern (ps->msg says why) or
 * when the tick stopped it (ps->stopped). */
int grove_pattern_at(grove_pattern_t *ps, size_t pos, size_t *end);

/* The first match at or after offset init (only at init when the pattern
 * is anchored): 1 with *start and *end, 0 none, -1 as grove_pattern_at. */
int grove_pattern_find(grove_pattern_t *ps, size_t init, size_t *start, size_t *end);

/* True if p (lp bytes) has none of the characters that make a pattern
 * more than a plain string. */
bool grove_pattern_is_plain(const char *p, size_t lp);

#endif
