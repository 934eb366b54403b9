// SPDX-License-Identifier: GPL-2.0
/*
 * store-state.c - the whole desired state at once: store_state_get() copies
 * every object out, store_state_replace() makes the store hold another
 * state with the fewest changes (what an apply and a rollback do).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-int.h"

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

static int keep_ni(const struct st_ni *ni, void *data)
{
	struct st_state *s = data;

	KEEP(s->ni, s->n_ni, ni, st_ni_copy);
}

static int keep_peer(const struct st_peer *peer, void *data)
{
	struct st_state *s = data;

	KEEP(s->peer, s->n_peer, peer, st_peer_copy);
}

static int keep_route(const struct st_route *route, void *data)
{
	struct st_state *s = data;

	KEEP(s->route, s->n_route, route, st_route_copy);
}

static int keep_global(const struct st_global *global, void *data)
{
	struct st_state *s = data;

	KEEP(s->global, s->n_global, global, st_global_copy);
}

static int keep_rule(const struct st_rule *rule, void *data)
{
	struct st_state *s = data;

	KEEP(s->rule, s->n_rule, rule, st_rule_copy);
}

static int keep_tbf(const struct st_tbf *tbf, void *data)
{
	struct st_state *s = data;

	KEEP(s->tbf, s->n_tbf, tbf, st_tbf_copy);
}

int store_state_get(struct store *st, struct st_state *state)
{
	bool snapshot = sqlite3_get_autocommit(st->db);
	int rc = snapshot ? st_exec(st, use(st, S_BEGIN_READ), NULL) : 0;

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
		st_exec(st, use(st, S_COMMIT), NULL);
	if (rc)
		st_state_clear(state);
	return rc;
}

static int cmp_int(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
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
	int c = cmp_str(a->net, b->net), k;

	c = c ? c : cmp_str(a->ifname, b->ifname);
	c = c ? c : cmp_str(a->pattern, b->pattern);
	c = c ? c : cmp_str(a->cpts, b->cpts);
	for (k = 0; !c && k < LNE_TUN__COUNT; k++)
		c = cmp_int(a->tun[k], b->tun[k]);
	/* The same NI in another row is in another place: it goes back to its own. */
	return c || !a->id || !b->id ? c : cmp_int(a->id, b->id);
}

static int peer_cmp(const void *x, const void *y)
{
	OBJS(struct st_peer, x, y);
	int c = cmp_str(a->nid, b->nid);
	size_t i;
	int k;

	for (k = 0; !c && k < LNE_PEER_A__COUNT; k++)
		c = cmp_int(a->v[k], b->v[k]);
	c = c ? c : cmp_int(a->nnids, b->nnids);
	for (i = 0; !c && i < a->nnids; i++)
		c = cmp_str(a->nids[i], b->nids[i]);
	return c;
}

static int route_cmp(const void *x, const void *y)
{
	OBJS(struct st_route, x, y);
	int c = cmp_str(a->net, b->net), k;

	c = c ? c : cmp_str(a->gateway, b->gateway);
	for (k = 0; !c && k < LNE_ROUTE_A__COUNT; k++)
		c = cmp_int(a->v[k], b->v[k]);
	return c;
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

bool st_rule_same(const struct st_rule *a, const struct st_rule *b)
{
	int k;

	for (k = 0; k < LNE_RULE_A__COUNT; k++)
		if (lne_rule_desc[k].kind == LNE_RULE_K_EXPR
			    ? cmp_str(*st_rule_expr(a, k), *st_rule_expr(b, k)) != 0
			    : *st_rule_prio(a, k) != *st_rule_prio(b, k))
			return false;
	return true;
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
	int c, rc = a && b ? 0 : st_seterr(err, -ENOMEM, "store: out of memory");

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
	int pass, rc = st_op_begin(st, &m, err);

	if (rc)
		return rc;
	rc = store_state_get(st, &cur);
	if (rc)
		return st_op_end(st, &m, st_seterr(err, rc, "store: reading the state failed"));
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
	       st_rule_same(&cur.rule[same], &want->rule[same]))
		same++;
	for (i = cur.n_rule; !rc && i-- > same;)
		rc = store_rule_del(st, i, err);
	for (i = same; !rc && i < want->n_rule; i++) {
		r = want->rule[i];
		r.pos = i;
		rc = store_rule_add(st, &r, NULL, err);
	}
	st_state_clear(&cur);
	return st_op_end(st, &m, rc);
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
