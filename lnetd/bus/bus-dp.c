// SPDX-License-Identifier: GPL-2.0
/*
 * bus-dp.c - the data path on the bus: Ping, Counters, ResetCounters.
 *
 * Anyone may ping and read counters (a ping costs the node one GET and is
 * bounded: LNETD_PINGS_MAX waiting at once, a timeout of at most
 * LNETD_PING_TIMEOUT_MAX); resetting counters needs the right to change.
 * With the kernel engine the module's data path answers: a ping waits in
 * the module (LNETK_CMD_PING blocks), so it runs on a thread of its own
 * and is answered from the event loop when it ends.  Counters are the
 * userspace engine's only, so far.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "liblnetk/lnetk-client.h"
#include "lnetd/backend/kernel.h"
#include "lnetd/dp.h"
#include "lnetd/lnetd.h"

static int no_data_path(sd_bus_error *e)
{
	return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED,
				 "resetting the lnetk module's counters is not built yet (the "
				 "userspace engine's can be)");
}

/* --- the kernel engine's ping: a thread per ping ---------------------------------- */

struct kping {
	sd_bus_message *m;
	char dst[LNETK_NID_MAX], src[LNETK_NID_MAX];
	uint32_t timeout_ms;
	int discover; /* 0: a ping; 1: discover the peer; 2: even if discovered */
	struct lnetk_ping out;
	struct lnetk_err err;
	int rc, efd;
	sd_event_source *ev;
	pthread_t th;
};

static unsigned int kpings; /* waiting, at most LNETD_PINGS_MAX */

static void *kping_thread(void *arg)
{
	struct kping *k = arg;
	struct lnetk *lk = NULL;
	uint64_t one = 1;

	k->rc = lnetk_open(&lk);
	if (!k->rc && k->discover)
		k->rc = lnetk_discover(lk, k->dst, k->discover == 2, k->timeout_ms, &k->out,
				       &k->err);
	else if (!k->rc)
		k->rc = lnetk_ping(lk, k->dst, k->src[0] ? k->src : NULL, k->timeout_ms, &k->out,
				   &k->err);
	lnetk_close(lk);
	if (write(k->efd, &one, sizeof(one)) < 0)
		k->rc = -errno;
	return NULL;
}

static int on_kping_done(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct kping *k = userdata;
	sd_bus_error e = SD_BUS_ERROR_NULL;

	(void)s;
	(void)fd;
	(void)events;
	pthread_join(k->th, NULL);
	kpings--;
	if (k->rc) {
		sd_bus_error_setf(&e,
				  k->rc == -ETIMEDOUT || k->rc == -EHOSTUNREACH ||
						  k->rc == -ENOTCONN
					  ? LNETD_ERR_UNREACHABLE
					  : LNETD_ERR_INVALID,
				  "failed to %s %s: %s", k->discover ? "discover" : "ping", k->dst,
				  k->err.msg[0] ? k->err.msg : strerror(-k->rc));
		sd_bus_reply_method_error(k->m, &e);
		sd_bus_error_free(&e);
	} else if (lnetd_ping_reply(k->m, &k->out) < 0) {
		sd_bus_reply_method_errorf(k->m, LNETD_ERR_PROTOCOL,
					   "cannot build the ping's reply");
	}
	sd_event_source_disable_unref(k->ev);
	close(k->efd);
	sd_bus_message_unref(k->m);
	free(k);
	return 0;
}

int bus_kernel_ping(struct lnetd *d, sd_bus_message *m, const char *dst, const char *src,
		    uint32_t timeout, int discover, sd_bus_error *e)
{
	struct kping *k;
	int rc;

	if (kpings >= LNETD_PINGS_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_LIMIT,
					 "%u pings are waiting already: try again later",
					 LNETD_PINGS_MAX);
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	snprintf(k->dst, sizeof(k->dst), "%s", dst);
	snprintf(k->src, sizeof(k->src), "%s", src);
	k->timeout_ms = timeout;
	k->discover = discover;
	k->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = k->efd < 0 ? -errno : 0;
	if (!rc)
		rc = sd_event_add_io(d->event, &k->ev, k->efd, EPOLLIN, on_kping_done, k);
	if (!rc)
		k->m = sd_bus_message_ref(m);
	if (!rc)
		rc = -pthread_create(&k->th, NULL, kping_thread, k);
	if (rc) {
		sd_bus_message_unref(k->m);
		sd_event_source_disable_unref(k->ev);
		if (k->efd >= 0)
			close(k->efd);
		free(k);
		return rc;
	}
	kpings++;
	return 1;
}

/* Ping(s nid, s source, u timeout_ms) -> a{sv}: primary, multi_rail, features, pid, nids a(ss). */
int bus_method_ping(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const char *dst, *src;
	struct lne_nid nd, ns;
	char canon[LNE_NID_STR_MAX];
	uint32_t timeout;
	int rc;

	rc = sd_bus_message_read(m, "ssu", &dst, &src, &timeout);
	if (rc < 0)
		return rc;
	rc = bus_nid_arg(dst, &nd, canon, e);
	if (rc < 0)
		return rc;
	if (*src) {
		rc = bus_nid_arg(src, &ns, canon, e);
		if (rc < 0)
			return rc;
		if (!lne_ni_find(d->mirror, &ns))
			return sd_bus_error_setf(e, LNETD_ERR_NOT_FOUND,
						 "source %s is not a NI of this node", canon);
	}
	if (!timeout || timeout > LNETD_PING_TIMEOUT_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "timeout %u ms is outside 1..%u ms",
					 timeout, LNETD_PING_TIMEOUT_MAX);
	if (d->kb)
		return bus_kernel_ping(d, m, dst, src, timeout, 0, e);
	if (!d->dp)
		return no_data_path(e);
	return lnetd_dp_ping(d->dp, m, &nd, *src ? &ns : NULL, timeout, e);
}

static int put_count(void *arg, const char *name, u64 v)
{
	return sd_bus_message_append(arg, "{st}", name, (uint64_t)v);
}

static int append_counts(sd_bus_message *r, const struct lne_counts *c)
{
	int rc = sd_bus_message_open_container(r, 'a', "{st}");

	if (rc >= 0)
		rc = lne_counts_each(c, put_count, r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	return rc;
}

/* --- the kernel engine's counters: the module's, read now ---------------------------- */

struct kcount {
	char nid[LNETK_NID_MAX]; /* "" for the node's own */
	bool local;
	char name[64];
	uint64_t value;
};

struct kcounts {
	struct kcount *v;
	size_t n, cap;
};

static int kcount_add(void *arg, const char *nid, bool local, const char *name, uint64_t value)
{
	struct kcounts *k = arg;
	struct kcount *c;

	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 256;
		struct kcount *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	c = &k->v[k->n++];
	snprintf(c->nid, sizeof(c->nid), "%s", nid ? nid : "");
	c->local = local;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
	return 0;
}

/* Whether @name is one of the per-NID counters (lne_counts_each's), not the node's own. */
static int is_count(void *arg, const char *name, u64 v)
{
	(void)v;
	return strcmp(name, arg) ? 0 : -EEXIST;
}

static bool per_nid_name(const char *name)
{
	static const struct lne_counts zero;

	return lne_counts_each(&zero, is_count, (void *)name) == -EEXIST;
}

static int kernel_counters(struct lnetd *d, sd_bus_message *m, sd_bus_error *e)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lnetk *lk = kbackend_lnetk(d->kb);
	struct lnetk_err lerr = {""};
	struct kcounts k = {0};
	size_t i, j;
	int rc, pass;

	if (!lk)
		return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED,
					 "the lnetk module is not loaded: it has no counters");
	rc = lnetk_counters(lk, kcount_add, &k, NULL, &lerr);
	if (rc) {
		free(k.v);
		return bus_fail(e, rc, lerr.msg[0] ? lerr.msg : "the module's counters");
	}
	rc = sd_bus_message_new_method_return(m, &r);
	/* the node's: its totals, then its own */
	for (pass = 0; rc >= 0 && pass < 2; pass++) {
		rc = sd_bus_message_open_container(r, 'a', "{st}");
		for (i = 0; rc >= 0 && i < k.n; i++)
			if (!k.v[i].nid[0] && per_nid_name(k.v[i].name) == !pass)
				rc = sd_bus_message_append(r, "{st}", k.v[i].name, k.v[i].value);
		if (rc >= 0)
			rc = sd_bus_message_close_container(r);
	}
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(sba{st})");
	/* each NID's items come together, in the module's order */
	for (i = 0; rc >= 0 && i < k.n; i = j) {
		for (j = i; j < k.n && !strcmp(k.v[j].nid, k.v[i].nid); j++)
			;
		if (!k.v[i].nid[0])
			continue;
		rc = sd_bus_message_open_container(r, 'r', "sba{st}");
		if (rc >= 0)
			rc = sd_bus_message_append(r, "sb", k.v[i].nid, (int)k.v[i].local);
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'a', "{st}");
		for (size_t x = i; rc >= 0 && x < j; x++)
			rc = sd_bus_message_append(r, "{st}", k.v[x].name, k.v[x].value);
		if (rc >= 0)
			rc = sd_bus_message_close_container(r);
		if (rc >= 0)
			rc = sd_bus_message_close_container(r);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	free(k.v);
	if (rc < 0)
		return rc;
	return sd_bus_send(NULL, r, NULL);
}

/*
 * Counters() -> (a{st} node, a(sba{st}) per_nid): the node's totals and
 * faults, then each local NI (true) and peer NI (false) it has counted.
 */
int bus_method_counters(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lne_node *n;
	int rc;
	uint32_t b;

	if (d->kb)
		return kernel_counters(d, m, e);
	if (!d->dp)
		return no_data_path(e);
	n = lnetd_dp_node(d->dp);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = append_counts(r, &n->st.c);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{st}");
	if (rc >= 0)
		rc = lne_node_stats_each(n, put_count, r);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(sba{st})");
	for (b = 0; rc >= 0 && b < LNE_STAT_HASH; b++) {
		const struct lne_stat *s;

		for (s = n->stats[b]; rc >= 0 && s; s = s->hnext) {
			char nid[LNE_NID_STR_MAX];
			struct lne_nid x;

			lnw_nid_from4(s->nid, &x);
			lne_nid_format(&x, nid, sizeof(nid));
			rc = sd_bus_message_open_container(r, 'r', "sba{st}");
			if (rc >= 0)
				rc = sd_bus_message_append(r, "sb", nid, (int)s->local);
			if (rc >= 0)
				rc = append_counts(r, &s->c);
			if (rc >= 0)
				rc = sd_bus_message_close_container(r);
		}
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc < 0)
		return rc;
	return sd_bus_send(NULL, r, NULL);
}

int bus_method_reset_counters(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "");
	if (rc < 0)
		return rc;
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!d->dp)
		return no_data_path(e);
	lne_node_stats_reset(lnetd_dp_node(d->dp));
	return sd_bus_reply_method_return(m, "");
}

/*
 * Selftest(s nid, a{sv} options{mode s, size u, count u, concurrency u, ack b,
 * interval_ms u}) -> a{sv}{messages u, failed u, bytes t, elapsed_ns t, rails
 * a(stt), and with an interval trace a(tat): time, each rail's bytes}: the
 * traffic generator (lnetd/dp-test.c).  It loads the network: it needs the
 * right to change, as SetTestService does.
 */
int bus_method_selftest(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const char *dst, *mode = "write";
	uint32_t size = 1u << 20, count = 1000, conc = 8;
	uint32_t interval = 0;
	int ack = 1;
	struct field f[] = {
		{"mode", 's', &mode},
		{"size", 'u', &size},
		{"count", 'u', &count},
		{"concurrency", 'u', &conc},
		{"ack", 'b', &ack},
		{"interval_ms", 'u', &interval},
		{NULL},
	};
	char canon[LNE_NID_STR_MAX];
	struct lne_nid nd;
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "s", &dst);
	if (rc < 0)
		return rc;
	rc = bus_read_fields(m, f, "Selftest", e);
	if (rc < 0)
		return rc;
	rc = bus_nid_arg(dst, &nd, canon, e);
	if (rc < 0)
		return rc;
	if (size > LNW_MTU)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "size %u is above the MTU (%u)", size,
					 LNW_MTU);
	if (!count || count > LNETD_TEST_COUNT_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "count %u is outside 1..%u", count,
					 LNETD_TEST_COUNT_MAX);
	if (!conc || conc > LNETD_TEST_CONCURRENCY_MAX)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "concurrency %u is outside 1..%u",
					 conc, LNETD_TEST_CONCURRENCY_MAX);
	if (interval && interval < LNETD_TEST_INTERVAL_MIN)
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "interval %u ms is below %u ms",
					 interval, LNETD_TEST_INTERVAL_MIN);
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!d->dp)
		return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED,
					 "the traffic generator runs in the userspace engine only, "
					 "so far: run lnetd --engine=userspace");
	return lnetd_dp_selftest(d->dp, m, &nd, mode, size, count, conc, ack, interval, e);
}

/* SetTestService(b on): whether this node serves the traffic generator's test portal. */
int bus_method_set_test_service(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct caller c;
	int on, rc;

	rc = sd_bus_message_read(m, "b", &on);
	if (rc < 0)
		return rc;
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!d->dp)
		return sd_bus_error_setf(
			e, LNETD_ERR_UNSUPPORTED,
			"the test service runs in the userspace engine only, so far");
	lnetd_dp_node(d->dp)->test_service = on;
	return sd_bus_reply_method_return(m, "");
}
