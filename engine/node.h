/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node.h - an LNet node without I/O: messages in and out over socklnd
 * connections (conn.h), chosen by selection (select.h) and paid for with
 * credits, the reserved portal's ping answered, statistics kept.
 *
 * The shell gives the node its instance (the model the NIs, peers and
 * rules live in), an incarnation and callbacks; it owns sockets and time:
 *
 *   ops->link_new + ops->connect   the node wants a connection: the shell
 *                                  allocates a link (the node's part first)
 *                                  and connects from the local NI's address
 *                                  (a reserved port) to the peer's, port 988;
 *   lne_node_accepted()            a socket the shell accepted;
 *   lne_node_input()               bytes that arrived on a link;
 *   lne_conn_tx_iov()/lne_node_sent()  what to write, and what went;
 *   ops->wake                      a link has something to write;
 *   lne_node_closed()              the socket is gone (EOF, error, fault);
 *   lne_node_tick()                time passed: waits that are over fail.
 *
 * The node keeps NIDs, not pointers, to the instance's objects: lnetd may
 * replace its instance (a refused change), so credits are taken and given
 * back through a lookup in the instance the message was selected in.
 */
#ifndef LNE_NODE_H
#define LNE_NODE_H

#include "conn.h"
#include "model.h"
#include "nidkey.h"
#include "wire.h"

#define LNE_LINK_HASH	    256
#define LNE_STAT_HASH	    1024
#define LNE_PING_TIMEOUT_MS 50000 /* upstream's default */
/*
 * The traffic generator's test service (lnetd's, not Lustre's: Lustre's
 * portals end below it): a PUT to it is taken and ACKed when asked, a GET
 * is answered with as many zero bytes as it asks for.  Off unless the node
 * is told (test_service), since a small GET buys a large reply.
 */
#define LNE_PORTAL_TEST	    60

#define LNE_SVC_MAX   16 /* services bound to portals (node-svc.h) */
#define LNE_KEYS_GONE 64 /* keys taken back whose counters go at once, by lookup */

/*
 * Counter entries the node makes before it frees those of strangers
 * (node-stats.c): NIDs that are no local NI or peer NI, on no open link,
 * in no discovery round, their counters in no use.  A peer that claims
 * ever-new NIDs grows the table by at most this many (under 2 MB).
 */
#define LNE_STAT_STRANGERS 4096

struct lne_node;
struct lne_msg;
struct lne_svc;

/* The smallest payload that takes a bulk connection: socklnd's min_bulk (1024) less the headers. */
#define LNE_MIN_BULK_PAYLOAD (1024 - LNW_FRAME_HDR)

struct lne_fault;

/*
 * Why a send ended, in upstream's words (lnet_msg_hstatus): the side a
 * failure is blamed on loses health, and some failures are sent again
 * (node-health.c).
 */
enum lne_hstatus {
	LNE_HS_OK,
	LNE_HS_LOCAL_INTERRUPT,
	LNE_HS_LOCAL_DROPPED,
	LNE_HS_LOCAL_ABORTED,
	LNE_HS_LOCAL_NO_ROUTE,
	LNE_HS_LOCAL_TIMEOUT,
	LNE_HS_LOCAL_ERROR,
	LNE_HS_REMOTE_DROPPED,
	LNE_HS_REMOTE_ERROR,
	LNE_HS_REMOTE_TIMEOUT,
	LNE_HS_NETWORK_TIMEOUT,
	LNE_HS__COUNT
};

/* One connection to a peer NI from a local NI: the node's part of a shell's socket. */
struct lne_link {
	struct lne_link *hnext;
	struct lne_conn conn;
	struct lne_frame hs; /* the handshake */
	u64 local, peer;     /* NID keys (nidkey.h) */
	bool ready;	     /* the hellos crossed */
	bool hashed;
	bool path_down; /* it leaves by an interface that went down: closing (lne_nd_close_ni) */
	u64 stall_ms;	/* since when bytes wait and none went (0: none wait) */
	int close_err;	/* why it closes: what its messages fail with */
	struct lne_msg *wait, **waittail; /* sent once the hellos have crossed */
};

typedef void (*lne_msg_cb)(struct lne_msg *m, int status);

/* A message the node sends, or the answer it waits for. */
struct lne_msg {
	struct lne_msg *next;  /* on a wait queue */
	struct lne_msg *pnext; /* in the pending table */
	struct lne_node *node;
	struct lnw_hdr hdr;
	u8 *payload;   /* owned: freed when the message ends (unless borrowed) */
	bool borrowed; /* payload is the node's zeros */
	struct lne_frame frame;
	const struct lne_inst *sel_ln; /* where credits were taken; NULL: none */
	struct lne_nid ni, pni;
	u64 via; /* the nid4 the frame goes to (a gateway, or the peer NI) */
	/*
	 * Selection's NUMA criterion (ops->cpt) where the message was made: its
	 * sender's, not that of whoever dispatches it after a wait (credits,
	 * discovery, a resend), as upstream's md_cpt is the sender's CPT.
	 */
	s32 md_cpt;
	u64 deadline_ms;
	bool wants_answer; /* a GET's REPLY, or a PUT's ACK */
	bool forward;	   /* another node's message this router passes on, header untouched */
	bool sent;
	bool cancelled; /* over (its callback ran) while still queued: freed when it leaves the queue */
	u8 rbp;		/* a forwarded message's router buffer pool, + 1 (0: none held) */
	bool disc_passed;    /* discovery let it go: it is not held again */
	bool src_given;	     /* the caller chose ni: a resend keeps it */
	bool recovery;	     /* a recovery ping (node-health.c): its path is fixed, never resent */
	bool path_lost;	     /* written to a link whose path went down (lne_nd_close_ni) */
	u64 target;	     /* the destination as asked (hdr.dst_nid becomes the peer NI chosen) */
	u64 txn_deadline_ms; /* no resend after this (transaction_timeout) */
	u32 retries;
	u8 fault_hs;	/* the health error a fault rule simulates (0: none) */
	bool delayed;	/* held once by a delay rule (fault.h) */
	u64 release_ms; /* when a delay rule lets it go */
	u64 rtr_from; /* forwarded: the peer NI it came from (nid4), which lends a router credit */
	u64 rtr_ni;   /* forwarded: the local NI it came on (nid4) */
	bool rtr_credit; /* forwarded: holds one of rtr_from's router credits */
	int status;
	u8 *reply; /* the REPLY's payload (owned) */
	u32 reply_len;
	lne_msg_cb cb;
	void *arg;
};

struct lne_node_ops {
	/* A zeroed link of the shell's size, the node's struct lne_link at its start. */
	struct lne_link *(*link_new)(void *ctx);
	/* Open the socket for @l (l->local to l->peer); false if it cannot start. */
	bool (*connect)(void *ctx, struct lne_link *l);
	void (*wake)(void *ctx, struct lne_link *l);
	/* The node is done with @l: close its socket and free it later. */
	void (*close)(void *ctx, struct lne_link *l);
	/* A PUT or GET arrived for a portal other than the reserved one (may be NULL). */
	void (*recv)(void *ctx, const struct lnw_hdr *h, const u8 *payload);
	/* A fault from a peer, for a rate-limited log line. */
	void (*fault)(void *ctx, const struct lne_link *l, enum lnw_fault f);
	/* A line for the log (discovery's first bad ping reply or push of a kind; may be NULL). */
	void (*log)(void *ctx, const char *line);
	/*
	 * Discovery changes the instance (peers it makes and merges): @begin
	 * true asks for the right to (false: not now, try later), false gives
	 * it back.  The shell may swap in the current instance meanwhile
	 * (lne_node_set_inst).  NULL: the node may always change it (lnetd).
	 */
	bool (*model_write)(void *ctx, bool begin);
	/* Discovery learnt @peer's NIDs for the first time (may be NULL). */
	void (*discovered)(void *ctx, const struct lne_peer *peer);
	/* A route went down or came up (node-gw.c; may be NULL). */
	void (*route)(void *ctx, lne_net_t net, const struct lne_nid *gw, bool up);
	/*
	 * A local NI or peer NI changed state (may be NULL): "down" (its link),
	 * "recovering" (on the recovery queue), "healthy" (back at full health)
	 * or "unreachable" (recovery_limit gave up on it).
	 */
	void (*state)(void *ctx, const struct lne_nid *nid, bool local, const char *state,
		      s32 health);
	/*
	 * The CPT (NUMA node) the node runs on now: selection's NUMA criterion
	 * measures from it, as upstream's from the current CPT when a
	 * message's memory names none (may be NULL: unknown, every NI as near).
	 */
	s32 (*cpt)(void *ctx);
	/*
	 * Whether @l, another NI's link, leaves by local NI @ni's interface
	 * (its route goes there: two NIs on one net may reach a peer NI
	 * through each other's interfaces).  When @ni's link goes down, such
	 * links close with its own.  NULL: only an NI's own links do.
	 */
	bool (*through)(void *ctx, const struct lne_link *l, const struct lne_ni *ni);
};

/* Health counters of one local NI or peer NI, and its place in recovery (node-health.c). */
struct lne_health {
	u64 hs[LNE_HS__COUNT];	/* failures by status */
	struct lne_stat *rnext; /* on the recovery queue */
	bool queued;
	bool pinging;	/* a recovery ping is out */
	bool down;	/* a local NI's link, as the node last acted on it */
	u32 ping_count; /* recovery pings that failed in a row */
	u64 next_ping_ms;
	u64 since_ms; /* queued, or last heard of (recovery_limit) */
};

/* Counters, as Lustre's `stats show` and `net show -v` / `peer show -v` print them. */
struct lne_counts {
	u64 send_count, recv_count, drop_count;
	u64 send_length, recv_length, drop_length;
	u64 sent[4], recvd[4], dropped[4]; /* by type: ACK, PUT, GET, REPLY */
};

/*
 * A gateway as the router checker last found it (node-gw.c): pinged every
 * rtr_check_s seconds (discovery's pings count too); dead when a ping is not
 * answered within rtr_timeout_s; its answer lists its nets and their states.
 */
#define LNE_GW_NETS 16
struct lne_gw {
	bool used;	   /* a route goes through it */
	bool pinging;	   /* a check is out */
	bool answered;	   /* a check came back: the fields below say what it found */
	bool dead;	   /* the last check failed */
	bool rte_disabled; /* it answered that it does not route */
	u8 nnets;
	u16 net_up; /* bit i: an NI of nets[i] is up */
	lne_net_t nets[LNE_GW_NETS];
	u64 next_ping_ms;
};

/* A peer NI's router credits (node-router.c): what it may have this router hold at once. */
struct lne_rtrcr {
	bool init;
	s32 credits, min; /* as upstream's: negative counts the messages waiting */
	u32 lent;	  /* credits held by messages in flight */
	struct lne_msg *q, **tail;
};

struct lne_stat {
	struct lne_stat *hnext;
	u64 nid; /* its key (nidkey.h) */
	bool local;
	bool linked; /* an open link's: set and cleared by one sweep of strangers' */
	struct lne_counts c;
	struct lne_health h;
	struct lne_gw gw;
	struct lne_rtrcr rc;
};

/*
 * Router buffers (Lustre's tiny, small and large pools): a message this node
 * forwards holds one of its size until it is sent on, at most the
 * tiny/small/large_buffers globals at once; the rest wait, in order.
 */
enum {
	LNE_RB_TINY,
	LNE_RB_SMALL,
	LNE_RB_LARGE,
	LNE_RB__COUNT
};
#define LNE_RB_SMALL_MAX 4096 /* one page */

struct lne_rtrpool {
	u32 used, queued;
	u32 peak; /* the most used + queued at once: Lustre's mincredits is nbuffers - peak */
	struct lne_msg *q, **tail;
};

struct lne_node_stats {
	struct lne_counts c;
	u64 errors, msgs_alloc, msgs_max, route_count, route_length;
	u64 faults[LNW_F__COUNT];
	u64 links_made, links_accepted, links_closed;
	u64 test_puts, test_gets; /* served on LNE_PORTAL_TEST */
	u64 resend_count, failed_resends, successful_resends, response_timeout_count;
	u64 hs[LNE_HS__COUNT]; /* sends that ended so, by status */
	u64 recovery_pings;
	u64 asym_drops;	  /* drop_asym_route: routed messages from a gateway with no route back */
	u64 router_pings; /* the router checker's */
};

/* What was wrong with a ping reply or a push discovery refused (node-disc.c). */
enum lne_disc_bad {
	LNE_DBAD_MAGIC,	   /* not ping info */
	LNE_DBAD_COUNT,	   /* more NIDs than the message holds, or none */
	LNE_DBAD_DUP,	   /* a NID twice */
	LNE_DBAD_OWNER,	   /* a NID of ours, or of another peer */
	LNE_DBAD_NOT_MR,   /* a push from a peer that says it is not Multi-Rail */
	LNE_DBAD_NO_STALE, /* a push older than what we have (not bad: ignored) */
	LNE_DBAD__COUNT
};

struct lne_disc_stats {
	u64 started, done, failed; /* rounds */
	u64 waited;		   /* messages that waited for a round */
	u64 pushes_sent, pushes_recvd, pushes_ignored;
	u64 merged;   /* peers folded into another */
	u64 mismatch; /* verify only: data that differs from the configuration */
	u64 bad[LNE_DBAD__COUNT];
};

struct lne_disc;

struct lne_node {
	struct lne_inst *ln;
	const struct lne_node_ops *ops;
	void *ctx;
	struct lne_nidtab keys; /* large NIDs' keys: every u64 NID here is one (nidkey.h) */
	/* keys taken back since the last sweep of their counters (node-keys.c) */
	u64 keys_gone[LNE_KEYS_GONE];
	u32 nkeys_gone; /* > LNE_KEYS_GONE: more than it holds, sweep them all */
	u32 pid;
	u64 incarnation;
	u64 now_ms;
	u64 next_cookie;
	u32 ping_seq;
	bool multi_rail;   /* discovery and forwarding follow their globals */
	bool test_service; /* serve LNE_PORTAL_TEST */
	bool closing;	   /* in lne_node_fini: no new message starts */
	u8 *zeros;	   /* LNW_MTU zero bytes: test replies and payloads without data */
	u64 hkey[2]; /* the key of the link, discovery and counter tables' hash (node-int.h) */
	struct lne_link *links[LNE_LINK_HASH];
	struct lne_msg *pending[LNE_LINK_HASH]; /* waiting for a REPLY or an ACK, by cookie */
	struct lne_msg *credq, **credtail;	/* waiting for credits */
	struct lne_rtrpool rtr[LNE_RB__COUNT];
	bool rtr_kicking;
	struct lne_msg *rtr_ready, **rtr_readytail; /* given a router credit, to go on */
	bool rtr_readying;
	struct lne_stat *stats[LNE_STAT_HASH];
	u32 nstats;	/* entries in stats */
	u32 stats_kept; /* entries the last sweep of strangers' left (node-stats.c) */
	struct lne_node_stats st;
	struct lne_svc *svc[LNE_SVC_MAX];     /* services by portal (node-svc.h) */
	struct lne_disc *disc[LNE_LINK_HASH]; /* discovery rounds, by the NID they ping */
	struct lne_disc_stats dst;
	u32 disc_logged; /* kinds of bad data already logged (bit per enum lne_disc_bad) */
	u64 disc_nis;	 /* the local NIs as lne_node_nis_check() last saw them */
	bool nis_dirty;	 /* a local NI's link changed: lne_node_nis_check() at the next tick */

	struct lne_msg *resendq, **resendtail; /* failed sends to try again (node-health.c) */
	bool resending;
	struct lne_stat *recq;	  /* local NIs and peer NIs in recovery */
	struct lne_fault *faults; /* fault injection (fault.h) */
	u32 fault_ids;
	u64 rng;
	struct lne_msg *delayq; /* held by delay rules */
	/* the router checker (node-gw.c): upstream's module parameters, in seconds (0: off) */
	u32 rtr_check_s, rtr_timeout_s;
	bool avoid_asym; /* avoid_asym_router_failure */
};

void lne_node_init(struct lne_node *n, struct lne_inst *ln, const struct lne_node_ops *ops,
		   void *ctx, u64 incarnation);
/* Every link closed (ops->close), every message failed with -ESHUTDOWN, stats freed. */
void lne_node_fini(struct lne_node *n);
/*
 * The node's 8-byte key of @nid (nidkey.h): what links, headers, counters
 * and health hold; a large NID is interned.  0 or a negative errno.
 */
static inline int lne_node_key(struct lne_node *n, const struct lne_nid *nid, u64 *key)
{
	return lne_nidkey(&n->keys, nid, key);
}

/* The key @nid has already (no interning): 0 or -ENOENT, for lookups. */
static inline int lne_node_key_find(const struct lne_node *n, const struct lne_nid *nid, u64 *key)
{
	return lne_nidkey_find(&n->keys, nid, key);
}

/* The NID of a key the node gave out, for whatever prints or reports it. */
static inline void lne_node_nid(const struct lne_node *n, u64 key, struct lne_nid *out)
{
	lne_nidkey_nid(&n->keys, key, out);
}

/* The shell's instance changed (credits taken in the old one are not given back). */
void lne_node_set_inst(struct lne_node *n, struct lne_inst *ln);

/*
 * Send: a PUT (@len bytes of @payload, which the node then owns; NULL: zero
 * bytes from the node's own buffer, which a traffic generator wants) or a GET
 * (@len: the most the answer may hold).  @src NULL lets selection choose.
 * @cb runs once, when the message is done (a PUT: sent, or ACKed if
 * @ack; a GET: answered) or failed; @timeout_ms bounds a wait for an answer.
 */
int lne_node_put(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		 u32 portal, u64 match, u64 hdr_data, u8 *payload, u32 len, bool ack,
		 u32 timeout_ms, lne_msg_cb cb, void *arg, struct lne_err *err);
int lne_node_get(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		 u32 portal, u64 match, u32 len, u32 timeout_ms, lne_msg_cb cb, void *arg,
		 struct lne_err *err);
/*
 * A ping: a GET on the reserved portal; m->reply holds the ping info.  The
 * node itself (0@lo, its own NIDs) answers at once, before this returns.
 */
int lne_node_ping(struct lne_node *n, const struct lne_nid *dst, const struct lne_nid *src,
		  u32 timeout_ms, lne_msg_cb cb, void *arg, struct lne_err *err);
void lne_msg_free(struct lne_msg *m);

/* The shell accepted @l's socket on the NI address it listens on. */
void lne_node_accepted(struct lne_node *n, struct lne_link *l);
/* Bytes from @l; a negative errno means close it (a fault, counted). */
int lne_node_input(struct lne_node *n, struct lne_link *l, const u8 *buf, size_t len);
void lne_node_sent(struct lne_node *n, struct lne_link *l, size_t bytes);
/* @l's socket is gone: its messages fail (@err) and the node forgets it. */
void lne_node_closed(struct lne_node *n, struct lne_link *l, int err);
void lne_node_tick(struct lne_node *n, u64 now_ms);
/* The earliest deadline, or U64 max when nothing waits. */
u64 lne_node_next_deadline(const struct lne_node *n);

const struct lne_counts *lne_node_counts(const struct lne_node *n, const struct lne_nid *nid);
/*
 * Every counter by the name `stats show`, D-Bus and LNETK_CMD_COUNTERS use:
 * @fn for each; a negative return stops the walk and is returned.
 */
typedef int (*lne_count_fn)(void *arg, const char *name, u64 value);
int lne_counts_each(const struct lne_counts *c, lne_count_fn fn, void *arg);
/* The node's own counters: messages, errors, routed, connections, faults by kind. */
int lne_node_stats_each(const struct lne_node *n, lne_count_fn fn, void *arg);
void lne_node_stats_reset(struct lne_node *n);

/*
 * Dynamic peer discovery (node-disc.c), as the `discovery` global says:
 * 0 off, 1 on, 2 verify only (discovery runs and reports where what it
 * finds differs from the configuration, which it keeps).  The first PUT or
 * GET to a NID no peer has creates a discovered peer and waits while the
 * node pings it and, if it is Multi-Rail, pushes this node's NIDs to it.
 */
enum lne_disc_mode {
	LNE_DISC_OFF = 0,
	LNE_DISC_ON = 1,
	LNE_DISC_VERIFY = 2
};
typedef void (*lne_disc_cb)(void *arg, int status);
/*
 * Discover the peer with @nid now (`lnetctl discover`), creating it if no
 * peer has @nid; a discovered peer again only with @force.  @cb runs once,
 * when the round is over (at once if there is nothing to do).
 */
int lne_node_discover(struct lne_node *n, const struct lne_nid *nid, bool force, lne_disc_cb cb,
		      void *arg, struct lne_err *err);
/* A local NI came or went: a push to every discovered Multi-Rail peer. */
void lne_node_nis_changed(struct lne_node *n);
/* The instance may have changed: lne_node_nis_changed() if its NIs did since the last call. */
void lne_node_nis_check(struct lne_node *n);
int lne_node_disc_stats_each(const struct lne_node *n, lne_count_fn fn, void *arg);

/* --- health, resend and recovery (node-health.c) --- */

/* lnd_timeout in seconds, as upstream derives it from transaction_timeout and retry_count. */
u32 lne_node_lnd_timeout(const struct lne_inst *ln);
/* The health counters of a local NI or peer NI (NULL: nothing counted yet). */
const struct lne_health *lne_node_health(const struct lne_node *n, const struct lne_nid *nid);
/* Upstream's name of a health status ("local_dropped"...). */
const char *lne_hstatus_name(enum lne_hstatus hs);
/*
 * The "health stats" of a local NI or peer NI by the keys `net show -v` and
 * `peer show -v` print (interrupts, dropped, ... ping_count, next_ping: the
 * node clock's second of the next recovery ping, 0 when none waits).
 */
int lne_node_health_each(const struct lne_node *n, const struct lne_nid *nid, bool local,
			 lne_count_fn fn, void *arg);
/* @fn(arg, NID, health entry) for each local NI (or peer NI) on the recovery queue. */
int lne_node_recovery_each(const struct lne_node *n, bool local,
			   int (*fn)(void *arg, const struct lne_nid *nid,
				     const struct lne_health *h),
			   void *arg);
/* Health was set from outside (net set / peer set --health): below 1000 goes to recovery. */
void lne_node_health_rescan(struct lne_node *n);
/*
 * The link of local NI @nid went down: it is not chosen again, its
 * connections close and what they held is sent over other paths.  Up:
 * chosen again once recovery pings it back to full health.
 */
int lne_node_ni_link(struct lne_node *n, const struct lne_nid *nid, bool up, struct lne_err *err);
/* The same for every NI whose link state someone else set in the instance (the module's NI_SET). */
void lne_node_links_sync(struct lne_node *n);

/* --- gateways (node-gw.c) --- */

/* Upstream's defaults: alive_router_check_interval, router_ping_timeout. */
#define LNE_RTR_CHECK_S	  60
#define LNE_RTR_TIMEOUT_S 50
/* What the router checker knows of gateway @nid (NULL: nothing). */
const struct lne_gw *lne_node_gw(const struct lne_node *n, const struct lne_nid *nid);
/* A peer NI's router credits, as `peer show -v` prints them; false if it has lent none. */
bool lne_node_rtr_credits(const struct lne_node *n, const struct lne_nid *nid, s32 *avail,
			  s32 *min);

/* This node's ping info (0@lo first), as it answers a ping; returns its size. */
int lne_node_ping_info(struct lne_node *n, u8 *buf, u32 cap);

#endif /* LNE_NODE_H */
