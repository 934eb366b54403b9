// SPDX-License-Identifier: GPL-2.0
/*
 * userspace.c - the userspace engine (--engine=userspace): the mirror is
 * the engine, and lnetd is an LNet node itself, its data path (dp.h) on
 * the event loop.  Configuration needs no pushing: every change the mirror
 * takes is running already, so @sync only points the node at the mirror
 * and listens where the NIs are.  The views are the mirror's (no view op);
 * the data path ops are the node's.
 */
#include <errno.h>
#include <stdlib.h>

#include "dp.h"
#include "lnetd/backend/backend.h"
#include "lnetd/lnetd.h"

struct userspace {
	struct backend b; /* first */
	struct lnetd_dp *dp;
};

static struct lnetd_dp *dp_of(struct backend *b)
{
	return ((struct userspace *)b)->dp;
}

static int us_start(struct lnetd *d, struct backend **out)
{
	struct userspace *u = calloc(1, sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	rc = lnetd_dp_start(d, d->lnet_port, &u->dp);
	if (rc < 0) {
		free(u);
		return rc;
	}
	d->dp = u->dp;
	lnetd_dp_policies(u->dp, false); /* the test service's TBF policy, if stored */
	*out = &u->b;
	return 0;
}

static void us_stop(struct backend *b)
{
	struct userspace *u = (struct userspace *)b;

	lnetd_dp_stop(u->dp);
	b->d->dp = NULL;
	free(u);
}

static void us_sync(struct backend *b)
{
	lnetd_dp_sync(dp_of(b));
}

static void us_tbf_changed(struct backend *b, bool detach)
{
	lnetd_dp_policies(dp_of(b), detach);
}

/* With the node on the mirror it acts at once: a link that went down fails its
 * messages over to other NIs, one that came up is pinged back to health. */
static bool us_ni_link(struct backend *b, const struct lne_nid *nid, bool up)
{
	struct lne_node *nd = lnetd_dp_node(dp_of(b));

	if (!nd || nd->ln != b->d->mirror)
		return false;
	lne_node_ni_link(nd, nid, up, NULL);
	lnetd_dp_kick(dp_of(b));
	return true;
}

/* --- the data path ---------------------------------------------------------------------- */

static int us_ping(struct backend *b, struct bk_call *c)
{
	return lnetd_dp_ping(dp_of(b), c);
}

static int us_discover(struct backend *b, struct bk_call *c)
{
	return lnetd_dp_discover(dp_of(b), c);
}

static int us_selftest(struct backend *b, struct bk_call *c)
{
	return lnetd_dp_selftest(dp_of(b), c);
}

struct counting {
	bk_count_fn fn;
	void *arg;
	const char *nid;
	bool local;
};

static int count_one(void *arg, const char *name, u64 v)
{
	struct counting *x = arg;

	return x->fn(x->arg, x->nid, x->local, name, v);
}

/* The node's totals and its own counters, then each NID's, as the module lists them. */
static int us_counters(struct backend *b, bk_count_fn fn, void *arg, struct lne_err *err)
{
	struct lne_node *n = lnetd_dp_node(dp_of(b));
	struct counting x = {.fn = fn, .arg = arg};
	const struct lne_stat *s;
	char nid[LNE_NID_STR_MAX];
	struct lne_nid id;
	uint32_t k;
	int rc;

	(void)err;
	rc = lne_counts_each(&n->st.c, count_one, &x);
	if (rc >= 0)
		rc = lne_node_stats_each(n, count_one, &x);
	for (k = 0; rc >= 0 && k < LNE_STAT_HASH; k++)
		for (s = n->stats[k]; rc >= 0 && s; s = s->hnext) {
			lne_node_nid(n, s->nid, &id);
			lne_nid_format(&id, nid, sizeof(nid));
			x.nid = nid;
			x.local = s->local;
			rc = lne_counts_each(&s->c, count_one, &x);
		}
	return rc < 0 ? rc : 0;
}

static int us_counters_reset(struct backend *b, struct lne_err *err)
{
	(void)err;
	lne_node_stats_reset(lnetd_dp_node(dp_of(b)));
	return 0;
}

static int us_test_service(struct backend *b, bool on, struct lne_err *err)
{
	(void)err;
	lnetd_dp_node(dp_of(b))->test_service = on;
	return 0;
}

const struct backend_ops bk_userspace_ops = {
	.name = "userspace",
	.help = "lnetd itself: no module needed",
	.module = "userspace",
	.start = us_start,
	.stop = us_stop,
	.sync = us_sync,
	.mirror_replaced = us_sync,
	.tbf_changed = us_tbf_changed,
	.ni_link = us_ni_link,
	.ping = us_ping,
	.discover = us_discover,
	.selftest = us_selftest,
	.counters = us_counters,
	.counters_reset = us_counters_reset,
	.test_service = us_test_service,
};
