// SPDX-License-Identifier: GPL-2.0
/*
 * dp-cmd.c - the module's data path, what its genl commands call
 * (nl-dp.c, nl-health.c): counters, ping and discovery, the traffic
 * generator.
 */
#include "dp-int.h"

/* --- counters, for the genl command -------------------------------------------------- */

static int put_item(void *arg, const char *name, u64 v)
{
	struct sk_buff *skb = arg;
	struct nlattr *it = nla_nest_start(skb, LNETK_CNT_A_ITEM);

	if (!it || nla_put_string(skb, LNETK_CNT_A_NAME, name) ||
	    nla_put_u64_64bit(skb, LNETK_CNT_A_VALUE, v, LNETK_CNT_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, it);
	return 0;
}

static int put_entry(struct sk_buff *skb, const struct lne_stat *st, const struct lne_node *n)
{
	struct nlattr *e = nla_nest_start(skb, LNETK_CNT_A_ENTRY);
	int rc = e ? 0 : -EMSGSIZE;

	if (!rc && st) {
		struct lne_nid nid;
		char text[LNE_NID_STR_MAX];

		lne_node_nid(n, st->nid, &nid);
		lne_nid_format(&nid, text, sizeof(text));
		rc = nla_put_string(skb, LNETK_CNT_A_NID, text)
			     ?: nla_put_u8(skb, LNETK_CNT_A_LOCAL, st->local);
	}
	if (!rc)
		rc = lne_counts_each(st ? &st->c : &n->st.c, put_item, skb);
	if (!rc && !st)
		rc = lne_node_stats_each(n, put_item, skb);
	if (rc) {
		if (e)
			nla_nest_cancel(skb, e);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, e);
	return 0;
}

int lnetk_dp_counters(struct lnetk_net *ln, struct sk_buff *skb)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct nlattr *all;
	bool truncated = false;
	u32 b;

	if (!dp)
		return -ENODEV;
	all = nla_nest_start(skb, LNETK_A_COUNTERS);
	if (!all)
		return -EMSGSIZE;
	mutex_lock(&dp->lock);
	if (put_entry(skb, NULL, &dp->node)) {
		mutex_unlock(&dp->lock);
		nla_nest_cancel(skb, all);
		return -EMSGSIZE;
	}
	for (b = 0; !truncated && b < LNE_STAT_HASH; b++) {
		const struct lne_stat *st;

		/* room kept for the flag that says some were left out */
		for (st = dp->node.stats[b]; !truncated && st; st = st->hnext)
			truncated = skb_tailroom(skb) < 64 || put_entry(skb, st, &dp->node);
	}
	mutex_unlock(&dp->lock);
	if (truncated && nla_put_flag(skb, LNETK_CNT_A_TRUNCATED)) {
		nla_nest_cancel(skb, all);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, all);
	return 0;
}

/* --- ping, for the genl command ------------------------------------------------------ */

struct ping_wait {
	struct completion done;
	struct lnetk_ping_result *out;
	bool abandoned, finished; /* under dp->lock */
	struct lne_node *node;	  /* discovery: whose peer */
	struct lne_nid nid;
};

static void on_ping(struct lne_msg *m, int status)
{
	struct ping_wait *w = m->arg;

	if (w->abandoned) {
		kfree(w->out);
		kfree(w);
		return;
	}
	w->out->status = status;
	if (!status && lnw_ping_unpack_all(m->reply, m->reply_len, &w->out->p, w->out->e,
					   LNW_PING_NIS_MAX, &w->out->n))
		w->out->status = -EPROTO;
	w->finished = true;
	complete(&w->done);
}

/* The peer that has w->nid, as a ping info: Multi-Rail or not, its NIDs, the primary first. */
static void peer_result(struct ping_wait *w)
{
	const struct lne_peer_ni *pni = lne_peer_ni_find(w->node->ln, &w->nid);
	const struct lne_peer_net *pnet;
	const struct lne_peer *peer;
	struct lnetk_ping_result *r = w->out;

	if (!pni) {
		r->status = -ENOENT;
		return;
	}
	peer = lne_peer_of(pni);
	r->p.features = peer->mr ? LNW_PING_FEAT_MULTI_RAIL : 0;
	r->p.pid = LNW_PID_LUSTRE;
	r->e[0].nid = peer->primary;
	r->e[0].status = LNW_NI_STATUS_UP;
	r->n = 1;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
			if (r->n < LNW_PING_NIS_MAX && !lne_nid_equal(&pni->nid, &peer->primary)) {
				r->e[r->n].nid = pni->nid;
				r->e[r->n++].status = LNW_NI_STATUS_UP;
			}
}

static void on_discovered(void *arg, int status)
{
	struct ping_wait *w = arg;

	if (w->abandoned) {
		kfree(w->out);
		kfree(w);
		return;
	}
	w->out->status = status;
	if (!status)
		peer_result(w);
	w->finished = true;
	complete(&w->done);
}

int lnetk_dp_ping(struct lnetk_net *ln, const struct lne_nid *dst, const struct lne_nid *src,
		  u32 timeout_ms, u8 discover, struct lnetk_ping_result *out, struct lne_err *err)
{
	struct lnetk_dp *dp = dp_of(ln);
	struct ping_wait *w;
	long left;
	int rc;

	if (!dp)
		return -ENODEV;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->out = kzalloc(sizeof(*w->out), GFP_KERNEL);
	if (!w->out) {
		kfree(w);
		return -ENOMEM;
	}
	init_completion(&w->done);
	w->node = &dp->node;
	w->nid = *dst;
	node_enter(dp);
	rc = dp->stopping ? -ESHUTDOWN
	     : discover	  ? lne_node_discover(&dp->node, dst, discover == 2, on_discovered, w, err)
			  : lne_node_ping(&dp->node, dst, src, timeout_ms, on_ping, w, err);
	node_leave(dp);
	if (rc) {
		kfree(w->out);
		kfree(w);
		return rc;
	}
	/* the node's own deadline ends it; a second more only guards against a lost wakeup */
	left = wait_for_completion_killable_timeout(&w->done, msecs_to_jiffies(timeout_ms + 1000));
	mutex_lock(&dp->lock);
	if (!w->finished) {
		w->abandoned = true; /* on_ping frees it */
		mutex_unlock(&dp->lock);
		return left < 0 ? -EINTR : -ETIMEDOUT;
	}
	mutex_unlock(&dp->lock);
	memcpy(out, w->out, sizeof(*out));
	kfree(w->out);
	kfree(w);
	return 0;
}

/* --- counters reset, test service, traffic generator, for the genl commands ---------- */

void lnetk_dp_counters_reset(struct lnetk_net *ln)
{
	struct lnetk_dp *dp = dp_of(ln);

	if (!dp)
		return;
	mutex_lock(&dp->lock);
	lne_node_stats_reset(&dp->node);
	mutex_unlock(&dp->lock);
}

struct test_wait {
	struct lne_test t;
	struct completion done;
	bool abandoned; /* under dp->lock: the caller left; the last message frees this */
};

static void on_test_done(struct lne_test *t)
{
	struct test_wait *w = container_of(t, struct test_wait, t);

	if (w->abandoned)
		kfree(w);
	else
		complete(&w->done);
}

int lnetk_dp_selftest(struct lnetk_net *ln, struct lne_test *t, u32 interval_ms, u64 *elapsed_ns)
{
	struct lnetk_dp *dp = dp_of(ln);
	unsigned long step = interval_ms ? msecs_to_jiffies(interval_ms) : MAX_SCHEDULE_TIMEOUT;
	struct test_wait *w;
	long left;
	ktime_t t0;

	if (!dp)
		return -ENODEV;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->t = *t;
	if (!interval_ms)
		w->t.trace = NULL;
	w->t.done = on_test_done;
	init_completion(&w->done);
	t0 = ktime_get();
	node_enter(dp);
	if (dp->stopping) {
		node_leave(dp);
		kfree(w);
		return -ESHUTDOWN;
	}
	lne_test_start(&w->t, &dp->node);
	node_leave(dp);
	/*
	 * Each message has its own deadline, so this ends; a signal ends the
	 * wait sooner.  With a trace, a row each @interval_ms on the way.
	 */
	while (!(left = wait_for_completion_killable_timeout(&w->done, step))) {
		mutex_lock(&dp->lock);
		if (!w->t.over)
			lne_test_sample(&w->t, ktime_to_ns(ktime_sub(ktime_get(), t0)));
		mutex_unlock(&dp->lock);
	}
	mutex_lock(&dp->lock);
	if (left < 0 && !w->t.over) {
		w->t.count = w->t.started; /* start no more; those in flight end on their own */
		w->t.trace = NULL;	   /* the caller's, and it goes */
		w->abandoned = true;
		mutex_unlock(&dp->lock);
		return -EINTR;
	}
	*elapsed_ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	lne_test_sample(&w->t, *elapsed_ns); /* the last row: where it ended */
	mutex_unlock(&dp->lock);
	*t = w->t;
	kfree(w);
	return 0;
}
