// SPDX-License-Identifier: GPL-2.0
/*
 * lnetk_nrs_src.c - a request source in a module of its own, for the VM
 * tier: it drives a service's TBF policy through lnetk's exported API
 * (lnetk_nrs.h) the way a real service's request handler would, from
 * outside lnetk.
 *
 * Loading it runs one load in init_net and leaves the outcome in the
 * read-only parameter `result`:
 *
 *	insmod lnetk_nrs_src.ko service=S ms=N nids=A,B,... [hp=B,...] [hold=1 [spread=N]]
 *
 * Each NID in `nids` is a client with LOAD_BACKLOG requests kept queued on
 * the reg queue (`hp` names clients whose requests go to the hp queue);
 * for `ms` milliseconds the module serves every request the policy lets
 * out, sleeping until the deadline it returns.  `result` then reads
 * "elapsed <ns>\n" and one "<nid> <enqueued> <dispatched> <disorder>\n" per
 * client, in order, where disorder counts the requests that left the
 * policy before one the client had queued earlier (FIFO per class: 0).  With hold=1 the module keeps the policy open until it is removed
 * (so tests can see TBF_DEL refused); otherwise it closes it before init
 * returns.  With hold=1 and spread=N it then queues one more request from
 * each of N clients 10.3.<i / 256>.<i % 256>@tcp on the reg queue and
 * leaves them there (N more classes, for tests of the class dump); closing
 * the policy at removal cancels them.  A failure to open or to
 * enqueue fails the load with that errno (ENOENT: no policy; EBUSY:
 * another source holds it).
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "kernel/lnetk_nrs.h"

#define CLIENTS_MAX  8
#define LOAD_BACKLOG 32

static char *service = "ost_io";
module_param(service, charp, 0444);
static unsigned int ms = 1000;
module_param(ms, uint, 0444);
static char *nids = "";
module_param(nids, charp, 0444);
static char *hp = "";
module_param(hp, charp, 0444);
static bool hold;
module_param(hold, bool, 0444);
static unsigned int spread;
module_param(spread, uint, 0444);
static char result[1024];
module_param_string(result, result, sizeof(result), 0444);

struct src_req {
	struct lne_tbf_req tbf;
	unsigned int client;
	bool queued;
	u64 seq; /* the client's enqueue count when it was queued */
};

struct client {
	char nid[64];
	bool hp;
	u64 enqueued, dispatched, last_seq, disorder;
	struct src_req req[LOAD_BACKLOG];
};

static struct lnetk_nrs *held;
static struct lne_tbf_req *spread_req;

static bool listed(const char *list, const char *nid)
{
	size_t n = strlen(nid);
	const char *p = list;

	while ((p = strstr(p, nid))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static int clients_parse(struct client *c, unsigned int *nc)
{
	char *copy = kstrdup(nids, GFP_KERNEL), *s = copy, *tok;
	unsigned int n = 0, j;
	struct lne_nid nid;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	while (!rc && (tok = strsep(&s, ",")) && *tok) {
		if (n == CLIENTS_MAX || lnetk_nrs_nid(tok, &nid)) {
			rc = -EINVAL;
			break;
		}
		strscpy(c[n].nid, tok, sizeof(c[n].nid));
		c[n].hp = listed(hp, tok);
		for (j = 0; j < LOAD_BACKLOG; j++) {
			c[n].req[j].client = n;
			c[n].req[j].tbf.nid = nid;
			c[n].req[j].tbf.opcode = 3; /* ost_read */
			strscpy(c[n].req[j].tbf.jobid, "nrs_src", sizeof(c[n].req[j].tbf.jobid));
		}
		n++;
	}
	kfree(copy);
	*nc = n;
	return rc ?: (n ? 0 : -EINVAL);
}

/* Queue every request not queued yet. */
static int refill(struct lnetk_nrs *nrs, struct client *c, unsigned int nc)
{
	unsigned int i, j;
	int rc;

	for (i = 0; i < nc; i++)
		for (j = 0; j < LOAD_BACKLOG; j++) {
			if (!c[i].req[j].queued) {
				rc = lnetk_nrs_enqueue(nrs, &c[i].req[j].tbf, c[i].hp);
				if (rc)
					return rc;
				c[i].req[j].queued = true;
				c[i].req[j].seq = ++c[i].enqueued;
			}
		}
	return 0;
}

static int run(struct lnetk_nrs *nrs, struct client *c, unsigned int nc)
{
	u64 start = ktime_get_ns(), end = start + (u64)ms * NSEC_PER_MSEC, now = start, next;
	struct lne_tbf_req *r;
	struct src_req *sr;
	size_t off;
	unsigned int i;
	ktime_t wake;
	int rc = 0;

	for (;;) {
		rc = refill(nrs, c, nc);
		if (rc)
			break;
		while ((r = lnetk_nrs_dequeue(nrs, &next))) {
			sr = container_of(r, struct src_req, tbf);
			sr->queued = false;
			c[sr->client].dispatched++;
			if (sr->seq < c[sr->client].last_seq)
				c[sr->client].disorder++;
			c[sr->client].last_seq = sr->seq;
		}
		now = ktime_get_ns();
		if (now >= end || signal_pending(current))
			break;
		wake = ns_to_ktime(min(next, end));
		set_current_state(TASK_INTERRUPTIBLE);
		schedule_hrtimeout_range(&wake, 20 * NSEC_PER_USEC, HRTIMER_MODE_ABS);
	}
	if (rc)
		return rc;
	off = scnprintf(result, sizeof(result), "elapsed %llu\n", now - start);
	for (i = 0; i < nc; i++)
		off += scnprintf(result + off, sizeof(result) - off, "%s %llu %llu %llu\n",
				 c[i].nid, c[i].enqueued, c[i].dispatched, c[i].disorder);
	return 0;
}

static int spread_out(void)
{
	char nid[32];
	unsigned int i;
	int rc = 0;

	spread_req = kvcalloc(spread, sizeof(*spread_req), GFP_KERNEL);
	if (!spread_req)
		return -ENOMEM;
	for (i = 0; !rc && i < spread; i++) {
		snprintf(nid, sizeof(nid), "10.3.%u.%u@tcp", i / 256, i % 256);
		rc = lnetk_nrs_nid(nid, &spread_req[i].nid)
			     ?: lnetk_nrs_enqueue(held, &spread_req[i], false);
	}
	if (rc) {
		lnetk_nrs_close(held);
		held = NULL;
		kvfree(spread_req);
	}
	return rc;
}

static int __init src_init(void)
{
	struct lnetk_nrs *nrs;
	unsigned int nc, i, j;
	struct client *c;
	int rc;

	c = kcalloc(CLIENTS_MAX, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	rc = clients_parse(c, &nc);
	if (!rc)
		rc = lnetk_nrs_open(&init_net, service, &nrs);
	if (!rc) {
		rc = run(nrs, c, nc);
		/* Closing cancels what is still queued: every request must come back. */
		lnetk_nrs_close(nrs);
		for (i = 0; i < nc; i++)
			for (j = 0; j < LOAD_BACKLOG; j++)
				if (c[i].req[j].tbf.cls)
					rc = -EUCLEAN;
		if (!rc && hold)
			rc = lnetk_nrs_open(&init_net, service, &held);
		if (!rc && hold && spread)
			rc = spread_out();
	}
	kfree(c);
	return rc;
}

static void __exit src_exit(void)
{
	lnetk_nrs_close(held);
	kvfree(spread_req);
}

module_init(src_init);
module_exit(src_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A test request source for lnetk's NRS TBF API");
