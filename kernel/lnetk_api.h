/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetk_api.h - LNet for other kernel modules: PUT and GET with portals
 * and match bits, completion callbacks, and services whose requests pass
 * through the service's NRS TBF policy before the service sees them.
 *
 *	struct lne_nid dst;  lnetk_nrs_nid("10.8.0.2@tcp", &dst);
 *	lnetk_put(net, &dst, portal, match, data, len, true, 5000, done, arg);
 *	lnetk_get(net, &dst, portal, match, len, 5000, done, arg);
 *	lnetk_service_register(net, "my_svc", portal, serve, arg);
 *	...
 *	lnetk_service_unregister(net, "my_svc");
 *
 * Sending.  @net is the namespace whose lnetk instance sends: its NIs,
 * peers, rules and credits (selection chooses the path as for any message).
 * A PUT copies @data (at most LNW_MTU bytes); with @ack it is done when
 * the peer's ACK comes, else when it is sent.  A GET is done when its
 * REPLY (at most @len bytes) comes.  @timeout_ms (1..LNETK_API_TIMEOUT_MAX)
 * bounds the wait for an answer.  @done runs exactly once for every call
 * that returned 0: status 0, or a negative errno (-ETIMEDOUT, -ECONNRESET,
 * -EHOSTUNREACH, -ENOTCONN, -ESHUTDOWN when the namespace goes); for a GET
 * with @reply and @len the REPLY's bytes, valid during the call only.  A
 * call that fails returns -EINVAL (portal, length or timeout out of range),
 * -EAFNOSUPPORT (an IPv6 NID: socklnd v4 is not built), -ENOMEM or
 * -ESHUTDOWN, and never calls @done.  A module must not unload while a
 * @done is owed to it.
 *
 * Services.  lnetk_service_register() binds @portal of @net's node to the
 * service @name ([A-Za-z0-9_], 1..31 characters).  Every PUT and GET that
 * arrives on it is a request: its source NID, and from a PUT's payload the
 * test-request body's jobid, opcode, uid, gid and queue (engine/node-svc.h
 * documents the body and what is refused as malformed).  If @net has a TBF
 * policy for @name when the service is registered, the service holds it
 * open (lnetk_nrs.h: TBF_DEL is refused meanwhile; rule changes apply at
 * once) and requests pass through it: @serve sees each only when its class
 * has a token, in FIFO order within its class, hp first.  Without a policy
 * they are served as they arrive.  After @serve returns lnetk answers the
 * request: a PUT's ACK if asked for, a GET's REPLY with r->reply (a
 * kmalloc'd buffer of r->reply_len bytes that lnetk then frees) or as many
 * zero bytes as the GET asked for.  Errors: -EINVAL (name or portal: the
 * reserved portal 0 and portals beyond LNW_PORTALS - 1), -EEXIST (the portal
 * or name is bound), -ENOSPC (LNE_SVC_MAX services), -EBUSY (another source
 * holds the policy), -ENOMEM, -ESHUTDOWN.  Unregistering drops the requests
 * still waiting, unanswered, and closes the policy.
 *
 * Context and locking.  lnetk_put, lnetk_get and lnetk_service_* may sleep
 * (process context only).  @done and @serve run on the data path's ordered
 * workqueue (or, for a send that fails at once on selection, in the caller)
 * with the data path's lock held: they must not sleep for long and must not
 * call lnetk_* for the same namespace (queue work for that instead).  The
 * exported symbols are GPL; lne_svc_body_pack() and lne_svc_body_unpack()
 * (engine/node-svc.h) are exported too, for senders of test requests.
 */
#ifndef LNETK_API_H
#define LNETK_API_H

#include <linux/types.h>

#include "engine/node-svc.h"

#define LNETK_API_TIMEOUT_MAX 300000 /* ms */

struct net;

typedef void (*lnetk_done_t)(void *arg, int status, const void *reply, u32 len);

int lnetk_put(struct net *net, const struct lne_nid *dst, u32 portal, u64 match, const void *data,
	      u32 len, bool ack, u32 timeout_ms, lnetk_done_t done, void *arg);
int lnetk_get(struct net *net, const struct lne_nid *dst, u32 portal, u64 match, u32 len,
	      u32 timeout_ms, lnetk_done_t done, void *arg);

int lnetk_service_register(struct net *net, const char *name, u32 portal, lne_svc_fn serve,
			   void *arg);
void lnetk_service_unregister(struct net *net, const char *name);

#endif /* LNETK_API_H */
