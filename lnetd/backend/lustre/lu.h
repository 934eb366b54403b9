/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lu.h - Lustre's own lnet.ko from userspace: the layer the lustre backend
 * stands on (lnetd --engine=lustre).
 *
 * lnet.ko speaks three interfaces, and which ones depends on its version
 * (../shared/lustre/INTERFACES.md): /dev/lnet ioctls (every version; the
 * only one 2.15 has), the generic netlink family "lnet" (2.16 on: nets,
 * peers, routes, configure, ping; routing, buffers and numa from 2.17) and
 * module parameters in /sys/module/lnet/parameters (the globals).  lu_open()
 * finds out what the loaded module speaks, at run time, and each operation
 * below goes the way that version serves it (lu-dispatch.c, the one place
 * that chooses).  UDSP, stats, health and buffers stay on ioctls everywhere.
 *
 * Errors: 0, or a negative errno with @err's sentence saying what lnet.ko
 * (or this library, judging a limit of the version) refused, e.g.
 * "2001:db8::1@tcp: lnet.ko 2.15.8 takes only IPv4 NIDs over /dev/lnet";
 * a negative errno with an empty sentence means lnet.ko could not be
 * reached (the module went away, /dev/lnet or the family vanished).
 *
 * NIDs are the engine's (engine/nid.h).  Listings have no limit: peers are
 * fetched one by one over ioctl and in filtered batches over netlink, so
 * 50,000 read as one do.  Nothing here keeps state between calls but the
 * open descriptor and socket; a struct lu is used by one thread at a time,
 * except lu_ping() and lu_discover(), which open their own descriptor and
 * may run in another thread (lnet.ko blocks them until the answer).
 */
#ifndef LU_H
#define LU_H

#include "engine/model.h"
#include "engine/udsp.h"

struct lu;

/* What lu_open() found. */
struct lu_info {
	char version[32];	/* /sys/module/lnet/version: "0.7.0" in 2.15 and 2.16 */
	char release[32];	/* "2.15", "2.16" (all they tell), or "2.17.57" */
	u32 vcode;		/* the release, LU_VCODE(2, 15, 0) */
	bool dev;		/* /dev/lnet opened */
	bool genl;		/* the genl family "lnet" is registered */
	u16 genl_id;		/* its id */
	u32 genl_version;	/* its version (5 so far: not a negotiation) */
	u32 genl_ops;		/* bit n: command n (LU_CMD_*) has an op */
	u32 params;		/* bit per enum lu_param: the sysfs file exists */
	u32 tun_lnd;		/* bytes of the LND tunables union it reads */
	bool stats_resends;	/* its stats carry the two resend counters (2.17) */
	bool route_sensitivity; /* it keeps a route's sensitivity (ioctl, to 2.16) */
	/* peers the last lu_peer_each() counted but could not name (IPv6 primaries) */
	u32 peers_unnamed;
};

#define LU_VCODE(a, b, c) ((u32)(a) << 16 | (u32)(b) << 8 | (u32)(c))

/* The genl family's commands (its own numbers). */
enum lu_cmd {
	LU_CMD_CONFIGURE = 1,
	LU_CMD_NETS = 2,
	LU_CMD_PEERS = 3,
	LU_CMD_ROUTES = 4,
	LU_CMD_PING = 6,
	LU_CMD_ROUTING = 13,
	LU_CMD_BUFFERS = 14,
	LU_CMD_NUMA = 15,
	LU_CMD_STATS = 16,
};

/* lnet.ko's module parameters this library reads or writes. */
enum lu_param {
	LU_P_DISCOVERY_DISABLED,
	LU_P_INTERFACES_MAX,
	LU_P_DROP_ASYM_ROUTE,
	LU_P_RETRY_COUNT,
	LU_P_TRANSACTION_TIMEOUT,
	LU_P_HEALTH_SENSITIVITY,
	LU_P_RECOVERY_INTERVAL,
	LU_P_ROUTER_SENSITIVITY,
	LU_P_RESPONSE_TRACKING,
	LU_P_RECOVERY_LIMIT,
	LU_P_MAX_RECOVERY_PING_INTERVAL,
	LU_P_NUMA_RANGE,
	LU_P_TINY_BUFFERS,
	LU_P_SMALL_BUFFERS,
	LU_P_LARGE_BUFFERS,
	LU_P__COUNT
};

/*
 * Open lnet.ko: -ENOENT with "lnet.ko is not loaded" when it is not.
 * @root: NULL for "/", else a tree standing for it (sys/module/lnet/...,
 * dev/lnet): tests.  The genl family is looked up in the caller's network
 * namespace (lnet.ko registers it in the initial one only).
 */
int lu_open(struct lu **lu, const char *root, struct lne_err *err);
void lu_close(struct lu *lu);
const struct lu_info *lu_info(const struct lu *lu);
/* Use /dev/lnet even where the genl family serves an object (tests, benchmarks). */
void lu_set_ioctl_only(struct lu *lu, bool ioctl_only);
/* Whether @cmd's objects go over generic netlink (then IPv6 NIDs are possible). */
bool lu_uses_genl(const struct lu *lu, enum lu_cmd cmd);
/* The release, for sentences: "lnet.ko 2.15 refused ...". */
const char *lu_vname(const struct lu *lu);

/* --- lifecycle -------------------------------------------------------- */
/*
 * Bring LNet up without the module parameters' nets (lnetd adds its own);
 * already up is success.  lu_unconfigure() answers -EBUSY, with a sentence,
 * while Lustre holds LNet: it then stays up, which is not an error to fight.
 */
int lu_configure(struct lu *lu, struct lne_err *err);
int lu_unconfigure(struct lu *lu, struct lne_err *err);
/* 1 when LNet is up (configured), 0 when not; or a negative errno. */
int lu_running(struct lu *lu);

/* --- NIs ---------------------------------------------------------------- */
struct lu_ni {
	struct lne_nid nid; /* adding: the net counts; the address comes from the interface */
	char ifname[LNE_IFNAME_MAX];
	u64 cpts;    /* bit per CPT; 0 = every CPT */
	s16 dev_cpt; /* read: the device's CPT, -1 unknown */
	bool up;     /* read: its status */
	struct lne_tunables tun;
	u32 send, recv, drop; /* read: its message counts */
};

int lu_ni_add(struct lu *lu, const struct lu_ni *ni, struct lne_err *err);
/* One NI; with an address of 0 (e.g. 0.0.0.0@tcp1) the whole net. */
int lu_ni_del(struct lu *lu, const struct lne_nid *nid, struct lne_err *err);
/* Every NI but 0@lo (lnet.ko's own), into a malloc()ed array. */
int lu_ni_list(struct lu *lu, struct lu_ni **nis, size_t *n, struct lne_err *err);

/*
 * What lnet.ko keeps of a local NI or peer NI while it runs (net show -v,
 * peer show -v): its own status, health and counters, never the store's.
 * Read over /dev/lnet on every version (GET_LOCAL_NI, GET_NI_MSG_STATS and
 * GET_NI_HSTATS for an NI; GET_PEER_NI's bulk for a peer NI), as upstream's
 * lnetctl does on 2.15 and as its fallback: nid4 only.
 */
struct lu_msg_counts {
	u32 get, put, reply, ack;
};
struct lu_nid_state {
	struct lne_nid nid;
	char ifname[LNE_IFNAME_MAX];  /* an NI: its interface */
	bool up;		      /* an NI: its status is up */
	u8 state;		      /* a peer NI: enum lne_pni_state, lnet.ko's aliveness */
	s32 health;		      /* 0 to 1000 */
	s32 fatal;		      /* an NI: its fatal error flag (the link's) */
	u32 send, recv, drop;	      /* messages */
	struct lu_msg_counts msgs[3]; /* sent, received, dropped by type */
	/* an NI: interrupts, dropped, aborted, no route, timeouts, error;
	 * a peer NI: dropped, timeout, error, network timeout (and 0, 0) */
	u32 hs[6];
	u32 ping_count;
	u64 next_ping;			  /* lnet.ko's clock, seconds */
	s32 rtr_credits, min_rtr_credits; /* a peer NI */
};
/* Every NI's (0@lo's too, first), into a malloc()ed array. */
int lu_ni_states(struct lu *lu, struct lu_nid_state **out, size_t *n, struct lne_err *err);

/* --- peers ------------------------------------------------------------- */
struct lu_peer {
	struct lne_nid primary;
	bool mr;
	bool configured;  /* added by a configuration (LNET_PEER_CONFIGURED) */
	bool lock_prim;	  /* its primary NID is locked */
	bool state_known; /* the three above and state came from lnet.ko (lu_peer_get) */
	u32 state;	  /* lnet.ko's state bits, as it gives them */
	size_t n;	  /* NIDs, the primary among them, in lnet.ko's order */
	struct lne_nid *nids;
	struct lu_nid_state *st; /* each NID's running state (over /dev/lnet), else NULL */
};

/*
 * Add the peer if it is absent (with @mr, and @lock_prim), then each of
 * @nids that is not its primary.  Stops at the first refusal.
 */
int lu_peer_add(struct lu *lu, const struct lne_nid *primary, bool mr, bool lock_prim,
		const struct lne_nid *nids, size_t n, struct lne_err *err);
/* n == 0: the whole peer (forced, so a locked primary goes too); else those NIDs. */
int lu_peer_del(struct lu *lu, const struct lne_nid *primary, const struct lne_nid *nids, size_t n,
		struct lne_err *err);
/*
 * Every peer lnet.ko has (discovered ones included: see .configured), to
 * @fn, which may stop the walk with a nonzero return (returned).  The peer
 * is valid only during the call.  Over /dev/lnet, which has no limit but
 * names nid4 primaries only: a peer whose primary NID is IPv6 is counted
 * in lu_info()->peers_unnamed; lu_peer_get_many() reads those by their
 * primaries (lnet.ko's netlink peer dump cannot list them all safely).
 */
int lu_peer_each(struct lu *lu, int (*fn)(const struct lu_peer *p, void *arg), void *arg,
		 struct lne_err *err);
/*
 * The peers whose primary NIDs are @prims (the ones lnetd owns), to @fn,
 * which may stop with a nonzero return; the ones lnet.ko lacks are left
 * out.  nid4 primaries over /dev/lnet (one request each), IPv6 ones over
 * netlink one peer per dump (2.16 on: lu-nl-ops.c says why never more).
 */
int lu_peer_get_many(struct lu *lu, const struct lne_nid *prims, size_t n,
		     int (*fn)(const struct lu_peer *p, void *arg), void *arg, struct lne_err *err);
/* One peer, by any of its NIDs: -ENOENT when lnet.ko has none.  Free with lu_peer_free(). */
int lu_peer_get(struct lu *lu, const struct lne_nid *nid, struct lu_peer *p, struct lne_err *err);
void lu_peer_free(struct lu_peer *p);

/* --- routes and routing ------------------------------------------------- */
struct lu_route {
	lne_net_t net;
	struct lne_nid gw;
	u32 hops; /* LU_HOPS_NONE: not given */
	u32 priority;
	/*
	 * The gateway's (lnet.ko keeps one per gateway peer, the last route's);
	 * 2.17 keeps none (and its netlink never did): then it reads as 1, the
	 * default, and anything else is refused.
	 */
	u32 sensitivity;
	bool alive; /* read */
};
#define LU_HOPS_NONE 0xffffffffu

int lu_route_add(struct lu *lu, const struct lu_route *r, struct lne_err *err);
int lu_route_del(struct lu *lu, lne_net_t net, const struct lne_nid *gw, struct lne_err *err);
int lu_route_list(struct lu *lu, struct lu_route **routes, size_t *n, struct lne_err *err);

struct lu_routing {
	bool enabled;
	u32 conf[3];	/* tiny, small, large as configured (0: lnet.ko's default) */
	u32 buffers[3]; /* buffers in the pools, summed over CPTs (0: no pools) */
};
int lu_routing_get(struct lu *lu, struct lu_routing *r, struct lne_err *err);
int lu_routing_set(struct lu *lu, bool enable, struct lne_err *err);
/* Each pool's size in buffers for the whole node; -1 leaves one as it is. */
int lu_buffers_set(struct lu *lu, s32 tiny, s32 small, s32 large, struct lne_err *err);

/* --- UDSP rules ----------------------------------------------------------- */
/* A rule as lnet.ko holds it, its expressions in the engine's grammar. */
struct lu_rule {
	u32 idx;
	char src[1024], dst[1024], rte[1024]; /* "" when absent */
	u32 prio;			      /* LNE_PRIO_NONE when it has none */
};

/*
 * Add an engine rule at @idx (< 0: at the end).  lnet.ko holds one NID
 * pattern per side, IPv4 or numeric, and no priority on a NID pair or router
 * rule: anything else is refused with a sentence naming the limit.
 */
int lu_rule_add(struct lu *lu, const struct lne_rule *r, s64 idx, struct lne_err *err);
/* @idx < 0: every rule. */
int lu_rule_del(struct lu *lu, s32 idx, struct lne_err *err);
int lu_rule_list(struct lu *lu, struct lu_rule **rules, size_t *n, struct lne_err *err);
/* What the rules made of a NI (@peer false) or peer NI: priorities and preferred NIDs. */
struct lu_udsp_info {
	u32 nid_prio, net_prio;
	u32 npref, nrtr;
	struct lne_nid pref[128], rtr[128];
};
int lu_udsp_info(struct lu *lu, const struct lne_nid *nid, bool peer, struct lu_udsp_info *info,
		 struct lne_err *err);

/* --- globals ------------------------------------------------------------ */
/*
 * The engine's globals (engine/model.h, LNE_G_*) as lnet.ko holds them:
 * module parameters, numa_range over ioctl, routing and buffers as above.
 * -EOPNOTSUPP with a sentence for one this version lacks, or a value it
 * cannot hold (discovery 2, which is lnetd's own "verify only").
 */
int lu_global_get(struct lu *lu, enum lne_global g, u32 *value, struct lne_err *err);
int lu_global_set(struct lu *lu, enum lne_global g, u32 value, struct lne_err *err);
/* Whether this lnet.ko has @g at all (a sysfs file, or an ioctl every version has). */
bool lu_global_held(const struct lu *lu, enum lne_global g);
/* The LND's own timeout (ksocklnd's sock_timeout, ko2iblnd's timeout): 0 = derived. */
int lu_lnd_timeout_get(struct lu *lu, unsigned int lnd, u32 *value, struct lne_err *err);
int lu_lnd_timeout_set(struct lu *lu, unsigned int lnd, u32 value, struct lne_err *err);

/* --- counters, health, ping --------------------------------------------- */
struct lu_stats {
	u32 msgs_alloc, msgs_max, errors;
	u32 send_count, recv_count, route_count, drop_count;
	u64 send_length, recv_length, route_length, drop_length;
	u32 health[15]; /* lnet.ko's order; the last two from 2.17 only */
};
int lu_stats(struct lu *lu, struct lu_stats *st, struct lne_err *err);
int lu_stats_reset(struct lu *lu, struct lne_err *err);
/* Set the health of a local NI (@peer false) or peer NI; @nid NULL: all of them. */
int lu_health_set(struct lu *lu, bool peer, const struct lne_nid *nid, s32 value,
		  struct lne_err *err);
/* conns_per_peer of a local NI, @nid NULL: every NI. */
int lu_conns_per_peer_set(struct lu *lu, const struct lne_nid *nid, u32 value, struct lne_err *err);

struct lu_ping_reply {
	struct lne_nid primary; /* the peer's primary NID, as lnet.ko has it */
	bool mr;
	size_t n;
	struct lne_nid nids[64]; /* the NIDs it answered with (at most 64 kept) */
};
/*
 * Ping @nid (@src NULL: any local NI) waiting up to @timeout_ms; discover
 * @nid (@force: again).  Both block in lnet.ko, on a descriptor of their own.
 */
int lu_ping(struct lu *lu, const struct lne_nid *nid, u32 timeout_ms, const struct lne_nid *src,
	    struct lu_ping_reply *reply, struct lne_err *err);
int lu_discover(struct lu *lu, const struct lne_nid *nid, bool force, struct lu_ping_reply *reply,
		struct lne_err *err);

/* --- the engine's view ---------------------------------------------------- */
/*
 * Fill @into (a fresh instance) with what lnet.ko holds that lnetd owns:
 * its NIs with their tunables, CPTs and interfaces; the peers added by a
 * configuration (LNET_PEER_CONFIGURED), not those discovery or traffic
 * made; the routes; the UDSP rules in lnet.ko's order; every global it has.
 */
int lu_read(struct lu *lu, struct lne_inst *into, struct lne_err *err);

/*
 * The drift poll's cheaper read.  lnet.ko's peer list (GET_PEER_LIST: one
 * request for every primary NID) is cheap; each peer's NIDs and state cost
 * a request per peer (GET_PEER_NI).  lu_read_since() reads the list whole
 * and looks into a peer only when its list entry is new since @memo's
 * read, or lnetd's copy @prev lacks it, or the rolling re-read reaches it
 * (1/LU_MEMO_PASS of the list a read, at least LU_MEMO_SLICE peers: every
 * peer is looked into again within LU_MEMO_PASS reads, which finds a NID
 * added to or deleted from a peer whose primary stayed); the others are
 * taken from @prev as they were.  @prev NULL: a full read (lu_read()'s).
 * @memo (zeroed at first; lu_memo_free()) is what the next read compares.
 */
#define LU_MEMO_PASS  16
#define LU_MEMO_SLICE 512
struct lu_memo {
	struct lu_memo_peer {
		u64 nid4;
		bool configured; /* lnetd's kind: LNET_PEER_CONFIGURED */
	} * v;			 /* by nid4 */
	size_t n;
	size_t cursor;		/* the rolling re-read's next place in the list */
	size_t listed, fetched; /* the last read: peers listed, peers read one by one */
};
int lu_read_since(struct lu *lu, struct lne_inst *into, const struct lne_inst *prev,
		  struct lu_memo *memo, struct lne_err *err);
void lu_memo_free(struct lu_memo *memo);

#endif /* LU_H */
