// SPDX-License-Identifier: GPL-2.0
/*
 * nrs.c - NRS TBF in the module: each instance's policies (one per
 * service, instance.h) and the API through which request sources in other
 * modules queue and serve requests (lnetk_nrs.h).  The genl commands that
 * configure and report the policies (LNETK_CMD_TBF_*) are nl-tbf.c's.
 *
 * Two locks.  The instance mutex (lnetk_net.lock) guards the policy list
 * and each policy's `open` flag, like every other configuration.  Each
 * policy has its own mutex (qlock) around every engine call on it, so
 * that a request source, which takes only qlock, never waits for an
 * unrelated configuration change or a dump of peers.  Configuration takes
 * both, instance lock first.  The engine clock is read under qlock, so
 * the times a policy sees never go backwards.
 *
 * One configured rate is the node's rate: the policy is one engine object
 * for the whole instance, not one per CPU partition (upstream multiplies a
 * rule's rate by the number of CPTs).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "engine/tbf.h"
#include "instance.h"
#include "lnetk_nrs.h"

/* --- the policies of an instance (instance.h) ------------------------------------- */

struct lnetk_tbf *lnetk_tbf_find(struct lnetk_net *ln, const char *service)
{
	struct lnetk_tbf *t;

	list_for_each_entry(t, &ln->tbf, link)
		if (!strcmp(lne_tbf_service(t->tbf), service))
			return t;
	return NULL;
}

void lnetk_tbf_free(struct lnetk_tbf *t)
{
	list_del(&t->link);
	lne_tbf_free(t->tbf);
	mutex_destroy(&t->qlock);
	kfree(t);
}

/* --- the API for request sources (lnetk_nrs.h) ------------------------------------- */

struct lnetk_nrs {
	struct net *net; /* held, unless the namespace's own data path opened it */
	bool held;
	struct lnetk_tbf *t;
};

static int nrs_open(struct net *net, const char *service, bool hold, struct lnetk_nrs **out)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lnetk_nrs *nrs;
	struct lnetk_tbf *t;
	int rc = 0;

	*out = NULL;
	nrs = kzalloc(sizeof(*nrs), GFP_KERNEL);
	if (!nrs)
		return -ENOMEM;
	mutex_lock(&ln->lock);
	t = lnetk_tbf_find(ln, service);
	if (!t)
		rc = -ENOENT;
	else if (t->open)
		rc = -EBUSY;
	else
		t->open = true;
	mutex_unlock(&ln->lock);
	if (rc) {
		kfree(nrs);
		return rc;
	}
	nrs->net = hold ? get_net(net) : net;
	nrs->held = hold;
	nrs->t = t;
	*out = nrs;
	return 0;
}

int lnetk_nrs_open(struct net *net, const char *service, struct lnetk_nrs **out)
{
	return nrs_open(net, service, true, out);
}
EXPORT_SYMBOL_GPL(lnetk_nrs_open);

/*
 * For the namespace's own data path (the test service): no reference on
 * @net, which would keep the namespace from ever going; lnetk_dp_stop()
 * closes it before the namespace's policies are freed.
 */
int lnetk_nrs_open_own(struct net *net, const char *service, struct lnetk_nrs **out)
{
	return nrs_open(net, service, false, out);
}

/* Cancel every request still queued on @tbf.  Under qlock. */
static void cancel_all(struct lne_tbf *tbf, u64 now)
{
	const struct lne_tbf_class *c;
	struct lne_tbf_req *req;
	int q;

	for (q = LNE_TBF_REG; q < LNE_TBF_NQUEUES; q++)
		for (c = lne_tbf_class_next(tbf, q, NULL); c; c = lne_tbf_class_next(tbf, q, c))
			while (!lne_list_empty(&c->fifo)) {
				req = lne_list_entry(c->fifo.next, struct lne_tbf_req, link);
				lne_tbf_cancel(tbf, req, now);
			}
}

void lnetk_nrs_close(struct lnetk_nrs *nrs)
{
	struct lnetk_net *ln;

	if (!nrs)
		return;
	ln = lnetk_net(nrs->net);
	mutex_lock(&ln->lock);
	mutex_lock(&nrs->t->qlock);
	cancel_all(nrs->t->tbf, ktime_get_ns());
	mutex_unlock(&nrs->t->qlock);
	nrs->t->open = false;
	mutex_unlock(&ln->lock);
	if (nrs->held)
		put_net(nrs->net);
	kfree(nrs);
}
EXPORT_SYMBOL_GPL(lnetk_nrs_close);

int lnetk_nrs_nid(const char *text, struct lne_nid *nid)
{
	return lne_nid_parse(text, nid, NULL);
}
EXPORT_SYMBOL_GPL(lnetk_nrs_nid);

int lnetk_nrs_enqueue(struct lnetk_nrs *nrs, struct lne_tbf_req *req, bool hp)
{
	int rc;

	mutex_lock(&nrs->t->qlock);
	rc = lne_tbf_enqueue(nrs->t->tbf, req, hp ? LNE_TBF_HP : LNE_TBF_REG, ktime_get_ns());
	mutex_unlock(&nrs->t->qlock);
	return rc;
}
EXPORT_SYMBOL_GPL(lnetk_nrs_enqueue);

struct lne_tbf_req *lnetk_nrs_dequeue(struct lnetk_nrs *nrs, u64 *next)
{
	struct lne_tbf_req *req;

	mutex_lock(&nrs->t->qlock);
	req = lne_tbf_dequeue(nrs->t->tbf, ktime_get_ns(), next);
	mutex_unlock(&nrs->t->qlock);
	return req;
}
EXPORT_SYMBOL_GPL(lnetk_nrs_dequeue);

void lnetk_nrs_cancel(struct lnetk_nrs *nrs, struct lne_tbf_req *req)
{
	mutex_lock(&nrs->t->qlock);
	lne_tbf_cancel(nrs->t->tbf, req, ktime_get_ns());
	mutex_unlock(&nrs->t->qlock);
}
EXPORT_SYMBOL_GPL(lnetk_nrs_cancel);
