// SPDX-License-Identifier: GPL-2.0
/*
 * node-link.c - the node's links (node.h): socklnd's typed connections
 * between a local NI and a peer NI, opened, found, timed out and closed.
 */
#include "node-int.h"
#include "select.h"

/*
 * socklnd's connections between two NIs: one control connection, and
 * conns_per_peer bulk connections each way (Lustre's typed connections).
 * A frame of socklnd's min_bulk (1024 bytes) or more goes on the bulk-out connection
 * with the fewest bytes queued, a smaller one on the control connection;
 * without one of the type wanted, any live connection will do.
 */
bool lne_nd_want_bulk(u32 payload)
{
	return payload >= LNE_MIN_BULK_PAYLOAD;
}

struct lne_link *lne_nd_link_find(struct lne_node *n, u64 local, u64 peer, bool bulk)
{
	u32 want = bulk ? LNW_CONN_BULK_OUT : LNW_CONN_CONTROL;
	struct lne_link *l, *best = NULL, *any = NULL;

	for (l = n->links[lne_nd_hash(n, local, peer)]; l; l = l->hnext) {
		if (l->local != local || l->peer != peer || l->conn.state == LNC_DEAD)
			continue;
		if (l->conn.ctype != want) {
			if (!any || (l->ready && !any->ready))
				any = l;
			continue;
		}
		if (!best || (l->ready && !best->ready) ||
		    (l->ready == best->ready && l->conn.txq_bytes < best->conn.txq_bytes))
			best = l;
	}
	/* a connection of the type wanted that is still handshaking beats none */
	return best && (best->ready || !any || !any->ready) ? best : any;
}

void lne_nd_link_hash_add(struct lne_node *n, struct lne_link *l)
{
	u32 b = lne_nd_hash(n, l->local, l->peer);

	l->hnext = n->links[b];
	n->links[b] = l;
	l->hashed = true;
	lne_nidkey_hold(&n->keys, l->local, 1);
	lne_nidkey_hold(&n->keys, l->peer, 1);
}

void lne_nd_link_hash_del(struct lne_node *n, struct lne_link *l)
{
	struct lne_link **pp;

	if (!l->hashed)
		return;
	for (pp = &n->links[lne_nd_hash(n, l->local, l->peer)]; *pp; pp = &(*pp)->hnext)
		if (*pp == l) {
			*pp = l->hnext;
			break;
		}
	l->hashed = false;
	lne_nidkey_hold(&n->keys, l->local, -1);
	lne_nidkey_hold(&n->keys, l->peer, -1);
}

/* Our hello on a link from @local to @peer (the peer's pid and incarnation once known). */
struct lnw_hello lne_nd_hello(const struct lne_node *n, u64 local, u64 peer, u32 peer_pid,
			      u64 peer_inc, u32 ctype)
{
	struct lnw_hello h = {
		.version = LNW_SOCK_V3,
		.src_nid = local,
		.dst_nid = peer,
		.src_pid = n->pid,
		.dst_pid = peer_pid,
		.src_inc = n->incarnation,
		.dst_inc = peer_inc,
		/*
		 * Typed: socklnd v3 never sends on an untyped (ANY) connection.
		 * A reply's type is the peer's, inverted (lne_conn_reply_hello).
		 */
		.ctype = ctype,
	};

	return h;
}

static struct lne_link *link_open(struct lne_node *n, u64 local, u64 peer, u32 ctype)
{
	struct lnw_hello h = lne_nd_hello(n, local, peer, LNW_PID_LUSTRE, 0, ctype);
	struct lne_link *l = n->ops->link_new(n->ctx);

	if (!l)
		return NULL;
	l->local = local;
	l->peer = peer;
	l->waittail = &l->wait;
	l->stall_ms = n->now_ms;
	lne_conn_init_active(&l->conn, &h, &l->hs, &n->keys);
	lne_nd_link_hash_add(n, l);
	n->st.links_made++;
	if (!n->ops->connect(n->ctx, l)) {
		lne_nd_link_hash_del(n, l);
		n->ops->close(n->ctx, l);
		return NULL;
	}
	return l;
}

/*
 * The connection a frame of @payload bytes takes from @local to @peer.  On
 * first contact (no live connection between the two) the whole set is
 * opened, as Lustre's active side does: control, then conns_per_peer bulk
 * in and bulk out (0: one each, as Lustre when the link speed is unknown).
 */
struct lne_link *lne_nd_link_get(struct lne_node *n, u64 local, u64 peer, u32 payload)
{
	struct lne_link *l = lne_nd_link_find(n, local, peer, lne_nd_want_bulk(payload));
	struct lne_nid ln;
	struct lne_ni *ni;
	u32 cpp, i;

	if (l)
		return l;
	l = link_open(n, local, peer, LNW_CONN_CONTROL);
	if (!l)
		return NULL;
	lne_node_nid(n, local, &ln);
	ni = lne_ni_find(n->ln, &ln);
	cpp = ni && ni->tun.conns_per_peer ? ni->tun.conns_per_peer : 1;
	for (i = 0; i < cpp; i++) {
		link_open(n, local, peer, LNW_CONN_BULK_IN);
		link_open(n, local, peer, LNW_CONN_BULK_OUT);
	}
	return lne_nd_link_find(n, local, peer, lne_nd_want_bulk(payload)) ?: l;
}

/* Close @l for @err, as a shell closes a socket: what it held fails over. */
static void link_close(struct lne_node *n, struct lne_link *l, int err)
{
	lne_node_closed(n, l, err);
	n->ops->close(n->ctx, l);
}

/* When @l, stalled, times out: its NI's lnd timeout, or the global one (U64 max: not stalled). */
u64 lne_nd_link_deadline(const struct lne_node *n, const struct lne_link *l)
{
	struct lne_ni *ni;
	struct lne_nid nid;
	u32 t;

	if (!l->stall_ms)
		return ~0ull;
	lne_node_nid(n, l->local, &nid);
	ni = lne_ni_find(n->ln, &nid);
	t = ni && ni->tun.timeout ? ni->tun.timeout : lne_node_lnd_timeout(n->ln);
	return l->stall_ms + (u64)t * 1000;
}

/* The first link of bucket @b from local NI @ni4 (0: the first that timed out). */
static struct lne_link *link_pick(struct lne_node *n, u32 b, u64 ni4)
{
	struct lne_link *l;

	for (l = n->links[b]; l; l = l->hnext)
		if (ni4 ? l->local == ni4 : lne_nd_link_deadline(n, l) <= n->now_ms)
			return l;
	return NULL;
}

/* The first link of bucket @b marked as leaving by an interface that went down. */
static struct lne_link *link_path_down(struct lne_node *n, u32 b)
{
	struct lne_link *l;

	for (l = n->links[b]; l; l = l->hnext)
		if (l->path_down)
			return l;
	return NULL;
}

/* What was written from NI @local to @via and waits for its answer: its path went. */
static void mark_path_lost(struct lne_node *n, u64 local, u64 via)
{
	struct lne_msg *m;
	u32 b;
	u64 k;

	for (b = 0; b < LNE_LINK_HASH; b++)
		for (m = n->pending[b]; m; m = m->pnext)
			if (m->sent && m->via == via && !lne_node_key(n, &m->ni, &k) && k == local)
				m->path_lost = true;
}

/* Send again what was written and waits: sent from @ni4 (if not 0), or marked lost. */
static void fail_lost(struct lne_node *n, u64 ni4, int err)
{
	struct lne_msg *lost = NULL, *m;
	u32 b;
	u64 k;

	for (b = 0; b < LNE_LINK_HASH; b++)
		for (m = n->pending[b]; m; m = m->pnext)
			if (m->sent && !m->cancelled &&
			    (m->path_lost || (ni4 && !lne_node_key(n, &m->ni, &k) && k == ni4))) {
				m->path_lost = false;
				m->next = lost;
				lost = m;
			}
	while ((m = lost)) {
		lost = m->next;
		m->next = NULL;
		lne_nd_fail_over(n, m, err);
	}
}

/*
 * @l closed after its hellos crossed, and no other connection joins its
 * two ends: the answers to what was written to it would have come back on
 * it (a peer answers on the connection a request came by), so that is
 * sent again, at least once (the peer reset it, or its path went down).
 */
void lne_nd_link_lost(struct lne_node *n, struct lne_link *l, int err)
{
	if (!l->ready || lne_nd_link_find(n, l->local, l->peer, false))
		return;
	mark_path_lost(n, l->local, l->peer);
	fail_lost(n, 0, err);
}

/*
 * Local NI @ni4's link went down: its connections close, and those of other
 * NIs that leave by its interface (ops->through), and what was written to
 * them and not yet answered is taken as lost with them (it sat in a socket
 * buffer that is gone, or its answer would come back on a connection that
 * is) and sent again: at least once, not exactly once, should the peer have
 * read it before the link went.
 */
void lne_nd_close_ni(struct lne_node *n, u64 ni4)
{
	struct lne_link *l;
	struct lne_nid nid;
	struct lne_ni *ni;
	u32 b;

	lne_node_nid(n, ni4, &nid);
	ni = lne_ni_find(n->ln, &nid);
	/*
	 * Those of other NIs first, marked before any closes (what fails over
	 * may open new links, whose routes are their own), so that what they
	 * held goes again with the NI already down, not back onto its links.
	 */
	for (b = 0; ni && n->ops->through && b < LNE_LINK_HASH; b++)
		for (l = n->links[b]; l; l = l->hnext)
			if (l->local != ni4 && n->ops->through(n->ctx, l, ni)) {
				l->path_down = true;
				mark_path_lost(n, l->local, l->peer);
			}
	for (b = 0; b < LNE_LINK_HASH; b++)
		while ((l = link_path_down(n, b)))
			link_close(n, l, -ENETDOWN);
	for (b = 0; b < LNE_LINK_HASH; b++)
		while ((l = link_pick(n, b, ni4)))
			link_close(n, l, -ENETDOWN);
	fail_lost(n, ni4, -ENETDOWN);
}

/*
 * Links that moved no byte for the lnd timeout, as socklnd times them out:
 * one whose hellos never crossed could not connect (its messages go
 * another way); on one that did, the network timed out.
 */
void lne_nd_links_stalled(struct lne_node *n)
{
	struct lne_link *l;
	u32 b;

	for (b = 0; b < LNE_LINK_HASH; b++)
		while ((l = link_pick(n, b, 0)))
			link_close(n, l, l->ready ? -ETIMEDOUT : -EHOSTUNREACH);
}
