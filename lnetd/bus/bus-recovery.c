// SPDX-License-Identifier: GPL-2.0
/*
 * bus-recovery.c - what health and recovery look like from outside:
 * HealthStats (a local NI's or peer NI's "health stats", as `net show -v`
 * and `peer show -v` print them) and RecoveryQueue (`lnetctl debug
 * recovery`), and RouterCredits (a peer NI's router credits, as `peer
 * show -v` prints them).  Reads, open to everyone, answered by the engine
 * that runs LNet (backend.h).
 */
#include <errno.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/lnetd.h"

static int put_stat(void *arg, const char *key, u64 value)
{
	return sd_bus_message_append(arg, "{st}", key, value);
}

#define HEALTH_KEYS_MAX 16 /* more than lne_node_health_each() gives */

struct kstats {
	unsigned int n;
	uint64_t v[HEALTH_KEYS_MAX];
	char names[HEALTH_KEYS_MAX][32];
};

static int kstat_add(void *arg, const char *key, uint64_t v)
{
	struct kstats *k = arg;

	if (k->n == HEALTH_KEYS_MAX)
		return -EPROTO;
	snprintf(k->names[k->n], sizeof(k->names[0]), "%s", key);
	k->v[k->n++] = v;
	return 0;
}

/* A method's one NID argument, read and checked: 0, or a D-Bus error naming it. */
static int read_nid(sd_bus_message *m, struct lne_nid *nid, char *canon, sd_bus_error *e)
{
	const char *s;
	int rc = sd_bus_message_read(m, "s", &s);

	return rc < 0 ? rc : bus_nid_arg(s, nid, canon, e);
}

/* HealthStats(s nid) -> b local, u health, a{st} stats */
int bus_method_health_stats(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lne_err lerr = {.msg = ""};
	char canon[LNE_NID_STR_MAX];
	struct kstats k = {0};
	struct lne_nid nid;
	uint32_t health;
	unsigned int i;
	bool local;
	int rc;

	rc = read_nid(m, &nid, canon, e);
	if (rc < 0)
		return rc;
	if (!backend_ops_of(d)->health_stats)
		return bus_engine_cannot(d, "tell health statistics", e);
	rc = backend_ops_of(d)->health_stats(d->backend, &nid, &local, &health, kstat_add, &k,
					     &lerr);
	if (rc)
		return bus_engine_fail(e, rc, lerr.msg);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = sd_bus_message_append(r, "bu", local, health);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{st}");
	for (i = 0; rc >= 0 && i < k.n; i++)
		rc = put_stat(r, k.names[i], k.v[i]);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc < 0 ? rc : sd_bus_send(NULL, r, NULL);
}

/* RouterCredits(s nid) -> i available, i min: what a peer NI may have this router hold. */
int bus_method_router_credits(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err lerr = {.msg = ""};
	char canon[LNE_NID_STR_MAX];
	struct lne_nid nid;
	int32_t avail, min;
	int rc;

	rc = read_nid(m, &nid, canon, e);
	if (rc < 0)
		return rc;
	if (!backend_ops_of(d)->rtr_credits)
		return bus_engine_cannot(d, "tell router credits", e);
	rc = backend_ops_of(d)->rtr_credits(d->backend, &nid, &avail, &min, &lerr);
	if (rc == -ENOENT)
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "%s is no peer NI", canon);
	if (rc)
		return bus_engine_fail(e, rc, lerr.msg);
	return sd_bus_reply_method_return(m, "ii", avail, min);
}

static int put_queued(void *arg, const char *nid, uint32_t pings, uint64_t next_ms)
{
	return sd_bus_message_append(arg, "(sut)", nid, pings, next_ms / 1000);
}

/* RecoveryQueue(b peer) -> a(sut) queued: NID, pings failed in a row, next ping (s) */
int bus_method_recovery_queue(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lne_err lerr = {.msg = ""};
	int peer, rc;

	rc = sd_bus_message_read(m, "b", &peer);
	if (rc < 0)
		return rc;
	if (!backend_ops_of(d)->recovery)
		return bus_engine_cannot(d, "list its recovery queues", e);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(sut)");
	if (rc >= 0) {
		rc = backend_ops_of(d)->recovery(d->backend, peer, put_queued, r, &lerr);
		if (rc < 0 && lerr.msg[0])
			return bus_engine_fail(e, rc, lerr.msg);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc < 0 ? rc : sd_bus_send(NULL, r, NULL);
}
