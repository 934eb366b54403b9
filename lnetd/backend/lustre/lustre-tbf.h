/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lustre-tbf.h - the TBF side of lnetd's lustre engine: the mirror's NRS
 * TBF policies (d->tbf) held by the ptlrpc services of the node's Lustre
 * servers, through lu-tbf.h.
 *
 * Two layers:
 *
 *  ltbf_*()        the state and the work, with no lnetd around it (the
 *                  policies to hold are passed in; the debugfs and sysfs
 *                  roots are parameters, so the unit suite runs it on a
 *                  fake tree and the VM tier's guest tool on the real one);
 *  lustre_tbf_*()  the same for the engine (lustre-tbf-bk.c): functions
 *                  with backend_ops' signatures that the lustre engine's
 *                  ops table points at or calls, on lnetd's event loop.
 *
 * When a service's policy is written.
 *  - sync (after every committed change, and at start: so after lnetd
 *    restarts): every service of the mirror present on the node is made
 *    to run its policy; a service lnetd held a policy for until this
 *    change (in this run) goes back to fifo.  A service lnetd never held
 *    is left alone (Lustre's own `lctl set_param -P` rules, say).
 *  - poll, every ltbf period (lustre_tbf_start: default 10 s), and soon
 *    after an OSS or MDS appears: for each policy of the mirror, a stat of
 *    its service directory; a service that appeared (its first target
 *    mounted, or mounted again after the last one went: its rules died
 *    with it) is applied; a present one is read (its two files) and
 *    compared, and drift (`lctl set_param ... nrs_tbf_rule` behind lnetd's
 *    back) is logged, one sentence per difference, and put back.  The
 *    kernel sends an uevent (SUBSYSTEM=lustre, DEVPATH /fs/lustre/ost/OSS
 *    or /fs/lustre/mds/MDS) when the OSS or MDS device is set up, before
 *    its services register; the services themselves send none.  So an
 *    uevent (lustre_tbf_kick, or the engine's own listener) starts a fast
 *    poll (every 200 ms for 10 s) that catches the files when they come;
 *    without one the period finds them.  The cost of a poll: one stat per
 *    absent service, two small debugfs reads per present one.
 *
 * What cannot be held is refused before the commit (ltbf_judge, from the
 * engine's judge), with the node's real CPT count, queues and tbf_depth
 * when the service is present, else what can be known without it; what
 * only the service can tell (a rate below its CPT count) is refused at
 * sync, and ltbf_applied() says why until it is fixed.
 */
#ifndef LNETD_LUSTRE_TBF_H
#define LNETD_LUSTRE_TBF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lnetd/backend/backend.h"
#include "lu-tbf.h"

struct lne_tbf;
struct lnetd;
struct lnetd_op;

#define LTBF_PERIOD_US	(10 * 1000000ull) /* the drift check */
#define LTBF_FAST_US	(200 * 1000ull)	  /* after an OSS/MDS uevent */
#define LTBF_FAST_POLLS 50		  /* that many fast polls */
#define LTBF_WHY_MAX	512

/* Log a sentence: @level is syslog's (LOG_WARNING for drift and refusals). */
typedef void (*ltbf_log_fn)(void *arg, int level, const char *sentence);

struct ltbf;

/* @env is copied (its strings too); NULL: the real /sys/kernel/debug and /sys. */
struct ltbf *ltbf_new(const struct lutbf_env *env, ltbf_log_fn log, void *arg);
void ltbf_free(struct ltbf *t);
/* Its roots, for ltbf_judge and ltbf_read. */
const struct lutbf_env *ltbf_env(const struct ltbf *t);

/* What one sync or poll did. */
struct ltbf_result {
	unsigned applied;  /* services written to (a plan of one write or more) */
	unsigned drift;	   /* services found differing from lnetd's policy */
	unsigned appeared; /* services found present that were absent */
	unsigned released; /* services set back to fifo */
	unsigned failed;   /* services refused or not written (ltbf_applied says why) */
};

/* Hold @want (the mirror's policies): apply each present service's, release the dropped. */
void ltbf_sync(struct ltbf *t, struct lne_tbf *const *want, size_t n, struct ltbf_result *r);
/* The periodic check: services that appeared are applied, drift is put back. */
void ltbf_poll(struct ltbf *t, struct lne_tbf *const *want, size_t n, struct ltbf_result *r);
/* Whether every present service holds lnetd's policy; if not, @why says the first reason. */
bool ltbf_applied(const struct ltbf *t, char *why, size_t len);
/* Whether @service is on the node now (its directory under debugfs). */
bool ltbf_present(const struct ltbf *t, const char *service);

/* Whether Lustre on this node can hold @tbf: 0, or an errno with the sentence. */
int ltbf_judge(const struct lutbf_env *env, const struct lne_tbf *tbf, char *msg, size_t len);

/*
 * The policies as Lustre runs them: every known service on the node whose
 * queues run TBF, in the services' order; rates in lnetd's terms (per CPT
 * times the divisor lnetd uses for the type, lu-tbf.h).  Lustre keeps no
 * per-rule statistics: they are zero, and no classes are listed.
 */
int ltbf_read(const struct lutbf_env *env, bk_tbf_fn fn, void *arg, struct lne_err *err);

/* --- for the lustre engine (lustre-tbf-bk.c) ------------------------------------------ */

/*
 * Start the TBF side for @b on @d (its policies d->tbf, its loop
 * d->event; b->d is not set yet while the engine starts): a timer every
 * @period_us (0: LTBF_PERIOD_US), the first tick at once with a sync (so
 * the policies are applied after lnetd starts, lnet.ko or not), and a
 * listener of Lustre's uevents.  @env NULL: the real roots.  Call once from
 * the engine's start; lustre_tbf_stop() from its stop.
 */
int lustre_tbf_start(struct backend *b, struct lnetd *d, const struct lutbf_env *env,
		     uint64_t period_us);
void lustre_tbf_stop(struct backend *b);
/* From the engine's sync, whether lnet.ko is loaded or not: hold d->tbf now. */
void lustre_tbf_sync(struct backend *b);
/* From the engine's applied (its whole-node answer, @n NULL). */
bool lustre_tbf_applied(const struct backend *b, char *why, size_t len);
/* The engine's judge, or called from it: the TBF operations of @ops. */
int lustre_tbf_judge(struct backend *b, const struct lnetd_op *ops, size_t n, size_t *index,
		     char *msg, size_t len);
/* backend_ops.tbf_read. */
int lustre_tbf_read(struct backend *b, bk_tbf_fn fn, void *arg, struct lne_err *err);
/* An OSS or MDS came (the engine's own uevent listener, if it has one): poll fast. */
void lustre_tbf_kick(struct backend *b);

#endif /* LNETD_LUSTRE_TBF_H */
