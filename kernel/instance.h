/* SPDX-License-Identifier: GPL-2.0 */
/*
 * instance.h - one LNet instance per network namespace.
 *
 * main.c creates an instance when a network namespace appears and destroys
 * it when the namespace goes; netlink.c finds the instance of the socket it
 * serves.  Every change happens under the instance's mutex and bumps its
 * generation, which readers use to tell whether what they saw is still
 * current (see uapi/lnetk.h).  The engine state itself may be replaced
 * whole (a batch is built on a copy and swapped in), so it is reached only
 * through @inst, under @lock.
 *
 * Selection also runs under @lock today: its only caller is the SELECT
 * command.  When the data path arrives, selection moves under RCU with
 * @inst published by rcu_assign_pointer(), and swaps wait a grace period
 * before freeing the old state.
 */
#ifndef LNETK_INSTANCE_H
#define LNETK_INSTANCE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct net;
struct lne_inst;
struct lne_tbf;

/*
 * One NRS TBF policy of an instance (engine/tbf.h), in its list.  The list
 * and @open change under the instance lock; the engine policy is called
 * under @qlock only, which a request source (lnetk_nrs.h) takes without
 * the instance lock.  Order: lnetk_net.lock, then qlock.
 */
struct lnetk_tbf {
	struct list_head link; /* in lnetk_net.tbf, by service name */
	struct mutex qlock;    /* every engine call on @tbf */
	struct lne_tbf *tbf;
	bool open; /* a request source or a TBF_LOAD holds it (lnetk_nrs_open) */
};

struct lnetk_net {
	struct mutex lock;     /* serialises every change and every engine call */
	u64 generation;	       /* under lock */
	struct lne_inst *inst; /* under lock */
	struct list_head tbf;  /* under lock: struct lnetk_tbf, sorted by service */
	u32 ntbf;	       /* under lock: how many */
};

struct lnetk_net *lnetk_net(const struct net *net);
/* A fresh engine instance with the host's NUMA distances. */
struct lne_inst *lnetk_inst_new(void);
/* Free a TBF policy of the list (unlinks it; the count is the caller's). */
void lnetk_tbf_free(struct lnetk_tbf *t);
/* Give @inst the host's distances: node_distance() between NUMA nodes. */
int lnetk_numa_default(struct lne_inst *inst);

#endif /* LNETK_INSTANCE_H */
