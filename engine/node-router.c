// SPDX-License-Identifier: GPL-2.0
/*
 * node-router.c - router buffers: a message this node forwards for others
 * holds a buffer of its size class (tiny: no payload, small: a page, large:
 * up to the MTU) from its arrival until it is sent on.  The pools' sizes are
 * the tiny/small/large_buffers globals, read when a buffer is taken, so a
 * change applies at once (a smaller pool lends no more until enough come
 * back).  A message that finds its pool empty waits, in arrival order; the
 * senders' peer credits bound how many can arrive, as in Lustre, where an
 * LND does not receive into a buffer the router lacks.
 *
 * Before its buffer, a forwarded message takes a router credit of the peer
 * NI it came from: each peer NI may have peer_buffer_credits messages here
 * at once (the NI it came on says how many; 0: its peer_credits, as
 * upstream's lnet_peer_buffer_credits()); the rest wait, in order, and the
 * credits go negative by as many, as upstream's lpni_rtrcredits.
 */
#include "node-int.h"

static const enum lne_global pool_size[LNE_RB__COUNT] = {
	LNE_G_TINY_BUFFERS,
	LNE_G_SMALL_BUFFERS,
	LNE_G_LARGE_BUFFERS,
};

void lne_nd_rtr_init(struct lne_node *n)
{
	int p;

	for (p = 0; p < LNE_RB__COUNT; p++)
		n->rtr[p].tail = &n->rtr[p].q;
	n->rtr_readytail = &n->rtr_ready;
}

static int pool_of(u32 len)
{
	return !len ? LNE_RB_TINY : len <= LNE_RB_SMALL_MAX ? LNE_RB_SMALL : LNE_RB_LARGE;
}

static bool take(struct lne_node *n, int p, struct lne_msg *m)
{
	struct lne_rtrpool *rp = &n->rtr[p];

	if (rp->used >= lne_global_get(n->ln, pool_size[p]))
		return false;
	rp->used++;
	m->rbp = (u8)(p + 1);
	return true;
}

/* Hand buffers to waiting messages; a dispatch that ends one comes back here, once. */
static void kick(struct lne_node *n)
{
	int p;

	if (n->rtr_kicking)
		return;
	n->rtr_kicking = true;
	for (p = 0; p < LNE_RB__COUNT; p++) {
		struct lne_rtrpool *rp = &n->rtr[p];
		struct lne_msg *m;

		while ((m = rp->q) && take(n, p, m)) {
			rp->q = m->next;
			if (!rp->q)
				rp->tail = &rp->q;
			m->next = NULL;
			rp->queued--;
			lne_nd_dispatch(n, m);
		}
	}
	n->rtr_kicking = false;
}

/* The router credits peer NI @from4 has, reaching this node's NI @ni4 (at least 1). */
static s32 credit_limit(const struct lne_node *n, u64 ni4, u64 from4)
{
	struct lne_nid nid;
	const struct lne_ni *ni;
	const struct lne_net *net;

	lne_node_nid(n, ni4, &nid);
	ni = lne_ni_find(n->ln, &nid);
	if (!ni) { /* the first NI on the peer's net */
		lne_node_nid(n, from4, &nid);
		net = lne_net_find(n->ln, lne_nid_net(&nid));
		if (net && !lne_list_empty(&net->nis))
			ni = lne_list_entry(net->nis.next, struct lne_ni, link);
	}
	if (!ni)
		return 1;
	if (ni->tun.peer_buffer_credits)
		return (s32)(ni->tun.peer_buffer_credits > 0x7fffffff
				     ? 0x7fffffff
				     : ni->tun.peer_buffer_credits);
	return ni->tun.peer_credits ? (s32)ni->tun.peer_credits : 1;
}

static struct lne_rtrcr *credits_of(struct lne_node *n, u64 from4, u64 ni4)
{
	struct lne_stat *s = lne_nd_stat_get(n, from4, false);

	if (!s)
		return NULL;
	if (!s->rc.init) {
		s->rc.init = true;
		s->rc.credits = s->rc.min = credit_limit(n, ni4, from4);
		s->rc.tail = &s->rc.q;
	}
	return &s->rc;
}

bool lne_node_rtr_credits(const struct lne_node *n, const struct lne_nid *nid, s32 *avail, s32 *min)
{
	const struct lne_stat *s;
	u64 k;

	/* a NID never keyed has sent nothing: only its net matters below */
	if (lne_node_key_find(n, nid, &k))
		k = (u64)lne_nid_net(nid) << 32;
	for (s = n->stats[lne_nd_stat_bucket(n, k, false)]; s; s = s->hnext)
		if (s->nid == k && !s->local && s->rc.init) {
			*avail = s->rc.credits;
			*min = s->rc.min;
			return true;
		}
	*avail = *min = credit_limit(n, 0, k);
	return false;
}

/* Take a buffer and go, or wait for one. */
static void buffer_stage(struct lne_node *n, struct lne_msg *m)
{
	int p = pool_of(m->hdr.payload);
	struct lne_rtrpool *rp = &n->rtr[p];

	if (!rp->q && take(n, p, m)) {
		if (rp->used + rp->queued > rp->peak)
			rp->peak = rp->used + rp->queued;
		lne_nd_dispatch(n, m);
		return;
	}
	m->next = NULL;
	*rp->tail = m;
	rp->tail = &m->next;
	rp->queued++;
	if (rp->used + rp->queued > rp->peak)
		rp->peak = rp->used + rp->queued;
}

void lne_nd_rtr_forward(struct lne_node *n, struct lne_msg *m)
{
	struct lne_rtrcr *rc = credits_of(n, m->rtr_from, m->rtr_ni);

	if (rc) {
		m->rtr_credit = true;
		rc->lent++;
		if (--rc->credits < rc->min)
			rc->min = rc->credits;
		if (rc->credits < 0) {
			m->next = NULL;
			*rc->tail = m;
			rc->tail = &m->next;
			return;
		}
	}
	buffer_stage(n, m);
}

/*
 * @m gives its credit back: the first message waiting for one of the same
 * peer NI goes on (to its buffer).  A send that ends at once comes back
 * here; the outermost call runs the messages that were let go meanwhile.
 */
void lne_nd_rtr_credit_back(struct lne_node *n, struct lne_msg *m)
{
	struct lne_stat *s;
	struct lne_msg *w;

	if (!m->rtr_credit)
		return;
	m->rtr_credit = false;
	s = lne_nd_stat_get(n, m->rtr_from, false);
	if (!s)
		return;
	s->rc.credits++;
	if (s->rc.lent)
		s->rc.lent--;
	if (n->closing || !(w = s->rc.q))
		return;
	s->rc.q = w->next;
	if (!s->rc.q)
		s->rc.tail = &s->rc.q;
	w->next = NULL;
	*n->rtr_readytail = w;
	n->rtr_readytail = &w->next;
	if (n->rtr_readying)
		return;
	n->rtr_readying = true;
	while ((w = n->rtr_ready)) {
		n->rtr_ready = w->next;
		if (!n->rtr_ready)
			n->rtr_readytail = &n->rtr_ready;
		w->next = NULL;
		buffer_stage(n, w);
	}
	n->rtr_readying = false;
}

void lne_nd_rtr_release(struct lne_node *n, struct lne_msg *m)
{
	/* one it could not pass on is dropped, on the next hop's count (sanity-lnet 227) */
	if (m->forward && m->status && !n->closing)
		lne_nd_count_drop_nid(n, m->via, m->hdr.type, m->hdr.payload);
	if (m->rbp) {
		n->rtr[m->rbp - 1].used--;
		m->rbp = 0;
		kick(n);
	}
	lne_nd_rtr_credit_back(n, m);
}

void lne_nd_rtr_fini(struct lne_node *n, int err)
{
	struct lne_stat *s;
	u32 b;
	int p;

	for (b = 0; b < LNE_STAT_HASH; b++)
		for (s = n->stats[b]; s; s = s->hnext) {
			struct lne_msg *m;

			while ((m = s->rc.q)) {
				s->rc.q = m->next;
				lne_nd_finish(n, m, err);
			}
			s->rc.tail = &s->rc.q;
		}

	for (p = 0; p < LNE_RB__COUNT; p++) {
		struct lne_rtrpool *rp = &n->rtr[p];
		struct lne_msg *m;

		while ((m = rp->q)) {
			rp->q = m->next;
			rp->queued--;
			lne_nd_finish(n, m, err);
		}
		rp->tail = &rp->q;
	}
}

/*
 * On a message's last hop a router honours the NID its sender chose, as
 * upstream does: any of the destination's NIs will do only when the sender
 * is Multi-Rail (discovered so: it then knows the other NIs are the same
 * node) and the NID it chose is down or not at full health.
 */
bool lne_nd_exact_hop(struct lne_node *n, const struct lne_msg *m, const struct lne_nid *dst)
{
	struct lne_peer_ni *to = lne_peer_ni_find(n->ln, dst), *from;
	struct lne_nid src;

	if (!to || !to->pnet->rnet->local)
		return false; /* not the last hop: the route decides */
	lne_node_nid(n, m->hdr.src_nid, &src);
	from = lne_peer_ni_find(n->ln, &src);
	if (!from || !lne_peer_of(from)->mr)
		return true;
	return !to->ns_down && to->health >= LNE_HEALTH_MAX;
}
