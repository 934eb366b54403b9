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
#include "node-disc-int.h"

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

struct lne_peer *lne_nd_disc_peer_of(struct lne_node *n, u64 nid4)
{
	struct lne_peer_ni *pni;
	struct lne_nid nid;

	lne_node_nid(n, nid4, &nid);
	pni = lne_peer_ni_find(n->ln, &nid);
	return pni ? lne_peer_of(pni) : NULL;
}

static struct lne_disc **round_slot(struct lne_node *n, u64 nid4)
{
	struct lne_disc **pp = &n->disc[lne_nd_hash(n, nid4, 1)];

	while (*pp && (*pp)->nid != nid4)
		pp = &(*pp)->hnext;
	return pp;
}

static struct lne_disc *round_find(struct lne_node *n, u64 nid4)
{
	return *round_slot(n, nid4);
}

bool lne_nd_disc_busy(struct lne_node *n, u64 nid4)
{
	return round_find(n, nid4);
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
	struct lne_peer *peer = lne_nd_disc_peer_of(n, d->nid);
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
	peer = lne_nd_disc_peer_of(n, d->nid);
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
	peer = lne_nd_disc_peer_of(n, d->nid);
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
	rc = lne_nd_disc_merge(n, d->nid, m->reply, m->reply_len, false, 0);
	peer = lne_nd_disc_peer_of(n, d->nid);
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
	struct lne_peer *peer = lne_nd_disc_peer_of(n, d->nid);
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
		    !lne_nd_disc_peer_new(n, nid, false))
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
	if (peer && (lne_nd_disc_configured(peer) || peer->disc & LNE_DISC_DONE))
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
	if (!peer && !lne_nd_disc_peer_new(n, nid, false)) {
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
	if (force && (peer = lne_nd_disc_peer_of(n, d->nid)))
		peer->disc &= ~LNE_DISC_TOLD; /* a forced round pushes again */
	if (!d->out)
		round_ping(n, d);
	return 0;
}

/* --- the passive side --------------------------------------------------------- */

void lne_nd_disc_pinged(struct lne_node *n, u64 src)
{
	struct lne_peer *peer = lne_nd_disc_peer_of(n, src);

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
	if (lne_nd_disc_merge(n, h->src_nid, payload, h->payload, true, l->conn.peer_inc))
		return;
	peer = lne_nd_disc_peer_of(n, h->src_nid);
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
	struct lne_peer *peer = lne_nd_disc_peer_of(n, m->hdr.dst_nid);

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
		rc = fn(arg, lne_nd_disc_bad_names[i], s->bad[i]);
	return rc;
}
