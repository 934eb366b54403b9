// SPDX-License-Identifier: GPL-2.0
/*
 * udsp.c - the UDSP rule list: rules parsed from their expressions' text,
 * kept in idx order, found by their expressions, added and deleted; what
 * each change does to the model is udsp-flat.c's.
 */
#include "udsp-int.h"

/* --- the rule list ----------------------------------------------------------------- */

struct lne_rule *lne_rule_at(const struct lne_inst *ln, u32 idx)
{
	const struct lne_list *pos;
	u32 i;

	if (idx >= ln->udsp.nrules)
		return NULL;
	/* From the nearer end: deleting every rule takes them from the tail. */
	if (idx < ln->udsp.nrules / 2)
		for (pos = ln->udsp.rules.next, i = 0; i < idx; i++)
			pos = pos->next;
	else
		for (pos = ln->udsp.rules.prev, i = ln->udsp.nrules - 1; i > idx; i--)
			pos = pos->prev;
	return lne_list_entry(pos, struct lne_rule, link);
}

const char *lne_rule_kind_name(enum lne_rule_kind kind)
{
	static const char *const names[] = {
		[LNE_RULE_SRC_NET] = "local net priority",
		[LNE_RULE_SRC_NID] = "local NID priority",
		[LNE_RULE_DST_NET] = "peer net priority",
		[LNE_RULE_DST_NID] = "peer NID priority",
		[LNE_RULE_PAIR] = "NID pair",
		[LNE_RULE_ROUTER] = "router",
	};

	return (unsigned int)kind < LNE_ARRAY_SIZE(names) ? names[kind] : "unknown";
}

/*
 * Give positions again from @pos (a rule's link, or the head) to the end,
 * @idx first: rules before an insertion or a removal keep theirs, so
 * appending (what a restore does 1,000 times) renumbers nothing else.
 */
static void renumber_from(struct lne_inst *ln, struct lne_list *pos, u32 idx)
{
	for (; pos != &ln->udsp.rules; pos = pos->next)
		lne_list_entry(pos, struct lne_rule, link)->idx = idx++;
}

/* Renumber after @r was linked in: from it on. */
static void renumber_added(struct lne_inst *ln, struct lne_rule *r)
{
	struct lne_list *prev = r->link.prev;

	if (prev == &ln->udsp.rules)
		renumber_from(ln, &r->link, 0);
	else
		renumber_from(ln, &r->link, lne_list_entry(prev, struct lne_rule, link)->idx + 1);
}

static void rule_free(struct lne_rule *r)
{
	lne_expr_free(r->src);
	lne_expr_free(r->dst);
	lne_expr_free(r->rte);
	lne_free(r);
}

/* "*@o2ib1" names the network, like "o2ib1"; "*.*.*.*@o2ib1" names NIDs. */
static bool names_nets(const struct lne_expr *e)
{
	u16 i;

	for (i = 0; i < e->npat; i++)
		if (e->pat[i].kind != LNE_PAT_NET && e->pat[i].kind != LNE_PAT_ANY)
			return false;
	return true;
}

static bool given(const char *s)
{
	return s && *s;
}

static int parse_part(const char *what, const char *text, struct lne_expr **e, struct lne_err *err)
{
	struct lne_err perr;
	int rc;

	if (!given(text))
		return 0;
	rc = lne_expr_parse(text, e, err ? &perr : NULL);
	if (rc && err && rc != -ENOMEM)
		lne_err_set(err, rc, NULL, perr.pos, "%s %s", what, perr.msg);
	return rc;
}

static bool expr_same(const struct lne_expr *a, const struct lne_expr *b)
{
	if (!a || !b)
		return a == b;
	return lne_expr_equal(a, b);
}

/*
 * A rule's key: equal expressions give equal keys, so finding a rule by its
 * expressions compares expressions only where the keys agree.  Adding 1,000
 * rules otherwise compares each with every earlier one.
 */
static u32 expr_key(const struct lne_expr *e)
{
	return e ? lne_expr_hash(e) : 0x5bd1e995u; /* absent: any constant, keys only filter */
}

static u32 rules_key(const struct lne_expr *src, const struct lne_expr *dst,
		     const struct lne_expr *rte)
{
	u32 h = expr_key(src);

	h = (h ^ expr_key(dst)) * 0x9e3779b1u;
	h = (h ^ (h >> 16) ^ expr_key(rte)) * 0x85ebca6bu;
	return h ^ (h >> 13);
}

/* The rule with these expressions (by meaning), or NULL. */
static struct lne_rule *rule_same(const struct lne_inst *ln, u32 key, const struct lne_expr *src,
				  const struct lne_expr *dst, const struct lne_expr *rte)
{
	struct lne_rule *r;

	for_each_rule(r, ln)
		if (r->key == key && expr_same(r->src, src) && expr_same(r->dst, dst) &&
		    expr_same(r->rte, rte))
			return r;
	return NULL;
}

/* @c's expressions, each row's of rule-attrs.h: e[row], NULL when absent. */
static int parse_exprs(const struct lne_rule_conf *c, struct lne_expr *e[LNE_RULE_A__COUNT],
		       struct lne_err *err)
{
	int a, rc = 0;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		e[a] = NULL;
	for (a = 0; !rc && a < LNE_RULE_A__COUNT; a++)
		if (lne_rule_desc[a].kind == LNE_RULE_K_EXPR)
			rc = parse_part(lne_rule_desc[a].name,
					*lne_rule_conf_expr((struct lne_rule_conf *)c, a), &e[a],
					err);
	return rc;
}

static void free_exprs(struct lne_expr *e[LNE_RULE_A__COUNT])
{
	int a;

	for (a = 0; a < LNE_RULE_A__COUNT; a++)
		lne_expr_free(e[a]);
}

int lne_rule_add(struct lne_inst *ln, const struct lne_rule_conf *c, s64 idx,
		 enum lne_rule_outcome *outcome, u32 *out_idx, struct lne_err *err)
{
	struct lne_expr *e[LNE_RULE_A__COUNT];
	struct lne_rule *r, *old, *at;
	u32 prio = c->priority;
	int rc;

	if (!((given(c->src) && !given(c->rte)) || (given(c->dst) && !given(c->src))))
		return lne_err_set(
			err, -EINVAL, NULL, -1,
			"a rule takes --src, --dst, --src with --dst, or --dst with --rte");
	r = lne_zalloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	rc = parse_exprs(c, e, err);
	r->src = e[LNE_RULE_A_SRC];
	r->dst = e[LNE_RULE_A_DST];
	r->rte = e[LNE_RULE_A_RTE];
	if (rc)
		goto fail;

	if (r->src && r->dst)
		r->kind = LNE_RULE_PAIR;
	else if (r->rte)
		r->kind = LNE_RULE_ROUTER;
	else if (r->src)
		r->kind = names_nets(r->src) ? LNE_RULE_SRC_NET : LNE_RULE_SRC_NID;
	else
		r->kind = names_nets(r->dst) ? LNE_RULE_DST_NET : LNE_RULE_DST_NID;
	if (prio != LNE_PRIO_NONE && prio > LNE_PRIO_MAX) {
		rc = lne_err_set(err, -ERANGE, NULL, -1, "priority %u is above %u", prio,
				 LNE_PRIO_MAX);
		goto fail;
	}
	if (prio == LNE_PRIO_NONE && r->kind != LNE_RULE_PAIR && r->kind != LNE_RULE_ROUTER) {
		rc = lne_err_set(err, -EINVAL, NULL, -1, "a %s rule needs a priority",
				 lne_rule_kind_name(r->kind));
		goto fail;
	}
	r->prio = prio;
	r->key = rules_key(r->src, r->dst, r->rte);

	/* Same expressions: the same rule, whose priority changes in place. */
	old = rule_same(ln, r->key, r->src, r->dst, r->rte);
	if (old) {
		if (old->prio == prio) {
			rc = lne_err_set(err, -EEXIST, NULL, -1, "rule %u already says this",
					 old->idx);
			goto fail;
		}
		old->prio = prio;
		udspi_refresh_prio(ln, old);
		rule_free(r);
		if (outcome)
			*outcome = LNE_RULE_UPDATED;
		if (out_idx)
			*out_idx = old->idx;
		lne_changed(ln);
		return 0;
	}

	at = idx >= 0 && idx < (s64)ln->udsp.nrules ? lne_rule_at(ln, (u32)idx) : NULL;
	lne_list_add_before(&r->link, at ? &at->link : &ln->udsp.rules);
	ln->udsp.nrules++;
	renumber_added(ln, r);
	rc = udspi_apply_rule(ln, r, false);
	if (rc) {
		struct lne_list *next = r->link.next;

		/* Give back exactly what it took: the delete path does that. */
		lne_list_del(&r->link);
		ln->udsp.nrules--;
		renumber_from(ln, next, r->idx);
		udspi_apply_rule(ln, r, true);
		goto fail;
	}
	if (outcome)
		*outcome = LNE_RULE_ADDED;
	if (out_idx)
		*out_idx = r->idx;
	lne_changed(ln);
	return 0;
fail:
	rule_free(r);
	return rc;
}

int lne_rule_find(const struct lne_inst *ln, const struct lne_rule_conf *c, u32 *idx,
		  struct lne_err *err)
{
	struct lne_expr *e[LNE_RULE_A__COUNT], *s, *d, *t;
	struct lne_rule *r;
	int rc;

	rc = parse_exprs(c, e, err);
	s = e[LNE_RULE_A_SRC];
	d = e[LNE_RULE_A_DST];
	t = e[LNE_RULE_A_RTE];
	if (!rc) {
		r = rule_same(ln, rules_key(s, d, t), s, d, t);
		if (r)
			*idx = r->idx;
		else
			rc = lne_err_set(err, -ENOENT, NULL, -1, "no rule has these expressions");
	}
	free_exprs(e);
	return rc;
}

int lne_rule_del(struct lne_inst *ln, u32 idx, struct lne_err *err)
{
	struct lne_rule *r = lne_rule_at(ln, idx);
	struct lne_list *next;

	if (!r)
		return lne_err_set(err, -ENOENT, NULL, -1, "there is no rule %u (%u rules)", idx,
				   ln->udsp.nrules);
	next = r->link.next;
	lne_list_del(&r->link);
	ln->udsp.nrules--;
	renumber_from(ln, next, idx);
	/* Cannot fail: recomputing replaces or removes, never adds. */
	udspi_apply_rule(ln, r, true);
	rule_free(r);
	lne_changed(ln);
	return 0;
}

const struct lne_expr *lne_rule_expr(const struct lne_rule *r, int a)
{
	return a == LNE_RULE_A_SRC   ? r->src
	       : a == LNE_RULE_A_DST ? r->dst
	       : a == LNE_RULE_A_RTE ? r->rte
				     : NULL;
}

u32 lne_rule_num(const struct lne_rule *r, int a)
{
	return a == LNE_RULE_A_PRIORITY ? r->prio : LNE_PRIO_NONE;
}

void lne_rule_del_all(struct lne_inst *ln)
{
	while (ln->udsp.nrules)
		lne_rule_del(ln, ln->udsp.nrules - 1, NULL);
}
