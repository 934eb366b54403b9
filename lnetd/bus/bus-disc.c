// SPDX-License-Identifier: GPL-2.0
/*
 * bus-disc.c - Discover(s nid, b force) -> a{sv}: discover the peer with
 * @nid (the engine's discovery: backend.h) and answer as Ping does, with
 * the peer as discovery left it (its primary NID first).  Discovery makes
 * peers and sends messages: it needs the right to change (upstream's
 * lnetctl discover needs root); reading what it found (ListPeers) does
 * not.
 */
#include <errno.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/lnetd.h"

/* The most an engine that waits for the answer waits: a round's ping may take the node's
 * ping timeout (50 s). */
#define DISCOVER_TIMEOUT_MS 60000

int bus_method_discover(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char canon[LNE_NID_STR_MAX];
	struct bk_call *call;
	const char *nid;
	struct lne_nid nd;
	struct caller c;
	int rc, force;

	rc = sd_bus_message_read(m, "sb", &nid, &force);
	if (rc < 0)
		return rc;
	rc = bus_nid_arg(nid, &nd, canon, e);
	if (rc < 0)
		return rc;
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!backend_ops_of(d)->discover)
		return bus_engine_cannot(d, "discover peers", e);
	call = bk_call_new();
	if (!call)
		return -ENOMEM;
	call->dst = nd;
	call->force = force;
	call->timeout_ms = DISCOVER_TIMEOUT_MS;
	return bus_call_start(d, m, backend_ops_of(d)->discover, call, false, e);
}
