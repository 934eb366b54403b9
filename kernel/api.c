// SPDX-License-Identifier: GPL-2.0
/*
 * api.c - LNet for other kernel modules (lnetk_api.h): sends and services
 * on the namespace's data path (dp.h), services' requests through the
 * request-source side of the NRS (lnetk_nrs.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "dp.h"
#include "instance.h"
#include "lnetk_api.h"
#include "lnetk_nrs.h"

/* --- sending ----------------------------------------------------------------------- */

struct api_call {
	lnetk_done_t done;
	void *arg;
};

static void on_msg_done(struct lne_msg *m, int status)
{
	struct api_call *c = m->arg;

	c->done(c->arg, status, status ? NULL : m->reply, status ? 0 : m->reply_len);
	kfree(c);
}

/* Checked before anything is allocated; NULL and *@rc set if the send cannot start. */
static struct api_call *call_new(u32 portal, u32 len, u32 timeout_ms, lnetk_done_t done, void *arg,
				 int *rc)
{
	struct api_call *c;

	*rc = -EINVAL;
	if (portal >= LNW_PORTALS || len > LNW_MTU || !timeout_ms ||
	    timeout_ms > LNETK_API_TIMEOUT_MAX || !done)
		return NULL;
	*rc = -ENOMEM;
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	*rc = 0;
	c->done = done;
	c->arg = arg;
	return c;
}

int lnetk_put(struct net *net, const struct lne_nid *dst, u32 portal, u64 match, const void *data,
	      u32 len, bool ack, u32 timeout_ms, lnetk_done_t done, void *arg)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lne_node *n;
	u8 *copy = NULL;
	int rc;
	struct api_call *c = call_new(portal, len, timeout_ms, done, arg, &rc);

	if (!c)
		return rc;
	if (len)
		copy = kmemdup(data, len, GFP_KERNEL);
	if (len && !copy) {
		kfree(c);
		return -ENOMEM;
	}
	n = lnetk_dp_enter(ln);
	if (!n) {
		kfree(c);
		kfree(copy);
		return -ESHUTDOWN;
	}
	/* the node owns @copy from here, whatever it returns */
	rc = lne_node_put(n, dst, NULL, portal, match, 0, copy, len, ack, timeout_ms, on_msg_done,
			  c, NULL);
	lnetk_dp_leave(ln);
	if (rc)
		kfree(c);
	return rc;
}
EXPORT_SYMBOL_GPL(lnetk_put);

int lnetk_get(struct net *net, const struct lne_nid *dst, u32 portal, u64 match, u32 len,
	      u32 timeout_ms, lnetk_done_t done, void *arg)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lne_node *n;
	int rc;
	struct api_call *c = call_new(portal, len, timeout_ms, done, arg, &rc);

	if (!c)
		return rc;
	n = lnetk_dp_enter(ln);
	if (!n) {
		kfree(c);
		return -ESHUTDOWN;
	}
	rc = lne_node_get(n, dst, NULL, portal, match, len, timeout_ms, on_msg_done, c, NULL);
	lnetk_dp_leave(ln);
	if (rc)
		kfree(c);
	return rc;
}
EXPORT_SYMBOL_GPL(lnetk_get);

/* --- services ---------------------------------------------------------------------- */

/* A service's policy is the namespace's, through the request-source API and its clock. */
static int nrs_enqueue(void *p, struct lne_tbf_req *r, bool hp, u64 now)
{
	return lnetk_nrs_enqueue(p, r, hp);
}

static struct lne_tbf_req *nrs_dequeue(void *p, u64 now, u64 *next)
{
	return lnetk_nrs_dequeue(p, next);
}

static void nrs_cancel(void *p, struct lne_tbf_req *r, u64 now)
{
	lnetk_nrs_cancel(p, r);
}

static const struct lne_svc_policy_ops nrs_ops = {
	.enqueue = nrs_enqueue,
	.dequeue = nrs_dequeue,
	.cancel = nrs_cancel,
};

int lnetk_service_register(struct net *net, const char *name, u32 portal, lne_svc_fn serve,
			   void *arg)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lnetk_nrs *nrs = NULL;
	struct lne_node *n;
	int rc;

	if (!name || !serve)
		return -EINVAL;
	/* a bound name is -EEXIST, not the -EBUSY of the policy it holds */
	n = lnetk_dp_enter(ln);
	if (!n)
		return -ESHUTDOWN;
	rc = lne_svc_find(n, name) ? -EEXIST : 0;
	lnetk_dp_leave(ln);
	if (!rc)
		rc = lnetk_nrs_open(net, name, &nrs);
	if (rc == -ENOENT)
		rc = 0; /* no policy: served as they come */
	if (rc)
		return rc;
	n = lnetk_dp_enter(ln);
	if (!n) {
		lnetk_nrs_close(nrs);
		return -ESHUTDOWN;
	}
	rc = lne_svc_register(n, name, portal, serve, arg, NULL);
	if (!rc && nrs)
		rc = lne_svc_set_policy(n, name, &nrs_ops, nrs);
	lnetk_dp_leave(ln);
	if (rc)
		lnetk_nrs_close(nrs);
	return rc;
}
EXPORT_SYMBOL_GPL(lnetk_service_register);

void lnetk_service_unregister(struct net *net, const char *name)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lnetk_nrs *nrs = NULL;
	struct lne_node *n = lnetk_dp_enter(ln);
	struct lne_svc *s;

	if (!n)
		return;
	s = lne_svc_find(n, name);
	if (s && s->ops == &nrs_ops)
		nrs = s->policy;
	lne_svc_unregister(n, name); /* takes its requests back from the policy first */
	lnetk_dp_leave(ln);
	lnetk_nrs_close(nrs);
}
EXPORT_SYMBOL_GPL(lnetk_service_unregister);

struct lnetk_nrs *lnetk_api_test_detach(struct lne_node *n)
{
	struct lne_svc *s = lne_svc_find(n, LNE_SVC_TEST_NAME);
	struct lnetk_nrs *nrs;

	if (!s || s->ops != &nrs_ops)
		return NULL;
	nrs = s->policy;
	lne_svc_set_policy(n, LNE_SVC_TEST_NAME, NULL, NULL);
	return nrs;
}

/*
 * The traffic generator's test service (LNETK_CMD_TEST_SERVICE): on, it
 * goes through the namespace's TBF policy for LNE_SVC_TEST_NAME if there is
 * one now (held open while the service is on); off, the policy is let go.
 */
int lnetk_api_test_service(struct net *net, bool on)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lnetk_nrs *old, *nrs = NULL;
	struct lne_node *n = lnetk_dp_enter(ln);
	int rc;

	if (!n)
		return -ESHUTDOWN;
	/* first let go of what the service holds, so that it can be opened again */
	old = lnetk_api_test_detach(n);
	n->test_service = on;
	lnetk_dp_leave(ln);
	lnetk_nrs_close(old);
	if (!on)
		return 0;
	rc = lnetk_nrs_open_own(net, LNE_SVC_TEST_NAME, &nrs);
	if (rc)
		return rc == -ENOENT ? 0 : rc; /* no policy: served as they come */
	n = lnetk_dp_enter(ln);
	if (!n) {
		lnetk_nrs_close(nrs);
		return -ESHUTDOWN;
	}
	rc = lne_svc_set_policy(n, LNE_SVC_TEST_NAME, &nrs_ops, nrs);
	lnetk_dp_leave(ln);
	if (rc)
		lnetk_nrs_close(nrs);
	return rc;
}

/* The test-request body, for modules that send requests to a service. */
EXPORT_SYMBOL_GPL(lne_svc_body_pack);
EXPORT_SYMBOL_GPL(lne_svc_body_unpack);
