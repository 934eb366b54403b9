// SPDX-License-Identifier: GPL-2.0
/*
 * bus-dp.c - the data path on the bus: Ping, Counters, ResetCounters,
 * Selftest and SetTestService, and the answers of the calls that wait for
 * the network (Discover's too: bus-disc.c).
 *
 * Anyone may ping and read counters (a ping costs the node one GET and is
 * bounded: LNETD_PINGS_MAX waiting at once, a timeout of at most
 * LNETD_PING_TIMEOUT_MAX); resetting counters needs the right to change.
 * The engine that runs LNet answers (backend.h): a ping, a discovery and a
 * selftest are calls the engine finishes later, on the event loop, when the
 * network has answered; the D-Bus call is answered then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "bus-int.h"
#include "lnetd/backend/backend.h"
#include "lnetd/lnetd.h"

/* --- the answers of calls that wait ------------------------------------------------------ */

/* A node's ping info (a ping's answer, or the peer a discovery left) as the reply a{sv}. */
static int reply_ping(sd_bus_message *call, const struct bk_ping_info *p)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	static const char *const status[] = {
		[LNE_PNI_NA] = "unknown", [LNE_PNI_UP] = "up", [LNE_PNI_DOWN] = "down"};
	const char *primary = p->n ? p->nid[0].nid : "";
	unsigned int i;
	int rc;

	rc = sd_bus_message_new_method_return(call, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{sv}");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}{sv}{sv}{sv}", "primary", "s", primary,
					   "multi_rail", "b",
					   (int)!!(p->features & LNW_PING_FEAT_MULTI_RAIL),
					   "features", "u", p->features, "pid", "u", p->pid);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "s", "nids");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'v', "a(ss)");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(ss)");
	for (i = 0; rc >= 0 && i < p->n; i++)
		rc = sd_bus_message_append(
			r, "(ss)", p->nid[i].nid,
			p->nid[i].status <= LNE_PNI_DOWN ? status[p->nid[i].status] : "unknown");
	for (i = 0; rc >= 0 && i < 4; i++)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_send(NULL, r, NULL);
	return rc;
}

static int append_trace(sd_bus_message *r, const struct lne_test *t)
{
	size_t i, k;
	int rc;

	rc = sd_bus_message_open_container(r, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "s", "trace");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'v', "a(tat)");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(tat)");
	for (i = 0; rc >= 0 && i < t->nsamples; i++) {
		const uint64_t *row = t->trace + i * (t->nrails + 1);

		rc = sd_bus_message_open_container(r, 'r', "tat");
		if (rc >= 0)
			rc = sd_bus_message_append(r, "t", row[0]);
		if (rc >= 0)
			rc = sd_bus_message_open_container(r, 'a', "t");
		for (k = 0; rc >= 0 && k < t->nrails; k++)
			rc = sd_bus_message_append(r, "t", row[k + 1]);
		if (rc >= 0)
			rc = sd_bus_message_close_container(r);
		if (rc >= 0)
			rc = sd_bus_message_close_container(r);
	}
	for (i = 0; rc >= 0 && i < 3; i++)
		rc = sd_bus_message_close_container(r);
	return rc;
}

/* What a selftest did: messages, failed, bytes, elapsed_ns, rails, and its trace. */
static int reply_selftest(sd_bus_message *call, const struct lne_test *t, uint64_t elapsed)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	size_t i;
	int rc;

	rc = sd_bus_message_new_method_return(call, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{sv}");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}{sv}{sv}{sv}", "messages", "u", t->finished,
					   "failed", "u", t->failed, "bytes", "t",
					   lne_test_bytes(t), "elapsed_ns", "t", elapsed);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'e', "sv");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "s", "rails");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'v', "a(stt)");
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "(stt)");
	for (i = 0; rc >= 0 && i < t->nrails; i++) {
		char nid[LNE_NID_STR_MAX];

		lne_nid_format(&t->rails[i].nid, nid, sizeof(nid));
		rc = sd_bus_message_append(r, "(stt)", nid, t->rails[i].sent, t->rails[i].received);
	}
	for (i = 0; rc >= 0 && i < 3; i++)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0 && t->trace)
		rc = append_trace(r, t);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_send(NULL, r, NULL);
	return rc;
}

/* The engine finished a call: answer its D-Bus call (c->arg), and let it go. */
static void call_answered(struct bk_call *c, bool test)
{
	sd_bus_message *m = c->arg;
	const struct lne_test *t = &c->test;

	if (c->rc)
		bus_reply_call_error(m, c->rc, c->err.msg);
	else if (test && t->failed == t->finished)
		sd_bus_reply_method_errorf(m, LNETD_ERR_UNREACHABLE,
					   "every one of %u messages failed: %s", t->finished,
					   strerror(-t->first_err));
	else if (test ? reply_selftest(m, t, c->elapsed_ns) < 0 : reply_ping(m, &c->ping) < 0)
		sd_bus_reply_method_errorf(m, LNETD_ERR_PROTOCOL, "cannot build the %s reply",
					   test ? "selftest's" : "ping's");
	sd_bus_message_unref(m);
	bk_call_free(c);
}

/* A ping's or a discovery's end: the node answered as a ping's answer. */
static void ping_done(struct bk_call *c)
{
	call_answered(c, false);
}

static void test_done(struct bk_call *c)
{
	call_answered(c, true);
}

int bus_call_start(struct lnetd *d, sd_bus_message *m,
		   int (*op)(struct backend *b, struct bk_call *c), struct bk_call *c,
		   bool selftest, sd_bus_error *e)
{
	int rc;

	c->done = selftest ? test_done : ping_done;
	c->arg = sd_bus_message_ref(m);
	rc = op(d->backend, c);
	if (rc >= 0)
		return 1; /* answered when the call is done, perhaps already */
	sd_bus_message_unref(m);
	rc = bus_call_fail(e, rc, c->err.msg[0] ? c->err.msg : strerror(-rc));
	bk_call_free(c);
	return rc;
}

/* Ping(s nid, s source, u timeout_ms) -> a{sv}: primary, multi_rail, features, pid, nids a(ss). */
int bus_method_ping(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	const char *dst, *src;
	struct lne_nid nd, ns = {0};
	char canon[LNE_NID_STR_MAX];
	struct bk_call *c;
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
	if (!backend_ops_of(d)->ping)
		return bus_engine_cannot(d, "ping", e);
	c = bk_call_new();
	if (!c)
		return -ENOMEM;
	c->dst = nd;
	c->src = ns;
	c->has_src = *src;
	c->timeout_ms = timeout;
	return bus_call_start(d, m, backend_ops_of(d)->ping, c, false, e);
}

/*
 * Counters' reply, written as the engine gives them (backend.h: the node's
 * first, then each NID's together): the node's rows are held until the
 * first NID's, to go out as its totals then its own; each NID's go out as
 * they come, so a node counting 100,000 NIDs is not copied first.
 */
struct counts_out {
	sd_bus_message *r;
	struct node_count {
		char name[64];
		uint64_t value;
	} * node;
	size_t nnode, cap;
	bool nids;		   /* the per-NID array is open */
	char nid[LNE_NID_STR_MAX]; /* the NID whose record is open, "" none */
	bool local;		   /* and whether as a local NI or as a peer NI */
};

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

/* The node's two dictionaries, then the per-NID array opened. */
static int counts_node(struct counts_out *o)
{
	size_t i;
	int rc = 0, pass;

	for (pass = 0; rc >= 0 && pass < 2; pass++) {
		rc = sd_bus_message_open_container(o->r, 'a', "{st}");
		for (i = 0; rc >= 0 && i < o->nnode; i++)
			if (per_nid_name(o->node[i].name) == !pass)
				rc = sd_bus_message_append(o->r, "{st}", o->node[i].name,
							   o->node[i].value);
		if (rc >= 0)
			rc = sd_bus_message_close_container(o->r);
	}
	if (rc >= 0)
		rc = sd_bus_message_open_container(o->r, 'a', "(sba{st})");
	o->nids = true;
	return rc;
}

static int counts_close_nid(struct counts_out *o)
{
	int rc = 0;

	if (o->nid[0])
		rc = sd_bus_message_close_container(o->r);
	if (rc >= 0 && o->nid[0])
		rc = sd_bus_message_close_container(o->r);
	o->nid[0] = '\0';
	return rc;
}

static int count_row(void *arg, const char *nid, bool local, const char *name, uint64_t value)
{
	struct counts_out *o = arg;
	int rc = 0;

	if (!nid) {
		if (o->nids)
			return -EPROTO; /* not as backend.h says */
		if (o->nnode == o->cap) {
			size_t cap = o->cap ? 2 * o->cap : 64;
			struct node_count *v = realloc(o->node, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			o->node = v;
			o->cap = cap;
		}
		snprintf(o->node[o->nnode].name, sizeof(o->node[0].name), "%s", name);
		o->node[o->nnode++].value = value;
		return 0;
	}
	if (!o->nids)
		rc = counts_node(o);
	/* a node's own NID is counted as a local NI and, pinged, as a peer NI: two records */
	if (rc >= 0 && (strcmp(o->nid, nid) || o->local != local)) {
		rc = counts_close_nid(o);
		if (rc >= 0)
			rc = sd_bus_message_open_container(o->r, 'r', "sba{st}");
		if (rc >= 0)
			rc = sd_bus_message_append(o->r, "sb", nid, (int)local);
		if (rc >= 0)
			rc = sd_bus_message_open_container(o->r, 'a', "{st}");
		snprintf(o->nid, sizeof(o->nid), "%s", nid);
		o->local = local;
	}
	if (rc >= 0)
		rc = sd_bus_message_append(o->r, "{st}", name, value);
	return rc < 0 ? rc : 0;
}

/*
 * Counters() -> (a{st} node, a(sba{st}) per_nid): the node's totals and
 * faults, then each local NI (true) and peer NI (false) it has counted.
 */
int bus_method_counters(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *r = NULL;
	struct lne_err err = {.msg = ""};
	struct counts_out o = {0};
	int rc;

	if (!backend_ops_of(d)->counters)
		return bus_engine_cannot(d, "count messages", e);
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc < 0)
		return rc;
	o.r = r;
	rc = backend_ops_of(d)->counters(d->backend, count_row, &o, &err);
	if (rc < 0 && err.msg[0]) {
		free(o.node);
		return bus_engine_fail(e, rc, err.msg);
	}
	if (rc >= 0 && !o.nids)
		rc = counts_node(&o);
	if (rc >= 0)
		rc = counts_close_nid(&o);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	free(o.node);
	if (rc < 0)
		return rc;
	return sd_bus_send(NULL, r, NULL);
}

int bus_method_reset_counters(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err err = {.msg = ""};
	struct caller c;
	int rc;

	rc = sd_bus_message_read(m, "");
	if (rc < 0)
		return rc;
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!backend_ops_of(d)->counters_reset)
		return bus_engine_cannot(d, "reset counters", e);
	rc = backend_ops_of(d)->counters_reset(d->backend, &err);
	if (rc)
		return bus_engine_fail(e, rc, err.msg);
	return sd_bus_reply_method_return(m, "");
}

/*
 * Selftest(s nid, a{sv} options{mode s, size u, count u, concurrency u, ack b,
 * interval_ms u, timeout_ms u}) -> a{sv}{messages u, failed u, bytes t, elapsed_ns t, rails
 * a(stt), and with an interval trace a(tat): time, each rail's bytes}: the
 * traffic generator (the engine's: engine/node-test.h).  It loads the network: it needs the
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
		{"timeout_ms", 'u', &t.timeout_ms},
		{NULL},
	};
	char canon[LNE_NID_STR_MAX];
	struct bk_call *call;
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
	if (!backend_ops_of(d)->selftest)
		return bus_engine_cannot(d, "run the traffic generator", e);
	call = bk_call_new();
	if (!call)
		return -ENOMEM;
	call->dst = t.dst;
	call->test = t;
	call->interval_ms = interval;
	return bus_call_start(d, m, backend_ops_of(d)->selftest, call, true, e);
}

/* SetTestService(b on): whether this node serves the traffic generator's test portal. */
int bus_method_set_test_service(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct lnetd *d = userdata;
	struct lne_err err = {.msg = ""};
	struct caller c;
	int on, rc;

	rc = sd_bus_message_read(m, "b", &on);
	if (rc < 0)
		return rc;
	rc = bus_authorise(m, &c, e);
	if (rc != 0)
		return rc;
	if (!backend_ops_of(d)->test_service)
		return bus_engine_cannot(d, "serve the traffic generator", e);
	rc = backend_ops_of(d)->test_service(d->backend, on, &err);
	if (rc)
		return bus_engine_fail(e, rc, err.msg);
	return sd_bus_reply_method_return(m, "");
}
