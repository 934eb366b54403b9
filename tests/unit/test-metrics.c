// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text format lnetd writes (lnetd/metrics-text.c). */
#include <string.h>

#include "lnetd/metrics-text.h"
#include "unit.h"

START_TEST(family_and_samples)
{
	static const char *const nid[] = {"nid", "10.0.0.1@tcp", "net", "tcp", NULL};
	struct mx m = {0};

	mx_family(&m, "lnet_ni_sent_messages_total", "counter", "Messages sent.");
	mx_u64(&m, nid, 18446744073709551615ull);
	mx_family(&m, "lnet_config_generation", "gauge", "Generation.");
	mx_u64(&m, NULL, 7);
	mx_family(&m, "lnet_tbf_rule_wait_seconds_total", "counter", "Waited.");
	mx_seconds(&m, NULL, 12000000345ull);
	mx_seconds(&m, NULL, 5);
	ck_assert_int_eq(m.err, 0);
	ck_assert_str_eq(m.buf, "# HELP lnet_ni_sent_messages_total Messages sent.\n"
				"# TYPE lnet_ni_sent_messages_total counter\n"
				"lnet_ni_sent_messages_total{nid=\"10.0.0.1@tcp\",net=\"tcp\"} "
				"18446744073709551615\n"
				"# HELP lnet_config_generation Generation.\n"
				"# TYPE lnet_config_generation gauge\n"
				"lnet_config_generation 7\n"
				"# HELP lnet_tbf_rule_wait_seconds_total Waited.\n"
				"# TYPE lnet_tbf_rule_wait_seconds_total counter\n"
				"lnet_tbf_rule_wait_seconds_total 12.000000345\n"
				"lnet_tbf_rule_wait_seconds_total 0.000000005\n");
	ck_assert_uint_eq(m.len, strlen(m.buf));
	mx_free(&m);
}
END_TEST

/* Label values may hold anything (a pending object's reason): \, " and newline are escaped;
 * HELP escapes \ and newline but keeps ". */
START_TEST(escaping)
{
	static const char *const lab[] = {"reason", "a \"b\"\\c\nd", "empty", "", NULL};
	struct mx m = {0};

	mx_family(&m, "x", "gauge", "say \"hi\"\\\nnext");
	mx_u64(&m, lab, 1);
	ck_assert_int_eq(m.err, 0);
	ck_assert_str_eq(m.buf, "# HELP x say \"hi\"\\\\\\nnext\n"
				"# TYPE x gauge\n"
				"x{reason=\"a \\\"b\\\"\\\\c\\nd\",empty=\"\"} 1\n");
	mx_free(&m);
}
END_TEST

/* Past the first 4 KiB: the buffer grows and keeps every byte. */
START_TEST(grows)
{
	static const char *const lab[] = {"nid", "10.0.0.1@tcp", NULL};
	struct mx m = {0};
	size_t i, lines = 0;

	mx_family(&m, "lnet_peer_ni_health", "gauge", "Health.");
	for (i = 0; i < 2000; i++)
		mx_u64(&m, lab, i);
	ck_assert_int_eq(m.err, 0);
	ck_assert_uint_eq(m.len, strlen(m.buf));
	for (i = 0; i < m.len; i++)
		lines += m.buf[i] == '\n';
	ck_assert_uint_eq(lines, 2002);
	ck_assert_ptr_nonnull(strstr(m.buf, "lnet_peer_ni_health{nid=\"10.0.0.1@tcp\"} 1999\n"));
	mx_free(&m);
}
END_TEST

Suite *make_metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, family_and_samples);
	tcase_add_test(tc, escaping);
	tcase_add_test(tc, grows);
	suite_add_tcase(s, tc);
	return s;
}
