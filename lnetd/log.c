// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - see log.h.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "log.h"

#define LOG_FIELDS_MAX 16

enum {
	PLAIN,
	STREAM,
	NATIVE
};

/*
 * Whether stderr is the stream systemd connected to the journal ("DEV:INO"),
 * and then whether journald's native socket is there too: entries go to it
 * with their fields (sd_journal_sendv drops them silently without it), or
 * else down the stream as "<N>" lines.
 */
static int where(void)
{
	static int known = -1;
	unsigned long long dev, ino;
	const char *e;
	struct stat st;

	if (known >= 0)
		return known;
	e = getenv("JOURNAL_STREAM");
	known = PLAIN;
	if (e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && !fstat(STDERR_FILENO, &st) &&
	    (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino)
		known = access("/run/systemd/journal/socket", W_OK) ? STREAM : NATIVE;
	return known;
}

__attribute__((format(printf, 4, 0))) static void vlog(int prio, const struct log_field *f,
						       size_t n, const char *fmt, va_list ap)
{
	char line[2048], buf[4096];
	struct iovec iov[LOG_FIELDS_MAX + 3];
	size_t k;

	vsnprintf(line, sizeof(line), fmt, ap);
	switch (where()) {
	case NATIVE:
		if (n > LOG_FIELDS_MAX)
			n = LOG_FIELDS_MAX;
		k = lnetd_log_iov(iov, sizeof(iov) / sizeof(iov[0]), buf, sizeof(buf), prio, line,
				  f, n);
		if (sd_journal_sendv(iov, (int)k) >= 0)
			break;
		/* the stream still takes a line */
		__attribute__((fallthrough));
	case STREAM:
		fprintf(stderr, "<%d>lnetd: %s\n", LOG_PRI(prio), line);
		break;
	default:
		/* One write per line, so lines of concurrent writers do not interleave. */
		fprintf(stderr, "lnetd: %s\n", line);
	}
}

void lnetd_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(prio, NULL, 0, fmt, ap);
	va_end(ap);
}

void lnetd_log_with(int prio, const struct log_field *f, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(prio, f, n, fmt, ap);
	va_end(ap);
}
