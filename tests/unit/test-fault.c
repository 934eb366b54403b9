// SPDX-License-Identifier: GPL-2.0
/*
 * test-fault.c - fault injection (engine/fault.h) on simulated links with a
 * virtual clock: options and their bounds, rate and interval, a health
 * error that fails sends over to other rails, a rail that silently drops
 * everything (H2), and a delay (sanity-lnet.sh's fault tests in spirit).
 */
#include "engine/fault.h"
#include "simnet.h"
#include "unit.h"

#define N simnet_nid

/* A NID for lne_fault_del(): two at a time live. */
static const struct lne_nid *NP(const char *s)
{
	static struct lne_nid nids[2];
	static unsigned int next;
	struct lne_nid *n = &nids[next++ % 2];

	*n = N(s);
	return n;
}

static const char *const A4[] = {"10.0.0.1@tcp", "10.0.1.1@tcp", "10.0.2.1@tcp", "10.0.3.1@tcp",
				 NULL};
static const char *const B4[] = {"10.0.0.2@tcp", "10.0.1.2@tcp", "10.0.2.2@tcp", "10.0.3.2@tcp",
				 NULL};

struct tally {
	int ok, failed;
};

static void on_done(struct lne_msg *m, int status)
{
	struct tally *t = m->arg;

	if (status)
		t->failed++;
	else
		t->ok++;
}

static void puts_(struct simnode *a, int count, bool ack, u32 timeout, struct tally *t)
{
	struct lne_nid dst = N(B4[0]);
	int i;

	for (i = 0; i < count; i++)
		ck_assert_int_eq(lne_node_put(&a->node, &dst, NULL, 4, 1, 0, NULL, 64, ack, timeout,
					      on_done, t, NULL),
				 0);
}

/* A rule from "key=value" strings; returns lne_fault_add()'s result or the first error. */
static int rule(struct lne_node *n, bool delay, const char *const *kv, struct lne_err *err)
{
	struct lne_fault_attr a = {.delay = delay};

	for (; *kv; kv += 2) {
		int rc = lne_fault_opt(&a, kv[0], kv[1], err);

		if (rc)
			return rc;
	}
	return lne_fault_add(n, &a, err);
}

static int collect(void *arg, const char *key, const char *value)
{
	char *out = arg;

	strcat(out, key);
	strcat(out, "=");
	strcat(out, value);
	strcat(out, " ");
	return 0;
}

START_TEST(options_and_bounds)
{
	static const struct {
		bool delay;
		const char *kv[9];
		const char *bad; /* the part the error names */
	} bad[] = {
		{false, {"rate", "0", NULL}, "rate"},
		{false, {"rate", "x", NULL}, "rate"},
		{false, {"rate", "1000000001", NULL}, "rate"},
		{false, {"interval", "86401", NULL}, "interval"},
		{false, {"rate", "1", "interval", "1", NULL}, "rate"},
		{false, {"source", "nonsense", "rate", "1", NULL}, NULL},
		{false, {"portal", "64", "rate", "1", NULL}, "portal"},
		{false, {"portal", "4,", "rate", "1", NULL}, "portal"},
		{false, {"message", "PUT,FOO", "rate", "1", NULL}, "message"},
		{false, {"health_error", "ok", "rate", "1", NULL}, "health_error"},
		{false, {"colour", "red", NULL}, "colour"},
		{false, {"rate", "1", "latency", "1", NULL}, "latency"},
		{true, {"rate", "1", NULL}, "latency"},
		{true,
		 {"rate", "1", "latency", "1", "health_error", "local_error", NULL},
		 "health_error"},
		{false, {NULL}, "rate"},
	};
	static const char *const good[] = {
		"source",  "10.0.0.1@tcp", "dest",
		"*",	   "rate",	   "7",
		"portal",  "4,60",	   "message",
		"PUT,GET", "health_error", "remote_dropped,network_timeout",
		NULL};
	struct lne_node n;
	struct lne_inst *ln = lne_inst_new();
	struct lne_err err;
	char text[512] = "";
	unsigned int i;

	lne_node_init(&n, ln, NULL, NULL, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		ck_assert_int_lt(rule(&n, bad[i].delay, bad[i].kv, &err), 0);
		if (bad[i].bad)
			ck_assert_msg(!strncmp(err.msg, bad[i].bad, strlen(bad[i].bad)) &&
					      err.msg[strlen(bad[i].bad)] == ':',
				      "case %u: %s", i, err.msg);
	}
	ck_assert_ptr_null(n.faults); /* nothing added by a refused rule */
	ck_assert_int_eq(rule(&n, false, good, &err), 1);
	lne_fault_attr_each(&n.faults->a, collect, text);
	ck_assert_str_eq(text, "source=10.0.0.1@tcp dest=* rate=7 portal=4,60 message=PUT,GET "
			       "health_error=remote_dropped,network_timeout ");
	for (i = 1; i < LNE_FAULT_RULES_MAX; i++)
		ck_assert_int_gt(rule(&n, false, good, &err), 0);
	ck_assert_int_eq(rule(&n, false, good, &err), -ENOSPC);
	ck_assert_int_eq(lne_fault_del(&n, true, NULL, NULL, true), 0);
	ck_assert_int_eq(lne_fault_del(&n, false, NP("10.0.0.9@tcp"), NULL, false), 0);
	ck_assert_int_eq(lne_fault_del(&n, false, NP("10.0.0.1@tcp"), NULL, false),
			 LNE_FAULT_RULES_MAX);
	lne_node_fini(&n);
	lne_inst_free(ln);
}
END_TEST

/* rate N: one message in every N, exactly; interval S: one message in every S seconds. */
START_TEST(rate_and_interval)
{
	static const char *const rate4[] = {"dest", "10.0.0.2@tcp", "rate", "4", NULL};
	static const char *const every2s[] = {"dest", "10.0.0.2@tcp", "interval", "2", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct tally t = {0};
	int i;

	simnet_init(&s, 4096);
	a = simnet_node(&s, (const char *const[]){"10.0.0.1@tcp", NULL});
	b = simnet_node(&s, (const char *const[]){"10.0.0.2@tcp", NULL});
	ck_assert_int_eq(rule(&b->node, false, rate4, NULL), 1);
	puts_(a, 400, false, 0, &t);
	simnet_pump(&s);
	ck_assert_uint_eq(b->node.faults->st.count, 400);
	ck_assert_uint_eq(b->node.faults->st.hit, 100);
	ck_assert_uint_eq(b->node.faults->st.type[LNW_PUT], 100);
	ck_assert_uint_eq(b->recv_puts, 300);
	ck_assert_uint_eq(b->node.st.c.drop_count, 100);
	lne_fault_reset(&b->node, false);
	ck_assert_uint_eq(b->node.faults->st.hit, 0);
	ck_assert_int_eq(lne_fault_del(&b->node, false, NULL, NULL, true), 1);

	ck_assert_int_eq(rule(&b->node, false, every2s, NULL), 2);
	for (i = 0; i < 20; i++) { /* 10 messages a second for 20 s */
		puts_(a, 10, false, 0, &t);
		simnet_pump(&s);
		simnet_advance(&s, 1000);
	}
	ck_assert_uint_eq(b->node.faults->st.count, 200);
	ck_assert_uint_ge(b->node.faults->st.hit, 9);
	ck_assert_uint_le(b->node.faults->st.hit, 11);
	simnet_fini(&s);
}
END_TEST

/* A drop rule with a health error fails sends to one peer NI: resent, none lost. */
START_TEST(health_error_fails_over)
{
	static const char *const kv[] = {"dest",	 "10.0.0.2@tcp",   "rate", "1",
					 "health_error", "remote_dropped", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct tally t = {0};
	struct lne_nid b0 = N("10.0.0.2@tcp");

	simnet_init(&s, 4096);
	a = simnet_node(&s, A4);
	b = simnet_node(&s, B4);
	simnet_peer(a, B4);
	ck_assert_int_eq(rule(&a->node, false, kv, NULL), 1);
	puts_(a, 80, true, 10000, &t);
	simnet_pump(&s);
	ck_assert_int_eq(t.ok, 80);
	ck_assert_uint_eq(b->recv_puts, 80);
	ck_assert_uint_gt(a->node.faults->st.hit, 0);
	ck_assert_uint_eq(a->node.st.hs[LNE_HS_REMOTE_DROPPED], a->node.faults->st.hit);
	ck_assert_uint_eq(a->node.st.resend_count, a->node.faults->st.hit);
	ck_assert_int_lt(lne_peer_ni_find(a->ln, &b0)->health, LNE_HEALTH_MAX);
	ck_assert_uint_eq(lne_node_counts(&a->node, &b0)->sent[LNW_PUT], 0);
	simnet_fini(&s);
}
END_TEST

/* H2 in virtual time: a rail that silently drops everything is avoided; pings go on. */
START_TEST(silent_rail_is_avoided)
{
	static const char *const kv[] = {"dest", "10.0.0.2@tcp", "rate", "1", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct tally t = {0};
	struct lne_nid b0 = N("10.0.0.2@tcp");
	const struct lne_counts *c;
	u64 before, pings;
	int i;

	simnet_init(&s, 4096);
	a = simnet_node(&s, A4);
	b = simnet_node(&s, B4);
	simnet_peer(a, B4);
	ck_assert_int_eq(rule(&b->node, false, kv, NULL), 1);
	/* the first failures: what went over the rail is never answered */
	puts_(a, 40, true, 1000, &t);
	simnet_pump(&s);
	simnet_advance(&s, 1001);
	simnet_pump(&s);
	ck_assert_int_gt(t.failed, 0);
	ck_assert_int_eq(t.failed + t.ok, 40);
	ck_assert_uint_eq(a->node.st.response_timeout_count, (u64)t.failed);
	ck_assert_int_eq(lne_peer_ni_find(a->ln, &b0)->health, LNE_HEALTH_MAX - 100 * t.failed);
	c = lne_node_counts(&a->node, &b0);
	before = c->sent[LNW_PUT];
	pings = a->node.st.recovery_pings;
	/* new messages: at least 95 % avoid the rail */
	for (i = 0; i < 10; i++) {
		puts_(a, 40, true, 1000, &t);
		simnet_pump(&s);
		simnet_advance(&s, 1000);
		simnet_pump(&s);
	}
	ck_assert_uint_le((c->sent[LNW_PUT] - before) * 20, 400);
	ck_assert_int_ge(t.ok, 40 - t.failed + 380);
	/* and recovery keeps pinging it (each ping waits out the lnd timeout) */
	simnet_advance(&s, 120000);
	simnet_pump(&s);
	simnet_advance(&s, 120000);
	ck_assert_uint_gt(a->node.st.recovery_pings, pings);
	ck_assert(lne_node_health(&a->node, &b0)->queued);
	simnet_fini(&s);
}
END_TEST

/* A delay rule holds a send for its latency; del lets the next ones through at once. */
START_TEST(delay_holds_sends)
{
	static const char *const kv[] = {"dest", "10.0.0.2@tcp", "rate", "1", "latency", "3", NULL};
	struct simnet s;
	struct simnode *a, *b;
	struct tally t = {0};

	simnet_init(&s, 4096);
	a = simnet_node(&s, (const char *const[]){"10.0.0.1@tcp", NULL});
	b = simnet_node(&s, (const char *const[]){"10.0.0.2@tcp", NULL});
	ck_assert_int_eq(rule(&a->node, true, kv, NULL), 1);
	puts_(a, 5, true, 10000, &t);
	simnet_pump(&s);
	ck_assert_uint_eq(b->recv_puts, 0);
	ck_assert_uint_eq(lne_node_next_deadline(&a->node), s.now_ms + 3000);
	simnet_advance(&s, 2999);
	simnet_pump(&s);
	ck_assert_uint_eq(b->recv_puts, 0);
	simnet_advance(&s, 1);
	simnet_pump(&s);
	ck_assert_uint_eq(b->recv_puts, 5);
	ck_assert_int_eq(t.ok, 5);
	ck_assert_uint_eq(a->node.faults->st.hit, 5);
	ck_assert_int_eq(lne_fault_del(&a->node, true, NULL, NP("10.0.0.2@tcp"), false), 1);
	puts_(a, 5, true, 10000, &t);
	simnet_pump(&s);
	ck_assert_uint_eq(b->recv_puts, 10);
	/* held messages end with the node */
	ck_assert_int_eq(rule(&a->node, true, kv, NULL), 2);
	puts_(a, 2, false, 0, &t);
	simnet_fini(&s);
	ck_assert_int_eq(t.failed, 2);
}
END_TEST

/* Sum of the health values of a node's NIs (local) or of its peer NIs. */
static s32 health_sum(struct simnode *a, bool local)
{
	s32 sum = 0;
	struct lne_ni *ni;
	struct lne_peer *p;
	struct lne_peer_net *pnet;
	struct lne_peer_ni *pni;

	if (local) {
		lne_list_for_each_entry(ni, &a->ln->nis, all_link)
			sum += ni->health;
		return sum;
	}
	lne_list_for_each_entry(p, &a->ln->peers, link)
		lne_list_for_each_entry(pnet, &p->pnets, link)
			lne_list_for_each_entry(pni, &pnet->pnis, pnet_link)
				sum += pni->health;
	return sum;
}

/*
 * sanity-lnet.sh 204-207 and 209: every health status a drop rule can
 * simulate, on single-rail and Multi-Rail nodes: whether a ping is resent
 * (retry_count times, one failed resend) and whose health it costs.
 */
START_TEST(health_status_table)
{
	static const struct {
		const char *hs;
		bool resend_mr;	    /* resent between Multi-Rail nodes (a single rail never is) */
		bool local, remote; /* whose health it costs (remote: Multi-Rail peers only) */
	} rows[] = {
		{"local_interrupt", true, true, false}, {"local_dropped", true, true, false},
		{"local_aborted", true, true, false},	{"local_no_route", true, true, false},
		{"local_timeout", true, true, false},	{"local_error", false, true, false},
		{"remote_dropped", true, false, true},	{"remote_error", false, false, true},
		{"remote_timeout", false, false, true}, {"network_timeout", false, true, true},
	};
	static const char *const a1[] = {"10.0.0.1@tcp", NULL}, *const b1[] = {"10.0.0.2@tcp",
									       NULL};
	unsigned int i;
	int mr;

	for (mr = 0; mr < 2; mr++)
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			const char *kv[] = {"source",	    "*",	"dest", "*", "rate", "1",
					    "health_error", rows[i].hs, NULL};
			struct lne_nid dst = N("10.0.0.2@tcp");
			struct simnet s;
			struct simnode *a;
			struct tally t = {0};
			s32 lo, rmt;
			bool resend = mr && rows[i].resend_mr;

			simnet_init(&s, 4096);
			a = simnet_node(&s, mr ? A4 : a1);
			simnet_node(&s, mr ? B4 : b1);
			simnet_peer(a, mr ? B4 : b1);
			lo = health_sum(a, true);
			rmt = health_sum(a, false);
			ck_assert_int_eq(rule(&a->node, false, kv, NULL), 1);
			ck_assert_int_eq(
				lne_node_ping(&a->node, &dst, NULL, 1000, on_done, &t, NULL), 0);
			simnet_pump(&s);
			ck_assert_msg(t.failed == 1, "%s mr %d: the ping failed", rows[i].hs, mr);
			ck_assert_msg(a->node.st.resend_count == (resend ? 2u : 0u),
				      "%s mr %d: %llu resends", rows[i].hs, mr,
				      (unsigned long long)a->node.st.resend_count);
			ck_assert_uint_eq(a->node.st.failed_resends, resend ? 1 : 0);
			ck_assert_uint_eq(a->node.st.successful_resends, 0);
			ck_assert_msg((health_sum(a, true) < lo) == rows[i].local,
				      "%s mr %d: local health", rows[i].hs, mr);
			ck_assert_msg((health_sum(a, false) < rmt) == (mr && rows[i].remote),
				      "%s mr %d: remote health", rows[i].hs, mr);
			simnet_fini(&s);
		}
}
END_TEST

Suite *make_fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("fault");

	tcase_add_test(tc, options_and_bounds);
	tcase_add_test(tc, rate_and_interval);
	tcase_add_test(tc, health_error_fails_over);
	tcase_add_test(tc, silent_rail_is_avoided);
	tcase_add_test(tc, delay_holds_sends);
	tcase_add_test(tc, health_status_table);
	suite_add_tcase(s, tc);
	return s;
}
