// SPDX-License-Identifier: GPL-2.0
/*
 * test-nidkeys.c - the node's large NID keys cannot be used up by
 * strangers (engine/nidkey.h, engine/node-keys.c): a hostile peer that
 * names ever-new IPv6 NIDs over many connections leaves room for the
 * legitimate ones, keys something still holds never move, and a key taken
 * back never names another NID.
 */
#include "engine/node.h"
#include "simnet.h"
#include "unit.h"

/* The @i-th NID of group @g: 2001:db8:g::x:y@tcp. */
static struct lne_nid nth_nid(u32 g, u32 i)
{
	char s[64];

	snprintf(s, sizeof(s), "2001:db8:%x::%x:%x@tcp", g, i >> 16, i & 0xffff);
	return simnet_nid(s);
}

/* Intern @count new NIDs of group @g, each accepted. */
static void intern_many(struct lne_nidtab *t, u32 g, u32 count)
{
	u32 i;
	u64 k;

	for (i = 0; i < count; i++) {
		struct lne_nid nid = nth_nid(g, i);

		ck_assert_int_eq(lne_nidkey(t, &nid, &k), 0);
	}
}

START_TEST(held_keys_stay_taken_back_never_alias)
{
	struct lne_nidtab t;
	struct lne_nid a = simnet_nid("2001:db8::a@tcp"), b = simnet_nid("2001:db8::b@tcp"), x;
	u64 ka, kb, k;

	lne_nidkey_init(&t);
	ck_assert_int_eq(lne_nidkey(&t, &a, &ka), 0);
	ck_assert_int_eq(lne_nidkey(&t, &b, &kb), 0);
	lne_nidkey_hold(&t, ka, 1);
	/* more NIDs than the table has slots: all taken, by taking back loose ones */
	intern_many(&t, 0xf0, LNE_NIDKEY_MAX + 100);
	ck_assert_uint_eq(t.n, LNE_NIDKEY_MAX);
	ck_assert_uint_ge(t.reclaimed, 100);
	/* the held key did not move and still names its NID */
	ck_assert(lne_nidkey_live(&t, ka));
	ck_assert_int_eq(lne_nidkey_find(&t, &a, &k), 0);
	ck_assert_uint_eq(k, ka);
	lne_nidkey_nid(&t, ka, &x);
	ck_assert(lne_nid_equal(&x, &a));
	/* the loose one went: its old key names nobody, not the NID in its slot now */
	ck_assert(!lne_nidkey_live(&t, kb));
	ck_assert_int_eq(lne_nidkey_find(&t, &b, &k), -ENOENT);
	lne_nidkey_nid(&t, kb, &x);
	ck_assert_uint_eq(x.alen, 4);
	ck_assert_uint_eq(t.gen[(u32)kb & 0xffff], 2);
	/* interned again, it gets a key of its own */
	ck_assert_int_eq(lne_nidkey(&t, &b, &k), 0);
	ck_assert_uint_ne(k, kb);
	ck_assert(!lne_nidkey_live(&t, kb));
	/* let go, the held one is taken back in its turn */
	lne_nidkey_hold(&t, ka, -1);
	intern_many(&t, 0xf1, LNE_NIDKEY_MAX);
	ck_assert(!lne_nidkey_live(&t, ka));
	ck_assert_int_eq(lne_nidkey_find(&t, &a, &k), -ENOENT);
	lne_nidkey_fini(&t);
}
END_TEST

static bool keep_all(void *arg, u64 key, const struct lne_nid *nid)
{
	(void)key;
	(void)nid;
	++*(u32 *)arg;
	return false;
}

/* Only a table whose every entry is held refuses, after a bounded look. */
START_TEST(all_held_refuses)
{
	struct lne_nidtab t;
	struct lne_nid a = simnet_nid("2001:db8::a@tcp");
	u32 asked = 0;
	u64 k;

	lne_nidkey_init(&t);
	t.reclaim = keep_all;
	t.arg = &asked;
	intern_many(&t, 0xf0, LNE_NIDKEY_MAX);
	ck_assert(!t.refusing);
	ck_assert_int_eq(lne_nidkey(&t, &a, &k), -ENOSPC);
	ck_assert(t.refusing);
	ck_assert_uint_eq(asked, LNE_NIDKEY_TRIES);
	/* what is there is still found */
	a = nth_nid(0xf0, 7);
	ck_assert_int_eq(lne_nidkey(&t, &a, &k), 0);
	lne_nidkey_fini(&t);
}
END_TEST

static const char *const A6[] = {"2001:db8::1@tcp", NULL};
static const char *const B6[] = {"2001:db8::2@tcp", NULL};
static const char *const C6[] = {"2001:db8::3@tcp", NULL};

/*
 * One hostile connection to @a: a good hello from a NID never seen, then a
 * PUT whose nid16 header names another NID never seen (for a node that
 * does not route: dropped, counted on the stranger's counters); closed.
 */
static void hostile_conn(struct simnet *s, struct simnode *a, u32 i)
{
	struct lne_nid me = simnet_nid(A6[0]), src = nth_nid(0xff, i);
	struct lne_nid dst = nth_nid(0xee, i);
	u8 buf[LNW_CONNREQ16_SIZE + LNW_HELLO16_SIZE + LNW_FRAME16_HDR];
	struct lnw_hdr m = {.type = LNW_PUT, .portal = 4, .wh_object = LNW_WH_NONE};
	struct lnw_ksm k = {.type = LNW_KSM_LNET};
	size_t n = simnet_hello16(buf, &me, &src);

	lnw_ksm_pack(&k, buf + n);
	lnw_hdr16_pack(&m, &dst, &src, buf + n + LNW_KSM_SIZE);
	ck_assert_int_eq(simnet_inject(s, a, buf, sizeof(buf)), 0);
	s->links->closed = true; /* the link simnet_inject made */
	lne_node_closed(&a->node, &s->links->l, -ECONNRESET);
}

/* Counters the node keeps under a large key it no longer has. */
static u32 stale_stats(const struct lne_node *n)
{
	const struct lne_stat *st;
	u32 b, stale = 0;

	for (b = 0; b < LNE_STAT_HASH; b++)
		for (st = n->stats[b]; st; st = st->hnext)
			stale += lne_nidkey_is_large(st->nid) &&
				 !lne_nidkey_live(&n->keys, st->nid);
	return stale;
}

#define HOSTILE_CONNS (LNE_NIDKEY_MAX / 2 + 2000) /* two new NIDs each: more than the table holds */

START_TEST(strangers_cannot_fill_keys)
{
	struct lne_nid bn = simnet_nid(B6[0]);
	struct simnode *a, *b, *c;
	struct simnet s;
	u64 kb, k;
	u32 i;

	simnet_pair(&s, 4096, A6, B6, false, &a, &b);
	c = simnet_node(&s, C6);
	ck_assert_int_eq(simnet_ping(&s, b, A6[0]), 0);
	ck_assert_int_eq(lne_node_key_find(&a->node, &bn, &kb), 0);
	for (i = 0; i < HOSTILE_CONNS; i++) {
		hostile_conn(&s, a, i);
		if (i % 4096 == 4095) /* none left over between inputs */
			ck_assert_uint_eq(stale_stats(&a->node), 0);
	}
	/* every hostile connection was taken as it came, none refused */
	ck_assert_uint_eq(a->node.st.faults[LNW_F_NID], 0);
	ck_assert_uint_eq(a->node.st.c.drop_count, HOSTILE_CONNS);
	ck_assert_uint_gt(a->node.keys.reclaimed, 0);
	/* B, connected all along, kept its key and its counters */
	ck_assert_int_eq(lne_node_key_find(&a->node, &bn, &k), 0);
	ck_assert_uint_eq(k, kb);
	ck_assert_int_eq(simnet_ping(&s, b, A6[0]), 0);
	ck_assert_uint_eq(lne_node_counts(&a->node, &bn)->recv_count, 2);
	/* C, never seen before, is let in */
	ck_assert_int_eq(simnet_ping(&s, c, A6[0]), 0);
	ck_assert_int_eq(simnet_ping(&s, a, C6[0]), 0);
	/* and the strangers' counters went with their keys */
	ck_assert_uint_eq(stale_stats(&a->node), 0);
	simnet_fini(&s);
}
END_TEST

TCase *make_nidkeys_tcase(void)
{
	TCase *tc = tcase_create("nidkeys");

	tcase_add_test(tc, held_keys_stay_taken_back_never_alias);
	tcase_add_test(tc, all_held_refuses);
	tcase_add_test(tc, strangers_cannot_fill_keys);
	return tc;
}
