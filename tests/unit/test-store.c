// SPDX-License-Identifier: GPL-2.0
/*
 * The store: migrations, every object, refusals, rule positions,
 * transactions, history, replacing the state, and crash safety.  Each test
 * gets real SQLite files in a fresh temporary folder, removed afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lnetd/store/store.h"
#include "unit.h"

/*
 * Each test case gets a folder (the unchecked fixture, in the runner, which
 * removes it even when a test fails in its forked child), and each test a
 * fresh folder inside it.
 */
static char top[PATH_MAX], dir[PATH_MAX + 16], path[PATH_MAX + 32];
static struct store *st;

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

#define OK(call)                                                                 \
	do {                                                                     \
		struct store_err err_ = {""};                                    \
		struct store_err *err = &err_;                                   \
		int rc_ = (call);                                                \
		(void)err;                                                       \
		ck_assert_msg(rc_ == 0, "%s: rc %d (%s)", #call, rc_, err_.msg); \
	} while (0)

/* @call must fail with @want and a message containing @text. */
#define FAILS(want, text, call)                                                                 \
	do {                                                                                    \
		struct store_err err_ = {""};                                                   \
		struct store_err *err = &err_;                                                  \
		int rc_ = (call);                                                               \
		(void)err;                                                                      \
		ck_assert_msg(rc_ == (want), "%s: rc %d, wanted %d (%s)", #call, rc_, want,     \
			      err_.msg);                                                        \
		ck_assert_msg(strstr(err_.msg, text), "%s: message \"%s\" lacks \"%s\"", #call, \
			      err_.msg, text);                                                  \
	} while (0)

static struct store *open_ok(void)
{
	struct store_err err = {""};
	struct store *s = NULL;
	int rc = store_open(path, &s, &err);

	ck_assert_msg(rc == 0, "store_open: rc %d (%s)", rc, err.msg);
	ck_assert_ptr_nonnull(s);
	return s;
}

static uint64_t commit(const char *command)
{
	struct st_who who = {.uid = 0, .pid = 42, .command = command};
	uint64_t gen = 0;

	OK(store_commit(st, &who, &gen, err));
	return gen;
}

static uint64_t generation(void)
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

	fprintf(f, "peer %s mr=%d", p->nid, p->mr);
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
static char *dump(void)
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

#define DUMP_EQ(want)                         \
	do {                                  \
		char *got_ = dump();          \
		ck_assert_str_eq(got_, want); \
		free(got_);                   \
	} while (0)

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
static char *raw_text(const char *q)
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

#define RAW_EQ(q, want)                     \
	do {                                \
		char *v_ = raw_text(q);     \
		ck_assert_str_eq(v_, want); \
		free(v_);                   \
	} while (0)

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

static struct st_ni NI(const char *net, const char *ifname, const char *pattern) {
	struct st_ni ni = {.net = net, .ifname = ifname, .pattern = pattern};

	st_ni_unset(&ni);
	return ni;
}

static struct st_route ROUTE(const char *net, const char *gw, int64_t hops)
{
	struct st_route r = {.net = net, .gateway = gw};

	st_route_unset(&r);
	r.hops = hops;
	return r;
}

static int64_t
rule_add(const char *src, int64_t at)
{
	struct st_rule r = {.pos = at, .src = src, .priority = ST_UNSET};
	int64_t pos = -9;

	OK(store_rule_add(st, &r, &pos, err));
	return pos;
}

/* The rules' sources in order, checking that positions are 0..n-1. */
static int rule_src(const struct st_rule *r, void *data)
{
	char *buf = data;

	ck_assert_int_eq(r->pos, (int64_t)(strlen(buf) / 2));
	strcat(buf, r->src ? r->src : "?");
	strcat(buf, " ");
	return 0;
}

#define RULES_EQ(want)                                                    \
	do {                                                              \
		char buf_[256] = "";                                      \
		ck_assert_int_eq(store_rule_list(st, rule_src, buf_), 0); \
		ck_assert_str_eq(buf_, want);                             \
	} while (0)

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
	       "global history ni peer peer_nid route rule tbf");
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
	DUMP_EQ("ni o2ib ib0 192.168.*.* - -1 -1 -1 -1\n"
		"ni tcp - 10.0.0.* - -1 -1 -1 -1\n"
		"ni tcp eth0 - [0,1] 180 8 0 256\n"
		"ni tcp1 eth1 - - -1 -1 -1 -1\n");

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
	DUMP_EQ("ni o2ib ib0 192.168.*.* - -1 -1 -1 -1\nni tcp1 eth1 - - -1 -1 -1 -1\n");
}
END_TEST

START_TEST(peer_round_trip)
{
	const char *nids[] = {"10.0.0.3@tcp", "10.0.0.2@tcp"}, *other[] = {"10.0.0.3@tcp"};
	struct st_peer a = {"10.0.0.1@tcp", 1, 2, nids}, z = {"10.0.0.9@tcp", 0, 0, NULL},
		       e = {"10.0.0.5@tcp", 1, 1, other}, got;

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
	OK(store_peer_set_mr(st, "10.0.0.1@tcp", 0, err));
	DUMP_EQ("peer 10.0.0.1@tcp mr=0 10.0.0.3@tcp 10.0.0.4@tcp\npeer 10.0.0.9@tcp mr=0\n");

	FAILS(-EINVAL, "primary NID of peer 10.0.0.1@tcp",
	      store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.1@tcp", err));
	FAILS(-ENOENT, "NID 10.0.0.2@tcp is not a NID of peer 10.0.0.1@tcp",
	      store_peer_nid_del(st, "10.0.0.1@tcp", "10.0.0.2@tcp", err));
	FAILS(-ENOENT, "no peer 10.0.0.7@tcp", store_peer_set_mr(st, "10.0.0.7@tcp", 1, err));
	FAILS(-ENOENT, "no peer 10.0.0.7@tcp", store_peer_del(st, "10.0.0.7@tcp", err));
	FAILS(-ENOENT, "no peer 10.0.0.7@tcp", store_peer_get(st, "10.0.0.7@tcp", &got, err));

	/* Deleting a peer takes its NIDs with it (ON DELETE CASCADE). */
	OK(store_peer_del(st, "10.0.0.1@tcp", err));
	OK(store_peer_add(st, &e, err));
	OK(store_peer_nid_add(st, "10.0.0.9@tcp", "10.0.0.1@tcp", err));
	commit("peers");
	DUMP_EQ("peer 10.0.0.5@tcp mr=1 10.0.0.3@tcp\npeer 10.0.0.9@tcp mr=0 10.0.0.1@tcp\n");
	RAW_EQ("SELECT count(*) FROM peer_nid", "4");
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
	const char *taken[] = {"10.0.0.8@tcp", "10.0.0.2@tcp"},
		   *twice[] = {"10.0.0.8@tcp", "10.0.0.8@tcp"};
	const char *nids[] = {"10.0.0.2@tcp"};
	struct st_peer a = {"10.0.0.1@tcp", 1, 1, nids}, x = {"10.0.0.7@tcp", 1, 2, taken},
		       y = {"10.0.0.7@tcp", 1, 2, twice}, b = {"10.0.0.2@tcp", 1, 0, NULL},
		       bad = {"10.0.0.6@tcp", 2, 0, NULL}, ok = {"10.0.0.8@tcp", 0, 0, NULL};
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
	FAILS(-EEXIST, "NID 10.0.0.2@tcp belongs to peer 10.0.0.1@tcp",
	      store_peer_add(st, &x, err));
	FAILS(-EEXIST, "NID 10.0.0.2@tcp belongs to peer 10.0.0.1@tcp",
	      store_peer_add(st, &b, err));
	FAILS(-EEXIST, "NID 10.0.0.8@tcp belongs to peer 10.0.0.7@tcp already",
	      store_peer_add(st, &y, err));
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
	DUMP_EQ("ni tcp - 10.* - -1 -1 -1 -1\n"
		"ni tcp eth0 - - -1 -1 -1 -1\n"
		"ni tcp eth1 10.* - -1 -1 -1 -1\n"
		"peer 10.0.0.1@tcp mr=1 10.0.0.2@tcp\n"
		"peer 10.0.0.8@tcp mr=0\n"
		"route tcp1 10.0.0.1@tcp 1 -1 -1\n");
	RAW_EQ("SELECT count(*) FROM peer_nid", "3");
}
END_TEST

/* --- transactions and history ------------------------------------------------- */

START_TEST(transactions_all_or_nothing)
{
	struct st_ni ni = NI("tcp", "eth0", NULL);
	struct st_peer p = {"10.0.0.1@tcp", 1, 0, NULL};
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
	struct st_peer p = {"10.0.0.1@tcp", 1, 1, nids};
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
		"[{\"op\":\"add\",\"obj\":\"ni\",\"new\":{\"net\":\"tcp\",\"ifname\":\"eth0\","
		"\"pattern\":null,\"cpts\":null,\"peer_timeout\":null,\"peer_credits\":null,"
		"\"peer_buffer_credits\":null,\"credits\":null,\"conns_per_peer\":null}}]");
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
		"[{\"op\":\"mod\",\"obj\":\"ni\",\"old\":{\"net\":\"tcp\",\"ifname\":\"eth0\","
		"\"pattern\":null,\"cpts\":null,\"peer_timeout\":null,\"peer_credits\":null,"
		"\"peer_buffer_credits\":null,\"credits\":null,\"conns_per_peer\":null},\"new\":{\"net\":\"tcp\","
		"\"ifname\":\"eth0\",\"pattern\":null,\"cpts\":null,\"peer_timeout\":null,"
		"\"peer_credits\":8,\"peer_buffer_credits\":null,\"credits\":null,\"conns_per_peer\":null}},\n"
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
	struct st_peer p1 = {"10.0.0.1@tcp", 1, 2, n1}, p2 = {"10.0.0.3@tcp", 0, 1, n2};
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
	OK(store_peer_set_mr(st, "10.0.0.3@tcp", 1, err));
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
	struct st_peer p = {nid, 1, 0, NULL};
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

Suite *make_store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, case_setup, case_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, migrates_an_empty_file);
	tcase_add_test(tc, reopening_does_not_migrate_again);
	tcase_add_test(tc, newer_database_is_refused);
	tcase_add_test(tc, non_database_is_refused);
	tcase_add_test(tc, missing_file_is_a_fresh_start_0600_whatever_the_umask);
	tcase_add_test(tc, existing_file_keeps_its_mode);
	tcase_add_test(tc, leftovers_of_a_creation_cut_short_are_replaced);
	tcase_add_test(tc, orphaned_wal_is_refused);
	tcase_add_test(tc, empty_file_is_refused_and_left_as_it_was);
	tcase_add_test(tc, unreadable_file_is_refused);
	tcase_add_test(tc, wal_and_full_sync_are_in_effect);
	tcase_add_test(tc, ni_round_trip);
	tcase_add_test(tc, peer_round_trip);
	tcase_add_test(tc, route_and_global_round_trip);
	tcase_add_test(tc, rule_positions_stay_contiguous);
	tcase_add_test(tc, refusals_name_the_object_and_change_nothing);
	tcase_add_test(tc, transactions_all_or_nothing);
	tcase_add_test(tc, history_records_every_change);
	tcase_add_test(tc, state_replace_records_only_differences);
	tcase_add_test(tc, undo_returns_to_every_generation);
	tcase_add_test(tc, crash_before_commit_leaves_nothing);
	tcase_add_test(tc, crash_after_commit_keeps_everything);
	tcase_add_test(tc, crash_anywhere_is_all_or_nothing);
	suite_add_tcase(s, tc);
	return s;
}
