// SPDX-License-Identifier: GPL-2.0
/*
 * model-route.c - the remote-net records (a net seen as a destination:
 * the peer NIs and routes on it, and its peer-net priority) and the routes,
 * whose gateways are peers, made implicit when no peer has the NID yet.
 */
#include "model-int.h"
#include "udsp.h"

/* --- remote-net records ---------------------------------------------------- */

struct lne_rnet *lne_rnet_find(const struct lne_inst *ln, lne_net_t id)
{
	struct lne_rnet *rnet;

	lne_list_for_each_entry(rnet, &ln->rnets, link)
		if (rnet->id == id)
			return rnet;
	return NULL;
}

struct lne_rnet *modeli_rnet_get(struct lne_inst *ln, lne_net_t id)
{
	struct lne_rnet *rnet = lne_rnet_find(ln, id);

	if (rnet) {
		rnet->refs++;
		return rnet;
	}
	rnet = lne_zalloc(sizeof(*rnet));
	if (!rnet)
		return NULL;
	rnet->id = id;
	rnet->refs = 1;
	rnet->prio.value = LNE_PRIO_NONE;
	lne_list_init(&rnet->pnis);
	lne_list_init(&rnet->routes);
	lne_list_add_tail(&rnet->link, &ln->rnets);
	lne_udsp_rnet_added(ln, rnet);
	return rnet;
}

void modeli_rnet_put(struct lne_rnet *rnet)
{
	if (--rnet->refs)
		return;
	lne_list_del(&rnet->link);
	lne_free(rnet);
}

/* --- routes ------------------------------------------------------------------ */

struct lne_route *lne_route_find(const struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw)
{
	struct lne_rnet *rnet = lne_rnet_find(ln, net);
	struct lne_route *rt;

	if (!rnet)
		return NULL;
	lne_list_for_each_entry(rt, &rnet->routes, rnet_link)
		if (lne_nid_equal(&rt->gw->nid, gw))
			return rt;
	return NULL;
}

/* A route; @copy: one the source of a copy holds, to a net that may be local since. */
int modeli_route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw,
		     const u32 v[LNE_ROUTE_A__COUNT], bool copy, struct lne_err *err)
{
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_peer_ni *gpni;
	struct lne_peer *implicit = NULL;
	struct lne_route *rt;
	int rc;

	modeli_net_str(net, nbuf);
	modeli_nid_str(gw, gbuf);
	if (!lne_lnd_name(LNE_NET_LND(net)) || LNE_NET_LND(net) == LNE_LND_LO)
		return lne_err_set(err, -EINVAL, nbuf, -1, "not a net a route can lead to");
	if (!copy && lne_net_find(ln, net))
		return lne_err_set(err, -EEXIST, nbuf, -1,
				   "is a local net; routes lead to remote nets");
	if (lne_nid_net(gw) == net)
		return lne_err_set(err, -EINVAL, gbuf, -1, "a gateway to %s cannot be on %s itself",
				   nbuf, nbuf);
	for (rc = 0; rc < LNE_ROUTE_A__COUNT; rc++) {
		const struct lne_route_desc *a = &lne_route_desc[rc];

		if (v[rc] >= a->min && v[rc] <= a->max)
			continue;
		if (a->min)
			return lne_err_set(err, -ERANGE, nbuf, -1, "%s %u is outside %u..%u",
					   a->name, v[rc], a->min, a->max);
		return lne_err_set(err, -ERANGE, nbuf, -1, "route %s %u is above %u", a->name,
				   v[rc], a->max);
	}
	if (lne_route_find(ln, net, gw))
		return lne_err_set(err, -EEXIST, nbuf, -1, "a route through %s exists already",
				   gbuf);
	/* the loopback NI is local too, though it is on no list */
	if (gw->lnd == LNE_LND_LO || lne_ni_find(ln, gw))
		return lne_err_set(err, -EINVAL, gbuf, -1, "is a local NI; a gateway is a peer");

	rt = lne_zalloc(sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	rt->rnet = modeli_rnet_get(ln, net);
	if (!rt->rnet) {
		lne_free(rt);
		return -ENOMEM;
	}
	gpni = lne_peer_ni_find(ln, gw);
	if (!gpni) {
		implicit = modeli_peer_new(ln, gw, modeli_nid_hash(gw), false, true);
		gpni = implicit ? lne_peer_ni_find(ln, gw) : NULL;
		if (!gpni) {
			modeli_rnet_put(rt->rnet);
			lne_free(rt);
			return -ENOMEM;
		}
	}
	if (!gpni->gw_refs) {
		rc = lne_udsp_gw_added(ln, gpni);
		if (rc) {
			lne_udsp_gw_removing(ln, gpni);
			if (implicit)
				lne_peer_del(ln, gw, NULL);
			modeli_rnet_put(rt->rnet);
			lne_free(rt);
			return rc;
		}
	}
	gpni->gw_refs++;
	rt->gw = gpni;
	memcpy(rt->v, v, sizeof(rt->v));
	rt->id = ln->next_id++;
	lne_list_add_tail(&rt->link, &ln->routes);
	lne_list_add_tail(&rt->rnet_link, &rt->rnet->routes);
	ln->nroute++;
	lne_changed(ln);
	return 0;
}

int lne_route_add_v(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw,
		    const u32 v[LNE_ROUTE_A__COUNT], struct lne_err *err)
{
	return modeli_route_add(ln, net, gw, v, false, err);
}

void lne_route_defaults(u32 v[LNE_ROUTE_A__COUNT])
{
	int k;

	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		v[k] = lne_route_desc[k].def;
}

int lne_route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, u32 hops,
		  u32 priority, u32 sensitivity, struct lne_err *err)
{
	u32 v[LNE_ROUTE_A__COUNT];

	lne_route_defaults(v);
	v[LNE_ROUTE_A_HOPS] = hops;
	v[LNE_ROUTE_A_PRIORITY] = priority;
	v[LNE_ROUTE_A_SENSITIVITY] = sensitivity;
	return modeli_route_add(ln, net, gw, v, false, err);
}

int lne_route_del(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, struct lne_err *err)
{
	struct lne_route *rt = lne_route_find(ln, net, gw);
	char nbuf[LNE_NET_STR_MAX], gbuf[LNE_NID_STR_MAX];
	struct lne_peer_ni *gpni;
	struct lne_peer *peer;

	if (!rt)
		return lne_err_set(err, -ENOENT, modeli_net_str(net, nbuf), -1,
				   "no route through %s", modeli_nid_str(gw, gbuf));
	gpni = rt->gw;
	ln->nroute--;
	lne_list_del(&rt->link);
	lne_list_del(&rt->rnet_link);
	modeli_rnet_put(rt->rnet);
	lne_free(rt);
	if (!--gpni->gw_refs) {
		lne_udsp_gw_removing(ln, gpni);
		peer = lne_peer_of(gpni);
		if (peer->implicit)
			lne_peer_del(ln, &peer->primary, NULL);
	}
	lne_changed(ln);
	return 0;
}
