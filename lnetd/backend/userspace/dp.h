/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dp.h - the userspace engine's data path: the I/O shell around the
 * engine's LNet node (engine/node.h), on lnetd's event loop.
 *
 * With --engine=userspace lnetd is an LNet node itself: it listens on the
 * LNet port (988 unless --lnet-port says otherwise) of every IPv4 address
 * a TCP NI has, connects to peers from a reserved port of the local NI's
 * address (as upstream's acceptor requires), and moves bytes between
 * non-blocking sockets and the node.  Everything the node decides is the
 * engine's; this file only reads, writes, accepts, connects and keeps time.
 */
#ifndef LNETD_DP_H
#define LNETD_DP_H

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "engine/node-test.h"
#include "liblnetk/lnetk-client.h"

struct lnetd;
struct lnetd_dp;

int lnetd_dp_start(struct lnetd *d, uint16_t port, struct lnetd_dp **out);
void lnetd_dp_stop(struct lnetd_dp *dp);
/* The mirror changed or was replaced: listen where the NIs are now. */
void lnetd_dp_sync(struct lnetd_dp *dp);
/* The node, its clock brought up to now (NULL without a data path). */
struct lne_node *lnetd_dp_node(struct lnetd_dp *dp);
/* After starting messages on the node: run the clock for their deadlines. */
void lnetd_dp_kick(struct lnetd_dp *dp);
struct lnetd *lnetd_dp_daemon(struct lnetd_dp *dp);
/*
 * dp-svc.c: give the test service lnetd's TBF policy for "lnet_test" (or
 * none), or with @detach take it away before the policy is freed.
 */
void lnetd_dp_policies(struct lnetd_dp *dp, bool detach);

/*
 * Run the traffic generator (@params: checked with lne_test_check) for the
 * D-Bus call @m, answered when the last message ends; every @interval_ms
 * (0: never) the bytes each rail carried so far go into the reply's trace.
 */
int lnetd_dp_selftest(struct lnetd_dp *dp, sd_bus_message *m, const struct lne_test *params,
		      uint32_t interval_ms);
/* Answer the D-Bus Selftest @call with what @t did (both engines). */
int lnetd_selftest_reply(sd_bus_message *call, const struct lne_test *t, uint64_t elapsed_ns);

/* Answer the D-Bus Ping @call with what the pinged node said (both engines). */
int lnetd_ping_reply(sd_bus_message *call, const struct lnetk_ping *p);

/* A ping for a D-Bus call: @m is answered when it ends (the reply is an a{sv}). */
int lnetd_dp_ping(struct lnetd_dp *dp, sd_bus_message *m, const struct lne_nid *dst,
		  const struct lne_nid *src, uint32_t timeout_ms, sd_bus_error *e);

/* dp-disc.c: discovery.  Discover @nid for a D-Bus call, answered as Ping is. */
int lnetd_dp_discover(struct lnetd_dp *dp, sd_bus_message *m, const struct lne_nid *nid, bool force,
		      sd_bus_error *e);
/* The node's log lines (ops->log). */
void lnetd_dp_log(void *ctx, const char *line);
/* Discovery learnt a peer: the PeerDiscovered signal (node ops->discovered). */
void lnetd_dp_discovered(void *ctx, const struct lne_peer *peer);
/* The mirror's NIs now: if they changed since the last call, push to the peers. */
void lnetd_dp_nis_check(struct lnetd_dp *dp);

#endif /* LNETD_DP_H */
