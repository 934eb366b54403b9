// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - see events.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "engine/model.h"
#include "events.h"
#include "lnetd.h"
#include "log.h"

static void emit_peer(struct lnetd *d, const struct lnetd_event *ev)
{
	sd_bus_message *m = NULL;
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
	sd_bus_message_unref(m);
	if (rc < 0)
		log_warning("cannot send the signal PeerDiscovered: %s", strerror(-rc));
}

void lnetd_ni_name(const struct lnetd_ni *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s on %s", n->net, *n->ifname ? n->ifname : n->pattern);
}

void lnetd_event(struct lnetd *d, const struct lnetd_event *ev)
{
	const char *object = ev->peer ? "peer_ni" : "ni";
	bool healthy = ev->health >= LNE_HEALTH_MAX;
	const char *state;
	char gen[24];
	struct log_field f[] = {
		{"NI", ev->ni},
		{"NID", ev->nid},
		{"GENERATION", gen},
		{"OBJECT", ev->object},
	};
	int rc = 0;

	snprintf(gen, sizeof(gen), "%" PRIu64, d->generation);
	switch (ev->kind) {
	case LNETD_EV_NI_STATE:
		if (ev->applied)
			lnetd_log_with(LOG_INFO, f, 4, "NI %s: applied", ev->ni);
		else
			lnetd_log_with(LOG_WARNING, f, 4, "NI %s: pending: %s", ev->ni, ev->reason);
		if (d->bus)
			rc = sd_bus_emit_signal(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
						"NIStateChanged", "ssss", ev->ni, ev->nid ?: "",
						ev->applied ? "applied" : "pending",
						ev->applied ? "" : ev->reason);
		break;
	case LNETD_EV_HEALTH:
		state = ev->state ?: healthy ? "healthy" : "recovering";
		lnetd_log_with(healthy ? LOG_INFO : LOG_WARNING, f, 4, "%s %s: %s, health %u",
			       ev->peer ? "peer NI" : "NI", ev->nid, state, ev->health);
		if (d->bus)
			rc = sd_bus_emit_signal(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
						"HealthChanged", "sssu", object, ev->nid, state,
						ev->health);
		break;
	case LNETD_EV_CHANGE:
		lnetd_log_with(LOG_NOTICE, f, 4,
			       "generation %" PRIu64 ": %s%s (%zu operation%s) by uid %u%s%s",
			       d->generation, ev->object, ev->nops > 1 ? " and more" : "", ev->nops,
			       ev->nops == 1 ? "" : "s", ev->uid, ev->command ? ": " : "",
			       ev->command ?: "");
		break;
	case LNETD_EV_ROUTE:
		lnetd_log_with(strcmp(ev->state, "up") ? LOG_WARNING : LOG_INFO, f, 4,
			       "route to %s via %s: %s", ev->ni, ev->nid, ev->state);
		if (d->bus)
			rc = sd_bus_emit_signal(d->bus, LNETD_BUS_PATH, LNETD_BUS_MANAGER,
						"RouteStateChanged", "sss", ev->ni, ev->nid,
						ev->state);
		break;
	case LNETD_EV_PEER_DISCOVERED:
		lnetd_log_with(LOG_INFO, f, 4, "peer %s discovered: %zu NIDs", ev->nid, ev->nnids);
		if (d->bus)
			emit_peer(d, ev);
		break;
	}
	if (rc < 0)
		log_warning("cannot send a signal: %s", strerror(-rc));
}
