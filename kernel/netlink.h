/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink.h - the generic netlink family "lnetk" (see uapi/lnetk.h), as the
 * rest of the module sees it: registered last at load, first to go at
 * unload (main.c).  What the family's own files share is in nl-int.h.
 */
#ifndef LNETK_NETLINK_H
#define LNETK_NETLINK_H

int lnetk_genetlink_init(void);
void lnetk_genetlink_uninit(void);

struct net;
struct sk_buff;
/*
 * An announcement of the data path to the "dp" group of @net (uapi/lnetk.h),
 * in a message of @size bytes of attributes (NLMSG_GOODSIZE at least).
 */
void lnk_nl_dp_announce(struct net *net, u8 cmd, size_t size,
			int (*fill)(struct sk_buff *skb, void *arg), void *arg);

#endif /* LNETK_NETLINK_H */
