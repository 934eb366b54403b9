// SPDX-License-Identifier: GPL-2.0
/*
 * nl-batch.c - BATCH: many NIs, peers, routes, rules and globals in one
 * change, built on a copy of the instance (or an empty one) and swapped in
 * whole, or not at all.  Each item is what its own command would add
 * (nl-int.h, "the objects from attributes").
 */
#include <linux/rwsem.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "engine/model.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/* One batch item: what its *_ADD command (or GLOBAL_SET) would do. */
static int batch_item(struct lne_inst *next, const struct nlattr *attr,
		      struct netlink_ext_ack *extack)
{
	switch (nla_type(attr)) {
	case LNETK_A_NI:
		return lnk_nl_ni_add_nest(next, attr, extack);
	case LNETK_A_PEER:
		return lnk_nl_peer_add_nest(next, attr, extack);
	case LNETK_A_ROUTE:
		return lnk_nl_route_add_nest(next, attr, false, extack);
	case LNETK_A_RULE:
		return lnk_nl_rule_add_nest(next, attr, NULL, extack);
	case LNETK_A_GLOBAL:
		return lnk_nl_global_set_nest(next, attr, extack);
	default:
		return lnk_nl_refuse(extack, attr, -EINVAL,
				     "a batch holds NIs, peers, routes, rules and globals only");
	}
}

/*
 * The peer NIDs a batch brings, at most (a PEER_NI repeating its primary
 * counts too): the NID hash is sized for them once.  Only headers are read.
 */
static u32 batch_nids(const struct nlmsghdr *nlh)
{
	const struct nlattr *attr, *p;
	int rem, prem;
	u32 n = 0;

	nlmsg_for_each_attr(attr, nlh, GENL_HDRLEN, rem)
	{
		if (nla_type(attr) != LNETK_A_PEER)
			continue;
		n++;
		nla_for_each_nested(p, attr, prem)
			n += nla_type(p) == LNETK_PEER_A_PEER_NI;
	}
	return n;
}

/*
 * BATCH: build on a copy (or, with LNETK_F_REPLACE, on an empty instance)
 * and swap it in only when every item applied.  Rules go in after every
 * other item, in their own order: the result is the same (flattening does
 * not depend on the order rules and constructs arrive, see engine/udsp.h),
 * but each rule then visits the constructs of its nets once, instead of
 * each new peer scanning every rule.
 */
static int do_batch(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	char msg[LNE_ERR_MSG_MAX];
	const struct nlattr *attr;
	struct lne_inst *next;
	int rem, rc = 0, pass;
	u32 n = 0, item;

	next = lnk_nl_flags(info) & LNETK_F_REPLACE ? lnetk_inst_new() : lne_inst_copy(ln->inst);
	if (!next)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	lne_inst_reserve(next, batch_nids(info->nlhdr));
	for (pass = 0; pass < 2 && !rc; pass++) {
		item = 0;
		nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem)
		{
			if (nla_type(attr) == LNETK_A_FLAGS)
				continue;
			item++;
			if ((nla_type(attr) == LNETK_A_RULE) != (pass == 1))
				continue;
			rc = batch_item(next, attr, info->extack);
			if (rc)
				break;
			n++;
		}
	}
	if (rc) {
		/* Say which item (counting from 1, flags aside), keeping the sentence. */
		if (info->extack && info->extack->_msg) {
			snprintf(msg, sizeof(msg), "batch item %u: %s", item, info->extack->_msg);
			lnk_nl_refuse(info->extack, info->extack->bad_attr, rc, msg);
		}
		lne_inst_free(next);
		return rc;
	}
	/* Dumps keep pointers while the engine generation holds; the new
	 * instance must never show a generation the old one had. */
	next->gen += ln->inst->gen;
	/* Built aside, with selections going on: they wait for the swap only. */
#ifdef LNETK_DEBUG
	lnk_test_batch_hold();
#endif
	down_write(&ln->sel);
	swap(ln->inst, next);
	up_write(&ln->sel);
	lne_inst_free(next);
	return nla_put_u32(reply, LNETK_A_COUNT, n);
}

int lnk_nl_batch(struct sk_buff *skb, struct genl_info *info)
{
	int rc = lnk_nl_flags_only(info, LNETK_F_REPLACE);

	return rc ? rc : lnk_nl_run_change(info, do_batch, nla_total_size(sizeof(u32)), false);
}
