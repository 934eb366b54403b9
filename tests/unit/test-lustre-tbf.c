// SPDX-License-Identifier: GPL-2.0
/*
 * The lustre engine's TBF side (lnetd/backend/lustre/lustre-tbf.c) on a
 * fake node: a temporary debugfs and sysfs whose services' nrs_policies
 * and nrs_tbf_rule hold what Lustre would list, kept by the model of
 * lutbf-sim.c, which takes every write the layer makes (lutbf_env's
 * write hook) as Lustre would and lists the result again.  A service
 * appears or goes as its directory does, as a target mounts or unmounts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/tbf.h"
#include "lnetd/backend/lustre/lustre-tbf.h"
#include "lutbf-sim.h"
#include "unit.h"

#define NSVC 2

struct node {
	char root[64], debugfs[128], sys[128];
	struct lutbf_env env;
	const char *names[NSVC]; /* ost_io, mdt_fld */
	struct sim sim[NSVC];
	unsigned writes;
	char log[8192];
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void dir_of(const struct node *n, int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s/lustre/%s/%s", n->debugfs, i ? "mds/MDS" : "ost/OSS", n->names[i]);
}

/* The service's two files as its model lists them. */
static void render(struct node *n, int i)
{
	char dir[256], path[300];
	const char *p, *r;

	dir_of(n, i, dir, sizeof(dir));
	sim_text(&n->sim[i], &p, &r);
	snprintf(path, sizeof(path), "%s/nrs_policies", dir);
	put(path, p);
	snprintf(path, sizeof(path), "%s/nrs_tbf_rule", dir);
	put(path, r);
}

static int svc_of(const struct node *n, const char *path)
{
	int i;

	for (i = 0; i < NSVC; i++) {
		char dir[256];

		dir_of(n, i, dir, sizeof(dir));
		if (!strncmp(path, dir, strlen(dir)) && path[strlen(dir)] == '/')
			return i;
	}
	ck_abort_msg("a write to %s, no service of the fake node", path);
	return -1;
}

static int on_write(void *arg, const char *path, const char *text)
{
	struct node *n = arg;
	int i = svc_of(n, path);
	struct lutbf_write w = {.file = strstr(path, "/nrs_policies") ? LUTBF_POLICIES : LUTBF_RULE,
				.text = (char *)text};

	n->writes++;
	sim_write(&n->sim[i], &w);
	render(n, i);
	return 0;
}

/* Behind lnetd's back, as `lctl set_param` would. */
static void lctl(struct node *n, int i, const char *file, const char *text)
{
	struct lutbf_write w = {.file = !strcmp(file, "nrs_policies") ? LUTBF_POLICIES : LUTBF_RULE,
				.text = (char *)text};

	sim_write(&n->sim[i], &w);
	render(n, i);
}

/* A target mounted: the service is there, running fifo (ost_io: 2 CPTs and hp; mdt_fld: 1, no hp). */
static void mount_svc(struct node *n, int i)
{
	char dir[256], cmd[300];

	dir_of(n, i, dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memset(&n->sim[i], 0, sizeof(n->sim[i]));
	n->sim[i].ncpt = i ? 1 : 2;
	n->sim[i].has_hp = !i;
	sim_fresh(&n->sim[i], 0, "fifo");
	sim_fresh(&n->sim[i], 1, "fifo");
	render(n, i);
}

static void umount_svc(struct node *n, int i)
{
	char dir[256], cmd[300];

	dir_of(n, i, dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void log_cb(void *arg, int level, const char *sentence)
{
	struct node *n = arg;
	size_t len = strlen(n->log);

	(void)level;
	snprintf(n->log + len, sizeof(n->log) - len, "%s\n", sentence);
}

static struct node *node_new(void)
{
	struct node *n = calloc(1, sizeof(*n));
	char path[300], cmd[600];

	ck_assert_ptr_nonnull(n);
	snprintf(n->root, sizeof(n->root), "/tmp/lnetd-ltbf-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(n->root));
	snprintf(n->debugfs, sizeof(n->debugfs), "%s/debug", n->root);
	snprintf(n->sys, sizeof(n->sys), "%s/sys", n->root);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/fs/lustre %s/module/ptlrpc/parameters %s/lustre",
		 n->sys, n->sys, n->debugfs);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/fs/lustre/version", n->sys);
	put(path, "2.17.57\n");
	snprintf(path, sizeof(path), "%s/module/ptlrpc/parameters/tbf_depth", n->sys);
	put(path, "3\n");
	n->names[0] = "ost_io";
	n->names[1] = "mdt_fld";
	n->env = (struct lutbf_env){
		.debugfs = n->debugfs, .sys = n->sys, .write = on_write, .write_arg = n};
	return n;
}

static void node_free(struct node *n)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", n->root);
	ck_assert_int_eq(system(cmd), 0);
	free(n);
}

static struct lne_tbf *policy(const char *service, const char *type, const char *const *cmds)
{
	struct lne_err err = {.pos = -1};
	struct lne_tbf *tbf;
	int q;

	ck_assert_int_eq(lne_tbf_new(service, &tbf, &err), 0);
	for (q = 0; q < LNE_TBF_NQUEUES; q++)
		ck_assert_int_eq(lne_tbf_set_type(tbf, (enum lne_tbf_queue)q, type, &err), 0);
	for (; cmds && *cmds; cmds++)
		ck_assert_msg(!lne_tbf_command(tbf, *cmds, 0, &err), "%s: %s", *cmds, err.msg);
	return tbf;
}

/* Whether every CPT of queue @q of service @i lists exactly @names (space-separated) at @rate for the first. */
static bool lists(const struct node *n, int i, int q, const char *names, unsigned rate)
{
	const struct sim *s = &n->sim[i];
	unsigned k, j;

	for (k = 0; k < s->ncpt; k++) {
		char got[512] = "";

		for (j = 0; j < s->n[q][k]; j++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", j ? " " : "",
				 s->r[q][k][j].name);
		if (strcmp(got, names) || s->r[q][k][0].rate != rate)
			return false;
	}
	return s->ncpt > 0;
}

static const char *const CLI[] = {"start cli nid={0@lo} rate=20", NULL};

START_TEST(sync_present_and_again)
{
	struct node *n = node_new();
	struct lne_tbf *tbf = policy("ost_io", "nid", CLI);
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct ltbf_result r;
	char why[512];

	mount_svc(n, 0);
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_int_eq(r.applied, 1);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_str_eq(n->sim[0].policy[0], "tbf nid");
	ck_assert_str_eq(n->sim[0].policy[1], "tbf nid");
	/* a nid-keyed class lives in one CPT: its rate is not divided */
	ck_assert(lists(n, 0, 0, "cli default", 20));
	ck_assert(lists(n, 0, 1, "cli default", 20));
	ck_assert(ltbf_applied(t, why, sizeof(why)));
	/* again: nothing to write */
	n->writes = 0;
	ltbf_sync(t, &tbf, 1, &r);
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(n->writes, 0);
	ck_assert_int_eq(r.drift, 0);
	/* lnetd restarted: a new instance finds it held and writes nothing */
	ltbf_free(t);
	t = ltbf_new(&n->env, log_cb, n);
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_int_eq(n->writes, 0);
	ck_assert_int_eq(r.applied, 0);
	ltbf_free(t);
	lne_tbf_free(tbf);
	node_free(n);
}
END_TEST

START_TEST(rate_divided_unless_nid)
{
	static const char *const job[] = {"start j jobid={dd.0} rate=20", NULL};
	static const char *const both[] = {"start w nid={0@lo}&opcode={ost_write} rate=20", NULL};
	struct node *n = node_new();
	struct lne_tbf *tbf = policy("ost_io", "jobid", job);
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct ltbf_result r;

	mount_svc(n, 0);
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_int_eq(r.applied, 1);
	ck_assert_str_eq(n->sim[0].policy[0], "tbf jobid");
	ck_assert(lists(n, 0, 0, "j default", 10)); /* 20 over 2 CPTs */
	lne_tbf_free(tbf);
	tbf = policy("ost_io", "nid+opcode", both);
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_str_eq(n->sim[0].policy[0], "tbf nid+opcode");
	ck_assert(lists(n, 0, 0, "w default", 20)); /* keyed by nid: not divided */
	ltbf_free(t);
	lne_tbf_free(tbf);
	node_free(n);
}
END_TEST

START_TEST(appears_goes_comes_back)
{
	struct node *n = node_new();
	struct lne_tbf *tbf = policy("ost_io", "nid", CLI);
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct ltbf_result r;
	char why[512];

	/* no OST mounted: nothing to write, nothing wrong */
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_int_eq(n->writes, 0);
	ck_assert(ltbf_applied(t, why, sizeof(why)));
	ck_assert(!ltbf_present(t, "ost_io"));
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(n->writes, 0);
	/* the first OST is mounted: the next poll applies it */
	mount_svc(n, 0);
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(r.appeared, 1);
	ck_assert_int_eq(r.applied, 1);
	ck_assert(lists(n, 0, 0, "cli default", 20));
	ck_assert_ptr_nonnull(strstr(n->log, "service ost_io appeared"));
	/* the last OST unmounted, then one mounted again: ost_io back with fifo */
	umount_svc(n, 0);
	n->writes = 0;
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(n->writes, 0);
	ck_assert_ptr_nonnull(strstr(n->log, "service ost_io is gone"));
	mount_svc(n, 0);
	ck_assert_str_eq(n->sim[0].policy[0], "fifo");
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(r.appeared, 1);
	ck_assert(lists(n, 0, 0, "cli default", 20));
	ck_assert(lists(n, 0, 1, "cli default", 20));
	ltbf_free(t);
	lne_tbf_free(tbf);
	node_free(n);
}
END_TEST

START_TEST(drift_put_back)
{
	struct node *n = node_new();
	struct lne_tbf *tbf = policy("ost_io", "nid", CLI);
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct ltbf_result r;

	mount_svc(n, 0);
	ltbf_sync(t, &tbf, 1, &r);
	lctl(n, 0, "nrs_tbf_rule", "reg change cli rate=50");
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(r.drift, 1);
	ck_assert_ptr_nonnull(strstr(n->log, "TBF drift on service ost_io: ost_io reg"));
	ck_assert_ptr_nonnull(strstr(n->log, "rule cli rate is 50, lnetd wants 20"));
	ck_assert(lists(n, 0, 0, "cli default", 20));
	lctl(n, 0, "nrs_tbf_rule", "hp start intruder nid={1@lo} rate=5");
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(r.drift, 1);
	ck_assert(lists(n, 0, 1, "cli default", 20));
	lctl(n, 0, "nrs_policies", "fifo reg");
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(r.drift, 1);
	ck_assert_str_eq(n->sim[0].policy[0], "tbf nid");
	ck_assert(lists(n, 0, 0, "cli default", 20));
	/* put back: the next look finds nothing */
	n->writes = 0;
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_int_eq(r.drift, 0);
	ck_assert_int_eq(n->writes, 0);
	ltbf_free(t);
	lne_tbf_free(tbf);
	node_free(n);
}
END_TEST

START_TEST(release_only_what_lnetd_held)
{
	static const char *const fld[] = {"start f nid={0@lo} rate=100", NULL};
	struct node *n = node_new();
	struct lne_tbf *tbf = policy("ost_io", "nid", CLI);
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct ltbf_result r;

	mount_svc(n, 0);
	mount_svc(n, 1);
	lctl(n, 1, "nrs_policies", "tbf reg nid"); /* the admin's own, on mdt_fld */
	lctl(n, 1, "nrs_tbf_rule", "reg start f nid={0@lo} rate=100");
	ltbf_sync(t, &tbf, 1, &r);
	ltbf_sync(t, NULL, 0, &r); /* lnetd's policy deleted */
	ck_assert_int_eq(r.released, 1);
	ck_assert_str_eq(n->sim[0].policy[0], "fifo");
	ck_assert_str_eq(n->sim[0].policy[1], "fifo");
	ck_assert_str_eq(n->sim[1].policy[0], "tbf nid"); /* never lnetd's: left alone */
	ck_assert(lists(n, 1, 0, "f default", 100));
	lne_tbf_free(tbf);
	/* a service without hp takes a policy whose hp queue asks nothing of its own */
	tbf = policy("mdt_fld", "nid", fld);
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_int_eq(r.failed, 0);
	ck_assert(lists(n, 1, 0, "f default", 100));
	ltbf_free(t);
	lne_tbf_free(tbf);
	node_free(n);
}
END_TEST

START_TEST(refusals)
{
	static const char *const one[] = {"start j jobid={dd.0} rate=1", NULL};
	static const char *const enq[] = {"start o opcode={ldlm_enqueue} rate=10", NULL};
	struct node *n = node_new();
	struct lne_tbf *tbf;
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct ltbf_result r;
	char msg[512], why[512];

	mount_svc(n, 0);
	/* Lustre's opcode bitmap */
	tbf = policy("ost_io", "opcode", enq);
	ck_assert_int_eq(ltbf_judge(&n->env, tbf, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "ldlm_enqueue"));
	lne_tbf_free(tbf);
	/* not a Lustre service */
	tbf = policy("lnetk_test", "nid", CLI);
	ck_assert_int_ne(ltbf_judge(&n->env, tbf, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "not a Lustre service with NRS"));
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert(!ltbf_applied(t, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "lnetk_test"));
	lne_tbf_free(tbf);
	/* a depth other than ptlrpc's tbf_depth */
	tbf = policy("ost_io", "nid", CLI);
	ck_assert_int_eq(lne_tbf_set_depth(tbf, LNE_TBF_REG, 5, 0, &(struct lne_err){.pos = -1}),
			 0);
	ck_assert_int_eq(ltbf_judge(&n->env, tbf, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "tbf_depth (3)"));
	lne_tbf_free(tbf);
	/* 1 RPC/s of a jobid class over 2 CPTs: known once TBF runs there */
	tbf = policy("ost_io", "jobid", one);
	lctl(n, 0, "nrs_policies", "tbf reg jobid");
	ck_assert_int_eq(ltbf_judge(&n->env, tbf, msg, sizeof(msg)), -ERANGE);
	ck_assert_ptr_nonnull(strstr(msg, "cannot be spread over the 2 CPU partitions"));
	/* and at sync, when the judge could not know: refused, nothing changed, said why */
	lctl(n, 0, "nrs_policies", "fifo reg");
	n->writes = 0;
	ltbf_sync(t, &tbf, 1, &r);
	ck_assert_int_eq(r.failed, 1);
	ck_assert_str_eq(n->sim[0].policy[0], "fifo");
	ck_assert(!ltbf_applied(t, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "cannot be spread"));
	ck_assert_ptr_nonnull(strstr(n->log, "TBF policy of service ost_io not held"));
	/* said once, not at every poll */
	n->log[0] = '\0';
	ltbf_poll(t, &tbf, 1, &r);
	ck_assert_str_eq(n->log, "");
	ltbf_free(t);
	lne_tbf_free(tbf);
	node_free(n);
}
END_TEST

struct seen {
	char text[2048];
};

static int view_cb(void *arg, const struct bk_tbf_policy *p)
{
	struct seen *s = arg;
	size_t q, i, len;

	for (q = 0; q < p->nqueues; q++)
		for (i = 0; i < p->queues[q].nrules; i++) {
			len = strlen(s->text);
			snprintf(s->text + len, sizeof(s->text) - len, "%s %s %s %u: %s|%u\n",
				 p->service, p->queues[q].queue == LNE_TBF_HP ? "hp" : "reg",
				 p->queues[q].type, p->queues[q].depth, p->queues[q].rules[i].text,
				 p->queues[q].rules[i].rate);
		}
	return 0;
}

START_TEST(view)
{
	static const char *const job[] = {"start j jobid={dd.0} rate=20", NULL};
	struct node *n = node_new();
	struct lne_tbf *tbf[2] = {policy("ost_io", "jobid", job), policy("mdt_fld", "nid", CLI)};
	struct ltbf *t = ltbf_new(&n->env, log_cb, n);
	struct lne_err err = {.pos = -1};
	struct seen s = {""};

	mount_svc(n, 0);
	mount_svc(n, 1);
	ck_assert_int_eq(ltbf_read(&n->env, view_cb, &s, &err), 0);
	ck_assert_str_eq(s.text, ""); /* fifo everywhere: no policy runs */
	ltbf_sync(t, tbf, 2, NULL);
	ck_assert_int_eq(ltbf_read(&n->env, view_cb, &s, &err), 0);
	ck_assert_str_eq(s.text, "ost_io reg jobid 3: start j jobid={dd.0} rate=20|20\n"
				 "ost_io reg jobid 3: change default rate=10000|10000\n"
				 "ost_io hp jobid 3: start j jobid={dd.0} rate=20|20\n"
				 "ost_io hp jobid 3: change default rate=10000|10000\n"
				 "mdt_fld reg nid 3: start cli nid={0@lo} rate=20|20\n"
				 "mdt_fld reg nid 3: change default rate=10000|10000\n");
	ltbf_free(t);
	lne_tbf_free(tbf[0]);
	lne_tbf_free(tbf[1]);
	node_free(n);
}
END_TEST

void lutbf_tests_engine(TCase *tc);

void lutbf_tests_engine(TCase *tc)
{
	tcase_add_test(tc, sync_present_and_again);
	tcase_add_test(tc, rate_divided_unless_nid);
	tcase_add_test(tc, appears_goes_comes_back);
	tcase_add_test(tc, drift_put_back);
	tcase_add_test(tc, release_only_what_lnetd_held);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, view);
}
