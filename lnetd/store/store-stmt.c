// SPDX-License-Identifier: GPL-2.0
/*
 * store-stmt.c - the store's SQL: every statement in one table indexed by
 * enum stmt (store-int.h), which store_open() prepares and store_close()
 * finalizes; the names of the kinds of object; and the helpers that step a
 * statement and turn what SQLite says into a negative errno and a sentence.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-int.h"

#define SHIFT "4294967296"

/* An NI's columns: four of its own, then one per tunable (engine/tunables.h). */
#define TUN_COL(id, name, ...)	 ", " #name
#define TUN_PARAM(id, name, ...) ", ?"
#define TUN_SET(id, name, ...)	 ", " #name " = ?"
#define TUN_JSON(id, name, ...)	 ", '" #name "', " #name
#define TUN_FIELD(id, name, ...) "json_extract(?1, '$." #name "'), "
#define NI_COLS			 "net, ifname, pattern, cpts" LNE_TUNABLES(TUN_COL)
#define NI_JSON                                                                                              \
	"json_object('id', id, 'net', net, 'ifname', ifname, 'pattern', pattern, 'cpts', cpts" LNE_TUNABLES( \
		TUN_JSON) ")"
#define NI_KEY                                                                                         \
	"net = ?1 AND CASE WHEN ?2 IS NOT NULL THEN ifname = ?2 ELSE ifname IS NULL AND pattern = ?3 " \
	"END"
/* A route's columns: its key, then one per setting (engine/route-attrs.h). */
#define RT_COL(id, name, ...)					     ", " #name
#define RT_PARAM(id, name, ...)					     ", ?"
#define RT_SET(id, name, ...)					     ", " #name " = ?"
#define RT_JSON(id, name, ...)					     ", '" #name "', " #name
#define RT_FIELD(id, name, ...)					     "json_extract(?1, '$." #name "'), "
#define ROUTE_COLS						     "net, gateway" LNE_ROUTE_ATTRS(RT_COL)
#define ROUTE_JSON						     "json_object('net', net, 'gateway', gateway" LNE_ROUTE_ATTRS(RT_JSON) ")"
#define ROUTE_KEY						     "net = ?1 AND gateway = ?2"
/* A peer's columns: its key and its other NIDs, then one per setting (engine/peer-attrs.h). */
#define PEER_COL(id, name, yaml, option, neg, def, engine, col, ...) ", " #col
#define PEER_PARAM(id, ...)					     ", ?"
#define PEER_SET(id, name, yaml, option, neg, def, engine, col, ...) ", " #col " = ?"
#define PEER_FIELD(id, name, yaml, option, neg, def, engine, col, ...) \
	"json_extract(?1, '$." #col "'), "
#define PEER_COLS   "nid, nids" LNE_PEER_ATTRS(PEER_COL)
#define GLOBAL_JSON "json_object('name', name, 'value', value)"
#define TBF_COLS    "service, reg_type, reg_depth, hp_type, hp_depth, rules"
#define TBF_JSON                                                                         \
	"json_object('service', service, 'reg_type', reg_type, 'reg_depth', reg_depth, " \
	"'hp_type', hp_type, 'hp_depth', hp_depth, 'rules', rules)"
/* A rule's columns: its position, then one per field (engine/rule-attrs.h). */
#define RULE_COL(id, name, ...)	  ", " #name
#define RULE_PARAM(id, name, ...) ", ?"
#define RULE_SET(id, name, ...)	  ", " #name " = ?"
#define RULE_JSON_(id, name, ...) ", '" #name "', " #name
#define RULE_FIELD(id, name, ...) "json_extract(?1, '$." #name "'), "
#define RULE_COLS		  "pos" LNE_RULE_ATTRS(RULE_COL)
#define RULE_JSON		  "json_object('pos', pos" LNE_RULE_ATTRS(RULE_JSON_) ")"

const char *const st_sql[S__COUNT] = {
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
	/* The retention: past the newest ?1 entries or older than ?2, never the newest. */
	[S_HIST_PRUNE] = "DELETE FROM history WHERE gen < (SELECT max(gen) FROM history) AND "
			 "(gen <= (SELECT max(gen) FROM history) - ?1 OR time < ?2)",
	/* The oldest generation the history can return to: the one before its first entry. */
	[S_HIST_OLDEST] = "SELECT coalesce(min(gen), 1) - 1 FROM history",
	/* A bare ? is numbered after the highest before it: the tunables are ?5, ?6, ... */
	/* The row's id is :id, named (it follows the tunables); none (0): SQLite's next. */
	[S_NI_ADD] = "INSERT INTO ni (" NI_COLS ", id) VALUES (?1, ?2, ?3, ?4" LNE_TUNABLES(
		TUN_PARAM) ", nullif(:id, 0)) RETURNING " NI_JSON,
	[S_NI_GET] = "SELECT " NI_COLS ", id, " NI_JSON " FROM ni WHERE " NI_KEY,
	[S_NI_UPDATE] = "UPDATE ni SET cpts = ?4" LNE_TUNABLES(TUN_SET) " WHERE " NI_KEY
									" RETURNING " NI_JSON,
	[S_NI_DEL] = "DELETE FROM ni WHERE " NI_KEY " RETURNING " NI_JSON,
	/* In the order they were added, as Lustre lists them. */
	[S_NI_LIST] = "SELECT " NI_COLS ", id FROM ni ORDER BY id",
	/* A peer is one row (schema 0006): nids is its other NIDs, "NID NID ". */
	/* The settings are ?3, ?4, ...: the columns' order */
	[S_PEER_ADD] = "INSERT INTO peer (" PEER_COLS
		       ") VALUES (?1, ?2" LNE_PEER_ATTRS(PEER_PARAM) ")",
	[S_PEER_SET] = "UPDATE peer SET nids = ?2" LNE_PEER_ATTRS(PEER_SET) " WHERE nid = ?1",
	[S_PEER_DEL] = "DELETE FROM peer WHERE nid = ?1",
	[S_PEER_GET] = "SELECT " PEER_COLS " FROM peer WHERE nid = ?1",
	[S_PEER_LIST] = "SELECT " PEER_COLS " FROM peer ORDER BY nid",
	/* schema 0007: the locked peers, by their partial index */
	[S_PEER_LOCKED] = "SELECT nid FROM peer WHERE locked = 1 ORDER BY nid",
	[S_JSON_QUOTE] = "SELECT json_quote(?1)",
	[S_ROUTE_ADD] = "INSERT INTO route (" ROUTE_COLS
			") VALUES (?1, ?2" LNE_ROUTE_ATTRS(RT_PARAM) ") RETURNING " ROUTE_JSON,
	[S_ROUTE_GET] = "SELECT " ROUTE_COLS ", " ROUTE_JSON " FROM route WHERE " ROUTE_KEY,
	/* gateway = ?2 changes nothing (the key says so): it numbers the settings ?3, ... */
	[S_ROUTE_UPDATE] = "UPDATE route SET gateway = ?2" LNE_ROUTE_ATTRS(
		RT_SET) " WHERE " ROUTE_KEY " RETURNING " ROUTE_JSON,
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
	[S_RULE_ADD] = "INSERT INTO rule (" RULE_COLS
		       ") VALUES (?1" LNE_RULE_ATTRS(RULE_PARAM) ") RETURNING " RULE_JSON,
	[S_RULE_GET] = "SELECT " RULE_COLS ", " RULE_JSON " FROM rule WHERE pos = ?1",
	[S_RULE_UPDATE] = "UPDATE rule SET pos = ?1" LNE_RULE_ATTRS(
		RULE_SET) " WHERE pos = ?1 RETURNING " RULE_JSON,
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
		"json_extract(?1, '$.pattern'), json_extract(?1, '$.cpts'), " LNE_TUNABLES(
			TUN_FIELD) ""
				   "json_extract(?1, '$.nid'), " LNE_PEER_ATTRS(
					   PEER_FIELD) ""
						       "json_extract(?1, '$.gateway'), " LNE_ROUTE_ATTRS(
							       RT_FIELD) "json_extract(?1, '$.name'), json_extract(?1, '$.value'), "
									 "json_extract(?1, '$.pos'), " LNE_RULE_ATTRS(
										 RULE_FIELD) "json_extract(?1, '$.service'), json_extract(?1, '$.reg_type'), "
											     "json_extract(?1, '$.reg_depth'), json_extract(?1, '$.hp_type'), "
											     "json_extract(?1, '$.hp_depth'), json_extract(?1, '$.rules'), "
											     "json_extract(?1, '$.id')",
	[S_JSON_NIDS] = "SELECT value FROM json_each(?1, '$.nids') ORDER BY key",
};

const struct kind_name st_kinds[] = {
	[K_NI] = {"ni", "NI"},
	[K_PEER] = {"peer", "peer"},
	[K_ROUTE] = {"route", "route to"},
	[K_GLOBAL] = {"global", "global"},
	[K_TBF] = {"tbf", "TBF policy"},
	[K_RULE] = {"rule", "rule"},
};

/* --- errors: the one boundary from SQLite to errno ----------------------- */

int st_errno(struct store *st, int rc)
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

int st_seterr(struct store_err *err, int rc, const char *fmt, ...)
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
int st_sqlerr(struct store *st, int rc, enum kind k, const char *key, struct store_err *err)
{
	const char *msg = sqlite3_errmsg(st->db), *why = strstr(msg, "failed: ");

	if ((rc & 0xff) != SQLITE_CONSTRAINT || !why)
		return st_seterr(err, st_errno(st, rc), "%s %s: %s", st_kinds[k].name, key, msg);
	why += strlen("failed: ");
	if (rc == SQLITE_CONSTRAINT_NOTNULL)
		return st_seterr(err, st_errno(st, rc), "%s %s: %s is required", st_kinds[k].name,
				 key, why);
	return st_seterr(err, st_errno(st, rc), "%s %s: %s", st_kinds[k].name, key, why);
}

int st_notfound(enum kind k, const char *key, struct store_err *err)
{
	return st_seterr(err, -ENOENT, "no %s %s", st_kinds[k].name, key);
}

/* --- stepping statements -------------------------------------------------- */

/* Run @s, which returns no row we want; 0 or a negative errno. */
int st_exec(struct store *st, sqlite3_stmt *s, struct store_err *err)
{
	int rc = sqlite3_step(s);

	rc = rc == SQLITE_DONE || rc == SQLITE_ROW
		     ? 0
		     : st_seterr(err, st_errno(st, rc), "store: %s", sqlite3_errmsg(st->db));
	sqlite3_reset(s);
	return rc;
}

/* Run the change @s on object @key; 0 or a negative errno naming it. */
int st_dml(struct store *st, sqlite3_stmt *s, enum kind k, const char *key, struct store_err *err)
{
	int rc = sqlite3_step(s);

	rc = rc == SQLITE_DONE ? 0 : st_sqlerr(st, rc, k, key, err);
	sqlite3_reset(s);
	return rc;
}

/*
 * Step @s, which yields at most one row, to its end; *json gets a copy of
 * column @col of the row.  Returns SQLITE_ROW (got it), SQLITE_DONE (no row)
 * or the error, whose message stays in the handle until @s is reset.
 */
int st_step_json(sqlite3_stmt *s, int col, char **json)
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
int st_fetch(struct store *st, sqlite3_stmt *s, int col, enum kind k, const char *key, char **json,
	     struct store_err *err)
{
	int rc = st_step_json(s, col, json);

	if (rc == SQLITE_ROW)
		rc = 0;
	else if (rc == SQLITE_DONE)
		rc = st_notfound(k, key, err);
	else
		rc = st_sqlerr(st, rc, k, key, err);
	sqlite3_reset(s);
	return rc;
}

/* The end of a listing: the callback's verdict, or the last step's. */
int st_list_end(struct store *st, sqlite3_stmt *s, int step, int stop)
{
	int rc = stop ? stop : st_errno(st, step);

	sqlite3_reset(s);
	return rc;
}
