// SPDX-License-Identifier: GPL-2.0
/*
 * node-path.c - the node's ways to NIDs no peer has (a first send, or a
 * router passing a message on), and the ping info it answers with.
 */
#include "node-int.h"

/* Leading bits two addresses share. */
static u32 common_bits(const struct lne_nid *a, const struct lne_nid *b)
{
	u32 i, n = 0;

	for (i = 0; i < a->alen && i < b->alen; i++) {
		u8 x = a->addr[i] ^ b->addr[i];

		if (x) {
			while (!(x & 0x80)) {
				n++;
				x <<= 1;
			}
			return n;
		}
		n += 8;
	}
	return n;
}

/*
 * A local NI on the destination's own net, for a peer nobody configured:
 * of the NIs that are up, the one whose address shares the most leading
 * bits with the destination's (most likely its own subnet, the rail that
 * reaches it).
 */
struct lne_ni *lne_nd_direct_ni(struct lne_node *n, const struct lne_nid *dst, struct lne_ni *only)
{
	struct lne_net *net = lne_net_find(n->ln, lne_nid_net(dst));
	struct lne_ni *ni, *best = NULL;
	u32 best_bits = 0;

	if (!net)
		return NULL;
	if (only)
		return only->net == net && only->up ? only : NULL;
	lne_list_for_each_entry(ni, &net->nis, link) {
		u32 bits;

		if (!ni->up)
			continue;
		bits = common_bits(&ni->nid, dst);
		if (!best || bits > best_bits) {
			best = ni;
			best_bits = bits;
		}
	}
	return best;
}

/*
 * A route to the destination's net for a NID no peer has (a router passing
 * a message on, or a first send before discovery): the best priority (the
 * lowest value), then the fewest hops, among routes whose gateway a local
 * NI that is up reaches; the least recently used of equals.
 */
struct lne_route *lne_nd_direct_route(struct lne_node *n, const struct lne_nid *dst,
				      struct lne_ni *only, struct lne_ni **ni)
{
	struct lne_rnet *rnet = lne_rnet_find(n->ln, lne_nid_net(dst));
	struct lne_route *rt, *best = NULL;
	struct lne_ni *best_ni = NULL;

	if (!rnet)
		return NULL;
	lne_list_for_each_entry(rt, &rnet->routes, rnet_link) {
		struct lne_ni *via = rt->down ? NULL : lne_nd_direct_ni(n, &rt->gw->nid, only);

		if (!via)
			continue;
		if (best &&
		    (rt->priority > best->priority ||
		     (rt->priority == best->priority &&
		      (rt->hops > best->hops || (rt->hops == best->hops && rt->seq >= best->seq)))))
			continue;
		best = rt;
		best_ni = via;
	}
	if (best) {
		best->seq = lne_clock_tick(&n->ln->clock);
		*ni = best_ni;
	}
	return best;
}

int lne_node_ping_info(struct lne_node *n, u8 *buf, u32 cap)
{
	struct lnw_ping p = {.pid = n->pid};
	struct lnw_ping_large big;
	struct lnw_ping_ent e;
	struct lne_ni *ni;
	int rc, size;

	p.features = LNW_PING_FEAT_BASE | LNW_PING_FEAT_NI_STATUS;
	if (n->multi_rail)
		p.features |= LNW_PING_FEAT_MULTI_RAIL;
	if (lne_nd_disc_mode(n) != LNE_DISC_OFF)
		p.features |= LNW_PING_FEAT_DISCOVERY;
	if (!lne_global_get(n->ln, LNE_G_ROUTING))
		p.features |= LNW_PING_FEAT_RTE_DISABLED;
	/* 0@lo first, its status the sequence number; then each NI, one at a time */
	e.nid = (u64)LNE_MKNET(LNE_LND_LO, 0) << 32;
	e.status = n->ping_seq;
	p.n = 1;
	rc = lnw_ping_pack(&p, &e, buf, cap);
	if (rc < 0)
		return rc;
	lne_list_for_each_entry(ni, &n->ln->nis, all_link) {
		if (p.n == LNW_PING_NIS_MAX || cap < LNW_PING_SIZE(p.n + 1))
			break;
		if (ni->nid.lnd == LNE_LND_LO || !lnw_nid_is4(&ni->nid) ||
		    lnw_nid4(&ni->nid, &e.nid))
			continue;
		e.status = lne_ni_reported_up(ni) ? LNW_NI_STATUS_UP : LNW_NI_STATUS_DOWN;
		lnw_ping_put_ent(buf, p.n++, &e);
	}
	lnw_put32(buf + 12, p.n);
	/* then large NIDs, after the 8-byte entries (LNW_PING_FEAT_LARGE_ADDR) */
	size = (int)LNW_PING_SIZE(p.n);
	lne_list_for_each_entry(ni, &n->ln->nis, all_link) {
		if (lnw_nid_is4(&ni->nid))
			continue;
		big.nid = ni->nid;
		big.status = lne_ni_reported_up(ni) ? LNW_NI_STATUS_UP : LNW_NI_STATUS_DOWN;
		rc = lnw_ping_add_large(buf, (u32)size, &big, cap);
		if (rc < 0)
			break;
		size = rc;
	}
	return size;
}
