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
#include "liblnetk/lnetk-client.h"
#include "lnetd/backend/lnetk/kernel.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

void bus_route_fields_init(struct route_fields *rf)
{
	int k;

	memset(rf, 0, sizeof(*rf));
	rf->f[0] = (struct field){"net", 's', &rf->net};
	rf->f[1] = (struct field){"gateway", 's', &rf->gateway};
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		rf->f[2 + k] = (struct field){lne_route_desc[k].name, 'u', &rf->v[k]};
}

void bus_route_fields_op(const struct route_fields *rf, struct lnetd_op *op)
{
	int k;

	op->u.route = (struct st_route){.net = rf->net, .gateway = rf->gateway};
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		op->u.route.v[k] = given_or_unset(&rf->f[2 + k], rf->v[k]);
}

static int route_method(sd_bus_message *m, struct lnetd *d, enum lnetd_verb verb, sd_bus_error *e)
{
	struct lnetd_op op = {.verb = verb, .obj = OBJ_ROUTE};
	struct route_fields rf;
	int rc;

	bus_route_fields_init(&rf);
	rc = sd_bus_message_read(m, "ss", &rf.net, &rf.gateway);
	if (rc >= 0 && verb == VERB_ADD)
		rc = bus_read_fields(m, rf.f + 2, "AddRoute", e);
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

/* The module's routes that its router checker took down, as "net gateway" lines. */
struct kdown {
	char *text;
	size_t len, cap;
};

static int kdown_add(const struct lnetk_route *r, void *arg)
{
	struct kdown *k = arg;
	size_t need = strlen(r->net) + strlen(r->gateway) + 3;
	char *t;

	if (!r->down)
		return 0;
	if (k->len + need > k->cap) {
		size_t cap = (k->cap + need) * 2;

		t = realloc(k->text, cap);
		if (!t)
			return -ENOMEM;
		k->text = t;
		k->cap = cap;
	}
	k->len += (size_t)sprintf(k->text + k->len, "\n%s %s", r->net, r->gateway);
	return 0;
}

/* Whether @net @gw is in @k (the module's down routes). */
static bool kdown_has(const struct kdown *k, const char *net, const char *gw)
{
	char line[LNE_NET_STR_MAX + LNE_NID_STR_MAX + 3];
	const char *p;
	size_t n;

	if (!k->text)
		return false;
	n = (size_t)snprintf(line, sizeof(line), "\n%s %s", net, gw);
	for (p = k->text; (p = strstr(p, line)); p += n)
		if (p[n] == '\n' || !p[n])
			return true;
	return false;
}

int bus_method_list_routes(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	const struct lne_route *rt;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct lnetk *lk = d->kb ? kbackend_lnetk(d->kb) : NULL;
	struct lnetk_err kerr = {""};
	struct kdown kd = {0};
	int rc, k;

	/* the module's router checker's verdicts, read now (none while it is away) */
	if (lk && lnetk_route_dump(lk, kdown_add, &kd, &kerr) < 0)
		lk = NULL;
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
		/* the router checker's verdict: the userspace engine's, or the module's */
		if (rc >= 0 && (d->dp || lk))
			rc = sd_bus_message_append(
				reply, "{sv}", "state", "s",
				(lk ? kdown_has(&kd, nbuf, gbuf) : rt->down) ? "down" : "up");
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
		if (rc >= 0)
			rc = sd_bus_message_close_container(reply);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	free(kd.text);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}
