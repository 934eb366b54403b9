// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-discover.c - lnetctl discover NID[,NID] [--force]: lnetd discovers
 * each peer (ping, and a push of our NIDs to a Multi-Rail one) and the
 * output is Lustre's: the peer as discovery left it, as a ping prints a
 * node.  It needs the right to change, as Lustre's needs root.
 */
#include "lnetctl.h"

static int discover_call(sd_bus *bus, const char *nid, sd_bus_message **r, sd_bus_error *e,
			 void *arg)
{
	return ctl_call_e(bus, "Discover", r, e, "sb", nid, *(int *)arg);
}

static int discover(struct ctl_opt *opt, int argc, char **argv)
{
	int force = ctl_opt(opt, "force")->given;

	return ctl_each_node(argc, argv, "discover", discover_call, &force);
}

const struct ctl_cmd ctl_disc_cmds[] = {
	{"discover",
	 "NID[,NID...] [NID...] [--force]",
	 "Discover peers: learn every NID of each node, and tell it ours.",
	 discover,
	 {{"force", 'f', NULL, "discover again a peer discovered already"}},
	 1,
	 1024},
	{0},
};
