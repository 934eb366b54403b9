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

void lne_conn_init_passive(struct lne_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->txtail = &c->txq;
	rx_expect(c, LNC_CONNREQ, LNW_CONNREQ_SIZE);
}

void lne_conn_init_active(struct lne_conn *c, const struct lnw_hello *hello, struct lne_frame *hs)
{
	memset(c, 0, sizeof(*c));
	c->txtail = &c->txq;
	c->active = true;
	c->ctype = hello->ctype;
	c->local_nid = hello->src_nid;
	c->peer_nid = hello->dst_nid;
	rx_expect(c, LNC_HELLO, LNW_HELLO_SIZE);

	memset(hs, 0, sizeof(*hs));
	lnw_connreq_pack(hello->dst_nid, hs->hdr);
	lnw_hello_pack(hello, hs->hdr + LNW_CONNREQ_SIZE);
	hs->hlen = LNW_CONNREQ_SIZE + LNW_HELLO_SIZE;
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
	lnw_hello_pack(&h, hs->hdr);
	hs->hlen = LNW_HELLO_SIZE;
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

/* A whole part is in c->rx: check it and move on.  Returns true on an event. */
static bool part_done(struct lne_conn *c, struct lne_conn_ev *ev)
{
	struct lnw_connreq cr;
	struct lnw_hello h;
	enum lnw_fault f;

	switch (c->state) {
	case LNC_CONNREQ:
		f = lnw_connreq_unpack(c->rx, &cr, &c->flip);
		if (f)
			break;
		ev->type = LNC_EV_CONNREQ;
		ev->nid = cr.nid;
		rx_expect(c, LNC_HELLO, LNW_HELLO_SIZE);
		return true;
	case LNC_HELLO:
		f = lnw_hello_unpack(c->rx, &h, &c->flip);
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
		rx_expect(c, LNC_LNET, LNW_HDR_SIZE);
		return false;
	case LNC_LNET:
		f = lnw_hdr_unpack(c->rx, c->flip, &c->hdr);
		if (f)
			break;
		if (!c->hdr.payload) {
			deliver(c, ev);
			return true;
		}
		c->payload = lne_zalloc(c->hdr.payload);
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
