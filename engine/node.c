// SPDX-License-Identifier: GPL-2.0
/*
 * node.c - the LNet node without I/O (node.h): links, sending through
 * selection and credits, answering the reserved portal, matching replies.
 */
#include "node-int.h"
#include "select.h"

void lne_node_init(struct lne_node *n, struct lne_inst *ln, const struct lne_node_ops *ops,
		   void *ctx, u64 incarnation)
{
	memset(n, 0, sizeof(*n));
	lne_nidkey_init(&n->keys);
	n->ln = ln;
	n->ops = ops;
	n->ctx = ctx;
	n->pid = LNW_PID_LUSTRE;
	n->incarnation = incarnation;
	n->next_cookie = 1;
	n->multi_rail = true;
	n->credtail = &n->credq;
	lne_nd_rtr_init(n);
	n->resendtail = &n->resendq;
	n->rtr_check_s = LNE_RTR_CHECK_S;
	n->rtr_timeout_s = LNE_RTR_TIMEOUT_S;
	n->avoid_asym = true;
}

void lne_node_set_inst(struct lne_node *n, struct lne_inst *ln)
{
	n->ln = ln;
	lne_nd_gw_sync(n, false); /* the new instance's routes as the checks found them */
}

void lne_msg_free(struct lne_msg *m)
{
	if (!m)
		return;
	if (!m->borrowed)
		lne_free(m->payload);
	lne_free(m->reply);
	lne_free(m);
	/* msgs_alloc is counted by the node that made it */
}

static u32 pending_hash(u64 cookie)
{
	return lne_nd_hash(cookie, 0);
}

/* Unlink and return the message waiting on bucket chain *@pp that @match accepts. */
static struct lne_msg *pending_unlink(struct lne_msg **pp, const struct lne_msg *want, u64 iface,
				      u64 object)
{
	for (; *pp; pp = &(*pp)->pnext) {
		struct lne_msg *m = *pp;

		if (want ? m != want : m->hdr.wh_iface != iface || m->hdr.wh_object != object)
			continue;
		*pp = m->pnext;
		m->pnext = NULL;
		m->wants_answer = false;
		return m;
	}
	return NULL;
}

static void pending_del(struct lne_node *n, struct lne_msg *m)
{
	pending_unlink(&n->pending[pending_hash(m->hdr.wh_object)], m, 0, 0);
}

/* The message a REPLY or ACK answers: both halves of the wire handle must be ours. */
static struct lne_msg *pending_take(struct lne_node *n, u64 iface, u64 object)
{
	return pending_unlink(&n->pending[pending_hash(object)], NULL, iface, object);
}

/* A message of the node's, zeroed and counted (msgs_alloc, msgs_max). */
static struct lne_msg *msg_alloc(struct lne_node *n)
{
	struct lne_msg *m = lne_zalloc(sizeof(*m));

	if (!m)
		return NULL;
	m->node = n;
	if (++n->st.msgs_alloc > n->st.msgs_max)
		n->st.msgs_max = n->st.msgs_alloc;
	return m;
}

/* The message is over: its callback runs, and it is freed. */
static void finish(struct lne_node *n, struct lne_msg *m, int status)
{
	if (m->wants_answer)
		pending_del(n, m);
	m->status = status;
	if (status && !m->cancelled)
		n->st.errors++;
	if (m->cb)
		m->cb(m, status);
	n->st.msgs_alloc--;
	lne_nd_rtr_release(n, m);
	lne_msg_free(m);
}

void lne_nd_finish(struct lne_node *n, struct lne_msg *m, int status)
{
	finish(n, m, status);
}

/* Its time is over while a queue still holds it: answer now, free it when it leaves. */
static void cancel(struct lne_node *n, struct lne_msg *m, int status)
{
	m->wants_answer = false;
	m->status = status;
	n->st.errors++;
	if (m->cb)
		m->cb(m, status);
	m->cb = NULL;
	m->cancelled = true;
}

static void credits_back(struct lne_node *n, struct lne_msg *m)
{
	struct lne_ni *ni;
	struct lne_peer_ni *pni;

	if (!m->sel_ln)
		return;
	if (m->sel_ln == n->ln) {
		ni = lne_ni_find(n->ln, &m->ni);
		if (ni)
			ni->credits++;
		pni = m->pni.alen ? lne_peer_ni_find(n->ln, &m->pni) : NULL;
		if (pni)
			pni->credits++;
	}
	m->sel_ln = NULL;
}

static void dispatch(struct lne_node *n, struct lne_msg *m);

/* A send failed: node-health.c blames a side and may send it again; else it is over. */
void lne_nd_fail_over(struct lne_node *n, struct lne_msg *m, int err)
{
	credits_back(n, m);
	if (!lne_nd_send_failed(n, m, err)) {
		finish(n, m, err);
		return;
	}
	if (n->resending)
		return; /* the loop below, further up the stack, sends it */
	n->resending = true;
	while ((m = n->resendq)) {
		n->resendq = m->next;
		if (!n->resendq)
			n->resendtail = &n->resendq;
		m->next = NULL;
		dispatch(n, m);
	}
	n->resending = false;
}

static void credq_kick(struct lne_node *n)
{
	struct lne_msg *q = n->credq, *m;

	n->credq = NULL;
	n->credtail = &n->credq;
	while ((m = q)) {
		q = m->next;
		m->next = NULL;
		if (!lne_nd_expired(n, m))
			dispatch(n, m);
	}
}

static void link_send(struct lne_node *n, struct lne_link *l, struct lne_msg *m)
{
	m->frame.msg = m;
	lne_conn_frame_lnet(&l->conn, &m->frame, &m->hdr, m->payload, 0);
	if (!l->stall_ms)
		l->stall_ms = n->now_ms;
	if (!l->ready) {
		m->next = NULL;
		*l->waittail = m;
		l->waittail = &m->next;
		return;
	}
	lne_conn_queue(&l->conn, &m->frame);
	n->ops->wake(n->ctx, l);
}

/* Choose the path, take the credits and hand the message to its link. */
static void dispatch(struct lne_node *n, struct lne_msg *m)
{
	struct lne_sel_req req = {.md_cpt = LNE_CPT_ANY};
	struct lne_sel sel = {0};
	struct lne_nid dst;
	struct lne_link *l;
	u64 ni4 = 0;
	int rc;

	if (!m->target)
		m->target = m->hdr.dst_nid;
	if (!m->forward && lne_nd_disc_hold(n, m))
		return;
	if (lne_nd_fault_delay(n, m))
		return;
	lne_node_nid(n, m->target, &dst);
	req.dst = dst;
	req.src = m->src_given ? &m->ni : NULL;
	req.kind = m->hdr.type == LNW_PUT ? LNE_MSG_PUT : LNE_MSG_GET;
	req.exact = m->forward && lne_nd_exact_hop(n, m, &dst);
	rc = m->recovery ? lne_nd_recovery_path(n, m, &sel.ni, &sel.pni)
			 : lne_select(n->ln, &req, &sel, NULL, NULL);
	if (rc == -ENOENT && !m->recovery) {
		/* no peer has the NID (yet): the way there from the NI named, if one was */
		struct lne_ni *only = req.src ? lne_ni_find(n->ln, req.src) : NULL;

		sel.ni = !req.src || only ? lne_nd_direct_ni(n, &dst, only) : NULL;
		if (!sel.ni && (!req.src || only)) {
			sel.route = lne_nd_direct_route(n, &dst, only, &sel.ni);
			sel.pni = NULL;
		}
	} else if (rc) {
		sel.ni = NULL;
	}
	if (!sel.ni) {
		finish(n, m, -EHOSTUNREACH);
		return;
	}
	if (sel.ni->credits <= 0 || (sel.pni && sel.pni->credits <= 0) ||
	    (sel.route && !sel.pni && sel.route->gw->credits <= 0)) {
		m->next = NULL;
		*n->credtail = m;
		n->credtail = &m->next;
		return;
	}
	/* the credits of the next hop: the peer NI, or the gateway on the way to it */
	{
		struct lne_peer_ni *hop = sel.route ? sel.route->gw : sel.pni;

		sel.ni->credits--;
		if (hop)
			hop->credits--;
		m->sel_ln = n->ln;
		m->ni = sel.ni->nid;
		memset(&m->pni, 0, sizeof(m->pni));
		if (hop)
			m->pni = hop->nid;
	}
	if (lne_node_key(n, &sel.ni->nid, &ni4) ||
	    lne_node_key(n,
			 sel.route ? &sel.route->gw->nid
			 : sel.pni ? &sel.pni->nid
				   : &dst,
			 &m->via) ||
	    (!m->forward && sel.pni && lne_node_key(n, &sel.pni->nid, &m->hdr.dst_nid))) {
		credits_back(n, m);
		finish(n, m, -EAFNOSUPPORT);
		return;
	}
	/* A router passes a message on as it came; a sender names its own end. */
	if (!m->forward)
		m->hdr.src_nid = ni4;
	if (lne_nd_fault_send(n, m, ni4)) {
		lne_nd_fail_over(n, m, -EIO);
		return;
	}
	l = lne_nd_link_get(n, ni4, m->via, m->hdr.payload);
	if (!l) {
		lne_nd_fail_over(n, m, -ECONNREFUSED);
		return;
	}
	link_send(n, l, m);
}

void lne_nd_dispatch(struct lne_node *n, struct lne_msg *m)
{
	dispatch(n, m);
}

static struct lne_msg *msg_new(struct lne_node *n, const struct lne_nid *dst,
			       const struct lne_nid *src, u32 type, struct lne_err *err)
{
	struct lne_msg *m;
	u64 d;

	if (lne_node_key(n, dst, &d)) {
		lne_err_set(
			err, -EAFNOSUPPORT, NULL, -1,
			"the destination NID cannot be keyed (the node's table of large NIDs is full)");
		return NULL;
	}
	m = msg_alloc(n);
	if (!m) {
		lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
		return NULL;
	}
	m->hdr.dst_nid = d;
	m->hdr.dst_pid = LNW_PID_LUSTRE;
	m->hdr.src_pid = n->pid;
	m->hdr.type = type;
	m->txn_deadline_ms = n->now_ms + (u64)n->ln->globals[LNE_G_TRANSACTION_TIMEOUT] * 1000;
	if (src) {
		m->ni = *src;
		m->src_given = true;
	}
	return m;
}

static void start(struct lne_node *n, struct lne_msg *m, u32 timeout_ms)
{
	if (m->wants_answer) {
		u32 b;

		m->hdr.wh_iface = n->incarnation;
		m->hdr.wh_object = n->next_cookie++;
		m->deadline_ms = n->now_ms + timeout_ms;
		b = pending_hash(m->hdr.wh_object);
		m->pnext = n->pending[b];
		n->pending[b] = m;
	}
	dispatch(n, m);
}

const u8 *lne_nd_zeros(struct lne_node *n)
{
	if (!n->zeros)
		n->zeros = lne_zalloc(LNW_MTU);
	return n->zeros;
}

int lne_node_put(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		 u32 portal, u64 match, u64 hdr_data, u8 *payload, u32 len, bool ack,
		 u32 timeout_ms, lne_msg_cb cb, void *arg, struct lne_err *err)
{
	bool borrowed = !payload && len;
	struct lne_msg *m;

	/* a node going away starts nothing: a callback of one it fails may try */
	if (n->closing) {
		if (payload)
			lne_free(payload);
		return lne_err_set(err, -ESHUTDOWN, NULL, -1, "the data path is stopping");
	}
	if (borrowed) {
		payload = (u8 *)lne_nd_zeros(n);
		if (!payload)
			return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	}

	if (portal >= LNW_PORTALS || len > LNW_MTU) {
		if (!borrowed)
			lne_free(payload);
		return lne_err_set(err, -EINVAL, NULL, -1, "portal or length out of range");
	}
	m = msg_new(n, dst, src, LNW_PUT, err);
	if (!m) {
		if (!borrowed)
			lne_free(payload);
		return err ? -EINVAL : -ENOMEM;
	}
	m->payload = payload;
	m->borrowed = borrowed;
	m->hdr.payload = len;
	m->hdr.portal = portal;
	m->hdr.match = match;
	m->hdr.hdr_data = hdr_data;
	m->hdr.wh_iface = m->hdr.wh_object = LNW_WH_NONE;
	m->wants_answer = ack;
	m->cb = cb;
	m->arg = arg;
	start(n, m, timeout_ms);
	return 0;
}

static int get_start(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		     u32 portal, u64 match, u32 len, u32 timeout_ms, lne_msg_cb cb, void *arg,
		     bool recovery, struct lne_err *err)
{
	struct lne_msg *m;

	if (n->closing)
		return lne_err_set(err, -ESHUTDOWN, NULL, -1, "the data path is stopping");
	if (portal >= LNW_PORTALS || len > LNW_MTU)
		return lne_err_set(err, -EINVAL, NULL, -1, "portal or length out of range");
	m = msg_new(n, dst, src, LNW_GET, err);
	if (!m)
		return -EINVAL;
	m->hdr.portal = portal;
	m->hdr.match = match;
	m->hdr.length = len;
	m->wants_answer = true;
	m->recovery = recovery;
	m->cb = cb;
	m->arg = arg;
	start(n, m, timeout_ms);
	return 0;
}

int lne_node_get(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		 u32 portal, u64 match, u32 len, u32 timeout_ms, lne_msg_cb cb, void *arg,
		 struct lne_err *err)
{
	return get_start(n, dst, src, portal, match, len, timeout_ms, cb, arg, false, err);
}

int lne_nd_ping_recovery(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
			 u32 timeout_ms, lne_msg_cb cb, void *arg)
{
	return get_start(n, dst, src, LNW_PORTAL_RESERVED, LNW_PING_MATCHBITS, PING_INFO_MAX,
			 timeout_ms, cb, arg, true, NULL);
}

int lne_node_ping(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		  u32 timeout_ms, lne_msg_cb cb, void *arg, struct lne_err *err)
{
	return lne_node_get(n, dst, src, LNW_PORTAL_RESERVED, LNW_PING_MATCHBITS, PING_INFO_MAX,
			    timeout_ms, cb, arg, err);
}

/* Answer on the link the request came by: the reply goes back the way it came. */
static void answer(struct lne_node *n, struct lne_link *l, const struct lnw_hdr *rq, u32 type,
		   u8 *payload, u32 len, bool borrowed)
{
	struct lne_msg *m = msg_alloc(n);

	if (!m) {
		if (!borrowed)
			lne_free(payload);
		return;
	}
	m->borrowed = borrowed;
	m->hdr.type = type;
	m->hdr.dst_nid = rq->src_nid;
	m->hdr.src_nid = rq->dst_nid;
	m->hdr.dst_pid = rq->src_pid;
	m->hdr.src_pid = n->pid;
	m->hdr.wh_iface = rq->wh_iface;
	m->hdr.wh_object = rq->wh_object;
	m->hdr.match = rq->match;
	m->hdr.length = type == LNW_ACK ? rq->payload : 0;
	m->hdr.payload = len;
	m->payload = payload;
	/* back to the asker from the NI it asked, on the connection of the answer's size */
	link_send(n, lne_nd_link_find(n, l->local, l->peer, lne_nd_want_bulk(len)) ?: l, m);
}

bool lne_nd_answer(struct lne_node *n, u64 local, u64 peer, const struct lnw_hdr *rq, u32 type,
		   u8 *payload, u32 len, bool borrowed)
{
	struct lne_link *l = lne_nd_link_find(n, local, peer, false);

	if (!l) {
		if (!borrowed)
			lne_free(payload);
		return false;
	}
	answer(n, l, rq, type, payload, len, borrowed);
	return true;
}

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

	if (!lne_global_get(n->ln, LNE_G_ROUTING) || !(m = msg_alloc(n))) {
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
	{
		/* a message from a peer NI proves it up, whatever its node said */
		struct lne_peer_ni *from;

		lne_node_nid(n, l->peer, &dst);
		from = lne_peer_ni_find(n->ln, &dst);
		if (from && from->ns_down)
			from->ns_down = false;
	}
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
	lne_nd_heard(n, l);
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
			answer(n, l, h, LNW_REPLY, info,
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
			answer(n, l, h, LNW_ACK, NULL, 0, false);
		break;
	case LNW_REPLY:
	case LNW_ACK:
		m = pending_take(n, h->wh_iface, h->wh_object);
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
			finish(n, m, 0);
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

int lne_node_input(struct lne_node *n, struct lne_link *l, const u8 *buf, size_t len)
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
		credits_back(n, m);
		finish(n, m, 0);
		return;
	}
	credits_back(n, m);
	if (!m->wants_answer || m->status == 1)
		finish(n, m, 0);
}

void lne_node_sent(struct lne_node *n, struct lne_link *l, size_t bytes)
{
	lne_conn_tx_sent(&l->conn, bytes, frame_done, l);
	if (bytes)
		l->stall_ms = l->conn.txq || !l->ready ? n->now_ms : 0;
	if (n->credq)
		credq_kick(n);
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
	lne_conn_fail(&l->conn, l->conn.fault);
	if (n->credq)
		credq_kick(n);
}

void lne_node_tick(struct lne_node *n, u64 now_ms)
{
	u32 b;

	n->now_ms = now_ms;
	for (b = 0; b < LNE_LINK_HASH; b++) {
		struct lne_msg **pp = &n->pending[b];

		while (*pp) {
			struct lne_msg *m = *pp;

			if (m->deadline_ms > now_ms) {
				pp = &m->pnext;
				continue;
			}
			*pp = m->pnext;
			m->pnext = NULL;
			m->wants_answer = false;
			if (m->sent) {
				lne_nd_response_timeout(n, m);
				finish(n, m, -ETIMEDOUT);
			} else
				cancel(n, m, -ETIMEDOUT);
		}
	}
	lne_nd_svc_tick(n);
	lne_nd_links_stalled(n);
	lne_nd_recovery_tick(n);
	lne_nd_fault_tick(n);
	lne_nd_gw_tick(n);
	if (n->nis_dirty)
		lne_node_nis_check(n);
}

u64 lne_node_next_deadline(const struct lne_node *n)
{
	u64 best = lne_nd_recovery_deadline(n), held = lne_nd_fault_deadline(n);
	u64 svc = lne_nd_svc_next_ms(n);
	u32 b;

	if (n->nis_dirty)
		return n->now_ms; /* a local NI's status changed: a tick tells the peers */
	for (b = 0; b < LNE_LINK_HASH; b++) {
		const struct lne_msg *m;
		const struct lne_link *l;

		for (m = n->pending[b]; m; m = m->pnext)
			if (m->deadline_ms < best)
				best = m->deadline_ms;
		for (l = n->links[b]; l; l = l->hnext)
			if (lne_nd_link_deadline(n, l) < best)
				best = lne_nd_link_deadline(n, l);
	}
	if (svc < best)
		best = svc;
	if (lne_nd_gw_deadline(n) < best)
		best = lne_nd_gw_deadline(n);
	return held < best ? held : best;
}

void lne_node_fini(struct lne_node *n)
{
	struct lne_msg *m;
	u32 b;

	n->closing = true;
	lne_nd_svc_fini(n);
	/* First what waits to be sent, so that closing links starts no new one. */
	lne_nd_rtr_fini(n, -ESHUTDOWN);
	while ((m = n->credq)) {
		n->credq = m->next;
		finish(n, m, -ESHUTDOWN);
	}
	n->credtail = &n->credq;
	for (b = 0; b < LNE_LINK_HASH; b++) {
		struct lne_link *l;

		while ((l = n->links[b])) {
			lne_node_closed(n, l, -ESHUTDOWN);
			n->ops->close(n->ctx, l);
		}
	}
	for (m = lne_nd_fault_fini(n); m;) {
		struct lne_msg *next = m->next;

		finish(n, m, -ESHUTDOWN);
		m = next;
	}
	while ((m = n->credq)) {
		n->credq = m->next;
		finish(n, m, -ESHUTDOWN);
	}
	lne_nd_disc_fini(n);
	for (b = 0; b < LNE_LINK_HASH; b++)
		while ((m = n->pending[b])) {
			n->pending[b] = m->pnext;
			m->wants_answer = false;
			finish(n, m, -ESHUTDOWN);
		}
	for (b = 0; b < LNE_STAT_HASH; b++) {
		struct lne_stat *s;

		while ((s = n->stats[b])) {
			n->stats[b] = s->hnext;
			lne_free(s);
		}
	}
	lne_free(n->zeros);
	n->zeros = NULL;
	lne_nidkey_fini(&n->keys);
}

void lne_nd_release(struct lne_node *n, struct lne_msg *m, int status)
{
	if (m->cancelled || status)
		finish(n, m, m->cancelled ? m->status : status);
	else
		dispatch(n, m);
}
