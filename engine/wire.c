// SPDX-License-Identifier: GPL-2.0
/*
 * wire.c - packing and checking LNet's wire formats (wire.h).
 *
 * Offsets are written out rather than taken from packed structs: the same
 * code runs in the module and in lnetd on any byte order, and each layout
 * is in one place.  Upstream's headers (lnet-idl.h, socklnd-idl.h) are the
 * reference for every offset.
 */
#include "wire.h"

static const char *const fault_names[LNW_F__COUNT] = {
	[LNW_OK] = "ok",
	[LNW_F_MAGIC] = "bad magic",
	[LNW_F_VERSION] = "unknown protocol version",
	[LNW_F_NID] = "wrong NID",
	[LNW_F_CTYPE] = "unknown connection type",
	[LNW_F_MSGTYPE] = "unknown message type",
	[LNW_F_LENGTH] = "bad payload length",
	[LNW_F_FIELD] = "field out of range",
	[LNW_F_COOKIE] = "unexpected zero-copy cookie",
	[LNW_F_UNMATCHED] = "reply to nothing sent",
};

const char *lnw_fault_name(enum lnw_fault f)
{
	return (unsigned int)f < LNW_F__COUNT ? fault_names[f] : "?";
}

int lnw_nid4(const struct lne_nid *nid, u64 *out)
{
	if (nid->alen != 4)
		return -EAFNOSUPPORT; /* IPv6 needs protocol version 4 */
	*out = (u64)lne_nid_net(nid) << 32 | lne_nid_ip4(nid);
	return 0;
}

void lnw_nid_from4(u64 nid4, struct lne_nid *out)
{
	u32 a = (u32)nid4;
	lne_net_t net = (lne_net_t)(nid4 >> 32);

	memset(out, 0, sizeof(*out));
	out->lnd = LNE_NET_LND(net);
	out->num = LNE_NET_NUM(net);
	out->alen = 4;
	out->addr[0] = (u8)(a >> 24);
	out->addr[1] = (u8)(a >> 16);
	out->addr[2] = (u8)(a >> 8);
	out->addr[3] = (u8)a;
}

static bool magic_order(u32 raw, u32 magic, bool *flip)
{
	if (raw == magic) {
		*flip = false;
		return true;
	}
	if (raw == __builtin_bswap32(magic)) {
		*flip = true;
		return true;
	}
	return false;
}

void lnw_connreq_pack(u64 nid, u8 out[LNW_CONNREQ_SIZE])
{
	lnw_put32(out, LNW_MAGIC_ACCEPTOR);
	lnw_put32(out + 4, LNW_ACCEPTOR_VERSION);
	lnw_put64(out + 8, nid);
}

enum lnw_fault lnw_connreq_unpack(const u8 in[LNW_CONNREQ_SIZE], struct lnw_connreq *cr, bool *flip)
{
	if (!magic_order(lnw_get32(in, false), LNW_MAGIC_ACCEPTOR, flip))
		return LNW_F_MAGIC;
	cr->magic = LNW_MAGIC_ACCEPTOR;
	cr->version = lnw_get32(in + 4, *flip);
	if (cr->version != LNW_ACCEPTOR_VERSION)
		return LNW_F_VERSION;
	cr->nid = lnw_get64(in + 8, *flip);
	return LNW_OK;
}

/*
 * The hello (ksock_hello_msg_nid4): magic 0, version 4, source NID 8,
 * destination NID 16, source pid 24, destination pid 28, source incarnation
 * 32, destination incarnation 40, connection type 48, address count 52.
 */
void lnw_hello_pack(const struct lnw_hello *h, u8 out[LNW_HELLO_SIZE])
{
	lnw_put32(out, LNW_MAGIC_PROTO);
	lnw_put32(out + 4, h->version);
	lnw_put64(out + 8, h->src_nid);
	lnw_put64(out + 16, h->dst_nid);
	lnw_put32(out + 24, h->src_pid);
	lnw_put32(out + 28, h->dst_pid);
	lnw_put64(out + 32, h->src_inc);
	lnw_put64(out + 40, h->dst_inc);
	lnw_put32(out + 48, h->ctype);
	lnw_put32(out + 52, 0);
}

enum lnw_fault lnw_hello_unpack(const u8 in[LNW_HELLO_SIZE], struct lnw_hello *h, bool *flip)
{
	bool f;

	if (!magic_order(lnw_get32(in, false), LNW_MAGIC_PROTO, flip))
		return LNW_F_MAGIC;
	f = *flip;
	h->version = lnw_get32(in + 4, f);
	h->src_nid = lnw_get64(in + 8, f);
	h->dst_nid = lnw_get64(in + 16, f);
	h->src_pid = lnw_get32(in + 24, f);
	h->dst_pid = lnw_get32(in + 28, f);
	h->src_inc = lnw_get64(in + 32, f);
	h->dst_inc = lnw_get64(in + 40, f);
	h->ctype = lnw_get32(in + 48, f);
	h->nips = lnw_get32(in + 52, f);
	if (h->version != LNW_SOCK_V3)
		return LNW_F_VERSION;
	/* SOCKLND_CONN_NONE (-1) in a reply: the peer lost a connection race */
	if (h->ctype > LNW_CONN_BULK_OUT && h->ctype != (u32)-1)
		return LNW_F_CTYPE;
	if (h->nips > LNW_HELLO_IPS_MAX)
		return LNW_F_FIELD;
	return LNW_OK;
}

/* socklnd's header: type 0, checksum 4, zero-copy cookies 8 and 16. */
void lnw_ksm_pack(const struct lnw_ksm *k, u8 out[LNW_KSM_SIZE])
{
	lnw_put32(out, k->type);
	lnw_put32(out + 4, k->csum);
	lnw_put64(out + 8, k->zc[0]);
	lnw_put64(out + 16, k->zc[1]);
}

enum lnw_fault lnw_ksm_unpack(const u8 in[LNW_KSM_SIZE], bool flip, struct lnw_ksm *k)
{
	k->type = lnw_get32(in, flip);
	k->csum = lnw_get32(in + 4, flip);
	k->zc[0] = lnw_get64(in + 8, flip);
	k->zc[1] = lnw_get64(in + 16, flip);
	if (k->type != LNW_KSM_NOOP && k->type != LNW_KSM_LNET)
		return LNW_F_MSGTYPE;
	return LNW_OK;
}

/*
 * The LNet header (_lnet_hdr_nid4): destination NID 0, source NID 8,
 * destination pid 16, source pid 20, type 24, payload length 28, then the
 * variant at 32: a wire handle (two cookies, 16 bytes) and
 *   ACK:   match bits 48, matched length 56
 *   PUT:   match bits 48, header data 56, portal 64, offset 68
 *   GET:   match bits 48, portal 56, source offset 60, sink length 64
 *   REPLY: nothing more.
 */
void lnw_hdr_pack(const struct lnw_hdr *h, u8 out[LNW_HDR_SIZE])
{
	u8 *v = out + 32;

	memset(out, 0, LNW_HDR_SIZE);
	lnw_put64(out, h->dst_nid);
	lnw_put64(out + 8, h->src_nid);
	lnw_put32(out + 16, h->dst_pid);
	lnw_put32(out + 20, h->src_pid);
	lnw_put32(out + 24, h->type);
	lnw_put32(out + 28, h->payload);
	lnw_put64(v, h->wh_iface);
	lnw_put64(v + 8, h->wh_object);
	switch (h->type) {
	case LNW_ACK:
		lnw_put64(v + 16, h->match);
		lnw_put32(v + 24, h->length);
		break;
	case LNW_PUT:
		lnw_put64(v + 16, h->match);
		lnw_put64(v + 24, h->hdr_data);
		lnw_put32(v + 32, h->portal);
		lnw_put32(v + 36, h->offset);
		break;
	case LNW_GET:
		lnw_put64(v + 16, h->match);
		lnw_put32(v + 24, h->portal);
		lnw_put32(v + 28, h->offset);
		lnw_put32(v + 32, h->length);
		break;
	default:
		break;
	}
}

enum lnw_fault lnw_hdr_unpack(const u8 in[LNW_HDR_SIZE], bool flip, struct lnw_hdr *h)
{
	const u8 *v = in + 32;

	memset(h, 0, sizeof(*h));
	h->dst_nid = lnw_get64(in, flip);
	h->src_nid = lnw_get64(in + 8, flip);
	h->dst_pid = lnw_get32(in + 16, flip);
	h->src_pid = lnw_get32(in + 20, flip);
	h->type = lnw_get32(in + 24, flip);
	h->payload = lnw_get32(in + 28, flip);
	h->wh_iface = lnw_get64(v, flip);
	h->wh_object = lnw_get64(v + 8, flip);
	switch (h->type) {
	case LNW_ACK:
		h->match = lnw_get64(v + 16, flip);
		h->length = lnw_get32(v + 24, flip);
		if (h->payload)
			return LNW_F_LENGTH;
		break;
	case LNW_PUT:
		h->match = lnw_get64(v + 16, flip);
		h->hdr_data = lnw_get64(v + 24, flip);
		h->portal = lnw_get32(v + 32, flip);
		h->offset = lnw_get32(v + 36, flip);
		if (h->portal >= LNW_PORTALS)
			return LNW_F_FIELD;
		break;
	case LNW_GET:
		h->match = lnw_get64(v + 16, flip);
		h->portal = lnw_get32(v + 24, flip);
		h->offset = lnw_get32(v + 28, flip);
		h->length = lnw_get32(v + 32, flip);
		if (h->payload)
			return LNW_F_LENGTH;
		if (h->portal >= LNW_PORTALS || h->length > LNW_MTU)
			return LNW_F_FIELD;
		break;
	case LNW_REPLY:
		break;
	default:
		return LNW_F_MSGTYPE;
	}
	if (h->payload > LNW_MTU)
		return LNW_F_LENGTH;
	return LNW_OK;
}

/* Ping info: magic 0, features 4, pid 8, count 12, then (NID 8, status 4, size 4). */
int lnw_ping_pack(const struct lnw_ping *p, const struct lnw_ping_ent *e, u8 *out, u32 cap)
{
	u32 i;

	if (p->n > LNW_PING_NIS_MAX || cap < LNW_PING_SIZE(p->n))
		return -ENOSPC;
	lnw_put32(out, LNW_MAGIC_PING);
	lnw_put32(out + 4, p->features);
	lnw_put32(out + 8, p->pid);
	lnw_put32(out + 12, p->n);
	for (i = 0; i < p->n; i++)
		lnw_ping_put_ent(out, i, &e[i]);
	return (int)LNW_PING_SIZE(p->n);
}

void lnw_ping_put_ent(u8 *info, u32 i, const struct lnw_ping_ent *e)
{
	u8 *s = info + LNW_PING_SIZE(i);

	lnw_put64(s, e->nid);
	lnw_put32(s + 8, e->status);
	lnw_put32(s + 12, 0);
}

enum lnw_fault lnw_ping_unpack(const u8 *in, u32 len, struct lnw_ping *p, struct lnw_ping_ent *e,
			       u32 cap)
{
	bool flip;
	u32 i;

	if (len < LNW_PING_HDR_SIZE)
		return LNW_F_LENGTH;
	if (!magic_order(lnw_get32(in, false), LNW_MAGIC_PING, &flip))
		return LNW_F_MAGIC;
	p->features = lnw_get32(in + 4, flip);
	p->pid = lnw_get32(in + 8, flip);
	p->n = lnw_get32(in + 12, flip);
	if (!(p->features & LNW_PING_FEAT_NI_STATUS))
		return LNW_F_FIELD;
	if (p->n > LNW_PING_NIS_MAX)
		return LNW_F_FIELD;
	/* A reply cut short by the asker's buffer holds fewer entries. */
	if (len < LNW_PING_SIZE(p->n))
		p->n = (len - LNW_PING_HDR_SIZE) / LNW_PING_ENT_SIZE;
	for (i = 0; i < p->n && i < cap; i++) {
		const u8 *s = in + LNW_PING_SIZE(i);

		e[i].nid = lnw_get64(s, flip);
		e[i].status = lnw_get32(s + 8, flip);
	}
	return LNW_OK;
}
