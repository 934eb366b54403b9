// SPDX-License-Identifier: GPL-2.0
/*
 * lu-read.c - lu_read(): what lnet.ko holds that lnetd owns, as an engine
 * instance, so that the generic sync compares it with the store's as it
 * does the other engines'.
 *
 *  - NIs in lnet.ko's order, with their interface, CPTs (the set 0@lo spans
 *    is "every CPT") and tunables; the LND timeout is the LND's parameter;
 *  - peers added by a configuration only: lnet.ko's state bit
 *    LNET_PEER_CONFIGURED (every version gives it, with GET_PEER_NI and in
 *    the netlink dump).  Peers discovery or traffic made, and route
 *    gateways, are not lnetd's; a gateway comes back as the engine's
 *    implicit peer of its route.  Over /dev/lnet a configured peer's NIDs
 *    cannot be told from NIDs discovery added to it: all are read; a peer
 *    whose primary NID is IPv6 is not named there (lu_info()->peers_unnamed
 *    counts them; lu_peer_get_many() reads them by the primaries lnetd
 *    owns);
 *  - routes (a hop count not given reads as 1, the engine's default);
 *  - UDSP rules in lnet.ko's order;
 *  - every global this lnet.ko has (lu-sysfs.c's table).
 */
#include "lu-int.h"

struct peer_ctx {
	struct lne_inst *ln;
	struct lne_err *err;
	u32 n;
};

static int add_peer(const struct lu_peer *p, void *arg)
{
	struct peer_ctx *c = arg;
	enum lne_peer_got got;
	struct lne_peer *peer;
	size_t i;
	int rc;

	if (!p->configured)
		return 0;
	rc = lne_peer_get(c->ln, &p->primary, p->mr, &peer, &got, c->err);
	for (i = 0; !rc && i < p->n; i++)
		if (!lne_nid_equal(&p->nids[i], &p->primary))
			rc = lne_peer_add_nid_to(c->ln, peer, &p->nids[i], c->err);
	if (!rc && ++c->n % 4096 == 0)
		lne_inst_reserve(c->ln, 8192);
	return rc;
}

static int read_nis(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	struct lu_ni *nis;
	size_t n, i;
	int rc;

	rc = lu_ni_list(lu, &nis, &n, err);
	if (rc)
		return rc;
	for (i = 0; !rc && i < n; i++) {
		struct lne_ni_conf c;
		u32 t;

		memset(&c, 0, sizeof(c));
		c.nid = nis[i].nid;
		c.ifname = nis[i].ifname[0] ? nis[i].ifname : NULL;
		c.cpts = nis[i].cpts;
		c.dev_cpt = nis[i].dev_cpt < 0 ? LNE_CPT_ANY : nis[i].dev_cpt;
		if (!lu_lnd_timeout_get(lu, c.nid.lnd, &t, NULL))
			nis[i].tun.timeout = t;
		c.tun = &nis[i].tun;
		rc = lne_ni_add(ln, &c, err);
	}
	free(nis);
	return rc;
}

static int read_routes(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	struct lu_route *rs;
	size_t n, i;
	int rc;

	rc = lu_route_list(lu, &rs, &n, err);
	if (rc)
		return rc;
	for (i = 0; !rc && i < n; i++) {
		u32 v[LNE_ROUTE_A__COUNT];

		lne_route_defaults(v);
		v[LNE_ROUTE_A_HOPS] = rs[i].hops == LU_HOPS_NONE ? LNE_HOPS_DEFAULT : rs[i].hops;
		v[LNE_ROUTE_A_PRIORITY] = rs[i].priority;
		v[LNE_ROUTE_A_SENSITIVITY] = rs[i].sensitivity;
		rc = lne_route_add_v(ln, rs[i].net, &rs[i].gw, v, err);
	}
	free(rs);
	return rc;
}

static int read_rules(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	struct lu_rule *rs;
	size_t n, i;
	int rc;

	rc = lu_rule_list(lu, &rs, &n, err);
	if (rc)
		return rc;
	for (i = 0; !rc && i < n; i++) {
		enum lne_rule_outcome out;
		u32 idx;

		rc = lne_rule_add(ln, rs[i].src[0] ? rs[i].src : NULL,
				  rs[i].dst[0] ? rs[i].dst : NULL, rs[i].rte[0] ? rs[i].rte : NULL,
				  rs[i].prio, -1, &out, &idx, err);
	}
	free(rs);
	return rc;
}

static int read_globals(struct lu *lu, struct lne_inst *ln, struct lne_err *err)
{
	/* transaction_timeout before retry_count: the engine keeps one below the other */
	static const enum lne_global first = LNE_G_TRANSACTION_TIMEOUT;
	int g, rc;
	u32 v;

	for (g = -1; g < LNE_G__COUNT; g++) {
		enum lne_global gg = g < 0 ? first : (enum lne_global)g;

		if ((g >= 0 && gg == first) || !lu_global_held(lu, gg))
			continue;
		rc = lu_global_get(lu, gg, &v, err);
		if (rc)
			return rc;
		rc = lne_global_set(ln, gg, v, err);
		if (rc)
			return rc;
	}
	return 0;
}

int lu_read(struct lu *lu, struct lne_inst *into, struct lne_err *err)
{
	struct peer_ctx pc = {into, err, 0};
	int rc;

	rc = read_nis(lu, into, err);
	if (!rc)
		rc = lu_peer_each(lu, add_peer, &pc, err);
	if (!rc)
		rc = read_routes(lu, into, err);
	if (!rc)
		rc = read_rules(lu, into, err);
	if (!rc)
		rc = read_globals(lu, into, err);
	return rc;
}
