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

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "dp.h"
#include "engine/model.h"
#include "instance.h"
#include "netlink.h"
#include "uapi/lnetk.h"
#include "version.h"

static unsigned int lnetk_net_id __read_mostly;

/* Live instances, read-only in /sys/module/lnetk/parameters/instances:
 * tests watch it fall when a namespace goes. */
static atomic_t lnetk_instances = ATOMIC_INIT(0);

static int lnetk_instances_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&lnetk_instances));
}

static const struct kernel_param_ops lnetk_instances_ops = {
	.get = lnetk_instances_get,
};
module_param_cb(instances, &lnetk_instances_ops, NULL, 0444);
MODULE_PARM_DESC(instances, "LNet instances alive (one per network namespace)");

struct lnetk_net *lnetk_net(const struct net *net)
{
	return net_generic(net, lnetk_net_id);
}

/*
 * A CPT is a NUMA node: the engine's distance table is node_distance()
 * between the possible nodes (at most LNE_MAX_CPTS of them).
 */
int lnetk_numa_default(struct lne_inst *inst)
{
	unsigned int n = min_t(unsigned int, nr_node_ids, LNE_MAX_CPTS), i, j;
	u32 *dist;
	int rc;

	dist = kcalloc(n * n, sizeof(*dist), GFP_KERNEL);
	if (!dist)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			dist[i * n + j] = node_distance(i, j);
	rc = lne_numa_set(inst, (u16)n, dist, NULL);
	kfree(dist);
	return rc;
}

struct lne_inst *lnetk_inst_new(void)
{
	struct lne_inst *inst = lne_inst_new();

	if (inst && lnetk_numa_default(inst)) {
		lne_inst_free(inst);
		inst = NULL;
	}
	return inst;
}

static int __net_init lnetk_net_init(struct net *net)
{
	struct lnetk_net *ln = lnetk_net(net);

	ln->inst = lnetk_inst_new();
	if (!ln->inst)
		return -ENOMEM;
	mutex_init(&ln->lock);
	init_rwsem(&ln->sel);
	ln->generation = 0;
	INIT_LIST_HEAD(&ln->tbf);
	ln->ntbf = 0;
	if (lnetk_dp_start(net, ln)) {
		lne_inst_free(ln->inst);
		ln->inst = NULL;
		return -ENOMEM;
	}
	atomic_inc(&lnetk_instances);
	return 0;
}

static void __net_exit lnetk_net_exit(struct net *net)
{
	struct lnetk_net *ln = lnetk_net(net);
	struct lnetk_tbf *t, *tmp;

	lnetk_dp_stop(ln); /* its sockets first: they live in this namespace */
	list_for_each_entry_safe(t, tmp, &ln->tbf, link)
		lnetk_tbf_free(t);
	ln->ntbf = 0;
	lne_inst_free(ln->inst);
	ln->inst = NULL;
	mutex_destroy(&ln->lock);
	atomic_dec(&lnetk_instances);
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

	ret = lnetk_netdev_init(); /* after the instances: its events go to them */
	if (ret < 0)
		goto err_netdev;

	ret = lnetk_genetlink_init();
	if (ret < 0)
		goto err_netlink;

	pr_info("version " LNETK_VERSION " loaded\n");
	return 0;

err_netlink:
	lnetk_netdev_uninit();
err_netdev:
	unregister_pernet_subsys(&lnetk_net_ops);
err_pernet:
	return ret;
}

static void __exit lnetk_mod_exit(void)
{
	lnetk_genetlink_uninit();
	lnetk_netdev_uninit();
	unregister_pernet_subsys(&lnetk_net_ops);
}

module_init(lnetk_mod_init);
module_exit(lnetk_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LNet runtime state (Multi-Rail, UDSP, NRS TBF) over generic netlink");
MODULE_VERSION(LNETK_VERSION);
MODULE_ALIAS_GENL_FAMILY(LNETK_GENL_NAME);
