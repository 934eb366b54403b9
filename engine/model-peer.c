// SPDX-License-Identifier: GPL-2.0
/*
 * model-peer.c - the NID hash and the peers: a peer's NIDs grouped by net
 * (peer nets and peer NIs), found by any of their NIDs; adding and removing
 * peers and NIDs, and a peer NI's health and credits.
 */
#include "model-int.h"
#include "text.h"
#include "udsp.h"

/* --- the NID hash ------------------------------------------------------------ */

static struct lne_peer_ni **hash_slot(const struct lne_inst *ln, const struct lne_nid *nid)
{
	return &ln->htab[modeli_nid_hash(nid) & ln->hmask];
}

/*
 * The peer NI with @nid, whose modeli_nid_hash() is @h.  Adding a NID looks it up,
 * checks it against the local NIs and links it in: one hash for the three.
 */
static struct lne_peer_ni *pni_find(const struct lne_inst *ln, const struct lne_nid *nid, u32 h)
{
	struct lne_peer_ni *pni;

	for (pni = ln->htab[h & ln->hmask]; pni; pni = pni->hnext)
		if (lne_nid_equal(&pni->nid, nid))
			return pni;
	return NULL;
}

struct lne_peer_ni *lne_peer_ni_find(const struct lne_inst *ln, const struct lne_nid *nid)
{
	return pni_find(ln, nid, modeli_nid_hash(nid));
}

/* Move the NID hash to a table of @size buckets; a failure only costs speed. */
static void hash_resize(struct lne_inst *ln, u32 size)
{
	struct lne_peer_ni **old = ln->htab, **tab, *pni, *next;
	u32 i;

	tab = lne_zalloc(size * sizeof(*tab));
	if (!tab)
		return;
	ln->htab = tab;
	for (i = 0; i <= ln->hmask; i++)
		for (pni = old[i]; pni; pni = next) {
			u32 slot = modeli_nid_hash(&pni->nid) & (size - 1);

			next = pni->hnext;
			pni->hnext = tab[slot];
			tab[slot] = pni;
		}
	ln->hmask = size - 1;
	lne_free(old);
}

/* Keep the load at most one per bucket. */
static void hash_grow(struct lne_inst *ln)
{
	hash_resize(ln, (ln->hmask + 1) * 2);
}

/*
 * 2^19 buckets, 4 MiB of pointers: the most the module's kzalloc() gives in
 * one piece (a larger request would warn).  Beyond it the table grows as it
 * always did.
 */
#define HASH_RESERVE_MAX (1u << 19)

void lne_inst_reserve(struct lne_inst *ln, u32 more)
{
	u32 want = ln->npni >= HASH_RESERVE_MAX || more > HASH_RESERVE_MAX - ln->npni
			   ? HASH_RESERVE_MAX
			   : ln->npni + more;
	u32 size = ln->hmask + 1;

	while (size < want)
		size *= 2;
	if (size > ln->hmask + 1)
		hash_resize(ln, size);
}

static void hash_del(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	struct lne_peer_ni **pp = hash_slot(ln, &pni->nid);

	while (*pp != pni)
		pp = &(*pp)->hnext;
	*pp = pni->hnext;
}

/* --- peers ------------------------------------------------------------------ */

struct lne_peer *lne_peer_find(const struct lne_inst *ln, const struct lne_nid *primary)
{
	struct lne_peer_ni *pni = lne_peer_ni_find(ln, primary);

	if (!pni || !lne_nid_equal(&lne_peer_of(pni)->primary, primary))
		return NULL;
	return lne_peer_of(pni);
}

enum lne_pni_state lne_peer_ni_state(const struct lne_inst *ln, const struct lne_peer_ni *pni)
{
	const struct lne_peer *peer = lne_peer_of(pni);
	const struct lne_net *net = pni->pnet->rnet->local;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *x;
	bool watched = false;

	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(x, &pnet->pnis, pnet_link)
			watched |= x->gw_refs > 0;
	if (!watched && lne_global_get(ln, LNE_G_ROUTING) && net && !lne_list_empty(&net->nis)) {
		const struct lne_ni *ni = lne_list_entry(net->nis.next, struct lne_ni, link);

		watched = ni->tun.peer_timeout > 0;
	}
	if (!watched)
		return LNE_PNI_NA;
	return pni->ns_down ? LNE_PNI_DOWN : LNE_PNI_UP;
}

/* The refusal of a NID that is @pni's peer's or, without @pni, local. */
static LNE_COLD int nid_taken(const struct lne_nid *nid, const struct lne_peer_ni *pni,
			      struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX], owner[LNE_NID_STR_MAX];

	if (pni)
		return lne_err_set(err, -EEXIST, modeli_nid_str(nid, buf), -1,
				   "already a NID of peer %s",
				   modeli_nid_str(&lne_peer_of(pni)->primary, owner));
	return lne_err_set(err, -EINVAL, modeli_nid_str(nid, buf), -1,
			   "is a local NI, not a peer NID");
}

/* Refuse a NID (hash @h) that is local or some peer's (@pni, found), naming the owner. */
static int nid_free(const struct lne_inst *ln, const struct lne_nid *nid, u32 h,
		    const struct lne_peer_ni *pni, struct lne_err *err)
{
	if (pni || nid->lnd == LNE_LND_LO || modeli_ni_find(ln, nid, h))
		return nid_taken(nid, pni, err);
	return 0;
}

static struct lne_peer_net *pnet_find(const struct lne_peer *peer, lne_net_t id)
{
	struct lne_peer_net *pnet;

	lne_list_for_each_entry(pnet, &peer->pnets, link)
		if (pnet->rnet->id == id)
			return pnet;
	return NULL;
}

static void pni_unlink(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	struct lne_peer_net *pnet = pni->pnet;
	struct lne_peer *peer = pnet->peer;

	lne_udsp_pni_removing(ln, pni);
	hash_del(ln, pni);
	lne_list_del(&pni->pnet_link);
	lne_list_del(&pni->rnet_link);
	pnet->rnet->npni--;
	ln->npni--;
	peer->npni--;
	if (!--pnet->npni) {
		lne_list_del(&pnet->link);
		modeli_rnet_put(pnet->rnet);
		if (pnet != &peer->first_pnet)
			lne_free(pnet);
	}
	/* The peer's own go with it (peer_free). */
	if (pni != &peer->first_pni)
		modeli_pool_put(&ln->pni_pool, pni);
}

/*
 * Add @nid (hashing to @h) to @peer; its first (the primary) takes the
 * peer's own peer NI and net.
 */
static int pni_add(struct lne_inst *ln, struct lne_peer *peer, const struct lne_nid *nid, u32 h)
{
	bool first = !peer->npni;
	struct lne_peer_net *pnet = first ? NULL : pnet_find(peer, lne_nid_net(nid));
	struct lne_peer_ni *pni = first ? &peer->first_pni
					: modeli_pool_get(&ln->pni_pool, sizeof(*pni));
	struct lne_peer_ni **slot;
	int rc;

	if (!pni)
		return -ENOMEM;
	if (!pnet) {
		pnet = first ? &peer->first_pnet : lne_zalloc(sizeof(*pnet));
		if (pnet)
			pnet->rnet = modeli_rnet_get(ln, lne_nid_net(nid));
		if (!pnet || !pnet->rnet) {
			if (!first) {
				lne_free(pnet);
				modeli_pool_put(&ln->pni_pool, pni);
			}
			return -ENOMEM;
		}
		pnet->peer = peer;
		lne_list_init(&pnet->pnis);
		lne_list_add_tail(&pnet->link, &peer->pnets);
	}
	pni->pnet = pnet;
	pni->nid = *nid;
	pni->health = LNE_HEALTH_MAX;
	pni->prio = LNE_PRIO_NONE;
	pni->credits = 8;
	lne_list_add_tail(&pni->pnet_link, &pnet->pnis);
	lne_list_add_tail(&pni->rnet_link, &pnet->rnet->pnis);
	pnet->rnet->npni++;
	pnet->npni++;
	peer->npni++;
	ln->npni++;
	slot = &ln->htab[h & ln->hmask];
	pni->hnext = *slot;
	*slot = pni;
	if (ln->npni > ln->hmask + 1)
		hash_grow(ln);
	rc = lne_udsp_pni_added(ln, pni);
	if (rc)
		pni_unlink(ln, pni);
	return rc;
}

static void peer_free(struct lne_inst *ln, struct lne_peer *peer)
{
	lne_list_del(&peer->link);
	modeli_pool_put(&ln->peer_pool, peer);
}

struct lne_peer *modeli_peer_new(struct lne_inst *ln, const struct lne_nid *primary, u32 h, bool mr,
				 bool implicit)
{
	struct lne_peer *peer = modeli_pool_get(&ln->peer_pool, sizeof(*peer));

	if (!peer)
		return NULL;
	peer->primary = *primary;
	peer->mr = mr;
	peer->implicit = implicit;
	peer->id = ln->next_id++;
	lne_list_init(&peer->pnets);
	lne_list_add_tail(&peer->link, &ln->peers);
	if (pni_add(ln, peer, primary, h)) {
		peer_free(ln, peer);
		return NULL;
	}
	return peer;
}

/* Every NID of @peer, and the peer. */
static void peer_unlink(struct lne_inst *ln, struct lne_peer *peer)
{
	while (peer->npni) {
		struct lne_peer_net *pnet =
			lne_list_entry(peer->pnets.next, struct lne_peer_net, link);

		pni_unlink(ln, lne_list_entry(pnet->pnis.next, struct lne_peer_ni, pnet_link));
	}
	peer_free(ln, peer);
}

/*
 * Configuration wins over discovery: a NID discovery gave a peer is taken
 * from it (with the whole peer if it was a discovered peer's primary NID).
 * Returns @pni, or NULL once it is gone.
 */
static struct lne_peer_ni *take_discovered(struct lne_inst *ln, struct lne_peer_ni *pni)
{
	struct lne_peer *owner = pni ? lne_peer_of(pni) : NULL;
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *x;

	if (!pni || !pni->discovered || pni->gw_refs)
		return pni;
	if (lne_nid_equal(&owner->primary, &pni->nid)) {
		if (!owner->discovered)
			return pni;
		lne_list_for_each_entry(pnet, &owner->pnets, link)
			lne_list_for_each_entry(x, &pnet->pnis, pnet_link)
				if (x->gw_refs)
					return pni;
		peer_unlink(ln, owner);
	} else {
		pni_unlink(ln, pni);
	}
	lne_changed(ln);
	return NULL;
}

int lne_peer_get(struct lne_inst *ln, const struct lne_nid *primary, bool mr, struct lne_peer **out,
		 enum lne_peer_got *got, struct lne_err *err)
{
	/* One lookup tells both whether it is a peer's primary and whether it is taken. */
	u32 h = modeli_nid_hash(primary);
	struct lne_peer_ni *pni = pni_find(ln, primary, h);
	struct lne_peer *peer = pni ? lne_peer_of(pni) : NULL;
	int rc;

	if (peer && lne_nid_equal(&peer->primary, primary)) {
		*out = peer;
		*got = LNE_PEER_FOUND;
		if (!peer->implicit && !peer->discovered)
			return 0;
		/* A route's gateway, or a peer discovery made, becomes configured. */
		peer->implicit = false;
		peer->discovered = false;
		peer->first_pni.discovered = false;
		peer->mr = mr;
		lne_changed(ln);
		*got = LNE_PEER_ADOPTED;
		return 0;
	}
	rc = nid_free(ln, primary, h, take_discovered(ln, pni), err);
	if (rc)
		return rc;
	peer = modeli_peer_new(ln, primary, h, mr, false);
	if (!peer)
		return -ENOMEM;
	lne_changed(ln);
	*out = peer;
	*got = LNE_PEER_MADE;
	return 0;
}

int lne_peer_add(struct lne_inst *ln, const struct lne_peer_conf *conf, struct lne_err *err)
{
	enum lne_peer_got got;
	struct lne_peer *peer;
	int rc = lne_peer_get(ln, &conf->primary, conf->multi_rail, &peer, &got, err);

	/* An explicit peer with this primary NID: the NID is taken. */
	if (!rc && got == LNE_PEER_FOUND)
		return nid_taken(&conf->primary, &peer->first_pni, err);
	return rc;
}

static struct lne_peer *peer_lookup(const struct lne_inst *ln, const struct lne_nid *primary,
				    struct lne_err *err)
{
	struct lne_peer *peer = lne_peer_find(ln, primary);
	char buf[LNE_NID_STR_MAX];

	if (!peer)
		lne_err_set(err, -ENOENT, modeli_nid_str(primary, buf), -1,
			    "no peer has this primary NID");
	return peer;
}

static LNE_COLD int too_many_nids(const struct lne_inst *ln, const struct lne_peer *peer,
				  struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];

	return lne_err_set(err, -E2BIG, modeli_nid_str(&peer->primary, buf), -1,
			   "the peer already has max_interfaces (%u) NIDs",
			   ln->globals[LNE_G_MAX_INTERFACES]);
}

int lne_peer_add_nid_to(struct lne_inst *ln, struct lne_peer *peer, const struct lne_nid *nid,
			struct lne_err *err)
{
	u32 h = modeli_nid_hash(nid);
	struct lne_peer_ni *pni = pni_find(ln, nid, h);
	int rc;

	/* a NID discovery gave: this peer's is configured now, another's is taken */
	if (pni && pni->discovered && lne_peer_of(pni) == peer && !peer->discovered) {
		pni->discovered = false;
		lne_changed(ln);
		return 0;
	}
	if (!peer->discovered)
		pni = take_discovered(ln, pni);
	rc = nid_free(ln, nid, h, pni, err);
	if (rc)
		return rc;
	if (peer->npni >= ln->globals[LNE_G_MAX_INTERFACES])
		return too_many_nids(ln, peer, err);
	rc = pni_add(ln, peer, nid, h);
	if (rc)
		return rc;
	lne_changed(ln);
	return 0;
}

int lne_peer_add_nid(struct lne_inst *ln, const struct lne_nid *primary, const struct lne_nid *nid,
		     struct lne_err *err)
{
	struct lne_peer *peer = peer_lookup(ln, primary, err);

	if (!peer)
		return -ENOENT;
	return lne_peer_add_nid_to(ln, peer, nid, err);
}

static int check_not_gateway(const struct lne_peer_ni *pni, struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];

	if (pni->gw_refs)
		return lne_err_set(err, -EBUSY, modeli_nid_str(&pni->nid, buf), -1,
				   "is the gateway of %u route(s); delete them first",
				   pni->gw_refs);
	return 0;
}

int lne_peer_del(struct lne_inst *ln, const struct lne_nid *primary, struct lne_err *err)
{
	struct lne_peer *peer = peer_lookup(ln, primary, err);
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	int rc;

	if (!peer)
		return -ENOENT;
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			rc = check_not_gateway(pni, err);
			if (rc)
				return rc;
		}
	peer_unlink(ln, peer);
	lne_changed(ln);
	return 0;
}

int lne_peer_del_nid(struct lne_inst *ln, const struct lne_nid *primary, const struct lne_nid *nid,
		     struct lne_err *err)
{
	struct lne_peer *peer = peer_lookup(ln, primary, err);
	char buf[LNE_NID_STR_MAX], pbuf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni;
	int rc;

	if (!peer)
		return -ENOENT;
	pni = lne_peer_ni_find(ln, nid);
	if (!pni || lne_peer_of(pni) != peer)
		return lne_err_set(err, -ENOENT, modeli_nid_str(nid, buf), -1,
				   "not a NID of peer %s", modeli_nid_str(primary, pbuf));
	if (peer->npni == 1)
		return lne_peer_del(ln, primary, err);
	if (lne_nid_equal(nid, primary))
		return lne_err_set(
			err, -EBUSY, modeli_nid_str(nid, buf), -1,
			"is the peer's primary NID; delete its other NIDs or the whole peer");
	rc = check_not_gateway(pni, err);
	if (rc)
		return rc;
	pni_unlink(ln, pni);
	lne_changed(ln);
	return 0;
}

static struct lne_peer_ni *pni_lookup(const struct lne_inst *ln, const struct lne_nid *nid,
				      char *buf, struct lne_err *err)
{
	struct lne_peer_ni *pni = lne_peer_ni_find(ln, nid);

	modeli_nid_str(nid, buf);
	if (!pni)
		lne_err_set(err, -ENOENT, buf, -1, "no peer has this NID");
	return pni;
}

int lne_peer_ni_set_health(struct lne_inst *ln, const struct lne_nid *nid, s32 health,
			   struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni = pni_lookup(ln, nid, buf, err);
	int rc;

	if (!pni)
		return -ENOENT;
	rc = modeli_check_health(health, buf, err);
	if (rc)
		return rc;
	pni->health = health;
	lne_changed(ln);
	return 0;
}

int lne_peer_ni_set_credits(struct lne_inst *ln, const struct lne_nid *nid, s32 credits,
			    struct lne_err *err)
{
	char buf[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni = pni_lookup(ln, nid, buf, err);

	if (!pni)
		return -ENOENT;
	pni->credits = credits;
	lne_changed(ln);
	return 0;
}
