// SPDX-License-Identifier: GPL-2.0
/*
 * rule.c - UDSP rules (RULE_ADD, RULE_DEL, the RULE_GET dump) and what
 * they decide: SELECT and EXPLAIN.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-int.h"

static size_t rule_size(const struct lnetk_rule *r)
{
	return 128 + (r->src ? strlen(r->src) : 0) + (r->dst ? strlen(r->dst) : 0) +
	       (r->rte ? strlen(r->rte) : 0);
}

int lk_put_rule(struct nl_msg *msg, const void *in)
{
	const struct lnetk_rule *r = in;
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_RULE);

	if (!nest || (r->src && nla_put_string(msg, LNETK_RULE_A_SRC, r->src) < 0) ||
	    (r->dst && nla_put_string(msg, LNETK_RULE_A_DST, r->dst) < 0) ||
	    (r->rte && nla_put_string(msg, LNETK_RULE_A_RTE, r->rte) < 0) ||
	    (r->prio != LNETK_PRIO_NONE && nla_put_u32(msg, LNETK_RULE_A_PRIORITY, r->prio) < 0) ||
	    (r->idx >= 0 && nla_put_u32(msg, LNETK_RULE_A_IDX, (uint32_t)r->idx) < 0))
		return -NLE_NOMEM;
	/* A rule with nothing in it is for the kernel to refuse: keep the empty nest. */
	return nla_nest_end_keep_empty(msg, nest);
}

static const struct nla_policy rule_policy[LNETK_RULE_A_MAX + 1] = {
	[LNETK_RULE_A_SRC] = {.type = NLA_STRING}, [LNETK_RULE_A_DST] = {.type = NLA_STRING},
	[LNETK_RULE_A_RTE] = {.type = NLA_STRING}, [LNETK_RULE_A_PRIORITY] = {.type = NLA_U32},
	[LNETK_RULE_A_IDX] = {.type = NLA_U32},	   [LNETK_RULE_A_KIND] = {.type = NLA_U8},
	[LNETK_RULE_A_OUTCOME] = {.type = NLA_U8},
};

struct rule_added {
	enum lnetk_rule_outcome *outcome;
	uint32_t *idx;
};

static int parse_rule_added(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_RULE_A_MAX + 1];
	struct rule_added *out = rq->arg;

	if (!tb[LNETK_A_RULE] ||
	    nla_parse_nested(rtb, LNETK_RULE_A_MAX, tb[LNETK_A_RULE], rule_policy) < 0 ||
	    !rtb[LNETK_RULE_A_IDX] || !rtb[LNETK_RULE_A_OUTCOME])
		return -EPROTO;
	if (out->idx)
		*out->idx = nla_get_u32(rtb[LNETK_RULE_A_IDX]);
	if (out->outcome)
		*out->outcome = (enum lnetk_rule_outcome)nla_get_u8(rtb[LNETK_RULE_A_OUTCOME]);
	return 0;
}

int lnetk_rule_add(struct lnetk *lk, const struct lnetk_rule *rule,
		   enum lnetk_rule_outcome *outcome, uint32_t *idx, struct lnetk_err *err)
{
	struct rule_added out = {outcome, idx};
	struct req rq = {.err = err, .parse = parse_rule_added, .arg = &out};

	return lk_run(lk, LNETK_CMD_RULE_ADD, 0, rule_size(rule), lk_put_rule, rule, &rq);
}

static int put_rule_idx(struct nl_msg *msg, const void *in)
{
	struct nlattr *nest = nla_nest_start(msg, LNETK_A_RULE);

	if (!nest || nla_put_u32(msg, LNETK_RULE_A_IDX, *(const uint32_t *)in) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

int lnetk_rule_del(struct lnetk *lk, uint32_t idx, struct lnetk_err *err)
{
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_RULE_DEL, 0, 64, put_rule_idx, &idx, &rq);
}

static int put_flags(struct nl_msg *msg, const void *in)
{
	return nla_put_u32(msg, LNETK_A_FLAGS, *(const uint32_t *)in);
}

int lnetk_rule_del_all(struct lnetk *lk, struct lnetk_err *err)
{
	uint32_t flags = LNETK_F_ALL;
	struct req rq = {.err = err};

	return lk_run(lk, LNETK_CMD_RULE_DEL, 0, 64, put_flags, &flags, &rq);
}

static const char *str_or_null(const struct nlattr *a)
{
	return a ? nla_data(a) : NULL;
}

static int parse_rule_dump(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *rtb[LNETK_RULE_A_MAX + 1];
	struct dump *d = rq->arg;
	struct lnetk_rule r;

	/* NLA_STRING in the policy guarantees the NUL the pointers below rely on. */
	if (!tb[LNETK_A_RULE] ||
	    nla_parse_nested(rtb, LNETK_RULE_A_MAX, tb[LNETK_A_RULE], rule_policy) < 0 ||
	    !rtb[LNETK_RULE_A_IDX])
		return -EPROTO;
	r.src = str_or_null(rtb[LNETK_RULE_A_SRC]);
	r.dst = str_or_null(rtb[LNETK_RULE_A_DST]);
	r.rte = str_or_null(rtb[LNETK_RULE_A_RTE]);
	r.prio = get_u32_or(rtb[LNETK_RULE_A_PRIORITY], LNETK_PRIO_NONE);
	r.idx = nla_get_u32(rtb[LNETK_RULE_A_IDX]);
	r.kind = rtb[LNETK_RULE_A_KIND] ? nla_get_u8(rtb[LNETK_RULE_A_KIND]) : 0;
	return cb_rc(d->cb.rule(&r, d->arg));
}

int lnetk_rule_dump(struct lnetk *lk, lnetk_rule_cb cb, void *arg, struct lnetk_err *err)
{
	struct dump d = {.cb.rule = cb, .arg = arg};
	struct req rq = {.err = err, .parse = parse_rule_dump, .arg = &d};

	return lk_run(lk, LNETK_CMD_RULE_GET, NLM_F_DUMP, 0, NULL, NULL, &rq);
}

/* --- selection ------------------------------------------------------------------------ */

struct select_in {
	const struct lnetk_select_req *req;
	bool explain;
};

static int put_select(struct nl_msg *msg, const void *in)
{
	const struct select_in *s = in;
	const struct lnetk_select_req *req = s->req;
	struct nlattr *nest;

	if (s->explain && nla_put_u32(msg, LNETK_A_FLAGS, LNETK_F_EXPLAIN) < 0)
		return -NLE_NOMEM;
	nest = nla_nest_start(msg, LNETK_A_SELECT);
	if (!nest || nla_put_string(msg, LNETK_SEL_A_DST, req->dst) < 0 ||
	    (req->src && nla_put_string(msg, LNETK_SEL_A_SRC, req->src) < 0) ||
	    nla_put_u8(msg, LNETK_SEL_A_KIND, req->kind) < 0 ||
	    nla_put_s32(msg, LNETK_SEL_A_MD_CPT, req->md_cpt) < 0)
		return -NLE_NOMEM;
	return nla_nest_end(msg, nest);
}

static const struct nla_policy sel_policy[LNETK_SEL_A_MAX + 1] = {
	[LNETK_SEL_A_NI] = {.type = NLA_STRING},
	[LNETK_SEL_A_PEER_NI] = {.type = NLA_STRING},
	[LNETK_SEL_A_GATEWAY] = {.type = NLA_STRING},
	[LNETK_SEL_A_ENTRY] = {.type = NLA_NESTED},
};

static const struct nla_policy entry_policy[LNETK_ENTRY_A_MAX + 1] = {
	[LNETK_ENTRY_A_STEP] = {.type = NLA_U8},    [LNETK_ENTRY_A_NID] = {.type = NLA_STRING},
	[LNETK_ENTRY_A_CRIT] = {.type = NLA_U8},    [LNETK_ENTRY_A_LOST_AT] = {.type = NLA_U8},
	[LNETK_ENTRY_A_KEY] = {.type = NLA_NESTED},
};

static const struct nla_policy key_policy[LNETK_KEY_A_MAX + 1] = {
	[LNETK_KEY_A_CRIT] = {.type = NLA_U8},
	[LNETK_KEY_A_VALUE] = {.type = NLA_U64},
	[LNETK_KEY_A_RULE] = {.type = NLA_U32},
};

static int parse_entry(struct nlattr *nest, struct lnetk_entry *e)
{
	struct nlattr *tb[LNETK_ENTRY_A_MAX + 1], *a;
	int rem, rc;

	memset(e, 0, sizeof(*e));
	if (nla_parse_nested(tb, LNETK_ENTRY_A_MAX, nest, entry_policy) < 0)
		return -EPROTO;
	e->step = tb[LNETK_ENTRY_A_STEP] ? nla_get_u8(tb[LNETK_ENTRY_A_STEP]) : 0;
	e->crit = tb[LNETK_ENTRY_A_CRIT] ? nla_get_u8(tb[LNETK_ENTRY_A_CRIT]) : 0;
	e->lost_at = tb[LNETK_ENTRY_A_LOST_AT] ? nla_get_u8(tb[LNETK_ENTRY_A_LOST_AT]) : 0;
	rc = lk_get_str(e->nid, sizeof(e->nid), tb[LNETK_ENTRY_A_NID]);
	if (rc)
		return rc;
	nla_for_each_nested(a, nest, rem) {
		struct nlattr *ktb[LNETK_KEY_A_MAX + 1];
		struct lnetk_key *k;

		if (nla_type(a) != LNETK_ENTRY_A_KEY)
			continue;
		if (e->nkeys == LNETK_ENTRY_KEYS_MAX)
			return -EPROTO;
		if (nla_parse_nested(ktb, LNETK_KEY_A_MAX, a, key_policy) < 0)
			return -EPROTO;
		k = &e->key[e->nkeys++];
		k->crit = ktb[LNETK_KEY_A_CRIT] ? nla_get_u8(ktb[LNETK_KEY_A_CRIT]) : 0;
		k->value = ktb[LNETK_KEY_A_VALUE] ? (int64_t)nla_get_u64(ktb[LNETK_KEY_A_VALUE])
						  : 0;
		k->rule = get_s32_or(ktb[LNETK_KEY_A_RULE], -1);
	}
	return 0;
}

struct select_out {
	struct lnetk_selection *sel;
	struct lnetk_explain *ex;
};

static int parse_select(struct req *rq, struct nlattr **tb, struct nlmsghdr *nlh __maybe_unused)
{
	struct nlattr *stb[LNETK_SEL_A_MAX + 1], *a;
	struct select_out *out = rq->arg;
	int rem, rc;

	if (!tb[LNETK_A_SELECT] ||
	    nla_parse_nested(stb, LNETK_SEL_A_MAX, tb[LNETK_A_SELECT], sel_policy) < 0 ||
	    !stb[LNETK_SEL_A_NI] || !stb[LNETK_SEL_A_PEER_NI])
		return -EPROTO;
	rc = lk_get_str(out->sel->ni, sizeof(out->sel->ni), stb[LNETK_SEL_A_NI]);
	if (!rc)
		rc = lk_get_str(out->sel->peer_ni, sizeof(out->sel->peer_ni),
				stb[LNETK_SEL_A_PEER_NI]);
	if (!rc)
		rc = lk_get_str(out->sel->gateway, sizeof(out->sel->gateway),
				stb[LNETK_SEL_A_GATEWAY]);
	if (rc || !out->ex)
		return rc;
	nla_for_each_nested(a, tb[LNETK_A_SELECT], rem) {
		if (nla_type(a) != LNETK_SEL_A_ENTRY)
			continue;
		if (out->ex->n == out->ex->cap) {
			out->ex->dropped++;
			continue;
		}
		rc = parse_entry(a, &out->ex->ent[out->ex->n]);
		if (rc)
			return rc;
		out->ex->n++;
	}
	return 0;
}

static int select_run(struct lnetk *lk, uint8_t cmd, const struct lnetk_select_req *req,
		      struct lnetk_selection *sel, struct lnetk_explain *ex, bool flag,
		      struct lnetk_err *err)
{
	struct select_in in = {req, flag};
	struct select_out out = {sel, ex};
	struct req rq = {.err = err, .parse = parse_select, .arg = &out};

	memset(sel, 0, sizeof(*sel));
	if (ex)
		ex->n = ex->dropped = 0;
	return lk_run(lk, cmd, 0, 256, put_select, &in, &rq);
}

int lnetk_select(struct lnetk *lk, const struct lnetk_select_req *req, struct lnetk_selection *sel,
		 struct lnetk_explain *ex, struct lnetk_err *err)
{
	return select_run(lk, LNETK_CMD_SELECT, req, sel, ex, ex != NULL, err);
}

int lnetk_explain(struct lnetk *lk, const struct lnetk_select_req *req, struct lnetk_selection *sel,
		  struct lnetk_explain *ex, struct lnetk_err *err)
{
	return select_run(lk, LNETK_CMD_EXPLAIN, req, sel, ex, false, err);
}
