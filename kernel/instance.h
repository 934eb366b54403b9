/* SPDX-License-Identifier: GPL-2.0 */
/*
 * instance.h - one LNet instance per network namespace.
 *
 * main.c creates an instance when a network namespace appears and destroys
 * it when the namespace goes; netlink.c finds the instance of the socket it
 * serves.  Every change to an instance happens under its mutex and bumps
 * its generation, which readers use to tell whether what they saw is still
 * current (see uapi/lnetk.h).
 */
#ifndef LNETK_INSTANCE_H
#define LNETK_INSTANCE_H

#include <linux/mutex.h>
#include <linux/types.h>

struct net;

struct lnetk_net {
	struct mutex lock; /* serialises every change, engine calls included */
	u64 generation;	   /* under lock */
};

struct lnetk_net *lnetk_net(const struct net *net);

#endif /* LNETK_INSTANCE_H */
