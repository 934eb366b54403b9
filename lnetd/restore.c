// SPDX-License-Identifier: GPL-2.0
/*
 * restore.c - from the store's desired state to an engine instance, at
 * start and after a refused change: globals, peers, routes, then rules (the
 * order does not change the flattened result; NIs come with the interfaces
 * they need).  Everything in the store was validated by the engine when it was
 * committed, so a refusal here means the store and the code disagree (a
 * newer rule of the engine, a hand-edited database): lnetd says which
 * object and stops rather than run with part of the configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "engine/udsp.h"
#include "lnetd.h"
#include "lnetd/backend/backend.h"
#include "lnetd/log.h"
#include "nrs.h"
#include "numa.h"

static int refused(char **why, const char *what, const char *msg)
{
	if (asprintf(why, "stored %s refused by the engine: %s", what, msg) < 0)
		*why = NULL;
	return -EINVAL;
}

int lnetd_restore(struct lnetd *d, struct lne_inst **out, char **why)
{
	struct st_state st = {0};
	struct lne_inst *ln;
	struct lne_err err;
	size_t i;
	int rc;

	*why = NULL;
	rc = store_state_get(d->store, &st);
	if (rc)
		return rc;
	ln = lne_inst_new();
	if (!ln) {
		st_state_clear(&st);
		return -ENOMEM;
	}
	for (i = 0; !rc && i < st.n_global; i++) {
		int g = lne_global_lookup(st.global[i].name);

		rc = g < 0 ? refused(why, "global", st.global[i].name)
			   : lne_global_set(ln, g, (u32)st.global[i].value, &err);
		if (rc && !*why)
			refused(why, "global", err.msg);
	}
	for (i = 0; !rc && i < st.n_peer; i++) {
		const struct st_peer *p = &st.peer[i];
		struct lne_nid prim, nid;
		char what[LNE_NID_STR_MAX + 8];
		size_t k;

		rc = lne_nid_parse(p->nid, &prim, &err);
		if (!rc)
			rc = lne_peer_add(
				ln, &(struct lne_peer_conf){.primary = prim, .multi_rail = p->mr},
				&err);
		for (k = 0; !rc && k < p->nnids; k++) {
			rc = lne_nid_parse(p->nids[k], &nid, &err);
			if (!rc)
				rc = lne_peer_add_nid(ln, &prim, &nid, &err);
		}
		/* The store keeps only primary NIDs unique: a NID two peers share
		 * (a file edited by hand) is refused here, naming both. */
		snprintf(what, sizeof(what), "peer %s", p->nid);
		if (rc)
			refused(why, what, err.msg);
	}
	for (i = 0; !rc && i < st.n_route; i++) {
		const struct st_route *r = &st.route[i];
		u32 v[LNE_ROUTE_A__COUNT];
		struct lne_nid gw;
		lne_net_t net;

		rc = lne_net_parse(r->net, &net, &err);
		if (!rc)
			rc = lne_nid_parse(r->gateway, &gw, &err);
		if (!rc)
			rc = lne_route_add_v(ln, net, &gw, lnetd_route_values(r, v), &err);
		if (rc)
			refused(why, "route", err.msg);
	}
	for (i = 0; !rc && i < st.n_rule; i++) {
		struct lne_rule_conf c;

		lnetd_rule_conf_of(&st.rule[i], &c);
		rc = lne_rule_add(ln, &c, -1, NULL, NULL, &err);
		if (rc)
			refused(why, "rule", err.msg);
	}
	st_state_clear(&st);
	if (rc) {
		lne_inst_free(ln);
		return rc;
	}
	/* The distances the module would take from node_distance(). */
	if (numa_from_sysfs(ln, "/sys/devices/system/node") < 0 && !d->numa_warned) {
		d->numa_warned = true;
		log_warning("the NUMA distances in sysfs make no square table; "
			    "treating every distance as equal");
	}
	*out = ln;
	return 0;
}

/*
 * Health is running state: what SetHealth or traffic lowered survives a
 * rebuild, and so does a local NI's being set down by hand (and only that:
 * health 0 from a link gone down is not).
 */
struct health {
	struct lne_nid nid;
	s32 health;
	bool peer;
	bool set_down;
};

static size_t health_save(const struct lne_inst *ln, struct health **out)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	const struct lne_peer *peer;
	const struct lne_net *net;
	const struct lne_ni *ni;
	struct health *h = NULL, *grown;
	size_t n = 0;

	lne_list_for_each_entry(net, &ln->nets, link)
		lne_list_for_each_entry(ni, &net->nis, link) {
			if (ni->health == LNE_HEALTH_MAX && !ni->set_down)
				continue;
			grown = realloc(h, (n + 1) * sizeof(*h));
			if (!grown)
				break;
			h = grown;
			h[n++] = (struct health){ni->nid, ni->health, false, ni->set_down};
		}
	lne_list_for_each_entry(peer, &ln->peers, link)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (pni->health == LNE_HEALTH_MAX)
					continue;
				grown = realloc(h, (n + 1) * sizeof(*h));
				if (!grown)
					break;
				h = grown;
				h[n++] = (struct health){pni->nid, pni->health, true, false};
			}
	*out = h;
	return n;
}

int lnetd_mirror_rebuild(struct lnetd *d, bool tbf, char **why)
{
	struct health *h = NULL;
	struct lne_inst *ln;
	bool changed;
	size_t i, nh;
	int rc;

	rc = lnetd_restore(d, &ln, why);
	if (rc)
		return rc;
	nh = health_save(d->mirror, &h);
	lne_inst_free(d->mirror);
	d->mirror = ln;
	backend_mirror_replaced(d); /* before anything can send: the old instance is gone */
	rc = tbf ? lnetd_tbf_restore(d, why) : 0;
	if (!rc)
		rc = lnetd_nis_load(d);
	for (i = 0; !rc && i < d->nnis; i++)
		lnetd_ni_reconcile(d, &d->nis[i], &changed);
	/* Objects that are gone take their health with them: errors are expected. */
	for (i = 0; i < nh; i++) {
		struct lne_ni *ni = h[i].peer ? NULL : lne_ni_find(d->mirror, &h[i].nid);

		if (h[i].peer) {
			lne_peer_ni_set_health(d->mirror, &h[i].nid, h[i].health, NULL);
		} else if (ni) { /* not lne_ni_set_health(): that is a setting by hand */
			ni->health = h[i].health;
			ni->set_down = h[i].set_down;
		}
	}
	free(h);
	return rc;
}
