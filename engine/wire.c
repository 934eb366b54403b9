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

/*
 * struct lnet_nid: address bytes beyond 4 (0 or 12) at 0, LND type 1, net
 * number 2 (big-endian), address 4 (network order, padded with zeroes).
 */
void lnw_nid_pack(const struct lne_nid *nid, u8 out[LNW_NID_SIZE])
{
	memset(out, 0, LNW_NID_SIZE);
	out[0] = (u8)(nid->alen - 4);
	out[1] = nid->lnd;
	out[2] = (u8)(nid->num >> 8);
	out[3] = (u8)nid->num;
	memcpy(out + 4, nid->addr, nid->alen);
}

enum lnw_fault lnw_nid_unpack(const u8 in[LNW_NID_SIZE], struct lne_nid *nid)
{
	memset(nid, 0, sizeof(*nid));
	if (in[0] != 0 && in[0] != 12)
		return LNW_F_FIELD;
	nid->alen = (u8)(in[0] + 4);
	nid->lnd = in[1];
	nid->num = (u16)(in[2] << 8 | in[3]);
	if (nid->alen == 16 &&
	    (!lne_lnd_name(nid->lnd) || lne_lnd_addr_class(nid->lnd) != LNE_AC_IP))
		return LNW_F_FIELD;
	memcpy(nid->addr, in + 4, nid->alen);
	return LNW_OK;
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

/* Version 2: magic 0, version 4, the NID as struct lnet_nid at 8. */
void lnw_connreq16_pack(const struct lne_nid *nid, u8 out[LNW_CONNREQ16_SIZE])
{
	lnw_put32(out, LNW_MAGIC_ACCEPTOR);
	lnw_put32(out + 4, LNW_ACCEPTOR_VERSION_16);
	lnw_nid_pack(nid, out + 8);
}

enum lnw_fault lnw_connreq16_unpack(const u8 in[LNW_CONNREQ16_SIZE], struct lne_nid *nid,
				    bool *flip)
{
	memset(nid, 0, sizeof(*nid));
	if (!magic_order(lnw_get32(in, false), LNW_MAGIC_ACCEPTOR, flip))
		return LNW_F_MAGIC;
	if (lnw_get32(in + 4, *flip) != LNW_ACCEPTOR_VERSION_16)
		return LNW_F_VERSION;
	return lnw_nid_unpack(in + 8, nid);
}

/*
 * The hello, after magic 0 and version 4: the two NIDs (8 bytes each in
 * version 3's ksock_hello_msg_nid4, 20 in version 4's ksock_hello_msg),
 * then source pid, destination pid, source incarnation, destination
 * incarnation, connection type and address count: 56 and 80 bytes.
 */
static void hello_body_pack(const struct lnw_hello *h, u8 *p)
{
	lnw_put32(p, h->src_pid);
	lnw_put32(p + 4, h->dst_pid);
	lnw_put64(p + 8, h->src_inc);
	lnw_put64(p + 16, h->dst_inc);
	lnw_put32(p + 24, h->ctype);
	lnw_put32(p + 28, 0);
}

static enum lnw_fault hello_body_unpack(const u8 *p, bool f, struct lnw_hello *h)
{
	h->src_pid = lnw_get32(p, f);
	h->dst_pid = lnw_get32(p + 4, f);
	h->src_inc = lnw_get64(p + 8, f);
	h->dst_inc = lnw_get64(p + 16, f);
	h->ctype = lnw_get32(p + 24, f);
	h->nips = lnw_get32(p + 28, f);
	/* SOCKLND_CONN_NONE (-1) in a reply: the peer lost a connection race */
	if (h->ctype > LNW_CONN_BULK_OUT && h->ctype != (u32)-1)
		return LNW_F_CTYPE;
	if (h->nips > (h->version == LNW_SOCK_V3 ? LNW_HELLO_IPS_MAX : 0))
		return LNW_F_FIELD;
	return LNW_OK;
}

void lnw_hello_pack(const struct lnw_hello *h, u8 out[LNW_HELLO_SIZE])
{
	lnw_put32(out, LNW_MAGIC_PROTO);
	lnw_put32(out + 4, h->version);
	lnw_put64(out + 8, h->src_nid);
	lnw_put64(out + 16, h->dst_nid);
	hello_body_pack(h, out + 24);
}

enum lnw_fault lnw_hello_unpack(const u8 in[LNW_HELLO_SIZE], struct lnw_hello *h, bool *flip)
{
	enum lnw_fault f;

	if (!magic_order(lnw_get32(in, false), LNW_MAGIC_PROTO, flip))
		return LNW_F_MAGIC;
	h->version = lnw_get32(in + 4, *flip);
	h->src_nid = lnw_get64(in + 8, *flip);
	h->dst_nid = lnw_get64(in + 16, *flip);
	f = hello_body_unpack(in + 24, *flip, h);
	return h->version != LNW_SOCK_V3 ? LNW_F_VERSION : f;
}

void lnw_hello16_pack(const struct lnw_hello *h, const struct lne_nid *src,
		      const struct lne_nid *dst, u8 out[LNW_HELLO16_SIZE])
{
	lnw_put32(out, LNW_MAGIC_PROTO);
	lnw_put32(out + 4, LNW_SOCK_V4);
	lnw_nid_pack(src, out + 8);
	lnw_nid_pack(dst, out + 8 + LNW_NID_SIZE);
	hello_body_pack(h, out + 8 + 2 * LNW_NID_SIZE);
}

enum lnw_fault lnw_hello16_unpack(const u8 in[LNW_HELLO16_SIZE], struct lnw_hello *h,
				  struct lne_nid *src, struct lne_nid *dst, bool *flip)
{
	enum lnw_fault f;

	memset(h, 0, sizeof(*h));
	if (!magic_order(lnw_get32(in, false), LNW_MAGIC_PROTO, flip))
		return LNW_F_MAGIC;
	h->version = lnw_get32(in + 4, *flip);
	if (h->version != LNW_SOCK_V4)
		return LNW_F_VERSION;
	f = lnw_nid_unpack(in + 8, src);
	if (!f)
		f = lnw_nid_unpack(in + 8 + LNW_NID_SIZE, dst);
	return f ? f : hello_body_unpack(in + 8 + 2 * LNW_NID_SIZE, *flip, h);
}

/* The version after a magic: *@f is LNW_F_MAGIC when the magic is not @magic. */
static u32 version_after(const u8 in[8], u32 magic, enum lnw_fault *f)
{
	bool flip;

	if (!magic_order(lnw_get32(in, false), magic, &flip)) {
		*f = LNW_F_MAGIC;
		return 0;
	}
	*f = LNW_F_VERSION;
	return lnw_get32(in + 4, flip);
}

u32 lnw_connreq_size(const u8 in[8], enum lnw_fault *f)
{
	switch (version_after(in, LNW_MAGIC_ACCEPTOR, f)) {
	case LNW_ACCEPTOR_VERSION:
		return LNW_CONNREQ_SIZE;
	case LNW_ACCEPTOR_VERSION_16:
		return LNW_CONNREQ16_SIZE;
	default:
		return 0;
	}
}

u32 lnw_hello_size(const u8 in[8], enum lnw_fault *f)
{
	switch (version_after(in, LNW_MAGIC_PROTO, f)) {
	case LNW_SOCK_V3:
		return LNW_HELLO_SIZE;
	case LNW_SOCK_V4:
		return LNW_HELLO16_SIZE;
	default:
		return 0;
	}
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
 * The LNet header (_lnet_hdr_nid4): destination NID 0, source NID 8, then
 * what both headers have after their NIDs, here at 16: destination pid 0,
 * source pid 4, type 8, payload length 12, then the variant at 16 (32 in
 * the whole header): a wire handle (two cookies, 16 bytes) and
 *   ACK:   match bits 48, matched length 56
 *   PUT:   match bits 48, header data 56, portal 64, offset 68
 *   GET:   match bits 48, portal 56, source offset 60, sink length 64
 *   REPLY: nothing more.
 */
static void hdr_body_pack(const struct lnw_hdr *h, u8 *p)
{
	u8 *v = p + 16;

	lnw_put32(p, h->dst_pid);
	lnw_put32(p + 4, h->src_pid);
	lnw_put32(p + 8, h->type);
	lnw_put32(p + 12, h->payload);
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

static enum lnw_fault hdr_body_unpack(const u8 *p, bool flip, struct lnw_hdr *h)
{
	const u8 *v = p + 16;

	h->dst_pid = lnw_get32(p, flip);
	h->src_pid = lnw_get32(p + 4, flip);
	h->type = lnw_get32(p + 8, flip);
	h->payload = lnw_get32(p + 12, flip);
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

void lnw_hdr_pack(const struct lnw_hdr *h, u8 out[LNW_HDR_SIZE])
{
	memset(out, 0, LNW_HDR_SIZE);
	lnw_put64(out, h->dst_nid);
	lnw_put64(out + 8, h->src_nid);
	hdr_body_pack(h, out + 16);
}

enum lnw_fault lnw_hdr_unpack(const u8 in[LNW_HDR_SIZE], bool flip, struct lnw_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->dst_nid = lnw_get64(in, flip);
	h->src_nid = lnw_get64(in + 8, flip);
	return hdr_body_unpack(in + 16, flip, h);
}

/*
 * The nid16 header (struct lnet_hdr): destination NID 0, source NID 20,
 * then from 40 what follows the NIDs in the 8-byte header, variant at 56.
 */
void lnw_hdr16_pack(const struct lnw_hdr *h, const struct lne_nid *dst, const struct lne_nid *src,
		    u8 out[LNW_HDR16_SIZE])
{
	memset(out, 0, LNW_HDR16_SIZE);
	lnw_nid_pack(dst, out);
	lnw_nid_pack(src, out + LNW_NID_SIZE);
	hdr_body_pack(h, out + 2 * LNW_NID_SIZE);
}

enum lnw_fault lnw_hdr16_unpack(const u8 in[LNW_HDR16_SIZE], bool flip, struct lnw_hdr *h,
				struct lne_nid *dst, struct lne_nid *src)
{
	enum lnw_fault f;

	memset(h, 0, sizeof(*h));
	f = lnw_nid_unpack(in, dst);
	if (!f)
		f = lnw_nid_unpack(in + LNW_NID_SIZE, src);
	return f ? f : hdr_body_unpack(in + 2 * LNW_NID_SIZE, flip, h);
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

/*
 * An entry of ping info's large part: status 0, struct lnet_nid 4, its
 * bytes as many as the NID has (8 + its size byte), rounded up to 4; an
 * 8-byte NID there takes a whole 8-byte entry's room (16), as upstream
 * steps.
 */
static u32 ping_large_step(u8 nid_size)
{
	return nid_size ? (4u + 8u + nid_size + 3u) & ~3u : LNW_PING_ENT_SIZE;
}

int lnw_ping16_pack(const struct lnw_ping *p, const struct lnw_ping_ent *e,
		    const struct lnw_ping_large *l, u32 nl, u8 *out, u32 cap)
{
	struct lnw_ping q = *p;
	u8 nid[LNW_NID_SIZE];
	u32 size, i, step;
	int rc;

	if (p->n > LNW_PING_NIS_MAX || nl > LNW_PING_NIS_MAX || !p->n)
		return -ENOSPC;
	size = LNW_PING_SIZE(p->n);
	for (i = 0; i < nl; i++)
		size += ping_large_step((u8)(l[i].nid.alen - 4));
	if (cap < size)
		return -ENOSPC;
	if (nl)
		q.features |= LNW_PING_FEAT_LARGE_ADDR;
	rc = lnw_ping_pack(&q, e, out, cap);
	if (rc < 0 || !nl)
		return rc;
	lnw_put32(out + LNW_PING_HDR_SIZE + 12, size);
	for (i = 0, size = LNW_PING_SIZE(p->n); i < nl; i++, size += step) {
		step = ping_large_step((u8)(l[i].nid.alen - 4));
		lnw_put32(out + size, l[i].status);
		lnw_nid_pack(&l[i].nid, nid);
		memcpy(out + size + 4, nid, step - 4);
	}
	return (int)size;
}

enum lnw_fault lnw_ping_unpack_all(const u8 *in, u32 len, struct lnw_ping *p,
				   struct lnw_ping_large *out, u32 cap, u32 *count)
{
	enum lnw_fault f = lnw_ping_unpack(in, len, p, NULL, 0);
	bool flip = false;
	u32 i, nl;

	*count = 0;
	if (f)
		return f;
	magic_order(lnw_get32(in, false), LNW_MAGIC_PING, &flip);
	for (i = 0; i < p->n && *count < cap; i++, (*count)++) {
		const u8 *s = in + LNW_PING_SIZE(i);

		lnw_nid_from4(lnw_get64(s, flip), &out[*count].nid);
		out[*count].status = lnw_get32(s + 8, flip);
	}
	f = lnw_ping16_unpack(in, len, out + *count, cap - *count, &nl);
	if (!f)
		*count += nl < cap - *count ? nl : cap - *count;
	return f;
}

int lnw_ping_add_large(u8 *info, u32 off, const struct lnw_ping_large *l, u32 cap)
{
	u32 step = ping_large_step((u8)(l->nid.alen - 4));
	u8 nid[LNW_NID_SIZE];

	if (off + step > cap || off < LNW_PING_SIZE(1))
		return -ENOSPC;
	lnw_put32(info + 4, lnw_get32(info + 4, false) | LNW_PING_FEAT_LARGE_ADDR);
	lnw_put32(info + off, l->status);
	lnw_nid_pack(&l->nid, nid);
	memcpy(info + off + 4, nid, step - 4);
	lnw_put32(info + LNW_PING_HDR_SIZE + 12, off + step);
	return (int)(off + step);
}

enum lnw_fault lnw_ping16_unpack(const u8 *in, u32 len, struct lnw_ping_large *l, u32 cap, u32 *nl)
{
	struct lnw_ping p;
	enum lnw_fault f;
	u32 off, end, step;
	bool flip = false;

	*nl = 0;
	f = lnw_ping_unpack(in, len, &p, NULL, 0);
	if (f || !(p.features & LNW_PING_FEAT_LARGE_ADDR))
		return f;
	magic_order(lnw_get32(in, false), LNW_MAGIC_PING, &flip);
	if (!p.n)
		return LNW_F_FIELD; /* no first entry to say the size */
	off = LNW_PING_SIZE(p.n);
	end = lnw_get32(in + LNW_PING_HDR_SIZE + 12, flip) & ~3u;
	if (end < off)
		return LNW_F_FIELD;
	if (end > len)
		end = len; /* cut short by the asker's buffer */
	for (; off + 4 + 8 <= end; off += step) {
		u8 nid[LNW_NID_SIZE] = {0};
		struct lnw_ping_large one;

		step = ping_large_step(in[off + 4]);
		if (off + step > end)
			break;
		if (*nl >= LNW_PING_NIS_MAX)
			return LNW_F_FIELD;
		memcpy(nid, in + off + 4, step - 4 < LNW_NID_SIZE ? step - 4 : LNW_NID_SIZE);
		f = lnw_nid_unpack(nid, &one.nid);
		if (f)
			return f;
		one.status = lnw_get32(in + off, flip);
		if (*nl < cap)
			l[*nl] = one;
		(*nl)++;
	}
	return LNW_OK;
}
