// SPDX-License-Identifier: GPL-2.0
/*
 * test-node6.c - large (IPv6) NIDs on the node (engine/nidkey.h): keys that
 * never meet an IPv4 NID's, pings and PUTs over socklnd version 4 (the
 * acceptor's request version 2, the 80-byte hello, the nid16 header), ping
 * info's large part read by discovery, IPv4 links that stay version 3 next
 * to them, and hostile large forms refused and counted.
 */
#include "engine/fault.h"
#include "engine/node.h"
#include "simnet.h"
#include "unit.h"

static const char *const A6[] = {"2001:db8::1@tcp", "2001:db8:1::1@tcp", NULL};
static const char *const B6[] = {"2001:db8::2@tcp", "2001:db8:1::2@tcp", NULL};

struct result {
	int done, status;
	u8 *reply;
	u32 len;
};

static void on_done(struct lne_msg *m, int status)
{
	struct result *r = m->arg;

	r->done++;
	r->status = status;
	if (!status && m->reply) {
		r->reply = m->reply;
		r->len = m->reply_len;
		m->reply = NULL;
	}
}

START_TEST(keys_never_meet_ipv4)
{
	struct lne_nidtab t;
	struct lne_nid a = simnet_nid("2001:db8::1@tcp1"), b = simnet_nid("2001:db8::2@tcp1");
	struct lne_nid v4 = simnet_nid("10.0.0.1@tcp1"), low = simnet_nid("0.0.0.1@tcp1");
	struct lne_nid x;
	u64 ka, kb, k;

	lne_nidkey_init(&t);
	ck_assert_int_eq(lne_nidkey_find(&t, &a, &k), -ENOENT);
	ck_assert_int_eq(lne_nidkey(&t, &a, &ka), 0);
	ck_assert_int_eq(lne_nidkey(&t, &b, &kb), 0);
	ck_assert_uint_ne(ka, kb);
	/* the net in the top half, an index in 0.0.0.0/8 below */
	ck_assert_uint_eq(ka >> 32, lne_nid_net(&a));
	ck_assert_uint_lt((u32)ka, 1u << 24);
	ck_assert(lne_nidkey_is_large(ka));
	ck_assert_int_eq(lne_nidkey(&t, &a, &k), 0);
	ck_assert_uint_eq(k, ka);
	ck_assert_int_eq(lne_nidkey_find(&t, &b, &k), 0);
	ck_assert_uint_eq(k, kb);
	lne_nidkey_nid(&t, kb, &x);
	ck_assert(lne_nid_equal(&x, &b));
	/* an IPv4 NID is its own nid4; one in 0.0.0.0/8 would collide and is refused */
	ck_assert_int_eq(lne_nidkey(&t, &v4, &k), 0);
	ck_assert_uint_eq(k, 0x000200010a000001ull);
	ck_assert(!lne_nidkey_is_large(k));
	ck_assert_int_eq(lne_nidkey(&t, &low, &k), -EINVAL);
	/* a key nobody interned reads back as the 8-byte NID it spells */
	lne_nidkey_nid(&t, ka + 100, &x);
	ck_assert_uint_eq(x.alen, 4);
	lne_nidkey_fini(&t);
}
END_TEST

/* The chain holding entry @idx (1-based) of @t. */
static u32 chain_of(const struct lne_nidtab *t, u32 idx)
{
	u32 b, i;

	for (b = 0; b < LNE_NIDKEY_BUCKETS; b++)
		for (i = t->head[b]; i; i = t->next[i - 1])
			if (i == idx)
				return b;
	ck_abort_msg("entry %u is in no chain", idx);
	return 0;
}

/* The chains are keyed by a random seed: a peer cannot know which NIDs share one. */
START_TEST(chains_are_keyed)
{
	struct lne_nidtab t1, t2;
	u32 i, same = 0, longest = 0;
	char s[64];
	u64 k;

	lne_nidkey_init(&t1);
	lne_nidkey_init(&t2);
	ck_assert_uint_ne(t1.seed, t2.seed);
	for (i = 0; i < 64; i++) {
		struct lne_nid nid;

		snprintf(s, sizeof(s), "2001:db8::%x:0@tcp", i);
		nid = simnet_nid(s);
		ck_assert_int_eq(lne_nidkey(&t1, &nid, &k), 0);
		ck_assert_int_eq(lne_nidkey(&t2, &nid, &k), 0);
	}
	for (i = 1; i <= 64; i++)
		same += chain_of(&t1, i) == chain_of(&t2, i);
	ck_assert_uint_lt(same, 16); /* by chance, about 64/4096 of them */
	/* and 4096 NIDs that differ in one byte each spread out */
	for (i = 64; i < 4096; i++) {
		struct lne_nid nid;

		snprintf(s, sizeof(s), "2001:db8::%x:0@tcp", i);
		nid = simnet_nid(s);
		ck_assert_int_eq(lne_nidkey(&t1, &nid, &k), 0);
	}
	for (i = 0; i < LNE_NIDKEY_BUCKETS; i++) {
		u32 n = 0, j;

		for (j = t1.head[i]; j; j = t1.next[j - 1])
			n++;
		longest = n > longest ? n : longest;
	}
	ck_assert_uint_le(longest, 32);
	lne_nidkey_fini(&t1);
	lne_nidkey_fini(&t2);
}
END_TEST

/* The ping info in @r: its 8-byte entries and its large ones. */
static void ping_info_is(const struct result *r, u32 n4, const char *const *large)
{
	struct lnw_ping p;
	struct lnw_ping_ent e[4];
	struct lnw_ping_large l[4];
	u32 nl, i;

	ck_assert_int_eq(lnw_ping_unpack(r->reply, r->len, &p, e, 4), LNW_OK);
	ck_assert_uint_eq(p.n, n4);
	ck_assert_uint_eq(e[0].nid >> 32, LNE_MKNET(LNE_LND_LO, 0));
	ck_assert(p.features & LNW_PING_FEAT_LARGE_ADDR);
	ck_assert_int_eq(lnw_ping16_unpack(r->reply, r->len, l, 4, &nl), LNW_OK);
	for (i = 0; large[i]; i++) {
		struct lne_nid want = simnet_nid(large[i]);

		ck_assert_uint_lt(i, nl);
		ck_assert(lne_nid_equal(&l[i].nid, &want));
		ck_assert_uint_eq(l[i].status, LNW_NI_STATUS_UP);
	}
	ck_assert_uint_eq(nl, i);
}

START_TEST(ping6_both_ways)
{
	size_t chunks[] = {1, 13, 4096};
	size_t c;

	for (c = 0; c < LNE_ARRAY_SIZE(chunks); c++) {
		struct simnet s;
		struct simnode *a, *b;
		struct result r = {0};
		struct lne_nid dst = simnet_nid("2001:db8:1::2@tcp");
		struct simlink *k;

		simnet_pair(&s, chunks[c], A6, B6, false, &a, &b);
		ck_assert_int_eq(lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &r, NULL), 0);
		simnet_pump(&s);
		ck_assert_int_eq(r.done, 1);
		ck_assert_int_eq(r.status, 0);
		ping_info_is(&r, 1, B6);
		free(r.reply);
		/* every connection spoke version 4 */
		for (k = s.links; k; k = k->next)
			ck_assert(k->l.conn.v4);
		ck_assert(lne_node_counts(&b->node, &dst));
		ck_assert_uint_eq(lne_node_counts(&b->node, &dst)->recv_count, 1);

		memset(&r, 0, sizeof(r));
		dst = simnet_nid("2001:db8::1@tcp");
		ck_assert_int_eq(lne_node_ping(&b->node, &dst, NULL, 1000, on_done, &r, NULL), 0);
		simnet_pump(&s);
		ck_assert_int_eq(r.done, 1);
		ck_assert_int_eq(r.status, 0);
		ping_info_is(&r, 1, A6);
		free(r.reply);
		simnet_fini(&s);
	}
}
END_TEST

/* IPv4 and IPv6 rails side by side: each link speaks its NIDs' version, PUTs go over both. */
START_TEST(mixed_rails)
{
	static const char *const an[] = {"10.0.0.1@tcp", "2001:db8::1@tcp", NULL};
	static const char *const bn[] = {"10.0.0.2@tcp", "2001:db8::2@tcp", NULL};
	static const char *const b6[] = {"2001:db8::2@tcp", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct result r[8] = {{0}};
	struct lne_nid v4 = simnet_nid("10.0.0.2@tcp"), v6 = simnet_nid("2001:db8::2@tcp");
	struct simlink *k;
	int i, n4 = 0, n6 = 0;

	simnet_pair(&s, 4096, an, bn, false, &a, &b);
	simnet_peer(a, bn);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(lne_node_put(&a->node, &v4, NULL, 4, 1, 0, NULL, 100, false, 1000,
					      on_done, &r[i], NULL),
				 0);
	simnet_pump(&s);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(r[i].status, 0);
	ck_assert_uint_eq(b->recv_puts, 8);
	/* round robin over both rails */
	ck_assert_uint_eq(lne_node_counts(&b->node, &v4)->recv_count, 4);
	ck_assert_uint_eq(lne_node_counts(&b->node, &v6)->recv_count, 4);
	for (k = s.links; k; k = k->next) {
		struct lne_nid ln;

		lne_node_nid(&k->owner->node, k->l.local, &ln);
		ck_assert_int_eq(k->l.conn.v4, ln.alen == 16);
		if (k->l.conn.v4)
			n6++;
		else
			n4++;
	}
	ck_assert_int_gt(n4, 0);
	ck_assert_int_gt(n6, 0);

	/* a ping lists the IPv4 NID in the 8-byte part, the IPv6 one after it */
	memset(&r[0], 0, sizeof(r[0]));
	ck_assert_int_eq(lne_node_ping(&a->node, &v6, NULL, 1000, on_done, &r[0], NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r[0].status, 0);
	ping_info_is(&r[0], 2, b6);
	free(r[0].reply);
	simnet_fini(&s);
}
END_TEST

/* A fault rule names an IPv6 NID as it names an IPv4 one: drops, lists, deletes. */
START_TEST(fault_rule_on_ipv6)
{
	static const char *const an[] = {"10.0.0.1@tcp", "2001:db8::1@tcp", NULL};
	static const char *const bn[] = {"10.0.0.2@tcp", "2001:db8::2@tcp", NULL};
	struct lne_nid v4 = simnet_nid("10.0.0.2@tcp"), v6 = simnet_nid("2001:db8::2@tcp");
	struct lne_fault_attr fa = {0};
	struct lne_err err = {.msg = ""};
	struct simnode *a, *b;
	struct result r = {0};
	struct simnet s;

	simnet_pair(&s, 4096, an, bn, false, &a, &b);
	ck_assert_int_eq(lne_fault_opt(&fa, "source", "*", &err), 0);
	ck_assert_int_eq(lne_fault_opt(&fa, "dest", "2001:db8::2@tcp", &err), 0);
	ck_assert_int_eq(lne_fault_opt(&fa, "rate", "1", &err), 0);
	ck_assert_int_eq(lne_fault_add(&b->node, &fa, &err), 1);
	ck_assert_uint_eq(b->node.faults->a.dst_nid.alen, 16);
	/* what arrives for the IPv6 NID is dropped, the IPv4 one still answers */
	ck_assert_int_eq(lne_node_ping(&a->node, &v6, NULL, 1000, on_done, &r, NULL), 0);
	simnet_pump(&s);
	simnet_advance(&s, 1500);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_ne(r.status, 0);
	ck_assert_uint_ge(b->node.faults->st.hit, 1);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(lne_node_ping(&a->node, &v4, NULL, 1000, on_done, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.status, 0);
	free(r.reply);
	/* deleted by the NID it names, then the IPv6 NID answers */
	ck_assert_int_eq(lne_fault_del(&b->node, false, NULL, &v4, false), 0);
	ck_assert_int_eq(lne_fault_del(&b->node, false, NULL, &v6, false), 1);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(lne_node_ping(&a->node, &v6, NULL, 1000, on_done, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.status, 0);
	free(r.reply);
	simnet_fini(&s);
}
END_TEST

/* Discovery learns a peer's IPv6 NIDs from the large part of its ping info. */
START_TEST(discovery_learns_ipv6)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = simnet_nid("2001:db8::2@tcp"), other = simnet_nid("2001:db8:1::2@tcp");
	struct lne_peer_ni *pni;

	simnet_pair(&s, 4096, A6, B6, true, &a, &b);
	ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, 4, 1, 0, NULL, 0, false, 1000, on_done,
				      &r, NULL),
			 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, 0);
	pni = lne_peer_ni_find(a->ln, &other);
	ck_assert_msg(pni, "discovery did not learn the second IPv6 NID");
	ck_assert_uint_eq(lne_peer_of(pni)->npni, 2);
	ck_assert(lne_nid_equal(&lne_peer_of(pni)->primary, &dst));
	ck_assert_uint_eq(a->node.dst.done, 1);
	simnet_fini(&s);
}
END_TEST

/* Raw version 2 request and version 4 hello for A's first NID from B's. */
static size_t handshake(u8 *buf, const char *to, const char *from)
{
	struct lne_nid dst = simnet_nid(to), src = simnet_nid(from);

	return simnet_hello16(buf, &dst, &src);
}

START_TEST(hostile_large_forms)
{
	struct simnet s;
	struct simnode *a, *b;
	struct result r = {0};
	struct lne_nid dst = simnet_nid("2001:db8::1@tcp");
	u8 buf[LNW_CONNREQ16_SIZE + LNW_HELLO16_SIZE + LNW_FRAME16_HDR];
	struct lnw_hdr m = {.type = LNW_PUT, .portal = 4, .wh_object = LNW_WH_NONE};
	struct lnw_ksm k = {.type = LNW_KSM_LNET};
	struct lne_nid d = simnet_nid("2001:db8::1@tcp"), sn = simnet_nid("2001:db8::2@tcp");
	u32 keys;
	size_t n;

	simnet_pair(&s, 4096, A6, B6, false, &a, &b);

	/* a request for a large NID this node does not have: refused, not interned */
	keys = a->node.keys.n;
	n = handshake(buf, "2001:db8::99@tcp", "2001:db8::2@tcp");
	ck_assert_int_eq(simnet_inject(&s, a, buf, LNW_CONNREQ16_SIZE), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 1);
	ck_assert_uint_eq(a->node.keys.n, keys);

	/* a hello whose NID does not unpack (an address size that does not exist) */
	n = handshake(buf, "2001:db8::1@tcp", "2001:db8::2@tcp");
	buf[LNW_CONNREQ16_SIZE + 8] = 5;
	ck_assert_int_eq(simnet_inject(&s, a, buf, n), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_FIELD], 1);

	/* a hello from a NID on another net: refused before its NID is interned */
	keys = a->node.keys.n;
	n = handshake(buf, "2001:db8::1@tcp", "2001:db8::2@tcp7");
	ck_assert_int_eq(simnet_inject(&s, a, buf, n), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 2);
	ck_assert_uint_eq(a->node.keys.n, keys);

	/* a good handshake, then a nid16 header whose source NID does not unpack */
	n = handshake(buf, "2001:db8::1@tcp", "2001:db8::2@tcp");
	lnw_ksm_pack(&k, buf + n);
	lnw_hdr16_pack(&m, &d, &sn, buf + n + LNW_KSM_SIZE);
	buf[n + LNW_KSM_SIZE + LNW_NID_SIZE] = 5;
	ck_assert_int_eq(simnet_inject(&s, a, buf, n + LNW_FRAME16_HDR), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_FIELD], 2);
	ck_assert_uint_eq(b->recv_puts + a->recv_puts, 0);

	/* a version 1 request for an 8-byte NID among the large NIDs' keys */
	lnw_connreq_pack(0x0002000000000001ull, buf);
	ck_assert_int_eq(simnet_inject(&s, a, buf, LNW_CONNREQ_SIZE), -EPROTO);
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 3);

	/* nobody else noticed: B still pings A over IPv6 */
	ck_assert_int_eq(lne_node_ping(&b->node, &dst, NULL, 1000, on_done, &r, NULL), 0);
	simnet_pump(&s);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.status, 0);
	free(r.reply);
	simnet_fini(&s);
}
END_TEST

TCase *make_node6_tcase(void)
{
	TCase *tc = tcase_create("node6");

	tcase_add_test(tc, keys_never_meet_ipv4);
	tcase_add_test(tc, chains_are_keyed);
	tcase_add_test(tc, ping6_both_ways);
	tcase_add_test(tc, mixed_rails);
	tcase_add_test(tc, discovery_learns_ipv6);
	tcase_add_test(tc, hostile_large_forms);
	tcase_add_test(tc, fault_rule_on_ipv6);
	return tc;
}
