// SPDX-License-Identifier: GPL-2.0
/*
 * kernel-load.c - the kernel backend reads the module: what it holds, into
 * an engine instance (@pushed, when the two may have parted), and the
 * running state the views show (backend.h): health, routes' states, the
 * peers its discovery made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udsp.h"
#include "kernel-int.h"
#include "lnetd/log.h"

#define DUMP_TRIES 5 /* reads of the module's state that a change may interrupt */

/* --- reading the module into an engine instance ---------------------------------------- */

struct gw_health {
	struct lne_nid nid;
	int32_t health;
};

struct load {
	struct lne_inst *ln;
	struct lne_err err;
	char what[LNE_ERR_MSG_MAX + LNETK_NID_MAX + 32]; /* what the engine refused */
	struct lnetk_global *globals;
	size_t nglobals;
	struct gw_health *gws; /* implicit peers' health: they come with their routes */
	size_t ngws;
	bool refused; /* the engine refused what the module holds */
};

static int load_refused(struct load *l, const char *kind, const char *name)
{
	snprintf(l->what, sizeof(l->what), "%s %s: %s", kind, name, l->err.msg);
	l->refused = true;
	return -EINVAL;
}

static int load_global(const struct lnetk_global *g, void *arg)
{
	struct load *l = arg;
	struct lnetk_global *grown = realloc(l->globals, (l->nglobals + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	l->globals = grown;
	l->globals[l->nglobals++] = *g;
	return 0;
}

static int load_ni(const struct lnetk_ni *k, void *arg)
{
	struct load *l = arg;
	struct lne_tunables tun;
	int t;
	struct lne_ni_conf c = {.ifname = k->ifname[0] ? k->ifname : NULL,
				.cpts = k->cpts,
				.dev_cpt = (s16)k->dev_cpt,
				.tun = &tun,
				.order = k->place};

	if (lne_nid_parse(k->nid, &c.nid, &l->err))
		return load_refused(l, "NI", k->nid);
	lne_tunables_default(c.nid.lnd, &tun);
	for (t = 0; t < LNE_TUN__COUNT; t++)
		if (k->tun_has & (1u << t))
			tun.v[t] = k->tun.v[t];
	if (!(k->has & LNETK_HAS_NI_DEV_CPT))
		c.dev_cpt = LNE_CPT_ANY;
	if (lne_ni_add(l->ln, &c, &l->err))
		return load_refused(l, "NI", k->nid);
	if (k->has & LNETK_HAS_NI_UP)
		lne_ni_set_up(l->ln, &c.nid, k->up, NULL);
	if (k->has & LNETK_HAS_NI_HEALTH)
		lne_ni_set_health(l->ln, &c.nid, (s32)k->health, NULL);
	/* health 0 from failures is not down by hand: the module says which */
	if (k->has & LNETK_HAS_NI_SET_DOWN)
		lne_ni_find(l->ln, &c.nid)->set_down = k->set_down;
	return 0;
}

static int load_peer(const struct lnetk_peer *p, void *arg)
{
	struct load *l = arg;
	struct lne_nid primary, nid;
	size_t i;

	if (lne_nid_parse(p->primary, &primary, &l->err))
		return load_refused(l, "peer", p->primary);
	if (p->implicit) {
		struct gw_health *grown = realloc(l->gws, (l->ngws + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->gws = grown;
		l->gws[l->ngws].nid = primary;
		l->gws[l->ngws++].health = p->nnis ? (int32_t)p->nis[0].health : -1;
		return 0;
	}
	/* What the module's discovery found is its own: lnetd never pushed it. */
	if (p->discovered)
		return 0;
	if (lne_peer_add(l->ln, &(struct lne_peer_conf){.primary = primary, .multi_rail = p->mr},
			 &l->err))
		return load_refused(l, "peer", p->primary);
	for (i = 0; i < p->nnis; i++) {
		if (p->nis[i].discovered)
			continue;
		if (lne_nid_parse(p->nis[i].nid, &nid, &l->err))
			return load_refused(l, "peer NID", p->nis[i].nid);
		if (!lne_nid_equal(&nid, &primary) &&
		    lne_peer_add_nid(l->ln, &primary, &nid, &l->err))
			return load_refused(l, "peer NID", p->nis[i].nid);
		if (p->nis[i].has & LNETK_HAS_PNI_HEALTH)
			lne_peer_ni_set_health(l->ln, &nid, (s32)p->nis[i].health, NULL);
	}
	return 0;
}

static int load_route(const struct lnetk_route *r, void *arg)
{
	struct load *l = arg;
	u32 v[LNE_ROUTE_A__COUNT];
	struct lne_nid gw;
	lne_net_t net;
	int k;

	lne_route_defaults(v);
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		if (r->has & (1u << k))
			v[k] = r->v[k];
	if (lne_net_parse(r->net, &net, &l->err) || lne_nid_parse(r->gateway, &gw, &l->err) ||
	    lne_route_add_v(l->ln, net, &gw, v, &l->err))
		return load_refused(l, "route to", r->net);
	return 0;
}

static int load_rule(const struct lnetk_rule *r, void *arg)
{
	struct load *l = arg;
	struct lne_rule_conf c = {.src = r->src, .dst = r->dst, .rte = r->rte, .priority = r->prio};
	char idx[16];

	if (lne_rule_add(l->ln, &c, -1, NULL, NULL, &l->err)) {
		snprintf(idx, sizeof(idx), "%lld", (long long)r->idx);
		return load_refused(l, "rule", idx);
	}
	return 0;
}

/*
 * Globals in whichever order the engine takes them (retry_count must stay
 * below transaction_timeout at every step): set what is accepted, again,
 * until nothing more is.  Returns how many could not be set.
 */
static unsigned int globals_settle(struct lne_inst *ln, const uint32_t want[LNE_G__COUNT])
{
	unsigned int left;
	bool progress;
	int g;

	do {
		progress = false;
		left = 0;
		for (g = 0; g < LNE_G__COUNT; g++) {
			if (ln->globals[g] == want[g])
				continue;
			if (lne_global_set(ln, g, want[g], NULL))
				left++;
			else
				progress = true;
		}
	} while (progress && left);
	return left;
}

static int load_all(struct lnetk *lk, struct load *l)
{
	uint32_t want[LNE_G__COUNT];
	struct lnetk_err err;
	size_t i;
	int rc, g;

	rc = lnetk_global_get(lk, load_global, l, &err);
	if (!rc)
		rc = lnetk_ni_dump(lk, load_ni, l, &err);
	/* The module's own limit applied when its peers were made; here it must not refuse. */
	l->ln->globals[LNE_G_MAX_INTERFACES] = UINT32_MAX;
	if (!rc)
		rc = lnetk_peer_dump(lk, load_peer, l, &err);
	if (!rc)
		rc = lnetk_route_dump(lk, load_route, l, &err);
	for (i = 0; !rc && i < l->ngws; i++)
		if (l->gws[i].health >= 0)
			lne_peer_ni_set_health(l->ln, &l->gws[i].nid, l->gws[i].health, NULL);
	if (!rc)
		rc = lnetk_rule_dump(lk, load_rule, l, &err);
	if (rc)
		return rc;
	memcpy(want, l->ln->globals, sizeof(want));
	want[LNE_G_MAX_INTERFACES] = lne_global_info(LNE_G_MAX_INTERFACES)->def;
	for (i = 0; i < l->nglobals; i++) {
		g = lne_global_lookup(l->globals[i].name);
		if (g >= 0)
			want[g] = l->globals[i].value;
	}
	if (globals_settle(l->ln, want)) {
		snprintf(l->what, sizeof(l->what), "its globals");
		l->refused = true;
		return -EINVAL;
	}
	return 0;
}

/*
 * Which NIs the module has set down by hand (health 0: its ping info says
 * down), into lnetd's mirror, which ListNIs reads: a fresh lnetd, or one
 * whose module was changed behind its back, says what the peers are told.
 */
static void ni_state_readback(struct kbackend *kb)
{
	const struct lne_net *net;
	const struct lne_ni *ni;
	struct lne_ni *mine;

	if (!kb->d->mirror)
		return;
	lne_list_for_each_entry(net, &kb->pushed->nets, link)
		lne_list_for_each_entry(ni, &net->nis, link)
			if ((mine = lne_ni_find(kb->d->mirror, &ni->nid)))
				mine->set_down = ni->set_down;
}

/*
 * @pushed from the module's dumps, all taken at one generation.  When the
 * engine refuses what the module holds (another version?), nothing of it
 * can be trusted: @pushed starts empty and the module is replaced whole.
 */
int kb_read_module(struct kbackend *kb)
{
	struct lnetk_info before, after;
	int rc = -EAGAIN, tries;

	for (tries = 0; rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		struct load l = {.ln = lne_inst_new()};

		if (!l.ln)
			return -ENOMEM;
		rc = lnetk_get_info(kb->lk, &before, NULL);
		if (!rc)
			rc = load_all(kb->lk, &l);
		if (!rc)
			rc = lnetk_get_info(kb->lk, &after, NULL);
		if (!rc && before.generation != after.generation)
			rc = -EAGAIN;
		if (!rc) {
			lne_inst_free(kb->pushed);
			kb->pushed = l.ln;
			kb->replace = false;
			kb->horizon = after.generation;
			kb_mine_drop(kb, after.generation);
			l.ln = NULL;
			ni_state_readback(kb);
		} else if (l.refused) {
			log_warning("lnetk module holds what lnetd's engine refuses (%s): "
				    "replacing its state",
				    l.what);
			lne_inst_free(kb->pushed);
			kb->pushed = lne_inst_new();
			kb->replace = true;
			kb->horizon = before.generation;
			kb_mine_drop(kb, before.generation);
			rc = kb->pushed ? 0 : -ENOMEM;
		}
		lne_inst_free(l.ln);
		free(l.globals);
		free(l.gws);
	}
	return rc;
}

/* --- health, as the module has it ------------------------------------------------------ */

struct reading {
	struct bk_health *h;
	int rc;
};

static void health_add(struct reading *r, const char *text, struct bk_health_one *one)
{
	if (r->rc || lne_nid_parse(text, &one->nid, NULL))
		return;
	r->rc = bk_health_add(r->h, one);
}

static int health_ni(const struct lnetk_ni *k, void *arg)
{
	struct bk_health_one one = {.local = true, .up = k->up, .health = k->health};

	snprintf(one.ifname, sizeof(one.ifname), "%s", k->ifname);
	health_add(arg, k->nid, &one);
	return 0;
}

static int health_peer(const struct lnetk_peer *p, void *arg)
{
	struct bk_health_one one = {0};
	size_t i;

	if (lne_nid_parse(p->primary, &one.peer, NULL))
		return 0;
	for (i = 0; i < p->nnis; i++) {
		one.health = p->nis[i].health;
		/* the module's enum lnetk_ni_status is the engine's enum lne_pni_state */
		one.state = p->nis[i].state;
		health_add(arg, p->nis[i].nid, &one);
	}
	return 0;
}

int kb_health(struct backend *b, bool peers, struct bk_health **out)
{
	struct kbackend *kb = (struct kbackend *)b;
	struct reading r = {.h = NULL};
	int rc = -EAGAIN, tries;

	*out = NULL;
	if (!kb->lk)
		return -ENODEV;
	r.h = bk_health_new();
	/* A change in the middle of the dumps: read again. */
	for (tries = 0; r.h && rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		r.h->n = 0;
		r.rc = 0;
		rc = lnetk_ni_dump(kb->lk, health_ni, &r, NULL);
		if (!rc && peers)
			rc = lnetk_peer_dump(kb->lk, health_peer, &r, NULL);
		rc = rc ?: r.rc;
	}
	if (!r.h)
		return -ENOMEM;
	rc = rc ?: bk_health_sort(r.h);
	if (rc) {
		bk_health_free(r.h);
		return rc;
	}
	*out = r.h;
	return 0;
}

/* --- the router checker's verdicts ---------------------------------------------------------- */

struct states {
	bk_route_fn fn;
	void *arg;
};

static int route_state(const struct lnetk_route *r, void *arg)
{
	struct states *st = arg;
	struct lne_nid gw;
	lne_net_t net;

	if (lne_net_parse(r->net, &net, NULL) || lne_nid_parse(r->gateway, &gw, NULL))
		return 0;
	return st->fn(st->arg, net, &gw, r->down);
}

int kb_route_states(struct backend *b, bk_route_fn fn, void *arg)
{
	struct kbackend *kb = (struct kbackend *)b;
	struct states st = {fn, arg};

	return kb->lk ? lnetk_route_dump(kb->lk, route_state, &st, NULL) : -ENODEV;
}

/* --- what the module's discovery found ----------------------------------------------------- */

static int discovered_peer(const struct lnetk_peer *p, void *arg)
{
	struct lne_inst *ln = arg;
	enum lne_peer_got got;
	struct lne_peer *peer;
	struct lne_nid nid;
	size_t i;

	for (i = 0; !p->discovered && i < p->nnis && !p->nis[i].discovered; i++)
		;
	/* a configured peer is read too when discovery added NIDs to it */
	if ((!p->discovered && i == p->nnis) || lne_nid_parse(p->primary, &nid, NULL) ||
	    lne_peer_get(ln, &nid, p->mr, &peer, &got, NULL))
		return 0;
	peer->discovered = p->discovered;
	peer->first_pni.discovered = p->discovered;
	for (i = 0; i < p->nnis; i++) {
		struct lne_peer_ni *pni;

		if (lne_nid_parse(p->nis[i].nid, &nid, NULL))
			continue;
		if (!lne_nid_equal(&nid, &peer->primary))
			lne_peer_add_nid_to(ln, peer, &nid, NULL);
		pni = lne_peer_ni_find(ln, &nid);
		if (pni && lne_peer_of(pni) == peer)
			pni->discovered = p->discovered || p->nis[i].discovered;
	}
	return 0;
}

int kb_discovered(struct backend *b, struct lne_inst **out)
{
	struct kbackend *kb = (struct kbackend *)b;
	struct lne_inst *ln = NULL;
	int rc = -EAGAIN, tries;

	*out = NULL;
	if (!kb->lk)
		return -ENODEV;
	/* A change in the middle of the dump: read again. */
	for (tries = 0; rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		ln = lne_inst_new();
		if (!ln)
			return -ENOMEM;
		ln->globals[LNE_G_MAX_INTERFACES] = ~0u;
		rc = lnetk_peer_dump(kb->lk, discovered_peer, ln, NULL);
		if (rc) {
			lne_inst_free(ln);
			ln = NULL;
		}
	}
	*out = ln;
	return rc;
}
