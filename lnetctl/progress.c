// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c - see progress.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "lnetctl.h"
#include "progress.h"

static struct {
	bool on, tty, shown;
	long waited; /* the seconds last shown */
	char phase[256];
} pr;

void ctl_progress_start(enum ctl_progress_mode mode)
{
	pr.tty = isatty(STDERR_FILENO);
	pr.on = mode == CTL_PROGRESS_ON || (mode == CTL_PROGRESS_AUTO && pr.tty);
	pr.shown = false;
}

bool ctl_progress_on(void)
{
	return pr.on;
}

static void draw(const char *suffix)
{
	if (pr.tty)
		fprintf(stderr, "\r\033[Klnetctl %s: %s...%s", ctl_cmd_name, pr.phase, suffix);
	else
		fprintf(stderr, "lnetctl %s: %s...%s\n", ctl_cmd_name, pr.phase, suffix);
	fflush(stderr);
	pr.shown = true;
}

void ctl_progress(const char *fmt, ...)
{
	va_list ap;

	if (!pr.on)
		return;
	va_start(ap, fmt);
	vsnprintf(pr.phase, sizeof(pr.phase), fmt, ap);
	va_end(ap);
	pr.waited = 0;
	draw("");
}

void ctl_progress_wait(long seconds)
{
	char s[32];

	/* Off a terminal, a line every 10 s: a log should not fill with clocks. */
	if (!pr.on || seconds <= pr.waited || (!pr.tty && seconds % 10))
		return;
	pr.waited = seconds;
	snprintf(s, sizeof(s), " %ld s", seconds);
	draw(s);
}

void ctl_progress_clear(void)
{
	if (pr.on && pr.tty && pr.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		pr.shown = false;
	}
}

void ctl_progress_end(const char *fmt, ...)
{
	va_list ap;

	if (!pr.on)
		return;
	if (pr.tty) {
		ctl_progress_clear();
	} else {
		fprintf(stderr, "lnetctl %s: ", ctl_cmd_name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fflush(stderr);
	pr.on = false;
}
