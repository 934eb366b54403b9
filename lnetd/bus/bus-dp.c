// SPDX-License-Identifier: GPL-2.0
/*
 * bus-dp.c - the data path on the bus: Ping, Counters, ResetCounters,
 * Selftest and SetTestService.
 *
 * Anyone may ping and read counters (a ping costs the node one GET and is
 * bounded: LNETD_PINGS_MAX waiting at once, a timeout of at most
 * LNETD_PING_TIMEOUT_MAX); resetting counters needs the right to change.
 * With the kernel engine the module's data path answers: a ping waits in
 * the module (LNETK_CMD_PING blocks), so it runs on a thread of its own
 * and is answered from the event loop when it ends; so does a Selftest.
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
#include "lnetd/backend/lnetk/kernel.h"
#include "lnetd/backend/userspace/dp.h"
#include "lnetd/lnetd.h"

static int no_data_path(sd_bus_error *e)
{
	return sd_bus_error_setf(e, LNETD_ERR_UNSUPPORTED,
				 "no data path runs: the lnetk module is not loaded");
}

/* --- the kernel engine's blocking commands: a thread per call ------------------------- */

/*
 * LNETK_CMD_PING and LNETK_CMD_SELFTEST wait in the module for the network,
 * so each runs on a thread of its own with a netlink socket of its own, and
 * its D-Bus call is answered from the event loop when the thread is done.
 */
struct kcall {
	sd_bus_message *m;
	int (*run)(struct lnetk *lk, struct kcall *k);	  /* on the thread */
	void (*answer)(struct kcall *k, sd_bus_error *e); /* on the loop, when run said 0 */
	char dst[LNETK_NID_MAX], src[LNETK_NID_MAX];
	uint32_t timeout_ms;
	int discover; /* a ping's: 0 a ping; 1 discover the peer; 2 even if discovered */
	union {
		struct lnetk_ping ping;
		struct lnetk_test test;
	} out;
	struct lne_test test; /* a selftest's request, then its results */
	uint32_t interval_ms; /* a selftest's trace: sampled this often, 0 none */
	uint64_t *trace;      /* the module's rows, as liblnetk fills them */
	struct lnetk_err err;
	int rc, efd;
	sd_event_source *ev;
	pthread_t th;
	char label[LNETK_NID_MAX + 16];
};

static unsigned int kcalls; /* waiting, at most LNETD_PINGS_MAX */

static void *kcall_thread(void *arg)
{
	struct kcall *k = arg;
	struct lnetk *lk = NULL;
	uint64_t one = 1;

	k->rc = lnetk_open(&lk);
	if (!k->rc)
		k->rc = k->run(lk, k);
	lnetk_close(lk);
	if (write(k->efd, &one, sizeof(one)) < 0)
		k->rc = -errno;
	return NULL;
}

static int on_kcall_done(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct kcall *k = userdata;
	sd_bus_error e = SD_BUS_ERROR_NULL;

	(void)s;
	(void)fd;
	(void)events;
	pthread_join(k->th, NULL);
	kcalls--;
	if (k->rc)
		sd_bus_error_setf(&e,
				  k->rc == -ETIMEDOUT || k->rc == -EHOSTUNREACH ||
						  k->rc == -ENOTCONN
					  ? LNETD_ERR_UNREACHABLE
					  : LNETD_ERR_INVALID,
				  "failed to %s: %s", k->label,
				  k->err.msg[0] ? k->err.msg : strerror(-k->rc));
	else
		k->answer(k, &e);
	if (sd_bus_error_is_set(&e))
		sd_bus_reply_method_error(k->m, &e);
	sd_bus_error_free(&e);
	sd_event_source_disable_unref(k->ev);
	close(k->efd);
	sd_bus_message_unref(k->m);
	free(k->trace);
	free(k->test.trace);
	free(k);
	return 0;
}

/* Start @k (filled by the caller: run, answer, label, arguments) on a thread. */
static int kcall_start(struct lnetd *d, sd_bus_message *m, struct kcall *k, sd_bus_error *e)
{
	int rc;

	if (kcalls >= LNETD_PINGS_MAX) {
		free(k);
		return sd_bus_error_setf(e, LNETD_ERR_LIMIT,
					 "%u calls wait for the module already: try again later",
					 LNETD_PINGS_MAX);
	}
	k->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = k->efd < 0 ? -errno : 0;
	if (!rc)
		rc = sd_event_add_io(d->event, &k->ev, k->efd, EPOLLIN, on_kcall_done, k);
	if (!rc)
		k->m = sd_bus_message_ref(m);
	if (!rc)
		rc = -pthread_create(&k->th, NULL, kcall_thread, k);
	if (rc) {
		sd_bus_message_unref(k->m);
		sd_event_source_disable_unref(k->ev);
		if (k->efd >= 0)
			close(k->efd);
		free(k);
		return rc;
	}
	kcalls++;
	return 1;
}

static int kping_run(struct lnetk *lk, struct kcall *k)
{
	if (k->discover)
		return lnetk_discover(lk, k->dst, k->discover == 2, k->timeout_ms, &k->out.ping,
				      &k->err);
	return lnetk_ping(lk, k->dst, k->src[0] ? k->src : NULL, k->timeout_ms, &k->out.ping,
			  &k->err);
}

static void kping_answer(struct kcall *k, sd_bus_error *e)
{
	if (lnetd_ping_reply(k->m, &k->out.ping) < 0)
		sd_bus_error_setf(e, LNETD_ERR_PROTOCOL, "cannot build the ping's reply");
}

int bus_kernel_ping(struct lnetd *d, sd_bus_message *m, const char *dst, const char *src,
		    uint32_t timeout, int discover, sd_bus_error *e)
{
	struct kcall *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->run = kping_run;
	k->answer = kping_answer;
	snprintf(k->label, sizeof(k->label), "%s %s", discover ? "discover" : "ping", dst);
	snprintf(k->dst, sizeof(k->dst), "%s", dst);
	snprintf(k->src, sizeof(k->src), "%s", src);
	k->timeout_ms = timeout;
	k->discover = discover;
	return kcall_start(d, m, k, e);
}

static int ktest_run(struct lnetk *lk, struct kcall *k)
{
	struct lnetk_test *t = &k->out.test;

	t->dst = k->dst;
	t->mode = (uint8_t)k->test.mode;
	t->size = k->test.size;
	t->count = k->test.count;
	t->concurrency = k->test.conc;
	t->no_ack = !k->test.ack;
	if (k->interval_ms) {
		k->trace = calloc((size_t)LNETK_TEST_SAMPLES_MAX * (LNETK_TEST_RAILS_MAX + 1),
				  sizeof(uint64_t));
		if (!k->trace)
			return -ENOMEM;
		t->trace = k->trace;
		t->max_samples = LNETK_TEST_SAMPLES_MAX;
		t->interval_ms = k->interval_ms;
	}
	return lnetk_selftest(lk, t, &k->err);
}

/* The module's trace rows (stride 1 + LNETK_TEST_RAILS_MAX) as the generator keeps them. */
static void ktest_trace(struct kcall *k, const struct lnetk_test *o)
{
	struct lne_test *t = &k->test;
	size_t stride = t->nrails + 1;
	uint32_t i;

	if (!o->nsamples || t->nrails != o->nrails)
		return;
	t->trace = calloc((size_t)o->nsamples * stride, sizeof(uint64_t));
	if (!t->trace)
		return; /* the reply goes without it */
	for (i = 0; i < o->nsamples; i++)
		memcpy(t->trace + i * stride, o->trace + (size_t)i * (LNETK_TEST_RAILS_MAX + 1),
		       stride * sizeof(uint64_t));
	t->nsamples = t->max_samples = o->nsamples;
}

/* The module's results as the engine's generator keeps them, for one reply for both. */
static void ktest_answer(struct kcall *k, sd_bus_error *e)
{
	const struct lnetk_test *o = &k->out.test;
	struct lne_test *t = &k->test;
	unsigned int i;

	(void)e;
	t->finished = o->messages;
	t->failed = o->failed;
	t->first_err = o->error;
	t->nrails = 0;
	for (i = 0; i < o->nrails && i < LNE_TEST_RAILS_MAX; i++)
		if (!lne_nid_parse(o->rail[i].nid, &t->rails[t->nrails].nid, NULL)) {
			t->rails[t->nrails].sent = o->rail[i].sent;
			t->rails[t->nrails++].received = o->rail[i].received;
		}
	ktest_trace(k, o);
	lnetd_selftest_reply(k->m, t, o->elapsed_ns);
}

static int kernel_selftest(struct lnetd *d, sd_bus_message *m, const struct lne_test *t,
			   const char *dst, uint32_t interval_ms, sd_bus_error *e)
{
	struct kcall *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->run = ktest_run;
	k->answer = ktest_answer;
	k->test = *t;
	k->test.trace = NULL;
	k->interval_ms = interval_ms;
	snprintf(k->label, sizeof(k->label), "test %s", dst);
	snprintf(k->dst, sizeof(k->dst), "%s", dst);
	return kcall_start(d, m, k, e);
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

			lne_node_nid(n, s->nid, &x);
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
	if (d->kb) {
		struct lnetk *lk = kbackend_lnetk(d->kb);
		struct lnetk_err lerr = {""};

		rc = lk ? lnetk_counters_reset(lk, &lerr) : -ENODEV;
		if (rc)
			return bus_fail(e, rc, lerr.msg[0] ? lerr.msg : "the module's counters");
	} else if (d->dp) {
		lne_node_stats_reset(lnetd_dp_node(d->dp));
	} else {
		return no_data_path(e);
	}
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
	static const char *const modes[] = {
		[LNE_TEST_WRITE] = "write", [LNE_TEST_READ] = "read", [LNE_TEST_PING] = "ping"};
	struct lnetd *d = userdata;
	const char *dst, *mode = "write";
	struct lne_test t = {.size = 1u << 20, .count = 1000, .conc = 8};
	uint32_t interval = 0;
	int ack = 1;
	struct field f[] = {
		{"mode", 's', &mode},
		{"size", 'u', &t.size},
		{"count", 'u', &t.count},
		{"concurrency", 'u', &t.conc},
		{"ack", 'b', &ack},
		{"interval_ms", 'u', &interval},
		{NULL},
	};
	char canon[LNE_NID_STR_MAX];
	struct lne_err err;
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "s", &dst);
	if (rc < 0)
		return rc;
	rc = bus_read_fields(m, f, "Selftest", e);
	if (rc < 0)
		return rc;
	rc = bus_nid_arg(dst, &t.dst, canon, e);
	if (rc < 0)
		return rc;
	for (t.mode = 0; t.mode < LNE_ARRAY_SIZE(modes) && strcmp(mode, modes[t.mode]); t.mode++)
		;
	if (t.mode == LNE_ARRAY_SIZE(modes))
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "mode '%s' is none of write, read, ping", mode);
	t.ack = ack;
	if (lne_test_check(&t, &err))
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "%s", err.msg);
	if (interval && (interval < LNETD_TEST_INTERVAL_MIN || interval > LNETD_TEST_INTERVAL_MAX))
		return sd_bus_error_setf(e, LNETD_ERR_RANGE, "interval %u ms is outside %u..%u ms",
					 interval, LNETD_TEST_INTERVAL_MIN,
					 LNETD_TEST_INTERVAL_MAX);
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (d->kb)
		return kernel_selftest(d, m, &t, canon, interval, e);
	if (!d->dp)
		return no_data_path(e);
	return lnetd_dp_selftest(d->dp, m, &t, interval);
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
	if (d->kb) {
		struct lnetk *lk = kbackend_lnetk(d->kb);
		struct lnetk_err lerr = {""};

		rc = lk ? lnetk_test_service(lk, on, &lerr) : -ENODEV;
		if (rc)
			return bus_fail(e, rc,
					lerr.msg[0] ? lerr.msg : "the module's test service");
	} else if (d->dp) {
		lnetd_dp_node(d->dp)->test_service = on;
	} else {
		return no_data_path(e);
	}
	return sd_bus_reply_method_return(m, "");
}
