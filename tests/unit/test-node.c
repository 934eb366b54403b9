// SPDX-License-Identifier: GPL-2.0
/*
 * test-node.c - the LNet node (engine/node.h) on simulated links with a
 * virtual clock: pings both ways, PUTs and GETs through selection, credits
 * that make messages wait, timeouts, statistics, and hostile peers that are
 * cut off without disturbing anyone else.
 */
#include "engine/node-test.h"
#include "simnet.h"
#include "unit.h"

static struct lne_nid N(const char *s) {
	struct lne_nid nid;

	ck_assert_msg(!lne_nid_parse(s, &nid, NULL), "%s", s);
	return nid;
}

struct result {
	int done, status;
	struct lnw_ping p;
	struct lnw_ping_ent e[LNW_PING_NIS_MAX];
};

static void on_done(struct lne_msg *m, int status)
{
	struct result *r = m->arg;

	r->done++;
	r->status = status;
	if (!status && m->reply)
		ck_assert_int_eq(lnw_ping_unpack(m->reply, m->reply_len, &r->p, r->e,
						 LNW_PING_NIS_MAX),
				 LNW_OK);
}

static const char *const A_NIDS[] = {"10.0.0.1@tcp", "10.0.1.1@tcp", NULL};
static const char *const B_NIDS[] = {"10.0.0.2@tcp", "10.0.1.2@tcp", NULL};

START_TEST(ping_both_ways)
{
	size_t chunks[] = {1, 13, 4096};
	size_t c;

	for (c = 0; c < LNE_ARRAY_SIZE(chunks); c++) {
		struct simnet s;
		struct simnode *a, *b;
		struct result r = {0};
		struct lne_nid dst;

		simnet_init(&s, chunks[c]);
		a = simnet_node(&s, A_NIDS);
		b = simnet_node(&s, B_NIDS);
		dst = N("10.0.1.2@tcp");
		ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &r, NULL), 0);
		simnet_pump(&s);
		ck_assert_int_eq(r.done, 1);
		ck_assert_int_eq(r.status, 0);
		/* 0@lo first, then B's two NIs, both up, and B is Multi-Rail */
		ck_assert_uint_eq(r.p.n, 3);
		ck_assert_uint_eq(r.e[0].nid >> 32, LNE_MKNET(LNE_LND_LO, 0));
		ck_assert_uint_eq(r.e[1].nid, 0x000200000a000002ull);
		ck_assert_uint_eq(r.e[2].nid, 0x000200000a000102ull);
		ck_assert_uint_eq(r.e[2].status, LNW_NI_STATUS_UP);
		ck_assert(r.p.features & LNW_PING_FEAT_MULTI_RAIL);
		ck_assert_uint_eq(r.p.pid, LNW_PID_LUSTRE);
		/* typed connections: upstream's socklnd v3 never sends on an untyped one */
		{
			struct simlink *k;

			for (k = s.links; k; k = k->next)
				ck_assert_uint_ne(k->l.conn.ctype, LNW_CONN_ANY);
		}

		/* and back, over the connection B accepted or one of its own */
		memset(&r, 0, sizeof(r));
		dst = N("10.0.0.1@tcp");
		ck_assert_int_eq(lne_node_ping(&b->node, &dst, NULL, 1000, on_done, &r, NULL), 0);
		simnet_pump(&s);
		ck_assert_int_eq(r.done, 1);
		ck_assert_int_eq(r.status, 0);
		ck_assert_uint_eq(r.p.n, 3);
		simnet_fini(&s);
	}
}
END_TEST

START_TEST(ping_timeout_and_refused)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.2@tcp");

	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);
	b->mute = true; /* takes the connection, never answers */
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 0);
	simnet_advance(&s, 499);
	ck_assert_int_eq(r.done, 0);
	/* never sent (no hello came back), and still over when its time is */
	simnet_advance(&s, 2);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, -ETIMEDOUT);
	simnet_advance(&s, 10000);
	ck_assert_int_eq(r.done, 1);

	/* nobody owns the NID: refused at once */
	memset(&r, 0, sizeof(r));
	dst = N("10.0.0.9@tcp");
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &r, NULL), 0);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, -ECONNREFUSED);

	/* a net we have no NI on: unreachable */
	memset(&r, 0, sizeof(r));
	dst = N("10.0.0.9@tcp7");
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &r, NULL), 0);
	ck_assert_int_eq(r.status, -EHOSTUNREACH);
	simnet_fini(&s);
}
END_TEST

START_TEST(ping_sent_then_silence)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.2@tcp");

	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);
	/* connect and ping once, then B stops reading */
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	memset(&r, 0, sizeof(r));
	b->mute = true;
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &r, NULL), 0);
	simnet_pump(&s);
	simnet_advance(&s, 499);
	ck_assert_int_eq(r.done, 0);
	simnet_advance(&s, 2);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, -ETIMEDOUT);
	simnet_fini(&s);
}
END_TEST

/*
 * The node pinged by 0@lo or by one of its own NIDs answers itself, with no
 * link, as LNet's loopback does (Lustre's `lnetctl ping 0@lo` and of the
 * node's own NID): its own ping info, at once; no connection is made.
 */
START_TEST(ping_self)
{
	static const char *const own[] = {"0@lo", "10.0.0.1@tcp", "10.0.1.1@tcp"};
	struct simnet s;
	struct simnode *a;
	size_t i;

	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	for (i = 0; i < LNE_ARRAY_SIZE(own); i++) {
		struct result r = {0};
		struct lne_nid dst = N(own[i]);

		ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &r, NULL), 0);
		ck_assert_msg(r.done == 1, "ping %s: not answered at once", own[i]);
		ck_assert_msg(r.status == 0, "ping %s: status %d", own[i], r.status);
		ck_assert_uint_eq(r.p.n, 3);
		ck_assert_uint_eq(r.e[0].nid >> 32, LNE_MKNET(LNE_LND_LO, 0));
		ck_assert_uint_eq(r.e[1].nid, 0x000200000a000001ull);
		ck_assert_uint_eq(r.e[2].nid, 0x000200000a000101ull);
		simnet_pump(&s);
		ck_assert_int_eq(r.done, 1);
	}
	ck_assert_ptr_null(s.links);
	simnet_fini(&s);
}
END_TEST

static void add_peer(struct simnode *n, const char *const *nids)
{
	struct lne_nid p = N(nids[0]);
	struct lne_err err;

	ck_assert_msg(!lne_peer_add(n->ln,
				    &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				    &err),
		      "%s", err.msg);
	for (nids++; *nids; nids++) {
		struct lne_nid x = N(*nids);

		ck_assert_msg(!lne_peer_add_nid(n->ln, &p, &x, &err), "%s", err.msg);
	}
}

START_TEST(puts_spread_over_rails)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.2@tcp"), l0 = N("10.0.0.1@tcp"), l1 = N("10.0.1.1@tcp");
	const struct lne_counts *c0, *c1;
	int i;

	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);
	add_peer(a, B_NIDS);
	for (i = 0; i < 100; i++) {
		u8 *p = calloc(1, 100);

		ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, 4, 1, 0, p, 100, false, 0,
					      on_done, &r, NULL),
				 0);
		simnet_pump(&s);
	}
	ck_assert_int_eq(r.done, 100);
	ck_assert_uint_eq(b->recv_puts, 100);
	c0 = lne_node_counts(&a->node, &l0);
	c1 = lne_node_counts(&a->node, &l1);
	ck_assert_ptr_nonnull(c0);
	ck_assert_ptr_nonnull(c1);
	/* round robin: both rails carry half */
	ck_assert_uint_eq(c0->sent[LNW_PUT], 50);
	ck_assert_uint_eq(c1->sent[LNW_PUT], 50);
	ck_assert_uint_eq(c0->send_length + c1->send_length, 100 * 100);
	ck_assert_uint_eq(a->node.st.c.send_count, 100);
	ck_assert_uint_eq(b->node.st.c.recv_count, 100);
	/* credits all given back */
	ck_assert_int_eq(lne_ni_find(a->ln, &l0)->credits,
			 (s32)lne_ni_find(a->ln, &l0)->tun.credits);
	simnet_fini(&s);
}
END_TEST

START_TEST(credits_make_messages_wait)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.2@tcp"), l0 = N("10.0.0.1@tcp");
	static const char *const one[] = {"10.0.0.1@tcp", NULL};
	int i;

	simnet_init(&s, 4096);
	a = simnet_node(&s, one);
	b = simnet_node(&s, B_NIDS);
	add_peer(a, B_NIDS);
	ck_assert(!lne_ni_set_credits(a->ln, &l0, 2, NULL));
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, 4, 1, 0, NULL, 0, false, 0,
					      on_done, &r, NULL),
				 0);
	/* two took the NI's credits; three wait */
	ck_assert_int_eq(lne_ni_find(a->ln, &l0)->credits, 0);
	ck_assert_ptr_nonnull(a->node.credq);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 5);
	ck_assert_uint_eq(b->recv_puts, 5);
	ck_assert_int_eq(lne_ni_find(a->ln, &l0)->credits, 2);
	simnet_fini(&s);
}
END_TEST

START_TEST(get_and_put_with_ack)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.2@tcp");

	simnet_init(&s, 7);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);
	ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, 4, 1, 0, NULL, 0, true, 1000, on_done,
				      &r, NULL),
			 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(b->node.st.c.sent[LNW_ACK], 1);
	ck_assert_uint_eq(a->node.st.c.recvd[LNW_ACK], 1);
	simnet_fini(&s);
}
END_TEST

static void on_get(struct lne_msg *m, int status)
{
	struct result *r = m->arg;

	r->done++;
	r->status = status;
	r->p.n = m->reply_len; /* the bytes that came back */
}

START_TEST(test_service)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.2@tcp");

	simnet_init(&s, 65536);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);
	/* off: a PUT is dropped unanswered, a GET too */
	ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 5000, true,
				      100, on_done, &r, NULL),
			 0);
	simnet_pump(&s);
	simnet_advance(&s, 101);
	ck_assert_int_eq(r.status, -ETIMEDOUT);
	ck_assert_uint_eq(b->node.st.c.dropped[LNW_PUT], 1);
	/* on: PUTs of zeros (the node's own buffer) are ACKed, GETs answered in full */
	b->node.test_service = true;
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 300000,
				      true, 1000, on_done, &r, NULL),
			 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(b->node.st.test_puts, 1);
	ck_assert_uint_eq(b->node.st.c.recv_length, 300000);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(lne_node_get(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, LNW_MTU, 1000,
				      on_get, &r, NULL),
			 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.p.n, LNW_MTU);
	ck_assert_uint_eq(b->node.st.test_gets, 1);
	simnet_fini(&s);
}
END_TEST

static void add_route(struct simnode *n, const char *net, const char *gw)
{
	struct lne_nid g = N(gw);
	struct lne_err err;
	lne_net_t nt;

	ck_assert(!lne_net_parse(net, &nt, NULL));
	ck_assert_msg(!lne_route_add(n->ln, nt, &g, 1, 0, 1, &err), "%s", err.msg);
}

/*
 * LNet messages @owner sent on its live connections of type @ctype (its
 * view) to @peer, the hello each began with left out; @nconns: how many.
 */
static u64 sent_on(struct simnet *s, struct simnode *owner, u64 peer, u32 ctype, int *nconns)
{
	struct simlink *k;
	u64 msgs = 0;

	*nconns = 0;
	for (k = s->links; k; k = k->next)
		if (k->owner == owner && k->l.peer == peer && k->l.conn.ctype == ctype &&
		    !k->closed) {
			msgs += k->l.conn.tx_msgs - 1;
			(*nconns)++;
		}
	return msgs;
}

/*
 * Lustre's typed connections: first contact opens a control connection and
 * conns_per_peer bulk connections each way; small frames take the control
 * one, a frame of 1024 bytes or more a bulk-out one, whichever side sends.
 */
START_TEST(bulk_connections)
{
	static const char *const an[] = {"10.0.0.1@tcp", NULL};
	static const char *const bn[] = {"10.0.0.2@tcp", NULL};
	struct lne_nid dst = N("10.0.0.2@tcp"), back = N("10.0.0.1@tcp");
	const u64 b4 = 0x000200000a000002ull, a4 = 0x000200000a000001ull;
	struct result r[4] = {{0}};
	struct simnet s;
	struct simnode *a, *b;
	int n, i;

	simnet_init(&s, 4096);
	a = simnet_node(&s, an);
	b = simnet_node(&s, bn);
	lne_ni_find(a->ln, &back)->tun.conns_per_peer = 3;
	b->node.test_service = a->node.test_service = true;
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &r[0], NULL), 0);
	ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 65536,
				      true, 1000, on_done, &r[1], NULL),
			 0);
	ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL,
				      LNE_MIN_BULK_PAYLOAD - 1, true, 1000, on_done, &r[2], NULL),
			 0);
	simnet_pump(&s);
	/* b sends back on what a opened: a GET's REPLY is bulk from a's side */
	ck_assert_int_eq(lne_node_get(&b->node, &back, NULL, LNE_PORTAL_TEST, 0, 8192, 1000, on_get,
				      &r[3], NULL),
			 0);
	simnet_pump(&s);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(r[i].status, 0);
	ck_assert_uint_eq(a->node.st.links_made, 7);
	ck_assert_uint_eq(b->node.st.links_made, 0);
	/* a: the ping's GET and the small PUT on control; the large PUT and the REPLY bulk */
	ck_assert_uint_eq(sent_on(&s, a, b4, LNW_CONN_CONTROL, &n), 2);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(sent_on(&s, a, b4, LNW_CONN_BULK_OUT, &n), 2);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(sent_on(&s, a, b4, LNW_CONN_BULK_IN, &n), 0);
	ck_assert_int_eq(n, 3);
	/* b accepted them inverted; its ping REPLY, ACKs and GET are small */
	ck_assert_uint_eq(sent_on(&s, b, a4, LNW_CONN_CONTROL, &n), 4);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(sent_on(&s, b, a4, LNW_CONN_BULK_OUT, &n), 0);
	ck_assert_int_eq(n, 3);
	simnet_fini(&s);
}
END_TEST

static void on_test_done(struct lne_test *t)
{
	(*(int *)t->arg)++;
}

/* The traffic generator: a window of messages, every one accounted for, bytes by rail. */
START_TEST(traffic_generator)
{
	struct lne_test t = {.mode = LNE_TEST_WRITE,
			     .size = 8192,
			     .count = 40,
			     .conc = 4,
			     .ack = true,
			     .done = on_test_done};
	struct lne_err err;
	struct simnet s;
	struct simnode *a, *b;
	u64 sent = 0;
	int done = 0;
	u32 i;

	t.arg = &done;
	t.dst = N("10.0.0.2@tcp");
	ck_assert_int_eq(lne_test_check(&t, &err), 0);
	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);
	add_peer(a, B_NIDS);
	b->node.test_service = true;
	lne_test_start(&t, &a->node);
	ck_assert_uint_eq(t.inflight, 4); /* the window, no more */
	simnet_pump(&s);
	ck_assert_int_eq(done, 1);
	ck_assert_uint_eq(t.finished, 40);
	ck_assert_uint_eq(t.failed, 0);
	ck_assert_uint_eq(lne_test_bytes(&t), 40 * 8192);
	ck_assert_uint_eq(t.nrails, 2);
	for (i = 0; i < t.nrails; i++) {
		ck_assert_uint_gt(t.rails[i].sent, 0); /* both rails carried some */
		sent += t.rails[i].sent;
	}
	ck_assert_uint_eq(sent, 40 * 8192);
	ck_assert_uint_eq(b->node.st.test_puts, 40);

	/* nobody there: every message fails, and it still ends, once */
	t.dst = N("10.0.0.9@tcp");
	t.mode = LNE_TEST_PING;
	t.count = 3;
	lne_test_start(&t, &a->node);
	simnet_pump(&s);
	simnet_advance(&s, LNE_TEST_TIMEOUT_MS + 1);
	ck_assert_int_eq(done, 2);
	ck_assert_uint_eq(t.failed, 3);
	ck_assert_int_ne(t.first_err, 0);

	/* a peer that takes the writes in silently (no test service): each waits
	 * lnet_selftest's 64 s by default, or the shell's own wait, and not less */
	t.dst = N("10.0.0.2@tcp");
	t.mode = LNE_TEST_WRITE;
	b->node.test_service = false;
	lne_test_start(&t, &a->node);
	simnet_pump(&s);
	simnet_advance(&s, LNE_TEST_TIMEOUT_MS - 1);
	ck_assert_int_eq(done, 2);
	simnet_advance(&s, 2);
	ck_assert_int_eq(done, 3);
	ck_assert_uint_eq(t.failed, 3);
	t.timeout_ms = 2000;
	lne_test_start(&t, &a->node);
	simnet_pump(&s);
	simnet_advance(&s, 1999);
	ck_assert_int_eq(done, 3);
	simnet_advance(&s, 2);
	ck_assert_int_eq(done, 4);
	ck_assert_uint_eq(t.failed, 3);
	b->node.test_service = true;
	t.timeout_ms = LNE_TEST_TIMEOUT_MAX_MS + 1;
	ck_assert_int_eq(lne_test_check(&t, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "timeout"));
	t.timeout_ms = 0;

	/* bounds, before any work */
	t.count = 0;
	ck_assert_int_eq(lne_test_check(&t, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "count"));
	t.count = 1;
	t.conc = LNE_TEST_CONCURRENCY_MAX + 1;
	ck_assert_int_eq(lne_test_check(&t, &err), -EINVAL);
	t.conc = 1;
	t.size = LNW_MTU + 1;
	ck_assert_int_eq(lne_test_check(&t, &err), -EINVAL);

	/* the node stops mid-test: what is in flight fails, nothing new starts, it ends once */
	t.dst = N("10.0.0.2@tcp");
	t.mode = LNE_TEST_WRITE;
	t.size = 1000;
	t.count = 100000;
	t.conc = 8;
	lne_test_start(&t, &a->node);
	simnet_fini(&s);
	ck_assert_int_eq(done, 5);
	ck_assert_uint_eq(t.finished, t.count);
	ck_assert_uint_eq(t.failed, t.finished);
	ck_assert_uint_le(t.count, 8 + 1); /* the window, and the one refused */
}
END_TEST

/* a (10.0.0.1@tcp) and b (10.1.0.2@tcp1), with r between them, routes both ways. */
static void three_nodes(struct simnet *s, struct simnode **a, struct simnode **r,
			struct simnode **b)
{
	static const char *const an[] = {"10.0.0.1@tcp", NULL};
	static const char *const rn[] = {"10.0.0.254@tcp", "10.1.0.254@tcp1", NULL};
	static const char *const bn[] = {"10.1.0.2@tcp1", NULL};

	simnet_init(s, 997);
	*a = simnet_node(s, an);
	*r = simnet_node(s, rn);
	*b = simnet_node(s, bn);
	add_route(*a, "tcp1", "10.0.0.254@tcp");
	add_route(*b, "tcp", "10.1.0.254@tcp1");
}

static void set_global(struct simnode *n, enum lne_global g, u32 v)
{
	struct lne_err err;

	ck_assert_msg(!lne_global_set(n->ln, g, v, &err), "%s", err.msg);
}

START_TEST(routed_through_a_router)
{
	struct simnet s;
	struct simnode *a, *r, *b;
	struct result res = {0};
	struct lne_nid dst = N("10.1.0.2@tcp1"), back = N("10.0.0.1@tcp");
	u64 before, routed;

	three_nodes(&s, &a, &r, &b);

	/* a node that does not route drops what is not for it */
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &res, NULL), 0);
	simnet_pump(&s);
	simnet_advance(&s, 501);
	ck_assert_int_eq(res.status, -ETIMEDOUT);
	ck_assert_uint_eq(r->node.st.c.dropped[LNW_GET], 1);
	ck_assert_uint_eq(r->node.st.route_count, 0);

	/* a router passes it on, and the reply comes back the same way */
	set_global(r, LNE_G_ROUTING, 1);
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &res, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(res.done, 1);
	ck_assert_int_eq(res.status, 0);
	ck_assert_uint_eq(res.e[1].nid, 0x000200010a010002ull); /* 10.1.0.2@tcp1 answered */
	ck_assert_uint_eq(r->node.st.route_count, 2);		/* the GET and the REPLY */
	ck_assert_uint_eq(b->node.st.c.recvd[LNW_GET], 1);
	ck_assert_uint_eq(b->node.st.c.sent[LNW_REPLY], 1);

	/* the other way, a PUT with its ACK, and a payload across */
	b->node.test_service = true;
	a->node.test_service = true;
	before = a->node.st.c.recv_length;
	routed = r->node.st.route_length;
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(lne_node_put(&b->node, &back, NULL, LNE_PORTAL_TEST, 0, 0, NULL, 70000,
				      true, 1000, on_done, &res, NULL),
			 0);
	simnet_pump(&s);
	ck_assert_int_eq(res.status, 0);
	ck_assert_uint_eq(a->node.st.test_puts, 1);
	ck_assert_uint_eq(a->node.st.c.recv_length - before, 70000);
	ck_assert_uint_eq(r->node.st.route_length - routed, 70000);
	/* the router's credits all came back */
	{
		struct lne_nid rn1 = N("10.1.0.254@tcp1");
		const struct lne_ni *ni = lne_ni_find(r->ln, &rn1);

		ck_assert_int_eq(ni->credits, (s32)ni->tun.credits);
	}
	simnet_fini(&s);
}
END_TEST

/* a sends @n PUTs of a page each to b's test service, through r with 2 small buffers. */
static void put_pages(struct simnode *a, struct simnode *r, struct result *res, int n)
{
	struct lne_nid dst = N("10.1.0.2@tcp1");
	int i;

	set_global(r, LNE_G_ROUTING, 1);
	set_global(r, LNE_G_SMALL_BUFFERS, 2);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, LNE_PORTAL_TEST, 0, 0, NULL,
					      LNE_RB_SMALL_MAX, true, 1000, on_done, &res[i], NULL),
				 0);
}

/* Router buffers: 10 PUTs of a page pass a router with 2 small buffers, none lost. */
START_TEST(router_buffers_pass_everything)
{
	struct simnet s;
	struct simnode *a, *r, *b;
	struct result res[10] = {{0}}, tiny = {0};
	struct lne_nid dst = N("10.1.0.2@tcp1");
	int i;

	three_nodes(&s, &a, &r, &b);
	b->node.test_service = true;
	put_pages(a, r, res, 10);
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &tiny, NULL), 0);
	simnet_pump(&s);
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(res[i].done, 1);
		ck_assert_int_eq(res[i].status, 0);
	}
	ck_assert_int_eq(tiny.status, 0);
	ck_assert_uint_eq(b->node.st.test_puts, 10);
	/* every buffer came back; a ping is tiny, and nothing was large */
	for (i = 0; i < LNE_RB__COUNT; i++) {
		ck_assert_uint_eq(r->node.rtr[i].used, 0);
		ck_assert_uint_eq(r->node.rtr[i].queued, 0);
	}
	ck_assert_uint_ge(r->node.rtr[LNE_RB_TINY].peak, 1);
	ck_assert_uint_eq(r->node.rtr[LNE_RB_LARGE].peak, 0);

	/* routing off: the router drops what is not its own */
	set_global(r, LNE_G_ROUTING, 0);
	memset(&tiny, 0, sizeof(tiny));
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 500, on_done, &tiny, NULL), 0);
	simnet_pump(&s);
	simnet_advance(&s, 501);
	ck_assert_int_eq(tiny.status, -ETIMEDOUT);
	simnet_fini(&s);
}
END_TEST

/*
 * A next hop that never answers its hello: 2 messages hold the 2 buffers,
 * the other 8 wait for one, and a ping still takes a tiny buffer of its
 * own.  At shutdown every one of them fails, none leaks (ASan, valgrind).
 */
START_TEST(router_buffers_bound_what_is_held)
{
	struct simnet s;
	struct simnode *a, *r, *b;
	struct result res[10] = {{0}}, tiny = {0};
	struct lne_nid dst = N("10.1.0.2@tcp1");

	three_nodes(&s, &a, &r, &b);
	b->mute = true;
	/* a's router credits bound nothing here: only the buffers (test-gw.c has them) */
	{
		struct lne_nid rn = N("10.0.0.254@tcp");

		lne_ni_find(r->ln, &rn)->tun.peer_buffer_credits = 100;
	}
	put_pages(a, r, res, 10);
	ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &tiny, NULL), 0);
	simnet_pump(&s);
	ck_assert_uint_eq(r->node.st.route_count, 11);
	ck_assert_uint_eq(r->node.rtr[LNE_RB_SMALL].used, 2);
	ck_assert_uint_eq(r->node.rtr[LNE_RB_SMALL].queued, 8);
	ck_assert_uint_eq(r->node.rtr[LNE_RB_SMALL].peak, 10);
	ck_assert_uint_eq(r->node.rtr[LNE_RB_TINY].used, 1);
	ck_assert_uint_eq(r->node.rtr[LNE_RB_TINY].queued, 0);
	simnet_fini(&s);
}
END_TEST

START_TEST(hostile_peer_is_cut_off)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = N("10.0.0.1@tcp");
	u8 bytes[LNW_CONNREQ_SIZE + LNW_HELLO_SIZE + LNW_FRAME_HDR];
	struct lnw_hello h = {.version = 3, .dst_nid = 0x000200000a000001ull, .ctype = 1};
	struct lnw_ksm k = {.type = LNW_KSM_LNET};
	struct lnw_hdr m = {.type = 9};

	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	b = simnet_node(&s, B_NIDS);

	/* a request for a NID this node does not have */
	lnw_connreq_pack(0x000200000a000063ull, bytes);
	ck_assert_int_eq(simnet_inject(&s, a, bytes, LNW_CONNREQ_SIZE), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 1);

	/* a hello claiming a NID on another net */
	lnw_connreq_pack(0x000200000a000001ull, bytes);
	h.src_nid = 0x000200070a000002ull;
	lnw_hello_pack(&h, bytes + LNW_CONNREQ_SIZE);
	ck_assert_int_eq(simnet_inject(&s, a, bytes, LNW_CONNREQ_SIZE + LNW_HELLO_SIZE), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 2);

	/* a good hello, then an LNet message of a type that does not exist */
	h.src_nid = 0x000200000a000002ull;
	lnw_hello_pack(&h, bytes + LNW_CONNREQ_SIZE);
	lnw_ksm_pack(&k, bytes + LNW_CONNREQ_SIZE + LNW_HELLO_SIZE);
	lnw_hdr_pack(&m, bytes + LNW_CONNREQ_SIZE + LNW_HELLO_SIZE + LNW_KSM_SIZE);
	lnw_put32(bytes + LNW_CONNREQ_SIZE + LNW_HELLO_SIZE + LNW_KSM_SIZE + 24, 9);
	ck_assert_int_eq(simnet_inject(&s, a, bytes, sizeof(bytes)), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_MSGTYPE], 1);

	/* nobody else noticed: B still pings A */
	ck_assert_int_eq(lne_node_ping(&b->node, &dst, NULL, 1000, on_done, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, 0);
	simnet_fini(&s);
}
END_TEST

START_TEST(random_bytes_never_crash)
{
	struct simnet s;
	struct simnode *a;
	unsigned int seed = 7;
	int round;

	simnet_init(&s, 4096);
	a = simnet_node(&s, A_NIDS);
	for (round = 0; round < unit_rounds(2000); round++) {
		u8 buf[256];
		size_t len = (size_t)rand_r(&seed) % sizeof(buf), i;

		/* a valid prefix half the time, so the fuzz reaches the later states */
		for (i = 0; i < len; i++)
			buf[i] = (u8)rand_r(&seed);
		if (round & 1 && len > LNW_CONNREQ_SIZE + LNW_HELLO_SIZE) {
			struct lnw_hello h = {.version = 3,
					      .src_nid = 0x000200000a000002ull,
					      .dst_nid = 0x000200000a000001ull,
					      .ctype = 1};

			lnw_connreq_pack(0x000200000a000001ull, buf);
			lnw_hello_pack(&h, buf + LNW_CONNREQ_SIZE);
		}
		simnet_inject(&s, a, buf, len);
	}
	simnet_fini(&s);
}
END_TEST

Suite *make_node_suite(void)
{
	Suite *s = suite_create("node");
	TCase *tc = tcase_create("node");

	tcase_add_test(tc, ping_both_ways);
	tcase_add_test(tc, ping_timeout_and_refused);
	tcase_add_test(tc, ping_sent_then_silence);
	tcase_add_test(tc, ping_self);
	tcase_add_test(tc, puts_spread_over_rails);
	tcase_add_test(tc, credits_make_messages_wait);
	tcase_add_test(tc, get_and_put_with_ack);
	tcase_add_test(tc, test_service);
	tcase_add_test(tc, bulk_connections);
	tcase_add_test(tc, traffic_generator);
	tcase_add_test(tc, routed_through_a_router);
	tcase_add_test(tc, router_buffers_pass_everything);
	tcase_add_test(tc, router_buffers_bound_what_is_held);
	tcase_add_test(tc, hostile_peer_is_cut_off);
	tcase_add_test(tc, random_bytes_never_crash);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, make_node6_tcase());
	suite_add_tcase(s, make_nidkeys_tcase());
	suite_add_tcase(s, make_nidstats_tcase());
	suite_add_tcase(s, make_gwpick_tcase());
	return s;
}
