/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault.h - fault injection in the node (node-fault.c), as upstream's
 * `lnetctl fault drop|delay add|del|show|reset` sets it: rules that drop
 * or delay the messages they match, so that tests fail paths on purpose.
 *
 * A rule matches a message by source and destination NID (or any), portal
 * and message type, and fires for one message in every `rate` (at a random
 * place in each run of `rate`) or once in every `interval` seconds (at a
 * random second of each).  Where it acts:
 *   - a drop rule with a health error fails the send on this node, as the
 *     LND would with that status: health, resend and recovery follow;
 *   - a drop rule without one drops the message on arrival, silently: the
 *     sender learns of it only by a missing answer;
 *   - a delay rule holds a message this node sends for `latency` seconds
 *     (upstream holds messages that arrive; the path is the same length).
 */
#ifndef LNE_FAULT_H
#define LNE_FAULT_H

#include "node.h"

#define LNE_FAULT_RULES_MAX  64
#define LNE_FAULT_RATE_MAX   1000000000u
#define LNE_FAULT_PERIOD_MAX 86400u /* interval and latency: a day */

struct lne_fault_attr {
	bool delay;			 /* a delay rule, else a drop rule */
	struct lne_nid src_nid, dst_nid; /* as given; alen 0: any */
	u64 src, dst;	    /* their node keys (lne_fault_add() sets large ones'); 0: any */
	u64 portal_mask;    /* a bit per portal; 0: any */
	u32 msg_mask;	    /* a bit per LNW_ACK..LNW_REPLY; 0: any */
	u32 rate, interval; /* exactly one is set */
	u32 latency;	    /* a delay rule's seconds */
	u32 health_mask;    /* a bit per enum lne_hstatus (drop rules only) */
};

struct lne_fault_stat {
	u64 count;   /* messages matched */
	u64 hit;     /* dropped or delayed */
	u64 type[4]; /* hits by type: ACK, PUT, GET, REPLY */
};

struct lne_fault {
	struct lne_fault *next;
	u32 id;
	struct lne_fault_attr a;
	struct lne_fault_stat st;
	u64 fire_at;	       /* rate: the count that fires next */
	u64 window_ms, due_ms; /* interval: this window's start, and when it fires in it */
};

/*
 * One option of a rule by upstream's long option name: source, dest (a NID
 * or "*"), rate, interval, latency, portal (numbers), message (PUT, ACK,
 * GET, REPLY) and health_error (a status name, as lne_hstatus_name()
 * spells them); portal, message and health_error take comma lists.
 */
int lne_fault_opt(struct lne_fault_attr *a, const char *key, const char *value,
		  struct lne_err *err);
/* Add a checked rule (rate xor interval; latency for, and only for, delay); returns its id. */
int lne_fault_add(struct lne_node *n, const struct lne_fault_attr *a, struct lne_err *err);
/* Delete the rules of a kind from @src to @dst (NULL: any), or all; returns how many. */
int lne_fault_del(struct lne_node *n, bool delay, const struct lne_nid *src,
		  const struct lne_nid *dst, bool all);
void lne_fault_reset(struct lne_node *n, bool delay);
/* @fn for each rule of a kind, oldest first; a negative return stops the walk. */
int lne_fault_each(const struct lne_node *n, bool delay,
		   int (*fn)(void *arg, const struct lne_fault *f), void *arg);
/* The rule's options as lne_fault_opt() takes them: @fn(key, value) for each that is set. */
int lne_fault_attr_each(const struct lne_fault_attr *a,
			int (*fn)(void *arg, const char *key, const char *value), void *arg);

#endif /* LNE_FAULT_H */
