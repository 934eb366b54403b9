// SPDX-License-Identifier: GPL-2.0
/*
 * change-rule.c - a change's UDSP rule operations (add, delete): each
 * field of engine/rule-attrs.h from the op to the engine mirror and back
 * to the store, row by row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "engine/udsp.h"

/*
 * A rule as the store keeps it, row by row of rule-attrs.h: canonical
 * texts, NULL for absent expressions, ST_UNSET for no priority (st_rule_clear()).
 */
static int rule_texts(const struct lne_rule *r, struct st_rule *sr)
{
	int a;

	*sr = (struct st_rule){.pos = r->idx};
	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR: {
			const struct lne_expr *e = lne_rule_expr(r, a);

			if (e && !(*st_rule_expr(sr, a) = lne_expr_text(e))) {
				st_rule_clear(sr);
				return -ENOMEM;
			}
			break;
		}
		case LNE_RULE_K_PRIO: {
			u32 v = lne_rule_num(r, a);

			*st_rule_prio(sr, a) = v == LNE_PRIO_NONE ? ST_UNSET : (int64_t)v;
			break;
		}
		}
	return 0;
}

/* The op's fields, row by row of rule-attrs.h: an absent expression NULL, a number in range. */
#define RULE_CONF(id, name, kind, ...) RULE_CONF_##kind(name)
#define RULE_CONF_EXPR(name)	       c->name = lnetd_opt(op->u.rule.name);
#define RULE_CONF_PRIO(name)                                                             \
	if (numbers && op->u.rule.name != ST_UNSET &&                                    \
	    (op->u.rule.name < 0 || op->u.rule.name > LNE_PRIO_MAX))                     \
		return lnetd_say(m, -ERANGE, "%s %lld is out of range (0 to %u)", #name, \
				 (long long)op->u.rule.name, LNE_PRIO_MAX);              \
	c->name = !numbers || op->u.rule.name == ST_UNSET ? LNE_PRIO_NONE : (u32)op->u.rule.name;

/* @numbers: an add's; a delete names its rule by the expressions alone. */
static int rule_conf(const struct lnetd_op *op, struct lne_rule_conf *c, bool numbers,
		     struct lnetd_msg *m)
{
	LNE_RULE_ATTRS(RULE_CONF)
	return 0;
}

static int op_rule_add(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	struct lne_rule_conf c;
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	enum lne_rule_outcome outcome;
	struct st_rule sr, old = {0};
	bool same;
	const struct lne_rule *r;
	int64_t pos;
	int rc;

	rc = rule_conf(op, &c, true, m);
	if (rc)
		return rc;
	if (op->u.rule.idx != ST_UNSET && (op->u.rule.idx < 0 || op->u.rule.idx > UINT32_MAX))
		return lnetd_say(m, -ERANGE, "idx %lld is out of range", (long long)op->u.rule.idx);
	/* A net or NID rule without a priority gets 0, the highest, as Lustre's
	 * lnetctl udsp add gives it; NID pair and router rules need none. */
	if (c.priority == LNE_PRIO_NONE && !c.rte && !c.src != !c.dst)
		c.priority = 0;
	rc = lne_rule_add(d->mirror, &c, op->u.rule.idx == ST_UNSET ? -1 : op->u.rule.idx, &outcome,
			  &op->idx, &lerr);
	if (rc == -EEXIST && op->ensure)
		return 0; /* the same rule with the same priority is there */
	if (rc)
		return lnetd_say(m, rc, "%s", lerr.msg);
	op->updated = outcome == LNE_RULE_UPDATED;
	r = lne_rule_at(d->mirror, op->idx);
	/* lnetctl selection net|nid|peer promise a kind: an expression that makes another
	 * kind is refused rather than becoming a rule the command did not mean. */
	if (lnetd_opt(op->u.rule.kind) && strcmp(lne_rule_kind_name(r->kind), op->u.rule.kind))
		return lnetd_say(m, -EINVAL, "these expressions make a %s rule, not a %s rule",
				 lne_rule_kind_name(r->kind), op->u.rule.kind);
	if (rule_texts(r, &sr))
		return lnetd_say(m, -ENOMEM, "out of memory");
	if (op->updated) {
		/* Same matchers: the rule takes its new fields, where it is. */
		same = !store_rule_get(d->store, op->idx, &old, NULL) && st_rule_same(&old, &sr);
		st_rule_clear(&old);
		rc = same ? 0 : store_rule_update(d->store, &sr, &serr);
	} else {
		rc = store_rule_add(d->store, &sr, &pos, &serr);
	}
	st_rule_clear(&sr);
	return rc ? lnetd_say_store(m, rc, &serr) : 0;
}

static int op_rule_del(struct lnetd *d, struct lnetd_op *op, struct lnetd_msg *m)
{
	struct lne_err lerr = {.msg = ""};
	struct store_err serr = {""};
	int rc;

	if (op->u.rule.all) {
		lne_rule_del_all(d->mirror);
		rc = store_rule_del_all(d->store, &serr);
		return rc ? lnetd_say_store(m, rc, &serr) : 0;
	}
	/* By its expressions (the Multi-Rail design's way), and its idx if given too. */
	if (lnetd_opt(op->u.rule.src) || lnetd_opt(op->u.rule.dst) || lnetd_opt(op->u.rule.rte)) {
		u32 found;

		struct lne_rule_conf c;

		rc = rule_conf(op, &c, false, m);
		if (rc)
			return rc;
		rc = lne_rule_find(d->mirror, &c, &found, &lerr);
		if (rc == -ENOENT && op->ensure)
			return 0;
		if (rc)
			return lnetd_say(m, rc, "%s", lerr.msg);
		if (op->u.rule.idx != ST_UNSET && op->u.rule.idx != found)
			return lnetd_say(
				m, -EINVAL,
				"rule %lld is not the rule with these expressions (rule %u is)",
				(long long)op->u.rule.idx, found);
		op->u.rule.idx = found;
	}
	if (op->u.rule.idx < 0 || op->u.rule.idx > UINT32_MAX ||
	    !lne_rule_at(d->mirror, (u32)op->u.rule.idx))
		return op->ensure ? 0
				  : lnetd_say(m, -ENOENT, "there is no rule %lld (%u rules)",
					      (long long)op->u.rule.idx, d->mirror->udsp.nrules);
	rc = lne_rule_del(d->mirror, (u32)op->u.rule.idx, &lerr);
	if (rc)
		return lnetd_say(m, rc, "%s", lerr.msg);
	rc = store_rule_del(d->store, op->u.rule.idx, &serr);
	return rc ? lnetd_say_store(m, rc, &serr) : 0;
}

void lnetd_rule_conf_of(const struct st_rule *r, struct lne_rule_conf *c)
{
	int a;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		switch (lne_rule_desc[a].kind) {
		case LNE_RULE_K_EXPR:
			*lne_rule_conf_expr(c, a) = *st_rule_expr(r, a);
			break;
		case LNE_RULE_K_PRIO:
			*lne_rule_conf_prio(c, a) = *st_rule_prio(r, a) == ST_UNSET
							    ? LNE_PRIO_NONE
							    : (u32)*st_rule_prio(r, a);
			break;
		}
}

int lnetd_rule_op(struct lnetd *d, struct lnetd_op *op, char *msg, size_t len)
{
	struct lnetd_msg m = {.s = msg, .len = len};

	return op->verb == VERB_ADD ? op_rule_add(d, op, &m) : op_rule_del(d, op, &m);
}
