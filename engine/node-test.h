/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-test.h - the traffic generator, in the spirit of lnet_selftest's
 * bulk read/write test, without I/O: a stream of PUTs to (write), GETs from
 * (read) or pings of a peer's node, a window of them in flight, with the
 * bytes each local NI (rail) carried.  Both shells run it: lnetd's for the
 * Selftest call, the module's for LNETK_CMD_SELFTEST.  The peer serves the
 * test portal only when told (node.h: LNE_PORTAL_TEST).
 *
 * The shell fills the parameters, calls lne_test_start() with the node in
 * hand, and is told through @done once every message has ended (from
 * inside a node call, or from lne_test_start() itself when none could
 * start).  It keeps the time: lne_test_sample() takes a trace row when it
 * wants one.
 */
#ifndef LNE_NODE_TEST_H
#define LNE_NODE_TEST_H

#include "node.h"

enum lne_test_mode {
	LNE_TEST_WRITE,
	LNE_TEST_READ,
	LNE_TEST_PING,
};

/* Bounds, checked by lne_test_check() before any work. */
#define LNE_TEST_COUNT_MAX	 10000000
#define LNE_TEST_CONCURRENCY_MAX 256
#define LNE_TEST_TIMEOUT_MS	 64000 /* each message's, by default (lnet_selftest's rpc_timeout) */
#define LNE_TEST_TIMEOUT_MAX_MS	 300000 /* and at most */
#define LNE_TEST_RAILS_MAX	 64
#define LNE_TEST_BODY_MAX	 4096 /* writes up to this size carry a request body */

struct lne_test_rail {
	struct lne_nid nid;
	u64 sent0, received0; /* the rail's byte counts at the start */
	u64 sent, received;   /* once done: what the test added to them */
};

struct lne_test {
	/* the shell's */
	struct lne_nid dst;
	enum lne_test_mode mode;
	u32 size, count, conc;
	bool ack;	/* write: ask for an ACK (done when it comes) */
	u32 timeout_ms; /* each message's answer is waited for this long; 0: LNE_TEST_TIMEOUT_MS */
	void (*done)(struct lne_test *t);
	void *arg;
	u64 *trace; /* NULL, or room for max_samples rows of 1 + nrails u64s */
	u32 max_samples;
	/* the generator's */
	struct lne_node *node;
	u32 started, finished, failed, inflight;
	int first_err;
	bool busy, over;
	struct lne_test_rail rails[LNE_TEST_RAILS_MAX];
	u32 nrails, nsamples;
};

/* Whether the parameters are within bounds: 0, or -EINVAL with @err saying which. */
int lne_test_check(const struct lne_test *t, struct lne_err *err);
/* Start @t on @n: the node's NIs are the rails; @done may run before it returns. */
void lne_test_start(struct lne_test *t, struct lne_node *n);
/* A trace row at @t_ns (the shell's clock, from its start): each rail's bytes so far. */
void lne_test_sample(struct lne_test *t, u64 t_ns);
/* The payload bytes that went, for the messages that did not fail. */
u64 lne_test_bytes(const struct lne_test *t);

#endif /* LNE_NODE_TEST_H */
