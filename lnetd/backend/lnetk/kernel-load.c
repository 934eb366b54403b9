// SPDX-License-Identifier: GPL-2.0
/*
 * kernel-load.c - the kernel backend reads the module: what it holds, into
 * an engine instance (@pushed, when the two may have parted), and the
 * health of its NIs (the List methods show the module's).
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
	if (lne_peer_add(l->ln, &primary, p->mr, &l->err))
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
	char idx[16];

	if (lne_rule_add(l->ln, r->src, r->dst, r->rte, r->prio, -1, NULL, NULL, &l->err)) {
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

struct khealth {
	struct khealth_one {
		struct lne_nid nid;
		uint32_t health;
		uint8_t state; /* enum lnetk_ni_status: a peer NI's, as `peer show` prints it */
	} * v;
	size_t n, cap;
	int rc;
};

static void health_add(struct khealth *h, const char *text, uint32_t health, uint8_t state)
{
	struct khealth_one *grown;

	if (h->rc)
		return;
	if (h->n == h->cap) {
		/* The capacity grows with the block, never before it: a dump read again
		 * after a failed realloc must not write past the old one. */
		size_t cap = h->cap ? 2 * h->cap : 64;

		grown = realloc(h->v, cap * sizeof(*h->v));
		if (!grown) {
			h->rc = -ENOMEM;
			return;
		}
		h->v = grown;
		h->cap = cap;
	}
	if (!lne_nid_parse(text, &h->v[h->n].nid, NULL)) {
		h->v[h->n].state = state;
		h->v[h->n++].health = health;
	}
}

static int health_ni(const struct lnetk_ni *k, void *arg)
{
	health_add(arg, k->nid, k->health, LNETK_NI_STATUS_UNKNOWN);
	return 0;
}

static int health_peer(const struct lnetk_peer *p, void *arg)
{
	size_t i;

	for (i = 0; i < p->nnis; i++)
		health_add(arg, p->nis[i].nid, p->nis[i].health, p->nis[i].state);
	return 0;
}

static int health_cmp(const void *a, const void *b)
{
	return lne_nid_cmp(&((const struct khealth_one *)a)->nid,
			   &((const struct khealth_one *)b)->nid);
}

struct khealth *kbackend_health(struct kbackend *kb, bool peers)
{
	struct khealth *h;
	int rc = -EAGAIN, tries;

	if (!kb->lk)
		return NULL;
	h = calloc(1, sizeof(*h));
	/* A change in the middle of the dumps: read again. */
	for (tries = 0; h && rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		h->n = 0;
		h->rc = 0;
		rc = lnetk_ni_dump(kb->lk, health_ni, h, NULL);
		if (!rc && peers)
			rc = lnetk_peer_dump(kb->lk, health_peer, h, NULL);
		rc = rc ?: h->rc;
	}
	if (!h || rc) {
		khealth_free(h);
		return NULL;
	}
	qsort(h->v, h->n, sizeof(*h->v), health_cmp);
	return h;
}

static const struct khealth_one *khealth_find(const struct khealth *h, const struct lne_nid *nid)
{
	struct khealth_one key = {.nid = *nid};

	if (!h || !h->n)
		return NULL;
	return bsearch(&key, h->v, h->n, sizeof(*h->v), health_cmp);
}

uint32_t khealth_get(const struct khealth *h, const struct lne_nid *nid, uint32_t fallback)
{
	const struct khealth_one *one = khealth_find(h, nid);

	return one ? one->health : fallback;
}

const char *khealth_state(const struct khealth *h, const struct lne_nid *nid)
{
	const struct khealth_one *one = khealth_find(h, nid);

	if (!one)
		return NULL;
	/* the module's enum lnetk_ni_status is the engine's enum lne_pni_state */
	return lne_pni_state_name((enum lne_pni_state)one->state);
}

void khealth_free(struct khealth *h)
{
	if (!h)
		return;
	free(h->v);
	free(h);
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

struct lne_inst *kbackend_discovered(struct kbackend *kb)
{
	struct lne_inst *ln;
	int rc = -EAGAIN, tries;

	if (!kb->lk)
		return NULL;
	/* A change in the middle of the dump: read again. */
	for (tries = 0; rc == -EAGAIN && tries < DUMP_TRIES; tries++) {
		ln = lne_inst_new();
		if (!ln)
			return NULL;
		ln->globals[LNE_G_MAX_INTERFACES] = ~0u;
		rc = lnetk_peer_dump(kb->lk, discovered_peer, ln, NULL);
		if (rc) {
			lne_inst_free(ln);
			ln = NULL;
		}
	}
	return ln;
}
