// SPDX-License-Identifier: GPL-2.0
/*
 * lu-dispatch.c - the one place that decides, per object, whether a request
 * goes over generic netlink or /dev/lnet.
 *
 *  - configure and NIs: netlink where the module's op list has CONFIGURE
 *    and NETS (2.16 on), so IPv6 NIs can be added and listed;
 *  - peers and routes: /dev/lnet for IPv4 NIDs, as upstream's own fallback
 *    does on every version, because lnet.ko's netlink peer path makes every
 *    peer Multi-Rail and deletes a peer when a later step fails
 *    (lu-nl-ops.c); netlink only for a large NID, which /dev/lnet cannot
 *    carry.  Listings take /dev/lnet's (no limit: one request per peer or
 *    route); routes through a large gateway come from a netlink dump, and
 *    peers with a large primary by their primaries, one per dump;
 *  - UDSP, stats, health, routing, buffers, numa: /dev/lnet everywhere
 *    (lnet.ko has no netlink op for UDSP, and lnetctl uses the ioctls for
 *    the rest too);
 *  - ping: /dev/lnet on a descriptor of its own; a large NID over netlink
 *    on a socket of its own.
 * lu_set_ioctl_only() keeps everything on /dev/lnet (the fallback path,
 * tested on 2.16 and 2.17 as well).
 */
#include "lu-int.h"

bool lu_uses_genl(const struct lu *lu, enum lu_cmd cmd)
{
	return !lu->ioctl_only && lu->info.genl && lu->nl >= 0 && (lu->info.genl_ops & (1u << cmd));
}

static bool any_large(const struct lne_nid *a, const struct lne_nid *nids, size_t n)
{
	size_t i;

	if (a && a->alen != 4)
		return true;
	for (i = 0; i < n; i++)
		if (nids[i].alen != 4)
			return true;
	return false;
}

int lu_configure(struct lu *lu, struct lne_err *err)
{
	if (lu_uses_genl(lu, LU_CMD_CONFIGURE))
		return lu_nl_configure(lu, true, err);
	return lu_ioc_configure(lu, err);
}

int lu_unconfigure(struct lu *lu, struct lne_err *err)
{
	if (lu_uses_genl(lu, LU_CMD_CONFIGURE))
		return lu_nl_configure(lu, false, err);
	return lu_ioc_unconfigure(lu, err);
}

int lu_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err)
{
	if (lu_uses_genl(lu, LU_CMD_NETS))
		return lu_nl_ni_add(lu, ni, err);
	return lu_ioc_ni_add(lu, ni, err);
}

int lu_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err)
{
	if (lu_uses_genl(lu, LU_CMD_NETS))
		return lu_nl_ni_del(lu, nid, err);
	return lu_ioc_ni_del(lu, nid, err);
}

int lu_ni_list(struct lu *lu, struct lu_ni **nis, size_t *n, struct lne_err *err)
{
	if (lu_uses_genl(lu, LU_CMD_NETS))
		return lu_nl_ni_list(lu, nis, n, err);
	return lu_ioc_ni_list(lu, nis, n, err);
}

int lu_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		const struct lne_nid *nids, size_t n, struct lne_err *err)
{
	if (any_large(primary, nids, n) && lu_uses_genl(lu, LU_CMD_PEERS))
		return lu_nl_peer_add(lu, primary, mr, lock_prim, nids, n, err);
	return lu_ioc_peer_add(lu, primary, mr, lock_prim, nids, n, err);
}

int lu_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids, size_t n,
		struct lne_err *err)
{
	if (any_large(primary, nids, n) && lu_uses_genl(lu, LU_CMD_PEERS))
		return lu_nl_peer_del(lu, primary, nids, n, err);
	return lu_ioc_peer_del(lu, primary, nids, n, err);
}

int lu_peer_each(struct lu *lu, int (*fn)(const struct lu_peer *p, void *arg), void *arg,
		 struct lne_err *err)
{
	size_t large = 0;
	int rc = lu_ioc_peer_each(lu, fn, arg, &large, err);

	lu->info.peers_unnamed = large;
	return rc;
}

int lu_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p, struct lne_err *err)
{
	if (nid->alen != 4 && lu_uses_genl(lu, LU_CMD_PEERS))
		return lu_nl_peer_get(lu, nid, p, err);
	return lu_ioc_peer_get(lu, nid, p, err);
}

int lu_peer_get_many(struct lu *lu, const struct lne_nid *prims, size_t n,
		     int (*fn)(const struct lu_peer *p, void *arg), void *arg, struct lne_err *err)
{
	struct lu_peer p;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++) {
		rc = lu_peer_get(lu, &prims[i], &p, err);
		if (rc == -ENOENT || rc == -EOPNOTSUPP) {
			rc = 0; /* not there, or a NID this lnet.ko cannot carry: not there */
			continue;
		}
		if (!rc)
			rc = fn(&p, arg);
		lu_peer_free(&p);
	}
	return rc;
}

int lu_route_add(struct lu *lu, const struct lu_route *r, struct lne_err *err)
{
	if (r->gw.alen != 4 && lu_uses_genl(lu, LU_CMD_ROUTES))
		return lu_nl_route_add(lu, r, err);
	return lu_ioc_route_add(lu, r, err);
}

int lu_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err)
{
	if (gw->alen != 4 && lu_uses_genl(lu, LU_CMD_ROUTES))
		return lu_nl_route_del(lu, net, gw, err);
	return lu_ioc_route_del(lu, net, gw, err);
}

int lu_route_list(struct lu *lu, struct lu_route **routes, size_t *n, struct lne_err *err)
{
	struct lu_route *more = NULL, *all;
	size_t nmore = 0;
	int rc;

	rc = lu_ioc_route_list(lu, routes, n, err);
	if (rc || !lu_uses_genl(lu, LU_CMD_ROUTES))
		return rc;
	rc = lu_nl_route_list(lu, &more, &nmore, err);
	if (rc || !nmore) {
		free(more);
		if (rc) {
			free(*routes);
			*routes = NULL;
			*n = 0;
		}
		return rc;
	}
	all = lne_realloc_array(*routes, *n + nmore, sizeof(*all));
	if (!all) {
		free(more);
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	}
	memcpy(all + *n, more, nmore * sizeof(*all));
	free(more);
	*routes = all;
	*n += nmore;
	return 0;
}

int lu_ping(struct lu *lu, const struct lne_nid *nid, u32 timeout_ms, const struct lne_nid *src,
	    struct lu_ping_reply *reply, struct lne_err *err)
{
	if (any_large(nid, src, src ? 1 : 0) && lu_uses_genl(lu, LU_CMD_PING))
		return lu_nl_ping(lu, nid, timeout_ms, src, reply, err);
	return lu_ioc_ping(lu, LU_IOC_PING_PEER, nid, timeout_ms, src, reply, err);
}

int lu_discover(struct lu *lu, const struct lne_nid *nid, bool force, struct lu_ping_reply *reply,
		struct lne_err *err)
{
	return lu_ioc_ping(lu, LU_IOC_DISCOVER, nid, force, NULL, reply, err);
}
