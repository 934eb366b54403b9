/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetk-client.h - the one userspace binding of the lnetk generic netlink
 * contract (kernel/uapi/lnetk.h): one function per command, typed structs
 * in and out, negative errno back.
 *
 * The contract's prose is the documentation of what each command does;
 * this header only says how the C side looks:
 *
 *  - A struct lnetk is a socket speaking the family, bound to the instance
 *    of the network namespace it was opened in.  It is not thread-safe:
 *    one request at a time.
 *  - Every call that can be refused takes a struct lnetk_err (may be NULL)
 *    and fills it with the kernel's extack message, so the sentence the
 *    module wrote reaches the person (lnetd puts it in its D-Bus error).
 *  - Optional input fields are named by a "has" mask (LNETK_HAS_*): a value
 *    of 0 is often meaningful, so absence cannot be a value.  Fields a
 *    command does not take are not sent.  Replies set "has" too.
 *  - Dumps call back once per object, in the kernel's order.  Peers come
 *    whole: messages that repeat a primary NID are merged first.  Pointers
 *    in what a callback gets are valid during the call only.  A dump that
 *    raced with a change returns -EAGAIN after delivering everything: the
 *    caller dumps again.
 *  - A batch is one message with many objects, applied all or nothing
 *    (LNETK_CMD_BATCH); on refusal the error names the failing item.
 *  - Events come on their own socket (struct lnetk_events), so that they
 *    never interleave with replies; lnetd polls its fd in its event loop.
 *    So do the genl controller's announcements that the family appeared
 *    or vanished (struct lnetk_watch): the module was loaded or removed.
 */
#ifndef LNETD_LNETK_CLIENT_H
#define LNETD_LNETK_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/route-attrs.h"
#include "engine/tunables.h"
#include "kernel/uapi/lnetk.h"

struct lnetk;
struct lnetk_batch;
struct lnetk_events;

#define LNETK_ERR_MSG_MAX 256
#define LNETK_PRIO_NONE	  UINT32_MAX /* no priority: a rule without one, a value no rule set */

/* Why the kernel refused a request. */
struct lnetk_err {
	char msg[LNETK_ERR_MSG_MAX]; /* extack message, "" if the kernel gave none */
	int attr_offset;	     /* byte offset of the blamed attribute in the request, -1 */
	int item;		     /* batch: index of the failing item (0 first), -1 */
};

/* --- connection ----------------------------------------------------------- */

/* Resolve the family (which loads the module) and open a socket to it. */
int lnetk_open(struct lnetk **lkp);
/*
 * The same, receiving with a buffer of @recv_buffer bytes (socket buffer
 * and read size alike; 0: the default, large): the kernel fills each dump
 * message to about that size, so a small one makes dumps span many
 * messages, each resumed from where the last stopped.
 */
int lnetk_open_buffer(struct lnetk **lkp, size_t recv_buffer);
void lnetk_close(struct lnetk *lk);
/* The family's id as resolved when @lk was opened (the genl controller's numbering). */
int lnetk_family(const struct lnetk *lk);
/* LNETK_A_GENERATION of the last reply received. */
uint64_t lnetk_last_generation(const struct lnetk *lk);
/*
 * How many reads (datagrams) the last request's reply took.  The kernel
 * fills one per round of a dump, resuming from its cursor each time.
 */
unsigned int lnetk_last_reads(const struct lnetk *lk);

struct lnetk_info {
	uint64_t generation;
	uint32_t count; /* NIs + peer NIs + routes + rules */
	char version[32];
};

int lnetk_get_info(struct lnetk *lk, struct lnetk_info *info, struct lnetk_err *err);
int lnetk_bump(struct lnetk *lk, uint32_t count, uint64_t *generation, struct lnetk_err *err);

/* --- local NIs -------------------------------------------------------------- */

enum {
	LNETK_HAS_NI_IFNAME = 1 << 0,
	LNETK_HAS_NI_CPTS = 1 << 1,
	LNETK_HAS_NI_DEV_CPT = 1 << 2,
	LNETK_HAS_NI_PLACE = 1 << 3,
	LNETK_HAS_NI_UP = 1 << 7,
	LNETK_HAS_NI_HEALTH = 1 << 8,
	LNETK_HAS_NI_TX_CREDITS = 1 << 9,
	LNETK_HAS_NI_SET_DOWN = 1 << 10, /* replies */
};

struct lnetk_ni {
	unsigned int has; /* LNETK_HAS_NI_* */
	char nid[LNETK_NID_MAX];
	char ifname[LNETK_IFNAME_MAX];
	uint64_t cpts; /* bit per CPT served, 0 = all */
	int32_t dev_cpt;
	uint64_t place;		 /* its place among the NIs, lower first (lne_ni_conf.order) */
	struct lne_tunables tun; /* engine/tunables.h */
	unsigned int tun_has;	 /* bit (1 << enum lne_tun) per tunable given */
	bool up;
	bool set_down; /* reply: health set to 0 by hand (its ping info says down) */
	uint32_t health;
	int32_t tx_credits;
	/* Replies: the UDSP values flattened onto it, and the rules behind them (-1: none). */
	uint32_t prio, net_prio;
	int32_t prio_rule, net_prio_rule;
};

typedef int (*lnetk_ni_cb)(const struct lnetk_ni *ni, void *arg);

/* Every tunable, for tun_has. */
#define LNETK_TUN_ALL ((1u << LNE_TUN__COUNT) - 1)

/* NI_ADD takes ifname, cpts, dev_cpt, place and the tunables; NI_SET up, health, tx_credits. */
int lnetk_ni_add(struct lnetk *lk, const struct lnetk_ni *ni, struct lnetk_err *err);
int lnetk_ni_set(struct lnetk *lk, const struct lnetk_ni *ni, struct lnetk_err *err);
int lnetk_ni_del(struct lnetk *lk, const char *nid, struct lnetk_err *err);
int lnetk_ni_get(struct lnetk *lk, const char *nid, struct lnetk_ni *ni, struct lnetk_err *err);
int lnetk_ni_dump(struct lnetk *lk, lnetk_ni_cb cb, void *arg, struct lnetk_err *err);

/* --- peers --------------------------------------------------------------- */

enum {
	LNETK_HAS_PNI_HEALTH = 1 << 0,
	LNETK_HAS_PNI_CREDITS = 1 << 1,
};

/* A preferred local NI (pair rule) or gateway (router rule) of a peer NI. */
struct lnetk_pref {
	char nid[LNETK_NID_MAX];
	uint32_t prio; /* the deciding rule's priority, LNETK_PRIO_NONE */
	uint32_t rule; /* the deciding rule's idx */
};

struct lnetk_peer_ni {
	unsigned int has; /* LNETK_HAS_PNI_* */
	char nid[LNETK_NID_MAX];
	uint32_t health;
	int32_t credits;
	/* Replies only. */
	uint32_t prio, net_prio, gw_routes;
	int32_t prio_rule, net_prio_rule;
	bool discovered; /* found by the module's discovery: not configuration */
	uint8_t state;	 /* enum lnetk_ni_status as `peer show` prints it (UNKNOWN: NA) */
	size_t npref_src, npref_gw;
	struct lnetk_pref *pref_src, *pref_gw;
};

struct lnetk_peer {
	char primary[LNETK_NID_MAX];
	bool mr, implicit;
	bool discovered; /* made by the module's discovery: not configuration */
	size_t nnis;
	struct lnetk_peer_ni *nis;
};

typedef int (*lnetk_peer_cb)(const struct lnetk_peer *peer, void *arg);

/* Create the peer if need be and add @nids (its primary NID need not be among them). */
int lnetk_peer_add(struct lnetk *lk, const char *primary, bool mr, const char *const *nids,
		   size_t nnids, struct lnetk_err *err);
/* Delete @nids of the peer, or the whole peer when @nnids is 0. */
int lnetk_peer_del(struct lnetk *lk, const char *primary, const char *const *nids, size_t nnids,
		   struct lnetk_err *err);
int lnetk_peer_ni_set(struct lnetk *lk, const struct lnetk_peer_ni *pni, struct lnetk_err *err);
/* The peer owning @nid, in *@peerp; free it with lnetk_peer_free(). */
int lnetk_peer_get(struct lnetk *lk, const char *nid, struct lnetk_peer **peerp,
		   struct lnetk_err *err);
void lnetk_peer_free(struct lnetk_peer *peer);
int lnetk_peer_dump(struct lnetk *lk, lnetk_peer_cb cb, void *arg, struct lnetk_err *err);

/* --- routes ----------------------------------------------------------------- */

/* A route's settings (engine/route-attrs.h): bit (1 << enum lne_route_attr) per one given. */
enum {
	LNETK_HAS_ROUTE_HOPS = 1 << LNE_ROUTE_A_HOPS,
	LNETK_HAS_ROUTE_PRIORITY = 1 << LNE_ROUTE_A_PRIORITY,
	LNETK_HAS_ROUTE_SENSITIVITY = 1 << LNE_ROUTE_A_SENSITIVITY,
};
#define LNETK_ROUTE_ALL ((1u << LNE_ROUTE_A__COUNT) - 1)

struct lnetk_route {
	unsigned int has; /* LNETK_HAS_ROUTE_* */
	char net[LNETK_NET_MAX];
	char gateway[LNETK_NID_MAX];
	LNE_ROUTE_FIELDS(uint32_t); /* .hops, .priority, .sensitivity, or .v[] */
	bool down;		    /* in a dump: the module's router checker took it down */
};

typedef int (*lnetk_route_cb)(const struct lnetk_route *route, void *arg);

int lnetk_route_add(struct lnetk *lk, const struct lnetk_route *route, struct lnetk_err *err);
int lnetk_route_del(struct lnetk *lk, const char *net, const char *gateway, struct lnetk_err *err);
int lnetk_route_dump(struct lnetk *lk, lnetk_route_cb cb, void *arg, struct lnetk_err *err);

/* --- UDSP rules ------------------------------------------------------------- */

struct lnetk_rule {
	const char *src, *dst, *rte; /* expressions, NULL when absent */
	uint32_t prio;		     /* LNETK_PRIO_NONE: none */
	int64_t idx;		     /* add: insert before this idx, < 0 to append */
	uint8_t kind;		     /* replies: enum lnetk_rule_kind */
};

typedef int (*lnetk_rule_cb)(const struct lnetk_rule *rule, void *arg);

/* @outcome (LNETK_RULE_ADDED or _UPDATED) and @idx may be NULL. */
int lnetk_rule_add(struct lnetk *lk, const struct lnetk_rule *rule,
		   enum lnetk_rule_outcome *outcome, uint32_t *idx, struct lnetk_err *err);
int lnetk_rule_del(struct lnetk *lk, uint32_t idx, struct lnetk_err *err);
int lnetk_rule_del_all(struct lnetk *lk, struct lnetk_err *err);
int lnetk_rule_dump(struct lnetk *lk, lnetk_rule_cb cb, void *arg, struct lnetk_err *err);

/* --- globals and NUMA --------------------------------------------------------- */

struct lnetk_global {
	char name[LNETK_NAME_MAX];
	uint32_t value;
};

typedef int (*lnetk_global_cb)(const struct lnetk_global *global, void *arg);

int lnetk_global_set(struct lnetk *lk, const char *name, uint32_t value, struct lnetk_err *err);
int lnetk_global_get(struct lnetk *lk, lnetk_global_cb cb, void *arg, struct lnetk_err *err);
/* @ncpt * @ncpt distances, row-major; @ncpt 0 removes the table. */
int lnetk_numa_set(struct lnetk *lk, uint32_t ncpt, const uint32_t *dist, struct lnetk_err *err);

/* --- the data path ------------------------------------------------------------- */

#define LNETK_PING_NIDS_MAX 256

struct lnetk_ping_nid {
	char nid[LNETK_NID_MAX];
	uint32_t status; /* enum lnetk_ni_status */
};

struct lnetk_ping {
	uint32_t features, pid; /* the ping info's (Lustre's LNET_PING_FEAT_* bits) */
	unsigned int n;
	struct lnetk_ping_nid nid[LNETK_PING_NIDS_MAX];
};

/*
 * Ping @dst over LNet from the module's data path (from @src if not NULL),
 * waiting up to @timeout_ms for the answer: it blocks that long at most.
 */
int lnetk_ping(struct lnetk *lk, const char *dst, const char *src, uint32_t timeout_ms,
	       struct lnetk_ping *out, struct lnetk_err *err);
/*
 * Discover the peer with @dst (even if discovered already, with @force),
 * waiting up to @timeout_ms: @out is that peer as discovery left it (the
 * Multi-Rail feature bit if it is; its NIDs, the primary first).
 */
int lnetk_discover(struct lnetk *lk, const char *dst, bool force, uint32_t timeout_ms,
		   struct lnetk_ping *out, struct lnetk_err *err);

/*
 * The module's data path counters: @cb for each, with the NID it counts
 * (NULL: the node's own) and whether it is a local NI; names as `lnetctl
 * stats show` prints them.  *@truncated: some NIDs did not fit.
 */
typedef int (*lnetk_counter_cb)(void *arg, const char *nid, bool local, const char *name,
				uint64_t value);
int lnetk_counters(struct lnetk *lk, lnetk_counter_cb cb, void *arg, bool *truncated,
		   struct lnetk_err *err);

/* Every data path counter back to 0. */
int lnetk_counters_reset(struct lnetk *lk, struct lnetk_err *err);
/* Serve (or stop serving) the traffic generator's test portal. */
int lnetk_test_service(struct lnetk *lk, bool on, struct lnetk_err *err);

#define LNETK_TEST_RAILS_MAX 64

struct lnetk_test_rail {
	char nid[LNETK_NID_MAX];
	uint64_t sent, received; /* bytes */
};

/* The traffic generator's parameters (in) and results (out). */
struct lnetk_test {
	const char *dst;
	uint8_t mode; /* enum lnetk_test_mode */
	uint32_t size, count, concurrency;
	bool no_ack;
	uint32_t timeout_ms; /* each message's wait; 0: the module's default */
	uint32_t messages, failed;
	uint64_t bytes, elapsed_ns;
	int32_t error; /* the first failure, -errno */
	unsigned int nrails;
	struct lnetk_test_rail rail[LNETK_TEST_RAILS_MAX];
	/*
	 * A trace, when @interval_ms is set: the caller's room for @max_samples
	 * rows of 1 + LNETK_TEST_RAILS_MAX u64s; each row filled is the time
	 * (ns since the start) and each rail's bytes so far, in rail order.
	 */
	uint32_t interval_ms, max_samples, nsamples;
	uint64_t *trace;
};

/* Run the traffic generator in the module; blocks until its last message ends. */
int lnetk_selftest(struct lnetk *lk, struct lnetk_test *t, struct lnetk_err *err);

/* --- health: fault injection, health counters, recovery queues ------------------ */

/* Add a drop (or delay) rule from `lnetctl fault` options; *@id: the new rule's. */
int lnetk_fault_add(struct lnetk *lk, bool delay, const char *const *keys,
		    const char *const *values, unsigned int n, uint32_t *id, struct lnetk_err *err);
/* Delete the rules of a kind from @src to @dst (NULL: any), or @all; *@count: how many. */
int lnetk_fault_del(struct lnetk *lk, bool delay, const char *src, const char *dst, bool all,
		    uint32_t *count, struct lnetk_err *err);
/* The rules' counters of a kind back to 0. */
int lnetk_fault_reset(struct lnetk *lk, bool delay, struct lnetk_err *err);

#define LNETK_FAULT_STATS_MAX 8

/* A rule as the module lists it; the strings live until the callback returns. */
struct lnetk_fault_rule {
	uint32_t id;
	unsigned int nopt, nstat;
	const char *key[LNETK_FAULT_OPTS_MAX], *value[LNETK_FAULT_OPTS_MAX];
	const char *stat[LNETK_FAULT_STATS_MAX];
	uint64_t count[LNETK_FAULT_STATS_MAX];
};
typedef int (*lnetk_fault_cb)(void *arg, const struct lnetk_fault_rule *r);
int lnetk_fault_list(struct lnetk *lk, bool delay, lnetk_fault_cb cb, void *arg,
		     struct lnetk_err *err);

/* A NID's health: a local NI (*@local) or peer NI, its value and @cb per health counter. */
typedef int (*lnetk_kv_cb)(void *arg, const char *key, uint64_t value);
int lnetk_health_get(struct lnetk *lk, const char *nid, bool *local, uint32_t *health,
		     lnetk_kv_cb cb, void *arg, struct lnetk_err *err);
/* A peer NI's router credits on this node: how many left (negative: waiting), the fewest. */
int lnetk_rtr_credits(struct lnetk *lk, const char *nid, int32_t *avail, int32_t *min,
		      struct lnetk_err *err);
/* Each NI in the local (or peer) recovery queue: pings failed in a row, the next (ms, monotonic). */
typedef int (*lnetk_recovery_cb)(void *arg, const char *nid, uint32_t pings, uint64_t next_ms);
int lnetk_recovery_get(struct lnetk *lk, bool peer, lnetk_recovery_cb cb, void *arg,
		       struct lnetk_err *err);

/* --- selection ---------------------------------------------------------------- */

struct lnetk_select_req {
	const char *dst;
	const char *src; /* NULL: any */
	uint8_t kind;	 /* enum lnetk_msg_kind */
	int32_t md_cpt;	 /* -1: unknown */
};

struct lnetk_selection {
	char ni[LNETK_NID_MAX], peer_ni[LNETK_NID_MAX];
	char gateway[LNETK_NID_MAX]; /* "" when the peer NI is on a local net */
};

#define LNETK_ENTRY_KEYS_MAX 16

struct lnetk_key {
	uint8_t crit; /* enum lnetk_crit */
	int64_t value;
	int32_t rule; /* the rule behind a priority, -1 */
};

/* One candidate the selection considered, and where it lost. */
struct lnetk_entry {
	uint8_t step;	 /* enum lnetk_step */
	uint8_t crit;	 /* LNETK_CRIT_CHOSEN, or the criterion it lost on */
	uint8_t lost_at; /* index of that criterion in key[] */
	char nid[LNETK_NID_MAX];
	unsigned int nkeys;
	struct lnetk_key key[LNETK_ENTRY_KEYS_MAX];
};

/* The caller's room for explain entries; those past @cap are only counted. */
struct lnetk_explain {
	struct lnetk_entry *ent;
	size_t cap, n, dropped;
};

/* With @ex, ask for the reasons (LNETK_F_EXPLAIN) and fill it. */
int lnetk_select(struct lnetk *lk, const struct lnetk_select_req *req, struct lnetk_selection *sel,
		 struct lnetk_explain *ex, struct lnetk_err *err);
/* What SELECT would answer now, with its reasons (@ex may be NULL), moving nothing. */
int lnetk_explain(struct lnetk *lk, const struct lnetk_select_req *req, struct lnetk_selection *sel,
		  struct lnetk_explain *ex, struct lnetk_err *err);

/* --- NRS TBF policies ------------------------------------------------------------ */

/* One rule of a queue, in match order (default last), with its statistics. */
struct lnetk_tbf_rule {
	char name[16];
	const char *text; /* the command that recreates it; valid during the callback */
	uint32_t rate;
	bool realtime;
	uint32_t nclasses;
	uint64_t queued, enqueued, dispatched, wait_ns, throttled;
};

struct lnetk_tbf_qinfo {
	uint8_t queue; /* enum lnetk_tbf_queue */
	char type[LNETK_TBF_TYPE_MAX];
	uint32_t depth, nclasses, nactive;
	uint64_t queued;
	size_t nrules;
	struct lnetk_tbf_rule *rules;
};

struct lnetk_tbf {
	char service[LNETK_TBF_SERVICE_MAX];
	size_t nqueues;
	struct lnetk_tbf_qinfo queues[2]; /* reg, hp */
};

typedef int (*lnetk_tbf_cb)(const struct lnetk_tbf *tbf, void *arg);

/*
 * Create @service's policy if it has none, and set @type (NULL: keep) and
 * @depth (0: keep) of @queue (LNETK_TBF_REG, LNETK_TBF_HP, or -1 for both).
 */
int lnetk_tbf_set(struct lnetk *lk, const char *service, int queue, const char *type,
		  uint32_t depth, struct lnetk_err *err);
/* One rule command (tbf.h's grammar); the engine's sentence comes back in @err. */
int lnetk_tbf_cmd(struct lnetk *lk, const char *service, const char *cmd, struct lnetk_err *err);
int lnetk_tbf_del(struct lnetk *lk, const char *service, struct lnetk_err *err);
/*
 * @service's policy, through @cb once; every policy, in service order.
 * Both read by dump, so a policy of any size comes whole.
 */
int lnetk_tbf_get(struct lnetk *lk, const char *service, lnetk_tbf_cb cb, void *arg,
		  struct lnetk_err *err);
int lnetk_tbf_dump(struct lnetk *lk, lnetk_tbf_cb cb, void *arg, struct lnetk_err *err);

/* One class of a policy's queue, with its statistics (strings valid during the callback). */
struct lnetk_tbf_class {
	const char *service;
	uint8_t queue;	  /* enum lnetk_tbf_queue */
	const char *key;  /* "nid=10.0.0.1@tcp" */
	const char *rule; /* the rule it follows, "" for none yet */
	uint64_t queued, enqueued, dispatched, wait_ns, throttled;
};

typedef int (*lnetk_tbf_class_cb)(const struct lnetk_tbf_class *c, void *arg);

/* The classes of @service's policy (NULL: of every policy), by dump. */
int lnetk_tbf_classes(struct lnetk *lk, const char *service, lnetk_tbf_class_cb cb, void *arg,
		      struct lnetk_err *err);

/* One class of a test load: requests from @nid on @queue (-1: reg). */
struct lnetk_tbf_load_class {
	const char *nid;
	int queue;
	uint64_t enqueued, dispatched; /* replies */
};

/*
 * Run a synthetic load on @service's policy for @ms milliseconds, in the
 * kernel (LNETK_CMD_TBF_LOAD); blocks that long.  Fills each class's
 * counts and *@elapsed_ns (may be NULL).
 */
int lnetk_tbf_load(struct lnetk *lk, const char *service, uint32_t ms,
		   struct lnetk_tbf_load_class *classes, size_t nclasses, uint64_t *elapsed_ns,
		   struct lnetk_err *err);

/* --- batches ------------------------------------------------------------------ */

/* @flags: LNETK_F_REPLACE to make the batch the whole state. */
int lnetk_batch_new(struct lnetk *lk, uint32_t flags, struct lnetk_batch **bp);
int lnetk_batch_ni(struct lnetk_batch *b, const struct lnetk_ni *ni);
int lnetk_batch_peer(struct lnetk_batch *b, const char *primary, bool mr, const char *const *nids,
		     size_t nnids);
int lnetk_batch_route(struct lnetk_batch *b, const struct lnetk_route *route);
int lnetk_batch_rule(struct lnetk_batch *b, const struct lnetk_rule *rule);
int lnetk_batch_global(struct lnetk_batch *b, const char *name, uint32_t value);
size_t lnetk_batch_items(const struct lnetk_batch *b);
size_t lnetk_batch_bytes(const struct lnetk_batch *b);
/* Send it; @applied (may be NULL) gets LNETK_A_COUNT.  The batch may be sent again. */
int lnetk_batch_send(struct lnetk_batch *b, uint32_t *applied, struct lnetk_err *err);
void lnetk_batch_free(struct lnetk_batch *b);

/* --- change notifications -------------------------------------------------------- */

/* @cmd made the change; @generation is the instance's generation after it. */
typedef void (*lnetk_event_cb)(uint8_t cmd, uint64_t generation, void *arg);

/* Join the "events" group of the caller's network namespace. */
int lnetk_events_open(lnetk_event_cb cb, void *arg, struct lnetk_events **evp);
/*
 * Join the "dp" group instead: what the data path sees happen (uapi/lnetk.h).
 * @state for an NI or peer NI that changed state, @peer for a peer discovery
 * finished (its NIDs, the primary first).  The same fd, buffer, dispatch
 * and close as the events group's.
 */
typedef void (*lnetk_dp_state_cb)(void *arg, const char *nid, bool local, const char *state,
				  uint32_t health);
typedef void (*lnetk_dp_peer_cb)(void *arg, const char *const *nids, size_t n);
/* @route for a route the router checker took down or up again. */
typedef void (*lnetk_dp_route_cb)(void *arg, const char *net, const char *gateway, bool up);
int lnetk_dp_events_open(lnetk_dp_state_cb state, lnetk_dp_peer_cb peer, lnetk_dp_route_cb route,
			 void *arg, struct lnetk_events **evp);
/* Poll this for POLLIN, then call lnetk_events_dispatch(). */
int lnetk_events_fd(const struct lnetk_events *ev);
/*
 * Room for @bytes of notifications waiting (each takes about 1 KiB): a
 * listener that is busy for a while must not lose any.  Beyond rmem_max
 * only with CAP_NET_ADMIN.
 */
int lnetk_events_set_buffer(struct lnetk_events *ev, size_t bytes);
/*
 * Deliver every notification waiting, without blocking.  Returns how many,
 * or -ENOBUFS when some were lost (the socket overflowed): the state must
 * then be read again.
 */
int lnetk_events_dispatch(struct lnetk_events *ev);
void lnetk_events_close(struct lnetk_events *ev);

/* --- the family coming and going ------------------------------------------------------- */

/*
 * The genl controller announces every family registered or unregistered
 * (CTRL_CMD_NEWFAMILY, CTRL_CMD_DELFAMILY) to its "notify" group: that is
 * how a daemon learns that the module was loaded or removed.  Watching
 * never loads the module; lnetk_open() does (it resolves the family).
 * @family is the id the controller gave it (as lnetk_family()).
 */
typedef void (*lnetk_family_cb)(bool present, int family, void *arg);

struct lnetk_watch;

int lnetk_watch_open(lnetk_family_cb cb, void *arg, struct lnetk_watch **wp);
/* Poll this for POLLIN, then call lnetk_watch_dispatch(). */
int lnetk_watch_fd(const struct lnetk_watch *w);
/*
 * Deliver every announcement about the lnetk family waiting, without
 * blocking.  Returns how many, or -ENOBUFS when some were lost: ask
 * lnetk_family_present() then.
 */
int lnetk_watch_dispatch(struct lnetk_watch *w);
void lnetk_watch_close(struct lnetk_watch *w);
/* 1 if the family is registered now, 0 if not: a dump of the families, which loads nothing. */
int lnetk_family_present(void);

#endif /* LNETD_LNETK_CLIENT_H */
