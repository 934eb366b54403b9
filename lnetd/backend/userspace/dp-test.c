// SPDX-License-Identifier: GPL-2.0
/*
 * dp-test.c - the traffic generator (engine/node-test.h) for the D-Bus
 * Selftest call on the userspace engine: timed, its trace sampled on the
 * event loop, answered when the last message ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp.h"
#include "lnetd/bus/bus-errors.h"
#include "lnetd/lnetd.h"

struct selftest {
	struct lne_test t; /* the generator (engine/node-test.h) */
	struct lnetd_dp *dp;
	sd_bus_message *m;
	uint64_t t0;
	uint32_t interval_ms;
	sd_event_source *timer;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int on_sample(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct selftest *st = userdata;

	lne_test_sample(&st->t, now_ns() - st->t0);
	sd_event_source_set_time(s, usec + (uint64_t)st->interval_ms * 1000);
	return 0;
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

static int reply(sd_bus_message *call, const struct lne_test *t, uint64_t elapsed)
{
	__attribute__((cleanup(sd_bus_message_unrefp))) sd_bus_message *r = NULL;
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

int lnetd_selftest_reply(sd_bus_message *call, const struct lne_test *t, uint64_t elapsed_ns)
{
	if (t->failed == t->finished)
		return sd_bus_reply_method_errorf(call, LNETD_ERR_UNREACHABLE,
						  "every one of %u messages failed: %s",
						  t->finished, strerror(-t->first_err));
	if (reply(call, t, elapsed_ns) < 0)
		return sd_bus_reply_method_errorf(call, LNETD_ERR_PROTOCOL,
						  "cannot build the reply");
	return 0;
}

/* Every message has ended (from inside a node call): answer, and go. */
static void on_test_done(struct lne_test *t)
{
	struct selftest *st = t->arg;
	uint64_t elapsed = now_ns() - st->t0;

	lne_test_sample(t, elapsed); /* the last row: where it ended */
	lnetd_selftest_reply(st->m, t, elapsed);
	sd_bus_message_unref(st->m);
	sd_event_source_disable_unref(st->timer);
	free(t->trace);
	free(st);
}

int lnetd_dp_selftest(struct lnetd_dp *dp, sd_bus_message *m, const struct lne_test *params,
		      uint32_t interval_ms)
{
	struct lnetd *d = lnetd_dp_daemon(dp);
	struct selftest *st = calloc(1, sizeof(*st));
	struct lne_node *n = lnetd_dp_node(dp);
	struct lne_ni *ni;
	uint32_t rails = 0;

	if (!st)
		return -ENOMEM;
	st->t = *params;
	st->t.done = on_test_done;
	st->t.arg = st;
	st->dp = dp;
	lne_list_for_each_entry(ni, &n->ln->nis, all_link)
		rails++;
	if (interval_ms) {
		st->interval_ms = interval_ms;
		st->t.max_samples = LNETD_TEST_SAMPLES_MAX;
		st->t.trace =
			calloc((size_t)LNETD_TEST_SAMPLES_MAX * (rails + 1), sizeof(uint64_t));
		if (!st->t.trace ||
		    sd_event_add_time_relative(d->event, &st->timer, CLOCK_MONOTONIC,
					       (uint64_t)interval_ms * 1000, 1000, on_sample,
					       st) < 0) {
			free(st->t.trace);
			free(st);
			return -ENOMEM;
		}
		sd_event_source_set_enabled(st->timer, SD_EVENT_ON);
	}
	st->m = sd_bus_message_ref(m);
	st->t0 = now_ns();
	lne_test_start(&st->t, n); /* may end at once, and free st */
	lnetd_dp_kick(dp);
	return 1;
}
