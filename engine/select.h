/* SPDX-License-Identifier: GPL-2.0 */
/*
 * select.h - path selection: which local NI, peer NI and (for a remote
 * peer) gateway carry the next message to a peer.
 *
 * The order, merging the UDSP design's "order of operations" with the
 * Multi-Rail design's selection pseudo-code.  At every step health comes
 * first (higher wins) and round robin last (among otherwise equal
 * candidates, the one used least recently):
 *
 *  Peer reachable on a local net (its peer nets that are local):
 *   1. local NI over all such nets: NI health, the best health among the
 *      peer's NIs on that net, peer net priority (--dst net rule), local net
 *      priority (--src net rule), local NI priority (--src NID rule), NUMA
 *      distance to the message's memory (distances up to numa_range count
 *      as equal), NI credits, round robin;
 *   2. peer NI on the chosen net: health, peer NI priority (--dst NID
 *      rule), preferred (the chosen local NI is among its preferred sources;
 *      a NID pair rule's priority orders the preferred among themselves),
 *      credits, round robin.
 *  Peer reachable only through routers:
 *   1. peer NI over its remote nets that have a usable route: health, peer
 *      net priority, peer NI priority, credits, round robin;
 *   2. gateway among the routes to that net: gateway health, preferred (the
 *      gateway is on the peer NI's preferred routers), route priority, hops,
 *      gateway credits, round robin;
 *   3. local NI on the gateway's net: health, local NI priority, preferred
 *      (among the gateway's preferred sources), NUMA, credits, round robin.
 *
 * A reply (ACK, REPLY) goes from the given local NI to the exact NID the
 * request came from.  An explicit source NID fixes the local NI; the peer NI
 * is then chosen on that NI's net (or behind a gateway on it).  A
 * non-Multi-Rail peer keeps the first local NI chosen for it, as long as
 * that NI exists and is up.  A down NI is never chosen.
 *
 * lne_select() does not allocate and takes no lock; it updates round-robin
 * state (port.h's lne_clock_t and shared words) and, for non-Multi-Rail
 * peers, the kept source NI, so that selections may run side by side under
 * a reader lock while changes to the instance are kept out (the module's
 * SELECT does; lnetd serialises everything).
 */
#ifndef LNE_SELECT_H
#define LNE_SELECT_H

#include "model.h"

enum lne_msg_kind {
	LNE_MSG_PUT,
	LNE_MSG_GET,
	LNE_MSG_ACK,
	LNE_MSG_REPLY,
};

struct lne_sel_req {
	struct lne_nid dst;
	const struct lne_nid *src; /* NULL: any */
	u8 kind;		   /* enum lne_msg_kind */
	s32 md_cpt;		   /* CPT of the message's memory, LNE_CPT_ANY if unknown */
	bool peek;		   /* decide, but move no round robin (explain from a reader) */
	bool exact;		   /* to @dst itself if its net is local (a router's last hop) */
};

struct lne_sel {
	struct lne_ni *ni;
	struct lne_peer_ni *pni;
	struct lne_route *route; /* NULL when the peer NI is on a local net */
};

/* The criteria, in the words explain uses. */
enum lne_crit {
	LNE_CRIT_CHOSEN,
	LNE_CRIT_DOWN,	      /* link down: never chosen */
	LNE_CRIT_UNREACHABLE, /* no usable route, or no NI on its net */
	LNE_CRIT_OTHER_NET,   /* on a net other than the one chosen */
	LNE_CRIT_HEALTH,
	LNE_CRIT_PEER_HEALTH, /* the best health of the peer's NIs on that net */
	LNE_CRIT_DST_NET_PRIO,
	LNE_CRIT_SRC_NET_PRIO,
	LNE_CRIT_NI_PRIO,
	LNE_CRIT_PEER_PRIO,
	LNE_CRIT_PREFERRED,
	LNE_CRIT_ROUTE_PRIO,
	LNE_CRIT_HOPS,
	LNE_CRIT_NUMA,
	LNE_CRIT_CREDITS,
	LNE_CRIT_ROUND_ROBIN,
	LNE_CRIT__COUNT
};

enum lne_exp_step {
	LNE_STEP_LOCAL_NI,
	LNE_STEP_PEER_NI,
	LNE_STEP_GATEWAY,
};

#define LNE_KEY_MAX 8

/* A candidate's values on each criterion of its step, best first. */
struct lne_key {
	u8 n;
	u8 crit[LNE_KEY_MAX];
	s64 v[LNE_KEY_MAX];    /* as the criterion reads (health, priority, ...) */
	s32 rule[LNE_KEY_MAX]; /* idx of the rule behind a priority, or -1 */
};

struct lne_exp_entry {
	u8 step;    /* enum lne_exp_step */
	u8 crit;    /* LNE_CRIT_CHOSEN, or where it lost to the chosen one */
	u8 lost_at; /* index in key of that criterion */
	struct lne_nid nid;
	struct lne_key key;
};

/* Filled by lne_select() when given; entries past @cap are counted only. */
struct lne_explain {
	struct lne_exp_entry *ent;
	u32 cap, n, dropped;
};

int lne_select(struct lne_inst *ln, const struct lne_sel_req *req, struct lne_sel *out,
	       struct lne_explain *ex, struct lne_err *err);

const char *lne_crit_name(enum lne_crit crit);
/* True when a larger value wins on @crit (health, credits). */
bool lne_crit_higher_wins(enum lne_crit crit);

#endif /* LNE_SELECT_H */
