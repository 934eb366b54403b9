// SPDX-License-Identifier: GPL-2.0
/*
 * test-nidstats.c - strangers cannot grow the node's counters without
 * bound (engine/node-stats.c, LNE_STAT_STRANGERS): a hostile peer that
 * connects over and over, each time claiming a new IPv4 NID in its hello
 * and sending a message to be routed or dropped, leaves the node with a
 * bounded number of counter entries, while the counters of its local NIs,
 * of the peers it knows and of the links still open stay as they were,
 * and so do a stranger's that lend a router credit to a message in flight.
 */
#include "engine/node.h"
#include "simnet.h"
#include "unit.h"

static const char *const A4[] = {"10.0.0.1@tcp", NULL};
static const char *const B4[] = {"10.0.0.2@tcp", NULL};
static const char *const C4[] = {"10.0.0.3@tcp", NULL};
static const char *const D4[] = {"10.0.0.4@tcp", NULL};

#define NID_A	  0x000200000a000001ull /* 10.0.0.1@tcp */
#define STRANGER0 0x000200000a010000ull /* 10.1.0.0@tcp: the first hostile NID */
#define FAR_DST	  0x000200010a000063ull /* 10.0.0.99@tcp1: a net nobody routes to */

/*
 * One connection to @a: a good hello from @from, then a PUT for @dst
 * (for a net nobody routes to: a router forwards it and fails it, a node
 * that does not route drops it; either way counted on @from's counters);
 * then closed.
 */
static void conn_put(struct simnet *s, struct simnode *a, u64 from, u64 dst)
{
	u8 buf[LNW_CONNREQ_SIZE + LNW_HELLO_SIZE + LNW_FRAME_HDR];
	struct lnw_hello h = {.version = 3,
			      .src_nid = from,
			      .dst_nid = NID_A,
			      .src_pid = LNW_PID_LUSTRE,
			      .ctype = 1};
	struct lnw_hdr m = {.type = LNW_PUT,
			    .dst_nid = dst,
			    .src_nid = from,
			    .dst_pid = LNW_PID_LUSTRE,
			    .src_pid = LNW_PID_LUSTRE,
			    .portal = 4,
			    .wh_object = LNW_WH_NONE};
	struct lnw_ksm k = {.type = LNW_KSM_LNET};
	struct simlink *l;

	lnw_connreq_pack(NID_A, buf);
	lnw_hello_pack(&h, buf + LNW_CONNREQ_SIZE);
	lnw_ksm_pack(&k, buf + LNW_CONNREQ_SIZE + LNW_HELLO_SIZE);
	lnw_hdr_pack(&m, buf + LNW_CONNREQ_SIZE + LNW_HELLO_SIZE + LNW_KSM_SIZE);
	ck_assert_int_eq(simnet_inject(s, a, buf, sizeof(buf)), 0);
	/* the link simnet_inject made (the PUT may have made others since) */
	for (l = s->links; l->owner != a || l->l.peer != from || l->closed; l = l->next)
		;
	l->closed = true;
	lne_node_closed(&a->node, &l->l, -ECONNRESET);
}

/* The @i-th hostile connection: from a new NID, a PUT for nowhere. */
static void hostile_conn(struct simnet *s, struct simnode *a, u32 i)
{
	conn_put(s, a, STRANGER0 + i, FAR_DST);
}

static u32 stat_entries(const struct lne_node *n)
{
	const struct lne_stat *st;
	u32 b, count = 0;

	for (b = 0; b < LNE_STAT_HASH; b++)
		for (st = n->stats[b]; st; st = st->hnext)
			count++;
	return count;
}

/* A's own NI, B and D (connected), C (a configured peer): a few entries. */
#define KNOWN_MAX 8
#define HOSTILE	  (3 * LNE_STAT_STRANGERS + 100)

static void strangers_bounded(bool routing)
{
	struct lne_nid an = simnet_nid(A4[0]), bn = simnet_nid(B4[0]), cn = simnet_nid(C4[0]);
	struct lne_nid dn = simnet_nid(D4[0]);
	struct lne_counts own, ofb, ofc;
	struct simnode *a, *b, *d;
	struct lne_err err;
	struct simnet s;
	u32 i;

	simnet_pair(&s, 4096, A4, B4, false, &a, &b);
	simnet_node(&s, C4);
	d = simnet_node(&s, D4);
	ck_assert_msg(!lne_global_set(a->ln, LNE_G_ROUTING, routing, &err), "%s", err.msg);
	simnet_peer(a, C4);
	/* B talks to A and stays connected; A talks to C, then C's wire is cut */
	ck_assert_int_eq(simnet_ping(&s, b, A4[0]), 0);
	ck_assert_int_eq(simnet_ping(&s, a, C4[0]), 0);
	simnet_cut(&s, C4[0], true);
	/* D, a stranger to A, talks to it and goes */
	ck_assert_int_eq(simnet_ping(&s, d, A4[0]), 0);
	simnet_cut(&s, D4[0], true);
	simnet_pump(&s);
	ck_assert_ptr_nonnull(lne_node_counts(&a->node, &dn));
	own = *lne_node_counts(&a->node, &an);
	ofb = *lne_node_counts(&a->node, &bn);
	ofc = *lne_node_counts(&a->node, &cn);
	ck_assert_uint_eq(ofc.send_count, 1);
	ck_assert_uint_eq(ofc.recv_count, 1);

	for (i = 0; i < HOSTILE; i++) {
		hostile_conn(&s, a, i);
		ck_assert_msg(stat_entries(&a->node) <= LNE_STAT_STRANGERS + KNOWN_MAX,
			      "%u counter entries after %u strangers", stat_entries(&a->node),
			      i + 1);
	}
	/* every hostile message was taken and counted as dropped */
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 0);
	ck_assert_uint_eq(a->node.st.c.drop_count, HOSTILE);
	ck_assert_uint_eq(a->node.st.route_count, routing ? HOSTILE : 0);
	/* what A knows kept its counters: its NI (less the strangers'), B's, C's */
	ck_assert_uint_eq(lne_node_counts(&a->node, &an)->send_count, own.send_count);
	ck_assert_uint_eq(lne_node_counts(&a->node, &an)->recv_count,
			  own.recv_count + (routing ? HOSTILE : 0));
	ck_assert_mem_eq(lne_node_counts(&a->node, &bn), &ofb, sizeof(ofb));
	ck_assert_mem_eq(lne_node_counts(&a->node, &cn), &ofc, sizeof(ofc));
	/* D's went, as did the strangers' */
	ck_assert_ptr_null(lne_node_counts(&a->node, &dn));
	/* and everyone still talks */
	simnet_cut(&s, C4[0], false);
	ck_assert_int_eq(simnet_ping(&s, b, A4[0]), 0);
	ck_assert_int_eq(simnet_ping(&s, a, C4[0]), 0);
	ck_assert_uint_eq(lne_node_counts(&a->node, &cn)->send_count, 2);
	simnet_cut(&s, D4[0], false);
	ck_assert_int_eq(simnet_ping(&s, d, A4[0]), 0);
	ck_assert_uint_eq(lne_node_counts(&a->node, &dn)->recv_count, 1);
	simnet_fini(&s);
}

/*
 * The counter table spreads its entries over all LNE_STAT_HASH buckets:
 * its hash was once reduced to the link table's LNE_LINK_HASH first, so
 * three quarters of the buckets stayed empty and chains were 4x as long.
 */
START_TEST(counters_use_every_bucket)
{
	const struct lne_stat *st;
	struct simnode *a, *b;
	struct simnet s;
	u32 i, used = 0, high = 0;

	simnet_pair(&s, 4096, A4, B4, false, &a, &b);
	for (i = 0; i < 2000; i++) /* under LNE_STAT_STRANGERS: no sweep */
		hostile_conn(&s, a, i);
	for (i = 0; i < LNE_STAT_HASH; i++) {
		st = a->node.stats[i];
		used += !!st;
		high += st && i >= LNE_LINK_HASH;
	}
	/* 2,000 entries in 1,024 buckets leave about 885 in use */
	ck_assert_msg(used > LNE_STAT_HASH / 2, "%u of %u buckets in use", used, LNE_STAT_HASH);
	ck_assert_msg(high > 0, "no entry past bucket %u", LNE_LINK_HASH);
	simnet_fini(&s);
}
END_TEST

/*
 * The counter table's hash is keyed per node (issue 35): before, it was
 * the same everywhere, and NIDs a peer picked to share one bucket made one
 * chain of every stranger's entry.  1,000 such NIDs (bucket 0 of the old
 * unkeyed hash, kept here to pick them) spread over the buckets of each of
 * two nodes, and the two nodes put them in different buckets.
 */
static u32 old_bucket(u64 nid)
{
	u64 k = nid * 0x9e3779b97f4a7c15ull;

	return (u32)(k ^ k >> 29) % LNE_STAT_HASH;
}

/* The bucket node @n keeps the (peer NI) counters of @nid in, or -1. */
static int bucket_of(const struct lne_node *n, u64 nid)
{
	const struct lne_stat *st;
	int b;

	for (b = 0; b < LNE_STAT_HASH; b++)
		for (st = n->stats[b]; st; st = st->hnext)
			if (st->nid == nid && !st->local)
				return b;
	return -1;
}

#define AIMED 1000

START_TEST(counters_hash_is_keyed)
{
	struct simnode *a[2], *b[2];
	struct simnet s[2];
	static u64 nid[AIMED];
	u32 i, k, n = 0, same = 0, longest[2] = {0, 0}, used[2] = {0, 0};
	u64 cand;

	for (cand = STRANGER0; n < AIMED; cand++)
		if (old_bucket(cand) == 0)
			nid[n++] = cand;
	for (k = 0; k < 2; k++) {
		simnet_pair(&s[k], 4096, A4, B4, false, &a[k], &b[k]);
		for (i = 0; i < AIMED; i++) /* under LNE_STAT_STRANGERS: no sweep */
			conn_put(&s[k], a[k], nid[i], FAR_DST);
		for (i = 0; i < LNE_STAT_HASH; i++) {
			const struct lne_stat *st;
			u32 len = 0;

			for (st = a[k]->node.stats[i]; st; st = st->hnext)
				len++;
			used[k] += !!len;
			longest[k] = len > longest[k] ? len : longest[k];
		}
	}
	for (i = 0; i < AIMED; i++) {
		int b0 = bucket_of(&a[0]->node, nid[i]), b1 = bucket_of(&a[1]->node, nid[i]);

		ck_assert_msg(b0 >= 0 && b1 >= 0, "no counters for the %u-th NID", i);
		same += b0 == b1;
	}
	/*
	 * 1,000 entries in 1,024 buckets at random: about 630 in use, the
	 * longest chain about 6 (16 or more: a chance under 1e-10), and 1 NID
	 * in the same bucket in both (50 or more: far under 1e-10).
	 */
	for (k = 0; k < 2; k++) {
		ck_assert_msg(longest[k] < 16, "node %u: a chain of %u", k, longest[k]);
		ck_assert_msg(used[k] > 500, "node %u: %u buckets in use", k, used[k]);
	}
	ck_assert_msg(same < 50, "%u of %u NIDs in the same bucket on both nodes", same, AIMED);
	simnet_fini(&s[0]);
	simnet_fini(&s[1]);
}
END_TEST

START_TEST(strangers_cannot_grow_counters)
{
	strangers_bounded(false);
}
END_TEST

/* As a router: each stranger also lends the message a router credit. */
START_TEST(strangers_routed_cannot_grow_counters)
{
	strangers_bounded(true);
}
END_TEST

/*
 * A stranger's counters that lend a router credit to a message still in
 * flight stay through a sweep: freed, the credit would come back to an
 * entry made anew, and the stranger would have its full credits again
 * while its message still held one.
 */
START_TEST(credit_lent_keeps_counters)
{
	struct lne_nid sn;
	struct simnode *a, *b;
	struct lne_err err;
	struct simnet s;
	s32 avail, min, limit;
	u32 i;

	simnet_pair(&s, 4096, A4, B4, false, &a, &b);
	ck_assert_msg(!lne_global_set(a->ln, LNE_G_ROUTING, 1, &err), "%s", err.msg);
	lnw_nid_from4(STRANGER0 - 1, &sn);
	lne_node_rtr_credits(&a->node, &sn, &limit, &min);
	/* the stranger's PUT for B waits for B, which reads nothing yet */
	b->paused = true;
	conn_put(&s, a, STRANGER0 - 1, NID_A + 1);
	simnet_pump(&s);
	ck_assert(lne_node_rtr_credits(&a->node, &sn, &avail, &min));
	ck_assert_int_eq(avail, limit - 1);
	/* enough strangers for a sweep */
	for (i = 0; i < LNE_STAT_STRANGERS + 1; i++)
		hostile_conn(&s, a, i);
	ck_assert_uint_lt(a->node.nstats, 16);
	ck_assert(lne_node_rtr_credits(&a->node, &sn, &avail, &min));
	ck_assert_int_eq(avail, limit - 1);
	/* B reads: the PUT goes on and gives its credit back */
	b->paused = false;
	simnet_pump(&s);
	ck_assert(lne_node_rtr_credits(&a->node, &sn, &avail, &min));
	ck_assert_int_eq(avail, limit);
	ck_assert_int_eq(min, limit - 1);
	ck_assert_uint_eq(a->node.st.route_count, LNE_STAT_STRANGERS + 2);
	simnet_fini(&s);
}
END_TEST

TCase *make_nidstats_tcase(void)
{
	TCase *tc = tcase_create("nidstats");

	tcase_add_test(tc, counters_use_every_bucket);
	tcase_add_test(tc, counters_hash_is_keyed);
	tcase_add_test(tc, strangers_cannot_grow_counters);
	tcase_add_test(tc, strangers_routed_cannot_grow_counters);
	tcase_add_test(tc, credit_lent_keeps_counters);
	return tc;
}
