// SPDX-License-Identifier: GPL-2.0
/*
 * bus-recovery.c - what health and recovery look like from outside:
 * HealthStats (a local NI's or peer NI's "health stats", as `net show -v`
 * and `peer show -v` print them) and RecoveryQueue (`lnetctl debug
 * recovery`), and RouterCredits (a peer NI's router credits, as `peer
 * show -v` prints them).  Reads, open to everyone: the userspace engine's
 * node, or the module's (LNETK_CMD_HEALTH_GET, RECOVERY_GET) with the
 * kernel engine (RouterCredits: the userspace engine's only, so far).
 */
#include <errno.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "liblnetk/lnetk-client.h"
#include "lnetd/backend/lnetk/kernel.h"
#include "lnetd/backend/userspace/dp.h"
#include "lnetd/lnetd.h"

static int no_node(sd_bus_error *e)
{
	return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED,
				 "no data path runs: the lnetk module is not loaded");
}

static int kernel_fail(sd_bus_error *e, int rc, const struct lnetk_err *lerr)
{
	return rc == -ENOENT
		       ? sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "%s", lerr->msg)
		       : bus_fail(e, rc, lerr->msg[0] ? lerr->msg : "the lnetk module refused");
}

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

/* HealthStats with the kernel engine: the module's counters, in the same form. */
/* A method's one NID argument, read and checked: 0, or a D-Bus error naming it. */
static int read_nid(sd_bus_message *m, struct lne_nid *nid, char *canon, sd_bus_error *e)
{
	const char *s;
	int rc = sd_bus_message_read(m, "s", &s);

	return rc < 0 ? rc : bus_nid_arg(s, nid, canon, e);
}

static int kernel_health_stats(struct lnetd *d, sd_bus_message *m, const char *canon,
			       sd_bus_error *e)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lnetk *lk = kbackend_lnetk(d->kb);
	struct lnetk_err lerr = {""};
	struct kstats k = {0};
	uint32_t health;
	unsigned int i;
	bool local;
	int rc;

	if (!lk)
		return no_node(e);
	rc = lnetk_health_get(lk, canon, &local, &health, kstat_add, &k, &lerr);
	if (rc)
		return kernel_fail(e, rc, &lerr);
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

/* HealthStats(s nid) -> b local, u health, a{st} stats */
int bus_method_health_stats(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	char canon[LNE_NID_STR_MAX];
	struct lne_peer_ni *pni = NULL;
	struct lne_ni *ni;
	struct lne_node *n;
	struct lne_nid nid;
	uint32_t health;
	int rc;

	rc = read_nid(m, &nid, canon, e);
	if (rc < 0)
		return rc;
	if (d->kb)
		return kernel_health_stats(d, m, canon, e);
	n = lnetd_dp_node(d->dp);
	if (!n)
		return no_node(e);
	ni = lne_ni_find(n->ln, &nid);
	if (!ni)
		pni = lne_peer_ni_find(n->ln, &nid);
	if (ni)
		health = (uint32_t)ni->health;
	else if (pni)
		health = (uint32_t)pni->health;
	else
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "%s is no NI or peer NI", canon);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = sd_bus_message_append(r, "bu", ni != NULL, health);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{st}");
	if (rc >= 0)
		rc = lne_node_health_each(n, &nid, ni != NULL, put_stat, r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc < 0 ? rc : sd_bus_send(NULL, r, NULL);
}

/* RouterCredits(s nid) -> i available, i min: what a peer NI may have this router hold. */
int bus_method_router_credits(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	char canon[LNE_NID_STR_MAX];
	struct lne_node *n;
	struct lne_nid nid;
	s32 avail, min;
	int rc;

	rc = read_nid(m, &nid, canon, e);
	if (rc < 0)
		return rc;
	if (d->kb) {
		struct lnetk *lk = kbackend_lnetk(d->kb);
		struct lnetk_err lerr = {""};
		int32_t ka, km;

		if (!lk)
			return no_node(e);
		rc = lnetk_rtr_credits(lk, canon, &ka, &km, &lerr);
		if (rc == -ENOENT)
			return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "%s is no peer NI", canon);
		if (rc)
			return kernel_fail(e, rc, &lerr);
		return sd_bus_reply_method_return(m, "ii", ka, km);
	}
	n = lnetd_dp_node(d->dp);
	if (!n)
		return no_node(e);
	if (!lne_peer_ni_find(n->ln, &nid))
		return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND, "%s is no peer NI", canon);
	lne_node_rtr_credits(n, &nid, &avail, &min);
	return sd_bus_reply_method_return(m, "ii", (int32_t)avail, (int32_t)min);
}

static int put_queued(void *arg, const struct lne_nid *nid, const struct lne_health *h)
{
	char s[LNE_NID_STR_MAX];

	lne_nid_format(nid, s, sizeof(s));
	return sd_bus_message_append(arg, "(sut)", s, h->ping_count, h->next_ping_ms / 1000);
}

static int put_kqueued(void *arg, const char *nid, uint32_t pings, uint64_t next_ms)
{
	return sd_bus_message_append(arg, "(sut)", nid, pings, next_ms / 1000);
}

/* RecoveryQueue(b peer) -> a(sut) queued: NID, pings failed in a row, next ping (s) */
int bus_method_recovery_queue(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lne_node *n;
	int peer, rc;

	rc = sd_bus_message_read(m, "b", &peer);
	if (rc < 0)
		return rc;
	n = lnetd_dp_node(d->dp);
	if (!n && !(d->kb && kbackend_lnetk(d->kb)))
		return no_node(e);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(sut)");
	if (rc >= 0 && !n) {
		struct lnetk_err lerr = {""};

		rc = lnetk_recovery_get(kbackend_lnetk(d->kb), peer, put_kqueued, r, &lerr);
		if (rc < 0)
			return kernel_fail(e, rc, &lerr);
	} else if (rc >= 0)
		rc = lne_node_recovery_each(n, !peer, put_queued, r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc < 0 ? rc : sd_bus_send(NULL, r, NULL);
}
