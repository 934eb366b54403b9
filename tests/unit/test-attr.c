// SPDX-License-Identifier: GPL-2.0
/*
 * test-attr.c - the engine's descriptor tables against what they describe:
 * each other (names and options unique, defaults in range), the genl
 * contract (kernel/uapi/lnetk.h, hand-written ABI) and the store's schema
 * (the migrations in schema/, hand-written history: PRAGMA table_info).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/model.h"
#include "engine/nid.h"
#include "engine/peer-attrs.h"
#include "engine/route-attrs.h"
#include "engine/rule-attrs.h"
#include "engine/tunables.h"
#include "engine/udsp.h"
#include "kernel/uapi/lnetk.h"
#include "lnetd/store/store.h"
#include "unit.h"

static const unsigned int tun_genl[] = {LNE_TUNABLES(LNE_TUN_GENL)};
_Static_assert(sizeof(tun_genl) / sizeof(tun_genl[0]) == LNE_TUN__COUNT, "one genl per tunable");

START_TEST(tun_table_consistent)
{
	struct lne_tunables sock, o2ib;
	enum lne_tun bad = LNE_TUN__COUNT;
	int i, j;

	for (i = 0; i < LNE_TUN__COUNT; i++) {
		const struct lne_tun_desc *t = &lne_tun_desc[i];

		ck_assert_msg(t->name && *t->name && t->option && *t->option && t->help,
			      "row %d incomplete", i);
		ck_assert_msg(t->min <= t->max, "%s: min above max", t->name);
		ck_assert_msg(lne_tun_valid(i, t->def_sock), "%s: socklnd default out of range",
			      t->name);
		ck_assert_msg(lne_tun_valid(i, t->def_o2ib), "%s: o2iblnd default out of range",
			      t->name);
		/* Lustre's -1 is a value only where the row says so. */
		ck_assert_int_eq(lne_tun_valid(i, LNE_TUN_OFF),
				 t->max == U32_MAX || (t->flags & LNE_TUN_F_OFF));
		ck_assert_msg(t->section == LNE_TUN_NET || t->section == LNE_TUN_LND, "%s: section",
			      t->name);
		/* The name is the YAML key and the option Lustre's spelling of it. */
		ck_assert_msg(!strchr(t->name, '-') && !strchr(t->option, '_'), "%s: spelling",
			      t->name);
		ck_assert_int_eq(lne_tun_lookup(t->name), i);
		for (j = 0; j < i; j++) {
			ck_assert_str_ne(lne_tun_desc[j].name, t->name);
			ck_assert_str_ne(lne_tun_desc[j].option, t->option);
		}
	}
	ck_assert_int_eq(lne_tun_lookup("no_such_tunable"), -ENOENT);

	lne_tunables_default(LNE_LND_TCP, &sock);
	lne_tunables_default(LNE_LND_O2IB, &o2ib);
	ck_assert_int_eq(lne_tunables_check(&sock, &bad), 0);
	ck_assert_int_eq(lne_tunables_check(&o2ib, &bad), 0);
	for (i = 0; i < LNE_TUN__COUNT; i++) {
		ck_assert_uint_eq(sock.v[i], lne_tun_desc[i].def_sock);
		ck_assert_uint_eq(o2ib.v[i], lne_tun_desc[i].def_o2ib);
	}
	/* The named fields and v[] are the same storage. */
	sock.v[LNE_TUN_PEER_CREDITS] = 77;
	ck_assert_uint_eq(sock.peer_credits, 77);
}
END_TEST

START_TEST(tun_check_names_the_first_bad_one)
{
	struct lne_tunables t;
	enum lne_tun bad = LNE_TUN__COUNT;
	int i;

	for (i = 0; i < LNE_TUN__COUNT; i++) {
		lne_tunables_default(LNE_LND_TCP, &t);
		if (lne_tun_desc[i].min > 0) {
			t.v[i] = lne_tun_desc[i].min - 1;
		} else if (lne_tun_desc[i].max < U32_MAX) {
			t.v[i] = lne_tun_desc[i].max + 1;
		} else {
			continue; /* every u32 is good */
		}
		ck_assert_int_eq(lne_tunables_check(&t, &bad), -EINVAL);
		ck_assert_int_eq(bad, i);
	}
}
END_TEST

START_TEST(tun_genl_is_the_contract)
{
	static const unsigned int not_tunables[] = {
		LNETK_NI_A_UNSPEC,    LNETK_NI_A_PAD,	     LNETK_NI_A_NID,
		LNETK_NI_A_IFNAME,    LNETK_NI_A_CPTS,	     LNETK_NI_A_DEV_CPT,
		LNETK_NI_A_PLACE,     LNETK_NI_A_UP,	     LNETK_NI_A_HEALTH,
		LNETK_NI_A_SET_DOWN,  LNETK_NI_A_TX_CREDITS, LNETK_NI_A_PRIO,
		LNETK_NI_A_PRIO_RULE, LNETK_NI_A_NET_PRIO,   LNETK_NI_A_NET_PRIO_RULE,
	};
	unsigned int i, j;

	/* Every NI attribute is either a tunable or one of the others, once. */
	ck_assert_uint_eq(LNE_TUN__COUNT + sizeof(not_tunables) / sizeof(not_tunables[0]),
			  LNETK_NI_A_MAX + 1);
	for (i = 0; i < LNE_TUN__COUNT; i++) {
		ck_assert_msg(tun_genl[i] <= LNETK_NI_A_MAX, "%s: genl attribute out of range",
			      lne_tun_desc[i].name);
		for (j = 0; j < i; j++)
			ck_assert_uint_ne(tun_genl[i], tun_genl[j]);
		for (j = 0; j < sizeof(not_tunables) / sizeof(not_tunables[0]); j++)
			ck_assert_uint_ne(tun_genl[i], not_tunables[j]);
	}
}
END_TEST

/* Each tunable is a column of the ni table, and nothing else in it is unknown. */
START_TEST(tun_store_columns)
{
	static const char *const other[] = {"id", "net", "ifname", "pattern", "cpts"};
	char dir[] = "/tmp/unit-attr.XXXXXX", path[64];
	bool seen[LNE_TUN__COUNT] = {false};
	struct store *st = NULL;
	sqlite3_stmt *q;
	sqlite3 *db;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lnetd.db", dir);
	ck_assert_int_eq(store_open(path, &st, NULL), 0);
	store_close(st);
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('ni')", -1, &q,
					    NULL),
			 SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(q, 0);
		int t = lne_tun_lookup(col);

		if (t >= 0) {
			seen[t] = true;
			continue;
		}
		for (i = 0; i < sizeof(other) / sizeof(other[0]) && strcmp(other[i], col); i++)
			;
		ck_assert_msg(i < sizeof(other) / sizeof(other[0]),
			      "ni column %s is neither a tunable nor known", col);
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	for (i = 0; i < LNE_TUN__COUNT; i++)
		ck_assert_msg(seen[i], "no ni column for tunable %s (a schema migration adds it)",
			      lne_tun_desc[i].name);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lnetd.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lnetd.db-shm", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;

	ck_assert_msg(f != NULL, "%s: cannot open", path);
	ck_assert_int_eq(getdelim(&buf, &n, '\0', f) > 0, 1);
	fclose(f);
	return buf;
}

/*
 * A database of an older schema (migrations 1 and 2 only, an NI in it)
 * migrated by store_open(): the NI keeps its tunables, and the tunables
 * added since come back unset (the LND's default).
 */
START_TEST(tun_migration_keeps_nis)
{
	static const char *const old[] = {"0001-initial.sql", "0002-tbf.sql"};
	char dir[] = "/tmp/unit-attr.XXXXXX", path[64], sql[512];
	struct st_ni key = {.net = "tcp", .ifname = "eth0"}, got;
	struct st_info info;
	struct store *st = NULL;
	sqlite3 *db;
	size_t i;
	int k;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lnetd.db", dir);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	for (i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		char *text;

		snprintf(sql, sizeof(sql), "%s/../../schema/%s", TEST_DATA_DIR, old[i]);
		text = slurp(sql);
		ck_assert_msg(sqlite3_exec(db, text, NULL, NULL, NULL) == SQLITE_OK, "%s: %s",
			      old[i], sqlite3_errmsg(db));
		free(text);
	}
	ck_assert_int_eq(sqlite3_exec(db,
				      "INSERT INTO ni (net, ifname, peer_credits, credits) "
				      "VALUES ('tcp', 'eth0', 16, 512); PRAGMA user_version = 2",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	ck_assert_int_eq(store_open(path, &st, NULL), 0);
	ck_assert_int_eq(store_info(st, &info), 0);
	ck_assert_int_eq(info.schema, info.schema_latest);
	ck_assert_int_gt(info.schema, 2);
	ck_assert_int_eq(store_ni_get(st, &key, &got, NULL), 0);
	for (k = 0; k < LNE_TUN__COUNT; k++) {
		int64_t want = k == LNE_TUN_PEER_CREDITS ? 16
			       : k == LNE_TUN_CREDITS	 ? 512
							 : ST_UNSET;

		ck_assert_msg(got.tun[k] == want, "%s: %lld, not %lld", lne_tun_desc[k].name,
			      (long long)got.tun[k], (long long)want);
	}
	st_ni_clear(&got);
	store_close(st);
	snprintf(sql, sizeof(sql), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(sql), 0);
}
END_TEST

static const unsigned int route_genl[] = {LNE_ROUTE_ATTRS(LNE_ROUTE_GENL)};
_Static_assert(sizeof(route_genl) / sizeof(route_genl[0]) == LNE_ROUTE_A__COUNT,
	       "one genl per route setting");

/* The route settings' table: consistent, the genl contract's, the store's columns. */
START_TEST(route_table_consistent)
{
	static const char *const keys[] = {"id", "net", "gateway"};
	char dir[] = "/tmp/unit-attr.XXXXXX", path[64];
	bool seen[LNE_ROUTE_A__COUNT] = {false};
	u32 v[LNE_ROUTE_A__COUNT];
	struct store *st = NULL;
	sqlite3_stmt *q;
	sqlite3 *db;
	size_t n;
	int i, j;

	lne_route_defaults(v);
	for (i = 0; i < LNE_ROUTE_A__COUNT; i++) {
		const struct lne_route_desc *a = &lne_route_desc[i];

		ck_assert_msg(a->min <= a->def && a->def <= a->max, "%s: default out of range",
			      a->name);
		ck_assert_uint_eq(v[i], a->def);
		ck_assert_int_eq(lne_route_attr_by_name(a->name), i);
		ck_assert_int_eq(lne_route_attr_by_yaml(a->yaml), i);
		ck_assert_msg(route_genl[i] > LNETK_ROUTE_A_GATEWAY &&
				      route_genl[i] <= LNETK_ROUTE_A_MAX,
			      "%s: genl attribute", a->name);
		for (j = 0; j < i; j++) {
			ck_assert_str_ne(lne_route_desc[j].name, a->name);
			ck_assert_str_ne(lne_route_desc[j].option, a->option);
			ck_assert_uint_ne(route_genl[j], route_genl[i]);
		}
	}
	/* Every route attribute but the key (and the dump's state, LNETK_ROUTE_A_DOWN) is a setting. */
	ck_assert_uint_eq(LNETK_ROUTE_A_DOWN, LNETK_ROUTE_A_MAX);
	ck_assert_uint_eq(LNE_ROUTE_A__COUNT + 4, LNETK_ROUTE_A_MAX + 1);
	ck_assert_uint_eq(v[LNE_ROUTE_A_HOPS], LNE_HOPS_DEFAULT);
	ck_assert_int_eq(lne_route_attr_by_name("gateway"), -ENOENT);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lnetd.db", dir);
	ck_assert_int_eq(store_open(path, &st, NULL), 0);
	store_close(st);
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('route')", -1,
					    &q, NULL),
			 SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(q, 0);

		i = lne_route_attr_by_name(col);
		if (i >= 0) {
			seen[i] = true;
			continue;
		}
		for (n = 0; n < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[n], col); n++)
			;
		ck_assert_msg(n < sizeof(keys) / sizeof(keys[0]), "route column %s is unknown",
			      col);
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	for (i = 0; i < LNE_ROUTE_A__COUNT; i++)
		ck_assert_msg(seen[i], "no route column for %s", lne_route_desc[i].name);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/*
 * A peer's settings (engine/peer-attrs.h): each name, option and YAML key
 * once, lookups by name, booleans with a boolean default, and a new peer in
 * the model takes Multi-Rail from lne_peer_conf as the table says it keeps.
 */
START_TEST(peer_table_consistent)
{
	struct lne_inst *ln = lne_inst_new();
	struct lne_peer_conf pc = {0};
	u32 v[LNE_PEER_A__COUNT];
	int i, j;

	lne_peer_defaults(v);
	for (i = 0; i < LNE_PEER_A__COUNT; i++) {
		const struct lne_peer_desc *a = &lne_peer_desc[i];

		ck_assert_uint_le(a->def, 1);
		ck_assert_uint_eq(v[i], a->def);
		ck_assert_int_eq(lne_peer_attr_by_name(a->name), i);
		ck_assert_msg(a->option[0] && a->help[0], "%s: option and help", a->name);
		for (j = 0; j < i; j++) {
			ck_assert_str_ne(lne_peer_desc[j].name, a->name);
			ck_assert_str_ne(lne_peer_desc[j].option, a->option);
			ck_assert_msg(!a->yaml[0] || strcmp(lne_peer_desc[j].yaml, a->yaml),
				      "%s: YAML key twice", a->name);
		}
	}
	/* the key is not a setting */
	ck_assert_int_eq(lne_peer_attr_by_name("primary"), -ENOENT);
	ck_assert_int_eq(lne_peer_attr_by_name("nids"), -ENOENT);
	ck_assert(lne_peer_desc[LNE_PEER_A_MULTI_RAIL].engine);
	ck_assert_str_eq(lne_peer_desc[LNE_PEER_A_MULTI_RAIL].yaml, "Multi-Rail");

	ck_assert_ptr_nonnull(ln);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(
			lne_nid_parse(i ? "10.0.0.2@tcp" : "10.0.0.1@tcp", &pc.primary, NULL), 0);
		pc.multi_rail = (u32)i;
		ck_assert_int_eq(lne_peer_add(ln, &pc, NULL), 0);
		ck_assert_int_eq(lne_peer_find(ln, &pc.primary)->mr, i);
	}
	lne_inst_free(ln);
}
END_TEST

static const unsigned int rule_genl[] = {LNE_RULE_ATTRS(LNE_RULE_GENL)};
_Static_assert(sizeof(rule_genl) / sizeof(rule_genl[0]) == LNE_RULE_A__COUNT,
	       "one genl per rule field");

/*
 * A UDSP rule's fields (engine/rule-attrs.h): each name, YAML key and genl
 * attribute once; each row a column of the store's rule table; and each
 * row's value makes the round trip engine -> store -> engine by row, not
 * by name (a row the walkers forgot comes back empty).
 */
START_TEST(rule_table_consistent)
{
	static const char *const texts[] = {"10.0.0.[1-4]@tcp", "tcp1", "10.0.1.1@tcp"};
	char dir[] = "/tmp/unit-attr.XXXXXX", path[64];
	bool seen[LNE_RULE_A__COUNT] = {false};
	struct lne_inst *ln = lne_inst_new();
	struct lne_rule_conf c;
	struct st_rule sr = {.pos = 0}, got;
	struct store *st = NULL;
	const struct lne_rule *r;
	struct lne_err err;
	sqlite3_stmt *q;
	sqlite3 *db;
	int i, j, nexpr = 0;
	int64_t pos;
	u32 idx;

	lne_rule_conf_init(&c);
	for (i = 0; i < LNE_RULE_A__COUNT; i++) {
		const struct lne_rule_desc *a = &lne_rule_desc[i];

		ck_assert_int_eq(lne_rule_attr_by_name(a->name), i);
		ck_assert_int_eq(lne_rule_attr_by_yaml(a->yaml), i);
		ck_assert_msg(a->help[0], "%s: help", a->name);
		ck_assert_msg(rule_genl[i] >= LNETK_RULE_A_SRC && rule_genl[i] < LNETK_RULE_A_IDX,
			      "%s: genl attribute", a->name);
		for (j = 0; j < i; j++) {
			ck_assert_str_ne(lne_rule_desc[j].name, a->name);
			ck_assert_str_ne(lne_rule_desc[j].yaml, a->yaml);
			ck_assert_uint_ne(rule_genl[j], rule_genl[i]);
		}
		switch (a->kind) {
		case LNE_RULE_K_EXPR:
			ck_assert_ptr_null(*lne_rule_conf_expr(&c, i));
			break;
		case LNE_RULE_K_PRIO:
			ck_assert_uint_eq(*lne_rule_conf_prio(&c, i), LNE_PRIO_NONE);
			break;
		}
	}
	/* the position is the key, not a field */
	ck_assert_int_eq(lne_rule_attr_by_name("idx"), -ENOENT);

	/* a NID pair rule: two expressions and a priority (no rte: pairs take none) */
	c.src = texts[0];
	c.dst = texts[2];
	c.priority = 7;
	ck_assert_ptr_nonnull(ln);
	ck_assert_msg(!lne_rule_add(ln, &c, -1, NULL, &idx, &err), "%s", err.msg);
	r = lne_rule_at(ln, idx);
	ck_assert_uint_eq(lne_rule_num(r, LNE_RULE_A_PRIORITY), 7);
	ck_assert_ptr_null(lne_rule_expr(r, LNE_RULE_A_RTE));
	ck_assert_int_eq(lne_rule_find(ln, &c, &idx, &err), 0);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lnetd.db", dir);
	ck_assert_int_eq(store_open(path, &st, NULL), 0);
	for (i = 0; i < LNE_RULE_A__COUNT; i++)
		switch (lne_rule_desc[i].kind) {
		case LNE_RULE_K_EXPR:
			*st_rule_expr(&sr, i) = texts[nexpr++ % 3];
			break;
		case LNE_RULE_K_PRIO:
			*st_rule_prio(&sr, i) = 100 + i;
			break;
		}
	ck_assert_int_eq(store_begin(st), 0);
	ck_assert_int_eq(store_rule_add(st, &sr, &pos, NULL), 0);
	ck_assert_int_eq(store_rule_get(st, pos, &got, NULL), 0);
	ck_assert(st_rule_same(&sr, &got));
	for (i = 0; i < LNE_RULE_A__COUNT; i++)
		if (lne_rule_desc[i].kind == LNE_RULE_K_EXPR)
			ck_assert_str_eq(*st_rule_expr(&got, i), *st_rule_expr(&sr, i));
		else
			ck_assert_int_eq(*st_rule_prio(&got, i), 100 + i);
	st_rule_clear(&got);
	ck_assert_int_eq(store_rollback(st), 0);
	store_close(st);
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('rule')", -1,
					    &q, NULL),
			 SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(q, 0);

		i = lne_rule_attr_by_name(col);
		if (i >= 0)
			seen[i] = true;
		else
			ck_assert_msg(!strcmp(col, "pos") || !strcmp(col, "id"),
				      "rule column %s is unknown", col);
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	for (i = 0; i < LNE_RULE_A__COUNT; i++)
		ck_assert_msg(seen[i], "no rule column for %s", lne_rule_desc[i].name);
	lne_inst_free(ln);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

Suite *make_attr_suite(void)
{
	Suite *s = suite_create("attr");
	TCase *tc = tcase_create("tunables");

	tcase_add_test(tc, tun_table_consistent);
	tcase_add_test(tc, tun_check_names_the_first_bad_one);
	tcase_add_test(tc, tun_genl_is_the_contract);
	tcase_add_test(tc, tun_store_columns);
	tcase_add_test(tc, tun_migration_keeps_nis);
	suite_add_tcase(s, tc);
	tc = tcase_create("route");
	tcase_add_test(tc, route_table_consistent);
	suite_add_tcase(s, tc);
	tc = tcase_create("peer");
	tcase_add_test(tc, peer_table_consistent);
	suite_add_tcase(s, tc);
	tc = tcase_create("rule");
	tcase_add_test(tc, rule_table_consistent);
	suite_add_tcase(s, tc);
	return s;
}
