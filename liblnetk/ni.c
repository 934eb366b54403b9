// SPDX-License-Identifier: GPL-2.0
/*
 * ni.c - local NIs: NI_ADD, NI_SET, NI_DEL, NI_GET and its dump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

#define NI_ADD_FIELDS \
	(LNETK_HAS_NI_IFNAME | LNETK_HAS_NI_CPTS | LNETK_HAS_NI_DEV_CPT | LNETK_HAS_NI_PLACE)

/* The genl attribute of each tunable (engine/tunables.h). */
static const uint16_t tun_genl[LNE_TUN__COUNT] = {LNE_TUNABLES(LNE_TUN_GENL)};
_Static_assert(LNE_TUN__COUNT <= 32, "tun_has has a bit per tunable");
#define NI_SET_FIELDS (LNETK_HAS_NI_UP | LNETK_HAS_NI_HEALTH | LNETK_HAS_NI_TX_CREDITS)

/* One LNETK_A_NI nest with the fields of @ni in @fields. */
static int put_ni(struct nl_msg *msg, const struct lnetk_ni *ni, unsigned int fields, bool tun)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_NI);
	unsigned int has = ni->has & fields;
	int k;

	if (!nest || nla_put_string(msg, LNETK_NI_A_NID, ni->nid) < 0)
		return -NLE_NOMEM;
	if (((has & LNETK_HAS_NI_IFNAME) && nla_put_string(msg, LNETK_NI_A_IFNAME, ni->ifname)) ||
	    ((has & LNETK_HAS_NI_CPTS) && nla_put_u64(msg, LNETK_NI_A_CPTS, ni->cpts)) ||
	    ((has & LNETK_HAS_NI_DEV_CPT) && nla_put_s32(msg, LNETK_NI_A_DEV_CPT, ni->dev_cpt)) ||
	    ((has & LNETK_HAS_NI_PLACE) && nla_put_u64(msg, LNETK_NI_A_PLACE, ni->place)) ||
	    ((has & LNETK_HAS_NI_UP) && nla_put_u8(msg, LNETK_NI_A_UP, ni->up)) ||
	    ((has & LNETK_HAS_NI_HEALTH) && nla_put_u32(msg, LNETK_NI_A_HEALTH, ni->health)) ||
	    ((has & LNETK_HAS_NI_TX_CREDITS) &&
	     nla_put_s32(msg, LNETK_NI_A_TX_CREDITS, ni->tx_credits)))
		return -NLE_NOMEM;
	for (k = 0; tun && k < LNE_TUN__COUNT; k++)
		if ((ni->tun_has & (1u << k)) && nla_put_u32(msg, tun_genl[k], ni->tun.v[k]) < 0)
			return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lk_put_ni_add(struct nl_msg *msg, const void *in)
{
	return put_ni(msg, in, NI_ADD_FIELDS, true);
}

static int put_ni_set(struct nl_msg *msg, const void *in)
{
	return put_ni(msg, in, NI_SET_FIELDS, false);
}

static int put_ni_nid(struct nl_msg *msg, const void *in)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_NI);

	if (!nest || nla_put_string(msg, LNETK_NI_A_NID, in) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static const struct nla_policy ni_policy[LNETK_NI_A_MAX + 1] = {
	[LNETK_NI_A_NID] = {.type = NLA_STRING},
	[LNETK_NI_A_IFNAME] = {.type = NLA_STRING},
	[LNETK_NI_A_CPTS] = {.type = NLA_U64},
	[LNETK_NI_A_DEV_CPT] = {.type = NLA_U32},
	[LNETK_NI_A_PLACE] = {.type = NLA_U64},
#define TUN_POLICY(id, name, opt, sec, genl, ...) [genl] = {.type = NLA_U32},
	LNE_TUNABLES(TUN_POLICY)
#undef TUN_POLICY
		[LNETK_NI_A_UP] = {.type = NLA_U8},
	[LNETK_NI_A_HEALTH] = {.type = NLA_U32},
	[LNETK_NI_A_SET_DOWN] = {.type = NLA_U8},
	[LNETK_NI_A_TX_CREDITS] = {.type = NLA_U32},
	[LNETK_NI_A_PRIO] = {.type = NLA_U32},
	[LNETK_NI_A_PRIO_RULE] = {.type = NLA_U32},
	[LNETK_NI_A_NET_PRIO] = {.type = NLA_U32},
	[LNETK_NI_A_NET_PRIO_RULE] = {.type = NLA_U32},
};

static int parse_ni(struct nlattr *nest, struct lnetk_ni *ni)
{
	struct nlattr *tb[LNETK_NI_A_MAX + 1];
	int rc, k;

	memset(ni, 0, sizeof(*ni));
	if (!nest)
		return -EPROTO;
	rc = nla_parse_nested(tb, LNETK_NI_A_MAX, nest, ni_policy);
	if (rc < 0 || !tb[LNETK_NI_A_NID])
		return -EPROTO;
	rc = lk_get_str(ni->nid, sizeof(ni->nid), tb[LNETK_NI_A_NID]);
	if (!rc && tb[LNETK_NI_A_IFNAME]) {
		ni->has |= LNETK_HAS_NI_IFNAME;
		rc = lk_get_str(ni->ifname, sizeof(ni->ifname), tb[LNETK_NI_A_IFNAME]);
	}
	if (rc)
		return rc;
	if (tb[LNETK_NI_A_CPTS]) {
		ni->has |= LNETK_HAS_NI_CPTS;
		ni->cpts = nla_get_u64(tb[LNETK_NI_A_CPTS]);
	}
	if (tb[LNETK_NI_A_PLACE]) {
		ni->has |= LNETK_HAS_NI_PLACE;
		ni->place = nla_get_u64(tb[LNETK_NI_A_PLACE]);
	}
	ni->dev_cpt = get_s32_or(tb[LNETK_NI_A_DEV_CPT], -1);
	ni->has |= tb[LNETK_NI_A_DEV_CPT] ? LNETK_HAS_NI_DEV_CPT : 0;
	for (k = 0; k < LNE_TUN__COUNT; k++) {
		ni->tun.v[k] = get_u32_or(tb[tun_genl[k]], 0);
		ni->tun_has |= tb[tun_genl[k]] ? 1u << k : 0;
	}
	ni->up = tb[LNETK_NI_A_UP] && nla_get_u8(tb[LNETK_NI_A_UP]);
	ni->has |= tb[LNETK_NI_A_UP] ? LNETK_HAS_NI_UP : 0;
	ni->set_down = tb[LNETK_NI_A_SET_DOWN] && nla_get_u8(tb[LNETK_NI_A_SET_DOWN]);
	ni->has |= tb[LNETK_NI_A_SET_DOWN] ? LNETK_HAS_NI_SET_DOWN : 0;
	ni->health = get_u32_or(tb[LNETK_NI_A_HEALTH], 0);
	ni->has |= tb[LNETK_NI_A_HEALTH] ? LNETK_HAS_NI_HEALTH : 0;
	ni->tx_credits = get_s32_or(tb[LNETK_NI_A_TX_CREDITS], 0);
	ni->has |= tb[LNETK_NI_A_TX_CREDITS] ? LNETK_HAS_NI_TX_CREDITS : 0;
	ni->prio = get_u32_or(tb[LNETK_NI_A_PRIO], LNETK_PRIO_NONE);
	ni->prio_rule = get_s32_or(tb[LNETK_NI_A_PRIO_RULE], -1);
	ni->net_prio = get_u32_or(tb[LNETK_NI_A_NET_PRIO], LNETK_PRIO_NONE);
	ni->net_prio_rule = get_s32_or(tb[LNETK_NI_A_NET_PRIO_RULE], -1);
	return 0;
}

int lnetk_ni_add(struct lnetk *lk, const struct lnetk_ni *ni, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_NI_ADD, 0, 256, lk_put_ni_add, ni, &rq);
}

int lnetk_ni_set(struct lnetk *lk, const struct lnetk_ni *ni, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_NI_SET, 0, 256, put_ni_set, ni, &rq);
}

int lnetk_ni_del(struct lnetk *lk, const char *nid, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_NI_DEL, 0, 128, put_ni_nid, nid, &rq);
}

static int parse_ni_one(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	return parse_ni(tb[LNETK_A_NI], rq->arg);
}

int lnetk_ni_get(struct lnetk *lk, const char *nid, struct lnetk_ni *ni, struct lnetk_err *err)
{
	struct req rq = {.err = err, .parse = parse_ni_one, .arg = ni};

	memset(ni, 0, sizeof(*ni));
	return lk_run(lk, LNETK_CMD_NI_GET, 0, 128, put_ni_nid, nid, &rq);
}

static int parse_ni_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct dump *d = rq->arg;
	struct lnetk_ni ni;
	int rc = parse_ni(tb[LNETK_A_NI], &ni);

	return rc ? rc : cb_rc(d->cb.ni(&ni, d->arg));
}

int lnetk_ni_dump(struct lnetk *lk, lnetk_ni_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.ni = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_ni_dump, .arg = &d};

	return lk_run(lk, LNETK_CMD_NI_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}
