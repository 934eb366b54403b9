// SPDX-License-Identifier: GPL-2.0
/*
 * nrs.c - lnetd's NRS TBF policies (nrs.h): the mirror's policies, their
 * stored form, and the operations change.c runs on them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "change.h"
#include "lnetd.h"
#include "lnetd/backend/backend.h"
#include "nrs.h"

static const char *const qname[LNE_TBF_NQUEUES] = {"reg", "hp"};

uint64_t lnetd_tbf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct lne_tbf *lnetd_tbf_find(const struct lnetd *d, const char *service)
{
	size_t i;

	for (i = 0; service && i < d->ntbf; i++)
		if (!strcmp(lne_tbf_service(d->tbf[i]), service))
			return d->tbf[i];
	return NULL;
}

/* A growing string. */
struct text {
	char *s;
	size_t len, cap;
};

static int text_add(struct text *t, const char *a, const char *b)
{
	size_t need = t->len + strlen(a) + strlen(b) + 2;

	if (need > t->cap) {
		size_t cap = need * 2;
		char *s = realloc(t->s, cap);

		if (!s)
			return -ENOMEM;
		t->s = s;
		t->cap = cap;
	}
	t->len += (size_t)sprintf(t->s + t->len, "%s%s%s", t->len ? "\n" : "", a, b);
	return 0;
}

/* One queue's rules as commands, in replay order (last rule first), prefixed. */
static int queue_rules(const struct lne_tbf *tbf, enum lne_tbf_queue q, const char *prefix,
		       struct text *t)
{
	const struct lne_tbf_rule *r, *list[LNE_TBF_RULES_MAX + 1];
	char buf[LNE_TBF_CMD_MAX + 16];
	size_t n = 0;
	int rc = 0;

	for (r = lne_tbf_rule_next(tbf, q, NULL); r && n <= LNE_TBF_RULES_MAX;
	     r = lne_tbf_rule_next(tbf, q, r))
		list[n++] = r;
	while (!rc && n--) {
		/* The default rule at its default rate needs no command. */
		if (!list[n]->nterm && list[n]->rate == LNE_TBF_RATE_DEFAULT)
			continue;
		lne_tbf_rule_format(list[n], buf, sizeof(buf));
		rc = text_add(t, prefix, buf);
	}
	return rc;
}

int lnetd_tbf_stored(const struct lne_tbf *tbf, struct st_tbf *out)
{
	struct lne_tbf_queue_info info[LNE_TBF_NQUEUES];
	char type[LNE_TBF_NQUEUES][64];
	struct text t = {0};
	int q, rc = 0;

	memset(out, 0, sizeof(*out));
	for (q = 0; q < LNE_TBF_NQUEUES; q++) {
		lne_tbf_queue_info(tbf, q, &info[q]);
		lne_tbf_type_format(info[q].fields, type[q], sizeof(type[q]));
		if (!rc)
			rc = queue_rules(tbf, q, q == LNE_TBF_REG ? "reg " : "hp ", &t);
	}
	out->service = strdup(lne_tbf_service(tbf));
	out->reg_type = strdup(type[LNE_TBF_REG]);
	out->hp_type = strdup(type[LNE_TBF_HP]);
	out->reg_depth = info[LNE_TBF_REG].depth;
	out->hp_depth = info[LNE_TBF_HP].depth;
	out->rules = t.s ? t.s : strdup("");
	if (rc || !out->service || !out->reg_type || !out->hp_type || !out->rules) {
		st_tbf_clear(out);
		return -ENOMEM;
	}
	return 0;
}

static int parse_queue(const char *s, enum lne_tbf_queue *q, char *msg, size_t len)
{
	if (!s || !*s || !strcmp(s, "reg"))
		*q = LNE_TBF_REG;
	else if (!strcmp(s, "hp"))
		*q = LNE_TBF_HP;
	else {
		snprintf(msg, len, "'%s' is not a queue: say reg or hp", s);
		return -EINVAL;
	}
	return 0;
}

/* Replace @q's rules by @rules (commands for that queue, in replay order). */
static int replace_rules(struct lne_tbf *tbf, enum lne_tbf_queue q, const char *const *rules,
			 size_t n, uint64_t now, char *msg, size_t len)
{
	char names[LNE_TBF_RULES_MAX][LNE_TBF_NAME_MAX + 1], cmd[LNE_TBF_CMD_MAX + 32];
	const struct lne_tbf_rule *r;
	struct lne_err err = {.msg = ""};
	size_t nn = 0, i;
	int rc = 0;

	for (r = lne_tbf_rule_next(tbf, q, NULL); r; r = lne_tbf_rule_next(tbf, q, r))
		if (r->nterm && nn < LNE_TBF_RULES_MAX)
			snprintf(names[nn++], sizeof(names[0]), "%s", r->name);
	for (i = 0; !rc && i < nn; i++) {
		snprintf(cmd, sizeof(cmd), "%s stop %s", qname[q], names[i]);
		rc = lne_tbf_command(tbf, cmd, now, &err);
	}
	if (!rc) {
		snprintf(cmd, sizeof(cmd), "%s change default rate=%u", qname[q],
			 LNE_TBF_RATE_DEFAULT);
		rc = lne_tbf_command(tbf, cmd, now, &err);
	}
	for (i = 0; !rc && i < n; i++) {
		/* A rule in the list may carry its queue already ("reg start ..."). */
		const char *c = rules[i];

		if (!strncmp(c, "reg ", 4) || !strncmp(c, "hp ", 3)) {
			if (strncmp(c, qname[q], strlen(qname[q]))) {
				snprintf(msg, len, "rule %zu ('%s') is for the other queue", i + 1,
					 c);
				return -EINVAL;
			}
			snprintf(cmd, sizeof(cmd), "%s", c);
		} else {
			snprintf(cmd, sizeof(cmd), "%s %s", qname[q], c);
		}
		rc = lne_tbf_command(tbf, cmd, now, &err);
		if (rc) {
			snprintf(msg, len, "rule %zu: %s", i + 1, err.msg);
			return rc;
		}
	}
	if (rc)
		snprintf(msg, len, "%s", err.msg);
	return rc;
}

static int policy_add(struct lnetd *d, const char *service, struct lne_tbf **out, char *msg,
		      size_t len)
{
	struct lne_err err = {.msg = ""};
	struct lne_tbf **grown;
	int rc;

	grown = realloc(d->tbf, (d->ntbf + 1) * sizeof(*d->tbf));
	if (!grown)
		return -ENOMEM;
	d->tbf = grown;
	rc = lne_tbf_new(service, out, &err);
	if (rc) {
		snprintf(msg, len, "%s", err.msg);
		return rc;
	}
	d->tbf[d->ntbf++] = *out;
	return 0;
}

static void policy_del(struct lnetd *d, struct lne_tbf *tbf)
{
	size_t i;

	for (i = 0; i < d->ntbf && d->tbf[i] != tbf; i++)
		;
	if (i == d->ntbf)
		return;
	backend_tbf_changed(d, true); /* its queued requests back first */
	lne_tbf_free(tbf);
	memmove(&d->tbf[i], &d->tbf[i + 1], (d->ntbf - i - 1) * sizeof(*d->tbf));
	d->ntbf--;
}

/* Write the policy's stored form: nothing is recorded if it did not change. */
static int persist(struct lnetd *d, const struct lne_tbf *tbf, char *msg, size_t len)
{
	struct store_err serr = {""};
	struct st_tbf st;
	int rc = lnetd_tbf_stored(tbf, &st);

	if (!rc)
		rc = store_tbf_set(d->store, &st, &serr);
	if (rc)
		snprintf(msg, len, "%s", serr.msg[0] ? serr.msg : "out of memory");
	st_tbf_clear(&st);
	return rc;
}

int lnetd_tbf_op(struct lnetd *d, int verb, const struct lnetd_tbf_op *op, char *msg, size_t len)
{
	struct lne_tbf *tbf = lnetd_tbf_find(d, op->service);
	struct lne_err err = {.msg = ""};
	struct store_err serr = {""};
	uint64_t now = lnetd_tbf_now();
	enum lne_tbf_queue q;
	int rc;

	if (!op->service || !*op->service) {
		snprintf(msg, len, "a TBF policy needs a service");
		return -EINVAL;
	}
	if (verb == VERB_DEL) {
		if (!tbf && op->ensure)
			return 0;
		if (!tbf) {
			snprintf(msg, len, "no TBF policy for the service %s", op->service);
			return -ENOENT;
		}
		rc = store_tbf_del(d->store, op->service, &serr);
		if (rc) {
			snprintf(msg, len, "%s", serr.msg);
			return rc;
		}
		policy_del(d, tbf);
		backend_tbf_changed(d, false);
		return 0;
	}
	/* A policy comes into being with its first setting or rule. */
	if (!tbf) {
		rc = policy_add(d, op->service, &tbf, msg, len);
		if (rc)
			return rc;
		backend_tbf_changed(d, false);
	}
	if (verb == VERB_ADD) {
		rc = lne_tbf_command(tbf, op->command ?: "", now, &err);
		if (rc) {
			snprintf(msg, len, "%s", err.msg);
			return rc;
		}
		return persist(d, tbf, msg, len);
	}
	rc = parse_queue(op->queue, &q, msg, len);
	/* A new rule list goes in after the new type (its rules may need it), so the old
	 * rules (which may test a field the new type lacks) go first. */
	if (!rc && op->rules)
		rc = replace_rules(tbf, q, NULL, 0, now, msg, len);
	if (!rc && op->type) {
		rc = lne_tbf_set_type(tbf, q, op->type, &err);
		if (rc)
			snprintf(msg, len, "%s", err.msg);
	}
	if (!rc && op->depth != ST_UNSET) {
		rc = op->depth < 1 || op->depth > LNE_TBF_DEPTH_MAX
			     ? -ERANGE
			     : lne_tbf_set_depth(tbf, q, (u32)op->depth, now, &err);
		if (rc)
			snprintf(msg, len, "%s",
				 rc == -ERANGE ? "the depth must be 1 to 1000000" : err.msg);
	}
	if (!rc && op->rules)
		rc = replace_rules(tbf, q, op->rules, op->nrules, now, msg, len);
	return rc ? rc : persist(d, tbf, msg, len);
}

void lnetd_tbf_free_all(struct lnetd *d)
{
	size_t i;

	backend_tbf_changed(d, true);
	for (i = 0; i < d->ntbf; i++)
		lne_tbf_free(d->tbf[i]);
	free(d->tbf);
	d->tbf = NULL;
	d->ntbf = 0;
}

/* One stored policy back into the engine. */
static int restore_one(struct lnetd *d, const struct st_tbf *st, char *msg, size_t len)
{
	const char *types[LNE_TBF_NQUEUES] = {st->reg_type, st->hp_type};
	int64_t depth[LNE_TBF_NQUEUES] = {st->reg_depth, st->hp_depth};
	struct lne_err err = {.msg = ""};
	uint64_t now = lnetd_tbf_now();
	struct lne_tbf *tbf;
	char *rules, *line, *save = NULL;
	int q, rc;

	/* The schema keeps service non-NULL; a file whose schema was altered may not. */
	if (!st->service) {
		snprintf(msg, len, "a stored TBF policy has no service name");
		return -EINVAL;
	}
	rc = policy_add(d, st->service, &tbf, msg, len);
	for (q = 0; !rc && q < LNE_TBF_NQUEUES; q++) {
		rc = lne_tbf_set_type(tbf, q, types[q], &err);
		if (!rc)
			rc = lne_tbf_set_depth(tbf, q, (u32)depth[q], now, &err);
	}
	rules = rc ? NULL : strdup(st->rules ?: "");
	if (!rc && !rules)
		rc = -ENOMEM;
	for (line = rules ? strtok_r(rules, "\n", &save) : NULL; !rc && line;
	     line = strtok_r(NULL, "\n", &save))
		rc = lne_tbf_command(tbf, line, now, &err);
	free(rules);
	if (rc && !msg[0])
		snprintf(msg, len, "%s", err.msg);
	return rc;
}

struct restore_ctx {
	struct lnetd *d;
	char msg[LNE_ERR_MSG_MAX + 128];
};

static int restore_cb(const struct st_tbf *st, void *data)
{
	struct restore_ctx *c = data;
	int rc = restore_one(c->d, st, c->msg, sizeof(c->msg));

	if (rc) {
		char keep[sizeof(c->msg)];
		int n;

		snprintf(keep, sizeof(keep), "%s", c->msg);
		n = snprintf(c->msg, sizeof(c->msg), "TBF policy %.31s: ", st->service);
		snprintf(c->msg + n, sizeof(c->msg) - (size_t)n, "%.*s",
			 (int)(sizeof(c->msg) - (size_t)n - 1), keep);
	}
	return rc;
}

int lnetd_tbf_restore(struct lnetd *d, char **why)
{
	struct restore_ctx c = {.d = d, .msg = ""};
	int rc;

	lnetd_tbf_free_all(d);
	rc = store_tbf_list(d->store, restore_cb, &c);
	backend_tbf_changed(d, false);
	if (rc && why && asprintf(why, "stored %s", c.msg[0] ? c.msg : "TBF policy unreadable") < 0)
		*why = NULL;
	return rc;
}
