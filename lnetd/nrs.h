/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nrs.h - lnetd's NRS TBF policies: the mirror's lne_tbf per service, the
 * store's rows (struct st_tbf), and the operations that change them.
 *
 * A service's policy is stored as what rebuilds it: each queue's type and
 * depth, and its rules as the commands that, replayed in order on a fresh
 * policy, give the same rule list (lne_tbf_rule_format, last rule first).
 * Every change re-derives that text from the engine and writes it whole, so
 * the store holds the canonical form whatever syntax the admin used, and a
 * change that leaves the policy as it was records nothing.
 */
#ifndef LNETD_NRS_H
#define LNETD_NRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/tbf.h"

struct lnetd;
struct st_tbf;

/* The TBF fields of an operation (change.h's union member). */
struct lnetd_tbf_op {
	const char *service;
	const char *queue;	  /* set: "reg" (default) or "hp" */
	const char *type;	  /* set: NULL to keep */
	int64_t depth;		  /* set: ST_UNSET to keep */
	const char *const *rules; /* set: the queue's whole rule list, or NULL to keep */
	size_t nrules;
	const char *command; /* add: one rule command */
	bool ensure;	     /* del: no policy is no change (change.h's ensure) */
};

/* The policy of @service in the mirror, or NULL. */
struct lne_tbf *lnetd_tbf_find(const struct lnetd *d, const char *service);
/* set (policy settings, perhaps a whole rule list), add (one command), del (the policy). */
int lnetd_tbf_op(struct lnetd *d, int verb, const struct lnetd_tbf_op *op, char *msg, size_t len);
/* The stored form of @tbf (strings malloc'd: st_tbf_clear). */
int lnetd_tbf_stored(const struct lne_tbf *tbf, struct st_tbf *out);
/* Rebuild d->tbf from the store (at start and after a refused change). */
int lnetd_tbf_restore(struct lnetd *d, char **why);
void lnetd_tbf_free_all(struct lnetd *d);
/* The monotonic clock TBF commands run at, ns. */
uint64_t lnetd_tbf_now(void);

#endif /* LNETD_NRS_H */
