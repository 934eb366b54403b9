// SPDX-License-Identifier: GPL-2.0
/*
 * nl-route.c - the genl commands of routes: ROUTE_ADD, ROUTE_DEL and the
 * dump of ROUTE_GET.
 */
#include <net/genetlink.h>
#include <net/netlink.h>

#include "engine/model.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/* The genl attribute of each route setting (engine/route-attrs.h). */
static const u16 route_genl[LNE_ROUTE_A__COUNT] = {LNE_ROUTE_ATTRS(LNE_ROUTE_GENL)};

int lnk_nl_route_add_nest(struct lne_inst *inst, const struct nlattr *nest, bool del,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_ROUTE_A_MAX + 1], *na, *ga;
	u32 v[LNE_ROUTE_A__COUNT];
	struct lne_err err;
	struct lne_nid gw;
	lne_net_t net;
	int rc;

	rc = lnk_nl_parse_nest(tb, LNETK_ROUTE_A_MAX, nest, lnk_nl_route_policy, extack);
	if (rc)
		return rc;
	na = lnk_nl_need(tb, LNETK_ROUTE_A_NET, "LNETK_ROUTE_A_NET", nest, extack);
	ga = na ? lnk_nl_need(tb, LNETK_ROUTE_A_GATEWAY, "LNETK_ROUTE_A_GATEWAY", nest, extack)
		: NULL;
	if (!ga)
		return -EINVAL;
	if (del) {
		rc = lnk_nl_only(tb, LNETK_ROUTE_A_MAX,
				 BIT(LNETK_ROUTE_A_NET) | BIT(LNETK_ROUTE_A_GATEWAY), extack);
		if (rc)
			return rc;
	}
	rc = lne_net_parse(nla_data(na), &net, &err);
	if (rc)
		return lnk_nl_engine_refusal(extack, na, rc, &err);
	rc = lnk_nl_get_nid(ga, &gw, extack);
	if (rc)
		return rc;
	if (del)
		rc = lne_route_del(inst, net, &gw, &err);
	else {
		lne_route_defaults(v);
		for (rc = 0; rc < LNE_ROUTE_A__COUNT; rc++)
			if (tb[route_genl[rc]])
				v[rc] = nla_get_u32(tb[route_genl[rc]]);
		rc = lne_route_add_v(inst, net, &gw, v, &err);
	}
	return rc ? lnk_nl_engine_refusal(extack, nest, rc, &err) : 0;
}

static int do_route_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return lnk_nl_route_add_nest(ln->inst, info->attrs[LNETK_A_ROUTE], false, info->extack);
}

static int do_route_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return lnk_nl_route_add_nest(ln->inst, info->attrs[LNETK_A_ROUTE], true, info->extack);
}

int lnk_nl_route_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_ROUTE) ? lnk_nl_change(info, do_route_add, 0) : -EINVAL;
}

int lnk_nl_route_del(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_ROUTE) ? lnk_nl_change(info, do_route_del, 0) : -EINVAL;
}

static int nl_put_route(struct sk_buff *skb, const struct lne_route *rt)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_ROUTE);
	char net[LNE_NET_STR_MAX];
	int k;

	if (!nest)
		return -EMSGSIZE;
	lne_net_format(rt->rnet->id, net, sizeof(net));
	if (nla_put_string(skb, LNETK_ROUTE_A_NET, net) ||
	    lnk_nl_put_nid(skb, LNETK_ROUTE_A_GATEWAY, &rt->gw->nid))
		goto full;
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		if (nla_put_u32(skb, route_genl[k], rt->v[k]))
			goto full;
	if (nla_put_u8(skb, LNETK_ROUTE_A_DOWN, rt->down))
		goto full;
	nla_nest_end(skb, nest);
	return 0;
full:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static void *route_next(const struct lne_inst *inst, struct lne_cursor *c)
{
	return lne_route_next(inst, c);
}

static int route_put(struct sk_buff *skb, const void *rt)
{
	return nl_put_route(skb, rt);
}

/* A dump of every route takes no attribute; one route per message. */
int lnk_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnk_nl_dump_only(cb, 0)
		       ?: lnk_nl_cursor_dump(skb, cb, LNETK_CMD_ROUTE_GET, route_next, route_put);
}
