// SPDX-License-Identifier: GPL-2.0
/*
 * store-peer.c - peers, which are rows in two tables: the peer (its primary
 * NID and Multi-Rail flag) and its NIDs, the primary first.  A NID added
 * or removed is a change of the peer, logged whole before and after.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-int.h"

static int peer_json(struct store *st, const char *nid, char **json, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_PEER_JSON);

	bind_text(s, 1, nid);
	return st_fetch(st, s, 0, K_PEER, either(nid, "?"), json, err);
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
		rc = st_seterr(err, -EEXIST, "NID %s is taken", nid);
	else if (primary && !strcmp(owner, nid))
		rc = st_seterr(err, -EEXIST, "peer %s exists already", nid);
	else if (!strcmp(owner, peer))
		rc = st_seterr(err, -EEXIST, "NID %s belongs to peer %s already", nid, peer);
	else
		rc = st_seterr(err, -EEXIST, "NID %s belongs to peer %s", nid, owner);
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
		rc = st_sqlerr(st, rc, K_PEER, either(peer, "?"), err);
	sqlite3_reset(s);
	return rc;
}

/* A string JSON takes as it is: no quote, backslash or control character. */
static bool json_plain(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

/*
 * The JSON S_PEER_JSON gives for a peer just added as @peer, written here
 * rather than read back: SQLite's json_object() prints these keys in this
 * order, without spaces, and strings with nothing to escape as they are.
 * NULL (out of memory, or a string that would need escaping): ask SQLite.
 */
static char *peer_json_of(const struct st_peer *peer)
{
	struct buf b = {0};
	size_t i;
	int rc;

	if (!json_plain(peer->nid) || (peer->mr != 0 && peer->mr != 1))
		return NULL;
	rc = st_buf_cat(&b, "{\"nid\":\"", peer->nid, "\",\"mr\":", peer->mr ? "1" : "0",
			",\"nids\":[", NULL);
	for (i = 0; !rc && i < peer->nnids; i++)
		rc = json_plain(peer->nids[i])
			     ? st_buf_cat(&b, i ? "," : "", "\"", peer->nids[i], "\"", NULL)
			     : -EINVAL;
	if (!rc)
		rc = st_buf_cat(&b, "]}", NULL);
	if (rc) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/*
 * A dry run's peer change (store_begin_dry()): its summary line, no row and
 * no JSON; what it would be judged on, the caller's model has judged.
 */
static int dry_log(struct store *st, char op, const char *key, struct store_err *err)
{
	struct mark m;
	int rc = st_op_begin(st, &m, err);

	if (!rc)
		rc = st_log_change(st, op, K_PEER, NULL, NULL, either(key, "?"), err);
	return st_op_end(st, &m, rc);
}

int store_peer_add(struct store *st, const struct st_peer *peer, struct store_err *err)
{
	char *json = NULL;
	sqlite3_stmt *s;
	sqlite3_int64 id;
	struct mark m;
	size_t i;
	int rc;

	if (st->dry)
		return dry_log(st, '+', peer->nid, err);
	rc = st_op_begin(st, &m, err);
	if (rc)
		return rc;
	s = use(st, S_PEER_ADD);
	bind_text(s, 1, peer->nid);
	sqlite3_bind_int(s, 2, peer->mr);
	rc = nid_insert(st, s, peer->nid, peer->nid, true, err);
	/* The peer's row, just inserted; its NIDs, the primary first (schema 0005). */
	id = sqlite3_last_insert_rowid(st->db);
	for (i = 0; !rc && i <= peer->nnids; i++) {
		s = use(st, S_PEER_NID_ADD_ID);
		sqlite3_bind_int64(s, 1, id);
		bind_text(s, 2, i ? peer->nids[i - 1] : peer->nid);
		rc = nid_insert(st, s, i ? peer->nids[i - 1] : peer->nid, peer->nid, !i, err);
	}
	if (!rc)
		json = peer_json_of(peer);
	if (!rc && !json)
		rc = peer_json(st, peer->nid, &json, err);
	if (!rc)
		rc = st_log_change(st, '+', K_PEER, NULL, json, peer->nid, err);
	free(json);
	return st_op_end(st, &m, rc);
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
	int rc;

	if (st->dry) {
		sqlite3_reset(s);
		return dry_log(st, '~', key, err);
	}
	rc = st_op_begin(st, &m, err);
	if (rc)
		return rc;
	rc = peer_json(st, primary, &old, err);
	if (!rc)
		rc = nid_insert(st, s, nid, primary, false, err);
	if (!rc && !sqlite3_changes(st->db))
		rc = st_seterr(err, -ENOENT, "%s", missing);
	if (!rc)
		rc = peer_json(st, primary, &new, err);
	if (!rc)
		rc = st_log_change(st, '~', K_PEER, old, new, key, err);
	free(old);
	free(new);
	return st_op_end(st, &m, rc);
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
		return st_seterr(err, -EINVAL,
				 "NID %s is the primary NID of peer %s: delete the peer", nid,
				 primary);
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
	struct st_peer p = {0};
	char *old = NULL;
	sqlite3_stmt *s;
	struct mark m;
	int rc;

	if (st->dry)
		return dry_log(st, '-', nid, err);
	rc = st_op_begin(st, &m, err);
	if (rc)
		return rc;
	/* Its JSON written here from its rows, as for an add: SQLite's JSON functions cost more. */
	rc = store_peer_get(st, nid, &p, err);
	if (!rc)
		old = peer_json_of(&p);
	st_peer_clear(&p);
	if (!rc && !old)
		rc = peer_json(st, nid, &old, err);
	if (!rc) {
		s = use(st, S_PEER_DEL);
		bind_text(s, 1, nid);
		rc = st_dml(st, s, K_PEER, nid, err);
	}
	if (!rc)
		rc = st_log_change(st, '-', K_PEER, old, NULL, nid, err);
	free(old);
	return st_op_end(st, &m, rc);
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
			rc = st_sqlerr(st, step, K_PEER, nid, err);
		if (rc)
			st_peer_clear(peer);
	} else {
		rc = step == SQLITE_DONE ? st_notfound(K_PEER, either(nid, "?"), err)
					 : st_sqlerr(st, step, K_PEER, either(nid, "?"), err);
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

int st_peer_copy(struct st_peer *dst, const struct st_peer *src)
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
