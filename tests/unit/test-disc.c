// SPDX-License-Identifier: GPL-2.0
/*
 * test-disc.c - dynamic peer discovery (engine/node-disc.c) on simulated
 * links with a virtual clock: the handshake both ways, DS1 (a 4-NID peer
 * in two round trips), DS2 (1,000 peers at once), the seed's races (both
 * sides at once, a push crossing a ping, a peer restarting mid-discovery),
 * merges, --lock_prim, non-Multi-Rail peers, verify only, and malformed
 * ping replies and pushes that change nothing.
 */
#include "engine/node.h"
#include "simnet.h"
#include "unit.h"

static struct lne_nid N(const char *s) {
	struct lne_nid nid;

	ck_assert_msg(!lne_nid_parse(s, &nid, NULL), "%s", s);
	return nid;
}

static const char *const A_NIDS[] = {"10.0.0.1@tcp", "10.0.1.1@tcp", NULL};
static const char *const B_NIDS[] = {"10.0.0.2@tcp", "10.0.1.2@tcp", NULL};

struct done {
	int n, status;
};

static void on_done(struct lne_msg *m, int status)
{
	struct done *d = m->arg;

	d->n++;
	d->status = status;
}

static void on_disc(void *arg, int status)
{
	struct done *d = arg;

	d->n++;
	d->status = status;
}

static void put(struct simnode *from, const char *to, struct done *d)
{
	struct lne_nid dst = N(to);

	ck_assert_int_eq(lne_node_put(&from->node, &dst, NULL, 4, 1, 0, NULL, 0, false, 1000,
				      on_done, d, NULL),
			 0);
}

static u32 npeers(const struct simnode *sn)
{
	const struct lne_peer *p;
	u32 k = 0;

	lne_list_for_each_entry(p, &sn->ln->peers, link)
		k++;
	return k;
}

/* The peer with @nid, which has @count NIDs, @primary first. */
static struct lne_peer *peer_is(struct simnode *sn, const char *nid, const char *primary, u32 count)
{
	struct lne_nid x = N(nid), p = N(primary);
	struct lne_peer_ni *pni = lne_peer_ni_find(sn->ln, &x);

	ck_assert_msg(pni, "no peer has %s", nid);
	ck_assert(lne_nid_equal(&lne_peer_of(pni)->primary, &p));
	ck_assert_uint_eq(lne_peer_of(pni)->npni, count);
	return lne_peer_of(pni);
}

/* A simnet node with discovery on (1, the default outside tests). */
static struct simnode *node(struct simnet *s, const char *const *nids)
{
	struct simnode *sn = simnet_node(s, nids);

	ck_assert_int_eq(lne_global_set(sn->ln, LNE_G_DISCOVERY, 1, NULL), 0);
	return sn;
}

static void add_ni(struct simnode *sn, const char *nid)
{
	struct lne_ni_conf c = {.nid = N(nid), .dev_cpt = LNE_CPT_ANY};

	ck_assert_int_eq(lne_ni_add(sn->ln, &c, NULL), 0);
}

START_TEST(handshake_both_ways)
{
	int dir;

	for (dir = 0; dir < 2; dir++) {
		struct simnet s;
		struct simnode *a, *b, *act, *pas;
		struct done d = {0};
		struct lne_nid l0 = N("10.0.0.1@tcp"), l1 = N("10.0.1.1@tcp");
		const struct lne_counts *c0, *c1;
		struct lne_peer *p;
		int i;

		simnet_pair(&s, dir ? 7 : 4096, A_NIDS, B_NIDS, true, &a, &b);
		act = dir ? b : a;
		pas = dir ? a : b;
		put(act, dir ? "10.0.1.1@tcp" : "10.0.1.2@tcp", &d);
		ck_assert_int_eq(d.n, 0); /* it waits for the round */
		simnet_pump(&s);
		ck_assert_int_eq(d.n, 1);
		ck_assert_int_eq(d.status, 0);
		ck_assert_uint_eq(pas->recv_puts, 1);
		/* each side has the other's two NIDs, under its first NID, learnt by discovery */
		p = peer_is(act, dir ? "10.0.1.1@tcp" : "10.0.1.2@tcp",
			    dir ? "10.0.0.1@tcp" : "10.0.0.2@tcp", 2);
		ck_assert(p->discovered && p->mr && p->disc & LNE_DISC_DONE);
		ck_assert(p->first_pni.discovered);
		p = peer_is(pas, dir ? "10.0.0.2@tcp" : "10.0.0.1@tcp",
			    dir ? "10.0.0.2@tcp" : "10.0.0.1@tcp", 2);
		ck_assert(p->discovered && p->disc & LNE_DISC_DONE);
		ck_assert_uint_eq(act->node.dst.done, 1);
		ck_assert_uint_eq(act->node.dst.pushes_sent, 1);
		ck_assert_uint_eq(pas->node.dst.pushes_recvd, 1);
		ck_assert_uint_eq(npeers(a), 1);
		ck_assert_uint_eq(npeers(b), 1);
		/* the passive side sends at once: it never waits, nor pings */
		put(pas, dir ? "10.0.0.2@tcp" : "10.0.0.1@tcp", &d);
		simnet_pump(&s);
		ck_assert_int_eq(d.n, 2);
		ck_assert_uint_eq(pas->node.dst.waited, 0);
		ck_assert_uint_eq(pas->node.dst.started, 0);
		/* and traffic from A uses both rails */
		for (i = 0; i < 20; i++)
			put(a, "10.0.0.2@tcp", &d);
		simnet_pump(&s);
		c0 = lne_node_counts(&a->node, &l0);
		c1 = lne_node_counts(&a->node, &l1);
		ck_assert_ptr_nonnull(c0);
		ck_assert_ptr_nonnull(c1);
		ck_assert_uint_ge(c0->sent[LNW_PUT], 8);
		ck_assert_uint_ge(c1->sent[LNW_PUT], 8);
		simnet_fini(&s);
	}
}
END_TEST

/* DS1: a 4-NID peer discovered from one NID in at most two round trips. */
START_TEST(ds1_two_round_trips)
{
	static const char *const b4[] = {"10.0.0.2@tcp", "10.0.0.3@tcp", "10.0.0.4@tcp",
					 "10.0.0.5@tcp", NULL};
	static const char *const a1[] = {"10.0.0.1@tcp", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};
	const struct lne_counts *c;

	simnet_pair(&s, 4096, a1, b4, true, &a, &b);
	put(a, "10.0.0.4@tcp", &d);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 1);
	peer_is(a, "10.0.0.4@tcp", "10.0.0.2@tcp", 4);
	peer_is(b, "10.0.0.1@tcp", "10.0.0.1@tcp", 1);
	/* each side is told once: a by its round, b by a's push (PeerDiscovered) */
	ck_assert_uint_eq(a->discovered, 1);
	ck_assert_uint_eq(b->discovered, 1);
	c = &a->node.st.c;
	/* requests: the ping (GET) and the push (a PUT), each answered; then the PUT */
	ck_assert_uint_eq(c->sent[LNW_GET], 1);
	ck_assert_uint_eq(c->sent[LNW_PUT], 2);
	ck_assert_uint_eq(c->recvd[LNW_REPLY] + c->recvd[LNW_ACK], 2);
	ck_assert_uint_eq(b->node.st.c.sent[LNW_REPLY] + b->node.st.c.sent[LNW_ACK], 2);
	simnet_fini(&s);
}
END_TEST

/* DS2: 1,000 peers at once all complete; sends to discovered ones never wait. */
START_TEST(ds2_thousand_peers)
{
	static const char *const hub[] = {"10.1.0.1@tcp", NULL};
	enum {
		NP = 1000
	};
	static char names[NP][32];
	struct simnet *s = calloc(1, sizeof(*s));
	struct simnode *a, *p[NP];
	struct done d = {0};
	int i;

	ck_assert_ptr_nonnull(s);
	simnet_init(s, 4096);
	a = node(s, hub);
	for (i = 0; i < NP; i++) {
		const char *nids[2] = {names[i], NULL};

		snprintf(names[i], sizeof(names[i]), "10.1.%d.%d@tcp", 1 + i / 200, 1 + i % 200);
		p[i] = node(s, nids);
	}
	/* the first half, then the second half while the first is discovered */
	for (i = 0; i < NP / 2; i++)
		put(a, names[i], &d);
	ck_assert_uint_eq(a->node.dst.waited, NP / 2);
	simnet_pump(s);
	ck_assert_int_eq(d.n, NP / 2);
	for (i = 0; i < NP; i++)
		put(a, names[i], &d);
	/* only the new ones wait */
	ck_assert_uint_eq(a->node.dst.waited, NP);
	simnet_pump(s);
	ck_assert_int_eq(d.n, NP / 2 + NP);
	ck_assert_int_eq(d.status, 0);
	ck_assert_uint_eq(a->node.dst.done, NP);
	ck_assert_uint_eq(a->node.dst.failed, 0);
	ck_assert_uint_eq(npeers(a), NP);
	for (i = 0; i < NP; i++) {
		ck_assert_uint_eq(p[i]->recv_puts, 1 + (i < NP / 2));
		ck_assert_uint_eq(npeers(p[i]), 1);
	}
	/* all discovered: another send to each waits for nothing */
	for (i = 0; i < NP; i++)
		put(a, names[i], &d);
	simnet_pump(s);
	ck_assert_uint_eq(a->node.dst.waited, NP);
	ck_assert_uint_eq(a->node.dst.started, NP);
	simnet_fini(s);
	free(s);
}
END_TEST

/* Race: both sides discover each other at once. */
START_TEST(both_sides_at_once)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};

	simnet_pair(&s, 5, A_NIDS, B_NIDS, true, &a, &b);
	put(a, "10.0.0.2@tcp", &d);
	put(b, "10.0.1.1@tcp", &d);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 2);
	ck_assert_int_eq(d.status, 0);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	peer_is(b, "10.0.1.1@tcp", "10.0.0.1@tcp", 2);
	ck_assert_uint_eq(npeers(a), 1);
	ck_assert_uint_eq(npeers(b), 1);
	/* each was pinged before its round's reply came: no push was needed */
	ck_assert_uint_le(a->node.dst.pushes_sent + b->node.dst.pushes_sent, 2);
	ck_assert_uint_eq(a->node.dst.failed + b->node.dst.failed, 0);
	simnet_fini(&s);
}
END_TEST

/* Race: a push (A gained an NI) crosses a ping (B rediscovers A). */
START_TEST(push_crosses_ping)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0}, r = {0};
	struct lne_nid an = N("10.0.0.1@tcp");

	simnet_pair(&s, 3, A_NIDS, B_NIDS, true, &a, &b);
	put(a, "10.0.0.2@tcp", &d);
	simnet_pump(&s);
	peer_is(b, "10.0.0.1@tcp", "10.0.0.1@tcp", 2);
	add_ni(a, "10.0.2.1@tcp");
	lne_node_nis_changed(&a->node);
	ck_assert_int_eq(lne_node_discover(&b->node, &an, true, on_disc, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.status, 0);
	peer_is(b, "10.0.2.1@tcp", "10.0.0.1@tcp", 3);
	ck_assert_uint_eq(npeers(b), 1);
	ck_assert_uint_eq(b->node.dst.bad[LNE_DBAD_OWNER] + b->node.dst.bad[LNE_DBAD_DUP], 0);
	/* the older of the two (same sequence twice) is ignored, not harmful */
	ck_assert_uint_le(b->node.dst.bad[LNE_DBAD_NO_STALE], 1);
	simnet_fini(&s);
}
END_TEST

/* Race: the peer restarts mid-discovery, then comes back with one NID fewer. */
START_TEST(peer_restarts)
{
	static const char *const b1[] = {"10.0.0.2@tcp", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0}, r = {0};
	struct lne_nid bn = N("10.0.0.2@tcp"), gone = N("10.0.1.2@tcp");

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	put(a, "10.0.0.2@tcp", &d); /* the ping is on its way */
	simnet_restart(&s, b);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.status, 0);
	ck_assert_uint_eq(b->recv_puts, 1);
	ck_assert_uint_eq(a->node.dst.failed, 0);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	peer_is(b, "10.0.1.1@tcp", "10.0.0.1@tcp", 2);

	/* B comes back without its second NI: a forced round drops that NID */
	ck_assert_int_eq(lne_ni_del(b->ln, &gone, NULL), 0);
	simnet_restart(&s, b);
	(void)b1;
	ck_assert_int_eq(lne_node_discover(&a->node, &bn, true, on_disc, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.status, 0);
	peer_is(a, "10.0.0.2@tcp", "10.0.0.2@tcp", 1);
	peer_is(b, "10.0.0.1@tcp", "10.0.0.1@tcp", 2);
	simnet_fini(&s);
}
END_TEST

/* Two NIDs of one peer discovered at once: one peer, the right primary, one push. */
START_TEST(merge_two_rounds)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	put(a, "10.0.1.2@tcp", &d);
	put(a, "10.0.0.2@tcp", &d);
	ck_assert_uint_eq(npeers(a), 2);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 2);
	ck_assert_int_eq(d.status, 0);
	ck_assert_uint_eq(npeers(a), 1);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	ck_assert_uint_ge(a->node.dst.merged, 1);
	ck_assert_uint_eq(a->node.dst.pushes_sent, 1);
	ck_assert_uint_eq(b->recv_puts, 2);
	simnet_fini(&s);
}
END_TEST

/*
 * Configured peers: discovery adds to them, never deletes a configured NID
 * nor changes the primary (--lock_prim, and every configured peer).
 */
START_TEST(configured_kept)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done r = {0};
	struct lne_nid p = N("10.0.1.2@tcp"), extra = N("10.0.9.9@tcp");
	struct lne_peer *peer;

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	ck_assert_int_eq(lne_peer_add(a->ln,
				      &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_peer_add_nid(a->ln, &p, &extra, NULL), 0);
	/* a configured peer is not discovered on a send */
	put(a, "10.0.1.2@tcp", &r);
	ck_assert_uint_eq(a->node.dst.waited, 0);
	simnet_pump(&s);
	r.n = 0;
	ck_assert_int_eq(lne_node_discover(&a->node, &p, false, on_disc, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.n, 1);
	peer = peer_is(a, "10.0.0.2@tcp", "10.0.1.2@tcp", 3);
	ck_assert(!peer->discovered);
	ck_assert(!peer->first_pni.discovered);
	ck_assert(lne_peer_ni_find(a->ln, &extra) && !lne_peer_ni_find(a->ln, &extra)->discovered);
	ck_assert(lne_peer_ni_find(a->ln, &(struct lne_nid){0}) == NULL);
	{
		struct lne_nid x = N("10.0.0.2@tcp");

		ck_assert(lne_peer_ni_find(a->ln, &x)->discovered);
	}
	(void)b;
	simnet_fini(&s);
}
END_TEST

/* Configuration wins over discovery: a discovered peer or NID configured becomes configured. */
START_TEST(configuring_takes_over)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};
	struct lne_nid b0 = N("10.0.0.2@tcp"), b1 = N("10.0.1.2@tcp");
	struct lne_peer *p;

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	put(a, "10.0.0.2@tcp", &d);
	simnet_pump(&s);
	ck_assert_uint_eq(b->recv_puts, 1);
	p = peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	ck_assert(p->discovered);
	/* its primary NID configured: the peer is configured, its other NID still discovered */
	ck_assert_int_eq(lne_peer_add(a->ln,
				      &(struct lne_peer_conf){.primary = b0, .multi_rail = true},
				      NULL),
			 0);
	p = peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	ck_assert(!p->discovered && !p->first_pni.discovered);
	ck_assert(p->disc & LNE_DISC_DONE);
	ck_assert(lne_peer_ni_find(a->ln, &b1)->discovered);
	ck_assert_int_eq(lne_peer_add_nid(a->ln, &b0, &b1, NULL), 0);
	ck_assert(!lne_peer_ni_find(a->ln, &b1)->discovered);
	ck_assert_int_eq(lne_peer_add_nid(a->ln, &b0, &b1, NULL), -EEXIST);
	ck_assert_int_eq(lne_peer_del(a->ln, &b0, NULL), 0);

	/* a discovered NID configured as another peer's primary is taken from its peer */
	put(a, "10.0.0.2@tcp", &d);
	simnet_pump(&s);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	ck_assert_int_eq(lne_peer_add(a->ln,
				      &(struct lne_peer_conf){.primary = b1, .multi_rail = true},
				      NULL),
			 0);
	ck_assert(!peer_is(a, "10.0.1.2@tcp", "10.0.1.2@tcp", 1)->discovered);
	peer_is(a, "10.0.0.2@tcp", "10.0.0.2@tcp", 1);
	/* and a discovered peer's primary NID added to a configured peer takes the peer */
	ck_assert_int_eq(lne_peer_add_nid(a->ln, &b1, &b0, NULL), 0);
	peer_is(a, "10.0.0.2@tcp", "10.0.1.2@tcp", 2);
	ck_assert_uint_eq(npeers(a), 1);
	simnet_fini(&s);
}
END_TEST

/* A peer that is not Multi-Rail stays single-NID, and is not pushed to. */
START_TEST(non_mr_single_nid)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	b->node.multi_rail = false;
	put(a, "10.0.1.2@tcp", &d);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 1);
	ck_assert(!peer_is(a, "10.0.1.2@tcp", "10.0.1.2@tcp", 1)->mr);
	ck_assert_uint_eq(a->node.dst.pushes_sent, 0);
	ck_assert_uint_eq(npeers(b), 0);
	simnet_fini(&s);
}
END_TEST

/* discovery 0: no round; 2 (verify only): differences counted, configuration kept. */
START_TEST(modes)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0}, r = {0};
	struct lne_nid p = N("10.0.0.2@tcp");

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	ck_assert_int_eq(lne_global_set(a->ln, LNE_G_DISCOVERY, 0, NULL), 0);
	put(a, "10.0.0.2@tcp", &d);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 1);
	ck_assert_uint_eq(a->node.st.c.sent[LNW_GET], 0);
	ck_assert_uint_eq(npeers(a), 0);
	ck_assert_int_eq(lne_node_discover(&a->node, &p, false, on_disc, &r, NULL), -EOPNOTSUPP);

	ck_assert_int_eq(lne_global_set(a->ln, LNE_G_DISCOVERY, 2, NULL), 0);
	ck_assert_int_eq(lne_peer_add(a->ln,
				      &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_node_discover(&a->node, &p, false, on_disc, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.status, 0);
	peer_is(a, "10.0.0.2@tcp", "10.0.0.2@tcp", 1);
	ck_assert_uint_eq(a->node.dst.mismatch, 1);
	ck_assert_uint_eq(a->logs, 1);
	ck_assert_int_eq(lne_global_set(a->ln, LNE_G_DISCOVERY, 3, NULL), -ERANGE);
	(void)b;
	simnet_fini(&s);
}
END_TEST

/* A node that gains and then loses an NI pushes the news to its peers. */
START_TEST(hotplug_pushes)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};
	struct lne_nid n2 = N("10.0.2.1@tcp");

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	put(a, "10.0.0.2@tcp", &d);
	simnet_pump(&s);
	add_ni(a, "10.0.2.1@tcp");
	lne_node_nis_changed(&a->node);
	simnet_pump(&s);
	peer_is(b, "10.0.2.1@tcp", "10.0.0.1@tcp", 3);
	ck_assert_int_eq(lne_ni_del(a->ln, &n2, NULL), 0);
	lne_node_nis_changed(&a->node);
	simnet_pump(&s);
	peer_is(b, "10.0.0.1@tcp", "10.0.0.1@tcp", 2);
	ck_assert_ptr_null(lne_peer_ni_find(b->ln, &n2));
	simnet_fini(&s);
}
END_TEST

/* A push of @len bytes of @info from @from to A's 10.0.0.1. */
static void push_raw(struct simnet *s, struct simnode *from, const u8 *info, u32 len)
{
	struct lne_nid dst = N("10.0.0.1@tcp");
	u8 *p = malloc(len ? len : 1);

	memcpy(p, info, len);
	ck_assert_int_eq(lne_node_put(&from->node, &dst, NULL, LNW_PORTAL_RESERVED,
				      LNW_PING_MATCHBITS, 0, p, len, true, 1000, NULL, NULL, NULL),
			 0);
	simnet_pump(s);
}

static u32 info_of(const u64 *nids, u32 n, u32 features, u32 seq, u8 *out)
{
	struct lnw_ping p = {.features = features, .pid = LNW_PID_LUSTRE, .n = n + 1};
	struct lnw_ping_ent e[8] = {{(u64)LNE_MKNET(LNE_LND_LO, 0) << 32, seq}};
	u32 i;

	for (i = 0; i < n; i++)
		e[i + 1] = (struct lnw_ping_ent){nids[i], LNW_NI_STATUS_UP};
	return (u32)lnw_ping_pack(&p, e, out, 512);
}

/* Malformed pushes and ping replies change nothing, are counted and logged once. */
START_TEST(malformed_changes_nothing)
{
	static const u64 b2 = 0x000200000a000002ull, b3 = 0x000200000a000102ull;
	static const u64 mine = 0x000200000a000001ull;
	const u32 feat = LNW_PING_FEAT_BASE | LNW_PING_FEAT_NI_STATUS | LNW_PING_FEAT_MULTI_RAIL |
			 LNW_PING_FEAT_DISCOVERY;
	struct simnet s;
	struct simnode *a, *b;
	u8 info[512];
	u32 len;
	u64 nids[3];
	struct done r = {0};
	struct lne_nid c1 = N("10.0.0.2@tcp"), c2 = N("10.0.1.2@tcp");

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	/* wrong magic, twice: counted twice, logged once */
	nids[0] = b2;
	nids[1] = b3;
	len = info_of(nids, 2, feat, 1, info);
	info[0] ^= 0xff;
	push_raw(&s, b, info, len);
	push_raw(&s, b, info, len);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_MAGIC], 2);
	ck_assert_uint_eq(a->logs, 1);
	/* a count beyond the message */
	len = info_of(nids, 2, feat, 1, info);
	push_raw(&s, b, info, len - LNW_PING_ENT_SIZE);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_COUNT], 1);
	/* a NID twice */
	nids[1] = b2;
	len = info_of(nids, 2, feat, 1, info);
	push_raw(&s, b, info, len);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_DUP], 1);
	/* a NID of ours */
	nids[1] = mine;
	len = info_of(nids, 2, feat, 1, info);
	push_raw(&s, b, info, len);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_OWNER], 1);
	/* a push that says it is not Multi-Rail */
	nids[1] = b3;
	len = info_of(nids, 2, feat & ~LNW_PING_FEAT_MULTI_RAIL, 1, info);
	push_raw(&s, b, info, len);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_NOT_MR], 1);
	ck_assert_uint_eq(a->logs, 5);
	ck_assert_uint_eq(npeers(a), 0);
	ck_assert_uint_eq(a->node.dst.pushes_recvd, 6);

	/* a ping reply naming NIDs of two configured peers: refused, both stay */
	ck_assert_int_eq(lne_peer_add(a->ln,
				      &(struct lne_peer_conf){.primary = c1, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_peer_add(a->ln,
				      &(struct lne_peer_conf){.primary = c2, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_node_discover(&a->node, &c1, false, on_disc, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.n, 1);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_OWNER], 2);
	ck_assert_uint_eq(a->logs, 5);
	peer_is(a, "10.0.0.2@tcp", "10.0.0.2@tcp", 1);
	peer_is(a, "10.0.1.2@tcp", "10.0.1.2@tcp", 1);

	/* a valid push still works afterwards, and an older one is ignored */
	ck_assert_int_eq(lne_peer_del(a->ln, &c1, NULL), 0);
	ck_assert_int_eq(lne_peer_del(a->ln, &c2, NULL), 0);
	nids[1] = b3;
	len = info_of(nids, 2, feat, 5, info);
	push_raw(&s, b, info, len);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	nids[1] = 0x000200000a000202ull;
	len = info_of(nids, 2, feat, 4, info);
	push_raw(&s, b, info, len);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	ck_assert_uint_eq(a->node.dst.bad[LNE_DBAD_NO_STALE], 1);
	simnet_fini(&s);
}
END_TEST

/* While the shell says the instance may not change, messages go undiscovered, later rounds work. */
START_TEST(instance_busy)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0};

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	a->busy = true;
	put(a, "10.0.0.2@tcp", &d);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.status, 0);
	ck_assert_uint_eq(npeers(a), 0);
	ck_assert_uint_eq(a->node.dst.started, 0);
	/* a round whose merge finds the instance busy ends without changing it */
	a->busy = false;
	put(a, "10.0.1.2@tcp", &d);
	a->busy = true;
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 2);
	ck_assert_uint_eq(a->node.dst.failed, 1);
	peer_is(a, "10.0.1.2@tcp", "10.0.1.2@tcp", 1);
	a->busy = false;
	put(a, "10.0.1.2@tcp", &d);
	simnet_pump(&s);
	ck_assert_int_eq(d.n, 3);
	ck_assert_int_eq(d.status, 0);
	peer_is(a, "10.0.1.2@tcp", "10.0.0.2@tcp", 2);
	ck_assert_uint_eq(b->recv_puts, 3);
	simnet_fini(&s);
}
END_TEST

START_TEST(shutdown_mid_round)
{
	struct simnet s;
	struct simnode *a, *b;
	struct done d = {0}, r = {0};
	struct lne_nid bn = N("10.0.0.2@tcp");

	simnet_pair(&s, 4096, A_NIDS, B_NIDS, true, &a, &b);
	b->mute = true;
	ck_assert_int_eq(lne_node_put(&a->node, &bn, NULL, 4, 1, 0, NULL, 0, true, 1000, on_done,
				      &d, NULL),
			 0);
	ck_assert_int_eq(lne_node_discover(&a->node, &bn, false, on_disc, &r, NULL), 0);
	simnet_pump(&s);
	/* the message's own time runs out while it waits: it ends, the round goes on */
	simnet_advance(&s, 1001);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.status, -ETIMEDOUT);
	ck_assert_int_eq(r.n, 0);
	simnet_fini(&s);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.status, -ESHUTDOWN);
}
END_TEST

Suite *make_disc_suite(void)
{
	Suite *s = suite_create("disc");
	TCase *tc = tcase_create("disc");

	tcase_add_test(tc, handshake_both_ways);
	tcase_add_test(tc, ds1_two_round_trips);
	tcase_add_test(tc, ds2_thousand_peers);
	tcase_add_test(tc, both_sides_at_once);
	tcase_add_test(tc, push_crosses_ping);
	tcase_add_test(tc, peer_restarts);
	tcase_add_test(tc, merge_two_rounds);
	tcase_add_test(tc, configured_kept);
	tcase_add_test(tc, configuring_takes_over);
	tcase_add_test(tc, non_mr_single_nid);
	tcase_add_test(tc, modes);
	tcase_add_test(tc, hotplug_pushes);
	tcase_add_test(tc, malformed_changes_nothing);
	tcase_add_test(tc, instance_busy);
	tcase_add_test(tc, shutdown_mid_round);
	suite_add_tcase(s, tc);
	return s;
}
