/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dp-int.h - what the module's data path files share: dp.c (sockets and
 * the work), dp-events.c (link events, announcements to the "dp" group)
 * and dp-cmd.c (what the genl commands call: counters, ping, selftest).
 */
#ifndef LNETK_DP_INT_H
#define LNETK_DP_INT_H

#include <linux/cred.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "dp.h"
#include "engine/nid-sockaddr.h"
#include "instance.h"
#include "lnetk_nrs.h"
#include "netlink.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

#define RX_BUF	      (64 * 1024)
#define READS_PER_RUN 16
#define LISTEN_MAX    64

struct ksock {
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	int kick; /* an event came: serve it on the next run */
};

struct klink {
	struct lne_link l; /* first: the node's part */
	struct lnetk_dp *dp;
	struct list_head item; /* in dp->links */
	struct ksock ks;
	bool connecting;
	int ifindex; /* the interface its packets leave by, as its route said (0: unknown) */
};

struct klisten {
	struct lnetk_dp *dp;
	struct list_head item;
	struct ksock ks;
	struct lne_nid addr; /* the NI's NID: its address, 4 or 16 bytes */
	bool seen;
};

struct lnetk_dp {
	const struct cred *kcred; /* the kernel's: a connection's reserved port is bound with it */
	struct net *net;
	struct lnetk_net *ln;
	struct mutex lock; /* every call into the node; the lists */
	struct lne_node node;
	struct workqueue_struct *wq; /* and @rx: made at the first NI (dp_start_io) */
	struct work_struct run;
	struct delayed_work tick;
	struct list_head links, listeners;
	spinlock_t ev_lock;	 /* @events: the netdev notifier adds under RTNL */
	struct list_head events; /* struct link_ev, oldest first */
	bool need_sync, stopping;
	u8 *rx;
};

/* The instance's data path: main.c keeps it beside the instance. */
static inline struct lnetk_dp *dp_of(struct lnetk_net *ln)
{
	return ln->dp;
}

/* dp.c: enter the node (@lock, then the instance for reading) and leave it (arms the tick). */
void node_enter(struct lnetk_dp *dp);
void node_leave(struct lnetk_dp *dp);
/* dp.c: queue the work, unless stopping or not started yet (no NI so far). */
void dp_kick(struct lnetk_dp *dp);

/* dp-events.c: the node's announcements, for dp.c's node ops. */
void ops_state(void *ctx, const struct lne_nid *nid, bool local, const char *state, s32 health);
void ops_discovered(void *ctx, const struct lne_peer *peer);
void ops_route(void *ctx, lne_net_t net, const struct lne_nid *gw, bool up);
/* dp-events.c: serve the queued link events (node entered); free them unserved. */
void link_events(struct lnetk_dp *dp);
void link_events_free(struct lnetk_dp *dp);

#endif /* LNETK_DP_INT_H */
