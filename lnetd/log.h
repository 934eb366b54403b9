/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - lnetd's log: one entry per event.
 *
 * Under systemd (stderr is the journal: JOURNAL_STREAM names it) each entry
 * goes to the journal natively (sd_journal_sendv) with its priority and
 * structured fields, so `journalctl -u lnetd NI="tcp on eth0"` or
 * GENERATION=42 finds it; elsewhere it is a plain line on stderr,
 * "lnetd: <message>".  Fields (lnetd(8), JOURNAL):
 *   NI          a configured NI, "tcp on eth0"
 *   NID         the NID the entry is about (an NI's, a peer NI's, a peer's primary)
 *   GENERATION  the configuration's generation the entry belongs to
 *   OBJECT      what a change touched, "net add", "peer del", ...
 */
#ifndef LNETD_LOG_H
#define LNETD_LOG_H

#include <stddef.h>
#include <syslog.h>

struct iovec;

/* A structured field: NAME (A-Z, 0-9, _, not starting with _ or a digit) and its value. */
struct log_field {
	const char *name, *value;
};

void lnetd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An entry with @n fields (@f); those with a NULL or empty value are left out. */
void lnetd_log_with(int prio, const struct log_field *f, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The journal entry for @msg: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, then
 * each usable field, as iovecs into @buf (@cap bytes).  Returns how many
 * (at most @max); a field that does not fit, or whose name the journal
 * would refuse, is left out, never the message.
 */
size_t lnetd_log_iov(struct iovec *iov, size_t max, char *buf, size_t cap, int prio,
		     const char *msg, const struct log_field *f, size_t n);

#define log_error(...)	 lnetd_log(LOG_ERR, __VA_ARGS__)
#define log_warning(...) lnetd_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	 lnetd_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	 lnetd_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	 lnetd_log(LOG_DEBUG, __VA_ARGS__)

#endif /* LNETD_LOG_H */
