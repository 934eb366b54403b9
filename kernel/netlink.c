// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "lnetk": its policies, its ops
 * table, the helpers its commands share (refusals, the change path, dumps
 * of engine objects) and GET_INFO.  The contract is uapi/lnetk.h; the
 * commands are served by nl-*.c, by kind of object (nl-int.h).
 *
 * Policies validate everything they can express, so a handler starts from
 * attributes that are right-sized and in range; what a policy cannot say
 * (that an attribute is required, the NID grammar, the object model's
 * rules) the handler and the engine check, and every refusal tells the
 * caller why through extack.
 *
 * A mutation prepares its reply before it changes anything, so a refusal or
 * a lack of memory leaves the instance as it was.  Changes are announced
 * under the instance lock, so listeners see generations in order.
 *
 * Extack messages: the engine's refusals are sentences built at run time
 * ("10.0.0.5@tcp: already a NID of peer 10.0.0.1@tcp").  Kernels from 6.2
 * carry such text in the extack itself (NL_SET_ERR_MSG_FMT); 6.1, Debian
 * 12's kernel, only points at a string that must outlive the handler, so
 * there the text goes into a small ring of buffers that lives as long as
 * the module: the ack that reads it is built right after the handler
 * returns, long before the ring comes round.
 *
 * parallel_ops: each instance has its own mutex, so the genl core need not
 * serialise requests across namespaces for us.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "dp.h"
#include "engine/model.h"
#include "instance.h"
#include "netlink.h"
#include "nl-int.h"
#include "uapi/lnetk.h"
#include "version.h"

/* --- policies ------------------------------------------------------------ */

/* Each nest's policy is the family's (nl-int.h): its handler names it when it parses. */

static struct netlink_range_validation prio_range = {.max = LNE_PRIO_MAX};
static struct netlink_range_validation tbf_depth_range = {.min = 1, .max = LNETK_TBF_DEPTH_MAX};
static struct netlink_range_validation ping_timeout_range = {.min = 1,
							     .max = LNETK_PING_TIMEOUT_MAX};
static struct netlink_range_validation test_size_range = {.max = LNW_MTU};
/* NLA_POLICY_RANGE's bounds are s16: 60000 needs a full range */
static struct netlink_range_validation test_interval_range = {.min = LNETK_TEST_INTERVAL_MIN,
							      .max = LNETK_TEST_INTERVAL_MAX};
static struct netlink_range_validation test_count_range = {.min = 1, .max = LNE_TEST_COUNT_MAX};
static struct netlink_range_validation test_conc_range = {.min = 1,
							  .max = LNE_TEST_CONCURRENCY_MAX};
static struct netlink_range_validation test_timeout_range = {.min = 1,
							     .max = LNE_TEST_TIMEOUT_MAX_MS};

#define STR(n)                                       \
	{                                            \
		.type = NLA_NUL_STRING, .len = (n)-1 \
	}

/* Each NI tunable's range (engine/tunables.h), checked before a handler runs. */
/* Not const: the policy points at it, and 6.1 declares that pointer plain. */
static struct netlink_range_validation tun_range[LNE_TUN__COUNT] = {
/* (-1, LNE_TUN_OFF, passes here; the engine's check refuses what lies between.) */
#define TUN_RANGE(id, name, opt, sec, genl, lo, hi, ds, d2, fl, ...) \
	[LNE_TUN_##id] = {.min = lo, .max = ((fl)&LNE_TUN_F_OFF) ? U32_MAX : (hi)},
	LNE_TUNABLES(TUN_RANGE)
#undef TUN_RANGE
};

/* An NI's place: lnetd's are below 2^63; the module gives those above to NIs added without. */
static struct netlink_range_validation place_range = {.min = 1, .max = S64_MAX};

const struct nla_policy lnk_nl_ni_policy[LNETK_NI_A_MAX + 1] = {
	[LNETK_NI_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_NI_A_IFNAME] = STR(LNETK_IFNAME_MAX),
	[LNETK_NI_A_CPTS] = {.type = NLA_U64},
	[LNETK_NI_A_DEV_CPT] = NLA_POLICY_RANGE(NLA_S32, -1, LNETK_MAX_CPTS - 1),
#define TUN_POLICY(id, name, opt, sec, genl, ...) \
	[genl] = NLA_POLICY_FULL_RANGE(NLA_U32, &tun_range[LNE_TUN_##id]),
	LNE_TUNABLES(TUN_POLICY)
#undef TUN_POLICY
		[LNETK_NI_A_UP] = NLA_POLICY_MAX(NLA_U8, 1),
	[LNETK_NI_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, LNE_HEALTH_MAX),
	[LNETK_NI_A_TX_CREDITS] = {.type = NLA_S32},
	[LNETK_NI_A_PLACE] = NLA_POLICY_FULL_RANGE(NLA_U64, &place_range),
};

const struct nla_policy lnk_nl_pni_policy[LNETK_PNI_A_MAX + 1] = {
	[LNETK_PNI_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_PNI_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, LNE_HEALTH_MAX),
	[LNETK_PNI_A_CREDITS] = {.type = NLA_S32},
};

const struct nla_policy lnk_nl_peer_policy[LNETK_PEER_A_MAX + 1] = {
	[LNETK_PEER_A_PRIMARY] = STR(LNETK_NID_MAX),
	[LNETK_PEER_A_MR] = NLA_POLICY_MAX(NLA_U8, 1),
	[LNETK_PEER_A_PEER_NI] = NLA_POLICY_NESTED(lnk_nl_pni_policy),
};

/* Each route setting's range (engine/route-attrs.h). */
static struct netlink_range_validation route_range[LNE_ROUTE_A__COUNT] = {
#define ROUTE_RANGE(id, name, yaml, opt, genl, lo, hi, ...) \
	[LNE_ROUTE_A_##id] = {.min = lo, .max = hi},
	LNE_ROUTE_ATTRS(ROUTE_RANGE)
#undef ROUTE_RANGE
};

const struct nla_policy lnk_nl_route_policy[LNETK_ROUTE_A_MAX + 1] = {
	[LNETK_ROUTE_A_NET] = STR(LNETK_NET_MAX),
	[LNETK_ROUTE_A_GATEWAY] = STR(LNETK_NID_MAX),
#define ROUTE_POLICY(id, name, yaml, opt, genl, ...) \
	[genl] = NLA_POLICY_FULL_RANGE(NLA_U32, &route_range[LNE_ROUTE_A_##id]),
	LNE_ROUTE_ATTRS(ROUTE_POLICY)
#undef ROUTE_POLICY
};

const struct nla_policy lnk_nl_rule_policy[LNETK_RULE_A_MAX + 1] = {
	[LNETK_RULE_A_SRC] = STR(LNETK_EXPR_MAX),
	[LNETK_RULE_A_DST] = STR(LNETK_EXPR_MAX),
	[LNETK_RULE_A_RTE] = STR(LNETK_EXPR_MAX),
	[LNETK_RULE_A_PRIORITY] = NLA_POLICY_FULL_RANGE(NLA_U32, &prio_range),
	[LNETK_RULE_A_IDX] = {.type = NLA_U32},
};

const struct nla_policy lnk_nl_global_policy[LNETK_GLOBAL_A_MAX + 1] = {
	[LNETK_GLOBAL_A_NAME] = STR(LNETK_NAME_MAX),
	[LNETK_GLOBAL_A_VALUE] = {.type = NLA_U32},
};

const struct nla_policy lnk_nl_numa_policy[LNETK_NUMA_A_MAX + 1] = {
	[LNETK_NUMA_A_NCPT] = NLA_POLICY_MAX(NLA_U32, LNETK_MAX_CPTS),
	[LNETK_NUMA_A_DIST] = {.type = NLA_BINARY, .len = LNETK_MAX_CPTS * LNETK_MAX_CPTS * 4},
};

const struct nla_policy lnk_nl_sel_policy[LNETK_SEL_A_MAX + 1] = {
	[LNETK_SEL_A_DST] = STR(LNETK_NID_MAX),
	[LNETK_SEL_A_SRC] = STR(LNETK_NID_MAX),
	[LNETK_SEL_A_KIND] = NLA_POLICY_MAX(NLA_U8, LNETK_MSG_REPLY),
	[LNETK_SEL_A_MD_CPT] = NLA_POLICY_RANGE(NLA_S32, -1, LNETK_MAX_CPTS - 1),
};

const struct nla_policy lnk_nl_tbfl_policy[LNETK_TBFL_A_MAX + 1] = {
	[LNETK_TBFL_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_TBFL_A_QUEUE] = NLA_POLICY_MAX(NLA_U8, LNETK_TBF_HP),
};

const struct nla_policy lnk_nl_ping_policy[LNETK_PING_A_MAX + 1] = {
	[LNETK_PING_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_PING_A_SRC] = STR(LNETK_NID_MAX),
	[LNETK_PING_A_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &ping_timeout_range),
	[LNETK_PING_A_DISCOVER] = NLA_POLICY_MAX(NLA_U8, 2),
};

const struct nla_policy lnk_nl_test_policy[LNETK_TEST_A_MAX + 1] = {
	[LNETK_TEST_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_TEST_A_MODE] = NLA_POLICY_MAX(NLA_U8, LNETK_TEST_PING),
	[LNETK_TEST_A_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &test_size_range),
	[LNETK_TEST_A_COUNT] = NLA_POLICY_FULL_RANGE(NLA_U32, &test_count_range),
	[LNETK_TEST_A_CONCURRENCY] = NLA_POLICY_FULL_RANGE(NLA_U32, &test_conc_range),
	[LNETK_TEST_A_NO_ACK] = {.type = NLA_FLAG},
	[LNETK_TEST_A_INTERVAL_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &test_interval_range),
	[LNETK_TEST_A_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &test_timeout_range),
};

const struct nla_policy lnk_nl_tbf_policy[LNETK_TBF_A_MAX + 1] = {
	[LNETK_TBF_A_SERVICE] = STR(LNETK_TBF_SERVICE_MAX),
	[LNETK_TBF_A_QUEUE] = NLA_POLICY_MAX(NLA_U8, LNETK_TBF_HP),
	[LNETK_TBF_A_TYPE] = STR(LNETK_TBF_TYPE_MAX),
	[LNETK_TBF_A_DEPTH] = NLA_POLICY_FULL_RANGE(NLA_U32, &tbf_depth_range),
	[LNETK_TBF_A_CMD] = STR(LNETK_TBF_CMD_MAX),
	[LNETK_TBF_A_LOAD_MS] =
		NLA_POLICY_RANGE(NLA_U32, LNETK_TBF_LOAD_MS_MIN, LNETK_TBF_LOAD_MS_MAX),
	[LNETK_TBF_A_LOAD_CLASS] = NLA_POLICY_NESTED(lnk_nl_tbfl_policy),
};

static const struct nla_policy lnk_nl_fault_opt_policy[LNETK_FAULT_A_MAX + 1] = {
	[LNETK_FAULT_A_KEY] = STR(LNETK_FAULT_KEY_MAX),
	[LNETK_FAULT_A_VALUE] = STR(LNETK_FAULT_VALUE_MAX),
};

const struct nla_policy lnk_nl_fault_policy[LNETK_FAULT_A_MAX + 1] = {
	[LNETK_FAULT_A_OP] = NLA_POLICY_RANGE(NLA_U8, LNETK_FAULT_ADD, LNETK_FAULT_RESET),
	[LNETK_FAULT_A_DELAY] = NLA_POLICY_MAX(NLA_U8, 1),
	[LNETK_FAULT_A_OPT] = NLA_POLICY_NESTED(lnk_nl_fault_opt_policy),
	[LNETK_FAULT_A_SRC] = STR(LNETK_NID_MAX),
	[LNETK_FAULT_A_DST] = STR(LNETK_NID_MAX),
	[LNETK_FAULT_A_ALL] = {.type = NLA_FLAG},
};

const struct nla_policy lnk_nl_health_policy[LNETK_HEALTH_A_MAX + 1] = {
	[LNETK_HEALTH_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_HEALTH_A_PEER] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* One policy for every command; each handler refuses what it does not take. */
static const struct nla_policy lnk_nl_policy[LNETK_A_MAX + 1] = {
	[LNETK_A_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, LNETK_BUMP_MAX),
	[LNETK_A_FLAGS] = {.type = NLA_U32}, /* bits checked per command: -EOPNOTSUPP */
	[LNETK_A_NI] = NLA_POLICY_NESTED(lnk_nl_ni_policy),
	[LNETK_A_PEER] = NLA_POLICY_NESTED(lnk_nl_peer_policy),
	[LNETK_A_PEER_NI] = NLA_POLICY_NESTED(lnk_nl_pni_policy),
	[LNETK_A_ROUTE] = NLA_POLICY_NESTED(lnk_nl_route_policy),
	[LNETK_A_RULE] = NLA_POLICY_NESTED(lnk_nl_rule_policy),
	[LNETK_A_GLOBAL] = NLA_POLICY_NESTED(lnk_nl_global_policy),
	[LNETK_A_NUMA] = NLA_POLICY_NESTED(lnk_nl_numa_policy),
	[LNETK_A_SELECT] = NLA_POLICY_NESTED(lnk_nl_sel_policy),
	[LNETK_A_TBF] = NLA_POLICY_NESTED(lnk_nl_tbf_policy),
	[LNETK_A_PING] = NLA_POLICY_NESTED(lnk_nl_ping_policy),
	[LNETK_A_TEST] = NLA_POLICY_NESTED(lnk_nl_test_policy),
	[LNETK_A_ON] = NLA_POLICY_MAX(NLA_U8, 1),
	[LNETK_A_FAULT] = NLA_POLICY_NESTED(lnk_nl_fault_policy),
	[LNETK_A_HEALTH] = NLA_POLICY_NESTED(lnk_nl_health_policy),
};

enum lnetk_group {
	LNETK_GROUP_EVENTS,
	LNETK_GROUP_DP,
};

/* --- refusals ---------------------------------------------------------------- */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define LNETK_MSG_RING 64
static char lnetk_msg_ring[LNETK_MSG_RING][LNE_ERR_MSG_MAX];
static atomic_t lnetk_msg_next = ATOMIC_INIT(0);
#endif

/* Refuse with @rc, saying @msg and pointing at @attr (may be NULL). */
int lnk_nl_refuse(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
		  const char *msg)
{
	if (!extack)
		return rc;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
	{
		char *slot = lnetk_msg_ring[(unsigned int)atomic_inc_return(&lnetk_msg_next) %
					    LNETK_MSG_RING];

		strscpy(slot, msg, LNE_ERR_MSG_MAX);
		extack->_msg = slot;
	}
#else
	NL_SET_ERR_MSG_FMT(extack, "%s", msg);
#endif
	if (attr)
		NL_SET_BAD_ATTR(extack, attr);
	return rc;
}

/* An engine refusal: its sentence, or a fallback for one without. */
int lnk_nl_engine_refusal(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
			  const struct lne_err *err)
{
	if (rc == -ENOMEM)
		return lnk_nl_refuse(extack, NULL, rc, "out of memory");
	return lnk_nl_refuse(extack, attr, rc, err->msg[0] ? err->msg : "refused by the engine");
}

/* Required attribute @type of nest @tb, or a refusal naming it. */
struct nlattr *lnk_nl_need(struct nlattr **tb, int type, const char *name,
			   const struct nlattr *nest, struct netlink_ext_ack *extack)
{
	char msg[96];

	if (tb[type])
		return tb[type];
	snprintf(msg, sizeof(msg), "%s is required", name);
	lnk_nl_refuse(extack, nest, -EINVAL, msg);
	return NULL;
}

/* Only the attributes in @allowed (bits by attribute type) of @tb, parsed up to @max. */
int lnk_nl_only(struct nlattr **tb, int max, u32 allowed, struct netlink_ext_ack *extack)
{
	int type;

	for (type = 1; type <= max; type++)
		if (tb[type] && !(allowed & BIT(type)))
			return lnk_nl_refuse(extack, tb[type], -EINVAL,
					     "this command does not take this attribute");
	return 0;
}

/* Only the top-level attributes in @allowed (bits by attribute type). */
int lnk_nl_info_only(struct genl_info *info, u32 allowed)
{
	return lnk_nl_only(info->attrs, LNETK_A_MAX, allowed, info->extack);
}

/*
 * A dump's step: only the top-level attributes in @allowed.  Checked in
 * each step, not in a start callback: the first step's refusal carries
 * extack (cb->extack), a start callback's does not on every kernel.
 */
int lnk_nl_dump_only(struct netlink_callback *cb, u32 allowed)
{
	return lnk_nl_only(genl_dumpit_info(cb)->attrs, LNETK_A_MAX, allowed, cb->extack);
}

u32 lnk_nl_flags(struct genl_info *info)
{
	return info->attrs[LNETK_A_FLAGS] ? nla_get_u32(info->attrs[LNETK_A_FLAGS]) : 0;
}

/* Flag bits the command does not know are refused, as unsupported. */
int lnk_nl_flags_only(struct genl_info *info, u32 allowed)
{
	if (lnk_nl_flags(info) & ~allowed)
		return lnk_nl_refuse(info->extack, info->attrs[LNETK_A_FLAGS], -EOPNOTSUPP,
				     "this command does not support these LNETK_A_FLAGS bits");
	return 0;
}

/*
 * The family policy has already validated every nest, recursively and
 * strictly, before the handler ran: parsing need not validate again (a
 * batch of 100k NIDs would pay for it twice).  @policy documents the nest.
 */
int lnk_nl_parse_nest(struct nlattr **tb, int max, const struct nlattr *nest,
		      const struct nla_policy *policy, struct netlink_ext_ack *extack)
{
	(void)policy;
	return nla_parse_nested(tb, max, nest, NULL, extack);
}

int lnk_nl_get_nid(const struct nlattr *attr, struct lne_nid *nid, struct netlink_ext_ack *extack)
{
	struct lne_err err;
	int rc = lne_nid_parse(nla_data(attr), nid, &err);

	return rc ? lnk_nl_engine_refusal(extack, attr, rc, &err) : 0;
}

/* --- the change path ------------------------------------------------------------- */

/* A message that carries a generation: replies and notifications. */
struct sk_buff *lnk_nl_msg_new(u32 portid, u32 seq, u8 cmd, size_t extra, void **hdr)
{
	struct sk_buff *skb = genlmsg_new(nla_total_size_64bit(sizeof(u64)) + extra, GFP_KERNEL);

	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, portid, seq, &lnk_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* Announce a change to the "events" group of @net.  Called under ln->lock. */
static void notify(struct net *net, u8 cmd, u64 generation)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&lnk_nl_family, net, LNETK_GROUP_EVENTS))
		return;
	skb = lnk_nl_msg_new(0, 0, cmd, 0, &hdr);
	if (!skb || nla_put_u64_64bit(skb, LNETK_A_GENERATION, generation, LNETK_A_PAD)) {
		nlmsg_free(skb);
		genl_set_err(&lnk_nl_family, net, 0, LNETK_GROUP_EVENTS, -ENOBUFS);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&lnk_nl_family, net, skb, 0, LNETK_GROUP_EVENTS, GFP_KERNEL);
}

/*
 * Run one change: reply prepared first, the change under the lock, the
 * generation bumped and announced only when it succeeded.  @in_place: @fn
 * changes the instance where selections read it, so they wait (ln->sel
 * held for writing) while it runs; otherwise @fn takes ln->sel itself for
 * the moment it swaps the instance.
 */
int lnk_nl_run_change(struct genl_info *info, lnk_nl_change_fn fn, size_t reply_extra,
		      bool in_place)
{
	struct net *net = genl_info_net(info);
	struct lnetk_net *ln = lnetk_net(net);
	struct sk_buff *reply;
	void *hdr;
	int rc;

	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd, reply_extra,
			       &hdr);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	if (in_place)
		down_write(&ln->sel);
	rc = fn(ln, info, reply);
	if (in_place)
		up_write(&ln->sel);
	if (!rc) {
		ln->generation++;
		rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD);
		notify(net, info->genlhdr->cmd, ln->generation);
	}
	mutex_unlock(&ln->lock);
	if (!rc)
		lnetk_dp_changed(ln); /* listen where the NIs are now */
	if (rc) {
		nlmsg_free(reply);
		return rc;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

int lnk_nl_change(struct genl_info *info, lnk_nl_change_fn fn, size_t reply_extra)
{
	return lnk_nl_run_change(info, fn, reply_extra, true);
}

/* The object nest a command needs, after refusing everything else. */
struct nlattr *lnk_nl_object(struct genl_info *info, int type, const char *name, u32 also)
{
	char msg[64];

	if (lnk_nl_info_only(info, BIT(type) | also))
		return NULL;
	if (info->attrs[type])
		return info->attrs[type];
	snprintf(msg, sizeof(msg), "%s is required", name);
	lnk_nl_refuse(info->extack, NULL, -EINVAL, msg);
	return NULL;
}

/* --- reads -------------------------------------------------------------------- */

static int lnk_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct sk_buff *reply;
	void *hdr;
	int rc = lnk_nl_info_only(info, 0);

	if (rc)
		return rc;
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_GET_INFO,
			       nla_total_size(sizeof(LNETK_VERSION)) + nla_total_size(sizeof(u32)),
			       &hdr);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD) ||
	     nla_put_string(reply, LNETK_A_VERSION, LNETK_VERSION) ||
	     nla_put_u32(reply, LNETK_A_COUNT,
			 ln->inst->nni + ln->inst->npni + ln->inst->nroute + ln->inst->udsp.nrules);
	mutex_unlock(&ln->lock);
	if (rc) {
		nlmsg_free(reply);
		return -EMSGSIZE;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

int lnk_nl_put_nid(struct sk_buff *skb, int type, const struct lne_nid *nid)
{
	char buf[LNE_NID_STR_MAX];

	lne_nid_format(nid, buf, sizeof(buf));
	return nla_put_string(skb, type, buf);
}

/* --- dumps of engine objects ------------------------------------------------------ */

struct lnk_nl_dump_ctx *lnk_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct lnk_nl_dump_ctx) > sizeof(cb->ctx));
	return (struct lnk_nl_dump_ctx *)cb->ctx;
}

/*
 * Common start of a dump step: take the lock, and when the instance
 * changed since the last step, forget every pointer kept (the cursor then
 * resumes by key, and the messages are flagged as interrupted).
 */
struct lnetk_net *lnk_nl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = lnetk_net(sock_net(skb->sk));
	struct lnk_nl_dump_ctx *ctx = lnk_nl_dump_ctx(cb);

	mutex_lock(&ln->lock);
	/* Never 0: genl_dump_check_consistent() takes 0 for "not begun". */
	cb->seq = (unsigned int)(ln->generation % 0xffffffffULL) + 1;
	if (ctx->c.gen != ln->inst->gen) {
		ctx->c.gen = ~0ULL; /* never a real generation: forces resume by key */
		ctx->cur = NULL;
	}
	return ln;
}

int lnk_nl_dump_end(struct lnetk_net *ln, struct sk_buff *skb, int rc)
{
	mutex_unlock(&ln->lock);
	/* A full skb ends this step; more follows in the next. */
	return rc == -EMSGSIZE ? (int)skb->len : rc;
}

/* NI, route and rule dumps: one object per message, from a cursor. */
int lnk_nl_cursor_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		       void *(*next)(const struct lne_inst *inst, struct lne_cursor *c),
		       int (*put)(struct sk_buff *skb, const void *obj))
{
	struct lnetk_net *ln = lnk_nl_dump_begin(skb, cb);
	struct lnk_nl_dump_ctx *ctx = lnk_nl_dump_ctx(cb);
	struct lne_cursor save;
	void *obj, *hdr;
	int rc = 0;

	for (;;) {
		save = ctx->c;
		obj = next(ln->inst, &ctx->c);
		if (!obj)
			break;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &lnk_nl_family, NLM_F_MULTI, cmd);
		rc = hdr ? 0 : -EMSGSIZE;
		if (hdr) {
			genl_dump_check_consistent(cb, hdr);
			rc = nla_put_u64_64bit(skb, LNETK_A_GENERATION, ln->generation,
					       LNETK_A_PAD);
			if (!rc)
				rc = put(skb, obj);
			if (rc)
				genlmsg_cancel(skb, hdr);
			else
				genlmsg_end(skb, hdr);
		}
		if (rc) {
			ctx->c = save;
			break;
		}
	}
	return lnk_nl_dump_end(ln, skb, rc);
}

/* --- the family ------------------------------------------------------------------- */

#define OP(c, fn, fl)                                   \
	{                                               \
		.cmd = (c), .doit = (fn), .flags = (fl) \
	}
#define ADMIN GENL_UNS_ADMIN_PERM

static const struct genl_ops lnk_nl_ops[] = {
	OP(LNETK_CMD_GET_INFO, lnk_nl_get_info, 0),
#ifdef LNETK_DEBUG
	OP(LNETK_CMD_BUMP, lnk_nl_bump, ADMIN), /* tests only: nl-test.c */
#endif
	OP(LNETK_CMD_NI_ADD, lnk_nl_ni_add, ADMIN),
	OP(LNETK_CMD_NI_DEL, lnk_nl_ni_del, ADMIN),
	OP(LNETK_CMD_NI_SET, lnk_nl_ni_set, ADMIN),
	{.cmd = LNETK_CMD_NI_GET, .doit = lnk_nl_ni_get, .dumpit = lnk_nl_ni_dump},
	OP(LNETK_CMD_PEER_ADD, lnk_nl_peer_add, ADMIN),
	OP(LNETK_CMD_PEER_DEL, lnk_nl_peer_del, ADMIN),
	OP(LNETK_CMD_PEER_NI_SET, lnk_nl_peer_ni_set, ADMIN),
	{.cmd = LNETK_CMD_PEER_GET, .doit = lnk_nl_peer_get, .dumpit = lnk_nl_peer_dump},
	OP(LNETK_CMD_ROUTE_ADD, lnk_nl_route_add, ADMIN),
	OP(LNETK_CMD_ROUTE_DEL, lnk_nl_route_del, ADMIN),
	{.cmd = LNETK_CMD_ROUTE_GET, .dumpit = lnk_nl_route_dump},
	OP(LNETK_CMD_RULE_ADD, lnk_nl_rule_add, ADMIN),
	OP(LNETK_CMD_RULE_DEL, lnk_nl_rule_del, ADMIN),
	{.cmd = LNETK_CMD_RULE_GET, .dumpit = lnk_nl_rule_dump},
	OP(LNETK_CMD_GLOBAL_SET, lnk_nl_global_set, ADMIN),
	OP(LNETK_CMD_GLOBAL_GET, lnk_nl_global_get, 0),
	OP(LNETK_CMD_NUMA_SET, lnk_nl_numa_set, ADMIN),
	OP(LNETK_CMD_SELECT, lnk_nl_select, ADMIN),
	OP(LNETK_CMD_BATCH, lnk_nl_batch, ADMIN),
	OP(LNETK_CMD_TBF_SET, lnk_nl_tbf_set, ADMIN),
	OP(LNETK_CMD_TBF_CMD, lnk_nl_tbf_cmd, ADMIN),
	OP(LNETK_CMD_TBF_DEL, lnk_nl_tbf_del, ADMIN),
	{.cmd = LNETK_CMD_TBF_GET, .doit = lnk_nl_tbf_get, .dumpit = lnk_nl_tbf_dump},
#ifdef LNETK_DEBUG
	OP(LNETK_CMD_TBF_LOAD, lnk_nl_tbf_load, ADMIN), /* tests only: nl-test.c */
#endif
	{.cmd = LNETK_CMD_TBF_CLASS_GET, .dumpit = lnk_nl_tbf_class_dump},
	OP(LNETK_CMD_EXPLAIN, lnk_nl_explain, 0),
	OP(LNETK_CMD_PING, lnk_nl_ping, ADMIN),
	OP(LNETK_CMD_COUNTERS, lnk_nl_counters, 0),
	OP(LNETK_CMD_COUNTERS_RESET, lnk_nl_counters_reset, ADMIN),
	OP(LNETK_CMD_TEST_SERVICE, lnk_nl_test_service, ADMIN),
	OP(LNETK_CMD_SELFTEST, lnk_nl_selftest, ADMIN),
	OP(LNETK_CMD_FAULT, lnk_nl_fault, ADMIN),
	OP(LNETK_CMD_FAULT_GET, lnk_nl_fault_get, 0),
	OP(LNETK_CMD_HEALTH_GET, lnk_nl_health_get, 0),
	OP(LNETK_CMD_RECOVERY_GET, lnk_nl_recovery_get, 0),
};

static const struct genl_multicast_group lnk_nl_mcgrps[] = {
	[LNETK_GROUP_EVENTS] = {.name = LNETK_MCGRP_EVENTS},
	[LNETK_GROUP_DP] = {.name = LNETK_MCGRP_DP},
};

/*
 * The data path's announcements (uapi/lnetk.h, group "dp"): a message for
 * @cmd that @fill fills, when anyone listens in @net.  From the data
 * path's work or a caller of the node: process context.
 */
static bool lnk_nl_registered; /* under lnk_nl_reg_lock */
/*
 * Held for reading across an announcement, so the family is not taken
 * away under one (module unload: the data paths run until the namespaces
 * go, after the family).  A leaf: taken under dp->lock and ln->sel.
 */
static DECLARE_RWSEM(lnk_nl_reg_lock);

void lnk_nl_dp_announce(struct net *net, u8 cmd, size_t size,
			int (*fill)(struct sk_buff *skb, void *arg), void *arg)
{
	struct sk_buff *skb;
	void *hdr;

	down_read(&lnk_nl_reg_lock);
	if (!lnk_nl_registered || !genl_has_listeners(&lnk_nl_family, net, LNETK_GROUP_DP))
		goto out;
	skb = genlmsg_new(size > NLMSG_GOODSIZE ? size : NLMSG_GOODSIZE, GFP_KERNEL | __GFP_NOWARN);
	hdr = skb ? genlmsg_put(skb, 0, 0, &lnk_nl_family, 0, cmd) : NULL;
	if (!hdr || fill(skb, arg)) {
		nlmsg_free(skb);
		genl_set_err(&lnk_nl_family, net, 0, LNETK_GROUP_DP, -ENOBUFS);
		goto out;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&lnk_nl_family, net, skb, 0, LNETK_GROUP_DP, GFP_KERNEL);
out:
	up_read(&lnk_nl_reg_lock);
}

/*
 * resv_start_op stays 0: every command, present and future, gets the strict
 * treatment (reserved header bytes must be zero, unknown attributes are
 * refused).  One policy serves the family; handlers refuse attributes
 * their command does not take.
 */
struct genl_family lnk_nl_family __ro_after_init = {
	.name = LNETK_GENL_NAME,
	.version = LNETK_GENL_VERSION,
	.maxattr = LNETK_A_MAX,
	.policy = lnk_nl_policy,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = lnk_nl_ops,
	.n_ops = ARRAY_SIZE(lnk_nl_ops),
	.mcgrps = lnk_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(lnk_nl_mcgrps),
};

int __init lnetk_genetlink_init(void)
{
	int rc;

	lnk_nl_tbf_contract_checks();
	rc = genl_register_family(&lnk_nl_family);
	if (!rc) {
		down_write(&lnk_nl_reg_lock);
		lnk_nl_registered = true;
		up_write(&lnk_nl_reg_lock);
	}
	return rc;
}

void lnetk_genetlink_uninit(void)
{
	/* no announcement is under way once this has the lock; none starts after */
	down_write(&lnk_nl_reg_lock);
	lnk_nl_registered = false;
	up_write(&lnk_nl_reg_lock);
	genl_unregister_family(&lnk_nl_family);
}
