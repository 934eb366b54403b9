/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simnet.h - simulated links for the data path's unit tests: an I/O shell
 * for engine/node.h whose sockets are byte queues in memory, pumped in
 * chunks of a chosen size, with a virtual clock.
 */
#ifndef LNETD_SIMNET_H
#define LNETD_SIMNET_H

#include "engine/node.h"

#define SIM_NODES_MAX 1100 /* discovery's DS2: 1,000 peers at once */

struct simnet;

struct simnode {
	struct lne_node node;
	struct lne_inst *ln;
	struct simnet *net;
	bool mute;   /* accepts connections, never reads from them */
	bool paused; /* reads nothing for now: what is sent to it waits, as in a full socket */
	u64 recv_puts;
	u32 logs;	  /* lines the node logged (ops->log) */
	bool busy;	  /* the instance may not change now (ops->model_write says no) */
	u64 inc;	  /* its incarnation */
	char states[256]; /* what ops->state told: "NID state;" each, cut short when full */
	char routes[256]; /* what ops->route told: "net gateway up|down;" each */
	u32 discovered;	  /* peers ops->discovered told of */
	s32 cpt;	  /* the CPT it runs on (ops->cpt; LNE_CPT_ANY at first) */
};

struct simlink {
	struct lne_link l; /* first: the node's part */
	struct simlink *other, *next;
	struct simnode *owner;
	bool closed;
};

struct simnet {
	struct simnode *nodes[SIM_NODES_MAX];
	int n;
	struct simlink *links;
	u64 now_ms;
	size_t chunk; /* bytes moved per step (1 exercises every partial read) */
	u64 cut[16];  /* nid4s whose links are cut (simnet_cut) */
	int ncut;
};

void simnet_init(struct simnet *s, size_t chunk);
void simnet_fini(struct simnet *s);
/* A node with one NI per NID in the NULL-ended list; discovery off. */
struct simnode *simnet_node(struct simnet *s, const char *const *nids);
/*
 * The usual start: simnet_init(@s, @chunk), then node *@a with the NIDs of
 * @an and node *@b with those of @bn; with @discovery, discovery on in both.
 */
void simnet_pair(struct simnet *s, size_t chunk, const char *const *an, const char *const *bn,
		 bool discovery, struct simnode **a, struct simnode **b);
/* Move bytes until nothing moves; returns how many moved. */
size_t simnet_pump(struct simnet *s);
/* Advance the clock (every node's tick). */
void simnet_advance(struct simnet *s, u64 ms);
/* @sn restarts: its connections reset, a new incarnation, the same NIs. */
void simnet_restart(struct simnet *s, struct simnode *sn);
/* Connect a raw link to @to's NI @nid and write @bytes into it; returns the node's verdict. */
int simnet_inject(struct simnet *s, struct simnode *to, const void *bytes, size_t len);

/* The acceptor's version 2 request for @to and a version 4 hello from @from, into @buf: its size. */
size_t simnet_hello16(u8 *buf, const struct lne_nid *to, const struct lne_nid *from);
/* A NID from text (the test fails if it is none). */
struct lne_nid simnet_nid(const char *s);
/* A ping from @from to @to over the simulated links, pumped to its end: its status. */
int simnet_ping(struct simnet *s, struct simnode *from, const char *to);
/* On @n, a Multi-Rail peer of the NULL-ended @nids, the first its primary. */
void simnet_peer(struct simnode *n, const char *const *nids);
/* Cut the wire of @nid (or mend it): its open links reset, new ones are refused. */
void simnet_cut(struct simnet *s, const char *nid, bool cut);

#endif
