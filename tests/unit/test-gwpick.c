// SPDX-License-Identifier: GPL-2.0
/*
 * test-gwpick.c - which gateway and NI carry real traffic: route priority,
 * then hops, and a router UDSP rule (--dst with --rte) that makes a
 * gateway preferred over both, as upstream's selection orders them; and
 * NUMA distance from the CPT the node runs on.  a sends PUTs to b's test
 * service on simulated links; what each router passed on, or each NI
 * sent, says what selection chose.
 */
#include "engine/node.h"
#include "engine/udsp.h"
#include "simnet.h"
#include "unit.h"

#define N(s) simnet_nid(s)

struct gw_net {
	struct simnet s;
	struct simnode *a, *r1, *r2, *b;
};

static void route(struct simnode *n, const char *net, const char *gw, u32 hops, u32 prio)
{
	struct lne_nid g = N(gw);
	struct lne_err err;
	lne_net_t nt;

	ck_assert(!lne_net_parse(net, &nt, NULL));
	lne_route_del(n->ln, nt, &g, &err);
	ck_assert_msg(!lne_route_add(n->ln, nt, &g, hops, prio, 1, &err), "%s", err.msg);
}

/* a (10.0.0.1@tcp), b (10.2.0.4@tcp1), routers r1 and r2 between; b answers through r1. */
static void gw_net_init(struct gw_net *g)
{
	static const char *const an[] = {"10.0.0.1@tcp", NULL};
	static const char *const r1n[] = {"10.0.0.2@tcp", "10.2.0.2@tcp1", NULL};
	static const char *const r2n[] = {"10.0.0.3@tcp", "10.2.0.3@tcp1", NULL};
	static const char *const bn[] = {"10.2.0.4@tcp1", NULL};
	struct lne_err err;

	simnet_init(&g->s, 4096);
	g->a = simnet_node(&g->s, an);
	g->r1 = simnet_node(&g->s, r1n);
	g->r2 = simnet_node(&g->s, r2n);
	g->b = simnet_node(&g->s, bn);
	ck_assert(!lne_global_set(g->r1->ln, LNE_G_ROUTING, 1, &err));
	ck_assert(!lne_global_set(g->r2->ln, LNE_G_ROUTING, 1, &err));
	g->b->node.test_service = true;
	simnet_peer(g->a, bn);
	route(g->b, "tcp", "10.2.0.2@tcp1", 1, 0);
}

/* a sends 6 PUTs without ACKs to b: how many r2 passed on (r1 took the rest). */
static u64 through_r2(struct gw_net *g)
{
	struct lne_nid dst = N("10.2.0.4@tcp1");
	u64 r1 = g->r1->node.st.route_count, r2 = g->r2->node.st.route_count;
	u64 got = g->b->node.st.test_puts;
	int i;

	for (i = 0; i < 6; i++)
		ck_assert_int_eq(lne_node_put(&g->a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL,
					      64, false, 1000, NULL, NULL, NULL),
				 0);
	simnet_pump(&g->s);
	ck_assert_uint_eq(g->b->node.st.test_puts - got, 6);
	r1 = g->r1->node.st.route_count - r1;
	r2 = g->r2->node.st.route_count - r2;
	ck_assert_uint_eq(r1 + r2, 6);
	return r2;
}

START_TEST(gateway_by_priority_hops_and_rule)
{
	struct gw_net g;
	struct lne_err err;
	u32 idx;

	gw_net_init(&g);
	/* equal routes: round robin over both gateways */
	route(g.a, "tcp1", "10.0.0.2@tcp", 1, 0);
	route(g.a, "tcp1", "10.0.0.3@tcp", 1, 0);
	ck_assert_uint_eq(through_r2(&g), 3);
	/* the route of better priority (lower) carries everything */
	route(g.a, "tcp1", "10.0.0.2@tcp", 1, 1);
	ck_assert_uint_eq(through_r2(&g), 6);
	route(g.a, "tcp1", "10.0.0.2@tcp", 1, 0);
	route(g.a, "tcp1", "10.0.0.3@tcp", 1, 1);
	ck_assert_uint_eq(through_r2(&g), 0);
	/* same priority: fewer hops wins */
	route(g.a, "tcp1", "10.0.0.3@tcp", 1, 0);
	route(g.a, "tcp1", "10.0.0.2@tcp", 3, 0);
	ck_assert_uint_eq(through_r2(&g), 6);
	/* a router rule makes r1 preferred for tcp1, over its worse hops */
	ck_assert_msg(!lne_rule_add(g.a->ln,
				    &(struct lne_rule_conf){.dst = "tcp1", .rte = "10.0.0.2@tcp"},
				    -1, NULL, &idx, &err),
		      "%s", err.msg);
	ck_assert_uint_eq(through_r2(&g), 0);
	/* and over a better route priority too */
	route(g.a, "tcp1", "10.0.0.2@tcp", 3, 5);
	ck_assert_uint_eq(through_r2(&g), 0);
	/* the rule gone, priority decides again */
	ck_assert(!lne_rule_del(g.a->ln, idx, &err));
	ck_assert_uint_eq(through_r2(&g), 6);
	simnet_fini(&g.s);
}
END_TEST

/* a sends 6 PUTs to b: how many left from a's NI @nid. */
static u64 sent_from(struct simnet *s, struct simnode *a, const char *nid)
{
	struct lne_nid dst = N("10.3.0.2@tcp"), from = N(nid);
	const struct lne_counts *c = lne_node_counts(&a->node, &from);
	u64 before = c ? c->send_count : 0;
	int i;

	for (i = 0; i < 6; i++)
		ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 64,
					      false, 1000, NULL, NULL, NULL),
				 0);
	simnet_pump(s);
	c = lne_node_counts(&a->node, &from);
	return (c ? c->send_count : 0) - before;
}

/*
 * NUMA on traffic: a's two NIs sit on NUMA nodes 0 and 1; the node it runs
 * on (ops->cpt) sends on the near one, within numa_range on both, and
 * without knowing where it runs on both.
 */
START_TEST(numa_steers_traffic)
{
	static const char *const an[] = {"10.3.0.1@tcp", "10.3.1.1@tcp", NULL};
	static const char *const bn[] = {"10.3.0.2@tcp", "10.3.1.2@tcp", NULL};
	static const u32 dist[] = {10, 20, 20, 10};
	struct lne_nid a0 = N("10.3.0.1@tcp"), a1 = N("10.3.1.1@tcp");
	struct simnode *a, *b;
	struct lne_err err;
	struct simnet s;

	simnet_pair(&s, 4096, an, bn, false, &a, &b);
	simnet_peer(a, bn);
	b->node.test_service = true;
	ck_assert_msg(!lne_numa_set(a->ln, 2, dist, &err), "%s", err.msg);
	lne_ni_find(a->ln, &a0)->dev_cpt = 0;
	lne_ni_find(a->ln, &a1)->dev_cpt = 1;
	/* unknown: every NI as near, round robin */
	ck_assert_uint_eq(sent_from(&s, a, "10.3.1.1@tcp"), 3);
	a->cpt = 1;
	ck_assert_uint_eq(sent_from(&s, a, "10.3.1.1@tcp"), 6);
	a->cpt = 0;
	ck_assert_uint_eq(sent_from(&s, a, "10.3.1.1@tcp"), 0);
	ck_assert(!lne_global_set(a->ln, LNE_G_NUMA_RANGE, 20, &err));
	ck_assert_uint_eq(sent_from(&s, a, "10.3.1.1@tcp"), 3);
	simnet_fini(&s);
}
END_TEST

/*
 * The NUMA node that counts is the sender's, where the message was made,
 * not that of whoever dispatches it after a wait (issue 35: the module's
 * worker).  a, on node 1, sends 6 PUTs to b, which it does not know yet:
 * they wait for discovery, which ends while a runs on node 0; they go from
 * a's NI on node 1 all the same (discovery's push, made on node 0, from
 * node 0's).
 */
START_TEST(numa_is_the_senders)
{
	static const char *const an[] = {"10.3.0.1@tcp", "10.3.1.1@tcp", NULL};
	static const char *const bn[] = {"10.3.0.2@tcp", "10.3.1.2@tcp", NULL};
	static const u32 dist[] = {10, 20, 20, 10};
	struct lne_nid a0 = N("10.3.0.1@tcp"), a1 = N("10.3.1.1@tcp"), dst = N("10.3.0.2@tcp");
	const struct lne_counts *c0, *c1;
	struct simnode *a, *b;
	struct lne_err err;
	struct simnet s;
	int i;

	simnet_pair(&s, 4096, an, bn, true, &a, &b);
	b->node.test_service = true;
	ck_assert_msg(!lne_numa_set(a->ln, 2, dist, &err), "%s", err.msg);
	lne_ni_find(a->ln, &a0)->dev_cpt = 0;
	lne_ni_find(a->ln, &a1)->dev_cpt = 1;
	a->cpt = 1;
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 64,
					      false, 1000, NULL, NULL, NULL),
				 0);
	ck_assert_uint_eq(a->node.dst.waited, 6); /* held for discovery */
	a->cpt = 0;
	simnet_pump(&s);
	c0 = lne_node_counts(&a->node, &a0);
	c1 = lne_node_counts(&a->node, &a1);
	/* node 0's PUTs: discovery's push, which a made there */
	ck_assert_msg(c1 && c1->sent[LNW_PUT] == 6 &&
			      (c0 ? c0->sent[LNW_PUT] : 0) == a->node.dst.pushes_sent,
		      "PUTs from a's NI on node 1: %llu, on node 0: %llu (%llu pushes)",
		      (unsigned long long)(c1 ? c1->sent[LNW_PUT] : 0),
		      (unsigned long long)(c0 ? c0->sent[LNW_PUT] : 0),
		      (unsigned long long)a->node.dst.pushes_sent);
	simnet_fini(&s);
}
END_TEST

TCase *make_gwpick_tcase(void)
{
	TCase *tc = tcase_create("gwpick");

	tcase_add_test(tc, gateway_by_priority_hops_and_rule);
	tcase_add_test(tc, numa_steers_traffic);
	tcase_add_test(tc, numa_is_the_senders);
	return tc;
}
