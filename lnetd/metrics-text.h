/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics-text.h - the Prometheus text exposition format (version 0.0.4,
 * what node_exporter's textfile collector and promtool read), written into
 * a growing buffer.
 *
 * A family opens with its HELP and TYPE lines (mx_family) and its samples
 * follow (mx_u64, mx_seconds); a family's samples are written together, as the
 * format requires.  Labels are pairs of name and value ending with NULL;
 * values are escaped (backslash, double quote, newline), so any text, such
 * as a pending object's reason, is a valid label value.  The first failure
 * to grow the buffer sticks in ->err and later writes do nothing, so a
 * caller checks once at the end.
 */
#ifndef LNETD_METRICS_TEXT_H
#define LNETD_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct mx {
	char *buf;
	size_t len, cap;
	int err;	    /* 0, or -ENOMEM once a write failed */
	const char *family; /* the family samples go to */
};

/* Open family @name (a counter's ends in _total); @type "counter" or "gauge". */
void mx_family(struct mx *m, const char *name, const char *type, const char *help);
/* A sample of the open family: @labels "name", "value", ..., NULL (or NULL for none). */
void mx_u64(struct mx *m, const char *const *labels, uint64_t v);
/* A sample in seconds, from nanoseconds, exactly: "12.000000345". */
void mx_seconds(struct mx *m, const char *const *labels, uint64_t ns);
void mx_free(struct mx *m);

#endif /* LNETD_METRICS_TEXT_H */
