// SPDX-License-Identifier: GPL-2.0
/*
 * globals.c - LNet's global settings, with Lustre's names, defaults and
 * ranges (lnetctl global show / lnetctl set <name> <value>).
 */
#include "model.h"

static const struct lne_global_info globals[LNE_G__COUNT] = {
	[LNE_G_NUMA_RANGE] = {"numa_range", 0, 0, 0xffffffffu,
			      "NUMA distances up to this value count as equal", "numa_range"},
	[LNE_G_DISCOVERY] = {"discovery", 1, 0, 2,
			     "dynamic peer discovery on (1), off (0) or verify only (2)",
			     "discovery"},
	[LNE_G_MAX_INTERFACES] = {"max_interfaces", 200, 16, 0xffffffffu,
				  "most NIDs a peer may have", "max_intf"},
	[LNE_G_RETRY_COUNT] = {"retry_count", 2, 0, 200,
			       "resends of a message before failing it; below transaction_timeout",
			       "retry_count"},
	[LNE_G_TRANSACTION_TIMEOUT] = {"transaction_timeout", 150, 1, 0xffffffffu,
				       "seconds a message may take, resends included",
				       "transaction_timeout"},
	[LNE_G_HEALTH_SENSITIVITY] = {"health_sensitivity", 100, 0, 1000,
				      "health lost by an interface on each failure",
				      "health_sensitivity"},
	[LNE_G_RECOVERY_INTERVAL] = {"recovery_interval", 1, 1, 0xffffffffu,
				     "seconds between recovery pings of unhealthy interfaces",
				     "recovery_interval"},
	[LNE_G_ROUTER_SENSITIVITY] = {"router_sensitivity", 100, 0, 100,
				      "percent of health a router interface must keep to be used",
				      "router_sensitivity"},
	[LNE_G_DROP_ASYM_ROUTE] = {"drop_asym_route", 0, 0, 1,
				   "drop messages that arrive over an asymmetric route",
				   "drop_asym_route"},
	[LNE_G_RESPONSE_TRACKING] = {"response_tracking", 3, 0, 3,
				     "0 none, 1 GET only, 2 PUT only, 3 both", "response_tracking"},
	[LNE_G_RECOVERY_LIMIT] = {"recovery_limit", 0, 0, 0xffffffffu,
				  "seconds to keep pinging an unhealthy interface, 0 forever",
				  "recovery_limit"},
	[LNE_G_MAX_RECOVERY_PING_INTERVAL] = {"max_recovery_ping_interval", 900, 1, 0xffffffffu,
					      "longest back-off between recovery pings, seconds",
					      "max_recovery_ping_interval"},
	[LNE_G_ROUTING] = {"routing", 0, 0, 1, "forward messages for other nodes (a router)",
			   "enable", "routing"},
	/* Lustre's defaults (router.c); each buffer is a forwarded message held */
	[LNE_G_TINY_BUFFERS] = {"tiny_buffers", 2048, 1, 1u << 24,
				"router buffers for messages without payload", "tiny", "buffers"},
	[LNE_G_SMALL_BUFFERS] = {"small_buffers", 16384, 1, 1u << 24,
				 "router buffers for payloads of up to 4096 bytes", "small",
				 "buffers"},
	[LNE_G_LARGE_BUFFERS] = {"large_buffers", 1024, 1, 1u << 24,
				 "router buffers for payloads of up to 1 MiB", "large", "buffers"},
};

const struct lne_global_info *lne_global_info(enum lne_global g)
{
	return &globals[g];
}

int lne_global_lookup(const char *name)
{
	int g;

	for (g = 0; g < LNE_G__COUNT; g++)
		if (!strcmp(globals[g].name, name))
			return g;
	return -ENOENT;
}

int lne_global_set(struct lne_inst *ln, enum lne_global g, u32 value, struct lne_err *err)
{
	const struct lne_global_info *gi;

	if ((unsigned int)g >= LNE_G__COUNT)
		return lne_err_set(err, -ENOENT, NULL, -1, "no such global setting");
	gi = &globals[g];
	if (value < gi->min || value > gi->max)
		return lne_err_set(err, -ERANGE, gi->name, -1, "%u is outside %u..%u", value,
				   gi->min, gi->max);
	/* Resends must fit in the transaction: Lustre keeps retry_count below
	 * transaction_timeout, whichever of the two is set. */
	if (g == LNE_G_RETRY_COUNT && value >= ln->globals[LNE_G_TRANSACTION_TIMEOUT])
		return lne_err_set(err, -EINVAL, gi->name, -1,
				   "%u must be below transaction_timeout (%u)", value,
				   ln->globals[LNE_G_TRANSACTION_TIMEOUT]);
	if (g == LNE_G_TRANSACTION_TIMEOUT && value <= ln->globals[LNE_G_RETRY_COUNT])
		return lne_err_set(err, -EINVAL, gi->name, -1, "%u must be above retry_count (%u)",
				   value, ln->globals[LNE_G_RETRY_COUNT]);
	ln->globals[g] = value;
	lne_changed(ln);
	return 0;
}
