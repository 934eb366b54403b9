// SPDX-License-Identifier: GPL-2.0
/*
 * nl-ni.c - the genl commands of the local side: NIs (NI_ADD, NI_DEL,
 * NI_SET, NI_GET and its dump), the instance's global settings
 * (GLOBAL_SET, GLOBAL_GET) and its NUMA distances (NUMA_SET).
 */
#include <net/genetlink.h>
#include <net/netlink.h>

#include "engine/model.h"
#include "engine/udsp.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/* --- NIs ---------------------------------------------------------------------------- */

/* The genl attribute of each tunable (engine/tunables.h). */
static const u16 tun_genl[LNE_TUN__COUNT] = {LNE_TUNABLES(LNE_TUN_GENL)};

/* Whether @t is one of an NI's tunables. */
static bool is_tunable(int t)
{
	int k;

	for (k = 0; k < LNE_TUN__COUNT; k++)
		if (tun_genl[k] == t)
			return true;
	return false;
}

int lnk_nl_ni_add_nest(struct lne_inst *inst, const struct nlattr *nest,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_NI_A_MAX + 1], *a;
	struct lne_ni_conf c = {.dev_cpt = LNE_CPT_ANY};
	struct lne_tunables tun;
	struct lne_err err;
	int rc;

	rc = lnk_nl_parse_nest(tb, LNETK_NI_A_MAX, nest, lnk_nl_ni_policy, extack);
	if (rc)
		return rc;
	a = lnk_nl_need(tb, LNETK_NI_A_NID, "LNETK_NI_A_NID", nest, extack);
	if (!a)
		return -EINVAL;
	rc = lnk_nl_get_nid(a, &c.nid, extack);
	if (rc)
		return rc;
	lne_tunables_default(c.nid.lnd, &tun);
	for (rc = 0; rc < LNE_TUN__COUNT; rc++)
		if (tb[tun_genl[rc]])
			tun.v[rc] = nla_get_u32(tb[tun_genl[rc]]);
	c.tun = &tun;
	if (tb[LNETK_NI_A_IFNAME])
		c.ifname = nla_data(tb[LNETK_NI_A_IFNAME]);
	if (tb[LNETK_NI_A_CPTS])
		c.cpts = nla_get_u64(tb[LNETK_NI_A_CPTS]);
	if (tb[LNETK_NI_A_DEV_CPT])
		c.dev_cpt = (s16)nla_get_s32(tb[LNETK_NI_A_DEV_CPT]);
	if (tb[LNETK_NI_A_PLACE])
		c.order = nla_get_u64(tb[LNETK_NI_A_PLACE]);
	/* By name, not by range: an attribute appended later is refused until taken. */
	for (rc = 1; rc <= LNETK_NI_A_MAX; rc++)
		if (tb[rc] && rc != LNETK_NI_A_NID && rc != LNETK_NI_A_IFNAME &&
		    rc != LNETK_NI_A_CPTS && rc != LNETK_NI_A_DEV_CPT && rc != LNETK_NI_A_PLACE &&
		    !is_tunable(rc))
			return lnk_nl_refuse(extack, tb[rc], -EINVAL,
					     "state is set with LNETK_CMD_NI_SET, not when adding");
	rc = lne_ni_add(inst, &c, &err);
	return rc ? lnk_nl_engine_refusal(extack, a, rc, &err) : 0;
}

static int do_ni_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return lnk_nl_ni_add_nest(ln->inst, info->attrs[LNETK_A_NI], info->extack);
}

int lnk_nl_ni_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NI) ? lnk_nl_change(info, do_ni_add, 0) : -EINVAL;
}

/*
 * The NID of the NI named by a command's LNETK_A_NI nest, which may hold
 * only the attributes in @allowed besides it.
 */
static int ni_nid(struct genl_info *info, struct nlattr **tb, struct lne_nid *nid, u32 allowed)
{
	int rc = lnk_nl_parse_nest(tb, LNETK_NI_A_MAX, info->attrs[LNETK_A_NI], lnk_nl_ni_policy,
				   info->extack);

	if (!rc)
		rc = lnk_nl_only(tb, LNETK_NI_A_MAX, allowed | BIT(LNETK_NI_A_NID), info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_NI_A_NID, "LNETK_NI_A_NID", info->attrs[LNETK_A_NI],
			 info->extack))
		return -EINVAL;
	return lnk_nl_get_nid(tb[LNETK_NI_A_NID], nid, info->extack);
}

static int do_ni_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *tb[LNETK_NI_A_MAX + 1];
	struct lne_err err;
	struct lne_nid nid;
	int rc = ni_nid(info, tb, &nid, 0);

	if (rc)
		return rc;
	rc = lne_ni_del(ln->inst, &nid, &err);
	return rc ? lnk_nl_engine_refusal(info->extack, tb[LNETK_NI_A_NID], rc, &err) : 0;
}

int lnk_nl_ni_del(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NI) ? lnk_nl_change(info, do_ni_del, 0) : -EINVAL;
}

static int do_ni_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *tb[LNETK_NI_A_MAX + 1];
	struct lne_err err;
	struct lne_nid nid;
	struct lne_ni *ni;
	/* what it does not take is refused below, with a word on where it goes */
	int rc = ni_nid(info, tb, &nid, ~0u), t;

	if (rc)
		return rc;
	for (t = 1; t <= LNETK_NI_A_MAX; t++)
		if (tb[t] && t != LNETK_NI_A_NID && t != LNETK_NI_A_HEALTH && t != LNETK_NI_A_UP &&
		    t != LNETK_NI_A_TX_CREDITS)
			return lnk_nl_refuse(
				info->extack, tb[t], -EINVAL,
				"set only health, link state or tx credits; delete and add the NI to change the rest");
	if (!tb[LNETK_NI_A_HEALTH] && !tb[LNETK_NI_A_UP] && !tb[LNETK_NI_A_TX_CREDITS])
		return lnk_nl_refuse(
			info->extack, info->attrs[LNETK_A_NI], -EINVAL,
			"give LNETK_NI_A_HEALTH, LNETK_NI_A_UP or LNETK_NI_A_TX_CREDITS");
	ni = lne_ni_find(ln->inst, &nid);
	if (!ni) {
		lne_err_set(&err, -ENOENT, nla_data(tb[LNETK_NI_A_NID]), -1, "no such local NI");
		return lnk_nl_engine_refusal(info->extack, tb[LNETK_NI_A_NID], -ENOENT, &err);
	}
	/* Policies checked every value: none of these can fail now. */
	if (tb[LNETK_NI_A_HEALTH])
		lne_ni_set_health(ln->inst, &nid, nla_get_u32(tb[LNETK_NI_A_HEALTH]), NULL);
	if (tb[LNETK_NI_A_UP])
		lne_ni_set_up(ln->inst, &nid, nla_get_u8(tb[LNETK_NI_A_UP]), NULL);
	if (tb[LNETK_NI_A_TX_CREDITS])
		lne_ni_set_credits(ln->inst, &nid, nla_get_s32(tb[LNETK_NI_A_TX_CREDITS]), NULL);
	return 0;
}

int lnk_nl_ni_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NI) ? lnk_nl_change(info, do_ni_set, 0) : -EINVAL;
}

static int nl_put_tun(struct sk_buff *skb, const struct lne_tunables *tun)
{
	int k;

	for (k = 0; k < LNE_TUN__COUNT; k++)
		if (nla_put_u32(skb, tun_genl[k], tun->v[k]))
			return -EMSGSIZE;
	return 0;
}

static int nl_put_ni(struct sk_buff *skb, const struct lne_ni *ni)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_NI);

	if (!nest)
		return -EMSGSIZE;
	if (lnk_nl_put_nid(skb, LNETK_NI_A_NID, &ni->nid) ||
	    (ni->ifname[0] && nla_put_string(skb, LNETK_NI_A_IFNAME, ni->ifname)) ||
	    nla_put_u64_64bit(skb, LNETK_NI_A_CPTS, ni->cpts, LNETK_NI_A_PAD) ||
	    nla_put_u64_64bit(skb, LNETK_NI_A_PLACE, ni->id, LNETK_NI_A_PAD) ||
	    nla_put_s32(skb, LNETK_NI_A_DEV_CPT, ni->dev_cpt) || nl_put_tun(skb, &ni->tun) ||
	    nla_put_u8(skb, LNETK_NI_A_UP, ni->up) ||
	    nla_put_u8(skb, LNETK_NI_A_SET_DOWN, ni->set_down) ||
	    nla_put_u32(skb, LNETK_NI_A_HEALTH, ni->health) ||
	    nla_put_s32(skb, LNETK_NI_A_TX_CREDITS, ni->credits) ||
	    nla_put_u32(skb, LNETK_NI_A_PRIO, ni->prio.value) ||
	    nla_put_s32(skb, LNETK_NI_A_PRIO_RULE, lne_rule_idx(ni->prio.rule)) ||
	    nla_put_u32(skb, LNETK_NI_A_NET_PRIO, ni->net->prio.value) ||
	    nla_put_s32(skb, LNETK_NI_A_NET_PRIO_RULE, lne_rule_idx(ni->net->prio.rule))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int lnk_nl_ni_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *tb[LNETK_NI_A_MAX + 1];
	struct sk_buff *reply;
	struct lne_nid nid;
	struct lne_ni *ni;
	void *hdr;
	int rc;

	if (!OBJECT(info, LNETK_A_NI))
		return -EINVAL;
	rc = ni_nid(info, tb, &nid, 0);
	if (rc)
		return rc;
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_NI_GET, NLMSG_GOODSIZE,
			       &hdr);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	ni = lne_ni_find(ln->inst, &nid);
	rc = ni ? nl_put_ni(reply, ni) : -ENOENT;
	if (!rc)
		rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD);
	mutex_unlock(&ln->lock);
	if (rc) {
		nlmsg_free(reply);
		return rc == -ENOENT ? lnk_nl_refuse(info->extack, tb[LNETK_NI_A_NID], rc,
						     "no such local NI")
				     : rc;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

static void *ni_next(const struct lne_inst *inst, struct lne_cursor *c)
{
	return lne_ni_next(inst, c);
}

static int ni_put(struct sk_buff *skb, const void *ni)
{
	return nl_put_ni(skb, ni);
}

/* A dump of every NI takes no attribute; one NI per message. */
int lnk_nl_ni_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnk_nl_dump_only(cb, 0)
		       ?: lnk_nl_cursor_dump(skb, cb, LNETK_CMD_NI_GET, ni_next, ni_put);
}

/* --- globals and NUMA -------------------------------------------------------------- */

int lnk_nl_global_set_nest(struct lne_inst *inst, const struct nlattr *nest,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_GLOBAL_A_MAX + 1], *na, *va;
	struct lne_err err;
	int rc, g;

	rc = lnk_nl_parse_nest(tb, LNETK_GLOBAL_A_MAX, nest, lnk_nl_global_policy, extack);
	if (rc)
		return rc;
	na = lnk_nl_need(tb, LNETK_GLOBAL_A_NAME, "LNETK_GLOBAL_A_NAME", nest, extack);
	va = na ? lnk_nl_need(tb, LNETK_GLOBAL_A_VALUE, "LNETK_GLOBAL_A_VALUE", nest, extack)
		: NULL;
	if (!va)
		return -EINVAL;
	g = lne_global_lookup(nla_data(na));
	if (g < 0)
		return lnk_nl_refuse(extack, na, -ENOENT, "no global setting has this name");
	rc = lne_global_set(inst, g, nla_get_u32(va), &err);
	return rc ? lnk_nl_engine_refusal(extack, va, rc, &err) : 0;
}

static int do_global_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return lnk_nl_global_set_nest(ln->inst, info->attrs[LNETK_A_GLOBAL], info->extack);
}

int lnk_nl_global_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_GLOBAL) ? lnk_nl_change(info, do_global_set, 0) : -EINVAL;
}

int lnk_nl_global_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct sk_buff *reply;
	void *hdr;
	int rc = lnk_nl_info_only(info, 0), g;

	if (rc)
		return rc;
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_GLOBAL_GET,
			       NLMSG_GOODSIZE, &hdr);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD);
	for (g = 0; !rc && g < LNE_G__COUNT; g++) {
		struct nlattr *nest = nla_nest_start(reply, LNETK_A_GLOBAL);

		rc = !nest ||
		     nla_put_string(reply, LNETK_GLOBAL_A_NAME, lne_global_info(g)->name) ||
		     nla_put_u32(reply, LNETK_GLOBAL_A_VALUE, lne_global_get(ln->inst, g));
		if (!rc)
			nla_nest_end(reply, nest);
	}
	mutex_unlock(&ln->lock);
	if (rc) {
		nlmsg_free(reply);
		return -EMSGSIZE;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

static int do_numa_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_NUMA], *tb[LNETK_NUMA_A_MAX + 1];
	struct lne_err err;
	u32 ncpt;
	int rc;

	rc = lnk_nl_parse_nest(tb, LNETK_NUMA_A_MAX, nest, lnk_nl_numa_policy, info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_NUMA_A_NCPT, "LNETK_NUMA_A_NCPT", nest, info->extack))
		return -EINVAL;
	ncpt = nla_get_u32(tb[LNETK_NUMA_A_NCPT]);
	if (ncpt && (!tb[LNETK_NUMA_A_DIST] || nla_len(tb[LNETK_NUMA_A_DIST]) != ncpt * ncpt * 4))
		return lnk_nl_refuse(info->extack, tb[LNETK_NUMA_A_DIST] ?: nest, -EINVAL,
				     "LNETK_NUMA_A_DIST must hold NCPT * NCPT u32 distances");
	if (!ncpt)
		return lnetk_numa_default(ln->inst)
			       ? lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory")
			       : 0;
	rc = lne_numa_set(ln->inst, (u16)ncpt, nla_data(tb[LNETK_NUMA_A_DIST]), &err);
	return rc ? lnk_nl_engine_refusal(info->extack, nest, rc, &err) : 0;
}

int lnk_nl_numa_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NUMA) ? lnk_nl_change(info, do_numa_set, 0) : -EINVAL;
}
