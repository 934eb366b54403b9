/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktbf.h - the kernel backend's NRS TBF part: make the lnetk module's TBF
 * policies those of lnetd's mirror (kernel.c calls it at the end of every
 * sync), and read what the module runs, with its statistics, for ListTbf.
 */
#ifndef LNETD_KTBF_H
#define LNETD_KTBF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lnetk;
struct lnetk_err;
struct lne_tbf;

/*
 * Called after each request with its result; @what names it ("TBF policy
 * ost_io", ...).  Returns whether the sync may go on (false: stop, the
 * module cannot be reached).
 */
typedef bool (*ktbf_sent_fn)(void *ctx, int rc, const char *what);

/*
 * Read the module's policies and send what makes them @want's: policies
 * created or deleted, queue types and depths, rules stopped, started,
 * changed and moved.  A rule that stays keeps its classes and statistics
 * in the module.  Returns 0, or the error that kept the module's policies
 * from being read (nothing was sent then).  @err holds each request's
 * extack for @sent.
 */
int ktbf_sync(struct lnetk *lk, struct lne_tbf *const *want, size_t nwant, ktbf_sent_fn sent,
	      void *ctx, struct lnetk_err *err);

/* One class the module reports (strings malloc'd, freed by ktbf_read). */
struct ktbf_class {
	char *service, *key, *rule;
	uint8_t queue;
	uint64_t queued, enqueued, dispatched, wait_ns, throttled;
};

struct lnetk_tbf;
typedef int (*ktbf_policy_fn)(const struct lnetk_tbf *t, const struct ktbf_class *cls, size_t ncls,
			      void *arg);

/*
 * The module's policies in service order, each through @cb with its
 * classes (of both queues, in no order): what runs, with the statistics
 * of the traffic it shapes.  Returns the first error (the module's, with
 * its sentence in @err, or @cb's).
 */
int ktbf_read(struct lnetk *lk, ktbf_policy_fn cb, void *arg, struct lnetk_err *err);

#endif /* LNETD_KTBF_H */
