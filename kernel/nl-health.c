// SPDX-License-Identifier: GPL-2.0
/*
 * nl-health.c - the data path's health from outside: fault injection
 * (FAULT, FAULT_GET), a NID's health counters (HEALTH_GET) and the
 * recovery queues (RECOVERY_GET).  uapi/lnetk.h says what each takes and
 * answers; the rules and counters are the engine's (engine/fault.h,
 * engine/node.h), the same the userspace engine keeps.
 */
#include <net/genetlink.h>

#include "dp.h"
#include "engine/fault.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/*
 * Room for LNE_FAULT_RULES_MAX rules with every option (about 53 KiB), or a
 * recovery queue of about a thousand NIs.  A list is one nest, whose length
 * is 16 bits: list_fits() refuses an entry past that, and the reply is
 * also kept to one 64 KiB allocation, as anyone may ask for it.
 */
#define LIST_REPLY (60 * 1024)
/* the larger of the list commands' nests */
#define LIST_ATTRS_MAX \
	(LNETK_FAULT_A_MAX > LNETK_HEALTH_A_MAX ? LNETK_FAULT_A_MAX : LNETK_HEALTH_A_MAX)

/* Whether @nest, open in @skb, still has a length a nest can say. */
static bool list_fits(const struct sk_buff *skb, const struct nlattr *nest)
{
	return skb_tail_pointer(skb) - (const unsigned char *)nest <= U16_MAX;
}

/* A list's reply and its nest, for the engine's walks. */
struct list_put {
	struct sk_buff *skb;
	const struct nlattr *list;
};

static int reply_new(struct genl_info *info, size_t size, struct sk_buff **reply, void **hdr)
{
	*reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd, size, hdr);
	return *reply ? 0 : lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
}

static int reply_send(struct genl_info *info, struct sk_buff *reply, void *hdr, int rc)
{
	if (rc) {
		nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, NULL, -EMSGSIZE, "the answer did not fit");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

/*
 * Enter the data path of @ln (lnetk_dp_enter()): the node, to leave with
 * lnetk_dp_leave(); or NULL once it is stopping, refused in @extack
 * (-ESHUTDOWN) with @reply, if any, freed.
 */
static struct lne_node *dp_enter_or_refuse(struct lnetk_net *ln, struct sk_buff *reply,
					   struct netlink_ext_ack *extack)
{
	struct lne_node *n = lnetk_dp_enter(ln);

	if (!n) {
		nlmsg_free(reply);
		lnk_nl_refuse(extack, NULL, -ESHUTDOWN, "the data path is stopping");
	}
	return n;
}

/* --- FAULT --------------------------------------------------------------------------- */

static int fault_opts(struct nlattr *nest, struct lne_fault_attr *a, struct genl_info *info)
{
	struct lne_err err = {.msg = ""};
	struct nlattr *o;
	int rem, n = 0, rc;

	nla_for_each_nested(o, nest, rem) {
		struct nlattr *tb[LNETK_FAULT_A_MAX + 1];

		if (nla_type(o) != LNETK_FAULT_A_OPT)
			continue;
		if (++n > LNETK_FAULT_OPTS_MAX)
			return lnk_nl_refuse(info->extack, o, -E2BIG, "too many options");
		rc = lnk_nl_parse_nest(tb, LNETK_FAULT_A_MAX, o, lnk_nl_fault_policy, info->extack);
		if (rc)
			return rc;
		if (!lnk_nl_need(tb, LNETK_FAULT_A_KEY, "LNETK_FAULT_A_KEY", o, info->extack) ||
		    !lnk_nl_need(tb, LNETK_FAULT_A_VALUE, "LNETK_FAULT_A_VALUE", o, info->extack))
			return -EINVAL;
		if (lne_fault_opt(a, nla_data(tb[LNETK_FAULT_A_KEY]),
				  nla_data(tb[LNETK_FAULT_A_VALUE]), &err))
			return lnk_nl_engine_refusal(info->extack, o, -EINVAL, &err);
	}
	return 0;
}

/* A NID of a DEL, if given. */
static int fault_nid(const struct nlattr *attr, struct lne_nid *nid, struct genl_info *info)
{
	return attr ? lnk_nl_get_nid(attr, nid, info->extack) : 0;
}

int lnk_nl_fault(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest = OBJECT(info, LNETK_A_FAULT), *tb[LNETK_FAULT_A_MAX + 1];
	struct lne_fault_attr a = {0};
	struct lne_err err = {.msg = ""};
	struct sk_buff *reply;
	struct lne_nid src, dst;
	struct lne_node *n;
	void *hdr;
	u8 op;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnk_nl_parse_nest(tb, LNETK_FAULT_A_MAX, nest, lnk_nl_fault_policy, info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_FAULT_A_OP, "LNETK_FAULT_A_OP", nest, info->extack))
		return -EINVAL;
	op = nla_get_u8(tb[LNETK_FAULT_A_OP]);
	rc = lnk_nl_only(tb, LNETK_FAULT_A_MAX,
			 BIT(LNETK_FAULT_A_OP) | BIT(LNETK_FAULT_A_DELAY) |
				 (op == LNETK_FAULT_ADD ? BIT(LNETK_FAULT_A_OPT) : 0) |
				 (op == LNETK_FAULT_DEL
					  ? BIT(LNETK_FAULT_A_SRC) | BIT(LNETK_FAULT_A_DST) |
						    BIT(LNETK_FAULT_A_ALL)
					  : 0),
			 info->extack);
	if (rc)
		return rc;
	a.delay = tb[LNETK_FAULT_A_DELAY] && nla_get_u8(tb[LNETK_FAULT_A_DELAY]);
	if (op == LNETK_FAULT_ADD)
		rc = fault_opts(nest, &a, info);
	if (!rc && op == LNETK_FAULT_DEL) {
		rc = fault_nid(tb[LNETK_FAULT_A_SRC], &src, info)
			     ?: fault_nid(tb[LNETK_FAULT_A_DST], &dst, info);
		if (!rc && !tb[LNETK_FAULT_A_SRC] && !tb[LNETK_FAULT_A_DST] &&
		    !tb[LNETK_FAULT_A_ALL])
			rc = lnk_nl_refuse(info->extack, nest, -EINVAL,
					   "say which rules: a source, a destination, or all");
	}
	if (rc)
		return rc;
	n = dp_enter_or_refuse(ln, NULL, info->extack);
	if (!n)
		return -ESHUTDOWN;
	switch (op) {
	case LNETK_FAULT_ADD:
		rc = lne_fault_add(n, &a, &err);
		break;
	case LNETK_FAULT_DEL:
		rc = lne_fault_del(n, a.delay, tb[LNETK_FAULT_A_SRC] ? &src : NULL,
				   tb[LNETK_FAULT_A_DST] ? &dst : NULL,
				   tb[LNETK_FAULT_A_ALL] != NULL);
		break;
	default:
		lne_fault_reset(n, a.delay);
		break;
	}
	lnetk_dp_leave(ln);
	if (rc < 0)
		return lnk_nl_engine_refusal(info->extack, nest, rc, &err);
	if (op == LNETK_FAULT_RESET)
		return 0;
	rc = reply_new(info, NLMSG_GOODSIZE, &reply, &hdr);
	if (rc)
		return rc;
	return reply_send(info, reply, hdr, nla_put_u32(reply, LNETK_A_COUNT, (u32)rc));
}

static int put_kv(struct sk_buff *skb, int nest, int key, const char *k, int vtype, const char *s,
		  u64 v)
{
	struct nlattr *o = nla_nest_start(skb, nest);

	if (!o || nla_put_string(skb, key, k))
		return -EMSGSIZE;
	if (s ? nla_put_string(skb, vtype, s) : nla_put_u64_64bit(skb, vtype, v, LNETK_FAULT_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, o);
	return 0;
}

static int put_opt(void *arg, const char *key, const char *value)
{
	return put_kv(arg, LNETK_FAULT_A_OPT, LNETK_FAULT_A_KEY, key, LNETK_FAULT_A_VALUE, value,
		      0);
}

static int put_fault_stat(struct sk_buff *skb, const char *key, u64 v)
{
	return put_kv(skb, LNETK_FAULT_A_STAT, LNETK_FAULT_A_KEY, key, LNETK_FAULT_A_COUNT, NULL,
		      v);
}

static int put_rule(void *arg, const struct lne_fault *f)
{
	static const char *const types[4] = {"ack", "put", "get", "reply"};
	const struct list_put *lp = arg;
	struct sk_buff *skb = lp->skb;
	struct nlattr *r = nla_nest_start(skb, LNETK_FAULT_A_RULE);
	int rc, t;

	if (!r || nla_put_u32(skb, LNETK_FAULT_A_ID, f->id))
		return -EMSGSIZE;
	rc = lne_fault_attr_each(&f->a, put_opt, skb);
	if (!rc)
		rc = put_fault_stat(skb, "count", f->st.count)
			     ?: put_fault_stat(skb, f->a.delay ? "delayed" : "dropped", f->st.hit);
	for (t = 0; !rc && t < 4; t++)
		rc = put_fault_stat(skb, types[t], f->st.type[t]);
	if (rc || !list_fits(skb, lp->list))
		return -EMSGSIZE;
	nla_nest_end(skb, r);
	return 0;
}

/*
 * A list command's work: its object nest (only @allowed in it), a reply,
 * and @walk putting the list into the reply's nest @top under the node's
 * locks.
 */
static int list_get(struct genl_info *info, int top, const char *name, int max,
		    const struct nla_policy *policy, u32 allowed,
		    int (*walk)(struct lne_node *n, struct nlattr **tb, struct list_put *lp))
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest = lnk_nl_object(info, top, name, 0), *out;
	struct nlattr *tb[LIST_ATTRS_MAX + 1];
	struct list_put lp;
	struct sk_buff *reply;
	struct lne_node *n;
	void *hdr;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnk_nl_parse_nest(tb, max, nest, policy, info->extack)
		     ?: lnk_nl_only(tb, max, allowed, info->extack);
	if (!rc)
		rc = reply_new(info, LIST_REPLY, &reply, &hdr);
	if (rc)
		return rc;
	n = dp_enter_or_refuse(ln, reply, info->extack);
	if (!n)
		return -ESHUTDOWN;
	out = nla_nest_start(reply, top);
	lp = (struct list_put){reply, out};
	rc = out ? walk(n, tb, &lp) : -EMSGSIZE;
	lnetk_dp_leave(ln);
	if (!rc)
		nla_nest_end(reply, out);
	return reply_send(info, reply, hdr, rc);
}

static int walk_faults(struct lne_node *n, struct nlattr **tb, struct list_put *lp)
{
	return lne_fault_each(n, tb[LNETK_FAULT_A_DELAY] && nla_get_u8(tb[LNETK_FAULT_A_DELAY]),
			      put_rule, lp);
}

int lnk_nl_fault_get(struct sk_buff *skb, struct genl_info *info)
{
	return list_get(info, LNETK_A_FAULT, "LNETK_A_FAULT", LNETK_FAULT_A_MAX,
			lnk_nl_fault_policy, BIT(LNETK_FAULT_A_DELAY), walk_faults);
}

/* --- HEALTH_GET, RECOVERY_GET ---------------------------------------------------------- */

static int put_health_stat(void *arg, const char *key, u64 v)
{
	return put_kv(arg, LNETK_HEALTH_A_STAT, LNETK_HEALTH_A_KEY, key, LNETK_HEALTH_A_COUNT, NULL,
		      v);
}

int lnk_nl_health_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest = OBJECT(info, LNETK_A_HEALTH), *tb[LNETK_HEALTH_A_MAX + 1], *out;
	const struct lne_peer_ni *pni = NULL;
	const struct lne_ni *ni;
	struct sk_buff *reply;
	struct lne_node *n;
	struct lne_nid nid;
	void *hdr;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnk_nl_parse_nest(tb, LNETK_HEALTH_A_MAX, nest, lnk_nl_health_policy, info->extack)
		     ?: lnk_nl_only(tb, LNETK_HEALTH_A_MAX, BIT(LNETK_HEALTH_A_NID), info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_HEALTH_A_NID, "LNETK_HEALTH_A_NID", nest, info->extack))
		return -EINVAL;
	rc = lnk_nl_get_nid(tb[LNETK_HEALTH_A_NID], &nid, info->extack);
	if (!rc)
		rc = reply_new(info, NLMSG_GOODSIZE, &reply, &hdr);
	if (rc)
		return rc;
	n = dp_enter_or_refuse(ln, reply, info->extack);
	if (!n)
		return -ESHUTDOWN;
	ni = lne_ni_find(n->ln, &nid);
	if (!ni)
		pni = lne_peer_ni_find(n->ln, &nid);
	if (!ni && !pni) {
		lnetk_dp_leave(ln);
		nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, tb[LNETK_HEALTH_A_NID], -ENOENT,
				     "no NI or peer NI has this NID");
	}
	out = nla_nest_start(reply, LNETK_A_HEALTH);
	rc = !out || nla_put_u8(reply, LNETK_HEALTH_A_LOCAL, ni != NULL) ||
	     nla_put_u32(reply, LNETK_HEALTH_A_VALUE, (u32)(ni ? ni->health : pni->health));
	if (!rc && !ni) {
		s32 avail, min;

		lne_node_rtr_credits(n, &nid, &avail, &min);
		rc = nla_put_s32(reply, LNETK_HEALTH_A_RTR_CREDITS, avail) ||
		     nla_put_s32(reply, LNETK_HEALTH_A_RTR_MIN, min);
	}
	if (!rc)
		rc = lne_node_health_each(n, &nid, ni != NULL, put_health_stat, reply);
	lnetk_dp_leave(ln);
	if (!rc)
		nla_nest_end(reply, out);
	return reply_send(info, reply, hdr, rc);
}

static int put_queued(void *arg, const struct lne_nid *nid, const struct lne_health *h)
{
	const struct list_put *lp = arg;
	struct sk_buff *skb = lp->skb;
	struct nlattr *e = nla_nest_start(skb, LNETK_HEALTH_A_ENTRY);

	if (!e || lnk_nl_put_nid(skb, LNETK_HEALTH_A_NID, nid) ||
	    nla_put_u32(skb, LNETK_HEALTH_A_PINGS, h->ping_count) ||
	    nla_put_u64_64bit(skb, LNETK_HEALTH_A_NEXT_MS, h->next_ping_ms, LNETK_HEALTH_A_PAD) ||
	    !list_fits(skb, lp->list))
		return -EMSGSIZE;
	nla_nest_end(skb, e);
	return 0;
}

static int walk_queue(struct lne_node *n, struct nlattr **tb, struct list_put *lp)
{
	return lne_node_recovery_each(
		n, !(tb[LNETK_HEALTH_A_PEER] && nla_get_u8(tb[LNETK_HEALTH_A_PEER])), put_queued,
		lp);
}

int lnk_nl_recovery_get(struct sk_buff *skb, struct genl_info *info)
{
	return list_get(info, LNETK_A_HEALTH, "LNETK_A_HEALTH", LNETK_HEALTH_A_MAX,
			lnk_nl_health_policy, BIT(LNETK_HEALTH_A_PEER), walk_queue);
}
