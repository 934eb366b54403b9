// SPDX-License-Identifier: GPL-2.0
/*
 * lu-probe.c - lu_open(): what the loaded lnet.ko speaks, decided at run
 * time from the module itself, never from a build option.
 *
 *  - its version, /sys/module/lnet/version (MODULE_VERSION): "0.7.0" in
 *    2.15 and 2.16 (a constant), the release from 2.17 on;
 *  - /dev/lnet (2.15 registers it from libcfs, 2.16 on from lnet itself);
 *  - the genl family "lnet" and its op list (CTRL_CMD_GETFAMILY): 2.16 and
 *    later; which commands have an op says what netlink serves (the
 *    family's version is 5 everywhere and decides nothing);
 *  - which module parameters exist (lnet_max_recovery_ping_interval from
 *    2.16, ...).
 * The release decides only what no probe can: the size of the LND tunables
 * union the ioctls carry, and whether the stats have the resend counters.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lu-nl.h"

bool lu_path(const struct lu *lu, char *buf, size_t size, const char *rel)
{
	int n = snprintf(buf, size, "%s/%s", lu->root, rel);

	return n > 0 && (size_t)n < size;
}

static const char *const param_file[LU_P__COUNT] = {
	[LU_P_DISCOVERY_DISABLED] = "lnet_peer_discovery_disabled",
	[LU_P_INTERFACES_MAX] = "lnet_interfaces_max",
	[LU_P_DROP_ASYM_ROUTE] = "lnet_drop_asym_route",
	[LU_P_RETRY_COUNT] = "lnet_retry_count",
	[LU_P_TRANSACTION_TIMEOUT] = "lnet_transaction_timeout",
	[LU_P_HEALTH_SENSITIVITY] = "lnet_health_sensitivity",
	[LU_P_RECOVERY_INTERVAL] = "lnet_recovery_interval",
	[LU_P_ROUTER_SENSITIVITY] = "router_sensitivity_percentage",
	[LU_P_RESPONSE_TRACKING] = "lnet_response_tracking",
	[LU_P_RECOVERY_LIMIT] = "lnet_recovery_limit",
	[LU_P_MAX_RECOVERY_PING_INTERVAL] = "lnet_max_recovery_ping_interval",
	[LU_P_NUMA_RANGE] = "lnet_numa_range",
	[LU_P_TINY_BUFFERS] = "tiny_router_buffers",
	[LU_P_SMALL_BUFFERS] = "small_router_buffers",
	[LU_P_LARGE_BUFFERS] = "large_router_buffers",
};

const char *lu_param_file(enum lu_param p)
{
	return param_file[p];
}

/* "2.15.8" (or "2.15.8_12_gabc") into LU_VCODE(); 0 for anything else. */
static u32 parse_version(const char *s)
{
	unsigned int v[3] = {0, 0, 0};
	int i;

	for (i = 0; i < 3; i++) {
		char *end;
		unsigned long n;

		if (*s < '0' || *s > '9')
			return 0;
		n = strtoul(s, &end, 10);
		if (n > 255)
			return 0;
		v[i] = n;
		s = end;
		if (i < 2 && *s++ != '.')
			return i == 1 ? LU_VCODE(v[0], v[1], 0) : 0;
	}
	return LU_VCODE(v[0], v[1], v[2]);
}

static void read_version(struct lu *lu)
{
	char path[256], *nl;
	FILE *f;

	if (!lu_path(lu, path, sizeof(path), "sys/module/lnet/version"))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(lu->info.version, sizeof(lu->info.version), f)) {
		nl = strchr(lu->info.version, '\n');
		if (nl)
			*nl = '\0';
	}
	fclose(f);
	lu->info.vcode = parse_version(lu->info.version);
}

/* CTRL_CMD_GETFAMILY's answer: the id, the version and which commands have an op. */
static int family_cb(const u8 *payload, size_t len, u16 flags, void *arg)
{
	struct lu *lu = arg;
	struct lu_attrs it, ops, op;
	struct lu_attr a, o, f;

	(void)flags;
	lu_attrs_init(&it, payload, len);
	while (lu_attr_next(&it, &a)) {
		switch (a.type) {
		case CTRL_ATTR_FAMILY_ID:
			lu_attr_u16(&a, &lu->info.genl_id);
			break;
		case CTRL_ATTR_VERSION:
			lu_attr_u32(&a, &lu->info.genl_version);
			break;
		case CTRL_ATTR_OPS:
			lu_attrs_init(&ops, a.data, a.len);
			while (lu_attr_next(&ops, &o)) {
				lu_attrs_init(&op, o.data, o.len);
				while (lu_attr_next(&op, &f)) {
					u32 id;

					if (f.type == CTRL_ATTR_OP_ID && lu_attr_u32(&f, &id) &&
					    id < 32)
						lu->info.genl_ops |= 1u << id;
				}
			}
			break;
		default:
			break;
		}
	}
	return 0;
}

int lu_nl_probe(struct lu *lu)
{
	struct lu_msg m;
	struct lne_err err;
	int rc;

	lu->info.genl = false;
	lu->info.genl_ops = 0;
	lu->info.genl_id = 0;
	if (lu->nl < 0 && lu_nl_open(lu))
		return -ENOTCONN;
	if (lu_msg_init(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1))
		return -ENOMEM;
	lu_msg_put_str(&m, CTRL_ATTR_FAMILY_NAME, "lnet");
	rc = lu_nl_request(lu, &m, family_cb, lu, NULL, "name its genl family", &err);
	lu_msg_free(&m);
	lu->info.genl = !rc && lu->info.genl_id;
	if (!lu->info.genl)
		lu_nl_close(lu);
	return rc;
}

/*
 * The release, for sentences and the layouts: 2.15 and 2.16 report the
 * module version "0.7.0" (LNET_VERSION, a constant that predates them);
 * 2.17 reports its own ("2.17.57").  Without a real version the genl
 * family tells 2.16 (it has one) from 2.15 (it has none), and the ROUTING
 * op (2.16.58 on) a 2.17-like layout.
 */
static void probe_release(struct lu *lu)
{
	u32 v = lu->info.vcode;

	if (!v || v < LU_VCODE(2, 0, 0)) {
		if (!lu->info.genl)
			v = LU_VCODE(2, 15, 0);
		else if (lu->info.genl_ops & (1u << LU_CMD_ROUTING))
			v = LU_VCODE(2, 17, 0);
		else
			v = LU_VCODE(2, 16, 0);
		snprintf(lu->info.release, sizeof(lu->info.release), "%u.%u", v >> 16,
			 (v >> 8) & 0xff);
		lu->info.vcode = v;
	} else {
		snprintf(lu->info.release, sizeof(lu->info.release), "%s", lu->info.version);
	}
	lu->info.tun_lnd = v < LU_VCODE(2, 16, 0)   ? LU_TUN_LND_2_15
			   : v < LU_VCODE(2, 17, 0) ? LU_TUN_LND_2_16
						    : LU_TUN_LND_2_17;
	lu->info.stats_resends = v >= LU_VCODE(2, 17, 0);
	lu->info.route_sensitivity = v < LU_VCODE(2, 17, 0);
	snprintf(lu->vname, sizeof(lu->vname), "%s", lu->info.release);
}

int lu_open(struct lu **out, const char *root, struct lne_err *err)
{
	char path[256];
	struct stat st;
	struct lu *lu;
	int p;

	*out = NULL;
	lu = lne_zalloc(sizeof(*lu));
	if (!lu)
		return lne_err_set(err, -ENOMEM, NULL, -1, "out of memory");
	lu->fd = -1;
	lu->nl = -1;
	if (root && strcmp(root, "/"))
		snprintf(lu->root, sizeof(lu->root), "%s", root);
	if (!lu_path(lu, path, sizeof(path), "sys/module/lnet") || stat(path, &st) < 0) {
		lne_free(lu);
		return lne_err_set(err, -ENOENT, NULL, -1, "lnet.ko is not loaded");
	}
	read_version(lu);
	for (p = 0; p < LU_P__COUNT; p++) {
		snprintf(path, sizeof(path), "%s/sys/module/lnet/parameters/%s", lu->root,
			 param_file[p]);
		if (!stat(path, &st))
			lu->info.params |= 1u << p;
	}
	if (lu_path(lu, path, sizeof(path), "dev/lnet"))
		lu->fd = open(path, O_RDWR | O_CLOEXEC);
	lu->info.dev = lu->fd >= 0;
	/* the family lives in the real kernel: a test tree has none */
	if (!lu->root[0])
		lu_nl_probe(lu);
	probe_release(lu);
	*out = lu;
	return 0;
}

void lu_close(struct lu *lu)
{
	if (!lu)
		return;
	if (lu->fd >= 0)
		close(lu->fd);
	lu_nl_close(lu);
	free(lu->rx);
	lne_free(lu);
}

const struct lu_info *lu_info(const struct lu *lu)
{
	return &lu->info;
}

void lu_set_ioctl_only(struct lu *lu, bool ioctl_only)
{
	lu->ioctl_only = ioctl_only;
}

const char *lu_vname(const struct lu *lu)
{
	return lu->vname;
}
