// SPDX-License-Identifier: GPL-2.0
/*
 * select.c - path selection and its explanation.
 *
 * Each step scores its candidates with a key: the values of the step's
 * criteria, in order (select.h lists them).  Keys compare
 * lexicographically, so "health always first" is simply the first entry.
 * The same keys explain the decision: with an explain buffer, every
 * candidate is compared once more with the winner, and the first criterion
 * on which it is worse is where it lost.  Nothing here allocates.
 */
#include "select.h"
#include "udsp.h"

static const struct {
	const char *name;
	bool higher_wins;
} crits[LNE_CRIT__COUNT] = {
	[LNE_CRIT_CHOSEN] = {"chosen", false},
	[LNE_CRIT_DOWN] = {"link down", false},
	[LNE_CRIT_UNREACHABLE] = {"unreachable", false},
	[LNE_CRIT_OTHER_NET] = {"on another net", false},
	[LNE_CRIT_HEALTH] = {"health", true},
	[LNE_CRIT_PEER_HEALTH] = {"peer health on net", true},
	[LNE_CRIT_DST_NET_PRIO] = {"peer net priority", false},
	[LNE_CRIT_SRC_NET_PRIO] = {"local net priority", false},
	[LNE_CRIT_NI_PRIO] = {"local NI priority", false},
	[LNE_CRIT_PEER_PRIO] = {"peer NI priority", false},
	[LNE_CRIT_PREFERRED] = {"preferred", false},
	[LNE_CRIT_ROUTE_PRIO] = {"route priority", false},
	[LNE_CRIT_HOPS] = {"hops", false},
	[LNE_CRIT_NUMA] = {"NUMA distance", false},
	[LNE_CRIT_CREDITS] = {"credits", true},
	[LNE_CRIT_ROUND_ROBIN] = {"round robin", false},
};

const char *lne_crit_name(enum lne_crit crit)
{
	return (unsigned int)crit < LNE_CRIT__COUNT ? crits[crit].name : "unknown";
}

bool lne_crit_higher_wins(enum lne_crit crit)
{
	return (unsigned int)crit < LNE_CRIT__COUNT && crits[crit].higher_wins;
}

/* Not preferred sorts after every preferred priority, LNE_PRIO_NONE included. */
#define NOT_PREFERRED ((s64)LNE_PRIO_NONE + 1)

static void push(struct lne_key *k, u8 crit, s64 v, const struct lne_rule *rule)
{
	k->crit[k->n] = crit;
	k->v[k->n] = v;
	k->rule[k->n] = lne_rule_idx(rule);
	k->n++;
}

/* <0 when @a beats @b; *at is the deciding criterion's index. */
static int key_cmp(const struct lne_key *a, const struct lne_key *b, u8 *at)
{
	u8 i;

	for (i = 0; i < a->n; i++) {
		bool better;

		if (a->v[i] == b->v[i])
			continue;
		if (a->crit[i] == LNE_CRIT_ROUND_ROBIN) /* wrapping sequence numbers */
			better = (s32)((u32)a->v[i] - (u32)b->v[i]) < 0;
		else if (crits[a->crit[i]].higher_wins)
			better = a->v[i] > b->v[i];
		else
			better = a->v[i] < b->v[i];
		*at = i;
		return better ? -1 : 1;
	}
	*at = a->n;
	return 0;
}

static void explain(struct lne_explain *ex, u8 step, const struct lne_nid *nid, u8 crit,
		    const struct lne_key *key, const struct lne_key *best)
{
	struct lne_exp_entry *e;

	if (!ex)
		return;
	if (ex->n == ex->cap) {
		ex->dropped++;
		return;
	}
	e = &ex->ent[ex->n++];
	e->step = step;
	e->nid = *nid;
	e->crit = crit;
	e->lost_at = 0;
	if (key)
		e->key = *key;
	else
		e->key.n = 0;
	if (key && best && crit != LNE_CRIT_CHOSEN) {
		key_cmp(key, best, &e->lost_at);
		/* Equal on every criterion: list order broke the tie. */
		if (e->lost_at >= key->n)
			e->lost_at = (u8)(key->n - 1);
		e->crit = key->crit[e->lost_at];
	}
}

static u32 numa_eff(const struct lne_inst *ln, const struct lne_ni *ni, s32 md_cpt)
{
	u32 d = lne_numa_distance(ln, ni->dev_cpt, md_cpt), range = ln->globals[LNE_G_NUMA_RANGE];

	/* Everything within numa_range is as near as can be. */
	return d < range ? range : d;
}

static bool net_usable(const struct lne_net *net)
{
	const struct lne_ni *ni;

	if (!net)
		return false;
	lne_list_for_each_entry(ni, &net->nis, link)
		if (ni->up)
			return true;
	return false;
}

/* The local net a gateway is reached on, if it is usable (and is @only). */
static struct lne_net *gw_net(const struct lne_route *rt, const struct lne_net *only)
{
	struct lne_net *net = rt->gw->pnet->rnet->local;

	if (rt->down || !net_usable(net) || (only && net != only))
		return NULL;
	return net;
}

static bool rnet_routable(const struct lne_rnet *rnet, const struct lne_net *only)
{
	const struct lne_route *rt;

	lne_list_for_each_entry(rt, &rnet->routes, rnet_link)
		if (gw_net(rt, only))
			return true;
	return false;
}

/* --- local NI --------------------------------------------------------------- */

struct ni_ctx {
	const struct lne_sel_req *req;
	const struct lne_peer_net *pnet; /* direct: the peer net it would serve */
	const struct lne_peer_ni *gw;	 /* routed: the gateway it would serve */
	s32 peer_health;
};

static void ni_key(const struct lne_inst *ln, const struct lne_ni *ni, const struct ni_ctx *c,
		   struct lne_key *k)
{
	k->n = 0;
	push(k, LNE_CRIT_HEALTH, ni->health, NULL);
	if (c->pnet) {
		push(k, LNE_CRIT_PEER_HEALTH, c->peer_health, NULL);
		push(k, LNE_CRIT_DST_NET_PRIO, c->pnet->rnet->prio.value, c->pnet->rnet->prio.rule);
		push(k, LNE_CRIT_SRC_NET_PRIO, ni->net->prio.value, ni->net->prio.rule);
	}
	push(k, LNE_CRIT_NI_PRIO, ni->prio.value, ni->prio.rule);
	if (c->gw) {
		const struct lne_rule *rule;
		u32 prio;
		bool pref = lne_pref_src(c->gw, ni, &prio, &rule);

		push(k, LNE_CRIT_PREFERRED, pref ? prio : NOT_PREFERRED, rule);
	}
	push(k, LNE_CRIT_NUMA, numa_eff(ln, ni, c->req->md_cpt), NULL);
	push(k, LNE_CRIT_CREDITS, ni->credits, NULL);
	push(k, LNE_CRIT_ROUND_ROBIN, lne_shared_load(ni->seq), NULL);
}

static s32 best_pni_health(const struct lne_peer_net *pnet)
{
	const struct lne_peer_ni *pni;
	s32 best = -1;

	lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
		if (pni->health > best)
			best = pni->health;
	return best;
}

/*
 * Scan the NIs of one net (@c says for which peer net or gateway), keeping
 * the best in *@best.  With @best_key NULL this is the explain pass.
 */
static void scan_nis(const struct lne_inst *ln, const struct lne_net *net, struct ni_ctx *c,
		     struct lne_ni **best, const struct lne_peer_net **best_pnet,
		     struct lne_key *best_key, struct lne_explain *ex)
{
	struct lne_ni *ni;
	struct lne_key k;
	u8 at;

	lne_list_for_each_entry(ni, &net->nis, link) {
		if (!ni->up) {
			if (!best_key)
				explain(ex, LNE_STEP_LOCAL_NI, &ni->nid, LNE_CRIT_DOWN, NULL, NULL);
			continue;
		}
		ni_key(ln, ni, c, &k);
		if (!best_key) {
			explain(ex, LNE_STEP_LOCAL_NI, &ni->nid,
				ni == *best && c->pnet == *best_pnet ? LNE_CRIT_CHOSEN
								     : LNE_CRIT_HEALTH,
				&k, NULL);
			continue;
		}
		if (!*best || key_cmp(&k, best_key, &at) < 0) {
			*best = ni;
			*best_pnet = c->pnet;
			*best_key = k;
		}
	}
}

/* Turn the explain pass's placeholder verdicts into real ones. */
static void settle(struct lne_explain *ex, u32 from, const struct lne_key *best)
{
	u32 i;

	if (!ex)
		return;
	for (i = from; i < ex->n; i++) {
		struct lne_exp_entry *e = &ex->ent[i];

		if (e->crit == LNE_CRIT_CHOSEN || e->crit == LNE_CRIT_DOWN ||
		    e->crit == LNE_CRIT_UNREACHABLE || e->crit == LNE_CRIT_OTHER_NET)
			continue;
		key_cmp(&e->key, best, &e->lost_at);
		if (e->lost_at >= e->key.n)
			e->lost_at = (u8)(e->key.n - 1);
		e->crit = e->key.crit[e->lost_at];
	}
}

/* --- peer NI and gateway ------------------------------------------------------ */

static void pni_key(const struct lne_peer_ni *pni, const struct lne_ni *ni, bool routed,
		    struct lne_key *k)
{
	k->n = 0;
	push(k, LNE_CRIT_HEALTH, pni->health, NULL);
	if (routed)
		push(k, LNE_CRIT_DST_NET_PRIO, pni->pnet->rnet->prio.value,
		     pni->pnet->rnet->prio.rule);
	push(k, LNE_CRIT_PEER_PRIO, pni->prio, pni->prio_rule);
	if (ni) {
		const struct lne_rule *rule;
		u32 prio;
		bool pref = lne_pref_src(pni, ni, &prio, &rule);

		push(k, LNE_CRIT_PREFERRED, pref ? prio : NOT_PREFERRED, rule);
	}
	push(k, LNE_CRIT_CREDITS, pni->credits, NULL);
	push(k, LNE_CRIT_ROUND_ROBIN, lne_shared_load(pni->seq), NULL);
}

/* The best peer NI of @pnet for local NI @ni (direct sends). */
static struct lne_peer_ni *pick_pni(const struct lne_peer_net *pnet, const struct lne_ni *ni,
				    struct lne_explain *ex)
{
	struct lne_peer_ni *pni, *best = NULL;
	struct lne_key k, bk;
	u32 from = ex ? ex->n : 0;
	u8 at;

	lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
		pni_key(pni, ni, false, &k);
		if (!best || key_cmp(&k, &bk, &at) < 0) {
			best = pni;
			bk = k;
		}
	}
	if (ex) {
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			pni_key(pni, ni, false, &k);
			explain(ex, LNE_STEP_PEER_NI, &pni->nid,
				pni == best ? LNE_CRIT_CHOSEN : LNE_CRIT_HEALTH, &k, NULL);
		}
		settle(ex, from, &bk);
	}
	return best;
}

static void gw_key(const struct lne_route *rt, const struct lne_peer_ni *dst, struct lne_key *k)
{
	const struct lne_rule *rule;
	u32 prio;
	bool pref = lne_pref_gw(dst, rt->gw, &prio, &rule);

	k->n = 0;
	push(k, LNE_CRIT_HEALTH, rt->gw->health, NULL);
	push(k, LNE_CRIT_PREFERRED, pref ? prio : NOT_PREFERRED, rule);
	push(k, LNE_CRIT_ROUTE_PRIO, rt->priority, NULL);
	push(k, LNE_CRIT_HOPS, rt->hops, NULL);
	push(k, LNE_CRIT_CREDITS, rt->gw->credits, NULL);
	push(k, LNE_CRIT_ROUND_ROBIN, lne_shared_load(rt->seq), NULL);
}

static struct lne_route *pick_route(const struct lne_peer_ni *dst, const struct lne_net *only,
				    struct lne_explain *ex)
{
	struct lne_rnet *rnet = dst->pnet->rnet;
	struct lne_route *rt, *best = NULL;
	struct lne_key k, bk;
	u32 from = ex ? ex->n : 0;
	u8 at;

	lne_list_for_each_entry(rt, &rnet->routes, rnet_link) {
		if (!gw_net(rt, only))
			continue;
		gw_key(rt, dst, &k);
		if (!best || key_cmp(&k, &bk, &at) < 0) {
			best = rt;
			bk = k;
		}
	}
	if (ex) {
		lne_list_for_each_entry(rt, &rnet->routes, rnet_link) {
			if (!gw_net(rt, only)) {
				explain(ex, LNE_STEP_GATEWAY, &rt->gw->nid, LNE_CRIT_UNREACHABLE,
					NULL, NULL);
				continue;
			}
			gw_key(rt, dst, &k);
			explain(ex, LNE_STEP_GATEWAY, &rt->gw->nid,
				rt == best ? LNE_CRIT_CHOSEN : LNE_CRIT_HEALTH, &k, NULL);
		}
		if (best)
			settle(ex, from, &bk);
	}
	return best;
}

/* The best remote peer NI that some usable route reaches. */
static struct lne_peer_ni *pick_remote_pni(const struct lne_peer *peer, const struct lne_net *only,
					   struct lne_explain *ex)
{
	struct lne_peer_ni *pni, *best = NULL;
	struct lne_peer_net *pnet;
	struct lne_key k, bk;
	u32 from = ex ? ex->n : 0;
	int pass;
	u8 at;

	for (pass = 0; pass < (ex ? 2 : 1); pass++)
		lne_list_for_each_entry(pnet, &peer->pnets, link) {
			bool ok = !pnet->rnet->local && rnet_routable(pnet->rnet, only);

			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (!ok) {
					if (pass)
						explain(ex, LNE_STEP_PEER_NI, &pni->nid,
							LNE_CRIT_UNREACHABLE, NULL, NULL);
					continue;
				}
				pni_key(pni, NULL, true, &k);
				if (pass) {
					explain(ex, LNE_STEP_PEER_NI, &pni->nid,
						pni == best ? LNE_CRIT_CHOSEN : LNE_CRIT_HEALTH, &k,
						NULL);
				} else if (!best || key_cmp(&k, &bk, &at) < 0) {
					best = pni;
					bk = k;
				}
			}
		}
	if (ex && best)
		settle(ex, from, &bk);
	return best;
}

/* The best local NI on @net to reach gateway @gw. */
static struct lne_ni *pick_ni_for_gw(const struct lne_inst *ln, const struct lne_net *net,
				     const struct lne_peer_ni *gw, const struct lne_sel_req *req,
				     struct lne_explain *ex)
{
	struct ni_ctx c = {.req = req, .gw = gw};
	const struct lne_peer_net *bp = NULL;
	struct lne_ni *best = NULL;
	struct lne_key bk;
	u32 from = ex ? ex->n : 0;

	scan_nis(ln, net, &c, &best, &bp, &bk, NULL);
	if (ex) {
		scan_nis(ln, net, &c, &best, &bp, NULL, ex);
		if (best)
			settle(ex, from, &bk);
	}
	return best;
}

/* --- the whole decision ------------------------------------------------------- */

static int fail_nid(struct lne_err *err, int rc, const struct lne_nid *nid, const char *why)
{
	char buf[LNE_NID_STR_MAX];

	lne_nid_format(nid, buf, sizeof(buf));
	return lne_err_set(err, rc, buf, -1, "%s", why);
}

/* Routed send from the (fixed or chosen) local side to @dst. */
static int route_to(const struct lne_inst *ln, struct lne_peer_ni *dst, struct lne_ni *fixed,
		    const struct lne_sel_req *req, struct lne_sel *out, struct lne_explain *ex,
		    struct lne_err *err)
{
	struct lne_route *rt = pick_route(dst, fixed ? fixed->net : NULL, ex);

	if (!rt)
		return fail_nid(err, -EHOSTUNREACH, &dst->nid,
				"no route with a usable gateway reaches this NID's net");
	out->route = rt;
	out->pni = dst;
	out->ni = fixed ? fixed : pick_ni_for_gw(ln, gw_net(rt, NULL), rt->gw, req, ex);
	return 0;
}

static int select_from(const struct lne_inst *ln, struct lne_peer *peer, struct lne_ni *ni,
		       const struct lne_sel_req *req, struct lne_sel *out, struct lne_explain *ex,
		       struct lne_err *err)
{
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;

	explain(ex, LNE_STEP_LOCAL_NI, &ni->nid, LNE_CRIT_CHOSEN, NULL, NULL);
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		if (pnet->rnet->local == ni->net) {
			out->ni = ni;
			out->pni = pick_pni(pnet, ni, ex);
			return 0;
		}
	pni = pick_remote_pni(peer, ni->net, ex);
	if (!pni)
		return fail_nid(
			err, -EHOSTUNREACH, &ni->nid,
			"the peer has no NID on this NI's net, and no route through it reaches the peer");
	return route_to(ln, pni, ni, req, out, ex, err);
}

/* To @dst itself, from the best local NI on its net (@req->exact). */
static int select_to(const struct lne_inst *ln, struct lne_peer_ni *dst,
		     const struct lne_sel_req *req, struct lne_sel *out, struct lne_explain *ex,
		     struct lne_err *err)
{
	struct ni_ctx c = {.req = req, .pnet = dst->pnet, .peer_health = dst->health};
	const struct lne_peer_net *best_pnet = NULL;
	struct lne_ni *best = NULL;
	struct lne_key bk;
	u32 from = ex ? ex->n : 0;
	int pass;

	for (pass = 0; pass < (ex ? 2 : 1); pass++)
		scan_nis(ln, dst->pnet->rnet->local, &c, &best, &best_pnet, pass ? NULL : &bk, ex);
	if (!best)
		return fail_nid(err, -EHOSTUNREACH, &dst->nid,
				"no local NI is up on the net of the NID the sender chose");
	settle(ex, from, &bk);
	explain(ex, LNE_STEP_PEER_NI, &dst->nid, LNE_CRIT_CHOSEN, NULL, NULL);
	out->ni = best;
	out->pni = dst;
	return 0;
}

static int select_any(const struct lne_inst *ln, struct lne_peer *peer,
		      const struct lne_sel_req *req, struct lne_sel *out, struct lne_explain *ex,
		      struct lne_err *err)
{
	const struct lne_peer_net *best_pnet = NULL;
	struct lne_peer_net *pnet;
	struct lne_ni *best = NULL;
	struct lne_peer_ni *pni;
	struct lne_key bk;
	u32 from = ex ? ex->n : 0;
	int pass;

	for (pass = 0; pass < (ex ? 2 : 1); pass++)
		lne_list_for_each_entry(pnet, &peer->pnets, link) {
			struct ni_ctx c = {.req = req, .pnet = pnet};

			if (!pnet->rnet->local)
				continue;
			c.peer_health = best_pni_health(pnet);
			scan_nis(ln, pnet->rnet->local, &c, &best, &best_pnet, pass ? NULL : &bk,
				 ex);
		}
	if (best) {
		settle(ex, from, &bk);
		out->ni = best;
		out->pni = pick_pni(best_pnet, best, ex);
		return 0;
	}
	/* No local net reaches the peer: through a router, then. */
	pni = pick_remote_pni(peer, NULL, ex);
	if (!pni)
		return fail_nid(
			err, -EHOSTUNREACH, &peer->primary,
			"no local NI is up on any of the peer's nets, and no usable route reaches it");
	return route_to(ln, pni, NULL, req, out, ex, err);
}

int lne_select(struct lne_inst *ln, const struct lne_sel_req *req, struct lne_sel *out,
	       struct lne_explain *ex, struct lne_err *err)
{
	struct lne_peer_ni *dst = lne_peer_ni_find(ln, &req->dst);
	struct lne_ni *fixed = NULL;
	struct lne_peer *peer;
	u32 now;
	int rc;

	out->ni = NULL;
	out->pni = NULL;
	out->route = NULL;
	if (!dst)
		return fail_nid(err, -ENOENT, &req->dst, "no peer has this NID");
	peer = lne_peer_of(dst);
	if (req->src) {
		fixed = lne_ni_find(ln, req->src);
		if (!fixed)
			return fail_nid(err, -EADDRNOTAVAIL, req->src, "not a local NI");
		if (!fixed->up)
			return fail_nid(err, -ENETDOWN, req->src, "the local NI is down");
	}

	if (req->kind == LNE_MSG_ACK || req->kind == LNE_MSG_REPLY) {
		/* A reply leaves from where the request came in, to its sender. */
		if (!fixed)
			return fail_nid(err, -EINVAL, &req->dst,
					"a reply needs the local NI it answers from");
		explain(ex, LNE_STEP_LOCAL_NI, &fixed->nid, LNE_CRIT_CHOSEN, NULL, NULL);
		explain(ex, LNE_STEP_PEER_NI, &dst->nid, LNE_CRIT_CHOSEN, NULL, NULL);
		if (dst->pnet->rnet->local == fixed->net) {
			out->ni = fixed;
			out->pni = dst;
			rc = 0;
		} else {
			rc = route_to(ln, dst, fixed, req, out, ex, err);
		}
	} else if (fixed) {
		rc = select_from(ln, peer, fixed, req, out, ex, err);
	} else if (req->exact && dst->pnet->rnet->local) {
		rc = select_to(ln, dst, req, out, ex, err);
	} else {
		/* A non-Multi-Rail peer keeps its source NI while that still works. */
		struct lne_ni *kept = lne_shared_load(peer->nmr_src);
		u32 mark = ex ? ex->n : 0;

		rc = -EHOSTUNREACH;
		if (!peer->mr && kept && kept->up)
			rc = select_from(ln, peer, kept, req, out, ex, NULL);
		if (rc) {
			if (ex)
				ex->n = mark; /* explain only the attempt that counts */
			rc = select_any(ln, peer, req, out, ex, err);
			if (!rc && !peer->mr && !req->peek)
				lne_shared_store(peer->nmr_src, out->ni);
		}
	}
	if (rc || req->peek)
		return rc;
	/* Round robin is "least recently chosen": a candidate back from
	 * being down takes its turn, not every turn until it catches up.
	 * Comparisons wrap, so this holds within 2^31 selections. */
	now = lne_clock_tick(&ln->clock);
	lne_shared_store(out->ni->seq, now);
	lne_shared_store(out->pni->seq, now);
	if (out->route)
		lne_shared_store(out->route->seq, now);
	return 0;
}
