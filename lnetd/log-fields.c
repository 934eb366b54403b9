// SPDX-License-Identifier: GPL-2.0
/*
 * log-fields.c - a journal entry's fields (log.h), without I/O.
 */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "log.h"

/* What journald takes as a field name: [A-Z0-9_], not starting with '_' (trusted) or a digit. */
static int name_ok(const char *s)
{
	size_t i;

	if (!*s || *s == '_' || (*s >= '0' && *s <= '9') || strlen(s) > 64)
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* "NAME=value" at @buf + *@used, as iov[*k]; 0, or -1 if it does not fit. */
static int add(struct iovec *iov, size_t *k, size_t max, char *buf, size_t cap, size_t *used,
	       const char *name, const char *value)
{
	int len;

	if (*k == max || *used >= cap)
		return -1;
	len = snprintf(buf + *used, cap - *used, "%s=%s", name, value);
	if (len < 0 || (size_t)len >= cap - *used)
		return -1;
	iov[*k].iov_base = buf + *used;
	iov[*k].iov_len = (size_t)len;
	(*k)++;
	*used += (size_t)len + 1;
	return 0;
}

size_t lnetd_log_iov(struct iovec *iov, size_t max, char *buf, size_t cap, int prio,
		     const char *msg, const struct log_field *f, size_t n)
{
	char p[4];
	size_t k = 0, used = 0, i;

	snprintf(p, sizeof(p), "%d", LOG_PRI(prio));
	if (add(iov, &k, max, buf, cap, &used, "MESSAGE", msg) ||
	    add(iov, &k, max, buf, cap, &used, "PRIORITY", p) ||
	    add(iov, &k, max, buf, cap, &used, "SYSLOG_IDENTIFIER", "lnetd"))
		return k;
	for (i = 0; i < n; i++)
		if (f[i].value && *f[i].value && name_ok(f[i].name))
			add(iov, &k, max, buf, cap, &used, f[i].name, f[i].value);
	return k;
}
