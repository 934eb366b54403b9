// SPDX-License-Identifier: GPL-2.0
/*
 * lnetk_api_test.c - a user of lnetk's in-kernel LNet API (lnetk_api.h)
 * in a module of its own, for the VM tier's data-path group (dp.sh).
 *
 *	insmod lnetk_api_test.ko srv_pid=P cli_pid=Q dst=NID [count=N] [gets=G]
 *
 * In the namespace of process P it registers the service "api_test" on
 * portal 62 (through that namespace's TBF policy for "api_test", if there
 * is one); from the namespace of process Q it sends N PUTs (each with a
 * test-request body, ACK asked for) and G GETs to NID on that portal, all
 * at once, and waits up to 60 s for every completion.  It then
 * unregisters and leaves, in the read-only parameter `result`:
 *
 *	ok <completions with status 0> failed <others> (first <its errno>)
 *	served <requests the service saw> disorder <requests served before
 *	one sent earlier from the same NID> replies <GET replies carrying what the service put in them>
 *	refused <refusals seen of the 3 it provokes> elapsed <ns>
 *
 * The load succeeds whatever the outcome, so that dp.sh can read it.
 */
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "kernel/lnetk_api.h"
#include "kernel/lnetk_nrs.h"

#define SERVICE "api_test"
#define PORTAL	62

static int srv_pid;
module_param(srv_pid, int, 0444);
static int cli_pid;
module_param(cli_pid, int, 0444);
static char *dst = "";
module_param(dst, charp, 0444);
static unsigned int count = 40;
module_param(count, uint, 0444);
static unsigned int gets = 4;
module_param(gets, uint, 0444);
static char result[256];
module_param_string(result, result, sizeof(result), 0444);

static atomic_t n_ok, n_failed, n_replies, left, first_err;
static DECLARE_COMPLETION(all_done);
/* the service's side: on the server's data path workqueue, one at a time */
#define SOURCES 8
static u64 served, disorder, last_match[SOURCES];
static struct lne_nid source[SOURCES];
static unsigned int nsources;

/*
 * The service: count, check the order within each class (a source NID:
 * the client's NIs are classes of their own, served side by side), and
 * give each GET its match bits back.
 */
static void serve(void *arg, struct lne_svc_req *r)
{
	unsigned int i;

	served++;
	for (i = 0; i < nsources && memcmp(&source[i], &r->tbf.nid, sizeof(source[i])); i++)
		;
	if (i == nsources && nsources < SOURCES)
		source[nsources++] = r->tbf.nid;
	if (i < SOURCES) {
		if (r->hdr.match < last_match[i])
			disorder++;
		last_match[i] = r->hdr.match;
	}
	if (r->hdr.type == LNW_GET) {
		r->reply = kmemdup(&r->hdr.match, sizeof(r->hdr.match), GFP_ATOMIC);
		r->reply_len = r->reply ? sizeof(r->hdr.match) : 0;
	}
}

static void done(void *arg, int status, const void *reply, u32 len)
{
	u64 match = (u64)(uintptr_t)arg;

	if (status) {
		atomic_inc(&n_failed);
		atomic_cmpxchg(&first_err, 0, status);
	} else
		atomic_inc(&n_ok);
	if (!status && reply && len == sizeof(match) && !memcmp(reply, &match, len))
		atomic_inc(&n_replies);
	if (atomic_dec_and_test(&left))
		complete(&all_done);
}

static int refusals(struct net *srv)
{
	int n = 0;

	n += lnetk_service_register(srv, SERVICE, PORTAL + 1, serve, NULL) == -EEXIST;
	n += lnetk_service_register(srv, "other", 0, serve, NULL) == -EINVAL;
	n += lnetk_service_register(srv, "bad name", PORTAL + 1, serve, NULL) == -EINVAL;
	return n;
}

static void run(struct net *srv, struct net *cli)
{
	struct lne_svc_body b = {.opcode = 4, .uid = 500, .gid = 100, .jobid = "api_test"};
	u8 body[LNE_SVC_BODY];
	struct lne_nid nid;
	u64 t0, i;
	int rc, refused;

	lne_svc_body_pack(&b, body);
	rc = lnetk_nrs_nid(dst, &nid);
	if (!rc)
		rc = lnetk_service_register(srv, SERVICE, PORTAL, serve, NULL);
	if (rc) {
		scnprintf(result, sizeof(result), "error %d", rc);
		return;
	}
	refused = refusals(srv);
	atomic_set(&left, count + gets + 1);
	t0 = ktime_get_ns();
	/* match bits number the requests in the order they are sent */
	for (i = 1; i <= count + gets; i++) {
		void *arg = (void *)(uintptr_t)i;

		rc = i <= count ? lnetk_put(cli, &nid, PORTAL, i, body, sizeof(body), true, 30000,
					    done, arg)
				: lnetk_get(cli, &nid, PORTAL, i, 64, 30000, done, arg);
		if (rc) {
			atomic_inc(&n_failed);
			atomic_cmpxchg(&first_err, 0, rc);
			atomic_dec(&left);
		}
	}
	if (!atomic_dec_and_test(&left))
		wait_for_completion_timeout(&all_done, 60 * HZ);
	lnetk_service_unregister(srv, SERVICE);
	scnprintf(
		result, sizeof(result),
		"ok %d failed %d (first %d) served %llu disorder %llu replies %d refused %d elapsed "
		"%llu\n",
		atomic_read(&n_ok), atomic_read(&n_failed), atomic_read(&first_err), served,
		disorder, atomic_read(&n_replies), refused, ktime_get_ns() - t0);
}

static int __init api_test_init(void)
{
	struct net *srv = get_net_ns_by_pid(srv_pid), *cli;

	if (IS_ERR(srv))
		return PTR_ERR(srv);
	cli = get_net_ns_by_pid(cli_pid);
	if (IS_ERR(cli)) {
		put_net(srv);
		return PTR_ERR(cli);
	}
	run(srv, cli);
	put_net(cli);
	put_net(srv);
	return 0;
}

static void __exit api_test_exit(void)
{
}

module_init(api_test_init);
module_exit(api_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A user of lnetk's in-kernel LNet API, for the VM tier");
