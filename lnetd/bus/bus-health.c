// SPDX-License-Identifier: GPL-2.0
/*
 * bus-health.c - SetHealth: the health of NIs and peer NIs, running state
 * rather than configuration (in the mirror, and in the engine that runs
 * LNet: backend.h).
 */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/events.h"
#include "lnetd/lnetd.h"

/* Health is the engine's running state: set it there too. */
static int engine_health(struct lnetd *d, bool peer, const struct lne_nid *nid, uint32_t value,
			 sd_bus_error *e)
{
	struct lne_err err = {.msg = ""};
	int rc = backend_ops_of(d)->set_health(d->backend, peer, nid, value, &err);

	return rc ? bus_engine_fail(e, rc, err.msg) : 0;
}

/* The health of @nid in the mirror now (the maximum if it has none). */
static s32 health_of(const struct lnetd *d, bool peer, const struct lne_nid *nid)
{
	const struct lne_peer_ni *pni = peer ? lne_peer_ni_find(d->mirror, nid) : NULL;
	const struct lne_ni *ni = peer ? NULL : lne_ni_find(d->mirror, nid);

	return pni ? pni->health : ni ? ni->health : LNE_HEALTH_MAX;
}

/* Healthy <-> not: the log and the HealthChanged signal (events.h). */
static void health_told(struct lnetd *d, bool peer, const struct lne_nid *nid, s32 before)
{
	struct lnetd_event ev = {.kind = LNETD_EV_HEALTH, .peer = peer};
	s32 now = health_of(d, peer, nid);
	char s[LNE_NID_STR_MAX];

	if ((before >= LNE_HEALTH_MAX) == (now >= LNE_HEALTH_MAX))
		return;
	lne_nid_format(nid, s, sizeof(s));
	ev.nid = s;
	ev.health = (uint32_t)now;
	lnetd_event(d, &ev);
}

/*
 * SetHealth("ni", NID | net | "", value) or ("peer_ni", NID | "", value):
 * what an admin does to steer traffic away from (or back to) a path for a
 * while.  It is not configuration: it is not stored, and a restart or a
 * rebuild of the engine starts every NI healthy again.
 */
int bus_method_set_health(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err lerr = {.msg = ""};
	const char *what, *target;
	struct lne_nid nid;
	char canon[LNE_NID_STR_MAX];
	struct caller c;
	lne_net_t net = 0;
	bool by_net = false, peer;
	uint32_t value, hit = 0;
	s32 before;
	int rc;

	rc = sd_bus_message_read(m, "ssu", &what, &target, &value);
	if (rc < 0)
		return rc;
	peer = !strcmp(what, "peer_ni");
	if (!peer && strcmp(what, "ni"))
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "'%s' has no health here: say ni or peer_ni", what);
	if (value > LNE_HEALTH_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "health %u is above %d", value,
					 LNE_HEALTH_MAX);
	if (*target && !strchr(target, '@') && !peer) {
		if (lne_net_parse(target, &net, &lerr))
			return bus_fail(e, -EINVAL, lerr.msg);
		by_net = true;
	} else if (*target) {
		rc = bus_nid_arg(target, &nid, canon, e);
		if (rc < 0)
			return rc;
	}
	rc = bus_authorise(m, &c, e);
	if (rc != 0) /* refused, or polkit is asked and the call comes back */
		return rc;
	if (!backend_ops_of(d)->set_health)
		return bus_engine_cannot(d, "set health", e);
	if (*target && !by_net) {
		before = health_of(d, peer, &nid);
		rc = peer ? lne_peer_ni_set_health(d->mirror, &nid, (s32)value, &lerr)
			  : lne_ni_set_health(d->mirror, &nid, (s32)value, &lerr);
		if (rc)
			return bus_fail(e, rc, lerr.msg);
		rc = engine_health(d, peer, &nid, value, e);
		if (rc < 0)
			return rc;
		health_told(d, peer, &nid, before);
		hit = 1;
	} else if (peer) {
		struct lne_peer *p;
		struct lne_peer_net *pnet;
		struct lne_peer_ni *pni;

		lne_list_for_each_entry(p, &d->mirror->peers, link)
			lne_list_for_each_entry(pnet, &p->pnets, link)
				lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
					before = pni->health;
					lne_peer_ni_set_health(d->mirror, &pni->nid, (s32)value,
							       NULL);
					if (rc >= 0)
						rc = engine_health(d, true, &pni->nid, value, e);
					health_told(d, true, &pni->nid, before);
					hit++;
				}
	} else {
		size_t i, k;

		for (i = 0; i < d->nnis; i++)
			for (k = 0; k < d->nis[i].nreal; k++) {
				if (by_net && lne_nid_net(&d->nis[i].real[k].nid) != net)
					continue;
				before = health_of(d, false, &d->nis[i].real[k].nid);
				lne_ni_set_health(d->mirror, &d->nis[i].real[k].nid, (s32)value,
						  NULL);
				if (rc >= 0)
					rc = engine_health(d, false, &d->nis[i].real[k].nid, value,
							   e);
				health_told(d, false, &d->nis[i].real[k].nid, before);
				hit++;
			}
		if (by_net && !hit)
			return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "no NI of %s is applied",
						 target);
	}
	if (rc < 0)
		return rc;
	if (backend_ops_of(d)->health_done) /* the engine's recovery may take it back up */
		backend_ops_of(d)->health_done(d->backend, peer);
	return sd_bus_reply_method_return(m, "u", hit);
}
