// SPDX-License-Identifier: GPL-2.0
/* The object model: nets, NIs, peers, routes, globals, cursors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "state.h"
#include "unit.h"

/* A parsed NID from a small ring, so calls can take its address inline. */
static const struct lne_nid *NP(const char *s)
{
	static struct lne_nid ring[8];
	static unsigned int next;
	struct lne_nid *nid = &ring[next++ % 8];

	ck_assert_msg(!lne_nid_parse(s, nid, NULL), "bad NID %s", s);
	return nid;
}

#define N(s) (*NP(s))

static int ni_add(struct lne_inst *ln, const char *s, struct lne_err *err)
{
	struct lne_ni_conf c = {.nid = N(s), .dev_cpt = LNE_CPT_ANY, .ifname = "eth0"};

	return lne_ni_add(ln, &c, err);
}

/* Run @rc-returning call; it must fail with @want and change nothing at all. */
#define REFUSED(ln, want, call)                                                         \
	do {                                                                            \
		char *before_ = state_text(ln), *after_;                                \
		u64 gen_ = lne_generation(ln);                                          \
		struct lne_err err_ = {.msg = ""};                                      \
		struct lne_err *err = &err_;                                            \
		int rc_ = (call);                                                       \
		(void)err;                                                              \
		ck_assert_msg(rc_ == (want), "%s: rc %d, wanted %d", #call, rc_, want); \
		ck_assert_msg(err_.msg[0], "%s: refused without a reason", #call);      \
		after_ = state_text(ln);                                                \
		ck_assert_str_eq(before_, after_);                                      \
		ck_assert_uint_eq(gen_, lne_generation(ln));                            \
		free(before_);                                                          \
		free(after_);                                                           \
	} while (0)

START_TEST(net_lives_while_it_has_nis)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid a = N("10.0.0.1@tcp"), b = N("10.0.0.2@tcp");
	lne_net_t tcp = lne_nid_net(&a);

	ck_assert_ptr_null(lne_net_find(ln, tcp));
	ck_assert_int_eq(ni_add(ln, "10.0.0.1@tcp", NULL), 0);
	ck_assert_ptr_nonnull(lne_net_find(ln, tcp));
	ck_assert_int_eq(ni_add(ln, "10.0.0.2@tcp", NULL), 0);
	ck_assert_uint_eq(lne_net_find(ln, tcp)->nni, 2);
	ck_assert_int_eq(lne_ni_del(ln, &a, NULL), 0);
	ck_assert_ptr_nonnull(lne_net_find(ln, tcp));
	ck_assert_int_eq(lne_ni_del(ln, &b, NULL), 0);
	ck_assert_ptr_null(lne_net_find(ln, tcp));
	ck_assert_ptr_null(lne_rnet_find(ln, tcp)); /* nothing else refers to it */
	lne_inst_free(ln);
}
END_TEST

/* The NIDs of @ln's NIs in list order, and its nets' first NIs, as text. */
static void ni_order(const struct lne_inst *ln, char *out, size_t cap)
{
	char nid[LNE_NID_STR_MAX];
	const struct lne_net *net;
	const struct lne_ni *ni;
	size_t len = 0;

	out[0] = 0;
	lne_list_for_each_entry(ni, &ln->nis, all_link) {
		lne_nid_format(&ni->nid, nid, sizeof(nid));
		len += (size_t)snprintf(out + len, cap - len, "%s ", nid);
	}
	len += (size_t)snprintf(out + len, cap - len, "|");
	lne_list_for_each_entry(net, &ln->nets, link) {
		lne_nid_format(&lne_list_entry(net->nis.next, struct lne_ni, link)->nid, nid,
			       sizeof(nid));
		len += (size_t)snprintf(out + len, cap - len, " %s", nid);
	}
}

static int ni_add_at(struct lne_inst *ln, const char *s, u64 place, struct lne_err *err)
{
	struct lne_ni_conf c = {.nid = N(s), .dev_cpt = LNE_CPT_ANY, .order = place};

	return lne_ni_add(ln, &c, err);
}

/*
 * NIs keep the places they are given, whatever the order of the adds, and a
 * net is where its first NI is: an NI deleted and added back at its place
 * (lnetd changing it) is where it was, so ping info, and the primary NID a
 * discovering peer takes from it, do not change.
 */
START_TEST(nis_keep_their_places)
{
	struct lne_inst *ln = lne_inst_new();
	char got[512];

	ck_assert_int_eq(ni_add_at(ln, "10.0.0.3@tcp1", 30, NULL), 0);
	ck_assert_int_eq(ni_add_at(ln, "10.0.0.1@tcp", 10, NULL), 0);
	ck_assert_int_eq(ni_add_at(ln, "10.0.0.2@tcp1", 20, NULL), 0);
	ck_assert_int_eq(ni_add(ln, "10.0.0.9@tcp", NULL), 0); /* no place: after every NI */
	ni_order(ln, got, sizeof(got));
	ck_assert_str_eq(got, "10.0.0.1@tcp 10.0.0.2@tcp1 10.0.0.3@tcp1 10.0.0.9@tcp | "
			      "10.0.0.1@tcp 10.0.0.2@tcp1");
	/* The first NI changed (deleted, added back at its place): nothing moves. */
	ck_assert_int_eq(lne_ni_del(ln, NP("10.0.0.1@tcp"), NULL), 0);
	ni_order(ln, got, sizeof(got));
	ck_assert_str_eq(got, "10.0.0.2@tcp1 10.0.0.3@tcp1 10.0.0.9@tcp | "
			      "10.0.0.2@tcp1 10.0.0.9@tcp");
	ck_assert_int_eq(ni_add_at(ln, "10.0.0.1@tcp", 10, NULL), 0);
	ni_order(ln, got, sizeof(got));
	ck_assert_str_eq(got, "10.0.0.1@tcp 10.0.0.2@tcp1 10.0.0.3@tcp1 10.0.0.9@tcp | "
			      "10.0.0.1@tcp 10.0.0.2@tcp1");
	/* A net whose only NI goes and comes back is where it was too. */
	ck_assert_int_eq(lne_ni_del(ln, NP("10.0.0.9@tcp"), NULL), 0);
	ck_assert_int_eq(lne_ni_del(ln, NP("10.0.0.1@tcp"), NULL), 0);
	ck_assert_int_eq(ni_add_at(ln, "10.0.0.1@tcp", 10, NULL), 0);
	ni_order(ln, got, sizeof(got));
	ck_assert_str_eq(got, "10.0.0.1@tcp 10.0.0.2@tcp1 10.0.0.3@tcp1 | "
			      "10.0.0.1@tcp 10.0.0.2@tcp1");
	/* One place, one NI: refused, naming the NI that has it, and nothing changes. */
	REFUSED(ln, -EEXIST, ni_add_at(ln, "10.0.0.4@tcp", 20, err));
	{
		struct lne_err e = {.msg = ""};

		ni_add_at(ln, "10.0.0.4@tcp", 20, &e);
		ck_assert_msg(strstr(e.msg, "10.0.0.2@tcp1"), "%s", e.msg);
	}
	/* A copy keeps the places. */
	{
		struct lne_inst *cp = lne_inst_copy(ln);
		char was[512];

		ck_assert_ptr_nonnull(cp);
		ni_order(cp, was, sizeof(was));
		ni_order(ln, got, sizeof(got));
		ck_assert_str_eq(was, got);
		lne_inst_free(cp);
	}
	lne_inst_free(ln);
}
END_TEST

START_TEST(ni_refusals_change_nothing)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_ni_conf c = {.nid = N("10.0.0.9@tcp"), .dev_cpt = LNE_CPT_ANY};
	struct lne_tunables bad = {.credits = 0, .peer_credits = 8};
	struct lne_nid p = N("10.0.0.50@tcp");

	ck_assert_int_eq(ni_add(ln, "10.0.0.1@tcp", NULL), 0);
	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	REFUSED(ln, -EEXIST, ni_add(ln, "10.0.0.1@tcp", err));
	REFUSED(ln, -EEXIST, ni_add(ln, "10.0.0.50@tcp", err));
	REFUSED(ln, -EINVAL, ni_add(ln, "0@lo", err));
	c.ifname = "an-interface-name-too-long";
	REFUSED(ln, -EINVAL, lne_ni_add(ln, &c, err));
	c.ifname = "eth1";
	c.dev_cpt = 64;
	REFUSED(ln, -EINVAL, lne_ni_add(ln, &c, err));
	c.dev_cpt = LNE_CPT_ANY;
	c.tun = &bad;
	REFUSED(ln, -EINVAL, lne_ni_add(ln, &c, err));
	REFUSED(ln, -ENOENT, lne_ni_del(ln, &c.nid, err));
	REFUSED(ln, -ERANGE, lne_ni_set_health(ln, NP("10.0.0.1@tcp"), 1001, err));
	REFUSED(ln, -ERANGE, lne_ni_set_health(ln, NP("10.0.0.1@tcp"), -1, err));
	REFUSED(ln, -ENOENT, lne_net_del(ln, LNE_MKNET(LNE_LND_O2IB, 0), err));
	lne_inst_free(ln);
}
END_TEST

START_TEST(ni_defaults_and_tunables)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_tunables t = {.peer_timeout = 10, .peer_credits = 4, .credits = 64};
	struct lne_ni_conf c = {.nid = N("10.1.0.1@o2ib"), .dev_cpt = 1, .cpts = 0x6, .tun = &t};
	struct lne_ni *ni;

	ck_assert_int_eq(lne_ni_add(ln, &c, NULL), 0);
	ni = lne_ni_find(ln, &c.nid);
	ck_assert_ptr_nonnull(ni);
	ck_assert(ni->up);
	ck_assert_int_eq(ni->health, LNE_HEALTH_MAX);
	ck_assert_int_eq(ni->credits, 64);
	ck_assert_uint_eq(ni->tun.peer_credits, 4);
	ck_assert_uint_eq(ni->cpts, 0x6);
	ck_assert_int_eq(ni->dev_cpt, 1);
	ck_assert_uint_eq(ni->prio.value, LNE_PRIO_NONE);
	ck_assert_int_eq(ni_add(ln, "10.0.0.1@tcp", NULL), 0);
	ni = lne_ni_find(ln, NP("10.0.0.1@tcp"));
	ck_assert_uint_eq(ni->tun.credits, 256);
	ck_assert_uint_eq(ni->tun.peer_timeout, 180);
	lne_inst_free(ln);
}
END_TEST

START_TEST(peer_nid_has_one_owner)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid a = N("10.0.0.1@tcp"), a2 = N("10.1.0.1@o2ib"), b = N("10.0.0.2@tcp");
	struct lne_err err;

	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = a, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_peer_add_nid(ln, &a, &a2, NULL), 0);
	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = b, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_peer_add_nid(ln, &b, &a2, &err), -EEXIST);
	ck_assert_ptr_nonnull(strstr(err.msg, "10.1.0.1@o2ib: already a NID of peer 10.0.0.1@tcp"));
	ck_assert_int_eq(
		lne_peer_add(ln, &(struct lne_peer_conf){.primary = a2, .multi_rail = true}, &err),
		-EEXIST);
	ck_assert_ptr_nonnull(strstr(err.msg, "peer 10.0.0.1@tcp"));
	/* Found by any of its NIDs. */
	ck_assert_ptr_eq(lne_peer_of(lne_peer_ni_find(ln, &a2)), lne_peer_find(ln, &a));
	ck_assert_ptr_null(lne_peer_find(ln, &a2)); /* not a primary NID */
	ck_assert_int_eq(ln->npni, 3);
	lne_inst_free(ln);
}
END_TEST

START_TEST(peer_goes_with_its_last_nid)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid a = N("10.0.0.1@tcp"), a2 = N("10.0.0.2@tcp"), a3 = N("10.1.0.1@o2ib");
	struct lne_err er;

	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = a, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_int_eq(lne_peer_add_nid(ln, &a, &a2, NULL), 0);
	ck_assert_int_eq(lne_peer_add_nid(ln, &a, &a3, NULL), 0);
	REFUSED(ln, -EBUSY, lne_peer_del_nid(ln, &a, &a, err)); /* the primary, others remain */
	REFUSED(ln, -ENOENT, lne_peer_del_nid(ln, &a, NP("10.9.9.9@tcp"), err));
	ck_assert_int_eq(lne_peer_del_nid(ln, &a, &a3, &er), 0);
	ck_assert_ptr_null(lne_rnet_find(ln, lne_nid_net(&a3)));
	ck_assert_int_eq(lne_peer_del_nid(ln, &a, &a2, &er), 0);
	ck_assert_ptr_nonnull(lne_peer_find(ln, &a));
	ck_assert_int_eq(lne_peer_del_nid(ln, &a, &a, &er), 0);
	ck_assert_ptr_null(lne_peer_find(ln, &a));
	ck_assert(lne_list_empty(&ln->peers));
	ck_assert_int_eq(ln->npni, 0);
	lne_inst_free(ln);
}
END_TEST

START_TEST(peer_max_interfaces)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid p = N("10.0.0.1@tcp");
	char buf[32];
	int i;

	ck_assert_int_eq(lne_global_set(ln, LNE_G_MAX_INTERFACES, 16, NULL), 0);
	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	for (i = 2; i <= 16; i++) {
		snprintf(buf, sizeof(buf), "10.0.0.%d@tcp", i);
		ck_assert_int_eq(lne_peer_add_nid(ln, &p, NP(buf), NULL), 0);
	}
	REFUSED(ln, -E2BIG, lne_peer_add_nid(ln, &p, NP("10.0.0.99@tcp"), err));
	lne_inst_free(ln);
}
END_TEST

START_TEST(route_gateway_is_a_peer)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid gw = N("10.0.0.254@tcp"), gw2 = N("10.0.0.253@tcp");
	lne_net_t o2ib = LNE_MKNET(LNE_LND_O2IB, 0), o2ib1 = LNE_MKNET(LNE_LND_O2IB, 1);
	struct lne_peer *peer;

	ck_assert_int_eq(ni_add(ln, "10.0.0.1@tcp", NULL), 0);
	ck_assert_int_eq(lne_route_add(ln, o2ib, &gw, 1, 0, 1, NULL), 0);
	peer = lne_peer_find(ln, &gw);
	ck_assert_ptr_nonnull(peer);
	ck_assert(peer->implicit);
	ck_assert(!peer->mr);
	ck_assert_int_eq(lne_route_add(ln, o2ib1, &gw, 2, 0, 1, NULL), 0);
	ck_assert_uint_eq(lne_peer_ni_find(ln, &gw)->gw_refs, 2);
	REFUSED(ln, -EBUSY, lne_peer_del(ln, &gw, err));
	REFUSED(ln, -EEXIST, lne_route_add(ln, o2ib, &gw, 1, 0, 1, err));
	REFUSED(ln, -EEXIST, lne_route_add(ln, LNE_MKNET(LNE_LND_TCP, 0), &gw2, 1, 0, 1, err));
	REFUSED(ln, -EINVAL, lne_route_add(ln, o2ib, NP("10.1.0.1@o2ib"), 1, 0, 1, err));
	REFUSED(ln, -ERANGE, lne_route_add(ln, o2ib, &gw2, 0, 0, 1, err));
	REFUSED(ln, -ERANGE, lne_route_add(ln, o2ib, &gw2, 256, 0, 1, err));
	REFUSED(ln, -EINVAL, lne_route_add(ln, o2ib, NP("10.0.0.1@tcp"), 1, 0, 1, err));
	REFUSED(ln, -ENOENT, lne_route_del(ln, o2ib, &gw2, err));
	ck_assert_int_eq(lne_route_del(ln, o2ib, &gw, NULL), 0);
	ck_assert_ptr_nonnull(lne_peer_find(ln, &gw));
	ck_assert_int_eq(lne_route_del(ln, o2ib1, &gw, NULL), 0);
	ck_assert_ptr_null(lne_peer_find(ln, &gw)); /* the implicit peer went with its routes */

	/* An explicit peer outlives the routes through it. */
	ck_assert_int_eq(
		lne_peer_add(ln, &(struct lne_peer_conf){.primary = gw2, .multi_rail = true}, NULL),
		0);
	ck_assert_int_eq(lne_route_add(ln, o2ib, &gw2, 1, 0, 1, NULL), 0);
	ck_assert_int_eq(lne_route_del(ln, o2ib, &gw2, NULL), 0);
	ck_assert_ptr_nonnull(lne_peer_find(ln, &gw2));
	/* And an implicit one becomes explicit when added by name. */
	ck_assert_int_eq(lne_route_add(ln, o2ib, &gw, 1, 0, 1, NULL), 0);
	ck_assert_int_eq(
		lne_peer_add(ln, &(struct lne_peer_conf){.primary = gw, .multi_rail = true}, NULL),
		0);
	ck_assert(!lne_peer_find(ln, &gw)->implicit);
	ck_assert_int_eq(lne_route_del(ln, o2ib, &gw, NULL), 0);
	ck_assert_ptr_nonnull(lne_peer_find(ln, &gw));
	lne_inst_free(ln);
}
END_TEST

START_TEST(globals_names_defaults_ranges)
{
	struct lne_inst *ln = lne_inst_new();
	static const struct {
		const char *name;
		u32 def;
	} want[] = {
		{"numa_range", 0},
		{"discovery", 1},
		{"max_interfaces", 200},
		{"retry_count", 2},
		{"transaction_timeout", 150},
		{"health_sensitivity", 100},
		{"recovery_interval", 1},
		{"router_sensitivity", 100},
		{"drop_asym_route", 0},
		{"response_tracking", 3},
		{"recovery_limit", 0},
		{"max_recovery_ping_interval", 900},
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int g = lne_global_lookup(want[i].name);

		ck_assert_msg(g >= 0, "no global %s", want[i].name);
		ck_assert_uint_eq(lne_global_get(ln, g), want[i].def);
	}
	ck_assert_int_eq(lne_global_lookup("no_such_thing"), -ENOENT);
	/* discovery: 0 off, 1 on, 2 verify only */
	REFUSED(ln, -ERANGE, lne_global_set(ln, LNE_G_DISCOVERY, 3, err));
	REFUSED(ln, -ERANGE, lne_global_set(ln, LNE_G_HEALTH_SENSITIVITY, 1001, err));
	REFUSED(ln, -ERANGE, lne_global_set(ln, LNE_G_MAX_INTERFACES, 15, err));
	REFUSED(ln, -ERANGE, lne_global_set(ln, LNE_G_RESPONSE_TRACKING, 4, err));
	REFUSED(ln, -ERANGE, lne_global_set(ln, LNE_G_ROUTER_SENSITIVITY, 101, err));
	REFUSED(ln, -EINVAL, lne_global_set(ln, LNE_G_RETRY_COUNT, 150, err));
	ck_assert_int_eq(lne_global_set(ln, LNE_G_RETRY_COUNT, 5, NULL), 0);
	REFUSED(ln, -EINVAL, lne_global_set(ln, LNE_G_TRANSACTION_TIMEOUT, 5, err));
	ck_assert_int_eq(lne_global_set(ln, LNE_G_TRANSACTION_TIMEOUT, 6, NULL), 0);
	lne_inst_free(ln);
}
END_TEST

START_TEST(generation_bumps_on_every_change)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid p = N("10.0.0.9@tcp");
	u64 g = lne_generation(ln);

	ck_assert_int_eq(ni_add(ln, "10.0.0.1@tcp", NULL), 0);
	ck_assert_uint_gt(lne_generation(ln), g);
	g = lne_generation(ln);
	ck_assert_int_eq(lne_peer_add(ln, &(struct lne_peer_conf){.primary = p, .multi_rail = true},
				      NULL),
			 0);
	ck_assert_uint_gt(lne_generation(ln), g);
	g = lne_generation(ln);
	ck_assert_int_eq(lne_peer_ni_set_health(ln, &p, 10, NULL), 0);
	ck_assert_uint_gt(lne_generation(ln), g);
	g = lne_generation(ln);
	ck_assert_int_eq(lne_global_set(ln, LNE_G_NUMA_RANGE, 3, NULL), 0);
	ck_assert_uint_gt(lne_generation(ln), g);
	lne_inst_free(ln);
}
END_TEST

/* Dump peers a few at a time; deletions between chunks neither repeat nor skip survivors. */
START_TEST(cursor_resumes_after_changes)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_cursor c = {0};
	static int seen[1000];
	struct lne_peer *peer;
	char buf[32];
	int i, n = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "%d@gni", i);
		ck_assert_int_eq(lne_peer_add(ln,
					      &(struct lne_peer_conf){.primary = *(NP(buf)),
								      .multi_rail = true},
					      NULL),
				 0);
	}
	while ((peer = lne_peer_next(ln, &c))) {
		int k = (int)lne_nid_ip4(&peer->primary);

		seen[k]++;
		n++;
		/* Every 100 peers, delete the next peer and one already seen. */
		if (n % 100 == 0 && k + 1 < 1000 && k >= 50) {
			snprintf(buf, sizeof(buf), "%d@gni", k + 1);
			ck_assert_int_eq(lne_peer_del(ln, NP(buf), NULL), 0);
			seen[k + 1] = -1;
			snprintf(buf, sizeof(buf), "%d@gni", k - 50);
			ck_assert_int_eq(lne_peer_del(ln, NP(buf), NULL), 0);
		}
	}
	for (i = 0; i < 1000; i++)
		ck_assert_msg(seen[i] == 1 || seen[i] == -1, "peer %d seen %d times", i, seen[i]);
	lne_inst_free(ln);
}
END_TEST

START_TEST(many_peers_hash)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_nid nid = {.lnd = LNE_LND_TCP, .alen = 4};
	int i;

	for (i = 0; i < 100000; i++) {
		nid.addr[0] = 10;
		nid.addr[1] = (u8)(i >> 16);
		nid.addr[2] = (u8)(i >> 8);
		nid.addr[3] = (u8)i;
		ck_assert_int_eq(
			lne_peer_add(ln,
				     &(struct lne_peer_conf){.primary = nid, .multi_rail = true},
				     NULL),
			0);
	}
	ck_assert_uint_ge(ln->hmask + 1, 100000);
	for (i = 0; i < 100000; i += 7) {
		nid.addr[1] = (u8)(i >> 16);
		nid.addr[2] = (u8)(i >> 8);
		nid.addr[3] = (u8)i;
		ck_assert_ptr_nonnull(lne_peer_ni_find(ln, &nid));
	}
	lne_inst_free(ln);
}
END_TEST

/* A tiny deterministic PRNG so failures reproduce. */
static unsigned long long rng_state = 0x2545f4914f6cdd1dull;
static unsigned int rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned int)(rng_state >> 16);
}

/* lne_peer_add() as lne_peer_get() does it, with what lne_peer_get() said. */
static int add_by_get(struct lne_inst *ln, const struct lne_nid *primary, bool mr,
		      struct lne_err *err)
{
	struct lne_peer *was = lne_peer_find(ln, primary), *peer = NULL;
	bool implicit = was && was->implicit, was_mr = was && was->mr;
	u64 gen = lne_generation(ln);
	enum lne_peer_got got;
	int rc = lne_peer_get(ln, primary, mr, &peer, &got, err);

	if (rc)
		return rc;
	/* Plain tests, not assertions: check records every assertion's place, slowly. */
	if (peer != lne_peer_find(ln, primary) || (was && peer != was) || peer->implicit ||
	    got != (!was       ? LNE_PEER_MADE
		    : implicit ? LNE_PEER_ADOPTED
			       : LNE_PEER_FOUND) ||
	    peer->mr != (got == LNE_PEER_FOUND ? was_mr : mr) ||
	    (got == LNE_PEER_MADE && peer->npni != 1) ||
	    (lne_generation(ln) == gen) != (got == LNE_PEER_FOUND))
		ck_abort_msg("lne_peer_get() gave peer %p, got %d; had %p, implicit %d",
			     (void *)peer, got, (void *)was, implicit);
	if (got == LNE_PEER_FOUND)
		return lne_err_set(err, -EEXIST, NULL, -1, "found");
	return 0;
}

/*
 * lne_peer_get() and lne_peer_add_nid_to() against lne_peer_add() and
 * lne_peer_add_nid(), on two instances given the same random changes: the
 * same verdicts, reasons and states, generation for generation.
 */
START_TEST(peer_get_agrees_with_add)
{
	struct lne_inst *a = lne_inst_new(), *b = lne_inst_new();
	lne_net_t o2ib9 = LNE_MKNET(LNE_LND_O2IB, 9);
	char buf[32], pbuf[32];
	int i, made = 0, refused = 0;

	ck_assert_int_eq(lne_global_set(a, LNE_G_MAX_INTERFACES, 16, NULL), 0);
	ck_assert_int_eq(lne_global_set(b, LNE_G_MAX_INTERFACES, 16, NULL), 0);
	ck_assert_int_eq(ni_add(a, "10.0.0.1@tcp", NULL), 0);
	ck_assert_int_eq(ni_add(b, "10.0.0.1@tcp", NULL), 0);
	for (i = 0; i < unit_rounds(3000); i++) {
		struct lne_err ea = {.msg = ""}, eb = {.msg = ""};
		unsigned int op = rnd() % 8;
		struct lne_nid p, n;
		struct lne_peer *peer;
		char *sa, *sb;
		int ra, rb;

		/* Few enough NIDs that they collide: found, taken, local, gateways. */
		snprintf(pbuf, sizeof(pbuf), "10.0.0.%u@tcp", rnd() % 40);
		snprintf(buf, sizeof(buf), "10.0.0.%u@tcp%s", rnd() % 40, rnd() % 2 ? "" : "1");
		if (lne_nid_parse(pbuf, &p, NULL) ||
		    lne_nid_parse(rnd() % 50 ? buf : "0@lo", &n, NULL))
			ck_abort_msg("bad NID %s or %s", pbuf, buf);
		if (op < 3) {
			bool mr = rnd() % 2;

			ra = lne_peer_add(
				a, &(struct lne_peer_conf){.primary = p, .multi_rail = mr}, &ea);
			rb = add_by_get(b, &p, mr, &eb);
			if (rb == -EEXIST && !strcmp(eb.msg, "found")) {
				/* What lne_peer_add() says of an explicit peer. */
				if (ra != -EEXIST || !strstr(ea.msg, "already a NID of peer"))
					ck_abort_msg("%s: %d, %s", pbuf, ra, ea.msg);
				ea = eb;
			}
		} else if (op < 6) {
			ra = lne_peer_add_nid(a, &p, &n, &ea);
			peer = lne_peer_find(b, &p);
			rb = peer ? lne_peer_add_nid_to(b, peer, &n, &eb)
				  : lne_peer_add_nid(b, &p, &n, &eb);
		} else if (op == 6) {
			ra = lne_route_add(a, o2ib9, &p, 1, 0, 1, &ea);
			rb = lne_route_add(b, o2ib9, &p, 1, 0, 1, &eb);
		} else if (rnd() % 2) {
			ra = lne_route_del(a, o2ib9, &p, &ea);
			rb = lne_route_del(b, o2ib9, &p, &eb);
		} else {
			ra = lne_peer_del(a, &p, &ea);
			rb = lne_peer_del(b, &p, &eb);
		}
		if (ra != rb || strcmp(ea.msg, eb.msg) || lne_generation(a) != lne_generation(b))
			ck_abort_msg("step %d, op %u: %d vs %d (%s | %s)", i, op, ra, rb, ea.msg,
				     eb.msg);
		sa = state_text(a);
		sb = state_text(b);
		if (strcmp(sa, sb))
			ck_assert_str_eq(sa, sb);
		free(sa);
		free(sb);
		made += !ra;
		refused += !!ra;
	}
	ck_assert_int_gt(made, unit_rounds(3000) / 10);
	ck_assert_int_gt(refused, unit_rounds(3000) / 10);
	lne_inst_free(a);
	lne_inst_free(b);
}
END_TEST

/* NID @i of reserve_sizes_the_hash_once. */
static void nth_nid(unsigned int i, struct lne_nid *nid)
{
	memset(nid, 0, sizeof(*nid));
	nid->lnd = LNE_LND_O2IB;
	nid->num = (u16)(i % 3);
	nid->alen = 4;
	nid->addr[0] = 10;
	nid->addr[1] = (u8)(i >> 16);
	nid->addr[2] = (u8)(i >> 8);
	nid->addr[3] = (u8)i;
}

/* A reserve sizes the NID hash once; nothing else tells it from a table that grew. */
START_TEST(reserve_sizes_the_hash_once)
{
	struct lne_inst *grown = lne_inst_new(), *reserved = lne_inst_new();
	const struct lne_peer_ni *r, *g;
	unsigned int i, bad = 0;
	struct lne_nid nid;
	u32 size;
	char *sg, *sr;

	/* Counted, asserted once: check records every assertion's place. */
	for (i = 0; i < 1000; i++) {
		nth_nid(i, &nid);
		bad += !!lne_peer_add(
			grown, &(struct lne_peer_conf){.primary = nid, .multi_rail = true}, NULL);
		bad += !!lne_peer_add(reserved,
				      &(struct lne_peer_conf){.primary = nid, .multi_rail = true},
				      NULL);
	}
	/* Some already in: moved into the new table. */
	lne_inst_reserve(reserved, 40000);
	size = reserved->hmask + 1;
	ck_assert_uint_eq(size, 65536);
	for (i = 0; i < 1000; i++) {
		nth_nid(i, &nid);
		bad += !lne_peer_ni_find(reserved, &nid);
	}
	for (i = 1000; i < 41000; i++) {
		struct lne_nid p;

		nth_nid(i, &nid);
		nth_nid(i - 1, &p);
		if (i % 2) {
			bad += !!lne_peer_add(
				grown, &(struct lne_peer_conf){.primary = nid, .multi_rail = true},
				NULL);
			bad += !!lne_peer_add(
				reserved,
				&(struct lne_peer_conf){.primary = nid, .multi_rail = true}, NULL);
		} else {
			bad += !!lne_peer_add_nid(grown, &p, &nid, NULL);
			bad += !!lne_peer_add_nid(reserved, &p, &nid, NULL);
		}
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(reserved->hmask + 1, size); /* no growing on the way */
	ck_assert_uint_eq(grown->hmask + 1, size);    /* where growing got to */
	for (i = 0; i < 41000; i++) {
		nth_nid(i, &nid);
		r = lne_peer_ni_find(reserved, &nid);
		g = lne_peer_ni_find(grown, &nid);
		bad += !r || !g || lne_peer_of(r)->id != lne_peer_of(g)->id;
	}
	ck_assert_uint_eq(bad, 0);
	sg = state_text(grown);
	sr = state_text(reserved);
	ck_assert_str_eq(sg, sr);
	free(sg);
	free(sr);
	/* Less than there is already, or absurdly much: a bound, no harm. */
	lne_inst_reserve(reserved, 0);
	ck_assert_uint_eq(reserved->hmask + 1, size);
	lne_inst_reserve(reserved, 0xffffffffu);
	ck_assert_uint_eq(reserved->hmask + 1, 1u << 19);
	nth_nid(7, &nid);
	ck_assert_ptr_nonnull(lne_peer_ni_find(reserved, &nid));
	lne_inst_free(grown);
	lne_inst_free(reserved);
}
END_TEST

START_TEST(numa_distances)
{
	struct lne_inst *ln = lne_inst_new();
	static const u32 d[4] = {10, 21, 21, 10};

	ck_assert_uint_eq(lne_numa_distance(ln, 0, 1), 0); /* no table: all equal */
	ck_assert_int_eq(lne_numa_set(ln, 2, d, NULL), 0);
	ck_assert_uint_eq(lne_numa_distance(ln, 0, 0), 10);
	ck_assert_uint_eq(lne_numa_distance(ln, 0, 1), 21);
	ck_assert_uint_eq(lne_numa_distance(ln, LNE_CPT_ANY, 0), 21);
	ck_assert_uint_eq(lne_numa_distance(ln, 0, 7), 21);
	REFUSED(ln, -EINVAL, lne_numa_set(ln, 65, d, err));
	lne_inst_free(ln);
}
END_TEST

Suite *make_model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, net_lives_while_it_has_nis);
	tcase_add_test(tc, ni_refusals_change_nothing);
	tcase_add_test(tc, nis_keep_their_places);
	tcase_add_test(tc, ni_defaults_and_tunables);
	tcase_add_test(tc, peer_nid_has_one_owner);
	tcase_add_test(tc, peer_goes_with_its_last_nid);
	tcase_add_test(tc, peer_max_interfaces);
	tcase_add_test(tc, route_gateway_is_a_peer);
	tcase_add_test(tc, globals_names_defaults_ranges);
	tcase_add_test(tc, generation_bumps_on_every_change);
	tcase_add_test(tc, cursor_resumes_after_changes);
	tcase_add_test(tc, many_peers_hash);
	tcase_add_test(tc, peer_get_agrees_with_add);
	tcase_add_test(tc, reserve_sizes_the_hash_once);
	tcase_add_test(tc, numa_distances);
	suite_add_tcase(s, tc);
	return s;
}
