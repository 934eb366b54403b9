// SPDX-License-Identifier: GPL-2.0
/*
 * store-objects.c - the objects that are one row each: NIs, routes,
 * globals, UDSP rules and TBF policies.  Each kind says once how it meets
 * SQL (its key, bindings and row, in kind_sql[]); one() and get_one() do
 * the rest for all of them.  Peers are rows in two tables: store-peer.c.
 *
 * Rule positions stay 0..n-1.  SQLite checks uniqueness row by row, so
 * "pos = pos + 1" would collide; a gap is opened or closed by moving the
 * rows past it out of the way by SHIFT (store-stmt.c), then back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-int.h"

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
	int k;

	bind_text(s, 1, ni->net);
	bind_text(s, 2, ni->ifname);
	bind_text(s, 3, ni->pattern);
	bind_text(s, 4, ni->cpts);
	for (k = 0; k < LNE_TUN__COUNT; k++)
		bind_int(s, 5 + k, ni->tun[k]);
	sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":id"), ni->id);
}

static void ni_row(sqlite3_stmt *s, struct st_ni *ni)
{
	int k;

	ni->net = col_text(s, 0);
	ni->ifname = col_text(s, 1);
	ni->pattern = col_text(s, 2);
	ni->cpts = col_text(s, 3);
	for (k = 0; k < LNE_TUN__COUNT; k++)
		ni->tun[k] = col_int(s, 4 + k);
	ni->id = sqlite3_column_int64(s, 4 + LNE_TUN__COUNT);
}

int st_ni_copy(struct st_ni *dst, const struct st_ni *src)
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
	return st_ni_copy(obj, &row);
}

static void route_key(char *buf, size_t n, const void *obj)
{
	const struct st_route *r = obj;

	snprintf(buf, n, "%s via %s", either(r->net, "?"), either(r->gateway, "?"));
}

static void route_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_route *r = obj;
	int k;

	bind_text(s, 1, r->net);
	bind_text(s, 2, r->gateway);
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		bind_int(s, 3 + k, r->v[k]);
}

static void route_row(sqlite3_stmt *s, struct st_route *r)
{
	int k;

	r->net = col_text(s, 0);
	r->gateway = col_text(s, 1);
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		r->v[k] = col_int(s, 2 + k);
}

int st_route_copy(struct st_route *dst, const struct st_route *src)
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
	return st_route_copy(obj, &row);
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

int st_global_copy(struct st_global *dst, const struct st_global *src)
{
	dst->value = src->value;
	return sdup(&dst->name, src->name);
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

int st_tbf_copy(struct st_tbf *dst, const struct st_tbf *src)
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
	return st_tbf_copy(obj, &row);
}

static void rule_key(char *buf, size_t n, const void *obj)
{
	snprintf(buf, n, "%lld", (long long)((const struct st_rule *)obj)->pos);
}

const size_t st_rule_off[LNE_RULE_A__COUNT] = {
#define RULE_OFF(id, name, ...) [LNE_RULE_A_##id] = offsetof(struct st_rule, name),
	LNE_RULE_ATTRS(RULE_OFF)
#undef RULE_OFF
};

/* Parameter 1 and column 0 are the position; then each field of rule-attrs.h in order. */
static void rule_bind(sqlite3_stmt *s, const void *obj)
{
	const struct st_rule *r = obj;
	int k;

	sqlite3_bind_int64(s, 1, r->pos);
	for (k = 0; k < LNE_RULE_A__COUNT; k++)
		switch (lne_rule_desc[k].kind) {
		case LNE_RULE_K_EXPR:
			bind_text(s, 2 + k, *st_rule_expr(r, k));
			break;
		case LNE_RULE_K_PRIO:
			bind_int(s, 2 + k, *st_rule_prio(r, k));
			break;
		}
}

static void rule_row(sqlite3_stmt *s, struct st_rule *r)
{
	int k;

	r->pos = sqlite3_column_int64(s, 0);
	for (k = 0; k < LNE_RULE_A__COUNT; k++)
		switch (lne_rule_desc[k].kind) {
		case LNE_RULE_K_EXPR:
			*st_rule_expr(r, k) = col_text(s, 1 + k);
			break;
		case LNE_RULE_K_PRIO:
			*st_rule_prio(r, k) = col_int(s, 1 + k);
			break;
		}
}

int st_rule_copy(struct st_rule *dst, const struct st_rule *src)
{
	int k, rc = 0;

	*dst = *src;
	for (k = 0; k < LNE_RULE_A__COUNT; k++)
		if (lne_rule_desc[k].kind == LNE_RULE_K_EXPR)
			*st_rule_expr(dst, k) = NULL;
	for (k = 0; !rc && k < LNE_RULE_A__COUNT; k++)
		if (lne_rule_desc[k].kind == LNE_RULE_K_EXPR)
			rc = sdup(st_rule_expr(dst, k), *st_rule_expr(src, k));
	if (rc) {
		st_rule_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static int rule_read(sqlite3_stmt *s, void *obj)
{
	struct st_rule row;

	rule_row(s, &row);
	return st_rule_copy(obj, &row);
}

/* Peers are handled on their own: a peer is rows in two tables. */
static const struct kind_sql {
	enum stmt get; /* the lookup by key */
	int json;      /* its column holding the object's JSON */
	void (*key)(char *buf, size_t n, const void *obj);
	void (*bind)(sqlite3_stmt *s, const void *obj);
	int (*read)(sqlite3_stmt *s, void *obj); /* a copy of the looked-up row */
} kind_sql[] = {
	[K_NI] = {S_NI_GET, 5 + LNE_TUN__COUNT, ni_key, ni_bind, ni_read}, /* after NI_COLS, id */
	[K_ROUTE] = {S_ROUTE_GET, 2 + LNE_ROUTE_A__COUNT, route_key, route_bind, route_read},
	[K_GLOBAL] = {S_GLOBAL_GET, 1, global_key, global_bind, global_read},
	[K_RULE] = {S_RULE_GET, 1 + LNE_RULE_A__COUNT, rule_key, rule_bind, rule_read},
	[K_TBF] = {S_TBF_GET, 6, tbf_key, tbf_bind, tbf_read},
};

/*
 * Run the change @s (bound by the caller), which returns the object's JSON,
 * and log it as @op ('~' from @old).
 */
static int change(struct store *st, sqlite3_stmt *s, char op, enum kind k, const char *old,
		  const char *key, struct store_err *err)
{
	char *json;
	int rc = st_step_json(s, 0, &json);

	if (rc == SQLITE_ROW && op == '-')
		rc = st_log_change(st, op, k, json, NULL, key, err);
	else if (rc == SQLITE_ROW)
		rc = st_log_change(st, op, k, op == '~' ? old : NULL, json, key, err);
	else if (rc == SQLITE_DONE)
		rc = st_notfound(k, key, err);
	else
		rc = st_sqlerr(st, rc, k, key, err);
	free(json);
	sqlite3_reset(s);
	return rc;
}

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
	int rc = st_op_begin(st, &m, err);

	if (rc)
		return rc;
	ks->key(key, sizeof(key), obj);
	if (op == '~') {
		s = use(st, ks->get);
		ks->bind(s, obj);
		rc = st_fetch(st, s, ks->json, k, key, &old, err);
	}
	if (!rc) {
		s = use(st, id);
		ks->bind(s, obj);
		rc = change(st, s, op, k, old, key, err);
	}
	free(old);
	return st_op_end(st, &m, rc);
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
		rc = rc == SQLITE_DONE ? st_notfound(k, key, err) : st_sqlerr(st, rc, k, key, err);
	}
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
			return st_seterr(err, -EEXIST, "NI %s exists already",
					 either(ni->net, "?"));
	}
	ni_key(name, sizeof(name), &old);
	st_ni_clear(&old);
	return st_seterr(err, -EEXIST, "NI %s exists already", name);
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
	return st_list_end(st, s, step, stop);
}

/* --- routes ----------------------------------------------------------------- */

int store_route_add(struct store *st, const struct st_route *route, struct store_err *err)
{
	char key[KEY_MAX];
	int rc = one(st, K_ROUTE, '+', S_ROUTE_ADD, route, err);

	route_key(key, sizeof(key), route);
	return rc == -EEXIST ? st_seterr(err, rc, "route to %s exists already", key) : rc;
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
	return st_list_end(st, s, step, stop);
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
	return st_list_end(st, s, step, stop);
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
	return st_list_end(st, s, step, stop);
}

/* --- rules ------------------------------------------------------------------ */

static int rule_count(struct store *st, int64_t *n, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_RULE_COUNT);
	int rc = sqlite3_step(s);

	*n = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	rc = rc == SQLITE_ROW ? 0 : st_sqlerr(st, rc, K_RULE, "count", err);
	sqlite3_reset(s);
	return rc;
}

/* Open (S_RULE_OPEN) or close (S_RULE_CLOSE) the gap at @pos. */
static int rule_shift(struct store *st, enum stmt id, int64_t pos, struct store_err *err)
{
	sqlite3_stmt *s = use(st, id);
	int rc;

	sqlite3_bind_int64(s, 1, pos);
	rc = st_dml(st, s, K_RULE, "positions", err);
	return rc ? rc : st_dml(st, use(st, S_RULE_SETTLE), K_RULE, "positions", err);
}

int store_rule_add(struct store *st, const struct st_rule *rule, int64_t *pos,
		   struct store_err *err)
{
	struct st_rule r = *rule;
	struct mark m;
	int64_t n;
	int rc = st_op_begin(st, &m, err);

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
	return st_op_end(st, &m, rc);
}

int store_rule_update(struct store *st, const struct st_rule *rule, struct store_err *err)
{
	return one(st, K_RULE, '~', S_RULE_UPDATE, rule, err);
}

int store_rule_del(struct store *st, int64_t pos, struct store_err *err)
{
	struct st_rule key = {.pos = pos};
	struct mark m;
	int rc = st_op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = one(st, K_RULE, '-', S_RULE_DEL, &key, err);
	if (!rc)
		rc = rule_shift(st, S_RULE_CLOSE, pos, err);
	return st_op_end(st, &m, rc);
}

/* Last first: no rule moves, and undoing the entry adds them back in order. */
int store_rule_del_all(struct store *st, struct store_err *err)
{
	struct mark m;
	int64_t n = 0;
	int rc = st_op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = rule_count(st, &n, err);
	while (!rc && n > 0)
		rc = store_rule_del(st, --n, err);
	return st_op_end(st, &m, rc);
}

int store_rule_move(struct store *st, int64_t from, int64_t to, struct store_err *err)
{
	struct st_rule r;
	struct mark m;
	int rc = st_op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = store_rule_get(st, from, &r, err);
	if (rc)
		return st_op_end(st, &m, rc);
	if (from != to)
		rc = store_rule_del(st, from, err);
	r.pos = to;
	if (!rc && from != to)
		rc = store_rule_add(st, &r, NULL, err);
	st_rule_clear(&r);
	return st_op_end(st, &m, rc);
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
	return st_list_end(st, s, step, stop);
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
	int k;

	for (k = 0; k < LNE_RULE_A__COUNT; k++)
		if (lne_rule_desc[k].kind == LNE_RULE_K_EXPR) {
			free((char *)*st_rule_expr(rule, k));
			*st_rule_expr(rule, k) = NULL;
		}
}

void st_tbf_clear(struct st_tbf *tbf)
{
	free((char *)tbf->service);
	free((char *)tbf->reg_type);
	free((char *)tbf->hp_type);
	free((char *)tbf->rules);
	tbf->service = tbf->reg_type = tbf->hp_type = tbf->rules = NULL;
}
