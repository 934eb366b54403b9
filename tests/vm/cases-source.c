// SPDX-License-Identifier: GPL-2.0
/*
 * cases-source.c - a request source in another module (tests/vm/nrs-src,
 * lnetk_nrs_src.ko) driving a TBF policy through lnetk's exported API
 * (kernel/lnetk_nrs.h), as a real service's request handler would.
 *
 * source KO: three clients, two on the reg queue and one on hp, each with a
 * rule of its own (500, 1000 and 2000 requests/s); the module serves them
 * for 2 s of guest time.  What the scheduler guarantees however busy the
 * machine is asserted: no client gets more than rate x elapsed + depth,
 * each gets at least its first bucket (none starves), and each client's
 * requests leave in the order it queued them.  How close each comes to its
 * rate depends on how promptly the guest wakes the module, so it is printed
 * as a figure (a "#" line), not asserted.  The rules'
 * statistics must count every dispatch and, once the source has closed
 * the policy, no queued request.  While the module holds the policy,
 * TBF_DEL and TBF_LOAD of it are refused with EBUSY and a sentence, and a
 * rate change still goes through; once it is removed, the policy can go.
 * Loading the module for a service without a policy fails with ENOENT,
 * with a malformed NID with EINVAL.  The module also leaves SPREAD more
 * classes with a request queued each, and the class dump (TBF_CLASS_GET)
 * must list every class once, with its rule and counts.
 *
 * Runs in the initial network namespace: the module opens init_net's
 * policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vm.h"

#define SRC_NAME "lnetk_nrs_src"
#define SERVICE	 "nrs_src"
#define SPREAD	 1000 /* clients with one request queued each */
#define DEPTH	 16   /* the policy's bucket depth */

static const char *const nid[] = {"10.2.0.1@tcp", "10.2.0.2@tcp", "10.2.0.3@tcp"};
static const unsigned int rate[] = {500, 1000, 2000};

/* insmod @ko with @params: 0 or -errno. */
static int src_load(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = (int)syscall(SYS_finit_module, fd, params, 0);
	rc = rc ? -errno : 0;
	close(fd);
	return rc;
}

static int src_unload(void)
{
	return syscall(SYS_delete_module, SRC_NAME, O_NONBLOCK) ? -errno : 0;
}

struct got {
	unsigned long long elapsed, enq[3], disp[3], disorder[3];
	int n;
};

static int src_result(struct got *g)
{
	FILE *f = fopen("/sys/module/" SRC_NAME "/parameters/result", "r");
	char name[64];
	int i;

	memset(g, 0, sizeof(*g));
	if (!f)
		return -errno;
	if (fscanf(f, "elapsed %llu\n", &g->elapsed) != 1)
		g->n = -1;
	for (i = 0; g->n >= 0 && i < 3; i++) {
		if (fscanf(f, "%63s %llu %llu %llu\n", name, &g->enq[i], &g->disp[i],
			   &g->disorder[i]) != 4 ||
		    strcmp(name, nid[i]))
			break;
		g->n++;
	}
	fclose(f);
	return g->n == 3 ? 0 : -EBADMSG;
}

static int stats_cb(const struct lnetk_tbf *t, void *arg)
{
	unsigned long long *sum = arg;
	size_t q, i;

	for (q = 0; q < t->nqueues; q++)
		for (i = 0; i < t->queues[q].nrules; i++) {
			sum[0] += t->queues[q].rules[i].dispatched;
			sum[1] += t->queues[q].rules[i].queued;
		}
	return 0;
}

struct class_tally {
	int n, reg, hp, spread, dup;
	unsigned long long disp[3], queued_spread;
	char (*seen)[48];
};

static int class_cb(const struct lnetk_tbf_class *c, void *arg)
{
	struct class_tally *t = arg;
	int i;

	for (i = 0; i < t->n && i < SPREAD + 3; i++)
		if (!strcmp(t->seen[i], c->key))
			t->dup++;
	if (t->n < SPREAD + 3)
		snprintf(t->seen[t->n], sizeof(t->seen[0]), "%s", c->key);
	t->n++;
	if (c->queue == LNETK_TBF_HP)
		t->hp++;
	else
		t->reg++;
	for (i = 0; i < 3; i++)
		if (!strncmp(c->key, "nid=", 4) && !strcmp(c->key + 4, nid[i]) &&
		    c->rule[0] == 'c' && c->rule[1] - '0' == i)
			t->disp[i] = c->dispatched;
	if (!strncmp(c->key, "nid=10.3.", 9) && !strcmp(c->rule, "default")) {
		t->spread++;
		t->queued_spread += c->queued;
	}
	return 0;
}

/*
 * TBF_CLASS_GET: SPREAD + 3 classes of about 100 bytes each take more than
 * one dump message (32 KiB at most): every class exactly once, with the
 * rule it follows and the source's counts.
 */
static void classes(struct lnetk *lk, const unsigned long long *disp)
{
	struct class_tally t = {0};
	struct lnetk_err err;
	int rc, i, same = 0;

	t.seen = calloc(SPREAD + 3, sizeof(*t.seen));
	rc = t.seen ? lnetk_tbf_classes(lk, SERVICE, class_cb, &t, &err) : -ENOMEM;
	for (i = 0; i < 3; i++)
		same += t.disp[i] == disp[i];
	tap(!rc && t.n == SPREAD + 3 && !t.dup && t.reg == SPREAD + 2 && t.hp == 1,
	    "source: TBF_CLASS_GET lists %d classes (%d reg, %d hp) over several messages, each "
	    "once (%s, %d repeated)",
	    t.n, t.reg, t.hp, errname(rc), t.dup);
	tap(!rc && same == 3 && t.spread == SPREAD && t.queued_spread == SPREAD,
	    "source: each client's class follows its rule with the source's count (%d of 3), the %d "
	    "spread ones the default with one request queued each (%llu)",
	    same, t.spread, t.queued_spread);
	free(t.seen);
	rc = lnetk_tbf_classes(lk, "nrs_none", class_cb, &t, &err);
	tap(rc == -ENOENT && strstr(err.msg, "no TBF policy"),
	    "source: TBF_CLASS_GET of a service without a policy: %s, \"%s\"", errname(rc),
	    err.msg);
}

void cases_source(const char *ko)
{
	unsigned long long sum[2] = {0, 0}, total = 0;
	struct lnetk_tbf_load_class lc = {.nid = "10.2.0.9@tcp", .queue = -1};
	struct lnetk_err err;
	char params[256], cmd[128];
	struct lnetk *lk;
	struct got g;
	int rc, i;

	lk = open_or_fail("source");
	if (!lk)
		return;
	/* Depth 16: a wake-up late by up to 15 tokens' time loses nothing. */
	rc = lnetk_tbf_set(lk, SERVICE, -1, NULL, DEPTH, &err);
	for (i = 0; !rc && i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "%s start c%d nid={%s} rate=%u", i == 2 ? "hp" : "reg",
			 i, nid[i], rate[i]);
		rc = lnetk_tbf_cmd(lk, SERVICE, cmd, &err);
	}
	tap(!rc, "source: a policy with a rule per client, the third on hp (%s %s)", errname(rc),
	    err.msg);

	snprintf(params, sizeof(params), "service=%s ms=2000 nids=%s,%s,%s hp=%s hold=1 spread=%d",
		 SERVICE, nid[0], nid[1], nid[2], nid[2], SPREAD);
	rc = src_load(ko, params);
	tap(!rc, "source: %s loads and serves the policy through lnetk_nrs_* (%s)", SRC_NAME,
	    errname(rc));
	rc = rc ?: src_result(&g);
	tap(!rc && g.elapsed >= 2000000000ull,
	    "source: it ran for at least 2 s of guest time (%s, %.3f s)", errname(rc),
	    g.elapsed / 1e9);
	for (i = 0; i < 3; i++)
		total += g.disp[i];
	tbf_guarantees("source", nid, rate, 3, g.elapsed, DEPTH, g.disp, g.disorder, !rc);
	rc = lnetk_tbf_get(lk, SERVICE, stats_cb, sum, &err);
	tap(!rc && sum[0] == total && sum[1] == SPREAD,
	    "source: the rules counted every dispatch (%llu of %llu) and, the load's requests "
	    "cancelled at close, only the %d spread ones queued (%llu)",
	    sum[0], total, SPREAD, sum[1]);

	classes(lk, g.disp);

	/* The module holds the policy now. */
	rc = lnetk_tbf_del(lk, SERVICE, &err);
	tap(rc == -EBUSY && strstr(err.msg, "request source"),
	    "source: TBF_DEL of a policy a source holds is refused (%s, \"%s\")", errname(rc),
	    err.msg);
	rc = lnetk_tbf_load(lk, SERVICE, 100, &lc, 1, NULL, &err);
	tap(rc == -EBUSY && strstr(err.msg, "holds this policy"),
	    "source: TBF_LOAD of a policy a source holds is refused (%s, \"%s\")", errname(rc),
	    err.msg);
	rc = lnetk_tbf_cmd(lk, SERVICE, "reg change c0 rate=50", &err);
	tap(!rc, "source: a rule still changes while a source holds the policy (%s %s)",
	    errname(rc), err.msg);
	rc = src_unload();
	tap(!rc, "source: %s is removed, closing the policy (%s)", SRC_NAME, errname(rc));
	rc = lnetk_tbf_load(lk, SERVICE, 50, &lc, 1, NULL, &err);
	tap(!rc, "source: once closed, another source may open it (TBF_LOAD: %s %s)", errname(rc),
	    err.msg);

	rc = src_load(ko, "service=nrs_none nids=10.2.0.1@tcp");
	tap(rc == -ENOENT, "source: a service without a policy: the load fails with ENOENT (%s)",
	    errname(rc));
	if (!rc)
		src_unload();
	snprintf(params, sizeof(params), "service=%s nids=10.2.0.[1-2]@tcp", SERVICE);
	rc = src_load(ko, params);
	tap(rc == -EINVAL, "source: a NID range is not a NID: the load fails with EINVAL (%s)",
	    errname(rc));
	if (!rc)
		src_unload();

	rc = lnetk_tbf_del(lk, SERVICE, &err);
	tap(!rc, "source: TBF_DEL once no source holds it (%s %s)", errname(rc), err.msg);
	lnetk_close(lk);
}
