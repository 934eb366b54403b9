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

#include "lnetd.h"
#include "numa.h"
#include "udsp.h"

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
		size_t k;

		rc = lne_nid_parse(p->nid, &prim, &err);
		if (!rc)
			rc = lne_peer_add(ln, &prim, p->mr, &err);
		for (k = 0; !rc && k < p->nnids; k++) {
			rc = lne_nid_parse(p->nids[k], &nid, &err);
			if (!rc)
				rc = lne_peer_add_nid(ln, &prim, &nid, &err);
		}
		if (rc)
			refused(why, "peer", err.msg);
	}
	for (i = 0; !rc && i < st.n_route; i++) {
		const struct st_route *r = &st.route[i];
		struct lne_nid gw;
		lne_net_t net;

		rc = lne_net_parse(r->net, &net, &err);
		if (!rc)
			rc = lne_nid_parse(r->gateway, &gw, &err);
		if (!rc)
			rc = lne_route_add(ln, net, &gw,
					   r->hops == ST_UNSET ? LNE_HOPS_DEFAULT : (u32)r->hops,
					   r->priority == ST_UNSET ? 0 : (u32)r->priority,
					   r->sensitivity == ST_UNSET ? 1 : (u32)r->sensitivity,
					   &err);
		if (rc)
			refused(why, "route", err.msg);
	}
	for (i = 0; !rc && i < st.n_rule; i++) {
		const struct st_rule *r = &st.rule[i];

		rc = lne_rule_add(ln, r->src, r->dst, r->rte,
				  r->priority == ST_UNSET ? LNE_PRIO_NONE : (u32)r->priority, -1,
				  NULL, NULL, &err);
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
		fprintf(stderr, "lnetd: the NUMA distances in sysfs make no square table; "
				"treating every distance as equal\n");
	}
	*out = ln;
	return 0;
}

int lnetd_mirror_rebuild(struct lnetd *d, char **why)
{
	struct lne_inst *ln;
	bool changed;
	size_t i;
	int rc;

	rc = lnetd_restore(d, &ln, why);
	if (rc)
		return rc;
	lne_inst_free(d->mirror);
	d->mirror = ln;
	rc = lnetd_nis_load(d);
	for (i = 0; !rc && i < d->nnis; i++)
		lnetd_ni_reconcile(d, &d->nis[i], &changed);
	return rc;
}
