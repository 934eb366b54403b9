/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-int.h - what the node's files (node.c, node-link.c, node-stats.c,
 * node-path.c, ...) share and nobody else uses.
 */
#ifndef LNE_NODE_INT_H
#define LNE_NODE_INT_H

#include "node.h"
#include "siphash.h"

/* The most a ping info takes: the GET asks for it, the answer fits in it. */
#define PING_INFO_MAX	LNW_PING_SIZE(LNW_PING_NIS_MAX)
/* A peer NI's credits when it is made (engine/model-peer.c): full. */
#define LNE_PNI_CREDITS 8

/*
 * Buckets of the link, pending, discovery and counter tables: keyed by the
 * node's own random key (lne_node_init), so that a peer, which chooses the
 * NIDs it claims, cannot aim them at one chain (issue 35).
 */
static inline u32 lne_nd_mix(const struct lne_node *n, u64 local, u64 peer)
{
	return (u32)lne_siphash13(n->hkey[0], n->hkey[1], local, peer);
}

static inline u32 lne_nd_hash(const struct lne_node *n, u64 local, u64 peer)
{
	return lne_nd_mix(n, local, peer) % LNE_LINK_HASH;
}

/* The counter table's bucket of @nid: over all LNE_STAT_HASH, not LNE_LINK_HASH's. */
static inline u32 lne_nd_stat_bucket(const struct lne_node *n, u64 nid, bool local)
{
	return lne_nd_mix(n, nid, local) % LNE_STAT_HASH;
}

/* node-keys.c: a full key table takes back what nothing here names; its idle counters go */
void lne_nd_keys_init(struct lne_node *n);
void lne_nd_keys_sweep(struct lne_node *n);

/* node-stats.c */
struct lne_stat *lne_nd_stat_get(struct lne_node *n, u64 nid, bool local);
/*
 * Counters in use, which no sweep frees: on the recovery queue or pinged
 * for it, a gateway's checks, router credits lent or waited for.
 */
static inline bool lne_nd_stat_busy(const struct lne_stat *s)
{
	return s->h.queued || s->h.pinging || s->gw.used || s->rc.q || s->rc.lent;
}
/* After an input or tick: past LNE_STAT_STRANGERS new entries, free strangers' idle ones. */
void lne_nd_stats_sweep(struct lne_node *n);
void lne_nd_count(struct lne_counts *c, bool send, u32 type, u32 bytes);
void lne_nd_count_drop(struct lne_node *n, struct lne_link *l, u32 type, u32 bytes);
/* The same, on peer NI @peer's counters (nid4; 0: the node's only). */
void lne_nd_count_drop_nid(struct lne_node *n, u64 peer, u32 type, u32 bytes);

/* node.c */
void lne_nd_dispatch(struct lne_node *n, struct lne_msg *m);
void lne_nd_finish(struct lne_node *n, struct lne_msg *m, int status);

/* node.c, for node-input.c */
/* A message of the node's, zeroed and counted (msgs_alloc, msgs_max). */
struct lne_msg *lne_nd_msg_alloc(struct lne_node *n);
/* The message a REPLY or ACK answers, off the pending table (NULL: none of ours). */
struct lne_msg *lne_nd_pending_take(struct lne_node *n, u64 iface, u64 object);
/* The NI's and peer NI's credits @m took are given back. */
void lne_nd_credits_back(struct lne_node *n, struct lne_msg *m);
/* The messages waiting for credits go again. */
void lne_nd_credq_kick(struct lne_node *n);
/* Answer @rq on @l, the link it came by (or the one of the answer's size beside it). */
void lne_nd_answer_link(struct lne_node *n, struct lne_link *l, const struct lnw_hdr *rq, u32 type,
			u8 *payload, u32 len, bool borrowed);

/* node-router.c */
void lne_nd_rtr_init(struct lne_node *n);
/* Take a buffer for the forwarded @m and dispatch it, or queue it until one is free. */
void lne_nd_rtr_forward(struct lne_node *n, struct lne_msg *m);
/* @m is done: its buffer goes to the next message waiting for one. */
void lne_nd_rtr_release(struct lne_node *n, struct lne_msg *m);
/* Every waiting message fails with @err. */
void lne_nd_rtr_fini(struct lne_node *n, int err);

/* node-path.c */
/* @only: the local NI the sender named (NULL: any). */
struct lne_ni *lne_nd_direct_ni(struct lne_node *n, const struct lne_nid *dst, struct lne_ni *only);
struct lne_route *lne_nd_direct_route(struct lne_node *n, const struct lne_nid *dst,
				      struct lne_ni *only, struct lne_ni **ni);

/* node.c, for node-svc.c: answer @rq on the link from @local to @peer; false if it is gone. */
bool lne_nd_answer(struct lne_node *n, u64 local, u64 peer, const struct lnw_hdr *rq, u32 type,
		   u8 *payload, u32 len, bool borrowed);
/* LNW_MTU zero bytes, the node's (NULL: out of memory). */
const u8 *lne_nd_zeros(struct lne_node *n);

/* node-svc.c: the services' side of on_msg, tick, next_deadline and fini. */
struct lne_svc *lne_nd_svc_bound(struct lne_node *n, u32 portal);
/* A request for @s: counted as received already; takes ev->payload. */
void lne_nd_svc_recv(struct lne_node *n, struct lne_svc *s, struct lne_link *l,
		     struct lne_conn_ev *ev);
void lne_nd_svc_tick(struct lne_node *n);
u64 lne_nd_svc_next_ms(const struct lne_node *n);
void lne_nd_svc_fini(struct lne_node *n);

/* node.c, for node-link.c: a send failed; it goes again or is over. */
void lne_nd_fail_over(struct lne_node *n, struct lne_msg *m, int err);

/* node-link.c: socklnd's typed connections between a local NI and a peer NI. */
/* A frame of @payload bytes goes on a bulk connection. */
bool lne_nd_want_bulk(u32 payload);
/* The best live link from @local to @peer of the type @bulk says, or any (NULL: none). */
struct lne_link *lne_nd_link_find(struct lne_node *n, u64 local, u64 peer, bool bulk);
void lne_nd_link_hash_add(struct lne_node *n, struct lne_link *l);
void lne_nd_link_hash_del(struct lne_node *n, struct lne_link *l);
struct lnw_hello lne_nd_hello(const struct lne_node *n, u64 local, u64 peer, u32 peer_pid,
			      u64 peer_inc, u32 ctype);
/* The link a frame of @payload bytes takes, the whole set opened on first contact. */
struct lne_link *lne_nd_link_get(struct lne_node *n, u64 local, u64 peer, u32 payload);
/* When stalled @l times out (U64 max: not stalled). */
u64 lne_nd_link_deadline(const struct lne_node *n, const struct lne_link *l);
/* Close every link of local NI @ni4: what they held fails over. */
void lne_nd_close_ni(struct lne_node *n, u64 ni4);
void lne_nd_link_lost(struct lne_node *n, struct lne_link *l, int err);
/* Close the links that moved no byte for the lnd timeout. */
void lne_nd_links_stalled(struct lne_node *n);

/* node.c: a message discovery held goes on (or ends, @status non-zero). */
void lne_nd_release(struct lne_node *n, struct lne_msg *m, int status);

/* node-disc.c */
enum lne_disc_mode lne_nd_disc_mode(const struct lne_node *n);
/* True if @m waits for discovery (which now owns it). */
bool lne_nd_disc_hold(struct lne_node *n, struct lne_msg *m);
/* A ping came from @src: that peer has our NIDs now. */
void lne_nd_disc_pinged(struct lne_node *n, u64 src);
/* A push (a PUT on the reserved portal with the ping match bits) came by @l. */
void lne_nd_disc_push(struct lne_node *n, struct lne_link *l, const struct lnw_hdr *h,
		      const u8 *payload);
/* The node is going: every round ends with -ESHUTDOWN. */
void lne_nd_disc_fini(struct lne_node *n);
/* Whether a discovery round pings @nid4. */
bool lne_nd_disc_busy(struct lne_node *n, u64 nid4);

/* node.c, for node-health.c */
/* A recovery ping from @src to @dst exactly, never resent. */
int lne_nd_ping_recovery(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
			 u32 timeout_ms, lne_msg_cb cb, void *arg);

/* node-fault.c */
/* A send that a drop rule fails (m->fault_hs set); an arrival it drops; a send it holds. */
bool lne_nd_fault_send(struct lne_node *n, struct lne_msg *m, u64 src);
bool lne_nd_fault_recv(struct lne_node *n, const struct lnw_hdr *h);
bool lne_nd_fault_delay(struct lne_node *n, struct lne_msg *m);
void lne_nd_fault_tick(struct lne_node *n);
u64 lne_nd_fault_deadline(const struct lne_node *n);
/* The rules freed; the held messages returned, to be ended. */
struct lne_msg *lne_nd_fault_fini(struct lne_node *n);

/* node-health.c */
/* @m waited for credits past its transaction deadline: dropped and ended (true), as upstream. */
bool lne_nd_expired(struct lne_node *n, struct lne_msg *m);
/* @m failed (@err): blame, count, and true if it is queued on n->resendq to go again. */
bool lne_nd_send_failed(struct lne_node *n, struct lne_msg *m, int err);
/* A message went out on @l; something came in on @l. */
void lne_nd_send_ok(struct lne_node *n, struct lne_link *l, const struct lne_msg *m);
/* @from: the peer NI @l reaches (NULL: ourselves, or nobody known). */
void lne_nd_heard(struct lne_node *n, struct lne_link *l, const struct lne_peer_ni *from);
/* No answer came to @m in time: the next hop is blamed if response_tracking says so. */
void lne_nd_response_timeout(struct lne_node *n, struct lne_msg *m);
/* The fixed path of a recovery ping. */
int lne_nd_recovery_path(struct lne_node *n, struct lne_msg *m, struct lne_ni **ni,
			 struct lne_peer_ni **pni);
void lne_nd_recovery_tick(struct lne_node *n);
u64 lne_nd_recovery_deadline(const struct lne_node *n);
/* The resend and health counters by upstream's `stats show` names. */
int lne_nd_health_stats_each(const struct lne_node *n, lne_count_fn fn, void *arg);

/* node-gw.c */
void lne_nd_gw_tick(struct lne_node *n);
u64 lne_nd_gw_deadline(const struct lne_node *n);
/* Routes up or down as the gateways' checks say now; @tell: ops->route of each change. */
void lne_nd_gw_sync(struct lne_node *n, bool tell);
/* A ping reply came from @nid4 (discovery's): a check of it, if it is a gateway. */
void lne_nd_gw_pinged(struct lne_node *n, u64 nid4, const u8 *info, u32 len);
/* drop_asym_route: true if @h, which came by @l, is for this node over a route it would not take back. */
bool lne_nd_gw_asym(struct lne_node *n, const struct lne_link *l, const struct lnw_hdr *h);

/*
 * node-disc-merge.c: each of @peer's NIs that ping info @e (@count entries,
 * 0@lo first) lists is up or down as it says (236).
 */
void lne_nd_note_status(struct lne_node *n, const struct lne_peer *peer,
			const struct lnw_ping_ent *e, u32 count);

/* node-router.c: the router credit of @m's sender is given back (and the next waiting goes on). */
void lne_nd_rtr_credit_back(struct lne_node *n, struct lne_msg *m);
/* Whether forwarded @m must go to @dst itself, the NID its sender chose (237/238). */
bool lne_nd_exact_hop(struct lne_node *n, const struct lne_msg *m, const struct lne_nid *dst);

#endif /* LNE_NODE_INT_H */
