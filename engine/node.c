// SPDX-License-Identifier: GPL-2.0
/*
 * node.c - the LNet node without I/O (node.h): sending through selection
 * and credits, the replies awaited, deadlines and the end (what comes in:
 * node-input.c; the links: node-link.c).
 */
#include "node-int.h"
#include "select.h"

void lne_node_init(struct lne_node *n, struct lne_inst *ln, const struct lne_node_ops *ops,
		   void *ctx, u64 incarnation)
{
	memset(n, 0, sizeof(*n));
	n->hkey[0] = lne_random_u64();
	n->hkey[1] = lne_random_u64();
	lne_nidkey_init(&n->keys);
	lne_nd_keys_init(n);
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

/* Cookies are the node's own, one after the other: they fill the buckets in turn. */
static u32 pending_hash(u64 cookie)
{
	return (u32)(cookie % LNE_LINK_HASH);
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
struct lne_msg *lne_nd_pending_take(struct lne_node *n, u64 iface, u64 object)
{
	return pending_unlink(&n->pending[pending_hash(object)], NULL, iface, object);
}

/* A message of the node's, zeroed and counted (msgs_alloc, msgs_max). */
struct lne_msg *lne_nd_msg_alloc(struct lne_node *n)
{
	struct lne_msg *m = lne_zalloc(sizeof(*m));

	if (!m)
		return NULL;
	m->node = n;
	m->md_cpt = n->ops && n->ops->cpt ? n->ops->cpt(n->ctx) : LNE_CPT_ANY;
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

void lne_nd_credits_back(struct lne_node *n, struct lne_msg *m)
{
	struct lne_ni *ni;
	struct lne_peer_ni *pni;

	if (!m->sel_ln)
		return;
	ni = lne_ni_find(n->ln, &m->ni);
	pni = m->pni.alen ? lne_peer_ni_find(n->ln, &m->pni) : NULL;
	if (m->sel_ln == n->ln) {
		if (ni)
			ni->credits++;
		if (pni)
			pni->credits++;
	} else {
		/*
		 * Taken in an instance since replaced: a copy carries the credits
		 * as they stood (lne_inst_copy), these in flight among them, so
		 * they come back to it, but never above full (an NI or peer NI
		 * deleted and added again started full).
		 */
		if (ni && ni->credits < (s32)ni->tun.credits)
			ni->credits++;
		if (pni && pni->credits < LNE_PNI_CREDITS)
			pni->credits++;
	}
	m->sel_ln = NULL;
}

static void dispatch(struct lne_node *n, struct lne_msg *m);

/* A send failed: node-health.c blames a side and may send it again; else it is over. */
void lne_nd_fail_over(struct lne_node *n, struct lne_msg *m, int err)
{
	lne_nd_credits_back(n, m);
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

void lne_nd_credq_kick(struct lne_node *n)
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
	struct lne_sel_req req = {.md_cpt = m->md_cpt};
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
		lne_nd_credits_back(n, m);
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
	m = lne_nd_msg_alloc(n);
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

/*
 * A ping of the node itself (0@lo, or one of its NIs' NIDs): answered here,
 * at once, with its own ping info and no link, as LNet's loopback answers
 * Lustre's `lnetctl ping 0@lo` and a ping of the node's own NID.
 */
static int ping_self(struct lne_node *n, const struct lne_nid *dst, lne_msg_cb cb, void *arg,
		     struct lne_err *err)
{
	struct lne_msg *m;
	int len;

	if (n->closing)
		return lne_err_set(err, -ESHUTDOWN, NULL, -1, "the data path is stopping");
	m = lne_nd_msg_alloc(n);
	if (!m)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	m->reply = lne_zalloc(PING_INFO_MAX);
	len = m->reply ? lne_node_ping_info(n, m->reply, PING_INFO_MAX) : -ENOMEM;
	if (len < 0 || lne_node_key(n, dst, &m->hdr.dst_nid)) {
		n->st.msgs_alloc--;
		lne_msg_free(m);
		return lne_err_set(err, len < 0 ? len : -EAFNOSUPPORT, NULL, -1,
				   "cannot build the node's own ping info");
	}
	m->reply_len = (u32)len;
	m->hdr.type = LNW_GET;
	m->hdr.portal = LNW_PORTAL_RESERVED;
	m->hdr.match = LNW_PING_MATCHBITS;
	m->cb = cb;
	m->arg = arg;
	finish(n, m, 0);
	return 0;
}

int lne_node_ping(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		  u32 timeout_ms, lne_msg_cb cb, void *arg, struct lne_err *err)
{
	if (dst->lnd == LNE_LND_LO || lne_ni_find(n->ln, dst))
		return ping_self(n, dst, cb, arg, err);
	return lne_node_get(n, dst, src, LNW_PORTAL_RESERVED, LNW_PING_MATCHBITS, PING_INFO_MAX,
			    timeout_ms, cb, arg, err);
}

/* Answer on the link the request came by: the reply goes back the way it came. */
void lne_nd_answer_link(struct lne_node *n, struct lne_link *l, const struct lnw_hdr *rq, u32 type,
			u8 *payload, u32 len, bool borrowed)
{
	struct lne_msg *m = lne_nd_msg_alloc(n);

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
	lne_nd_answer_link(n, l, rq, type, payload, len, borrowed);
	return true;
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
	lne_nd_keys_sweep(n);
	lne_nd_stats_sweep(n);
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
	n->nstats = n->stats_kept = 0;
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
