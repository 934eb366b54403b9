/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.h - the state changes people watch, told once: lnetd_event() logs
 * each (with the journal's fields, log.h) and emits its D-Bus signal on
 * org.lnetd1.Manager (lnetd(8), SIGNALS):
 *
 *   NIStateChanged(s ni, s nid, s state, s reason)
 *       a configured NI became "applied" (nid: its first NID) or "pending"
 *       (reason: why; nid ""), e.g. when its interface or address comes or
 *       goes;
 *   HealthChanged(s object, s nid, s state, u health)
 *       an NI ("ni") or a peer NI ("peer_ni") changed state: "healthy"
 *       (health back at the maximum, 1000), "recovering" (below it, on the
 *       recovery queue), "down" (a local NI's link) or "unreachable"
 *       (recovery_limit gave up on it);
 *   PeerDiscovered(s primary, as nids)
 *       discovery learnt a peer's NIDs;
 *   RouteStateChanged(s net, s gateway, s state)
 *       the userspace engine's router checker found a route "down" (its
 *       gateway did not answer, does not route, or has the remote net down)
 *       or "up" again.
 *
 * Every part of lnetd that changes one of these calls lnetd_event() and
 * nothing else: the log and the bus always agree.
 */
#ifndef LNETD_EVENTS_H
#define LNETD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lnetd;

enum lnetd_event_kind {
	LNETD_EV_NI_STATE,
	LNETD_EV_HEALTH,
	LNETD_EV_PEER_DISCOVERED,
	LNETD_EV_ROUTE, /* ni: the remote net, nid: the gateway, state: "up" or "down" */
	LNETD_EV_CHANGE, /* a committed change: logged only (Generation's PropertiesChanged tells the bus) */
};

struct lnetd_event {
	enum lnetd_event_kind kind;
	const char *ni; /* NI_STATE: "tcp on eth0" */
	const char *
		nid; /* NI_STATE: its first NID or ""; HEALTH: the (peer) NI's; PEER: the primary */
	bool applied;		 /* NI_STATE */
	const char *reason;	 /* NI_STATE, when pending */
	bool peer;		 /* HEALTH: a peer NI's */
	uint32_t health;	 /* HEALTH: the value now */
	const char *state;	 /* HEALTH: NULL says healthy or recovering by the value */
	const char *const *nids; /* PEER_DISCOVERED: its NIDs */
	size_t nnids;
	const char *object;  /* CHANGE: what its first operation touched, "net add" */
	size_t nops;	     /* CHANGE: operations */
	unsigned int uid;    /* CHANGE: who */
	const char *command; /* CHANGE: the caller's command line, or NULL */
};

void lnetd_event(struct lnetd *d, const struct lnetd_event *ev);
/* A LNETD_EV_HEALTH's state word, as the log and HealthChanged both say it. */
const char *lnetd_event_health_state(const struct lnetd_event *ev);

struct lnetd_ni;
#define LNETD_NI_NAME_MAX (16 + 128 + 8)
/* A configured NI as people name it: "tcp on eth0", or "tcp on 10.0.*.*" for a pattern. */
void lnetd_ni_name(const struct lnetd_ni *n, char *buf, size_t len);

#endif /* LNETD_EVENTS_H */
