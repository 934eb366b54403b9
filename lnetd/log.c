// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - see log.h.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* Whether stderr is the stream systemd connected to the journal ("DEV:INO"). */
static bool to_journal(void)
{
	static int known = -1;
	unsigned long long dev, ino;
	const char *e;
	struct stat st;

	if (known >= 0)
		return known;
	e = getenv("JOURNAL_STREAM");
	known = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && !fstat(STDERR_FILENO, &st) &&
		(unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
	return known;
}

void lnetd_log(int prio, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line, so lines of concurrent writers do not interleave. */
	if (to_journal())
		fprintf(stderr, "<%d>lnetd: %s\n", LOG_PRI(prio), line);
	else
		fprintf(stderr, "lnetd: %s\n", line);
}
