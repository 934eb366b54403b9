// SPDX-License-Identifier: GPL-2.0
/*
 * test-gw.c - router health (engine/node-gw.c) and router credits
 * (node-router.c) on simulated links with a virtual clock: a node checks
 * its gateways and stops using routes through one that is dead, does not
 * route or lacks the remote net (sanity-lnet 220-226, 257 in spirit);
 * drop_asym_route; per-peer router credits; a message past its deadline is
 * dropped by its sender and never by a router (253, 256); a ping to a peer
 * that is gone fails fast (252); a peer with a route back through one of
 * two routers (226); a router counts what it could not pass on (227);
 * lowered health does not take a route down (228).
 */
#include "engine/fault.h"
#include "engine/node.h"
#include "simnet.h"
#include "unit.h"

#define N simnet_nid

struct result {
	int done, status;
};

static void on_done(struct lne_msg *m, int status)
{
	struct result *r = m->arg;

	r->done++;
	r->status = status;
}

static const char *const AN[] = {"10.0.0.1@tcp", NULL};
static const char *const RN[] = {"10.0.0.254@tcp", "10.1.0.254@tcp1", NULL};
static const char *const BN[] = {"10.1.0.2@tcp1", NULL};

struct net3 {
	struct simnet s;
	struct simnode *a, *r, *b;
	struct result res[16]; /* put_ab's, which may end after it returns */
	int nres;
};

static void add_route(struct simnode *n, const char *net, const char *gw, u32 hops)
{
	struct lne_nid g = N(gw);
	struct lne_err err;
	lne_net_t nt;

	ck_assert(!lne_net_parse(net, &nt, NULL));
	ck_assert_msg(!lne_route_add(n->ln, nt, &g, hops, 0, 1, &err), "%s", err.msg);
}

static void set_global(struct simnode *n, enum lne_global g, u32 v)
{
	struct lne_err err;

	ck_assert_msg(!lne_global_set(n->ln, g, v, &err), "%s", err.msg);
}

/*
 * a - r - b, r routing; a checks its gateway every 10 s, waits 5 s for an
 * answer.  @an, @rn: a's and r's NIDs (AN, RN), a's gateway the first of @rn.
 */
static void net3_init(struct net3 *t, const char *const *an, const char *const *rn)
{
	t->nres = 0;
	memset(t->res, 0, sizeof(t->res));
	simnet_pair(&t->s, 4096, an, rn, false, &t->a, &t->r);
	t->b = simnet_node(&t->s, BN);
	add_route(t->a, "tcp1", rn[0], 1);
	add_route(t->b, "tcp", "10.1.0.254@tcp1", 1);
	set_global(t->r, LNE_G_ROUTING, 1);
	t->a->node.rtr_check_s = 10;
	t->a->node.rtr_timeout_s = 5;
	t->b->node.test_service = true;
}

static void advance(struct net3 *t, u64 ms)
{
	simnet_advance(&t->s, ms);
	simnet_pump(&t->s);
}

static const struct lne_route *route_of(struct simnode *n, const char *net)
{
	const struct lne_route *rt;
	lne_net_t nt;

	ck_assert(!lne_net_parse(net, &nt, NULL));
	lne_list_for_each_entry(rt, &n->ln->routes, link)
		if (rt->rnet->id == nt)
			return rt;
	ck_abort_msg("no route to %s", net);
	return NULL;
}

/* A PUT from a to b's test service; its status (1: not done yet). */
static int put_ab(struct net3 *t)
{
	struct lne_nid dst = N("10.1.0.2@tcp1");
	struct result *r = &t->res[t->nres++];

	ck_assert_int_lt(t->nres, 16);
	ck_assert_int_eq(lne_node_put(&t->a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 64,
				      true, 3000, on_done, r, NULL),
			 0);
	simnet_pump(&t->s);
	return r->done ? r->status : 1;
}

/* sanity-lnet 220/257: the gateway answers, stops answering, answers again. */
START_TEST(dead_gateway_takes_its_routes_down)
{
	struct net3 t;
	const struct lne_gw *g;
	struct lne_nid gw = N("10.0.0.254@tcp");

	net3_init(&t, AN, RN);
	ck_assert_int_eq(put_ab(&t), 0);
	/* the first check comes one interval after the node first sees the gateway */
	advance(&t, 1);
	g = lne_node_gw(&t.a->node, &gw);
	ck_assert_ptr_nonnull(g);
	ck_assert(!g->answered);
	ck_assert_uint_eq(lne_node_next_deadline(&t.a->node), t.s.now_ms + 10000);
	advance(&t, 10000);
	ck_assert_uint_eq(t.a->node.st.router_pings, 1);
	ck_assert(g->answered && !g->dead);
	ck_assert(!route_of(t.a, "tcp1")->down);
	ck_assert_str_eq(t.a->routes, "");

	/* the router goes away: the next check fails, the route is down and not used */
	simnet_cut(&t.s, "10.0.0.254@tcp", true);
	advance(&t, 10000);
	ck_assert(g->dead);
	ck_assert(route_of(t.a, "tcp1")->down);
	ck_assert_str_eq(t.a->routes, "tcp1 10.0.0.254@tcp down;");
	ck_assert_int_eq(put_ab(&t), -EHOSTUNREACH);

	/* it comes back: up at the next check, and used again */
	simnet_cut(&t.s, "10.0.0.254@tcp", false);
	advance(&t, 10000);
	ck_assert(!g->dead);
	ck_assert(!route_of(t.a, "tcp1")->down);
	ck_assert_str_eq(t.a->routes, "tcp1 10.0.0.254@tcp down;tcp1 10.0.0.254@tcp up;");
	ck_assert_int_eq(put_ab(&t), 0);
	simnet_fini(&t.s);
}
END_TEST

/* A gateway that takes connections and never answers is dead after router_ping_timeout. */
START_TEST(silent_gateway_dead_after_the_timeout)
{
	struct net3 t;
	struct lne_nid gw = N("10.0.0.254@tcp");

	net3_init(&t, AN, RN);
	advance(&t, 1);
	t.r->mute = true;
	advance(&t, 10000);
	ck_assert(lne_node_gw(&t.a->node, &gw)->pinging);
	ck_assert(!route_of(t.a, "tcp1")->down);
	advance(&t, 4999);
	ck_assert(!route_of(t.a, "tcp1")->down);
	advance(&t, 1);
	ck_assert(lne_node_gw(&t.a->node, &gw)->dead);
	ck_assert(route_of(t.a, "tcp1")->down);
	simnet_fini(&t.s);
}
END_TEST

/* A gateway with an IPv6 NID is checked as an IPv4 one: answered, then dead when silent. */
START_TEST(ipv6_gateway_is_checked)
{
	static const char *const a6[] = {"2001:db8::1@tcp", NULL};
	static const char *const r6[] = {"2001:db8::fe@tcp", "10.1.0.254@tcp1", NULL};
	struct lne_nid gw = N("2001:db8::fe@tcp"), dst = N("10.1.0.2@tcp1");
	struct result res = {0};
	const struct lne_gw *g;
	struct net3 t;

	net3_init(&t, a6, r6);
	ck_assert_int_eq(lne_node_put(&t.a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 64, true,
				      3000, on_done, &res, NULL),
			 0);
	simnet_pump(&t.s);
	ck_assert_int_eq(res.status, 0);
	advance(&t, 1);
	g = lne_node_gw(&t.a->node, &gw);
	ck_assert_ptr_nonnull(g);
	advance(&t, 10000);
	ck_assert_uint_eq(t.a->node.st.router_pings, 1);
	ck_assert(g->answered && !g->dead);
	t.r->mute = true;
	advance(&t, 10000);
	advance(&t, 5000);
	ck_assert(g->dead);
	ck_assert(route_of(t.a, "tcp1")->down);
	simnet_fini(&t.s);
}
END_TEST

/* sanity-lnet 221: a gateway that answers but does not route is not used. */
START_TEST(gateway_that_does_not_route_is_down)
{
	struct net3 t;

	net3_init(&t, AN, RN);
	set_global(t.r, LNE_G_ROUTING, 0);
	advance(&t, 1);
	advance(&t, 10000);
	ck_assert(route_of(t.a, "tcp1")->down);
	set_global(t.r, LNE_G_ROUTING, 1);
	advance(&t, 10000);
	ck_assert(!route_of(t.a, "tcp1")->down);
	ck_assert_int_eq(put_ab(&t), 0);
	simnet_fini(&t.s);
}
END_TEST

/*
 * sanity-lnet 222-225: avoid_asym_router_failure.  The gateway's NI on the
 * remote net goes down: its ping says so, and the route is down; a route to
 * a net the gateway lacks is taken as more hops away and stays up; with
 * avoid_asym off, only the gateway's own aliveness counts.
 */
START_TEST(avoid_asym_router_failure)
{
	struct net3 t;
	struct lne_nid rn1 = N("10.1.0.254@tcp1");

	net3_init(&t, AN, RN);
	add_route(t.a, "tcp2", "10.0.0.254@tcp", 1);
	add_route(t.a, "tcp3", "10.0.0.254@tcp", 2);
	advance(&t, 1);
	advance(&t, 10000);
	ck_assert(!route_of(t.a, "tcp1")->down);
	/* a net the gateway lacks is further on: its routes stay up, whatever their hops say */
	ck_assert(!route_of(t.a, "tcp2")->down);
	ck_assert(!route_of(t.a, "tcp3")->down);

	ck_assert_int_eq(lne_node_ni_link(&t.r->node, &rn1, false, NULL), 0);
	advance(&t, 10000);
	ck_assert(route_of(t.a, "tcp1")->down);
	ck_assert_int_eq(put_ab(&t), -EHOSTUNREACH);

	t.a->node.avoid_asym = false;
	advance(&t, 10000);
	ck_assert(!route_of(t.a, "tcp1")->down);
	ck_assert(!route_of(t.a, "tcp2")->down);

	t.a->node.avoid_asym = true;
	ck_assert_int_eq(lne_node_ni_link(&t.r->node, &rn1, true, NULL), 0);
	advance(&t, 10000);
	ck_assert(!route_of(t.a, "tcp1")->down);
	ck_assert_int_eq(put_ab(&t), 0);
	simnet_fini(&t.s);
}
END_TEST

static void disc_done(void *arg, int status)
{
	*(int *)arg = status + 1000;
}

/* With discovery, its ping of the gateway is a check: the checker waits an interval after it. */
START_TEST(discovery_ping_counts_as_a_check)
{
	struct net3 t;
	struct lne_nid gw = N("10.0.0.254@tcp");
	const struct lne_gw *g;
	int done = 0;

	net3_init(&t, AN, RN);
	advance(&t, 1);
	set_global(t.r, LNE_G_ROUTING, 0);
	set_global(t.a, LNE_G_DISCOVERY, 1);
	ck_assert_int_eq(lne_node_discover(&t.a->node, &gw, true, disc_done, &done, NULL), 0);
	simnet_pump(&t.s);
	ck_assert_int_eq(done, 1000);
	g = lne_node_gw(&t.a->node, &gw);
	ck_assert(g->answered && g->rte_disabled);
	ck_assert(route_of(t.a, "tcp1")->down);
	ck_assert_uint_eq(t.a->node.st.router_pings, 0);
	ck_assert_uint_eq(g->next_ping_ms, t.s.now_ms + 10000);
	simnet_fini(&t.s);
}
END_TEST

/* The instance is replaced (lnetd's mirror): its routes take the checks' verdict, silently. */
START_TEST(new_instance_keeps_the_verdict)
{
	struct net3 t;
	struct lne_inst *copy;

	net3_init(&t, AN, RN);
	advance(&t, 1);
	simnet_cut(&t.s, "10.0.0.254@tcp", true);
	advance(&t, 10000);
	ck_assert(route_of(t.a, "tcp1")->down);
	copy = lne_inst_copy(t.a->ln);
	ck_assert_ptr_nonnull(copy);
	ck_assert(!route_of(&(struct simnode){.ln = copy}, "tcp1")->down);
	t.a->routes[0] = 0;
	lne_node_set_inst(&t.a->node, copy);
	ck_assert(route_of(&(struct simnode){.ln = copy}, "tcp1")->down);
	ck_assert_str_eq(t.a->routes, "");
	lne_node_set_inst(&t.a->node, t.a->ln);
	lne_inst_free(copy);
	simnet_fini(&t.s);
}
END_TEST

/*
 * drop_asym_route: b takes what r passes on from tcp while its route to tcp
 * goes through r; once it goes through another gateway, what r passes on
 * from tcp is dropped and counted (as upstream's lnet_parse()).
 */
START_TEST(drop_asym_route)
{
	struct net3 t;
	struct lne_nid gw = N("10.1.0.254@tcp1");
	lne_net_t tcp;

	net3_init(&t, AN, RN);
	set_global(t.b, LNE_G_DROP_ASYM_ROUTE, 1);
	ck_assert_int_eq(put_ab(&t), 0);
	ck_assert_uint_eq(t.b->node.st.test_puts, 1);

	ck_assert(!lne_net_parse("tcp", &tcp, NULL));
	ck_assert_int_eq(lne_route_del(t.b->ln, tcp, &gw, NULL), 0);
	add_route(t.b, "tcp", "10.1.0.253@tcp1", 1);
	ck_assert_int_eq(put_ab(&t), 1); /* no ACK comes */
	ck_assert_uint_eq(t.b->node.st.test_puts, 1);
	ck_assert_uint_eq(t.b->node.st.asym_drops, 1);
	ck_assert_uint_eq(t.b->node.st.c.dropped[LNW_PUT], 1);

	set_global(t.b, LNE_G_DROP_ASYM_ROUTE, 0);
	ck_assert_int_eq(put_ab(&t), 0); /* the ACK goes back the way the PUT came */
	ck_assert_uint_eq(t.b->node.st.test_puts, 2);
	ck_assert_uint_eq(t.b->node.st.asym_drops, 1);
	simnet_fini(&t.s);
}
END_TEST

static s32 peer_credits_of(struct simnode *n, const char *nid)
{
	struct lne_nid k = N(nid);

	return (s32)lne_ni_find(n->ln, &k)->tun.peer_credits;
}

/*
 * Router credits: a may have peer_buffer_credits messages held by r at
 * once; the rest wait, the credits going negative by as many (min records
 * the lowest); all pass once b reads again.  0: the NI's peer_credits.
 */
START_TEST(router_credits_per_peer)
{
	struct net3 t;
	struct lne_nid an = N("10.0.0.1@tcp"), rn = N("10.0.0.254@tcp");
	struct lne_nid dst = N("10.1.0.2@tcp1");
	struct result r[6] = {{0}};
	s32 avail, min;
	int i;

	net3_init(&t, AN, RN);
	/* before anything passed: the peer NI's peer_credits, as the NI's tunable is 0 */
	ck_assert(!lne_node_rtr_credits(&t.r->node, &an, &avail, &min));
	ck_assert_int_eq(avail, peer_credits_of(t.r, "10.0.0.254@tcp"));
	ck_assert_int_eq(min, avail);

	lne_ni_find(t.r->ln, &rn)->tun.peer_buffer_credits = 2;
	t.b->paused = true;
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(lne_node_put(&t.a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL,
					      64, true, 3000, on_done, &r[i], NULL),
				 0);
	simnet_pump(&t.s);
	ck_assert_uint_eq(t.r->node.st.route_count, 6);
	ck_assert(lne_node_rtr_credits(&t.r->node, &an, &avail, &min));
	ck_assert_int_eq(avail, -4);
	ck_assert_int_eq(min, -4);
	/* two hold a buffer; the other four wait for a's credits, not for buffers */
	ck_assert_uint_eq(t.r->node.rtr[LNE_RB_SMALL].used, 2);
	ck_assert_uint_eq(t.r->node.rtr[LNE_RB_SMALL].queued, 0);

	t.b->paused = false;
	simnet_pump(&t.s);
	ck_assert_uint_eq(t.b->node.st.test_puts, 6);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(r[i].status, 0);
	ck_assert(lne_node_rtr_credits(&t.r->node, &an, &avail, &min));
	ck_assert_int_eq(avail, 2);
	ck_assert_int_eq(min, -4);
	simnet_fini(&t.s);
}
END_TEST

/* Messages waiting for router credits end with the node. */
START_TEST(router_credit_waiters_end_with_the_node)
{
	struct net3 t;
	struct lne_nid rn = N("10.0.0.254@tcp"), dst = N("10.1.0.2@tcp1");
	struct result r[4] = {{0}};
	int i;

	net3_init(&t, AN, RN);
	lne_ni_find(t.r->ln, &rn)->tun.peer_buffer_credits = 1;
	t.b->mute = true;
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(lne_node_put(&t.a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL,
					      64, false, 0, on_done, &r[i], NULL),
				 0);
	simnet_pump(&t.s);
	ck_assert_uint_eq(t.r->node.st.route_count, 4);
	ck_assert_uint_eq(t.r->node.st.msgs_alloc, 4);
	lne_node_fini(&t.r->node);
	ck_assert_uint_eq(t.r->node.st.msgs_alloc, 0);
	lne_node_init(&t.r->node, t.r->ln, t.r->node.ops, t.r, 7);
	simnet_fini(&t.s);
}
END_TEST

/*
 * sanity-lnet 253/254: a's messages wait for peer credits (b reads nothing)
 * past transaction_timeout: when credits come back they are dropped and
 * counted, not sent.  256: a router holds what it passes on as long as it
 * must, and sends it on then.
 */
START_TEST(past_deadline_dropped_by_sender_not_by_router)
{
	struct net3 t;
	struct lne_nid dst = N("10.1.0.2@tcp1"), direct = N("10.0.0.254@tcp");
	struct lne_nid an = N("10.0.0.1@tcp");
	struct result r[12] = {{0}};
	const struct lne_counts *c;
	s32 credits;
	int i;

	net3_init(&t, AN, RN);
	set_global(t.a, LNE_G_TRANSACTION_TIMEOUT, 10);
	set_global(t.a, LNE_G_RETRY_COUNT, 0);
	/* the link does not time out meanwhile (its own lnd timeout, not the derived one) */
	lne_ni_find(t.a->ln, &an)->tun.timeout = 1000;
	/* r reads nothing: a's sends to r queue on its peer credits */
	t.r->paused = true;
	credits = peer_credits_of(t.a, "10.0.0.1@tcp");
	for (i = 0; i <= credits && i < 12; i++)
		ck_assert_int_eq(lne_node_put(&t.a->node, &direct, &an, LNE_PORTAL_TEST, 0, 0, NULL,
					      64, false, 0, on_done, &r[i], NULL),
				 0);
	simnet_pump(&t.s);
	ck_assert_ptr_nonnull(t.a->node.credq);
	advance(&t, 10000);
	t.r->paused = false;
	simnet_pump(&t.s);
	ck_assert_ptr_null(t.a->node.credq);
	ck_assert_int_eq(r[credits].done, 1);
	ck_assert_int_eq(r[credits].status, -ETIMEDOUT);
	c = lne_node_counts(&t.a->node, &direct);
	ck_assert_uint_eq(c->dropped[LNW_PUT], 1);
	for (i = 0; i < credits; i++)
		ck_assert_int_eq(r[i].status, 0);

	/* the router: b reads nothing for twice a's transaction_timeout (within r's lnd timeout), then all arrive */
	t.b->paused = true;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(lne_node_put(&t.a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL,
					      64, false, 0, on_done, &r[i], NULL),
				 0);
	simnet_pump(&t.s);
	advance(&t, 20000);
	ck_assert_uint_eq(t.r->node.st.msgs_alloc, 3);
	t.b->paused = false;
	simnet_pump(&t.s);
	ck_assert_uint_eq(t.b->node.st.test_puts, 3);
	simnet_fini(&t.s);
}
END_TEST

/*
 * sanity-lnet 226: a reaches b through r and r2 in turn, and b's only route
 * back is through r: every ping is answered (the answer goes back the way
 * its request came).
 */
START_TEST(missing_route_for_one_of_two_routers)
{
	static const char *const r2n[] = {"10.0.0.253@tcp", "10.1.0.253@tcp1", NULL};
	struct net3 t;
	struct simnode *r2;
	struct lne_nid dst = N("10.1.0.2@tcp1");
	struct result r[4] = {{0}};
	int i;

	net3_init(&t, AN, RN);
	r2 = simnet_node(&t.s, r2n);
	set_global(r2, LNE_G_ROUTING, 1);
	add_route(t.a, "tcp1", "10.0.0.253@tcp", 1);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(lne_node_ping(&t.a->node, &dst, NULL, 1000, on_done, &r[i], NULL),
				 0);
		simnet_pump(&t.s);
		ck_assert_int_eq(r[i].status, 0);
	}
	ck_assert_uint_gt(r2->node.st.route_count, 0);
	ck_assert_uint_gt(t.r->node.st.route_count, 0);
	simnet_fini(&t.s);
}
END_TEST

/* sanity-lnet 227: b is gone; a's pings through r fail, and r counts the GETs it dropped for b. */
START_TEST(router_counts_what_it_could_not_pass_on)
{
	struct net3 t;
	struct lne_nid dst = N("10.1.0.2@tcp1");
	struct result r[2] = {{0}};
	const struct lne_counts *c;
	int i;

	net3_init(&t, AN, RN);
	simnet_cut(&t.s, "10.1.0.2@tcp1", true);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(lne_node_ping(&t.a->node, &dst, NULL, 1000, on_done, &r[i], NULL),
				 0);
		simnet_pump(&t.s);
	}
	advance(&t, 1000);
	for (i = 0; i < 2; i++)
		ck_assert_int_ne(r[i].status, 0);
	c = lne_node_counts(&t.r->node, &dst);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->dropped[LNW_GET], 2);
	simnet_fini(&t.s);
}
END_TEST

/* sanity-lnet 228: the gateway's health lowered, its route stays up and carries traffic. */
START_TEST(routes_stay_up_when_health_is_lowered)
{
	struct net3 t;
	struct lne_nid gw = N("10.0.0.254@tcp");
	int i;

	net3_init(&t, AN, RN);
	lne_peer_ni_find(t.a->ln, &gw)->health = 500;
	lne_node_health_rescan(&t.a->node);
	advance(&t, 1);
	for (i = 0; i < 3; i++) {
		advance(&t, 10000);
		ck_assert(!route_of(t.a, "tcp1")->down);
		ck_assert_int_eq(put_ab(&t), 0);
	}
	ck_assert_str_eq(t.a->routes, "");
	simnet_fini(&t.s);
}
END_TEST

/* sanity-lnet 252: a ping to a peer that is gone fails long before its timeout. */
START_TEST(ping_to_a_down_peer_fails_fast)
{
	struct net3 t;
	struct lne_nid dst = N("10.0.0.254@tcp");
	struct result r = {0};

	net3_init(&t, AN, RN);
	simnet_cut(&t.s, "10.0.0.254@tcp", true);
	ck_assert_int_eq(lne_node_ping(&t.a->node, &dst, NULL, 15000, on_done, &r, NULL), 0);
	simnet_pump(&t.s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_ne(r.status, 0);
	ck_assert_int_ne(r.status, -ETIMEDOUT);
	simnet_fini(&t.s);
}
END_TEST

Suite *make_gw_suite(void)
{
	Suite *s = suite_create("gw");
	TCase *tc = tcase_create("gw");

	tcase_add_test(tc, dead_gateway_takes_its_routes_down);
	tcase_add_test(tc, silent_gateway_dead_after_the_timeout);
	tcase_add_test(tc, ipv6_gateway_is_checked);
	tcase_add_test(tc, gateway_that_does_not_route_is_down);
	tcase_add_test(tc, avoid_asym_router_failure);
	tcase_add_test(tc, discovery_ping_counts_as_a_check);
	tcase_add_test(tc, new_instance_keeps_the_verdict);
	tcase_add_test(tc, drop_asym_route);
	tcase_add_test(tc, router_credits_per_peer);
	tcase_add_test(tc, router_credit_waiters_end_with_the_node);
	tcase_add_test(tc, past_deadline_dropped_by_sender_not_by_router);
	tcase_add_test(tc, ping_to_a_down_peer_fails_fast);
	tcase_add_test(tc, missing_route_for_one_of_two_routers);
	tcase_add_test(tc, router_counts_what_it_could_not_pass_on);
	tcase_add_test(tc, routes_stay_up_when_health_is_lowered);
	suite_add_tcase(s, tc);
	return s;
}
