/* lpolicy_private.h: what the Lua policy binding's files (l_policy.c,
 * l_policy_dispatch.c, l_policy_views.c) share, and no other file may
 * include: the policy userdata, the hook call record, and the functions
 * one of them calls in another.  lpolicy.h is what the rest of bindings/
 * may use.
 */
#ifndef GROVEL_LPOLICY_PRIVATE_H
#define GROVEL_LPOLICY_PRIVATE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "limit.h"
#include "lpolicy.h"
#include "lsandbox.h"

enum hook_kind { H_PRUNE, H_ORDER, H_SCORE, H_CHOOSE, H_KEY, H_SCORES, H_CHUNK, H_COUNT };

static const char *const hook_names[H_COUNT] = {"prune",     "order",  "score", "choose",
                                                "order key", "scores", "chunk"};

enum key_kind { K_NONE, K_ID, K_RANK, K_VID, K_SIZE, K_PERF_CLASS, K_PROPERTY, K_FREE,
                K_FUNCTION };

/* Stack slots of the sandbox while a match runs (offsets from base). */
enum slot {
    S_PRUNE = 1, /* the Lua functions, by hook kind (nil when absent) */
    S_ORDER,
    S_SCORE,
    S_CHOOSE,
    S_KEY,
    S_SCORES,
    S_CTX, /* the ctx table handed to prune, score and scores */
    S_COUNT = S_CTX
};

struct sortkey {
    double k;
    grove_vid_t v;
};

/* What the ctx table shows: the ctx of the call running, and which of
 * its fields were made (read) since the call began. */
struct ctxstate {
    bool valid;                            /* false: no call yet this match */
    grove_policy_ctx_t x;                  /* the call's (its pointers valid
                                            * while the match runs) */
    unsigned made;                         /* bit f: field f was made */
    bool wrote;                            /* the policy wrote into ctx */
    uint64_t *below;                       /* per request vertex: bit k set when
                                            * type k is at or below it */
    bool *below_done;
    size_t nbelow;
};

/* What the engine could prove of a hook from its code when the policy
 * loaded (l_policy_proof.c): a proof holds, or why not (a message naming
 * the place, for a declaration that the proof would have to back). */
struct proof {
    bool pure;      /* reads no state of the policy's own */
    bool apart;     /* scores: each candidate's score from its own values only */
    bool blind;     /* prune: reads nothing of ctx nor of records */
    bool quiet;     /* prune: names no log or print (what it writes would
                     * tell which vertices it was asked about) */
    char why[256];  /* the first reason one does not hold, or "" */
};

struct grovel_policy {
    grovel_handle_t h;    /* a generic handle (grovel.h) whose object is the
                           * policy itself while it is open */
    grove_policy_t hooks; /* handed to the matcher; arg = this */
    char *name, *description, *source; /* malloc'd; source: the file name */
    char short_src[LUA_IDSIZE];        /* the chunk's name as Lua prints it */
    char where[H_COUNT][LUA_IDSIZE + 24]; /* "file:line" of each Lua hook */
    bool lua[H_COUNT];                    /* which hooks are Lua functions */
    char **types[2];                      /* prune_types, score_types (NULL-ended) */
    int *type_lines[2];                   /* the line each is written on (0: not
                                           * found in the text, a computed name) */
    char **reads;                         /* score_reads (NULL-ended), or NULL */
    int *read_lines;                      /* the line each is written on (0: not
                                           * found in the text) */

    /* declarative order (hooks.order == decl_order) */
    int key;        /* enum key_kind */
    bool desc;      /* descending */
    char *key_prop; /* K_PROPERTY: the property name */
    char *when;     /* sort only lists holding a vertex of this type */
    const char *when_types[2]; /* {when, NULL}: hooks.order_types, the nodes
                                * of a whole machine sorted as one list */
    int when_line;  /* the line it is written on (0: not found) */
    /* the order of the built-in named by base (NULL: none, graph order):
     * the lists a declarative order limited by when leaves are in it, and
     * a Lua order function is handed its children in it */
    int (*base_order)(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                      size_t n);

    grovel_sandbox_t sb;      /* the policy's own Lua state and its limits */
    struct grovel_views views; /* what its views show */
    const void *owner;        /* the matcher of the last match */
    grove_graph_t *last_g;    /* and its graph */

    struct proof proof[H_COUNT]; /* of each Lua hook (l_policy_proof.c) */
    grove_policy_reads_t acc;    /* what the score calls read since the last
                                  * observe */
    /* what a score or prune call may not read (grovel_views.deny): what the
     * policy's declaration (score_local, score_reads) leaves out, and for a
     * prune taken as reading the graph's content alone (prune_static),
     * anything else; and the messages of such reads */
    unsigned score_deny, prune_deny;
    char score_denied[256];
    const char *prune_denied;
    /* prune's answers kept by vertex (pval where pstamp == pgen), those of
     * calls that read nothing but the graph's content: valid while the
     * graph (pepoch, the views' epoch) and its content (pchg, its change
     * count) stay */
    uint8_t *pval;
    uint8_t *pbout; /* a list's answers (prune_siblings) */
    size_t pboutcap;
    uint32_t *pstamp;
    size_t pcap;
    uint32_t pgen;
    uint32_t pepoch;
    uint64_t pchg;
    /* the answer for a vertex with no property and no tag (while
     * bare_gen == pgen), once a call that read nothing of the views but
     * their own properties and tags gave it for such a vertex: every
     * other such vertex reads the same, so gets the same (a prune on a
     * node property asked of each socket, core and GPU) */
    uint32_t bare_gen;
    uint8_t bare_val;
    uint32_t *cmark; /* a scores call's candidates marked views.cgen, by vertex */
    size_t cmcap;

    /* the match in progress (between begin and end) */
    bool active;
    lua_State *host;          /* the state that runs the match: what a hook's
                               * message asks of the host (a close name) runs
                               * there, in a protected call */
    const struct call *keyed; /* the choose or scores call running, or
                               * NULL: what its keys table reads */
    uint64_t nkeyed;          /* such calls so far: a keys table kept past
                               * its call knows it is stale */
    int base; /* sandbox stack slots: see enum slot */
    struct ctxstate cx;
    char *err, *traceback; /* the last failure (malloc'd) */

    /* scratch, reused across calls */
    struct sortkey *sk;
    size_t skcap;
    grove_vid_t *vb;
    size_t vbcap;
    double *kval; /* key function values by vertex, valid where kstamp == kgen */
    uint32_t *kstamp;
    size_t kcap;
    uint32_t kgen;
    uint32_t *ostamp; /* an order hook's check: children marked ogen, by vertex */
    size_t ocap;
    uint32_t ogen;
};

/* One hook call: what the trampoline hands to hook_body and gets back. */
struct call {
    struct grovel_policy *p;
    int kind;
    grove_vid_t v; /* prune, score, key: the vertex; order: the parent */
    const grove_policy_ctx_t *ctx;
    grove_vid_t *kids; /* order: n children, rewritten in the new order */
    const grove_vid_t *vs; /* choose, scores, score of a level: n candidates; choose: their
                            * scores, k to pick */
    const double *scores;
    size_t n, k;
    size_t *pick;
    double *out;            /* scores: the n scores */
    const grove_graph_t *g; /* choose, scores: the candidates' graph, for keys */
    int result;   /* prune */
    uint8_t *bout; /* prune of a list (vs, n): each answer, 0 or 1 */
    double value; /* score, key */
    grove_policy_reads_t reads; /* prune, score, scores: what the call read */
    bool only_kv; /* prune: what it read of views was their own properties and tags */
};

/* ---- small helpers -------------------------------------------------------- */

static inline char *dupstr(const char *s)
{
    return s ? strdup(s) : NULL;
}

static inline void set_text(char **dst, const char *s)
{
    free(*dst);
    *dst = dupstr(s);
}

static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* ---- across the files ---------------------------------------------------- */

/* What one file of the group calls in another: each is described where it
 * is defined. */

/* l_policy_dispatch.c: the hooks called, errors recorded, the declarative order */
void grovelp_policy_record_error(struct grovel_policy *p, int kind, int status);
int grovelp_policy_tramp_prune(void *arg, const grove_graph_t *g, grove_vid_t v,
                               const grove_policy_ctx_t *ctx);
int grovelp_policy_tramp_score(void *arg, const grove_graph_t *g, grove_vid_t v,
                               const grove_policy_ctx_t *ctx, double *score);
int grovelp_policy_tramp_score_all(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                                   size_t n, const grove_policy_ctx_t *ctx, double *out);
int grovelp_policy_tramp_order(void *arg, const grove_graph_t *g, grove_vid_t parent,
                               grove_vid_t *kids, size_t n);
int grovelp_policy_tramp_choose(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                                const double *scores, size_t n, size_t k, size_t *pick);
int grovelp_policy_tramp_scores(void *arg, const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                                const grove_policy_ctx_t *ctx, double *out);
int grovelp_policy_decl_order(void *arg, const grove_graph_t *g, grove_vid_t parent,
                              grove_vid_t *kids, size_t n);
/* grove_policy_t.observe of a policy with a score or scores of its own */
void grovelp_policy_observe(void *arg, grove_policy_reads_t *out);

/* l_policy_proof.c: what the hooks' code shows.  Fill p->proof of each
 * Lua hook in the table at hooks of S (the sandbox, protected; its
 * libraries made read-only). */
void grovelp_policy_prove(lua_State *S, struct grovel_policy *p, int hooks);

/* l_policy_views.c: what the hooks are handed */
/* Give the ctx table on top of S its metatable (fields made when read). */
void grovelp_policy_ctx_open(lua_State *S, struct grovel_policy *p);
/* A call with ctx x begins: the table at ctx shows x, its fields made
 * anew as they are read; the views answer for its window. */
void grovelp_policy_set_ctx(lua_State *S, struct grovel_policy *p, const grove_policy_ctx_t *x,
                            int ctx);
int grovelp_policy_key_named(const char *s, const char **prop);
double grovelp_policy_key_value(const grove_graph_t *g, grove_vid_t v, int kind, const char *prop,
                                grove_sym_t type, int64_t start, int64_t end);
/* A choose or scores call c begins: what its keys and lazy arrays read
 * (push them after this). */
void grovelp_policy_begin_keyed(struct grovel_policy *p, const struct call *c);
void grovelp_policy_push_keys(lua_State *S, struct grovel_policy *p, const struct call *c);
/* Push the candidates (which 0) or the scores (1) of the call c, made at
 * their first use. */
void grovelp_policy_push_lazy(lua_State *S, struct grovel_policy *p, const struct call *c,
                              int which);

#endif
