/* store.c: the scheduler's state in SQLite (and in a JSON file).
 *
 * Problem: a scheduler restarts and must come back with exactly the state
 * it had: the graph with its statuses, tags and properties, every
 * allocation and reservation, the job table, the acquisition state; and
 * saving after each decision must cost what the decision changed, not the
 * size of the machine, and survive the process being killed at any
 * instant.
 *
 * Design: normalized tables (vertex, property, tag, record, edge, job,
 * pick, acquire, meta) with, on every vertex, edge and job row, a 64-bit
 * content hash and the generation of the save that wrote it.  The store
 * object keeps a shadow of the hashes the database holds (read at open,
 * updated only after a COMMIT succeeds); an incremental save hashes the
 * live state (O(vertices + edges + jobs) cheap work, no I/O) and writes
 * the rows whose hashes differ.  A vertex has four hashes (base data and
 * status, properties, tags, records) so that a change of records rewrites
 * only that vertex's record rows.  Edges are keyed by a position that
 * grows with the graph's edge ids (edge ids are never reused), so loading
 * them in position order rebuilds every vertex's child order.
 *
 * Reading back builds the graph with its vertex ids (dead slots are
 * recreated and unlinked), then, in restore_jobs, inserts the saved
 * records of jobs outside the job table and restores the table's jobs in
 * the order their records were made (a topological order over every
 * vertex's record list, so the lists come back in the same order), sets
 * the statuses last (allocation refuses vertices that are not up), and
 * checks every vertex and job against its saved hash.
 *
 * Workload: incremental saves of a few rows at a time, thousands per
 * minute; full saves and loads of up to millions of vertices at start-up.
 * Statements are prepared once per store.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "jgf.h"
#include "jobspec.h"
#include "store.h"

/* ---- hashing ---------------------------------------------------------------- */

#define H0 0xcbf29ce484222325ULL

static uint64_t h_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t h_i64(uint64_t h, int64_t v)
{
    return h_bytes(h, &v, sizeof(v));
}

static uint64_t h_str(uint64_t h, const char *s)
{
    if (!s)
        return h_i64(h, -1);
    size_t n = strlen(s);
    return h_bytes(h_i64(h, (int64_t)n), s, n);
}

/* Final mix (a row hash is never 0: 0 means "no row"). */
static uint64_t h_fin(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h ? h : 1;
}

/* ---- the store ------------------------------------------------------------------ */

enum {
    S_PUT_VERTEX,
    S_DEL_VERTEX,
    S_DEL_PROPS,
    S_PUT_PROP,
    S_DEL_TAGS,
    S_PUT_TAG,
    S_DEL_RECS,
    S_PUT_REC,
    S_PUT_EDGE,
    S_DEL_EDGE,
    S_PUT_JOB,
    S_DEL_JOB,
    S_DEL_PICKS,
    S_PUT_PICK,
    S_PUT_ACQ,
    S_DEL_ACQ,
    S_PUT_META,
    S_PUT_CHANGE,
    S_COUNT
};

static const char *const sql_text[S_COUNT] = {
    "INSERT OR REPLACE INTO vertex VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "DELETE FROM vertex WHERE vid = ?",
    "DELETE FROM property WHERE vid = ?",
    "INSERT INTO property VALUES (?,?,?,?)",
    "DELETE FROM tag WHERE vid = ?",
    "INSERT INTO tag VALUES (?,?,?,?)",
    "DELETE FROM record WHERE vid = ?",
    "INSERT INTO record VALUES (?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO edge VALUES (?,?,?,?,?,?,?,?,?)",
    "DELETE FROM edge WHERE pos = ?",
    "INSERT OR REPLACE INTO job VALUES (?,?,?,?,?,?)",
    "DELETE FROM job WHERE id = ?",
    "DELETE FROM pick WHERE job = ?",
    "INSERT INTO pick VALUES (?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO acquire VALUES (1,?,?,?)",
    "DELETE FROM acquire",
    "INSERT OR REPLACE INTO meta VALUES (?,?)",
    "INSERT INTO change VALUES (?,?,?,?)",
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);"
    "CREATE TABLE IF NOT EXISTS vertex (vid INTEGER PRIMARY KEY, live INTEGER NOT NULL,"
    " type TEXT NOT NULL, basename TEXT NOT NULL, name TEXT NOT NULL, id INTEGER NOT NULL,"
    " rank INTEGER NOT NULL, size INTEGER NOT NULL, unit TEXT NOT NULL, uuid TEXT NOT NULL,"
    " status INTEGER NOT NULL, hash INTEGER NOT NULL, hash_props INTEGER NOT NULL,"
    " hash_tags INTEGER NOT NULL, hash_records INTEGER NOT NULL, gen INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS property (vid INTEGER NOT NULL, pos INTEGER NOT NULL,"
    " key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (vid, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS tag (vid INTEGER NOT NULL, pos INTEGER NOT NULL,"
    " key TEXT NOT NULL, value TEXT, PRIMARY KEY (vid, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS record (vid INTEGER NOT NULL, pos INTEGER NOT NULL,"
    " job INTEGER NOT NULL, amount INTEGER NOT NULL, t_start INTEGER NOT NULL,"
    " t_end INTEGER NOT NULL, asked INTEGER NOT NULL, PRIMARY KEY (vid, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS edge (pos INTEGER PRIMARY KEY, src INTEGER NOT NULL,"
    " dst INTEGER NOT NULL, subsystem TEXT NOT NULL, relation TEXT NOT NULL,"
    " up INTEGER NOT NULL, opposite INTEGER, hash INTEGER NOT NULL, gen INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS job (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
    " t_start INTEGER NOT NULL, t_end INTEGER NOT NULL, hash INTEGER NOT NULL,"
    " gen INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS pick (job INTEGER NOT NULL, pos INTEGER NOT NULL,"
    " vid INTEGER NOT NULL, amount INTEGER NOT NULL, exclusive INTEGER NOT NULL,"
    " leaf INTEGER NOT NULL, recorded INTEGER NOT NULL, PRIMARY KEY (job, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS acquire (k INTEGER PRIMARY KEY CHECK (k = 1),"
    " state TEXT NOT NULL, hash INTEGER NOT NULL, gen INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS change (gen INTEGER NOT NULL, kind TEXT NOT NULL,"
    " key INTEGER, op TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS change_gen ON change (gen);";

/* What the database holds, as hashes (see the header comment). */
struct vhash {
    uint64_t base, props, tags, recs; /* base 0: no row */
};

struct jhash {
    grove_jobid_t id;
    uint64_t h;
};

struct shadow {
    int64_t gen;      /* generation of the last save */
    struct vhash *v;  /* by vertex id */
    size_t nv;        /* rows: 0 .. nv-1 may exist */
    int64_t *epos;    /* by edge id: its row position, -1 none */
    uint64_t *eh;     /* by edge id: the row's hash */
    size_t ne;
    int64_t maxpos;   /* largest edge position ever used */
    struct jhash *j;  /* sorted by id */
    size_t nj;
    uint64_t ah;      /* acquisition row hash, 0 none */
};

struct grove_store {
    sqlite3 *db;
    char *path;
    bool readonly;
    sqlite3_stmt *st[S_COUNT];
    struct shadow sh;
};

static void shadow_free(struct shadow *sh)
{
    free(sh->v);
    free(sh->epos);
    free(sh->eh);
    free(sh->j);
    memset(sh, 0, sizeof(*sh));
}

static int fail(grove_error_t *err, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(grove_error_t *err, int e, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof(err->text), fmt, ap);
        va_end(ap);
        err->line = 0;
    }
    errno = e;
    return -1;
}

/* An SQLite failure: EBUSY for a lock, EIO otherwise, with its message. */
static int sqlfail(grove_store_t *s, grove_error_t *err, const char *what)
{
    int rc = sqlite3_errcode(s->db);
    int e = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? EBUSY
            : rc == SQLITE_NOMEM                     ? ENOMEM
                                                     : EIO;
    return fail(err, e, "store %s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int exec(grove_store_t *s, const char *sql, grove_error_t *err)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return sqlfail(s, err, sql);
    return 0;
}

/* Run a prepared statement with no result rows, then reset it. */
static int step_done(grove_store_t *s, sqlite3_stmt *st, grove_error_t *err, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return sqlfail(s, err, what);
    return 0;
}

static int put_meta(grove_store_t *s, const char *key, sqlite3_int64 ival, const char *sval,
                    grove_error_t *err)
{
    sqlite3_stmt *st = s->st[S_PUT_META];
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sval)
        sqlite3_bind_text(st, 2, sval, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(st, 2, ival);
    return step_done(s, st, err, "writing meta");
}

/* meta value as integer (*found false when absent). */
static int get_meta_int(grove_store_t *s, const char *key, int64_t *out, bool *found,
                        grove_error_t *err)
{
    sqlite3_stmt *st;
    *found = false;
    if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        != SQLITE_OK)
        return sqlfail(s, err, "reading meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *found = sqlite3_column_type(st, 0) != SQLITE_NULL;
        *out = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sqlfail(s, err, "reading meta");
    return 0;
}

/* meta value as new text (NULL when absent). */
static int get_meta_text(grove_store_t *s, const char *key, char **out, grove_error_t *err)
{
    sqlite3_stmt *st;
    *out = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        != SQLITE_OK)
        return sqlfail(s, err, "reading meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!(*out = strdup(t ? t : ""))) {
            sqlite3_finalize(st);
            return fail(err, ENOMEM, "out of memory");
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sqlfail(s, err, "reading meta");
    return 0;
}

/* ---- the shadow from the database --------------------------------------------- */

/* grovep_grow, with the new elements zeroed. */
static int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;
    if (grovep_grow(p, cap, need, elem) < 0)
        return -1;
    memset((char *)*p + old * elem, 0, (*cap - old) * elem);
    return 0;
}

/* Read every row's hashes into a new shadow. */
static int shadow_read(grove_store_t *s, struct shadow *sh, grove_error_t *err)
{
    memset(sh, 0, sizeof(*sh));
    bool found;
    if (get_meta_int(s, "generation", &sh->gen, &found, err) < 0)
        return -1;
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT vid, hash, hash_props, hash_tags, hash_records FROM vertex "
                           "ORDER BY vid",
                           -1, &st, NULL)
        != SQLITE_OK)
        goto sql;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t vid = sqlite3_column_int64(st, 0);
        if (vid < 0 || vid >= (int64_t)GROVE_VID_NONE) {
            sqlite3_finalize(st);
            shadow_free(sh);
            return fail(err, EINVAL, "store %s: vertex row with id %lld", s->path,
                        (long long)vid);
        }
        if (grow_array((void **)&sh->v, &cap, (size_t)vid + 1, sizeof(*sh->v)) < 0)
            goto oom;
        sh->v[vid] = (struct vhash){(uint64_t)sqlite3_column_int64(st, 1),
                                    (uint64_t)sqlite3_column_int64(st, 2),
                                    (uint64_t)sqlite3_column_int64(st, 3),
                                    (uint64_t)sqlite3_column_int64(st, 4)};
        if (sh->v[vid].base == 0)
            sh->v[vid].base = 1;
        sh->nv = (size_t)vid + 1;
    }
    if (rc != SQLITE_DONE)
        goto sql;
    sqlite3_finalize(st);
    st = NULL;
    size_t ecap = 0, hcap = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT pos, hash FROM edge ORDER BY pos", -1, &st, NULL)
        != SQLITE_OK)
        goto sql;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow_array((void **)&sh->epos, &ecap, sh->ne + 1, sizeof(*sh->epos)) < 0
            || grow_array((void **)&sh->eh, &hcap, sh->ne + 1, sizeof(*sh->eh)) < 0)
            goto oom;
        sh->epos[sh->ne] = sqlite3_column_int64(st, 0);
        sh->eh[sh->ne] = (uint64_t)sqlite3_column_int64(st, 1);
        if (sh->epos[sh->ne] > sh->maxpos)
            sh->maxpos = sh->epos[sh->ne];
        sh->ne++;
    }
    if (rc != SQLITE_DONE)
        goto sql;
    sqlite3_finalize(st);
    st = NULL;
    int64_t mp;
    if (get_meta_int(s, "edge_maxpos", &mp, &found, err) < 0) {
        shadow_free(sh);
        return -1;
    }
    if (found && mp > sh->maxpos)
        sh->maxpos = mp;
    size_t jcap = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT id, hash FROM job ORDER BY id", -1, &st, NULL)
        != SQLITE_OK)
        goto sql;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow_array((void **)&sh->j, &jcap, sh->nj + 1, sizeof(*sh->j)) < 0)
            goto oom;
        sh->j[sh->nj++] = (struct jhash){(grove_jobid_t)sqlite3_column_int64(st, 0),
                                         (uint64_t)sqlite3_column_int64(st, 1)};
    }
    if (rc != SQLITE_DONE)
        goto sql;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT hash FROM acquire", -1, &st, NULL) != SQLITE_OK)
        goto sql;
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        sh->ah = (uint64_t)sqlite3_column_int64(st, 0) ? (uint64_t)sqlite3_column_int64(st, 0)
                                                       : 1;
    else if (rc != SQLITE_DONE)
        goto sql;
    sqlite3_finalize(st);
    return 0;
sql:
    sqlfail(s, err, "reading row hashes");
    sqlite3_finalize(st);
    shadow_free(sh);
    return -1;
oom:
    sqlite3_finalize(st);
    shadow_free(sh);
    return fail(err, ENOMEM, "out of memory");
}

/* ---- open and close ------------------------------------------------------------- */

void grove_store_close(grove_store_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    shadow_free(&s->sh);
    free(s->path);
    free(s);
}

grove_store_t *grove_store_open(const char *path, int flags, grove_error_t *err)
{
    grove_error_clear(err);
    if (!path || !*path || (flags & ~(GROVE_STORE_CREATE | GROVE_STORE_READONLY
                                      | GROVE_STORE_NORMAL_SYNC))
        || ((flags & GROVE_STORE_CREATE) && (flags & GROVE_STORE_READONLY))) {
        fail(err, EINVAL, "store: bad path or flags");
        return NULL;
    }
    if (!(flags & GROVE_STORE_CREATE) && access(path, F_OK) < 0) {
        fail(err, ENOENT, "store %s: no such file", path);
        return NULL;
    }
    grove_store_t *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        fail(err, ENOMEM, "out of memory");
        return NULL;
    }
    s->readonly = flags & GROVE_STORE_READONLY;
    int oflags = s->readonly ? SQLITE_OPEN_READONLY
                             : SQLITE_OPEN_READWRITE
                                   | ((flags & GROVE_STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        if (s->db)
            sqlfail(s, err, "open");
        else
            fail(err, ENOMEM, "out of memory");
        grove_store_close(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 10000);
    sqlite3_extended_result_codes(s->db, 0);
    /* is it a Grove store, or an empty database we may make one? */
    sqlite3_stmt *st = NULL;
    int ntables = -1, has_meta = 0;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT count(*), sum(name = 'meta') FROM sqlite_master WHERE type = "
                           "'table'",
                           -1, &st, NULL)
            == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        ntables = sqlite3_column_int(st, 0);
        has_meta = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (ntables < 0) {
        int rc = sqlite3_errcode(s->db);
        if (rc == SQLITE_NOTADB)
            fail(err, EINVAL, "store %s: not a database", path);
        else
            sqlfail(s, err, "reading the schema");
        grove_store_close(s);
        return NULL;
    }
    if (ntables > 0 && !has_meta) {
        fail(err, EINVAL, "store %s: not a Grove store (a database with other tables)", path);
        grove_store_close(s);
        return NULL;
    }
    if (!s->readonly) {
        if (exec(s, "PRAGMA journal_mode = WAL", err) < 0
            || exec(s, (flags & GROVE_STORE_NORMAL_SYNC) ? "PRAGMA synchronous = NORMAL"
                                                         : "PRAGMA synchronous = FULL",
                    err)
                   < 0
            || exec(s, schema, err) < 0) {
            grove_store_close(s);
            return NULL;
        }
    } else if (!has_meta) {
        fail(err, EINVAL, "store %s: not a Grove store (empty)", path);
        grove_store_close(s);
        return NULL;
    }
    int64_t format = 0;
    bool found;
    if (get_meta_int(s, "format", &format, &found, err) < 0) {
        grove_store_close(s);
        return NULL;
    }
    if (found && format > GROVE_STORE_FORMAT) {
        fail(err, EINVAL, "store %s: format %lld is newer than this Grove's (%d)", path,
             (long long)format, GROVE_STORE_FORMAT);
        grove_store_close(s);
        return NULL;
    }
    if (!found && !s->readonly
        && exec(s,
                "INSERT OR IGNORE INTO meta VALUES ('format', 1); "
                "INSERT OR IGNORE INTO meta VALUES ('generation', 0)",
                err)
               < 0) {
        grove_store_close(s);
        return NULL;
    }
    if (!s->readonly) {
        for (int i = 0; i < S_COUNT; i++)
            if (sqlite3_prepare_v3(s->db, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
                                   NULL)
                != SQLITE_OK) {
                sqlfail(s, err, "preparing statements");
                grove_store_close(s);
                return NULL;
            }
    }
    if (shadow_read(s, &s->sh, err) < 0) {
        grove_store_close(s);
        return NULL;
    }
    return s;
}

int64_t grove_store_generation(const grove_store_t *s)
{
    return s->sh.gen;
}

/* ---- rows of the live state ---------------------------------------------------- */

/* Base data and status (status given: the saved one while loading). */
static uint64_t base_hash(const grove_graph_t *g, grove_vid_t v, int status)
{
    uint64_t h = H0;
    if (!grove_graph_has_vertex(g, v))
        return h_fin(h_i64(h, 0));
    char uuid[37];
    grove_vertex_uuid(g, v, uuid);
    h = h_i64(h, 1);
    h = h_str(h, grove_vertex_type(g, v));
    h = h_str(h, grove_vertex_basename(g, v));
    h = h_str(h, grove_vertex_name(g, v));
    h = h_i64(h, grove_vertex_id(g, v));
    h = h_i64(h, grove_vertex_rank(g, v));
    h = h_i64(h, grove_vertex_size(g, v));
    h = h_str(h, grove_vertex_unit(g, v));
    h = h_str(h, uuid);
    h = h_i64(h, status);
    return h_fin(h);
}

static uint64_t props_hash(const grove_graph_t *g, grove_vid_t v)
{
    uint64_t h = H0;
    const char *k, *val;
    size_t i = 0;
    for (; grove_vertex_property_at(g, v, i, &k, &val) == 0; i++)
        h = h_str(h_str(h, k), val);
    return h_fin(h_i64(h, (int64_t)i));
}

static uint64_t tags_hash(const grove_graph_t *g, grove_vid_t v)
{
    uint64_t h = H0;
    const char *k, *val;
    size_t i = 0;
    for (; grove_vertex_tag_at(g, v, i, &k, &val) == 0; i++)
        h = h_str(h_str(h, k), val);
    return h_fin(h_i64(h, (int64_t)i));
}

/* One record's hash; a vertex's record hash is their sum (order does not
 * matter: the order is restored, but checked only as a set). */
static uint64_t rec_hash(grove_jobid_t job, int64_t amount, int64_t start, int64_t end,
                         bool asked)
{
    uint64_t h = h_i64(H0, (int64_t)job);
    h = h_i64(h, amount);
    h = h_i64(h, start);
    h = h_i64(h, end);
    return h_fin(h_i64(h, asked));
}

static uint64_t recs_fin(uint64_t sum, size_t n)
{
    return h_fin(h_i64(h_i64(H0, (int64_t)sum), (int64_t)n));
}

static uint64_t recs_hash(const grove_graph_t *g, grove_vid_t v)
{
    uint64_t sum = 0;
    size_t n = 0;
    grove_record_t r;
    for (size_t i = 0; grove_vertex_record_at(g, v, i, &r) == 0; i++) {
        if (r.kind != GROVE_RECORD_ALLOC)
            break;
        sum += rec_hash(r.job, r.amount, r.start, r.end, r.asked);
        n++;
    }
    return recs_fin(sum, n);
}

static uint64_t edge_hash(int64_t src, int64_t dst, const char *sub, const char *rel, bool up,
                          int64_t opp)
{
    uint64_t h = h_i64(H0, src);
    h = h_i64(h, dst);
    h = h_str(h, sub);
    h = h_str(h, rel);
    h = h_i64(h, up);
    return h_fin(h_i64(h, opp));
}

static uint64_t job_hash(const grove_job_t *j)
{
    uint64_t h = h_i64(H0, (int64_t)j->id);
    h = h_i64(h, j->state);
    h = h_i64(h, j->start);
    h = h_i64(h, j->end);
    h = h_i64(h, (int64_t)j->npicks);
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        h = h_i64(h, p->v);
        h = h_i64(h, p->amount);
        h = h_i64(h, (p->exclusive ? 1 : 0) | (p->leaf ? 2 : 0) | (p->recorded ? 4 : 0));
    }
    return h_fin(h);
}

/* ---- saving -------------------------------------------------------------------- */

static int log_change(grove_store_t *s, int64_t gen, const char *kind, int64_t key,
                      const char *op, grove_error_t *err)
{
    sqlite3_stmt *st = s->st[S_PUT_CHANGE];
    sqlite3_bind_int64(st, 1, gen);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    if (key >= 0)
        sqlite3_bind_int64(st, 3, key);
    sqlite3_bind_text(st, 4, op, -1, SQLITE_STATIC);
    return step_done(s, st, err, "writing the change log");
}

static int write_vertex(grove_store_t *s, const grove_graph_t *g, grove_vid_t v,
                        const struct vhash *old, const struct vhash *nw, int64_t gen,
                        grove_error_t *err)
{
    sqlite3_stmt *st = s->st[S_PUT_VERTEX];
    bool live = grove_graph_has_vertex(g, v);
    char uuid[37] = "";
    if (live)
        grove_vertex_uuid(g, v, uuid);
    sqlite3_bind_int64(st, 1, v);
    sqlite3_bind_int(st, 2, live);
    sqlite3_bind_text(st, 3, live ? grove_vertex_type(g, v) : "-", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, live ? grove_vertex_basename(g, v) : "-", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, live ? grove_vertex_name(g, v) : "-", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, live ? grove_vertex_id(g, v) : -1);
    sqlite3_bind_int64(st, 7, live ? grove_vertex_rank(g, v) : -1);
    sqlite3_bind_int64(st, 8, live ? grove_vertex_size(g, v) : 0);
    sqlite3_bind_text(st, 9, live ? grove_vertex_unit(g, v) : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 10, uuid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 11, live ? (int)grove_vertex_status(g, v) : 0);
    sqlite3_bind_int64(st, 12, (sqlite3_int64)nw->base);
    sqlite3_bind_int64(st, 13, (sqlite3_int64)nw->props);
    sqlite3_bind_int64(st, 14, (sqlite3_int64)nw->tags);
    sqlite3_bind_int64(st, 15, (sqlite3_int64)nw->recs);
    sqlite3_bind_int64(st, 16, gen);
    if (step_done(s, st, err, "writing a vertex") < 0)
        return -1;
    if (old->props != nw->props) {
        sqlite3_bind_int64(s->st[S_DEL_PROPS], 1, v);
        if (step_done(s, s->st[S_DEL_PROPS], err, "writing properties") < 0)
            return -1;
        const char *k, *val;
        for (size_t i = 0; live && grove_vertex_property_at(g, v, i, &k, &val) == 0; i++) {
            st = s->st[S_PUT_PROP];
            sqlite3_bind_int64(st, 1, v);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_text(st, 3, k, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 4, val, -1, SQLITE_STATIC);
            if (step_done(s, st, err, "writing a property") < 0)
                return -1;
        }
    }
    if (old->tags != nw->tags) {
        sqlite3_bind_int64(s->st[S_DEL_TAGS], 1, v);
        if (step_done(s, s->st[S_DEL_TAGS], err, "writing tags") < 0)
            return -1;
        const char *k, *val;
        for (size_t i = 0; live && grove_vertex_tag_at(g, v, i, &k, &val) == 0; i++) {
            st = s->st[S_PUT_TAG];
            sqlite3_bind_int64(st, 1, v);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_text(st, 3, k, -1, SQLITE_STATIC);
            if (val)
                sqlite3_bind_text(st, 4, val, -1, SQLITE_STATIC);
            if (step_done(s, st, err, "writing a tag") < 0)
                return -1;
        }
    }
    if (old->recs != nw->recs) {
        sqlite3_bind_int64(s->st[S_DEL_RECS], 1, v);
        if (step_done(s, s->st[S_DEL_RECS], err, "writing records") < 0)
            return -1;
        grove_record_t r;
        for (size_t i = 0; live && grove_vertex_record_at(g, v, i, &r) == 0; i++) {
            if (r.kind != GROVE_RECORD_ALLOC)
                break;
            st = s->st[S_PUT_REC];
            sqlite3_bind_int64(st, 1, v);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_int64(st, 3, (sqlite3_int64)r.job);
            sqlite3_bind_int64(st, 4, r.amount);
            sqlite3_bind_int64(st, 5, r.start);
            sqlite3_bind_int64(st, 6, r.end);
            sqlite3_bind_int(st, 7, r.asked);
            if (step_done(s, st, err, "writing a record") < 0)
                return -1;
        }
    }
    return 0;
}

static int delete_vertex(grove_store_t *s, grove_vid_t v, grove_error_t *err)
{
    static const int dels[] = {S_DEL_VERTEX, S_DEL_PROPS, S_DEL_TAGS, S_DEL_RECS};
    for (size_t i = 0; i < 4; i++) {
        sqlite3_bind_int64(s->st[dels[i]], 1, v);
        if (step_done(s, s->st[dels[i]], err, "deleting a vertex") < 0)
            return -1;
    }
    return 0;
}

static int write_job(grove_store_t *s, const grove_job_t *j, uint64_t h, int64_t gen,
                     grove_error_t *err)
{
    sqlite3_stmt *st = s->st[S_PUT_JOB];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)j->id);
    sqlite3_bind_int(st, 2, j->state);
    sqlite3_bind_int64(st, 3, j->start);
    sqlite3_bind_int64(st, 4, j->end);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)h);
    sqlite3_bind_int64(st, 6, gen);
    if (step_done(s, st, err, "writing a job") < 0)
        return -1;
    sqlite3_bind_int64(s->st[S_DEL_PICKS], 1, (sqlite3_int64)j->id);
    if (step_done(s, s->st[S_DEL_PICKS], err, "writing picks") < 0)
        return -1;
    for (size_t i = 0; i < j->npicks; i++) {
        const grove_pick_t *p = &j->picks[i];
        st = s->st[S_PUT_PICK];
        sqlite3_bind_int64(st, 1, (sqlite3_int64)j->id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_int64(st, 3, p->v);
        sqlite3_bind_int64(st, 4, p->amount);
        sqlite3_bind_int(st, 5, p->exclusive);
        sqlite3_bind_int(st, 6, p->leaf);
        sqlite3_bind_int(st, 7, p->recorded);
        if (step_done(s, st, err, "writing a pick") < 0)
            return -1;
    }
    return 0;
}

static int delete_job(grove_store_t *s, grove_jobid_t id, grove_error_t *err)
{
    sqlite3_bind_int64(s->st[S_DEL_JOB], 1, (sqlite3_int64)id);
    if (step_done(s, s->st[S_DEL_JOB], err, "deleting a job") < 0)
        return -1;
    sqlite3_bind_int64(s->st[S_DEL_PICKS], 1, (sqlite3_int64)id);
    return step_done(s, s->st[S_DEL_PICKS], err, "deleting picks");
}

/* The acquisition state as canonical text (sorted keys). */
static char *acquire_text(const grove_acquire_t *a)
{
    json_t *j = grove_acquire_to_json(a);
    char *t = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    return t;
}

static int save_vertices(grove_store_t *s, const grove_graph_t *g, struct shadow *ns,
                         int64_t gen, bool full, grove_store_stats_t *st, grove_error_t *err)
{
    size_t slots = grove_graph_vertex_slots(g);
    size_t n = slots > s->sh.nv ? slots : s->sh.nv;
    if (!(ns->v = calloc(n ? n : 1, sizeof(*ns->v))))
        return fail(err, ENOMEM, "out of memory");
    ns->nv = slots;
    static const struct vhash none = {0, 0, 0, 0};
    for (size_t v = 0; v < n; v++) {
        const struct vhash *old = !full && v < s->sh.nv ? &s->sh.v[v] : &none;
        if (v >= slots) {
            if (old->base) {
                if (delete_vertex(s, (grove_vid_t)v, err) < 0
                    || log_change(s, gen, "vertex", (int64_t)v, "del", err) < 0)
                    return -1;
                st->deleted++;
            }
            continue;
        }
        bool live = grove_graph_has_vertex(g, (grove_vid_t)v);
        struct vhash h = {
            base_hash(g, (grove_vid_t)v, live ? (int)grove_vertex_status(g, (grove_vid_t)v) : 0),
            live ? props_hash(g, (grove_vid_t)v) : h_fin(H0),
            live ? tags_hash(g, (grove_vid_t)v) : h_fin(H0),
            live ? recs_hash(g, (grove_vid_t)v) : recs_fin(0, 0)};
        ns->v[v] = h;
        if (memcmp(&h, old, sizeof(h)) == 0)
            continue;
        /* rows of a part never written (full save, new row) are written
         * whatever their hash: the part tables were emptied or never had
         * rows for v */
        struct vhash prev = *old;
        if (!old->base)
            prev.props = prev.tags = prev.recs = 0;
        if (write_vertex(s, g, (grove_vid_t)v, &prev, &h, gen, err) < 0
            || (!full && log_change(s, gen, "vertex", (int64_t)v, "put", err) < 0))
            return -1;
        st->vertices++;
    }
    return 0;
}

static int save_edges(grove_store_t *s, const grove_graph_t *g, struct shadow *ns, int64_t gen,
                      bool full, grove_store_stats_t *st, grove_error_t *err)
{
    size_t E = grove_graph_edge_slots(g);
    size_t oldn = full ? 0 : s->sh.ne;
    size_t n = E > oldn ? E : oldn;
    ns->ne = n;
    ns->maxpos = full ? 0 : s->sh.maxpos;
    if (!(ns->epos = malloc((n ? n : 1) * sizeof(*ns->epos)))
        || !(ns->eh = calloc(n ? n : 1, sizeof(*ns->eh))))
        return fail(err, ENOMEM, "out of memory");
    for (size_t e = 0; e < n; e++) {
        ns->epos[e] = e < oldn ? s->sh.epos[e] : -1;
        ns->eh[e] = e < oldn ? s->sh.eh[e] : 0;
    }
    /* positions first: opposites refer to them */
    for (size_t e = 0; e < E; e++)
        if (grove_graph_has_edge(g, (grove_eid_t)e) && ns->epos[e] < 0)
            ns->epos[e] = ++ns->maxpos;
    for (size_t e = 0; e < n; e++) {
        bool live = e < E && grove_graph_has_edge(g, (grove_eid_t)e);
        if (!live) {
            if (ns->epos[e] >= 0) {
                sqlite3_bind_int64(s->st[S_DEL_EDGE], 1, ns->epos[e]);
                if (step_done(s, s->st[S_DEL_EDGE], err, "deleting an edge") < 0
                    || log_change(s, gen, "edge", ns->epos[e], "del", err) < 0)
                    return -1;
                st->deleted++;
                ns->epos[e] = -1;
                ns->eh[e] = 0;
            }
            continue;
        }
        grove_eid_t opp = grove_edge_opposite(g, (grove_eid_t)e);
        int64_t opos = opp != GROVE_EID_NONE && grove_graph_has_edge(g, opp) && opp < n
                           ? ns->epos[opp]
                           : -1;
        const char *sub = grove_graph_str(g, grove_edge_subsystem(g, (grove_eid_t)e));
        const char *rel = grove_graph_str(g, grove_edge_relation(g, (grove_eid_t)e));
        bool up = grove_edge_is_up(g, (grove_eid_t)e);
        grove_vid_t src = grove_edge_src(g, (grove_eid_t)e), dst = grove_edge_dst(g, (grove_eid_t)e);
        uint64_t h = edge_hash(src, dst, sub, rel, up, opos);
        if (h == ns->eh[e])
            continue;
        sqlite3_stmt *q = s->st[S_PUT_EDGE];
        sqlite3_bind_int64(q, 1, ns->epos[e]);
        sqlite3_bind_int64(q, 2, src);
        sqlite3_bind_int64(q, 3, dst);
        sqlite3_bind_text(q, 4, sub, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, rel, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 6, up);
        if (opos >= 0)
            sqlite3_bind_int64(q, 7, opos);
        sqlite3_bind_int64(q, 8, (sqlite3_int64)h);
        sqlite3_bind_int64(q, 9, gen);
        if (step_done(s, q, err, "writing an edge") < 0
            || (!full && log_change(s, gen, "edge", ns->epos[e], "put", err) < 0))
            return -1;
        ns->eh[e] = h;
        st->edges++;
    }
    return 0;
}

static int save_jobs(grove_store_t *s, const grove_matcher_t *m, struct shadow *ns, int64_t gen,
                     bool full, grove_store_stats_t *st, grove_error_t *err)
{
    size_t nj = m ? grove_matcher_job_count(m) : 0;
    if (!(ns->j = malloc((nj ? nj : 1) * sizeof(*ns->j))))
        return fail(err, ENOMEM, "out of memory");
    ns->nj = nj;
    size_t oldn = full ? 0 : s->sh.nj, i = 0, k = 0;
    while (i < nj || k < oldn) {
        const grove_job_t *j = i < nj ? grove_matcher_job_at(m, i) : NULL;
        const struct jhash *o = k < oldn ? &s->sh.j[k] : NULL;
        if (o && (!j || o->id < j->id)) {
            if (delete_job(s, o->id, err) < 0
                || log_change(s, gen, "job", (int64_t)o->id, "del", err) < 0)
                return -1;
            st->deleted++;
            k++;
            continue;
        }
        if (!j)
            break; /* not reached: o is NULL or o->id >= j->id here */
        uint64_t h = job_hash(j);
        ns->j[i] = (struct jhash){j->id, h};
        bool same = o && o->id == j->id && o->h == h;
        if (o && o->id == j->id)
            k++;
        i++;
        if (same)
            continue;
        if (write_job(s, j, h, gen, err) < 0
            || (!full && log_change(s, gen, "job", (int64_t)j->id, "put", err) < 0))
            return -1;
        st->jobs++;
    }
    return 0;
}

/* Sums of the row hashes of each table: deleting or adding rows behind
 * the store's back shows at load. */
static uint64_t digest_vertices(const struct shadow *sh)
{
    uint64_t d = 0;
    for (size_t v = 0; v < sh->nv; v++)
        d += sh->v[v].base + 3 * sh->v[v].props + 5 * sh->v[v].tags + 7 * sh->v[v].recs;
    return d;
}

static uint64_t digest_edges(const struct shadow *sh)
{
    uint64_t d = 0;
    for (size_t e = 0; e < sh->ne; e++)
        if (sh->epos[e] >= 0)
            d += sh->eh[e] + (uint64_t)sh->epos[e];
    return d;
}

static uint64_t digest_jobs(const struct shadow *sh)
{
    uint64_t d = 0;
    for (size_t i = 0; i < sh->nj; i++)
        d += sh->j[i].h;
    return d;
}

static int save_meta(grove_store_t *s, const grove_graph_t *g, const grove_matcher_t *m,
                     const grove_acquire_t *a, const struct shadow *ns, int64_t gen,
                     grove_error_t *err)
{
    if (put_meta(s, "digest_vertices", (sqlite3_int64)digest_vertices(ns), NULL, err) < 0
        || put_meta(s, "digest_edges", (sqlite3_int64)digest_edges(ns), NULL, err) < 0
        || put_meta(s, "digest_jobs", (sqlite3_int64)digest_jobs(ns), NULL, err) < 0)
        return -1;
    char now[32];
    snprintf(now, sizeof(now), "%.3f", (double)time(NULL));
    if (put_meta(s, "format", GROVE_STORE_FORMAT, NULL, err) < 0
        || put_meta(s, "generation", gen, NULL, err) < 0
        || put_meta(s, "saved", 0, now, err) < 0
        || put_meta(s, "slots", (sqlite3_int64)grove_graph_vertex_slots(g), NULL, err) < 0
        || put_meta(s, "now", grove_graph_now(g), NULL, err) < 0
        || put_meta(s, "aggregates", 0, grove_graph_aggregates(g), err) < 0
        || put_meta(s, "edge_maxpos", ns->maxpos, NULL, err) < 0
        || put_meta(s, "matcher", m != NULL, NULL, err) < 0
        || put_meta(s, "acquire", a != NULL, NULL, err) < 0
        || put_meta(s, "next_id", m ? (sqlite3_int64)grove_matcher_next_id(m) : 1, NULL, err) < 0)
        return -1;
    if (m && put_meta(s, "policy", 0, grove_matcher_policy(m)->name, err) < 0)
        return -1;
    return 0;
}

int grove_store_save(grove_store_t *s, const grove_graph_t *g, const grove_matcher_t *m,
                     const grove_acquire_t *a, int flags, grove_store_stats_t *stp,
                     grove_error_t *err)
{
    grove_error_clear(err);
    grove_store_stats_t st = {0};
    if (stp)
        *stp = st;
    if (!s || !g || (flags & ~GROVE_STORE_FULL))
        return fail(err, EINVAL, "store: bad arguments");
    if (s->readonly)
        return fail(err, EINVAL, "store %s: opened read-only", s->path);
    if ((m && grove_matcher_graph(m) != g) || (a && grove_acquire_graph(a) != g))
        return fail(err, EINVAL, "store: the matcher or acquisition state is over another graph");
    char *atext = NULL;
    if (a && !(atext = acquire_text(a)))
        return fail(err, ENOMEM, "out of memory");
    struct shadow ns = {0};
    if (exec(s, "BEGIN IMMEDIATE", err) < 0) {
        free(atext);
        return -1;
    }
    /* another writer since our last look?  Then read its hashes. */
    int64_t dbgen = 0;
    bool found;
    if (get_meta_int(s, "generation", &dbgen, &found, err) < 0)
        goto fail;
    if (dbgen != s->sh.gen) {
        struct shadow fresh;
        if (shadow_read(s, &fresh, err) < 0)
            goto fail;
        shadow_free(&s->sh);
        s->sh = fresh;
    }
    bool full = flags & GROVE_STORE_FULL;
    int64_t gen = s->sh.gen + 1;
    st.generation = gen;
    st.full = full;
    if (full
        && exec(s,
                "DELETE FROM vertex; DELETE FROM property; DELETE FROM tag; DELETE FROM record; "
                "DELETE FROM edge; DELETE FROM job; DELETE FROM pick; DELETE FROM acquire; "
                "DELETE FROM change",
                err)
               < 0)
        goto fail;
    if (save_vertices(s, g, &ns, gen, full, &st, err) < 0
        || save_edges(s, g, &ns, gen, full, &st, err) < 0
        || save_jobs(s, m, &ns, gen, full, &st, err) < 0)
        goto fail;
    uint64_t ah = atext ? h_fin(h_str(H0, atext)) : 0;
    ns.ah = ah;
    if (ah != (full ? 0 : s->sh.ah)) {
        if (atext) {
            sqlite3_stmt *q = s->st[S_PUT_ACQ];
            sqlite3_bind_text(q, 1, atext, -1, SQLITE_STATIC);
            sqlite3_bind_int64(q, 2, (sqlite3_int64)ah);
            sqlite3_bind_int64(q, 3, gen);
            if (step_done(s, q, err, "writing the acquisition state") < 0)
                goto fail;
        } else if (step_done(s, s->st[S_DEL_ACQ], err, "deleting the acquisition state") < 0) {
            goto fail;
        }
        if (!full && log_change(s, gen, "acquire", -1, atext ? "put" : "del", err) < 0)
            goto fail;
    }
    if (save_meta(s, g, m, a, &ns, gen, err) < 0
        || log_change(s, gen, "meta", -1, full ? "full" : "put", err) < 0)
        goto fail;
    if (exec(s, "COMMIT", err) < 0)
        goto fail;
    ns.gen = gen;
    shadow_free(&s->sh);
    s->sh = ns;
    free(atext);
    if (stp)
        *stp = st;
    return 0;
fail:;
    int saved = errno;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    shadow_free(&ns);
    free(atext);
    errno = saved;
    return -1;
}

/* ---- images -------------------------------------------------------------------- */

/* A saved record (of any job) on vertex v. */
struct srec {
    grove_vid_t v;
    grove_jobid_t job;
    int64_t amount, start, end;
    bool asked;
};

/* A saved job and the hash it must have once restored. */
struct sjob {
    grove_job_t job; /* picks owned */
    uint64_t hash;
};

struct grove_image {
    grove_graph_t *g;   /* owned until taken */
    bool taken;
    bool restored;      /* restore_jobs ran */
    size_t slots;
    uint8_t *status;    /* by vertex: the status to set once records are in */
    uint64_t *hbase;    /* by vertex: expected base hash (NULL: not checked) */
    uint64_t *hrec;     /* by vertex: expected record hash */
    struct srec *recs;  /* grouped by vertex, oldest first */
    size_t nrecs, reccap;
    struct sjob *jobs;  /* by id */
    size_t njobs, jobcap;
    bool has_jobs;
    char *policy;
    grove_jobid_t next_id;
    json_t *acquire;    /* NULL: none saved */
};

void grove_image_destroy(grove_image_t *im)
{
    if (!im)
        return;
    if (!im->taken)
        grove_graph_destroy(im->g);
    free(im->status);
    free(im->hbase);
    free(im->hrec);
    free(im->recs);
    for (size_t i = 0; i < im->njobs; i++)
        free(im->jobs[i].job.picks);
    free(im->jobs);
    free(im->policy);
    json_decref(im->acquire);
    free(im);
}

grove_graph_t *grove_image_graph(const grove_image_t *im)
{
    return im->taken ? NULL : im->g;
}

grove_graph_t *grove_image_take_graph(grove_image_t *im)
{
    if (im->taken)
        return NULL;
    im->taken = true;
    return im->g;
}

bool grove_image_has_jobs(const grove_image_t *im)
{
    return im->has_jobs;
}

bool grove_image_has_acquire(const grove_image_t *im)
{
    return im->acquire != NULL;
}

const char *grove_image_policy(const grove_image_t *im)
{
    return im->policy;
}

size_t grove_image_job_count(const grove_image_t *im)
{
    return im->njobs;
}

static grove_image_t *image_new(size_t slots)
{
    grove_image_t *im = calloc(1, sizeof(*im));
    if (!im)
        return NULL;
    im->slots = slots;
    im->next_id = 1;
    if (!(im->g = grove_graph_create()) || !(im->status = calloc(slots ? slots : 1, 1))
        || !(im->hrec = calloc(slots ? slots : 1, sizeof(*im->hrec)))) {
        grove_image_destroy(im);
        return NULL;
    }
    return im;
}

static int image_add_rec(grove_image_t *im, const struct srec *r)
{
    if (grow_array((void **)&im->recs, &im->reccap, im->nrecs + 1, sizeof(*im->recs)) < 0)
        return -1;
    im->recs[im->nrecs++] = *r;
    return 0;
}

static struct sjob *image_job(const grove_image_t *im, grove_jobid_t id)
{
    size_t lo = 0, hi = im->njobs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (im->jobs[mid].job.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < im->njobs && im->jobs[lo].job.id == id ? &im->jobs[lo] : NULL;
}

/* ---- restoring jobs and records in the order they were made ---------------- */

/* A min-heap of unit numbers. */
struct heap {
    uint32_t *a;
    size_t n;
};

static void heap_push(struct heap *h, uint32_t x)
{
    size_t i = h->n++;
    h->a[i] = x;
    while (i > 0 && h->a[(i - 1) / 2] > h->a[i]) {
        uint32_t t = h->a[i];
        h->a[i] = h->a[(i - 1) / 2];
        h->a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static uint32_t heap_pop(struct heap *h)
{
    uint32_t top = h->a[0];
    h->a[0] = h->a[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->a[l] < h->a[m])
            m = l;
        if (r < h->n && h->a[r] < h->a[m])
            m = r;
        if (m == i)
            break;
        uint32_t t = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = t;
        i = m;
    }
    return top;
}

/* The order to insert units in: units 0..njobs-1 are the saved jobs,
 * njobs + k the k-th record of a job outside the table.  Every vertex's
 * saved record list (oldest first) says which unit came before which.
 * *order gets every unit (ties and cycles broken by unit number). */
static int unit_order(const grove_image_t *im, const uint32_t *unit_of, size_t nunits,
                      uint32_t **order)
{
    size_t ne = 0;
    uint32_t *from = NULL, *to = NULL, *indeg = NULL, *start = NULL, *adj = NULL;
    struct heap h = {NULL, 0};
    uint8_t *done = NULL;
    int rc = -1;
    *order = NULL;
    if (!(from = malloc((im->nrecs + 1) * sizeof(*from)))
        || !(to = malloc((im->nrecs + 1) * sizeof(*to)))
        || !(indeg = calloc(nunits + 1, sizeof(*indeg)))
        || !(start = calloc(nunits + 2, sizeof(*start)))
        || !(h.a = malloc((nunits + 1) * sizeof(*h.a))) || !(done = calloc(nunits + 1, 1))
        || !(*order = malloc((nunits + 1) * sizeof(**order))))
        goto out;
    for (size_t i = 1; i < im->nrecs; i++) {
        if (im->recs[i].v != im->recs[i - 1].v || unit_of[i] == unit_of[i - 1])
            continue;
        from[ne] = unit_of[i - 1];
        to[ne] = unit_of[i];
        indeg[to[ne]]++;
        start[from[ne] + 1]++;
        ne++;
    }
    for (size_t u = 0; u < nunits; u++)
        start[u + 1] += start[u];
    if (!(adj = malloc((ne + 1) * sizeof(*adj))))
        goto out;
    {
        uint32_t *fill = calloc(nunits + 1, sizeof(*fill));
        if (!fill)
            goto out;
        for (size_t e = 0; e < ne; e++)
            adj[start[from[e]] + fill[from[e]]++] = to[e];
        free(fill);
    }
    for (uint32_t u = 0; u < nunits; u++)
        if (indeg[u] == 0)
            heap_push(&h, u);
    size_t n = 0;
    while (n < nunits) {
        if (h.n == 0) {
            /* a cycle: take the smallest unit left */
            for (uint32_t u = 0; u < nunits; u++)
                if (!done[u]) {
                    indeg[u] = 0;
                    heap_push(&h, u);
                    break;
                }
        }
        uint32_t u = heap_pop(&h);
        if (done[u])
            continue;
        done[u] = 1;
        (*order)[n++] = u;
        for (uint32_t k = start[u]; k < start[u + 1]; k++)
            if (!done[adj[k]] && indeg[adj[k]] > 0 && --indeg[adj[k]] == 0)
                heap_push(&h, adj[k]);
    }
    rc = 0;
out:
    if (rc < 0) {
        free(*order);
        *order = NULL;
        errno = ENOMEM;
    }
    free(from);
    free(to);
    free(indeg);
    free(start);
    free(adj);
    free(h.a);
    free(done);
    return rc;
}

/* Move the matcher's next id forward to what was saved. */
static void bump_next_id(grove_matcher_t *m, grove_jobid_t next)
{
    if (next > grove_matcher_next_id(m))
        grove_matcher_set_next_id(m, next);
}

int grove_image_restore_jobs(grove_image_t *im, grove_matcher_t *m, grove_error_t *err)
{
    grove_error_clear(err);
    if (im->restored)
        return fail(err, EINVAL, "restore: the jobs were already restored");
    grove_graph_t *g = im->g;
    if (m && (grove_matcher_graph(m) != g || grove_matcher_job_count(m) != 0))
        return fail(err, EINVAL, "restore: the matcher must be empty and over the image's graph");
    grove_matcher_t *mm = m ? m : grove_matcher_create(g, NULL);
    if (!mm)
        return fail(err, ENOMEM, "out of memory");
    uint32_t *unit_of = malloc((im->nrecs + 1) * sizeof(*unit_of));
    uint32_t *order = NULL;
    size_t ndirect = 0;
    int rc = -1;
    if (!unit_of) {
        fail(err, ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < im->nrecs; i++) {
        const struct sjob *j = image_job(im, im->recs[i].job);
        unit_of[i] = j ? (uint32_t)(j - im->jobs) : (uint32_t)(im->njobs + ndirect++);
    }
    size_t nunits = im->njobs + ndirect;
    /* the record of each direct unit */
    size_t *direct = malloc((ndirect + 1) * sizeof(*direct));
    if (!direct || unit_order(im, unit_of, nunits, &order) < 0) {
        free(direct);
        fail(err, ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < im->nrecs; i++)
        if (unit_of[i] >= im->njobs)
            direct[unit_of[i] - im->njobs] = i;
    for (size_t k = 0; k < nunits; k++) {
        uint32_t u = order[k];
        if (u < im->njobs) {
            const grove_job_t *j = &im->jobs[u].job;
            if (grove_matcher_restore(mm, j) < 0) {
                fail(err, errno == ENOMEM ? ENOMEM : EINVAL,
                     "restore: job %llu does not fit the graph (%s)",
                     (unsigned long long)j->id, strerror(errno));
                free(direct);
                goto out;
            }
        } else {
            const struct srec *r = &im->recs[direct[u - im->njobs]];
            if (grove_vertex_allocate(g, r->v, r->job, r->amount, r->start, r->end, r->asked)
                < 0) {
                fail(err, errno == ENOMEM ? ENOMEM : EINVAL,
                     "restore: vertex %u: the record of job %llu does not fit (%s)", r->v,
                     (unsigned long long)r->job, strerror(errno));
                free(direct);
                goto out;
            }
        }
    }
    free(direct);
    /* statuses last: allocation refuses vertices that are not up */
    for (size_t v = 0; v < im->slots; v++)
        if (grove_graph_has_vertex(g, (grove_vid_t)v))
            grove_vertex_set_status(g, (grove_vid_t)v, (grove_status_t)im->status[v]);
    /* check every vertex and job against what was saved */
    for (size_t v = 0; v < im->slots; v++) {
        if (!grove_graph_has_vertex(g, (grove_vid_t)v))
            continue;
        if (recs_hash(g, (grove_vid_t)v) != im->hrec[v]) {
            fail(err, EINVAL, "restore: vertex %zu: its records differ from the saved ones", v);
            goto out;
        }
        if (im->hbase
            && base_hash(g, (grove_vid_t)v, (int)grove_vertex_status(g, (grove_vid_t)v))
                   != im->hbase[v]) {
            fail(err, EINVAL, "restore: vertex %zu differs from its saved row", v);
            goto out;
        }
    }
    for (size_t i = 0; i < im->njobs; i++) {
        const grove_job_t *j = grove_matcher_job(mm, im->jobs[i].job.id);
        if (!j || job_hash(j) != im->jobs[i].hash) {
            fail(err, EINVAL, "restore: job %llu differs from its saved row",
                 (unsigned long long)im->jobs[i].job.id);
            goto out;
        }
    }
    if (m)
        bump_next_id(m, im->next_id);
    rc = 0;
out:
    if (!m)
        grove_matcher_destroy(mm); /* the records stay in the graph */
    free(unit_of);
    free(order);
    im->restored = true;
    return rc;
}

int grove_image_restore_acquire(grove_image_t *im, grove_acquire_t *a, grove_error_t *err)
{
    grove_error_clear(err);
    if (!im->acquire)
        return fail(err, ENOENT, "restore: no acquisition state was saved");
    if (grove_acquire_graph(a) != im->g)
        return fail(err, EINVAL, "restore: the acquisition state is over another graph");
    return grove_acquire_from_json(a, im->acquire, err);
}

/* ---- reading the database ---------------------------------------------------------- */

static int prep(grove_store_t *s, const char *sql, sqlite3_stmt **st, grove_error_t *err)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return sqlfail(s, err, "reading");
    return 0;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

/* Everything of the database into im (inside a read transaction). */
static int read_rows(grove_store_t *s, grove_image_t *im, grove_error_t *err)
{
    grove_graph_t *g = im->g;
    sqlite3_stmt *st = NULL;
    int rc;
    char *agg = NULL;
    int64_t now = 0, next = 1, has_m = 0;
    bool found;
    if (get_meta_text(s, "aggregates", &agg, err) < 0)
        return -1;
    if (agg && strcmp(agg, grove_graph_aggregates(g)) != 0) {
        grove_error_t e;
        if (grove_graph_set_aggregates(g, agg, &e) < 0) {
            free(agg);
            return fail(err, EINVAL, "store %s: meta aggregates: %s", s->path, e.text);
        }
    }
    free(agg);
    if (get_meta_int(s, "now", &now, &found, err) < 0
        || get_meta_int(s, "next_id", &next, &found, err) < 0
        || get_meta_int(s, "matcher", &has_m, &found, err) < 0
        || get_meta_text(s, "policy", &im->policy, err) < 0)
        return -1;
    im->has_jobs = has_m != 0;
    im->next_id = next > 0 ? (grove_jobid_t)next : 1;
    if (!(im->hbase = calloc(im->slots ? im->slots : 1, sizeof(*im->hbase))))
        return fail(err, ENOMEM, "out of memory");
    uint64_t *hp = calloc(im->slots ? im->slots : 1, sizeof(*hp));
    uint64_t *ht = calloc(im->slots ? im->slots : 1, sizeof(*ht));
    uint8_t *live = calloc(im->slots ? im->slots : 1, 1);
    if (!hp || !ht || !live) {
        free(hp);
        free(ht);
        free(live);
        return fail(err, ENOMEM, "out of memory");
    }
    /* vertices, in id order, every slot */
    if (prep(s,
             "SELECT vid, live, type, basename, name, id, rank, size, unit, uuid, status, hash, "
             "hash_props, hash_tags, hash_records FROM vertex ORDER BY vid",
             &st, err)
        < 0)
        goto fail;
    size_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t vid = sqlite3_column_int64(st, 0);
        if (vid != (int64_t)n || n >= im->slots) {
            fail(err, EINVAL, "store %s: vertex rows: expected vertex %zu, found %lld", s->path,
                 n, (long long)vid);
            goto fail;
        }
        grove_vertex_info_t info;
        grove_vertex_info_init(&info);
        live[n] = sqlite3_column_int(st, 1) != 0;
        info.type = col_text(st, 2);
        info.basename = col_text(st, 3);
        info.name = col_text(st, 4);
        info.id = sqlite3_column_int64(st, 5);
        info.rank = sqlite3_column_int64(st, 6);
        info.size = sqlite3_column_int64(st, 7);
        info.unit = col_text(st, 8);
        info.uuid = live[n] ? col_text(st, 9) : NULL;
        int status = sqlite3_column_int(st, 10);
        if (!live[n]) {
            info.basename = info.name = NULL;
            info.id = info.rank = GROVE_ID_NONE;
            info.size = 0;
        }
        grove_vid_t v = grove_graph_add_vertex(g, &info);
        if (v != (grove_vid_t)n) {
            fail(err, errno == ENOMEM ? ENOMEM : EINVAL, "store %s: vertex %zu: cannot add it (%s)",
                 s->path, n, strerror(errno));
            goto fail;
        }
        if (status < 0 || status >= GROVE_STATUS_COUNT) {
            fail(err, EINVAL, "store %s: vertex %zu: bad status %d", s->path, n, status);
            goto fail;
        }
        im->status[n] = (uint8_t)status;
        im->hbase[n] = (uint64_t)sqlite3_column_int64(st, 11);
        hp[n] = (uint64_t)sqlite3_column_int64(st, 12);
        ht[n] = (uint64_t)sqlite3_column_int64(st, 13);
        im->hrec[n] = (uint64_t)sqlite3_column_int64(st, 14);
        uint64_t want = live[n] ? base_hash(g, v, status) : h_fin(h_i64(H0, 0));
        if (want != im->hbase[n]) {
            fail(err, EINVAL, "store %s: vertex %zu: the row does not match its hash", s->path, n);
            goto fail;
        }
        if (!live[n])
            im->hbase[n] = 0;
        n++;
    }
    if (rc != SQLITE_DONE) {
        sqlfail(s, err, "reading vertices");
        goto fail;
    }
    if (n != im->slots) {
        fail(err, EINVAL, "store %s: %zu vertex rows for %zu slots", s->path, n, im->slots);
        goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    /* properties and tags */
    for (int pass = 0; pass < 2; pass++) {
        if (prep(s,
                 pass == 0 ? "SELECT vid, key, value FROM property ORDER BY vid, pos"
                           : "SELECT vid, key, value FROM tag ORDER BY vid, pos",
                 &st, err)
            < 0)
            goto fail;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t vid = sqlite3_column_int64(st, 0);
            if (vid < 0 || vid >= (int64_t)im->slots || !live[vid]) {
                fail(err, EINVAL, "store %s: a %s of vertex %lld, which is not live", s->path,
                     pass ? "tag" : "property", (long long)vid);
                goto fail;
            }
            const char *k = col_text(st, 1);
            const char *val = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : col_text(st, 2);
            int r = pass == 0 ? grove_vertex_set_property(g, (grove_vid_t)vid, k, val ? val : "")
                              : grove_vertex_tag(g, (grove_vid_t)vid, k, val);
            if (r < 0) {
                fail(err, errno == ENOMEM ? ENOMEM : EINVAL, "store %s: vertex %lld: %s '%s'",
                     s->path, (long long)vid, pass ? "tag" : "property", k);
                goto fail;
            }
        }
        if (rc != SQLITE_DONE) {
            sqlfail(s, err, "reading properties and tags");
            goto fail;
        }
        sqlite3_finalize(st);
        st = NULL;
    }
    for (size_t v = 0; v < n; v++) {
        if (!live[v])
            continue;
        if (props_hash(g, (grove_vid_t)v) != hp[v] || tags_hash(g, (grove_vid_t)v) != ht[v]) {
            fail(err, EINVAL, "store %s: vertex %zu: its properties or tags do not match their "
                              "hash",
                 s->path, v);
            goto fail;
        }
    }
    /* edges in position order (the order of the graph's edge ids) */
    if (prep(s,
             "SELECT pos, src, dst, subsystem, relation, up, opposite, hash FROM edge ORDER BY "
             "pos",
             &st, err)
        < 0)
        goto fail;
    {
        struct epair {
            int64_t pos, opp;
            grove_eid_t e;
            bool up;
        } *ep = NULL;
        size_t ne = 0, epcap = 0;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t pos = sqlite3_column_int64(st, 0);
            int64_t src = sqlite3_column_int64(st, 1), dst = sqlite3_column_int64(st, 2);
            const char *sub = col_text(st, 3), *rel = col_text(st, 4);
            bool up = sqlite3_column_int(st, 5) != 0;
            int64_t opp = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1
                                                                     : sqlite3_column_int64(st, 6);
            uint64_t h = (uint64_t)sqlite3_column_int64(st, 7);
            if (edge_hash(src, dst, sub, rel, up, opp) != h) {
                fail(err, EINVAL, "store %s: edge %lld: the row does not match its hash", s->path,
                     (long long)pos);
                free(ep);
                goto fail;
            }
            grove_error_t e;
            grove_eid_t eid = src >= 0 && dst >= 0 && src < (int64_t)n && dst < (int64_t)n
                                  ? grove_graph_add_edge(g, (grove_vid_t)src, (grove_vid_t)dst,
                                                         sub, rel, &e)
                                  : GROVE_EID_NONE;
            if (eid == GROVE_EID_NONE
                || grow_array((void **)&ep, &epcap, ne + 1, sizeof(*ep)) < 0) {
                fail(err, errno == ENOMEM ? ENOMEM : EINVAL, "store %s: edge %lld: cannot add it",
                     s->path, (long long)pos);
                free(ep);
                goto fail;
            }
            ep[ne++] = (struct epair){pos, opp, eid, up};
        }
        if (rc != SQLITE_DONE) {
            sqlfail(s, err, "reading edges");
            free(ep);
            goto fail;
        }
        sqlite3_finalize(st);
        st = NULL;
        /* opposites: positions ascend, so look them up by binary search */
        for (size_t i = 0; i < ne; i++) {
            if (ep[i].opp < 0 || !ep[i].up)
                continue;
            size_t lo = 0, hi = ne;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (ep[mid].pos < ep[i].opp)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == ne || ep[lo].pos != ep[i].opp
                || grove_graph_set_opposite(g, ep[lo].e, ep[i].e) < 0) {
                fail(err, EINVAL, "store %s: edge %lld: bad opposite %lld", s->path,
                     (long long)ep[i].pos, (long long)ep[i].opp);
                free(ep);
                goto fail;
            }
        }
        for (size_t i = 0; i < ne; i++)
            if (grove_edge_is_up(g, ep[i].e) != ep[i].up) {
                fail(err, EINVAL, "store %s: edge %lld: direction differs from the saved one",
                     s->path, (long long)ep[i].pos);
                free(ep);
                goto fail;
            }
        free(ep);
    }
    /* dead slots: they existed to keep the ids, now they go */
    for (size_t v = 0; v < n; v++)
        if (!live[v] && grove_graph_unlink(g, (grove_vid_t)v, true) < 0) {
            fail(err, EINVAL, "store %s: vertex %zu: cannot remove the dead slot", s->path, v);
            goto fail;
        }
    grove_graph_set_now(g, now);
    /* records, oldest first on each vertex */
    if (prep(s,
             "SELECT vid, job, amount, t_start, t_end, asked FROM record ORDER BY vid, pos DESC",
             &st, err)
        < 0)
        goto fail;
    {
        uint64_t sum = 0;
        size_t cnt = 0;
        int64_t cur = -1;
        while (true) {
            rc = sqlite3_step(st);
            int64_t vid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
            if (vid != cur && cur >= 0 && recs_fin(sum, cnt) != im->hrec[cur]) {
                fail(err, EINVAL, "store %s: vertex %lld: its records do not match their hash",
                     s->path, (long long)cur);
                goto fail;
            }
            if (rc != SQLITE_ROW)
                break;
            if (vid != cur) {
                if (vid < cur || vid >= (int64_t)n || !live[vid]) {
                    fail(err, EINVAL, "store %s: records of vertex %lld, which is not live",
                         s->path, (long long)vid);
                    goto fail;
                }
                /* vertices between cur and vid have no records */
                for (int64_t x = cur + 1; x < vid; x++)
                    if (live[x] && im->hrec[x] != recs_fin(0, 0)) {
                        fail(err, EINVAL, "store %s: vertex %lld: its records do not match their "
                                          "hash",
                             s->path, (long long)x);
                        goto fail;
                    }
                cur = vid;
                sum = 0;
                cnt = 0;
            }
            struct srec r = {(grove_vid_t)vid, (grove_jobid_t)sqlite3_column_int64(st, 1),
                             sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                             sqlite3_column_int64(st, 4), sqlite3_column_int(st, 5) != 0};
            sum += rec_hash(r.job, r.amount, r.start, r.end, r.asked);
            cnt++;
            if (image_add_rec(im, &r) < 0) {
                fail(err, ENOMEM, "out of memory");
                goto fail;
            }
        }
        if (rc != SQLITE_DONE) {
            sqlfail(s, err, "reading records");
            goto fail;
        }
        for (int64_t x = cur + 1; x < (int64_t)n; x++)
            if (live[x] && im->hrec[x] != recs_fin(0, 0)) {
                fail(err, EINVAL, "store %s: vertex %lld: its records do not match their hash",
                     s->path, (long long)x);
                goto fail;
            }
        sqlite3_finalize(st);
        st = NULL;
    }
    /* jobs and their picks */
    if (prep(s, "SELECT id, state, t_start, t_end, hash FROM job ORDER BY id", &st, err) < 0)
        goto fail;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow_array((void **)&im->jobs, &im->jobcap, im->njobs + 1, sizeof(*im->jobs)) < 0) {
            fail(err, ENOMEM, "out of memory");
            goto fail;
        }
        struct sjob *j = &im->jobs[im->njobs++];
        memset(j, 0, sizeof(*j));
        j->job.id = (grove_jobid_t)sqlite3_column_int64(st, 0);
        j->job.state = (grove_job_state_t)sqlite3_column_int(st, 1);
        j->job.start = sqlite3_column_int64(st, 2);
        j->job.end = sqlite3_column_int64(st, 3);
        j->hash = (uint64_t)sqlite3_column_int64(st, 4);
    }
    if (rc != SQLITE_DONE) {
        sqlfail(s, err, "reading jobs");
        goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (prep(s,
             "SELECT job, pos, vid, amount, exclusive, leaf, recorded FROM pick ORDER BY job, pos",
             &st, err)
        < 0)
        goto fail;
    {
        size_t cap = 0;
        struct sjob *cur = NULL;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            grove_jobid_t id = (grove_jobid_t)sqlite3_column_int64(st, 0);
            if (!cur || cur->job.id != id) {
                cur = image_job(im, id);
                cap = 0;
                if (!cur) {
                    fail(err, EINVAL, "store %s: picks of job %llu, which has no row", s->path,
                         (unsigned long long)id);
                    goto fail;
                }
            }
            if (grow_array((void **)&cur->job.picks, &cap, cur->job.npicks + 1,
                           sizeof(*cur->job.picks))
                < 0) {
                fail(err, ENOMEM, "out of memory");
                goto fail;
            }
            int64_t vid = sqlite3_column_int64(st, 2);
            if (vid < 0 || vid >= (int64_t)n || !live[vid]) {
                fail(err, EINVAL, "store %s: job %llu picks vertex %lld, which is not live",
                     s->path, (unsigned long long)id, (long long)vid);
                goto fail;
            }
            cur->job.picks[cur->job.npicks++] = (grove_pick_t){
                (grove_vid_t)vid, sqlite3_column_int64(st, 3), sqlite3_column_int(st, 4) != 0,
                sqlite3_column_int(st, 5) != 0, sqlite3_column_int(st, 6) != 0};
        }
        if (rc != SQLITE_DONE) {
            sqlfail(s, err, "reading picks");
            goto fail;
        }
        sqlite3_finalize(st);
        st = NULL;
    }
    for (size_t i = 0; i < im->njobs; i++)
        if (job_hash(&im->jobs[i].job) != im->jobs[i].hash) {
            fail(err, EINVAL, "store %s: job %llu: the rows do not match their hash", s->path,
                 (unsigned long long)im->jobs[i].job.id);
            goto fail;
        }
    if (!im->has_jobs && im->njobs) {
        fail(err, EINVAL, "store %s: job rows without a matcher", s->path);
        goto fail;
    }
    /* the acquisition state */
    if (prep(s, "SELECT state, hash FROM acquire", &st, err) < 0)
        goto fail;
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = col_text(st, 0);
        if (h_fin(h_str(H0, text)) != (uint64_t)sqlite3_column_int64(st, 1)) {
            fail(err, EINVAL, "store %s: the acquisition state does not match its hash", s->path);
            goto fail;
        }
        json_error_t je;
        if (!(im->acquire = json_loads(text, 0, &je))) {
            fail(err, EINVAL, "store %s: the acquisition state: %s", s->path, je.text);
            goto fail;
        }
    } else if (rc != SQLITE_DONE) {
        sqlfail(s, err, "reading the acquisition state");
        goto fail;
    }
    sqlite3_finalize(st);
    free(hp);
    free(ht);
    free(live);
    return 0;
fail:
    sqlite3_finalize(st);
    free(hp);
    free(ht);
    free(live);
    return -1;
}

grove_image_t *grove_store_read(grove_store_t *s, grove_error_t *err)
{
    grove_error_clear(err);
    if (!s) {
        fail(err, EINVAL, "store: no store");
        return NULL;
    }
    if (exec(s, "BEGIN", err) < 0)
        return NULL;
    int64_t gen = 0, slots = 0;
    bool found;
    grove_image_t *im = NULL;
    if (get_meta_int(s, "generation", &gen, &found, err) < 0
        || get_meta_int(s, "slots", &slots, &found, err) < 0)
        goto fail;
    if (gen <= 0) {
        fail(err, EINVAL, "store %s: nothing was saved", s->path);
        goto fail;
    }
    if (slots < 0 || slots >= (int64_t)GROVE_VID_NONE) {
        fail(err, EINVAL, "store %s: meta slots %lld", s->path, (long long)slots);
        goto fail;
    }
    if (!(im = image_new((size_t)slots))) {
        fail(err, ENOMEM, "out of memory");
        goto fail;
    }
    if (read_rows(s, im, err) < 0)
        goto fail;
    /* the table digests: rows added or deleted behind the store's back */
    {
        struct shadow sh;
        int64_t dv = 0, de = 0, dj = 0;
        bool f1, f2, f3;
        if (shadow_read(s, &sh, err) < 0)
            goto fail;
        int r = get_meta_int(s, "digest_vertices", &dv, &f1, err) < 0
                        || get_meta_int(s, "digest_edges", &de, &f2, err) < 0
                        || get_meta_int(s, "digest_jobs", &dj, &f3, err) < 0
                    ? -1
                    : 0;
        const char *bad = NULL;
        if (r == 0 && (!f1 || (uint64_t)dv != digest_vertices(&sh)))
            bad = "vertex";
        else if (r == 0 && (!f2 || (uint64_t)de != digest_edges(&sh)))
            bad = "edge";
        else if (r == 0 && (!f3 || (uint64_t)dj != digest_jobs(&sh)))
            bad = "job";
        shadow_free(&sh);
        if (r < 0)
            goto fail;
        if (bad) {
            fail(err, EINVAL, "store %s: the %s rows do not match the saved digest (rows were "
                              "added or deleted)",
                 s->path, bad);
            goto fail;
        }
    }
    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    return im;
fail:;
    int saved = errno;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    grove_image_destroy(im);
    errno = saved;
    return NULL;
}

int grove_store_load(grove_store_t *s, const grove_match_config_t *cfg, grove_graph_t **g,
                     grove_matcher_t **m, grove_acquire_t **a, grove_error_t *err)
{
    *g = NULL;
    *m = NULL;
    *a = NULL;
    grove_image_t *im = grove_store_read(s, err);
    if (!im)
        return -1;
    grove_graph_t *gg = grove_image_take_graph(im);
    grove_matcher_t *mm = NULL;
    grove_acquire_t *aa = NULL;
    if (grove_image_has_jobs(im)) {
        if (!(mm = grove_matcher_create(gg, cfg))) {
            fail(err, ENOMEM, "out of memory");
            goto fail;
        }
        const grove_policy_t *p = im->policy ? grove_policy_builtin(im->policy) : NULL;
        if (p)
            grove_matcher_set_policy(mm, p);
    }
    if (grove_image_restore_jobs(im, mm, err) < 0)
        goto fail;
    if (grove_image_has_acquire(im)) {
        if (!(aa = grove_acquire_create(gg, mm, NULL, GROVE_ACQUIRE_AUTO))) {
            fail(err, ENOMEM, "out of memory");
            goto fail;
        }
        if (grove_image_restore_acquire(im, aa, err) < 0)
            goto fail;
    }
    grove_image_destroy(im);
    *g = gg;
    *m = mm;
    *a = aa;
    return 0;
fail:;
    int saved = errno;
    grove_acquire_destroy(aa);
    grove_matcher_destroy(mm);
    grove_graph_destroy(gg);
    grove_image_destroy(im);
    errno = saved;
    return -1;
}

/* ---- checks and the change log --------------------------------------------------- */

int grove_store_check(grove_store_t *s, grove_error_t *err)
{
    grove_error_clear(err);
    sqlite3_stmt *st = NULL;
    if (prep(s, "PRAGMA integrity_check", &st, err) < 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlfail(s, err, "integrity check");
        sqlite3_finalize(st);
        return -1;
    }
    const char *res = col_text(st, 0);
    if (strcmp(res, "ok") != 0) {
        fail(err, EINVAL, "store %s: integrity check: %s", s->path, res);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    int64_t gen = 0;
    bool found;
    if (get_meta_int(s, "generation", &gen, &found, err) < 0)
        return -1;
    if (gen == 0)
        return 0; /* nothing saved: nothing else to check */
    grove_image_t *im = grove_store_read(s, err);
    if (!im)
        return -1;
    int r = grove_image_restore_jobs(im, NULL, err);
    if (r == 0 && im->acquire) {
        grove_acquire_t *a = grove_acquire_create(im->g, NULL, NULL, GROVE_ACQUIRE_AUTO);
        r = a ? grove_acquire_from_json(a, im->acquire, err) : fail(err, ENOMEM, "out of memory");
        grove_acquire_destroy(a);
    }
    int saved = errno;
    grove_image_destroy(im);
    errno = saved;
    return r;
}

static int add_key(json_t *obj, const char *kind, int64_t key, bool put)
{
    char k[32];
    snprintf(k, sizeof(k), "%lld", (long long)key);
    json_t *puts = json_object_get(json_object_get(obj, "put"), kind);
    json_t *dels = json_object_get(json_object_get(obj, "del"), kind);
    json_object_del(put ? dels : puts, k);
    return json_object_set_new(put ? puts : dels, k, json_true());
}

static json_t *keys_array(json_t *set)
{
    json_t *a = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(set, k, v) json_array_append_new(a, json_integer(strtoll(k, NULL, 10)));
    /* keys came in insertion order: sort */
    size_t n = json_array_size(a);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && json_integer_value(json_array_get(a, j - 1))
                                        > json_integer_value(json_array_get(a, j));
             j--) {
            json_t *x = json_incref(json_array_get(a, j - 1));
            json_array_set(a, j - 1, json_array_get(a, j));
            json_array_set_new(a, j, x);
        }
    return a;
}

char *grove_store_changes(grove_store_t *s, int64_t since, grove_error_t *err)
{
    grove_error_clear(err);
    sqlite3_stmt *st = NULL;
    if (prep(s, "SELECT gen, kind, key, op FROM change WHERE gen > ? ORDER BY rowid", &st, err)
        < 0)
        return NULL;
    sqlite3_bind_int64(st, 1, since);
    json_t *acc = json_pack("{s:{s:{},s:{},s:{}},s:{s:{},s:{},s:{}}}", "put", "vertex", "edge",
                            "job", "del", "vertex", "edge", "job");
    bool full = false, acq = false, meta = false;
    int64_t first = -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t gen = sqlite3_column_int64(st, 0);
        const char *kind = col_text(st, 1), *op = col_text(st, 3);
        if (first < 0)
            first = gen;
        if (!strcmp(op, "full"))
            full = true;
        if (!strcmp(kind, "acquire"))
            acq = true;
        else if (!strcmp(kind, "meta"))
            meta = true;
        else if (acc)
            add_key(acc, kind, sqlite3_column_int64(st, 2), !strcmp(op, "put"));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        json_decref(acc);
        sqlfail(s, err, "reading the change log");
        return NULL;
    }
    /* the log starts at the last full save: older generations are gone */
    if (since < s->sh.gen && (first < 0 || first > since + 1))
        full = true;
    json_t *out = json_object();
    json_t *del = json_object();
    if (acc && out && del) {
        json_object_set_new(out, "generation", json_integer(s->sh.gen));
        json_object_set_new(out, "full", json_boolean(full));
        json_object_set_new(out, "vertices",
                            keys_array(json_object_get(json_object_get(acc, "put"), "vertex")));
        json_object_set_new(out, "edges",
                            keys_array(json_object_get(json_object_get(acc, "put"), "edge")));
        json_object_set_new(out, "jobs",
                            keys_array(json_object_get(json_object_get(acc, "put"), "job")));
        json_object_set_new(del, "vertices",
                            keys_array(json_object_get(json_object_get(acc, "del"), "vertex")));
        json_object_set_new(del, "edges",
                            keys_array(json_object_get(json_object_get(acc, "del"), "edge")));
        json_object_set_new(del, "jobs",
                            keys_array(json_object_get(json_object_get(acc, "del"), "job")));
        json_object_set(out, "deleted", del);
        json_object_set_new(out, "acquire", json_boolean(acq));
        json_object_set_new(out, "meta", json_boolean(meta));
    }
    char *text = out ? json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(acc);
    json_decref(out);
    json_decref(del);
    if (!text)
        fail(err, ENOMEM, "out of memory");
    return text;
}

/* ---- files ------------------------------------------------------------------------ */

static const char *const state_names[] = {"allocated", "reserved", "matched"};

static json_t *jobs_json(const grove_matcher_t *m)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < grove_matcher_job_count(m); i++) {
        const grove_job_t *j = grove_matcher_job_at(m, i);
        json_t *picks = json_array();
        for (size_t k = 0; picks && k < j->npicks; k++) {
            const grove_pick_t *p = &j->picks[k];
            char id[16];
            snprintf(id, sizeof(id), "%u", p->v);
            json_array_append_new(picks, json_pack("[s,I,b,b,b]", id, (json_int_t)p->amount,
                                                   p->exclusive, p->leaf, p->recorded));
        }
        json_t *o = json_pack("{s:I,s:s,s:I,s:o,s:o}", "id", (json_int_t)j->id, "state",
                              state_names[j->state <= GROVE_JOB_MATCHED ? j->state : 2], "start",
                              (json_int_t)j->start, "end",
                              j->end == GROVE_TIME_MAX ? json_null()
                                                       : json_integer((json_int_t)j->end),
                              "picks", picks ? picks : json_array());
        if (!o || json_array_append_new(arr, o) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

int grove_store_write_file(const char *path, const grove_graph_t *g, const grove_matcher_t *m,
                           const grove_acquire_t *a, grove_error_t *err)
{
    grove_error_clear(err);
    if (!path || !g || (m && grove_matcher_graph(m) != g) || (a && grove_acquire_graph(a) != g))
        return fail(err, EINVAL, "state file: bad arguments");
    json_t *doc = grove_jgf_write_json(g, NULL, 0, GROVE_JGF_WITH_STATE);
    json_t *gr = json_object();
    if (!doc || !gr) {
        json_decref(doc);
        json_decref(gr);
        return fail(err, ENOMEM, "out of memory");
    }
    json_object_set_new(gr, "format", json_integer(GROVE_STORE_FORMAT));
    if (m) {
        json_object_set_new(gr, "jobs", jobs_json(m));
        json_object_set_new(gr, "next_id", json_integer((json_int_t)grove_matcher_next_id(m)));
        json_object_set_new(gr, "policy", json_string(grove_matcher_policy(m)->name));
    }
    json_object_set_new(gr, "acquire", a ? grove_acquire_to_json(a) : json_null());
    json_object_set_new(doc, "grove", gr);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text)
        return fail(err, ENOMEM, "out of memory");
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp) {
        free(text);
        return fail(err, ENOMEM, "out of memory");
    }
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    int rc = -1;
    if (fd < 0) {
        fail(err, errno, "state file %s: %s", path, strerror(errno));
        goto out;
    }
    size_t n = strlen(text), off = 0;
    while (off < n) {
        ssize_t w = write(fd, text + off, n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        off += (size_t)w;
    }
    if (off < n || write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        fail(err, e, "state file %s: %s", path, strerror(e));
        goto out;
    }
    fchmod(fd, 0644);
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        fail(err, e, "state file %s: %s", path, strerror(e));
        goto out;
    }
    rc = 0;
out:
    free(text);
    free(tmp);
    return rc;
}

/* Move the records out of the nodes of doc into im (they are restored
 * with the jobs), mapping node ids to their index. */
static int take_file_records(json_t *nodes, grove_image_t *im, grove_error_t *err,
                             const char *path)
{
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) {
        json_t *gm = json_object_get(json_object_get(node, "metadata"), "grove");
        json_t *recs = json_object_get(gm, "records");
        if (!recs)
            continue;
        if (!json_is_array(recs))
            return fail(err, EINVAL, "%s: nodes[%zu].metadata.grove.records: expected a list",
                        path, i);
        size_t k;
        json_t *r;
        json_array_foreach(recs, k, r) {
            json_int_t job = 0, amount = 0, start = 0, end = 0;
            int asked = 0;
            if (json_unpack(r, "{s:I,s:I,s:I,s:I,s:b}", "job", &job, "amount", &amount, "start",
                            &start, "end", &end, "exclusive", &asked)
                    < 0
                || job < 0)
                return fail(err, EINVAL, "%s: nodes[%zu].metadata.grove.records[%zu]: expected "
                                         "{job, amount, start, end, exclusive}",
                            path, i, k);
            struct srec sr = {(grove_vid_t)i, (grove_jobid_t)job, amount, start, end, asked};
            if (image_add_rec(im, &sr) < 0)
                return fail(err, ENOMEM, "out of memory");
        }
        json_object_del(gm, "records");
    }
    return 0;
}

grove_image_t *grove_image_read_file(const char *path, grove_error_t *err)
{
    grove_error_clear(err);
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        if (access(path, R_OK) < 0)
            fail(err, errno, "%s: %s", path, strerror(errno));
        else
            fail(err, EINVAL, "%s:%d: %s", path, je.line, je.text);
        return NULL;
    }
    grove_image_t *im = NULL;
    json_t *nodes = json_object_get(json_object_get(doc, "graph"), "nodes");
    size_t slots = json_array_size(nodes);
    if (!(im = image_new(slots))) {
        fail(err, ENOMEM, "out of memory");
        goto fail;
    }
    if (take_file_records(nodes, im, err, path) < 0)
        goto fail;
    grove_graph_destroy(im->g);
    if (!(im->g = grove_jgf_read_json(doc, path, err)))
        goto fail;
    if (grove_graph_vertex_slots(im->g) != slots) {
        fail(err, EINVAL, "%s: not a JGF graph document", path);
        goto fail;
    }
    for (size_t v = 0; v < slots; v++) {
        im->status[v] = (uint8_t)grove_vertex_status(im->g, (grove_vid_t)v);
        grove_vertex_set_status(im->g, (grove_vid_t)v, GROVE_STATUS_UP);
    }
    /* the expected record hash of each vertex */
    {
        uint64_t *sum = calloc(slots ? slots : 1, sizeof(*sum));
        size_t *cnt = calloc(slots ? slots : 1, sizeof(*cnt));
        if (!sum || !cnt) {
            free(sum);
            free(cnt);
            fail(err, ENOMEM, "out of memory");
            goto fail;
        }
        for (size_t k = 0; k < im->nrecs; k++) {
            const struct srec *r = &im->recs[k];
            sum[r->v] += rec_hash(r->job, r->amount, r->start, r->end, r->asked);
            cnt[r->v]++;
        }
        for (size_t v = 0; v < slots; v++)
            im->hrec[v] = recs_fin(sum[v], cnt[v]);
        free(sum);
        free(cnt);
    }
    /* node ids to vertices */
    json_t *ids = json_object();
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) {
        json_t *id = json_object_get(node, "id");
        if (ids && json_is_string(id))
            json_object_set_new(ids, json_string_value(id), json_integer((json_int_t)i));
    }
    json_t *gr = json_object_get(doc, "grove");
    json_t *jobs = json_object_get(gr, "jobs");
    im->has_jobs = json_is_array(jobs);
    json_array_foreach(jobs, i, node) {
        json_int_t id = 0, start = 0;
        const char *state = NULL;
        json_t *end = NULL, *picks = NULL;
        if (json_unpack(node, "{s:I,s:s,s:I,s:o,s:o}", "id", &id, "state", &state, "start", &start,
                        "end", &end, "picks", &picks)
                < 0
            || id <= 0 || (!json_is_null(end) && !json_is_integer(end)) || !json_is_array(picks)
            || (strcmp(state, "allocated") && strcmp(state, "reserved"))) {
            fail(err, EINVAL, "%s: grove.jobs[%zu]: expected {id, state, start, end, picks}",
                 path, i);
            json_decref(ids);
            goto fail;
        }
        if (grow_array((void **)&im->jobs, &im->jobcap, im->njobs + 1, sizeof(*im->jobs)) < 0) {
            fail(err, ENOMEM, "out of memory");
            json_decref(ids);
            goto fail;
        }
        struct sjob *sj = &im->jobs[im->njobs++];
        memset(sj, 0, sizeof(*sj));
        sj->job.id = (grove_jobid_t)id;
        sj->job.state = strcmp(state, "reserved") ? GROVE_JOB_ALLOCATED : GROVE_JOB_RESERVED;
        sj->job.start = start;
        sj->job.end = json_is_null(end) ? GROVE_TIME_MAX : json_integer_value(end);
        sj->job.picks = malloc((json_array_size(picks) + 1) * sizeof(*sj->job.picks));
        if (!sj->job.picks) {
            fail(err, ENOMEM, "out of memory");
            json_decref(ids);
            goto fail;
        }
        size_t k;
        json_t *p;
        json_array_foreach(picks, k, p) {
            const char *vid = NULL;
            json_int_t amount = 0;
            int excl = 0, leaf = 0, rec = 0;
            json_t *v = NULL;
            if (json_unpack(p, "[s,I,b,b,b]", &vid, &amount, &excl, &leaf, &rec) < 0
                || !(v = json_object_get(ids, vid))) {
                fail(err, EINVAL, "%s: grove.jobs[%zu].picks[%zu]: expected [node id, amount, "
                                  "exclusive, leaf, recorded] naming a node",
                     path, i, k);
                json_decref(ids);
                goto fail;
            }
            sj->job.picks[sj->job.npicks++] = (grove_pick_t){
                (grove_vid_t)json_integer_value(v), amount, excl, leaf, rec};
        }
        if (im->njobs > 1 && im->jobs[im->njobs - 2].job.id >= sj->job.id) {
            fail(err, EINVAL, "%s: grove.jobs[%zu]: ids must ascend", path, i);
            json_decref(ids);
            goto fail;
        }
        /* the matcher sorts picks by vertex; the hash is of that order */
        for (size_t x = 1; x < sj->job.npicks; x++)
            for (size_t y = x; y > 0 && sj->job.picks[y - 1].v > sj->job.picks[y].v; y--) {
                grove_pick_t t = sj->job.picks[y];
                sj->job.picks[y] = sj->job.picks[y - 1];
                sj->job.picks[y - 1] = t;
            }
        sj->hash = job_hash(&sj->job);
    }
    json_decref(ids);
    json_t *next = json_object_get(gr, "next_id");
    if (json_is_integer(next) && json_integer_value(next) > 0)
        im->next_id = (grove_jobid_t)json_integer_value(next);
    json_t *pol = json_object_get(gr, "policy");
    if (json_is_string(pol) && !(im->policy = strdup(json_string_value(pol)))) {
        fail(err, ENOMEM, "out of memory");
        goto fail;
    }
    json_t *acq = json_object_get(gr, "acquire");
    if (json_is_object(acq))
        im->acquire = json_incref(acq);
    json_decref(doc);
    return im;
fail:;
    int saved = errno;
    json_decref(doc);
    grove_image_destroy(im);
    errno = saved;
    return NULL;
}
