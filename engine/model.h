/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - the LNet object model: one instance holds the local nets and
 * their NIs, the peers with their peer nets and peer NIs, the routes, the
 * globals and the NUMA distance table, and the UDSP rules (rule.h) that
 * udsp.h flattens onto all of them.
 *
 *   lne_inst ── nets ── lne_net ── nis ── lne_ni            (local side)
 *            ├─ peers ─ lne_peer ── pnets ── lne_peer_net ── pnis ── lne_peer_ni
 *            ├─ rnets ─ lne_rnet: a net seen as a destination; indexes the
 *            │          peer NIs and routes on it, holds its peer-net priority
 *            └─ routes ─ lne_route (remote net, gateway peer NI, hops, priority)
 *
 * Rules of the model (the Multi-Rail design):
 *  - a local net exists while it has an NI: the first NI creates it, the
 *    last one's removal removes it;
 *  - a NID belongs to at most one peer; peers are found by any of their NIDs
 *    through a hash table (O(1)); removing a peer's last NID removes it;
 *  - a route's gateway is a peer: adding a route creates it (as an implicit,
 *    non-Multi-Rail peer) when no peer has the NID yet; it goes with the last
 *    route that needed it;
 *  - every mutation bumps the instance generation, which dumps use to tell
 *    whether a saved cursor is still good.
 *
 * The engine does no locking: the caller serialises mutations, and keeps
 * selection (select.h) away from them (the module: a mutex and RCU or a
 * rwlock; lnetd: its single event loop).  Selection does not allocate.
 */
#ifndef LNE_MODEL_H
#define LNE_MODEL_H

#include "error.h"
#include "list.h"
#include "nid.h"
#include "peer-attrs.h"
#include "port.h"
#include "route-attrs.h"
#include "rule.h"
#include "tunables.h"

#define LNE_HEALTH_MAX 1000
#define LNE_PRIO_NONE  0xffffffffu /* no rule set it: the lowest priority */
#define LNE_PRIO_MAX   0xfffffffeu /* highest value a rule may give */
#define LNE_CPT_ANY    (-1)
#define LNE_MAX_CPTS   64
#define LNE_IFNAME_MAX 16  /* IFNAMSIZ */
#define LNE_NI_HASH    256 /* buckets for local NIs: a node has few */

/* A priority on a construct and the rule that decided it (NULL: none). */
struct lne_prio {
	u32 value;
	const struct lne_rule *rule;
};

struct lne_net {
	struct lne_list link; /* in inst->nets, by the id of its first NI */
	lne_net_t id;
	struct lne_list nis;
	u32 nni;
	struct lne_prio prio;  /* UDSP: local net priority (--src <net>) */
	struct lne_rnet *rnet; /* the same net as a destination */
};

struct lne_ni {
	struct lne_ni *hnext;	  /* inst->ni_htab chain */
	struct lne_list link;	  /* in net->nis, by id */
	struct lne_list all_link; /* in inst->nis, by id */
	struct lne_net *net;
	u64 id; /* its place (lne_ni_conf.order), unique: the order of the lists and the dump cursor */
	struct lne_nid nid;
	char ifname[LNE_IFNAME_MAX];
	u64 cpts;	      /* CPTs it serves (bit per CPT); 0 = all */
	s16 dev_cpt;	      /* CPT of the device's NUMA node, LNE_CPT_ANY if unknown */
	bool up;	      /* link state: a down NI is never selected */
	bool set_down;	      /* health set to 0 (net set --health 0): its ping info says down */
	s32 health;	      /* 0..LNE_HEALTH_MAX, higher is healthier */
	s32 credits;	      /* tx credits; negative means messages are queued */
	u32 seq;	      /* when last chosen (inst->clock) */
	struct lne_prio prio; /* UDSP: local NID priority (--src <nid>) */
	struct lne_tunables tun;
};

struct lne_rnet {
	struct lne_list link; /* in inst->rnets */
	lne_net_t id;
	struct lne_prio prio;	/* UDSP: peer net priority (--dst <net>) */
	struct lne_list pnis;	/* every peer NI on this net: rules walk this */
	u32 npni;		/* how many: a rule naming fewer NIDs looks them up */
	struct lne_list routes; /* routes to this net */
	struct lne_net *local;	/* the local net, while it has NIs */
	u32 refs;		/* peer nets + routes + a local net */
};

struct lne_peer;

struct lne_peer_net {
	struct lne_list link; /* in peer->pnets */
	struct lne_peer *peer;
	struct lne_rnet *rnet;
	struct lne_list pnis;
	u32 npni;
};

/* A preferred local NI (NID pair rule) or gateway (router rule). */
struct lne_pref {
	const void *target; /* struct lne_ni * or gateway struct lne_peer_ni * */
	const struct lne_rule *rule;
};

struct lne_prefs {
	struct lne_pref *src, *gw;
	u16 nsrc, ngw, cap_src, cap_gw;
};

struct lne_peer_ni {
	struct lne_peer_ni *hnext; /* NID hash chain */
	struct lne_list pnet_link; /* in pnet->pnis */
	struct lne_list rnet_link; /* in rnet->pnis */
	struct lne_peer_net *pnet;
	struct lne_prefs *prefs; /* NULL until a pair/router rule applies */
	const struct lne_rule *prio_rule;
	struct lne_nid nid;
	u32 prio; /* UDSP: peer NID priority (--dst <nid>) */
	s32 health;
	s32 credits;
	u32 seq;
	u32 gw_refs;	 /* routes using this NID as their gateway */
	bool discovered; /* learnt by discovery (node-disc.c), not configured */
	/*
	 * Its node said it is down (the NI's status in its ping or push), until
	 * a message from it (upstream's lpni_ns_status): runtime, never stored.
	 */
	bool ns_down;
};

struct lne_peer {
	struct lne_list link; /* in inst->peers, creation order */
	struct lne_nid primary;
	bool mr;       /* Multi-Rail; false keeps one source NI */
	bool implicit; /* created for a route's gateway */
	struct lne_list pnets;
	u32 npni;
	struct lne_ni *nmr_src; /* non-Multi-Rail: the source NI it keeps */
	u64 id;			/* creation number: the dump cursor */
	/*
	 * Discovery (node-disc.c): runtime state, never persisted.  A peer
	 * discovery created is `discovered`; a configured one never is, and
	 * discovery neither deletes it nor any NID it was configured with.
	 */
	bool discovered;
	u8 disc;	  /* LNE_DISC_* */
	u32 disc_our_seq; /* our ping sequence the peer has (LNE_DISC_TOLD) */
	u32 disc_seq;	  /* the peer's sequence its data last merged had */
	u64 disc_inc;	  /* the incarnation that data came from */
	/*
	 * The primary NID's peer NI and peer net, which live exactly as long
	 * as the peer (the primary NID is never removed on its own): a peer is
	 * one allocation instead of three.  A restore makes 50,000 peers, and
	 * in the module each new object can cost as much as adding the NID.
	 */
	struct lne_peer_net first_pnet;
	struct lne_peer_ni first_pni;
};

/* lne_peer.disc: the state of the seed's discovery machine. */
#define LNE_DISC_MERGED	 0x01 /* P: the peer's data merged */
#define LNE_DISC_MR	 0x02 /* M: the data said Multi-Rail */
#define LNE_DISC_TOLD	 0x04 /* L: the peer has our NIDs as of disc_our_seq */
#define LNE_DISC_PINGING 0x08 /* R: a ping on its way */
#define LNE_DISC_PUSHING 0x10 /* A: a push waiting for its ACK */
#define LNE_DISC_DONE	 0x20 /* discovered once: sends to it never wait again */

struct lne_route {
	u64 id;			   /* creation number: the dump cursor */
	struct lne_list link;	   /* in inst->routes, creation order */
	struct lne_list rnet_link; /* in rnet->routes */
	struct lne_rnet *rnet;	   /* the remote net */
	struct lne_peer_ni *gw;
	LNE_ROUTE_FIELDS(u32); /* .hops, .priority, .sensitivity, or .v[] (route-attrs.h) */
	u32 seq;
	bool down; /* runtime: the node's router checker found it down (node-gw.c); not used */
};

/* In the order Lustre's `lnetctl global show` and export print them. */
enum lne_global {
	LNE_G_NUMA_RANGE,
	LNE_G_MAX_INTERFACES,
	LNE_G_DISCOVERY,
	LNE_G_DROP_ASYM_ROUTE,
	LNE_G_RETRY_COUNT,
	LNE_G_TRANSACTION_TIMEOUT,
	LNE_G_HEALTH_SENSITIVITY,
	LNE_G_RECOVERY_INTERVAL,
	LNE_G_ROUTER_SENSITIVITY,
	LNE_G_RESPONSE_TRACKING,
	LNE_G_RECOVERY_LIMIT,
	LNE_G_MAX_RECOVERY_PING_INTERVAL,
	/* Lustre's routing: and buffers: (lnetctl set routing / tiny_buffers ...) */
	LNE_G_ROUTING,
	LNE_G_TINY_BUFFERS,
	LNE_G_SMALL_BUFFERS,
	LNE_G_LARGE_BUFFERS,
	LNE_G__COUNT
};

/* One global setting, described once: every layer takes it from here. */
struct lne_global_info {
	const char *name; /* Lustre's name, as `lnetctl global show` prints it */
	u32 def, min, max;
	const char *help;
	const char *yaml; /* Lustre's key in its section (older: max_intf) */
	/* Lustre's section: NULL for global: (and `global show`), or routing: / buffers: */
	const char *section;
};

/*
 * Objects of one size carved from chunks the instance owns (model.c): a
 * restore makes 50,000 peers and as many more peer NIs, and in the module
 * every object from a fresh slab costs about as much as the work around
 * it.  Freed objects are kept for reuse; the chunks go with the instance.
 */
struct lne_pool {
	void *free;	  /* freed objects, each holding the next in its first bytes */
	void *chunks;	  /* every chunk, each holding the next in its first bytes */
	char *next, *end; /* the newest chunk's unused part */
	u32 chunk;	  /* the size of the next chunk (model.c) */
};

struct lne_inst {
	u64 gen;
	u64 next_id;
	struct lne_list nets, nis, rnets, peers, routes;
	struct lne_peer_ni **htab;
	struct lne_ni *ni_htab[LNE_NI_HASH]; /* local NIs by NID: every peer NID is checked */
	u32 hmask, npni, nni, nroute;
	u32 globals[LNE_G__COUNT];
	u16 ncpt;
	u32 *numa_dist;	   /* ncpt * ncpt; NULL: no table, every distance equal */
	lne_clock_t clock; /* counts selections; objects keep when they were last chosen */
	u32 numa_max;
	struct lne_udsp udsp;
	struct lne_pool peer_pool, pni_pool;
};

struct lne_inst *lne_inst_new(void);
void lne_inst_free(struct lne_inst *ln);
/*
 * A new instance with the same configuration and health as @src (not its
 * round-robin state), and the same flattening, preference lists in the
 * same order: changes are tried on a copy, which replaces the original
 * only if they all succeed.  NULL on -ENOMEM.
 */
struct lne_inst *lne_inst_copy(const struct lne_inst *src);
/*
 * Room in the NID hash for @more peer NIDs besides those there now, made at
 * once: a batch that brings 100,000 NIDs would otherwise double the table
 * ten times, hashing every NID in it again each time.  Only speed depends
 * on it (the table grows as needed anyway), so a failure is not reported.
 */
void lne_inst_reserve(struct lne_inst *ln, u32 more);

static inline u64 lne_generation(const struct lne_inst *ln)
{
	return ln->gen;
}

/* --- local NIs ---------------------------------------------------------- */

struct lne_ni_conf {
	struct lne_nid nid;
	const char *ifname;		/* may be NULL */
	u64 cpts;			/* 0 = all */
	s16 dev_cpt;			/* LNE_CPT_ANY if unknown */
	const struct lne_tunables *tun; /* NULL = the LND's defaults */
	/*
	 * Where the NI goes among the others (its id): lower first; 0 = after
	 * every NI.  Ping info lists NIDs in this order, and a peer discovering
	 * the node takes the first as its primary NID, so lnetd gives each NI
	 * the place it was first configured in, kept when it is changed by a
	 * delete and an add.  Two NIs cannot have one place.
	 */
	u64 order;
};
#define LNE_NI_PLACE_AUTO (1ull << 63) /* the places of NIs given none start here */

int lne_ni_add(struct lne_inst *ln, const struct lne_ni_conf *conf, struct lne_err *err);
int lne_ni_del(struct lne_inst *ln, const struct lne_nid *nid, struct lne_err *err);
/* Remove every NI of @net (and so the net). */
int lne_net_del(struct lne_inst *ln, lne_net_t net, struct lne_err *err);
struct lne_ni *lne_ni_find(const struct lne_inst *ln, const struct lne_nid *nid);
struct lne_net *lne_net_find(const struct lne_inst *ln, lne_net_t net);
int lne_ni_set_health(struct lne_inst *ln, const struct lne_nid *nid, s32 health,
		      struct lne_err *err);
int lne_ni_set_up(struct lne_inst *ln, const struct lne_nid *nid, bool up, struct lne_err *err);
int lne_ni_set_credits(struct lne_inst *ln, const struct lne_nid *nid, s32 credits,
		       struct lne_err *err);

/* --- peers ------------------------------------------------------------- */

/*
 * A peer to create: its primary NID and its settings (peer-attrs.h; the
 * model keeps those whose row says engine, multi_rail; the others are for
 * the engine that runs LNet, lnetd keeps them in its store).
 */
struct lne_peer_conf {
	struct lne_nid primary;
	LNE_PEER_FIELDS(u32);
};
/* Create a peer with its primary NID (-EEXIST naming the owner if taken). */
int lne_peer_add(struct lne_inst *ln, const struct lne_peer_conf *conf, struct lne_err *err);
/* Add @nid to the peer whose primary NID is @primary. */
int lne_peer_add_nid(struct lne_inst *ln, const struct lne_nid *primary, const struct lne_nid *nid,
		     struct lne_err *err);

/* What lne_peer_get() did. */
enum lne_peer_got {
	LNE_PEER_FOUND,	  /* an explicit peer had @primary: left as it was */
	LNE_PEER_MADE,	  /* no NID was @primary: a new peer */
	LNE_PEER_ADOPTED, /* a route's implicit gateway: now explicit, with @mr */
};

/*
 * The peer whose primary NID is @primary, for a caller that goes on to add
 * its NIDs (the module's PEER_ADD and BATCH): one lookup where
 * lne_peer_find(), lne_peer_add() and lne_peer_add_nid() make one each.
 * Refuses as lne_peer_add() does a NID that is local or another peer's;
 * an explicit peer is not refused but found.
 */
int lne_peer_get(struct lne_inst *ln, const struct lne_nid *primary, bool mr,
		 struct lne_peer **peer, enum lne_peer_got *got, struct lne_err *err);
/* lne_peer_add_nid() for a peer in hand (from lne_peer_get()). */
int lne_peer_add_nid_to(struct lne_inst *ln, struct lne_peer *peer, const struct lne_nid *nid,
			struct lne_err *err);
int lne_peer_del(struct lne_inst *ln, const struct lne_nid *primary, struct lne_err *err);
/* Remove one NID; the last one takes the peer with it. */
int lne_peer_del_nid(struct lne_inst *ln, const struct lne_nid *primary, const struct lne_nid *nid,
		     struct lne_err *err);
struct lne_peer_ni *lne_peer_ni_find(const struct lne_inst *ln, const struct lne_nid *nid);
static inline struct lne_peer *lne_peer_of(const struct lne_peer_ni *pni)
{
	return pni->pnet->peer;
}
struct lne_peer *lne_peer_find(const struct lne_inst *ln, const struct lne_nid *primary);
/*
 * A peer NI's state as `peer show` prints it: up or down (its node's word,
 * or a message from it since) where this node watches its peers'
 * aliveness, as upstream does: the peer is a gateway, or the node routes
 * and the NI's net has a peer_timeout; NA elsewhere.  The values are the
 * module's enum lnetk_ni_status too.
 */
enum lne_pni_state {
	LNE_PNI_NA,
	LNE_PNI_UP,
	LNE_PNI_DOWN,
};
enum lne_pni_state lne_peer_ni_state(const struct lne_inst *ln, const struct lne_peer_ni *pni);
static inline const char *lne_pni_state_name(enum lne_pni_state s)
{
	return s == LNE_PNI_UP ? "up" : s == LNE_PNI_DOWN ? "down" : "NA";
}
/*
 * A local NI as its ping info tells peers: its link up, and its health not
 * set to 0 by hand (upstream's ni_status; health falling to 0 on its own
 * leaves it up, as recovery is under way).
 */
static inline bool lne_ni_reported_up(const struct lne_ni *ni)
{
	return ni->up && !ni->set_down;
}
/* A copy of the instance keeps what discovery knows of each peer. */
static inline void lne_peer_copy_disc(struct lne_peer *to, const struct lne_peer *from)
{
	to->discovered = from->discovered;
	to->disc = from->disc;
	to->disc_our_seq = from->disc_our_seq;
	to->disc_seq = from->disc_seq;
	to->disc_inc = from->disc_inc;
}
int lne_peer_ni_set_health(struct lne_inst *ln, const struct lne_nid *nid, s32 health,
			   struct lne_err *err);
int lne_peer_ni_set_credits(struct lne_inst *ln, const struct lne_nid *nid, s32 credits,
			    struct lne_err *err);

/* --- routes ------------------------------------------------------------ */

#define LNE_HOPS_DEFAULT 1
#define LNE_HOPS_MAX	 255

/* A route with its settings, indexed by enum lne_route_attr (route-attrs.h). */
int lne_route_add_v(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw,
		    const u32 v[LNE_ROUTE_A__COUNT], struct lne_err *err);
/* The same with the settings spelled out; any others take their defaults. */
int lne_route_add(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw, u32 hops,
		  u32 priority, u32 sensitivity, struct lne_err *err);
/* Each setting's default (route-attrs.h), into @v. */
void lne_route_defaults(u32 v[LNE_ROUTE_A__COUNT]);
int lne_route_del(struct lne_inst *ln, lne_net_t net, const struct lne_nid *gw,
		  struct lne_err *err);
struct lne_route *lne_route_find(const struct lne_inst *ln, lne_net_t net,
				 const struct lne_nid *gw);
struct lne_rnet *lne_rnet_find(const struct lne_inst *ln, lne_net_t net);

/* --- globals and NUMA ---------------------------------------------------- */

const struct lne_global_info *lne_global_info(enum lne_global g);
/* The global called @name, or -ENOENT. */
int lne_global_lookup(const char *name);
int lne_global_set(struct lne_inst *ln, enum lne_global g, u32 value, struct lne_err *err);
static inline u32 lne_global_get(const struct lne_inst *ln, enum lne_global g)
{
	return ln->globals[g];
}

/*
 * The CPT-to-CPT distance table, @ncpt * @ncpt entries, row-major; the
 * host fills it (the module from node_distance(), lnetd from sysfs).
 * ncpt 0 removes it: every distance is then equal.
 */
int lne_numa_set(struct lne_inst *ln, u16 ncpt, const u32 *dist, struct lne_err *err);
/* Distance between two CPTs; LNE_CPT_ANY on either side is the worst. */
u32 lne_numa_distance(const struct lne_inst *ln, s32 a, s32 b);

/* --- dumps ----------------------------------------------------------------
 * Lists are walked with a cursor that survives between calls (the module's
 * netlink dumps keep it in cb->args).  While the generation is unchanged
 * the cursor resumes in O(1); after a change it resumes after the last
 * object it returned, by key, so a dump never repeats or skips an object
 * that stayed, and the caller flags the dump as inconsistent.
 */
struct lne_cursor {
	u64 gen;
	u64 key;    /* the last object's id (rules: its idx + 1) */
	void *next; /* valid only while gen is unchanged */
	bool started;
};

struct lne_peer *lne_peer_next(const struct lne_inst *ln, struct lne_cursor *c);
struct lne_ni *lne_ni_next(const struct lne_inst *ln, struct lne_cursor *c);
struct lne_route *lne_route_next(const struct lne_inst *ln, struct lne_cursor *c);
struct lne_rule *lne_rule_next(const struct lne_inst *ln, struct lne_cursor *c);

/* Internal to the engine: bump the generation after a change. */
static inline void lne_changed(struct lne_inst *ln)
{
	ln->gen++;
}

#endif /* LNE_MODEL_H */
