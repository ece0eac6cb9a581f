/* store.c: the scheduler's state in SQLite.
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
 * Reading back (one reader per table) builds an image (image.c): the
 * graph with its vertex ids (dead slots are recreated and unlinked), the
 * saved records, jobs and acquisition state, each row checked against its
 * hash (store_hash.c); restoring the jobs from the image is image.c's.
 *
 * Workload: incremental saves of a few rows at a time, thousands per
 * minute; full saves and loads of up to millions of vertices at start-up.
 * Statements are prepared once per store.
 *
 * This file must not hold the image's restore, the JSON state file
 * (image.c) or how a row's content hashes (store_hash.c).
 */
#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "error_private.h"
#include "graph_private.h" /* grovep_add_edge: edges in their saved direction */
#include "util.h"
#include "store_private.h"

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
    S_PUT_REQ,
    S_DEL_REQ,
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
    "INSERT OR REPLACE INTO request VALUES (?,?,?)",
    "DELETE FROM request WHERE job = ?",
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
    "CREATE TABLE IF NOT EXISTS request (job INTEGER PRIMARY KEY, doc TEXT NOT NULL,"
    " hash INTEGER NOT NULL);"
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
    int lockfd;       /* the database file, flock()ed for the life of a writer; -1 */
    sqlite3_stmt *st[S_COUNT];
    struct shadow sh;
};

static void shadow_free(struct shadow *sh)
{
    GROVEP_FREE_ALL(sh->v, sh->epos, sh->eh, sh->j);
    memset(sh, 0, sizeof(*sh));
}

/* An SQLite failure: EBUSY for a lock, EINVAL for a file that is damaged
 * or not a database (it will not get better by trying again), EIO
 * otherwise, with its message. */
static int sqlfail(grove_store_t *s, grove_error_t *err, const char *what)
{
    int rc = sqlite3_errcode(s->db);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
        return grovep_errorf(err, EINVAL, "store %s: the file is damaged (%s: %s)", s->path, what,
                             sqlite3_errmsg(s->db));
    int e = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? EBUSY
            : rc == SQLITE_NOMEM                     ? ENOMEM
                                                     : EIO;
    return grovep_errorf(err, e, "store %s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
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

/* The statement that selects the meta value of key (caller finalizes). */
static int meta_select(grove_store_t *s, const char *key, sqlite3_stmt **st, grove_error_t *err)
{
    if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?", -1, st, NULL)
        != SQLITE_OK)
        return sqlfail(s, err, "reading meta");
    sqlite3_bind_text(*st, 1, key, -1, SQLITE_STATIC);
    return 0;
}

/* meta value as integer (*found false when absent). */
static int get_meta_int(grove_store_t *s, const char *key, int64_t *out, bool *found,
                        grove_error_t *err)
{
    sqlite3_stmt *st;
    *found = false;
    if (meta_select(s, key, &st, err) < 0)
        return -1;
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
    if (meta_select(s, key, &st, err) < 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!(*out = strdup(t ? t : ""))) {
            sqlite3_finalize(st);
            return grovep_errorf(err, ENOMEM, "out of memory");
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sqlfail(s, err, "reading meta");
    return 0;
}

/* ---- the shadow from the database --------------------------------------------- */

/* How far past the count of vertex rows an id may lie in a damaged store
 * that is still opened (for check to report it). */
#define SHADOW_GAP 65536

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
    int64_t nrows = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM vertex", -1, &st, NULL) != SQLITE_OK
        || sqlite3_step(st) != SQLITE_ROW)
        goto sql;
    nrows = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT vid, hash, hash_props, hash_tags, hash_records FROM vertex "
                           "ORDER BY vid",
                           -1, &st, NULL)
        != SQLITE_OK)
        goto sql;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t vid = sqlite3_column_int64(st, 0);
        /* every slot has its row, in id order: rows missing are the
         * reader's to refuse (and check's to find), but an id far past the
         * rows there are would make an array as long as it says */
        if (vid < 0 || vid >= (int64_t)GROVE_VID_NONE || vid >= nrows + SHADOW_GAP) {
            sqlite3_finalize(st);
            shadow_free(sh);
            return grovep_errorf(err, EINVAL, "store %s: vertex row with id %lld among %lld rows",
                                 s->path, (long long)vid, (long long)nrows);
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
    return grovep_errorf(err, ENOMEM, "out of memory");
}

/* ---- open and close ------------------------------------------------------------- */

void grove_store_close(grove_store_t *s)
{
    if (!s)
        return;
    int saved = errno; /* the open's failure paths close: keep their errno */
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    if (s->lockfd >= 0)
        close(s->lockfd); /* after SQLite's own descriptors: releases the writer's lock */
    shadow_free(&s->sh);
    free(s->path);
    free(s);
    errno = saved;
}

/* One writer per store file: an exclusive flock() on the database file,
 * held until the store is closed.  flock() locks belong to the open file
 * and do not mix with the fcntl() byte-range locks SQLite takes, so
 * SQLite's own locking is unchanged; a second writer, in this process or
 * another, is refused at open instead of overwriting the first one's
 * saves.  Read-only stores take no lock. */
static int writer_lock(grove_store_t *s, bool create, grove_error_t *err)
{
    s->lockfd = open(s->path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (s->lockfd < 0) {
        int e = errno;
        return grovep_errorf(err, e, "store %s: %s", s->path, strerror(e));
    }
    if (flock(s->lockfd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        if (e == EWOULDBLOCK)
            return grovep_errorf(err, EBUSY,
                                 "store %s: another writer has it open (one writer at a time; "
                                 "open it readonly to read it)",
                                 s->path);
        return grovep_errorf(err, EIO, "store %s: cannot lock: %s", s->path, strerror(e));
    }
    return 0;
}

/* The first Grove rows of a new store. */
static const char first_rows[] =
    "INSERT OR IGNORE INTO meta VALUES ('format', 1); "
    "INSERT OR IGNORE INTO meta VALUES ('generation', 0)";

/* Create a complete empty store at path, which does not exist: the schema
 * and first rows are built in one transaction in a new file beside it,
 * which is synced, then linked to path (link, unlike rename, never
 * replaces a store another process made meanwhile: that one is kept) and
 * the directory synced.  A process killed at any instant leaves either no
 * store at path or a complete one (at worst a stray PATH.creating.XXXXXX
 * beside it).  The file is made in WAL mode, as every writer opens it:
 * switching a store's mode later would write a journal that a process
 * killed meanwhile leaves hot, which a read-only open cannot roll back.
 * 0, or -1 with err. */
static int create_atomic(const char *path, grove_error_t *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof(".creating.XXXXXX"));
    if (!tmp)
        return grovep_errorf(err, ENOMEM, "out of memory");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".creating.XXXXXX", sizeof(".creating.XXXXXX"));
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return grovep_errorf(err, e, "store %s: %s", path, strerror(e));
    }
    sqlite3 *db = NULL;
    int rc = -1;
    (void)fchmod(fd, 0644); /* mkstemp's 0600: a store is readable as other files are */
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK
        || sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_exec(db, first_rows, NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        grovep_errorf(err, EIO, "store %s: creating it: %s", path,
                      db ? sqlite3_errmsg(db) : "out of memory");
        goto out;
    }
    if (sqlite3_close(db) != SQLITE_OK) {
        grovep_errorf(err, EIO, "store %s: creating it: %s", path, sqlite3_errmsg(db));
        goto out;
    }
    db = NULL;
    if (fsync(fd) < 0 || (link(tmp, path) < 0 && errno != EEXIST)) {
        int e = errno;
        grovep_errorf(err, e, "store %s: %s", path, strerror(e));
        goto out;
    }
    /* the new name is durable once its directory is */
    char *slash = strrchr(tmp, '/');
    const char *dirname = ".";
    if (slash) {
        *slash = '\0';
        dirname = slash == tmp ? "/" : tmp;
    }
    int dfd = open(dirname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (slash)
        *slash = '/';
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    rc = 0;
out:
    sqlite3_close(db);
    close(fd);
    unlink(tmp);
    free(tmp);
    return rc;
}

grove_store_t *grove_store_open(const char *path, int flags, grove_error_t *err)
{
    grove_error_clear(err);
    if (!path || !*path || (flags & ~(GROVE_STORE_CREATE | GROVE_STORE_READONLY
                                      | GROVE_STORE_NORMAL_SYNC))
        || ((flags & GROVE_STORE_CREATE) && (flags & GROVE_STORE_READONLY))) {
        grovep_errorf(err, EINVAL, "store: bad path or flags");
        return NULL;
    }
    if (access(path, F_OK) < 0) {
        if (!(flags & GROVE_STORE_CREATE)) {
            grovep_errorf(err, ENOENT, "store %s: no such file", path);
            return NULL;
        }
        if (create_atomic(path, err) < 0)
            return NULL;
    }
    grove_store_t *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        grovep_errorf(err, ENOMEM, "out of memory");
        return NULL;
    }
    s->readonly = flags & GROVE_STORE_READONLY;
    s->lockfd = -1;
    if (!s->readonly && writer_lock(s, flags & GROVE_STORE_CREATE, err) < 0) {
        grove_store_close(s);
        return NULL;
    }
    int oflags = s->readonly ? SQLITE_OPEN_READONLY
                             : SQLITE_OPEN_READWRITE
                                   | ((flags & GROVE_STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        if (s->db)
            sqlfail(s, err, "open");
        else
            grovep_errorf(err, ENOMEM, "out of memory");
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
            grovep_errorf(err, EINVAL, "store %s: not a database", path);
        else
            sqlfail(s, err, "reading the schema");
        grove_store_close(s);
        return NULL;
    }
    if (ntables > 0 && !has_meta) {
        grovep_errorf(err, EINVAL, "store %s: not a Grove store (a database with other tables)",
                      path);
        grove_store_close(s);
        return NULL;
    }
    if (!s->readonly) {
        if (exec(s, "PRAGMA journal_mode = WAL", err) < 0
            || exec(s, (flags & GROVE_STORE_NORMAL_SYNC) ? "PRAGMA synchronous = NORMAL"
                                                         : "PRAGMA synchronous = FULL",
                    err)
                   < 0
            || exec(s, "BEGIN", err) < 0 || exec(s, schema, err) < 0
            || exec(s, first_rows, err) < 0 || exec(s, "COMMIT", err) < 0) {
            /* an empty database made a store: its tables in one transaction */
            grove_store_close(s);
            return NULL;
        }
    } else if (!has_meta) {
        grovep_errorf(err, EINVAL, "store %s: not a Grove store (empty)", path);
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
        grovep_errorf(err, EINVAL, "store %s: format %lld is newer than this Grove's (%d)", path,
                      (long long)format, GROVE_STORE_FORMAT);
        grove_store_close(s);
        return NULL;
    }
    if (!found && !s->readonly && exec(s, first_rows, err) < 0) {
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

GROVEP_GETTER(int64_t, grove_store_generation, grove_store_t, sh.gen)

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

/* How the properties or the tags of a vertex are written. */
static const struct kv_writer {
    int del, put;         /* statements */
    const char *dels, *puts; /* what they do, in messages */
    int (*at)(const grove_graph_t *, grove_vid_t, size_t, const char **, const char **);
} kv_writers[2] = {
    {S_DEL_PROPS, S_PUT_PROP, "writing properties", "writing a property",
     grove_vertex_property_at},
    {S_DEL_TAGS, S_PUT_TAG, "writing tags", "writing a tag", grove_vertex_tag_at},
};

/* Replace the rows of v's properties or tags (none for a dead slot). */
static int write_keyvals(grove_store_t *s, const grove_graph_t *g, grove_vid_t v, bool live,
                         const struct kv_writer *w, grove_error_t *err)
{
    sqlite3_bind_int64(s->st[w->del], 1, v);
    if (step_done(s, s->st[w->del], err, w->dels) < 0)
        return -1;
    const char *k, *val;
    for (size_t i = 0; live && w->at(g, v, i, &k, &val) == 0; i++) {
        sqlite3_stmt *st = s->st[w->put];
        sqlite3_bind_int64(st, 1, v);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_text(st, 3, k, -1, SQLITE_STATIC);
        if (val)
            sqlite3_bind_text(st, 4, val, -1, SQLITE_STATIC);
        if (step_done(s, st, err, w->puts) < 0)
            return -1;
    }
    return 0;
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
    if ((old->props != nw->props && write_keyvals(s, g, v, live, &kv_writers[0], err) < 0)
        || (old->tags != nw->tags && write_keyvals(s, g, v, live, &kv_writers[1], err) < 0))
        return -1;
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

/* The request row of job id: req (its text) or none. */
static int write_request(grove_store_t *s, grove_jobid_t id, const char *req, grove_error_t *err)
{
    sqlite3_stmt *st = s->st[req ? S_PUT_REQ : S_DEL_REQ];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    if (req) {
        sqlite3_bind_text(st, 2, req, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)grovep_store_text_hash(req));
    }
    return step_done(s, st, err, "writing a request");
}

static int write_job(grove_store_t *s, const grove_job_t *j, uint64_t h, int64_t gen,
                     const char *req, grove_error_t *err)
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
    return write_request(s, j->id, req, err);
}

static int delete_job(grove_store_t *s, grove_jobid_t id, grove_error_t *err)
{
    sqlite3_bind_int64(s->st[S_DEL_JOB], 1, (sqlite3_int64)id);
    if (step_done(s, s->st[S_DEL_JOB], err, "deleting a job") < 0)
        return -1;
    sqlite3_bind_int64(s->st[S_DEL_PICKS], 1, (sqlite3_int64)id);
    if (step_done(s, s->st[S_DEL_PICKS], err, "deleting picks") < 0)
        return -1;
    return write_request(s, id, NULL, err);
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
        return grovep_errorf(err, ENOMEM, "out of memory");
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
            grovep_store_base_hash(g, (grove_vid_t)v,
                                   live ? (int)grove_vertex_status(g, (grove_vid_t)v) : 0),
            live ? grovep_store_props_hash(g, (grove_vid_t)v) : grovep_store_empty_hash(),
            live ? grovep_store_tags_hash(g, (grove_vid_t)v) : grovep_store_empty_hash(),
            live ? grovep_store_recs_hash(g, (grove_vid_t)v) : grovep_store_recs_fin(0, 0)};
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
        return grovep_errorf(err, ENOMEM, "out of memory");
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
        grove_vid_t src = grove_edge_src(g, (grove_eid_t)e),
                    dst = grove_edge_dst(g, (grove_eid_t)e);
        uint64_t h = grovep_store_edge_hash(src, dst, sub, rel, up, opos);
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
        return grovep_errorf(err, ENOMEM, "out of memory");
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
        uint64_t h = grovep_store_job_hash(j);
        ns->j[i] = (struct jhash){j->id, h};
        bool same = o && o->id == j->id && o->h == h;
        if (o && o->id == j->id)
            k++;
        i++;
        if (same)
            continue;
        char *req = grove_matcher_request(m, j->id); /* NULL: none kept (or ENOMEM) */
        int rc = write_job(s, j, h, gen, req, err);
        free(req);
        if (rc < 0 || (!full && log_change(s, gen, "job", (int64_t)j->id, "put", err) < 0))
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
        || put_meta(s, "expiration", grove_graph_expiration(g), NULL, err) < 0
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
        return grovep_errorf(err, EINVAL, "store: bad arguments");
    if (s->readonly)
        return grovep_errorf(err, EINVAL, "store %s: opened read-only", s->path);
    if ((m && grove_matcher_graph(m) != g) || (a && grove_acquire_graph(a) != g))
        return grovep_errorf(err, EINVAL,
                             "store: the matcher or acquisition state is over another graph");
    char *atext = NULL;
    if (a && !(atext = acquire_text(a)))
        return grovep_errorf(err, ENOMEM, "out of memory");
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
                "DELETE FROM edge; DELETE FROM job; DELETE FROM pick; DELETE FROM request; "
                "DELETE FROM acquire; "
                "DELETE FROM change",
                err)
               < 0)
        goto fail;
    if (save_vertices(s, g, &ns, gen, full, &st, err) < 0
        || save_edges(s, g, &ns, gen, full, &st, err) < 0
        || save_jobs(s, m, &ns, gen, full, &st, err) < 0)
        goto fail;
    uint64_t ah = atext ? grovep_store_text_hash(atext) : 0;
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

/* What the table readers share while they fill an image. */
struct reader {
    grove_store_t *s;
    grove_image_t *im;
    grove_error_t *err;
    int64_t now;         /* meta now, set once the graph is built */
    int64_t expiration;  /* meta expiration (absent in older stores: 0, none) */
    uint64_t *hp, *ht;   /* by vertex: saved property and tag hashes */
    uint8_t *live;       /* by vertex: the slot was live */
    size_t n;            /* vertex rows read */
    struct epair {
        int64_t pos, opp; /* the edge row's position and its opposite's (-1) */
        grove_eid_t e;
        bool up;
    } *ep;               /* edge rows read, in position order */
    size_t ne, epcap;
    struct sjob *job;    /* the job whose picks are being read */
    size_t pickcap;
};

/* Run sql and hand each row to row; stop at the first row that fails.
 * 0, or -1 (an SQLite failure is reported as what). */
static int each_row(struct reader *x, const char *sql, const char *what,
                    int (*row)(struct reader *, sqlite3_stmt *))
{
    sqlite3_stmt *st = NULL;
    if (prep(x->s, sql, &st, x->err) < 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (row(x, st) < 0)
            break;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        sqlfail(x->s, x->err, what);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The meta table: aggregates, now, next id, matcher, policy. */
static int read_meta(struct reader *x)
{
    grove_store_t *s = x->s;
    grove_image_t *im = x->im;
    char *agg = NULL;
    int64_t next = 1, has_m = 0;
    bool found;
    if (get_meta_text(s, "aggregates", &agg, x->err) < 0)
        return -1;
    if (agg && strcmp(agg, grove_graph_aggregates(im->g)) != 0) {
        grove_error_t e;
        if (grove_graph_set_aggregates(im->g, agg, &e) < 0) {
            free(agg);
            return grovep_errorf(x->err, EINVAL, "store %s: meta aggregates: %s", s->path, e.text);
        }
    }
    free(agg);
    if (get_meta_int(s, "now", &x->now, &found, x->err) < 0
        || get_meta_int(s, "expiration", &x->expiration, &found, x->err) < 0
        || get_meta_int(s, "next_id", &next, &found, x->err) < 0
        || get_meta_int(s, "matcher", &has_m, &found, x->err) < 0
        || get_meta_text(s, "policy", &im->policy, x->err) < 0)
        return -1;
    if (!grove_time_ok(x->now))
        return grovep_errorf(x->err, EINVAL,
                             "store %s: meta now: %lld is not a time (0 to %lld seconds)",
                             s->path, (long long)x->now, (long long)GROVE_TIME_MAX - 1);
    im->has_jobs = has_m != 0;
    im->next_id = next > 0 ? (grove_jobid_t)next : 1;
    size_t slots = im->slots ? im->slots : 1;
    if (!(im->hbase = calloc(slots, sizeof(*im->hbase))) || !(x->hp = calloc(slots, sizeof(*x->hp)))
        || !(x->ht = calloc(slots, sizeof(*x->ht))) || !(x->live = calloc(slots, 1)))
        return grovep_errorf(x->err, ENOMEM, "out of memory");
    return 0;
}

/* One vertex row: the vertex (every slot, in id order) and its hashes. */
static int vertex_row(struct reader *x, sqlite3_stmt *st)
{
    grove_image_t *im = x->im;
    const char *path = x->s->path;
    size_t n = x->n;
    int64_t vid = sqlite3_column_int64(st, 0);
    if (vid != (int64_t)n || n >= im->slots)
        return grovep_errorf(x->err, EINVAL,
                             "store %s: vertex rows: expected vertex %zu, found %lld", path, n,
                             (long long)vid);
    bool live = sqlite3_column_int(st, 1) != 0;
    x->live[n] = live;
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = col_text(st, 2);
    info.basename = col_text(st, 3);
    info.name = col_text(st, 4);
    info.id = sqlite3_column_int64(st, 5);
    info.rank = sqlite3_column_int64(st, 6);
    info.size = sqlite3_column_int64(st, 7);
    info.unit = col_text(st, 8);
    info.uuid = live ? col_text(st, 9) : NULL;
    int status = sqlite3_column_int(st, 10);
    if (!live) {
        info.basename = info.name = NULL;
        info.id = info.rank = GROVE_ID_NONE;
        info.size = 0;
    }
    grove_vid_t v = grove_graph_add_vertex(im->g, &info);
    if (v != (grove_vid_t)n)
        return grovep_errorf(x->err, errno == ENOMEM ? ENOMEM : EINVAL,
                             "store %s: vertex %zu: cannot add it (%s)", path, n, strerror(errno));
    if (status < 0 || status >= GROVE_STATUS_COUNT)
        return grovep_errorf(x->err, EINVAL, "store %s: vertex %zu: bad status %d", path, n,
                             status);
    im->status[n] = (uint8_t)status;
    im->hbase[n] = (uint64_t)sqlite3_column_int64(st, 11);
    x->hp[n] = (uint64_t)sqlite3_column_int64(st, 12);
    x->ht[n] = (uint64_t)sqlite3_column_int64(st, 13);
    im->hrec[n] = (uint64_t)sqlite3_column_int64(st, 14);
    uint64_t want = live ? grovep_store_base_hash(im->g, v, status) : grovep_store_dead_hash();
    if (want != im->hbase[n])
        return grovep_errorf(x->err, EINVAL,
                             "store %s: vertex %zu: the row does not match its hash", path, n);
    if (!live)
        im->hbase[n] = 0;
    x->n++;
    return 0;
}

/* After the vertex table: a row for every slot. */
static int vertices_done(struct reader *x)
{
    if (x->n != x->im->slots)
        return grovep_errorf(x->err, EINVAL, "store %s: %zu vertex rows for %zu slots", x->s->path,
                             x->n, x->im->slots);
    return 0;
}

/* One property or tag row. */
static int kv_row(struct reader *x, sqlite3_stmt *st, bool tag)
{
    const char *name = tag ? "tag" : "property";
    int64_t vid = sqlite3_column_int64(st, 0);
    if (vid < 0 || vid >= (int64_t)x->im->slots || !x->live[vid])
        return grovep_errorf(x->err, EINVAL, "store %s: a %s of vertex %lld, which is not live",
                             x->s->path, name, (long long)vid);
    const char *k = col_text(st, 1);
    const char *val = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : col_text(st, 2);
    int r = tag ? grove_vertex_tag(x->im->g, (grove_vid_t)vid, k, val)
                : grove_vertex_set_property(x->im->g, (grove_vid_t)vid, k, val ? val : "");
    if (r < 0)
        return grovep_errorf(x->err, errno == ENOMEM ? ENOMEM : EINVAL,
                             "store %s: vertex %lld: %s '%s'", x->s->path, (long long)vid, name, k);
    return 0;
}

static int property_row(struct reader *x, sqlite3_stmt *st)
{
    return kv_row(x, st, false);
}

static int tag_row(struct reader *x, sqlite3_stmt *st)
{
    return kv_row(x, st, true);
}

/* After the property and tag tables: every live vertex against their
 * hashes. */
static int keyvals_done(struct reader *x)
{
    const grove_graph_t *g = x->im->g;
    for (size_t v = 0; v < x->n; v++) {
        if (!x->live[v])
            continue;
        if (grovep_store_props_hash(g, (grove_vid_t)v) != x->hp[v]
            || grovep_store_tags_hash(g, (grove_vid_t)v) != x->ht[v])
            return grovep_errorf(x->err, EINVAL,
                                 "store %s: vertex %zu: its properties or tags do not match "
                                 "their hash",
                                 x->s->path, v);
    }
    return 0;
}

/* One edge row: the edge, added in position order. */
static int edge_row(struct reader *x, sqlite3_stmt *st)
{
    int64_t pos = sqlite3_column_int64(st, 0);
    int64_t src = sqlite3_column_int64(st, 1), dst = sqlite3_column_int64(st, 2);
    const char *sub = col_text(st, 3), *rel = col_text(st, 4);
    bool up = sqlite3_column_int(st, 5) != 0;
    int64_t opp = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 6);
    uint64_t h = (uint64_t)sqlite3_column_int64(st, 7);
    if (grovep_store_edge_hash(src, dst, sub, rel, up, opp) != h)
        return grovep_errorf(x->err, EINVAL, "store %s: edge %lld: the row does not match its hash",
                             x->s->path, (long long)pos);
    grove_error_t e;
    int64_t n = (int64_t)x->n;
    grove_eid_t eid = src >= 0 && dst >= 0 && src < n && dst < n
                          ? grovep_add_edge(x->im->g, (grove_vid_t)src, (grove_vid_t)dst, sub,
                                            rel, up ? 1 : 0, &e) /* the direction saved */
                          : GROVE_EID_NONE;
    if (eid == GROVE_EID_NONE
        || grovep_grow((void **)&x->ep, &x->epcap, x->ne + 1, sizeof(*x->ep)) < 0)
        return grovep_errorf(x->err, errno == ENOMEM ? ENOMEM : EINVAL,
                             "store %s: edge %lld: cannot add it", x->s->path, (long long)pos);
    x->ep[x->ne++] = (struct epair){pos, opp, eid, up};
    return 0;
}

/* After the edge table: the opposites and directions. */
static int edges_done(struct reader *x)
{
    const struct epair *ep = x->ep;
    size_t ne = x->ne;
    /* opposites: positions ascend, so look them up by binary search */
    for (size_t i = 0; i < ne; i++) {
        if (ep[i].opp < 0 || !ep[i].up)
            continue;
        size_t lo;
        GROVEP_LOWER_BOUND(lo, ne, mid, ep[mid].pos < ep[i].opp);
        if (lo == ne || ep[lo].pos != ep[i].opp
            || grove_graph_set_opposite(x->im->g, ep[lo].e, ep[i].e) < 0)
            return grovep_errorf(x->err, EINVAL, "store %s: edge %lld: bad opposite %lld",
                                 x->s->path, (long long)ep[i].pos, (long long)ep[i].opp);
    }
    for (size_t i = 0; i < ne; i++)
        if (grove_edge_is_up(x->im->g, ep[i].e) != ep[i].up)
            return grovep_errorf(x->err, EINVAL,
                                 "store %s: edge %lld: direction differs from the saved one",
                                 x->s->path, (long long)ep[i].pos);
    return 0;
}

/* Dead slots existed to keep the ids; now they go.  Then the graph's
 * time.  The next step (records) needs the graph complete. */
static int drop_dead_slots(struct reader *x)
{
    for (size_t v = 0; v < x->n; v++)
        if (!x->live[v] && grove_graph_unlink(x->im->g, (grove_vid_t)v, true) < 0)
            return grovep_errorf(
                x->err, EINVAL, "store %s: vertex %zu: cannot remove the dead slot", x->s->path, v);
    (void)grove_graph_set_now(x->im->g, x->now); /* read_meta checked it */
    if (grove_graph_set_expiration(x->im->g, x->expiration) < 0)
        return grovep_errorf(x->err, EINVAL, "store %s: meta expiration: must be >= 0, got %lld",
                             x->s->path, (long long)x->expiration);
    return 0;
}

/* Live vertices in [from, to) must have no records. */
static int no_records(struct reader *x, int64_t from, int64_t to)
{
    for (int64_t v = from; v < to; v++)
        if (x->live[v] && x->im->hrec[v] != grovep_store_recs_fin(0, 0))
            return grovep_errorf(x->err, EINVAL,
                                 "store %s: vertex %lld: its records do not match their hash",
                                 x->s->path, (long long)v);
    return 0;
}

/* The record table, oldest first on each vertex, each vertex's records
 * against its hash. */
static int read_records(struct reader *x)
{
    sqlite3_stmt *st = NULL;
    if (prep(x->s,
             "SELECT vid, job, amount, t_start, t_end, asked FROM record ORDER BY vid, pos DESC",
             &st, x->err)
        < 0)
        return -1;
    uint64_t sum = 0;
    size_t cnt = 0;
    int64_t cur = -1;
    int rc, r = -1;
    while (true) {
        rc = sqlite3_step(st);
        int64_t vid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
        if (vid != cur && cur >= 0 && grovep_store_recs_fin(sum, cnt) != x->im->hrec[cur]) {
            grovep_errorf(x->err, EINVAL,
                          "store %s: vertex %lld: its records do not match their hash", x->s->path,
                          (long long)cur);
            goto out;
        }
        if (rc != SQLITE_ROW)
            break;
        if (vid != cur) {
            if (vid < cur || vid >= (int64_t)x->n || !x->live[vid]) {
                grovep_errorf(x->err, EINVAL, "store %s: records of vertex %lld, which is not live",
                              x->s->path, (long long)vid);
                goto out;
            }
            if (no_records(x, cur + 1, vid) < 0)
                goto out;
            cur = vid;
            sum = 0;
            cnt = 0;
        }
        struct srec rec = {(grove_vid_t)vid, (grove_jobid_t)sqlite3_column_int64(st, 1),
                           sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                           sqlite3_column_int64(st, 4), sqlite3_column_int(st, 5) != 0, 0};
        if (!grovep_window_ok(rec.start, rec.end)) {
            grovep_errorf(x->err, EINVAL,
                          "store %s: vertex %lld: a record of job %llu has the window [%lld, %lld), "
                          "not one within [0, forever)",
                          x->s->path, (long long)vid, (unsigned long long)rec.job,
                          (long long)rec.start, (long long)rec.end);
            goto out;
        }
        sum += grovep_store_rec_hash(rec.job, rec.amount, rec.start, rec.end, rec.asked);
        cnt++;
        if (grovep_image_add_rec(x->im, &rec) < 0) {
            grovep_errorf(x->err, ENOMEM, "out of memory");
            goto out;
        }
    }
    if (rc != SQLITE_DONE) {
        sqlfail(x->s, x->err, "reading records");
        goto out;
    }
    r = no_records(x, cur + 1, (int64_t)x->n);
out:
    sqlite3_finalize(st);
    return r;
}

/* One job row (picks come from the pick table). */
static int job_row(struct reader *x, sqlite3_stmt *st)
{
    struct sjob *j = grovep_image_add_job(x->im);
    if (!j)
        return grovep_errorf(x->err, ENOMEM, "out of memory");
    j->job.id = (grove_jobid_t)sqlite3_column_int64(st, 0);
    j->job.state = (grove_job_state_t)sqlite3_column_int(st, 1);
    j->job.start = sqlite3_column_int64(st, 2);
    j->job.end = sqlite3_column_int64(st, 3);
    j->hash = (uint64_t)sqlite3_column_int64(st, 4);
    if (!grovep_window_ok(j->job.start, j->job.end))
        return grovep_errorf(x->err, EINVAL,
                             "store %s: job %llu has the window [%lld, %lld), not one within "
                             "[0, forever)",
                             x->s->path, (unsigned long long)j->job.id, (long long)j->job.start,
                             (long long)j->job.end);
    return 0;
}

/* One pick row, appended to its job's picks. */
static int pick_row(struct reader *x, sqlite3_stmt *st)
{
    grove_jobid_t id = (grove_jobid_t)sqlite3_column_int64(st, 0);
    if (!x->job || x->job->job.id != id) {
        x->job = grovep_image_job(x->im, id);
        x->pickcap = 0;
        if (!x->job)
            return grovep_errorf(x->err, EINVAL, "store %s: picks of job %llu, which has no row",
                                 x->s->path, (unsigned long long)id);
    }
    grove_job_t *j = &x->job->job;
    if (grovep_grow((void **)&j->picks, &x->pickcap, j->npicks + 1, sizeof(*j->picks)) < 0)
        return grovep_errorf(x->err, ENOMEM, "out of memory");
    int64_t vid = sqlite3_column_int64(st, 2);
    if (vid < 0 || vid >= (int64_t)x->n || !x->live[vid])
        return grovep_errorf(x->err, EINVAL,
                             "store %s: job %llu picks vertex %lld, which is not live", x->s->path,
                             (unsigned long long)id, (long long)vid);
    j->picks[j->npicks++] = (grove_pick_t){
        .v = (grove_vid_t)vid, .amount = sqlite3_column_int64(st, 3),
        .exclusive = sqlite3_column_int(st, 4) != 0, .leaf = sqlite3_column_int(st, 5) != 0,
        .recorded = sqlite3_column_int(st, 6) != 0};
    return 0;
}

/* One request row, to its job, against its hash. */
static int request_row(struct reader *x, sqlite3_stmt *st)
{
    grove_jobid_t id = (grove_jobid_t)sqlite3_column_int64(st, 0);
    const char *text = col_text(st, 1);
    struct sjob *j = grovep_image_job(x->im, id);
    if (!j)
        return grovep_errorf(x->err, EINVAL, "store %s: the request of job %llu, which has no row",
                             x->s->path, (unsigned long long)id);
    if (grovep_store_text_hash(text) != (uint64_t)sqlite3_column_int64(st, 2))
        return grovep_errorf(x->err, EINVAL,
                             "store %s: the request of job %llu does not match its hash",
                             x->s->path, (unsigned long long)id);
    if (!(j->request = strdup(text)))
        return grovep_errorf(x->err, ENOMEM, "out of memory");
    return 0;
}

/* The request table (a store written before it existed has none: its
 * jobs are restored without their requests). */
static int read_requests(struct reader *x)
{
    sqlite3_stmt *st = NULL;
    if (prep(x->s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'request'",
             &st, x->err)
        < 0)
        return -1;
    bool has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    if (!has)
        return 0;
    return each_row(x, "SELECT job, doc, hash FROM request ORDER BY job", "reading requests",
                    request_row);
}

/* After the job and pick tables: every job against its hash. */
static int jobs_done(struct reader *x)
{
    grove_image_t *im = x->im;
    for (size_t i = 0; i < im->njobs; i++)
        if (grovep_store_job_hash(&im->jobs[i].job) != im->jobs[i].hash)
            return grovep_errorf(x->err, EINVAL,
                                 "store %s: job %llu: the rows do not match their hash", x->s->path,
                                 (unsigned long long)im->jobs[i].job.id);
    if (!im->has_jobs && im->njobs)
        return grovep_errorf(x->err, EINVAL, "store %s: job rows without a matcher", x->s->path);
    return 0;
}

/* The acquisition row, if any, against its hash. */
static int acquire_row(struct reader *x, sqlite3_stmt *st)
{
    const char *text = col_text(st, 0);
    if (grovep_store_text_hash(text) != (uint64_t)sqlite3_column_int64(st, 1))
        return grovep_errorf(x->err, EINVAL,
                             "store %s: the acquisition state does not match its hash", x->s->path);
    json_error_t je;
    if (!(x->im->acquire = json_loads(text, 0, &je)))
        return grovep_errorf(x->err, EINVAL, "store %s: the acquisition state: %s", x->s->path,
                             je.text);
    return 0;
}

/* The tables in the order they are read: each row of sql goes to row,
 * then done runs (a step with no sql reads its table itself). */
static const struct table_reader {
    const char *sql;
    const char *what; /* an SQLite failure is reported as this */
    int (*row)(struct reader *x, sqlite3_stmt *st);
    int (*done)(struct reader *x);
} table_readers[] = {
    {"SELECT vid, live, type, basename, name, id, rank, size, unit, uuid, status, hash, "
     "hash_props, hash_tags, hash_records FROM vertex ORDER BY vid",
     "reading vertices", vertex_row, vertices_done},
    {"SELECT vid, key, value FROM property ORDER BY vid, pos", "reading properties and tags",
     property_row, NULL},
    {"SELECT vid, key, value FROM tag ORDER BY vid, pos", "reading properties and tags", tag_row,
     keyvals_done},
    {"SELECT pos, src, dst, subsystem, relation, up, opposite, hash FROM edge ORDER BY pos",
     "reading edges", edge_row, edges_done},
    {NULL, NULL, NULL, drop_dead_slots},
    {NULL, NULL, NULL, read_records},
    {"SELECT id, state, t_start, t_end, hash FROM job ORDER BY id", "reading jobs", job_row,
     NULL},
    {"SELECT job, pos, vid, amount, exclusive, leaf, recorded FROM pick ORDER BY job, pos",
     "reading picks", pick_row, jobs_done},
    {NULL, NULL, NULL, read_requests},
    {"SELECT state, hash FROM acquire", "reading the acquisition state", acquire_row, NULL},
};

/* Everything of the database into im (inside a read transaction), one
 * table after the other. */
static int read_rows(grove_store_t *s, grove_image_t *im, grove_error_t *err)
{
    struct reader x = {.s = s, .im = im, .err = err};
    int rc = read_meta(&x);
    size_t n = sizeof(table_readers) / sizeof(table_readers[0]);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct table_reader *t = &table_readers[i];
        if ((t->sql && each_row(&x, t->sql, t->what, t->row) < 0) || (t->done && t->done(&x) < 0))
            rc = -1;
    }
    free(x.hp);
    free(x.ht);
    free(x.live);
    free(x.ep);
    return rc;
}

/* PRAGMA integrity_check: every page, index and constraint of the file.
 * 0, or -1 with EINVAL (err has SQLite's first complaint), EIO. */
static int integrity(grove_store_t *s, grove_error_t *err)
{
    sqlite3_stmt *st = NULL;
    if (prep(s, "PRAGMA integrity_check(1)", &st, err) < 0)
        return -1;
    int rc = sqlite3_step(st), r = 0;
    if (rc != SQLITE_ROW)
        r = sqlfail(s, err, "integrity check");
    else if (strcmp(col_text(st, 0), "ok") != 0)
        r = grovep_errorf(err, EINVAL, "store %s: the file is damaged (integrity check: %s)",
                          s->path, col_text(st, 0));
    sqlite3_finalize(st);
    return r;
}

grove_image_t *grove_store_read(grove_store_t *s, grove_error_t *err)
{
    grove_error_clear(err);
    if (!s) {
        grovep_errorf(err, EINVAL, "store: no store");
        return NULL;
    }
    if (exec(s, "BEGIN", err) < 0)
        return NULL;
    if (integrity(s, err) < 0) {
        int saved = errno;
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        errno = saved;
        return NULL;
    }
    int64_t gen = 0, slots = 0;
    bool found;
    grove_image_t *im = NULL;
    if (get_meta_int(s, "generation", &gen, &found, err) < 0
        || get_meta_int(s, "slots", &slots, &found, err) < 0)
        goto fail;
    if (gen <= 0) {
        grovep_errorf(err, EINVAL, "store %s: nothing was saved", s->path);
        goto fail;
    }
    if (slots < 0 || slots >= (int64_t)GROVE_VID_NONE) {
        grovep_errorf(err, EINVAL, "store %s: meta slots %lld", s->path, (long long)slots);
        goto fail;
    }
    if (!(im = grovep_image_new((size_t)slots))) {
        grovep_errorf(err, ENOMEM, "out of memory");
        goto fail;
    }
    if (asprintf(&im->source, "store %s", s->path) < 0) {
        im->source = NULL;
        grovep_errorf(err, ENOMEM, "out of memory");
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
            grovep_errorf(err, EINVAL,
                          "store %s: the %s rows do not match the saved digest (rows were "
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
            grovep_errorf(err, ENOMEM, "out of memory");
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
            grovep_errorf(err, ENOMEM, "out of memory");
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
    if (!s)
        return grovep_errorf(err, EINVAL, "store: no store");
    int64_t gen = 0;
    bool found;
    if (get_meta_int(s, "generation", &gen, &found, err) < 0)
        return -1;
    if (gen == 0)
        return integrity(s, err); /* nothing saved: nothing else to check */
    grove_image_t *im = grove_store_read(s, err); /* runs integrity() too */
    if (!im)
        return -1;
    int r = grove_image_restore_jobs(im, NULL, err);
    if (r == 0 && im->acquire) {
        grove_acquire_t *a = grove_acquire_create(im->g, NULL, NULL, GROVE_ACQUIRE_AUTO);
        r = a ? grove_acquire_from_json(a, im->acquire, err)
              : grovep_errorf(err, ENOMEM, "out of memory");
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
        /* the keys put (in out) and deleted (in del), by kind */
        static const char *const kinds[][2] = {
            {"vertices", "vertex"}, {"edges", "edge"}, {"jobs", "job"}};
        json_t *const side[2] = {out, del};
        static const char *const op[2] = {"put", "del"};
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 3; k++) {
                json_t *keys = json_object_get(json_object_get(acc, op[i]), kinds[k][1]);
                json_object_set_new(side[i], kinds[k][0], keys_array(keys));
            }
        json_object_set(out, "deleted", del);
        json_object_set_new(out, "acquire", json_boolean(acq));
        json_object_set_new(out, "meta", json_boolean(meta));
    }
    char *text = out ? json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(acc);
    json_decref(out);
    json_decref(del);
    if (!text)
        grovep_errorf(err, ENOMEM, "out of memory");
    return text;
}

