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

#include "engine/node-test.h"
#include "lnetd/backend/backend.h"

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
 * Run the traffic generator for @c (c->test: its parameters, checked with
 * lne_test_check), done when the last message ends; every c->interval_ms
 * (0: never) the bytes each rail carried so far go into its trace.  As
 * every call (backend.h): 0, and c->done later (perhaps before this
 * returns), or a negative errno.
 */
int lnetd_dp_selftest(struct lnetd_dp *dp, struct bk_call *c);

/* A ping for a call: c->dst, from c->src if c->has_src, within c->timeout_ms. */
int lnetd_dp_ping(struct lnetd_dp *dp, struct bk_call *c);

/* dp-disc.c: discovery.  Discover c->dst for a call: its answer the peer, as a ping's. */
int lnetd_dp_discover(struct lnetd_dp *dp, struct bk_call *c);
/* The node's log lines (ops->log). */
void lnetd_dp_log(void *ctx, const char *line);
/* Discovery learnt a peer: the PeerDiscovered signal (node ops->discovered). */
void lnetd_dp_discovered(void *ctx, const struct lne_peer *peer);
/* The mirror's NIs now: if they changed since the last call, push to the peers. */
void lnetd_dp_nis_check(struct lnetd_dp *dp);

/*
 * dp-route.c: the index of the interface the kernel routes packets from
 * @src to @dst by (0: no route, or it could not say).
 */
struct sockaddr_storage;
int lnetd_dp_route_oif(const struct sockaddr_storage *dst, const struct sockaddr_storage *src);

#endif /* LNETD_DP_H */
