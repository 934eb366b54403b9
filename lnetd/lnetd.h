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
#include "store.h"

#define LNETD_BUS_NAME	  "org.lnetd1"
#define LNETD_BUS_PATH	  "/org/lnetd1"
#define LNETD_BUS_MANAGER "org.lnetd1.Manager"

struct lnetd {
	sd_event *event;
	sd_bus *bus;
	struct store *store;
	struct lne_inst *mirror; /* the desired state, as the engine sees it */
	const char *engine;	 /* "userspace" (the kernel backend is to come) */
	const char *state_dir;
	uint64_t generation; /* the store's: one per committed change */
};

/* Load the store's desired state into a fresh engine instance. */
int lnetd_restore(struct lnetd *d, struct lne_inst **out, char **why);

/* The D-Bus side: object, vtable, name. */
int lnetd_bus_start(struct lnetd *d);

#endif /* LNETD_LNETD_H */
