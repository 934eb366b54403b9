// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - the socklnd connection state machine (conn.h).
 *
 * Input is gathered into a fixed buffer until the part being read (request,
 * hello, socklnd header, LNet header) is whole, then checked; a payload goes
 * straight into a buffer of the announced size, which is bounded by the MTU
 * before it is allocated.  Output is a queue of frames written in order.
 */
#include "conn.h"

static void rx_expect(struct lne_conn *c, u8 state, u32 need)
{
	c->state = state;
	c->rx_have = 0;
	c->rx_need = need;
}

void lne_conn_init_passive(struct lne_conn *c, struct lne_nidtab *tab)
{
	memset(c, 0, sizeof(*c));
	c->txtail = &c->txq;
	c->tab = tab;
	rx_expect(c, LNC_CONNREQ, LNW_CONNREQ_SIZE);
}

/* Our hello into @out, in the connection's version; returns its size. */
static u32 hello_pack(const struct lne_conn *c, const struct lnw_hello *h, u8 *out)
{
	struct lne_nid src, dst;

	if (!c->v4) {
		lnw_hello_pack(h, out);
		return LNW_HELLO_SIZE;
	}
	lne_nidkey_nid(c->tab, h->src_nid, &src);
	lne_nidkey_nid(c->tab, h->dst_nid, &dst);
	lnw_hello16_pack(h, &src, &dst, out);
	return LNW_HELLO16_SIZE;
}

void lne_conn_init_active(struct lne_conn *c, const struct lnw_hello *hello, struct lne_frame *hs,
			  struct lne_nidtab *tab)
{
	memset(c, 0, sizeof(*c));
	c->txtail = &c->txq;
	c->active = true;
	c->tab = tab;
	c->v4 = tab && (lne_nidkey_is_large(hello->src_nid) || lne_nidkey_is_large(hello->dst_nid));
	c->ctype = hello->ctype;
	c->local_nid = hello->src_nid;
	c->peer_nid = hello->dst_nid;
	rx_expect(c, LNC_HELLO, LNW_HELLO_SIZE);

	memset(hs, 0, sizeof(*hs));
	if (c->v4) {
		struct lne_nid dst;

		lne_nidkey_nid(tab, hello->dst_nid, &dst);
		lnw_connreq16_pack(&dst, hs->hdr);
		hs->hlen = LNW_CONNREQ16_SIZE;
	} else {
		lnw_connreq_pack(hello->dst_nid, hs->hdr);
		hs->hlen = LNW_CONNREQ_SIZE;
	}
	hs->hlen += hello_pack(c, hello, hs->hdr + hs->hlen);
	lne_conn_queue(c, hs);
}

u32 lne_ctype_invert(u32 ctype)
{
	switch (ctype) {
	case LNW_CONN_BULK_IN:
		return LNW_CONN_BULK_OUT;
	case LNW_CONN_BULK_OUT:
		return LNW_CONN_BULK_IN;
	default:
		return ctype;
	}
}

void lne_conn_reply_hello(struct lne_conn *c, const struct lnw_hello *hello, struct lne_frame *hs)
{
	struct lnw_hello h = *hello;

	h.ctype = c->ctype;
	memset(hs, 0, sizeof(*hs));
	hs->hlen = hello_pack(c, &h, hs->hdr);
	lne_conn_queue(c, hs);
}

void lne_conn_fail(struct lne_conn *c, enum lnw_fault f)
{
	if (c->state == LNC_DEAD)
		return;
	c->state = LNC_DEAD;
	c->fault = f;
	lne_free(c->payload);
	c->payload = NULL;
}

static size_t fault(struct lne_conn *c, enum lnw_fault f, struct lne_conn_ev *ev, size_t used)
{
	lne_conn_fail(c, f);
	ev->type = LNC_EV_FAULT;
	return used;
}

static void deliver(struct lne_conn *c, struct lne_conn_ev *ev)
{
	ev->type = LNC_EV_MSG;
	ev->hdr = c->hdr;
	ev->payload = c->payload;
	ev->zc_req = c->ksm.zc[0];
	c->payload = NULL;
	c->rx_msgs++;
	rx_expect(c, LNC_KSM, LNW_KSM_SIZE);
}

/*
 * The request or hello whose first bytes are in: its size by its version
 * (0: a fault, in *@f).  A large form needs the node's NID keys.
 */
static u32 part_size(struct lne_conn *c, enum lnw_fault *f)
{
	u32 size = c->state == LNC_CONNREQ ? lnw_connreq_size(c->rx, f) : lnw_hello_size(c->rx, f);

	if (size && !c->tab && (size == LNW_CONNREQ16_SIZE || size == LNW_HELLO16_SIZE)) {
		*f = LNW_F_VERSION;
		return 0;
	}
	return size;
}

/* An 8-byte NID from a version 3 form must not fall among the large NIDs' keys. */
static bool nid4_ok(u64 nid)
{
	return !lne_nidkey_is_large(nid);
}

/*
 * A version 4 hello into @h with keys for its NIDs: ours must be known
 * already (the request or our connect interned it), the peer's on the
 * same net; the peer's is interned only then, and only by a passive side
 * (an active one hears the NID it connected to).
 */
static enum lnw_fault hello16(struct lne_conn *c, struct lnw_hello *h)
{
	struct lne_nid src, dst;
	enum lnw_fault f = lnw_hello16_unpack(c->rx, h, &src, &dst, &c->flip);

	if (f)
		return f;
	if (lne_nidkey_find(c->tab, &dst, &h->dst_nid) || lne_nid_net(&src) != lne_nid_net(&dst))
		return LNW_F_NID;
	if (c->active ? lne_nidkey_find(c->tab, &src, &h->src_nid)
		      : lne_nidkey(c->tab, &src, &h->src_nid))
		return LNW_F_NID;
	return LNW_OK;
}

/* An LNet header in the connection's version, its NIDs as keys. */
static enum lnw_fault hdr_in(struct lne_conn *c)
{
	struct lne_nid dst, src;
	enum lnw_fault f;

	if (!c->v4) {
		f = lnw_hdr_unpack(c->rx, c->flip, &c->hdr);
		if (!f && (!nid4_ok(c->hdr.dst_nid) || !nid4_ok(c->hdr.src_nid)))
			f = LNW_F_NID;
		return f;
	}
	f = lnw_hdr16_unpack(c->rx, c->flip, &c->hdr, &dst, &src);
	if (!f && (lne_nidkey(c->tab, &dst, &c->hdr.dst_nid) ||
		   lne_nidkey(c->tab, &src, &c->hdr.src_nid)))
		f = LNW_F_NID;
	return f;
}

/* A whole part is in c->rx: check it and move on.  Returns true on an event. */
static bool part_done(struct lne_conn *c, struct lne_conn_ev *ev)
{
	struct lnw_connreq cr;
	struct lnw_hello h;
	enum lnw_fault f;
	u32 size;

	switch (c->state) {
	case LNC_CONNREQ:
		size = part_size(c, &f);
		if (!size)
			break;
		if (size > c->rx_need) {
			c->rx_need = size;
			return false;
		}
		if (size == LNW_CONNREQ16_SIZE) {
			/* its NID for the node to check and intern (ev->nid 0) */
			f = lnw_connreq16_unpack(c->rx, &ev->nid16, &c->flip);
			cr.nid = 0;
		} else {
			f = lnw_connreq_unpack(c->rx, &cr, &c->flip);
			if (!f && !nid4_ok(cr.nid))
				f = LNW_F_NID;
		}
		if (f)
			break;
		ev->type = LNC_EV_CONNREQ;
		ev->nid = cr.nid;
		rx_expect(c, LNC_HELLO, LNW_HELLO_SIZE);
		return true;
	case LNC_HELLO:
		size = part_size(c, &f);
		if (!size)
			break;
		if (size > c->rx_need) {
			c->rx_need = size;
			return false;
		}
		/* An active side hears the version it spoke. */
		f = LNW_F_VERSION;
		if (c->active && c->v4 != (size == LNW_HELLO16_SIZE))
			break;
		c->v4 = size == LNW_HELLO16_SIZE;
		if (c->v4) {
			f = hello16(c, &h);
		} else {
			f = lnw_hello_unpack(c->rx, &h, &c->flip);
			if (!f && (!nid4_ok(h.src_nid) || !nid4_ok(h.dst_nid)))
				f = LNW_F_NID;
		}
		if (f)
			break;
		if (c->active) {
			f = LNW_F_NID;
			if (h.src_nid != c->peer_nid)
				break;
			f = LNW_F_CTYPE;
			if (h.ctype != lne_ctype_invert(c->ctype))
				break;
		} else {
			f = LNW_F_CTYPE;
			if (h.ctype > LNW_CONN_BULK_OUT)
				break;
			c->ctype = lne_ctype_invert(h.ctype);
			c->peer_nid = h.src_nid;
		}
		c->peer_pid = h.src_pid;
		c->peer_inc = h.src_inc;
		c->skip = h.nips * 4;
		ev->type = LNC_EV_HELLO;
		ev->nid = h.dst_nid;
		if (c->skip)
			c->state = LNC_HELLO_IPS;
		else
			rx_expect(c, LNC_KSM, LNW_KSM_SIZE);
		return true;
	case LNC_KSM:
		f = lnw_ksm_unpack(c->rx, c->flip, &c->ksm);
		if (f)
			break;
		/* We never ask for zero-copy acknowledgements: only keepalives may come. */
		f = LNW_F_COOKIE;
		if (c->ksm.zc[1] && c->ksm.zc[1] != LNW_KEEPALIVE_COOKIE)
			break;
		if (c->ksm.type == LNW_KSM_NOOP) {
			if (c->ksm.zc[0])
				break;
			rx_expect(c, LNC_KSM, LNW_KSM_SIZE);
			return false;
		}
		rx_expect(c, LNC_LNET, c->v4 ? LNW_HDR16_SIZE : LNW_HDR_SIZE);
		return false;
	case LNC_LNET:
		f = hdr_in(c);
		if (f)
			break;
		if (!c->hdr.payload) {
			deliver(c, ev);
			return true;
		}
		/* every byte is the peer's before it is delivered: no need to zero it */
		c->payload = lne_alloc(c->hdr.payload);
		if (!c->payload) {
			f = LNW_F_LENGTH;
			break;
		}
		c->payload_have = 0;
		c->state = LNC_PAYLOAD;
		return false;
	default:
		f = LNW_F_FIELD;
		break;
	}
	lne_conn_fail(c, f);
	ev->type = LNC_EV_FAULT;
	return true;
}

size_t lne_conn_rx_room(const struct lne_conn *c, u8 **at)
{
	if (c->state != LNC_PAYLOAD || c->payload_have >= c->hdr.payload)
		return 0;
	*at = c->payload + c->payload_have;
	return c->hdr.payload - c->payload_have;
}

size_t lne_conn_input(struct lne_conn *c, const u8 *buf, size_t len, struct lne_conn_ev *ev)
{
	size_t used = 0, n;

	memset(ev, 0, sizeof(*ev));
	if (c->state == LNC_DEAD)
		return fault(c, c->fault, ev, 0);
	while (used < len) {
		if (c->state == LNC_PAYLOAD) {
			n = c->hdr.payload - c->payload_have;
			if (n > len - used)
				n = len - used;
			/* read straight into the payload (lne_conn_rx_room()): nothing to copy */
			if (buf + used != c->payload + c->payload_have)
				memcpy(c->payload + c->payload_have, buf + used, n);
			c->payload_have += (u32)n;
			used += n;
			if (c->payload_have == c->hdr.payload) {
				deliver(c, ev);
				return used;
			}
			continue;
		}
		if (c->state == LNC_HELLO_IPS) {
			n = c->skip < len - used ? c->skip : len - used;
			c->skip -= (u32)n;
			used += n;
			if (!c->skip)
				rx_expect(c, LNC_KSM, LNW_KSM_SIZE);
			continue;
		}
		n = c->rx_need - c->rx_have;
		if (n > len - used)
			n = len - used;
		memcpy(c->rx + c->rx_have, buf + used, n);
		c->rx_have += (u32)n;
		used += n;
		if (c->rx_have == c->rx_need && part_done(c, ev))
			return used;
	}
	return used;
}

void lne_frame_lnet(struct lne_frame *f, const struct lnw_hdr *h, const u8 *payload, u64 zc_req)
{
	struct lnw_ksm k = {.type = LNW_KSM_LNET, .zc = {zc_req, 0}};

	f->next = NULL;
	lnw_ksm_pack(&k, f->hdr);
	lnw_hdr_pack(h, f->hdr + LNW_KSM_SIZE);
	f->hlen = LNW_FRAME_HDR;
	f->payload = payload;
	f->plen = h->payload;
	f->sent = 0;
}

void lne_conn_frame_lnet(const struct lne_conn *c, struct lne_frame *f, const struct lnw_hdr *h,
			 const u8 *payload, u64 zc_req)
{
	struct lne_nid dst, src;

	lne_frame_lnet(f, h, payload, zc_req);
	if (!c->v4)
		return;
	lne_nidkey_nid(c->tab, h->dst_nid, &dst);
	lne_nidkey_nid(c->tab, h->src_nid, &src);
	lnw_hdr16_pack(h, &dst, &src, f->hdr + LNW_KSM_SIZE);
	f->hlen = LNW_FRAME16_HDR;
}

void lne_frame_noop(struct lne_frame *f, u64 zc_ack)
{
	struct lnw_ksm k = {.type = LNW_KSM_NOOP, .zc = {0, zc_ack}};

	f->next = NULL;
	lnw_ksm_pack(&k, f->hdr);
	f->hlen = LNW_KSM_SIZE;
	f->payload = NULL;
	f->plen = 0;
	f->sent = 0;
}

void lne_conn_queue(struct lne_conn *c, struct lne_frame *f)
{
	f->next = NULL;
	f->sent = 0;
	*c->txtail = f;
	c->txtail = &f->next;
	c->txq_bytes += f->hlen + f->plen;
}

int lne_conn_tx_iov(const struct lne_conn *c, struct lne_iov *iov, int max)
{
	const struct lne_frame *f;
	int n = 0;

	for (f = c->txq; f && n < max; f = f->next) {
		u32 off = f->sent;

		if (off < f->hlen) {
			iov[n].base = f->hdr + off;
			iov[n++].len = f->hlen - off;
			off = f->hlen;
		}
		if (n < max && f->plen && off < f->hlen + f->plen) {
			iov[n].base = f->payload + (off - f->hlen);
			iov[n++].len = f->hlen + f->plen - off;
		}
	}
	return n;
}

static struct lne_frame *pop(struct lne_conn *c)
{
	struct lne_frame *f = c->txq;

	c->txq = f->next;
	if (!c->txq)
		c->txtail = &c->txq;
	c->txq_bytes -= f->hlen + f->plen;
	f->next = NULL;
	return f;
}

void lne_conn_tx_sent(struct lne_conn *c, size_t n, void (*done)(void *ctx, struct lne_frame *f),
		      void *ctx)
{
	while (n && c->txq) {
		struct lne_frame *f = c->txq;
		u32 left = f->hlen + f->plen - f->sent;

		if (n < left) {
			f->sent += (u32)n;
			return;
		}
		n -= left;
		f = pop(c);
		c->tx_msgs++;
		done(ctx, f);
	}
}

void lne_conn_tx_flush(struct lne_conn *c, void (*done)(void *ctx, struct lne_frame *f), void *ctx)
{
	while (c->txq)
		done(ctx, pop(c));
}
