// SPDX-License-Identifier: GPL-2.0
/*
 * netdev.c - link events: an interface going down takes its NIs out of
 * the data path at once, and coming up starts their recovery (issue 17,
 * "Link state"), without waiting for a send to time out.  NIs are on an
 * interface by its name, as lnetd configures them: a rename (NETDEV_CHANGENAME,
 * issue 35) gives the NIs on the new name that interface's state, and takes
 * down those whose name no interface has any more.
 *
 * The notifier runs under RTNL, in process context, for every namespace;
 * it only queues the event on that namespace's data path (dp.c), whose
 * work acts on it under the node's locks.  A namespace's instance exists
 * while it has devices: the pernet subsystem's init runs before the
 * namespace's devices appear and its exit after they are gone, and the
 * notifier goes before the subsystem when the module unloads (main.c).
 */
#include <linux/netdevice.h>

#include "dp.h"
#include "instance.h"

/* Up as LNet means it: administratively up, and a carrier. */
static bool link_up(const struct net_device *dev)
{
	return netif_running(dev) && netif_carrier_ok(dev);
}

static int on_netdev(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:	/* the carrier */
	case NETDEV_GOING_DOWN: /* before its addresses go */
	case NETDEV_CHANGENAME:
		lnetk_dp_link_event(lnetk_net(dev_net(dev)), dev->name,
				    event != NETDEV_GOING_DOWN && link_up(dev),
				    event == NETDEV_CHANGENAME);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block lnetk_netdev_nb = {
	.notifier_call = on_netdev,
};

int lnetk_netdev_init(void)
{
	return register_netdevice_notifier(&lnetk_netdev_nb);
}

void lnetk_netdev_uninit(void)
{
	unregister_netdevice_notifier(&lnetk_netdev_nb);
}
