/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - lnetd's desired configuration and its history, in one SQLite file.
 *
 * SQLite is the truth: the store keeps what the admin asked for (NIs, peers,
 * routes, globals, UDSP rules), and lnetd reconciles the kernel to it.  The
 * schema is in schema/NNNN-*.sql.  Objects are canonical text (NIDs, nets,
 * expressions) that lnetd validated with the engine; the store checks only
 * what SQL can (non-empty text, ranges, uniqueness).
 *
 * Functions return 0 or a negative errno.  Those that change or look up one
 * object also fill @err (which may be NULL) with a sentence naming it:
 * "peer 10.0.0.1@tcp exists already", "NID 10.0.0.2@tcp belongs to peer
 * 10.0.0.1@tcp", "route to tcp1 via 10.0.0.9@tcp: hops must be 1 to 255".
 * -EEXIST: taken; -ENOENT: no such object; -EINVAL: a value SQL refuses.
 *
 * Changes happen only between store_begin() and store_commit(): each change
 * function records what it did, with the previous values, and store_commit()
 * writes that as one history entry (one generation) with who asked.  A
 * refused change leaves nothing behind, the transaction stays usable.
 * store_rollback() forgets everything since store_begin().
 *
 * store_begin_whole() opens a transaction that is all or nothing: no
 * savepoint is taken around each change (SQLite copies every page a change
 * touches into the savepoint's journal: most of the cost of a big import),
 * so a refused change may leave part of itself behind, and store_commit()
 * then refuses the whole transaction.  For callers that give up on the
 * first refusal anyway (lnetd's changes).
 *
 * Output: list callbacks get objects whose strings live until the callback
 * returns (copy what you keep); callbacks return 0 to go on, or a negative
 * errno that stops the listing and is returned; they must not call the
 * store.  *_get() and store_state_get() fill caller-owned structs with
 * copies: free them with the matching st_*_clear().
 *
 * History changes are JSON, one array per entry, one element per change in
 * the order the changes were made, each on a line of its own:
 *
 *   [{"op":"add","obj":"ni","new":{"net":"tcp","ifname":"eth0","pattern":null,...}},
 *   {"op":"mod","obj":"peer","old":{"nid":"10.0.0.1@tcp","mr":1,"nids":[]},
 *                            "new":{"nid":"10.0.0.1@tcp","mr":1,"nids":["10.0.0.2@tcp"]}},
 *   {"op":"del","obj":"rule","old":{"pos":0,"src":"tcp","dst":null,"rte":null,"priority":1}}]
 *
 * "obj" is ni, peer, route, global, rule or tbf, and an object is written whole,
 * with the field names of its struct below (null: not set).  "add" carries
 * "new", "del" carries "old", "mod" both.  A peer's NIDs are part of the peer:
 * adding or removing one is a "mod" of the peer.  A rule's "pos" is its
 * position when the change was made: an add inserted it there (shifting the
 * rest), a del closed the gap.  To undo an entry, walk it backwards doing the
 * inverse of each element (del what was added, add back what was deleted,
 * restore "old" over "new"); positions then come back exactly.
 */
#ifndef LNETD_STORE_H
#define LNETD_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/peer-attrs.h"
#include "engine/route-attrs.h"
#include "engine/rule-attrs.h"
#include "engine/tunables.h"

#define ST_UNSET	(-1) /* an integer not set (SQL NULL): the default applies */
#define STORE_ERR_MAX	256
#define STORE_SYNC_FULL 2 /* PRAGMA synchronous's value for FULL */

struct store;

struct store_err {
	char msg[STORE_ERR_MAX];
};

/* A local NI.  Key: (net, ifname) when ifname is set, else (net, pattern). */
struct st_ni {
	/* Its row: the NIs list in this order, the order they were first added.
	 * 0 on an add: after every other; an NI put back (undo, net set) keeps its own. */
	int64_t id;
	const char *net;     /* "tcp1" */
	const char *ifname;  /* NULL: placed by the pattern alone */
	const char *pattern; /* ip2nets address pattern, or NULL */
	const char *cpts;    /* "[0,1]", or NULL: all */
	/* The tunables (engine/tunables.h), each ST_UNSET for the LND's default:
	 * by name or by index.  st_ni_unset() makes them all ST_UNSET. */
	union {
		struct {
#define ST_TUN_FIELD(id, name, ...) int64_t name;
			LNE_TUNABLES(ST_TUN_FIELD)
#undef ST_TUN_FIELD
		};
		int64_t tun[LNE_TUN__COUNT];
	};
};

/* @ni with every tunable ST_UNSET (the other fields as they were). */
static inline void st_ni_unset(struct st_ni *ni)
{
	int k;

	for (k = 0; k < LNE_TUN__COUNT; k++)
		ni->tun[k] = ST_UNSET;
}

/*
 * A peer, named by its primary NID; nids are its other NIDs, in order.  Its
 * settings (engine/peer-attrs.h), 0 or 1 each, by column (.mr, .locked: its
 * primary NID locked, peer add --lock_prim) or by index (.v[]).
 */
struct st_peer {
	const char *nid;
	size_t nnids;
	const char **nids;
	LNE_PEER_COLS(int);
};

struct st_route {
	const char *net, *gateway; /* key */
	/* engine/route-attrs.h: .hops, .priority, .sensitivity or .v[], each
	 * ST_UNSET for the default; st_route_unset() makes them all so. */
	LNE_ROUTE_FIELDS(int64_t);
};

static inline void st_route_unset(struct st_route *r)
{
	int k;

	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		r->v[k] = ST_UNSET;
}

struct st_global {
	const char *name;
	int64_t value;
};

/*
 * A rule: its position, then a field per row of engine/rule-attrs.h, by
 * name (.src) or by row (st_rule_expr(r, LNE_RULE_A_SRC)): an expression's
 * text or NULL, a priority or ST_UNSET (none).  The field is the column.
 */
#define ST_RULE_TYPE_EXPR		   const char *
#define ST_RULE_TYPE_PRIO		   int64_t
#define ST_RULE_FIELD(id, name, kind, ...) ST_RULE_TYPE_##kind name;
struct st_rule {
	int64_t pos; /* 0 .. n-1 */
	LNE_RULE_ATTRS(ST_RULE_FIELD)
};

/* Where each row's field is in struct st_rule. */
extern const size_t st_rule_off[LNE_RULE_A__COUNT];

static inline const char **st_rule_expr(const struct st_rule *r, int a)
{
	return (const char **)((char *)r + st_rule_off[a]);
}

static inline int64_t *st_rule_prio(const struct st_rule *r, int a)
{
	return (int64_t *)((char *)r + st_rule_off[a]);
}

/*
 * An NRS TBF policy: one service's two queues (reg, hp), each a type and a
 * bucket depth, and the commands that rebuild both queues' rules, one per
 * line, in replay order (schema/0002-tbf.sql).
 */
struct st_tbf {
	const char *service;
	const char *reg_type, *hp_type; /* "nid", "jobid+uid", ... */
	int64_t reg_depth, hp_depth;
	const char *rules; /* "reg start io nid={...} rate=100\nhp change default rate=50" */
};

/* Who asked for a change (NULL: lnetd itself). */
struct st_who {
	uid_t uid;
	pid_t pid;
	const char *command; /* "lnetctl net add --net tcp --if eth0" */
};

struct st_hist {
	uint64_t gen;
	int64_t time; /* unix seconds */
	uid_t uid;
	pid_t pid;
	const char *command;
	const char *summary; /* one line per change: "+ni tcp eth0", "-peer 10.0.0.1@tcp" */
	const char *change;  /* the JSON above; NULL in store_history_list() */
};

/* The whole desired state, each array in its list order. */
struct st_state {
	struct st_ni *ni;
	struct st_peer *peer;
	struct st_route *route;
	struct st_global *global;
	struct st_rule *rule;
	struct st_tbf *tbf;
	size_t n_ni, n_peer, n_route, n_global, n_rule, n_tbf;
};

struct st_info {
	int schema, schema_latest; /* PRAGMA user_version, and the newest this code knows */
	char journal_mode[16];	   /* "wal" */
	int synchronous;	   /* STORE_SYNC_FULL */
	int foreign_keys;	   /* 1 */
	uint64_t generation;
};

/*
 * Open (migrating as needed) or refuse, saying why in @err.  Only a missing
 * file is a new store: it is made 0600 whatever the umask (SQLite gives the
 * -wal and -shm the same mode), never seen at @path half made.  A file that
 * is there but empty, not SQLite, or not readable and writable is refused
 * (-EBADMSG, or the errno of opening it) with a sentence that says how to
 * start over, and left as it was.  Call it while the process has no other
 * connection to @path (it looks at the file before SQLite does).
 */
int store_open(const char *path, struct store **st, struct store_err *err);
void store_close(struct store *st);
int store_info(struct store *st, struct st_info *info);
/* The generation of the last history entry, 0 for an empty store. */
int store_generation(struct store *st, uint64_t *gen);

int store_begin(struct store *st); /* -EBUSY if one is open already */
int store_begin_whole(struct store *st);
/*
 * A dry run's transaction (all or nothing, as store_begin_whole()): the
 * peer changes are recorded for store_pending() but not written, for a
 * caller whose own model has judged them already (lnetd's mirror: the
 * owner of each NID, what exists).  The rows of other objects are written
 * as usual.  It ends in store_rollback(); store_commit() refuses it.
 */
int store_begin_dry(struct store *st);
/* Write the history entry (if anything changed) and commit; *gen (may be NULL) gets the
 * store's generation after it. */
int store_commit(struct store *st, const struct st_who *who, uint64_t *gen, struct store_err *err);
int store_rollback(struct store *st);
/* What store_commit() would record now (a dry run's diff): malloc'd copies. */
int store_pending(struct store *st, char **summary, char **change);

typedef int (*store_ni_cb)(const struct st_ni *ni, void *data);
typedef int (*store_peer_cb)(const struct st_peer *peer, void *data);
typedef int (*store_route_cb)(const struct st_route *route, void *data);
typedef int (*store_global_cb)(const struct st_global *global, void *data);
typedef int (*store_rule_cb)(const struct st_rule *rule, void *data);
typedef int (*store_hist_cb)(const struct st_hist *hist, void *data);
typedef int (*store_tbf_cb)(const struct st_tbf *tbf, void *data);

/* NIs, listed by net, then interface, then pattern.  Update changes cpts and tunables. */
int store_ni_add(struct store *st, const struct st_ni *ni, struct store_err *err);
int store_ni_update(struct store *st, const struct st_ni *ni, struct store_err *err);
int store_ni_del(struct store *st, const struct st_ni *key, struct store_err *err);
int store_ni_get(struct store *st, const struct st_ni *key, struct st_ni *ni,
		 struct store_err *err);
int store_ni_list(struct store *st, store_ni_cb cb, void *data);

/* Peers, listed by primary NID.  The primary NID cannot be deleted alone. */
int store_peer_add(struct store *st, const struct st_peer *peer, struct store_err *err);
/* Set peer @nid's setting @k (enum lne_peer_attr) to @v, 0 or 1 (a change of the peer, in the history). */
int store_peer_set(struct store *st, const char *nid, int k, int v, struct store_err *err);
/*
 * Set each setting of peer @nid that the store alone keeps (peer-attrs.h's
 * engine false: the model's, Multi-Rail, lnetd judges) whose @v[k] is
 * not its default and differs from the stored one, a change each; *@changed
 * grows by their number.  @v[k] < 0 (not given) or at its default leaves it,
 * as Lustre's flags do (--lock_prim absent never unlocks).  In a dry run a
 * peer not stored reads as the defaults.
 */
int store_peer_update(struct store *st, const char *nid, const int *v, size_t *changed,
		      struct store_err *err);
/* Whether peer @nid is stored with its primary NID locked (no such peer: false). */
bool store_peer_is_locked(struct store *st, const char *nid);
/*
 * The primary NIDs of the locked peers, sorted (NULL-terminated, free each
 * and the array), in *@out; 0 or a negative errno.
 */
int store_peer_locked(struct store *st, char ***out);
int store_peer_del(struct store *st, const char *nid, struct store_err *err);
int store_peer_nid_add(struct store *st, const char *primary, const char *nid,
		       struct store_err *err);
int store_peer_nid_del(struct store *st, const char *primary, const char *nid,
		       struct store_err *err);
int store_peer_get(struct store *st, const char *nid, struct st_peer *peer, struct store_err *err);
int store_peer_list(struct store *st, store_peer_cb cb, void *data);

/* Routes, listed by net then gateway.  Update changes hops, priority, sensitivity. */
int store_route_add(struct store *st, const struct st_route *route, struct store_err *err);
int store_route_update(struct store *st, const struct st_route *route, struct store_err *err);
int store_route_del(struct store *st, const char *net, const char *gateway, struct store_err *err);
int store_route_get(struct store *st, const char *net, const char *gateway, struct st_route *route,
		    struct store_err *err);
int store_route_list(struct store *st, store_route_cb cb, void *data);

/* Globals that were set, listed by name. */
int store_global_set(struct store *st, const char *name, int64_t value, struct store_err *err);
int store_global_unset(struct store *st, const char *name, struct store_err *err);
int store_global_get(struct store *st, const char *name, int64_t *value, struct store_err *err);
int store_global_list(struct store *st, store_global_cb cb, void *data);

/*
 * UDSP rules, listed by position.  Add inserts before the rule at rule->pos
 * (a negative or past-the-end pos appends) and tells where it went; delete
 * closes the gap; move takes the rule at @from to position @to (past the
 * end: last); update replaces the rule at rule->pos.
 */
int store_rule_add(struct store *st, const struct st_rule *rule, int64_t *pos,
		   struct store_err *err);
int store_rule_update(struct store *st, const struct st_rule *rule, struct store_err *err);
int store_rule_del(struct store *st, int64_t pos, struct store_err *err);
int store_rule_del_all(struct store *st, struct store_err *err);
int store_rule_move(struct store *st, int64_t from, int64_t to, struct store_err *err);
int store_rule_get(struct store *st, int64_t pos, struct st_rule *rule, struct store_err *err);
int store_rule_list(struct store *st, store_rule_cb cb, void *data);

/* TBF policies, listed by service.  Set adds or replaces the service's policy. */
int store_tbf_set(struct store *st, const struct st_tbf *tbf, struct store_err *err);
int store_tbf_del(struct store *st, const char *service, struct store_err *err);
int store_tbf_get(struct store *st, const char *service, struct st_tbf *tbf, struct store_err *err);
int store_tbf_list(struct store *st, store_tbf_cb cb, void *data);

/*
 * The history's bounds: at most @changes entries (0: no bound), none older than
 * @days days (0: no bound), and the newest always stays.  Each commit prunes
 * in its own transaction, then checkpoints the WAL (and truncates it) when it
 * pruned anything, so the file stays the size of what is kept.
 */
#define STORE_KEEP_CHANGES 1000
#define STORE_KEEP_DAYS	   90
void store_set_retention(struct store *st, uint32_t changes, uint32_t days);
/* The oldest generation the history can return to (0 while nothing was pruned). */
int store_history_oldest(struct store *st, uint64_t *gen);

/* The last @limit entries (<= 0: all), newest first, without their change. */
int store_history_list(struct store *st, int64_t limit, store_hist_cb cb, void *data);
int store_history_get(struct store *st, uint64_t gen, struct st_hist *hist, struct store_err *err);

/*
 * Inside a transaction: return to the state of generation @gen, found by
 * undoing every change recorded after it, newest first; the transaction
 * records only how that state differs from now (so the rollback is itself
 * one history entry of the net change, and can be undone).  -ENOENT if
 * @gen is in the future, or older than the history keeps (the sentence names
 * the oldest generation kept).
 */
int store_undo_after(struct store *st, uint64_t gen, struct store_err *err);

/* The whole desired state; replacing it records only the differences. */
int store_state_get(struct store *st, struct st_state *state);
int store_state_replace(struct store *st, const struct st_state *state, struct store_err *err);

void st_ni_clear(struct st_ni *ni);
void st_peer_clear(struct st_peer *peer);
void st_route_clear(struct st_route *route);
void st_global_clear(struct st_global *global);
void st_rule_clear(struct st_rule *rule);
/* Whether @a and @b have the same fields (their positions aside). */
bool st_rule_same(const struct st_rule *a, const struct st_rule *b);
void st_hist_clear(struct st_hist *hist);
void st_tbf_clear(struct st_tbf *tbf);
void st_state_clear(struct st_state *state);

#endif /* LNETD_STORE_H */
