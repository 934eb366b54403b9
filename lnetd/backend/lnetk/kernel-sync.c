// SPDX-License-Identifier: GPL-2.0
/*
 * kernel-sync.c - the kernel backend sends the module the differences
 * between the mirror and @pushed (kernel.c says in what order and how).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udsp.h"
#include "kernel-int.h"
#include "ktbf.h"
#include "lnetd/log.h"

#define BATCH_MIN   64	/* fewer additions than this go one request each */
#define BATCH_RATIO 16	/* ... and so do fewer than 1/16 of what the module holds */
#define DRAIN_EVERY 256 /* requests between two reads of the events socket */

/* --- a sync: the differences, in an order the model accepts ----------------------------- */

enum mode {
	M_SEND,	   /* one request each, applied to @pushed when accepted */
	M_COUNT,   /* only count the additions */
	M_COLLECT, /* put the additions in a batch */
	M_LOCAL,   /* the batch went through: apply them to @pushed */
};

/* The kinds of additions, in their order (additions()). */
enum {
	A_GLOBALS,
	A_NIS,
	A_PEERS,
	A_ROUTES,
	A_RULES,
	A__COUNT
};

struct sync {
	struct kbackend *kb;
	const struct lne_inst *want; /* the mirror */
	enum mode mode;
	struct lnetk_batch *batch;
	struct lnetk_err err;
	size_t items;		     /* M_COUNT, M_COLLECT: additions seen */
	size_t kind_items[A__COUNT]; /* M_COUNT's items of each kind */
	size_t changes;		     /* requests and batch items the module accepted */
	size_t requests;	     /* requests sent */
	size_t refused;		     /* refusals */
	int stop;		     /* < 0: the module cannot be reached, or the batch not built */
	bool local_bad;		     /* @pushed refused what the module accepted */
	bool busy;		     /* a refusal was EBUSY: it may pass, so try again later */
	char first[WHY_MAX];	     /* the first refusal */
	char (*nidbuf)[LNETK_NID_MAX]; /* peer NIDs as text, for one request */
	const char **nidp;
	struct lne_nid *nids;
	size_t nidcap;
};

/*
 * After a request (M_SEND) or batch item (M_COLLECT): whether the addition
 * should now be applied to @pushed.  Refusals are counted and the first
 * kept; a failure without the module's word stops the sync.
 */
static bool sent(struct sync *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool sent(struct sync *s, int rc, const char *fmt, ...)
{
	char what[LNE_ERR_MSG_MAX];
	va_list ap;

	switch (s->mode) {
	case M_COUNT:
		s->items++;
		return false;
	case M_COLLECT:
		if (rc)
			s->stop = rc;
		else
			s->items++;
		return false;
	case M_LOCAL:
		return true;
	case M_SEND:
		break;
	}
	s->requests++;
	if (!rc) {
		kb_mine_push(s->kb, lnetk_last_generation(s->kb->lk));
		s->changes++;
		if (!(s->requests % DRAIN_EVERY))
			kb_drain(s->kb);
		return true;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!s->err.msg[0]) {
		/* No extack: the module is gone, or lnetd may not talk to it. */
		snprintf(s->first, sizeof(s->first), "cannot reach the lnetk module (%s: %s)", what,
			 strerror(-rc));
		s->stop = rc;
		return false;
	}
	if (!s->refused++)
		snprintf(s->first, sizeof(s->first), "the lnetk module refused %s: %s", what,
			 s->err.msg);
	return false;
}

/* The same change on @pushed; the engine refusing what the module took means they parted. */
static void local(struct sync *s, int rc, const struct lne_err *err, const char *what)
{
	if (!rc || s->local_bad)
		return;
	s->local_bad = true;
	log_warning("lnetd's copy of the lnetk module refused %s (%s): reading it again", what,
		    err->msg);
}

static bool live(const struct sync *s)
{
	return !s->stop;
}

/* Room for @n peer NIDs as text and as NIDs. */
static int nid_room(struct sync *s, size_t n)
{
	if (n <= s->nidcap)
		return 0;
	free(s->nidbuf);
	free(s->nidp);
	free(s->nids);
	s->nidbuf = calloc(n, sizeof(*s->nidbuf));
	s->nidp = calloc(n, sizeof(*s->nidp));
	s->nids = calloc(n, sizeof(*s->nids));
	s->nidcap = s->nidbuf && s->nidp && s->nids ? n : 0;
	return s->nidcap ? 0 : -ENOMEM;
}

/* --- peers: what stays ----------------------------------------------------------------- */

/*
 * A peer of @pushed stays when the mirror has a peer with the same primary
 * NID that the module can turn it into by adding NIDs: an explicit one
 * with the same Multi-Rail setting, or any when it is implicit now (adding
 * it makes it explicit).  Anything else is deleted and added again.
 */
static const struct lne_peer *peer_match(const struct lne_inst *want, const struct lne_peer *p)
{
	const struct lne_peer *m = lne_peer_find(want, &p->primary);

	if (!m || (!p->implicit && (m->implicit || m->mr != p->mr)))
		return NULL;
	return m;
}

/* Whether @pni stays in the mirror's peer @m (its own peer's match, NULL for none). */
static bool pni_stays_in(const struct lne_inst *want, const struct lne_peer *m,
			 const struct lne_peer_ni *pni)
{
	const struct lne_peer_ni *w = m ? lne_peer_ni_find(want, &pni->nid) : NULL;

	return w && lne_peer_of(w) == m;
}

static bool pni_stays(const struct lne_inst *want, const struct lne_peer_ni *pni)
{
	return pni_stays_in(want, peer_match(want, lne_peer_of(pni)), pni);
}

/* --- deletions -------------------------------------------------------------------------- */

static bool expr_same(const struct lne_expr *a, const struct lne_expr *b)
{
	return !a == !b && (!a || lne_expr_equal(a, b));
}

static bool rule_same(const struct lne_rule *a, const struct lne_rule *b)
{
	return a->kind == b->kind && a->prio == b->prio && expr_same(a->src, b->src) &&
	       expr_same(a->dst, b->dst) && expr_same(a->rte, b->rte);
}

static struct lne_rule **rule_array(const struct lne_inst *ln)
{
	struct lne_rule **a = calloc(ln->udsp.nrules + 1, sizeof(*a)), *r;
	size_t i = 0;

	if (a)
		lne_list_for_each_entry(r, &ln->udsp.rules, link)
			a[i++] = r;
	return a;
}

/* The rules both lists start with (@k) and end with (@suffix, not overlapping @k). */
static int rules_common(const struct lne_inst *want, const struct lne_inst *have, u32 *k,
			u32 *suffix)
{
	struct lne_rule **w = rule_array(want), **h = rule_array(have);
	u32 nw = want->udsp.nrules, nh = have->udsp.nrules;
	int rc = w && h ? 0 : -ENOMEM;

	*k = *suffix = 0;
	while (!rc && *k < nw && *k < nh && rule_same(w[*k], h[*k]))
		(*k)++;
	while (!rc && *k + *suffix < nw && *k + *suffix < nh &&
	       rule_same(w[nw - 1 - *suffix], h[nh - 1 - *suffix]))
		(*suffix)++;
	free(w);
	free(h);
	return rc;
}

static void rules_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	struct lne_err le = {.msg = ""};
	u32 k, suffix, idx;
	int rc;

	if (rules_common(s->want, have, &k, &suffix)) {
		s->stop = -ENOMEM;
		return;
	}
	if (k + suffix == have->udsp.nrules)
		return;
	if (!k && !suffix && have->udsp.nrules > 1) {
		rc = lnetk_rule_del_all(s->kb->lk, &s->err);
		if (sent(s, rc, "the deletion of every rule"))
			lne_rule_del_all(have);
		return;
	}
	/* From the last: the idx of those before stays put. */
	for (idx = have->udsp.nrules - suffix; live(s) && idx-- > k;) {
		rc = lnetk_rule_del(s->kb->lk, idx, &s->err);
		if (sent(s, rc, "the deletion of rule %u", idx))
			local(s, lne_rule_del(have, idx, &le), &le, "a rule deletion");
	}
}

static bool route_same(const struct lne_route *a, const struct lne_route *b)
{
	return !memcmp(a->v, b->v, sizeof(a->v));
}

static void routes_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	char net[LNE_NET_STR_MAX], gw[LNE_NID_STR_MAX];
	struct lne_route *rt, *next;
	struct lne_err le = {.msg = ""};
	const struct lne_route *w;
	struct lne_nid gwnid;
	lne_net_t id;
	int rc;

	lne_list_for_each_entry_safe(rt, next, &have->routes, link) {
		if (!live(s))
			return;
		w = lne_route_find(s->want, rt->rnet->id, &rt->gw->nid);
		if (w && route_same(w, rt) && pni_stays(s->want, rt->gw))
			continue;
		id = rt->rnet->id;
		gwnid = rt->gw->nid;
		lne_net_format(id, net, sizeof(net));
		nid_text(&gwnid, gw);
		/* Deleting a route may take its implicit gateway peer, never the next route. */
		rc = lnetk_route_del(s->kb->lk, net, gw, &s->err);
		if (sent(s, rc, "the deletion of the route to %s via %s", net, gw))
			local(s, lne_route_del(have, id, &gwnid, &le), &le, "a route deletion");
	}
}

static void peers_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	char primary[LNE_NID_STR_MAX];
	const struct lne_peer *m;
	struct lne_peer *p, *next;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_err le = {.msg = ""};
	struct lne_nid pnid;
	size_t n, i;
	int rc;

	/*
	 * Every sync walks every peer, a udsp add with 10,000 peers too: a
	 * peer that stays whole costs its match and one lookup per NID, and
	 * no text (a NID as text is made only for a request).
	 */
	lne_list_for_each_entry_safe(p, next, &have->peers, link) {
		if (!live(s))
			return;
		/* An implicit peer goes with its last route: the routes went first. */
		if (p->implicit)
			continue;
		pnid = p->primary;
		m = peer_match(s->want, p);
		if (!m) {
			nid_text(&pnid, primary);
			rc = lnetk_peer_del(s->kb->lk, primary, NULL, 0, &s->err);
			if (sent(s, rc, "the deletion of peer %s", primary))
				local(s, lne_peer_del(have, &pnid, &le), &le, "a peer deletion");
			continue;
		}
		if (nid_room(s, p->npni)) {
			s->stop = -ENOMEM;
			return;
		}
		n = 0;
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				if (!pni_stays_in(s->want, m, pni)) {
					s->nids[n] = pni->nid;
					s->nidp[n] = nid_text(&pni->nid, s->nidbuf[n]);
					n++;
				}
		if (!n)
			continue;
		nid_text(&pnid, primary);
		rc = lnetk_peer_del(s->kb->lk, primary, s->nidp, n, &s->err);
		if (!sent(s, rc, "the deletion of %zu NID(s) of peer %s", n, primary))
			continue;
		for (i = 0; i < n; i++)
			local(s, lne_peer_del_nid(have, &pnid, &s->nids[i], &le), &le,
			      "a peer NID deletion");
	}
}

static bool ni_same(const struct lne_ni *a, const struct lne_ni *b)
{
	return !strcmp(a->ifname, b->ifname) && a->cpts == b->cpts && a->dev_cpt == b->dev_cpt &&
	       a->id == b->id && !memcmp(&a->tun, &b->tun, sizeof(a->tun));
}

static void nis_delete(struct sync *s)
{
	struct lne_inst *have = s->kb->pushed;
	char nid[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	struct lne_ni *ni, *next;
	const struct lne_ni *w;
	struct lne_nid id;
	int rc;

	lne_list_for_each_entry_safe(ni, next, &have->nis, all_link) {
		if (!live(s))
			return;
		w = lne_ni_find(s->want, &ni->nid);
		if (w && ni_same(w, ni))
			continue;
		id = ni->nid;
		nid_text(&id, nid);
		rc = lnetk_ni_del(s->kb->lk, nid, &s->err);
		if (sent(s, rc, "the deletion of NI %s", nid))
			local(s, lne_ni_del(have, &id, &le), &le, "an NI deletion");
	}
}

/* --- additions -------------------------------------------------------------------------- */

/* Returns whether the module took it (so that the order of the next ones holds). */
static bool global_add(struct sync *s, int g, uint32_t value)
{
	const char *name = lne_global_info(g)->name;
	struct lne_err le = {.msg = ""};
	int rc = 0;

	if (s->mode == M_COLLECT)
		rc = lnetk_batch_global(s->batch, name, value);
	else if (s->mode == M_SEND)
		rc = lnetk_global_set(s->kb->lk, name, value, &s->err);
	if (sent(s, rc, "global %s %u", name, value))
		local(s, lne_global_set(s->kb->pushed, g, value, &le), &le, "a global");
	return s->mode != M_SEND || !rc;
}

static void globals_add(struct sync *s)
{
	struct lne_inst *scratch = lne_inst_new();
	bool progress, done[LNE_G__COUNT] = {false};
	uint32_t want;
	int g;

	if (!scratch) {
		s->stop = -ENOMEM;
		return;
	}
	/* The order @pushed accepts, found on a scratch copy of its globals. */
	memcpy(scratch->globals, s->kb->pushed->globals, sizeof(scratch->globals));
	do {
		progress = false;
		for (g = 0; live(s) && g < LNE_G__COUNT; g++) {
			want = s->want->globals[g];
			if (done[g] || scratch->globals[g] == want)
				continue;
			if (lne_global_set(scratch, g, want, NULL))
				continue;
			done[g] = progress = true;
			if (!global_add(s, g, want))
				scratch->globals[g] = s->kb->pushed->globals[g];
		}
	} while (progress);
	/* What no order allows: the module says why. */
	for (g = 0; live(s) && g < LNE_G__COUNT; g++)
		if (!done[g] && scratch->globals[g] != s->want->globals[g])
			global_add(s, g, s->want->globals[g]);
	lne_inst_free(scratch);
}

static void ni_add(struct sync *s, const struct lne_ni *w)
{
	struct lne_ni_conf c = {.nid = w->nid,
				.ifname = w->ifname[0] ? w->ifname : NULL,
				.cpts = w->cpts,
				.dev_cpt = w->dev_cpt,
				.tun = &w->tun,
				.order = w->id};
	struct lnetk_ni k = {.has = LNETK_HAS_NI_CPTS | LNETK_HAS_NI_DEV_CPT |
				    (w->id < LNE_NI_PLACE_AUTO ? LNETK_HAS_NI_PLACE : 0),
			     .cpts = w->cpts,
			     .dev_cpt = w->dev_cpt,
			     .place = w->id,
			     .tun = w->tun,
			     .tun_has = LNETK_TUN_ALL};
	struct lne_err le = {.msg = ""};
	int rc = 0;

	nid_text(&w->nid, k.nid);
	if (w->ifname[0]) {
		k.has |= LNETK_HAS_NI_IFNAME;
		snprintf(k.ifname, sizeof(k.ifname), "%s", w->ifname);
	}
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_ni(s->batch, &k);
	else if (s->mode == M_SEND)
		rc = lnetk_ni_add(s->kb->lk, &k, &s->err);
	if (sent(s, rc, "NI %s", k.nid))
		local(s, lne_ni_add(s->kb->pushed, &c, &le), &le, "an NI");
}

static void nis_add(struct sync *s)
{
	const struct lne_ni *w;

	lne_list_for_each_entry(w, &s->want->nis, all_link) {
		if (!live(s))
			return;
		if (!lne_ni_find(s->kb->pushed, &w->nid))
			ni_add(s, w);
	}
}

static void peer_add(struct sync *s, const struct lne_peer *w, size_t n)
{
	struct lne_inst *have = s->kb->pushed;
	char primary[LNE_NID_STR_MAX];
	struct lne_err le = {.msg = ""};
	const struct lne_peer *p;
	size_t i;
	int rc = 0;

	nid_text(&w->primary, primary);
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_peer(s->batch, primary, w->mr, s->nidp, n);
	else if (s->mode == M_SEND)
		rc = lnetk_peer_add(s->kb->lk, primary, w->mr, s->nidp, n, &s->err);
	if (!sent(s, rc, "peer %s", primary))
		return;
	p = lne_peer_find(have, &w->primary);
	if (!p || p->implicit)
		local(s, lne_peer_add(have, &w->primary, w->mr, &le), &le, "a peer");
	for (i = 0; i < n; i++)
		local(s, lne_peer_add_nid(have, &w->primary, &s->nids[i], &le), &le, "a peer NID");
}

static void peers_add(struct sync *s)
{
	const struct lne_inst *have = s->kb->pushed;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni, *h;
	const struct lne_peer *w, *p;
	size_t n;

	lne_list_for_each_entry(w, &s->want->peers, link) {
		if (!live(s))
			return;
		/* Routes bring implicit peers. */
		if (w->implicit)
			continue;
		if (nid_room(s, w->npni)) {
			s->stop = -ENOMEM;
			return;
		}
		p = lne_peer_find(have, &w->primary);
		n = 0;
		lne_list_for_each_entry(pnet, &w->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				if (lne_nid_equal(&pni->nid, &w->primary))
					continue;
				h = p ? lne_peer_ni_find(have, &pni->nid) : NULL;
				if (h && lne_peer_of(h) == p)
					continue;
				s->nids[n] = pni->nid;
				/* As text only for the module. */
				if (s->mode == M_SEND || s->mode == M_COLLECT)
					s->nidp[n] = nid_text(&pni->nid, s->nidbuf[n]);
				n++;
			}
		if (!p || p->implicit || n)
			peer_add(s, w, n);
	}
}

static void route_add(struct sync *s, const struct lne_route *w)
{
	struct lnetk_route k = {.has = LNETK_ROUTE_ALL};
	struct lne_err le = {.msg = ""};
	int rc = 0;

	memcpy(k.v, w->v, sizeof(k.v));
	lne_net_format(w->rnet->id, k.net, sizeof(k.net));
	nid_text(&w->gw->nid, k.gateway);
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_route(s->batch, &k);
	else if (s->mode == M_SEND)
		rc = lnetk_route_add(s->kb->lk, &k, &s->err);
	if (sent(s, rc, "the route to %s via %s", k.net, k.gateway))
		local(s, lne_route_add_v(s->kb->pushed, w->rnet->id, &w->gw->nid, w->v, &le), &le,
		      "a route");
}

static void routes_add(struct sync *s)
{
	const struct lne_route *w;

	lne_list_for_each_entry(w, &s->want->routes, link) {
		if (!live(s))
			return;
		if (!lne_route_find(s->kb->pushed, w->rnet->id, &w->gw->nid))
			route_add(s, w);
	}
}

/* @idx < 0 appends. */
static void rule_add(struct sync *s, const struct lne_rule *w, int64_t idx)
{
	struct lnetk_rule k = {.src = lne_expr_text(w->src),
			       .dst = lne_expr_text(w->dst),
			       .rte = lne_expr_text(w->rte),
			       .prio = w->prio,
			       .idx = idx};
	struct lne_err le = {.msg = ""};
	int rc = 0;

	if ((w->src && !k.src) || (w->dst && !k.dst) || (w->rte && !k.rte)) {
		s->stop = -ENOMEM;
		goto out;
	}
	if (s->mode == M_COLLECT)
		rc = lnetk_batch_rule(s->batch, &k);
	else if (s->mode == M_SEND)
		rc = lnetk_rule_add(s->kb->lk, &k, NULL, NULL, &s->err);
	if (sent(s, rc, "rule %s%s%s%s%s%s (%s)", k.src ? "--src " : "", k.src ?: "",
		 k.dst ? " --dst " : "", k.dst ?: "", k.rte ? " --rte " : "", k.rte ?: "",
		 lne_rule_kind_name(w->kind)))
		local(s,
		      lne_rule_add(s->kb->pushed, k.src, k.dst, k.rte, w->prio, idx, NULL, NULL,
				   &le),
		      &le, "a rule");
out:
	free((char *)k.src);
	free((char *)k.dst);
	free((char *)k.rte);
}

static void rules_add(struct sync *s)
{
	const struct lne_inst *have = s->kb->pushed;
	struct lne_rule **w;
	u32 k, suffix, i;

	if (rules_common(s->want, have, &k, &suffix)) {
		s->stop = -ENOMEM;
		return;
	}
	/* A deletion was refused: what to insert where is no longer clear. */
	if (k + suffix != have->udsp.nrules || k + suffix == s->want->udsp.nrules)
		return;
	w = rule_array(s->want);
	if (!w) {
		s->stop = -ENOMEM;
		return;
	}
	for (i = k; live(s) && i < s->want->udsp.nrules - suffix; i++)
		rule_add(s, w[i], suffix ? (int64_t)i : -1);
	free(w);
}

/*
 * The additions, kind by kind.  The count (M_COUNT) comes first and says
 * which kinds have any: the walks that send, collect or apply them skip
 * the others (a udsp add walks the rules, not again every peer).
 */
static void additions(struct sync *s)
{
	static void (*const kinds[])(struct sync * s) = {globals_add, nis_add, peers_add,
							 routes_add, rules_add};
	size_t k, before;

	s->items = 0;
	for (k = 0; k < A__COUNT; k++) {
		if (s->mode != M_COUNT && !s->kind_items[k])
			continue;
		before = s->items;
		kinds[k](s);
		if (s->mode == M_COUNT)
			s->kind_items[k] = s->items - before;
	}
}

/* Link state, which NI_ADD (and so a batch) does not carry. */
static void ni_states(struct sync *s)
{
	struct lne_err le = {.msg = ""};
	const struct lne_ni *w;
	struct lne_ni *h;
	int rc;

	lne_list_for_each_entry(w, &s->want->nis, all_link) {
		struct lnetk_ni k = {.has = LNETK_HAS_NI_UP, .up = w->up};

		if (!live(s))
			return;
		h = lne_ni_find(s->kb->pushed, &w->nid);
		if (!h || h->up == w->up)
			continue;
		nid_text(&w->nid, k.nid);
		rc = lnetk_ni_set(s->kb->lk, &k, &s->err);
		if (sent(s, rc, "the link state of NI %s", k.nid))
			local(s, lne_ni_set_up(s->kb->pushed, &w->nid, w->up, &le), &le,
			      "a link state");
	}
}

/*
 * The additions in one batch.  Returns false when it could not be built or
 * the module refused it: the caller sends them one by one.
 */
static bool batch(struct sync *s, uint32_t flags)
{
	struct kbackend *kb = s->kb;
	struct lne_inst *before = NULL;
	double t0 = now(), t1 = 0, t2 = 0;
	uint32_t applied = 0;
	size_t bytes, k;
	int rc;

	if (flags & LNETK_F_REPLACE) {
		/* What the module becomes: a fresh instance, then the batch. */
		before = kb->pushed;
		kb->pushed = lne_inst_new();
		if (!kb->pushed) {
			kb->pushed = before;
			return false;
		}
		/* The count was against what the module held: every kind may come now. */
		for (k = 0; k < A__COUNT; k++)
			s->kind_items[k] = 1;
	}
	rc = lnetk_batch_new(kb->lk, flags, &s->batch);
	if (!rc) {
		s->mode = M_COLLECT;
		additions(s);
		rc = s->stop;
		s->stop = 0;
	}
	if (!rc) {
		bytes = lnetk_batch_bytes(s->batch);
		t1 = now();
		rc = lnetk_batch_send(s->batch, &applied, &s->err);
		t2 = now();
		if (rc && s->err.msg[0])
			log_warning("lnetk module refused a batch of %zu items (%s); sending "
				    "them one request each",
				    s->items, s->err.msg);
	}
	lnetk_batch_free(s->batch);
	s->batch = NULL;
	if (rc) {
		if (!s->err.msg[0])
			log_error("a batch of %zu items could not be sent (%s)", s->items,
				  strerror(-rc));
		if (before) {
			lne_inst_free(kb->pushed);
			kb->pushed = before;
		}
		s->mode = M_SEND;
		return false;
	}
	lne_inst_free(before);
	kb_mine_push(kb, lnetk_last_generation(kb->lk));
	s->requests++;
	s->changes += applied;
	s->mode = M_LOCAL;
	additions(s);
	s->mode = M_SEND;
	log_info("lnetk module took a %sbatch of %u items (%zu bytes): built in %.2f s, "
		 "applied in %.2f s, copied in %.2f s",
		 flags & LNETK_F_REPLACE ? "replacing " : "", applied, bytes, t1 - t0, t2 - t1,
		 now() - t2);
	return true;
}

/* ktbf.c's report of one request: counted like the others. */
static bool tbf_sent(void *ctx, int rc, const char *what)
{
	struct sync *s = ctx;

	/* A request source holds the policy: the delete waits until it lets go. */
	s->busy |= rc == -EBUSY;
	sent(s, rc, "%s", what);
	return live(s);
}

/* The TBF policies, after the objects (they do not depend on each other). */
static void tbf_push(struct sync *s)
{
	int rc;

	if (!live(s))
		return;
	s->mode = M_SEND;
	rc = ktbf_sync(s->kb->lk, s->kb->d->tbf, s->kb->d->ntbf, tbf_sent, s, &s->err);
	if (rc && !s->refused++)
		snprintf(s->first, sizeof(s->first),
			 "cannot read the lnetk module's TBF policies: %s",
			 s->err.msg[0] ? s->err.msg : strerror(-rc));
}

static void push(struct sync *s)
{
	struct kbackend *kb = s->kb;
	size_t have = objects(kb->pushed);
	bool replace = kb->replace || !have;

	s->mode = M_SEND;
	if (!replace) {
		rules_delete(s);
		routes_delete(s);
		peers_delete(s);
		nis_delete(s);
	}
	if (!live(s))
		return;
	s->mode = M_COUNT;
	additions(s);
	s->mode = M_SEND;
	/* An unreadable module is emptied even when there is nothing to add. */
	if (kb->replace || (replace && s->items >= BATCH_MIN)) {
		if (batch(s, LNETK_F_REPLACE))
			kb->replace = false;
		else
			additions(s);
	} else if (s->items >= BATCH_MIN && s->items * BATCH_RATIO >= have) {
		if (!batch(s, 0))
			additions(s);
	} else if (s->items) {
		additions(s);
	}
	ni_states(s);
	tbf_push(s);
}

void kb_push(struct kbackend *kb, struct kb_result *r)
{
	struct sync s = {.kb = kb, .want = kb->d->mirror};

	push(&s);
	free(s.nidbuf);
	free(s.nidp);
	free(s.nids);
	r->changes = s.changes;
	r->refused = s.refused;
	r->stop = s.stop;
	r->local_bad = s.local_bad;
	r->busy = s.busy;
	memcpy(r->first, s.first, sizeof(r->first));
}
