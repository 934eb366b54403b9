// SPDX-License-Identifier: GPL-2.0
/*
 * The store's transactions and history: all or nothing, every change
 * recorded, undo to any generation, replacing the state, and crash safety
 * (a writer killed anywhere).  Part of the store suite (test-store.c),
 * with its fixture and helpers.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test-store.h"

/* --- transactions and history ------------------------------------------------- */

START_TEST(transactions_all_or_nothing)
{
	struct st_ni ni = NI("tcp", "eth0", NULL);
	struct st_peer p = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 0, .nids = NULL};
	char *summary, *change;

	st = open_ok();
	FAILS(-EINVAL, "transaction", store_ni_add(st, &ni, err));
	FAILS(-EINVAL, "no transaction", store_commit(st, NULL, NULL, err));
	ck_assert_int_eq(store_rollback(st), -EINVAL);

	OK(store_begin(st));
	ck_assert_int_eq(store_begin(st), -EBUSY);
	OK(store_ni_add(st, &ni, err));
	OK(store_peer_add(st, &p, err));
	OK(store_global_set(st, "discovery", 0, err));
	ck_assert_int_eq(rule_add("tcp", -1), 0);
	ck_assert_int_eq(store_pending(st, &summary, &change), 0);
	ck_assert_str_eq(summary, "+ni tcp eth0\n+peer 10.0.0.1@tcp\n+global discovery\n+rule 0");
	free(summary);
	free(change);
	OK(store_rollback(st));
	DUMP_EQ("");
	ck_assert_uint_eq(generation(), 0);
	ck_assert_int_eq(store_pending(st, &summary, &change), 0);
	ck_assert_str_eq(summary, "");
	ck_assert_str_eq(change, "[]");
	free(summary);
	free(change);

	OK(store_begin(st));
	OK(store_ni_add(st, &ni, err));
	OK(store_peer_add(st, &p, err));
	ck_assert_uint_eq(commit("add"), 1);
	OK(store_begin(st)); /* nothing changed: no history entry */
	ck_assert_uint_eq(commit("nothing"), 1);
	store_close(st);

	st = open_ok();
	DUMP_EQ("ni tcp eth0 - - -1 -1 -1 -1\npeer 10.0.0.1@tcp mr=1\n");
	ck_assert_uint_eq(generation(), 1);
	/* Closing with a transaction open rolls it back. */
	OK(store_begin(st));
	OK(store_peer_del(st, "10.0.0.1@tcp", err));
	store_close(st);
	st = open_ok();
	DUMP_EQ("ni tcp eth0 - - -1 -1 -1 -1\npeer 10.0.0.1@tcp mr=1\n");
}
END_TEST

/*
 * store_begin_whole(): no savepoint per change, so a refused change may
 * leave part of itself: the commit then refuses everything, the changes
 * before the refused one too.
 */
START_TEST(whole_transaction_refused_change_keeps_nothing)
{
	const char *nids2[] = {"10.0.0.2@tcp"}, *own[] = {"10.0.0.3@tcp"};
	struct st_peer p1 = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 1, .nids = nids2};
	struct st_peer p3 = {.nid = "10.0.0.3@tcp", .mr = 1, .nnids = 1, .nids = own};

	st = open_ok();
	RAW_EQ("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'", "0");
	OK(store_begin_whole(st));
	OK(store_peer_add(st, &p1, err));
	FAILS(-EEXIST, "peer 10.0.0.1@tcp exists already", store_peer_add(st, &p1, err));
	FAILS(-EINVAL, "nothing is kept", store_commit(st, NULL, NULL, err));
	DUMP_EQ("");
	ck_assert_uint_eq(generation(), 0);

	/* A peer's own NIDs are checked by the store: its primary is not one of the others. */
	OK(store_begin_whole(st));
	OK(store_peer_add(st, &p1, err));
	ck_assert_uint_eq(commit("whole"), 1);
	OK(store_begin_whole(st));
	FAILS(-EEXIST, "NID 10.0.0.3@tcp belongs to peer 10.0.0.3@tcp already",
	      store_peer_add(st, &p3, err));
	OK(store_rollback(st));

	/* A plain transaction after it has its savepoints again: a refusal stands alone. */
	OK(store_begin(st));
	FAILS(-EEXIST, "peer 10.0.0.1@tcp exists already", store_peer_add(st, &p1, err));
	OK(store_peer_add(
		st, &(struct st_peer){.nid = "10.0.0.9@tcp", .mr = 0, .nnids = 0, .nids = NULL},
		err));
	ck_assert_uint_eq(commit("plain"), 2);
	DUMP_EQ("peer 10.0.0.1@tcp mr=1 10.0.0.2@tcp\npeer 10.0.0.9@tcp mr=0\n");
}
END_TEST

/*
 * store_begin_dry(): a dry run's peers are summarised as a change would
 * be, no row is written (the NIs are, till the rollback), and it is
 * never committed.
 */
START_TEST(dry_run_writes_no_peer)
{
	const char *nids[] = {"10.0.0.2@tcp"};
	struct st_peer p1 = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 1, .nids = nids},
		       p5 = {.nid = "10.0.0.5@tcp", .mr = 0, .nnids = 0, .nids = NULL};
	struct st_ni eth0 = NI("tcp", "eth0", NULL);
	char *summary = NULL, *change = NULL;

	st = open_ok();
	OK(store_begin(st));
	OK(store_peer_add(st, &p5, err));
	commit("before");
	OK(store_begin_dry(st));
	OK(store_ni_add(st, &eth0, err));
	OK(store_peer_add(st, &p1, err));
	OK(store_peer_nid_add(st, "10.0.0.1@tcp", "10.0.0.3@tcp", err));
	OK(store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.3@tcp", err));
	OK(store_peer_del(st, "10.0.0.5@tcp", err));
	/* In the transaction: the NI's row, and the peers as they were. */
	DUMP_EQ("ni tcp eth0 - - -1 -1 -1 -1\npeer 10.0.0.5@tcp mr=0\n");
	OK(store_pending(st, &summary, &change));
	ck_assert_str_eq(summary, "+ni tcp eth0\n+peer 10.0.0.1@tcp\n"
				  "~peer 10.0.0.1@tcp +nid 10.0.0.3@tcp\n"
				  "~peer 10.0.0.1@tcp -nid 10.0.0.3@tcp\n-peer 10.0.0.5@tcp");
	free(summary);
	free(change);
	/* A commit refuses it, and rolls it back as it does any refused commit. */
	FAILS(-EINVAL, "a dry run is never kept", store_commit(st, NULL, NULL, err));
	ck_assert_uint_eq(generation(), 1);
	DUMP_EQ("peer 10.0.0.5@tcp mr=0\n");

	/* The next transaction writes its peers again. */
	OK(store_begin_whole(st));
	OK(store_peer_add(st, &p1, err));
	ck_assert_uint_eq(commit("after"), 2);
	DUMP_EQ("peer 10.0.0.1@tcp mr=1 10.0.0.2@tcp\npeer 10.0.0.5@tcp mr=0\n");
}
END_TEST

struct hist_seen {
	uint64_t gen[8];
	int n;
};

static int hist_cb(const struct st_hist *h, void *data)
{
	struct hist_seen *seen = data;

	ck_assert_ptr_null(h->change);
	ck_assert_ptr_nonnull(h->summary);
	seen->gen[seen->n++] = h->gen;
	return 0;
}

static int hist_stop(const struct st_hist *h, void *data)
{
	(void)h;
	(void)data;
	return -ECANCELED;
}

START_TEST(history_records_every_change)
{
	struct st_ni ni = NI("tcp", "eth0", NULL);
	const char *nids[] = {"10.0.0.2@tcp"};
	struct st_peer p = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 1, .nids = nids};
	struct st_rule r = {.pos = 0, .src = "tcp", .dst = "o2ib", .priority = 1};
	struct hist_seen seen = {0};
	time_t t0 = time(NULL), t1;
	struct st_hist h;

	st = open_ok();
	OK(store_begin(st));
	OK(store_ni_add(st, &ni, err));
	ck_assert_uint_eq(commit("lnetctl net add --net tcp --if eth0"), 1);

	OK(store_begin(st));
	OK(store_peer_add(st, &p, err));
	OK(store_peer_nid_add(st, "10.0.0.1@tcp", "10.0.0.3@tcp", err));
	OK(store_global_set(st, "discovery", 1, err));
	ck_assert_uint_eq(commit("lnetctl import"), 2);

	OK(store_begin(st));
	ni.peer_credits = 8;
	OK(store_ni_update(st, &ni, err));
	OK(store_peer_del(st, "10.0.0.1@tcp", err));
	OK(store_global_set(st, "discovery", 0, err));
	OK(store_rule_add(st, &r, NULL, err));
	OK(store_rule_del(st, 0, err));
	ck_assert_uint_eq(commit("several"), 3);
	t1 = time(NULL);

	ck_assert_int_eq(store_history_list(st, 0, hist_cb, &seen), 0);
	ck_assert_int_eq(seen.n, 3);
	ck_assert_uint_eq(seen.gen[0], 3); /* newest first */
	ck_assert_uint_eq(seen.gen[1], 2);
	ck_assert_uint_eq(seen.gen[2], 1);
	seen.n = 0;
	ck_assert_int_eq(store_history_list(st, 2, hist_cb, &seen), 0);
	ck_assert_int_eq(seen.n, 2);
	ck_assert_uint_eq(seen.gen[1], 2);
	ck_assert_int_eq(store_history_list(st, 0, hist_stop, NULL), -ECANCELED);

	OK(store_history_get(st, 1, &h, err));
	ck_assert_uint_eq(h.gen, 1);
	ck_assert_int_ge(h.time, t0);
	ck_assert_int_le(h.time, t1);
	ck_assert_int_eq(h.uid, 0);
	ck_assert_int_eq(h.pid, 42);
	ck_assert_str_eq(h.command, "lnetctl net add --net tcp --if eth0");
	ck_assert_str_eq(h.summary, "+ni tcp eth0");
	ck_assert_str_eq(
		h.change,
		"[{\"op\":\"add\",\"obj\":\"ni\",\"new\":{\"id\":1,\"net\":\"tcp\",\"ifname\":\"eth0\","
		"\"pattern\":null,\"cpts\":null,\"peer_timeout\":null,\"peer_credits\":null,"
		"\"peer_buffer_credits\":null,\"credits\":null,\"conns_per_peer\":null,\"tos\":null,\"timeout\":null}}]");
	st_hist_clear(&h);

	OK(store_history_get(st, 2, &h, err));
	ck_assert_str_eq(
		h.summary,
		"+peer 10.0.0.1@tcp\n~peer 10.0.0.1@tcp +nid 10.0.0.3@tcp\n+global discovery");
	ck_assert_str_eq(
		h.change,
		"[{\"op\":\"add\",\"obj\":\"peer\",\"new\":{\"nid\":\"10.0.0.1@tcp\",\"mr\":1,"
		"\"nids\":[\"10.0.0.2@tcp\"]}},\n"
		"{\"op\":\"mod\",\"obj\":\"peer\",\"old\":{\"nid\":\"10.0.0.1@tcp\",\"mr\":1,"
		"\"nids\":[\"10.0.0.2@tcp\"]},\"new\":{\"nid\":\"10.0.0.1@tcp\",\"mr\":1,"
		"\"nids\":[\"10.0.0.2@tcp\",\"10.0.0.3@tcp\"]}},\n"
		"{\"op\":\"add\",\"obj\":\"global\",\"new\":{\"name\":\"discovery\",\"value\":1}}]");
	st_hist_clear(&h);

	OK(store_history_get(st, 3, &h, err));
	ck_assert_str_eq(h.summary, "~ni tcp eth0\n-peer 10.0.0.1@tcp\n~global discovery\n"
				    "+rule 0\n-rule 0");
	ck_assert_str_eq(
		h.change,
		"[{\"op\":\"mod\",\"obj\":\"ni\",\"old\":{\"id\":1,\"net\":\"tcp\",\"ifname\":\"eth0\","
		"\"pattern\":null,\"cpts\":null,\"peer_timeout\":null,\"peer_credits\":null,"
		"\"peer_buffer_credits\":null,\"credits\":null,\"conns_per_peer\":null,\"tos\":null,\"timeout\":null},\"new\":{\"id\":1,\"net\":\"tcp\","
		"\"ifname\":\"eth0\",\"pattern\":null,\"cpts\":null,\"peer_timeout\":null,"
		"\"peer_credits\":8,\"peer_buffer_credits\":null,\"credits\":null,\"conns_per_peer\":null,\"tos\":null,\"timeout\":null}},\n"
		"{\"op\":\"del\",\"obj\":\"peer\",\"old\":{\"nid\":\"10.0.0.1@tcp\",\"mr\":1,"
		"\"nids\":[\"10.0.0.2@tcp\",\"10.0.0.3@tcp\"]}},\n"
		"{\"op\":\"mod\",\"obj\":\"global\",\"old\":{\"name\":\"discovery\",\"value\":1},"
		"\"new\":{\"name\":\"discovery\",\"value\":0}},\n"
		"{\"op\":\"add\",\"obj\":\"rule\",\"new\":{\"pos\":0,\"src\":\"tcp\",\"dst\":"
		"\"o2ib\",\"rte\":null,\"priority\":1}},\n"
		"{\"op\":\"del\",\"obj\":\"rule\",\"old\":{\"pos\":0,\"src\":\"tcp\",\"dst\":"
		"\"o2ib\",\"rte\":null,\"priority\":1}}]");
	st_hist_clear(&h);
	FAILS(-ENOENT, "no generation 4", store_history_get(st, 4, &h, err));

	/* A rolled-back transaction leaves no history. */
	OK(store_begin(st));
	OK(store_global_set(st, "discovery", 1, err));
	OK(store_rollback(st));
	ck_assert_uint_eq(generation(), 3);
	RAW_EQ("SELECT count(*) FROM history", "3");
}
END_TEST

/* Fill the store with one of everything, in a transaction the caller ends. */
static void fill(void)
{
	const char *n1[] = {"10.0.0.2@tcp", "10.0.1.2@tcp1"}, *n2[] = {"10.0.0.4@tcp"};
	struct st_peer p1 = {.nid = "10.0.0.1@tcp", .mr = 1, .nnids = 2, .nids = n1},
		       p2 = {.nid = "10.0.0.3@tcp", .mr = 0, .nnids = 1, .nids = n2};
	struct st_ni a = NI("tcp", "eth0", NULL), b = NI("tcp1", NULL, "10.0.1.*");
	struct st_route r = ROUTE("o2ib", "10.0.0.1@tcp", 2);

	OK(store_ni_add(st, &a, err));
	OK(store_ni_add(st, &b, err));
	OK(store_peer_add(st, &p1, err));
	OK(store_peer_add(st, &p2, err));
	OK(store_route_add(st, &r, err));
	OK(store_global_set(st, "discovery", 0, err));
	ck_assert_int_eq(rule_add("tcp", -1), 0);
	ck_assert_int_eq(rule_add("tcp1", -1), 1);
}

/* Every kind of change, undone: the state of each generation comes back exactly. */
START_TEST(undo_returns_to_every_generation)
{
	const char *more[] = {"10.0.0.9@tcp"};
	struct st_ni upd = NI("tcp", "eth0", NULL);
	struct st_route r2 = ROUTE("o2ib", "10.0.0.1@tcp", 7);
#define TBF(svc, rt, rd, r)                                                                       \
	{                                                                                         \
		.service = svc, .reg_type = rt, .reg_depth = rd, .hp_type = "nid", .hp_depth = 3, \
		.rules = r                                                                        \
	}
	struct st_tbf t1 = TBF("ost_io", "nid", 3, "reg start a nid={10.0.0.1@tcp} rate=5"),
		      t2 = TBF("ost_io", "nid+opcode", 5, ""),
		      t3 = TBF("mds", "uid", 3, "hp change default rate=7");
	char *at[6];
	uint64_t g[6];
	int i;

	st = open_ok();
	at[0] = dump();
	g[0] = generation();
	OK(store_begin(st));
	fill();
	g[1] = commit("fill");
	at[1] = dump();
	OK(store_begin(st));
	OK(store_peer_nid_add(st, "10.0.0.1@tcp", more[0], err));
	OK(store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.2@tcp", err));
	OK(store_peer_set(st, "10.0.0.3@tcp", LNE_PEER_A_MULTI_RAIL, 1, err));
	upd.credits = 99;
	OK(store_ni_update(st, &upd, err));
	OK(store_route_update(st, &r2, err));
	OK(store_global_set(st, "discovery", 1, err));
	OK(store_global_set(st, "max_intf", 8, err));
	ck_assert_int_eq(rule_add("o2ib", 0), 0);
	OK(store_tbf_set(st, &t1, err));
	OK(store_tbf_set(st, &t3, err));
	g[2] = commit("modify");
	at[2] = dump();
	OK(store_begin(st));
	OK(store_rule_del(st, 1, err));
	OK(store_peer_del(st, "10.0.0.3@tcp", err));
	OK(store_ni_del(st, &upd, err));
	OK(store_route_del(st, "o2ib", "10.0.0.1@tcp", err));
	OK(store_global_unset(st, "discovery", err));
	OK(store_tbf_set(st, &t2, err));
	OK(store_tbf_del(st, "mds", err));
	g[3] = commit("delete");
	at[3] = dump();
	for (i = 2; i >= 0; i--) {
		char *now;

		OK(store_begin(st));
		OK(store_undo_after(st, g[i], err));
		commit("rollback");
		now = dump();
		ck_assert_str_eq(now, at[i]);
		free(now);
	}
	/* The rollbacks are changes too: undoing the last one gives generation 1's state back. */
	g[4] = generation();
	OK(store_begin(st));
	OK(store_undo_after(st, g[4] - 1, err));
	commit("undo the rollback");
	at[4] = dump();
	ck_assert_str_eq(at[4], at[1]);
	OK(store_begin(st));
	FAILS(-ENOENT, "is in the future", store_undo_after(st, g[4] + 5, err));
	OK(store_rollback(st));
	for (i = 0; i < 5; i++)
		free(at[i]);
}
END_TEST

/* Commit one change: the global "marker" set to @v. */
static uint64_t mark(int64_t v)
{
	OK(store_begin(st));
	OK(store_global_set(st, "marker", v, err));
	return commit("lnetctl global set marker");
}

START_TEST(history_is_bounded)
{
	char wal[PATH_MAX + 8];
	struct stat sb;
	uint64_t g, oldest;
	int64_t i;

	st = open_ok();
	store_set_retention(st, 3, 0);
	for (i = 1; i <= 6; i++)
		ck_assert_uint_eq(mark(i), (uint64_t)i);
	/* The count: the newest three entries, pruned with the change that passed it. */
	RAW_EQ("SELECT group_concat(gen, ' ') FROM (SELECT gen FROM history ORDER BY gen)",
	       "4 5 6");
	ck_assert_int_eq(store_history_oldest(st, &oldest), 0);
	ck_assert_uint_eq(oldest, 3);

	/* Past the horizon: refused, naming the oldest generation kept; nothing changes. */
	OK(store_begin(st));
	FAILS(-ENOENT, "the oldest generation kept is 3", store_undo_after(st, 2, err));
	OK(store_rollback(st));
	DUMP_EQ("global marker=6\n");
	/* At the horizon: the state of generation 3. */
	OK(store_begin(st));
	OK(store_undo_after(st, 3, err));
	ck_assert_uint_eq(commit("rollback 3"), 7);
	DUMP_EQ("global marker=3\n");

	/* The age: entries older than the bound go with the next change, never the newest. */
	store_set_retention(st, 0, 30);
	RAW_EQ("UPDATE history SET time = time - 31 * 86400 RETURNING 'aged'", "aged");
	g = mark(8);
	RAW_EQ("SELECT group_concat(gen, ' ') FROM history", "8");
	ck_assert_uint_eq(g, 8);
	RAW_EQ("UPDATE history SET time = time - 31 * 86400 RETURNING 'aged'", "aged");
	OK(store_begin(st));
	ck_assert_uint_eq(commit("nothing changed"), 8);
	RAW_EQ("SELECT count(*) FROM history", "1");
	g = mark(9);
	RAW_EQ("SELECT group_concat(gen, ' ') FROM history", "9");
	OK(store_begin(st));
	FAILS(-ENOENT, "the oldest generation kept is 8 (it keeps the last 30 days)",
	      store_undo_after(st, 7, err));
	OK(store_rollback(st));

	/* No bound: nothing is pruned any more. */
	store_set_retention(st, 0, 0);
	for (i = 10; i <= 12; i++)
		mark(i);
	RAW_EQ("SELECT count(*) FROM history", "4");

	/*
	 * A big change leaves a WAL past SQLite's limit; the change that prunes
	 * it from the history copies the WAL back and truncates it.
	 */
	OK(store_begin(st));
	for (i = 0; i < 6000; i++) {
		char nid[32];
		struct st_peer p = {.nid = nid, .mr = 1, .nnids = 0, .nids = NULL};

		snprintf(nid, sizeof(nid), "10.%d.%d.1@tcp", (int)(i / 250), (int)(i % 250));
		OK(store_peer_add(st, &p, err));
	}
	ck_assert_uint_eq(commit("lnetctl import"), 13);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	ck_assert_int_eq(stat(wal, &sb), 0);
	ck_assert_int_gt(sb.st_size, 1 << 20);
	store_set_retention(st, 1, 0);
	mark(14);
	RAW_EQ("SELECT group_concat(gen, ' ') FROM history", "14");
	ck_assert_int_eq(stat(wal, &sb), 0);
	ck_assert_int_eq(sb.st_size, 0);
}
END_TEST

/*
 * NIs list in the order they were first added, as Lustre lists them: across
 * a reopen, a change that puts an NI back under its id (net set: a delete
 * and an add), an undo and a replace by an earlier state.
 */
START_TEST(nis_keep_the_order_they_were_added)
{
	static const char *const added = "ni tcp1 ethB - - -1 -1 -1 -1\n"
					 "ni tcp ethA - - -1 -1 -1 -1\n"
					 "ni tcp1 ethC - - -1 -1 -1 -1\n";
	struct st_ni b = NI("tcp1", "ethB", NULL), a = NI("tcp", "ethA", NULL),
		     c = NI("tcp1", "ethC", NULL), got;
	struct st_state s;
	uint64_t gen;

	st = open_ok();
	OK(store_begin(st));
	OK(store_ni_add(st, &b, err));
	OK(store_ni_add(st, &a, err));
	OK(store_ni_add(st, &c, err));
	gen = commit("add");
	DUMP_EQ(added);
	store_close(st);
	st = open_ok();
	DUMP_EQ(added);
	ck_assert_int_eq(store_state_get(st, &s), 0);

	OK(store_begin(st));
	OK(store_ni_get(st, &b, &got, err));
	OK(store_ni_del(st, &b, err));
	got.peer_credits = 8;
	OK(store_ni_add(st, &got, err));
	st_ni_clear(&got);
	commit("net set");
	DUMP_EQ("ni tcp1 ethB - - -1 8 -1 -1\nni tcp ethA - - -1 -1 -1 -1\n"
		"ni tcp1 ethC - - -1 -1 -1 -1\n");
	OK(store_begin(st));
	OK(store_ni_del(st, &b, err));
	OK(store_ni_del(st, &a, err));
	OK(store_ni_add(st, &a, err));
	commit("del, add");
	DUMP_EQ("ni tcp1 ethC - - -1 -1 -1 -1\nni tcp ethA - - -1 -1 -1 -1\n");

	OK(store_begin(st));
	OK(store_undo_after(st, gen, err));
	commit("rollback");
	DUMP_EQ(added);
	OK(store_begin(st));
	OK(store_ni_del(st, &b, err));
	OK(store_ni_add(st, &b, err));
	commit("del, add");
	DUMP_EQ("ni tcp ethA - - -1 -1 -1 -1\nni tcp1 ethC - - -1 -1 -1 -1\n"
		"ni tcp1 ethB - - -1 -1 -1 -1\n");
	OK(store_begin(st));
	OK(store_state_replace(st, &s, err));
	commit("replace");
	DUMP_EQ(added);
	st_state_clear(&s);
}
END_TEST

START_TEST(state_replace_records_only_differences)
{
	struct st_ni eth1 = NI("tcp", "eth1", NULL),
		     dup[2] = {NI("tcp", "eth9", NULL), NI("tcp", "eth9", NULL)};
	struct st_state s1, s2, bad = {.ni = dup, .n_ni = 2}, empty = {0};
	char *d1, *d2;
	struct st_hist h;

	st = open_ok();
	OK(store_begin(st));
	fill();
	commit("fill");
	ck_assert_int_eq(store_state_get(st, &s1), 0);
	ck_assert_uint_eq(s1.n_ni, 2);
	ck_assert_uint_eq(s1.n_peer, 2);
	ck_assert_uint_eq(s1.peer[0].nnids, 2);
	ck_assert_uint_eq(s1.n_rule, 2);
	d1 = dump();

	/* A second state, made by hand in a transaction that is thrown away. */
	OK(store_begin(st));
	OK(store_ni_add(st, &eth1, err));
	OK(store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.1.2@tcp1", err));
	OK(store_global_set(st, "discovery", 1, err));
	OK(store_rule_del(st, 1, err));
	ck_assert_int_eq(rule_add("o2ib", -1), 1);
	ck_assert_int_eq(rule_add("o2ib1", -1), 2);
	ck_assert_int_eq(store_state_get(st, &s2), 0);
	d2 = dump();
	OK(store_rollback(st));

	OK(store_begin(st));
	OK(store_state_replace(st, &s2, err));
	DUMP_EQ(d2);
	ck_assert_uint_eq(commit("lnetctl import"), 2);
	OK(store_history_get(st, 2, &h, err));
	ck_assert_str_eq(h.summary, "-peer 10.0.0.1@tcp\n-global discovery\n+ni tcp eth1\n"
				    "+peer 10.0.0.1@tcp\n+global discovery\n"
				    "-rule 1\n+rule 1\n+rule 2");
	st_hist_clear(&h);

	OK(store_begin(st));
	OK(store_state_replace(st, &s1, err));
	DUMP_EQ(d1);
	ck_assert_uint_eq(commit("rollback 1"), 3);
	OK(store_begin(st));
	OK(store_state_replace(st, &s1, err)); /* the same: nothing to record */
	ck_assert_uint_eq(commit("again"), 3);

	/* A refused replace changes nothing; the transaction goes on. */
	OK(store_begin(st));
	FAILS(-EEXIST, "NI tcp eth9 exists already", store_state_replace(st, &bad, err));
	DUMP_EQ(d1);
	OK(store_state_replace(st, &empty, err));
	DUMP_EQ("");
	ck_assert_uint_eq(commit("wipe"), 4);

	st_state_clear(&s1);
	st_state_clear(&s2);
	free(d1);
	free(d2);
}
END_TEST

/* --- crash safety --------------------------------------------------------------- */

#define BATCH 300

enum crash {
	BEFORE_COMMIT, /* killed with a full transaction not committed */
	AFTER_COMMIT,  /* killed right after a commit returned */
	ANYWHERE,      /* batches committed in a loop, killed at a random point */
};

static int add_batch(struct store *s, uint64_t b)
{
	char nid[32];
	struct st_peer p = {.nid = nid, .mr = 1, .nnids = 0, .nids = NULL};
	int i, rc = 0;

	for (i = 0; !rc && i < BATCH; i++) {
		snprintf(nid, sizeof(nid), "10.%d.%d.%d@tcp", (int)b, i / 256, i % 256);
		rc = store_peer_add(s, &p, NULL);
	}
	return rc;
}

/* The child: never returns, and tells the parent on @fd when to kill it. */
static void __attribute__((noreturn)) crash_child(int fd, enum crash how)
{
	struct store *s;
	bool told = false;
	uint64_t b;

	/* Batch numbers go on from the trials before: one batch per generation. */
	if (store_open(path, &s, NULL) || store_generation(s, &b))
		_exit(1);
	for (;; b++) {
		if (store_begin(s) || add_batch(s, b))
			_exit(1);
		if (how == BEFORE_COMMIT) {
			if (write(fd, "w", 1) != 1)
				_exit(1);
			pause();
		}
		if (store_commit(s, NULL, NULL, NULL))
			_exit(1);
		if (!told && write(fd, "c", 1) != 1)
			_exit(1);
		told = true;
		if (how == AFTER_COMMIT)
			pause();
	}
}

static int count_peer(const struct st_peer *p, void *data)
{
	(void)p;
	++*(int *)data;
	return 0;
}

/* Kill a writer as @how says; returns how many peers survived (checked all or nothing). */
static int crash(enum crash how, unsigned int delay_us)
{
	int fds[2], status, peers = 0;
	struct st_info info;
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		crash_child(fds[1], how);
	}
	close(fds[1]);
	ck_assert_msg(read(fds[0], &c, 1) == 1, "the writer died before it was ready");
	close(fds[0]);
	usleep(delay_us);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "the writer ended on its own (status %d)", status);

	st = open_ok();
	ck_assert_int_eq(store_peer_list(st, count_peer, &peers), 0);
	ck_assert_int_eq(store_info(st, &info), 0);
	ck_assert_msg(peers % BATCH == 0, "%d peers: a transaction was cut in half", peers);
	ck_assert_uint_eq(info.generation, (uint64_t)(peers / BATCH));
	store_close(st);
	st = NULL;
	return peers;
}

START_TEST(crash_before_commit_leaves_nothing)
{
	ck_assert_int_eq(crash(BEFORE_COMMIT, 0), 0);
}
END_TEST

START_TEST(crash_after_commit_keeps_everything)
{
	ck_assert_int_eq(crash(AFTER_COMMIT, 0), BATCH);
}
END_TEST

START_TEST(crash_anywhere_is_all_or_nothing)
{
	int trial, peers = 0, before;

	srand(time(NULL));
	for (trial = 0; trial < 5; trial++) {
		before = peers;
		peers = crash(ANYWHERE, rand() % 100000);
		ck_assert_int_ge(peers, before + BATCH);
	}
}
END_TEST
void store_history_tests(TCase *tc)
{
	tcase_add_test(tc, transactions_all_or_nothing);
	tcase_add_test(tc, whole_transaction_refused_change_keeps_nothing);
	tcase_add_test(tc, dry_run_writes_no_peer);
	tcase_add_test(tc, history_records_every_change);
	tcase_add_test(tc, state_replace_records_only_differences);
	tcase_add_test(tc, nis_keep_the_order_they_were_added);
	tcase_add_test(tc, undo_returns_to_every_generation);
	tcase_add_test(tc, history_is_bounded);
	tcase_add_test(tc, crash_before_commit_leaves_nothing);
	tcase_add_test(tc, crash_after_commit_keeps_everything);
	tcase_add_test(tc, crash_anywhere_is_all_or_nothing);
}
