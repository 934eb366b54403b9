// SPDX-License-Identifier: GPL-2.0
/*
 * bus-signal.c - what lnetd tells the bus unasked: the signal of each
 * event (events.h says which, lnetd(8) SIGNALS) and Generation's
 * PropertiesChanged after a change.  The rest of lnetd calls these and
 * never sd-bus itself: D-Bus lives under lnetd/bus/ (and main.c's setup).
 */
#include <string.h>
#include <systemd/sd-bus.h>

#include "common/cleanup.h"
#include "lnetd/events.h"
#include "lnetd/lnetd.h"
#include "lnetd/log.h"

static void emit_peer(struct lnetd *d, const struct lnetd_event *ev)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	size_t i;
	int rc;

	rc = sd_bus_message_new_signal(d->bus, &m, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
				       "PeerDiscovered");
	if (rc >= 0)
		rc = sd_bus_message_append(m, "s", ev->nid);
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "s");
	for (i = 0; rc >= 0 && i < ev->nnids; i++)
		rc = sd_bus_message_append(m, "s", ev->nids[i]);
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_send(d->bus, m, NULL);
	if (rc < 0)
		log_warning("cannot send the signal PeerDiscovered: %s", strerror(-rc));
}

void lnetd_bus_signal(struct lnetd *d, const struct lnetd_event *ev)
{
	int rc = 0;

	if (!d->bus)
		return;
	switch (ev->kind) {
	case LNETD_EV_NI_STATE:
		rc = sd_bus_emit_signal(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER, "NIStateChanged",
					"ssss", ev->ni, ev->nid ?: "",
					ev->applied ? "applied" : "pending",
					ev->applied ? "" : ev->reason);
		break;
	case LNETD_EV_HEALTH:
		rc = sd_bus_emit_signal(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER, "HealthChanged",
					"sssu", ev->peer ? "peer_ni" : "ni", ev->nid,
					lnetd_event_health_state(ev), ev->health);
		break;
	case LNETD_EV_ROUTE:
		rc = sd_bus_emit_signal(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
					"RouteStateChanged", "sss", ev->ni, ev->nid, ev->state);
		break;
	case LNETD_EV_PEER_DISCOVERED:
		emit_peer(d, ev);
		break;
	case LNETD_EV_CHANGE: /* Generation's PropertiesChanged tells it */
		break;
	}
	if (rc < 0)
		log_warning("cannot send a signal: %s", strerror(-rc));
}

void lnetd_bus_generation_changed(struct lnetd *d)
{
	if (d->bus)
		sd_bus_emit_properties_changed(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
					       "Generation", NULL);
}
