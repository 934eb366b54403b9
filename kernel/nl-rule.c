// SPDX-License-Identifier: GPL-2.0
/*
 * nl-rule.c - the genl commands of UDSP: rules (RULE_ADD, RULE_DEL, the
 * dump of RULE_GET), and the selection they steer (SELECT, EXPLAIN), which
 * runs under the instance's reader lock.
 */
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "engine/model.h"
#include "engine/select.h"
#include "engine/udsp.h"
#include "instance.h"
#include "nl-int.h"
#include "uapi/lnetk.h"

/* --- rules --------------------------------------------------------------------------- */

static const char *nl_str_or_null(const struct nlattr *a)
{
	return a ? nla_data(a) : NULL;
}

int lnk_nl_rule_add_nest(struct lne_inst *inst, const struct nlattr *nest, struct sk_buff *reply,
			 struct netlink_ext_ack *extack)
{
	static const u16 genl[LNE_RULE_A__COUNT] = {LNE_RULE_ATTRS(LNE_RULE_GENL)};
	struct nlattr *tb[LNETK_RULE_A_MAX + 1], *r;
	enum lne_rule_outcome outcome;
	struct lne_rule_conf c;
	struct lne_err err;
	s64 idx = -1;
	int rc, a;
	u32 at;

	rc = lnk_nl_parse_nest(tb, LNETK_RULE_A_MAX, nest, lnk_nl_rule_policy, extack);
	if (rc)
		return rc;
	/* Each field of engine/rule-attrs.h from its attribute. */
	lne_rule_conf_init(&c);
	for (a = 0; a < LNE_RULE_A__COUNT; a++) {
		if (!tb[genl[a]])
			continue;
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR:
			*lne_rule_conf_expr(&c, a) = nl_str_or_null(tb[genl[a]]);
			break;
		case LNE_RULE_K_PRIO:
			*lne_rule_conf_prio(&c, a) = nla_get_u32(tb[genl[a]]);
			break;
		}
	}
	if (tb[LNETK_RULE_A_IDX])
		idx = nla_get_u32(tb[LNETK_RULE_A_IDX]);
	rc = lne_rule_add(inst, &c, idx, &outcome, &at, &err);
	if (rc)
		return lnk_nl_engine_refusal(extack, nest, rc, &err);
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

static int do_rule_add(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	return lnk_nl_rule_add_nest(ln->inst, info->attrs[LNETK_A_RULE], reply, info->extack);
}

int lnk_nl_rule_add(struct sk_buff *skb, struct genl_info *info)
{
	return OBJECT(info, LNETK_A_RULE) ? lnk_nl_change(info, do_rule_add, 64) : -EINVAL;
}

static int do_rule_del(struct lnetk_net *ln, struct genl_info *info, struct sk_buff *reply)
{
	struct nlattr *nest = info->attrs[LNETK_A_RULE], *tb[LNETK_RULE_A_MAX + 1];
	struct lne_err err;
	int rc;

	if (lnk_nl_flags(info) & LNETK_F_ALL) {
		lne_rule_del_all(ln->inst);
		return 0;
	}
	rc = lnk_nl_parse_nest(tb, LNETK_RULE_A_MAX, nest, lnk_nl_rule_policy, info->extack);
	if (!rc)
		rc = lnk_nl_only(tb, LNETK_RULE_A_MAX, BIT(LNETK_RULE_A_IDX), info->extack);
	if (rc)
		return rc;
	if (!lnk_nl_need(tb, LNETK_RULE_A_IDX, "LNETK_RULE_A_IDX", nest, info->extack))
		return -EINVAL;
	rc = lne_rule_del(ln->inst, nla_get_u32(tb[LNETK_RULE_A_IDX]), &err);
	return rc ? lnk_nl_engine_refusal(info->extack, tb[LNETK_RULE_A_IDX], rc, &err) : 0;
}

int lnk_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	u32 flags = lnk_nl_flags(info);
	int rc = lnk_nl_info_only(info, BIT(LNETK_A_RULE) | BIT(LNETK_A_FLAGS));

	if (rc)
		return rc;
	rc = lnk_nl_flags_only(info, LNETK_F_ALL);
	if (rc)
		return rc;
	if (!(flags & LNETK_F_ALL) == !info->attrs[LNETK_A_RULE])
		return lnk_nl_refuse(info->extack, NULL, -EINVAL,
				     "give either LNETK_A_RULE with an idx, or LNETK_F_ALL");
	return lnk_nl_change(info, do_rule_del, 0);
}

static int nl_put_expr(struct sk_buff *skb, int type, const struct lne_expr *e)
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

static int nl_put_rule(struct sk_buff *skb, const struct lne_rule *r)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_A_RULE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LNETK_RULE_A_IDX, r->idx) ||
	    nla_put_u8(skb, LNETK_RULE_A_KIND, r->kind) ||
	    nl_put_expr(skb, LNETK_RULE_A_SRC, r->src) ||
	    nl_put_expr(skb, LNETK_RULE_A_DST, r->dst) ||
	    nl_put_expr(skb, LNETK_RULE_A_RTE, r->rte) ||
	    (r->prio != LNE_PRIO_NONE && nla_put_u32(skb, LNETK_RULE_A_PRIORITY, r->prio))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static void *rule_next(const struct lne_inst *inst, struct lne_cursor *c)
{
	return lne_rule_next(inst, c);
}

static int rule_put(struct sk_buff *skb, const void *r)
{
	return nl_put_rule(skb, r);
}

/* A dump of every rule takes no attribute; one rule per message. */
int lnk_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return lnk_nl_dump_only(cb, 0)
		       ?: lnk_nl_cursor_dump(skb, cb, LNETK_CMD_RULE_GET, rule_next, rule_put);
}

/* --- select -------------------------------------------------------------------- */

#define EXPLAIN_MAX 128

static int nl_put_entry(struct sk_buff *skb, const struct lne_exp_entry *e)
{
	struct nlattr *nest = nla_nest_start(skb, LNETK_SEL_A_ENTRY), *k;
	u8 i;

	if (!nest || nla_put_u8(skb, LNETK_ENTRY_A_STEP, e->step) ||
	    lnk_nl_put_nid(skb, LNETK_ENTRY_A_NID, &e->nid) ||
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
	struct nlattr *nest = lnk_nl_object(info, LNETK_A_SELECT, "LNETK_A_SELECT",
					    peek ? 0 : BIT(LNETK_A_FLAGS));
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY, .kind = LNE_MSG_PUT, .peek = peek};
	struct nlattr *tb[LNETK_SEL_A_MAX + 1], *out;
	struct lne_explain ex = {.cap = EXPLAIN_MAX};
	bool explain = peek || (lnk_nl_flags(info) & LNETK_F_EXPLAIN);
	struct lne_nid src;
	struct sk_buff *reply;
	struct lne_sel sel;
	struct lne_err err;
	void *hdr;
	u32 i;
	int rc;

	if (!nest)
		return -EINVAL;
	if (lnk_nl_flags_only(info, LNETK_F_EXPLAIN))
		return -EOPNOTSUPP;
	rc = lnk_nl_parse_nest(tb, LNETK_SEL_A_MAX, nest, lnk_nl_sel_policy, info->extack);
	if (rc)
		return rc;
	for (rc = LNETK_SEL_A_NI; rc <= LNETK_SEL_A_ENTRY; rc++)
		if (tb[rc])
			return lnk_nl_refuse(info->extack, tb[rc], -EINVAL,
					     "reply attributes are not input");
	if (!lnk_nl_need(tb, LNETK_SEL_A_DST, "LNETK_SEL_A_DST", nest, info->extack))
		return -EINVAL;
	rc = lnk_nl_get_nid(tb[LNETK_SEL_A_DST], &req.dst, info->extack);
	if (!rc && tb[LNETK_SEL_A_SRC]) {
		rc = lnk_nl_get_nid(tb[LNETK_SEL_A_SRC], &src, info->extack);
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
			return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	reply = lnk_nl_msg_new(info->snd_portid, info->snd_seq, info->genlhdr->cmd,
			       explain ? EXPLAIN_MAX * 320 : NLMSG_GOODSIZE, &hdr);
	if (!reply) {
		kfree(ex.ent);
		return lnk_nl_refuse(info->extack, NULL, -ENOMEM, "out of memory");
	}
	/* A reader: selections run side by side, changes wait (instance.h). */
	down_read(&ln->sel);
	rc = lne_select(ln->inst, &req, &sel, explain ? &ex : NULL, &err);
	if (rc) {
		up_read(&ln->sel);
		nlmsg_free(reply);
		kfree(ex.ent);
		return lnk_nl_engine_refusal(info->extack, tb[LNETK_SEL_A_DST], rc, &err);
	}
	out = nla_nest_start(reply, LNETK_A_SELECT);
	rc = !out || lnk_nl_put_nid(reply, LNETK_SEL_A_NI, &sel.ni->nid) ||
	     lnk_nl_put_nid(reply, LNETK_SEL_A_PEER_NI, &sel.pni->nid) ||
	     (sel.route && lnk_nl_put_nid(reply, LNETK_SEL_A_GATEWAY, &sel.route->gw->nid));
	for (i = 0; !rc && i < ex.n; i++)
		rc = nl_put_entry(reply, &ex.ent[i]);
	if (!rc) {
		nla_nest_end(reply, out);
		rc = nla_put_u64_64bit(reply, LNETK_A_GENERATION, READ_ONCE(ln->generation),
				       LNETK_A_PAD);
	}
	up_read(&ln->sel);
	kfree(ex.ent);
	if (rc) {
		nlmsg_free(reply);
		return lnk_nl_refuse(info->extack, NULL, -EMSGSIZE,
				     "the explanation did not fit the reply");
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

int lnk_nl_select(struct sk_buff *skb, struct genl_info *info)
{
	return select_doit(info, false);
}

int lnk_nl_explain(struct sk_buff *skb, struct genl_info *info)
{
	return select_doit(info, true);
}
