// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-routing.c - routing show: whether this node forwards for others, and
 * its router buffer pools as Lustre prints them (one CPT: lnetd's engines
 * keep one pool of each size).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "engine/model.h"
#include "engine/node.h"
#include "lnetctl.h"
#include "yout.h"

struct pools {
	uint32_t routing, nbuffers[LNE_RB__COUNT];
	uint64_t used[LNE_RB__COUNT], waiting[LNE_RB__COUNT], peak[LNE_RB__COUNT];
};

static const char *const pool_name[LNE_RB__COUNT] = {"tiny", "small", "large"};

static int read_globals(sd_bus *bus, struct pools *p)
{
	static const enum lne_global size[LNE_RB__COUNT] = {LNE_G_TINY_BUFFERS, LNE_G_SMALL_BUFFERS,
							    LNE_G_LARGE_BUFFERS};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	const char *name;
	uint32_t v;
	int rc, k;

	rc = ctl_call(bus, "ListGlobals", &r, NULL);
	if (rc)
		return rc;
	rc = sd_bus_message_enter_container(r, 'a', "(su)");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "(su)", &name, &v)) > 0) {
		if (lne_global_lookup(name) == LNE_G_ROUTING)
			p->routing = v;
		for (k = 0; k < LNE_RB__COUNT; k++)
			if (lne_global_lookup(name) == (int)size[k])
				p->nbuffers[k] = v;
	}
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "lnetd's globals make no sense: %s", strerror(-rc))
		      : 0;
}

/* What the pools hold now; without a data path (no module), nothing. */
static void read_use(sd_bus *bus, struct pools *p)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	/* each pool's counters, named router_<pool>_<what> */
	static const struct {
		const char *what;
		size_t off;
	} use[] = {
		{"in_use", offsetof(struct pools, used)},
		{"waiting", offsetof(struct pools, waiting)},
		{"peak", offsetof(struct pools, peak)},
	};
	const char *name;
	char want[64];
	uint64_t v;
	size_t u;
	int rc, k;

	rc = sd_bus_call_method(bus, LNETD_BUS_NAME, LNETD_BUS_PATH, LNETD_BUS_MANAGER, "Counters",
				&e, &r, NULL);
	if (rc >= 0)
		rc = sd_bus_message_skip(r, "a{st}");
	if (rc >= 0)
		rc = sd_bus_message_enter_container(r, 'a', "{st}");
	while (rc >= 0 && (rc = sd_bus_message_read(r, "{st}", &name, &v)) > 0)
		for (k = 0; k < LNE_RB__COUNT; k++) {
			snprintf(want, sizeof(want), "router_%s_", pool_name[k]);
			if (strncmp(name, want, strlen(want)))
				continue;
			for (u = 0; u < sizeof(use) / sizeof(use[0]); u++)
				if (!strcmp(name + strlen(want), use[u].what))
					((uint64_t *)((char *)p + use[u].off))[k] = v;
			break;
		}
}

static int routing_show(struct ctl_opt *opt, int argc, char **argv)
{
	/* pages a buffer of each pool takes: none, one, the MTU's */
	static const uint32_t npages[LNE_RB__COUNT] = {0, 1, LNW_MTU / 4096};
	struct pools p = {0};
	struct yout *y;
	sd_bus *bus = NULL;
	int rc, k;

	(void)opt;
	(void)argc;
	(void)argv;
	rc = ctl_bus(&bus);
	if (!rc)
		rc = read_globals(bus, &p);
	if (rc) {
		sd_bus_flush_close_unref(bus);
		return rc;
	}
	read_use(bus, &p);
	y = yout_begin(stdout);
	yout_map_begin(y);
	yout_key(y, "routing");
	yout_seq_begin(y);
	yout_map_begin(y);
	yout_key(y, "cpt[0]");
	yout_map_begin(y);
	for (k = 0; k < LNE_RB__COUNT; k++) {
		/* a node that does not route lends no buffers, as Lustre's frees them */
		int64_t n = p.routing ? p.nbuffers[k] : 0;

		yout_key(y, pool_name[k]);
		yout_map_begin(y);
		yout_key(y, "npages");
		yout_u32(y, npages[k]);
		yout_key(y, "nbuffers");
		yout_i64(y, n);
		yout_key(y, "credits");
		yout_i64(y, n - (int64_t)(p.used[k] + p.waiting[k]));
		yout_key(y, "mincredits");
		yout_i64(y, n - (int64_t)p.peak[k]);
		yout_map_end(y);
	}
	yout_map_end(y);
	yout_map_end(y);
	yout_map_begin(y);
	yout_key(y, "enable");
	yout_u32(y, p.routing);
	yout_map_end(y);
	yout_seq_end(y);
	/* the sizes, as an import takes them back */
	yout_key(y, "buffers");
	yout_map_begin(y);
	for (k = 0; k < LNE_RB__COUNT; k++) {
		yout_key(y, pool_name[k]);
		yout_u32(y, p.nbuffers[k]);
	}
	yout_map_end(y);
	yout_map_end(y);
	rc = yout_end(y);
	sd_bus_flush_close_unref(bus);
	return rc < 0 ? ctl_fail(EXIT_REFUSED, "cannot show routing: %s", strerror(-rc)) : 0;
}

const struct ctl_cmd ctl_routing_cmds[] = {
	{"routing show",
	 "",
	 "Show whether this node routes, and its router buffer pools.",
	 routing_show,
	 {{0}},
	 0,
	 0},
	{0},
};
