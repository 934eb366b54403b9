// SPDX-License-Identifier: GPL-2.0
/*
 * nl-peer.c - the genl commands of peers: PEER_ADD, PEER_DEL,
 * PEER_NI_SET, PEER_GET and its dump, which splits a peer too big for one
 * message over several.
 */
#include <linux/mm.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "engine/model.h"
#include "engine/udsp.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

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

	return lnk_nl_engine_refusal(extack, attr, rc, &err);
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
 * Undo what lnk_nl_peer_add_nest did to a peer it found or made, after a refusal: the
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
	return lnk_nl_refuse(extack, a, -EEXIST, msg);
}

/*
 * The nests are walked by hand, not parsed into tables: the family policy
 * validated them before the handler ran (see lnk_nl_parse_nest), and a
 * batch holds 50,000 of them.  As with nla_parse(), the last of a repeated
 * attribute is the one that counts.  The peer is looked up once, and its
 * NIDs added to it in hand (lne_peer_get).
 */
int lnk_nl_peer_add_nest(struct lne_inst *inst, const struct nlattr *nest,
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
		return lnk_nl_refuse(extack, nest, -EINVAL, "LNETK_PEER_A_PRIMARY is required");
	rc = peer_nid(a, &primary, extack);
	if (rc)
		return rc;
	if (mra)
		mr = nla_get_u8(mra);
	err.msg[0] = '\0';
	rc = lne_peer_get(inst, &primary, mr, &peer, &got, &err);
	if (rc)
		return lnk_nl_engine_refusal(extack, a, rc, &err);
	if (got == LNE_PEER_FOUND && mra && peer->mr != mr)
		return lnk_nl_refuse(
			extack, mra, -EEXIST,
			mr ? "the peer exists as non-Multi-Rail; delete it to change that"
			   : "the peer exists as Multi-Rail; delete it to change that");
	nla_for_each_nested(p, nest, rem) {
		const struct nlattr *other = NULL;

		if (nla_type(p) != LNETK_PEER_A_PEER_NI)
			continue;
		na = pni_nid_attr(p, &other);
		rc = !na     ? lnk_nl_refuse(extack, p, -EINVAL, "LNETK_PNI_A_NID is required")
		     : other ? lnk_nl_refuse(extack, other, -EINVAL,
					     "a peer's NID is added with LNETK_PNI_A_NID alone; "
					     "set the rest with LNETK_CMD_PEER_NI_SET")
			     : peer_nid(na, &nid, extack);
		/* The primary NID is the peer's already. */
		if (!rc && lne_nid_equal(&nid, &primary))
			continue;
		if (!rc) {
			rc = lne_peer_add_nid_to(inst, peer, &nid, &err);
			if (rc)
				lnk_nl_engine_refusal(extack, na, rc, &err);
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

static int do_peer_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return lnk_nl_peer_add_nest(ln->inst, info->attrs[LNETK_A_PEER], info->extack);
}

int lnk_nl_peer_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_PEER) ? lnk_nl_change(info, do_peer_add, 0) : -EINVAL;
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

	rc = lnk_nl_parse_nest(tb, LNETK_PEER_A_MAX, nest, lnk_nl_peer_policy, info->extack);
	if (!rc)
		rc = lnk_nl_only(tb, LNETK_PEER_A_MAX,
				 BIT(LNETK_PEER_A_PRIMARY) | BIT(LNETK_PEER_A_PEER_NI),
				 info->extack);
	if (rc)
		return rc;
	a = lnk_nl_need(tb, LNETK_PEER_A_PRIMARY, "LNETK_PEER_A_PRIMARY", nest, info->extack);
	if (!a)
		return -EINVAL;
	rc = lnk_nl_get_nid(a, &primary, info->extack);
	if (rc)
		return rc;
	peer = lne_peer_find(ln->inst, &primary);
	if (!peer)
		return lnk_nl_refuse(info->extack, a, -ENOENT, "no peer has this primary NID");
	if (!tb[LNETK_PEER_A_PEER_NI]) {
		rc = lne_peer_del(ln->inst, &primary, &err);
		return rc ? lnk_nl_engine_refusal(info->extack, a, rc, &err) : 0;
	}
	/*
	 * The peer's other NIDs listed so far, each once: a NID listed twice
	 * must not count twice when the primary asks whether all the others go.
	 */
	seen = kvmalloc_array(peer->npni, sizeof(*seen), GFP_KERNEL);
	if (!seen)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	/* Check every NID first, delete after: all or nothing. */
	for (pass = 0; pass < 2; pass++) {
		nla_for_each_nested(p, nest, rem) {
			struct lne_peer_ni *pni;

			if (nla_type(p) != LNETK_PEER_A_PEER_NI)
				continue;
			rc = lnk_nl_parse_nest(ptb, LNETK_PNI_A_MAX, p, lnk_nl_pni_policy,
					       info->extack);
			if (!rc)
				rc = lnk_nl_only(ptb, LNETK_PNI_A_MAX, BIT(LNETK_PNI_A_NID),
						 info->extack);
			if (!rc &&
			    !lnk_nl_need(ptb, LNETK_PNI_A_NID, "LNETK_PNI_A_NID", p, info->extack))
				rc = -EINVAL;
			if (!rc)
				rc = lnk_nl_get_nid(ptb[LNETK_PNI_A_NID], &nid, info->extack);
			if (rc)
				goto out;
			if (lne_nid_equal(&nid, &primary)) {
				primary_too = true;
				continue;
			}
			pni = lne_peer_ni_find(ln->inst, &nid);
			if (!pass && (!pni || lne_peer_of(pni) != peer)) {
				rc = lnk_nl_refuse(info->extack, p, -ENOENT,
						   "not a NID of this peer");
				goto out;
			}
			if (!pass && pni->gw_refs) {
				rc = lnk_nl_refuse(
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
			rc = lnk_nl_refuse(
				info->extack, a, -EBUSY,
				"the primary NID goes only with all the peer's other NIDs; delete the peer instead");
			goto out;
		}
		if (!pass && primary_too && lne_peer_ni_find(ln->inst, &primary)->gw_refs) {
			rc = lnk_nl_refuse(
				info->extack, a, -EBUSY,
				"the primary NID is a route's gateway; delete the routes first");
			goto out;
		}
	}
	/* The primary goes last, and only with every other NID. */
	if (primary_too) {
		rc = lne_peer_del_nid(ln->inst, &primary, &primary, &err);
		if (rc)
			rc = lnk_nl_engine_refusal(info->extack, a, rc, &err);
	}
out:
	kvfree(seen);
	return rc;
}

int lnk_nl_peer_del(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_PEER) ? lnk_nl_change(info, do_peer_del, 0) : -EINVAL;
}

static int do_peer_ni_set(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_PEER_NI], *tb[LNETK_PNI_A_MAX + 1];
	struct lne_err err;
	struct lne_nid nid;
	int rc;

	rc = lnk_nl_parse_nest(tb, LNETK_PNI_A_MAX, nest, lnk_nl_pni_policy, info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_PNI_A_NID, "LNETK_PNI_A_NID", nest, info->extack))
		return -EINVAL;
	rc = lnk_nl_get_nid(tb[LNETK_PNI_A_NID], &nid, info->extack);
	if (rc)
		return rc;
	if (!tb[LNETK_PNI_A_HEALTH] && !tb[LNETK_PNI_A_CREDITS])
		return lnk_nl_refuse(info->extack, nest, -EINVAL,
				     "give LNETK_PNI_A_HEALTH or LNETK_PNI_A_CREDITS");
	if (!lne_peer_ni_find(ln->inst, &nid)) {
		lne_err_set(&err, -ENOENT, nla_data(tb[LNETK_PNI_A_NID]), -1,
			    "no peer has this NID");
		return lnk_nl_engine_refusal(info->extack, tb[LNETK_PNI_A_NID], -ENOENT, &err);
	}
	if (tb[LNETK_PNI_A_HEALTH])
		lne_peer_ni_set_health(ln->inst, &nid, nla_get_u32(tb[LNETK_PNI_A_HEALTH]), NULL);
	if (tb[LNETK_PNI_A_CREDITS])
		lne_peer_ni_set_credits(ln->inst, &nid, nla_get_s32(tb[LNETK_PNI_A_CREDITS]), NULL);
	return 0;
}

int lnk_nl_peer_ni_set(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_PEER_NI) ? lnk_nl_change(info, do_peer_ni_set, 0) : -EINVAL;
}

static int nl_put_prefs(struct sk_buff *skb, int type, const struct lne_pref *p, u16 n, bool gw)
{
	u16 i;

	for (i = 0; i < n; i++) {
		const struct lne_nid *nid = gw ? &((const struct lne_peer_ni *)p[i].target)->nid
					       : &((const struct lne_ni *)p[i].target)->nid;
		struct nlattr *nest = nla_nest_start(skb, type);

		if (!nest || lnk_nl_put_nid(skb, LNETK_PREF_A_NID, nid) ||
		    nla_put_u32(skb, LNETK_PREF_A_PRIO, p[i].rule->prio) ||
		    nla_put_u32(skb, LNETK_PREF_A_RULE, p[i].rule->idx))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int nl_put_pni(struct sk_buff *skb, const struct lne_inst *inst,
		      const struct lne_peer_ni *pni)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_PEER_A_PEER_NI);
	const struct lne_prefs *pr = pni->prefs;

	/* `peer show`'s state goes out as it is: upstream's NA is UNKNOWN */
	BUILD_BUG_ON((int)LNE_PNI_NA != LNETK_NI_STATUS_UNKNOWN ||
		     (int)LNE_PNI_UP != LNETK_NI_STATUS_UP ||
		     (int)LNE_PNI_DOWN != LNETK_NI_STATUS_DOWN);

	if (!nest)
		return -EMSGSIZE;
	if (lnk_nl_put_nid(skb, LNETK_PNI_A_NID, &pni->nid) ||
	    nla_put_u32(skb, LNETK_PNI_A_HEALTH, pni->health) ||
	    nla_put_s32(skb, LNETK_PNI_A_CREDITS, pni->credits) ||
	    nla_put_u32(skb, LNETK_PNI_A_PRIO, pni->prio) ||
	    nla_put_s32(skb, LNETK_PNI_A_PRIO_RULE, lne_rule_idx(pni->prio_rule)) ||
	    nla_put_u32(skb, LNETK_PNI_A_NET_PRIO, pni->pnet->rnet->prio.value) ||
	    nla_put_s32(skb, LNETK_PNI_A_NET_PRIO_RULE, lne_rule_idx(pni->pnet->rnet->prio.rule)) ||
	    nla_put_u32(skb, LNETK_PNI_A_GW_ROUTES, pni->gw_refs) ||
	    nla_put_u8(skb, LNETK_PNI_A_DISCOVERED, pni->discovered) ||
	    nla_put_u8(skb, LNETK_PNI_A_STATE, lne_peer_ni_state(inst, pni)) ||
	    (pr && nl_put_prefs(skb, LNETK_PNI_A_PREF_SRC, pr->src, pr->nsrc, false)) ||
	    (pr && nl_put_prefs(skb, LNETK_PNI_A_PREF_GW, pr->gw, pr->ngw, true))) {
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
static int nl_put_peer(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd,
		       struct netlink_callback *cb, const struct lne_inst *inst,
		       const struct lne_peer *peer, u32 skip, const u64 *generation)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct nlattr *nest;
	u32 i = 0, put = 0;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &lnk_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (generation && nla_put_u64_64bit(skb, LNETK_A_GENERATION, *generation, LNETK_A_PAD))
		goto full;
	nest = nla_nest_start(skb, LNETK_A_PEER);
	if (!nest || lnk_nl_put_nid(skb, LNETK_PEER_A_PRIMARY, &peer->primary) ||
	    nla_put_u8(skb, LNETK_PEER_A_MR, peer->mr) ||
	    nla_put_u8(skb, LNETK_PEER_A_IMPLICIT, peer->implicit) ||
	    nla_put_u8(skb, LNETK_PEER_A_DISCOVERED, peer->discovered))
		goto full;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			if (i++ < skip)
				continue;
			if (nl_put_pni(skb, inst, pni))
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

int lnk_nl_peer_get(struct sk_buff *skb, struct genl_info *info)
{
	struct lnetk_net *ln = lnetk_net(genl_info_net(info));
	struct nlattr *nest = OBJECT(info, LNETK_A_PEER), *tb[LNETK_PEER_A_MAX + 1];
	struct lne_peer_ni *pni;
	struct sk_buff *reply;
	struct lne_nid nid;
	int rc;

	if (!nest)
		return -EINVAL;
	rc = lnk_nl_parse_nest(tb, LNETK_PEER_A_MAX, nest, lnk_nl_peer_policy, info->extack);
	if (!rc)
		rc = lnk_nl_only(tb, LNETK_PEER_A_MAX, BIT(LNETK_PEER_A_PRIMARY), info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_PEER_A_PRIMARY, "LNETK_PEER_A_PRIMARY", nest, info->extack))
		return -EINVAL;
	rc = lnk_nl_get_nid(tb[LNETK_PEER_A_PRIMARY], &nid, info->extack);
	if (rc)
		return rc;
	/* A peer may be big: a generous reply, all of it in one message. */
	reply = genlmsg_new(GENLMSG_DEFAULT_SIZE * 16, GFP_KERNEL);
	if (!reply)
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	mutex_lock(&ln->lock);
	pni = lne_peer_ni_find(ln->inst, &nid);
	rc = pni ? nl_put_peer(reply, info->snd_portid, info->snd_seq, 0, LNETK_CMD_PEER_GET, NULL,
			       ln->inst, lne_peer_of(pni), 0, &ln->generation)
		 : -ENOENT;
	if (rc >= 0 && lne_peer_of(pni)->npni > (u32)rc)
		rc = -EMSGSIZE;
	mutex_unlock(&ln->lock);
	if (rc < 0) {
		nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, tb[LNETK_PEER_A_PRIMARY], rc,
				     rc == -ENOENT
					     ? "no peer has this NID"
					     : "the peer is too big for one message; dump it");
	}
	return genlmsg_reply(reply, info);
}

static int peer_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lnetk_net *ln = lnk_nl_dump_begin(skb, cb);
	struct lnk_nl_dump_ctx *ctx = lnk_nl_dump_ctx(cb);
	const struct lne_peer *peer;
	int rc = 0, put;

	for (;;) {
		peer = ctx->cur ? ctx->cur : lne_peer_next(ln->inst, &ctx->c);
		if (!peer)
			break;
		put = nl_put_peer(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, NLM_F_MULTI,
				  LNETK_CMD_PEER_GET, cb, ln->inst, peer, ctx->cur ? ctx->done : 0,
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
	return lnk_nl_dump_end(ln, skb, rc);
}

/* A dump of every peer takes no attribute. */
int lnk_nl_peer_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnk_nl_dump_only(cb, 0) ?: peer_dump(skb, cb);
}
