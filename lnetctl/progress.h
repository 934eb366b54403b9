/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - what a long command is doing, on stderr (lnetctl(8), import
 * --progress).  lnetctl tells its own phases: reading the file, checking
 * it, then waiting for lnetd, with the seconds it has waited.  lnetd judges
 * and commits a batch as one change while holding its event loop, so a
 * count from inside it would need the bus flushed from the middle of the
 * change; the phases and a clock that moves say what a person needs: that
 * it runs, and which part is slow.
 *
 * On a terminal the phases share one line, rewritten, and cleared at the
 * end; made to show elsewhere (--progress), each is a line of its own.
 * Off unless ctl_progress_start() turned it on.
 */
#ifndef LNETCTL_PROGRESS_H
#define LNETCTL_PROGRESS_H

#include <stdbool.h>

enum ctl_progress_mode {
	CTL_PROGRESS_AUTO, /* when stderr is a terminal */
	CTL_PROGRESS_ON,
	CTL_PROGRESS_OFF,
};

void ctl_progress_start(enum ctl_progress_mode mode);
bool ctl_progress_on(void);
/* A phase begins: "reading lnet.conf". */
void ctl_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The current phase has gone on @seconds (on a terminal: the line shows them). */
void ctl_progress_wait(long seconds);
/* Before other output (a warning, an error: ctl_fail does it): the terminal's line cleared. */
void ctl_progress_clear(void);
/* The last word (a line of its own off a terminal, nothing on one), and the line cleared. */
void ctl_progress_end(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LNETCTL_PROGRESS_H */
