// SPDX-License-Identifier: GPL-2.0
/*
 * store-history.c - the change history: what each change records (its
 * object before and after, as JSON that SQLite renders from the rows), the
 * generations written at commit, and undoing them (store_undo_after(),
 * what a rollback runs).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-int.h"

/* --- the change log --------------------------------------------------------- */

/* Record a change: '+' added @new, '-' deleted @old, '~' turned @old into @new. */
int st_log_change(struct store *st, char op, enum kind k, const char *old, const char *new,
		  const char *key, struct store_err *err)
{
	const char *name = op == '+' ? "add" : op == '-' ? "del" : "mod";
	char opk[2] = {op, '\0'};
	int rc;

	if (old && new && !strcmp(old, new))
		return 0;
	rc = st_buf_cat(&st->change, st->change.len ? ",\n" : "[", "{\"op\":\"", name,
			"\",\"obj\":\"", st_kinds[k].obj, "\"", old ? ",\"old\":" : "", old ?: "",
			new ? ",\"new\":" : "", new ?: "", "}", NULL);
	if (!rc)
		rc = st_buf_cat(&st->summary, st->summary.len ? "\n" : "", opk, st_kinds[k].obj,
				" ", key, NULL);
	return rc ? st_seterr(err, rc, "store: out of memory") : 0;
}

/* --- generations ------------------------------------------------------------ */

int store_generation(struct store *st, uint64_t *gen)
{
	sqlite3_stmt *s = use(st, S_GENERATION);
	int rc = sqlite3_step(s);

	*gen = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(s, 0) : 0;
	rc = st_errno(st, rc);
	sqlite3_reset(s);
	return rc;
}

static void hist_row(sqlite3_stmt *s, struct st_hist *h)
{
	h->gen = sqlite3_column_int64(s, 0);
	h->time = sqlite3_column_int64(s, 1);
	h->uid = sqlite3_column_int64(s, 2);
	h->pid = sqlite3_column_int64(s, 3);
	h->command = col_text(s, 4);
	h->summary = col_text(s, 5);
	h->change = sqlite3_column_count(s) > 6 ? col_text(s, 6) : NULL;
}

int store_history_oldest(struct store *st, uint64_t *gen)
{
	sqlite3_stmt *s = use(st, S_HIST_OLDEST);
	int rc = sqlite3_step(s);

	*gen = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(s, 0) : 0;
	rc = st_errno(st, rc);
	sqlite3_reset(s);
	return rc;
}

int store_history_list(struct store *st, int64_t limit, store_hist_cb cb, void *data)
{
	sqlite3_stmt *s = use(st, S_HIST_LIST);
	int step, stop = 0;
	struct st_hist h;

	sqlite3_bind_int64(s, 1, limit > 0 ? limit : -1);
	while (!stop && (step = sqlite3_step(s)) == SQLITE_ROW) {
		hist_row(s, &h);
		stop = cb(&h, data);
	}
	return st_list_end(st, s, step, stop);
}

int store_history_get(struct store *st, uint64_t gen, struct st_hist *hist, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_HIST_GET);
	struct st_hist row;
	int rc;

	sqlite3_bind_int64(s, 1, (int64_t)gen);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		hist_row(s, &row);
		*hist = row;
		hist->command = hist->summary = hist->change = NULL;
		rc = 0;
		if (sdup(&hist->command, row.command) || sdup(&hist->summary, row.summary) ||
		    sdup(&hist->change, row.change)) {
			st_hist_clear(hist);
			rc = -ENOMEM;
		}
	} else if (rc == SQLITE_DONE) {
		rc = st_seterr(err, -ENOENT, "no generation %llu in the history",
			       (unsigned long long)gen);
	} else {
		rc = st_seterr(err, st_errno(st, rc), "store: %s", sqlite3_errmsg(st->db));
	}
	sqlite3_reset(s);
	return rc;
}

void st_hist_clear(struct st_hist *hist)
{
	free((char *)hist->command);
	free((char *)hist->summary);
	free((char *)hist->change);
	hist->command = hist->summary = hist->change = NULL;
}

/* --- undo -------------------------------------------------------------------- */

struct undo_step {
	char op[4], obj[8];
	char *json; /* the object to put back (add: the one to delete) */
};

enum {
	U_NET,
	U_IFNAME,
	U_PATTERN,
	U_CPTS,
	U_TUN, /* LNE_TUN__COUNT of them: S_JSON_FIELDS's order */
	U_NID = U_TUN + LNE_TUN__COUNT,
	U_PEER, /* LNE_PEER_A__COUNT of them */
	U_GW = U_PEER + LNE_PEER_A__COUNT,
	U_ROUTE, /* LNE_ROUTE_A__COUNT of them */
	U_NAME = U_ROUTE + LNE_ROUTE_A__COUNT,
	U_VALUE,
	U_POS,
	U_RULE, /* LNE_RULE_A__COUNT of them */
	U_SERVICE = U_RULE + LNE_RULE_A__COUNT,
	U_REG_TYPE,
	U_REG_DEPTH,
	U_HP_TYPE,
	U_HP_DEPTH,
	U_RULES,
	U_NI_ID, /* an NI's row, so that one put back takes its place again */
	U__COUNT
};

/* Every field an object of any kind may have, copied out of its JSON. */
struct undo_obj {
	char *text[U__COUNT];
	int64_t num[U__COUNT];
	const char **nids;
	size_t nnids;
};

static void undo_obj_clear(struct undo_obj *o)
{
	size_t i;

	for (i = 0; i < U__COUNT; i++)
		free(o->text[i]);
	for (i = 0; i < o->nnids; i++)
		free((char *)o->nids[i]);
	free(o->nids);
	memset(o, 0, sizeof(*o));
}

static int undo_obj_read(struct store *st, const char *json, struct undo_obj *o)
{
	sqlite3_stmt *s = use(st, S_JSON_FIELDS);
	int rc, i;

	memset(o, 0, sizeof(*o));
	bind_text(s, 1, json);
	rc = sqlite3_step(s);
	for (i = 0; rc == SQLITE_ROW && i < U__COUNT; i++) {
		o->num[i] = col_int(s, i);
		if (col_text(s, i) && !(o->text[i] = strdup(col_text(s, i))))
			rc = SQLITE_NOMEM;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW) {
		undo_obj_clear(o);
		return st_errno(st, rc);
	}
	s = use(st, S_JSON_NIDS);
	bind_text(s, 1, json);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char **grown = grow(o->nids, o->nnids, sizeof(*o->nids));

		if (!grown || !(grown[o->nnids] = strdup(col_text(s, 0) ?: ""))) {
			if (grown)
				o->nids = grown;
			rc = SQLITE_NOMEM;
			break;
		}
		o->nids = grown;
		o->nnids++;
	}
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return 0;
	/* Whatever was read so far goes: the caller has nothing to clear on failure. */
	undo_obj_clear(o);
	return st_errno(st, rc);
}

/* Do the inverse of one recorded change. */
static int undo_one(struct store *st, const struct undo_step *u, struct store_err *err)
{
	bool add = !strcmp(u->op, "add"), del = !strcmp(u->op, "del");
	struct undo_obj o;
	int rc = undo_obj_read(st, u->json, &o);

	if (rc)
		return st_seterr(err, rc, "store: cannot read back the change to undo");
	if (!strcmp(u->obj, "ni")) {
		struct st_ni ni = {.id = o.num[U_NI_ID],
				   .net = o.text[U_NET],
				   .ifname = o.text[U_IFNAME],
				   .pattern = o.text[U_PATTERN],
				   .cpts = o.text[U_CPTS]};
		int k;

		for (k = 0; k < LNE_TUN__COUNT; k++)
			ni.tun[k] = o.num[U_TUN + k];

		rc = add   ? store_ni_del(st, &ni, err)
		     : del ? store_ni_add(st, &ni, err)
			   : store_ni_update(st, &ni, err);
	} else if (!strcmp(u->obj, "peer")) {
		struct st_peer p = {.nid = o.text[U_NID], .nnids = o.nnids, .nids = o.nids};
		int k;

		/* a setting absent from the record (written before its column): its default */
		for (k = 0; k < LNE_PEER_A__COUNT; k++)
			p.v[k] = o.text[U_PEER + k] ? o.num[U_PEER + k] == 1
						    : (int)lne_peer_desc[k].def;

		/* A modified peer goes back whole: its NIDs in their old order. */
		rc = del ? 0 : store_peer_del(st, p.nid, err);
		if (!rc && !add)
			rc = store_peer_add(st, &p, err);
	} else if (!strcmp(u->obj, "route")) {
		struct st_route r = {.net = o.text[U_NET], .gateway = o.text[U_GW]};
		int k;

		for (k = 0; k < LNE_ROUTE_A__COUNT; k++)
			r.v[k] = o.num[U_ROUTE + k];

		rc = add   ? store_route_del(st, r.net, r.gateway, err)
		     : del ? store_route_add(st, &r, err)
			   : store_route_update(st, &r, err);
	} else if (!strcmp(u->obj, "global")) {
		rc = add ? store_global_unset(st, o.text[U_NAME], err)
			 : store_global_set(st, o.text[U_NAME], o.num[U_VALUE], err);
	} else if (!strcmp(u->obj, "rule")) {
		struct st_rule r = {.pos = o.num[U_POS]};
		int64_t pos;
		int k;

		for (k = 0; k < LNE_RULE_A__COUNT; k++)
			switch (lne_rule_desc[k].kind) {
			case LNE_RULE_K_EXPR:
				*st_rule_expr(&r, k) = o.text[U_RULE + k];
				break;
			case LNE_RULE_K_PRIO:
				*st_rule_prio(&r, k) = o.num[U_RULE + k];
				break;
			}

		rc = add   ? store_rule_del(st, r.pos, err)
		     : del ? store_rule_add(st, &r, &pos, err)
			   : store_rule_update(st, &r, err);
	} else if (!strcmp(u->obj, "tbf")) {
		struct st_tbf t = {.service = o.text[U_SERVICE],
				   .reg_type = o.text[U_REG_TYPE],
				   .reg_depth = o.num[U_REG_DEPTH],
				   .hp_type = o.text[U_HP_TYPE],
				   .hp_depth = o.num[U_HP_DEPTH],
				   .rules = o.text[U_RULES]};

		rc = add ? store_tbf_del(st, t.service, err) : store_tbf_set(st, &t, err);
	} else {
		rc = st_seterr(err, -EINVAL, "store: a recorded change of an unknown kind '%s'",
			       u->obj);
	}
	undo_obj_clear(&o);
	return rc;
}

int store_undo_after(struct store *st, uint64_t gen, struct store_err *err)
{
	sqlite3_stmt *s = use(st, S_UNDO_LIST);
	struct undo_step *steps = NULL;
	struct st_state target = {0};
	size_t n = 0, i;
	bool begun;
	struct mark m;
	uint64_t now, oldest;
	int rc;

	rc = store_generation(st, &now);
	if (!rc)
		rc = store_history_oldest(st, &oldest);
	if (rc)
		return rc;
	if (gen > now)
		return st_seterr(err, -ENOENT,
				 "generation %llu is in the future (the latest is %llu)",
				 (unsigned long long)gen, (unsigned long long)now);
	if (gen < oldest) {
		char keeps[64] = "", days[32] = "";

		if (st->keep_changes)
			snprintf(keeps, sizeof(keeps), "the last %u changes", st->keep_changes);
		if (!st->keep_changes && !st->keep_days)
			snprintf(keeps, sizeof(keeps), "everything from then on");
		if (st->keep_days)
			snprintf(days, sizeof(days), "%s%u days",
				 *keeps ? ", of the last " : "the last ", st->keep_days);
		return st_seterr(err, -ENOENT,
				 "generation %llu is older than the history keeps: the oldest "
				 "generation kept is %llu (it keeps %s%s)",
				 (unsigned long long)gen, (unsigned long long)oldest, keeps, days);
	}
	/* Read every step first: the undo writes while the list would still be open. */
	sqlite3_bind_int64(s, 1, (sqlite3_int64)gen);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct undo_step *grown = grow(steps, n, sizeof(*steps));

		if (!grown) {
			rc = SQLITE_NOMEM;
			break;
		}
		steps = grown;
		memset(&steps[n], 0, sizeof(steps[n]));
		snprintf(steps[n].op, sizeof(steps[n].op), "%s", col_text(s, 0) ?: "");
		snprintf(steps[n].obj, sizeof(steps[n].obj), "%s", col_text(s, 1) ?: "");
		steps[n].json = strdup(col_text(s, 2) ?: "{}");
		if (!steps[n++].json) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_reset(s);
	rc = rc == SQLITE_DONE
		     ? 0
		     : st_seterr(err, st_errno(st, rc), "store: %s", sqlite3_errmsg(st->db));
	/*
	 * Walk the history back to find the state of @gen, then record only how
	 * it differs from now: a rollback undoing earlier rollbacks would
	 * otherwise record every step again, and grow without end.
	 */
	begun = !rc && !(rc = st_op_begin(st, &m, err));
	for (i = 0; !rc && i < n; i++)
		rc = undo_one(st, &steps[i], err);
	if (!rc)
		rc = store_state_get(st, &target);
	if (begun)
		st_op_end(st, &m, rc ? rc : -ECANCELED);
	if (!rc)
		rc = store_state_replace(st, &target, err);
	st_state_clear(&target);
	for (i = 0; i < n; i++)
		free(steps[i].json);
	free(steps);
	return rc;
}
