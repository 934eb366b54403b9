// SPDX-License-Identifier: GPL-2.0
/*
 * node-gw.c - gateways, as upstream's router checker sees them: a node with
 * routes pings each gateway every rtr_check_s seconds (upstream's
 * alive_router_check_interval; discovery's pings of it count as checks); a
 * gateway that does not answer within rtr_timeout_s (router_ping_timeout),
 * or answers that it does not route, is dead, and every route through it is
 * down.  Its answer lists its NIs and their states: with avoid_asym set, a
 * route whose net the gateway has with every NI there down is down
 * (upstream's avoid_asym_router_failure; a net the gateway lacks is taken
 * as more hops away, see route_alive()).  A route down is not chosen (select.c,
 * node-path.c) until a check finds it up again; until its first check a
 * gateway is taken as alive (upstream's check_routers_before_use is off),
 * and the first check comes one interval after the node first sees it.
 *
 * As current upstream, a gateway's health does not take its routes down
 * (sanity-lnet 228: routes stay up while health is lowered); the gateway
 * peer NI's health still ranks gateways (select.c).
 *
 * And drop_asym_route: a message for this node that a gateway passed on,
 * from a net this node has no route to through that gateway, is dropped.
 */
#include "node-int.h"

static struct lne_stat *stat_find(const struct lne_node *n, u64 nid4)
{
	struct lne_stat *s = n->stats[lne_nd_stat_bucket(n, nid4, false)];

	for (; s; s = s->hnext)
		if (s->nid == nid4 && !s->local)
			return s;
	return NULL;
}

const struct lne_gw *lne_node_gw(const struct lne_node *n, const struct lne_nid *nid)
{
	const struct lne_stat *s;
	u64 k;

	if (lne_node_key_find(n, nid, &k))
		return NULL;
	s = stat_find(n, k);
	return s && s->gw.used ? &s->gw : NULL;
}

static bool route_alive(const struct lne_node *n, const struct lne_route *rt)
{
	const struct lne_gw *g = lne_node_gw(n, &rt->gw->nid);
	u32 i;

	if (!g || !g->answered)
		return true;
	if (g->dead || g->rte_disabled)
		return false;
	if (!n->avoid_asym)
		return true;
	for (i = 0; i < g->nnets; i++)
		if (g->nets[i] == rt->rnet->id)
			return g->net_up >> i & 1;
	/*
	 * The gateway lacks the net: the route has more hops.  Upstream takes
	 * a route given 1 hop as down then, but here a route given no hop
	 * count has 1 as well (model.h), and a multi-hop route without one is
	 * the common case: it stays up.
	 */
	return true;
}

void lne_nd_gw_sync(struct lne_node *n, bool tell)
{
	struct lne_route *rt;

	lne_list_for_each_entry(rt, &n->ln->routes, link) {
		bool up = route_alive(n, rt);

		if (rt->down != up)
			continue;
		rt->down = !up;
		if (tell && n->ops->route)
			n->ops->route(n->ctx, rt->rnet->id, &rt->gw->nid, up);
	}
}

/* What gateway @s answered (@info NULL: it did not): dead, or its nets and their states. */
/*
 * The gateway's NIs as its ping says (236), all down when it did not answer:
 * this node sends to its other NIs only through it, so has no word but this.
 */
static void gw_status(struct lne_node *n, const struct lne_stat *s, const struct lnw_ping *p,
		      const struct lnw_ping_ent *e)
{
	struct lne_peer_ni *gw, *pni;
	struct lne_peer_net *pnet;
	struct lne_nid nid;

	lne_node_nid(n, s->nid, &nid);
	gw = lne_peer_ni_find(n->ln, &nid);
	if (!gw)
		return;
	lne_list_for_each_entry(pnet, &lne_peer_of(gw)->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
			pni->ns_down = !p;
	if (p)
		lne_nd_note_status(n, lne_peer_of(gw), e,
				   p->n < LNW_PING_NIS_MAX ? p->n : LNW_PING_NIS_MAX);
}

static void record(struct lne_node *n, struct lne_stat *s, const u8 *info, u32 len)
{
	struct lnw_ping_ent *e = info ? lne_zalloc(sizeof(*e) * LNW_PING_NIS_MAX) : NULL;
	struct lne_gw *g = &s->gw;
	struct lnw_ping p;
	u32 i, j;

	g->next_ping_ms = n->now_ms + (u64)n->rtr_check_s * 1000;
	if (info && !e)
		return; /* out of memory: what it knew stands */
	g->answered = true;
	g->dead = !info || lnw_ping_unpack(info, len, &p, e, LNW_PING_NIS_MAX) != LNW_OK;
	if (!g->dead) {
		g->rte_disabled = p.features & LNW_PING_FEAT_RTE_DISABLED;
		g->nnets = 0;
		g->net_up = 0;
		for (i = 1; i < p.n && i < LNW_PING_NIS_MAX; i++) {
			lne_net_t net = (lne_net_t)(e[i].nid >> 32);

			for (j = 0; j < g->nnets && g->nets[j] != net; j++)
				;
			if (j == g->nnets) {
				if (g->nnets == LNE_GW_NETS)
					continue;
				g->nets[g->nnets++] = net;
			}
			if (e[i].status == LNW_NI_STATUS_UP)
				g->net_up |= (u16)(1u << j);
		}
	}
	gw_status(n, s, g->dead ? NULL : &p, e);
	lne_free(e);
}

static void on_check(struct lne_msg *m, int status)
{
	struct lne_stat *s = m->arg;
	struct lne_node *n = m->node;

	s->gw.pinging = false;
	if (n->closing)
		return;
	record(n, s, status ? NULL : m->reply, status ? 0 : m->reply_len);
	lne_nd_gw_sync(n, true);
}

void lne_nd_gw_pinged(struct lne_node *n, u64 nid4, const u8 *info, u32 len)
{
	struct lne_stat *s = stat_find(n, nid4);

	if (!s || !s->gw.used)
		return;
	record(n, s, info, len);
	lne_nd_gw_sync(n, true);
}

static void check(struct lne_node *n, struct lne_stat *s)
{
	struct lne_nid gw;

	lne_node_nid(n, s->nid, &gw);
	s->gw.pinging = true;
	n->st.router_pings++;
	if (lne_node_ping(n, &gw, NULL,
			  n->rtr_timeout_s > 4000000 ? 4000000000u : n->rtr_timeout_s * 1000,
			  on_check, s, NULL))
		s->gw.pinging = false; /* the node is stopping */
}

void lne_nd_gw_tick(struct lne_node *n)
{
	struct lne_route *rt;

	lne_list_for_each_entry(rt, &n->ln->routes, link) {
		struct lne_stat *s;
		u64 k;

		if (lne_node_key(n, &rt->gw->nid, &k) || !(s = lne_nd_stat_get(n, k, false)))
			continue;
		if (!s->gw.used) {
			s->gw.used = true;
			s->gw.next_ping_ms = n->now_ms + (u64)n->rtr_check_s * 1000;
		} else if (n->rtr_check_s && !s->gw.pinging && s->gw.next_ping_ms <= n->now_ms) {
			check(n, s);
		}
	}
	lne_nd_gw_sync(n, true);
}

u64 lne_nd_gw_deadline(const struct lne_node *n)
{
	const struct lne_route *rt;
	u64 best = ~0ull;

	lne_list_for_each_entry(rt, &n->ln->routes, link) {
		const struct lne_gw *g = lne_node_gw(n, &rt->gw->nid);
		u64 k;

		/* a large NID not keyed yet: the tick keys it, unless the table is full */
		if (lne_node_key_find(n, &rt->gw->nid, &k)) {
			if (rt->gw->nid.alen == 16 && !n->keys.refusing)
				return n->now_ms;
			continue;
		}
		if (!g || rt->down != !route_alive(n, rt))
			return n->now_ms; /* a gateway to start checking, or a route to sync */
		if (n->rtr_check_s && !g->pinging && g->next_ping_ms < best)
			best = g->next_ping_ms;
	}
	return best;
}

bool lne_nd_gw_asym(struct lne_node *n, const struct lne_link *l, const struct lnw_hdr *h)
{
	lne_net_t src_net = (lne_net_t)(h->src_nid >> 32);
	struct lne_stat *s = stat_find(n, l->peer);
	const struct lne_peer_ni *from;
	const struct lne_route *rt;
	struct lne_nid nid;

	if (src_net == (lne_net_t)(l->peer >> 32))
		return false; /* not routed */
	/* a gateway that passes messages on is alive, as upstream's lnet_parse() */
	if (s && s->gw.used && s->gw.dead) {
		s->gw.dead = false;
		lne_nd_gw_sync(n, true);
	}
	if (!lne_global_get(n->ln, LNE_G_DROP_ASYM_ROUTE))
		return false;
	lne_node_nid(n, l->peer, &nid);
	from = lne_peer_ni_find(n->ln, &nid);
	lne_list_for_each_entry(rt, &n->ln->routes, link)
		if (from && rt->rnet->id == src_net && lne_peer_of(rt->gw) == lne_peer_of(from))
			return false;
	n->st.asym_drops++;
	return true;
}
