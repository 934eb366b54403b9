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
		lne_conn_init_active(&a, &h, hs_a);
		lne_conn_init_passive(&b);
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
	lne_conn_init_passive(&b);
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
	lne_conn_init_passive(&c);
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
	tcase_add_test(tc, conn_handshake_and_messages);
	tcase_add_test(tc, conn_hostile);
	suite_add_tcase(s, tc);
	return s;
}
