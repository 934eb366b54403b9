// SPDX-License-Identifier: GPL-2.0
/*
 * route.c - routes: ROUTE_ADD, ROUTE_DEL, the ROUTE_GET dump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

static int put_route_fields(struct nl_msg *msg, const struct lnetk_route *r, bool all)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_ROUTE);
	unsigned int has = all ? r->has : 0;

	if (!nest || nla_put_string(msg, LNETK_ROUTE_A_NET, r->net) < 0 ||
	    nla_put_string(msg, LNETK_ROUTE_A_GATEWAY, r->gateway) < 0 ||
	    ((has & LNETK_HAS_ROUTE_HOPS) && nla_put_u32(msg, LNETK_ROUTE_A_HOPS, r->hops) < 0) ||
	    ((has & LNETK_HAS_ROUTE_PRIORITY) &&
	     nla_put_u32(msg, LNETK_ROUTE_A_PRIORITY, r->priority) < 0) ||
	    ((has & LNETK_HAS_ROUTE_SENSITIVITY) &&
	     nla_put_u32(msg, LNETK_ROUTE_A_SENSITIVITY, r->sensitivity) < 0))
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lk_put_route(struct nl_msg *msg, const void *in)
{
	return put_route_fields(msg, in, true);
}

static int put_route_key(struct nl_msg *msg, const void *in)
{
	return put_route_fields(msg, in, false);
}

int lnetk_route_add(struct lnetk *lk, const struct lnetk_route *route, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_ROUTE_ADD, 0, 256, lk_put_route, route, &rq);
}

int lnetk_route_del(struct lnetk *lk, const char *net, const char *gateway, struct lnetk_err *err)
{
	struct lnetk_route r = {.has = 0};
	struct req rq = {.err = err};

	/* Too long to fit is too long for the kernel too: let it say so. */
	if (strlen(net) >= sizeof(r.net) || strlen(gateway) >= sizeof(r.gateway)) {
		lk_err_reset(err);
		if (err)
			snprintf(err->msg, sizeof(err->msg), "net or gateway name too long");
		return -EINVAL;
	}
	strcpy(r.net, net);
	strcpy(r.gateway, gateway);
	return lk_run(lk, LNETK_CMD_ROUTE_DEL, 0, 256, put_route_key, &r, &rq);
}

static const struct nla_policy route_policy[LNETK_ROUTE_A_MAX + 1] = {
	[LNETK_ROUTE_A_NET] = {.type = NLA_STRING},
	[LNETK_ROUTE_A_GATEWAY] = {.type = NLA_STRING},
	[LNETK_ROUTE_A_HOPS] = {.type = NLA_U32},
	[LNETK_ROUTE_A_PRIORITY] = {.type = NLA_U32},
	[LNETK_ROUTE_A_SENSITIVITY] = {.type = NLA_U32},
};

static int parse_route_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_ROUTE_A_MAX + 1];
	struct dump *d = rq->arg;
	struct lnetk_route r = {.has = 0};
	int rc;

	if (!tb[LNETK_A_ROUTE] ||
	    nla_parse_nested(rtb, LNETK_ROUTE_A_MAX, tb[LNETK_A_ROUTE], route_policy) < 0)
		return -EPROTO;
	rc = lk_get_str(r.net, sizeof(r.net), rtb[LNETK_ROUTE_A_NET]);
	if (!rc)
		rc = lk_get_str(r.gateway, sizeof(r.gateway), rtb[LNETK_ROUTE_A_GATEWAY]);
	if (rc)
		return rc;
	r.has = (rtb[LNETK_ROUTE_A_HOPS] ? LNETK_HAS_ROUTE_HOPS : 0) |
		(rtb[LNETK_ROUTE_A_PRIORITY] ? LNETK_HAS_ROUTE_PRIORITY : 0) |
		(rtb[LNETK_ROUTE_A_SENSITIVITY] ? LNETK_HAS_ROUTE_SENSITIVITY : 0);
	r.hops = get_u32_or(rtb[LNETK_ROUTE_A_HOPS], 0);
	r.priority = get_u32_or(rtb[LNETK_ROUTE_A_PRIORITY], 0);
	r.sensitivity = get_u32_or(rtb[LNETK_ROUTE_A_SENSITIVITY], 0);
	return cb_rc(d->cb.route(&r, d->arg));
}

int lnetk_route_dump(struct lnetk *lk, lnetk_route_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.route = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_route_dump, .arg = &d};

	return lk_run(lk, LNETK_CMD_ROUTE_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}
