// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-lnet.c - lnet configure|unconfigure, which Lustre's lnet.service runs.
 *
 * In Lustre, configure brings LNet up (and with --all takes the NIs of
 * lnet.ko's module parameters); unconfigure takes it down.  lnetd brings the
 * engine's LNet up by itself, at start and whenever the engine comes back,
 * and applies its store there; so configure asks lnetd (D-Bus activation
 * starts it) and waits, bounded, until lnetd's Status lists no pending
 * engine: whatever is ordered after it finds LNet configured.  lnetd never
 * takes LNet down on request, so unconfigure is refused with how to do it
 * (lnetctl(8), DIFFERENCES).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lnetctl.h"

/* lnetctl(8): the default --timeout, in seconds. */
#define CONFIGURE_TIMEOUT_S 60
/* How often Status is asked while the engine is pending. */
#define CONFIGURE_POLL_NS   100000000L

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Status once: 1 and the engine's pending sentence in @why (its name in
 * @what) while the engine does not hold the store, 0 when it does; the
 * exit code (> 1 with the sign flipped: < 0) after saying why on failure.
 */
static int engine_pending(sd_bus *bus, char *what, size_t wlen, char *why, size_t len)
{
	const char *obj, *key, *reason, *engine;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	uint64_t gen;
	int rc = ctl_call(bus, "Status", &r, NULL), pending = 0;

	if (rc)
		return -rc;
	rc = sd_bus_message_read(r, "ts", &gen, &engine);
	if (rc >= 0)
		rc = sd_bus_message_skip(r, "a(suu)");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "(sss)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(sss)", &obj, &key, &reason)) > 0)
		if (!strcmp(obj, "module")) {
			snprintf(what, wlen, "%s", key);
			snprintf(why, len, "%s", reason);
			pending = 1;
		}
	if (rc < 0)
		return -ctl_fail(EXIT_REFUSED, "lnetd's status makes no sense: %s", strerror(-rc));
	return pending;
}

static int lnet_configure(struct ctl_opt *opt, int argc, char **argv)
{
	struct ctl_opt *t = ctl_opt(opt, "timeout");
	struct timespec poll = {0, CONFIGURE_POLL_NS};
	char what[128] = "", why[512] = "";
	uint32_t timeout = CONFIGURE_TIMEOUT_S;
	sd_bus *bus = NULL;
	double end;
	int rc;

	if (t->given && (rc = ctl_u32(t, 86400, &timeout)))
		return rc;
	rc = ctl_bus(&bus);
	if (rc)
		return rc;
	end = now_s() + timeout;
	while ((rc = engine_pending(bus, what, sizeof(what), why, sizeof(why))) == 1 &&
	       now_s() < end)
		nanosleep(&poll, NULL);
	sd_bus_flush_close_unref(bus);
	if (rc < 0)
		return -rc;
	if (rc == 1)
		return ctl_fail_errno(EXIT_REFUSED, -ETIMEDOUT,
				      "LNet is not configured after %u s: lnetd's engine (%s) is "
				      "pending: %s",
				      timeout, what, why);
	return 0;
}

static int lnet_unconfigure(struct ctl_opt *opt, int argc, char **argv)
{
	return ctl_fail_errno(EXIT_REFUSED, -EOPNOTSUPP,
			      "lnetd keeps LNet configured and does not take it down on request; "
			      "to take LNet down, stop lnetd's unit (lnetd-lustre.service beside "
			      "Lustre) and then use "
			      "Lustre's own lnetctl (lnetctl.lustre lnet unconfigure, or "
			      "lustre_rmmod)");
}

const struct ctl_cmd ctl_lnet_cmds[] = {
	{"lnet configure",
	 "[--all] [--large] [--timeout SECONDS]",
	 "Start lnetd if needed and wait until its engine holds the configuration.",
	 lnet_configure,
	 {{"all", 'a', NULL, "accepted: the NIs are lnetd's, not lnet.ko's module parameters"},
	  {"large", 'l', NULL, "accepted: lnetd takes large NIDs always"},
	  {"timeout", 0, "SECONDS", "wait at most this long (default 60; 0: ask once)"}},
	 0,
	 0},
	{"lnet unconfigure",
	 "[--all]",
	 "Refused: lnetd does not take LNet down; says how to.",
	 lnet_unconfigure,
	 {{"all", 'a', NULL, "accepted, and refused the same"}},
	 0,
	 0},
	{0},
};
