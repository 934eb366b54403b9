// SPDX-License-Identifier: GPL-2.0
/* A journal entry's fields (lnetd/log-fields.c): what lnetd hands sd_journal_sendv. */
#include <string.h>
#include <sys/uio.h>

#include "lnetd/log.h"
#include "unit.h"

static int has(const struct iovec *iov, size_t n, const char *want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (iov[i].iov_len == strlen(want) &&
		    !memcmp(iov[i].iov_base, want, iov[i].iov_len))
			return 1;
	return 0;
}

START_TEST(fields_and_priority)
{
	const struct log_field f[] = {
		{"NI", "tcp on eth0"}, {"NID", "10.0.0.1@tcp"}, {"GENERATION", "42"},
		{"OBJECT", NULL},      {"EMPTY", ""},
	};
	struct iovec iov[8];
	char buf[512];
	size_t n = lnetd_log_iov(iov, 8, buf, sizeof(buf), LOG_WARNING,
				 "NI tcp on eth0: pending: no address", f, 5);

	ck_assert_uint_eq(n, 6);
	ck_assert(has(iov, n, "MESSAGE=NI tcp on eth0: pending: no address"));
	ck_assert(has(iov, n, "PRIORITY=4"));
	ck_assert(has(iov, n, "SYSLOG_IDENTIFIER=lnetd"));
	ck_assert(has(iov, n, "NI=tcp on eth0"));
	ck_assert(has(iov, n, "NID=10.0.0.1@tcp"));
	ck_assert(has(iov, n, "GENERATION=42"));
}
END_TEST

/* Names journald would refuse (or take as trusted) are left out, never the message. */
START_TEST(bad_names_and_room)
{
	const struct log_field f[] = {
		{"_PID", "1"}, {"ni", "x"}, {"1NI", "x"}, {"N-I", "x"}, {"", "x"}, {"OK_1", "y"},
	};
	struct iovec iov[8];
	char buf[512], small[48];
	size_t n = lnetd_log_iov(iov, 8, buf, sizeof(buf), LOG_ERR, "m", f, 6);

	ck_assert_uint_eq(n, 4);
	ck_assert(has(iov, n, "OK_1=y"));
	ck_assert(has(iov, n, "PRIORITY=3"));
	/* No room for the fields: the message, priority and identifier stay. */
	n = lnetd_log_iov(iov, 8, small, sizeof(small), LOG_INFO, "m", f + 5, 1);
	ck_assert_uint_eq(n, 3);
	ck_assert(has(iov, n, "MESSAGE=m"));
	/* Three slots: the fields wait. */
	n = lnetd_log_iov(iov, 3, buf, sizeof(buf), LOG_INFO, "m", f + 5, 1);
	ck_assert_uint_eq(n, 3);
	ck_assert(!has(iov, n, "OK_1=y"));
}
END_TEST

Suite *make_log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("journal");

	tcase_add_test(tc, fields_and_priority);
	tcase_add_test(tc, bad_names_and_room);
	suite_add_tcase(s, tc);
	return s;
}
