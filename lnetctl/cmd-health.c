// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-health.c - health as people see it: the counters in the "health
 * stats" block of `net show -v` and `peer show -v` (ctl_health_stats), a
 * peer NI's router credits (ctl_rtr_credits), and
 *
 *   debug recovery --local | --peer
 *
 * the NIs and peer NIs on the recovery queues, as Lustre prints them.
 */
#include <string.h>
#include <systemd/sd-bus.h>

#include "lnetctl.h"
#include "yout.h"

void ctl_health_stats(struct ctl_ahead *a, sd_bus *bus, struct yout *y, const char *nid)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *key;
	uint64_t v;
	int rc;

	/* quietly nothing where there are none (an engine without a data path) */
	rc = ctl_ahead_call(a, bus, "HealthStats", nid, &r, &e);
	if (rc >= 0)
		rc = sd_bus_message_skip(r, "bu");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "{st}");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "{st}", &key, &v)) > 0) {
		yout_key(y, key);
		yout_u64(y, v);
	}
}

void ctl_rtr_credits(struct ctl_ahead *a, sd_bus *bus, struct yout *y, const char *nid)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	int32_t avail, min;

	/* quietly nothing where there are none (the kernel engine's, so far) */
	if (ctl_ahead_call(a, bus, "RouterCredits", nid, &r, &e) >= 0 &&
	    sd_bus_message_read(r, "ii", &avail, &min) >= 0) {
		yout_key(y, "available_rtr_credits");
		yout_i64(y, avail);
		yout_key(y, "min_rtr_credits");
		yout_i64(y, min);
	}
}

static int queue(sd_bus *bus, struct yout *y, bool peer)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *nid;
	char key[32];
	uint64_t next;
	uint32_t pings;
	int rc, i = 0;

	rc = ctl_call(bus, "RecoveryQueue", &r, "b", peer);
	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(sut)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(sut)", &nid, &pings, &next)) > 0) {
		if (!i) { /* an empty queue prints nothing, as Lustre's */
			yout_key(y, peer ? "peer NI recovery" : "local NI recovery");
			yout_map_begin(y);
		}
		snprintf(key, sizeof(key), "nid-%d", i++);
		yout_key(y, key);
		yout_str(y, nid);
	}
	if (i)
		yout_map_end(y);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's recovery queue makes no sense: %s",
				 strerror(-rc))
		      : 0;
}

static int debug_recovery(struct ctl_opt *opt, int argc, char **argv)
{
	bool local = ctl_opt(opt, "local")->given, peer = ctl_opt(opt, "peer")->given;
	sd_bus *bus = NULL;
	struct yout *y;
	int rc, yrc;

	(void)argc;
	(void)argv;
	if (!local && !peer)
		return ctl_usage("say --local, --peer or both");
	rc = ctl_bus(&bus);
	if (rc)
		return ctl_finish(rc, bus, NULL);
	y = yout_begin(stdout);
	yout_map_begin(y);
	if (local)
		rc = queue(bus, y, false);
	if (!rc && peer)
		rc = queue(bus, y, true);
	yout_map_end(y);
	yrc = yout_end(y);
	if (!rc && yrc < 0)
		rc = ctl_fail(EXIT_REFUSED, "cannot write the queue: %s", strerror(-yrc));
	return ctl_finish(rc, bus, NULL);
}

const struct ctl_cmd ctl_health_cmds[] = {
	{"debug recovery",
	 "--local | --peer",
	 "Show the local NIs or peer NIs waiting on the recovery queues.",
	 debug_recovery,
	 {{"local", 0, NULL, "the local NIs"}, {"peer", 0, NULL, "the peer NIs"}},
	 0,
	 0},
	{0},
};
