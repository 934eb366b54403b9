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

#include <linux/mutex.h>
#include <linux/types.h>

struct net;
struct lne_inst;

struct lnetk_net {
	struct mutex lock;     /* serialises every change and every engine call */
	u64 generation;	       /* under lock */
	struct lne_inst *inst; /* under lock */
};

struct lnetk_net *lnetk_net(const struct net *net);
/* A fresh engine instance with the host's NUMA distances. */
struct lne_inst *lnetk_inst_new(void);
/* Give @inst the host's distances: node_distance() between NUMA nodes. */
int lnetk_numa_default(struct lne_inst *inst);

#endif /* LNETK_INSTANCE_H */
