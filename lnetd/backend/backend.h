/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - the one door to the engine that runs LNet.
 *
 * lnetd keeps LNet's desired state in the store and judges every change on
 * its mirror (an engine instance in lnetd, lnetd.h).  What runs LNet on the
 * node is an engine: the mirror itself (userspace), the lnetk module
 * (kernel), Lustre's lnet.ko (lustre), ...  Each is a folder under
 * lnetd/backend/ implementing struct backend_ops, and nothing outside
 * lnetd/backend/ talks to an engine any other way: the change flow, the
 * D-Bus methods that read or act on running state, metrics and the data
 * path's commands all come through here.  A new engine is one folder (its
 * sources in its own .am, included from backend.am) and one line in
 * engines.h (the table --engine walks, with its help).
 *
 * THE CONTRACT
 *
 * Threading.  Every op is called from lnetd's one event loop and returns
 * there: it may make requests to a local kernel, which answer at once, but
 * never waits for the network.  What waits for the network (a ping, a
 * discovery, a selftest) is a call (struct bk_call): the op starts it and
 * @done is called later, on the loop.  An engine whose interface blocks (an ioctl
 * or a genl request that waits for the answer) runs it with
 * bk_call_on_thread(): its function runs on a thread of its own, which
 * must open its own connection to the engine and touch nothing of lnetd's
 * (only the call), and the call is finished on the loop.
 *
 * Errors.  An op returns 0 or a negative errno with the sentence in @err
 * (struct lne_err, engine/error.h), a whole sentence a person can act on.
 * -ENODEV: the engine is not there now (its module not loaded, ...), the
 * sentence saying so; D-Bus callers get org.lnetd1.Error.NotSupported.
 * -ENOENT: the object asked about does not exist (NotFound).  Anything
 * else is the engine's refusal, mapped as bus_fail() maps errnos.
 *
 * Missing ops.  A NULL op in the data path group means the engine cannot
 * do it: the D-Bus caller gets NotSupported, "the lustre engine cannot
 * list fault rules" (bus_engine_cannot()).  A NULL op in the views group
 * means the mirror's view is the engine's (what lnetd last set is what
 * runs): the caller shows the mirror.  A view op returning -ENODEV (the
 * engine away) leaves the engine's running state unknown: ListNIs and
 * ListPeers show the mirror's health, ListTbf the mirror's policies,
 * ListRoutes no state, metrics none of it.  The hooks are optional: NULL
 * does nothing.
 *
 * Configuration.  The engine holds what the mirror holds: @sync is called
 * after every change to the mirror (a committed change, a rebuild, NIs
 * that came or went) and makes the engine equal to it, or remembers why
 * it cannot (@applied says so, per NI if the engine can tell); it never
 * fails the change, which is committed already.  An engine that cannot
 * hold something lnetd's mirror accepts says so before the commit through
 * @judge.  The generic difference walk any engine can drive is sync.h.
 */
#ifndef LNETD_BACKEND_H
#define LNETD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/error.h"
#include "engine/fault.h"
#include "engine/model.h"
#include "engine/node-test.h"
#include "engine/select.h"
#include "engine/tbf.h"

struct lnetd;
struct lnetd_ni;
struct lnetd_op;
struct backend;

/* --- what ops exchange ------------------------------------------------------------ */

/* A node's answer to a ping (or the peer discovery left): its ping info. */
#define BK_PING_NIDS_MAX 256
struct bk_ping_info {
	uint32_t features, pid; /* Lustre's LNET_PING_FEAT_* bits, its pid */
	unsigned int n;
	struct {
		char nid[LNE_NID_STR_MAX];
		enum lne_pni_state status; /* LNE_PNI_NA: unknown */
	} nid[BK_PING_NIDS_MAX];
};

/*
 * A call that waits for the network: ping, discover, selftest.  The
 * caller allocates it (bk_call_new), fills the question and @done, and
 * hands it to the op.  The op returns 0: @done is called exactly once with
 * the answer, on the loop, possibly before the op returns; the caller
 * touches @c only in @done, and frees it there (bk_call_free).  Or it
 * returns a negative errno with @c->err saying why: @done is never called
 * and the caller still owns @c.  In @done, @c->rc < 0 is a failure with
 * @c->err's sentence: -EHOSTUNREACH, -ETIMEDOUT or -ENOTCONN the peer did
 * not answer; -EOPNOTSUPP the engine cannot; -EPROTO a malformed answer;
 * -ENOENT the object went; -E2BIG too many calls wait already
 * (LimitReached); anything else a refusal.
 */
struct bk_call {
	/* the question */
	struct lne_nid dst;
	struct lne_nid src; /* ping: the local NI to send from, if @has_src */
	bool has_src;
	uint32_t timeout_ms;  /* ping, discover */
	bool force;	      /* discover: even a peer discovered already */
	struct lne_test test; /* selftest: its parameters (checked), then its results */
	uint32_t interval_ms; /* selftest: a trace row this often (0: none) */
	void (*done)(struct bk_call *c);
	void *arg;
	/* the answer */
	int rc;
	struct lne_err err;
	struct bk_ping_info ping; /* ping, discover */
	uint64_t elapsed_ns;	  /* selftest */
};

/* A data path counter of @nid (NULL: the node's own), local NI or peer NI, by name. */
typedef int (*bk_count_fn)(void *arg, const char *nid, bool local, const char *name,
			   uint64_t value);
typedef int (*bk_kv_fn)(void *arg, const char *key, uint64_t value);
/* One NI in a recovery queue: pings failed in a row, the next one (ms, monotonic). */
typedef int (*bk_queued_fn)(void *arg, const char *nid, uint32_t pings, uint64_t next_ms);
/* A route's state as the engine's router checker judges it. */
typedef int (*bk_route_fn)(void *arg, lne_net_t net, const struct lne_nid *gw, bool down);

/* A fault rule to add: its options checked (lne_fault_opt) and as given. */
struct bk_fault {
	const struct lne_fault_attr *attr;
	const char *const *key, *const *value;
	unsigned int n;
};
#define BK_FAULT_OPTS_MAX  16
#define BK_FAULT_STATS_MAX 8
/* A fault rule as listed: its options and counters by name. */
struct bk_fault_rule {
	uint32_t id;
	unsigned int nopt, nstat;
	const char *key[BK_FAULT_OPTS_MAX], *value[BK_FAULT_OPTS_MAX];
	const char *stat[BK_FAULT_STATS_MAX];
	uint64_t count[BK_FAULT_STATS_MAX];
};
typedef int (*bk_fault_fn)(void *arg, const struct bk_fault_rule *r);

/* What a path choice would be (Explain): the question, then the answer and its reasons. */
struct bk_explain {
	const struct lne_nid *dst, *src; /* @src NULL: any local NI */
	char ni[LNE_NID_STR_MAX], pni[LNE_NID_STR_MAX], gw[LNE_NID_STR_MAX]; /* gw "": direct */
	struct lne_explain *ex; /* the candidates, up to ex->cap */
};

/*
 * Health as the engine runs it: local NIs and (when asked) peer NIs, in the
 * engine's order, with a sorted index for lookups (bk_health_*()).
 */
struct bk_health_one {
	struct lne_nid nid;
	bool local;
	bool up;       /* a local NI's link */
	uint8_t state; /* a peer NI's, enum lne_pni_state; a local NI's status where the
			* engine reads one (NA: none, ListNIs then tells the mirror's) */
	uint32_t health;
	char ifname[LNE_IFNAME_MAX]; /* a local NI's interface */
	struct lne_nid peer;	     /* a peer NI's peer, by its primary NID */
};
struct bk_health {
	struct bk_health_one *v;
	size_t n, cap;
	size_t *sorted; /* by NID, after bk_health_sort() */
};

/* NRS TBF policies as the engine runs them, with their statistics. */
struct bk_tbf_rule {
	const char *name, *text; /* text: the command that recreates it */
	uint32_t rate, nclasses;
	bool realtime;
	struct lne_tbf_stats st;
};
struct bk_tbf_class {
	const char *key, *rule; /* rule: the one it follows, "" for none yet */
	enum lne_tbf_queue queue;
	struct lne_tbf_stats st;
};
struct bk_tbf_queue {
	enum lne_tbf_queue queue;
	const char *type;
	uint32_t depth, nclasses;
	size_t nrules;
	const struct bk_tbf_rule *rules; /* in match order, the default last */
};
struct bk_tbf_policy {
	const char *service;
	size_t nqueues;
	struct bk_tbf_queue queues[LNE_TBF_NQUEUES];
	size_t ncls;
	const struct bk_tbf_class *cls; /* of every queue, in no order */
};
typedef int (*bk_tbf_fn)(void *arg, const struct bk_tbf_policy *p);

/* --- the ops ---------------------------------------------------------------------- */

struct backend_ops {
	const char *name;   /* --engine's word */
	const char *help;   /* what it is, for lnetd --help (one line, ~40 columns) */
	const char *module; /* what Status names while not applied ("lnetk"); NULL: the name */

	/* Start on d->event (d->mirror and d->nis are loaded): the engine is made
	 * equal to the mirror now or when it appears.  Fails only for lnetd's own
	 * troubles (no memory, no socket): an absent engine is pending, not an
	 * error.  @stop undoes it and frees @b. */
	int (*start)(struct lnetd *d, struct backend **b);
	void (*stop)(struct backend *b);

	/* --- configuration ------------------------------------------------------ */
	/* The mirror changed: make the engine equal to it (runs to completion). */
	void (*sync)(struct backend *b);
	/* Whether the engine holds what the mirror does; for NI @n only (NULL:
	 * all of it); if not, @why (@len bytes) says why.  NULL: always. */
	bool (*applied)(const struct backend *b, const struct lnetd_ni *n, char *why, size_t len);
	/*
	 * After the mirror accepted the change @ops (n of them) and before the
	 * store commits it (a dry run too): refuse what this engine cannot
	 * hold, -EINVAL (or another errno) with *@index the operation and @msg
	 * (@len bytes) the sentence naming the engine's limit.  Optional.
	 */
	int (*judge)(struct backend *b, const struct lnetd_op *ops, size_t n, size_t *index,
		     char *msg, size_t len);

	/* --- hooks (optional) ----------------------------------------------------- */
	/* d->mirror is a new instance: forget pointers into the old one (no sync yet). */
	void (*mirror_replaced)(struct backend *b);
	/* The mirror's TBF policies changed; @detach: one is about to be freed. */
	void (*tbf_changed)(struct backend *b, bool detach);
	/* An interface's link went @up or down: true if the engine took it, else
	 * the mirror notes it (and @sync carries it). */
	bool (*ni_link)(struct backend *b, const struct lne_nid *nid, bool up);
	/* After SetHealth set one or many (@peer) NIs' health through @set_health. */
	void (*health_done)(struct backend *b, bool peer);

	/* --- views: NULL means the mirror's is the engine's ---------------------- */
	/* Health of local NIs (and with @peers every peer NI); *@out for bk_health_free. */
	int (*health)(struct backend *b, bool peers, struct bk_health **out);
	/* The peers the engine's discovery made, in an instance of their own (its
	 * peers and NIDs marked discovered); free with lne_inst_free(). */
	int (*discovered)(struct backend *b, struct lne_inst **out);
	/* Each route's state as the engine's router checker judges it. */
	int (*route_states)(struct backend *b, bk_route_fn fn, void *arg);
	/* The TBF policies the engine runs, with their statistics, in service order. */
	int (*tbf_read)(struct backend *b, bk_tbf_fn fn, void *arg, struct lne_err *err);

	/* --- the data path: NULL means the engine cannot ------------------------- */
	int (*set_health)(struct backend *b, bool peer, const struct lne_nid *nid, uint32_t value,
			  struct lne_err *err);
	int (*ping)(struct backend *b, struct bk_call *c);
	int (*discover)(struct backend *b, struct bk_call *c);
	int (*selftest)(struct backend *b, struct bk_call *c);
	/* Every counter: the node's (nid NULL) then each NID's, a NID's together (a NID may
	 * come twice, as a local NI and as a peer NI: the node pinging its own NID). */
	int (*counters)(struct backend *b, bk_count_fn fn, void *arg, struct lne_err *err);
	int (*counters_reset)(struct backend *b, struct lne_err *err);
	int (*test_service)(struct backend *b, bool on, struct lne_err *err);
	/* How the next message to x->dst would go, deciding on the running state. */
	int (*explain)(struct backend *b, struct bk_explain *x, struct lne_err *err);
	int (*fault_add)(struct backend *b, const struct bk_fault *f, uint32_t *id,
			 struct lne_err *err);
	/* Rules of a kind from @src and/or to @dst (NULL: any), or @all: *@gone deleted. */
	int (*fault_del)(struct backend *b, bool delay, const struct lne_nid *src,
			 const struct lne_nid *dst, bool all, uint32_t *gone, struct lne_err *err);
	int (*fault_reset)(struct backend *b, bool delay, struct lne_err *err);
	int (*fault_list)(struct backend *b, bool delay, bk_fault_fn fn, void *arg,
			  struct lne_err *err);
	/* A local NI's (*@local) or peer NI's health and its counters through @fn. */
	int (*health_stats)(struct backend *b, const struct lne_nid *nid, bool *local,
			    uint32_t *health, bk_kv_fn fn, void *arg, struct lne_err *err);
	/* A peer NI's router credits here: left (negative: waiting), the fewest. */
	int (*rtr_credits)(struct backend *b, const struct lne_nid *nid, int32_t *avail,
			   int32_t *min, struct lne_err *err);
	/* The local (or @peer) recovery queue. */
	int (*recovery)(struct backend *b, bool peer, bk_queued_fn fn, void *arg,
			struct lne_err *err);
};

/* What every engine's state starts with (the engine's own struct embeds it first). */
struct backend {
	const struct backend_ops *ops;
	struct lnetd *d;
	unsigned int calls; /* bk_call_on_thread()'s under way */
};

/* --- backend.c: the engines and what they share ------------------------------------- */

/* The engines, in --help's order: @i from 0 until NULL. */
const struct backend_ops *backend_engine(size_t i);
/* The engine called @name, or NULL. */
const struct backend_ops *backend_find(const char *name);
/* Start @ops on @d: d->backend. */
int backend_start(struct lnetd *d, const struct backend_ops *ops);
void backend_stop(struct lnetd *d);

/* The hooks, each nothing without an engine or the op. */
void backend_sync(struct lnetd *d);
bool backend_applied(const struct lnetd *d, const struct lnetd_ni *n, char *why, size_t len);
int backend_judge(struct lnetd *d, const struct lnetd_op *ops, size_t n, size_t *index, char *msg,
		  size_t len);
void backend_mirror_replaced(struct lnetd *d);
void backend_tbf_changed(struct lnetd *d, bool detach);
bool backend_ni_link(struct lnetd *d, const struct lne_nid *nid, bool up);
/* The ops of d's engine: an engine that cannot do anything when none runs. */
const struct backend_ops *backend_ops_of(const struct lnetd *d);

struct bk_call *bk_call_new(void);
void bk_call_free(struct bk_call *c);
/*
 * Run @run on a thread of its own for @c (an op's blocking part: it fills
 * @c->rc, @c->err and the answer, with its own connection to the engine),
 * then @c->done on the loop.  0, or -E2BIG with @c->err set when too many
 * wait already (LNETD_PINGS_MAX per engine), or another errno.
 */
int bk_call_on_thread(struct backend *b, struct bk_call *c, void (*run)(struct bk_call *c));

/* Building and reading a health table. */
struct bk_health *bk_health_new(void);
int bk_health_add(struct bk_health *h, const struct bk_health_one *one);
int bk_health_sort(struct bk_health *h);
const struct bk_health_one *bk_health_find(const struct bk_health *h, const struct lne_nid *nid);
/* @nid's health in @h, or @fallback if it has none (or @h is NULL). */
uint32_t bk_health_get(const struct bk_health *h, const struct lne_nid *nid, uint32_t fallback);
/* A peer NI's state as `peer show` prints it; NULL if @h has no such NI. */
const char *bk_health_state(const struct bk_health *h, const struct lne_nid *nid);
void bk_health_free(struct bk_health *h);

/* Explain on @ln (the mirror): what an engine without its own answer gives. */
int bk_explain_inst(struct lne_inst *ln, struct bk_explain *x, struct lne_err *err);

#endif /* LNETD_BACKEND_H */
