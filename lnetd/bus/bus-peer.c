// SPDX-License-Identifier: GPL-2.0
/*
 * bus-peer.c - the peer methods (AddPeer, DeletePeer, ListPeers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/change.h"
#include "lnetd/lnetd.h"

void bus_peer_fields_init(struct peer_fields *pf)
{
	int k;

	memset(pf, 0, sizeof(*pf));
	pf->f[PEER_F_PRIMARY] = (struct field){"primary", 's', &pf->primary};
	pf->f[PEER_F_NIDS] = (struct field){"nids", 'a', &pf->nids, .max = LNETD_PEER_NIDS_MAX};
	pf->f[PEER_F_FORCE] = (struct field){"force", 'b', &pf->force};
	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		pf->f[PEER_F_ATTRS + k] = (struct field){lne_peer_desc[k].name, 'b', &pf->v[k]};
}

void bus_peer_fields_op(const struct peer_fields *pf, struct lnetd_op *op)
{
	int k;

	op->u.peer.primary = pf->primary;
	op->u.peer.nids = (const char *const *)pf->nids;
	for (op->u.peer.n = 0; pf->nids && pf->nids[op->u.peer.n]; op->u.peer.n++)
		;
	op->u.peer.force = pf->force;
	/* not given: -1, whichever call it came by (a new peer gets the default) */
	for (k = 0; k < LNE_PEER_A__COUNT; k++)
		op->u.peer.v[k] = pf->f[PEER_F_ATTRS + k].given ? !!pf->v[k] : -1;
}

static int peer_method(sd_bus_message *m, struct lnetd *d, enum lnetd_verb verb, sd_bus_error *e)
{
	struct lnetd_op op = {.verb = verb, .obj = OBJ_PEER};
	const char *what = verb == VERB_ADD ? "AddPeer" : "DeletePeer";
	struct peer_fields pf;
	struct caller c;
	int rc;

	bus_peer_fields_init(&pf);
	rc = sd_bus_message_read(m, "s", &pf.primary);
	if (rc >= 0)
		rc = bus_read_strv_max(m, LNETD_PEER_NIDS_MAX, &pf.nids, what, "nids", e);
	/* AddPeer's options: the settings alone (primary and nids are arguments) */
	if (rc >= 0 && verb == VERB_ADD)
		rc = bus_read_fields(m, pf.f + PEER_F_ATTRS, what, e);
	bus_peer_fields_op(&pf, &op);
	if (rc >= 0)
		rc = bus_authorise(m, &c, e);
	if (rc == 0)
		rc = bus_run(d, &c, &op, 1, false, NULL, e);
	bus_strv_free(pf.nids);
	if (rc > 0) /* polkit is asked: the call comes back with the answer */
		return 1;
	return rc < 0 ? rc : bus_reply_generation(m, d);
}

int bus_method_add_peer(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return peer_method(m, userdata, VERB_ADD, e);
}

int bus_method_delete_peer(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	return peer_method(m, userdata, VERB_DEL, e);
}

/* A NID (the key) against one of store_peer_locked()'s, for bsearch. */
static int cmp_locked(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

/* A peer and its primary NID's text, formatted once rather than at each comparison. */
struct listed {
	struct lne_peer *peer;
	char nid[LNE_NID_STR_MAX];
};

static int cmp_peer(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->nid, ((const struct listed *)b)->nid);
}

enum nids_as {
	NIDS_FOUND,  /* "as": only the NIDs discovery found */
	NIDS_HEALTH, /* "a(su)": each NID with its health */
	NIDS_STATE,  /* "a(ss)": each NID with its state as `peer show` prints it */
};

/*
 * A NID and its health "(su)" or state "(ss)", appended piece by piece:
 * sd_bus_message_append() parses its format for each of a site's 100,000.
 */
static int nid_pair(sd_bus_message *reply, enum nids_as as, const char *nid,
		    const struct lne_inst *ln, const struct lne_peer_ni *pni, struct bk_health *kh)
{
	int rc = sd_bus_message_open_container(reply, 'r', as == NIDS_HEALTH ? "su" : "ss");
	uint32_t health;

	if (rc >= 0)
		rc = sd_bus_message_append_basic(reply, 's', nid);
	if (rc >= 0 && as == NIDS_HEALTH) {
		health = bk_health_get(kh, &pni->nid, (uint32_t)pni->health);
		rc = sd_bus_message_append_basic(reply, 'u', &health);
	} else if (rc >= 0) {
		rc = sd_bus_message_append_basic(
			reply, 's',
			kh ? bk_health_state(kh, &pni->nid) ?: "NA"
			   : lne_pni_state_name(lne_peer_ni_state(ln, pni)));
	}
	return rc >= 0 ? sd_bus_message_close_container(reply) : rc;
}

/*
 * @peer's NIDs into @reply, @as says how.  @twin, with an engine that
 * keeps its discovered peers (backend.h: discovered), is its peer of the
 * same primary: the NIDs its discovery added to a configured peer are
 * there, not in lnetd's mirror.  Health and state are the engine's then
 * (@kh), the mirror's in @ln otherwise.
 */
static int append_nids(sd_bus_message *reply, const struct lne_inst *ln,
		       const struct lne_peer *peer, const struct lne_peer *twin,
		       struct bk_health *kh, enum nids_as as)
{
	bool health = as != NIDS_FOUND;
	const struct lne_peer *from[2] = {peer, twin};
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	char buf[LNE_NID_STR_MAX];
	int rc = 0, k;

	for (k = 0; k < 2 && from[k]; k++)
		lne_list_for_each_entry(pnet, &from[k]->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
				/* the twin's configured NIDs are the mirror's already */
				if ((k || !health) && !pni->discovered)
					continue;
				lne_nid_format(&pni->nid, buf, sizeof(buf));
				if (rc >= 0 && as == NIDS_FOUND)
					rc = sd_bus_message_append_basic(reply, 's', buf);
				else if (rc >= 0)
					rc = nid_pair(reply, as, buf, ln, pni, kh);
			}
	return rc;
}

/*
 * One entry of a peer's dictionary: "discovered_nids" (as: the NIDs
 * discovery found, runtime, never stored, primary or not), "nids" (a(su):
 * each NID with its health, the primary first) or "nid_states" (a(ss):
 * each NID's state, "up" or "down" where this node watches it, else "NA").
 */
static int nids_entry(sd_bus_message *reply, const struct lne_inst *ln, const struct lne_peer *peer,
		      const struct lne_peer *twin, struct bk_health *kh, enum nids_as as)
{
	static const char *const key[] = {"discovered_nids", "nids", "nid_states"};
	static const char *const sig[] = {"as", "a(su)", "a(ss)"};
	int rc = sd_bus_message_open_container(reply, 'e', "sv");

	if (rc >= 0)
		rc = sd_bus_message_append_basic(reply, 's', key[as]);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'v', sig[as]);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', sig[as] + 1);
	if (rc >= 0)
		rc = append_nids(reply, ln, peer, twin, kh, as);
	for (int c = 0; rc >= 0 && c < 3; c++)
		rc = sd_bus_message_close_container(reply);
	return rc;
}

/*
 * Explicit, implicit and discovered peers, by primary NID text: the same
 * order whatever their history.  "discovered" says discovery made the peer;
 * "discovered_nids" lists the NIDs it found (the others were configured).
 */
int bus_method_list_peers(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_inst *found = bus_engine_discovered(d);
	struct bk_health *kh = NULL;
	enum nids_as as;
	struct lne_peer *peer, *twin;
	struct listed *all;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	static const char *const flag[] = {"multi_rail", "implicit", "discovered", "locked"};
	char **locked = NULL;
	size_t n = 0, i, nlocked = 0;
	int rc, k, flags[4];

	lne_list_for_each_entry(peer, &d->mirror->peers, link)
		n++;
	if (found) /* the engine's discovery (the userspace engine's are in the mirror) */
		lne_list_for_each_entry(peer, &found->peers, link)
			n++;
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all) {
		lne_inst_free(found);
		return bus_fail(e, -ENOMEM, "out of memory");
	}
	/* Health is running state: the engine's, where it tells it. */
	if (n)
		kh = bus_engine_health(d, true);
	n = 0;
	lne_list_for_each_entry(peer, &d->mirror->peers, link)
		all[n++].peer = peer;
	if (found)
		lne_list_for_each_entry(peer, &found->peers, link)
			if (!lne_peer_find(d->mirror, &peer->primary))
				all[n++].peer = peer;
	for (i = 0; i < n; i++)
		lne_nid_format(&all[i].peer->primary, all[i].nid, sizeof(all[i].nid));
	qsort(all, n, sizeof(*all), cmp_peer);
	/* the few peers whose primary NID is locked (peer add --lock_prim): the store's */
	if (store_peer_locked(d->store, &locked) == 0)
		for (; locked && locked[nlocked]; nlocked++)
			;
	rc = sd_bus_message_new_method_return(m, &reply);
	if (rc >= 0)
		rc = sd_bus_message_open_container(reply, 'a', "(sa{sv})");
	for (i = 0; rc >= 0 && i < n; i++) {
		peer = all[i].peer;
		rc = sd_bus_message_open_container(reply, 'r', "sa{sv}");
		if (rc >= 0)
			rc = sd_bus_message_append_basic(reply, 's', all[i].nid);
		if (rc >= 0)
			rc = sd_bus_message_open_container(reply, 'a', "{sv}");
		flags[0] = peer->mr;
		flags[1] = peer->implicit;
		flags[2] = peer->discovered;
		flags[3] = !peer->implicit && !peer->discovered && nlocked &&
			   bsearch(all[i].nid, locked, nlocked, sizeof(*locked), cmp_locked);
		for (k = 0; rc >= 0 && k < 4; k++)
			rc = bus_put_basic(reply, flag[k], 'b', &flags[k]);
		twin = found && !peer->discovered ? lne_peer_find(found, &peer->primary) : NULL;
		for (as = NIDS_FOUND; rc >= 0 && as <= NIDS_STATE; as++)
			rc = nids_entry(reply, d->mirror, peer, twin, kh, as);
		/* close the a{sv} and the record */
		for (int c = 0; rc >= 0 && c < 2; c++)
			rc = sd_bus_message_close_container(reply);
	}
	free(all);
	for (i = 0; i < nlocked; i++)
		free(locked[i]);
	free(locked);
	bk_health_free(kh);
	lne_inst_free(found);
	if (rc >= 0)
		rc = sd_bus_message_close_container(reply);
	if (rc >= 0)
		rc = sd_bus_send(NULL, reply, NULL);
	return rc;
}
