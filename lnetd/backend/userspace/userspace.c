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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "engine/fault.h"
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
	lnetd_dp_policies(u->dp, false); /* the test service's TBF policy, if stored */
	*out = &u->b;
	return 0;
}

static void us_stop(struct backend *b)
{
	struct userspace *u = (struct userspace *)b;

	lnetd_dp_stop(u->dp);
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

/* --- views: the mirror is the engine, so only what the node adds to it -------------- */

/* The node's router checker writes its verdicts into the mirror (lne_route.down). */
static int us_route_states(struct backend *b, bk_route_fn fn, void *arg)
{
	const struct lne_route *rt;
	int rc = 0;

	lne_list_for_each_entry(rt, &b->d->mirror->routes, link) {
		rc = fn(arg, rt->rnet->id, &rt->gw->nid, rt->down);
		if (rc < 0)
			break;
	}
	return rc < 0 ? rc : 0;
}

static int us_explain(struct backend *b, struct bk_explain *x, struct lne_err *err)
{
	return bk_explain_inst(b->d->mirror, x, err);
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

/* --- health -------------------------------------------------------------------------- */

/* The mirror is the node's instance: SetHealth set it already. */
static int us_set_health(struct backend *b, bool peer, const struct lne_nid *nid, uint32_t value,
			 struct lne_err *err)
{
	(void)b;
	(void)peer;
	(void)nid;
	(void)value;
	(void)err;
	return 0;
}

static void us_health_done(struct backend *b, bool peer)
{
	struct lnetd_dp *dp = dp_of(b);

	/* the node's recovery takes what is now below 1000 back up */
	lne_node_health_rescan(lnetd_dp_node(dp));
	/* a local NI set to 0 or back is down or up in the ping info: a push says so */
	if (!peer)
		lnetd_dp_nis_check(dp);
	lnetd_dp_kick(dp);
}

static int us_health_stats(struct backend *b, const struct lne_nid *nid, bool *local,
			   uint32_t *health, bk_kv_fn fn, void *arg, struct lne_err *err)
{
	struct lne_node *n = lnetd_dp_node(dp_of(b));
	const struct lne_peer_ni *pni = NULL;
	const struct lne_ni *ni = lne_ni_find(n->ln, nid);
	char canon[LNE_NID_STR_MAX];

	if (!ni)
		pni = lne_peer_ni_find(n->ln, nid);
	if (!ni && !pni) {
		lne_nid_format(nid, canon, sizeof(canon));
		return lne_err_set(err, -ENOENT, NULL, -1, "%s is no NI or peer NI", canon);
	}
	*local = ni;
	*health = (uint32_t)(ni ? ni->health : pni->health);
	return lne_node_health_each(n, nid, ni, fn, arg);
}

static int us_rtr_credits(struct backend *b, const struct lne_nid *nid, int32_t *avail,
			  int32_t *min, struct lne_err *err)
{
	struct lne_node *n = lnetd_dp_node(dp_of(b));
	s32 a, m;

	if (!lne_peer_ni_find(n->ln, nid))
		return -ENOENT;
	lne_node_rtr_credits(n, nid, &a, &m);
	*avail = a;
	*min = m;
	return 0;
}

struct queued {
	bk_queued_fn fn;
	void *arg;
};

static int queued_one(void *arg, const struct lne_nid *nid, const struct lne_health *h)
{
	struct queued *q = arg;
	char s[LNE_NID_STR_MAX];

	lne_nid_format(nid, s, sizeof(s));
	return q->fn(q->arg, s, h->ping_count, h->next_ping_ms);
}

static int us_recovery(struct backend *b, bool peer, bk_queued_fn fn, void *arg,
		       struct lne_err *err)
{
	struct queued q = {fn, arg};

	(void)err;
	return lne_node_recovery_each(lnetd_dp_node(dp_of(b)), !peer, queued_one, &q);
}

/* --- fault injection (engine/fault.h): the node's rules -------------------------------- */

static int us_fault_add(struct backend *b, const struct bk_fault *f, uint32_t *id,
			struct lne_err *err)
{
	int rc = lne_fault_add(lnetd_dp_node(dp_of(b)), f->attr, err);

	if (rc < 0)
		return rc;
	*id = (uint32_t)rc;
	lnetd_dp_kick(dp_of(b));
	return 0;
}

static int us_fault_del(struct backend *b, bool delay, const struct lne_nid *src,
			const struct lne_nid *dst, bool all, uint32_t *gone, struct lne_err *err)
{
	(void)err;
	*gone = (uint32_t)lne_fault_del(lnetd_dp_node(dp_of(b)), delay, src, dst, all);
	return 0;
}

static int us_fault_reset(struct backend *b, bool delay, struct lne_err *err)
{
	(void)err;
	lne_fault_reset(lnetd_dp_node(dp_of(b)), delay);
	return 0;
}

/* A rule as backend.h lists it: its options copied (their text lives in a call). */
struct listing {
	bk_fault_fn fn;
	void *arg;
	struct bk_fault_rule r;
	char text[BK_FAULT_OPTS_MAX][LNW_PORTALS * 3 + 16]; /* lne_fault_attr_each()'s longest */
};

static int opt_one(void *arg, const char *key, const char *value)
{
	struct listing *l = arg;

	if (l->r.nopt == BK_FAULT_OPTS_MAX)
		return -E2BIG;
	snprintf(l->text[l->r.nopt], sizeof(l->text[0]), "%s", value);
	l->r.key[l->r.nopt] = key;
	l->r.value[l->r.nopt] = l->text[l->r.nopt];
	l->r.nopt++;
	return 0;
}

static int rule_one(void *arg, const struct lne_fault *f)
{
	static const char *const types[4] = {"ack", "put", "get", "reply"};
	struct listing *l = arg;
	int rc, t;

	memset(&l->r, 0, sizeof(l->r));
	l->r.id = f->id;
	rc = lne_fault_attr_each(&f->a, opt_one, l);
	if (rc < 0)
		return rc;
	l->r.stat[0] = "count";
	l->r.count[0] = f->st.count;
	l->r.stat[1] = f->a.delay ? "delayed" : "dropped";
	l->r.count[1] = f->st.hit;
	for (t = 0; t < 4; t++) {
		l->r.stat[2 + t] = types[t];
		l->r.count[2 + t] = f->st.type[t];
	}
	l->r.nstat = 6;
	return l->fn(l->arg, &l->r);
}

static int us_fault_list(struct backend *b, bool delay, bk_fault_fn fn, void *arg,
			 struct lne_err *err)
{
	struct listing *l = calloc(1, sizeof(*l));
	int rc;

	(void)err;
	if (!l)
		return -ENOMEM;
	l->fn = fn;
	l->arg = arg;
	rc = lne_fault_each(lnetd_dp_node(dp_of(b)), delay, rule_one, l);
	free(l);
	return rc;
}

const struct backend_ops bk_userspace_ops = {
	.name = "userspace",
	.help = "lnetd itself: no module needed",
	.start = us_start,
	.stop = us_stop,
	.sync = us_sync,
	.mirror_replaced = us_sync,
	.tbf_changed = us_tbf_changed,
	.ni_link = us_ni_link,
	.route_states = us_route_states,
	.ping = us_ping,
	.discover = us_discover,
	.selftest = us_selftest,
	.counters = us_counters,
	.counters_reset = us_counters_reset,
	.test_service = us_test_service,
	.set_health = us_set_health,
	.health_done = us_health_done,
	.health_stats = us_health_stats,
	.rtr_credits = us_rtr_credits,
	.recovery = us_recovery,
	.fault_add = us_fault_add,
	.fault_del = us_fault_del,
	.fault_reset = us_fault_reset,
	.fault_list = us_fault_list,
	.explain = us_explain,
};
