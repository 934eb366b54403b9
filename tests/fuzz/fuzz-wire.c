// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the data path's parser: bytes from a peer, as a
 * node (engine/node.h) reads them on a connection it accepted.
 *
 * Byte 0 steers: bit 0 prefixes a well-formed acceptor request and hello
 * (so the fuzz reaches the message states), bits 1-3 pick the chunk size
 * the rest arrives in.  Whatever the bytes: no crash, leak or undefined
 * behaviour; a connection the node refuses is refused with a counted fault
 * and nothing queued for the wire but what a well-formed peer could cause;
 * and afterwards a well-behaved peer on a new connection still gets its
 * ping answered (a hostile peer disturbs nobody else).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/node.h"

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

static uint64_t faults(const struct lne_node *n)
{
	uint64_t s = 0;
	int f;

	for (f = 0; f < LNW_F__COUNT; f++)
		s += n->st.faults[f];
	return s;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pre[LNW_CONNREQ_SIZE + LNW_HELLO_SIZE];
	struct lne_inst *ln = lne_inst_new();
	struct lne_ni_conf c = {.dev_cpt = LNE_CPT_ANY};
	struct lne_node n;
	struct lne_link *l;
	size_t chunk, off = 0;
	uint64_t before;
	int rc = 0;

	if (!ln || !size)
		goto out;
	lnw_nid_from4(NID_A, &c.nid);
	if (lne_ni_add(ln, &c, NULL))
		abort();
	lne_node_init(&n, ln, &ops, NULL, 1);
	n.test_service = data[0] & 16;
	chunk = (size_t)1 << ((data[0] >> 1) & 7);

	l = f_new(NULL);
	lne_node_accepted(&n, l);
	if (data[0] & 1 && lne_node_input(&n, l, pre, handshake(pre)))
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
		/* our hello, then the REPLY */
		if (!g2->conn.txq || !g2->conn.txq->next || g2->conn.txq->next->plen < 32)
			abort();
		drain(&n, g2);
	}
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
