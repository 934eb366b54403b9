// SPDX-License-Identifier: GPL-2.0
/*
 * dp-svc.c - the userspace engine's test service through lnetd's NRS TBF
 * policy: when a policy exists for the service LNE_SVC_TEST_NAME
 * ("lnet_test"), requests arriving on the test portal (the traffic
 * generator's PUTs and GETs) pass through it before they are answered;
 * without one they are answered as they come.  The policy is lnetd's own
 * (nrs.c), read at its monotonic clock; nrs.c detaches it before freeing
 * it and attaches the new one after every change.
 */
#include "dp.h"
#include "engine/node-svc.h"
#include "lnetd/lnetd.h"
#include "lnetd/nrs.h"

static int enqueue(void *p, struct lne_tbf_req *r, bool hp, u64 now)
{
	(void)now;
	return lne_svc_tbf_ops.enqueue(p, r, hp, lnetd_tbf_now());
}

static struct lne_tbf_req *dequeue(void *p, u64 now, u64 *next)
{
	(void)now;
	return lne_svc_tbf_ops.dequeue(p, lnetd_tbf_now(), next);
}

static void cancel(void *p, struct lne_tbf_req *r, u64 now)
{
	(void)now;
	lne_svc_tbf_ops.cancel(p, r, lnetd_tbf_now());
}

static const struct lne_svc_policy_ops ops = {
	.enqueue = enqueue,
	.dequeue = dequeue,
	.cancel = cancel,
};

void lnetd_dp_policies(struct lnetd_dp *dp, bool detach)
{
	struct lne_node *n = lnetd_dp_node(dp);
	struct lne_tbf *tbf = detach ? NULL
				     : lnetd_tbf_find(lnetd_dp_daemon(dp), LNE_SVC_TEST_NAME);

	lne_svc_set_policy(n, LNE_SVC_TEST_NAME, tbf ? &ops : NULL, tbf);
	lnetd_dp_kick(dp);
}
