// SPDX-License-Identifier: GPL-2.0
/*
 * dp-events.c - the module's data path, its events: what the node
 * announces to the "dp" multicast group (NI and peer NI states, peers
 * discovered, routes up and down) and the link events netdev.c queues.
 */
#include "dp-int.h"

struct state_ev {
	const struct lne_nid *nid;
	bool local;
	const char *state;
	s32 health;
};

static int fill_state(struct sk_buff *skb, void *arg)
{
	const struct state_ev *ev = arg;
	struct nlattr *h = nla_nest_start(skb, LNETK_A_HEALTH);

	if (!h || lnk_nl_put_nid(skb, LNETK_HEALTH_A_NID, ev->nid) ||
	    nla_put_u8(skb, LNETK_HEALTH_A_LOCAL, ev->local) ||
	    nla_put_u32(skb, LNETK_HEALTH_A_VALUE, ev->health < 0 ? 0 : (u32)ev->health) ||
	    nla_put_string(skb, LNETK_HEALTH_A_STATE, ev->state))
		return -EMSGSIZE;
	nla_nest_end(skb, h);
	return 0;
}

/* A local NI or peer NI changed state: told to the "dp" group, as lnetd's engine tells D-Bus. */
void ops_state(void *ctx, const struct lne_nid *nid, bool local, const char *state, s32 health)
{
	struct lnetk_dp *dp = ctx;
	struct state_ev ev = {nid, local, state, health};

	lnk_nl_dp_announce(dp->net, LNETK_EV_DP_STATE, 0, fill_state, &ev);
}

static int fill_peer(struct sk_buff *skb, void *arg)
{
	const struct lne_peer *peer = arg;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct nlattr *p = nla_nest_start(skb, LNETK_A_PING), *e;
	int pass;

	if (!p)
		return -EMSGSIZE;
	/* the primary first, then the others */
	for (pass = 0; pass < 2; pass++)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (lne_nid_equal(&pni->nid, &peer->primary) != !pass)
					continue;
				e = nla_nest_start(skb, LNETK_PING_A_ENTRY);
				if (!e || lnk_nl_put_nid(skb, LNETK_PING_A_NID, &pni->nid))
					return -EMSGSIZE;
				nla_nest_end(skb, e);
			}
	nla_nest_end(skb, p);
	return 0;
}

/* A peer discovered, with every NID it has: the message is as big as they need. */
void ops_discovered(void *ctx, const struct lne_peer *peer)
{
	struct lnetk_dp *dp = ctx;
	size_t size = nla_total_size(0) +
		      (size_t)peer->npni * (nla_total_size(0) + nla_total_size(LNE_NID_STR_MAX));

	lnk_nl_dp_announce(dp->net, LNETK_EV_DP_DISCOVERED, size, fill_peer, (void *)peer);
}

struct route_ev {
	lne_net_t net;
	const struct lne_nid *gw;
	bool up;
};

static int fill_route(struct sk_buff *skb, void *arg)
{
	const struct route_ev *ev = arg;
	struct nlattr *r = nla_nest_start(skb, LNETK_A_ROUTE);
	char net[LNE_NET_STR_MAX];

	lne_net_format(ev->net, net, sizeof(net));
	if (!r || nla_put_string(skb, LNETK_ROUTE_A_NET, net) ||
	    lnk_nl_put_nid(skb, LNETK_ROUTE_A_GATEWAY, ev->gw) ||
	    nla_put_u8(skb, LNETK_ROUTE_A_DOWN, !ev->up))
		return -EMSGSIZE;
	nla_nest_end(skb, r);
	return 0;
}

/* The router checker took a route down or up again. */
void ops_route(void *ctx, lne_net_t net, const struct lne_nid *gw, bool up)
{
	struct lnetk_dp *dp = ctx;
	struct route_ev ev = {net, gw, up};

	lnk_nl_dp_announce(dp->net, LNETK_EV_DP_ROUTE, 0, fill_route, &ev);
}

/* --- link events (netdev.c) ---------------------------------------------------------- */

struct link_ev {
	struct list_head item;
	char ifname[IFNAMSIZ];
	bool up;
	bool renamed; /* the interface took this name (its old one: no longer its) */
};

void lnetk_dp_link_event(struct lnetk_net *ln, const char *ifname, bool up, bool renamed)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct link_ev *ev;

	if (!dp || READ_ONCE(dp->stopping) || !smp_load_acquire(&dp->wq))
		return; /* no NI has started the data path: no NI to tell */
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return; /* the NI's health falls on its own, from failed sends */
	strscpy(ev->ifname, ifname, sizeof(ev->ifname));
	ev->up = up;
	ev->renamed = renamed;
	spin_lock_bh(&dp->ev_lock);
	list_add_tail(&ev->item, &dp->events);
	spin_unlock_bh(&dp->ev_lock);
	dp_kick(dp);
}

void link_events_free(struct lnetk_dp *dp)
{
	struct link_ev *ev, *tmp;

	list_for_each_entry_safe(ev, tmp, &dp->events, item)
		kfree(ev);
	INIT_LIST_HEAD(&dp->events);
}

/* Whether an interface of the namespace is called @ifname now. */
static bool if_named(struct net *net, const char *ifname)
{
	bool there;

	rcu_read_lock();
	there = dev_get_by_name_rcu(net, ifname);
	rcu_read_unlock();
	return there;
}

/*
 * Every link event queued, in order, to the NIs on that interface (node
 * entered); after a rename, NIs whose interface name nothing has now are down.
 */
void link_events(struct lnetk_dp *dp)
{
	struct link_ev *ev, *tmp;
	struct lne_ni *ni;
	LIST_HEAD(todo);

	spin_lock_bh(&dp->ev_lock);
	list_splice_init(&dp->events, &todo);
	spin_unlock_bh(&dp->ev_lock);
	list_for_each_entry_safe(ev, tmp, &todo, item) {
		lne_list_for_each_entry(ni, &dp->ln->inst->nis, all_link)
			if (!strcmp(ni->ifname, ev->ifname))
				lne_node_ni_link(&dp->node, &ni->nid, ev->up, NULL);
			else if (ev->renamed && ni->ifname[0] && !if_named(dp->net, ni->ifname))
				lne_node_ni_link(&dp->node, &ni->nid, false, NULL);
		list_del(&ev->item);
		kfree(ev);
	}
}
