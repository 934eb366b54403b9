/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetd.h - the daemon's state, shared by its parts.
 *
 * lnetd owns LNet's desired configuration: the store (SQLite) is the truth,
 * the engine instance mirrors it so every change is judged by the same code
 * the module runs before it is committed.  The engine that runs LNet is
 * behind one door, d->backend (backend/backend.h): with the userspace
 * engine the mirror is also where selection happens; with the kernel
 * engine, lnetd/backend/lnetk/ keeps the lnetk module equal to the mirror.
 */
#ifndef LNETD_LNETD_H
#define LNETD_LNETD_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "engine/expr.h"
#include "engine/model.h"
#include "engine/tbf.h"
#include "lnetd/store/store.h"
#include "netif.h"

#define LNETD_BUS_NAME	  "org.lnetd1"
#define LNETD_BUS_PATH	  "/org/lnetd1"
#define LNETD_BUS_MANAGER "org.lnetd1.Manager"

#define LNETD_PATTERN_MAX 128 /* an ip2nets address pattern, as text */
#define LNETD_CPTS_MAX	  128

/*
 * What one D-Bus call may carry (lnetd(8), LIMITS; the interface XML).
 * Each bound is checked as the message is read, before any other work; a
 * call over one is refused with org.lnetd1.Error.LimitExceeded naming it,
 * and changes nothing.
 */
#define LNETD_STR_MAX			4096 /* bytes in any string: a rule's expression, a TBF command */
#define LNETD_ITEMS_MAX			(1u << 21) /* values in one call, at every level */
#define LNETD_APPLY_OPS_MAX		(1u << 18) /* operations in one Apply */
#define LNETD_PEER_NIDS_MAX		1024	   /* NIDs in one peer operation */
#define LNETD_TBF_LIST_MAX		(LNE_TBF_RULES_MAX + 1) /* rules in one TBF queue operation */
/*
 * A dry run asks nothing of anyone, so anyone may make one; one larger than
 * this (values, at every level) needs the right to change, as a change does.
 * It bounds what an unprivileged caller can make lnetd do in one call: the
 * worst such call holds the event loop well under LNETD_UNPRIV_HOLD_S on
 * the machines we measure on (bench: B1).
 */
#define LNETD_DRY_ITEMS_UNPRIV		(1u << 14)
/*
 * ... and at most this much of lnetd's time judging it (checked between
 * operations); one that needs more is stopped, rolled back, and asked to
 * come with the right to change.  The worst unprivileged call holds the
 * event loop this long, plus one operation, plus rebuilding the mirror.
 */
#define LNETD_UNPRIV_BUDGET_US		100000
#define LNETD_UNPRIV_HOLD_S		0.5 /* bench B1's target for the whole call */
/* History's reply: at most this many entries (0 asks for them all), the newest
 * that fit in this many bytes. */
#define LNETD_HISTORY_MAX		(1u << 16)
#define LNETD_HISTORY_BYTES_MAX		(16u << 20)
/* Authorisations waiting for polkit: in all, and for one caller. */
#define LNETD_POLKIT_PENDING_MAX	256
#define LNETD_POLKIT_PENDING_PER_CALLER 8
/* Connections at once on --private-socket (bus-direct.c). */
#define LNETD_DIRECT_MAX		64
/* Calls that wait for the network (Ping, Discover, Selftest): at most this many at
 * once per engine (anyone may ping), each ping or discovery for at most this long. */
#define LNETD_PINGS_MAX			64
#define LNETD_PING_TIMEOUT_MAX		300000 /* ms */
/* The traffic generator's trace (the other bounds: engine/node-test.h). */
#define LNETD_TEST_SAMPLES_MAX		6000  /* rows of a trace */
#define LNETD_TEST_INTERVAL_MIN		10    /* ms between them, at least */
#define LNETD_TEST_INTERVAL_MAX		60000 /* and at most (the module's bound too) */

/* One NI the engine has, realised from a configured one. */
struct lnetd_ni_real {
	char ifname[LNE_IFNAME_MAX];
	struct lne_nid nid;
	u64 place; /* its place among the engine's NIs (lne_ni_conf.order) */
};

/*
 * A configured NI and what became of it.  Its NID comes from an interface's
 * address, so it exists in the engine only while the interface and the
 * address do: until then it is pending, with the reason.  The key is (net,
 * interface) or, for an ip2nets pattern without an interface, (net,
 * pattern).  A pattern is realised on every interface whose IPv4 address
 * matches it (only the named one when an interface is given too, which
 * must then agree with the pattern), so one entry may give several NIs.
 */
struct lnetd_ni {
	int64_t id; /* its store row: d->nis is in this order, the order NIs were added */
	char net[LNE_NET_STR_MAX], ifname[LNE_IFNAME_MAX]; /* canonical; ifname "" if none */
	char pattern[LNETD_PATTERN_MAX];		   /* "" if none */
	char cpts[LNETD_CPTS_MAX];			   /* "" if all */
	u64 cptmask;					   /* 0 if all */
	int64_t tunv[LNE_TUN__COUNT]; /* as configured; ST_UNSET for the LND's default */
	struct lne_tunables tun;
	struct lne_expr *match; /* pattern@net, or NULL */
	struct lnetd_ni_real *real;
	size_t nreal;
	char reason[LNE_ERR_MSG_MAX + 128]; /* while nothing is realised */
};

struct lnetd {
	sd_event *event;
	struct netif *netif;
	struct lnetd_ni *nis;
	size_t nnis;
	sd_bus *bus;
	struct store *store;
	struct lne_inst *mirror; /* the desired state, as the engine sees it */
	const char *engine;	 /* its name: "kernel", "userspace", ... */
	struct backend *backend; /* the engine that runs LNet (backend/backend.h), or NULL */
	uint16_t lnet_port;	 /* the userspace engine's LNet port (--lnet-port) */
	struct lne_tbf **tbf;	 /* the mirror's NRS TBF policies, one per service */
	size_t ntbf;
	const char *state_dir;
	uint64_t generation; /* the store's: one per committed change */
	bool numa_warned;
	bool nis_dirty; /* a change in progress touched d->nis */
	/* The NIs the change in progress deleted (key and id), to put back in place (nis-order.c) */
	struct lnetd_ni *nis_gone;
	size_t nnis_gone;
	/* the userspace engine's router checker (--router-check-interval, --router-ping-timeout) */
	unsigned int rtr_check_s, rtr_timeout_s;
	bool avoid_asym;	   /* --avoid-asym-router-failure */
	struct bus_direct *direct; /* --private-socket, or NULL */
};

/* Load the store's desired state into a fresh engine instance. */
int lnetd_restore(struct lnetd *d, struct lne_inst **out, char **why);

/* Fill @n from a stored NI (parsing its pattern); -EINVAL with @why if it makes no sense. */
int lnetd_ni_init(struct lnetd_ni *n, const struct st_ni *sn, char *why, size_t len);

/* A stored route's settings, each its default where the store has none; returns @v. */
static inline const u32 *lnetd_route_values(const struct st_route *r, u32 v[LNE_ROUTE_A__COUNT])
{
	int k;

	lne_route_defaults(v);
	for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
		if (r->v[k] != ST_UNSET)
			v[k] = (u32)r->v[k];
	return v;
}
void lnetd_ni_clear(struct lnetd_ni *n);
/* Whether @a and @b run on the same CPTs (none given is every CPT of the engine). */
bool lnetd_ni_cpts_same(const struct lnetd *d, const struct lnetd_ni *a, const struct lnetd_ni *b);
/* The CPTs @n runs on, "[0,1]": its own, or every CPT of the engine. */
void lnetd_ni_cpts_in_effect(const struct lnetd *d, const struct lnetd_ni *n, char *buf,
			     size_t len);
/*
 * One NI against the interfaces now; an engine refusal comes back as an
 * errno (the sentence in n->reason) with nothing of @n left in the engine.
 * *@changed says whether what is realised changed.
 */
int lnetd_ni_reconcile(struct lnetd *d, struct lnetd_ni *n, bool *changed);
/*
 * Whether @n is applied: realised on an interface and held by the engine that
 * runs LNet (with the kernel engine, the module holds what the mirror does).
 * The one answer ListNIs, `net show`, Status and the log give; when not,
 * @why gets the reason.
 */
bool lnetd_ni_applied(const struct lnetd *d, const struct lnetd_ni *n, char *why, size_t len);
/* Take @n's NIs out of the engine (it stays configured). */
void lnetd_ni_unrealise(struct lnetd *d, struct lnetd_ni *n);
/* Bring every configured NI in line with the interfaces as they are now. */
void lnetd_nis_reconcile(struct lnetd *d);
/* Load the store's NIs (at start; then reconcile); forgets what was loaded before. */
int lnetd_nis_load(struct lnetd *d);
void lnetd_nis_free(struct lnetd *d);
struct lnetd_op;
/* Append to @summary a "!ni NET IF PATTERN: why" line per ip2nets NI @ops add that matches nothing. */
int lnetd_nis_notes(const struct lnetd *d, const struct lnetd_op *ops, size_t n, char **summary);
/* Whether an NI of the configuration (applied or pending) is on @net (canonical). */
bool lnetd_net_configured(const struct lnetd *d, const char *net);
/* Rebuild the mirror and the NIs (and the TBF policies if @tbf) from the store, after a
 * refused or dry-run change or a rollback. */
int lnetd_mirror_rebuild(struct lnetd *d, bool tbf, char **why);

/* The mirror changed: the engine that runs LNet is brought in line (backend_sync). */
void lnetd_mirror_changed(struct lnetd *d);

/* The D-Bus side: the object, its bounds and methods on d->bus (lnetd_bus_add),
 * then the name (lnetd_bus_start does both); lnetd_bus_serve puts the same
 * on any connection (bus-direct.c's). */
int lnetd_bus_serve(struct lnetd *d, sd_bus *bus);
int lnetd_bus_add(struct lnetd *d);
int lnetd_bus_start(struct lnetd *d);
/* What lnetd tells the bus unasked (bus-signal.c): an event's signal, the
 * Generation's PropertiesChanged; nothing without a bus. */
struct lnetd_event;
void lnetd_bus_signal(struct lnetd *d, const struct lnetd_event *ev);
void lnetd_bus_generation_changed(struct lnetd *d);

/* org.lnetd1 peer to peer on a socket of its own at @path (bus-direct.c); none if
 * @path is NULL or empty.  Stopping closes every connection and removes the socket. */
struct bus_direct;
int lnetd_bus_direct_start(struct lnetd *d, const char *path, struct bus_direct **out);
void lnetd_bus_direct_stop(struct bus_direct *x);

#endif /* LNETD_LNETD_H */
