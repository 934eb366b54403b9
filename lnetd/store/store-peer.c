// SPDX-License-Identifier: GPL-2.0
/*
 * store-peer.c - peers, one row each (schema 0006): the primary NID, the
 * Multi-Rail flag, and the other NIDs in order, packed as "NID NID " in
 * nids.  Only the primary NID is UNIQUE in SQL; a peer's own NIDs are
 * checked here, and that no two peers share a NID is lnetd's model's to
 * judge (and lnetd_restore()'s to refuse in a file edited by hand).  A NID
 * added or removed is a change of the peer, logged whole before and after,
 * with the JSON written here from the peer as it was and as it becomes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-int.h"

/* Room for the settings of a peer's history record: ,"col":0 each. */
#define PEER_JSON_ATTRS (LNE_PEER_A__COUNT * 32)

/* Bind @peer's settings to @s's ?3, ?4, ... (S_PEER_ADD, S_PEER_SET: the columns' order). */
static void peer_bind(sqlite3_stmt *s, const struct st_peer *peer)
{
	int k;

	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		sqlite3_bind_int(s, 3 + k, peer->v[k]);
}

/* A string JSON takes as it is: no quote, backslash or control character. */
static bool json_plain(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

/* Append @s to @b as a JSON string, as SQLite's json_quote() prints it. */
static int json_str(struct store *st, struct buf *b, const char *s)
{
	sqlite3_stmt *q;
	int rc;

	if (json_plain(s))
		return st_buf_cat(b, "\"", s, "\"", NULL);
	q = use(st, S_JSON_QUOTE);
	bind_text(q, 1, s);
	rc = sqlite3_step(q) == SQLITE_ROW && col_text(q, 0) ? st_buf_cat(b, col_text(q, 0), NULL)
							     : -ENOMEM;
	sqlite3_reset(q);
	return rc;
}

/*
 * Append @peer's settings whose row's hist is @hist to @b: ,"col":v each
 * (LNE_PEER_HIST_SET: only those not at their default).
 */
static char *peer_json_attrs(char *b, const struct st_peer *peer, enum lne_peer_hist hist)
{
	int k;

	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		if (lne_peer_desc[k].hist == hist &&
		    (hist == LNE_PEER_HIST_ALWAYS || (u32) !!peer->v[k] != lne_peer_desc[k].def))
			b += sprintf(b, ",\"%s\":%d", lne_peer_desc[k].col, !!peer->v[k]);
	return b;
}

/*
 * @peer's record in the history: the JSON SQLite's json_object() would
 * print for {nid, <settings>, nids, <settings>}, keys in this order and
 * without spaces: those of schema 1 (mr) before nids, always; the later
 * ones (locked, schema 0007) after nids when not at their default
 * (peer-attrs.h's hist).  Strings JSON takes as they are (every canonical
 * NID) are copied into one allocation sized first; the others go through
 * json_str().
 */
static int peer_json(struct store *st, const struct st_peer *peer, char **json,
		     struct store_err *err)
{
	char before[PEER_JSON_ATTRS], after[PEER_JSON_ATTRS];
	size_t i, len = sizeof("{\"nid\":\"\",\"nids\":[]}") + sizeof(before) + sizeof(after) +
			strlen(peer->nid);
	bool plain = json_plain(peer->nid);
	struct buf b = {0};
	char *c;
	int rc;

	*peer_json_attrs(before, peer, LNE_PEER_HIST_ALWAYS) = '\0';
	*peer_json_attrs(after, peer, LNE_PEER_HIST_SET) = '\0';
	for (i = 0; plain && i < peer->nnids; i++) {
		plain = json_plain(peer->nids[i]);
		len += strlen(peer->nids[i]) + 3;
	}
	if (plain) {
		c = *json = malloc(len);
		if (!c)
			return st_seterr(err, -ENOMEM, "store: out of memory");
		c = stpcpy(stpcpy(stpcpy(c, "{\"nid\":\""), peer->nid), "\"");
		c = stpcpy(stpcpy(c, before), ",\"nids\":[");
		for (i = 0; i < peer->nnids; i++)
			c = stpcpy(stpcpy(stpcpy(c, i ? ",\"" : "\""), peer->nids[i]), "\"");
		strcpy(stpcpy(stpcpy(c, "]"), after), "}");
		return 0;
	}
	rc = st_buf_cat(&b, "{\"nid\":", NULL);
	if (!rc)
		rc = json_str(st, &b, peer->nid);
	if (!rc)
		rc = st_buf_cat(&b, before, ",\"nids\":[", NULL);
	for (i = 0; !rc && i < peer->nnids; i++) {
		rc = i ? st_buf_cat(&b, ",", NULL) : 0;
		if (!rc)
			rc = json_str(st, &b, peer->nids[i]);
	}
	if (!rc)
		rc = st_buf_cat(&b, "]", after, "}", NULL);
	if (rc) {
		free(b.s);
		b.s = NULL;
		rc = st_seterr(err, -ENOMEM, "store: out of memory");
	}
	*json = b.s;
	return rc;
}

static int cmp_nid(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The first of @peer's NIDs found twice, or NULL: compared pairwise for a
 * few, sorted for more (an operation may list 1,024); *nomem on failure.
 */
static const char *nid_twice(const struct st_peer *peer, bool *nomem)
{
	const char **v, *twice = NULL;
	size_t i, k, n = peer->nnids;

	if (n <= 16) {
		for (i = 1; i < n; i++)
			for (k = 0; k < i; k++)
				if (!strcmp(peer->nids[k], peer->nids[i]))
					return peer->nids[i];
		return NULL;
	}
	v = malloc(n * sizeof(*v));
	*nomem = !v;
	if (!v)
		return NULL;
	memcpy(v, peer->nids, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_nid);
	for (i = 1; !twice && i < n; i++)
		if (!strcmp(v[i - 1], v[i]))
			twice = v[i];
	free(v);
	return twice;
}

/*
 * Check @peer's NIDs (none empty or holding a space, none twice, none its
 * primary) and pack its other NIDs into *packed, each followed by a space.
 */
static int peer_pack(const struct st_peer *peer, char **packed, struct store_err *err)
{
	struct buf b = {0};
	const char *twice;
	bool nomem = false;
	size_t i;

	*packed = NULL;
	if (!peer->nid)
		return st_seterr(err, -EINVAL, "the primary NID must not be empty");
	for (i = 0; i < peer->nnids; i++)
		if (!peer->nids[i] || !*peer->nids[i] || strchr(peer->nids[i], ' '))
			return st_seterr(err, -EINVAL,
					 "peer %s: NID \"%s\" is empty or holds a space", peer->nid,
					 either(peer->nids[i], ""));
		else if (!strcmp(peer->nids[i], peer->nid))
			return st_seterr(err, -EEXIST, "NID %s belongs to peer %s already",
					 peer->nid, peer->nid);
	twice = nid_twice(peer, &nomem);
	if (twice)
		return st_seterr(err, -EEXIST, "NID %s belongs to peer %s already", twice,
				 peer->nid);
	for (i = 0; !nomem && i < peer->nnids; i++)
		nomem = st_buf_cat(&b, peer->nids[i], " ", NULL) != 0;
	if (!nomem && !b.s)
		nomem = st_buf_cat(&b, "", NULL) != 0;
	if (nomem) {
		free(b.s);
		return st_seterr(err, -ENOMEM, "store: out of memory");
	}
	*packed = b.s;
	return 0;
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

/* The net of a NID: what follows its last '@' (canonical NIDs: one spelling per net). */
static const char *net_of(const char *nid)
{
	const char *at = strrchr(nid, '@');

	return at ? at + 1 : "";
}

/*
 * Where @nid goes among a peer's other NIDs @v (@n): after the last of its
 * net; a net of its own goes last, unless it is the primary's (first).
 */
static size_t net_end(const char *primary, const char *const *v, size_t n, const char *nid)
{
	const char *net = net_of(nid);
	size_t i = n;

	while (i > 0 && strcmp(net_of(v[i - 1]), net))
		i--;
	if (i > 0)
		return i;
	return primary && !strcmp(net_of(primary), net) ? 0 : n;
}

int store_peer_add(struct store *st, const struct st_peer *in, struct store_err *err)
{
	char *json = NULL, *packed = NULL;
	struct st_peer grouped = *in;
	const struct st_peer *peer = &grouped;
	const char **v = NULL;
	sqlite3_stmt *s;
	struct mark m;
	size_t i, at;
	int rc;

	if (st->dry)
		return dry_log(st, '+', in->nid, err);
	/* Its NIDs as the model lists them: by net, the nets in the order they came. */
	if (in->nnids > 1) {
		v = malloc(in->nnids * sizeof(*v));
		if (!v)
			return st_seterr(err, -ENOMEM, "store: out of memory");
		for (i = 0; i < in->nnids; i++) {
			at = net_end(in->nid, v, i, in->nids[i]);
			memmove(&v[at + 1], &v[at], (i - at) * sizeof(*v));
			v[at] = in->nids[i];
		}
		grouped.nids = v;
	}
	rc = st_op_begin(st, &m, err);
	if (rc) {
		free(v);
		return rc;
	}
	rc = peer_pack(peer, &packed, err);
	if (!rc) {
		s = use(st, S_PEER_ADD);
		bind_text(s, 1, peer->nid);
		bind_text(s, 2, packed);
		peer_bind(s, peer);
		rc = sqlite3_step(s) == SQLITE_DONE ? 0 : sqlite3_errcode(st->db);
		if (rc) /* named before the reset, while SQLite still says why */
			rc = st_errno(st, rc) == -EEXIST
				     ? st_seterr(err, -EEXIST, "peer %s exists already", peer->nid)
				     : st_sqlerr(st, rc, K_PEER, peer->nid, err);
		sqlite3_reset(s);
	}
	if (!rc)
		rc = peer_json(st, peer, &json, err);
	if (!rc)
		rc = st_log_change(st, '+', K_PEER, NULL, json, peer->nid, err);
	free(json);
	free(packed);
	free(v);
	return st_op_end(st, &m, rc);
}

/* What a change does to a stored peer: set a setting, add a NID or delete one. */
enum peer_edit {
	EDIT_SET, /* setting @k becomes @v */
	EDIT_NID_ADD,
	EDIT_NID_DEL,
};

/*
 * Change peer @primary by @edit (@nid, or @k and @v), write its row, and
 * log it under @key whole, before and after.
 */
static int peer_change(struct store *st, const char *primary, enum peer_edit edit, const char *nid,
		       int k, int v, const char *key, struct store_err *err)
{
	char *old = NULL, *new = NULL, *packed = NULL;
	struct st_peer p = {0}, q;
	const char **nids = NULL;
	sqlite3_stmt *s;
	struct mark m;
	size_t i, n;
	int rc;

	if (st->dry)
		return dry_log(st, '~', key, err);
	rc = st_op_begin(st, &m, err);
	if (!rc)
		rc = store_peer_get(st, primary, &p, err);
	if (rc)
		return st_op_end(st, &m, rc);
	q = p;
	nids = calloc(p.nnids + 1, sizeof(*nids));
	if (!nids)
		rc = st_seterr(err, -ENOMEM, "store: out of memory");
	for (i = n = 0; !rc && i < p.nnids; i++)
		if (edit != EDIT_NID_DEL || strcmp(p.nids[i], nid))
			nids[n++] = p.nids[i];
	if (!rc && edit == EDIT_NID_ADD) {
		/*
		 * Where the model lists it (and Lustre): after the NIDs of its net,
		 * the nets in the order they came, the primary's first; so every
		 * view, a restart's included, gives a peer's NIDs in one order.
		 */
		size_t at = net_end(primary, nids, n, nid);

		memmove(&nids[at + 1], &nids[at], (n - at) * sizeof(*nids));
		nids[at] = nid;
		n++;
	}
	if (!rc && edit == EDIT_NID_DEL && n == p.nnids)
		rc = st_seterr(err, -ENOENT, "NID %s is not a NID of peer %s", nid, primary);
	q.nids = nids;
	q.nnids = n;
	if (edit == EDIT_SET)
		q.v[k] = v;
	if (!rc)
		rc = peer_pack(&q, &packed, err);
	if (!rc) {
		s = use(st, S_PEER_SET);
		bind_text(s, 1, primary);
		bind_text(s, 2, packed);
		peer_bind(s, &q);
		rc = st_dml(st, s, K_PEER, primary, err);
	}
	if (!rc)
		rc = peer_json(st, &p, &old, err);
	if (!rc)
		rc = peer_json(st, &q, &new, err);
	if (!rc)
		rc = st_log_change(st, '~', K_PEER, old, new, key, err);
	free(old);
	free(new);
	free(packed);
	free(nids);
	st_peer_clear(&p);
	return st_op_end(st, &m, rc);
}

int store_peer_set(struct store *st, const char *nid, int k, int v, struct store_err *err)
{
	if (k < 0 || k >= LNE_PEER_A__COUNT)
		return st_seterr(err, -EINVAL, "store: no peer setting %d", k);
	return peer_change(st, nid, EDIT_SET, NULL, k, v, either(nid, "?"), err);
}

int store_peer_update(struct store *st, const char *nid, const int *v, size_t *changed,
		      struct store_err *err)
{
	struct st_peer p = {0};
	bool given = false;
	int k, rc = 0;

	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		given |= !lne_peer_desc[k].engine && v[k] >= 0;
	if (!given)
		return 0;
	/* not stored (a dry run's new peer): the defaults; the dry run logs the change */
	if (store_peer_get(st, nid, &p, err))
		for (k = 0; k < LNE_PEER_A__COUNT; k++)
			p.v[k] = (int)lne_peer_desc[k].def;
	for (k = 0; !rc && k < LNE_PEER_A__COUNT; k++)
		if (!lne_peer_desc[k].engine && v[k] >= 0 && (u32) !!v[k] != lne_peer_desc[k].def &&
		    !!v[k] != !!p.v[k]) {
			rc = store_peer_set(st, nid, k, !!v[k], err);
			*changed += !rc;
		}
	st_peer_clear(&p);
	return rc;
}

bool store_peer_is_locked(struct store *st, const char *nid)
{
	struct store_err err = {""};
	struct st_peer p;
	bool locked;

	if (store_peer_get(st, nid, &p, &err))
		return false;
	locked = p.locked;
	st_peer_clear(&p);
	return locked;
}

int store_peer_locked(struct store *st, char ***out)
{
	sqlite3_stmt *s = use(st, S_PEER_LOCKED);
	char **v = NULL, **grown;
	size_t n = 0;
	int step, rc = 0;

	*out = NULL;
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		grown = realloc(v, (n + 2) * sizeof(*v));
		if (!grown || !(grown[n] = strdup(col_text(s, 0) ?: ""))) {
			if (grown)
				v = grown;
			rc = -ENOMEM;
			break;
		}
		v = grown;
		v[++n] = NULL;
	}
	if (!rc)
		rc = st_errno(st, step);
	sqlite3_reset(s);
	if (rc) {
		while (n)
			free(v[--n]);
		free(v);
		return rc;
	}
	*out = v;
	return 0;
}

int store_peer_nid_add(struct store *st, const char *primary, const char *nid,
		       struct store_err *err)
{
	char key[KEY_MAX];

	snprintf(key, sizeof(key), "%s +nid %s", either(primary, "?"), either(nid, "?"));
	return peer_change(st, primary, EDIT_NID_ADD, nid, 0, 0, key, err);
}

int store_peer_nid_del(struct store *st, const char *primary, const char *nid,
		       struct store_err *err)
{
	char key[KEY_MAX];

	if (primary && nid && !strcmp(primary, nid))
		return st_seterr(err, -EINVAL,
				 "NID %s is the primary NID of peer %s: delete the peer", nid,
				 primary);
	snprintf(key, sizeof(key), "%s -nid %s", either(primary, "?"), either(nid, "?"));
	return peer_change(st, primary, EDIT_NID_DEL, either(nid, ""), 0, 0, key, err);
}

/*
 * Give @p the @n NIDs of @v (or, @v NULL, the @n NIDs in @packed, between
 * spaces) in one allocation: the array, then the strings.  A site's export
 * or restore reads 50,000 peers: one malloc each, not three.
 */
static int nids_set(struct st_peer *p, const char *const *v, size_t n, const char *packed)
{
	size_t i, len = 0;
	char **a, *c;

	p->nnids = 0;
	p->nids = NULL;
	if (!n)
		return 0;
	for (i = 0; v && i < n; i++)
		len += strlen(v[i]) + 1;
	if (!v)
		len = strlen(packed) + 1;
	a = malloc(n * sizeof(*a) + len);
	if (!a)
		return -ENOMEM;
	c = (char *)(a + n);
	if (!v)
		memcpy(c, packed, len);
	for (i = 0; i < n; i++) {
		if (v) {
			a[i] = c;
			c = stpcpy(c, v[i]) + 1;
			continue;
		}
		c += strspn(c, " ");
		a[i] = c;
		c += strcspn(c, " ");
		if (*c)
			*c++ = '\0';
	}
	p->nids = (const char **)a;
	p->nnids = n;
	return 0;
}

/*
 * Copy @s's row: primary NID, the packed NIDs and the settings.  The store writes
 * each NID followed by a space; any run of spaces separates two here (a
 * row edited by hand loses no NID; lnetd_restore() judges what it holds).
 */
static int peer_read(sqlite3_stmt *s, struct st_peer *p)
{
	const char *nids = col_text(s, 1) ?: "", *c;
	size_t n = 0;
	int rc, k;

	memset(p, 0, sizeof(*p));
	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		p->v[k] = sqlite3_column_int(s, 2 + k);
	for (c = nids; *c; c++)
		n += *c != ' ' && (c[1] == ' ' || !c[1]);
	rc = sdup(&p->nid, col_text(s, 0));
	if (!rc)
		rc = nids_set(p, NULL, n, nids);
	if (rc)
		st_peer_clear(p);
	return rc;
}

int store_peer_get(struct store *st, const char *nid, struct st_peer *peer, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_PEER_GET);
	int rc, step;

	bind_text(s, 1, nid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		rc = peer_read(s, peer) ? st_seterr(err, -ENOMEM, "store: out of memory") : 0;
	else
		rc = step == SQLITE_DONE ? st_notfound(K_PEER, either(nid, "?"), err)
					 : st_sqlerr(st, step, K_PEER, either(nid, "?"), err);
	sqlite3_reset(s);
	return rc;
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
	/* Read first, for the history: DELETE ... RETURNING builds a table each time. */
	rc = store_peer_get(st, nid, &p, err);
	if (!rc) {
		s = use(st, S_PEER_DEL);
		bind_text(s, 1, nid);
		rc = st_dml(st, s, K_PEER, nid, err);
	}
	if (!rc)
		rc = peer_json(st, &p, &old, err);
	if (!rc)
		rc = st_log_change(st, '-', K_PEER, old, NULL, nid, err);
	free(old);
	st_peer_clear(&p);
	return st_op_end(st, &m, rc);
}

int store_peer_list(struct store *st, store_peer_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_PEER_LIST);
	int step, rc = 0;
	struct st_peer p;

	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		rc = peer_read(s, &p);
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
	int rc;

	memset(dst, 0, sizeof(*dst));
	memcpy(dst->v, src->v, sizeof(dst->v));
	rc = sdup(&dst->nid, src->nid);
	if (!rc)
		rc = nids_set(dst, src->nids, src->nnids, NULL);
	if (rc)
		st_peer_clear(dst);
	return rc;
}

/* The NIDs are one allocation (nids_set()). */
void st_peer_clear(struct st_peer *peer)
{
	free(peer->nids);
	free((char *)peer->nid);
	peer->nid = NULL;
	peer->nids = NULL;
	peer->nnids = 0;
}
