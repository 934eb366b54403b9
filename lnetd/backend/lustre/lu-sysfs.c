// SPDX-License-Identifier: GPL-2.0
/*
 * lu-sysfs.c - the engine's globals (engine/globals.c, LNE_G_*) as lnet.ko
 * holds them.
 *
 *   engine global              lnet.ko
 *   numa_range                 ioctl SET/GET_NUMA_RANGE (its parameter is read only)
 *   max_interfaces             lnet_interfaces_max
 *   discovery                  lnet_peer_discovery_disabled, inverted; lnetd's
 *                              2 (verify only) has no counterpart
 *   drop_asym_route            lnet_drop_asym_route
 *   retry_count                lnet_retry_count
 *   transaction_timeout        lnet_transaction_timeout
 *   health_sensitivity         lnet_health_sensitivity
 *   recovery_interval          lnet_recovery_interval: lnet.ko's setter is a
 *                              no-op ("deprecated"), so only its value holds
 *   router_sensitivity         router_sensitivity_percentage
 *   response_tracking          lnet_response_tracking
 *   recovery_limit             lnet_recovery_limit
 *   max_recovery_ping_interval lnet_max_recovery_ping_interval (2.16 on)
 *   routing                    ioctl CONFIG_RTR / GET_BUF
 *   tiny/small/large_buffers   ioctl ADD_BUF (only while routing is on);
 *                              read back from tiny_router_buffers etc.
 *                              (0 there is lnet.ko's default, which is the
 *                              engine's default too)
 * The LND timeout (an NI's "timeout" tunable in lnetd) is the LND's own
 * parameter: ksocklnd's sock_timeout, ko2iblnd's timeout (0: derived from
 * transaction_timeout and retry_count, as lnetd's 0 is).
 * Writes go to the parameter's file; lnet.ko's setter's errno is the
 * write's (transaction_timeout must stay above retry_count, retry_count
 * needs health_sensitivity above 0, ...).
 */
#include <fcntl.h>
#include <unistd.h>

#include "lu-int.h"

static int read_file(const char *path, s64 *v)
{
	char buf[64], *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EPROTO;
	return 0;
}

static int write_file(const char *path, u32 v)
{
	char buf[16];
	int fd = open(path, O_WRONLY | O_CLOEXEC), n, rc = 0;

	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%u\n", v);
	if (write(fd, buf, n) != n)
		rc = -errno ? -errno : -EIO;
	close(fd);
	return rc;
}

int lu_sysfs_read_param(struct lu *lu, enum lu_param p, s64 *v)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/sys/module/lnet/parameters/%s", lu->root,
		 lu_param_file(p));
	return read_file(path, v);
}

/* The module parameter of each engine global held that way, else -1. */
static int param_of(enum lne_global g)
{
	switch (g) {
	case LNE_G_MAX_INTERFACES:
		return LU_P_INTERFACES_MAX;
	case LNE_G_DISCOVERY:
		return LU_P_DISCOVERY_DISABLED;
	case LNE_G_DROP_ASYM_ROUTE:
		return LU_P_DROP_ASYM_ROUTE;
	case LNE_G_RETRY_COUNT:
		return LU_P_RETRY_COUNT;
	case LNE_G_TRANSACTION_TIMEOUT:
		return LU_P_TRANSACTION_TIMEOUT;
	case LNE_G_HEALTH_SENSITIVITY:
		return LU_P_HEALTH_SENSITIVITY;
	case LNE_G_RECOVERY_INTERVAL:
		return LU_P_RECOVERY_INTERVAL;
	case LNE_G_ROUTER_SENSITIVITY:
		return LU_P_ROUTER_SENSITIVITY;
	case LNE_G_RESPONSE_TRACKING:
		return LU_P_RESPONSE_TRACKING;
	case LNE_G_RECOVERY_LIMIT:
		return LU_P_RECOVERY_LIMIT;
	case LNE_G_MAX_RECOVERY_PING_INTERVAL:
		return LU_P_MAX_RECOVERY_PING_INTERVAL;
	case LNE_G_TINY_BUFFERS:
		return LU_P_TINY_BUFFERS;
	case LNE_G_SMALL_BUFFERS:
		return LU_P_SMALL_BUFFERS;
	case LNE_G_LARGE_BUFFERS:
		return LU_P_LARGE_BUFFERS;
	case LNE_G_NUMA_RANGE:
	case LNE_G_ROUTING:
	case LNE_G__COUNT:
		break;
	}
	return -1;
}

bool lu_global_held(const struct lu *lu, enum lne_global g)
{
	int p;

	if ((unsigned int)g >= LNE_G__COUNT)
		return false;
	if (g == LNE_G_NUMA_RANGE || g == LNE_G_ROUTING)
		return lu->info.dev;
	p = param_of(g);
	return p >= 0 && (lu->info.params & (1u << p));
}

static int not_held(const struct lu *lu, enum lne_global g, struct lne_err *err)
{
	return lne_err_set(err, -EOPNOTSUPP, lne_global_info(g)->name, -1,
			   "lnet.ko %s has no such setting", lu->vname);
}

int lu_global_get(struct lu *lu, enum lne_global g, u32 *value, struct lne_err *err)
{
	const char *name;
	s64 v;
	int p, rc;

	if (!lu_global_held(lu, g))
		return (unsigned int)g >= LNE_G__COUNT
			       ? lne_err_set(err, -ENOENT, NULL, -1, "no such global setting")
			       : not_held(lu, g, err);
	name = lne_global_info(g)->name;
	if (g == LNE_G_NUMA_RANGE) {
		struct lu_ioc_value r;

		memset(&r, 0, sizeof(r));
		rc = lu_ioc(lu, LU_IOC_GET_NUMA_RANGE, &r, sizeof(r));
		if (rc)
			return lu_refused(lu, err, rc, name, "show it");
		*value = r.value;
		return 0;
	}
	if (g == LNE_G_ROUTING) {
		struct lu_routing rt;

		rc = lu_routing_get(lu, &rt, err);
		if (!rc)
			*value = rt.enabled;
		return rc;
	}
	p = param_of(g);
	rc = lu_sysfs_read_param(lu, p, &v);
	if (rc == -ENOENT)
		return lu_gone(err, rc); /* the module went away */
	if (rc)
		return lne_err_set(err, rc, name, -1, "lnet.ko %s's %s could not be read: %s",
				   lu->vname, lu_param_file(p), strerror(-rc));
	if (g == LNE_G_DISCOVERY)
		v = !v;
	if (p >= LU_P_TINY_BUFFERS && v <= 0)
		v = lne_global_info(g)->def; /* lnet.ko's default, the engine's */
	if (v < 0 || v > U32_MAX)
		return lne_err_set(err, -ERANGE, name, -1, "lnet.ko %s holds %lld, beyond lnetd's",
				   lu->vname, (long long)v);
	*value = v;
	return 0;
}

int lu_global_set(struct lu *lu, enum lne_global g, u32 value, struct lne_err *err)
{
	const char *name;
	char path[256];
	u32 cur;
	int p, rc;

	if (!lu_global_held(lu, g))
		return (unsigned int)g >= LNE_G__COUNT
			       ? lne_err_set(err, -ENOENT, NULL, -1, "no such global setting")
			       : not_held(lu, g, err);
	name = lne_global_info(g)->name;
	switch (g) {
	case LNE_G_NUMA_RANGE: {
		struct lu_ioc_value r;

		memset(&r, 0, sizeof(r));
		r.value = value;
		rc = lu_ioc(lu, LU_IOC_SET_NUMA_RANGE, &r, sizeof(r));
		return rc ? lu_refused(lu, err, rc, name, "set it") : 0;
	}
	case LNE_G_ROUTING:
		return lu_routing_set(lu, value, err);
	case LNE_G_TINY_BUFFERS:
		return lu_buffers_set(lu, value, -1, -1, err);
	case LNE_G_SMALL_BUFFERS:
		return lu_buffers_set(lu, -1, value, -1, err);
	case LNE_G_LARGE_BUFFERS:
		return lu_buffers_set(lu, -1, -1, value, err);
	case LNE_G_DISCOVERY:
		if (value > 1)
			return lne_err_set(err, -EOPNOTSUPP, name, -1,
					   "lnet.ko %s has discovery on or off only; %u (verify "
					   "only) is lnetd's own",
					   lu->vname, value);
		value = !value;
		break;
	case LNE_G_RECOVERY_INTERVAL:
		/* its setter takes any value and keeps none */
		rc = lu_global_get(lu, g, &cur, err);
		if (rc)
			return rc;
		if (cur != value)
			return lne_err_set(
				err, -EOPNOTSUPP, name, -1,
				"lnet.ko %s ignores recovery_interval (deprecated there); "
				"it stays %u",
				lu->vname, cur);
		return 0;
	case LNE_G_MAX_INTERFACES:
		/* below 16 its setter puts 200 in its place */
		if (value < 16)
			return lne_err_set(err, -EOPNOTSUPP, name, -1,
					   "lnet.ko %s takes max_interfaces below 16 as 200",
					   lu->vname);
		break;
	default:
		break;
	}
	if (value > INT32_MAX)
		return lne_err_set(err, -EOPNOTSUPP, name, -1, "lnet.ko %s holds it up to %d",
				   lu->vname, INT32_MAX);
	p = param_of(g);
	snprintf(path, sizeof(path), "%s/sys/module/lnet/parameters/%s", lu->root,
		 lu_param_file(p));
	rc = write_file(path, value);
	if (rc == -ENOENT)
		return lu_gone(err, rc);
	if (rc == -EINVAL && g == LNE_G_RETRY_COUNT)
		return lne_err_set(
			err, rc, name, -1,
			"lnet.ko %s refused %u: %s (it must stay below transaction_timeout, "
			"and health_sensitivity must be above 0)",
			lu->vname, value, strerror(-rc));
	if (rc == -EINVAL && g == LNE_G_TRANSACTION_TIMEOUT)
		return lne_err_set(err, rc, name, -1,
				   "lnet.ko %s refused %u: %s (it must stay above retry_count)",
				   lu->vname, value, strerror(-rc));
	if (rc)
		return lne_err_set(err, rc, name, -1, "lnet.ko %s refused %u: %s", lu->vname,
				   g == LNE_G_DISCOVERY ? !value : value, strerror(-rc));
	return 0;
}

static const char *lnd_param(unsigned int lnd)
{
	switch (lnd) {
	case LNE_LND_TCP:
		return "ksocklnd/parameters/sock_timeout";
	case LNE_LND_O2IB:
		return "ko2iblnd/parameters/timeout";
	case LNE_LND_KFI:
		return "kkfilnd/parameters/kfi_timeout";
	case LNE_LND_GNI:
		return "kgnilnd/parameters/timeout";
	default:
		return NULL;
	}
}

int lu_lnd_timeout_get(struct lu *lu, unsigned int lnd, u32 *value, struct lne_err *err)
{
	const char *rel = lnd_param(lnd);
	char path[256];
	s64 v;
	int rc;

	if (!rel)
		return lne_err_set(err, -EOPNOTSUPP, lne_lnd_name(lnd), -1,
				   "lnet.ko %s's LND has no timeout of its own", lu->vname);
	snprintf(path, sizeof(path), "%s/sys/module/%s", lu->root, rel);
	rc = read_file(path, &v);
	if (rc == -ENOENT)
		return lne_err_set(err, rc, lne_lnd_name(lnd), -1,
				   "its LND module is not loaded (it comes with the first NI)");
	if (rc)
		return lne_err_set(err, rc, lne_lnd_name(lnd), -1, "%s could not be read: %s", rel,
				   strerror(-rc));
	*value = v < 0 ? 0 : (u32)v;
	return 0;
}

int lu_lnd_timeout_set(struct lu *lu, unsigned int lnd, u32 value, struct lne_err *err)
{
	const char *rel = lnd_param(lnd);
	char path[256];
	int rc;

	if (!rel)
		return lne_err_set(err, -EOPNOTSUPP, lne_lnd_name(lnd), -1,
				   "lnet.ko %s's LND has no timeout of its own", lu->vname);
	if (value > INT32_MAX)
		return lne_err_set(err, -EOPNOTSUPP, lne_lnd_name(lnd), -1,
				   "the LND holds a timeout up to %d", INT32_MAX);
	snprintf(path, sizeof(path), "%s/sys/module/%s", lu->root, rel);
	rc = write_file(path, value);
	if (rc == -ENOENT)
		return lne_err_set(err, rc, lne_lnd_name(lnd), -1,
				   "its LND module is not loaded (it comes with the first NI)");
	if (rc)
		return lne_err_set(err, rc, lne_lnd_name(lnd), -1, "the LND refused %u: %s", value,
				   strerror(-rc));
	return 0;
}
