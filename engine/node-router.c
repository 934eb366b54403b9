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

void lne_nd_rtr_forward(struct lne_node *n, struct lne_msg *m)
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

void lne_nd_rtr_release(struct lne_node *n, struct lne_msg *m)
{
	if (!m->rbp)
		return;
	n->rtr[m->rbp - 1].used--;
	m->rbp = 0;
	kick(n);
}

void lne_nd_rtr_fini(struct lne_node *n, int err)
{
	int p;

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
