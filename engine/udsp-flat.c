// SPDX-License-Identifier: GPL-2.0
/*
 * udsp-flat.c - the UDSP rules flattened onto the model.
 *
 * Every flattened property records the rule that decided it.  A property is
 * decided by the first rule, in list order, that matches it; so adding a
 * rule only takes over properties it matches and whose decider comes after
 * it, and deleting a rule recomputes only the properties it decided, from
 * the rules that survive.  Rules find their constructs through the net
 * index (inst->nets, rnet->pnis): a rule's expressions are first tested
 * against each net, and only the constructs on nets they can match are
 * visited.
 */
#include "udsp-int.h"

/* --- what a rule can touch ---------------------------------------------------- */

/* Callback over constructs; returns 0 or a negative errno that stops the walk. */
typedef int (*visit_ni_fn)(struct lne_inst *ln, struct lne_ni *ni, void *arg);
typedef int (*visit_pni_fn)(struct lne_inst *ln, struct lne_peer_ni *pni, void *arg);

static int each_ni(struct lne_inst *ln, const struct lne_expr *e, visit_ni_fn fn, void *arg)
{
	struct lne_net *net;
	struct lne_ni *ni;
	int rc;

	lne_list_for_each_entry(net, &ln->nets, link) {
		if (!lne_expr_match_net(e, net->id))
			continue;
		lne_list_for_each_entry(ni, &net->nis, link) {
			ln->udsp.visits++;
			if (!lne_expr_match_nid(e, &ni->nid))
				continue;
			rc = fn(ln, ni, arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

struct lookup {
	struct lne_inst *ln;
	visit_pni_fn fn;
	void *arg;
};

static int lookup_nid(const struct lne_nid *nid, void *arg)
{
	struct lookup *l = arg;
	struct lne_peer_ni *pni = lne_peer_ni_find(l->ln, nid);

	if (!pni)
		return 0;
	l->ln->udsp.visits++;
	return l->fn(l->ln, pni, l->arg);
}

/*
 * Peer NIs matching @e; gateways only (routes use them) when @gw_only.
 *
 * On a net where @e names fewer NIDs than there are peer NIs (a rule for
 * 10.0.0.[1-200]@o2ib1 on a net of 25,000), the NIDs are listed and looked
 * up in the NID hash instead of every peer NI being tested.  The order the
 * peer NIs come in then differs, which the callers allow: what they do to
 * one peer NI does not depend on the others.  Gateways, the targets of
 * router rules, keep the net's order (they fill preference lists), and are
 * few.
 */
static int each_pni(struct lne_inst *ln, const struct lne_expr *e, bool gw_only, visit_pni_fn fn,
		    void *arg)
{
	struct lookup l = {ln, fn, arg};
	struct lne_peer_ni *pni;
	struct lne_rnet *rnet;
	int rc;

	lne_list_for_each_entry(rnet, &ln->rnets, link) {
		if (!lne_expr_match_net(e, rnet->id))
			continue;
		if (!gw_only && lne_expr_nids_on(e, rnet->id, rnet->npni) < rnet->npni) {
			rc = lne_expr_each_nid(e, rnet->id, lookup_nid, &l);
			if (rc)
				return rc;
			continue;
		}
		lne_list_for_each_entry(pni, &rnet->pnis, rnet_link) {
			ln->udsp.visits++;
			if ((gw_only && !pni->gw_refs) || !lne_expr_match_nid(e, &pni->nid))
				continue;
			rc = fn(ln, pni, arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The first rule of @kind whose @which expression matches @nid. */
static const struct lne_rule *first_nid_rule(const struct lne_inst *ln, u8 kind,
					     const struct lne_nid *nid)
{
	const struct lne_rule *r;

	for_each_rule(r, ln)
		if (r->kind == kind &&
		    lne_expr_match_nid(kind == LNE_RULE_SRC_NID ? r->src : r->dst, nid))
			return r;
	return NULL;
}

static const struct lne_rule *first_net_rule(const struct lne_inst *ln, u8 kind, lne_net_t net)
{
	const struct lne_rule *r;

	for_each_rule(r, ln)
		if (r->kind == kind &&
		    lne_expr_match_net(kind == LNE_RULE_SRC_NET ? r->src : r->dst, net))
			return r;
	return NULL;
}

static void set_prio(struct lne_prio *p, const struct lne_rule *r)
{
	p->rule = r;
	p->value = r ? r->prio : LNE_PRIO_NONE;
}

static void set_pni_prio(struct lne_peer_ni *pni, const struct lne_rule *r)
{
	pni->prio_rule = r;
	pni->prio = r ? r->prio : LNE_PRIO_NONE;
}

/* --- preferred sources and gateways on a peer NI ------------------------------- */

static struct lne_pref **pref_array(struct lne_prefs *p, bool gw, u16 **n, u16 **cap)
{
	*n = gw ? &p->ngw : &p->nsrc;
	*cap = gw ? &p->cap_gw : &p->cap_src;
	return gw ? &p->gw : &p->src;
}

static struct lne_pref *pref_find(const struct lne_peer_ni *pni, bool gw, const void *target)
{
	struct lne_pref *a;
	u16 i, n;

	if (!pni->prefs)
		return NULL;
	a = gw ? pni->prefs->gw : pni->prefs->src;
	n = gw ? pni->prefs->ngw : pni->prefs->nsrc;
	for (i = 0; i < n; i++)
		if (a[i].target == target)
			return &a[i];
	return NULL;
}

/* Make @r the decider of (@pni, @target) if no earlier rule decides it. */
static int pref_offer(struct lne_peer_ni *pni, bool gw, const void *target,
		      const struct lne_rule *r)
{
	struct lne_pref *e = pref_find(pni, gw, target), **a;
	u16 *n, *cap;

	if (e) {
		if (r->idx < e->rule->idx)
			e->rule = r;
		return 0;
	}
	if (!pni->prefs) {
		pni->prefs = lne_zalloc(sizeof(*pni->prefs));
		if (!pni->prefs)
			return -ENOMEM;
	}
	a = pref_array(pni->prefs, gw, &n, &cap);
	if (*n == *cap) {
		u16 ncap = *cap ? (u16)(*cap * 2) : 2;
		struct lne_pref *na;

		if (*cap >= 0x8000)
			return -ENOSPC;
		na = lne_realloc_array(*a, ncap, sizeof(*na));
		if (!na)
			return -ENOMEM;
		*a = na;
		*cap = ncap;
	}
	(*a)[(*n)++] = (struct lne_pref){target, r};
	return 0;
}

static void pref_remove(struct lne_peer_ni *pni, bool gw, struct lne_pref *e)
{
	struct lne_pref **a;
	u16 *n, *cap;

	a = pref_array(pni->prefs, gw, &n, &cap);
	memmove(e, e + 1, (size_t)(*a + *n - (e + 1)) * sizeof(*e));
	(*n)--;
}

bool lne_pref_src(const struct lne_peer_ni *pni, const struct lne_ni *ni, u32 *prio,
		  const struct lne_rule **rule)
{
	const struct lne_pref *e = pref_find(pni, false, ni);

	*prio = e ? e->rule->prio : LNE_PRIO_NONE;
	*rule = e ? e->rule : NULL;
	return e != NULL;
}

bool lne_pref_gw(const struct lne_peer_ni *pni, const struct lne_peer_ni *gw, u32 *prio,
		 const struct lne_rule **rule)
{
	const struct lne_pref *e = pref_find(pni, true, gw);

	*prio = e ? e->rule->prio : LNE_PRIO_NONE;
	*rule = e ? e->rule : NULL;
	return e != NULL;
}

/* The first pair (router) rule that prefers @target for @pni, if any. */
static const struct lne_rule *first_pref_rule(const struct lne_inst *ln, bool gw,
					      const struct lne_peer_ni *pni, const void *target)
{
	const struct lne_nid *tnid = gw ? &((const struct lne_peer_ni *)target)->nid
					: &((const struct lne_ni *)target)->nid;
	const struct lne_rule *r;

	for_each_rule(r, ln)
		if (r->kind == (gw ? LNE_RULE_ROUTER : LNE_RULE_PAIR) &&
		    lne_expr_match_nid(r->dst, &pni->nid) &&
		    lne_expr_match_nid(gw ? r->rte : r->src, tnid))
			return r;
	return NULL;
}

/* --- applying one rule ------------------------------------------------------------ */

struct apply {
	const struct lne_rule *rule;
	struct lne_peer_ni *pni; /* pair/router: the peer NI being served */
	const void *target;	 /* hooks: the one NI or gateway that came */
	bool remove;		 /* hooks: the target is going away */
	bool recompute;		 /* deleting rule: redo what it decided */
};

static int apply_ni_prio(struct lne_inst *ln, struct lne_ni *ni, void *arg)
{
	const struct apply *a = arg;

	if (a->recompute) {
		if (ni->prio.rule == a->rule)
			set_prio(&ni->prio, first_nid_rule(ln, LNE_RULE_SRC_NID, &ni->nid));
	} else if (!ni->prio.rule || a->rule->idx <= ni->prio.rule->idx) {
		set_prio(&ni->prio, a->rule);
	}
	return 0;
}

static int apply_pni_prio(struct lne_inst *ln, struct lne_peer_ni *pni, void *arg)
{
	const struct apply *a = arg;

	if (a->recompute) {
		if (pni->prio_rule == a->rule)
			set_pni_prio(pni, first_nid_rule(ln, LNE_RULE_DST_NID, &pni->nid));
	} else if (!pni->prio_rule || a->rule->idx <= pni->prio_rule->idx) {
		set_pni_prio(pni, a->rule);
	}
	return 0;
}

/* Pair/router rule, one (peer NI, target) couple. */
static int apply_couple(struct lne_inst *ln, struct lne_peer_ni *pni, const void *target,
			const struct apply *a)
{
	bool gw = a->rule->kind == LNE_RULE_ROUTER;
	struct lne_pref *e;

	if (!a->recompute)
		return pref_offer(pni, gw, target, a->rule);
	e = pref_find(pni, gw, target);
	if (e && e->rule == a->rule) {
		const struct lne_rule *next = first_pref_rule(ln, gw, pni, target);

		if (next)
			e->rule = next;
		else
			pref_remove(pni, gw, e);
	}
	return 0;
}

static int couple_src(struct lne_inst *ln, struct lne_ni *ni, void *arg)
{
	const struct apply *a = arg;

	return apply_couple(ln, a->pni, ni, a);
}

static int couple_gw(struct lne_inst *ln, struct lne_peer_ni *gw, void *arg)
{
	const struct apply *a = arg;

	return apply_couple(ln, a->pni, gw, a);
}

/* A peer NI matched by a pair/router rule's dst: walk the targets. */
static int apply_pref_pni(struct lne_inst *ln, struct lne_peer_ni *pni, void *arg)
{
	struct apply a = *(struct apply *)arg;

	a.pni = pni;
	if (a.rule->kind == LNE_RULE_PAIR)
		return each_ni(ln, a.rule->src, couple_src, &a);
	return each_pni(ln, a.rule->rte, true, couple_gw, &a);
}

/* A net's priority meets rule @r: taken over, or (recompute) given back. */
static void net_prio(struct lne_inst *ln, struct lne_prio *p, lne_net_t id,
		     const struct lne_rule *r, bool recompute)
{
	if (recompute) {
		if (p->rule == r)
			set_prio(p, first_net_rule(ln, r->kind, id));
	} else if (!p->rule || r->idx <= p->rule->idx) {
		set_prio(p, r);
	}
}

/* Apply (or, with recompute, undo) @r over everything it can match. */
int udspi_apply_rule(struct lne_inst *ln, const struct lne_rule *r, bool recompute)
{
	struct apply a = {.rule = r, .recompute = recompute};
	struct lne_rnet *rnet;
	struct lne_net *net;

	switch (r->kind) {
	case LNE_RULE_SRC_NET:
		lne_list_for_each_entry(net, &ln->nets, link)
			if (lne_expr_match_net(r->src, net->id))
				net_prio(ln, &net->prio, net->id, r, recompute);
		return 0;
	case LNE_RULE_DST_NET:
		lne_list_for_each_entry(rnet, &ln->rnets, link)
			if (lne_expr_match_net(r->dst, rnet->id))
				net_prio(ln, &rnet->prio, rnet->id, r, recompute);
		return 0;
	case LNE_RULE_SRC_NID:
		return each_ni(ln, r->src, apply_ni_prio, &a);
	case LNE_RULE_DST_NID:
		return each_pni(ln, r->dst, false, apply_pni_prio, &a);
	default:
		return each_pni(ln, r->dst, false, apply_pref_pni, &a);
	}
}

/* A rule's priority changed in place (udsp.c): the values it decided follow. */
void udspi_refresh_prio(struct lne_inst *ln, const struct lne_rule *r)
{
	struct lne_peer_ni *pni;
	struct lne_rnet *rnet;
	struct lne_net *net;
	struct lne_ni *ni;

	/* Values copied from @r follow its new priority. */
	lne_list_for_each_entry(net, &ln->nets, link) {
		if (net->prio.rule == r)
			set_prio(&net->prio, r);
		lne_list_for_each_entry(ni, &net->nis, link)
			if (ni->prio.rule == r)
				set_prio(&ni->prio, r);
	}
	lne_list_for_each_entry(rnet, &ln->rnets, link) {
		if (rnet->prio.rule == r)
			set_prio(&rnet->prio, r);
		if (r->kind != LNE_RULE_DST_NID || !lne_expr_match_net(r->dst, rnet->id))
			continue;
		lne_list_for_each_entry(pni, &rnet->pnis, rnet_link)
			if (pni->prio_rule == r)
				set_pni_prio(pni, r);
	}
}

/* --- everything from scratch --------------------------------------------------------- */

static int offer_rule(struct lne_inst *ln, const struct lne_rule *r)
{
	struct lne_peer *peer;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_rnet *rnet;
	struct lne_net *net;
	struct lne_ni *ni;
	int rc;

	/* No index: every construct meets every rule, as upstream does. */
	lne_list_for_each_entry(net, &ln->nets, link) {
		if (r->kind == LNE_RULE_SRC_NET && !net->prio.rule &&
		    lne_expr_match_net(r->src, net->id))
			set_prio(&net->prio, r);
		lne_list_for_each_entry(ni, &net->nis, link)
			if (r->kind == LNE_RULE_SRC_NID && !ni->prio.rule &&
			    lne_expr_match_nid(r->src, &ni->nid))
				set_prio(&ni->prio, r);
	}
	lne_list_for_each_entry(rnet, &ln->rnets, link)
		if (r->kind == LNE_RULE_DST_NET && !rnet->prio.rule &&
		    lne_expr_match_net(r->dst, rnet->id))
			set_prio(&rnet->prio, r);
	lne_list_for_each_entry(peer, &ln->peers, link)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (!r->dst || !lne_expr_match_nid(r->dst, &pni->nid))
					continue;
				if (r->kind == LNE_RULE_DST_NID && !pni->prio_rule)
					set_pni_prio(pni, r);
				if (r->kind == LNE_RULE_PAIR || r->kind == LNE_RULE_ROUTER) {
					rc = apply_pref_pni(ln, pni, &(struct apply){.rule = r});
					if (rc)
						return rc;
				}
			}
	return 0;
}

int lne_udsp_recompute_all(struct lne_inst *ln)
{
	struct lne_peer *peer;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_rnet *rnet;
	struct lne_net *net;
	struct lne_ni *ni;
	struct lne_rule *r;
	int rc;

	lne_list_for_each_entry(net, &ln->nets, link) {
		set_prio(&net->prio, NULL);
		lne_list_for_each_entry(ni, &net->nis, link)
			set_prio(&ni->prio, NULL);
	}
	lne_list_for_each_entry(rnet, &ln->rnets, link)
		set_prio(&rnet->prio, NULL);
	lne_list_for_each_entry(peer, &ln->peers, link)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				set_pni_prio(pni, NULL);
				if (pni->prefs)
					pni->prefs->nsrc = pni->prefs->ngw = 0;
			}
	for_each_rule(r, ln) {
		rc = offer_rule(ln, r);
		if (rc)
			return rc;
	}
	return 0;
}

/* --- copies ---------------------------------------------------------------------------- */

/* @src's preference list onto @to, its targets @dst's equal ones. */
static int copy_prefs(struct lne_inst *dst, const struct lne_rule **rules, struct lne_peer_ni *to,
		      const struct lne_prefs *from, bool gw)
{
	const struct lne_pref *a = gw ? from->gw : from->src;
	u16 n = gw ? from->ngw : from->nsrc, i, *tn, *cap;
	struct lne_pref **ta;

	if (!n)
		return 0;
	if (!to->prefs) {
		to->prefs = lne_zalloc(sizeof(*to->prefs));
		if (!to->prefs)
			return -ENOMEM;
	}
	ta = pref_array(to->prefs, gw, &tn, &cap);
	*ta = lne_realloc_array(NULL, n, sizeof(**ta));
	if (!*ta)
		return -ENOMEM;
	*cap = n;
	for (i = 0; i < n; i++) {
		const void *t;

		if (gw)
			t = lne_peer_ni_find(dst, &((const struct lne_peer_ni *)a[i].target)->nid);
		else
			t = lne_ni_find(dst, &((const struct lne_ni *)a[i].target)->nid);
		if (!t)
			return -EINVAL; /* cannot be: the copy has every construct */
		(*ta)[i] = (struct lne_pref){t, rules[a[i].rule->idx]};
		(*tn)++;
	}
	return 0;
}

int lne_udsp_copy_flat(struct lne_inst *dst, const struct lne_inst *src)
{
	const struct lne_rule **rules = NULL, *r;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	const struct lne_peer *peer;
	const struct lne_rnet *rnet;
	const struct lne_net *net;
	const struct lne_ni *ni;
	int rc = 0;

	/* The same rules, in the same order: the same idx. */
	if (dst->udsp.nrules != src->udsp.nrules)
		return -EINVAL;
	if (src->udsp.nrules) {
		rules = lne_realloc_array(NULL, src->udsp.nrules, sizeof(*rules));
		if (!rules)
			return -ENOMEM;
	}
	for_each_rule(r, dst)
		rules[r->idx] = r;
		/* Every construct of @src has its equal in @dst; -EINVAL if one has not. */
#define COPIED(rule) ((rule) ? rules[(rule)->idx] : NULL)
	lne_list_for_each_entry(net, &src->nets, link) {
		struct lne_net *to = lne_net_find(dst, net->id);

		if (!to)
			goto gone;
		to->prio = (struct lne_prio){net->prio.value, COPIED(net->prio.rule)};
	}
	lne_list_for_each_entry(rnet, &src->rnets, link) {
		struct lne_rnet *to = lne_rnet_find(dst, rnet->id);

		if (!to)
			goto gone;
		to->prio = (struct lne_prio){rnet->prio.value, COPIED(rnet->prio.rule)};
	}
	lne_list_for_each_entry(ni, &src->nis, all_link) {
		struct lne_ni *to = lne_ni_find(dst, &ni->nid);

		if (!to)
			goto gone;
		to->prio = (struct lne_prio){ni->prio.value, COPIED(ni->prio.rule)};
	}
	lne_list_for_each_entry(peer, &src->peers, link)
		lne_list_for_each_entry(pnet, &peer->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				struct lne_peer_ni *to = lne_peer_ni_find(dst, &pni->nid);

				if (!to)
					goto gone;
				to->prio = pni->prio;
				to->prio_rule = COPIED(pni->prio_rule);
				if (!pni->prefs)
					continue;
				rc = copy_prefs(dst, rules, to, pni->prefs, false);
				if (!rc)
					rc = copy_prefs(dst, rules, to, pni->prefs, true);
				if (rc)
					goto out;
			}
#undef COPIED
out:
	lne_free(rules);
	return rc;
gone:
	rc = -EINVAL;
	goto out;
}

/* --- hooks ---------------------------------------------------------------------------- */

void lne_udsp_net_added(struct lne_inst *ln, struct lne_net *net)
{
	if (!ln->udsp.quiet)
		set_prio(&net->prio, first_net_rule(ln, LNE_RULE_SRC_NET, net->id));
}

void lne_udsp_rnet_added(struct lne_inst *ln, struct lne_rnet *rnet)
{
	if (!ln->udsp.quiet)
		set_prio(&rnet->prio, first_net_rule(ln, LNE_RULE_DST_NET, rnet->id));
}

static int move_target(struct lne_inst *ln, struct lne_peer_ni *pni, void *arg)
{
	const struct apply *a = arg;
	bool gw = a->rule->kind == LNE_RULE_ROUTER;
	struct lne_pref *e;

	(void)ln;
	if (!a->remove)
		return pref_offer(pni, gw, a->target, a->rule);
	e = pref_find(pni, gw, a->target);
	if (e)
		pref_remove(pni, gw, e);
	return 0;
}

/* A target (local NI or gateway) arrives or leaves: walk the rules naming it. */
static int target_moved(struct lne_inst *ln, bool gw, const void *target, bool remove)
{
	const struct lne_nid *tnid = gw ? &((const struct lne_peer_ni *)target)->nid
					: &((const struct lne_ni *)target)->nid;
	struct apply a = {.target = target, .remove = remove};
	const struct lne_rule *r;
	int rc;

	/* In rule order, so the first offer for a couple is its decider. */
	for_each_rule(r, ln) {
		if (r->kind != (gw ? LNE_RULE_ROUTER : LNE_RULE_PAIR) ||
		    !lne_expr_match_nid(gw ? r->rte : r->src, tnid))
			continue;
		a.rule = r;
		rc = each_pni(ln, r->dst, false, move_target, &a);
		if (rc)
			return rc;
	}
	return 0;
}

int lne_udsp_ni_added(struct lne_inst *ln, struct lne_ni *ni)
{
	if (ln->udsp.quiet)
		return 0;
	set_prio(&ni->prio, first_nid_rule(ln, LNE_RULE_SRC_NID, &ni->nid));
	return target_moved(ln, false, ni, false);
}

void lne_udsp_ni_removing(struct lne_inst *ln, struct lne_ni *ni)
{
	target_moved(ln, false, ni, true);
}

int lne_udsp_gw_added(struct lne_inst *ln, struct lne_peer_ni *gw)
{
	if (ln->udsp.quiet)
		return 0;
	return target_moved(ln, true, gw, false);
}

void lne_udsp_gw_removing(struct lne_inst *ln, struct lne_peer_ni *gw)
{
	target_moved(ln, true, gw, true);
}

int lne_udsp_pni_added(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	const struct lne_rule *r;
	int rc;

	/* No rule yet (a batch adds its rules last): the peer NI keeps its defaults. */
	if (ln->udsp.quiet || !ln->udsp.nrules)
		return 0;
	set_pni_prio(pni, first_nid_rule(ln, LNE_RULE_DST_NID, &pni->nid));
	for_each_rule(r, ln) {
		if ((r->kind != LNE_RULE_PAIR && r->kind != LNE_RULE_ROUTER) ||
		    !lne_expr_match_nid(r->dst, &pni->nid))
			continue;
		rc = apply_pref_pni(ln, pni, &(struct apply){.rule = r});
		if (rc)
			return rc;
	}
	return 0;
}

void lne_udsp_pni_removing(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	(void)ln;
	if (!pni->prefs)
		return;
	lne_free(pni->prefs->src);
	lne_free(pni->prefs->gw);
	lne_free(pni->prefs);
	pni->prefs = NULL;
}
