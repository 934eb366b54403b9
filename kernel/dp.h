/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dp.h - the module's data path: the engine's LNet node (engine/node.h)
 * on kernel TCP sockets in the instance's network namespace.
 *
 * One per instance.  It listens on the LNet port of every IPv4 address a
 * TCP NI has, connects from a reserved port of the local NI's address, and
 * runs every socket event and every call into the node on one ordered
 * workqueue of its own (made at the first NI), under @lock: the node
 * itself is single-threaded.
 * The node reads the instance's objects with ln->sel held for reading, so
 * changes (which take it for writing) never race a message.
 */
#ifndef LNETK_DP_H
#define LNETK_DP_H

#include <linux/types.h>

#include "engine/node-test.h"

struct lnetk_net;
struct lnetk_dp;

#define LNETK_PING_TIMEOUT_MAX 300000 /* ms */

int lnetk_dp_start(struct net *net, struct lnetk_net *ln);
void lnetk_dp_stop(struct lnetk_net *ln);
/* The NIs may have changed: listen where they are now (asynchronously). */
void lnetk_dp_changed(struct lnetk_net *ln);

/*
 * netdev.c: interface @ifname of the instance's namespace went up or down,
 * or (@renamed) took that name (process context, RTNL held: queued, acted
 * on in the data path's work).
 */
void lnetk_dp_link_event(struct lnetk_net *ln, const char *ifname, bool up, bool renamed);
int lnetk_netdev_init(void);
void lnetk_netdev_uninit(void);

/* A ping's answer, as the caller of lnetk_dp_ping() gets it. */
struct lnetk_ping_result {
	int status;
	struct lnw_ping p;
	u32 n; /* entries in e, 0@lo first; large NIDs (IPv6) too */
	struct lnw_ping_large e[LNW_PING_NIS_MAX];
};

/* Ping @dst (from @src if given) and wait, up to @timeout_ms, for the answer. */
/* @discover: 1 discover @dst's peer instead, 2 even if discovered (the result: that peer). */
int lnetk_dp_ping(struct lnetk_net *ln, const struct lne_nid *dst, const struct lne_nid *src,
		  u32 timeout_ms, u8 discover, struct lnetk_ping_result *out, struct lne_err *err);

/*
 * Call into the node from process context (api.c): the node, its clock
 * brought up to now, with the data path's locks held; NULL (nothing held)
 * once the data path is stopping.  lnetk_dp_leave() arms the clock (what
 * was queued is written: the node's wake did it).
 */
struct lne_node *lnetk_dp_enter(struct lnetk_net *ln);
void lnetk_dp_leave(struct lnetk_net *ln);

struct sk_buff;
/* The counters into @skb (LNETK_A_COUNTERS, uapi/lnetk.h); -EMSGSIZE if not even the node's fit. */
int lnetk_dp_counters(struct lnetk_net *ln, struct sk_buff *skb);
void lnetk_dp_counters_reset(struct lnetk_net *ln);
/* api.c: the test service through the namespace's "lnet_test" policy, if any. */
int lnetk_api_test_service(struct net *net, bool on);
/* api.c: take the test service's own policy handle away (node locked); close it unlocked. */
struct lnetk_nrs *lnetk_api_test_detach(struct lne_node *n);
/*
 * Run the traffic generator (@t: its parameters, checked) and wait for its
 * last message; @t then holds the results, and @elapsed_ns the time taken.
 * With @t->trace (room for @t->max_samples rows of 1 + LNE_TEST_RAILS_MAX)
 * a row is sampled every @interval_ms, and one at the end.
 * A signal stops it early (-EINTR: @t is not filled).
 */
int lnetk_dp_selftest(struct lnetk_net *ln, struct lne_test *t, u32 interval_ms, u64 *elapsed_ns);

#endif /* LNETK_DP_H */
