/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * lnetk.h - the generic netlink contract of the lnetk kernel module: the
 * family LNETK_GENL_NAME, its commands, attributes, enums and limits.
 *
 * lnetk keeps LNet's runtime state (NIs, peers, routes, globals, the NUMA
 * table, UDSP rules, NRS TBF policies), one instance per network
 * namespace; a request acts on the instance of the requesting socket's
 * namespace.  Commands marked (admin) below need CAP_NET_ADMIN over that
 * namespace; the others are reads, open to anyone.
 *
 * doc/NETLINK.md says what each command takes, does and replies, and the
 * rules common to all: the generation, errors and extack, permissions,
 * strings, dumps and the "events" and "dp" multicast groups.  Here each
 * entry has one line.
 */
#ifndef _UAPI_LNETK_H
#define _UAPI_LNETK_H

#define LNETK_GENL_NAME	   "lnetk"
#define LNETK_GENL_VERSION 1

#define LNETK_MCGRP_EVENTS "events"
#define LNETK_MCGRP_DP	   "dp"

/* The most LNETK_CMD_BUMP adds at once: keeps tests from wrapping. */
#define LNETK_BUMP_MAX 1000

/* Longest texts, terminating NUL included. */
#define LNETK_NID_MAX	      64
#define LNETK_NET_MAX	      16
#define LNETK_IFNAME_MAX      16
#define LNETK_EXPR_MAX	      4097
#define LNETK_NAME_MAX	      64
#define LNETK_TBF_SERVICE_MAX 32   /* engine: 1..31 of [A-Za-z0-9_] */
#define LNETK_TBF_TYPE_MAX    64   /* "nid+jobid+opcode+uid+gid" and some */
#define LNETK_TBF_CMD_MAX     4097 /* engine: LNE_TBF_CMD_MAX bytes */

/* TBF policies per instance, and bucket depths. */
#define LNETK_TBF_POLICIES_MAX 64
#define LNETK_TBF_DEPTH_MAX    1000000

/* TBF_LOAD: duration (ms), classes, requests kept queued per class. */
#define LNETK_TBF_LOAD_MS_MIN	   10
#define LNETK_TBF_LOAD_MS_MAX	   10000
#define LNETK_TBF_LOAD_CLASSES_MAX 16
#define LNETK_TBF_LOAD_BACKLOG	   64

enum lnetk_cmd {
	LNETK_CMD_UNSPEC,
	LNETK_CMD_GET_INFO,    /* the instance's generation, version and object count */
	LNETK_CMD_BUMP,	       /* (admin, test build) add LNETK_A_COUNT to the generation */
	LNETK_CMD_NI_ADD,      /* (admin) add a local NI: LNETK_A_NI */
	LNETK_CMD_NI_DEL,      /* (admin) delete a local NI */
	LNETK_CMD_NI_SET,      /* (admin) an NI's health, link state, tx credits */
	LNETK_CMD_NI_GET,      /* one NI, or a dump of every NI */
	LNETK_CMD_PEER_ADD,    /* (admin) create a peer and/or add NIDs to it: LNETK_A_PEER */
	LNETK_CMD_PEER_DEL,    /* (admin) delete NIDs of a peer, or the whole peer */
	LNETK_CMD_PEER_NI_SET, /* (admin) a peer NI's health, credits: LNETK_A_PEER_NI */
	LNETK_CMD_PEER_GET,    /* one peer, or a dump of every peer */
	LNETK_CMD_ROUTE_ADD,   /* (admin) add a route: LNETK_A_ROUTE */
	LNETK_CMD_ROUTE_DEL,   /* (admin) delete a route */
	LNETK_CMD_ROUTE_GET,   /* dump of every route */
	LNETK_CMD_RULE_ADD,    /* (admin) add or update a UDSP rule: LNETK_A_RULE */
	LNETK_CMD_RULE_DEL,    /* (admin) delete a rule, or all (LNETK_F_ALL) */
	LNETK_CMD_RULE_GET,    /* dump of the rules, in idx order */
	LNETK_CMD_GLOBAL_SET,  /* (admin) one global setting: LNETK_A_GLOBAL */
	LNETK_CMD_GLOBAL_GET,  /* every global setting */
	LNETK_CMD_NUMA_SET,    /* (admin) the CPT distance table: LNETK_A_NUMA */
	LNETK_CMD_SELECT,      /* (admin) select a path, moving the round robin: LNETK_A_SELECT */
	LNETK_CMD_BATCH,       /* (admin) many objects in one message, all or nothing */
	LNETK_CMD_TBF_SET,     /* (admin) create a TBF policy or set its type, depth: LNETK_A_TBF */
	LNETK_CMD_TBF_CMD,     /* (admin) one TBF rule command */
	LNETK_CMD_TBF_DEL,     /* (admin) delete a service's TBF policy */
	LNETK_CMD_TBF_GET,     /* one TBF policy, or a dump of every policy */
	LNETK_CMD_TBF_LOAD,    /* (admin, test build) a synthetic load through a policy */
	LNETK_CMD_TBF_CLASS_GET, /* dump of the TBF classes */
	LNETK_CMD_EXPLAIN,	 /* what SELECT with LNETK_F_EXPLAIN would answer, moving nothing */
	LNETK_CMD_PING,		 /* (admin) ping or discover a NID on the data path: LNETK_A_PING */
	LNETK_CMD_COUNTERS,	 /* the data path's counters: LNETK_A_COUNTERS */
	LNETK_CMD_COUNTERS_RESET, /* (admin) every data path counter back to 0 */
	LNETK_CMD_TEST_SERVICE,	  /* (admin) serve the traffic generator's portal: LNETK_A_ON */
	LNETK_CMD_SELFTEST,	  /* (admin) run the traffic generator: LNETK_A_TEST */
	LNETK_CMD_FAULT,	  /* (admin) add, delete or reset fault rules: LNETK_A_FAULT */
	LNETK_CMD_FAULT_GET,	  /* the drop or delay fault rules */
	LNETK_CMD_HEALTH_GET,	  /* a local or peer NI's health: LNETK_A_HEALTH */
	LNETK_CMD_RECOVERY_GET,	  /* the NIs in a recovery queue */
	LNETK_EV_DP_STATE,	  /* announcement only: group "dp" */
	LNETK_EV_DP_DISCOVERED,	  /* announcement only: group "dp" */
	LNETK_EV_DP_ROUTE,	  /* announcement only: group "dp" */
	__LNETK_CMD_LAST
};
#define LNETK_CMD_MAX (__LNETK_CMD_LAST - 1)

/* LNETK_A_FLAGS bits. */
#define LNETK_F_ALL	(1U << 0) /* RULE_DEL: every rule */
#define LNETK_F_REPLACE (1U << 1) /* BATCH: the batch is the whole state */
#define LNETK_F_EXPLAIN (1U << 2) /* SELECT: say why */
#define LNETK_F_MASK	(LNETK_F_ALL | LNETK_F_REPLACE | LNETK_F_EXPLAIN)

enum lnetk_attr {
	LNETK_A_UNSPEC,
	LNETK_A_PAD,	    /* alignment padding for 64-bit attributes, never sent alone */
	LNETK_A_GENERATION, /* u64 */
	LNETK_A_VERSION,    /* string */
	LNETK_A_COUNT,	    /* u32 */
	LNETK_A_FLAGS,	    /* u32, LNETK_F_* */
	LNETK_A_NI,	    /* nest, LNETK_NI_A_* */
	LNETK_A_PEER,	    /* nest, LNETK_PEER_A_* */
	LNETK_A_PEER_NI,    /* nest, LNETK_PNI_A_* */
	LNETK_A_ROUTE,	    /* nest, LNETK_ROUTE_A_* */
	LNETK_A_RULE,	    /* nest, LNETK_RULE_A_* */
	LNETK_A_GLOBAL,	    /* nest, LNETK_GLOBAL_A_* */
	LNETK_A_NUMA,	    /* nest, LNETK_NUMA_A_* */
	LNETK_A_SELECT,	    /* nest, LNETK_SEL_A_* */
	LNETK_A_TBF,	    /* nest, LNETK_TBF_A_* */
	LNETK_A_PING,	    /* nest, LNETK_PING_A_* */
	LNETK_A_COUNTERS,   /* nest, LNETK_CNT_A_* */
	LNETK_A_TEST,	    /* nest, LNETK_TEST_A_* */
	LNETK_A_ON,	    /* u8, 0 or 1 */
	LNETK_A_FAULT,	    /* nest, LNETK_FAULT_A_* */
	LNETK_A_HEALTH,	    /* nest, LNETK_HEALTH_A_* */
	__LNETK_A_LAST
};
#define LNETK_A_MAX (__LNETK_A_LAST - 1)

enum lnetk_ni_attr {
	LNETK_NI_A_UNSPEC,
	LNETK_NI_A_PAD,			/* alignment of 64-bit attributes */
	LNETK_NI_A_NID,			/* string */
	LNETK_NI_A_IFNAME,		/* string */
	LNETK_NI_A_CPTS,		/* u64: bit per CPT served, 0 = all */
	LNETK_NI_A_DEV_CPT,		/* s32: the device's CPT, -1 unknown */
	LNETK_NI_A_PEER_TIMEOUT,	/* u32, seconds */
	LNETK_NI_A_PEER_CREDITS,	/* u32, >= 1 */
	LNETK_NI_A_PEER_BUFFER_CREDITS, /* u32 */
	LNETK_NI_A_CREDITS,		/* u32, >= 1 */
	LNETK_NI_A_UP,			/* u8, 0 or 1 */
	LNETK_NI_A_HEALTH,		/* u32, 0..1000 */
	LNETK_NI_A_TX_CREDITS,		/* s32 */
	LNETK_NI_A_PRIO,		/* u32, reply: 4294967295 = none */
	LNETK_NI_A_PRIO_RULE,		/* s32, reply: rule idx or -1 */
	LNETK_NI_A_NET_PRIO,		/* u32, reply */
	LNETK_NI_A_NET_PRIO_RULE,	/* s32, reply */
	LNETK_NI_A_CONNS_PER_PEER,	/* u32, 0..127: bulk connections each way; 0 one */
	LNETK_NI_A_TOS,			/* u32, 0..255, or 0xffffffff: -1, off */
	LNETK_NI_A_LND_TIMEOUT,		/* u32, seconds: 0 the global lnd_timeout */
	LNETK_NI_A_PLACE,		/* u64, 1..2^63-1: its place among the NIs (lower first) */
	LNETK_NI_A_SET_DOWN, /* u8, reply: health set to 0 by hand, its ping info says down */
	__LNETK_NI_A_LAST
};
#define LNETK_NI_A_MAX (__LNETK_NI_A_LAST - 1)

enum lnetk_peer_attr {
	LNETK_PEER_A_UNSPEC,
	LNETK_PEER_A_PRIMARY,	 /* string */
	LNETK_PEER_A_MR,	 /* u8, 0 or 1 */
	LNETK_PEER_A_IMPLICIT,	 /* u8, reply: created for a route's gateway */
	LNETK_PEER_A_PEER_NI,	 /* nest, LNETK_PNI_A_*, repeated */
	LNETK_PEER_A_DISCOVERED, /* u8, reply: made by discovery (runtime, not configuration) */
	__LNETK_PEER_A_LAST
};
#define LNETK_PEER_A_MAX (__LNETK_PEER_A_LAST - 1)

enum lnetk_pni_attr {
	LNETK_PNI_A_UNSPEC,
	LNETK_PNI_A_NID,	   /* string */
	LNETK_PNI_A_HEALTH,	   /* u32, 0..1000 */
	LNETK_PNI_A_CREDITS,	   /* s32 */
	LNETK_PNI_A_PRIO,	   /* u32, reply */
	LNETK_PNI_A_PRIO_RULE,	   /* s32, reply */
	LNETK_PNI_A_NET_PRIO,	   /* u32, reply: its net as a destination */
	LNETK_PNI_A_NET_PRIO_RULE, /* s32, reply */
	LNETK_PNI_A_GW_ROUTES,	   /* u32, reply: routes using it as gateway */
	LNETK_PNI_A_PREF_SRC,	   /* nest, LNETK_PREF_A_*, repeated, reply */
	LNETK_PNI_A_PREF_GW,	   /* nest, LNETK_PREF_A_*, repeated, reply */
	LNETK_PNI_A_DISCOVERED,	   /* u8, reply: found by discovery (runtime) */
	LNETK_PNI_A_STATE,	   /* u8, reply: enum lnetk_ni_status, UNKNOWN where not watched */
	__LNETK_PNI_A_LAST
};
#define LNETK_PNI_A_MAX (__LNETK_PNI_A_LAST - 1)

enum lnetk_pref_attr {
	LNETK_PREF_A_UNSPEC,
	LNETK_PREF_A_NID,  /* string: the preferred local NI or gateway */
	LNETK_PREF_A_PRIO, /* u32: the deciding rule's priority (none: max) */
	LNETK_PREF_A_RULE, /* u32: the deciding rule's idx */
	__LNETK_PREF_A_LAST
};
#define LNETK_PREF_A_MAX (__LNETK_PREF_A_LAST - 1)

enum lnetk_route_attr {
	LNETK_ROUTE_A_UNSPEC,
	LNETK_ROUTE_A_NET,	   /* string: the remote net */
	LNETK_ROUTE_A_GATEWAY,	   /* string: the gateway's NID */
	LNETK_ROUTE_A_HOPS,	   /* u32, 1..255 */
	LNETK_ROUTE_A_PRIORITY,	   /* u32 */
	LNETK_ROUTE_A_SENSITIVITY, /* u32 */
	LNETK_ROUTE_A_DOWN,	   /* u8, in a dump: the router checker took it down */
	__LNETK_ROUTE_A_LAST
};
#define LNETK_ROUTE_A_MAX (__LNETK_ROUTE_A_LAST - 1)

/* LNETK_CMD_SELFTEST (uapi: enum lnetk_test_mode is engine/node-test.h's). */
enum lnetk_test_mode {
	LNETK_TEST_WRITE,
	LNETK_TEST_READ,
	LNETK_TEST_PING,
};

enum lnetk_test_attr {
	LNETK_TEST_A_UNSPEC,
	LNETK_TEST_A_PAD,	  /* alignment of 64-bit attributes */
	LNETK_TEST_A_NID,	  /* string: the peer */
	LNETK_TEST_A_MODE,	  /* u8, enum lnetk_test_mode (default write) */
	LNETK_TEST_A_SIZE,	  /* u32, 0..1 MiB (default 1 MiB) */
	LNETK_TEST_A_COUNT,	  /* u32, 1..10000000 (default 1000) */
	LNETK_TEST_A_CONCURRENCY, /* u32, 1..256 (default 8) */
	LNETK_TEST_A_NO_ACK,	  /* flag: write without asking for ACKs */
	LNETK_TEST_A_MESSAGES,	  /* u32, reply */
	LNETK_TEST_A_FAILED,	  /* u32, reply */
	LNETK_TEST_A_BYTES,	  /* u64, reply */
	LNETK_TEST_A_ELAPSED_NS,  /* u64, reply */
	LNETK_TEST_A_ERROR,	  /* s32, reply: the first failure, -errno */
	LNETK_TEST_A_RAIL,	  /* nest, repeated, reply: _NID, _SENT, _RECEIVED */
	LNETK_TEST_A_SENT,	  /* u64, reply, in a rail */
	LNETK_TEST_A_RECEIVED,	  /* u64, reply, in a rail */
	LNETK_TEST_A_INTERVAL_MS, /* u32: sample a trace this often (LNETK_TEST_INTERVAL_MIN..) */
	LNETK_TEST_A_SAMPLE,	  /* nest, repeated, reply: _T_NS, then _BYTES per rail */
	LNETK_TEST_A_T_NS,	  /* u64, in a sample: since the start */
	LNETK_TEST_A_RAIL_BYTES, /* u64, repeated, in a sample: a rail's bytes so far, rail order */
	LNETK_TEST_A_TIMEOUT_MS, /* u32, 1..300000: each message's wait (default 64000) */
	__LNETK_TEST_A_LAST
};
#define LNETK_TEST_A_MAX (__LNETK_TEST_A_LAST - 1)

/* LNETK_CMD_SELFTEST's trace: the shortest interval (ms), and the most rows. */
#define LNETK_TEST_INTERVAL_MIN 10
#define LNETK_TEST_INTERVAL_MAX 60000
#define LNETK_TEST_SAMPLES_MAX	1000

/* LNETK_CMD_PING: the most it waits (ms), and the NI status values. */
#define LNETK_PING_TIMEOUT_MAX 300000
enum lnetk_ni_status {
	LNETK_NI_STATUS_UNKNOWN,
	LNETK_NI_STATUS_UP,
	LNETK_NI_STATUS_DOWN,
};

enum lnetk_ping_attr {
	LNETK_PING_A_UNSPEC,
	LNETK_PING_A_NID,	 /* string: whom to ping; reply, in an entry: one of its NIDs */
	LNETK_PING_A_SRC,	 /* string: the local NI to send from */
	LNETK_PING_A_TIMEOUT_MS, /* u32, 1..LNETK_PING_TIMEOUT_MAX (default 1000) */
	LNETK_PING_A_FEATURES,	 /* u32, reply: the ping info's feature bits */
	LNETK_PING_A_PID,	 /* u32, reply */
	LNETK_PING_A_ENTRY,	 /* nest, repeated, reply: LNETK_PING_A_NID and _STATUS */
	LNETK_PING_A_STATUS,	 /* u32, reply, in an entry: enum lnetk_ni_status */
	LNETK_PING_A_DISCOVER,	 /* u8: 1 discover the peer instead, 2 even if discovered */
	__LNETK_PING_A_LAST
};
#define LNETK_PING_A_MAX (__LNETK_PING_A_LAST - 1)

enum lnetk_cnt_attr {
	LNETK_CNT_A_UNSPEC,
	LNETK_CNT_A_PAD,       /* alignment of 64-bit attributes */
	LNETK_CNT_A_ENTRY,     /* nest, repeated: the node's, then one per NID */
	LNETK_CNT_A_NID,       /* string, in an entry: absent for the node's own */
	LNETK_CNT_A_LOCAL,     /* u8, in an entry: a local NI (1) or a peer NI (0) */
	LNETK_CNT_A_ITEM,      /* nest, repeated, in an entry: a counter */
	LNETK_CNT_A_NAME,      /* string, in an item */
	LNETK_CNT_A_VALUE,     /* u64, in an item */
	LNETK_CNT_A_TRUNCATED, /* flag: more NIDs were counted than fit */
	__LNETK_CNT_A_LAST
};
#define LNETK_CNT_A_MAX (__LNETK_CNT_A_LAST - 1)

/* LNETK_CMD_FAULT: what to do, and the bounds of an option. */
enum lnetk_fault_op {
	LNETK_FAULT_ADD = 1,
	LNETK_FAULT_DEL,
	LNETK_FAULT_RESET,
};
#define LNETK_FAULT_KEY_MAX   32  /* bytes with the NUL */
#define LNETK_FAULT_VALUE_MAX 256 /* a list of portals or health errors fits */
#define LNETK_FAULT_OPTS_MAX  16

enum lnetk_fault_attr {
	LNETK_FAULT_A_UNSPEC,
	LNETK_FAULT_A_PAD,   /* alignment of 64-bit attributes */
	LNETK_FAULT_A_OP,    /* u8, enum lnetk_fault_op */
	LNETK_FAULT_A_DELAY, /* u8: delay rules (1) or drop rules (0) */
	LNETK_FAULT_A_OPT,   /* nest, repeated: _KEY and _VALUE */
	LNETK_FAULT_A_KEY,   /* string */
	LNETK_FAULT_A_VALUE, /* string */
	LNETK_FAULT_A_SRC,   /* string: a NID */
	LNETK_FAULT_A_DST,   /* string: a NID */
	LNETK_FAULT_A_ALL,   /* flag */
	LNETK_FAULT_A_ID,    /* u32, reply, in a rule */
	LNETK_FAULT_A_RULE,  /* nest, repeated, reply: _ID, _OPT..., _STAT... */
	LNETK_FAULT_A_STAT,  /* nest, repeated, reply: _KEY and _COUNT */
	LNETK_FAULT_A_COUNT, /* u64, reply */
	__LNETK_FAULT_A_LAST
};
#define LNETK_FAULT_A_MAX (__LNETK_FAULT_A_LAST - 1)

enum lnetk_health_attr {
	LNETK_HEALTH_A_UNSPEC,
	LNETK_HEALTH_A_PAD,	    /* alignment of 64-bit attributes */
	LNETK_HEALTH_A_NID,	    /* string */
	LNETK_HEALTH_A_LOCAL,	    /* u8, reply */
	LNETK_HEALTH_A_VALUE,	    /* u32, reply */
	LNETK_HEALTH_A_STAT,	    /* nest, repeated, reply: _KEY and _COUNT */
	LNETK_HEALTH_A_KEY,	    /* string */
	LNETK_HEALTH_A_COUNT,	    /* u64 */
	LNETK_HEALTH_A_PEER,	    /* u8: RECOVERY_GET's peer queue (1) or local (0) */
	LNETK_HEALTH_A_ENTRY,	    /* nest, repeated, reply: _NID, _PINGS, _NEXT_MS */
	LNETK_HEALTH_A_PINGS,	    /* u32 */
	LNETK_HEALTH_A_NEXT_MS,	    /* u64 */
	LNETK_HEALTH_A_STATE,	    /* string, in LNETK_EV_DP_STATE */
	LNETK_HEALTH_A_RTR_CREDITS, /* s32, HEALTH_GET of a peer NI: router credits left */
	LNETK_HEALTH_A_RTR_MIN,	    /* s32, HEALTH_GET of a peer NI: the fewest they were */
	__LNETK_HEALTH_A_LAST
};
#define LNETK_HEALTH_A_MAX (__LNETK_HEALTH_A_LAST - 1)

enum lnetk_rule_outcome {
	LNETK_RULE_ADDED,
	LNETK_RULE_UPDATED,
};

/* LNETK_RULE_A_KIND values: engine/rule.h's enum lne_rule_kind. */
enum lnetk_rule_kind {
	LNETK_RULE_SRC_NET,
	LNETK_RULE_SRC_NID,
	LNETK_RULE_DST_NET,
	LNETK_RULE_DST_NID,
	LNETK_RULE_PAIR,
	LNETK_RULE_ROUTER,
};

enum lnetk_rule_attr {
	LNETK_RULE_A_UNSPEC,
	LNETK_RULE_A_SRC,      /* string: expression */
	LNETK_RULE_A_DST,      /* string: expression */
	LNETK_RULE_A_RTE,      /* string: expression */
	LNETK_RULE_A_PRIORITY, /* u32, 0..4294967294 */
	LNETK_RULE_A_IDX,      /* u32 */
	LNETK_RULE_A_KIND,     /* u8, reply: enum lnetk_rule_kind */
	LNETK_RULE_A_OUTCOME,  /* u8, reply: enum lnetk_rule_outcome */
	__LNETK_RULE_A_LAST
};
#define LNETK_RULE_A_MAX (__LNETK_RULE_A_LAST - 1)

enum lnetk_global_attr {
	LNETK_GLOBAL_A_UNSPEC,
	LNETK_GLOBAL_A_NAME,  /* string */
	LNETK_GLOBAL_A_VALUE, /* u32 */
	__LNETK_GLOBAL_A_LAST
};
#define LNETK_GLOBAL_A_MAX (__LNETK_GLOBAL_A_LAST - 1)

#define LNETK_MAX_CPTS 64

enum lnetk_numa_attr {
	LNETK_NUMA_A_UNSPEC,
	LNETK_NUMA_A_NCPT, /* u32, 0..LNETK_MAX_CPTS */
	LNETK_NUMA_A_DIST, /* binary: NCPT * NCPT u32 */
	__LNETK_NUMA_A_LAST
};
#define LNETK_NUMA_A_MAX (__LNETK_NUMA_A_LAST - 1)

enum lnetk_msg_kind {
	LNETK_MSG_PUT,
	LNETK_MSG_GET,
	LNETK_MSG_ACK,
	LNETK_MSG_REPLY,
};

/* Criteria, as engine/select.h's enum lne_crit. */
enum lnetk_crit {
	LNETK_CRIT_CHOSEN,
	LNETK_CRIT_DOWN,
	LNETK_CRIT_UNREACHABLE,
	LNETK_CRIT_OTHER_NET,
	LNETK_CRIT_HEALTH,
	LNETK_CRIT_PEER_HEALTH,
	LNETK_CRIT_DST_NET_PRIO,
	LNETK_CRIT_SRC_NET_PRIO,
	LNETK_CRIT_NI_PRIO,
	LNETK_CRIT_PEER_PRIO,
	LNETK_CRIT_PREFERRED,
	LNETK_CRIT_ROUTE_PRIO,
	LNETK_CRIT_HOPS,
	LNETK_CRIT_NUMA,
	LNETK_CRIT_CREDITS,
	LNETK_CRIT_ROUND_ROBIN,
};

enum lnetk_step {
	LNETK_STEP_LOCAL_NI,
	LNETK_STEP_PEER_NI,
	LNETK_STEP_GATEWAY,
};

enum lnetk_sel_attr {
	LNETK_SEL_A_UNSPEC,
	LNETK_SEL_A_DST,     /* string */
	LNETK_SEL_A_SRC,     /* string */
	LNETK_SEL_A_KIND,    /* u8, enum lnetk_msg_kind */
	LNETK_SEL_A_MD_CPT,  /* s32, -1..63 */
	LNETK_SEL_A_NI,	     /* string, reply */
	LNETK_SEL_A_PEER_NI, /* string, reply */
	LNETK_SEL_A_GATEWAY, /* string, reply */
	LNETK_SEL_A_ENTRY,   /* nest, LNETK_ENTRY_A_*, repeated, reply */
	__LNETK_SEL_A_LAST
};
#define LNETK_SEL_A_MAX (__LNETK_SEL_A_LAST - 1)

enum lnetk_entry_attr {
	LNETK_ENTRY_A_UNSPEC,
	LNETK_ENTRY_A_STEP,    /* u8, enum lnetk_step */
	LNETK_ENTRY_A_NID,     /* string */
	LNETK_ENTRY_A_CRIT,    /* u8, enum lnetk_crit */
	LNETK_ENTRY_A_LOST_AT, /* u8: index of that criterion among the keys */
	LNETK_ENTRY_A_KEY,     /* nest, LNETK_KEY_A_*, repeated */
	__LNETK_ENTRY_A_LAST
};
#define LNETK_ENTRY_A_MAX (__LNETK_ENTRY_A_LAST - 1)

enum lnetk_key_attr {
	LNETK_KEY_A_UNSPEC,
	LNETK_KEY_A_PAD,   /* alignment of 64-bit attributes */
	LNETK_KEY_A_CRIT,  /* u8, enum lnetk_crit */
	LNETK_KEY_A_VALUE, /* s64 */
	LNETK_KEY_A_RULE,  /* s32: idx of the rule behind a priority, -1 */
	__LNETK_KEY_A_LAST
};
#define LNETK_KEY_A_MAX (__LNETK_KEY_A_LAST - 1)

enum lnetk_tbf_queue {
	LNETK_TBF_REG,
	LNETK_TBF_HP,
};

enum lnetk_tbf_attr {
	LNETK_TBF_A_UNSPEC,
	LNETK_TBF_A_SERVICE,	/* string */
	LNETK_TBF_A_QUEUE,	/* u8, enum lnetk_tbf_queue */
	LNETK_TBF_A_TYPE,	/* string: "nid", "jobid+uid", ... */
	LNETK_TBF_A_DEPTH,	/* u32, 1..LNETK_TBF_DEPTH_MAX */
	LNETK_TBF_A_CMD,	/* string: a rule command */
	LNETK_TBF_A_QUEUE_INFO, /* nest, LNETK_TBFQ_A_*, repeated, reply */
	LNETK_TBF_A_PAD,	/* alignment of 64-bit attributes */
	LNETK_TBF_A_LOAD_MS,	/* u32: TBF_LOAD's duration */
	LNETK_TBF_A_LOAD_CLASS, /* nest, LNETK_TBFL_A_*, repeated */
	LNETK_TBF_A_ELAPSED_NS, /* u64, reply: how long the load ran */
	LNETK_TBF_A_CLASS,	/* nest, LNETK_TBFC_A_*, repeated, reply */
	__LNETK_TBF_A_LAST
};
#define LNETK_TBF_A_MAX (__LNETK_TBF_A_LAST - 1)

enum lnetk_tbfq_attr {
	LNETK_TBFQ_A_UNSPEC,
	LNETK_TBFQ_A_PAD,      /* alignment of 64-bit attributes */
	LNETK_TBFQ_A_QUEUE,    /* u8, enum lnetk_tbf_queue */
	LNETK_TBFQ_A_TYPE,     /* string */
	LNETK_TBFQ_A_DEPTH,    /* u32 */
	LNETK_TBFQ_A_NCLASSES, /* u32 */
	LNETK_TBFQ_A_NACTIVE,  /* u32: classes with queued requests */
	LNETK_TBFQ_A_QUEUED,   /* u64: requests */
	LNETK_TBFQ_A_RULE,     /* nest, LNETK_TBFR_A_*, repeated */
	LNETK_TBFQ_A_FIRST,    /* u32: index of the first LNETK_TBFQ_A_RULE here */
	__LNETK_TBFQ_A_LAST
};
#define LNETK_TBFQ_A_MAX (__LNETK_TBFQ_A_LAST - 1)

enum lnetk_tbfr_attr {
	LNETK_TBFR_A_UNSPEC,
	LNETK_TBFR_A_PAD,	 /* alignment of 64-bit attributes */
	LNETK_TBFR_A_NAME,	 /* string */
	LNETK_TBFR_A_TEXT,	 /* string: the command that recreates the rule */
	LNETK_TBFR_A_RATE,	 /* u32, requests per second */
	LNETK_TBFR_A_REALTIME,	 /* u8 */
	LNETK_TBFR_A_NCLASSES,	 /* u32: classes following it */
	LNETK_TBFR_A_QUEUED,	 /* u64 */
	LNETK_TBFR_A_ENQUEUED,	 /* u64 */
	LNETK_TBFR_A_DISPATCHED, /* u64 */
	LNETK_TBFR_A_WAIT_NS,	 /* u64 */
	LNETK_TBFR_A_THROTTLED,	 /* u64 */
	__LNETK_TBFR_A_LAST
};
#define LNETK_TBFR_A_MAX (__LNETK_TBFR_A_LAST - 1)

enum lnetk_tbfl_attr {
	LNETK_TBFL_A_UNSPEC,
	LNETK_TBFL_A_PAD,	 /* alignment of 64-bit attributes */
	LNETK_TBFL_A_NID,	 /* string */
	LNETK_TBFL_A_QUEUE,	 /* u8, enum lnetk_tbf_queue */
	LNETK_TBFL_A_ENQUEUED,	 /* u64, reply */
	LNETK_TBFL_A_DISPATCHED, /* u64, reply */
	__LNETK_TBFL_A_LAST
};
#define LNETK_TBFL_A_MAX (__LNETK_TBFL_A_LAST - 1)

enum lnetk_tbfc_attr {
	LNETK_TBFC_A_UNSPEC,
	LNETK_TBFC_A_PAD,	 /* alignment of 64-bit attributes */
	LNETK_TBFC_A_QUEUE,	 /* u8, enum lnetk_tbf_queue */
	LNETK_TBFC_A_KEY,	 /* string: "nid=10.0.0.1@tcp opcode=ost_write" */
	LNETK_TBFC_A_RULE,	 /* string: the rule it follows ("" while it has none) */
	LNETK_TBFC_A_QUEUED,	 /* u64 */
	LNETK_TBFC_A_ENQUEUED,	 /* u64 */
	LNETK_TBFC_A_DISPATCHED, /* u64 */
	LNETK_TBFC_A_WAIT_NS,	 /* u64 */
	LNETK_TBFC_A_THROTTLED,	 /* u64 */
	__LNETK_TBFC_A_LAST
};
#define LNETK_TBFC_A_MAX (__LNETK_TBFC_A_LAST - 1)

#endif /* _UAPI_LNETK_H */
