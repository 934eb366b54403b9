/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - lnetd's log: one line on stderr per event, "lnetd: <message>".
 * Under systemd (stderr is the journal: JOURNAL_STREAM names it) each line
 * starts with the syslog priority as "<N>", which journald takes as the
 * entry's priority (sd-daemon(3)); elsewhere the line is plain.
 */
#ifndef LNETD_LOG_H
#define LNETD_LOG_H

#include <syslog.h>

void lnetd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...)	 lnetd_log(LOG_ERR, __VA_ARGS__)
#define log_warning(...) lnetd_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	 lnetd_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	 lnetd_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	 lnetd_log(LOG_DEBUG, __VA_ARGS__)

#endif /* LNETD_LOG_H */
