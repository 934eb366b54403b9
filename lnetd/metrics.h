/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - what lnetd exports for Prometheus: a node_exporter textfile
 * collector file (lnetd --metrics-file=PATH, lnetd(8) METRICS) that lnetd
 * keeps current: rewritten whole every --metrics-interval seconds and soon
 * after every change, through a temporary file renamed over it, so a
 * scrape reads one complete exposition, never half of one.  Two writes are
 * LNETD_METRICS_GAP_MS apart at least (more when a write costs more than a
 * twentieth of that), whatever the rate of changes.
 *
 * What it holds: the data path's counters per local NI, per peer NI and
 * for the node (the module's with the kernel engine), NI and peer NI
 * health and link state, each NRS TBF rule's and class's statistics, and
 * the configuration's generation, objects and pending objects with their
 * reasons.  The peer NIs' series (one per peer NI and family: 100,000s at
 * site scale) only with --metrics-peers.  Names and labels are listed in
 * lnetd(8).
 */
#ifndef LNETD_METRICS_H
#define LNETD_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/error.h"

struct lnetd;
struct mx;

#define LNETD_METRICS_INTERVAL_DEFAULT 15   /* seconds */
#define LNETD_METRICS_INTERVAL_MAX     3600 /* seconds */
/* TBF classes exported per queue at most (a queue may hold 65,536): lnet_tbf_classes counts all. */
#define LNETD_METRICS_CLASSES_MAX      1024
/* The least time between two writes of the file (and 20 times what the last one cost). */
#define LNETD_METRICS_GAP_MS	       1000

/*
 * Write @path now and keep it current, with every peer NI's series if @peers;
 * -errno (having logged why) if it cannot be written.
 */
int lnetd_metrics_start(struct lnetd *d, const char *path, unsigned int interval_s, bool peers);
/* Something changed: write the file again soon (a no-op without --metrics-file). */
void lnetd_metrics_soon(struct lnetd *d);
/* Stop, and remove the file: a stopped lnetd exports nothing. */
void lnetd_metrics_stop(struct lnetd *d);
/* The whole exposition into @m (both engines), the peer NIs' too if @peers; -errno. */
int lnetd_metrics_render(struct lnetd *d, struct mx *m, bool peers);

/* What Status and the metrics say of the configuration's objects. */
enum {
	LNETD_KINDS = 6
};
struct lnetd_status {
	const char *kind[LNETD_KINDS]; /* net, peer, route, udsp, global, tbf */
	uint32_t configured[LNETD_KINDS], applied[LNETD_KINDS];
	bool in_module; /* the module holds what the mirror does (always, without one) */
	char why[LNE_ERR_MSG_MAX + 128]; /* when not */
};
int lnetd_status_read(struct lnetd *d, struct lnetd_status *s);
/* Each pending object (kind, object, reason) through @fn, the module first; @fn's error stops it. */
typedef int (*lnetd_pending_fn)(void *arg, const char *kind, const char *object,
				const char *reason);
int lnetd_pending_each(struct lnetd *d, const struct lnetd_status *s, lnetd_pending_fn fn,
		       void *arg);

#endif /* LNETD_METRICS_H */
