// SPDX-License-Identifier: GPL-2.0
/*
 * nl-test.c - the genl commands only tests use: BUMP (adds to the
 * generation, to exercise the change path and its notifications) and
 * TBF_LOAD (a synthetic load through a TBF policy, run in the kernel
 * through the request source API of lnetk_nrs.h).  Both are admin-only;
 * netlink.c's ops table lists them.  And a hold between a batch's build and
 * its swap (nl-batch.c), set by the debug parameter test_hold_batch.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "engine/tbf.h"
#include "instance.h"
#include "lnetk_nrs.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/* --- a batch held between its build and its swap ---------------------------------- */

static bool test_hold_batch, test_batch_held;
module_param(test_hold_batch, bool, 0644);
MODULE_PARM_DESC(test_hold_batch, "tests only: hold each BATCH before its swap while set");
module_param(test_batch_held, bool, 0444);
MODULE_PARM_DESC(test_batch_held, "tests only: a BATCH is held before its swap");

void lnk_test_batch_hold(void)
{
	unsigned long end = jiffies + 600 * HZ;

	if (!READ_ONCE(test_hold_batch))
		return;
	WRITE_ONCE(test_batch_held, true);
	while (READ_ONCE(test_hold_batch) && time_before(jiffies, end) && !signal_pending(current))
		msleep(10);
	WRITE_ONCE(test_batch_held, false);
}

/* --- BUMP: a harmless change, for tests of the change path ---------------------------- */

static int do_bump(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	/* lnk_nl_change() adds one more. */
	ln->generation += nla_get_u32(info->attrs[LNETK_A_COUNT]) - 1;
	return 0;
}

int lnk_nl_bump(struct sk_buff *skb, struct genl_info *info)
{
	int rc = lnk_nl_info_only(info, BIT(LNETK_A_COUNT));

	if (rc)
		return rc;
	if (!info->attrs[LNETK_A_COUNT])
		return lnk_nl_refuse(info->extack, NULL, -EINVAL, "LNETK_A_COUNT is required");
	return lnk_nl_change(info, do_bump, 0);
}

/* --- TBF_LOAD: a synthetic load through the request source API ---------------------- */

struct load_req {
	struct lne_tbf_req r;
	u32 cls; /* index of its class in the load */
};

struct load_class {
	struct lne_nid nid;
	u8 queue;
	u64 enqueued, dispatched;
	u32 nfree;
	struct load_req *free[LNETK_TBF_LOAD_BACKLOG];
	struct load_req req[LNETK_TBF_LOAD_BACKLOG];
};

/* The classes of a TBF_LOAD request, each with its requests, all free. */
static int load_classes(struct nlattr *nest, struct load_class **out, u32 *nout,
			struct netlink_ext_ack *extack)
{
	struct nlattr *ctb[LNETK_TBFL_A_MAX + 1], *a;
	struct load_class *lc;
	int rem, rc = 0;
	u32 n = 0, i = 0, j;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LNETK_TBF_A_LOAD_CLASS)
			n++;
	}
	if (!n || n > LNETK_TBF_LOAD_CLASSES_MAX)
		return lnk_nl_refuse(extack, nest, -EINVAL,
				     "give 1 to LNETK_TBF_LOAD_CLASSES_MAX LNETK_TBF_A_LOAD_CLASS");
	lc = kvcalloc(n, sizeof(*lc), GFP_KERNEL);
	if (!lc)
		return lnk_nl_refuse(extack, NULL, -ENOMEM, "out of memory");
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != LNETK_TBF_A_LOAD_CLASS)
			continue;
		rc = lnk_nl_parse_nest(ctb, LNETK_TBFL_A_MAX, a, lnk_nl_tbfl_policy, extack);
		if (!rc && !lnk_nl_need(ctb, LNETK_TBFL_A_NID, "LNETK_TBFL_A_NID", a, extack))
			rc = -EINVAL;
		if (!rc)
			rc = lnk_nl_get_nid(ctb[LNETK_TBFL_A_NID], &lc[i].nid, extack);
		if (rc) {
			kvfree(lc);
			return rc;
		}
		lc[i].queue = ctb[LNETK_TBFL_A_QUEUE] ? nla_get_u8(ctb[LNETK_TBFL_A_QUEUE])
						      : LNE_TBF_REG;
		for (j = 0; j < LNETK_TBF_LOAD_BACKLOG; j++) {
			struct load_req *r = &lc[i].req[j];

			r->cls = i;
			r->r.nid = lc[i].nid;
			r->r.opcode = 4; /* ost_write */
			strscpy(r->r.jobid, "tbf_load", sizeof(r->r.jobid));
			lc[i].free[j] = r;
		}
		lc[i].nfree = LNETK_TBF_LOAD_BACKLOG;
		i++;
	}
	*out = lc;
	*nout = n;
	return 0;
}

/* One round: refill every class to its backlog, then serve every request that is ready. */
static int load_round(struct lnetk_nrs *nrs, struct load_class *lc, u32 n, u64 *next)
{
	struct lne_tbf_req *req;
	struct load_req *lr;
	u32 i;
	int rc;

	for (i = 0; i < n; i++)
		while (lc[i].nfree) {
			lr = lc[i].free[lc[i].nfree - 1];
			rc = lnetk_nrs_enqueue(nrs, &lr->r, lc[i].queue == LNE_TBF_HP);
			if (rc)
				return rc;
			lc[i].nfree--;
			lc[i].enqueued++;
		}
	while ((req = lnetk_nrs_dequeue(nrs, next))) {
		lr = container_of(req, struct load_req, r);
		lc[lr->cls].dispatched++;
		lc[lr->cls].free[lc[lr->cls].nfree++] = lr;
	}
	return 0;
}

static int nl_put_load(struct sk_buff *skb, const char *service, const struct load_class *lc, u32 n,
		       u64 elapsed)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_TBF), *cn;
	u32 i;

	if (!nest || nla_put_string(skb, LNETK_TBF_A_SERVICE, service) ||
	    nla_put_u64_64bit(skb, LNETK_TBF_A_ELAPSED_NS, elapsed, LNETK_TBF_A_PAD))
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		cn = nla_nest_start(skb, LNETK_TBF_A_LOAD_CLASS);
		if (!cn || lnk_nl_put_nid(skb, LNETK_TBFL_A_NID, &lc[i].nid) ||
		    nla_put_u8(skb, LNETK_TBFL_A_QUEUE, lc[i].queue) ||
		    nla_put_u64_64bit(skb, LNETK_TBFL_A_ENQUEUED, lc[i].enqueued,
				      LNETK_TBFL_A_PAD) ||
		    nla_put_u64_64bit(skb, LNETK_TBFL_A_DISPATCHED, lc[i].dispatched,
				      LNETK_TBFL_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, cn);
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The load is a request source like any other (lnetk_nrs.h): it opens the
 * policy, so TBF_DEL refuses while it runs, and runs in the requesting
 * thread, sleeping on an hrtimer until the policy's next deadline.  The
 * requesting socket holds the namespace, and the handle holds it too.
 */
int lnk_nl_tbf_load(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *tb[LNETK_TBF_A_MAX + 1], *nest;
	u64 start, end, now, next, ms;
	struct load_class *lc;
	struct lnetk_nrs *nrs;
	struct sk_buff *reply;
	ktime_t wake;
	void *hdr;
	u32 n;
	int rc;

	nest = lnk_nl_tbf_nest(info, tb,
			       BIT(LNETK_TBF_A_SERVICE) | BIT(LNETK_TBF_A_LOAD_MS) |
				       BIT(LNETK_TBF_A_LOAD_CLASS));
	if (!nest ||
	    !lnk_nl_need(tb, LNETK_TBF_A_LOAD_MS, "LNETK_TBF_A_LOAD_MS", nest, info->extack))
		return -EINVAL;
	ms = nla_get_u32(tb[LNETK_TBF_A_LOAD_MS]);
	rc = load_classes(nest, &lc, &n, info->extack);
	if (rc)
		return rc;
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_TBF_LOAD,
			       256 + n * (LNETK_NID_MAX + 64), &hdr);
	if (!reply) {
		kvfree(lc);
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	rc = lnetk_nrs_open(genl_info_net(info), nla_data(tb[LNETK_TBF_A_SERVICE]), &nrs);
	if (rc == -ENOENT)
		rc = lnk_nl_refuse(info->extack, tb[LNETK_TBF_A_SERVICE], rc,
				   "this service has no TBF policy (LNETK_TBF_A_SERVICE)");
	else if (rc == -EBUSY)
		rc = lnk_nl_refuse(info->extack, tb[LNETK_TBF_A_SERVICE], rc,
				   "a request source or a TBF_LOAD holds this policy already");
	else if (rc)
		rc = lnk_nl_refuse(info->extack, NULL, rc, "out of memory");
	if (rc)
		goto out;

	start = ktime_get_ns();
	end = start + ms * NSEC_PER_MSEC;
	for (;;) {
		rc = load_round(nrs, lc, n, &next);
		now = ktime_get_ns();
		if (rc || now >= end || signal_pending(current))
			break;
		wake = ns_to_ktime(min(next, end));
		set_current_state(TASK_INTERRUPTIBLE);
		schedule_hrtimeout_range(&wake, 20 * NSEC_PER_USEC, HRTIMER_MODE_ABS);
	}
	/* Closing cancels what the load left queued. */
	lnetk_nrs_close(nrs);
	if (rc) {
		rc = lnk_nl_refuse(info->extack, NULL, rc,
				   rc == -ENOSPC
					   ? "the load's classes exceed the queue's class limit"
					   : "out of memory");
		goto out;
	}
	mutex_lock(&ln->lock);
	rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD)
		     ?: nl_put_load(reply, nla_data(tb[LNETK_TBF_A_SERVICE]), lc, n, now - start);
	mutex_unlock(&ln->lock);
	if (rc)
		goto out;
	kvfree(lc);
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);

out:
	kvfree(lc);
	nlmsg_free(reply);
	return rc;
}
