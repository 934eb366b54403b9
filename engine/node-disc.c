// SPDX-License-Identifier: GPL-2.0
/*
 * node-disc.c - dynamic peer discovery (node.h), the seed's handshake and
 * state machine without a thread: the node's event handlers drive it.
 *
 * A round pings one NID: a GET on the reserved portal with the ping match
 * bits, whose reply is the peer's ping info.  The data is merged into the
 * model (the peer that owns the NID takes every NID the data lists, peers
 * first known by other NIDs fold into it, a discovered primary NID becomes
 * the data's first NID), and if the peer is Multi-Rail and does not have
 * our NIDs yet (it has not pinged us since they last changed), the round
 * pushes them: a PUT of our ping info on the same portal and match bits,
 * ACKed.  Messages to a peer whose first round is not over wait on the
 * round; a peer discovered once never makes a message wait again.
 *
 * The state of each peer (lne_peer.disc) lives in the model so that a copy
 * of the instance keeps it; rounds live here and name peers by NID only.
 * A configured peer keeps its primary NID and every NID it was configured
 * with: discovery only adds NIDs to it, marked as discovered.
 */
#include "node-int.h"

/* Attempts a round makes when the connection fails (a peer that restarted). */
#define DISC_TRIES 2

struct disc_waiter {
	struct disc_waiter *next;
	lne_disc_cb cb;
	void *arg;
};

struct lne_disc {
	struct lne_disc *hnext;
	u64 nid;			  /* the NID the round pings (nid4) */
	struct lne_msg *wait, **waittail; /* messages held for the round */
	struct disc_waiter *waiters;
	u32 tries;
	u32 push_seq; /* our sequence number the push carries */
	bool out;     /* a ping or push of the round's is on its way */
	bool dead;    /* the node went: the message's callback frees it */
	int status;
};

enum lne_disc_mode lne_nd_disc_mode(const struct lne_node *n)
{
	u32 v = lne_global_get(n->ln, LNE_G_DISCOVERY);

	return v == LNE_DISC_VERIFY ? LNE_DISC_VERIFY : v ? LNE_DISC_ON : LNE_DISC_OFF;
}

static struct lne_peer *peer_of(struct lne_node *n, u64 nid4)
{
	struct lne_peer_ni *pni;
	struct lne_nid nid;

	lne_node_nid(n, nid4, &nid);
	pni = lne_peer_ni_find(n->ln, &nid);
	return pni ? lne_peer_of(pni) : NULL;
}

static struct lne_disc **round_slot(struct lne_node *n, u64 nid4)
{
	struct lne_disc **pp = &n->disc[lne_nd_hash(nid4, 1)];

	while (*pp && (*pp)->nid != nid4)
		pp = &(*pp)->hnext;
	return pp;
}

static struct lne_disc *round_find(struct lne_node *n, u64 nid4)
{
	return *round_slot(n, nid4);
}

/* A round on any NID of @peer. */
static struct lne_disc *round_of_peer(struct lne_node *n, const struct lne_peer *peer)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;

	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			struct lne_disc *d;
			u64 nid4;

			if (!lne_node_key(n, &pni->nid, &nid4) && (d = round_find(n, nid4)))
				return d;
		}
	return NULL;
}

static struct lne_disc *round_get(struct lne_node *n, u64 nid4)
{
	struct lne_disc **pp = round_slot(n, nid4);
	struct lne_disc *d = *pp;

	if (d)
		return d;
	d = lne_zalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->nid = nid4;
	d->waittail = &d->wait;
	*pp = d;
	n->dst.started++;
	return d;
}

static void round_unhash(struct lne_node *n, struct lne_disc *d)
{
	struct lne_disc **pp = round_slot(n, d->nid);

	if (*pp == d)
		*pp = d->hnext;
	d->hnext = NULL;
}

/* Let @d's held messages go (or fail, @status). */
static void release(struct lne_node *n, struct lne_disc *d, int status)
{
	struct lne_msg *q = d->wait, *m;

	d->wait = NULL;
	d->waittail = &d->wait;
	while ((m = q)) {
		q = m->next;
		m->next = NULL;
		m->disc_passed = true;
		lne_nd_release(n, m, status);
	}
}

/* Let every message held for a round on one of @peer's NIDs go: it is discovered. */
static void release_peer(struct lne_node *n, const struct lne_peer *peer)
{
	const struct lne_peer_net *pnet;
	const struct lne_peer_ni *pni;
	struct lne_disc all = {.waittail = &all.wait};

	/* gathered first: a message that goes may start rounds or end in a callback */
	lne_list_for_each_entry(pnet, &peer->pnets, link)
		lne_list_for_each_entry(pni, &pnet->pnis, pnet_link) {
			struct lne_disc *d;
			u64 nid4;

			if (lne_node_key(n, &pni->nid, &nid4) || !(d = round_find(n, nid4)) ||
			    !d->wait)
				continue;
			*all.waittail = d->wait;
			all.waittail = d->waittail;
			d->wait = NULL;
			d->waittail = &d->wait;
		}
	release(n, &all, 0);
}

/*
 * The round is over: the peer is discovered (or not, @status), its messages
 * go (or fail), waiters hear it.  A round whose ping or push is still out
 * (the node is going) is freed by that message's callback.
 */
static void round_end(struct lne_node *n, struct lne_disc *d, int status)
{
	struct lne_peer *peer = peer_of(n, d->nid);
	struct disc_waiter *w;

	round_unhash(n, d);
	if (status) {
		n->dst.failed++;
	} else {
		n->dst.done++;
		if (peer) {
			bool first = !(peer->disc & LNE_DISC_DONE);

			peer->disc |= LNE_DISC_DONE;
			release_peer(n, peer);
			if (first && n->ops->discovered)
				n->ops->discovered(n->ctx, peer);
		}
	}
	/* the instance was busy: not discovered yet (the next send tries again), but reachable */
	release(n, d, status == -EBUSY ? 0 : status);
	while ((w = d->waiters)) {
		d->waiters = w->next;
		w->cb(w->arg, status);
		lne_free(w);
	}
	if (d->out)
		d->dead = true;
	else
		lne_free(d);
}

/* --- the data: a ping reply or a push ---------------------------------------- */

struct disc_data {
	struct lnw_ping p;
	struct lnw_ping_ent *e; /* e[1..p.n-1]: the peer's NIDs, 0@lo is e[0] */
	u32 seq;
	struct lne_nid primary;
};

static const char *const bad_names[LNE_DBAD__COUNT] = {
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
		 push ? "push" : "ping reply", a, bad_names[why] + 5, nid ? ": " : "",
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

static bool configured(const struct lne_peer *p)
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
	struct lne_peer *cfg = self && configured(self) ? self : NULL;
	struct lne_peer *named = NULL;
	u32 i;

	for (i = 1; i < dd->p.n; i++) {
		struct lne_peer *p = peer_of(n, dd->e[i].nid);

		if (!p || p == self)
			continue;
		if (configured(p)) {
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
static void note_status(struct lne_node *n, const struct lne_peer *peer, const struct disc_data *dd)
{
	u32 i;

	for (i = 1; i < dd->p.n; i++) {
		struct lne_peer_ni *pni;
		struct lne_nid nid;

		lne_node_nid(n, dd->e[i].nid, &nid);
		pni = lne_peer_ni_find(n->ln, &nid);
		if (pni && lne_peer_of(pni) == peer)
			pni->ns_down = dd->e[i].status != LNW_NI_STATUS_UP;
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
static struct lne_peer *peer_new(struct lne_node *n, const struct lne_nid *nid, bool mr)
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

	if (!configured(t))
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
static int merge(struct lne_node *n, u64 from, const u8 *buf, u32 len, bool push, u64 inc)
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
	self = peer_of(n, from);
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
	rebuild = t && !configured(t) && !lne_nid_equal(&t->primary, &dd.primary);
	for (i = 1; i < dd.p.n && !rc; i++) {
		p = peer_of(n, dd.e[i].nid);
		if (p && p != t && !configured(p)) {
			rc = keep_and_delete(n, p, &ks);
			n->dst.merged++;
		}
	}
	if (self && self != t && !configured(self) && peer_of(n, from) == self) {
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
	note_status(n, t, &dd);
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

/* --- rounds ------------------------------------------------------------------- */

static void round_ping(struct lne_node *n, struct lne_disc *d);

static bool peer_told(const struct lne_node *n, const struct lne_peer *peer)
{
	return peer->disc & LNE_DISC_TOLD && peer->disc_our_seq == n->ping_seq;
}

static void on_push(struct lne_msg *m, int status)
{
	struct lne_disc *d = m->arg;
	struct lne_node *n = m->node;
	struct lne_peer *peer;

	d->out = false;
	if (d->dead) {
		lne_free(d);
		return;
	}
	peer = peer_of(n, d->nid);
	if (peer) {
		peer->disc &= ~LNE_DISC_PUSHING;
		if (!status) {
			peer->disc |= LNE_DISC_TOLD;
			peer->disc_our_seq = d->push_seq;
		}
	}
	/* the peer's NIDs are merged: messages go even if the push failed */
	round_end(n, d, 0);
}

/* Push our NIDs to @nid4; @d the round (NULL: a local NI changed). */
static int push(struct lne_node *n, u64 nid4, struct lne_disc *d, lne_msg_cb cb, void *arg)
{
	u8 *info = lne_zalloc(PING_INFO_MAX);
	struct lne_nid dst;
	int len;

	if (!info)
		return -ENOMEM;
	len = lne_node_ping_info(n, info, PING_INFO_MAX);
	if (len < 0) {
		lne_free(info);
		return len;
	}
	if (d) {
		d->push_seq = n->ping_seq;
		d->out = true;
	}
	n->dst.pushes_sent++;
	lne_node_nid(n, nid4, &dst);
	return lne_node_put(n, &dst, NULL, LNW_PORTAL_RESERVED, LNW_PING_MATCHBITS, 0, info,
			    (u32)len, true, LNE_PING_TIMEOUT_MS, cb, arg, NULL);
}

static void on_ping(struct lne_msg *m, int status)
{
	struct lne_disc *d = m->arg;
	struct lne_node *n = m->node;
	struct lne_peer *peer;
	int rc;

	d->out = false;
	if (d->dead) {
		lne_free(d);
		return;
	}
	peer = peer_of(n, d->nid);
	if (peer)
		peer->disc &= ~LNE_DISC_PINGING;
	if (status) {
		/* a connection that broke may be a peer that restarted: once more */
		if ((status == -ECONNRESET || status == -ENOTCONN) && d->tries < DISC_TRIES)
			round_ping(n, d);
		else
			round_end(n, d, status);
		return;
	}
	lne_nd_gw_pinged(n, d->nid, m->reply, m->reply_len); /* a gateway's check too */
	rc = merge(n, d->nid, m->reply, m->reply_len, false, 0);
	peer = peer_of(n, d->nid);
	/* refused data changes nothing: the peer stays as it was, and usable (busy: not now) */
	if (rc || !peer || !(peer->disc & LNE_DISC_MR) || !n->multi_rail || peer_told(n, peer) ||
	    peer->disc & LNE_DISC_PUSHING) {
		round_end(n, d, rc == -ENOMEM || rc == -EBUSY ? rc : 0);
		return;
	}
	peer->disc |= LNE_DISC_PUSHING;
	if (push(n, d->nid, d, on_push, d) && !d->out)
		round_end(n, d, 0);
}

/* Ping for @d; may end (and free) it. */
static void round_ping(struct lne_node *n, struct lne_disc *d)
{
	struct lne_peer *peer = peer_of(n, d->nid);
	struct lne_ni *src;
	struct lne_nid dst;
	int rc;

	if (peer)
		peer->disc |= LNE_DISC_PINGING;
	d->tries++;
	d->out = true;
	lne_node_nid(n, d->nid, &dst);
	/* from the local NI a first send to the NID would take: the rail most likely to reach it */
	src = lne_nd_direct_ni(n, &dst, NULL);
	rc = lne_node_ping(n, &dst, src ? &src->nid : NULL, LNE_PING_TIMEOUT_MS, on_ping, d, NULL);
	if (rc) {
		d->out = false;
		round_end(n, d, rc);
	}
}

static bool reachable(struct lne_node *n, const struct lne_nid *nid)
{
	struct lne_rnet *rnet;

	if (lne_net_find(n->ln, lne_nid_net(nid)))
		return true;
	rnet = lne_rnet_find(n->ln, lne_nid_net(nid));
	return rnet && !lne_list_empty(&rnet->routes);
}

/* The round for a send to @nid (@peer its owner, NULL: nobody's yet); NULL: send now. */
static struct lne_disc *round_for(struct lne_node *n, const struct lne_nid *nid, u64 nid4,
				  struct lne_peer *peer)
{
	struct lne_disc *d;

	if (!peer) {
		if (nid->lnd == LNE_LND_LO || lne_ni_find(n->ln, nid) || !reachable(n, nid) ||
		    !peer_new(n, nid, false))
			return NULL;
		return round_get(n, nid4);
	}
	d = round_of_peer(n, peer);
	return d ? d : round_get(n, nid4);
}

bool lne_nd_disc_hold(struct lne_node *n, struct lne_msg *m)
{
	struct lne_peer_ni *pni;
	struct lne_peer *peer;
	struct lne_disc *d;
	struct lne_nid dst;

	if (m->hdr.portal == LNW_PORTAL_RESERVED || m->disc_passed ||
	    lne_nd_disc_mode(n) == LNE_DISC_OFF)
		return false;
	lne_node_nid(n, m->hdr.dst_nid, &dst);
	pni = lne_peer_ni_find(n->ln, &dst);
	peer = pni ? lne_peer_of(pni) : NULL;
	/* configured peers are discovered when asked (lnetctl discover) or pushed */
	if (peer && (configured(peer) || peer->disc & LNE_DISC_DONE))
		return false;
	d = round_for(n, &dst, m->hdr.dst_nid, peer);
	if (!d)
		return false;
	m->next = NULL;
	*d->waittail = m;
	d->waittail = &m->next;
	n->dst.waited++;
	if (!d->out)
		round_ping(n, d);
	return true;
}

int lne_node_discover(struct lne_node *n, const struct lne_nid *nid, bool force, lne_disc_cb cb,
		      void *arg, struct lne_err *err)
{
	struct lne_peer_ni *pni;
	struct lne_peer *peer;
	struct disc_waiter *w;
	struct lne_disc *d;
	u64 nid4;

	if (lne_nd_disc_mode(n) == LNE_DISC_OFF)
		return lne_err_set(err, -EOPNOTSUPP, "discovery", -1,
				   "discovery is off (lnetctl set discovery 1)");
	if (lne_node_key(n, nid, &nid4))
		return lne_err_set(err, -EAFNOSUPPORT, NULL, -1,
				   "IPv6 NIDs need socklnd protocol version 4");
	if (nid->lnd == LNE_LND_LO || lne_ni_find(n->ln, nid))
		return lne_err_set(err, -EINVAL, NULL, -1, "a local NID");
	if (!reachable(n, nid))
		return lne_err_set(err, -EHOSTUNREACH, NULL, -1, "no local NI or route reaches it");
	pni = lne_peer_ni_find(n->ln, nid);
	peer = pni ? lne_peer_of(pni) : NULL;
	if (peer && peer->disc & LNE_DISC_DONE && !force) {
		cb(arg, 0);
		return 0;
	}
	w = lne_zalloc(sizeof(*w));
	if (!w)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	if (!peer && !peer_new(n, nid, false)) {
		lne_free(w);
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	}
	d = peer ? round_of_peer(n, peer) : NULL;
	d = d ? d : round_get(n, nid4);
	if (!d) {
		lne_free(w);
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	}
	w->cb = cb;
	w->arg = arg;
	w->next = d->waiters;
	d->waiters = w;
	if (force && (peer = peer_of(n, d->nid)))
		peer->disc &= ~LNE_DISC_TOLD; /* a forced round pushes again */
	if (!d->out)
		round_ping(n, d);
	return 0;
}

/* --- the passive side --------------------------------------------------------- */

void lne_nd_disc_pinged(struct lne_node *n, u64 src)
{
	struct lne_peer *peer = peer_of(n, src);

	if (peer) {
		peer->disc |= LNE_DISC_TOLD;
		peer->disc_our_seq = n->ping_seq;
	}
}

void lne_nd_disc_push(struct lne_node *n, struct lne_link *l, const struct lnw_hdr *h,
		      const u8 *payload)
{
	struct lne_peer *peer;

	n->dst.pushes_recvd++;
	if (lne_nd_disc_mode(n) == LNE_DISC_OFF) {
		n->dst.pushes_ignored++;
		return;
	}
	if (merge(n, h->src_nid, payload, h->payload, true, l->conn.peer_inc))
		return;
	peer = peer_of(n, h->src_nid);
	if (peer) {
		bool first = !(peer->disc & LNE_DISC_DONE);

		/* it pushed: it pinged us first, and has our NIDs */
		peer->disc |= LNE_DISC_DONE;
		release_peer(n, peer);
		/* learnt from its push: told as a round's end tells it (PeerDiscovered) */
		if (first && n->ops->discovered)
			n->ops->discovered(n->ctx, peer);
	}
}

/* --- hotplug -------------------------------------------------------------------- */

static void on_update_push(struct lne_msg *m, int status)
{
	struct lne_node *n = m->node;
	struct lne_peer *peer = peer_of(n, m->hdr.dst_nid);

	if (!status && peer) {
		peer->disc |= LNE_DISC_TOLD;
		peer->disc_our_seq = n->ping_seq;
	}
}

void lne_node_nis_changed(struct lne_node *n)
{
	struct lne_peer *peer;
	u32 count = 0, i = 0;
	u64 *to;

	n->ping_seq++;
	if (lne_nd_disc_mode(n) == LNE_DISC_OFF || !n->multi_rail)
		return;
	/* the targets first: a push that fails at once must not change the list walked */
	lne_list_for_each_entry(peer, &n->ln->peers, link)
		count += peer->disc & LNE_DISC_DONE && peer->disc & LNE_DISC_MR;
	to = count ? lne_zalloc(count * sizeof(*to)) : NULL;
	if (!to)
		return;
	lne_list_for_each_entry(peer, &n->ln->peers, link)
		if (peer->disc & LNE_DISC_DONE && peer->disc & LNE_DISC_MR && i < count &&
		    !lne_node_key(n, &peer->primary, &to[i]))
			i++;
	while (i--)
		push(n, to[i], NULL, on_update_push, NULL);
	lne_free(to);
}

void lne_node_nis_check(struct lne_node *n)
{
	const struct lne_ni *ni;
	u64 fp = 1; /* never 0: 0 is "not seen yet" */

	/* each NID and the status its ping info gives, mixed so that their order does not matter */
	n->nis_dirty = false;
	lne_list_for_each_entry(ni, &n->ln->nis, all_link) {
		u64 k = ((u64)lne_nid_hash(&ni->nid) << 1 | lne_ni_reported_up(ni)) *
			0x9e3779b97f4a7c15ull;

		fp += k ^ k >> 31;
	}
	if (n->disc_nis && n->disc_nis != fp)
		lne_node_nis_changed(n);
	n->disc_nis = fp;
}

void lne_nd_disc_fini(struct lne_node *n)
{
	u32 b;

	for (b = 0; b < LNE_LINK_HASH; b++)
		while (n->disc[b])
			round_end(n, n->disc[b], -ESHUTDOWN);
}

int lne_node_disc_stats_each(const struct lne_node *n, lne_count_fn fn, void *arg)
{
	const struct lne_disc_stats *s = &n->dst;
	const struct {
		const char *name;
		u64 v;
	} rows[] = {
		{"disc_started", s->started},
		{"disc_done", s->done},
		{"disc_failed", s->failed},
		{"disc_msgs_waited", s->waited},
		{"disc_pushes_sent", s->pushes_sent},
		{"disc_pushes_received", s->pushes_recvd},
		{"disc_pushes_ignored", s->pushes_ignored},
		{"disc_peers_merged", s->merged},
		{"disc_verify_mismatch", s->mismatch},
	};
	u32 i;
	int rc = 0;

	for (i = 0; rc >= 0 && i < LNE_ARRAY_SIZE(rows); i++)
		rc = fn(arg, rows[i].name, rows[i].v);
	for (i = 0; rc >= 0 && i < LNE_DBAD__COUNT; i++)
		rc = fn(arg, bad_names[i], s->bad[i]);
	return rc;
}
