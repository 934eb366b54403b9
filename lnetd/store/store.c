// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - the desired state and its history in SQLite (the contract is in
 * store.h and schema/).
 *
 * Why it is built this way:
 *  - The schema is data.  schema/NNNN-name.sql become store_schema[] at
 *    build time (lnetd/store.am), so the SQL is written once, as SQL.
 *    Migration N is store_schema[N - 1]; each runs in its own transaction
 *    and sets PRAGMA user_version to N (FreeBSD pkg's habit).
 *  - Statements are prepared once at open, from sql[] indexed by enum stmt,
 *    and finalized at close.
 *  - SQLite result codes become negative errno in st_errno() and nowhere else.
 *  - Every change runs in a SAVEPOINT: a refused one (a duplicate, a failed
 *    CHECK, a peer whose third NID is taken) rolls back alone, its log lines
 *    with it, and the caller's transaction goes on.
 *  - Changes log objects as SQLite's json_object() renders the rows
 *    themselves (RETURNING, or a SELECT before): what is logged is what was
 *    stored, and quoting is SQLite's business.
 *  - Rule positions stay 0..n-1.  SQLite checks uniqueness row by row, so
 *    "pos = pos + 1" would collide; a gap is opened or closed by moving the
 *    rows past it out of the way by SHIFT, then back.
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

#include "store.h"

/* Generated from schema/NNNN-name.sql (lnetd/store.am), NULL-terminated. */
extern const char *const store_schema[];

#define KEY_MAX 256
#define BUSY_MS 5000 /* how long to wait for another writer (sqlite3 by hand) */
#define SHIFT	"4294967296"

#define NI_COLS \
	"net, ifname, pattern, cpts, peer_timeout, peer_credits, peer_buffer_credits, credits"
#define NI_JSON                                                                        \
	"json_object('net', net, 'ifname', ifname, 'pattern', pattern, 'cpts', cpts, " \
	"'peer_timeout', peer_timeout, 'peer_credits', peer_credits, "                 \
	"'peer_buffer_credits', peer_buffer_credits, 'credits', credits)"
#define NI_KEY                                                                                         \
	"net = ?1 AND CASE WHEN ?2 IS NOT NULL THEN ifname = ?2 ELSE ifname IS NULL AND pattern = ?3 " \
	"END"
#define PEER_JSON                                                                                \
	"json_object('nid', p.nid, 'mr', p.mr, 'nids', json((SELECT json_group_array(nid) FROM " \
	"(SELECT nid FROM peer_nid WHERE peer = p.id AND nid <> p.nid ORDER BY id))))"
#define ROUTE_COLS "net, gateway, hops, priority, sensitivity"
#define ROUTE_JSON                                                                         \
	"json_object('net', net, 'gateway', gateway, 'hops', hops, 'priority', priority, " \
	"'sensitivity', sensitivity)"
#define ROUTE_KEY   "net = ?1 AND gateway = ?2"
#define GLOBAL_JSON "json_object('name', name, 'value', value)"
#define TBF_COLS    "service, reg_type, reg_depth, hp_type, hp_depth, rules"
#define TBF_JSON                                                                         \
	"json_object('service', service, 'reg_type', reg_type, 'reg_depth', reg_depth, " \
	"'hp_type', hp_type, 'hp_depth', hp_depth, 'rules', rules)"
#define RULE_COLS "pos, src, dst, rte, priority"
#define RULE_JSON \
	"json_object('pos', pos, 'src', src, 'dst', dst, 'rte', rte, 'priority', priority)"

enum stmt {
	S_BEGIN,
	S_BEGIN_READ,
	S_COMMIT,
	S_ROLLBACK,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	S_USER_VERSION,
	S_JOURNAL_MODE,
	S_SYNCHRONOUS,
	S_FOREIGN_KEYS,
	S_GENERATION,
	S_HIST_ADD,
	S_HIST_LIST,
	S_HIST_GET,
	S_NI_ADD,
	S_NI_GET,
	S_NI_UPDATE,
	S_NI_DEL,
	S_NI_LIST,
	S_PEER_ADD,
	S_PEER_JSON,
	S_PEER_MR,
	S_PEER_DEL,
	S_PEER_NID_ADD,
	S_PEER_NID_DEL,
	S_PEER_GET,
	S_PEER_LIST,
	S_NID_OWNER,
	S_ROUTE_ADD,
	S_ROUTE_GET,
	S_ROUTE_UPDATE,
	S_ROUTE_DEL,
	S_ROUTE_LIST,
	S_GLOBAL_SET,
	S_GLOBAL_GET,
	S_GLOBAL_DEL,
	S_GLOBAL_LIST,
	S_RULE_COUNT,
	S_RULE_OPEN,
	S_RULE_CLOSE,
	S_RULE_SETTLE,
	S_RULE_ADD,
	S_RULE_GET,
	S_RULE_UPDATE,
	S_RULE_DEL,
	S_RULE_LIST,
	S_TBF_SET,
	S_TBF_GET,
	S_TBF_DEL,
	S_TBF_LIST,
	S_UNDO_LIST,
	S_JSON_FIELDS,
	S_JSON_NIDS,
	S__COUNT
};

static const char *const sql[S__COUNT] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_BEGIN_READ] = "BEGIN",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_SAVEPOINT] = "SAVEPOINT op",
	[S_RELEASE] = "RELEASE op",
	[S_ROLLBACK_TO] = "ROLLBACK TO op",
	[S_USER_VERSION] = "PRAGMA user_version",
	[S_JOURNAL_MODE] = "PRAGMA journal_mode",
	[S_SYNCHRONOUS] = "PRAGMA synchronous",
	[S_FOREIGN_KEYS] = "PRAGMA foreign_keys",
	[S_GENERATION] = "SELECT coalesce(max(gen), 0) FROM history",
	[S_HIST_ADD] = "INSERT INTO history (time, uid, pid, command, summary, change) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[S_HIST_LIST] = "SELECT gen, time, uid, pid, command, summary FROM history "
			"ORDER BY gen DESC LIMIT ?1",
	[S_HIST_GET] = "SELECT gen, time, uid, pid, command, summary, change FROM history "
		       "WHERE gen = ?1",
	[S_NI_ADD] = "INSERT INTO ni (" NI_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
		     "RETURNING " NI_JSON,
	[S_NI_GET] = "SELECT " NI_COLS ", " NI_JSON " FROM ni WHERE " NI_KEY,
	[S_NI_UPDATE] = "UPDATE ni SET cpts = ?4, peer_timeout = ?5, peer_credits = ?6, "
			"peer_buffer_credits = ?7, credits = ?8 WHERE " NI_KEY
			" RETURNING " NI_JSON,
	[S_NI_DEL] = "DELETE FROM ni WHERE " NI_KEY " RETURNING " NI_JSON,
	[S_NI_LIST] = "SELECT " NI_COLS " FROM ni ORDER BY net, ifname, pattern",
	[S_PEER_ADD] = "INSERT INTO peer (nid, mr) VALUES (?1, ?2)",
	[S_PEER_JSON] = "SELECT " PEER_JSON " FROM peer p WHERE p.nid = ?1",
	[S_PEER_MR] = "UPDATE peer SET mr = ?2 WHERE nid = ?1",
	[S_PEER_DEL] = "DELETE FROM peer WHERE nid = ?1",
	[S_PEER_NID_ADD] =
		"INSERT INTO peer_nid (peer, nid) SELECT id, ?2 FROM peer WHERE nid = ?1",
	[S_PEER_NID_DEL] = "DELETE FROM peer_nid WHERE nid = ?2 AND nid <> ?1 "
			   "AND peer = (SELECT id FROM peer WHERE nid = ?1)",
	[S_PEER_GET] = "SELECT p.nid, p.mr, n.nid FROM peer p JOIN peer_nid n ON n.peer = p.id "
		       "WHERE p.nid = ?1 ORDER BY n.id",
	[S_PEER_LIST] = "SELECT p.nid, p.mr, n.nid FROM peer p JOIN peer_nid n ON n.peer = p.id "
			"ORDER BY p.nid, n.id",
	[S_NID_OWNER] =
		"SELECT p.nid FROM peer_nid n JOIN peer p ON p.id = n.peer WHERE n.nid = ?1",
	[S_ROUTE_ADD] = "INSERT INTO route (" ROUTE_COLS ") VALUES (?1, ?2, ?3, ?4, ?5) "
			"RETURNING " ROUTE_JSON,
	[S_ROUTE_GET] = "SELECT " ROUTE_COLS ", " ROUTE_JSON " FROM route WHERE " ROUTE_KEY,
	[S_ROUTE_UPDATE] = "UPDATE route SET hops = ?3, priority = ?4, sensitivity = ?5 "
			   "WHERE " ROUTE_KEY " RETURNING " ROUTE_JSON,
	[S_ROUTE_DEL] = "DELETE FROM route WHERE " ROUTE_KEY " RETURNING " ROUTE_JSON,
	[S_ROUTE_LIST] = "SELECT " ROUTE_COLS " FROM route ORDER BY net, gateway",
	[S_GLOBAL_SET] = "INSERT INTO global (name, value) VALUES (?1, ?2) ON CONFLICT (name) "
			 "DO UPDATE SET value = excluded.value RETURNING " GLOBAL_JSON,
	[S_GLOBAL_GET] = "SELECT value, " GLOBAL_JSON " FROM global WHERE name = ?1",
	[S_GLOBAL_DEL] = "DELETE FROM global WHERE name = ?1 RETURNING " GLOBAL_JSON,
	[S_GLOBAL_LIST] = "SELECT name, value FROM global ORDER BY name",
	[S_RULE_COUNT] = "SELECT count(*) FROM rule",
	[S_RULE_OPEN] = "UPDATE rule SET pos = pos + " SHIFT " + 1 WHERE pos >= ?1",
	[S_RULE_CLOSE] = "UPDATE rule SET pos = pos + " SHIFT " - 1 WHERE pos > ?1",
	[S_RULE_SETTLE] = "UPDATE rule SET pos = pos - " SHIFT " WHERE pos >= " SHIFT,
	[S_RULE_ADD] = "INSERT INTO rule (" RULE_COLS ") VALUES (?1, ?2, ?3, ?4, ?5) "
		       "RETURNING " RULE_JSON,
	[S_RULE_GET] = "SELECT " RULE_COLS ", " RULE_JSON " FROM rule WHERE pos = ?1",
	[S_RULE_UPDATE] = "UPDATE rule SET src = ?2, dst = ?3, rte = ?4, priority = ?5 "
			  "WHERE pos = ?1 RETURNING " RULE_JSON,
	[S_RULE_DEL] = "DELETE FROM rule WHERE pos = ?1 RETURNING " RULE_JSON,
	[S_RULE_LIST] = "SELECT " RULE_COLS " FROM rule ORDER BY pos",
	[S_TBF_SET] = "INSERT INTO tbf (" TBF_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
		      "ON CONFLICT (service) DO UPDATE SET reg_type = excluded.reg_type, "
		      "reg_depth = excluded.reg_depth, hp_type = excluded.hp_type, "
		      "hp_depth = excluded.hp_depth, rules = excluded.rules RETURNING " TBF_JSON,
	[S_TBF_GET] = "SELECT " TBF_COLS ", " TBF_JSON " FROM tbf WHERE service = ?1",
	[S_TBF_DEL] = "DELETE FROM tbf WHERE service = ?1 RETURNING " TBF_JSON,
	[S_TBF_LIST] = "SELECT " TBF_COLS " FROM tbf ORDER BY service",
	/* Every change after a generation, newest first: op, obj, the object to put back
	 * (add: the new one, to delete; del and mod: the old one). */
	[S_UNDO_LIST] =
		"SELECT json_extract(j.value, '$.op'), json_extract(j.value, '$.obj'), "
		"CASE json_extract(j.value, '$.op') WHEN 'add' "
		"THEN json_extract(j.value, '$.new') ELSE json_extract(j.value, '$.old') END "
		"FROM history h, json_each(h.change) j WHERE h.gen > ?1 "
		"ORDER BY h.gen DESC, j.key DESC",
	[S_JSON_FIELDS] =
		"SELECT json_extract(?1, '$.net'), json_extract(?1, '$.ifname'), "
		"json_extract(?1, '$.pattern'), json_extract(?1, '$.cpts'), "
		"json_extract(?1, '$.peer_timeout'), json_extract(?1, '$.peer_credits'), "
		"json_extract(?1, '$.peer_buffer_credits'), json_extract(?1, '$.credits'), "
		"json_extract(?1, '$.nid'), json_extract(?1, '$.mr'), "
		"json_extract(?1, '$.gateway'), json_extract(?1, '$.hops'), "
		"json_extract(?1, '$.priority'), json_extract(?1, '$.sensitivity'), "
		"json_extract(?1, '$.name'), json_extract(?1, '$.value'), "
		"json_extract(?1, '$.pos'), json_extract(?1, '$.src'), "
		"json_extract(?1, '$.dst'), json_extract(?1, '$.rte'), "
		"json_extract(?1, '$.service'), json_extract(?1, '$.reg_type'), "
		"json_extract(?1, '$.reg_depth'), json_extract(?1, '$.hp_type'), "
		"json_extract(?1, '$.hp_depth'), json_extract(?1, '$.rules')",
	[S_JSON_NIDS] = "SELECT value FROM json_each(?1, '$.nids') ORDER BY key",
};

enum kind {
	K_NI,
	K_PEER,
	K_ROUTE,
	K_GLOBAL,
	K_RULE,
	K_TBF
};

static const struct {
	const char *obj;  /* in history and summaries */
	const char *name; /* for people */
} kinds[] = {
	[K_NI] = {"ni", "NI"},
	[K_PEER] = {"peer", "peer"},
	[K_ROUTE] = {"route", "route to"},
	[K_GLOBAL] = {"global", "global"},
	[K_TBF] = {"tbf", "TBF policy"},
	[K_RULE] = {"rule", "rule"},
};

struct buf {
	char *s;
	size_t len, cap;
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *stmt[S__COUNT];
	struct buf change, summary; /* what the open transaction did so far */
};

/* Where a change started, to forget its log lines if it is refused. */
struct mark {
	size_t change, summary;
};

/* --- errors: the one boundary from SQLite to errno ----------------------- */

static int st_errno(struct store *st, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_CONSTRAINT:
		if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
			return -EEXIST;
		if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
			return -ENOENT;
		return -EINVAL;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_TOOBIG:
		return -E2BIG;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
		sys = sqlite3_system_errno(st->db);
		return sys > 0 ? -sys : -EIO;
	case SQLITE_MISUSE:
	case SQLITE_RANGE:
	case SQLITE_MISMATCH:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static __attribute__((format(printf, 3, 4))) int seterr(struct store_err *err, int rc,
							const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* A failed step on object @key of kind @k, as an errno and a sentence. */
static int sqlerr(struct store *st, int rc, enum kind k, const char *key, struct store_err *err)
{
	const char *msg = sqlite3_errmsg(st->db), *why = strstr(msg, "failed: ");

	if ((rc & 0xff) != SQLITE_CONSTRAINT || !why)
		return seterr(err, st_errno(st, rc), "%s %s: %s", kinds[k].name, key, msg);
	why += strlen("failed: ");
	if (rc == SQLITE_CONSTRAINT_NOTNULL)
		return seterr(err, st_errno(st, rc), "%s %s: %s is required", kinds[k].name, key,
			      why);
	return seterr(err, st_errno(st, rc), "%s %s: %s", kinds[k].name, key, why);
}

static int notfound(enum kind k, const char *key, struct store_err *err)
{
	return seterr(err, -ENOENT, "no %s %s", kinds[k].name, key);
}

/* --- small helpers --------------------------------------------------------- */

static __attribute__((format(printf, 2, 3))) int buf_printf(struct buf *b, const char *fmt, ...)
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

static void buf_cut(struct buf *b, size_t len)
{
	b->len = len;
	if (b->s)
		b->s[len] = '\0';
}

/* Make room for element @n of an array grown by doubling (NULL: out of memory). */
static void *grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1))
		return v;
	return realloc(v, (n ? 2 * n : 1) * size);
}

static int sdup(const char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return *dst || !src ? 0 : -ENOMEM;
}

static const char *either(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static int cmp_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static int cmp_int(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* --- statements ------------------------------------------------------------ */

static sqlite3_stmt *use(struct store *st, enum stmt id)
{
	sqlite3_stmt *s = st->stmt[id];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

/* The strings bound stay the caller's: every statement is reset after use. */
static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

static void bind_int(sqlite3_stmt *s, int i, int64_t v)
{
	if (v == ST_UNSET)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, v);
}

static const char *col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

static int64_t col_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? ST_UNSET : sqlite3_column_int64(s, i);
}

/* Run @s, which returns no row we want; 0 or a negative errno. */
static int exec(struct store *st, sqlite3_stmt *s, struct store_err *err)
{
	int rc = sqlite3_step(s);

	rc = rc == SQLITE_DONE || rc == SQLITE_ROW
		     ? 0
		     : seterr(err, st_errno(st, rc), "store: %s", sqlite3_errmsg(st->db));
	sqlite3_reset(s);
	return rc;
}

/* Run the change @s on object @key; 0 or a negative errno naming it. */
static int dml(struct store *st, sqlite3_stmt *s, enum kind k, const char *key,
	       struct store_err *err)
{
	int rc = sqlite3_step(s);

	rc = rc == SQLITE_DONE ? 0 : sqlerr(st, rc, k, key, err);
	sqlite3_reset(s);
	return rc;
}

/*
 * Step @s, which yields at most one row, to its end; *json gets a copy of
 * column @col of the row.  Returns SQLITE_ROW (got it), SQLITE_DONE (no row)
 * or the error, whose message stays in the handle until @s is reset.
 */
static int step_json(sqlite3_stmt *s, int col, char **json)
{
	int rc = sqlite3_step(s);

	*json = NULL;
	if (rc != SQLITE_ROW)
		return rc;
	if (!col_text(s, col) || !(*json = strdup(col_text(s, col))))
		return SQLITE_NOMEM;
	rc = sqlite3_step(s);
	return rc == SQLITE_DONE ? SQLITE_ROW : rc;
}

/* The JSON of object @key from the lookup @s (column @col): 0, -ENOENT or an error. */
static int fetch(struct store *st, sqlite3_stmt *s, int col, enum kind k, const char *key,
		 char **json, struct store_err *err)
{
	int rc = step_json(s, col, json);

	if (rc == SQLITE_ROW)
		rc = 0;
	else if (rc == SQLITE_DONE)
		rc = notfound(k, key, err);
	else
		rc = sqlerr(st, rc, k, key, err);
	sqlite3_reset(s);
	return rc;
}

/* --- the change log and the savepoint around each change ------------------- */

/* Record a change: '+' added @new, '-' deleted @old, '~' turned @old into @new. */
static int log_change(struct store *st, char op, enum kind k, const char *old, const char *new,
		      const char *key, struct store_err *err)
{
	const char *name = op == '+' ? "add" : op == '-' ? "del" : "mod";
	int rc;

	if (old && new && !strcmp(old, new))
		return 0;
	rc = buf_printf(&st->change, "%s{\"op\":\"%s\",\"obj\":\"%s\"",
			st->change.len ? ",\n" : "[", name, kinds[k].obj);
	if (!rc && old)
		rc = buf_printf(&st->change, ",\"old\":%s", old);
	if (!rc && new)
		rc = buf_printf(&st->change, ",\"new\":%s", new);
	if (!rc)
		rc = buf_printf(&st->change, "}");
	if (!rc)
		rc = buf_printf(&st->summary, "%s%c%s %s", st->summary.len ? "\n" : "", op,
				kinds[k].obj, key);
	return rc ? seterr(err, rc, "store: out of memory") : 0;
}

/*
 * Run the change @s (bound by the caller), which returns the object's JSON,
 * and log it as @op ('~' from @old).
 */
static int change(struct store *st, sqlite3_stmt *s, char op, enum kind k, const char *old,
		  const char *key, struct store_err *err)
{
	char *json;
	int rc = step_json(s, 0, &json);

	if (rc == SQLITE_ROW && op == '-')
		rc = log_change(st, op, k, json, NULL, key, err);
	else if (rc == SQLITE_ROW)
		rc = log_change(st, op, k, op == '~' ? old : NULL, json, key, err);
	else if (rc == SQLITE_DONE)
		rc = notfound(k, key, err);
	else
		rc = sqlerr(st, rc, k, key, err);
	free(json);
	sqlite3_reset(s);
	return rc;
}

static int op_begin(struct store *st, struct mark *m, struct store_err *err)
{
	if (sqlite3_get_autocommit(st->db))
		return seterr(err, -EINVAL, "store: changes need a transaction (store_begin)");
	m->change = st->change.len;
	m->summary = st->summary.len;
	return exec(st, use(st, S_SAVEPOINT), err);
}

static int op_end(struct store *st, const struct mark *m, int rc)
{
	if (rc) {
		exec(st, use(st, S_ROLLBACK_TO), NULL);
		buf_cut(&st->change, m->change);
		buf_cut(&st->summary, m->summary);
	}
	exec(st, use(st, S_RELEASE), NULL);
	/* An I/O error or a full disk may have ended the whole transaction. */
	if (sqlite3_get_autocommit(st->db)) {
		buf_cut(&st->change, 0);
		buf_cut(&st->summary, 0);
	}
	return rc;
}

/* --- how each kind of object meets SQL ----------------------------------- */

/*
 * Binding sets every field at its fixed ?N: a statement uses those it names
 * (a lookup only the key), and binding the others fails harmlessly.
 */
static void ni_key(char *buf, size_t n, const void *obj)
{
	const struct st_ni *ni = obj;

	snprintf(buf, n, "%s%s%s%s%s", either(ni->net, "?"), ni->ifname ? " " : "",
		 either(ni->ifname, ""), ni->pattern ? " " : "", either(ni->pattern, ""));
}

static void ni_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_ni *ni = obj;

	bind_text(s, 1, ni->net);
	bind_text(s, 2, ni->ifname);
	bind_text(s, 3, ni->pattern);
	bind_text(s, 4, ni->cpts);
	bind_int(s, 5, ni->peer_timeout);
	bind_int(s, 6, ni->peer_credits);
	bind_int(s, 7, ni->peer_buffer_credits);
	bind_int(s, 8, ni->credits);
}

static void ni_row(sqlite3_stmt *s, struct st_ni *ni)
{
	ni->net = col_text(s, 0);
	ni->ifname = col_text(s, 1);
	ni->pattern = col_text(s, 2);
	ni->cpts = col_text(s, 3);
	ni->peer_timeout = col_int(s, 4);
	ni->peer_credits = col_int(s, 5);
	ni->peer_buffer_credits = col_int(s, 6);
	ni->credits = col_int(s, 7);
}

static int ni_copy(struct st_ni *dst, const struct st_ni *src)
{
	*dst = *src;
	dst->net = dst->ifname = dst->pattern = dst->cpts = NULL;
	if (sdup(&dst->net, src->net) || sdup(&dst->ifname, src->ifname) ||
	    sdup(&dst->pattern, src->pattern) || sdup(&dst->cpts, src->cpts)) {
		st_ni_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static int ni_read(sqlite3_stmt *s, void *obj)
{
	struct st_ni row;

	ni_row(s, &row);
	return ni_copy(obj, &row);
}

static void route_key(char *buf, size_t n, const void *obj)
{
	const struct st_route *r = obj;

	snprintf(buf, n, "%s via %s", either(r->net, "?"), either(r->gateway, "?"));
}

static void route_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_route *r = obj;

	bind_text(s, 1, r->net);
	bind_text(s, 2, r->gateway);
	bind_int(s, 3, r->hops);
	bind_int(s, 4, r->priority);
	bind_int(s, 5, r->sensitivity);
}

static void route_row(sqlite3_stmt *s, struct st_route *r)
{
	r->net = col_text(s, 0);
	r->gateway = col_text(s, 1);
	r->hops = col_int(s, 2);
	r->priority = col_int(s, 3);
	r->sensitivity = col_int(s, 4);
}

static int route_copy(struct st_route *dst, const struct st_route *src)
{
	*dst = *src;
	dst->net = dst->gateway = NULL;
	if (sdup(&dst->net, src->net) || sdup(&dst->gateway, src->gateway)) {
		st_route_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static int route_read(sqlite3_stmt *s, void *obj)
{
	struct st_route row;

	route_row(s, &row);
	return route_copy(obj, &row);
}

static void global_key(char *buf, size_t n, const void *obj)
{
	snprintf(buf, n, "%s", either(((const struct st_global *)obj)->name, "?"));
}

static void global_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_global *g = obj;

	bind_text(s, 1, g->name);
	sqlite3_bind_int64(s, 2, g->value);
}

static int global_read(sqlite3_stmt *s, void *obj)
{
	struct st_global *g = obj;

	g->value = sqlite3_column_int64(s, 0);
	return 0;
}

static void tbf_key(char *buf, size_t n, const void *obj)
{
	snprintf(buf, n, "%s", either(((const struct st_tbf *)obj)->service, "?"));
}

static void tbf_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_tbf *t = obj;

	bind_text(s, 1, t->service);
	bind_text(s, 2, t->reg_type);
	sqlite3_bind_int64(s, 3, t->reg_depth);
	bind_text(s, 4, t->hp_type);
	sqlite3_bind_int64(s, 5, t->hp_depth);
	bind_text(s, 6, t->rules);
}

static void tbf_row(sqlite3_stmt *s, struct st_tbf *t)
{
	t->service = col_text(s, 0);
	t->reg_type = col_text(s, 1);
	t->reg_depth = col_int(s, 2);
	t->hp_type = col_text(s, 3);
	t->hp_depth = col_int(s, 4);
	t->rules = col_text(s, 5);
}

static int tbf_copy(struct st_tbf *dst, const struct st_tbf *src)
{
	*dst = *src;
	dst->service = dst->reg_type = dst->hp_type = dst->rules = NULL;
	if (sdup(&dst->service, src->service) || sdup(&dst->reg_type, src->reg_type) ||
	    sdup(&dst->hp_type, src->hp_type) || sdup(&dst->rules, src->rules)) {
		st_tbf_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static int tbf_read(sqlite3_stmt *s, void *obj)
{
	struct st_tbf row;

	tbf_row(s, &row);
	return tbf_copy(obj, &row);
}

static void rule_key(char *buf, size_t n, const void *obj)
{
	snprintf(buf, n, "%lld", (long long)((const struct st_rule *)obj)->pos);
}

static void rule_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_rule *r = obj;

	sqlite3_bind_int64(s, 1, r->pos);
	bind_text(s, 2, r->src);
	bind_text(s, 3, r->dst);
	bind_text(s, 4, r->rte);
	bind_int(s, 5, r->priority);
}

static void rule_row(sqlite3_stmt *s, struct st_rule *r)
{
	r->pos = sqlite3_column_int64(s, 0);
	r->src = col_text(s, 1);
	r->dst = col_text(s, 2);
	r->rte = col_text(s, 3);
	r->priority = col_int(s, 4);
}

static int rule_copy(struct st_rule *dst, const struct st_rule *src)
{
	*dst = *src;
	dst->src = dst->dst = dst->rte = NULL;
	if (sdup(&dst->src, src->src) || sdup(&dst->dst, src->dst) || sdup(&dst->rte, src->rte)) {
		st_rule_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static int rule_read(sqlite3_stmt *s, void *obj)
{
	struct st_rule row;

	rule_row(s, &row);
	return rule_copy(obj, &row);
}

/* Peers are handled on their own: a peer is rows in two tables. */
static const struct kind_sql {
	enum stmt get; /* the lookup by key */
	int json;      /* its column holding the object's JSON */
	void (*key)(char *buf, size_t n, const void *obj);
	void (*bind)(sqlite3_stmt *s, const void *obj);
	int (*read)(sqlite3_stmt *s, void *obj); /* a copy of the looked-up row */
} kind_sql[] = {
	[K_NI] = {S_NI_GET, 8, ni_key, ni_bind, ni_read},
	[K_ROUTE] = {S_ROUTE_GET, 5, route_key, route_bind, route_read},
	[K_GLOBAL] = {S_GLOBAL_GET, 1, global_key, global_bind, global_read},
	[K_RULE] = {S_RULE_GET, 5, rule_key, rule_bind, rule_read},
	[K_TBF] = {S_TBF_GET, 6, tbf_key, tbf_bind, tbf_read},
};

/*
 * Add ('+'), update ('~') or delete ('-') @obj with statement @id, which
 * returns the object's JSON.  An update fetches the JSON before it first.
 */
static int one(struct store *st, enum kind k, char op, enum stmt id, const void *obj,
	       struct store_err *err)
{
	const struct kind_sql *ks = &kind_sql[k];
	char key[KEY_MAX], *old = NULL;
	sqlite3_stmt *s;
	struct mark m;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	ks->key(key, sizeof(key), obj);
	if (op == '~') {
		s = use(st, ks->get);
		ks->bind(s, obj);
		rc = fetch(st, s, ks->json, k, key, &old, err);
	}
	if (!rc) {
		s = use(st, id);
		ks->bind(s, obj);
		rc = change(st, s, op, k, old, key, err);
	}
	free(old);
	return op_end(st, &m, rc);
}

/* Look up the object keyed by @obj and copy it into @out. */
static int get_one(struct store *st, enum kind k, const void *obj, void *out, struct store_err *err)
{
	const struct kind_sql *ks = &kind_sql[k];
	sqlite3_stmt *s = use(st, ks->get);
	char key[KEY_MAX];
	int rc;

	ks->bind(s, obj);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		rc = ks->read(s, out);
	} else {
		ks->key(key, sizeof(key), obj);
		rc = rc == SQLITE_DONE ? notfound(k, key, err) : sqlerr(st, rc, k, key, err);
	}
	sqlite3_reset(s);
	return rc;
}

/* The end of a listing: the callback's verdict, or the last step's. */
static int list_end(struct store *st, sqlite3_stmt *s, int step, int stop)
{
	int rc = stop ? stop : st_errno(st, step);

	sqlite3_reset(s);
	return rc;
}

/* --- NIs -------------------------------------------------------------------- */

/* An add of @ni hit a UNIQUE: name the NI that holds its interface or pattern. */
static int ni_taken(struct store *st, const struct st_ni *ni, struct store_err *err)
{
	struct st_ni key = {.net = ni->net, .ifname = ni->ifname}, old;
	char name[KEY_MAX];

	if (!ni->ifname || store_ni_get(st, &key, &old, NULL)) {
		key.ifname = NULL;
		key.pattern = ni->pattern;
		if (store_ni_get(st, &key, &old, NULL))
			return seterr(err, -EEXIST, "NI %s exists already", either(ni->net, "?"));
	}
	ni_key(name, sizeof(name), &old);
	st_ni_clear(&old);
	return seterr(err, -EEXIST, "NI %s exists already", name);
}

int store_ni_add(struct store *st, const struct st_ni *ni, struct store_err *err)
{
	int rc = one(st, K_NI, '+', S_NI_ADD, ni, err);

	return rc == -EEXIST ? ni_taken(st, ni, err) : rc;
}

int store_ni_update(struct store *st, const struct st_ni *ni, struct store_err *err)
{
	return one(st, K_NI, '~', S_NI_UPDATE, ni, err);
}

int store_ni_del(struct store *st, const struct st_ni *key, struct store_err *err)
{
	return one(st, K_NI, '-', S_NI_DEL, key, err);
}

int store_ni_get(struct store *st, const struct st_ni *key, struct st_ni *ni, struct store_err *err)
{
	return get_one(st, K_NI, key, ni, err);
}

int store_ni_list(struct store *st, store_ni_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_NI_LIST);
	int step, stop = 0;
	struct st_ni ni;

	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		ni_row(s, &ni);
		stop = cb(&ni, data);
	}
	return list_end(st, s, step, stop);
}

/* --- peers ------------------------------------------------------------------ */

static int peer_json(struct store *st, const char *nid, char **json, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_PEER_JSON);

	bind_text(s, 1, nid);
	return fetch(st, s, 0, K_PEER, either(nid, "?"), json, err);
}

/* Adding @nid to @peer hit a UNIQUE: say who has it. */
static int nid_taken(struct store *st, const char *nid, const char *peer, bool primary,
		     struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_NID_OWNER);
	const char *owner;
	int rc;

	bind_text(s, 1, nid);
	owner = sqlite3_step(s) == SQLITE_ROW ? col_text(s, 0) : NULL;
	if (!owner)
		rc = seterr(err, -EEXIST, "NID %s is taken", nid);
	else if (primary && !strcmp(owner, nid))
		rc = seterr(err, -EEXIST, "peer %s exists already", nid);
	else if (!strcmp(owner, peer))
		rc = seterr(err, -EEXIST, "NID %s belongs to peer %s already", nid, peer);
	else
		rc = seterr(err, -EEXIST, "NID %s belongs to peer %s", nid, owner);
	sqlite3_reset(s);
	return rc;
}

/* Run @s, which puts @nid into @peer (or changes it): a taken NID says who has it. */
static int nid_insert(struct store *st, sqlite3_stmt *s, const char *nid, const char *peer,
		      bool primary, struct store_err *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE)
		rc = 0;
	else if (st_errno(st, rc) == -EEXIST)
		rc = nid_taken(st, nid, peer, primary, err);
	else
		rc = sqlerr(st, rc, K_PEER, either(peer, "?"), err);
	sqlite3_reset(s);
	return rc;
}

int store_peer_add(struct store *st, const struct st_peer *peer, struct store_err *err)
{
	char *json = NULL;
	sqlite3_stmt *s;
	struct mark m;
	size_t i;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	s = use(st, S_PEER_ADD);
	bind_text(s, 1, peer->nid);
	sqlite3_bind_int(s, 2, peer->mr);
	rc = nid_insert(st, s, peer->nid, peer->nid, true, err);
	for (i = 0; !rc && i < peer->nnids; i++) {
		s = use(st, S_PEER_NID_ADD);
		bind_text(s, 1, peer->nid);
		bind_text(s, 2, peer->nids[i]);
		rc = nid_insert(st, s, peer->nids[i], peer->nid, false, err);
	}
	if (!rc)
		rc = peer_json(st, peer->nid, &json, err);
	if (!rc)
		rc = log_change(st, '+', K_PEER, NULL, json, peer->nid, err);
	free(json);
	return op_end(st, &m, rc);
}

/*
 * Change peer @primary with @s (bound by the caller, about @nid): log it
 * under @key, or say @missing if @s changed nothing.
 */
static int peer_change(struct store *st, const char *primary, sqlite3_stmt *s, const char *nid,
		       const char *key, const char *missing, struct store_err *err)
{
	char *old = NULL, *new = NULL;
	struct mark m;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = peer_json(st, primary, &old, err);
	if (!rc)
		rc = nid_insert(st, s, nid, primary, false, err);
	if (!rc && !sqlite3_changes(st->db))
		rc = seterr(err, -ENOENT, "%s", missing);
	if (!rc)
		rc = peer_json(st, primary, &new, err);
	if (!rc)
		rc = log_change(st, '~', K_PEER, old, new, key, err);
	free(old);
	free(new);
	return op_end(st, &m, rc);
}

int store_peer_set_mr(struct store *st, const char *nid, int mr, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_PEER_MR);

	bind_text(s, 1, nid);
	sqlite3_bind_int(s, 2, mr);
	return peer_change(st, nid, s, nid, either(nid, "?"), "", err);
}

int store_peer_nid_add(struct store *st, const char *primary, const char *nid,
		       struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_PEER_NID_ADD);
	char key[KEY_MAX];

	snprintf(key, sizeof(key), "%s +nid %s", either(primary, "?"), either(nid, "?"));
	bind_text(s, 1, primary);
	bind_text(s, 2, nid);
	return peer_change(st, primary, s, nid, key, "", err);
}

int store_peer_nid_del(struct store *st, const char *primary, const char *nid,
		       struct store_err *err)
{
	char key[KEY_MAX], missing[KEY_MAX];
	sqlite3_stmt *s;

	if (primary && nid && !strcmp(primary, nid))
		return seterr(err, -EINVAL, "NID %s is the primary NID of peer %s: delete the peer",
			      nid, primary);
	snprintf(key, sizeof(key), "%s -nid %s", either(primary, "?"), either(nid, "?"));
	snprintf(missing, sizeof(missing), "NID %s is not a NID of peer %s", either(nid, "?"),
		 either(primary, "?"));
	s = use(st, S_PEER_NID_DEL);
	bind_text(s, 1, primary);
	bind_text(s, 2, nid);
	return peer_change(st, primary, s, nid, key, missing, err);
}

int store_peer_del(struct store *st, const char *nid, struct store_err *err)
{
	char *old = NULL;
	sqlite3_stmt *s;
	struct mark m;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = peer_json(st, nid, &old, err);
	if (!rc) {
		s = use(st, S_PEER_DEL);
		bind_text(s, 1, nid);
		rc = dml(st, s, K_PEER, nid, err);
	}
	if (!rc)
		rc = log_change(st, '-', K_PEER, old, NULL, nid, err);
	free(old);
	return op_end(st, &m, rc);
}

static int push_nid(struct st_peer *p, const char *nid)
{
	const char **v = grow(p->nids, p->nnids, sizeof(*p->nids));

	if (!v)
		return -ENOMEM;
	p->nids = v;
	return sdup(&p->nids[p->nnids++], nid);
}

/*
 * Copy the peer on @s's row, with the rows after it that are the same peer
 * (its NIDs, the primary first); *step gets the step that ended it.
 */
static int peer_read(sqlite3_stmt *s, struct st_peer *p, int *step)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->mr = sqlite3_column_int(s, 1);
	rc = sdup(&p->nid, col_text(s, 0));
	do {
		if (!rc && cmp_str(col_text(s, 2), p->nid))
			rc = push_nid(p, col_text(s, 2));
		*step = sqlite3_step(s);
	} while (!rc && *step == SQLITE_ROW && !cmp_str(col_text(s, 0), p->nid));
	return rc;
}

int store_peer_get(struct store *st, const char *nid, struct st_peer *peer, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_PEER_GET);
	int rc, step;

	bind_text(s, 1, nid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		rc = peer_read(s, peer, &step);
		if (!rc && step != SQLITE_DONE)
			rc = sqlerr(st, step, K_PEER, nid, err);
		if (rc)
			st_peer_clear(peer);
	} else {
		rc = step == SQLITE_DONE ? notfound(K_PEER, either(nid, "?"), err)
					 : sqlerr(st, step, K_PEER, either(nid, "?"), err);
	}
	sqlite3_reset(s);
	return rc;
}

int store_peer_list(struct store *st, store_peer_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_PEER_LIST);
	int step = sqlite3_step(s), rc = 0;
	struct st_peer p;

	while (!rc && step == SQLITE_ROW) {
		rc = peer_read(s, &p, &step);
		if (!rc)
			rc = cb(&p, data);
		st_peer_clear(&p);
	}
	if (!rc)
		rc = st_errno(st, step);
	sqlite3_reset(s);
	return rc;
}

/* --- routes ----------------------------------------------------------------- */

int store_route_add(struct store *st, const struct st_route *route, struct store_err *err)
{
	char key[KEY_MAX];
	int rc = one(st, K_ROUTE, '+', S_ROUTE_ADD, route, err);

	route_key(key, sizeof(key), route);
	return rc == -EEXIST ? seterr(err, rc, "route to %s exists already", key) : rc;
}

int store_route_update(struct store *st, const struct st_route *route, struct store_err *err)
{
	return one(st, K_ROUTE, '~', S_ROUTE_UPDATE, route, err);
}

int store_route_del(struct store *st, const char *net, const char *gateway, struct store_err *err)
{
	struct st_route key = {.net = net, .gateway = gateway};

	return one(st, K_ROUTE, '-', S_ROUTE_DEL, &key, err);
}

int store_route_get(struct store *st, const char *net, const char *gateway, struct st_route *route,
		    struct store_err *err)
{
	struct st_route key = {.net = net, .gateway = gateway};

	return get_one(st, K_ROUTE, &key, route, err);
}

int store_route_list(struct store *st, store_route_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_ROUTE_LIST);
	int step, stop = 0;
	struct st_route r;

	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		route_row(s, &r);
		stop = cb(&r, data);
	}
	return list_end(st, s, step, stop);
}

/* --- globals ---------------------------------------------------------------- */

/* Setting the value it has already is a change that logs nothing. */
int store_global_set(struct store *st, const char *name, int64_t value, struct store_err *err)
{
	struct st_global g = {.name = name, .value = value};
	int64_t old;
	int rc = store_global_get(st, name, &old, err);

	if (rc && rc != -ENOENT)
		return rc;
	return one(st, K_GLOBAL, rc ? '+' : '~', S_GLOBAL_SET, &g, err);
}

int store_global_unset(struct store *st, const char *name, struct store_err *err)
{
	struct st_global g = {.name = name};

	return one(st, K_GLOBAL, '-', S_GLOBAL_DEL, &g, err);
}

int store_global_get(struct store *st, const char *name, int64_t *value, struct store_err *err)
{
	struct st_global g = {.name = name};
	int rc = get_one(st, K_GLOBAL, &g, &g, err);

	*value = g.value;
	return rc;
}

int store_global_list(struct store *st, store_global_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_GLOBAL_LIST);
	int step, stop = 0;
	struct st_global g;

	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		g.name = col_text(s, 0);
		g.value = sqlite3_column_int64(s, 1);
		stop = cb(&g, data);
	}
	return list_end(st, s, step, stop);
}

/* --- TBF policies --------------------------------------------------------------- */

int store_tbf_set(struct store *st, const struct st_tbf *tbf, struct store_err *err)
{
	struct st_tbf old = {0};
	int rc = get_one(st, K_TBF, tbf, &old, err);

	if (rc && rc != -ENOENT)
		return rc;
	st_tbf_clear(&old);
	return one(st, K_TBF, rc ? '+' : '~', S_TBF_SET, tbf, err);
}

int store_tbf_del(struct store *st, const char *service, struct store_err *err)
{
	struct st_tbf t = {.service = service};

	return one(st, K_TBF, '-', S_TBF_DEL, &t, err);
}

int store_tbf_get(struct store *st, const char *service, struct st_tbf *tbf, struct store_err *err)
{
	struct st_tbf key = {.service = service};

	memset(tbf, 0, sizeof(*tbf));
	return get_one(st, K_TBF, &key, tbf, err);
}

int store_tbf_list(struct store *st, store_tbf_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_TBF_LIST);
	int step, stop = 0;
	struct st_tbf t;

	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		tbf_row(s, &t);
		stop = cb(&t, data);
	}
	return list_end(st, s, step, stop);
}

/* --- rules ------------------------------------------------------------------ */

static int rule_count(struct store *st, int64_t *n, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_RULE_COUNT);
	int rc = sqlite3_step(s);

	*n = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	rc = rc == SQLITE_ROW ? 0 : sqlerr(st, rc, K_RULE, "count", err);
	sqlite3_reset(s);
	return rc;
}

/* Open (S_RULE_OPEN) or close (S_RULE_CLOSE) the gap at @pos. */
static int rule_shift(struct store *st, enum stmt id, int64_t pos, struct store_err *err)
{
	sqlite3_stmt *s = use(st, id);
	int rc;

	sqlite3_bind_int64(s, 1, pos);
	rc = dml(st, s, K_RULE, "positions", err);
	return rc ? rc : dml(st, use(st, S_RULE_SETTLE), K_RULE, "positions", err);
}

int store_rule_add(struct store *st, const struct st_rule *rule, int64_t *pos,
		   struct store_err *err)
{
	struct st_rule r = *rule;
	struct mark m;
	int64_t n;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = rule_count(st, &n, err);
	if (r.pos < 0 || r.pos > n)
		r.pos = n;
	if (!rc && r.pos < n)
		rc = rule_shift(st, S_RULE_OPEN, r.pos, err);
	if (!rc)
		rc = one(st, K_RULE, '+', S_RULE_ADD, &r, err);
	if (!rc && pos)
		*pos = r.pos;
	return op_end(st, &m, rc);
}

int store_rule_update(struct store *st, const struct st_rule *rule, struct store_err *err)
{
	return one(st, K_RULE, '~', S_RULE_UPDATE, rule, err);
}

int store_rule_del(struct store *st, int64_t pos, struct store_err *err)
{
	struct st_rule key = {.pos = pos};
	struct mark m;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = one(st, K_RULE, '-', S_RULE_DEL, &key, err);
	if (!rc)
		rc = rule_shift(st, S_RULE_CLOSE, pos, err);
	return op_end(st, &m, rc);
}

/* Last first: no rule moves, and undoing the entry adds them back in order. */
int store_rule_del_all(struct store *st, struct store_err *err)
{
	struct mark m;
	int64_t n = 0;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = rule_count(st, &n, err);
	while (!rc && n > 0)
		rc = store_rule_del(st, --n, err);
	return op_end(st, &m, rc);
}

int store_rule_move(struct store *st, int64_t from, int64_t to, struct store_err *err)
{
	struct st_rule r;
	struct mark m;
	int rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = store_rule_get(st, from, &r, err);
	if (rc)
		return op_end(st, &m, rc);
	if (from != to)
		rc = store_rule_del(st, from, err);
	r.pos = to;
	if (!rc && from != to)
		rc = store_rule_add(st, &r, NULL, err);
	st_rule_clear(&r);
	return op_end(st, &m, rc);
}

int store_rule_get(struct store *st, int64_t pos, struct st_rule *rule, struct store_err *err)
{
	struct st_rule key = {.pos = pos};

	return get_one(st, K_RULE, &key, rule, err);
}

int store_rule_list(struct store *st, store_rule_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_RULE_LIST);
	int step, stop = 0;
	struct st_rule r;

	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		rule_row(s, &r);
		stop = cb(&r, data);
	}
	return list_end(st, s, step, stop);
}

/* --- transactions and history ----------------------------------------------- */

int store_begin(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		return -EBUSY;
	buf_cut(&st->change, 0);
	buf_cut(&st->summary, 0);
	return exec(st, use(st, S_BEGIN), NULL);
}

int store_commit(struct store *st, const struct st_who *who, uint64_t *gen, struct store_err *err)
{
	sqlite3_stmt *s;
	int rc = 0;

	if (sqlite3_get_autocommit(st->db))
		return seterr(err, -EINVAL, "store: no transaction is open");
	if (st->change.len) {
		rc = buf_printf(&st->change, "]");
		s = use(st, S_HIST_ADD);
		sqlite3_bind_int64(s, 1, time(NULL));
		sqlite3_bind_int64(s, 2, who ? who->uid : getuid());
		sqlite3_bind_int64(s, 3, who ? who->pid : getpid());
		bind_text(s, 4, who && who->command ? who->command : "");
		bind_text(s, 5, st->summary.s);
		bind_text(s, 6, st->change.s);
		rc = rc ? seterr(err, rc, "store: out of memory") : exec(st, s, err);
	}
	if (!rc)
		rc = exec(st, use(st, S_COMMIT), err);
	if (rc && !sqlite3_get_autocommit(st->db))
		exec(st, use(st, S_ROLLBACK), NULL);
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
	return exec(st, use(st, S_ROLLBACK), NULL);
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

int store_generation(struct store *st, uint64_t *gen)
{
	sqlite3_stmt *s = use(st, S_GENERATION);
	int rc = sqlite3_step(s);

	*gen = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(s, 0) : 0;
	rc = st_errno(st, rc);
	sqlite3_reset(s);
	return rc;
}

static void hist_row(sqlite3_stmt *s, struct st_hist *h)
{
	h->gen = sqlite3_column_int64(s, 0);
	h->time = sqlite3_column_int64(s, 1);
	h->uid = sqlite3_column_int64(s, 2);
	h->pid = sqlite3_column_int64(s, 3);
	h->command = col_text(s, 4);
	h->summary = col_text(s, 5);
	h->change = sqlite3_column_count(s) > 6 ? col_text(s, 6) : NULL;
}

int store_history_list(struct store *st, int64_t limit, store_hist_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_HIST_LIST);
	int step, stop = 0;
	struct st_hist h;

	sqlite3_bind_int64(s, 1, limit > 0 ? limit : -1);
	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		hist_row(s, &h);
		stop = cb(&h, data);
	}
	return list_end(st, s, step, stop);
}

int store_history_get(struct store *st, uint64_t gen, struct st_hist *hist, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_HIST_GET);
	struct st_hist row;
	int rc;

	sqlite3_bind_int64(s, 1, (int64_t)gen);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		hist_row(s, &row);
		*hist = row;
		hist->command = hist->summary = hist->change = NULL;
		rc = 0;
		if (sdup(&hist->command, row.command) || sdup(&hist->summary, row.summary) ||
		    sdup(&hist->change, row.change)) {
			st_hist_clear(hist);
			rc = -ENOMEM;
		}
	} else if (rc == SQLITE_DONE) {
		rc = seterr(err, -ENOENT, "no generation %llu in the history",
			    (unsigned long long)gen);
	} else {
		rc = seterr(err, st_errno(st, rc), "store: %s", sqlite3_errmsg(st->db));
	}
	sqlite3_reset(s);
	return rc;
}

/* --- the whole state ----------------------------------------------------------- */

/* Append a copy of @obj to the array *@v of *@n elements. */
#define KEEP(v, n, obj, copy)                        \
	do {                                         \
		void *v_ = grow(v, n, sizeof(*(v))); \
		if (!v_)                             \
			return -ENOMEM;              \
		(v) = v_;                            \
		memset(&(v)[n], 0, sizeof(*(v)));    \
		return copy(&(v)[(n)++], obj);       \
	} while (0)

static int peer_copy(struct st_peer *dst, const struct st_peer *src)
{
	size_t i;
	int rc;

	memset(dst, 0, sizeof(*dst));
	dst->mr = src->mr;
	rc = sdup(&dst->nid, src->nid);
	for (i = 0; !rc && i < src->nnids; i++)
		rc = push_nid(dst, src->nids[i]);
	if (rc)
		st_peer_clear(dst);
	return rc;
}

static int global_copy(struct st_global *dst, const struct st_global *src)
{
	dst->value = src->value;
	return sdup(&dst->name, src->name);
}

static int keep_ni(const struct st_ni *ni, void *data)
{
	struct st_state *s = data;

	KEEP(s->ni, s->n_ni, ni, ni_copy);
}

static int keep_peer(const struct st_peer *peer, void *data)
{
	struct st_state *s = data;

	KEEP(s->peer, s->n_peer, peer, peer_copy);
}

static int keep_route(const struct st_route *route, void *data)
{
	struct st_state *s = data;

	KEEP(s->route, s->n_route, route, route_copy);
}

static int keep_global(const struct st_global *global, void *data)
{
	struct st_state *s = data;

	KEEP(s->global, s->n_global, global, global_copy);
}

static int keep_rule(const struct st_rule *rule, void *data)
{
	struct st_state *s = data;

	KEEP(s->rule, s->n_rule, rule, rule_copy);
}

static int keep_tbf(const struct st_tbf *tbf, void *data)
{
	struct st_state *s = data;

	KEEP(s->tbf, s->n_tbf, tbf, tbf_copy);
}

int store_state_get(struct store *st, struct st_state *state)
{
	bool snapshot = sqlite3_get_autocommit(st->db);
	int rc = snapshot ? exec(st, use(st, S_BEGIN_READ), NULL) : 0;

	memset(state, 0, sizeof(*state));
	if (!rc)
		rc = store_ni_list(st, keep_ni, state);
	if (!rc)
		rc = store_peer_list(st, keep_peer, state);
	if (!rc)
		rc = store_route_list(st, keep_route, state);
	if (!rc)
		rc = store_global_list(st, keep_global, state);
	if (!rc)
		rc = store_rule_list(st, keep_rule, state);
	if (!rc)
		rc = store_tbf_list(st, keep_tbf, state);
	if (snapshot && !sqlite3_get_autocommit(st->db))
		exec(st, use(st, S_COMMIT), NULL);
	if (rc)
		st_state_clear(state);
	return rc;
}

/* How store_state_replace() compares, deletes and adds objects of one kind. */
struct kind_ops {
	size_t size;
	int (*cmp)(const void *a, const void *b); /* on pointers to objects, for qsort */
	int (*del)(struct store *st, const void *obj, struct store_err *err);
	int (*add)(struct store *st, const void *obj, struct store_err *err);
};

#define OBJS(type, x, y) const type *a = *(const type *const *)(x), *b = *(const type *const *)(y)

static int ni_cmp(const void *x, const void *y)
{
	OBJS(struct st_ni, x, y);
	int c = cmp_str(a->net, b->net);

	c = c ? c : cmp_str(a->ifname, b->ifname);
	c = c ? c : cmp_str(a->pattern, b->pattern);
	c = c ? c : cmp_str(a->cpts, b->cpts);
	c = c ? c : cmp_int(a->peer_timeout, b->peer_timeout);
	c = c ? c : cmp_int(a->peer_credits, b->peer_credits);
	c = c ? c : cmp_int(a->peer_buffer_credits, b->peer_buffer_credits);
	return c ? c : cmp_int(a->credits, b->credits);
}

static int peer_cmp(const void *x, const void *y)
{
	OBJS(struct st_peer, x, y);
	int c = cmp_str(a->nid, b->nid);
	size_t i;

	c = c ? c : cmp_int(a->mr, b->mr);
	c = c ? c : cmp_int(a->nnids, b->nnids);
	for (i = 0; !c && i < a->nnids; i++)
		c = cmp_str(a->nids[i], b->nids[i]);
	return c;
}

static int route_cmp(const void *x, const void *y)
{
	OBJS(struct st_route, x, y);
	int c = cmp_str(a->net, b->net);

	c = c ? c : cmp_str(a->gateway, b->gateway);
	c = c ? c : cmp_int(a->hops, b->hops);
	c = c ? c : cmp_int(a->priority, b->priority);
	return c ? c : cmp_int(a->sensitivity, b->sensitivity);
}

static int global_cmp(const void *x, const void *y)
{
	OBJS(struct st_global, x, y);
	int c = cmp_str(a->name, b->name);

	return c ? c : cmp_int(a->value, b->value);
}

static int tbf_cmp(const void *x, const void *y)
{
	OBJS(struct st_tbf, x, y);
	int c = cmp_str(a->service, b->service);

	c = c ? c : cmp_str(a->reg_type, b->reg_type);
	c = c ? c : cmp_str(a->hp_type, b->hp_type);
	c = c ? c : cmp_int(a->reg_depth, b->reg_depth);
	c = c ? c : cmp_int(a->hp_depth, b->hp_depth);
	return c ? c : cmp_str(a->rules, b->rules);
}

static bool rule_same(const struct st_rule *a, const struct st_rule *b)
{
	return !cmp_str(a->src, b->src) && !cmp_str(a->dst, b->dst) && !cmp_str(a->rte, b->rte) &&
	       a->priority == b->priority;
}

static int ni_del_(struct store *st, const void *o, struct store_err *err)
{
	return store_ni_del(st, o, err);
}

static int ni_add_(struct store *st, const void *o, struct store_err *err)
{
	return store_ni_add(st, o, err);
}

static int peer_del_(struct store *st, const void *o, struct store_err *err)
{
	return store_peer_del(st, ((const struct st_peer *)o)->nid, err);
}

static int peer_add_(struct store *st, const void *o, struct store_err *err)
{
	return store_peer_add(st, o, err);
}

static int route_del_(struct store *st, const void *o, struct store_err *err)
{
	const struct st_route *r = o;

	return store_route_del(st, r->net, r->gateway, err);
}

static int route_add_(struct store *st, const void *o, struct store_err *err)
{
	return store_route_add(st, o, err);
}

static int global_del_(struct store *st, const void *o, struct store_err *err)
{
	return store_global_unset(st, ((const struct st_global *)o)->name, err);
}

static int global_add_(struct store *st, const void *o, struct store_err *err)
{
	const struct st_global *g = o;

	return store_global_set(st, g->name, g->value, err);
}

static int tbf_del_(struct store *st, const void *o, struct store_err *err)
{
	return store_tbf_del(st, ((const struct st_tbf *)o)->service, err);
}

static int tbf_add_(struct store *st, const void *o, struct store_err *err)
{
	return store_tbf_set(st, o, err);
}

static const void **sorted(const void *v, size_t n, const struct kind_ops *k)
{
	const void **p = calloc(n + 1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = (const char *)v + i * k->size;
	qsort(p, n, sizeof(*p), k->cmp);
	return p;
}

/* Delete what only @cur has (!@adding), or add what only @want has (@adding). */
static int sync_kind(struct store *st, const struct kind_ops *k, const void *cur, size_t ncur,
		     const void *want, size_t nwant, bool adding, struct store_err *err)
{
	const void **a = sorted(cur, ncur, k), **b = sorted(want, nwant, k);
	size_t i = 0, j = 0;
	int c, rc = a && b ? 0 : seterr(err, -ENOMEM, "store: out of memory");

	while (!rc && (i < ncur || j < nwant)) {
		c = i == ncur ? 1 : j == nwant ? -1 : k->cmp(&a[i], &b[j]);
		if (c < 0 && !adding)
			rc = k->del(st, a[i], err);
		if (c > 0 && adding)
			rc = k->add(st, b[j], err);
		i += c <= 0;
		j += c >= 0;
	}
	free(a);
	free(b);
	return rc;
}

/*
 * Deletes first, then adds, so that an object that changed (deleted, then
 * added back) never meets its old self in a UNIQUE.  Rules keep their
 * common prefix; the rest are deleted from the end and added in order.
 */
int store_state_replace(struct store *st, const struct st_state *want, struct store_err *err)
{
	static const struct kind_ops ni_ops = {sizeof(struct st_ni), ni_cmp, ni_del_, ni_add_},
				     peer_ops = {sizeof(struct st_peer), peer_cmp, peer_del_,
						 peer_add_},
				     route_ops = {sizeof(struct st_route), route_cmp, route_del_,
						  route_add_},
				     global_ops = {sizeof(struct st_global), global_cmp,
						   global_del_, global_add_},
				     tbf_ops = {sizeof(struct st_tbf), tbf_cmp, tbf_del_, tbf_add_};
	struct st_state cur;
	struct st_rule r;
	size_t i, same = 0;
	struct mark m;
	int pass, rc = op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = store_state_get(st, &cur);
	if (rc)
		return op_end(st, &m, seterr(err, rc, "store: reading the state failed"));
	for (pass = 0; !rc && pass < 2; pass++) {
		rc = sync_kind(st, &ni_ops, cur.ni, cur.n_ni, want->ni, want->n_ni, pass, err);
		if (!rc)
			rc = sync_kind(st, &peer_ops, cur.peer, cur.n_peer, want->peer,
				       want->n_peer, pass, err);
		if (!rc)
			rc = sync_kind(st, &route_ops, cur.route, cur.n_route, want->route,
				       want->n_route, pass, err);
		if (!rc)
			rc = sync_kind(st, &global_ops, cur.global, cur.n_global, want->global,
				       want->n_global, pass, err);
		if (!rc)
			rc = sync_kind(st, &tbf_ops, cur.tbf, cur.n_tbf, want->tbf, want->n_tbf,
				       pass, err);
	}
	while (same < cur.n_rule && same < want->n_rule &&
	       rule_same(&cur.rule[same], &want->rule[same]))
		same++;
	for (i = cur.n_rule; !rc && i-- > same;)
		rc = store_rule_del(st, i, err);
	for (i = same; !rc && i < want->n_rule; i++) {
		r = want->rule[i];
		r.pos = i;
		rc = store_rule_add(st, &r, NULL, err);
	}
	st_state_clear(&cur);
	return op_end(st, &m, rc);
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
		return seterr(err, st_errno(st, rc),
			      "%s is not an SQLite database (%s); " START_OVER, path,
			      sqlite3_errmsg(st->db), path, path);
	if ((rc & 0xff) == SQLITE_CORRUPT)
		return seterr(err, st_errno(st, rc),
			      "%s is damaged (%s): restore it from a backup, or, " START_OVER, path,
			      sqlite3_errmsg(st->db), path, path);
	return seterr(err, st_errno(st, rc), "%s: %s: %s", path, what, sqlite3_errmsg(st->db));
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
		return seterr(err, -e,
			      "%s: cannot open it for reading and writing: %s; fix its owner and "
			      "mode, or, " START_OVER,
			      path, strerror(e), path, path);
	}
	if (fstat(fd, &sb)) {
		e = errno;
		seterr(err, -e, "%s: %s", path, strerror(e));
	} else if (!S_ISREG(sb.st_mode)) {
		e = EBADMSG;
		seterr(err, -e, "%s is not a regular file; " START_OVER, path, path, path);
	} else if (sb.st_size == 0) {
		e = EBADMSG;
		seterr(err, -e, "%s is empty (0 bytes): it is not a store lnetd wrote; " START_OVER,
		       path, path, path);
	} else {
		n = pread(fd, head, sizeof(head), 0);
		if (n < 0) {
			e = errno;
			seterr(err, -e, "%s: cannot read it: %s", path, strerror(e));
		} else if (n != sizeof(head) || memcmp(head, magic, sizeof(magic))) {
			e = EBADMSG;
			seterr(err, -e, "%s is not an SQLite database; " START_OVER, path, path,
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
			return seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
		if (!stat(p, &sb) && sb.st_size > 0)
			return seterr(
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
		return seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
	if (unlink(p) && errno != ENOENT)
		return seterr(err, -errno, "%s: cannot remove it: %s", p, strerror(errno));
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
		return seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
	fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		rc = seterr(err, -errno, "%s: cannot flush it: %s", d, strerror(errno));
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
		return seterr(err, -ENAMETOOLONG, "%s: the name is too long", path);
	for (i = 0; !rc && i < sizeof(leftovers) / sizeof(leftovers[0]); i++)
		rc = unlink_if_there(tmp, leftovers[i], err);
	if (rc)
		return rc;
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || fchmod(fd, 0600))
		rc = seterr(err, -errno, "%s: cannot create it: %s", tmp, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (rc)
		goto out;
	/* Setting WAL writes the first page: the file is a database from now on. */
	rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = query(db, "PRAGMA journal_mode = WAL", NULL, mode, sizeof(mode));
	if (rc != SQLITE_OK || strcmp(mode, "wal")) {
		rc = seterr(err, -EIO, "%s: cannot make a new store: %s", tmp,
			    rc != SQLITE_OK ? (db ? sqlite3_errmsg(db) : "out of memory")
					    : "SQLite refuses WAL journal mode");
		sqlite3_close(db);
		goto out;
	}
	if (sqlite3_close(db) != SQLITE_OK)
		rc = seterr(err, -EIO, "%s: cannot make a new store: closing failed", tmp);
	else if (stat(tmp, &sb) || sb.st_size == 0)
		rc = seterr(err, -EIO, "%s: SQLite wrote nothing into it", tmp);
	else if (link(tmp, path))
		rc = seterr(err, -errno, "%s: cannot put the new store in place: %s", path,
			    strerror(errno));
	if (!rc)
		rc = sync_dir(path, err);
out:
	if (unlink(tmp) && errno != ENOENT && !rc)
		rc = seterr(err, -errno, "%s: cannot remove it: %s", tmp, strerror(errno));
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
		return seterr(err, -ENOTSUP,
			      "%s: schema version %lld is newer than this lnetd knows (%d): "
			      "run a newer lnetd, or move the file away",
			      path, (long long)v, latest);
	rc = query(st->db, "PRAGMA journal_mode = WAL", NULL, mode, sizeof(mode));
	if (rc)
		return open_err(st, rc, path, "setting WAL mode", err);
	if (strcmp(mode, "wal"))
		return seterr(err, -EINVAL, "%s: cannot use WAL journal mode (journal mode is %s)",
			      path, mode);
	/*
	 * A change is one transaction, held until it commits or rolls back: with
	 * the default 2,000-page cache a large one (a site import, or a dry run
	 * of it) spills to the WAL page by page, rewriting the same pages as it
	 * grows.  64 MiB holds what a change can carry (see LNETD_*_MAX).  And
	 * each statement's journal (kept so one statement can be undone inside
	 * the change) stays in memory: on disk it was 700,000 writes to
	 * /var/tmp for a 40,000-peer dry run.
	 */
	rc = sqlite3_exec(st->db,
			  "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
			  "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY",
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
		return seterr(err, -ENOMEM, "store: out of memory");
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
			    : seterr(err, -ENOMEM, "store: out of memory");
		store_close(st);
		return rc;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_MS);
	rc = migrate(st, path, err);
	for (i = 0; !rc && i < S__COUNT; i++) {
		rc = sqlite3_prepare_v3(st->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
					NULL);
		if (rc)
			rc = open_err(st, rc, path, sql[i], err);
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

/* --- freeing ------------------------------------------------------------------ */

void st_ni_clear(struct st_ni *ni)
{
	free((char *)ni->net);
	free((char *)ni->ifname);
	free((char *)ni->pattern);
	free((char *)ni->cpts);
	ni->net = ni->ifname = ni->pattern = ni->cpts = NULL;
}

void st_peer_clear(struct st_peer *peer)
{
	size_t i;

	for (i = 0; i < peer->nnids; i++)
		free((char *)peer->nids[i]);
	free(peer->nids);
	free((char *)peer->nid);
	peer->nid = NULL;
	peer->nids = NULL;
	peer->nnids = 0;
}

void st_route_clear(struct st_route *route)
{
	free((char *)route->net);
	free((char *)route->gateway);
	route->net = route->gateway = NULL;
}

void st_global_clear(struct st_global *global)
{
	free((char *)global->name);
	global->name = NULL;
}

void st_rule_clear(struct st_rule *rule)
{
	free((char *)rule->src);
	free((char *)rule->dst);
	free((char *)rule->rte);
	rule->src = rule->dst = rule->rte = NULL;
}

void st_tbf_clear(struct st_tbf *tbf)
{
	free((char *)tbf->service);
	free((char *)tbf->reg_type);
	free((char *)tbf->hp_type);
	free((char *)tbf->rules);
	tbf->service = tbf->reg_type = tbf->hp_type = tbf->rules = NULL;
}

void st_hist_clear(struct st_hist *hist)
{
	free((char *)hist->command);
	free((char *)hist->summary);
	free((char *)hist->change);
	hist->command = hist->summary = hist->change = NULL;
}

void st_state_clear(struct st_state *state)
{
	size_t i;

	for (i = 0; i < state->n_ni; i++)
		st_ni_clear(&state->ni[i]);
	for (i = 0; i < state->n_peer; i++)
		st_peer_clear(&state->peer[i]);
	for (i = 0; i < state->n_route; i++)
		st_route_clear(&state->route[i]);
	for (i = 0; i < state->n_global; i++)
		st_global_clear(&state->global[i]);
	for (i = 0; i < state->n_rule; i++)
		st_rule_clear(&state->rule[i]);
	for (i = 0; i < state->n_tbf; i++)
		st_tbf_clear(&state->tbf[i]);
	free(state->tbf);
	free(state->ni);
	free(state->peer);
	free(state->route);
	free(state->global);
	free(state->rule);
	memset(state, 0, sizeof(*state));
}

/* --- undo -------------------------------------------------------------------- */

struct undo_step {
	char op[4], obj[8];
	char *json; /* the object to put back (add: the one to delete) */
};

enum {
	U_NET,
	U_IFNAME,
	U_PATTERN,
	U_CPTS,
	U_PT,
	U_PC,
	U_PBC,
	U_CR,
	U_NID,
	U_MR,
	U_GW,
	U_HOPS,
	U_PRIO,
	U_SENS,
	U_NAME,
	U_VALUE,
	U_POS,
	U_SRC,
	U_DST,
	U_RTE,
	U_SERVICE,
	U_REG_TYPE,
	U_REG_DEPTH,
	U_HP_TYPE,
	U_HP_DEPTH,
	U_RULES,
	U__COUNT
};

/* Every field an object of any kind may have, copied out of its JSON. */
struct undo_obj {
	char *text[U__COUNT];
	int64_t num[U__COUNT];
	const char **nids;
	size_t nnids;
};

static void undo_obj_clear(struct undo_obj *o)
{
	size_t i;

	for (i = 0; i < U__COUNT; i++)
		free(o->text[i]);
	for (i = 0; i < o->nnids; i++)
		free((char *)o->nids[i]);
	free(o->nids);
	memset(o, 0, sizeof(*o));
}

static int undo_obj_read(struct store *st, const char *json, struct undo_obj *o)
{
	sqlite3_stmt *s = use(st, S_JSON_FIELDS);
	int rc, i;

	memset(o, 0, sizeof(*o));
	bind_text(s, 1, json);
	rc = sqlite3_step(s);
	for (i = 0; rc == SQLITE_ROW && i < U__COUNT; i++) {
		o->num[i] = col_int(s, i);
		if (col_text(s, i) && !(o->text[i] = strdup(col_text(s, i))))
			rc = SQLITE_NOMEM;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW) {
		undo_obj_clear(o);
		return st_errno(st, rc);
	}
	s = use(st, S_JSON_NIDS);
	bind_text(s, 1, json);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char **grown = grow(o->nids, o->nnids, sizeof(*o->nids));

		if (!grown || !(grown[o->nnids] = strdup(col_text(s, 0) ?: ""))) {
			if (grown)
				o->nids = grown;
			rc = SQLITE_NOMEM;
			break;
		}
		o->nids = grown;
		o->nnids++;
	}
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return 0;
	/* Whatever was read so far goes: the caller has nothing to clear on failure. */
	undo_obj_clear(o);
	return st_errno(st, rc);
}

/* Do the inverse of one recorded change. */
static int undo_one(struct store *st, const struct undo_step *u, struct store_err *err)
{
	bool add = !strcmp(u->op, "add"), del = !strcmp(u->op, "del");
	struct undo_obj o;
	int rc = undo_obj_read(st, u->json, &o);

	if (rc)
		return seterr(err, rc, "store: cannot read back the change to undo");
	if (!strcmp(u->obj, "ni")) {
		struct st_ni ni = {.net = o.text[U_NET],
				   .ifname = o.text[U_IFNAME],
				   .pattern = o.text[U_PATTERN],
				   .cpts = o.text[U_CPTS],
				   .peer_timeout = o.num[U_PT],
				   .peer_credits = o.num[U_PC],
				   .peer_buffer_credits = o.num[U_PBC],
				   .credits = o.num[U_CR]};

		rc = add   ? store_ni_del(st, &ni, err)
		     : del ? store_ni_add(st, &ni, err)
			   : store_ni_update(st, &ni, err);
	} else if (!strcmp(u->obj, "peer")) {
		struct st_peer p = {.nid = o.text[U_NID],
				    .mr = (int)o.num[U_MR],
				    .nnids = o.nnids,
				    .nids = o.nids};

		/* A modified peer goes back whole: its NIDs in their old order. */
		rc = del ? 0 : store_peer_del(st, p.nid, err);
		if (!rc && !add)
			rc = store_peer_add(st, &p, err);
	} else if (!strcmp(u->obj, "route")) {
		struct st_route r = {.net = o.text[U_NET],
				     .gateway = o.text[U_GW],
				     .hops = o.num[U_HOPS],
				     .priority = o.num[U_PRIO],
				     .sensitivity = o.num[U_SENS]};

		rc = add   ? store_route_del(st, r.net, r.gateway, err)
		     : del ? store_route_add(st, &r, err)
			   : store_route_update(st, &r, err);
	} else if (!strcmp(u->obj, "global")) {
		rc = add ? store_global_unset(st, o.text[U_NAME], err)
			 : store_global_set(st, o.text[U_NAME], o.num[U_VALUE], err);
	} else if (!strcmp(u->obj, "rule")) {
		struct st_rule r = {.pos = o.num[U_POS],
				    .src = o.text[U_SRC],
				    .dst = o.text[U_DST],
				    .rte = o.text[U_RTE],
				    .priority = o.num[U_PRIO]};
		int64_t pos;

		rc = add   ? store_rule_del(st, r.pos, err)
		     : del ? store_rule_add(st, &r, &pos, err)
			   : store_rule_update(st, &r, err);
	} else if (!strcmp(u->obj, "tbf")) {
		struct st_tbf t = {.service = o.text[U_SERVICE],
				   .reg_type = o.text[U_REG_TYPE],
				   .reg_depth = o.num[U_REG_DEPTH],
				   .hp_type = o.text[U_HP_TYPE],
				   .hp_depth = o.num[U_HP_DEPTH],
				   .rules = o.text[U_RULES]};

		rc = add ? store_tbf_del(st, t.service, err) : store_tbf_set(st, &t, err);
	} else {
		rc = seterr(err, -EINVAL, "store: a recorded change of an unknown kind '%s'",
			    u->obj);
	}
	undo_obj_clear(&o);
	return rc;
}

int store_undo_after(struct store *st, uint64_t gen, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_UNDO_LIST);
	struct undo_step *steps = NULL;
	struct st_state target = {0};
	size_t n = 0, i;
	bool begun;
	struct mark m;
	uint64_t now;
	int rc;

	rc = store_generation(st, &now);
	if (rc)
		return rc;
	if (gen > now)
		return seterr(err, -ENOENT, "generation %llu is in the future (the latest is %llu)",
			      (unsigned long long)gen, (unsigned long long)now);
	/* Read every step first: the undo writes while the list would still be open. */
	sqlite3_bind_int64(s, 1, (sqlite3_int64)gen);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct undo_step *grown = grow(steps, n, sizeof(*steps));

		if (!grown) {
			rc = SQLITE_NOMEM;
			break;
		}
		steps = grown;
		memset(&steps[n], 0, sizeof(steps[n]));
		snprintf(steps[n].op, sizeof(steps[n].op), "%s", col_text(s, 0) ?: "");
		snprintf(steps[n].obj, sizeof(steps[n].obj), "%s", col_text(s, 1) ?: "");
		steps[n].json = strdup(col_text(s, 2) ?: "{}");
		if (!steps[n++].json) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_reset(s);
	rc = rc == SQLITE_DONE ? 0
			       : seterr(err, st_errno(st, rc), "store: %s", sqlite3_errmsg(st->db));
	/*
	 * Walk the history back to find the state of @gen, then record only how
	 * it differs from now: a rollback undoing earlier rollbacks would
	 * otherwise record every step again, and grow without end.
	 */
	begun = !rc && !(rc = op_begin(st, &m, err));
	for (i = 0; !rc && i < n; i++)
		rc = undo_one(st, &steps[i], err);
	if (!rc)
		rc = store_state_get(st, &target);
	if (begun)
		op_end(st, &m, rc ? rc : -ECANCELED);
	if (!rc)
		rc = store_state_replace(st, &target, err);
	st_state_clear(&target);
	for (i = 0; i < n; i++)
		free(steps[i].json);
	free(steps);
	return rc;
}
