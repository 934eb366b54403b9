// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - see events.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/model.h"
#include "events.h"
#include "lnetd.h"
#include "log.h"

void lnetd_ni_name(const struct lnetd_ni *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s on %s", n->net, *n->ifname ? n->ifname : n->pattern);
}

const char *lnetd_event_health_state(const struct lnetd_event *ev)
{
	return ev->state ?: ev->health >= LNE_HEALTH_MAX ? "healthy" : "recovering";
}

void lnetd_event(struct lnetd *d, const struct lnetd_event *ev)
{
	bool healthy = ev->health >= LNE_HEALTH_MAX;
	char gen[24];
	struct log_field f[] = {
		{"NI", ev->ni},
		{"NID", ev->nid},
		{"GENERATION", gen},
		{"OBJECT", ev->object},
	};

	snprintf(gen, sizeof(gen), "%" PRIu64, d->generation);
	switch (ev->kind) {
	case LNETD_EV_NI_STATE:
		if (ev->applied)
			lnetd_log_with(LOG_INFO, f, 4, "NI %s: applied", ev->ni);
		else
			lnetd_log_with(LOG_WARNING, f, 4, "NI %s: pending: %s", ev->ni, ev->reason);
		break;
	case LNETD_EV_HEALTH:
		lnetd_log_with(healthy ? LOG_INFO : LOG_WARNING, f, 4, "%s %s: %s, health %u",
			       ev->peer ? "peer NI" : "NI", ev->nid, lnetd_event_health_state(ev),
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
		break;
	case LNETD_EV_PEER_DISCOVERED:
		lnetd_log_with(LOG_INFO, f, 4, "peer %s discovered: %zu NIDs", ev->nid, ev->nnids);
		break;
	}
	lnetd_bus_signal(d, ev); /* bus-signal.c */
}
