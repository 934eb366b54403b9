/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bus-int.h - what bus.c (the methods) and bus-auth.c (who may call, and
 * how much a call may carry) share.
 */
#ifndef LNETD_BUS_INT_H
#define LNETD_BUS_INT_H

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "lnetd/store/store.h"

/* Who asks, for authorisation and for history. */
struct caller {
	struct st_who who;
	char cmd[512];
};

/* The one place an errno and a sentence become a D-Bus error. */
int bus_fail(sd_bus_error *e, int rc, const char *msg);

/*
 * Changes need root or polkit's org.lnetd1.manage; reads do not.
 * 0: go on; 1: polkit was asked, return 1 now (the call comes back with the
 * answer); negative: refused, @e says why.
 */
int bus_authorise(sd_bus_message *m, struct caller *c, sd_bus_error *e);

/* Whether polkit was asked about @m and its answer waits for it. */
bool bus_polkit_asked(sd_bus_message *m);

/* The sd-bus filter that refuses a method call over lnetd's bounds. */
int bus_bounds_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

#endif /* LNETD_BUS_INT_H */
