// SPDX-License-Identifier: GPL-2.0
/*
 * dp-test.c - the traffic generator, in the spirit of lnet_selftest's bulk
 * read/write test: a stream of PUTs to (write), GETs from (read) or pings
 * of a peer's node, a window of them in flight, timed, with the bytes each
 * local NI (rail) carried.  The peer serves the test portal only when told
 * (engine/node.h: LNE_PORTAL_TEST).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus/bus-errors.h"
#include "dp.h"
#include "engine/node-svc.h"
#include "lnetd.h"

enum mode {
	M_WRITE,
	M_READ,
	M_PING
};

struct rail {
	struct lne_nid nid;
	uint64_t sent, received; /* at the start */
};

struct selftest {
	struct lnetd_dp *dp;
	sd_bus_message *m;
	struct lne_nid dst;
	enum mode mode;
	uint32_t size, count, conc;
	bool ack;
	uint32_t started, done, failed, inflight;
	int first_err;
	bool busy;
	uint64_t t0;
	struct rail *rails;
	size_t nrails;
	/* the trace: every @interval_ms, each rail's bytes so far (sent + received) */
	uint32_t interval_ms;
	sd_event_source *timer;
	uint64_t *trace; /* nsamples rows of (time since t0 in ns, then nrails counts) */
	size_t nsamples;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void snapshot(struct selftest *t, struct lne_node *n, bool start)
{
	size_t i;

	for (i = 0; i < t->nrails; i++) {
		const struct lne_counts *c = lne_node_counts(n, &t->rails[i].nid);
		uint64_t s = c ? c->send_length : 0, r = c ? c->recv_length : 0;

		if (start) {
			t->rails[i].sent = s;
			t->rails[i].received = r;
		} else {
			t->rails[i].sent = s - t->rails[i].sent;
			t->rails[i].received = r - t->rails[i].received;
		}
	}
}

static void sample(struct selftest *t)
{
	struct lne_node *n = lnetd_dp_node(t->dp);
	uint64_t *row;
	size_t i;

	if (!t->trace || t->nsamples == LNETD_TEST_SAMPLES_MAX)
		return;
	row = t->trace + t->nsamples++ * (t->nrails + 1);
	row[0] = now_ns() - t->t0;
	for (i = 0; i < t->nrails; i++) {
		const struct lne_counts *c = lne_node_counts(n, &t->rails[i].nid);

		row[i + 1] = c ? c->send_length + c->recv_length - t->rails[i].sent -
					     t->rails[i].received
			       : 0;
	}
}

static int on_sample(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct selftest *t = userdata;

	sample(t);
	sd_event_source_set_time(s, usec + (uint64_t)t->interval_ms * 1000);
	return 0;
}

static int append_trace(sd_bus_message *r, const struct selftest *t)
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

static int reply(struct selftest *t, uint64_t elapsed)
{
	__attribute__((cleanup(sd_bus_message_unrefp))) sd_bus_message *r = NULL;
	uint64_t bytes = (uint64_t)(t->done - t->failed) * (t->mode == M_PING ? 0 : t->size);
	size_t i;
	int rc;

	rc = sd_bus_message_new_method_return(t->m, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{sv}");
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}{sv}{sv}{sv}", "messages", "u", t->done,
					   "failed", "u", t->failed, "bytes", "t", bytes,
					   "elapsed_ns", "t", elapsed);
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

static void topup(struct selftest *t);

static void on_done(struct lne_msg *msg, int status)
{
	struct selftest *t = msg->arg;

	t->inflight--;
	t->done++;
	if (status) {
		t->failed++;
		if (!t->first_err)
			t->first_err = status;
	}
	topup(t);
}

static void finish(struct selftest *t)
{
	struct lne_node *n = lnetd_dp_node(t->dp);
	uint64_t elapsed = now_ns() - t->t0;

	sample(t); /* the last row: where it ended */
	snapshot(t, n, false);
	if (t->failed == t->done)
		sd_bus_reply_method_errorf(t->m, LNETD_ERR_UNREACHABLE,
					   "every one of %u messages failed: %s", t->done,
					   strerror(-t->first_err));
	else if (reply(t, elapsed) < 0)
		sd_bus_reply_method_errorf(t->m, LNETD_ERR_PROTOCOL, "cannot build the reply");
	sd_bus_message_unref(t->m);
	sd_event_source_disable_unref(t->timer);
	free(t->trace);
	free(t->rails);
	free(t);
}

/*
 * A write's payload: a request of LNE_SVC_BODY to LNETD_TEST_BODY_MAX bytes
 * starts with a test-request body (node-svc.h: opcode ost_write, jobid
 * "lnet_selftest", uid and gid 0), as an RPC carries its fields; other
 * sizes are bulk, zeros the node lends, classified by the NID alone.
 */
static u8 *write_payload(uint32_t size)
{
	struct lne_svc_body b = {.opcode = 4, .jobid = "lnet_selftest"};
	u8 *p;

	if (size < LNE_SVC_BODY || size > LNETD_TEST_BODY_MAX)
		return NULL;
	p = calloc(1, size);
	if (p)
		lne_svc_body_pack(&b, p);
	return p;
}

/* Keep the window full; a message that fails at once counts and the loop goes on. */
static void topup(struct selftest *t)
{
	struct lne_node *n;

	if (t->busy)
		return;
	t->busy = true;
	n = lnetd_dp_node(t->dp);
	while (t->inflight < t->conc && t->started < t->count) {
		int rc;

		t->started++;
		t->inflight++;
		switch (t->mode) {
		case M_WRITE:
			rc = lne_node_put(n, &t->dst, NULL, LNE_PORTAL_TEST, 0, 0,
					  write_payload(t->size), t->size, true,
					  LNETD_TEST_TIMEOUT_MS, on_done, t, NULL);
			break;
		case M_READ:
			rc = lne_node_get(n, &t->dst, NULL, LNE_PORTAL_TEST, 0, t->size,
					  LNETD_TEST_TIMEOUT_MS, on_done, t, NULL);
			break;
		default:
			rc = lne_node_ping(n, &t->dst, NULL, LNETD_TEST_TIMEOUT_MS, on_done, t,
					   NULL);
			break;
		}
		if (rc) { /* refused before it started: no callback comes */
			t->inflight--;
			t->done++;
			t->failed++;
			if (!t->first_err)
				t->first_err = rc;
		}
	}
	t->busy = false;
	lnetd_dp_kick(t->dp);
	if (t->done == t->count)
		finish(t);
}

int lnetd_dp_selftest(struct lnetd_dp *dp, sd_bus_message *m, const struct lne_nid *dst,
		      const char *mode, uint32_t size, uint32_t count, uint32_t conc, bool ack,
		      uint32_t interval_ms, sd_bus_error *e)
{
	struct lnetd *d = lnetd_dp_daemon(dp);
	struct selftest *t;
	struct lne_ni *ni;
	size_t k = 0;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (!strcmp(mode, "write"))
		t->mode = M_WRITE;
	else if (!strcmp(mode, "read"))
		t->mode = M_READ;
	else if (!strcmp(mode, "ping"))
		t->mode = M_PING;
	else {
		free(t);
		return sd_bus_error_setf(e, LNETD_ERR_INVALID,
					 "mode '%s' is none of write, read, ping", mode);
	}
	t->dp = dp;
	t->dst = *dst;
	t->size = size;
	t->count = count;
	t->conc = conc;
	t->ack = ack;
	t->rails = calloc(d->mirror->nni ? d->mirror->nni : 1, sizeof(*t->rails));
	if (!t->rails) {
		free(t);
		return -ENOMEM;
	}
	lne_list_for_each_entry(ni, &d->mirror->nis, all_link)
		if (k < d->mirror->nni)
			t->rails[k++].nid = ni->nid;
	t->nrails = k;
	if (interval_ms) {
		t->interval_ms = interval_ms;
		t->trace =
			calloc((size_t)LNETD_TEST_SAMPLES_MAX * (t->nrails + 1), sizeof(uint64_t));
		if (!t->trace || sd_event_add_time_relative(d->event, &t->timer, CLOCK_MONOTONIC,
							    (uint64_t)interval_ms * 1000, 1000,
							    on_sample, t) < 0) {
			free(t->trace);
			free(t->rails);
			free(t);
			return -ENOMEM;
		}
		sd_event_source_set_enabled(t->timer, SD_EVENT_ON);
	}
	t->m = sd_bus_message_ref(m);
	snapshot(t, lnetd_dp_node(dp), true);
	t->t0 = now_ns();
	sample(t); /* the first row: zeros at the start */
	topup(t);
	return 1;
}
