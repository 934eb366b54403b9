// SPDX-License-Identifier: GPL-2.0
/*
 * bus-route.c - the route methods (AddRoute, DeleteRoute, ListRoutes), and
 * the fields of a route that AddRoute and Apply's "route" operations read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

void bus_route_fields_init(struct route_fields *rf)
{
	int k;

	memset(rf, 0, sizeof(*rf));
	rf->f[ROUTE_F_NET] = (struct field){"net", 's', &rf->net};
	rf->f[ROUTE_F_GATEWAY] = (struct field){"gateway", 's', &rf->gateway};
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		rf->f[ROUTE_F_ATTRS + k] = (struct field){lne_route_desc[k].name, 'u', &rf->v[k]};
}

void bus_route_fields_op(const struct route_fields *rf, struct lnetd_op *op)
{
	int k;

	op->u.route = (struct st_route){.net = rf->net, .gateway = rf->gateway};
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		op->u.route.v[k] = given_or_unset(&rf->f[ROUTE_F_ATTRS + k], rf->v[k]);
}

static int route_method(sd_bus_message *m, struct lnetd *d, enum lnetd_verb verb, sd_bus_error *e)
{
	struct lnetd_op op = {.verb = verb, .obj = OBJ_ROUTE};
	struct route_fields rf;
	int rc;

	bus_route_fields_init(&rf);
	rc = sd_bus_message_read(m, "ss", &rf.net, &rf.gateway);
	if (rc >= 0 && verb == VERB_ADD)
		rc = bus_read_fields(m, rf.f + ROUTE_F_ATTRS, "AddRoute", e);
	if (rc < 0)
		return rc;
	bus_route_fields_op(&rf, &op);
	return bus_change_one(m, d, &op, e);
}

int bus_method_add_route(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return route_method(m, userdata, VERB_ADD, e);
}

int bus_method_delete_route(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return route_method(m, userdata, VERB_DEL, e);
}

/* The routes the engine's router checker took down, sorted to be looked up. */
struct downs {
	struct down {
		lne_net_t net;
		struct lne_nid gw;
	} * v;
	size_t n, cap;
};

static int down_add(void *arg, lne_net_t net, const struct lne_nid *gw, bool down)
{
	struct downs *k = arg;

	if (!down)
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		struct down *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = (struct down){net, *gw};
	return 0;
}

static int down_cmp(const void *a, const void *b)
{
	const struct down *x = a, *y = b;

	if (x->net != y->net)
		return x->net < y->net ? -1 : 1;
	return lne_nid_cmp(&x->gw, &y->gw);
}

static bool down_has(const struct downs *k, const struct lne_route *rt)
{
	struct down key = {rt->rnet->id, rt->gw->nid};

	return k->n && bsearch(&key, k->v, k->n, sizeof(*k->v), down_cmp);
}

int bus_method_list_routes(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	const struct lne_route *rt;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const struct backend_ops *ops = backend_ops_of(d);
	struct downs kd = {0};
	bool states;
	int rc, k;

	/* the engine's router checker's verdicts, read now (none while it is away) */
	states = ops->route_states && ops->route_states(d->backend, down_add, &kd) >= 0;
	if (states && kd.n)
		qsort(kd.v, kd.n, sizeof(*kd.v), down_cmp);
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(ssa{sv})");
	lne_list_for_each_entry(rt, &d->mirror->routes, link) {
		lne_net_format(rt->rnet->id, nbuf, sizeof(nbuf));
		lne_nid_format(&rt->gw->nid, gbuf, sizeof(gbuf));
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'r', "ssa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append(reply, "ss", nbuf, gbuf);
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "{sv}");
		for (k = 0; rc >= 0 && k < LNE_ROUTE_A__COUNT; k++)
			rc = sd_bus_message_append(reply, "{sv}", lne_route_desc[k].name, "u",
						   rt->v[k]);
		/* the router checker's verdict, the engine's */
		if (rc >= 0 && states)
			rc = sd_bus_message_append(reply, "{sv}", "state", "s",
						   down_has(&kd, rt) ? "down" : "up");
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	free(kd.v);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}
