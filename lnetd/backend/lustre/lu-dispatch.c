// SPDX-License-Identifier: GPL-2.0
/*
 * lu-dispatch.c - the one place that decides, per object, whether a request
 * goes over generic netlink or /dev/lnet.
 *
 * Netlink where the loaded module's op list has the command (2.16 on:
 * configure, nets, peers, routes, ping), ioctl otherwise (2.15, and every
 * version's UDSP, stats, health, routing and buffers).  Over netlink a
 * NID may be IPv6; over ioctl only IPv4 (lu-nid.c refuses the rest).
 * lu_set_ioctl_only() keeps everything on ioctl (upstream's own fallback
 * path, tested on 2.16 and 2.17 too).
 */
#include "lu-int.h"

bool lu_uses_genl(const struct lu *lu, enum lu_cmd cmd)
{
	return !lu->ioctl_only && lu->info.genl && lu->nl >= 0 && (lu->info.genl_ops & (1u << cmd));
}

int lu_configure(struct lu *lu, struct lne_err *err)
{
	return lu_ioc_configure(lu, err);
}

int lu_unconfigure(struct lu *lu, struct lne_err *err)
{
	return lu_ioc_unconfigure(lu, err);
}

int lu_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err)
{
	return lu_ioc_ni_add(lu, ni, err);
}

int lu_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err)
{
	return lu_ioc_ni_del(lu, nid, err);
}

int lu_ni_list(struct lu *lu, struct lu_ni **nis, size_t *n, struct lne_err *err)
{
	return lu_ioc_ni_list(lu, nis, n, err);
}

int lu_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		const struct lne_nid *nids, size_t n, struct lne_err *err)
{
	return lu_ioc_peer_add(lu, primary, mr, lock_prim, nids, n, err);
}

int lu_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids, size_t n,
		struct lne_err *err)
{
	return lu_ioc_peer_del(lu, primary, nids, n, err);
}

int lu_peer_each(struct lu *lu, int (*fn)(const struct lu_peer *p, void *arg), void *arg,
		 struct lne_err *err)
{
	return lu_ioc_peer_each(lu, fn, arg, err);
}

int lu_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p, struct lne_err *err)
{
	/* one peer by any NID: the ioctl answers that directly */
	return lu_ioc_peer_get(lu, nid, p, err);
}

int lu_route_add(struct lu *lu, const struct lu_route *r, struct lne_err *err)
{
	return lu_ioc_route_add(lu, r, err);
}

int lu_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err)
{
	return lu_ioc_route_del(lu, net, gw, err);
}

int lu_route_list(struct lu *lu, struct lu_route **routes, size_t *n, struct lne_err *err)
{
	return lu_ioc_route_list(lu, routes, n, err);
}

int lu_ping(struct lu *lu, const struct lne_nid *nid, u32 timeout_ms, const struct lne_nid *src,
	    struct lu_ping_reply *reply, struct lne_err *err)
{
	/*
	 * Over ioctl, on a descriptor of its own: a netlink ping would hold
	 * the struct lu's one socket for as long as it waits.  A large NID
	 * has no other way.
	 */
	return lu_ioc_ping(lu, LU_IOC_PING_PEER, nid, timeout_ms, src, reply, err);
}

int lu_discover(struct lu *lu, const struct lne_nid *nid, bool force, struct lu_ping_reply *reply,
		struct lne_err *err)
{
	return lu_ioc_ping(lu, LU_IOC_DISCOVER, nid, force, NULL, reply, err);
}
