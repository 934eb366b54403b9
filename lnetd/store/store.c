// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - the desired state and its history in SQLite (the contract is in
 * store.h and schema/): opening, migrating and closing the file, and the
 * transactions and the savepoint around each change.
 *
 * Why it is built this way:
 *  - The schema is data.  schema/NNNN-name.sql become store_schema[] at
 *    build time (lnetd/store/store.am), so the SQL is written once, as SQL.
 *    Migration N is store_schema[N - 1]; each runs in its own transaction
 *    and sets PRAGMA user_version to N (FreeBSD pkg's habit).
 *  - Statements are prepared once at open, from st_sql[] indexed by enum
 *    stmt (store-stmt.c), and finalized at close.
 *  - SQLite result codes become negative errno in st_errno() and nowhere else.
 *  - Every change runs in a SAVEPOINT: a refused one (a duplicate, a failed
 *    CHECK, a peer whose third NID is taken) rolls back alone, its log lines
 *    with it, and the caller's transaction goes on.
 *  - Changes log objects as SQLite's json_object() renders the rows
 *    themselves (RETURNING, or a SELECT before): what is logged is what was
 *    stored, and quoting is SQLite's business (store-history.c).
 *  - Rule positions stay 0..n-1 (store-objects.c says how).
 *
 * The other files: store-stmt.c (the statements, stepping them, errors),
 * store-objects.c (NIs, routes, globals, rules, TBF policies), store-peer.c,
 * store-state.c (the whole state at once), store-history.c (the change log,
 * generations, undo).  What they share is in store-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store-int.h"

/* Generated from schema/NNNN-name.sql (lnetd/store/store.am), NULL-terminated. */
extern const char *const store_schema[];

#define BUSY_MS 5000 /* how long to wait for another writer (sqlite3 by hand) */

/* --- the open transaction's change log ------------------------------------- */

int st_buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t need;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	need = b->len + n + 1;
	if (need > b->cap) {
		s = realloc(b->s, 2 * need);
		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = 2 * need;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
	return 0;
}

/* Append the strings up to a NULL: no format to interpret (a change's log lines). */
int st_buf_cat(struct buf *b, ...)
{
	const char *p;
	va_list ap;
	size_t n;
	int rc = 0;

	va_start(ap, b);
	while (!rc && (p = va_arg(ap, const char *))) {
		n = strlen(p);
		if (b->len + n + 1 > b->cap) {
			char *s = realloc(b->s, 2 * (b->len + n + 1));

			if (!s) {
				rc = -ENOMEM;
				break;
			}
			b->s = s;
			b->cap = 2 * (b->len + n + 1);
		}
		memcpy(b->s + b->len, p, n + 1);
		b->len += n;
	}
	va_end(ap);
	return rc;
}

static void buf_cut(struct buf *b, size_t len)
{
	b->len = len;
	if (b->s)
		b->s[len] = '\0';
}

/* --- the savepoint around each change --------------------------------------- */

int st_op_begin(struct store *st, struct mark *m, struct store_err *err)
{
	if (sqlite3_get_autocommit(st->db))
		return st_seterr(err, -EINVAL, "store: changes need a transaction (store_begin)");
	m->change = st->change.len;
	m->summary = st->summary.len;
	return st->whole ? 0 : st_exec(st, use(st, S_SAVEPOINT), err);
}

int st_op_end(struct store *st, const struct mark *m, int rc)
{
	if (rc) {
		if (!st->whole)
			st_exec(st, use(st, S_ROLLBACK_TO), NULL);
		st->spoiled |= st->whole;
		buf_cut(&st->change, m->change);
		buf_cut(&st->summary, m->summary);
	}
	if (!st->whole)
		st_exec(st, use(st, S_RELEASE), NULL);
	/* An I/O error or a full disk may have ended the whole transaction. */
	if (sqlite3_get_autocommit(st->db)) {
		buf_cut(&st->change, 0);
		buf_cut(&st->summary, 0);
	}
	return rc;
}

/* --- transactions ----------------------------------------------------------- */

int store_begin(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		return -EBUSY;
	buf_cut(&st->change, 0);
	buf_cut(&st->summary, 0);
	st->whole = st->spoiled = st->dry = false;
	return st_exec(st, use(st, S_BEGIN), NULL);
}

int store_begin_dry(struct store *st)
{
	int rc = store_begin_whole(st);

	st->dry = !rc;
	return rc;
}

int store_begin_whole(struct store *st)
{
	int rc = store_begin(st);

	st->whole = !rc;
	return rc;
}

/* The WAL's size (SQLite truncates it to this at each reset: journal_size_limit). */
#define WAL_KEEP 1048576
#define STR_(x)	 #x
#define STR(x)	 STR_(x)

static off_t wal_size(struct store *st)
{
	const char *db = sqlite3_db_filename(st->db, "main");
	char wal[PATH_MAX];
	struct stat sb;

	if (!db || snprintf(wal, sizeof(wal), "%s-wal", db) >= (int)sizeof(wal) || stat(wal, &sb))
		return 0;
	return sb.st_size;
}

void store_set_retention(struct store *st, uint32_t changes, uint32_t days)
{
	st->keep_changes = changes;
	st->keep_days = days;
}

/* The retention, inside the change's transaction: *@pruned says whether it dropped any. */
static int hist_prune(struct store *st, bool *pruned, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_HIST_PRUNE);
	int rc;

	if (!st->keep_changes && !st->keep_days)
		return 0;
	sqlite3_bind_int64(s, 1, st->keep_changes ? (int64_t)st->keep_changes : INT64_MAX);
	sqlite3_bind_int64(s, 2,
			   st->keep_days ? (int64_t)time(NULL) - (int64_t)st->keep_days * 86400
					 : INT64_MIN);
	rc = st_exec(st, s, err);
	*pruned = !rc && sqlite3_changes(st->db) > 0;
	return rc;
}

int store_commit(struct store *st, const struct st_who *who, uint64_t *gen, struct store_err *err)
{
	bool pruned = false;
	sqlite3_stmt *s;
	int rc = 0;

	if (sqlite3_get_autocommit(st->db))
		return st_seterr(err, -EINVAL, "store: no transaction is open");
	if (st->dry)
		rc = st_seterr(err, -EINVAL, "store: a dry run is never kept");
	else if (st->spoiled)
		rc = st_seterr(err, -EINVAL,
			       "store: a change of this all-or-nothing transaction was refused; "
			       "nothing is kept");
	else if (st->change.len) {
		rc = st_buf_printf(&st->change, "]");
		s = use(st, S_HIST_ADD);
		sqlite3_bind_int64(s, 1, time(NULL));
		sqlite3_bind_int64(s, 2, who ? who->uid : getuid());
		sqlite3_bind_int64(s, 3, who ? who->pid : getpid());
		bind_text(s, 4, who && who->command ? who->command : "");
		bind_text(s, 5, st->summary.s);
		bind_text(s, 6, st->change.s);
		rc = rc ? st_seterr(err, rc, "store: out of memory") : st_exec(st, s, err);
		if (!rc)
			rc = hist_prune(st, &pruned, err);
	}
	if (!rc)
		rc = st_exec(st, use(st, S_COMMIT), err);
	/*
	 * What was pruned is free pages now, for the next changes.  A WAL past
	 * journal_size_limit (a big change made it so) is copied back and
	 * truncated now; a smaller one waits for SQLite's own checkpoints.
	 */
	if (!rc && pruned && wal_size(st) > WAL_KEEP)
		sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	if (rc && !sqlite3_get_autocommit(st->db))
		st_exec(st, use(st, S_ROLLBACK), NULL);
	buf_cut(&st->change, 0);
	buf_cut(&st->summary, 0);
	if (!rc && gen)
		rc = store_generation(st, gen);
	return rc;
}

int store_rollback(struct store *st)
{
	buf_cut(&st->change, 0);
	buf_cut(&st->summary, 0);
	if (sqlite3_get_autocommit(st->db))
		return -EINVAL;
	return st_exec(st, use(st, S_ROLLBACK), NULL);
}

int store_pending(struct store *st, char **summary, char **change)
{
	size_t n = st->change.len;

	*summary = strdup(n ? st->summary.s : "");
	*change = malloc(n + 3);
	if (!*summary || !*change) {
		free(*summary);
		free(*change);
		*summary = *change = NULL;
		return -ENOMEM;
	}
	snprintf(*change, n + 3, "%s]", n ? st->change.s : "[");
	return 0;
}

/* --- open, migrate, close --------------------------------------------------------- */

static int schema_latest(void)
{
	int n = 0;

	while (store_schema[n])
		n++;
	return n;
}

/* A one-off query at open, before the statements are prepared. */
static int query(sqlite3 *db, const char *q, int64_t *v, char *text, size_t n)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, q, -1, &s, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (v)
			*v = sqlite3_column_int64(s, 0);
		if (text)
			snprintf(text, n, "%s",
				 either((const char *)sqlite3_column_text(s, 0), ""));
		rc = SQLITE_OK;
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(s);
	return rc;
}

/* The end of every refusal of a file that is there but is no store. */
#define START_OVER                                                         \
	"to start over with an empty configuration, move it aside (mv %s " \
	"%s.old) and start lnetd again"

static int open_err(struct store *st, int rc, const char *path, const char *what,
		    struct store_err *err)
{
	if ((rc & 0xff) == SQLITE_NOTADB)
		return st_seterr(err, st_errno(st, rc),
				 "%s is not an SQLite database (%s); " START_OVER, path,
				 sqlite3_errmsg(st->db), path, path);
	if ((rc & 0xff) == SQLITE_CORRUPT)
		return st_seterr(err, st_errno(st, rc),
				 "%s is damaged (%s): restore it from a backup, or, " START_OVER,
				 path, sqlite3_errmsg(st->db), path, path);
	return st_seterr(err, st_errno(st, rc), "%s: %s: %s", path, what, sqlite3_errmsg(st->db));
}

/*
 * What is at @path, looked at before SQLite opens it.  SQLite takes a
 * zero-length file for a new database (and deletes a -wal beside it), so a
 * store truncated by an accident would come back empty without a word: only
 * a missing file is a new store.  A file that is empty, does not begin as
 * every SQLite database does, or that lnetd may not read and write is
 * refused, saying what to do, before SQLite has opened anything: nothing on
 * disk changes.  Returns 0 (a file for SQLite), 1 (none: make one) or a
 * negative errno with @err filled.
 *
 * The descriptor is closed before SQLite opens the file: closing a file
 * drops every POSIX lock the process holds on it, SQLite's included, so
 * this runs only while the process has no connection to @path.
 */
static int look_at_file(const char *path, struct store_err *err)
{
	static const char magic[16] = "SQLite format 3"; /* and its NUL */
	char head[sizeof(magic)];
	struct stat sb;
	int fd, e = 0;
	ssize_t n;

	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0) {
		e = errno;
		return st_seterr(
			err, -e,
			"%s: cannot open it for reading and writing: %s; fix its owner and "
			"mode, or, " START_OVER,
			path, strerror(e), path, path);
	}
	if (fstat(fd, &sb)) {
		e = errno;
		st_seterr(err, -e, "%s: %s", path, strerror(e));
	} else if (!S_ISREG(sb.st_mode)) {
		e = EBADMSG;
		st_seterr(err, -e, "%s is not a regular file; " START_OVER, path, path, path);
	} else if (sb.st_size == 0) {
		e = EBADMSG;
		st_seterr(err, -e,
			  "%s is empty (0 bytes): it is not a store lnetd wrote; " START_OVER, path,
			  path, path);
	} else {
		n = pread(fd, head, sizeof(head), 0);
		if (n < 0) {
			e = errno;
			st_seterr(err, -e, "%s: cannot read it: %s", path, strerror(e));
		} else if (n != sizeof(head) || memcmp(head, magic, sizeof(magic))) {
			e = EBADMSG;
			st_seterr(err, -e, "%s is not an SQLite database; " START_OVER, path, path,
				  path);
		}
	}
	close(fd);
	return -e;
}

/*
 * A missing @path is a new store, unless its write-ahead log or rollback
 * journal is still there: SQLite would replay it into the new file, bringing
 * back part of the database it belongs to, moved or removed without it.
 * Returns 1 (none: make the store) or a refusal.
 */
static int no_orphans(const char *path, struct store_err *err)
{
	static const char *const suffixes[] = {"-wal", "-journal"};
	char p[PATH_MAX];
	struct stat sb;
	size_t i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (snprintf(p, sizeof(p), "%s%s", path, suffixes[i]) >= (int)sizeof(p))
			return st_seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
		if (!stat(p, &sb) && sb.st_size > 0)
			return st_seterr(
				err, -EEXIST,
				"%s is missing but %s is there, left by the database it "
				"belongs to: put that database back, or, to start over with an "
				"empty configuration, move %s aside too and start lnetd again",
				path, p, p);
	}
	return 1;
}

/* Remove @path@suffix if it is there. */
static int unlink_if_there(const char *path, const char *suffix, struct store_err *err)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s%s", path, suffix) >= (int)sizeof(p))
		return st_seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
	if (unlink(p) && errno != ENOENT)
		return st_seterr(err, -errno, "%s: cannot remove it: %s", p, strerror(errno));
	return 0;
}

/* Flush the directory holding @path, so a name made in it stays. */
static int sync_dir(const char *path, struct store_err *err)
{
	const char *slash = strrchr(path, '/');
	char d[PATH_MAX];
	int fd, rc = 0;

	if (!slash)
		snprintf(d, sizeof(d), ".");
	else if (snprintf(d, sizeof(d), "%.*s", (int)(slash - path) ?: 1, path) >= (int)sizeof(d))
		return st_seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
	fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		rc = st_seterr(err, -errno, "%s: cannot flush it: %s", d, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * A new store: an empty SQLite database, made whole as @path.new and then
 * linked in as @path.  Made in place, @path would be a zero-length file
 * until the first commit (SQLite writes a file's first page then), and an
 * lnetd killed in between would leave one, which look_at_file() refuses.
 * Whatever an earlier attempt left as @path.new goes first.  link() never
 * replaces a file that appeared meanwhile.  The file is 0600 whatever the
 * umask, and SQLite gives its -wal and -shm the database's mode; a store
 * that exists keeps the mode it has.
 */
static int create_file(const char *path, struct store_err *err)
{
	static const char *const leftovers[] = {"-wal", "-shm", "-journal", ""};
	char tmp[PATH_MAX], mode[16];
	sqlite3 *db = NULL;
	struct stat sb;
	size_t i;
	int fd, rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return st_seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
	for (i = 0; !rc && i < sizeof(leftovers) / sizeof(leftovers[0]); i++)
		rc = unlink_if_there(tmp, leftovers[i], err);
	if (rc)
		return rc;
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || fchmod(fd, 0600))
		rc = st_seterr(err, -errno, "%s: cannot create it: %s", tmp, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (rc)
		goto out;
	/* Setting WAL writes the first page: the file is a database from now on. */
	rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = query(db, "PRAGMA journal_mode = WAL", NULL, mode, sizeof(mode));
	if (rc != SQLITE_OK || strcmp(mode, "wal")) {
		rc = st_seterr(err, -EIO, "%s: cannot make a new store: %s", tmp,
			       rc != SQLITE_OK ? (db ? sqlite3_errmsg(db) : "out of memory")
					       : "SQLite refuses WAL journal mode");
		sqlite3_close(db);
		goto out;
	}
	if (sqlite3_close(db) != SQLITE_OK)
		rc = st_seterr(err, -EIO, "%s: cannot make a new store: closing failed", tmp);
	else if (stat(tmp, &sb) || sb.st_size == 0)
		rc = st_seterr(err, -EIO, "%s: SQLite wrote nothing into it", tmp);
	else if (link(tmp, path))
		rc = st_seterr(err, -errno, "%s: cannot put the new store in place: %s", path,
			       strerror(errno));
	if (!rc)
		rc = sync_dir(path, err);
out:
	if (unlink(tmp) && errno != ENOENT && !rc)
		rc = st_seterr(err, -errno, "%s: cannot remove it: %s", tmp, strerror(errno));
	return rc;
}

/* Apply the migrations this file lacks, each in its own transaction. */
static int migrate(struct store *st, const char *path, struct store_err *err)
{
	int latest = schema_latest(), rc;
	char q[64], mode[16];
	int64_t v = 0;

	rc = query(st->db, "PRAGMA user_version", &v, NULL, 0);
	if (rc)
		return open_err(st, rc, path, "reading the schema version", err);
	if (v > latest)
		return st_seterr(err, -ENOTSUP,
				 "%s: schema version %lld is newer than this lnetd knows (%d): "
				 "run a newer lnetd, or move the file away",
				 path, (long long)v, latest);
	rc = query(st->db, "PRAGMA journal_mode = WAL", NULL, mode, sizeof(mode));
	if (rc)
		return open_err(st, rc, path, "setting WAL mode", err);
	if (strcmp(mode, "wal"))
		return st_seterr(err, -EINVAL,
				 "%s: cannot use WAL journal mode (journal mode is %s)", path,
				 mode);
	/*
	 * A change is one transaction, held until it commits or rolls back: with
	 * the default 2,000-page cache a large one (a site import, or a dry run
	 * of it) spills to the WAL page by page, rewriting the same pages as it
	 * grows.  64 MiB holds what a change can carry (see LNETD_*_MAX).  And
	 * each statement's journal (kept so one statement can be undone inside
	 * the change) stays in memory: on disk it was 700,000 writes to
	 * /var/tmp for a 40,000-peer dry run.  A WAL the checkpoints reset
	 * is cut back to 1 MiB, whatever the largest change made it.
	 */
	rc = sqlite3_exec(st->db,
			  "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
			  "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY; "
			  "PRAGMA journal_size_limit = " STR(WAL_KEEP),
			  NULL, NULL, NULL);
	if (rc)
		return open_err(st, rc, path, "setting pragmas", err);
	for (;;) {
		/* Re-read inside the write lock: another lnetd may have migrated. */
		rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (!rc)
			rc = query(st->db, "PRAGMA user_version", &v, NULL, 0);
		if (!rc && v >= latest)
			break;
		if (!rc)
			rc = sqlite3_exec(st->db, store_schema[v], NULL, NULL, NULL);
		snprintf(q, sizeof(q), "PRAGMA user_version = %lld", (long long)v + 1);
		if (!rc)
			rc = sqlite3_exec(st->db, q, NULL, NULL, NULL);
		if (!rc)
			rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
		if (rc) {
			snprintf(q, sizeof(q), "migrating to schema version %lld",
				 (long long)v + 1);
			rc = open_err(st, rc, path, q, err);
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return rc ? open_err(st, rc, path, "opening", err) : 0;
}

int store_open(const char *path, struct store **out, struct store_err *err)
{
	struct store *st = calloc(1, sizeof(*st));
	size_t i;
	int rc;

	*out = NULL;
	if (!st)
		return st_seterr(err, -ENOMEM, "store: out of memory");
	store_set_retention(st, STORE_KEEP_CHANGES, STORE_KEEP_DAYS);
	rc = look_at_file(path, err);
	if (rc == 1)
		rc = no_orphans(path, err);
	if (rc == 1)
		rc = create_file(path, err);
	if (rc) {
		free(st);
		return rc;
	}
	/* Never SQLITE_OPEN_CREATE: a file that vanished since is not a new store. */
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc) {
		rc = st->db ? open_err(st, rc, path, "opening", err)
			    : st_seterr(err, -ENOMEM, "store: out of memory");
		store_close(st);
		return rc;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_MS);
	rc = migrate(st, path, err);
	for (i = 0; !rc && i < S__COUNT; i++) {
		rc = sqlite3_prepare_v3(st->db, st_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					&st->stmt[i], NULL);
		if (rc)
			rc = open_err(st, rc, path, st_sql[i], err);
	}
	if (rc) {
		store_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

void store_close(struct store *st)
{
	size_t i;

	if (!st)
		return;
	if (st->db && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	for (i = 0; i < S__COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	free(st->change.s);
	free(st->summary.s);
	free(st);
}

int store_info(struct store *st, struct st_info *info)
{
	sqlite3_stmt *s;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	info->schema_latest = schema_latest();
	s = use(st, S_USER_VERSION);
	info->schema = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	s = use(st, S_JOURNAL_MODE);
	if (sqlite3_step(s) == SQLITE_ROW)
		snprintf(info->journal_mode, sizeof(info->journal_mode), "%s",
			 either(col_text(s, 0), ""));
	s = use(st, S_SYNCHRONOUS);
	info->synchronous = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	s = use(st, S_FOREIGN_KEYS);
	info->foreign_keys = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	rc = store_generation(st, &info->generation);
	sqlite3_reset(st->stmt[S_USER_VERSION]);
	sqlite3_reset(st->stmt[S_JOURNAL_MODE]);
	sqlite3_reset(st->stmt[S_SYNCHRONOUS]);
	sqlite3_reset(st->stmt[S_FOREIGN_KEYS]);
	return rc;
}
