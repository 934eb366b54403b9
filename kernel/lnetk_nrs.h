/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetk_nrs.h - NRS TBF for request sources in other kernel modules.
 *
 * A request source is the code that receives a service's requests (in
 * Lustre, a ptlrpc service such as "ost_io") and hands them to threads.
 * With lnetk it asks the service's TBF policy which request to serve next,
 * so that each class of requests gets the rate its rule gives it.  The
 * policy itself (types, rules, rates) is configured over generic netlink
 * (uapi/lnetk.h, LNETK_CMD_TBF_*) by lnetd; the source only queues and
 * serves:
 *
 *	struct my_req { struct lne_tbf_req tbf; ... };   zeroed once
 *
 *	lnetk_nrs_open(net, "ost_io", &nrs);
 *	on arrival:   fill req->tbf.nid (lnetk_nrs_nid), .opcode, .uid, .gid,
 *	              .jobid; lnetk_nrs_enqueue(nrs, &req->tbf, hp)
 *	to serve:     r = lnetk_nrs_dequeue(nrs, &next);
 *	              NULL: nothing is ready; try again at @next (ktime_get_ns()
 *	              clock; LNE_TBF_NEVER when nothing is queued) or when a
 *	              request arrives
 *	on teardown:  lnetk_nrs_close(nrs)
 *
 * Requests stay the source's (engine/tbf.h, "Requests are the caller's"):
 * lnetk links them while they are queued and never copies or frees them.
 *
 * One source at a time.  A policy is opened by at most one source (or one
 * LNETK_CMD_TBF_LOAD), because every queued request belongs to whoever
 * dequeues it: a second open gets -EBUSY.  While a policy is open,
 * LNETK_CMD_TBF_DEL refuses to delete it (-EBUSY), so a source's handle
 * never dangles; rule, type and depth changes apply at once, to queued
 * requests too.  The handle holds a reference on @net.
 *
 * Context and locking.  Every function may sleep (process context only):
 * enqueue allocates the class of a new key, and each policy has a mutex
 * that serialises the source's calls with configuration changes.  Calls on
 * one handle may come from several threads.
 *
 * Errors: -ENOENT (the namespace has no policy for @service), -EBUSY
 * (open), -EINVAL (bad service name or NID), and enqueue's -ENOMEM and
 * -ENOSPC (the queue is at its class limit with every class busy); a
 * request whose enqueue failed is not queued and is still the source's to
 * serve some other way.
 */
#ifndef LNETK_NRS_H
#define LNETK_NRS_H

#include <linux/types.h>

#include "engine/tbf.h"

struct net;
struct lnetk_nrs;

int lnetk_nrs_open(struct net *net, const char *service, struct lnetk_nrs **out);
/* lnetk's own data path only (its test service): holds no reference on @net. */
int lnetk_nrs_open_own(struct net *net, const char *service, struct lnetk_nrs **out);
/* Cancels the requests still queued (their ->cls becomes NULL) and drops the handle. */
void lnetk_nrs_close(struct lnetk_nrs *nrs);
/* Fill @nid from its text ("192.168.1.2@o2ib", IPv6 included). */
int lnetk_nrs_nid(const char *text, struct lne_nid *nid);
/* Queue @req on the policy's hp queue if @hp, else its reg queue. */
int lnetk_nrs_enqueue(struct lnetk_nrs *nrs, struct lne_tbf_req *req, bool hp);
/* The next request to serve now (hp first), or NULL and when to ask again. */
struct lne_tbf_req *lnetk_nrs_dequeue(struct lnetk_nrs *nrs, u64 *next);
/* Take a queued request back without serving it (its client went away). */
void lnetk_nrs_cancel(struct lnetk_nrs *nrs, struct lne_tbf_req *req);

#endif /* LNETK_NRS_H */
