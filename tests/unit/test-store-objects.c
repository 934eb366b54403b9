// SPDX-License-Identifier: GPL-2.0
/*
 * The store's objects: each one's round trip, rule positions, and the
 * refusals, which name the object and change nothing.  Part of the store
 * suite (test-store.c), with its fixture and helpers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "test-store.h"

/* --- objects ------------------------------------------------------------------ */

START_TEST(ni_round_trip)
{
	struct st_ni a = NI("tcp1", "eth1", NULL), b = NI("tcp", "eth0", NULL),
		     c = NI("tcp", NULL, "10.0.0.*"), d = NI("o2ib", "ib0", "192.168.*.*"), got,
		     key;

	b.cpts = "[0,1]";
	b.peer_timeout = 180;
	b.peer_credits = 8;
	b.peer_buffer_credits = 0;
	b.credits = 256;
	st = open_ok();
	OK(store_begin(st));
	OK(store_ni_add(st, &a, err));
	OK(store_ni_add(st, &b, err));
	OK(store_ni_add(st, &c, err));
	OK(store_ni_add(st, &d, err));
	/* In the order added, not sorted (nis_keep_the_order_they_were_added). */
	DUMP_EQ("ni tcp1 eth1 - - -1 -1 -1 -1\n"
		"ni tcp eth0 - [0,1] 180 8 0 256\n"
		"ni tcp - 10.0.0.* - -1 -1 -1 -1\n"
		"ni o2ib ib0 192.168.*.* - -1 -1 -1 -1\n");

	key = NI("tcp", "eth0", NULL);
	OK(store_ni_get(st, &key, &got, err));
	ck_assert_str_eq(got.net, "tcp");
	ck_assert_str_eq(got.ifname, "eth0");
	ck_assert_ptr_null(got.pattern);
	ck_assert_str_eq(got.cpts, "[0,1]");
	ck_assert_int_eq(got.peer_timeout, 180);
	ck_assert_int_eq(got.peer_credits, 8);
	ck_assert_int_eq(got.peer_buffer_credits, 0);
	ck_assert_int_eq(got.credits, 256);
	st_ni_clear(&got);
	/* By pattern only for an NI the pattern alone places: one that names an
	 * interface is that interface's (several may share a pattern). */
	key = NI("o2ib", NULL, "192.168.*.*");
	FAILS(-ENOENT, "no NI o2ib 192.168.*.*", store_ni_get(st, &key, &got, err));
	key = NI("o2ib", "ib0", NULL);
	OK(store_ni_get(st, &key, &got, err));
	ck_assert_str_eq(got.pattern, "192.168.*.*");
	st_ni_clear(&got);

	b.cpts = NULL;
	b.peer_credits = 16;
	OK(store_ni_update(st, &b, err));
	key = NI("tcp", "eth0", NULL);
	OK(store_ni_get(st, &key, &got, err));
	ck_assert_ptr_null(got.cpts);
	ck_assert_int_eq(got.peer_credits, 16);
	st_ni_clear(&got);

	OK(store_ni_del(st, &key, err));
	FAILS(-ENOENT, "no NI tcp eth0", store_ni_get(st, &key, &got, err));
	FAILS(-ENOENT, "no NI tcp eth0", store_ni_del(st, &key, err));
	FAILS(-ENOENT, "no NI tcp eth0", store_ni_update(st, &key, err));
	key = NI("tcp", NULL, "10.0.0.*");
	OK(store_ni_del(st, &key, err));
	commit("nis");
	DUMP_EQ("ni tcp1 eth1 - - -1 -1 -1 -1\nni o2ib ib0 192.168.*.* - -1 -1 -1 -1\n");
}
END_TEST

START_TEST(peer_round_trip)
{
	const char *nids[] = {"10.0.0.3@tcp", "10.0.0.2@tcp"}, *other[] = {"10.0.0.3@tcp"};
	struct st_peer a = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 2, .nids = nids},
		       z = {.nid = "10.0.0.9@tcp", .mr = 0, .nnids = 0, .nids = NULL},
		       e = {.nid = "10.0.0.5@tcp", .mr = 1, .nnids = 1, .nids = other}, got;

	st = open_ok();
	OK(store_begin(st));
	OK(store_peer_add(st, &z, err));
	OK(store_peer_add(st, &a, err));
	OK(store_peer_get(st, "10.0.0.1@tcp", &got, err));
	ck_assert_str_eq(got.nid, "10.0.0.1@tcp");
	ck_assert_int_eq(got.mr, 1);
	ck_assert_uint_eq(got.nnids, 2);
	ck_assert_str_eq(got.nids[0], "10.0.0.3@tcp"); /* the order given, not sorted */
	ck_assert_str_eq(got.nids[1], "10.0.0.2@tcp");
	st_peer_clear(&got);

	OK(store_peer_nid_add(st, "10.0.0.1@tcp", "10.0.0.4@tcp", err));
	OK(store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.2@tcp", err));
	OK(store_peer_set(st, "10.0.0.1@tcp", LNE_PEER_A_MULTI_RAIL, 0, err));
	DUMP_EQ("peer 10.0.0.1@tcp mr=0 10.0.0.3@tcp 10.0.0.4@tcp\npeer 10.0.0.9@tcp mr=0\n");

	FAILS(-EINVAL, "primary NID of peer 10.0.0.1@tcp",
	      store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.1@tcp", err));
	FAILS(-ENOENT, "NID 10.0.0.2@tcp is not a NID of peer 10.0.0.1@tcp",
	      store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.2@tcp", err));
	FAILS(-ENOENT, "no peer 10.0.0.7@tcp",
	      store_peer_set(st, "10.0.0.7@tcp", LNE_PEER_A_MULTI_RAIL, 1, err));
	FAILS(-ENOENT, "no peer 10.0.0.7@tcp", store_peer_del(st, "10.0.0.7@tcp", err));
	FAILS(-ENOENT, "no peer 10.0.0.7@tcp", store_peer_get(st, "10.0.0.7@tcp", &got, err));

	/* Deleting a peer takes its NIDs with it: they are its row (schema 0006). */
	OK(store_peer_del(st, "10.0.0.1@tcp", err));
	OK(store_peer_add(st, &e, err));
	OK(store_peer_nid_add(st, "10.0.0.9@tcp", "10.0.0.1@tcp", err));
	commit("peers");
	DUMP_EQ("peer 10.0.0.5@tcp mr=1 10.0.0.3@tcp\npeer 10.0.0.9@tcp mr=0 10.0.0.1@tcp\n");
	RAW_EQ("SELECT group_concat(nid || ':' || nids, '|') FROM peer",
	       "10.0.0.5@tcp:10.0.0.3@tcp |10.0.0.9@tcp:10.0.0.1@tcp ");
	/* A row edited by hand: any run of spaces separates two NIDs, none is lost. */
	RAW_EQ("UPDATE peer SET nids = '  10.0.0.3@tcp   10.0.0.4@tcp' WHERE nid = '10.0.0.5@tcp' "
	       "RETURNING 'edited'",
	       "edited");
	DUMP_EQ("peer 10.0.0.5@tcp mr=1 10.0.0.3@tcp 10.0.0.4@tcp\npeer 10.0.0.9@tcp mr=0 "
		"10.0.0.1@tcp\n");
}
END_TEST

/*
 * A peer's NIDs are stored as the model (and Lustre) lists them: by net,
 * the primary's first, then the nets in the order they came, each net's in
 * the order added; a NID added goes after the last of its net, so export,
 * peer show and a restart agree (sanity-lnet 24).
 */
START_TEST(peer_nids_keep_the_models_order)
{
	const char *nids[] = {"13.13.13.13@o2ib", "15.17.1.5@tcp", "5@gni", "14.13.13.13@o2ib",
			      "11@gni"};
	struct st_peer p = {.nid = "24@gni", .mr = 1, .nnids = 5, .nids = nids};

	st = open_ok();
	OK(store_begin(st));
	OK(store_peer_add(st, &p, err));
	DUMP_EQ("peer 24@gni mr=1 5@gni 11@gni 13.13.13.13@o2ib 14.13.13.13@o2ib "
		"15.17.1.5@tcp\n");
	OK(store_peer_nid_add(st, "24@gni", "15.17.1.10@tcp", err));
	OK(store_peer_nid_add(st, "24@gni", "14.15.13.13@o2ib", err));
	OK(store_peer_nid_add(st, "24@gni", "12@gni", err));
	OK(store_peer_nid_add(st, "24@gni", "1.2.3.4@o2ib1", err));
	DUMP_EQ("peer 24@gni mr=1 5@gni 11@gni 12@gni 13.13.13.13@o2ib 14.13.13.13@o2ib "
		"14.15.13.13@o2ib 15.17.1.5@tcp 15.17.1.10@tcp 1.2.3.4@o2ib1\n");
	/* a net emptied and filled again comes last, as its peer net does */
	OK(store_peer_nid_del(st, "24@gni", "5@gni", err));
	OK(store_peer_nid_del(st, "24@gni", "11@gni", err));
	OK(store_peer_nid_del(st, "24@gni", "12@gni", err));
	OK(store_peer_nid_del(st, "24@gni", "15.17.1.5@tcp", err));
	OK(store_peer_nid_del(st, "24@gni", "15.17.1.10@tcp", err));
	OK(store_peer_nid_add(st, "24@gni", "15.17.1.20@tcp", err));
	OK(store_peer_nid_add(st, "24@gni", "30@gni", err));
	commit("peer");
	DUMP_EQ("peer 24@gni mr=1 30@gni 13.13.13.13@o2ib 14.13.13.13@o2ib 14.15.13.13@o2ib "
		"1.2.3.4@o2ib1 15.17.1.20@tcp\n");
}
END_TEST

/*
 * A locked peer (peer add --lock_prim, schema 0007): its row says so, the
 * locked ones are listed, its history says so, and an undo of its delete
 * brings it back locked.
 */
START_TEST(peer_locked_round_trip)
{
	const char *nids[] = {"10.0.0.2@tcp"};
	struct st_peer a = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 1, .nids = nids, .locked = 1},
		       b = {.nid = "10.0.0.5@tcp", .mr = 1, .nnids = 0, .nids = NULL, .locked = 0};
	struct st_peer got;
	struct st_hist h;
	uint64_t g0, g;
	char **locked;

	st = open_ok();
	OK(store_begin(st));
	OK(store_peer_add(st, &a, err));
	OK(store_peer_add(st, &b, err));
	g0 = commit("add");
	OK(store_peer_get(st, "10.0.0.1@tcp", &got, err));
	ck_assert_int_eq(got.locked, 1);
	st_peer_clear(&got);
	OK(store_peer_locked(st, &locked));
	ck_assert_str_eq(locked[0], "10.0.0.1@tcp");
	ck_assert_ptr_null(locked[1]);
	free(locked[0]);
	free(locked);
	OK(store_history_get(st, g0, &h, err));
	ck_assert_ptr_nonnull(strstr(h.change, "\"nids\":[\"10.0.0.2@tcp\"],\"locked\":1}"));
	st_hist_clear(&h);

	OK(store_begin(st));
	OK(store_peer_set(st, "10.0.0.5@tcp", LNE_PEER_A_LOCK_PRIM, 1, err));
	OK(store_peer_del(st, "10.0.0.1@tcp", err));
	g = commit("lock b, del a");
	DUMP_EQ("peer 10.0.0.5@tcp mr=1 locked\n");
	OK(store_begin(st));
	OK(store_undo_after(st, g0, err));
	commit("undo");
	DUMP_EQ("peer 10.0.0.1@tcp mr=1 locked 10.0.0.2@tcp\npeer 10.0.0.5@tcp mr=1\n");
	ck_assert_uint_gt(g, g0);
}
END_TEST

/*
 * Every peer setting of engine/peer-attrs.h has its column: stored off its
 * default it reads back so, store_peer_set() changes it alone, and an undo
 * puts it back from the history's record (the row's col is its key there).
 * A row without its schema migration fails here.
 */
START_TEST(peer_every_setting_round_trips)
{
	struct st_peer p = {.nid = "10.0.0.1@tcp"}, got;
	uint64_t g;
	int k, j;

	st = open_ok();
	for (k = 0; k < LNE_PEER_A__COUNT; k++) {
		for (j = 0; j < LNE_PEER_A__COUNT; j++)
			p.v[j] = (int)lne_peer_desc[j].def ^ (j == k);
		OK(store_begin(st));
		OK(store_peer_add(st, &p, err));
		g = commit("add");
		OK(store_peer_get(st, p.nid, &got, err));
		for (j = 0; j < LNE_PEER_A__COUNT; j++)
			ck_assert_int_eq(got.v[j], p.v[j]);
		st_peer_clear(&got);

		OK(store_begin(st));
		OK(store_peer_set(st, p.nid, k, (int)lne_peer_desc[k].def, err));
		commit("set");
		OK(store_peer_get(st, p.nid, &got, err));
		for (j = 0; j < LNE_PEER_A__COUNT; j++)
			ck_assert_int_eq(got.v[j], (int)lne_peer_desc[j].def);
		st_peer_clear(&got);

		OK(store_begin(st));
		OK(store_undo_after(st, g, err));
		commit("undo");
		OK(store_peer_get(st, p.nid, &got, err));
		ck_assert_msg(got.v[k] == p.v[k], "%s: the undo gave %d", lne_peer_desc[k].col,
			      got.v[k]);
		st_peer_clear(&got);

		OK(store_begin(st));
		OK(store_peer_del(st, p.nid, err));
		commit("del");
	}
	FAILS(-EINVAL, "no peer setting", store_peer_set(st, p.nid, LNE_PEER_A__COUNT, 1, err));
}
END_TEST

/*
 * store_peer_update() sets the settings the store alone keeps (the lock)
 * that are given off their default and differ, and counts them; Multi-Rail,
 * the model's, what is not given and what is given at its default stay.
 */
START_TEST(peer_update_sets_what_differs)
{
	struct st_peer p = {.nid = "10.0.0.1@tcp", .mr = 1}, got;
	int v[LNE_PEER_A__COUNT];
	size_t n = 0;

	st = open_ok();
	OK(store_begin(st));
	OK(store_peer_add(st, &p, err));
	v[LNE_PEER_A_MULTI_RAIL] = 0;
	v[LNE_PEER_A_LOCK_PRIM] = 1;
	OK(store_peer_update(st, p.nid, v, &n, err));
	ck_assert_uint_eq(n, 1);
	OK(store_peer_update(st, p.nid, v, &n, err));
	ck_assert_uint_eq(n, 1);
	v[LNE_PEER_A_LOCK_PRIM] = -1;
	OK(store_peer_update(st, p.nid, v, &n, err));
	ck_assert_uint_eq(n, 1);
	/* at its default: left, as --lock_prim absent never unlocks */
	v[LNE_PEER_A_LOCK_PRIM] = 0;
	OK(store_peer_update(st, p.nid, v, &n, err));
	ck_assert_uint_eq(n, 1);
	commit("update");
	OK(store_peer_get(st, p.nid, &got, err));
	ck_assert_int_eq(got.mr, 1);
	ck_assert_int_eq(got.locked, 1);
	st_peer_clear(&got);
}
END_TEST

/*
 * The history's record of a peer added (written by the store itself) is the
 * JSON SQLite's json_object() gives for that peer, and the next change's
 * "old", for plain NIDs and for text that JSON must escape.
 */
START_TEST(peer_add_json_is_sqlites)
{
	const char *two[] = {"10.0.0.2@tcp", "10.0.0.3@tcp"}, *odd[] = {"x\"y", "a\\b\tc\x01"};
	struct st_peer p[] = {{.nid = "10.0.0.1@tcp", .mr = 0, .nnids = 2, .nids = two},
			      {.nid = "10.0.0.9@tcp", .mr = 1, .nnids = 0, .nids = NULL},
			      {.nid = "q\"uote\n", .mr = 1, .nnids = 2, .nids = odd}};
	struct st_hist h;
	char *added, *old, *end, *q, *sqlites, args[128];
	size_t i, k;

	st = open_ok();
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		OK(store_begin(st));
		OK(store_peer_add(st, &p[i], err));
		OK(store_history_get(st, commit("add"), &h, err));
		added = strdup(strstr(h.change, "\"new\":") + 6);
		ck_assert_str_eq(added + strlen(added) - 2, "}]"); /* the op's and the list's */
		added[strlen(added) - 2] = '\0';
		st_hist_clear(&h);
		args[0] = '\0';
		for (k = 0; k < p[i].nnids; k++) {
			q = sqlite3_mprintf("%s%Q", k ? "," : "", p[i].nids[k]);
			strcat(args, q);
			sqlite3_free(q);
		}
		q = sqlite3_mprintf(
			"SELECT json_object('nid', %Q, 'mr', %d, 'nids', json_array(%s))", p[i].nid,
			p[i].mr, args);
		sqlites = raw_text(q);
		ck_assert_str_eq(added, sqlites);
		free(sqlites);
		sqlite3_free(q);
		OK(store_begin(st));
		OK(store_peer_set(st, p[i].nid, LNE_PEER_A_MULTI_RAIL, !p[i].mr, err));
		OK(store_history_get(st, commit("mr"), &h, err));
		old = strstr(h.change, "\"old\":") + 6;
		end = strstr(old, ",\"new\":");
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		ck_assert_str_eq(added, old);
		free(added);
		st_hist_clear(&h);
	}
}
END_TEST

START_TEST(route_and_global_round_trip)
{
	struct st_route r1 = ROUTE("tcp1", "10.0.0.1@tcp", 2),
			r2 = ROUTE("o2ib", "10.0.0.2@tcp", -1), got;
	int64_t v = 0;

	r1.priority = 1;
	st = open_ok();
	OK(store_begin(st));
	OK(store_route_add(st, &r1, err));
	OK(store_route_add(st, &r2, err));
	OK(store_route_get(st, "tcp1", "10.0.0.1@tcp", &got, err));
	ck_assert_str_eq(got.net, "tcp1");
	ck_assert_str_eq(got.gateway, "10.0.0.1@tcp");
	ck_assert_int_eq(got.hops, 2);
	ck_assert_int_eq(got.priority, 1);
	ck_assert_int_eq(got.sensitivity, ST_UNSET);
	st_route_clear(&got);
	r1.hops = 5;
	r1.sensitivity = 100;
	OK(store_route_update(st, &r1, err));
	DUMP_EQ("route o2ib 10.0.0.2@tcp -1 -1 -1\nroute tcp1 10.0.0.1@tcp 5 1 100\n");
	OK(store_route_del(st, "o2ib", "10.0.0.2@tcp", err));
	FAILS(-ENOENT, "no route to o2ib via 10.0.0.2@tcp",
	      store_route_get(st, "o2ib", "10.0.0.2@tcp", &got, err));
	FAILS(-ENOENT, "no route to o2ib via 10.0.0.2@tcp",
	      store_route_del(st, "o2ib", "10.0.0.2@tcp", err));

	OK(store_global_set(st, "max_interfaces", 200, err));
	OK(store_global_set(st, "discovery", 0, err));
	OK(store_global_set(st, "discovery", 1, err));
	OK(store_global_get(st, "discovery", &v, err));
	ck_assert_int_eq(v, 1);
	OK(store_global_set(st, "numa_range", 3, err));
	OK(store_global_unset(st, "numa_range", err));
	FAILS(-ENOENT, "no global numa_range", store_global_get(st, "numa_range", &v, err));
	FAILS(-ENOENT, "no global numa_range", store_global_unset(st, "numa_range", err));
	commit("routes");
	DUMP_EQ("route tcp1 10.0.0.1@tcp 5 1 100\nglobal discovery=1\nglobal max_interfaces=200\n");
}
END_TEST

START_TEST(rule_positions_stay_contiguous)
{
	struct st_rule r = {.pos = 1, .src = "tcp", .dst = "10.0.0.[1-9]@tcp", .priority = 3}, got;

	st = open_ok();
	OK(store_begin(st));
	ck_assert_int_eq(rule_add("a", -1), 0);
	ck_assert_int_eq(rule_add("b", 5), 1); /* past the end: appended */
	ck_assert_int_eq(rule_add("c", 0), 0);
	ck_assert_int_eq(rule_add("d", 1), 1);
	RULES_EQ("c d a b ");
	ck_assert_int_eq(rule_add("e", 4), 4); /* exactly the end */
	RULES_EQ("c d a b e ");
	OK(store_rule_del(st, 1, err));
	RULES_EQ("c a b e ");
	OK(store_rule_del(st, 0, err));
	RULES_EQ("a b e ");
	OK(store_rule_del(st, 2, err));
	RULES_EQ("a b ");
	FAILS(-ENOENT, "no rule 2", store_rule_del(st, 2, err));
	FAILS(-ENOENT, "no rule 7", store_rule_move(st, 7, 0, err));

	ck_assert_int_eq(rule_add("c", -1), 2);
	OK(store_rule_move(st, 0, 2, err));
	RULES_EQ("b c a ");
	OK(store_rule_move(st, 2, 0, err));
	RULES_EQ("a b c ");
	OK(store_rule_move(st, 1, 99, err));
	RULES_EQ("a c b ");
	OK(store_rule_move(st, 1, 1, err));
	RULES_EQ("a c b ");

	OK(store_rule_update(st, &r, err));
	OK(store_rule_get(st, 1, &got, err));
	ck_assert_int_eq(got.pos, 1);
	ck_assert_str_eq(got.src, "tcp");
	ck_assert_str_eq(got.dst, "10.0.0.[1-9]@tcp");
	ck_assert_ptr_null(got.rte);
	ck_assert_int_eq(got.priority, 3);
	st_rule_clear(&got);
	FAILS(-ENOENT, "no rule 3", store_rule_get(st, 3, &got, err));

	OK(store_rule_del_all(st, err));
	RULES_EQ("");
	commit("rules");
	RAW_EQ("SELECT count(*) FROM rule", "0");
}
END_TEST

START_TEST(refusals_name_the_object_and_change_nothing)
{
	const char *twice[] = {"10.0.0.8@tcp", "10.0.0.8@tcp"}, *spaced[] = {"10.0.0.8@tcp x"},
		   *nids[] = {"10.0.0.2@tcp"}, *many[20];
	char many_s[20][32];
	struct st_peer lots = {.nid = "10.0.0.7@tcp", .mr = 1, .nnids = 20, .nids = many};
	int i;
	struct st_peer a = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 1, .nids = nids},
		       y = {.nid = "10.0.0.7@tcp", .mr = 1, .nnids = 2, .nids = twice},
		       sp = {.nid = "10.0.0.7@tcp", .mr = 1, .nnids = 1, .nids = spaced},
		       bad = {.nid = "10.0.0.6@tcp", .mr = 2, .nnids = 0, .nids = NULL},
		       ok = {.nid = "10.0.0.8@tcp", .mr = 0, .nnids = 0, .nids = NULL};
	struct st_ni eth0 = NI("tcp", "eth0", NULL), pat = NI("tcp", NULL, "10.*"),
		     pat2 = NI("tcp", "eth1", "10.*"), none = NI("tcp", NULL, NULL),
		     longif = NI("tcp", "abcdefghijklmnop", NULL), empty = NI("", "eth0", NULL),
		     neg = NI("tcp", "eth2", NULL);
	struct st_route r = ROUTE("tcp1", "10.0.0.1@tcp", 1),
			hops0 = ROUTE("tcp1", "10.0.0.9@tcp", 0),
			hops256 = ROUTE("tcp1", "10.0.0.9@tcp", 256),
			prio = ROUTE("tcp1", "10.0.0.9@tcp", 1);
	struct st_rule rule = {.pos = -1, .src = "tcp", .priority = 4294967295LL};
	char *summary, *change;
	uint64_t gen;

	neg.peer_credits = -5;
	prio.priority = 4294967295LL;
	st = open_ok();
	OK(store_begin(st));
	OK(store_ni_add(st, &eth0, err));
	OK(store_ni_add(st, &pat, err));
	FAILS(-EEXIST, "NI tcp eth0 exists already", store_ni_add(st, &eth0, err));
	/* Interfaces may share a pattern; a pattern alone places one NI per net. */
	OK(store_ni_add(st, &pat2, err));
	FAILS(-EEXIST, "NI tcp 10.* exists already", store_ni_add(st, &pat, err));
	FAILS(-EINVAL, "an NI needs an interface or an address pattern",
	      store_ni_add(st, &none, err));
	FAILS(-EINVAL, "an interface name has 1 to 15 characters", store_ni_add(st, &longif, err));
	FAILS(-EINVAL, "the net must not be empty", store_ni_add(st, &empty, err));
	FAILS(-EINVAL, "NI tcp eth2: peer_credits must be 0 to 4294967295",
	      store_ni_add(st, &neg, err));

	OK(store_peer_add(st, &a, err));
	FAILS(-EEXIST, "peer 10.0.0.1@tcp exists already", store_peer_add(st, &a, err));
	/* A peer's own NIDs are the store's to check; that two peers share none is
	 * lnetd's model's (and lnetd_restore()'s). */
	FAILS(-EEXIST, "NID 10.0.0.8@tcp belongs to peer 10.0.0.7@tcp already",
	      store_peer_add(st, &y, err));
	FAILS(-EINVAL, "peer 10.0.0.7@tcp: NID \"10.0.0.8@tcp x\" is empty or holds a space",
	      store_peer_add(st, &sp, err));
	/* More than a few NIDs are sorted to find one given twice. */
	for (i = 0; i < 20; i++) {
		snprintf(many_s[i], sizeof(many_s[i]), "10.0.1.%d@tcp", i == 19 ? 3 : i);
		many[i] = many_s[i];
	}
	FAILS(-EEXIST, "NID 10.0.1.3@tcp belongs to peer 10.0.0.7@tcp already",
	      store_peer_add(st, &lots, err));
	FAILS(-EEXIST, "NID 10.0.0.2@tcp belongs to peer 10.0.0.1@tcp already",
	      store_peer_nid_add(st, "10.0.0.1@tcp", "10.0.0.2@tcp", err));
	FAILS(-EINVAL, "peer 10.0.0.6@tcp: mr must be 0 or 1", store_peer_add(st, &bad, err));
	/* A NID for a peer that is not there: the foreign key, named. */
	FAILS(-ENOENT, "no peer 10.9.9.9@tcp",
	      store_peer_nid_add(st, "10.9.9.9@tcp", "10.9.9.10@tcp", err));
	/* The refused peers left nothing: their NIDs are free. */
	OK(store_peer_add(st, &ok, err));

	OK(store_route_add(st, &r, err));
	FAILS(-EEXIST, "route to tcp1 via 10.0.0.1@tcp exists already",
	      store_route_add(st, &r, err));
	FAILS(-EINVAL, "route to tcp1 via 10.0.0.9@tcp: hops must be 1 to 255",
	      store_route_add(st, &hops0, err));
	FAILS(-EINVAL, "hops must be 1 to 255", store_route_add(st, &hops256, err));
	FAILS(-EINVAL, "priority must be 0 to 4294967294", store_route_add(st, &prio, err));
	FAILS(-EINVAL, "a global needs a name", store_global_set(st, "", 1, err));
	FAILS(-EINVAL, "rule 0: priority must be 0 to 4294967294",
	      store_rule_add(st, &rule, NULL, err));

	/* The transaction goes on, and records only what was done. */
	ck_assert_int_eq(store_pending(st, &summary, &change), 0);
	ck_assert_str_eq(summary,
			 "+ni tcp eth0\n+ni tcp 10.*\n+ni tcp eth1 10.*\n+peer 10.0.0.1@tcp\n"
			 "+peer 10.0.0.8@tcp\n+route tcp1 via 10.0.0.1@tcp");
	free(summary);
	free(change);
	gen = commit("refusals");
	ck_assert_uint_eq(gen, 1);
	DUMP_EQ("ni tcp eth0 - - -1 -1 -1 -1\n"
		"ni tcp - 10.* - -1 -1 -1 -1\n"
		"ni tcp eth1 10.* - -1 -1 -1 -1\n"
		"peer 10.0.0.1@tcp mr=1 10.0.0.2@tcp\n"
		"peer 10.0.0.8@tcp mr=0\n"
		"route tcp1 10.0.0.1@tcp 1 -1 -1\n");
	RAW_EQ("SELECT count(*) FROM peer", "2");
}
END_TEST

void store_objects_tests(TCase *tc)
{
	tcase_add_test(tc, ni_round_trip);
	tcase_add_test(tc, peer_round_trip);
	tcase_add_test(tc, peer_nids_keep_the_models_order);
	tcase_add_test(tc, peer_locked_round_trip);
	tcase_add_test(tc, peer_every_setting_round_trips);
	tcase_add_test(tc, peer_update_sets_what_differs);
	tcase_add_test(tc, peer_add_json_is_sqlites);
	tcase_add_test(tc, route_and_global_round_trip);
	tcase_add_test(tc, rule_positions_stay_contiguous);
	tcase_add_test(tc, refusals_name_the_object_and_change_nothing);
}
