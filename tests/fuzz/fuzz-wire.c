// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the data path's parser: bytes from a peer, as a
 * node (engine/node.h) reads them on a connection it accepted.
 *
 * Byte 0 steers: bit 0 prefixes a well-formed acceptor request and hello
 * (so the fuzz reaches the message states; with bit 6, the large-NID
 * handshake, version 2 and 4, to the node's IPv6 NI, so the rest meets the
 * nid16 header), bits 1-3 pick the chunk size
 * the rest arrives in.  With bit 5 set the rest goes instead to the
 * parsers of the large-NID forms (NID, acceptor request version 2, hello
 * version 4, nid16 header, ping info's large part), each of which must
 * either refuse it or read it so that packing what it read and reading
 * that again gives the same.  Whatever the bytes: no crash, leak or undefined
 * behaviour; a connection the node refuses is refused with a counted fault
 * and nothing queued for the wire but what a well-formed peer could cause;
 * and afterwards a well-behaved peer on a new connection still gets its
 * ping answered (a hostile peer disturbs nobody else).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/node.h"

/*
 * The key table holds: every NID interned finds its own key and reads back
 * from it, and the large keys of every link are live (links hold them).
 * The counters are bounded: the node counts its entries right, has made no
 * more than LNE_STAT_STRANGERS since the sweep of strangers' ones, and
 * the sweep left no mark behind.
 */
static void keys_check(const struct lne_node *n)
{
	const struct lne_stat *st;
	const struct lne_link *l;
	struct lne_nid x;
	u32 s, b, count = 0;
	u64 k;

	for (b = 0; b < LNE_STAT_HASH; b++)
		for (st = n->stats[b]; st; st = st->hnext, count++)
			if (st->linked)
				abort();
	if (count != n->nstats || count > n->stats_kept + LNE_STAT_STRANGERS)
		abort();

	for (s = 0; s < n->keys.n; s++) {
		if (lne_nidkey_find(&n->keys, &n->keys.nid[s], &k) || !lne_nidkey_live(&n->keys, k))
			abort();
		lne_nidkey_nid(&n->keys, k, &x);
		if (!lne_nid_equal(&x, &n->keys.nid[s]))
			abort();
	}
	for (b = 0; b < LNE_LINK_HASH; b++)
		for (l = n->links[b]; l; l = l->hnext)
			if ((lne_nidkey_is_large(l->local) &&
			     !lne_nidkey_live(&n->keys, l->local)) ||
			    (lne_nidkey_is_large(l->peer) && !lne_nidkey_live(&n->keys, l->peer)))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NID_A 0x000200000a000001ull /* 10.0.0.1@tcp: the node's */
#define NID_P 0x000200000a000002ull /* 10.0.0.2@tcp: the peer's */

struct flink {
	struct lne_link l;
	struct flink *next;
};

static struct flink *links;

static struct lne_link *f_new(void *ctx)
{
	struct flink *k = calloc(1, sizeof(*k));

	(void)ctx;
	if (!k)
		abort();
	k->next = links;
	links = k;
	return &k->l;
}

static bool f_connect(void *ctx, struct lne_link *l)
{
	(void)ctx;
	(void)l;
	return false; /* the node never connects out here */
}

static void f_nop(void *ctx, struct lne_link *l)
{
	(void)ctx;
	(void)l;
}

static const struct lne_node_ops ops = {
	.link_new = f_new,
	.connect = f_connect,
	.wake = f_nop,
	.close = f_nop,
};

/*
 * The faults that end a connection.  A reply or ACK for nothing we sent
 * (LNW_F_UNMATCHED) is counted and dropped, the connection goes on, so a
 * stream may count any number of those before the fault that ends it.
 */
static uint64_t faults(const struct lne_node *n)
{
	uint64_t s = 0;
	int f;

	for (f = 0; f < LNW_F__COUNT; f++)
		if (f != LNW_F_UNMATCHED)
			s += n->st.faults[f];
	return s;
}

static const char *const NID6_A = "2001:db8::1@tcp", *const NID6_P = "2001:db8::2@tcp";

/* The version 2 request and version 4 hello from NID6_P to NID6_A. */
static size_t handshake16(uint8_t *b)
{
	struct lnw_hello h = {.src_pid = LNW_PID_LUSTRE, .src_inc = 7, .ctype = LNW_CONN_CONTROL};
	struct lne_nid a, p;

	if (lne_nid_parse(NID6_A, &a, NULL) || lne_nid_parse(NID6_P, &p, NULL))
		abort();
	lnw_connreq16_pack(&a, b);
	lnw_hello16_pack(&h, &p, &a, b + LNW_CONNREQ16_SIZE);
	return LNW_CONNREQ16_SIZE + LNW_HELLO16_SIZE;
}

static size_t handshake(uint8_t *b)
{
	struct lnw_hello h = {.version = LNW_SOCK_V3,
			      .src_nid = NID_P,
			      .dst_nid = NID_A,
			      .src_pid = LNW_PID_LUSTRE,
			      .src_inc = 7,
			      .ctype = LNW_CONN_CONTROL};

	lnw_connreq_pack(NID_A, b);
	lnw_hello_pack(&h, b + LNW_CONNREQ_SIZE);
	return LNW_CONNREQ_SIZE + LNW_HELLO_SIZE;
}

static void drain(struct lne_node *n, struct lne_link *l)
{
	struct lne_iov iov[16];
	size_t total = 0;
	int i, k;

	while ((k = lne_conn_tx_iov(&l->conn, iov, 16)) > 0) {
		for (i = 0, total = 0; i < k; i++)
			total += iov[i].len;
		lne_node_sent(n, l, total);
	}
}

static bool has_reply(const struct lne_frame *f)
{
	for (; f; f = f->next)
		if (f->plen >= 32)
			return true;
	return false;
}

static void same_bytes(const u8 *a, const u8 *b, size_t n)
{
	if (memcmp(a, b, n))
		abort();
}

/* Each parser of the large forms on @in (zero-padded to its size). */
static void large_forms(const uint8_t *data, size_t size)
{
	u8 in[LNW_HDR16_SIZE] = {0}, p1[LNW_HDR16_SIZE], p2[LNW_HDR16_SIZE];
	struct lnw_ping_large l[4], l2[4];
	struct lne_nid a, b, a2, b2;
	struct lnw_hello h, h2;
	struct lnw_hdr x, x2;
	enum lnw_fault f;
	u32 nl, nl2, k;
	bool flip;
	int n;

	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	k = lnw_connreq_size(in, &f);
	if (k != 0 && k != LNW_CONNREQ_SIZE && k != LNW_CONNREQ16_SIZE)
		abort();
	k = lnw_hello_size(in, &f);
	if (k != 0 && k != LNW_HELLO_SIZE && k != LNW_HELLO16_SIZE)
		abort();
	if (!lnw_nid_unpack(in, &a)) {
		lnw_nid_pack(&a, p1);
		if (lnw_nid_unpack(p1, &a2) || !lne_nid_equal(&a, &a2))
			abort();
	}
	if (!lnw_connreq16_unpack(in, &a, &flip)) {
		lnw_connreq16_pack(&a, p1);
		if (lnw_connreq16_unpack(p1, &a2, &flip) || flip || !lne_nid_equal(&a, &a2))
			abort();
	}
	if (!lnw_hello16_unpack(in, &h, &a, &b, &flip)) {
		lnw_hello16_pack(&h, &a, &b, p1);
		if (lnw_hello16_unpack(p1, &h2, &a2, &b2, &flip))
			abort();
		lnw_hello16_pack(&h2, &a2, &b2, p2);
		same_bytes(p1, p2, LNW_HELLO16_SIZE);
	}
	if (!lnw_hdr16_unpack(in, in[40] & 1, &x, &a, &b)) {
		lnw_hdr16_pack(&x, &a, &b, p1);
		if (lnw_hdr16_unpack(p1, false, &x2, &a2, &b2))
			abort();
		lnw_hdr16_pack(&x2, &a2, &b2, p2);
		same_bytes(p1, p2, LNW_HDR16_SIZE);
	}
	/* ping info as long as it came */
	if (!lnw_ping16_unpack(data, (u32)size, l, 4, &nl) && nl && nl <= 4) {
		struct lnw_ping p;
		struct lnw_ping_ent e = {0};
		u8 *buf = malloc(LNW_PING_SIZE(1) + 4 * LNW_PING_LARGE_SIZE);

		if (!buf || lnw_ping_unpack(data, (u32)size, &p, &e, 1))
			abort();
		p.n = 1;
		n = lnw_ping16_pack(&p, &e, l, nl, buf, LNW_PING_SIZE(1) + 4 * LNW_PING_LARGE_SIZE);
		if (n < 0 || lnw_ping16_unpack(buf, (u32)n, l2, 4, &nl2) || nl2 != nl)
			abort();
		for (k = 0; k < nl; k++)
			if (!lne_nid_equal(&l[k].nid, &l2[k].nid) || l[k].status != l2[k].status)
				abort();
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pre[LNW_CONNREQ16_SIZE + LNW_HELLO16_SIZE];
	struct lne_inst *ln = lne_inst_new();
	struct lne_ni_conf c = {.dev_cpt = LNE_CPT_ANY};
	struct lne_node n;
	struct lne_link *l;
	size_t chunk, off = 0;
	uint64_t before;
	int rc = 0;

	if (!ln || !size)
		goto out;
	if (data[0] & 32) {
		large_forms(data + 1, size - 1);
		goto out;
	}
	lnw_nid_from4(NID_A, &c.nid);
	if (lne_ni_add(ln, &c, NULL))
		abort();
	if (lne_nid_parse(NID6_A, &c.nid, NULL) || lne_ni_add(ln, &c, NULL))
		abort();
	lne_node_init(&n, ln, &ops, NULL, 1);
	n.test_service = data[0] & 16;
	chunk = (size_t)1 << ((data[0] >> 1) & 7);

	l = f_new(NULL);
	lne_node_accepted(&n, l);
	if (data[0] & 1 &&
	    lne_node_input(&n, l, pre, data[0] & 64 ? handshake16(pre) : handshake(pre)))
		abort(); /* a well-formed start is taken */
	before = faults(&n);
	for (off = 1; off < size && rc >= 0; off += chunk) {
		size_t k = size - off < chunk ? size - off : chunk;

		rc = lne_node_input(&n, l, data + off, k);
		drain(&n, l);
	}
	if (rc < 0) {
		/* refused: counted, and the connection is over */
		if (faults(&n) != before + 1 || l->conn.state != LNC_DEAD)
			abort();
		lne_node_closed(&n, l, rc);
	}
	keys_check(&n);

	/* a well-behaved peer on a new connection: its ping is answered */
	{
		uint8_t b[LNW_CONNREQ_SIZE + LNW_HELLO_SIZE + LNW_FRAME_HDR];
		struct lnw_ksm k = {.type = LNW_KSM_LNET};
		struct lnw_hdr g = {.dst_nid = NID_A,
				    .src_nid = NID_P,
				    .dst_pid = LNW_PID_LUSTRE,
				    .src_pid = LNW_PID_LUSTRE,
				    .type = LNW_GET,
				    .wh_iface = 1,
				    .wh_object = 2,
				    .match = LNW_PING_MATCHBITS,
				    .length = 4096};
		struct lne_link *g2 = f_new(NULL);
		size_t len = handshake(b);

		lnw_ksm_pack(&k, b + len);
		lnw_hdr_pack(&g, b + len + LNW_KSM_SIZE);
		lne_node_accepted(&n, g2);
		if (lne_node_input(&n, g2, b, sizeof(b)))
			abort();
		/*
		 * our hello, then the REPLY: on the new connection, or on the
		 * first while that is still up (both are the peer's)
		 */
		if (!g2->conn.txq ||
		    !(has_reply(g2->conn.txq->next) || (rc >= 0 && has_reply(l->conn.txq))))
			abort();
		drain(&n, g2);
	}
	keys_check(&n);
	lne_node_fini(&n);
out:
	while (links) {
		struct flink *k = links;

		links = k->next;
		free(k);
	}
	lne_inst_free(ln);
	return 0;
}
