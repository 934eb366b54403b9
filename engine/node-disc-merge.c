// SPDX-License-Identifier: GPL-2.0
/*
 * node-disc-merge.c - discovery's data (node-disc.c): a ping reply or a
 * push, checked and merged into the model.
 */
#include "node-disc-int.h"

/* --- the data: a ping reply or a push ---------------------------------------- */

struct disc_data {
	struct lnw_ping p;
	struct lnw_ping_ent *e; /* e[1..p.n-1]: the peer's NIDs, 0@lo is e[0] */
	u32 seq;
	struct lne_nid primary;
};

const char *const lne_nd_disc_bad_names[LNE_DBAD__COUNT] = {
	[LNE_DBAD_MAGIC] = "disc_bad_magic",
	[LNE_DBAD_COUNT] = "disc_bad_nid_count",
	[LNE_DBAD_DUP] = "disc_duplicate_nid",
	[LNE_DBAD_OWNER] = "disc_nid_of_another",
	[LNE_DBAD_NOT_MR] = "disc_push_not_multi_rail",
	[LNE_DBAD_NO_STALE] = "disc_push_stale",
};

/* Count it; the first of each kind is logged. */
static int bad(struct lne_node *n, enum lne_disc_bad why, bool push, u64 from, u64 nid)
{
	char line[192], a[LNE_NID_STR_MAX], b[LNE_NID_STR_MAX];
	struct lne_nid x;

	n->dst.bad[why]++;
	if (n->disc_logged & (1u << why) || !n->ops->log || why == LNE_DBAD_NO_STALE)
		return -EPROTO;
	n->disc_logged |= 1u << why;
	lne_node_nid(n, from, &x);
	lne_nid_format(&x, a, sizeof(a));
	lne_node_nid(n, nid, &x);
	lne_nid_format(&x, b, sizeof(b));
	snprintf(line, sizeof(line), "discovery: %s from %s refused (%s%s%s); logged once",
		 push ? "push" : "ping reply", a, lne_nd_disc_bad_names[why] + 5, nid ? ": " : "",
		 nid ? b : "");
	n->ops->log(n->ctx, line);
	return -EPROTO;
}

/*
 * The large NIDs of ping info (LNW_PING_FEAT_LARGE_ADDR) after its 8-byte
 * ones in dd->e, as the node's keys; -EPROTO if they do not fit or read.
 */
static int parse_large(struct lne_node *n, const u8 *buf, u32 len, struct disc_data *dd)
{
	u32 cap = LNW_PING_NIS_MAX - dd->p.n, nl, i;
	struct lnw_ping_large *l;
	int rc = 0;

	if (!(dd->p.features & LNW_PING_FEAT_LARGE_ADDR))
		return 0;
	l = lne_zalloc((cap ?: 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (lnw_ping16_unpack(buf, len, l, cap, &nl) || nl > cap)
		rc = -EPROTO;
	for (i = 0; !rc && i < nl; i++) {
		dd->e[dd->p.n].status = l[i].status;
		if (lne_node_key(n, &l[i].nid, &dd->e[dd->p.n++].nid))
			rc = -EPROTO;
	}
	lne_free(l);
	return rc;
}

/* Parse and check @buf: the magic, the count against the length, no NID twice, none ours. */
static int parse(struct lne_node *n, const u8 *buf, u32 len, bool push, u64 from,
		 struct disc_data *dd)
{
	u32 i, j, declared;
	bool flip;

	if (!buf || len < LNW_PING_HDR_SIZE)
		return bad(n, LNE_DBAD_COUNT, push, from, 0);
	flip = lnw_get32(buf, false) != LNW_MAGIC_PING;
	declared = lnw_get32(buf + 12, flip);
	switch (lnw_ping_unpack(buf, len, &dd->p, dd->e, LNW_PING_NIS_MAX)) {
	case LNW_OK:
		break;
	case LNW_F_MAGIC:
		return bad(n, LNE_DBAD_MAGIC, push, from, 0);
	default:
		return bad(n, LNE_DBAD_COUNT, push, from, 0);
	}
	if (declared != dd->p.n || !dd->p.n || dd->e[0].nid >> 48 != LNE_LND_LO ||
	    parse_large(n, buf, len, dd) || dd->p.n < 2)
		return bad(n, LNE_DBAD_COUNT, push, from, 0);
	dd->seq = dd->e[0].status;
	for (i = 1; i < dd->p.n; i++) {
		struct lne_nid nid;

		lne_node_nid(n, dd->e[i].nid, &nid);
		if (nid.lnd == LNE_LND_LO || lne_ni_find(n->ln, &nid))
			return bad(n, LNE_DBAD_OWNER, push, from, dd->e[i].nid);
		for (j = 1; j < i; j++)
			if (dd->e[j].nid == dd->e[i].nid)
				return bad(n, LNE_DBAD_DUP, push, from, dd->e[i].nid);
	}
	lne_node_nid(n, dd->e[1].nid, &dd->primary);
	return 0;
}

static bool listed(const struct lne_node *n, const struct disc_data *dd, const struct lne_nid *nid)
{
	u64 nid4;
	u32 i;

	if (lne_node_key_find(n, nid, &nid4))
		return false;
	for (i = 1; i < dd->p.n; i++)
		if (dd->e[i].nid == nid4)
			return true;
	return false;
}

bool lne_nd_disc_configured(const struct lne_peer *p)
{
	/* its primary NID is locked (lnetctl peer add --lock_prim), its NIDs are kept */
	return !p->discovered || p->implicit;
}

/*
 * The peers the data touches besides @self: a configured one becomes the
 * target (one at most); a discovered one folds into the target unless it
 * is a discovered node of its own (its data merged, its primary NID not in
 * this data).  *@target is the peer the data goes to (NULL: a new one).
 */
static int owners(struct lne_node *n, const struct disc_data *dd, struct lne_peer *self, bool push,
		  u64 from, struct lne_peer **target)
{
	struct lne_peer *cfg = self && lne_nd_disc_configured(self) ? self : NULL;
	struct lne_peer *named = NULL;
	u32 i;

	for (i = 1; i < dd->p.n; i++) {
		struct lne_peer *p = lne_nd_disc_peer_of(n, dd->e[i].nid);

		if (!p || p == self)
			continue;
		if (lne_nd_disc_configured(p)) {
			if (cfg && cfg != p)
				return bad(n, LNE_DBAD_OWNER, push, from, dd->e[i].nid);
			cfg = p;
		} else if (p->disc & LNE_DISC_MERGED && !listed(n, dd, &p->primary)) {
			return bad(n, LNE_DBAD_OWNER, push, from, dd->e[i].nid);
		}
		if (lne_nid_equal(&p->primary, &dd->primary))
			named = p;
	}
	*target = cfg ? cfg : self ? self : named;
	return 0;
}

/* One NID of a peer folded or rebuilt: what it had. */
struct disc_keep {
	struct lne_nid nid;
	s32 health, credits;
	bool discovered;
};

struct disc_keeps {
	struct disc_keep *k;
	u32 n, cap;
	u8 disc;
	u32 our_seq;
};

/* Note @peer's NIDs and state, and delete it. */
static int keep_and_delete(struct lne_node *n, struct lne_peer *peer, struct disc_keeps *ks)
{
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;
	struct lne_nid primary = peer->primary;

	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			if (pni->gw_refs)
				return -EBUSY;
			if (ks->n == ks->cap) {
				u32 cap = ks->cap ? ks->cap * 2 : 16;
				struct disc_keep *k = lne_zalloc(cap * sizeof(*k));

				if (!k)
					return -ENOMEM;
				if (ks->n)
					memcpy(k, ks->k, ks->n * sizeof(*k));
				lne_free(ks->k);
				ks->k = k;
				ks->cap = cap;
			}
			ks->k[ks->n++] = (struct disc_keep){pni->nid, pni->health, pni->credits,
							    pni->discovered};
		}
	ks->disc |= peer->disc;
	if (peer->disc_our_seq > ks->our_seq)
		ks->our_seq = peer->disc_our_seq;
	return lne_peer_del(n->ln, &primary, NULL);
}

/* Add @nid to @peer unless it has it; @src: what it had before a fold. */
static void add_nid(struct lne_node *n, struct lne_peer *peer, const struct lne_nid *nid,
		    const struct disc_keep *src)
{
	struct lne_peer_ni *pni = lne_peer_ni_find(n->ln, nid);

	if (!pni) {
		if (lne_peer_add_nid_to(n->ln, peer, nid, NULL))
			return;
		pni = lne_peer_ni_find(n->ln, nid);
		pni->discovered = true;
	}
	if (lne_peer_of(pni) != peer || !src)
		return;
	pni->discovered = src->discovered;
	pni->health = src->health;
	pni->credits = src->credits;
}

/* Remove @peer's discovered NIDs the data does not list (but @keep, and the primary). */
static void drop_unlisted(struct lne_node *n, struct lne_peer *peer, const struct disc_data *dd,
			  const struct lne_nid *keep)
{
	struct lne_peer_net *pnet, *pn;
	struct lne_peer_ni *pni, *pi;

	lne_list_for_each_entry_safe(pnet, pn, &peer->pnets, link)
		lne_list_for_each_entry_safe(pni, pi, &pnet->pnis, pnet_link)
			if (pni->discovered && !listed(n, dd, &pni->nid) &&
			    !lne_nid_equal(&pni->nid, keep) &&
			    !lne_nid_equal(&pni->nid, &peer->primary))
				lne_peer_del_nid(n->ln, &peer->primary, &pni->nid, NULL);
}

/* Each of @peer's NIs the data lists is up or down as its node says (236). */
void lne_nd_note_status(struct lne_node *n, const struct lne_peer *peer,
			const struct lnw_ping_ent *e, u32 count)
{
	u32 i;

	for (i = 1; i < count; i++) {
		struct lne_peer_ni *pni;
		struct lne_nid nid;

		lne_node_nid(n, e[i].nid, &nid);
		pni = lne_peer_ni_find(n->ln, &nid);
		if (pni && lne_peer_of(pni) == peer)
			pni->ns_down = e[i].status != LNW_NI_STATUS_UP;
	}
}

static bool write_begin(struct lne_node *n)
{
	return !n->ops->model_write || n->ops->model_write(n->ctx, true);
}

static void write_end(struct lne_node *n)
{
	if (n->ops->model_write)
		n->ops->model_write(n->ctx, false);
}

/* A new discovered peer with primary NID @nid (the caller may change the instance). */
static struct lne_peer *peer_make(struct lne_node *n, const struct lne_nid *nid, bool mr)
{
	enum lne_peer_got got;
	struct lne_peer *peer;

	if (lne_peer_get(n->ln, nid, mr, &peer, &got, NULL) || got != LNE_PEER_MADE)
		return NULL;
	peer->discovered = true;
	peer->first_pni.discovered = true;
	return peer;
}

/* The same, asking for the right to change the instance first. */
struct lne_peer *lne_nd_disc_peer_new(struct lne_node *n, const struct lne_nid *nid, bool mr)
{
	struct lne_peer *peer;

	if (!write_begin(n))
		return NULL;
	peer = peer_make(n, nid, mr);
	write_end(n);
	return peer;
}

/* Verify only: say where the data and a configured peer differ; change nothing. */
static void verify(struct lne_node *n, struct lne_peer *t, const struct disc_data *dd)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	u32 mine = 0, same = 0;

	if (!lne_nd_disc_configured(t))
		return;
	lne_list_for_each_entry(pnet, &t->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			mine++;
			same += listed(n, dd, &pni->nid);
		}
	if (same == mine && same == dd->p.n - 1)
		return;
	n->dst.mismatch++;
	if (n->ops->log && !(n->disc_logged & (1u << LNE_DBAD__COUNT))) {
		char line[192], a[LNE_NID_STR_MAX];

		n->disc_logged |= 1u << LNE_DBAD__COUNT;
		lne_nid_format(&t->primary, a, sizeof(a));
		snprintf(
			line, sizeof(line),
			"discovery (verify only): peer %s lists %u NIDs, %u configured, %u in both; "
			"the configuration stays (logged once)",
			a, dd->p.n - 1, mine, same);
		n->ops->log(n->ctx, line);
	}
}

/*
 * Merge the data that came from @from (the NID pinged, or a push's sender):
 * 0 once merged (or verified), -EPROTO if refused (counted, logged once),
 * -ESTALE for a push older than what the peer has.
 */
int lne_nd_disc_merge(struct lne_node *n, u64 from, const u8 *buf, u32 len, bool push, u64 inc)
{
	struct disc_keeps ks = {0};
	struct disc_data dd = {0};
	struct lne_peer *self, *t = NULL, *p;
	struct lne_nid from_nid;
	bool mr, rebuild;
	u32 i;
	int rc;

	dd.e = lne_zalloc(LNW_PING_NIS_MAX * sizeof(*dd.e));
	if (!dd.e)
		return -ENOMEM;
	lne_node_nid(n, from, &from_nid);
	/* the bytes first, before anything is locked or looked up */
	rc = parse(n, buf, len, push, from, &dd);
	if (!rc && push && !(dd.p.features & LNW_PING_FEAT_MULTI_RAIL))
		rc = bad(n, LNE_DBAD_NOT_MR, push, from, 0);
	if (rc) {
		lne_free(dd.e);
		return rc;
	}
	if (!write_begin(n)) {
		lne_free(dd.e);
		return -EBUSY;
	}
	self = lne_nd_disc_peer_of(n, from);
	if (push && self && self->disc & LNE_DISC_MERGED && self->disc_inc == inc &&
	    dd.seq <= self->disc_seq)
		rc = bad(n, LNE_DBAD_NO_STALE, push, from, 0) ? -ESTALE : 0;
	if (!rc)
		rc = owners(n, &dd, self, push, from, &t);
	if (rc)
		goto out;
	/* a node with discovery off is not Multi-Rail to its peers, whatever it says (238) */
	mr = dd.p.features & LNW_PING_FEAT_MULTI_RAIL && dd.p.features & LNW_PING_FEAT_DISCOVERY;
	if (lne_nd_disc_mode(n) == LNE_DISC_VERIFY || !mr || (t && t->implicit)) {
		/* the configuration stays; a non-Multi-Rail peer keeps the one NID */
		if (!t && !(t = peer_make(n, &from_nid, false))) {
			rc = -ENOMEM;
			goto out;
		}
		verify(n, t, &dd);
		goto state;
	}
	/* fold every other discovered peer the data names into the target */
	rebuild = t && !lne_nd_disc_configured(t) && !lne_nid_equal(&t->primary, &dd.primary);
	for (i = 1; i < dd.p.n && !rc; i++) {
		p = lne_nd_disc_peer_of(n, dd.e[i].nid);
		if (p && p != t && !lne_nd_disc_configured(p)) {
			rc = keep_and_delete(n, p, &ks);
			n->dst.merged++;
		}
	}
	if (self && self != t && !lne_nd_disc_configured(self) &&
	    lne_nd_disc_peer_of(n, from) == self) {
		rc = rc ? rc : keep_and_delete(n, self, &ks);
		n->dst.merged++;
	}
	if (!rc && rebuild)
		rc = keep_and_delete(n, t, &ks);
	if (rc)
		goto out_keeps;
	if (!t || rebuild) {
		t = peer_make(n, &dd.primary, true);
		if (!t) {
			rc = -ENOMEM;
			goto out_keeps;
		}
		t->disc = ks.disc & (LNE_DISC_DONE | LNE_DISC_TOLD);
		t->disc_our_seq = ks.our_seq;
	}
	t->mr = true;
	for (i = 1; i < dd.p.n && t->npni < lne_global_get(n->ln, LNE_G_MAX_INTERFACES); i++) {
		struct lne_nid nid;

		lne_node_nid(n, dd.e[i].nid, &nid);
		add_nid(n, t, &nid, NULL);
	}
	for (i = 0; i < ks.n; i++)
		add_nid(n, t, &ks.k[i].nid, &ks.k[i]);
	drop_unlisted(n, t, &dd, &from_nid);
	lne_changed(n->ln);
out_keeps:
	lne_free(ks.k);
	if (rc)
		goto out;
state:
	lne_nd_note_status(n, t, dd.e, dd.p.n);
	t->disc |= LNE_DISC_MERGED;
	if (mr)
		t->disc |= LNE_DISC_MR;
	else
		t->disc &= ~LNE_DISC_MR;
	t->disc_seq = dd.seq;
	t->disc_inc = inc;
out:
	write_end(n);
	lne_free(dd.e);
	return rc;
}
