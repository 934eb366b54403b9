// SPDX-License-Identifier: GPL-2.0
/*
 * The store: its fixture and helpers (test-store.h), and opening it:
 * migrations, modes, and the files it refuses.  Every object, refusals and
 * rule positions are in test-store-objects.c; transactions, history,
 * replacing the state and crash safety in test-store-history.c.  Each test
 * gets real SQLite files in a fresh temporary folder, removed afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lnetd/store/store.h"
#include "test-store.h"
#include "unit.h"

/*
 * Each test case gets a folder (the unchecked fixture, in the runner, which
 * removes it even when a test fails in its forked child), and each test a
 * fresh folder inside it.
 */
static char top[PATH_MAX], dir[PATH_MAX + 16];
char path[PATH_MAX + 32];
struct store *st;

static int rm_one(const char *file, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(file);
}

static void rm_rf(const char *d)
{
	nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void case_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/lnetd-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(top));
}

static void case_teardown(void)
{
	rm_rf(top);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/test-XXXXXX", top);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lnetd.db", dir);
	st = NULL;
}

static void teardown(void)
{
	store_close(st);
	st = NULL;
	rm_rf(dir);
}

/* --- helpers --------------------------------------------------------------- */

struct store *open_ok(void)
{
	struct store_err err = {""};
	struct store *s = NULL;
	int rc = store_open(path, &s, &err);

	ck_assert_msg(rc == 0, "store_open: rc %d (%s)", rc, err.msg);
	ck_assert_ptr_nonnull(s);
	return s;
}

uint64_t commit(const char *command)
{
	struct st_who who = {.uid = 0, .pid = 42, .command = command};
	uint64_t gen = 0;

	OK(store_commit(st, &who, &gen, err));
	return gen;
}

uint64_t generation(void)
{
	uint64_t gen = 99;

	ck_assert_int_eq(store_generation(st, &gen), 0);
	return gen;
}

static const char *S(const char *s)
{
	return s ? s : "-";
}

static long long I(int64_t v)
{
	return (long long)v;
}

static int dump_ni(const struct st_ni *ni, void *f)
{
	fprintf(f, "ni %s %s %s %s %lld %lld %lld %lld\n", S(ni->net), S(ni->ifname),
		S(ni->pattern), S(ni->cpts), I(ni->peer_timeout), I(ni->peer_credits),
		I(ni->peer_buffer_credits), I(ni->credits));
	return 0;
}

static int dump_peer(const struct st_peer *p, void *f)
{
	size_t i;

	fprintf(f, "peer %s mr=%d%s", p->nid, p->mr, p->locked ? " locked" : "");
	for (i = 0; i < p->nnids; i++)
		fprintf(f, " %s", p->nids[i]);
	fputc('\n', f);
	return 0;
}

static int dump_route(const struct st_route *r, void *f)
{
	fprintf(f, "route %s %s %lld %lld %lld\n", r->net, r->gateway, I(r->hops), I(r->priority),
		I(r->sensitivity));
	return 0;
}

static int dump_global(const struct st_global *g, void *f)
{
	fprintf(f, "global %s=%lld\n", g->name, I(g->value));
	return 0;
}

static int dump_rule(const struct st_rule *r, void *f)
{
	fprintf(f, "rule %lld %s %s %s %lld\n", I(r->pos), S(r->src), S(r->dst), S(r->rte),
		I(r->priority));
	return 0;
}

static int dump_tbf(const struct st_tbf *t, void *f)
{
	fprintf(f, "tbf %s reg %s/%lld hp %s/%lld [%s]\n", S(t->service), S(t->reg_type),
		I(t->reg_depth), S(t->hp_type), I(t->hp_depth), S(t->rules));
	return 0;
}

/* The whole desired state as text, through the list functions. */
char *dump(void)
{
	size_t n;
	char *buf;
	FILE *f = open_memstream(&buf, &n);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(store_ni_list(st, dump_ni, f), 0);
	ck_assert_int_eq(store_peer_list(st, dump_peer, f), 0);
	ck_assert_int_eq(store_route_list(st, dump_route, f), 0);
	ck_assert_int_eq(store_global_list(st, dump_global, f), 0);
	ck_assert_int_eq(store_rule_list(st, dump_rule, f), 0);
	ck_assert_int_eq(store_tbf_list(st, dump_tbf, f), 0);
	fclose(f);
	return buf;
}

/* Whether the store's file with @suffix ("-wal") exists, and its mode. */
static bool exists(const char *suffix)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return access(p, F_OK) == 0;
}

static unsigned int mode_of(const char *suffix)
{
	char p[PATH_MAX + 64];
	struct stat sb;

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return stat(p, &sb) ? 01000 : sb.st_mode & 07777;
}

/* A second connection, straight to SQLite, to look at or doctor the file. */
static sqlite3 *raw_open(void)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

static void raw_exec(const char *q)
{
	sqlite3 *db = raw_open();
	char *msg = NULL;

	ck_assert_msg(sqlite3_exec(db, q, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", q, msg);
	sqlite3_close(db);
}

/* The first column of the first row of @q, as text (the caller frees). */
char *raw_text(const char *q)
{
	sqlite3 *db = raw_open();
	sqlite3_stmt *s;
	char *v;

	ck_assert_int_eq(sqlite3_prepare_v2(db, q, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	v = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static int latest_schema(void)
{
	char other[PATH_MAX + 32];
	struct store *s;
	struct st_info info;

	snprintf(other, sizeof(other), "%s/other.db", dir);
	ck_assert_int_eq(store_open(other, &s, NULL), 0);
	ck_assert_int_eq(store_info(s, &info), 0);
	store_close(s);
	return info.schema_latest;
}

/* The rules' sources in order, checking that positions are 0..n-1. */
int rule_src(const struct st_rule *r, void *data)
{
	char *buf = data;

	ck_assert_int_eq(r->pos, (int64_t)(strlen(buf) / 2));
	strcat(buf, r->src ? r->src : "?");
	strcat(buf, " ");
	return 0;
}

/* --- migrations and opening ------------------------------------------------- */

START_TEST(migrates_an_empty_file)
{
	struct st_info info;

	st = open_ok();
	ck_assert_int_eq(store_info(st, &info), 0);
	ck_assert_int_ge(info.schema_latest, 1);
	ck_assert_int_eq(info.schema, info.schema_latest);
	ck_assert_uint_eq(info.generation, 0);
	DUMP_EQ("");
	RAW_EQ("SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master "
	       "WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name)",
	       "global history ni peer route rule tbf");
}
END_TEST

START_TEST(reopening_does_not_migrate_again)
{
	struct st_ni ni = NI("tcp", "eth0", NULL);
	struct st_info info;
	char *objects;

	st = open_ok();
	OK(store_begin(st));
	OK(store_ni_add(st, &ni, err));
	commit("one");
	store_close(st);
	st = NULL;
	/* A row written behind the store's back: a migration run again would lose it or fail. */
	raw_exec("INSERT INTO global (name, value) VALUES ('marker', 7)");
	objects = raw_text("SELECT count(*) FROM sqlite_master");

	st = open_ok();
	ck_assert_int_eq(store_info(st, &info), 0);
	ck_assert_int_eq(info.schema, info.schema_latest);
	ck_assert_uint_eq(info.generation, 1);
	DUMP_EQ("ni tcp eth0 - - -1 -1 -1 -1\nglobal marker=7\n");
	RAW_EQ("SELECT count(*) FROM sqlite_master", objects);
	free(objects);
}
END_TEST

/*
 * A schema-5 file (a peer_nid row per NID, the primary included) becomes
 * schema 6 (one row per peer, a history without its JSON CHECK) with every
 * peer, NID, order and history entry, and the generation counter: the
 * history's JSON still undoes what it recorded.
 */
START_TEST(schema_5_peers_migrate_intact)
{
	extern const char *const store_schema[];
	const char *add = "[{\"op\":\"add\",\"obj\":\"peer\",\"new\":{\"nid\":\"10.0.0.1@tcp\","
			  "\"mr\":1,\"nids\":[\"10.0.0.3@tcp\",\"10.0.0.2@tcp\"]}},"
			  "{\"op\":\"add\",\"obj\":\"peer\",\"new\":{\"nid\":\"10.0.0.9@tcp\","
			  "\"mr\":0,\"nids\":[]}}]";
	char *q;
	int v;

	for (v = 0; v < 5; v++)
		raw_exec(store_schema[v]);
	q = sqlite3_mprintf(
		"PRAGMA user_version = 5;"
		"INSERT INTO peer (id, nid, mr) VALUES (1, '10.0.0.1@tcp', 1), (2, '10.0.0.9@tcp', 0);"
		"INSERT INTO peer_nid (peer, nid) VALUES (1, '10.0.0.1@tcp'), (2, '10.0.0.9@tcp'), "
		"(1, '10.0.0.3@tcp'), (1, '10.0.0.2@tcp');"
		"INSERT INTO history (time, uid, pid, command, summary, change) "
		"VALUES (unixepoch(), 0, 1, 'lnetctl import', '+peer 10.0.0.1@tcp', %Q);"
		"UPDATE sqlite_sequence SET seq = 7 WHERE name = 'history';", /* a counter to keep */
		add);
	raw_exec(q);
	sqlite3_free(q);

	st = open_ok();
	q = sqlite3_mprintf("%d", latest_schema()); /* and on through the later ones */
	RAW_EQ("PRAGMA user_version", q);
	sqlite3_free(q);
	DUMP_EQ("peer 10.0.0.1@tcp mr=1 10.0.0.3@tcp 10.0.0.2@tcp\npeer 10.0.0.9@tcp mr=0\n");
	RAW_EQ("SELECT group_concat(locked) FROM peer", "0,0"); /* schema 7: none locked */
	RAW_EQ("SELECT change FROM history WHERE gen = 1", add);
	/* peer, one b-tree keyed by the primary NID; peer_nid is gone. */
	RAW_EQ("SELECT group_concat(type || ' ' || name, ', ') FROM sqlite_master "
	       "WHERE tbl_name LIKE 'peer%'",
	       "table peer, index peer_locked");
	/* A change now logs the peer as the migrated row has it: as it was added. */
	OK(store_begin(st));
	OK(store_peer_del(st, "10.0.0.1@tcp", err));
	ck_assert_uint_eq(commit("del"), 8); /* AUTOINCREMENT's counter was kept */
	q = raw_text("SELECT json_extract(change, '$[0].old') FROM history WHERE gen = 8");
	ck_assert_str_eq(q, "{\"nid\":\"10.0.0.1@tcp\",\"mr\":1,\"nids\":[\"10.0.0.3@tcp\","
			    "\"10.0.0.2@tcp\"]}");
	free(q);
	/* And the history before the migration still undoes what it recorded. */
	OK(store_begin(st));
	OK(store_undo_after(st, 0, err));
	commit("rollback 0");
	DUMP_EQ("");
}
END_TEST

START_TEST(newer_database_is_refused)
{
	struct store_err err = {""};
	char want[96];
	int latest = latest_schema();

	raw_exec("CREATE TABLE future (x); PRAGMA user_version = 99");
	ck_assert_int_eq(store_open(path, &st, &err), -ENOTSUP);
	ck_assert_ptr_null(st);
	snprintf(want, sizeof(want), "schema version 99 is newer than this lnetd knows (%d)",
		 latest);
	ck_assert_msg(strstr(err.msg, want), "message: %s", err.msg);
	ck_assert_msg(strstr(err.msg, path), "message does not name the file: %s", err.msg);
	/* Refused before touching it. */
	RAW_EQ("PRAGMA user_version", "99");
	RAW_EQ("PRAGMA journal_mode", "delete");
}
END_TEST

START_TEST(non_database_is_refused)
{
	static const char text[] =
		"net:\n  - net type: tcp\n    local NI(s):\n      - interfaces:\n"
		"          0: eth0\n";
	struct store_err err = {""};
	char back[sizeof(text) * 40] = "";
	FILE *f = fopen(path, "w");
	int i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 30; i++)
		fputs(text, f);
	fclose(f);
	ck_assert_int_eq(store_open(path, &st, &err), -EBADMSG);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err.msg, "not an SQLite database"), "message: %s", err.msg);
	ck_assert_msg(strstr(err.msg, path), "message does not name the file: %s", err.msg);
	f = fopen(path, "r");
	ck_assert_uint_eq(fread(back, 1, sizeof(back), f), 30 * strlen(text));
	fclose(f);
	ck_assert_int_eq(strncmp(back, text, strlen(text)), 0);
	ck_assert_msg(strstr(err.msg, "to start over with an empty configuration, move it aside"),
		      "message does not say how to start over: %s", err.msg);
	ck_assert_msg(!exists("-wal") && !exists("-shm") && !exists("-journal"),
		      "a -wal, -shm or -journal was created");
}
END_TEST

START_TEST(missing_file_is_a_fresh_start_0600_whatever_the_umask)
{
	static const mode_t masks[] = {0, 022, 0277};
	struct stat sb;
	size_t i;
	mode_t old;

	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		old = umask(masks[i]);
		st = open_ok();
		umask(old);
		ck_assert_int_eq(stat(path, &sb), 0);
		ck_assert_msg((sb.st_mode & 07777) == 0600, "umask %03o: lnetd.db is %03o",
			      masks[i], sb.st_mode & 07777);
		ck_assert_msg(mode_of("-wal") == 0600 && mode_of("-shm") == 0600,
			      "umask %03o: -wal is %03o, -shm %03o", masks[i], mode_of("-wal"),
			      mode_of("-shm"));
		ck_assert_msg(!exists(".new"), "the file it was made in is left behind");
		store_close(st);
		st = NULL;
		ck_assert_int_eq(unlink(path), 0);
	}
}
END_TEST

START_TEST(existing_file_keeps_its_mode)
{
	struct stat sb;

	st = open_ok();
	store_close(st);
	st = NULL;
	ck_assert_int_eq(chmod(path, 0400 | 0200 | 0040), 0);
	st = open_ok();
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0640);
}
END_TEST

START_TEST(leftovers_of_a_creation_cut_short_are_replaced)
{
	char other[PATH_MAX + 64];
	struct st_info info;
	FILE *f;

	/* What a kill during the creation of a new store may leave. */
	snprintf(other, sizeof(other), "%s.new", path);
	f = fopen(other, "w");
	ck_assert_ptr_nonnull(f);
	fputs("half", f);
	fclose(f);
	snprintf(other, sizeof(other), "%s.new-wal", path);
	f = fopen(other, "w");
	ck_assert_ptr_nonnull(f);
	fputs("a WAL of another file", f);
	fclose(f);
	st = open_ok();
	ck_assert_int_eq(store_info(st, &info), 0);
	ck_assert_int_eq(info.schema, info.schema_latest);
	ck_assert_uint_eq(info.generation, 0);
	ck_assert_msg(!exists(".new") && !exists(".new-wal"), "leftovers remain");
}
END_TEST

/* A -wal whose database was moved away is not replayed into a new store. */
START_TEST(orphaned_wal_is_refused)
{
	char other[PATH_MAX + 64], wal[PATH_MAX + 64], cmd[3 * PATH_MAX];
	struct store_err err = {""};
	sqlite3 *db;

	snprintf(other, sizeof(other), "%s/other.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	ck_assert_int_eq(sqlite3_open(other, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
				      "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; "
				      "CREATE TABLE old (x); INSERT INTO old VALUES (1)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	/* Its log, taken while it is open (a crash's leftover), beside a missing lnetd.db. */
	snprintf(cmd, sizeof(cmd), "cp '%s-wal' '%s'", other, wal);
	ck_assert_int_eq(system(cmd), 0);
	sqlite3_close(db);
	ck_assert_int_eq(store_open(path, &st, &err), -EEXIST);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err.msg, "is missing but") && strstr(err.msg, wal) &&
			      strstr(err.msg, "move"),
		      "message: %s", err.msg);
	ck_assert_msg(!exists("") && !exists(".new"), "a store was made");
}
END_TEST

START_TEST(empty_file_is_refused_and_left_as_it_was)
{
	struct timespec past[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	struct store_err err = {""};
	char want[sizeof(path) + 192];
	struct stat sb;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(futimens(fd, past), 0);
	close(fd);
	ck_assert_int_eq(store_open(path, &st, &err), -EBADMSG);
	ck_assert_ptr_null(st);
	snprintf(want, sizeof(want),
		 "%s is empty (0 bytes): it is not a store lnetd wrote; to start over with an "
		 "empty configuration, move it aside",
		 path);
	ck_assert_msg(strstr(err.msg, want), "message: %s", err.msg);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_size, 0);
	ck_assert_int_eq(sb.st_mtime, past[1].tv_sec);
	ck_assert_int_eq(sb.st_mode & 07777, 0644);
	ck_assert_msg(!exists("-wal") && !exists("-shm") && !exists("-journal") && !exists(".new"),
		      "a -wal, -shm, -journal or .new was created");
}
END_TEST

/* As another user when root (who reads any file), and as oneself otherwise. */
START_TEST(unreadable_file_is_refused)
{
	struct store_err err = {""};
	char want[sizeof(path) + 192];
	int fds[2], status;
	struct stat sb;
	ssize_t n;
	pid_t pid;

	st = open_ok();
	store_close(st);
	st = NULL;
	ck_assert_int_eq(chmod(path, 0), 0);
	ck_assert_int_eq(chmod(top, 0755), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct store *s = NULL;
		int rc;

		close(fds[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
				       setresuid(65534, 65534, 65534)))
			_exit(2);
		rc = store_open(path, &s, &err);
		store_close(s);
		_exit(write(fds[1], &err, sizeof(err)) == sizeof(err) && rc == -EACCES ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], &err, sizeof(err));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "store_open did not return -EACCES (status %#x): %s", status,
		      n == sizeof(err) ? err.msg : "");
	snprintf(want, sizeof(want),
		 "%s: cannot open it for reading and writing: Permission denied; fix its owner "
		 "and mode, or, to start over with an empty configuration, move it aside",
		 path);
	ck_assert_msg(strstr(err.msg, want), "message: %s", err.msg);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0);
	ck_assert_msg(!exists("-wal") && !exists("-shm") && !exists("-journal") && !exists(".new"),
		      "a -wal, -shm, -journal or .new was created");
}
END_TEST

START_TEST(wal_and_full_sync_are_in_effect)
{
	struct st_info info;
	struct st_ni ni = NI("tcp", "eth0", NULL);
	char wal[PATH_MAX + 48];

	st = open_ok();
	ck_assert_int_eq(store_info(st, &info), 0);
	ck_assert_str_eq(info.journal_mode, "wal");
	ck_assert_int_eq(info.synchronous, STORE_SYNC_FULL);
	ck_assert_int_eq(info.foreign_keys, 1);
	OK(store_begin(st));
	OK(store_ni_add(st, &ni, err));
	commit("x");
	/* WAL is a property of the file: another connection sees it, and the log. */
	RAW_EQ("PRAGMA journal_mode", "wal");
	snprintf(wal, sizeof(wal), "%s-wal", path);
	ck_assert_int_eq(access(wal, F_OK), 0);
}
END_TEST

Suite *make_store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, case_setup, case_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, migrates_an_empty_file);
	tcase_add_test(tc, reopening_does_not_migrate_again);
	tcase_add_test(tc, schema_5_peers_migrate_intact);
	tcase_add_test(tc, newer_database_is_refused);
	tcase_add_test(tc, non_database_is_refused);
	tcase_add_test(tc, missing_file_is_a_fresh_start_0600_whatever_the_umask);
	tcase_add_test(tc, existing_file_keeps_its_mode);
	tcase_add_test(tc, leftovers_of_a_creation_cut_short_are_replaced);
	tcase_add_test(tc, orphaned_wal_is_refused);
	tcase_add_test(tc, empty_file_is_refused_and_left_as_it_was);
	tcase_add_test(tc, unreadable_file_is_refused);
	tcase_add_test(tc, wal_and_full_sync_are_in_effect);
	store_objects_tests(tc);
	store_history_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
