// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "lnetk": policies, commands and
 * change notifications.  The contract is uapi/lnetk.h.
 *
 * Policies validate everything they can express, so a handler starts from
 * attributes that are right-sized and in range; what a policy cannot say
 * (that an attribute is required) the handler checks, and every refusal
 * tells the caller why through extack.
 *
 * A mutation prepares whatever can fail (the reply) before it changes the
 * instance, so a refused request leaves nothing behind.  Notifications are
 * sent under the instance lock: listeners see changes in generation order,
 * and one that misses a notification is told so with ENOBUFS.
 *
 * parallel_ops: each instance has its own mutex, so the genl core need not
 * serialise requests across namespaces for us.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "instance.h"
#include "netlink.h"
#include "uapi/lnetk.h"
#include "version.h"

/* Takes nothing: strict validation refuses every attribute (NLA_UNSPEC). */
static const struct nla_policy lnetk_get_info_policy[LNETK_A_MAX + 1] = {};

static const struct nla_policy lnetk_bump_policy[LNETK_A_MAX + 1] = {
	[LNETK_A_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, LNETK_BUMP_MAX),
};

enum lnetk_group {
	LNETK_GROUP_EVENTS,
};

static struct genl_family lnetk_genl_family;

/* A message that carries a generation: BUMP's reply and its notification. */
static struct sk_buff *lnetk_msg_generation(u32 portid, u32 seq, u8 cmd, u64 generation)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, portid, seq, &lnetk_genl_family, 0, cmd);
	if (!hdr || nla_put_u64_64bit(skb, LNETK_A_GENERATION, generation, LNETK_A_PAD)) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

/* Announce a change to the "events" group of @net.  Called under ln->lock. */
static void lnetk_notify(struct net *net, u8 cmd, u64 generation)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&lnetk_genl_family, net, LNETK_GROUP_EVENTS))
		return;
	skb = lnetk_msg_generation(0, 0, cmd, generation);
	if (!skb) {
		genl_set_err(&lnetk_genl_family, net, 0, LNETK_GROUP_EVENTS, -ENOBUFS);
		return;
	}
	genlmsg_multicast_netns(&lnetk_genl_family, net, skb, 0, LNETK_GROUP_EVENTS, GFP_KERNEL);
}

static size_t lnetk_info_size(void)
{
	return nla_total_size_64bit(sizeof(u64)) + nla_total_size(sizeof(LNETK_VERSION));
}

static int lnetk_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct sk_buff *reply;
	u64 generation;
	void *hdr;

	reply = genlmsg_new(lnetk_info_size(), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	hdr = genlmsg_put_reply(reply, info, &lnetk_genl_family, 0, LNETK_CMD_GET_INFO);
	if (!hdr)
		goto err_size;

	mutex_lock(&ln->lock);
	generation = ln->generation;
	mutex_unlock(&ln->lock);

	if (nla_put_u64_64bit(reply, LNETK_A_GENERATION, generation, LNETK_A_PAD) ||
	    nla_put_string(reply, LNETK_A_VERSION, LNETK_VERSION))
		goto err_size;
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);

err_size:
	nlmsg_free(reply);
	return -EMSGSIZE;
}

static int lnetk_bump(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct lnetk_net *ln = lnetk_net(net);
	struct sk_buff *reply;
	u64 generation;

	if (GENL_REQ_ATTR_CHECK(info, LNETK_A_COUNT)) {
		NL_SET_ERR_MSG_MOD(info->extack, "LNETK_A_COUNT is required");
		return -EINVAL;
	}

	mutex_lock(&ln->lock);
	generation = ln->generation + nla_get_u32(info->attrs[LNETK_A_COUNT]);
	reply = lnetk_msg_generation(info->snd_portid, info->snd_seq, LNETK_CMD_BUMP, generation);
	if (!reply) {
		mutex_unlock(&ln->lock);
		NL_SET_ERR_MSG_MOD(info->extack, "no memory for the reply");
		return -ENOMEM;
	}
	ln->generation = generation;
	lnetk_notify(net, LNETK_CMD_BUMP, generation);
	mutex_unlock(&ln->lock);

	return genlmsg_reply(reply, info);
}

static const struct genl_ops lnetk_genl_ops[] = {
	{
		.cmd = LNETK_CMD_GET_INFO,
		.doit = lnetk_get_info,
		.policy = lnetk_get_info_policy,
		.maxattr = LNETK_A_MAX,
	},
	{
		.cmd = LNETK_CMD_BUMP,
		.doit = lnetk_bump,
		.policy = lnetk_bump_policy,
		.maxattr = LNETK_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group lnetk_genl_mcgrps[] = {
	[LNETK_GROUP_EVENTS] = {.name = LNETK_MCGRP_EVENTS},
};

/*
 * resv_start_op stays 0: every command, present and future, gets the strict
 * treatment (reserved header bytes must be zero, attributes need a policy).
 */
static struct genl_family lnetk_genl_family __ro_after_init = {
	.name = LNETK_GENL_NAME,
	.version = LNETK_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = lnetk_genl_ops,
	.n_ops = ARRAY_SIZE(lnetk_genl_ops),
	.mcgrps = lnetk_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(lnetk_genl_mcgrps),
};

int __init lnetk_genetlink_init(void)
{
	return genl_register_family(&lnetk_genl_family);
}

void lnetk_genetlink_uninit(void)
{
	genl_unregister_family(&lnetk_genl_family);
}
