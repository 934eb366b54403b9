// SPDX-License-Identifier: GPL-2.0
/*
 * dp-test.c - the traffic generator (engine/node-test.h) for a selftest
 * call on the userspace engine: timed, its trace sampled on the event
 * loop, done when the last message ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp.h"
#include "lnetd/lnetd.h"

struct selftest {
	struct bk_call *c; /* c->test is the generator (engine/node-test.h) */
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

	lne_test_sample(&st->c->test, now_ns() - st->t0);
	sd_event_source_set_time(s, usec + (uint64_t)st->interval_ms * 1000);
	return 0;
}

/* Every message has ended (from inside a node call): answer, and go. */
static void on_test_done(struct lne_test *t)
{
	struct selftest *st = t->arg;
	struct bk_call *c = st->c;

	c->elapsed_ns = now_ns() - st->t0;
	lne_test_sample(t, c->elapsed_ns); /* the last row: where it ended */
	c->rc = 0;
	sd_event_source_disable_unref(st->timer);
	free(st);
	c->done(c);
}

int lnetd_dp_selftest(struct lnetd_dp *dp, struct bk_call *c)
{
	struct lnetd *d = lnetd_dp_daemon(dp);
	struct selftest *st = calloc(1, sizeof(*st));
	struct lne_node *n = lnetd_dp_node(dp);
	struct lne_test *t = &c->test;
	struct lne_ni *ni;
	uint32_t rails = 0;

	if (!st)
		return -ENOMEM;
	st->c = c;
	t->done = on_test_done;
	t->arg = st;
	t->trace = NULL;
	lne_list_for_each_entry(ni, &n->ln->nis, all_link)
		rails++;
	if (c->interval_ms) {
		st->interval_ms = c->interval_ms;
		t->max_samples = LNETD_TEST_SAMPLES_MAX;
		t->trace = calloc((size_t)LNETD_TEST_SAMPLES_MAX * (rails + 1), sizeof(uint64_t));
		if (!t->trace || sd_event_add_time_relative(d->event, &st->timer, CLOCK_MONOTONIC,
							    (uint64_t)c->interval_ms * 1000, 1000,
							    on_sample, st) < 0) {
			free(t->trace);
			t->trace = NULL;
			free(st);
			return -ENOMEM;
		}
		sd_event_source_set_enabled(st->timer, SD_EVENT_ON);
	}
	st->t0 = now_ns();
	lne_test_start(t, n); /* may end at once, and answer */
	lnetd_dp_kick(dp);
	return 0;
}
