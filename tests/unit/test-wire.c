// SPDX-License-Identifier: GPL-2.0
/*
 * test-wire.c - LNet's wire formats (engine/wire.h) against the layouts in
 * upstream's lnet-idl.h and socklnd-idl.h, and the socklnd connection state
 * machine (engine/conn.h) fed whole and byte by byte, including bytes a
 * hostile peer would send.
 */
#include "engine/conn.h"
#include "engine/wire.h"
#include "unit.h"

static u64 nid4(const char *s)
{
	struct lne_nid nid;
	u64 v;

	ck_assert(!lne_nid_parse(s, &nid, NULL));
	ck_assert(!lnw_nid4(&nid, &v));
	return v;
}

START_TEST(nid4_layout)
{
	struct lne_nid back;
	char buf[LNE_NID_STR_MAX];

	/* net (tcp = 2, number 1) in the high half, the IPv4 address below */
	ck_assert_uint_eq(nid4("10.0.0.1@tcp1"), 0x000200010a000001ull);
	ck_assert_uint_eq(nid4("0@lo"), 0x0009000000000000ull);
	ck_assert_uint_eq(nid4("7@gni"), 0x000d000000000007ull);
	lnw_nid_from4(0x000200010a000001ull, &back);
	lne_nid_format(&back, buf, sizeof(buf));
	ck_assert_str_eq(buf, "10.0.0.1@tcp1");
	{
		struct lne_nid v6;
		u64 v;

		ck_assert(!lne_nid_parse("2001:db8::1@tcp", &v6, NULL));
		ck_assert_int_eq(lnw_nid4(&v6, &v), -EAFNOSUPPORT);
	}
}
END_TEST

static bool hello_eq(const struct lnw_hello *a, const struct lnw_hello *b)
{
	return a->version == b->version && a->src_nid == b->src_nid && a->dst_nid == b->dst_nid &&
	       a->src_pid == b->src_pid && a->dst_pid == b->dst_pid && a->src_inc == b->src_inc &&
	       a->dst_inc == b->dst_inc && a->ctype == b->ctype && a->nips == b->nips;
}

START_TEST(hello_layout)
{
	struct lnw_hello h = {.version = 3,
			      .src_nid = 0x0002000001020304ull,
			      .dst_nid = 0x0002000005060708ull,
			      .src_pid = 12345,
			      .dst_pid = 12345,
			      .src_inc = 0x1122334455667788ull,
			      .ctype = LNW_CONN_BULK_IN};
	struct lnw_hello back;
	u8 b[LNW_HELLO_SIZE];
	bool flip = true;

	lnw_hello_pack(&h, b);
	/* magic "Eric" little-endian, then version, NIDs, pids, incarnations, type */
	ck_assert_int_eq(b[0], 0x63);
	ck_assert_int_eq(b[3], 0x45);
	ck_assert_int_eq(b[4], 3);
	ck_assert_int_eq(b[8], 0x04);
	ck_assert_int_eq(b[14], 0x02);
	ck_assert_int_eq(b[24], 0x39); /* 12345 = 0x3039 */
	ck_assert_int_eq(b[32], 0x88);
	ck_assert_int_eq(b[48], LNW_CONN_BULK_IN);
	ck_assert_int_eq(lnw_hello_unpack(b, &back, &flip), LNW_OK);
	ck_assert(!flip);
	ck_assert(hello_eq(&back, &h));

	/* a big-endian peer's hello reads the same */
	{
		u8 s[LNW_HELLO_SIZE];
		int i;

		for (i = 0; i < 8; i += 4) { /* magic, version */
			s[i] = b[i + 3], s[i + 1] = b[i + 2], s[i + 2] = b[i + 1], s[i + 3] = b[i];
		}
		for (i = 8; i < 24; i += 8) /* NIDs */
			for (int k = 0; k < 8; k++)
				s[i + k] = b[i + 7 - k];
		for (i = 24; i < 32; i += 4)
			for (int k = 0; k < 4; k++)
				s[i + k] = b[i + 3 - k];
		for (i = 32; i < 48; i += 8)
			for (int k = 0; k < 8; k++)
				s[i + k] = b[i + 7 - k];
		for (i = 48; i < 56; i += 4)
			for (int k = 0; k < 4; k++)
				s[i + k] = b[i + 3 - k];
		ck_assert_int_eq(lnw_hello_unpack(s, &back, &flip), LNW_OK);
		ck_assert(flip);
		ck_assert(hello_eq(&back, &h));
	}
}
END_TEST

START_TEST(hello_hostile)
{
	struct lnw_hello h = {.version = 3, .ctype = 1}, back;
	u8 b[LNW_HELLO_SIZE];
	bool flip;

	lnw_hello_pack(&h, b);
	b[0] ^= 1;
	ck_assert_int_eq(lnw_hello_unpack(b, &back, &flip), LNW_F_MAGIC);
	b[0] ^= 1;
	lnw_put32(b + 4, 2);
	ck_assert_int_eq(lnw_hello_unpack(b, &back, &flip), LNW_F_VERSION);
	lnw_put32(b + 4, 3);
	lnw_put32(b + 48, 7);
	ck_assert_int_eq(lnw_hello_unpack(b, &back, &flip), LNW_F_CTYPE);
	lnw_put32(b + 48, 1);
	lnw_put32(b + 52, 17);
	ck_assert_int_eq(lnw_hello_unpack(b, &back, &flip), LNW_F_FIELD);
}
END_TEST

START_TEST(hdr_layout)
{
	struct lnw_hdr h = {.dst_nid = 1,
			    .src_nid = 2,
			    .dst_pid = 3,
			    .src_pid = 4,
			    .type = LNW_GET,
			    .wh_iface = 5,
			    .wh_object = 6,
			    .match = LNW_PING_MATCHBITS,
			    .portal = 0,
			    .offset = 0,
			    .length = 4096};
	struct lnw_hdr back;
	u8 b[LNW_HDR_SIZE];
	int t;

	lnw_hdr_pack(&h, b);
	ck_assert_int_eq(b[24], LNW_GET);
	ck_assert_int_eq(b[32], 5);	   /* return wire handle */
	ck_assert_int_eq(b[55], 0x80);	   /* match bits' top byte */
	ck_assert_int_eq(b[64 + 1], 0x10); /* sink length 4096 */
	ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_OK);
	ck_assert(!memcmp(&back, &h, sizeof(h)));

	for (t = LNW_ACK; t <= LNW_REPLY; t++) {
		struct lnw_hdr x = {.type = (u32)t,
				    .wh_object = 9,
				    .match = 77,
				    .hdr_data = 88,
				    .portal = 12,
				    .offset = 3,
				    .length = 5};

		if (t == LNW_PUT || t == LNW_REPLY)
			x.payload = 100;
		if (t == LNW_REPLY)
			x.match = x.hdr_data = x.portal = x.offset = x.length = 0;
		if (t == LNW_ACK)
			x.hdr_data = x.portal = x.offset = 0;
		if (t == LNW_PUT)
			x.length = 0;
		if (t == LNW_GET)
			x.hdr_data = 0, x.offset = 3;
		lnw_hdr_pack(&x, b);
		ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_OK);
		ck_assert_msg(!memcmp(&back, &x, sizeof(x)), "type %d", t);
	}
}
END_TEST

START_TEST(hdr_hostile)
{
	struct lnw_hdr h = {.type = LNW_PUT, .payload = LNW_MTU + 1}, back;
	u8 b[LNW_HDR_SIZE];

	lnw_hdr_pack(&h, b);
	ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_F_LENGTH);
	h.payload = 1;
	h.portal = LNW_PORTALS;
	lnw_hdr_pack(&h, b);
	ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_F_FIELD);
	h.portal = 0;
	h.type = LNW_GET; /* a GET carries nothing */
	lnw_hdr_pack(&h, b);
	ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_F_LENGTH);
	h.type = LNW_HELLO;
	lnw_hdr_pack(&h, b);
	ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_F_MSGTYPE);
	lnw_put32(b + 24, 0xdead);
	ck_assert_int_eq(lnw_hdr_unpack(b, false, &back), LNW_F_MSGTYPE);
}
END_TEST

START_TEST(ping_info)
{
	struct lnw_ping_ent e[3] = {{0x0009000000000000ull, 7},
				    {0x000200000a000001ull, LNW_NI_STATUS_UP},
				    {0x000200000a000101ull, LNW_NI_STATUS_DOWN}};
	struct lnw_ping p = {
		.features = LNW_PING_FEAT_BASE | LNW_PING_FEAT_NI_STATUS, .pid = 12345, .n = 3};
	struct lnw_ping_ent got[4];
	struct lnw_ping q;
	u8 b[128];

	ck_assert_int_eq(lnw_ping_pack(&p, e, b, sizeof(b)), 16 + 3 * 16);
	ck_assert_int_eq(lnw_ping_pack(&p, e, b, 40), -ENOSPC);
	ck_assert_int_eq(b[0], 0x67); /* "ping" */
	ck_assert_int_eq(lnw_ping_unpack(b, 64, &q, got, 4), LNW_OK);
	ck_assert_uint_eq(q.n, 3);
	ck_assert_uint_eq(got[2].nid, e[2].nid);
	ck_assert_uint_eq(got[2].status, LNW_NI_STATUS_DOWN);
	/* cut short by the asker's buffer: only whole entries */
	ck_assert_int_eq(lnw_ping_unpack(b, 16 + 16 + 10, &q, got, 4), LNW_OK);
	ck_assert_uint_eq(q.n, 1);
	/* hostile: a count beyond any real node, a bad magic, too short */
	lnw_put32(b + 12, 100000);
	ck_assert_int_eq(lnw_ping_unpack(b, 64, &q, got, 4), LNW_F_FIELD);
	ck_assert_int_eq(lnw_ping_unpack(b, 15, &q, got, 4), LNW_F_LENGTH);
	b[0] = 0;
	ck_assert_int_eq(lnw_ping_unpack(b, 64, &q, got, 4), LNW_F_MAGIC);
}
END_TEST

/*
 * The large-NID forms.  Sizes and offsets from upstream's packed structs:
 * struct lnet_nid is 1 + 1 + 2 + 4 * 4 = 20 bytes; the acceptor's request
 * version 2 is 4 + 4 + 20 = 28; ksock_hello_msg is 4 + 4 + 20 + 20 + 4 + 4
 * + 8 + 8 + 4 + 4 = 80; struct lnet_hdr is 20 + 20 + 4 * 4 and its largest
 * variant (lnet_put: 16 + 8 + 8 + 4 + 4 = 40) = 96, variant at 56;
 * lnet_ni_large_status is 4 + 20 = 24.
 */
static struct lne_nid nid16(const char *s)
{
	struct lne_nid nid;

	ck_assert(!lne_nid_parse(s, &nid, NULL));
	return nid;
}

START_TEST(nid16_layout)
{
	static const u8 v6[LNW_NID_SIZE] = {12, 2, 0, 3, 0x20, 0x01, 0x0d, 0xb8, 0, 0,
					    0,	0, 0, 0, 0,    0,    0,	   0,	 0, 0x01};
	static const u8 v4[LNW_NID_SIZE] = {0, 2, 0, 1, 10, 0, 0, 1};
	struct lne_nid a = nid16("2001:db8::1@tcp3"), back;
	u8 b[LNW_NID_SIZE];

	ck_assert_uint_eq(LNW_NID_SIZE, 20);
	ck_assert_uint_eq(LNW_CONNREQ16_SIZE, 28);
	ck_assert_uint_eq(LNW_HELLO16_SIZE, 80);
	ck_assert_uint_eq(LNW_HDR16_SIZE, 96);
	ck_assert_uint_eq(LNW_PING_LARGE_SIZE, 24);
	lnw_nid_pack(&a, b);
	ck_assert(!memcmp(b, v6, sizeof(b)));
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_OK);
	ck_assert(lne_nid_equal(&back, &a));
	ck_assert(!lnw_nid_is4(&a));
	a = nid16("10.0.0.1@tcp1");
	ck_assert(lnw_nid_is4(&a));
	lnw_nid_pack(&a, b);
	ck_assert(!memcmp(b, v4, sizeof(b)));
	b[10] = 0x55; /* beyond an IPv4 NID's address: not read */
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_OK);
	ck_assert(lne_nid_equal(&back, &a));
	ck_assert_int_eq(back.addr[6], 0);

	/* hostile: sizes we do not hold, 16 bytes where addresses are not IP */
	memcpy(b, v6, sizeof(b));
	b[0] = 4;
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_F_FIELD);
	b[0] = 255;
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_F_FIELD);
	b[0] = 12;
	b[1] = LNE_LND_GNI;
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_F_FIELD);
	b[1] = 200;
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_F_FIELD);
	b[1] = LNE_LND_O2IB;
	ck_assert_int_eq(lnw_nid_unpack(b, &back), LNW_OK);
}
END_TEST

START_TEST(connreq16_layout)
{
	struct lne_nid a = nid16("fe80::1:2@tcp"), back;
	u8 b[LNW_CONNREQ16_SIZE], s[LNW_CONNREQ16_SIZE];
	enum lnw_fault f;
	struct lnw_connreq cr;
	bool flip = true;
	int i;

	lnw_connreq16_pack(&a, b);
	ck_assert_uint_eq(lnw_get32(b, false), LNW_MAGIC_ACCEPTOR);
	ck_assert_uint_eq(lnw_get32(b + 4, false), 2);
	ck_assert_int_eq(b[8], 12);
	ck_assert_int_eq(b[9], LNE_LND_TCP);
	ck_assert_int_eq(b[12], 0xfe);
	ck_assert_int_eq(b[27], 2);
	ck_assert_int_eq(lnw_connreq16_unpack(b, &back, &flip), LNW_OK);
	ck_assert(!flip);
	ck_assert(lne_nid_equal(&back, &a));
	ck_assert_uint_eq(lnw_connreq_size(b, &f), LNW_CONNREQ16_SIZE);
	/* the version 1 parser still refuses it, as before */
	ck_assert_int_eq(lnw_connreq_unpack(b, &cr, &flip), LNW_F_VERSION);

	/* a big-endian caller: magic and version swap, the NID does not */
	memcpy(s, b, sizeof(s));
	for (i = 0; i < 8; i += 4)
		s[i] = b[i + 3], s[i + 1] = b[i + 2], s[i + 2] = b[i + 1], s[i + 3] = b[i];
	ck_assert_uint_eq(lnw_connreq_size(s, &f), LNW_CONNREQ16_SIZE);
	ck_assert_int_eq(lnw_connreq16_unpack(s, &back, &flip), LNW_OK);
	ck_assert(flip);
	ck_assert(lne_nid_equal(&back, &a));

	/* version 1 has its own size; others and bad magic have none */
	lnw_connreq_pack(0x000200000a000001ull, s);
	ck_assert_uint_eq(lnw_connreq_size(s, &f), LNW_CONNREQ_SIZE);
	ck_assert_int_eq(lnw_connreq16_unpack(b, &back, &flip), LNW_OK);
	memcpy(s + 16, b + 16, 12);
	ck_assert_int_eq(lnw_connreq16_unpack(s, &back, &flip), LNW_F_VERSION);
	lnw_put32(b + 4, 3);
	ck_assert_uint_eq(lnw_connreq_size(b, &f), 0);
	ck_assert_int_eq(f, LNW_F_VERSION);
	ck_assert_int_eq(lnw_connreq16_unpack(b, &back, &flip), LNW_F_VERSION);
	lnw_put32(b + 4, 2);
	b[8] = 3;
	ck_assert_int_eq(lnw_connreq16_unpack(b, &back, &flip), LNW_F_FIELD);
	lnw_put32(b, LNW_MAGIC_PROTO);
	ck_assert_uint_eq(lnw_connreq_size(b, &f), 0);
	ck_assert_int_eq(f, LNW_F_MAGIC);
	ck_assert_int_eq(lnw_connreq16_unpack(b, &back, &flip), LNW_F_MAGIC);
}
END_TEST

static void swap_words(u8 *dst, const u8 *src, int from, int to, int w)
{
	int i, k;

	for (i = from; i < to; i += w)
		for (k = 0; k < w; k++)
			dst[i + k] = src[i + w - 1 - k];
}

START_TEST(hello16_layout)
{
	struct lnw_hello h = {.version = 3, /* written as 4 whatever it says */
			      .src_pid = 12345,
			      .dst_pid = LNW_PID_LUSTRE | LNW_PID_USERFLAG,
			      .src_inc = 0x1122334455667788ull,
			      .dst_inc = 0x99,
			      .ctype = LNW_CONN_BULK_OUT};
	struct lne_nid src = nid16("2001:db8::1@tcp"), dst = nid16("2001:db8::2@tcp"), gs, gd;
	struct lnw_hello back;
	u8 b[LNW_HELLO16_SIZE], s[LNW_HELLO16_SIZE];
	enum lnw_fault f;
	bool flip = true;

	lnw_hello16_pack(&h, &src, &dst, b);
	ck_assert_uint_eq(lnw_get32(b, false), LNW_MAGIC_PROTO);
	ck_assert_uint_eq(lnw_get32(b + 4, false), 4);
	ck_assert_int_eq(b[8], 12); /* source NID */
	ck_assert_int_eq(b[27], 1);
	ck_assert_int_eq(b[28], 12); /* destination NID */
	ck_assert_int_eq(b[47], 2);
	ck_assert_uint_eq(lnw_get32(b + 48, false), 12345);
	ck_assert_uint_eq(lnw_get32(b + 52, false), h.dst_pid);
	ck_assert_uint_eq(lnw_get64(b + 56, false), h.src_inc);
	ck_assert_uint_eq(lnw_get64(b + 64, false), 0x99);
	ck_assert_uint_eq(lnw_get32(b + 72, false), LNW_CONN_BULK_OUT);
	ck_assert_uint_eq(lnw_get32(b + 76, false), 0);
	ck_assert_uint_eq(lnw_hello_size(b, &f), LNW_HELLO16_SIZE);
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_OK);
	ck_assert(!flip);
	h.version = 4;
	ck_assert(hello_eq(&back, &h));
	ck_assert(lne_nid_equal(&gs, &src) && lne_nid_equal(&gd, &dst));
	/* the version 3 parser refuses it, as before */
	ck_assert_int_eq(lnw_hello_unpack(b, &back, &flip), LNW_F_VERSION);

	/* a big-endian peer: every number swaps, the NIDs do not */
	memcpy(s, b, sizeof(s));
	swap_words(s, b, 0, 8, 4);
	swap_words(s, b, 48, 56, 4);
	swap_words(s, b, 56, 72, 8);
	swap_words(s, b, 72, 80, 4);
	ck_assert_uint_eq(lnw_hello_size(s, &f), LNW_HELLO16_SIZE);
	ck_assert_int_eq(lnw_hello16_unpack(s, &back, &gs, &gd, &flip), LNW_OK);
	ck_assert(flip);
	ck_assert(hello_eq(&back, &h));
	ck_assert(lne_nid_equal(&gs, &src) && lne_nid_equal(&gd, &dst));

	/* version 3's size, and none for others */
	lnw_put32(s, LNW_MAGIC_PROTO);
	lnw_put32(s + 4, 3);
	ck_assert_uint_eq(lnw_hello_size(s, &f), LNW_HELLO_SIZE);
	lnw_put32(s + 4, 5);
	ck_assert_uint_eq(lnw_hello_size(s, &f), 0);
	ck_assert_int_eq(f, LNW_F_VERSION);
	lnw_put32(s, LNW_MAGIC_ACCEPTOR);
	ck_assert_uint_eq(lnw_hello_size(s, &f), 0);
	ck_assert_int_eq(f, LNW_F_MAGIC);
}
END_TEST

START_TEST(hello16_hostile)
{
	struct lnw_hello h = {.ctype = LNW_CONN_CONTROL}, back;
	struct lne_nid src = nid16("2001:db8::1@tcp"), dst = nid16("10.1.1.1@tcp"), gs, gd;
	u8 b[LNW_HELLO16_SIZE];
	bool flip;

	lnw_hello16_pack(&h, &src, &dst, b);
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_OK);
	ck_assert(lne_nid_equal(&gd, &dst)); /* an IPv4 NID travels in full form too */
	b[1] ^= 1;
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_F_MAGIC);
	b[1] ^= 1;
	lnw_put32(b + 4, 3);
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_F_VERSION);
	lnw_put32(b + 4, 4);
	b[8] = 8; /* a source NID of a size we do not hold */
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_F_FIELD);
	b[8] = 12;
	b[29] = LNE_LND_LO; /* 16 bytes on the loopback LND */
	b[28] = 12;
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_F_FIELD);
	b[28] = 0;
	b[29] = LNE_LND_TCP;
	lnw_put32(b + 72, 4);
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_F_CTYPE);
	lnw_put32(b + 72, (u32)-1); /* a lost connection race */
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_OK);
	lnw_put32(b + 76, 1); /* version 4 sends no addresses */
	ck_assert_int_eq(lnw_hello16_unpack(b, &back, &gs, &gd, &flip), LNW_F_FIELD);
}
END_TEST

START_TEST(hdr16_layout)
{
	struct lne_nid dst = nid16("2001:db8::2@tcp"), src = nid16("2001:db8::1@tcp"), gd, gs;
	struct lnw_hdr back;
	u8 b[LNW_HDR16_SIZE], b4[LNW_HDR_SIZE];
	int t;

	for (t = LNW_ACK; t <= LNW_REPLY; t++) {
		struct lnw_hdr x = {.dst_pid = 12345,
				    .src_pid = 7,
				    .type = (u32)t,
				    .wh_iface = 5,
				    .wh_object = 9,
				    .match = LNW_PING_MATCHBITS};

		if (t == LNW_PUT)
			x.payload = 100, x.hdr_data = 88, x.portal = 12, x.offset = 3;
		if (t == LNW_GET)
			x.portal = 4, x.offset = 3, x.length = 4096;
		if (t == LNW_ACK)
			x.length = 100;
		if (t == LNW_REPLY)
			x.payload = 100, x.match = 0;
		lnw_hdr16_pack(&x, &dst, &src, b);
		ck_assert_int_eq(b[0], 12);
		ck_assert_int_eq(b[20], 12); /* source NID */
		ck_assert_int_eq(b[39], 1);
		ck_assert_uint_eq(lnw_get32(b + 40, false), 12345);
		ck_assert_uint_eq(lnw_get32(b + 48, false), (u32)t);
		ck_assert_uint_eq(lnw_get64(b + 56, false), 5);
		/* after the NIDs, byte for byte what version 3 carries */
		lnw_hdr_pack(&x, b4);
		ck_assert(!memcmp(b + 40, b4 + 16, LNW_HDR_SIZE - 16));
		ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_OK);
		ck_assert_msg(!memcmp(&back, &x, sizeof(x)), "type %d", t);
		ck_assert(lne_nid_equal(&gd, &dst) && lne_nid_equal(&gs, &src));
	}
	/* GET's portal, source offset and sink length at 80, 84, 88 */
	ck_assert_uint_eq(lnw_get32(b + 88, false), 0); /* b is the REPLY */
	{
		struct lnw_hdr g = {.type = LNW_GET, .portal = 4, .length = 4096};

		lnw_hdr16_pack(&g, &dst, &src, b);
		ck_assert_uint_eq(lnw_get32(b + 80, false), 4);
		ck_assert_uint_eq(lnw_get32(b + 88, false), 4096);
	}
}
END_TEST

START_TEST(hdr16_hostile)
{
	struct lne_nid dst = nid16("2001:db8::2@tcp"), src = nid16("2001:db8::1@tcp"), gd, gs;
	struct lnw_hdr h = {.type = LNW_PUT, .payload = LNW_MTU + 1}, back;
	u8 b[LNW_HDR16_SIZE];

	lnw_hdr16_pack(&h, &dst, &src, b);
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_F_LENGTH);
	h.payload = 1;
	h.portal = LNW_PORTALS;
	lnw_hdr16_pack(&h, &dst, &src, b);
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_F_FIELD);
	h.portal = 0;
	h.type = LNW_GET;
	lnw_hdr16_pack(&h, &dst, &src, b);
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_F_LENGTH);
	h.type = LNW_HELLO;
	lnw_hdr16_pack(&h, &dst, &src, b);
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_F_MSGTYPE);
	h.type = LNW_ACK;
	h.payload = 0;
	lnw_hdr16_pack(&h, &dst, &src, b);
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_OK);
	b[20] = 1; /* the source NID's size */
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_F_FIELD);
	b[20] = 12;
	b[0] = 200;
	ck_assert_int_eq(lnw_hdr16_unpack(b, false, &back, &gd, &gs), LNW_F_FIELD);
}
END_TEST

START_TEST(ping16_info)
{
	struct lnw_ping_ent e[2] = {{0x0009000000000000ull, 7},
				    {0x000200000a000001ull, LNW_NI_STATUS_UP}};
	struct lnw_ping_large l[2] = {{nid16("2001:db8::1@tcp"), LNW_NI_STATUS_UP},
				      {nid16("2001:db8::5@tcp2"), LNW_NI_STATUS_DOWN}};
	struct lnw_ping p = {.features = LNW_PING_FEAT_BASE | LNW_PING_FEAT_NI_STATUS |
					 LNW_PING_FEAT_MULTI_RAIL,
			     .pid = 12345,
			     .n = 2};
	struct lnw_ping_large got[2];
	struct lnw_ping q;
	u8 b[160], b3[160];
	u32 nl;

	/* no large NIDs: the same bytes as before */
	ck_assert_int_eq(lnw_ping16_pack(&p, e, l, 0, b, sizeof(b)), 48);
	ck_assert_int_eq(lnw_ping_pack(&p, e, b3, sizeof(b3)), 48);
	ck_assert(!memcmp(b, b3, 48));
	ck_assert_int_eq(lnw_ping16_unpack(b, 48, got, 2, &nl), LNW_OK);
	ck_assert_uint_eq(nl, 0);

	ck_assert_int_eq(lnw_ping16_pack(&p, e, l, 2, b, 95), -ENOSPC);
	ck_assert_int_eq(lnw_ping16_pack(&p, e, l, 2, b, sizeof(b)), 16 + 2 * 16 + 2 * 24);
	ck_assert_uint_eq(lnw_get32(b + 4, false), p.features | LNW_PING_FEAT_LARGE_ADDR);
	ck_assert_uint_eq(lnw_get32(b + 12, false), 2);	 /* 8-byte entries only */
	ck_assert_uint_eq(lnw_get32(b + 28, false), 96); /* 0@lo's size field: the whole */
	ck_assert_uint_eq(lnw_get32(b + 48, false), LNW_NI_STATUS_UP);
	ck_assert_int_eq(b[52], 12);
	ck_assert_int_eq(b[53], LNE_LND_TCP);
	ck_assert_uint_eq(lnw_get32(b + 72, false), LNW_NI_STATUS_DOWN);
	ck_assert_int_eq(b[79], 2); /* tcp2 */
	/* the 8-byte reader sees the 8-byte entries */
	ck_assert_int_eq(lnw_ping_unpack(b, 96, &q, NULL, 0), LNW_OK);
	ck_assert_uint_eq(q.n, 2);
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 2, &nl), LNW_OK);
	ck_assert_uint_eq(nl, 2);
	ck_assert(lne_nid_equal(&got[1].nid, &l[1].nid));
	ck_assert_uint_eq(got[1].status, LNW_NI_STATUS_DOWN);
	/* fewer room than entries: counted, not written */
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 1, &nl), LNW_OK);
	ck_assert_uint_eq(nl, 2);
	/* cut short by the asker's buffer: whole entries only */
	ck_assert_int_eq(lnw_ping16_unpack(b, 95, got, 2, &nl), LNW_OK);
	ck_assert_uint_eq(nl, 1);

	/* an 8-byte NID in the large part takes an 8-byte entry's room */
	memcpy(b3, b, 72);
	memset(b3 + 72, 0, 16);
	b3[72] = 1, b3[77] = LNE_LND_TCP, b3[80] = 10, b3[83] = 9;
	lnw_put32(b3 + 28, 88);
	ck_assert_int_eq(lnw_ping16_unpack(b3, 88, got, 2, &nl), LNW_OK);
	ck_assert_uint_eq(nl, 2);
	ck_assert(lne_nid_equal(&got[1].nid, &(struct lne_nid){.lnd = LNE_LND_TCP,
							       .alen = 4,
							       .addr = {10, 0, 0, 9}}));
	{ /* and packs back to the same bytes */
		struct lnw_ping_large m[2] = {l[0], got[1]};
		u8 c[160];

		ck_assert_int_eq(lnw_ping16_pack(&p, e, m, 2, c, sizeof(c)), 88);
		ck_assert(!memcmp(c, b3, 88));
	}

	/* hostile: a size short of the 8-byte entries, a NID we cannot hold */
	lnw_put32(b + 28, 40);
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 2, &nl), LNW_F_FIELD);
	lnw_put32(b + 28, 96);
	b[76] = 5;
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 2, &nl), LNW_F_FIELD);
	b[76] = 12;
	b[77] = LNE_LND_GNI;
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 2, &nl), LNW_F_FIELD);
	/* the large feature with no first entry to carry the size */
	lnw_put32(b + 12, 0);
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 2, &nl), LNW_F_FIELD);
	b[0] = 0;
	ck_assert_int_eq(lnw_ping16_unpack(b, 96, got, 2, &nl), LNW_F_MAGIC);
	/* counts we refuse to pack */
	p.n = 0;
	ck_assert_int_eq(lnw_ping16_pack(&p, e, l, 1, b, sizeof(b)), -ENOSPC);
	p.n = 2;
	ck_assert_int_eq(lnw_ping16_pack(&p, e, l, LNW_PING_NIS_MAX + 1, b, sizeof(b)), -ENOSPC);
}
END_TEST

static void frame_free(void *ctx, struct lne_frame *f)
{
	(void)ctx;
	free(f);
}

/* Two connections back to back, bytes moved @chunk at a time. */
static void shuttle(struct lne_conn *from, struct lne_conn *to, size_t chunk,
		    struct lne_conn_ev *evs, int *nev)
{
	struct lne_iov iov[4];
	int k;

	while ((k = lne_conn_tx_iov(from, iov, 4)) > 0) {
		size_t n = iov[0].len < chunk ? iov[0].len : chunk, off = 0;
		const u8 *p = iov[0].base;

		while (off < n) {
			struct lne_conn_ev ev;
			size_t used = lne_conn_input(to, p + off, n - off, &ev);

			off += used;
			if (ev.type != LNC_EV_NONE)
				evs[(*nev)++] = ev;
			if (ev.type == LNC_EV_FAULT)
				return;
		}
		lne_conn_tx_sent(from, n, frame_free, NULL);
	}
}

static void no_free(void *ctx, struct lne_frame *f)
{
	(void)ctx;
	(void)f;
}

START_TEST(conn_handshake_and_messages)
{
	size_t chunks[] = {1, 7, 4096};
	size_t c;

	for (c = 0; c < LNE_ARRAY_SIZE(chunks); c++) {
		struct lnw_hello h = {.version = 3,
				      .src_nid = 0x000200000a000001ull,
				      .dst_nid = 0x000200000a000002ull,
				      .src_pid = 12345,
				      .src_inc = 42,
				      .ctype = LNW_CONN_BULK_OUT};
		struct lne_conn a, b;
		struct lne_frame *hs_a = calloc(1, sizeof(*hs_a)), *hs_b = calloc(1, sizeof(*hs_b)),
				 *f;
		struct lne_conn_ev ev[8];
		struct lnw_hdr put = {.type = LNW_PUT,
				      .payload = 3000,
				      .portal = 9,
				      .match = 5,
				      .wh_object = LNW_WH_NONE};
		u8 *payload = malloc(3000);
		int nev = 0, i;

		for (i = 0; i < 3000; i++)
			payload[i] = (u8)i;
		lne_conn_init_active(&a, &h, hs_a, NULL);
		lne_conn_init_passive(&b, NULL);
		shuttle(&a, &b, chunks[c], ev, &nev);
		ck_assert_int_eq(nev, 2);
		ck_assert_int_eq(ev[0].type, LNC_EV_CONNREQ);
		ck_assert_uint_eq(ev[0].nid, h.dst_nid);
		ck_assert_int_eq(ev[1].type, LNC_EV_HELLO);
		ck_assert_uint_eq(b.peer_nid, h.src_nid);
		ck_assert_uint_eq(b.ctype, LNW_CONN_BULK_IN);

		h.src_nid = 0x000200000a000002ull;
		h.dst_nid = 0x000200000a000001ull;
		lne_conn_reply_hello(&b, &h, hs_b);
		nev = 0;
		shuttle(&b, &a, chunks[c], ev, &nev);
		ck_assert_int_eq(nev, 1);
		ck_assert_int_eq(ev[0].type, LNC_EV_HELLO);

		f = calloc(1, sizeof(*f));
		lne_frame_lnet(f, &put, payload, 0);
		lne_conn_queue(&a, f);
		nev = 0;
		shuttle(&a, &b, chunks[c], ev, &nev);
		ck_assert_int_eq(nev, 1);
		ck_assert_int_eq(ev[0].type, LNC_EV_MSG);
		ck_assert_uint_eq(ev[0].hdr.payload, 3000);
		ck_assert(!memcmp(ev[0].payload, payload, 3000));
		free(ev[0].payload);
		free(payload);
		lne_conn_tx_flush(&a, no_free, NULL);
	}
}
END_TEST

/*
 * As shuttle(), but as the shells read: while a payload comes in, its bytes
 * go straight where lne_conn_rx_room() says and are handed over there; where
 * each payload began goes in @bases.
 */
static void shuttle_in_place(struct lne_conn *from, struct lne_conn *to, size_t chunk,
			     struct lne_conn_ev *evs, int *nev, u8 **bases, int *nbase)
{
	struct lne_iov iov[4];

	while (lne_conn_tx_iov(from, iov, 4) > 0) {
		size_t n = iov[0].len < chunk ? iov[0].len : chunk, off = 0;
		const u8 *p = iov[0].base;

		while (off < n) {
			struct lne_conn_ev ev;
			u8 *at = NULL;
			size_t room = lne_conn_rx_room(to, &at), used;

			if (room) {
				size_t m = room < n - off ? room : n - off;

				if (!to->payload_have)
					bases[(*nbase)++] = at;
				memcpy(at, p + off, m);
				used = lne_conn_input(to, at, m, &ev);
				ck_assert_uint_eq(used, m);
			} else {
				used = lne_conn_input(to, p + off, n - off, &ev);
			}
			off += used;
			if (ev.type != LNC_EV_NONE)
				evs[(*nev)++] = ev;
			ck_assert_int_ne(ev.type, LNC_EV_FAULT);
		}
		lne_conn_tx_sent(from, n, frame_free, NULL);
	}
}

/* 1 MiB payloads read in place arrive whole, in the buffer they were read into. */
START_TEST(conn_payload_in_place)
{
	size_t chunks[] = {7, 4096, 65536 + 3, 1 << 21};
	const u32 len = 1 << 20;
	size_t c;

	for (c = 0; c < LNE_ARRAY_SIZE(chunks); c++) {
		struct lnw_hello h = {.version = 3,
				      .src_nid = 0x000200000a000001ull,
				      .dst_nid = 0x000200000a000002ull,
				      .src_pid = 12345,
				      .src_inc = 42,
				      .ctype = LNW_CONN_BULK_OUT};
		struct lne_conn a, b;
		struct lne_frame *hs_a = calloc(1, sizeof(*hs_a)), *hs_b = calloc(1, sizeof(*hs_b));
		struct lne_conn_ev ev[8];
		struct lnw_hdr put = {.type = LNW_PUT,
				      .payload = len,
				      .portal = 9,
				      .match = 5,
				      .wh_object = LNW_WH_NONE};
		u8 *payload = malloc(len), *bases[4], *at;
		u32 i;
		int nev = 0, nbase = 0, m;

		ck_assert_ptr_nonnull(payload);
		for (i = 0; i < len; i++)
			payload[i] = (u8)(i * 7 + (i >> 12));
		lne_conn_init_active(&a, &h, hs_a, NULL);
		lne_conn_init_passive(&b, NULL);
		shuttle(&a, &b, 4096, ev, &nev);
		h.src_nid = 0x000200000a000002ull;
		h.dst_nid = 0x000200000a000001ull;
		lne_conn_reply_hello(&b, &h, hs_b);
		nev = 0;
		shuttle(&b, &a, 4096, ev, &nev);
		ck_assert_int_eq(nev, 1);
		ck_assert_uint_eq(lne_conn_rx_room(&b, &at), 0); /* no payload under way */

		/* two messages back to back: the second's header follows the first's payload */
		for (m = 0; m < 2; m++) {
			struct lne_frame *f = calloc(1, sizeof(*f));

			lne_frame_lnet(f, &put, payload, 0);
			lne_conn_queue(&a, f);
		}
		nev = 0;
		shuttle_in_place(&a, &b, chunks[c], ev, &nev, bases, &nbase);
		ck_assert_int_eq(nev, 2);
		ck_assert_int_eq(nbase, 2);
		for (m = 0; m < 2; m++) {
			ck_assert_int_eq(ev[m].type, LNC_EV_MSG);
			ck_assert_uint_eq(ev[m].hdr.payload, len);
			ck_assert_ptr_eq(ev[m].payload,
					 bases[m]); /* where it was read: not copied */
			ck_assert(!memcmp(ev[m].payload, payload, len));
			free(ev[m].payload);
		}
		ck_assert_uint_eq(lne_conn_rx_room(&b, &at), 0);
		free(payload);
		lne_conn_tx_flush(&a, no_free, NULL);
	}
}
END_TEST

/* Hostile bytes after a good handshake end the connection with a named fault. */
static enum lnw_fault after_handshake(const u8 *bytes, size_t len)
{
	struct lne_conn b;
	struct lne_conn_ev ev;
	u8 pre[LNW_CONNREQ_SIZE + LNW_HELLO_SIZE];
	struct lnw_hello h = {.version = 3, .src_nid = 1, .dst_nid = 2, .ctype = 1};
	size_t off = 0;

	lnw_connreq_pack(2, pre);
	lnw_hello_pack(&h, pre + LNW_CONNREQ_SIZE);
	lne_conn_init_passive(&b, NULL);
	while (off < sizeof(pre))
		off += lne_conn_input(&b, pre + off, sizeof(pre) - off, &ev);
	ck_assert_int_eq(b.state, LNC_KSM);
	off = 0;
	while (off < len && b.state != LNC_DEAD) {
		off += lne_conn_input(&b, bytes + off, len - off, &ev);
		if (ev.type == LNC_EV_MSG)
			free(ev.payload);
	}
	return b.state == LNC_DEAD ? b.fault : LNW_OK;
}

START_TEST(conn_hostile)
{
	u8 m[LNW_FRAME_HDR];
	struct lnw_ksm k = {.type = LNW_KSM_LNET};
	struct lnw_hdr h = {.type = LNW_PUT, .payload = LNW_MTU + 1};
	struct lne_conn c;
	struct lne_conn_ev ev;
	u8 junk[16] = {1, 2, 3, 4};

	lnw_ksm_pack(&k, m);
	lnw_hdr_pack(&h, m + LNW_KSM_SIZE);
	ck_assert_int_eq(after_handshake(m, sizeof(m)), LNW_F_LENGTH);
	k.type = 0x77;
	lnw_ksm_pack(&k, m);
	ck_assert_int_eq(after_handshake(m, LNW_KSM_SIZE), LNW_F_MSGTYPE);
	k.type = LNW_KSM_NOOP;
	k.zc[1] = 12345; /* an acknowledgement for nothing we asked */
	lnw_ksm_pack(&k, m);
	ck_assert_int_eq(after_handshake(m, LNW_KSM_SIZE), LNW_F_COOKIE);
	k.zc[1] = LNW_KEEPALIVE_COOKIE; /* a keepalive is fine */
	lnw_ksm_pack(&k, m);
	ck_assert_int_eq(after_handshake(m, LNW_KSM_SIZE), LNW_OK);

	/* not the acceptor's magic at all */
	lne_conn_init_passive(&c, NULL);
	lne_conn_input(&c, junk, sizeof(junk), &ev);
	ck_assert_int_eq(ev.type, LNC_EV_FAULT);
	ck_assert_int_eq(c.fault, LNW_F_MAGIC);
	/* and it stays dead */
	ck_assert_uint_eq(lne_conn_input(&c, junk, sizeof(junk), &ev), 0);
	ck_assert_int_eq(ev.type, LNC_EV_FAULT);
}
END_TEST

Suite *make_wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, nid4_layout);
	tcase_add_test(tc, hello_layout);
	tcase_add_test(tc, hello_hostile);
	tcase_add_test(tc, hdr_layout);
	tcase_add_test(tc, hdr_hostile);
	tcase_add_test(tc, ping_info);
	tcase_add_test(tc, nid16_layout);
	tcase_add_test(tc, connreq16_layout);
	tcase_add_test(tc, hello16_layout);
	tcase_add_test(tc, hello16_hostile);
	tcase_add_test(tc, hdr16_layout);
	tcase_add_test(tc, hdr16_hostile);
	tcase_add_test(tc, ping16_info);
	tcase_add_test(tc, conn_handshake_and_messages);
	tcase_add_test(tc, conn_payload_in_place);
	tcase_add_test(tc, conn_hostile);
	suite_add_tcase(s, tc);
	return s;
}
