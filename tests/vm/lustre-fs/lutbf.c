// SPDX-License-Identifier: GPL-2.0
/*
 * lutbf - lnetd's TBF layer for Lustre's services (lnetd/backend/lustre/
 * lu-tbf.h) from the command line, in the Lustre guest: the guest tests
 * and the T3 bench drive upstream's TBF through it, as lnetd's lustre
 * engine will.  A policy is built the way lnetd builds one (the engine's
 * lne_tbf, lnetctl's rule grammar), then:
 *
 *   lutbf apply   SERVICE [OPTIONS] [RULE...]   make the service run it
 *   lutbf check   SERVICE [OPTIONS] [RULE...]   drift: exit 1 and one line
 *                                               per difference
 *   lutbf convert SERVICE [OPTIONS] [RULE...]   print Lustre's form only
 *   lutbf show    SERVICE                       what the service lists
 *   lutbf release SERVICE                       back to fifo
 *   lutbf judge   SERVICE [OPTIONS] [RULE...]   the lustre engine's judge
 *                                               (lustre-tbf.h): exit 1 refused
 *   lutbf view                                  the lustre engine's tbf_read:
 *                                               what Lustre runs, lnetd's rates
 *   lutbf watch   PERIOD_MS SERVICE [OPTIONS] [RULE...]
 *                 the lustre engine's TBF side holding that policy, as lnetd
 *                 does: one sync, then a poll every PERIOD_MS (services that
 *                 appear are applied, drift is put back) until killed; one
 *                 line per event it logs, and "poll N: ..." per poll that did
 *                 something
 *
 *   OPTIONS: --type T (both queues; default nid), --reg-type T,
 *            --hp-type T, --depth N (both queues)
 *   RULE:    an lnetctl TBF command: "start cli nid={0@lo} rate=20",
 *            "reg change default rate=500", ...
 *
 * Exit status: 0 done (check: no drift), 1 drift (check) or refused
 * (apply, convert: the sentence on stderr), 2 usage or system error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/tbf.h"
#include "lnetd/backend/lustre/lu-tbf.h"
#include "lnetd/backend/lustre/lustre-tbf.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: lutbf apply|check|convert SERVICE [--type T] [--reg-type T] "
		"[--hp-type T] [--depth N] [RULE...]\n"
		"       lutbf show|release SERVICE\n"
		"       lutbf judge SERVICE [...] | lutbf view | lutbf watch PERIOD_MS SERVICE [...]\n");
	exit(2);
}

static struct lne_tbf *build(const char *service, int argc, char **argv)
{
	const char *type[LNE_TBF_NQUEUES] = {"nid", "nid"};
	struct lne_err err = {.pos = -1};
	struct lne_tbf *tbf;
	long depth = 0;
	int i, q;

	if (lne_tbf_new(service, &tbf, &err)) {
		fprintf(stderr, "lutbf: %s\n", err.msg);
		exit(2);
	}
	for (i = 0; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--type"))
			type[0] = type[1] = argv[i + 1];
		else if (!strcmp(argv[i], "--reg-type"))
			type[LNE_TBF_REG] = argv[i + 1];
		else if (!strcmp(argv[i], "--hp-type"))
			type[LNE_TBF_HP] = argv[i + 1];
		else if (!strcmp(argv[i], "--depth"))
			depth = strtol(argv[i + 1], NULL, 10);
		else
			usage();
	}
	for (q = 0; q < LNE_TBF_NQUEUES; q++) {
		if (lne_tbf_set_type(tbf, q, type[q], &err) ||
		    (depth && lne_tbf_set_depth(tbf, q, (u32)depth, 0, &err))) {
			fprintf(stderr, "lutbf: %s\n", err.msg);
			exit(2);
		}
	}
	for (; i < argc; i++)
		if (lne_tbf_command(tbf, argv[i], 0, &err)) {
			fprintf(stderr, "lutbf: lnetd refuses it: %s\n", err.msg);
			exit(2);
		}
	return tbf;
}

static void print_rules(const char *what, const struct lutbf_rules *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		printf("  %s %s %s %u%s\n", what, rs->r[i].name, rs->r[i].conds, rs->r[i].rate,
		       rs->r[i].realtime ? " realtime" : "");
}

static void to_stdout(void *arg, const char *sentence)
{
	(void)arg;
	printf("drift: %s\n", sentence);
}

static int show(const char *service)
{
	struct lutbf_shown s = {0};
	struct lutbf_caps caps;
	char msg[1024], what[32];
	size_t k;
	int q;

	if (lutbf_read(NULL, service, &s, msg, sizeof(msg)) ||
	    lutbf_caps_read(NULL, &s, &caps, msg, sizeof(msg))) {
		fprintf(stderr, "lutbf: %s\n", msg);
		return 2;
	}
	printf("%s: Lustre %u.%u.%u, tbf_depth %u, %u CPTs, %s\n", service, caps.ver.major,
	       caps.ver.minor, caps.ver.patch, caps.depth, caps.ncpt,
	       s.has_hp ? "reg and hp queues" : "reg queue only");
	for (q = 0; q < LUTBF_NQUEUES; q++) {
		if (q == LUTBF_HP && !s.has_hp)
			continue;
		printf(" %s: %s\n", q ? "hp" : "reg", s.q[q].policy);
		for (k = 0; k < s.q[q].ncpt; k++) {
			snprintf(what, sizeof(what), "CPT %d:", s.q[q].cpt[k]);
			print_rules(what, &s.q[q].rules[k]);
		}
	}
	lutbf_shown_free(&s);
	return 0;
}

static void log_line(void *arg, int level, const char *sentence)
{
	(void)arg;
	(void)level;
	printf("%s\n", sentence);
	fflush(stdout);
}

static int watch(long period_ms, struct lne_tbf *tbf)
{
	struct ltbf *t = ltbf_new(NULL, log_line, NULL);
	struct ltbf_result r;
	char why[1024];
	unsigned long n;

	if (!t || period_ms <= 0)
		return 2;
	ltbf_sync(t, &tbf, 1, &r);
	printf("sync: %u applied, %u failed\n", r.applied, r.failed);
	fflush(stdout);
	for (n = 1;; n++) {
		usleep((useconds_t)period_ms * 1000);
		ltbf_poll(t, &tbf, 1, &r);
		if (r.applied || r.drift || r.appeared || r.failed)
			printf("poll %lu: %u appeared, %u drift, %u applied, %u failed%s%s\n", n,
			       r.appeared, r.drift, r.applied, r.failed,
			       ltbf_applied(t, why, sizeof(why)) ? "" : ": ",
			       ltbf_applied(t, why, sizeof(why)) ? "" : why);
		fflush(stdout);
	}
	return 0;
}

static int view_one(void *arg, const struct bk_tbf_policy *p)
{
	size_t q, i;

	(void)arg;
	for (q = 0; q < p->nqueues; q++)
		for (i = 0; i < p->queues[q].nrules; i++)
			printf("%s %s %s: %s\n", p->service,
			       p->queues[q].queue == LNE_TBF_HP ? "hp" : "reg", p->queues[q].type,
			       p->queues[q].rules[i].text);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd, *service;
	struct lutbf_shown s = {0};
	struct lutbf_want w;
	struct lutbf_caps caps;
	struct lne_tbf *tbf;
	char msg[1024];
	size_t writes;
	int rc, q;

	if (argc == 2 && !strcmp(argv[1], "view")) {
		struct lne_err err = {.pos = -1, .msg = ""};

		if (ltbf_read(NULL, view_one, NULL, &err)) {
			fprintf(stderr, "lutbf: %s\n", err.msg);
			return 2;
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "watch"))
		return watch(strtol(argv[2], NULL, 10), build(argv[3], argc - 4, argv + 4));
	if (argc < 3)
		usage();
	cmd = argv[1];
	service = argv[2];
	if (!strcmp(cmd, "show"))
		return show(service);
	if (!strcmp(cmd, "release")) {
		if (lutbf_release(NULL, service, msg, sizeof(msg))) {
			fprintf(stderr, "lutbf: %s\n", msg);
			return 2;
		}
		return 0;
	}
	tbf = build(service, argc - 3, argv + 3);
	if (!strcmp(cmd, "apply")) {
		rc = lutbf_apply(NULL, tbf, &writes, msg, sizeof(msg));
		if (rc)
			fprintf(stderr, "lutbf: %s\n", msg);
		else
			printf("applied to %s with %zu writes\n", service, writes);
		lne_tbf_free(tbf);
		return rc == -EINVAL || rc == -ERANGE || rc == -EOPNOTSUPP ? 1 : rc ? 2 : 0;
	}
	if (!strcmp(cmd, "judge")) {
		rc = ltbf_judge(NULL, tbf, msg, sizeof(msg));
		if (rc)
			fprintf(stderr, "lutbf: %s\n", msg);
		lne_tbf_free(tbf);
		return rc ? 1 : 0;
	}
	if (!strcmp(cmd, "check")) {
		rc = lutbf_check(NULL, tbf, to_stdout, NULL, msg, sizeof(msg));
		if (rc < 0)
			fprintf(stderr, "lutbf: %s\n", msg);
		lne_tbf_free(tbf);
		return rc < 0 ? 2 : rc ? 1 : 0;
	}
	if (!strcmp(cmd, "convert")) {
		rc = lutbf_read(NULL, service, &s, msg, sizeof(msg));
		if (!rc)
			rc = lutbf_caps_read(NULL, &s, &caps, msg, sizeof(msg));
		if (!rc && !caps.ncpt)
			caps.ncpt = 1;
		if (!rc)
			rc = lutbf_convert(tbf, &caps, &w, msg, sizeof(msg));
		lutbf_shown_free(&s);
		lne_tbf_free(tbf);
		if (rc) {
			fprintf(stderr, "lutbf: %s\n", msg);
			return rc == -EINVAL || rc == -ERANGE || rc == -EOPNOTSUPP ? 1 : 2;
		}
		printf("%s over %u CPTs:\n", service, w.ncpt);
		for (q = 0; q < LUTBF_NQUEUES; q++) {
			if (q == LUTBF_HP && !w.has_hp)
				continue;
			printf(" %s: %s\n", q ? "hp" : "reg", w.q[q].policy);
			print_rules("", &w.q[q].rules);
		}
		lutbf_want_free(&w);
		return 0;
	}
	usage();
	return 2;
}
