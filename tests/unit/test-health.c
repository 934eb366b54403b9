// SPDX-License-Identifier: GPL-2.0
/*
 * test-health.c - health, resend and recovery (engine/node-health.c) on
 * simulated links with a virtual clock: a rail that fails loses no
 * message, its health drops, retry_count and transaction_timeout bound the
 * resends, and recovery pings bring the rail back (seed 001's "Resending
 * Messages" and "Peer NI Health"; sanity-lnet.sh 204-238 in spirit).
 */
#include "engine/node.h"
#include "simnet.h"
#include "unit.h"

#define N simnet_nid

struct tally {
	int done, ok, failed, last;
};

static void on_done(struct lne_msg *m, int status)
{
	struct tally *t = m->arg;

	t->done++;
	if (status)
		t->failed++;
	else
		t->ok++;
	t->last = status;
}

static const char *const A4[] = {"10.0.0.1@tcp", "10.0.1.1@tcp", "10.0.2.1@tcp", "10.0.3.1@tcp",
				 NULL};
static const char *const B4[] = {"10.0.0.2@tcp", "10.0.1.2@tcp", "10.0.2.2@tcp", "10.0.3.2@tcp",
				 NULL};

struct pair {
	struct simnet s;
	struct simnode *a, *b;
	struct tally t;
};

static void pair_init(struct pair *p, const char *const *an, const char *const *bn)
{
	memset(&p->t, 0, sizeof(p->t));
	simnet_init(&p->s, 4096);
	p->a = simnet_node(&p->s, an);
	p->b = simnet_node(&p->s, bn);
	simnet_peer(p->a, bn);
}

static void put(struct pair *p, int count, bool ack)
{
	struct lne_nid dst = N("10.0.0.2@tcp");
	int i;

	for (i = 0; i < count; i++)
		ck_assert_int_eq(lne_node_put(&p->a->node, &dst, NULL, 4, 1, 0, NULL, 64, ack,
					      100000, on_done, &p->t, NULL),
				 0);
}

static void set_global(struct pair *p, enum lne_global g, u32 v)
{
	struct lne_err err;

	ck_assert_msg(!lne_global_set(p->a->ln, g, v, &err), "%s", err.msg);
}

static u64 sent_puts(struct pair *p, const char *nid)
{
	struct lne_nid k = N(nid);
	const struct lne_counts *c = lne_node_counts(&p->a->node, &k);

	return c ? c->sent[LNW_PUT] : 0;
}

static s32 ni_health(struct pair *p, const char *nid)
{
	struct lne_nid k = N(nid);

	return lne_ni_find(p->a->ln, &k)->health;
}

static s32 pni_health(struct pair *p, const char *nid)
{
	struct lne_nid k = N(nid);

	return lne_peer_ni_find(p->a->ln, &k)->health;
}

START_TEST(lnd_timeout_as_upstream)
{
	struct lne_inst *ln = lne_inst_new();

	/* (transaction_timeout - 1) / (retry_count + 1), at least 1: 49 s by default */
	ck_assert_uint_eq(lne_node_lnd_timeout(ln), 49);
	ck_assert_int_eq(lne_global_set(ln, LNE_G_RETRY_COUNT, 0, NULL), 0);
	ck_assert_uint_eq(lne_node_lnd_timeout(ln), 149);
	ck_assert_int_eq(lne_global_set(ln, LNE_G_TRANSACTION_TIMEOUT, 1, NULL), 0);
	ck_assert_uint_eq(lne_node_lnd_timeout(ln), 1);
	lne_inst_free(ln);
	ck_assert_str_eq(lne_hstatus_name(LNE_HS_NETWORK_TIMEOUT), "network_timeout");
	ck_assert_str_eq(lne_hstatus_name(LNE_HS__COUNT), "unknown");
}
END_TEST

/* H1 in virtual time: a local rail's link goes down with messages on it. */
START_TEST(link_down_resends_on_other_rails)
{
	struct pair p;
	const struct lne_health *h;
	struct lne_nid r0 = N("10.0.0.1@tcp");

	pair_init(&p, A4, B4);
	put(&p, 40, true); /* round robin: 10 wait on each rail for its hello */
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, false, NULL), 0);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.done, 40);
	ck_assert_int_eq(p.t.ok, 40);
	ck_assert_uint_eq(p.b->recv_puts, 40);
	ck_assert_uint_gt(p.a->node.st.resend_count, 0);
	ck_assert_uint_eq(sent_puts(&p, "10.0.0.1@tcp"), 0);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), 0);
	h = lne_node_health(&p.a->node, &r0);
	ck_assert_ptr_nonnull(h);
	/* each message that waited on the rail was dropped there once, and resent */
	ck_assert_uint_eq(h->hs[LNE_HS_LOCAL_DROPPED], p.a->node.st.resend_count);
	ck_assert(h->queued);
	/* the peer is not blamed for our link */
	ck_assert_int_eq(pni_health(&p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);

	/* new messages avoid the rail, however long it stays down */
	put(&p, 30, false);
	simnet_pump(&p.s);
	simnet_advance(&p.s, 60000);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 70);
	ck_assert_uint_eq(sent_puts(&p, "10.0.0.1@tcp"), 0);

	ck_assert_str_eq(p.a->states, "10.0.0.1@tcp down;");
	/* up again: pinged at once, back to full health, and chosen again */
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, true, NULL), 0);
	simnet_pump(&p.s);
	simnet_advance(&p.s, 1);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);
	simnet_advance(&p.s, 1);
	ck_assert(!h->queued);
	ck_assert_str_eq(p.a->states, "10.0.0.1@tcp down;10.0.0.1@tcp healthy;");
	put(&p, 40, false);
	simnet_pump(&p.s);
	ck_assert_uint_ge(sent_puts(&p, "10.0.0.1@tcp"), 5);
	ck_assert_int_eq(p.t.failed, 0);
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, true, NULL), 0);
	r0 = N("10.9.9.9@tcp");
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, false, NULL), -ENOENT);
	simnet_fini(&p.s);
}
END_TEST

/*
 * An NI whose link is down waits for its up event to be pinged: meanwhile
 * it asks for no tick (its recovery time, once past, asked for one at
 * once, again and again: the shells' loops spun while a link was down).
 */
START_TEST(link_down_asks_for_no_tick)
{
	struct pair p;
	struct lne_nid r0 = N("10.0.0.1@tcp");

	pair_init(&p, A4, B4);
	ck_assert_uint_eq(lne_node_next_deadline(&p.a->node), ~0ull);
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, false, NULL), 0);
	simnet_pump(&p.s);
	ck_assert(lne_node_health(&p.a->node, &r0)->queued);
	simnet_advance(&p.s, 5000); /* past recovery_interval */
	ck_assert_uint_eq(lne_node_next_deadline(&p.a->node), ~0ull);
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, true, NULL), 0);
	simnet_pump(&p.s);
	simnet_advance(&p.s, 1);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);
	simnet_fini(&p.s);
}
END_TEST

/*
 * lnetk replaces its instance with a copy on every change, the credits as
 * they stand carried over, those of messages in flight included: they
 * come back to the copy when the messages are written.  They came back to
 * nobody (the instance they were taken from was gone), so every change
 * made under traffic left an NI and a peer NI short for good: selection
 * passed over the NI with fewer credits, and a peer NI at 0 held every
 * message to it, recovery pings too (issue 35: rail 0 unused, b0 never
 * recovered, after a link's fall that lnetd told the module of).
 */
START_TEST(credits_in_flight_come_back_to_a_new_instance)
{
	struct pair p;
	struct lne_inst *copy, *old;
	struct lne_nid r0 = N("10.0.0.1@tcp"), b0 = N("10.0.0.2@tcp");
	s32 full;

	pair_init(&p, A4, B4);
	full = lne_ni_find(p.a->ln, &r0)->credits;
	put(&p, 40, true); /* they wait for the hellos, holding credits */
	ck_assert_int_lt(lne_ni_find(p.a->ln, &r0)->credits, full);
	copy = lne_inst_copy(p.a->ln);
	ck_assert_ptr_nonnull(copy);
	old = p.a->ln;
	p.a->ln = copy;
	lne_node_set_inst(&p.a->node, copy);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 40);
	ck_assert_int_eq(lne_ni_find(copy, &r0)->credits, full);
	ck_assert_int_eq(lne_peer_ni_find(copy, &b0)->credits, 8);
	lne_inst_free(old);
	simnet_fini(&p.s);
}
END_TEST

/*
 * The peer resets a rail's connections with writes on them unanswered:
 * the answers would have come back on those connections, so the writes go
 * again over the other rails at once, not after their timeout (issue 35:
 * a write lost to a reset that came before the link event).
 */
START_TEST(peer_reset_resends_what_was_unanswered)
{
	struct pair p;
	u64 to_b0;

	pair_init(&p, A4, B4);
	put(&p, 40, true); /* the connections are made */
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 40);
	p.b->mute = true; /* what is written now is lost on the wire */
	to_b0 = sent_puts(&p, "10.0.0.2@tcp");
	put(&p, 40, true);
	simnet_pump(&p.s);
	to_b0 = sent_puts(&p, "10.0.0.2@tcp") - to_b0;
	ck_assert_uint_gt(to_b0, 0);
	ck_assert_int_eq(p.t.done, 40);
	p.b->mute = false;
	simnet_cut(&p.s, "10.0.0.2@tcp", true);
	simnet_pump(&p.s);
	/* b0's share came through over the others; the rest still wait (no timeout yet) */
	ck_assert_int_eq(p.t.ok, 40 + (int)to_b0);
	ck_assert_int_eq(p.t.failed, 0);
	ck_assert_uint_eq(p.a->node.st.resend_count, to_b0);
	simnet_fini(&p.s);
}
END_TEST

/*
 * A rail's link goes down under traffic and comes back: once recovery has
 * its NI at 1000 again, new messages spread over it again.  The engine's
 * part of health.sh's "rail 0 carries traffic again" (issue 35), which
 * held here: what failed there was the userspace shell's connect (a
 * reserved port's address pair still held), which health.sh asserts.
 */
START_TEST(rail_back_from_link_down_carries_traffic)
{
	struct pair p;
	struct lne_nid r0 = N("10.0.0.1@tcp");
	u64 before;
	int round;

	pair_init(&p, A4, B4);
	put(&p, 40, true);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 40);
	put(&p, 40, true); /* in flight when the link goes */
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, false, NULL), 0);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 80);
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, true, NULL), 0);
	for (round = 0; round < 10 && ni_health(&p, "10.0.0.1@tcp") < LNE_HEALTH_MAX; round++) {
		simnet_pump(&p.s);
		simnet_advance(&p.s, 1000);
	}
	simnet_pump(&p.s);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);
	before = sent_puts(&p, "10.0.0.1@tcp");
	put(&p, 40, true);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 120);
	ck_assert_uint_ge(sent_puts(&p, "10.0.0.1@tcp") - before, 5);
	simnet_fini(&p.s);
}
END_TEST

/* The module's way: the instance's link state set from outside, the node follows. */
START_TEST(links_sync_follows_the_instance)
{
	struct pair p;
	struct lne_nid r1 = N("10.0.1.1@tcp");

	pair_init(&p, A4, B4);
	put(&p, 40, true); /* each rail waits for its hello */
	ck_assert_int_eq(lne_ni_set_up(p.a->ln, &r1, false, NULL), 0);
	lne_node_links_sync(&p.a->node);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 40);
	ck_assert_uint_eq(sent_puts(&p, "10.0.1.1@tcp"), 0);
	ck_assert_int_eq(ni_health(&p, "10.0.1.1@tcp"), 0);
	ck_assert_str_eq(p.a->states, "10.0.1.1@tcp down;");
	lne_node_links_sync(&p.a->node); /* nothing new: nothing done */
	ck_assert_str_eq(p.a->states, "10.0.1.1@tcp down;");
	ck_assert_int_eq(lne_ni_set_up(p.a->ln, &r1, true, NULL), 0);
	lne_node_links_sync(&p.a->node);
	simnet_pump(&p.s);
	ck_assert_int_eq(ni_health(&p, "10.0.1.1@tcp"), LNE_HEALTH_MAX);
	simnet_fini(&p.s);
}
END_TEST

/* What was written to the rail and not yet answered when its link went down is sent again. */
START_TEST(link_down_resends_what_was_unanswered)
{
	struct pair p;
	struct lne_nid r0 = N("10.0.0.1@tcp");
	u64 on_r0;

	pair_init(&p, A4, B4);
	put(&p, 40, true); /* the connections are made */
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 40);
	p.b->mute = true; /* what is written now is lost on the wire */
	on_r0 = sent_puts(&p, "10.0.0.1@tcp");
	put(&p, 40, true);
	simnet_pump(&p.s);
	on_r0 = sent_puts(&p, "10.0.0.1@tcp") - on_r0;
	ck_assert_uint_gt(on_r0, 0);
	ck_assert_int_eq(p.t.done, 40);
	p.b->mute = false;
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, false, NULL), 0);
	simnet_pump(&p.s);
	/* rail 0's share came through over the others; the rest still wait */
	ck_assert_int_eq(p.t.ok, 40 + (int)on_r0);
	ck_assert_uint_eq(p.a->node.st.resend_count, on_r0);
	ck_assert_int_eq(p.t.failed, 0);
	simnet_fini(&p.s);
}
END_TEST

/* The wire to a peer NI breaks with no link event: reset, then refused. */
START_TEST(peer_rail_cut_resends_and_lowers_its_health)
{
	struct pair p;
	struct lne_nid b0 = N("10.0.0.2@tcp");

	pair_init(&p, A4, B4);
	put(&p, 40, true);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 40);
	put(&p, 40, true);
	simnet_cut(&p.s, "10.0.0.2@tcp", true);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 80);
	ck_assert_uint_eq(p.b->recv_puts, 80);
	ck_assert_uint_gt(p.a->node.st.resend_count, 0);
	ck_assert_int_lt(pni_health(&p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);
	ck_assert_uint_gt(lne_node_health(&p.a->node, &b0)->hs[LNE_HS_REMOTE_DROPPED], 0);
	/* our NIs did nothing wrong: sending well kept them whole */
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);
	ck_assert_uint_eq(p.a->node.st.failed_resends, 0);
	simnet_fini(&p.s);
}
END_TEST

/* Every path fails: 1 + retry_count tries, then the message is over. */
START_TEST(retry_count_bounds_resends)
{
	static const u32 counts[] = {0, 2, 5};
	unsigned int i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct pair p;
		int k;

		pair_init(&p, A4, B4);
		set_global(&p, LNE_G_RETRY_COUNT, counts[i]);
		for (k = 0; B4[k]; k++)
			simnet_cut(&p.s, B4[k], true);
		put(&p, 10, false);
		simnet_pump(&p.s);
		ck_assert_int_eq(p.t.failed, 10);
		ck_assert_int_eq(p.t.last, -ECONNREFUSED);
		ck_assert_uint_eq(p.a->node.st.resend_count, 10 * counts[i]);
		ck_assert_uint_eq(p.a->node.st.failed_resends, counts[i] ? 10 : 0);
		ck_assert_uint_eq(p.a->node.st.hs[LNE_HS_REMOTE_DROPPED], 10 * (counts[i] + 1));
		ck_assert_uint_eq(p.b->recv_puts, 0);
		simnet_fini(&p.s);
	}
}
END_TEST

/*
 * A peer that takes connections and never answers: each try waits out the
 * lnd timeout, and no try starts after transaction_timeout.
 */
START_TEST(transaction_timeout_bounds_resends)
{
	struct pair p;
	int k, s;

	pair_init(&p, A4, B4);
	p.b->mute = true;
	set_global(&p, LNE_G_TRANSACTION_TIMEOUT, 10);
	set_global(&p, LNE_G_RETRY_COUNT, 5); /* lnd_timeout 9 / 6 = 1 s */
	for (k = 0; A4[k]; k++) {
		struct lne_nid nid = N(A4[k]);
		struct lne_tunables tun = lne_ni_find(p.a->ln, &nid)->tun;

		tun.timeout = 4; /* each try takes 4 s: the third ends past the deadline */
		lne_ni_find(p.a->ln, &nid)->tun = tun;
	}
	put(&p, 1, false);
	for (s = 0; s < 20 && !p.t.done; s++) {
		simnet_pump(&p.s);
		simnet_advance(&p.s, 1000);
	}
	ck_assert_int_eq(p.t.failed, 1);
	ck_assert_int_eq(p.t.last, -EHOSTUNREACH);
	ck_assert_int_eq(s, 12); /* failed at 12 s: tries at 0, 4 and 8 */
	ck_assert_uint_eq(p.a->node.st.resend_count, 2);
	ck_assert_uint_eq(p.a->node.st.failed_resends, 0);
	simnet_fini(&p.s);
}
END_TEST

/* Sensitivity down on failure, up on success, within 0..1000; 0 changes nothing. */
START_TEST(health_arithmetic)
{
	static const char *const a1[] = {"10.0.0.1@tcp", NULL};
	static const char *const b2[] = {"10.0.0.2@tcp", "10.0.1.2@tcp", NULL};
	static const s32 sums[] = {1700, 1400, 1100, 800, 500, 200, 100, 0, 0};
	struct lne_nid a0 = N("10.0.0.1@tcp"), b0 = N("10.0.0.2@tcp"), b1 = N("10.0.1.2@tcp");
	struct pair p;
	unsigned int k;

	pair_init(&p, a1, b2);
	set_global(&p, LNE_G_RETRY_COUNT, 0);
	set_global(&p, LNE_G_HEALTH_SENSITIVITY, 300);
	simnet_cut(&p.s, "10.0.0.2@tcp", true);
	simnet_cut(&p.s, "10.0.1.2@tcp", true);
	/* each failure costs the peer NI chosen (the healthiest) 300, down to 0 */
	for (k = 0; k < sizeof(sums) / sizeof(sums[0]); k++) {
		put(&p, 1, false);
		ck_assert_int_eq(pni_health(&p, "10.0.0.2@tcp") + pni_health(&p, "10.0.1.2@tcp"),
				 sums[k]);
	}
	ck_assert_int_eq(p.t.failed, 9);
	/* the peer was blamed, not our NI */
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);

	/* sending well raises the local NI's health, hearing from a peer NI its own */
	simnet_cut(&p.s, "10.0.0.2@tcp", false);
	simnet_cut(&p.s, "10.0.1.2@tcp", false);
	ck_assert_int_eq(lne_ni_set_health(p.a->ln, &a0, 500, NULL), 0);
	ck_assert_int_eq(lne_node_ping(&p.a->node, &b0, NULL, 1000, on_done, &p.t, NULL), 0);
	simnet_pump(&p.s);
	ck_assert_int_eq(p.t.ok, 1);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), 800);
	ck_assert_int_eq(pni_health(&p, "10.0.0.2@tcp") + pni_health(&p, "10.0.1.2@tcp"), 300);
	put(&p, 1, false);
	simnet_pump(&p.s);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);

	/* sensitivity 0: failures cost nothing and nothing needs recovery */
	set_global(&p, LNE_G_HEALTH_SENSITIVITY, 0);
	simnet_cut(&p.s, "10.0.0.2@tcp", true);
	ck_assert_int_eq(lne_peer_ni_set_health(p.a->ln, &b0, LNE_HEALTH_MAX, NULL), 0);
	ck_assert_int_eq(lne_peer_ni_set_health(p.a->ln, &b1, 0, NULL), 0);
	put(&p, 3, false);
	ck_assert_int_eq(pni_health(&p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);
	ck_assert_int_eq(p.t.failed, 12);
	simnet_fini(&p.s);
}
END_TEST

/* Cut B's first rail until its peer NI has lost health; the recovery queue holds it. */
static const struct lne_health *break_b0(struct pair *p)
{
	struct lne_nid b0 = N("10.0.0.2@tcp");
	const struct lne_health *h;

	put(p, 40, true);
	simnet_pump(&p->s);
	simnet_cut(&p->s, "10.0.0.2@tcp", true);
	put(p, 40, true);
	simnet_pump(&p->s);
	ck_assert_int_eq(p->t.ok, 80);
	ck_assert_int_lt(pni_health(p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);
	h = lne_node_health(&p->a->node, &b0);
	ck_assert_ptr_nonnull(h);
	ck_assert(h->queued);
	return h;
}

/* H3 in virtual time: the rail mends, health is 1000 and traffic spreads within 2 intervals. */
START_TEST(recovery_brings_the_rail_back)
{
	struct pair p;
	const struct lne_health *h;
	u64 before;

	pair_init(&p, A4, B4);
	set_global(&p, LNE_G_RECOVERY_INTERVAL, 3);
	h = break_b0(&p);
	/* while broken, new messages avoid it */
	before = p.b->recv_puts;
	put(&p, 40, true);
	simnet_pump(&p.s);
	ck_assert_uint_eq(p.b->recv_puts, before + 40);
	ck_assert_uint_eq(p.a->node.st.resend_count, p.a->node.st.hs[LNE_HS_REMOTE_DROPPED]);

	simnet_cut(&p.s, "10.0.0.2@tcp", false);
	simnet_advance(&p.s, 2 * 3000);
	simnet_pump(&p.s);
	ck_assert_int_eq(pni_health(&p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);
	ck_assert_uint_ge(p.a->node.st.recovery_pings, 1);
	simnet_advance(&p.s, 1);
	ck_assert(!h->queued);
	ck_assert_str_eq(p.a->states, "10.0.0.2@tcp recovering;10.0.0.2@tcp healthy;");
	{
		struct lne_nid b0 = N("10.0.0.2@tcp");
		const struct lne_counts *c = lne_node_counts(&p.a->node, &b0);
		u64 puts = c->sent[LNW_PUT];

		put(&p, 40, true);
		simnet_pump(&p.s);
		ck_assert_uint_ge(c->sent[LNW_PUT] - puts, 5);
	}
	ck_assert_int_eq(p.t.failed, 0);
	simnet_fini(&p.s);
}
END_TEST

/* Pings every recovery_interval, doubling on failure up to max_recovery_ping_interval. */
START_TEST(recovery_pings_back_off)
{
	static const int want[] = {1, 3, 7, 11, 15};
	struct pair p;
	int t, got = 0;
	u64 pings;

	pair_init(&p, A4, B4);
	set_global(&p, LNE_G_MAX_RECOVERY_PING_INTERVAL, 4);
	break_b0(&p);
	pings = p.a->node.st.recovery_pings;
	for (t = 1; t <= 16; t++) {
		simnet_advance(&p.s, 1000);
		simnet_pump(&p.s);
		if (p.a->node.st.recovery_pings == pings)
			continue;
		ck_assert_int_lt(got, 5);
		ck_assert_int_eq(t, want[got]);
		got++;
		pings = p.a->node.st.recovery_pings;
	}
	ck_assert_int_eq(got, 5);
	simnet_fini(&p.s);
}
END_TEST

/* A local link coming up pings the peer NIs in recovery at once, their backoff forgotten. */
START_TEST(link_up_pings_peer_nis_at_once)
{
	struct pair p;
	struct lne_nid r0 = N("10.0.0.1@tcp");
	const struct lne_health *h;
	int t;

	pair_init(&p, A4, B4);
	h = break_b0(&p);
	for (t = 0; t < 100; t++) /* pings failed, the wait grew */
		simnet_advance(&p.s, 1000);
	ck_assert_uint_ge(h->ping_count, 5);
	simnet_cut(&p.s, "10.0.0.2@tcp", false);
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, false, NULL), 0);
	ck_assert_int_eq(lne_node_ni_link(&p.a->node, &r0, true, NULL), 0);
	simnet_pump(&p.s);
	ck_assert_int_eq(pni_health(&p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);
	ck_assert_int_eq(ni_health(&p, "10.0.0.1@tcp"), LNE_HEALTH_MAX);
	simnet_fini(&p.s);
}
END_TEST

/*
 * An NI of an LND the data path does not carry (o2ib): no recovery ping can
 * bring it back, so its link coming up does, at once (it stayed at 0).
 */
START_TEST(other_lnd_link_up_is_healthy_at_once)
{
	static const char *const nids[] = {"10.0.0.1@tcp", "10.9.0.1@o2ib", NULL};
	struct lne_nid ib = N("10.9.0.1@o2ib");
	struct simnet s;
	struct simnode *a;
	u64 pings;

	simnet_init(&s, 4096);
	a = simnet_node(&s, nids);
	ck_assert_int_eq(lne_node_ni_link(&a->node, &ib, false, NULL), 0);
	ck_assert_int_eq(lne_ni_find(a->ln, &ib)->health, 0);
	pings = a->node.st.recovery_pings;
	ck_assert_int_eq(lne_node_ni_link(&a->node, &ib, true, NULL), 0);
	ck_assert_int_eq(lne_ni_find(a->ln, &ib)->health, LNE_HEALTH_MAX);
	ck_assert_uint_eq(a->node.st.recovery_pings, pings);
	simnet_fini(&s);
}
END_TEST

/* A peer NI not heard of for recovery_limit seconds leaves the queue; 0 keeps it. */
START_TEST(recovery_limit_gives_up)
{
	struct pair p;
	const struct lne_health *h;
	u64 pings;

	pair_init(&p, A4, B4);
	set_global(&p, LNE_G_RECOVERY_LIMIT, 5);
	h = break_b0(&p);
	simnet_advance(&p.s, 4000);
	ck_assert(h->queued);
	simnet_advance(&p.s, 2000);
	ck_assert(!h->queued);
	ck_assert_str_eq(p.a->states, "10.0.0.2@tcp recovering;10.0.0.2@tcp unreachable;");
	pings = p.a->node.st.recovery_pings;
	simnet_advance(&p.s, 60000);
	ck_assert_uint_eq(p.a->node.st.recovery_pings, pings);
	simnet_fini(&p.s);

	pair_init(&p, A4, B4);
	h = break_b0(&p);
	simnet_advance(&p.s, 600000);
	ck_assert(h->queued);
	ck_assert_int_lt(pni_health(&p, "10.0.0.2@tcp"), LNE_HEALTH_MAX);
	simnet_fini(&p.s);
}
END_TEST

struct kv {
	char text[256];
};

static int kv_add(void *arg, const char *key, u64 value)
{
	struct kv *k = arg;
	size_t len = strlen(k->text);

	snprintf(k->text + len, sizeof(k->text) - len, "%s=%llu ", key, (unsigned long long)value);
	return 0;
}

static int nid_add(void *arg, const struct lne_nid *nid, const struct lne_health *h)
{
	struct kv *k = arg;
	size_t len = strlen(k->text);

	(void)h;
	lne_nid_format(nid, k->text + len, sizeof(k->text) - len);
	strcat(k->text, " ");
	return 0;
}

/* What `net show -v`, `peer show -v` and `debug recovery` print; a health set from outside. */
START_TEST(health_stats_and_recovery_lists)
{
	struct pair p;
	struct kv k = {""};
	struct lne_nid b0 = N("10.0.0.2@tcp"), a1 = N("10.0.1.1@tcp");
	const struct lne_health *h;
	char want[256];

	pair_init(&p, A4, B4);
	h = break_b0(&p);
	lne_node_health_each(&p.a->node, &b0, false, kv_add, &k);
	snprintf(want, sizeof(want),
		 "dropped=%llu timeout=0 error=0 network timeout=0 ping_count=0 next_ping=%llu ",
		 (unsigned long long)h->hs[LNE_HS_REMOTE_DROPPED],
		 (unsigned long long)(h->next_ping_ms / 1000));
	ck_assert_str_eq(k.text, want);
	k.text[0] = '\0';
	lne_node_health_each(&p.a->node, &a1, true, kv_add, &k);
	ck_assert_str_eq(k.text, "interrupts=0 dropped=0 aborted=0 no route=0 timeouts=0 error=0 "
				 "ping_count=0 next_ping=0 ");
	k.text[0] = '\0';
	lne_node_recovery_each(&p.a->node, false, nid_add, &k);
	ck_assert_str_eq(k.text, "10.0.0.2@tcp ");
	k.text[0] = '\0';
	lne_node_recovery_each(&p.a->node, true, nid_add, &k);
	ck_assert_str_eq(k.text, "");

	/* net set --health 500: recovery takes it back to 1000 */
	ck_assert_int_eq(lne_ni_set_health(p.a->ln, &a1, 500, NULL), 0);
	lne_node_health_rescan(&p.a->node);
	lne_node_recovery_each(&p.a->node, true, nid_add, &k);
	ck_assert_str_eq(k.text, "10.0.1.1@tcp ");
	simnet_advance(&p.s, 1000);
	simnet_pump(&p.s);
	ck_assert_int_eq(ni_health(&p, "10.0.1.1@tcp"), LNE_HEALTH_MAX);
	simnet_fini(&p.s);
}
END_TEST

Suite *make_health_suite(void)
{
	Suite *s = suite_create("health");
	TCase *tc = tcase_create("health");

	tcase_add_test(tc, lnd_timeout_as_upstream);
	tcase_add_test(tc, link_down_resends_on_other_rails);
	tcase_add_test(tc, link_down_resends_what_was_unanswered);
	tcase_add_test(tc, link_down_asks_for_no_tick);
	tcase_add_test(tc, credits_in_flight_come_back_to_a_new_instance);
	tcase_add_test(tc, peer_reset_resends_what_was_unanswered);
	tcase_add_test(tc, links_sync_follows_the_instance);
	tcase_add_test(tc, rail_back_from_link_down_carries_traffic);
	tcase_add_test(tc, peer_rail_cut_resends_and_lowers_its_health);
	tcase_add_test(tc, retry_count_bounds_resends);
	tcase_add_test(tc, transaction_timeout_bounds_resends);
	tcase_add_test(tc, health_arithmetic);
	tcase_add_test(tc, recovery_brings_the_rail_back);
	tcase_add_test(tc, recovery_pings_back_off);
	tcase_add_test(tc, recovery_limit_gives_up);
	tcase_add_test(tc, link_up_pings_peer_nis_at_once);
	tcase_add_test(tc, other_lnd_link_up_is_healthy_at_once);
	tcase_add_test(tc, health_stats_and_recovery_lists);
	suite_add_tcase(s, tc);
	return s;
}
