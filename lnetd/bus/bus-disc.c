// SPDX-License-Identifier: GPL-2.0
/*
 * bus-disc.c - Discover(s nid, b force) -> a{sv}: discover the peer with
 * @nid (lnetd/dp-disc.c) and answer as Ping does, with the peer as
 * discovery left it (its primary NID first).  Discovery makes peers and
 * sends messages: it needs the right to change (upstream's lnetctl
 * discover needs root); reading what it found (ListPeers) does not.  With
 * the kernel engine the module discovers (LNETK_CMD_PING with
 * LNETK_PING_A_DISCOVER), on a thread as a ping does.
 */
#include <errno.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/backend/userspace/dp.h"
#include "lnetd/lnetd.h"

/* The kernel engine's wait: a round's ping may take the node's ping timeout (50 s). */
#define DISCOVER_TIMEOUT_MS 60000

int bus_method_discover(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char canon[LNE_NID_STR_MAX];
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
	if (d->kb)
		return bus_kernel_ping(d, m, canon, "", DISCOVER_TIMEOUT_MS, force ? 2 : 1, e);
	if (!d->dp)
		return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED, "no data path to discover on");
	return lnetd_dp_discover(d->dp, m, &nd, force, e);
}
