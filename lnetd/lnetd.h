/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetd.h - the daemon's state, shared by its parts.
 *
 * lnetd owns LNet's desired configuration: the store (SQLite) is the truth,
 * the engine instance mirrors it so every change is judged by the same code
 * the module runs before it is committed.  With the userspace engine the
 * mirror is also where selection happens; the kernel backend (the module,
 * through lnetk-client) comes next.
 */
#ifndef LNETD_LNETD_H
#define LNETD_LNETD_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "model.h"
#include "netif.h"
#include "store.h"

#define LNETD_BUS_NAME	  "org.lnetd1"
#define LNETD_BUS_PATH	  "/org/lnetd1"
#define LNETD_BUS_MANAGER "org.lnetd1.Manager"

/*
 * A configured NI and what became of it.  Its NID comes from its
 * interface's address, so it exists in the engine only while the interface
 * and the address do: until then it is pending, with the reason.
 */
struct lnetd_ni {
	char net[16], ifname[16]; /* the key, canonical */
	struct lne_tunables tun;
	bool applied;
	struct lne_nid nid;		   /* while applied */
	char reason[LNE_ERR_MSG_MAX + 64]; /* while pending */
};

struct lnetd {
	sd_event *event;
	struct netif *netif;
	struct lnetd_ni *nis;
	size_t nnis;
	sd_bus *bus;
	struct store *store;
	struct lne_inst *mirror; /* the desired state, as the engine sees it */
	const char *engine;	 /* "userspace" (the kernel backend is to come) */
	const char *state_dir;
	uint64_t generation; /* the store's: one per committed change */
};

/* Load the store's desired state into a fresh engine instance. */
int lnetd_restore(struct lnetd *d, struct lne_inst **out, char **why);

/* One NI against its interface now; an engine refusal comes back as an errno. */
int lnetd_ni_reconcile(struct lnetd *d, struct lnetd_ni *n, bool *changed);
/* Bring every configured NI in line with the interfaces as they are now. */
void lnetd_nis_reconcile(struct lnetd *d);
/* Load the store's NIs (at start; then reconcile). */
int lnetd_nis_load(struct lnetd *d);

/* The D-Bus side: object, vtable, name. */
int lnetd_bus_start(struct lnetd *d);

#endif /* LNETD_LNETD_H */
