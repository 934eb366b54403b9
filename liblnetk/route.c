// SPDX-License-Identifier: GPL-2.0
/*
 * route.c - routes: ROUTE_ADD, ROUTE_DEL, the ROUTE_GET dump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

/* The genl attribute of each setting (engine/route-attrs.h). */
static const uint16_t route_genl[LNE_ROUTE_A__COUNT] = {LNE_ROUTE_ATTRS(LNE_ROUTE_GENL)};

static int put_route_fields(struct nl_msg *msg, const struct lnetk_route *r, bool all)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_ROUTE);
	unsigned int has = all ? r->has : 0;
	int k;

	if (!nest || nla_put_string(msg, LNETK_ROUTE_A_NET, r->net) < 0 ||
	    nla_put_string(msg, LNETK_ROUTE_A_GATEWAY, r->gateway) < 0)
		return -NLE_NOMEM;
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		if ((has & (1u << k)) && nla_put_u32(msg, route_genl[k], r->v[k]) < 0)
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
	[LNETK_ROUTE_A_DOWN] = {.type = NLA_U8},
#define ROUTE_POLICY(id, name, yaml, opt, genl, ...) [genl] = {.type = NLA_U32},
	LNE_ROUTE_ATTRS(ROUTE_POLICY)
#undef ROUTE_POLICY
};

static int parse_route_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_ROUTE_A_MAX + 1];
	struct dump *d = rq->arg;
	struct lnetk_route r = {.has = 0};
	int rc, k;

	if (!tb[LNETK_A_ROUTE] ||
	    nla_parse_nested(rtb, LNETK_ROUTE_A_MAX, tb[LNETK_A_ROUTE], route_policy) < 0)
		return -EPROTO;
	rc = lk_get_str(r.net, sizeof(r.net), rtb[LNETK_ROUTE_A_NET]);
	if (!rc)
		rc = lk_get_str(r.gateway, sizeof(r.gateway), rtb[LNETK_ROUTE_A_GATEWAY]);
	if (rc)
		return rc;
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++) {
		r.has |= rtb[route_genl[k]] ? 1u << k : 0;
		r.v[k] = get_u32_or(rtb[route_genl[k]], 0);
	}
	r.down = rtb[LNETK_ROUTE_A_DOWN] && nla_get_u8(rtb[LNETK_ROUTE_A_DOWN]);
	return cb_rc(d->cb.route(&r, d->arg));
}

int lnetk_route_dump(struct lnetk *lk, lnetk_route_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.route = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_route_dump, .arg = &d};

	return lk_run(lk, LNETK_CMD_ROUTE_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}
