// SPDX-License-Identifier: GPL-2.0
/*
 * change.c - running a list of operations as one change (see change.h).
 *
 * Each operation goes to the engine mirror first (the module's own code
 * judges it) and then to the store, inside the one transaction of the list.
 * Undoing a refused list is not done operation by operation: the store
 * rolls back and the mirror is rebuilt from it, which cannot disagree with
 * the store and costs nothing on the path where changes succeed.  The
 * operations themselves, one object kind at a time, are in change-ops.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "change.h"
#include "events.h"
#include "lnetd/backend/backend.h"
#include "lnetd/log.h"
#include "metrics.h"

static const char *const obj_names[OBJ__COUNT] = {"net", "peer", "route", "global", "udsp", "tbf"};
static const char *const verb_names[VERB__COUNT] = {"add", "del", "set"};

const char *lnetd_obj_name(enum lnetd_obj obj)
{
	return obj_names[obj];
}

const char *lnetd_verb_name(enum lnetd_verb verb)
{
	return verb_names[verb];
}

int lnetd_obj_lookup(const char *name)
{
	int i;

	for (i = 0; i < OBJ__COUNT; i++)
		if (!strcmp(name, obj_names[i]))
			return i;
	return -1;
}

int lnetd_verb_lookup(const char *name)
{
	int i;

	for (i = 0; i < VERB__COUNT; i++)
		if (!strcmp(name, verb_names[i]))
			return i;
	return -1;
}

/*
 * Back to what the store says, after a rollback.  Losing that is not
 * survivable: lnetd stops, its event loop ending with EXIT_FAILURE (main()'s
 * exit status) once the call at hand is answered.  The store is intact: a
 * restart restores it.
 */
static void rebuild(struct lnetd *d, bool mirror, bool tbf)
{
	char *why = NULL;

	if (!mirror && !tbf)
		return;
	if (mirror ? lnetd_mirror_rebuild(d, tbf, &why) : lnetd_tbf_restore(d, &why)) {
		log_error("cannot rebuild the configuration from the store: %s",
			  why ?: "out of memory");
		sd_event_exit(d->event, EXIT_FAILURE);
	}
	free(why);
}

void lnetd_mirror_changed(struct lnetd *d)
{
	backend_sync(d);
	lnetd_metrics_soon(d);
}

static void announce(struct lnetd *d, uint64_t before)
{
	lnetd_mirror_changed(d);
	if (d->generation != before)
		lnetd_bus_generation_changed(d);
}

/* A committed change, in the log with its fields (events.h). */
static void told(struct lnetd *d, const struct st_who *who, const struct lnetd_op *ops, size_t n)
{
	char obj[64];
	struct lnetd_event ev = {.kind = LNETD_EV_CHANGE, .object = obj, .nops = n};

	snprintf(obj, sizeof(obj), "%s %s", lnetd_obj_name(ops[0].obj),
		 lnetd_verb_name(ops[0].verb));
	if (who) {
		ev.uid = (unsigned int)who->uid;
		ev.command = who->command;
	}
	lnetd_event(d, &ev);
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int lnetd_change(struct lnetd *d, const struct st_who *who, struct lnetd_op *ops, size_t n,
		 bool dry, uint64_t budget_us, char **summary, struct lnetd_change_err *err)
{
	char text[sizeof(err->msg)];
	struct store_err serr = {""};
	uint64_t before = d->generation, gen0 = lne_generation(d->mirror);
	uint64_t deadline = budget_us ? now_usec() + budget_us : 0;
	char *change = NULL;
	size_t i;
	int rc;

	d->nis_dirty = false;
	if (summary)
		*summary = NULL;
	err->rc = 0;
	err->index = 0;
	err->msg[0] = '\0';
	/* All or nothing: the first refusal ends the list, so no savepoint per operation. */
	/* A dry run's peers are judged by the mirror alone: no row written, none rolled back. */
	rc = dry ? store_begin_dry(d->store) : store_begin_whole(d->store);
	if (rc) {
		err->rc = rc;
		snprintf(err->msg, sizeof(err->msg), "the store cannot start a change");
		return rc;
	}
	for (i = 0; i < n; i++) {
		text[0] = '\0';
		if (deadline && now_usec() > deadline) {
			rc = err->rc = -ETIME;
			err->index = i;
			snprintf(err->msg, sizeof(err->msg),
				 "judging the change took longer than allowed; stopped before "
				 "operation %zu of %zu",
				 i + 1, n);
			break;
		}
		rc = lnetd_op_run(d, &ops[i], text, sizeof(text));
		if (!rc)
			continue;
		err->rc = rc;
		err->index = i;
		if (n == 1)
			snprintf(err->msg, sizeof(err->msg), "%s", text);
		else
			snprintf(err->msg, sizeof(err->msg), "operation %zu (%s %s): %s", i + 1,
				 lnetd_verb_name(ops[i].verb), lnetd_obj_name(ops[i].obj), text);
		break;
	}
	lnetd_nis_gone_clear(d);
	/* What the mirror took, the engine that runs LNet may not hold: it says so now. */
	if (!rc) {
		i = 0;
		rc = backend_judge(d, ops, n, &i, text, sizeof(text));
		if (rc) {
			err->rc = rc;
			err->index = i < n ? i : 0;
			if (n == 1)
				snprintf(err->msg, sizeof(err->msg), "%s", text);
			else
				snprintf(err->msg, sizeof(err->msg), "operation %zu (%s %s): %s",
					 err->index + 1, lnetd_verb_name(ops[err->index].verb),
					 lnetd_obj_name(ops[err->index].obj), text);
		}
	}
	if (!rc && summary &&
	    (store_pending(d->store, summary, &change) || lnetd_nis_notes(d, ops, n, summary)))
		rc = err->rc = -ENOMEM;
	free(change);
	if (!rc && !dry) {
		rc = store_commit(d->store, who, &d->generation, &serr);
		if (rc) {
			err->rc = rc;
			snprintf(err->msg, sizeof(err->msg), "%s",
				 serr.msg[0] ? serr.msg : "the store refused the change");
		}
	}
	if (rc || dry) {
		/* Only what the list touched is rebuilt: most refusals come before any
		 * change, and TBF policies hold running state (classes, statistics). */
		bool tbf = false;

		for (i = 0; i < n; i++)
			tbf |= ops[i].obj == OBJ_TBF;
		store_rollback(d->store);
		rebuild(d, lne_generation(d->mirror) != gen0 || d->nis_dirty, tbf);
		return rc;
	}
	announce(d, before);
	if (d->generation != before)
		told(d, who, ops, n);
	return 0;
}

int lnetd_rollback(struct lnetd *d, const struct st_who *who, uint64_t gen,
		   struct lnetd_change_err *err)
{
	struct store_err serr = {""};
	uint64_t before = d->generation;
	char *why = NULL;
	int rc;

	err->index = 0;
	rc = store_begin(d->store);
	if (!rc)
		rc = store_undo_after(d->store, gen, &serr);
	if (!rc) {
		/* What the store now says must stand in the engine too. */
		rc = lnetd_mirror_rebuild(d, true, &why);
		if (rc)
			snprintf(serr.msg, sizeof(serr.msg),
				 "the configuration of generation %llu "
				 "is refused by the engine: %s",
				 (unsigned long long)gen, why ?: "out of memory");
		free(why);
	}
	if (!rc)
		rc = store_commit(d->store, who, &d->generation, &serr);
	if (rc) {
		err->rc = rc;
		snprintf(err->msg, sizeof(err->msg), "%s",
			 serr.msg[0] ? serr.msg : "the store refused the rollback");
		store_rollback(d->store);
		rebuild(d, true, true);
		return rc;
	}
	announce(d, before);
	return 0;
}
