// SPDX-License-Identifier: GPL-2.0
/*
 * model-ni.c - local nets and their NIs: adding and removing them (the
 * first NI makes its net, the last one's removal takes it), finding them
 * (local NIs by NID through a small hash), and their health, link state
 * and credits.
 */
#include "model-int.h"
#include "udsp.h"

struct lne_net *lne_net_find(const struct lne_inst *ln, lne_net_t id)
{
	struct lne_net *net;

	lne_list_for_each_entry(net, &ln->nets, link)
		if (net->id == id)
			return net;
	return NULL;
}

static struct lne_ni **ni_slot(struct lne_inst *ln, const struct lne_nid *nid)
{
	return &ln->ni_htab[modeli_nid_hash(nid) % LNE_NI_HASH];
}

/* The local NI with @nid, whose modeli_nid_hash() is @h: a peer NID's check reuses its hash. */
struct lne_ni *modeli_ni_find(const struct lne_inst *ln, const struct lne_nid *nid, u32 h)
{
	struct lne_ni *ni;

	/* Every peer NID added is checked against the local NIs: a hash. */
	for (ni = ln->ni_htab[h % LNE_NI_HASH]; ni; ni = ni->hnext)
		if (lne_nid_equal(&ni->nid, nid))
			return ni;
	return NULL;
}

struct lne_ni *lne_ni_find(const struct lne_inst *ln, const struct lne_nid *nid)
{
	return modeli_ni_find(ln, nid, modeli_nid_hash(nid));
}

static int check_tunables(const struct lne_tunables *t, const char *nid, struct lne_err *err)
{
	const struct lne_tun_desc *d;
	enum lne_tun bad;

	if (!lne_tunables_check(t, &bad))
		return 0;
	d = &lne_tun_desc[bad];
	if (d->max == U32_MAX)
		return lne_err_set(err, -EINVAL, nid, -1, "%s must be at least %u", d->name,
				   d->min);
	return lne_err_set(err, -EINVAL, nid, -1, "%s must be %u to %u", d->name, d->min, d->max);
}

/* The NI of @ln at place @id, if any. */
static struct lne_ni *ni_at(const struct lne_inst *ln, u64 id)
{
	struct lne_ni *ni;

	lne_list_for_each_entry(ni, &ln->nis, all_link)
		if (ni->id == id)
			return ni;
	return NULL;
}

/* Insert @ni (its id set) in both its lists by id. */
static void ni_place(struct lne_inst *ln, struct lne_ni *ni)
{
	struct lne_list *at = &ln->nis;
	struct lne_ni *o;

	lne_list_for_each_entry(o, &ln->nis, all_link)
		if (o->id > ni->id) {
			at = &o->all_link;
			break;
		}
	lne_list_add_tail(&ni->all_link, at);
	at = &ni->net->nis;
	lne_list_for_each_entry(o, &ni->net->nis, link)
		if (o->id > ni->id) {
			at = &o->link;
			break;
		}
	lne_list_add_tail(&ni->link, at);
}

/* Insert @net among the nets where an NI with id @first goes: a net is where its first NI is. */
static void net_place(struct lne_inst *ln, struct lne_net *net, u64 first)
{
	struct lne_list *at = &ln->nets;
	struct lne_net *m;

	lne_list_for_each_entry(m, &ln->nets, link)
		if (m->nni && lne_list_entry(m->nis.next, struct lne_ni, link)->id > first) {
			at = &m->link;
			break;
		}
	lne_list_add_tail(&net->link, at);
}

/* The place of an NI given none: after the last (places from 2^63 on are for those). */
static u64 ni_next_place(const struct lne_inst *ln)
{
	u64 last = lne_list_empty(&ln->nis)
			   ? 0
			   : lne_list_entry(ln->nis.prev, struct lne_ni, all_link)->id;

	return last < LNE_NI_PLACE_AUTO ? LNE_NI_PLACE_AUTO : last + 1;
}

int lne_ni_add(struct lne_inst *ln, const struct lne_ni_conf *c, struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni, *held;
	struct lne_peer_ni *pni;
	struct lne_net *net;
	bool new_net;
	u64 place;
	int rc;

	modeli_nid_str(&c->nid, buf);
	if (c->nid.lnd == LNE_LND_LO)
		return lne_err_set(err, -EINVAL, buf, -1,
				   "the loopback NI always exists and cannot be added");
	if (lne_ni_find(ln, &c->nid))
		return lne_err_set(err, -EEXIST, buf, -1, "already a local NI");
	pni = lne_peer_ni_find(ln, &c->nid);
	if (pni) {
		char owner[LNE_NID_STR_MAX];

		return lne_err_set(err, -EEXIST, buf, -1, "already a NID of peer %s",
				   modeli_nid_str(&lne_peer_of(pni)->primary, owner));
	}
	if (c->ifname && strlen(c->ifname) >= LNE_IFNAME_MAX)
		return lne_err_set(err, -EINVAL, buf, -1,
				   "interface name '%s' is longer than %d characters", c->ifname,
				   LNE_IFNAME_MAX - 1);
	if (c->dev_cpt != LNE_CPT_ANY && (c->dev_cpt < 0 || c->dev_cpt >= LNE_MAX_CPTS))
		return lne_err_set(err, -EINVAL, buf, -1, "device CPT %d is outside 0..%d",
				   c->dev_cpt, LNE_MAX_CPTS - 1);
	if (c->tun) {
		rc = check_tunables(c->tun, buf, err);
		if (rc)
			return rc;
	}
	place = c->order ? c->order : ni_next_place(ln);
	if (!place)
		return lne_err_set(err, -ENOSPC, buf, -1, "no place is left after the last NI");
	held = c->order ? ni_at(ln, place) : NULL;
	if (held) {
		char other[LNE_NID_STR_MAX];

		return lne_err_set(err, -EEXIST, buf, -1, "its place %llu is NI %s's",
				   (unsigned long long)place, modeli_nid_str(&held->nid, other));
	}

	ni = lne_zalloc(sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	net = lne_net_find(ln, lne_nid_net(&c->nid));
	new_net = !net;
	if (new_net) {
		net = lne_zalloc(sizeof(*net));
		if (!net)
			goto nomem;
		net->id = lne_nid_net(&c->nid);
		net->prio.value = LNE_PRIO_NONE;
		lne_list_init(&net->nis);
		net->rnet = modeli_rnet_get(ln, net->id);
		if (!net->rnet)
			goto nomem;
		net->rnet->local = net;
		net_place(ln, net, place);
		lne_udsp_net_added(ln, net);
	}
	ni->net = net;
	ni->nid = c->nid;
	if (c->ifname)
		strcpy(ni->ifname, c->ifname);
	ni->cpts = c->cpts;
	ni->dev_cpt = c->dev_cpt;
	ni->up = true;
	ni->health = LNE_HEALTH_MAX;
	ni->prio.value = LNE_PRIO_NONE;
	if (c->tun)
		ni->tun = *c->tun;
	else
		lne_tunables_default(c->nid.lnd, &ni->tun);
	ni->credits = (s32)ni->tun.credits;
	ni->id = place;
	ni_place(ln, ni);
	if (!new_net && net->nis.next == &ni->link) {
		lne_list_del(&net->link);
		net_place(ln, net, ni->id);
	}
	ni->hnext = *ni_slot(ln, &ni->nid);
	*ni_slot(ln, &ni->nid) = ni;
	net->nni++;
	ln->nni++;
	rc = lne_udsp_ni_added(ln, ni);
	if (rc) {
		lne_ni_del(ln, &ni->nid, NULL);
		return rc;
	}
	lne_changed(ln);
	return 0;
nomem:
	if (new_net && net) {
		if (net->rnet)
			modeli_rnet_put(net->rnet);
		lne_free(net);
	}
	lne_free(ni);
	return -ENOMEM;
}

static void net_free(struct lne_net *net)
{
	lne_list_del(&net->link);
	net->rnet->local = NULL;
	modeli_rnet_put(net->rnet);
	lne_free(net);
}

int lne_ni_del(struct lne_inst *ln, const struct lne_nid *nid, struct lne_err *err)
{
	struct lne_ni *ni = lne_ni_find(ln, nid), **pp;
	char buf[LNE_NID_STR_MAX];
	struct lne_peer *peer;
	struct lne_net *net;

	if (!ni)
		return lne_err_set(err, -ENOENT, modeli_nid_str(nid, buf), -1, "no such local NI");
	net = ni->net;
	lne_udsp_ni_removing(ln, ni);
	/* Non-Multi-Rail peers that kept this NI pick another one. */
	lne_list_for_each_entry(peer, &ln->peers, link)
		if (peer->nmr_src == ni)
			peer->nmr_src = NULL;
	for (pp = ni_slot(ln, &ni->nid); *pp != ni; pp = &(*pp)->hnext)
		;
	*pp = ni->hnext;
	lne_list_del(&ni->link);
	lne_list_del(&ni->all_link);
	net->nni--;
	ln->nni--;
	lne_free(ni);
	if (!net->nni) {
		net_free(net);
	} else {
		lne_list_del(&net->link);
		net_place(ln, net, lne_list_entry(net->nis.next, struct lne_ni, link)->id);
	}
	lne_changed(ln);
	return 0;
}

int lne_net_del(struct lne_inst *ln, lne_net_t id, struct lne_err *err)
{
	struct lne_net *net = lne_net_find(ln, id);
	char buf[LNE_NET_STR_MAX];

	if (!net)
		return lne_err_set(err, -ENOENT, modeli_net_str(id, buf), -1, "no such local net");
	while (net->nni > 1)
		lne_ni_del(ln, &lne_list_entry(net->nis.next, struct lne_ni, link)->nid, NULL);
	return lne_ni_del(ln, &lne_list_entry(net->nis.next, struct lne_ni, link)->nid, NULL);
}

int modeli_check_health(s32 health, const char *what, struct lne_err *err)
{
	if (health < 0 || health > LNE_HEALTH_MAX)
		return lne_err_set(err, -ERANGE, what, -1, "health %d is outside 0..%d", health,
				   LNE_HEALTH_MAX);
	return 0;
}

static struct lne_ni *ni_lookup(const struct lne_inst *ln, const struct lne_nid *nid, char *buf,
				struct lne_err *err)
{
	struct lne_ni *ni = lne_ni_find(ln, nid);

	/* Callers quote @buf in later refusals too: always fill it. */
	modeli_nid_str(nid, buf);
	if (!ni)
		lne_err_set(err, -ENOENT, buf, -1, "no such local NI");
	return ni;
}

int lne_ni_set_health(struct lne_inst *ln, const struct lne_nid *nid, s32 health,
		      struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni = ni_lookup(ln, nid, buf, err);
	int rc;

	if (!ni)
		return -ENOENT;
	rc = modeli_check_health(health, buf, err);
	if (rc)
		return rc;
	ni->health = health;
	ni->set_down = !health;
	lne_changed(ln);
	return 0;
}

int lne_ni_set_up(struct lne_inst *ln, const struct lne_nid *nid, bool up, struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni = ni_lookup(ln, nid, buf, err);

	if (!ni)
		return -ENOENT;
	ni->up = up;
	lne_changed(ln);
	return 0;
}

int lne_ni_set_credits(struct lne_inst *ln, const struct lne_nid *nid, s32 credits,
		       struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_ni *ni = ni_lookup(ln, nid, buf, err);

	if (!ni)
		return -ENOENT;
	ni->credits = credits;
	lne_changed(ln);
	return 0;
}
