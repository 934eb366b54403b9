// SPDX-License-Identifier: GPL-2.0
/*
 * lu-route.c - routes, routing and router buffers over /dev/lnet.
 *
 *  - ADD_ROUTE/DEL_ROUTE by net and gateway; GET_ROUTE by index until
 *    -ENOENT.  A route's health sensitivity lives on its gateway's peer in
 *    lnet.ko 2.15 and 2.16 (one per gateway, the last route's), and 0 there
 *    means 1; 2.17 ignores it and answers none.
 *  - CONFIG_RTR turns routing on or off; ADD_BUF sets the pools' sizes
 *    (-1: unchanged) and is silently a no-op while routing is off, so that
 *    case is refused here; GET_BUF answers one CPT's pools and the routing
 *    flag (-ENOENT until routing was first turned on).  The sizes as
 *    configured are the module parameters tiny/small/large_router_buffers
 *    (read only in sysfs, but set by ADD_BUF; 0 is lnet.ko's default).
 */
#include "lu-int.h"

int lu_ioc_route_add(struct lu *lu, const struct lu_route *rt, struct lne_err *err)
{
	struct lu_ioc_config r;
	char s[LNE_NET_STR_MAX + LNE_NID_STR_MAX + 16], ns[LNE_NID_STR_MAX];
	u64 gw4;
	int rc;

	lne_net_format(rt->net, s, sizeof(s));
	snprintf(s + strlen(s), sizeof(s) - strlen(s), " via %s", lu_nidstr(&rt->gw, ns));
	rc = lu_nid4(lu, &rt->gw, &gw4, NULL, err);
	if (rc)
		return rc;
	if (!rt->sensitivity)
		return lne_err_set(err, -EOPNOTSUPP, s, -1,
				   "lnet.ko %s takes a route's sensitivity 0 as 1", lu->vname);
	if (!lu->info.route_sensitivity && rt->sensitivity != 1)
		return lne_err_set(
			err, -EOPNOTSUPP, s, -1,
			"lnet.ko %s keeps no health sensitivity for a route (only 1, the "
			"default, holds)",
			lu->vname);
	memset(&r, 0, sizeof(r));
	r.net = rt->net;
	r.nid = gw4;
	r.u.route.hop = rt->hops;
	r.u.route.priority = rt->priority;
	r.u.route.sensitivity = rt->sensitivity;
	rc = lu_ioc(lu, LU_IOC_ADD_ROUTE, &r, sizeof(r));
	if (rc == -EEXIST)
		return lne_err_set(
			err, rc, s, -1,
			"lnet.ko %s refused to add the route: %s (the net is local, or the "
			"route is there already)",
			lu->vname, strerror(-rc));
	if (rc)
		return lu_refused(lu, err, rc, s, "add the route");
	return 0;
}

int lu_ioc_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err)
{
	struct lu_ioc_config r;
	char s[LNE_NET_STR_MAX + LNE_NID_STR_MAX + 16], ns[LNE_NID_STR_MAX];
	u64 gw4;
	int rc;

	lne_net_format(net, s, sizeof(s));
	snprintf(s + strlen(s), sizeof(s) - strlen(s), " via %s", lu_nidstr(gw, ns));
	rc = lu_nid4(lu, gw, &gw4, NULL, err);
	if (rc)
		return rc;
	memset(&r, 0, sizeof(r));
	r.net = net;
	r.nid = gw4;
	rc = lu_ioc(lu, LU_IOC_DEL_ROUTE, &r, sizeof(r));
	return rc ? lu_refused(lu, err, rc, s, "delete the route") : 0;
}

int lu_ioc_route_list(struct lu *lu, struct lu_route **out, size_t *nout, struct lne_err *err)
{
	struct lu_route *rs = NULL;
	size_t n = 0, cap = 0;
	u32 idx;
	int rc;

	*out = NULL;
	*nout = 0;
	for (idx = 0; idx < 1000000; idx++) {
		struct lu_ioc_config r;
		struct lu_route rt;

		memset(&r, 0, sizeof(r));
		r.count = idx;
		rc = lu_ioc(lu, LU_IOC_GET_ROUTE, &r, sizeof(r));
		if (rc == -ENOENT)
			break;
		if (rc) {
			free(rs);
			return lu_refused(lu, err, rc, NULL, "list its routes");
		}
		memset(&rt, 0, sizeof(rt));
		if (!lu_nid_from4(r.nid, &rt.gw) || !lne_lnd_name(LNE_NET_LND(r.net)))
			continue;
		rt.net = r.net;
		rt.hops = r.u.route.hop;
		rt.priority = r.u.route.priority;
		rt.sensitivity = lu->info.route_sensitivity ? r.u.route.sensitivity : 1;
		rt.alive = r.u.route.flags & LU_RT_ALIVE;
		if (n == cap) {
			struct lu_route *m = lne_realloc_array(rs, cap ? cap * 2 : 16, sizeof(*rs));

			if (!m) {
				free(rs);
				return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
			}
			rs = m;
			cap = cap ? cap * 2 : 16;
		}
		rs[n++] = rt;
	}
	*out = rs;
	*nout = n;
	return 0;
}

int lu_routing_set(struct lu *lu, bool enable, struct lne_err *err)
{
	struct lu_ioc_config r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.u.buffers.enable = enable;
	rc = lu_ioc(lu, LU_IOC_CONFIG_RTR, &r, sizeof(r));
	return rc ? lu_refused(lu, err, rc, NULL, enable ? "turn routing on" : "turn routing off")
		  : 0;
}

int lu_routing_get(struct lu *lu, struct lu_routing *rt, struct lne_err *err)
{
	u8 buf[LU_IOC_CONFIG_BULK + sizeof(struct lu_ioc_pool) + 4];
	struct lu_ioc_pool pool;
	u32 cpt;
	int rc, i;

	memset(rt, 0, sizeof(*rt));
	for (i = 0; i < 3; i++) {
		s64 v = 0;

		if (!lu_sysfs_read_param(lu, LU_P_TINY_BUFFERS + i, &v) && v > 0)
			rt->conf[i] = v;
	}
	for (cpt = 0; cpt < 1024; cpt++) {
		struct lu_ioc_config *r = (struct lu_ioc_config *)buf;

		memset(buf, 0, sizeof(buf));
		r->count = cpt;
		rc = lu_ioc(lu, LU_IOC_GET_BUF, buf,
			    LU_IOC_CONFIG_SIZE + sizeof(struct lu_ioc_pool));
		if (rc == -ENOENT)
			break; /* past the last CPT, or routing never on: no pools */
		if (rc)
			return lu_refused(lu, err, rc, NULL, "show its router buffers");
		memcpy(&pool, buf + LU_IOC_CONFIG_BULK, sizeof(pool));
		/* 2.17: 3 is "starting" (the pools come up in the background), 2 "stopping" */
		rt->enabled = pool.routing == 1 || pool.routing == 3;
		for (i = 0; i < 3; i++)
			rt->buffers[i] += pool.pool[i].nbuffers;
	}
	return 0;
}

int lu_buffers_set(struct lu *lu, s32 tiny, s32 small, s32 large, struct lne_err *err)
{
	struct lu_routing cur;
	struct lu_ioc_config r;
	int rc;

	rc = lu_routing_get(lu, &cur, err);
	if (rc)
		return rc;
	if (!cur.enabled)
		return lne_err_set(err, -EOPNOTSUPP, NULL, -1,
				   "lnet.ko %s takes router buffers only while routing is on",
				   lu->vname);
	memset(&r, 0, sizeof(r));
	r.u.buffers.tiny = tiny;
	r.u.buffers.small = small;
	r.u.buffers.large = large;
	rc = lu_ioc(lu, LU_IOC_ADD_BUF, &r, sizeof(r));
	return rc ? lu_refused(lu, err, rc, NULL, "resize its router buffers") : 0;
}
