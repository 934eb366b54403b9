// SPDX-License-Identifier: GPL-2.0
/*
 * node-input.c - the node's receive side (node.h): bytes from a link made
 * into events, messages for it answered or matched to what waits for them,
 * messages for others forwarded, and frames written or failed accounted.
 */
#include "node-int.h"

/*
 * A message for another node: a router passes it on, header and payload as
 * they came, to the next hop selection picks, once it has a router buffer
 * (node-router.c); a node that does not route drops it.  What it passes on
 * counts in the NIs' and peer NIs' statistics both ways, as upstream's, and
 * in the node's route_count, not its send and receive counts.
 */
static void forward(struct lne_node *n, struct lne_link *l, struct lne_conn_ev *ev,
		    struct lne_stat *ls, struct lne_stat *ps)
{
	struct lne_msg *m;

	if (!lne_global_get(n->ln, LNE_G_ROUTING) || !(m = lne_nd_msg_alloc(n))) {
		lne_nd_count_drop(n, l, ev->hdr.type, ev->hdr.payload);
		lne_free(ev->payload);
		return;
	}
	m->hdr = ev->hdr;
	m->payload = ev->payload;
	m->forward = true;
	m->rtr_from = l->peer;
	m->rtr_ni = l->local;
	ev->payload = NULL;
	n->st.route_count++;
	n->st.route_length += m->hdr.payload;
	lne_nd_count(ls ? &ls->c : NULL, false, m->hdr.type, m->hdr.payload);
	lne_nd_count(ps ? &ps->c : NULL, false, m->hdr.type, m->hdr.payload);
	lne_nd_rtr_forward(n, m);
}

static void on_msg(struct lne_node *n, struct lne_link *l, struct lne_conn_ev *ev)
{
	const struct lnw_hdr *h = &ev->hdr;
	struct lne_stat *ps = lne_nd_stat_get(n, l->peer, false);
	struct lne_stat *ls = lne_nd_stat_get(n, l->local, true);
	struct lne_peer_ni *from;
	struct lne_msg *m;
	struct lne_svc *svc;
	struct lne_nid dst;

	if (ev->zc_req) {
		struct lne_frame *f = lne_zalloc(sizeof(*f));

		if (f) {
			lne_frame_noop(f, ev->zc_req);
			lne_conn_queue(&l->conn, f);
			n->ops->wake(n->ctx, l);
		}
	}
	if (lne_nd_fault_recv(n, h)) {
		lne_nd_count_drop(n, l, h->type, h->payload);
		lne_free(ev->payload);
		return; /* a drop rule: as if it never came */
	}
	/* a message from a peer NI proves it up, whatever its node said */
	lne_node_nid(n, l->peer, &dst);
	from = lne_peer_ni_find(n->ln, &dst);
	if (from && from->ns_down)
		from->ns_down = false;
	lne_node_nid(n, h->dst_nid, &dst);
	if (h->dst_nid != l->local && !lne_ni_find(n->ln, &dst)) {
		forward(n, l, ev, ls, ps); /* for another node */
		return;
	}
	if (lne_nd_gw_asym(n, l, h)) {
		lne_nd_count_drop(n, l, h->type, h->payload);
		lne_free(ev->payload);
		return;
	}
	/* A request nobody serves is dropped, unanswered: counted as such, not received. */
	svc = h->type == LNW_PUT || h->type == LNW_GET ? lne_nd_svc_bound(n, h->portal) : NULL;
	if ((h->type == LNW_PUT || h->type == LNW_GET) && h->portal != LNW_PORTAL_RESERVED &&
	    !svc && (h->portal == LNE_PORTAL_TEST || !n->ops->recv)) {
		lne_nd_count_drop(n, l, h->type, h->payload);
		lne_free(ev->payload);
		return;
	}
	lne_nd_heard(n, l, from);
	lne_nd_count(&n->st.c, false, h->type, h->payload);
	lne_nd_count(ls ? &ls->c : NULL, false, h->type, h->payload);
	lne_nd_count(ps ? &ps->c : NULL, false, h->type, h->payload);
	if (svc) {
		lne_nd_svc_recv(n, svc, l, ev); /* through its policy, then answered */
		lne_free(ev->payload);
		return;
	}

	switch (h->type) {
	case LNW_GET:
		if (h->portal == LNW_PORTAL_RESERVED && h->match == LNW_PING_MATCHBITS) {
			u8 *info = lne_zalloc(PING_INFO_MAX);
			int len = info ? lne_node_ping_info(n, info, PING_INFO_MAX) : -ENOMEM;

			if (len < 0) {
				lne_free(info);
				break;
			}
			lne_nd_answer_link(n, l, h, LNW_REPLY, info,
					   (u32)len < h->length ? (u32)len : h->length, false);
			lne_nd_disc_pinged(n, h->src_nid);
			break;
		}
		if (h->portal != LNW_PORTAL_RESERVED)
			n->ops->recv(n->ctx, h, NULL);
		break;
	case LNW_PUT:
		if (h->portal == LNW_PORTAL_RESERVED && h->match == LNW_PING_MATCHBITS)
			lne_nd_disc_push(n, l, h, ev->payload);
		else if (h->portal != LNW_PORTAL_RESERVED)
			n->ops->recv(n->ctx, h, ev->payload);
		if (h->wh_object != LNW_WH_NONE)
			lne_nd_answer_link(n, l, h, LNW_ACK, NULL, 0, false);
		break;
	case LNW_REPLY:
	case LNW_ACK:
		m = lne_nd_pending_take(n, h->wh_iface, h->wh_object);
		if (!m) {
			n->st.faults[LNW_F_UNMATCHED]++;
			lne_nd_count_drop(n, l, h->type, h->payload);
			break;
		}
		if (h->type == LNW_REPLY) {
			m->reply = ev->payload;
			m->reply_len = h->payload;
			ev->payload = NULL;
		}
		if (m->sent)
			lne_nd_finish(n, m, 0);
		else
			m->status = 1; /* answered before the send completed: finish then */
		break;
	}
	lne_free(ev->payload);
}

static bool on_hello(struct lne_node *n, struct lne_link *l, u64 dst)
{
	struct lne_nid pn, ln;
	struct lne_msg *m;

	lne_node_nid(n, l->conn.peer_nid, &pn);
	lne_node_nid(n, l->local, &ln);
	/* The peer's NID is on our NI's net, and the hello is for our NI. */
	if (lne_nid_net(&pn) != lne_nid_net(&ln) || dst != l->local)
		return false;
	if (!l->conn.active) {
		struct lnw_hello h = lne_nd_hello(n, l->local, l->conn.peer_nid, l->conn.peer_pid,
						  l->conn.peer_inc, l->conn.ctype);

		l->peer = l->conn.peer_nid;
		lne_nd_link_hash_add(n, l);
		lne_conn_reply_hello(&l->conn, &h, &l->hs);
	}
	l->ready = true;
	while ((m = l->wait)) {
		l->wait = m->next;
		m->next = NULL;
		lne_conn_queue(&l->conn, &m->frame);
	}
	l->waittail = &l->wait;
	n->ops->wake(n->ctx, l);
	return true;
}

static int link_fault(struct lne_node *n, struct lne_link *l, enum lnw_fault f)
{
	lne_conn_fail(&l->conn, f);
	n->st.faults[f]++;
	if (n->ops->fault)
		n->ops->fault(n->ctx, l, f);
	return -EPROTO;
}

void lne_node_accepted(struct lne_node *n, struct lne_link *l)
{
	lne_conn_init_passive(&l->conn, &n->keys);
	l->waittail = &l->wait;
	n->st.links_accepted++;
}

static int input(struct lne_node *n, struct lne_link *l, const u8 *buf, size_t len)
{
	struct lne_conn_ev ev;
	struct lne_nid nid;

	while (len) {
		size_t used = lne_conn_input(&l->conn, buf, len, &ev);

		buf += used;
		len -= used;
		switch (ev.type) {
		case LNC_EV_FAULT:
			return link_fault(n, l, l->conn.fault);
		case LNC_EV_CONNREQ:
			/* a large NID is interned only once it is known to be ours */
			if (ev.nid)
				lne_node_nid(n, ev.nid, &nid);
			else
				nid = ev.nid16;
			if (!lne_ni_find(n->ln, &nid) || lne_node_key(n, &nid, &ev.nid))
				return link_fault(n, l, LNW_F_NID);
			l->local = l->conn.local_nid = ev.nid;
			break;
		case LNC_EV_HELLO:
			if (!on_hello(n, l, ev.nid))
				return link_fault(n, l, LNW_F_NID);
			break;
		case LNC_EV_MSG:
			on_msg(n, l, &ev);
			break;
		default:
			break;
		}
	}
	return 0;
}

int lne_node_input(struct lne_node *n, struct lne_link *l, const u8 *buf, size_t len)
{
	int rc = input(n, l, buf, len);

	lne_nd_keys_sweep(n); /* counters of keys it took back go before the shell lists them */
	lne_nd_stats_sweep(n);
	return rc;
}

static void frame_done(void *ctx, struct lne_frame *f)
{
	struct lne_link *l = ctx;
	struct lne_msg *m = f->msg;
	struct lne_node *n;

	if (f == &l->hs)
		return;
	if (!m) {
		lne_free(f); /* a NOOP */
		return;
	}
	n = m->node;
	m->sent = true;
	lne_nd_send_ok(n, l, m);
	if (!m->forward)
		lne_nd_count(&n->st.c, true, m->hdr.type, m->hdr.payload);
	{
		struct lne_stat *ls = lne_nd_stat_get(n, l->local, true);
		struct lne_stat *ps = lne_nd_stat_get(n, l->peer, false);

		lne_nd_count(ls ? &ls->c : NULL, true, m->hdr.type, m->hdr.payload);
		lne_nd_count(ps ? &ps->c : NULL, true, m->hdr.type, m->hdr.payload);
	}
	if (m->forward) {
		lne_nd_credits_back(n, m);
		lne_nd_finish(n, m, 0);
		return;
	}
	lne_nd_credits_back(n, m);
	if (!m->wants_answer || m->status == 1)
		lne_nd_finish(n, m, 0);
}

void lne_node_sent(struct lne_node *n, struct lne_link *l, size_t bytes)
{
	lne_conn_tx_sent(&l->conn, bytes, frame_done, l);
	if (bytes)
		l->stall_ms = l->conn.txq || !l->ready ? n->now_ms : 0;
	if (n->credq)
		lne_nd_credq_kick(n);
}

static void frame_fail(void *ctx, struct lne_frame *f)
{
	struct lne_link *l = ctx;
	struct lne_msg *m = f->msg;

	if (f == &l->hs)
		return;
	if (!m) {
		lne_free(f);
		return;
	}
	lne_nd_fail_over(m->node, m, l->close_err);
}

void lne_node_closed(struct lne_node *n, struct lne_link *l, int err)
{
	struct lne_msg *m;

	lne_nd_link_hash_del(n, l);
	n->st.links_closed++;
	l->close_err = err && err != -EPROTO ? err : -ECONNRESET;
	lne_conn_tx_flush(&l->conn, frame_fail, l);
	while ((m = l->wait)) {
		l->wait = m->next;
		lne_nd_fail_over(n, m, l->close_err);
	}
	l->waittail = &l->wait;
	lne_nd_link_lost(n, l, l->close_err);
	lne_conn_fail(&l->conn, l->conn.fault);
	if (n->credq)
		lne_nd_credq_kick(n);
}
