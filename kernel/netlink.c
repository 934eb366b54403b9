// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "lnetk": policies, commands, dumps
 * and change notifications.  The contract is uapi/lnetk.h.
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

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "engine/model.h"
#include "engine/select.h"
#include "engine/tbf.h"
#include "engine/udsp.h"
#include "instance.h"
#include "netlink.h"
#include "uapi/lnetk.h"
#include "version.h"

/* --- policies ------------------------------------------------------------ */

static struct netlink_range_validation prio_range = {.max = LNE_PRIO_MAX};
static struct netlink_range_validation tbf_depth_range = {.min = 1, .max = LNETK_TBF_DEPTH_MAX};

#define STR(n)                                       \
	{                                            \
		.type = NLA_NUL_STRING, .len = (n)-1 \
	}

static const struct nla_policy ni_policy[LNETK_NI_A_MAX + 1] = {
	[LNETK_NI_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_NI_A_IFNAME] = STR(LNETK_IFNAME_MAX),
	[LNETK_NI_A_CPTS] = {.type = NLA_U64},
	[LNETK_NI_A_DEV_CPT] = NLA_POLICY_RANGE(NLA_S32, -1, LNETK_MAX_CPTS - 1),
	[LNETK_NI_A_PEER_TIMEOUT] = {.type = NLA_U32},
	[LNETK_NI_A_PEER_CREDITS] = NLA_POLICY_MIN(NLA_U32, 1),
	[LNETK_NI_A_PEER_BUFFER_CREDITS] = {.type = NLA_U32},
	[LNETK_NI_A_CREDITS] = NLA_POLICY_MIN(NLA_U32, 1),
	[LNETK_NI_A_UP] = NLA_POLICY_MAX(NLA_U8, 1),
	[LNETK_NI_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, LNE_HEALTH_MAX),
	[LNETK_NI_A_TX_CREDITS] = {.type = NLA_S32},
};

static const struct nla_policy pni_policy[LNETK_PNI_A_MAX + 1] = {
	[LNETK_PNI_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_PNI_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, LNE_HEALTH_MAX),
	[LNETK_PNI_A_CREDITS] = {.type = NLA_S32},
};

static const struct nla_policy peer_policy[LNETK_PEER_A_MAX + 1] = {
	[LNETK_PEER_A_PRIMARY] = STR(LNETK_NID_MAX),
	[LNETK_PEER_A_MR] = NLA_POLICY_MAX(NLA_U8, 1),
	[LNETK_PEER_A_PEER_NI] = NLA_POLICY_NESTED(pni_policy),
};

static const struct nla_policy route_policy[LNETK_ROUTE_A_MAX + 1] = {
	[LNETK_ROUTE_A_NET] = STR(LNETK_NET_MAX),
	[LNETK_ROUTE_A_GATEWAY] = STR(LNETK_NID_MAX),
	[LNETK_ROUTE_A_HOPS] = NLA_POLICY_RANGE(NLA_U32, 1, LNE_HOPS_MAX),
	[LNETK_ROUTE_A_PRIORITY] = NLA_POLICY_FULL_RANGE(NLA_U32, &prio_range),
	[LNETK_ROUTE_A_SENSITIVITY] = {.type = NLA_U32},
};

static const struct nla_policy rule_policy[LNETK_RULE_A_MAX + 1] = {
	[LNETK_RULE_A_SRC] = STR(LNETK_EXPR_MAX),
	[LNETK_RULE_A_DST] = STR(LNETK_EXPR_MAX),
	[LNETK_RULE_A_RTE] = STR(LNETK_EXPR_MAX),
	[LNETK_RULE_A_PRIORITY] = NLA_POLICY_FULL_RANGE(NLA_U32, &prio_range),
	[LNETK_RULE_A_IDX] = {.type = NLA_U32},
};

static const struct nla_policy global_policy[LNETK_GLOBAL_A_MAX + 1] = {
	[LNETK_GLOBAL_A_NAME] = STR(LNETK_NAME_MAX),
	[LNETK_GLOBAL_A_VALUE] = {.type = NLA_U32},
};

static const struct nla_policy numa_policy[LNETK_NUMA_A_MAX + 1] = {
	[LNETK_NUMA_A_NCPT] = NLA_POLICY_MAX(NLA_U32, LNETK_MAX_CPTS),
	[LNETK_NUMA_A_DIST] = {.type = NLA_BINARY, .len = LNETK_MAX_CPTS * LNETK_MAX_CPTS * 4},
};

static const struct nla_policy sel_policy[LNETK_SEL_A_MAX + 1] = {
	[LNETK_SEL_A_DST] = STR(LNETK_NID_MAX),
	[LNETK_SEL_A_SRC] = STR(LNETK_NID_MAX),
	[LNETK_SEL_A_KIND] = NLA_POLICY_MAX(NLA_U8, LNETK_MSG_REPLY),
	[LNETK_SEL_A_MD_CPT] = NLA_POLICY_RANGE(NLA_S32, -1, LNETK_MAX_CPTS - 1),
};

const struct nla_policy lnetk_tbfl_policy[LNETK_TBFL_A_MAX + 1] = {
	[LNETK_TBFL_A_NID] = STR(LNETK_NID_MAX),
	[LNETK_TBFL_A_QUEUE] = NLA_POLICY_MAX(NLA_U8, LNETK_TBF_HP),
};

const struct nla_policy lnetk_tbf_policy[LNETK_TBF_A_MAX + 1] = {
	[LNETK_TBF_A_SERVICE] = STR(LNETK_TBF_SERVICE_MAX),
	[LNETK_TBF_A_QUEUE] = NLA_POLICY_MAX(NLA_U8, LNETK_TBF_HP),
	[LNETK_TBF_A_TYPE] = STR(LNETK_TBF_TYPE_MAX),
	[LNETK_TBF_A_DEPTH] = NLA_POLICY_FULL_RANGE(NLA_U32, &tbf_depth_range),
	[LNETK_TBF_A_CMD] = STR(LNETK_TBF_CMD_MAX),
	[LNETK_TBF_A_LOAD_MS] =
		NLA_POLICY_RANGE(NLA_U32, LNETK_TBF_LOAD_MS_MIN, LNETK_TBF_LOAD_MS_MAX),
	[LNETK_TBF_A_LOAD_CLASS] = NLA_POLICY_NESTED(lnetk_tbfl_policy),
};

/* One policy for every command; each handler refuses what it does not take. */
static const struct nla_policy lnetk_policy[LNETK_A_MAX + 1] = {
	[LNETK_A_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, LNETK_BUMP_MAX),
	[LNETK_A_FLAGS] = {.type = NLA_U32}, /* bits checked per command: -EOPNOTSUPP */
	[LNETK_A_NI] = NLA_POLICY_NESTED(ni_policy),
	[LNETK_A_PEER] = NLA_POLICY_NESTED(peer_policy),
	[LNETK_A_PEER_NI] = NLA_POLICY_NESTED(pni_policy),
	[LNETK_A_ROUTE] = NLA_POLICY_NESTED(route_policy),
	[LNETK_A_RULE] = NLA_POLICY_NESTED(rule_policy),
	[LNETK_A_GLOBAL] = NLA_POLICY_NESTED(global_policy),
	[LNETK_A_NUMA] = NLA_POLICY_NESTED(numa_policy),
	[LNETK_A_SELECT] = NLA_POLICY_NESTED(sel_policy),
	[LNETK_A_TBF] = NLA_POLICY_NESTED(lnetk_tbf_policy),
};

enum lnetk_group {
	LNETK_GROUP_EVENTS,
};

/* --- refusals ---------------------------------------------------------------- */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define LNETK_MSG_RING 64
static char lnetk_msg_ring[LNETK_MSG_RING][LNE_ERR_MSG_MAX];
static atomic_t lnetk_msg_next = ATOMIC_INIT(0);
#endif

/* Refuse with @rc, saying @msg and pointing at @attr (may be NULL). */
int lnetk_refuse(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc, const char *msg)
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
int lnetk_engine_refusal(struct netlink_ext_ack *extack, const struct nlattr *attr, int rc,
			 const struct lne_err *err)
{
	if (rc == -ENOMEM)
		return lnetk_refuse(extack, NULL, rc, "out of memory");
	return lnetk_refuse(extack, attr, rc, err->msg[0] ? err->msg : "refused by the engine");
}

/* Required attribute @type of nest @tb, or a refusal naming it. */
struct nlattr *lnetk_need(struct nlattr **tb, int type, const char *name, const struct nlattr *nest,
			  struct netlink_ext_ack *extack)
{
	char msg[96];

	if (tb[type])
		return tb[type];
	snprintf(msg, sizeof(msg), "%s is required", name);
	lnetk_refuse(extack, nest, -EINVAL, msg);
	return NULL;
}

/* Only the attributes in @allowed (bits by attribute type) of @tb, parsed up to @max. */
int lnetk_only(struct nlattr **tb, int max, u32 allowed, struct netlink_ext_ack *extack)
{
	int type;

	for (type = 1; type <= max; type++)
		if (tb[type] && !(allowed & BIT(type)))
			return lnetk_refuse(extack, tb[type], -EINVAL,
					    "this command does not take this attribute");
	return 0;
}

/* Only the top-level attributes in @allowed (bits by attribute type). */
static int only(struct genl_info *info, u32 allowed)
{
	return lnetk_only(info->attrs, LNETK_A_MAX, allowed, info->extack);
}

/*
 * A dump's step: only the top-level attributes in @allowed.  Checked in
 * each step, not in a start callback: the first step's refusal carries
 * extack (cb->extack), a start callback's does not on every kernel.
 */
int lnetk_dump_only(struct netlink_callback *cb, u32 allowed)
{
	return lnetk_only(genl_dumpit_info(cb)->attrs, LNETK_A_MAX, allowed, cb->extack);
}

static u32 flags_of(struct genl_info *info)
{
	return info->attrs[LNETK_A_FLAGS] ? nla_get_u32(info->attrs[LNETK_A_FLAGS]) : 0;
}

/* Flag bits the command does not know are refused, as unsupported. */
static int flags_only(struct genl_info *info, u32 allowed)
{
	if (flags_of(info) & ~allowed)
		return lnetk_refuse(info->extack, info->attrs[LNETK_A_FLAGS], -EOPNOTSUPP,
				    "this command does not support these LNETK_A_FLAGS bits");
	return 0;
}

/*
 * The family policy has already validated every nest, recursively and
 * strictly, before the handler ran: parsing need not validate again (a
 * batch of 100k NIDs would pay for it twice).  @policy documents the nest.
 */
int lnetk_parse_nest(struct nlattr **tb, int max, const struct nlattr *nest,
		     const struct nla_policy *policy, struct netlink_ext_ack *extack)
{
	(void)policy;
	return nla_parse_nested(tb, max, nest, NULL, extack);
}

int lnetk_get_nid(const struct nlattr *attr, struct lne_nid *nid, struct netlink_ext_ack *extack)
{
	struct lne_err err;
	int rc = lne_nid_parse(nla_data(attr), nid, &err);

	return rc ? lnetk_engine_refusal(extack, attr, rc, &err) : 0;
}

/* --- objects from attributes (shared by the commands and BATCH) ------------------ */

static int ni_add(struct lne_inst *inst, const struct nlattr *nest, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_NI_A_MAX + 1], *a;
	struct lne_ni_conf c = {.dev_cpt = LNE_CPT_ANY};
	struct lne_tunables tun;
	struct lne_err err;
	int rc;

	rc = lnetk_parse_nest(tb, LNETK_NI_A_MAX, nest, ni_policy, extack);
	if (rc)
		return rc;
	a = lnetk_need(tb, LNETK_NI_A_NID, "LNETK_NI_A_NID", nest, extack);
	if (!a)
		return -EINVAL;
	rc = lnetk_get_nid(a, &c.nid, extack);
	if (rc)
		return rc;
	lne_tunables_default(c.nid.lnd, &tun);
	if (tb[LNETK_NI_A_PEER_TIMEOUT])
		tun.peer_timeout = nla_get_u32(tb[LNETK_NI_A_PEER_TIMEOUT]);
	if (tb[LNETK_NI_A_PEER_CREDITS])
		tun.peer_credits = nla_get_u32(tb[LNETK_NI_A_PEER_CREDITS]);
	if (tb[LNETK_NI_A_PEER_BUFFER_CREDITS])
		tun.peer_buffer_credits = nla_get_u32(tb[LNETK_NI_A_PEER_BUFFER_CREDITS]);
	if (tb[LNETK_NI_A_CREDITS])
		tun.credits = nla_get_u32(tb[LNETK_NI_A_CREDITS]);
	c.tun = &tun;
	if (tb[LNETK_NI_A_IFNAME])
		c.ifname = nla_data(tb[LNETK_NI_A_IFNAME]);
	if (tb[LNETK_NI_A_CPTS])
		c.cpts = nla_get_u64(tb[LNETK_NI_A_CPTS]);
	if (tb[LNETK_NI_A_DEV_CPT])
		c.dev_cpt = (s16)nla_get_s32(tb[LNETK_NI_A_DEV_CPT]);
	for (rc = LNETK_NI_A_UP; rc <= LNETK_NI_A_TX_CREDITS; rc++)
		if (tb[rc])
			return lnetk_refuse(extack, tb[rc], -EINVAL,
					    "state is set with LNETK_CMD_NI_SET, not when adding");
	rc = lne_ni_add(inst, &c, &err);
	return rc ? lnetk_engine_refusal(extack, a, rc, &err) : 0;
}

#ifndef __uninitialized
#define __uninitialized /* a kernel without it: zeroed, only slower */
#endif

/*
 * A peer NID: parsed without a struct lne_err on the stack (the kernel
 * zeroes every stack variable on entry, and a batch parses 100,000 NIDs);
 * a NID that does not parse is parsed again to say why.
 */
static noinline __cold int peer_nid_refusal(const struct nlattr *attr,
					    struct netlink_ext_ack *extack)
{
	struct lne_nid nid;
	struct lne_err err;
	int rc = lne_nid_parse(nla_data(attr), &nid, &err);

	return lnetk_engine_refusal(extack, attr, rc, &err);
}

static int peer_nid(const struct nlattr *attr, struct lne_nid *nid, struct netlink_ext_ack *extack)
{
	return lne_nid_parse(nla_data(attr), nid, NULL) ? peer_nid_refusal(attr, extack) : 0;
}

/*
 * The NID of a LNETK_PEER_A_PEER_NI nest (the last one, as nla_parse() has
 * it), or NULL; *@other (may be NULL) gets an attribute beside it, which
 * adding a peer does not take.
 */
static const struct nlattr *pni_nid_attr(const struct nlattr *pni, const struct nlattr **other)
{
	const struct nlattr *q, *nid = NULL;
	int rem;

	nla_for_each_nested(q, pni, rem) {
		if (nla_type(q) == LNETK_PNI_A_NID)
			nid = q;
		else if (other)
			*other = q;
	}
	return nid;
}

/*
 * Undo what peer_add did to a peer it found or made, after a refusal: the
 * NIDs of the LNETK_PEER_A_PEER_NI nests before @upto were added.
 */
static noinline __cold void peer_add_undo(struct lne_inst *inst, const struct lne_nid *primary,
					  bool created, bool was_implicit,
					  const struct nlattr *nest, const struct nlattr *upto)
{
	const struct nlattr *p, *na;
	struct lne_peer *peer;
	struct lne_nid nid;
	int rem;

	if (created) {
		lne_peer_del(inst, primary, NULL);
		return;
	}
	nla_for_each_nested(p, nest, rem) {
		if (p == upto)
			break;
		na = nla_type(p) == LNETK_PEER_A_PEER_NI ? pni_nid_attr(p, NULL) : NULL;
		if (na && !lne_nid_parse(nla_data(na), &nid, NULL) && !lne_nid_equal(&nid, primary))
			lne_peer_del_nid(inst, primary, &nid, NULL);
	}
	peer = lne_peer_find(inst, primary);
	if (peer && was_implicit) {
		peer->implicit = true;
		peer->mr = false;
	}
}

static noinline __cold int peer_exists(const struct nlattr *a, struct netlink_ext_ack *extack)
{
	char msg[LNE_ERR_MSG_MAX];

	snprintf(msg, sizeof(msg), "peer %s exists already", (const char *)nla_data(a));
	return lnetk_refuse(extack, a, -EEXIST, msg);
}

/*
 * The nests are walked by hand, not parsed into tables: the family policy
 * validated them before the handler ran (see lnetk_parse_nest), and a
 * batch holds 50,000 of them.  As with nla_parse(), the last of a repeated
 * attribute is the one that counts.  The peer is looked up once, and its
 * NIDs added to it in hand (lne_peer_get).
 */
static int peer_add(struct lne_inst *inst, const struct nlattr *nest,
		    struct netlink_ext_ack *extack)
{
	const struct nlattr *a = NULL, *mra = NULL, *p, *na;
	struct lne_nid primary, nid;
	enum lne_peer_got got;
	struct lne_peer *peer;
	struct lne_err err __uninitialized; /* 196 bytes, filled by a refusal */
	bool mr = true;
	int rc, rem, n = 0;

	nla_for_each_nested(p, nest, rem) {
		if (nla_type(p) == LNETK_PEER_A_PRIMARY)
			a = p;
		else if (nla_type(p) == LNETK_PEER_A_MR)
			mra = p;
	}
	if (!a)
		return lnetk_refuse(extack, nest, -EINVAL, "LNETK_PEER_A_PRIMARY is required");
	rc = peer_nid(a, &primary, extack);
	if (rc)
		return rc;
	if (mra)
		mr = nla_get_u8(mra);
	err.msg[0] = '\0';
	rc = lne_peer_get(inst, &primary, mr, &peer, &got, &err);
	if (rc)
		return lnetk_engine_refusal(extack, a, rc, &err);
	if (got == LNE_PEER_FOUND && mra && peer->mr != mr)
		return lnetk_refuse(
			extack, mra, -EEXIST,
			mr ? "the peer exists as non-Multi-Rail; delete it to change that"
			   : "the peer exists as Multi-Rail; delete it to change that");
	nla_for_each_nested(p, nest, rem) {
		const struct nlattr *other = NULL;

		if (nla_type(p) != LNETK_PEER_A_PEER_NI)
			continue;
		na = pni_nid_attr(p, &other);
		rc = !na     ? lnetk_refuse(extack, p, -EINVAL, "LNETK_PNI_A_NID is required")
		     : other ? lnetk_refuse(extack, other, -EINVAL,
					    "a peer's NID is added with LNETK_PNI_A_NID alone; "
					    "set the rest with LNETK_CMD_PEER_NI_SET")
			     : peer_nid(na, &nid, extack);
		/* The primary NID is the peer's already. */
		if (!rc && lne_nid_equal(&nid, &primary))
			continue;
		if (!rc) {
			rc = lne_peer_add_nid_to(inst, peer, &nid, &err);
			if (rc)
				lnetk_engine_refusal(extack, na, rc, &err);
		}
		if (rc) {
			peer_add_undo(inst, &primary, got == LNE_PEER_MADE, got == LNE_PEER_ADOPTED,
				      nest, p);
			return rc;
		}
		n++;
	}
	/* Nothing to do is a refusal, as for a rule: the caller asked for a change. */
	if (got == LNE_PEER_FOUND && !n)
		return peer_exists(a, extack);
	return 0;
}

static int route_add(struct lne_inst *inst, const struct nlattr *nest, bool del,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_ROUTE_A_MAX + 1], *na, *ga;
	u32 hops = LNE_HOPS_DEFAULT, prio = 0, sens = 1;
	struct lne_err err;
	struct lne_nid gw;
	lne_net_t net;
	int rc;

	rc = lnetk_parse_nest(tb, LNETK_ROUTE_A_MAX, nest, route_policy, extack);
	if (rc)
		return rc;
	na = lnetk_need(tb, LNETK_ROUTE_A_NET, "LNETK_ROUTE_A_NET", nest, extack);
	ga = na ? lnetk_need(tb, LNETK_ROUTE_A_GATEWAY, "LNETK_ROUTE_A_GATEWAY", nest, extack)
		: NULL;
	if (!ga)
		return -EINVAL;
	if (del) {
		rc = lnetk_only(tb, LNETK_ROUTE_A_MAX,
				BIT(LNETK_ROUTE_A_NET) | BIT(LNETK_ROUTE_A_GATEWAY), extack);
		if (rc)
			return rc;
	}
	rc = lne_net_parse(nla_data(na), &net, &err);
	if (rc)
		return lnetk_engine_refusal(extack, na, rc, &err);
	rc = lnetk_get_nid(ga, &gw, extack);
	if (rc)
		return rc;
	if (del)
		rc = lne_route_del(inst, net, &gw, &err);
	else {
		if (tb[LNETK_ROUTE_A_HOPS])
			hops = nla_get_u32(tb[LNETK_ROUTE_A_HOPS]);
		if (tb[LNETK_ROUTE_A_PRIORITY])
			prio = nla_get_u32(tb[LNETK_ROUTE_A_PRIORITY]);
		if (tb[LNETK_ROUTE_A_SENSITIVITY])
			sens = nla_get_u32(tb[LNETK_ROUTE_A_SENSITIVITY]);
		rc = lne_route_add(inst, net, &gw, hops, prio, sens, &err);
	}
	return rc ? lnetk_engine_refusal(extack, nest, rc, &err) : 0;
}

static const char *str_or_null(const struct nlattr *a)
{
	return a ? nla_data(a) : NULL;
}

static int rule_add(struct lne_inst *inst, const struct nlattr *nest, struct sk_buff *reply,
		    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_RULE_A_MAX + 1], *r;
	enum lne_rule_outcome outcome;
	struct lne_err err;
	s64 idx = -1;
	u32 prio = LNE_PRIO_NONE, at;
	int rc;

	rc = lnetk_parse_nest(tb, LNETK_RULE_A_MAX, nest, rule_policy, extack);
	if (rc)
		return rc;
	if (tb[LNETK_RULE_A_PRIORITY])
		prio = nla_get_u32(tb[LNETK_RULE_A_PRIORITY]);
	if (tb[LNETK_RULE_A_IDX])
		idx = nla_get_u32(tb[LNETK_RULE_A_IDX]);
	rc = lne_rule_add(inst, str_or_null(tb[LNETK_RULE_A_SRC]),
			  str_or_null(tb[LNETK_RULE_A_DST]), str_or_null(tb[LNETK_RULE_A_RTE]),
			  prio, idx, &outcome, &at, &err);
	if (rc)
		return lnetk_engine_refusal(extack, nest, rc, &err);
	if (!reply)
		return 0;
	r = nla_nest_start(reply, LNETK_A_RULE);
	if (!r || nla_put_u32(reply, LNETK_RULE_A_IDX, at) ||
	    nla_put_u8(reply, LNETK_RULE_A_OUTCOME,
		       outcome == LNE_RULE_ADDED ? LNETK_RULE_ADDED : LNETK_RULE_UPDATED))
		return -EMSGSIZE; /* cannot happen: the reply has room */
	nla_nest_end(reply, r);
	return 0;
}

static int global_set(struct lne_inst *inst, const struct nlattr *nest,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LNETK_GLOBAL_A_MAX + 1], *na, *va;
	struct lne_err err;
	int rc, g;

	rc = lnetk_parse_nest(tb, LNETK_GLOBAL_A_MAX, nest, global_policy, extack);
	if (rc)
		return rc;
	na = lnetk_need(tb, LNETK_GLOBAL_A_NAME, "LNETK_GLOBAL_A_NAME", nest, extack);
	va = na ? lnetk_need(tb, LNETK_GLOBAL_A_VALUE, "LNETK_GLOBAL_A_VALUE", nest, extack) : NULL;
	if (!va)
		return -EINVAL;
	g = lne_global_lookup(nla_data(na));
	if (g < 0)
		return lnetk_refuse(extack, na, -ENOENT, "no global setting has this name");
	rc = lne_global_set(inst, g, nla_get_u32(va), &err);
	return rc ? lnetk_engine_refusal(extack, va, rc, &err) : 0;
}

/* --- the change path ------------------------------------------------------------- */

/* A message that carries a generation: replies and notifications. */
struct sk_buff *lnetk_msg_new(u32 portid, u32 seq, u8 cmd, size_t extra, void **hdr)
{
	struct sk_buff *skb = genlmsg_new(nla_total_size_64bit(sizeof(u64)) + extra, GFP_KERNEL);

	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, portid, seq, &lnetk_genl_family, 0, cmd);
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

	if (!genl_has_listeners(&lnetk_genl_family, net, LNETK_GROUP_EVENTS))
		return;
	skb = lnetk_msg_new(0, 0, cmd, 0, &hdr);
	if (!skb || nla_put_u64_64bit(skb, LNETK_A_GENERATION, generation, LNETK_A_PAD)) {
		nlmsg_free(skb);
		genl_set_err(&lnetk_genl_family, net, 0, LNETK_GROUP_EVENTS, -ENOBUFS);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&lnetk_genl_family, net, skb, 0, LNETK_GROUP_EVENTS, GFP_KERNEL);
}

/*
 * Run one change: reply prepared first, the change under the lock, the
 * generation bumped and announced only when it succeeded.  @in_place: @fn
 * changes the instance where selections read it, so they wait (ln->sel
 * held for writing) while it runs; otherwise @fn takes ln->sel itself for
 * the moment it swaps the instance.
 */
static int run_change(struct genl_info *info, lnetk_change_fn fn, size_t reply_extra, bool in_place)
{
	struct net *net = genl_info_net(info);
	struct lnetk_net *ln = lnetk_net(net);
	struct sk_buff *reply;
	void *hdr;
	int rc;

	reply = lnetk_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd, reply_extra,
			      &hdr);
	if (!reply)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
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
	if (rc) {
		nlmsg_free(reply);
		return rc;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

int lnetk_change(struct genl_info *info, lnetk_change_fn fn, size_t reply_extra)
{
	return run_change(info, fn, reply_extra, true);
}

static int do_bump(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	/* lnetk_change() adds one more. */
	ln->generation += nla_get_u32(info->attrs[LNETK_A_COUNT]) - 1;
	return 0;
}

static int lnetk_bump(struct sk_buff *skb, struct genl_info *info)
{
	int rc = only(info, BIT(LNETK_A_COUNT));

	if (rc)
		return rc;
	if (!info->attrs[LNETK_A_COUNT])
		return lnetk_refuse(info->extack, NULL, -EINVAL, "LNETK_A_COUNT is required");
	return lnetk_change(info, do_bump, 0);
}

/* The object nest a command needs, after refusing everything else. */
struct nlattr *lnetk_object(struct genl_info *info, int type, const char *name, u32 also)
{
	char msg[64];

	if (only(info, BIT(type) | also))
		return NULL;
	if (info->attrs[type])
		return info->attrs[type];
	snprintf(msg, sizeof(msg), "%s is required", name);
	lnetk_refuse(info->extack, NULL, -EINVAL, msg);
	return NULL;
}

static int do_ni_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return ni_add(ln->inst, info->attrs[LNETK_A_NI], info->extack);
}

static int lnetk_ni_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NI) ? lnetk_change(info, do_ni_add, 0) : -EINVAL;
}

/*
 * The NID of the NI named by a command's LNETK_A_NI nest, which may hold
 * only the attributes in @allowed besides it.
 */
static int ni_nid(struct genl_info *info, struct nlattr **tb, struct lne_nid *nid, u32 allowed)
{
	int rc = lnetk_parse_nest(tb, LNETK_NI_A_MAX, info->attrs[LNETK_A_NI], ni_policy,
				  info->extack);

	if (!rc)
		rc = lnetk_only(tb, LNETK_NI_A_MAX, allowed | BIT(LNETK_NI_A_NID), info->extack);
	if (rc)
		return rc;
	if (!lnetk_need(tb, LNETK_NI_A_NID, "LNETK_NI_A_NID", info->attrs[LNETK_A_NI],
			info->extack))
		return -EINVAL;
	return lnetk_get_nid(tb[LNETK_NI_A_NID], nid, info->extack);
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
	return rc ? lnetk_engine_refusal(info->extack, tb[LNETK_NI_A_NID], rc, &err) : 0;
}

static int lnetk_ni_del(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NI) ? lnetk_change(info, do_ni_del, 0) : -EINVAL;
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
	for (t = LNETK_NI_A_IFNAME; t <= LNETK_NI_A_CREDITS; t++)
		if (tb[t])
			return lnetk_refuse(
				info->extack, tb[t], -EINVAL,
				"set only health, link state or tx credits; delete and add the NI to change the rest");
	if (!tb[LNETK_NI_A_HEALTH] && !tb[LNETK_NI_A_UP] && !tb[LNETK_NI_A_TX_CREDITS])
		return lnetk_refuse(
			info->extack, info->attrs[LNETK_A_NI], -EINVAL,
			"give LNETK_NI_A_HEALTH, LNETK_NI_A_UP or LNETK_NI_A_TX_CREDITS");
	ni = lne_ni_find(ln->inst, &nid);
	if (!ni) {
		lne_err_set(&err, -ENOENT, nla_data(tb[LNETK_NI_A_NID]), -1, "no such local NI");
		return lnetk_engine_refusal(info->extack, tb[LNETK_NI_A_NID], -ENOENT, &err);
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

static int lnetk_ni_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NI) ? lnetk_change(info, do_ni_set, 0) : -EINVAL;
}

static int do_peer_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return peer_add(ln->inst, info->attrs[LNETK_A_PEER], info->extack);
}

static int lnetk_peer_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_PEER) ? lnetk_change(info, do_peer_add, 0) : -EINVAL;
}

static int do_peer_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_PEER], *tb[LNETK_PEER_A_MAX + 1];
	struct nlattr *ptb[LNETK_PNI_A_MAX + 1], *a, *p;
	const struct lne_peer_ni **seen;
	struct lne_nid primary, nid;
	bool primary_too = false;
	struct lne_peer *peer;
	struct lne_err err;
	int rc, rem, pass;
	u32 nseen = 0, i;

	rc = lnetk_parse_nest(tb, LNETK_PEER_A_MAX, nest, peer_policy, info->extack);
	if (!rc)
		rc = lnetk_only(tb, LNETK_PEER_A_MAX,
				BIT(LNETK_PEER_A_PRIMARY) | BIT(LNETK_PEER_A_PEER_NI),
				info->extack);
	if (rc)
		return rc;
	a = lnetk_need(tb, LNETK_PEER_A_PRIMARY, "LNETK_PEER_A_PRIMARY", nest, info->extack);
	if (!a)
		return -EINVAL;
	rc = lnetk_get_nid(a, &primary, info->extack);
	if (rc)
		return rc;
	peer = lne_peer_find(ln->inst, &primary);
	if (!peer)
		return lnetk_refuse(info->extack, a, -ENOENT, "no peer has this primary NID");
	if (!tb[LNETK_PEER_A_PEER_NI]) {
		rc = lne_peer_del(ln->inst, &primary, &err);
		return rc ? lnetk_engine_refusal(info->extack, a, rc, &err) : 0;
	}
	/*
	 * The peer's other NIDs listed so far, each once: a NID listed twice
	 * must not count twice when the primary asks whether all the others go.
	 */
	seen = kvmalloc_array(peer->npni, sizeof(*seen), GFP_KERNEL);
	if (!seen)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	/* Check every NID first, delete after: all or nothing. */
	for (pass = 0; pass < 2; pass++) {
		nla_for_each_nested(p, nest, rem) {
			struct lne_peer_ni *pni;

			if (nla_type(p) != LNETK_PEER_A_PEER_NI)
				continue;
			rc = lnetk_parse_nest(ptb, LNETK_PNI_A_MAX, p, pni_policy, info->extack);
			if (!rc)
				rc = lnetk_only(ptb, LNETK_PNI_A_MAX, BIT(LNETK_PNI_A_NID),
						info->extack);
			if (!rc &&
			    !lnetk_need(ptb, LNETK_PNI_A_NID, "LNETK_PNI_A_NID", p, info->extack))
				rc = -EINVAL;
			if (!rc)
				rc = lnetk_get_nid(ptb[LNETK_PNI_A_NID], &nid, info->extack);
			if (rc)
				goto out;
			if (lne_nid_equal(&nid, &primary)) {
				primary_too = true;
				continue;
			}
			pni = lne_peer_ni_find(ln->inst, &nid);
			if (!pass && (!pni || lne_peer_of(pni) != peer)) {
				rc = lnetk_refuse(info->extack, p, -ENOENT,
						  "not a NID of this peer");
				goto out;
			}
			if (!pass && pni->gw_refs) {
				rc = lnetk_refuse(
					info->extack, p, -EBUSY,
					"this NID is a route's gateway; delete the routes first");
				goto out;
			}
			if (!pass) {
				for (i = 0; i < nseen && seen[i] != pni; i++)
					;
				if (i == nseen && nseen < peer->npni)
					seen[nseen++] = pni;
			}
			if (pass && pni)
				lne_peer_del_nid(ln->inst, &primary, &nid, NULL);
		}
		/* The primary goes only with every other NID: check before deleting. */
		if (!pass && primary_too && nseen + 1 != peer->npni) {
			rc = lnetk_refuse(
				info->extack, a, -EBUSY,
				"the primary NID goes only with all the peer's other NIDs; delete the peer instead");
			goto out;
		}
		if (!pass && primary_too && lne_peer_ni_find(ln->inst, &primary)->gw_refs) {
			rc = lnetk_refuse(
				info->extack, a, -EBUSY,
				"the primary NID is a route's gateway; delete the routes first");
			goto out;
		}
	}
	/* The primary goes last, and only with every other NID. */
	if (primary_too) {
		rc = lne_peer_del_nid(ln->inst, &primary, &primary, &err);
		if (rc)
			rc = lnetk_engine_refusal(info->extack, a, rc, &err);
	}
out:
	kvfree(seen);
	return rc;
}

static int lnetk_peer_del(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_PEER) ? lnetk_change(info, do_peer_del, 0) : -EINVAL;
}

static int do_peer_ni_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_PEER_NI], *tb[LNETK_PNI_A_MAX + 1];
	struct lne_err err;
	struct lne_nid nid;
	int rc;

	rc = lnetk_parse_nest(tb, LNETK_PNI_A_MAX, nest, pni_policy, info->extack);
	if (rc)
		return rc;
	if (!lnetk_need(tb, LNETK_PNI_A_NID, "LNETK_PNI_A_NID", nest, info->extack))
		return -EINVAL;
	rc = lnetk_get_nid(tb[LNETK_PNI_A_NID], &nid, info->extack);
	if (rc)
		return rc;
	if (!tb[LNETK_PNI_A_HEALTH] && !tb[LNETK_PNI_A_CREDITS])
		return lnetk_refuse(info->extack, nest, -EINVAL,
				    "give LNETK_PNI_A_HEALTH or LNETK_PNI_A_CREDITS");
	if (!lne_peer_ni_find(ln->inst, &nid)) {
		lne_err_set(&err, -ENOENT, nla_data(tb[LNETK_PNI_A_NID]), -1,
			    "no peer has this NID");
		return lnetk_engine_refusal(info->extack, tb[LNETK_PNI_A_NID], -ENOENT, &err);
	}
	if (tb[LNETK_PNI_A_HEALTH])
		lne_peer_ni_set_health(ln->inst, &nid, nla_get_u32(tb[LNETK_PNI_A_HEALTH]), NULL);
	if (tb[LNETK_PNI_A_CREDITS])
		lne_peer_ni_set_credits(ln->inst, &nid, nla_get_s32(tb[LNETK_PNI_A_CREDITS]), NULL);
	return 0;
}

static int lnetk_peer_ni_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_PEER_NI) ? lnetk_change(info, do_peer_ni_set, 0) : -EINVAL;
}

static int do_route_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return route_add(ln->inst, info->attrs[LNETK_A_ROUTE], false, info->extack);
}

static int do_route_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return route_add(ln->inst, info->attrs[LNETK_A_ROUTE], true, info->extack);
}

static int lnetk_route_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_ROUTE) ? lnetk_change(info, do_route_add, 0) : -EINVAL;
}

static int lnetk_route_del(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_ROUTE) ? lnetk_change(info, do_route_del, 0) : -EINVAL;
}

static int do_rule_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return rule_add(ln->inst, info->attrs[LNETK_A_RULE], reply, info->extack);
}

static int lnetk_rule_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_RULE) ? lnetk_change(info, do_rule_add, 64) : -EINVAL;
}

static int do_rule_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_RULE], *tb[LNETK_RULE_A_MAX + 1];
	struct lne_err err;
	int rc;

	if (flags_of(info) & LNETK_F_ALL) {
		lne_rule_del_all(ln->inst);
		return 0;
	}
	rc = lnetk_parse_nest(tb, LNETK_RULE_A_MAX, nest, rule_policy, info->extack);
	if (!rc)
		rc = lnetk_only(tb, LNETK_RULE_A_MAX, BIT(LNETK_RULE_A_IDX), info->extack);
	if (rc)
		return rc;
	if (!lnetk_need(tb, LNETK_RULE_A_IDX, "LNETK_RULE_A_IDX", nest, info->extack))
		return -EINVAL;
	rc = lne_rule_del(ln->inst, nla_get_u32(tb[LNETK_RULE_A_IDX]), &err);
	return rc ? lnetk_engine_refusal(info->extack, tb[LNETK_RULE_A_IDX], rc, &err) : 0;
}

static int lnetk_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	u32 flags = flags_of(info);
	int rc = only(info, BIT(LNETK_A_RULE) | BIT(LNETK_A_FLAGS));

	if (rc)
		return rc;
	rc = flags_only(info, LNETK_F_ALL);
	if (rc)
		return rc;
	if (!(flags & LNETK_F_ALL) == !info->attrs[LNETK_A_RULE])
		return lnetk_refuse(info->extack, NULL, -EINVAL,
				    "give either LNETK_A_RULE with an idx, or LNETK_F_ALL");
	return lnetk_change(info, do_rule_del, 0);
}

static int do_global_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return global_set(ln->inst, info->attrs[LNETK_A_GLOBAL], info->extack);
}

static int lnetk_global_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_GLOBAL) ? lnetk_change(info, do_global_set, 0) : -EINVAL;
}

static int do_numa_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_NUMA], *tb[LNETK_NUMA_A_MAX + 1];
	struct lne_err err;
	u32 ncpt;
	int rc;

	rc = lnetk_parse_nest(tb, LNETK_NUMA_A_MAX, nest, numa_policy, info->extack);
	if (rc)
		return rc;
	if (!lnetk_need(tb, LNETK_NUMA_A_NCPT, "LNETK_NUMA_A_NCPT", nest, info->extack))
		return -EINVAL;
	ncpt = nla_get_u32(tb[LNETK_NUMA_A_NCPT]);
	if (ncpt && (!tb[LNETK_NUMA_A_DIST] || nla_len(tb[LNETK_NUMA_A_DIST]) != ncpt * ncpt * 4))
		return lnetk_refuse(info->extack, tb[LNETK_NUMA_A_DIST] ?: nest, -EINVAL,
				    "LNETK_NUMA_A_DIST must hold NCPT * NCPT u32 distances");
	if (!ncpt)
		return lnetk_numa_default(ln->inst)
			       ? lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory")
			       : 0;
	rc = lne_numa_set(ln->inst, (u16)ncpt, nla_data(tb[LNETK_NUMA_A_DIST]), &err);
	return rc ? lnetk_engine_refusal(info->extack, nest, rc, &err) : 0;
}

static int lnetk_numa_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_NUMA) ? lnetk_change(info, do_numa_set, 0) : -EINVAL;
}

/* One batch item: what its *_ADD command (or GLOBAL_SET) would do. */
static int batch_item(struct lne_inst *next, const struct nlattr *attr,
		      struct netlink_ext_ack *extack)
{
	switch (nla_type(attr)) {
	case LNETK_A_NI:
		return ni_add(next, attr, extack);
	case LNETK_A_PEER:
		return peer_add(next, attr, extack);
	case LNETK_A_ROUTE:
		return route_add(next, attr, false, extack);
	case LNETK_A_RULE:
		return rule_add(next, attr, NULL, extack);
	case LNETK_A_GLOBAL:
		return global_set(next, attr, extack);
	default:
		return lnetk_refuse(extack, attr, -EINVAL,
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

	next = flags_of(info) & LNETK_F_REPLACE ? lnetk_inst_new() : lne_inst_copy(ln->inst);
	if (!next)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
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
			lnetk_refuse(info->extack, info->extack->bad_attr, rc, msg);
		}
		lne_inst_free(next);
		return rc;
	}
	/* Dumps keep pointers while the engine generation holds; the new
	 * instance must never show a generation the old one had. */
	next->gen += ln->inst->gen;
	/* Built aside, with selections going on: they wait for the swap only. */
	down_write(&ln->sel);
	swap(ln->inst, next);
	up_write(&ln->sel);
	lne_inst_free(next);
	return nla_put_u32(reply, LNETK_A_COUNT, n);
}

static int lnetk_batch(struct sk_buff *skb, struct genl_info *info)
{
	int rc = flags_only(info, LNETK_F_REPLACE);

	return rc ? rc : run_change(info, do_batch, nla_total_size(sizeof(u32)), false);
}

/* --- reads -------------------------------------------------------------------- */

static int lnetk_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct sk_buff *reply;
	void *hdr;
	int rc = only(info, 0);

	if (rc)
		return rc;
	reply = lnetk_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_GET_INFO,
			      nla_total_size(sizeof(LNETK_VERSION)) + nla_total_size(sizeof(u32)),
			      &hdr);
	if (!reply)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
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

int lnetk_put_nid(struct sk_buff *skb, int type, const struct lne_nid *nid)
{
	char buf[LNE_NID_STR_MAX];

	lne_nid_format(nid, buf, sizeof(buf));
	return nla_put_string(skb, type, buf);
}

static int put_ni(struct sk_buff *skb, const struct lne_ni *ni)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_NI);

	if (!nest)
		return -EMSGSIZE;
	if (lnetk_put_nid(skb, LNETK_NI_A_NID, &ni->nid) ||
	    (ni->ifname[0] && nla_put_string(skb, LNETK_NI_A_IFNAME, ni->ifname)) ||
	    nla_put_u64_64bit(skb, LNETK_NI_A_CPTS, ni->cpts, LNETK_NI_A_PAD) ||
	    nla_put_s32(skb, LNETK_NI_A_DEV_CPT, ni->dev_cpt) ||
	    nla_put_u32(skb, LNETK_NI_A_PEER_TIMEOUT, ni->tun.peer_timeout) ||
	    nla_put_u32(skb, LNETK_NI_A_PEER_CREDITS, ni->tun.peer_credits) ||
	    nla_put_u32(skb, LNETK_NI_A_PEER_BUFFER_CREDITS, ni->tun.peer_buffer_credits) ||
	    nla_put_u32(skb, LNETK_NI_A_CREDITS, ni->tun.credits) ||
	    nla_put_u8(skb, LNETK_NI_A_UP, ni->up) ||
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

static int put_prefs(struct sk_buff *skb, int type, const struct lne_pref *p, u16 n, bool gw)
{
	u16 i;

	for (i = 0; i < n; i++) {
		const struct lne_nid *nid = gw ? &((const struct lne_peer_ni *)p[i].target)->nid
					       : &((const struct lne_ni *)p[i].target)->nid;
		struct nlattr *nest = nla_nest_start(skb, type);

		if (!nest || lnetk_put_nid(skb, LNETK_PREF_A_NID, nid) ||
		    nla_put_u32(skb, LNETK_PREF_A_PRIO, p[i].rule->prio) ||
		    nla_put_u32(skb, LNETK_PREF_A_RULE, p[i].rule->idx))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int put_pni(struct sk_buff *skb, const struct lne_peer_ni *pni)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_PEER_A_PEER_NI);
	const struct lne_prefs *pr = pni->prefs;

	if (!nest)
		return -EMSGSIZE;
	if (lnetk_put_nid(skb, LNETK_PNI_A_NID, &pni->nid) ||
	    nla_put_u32(skb, LNETK_PNI_A_HEALTH, pni->health) ||
	    nla_put_s32(skb, LNETK_PNI_A_CREDITS, pni->credits) ||
	    nla_put_u32(skb, LNETK_PNI_A_PRIO, pni->prio) ||
	    nla_put_s32(skb, LNETK_PNI_A_PRIO_RULE, lne_rule_idx(pni->prio_rule)) ||
	    nla_put_u32(skb, LNETK_PNI_A_NET_PRIO, pni->pnet->rnet->prio.value) ||
	    nla_put_s32(skb, LNETK_PNI_A_NET_PRIO_RULE, lne_rule_idx(pni->pnet->rnet->prio.rule)) ||
	    nla_put_u32(skb, LNETK_PNI_A_GW_ROUTES, pni->gw_refs) ||
	    (pr && put_prefs(skb, LNETK_PNI_A_PREF_SRC, pr->src, pr->nsrc, false)) ||
	    (pr && put_prefs(skb, LNETK_PNI_A_PREF_GW, pr->gw, pr->ngw, true))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One peer's message(s): its NIDs from the @skip-th on.  Returns how many
 * NIDs it put (a partial peer continues in the next message), or
 * -EMSGSIZE if not even one fit.
 */
static int put_peer(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd,
		    struct netlink_callback *cb, const struct lne_peer *peer, u32 skip,
		    const u64 *generation)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct nlattr *nest;
	u32 i = 0, put = 0;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &lnetk_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (generation && nla_put_u64_64bit(skb, LNETK_A_GENERATION, *generation, LNETK_A_PAD))
		goto full;
	nest = nla_nest_start(skb, LNETK_A_PEER);
	if (!nest || lnetk_put_nid(skb, LNETK_PEER_A_PRIMARY, &peer->primary) ||
	    nla_put_u8(skb, LNETK_PEER_A_MR, peer->mr) ||
	    nla_put_u8(skb, LNETK_PEER_A_IMPLICIT, peer->implicit))
		goto full;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			if (i++ < skip)
				continue;
			if (put_pni(skb, pni))
				goto partial;
			put++;
		}
partial:
	if (!put)
		goto full;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return put;
full:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int lnetk_ni_get(struct sk_buff *skb, struct genl_info *info)
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
	reply = lnetk_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_NI_GET, NLMSG_GOODSIZE,
			      &hdr);
	if (!reply)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	ni = lne_ni_find(ln->inst, &nid);
	rc = ni ? put_ni(reply, ni) : -ENOENT;
	if (!rc)
		rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD);
	mutex_unlock(&ln->lock);
	if (rc) {
		nlmsg_free(reply);
		return rc == -ENOENT ? lnetk_refuse(info->extack, tb[LNETK_NI_A_NID], rc,
						    "no such local NI")
				     : rc;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

static int lnetk_peer_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest = OBJECT(info, LNETK_A_PEER), *tb[LNETK_PEER_A_MAX + 1];
	struct lne_peer_ni *pni;
	struct sk_buff *reply;
	struct lne_nid nid;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnetk_parse_nest(tb, LNETK_PEER_A_MAX, nest, peer_policy, info->extack);
	if (!rc)
		rc = lnetk_only(tb, LNETK_PEER_A_MAX, BIT(LNETK_PEER_A_PRIMARY), info->extack);
	if (rc)
		return rc;
	if (!lnetk_need(tb, LNETK_PEER_A_PRIMARY, "LNETK_PEER_A_PRIMARY", nest, info->extack))
		return -EINVAL;
	rc = lnetk_get_nid(tb[LNETK_PEER_A_PRIMARY], &nid, info->extack);
	if (rc)
		return rc;
	/* A peer may be big: a generous reply, all of it in one message. */
	reply = genlmsg_new(GENLMSG_DEFAULT_SIZE * 16, GFP_KERNEL);
	if (!reply)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	pni = lne_peer_ni_find(ln->inst, &nid);
	rc = pni ? put_peer(reply, info->snd_portid, info->snd_seq, 0, LNETK_CMD_PEER_GET, NULL,
			    lne_peer_of(pni), 0, &ln->generation)
		 : -ENOENT;
	if (rc >= 0 && lne_peer_of(pni)->npni > (u32)rc)
		rc = -EMSGSIZE;
	mutex_unlock(&ln->lock);
	if (rc < 0) {
		nlmsg_free(reply);
		return lnetk_refuse(info->extack, tb[LNETK_PEER_A_PRIMARY], rc,
				    rc == -ENOENT ? "no peer has this NID"
						  : "the peer is too big for one message; dump it");
	}
	return genlmsg_reply(reply, info);
}

/* Dump state, kept in cb->ctx between calls. */
struct dump_ctx {
	struct lne_cursor c;
	const struct lne_peer *cur; /* a peer split over messages; valid while gen holds */
	u32 done;		    /* its NIDs already sent */
};

static struct dump_ctx *dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct dump_ctx) > sizeof(cb->ctx));
	return (struct dump_ctx *)cb->ctx;
}

/*
 * Common start of a dump step: take the lock, and when the instance
 * changed since the last step, forget every pointer kept (the cursor then
 * resumes by key, and the messages are flagged as interrupted).
 */
static struct lnetk_net *dump_begin(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = lnetk_net(sock_net(skb->sk));
	struct dump_ctx *ctx = dump_ctx(cb);

	mutex_lock(&ln->lock);
	/* Never 0: genl_dump_check_consistent() takes 0 for "not begun". */
	cb->seq = (unsigned int)(ln->generation % 0xffffffffULL) + 1;
	if (ctx->c.gen != ln->inst->gen) {
		ctx->c.gen = ~0ULL; /* never a real generation: forces resume by key */
		ctx->cur = NULL;
	}
	return ln;
}

static int dump_end(struct lnetk_net *ln, struct sk_buff *skb, int rc)
{
	mutex_unlock(&ln->lock);
	/* A full skb ends this step; more follows in the next. */
	return rc == -EMSGSIZE ? (int)skb->len : rc;
}

static int ni_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = dump_begin(skb, cb);
	struct dump_ctx *ctx = dump_ctx(cb);
	struct lne_cursor save;
	struct lne_ni *ni;
	void *hdr;
	int rc = 0;

	for (;;) {
		save = ctx->c;
		ni = lne_ni_next(ln->inst, &ctx->c);
		if (!ni)
			break;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &lnetk_genl_family, NLM_F_MULTI, LNETK_CMD_NI_GET);
		if (!hdr) {
			rc = -EMSGSIZE;
		} else {
			genl_dump_check_consistent(cb, hdr);
			rc = nla_put_u64_64bit(skb, LNETK_A_GENERATION, ln->generation, LNETK_A_PAD)
				     ?: put_ni(skb, ni);
			if (rc)
				genlmsg_cancel(skb, hdr);
			else
				genlmsg_end(skb, hdr);
		}
		if (rc) {
			ctx->c = save; /* this NI goes in the next step */
			break;
		}
	}
	return dump_end(ln, skb, rc);
}

/* A dump of every NI takes no attribute. */
static int lnetk_ni_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnetk_dump_only(cb, 0) ?: ni_dump(skb, cb);
}

static int peer_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = dump_begin(skb, cb);
	struct dump_ctx *ctx = dump_ctx(cb);
	const struct lne_peer *peer;
	int rc = 0, put;

	for (;;) {
		peer = ctx->cur ? ctx->cur : lne_peer_next(ln->inst, &ctx->c);
		if (!peer)
			break;
		put = put_peer(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, NLM_F_MULTI,
			       LNETK_CMD_PEER_GET, cb, peer, ctx->cur ? ctx->done : 0,
			       &ln->generation);
		if (put < 0) {
			/* Nothing of it fit: all of it in the next step. */
			if (!ctx->cur) {
				ctx->cur = peer;
				ctx->done = 0;
			}
			rc = skb->len ? -EMSGSIZE : put;
			break;
		}
		ctx->done = (ctx->cur ? ctx->done : 0) + (u32)put;
		if (ctx->done < peer->npni) {
			ctx->cur = peer;
			rc = -EMSGSIZE;
			break;
		}
		ctx->cur = NULL;
		ctx->done = 0;
	}
	return dump_end(ln, skb, rc);
}

static int put_route(struct sk_buff *skb, const struct lne_route *rt)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_ROUTE);
	char net[LNE_NET_STR_MAX];

	if (!nest)
		return -EMSGSIZE;
	lne_net_format(rt->rnet->id, net, sizeof(net));
	if (nla_put_string(skb, LNETK_ROUTE_A_NET, net) ||
	    lnetk_put_nid(skb, LNETK_ROUTE_A_GATEWAY, &rt->gw->nid) ||
	    nla_put_u32(skb, LNETK_ROUTE_A_HOPS, rt->hops) ||
	    nla_put_u32(skb, LNETK_ROUTE_A_PRIORITY, rt->priority) ||
	    nla_put_u32(skb, LNETK_ROUTE_A_SENSITIVITY, rt->sensitivity)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int put_expr(struct sk_buff *skb, int type, const struct lne_expr *e)
{
	struct nlattr *a;
	int n;

	if (!e)
		return 0;
	n = lne_expr_format(e, NULL, 0);
	a = nla_reserve(skb, type, n + 1);
	if (!a)
		return -EMSGSIZE;
	lne_expr_format(e, nla_data(a), n + 1);
	return 0;
}

static int put_rule(struct sk_buff *skb, const struct lne_rule *r)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_RULE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LNETK_RULE_A_IDX, r->idx) ||
	    nla_put_u8(skb, LNETK_RULE_A_KIND, r->kind) ||
	    put_expr(skb, LNETK_RULE_A_SRC, r->src) || put_expr(skb, LNETK_RULE_A_DST, r->dst) ||
	    put_expr(skb, LNETK_RULE_A_RTE, r->rte) ||
	    (r->prio != LNE_PRIO_NONE && nla_put_u32(skb, LNETK_RULE_A_PRIORITY, r->prio))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Route and rule dumps: one object per message, from a cursor. */
static int simple_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	struct lnetk_net *ln = dump_begin(skb, cb);
	struct dump_ctx *ctx = dump_ctx(cb);
	struct lne_cursor save;
	void *obj, *hdr;
	int rc = 0;

	for (;;) {
		save = ctx->c;
		obj = cmd == LNETK_CMD_ROUTE_GET ? (void *)lne_route_next(ln->inst, &ctx->c)
						 : (void *)lne_rule_next(ln->inst, &ctx->c);
		if (!obj)
			break;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &lnetk_genl_family, NLM_F_MULTI, cmd);
		rc = hdr ? 0 : -EMSGSIZE;
		if (hdr) {
			genl_dump_check_consistent(cb, hdr);
			rc = nla_put_u64_64bit(skb, LNETK_A_GENERATION, ln->generation,
					       LNETK_A_PAD);
			if (!rc)
				rc = cmd == LNETK_CMD_ROUTE_GET ? put_route(skb, obj)
								: put_rule(skb, obj);
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
	return dump_end(ln, skb, rc);
}

/* A dump of every peer, route or rule takes no attribute. */
static int lnetk_peer_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnetk_dump_only(cb, 0) ?: peer_dump(skb, cb);
}

static int lnetk_route_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnetk_dump_only(cb, 0) ?: simple_dump(skb, cb, LNETK_CMD_ROUTE_GET);
}

static int lnetk_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnetk_dump_only(cb, 0) ?: simple_dump(skb, cb, LNETK_CMD_RULE_GET);
}

static int lnetk_global_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct sk_buff *reply;
	void *hdr;
	int rc = only(info, 0), g;

	if (rc)
		return rc;
	reply = lnetk_msg_new(info->snd_portid, info->snd_seq, LNETK_CMD_GLOBAL_GET, NLMSG_GOODSIZE,
			      &hdr);
	if (!reply)
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
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

/* --- select -------------------------------------------------------------------- */

#define EXPLAIN_MAX 128

static int put_entry(struct sk_buff *skb, const struct lne_exp_entry *e)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_SEL_A_ENTRY), *k;
	u8 i;

	if (!nest || nla_put_u8(skb, LNETK_ENTRY_A_STEP, e->step) ||
	    lnetk_put_nid(skb, LNETK_ENTRY_A_NID, &e->nid) ||
	    nla_put_u8(skb, LNETK_ENTRY_A_CRIT, e->crit) ||
	    nla_put_u8(skb, LNETK_ENTRY_A_LOST_AT, e->lost_at))
		return -EMSGSIZE;
	for (i = 0; i < e->key.n; i++) {
		k = nla_nest_start(skb, LNETK_ENTRY_A_KEY);
		if (!k || nla_put_u8(skb, LNETK_KEY_A_CRIT, e->key.crit[i]) ||
		    nla_put_s64(skb, LNETK_KEY_A_VALUE, e->key.v[i], LNETK_KEY_A_PAD) ||
		    nla_put_s32(skb, LNETK_KEY_A_RULE, e->key.rule[i]))
			return -EMSGSIZE;
		nla_nest_end(skb, k);
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* SELECT, and EXPLAIN (@peek: explain, move nothing). */
static int select_doit(struct genl_info *info, bool peek)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest =
		lnetk_object(info, LNETK_A_SELECT, "LNETK_A_SELECT", peek ? 0 : BIT(LNETK_A_FLAGS));
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY, .kind = LNE_MSG_PUT, .peek = peek};
	struct nlattr *tb[LNETK_SEL_A_MAX + 1], *out;
	struct lne_explain ex = {.cap = EXPLAIN_MAX};
	bool explain = peek || (flags_of(info) & LNETK_F_EXPLAIN);
	struct lne_nid src;
	struct sk_buff *reply;
	struct lne_sel sel;
	struct lne_err err;
	void *hdr;
	u32 i;
	int rc;

	if (!nest)
		return -EINVAL;
	if (flags_only(info, LNETK_F_EXPLAIN))
		return -EOPNOTSUPP;
	rc = lnetk_parse_nest(tb, LNETK_SEL_A_MAX, nest, sel_policy, info->extack);
	if (rc)
		return rc;
	for (rc = LNETK_SEL_A_NI; rc <= LNETK_SEL_A_ENTRY; rc++)
		if (tb[rc])
			return lnetk_refuse(info->extack, tb[rc], -EINVAL,
					    "reply attributes are not input");
	if (!lnetk_need(tb, LNETK_SEL_A_DST, "LNETK_SEL_A_DST", nest, info->extack))
		return -EINVAL;
	rc = lnetk_get_nid(tb[LNETK_SEL_A_DST], &req.dst, info->extack);
	if (!rc && tb[LNETK_SEL_A_SRC]) {
		rc = lnetk_get_nid(tb[LNETK_SEL_A_SRC], &src, info->extack);
		req.src = &src;
	}
	if (rc)
		return rc;
	if (tb[LNETK_SEL_A_KIND])
		req.kind = nla_get_u8(tb[LNETK_SEL_A_KIND]);
	if (tb[LNETK_SEL_A_MD_CPT])
		req.md_cpt = nla_get_s32(tb[LNETK_SEL_A_MD_CPT]);
	if (explain) {
		ex.ent = kcalloc(EXPLAIN_MAX, sizeof(*ex.ent), GFP_KERNEL);
		if (!ex.ent)
			return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	reply = lnetk_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd,
			      explain ? EXPLAIN_MAX * 320 : NLMSG_GOODSIZE, &hdr);
	if (!reply) {
		kfree(ex.ent);
		return lnetk_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	/* A reader: selections run side by side, changes wait (instance.h). */
	down_read(&ln->sel);
	rc = lne_select(ln->inst, &req, &sel, explain ? &ex : NULL, &err);
	if (rc) {
		up_read(&ln->sel);
		nlmsg_free(reply);
		kfree(ex.ent);
		return lnetk_engine_refusal(info->extack, tb[LNETK_SEL_A_DST], rc, &err);
	}
	out = nla_nest_start(reply, LNETK_A_SELECT);
	rc = !out || lnetk_put_nid(reply, LNETK_SEL_A_NI, &sel.ni->nid) ||
	     lnetk_put_nid(reply, LNETK_SEL_A_PEER_NI, &sel.pni->nid) ||
	     (sel.route && lnetk_put_nid(reply, LNETK_SEL_A_GATEWAY, &sel.route->gw->nid));
	for (i = 0; !rc && i < ex.n; i++)
		rc = put_entry(reply, &ex.ent[i]);
	if (!rc) {
		nla_nest_end(reply, out);
		rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, READ_ONCE(ln->generation),
				       LNETK_A_PAD);
	}
	up_read(&ln->sel);
	kfree(ex.ent);
	if (rc) {
		nlmsg_free(reply);
		return lnetk_refuse(info->extack, NULL, -EMSGSIZE,
				    "the explanation did not fit the reply");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

static int lnetk_select(struct sk_buff *skb, struct genl_info *info)
{
	return select_doit(info, false);
}

static int lnetk_explain(struct sk_buff *skb, struct genl_info *info)
{
	return select_doit(info, true);
}

/* --- the family ------------------------------------------------------------------- */

#define OP(c, fn, fl)                                   \
	{                                               \
		.cmd = (c), .doit = (fn), .flags = (fl) \
	}
#define ADMIN GENL_UNS_ADMIN_PERM

static const struct genl_ops lnetk_genl_ops[] = {
	OP(LNETK_CMD_GET_INFO, lnetk_get_info, 0),
	OP(LNETK_CMD_BUMP, lnetk_bump, ADMIN),
	OP(LNETK_CMD_NI_ADD, lnetk_ni_add, ADMIN),
	OP(LNETK_CMD_NI_DEL, lnetk_ni_del, ADMIN),
	OP(LNETK_CMD_NI_SET, lnetk_ni_set, ADMIN),
	{.cmd = LNETK_CMD_NI_GET, .doit = lnetk_ni_get, .dumpit = lnetk_ni_dump},
	OP(LNETK_CMD_PEER_ADD, lnetk_peer_add, ADMIN),
	OP(LNETK_CMD_PEER_DEL, lnetk_peer_del, ADMIN),
	OP(LNETK_CMD_PEER_NI_SET, lnetk_peer_ni_set, ADMIN),
	{.cmd = LNETK_CMD_PEER_GET, .doit = lnetk_peer_get, .dumpit = lnetk_peer_dump},
	OP(LNETK_CMD_ROUTE_ADD, lnetk_route_add, ADMIN),
	OP(LNETK_CMD_ROUTE_DEL, lnetk_route_del, ADMIN),
	{.cmd = LNETK_CMD_ROUTE_GET, .dumpit = lnetk_route_dump},
	OP(LNETK_CMD_RULE_ADD, lnetk_rule_add, ADMIN),
	OP(LNETK_CMD_RULE_DEL, lnetk_rule_del, ADMIN),
	{.cmd = LNETK_CMD_RULE_GET, .dumpit = lnetk_rule_dump},
	OP(LNETK_CMD_GLOBAL_SET, lnetk_global_set, ADMIN),
	OP(LNETK_CMD_GLOBAL_GET, lnetk_global_get, 0),
	OP(LNETK_CMD_NUMA_SET, lnetk_numa_set, ADMIN),
	OP(LNETK_CMD_SELECT, lnetk_select, ADMIN),
	OP(LNETK_CMD_BATCH, lnetk_batch, ADMIN),
	OP(LNETK_CMD_TBF_SET, lnetk_tbf_set_doit, ADMIN),
	OP(LNETK_CMD_TBF_CMD, lnetk_tbf_cmd_doit, ADMIN),
	OP(LNETK_CMD_TBF_DEL, lnetk_tbf_del_doit, ADMIN),
	{.cmd = LNETK_CMD_TBF_GET, .doit = lnetk_tbf_get_doit, .dumpit = lnetk_tbf_dump},
	OP(LNETK_CMD_TBF_LOAD, lnetk_tbf_load_doit, ADMIN),
	{.cmd = LNETK_CMD_TBF_CLASS_GET, .dumpit = lnetk_tbf_class_dump},
	OP(LNETK_CMD_EXPLAIN, lnetk_explain, 0),
};

static const struct genl_multicast_group lnetk_genl_mcgrps[] = {
	[LNETK_GROUP_EVENTS] = {.name = LNETK_MCGRP_EVENTS},
};

/*
 * resv_start_op stays 0: every command, present and future, gets the strict
 * treatment (reserved header bytes must be zero, unknown attributes are
 * refused).  One policy serves the family; handlers refuse attributes
 * their command does not take.
 */
struct genl_family lnetk_genl_family __ro_after_init = {
	.name = LNETK_GENL_NAME,
	.version = LNETK_GENL_VERSION,
	.maxattr = LNETK_A_MAX,
	.policy = lnetk_policy,
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
	lnetk_tbf_contract_checks();
	return genl_register_family(&lnetk_genl_family);
}

void lnetk_genetlink_uninit(void)
{
	genl_unregister_family(&lnetk_genl_family);
}
