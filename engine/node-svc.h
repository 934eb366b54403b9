/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-svc.h - services on a node: a portal bound to a service name, whose
 * incoming PUTs and GETs become requests that pass through the service's
 * NRS TBF policy (tbf.h) before the service handles them.
 *
 * A request.  A PUT or GET that arrives for a portal a service is bound to
 * is a request from its source NID (the header's).  Like a ptlrpc request,
 * a PUT carries its other classification fields in its payload: when the
 * payload starts with LNE_SVC_MAGIC it must hold a whole test-request body
 * (below), which gives the jobid, opcode, uid, gid and the queue; a payload
 * that does not start with the magic (an empty one included) is a request
 * with those fields zero on the reg queue.  A GET carries no payload, so a
 * GET request is classified by its source NID alone.
 *
 *   test-request body, LNE_SVC_BODY bytes, little-endian:
 *     0  u32 magic    LNE_SVC_MAGIC ("LNRQ" in memory order)
 *     4  u16 version  LNE_SVC_VERSION
 *     6  u16 flags    LNE_SVC_F_HP: the hp queue; other bits must be 0
 *     8  u32 opcode   Lustre's numbers (tbf.h lists them)
 *    12  u32 uid
 *    16  u32 gid
 *    20  u32 zero     reserved, must be 0
 *    24  char jobid[32]  NUL-padded; printable ASCII up to the first NUL
 *
 * A body that is short, of another version, with unknown flags, a non-zero
 * reserved word or a jobid byte outside printable ASCII is malformed: the
 * request is dropped unanswered and counted (st.malformed and the node's
 * drop counters), and nothing else changes.
 *
 * The policy.  A service has a policy when lne_svc_set_policy() gave it
 * one (ops + handle); without one, requests are handled on arrival.  A
 * request is enqueued on arrival and handled when the policy lets it out:
 * at once if its class has a token, else at a later lne_node_tick() (the
 * node folds the policy's next deadline into lne_node_next_deadline(), so
 * the shell's timer fires for it).  The node's clock is in ms, so a class
 * gets at most `depth` requests per tick: rates above 1000/s need a depth
 * of rate/1000 + 1 or more to be reached.  Before a policy goes away the
 * shell calls lne_svc_set_policy(..., NULL, NULL): queued requests are
 * taken back and wait, in arrival order, for the next policy (or for the
 * next tick, when they are handled if no policy came).
 *
 * Handling.  The handler runs for each request in the order the policy
 * dispatches them; then the node answers on the link the request came by:
 * a PUT's ACK if the sender asked for one, a GET's REPLY with r->reply
 * (r->reply_len bytes, which the node then owns; NULL: as many zero bytes
 * as the GET asks for).  If that link is gone the answer is dropped
 * (st.orphaned).  The test service (LNE_PORTAL_TEST, when the node's
 * test_service is set) is served this way under the name
 * LNE_SVC_TEST_NAME, with a handler that only counts.
 */
#ifndef LNE_NODE_SVC_H
#define LNE_NODE_SVC_H

#include "node.h"
#include "tbf.h"

#define LNE_SVC_MAGIC	  0x51524e4cu /* "LNRQ" */
#define LNE_SVC_VERSION	  1
#define LNE_SVC_F_HP	  0x0001
#define LNE_SVC_BODY	  56
#define LNE_SVC_TEST_NAME "lnet_test"

struct lne_svc;

/* Fields of a test-request body (the traffic generator fills one per request). */
struct lne_svc_body {
	bool hp;
	u32 opcode, uid, gid;
	char jobid[LNE_TBF_JOBID_MAX + 1];
};

/* One request: the node's while it waits or runs, read-only to handlers but reply. */
struct lne_svc_req {
	struct lne_tbf_req tbf; /* the fields the policy classifies by */
	struct lne_list link;	/* the service's requests, in arrival order */
	struct lne_svc *svc;
	u64 local, peer; /* the link it came by (nid4s) */
	struct lnw_hdr hdr;
	u8 *payload; /* owned; NULL for a GET */
	bool hp;
	bool queued; /* in the policy now */
	u8 *reply;   /* set by a GET's handler (the node owns it then), or NULL */
	u32 reply_len;
};

/*
 * How a service reaches its policy: the engine's lne_svc_tbf_ops() on an
 * lne_tbf at the node's clock, or a shell's own (the module's goes through
 * lnetk_nrs.h and its clock).  Times are ns; next: LNE_TBF_NEVER if none.
 */
struct lne_svc_policy_ops {
	int (*enqueue)(void *p, struct lne_tbf_req *r, bool hp, u64 now);
	struct lne_tbf_req *(*dequeue)(void *p, u64 now, u64 *next);
	void (*cancel)(void *p, struct lne_tbf_req *r, u64 now);
};
extern const struct lne_svc_policy_ops lne_svc_tbf_ops;

typedef void (*lne_svc_fn)(void *arg, struct lne_svc_req *r);

struct lne_svc_stats {
	u64 arrived, handled, malformed, refused, orphaned;
	u64 queued; /* waiting now: in the policy or for one */
};

struct lne_svc {
	char name[LNE_TBF_SERVICE_MAX + 1];
	u32 portal;
	lne_svc_fn fn;
	void *arg;
	const struct lne_svc_policy_ops *ops; /* NULL: no policy */
	void *policy;
	u64 next; /* ns: when the policy has a request ready, LNE_TBF_NEVER: nothing queued */
	struct lne_list reqs; /* every request not yet handled, arrival order */
	struct lne_svc_stats st;
};

/*
 * Bind @portal to the service @name ([A-Za-z0-9_], 1..31 characters; not
 * the reserved portal).  -EINVAL (name or portal; @err says which), -EEXIST
 * (the portal or the name is bound), -ENOSPC (LNE_SVC_MAX), -ENOMEM.
 */
int lne_svc_register(struct lne_node *n, const char *name, u32 portal, lne_svc_fn fn, void *arg,
		     struct lne_err *err);
/* Unbind: its waiting requests are dropped unanswered (counted as dropped). */
void lne_svc_unregister(struct lne_node *n, const char *name);
struct lne_svc *lne_svc_find(struct lne_node *n, const char *name);
/* Attach (@ops, @policy) or, with NULL, detach the policy of @name; -ENOENT if unbound. */
int lne_svc_set_policy(struct lne_node *n, const char *name, const struct lne_svc_policy_ops *ops,
		       void *policy);

/* Encode @b as a test-request body into @out (LNE_SVC_BODY bytes). */
void lne_svc_body_pack(const struct lne_svc_body *b, u8 *out);
/* Decode; 0, or -EINVAL with @err naming the bad field. */
int lne_svc_body_unpack(const u8 *in, u32 len, struct lne_svc_body *b, struct lne_err *err);

#endif /* LNE_NODE_SVC_H */
