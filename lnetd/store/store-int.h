/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store-int.h - what the store's files share: the handle, the index of the
 * statement table, the kinds of object, and the helpers they all use.
 * Private to libstore: the contract is store.h.
 */
#ifndef LNETD_STORE_INT_H
#define LNETD_STORE_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store.h"

#define KEY_MAX 256 /* an object's name, in messages and summaries */

/* The statements, prepared once at open from st_sql[] (store-stmt.c). */
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
	S_HIST_PRUNE,
	S_HIST_OLDEST,
	S_NI_ADD,
	S_NI_GET,
	S_NI_UPDATE,
	S_NI_DEL,
	S_NI_LIST,
	S_PEER_ADD,
	S_PEER_SET,
	S_PEER_DEL,
	S_PEER_GET,
	S_PEER_LIST,
	S_PEER_LOCKED,
	S_JSON_QUOTE,
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

extern const char *const st_sql[S__COUNT];

enum kind {
	K_NI,
	K_PEER,
	K_ROUTE,
	K_GLOBAL,
	K_RULE,
	K_TBF
};

struct kind_name {
	const char *obj;  /* in history and summaries */
	const char *name; /* for people */
};
extern const struct kind_name st_kinds[];

struct buf {
	char *s;
	size_t len, cap;
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *stmt[S__COUNT];
	struct buf change, summary; /* what the open transaction did so far */
	uint32_t keep_changes;	    /* the history's bounds (store_set_retention()) */
	uint32_t keep_days;
	bool whole;   /* store_begin_whole(): no savepoint around each change */
	bool spoiled; /* ...and one was refused: the transaction cannot commit */
	bool dry;     /* store_begin_dry(): peers are logged, not written */
};

/* Where a change started, to forget its log lines if it is refused. */
struct mark {
	size_t change, summary;
};

/* store-stmt.c: errors, and stepping a statement. */
int st_errno(struct store *st, int rc);
__attribute__((format(printf, 3, 4))) int st_seterr(struct store_err *err, int rc, const char *fmt,
						    ...);
int st_sqlerr(struct store *st, int rc, enum kind k, const char *key, struct store_err *err);
int st_notfound(enum kind k, const char *key, struct store_err *err);
int st_exec(struct store *st, sqlite3_stmt *s, struct store_err *err);
int st_dml(struct store *st, sqlite3_stmt *s, enum kind k, const char *key, struct store_err *err);
int st_step_json(sqlite3_stmt *s, int col, char **json);
int st_fetch(struct store *st, sqlite3_stmt *s, int col, enum kind k, const char *key, char **json,
	     struct store_err *err);
int st_list_end(struct store *st, sqlite3_stmt *s, int step, int stop);

/* store.c: the change log of the open transaction, and the savepoint around a change. */
__attribute__((format(printf, 2, 3))) int st_buf_printf(struct buf *b, const char *fmt, ...);
__attribute__((sentinel)) int st_buf_cat(struct buf *b, ...);
int st_op_begin(struct store *st, struct mark *m, struct store_err *err);
int st_op_end(struct store *st, const struct mark *m, int rc);

/* store-history.c: record a change in the open transaction's log. */
int st_log_change(struct store *st, char op, enum kind k, const char *old, const char *new,
		  const char *key, struct store_err *err);

/* store-objects.c and store-peer.c: deep copies (clear them with st_*_clear()). */
int st_ni_copy(struct st_ni *dst, const struct st_ni *src);
int st_peer_copy(struct st_peer *dst, const struct st_peer *src);
int st_route_copy(struct st_route *dst, const struct st_route *src);
int st_global_copy(struct st_global *dst, const struct st_global *src);
int st_rule_copy(struct st_rule *dst, const struct st_rule *src);
int st_tbf_copy(struct st_tbf *dst, const struct st_tbf *src);

/* --- small helpers, inline: a listing calls them for every row ------------ */

static inline sqlite3_stmt *use(struct store *st, enum stmt id)
{
	sqlite3_stmt *s = st->stmt[id];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

/* The strings bound stay the caller's: every statement is reset after use. */
static inline void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

static inline void bind_int(sqlite3_stmt *s, int i, int64_t v)
{
	if (v == ST_UNSET)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, v);
}

static inline const char *col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

static inline int64_t col_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? ST_UNSET : sqlite3_column_int64(s, i);
}

/* Make room for element @n of an array grown by doubling (NULL: out of memory). */
static inline void *grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1))
		return v;
	return realloc(v, (n ? 2 * n : 1) * size);
}

static inline int sdup(const char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return *dst || !src ? 0 : -ENOMEM;
}

static inline const char *either(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static inline int cmp_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

#endif /* LNETD_STORE_INT_H */
