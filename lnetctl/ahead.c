// SPDX-License-Identifier: GPL-2.0
/*
 * ahead.c - calls sent ahead (lnetctl.h, struct ctl_ahead): `peer show -v`
 * asks lnetd three things about every peer NI, and one call at a time made
 * that a round trip each, seconds for a few thousand peers.  The calls are
 * queued first, in the order their replies will be printed, then sent
 * CTL_AHEAD_WINDOW at a time ahead of the one being printed, so lnetd
 * answers while lnetctl writes.  The window stays under dbus-daemon's
 * bound on the replies one connection may wait for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"

#define CTL_AHEAD_WINDOW 32
#define CALL_TIMEOUT_US	 (600ull * 1000 * 1000)

struct ahead_call {
	const char *method; /* a literal */
	char *nid;
	sd_bus_slot *slot;
	sd_bus_message *reply;
	int rc; /* a send that failed */
	bool done;
};

struct ctl_ahead {
	sd_bus *bus;
	struct ahead_call *v;
	size_t n, cap, sent, taken;
};

struct ctl_ahead *ctl_ahead_new(sd_bus *bus)
{
	struct ctl_ahead *a = calloc(1, sizeof(*a));

	if (a)
		a->bus = bus;
	return a;
}

int ctl_ahead_push(struct ctl_ahead *a, const char *method, const char *nid)
{
	struct ahead_call *v;

	if (a->sent) /* the replies' addresses are the calls': no growing once sent */
		return -EBUSY;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;

		v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n] = (struct ahead_call){.method = method, .nid = strdup(nid)};
	if (!a->v[a->n].nid)
		return -ENOMEM;
	a->n++;
	return 0;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct ahead_call *c = userdata;

	(void)e;
	c->reply = sd_bus_message_ref(m);
	c->done = true;
	c->slot = sd_bus_slot_unref(c->slot);
	return 0;
}

static void send_ahead(struct ctl_ahead *a)
{
	while (a->sent < a->n && a->sent - a->taken < CTL_AHEAD_WINDOW) {
		struct ahead_call *c = &a->v[a->sent++];
		sd_bus_message *m = NULL;

		c->rc = sd_bus_message_new_method_call(a->bus, &m, LNETD_BUS_NAME, LNETD_BUS_PATH,
						       LNETD_BUS_MANAGER, c->method);
		if (c->rc >= 0)
			c->rc = sd_bus_message_append_basic(m, 's', c->nid);
		if (c->rc >= 0)
			c->rc = sd_bus_call_async(a->bus, &c->slot, m, on_reply, c,
						  CALL_TIMEOUT_US);
		c->done = c->rc < 0;
		sd_bus_message_unref(m);
	}
}

int ctl_ahead_call(struct ctl_ahead *a, sd_bus *bus, const char *method, const char *nid,
		   sd_bus_message **reply, sd_bus_error *e)
{
	struct ahead_call *c;
	int rc = 0;

	*reply = NULL;
	c = a && a->taken < a->n ? &a->v[a->taken] : NULL;
	/* Not the call queued next (or no queue): asked now, one round trip. */
	if (!c || strcmp(c->method, method) || strcmp(c->nid, nid))
		return sd_bus_call_method(bus, LNETD_BUS_NAME, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
					  method, e, reply, "s", nid);
	send_ahead(a);
	while (!c->done && rc >= 0) {
		rc = sd_bus_process(a->bus, NULL);
		if (rc == 0)
			rc = sd_bus_wait(a->bus, UINT64_MAX);
	}
	a->taken++;
	send_ahead(a);
	if (rc < 0)
		return rc;
	if (c->rc < 0)
		return c->rc;
	if (sd_bus_message_is_method_error(c->reply, NULL)) {
		rc = -sd_bus_error_get_errno(sd_bus_message_get_error(c->reply));
		sd_bus_error_copy(e, sd_bus_message_get_error(c->reply));
		c->reply = sd_bus_message_unref(c->reply);
		return rc < 0 ? rc : -EIO;
	}
	*reply = c->reply;
	c->reply = NULL;
	return 0;
}

void ctl_ahead_free(struct ctl_ahead *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		sd_bus_slot_unref(a->v[i].slot);
		sd_bus_message_unref(a->v[i].reply);
		free(a->v[i].nid);
	}
	free(a->v);
	free(a);
}
