// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the lnetk module: LNet's runtime state, one instance per network
 * namespace, driven over generic netlink.
 *
 * Bring-up is a ladder: instances first, so that the genl family never
 * serves a namespace that has none; the family last, because registering it
 * is what lets requests in.  Tear-down runs the ladder backwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "instance.h"
#include "netlink.h"
#include "uapi/lnetk.h"
#include "version.h"

static unsigned int lnetk_net_id __read_mostly;

struct lnetk_net *lnetk_net(const struct net *net)
{
	return net_generic(net, lnetk_net_id);
}

static int __net_init lnetk_net_init(struct net *net)
{
	struct lnetk_net *ln = lnetk_net(net);

	mutex_init(&ln->lock);
	ln->generation = 0;
	return 0;
}

static void __net_exit lnetk_net_exit(struct net *net)
{
	mutex_destroy(&lnetk_net(net)->lock);
}

static struct pernet_operations lnetk_net_ops = {
	.init = lnetk_net_init,
	.exit = lnetk_net_exit,
	.id = &lnetk_net_id,
	.size = sizeof(struct lnetk_net),
};

static int __init lnetk_mod_init(void)
{
	int ret;

	ret = register_pernet_subsys(&lnetk_net_ops);
	if (ret < 0)
		goto err_pernet;

	ret = lnetk_genetlink_init();
	if (ret < 0)
		goto err_netlink;

	pr_info("version " LNETK_VERSION " loaded\n");
	return 0;

err_netlink:
	unregister_pernet_subsys(&lnetk_net_ops);
err_pernet:
	return ret;
}

static void __exit lnetk_mod_exit(void)
{
	lnetk_genetlink_uninit();
	unregister_pernet_subsys(&lnetk_net_ops);
}

module_init(lnetk_mod_init);
module_exit(lnetk_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LNet runtime state (Multi-Rail, UDSP, NRS TBF) over generic netlink");
MODULE_VERSION(LNETK_VERSION);
MODULE_ALIAS_GENL_FAMILY(LNETK_GENL_NAME);
